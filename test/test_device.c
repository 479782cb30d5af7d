/* Discovery, the default order, every selector form, device info, and
 * contexts (create, options, interop, errors). Every expectation is derived
 * from the devices this machine has: the raw OpenCL enumeration for
 * discovery, and the documented selector rules applied to the device list
 * for selection, so the test holds on any host and any OpenCL (PoCL on Intel
 * or AMD, Oclgrind, a GPU driver). On PoCL it asks for two devices
 * (POCL_DEVICES="pthread pthread", set before OpenCL is first touched) so
 * that the index and P:D forms meet more than one device. Uses
 * runtime/runtime.h on purpose for the interop test (the discovered cl_device_id list). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "runtime/runtime.h"

static int g_n; /* devices found */
static vncl_device_info g_dev[T_MAX_DEVICES];

static void check_select(const char *sel, int expect) {
  int idx = -7;
  vncl_status s = vncl_device_select(sel, &idx);
  if (expect >= 0) {
    if (s != VNCL_OK || idx != expect)
      fail_msg("selector '%s': expected device %d, got %s index %d (%s)", sel,
               expect, vncl_status_name(s), idx, vncl_errmsg(NULL));
  } else {
    if (s != VNCL_ERR_NO_DEVICE)
      fail_msg("selector '%s' matches no device, yet gave %s index %d", sel,
               vncl_status_name(s), idx);
    assert_int_equal(idx, -7); /* nothing written on error */
    /* The message names the selector and lists what was found. */
    assert_non_null(strstr(vncl_errmsg(NULL), sel));
    assert_non_null(strstr(vncl_errmsg(NULL), "devices found"));
    assert_non_null(strstr(vncl_errmsg(NULL), g_dev[0].name));
  }
}

static int type_rank(vncl_device_type t) {
  return t == VNCL_DEVICE_GPU ? 0 : t == VNCL_DEVICE_ACCELERATOR ? 1 : 2;
}

/* ---- discovery ------------------------------------------------------------ */

static void test_discovery(void **st) {
  (void)st;
  t_devices_load(&g_n, g_dev);
  /* The raw enumeration: every device of every platform, once. */
  cl_uint np = 0;
  assert_int_equal(clGetPlatformIDs(0, NULL, &np), CL_SUCCESS);
  cl_platform_id plats[16];
  assert_true(np >= 1 && np <= 16);
  clGetPlatformIDs(np, plats, NULL);
  int raw = 0;
  cl_uint per[16] = {0};
  for (cl_uint p = 0; p < np; p++) {
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &per[p]))
      per[p] = 0;
    raw += (int)per[p];
  }
  assert_int_equal(g_n, raw);
  int seen[16][64];
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < g_n; i++) {
    const vncl_device_info *d = &g_dev[i];
    assert_int_equal(d->index, i);
    assert_true(strlen(d->name) > 0);
    assert_true(strlen(d->platform) > 0);
    assert_true(d->compute_units >= 1);
    assert_true(d->global_mem_bytes > 0);
    assert_true(d->max_alloc_bytes > 0 &&
                d->max_alloc_bytes <= d->global_mem_bytes);
    assert_true(d->max_work_group_size >= 1);
    assert_true(d->preferred_work_group_multiple >= 1);
    assert_true(d->local_mem_bytes > 0);
    assert_non_null(strstr(d->opencl_c_version, "OpenCL C"));
    /* P:D names a real device of the enumeration, the same one. */
    assert_true(d->platform_index >= 0 && (cl_uint)d->platform_index < np);
    assert_true(d->device_index >= 0 &&
                (cl_uint)d->device_index < per[d->platform_index]);
    assert_true(d->device_index < 64);
    assert_int_equal(seen[d->platform_index][d->device_index]++, 0);
    cl_device_id ids[64];
    cl_uint nd = per[d->platform_index] < 64 ? per[d->platform_index] : 64;
    clGetDeviceIDs(plats[d->platform_index], CL_DEVICE_TYPE_ALL, nd, ids, NULL);
    char name[256] = "";
    cl_device_type t = 0;
    cl_bool comp = CL_FALSE;
    clGetDeviceInfo(ids[d->device_index], CL_DEVICE_NAME, sizeof name, name,
                    NULL);
    clGetDeviceInfo(ids[d->device_index], CL_DEVICE_TYPE, sizeof t, &t, NULL);
    clGetDeviceInfo(ids[d->device_index], CL_DEVICE_COMPILER_AVAILABLE,
                    sizeof comp, &comp, NULL);
    assert_string_equal(d->name, name);
    assert_int_equal(d->compiler_available, comp == CL_TRUE);
    /* The type is the most GPU-like bit the driver reports. */
    vncl_device_type want = (t & CL_DEVICE_TYPE_GPU)           ? VNCL_DEVICE_GPU
                            : (t & CL_DEVICE_TYPE_ACCELERATOR) ? VNCL_DEVICE_ACCELERATOR
                                                               : VNCL_DEVICE_CPU;
    assert_int_equal(d->type, want);
    /* The documented order: GPUs, accelerators, CPUs; then memory. */
    if (i > 0) {
      const vncl_device_info *p = &g_dev[i - 1];
      assert_true(type_rank(p->type) <= type_rank(d->type));
      if (p->type == d->type)
        assert_true(p->global_mem_bytes >= d->global_mem_bytes);
    }
  }
  vncl_device_info d;
  T_FAILS(NULL, vncl_device_get_info(g_n, &d), VNCL_ERR_INVALID_ARG,
          "out of range");
  T_FAILS(NULL, vncl_device_get_info(-1, &d), VNCL_ERR_INVALID_ARG,
          "out of range");
  T_FAILS(NULL, vncl_device_get_info(0, NULL), VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(NULL, vncl_device_count(NULL), VNCL_ERR_INVALID_ARG, "NULL");
}

/* ---- selectors ------------------------------------------------------------ */

static void test_selectors(void **st) {
  (void)st;
  t_devices_load(&g_n, g_dev);
  check_select(NULL, 0);
  check_select("", 0);
  char sel[64];
  for (int i = 0; i < g_n; i++) {
    snprintf(sel, sizeof sel, "%d", i);
    check_select(sel, i);
    snprintf(sel, sizeof sel, "%d:%d", g_dev[i].platform_index,
             g_dev[i].device_index);
    check_select(sel, i);
    /* Its own vendor, name and platform select the first that has them. */
    check_select(g_dev[i].vendor, t_expected_select(g_dev[i].vendor));
    check_select(g_dev[i].name, t_expected_select(g_dev[i].name));
    check_select(g_dev[i].platform, t_expected_select(g_dev[i].platform));
  }
  /* Types, any case, and the vendor words users type: whatever this machine
   * has decides whether each one matches. */
  const char *words[] = {"gpu", "GPU", "cpu", "CPU", "accelerator",
                         "nvidia", "amd", "AMD", "intel", "pocl", "oclgrind",
                         "Portable Computing", "pthread", "arm", "apple"};
  for (size_t w = 0; w < sizeof words / sizeof *words; w++)
    check_select(words[w], t_expected_select(words[w]));
  char none[64];
  t_absent_name(none, sizeof none);
  check_select(none, -1);
  snprintf(sel, sizeof sel, "%d", g_n); /* one past the last */
  check_select(sel, -1);
  snprintf(sel, sizeof sel, "%d:0", 17); /* no such platform */
  check_select(sel, -1);
  int idx = 42;
  T_FAILS(NULL, vncl_device_select("0", NULL), VNCL_ERR_INVALID_ARG, "NULL");
  assert_int_equal(idx, 42);
}

static void test_context_selection(void **st) {
  (void)st;
  t_devices_load(&g_n, g_dev);
  int last = g_n - 1;
  char pd[32], num[16];
  snprintf(pd, sizeof pd, "%d:%d", g_dev[last].platform_index,
           g_dev[last].device_index);
  snprintf(num, sizeof num, "%d", last);
  vncl_options o;
  vncl_options_init(&o);
  o.device = pd;
  o.cache_dir = "off";
  vncl_context *ctx = NULL;
  T_OK(NULL, vncl_context_create(&ctx, &o));
  vncl_device_info d;
  T_OK(ctx, vncl_context_device_info(ctx, &d));
  assert_int_equal(d.index, last);
  cl_context c = NULL;
  cl_command_queue q = NULL;
  cl_device_id dev = NULL;
  T_OK(ctx, vncl_context_cl(ctx, &c, &q, &dev));
  assert_non_null(c);
  assert_non_null(q);
  assert_non_null(dev);
  T_OK(ctx, vncl_context_cl(ctx, NULL, NULL, NULL));
  T_OK(ctx, vncl_finish(ctx));
  vncl_context_destroy(ctx);

  /* The environment is used when the option is left unset. */
  setenv("VNCL_DEVICE", num, 1);
  vncl_options_init(&o);
  o.cache_dir = "off";
  T_OK(NULL, vncl_context_create(&ctx, &o));
  T_OK(ctx, vncl_context_device_info(ctx, &d));
  assert_int_equal(d.index, last);
  vncl_context_destroy(ctx);
  /* A vendor name in the environment, as users write it. */
  setenv("VNCL_DEVICE", g_dev[last].vendor, 1);
  T_OK(NULL, vncl_context_create(&ctx, &o));
  T_OK(ctx, vncl_context_device_info(ctx, &d));
  assert_int_equal(d.index, t_expected_select(g_dev[last].vendor));
  vncl_context_destroy(ctx);
  /* A name no device has. */
  char none[64];
  t_absent_name(none, sizeof none);
  setenv("VNCL_DEVICE", none, 1);
  vncl_context *bad = (vncl_context *)(uintptr_t)0x1;
  T_FAILS(NULL, vncl_context_create(&bad, NULL), VNCL_ERR_NO_DEVICE, none);
  assert_ptr_equal(bad, (vncl_context *)(uintptr_t)0x1);
  unsetenv("VNCL_DEVICE");
  vncl_context_destroy(NULL); /* no-op */
}
static void test_context_errors(void **st) {
  (void)st;
  T_FAILS(NULL, vncl_context_create(NULL, NULL), VNCL_ERR_INVALID_ARG, "out");
  vncl_options o;
  memset(&o, 0, sizeof o); /* struct_size not set */
  vncl_context *ctx = NULL;
  T_FAILS(NULL, vncl_context_create(&ctx, &o), VNCL_ERR_INVALID_ARG,
          "vncl_options_init");
  setenv("VNCL_MEMORY_LIMIT", "lots", 1);
  T_FAILS(NULL, vncl_context_create(&ctx, NULL), VNCL_ERR_INVALID_ARG,
          "VNCL_MEMORY_LIMIT");
  assert_null(ctx);
  unsetenv("VNCL_MEMORY_LIMIT");
  T_FAILS(NULL, vncl_context_cl(NULL, NULL, NULL, NULL), VNCL_ERR_INVALID_ARG,
          "ctx");
  T_FAILS(NULL, vncl_finish(NULL), VNCL_ERR_INVALID_ARG, "ctx");
  vncl_memory_stats m;
  T_FAILS(NULL, vncl_memory_stats_get(NULL, &m), VNCL_ERR_INVALID_ARG, "ctx");
}

/* Interop: wrap the application's own context and queue; vncl retains them
 * and leaves the application's references alone. */
static void test_interop(void **st) {
  (void)st;
  const vncl__device *l;
  int n;
  T_OK(NULL, vncl__devices(&l, &n));
  cl_int err;
  cl_context c = clCreateContext(NULL, 1, &l[n - 1].device, NULL, NULL, &err);
  assert_non_null(c);
  cl_command_queue q = clCreateCommandQueue(c, l[n - 1].device, 0, &err);
  assert_non_null(q);
  vncl_context *ctx = NULL;
  T_FAILS(NULL, vncl_context_create_from_cl(&ctx, NULL, l[n - 1].device, q, NULL),
          VNCL_ERR_INVALID_ARG, "context");
  T_OK(NULL, vncl_context_create_from_cl(&ctx, c, l[n - 1].device, q, NULL));
  cl_context c2;
  cl_command_queue q2;
  T_OK(ctx, vncl_context_cl(ctx, &c2, &q2, NULL));
  assert_ptr_equal(c, c2);
  assert_ptr_equal(q, q2);
  vncl_device_info d;
  T_OK(ctx, vncl_context_device_info(ctx, &d));
  assert_int_equal(d.index, n - 1);
  /* A tensor round trip through the wrapped queue. */
  int64_t shape[1] = {5};
  vncl_tensor *t;
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &t));
  float x[5] = {1, 2, 3, 4, 5}, y[5] = {0};
  T_OK(ctx, vncl_tensor_write(t, x, sizeof x));
  T_OK(ctx, vncl_tensor_read(t, y, sizeof y));
  assert_memory_equal(x, y, sizeof x);
  vncl_tensor_destroy(t);
  vncl_context_destroy(ctx);
  cl_uint refs = 0;
  clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL);
  assert_true(refs >= 1);
  assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
  assert_int_equal(clReleaseContext(c), CL_SUCCESS);
  /* With no queue given, vncl makes its own. */
  c = clCreateContext(NULL, 1, &l[0].device, NULL, NULL, &err);
  T_OK(NULL, vncl_context_create_from_cl(&ctx, c, l[0].device, NULL, NULL));
  T_OK(ctx, vncl_context_cl(ctx, NULL, &q2, NULL));
  assert_non_null(q2);
  vncl_context_destroy(ctx);
  clReleaseContext(c);
}

/* PoCL's worker threads (include/vncl.h, vncl_worker_affinity): what
 * each device reports follows the documented rule applied to this
 * process as it started (main records it before OpenCL is touched), and
 * where they are pinned, the process really has a thread on each of CPUs
 * 0 to n-1 alone; where they are free, no thread is narrower than the
 * process; and the environment is as the program left it. */
static vncl_worker_affinity g_want_aff;
static char g_start_env[64]; /* POCL_AFFINITY at start, "-" when unset */

static vncl_worker_affinity expected_affinity(void) {
  const char *u = getenv("POCL_AFFINITY");
  if (u) return atoi(u) > 0 ? VNCL_WORKERS_PINNED : VNCL_WORKERS_FREE;
  const char *o = getenv("VNCL_POCL_AFFINITY");
  if (o && (!strcmp(o, "0") || !strcasecmp(o, "off"))) return VNCL_WORKERS_FREE;
  if (getenv("POCL_CPU_MAX_CU_NUM") || !t_every_cpu_open())
    return VNCL_WORKERS_FREE;
  return VNCL_WORKERS_PINNED_BY_VNCL;
}

static bool pocl_threaded(const vncl_device_info *d) {
  return d->type == VNCL_DEVICE_CPU &&
         strstr(d->platform, "Portable Computing Language") &&
         (!strncmp(d->name, "pthread", 7) ||
          (!strncmp(d->name, "cpu", 3) && !strstr(d->name, "minimal")));
}

#ifdef __linux__
/* The CPUs of each thread of this process whose affinity list names one
 * CPU (seen[cpu] counts them), and whether any thread may run on fewer
 * CPUs than `all`. */
static void scan_threads(int *seen, int cap, int all, bool *narrower) {
  *narrower = false;
  DIR *dir = opendir("/proc/self/task");
  assert_non_null(dir);
  struct dirent *e;
  while ((e = readdir(dir))) {
    if (e->d_name[0] == '.') continue;
    char path[300], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue; /* the thread ended meanwhile */
    while (fgets(line, sizeof line, f)) {
      if (strncmp(line, "Cpus_allowed_list:", 18)) continue;
      /* "0-1,4": count the CPUs a list names. */
      int count = 0, one = -1;
      for (char *t = strtok(line + 18, ",\n"); t; t = strtok(NULL, ",\n")) {
        int a = -1, b = -1;
        int k = sscanf(t, " %d-%d", &a, &b);
        if (k == 1) b = a;
        if (k >= 1 && b >= a) {
          count += b - a + 1;
          one = a;
        }
      }
      if (count == 1 && one >= 0 && one < cap) seen[one]++;
      if (count < all) *narrower = true;
    }
    fclose(f);
  }
  closedir(dir);
}
#endif

static void test_worker_affinity(void **st) {
  (void)st;
  int tested = 0;
  /* The environment as the program left it: vncl removed the variable it
   * set once PoCL had read it. */
  const char *now = getenv("POCL_AFFINITY");
  assert_string_equal(now ? now : "-", g_start_env);
  for (int i = 0; i < g_n; i++) {
    if (!pocl_threaded(&g_dev[i])) {
      assert_int_equal(g_dev[i].worker_affinity, VNCL_WORKERS_NONE);
      continue;
    }
    if (g_dev[i].worker_affinity != g_want_aff)
      fail_msg("device %d (%s): worker_affinity %d, expected %d", i,
               g_dev[i].name, (int)g_dev[i].worker_affinity, (int)g_want_aff);
#ifdef __linux__
    if (tested++) continue;
    /* A kernel on the device, so that its workers exist. */
    char sel[16];
    snprintf(sel, sizeof sel, "%d", i);
    vncl_options o;
    vncl_options_init(&o);
    o.device = sel;
    vncl_context *ctx = NULL;
    T_OK(NULL, vncl_context_create(&ctx, &o));
    int64_t shape[1] = {1 << 16};
    vncl_tensor *t;
    T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &t));
    T_OK(ctx, vncl_fill(ctx, t, 1.0));
    T_OK(ctx, vncl_finish(ctx));
    int seen[64] = {0};
    bool narrower;
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    scan_threads(seen, 64, CPU_COUNT(&set), &narrower);
    unsigned cu = g_dev[i].compute_units;
    if (g_want_aff == VNCL_WORKERS_PINNED_BY_VNCL) {
      for (unsigned c = 0; c < cu && c < 64; c++)
        if (!seen[c]) fail_msg("no thread pinned to CPU %u of %u", c, cu);
    } else if (g_want_aff == VNCL_WORKERS_FREE && CPU_COUNT(&set) > 1) {
      assert_false(narrower);
    }
    vncl_tensor_destroy(t);
    vncl_context_destroy(ctx);
#endif
  }
  (void)tested;
}

/* With no OpenCL platform at all, the discovery that failed leaves the
 * environment as it found it too: run in a fresh process (this program,
 * re-run with --no-platform), where the ICD loader finds no driver; its
 * exit status is the verdict. */
static int no_platform_child(void) {
  int n = -1;
  vncl_status s = vncl_device_count(&n);
  return s == VNCL_ERR_NO_DEVICE && getenv("POCL_AFFINITY") == NULL ? 0 : 1;
}

static void test_no_platform_env(void **st) {
  (void)st;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setenv("OCL_ICD_VENDORS", "/nonexistent-vendors-dir", 1);
    unsetenv("POCL_AFFINITY");
    unsetenv("VNCL_POCL_AFFINITY");
    execl("/proc/self/exe", "test_device", "--no-platform", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--no-platform")) return no_platform_child();
  g_want_aff = expected_affinity();
  snprintf(g_start_env, sizeof g_start_env, "%s",
           getenv("POCL_AFFINITY") ? getenv("POCL_AFFINITY") : "-");
  setenv("POCL_DEVICES", "pthread pthread", 1);
  unsetenv("VNCL_DEVICE");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_discovery),
      cmocka_unit_test(test_selectors),
      cmocka_unit_test(test_context_selection),
      cmocka_unit_test(test_context_errors),
      cmocka_unit_test(test_interop),
      cmocka_unit_test(test_worker_affinity),
      cmocka_unit_test(test_no_platform_env),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
