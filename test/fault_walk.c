/* Fault injection walk (built and run by `make check-fault`, in a library
 * built with -DVNCL_FAULT_INJECTION under ASan and UBSan). For each flow it
 * counts the calls of every kind in a clean run, then fails each call in
 * turn and checks: a clean negative status with a message (or success where
 * the failure is harmless, like a cache that cannot be written), no crash,
 * no leak (LeakSanitizer at exit), and a context that works afterwards. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "internal.h"

static char cache_dir[256];
static char flow_msg[8192]; /* the failing call's message, kept by the flow */

/* Keeps the message of a failed step before its context goes away. */
static vncl_status keep(vncl_status s, const vncl_context *c) {
  if (s && !flow_msg[0]) snprintf(flow_msg, sizeof flow_msg, "%s", vncl_errmsg(c));
  return s;
}
static vncl_context *shared_ctx; /* for flows that run on a live context */

/* ---- flows: each returns the first error, cleans up after itself ------- */

static vncl_status flow_context(void) {
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = cache_dir;
  vncl_context *c = NULL;
  vncl_status s = keep(vncl_context_create(&c, &o), NULL);
  vncl_context_destroy(c);
  return s;
}

static vncl_status flow_tensor(void) {
  vncl_context *c = shared_ctx;
  int64_t shape[2] = {33, 65};
  float in[33 * 65], out[33 * 65];
  for (int i = 0; i < 33 * 65; i++) in[i] = (float)i;
  vncl_tensor *t = NULL;
  vncl_status s = vncl_tensor_create(c, VNCL_F32, 2, shape, &t);
  if (!s) s = vncl_tensor_write(t, in, sizeof in);
  if (!s) s = vncl_tensor_read(t, out, sizeof out);
  keep(s, c);
  if (!s && memcmp(in, out, sizeof in) != 0) s = VNCL_ERR_INTERNAL;
  vncl_tensor_destroy(t);
  return s;
}

/* Builds (through the binary cache, or from source) in a fresh context and
 * runs a kernel. */
static vncl_status program_in(const char *dir) {
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = dir;
  vncl_context *c = NULL;
  vncl_status s = keep(vncl_context_create(&c, &o), NULL);
  if (s) return s;
  int64_t shape[1] = {256};
  vncl_tensor *x = NULL, *y = NULL;
  s = vncl_tensor_create(c, VNCL_F32, 1, shape, &x);
  if (!s) s = vncl_tensor_create(c, VNCL_F32, 1, shape, &y);
  vncl__program *p = NULL;
  cl_kernel k = NULL;
  if (!s) s = vncl__kernel_get(c, "selftest.cl", "-DVNCL_FAULT_WALK", 
                               "selftest_axpy", &p, &k);
  if (!s) {
    cl_uint n = 256;
    float a = 2;
    s = vncl__set_args(c, k, 4, VNCL_ARG(n), VNCL_ARG(a), VNCL_ARG(x->mem),
                       VNCL_ARG(y->mem));
    size_t g = 256;
    if (!s) s = vncl__launch(c, "walk", k, 1, &g, NULL, 0, NULL, NULL);
    vncl__kernel_release(c, p, "selftest_axpy", k);
  }
  vncl_profile pr;
  if (!s) s = vncl_profile_get(c, &pr);
  keep(s, c);
  vncl_tensor_destroy(x);
  vncl_tensor_destroy(y);
  vncl_context_destroy(c);
  return s;
}

static vncl_status flow_program(void) { return program_in(cache_dir); }
static vncl_status flow_source(void) { return program_in("off"); }

typedef struct {
  const char *name;
  vncl_status (*fn)(void);
} flow;

static unsigned long injected, absorbed, failed_clean;

static void walk(const flow *f) {
  unsigned long counts[VNCL_FAULT_KINDS];
  vncl__fault_reset();
  vncl_status s = f->fn();
  if (s) fail_msg("%s: clean run failed: %s", f->name, vncl_errmsg(NULL));
  for (int k = 0; k < VNCL_FAULT_KINDS; k++) counts[k] = vncl__fault_calls(k);
  for (int k = 0; k < VNCL_FAULT_KINDS; k++) {
    for (unsigned long n = 1; n <= counts[k]; n++) {
      vncl__fault_reset();
      vncl__fault_arm(k, n);
      flow_msg[0] = '\0';
      s = f->fn();
      int fired = vncl__fault_fired();
      vncl__fault_arm(k, 0);
      if (!fired) continue; /* a data-dependent path not taken this time */
      injected++;
      if (s == VNCL_OK) {
        absorbed++;
      } else {
        if (s >= 0 || !flow_msg[0])
          fail_msg("%s: %s call %lu failed without a message (status %d)",
                   f->name, vncl__fault_kind_name(k), n, (int)s);
        failed_clean++;
      }
      /* The library still works after the fault. */
      vncl_status again = f->fn();
      if (again)
        fail_msg("%s: after a fault at %s call %lu, a clean run fails: %s",
                 f->name, vncl__fault_kind_name(k), n, vncl_errmsg(NULL));
    }
  }
  fprintf(stderr, "fault walk %-8s calls:", f->name);
  for (int k = 0; k < VNCL_FAULT_KINDS; k++)
    if (counts[k]) fprintf(stderr, " %s=%lu", vncl__fault_kind_name(k), counts[k]);
  fprintf(stderr, "\n");
}

static void test_walk_context(void **st) {
  (void)st;
  flow f = {"context", flow_context};
  walk(&f);
}

static void test_walk_tensor(void **st) {
  (void)st;
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  T_OK(NULL, vncl_context_create(&shared_ctx, &o));
  flow f = {"tensor", flow_tensor};
  walk(&f);
  vncl_context_destroy(shared_ctx);
  shared_ctx = NULL;
}

static void test_walk_program(void **st) {
  (void)st;
  flow f = {"program", flow_program};
  walk(&f);
}

static void test_walk_source(void **st) {
  (void)st;
  flow f = {"source", flow_source};
  walk(&f);
}

static void test_summary(void **st) {
  (void)st;
  fprintf(stderr,
          "fault walk: %lu faults injected, %lu failed cleanly, %lu absorbed "
          "(harmless: e.g. a cache file not written)\n",
          injected, failed_clean, absorbed);
  assert_true(injected > 20);
  assert_true(failed_clean > 0);
}

int main(void) {
  t_tmpdir(cache_dir, sizeof cache_dir);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_walk_context),
      cmocka_unit_test(test_walk_tensor),
      cmocka_unit_test(test_walk_program),
      cmocka_unit_test(test_walk_source),
      cmocka_unit_test(test_summary),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  t_rmtree(cache_dir);
  return rc;
}
