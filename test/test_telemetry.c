/* Vendor telemetry and `vncl monitor`: the dlopen path when the libraries
 * are missing (fields absent, no error), the loaded path through fake NVML,
 * ROCm SMI and Level Zero libraries built from test/fake_*.c (exact values),
 * a library whose init fails, argument errors, and the monitor command
 * (JSON lines, usage errors, SIGINT).
 *
 * The vendor libraries are opened once per process, so each library setup
 * runs in a fresh copy of this binary ("--scenario"), started with the
 * VNCL_*_LIBRARY variables of that setup, which prints what it read as
 * key=value lines for the parent to check. */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static char self_exe[1024], bin_dir[1024], vncl_bin[1100];
static char nvml_lib[1100], rocm_lib[1100], l0_lib[1100];
static char dev_name[256]; /* device 0's name, which the fakes report */
static int dev_count;

/* ---- the child: read and print ---------------------------------------- */

static void print_reading(const char *p, const vncl_telemetry *t) {
  printf("%s.index=%d\n%s.source=%s\n%s.matched_by=%s\n", p, t->device_index,
         p, t->source, p, t->matched_by);
  printf("%s.vendor_name=%s\n%s.pci=%s\n", p, t->vendor_device_name, p,
         t->pci_bus_id);
#define U(name, valid, v)                                  \
  if (valid)                                               \
    printf("%s." name "=%llu\n", p, (unsigned long long)(v)); \
  else                                                     \
    printf("%s." name "=absent\n", p)
#define D(name, valid, v)                \
  if (valid)                             \
    printf("%s." name "=%.6g\n", p, (v)); \
  else                                   \
    printf("%s." name "=absent\n", p)
  U("utilization", t->utilization_valid, t->utilization_percent);
  U("memory_utilization", t->memory_utilization_valid,
    t->memory_utilization_percent);
  U("memory_total", t->memory_total_valid, t->memory_total_bytes);
  U("memory_used", t->memory_used_valid, t->memory_used_bytes);
  U("memory_free", t->memory_free_valid, t->memory_free_bytes);
  D("temperature", t->temperature_valid, t->temperature_c);
  D("power", t->power_valid, t->power_watts);
  U("sm_clock", t->sm_clock_valid, t->sm_clock_mhz);
  U("memory_clock", t->memory_clock_valid, t->memory_clock_mhz);
#undef U
#undef D
}

/* test_telemetry --scenario N: N readings of device 0, the libraries, and
 * one reading through a context. */
static int scenario(int reads) {
  vncl_telemetry t;
  for (int r = 1; r <= reads; r++) {
    vncl_status s = vncl_telemetry_get(0, &t);
    if (s) {
      printf("error=%s %s\n", vncl_status_name(s), vncl_errmsg(NULL));
      return 3;
    }
    char p[16];
    snprintf(p, sizeof p, "%d", r);
    print_reading(p, &t);
  }
  vncl_telemetry_library libs[VNCL_TELEMETRY_LIBRARY_COUNT];
  int n = 0;
  if (vncl_telemetry_libraries(libs, VNCL_TELEMETRY_LIBRARY_COUNT, &n))
    return 3;
  for (int i = 0; i < n; i++)
    printf("lib.%s.loaded=%d\nlib.%s.devices=%d\nlib.%s.detail=%s\n",
           libs[i].name, libs[i].loaded, libs[i].name, libs[i].device_count,
           libs[i].name, libs[i].detail);
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  vncl_context *ctx = NULL;
  if (vncl_context_create(&ctx, &o)) return 3;
  vncl_status s = vncl_telemetry_get_context(ctx, &t);
  vncl_context_destroy(ctx);
  if (s) return 3;
  print_reading("ctx", &t);
  return 0;
}

/* test_telemetry --threads: 4 threads read device 0 at once from the very
 * first call (so they race on the loading, too); every reading must be the
 * same. Prints "threads=<source> <utilization or absent> <bad readings>". */
typedef struct {
  vncl_telemetry first;
  int bad;
} thread_result;

static void *reader(void *arg) {
  thread_result *r = arg;
  for (int i = 0; i < 200; i++) {
    vncl_telemetry t;
    if (vncl_telemetry_get(0, &t) != VNCL_OK) {
      r->bad++;
      continue;
    }
    if (i == 0) r->first = t;
    else if (strcmp(t.source, r->first.source) ||
             t.utilization_valid != r->first.utilization_valid ||
             t.utilization_percent != r->first.utilization_percent)
      r->bad++;
  }
  return NULL;
}

static int threads_scenario(void) {
  pthread_t th[4];
  thread_result res[4];
  memset(res, 0, sizeof res);
  for (int i = 0; i < 4; i++)
    if (pthread_create(&th[i], NULL, reader, &res[i])) return 3;
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  int bad = 0;
  for (int i = 0; i < 4; i++) {
    bad += res[i].bad;
    if (strcmp(res[i].first.source, res[0].first.source)) bad++;
  }
  if (res[0].first.utilization_valid)
    printf("threads=%s %u %d\n", res[0].first.source,
           res[0].first.utilization_percent, bad);
  else
    printf("threads=%s absent %d\n", res[0].first.source, bad);
  return 0;
}

/* ---- the parent --------------------------------------------------------- */

/* Runs `cmd` through the shell; returns the exit code, output in *out. */
static char *g_out;
static int sh(const char *cmd, char **out) {
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  size_t cap = 1 << 16, len = 0, n;
  char *buf = malloc(cap);
  assert_non_null(buf);
  while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (len + 1 >= cap) {
      buf = realloc(buf, cap *= 2);
      assert_non_null(buf);
    }
  }
  buf[len] = '\0';
  int st = pclose(f);
  /* The output belongs to this file, not the caller: a failing assertion
   * leaves its test by longjmp, and the buffer it was reading is freed here,
   * by the next command, or at exit. */
  free(g_out);
  g_out = buf;
  *out = buf;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs this binary's scenario with extra environment `env` (shell
 * assignments) and returns its output; fails the test on a bad exit. */
static char *run_scenario(const char *env, int reads) {
  char cmd[4096], *out;
  snprintf(cmd, sizeof cmd, "%s '%s' --scenario %d 2>&1", env, self_exe,
           reads);
  int rc = sh(cmd, &out);
  if (rc != 0) fail_msg("scenario exited %d: %s", rc, out);
  return out;
}

/* The value of "key=" in a scenario's output (static buffer). */
static const char *field(const char *out, const char *key) {
  static char val[512];
  char pat[128];
  snprintf(pat, sizeof pat, "%s=", key);
  size_t pl = strlen(pat);
  for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
    if (!strncmp(p, pat, pl)) {
      const char *e = strchr(p + pl, '\n');
      size_t n = e ? (size_t)(e - p - pl) : strlen(p + pl);
      if (n >= sizeof val) n = sizeof val - 1;
      memcpy(val, p + pl, n);
      val[n] = '\0';
      return val;
    }
  fail_msg("no '%s' in output:\n%s", key, out);
  return "";
}

#define FIELD_EQ(out, key, want) \
  assert_string_equal(field((out), (key)), (want))

/* Shell assignments: only NVML is the fake (named like device 0). */
static void env_nvml(char *e, size_t cap, const char *extra) {
  snprintf(e, cap,
           "VNCL_NVML_LIBRARY='%s' FAKE_NVML_NAME='%s' "
           "VNCL_ROCM_SMI_LIBRARY=off VNCL_LEVEL_ZERO_LIBRARY=off %s",
           nvml_lib, dev_name, extra);
}

static void test_missing_libraries(void **st) {
  (void)st;
  /* In this process the variables point at files that do not exist. */
  vncl_telemetry t;
  memset(&t, 0x5a, sizeof t);
  T_OK(NULL, vncl_telemetry_get(0, &t));
  vncl_device_info d;
  T_OK(NULL, vncl_device_get_info(0, &d));
  assert_int_equal(t.device_index, 0);
  /* Without vendor libraries, an AMD driver still tells free memory
   * (cl_amd_device_attribute_query): the source is then "opencl". Asked of
   * the driver here, not assumed from the machine. */
  cl_device_id cd = t_cl_device(0);
  char ext[8192] = "";
  clGetDeviceInfo(cd, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
  size_t fsz = 0;
  bool amd_free = strstr(ext, "cl_amd_device_attribute_query") &&
                  clGetDeviceInfo(cd, 0x4039 /* GLOBAL_FREE_MEMORY_AMD */, 0,
                                  NULL, &fsz) == CL_SUCCESS &&
                  fsz >= sizeof(size_t);
  assert_string_equal(t.source, amd_free ? "opencl" : "none");
  assert_string_equal(t.matched_by, "");
  assert_string_equal(t.vendor_device_name, "");
  assert_int_equal(t.utilization_valid, 0);
  assert_int_equal(t.utilization_percent, 0);
  assert_int_equal(t.memory_utilization_valid, 0);
  assert_int_equal(t.memory_used_valid, 0);
  assert_int_equal(t.memory_free_valid, amd_free);
  assert_int_equal(t.temperature_valid, 0);
  assert_int_equal(t.power_valid, 0);
  assert_int_equal(t.sm_clock_valid, 0);
  assert_int_equal(t.memory_clock_valid, 0);
  /* The total still comes from OpenCL. */
  assert_int_equal(t.memory_total_valid, 1);
  assert_true(t.memory_total_bytes == d.global_mem_bytes);

  vncl_telemetry_library libs[VNCL_TELEMETRY_LIBRARY_COUNT + 1];
  int n = 0;
  T_OK(NULL, vncl_telemetry_libraries(libs, VNCL_TELEMETRY_LIBRARY_COUNT + 1,
                                      &n));
  assert_int_equal(n, VNCL_TELEMETRY_LIBRARY_COUNT);
  const char *names[] = {"nvml", "rocm-smi", "level-zero"};
  const char *vars[] = {"VNCL_NVML_LIBRARY", "VNCL_ROCM_SMI_LIBRARY",
                        "VNCL_LEVEL_ZERO_LIBRARY"};
  for (int i = 0; i < n; i++) {
    assert_string_equal(libs[i].name, names[i]);
    assert_int_equal(libs[i].loaded, 0);
    assert_int_equal(libs[i].device_count, 0);
    assert_non_null(strstr(libs[i].detail, "cannot open"));
    assert_non_null(strstr(libs[i].detail, vars[i]));
    assert_non_null(strstr(libs[i].path, "/nonexistent/"));
  }

  /* The context form reads the same device. */
  vncl_context *ctx = t_context("off");
  vncl_telemetry c;
  T_OK(ctx, vncl_telemetry_get_context(ctx, &c));
  assert_int_equal(c.device_index, 0);
  assert_string_equal(c.source, "none");
  assert_int_equal(c.memory_total_valid, 1);
  assert_int_equal(c.utilization_valid, 0);
  vncl_context_destroy(ctx);
}

static void test_arguments(void **st) {
  (void)st;
  vncl_telemetry t;
  memset(&t, 0x33, sizeof t);
  vncl_telemetry before = t;
  T_FAILS(NULL, vncl_telemetry_get(0, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  T_FAILS(NULL, vncl_telemetry_get(-1, &t), VNCL_ERR_INVALID_ARG,
          "out of range");
  T_FAILS(NULL, vncl_telemetry_get(dev_count, &t), VNCL_ERR_INVALID_ARG,
          "out of range");
  assert_memory_equal(&t, &before, sizeof t); /* nothing written on error */
  T_FAILS(NULL, vncl_telemetry_get_context(NULL, &t), VNCL_ERR_INVALID_ARG,
          "ctx is NULL");
  vncl_context *ctx = t_context("off");
  T_FAILS(ctx, vncl_telemetry_get_context(ctx, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  vncl_context_destroy(ctx);
  int n = -1;
  T_FAILS(NULL, vncl_telemetry_libraries(NULL, 0, NULL),
          VNCL_ERR_INVALID_ARG, "count is NULL");
  T_FAILS(NULL, vncl_telemetry_libraries(NULL, 2, &n), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  vncl_telemetry_library one;
  T_FAILS(NULL, vncl_telemetry_libraries(&one, -1, &n), VNCL_ERR_INVALID_ARG,
          "negative");
  assert_int_equal(n, -1);
  T_OK(NULL, vncl_telemetry_libraries(NULL, 0, &n));
  assert_int_equal(n, VNCL_TELEMETRY_LIBRARY_COUNT);
  T_OK(NULL, vncl_telemetry_libraries(&one, 1, &n));
  assert_string_equal(one.name, "nvml");
}

static void test_fake_nvml(void **st) {
  (void)st;
  char env[2048];
  env_nvml(env, sizeof env, "");
  char *out = run_scenario(env, 1);
  FIELD_EQ(out, "lib.nvml.loaded", "1");
  FIELD_EQ(out, "lib.nvml.devices", "2");
  FIELD_EQ(out, "lib.nvml.detail", "driver 999.99.fake");
  FIELD_EQ(out, "lib.rocm-smi.loaded", "0");
  FIELD_EQ(out, "lib.rocm-smi.detail",
           "disabled by VNCL_ROCM_SMI_LIBRARY=off");
  /* Device 0 is the fake's second device (matched by its unique name),
   * with exactly the fake's readings. */
  FIELD_EQ(out, "1.source", "nvml");
  FIELD_EQ(out, "1.matched_by", "name");
  FIELD_EQ(out, "1.vendor_name", dev_name);
  FIELD_EQ(out, "1.pci", "0000:42:00.0");
  FIELD_EQ(out, "1.utilization", "37");
  FIELD_EQ(out, "1.memory_utilization", "12");
  FIELD_EQ(out, "1.memory_total", "17179869184");
  FIELD_EQ(out, "1.memory_used", "6442450944");
  FIELD_EQ(out, "1.memory_free", "10737418240");
  FIELD_EQ(out, "1.temperature", "55");
  FIELD_EQ(out, "1.power", "123.456");
  FIELD_EQ(out, "1.sm_clock", "1410");
  FIELD_EQ(out, "1.memory_clock", "1215");
  FIELD_EQ(out, "ctx.source", "nvml");
  FIELD_EQ(out, "ctx.index", "0");
  FIELD_EQ(out, "ctx.utilization", "37");

  /* A reading the device does not support is absent; the rest stay. */
  env_nvml(env, sizeof env, "FAKE_NVML_NO_POWER=1");
  out = run_scenario(env, 1);
  FIELD_EQ(out, "1.source", "nvml");
  FIELD_EQ(out, "1.power", "absent");
  FIELD_EQ(out, "1.utilization", "37");
  FIELD_EQ(out, "1.temperature", "55");

  /* A library whose devices are not ours: loaded, but nothing matches. */
  snprintf(env, sizeof env,
           "VNCL_NVML_LIBRARY='%s' FAKE_NVML_NAME='Another GPU' "
           "VNCL_ROCM_SMI_LIBRARY=off VNCL_LEVEL_ZERO_LIBRARY=off",
           nvml_lib);
  out = run_scenario(env, 1);
  FIELD_EQ(out, "lib.nvml.loaded", "1");
  FIELD_EQ(out, "1.source", "none");
  FIELD_EQ(out, "1.matched_by", "");
  FIELD_EQ(out, "1.utilization", "absent");
}

static void test_threads(void **st) {
  (void)st;
  char env[2048], cmd[4096], *out;
  env_nvml(env, sizeof env, "");
  snprintf(cmd, sizeof cmd, "%s '%s' --threads 2>&1", env, self_exe);
  int rc = sh(cmd, &out);
  if (rc != 0) fail_msg("threads scenario exited %d: %s", rc, out);
  FIELD_EQ(out, "threads", "nvml 37 0");
  snprintf(cmd, sizeof cmd, "'%s' --threads 2>&1", self_exe);
  rc = sh(cmd, &out);
  if (rc != 0) fail_msg("threads scenario exited %d: %s", rc, out);
  FIELD_EQ(out, "threads", "none absent 0");
}

static void test_fake_nvml_init_fails(void **st) {
  (void)st;
  char env[2048];
  env_nvml(env, sizeof env, "FAKE_NVML_FAIL_INIT=1");
  char *out = run_scenario(env, 1);
  FIELD_EQ(out, "lib.nvml.loaded", "0");
  FIELD_EQ(out, "lib.nvml.devices", "0");
  FIELD_EQ(out, "lib.nvml.detail",
           "nvmlInit_v2 failed: Driver Not Loaded (9)");
  FIELD_EQ(out, "1.source", "none");
  FIELD_EQ(out, "1.utilization", "absent");
  FIELD_EQ(out, "1.temperature", "absent");
  assert_string_not_equal(field(out, "1.memory_total"), "absent");

  /* A file that is not an NVML library at all (the ROCm fake). */
  char e2[2048];
  snprintf(e2, sizeof e2,
           "VNCL_NVML_LIBRARY='%s' VNCL_ROCM_SMI_LIBRARY=off "
           "VNCL_LEVEL_ZERO_LIBRARY=off", rocm_lib);
  out = run_scenario(e2, 1);
  FIELD_EQ(out, "lib.nvml.loaded", "0");
  assert_non_null(strstr(field(out, "lib.nvml.detail"), "not an NVML"));
  FIELD_EQ(out, "1.source", "none");
}

static void test_fake_rocm_smi(void **st) {
  (void)st;
  char env[2048];
  const char *variants[] = {"", "FAKE_RSMI_FREQ_V5=1"};
  for (int v = 0; v < 2; v++) {
    snprintf(env, sizeof env,
             "VNCL_NVML_LIBRARY=off VNCL_ROCM_SMI_LIBRARY='%s' "
             "FAKE_RSMI_NAME='%s' VNCL_LEVEL_ZERO_LIBRARY=off %s",
             rocm_lib, dev_name, variants[v]);
    char *out = run_scenario(env, 1);
    FIELD_EQ(out, "lib.rocm-smi.loaded", "1");
    FIELD_EQ(out, "1.source", "rocm-smi");
    FIELD_EQ(out, "1.matched_by", "name");
    FIELD_EQ(out, "1.pci", "0001:63:00.0");
    FIELD_EQ(out, "1.utilization", "64");
    FIELD_EQ(out, "1.memory_utilization", "21");
    FIELD_EQ(out, "1.memory_total", "34359738368");
    FIELD_EQ(out, "1.memory_used", "5368709120");
    FIELD_EQ(out, "1.memory_free", "28991029248");
    FIELD_EQ(out, "1.temperature", "47.5");
    FIELD_EQ(out, "1.power", "250.5");
    /* Both rsmi_frequencies_t layouts (ROCm 5 and 6) read right. */
    FIELD_EQ(out, "1.sm_clock", "1700");
    FIELD_EQ(out, "1.memory_clock", "1600");
  }
  /* Devices without an edge sensor report the junction temperature. */
  snprintf(env, sizeof env,
           "VNCL_NVML_LIBRARY=off VNCL_ROCM_SMI_LIBRARY='%s' "
           "FAKE_RSMI_NAME='%s' VNCL_LEVEL_ZERO_LIBRARY=off "
           "FAKE_RSMI_NO_EDGE=1", rocm_lib, dev_name);
  char *out = run_scenario(env, 1);
  FIELD_EQ(out, "1.temperature", "61");
  snprintf(env, sizeof env,
           "VNCL_NVML_LIBRARY=off VNCL_ROCM_SMI_LIBRARY='%s' "
           "FAKE_RSMI_NAME='%s' VNCL_LEVEL_ZERO_LIBRARY=off "
           "FAKE_RSMI_FAIL_INIT=1", rocm_lib, dev_name);
  out = run_scenario(env, 1);
  FIELD_EQ(out, "lib.rocm-smi.loaded", "0");
  assert_non_null(strstr(field(out, "lib.rocm-smi.detail"),
                         "rsmi_init failed"));
  FIELD_EQ(out, "1.source", "none");
}

static void test_fake_level_zero(void **st) {
  (void)st;
  char env[2048];
  snprintf(env, sizeof env,
           "VNCL_NVML_LIBRARY=off VNCL_ROCM_SMI_LIBRARY=off "
           "VNCL_LEVEL_ZERO_LIBRARY='%s' FAKE_ZE_NAME='%s'",
           l0_lib, dev_name);
  char *out = run_scenario(env, 2);
  FIELD_EQ(out, "lib.level-zero.loaded", "1");
  FIELD_EQ(out, "lib.level-zero.devices", "1");
  FIELD_EQ(out, "1.source", "level-zero");
  FIELD_EQ(out, "1.matched_by", "name");
  FIELD_EQ(out, "1.pci", "0000:3a:00.0");
  /* Memory of the device module only; the hottest GPU sensor; clocks. */
  FIELD_EQ(out, "1.memory_total", "25769803776");
  FIELD_EQ(out, "1.memory_free", "21474836480");
  FIELD_EQ(out, "1.memory_used", "4294967296");
  FIELD_EQ(out, "1.temperature", "58.25");
  FIELD_EQ(out, "1.sm_clock", "1550");
  FIELD_EQ(out, "1.memory_clock", "3200");
  /* Rates need two samples: absent at first, then exact. */
  FIELD_EQ(out, "1.utilization", "absent");
  FIELD_EQ(out, "1.power", "absent");
  FIELD_EQ(out, "2.utilization", "25");
  FIELD_EQ(out, "2.power", "90");
  snprintf(env, sizeof env,
           "VNCL_NVML_LIBRARY=off VNCL_ROCM_SMI_LIBRARY=off "
           "VNCL_LEVEL_ZERO_LIBRARY='%s' FAKE_ZE_FAIL_INIT=1", l0_lib);
  out = run_scenario(env, 1);
  FIELD_EQ(out, "lib.level-zero.loaded", "0");
  assert_non_null(strstr(field(out, "lib.level-zero.detail"),
                         "zesInit failed"));
  FIELD_EQ(out, "1.source", "none");
}

/* ---- the command ----------------------------------------------------------- */

static int vncl(const char *env, const char *args, bool merge, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s '%s' %s %s", env, vncl_bin, args,
           merge ? "2>&1" : "2>/dev/null");
  return sh(cmd, out);
}

/* Splits JSON lines; returns how many parsed, into j[] (cap entries). */
static int json_lines(char *out, cJSON **j, int cap) {
  int n = 0;
  for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
    if (n == cap) fail_msg("more than %d lines", cap);
    j[n] = cJSON_Parse(line);
    if (!j[n]) fail_msg("line %d is not JSON: %s", n + 1, line);
    n++;
  }
  return n;
}

static void test_monitor_json(void **st) {
  (void)st;
  char *out;
  assert_int_equal(vncl("", "monitor --json --count 2 --interval 50", false,
                        &out), 0);
  cJSON *j[4];
  int n = json_lines(out, j, 4);
  assert_int_equal(n, 2);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(cJSON_GetObjectItem(j[i], "sample")->valueint, i + 1);
    assert_int_equal(cJSON_GetObjectItem(j[i], "interval_ms")->valueint, 50);
    cJSON *devs = cJSON_GetObjectItem(j[i], "devices");
    assert_int_equal(cJSON_GetArraySize(devs), dev_count);
    cJSON *d0 = cJSON_GetArrayItem(devs, 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(d0, "name")),
                        dev_name);
    assert_string_equal(
        cJSON_GetStringValue(cJSON_GetObjectItem(d0, "selector")), "0:0");
    cJSON *t = cJSON_GetObjectItem(d0, "telemetry");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(t, "source")),
                        "none");
    /* Absent fields are null; the OpenCL total is there. */
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(t, "utilization_percent")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(t, "temperature_c")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(t, "power_watts")));
    assert_true(cJSON_GetNumberValue(
                    cJSON_GetObjectItem(t, "memory_total_bytes")) > 0);
    assert_non_null(strstr(
        cJSON_GetStringValue(cJSON_GetObjectItem(t, "note")),
        "no vendor telemetry"));
  }
  double t0 = cJSON_GetNumberValue(cJSON_GetObjectItem(j[0], "time"));
  double t1 = cJSON_GetNumberValue(cJSON_GetObjectItem(j[1], "time"));
  assert_true(t1 - t0 >= 0.040 && t1 - t0 < 5.0); /* one interval apart */
  cJSON_Delete(j[0]);
  cJSON_Delete(j[1]);

  /* One device with --device; the text view. */
  assert_int_equal(vncl("", "monitor --device 0 --count 1", false, &out), 0);
  assert_non_null(strstr(out, "vncl monitor"));
  assert_non_null(strstr(out, "[0] 0:0"));
  assert_non_null(strstr(out, "n/a (no vendor telemetry for "));
  assert_non_null(strstr(out, "memory   total "));
}

static void test_monitor_usage(void **st) {
  (void)st;
  char *out;
  const char *bad[] = {"monitor --interval 0",   "monitor --interval abc",
                       "monitor --interval",     "monitor --count 0",
                       "monitor --count -3",     "monitor --count 2x",
                       "monitor --device",       "monitor --bogus",
                       "monitor --json extra"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int rc = vncl("", bad[i], true, &out);
    if (rc != 2) fail_msg("'%s' exited %d, not 2: %s", bad[i], rc, out);
    assert_non_null(strstr(out, "vncl monitor"));
  }
  assert_int_equal(vncl("", "monitor --bogus", true, &out), 2);
  assert_non_null(strstr(out, "--bogus"));
  assert_non_null(strstr(out, "usage: vncl monitor"));
  assert_int_equal(vncl("", "monitor --help", false, &out), 0);
  assert_non_null(strstr(out, "usage: vncl monitor"));
  assert_int_equal(vncl("", "help", false, &out), 0);
  assert_non_null(strstr(out, "monitor"));
  /* A selector that matches nothing: exit 1 with the device list. */
  assert_int_equal(vncl("", "monitor --device no-such-gpu --count 1", true,
                        &out), 1);
  assert_non_null(strstr(out, "no device matches selector 'no-such-gpu'"));
}

static void test_monitor_fake_nvml(void **st) {
  (void)st;
  char env[2048], *out;
  env_nvml(env, sizeof env, "");
  assert_int_equal(vncl(env, "monitor --json --count 1 --interval 10", false,
                        &out), 0);
  cJSON *j[2];
  assert_int_equal(json_lines(out, j, 2), 1);
  cJSON *t = cJSON_GetObjectItem(
      cJSON_GetArrayItem(cJSON_GetObjectItem(j[0], "devices"), 0),
      "telemetry");
  assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(t, "source")),
                      "nvml");
  assert_int_equal(cJSON_GetObjectItem(t, "utilization_percent")->valueint,
                   37);
  assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(t, "power_watts")) ==
              123.456);
  assert_true(cJSON_GetNumberValue(
                  cJSON_GetObjectItem(t, "memory_used_bytes")) ==
              6442450944.0);
  assert_int_equal(cJSON_GetObjectItem(t, "temperature_c")->valueint, 55);
  assert_string_equal(
      cJSON_GetStringValue(cJSON_GetObjectItem(t, "pci_bus_id")),
      "0000:42:00.0");
  assert_null(cJSON_GetObjectItem(t, "note"));
  cJSON_Delete(j[0]);
  assert_int_equal(vncl(env, "monitor --count 1", false, &out), 0);
  assert_non_null(strstr(out, "source   nvml"));
  assert_non_null(strstr(out, "6.00 / 16.00 GiB used"));
  assert_non_null(strstr(out, "37 %"));
  assert_non_null(strstr(out, "123.5 W"));
  assert_non_null(strstr(out, "core 1410 MHz, memory 1215 MHz"));
  assert_non_null(strstr(out, "nvml: 2 device(s), driver 999.99.fake"));
}

/* Until interrupted: Ctrl-C ends it cleanly with exit 0. */
static void test_monitor_sigint(void **st) {
  (void)st;
  char path[] = "/tmp/vncl-monitor-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fd, STDOUT_FILENO);
    execl(vncl_bin, vncl_bin, "monitor", "--json", "--interval", "50",
          (char *)NULL);
    _exit(127);
  }
  close(fd);
  /* Wait for a few samples (PoCL start-up can take a while). */
  struct stat sb;
  for (int i = 0; i < 600; i++) {
    if (stat(path, &sb) == 0 && sb.st_size > 0) {
      struct timespec ts = {0, 200 * 1000000L};
      nanosleep(&ts, NULL);
      break;
    }
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
  }
  assert_int_equal(kill(pid, SIGINT), 0);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[8192];
  int lines = 0;
  while (fgets(line, sizeof line, f)) {
    cJSON *j = cJSON_Parse(line);
    if (!j) fail_msg("not JSON: %s", line);
    cJSON_Delete(j);
    lines++;
  }
  fclose(f);
  unlink(path);
  if (!WIFEXITED(status))
    fail_msg("monitor died from signal %d", WIFSIGNALED(status)
                                                ? WTERMSIG(status) : -1);
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_true(lines >= 1);
}

static void test_info_doctor(void **st) {
  (void)st;
  char *out, env[2048];
  assert_int_equal(vncl("VNCL_CACHE_DIR=off", "info --json --size 16", false,
                        &out), 0);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("not JSON: %s", out);
  cJSON *t = cJSON_GetObjectItem(j, "telemetry");
  assert_non_null(t);
  assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(t, "source")),
                      "none");
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(t, "utilization_percent")));
  cJSON_Delete(j);
  assert_int_equal(vncl("VNCL_CACHE_DIR=off", "info --size 16", false, &out),
                   0);
  assert_non_null(strstr(out, "telemetry:  none: n/a (no vendor telemetry"));
  assert_int_equal(vncl("VNCL_CACHE_DIR=off", "doctor", false, &out), 0);
  assert_non_null(strstr(out, "vendor telemetry: none (fields absent; fine "
                              "for CPU devices"));
  assert_non_null(strstr(out, "healthy"));

  env_nvml(env, sizeof env, "VNCL_CACHE_DIR=off");
  assert_int_equal(vncl(env, "info --json --size 16", false, &out), 0);
  j = cJSON_Parse(out);
  if (!j) fail_msg("not JSON: %s", out);
  t = cJSON_GetObjectItem(j, "telemetry");
  assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(t, "source")),
                      "nvml");
  assert_int_equal(cJSON_GetObjectItem(t, "utilization_percent")->valueint,
                   37);
  cJSON_Delete(j);
  assert_int_equal(vncl(env, "doctor", false, &out), 0);
  assert_non_null(strstr(out, "[ ok ] vendor telemetry: nvml ("));
  assert_non_null(strstr(out, "driver 999.99.fake"));
  assert_non_null(strstr(out, "matched by name"));
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--scenario"))
    return scenario(atoi(argv[2]));
  if (argc == 2 && !strcmp(argv[1], "--threads")) return threads_scenario();
  ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
  if (n <= 0) return 1;
  self_exe[n] = '\0';
  snprintf(bin_dir, sizeof bin_dir, "%s", self_exe);
  *strrchr(bin_dir, '/') = '\0'; /* build/test */
  snprintf(vncl_bin, sizeof vncl_bin, "%s/../vncl", bin_dir);
  snprintf(nvml_lib, sizeof nvml_lib, "%s/libfake_nvml.so", bin_dir);
  snprintf(rocm_lib, sizeof rocm_lib, "%s/libfake_rocm_smi.so", bin_dir);
  snprintf(l0_lib, sizeof l0_lib, "%s/libfake_level_zero.so", bin_dir);
  /* This process and every command it starts: no vendor library, whatever
   * this machine has installed, unless a test says otherwise. */
  setenv("VNCL_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  setenv("VNCL_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
  setenv("VNCL_LEVEL_ZERO_LIBRARY", "/nonexistent/libze_loader.so.1", 1);
  unsetenv("VNCL_DEVICE");
  vncl_device_info d;
  if (vncl_device_count(&dev_count) || vncl_device_get_info(0, &d)) {
    fprintf(stderr, "no OpenCL device: %s\n", vncl_errmsg(NULL));
    return 1;
  }
  snprintf(dev_name, sizeof dev_name, "%s", d.name);
  if (strchr(dev_name, '\'')) {
    fprintf(stderr, "device name contains a quote; cannot pass it to sh\n");
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_missing_libraries),
      cmocka_unit_test(test_arguments),
      cmocka_unit_test(test_fake_nvml),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_fake_nvml_init_fails),
      cmocka_unit_test(test_fake_rocm_smi),
      cmocka_unit_test(test_fake_level_zero),
      cmocka_unit_test(test_monitor_json),
      cmocka_unit_test(test_monitor_usage),
      cmocka_unit_test(test_monitor_fake_nvml),
      cmocka_unit_test(test_monitor_sigint),
      cmocka_unit_test(test_info_doctor),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  free(g_out);
  return failed;
}
