/* The `vncl` command as a user runs it: exit codes, usage errors, JSON
 * shapes, the verified product, the doctor's verdict, group selectors in
 * info and doctor. Expectations come from the devices `vncl devices`
 * finds. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <cjson/cJSON.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "env_names.h" /* T_ENV_NAMES: generated from the sources */

static char vncl_bin[1100];
static const char *const env_names[] = {T_ENV_NAMES};
static void single_device_arg(char *out, size_t cap);

/* Runs `vncl ARGS` (stderr to stdout when merge), returns the exit code and
 * the output in *out (malloc'd). */
static int run(const char *args, bool merge, char **out) {
  char cmd[2400];
  snprintf(cmd, sizeof cmd, "'%s' %s %s", vncl_bin, args,
           merge ? "2>&1" : "2>/dev/null");
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (len + 1 >= cap) buf = realloc(buf, cap *= 2);
  }
  buf[len] = '\0';
  int st = pclose(f);
  *out = buf;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_usage(void **st) {
  (void)st;
  char *out;
  assert_int_equal(run("--version", false, &out), 0);
  assert_non_null(strstr(out, VNCL_VERSION_STRING));
  free(out);
  assert_int_equal(run("help", false, &out), 0);
  assert_non_null(strstr(out, "devices"));
  assert_non_null(strstr(out, "doctor"));
  free(out);
  assert_int_equal(run("", true, &out), 2);
  assert_non_null(strstr(out, "usage"));
  free(out);
  assert_int_equal(run("frobnicate", true, &out), 2);
  assert_non_null(strstr(out, "unknown command 'frobnicate'"));
  free(out);
  const char *cmds[] = {"devices", "info", "doctor", "bench"};
  for (size_t i = 0; i < 4; i++) {
    char a[64];
    snprintf(a, sizeof a, "%s --help", cmds[i]);
    assert_int_equal(run(a, false, &out), 0);
    assert_non_null(strstr(out, "usage: vncl"));
    free(out);
    snprintf(a, sizeof a, "%s --no-such-option", cmds[i]);
    assert_int_equal(run(a, true, &out), 2);
    assert_non_null(strstr(out, "--no-such-option"));
    free(out);
  }
  assert_int_equal(run("info --size 0", true, &out), 2);
  free(out);
  assert_int_equal(run("bench --suite nonsense", true, &out), 2);
  assert_non_null(strstr(out, "unknown suite"));
  free(out);
}

/* Reads a whole file (malloc'd, "" when absent). */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  size_t cap = 1 << 16, len = 0, n;
  char *buf = malloc(cap);
  assert_non_null(buf);
  while (f && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (len + 1 >= cap) buf = realloc(buf, cap *= 2);
    assert_non_null(buf);
  }
  if (f) fclose(f);
  buf[len] = '\0';
  return buf;
}

static char tmp_dir[256]; /* made by main, removed at its end */

/* Runs `ENV vncl ARGS` with stdout and stderr kept apart (both malloc'd). */
static int run_split(const char *env, const char *args, char **out,
                     char **err) {
  char o[400], e[400], cmd[2600];
  snprintf(o, sizeof o, "%s/stdout", tmp_dir);
  snprintf(e, sizeof e, "%s/stderr", tmp_dir);
  snprintf(cmd, sizeof cmd, "%s '%s' %s >'%s' 2>'%s'", env ? env : "",
           vncl_bin, args, o, e);
  int st = system(cmd);
  *out = slurp(o);
  *err = slurp(e);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The vector level of this CPU and of an OpenBLAS core name, as the
 * bench ranks them: 1 SSE, 2 AVX, 3 AVX2 + FMA, 4 AVX-512 (F, BW, DQ, VL);
 * 0 where the CPU is not x86 (nothing to compare). */
static int cpu_level(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return 4;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 3;
  return __builtin_cpu_supports("avx") ? 2 : 1;
#else
  return 0;
#endif
}

static int blas_core_level(const char *core) {
  const char *l4[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};
  const char *l3[] = {"Haswell", "Zen", "Excavator"};
  const char *l2[] = {"Sandybridge", "Bulldozer", "Piledriver", "Steamroller"};
  for (int i = 0; i < 3; i++)
    if (!strcasecmp(core, l4[i])) return 4;
  for (int i = 0; i < 3; i++)
    if (!strcasecmp(core, l3[i])) return 3;
  for (int i = 0; i < 4; i++)
    if (!strcasecmp(core, l2[i])) return 2;
  return 1;
}

static const char *const commands[] = {"devices", "info",     "doctor",
                                       "monitor", "autotune", "bench"};
#define NCOMMANDS (sizeof commands / sizeof *commands)

/* Every command: a usage error prints what was wrong and that command's
 * usage on stderr, nothing on stdout, exit 2; --help and `vncl help CMD`
 * print the same help on stdout, exit 0. */
static void test_usage_every_command(void **st) {
  (void)st;
  char *out, *err, *out2, *err2, a[160], want[64];
  for (size_t i = 0; i < NCOMMANDS; i++) {
    const char *c = commands[i];
    snprintf(want, sizeof want, "usage: vncl %s", c);
    const char *bad[] = {"--no-such-option", "stray", "--", "-x"};
    for (size_t b = 0; b < 4; b++) {
      snprintf(a, sizeof a, "%s %s%s", c, bad[b],
               !strcmp(bad[b], "--") ? " stray" : "");
      int rc = run_split(NULL, a, &out, &err);
      if (rc != 2 || !strstr(err, want) || out[0])
        fail_msg("'vncl %s': exit %d, stdout '%s', stderr '%s'", a, rc, out,
                 err);
      const char *named = !strcmp(bad[b], "--") ? "stray" : bad[b];
      if (!strstr(err, named))
        fail_msg("'vncl %s': stderr does not name '%s': %s", a, named, err);
      free(out);
      free(err);
    }
    snprintf(a, sizeof a, "%s --help", c);
    assert_int_equal(run_split(NULL, a, &out, &err), 0);
    if (strncmp(out, want, strlen(want)))
      fail_msg("'vncl %s' printed: %s", a, out);
    snprintf(a, sizeof a, "help %s", c);
    assert_int_equal(run_split(NULL, a, &out2, &err2), 0);
    assert_string_equal(out, out2);
    free(out);
    free(err);
    free(out2);
    free(err2);
  }
  assert_int_equal(run_split(NULL, "help no-such-command", &out, &err), 2);
  assert_non_null(strstr(err, "unknown command 'no-such-command'"));
  free(out);
  free(err);
}

/* Options are matched whole, a value that is missing or empty is a usage
 * error, and numbers must be the whole word and in range. */
static void test_strict_options(void **st) {
  (void)st;
  static const struct {
    const char *args, *needle;
  } bad[] = {
      {"info --size 5abc", "'5abc'"},   {"info --size 0", "'0'"},
      {"info --size 16385", "'16385'"}, {"info --size ''", "--size"},
      {"info --size ' 5'", "' 5'"},     {"info --size 0x10", "'0x10'"},
      {"info --size +5", "'+5'"},       {"autotune --budget 0x1p3", "'0x1p3'"},
      {"info --size", "needs a value"}, {"info --siz 8", "did you mean --size"},
      {"info --device", "needs a value"},
      {"info --device=", "needs a value"},
      {"doctor --device ''", "needs a value"},
      {"monitor --interval 10ms", "'10ms'"},
      {"monitor --count -1", "'-1'"},
      {"monitor --count 99999999999999999999", "'99999999999999999999'"},
      {"bench --repeats 5abc", "'5abc'"},
      {"bench --max-dim 0", "'0'"},
      {"bench --json=", "needs a file name"},
      {"autotune --budget abc", "'abc'"},
      {"autotune --budget 0", "'0'"},
      {"autotune --budget nan", "'nan'"},
      {"autotune --budget inf", "'inf'"},
      {"autotune --timeout 1x", "'1x'"},
      {"autotune --quick=yes", "--quick"},
      {"autotune --kernel nope", "'nope'"},
      {"devices --json=", "needs a file name"},
  };
  char *out, *err;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int rc = run_split(NULL, bad[i].args, &out, &err);
    if (rc != 2 || out[0] || !strstr(err, bad[i].needle) ||
        !strstr(err, "usage: vncl"))
      fail_msg("'vncl %s': exit %d, stdout '%s', stderr '%s' (wanted '%s')",
               bad[i].args, rc, out, err, bad[i].needle);
    free(out);
    free(err);
  }
  /* The bounds themselves are accepted. */
  assert_int_equal(run_split(NULL, "info --size 1 --json", &out, &err), 0);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("not JSON: %s", out);
  cJSON *op = cJSON_GetObjectItem(j, "matrix_op");
  assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(op, "status")),
                      "success");
  assert_int_equal(
      cJSON_GetArrayItem(cJSON_GetObjectItem(op, "input_shape"), 0)->valueint,
      1);
  cJSON_Delete(j);
  free(out);
  free(err);
}

/* --json [FILE] means the same in every command that has it: the JSON on
 * stdout when no FILE, else in FILE (--json FILE or --json=FILE) with
 * nothing on stdout. */
/* Two `devices --json` reports of the same devices agree field by field,
 * except the clock: PoCL reads it from the host's current CPU frequency
 * (/proc/cpuinfo), which moves between two runs on hosts that boost. */
static void assert_same_devices(const char *got, const char *want) {
  cJSON *g = cJSON_Parse(got), *w = cJSON_Parse(want);
  if (!g || !w) fail_msg("not JSON: %s", g ? want : got);
  cJSON *gd = cJSON_GetObjectItem(g, "devices"), *wd = cJSON_GetObjectItem(w, "devices");
  assert_int_equal(cJSON_GetArraySize(gd), cJSON_GetArraySize(wd));
  assert_true(cJSON_GetArraySize(wd) >= 1);
  for (int i = 0; i < cJSON_GetArraySize(wd); i++) {
    cJSON *a = cJSON_GetArrayItem(gd, i), *b = cJSON_GetArrayItem(wd, i);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(a, "max_clock_mhz")));
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(b, "max_clock_mhz")));
    cJSON_DeleteItemFromObject(a, "max_clock_mhz");
    cJSON_DeleteItemFromObject(b, "max_clock_mhz");
  }
  char *gs = cJSON_PrintUnformatted(g), *ws = cJSON_PrintUnformatted(w);
  assert_string_equal(gs, ws);
  free(gs);
  free(ws);
  cJSON_Delete(g);
  cJSON_Delete(w);
}

static void test_json_file(void **st) {
  (void)st;
  char *out, *err, *text, a[700], path[400];
  snprintf(path, sizeof path, "%s/out.json", tmp_dir);
  /* A word after --json that names no JSON file is not taken as one. */
  assert_int_equal(run_split(NULL, "devices --json extra", &out, &err), 2);
  assert_string_equal(out, "");
  assert_non_null(strstr(err, "unexpected argument 'extra'"));
  assert_int_not_equal(access("extra", F_OK), 0);
  free(out);
  free(err);
  /* devices: the file holds what stdout would. */
  assert_int_equal(run_split(NULL, "devices --json", &out, &err), 0);
  char *want = out;
  free(err);
  const char *forms[] = {"devices --json '%s'", "devices --json='%s'"};
  for (int f = 0; f < 2; f++) {
    unlink(path);
    snprintf(a, sizeof a, forms[f], path);
    assert_int_equal(run_split(NULL, a, &out, &err), 0);
    assert_string_equal(out, "");
    text = slurp(path);
    assert_same_devices(text, want);
    free(text);
    free(out);
    free(err);
  }
  free(want);
  /* info: the report, for a fresh size. */
  int n = 3 + (int)(t_rand_u64() % 40);
  char one[64];
  single_device_arg(one, sizeof one);
  unlink(path);
  snprintf(a, sizeof a, "info --size %d --json '%s'%s", n, path, one);
  assert_int_equal(run_split(NULL, a, &out, &err), 0);
  assert_string_equal(out, "");
  text = slurp(path);
  cJSON *j = cJSON_Parse(text);
  if (!j) fail_msg("not JSON: %s", text);
  cJSON *op = cJSON_GetObjectItem(j, "matrix_op");
  assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(op, "status")),
                      "success");
  assert_int_equal(
      cJSON_GetArrayItem(cJSON_GetObjectItem(op, "input_shape"), 0)->valueint,
      n);
  cJSON_Delete(j);
  free(text);
  free(out);
  free(err);
  /* monitor: one object a line and sample. */
  int count = 1 + (int)(t_rand_u64() % 3);
  for (int f = 0; f < 2; f++) {
    unlink(path);
    if (f)
      snprintf(a, sizeof a, "monitor --count %d --interval 1 --json", count);
    else
      snprintf(a, sizeof a, "monitor --count %d --interval 1 --json '%s'",
               count, path);
    assert_int_equal(run_split(NULL, a, &out, &err), 0);
    text = f ? out : slurp(path);
    if (!f) assert_string_equal(out, "");
    int lines = 0;
    for (char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
      *nl = '\0';
      cJSON *o = cJSON_Parse(p);
      if (!o) fail_msg("line %d is not JSON: %s", lines + 1, p);
      lines++;
      assert_int_equal(cJSON_GetObjectItem(o, "sample")->valueint, lines);
      assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(o, "devices")) >= 1);
      cJSON_Delete(o);
    }
    assert_int_equal(lines, count);
    if (!f) free(text);
    free(out);
    free(err);
  }
  /* bench: the JSON on stdout, the table on stderr; or in FILE. The format
   * is under test here, not the speed (--no-gate: one repeat on a shared
   * machine proves nothing about a goal; test_bench_gate tests the gates). */
  assert_int_equal(
      run_split(NULL,
                "bench --suite ops --quick --repeats 1 --no-gate --json",
                &out, &err),
      0);
  j = cJSON_Parse(out);
  if (!j) fail_msg("bench --json: stdout is not JSON: %s", out);
  int cases = cJSON_GetArraySize(cJSON_GetObjectItem(j, "cases"));
  assert_true(cases >= 1);
  int rows = 0;
  for (const char *p = err; (p = strstr(p, "\nops ")); p++) rows++;
  assert_int_equal(rows, cases);
  /* The OpenBLAS peer runs kernels as wide as this CPU's vector units
   * (unless the caller chose the core: then the bench keeps it). */
  const cJSON *core = cJSON_GetObjectItem(j, "openblas_core");
  assert_true(cJSON_IsString(core));
  if (!getenv("OPENBLAS_CORETYPE") &&
      blas_core_level(core->valuestring) < cpu_level())
    fail_msg("bench: OpenBLAS runs %s kernels on a CPU of vector level %d",
             core->valuestring, cpu_level());
  cJSON_Delete(j);
  free(out);
  free(err);
  /* A core the caller set is kept, with a warning where it is narrower
   * than the CPU. */
  assert_int_equal(
      run_split("OPENBLAS_CORETYPE=Prescott",
                "bench --suite ops --quick --repeats 1 --no-gate --json", &out,
                &err),
      0);
  j = cJSON_Parse(out);
  if (!j) fail_msg("bench --json: stdout is not JSON: %s", out);
  core = cJSON_GetObjectItem(j, "openblas_core");
  assert_true(cJSON_IsString(core));
  assert_string_equal(core->valuestring, "Prescott");
  if (cpu_level() > 1 && !strstr(err, "ratios to OpenBLAS flatter vncl"))
    fail_msg("bench: no warning for a caller's narrower OpenBLAS core: %s",
             err);
  cJSON_Delete(j);
  free(out);
  free(err);
  unlink(path);
  snprintf(a, sizeof a,
           "bench --suite ops --quick --repeats 1 --no-gate --json %s", path);
  assert_int_equal(run_split(NULL, a, &out, &err), 0);
  assert_non_null(strstr(out, "\nops "));
  text = slurp(path);
  j = cJSON_Parse(text);
  if (!j) fail_msg("bench --json FILE: not JSON: %s", text);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "cases")), cases);
  cJSON_Delete(j);
  free(text);
  free(out);
  free(err);
  unlink(path);
}

/* `vncl --help` lists every environment variable the sources read (the
 * list grep'd from them at build time, scripts/env-names.sh), each with a
 * meaning, and no other. */
static void test_env_list(void **st) {
  (void)st;
  char *out, *err;
  assert_int_equal(run_split(NULL, "--help", &out, &err), 0);
  const char *sec = strstr(out, "\nenvironment");
  assert_non_null(sec);
  size_t n = sizeof env_names / sizeof *env_names;
  assert_true(n >= 17);
  for (size_t i = 0; i < n; i++) {
    char want[80];
    snprintf(want, sizeof want, "\n  %s ", env_names[i]);
    const char *at = strstr(sec, want);
    if (!at) fail_msg("vncl --help does not list %s", env_names[i]);
    /* A meaning after the name, on the same line. */
    at += strlen(want);
    while (*at == ' ') at++;
    assert_true(*at && *at != '\n');
  }
  int listed = 0;
  for (const char *p = strchr(sec + 1, '\n'); p && p[1];
       p = strchr(p + 1, '\n')) {
    if (strncmp(p, "\n  ", 3)) continue;
    char name[64];
    if (sscanf(p + 3, "%63s", name) != 1) continue;
    bool known = false;
    for (size_t i = 0; i < n && !known; i++)
      known = !strcmp(name, env_names[i]);
    if (!known) fail_msg("vncl --help lists %s, which no source reads", name);
    listed++;
  }
  assert_int_equal(listed, (int)n);
  /* `vncl help` is the same; a usage error gives the short form, which
   * points to it. */
  char *out2, *err2;
  assert_int_equal(run_split(NULL, "help", &out2, &err2), 0);
  assert_string_equal(out2, out);
  free(out);
  free(err);
  free(out2);
  free(err2);
  assert_int_equal(run_split(NULL, "", &out, &err), 2);
  assert_string_equal(out, "");
  assert_non_null(strstr(err, "'vncl --help' lists the environment"));
  assert_null(strstr(err, "VNCL_TUNING_DB"));
  free(out);
  free(err);
}

/* `vncl bench` without vncl-bench beside it nor in PATH: exit 127 and a
 * message that says how to get it. */
static void test_bench_absent(void **st) {
  (void)st;
  char dir[400], cmd[1600], *out, *err;
  snprintf(dir, sizeof dir, "%s/alone", tmp_dir);
  assert_int_equal(mkdir(dir, 0700), 0);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s/vncl'", vncl_bin, dir);
  assert_int_equal(system(cmd), 0);
  char saved[sizeof vncl_bin];
  memcpy(saved, vncl_bin, sizeof saved);
  snprintf(vncl_bin, sizeof vncl_bin, "%s/vncl", dir);
  int rc = run_split("PATH=/nonexistent", "bench --quick", &out, &err);
  memcpy(vncl_bin, saved, sizeof saved);
  assert_int_equal(rc, 127);
  assert_string_equal(out, "");
  if (!strstr(err, "vncl-bench not found") || !strstr(err, "make install"))
    fail_msg("stderr: %s", err);
  free(out);
  free(err);
}

/* The autotuner's progress lines count true: per job, N of M with N
 * stepping by one from 1 and never above M (M is what the job has planned
 * so far; a job the budget cuts short ends with N/N, its count trimmed). */
static void test_autotune_progress(void **st) {
  (void)st;
  char a[700], *out, *err, db[400];
  snprintf(db, sizeof db, "%s/tune/tuning.json", tmp_dir);
  /* --quick, two families, a few seconds: the searches sample, climb and
   * reach the confirming pairs, which the old count left out (it printed
   * up to 14/11 here). */
  snprintf(a, sizeof a,
           "autotune --quick --kernel elementwise,cast --budget 6 --out '%s'",
           db);
  int rc = run_split(NULL, a, &out, &err);
  if (rc != 0) fail_msg("exit %d: %s", rc, err);
  char label[64] = "";
  int last_n = 0, last_m = 0, lines = 0;
  for (const char *p = err; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
    char lb[64];
    int nn, mm;
    if (sscanf(p, "autotune: %63s %d/%d ", lb, &nn, &mm) != 3) continue;
    lines++;
    if (strcmp(lb, label)) {
      snprintf(label, sizeof label, "%s", lb);
      last_n = 0;
    }
    /* A job the budget cuts short shows its count once more, trimmed to
     * what ran: N/N after N/M. */
    bool step = nn == last_n + 1 && nn <= mm;
    bool trimmed = nn == last_n && mm == nn && last_m > mm;
    if (!step && !trimmed)
      fail_msg("%s: %d/%d after %d/%d:\n%s", lb, nn, mm, last_n, last_m, err);
    last_n = nn;
    last_m = mm;
  }
  assert_true(lines >= 1);
  free(out);
  free(err);
}

static void test_devices_json(void **st) {
  (void)st;
  char *out;
  assert_int_equal(run("devices --json", false, &out), 0);
  cJSON *j = cJSON_Parse(out);
  free(out);
  assert_non_null(j);
  cJSON *devs = cJSON_GetObjectItem(j, "devices");
  assert_true(cJSON_GetArraySize(devs) >= 1);
  cJSON *d0 = cJSON_GetArrayItem(devs, 0);
  assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(d0, "selector")),
                      "0:0");
  const char *fields[] = {"name", "vendor", "platform", "driver_version",
                          "opencl_c_version", "type"};
  for (size_t i = 0; i < 6; i++)
    assert_true(strlen(cJSON_GetStringValue(cJSON_GetObjectItem(d0, fields[i]))) > 0);
  assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(d0, "compute_units")) >= 1);
  assert_true(cJSON_IsBool(cJSON_GetObjectItem(d0, "fp64")));
  cJSON_Delete(j);
  assert_int_equal(run("devices", false, &out), 0);
  assert_non_null(strstr(out, "[0] 0:0"));
  free(out);
}

static char saved_device[256]; /* the caller's VNCL_DEVICE, "" for none */

static void restore_device(void) {
  if (saved_device[0])
    setenv("VNCL_DEVICE", saved_device, 1);
  else
    unsetenv("VNCL_DEVICE");
}

/* " --device N" naming the one device the caller's VNCL_DEVICE starts
 * with, where that is a group ("gpu", "all", "0,1"): the single-device
 * report is tested on it. "" when VNCL_DEVICE names one device or none. */
static void single_device_arg(char *out, size_t cap) {
  out[0] = '\0';
  const char *v = saved_device;
  bool group = strchr(v, ',') || !strcasecmp(v, "all") ||
               !strcasecmp(v, "gpu") || !strcasecmp(v, "cpu") ||
               !strcasecmp(v, "accelerator");
  if (!group) return;
  char first[256];
  snprintf(first, sizeof first, "%s", v);
  first[strcspn(first, ",")] = '\0';
  int idx = 0; /* "all": the first device */
  if (strcasecmp(first, "all") && vncl_device_select(first, &idx) != VNCL_OK)
    fail_msg("VNCL_DEVICE='%s' names no device", v);
  snprintf(out, cap, " --device %d", idx);
}

static void test_info_json(void **st) {
  (void)st;
  char *out;
  int n = 96 + (int)(t_rand_u64() % 64); /* a fresh odd size each run */
  char args[128], one[64];
  single_device_arg(one, sizeof one);
  snprintf(args, sizeof args, "info --json --size %d%s", n, one);
  assert_int_equal(run(args, false, &out), 0);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("not JSON: %s", out);
  free(out);
  cJSON *op = cJSON_GetObjectItem(j, "matrix_op");
  assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(op, "status")),
                      "success");
  assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(op, "dtype")),
                      "f32");
  cJSON *shape = cJSON_GetObjectItem(op, "input_shape");
  assert_int_equal(cJSON_GetArraySize(shape), 2);
  assert_int_equal(cJSON_GetArrayItem(shape, 0)->valueint, n);
  assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(op, "output_shape"), 1)
                       ->valueint, n);
  double err = cJSON_GetNumberValue(cJSON_GetObjectItem(op, "max_rel_error"));
  assert_true(err >= 0 && err < 1e-4);
  assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(op, "gflops")) > 0);
  cJSON *dev = cJSON_GetObjectItem(j, "device");
  assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(op, "device")),
                      cJSON_GetStringValue(cJSON_GetObjectItem(dev, "name")));
  cJSON *mem = cJSON_GetObjectItem(j, "memory");
  double peak = cJSON_GetNumberValue(cJSON_GetObjectItem(mem, "peak_bytes"));
  assert_true(peak >= 3.0 * n * n * 4); /* A, B and C were alive together */
  assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(mem, "device_total_bytes")) > 0);
  cJSON_Delete(j);
  snprintf(args, sizeof args, "info --size 64%s", one);
  assert_int_equal(run(args, false, &out), 0);
  assert_non_null(strstr(out, "\nsuccess\n"));
  free(out);
}

/* The devices `vncl devices --json` lists (the caller frees the array). */
static cJSON *device_list(void) {
  char *out;
  assert_int_equal(run("devices --json", false, &out), 0);
  cJSON *j = cJSON_Parse(out);
  free(out);
  assert_non_null(j);
  cJSON *devs = cJSON_DetachItemFromObject(j, "devices");
  cJSON_Delete(j);
  assert_non_null(devs);
  return devs;
}

static int count_type(const cJSON *devs, const char *type) {
  int n = 0;
  const cJSON *d;
  cJSON_ArrayForEach(d, devs)
    n += !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(d, "type")), type);
  return n;
}

static void test_selection_errors(void **st) {
  (void)st;
  char *out;
  /* A name no device has, whatever this host has. */
  assert_int_equal(run("info --device no-such-device-zq9 --size 8", true, &out),
                   1);
  assert_non_null(strstr(out, "no device matches selector 'no-such-device-zq9'"));
  assert_non_null(strstr(out, "devices found"));
  free(out);
  /* A type: the failure is expected only where no device has it. */
  cJSON *devs = device_list();
  const char *types[] = {"accelerator", "gpu"};
  for (int i = 0; i < 2; i++) {
    if (count_type(devs, types[i])) continue;
    setenv("VNCL_DEVICE", types[i], 1);
    assert_int_equal(run("info --size 8", true, &out), 1);
    restore_device();
    char want[64];
    snprintf(want, sizeof want, "'%s'", types[i]);
    assert_non_null(strstr(out, want));
    free(out);
  }
  cJSON_Delete(devs);
}

/* A group selector reports every device of the group, in the group's
 * order, in the JSON too; a bad group fails with the reason. Two PoCL
 * devices where PoCL is the driver; the expectations come from the device
 * list under the same environment. */
static void test_info_group(void **st) {
  (void)st;
  setenv("POCL_DEVICES", "pthread pthread", 1);
  cJSON *devs = device_list();
  int nd = cJSON_GetArraySize(devs);
  char *out;
  int n = 17 + (int)(t_rand_u64() % 40);
  char args[96];
  const char *sels[] = {"all", "gpu", "cpu", "1,0"};
  for (int si = 0; si < 4; si++) {
    /* The devices the selector names, by position in the list. */
    int want[16], nw = 0;
    if (!strcmp(sels[si], "1,0")) {
      if (nd < 2) continue;
      want[nw++] = 1;
      want[nw++] = 0;
    } else {
      for (int i = 0; i < nd && nw < 16; i++) {
        const char *t = cJSON_GetStringValue(
            cJSON_GetObjectItem(cJSON_GetArrayItem(devs, i), "type"));
        if (!strcmp(sels[si], "all") || !strcmp(sels[si], t)) want[nw++] = i;
      }
    }
    setenv("VNCL_DEVICE", sels[si], 1);
    snprintf(args, sizeof args, "info --json --size %d", n);
    int rc = run(args, false, &out);
    restore_device();
    if (nw == 0) { /* e.g. no GPU here: the group matches nothing */
      assert_int_equal(rc, 1);
      free(out);
      continue;
    }
    assert_int_equal(rc, 0);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("not JSON for %s: %s", sels[si], out);
    free(out);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "selector")),
                        sels[si]);
    assert_int_equal(cJSON_GetObjectItem(j, "device_count")->valueint, nw);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "status")),
                        "success");
    cJSON *arr = cJSON_GetObjectItem(j, "devices");
    assert_int_equal(cJSON_GetArraySize(arr), nw);
    for (int i = 0; i < nw; i++) {
      cJSON *one = cJSON_GetArrayItem(arr, i);
      cJSON *dj = cJSON_GetObjectItem(one, "device");
      cJSON *lj = cJSON_GetArrayItem(devs, want[i]);
      assert_string_equal(
          cJSON_GetStringValue(cJSON_GetObjectItem(dj, "selector")),
          cJSON_GetStringValue(cJSON_GetObjectItem(lj, "selector")));
      cJSON *op = cJSON_GetObjectItem(one, "matrix_op");
      assert_string_equal(
          cJSON_GetStringValue(cJSON_GetObjectItem(op, "status")), "success");
      assert_int_equal(
          cJSON_GetArrayItem(cJSON_GetObjectItem(op, "input_shape"), 0)->valueint,
          n);
      double err =
          cJSON_GetNumberValue(cJSON_GetObjectItem(op, "max_rel_error"));
      assert_true(err >= 0 && err < 1e-4);
    }
    cJSON_Delete(j);
  }
  /* Text: one block per device and the group's verdict. */
  setenv("VNCL_DEVICE", "all", 1);
  assert_int_equal(run("info --size 24", false, &out), 0);
  char want[96];
  snprintf(want, sizeof want, "group 'all': %d of %d device(s) verified", nd,
           nd);
  assert_non_null(strstr(out, want));
  snprintf(want, sizeof want, "== device %d of %d in group 'all'", nd, nd);
  assert_non_null(strstr(out, want));
  free(out);
  /* The doctor: the device checks for each member. */
  assert_int_equal(run("doctor", false, &out), 0);
  snprintf(want, sizeof want, "[ ok ] device group 'all': %d device(s)", nd);
  assert_non_null(strstr(out, want));
  const char *p = out;
  int blocks = 0;
  while ((p = strstr(p, "test kernel runs and verifies")) != NULL) {
    blocks++;
    p++;
  }
  assert_int_equal(blocks, nd);
  assert_non_null(strstr(out, "healthy: 0 required"));
  free(out);
  restore_device();
  /* A device named twice: exit 1 and the reason, for both commands. */
  assert_int_equal(run("info --device 0,0 --size 8", true, &out), 1);
  assert_non_null(strstr(out, "names device 0 twice"));
  free(out);
  assert_int_equal(run("doctor --device 0,0", false, &out), 1);
  assert_non_null(strstr(out, "[FAIL] device group '0,0'"));
  assert_non_null(strstr(out, "names device 0 twice"));
  free(out);
  unsetenv("POCL_DEVICES");
  cJSON_Delete(devs);
}

static void test_doctor(void **st) {
  (void)st;
  char *out, dir[256];
  /* A private cache folder of its own: healthy does not depend on the
   * folders of whoever runs the test. */
  t_tmpdir(dir, sizeof dir);
  setenv("VNCL_CACHE_DIR", dir, 1);
  /* The transfer row depends on a timed probe of this host's memcpy
   * (VNCL_HOST_COPY auto), made once per process: on a loaded machine the
   * doctor's process and this one could read it differently. One method
   * for both, unless the caller chose one (this is the first use of the
   * library in this process, so the choice holds here too). */
  bool own_copy = !getenv("VNCL_HOST_COPY");
  if (own_copy) setenv("VNCL_HOST_COPY", "memcpy", 1);
  assert_int_equal(run("doctor", false, &out), 0);
  assert_non_null(strstr(out, "[ ok ] ICD loader"));
  assert_non_null(strstr(out, "test kernel runs and verifies"));
  assert_non_null(strstr(out, "healthy: 0 required"));
  /* The transfer row the library picks for the same device, in and out
   * of SVM. */
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      free(out);
      setenv("VNCL_TENSOR_MEMORY", "buffer", 1);
      assert_int_equal(run("doctor", false, &out), 0);
    }
    vncl_context *c = t_context("off");
    assert_non_null(c);
    vncl_transfer_config tc;
    T_OK(c, vncl_transfer_config_get(c, &tc));
    vncl_context_destroy(c);
    char want[96];
    snprintf(want, sizeof want, "[ ok ] transfers: table row '%s'", tc.table);
    if (!strstr(out, want)) fail_msg("doctor: no line '%s' in\n%s", want, out);
    if (pass) assert_true(strcmp(tc.table, "unified-svm") != 0);
  }
  unsetenv("VNCL_TENSOR_MEMORY");
  /* PoCL's CPU device: the line on its worker threads, pinned by the
   * user, by vncl (every CPU open to the process), or left free (asked
   * for, or a process that may not run on every CPU). */
  vncl_context *c = t_context("off");
  assert_non_null(c);
  vncl_device_info di;
  vncl_context_device_info(c, &di);
  vncl_context_destroy(c);
  if (di.type == VNCL_DEVICE_CPU && !strncmp(di.name, "pthread", 7) &&
      strstr(di.platform, "Portable Computing Language")) {
    t_env aff, own;
    t_env_set(&own, "VNCL_POCL_AFFINITY", NULL);
    t_env_set(&aff, "POCL_AFFINITY", "1");
    free(out);
    assert_int_equal(run("doctor", false, &out), 0);
    assert_non_null(
        strstr(out, "[ ok ] PoCL worker threads pinned (POCL_AFFINITY set)"));
    free(out);
    unsetenv("POCL_AFFINITY");
    setenv("VNCL_POCL_AFFINITY", "0", 1);
    assert_int_equal(run("doctor", false, &out), 0);
    assert_non_null(strstr(out, "[ ok ] PoCL worker threads not pinned (as "
                                "POCL_AFFINITY or VNCL_POCL_AFFINITY asks)"));
    free(out);
    unsetenv("VNCL_POCL_AFFINITY");
    assert_int_equal(run("doctor", false, &out), 0);
    if (t_every_cpu_open())
      assert_non_null(strstr(out, "[ ok ] PoCL worker threads pinned by "
                                  "vncl (POCL_AFFINITY=1 while PoCL"));
    else
      assert_non_null(strstr(out, "PoCL worker threads not pinned (this "
                                  "process may not run on every CPU"));
    free(out);
#ifdef __linux__
    /* A child that may run on one CPU only (the last this process may
     * use; popen's child inherits this thread's mask): left free. */
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    if (CPU_COUNT(&all) > 1) {
      int last = -1;
      for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &all)) last = i;
      CPU_ZERO(&one);
      CPU_SET(last, &one);
      assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
      int rc = run("doctor", false, &out);
      assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
      assert_int_equal(rc, 0);
      assert_non_null(strstr(out, "PoCL worker threads not pinned (this "
                                  "process may not run on every CPU"));
      free(out);
    }
#endif
    out = NULL;
    t_env_restore(&aff);
    t_env_restore(&own);
  } else {
    assert_null(strstr(out, "PoCL worker threads"));
  }
  /* A driver that deadlocks when commands meet (lib/runtime/driver.c):
   * the device under test says so only where it is one, and PoCL's
   * single-threaded device before 5.0 is one (a child's environment). */
  free(out);
  assert_int_equal(run("doctor", false, &out), 0);
  assert_true(!strstr(out, "driver runs one command at a time") ==
              !di.serial_driver);
  if (strstr(di.platform, "Portable Computing Language")) {
    t_env devs;
    t_env_set(&devs, "POCL_DEVICES", "basic");
    free(out);
    int rc = run("devices --json", false, &out);
    cJSON *j = rc == 0 ? cJSON_Parse(out) : NULL;
    cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "devices"), 0);
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(d0, "name"));
    const char *drv =
        cJSON_GetStringValue(cJSON_GetObjectItem(d0, "driver_version"));
    int serial = name && drv ? t_pocl_serial_expected(name, drv) : -1;
    if (serial >= 0) {
      assert_true(cJSON_IsTrue(cJSON_GetObjectItem(d0, "serial_driver")) ==
                  serial);
      free(out);
      assert_int_equal(run("doctor", false, &out), 0);
      assert_true(!strstr(out, "[warn] driver runs one command at a time") ==
                  !serial);
    }
    cJSON_Delete(j);
    t_env_restore(&devs);
  }
  unsetenv("VNCL_CACHE_DIR");
  if (own_copy) unsetenv("VNCL_HOST_COPY");
  t_rmtree(dir);
  free(out);
  /* A broken ICD setup: the doctor fails with a fix, exit 1. */
  setenv("OCL_ICD_VENDORS", "/nonexistent-vendors-dir", 1);
  assert_int_equal(run("doctor", false, &out), 1);
  unsetenv("OCL_ICD_VENDORS");
  assert_non_null(strstr(out, "[FAIL] ICD loader"));
  assert_non_null(strstr(out, "fix: install an OpenCL driver"));
  assert_non_null(strstr(out, "FAILED"));
  free(out);
}

/* A cache folder or tuning database others could have written: a failed
 * check with the fix, exit 1; the product still verifies, nothing is
 * written into the folder. */
static void test_doctor_untrusted(void **st) {
  (void)st;
  char dir[256], loose[400], cache[500], db[500], want[700], *out;
  t_tmpdir(dir, sizeof dir);
  snprintf(loose, sizeof loose, "%s/shared", dir);
  assert_int_equal(mkdir(loose, 0700), 0);
  assert_int_equal(chmod(loose, 0777), 0);
  snprintf(cache, sizeof cache, "%s/vnclcache", loose);
  setenv("VNCL_CACHE_DIR", cache, 1);
  assert_int_equal(run("doctor", false, &out), 1);
  snprintf(want, sizeof want, "[FAIL] binary cache: %s not trusted, so off",
           cache);
  if (!strstr(out, want)) fail_msg("no '%s' in:\n%s", want, out);
  snprintf(want, sizeof want, "fix: chmod go-w '%s', or set VNCL_CACHE_DIR "
           "to a private folder", loose);
  if (!strstr(out, want)) fail_msg("no '%s' in:\n%s", want, out);
  assert_non_null(strstr(out, "[ ok ] test kernel runs and verifies"));
  free(out);
  assert_int_not_equal(access(cache, F_OK), 0); /* not even made */

  snprintf(cache, sizeof cache, "%s/private", dir);
  setenv("VNCL_CACHE_DIR", cache, 1);
  snprintf(db, sizeof db, "%s/tuning.json", dir);
  FILE *f = fopen(db, "w");
  assert_non_null(f);
  fputs("{\"schema\": \"vncl-tuning\", \"version\": 1, \"entries\": []}", f);
  fclose(f);
  assert_int_equal(chmod(db, 0666), 0);
  setenv("VNCL_TUNING_DB", db, 1);
  assert_int_equal(run("doctor", false, &out), 1);
  unsetenv("VNCL_TUNING_DB");
  unsetenv("VNCL_CACHE_DIR");
  snprintf(want, sizeof want, "[FAIL] tuning database: %s not trusted, "
           "ignored", db);
  if (!strstr(out, want)) fail_msg("no '%s' in:\n%s", want, out);
  snprintf(want, sizeof want, "fix: chmod 600 '%s', or set VNCL_TUNING_DB",
           db);
  if (!strstr(out, want)) fail_msg("no '%s' in:\n%s", want, out);
  assert_non_null(strstr(out, "[ ok ] binary cache"));
  assert_non_null(strstr(out, "FAILED: 1 required check(s) failed"));
  free(out);
  t_rmtree(dir);
}

int main(void) {
  char self[1024];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 1;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  *slash = '\0'; /* build/test */
  snprintf(vncl_bin, sizeof vncl_bin, "%s/../vncl", self);
  if (getenv("VNCL_DEVICE"))
    snprintf(saved_device, sizeof saved_device, "%s", getenv("VNCL_DEVICE"));
  t_tmpdir(tmp_dir, sizeof tmp_dir);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_usage),
      cmocka_unit_test(test_devices_json),
      cmocka_unit_test(test_info_json),
      cmocka_unit_test(test_selection_errors),
      cmocka_unit_test(test_info_group),
      cmocka_unit_test(test_doctor),
      cmocka_unit_test(test_doctor_untrusted),
      cmocka_unit_test(test_usage_every_command),
      cmocka_unit_test(test_strict_options),
      cmocka_unit_test(test_json_file),
      cmocka_unit_test(test_env_list),
      cmocka_unit_test(test_bench_absent),
      cmocka_unit_test(test_autotune_progress),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  t_rmtree(tmp_dir);
  return rc;
}
