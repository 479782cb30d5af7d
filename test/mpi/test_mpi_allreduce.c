/* vncl_mpi: a context per rank (the rank-based device choice and its
 * selectors) and the allreduce of a tensor, run under mpirun (make
 * check-mpi: -np 2). Sum, average, max and min over f32, f64 and i32,
 * sizes from one element to several chunks, ordering after work already
 * enqueued, against the values every rank can compute; bad input on one
 * rank gives an error on every rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "vncl_mpi.h"

static int rank, size;
static vncl_context *ctx;
static uint64_t seed;

/* Value i of rank r's tensor: the same formula on every rank. */
static double value(int r, size_t i) {
  uint64_t z = seed + (uint64_t)r * 0x9e3779b97f4a7c15ULL + i * 0xbf58476dULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(int64_t)(z % 2001) - 1000.0; /* whole numbers: exact sums */
}

static vncl_tensor *make(vncl_dtype dt, int64_t n) {
  vncl_tensor *t = NULL;
  T_OK(ctx, vncl_tensor_create(ctx, dt, 1, &n, &t));
  return t;
}

static void check(vncl_dtype dt, vncl_mpi_op op, size_t n) {
  size_t es = vncl_dtype_size(dt);
  unsigned char *x = malloc(n * es + 1);
  assert_non_null(x);
  for (size_t i = 0; i < n; i++) {
    double v = value(rank, i) / (dt == VNCL_I32 ? 1 : 8);
    if (dt == VNCL_F64)
      ((double *)x)[i] = v;
    else if (dt == VNCL_F32)
      ((float *)x)[i] = (float)v;
    else
      ((int32_t *)x)[i] = (int32_t)v;
  }
  vncl_tensor *t = make(dt, (int64_t)n);
  T_OK(ctx, vncl_tensor_write(t, x, n * es));
  T_OK(NULL, vncl_mpi_allreduce(MPI_COMM_WORLD, t, op));
  memset(x, 0xee, n * es);
  T_OK(ctx, vncl_tensor_read(t, x, n * es));
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    double want = op == VNCL_MPI_MAX ? -INFINITY
                  : op == VNCL_MPI_MIN ? INFINITY
                                       : 0;
    for (int r = 0; r < size; r++) {
      double v = value(r, i) / (dt == VNCL_I32 ? 1 : 8);
      if (op == VNCL_MPI_MAX) want = fmax(want, v);
      else if (op == VNCL_MPI_MIN) want = fmin(want, v);
      else want += v;
    }
    if (op == VNCL_MPI_AVG) want /= size;
    double got = dt == VNCL_F64   ? ((double *)x)[i]
                 : dt == VNCL_F32 ? ((float *)x)[i]
                                  : ((int32_t *)x)[i];
    double tol = op == VNCL_MPI_AVG ? 1e-6 * fabs(want) : 0;
    if (!(fabs(got - want) <= tol) && bad++ < 5)
      print_error("rank %d: %s op %d element %zu: %g, expected %g\n", rank,
                  vncl_dtype_name(dt), (int)op, i, got, want);
  }
  if (bad) fail_msg("rank %d: %zu wrong elements of %zu", rank, bad, n);
  vncl_tensor_destroy(t);
  free(x);
}

static void test_allreduce(void **st) {
  (void)st;
  size_t sizes[] = {1, 1000, 2621443}; /* up to 2.5 chunks of 4 MiB */
  for (size_t i = 0; i < 3; i++) {
    check(VNCL_F32, VNCL_MPI_SUM, sizes[i]);
    check(VNCL_F32, VNCL_MPI_AVG, sizes[i]);
  }
  check(VNCL_F64, VNCL_MPI_AVG, 777777);
  check(VNCL_F64, VNCL_MPI_MAX, 1001);
  check(VNCL_I32, VNCL_MPI_SUM, 1234567);
  check(VNCL_I32, VNCL_MPI_MIN, 999);
  /* The allreduce comes after the work already enqueued on the context. */
  vncl_tensor *t = make(VNCL_F32, 5000);
  T_OK(ctx, vncl_fill(ctx, t, rank + 1.0));
  T_OK(NULL, vncl_mpi_allreduce(MPI_COMM_WORLD, t, VNCL_MPI_SUM));
  float y[5000];
  T_OK(ctx, vncl_tensor_read(t, y, sizeof y));
  for (int i = 0; i < 5000; i++)
    assert_true(y[i] == (float)(size * (size + 1) / 2));
  vncl_tensor_destroy(t);
}

static void expect_all(vncl_status got, vncl_status want, const char *n1,
                       const char *n2) {
  const char *msg = vncl_mpi_errmsg();
  if (got != want || !strstr(msg, n1) || !strstr(msg, n2))
    fail_msg("rank %d: got %s '%s', expected %s mentioning '%s' and '%s'",
             rank, vncl_status_name(got), msg, vncl_status_name(want), n1,
             n2);
}

static void test_bad_input(void **st) {
  (void)st;
  if (size < 2) skip();
  vncl_tensor *t = make(VNCL_F32, 100), *u = make(VNCL_F32, 101);
  vncl_tensor *h = make(VNCL_F16, 100), *i32 = make(VNCL_I32, 100);
  float x[100];
  for (int i = 0; i < 100; i++) x[i] = 3;
  T_OK(ctx, vncl_tensor_write(t, x, sizeof x));
  expect_all(vncl_mpi_allreduce(MPI_COMM_WORLD, rank == 1 ? u : t,
                                VNCL_MPI_SUM),
             VNCL_ERR_INVALID_ARG, "disagree", "element count");
  expect_all(vncl_mpi_allreduce(MPI_COMM_WORLD, rank == 0 ? NULL : t,
                                VNCL_MPI_SUM),
             VNCL_ERR_INVALID_ARG, "disagree", "NULL tensor");
  expect_all(vncl_mpi_allreduce(MPI_COMM_WORLD, t,
                                rank == 1 ? VNCL_MPI_MAX : VNCL_MPI_SUM),
             VNCL_ERR_INVALID_ARG, "disagree", "operation");
  expect_all(vncl_mpi_allreduce(MPI_COMM_WORLD, t, (vncl_mpi_op)9),
             VNCL_ERR_INVALID_ARG, "rank 0", "op 9");
  expect_all(vncl_mpi_allreduce(MPI_COMM_WORLD, h, VNCL_MPI_SUM),
             VNCL_ERR_UNSUPPORTED, "rank 0", "f16");
  expect_all(vncl_mpi_allreduce(MPI_COMM_WORLD, i32, VNCL_MPI_AVG),
             VNCL_ERR_UNSUPPORTED, "rank 0", "i32");
  T_OK(ctx, vncl_tensor_read(t, x, sizeof x));
  for (int i = 0; i < 100; i++) assert_true(x[i] == 3); /* untouched */
  vncl_tensor_destroy(t);
  vncl_tensor_destroy(u);
  vncl_tensor_destroy(h);
  vncl_tensor_destroy(i32);
}

static int dev_of(vncl_context *c) {
  vncl_device_info d;
  T_OK(c, vncl_context_device_info(c, &d));
  return d.index;
}

static void test_contexts(void **st) {
  (void)st;
  int count = 0;
  T_OK(NULL, vncl_device_count(&count));
  /* Default: the local rank picks the device (all ranks share a host). */
  assert_int_equal(dev_of(ctx), rank % count);
  vncl_context *c = NULL;
  setenv("VNCL_DEVICE", "1, 0", 1);
  T_OK(NULL, vncl_mpi_context_create(&c, MPI_COMM_WORLD, NULL));
  assert_int_equal(dev_of(c), rank % 2 == 0 ? 1 : 0);
  vncl_context_destroy(c);
  unsetenv("VNCL_DEVICE");
  vncl_options o;
  vncl_options_init(&o);
  o.device = "1";
  T_OK(NULL, vncl_mpi_context_create(&c, MPI_COMM_WORLD, &o));
  assert_int_equal(dev_of(c), 1);
  vncl_context_destroy(c);
  if (size < 2) return;
  /* One rank's selector matches nothing: every rank fails. */
  c = (vncl_context *)&c;
  o.device = rank == 1 ? "nvidia" : "0";
  expect_all(vncl_mpi_context_create(&c, MPI_COMM_WORLD, &o),
             VNCL_ERR_NO_DEVICE, "rank 1", "nvidia");
  assert_ptr_equal(c, (vncl_context *)&c);
  printf("rank %d: device-aware MPI: %d\n", rank, vncl_mpi_device_aware());
}

int main(int argc, char **argv) {
  setenv("POCL_DEVICES", "pthread pthread", 1); /* before OpenCL starts */
  unsetenv("VNCL_DEVICE");
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  seed = rank == 0 ? t_seed() : 0;
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (vncl_mpi_context_create(&ctx, MPI_COMM_WORLD, NULL)) {
    fprintf(stderr, "rank %d: %s\n", rank, vncl_mpi_errmsg());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_contexts),
      cmocka_unit_test(test_allreduce),
      cmocka_unit_test(test_bad_input),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  vncl_context_destroy(ctx);
  MPI_Finalize();
  return failed;
}
