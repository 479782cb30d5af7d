/* Profiling: figures add up (per-op device times within the wall time,
 * counts match the calls made), reset, the VNCL_PROFILE summary, and a
 * queue without profiling (counted, untimed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
/* Internal headers on purpose: launches a kernel through the internal launch
 * path to check what profiling records. */
#include "runtime/runtime.h"

enum { N = 1 << 16 };

typedef struct {
  vncl_tensor *x, *y;
} vecs;

static vecs make_vecs(vncl_context *ctx) {
  vecs v;
  int64_t shape[1] = {N};
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &v.x));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &v.y));
  return v;
}

static void axpy(vncl_context *ctx, vecs *v, const char *op) {
  vncl__kernel k = {0};
  T_OK(ctx, vncl__kernel_get(ctx, "selftest.cl", "", "selftest_axpy", &k));
  cl_uint n = N;
  float a = 0.5f;
  T_OK(ctx, vncl__set_args(ctx, k.k, 4, VNCL_ARG(n), VNCL_ARG(a),
                           VNCL_ARG(v->x->mem), VNCL_ARG(v->y->mem)));
  size_t g = N;
  T_OK(ctx, vncl__launch_work(ctx, op, k.k, 1, &g, NULL, 0, NULL, NULL, 2.0 * N,
                              12.0 * N));
  vncl__kernel_put(ctx, &k);
}

static const vncl_profile_op *find(const vncl_profile *pr, const char *name) {
  for (int i = 0; i < pr->num_ops; i++)
    if (!strcmp(pr->ops[i].name, name)) return &pr->ops[i];
  return NULL;
}

static void test_figures_add_up(void **st) {
  (void)st;
  vncl_context *ctx = t_context(NULL);
  vecs v = make_vecs(ctx);
  T_OK(ctx, vncl_profile_reset(ctx));
  int na = 3 + (int)(t_rand_u64() % 5), nb = 2 + (int)(t_rand_u64() % 4);
  for (int i = 0; i < na; i++) axpy(ctx, &v, "axpy");
  for (int i = 0; i < nb; i++) axpy(ctx, &v, "other");
  vncl_profile pr;
  T_OK(ctx, vncl_profile_get(ctx, &pr));
  const vncl_profile_op *a = find(&pr, "axpy"), *b = find(&pr, "other");
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(a->count, na);
  assert_int_equal(b->count, nb);
  assert_true(a->flops == 2.0 * N * na);
  assert_true(a->bytes == 12.0 * N * na);
  assert_int_equal(pr.commands, (uint64_t)(na + nb));
  assert_int_equal(pr.untimed, 0);
  assert_true(a->device_seconds > 0 && b->device_seconds > 0);
  double sum = 0;
  for (int i = 0; i < pr.num_ops; i++) sum += pr.ops[i].device_seconds;
  assert_true(sum <= pr.wall_seconds * 1.01);
  assert_true(pr.busy_seconds <= sum * 1.0001 + 1e-9);
  assert_true(pr.busy_seconds > 0);
  assert_true(pr.busy_fraction > 0 && pr.busy_fraction <= 1);
  assert_true(pr.compute_seconds >= sum * 0.999);
  /* Largest first. */
  for (int i = 1; i < pr.num_ops; i++)
    assert_true(pr.ops[i - 1].device_seconds >= pr.ops[i].device_seconds);

  T_OK(ctx, vncl_profile_reset(ctx));
  T_OK(ctx, vncl_profile_get(ctx, &pr));
  assert_int_equal(pr.num_ops, 0);
  assert_int_equal(pr.commands, 0);
  assert_true(pr.busy_seconds == 0);
  axpy(ctx, &v, "axpy");
  T_OK(ctx, vncl_profile_get(ctx, &pr));
  assert_int_equal(find(&pr, "axpy")->count, 1);
  T_FAILS(NULL, vncl_profile_get(NULL, &pr), VNCL_ERR_INVALID_ARG, "ctx");
  T_FAILS(ctx, vncl_profile_get(ctx, NULL), VNCL_ERR_INVALID_ARG, "out");
  vncl_tensor_destroy(v.x);
  vncl_tensor_destroy(v.y);
  vncl_context_destroy(ctx);
}

/* Transfers are timed too, as transfers, with their bytes. */
static void test_transfers(void **st) {
  (void)st;
  vncl_context *ctx = t_context(NULL);
  vecs v = make_vecs(ctx);
  static float host[N];
  t_fill_random_f32(host, N);
  T_OK(ctx, vncl_profile_reset(ctx));
  T_OK(ctx, vncl_tensor_write(v.x, host, sizeof host));
  T_OK(ctx, vncl_tensor_write(v.y, host, sizeof host));
  axpy(ctx, &v, "axpy");
  T_OK(ctx, vncl_tensor_read(v.y, host, sizeof host));
  vncl_profile pr;
  T_OK(ctx, vncl_profile_get(ctx, &pr));
  const vncl_profile_op *w = find(&pr, "write"), *r = find(&pr, "read");
  assert_non_null(w);
  assert_non_null(r);
  assert_true(w->is_transfer && r->is_transfer);
  assert_true(w->bytes == 2.0 * sizeof host);
  assert_true(r->bytes == 1.0 * sizeof host);
  assert_true(pr.transfer_seconds > 0);
  assert_true(pr.compute_seconds > 0);
  assert_false(find(&pr, "axpy")->is_transfer);
  vncl_tensor_destroy(v.x);
  vncl_tensor_destroy(v.y);
  vncl_context_destroy(ctx);
}

/* Many commands between two reads: the pending list is harvested as it
 * grows, and nothing is lost. */
static void test_many_commands(void **st) {
  (void)st;
  vncl_context *ctx = t_context(NULL);
  vecs v = make_vecs(ctx);
  T_OK(ctx, vncl_profile_reset(ctx));
  for (int i = 0; i < 3000; i++) axpy(ctx, &v, "axpy");
  vncl_profile pr;
  T_OK(ctx, vncl_profile_get(ctx, &pr));
  assert_int_equal(find(&pr, "axpy")->count, 3000);
  vncl_tensor_destroy(v.x);
  vncl_tensor_destroy(v.y);
  vncl_context_destroy(ctx);
}

/* An application queue without profiling: counted, but untimed. */
static void test_untimed_queue(void **st) {
  (void)st;
  const vncl__device *l;
  int n;
  T_OK(NULL, vncl__devices(&l, &n));
  cl_int err;
  cl_context c = clCreateContext(NULL, 1, &l[0].device, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(c, l[0].device, 0, &err);
  vncl_context *ctx;
  T_OK(NULL, vncl_context_create_from_cl(&ctx, c, l[0].device, q, NULL));
  vecs v = make_vecs(ctx);
  T_OK(ctx, vncl_profile_reset(ctx));
  axpy(ctx, &v, "axpy");
  axpy(ctx, &v, "axpy");
  vncl_profile pr;
  T_OK(ctx, vncl_profile_get(ctx, &pr));
  assert_int_equal(pr.commands, 2);
  assert_int_equal(pr.untimed, 2);
  assert_true(pr.busy_seconds == 0);
  vncl_tensor_destroy(v.x);
  vncl_tensor_destroy(v.y);
  vncl_context_destroy(ctx);
  clReleaseCommandQueue(q);
  clReleaseContext(c);
}

static char self_path[1024];

static void test_summary(void **st) {
  (void)st;
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "VNCL_PROFILE=1 '%s' child 2>&1", self_path);
  FILE *f = popen(cmd, "r");
  char buf[8192];
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  buf[len] = '\0';
  assert_int_equal(pclose(f), 0);
  assert_non_null(strstr(buf, "vncl profile:"));
  assert_non_null(strstr(buf, "busy"));
  assert_non_null(strstr(buf, "summary_op"));
  /* Without the variable: silent. */
  snprintf(cmd, sizeof cmd, "env -u VNCL_PROFILE '%s' child 2>&1", self_path);
  f = popen(cmd, "r");
  len = fread(buf, 1, sizeof buf - 1, f);
  buf[len] = '\0';
  assert_int_equal(pclose(f), 0);
  assert_null(strstr(buf, "vncl profile:"));
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "child")) {
    vncl_context *ctx;
    if (vncl_context_create(&ctx, NULL)) return 1;
    vecs v;
    int64_t shape[1] = {N};
    if (vncl_tensor_create(ctx, VNCL_F32, 1, shape, &v.x) ||
        vncl_tensor_create(ctx, VNCL_F32, 1, shape, &v.y))
      return 1;
    vncl__kernel k = {0};
    if (vncl__kernel_get(ctx, "selftest.cl", "", "selftest_axpy", &k))
      return 1;
    cl_uint n = N;
    float a = 2;
    vncl__set_args(ctx, k.k, 4, VNCL_ARG(n), VNCL_ARG(a), VNCL_ARG(v.x->mem),
                   VNCL_ARG(v.y->mem));
    size_t g = N;
    vncl__launch(ctx, "summary_op", k.k, 1, &g, NULL, 0, NULL, NULL);
    vncl__kernel_put(ctx, &k);
    vncl_tensor_destroy(v.x);
    vncl_tensor_destroy(v.y);
    vncl_context_destroy(ctx);
    return 0;
  }
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (n <= 0) return 1;
  self_path[n] = '\0';
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_figures_add_up),
      cmocka_unit_test(test_transfers),
      cmocka_unit_test(test_many_commands),
      cmocka_unit_test(test_untimed_queue),
      cmocka_unit_test(test_summary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
