/* Fault injection walk (built and run by `make check-fault`, in a library
 * built with -DVNCL_FAULT_INJECTION under ASan and UBSan). For each flow it
 * counts the calls of every kind in a clean run, then fails each call in
 * turn and checks: a clean negative status with a message (or success where
 * the failure is harmless, like a cache that cannot be written), no crash,
 * no leak (LeakSanitizer at exit), and a context that works afterwards.
 * Every command of vncl__enqueue (kernels, transfers, CLBlast's and clFFT's
 * calls) is one "enqueue" call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
/* The test itself calls the real functions; only the library is faulted. */
#define VNCL_FAULT_CLIENT
/* Internal headers on purpose: arms the fault-injection hooks
 * (runtime/fault.h) of a test build. */
#include "runtime/runtime.h"

/* The library flow runs clFFT, which under AddressSanitizer reports its own
 * new-delete-type-mismatch in clfftDestroyPlan (test_fft.c and docs/fft.md,
 * "Known limits"): that one check is off for this program, as for
 * test_fft. */
__attribute__((used)) const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) {
  return "new_delete_type_mismatch=0";
}

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
  vncl__kernel k = {0};
  if (!s) s = vncl__kernel_get(c, "selftest.cl", "-DVNCL_FAULT_WALK", 
                               "selftest_axpy", &k);
  if (!s) {
    cl_uint n = 256;
    float a = 2;
    s = vncl__set_args(c, k.k, 4, VNCL_ARG(n), VNCL_ARG(a), VNCL_ARG(x->mem),
                       VNCL_ARG(y->mem));
    size_t g = 256;
    if (!s) s = vncl__launch(c, "walk", k.k, 1, &g, NULL, 0, NULL, NULL);
    vncl__kernel_put(c, &k);
  }
  vncl_profile pr;
  if (!s) s = vncl_profile_get(c, &pr);
  keep(s, c);
  vncl_tensor_destroy(x);
  vncl_tensor_destroy(y);
  vncl_context_destroy(c);
  return s;
}

/* Tensors of random data on the shared context; NULL on failure. */
static vncl_tensor *tensor_of(vncl_dtype dt, int ndim, const int64_t *shape,
                              vncl_status *s) {
  vncl_tensor *t = NULL;
  if (*s) return NULL;
  *s = keep(vncl_tensor_create(shared_ctx, dt, ndim, shape, &t), shared_ctx);
  if (*s) return NULL;
  size_t n = vncl_tensor_numel(t);
  float *h = malloc(n * sizeof *h);
  for (size_t i = 0; i < n; i++) h[i] = (float)((i * 37) % 101) / 101.0f;
  if (dt == VNCL_F32)
    *s = keep(vncl_tensor_write(t, h, n * sizeof *h), shared_ctx);
  free(h);
  return t;
}

/* GEMM through the packed path (above the switch point) and the direct
 * one, on the shared context. */
static vncl_status flow_gemm(void) {
  vncl_status s = VNCL_OK;
  int64_t big[2] = {400, 400}, small[2] = {33, 17}, sq[2] = {33, 33};
  vncl_tensor *a = tensor_of(VNCL_F32, 2, big, &s);
  vncl_tensor *b = tensor_of(VNCL_F32, 2, big, &s);
  vncl_tensor *c = tensor_of(VNCL_F32, 2, big, &s);
  vncl_tensor *x = tensor_of(VNCL_F32, 2, small, &s);
  vncl_tensor *y = tensor_of(VNCL_F32, 2, sq, &s);
  if (!s)
    s = keep(vncl_gemm(shared_ctx, VNCL_NO_TRANS, VNCL_TRANS, 1.0, a, b, 0.5,
                       c), shared_ctx);
  if (!s)
    s = keep(vncl_gemm(shared_ctx, VNCL_NO_TRANS, VNCL_TRANS, 2.0, x, x, 0.0,
                       y), shared_ctx);
  if (!s) s = keep(vncl_finish(shared_ctx), shared_ctx);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(b);
  vncl_tensor_destroy(c);
  vncl_tensor_destroy(x);
  vncl_tensor_destroy(y);
  return s;
}

/* Tensor operations: broadcast add, a row reduction, softmax, a cast. */
static vncl_status flow_ops(void) {
  vncl_status s = VNCL_OK;
  int64_t m[2] = {37, 129}, row[1] = {129}, col[1] = {37};
  vncl_tensor *a = tensor_of(VNCL_F32, 2, m, &s);
  vncl_tensor *r = tensor_of(VNCL_F32, 1, row, &s);
  vncl_tensor *o = tensor_of(VNCL_F32, 2, m, &s);
  vncl_tensor *sum = tensor_of(VNCL_F32, 1, col, &s);
  vncl_tensor *h = tensor_of(VNCL_BF16, 2, m, &s);
  if (!s) s = keep(vncl_binary(shared_ctx, VNCL_ADD, a, r, o), shared_ctx);
  if (!s)
    s = keep(vncl_reduce(shared_ctx, VNCL_REDUCE_SUM, o, 1, sum), shared_ctx);
  if (!s) s = keep(vncl_softmax(shared_ctx, a, o), shared_ctx);
  if (!s) s = keep(vncl_cast(shared_ctx, o, h), shared_ctx);
  if (!s) s = keep(vncl_finish(shared_ctx), shared_ctx);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(r);
  vncl_tensor_destroy(o);
  vncl_tensor_destroy(sum);
  vncl_tensor_destroy(h);
  return s;
}

/* A 1-D complex FFT, forward and inverse, through a fresh plan. */
static vncl_status flow_fft(void) {
  vncl_status s = VNCL_OK;
  int64_t shape[2] = {1024, 2};
  vncl_tensor *x = tensor_of(VNCL_F32, 2, shape, &s);
  vncl_tensor *y = tensor_of(VNCL_F32, 2, shape, &s);
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.n[0] = 1024;
  vncl_fft_plan *p = NULL;
  if (!s) s = keep(vncl_fft_plan_create(shared_ctx, &d, &p), shared_ctx);
  if (!s)
    s = keep(vncl_fft_execute(p, VNCL_FFT_FORWARD, x, y), shared_ctx);
  if (!s)
    s = keep(vncl_fft_execute(p, VNCL_FFT_INVERSE, y, x), shared_ctx);
  if (!s) s = keep(vncl_finish(shared_ctx), shared_ctx);
  vncl_fft_plan_destroy(p);
  vncl_tensor_destroy(x);
  vncl_tensor_destroy(y);
  return s;
}

/* The libraries behind the same launch path: a GEMM through CLBlast and
 * an FFT through clFFT, each call one command of vncl__enqueue (so one
 * fault point, as a kernel of ours is). */
static vncl_status flow_libraries(void) {
  vncl_status s = VNCL_OK;
  int64_t sq[2] = {48, 48}, cx[2] = {256, 2};
  vncl_tensor *a = tensor_of(VNCL_F32, 2, sq, &s);
  vncl_tensor *c = tensor_of(VNCL_F32, 2, sq, &s);
  vncl_tensor *x = tensor_of(VNCL_F32, 2, cx, &s);
  vncl_tensor *y = tensor_of(VNCL_F32, 2, cx, &s);
  shared_ctx->gemm_backend = VNCL__BACKEND_CLBLAST; /* VNCL_GEMM_BACKEND */
  if (!s)
    s = keep(vncl_gemm(shared_ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1.0, a, a,
                       0.5, c), shared_ctx);
  shared_ctx->gemm_backend = VNCL__BACKEND_AUTO;
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.n[0] = 256;
  d.backend = VNCL_FFT_BACKEND_CLFFT;
  vncl_fft_plan *p = NULL;
  if (!s) s = keep(vncl_fft_plan_create(shared_ctx, &d, &p), shared_ctx);
  if (!s)
    s = keep(vncl_fft_execute(p, VNCL_FFT_FORWARD, x, y), shared_ctx);
  if (!s) s = keep(vncl_finish(shared_ctx), shared_ctx);
  vncl_fft_plan_destroy(p);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(c);
  vncl_tensor_destroy(x);
  vncl_tensor_destroy(y);
  return s;
}

/* Staged (pinned pool) and asynchronous transfers. */
static vncl_status flow_staged(void) {
  vncl_status s = VNCL_OK;
  enum { N = 300000 };
  int64_t shape[1] = {N};
  vncl_tensor *t = tensor_of(VNCL_F32, 1, shape, &s);
  float *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
  for (int i = 0; i < N; i++) in[i] = (float)i;
  if (!s) s = keep(vncl_tensor_write(t, in, N * sizeof *in), shared_ctx);
  if (!s) s = keep(vncl_tensor_read(t, out, N * sizeof *out), shared_ctx);
  if (!s && memcmp(in, out, N * sizeof *in)) s = VNCL_ERR_INTERNAL;
  vncl_event *ev = NULL;
  if (!s)
    s = keep(vncl_tensor_read_async(t, out, N * sizeof *out, 0, NULL, &ev),
             shared_ctx);
  if (!s) s = keep(vncl_event_wait(ev), shared_ctx);
  vncl_event_release(ev);
  if (!s && memcmp(in, out, N * sizeof *in)) s = VNCL_ERR_INTERNAL;
  free(in);
  free(out);
  vncl_tensor_destroy(t);
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

/* Flows on one live context, which must keep working after each fault. */
static void walk_shared(const char *name, vncl_status (*fn)(void),
                        bool staged) {
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = cache_dir;
  T_OK(NULL, vncl_context_create(&shared_ctx, &o));
  if (staged) {
    vncl_transfer_config cfg;
    T_OK(shared_ctx, vncl_transfer_config_get(shared_ctx, &cfg));
    cfg.chunk_bytes = 256 << 10;
    cfg.pool_bytes = 1 << 20;
    cfg.write_small = cfg.write_large = VNCL_TRANSFER_STAGED;
    cfg.read_small = cfg.read_large = VNCL_TRANSFER_STAGED;
    T_OK(shared_ctx, vncl_transfer_config_set(shared_ctx, &cfg));
  }
  flow f = {name, fn};
  walk(&f);
  vncl_context_destroy(shared_ctx);
  shared_ctx = NULL;
}

static void test_walk_gemm(void **st) {
  (void)st;
  walk_shared("gemm", flow_gemm, false);
}
static void test_walk_ops(void **st) {
  (void)st;
  walk_shared("ops", flow_ops, false);
}
static void test_walk_fft(void **st) {
  (void)st;
  walk_shared("fft", flow_fft, false);
}
static void test_walk_libraries(void **st) {
  (void)st;
  walk_shared("library", flow_libraries, false);
}
/* path=staged as the table has it (on a device that shares host memory:
 * through the tensor's mapping), then through the chunk pipeline. */
static void test_walk_staged(void **st) {
  (void)st;
  setenv("VNCL_STAGING_VIA", "auto", 1);
  walk_shared("staged", flow_staged, true);
  setenv("VNCL_STAGING_VIA", "chunks", 1);
  walk_shared("staged via chunks", flow_staged, true);
  unsetenv("VNCL_STAGING_VIA");
}

static void test_summary(void **st) {
  (void)st;
  fprintf(stderr,
          "fault walk: %lu faults injected, %lu failed cleanly, %lu absorbed "
          "(harmless: e.g. a cache file not written)\n",
          injected, failed_clean, absorbed);
  assert_true(injected > 100);
  assert_true(failed_clean > 0);
}

int main(void) {
  t_tmpdir(cache_dir, sizeof cache_dir);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_walk_context),
      cmocka_unit_test(test_walk_tensor),
      cmocka_unit_test(test_walk_program),
      cmocka_unit_test(test_walk_source),
      cmocka_unit_test(test_walk_gemm),
      cmocka_unit_test(test_walk_ops),
      cmocka_unit_test(test_walk_fft),
      cmocka_unit_test(test_walk_libraries),
      cmocka_unit_test(test_walk_staged),
      cmocka_unit_test(test_summary),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  t_rmtree(cache_dir);
  return rc;
}
