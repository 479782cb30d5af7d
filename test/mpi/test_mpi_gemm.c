/* vncl_mpi: the process grid and SUMMA, run under mpirun (make check-mpi:
 * -np 2, each rank on its own PoCL device). Every process grid the job's
 * size allows (1x2 and 2x1 for two ranks), uneven sizes (blocks of
 * different sizes, a rank with no rows, several panels per block, k = 0),
 * against a reference in double computed in each process from the same
 * global matrices (fresh random inputs: rank 0 draws the seed), poisoned
 * outputs, padding that must stay untouched, every element checked. Bad
 * input on one rank must give an error on every rank, never a hang. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "vncl_mpi.h"

#define SENTINEL 777.0

static int rank, size;
static vncl_context *ctx;
static uint64_t shared_state;

/* The same stream on every rank (splitmix64 from rank 0's seed). */
static double shared_uniform(void) {
  uint64_t z = (shared_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return -1.0 + 2.0 * (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static double get(const void *x, vncl_dtype dt, size_t i) {
  return dt == VNCL_F64 ? ((const double *)x)[i] : ((const float *)x)[i];
}
static void put(void *x, vncl_dtype dt, size_t i, double v) {
  if (dt == VNCL_F64)
    ((double *)x)[i] = v;
  else
    ((float *)x)[i] = (float)v;
}

typedef struct mcase {
  vncl_dtype dt;
  size_t m, n, k;
  double alpha, beta;
} mcase;

/* Runs one case on a prow x pcol grid and checks this rank's block. */
static void run_case(int prow, int pcol, const mcase *c) {
  vncl_mpi_grid *g = NULL;
  T_OK(NULL, vncl_mpi_grid_create(&g, MPI_COMM_WORLD, prow, pcol));
  int myrow, mycol;
  T_OK(NULL, vncl_mpi_grid_coords(g, NULL, NULL, &myrow, &mycol));
  size_t es = vncl_dtype_size(c->dt), m = c->m, n = c->n, k = c->k;
  /* Global matrices, the same on every rank. */
  double *A = malloc((m * k + 1) * sizeof *A), *B = malloc((k * n + 1) *
                                                           sizeof *B),
         *C = malloc((m * n + 1) * sizeof *C);
  assert_non_null(A);
  assert_non_null(B);
  assert_non_null(C);
  for (size_t i = 0; i < m * k; i++) A[i] = shared_uniform();
  for (size_t i = 0; i < k * n; i++) B[i] = shared_uniform();
  for (size_t i = 0; i < m * n; i++) C[i] = shared_uniform();
  if (c->dt == VNCL_F32) { /* the values the devices see */
    for (size_t i = 0; i < m * k; i++) A[i] = (float)A[i];
    for (size_t i = 0; i < k * n; i++) B[i] = (float)B[i];
    for (size_t i = 0; i < m * n; i++) C[i] = (float)C[i];
  }
  /* This rank's blocks, with padding of its own width. */
  size_t r0, mr, ka0, kc, kb0, kr, c0, nc;
  vncl_mpi_block(m, prow, myrow, &r0, &mr);
  vncl_mpi_block(k, pcol, mycol, &ka0, &kc);
  vncl_mpi_block(k, prow, myrow, &kb0, &kr);
  vncl_mpi_block(n, pcol, mycol, &c0, &nc);
  size_t pad = (size_t)rank + 1;
  size_t lda = kc + pad, ldb = nc + pad, ldc = nc + pad;
  void *a = calloc(mr * lda + 1, es), *b = calloc(kr * ldb + 1, es),
       *cl = calloc(mr * ldc + 1, es);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(cl);
  for (size_t i = 0; i < mr; i++)
    for (size_t p = 0; p < kc; p++)
      put(a, c->dt, i * lda + p, A[(r0 + i) * k + ka0 + p]);
  for (size_t p = 0; p < kr; p++)
    for (size_t j = 0; j < nc; j++)
      put(b, c->dt, p * ldb + j, B[(kb0 + p) * n + c0 + j]);
  for (size_t i = 0; i < mr * ldc + 1; i++) put(cl, c->dt, i, SENTINEL);
  for (size_t i = 0; i < mr; i++)
    for (size_t j = 0; j < nc; j++)
      put(cl, c->dt, i * ldc + j,
          c->beta == 0 ? NAN : C[(r0 + i) * n + c0 + j]);
  T_OK(NULL, vncl_mpi_gemm(g, ctx, c->dt, m, n, k, c->alpha, a, lda, b, ldb,
                           c->beta, cl, ldc));
  double eps = c->dt == VNCL_F64 ? 2.3e-16 : 1.2e-7;
  size_t bad = 0;
  /* This rank's block of the whole product, by the shared reference. */
  double *refs = malloc((mr * nc + 1) * sizeof *refs),
         *bounds = malloc((mr * nc + 1) * sizeof *bounds);
  assert_non_null(refs);
  assert_non_null(bounds);
  t_ref_gemm(false, false, mr, nc, k, 1, c->alpha, A + r0 * k, k, B + c0, n,
             c->beta, C + r0 * n + c0, n, refs, bounds);
  for (size_t i = 0; i < mr; i++)
    for (size_t j = 0; j < nc; j++) {
      double ref = refs[i * nc + j], bound = bounds[i * nc + j];
      double tol = 2.0 * (double)(k + 4) * eps * bound + 1e-30;
      double v = get(cl, c->dt, i * ldc + j);
      if (!(fabs(v - ref) <= tol) && bad++ < 5)
        print_error("rank %d grid %dx%d: C(%zu,%zu) = %.9g, reference %.9g\n",
                    rank, prow, pcol, r0 + i, c0 + j, v, ref);
      put(cl, c->dt, i * ldc + j, SENTINEL);
    }
  free(refs);
  free(bounds);
  for (size_t i = 0; i < mr * ldc + 1; i++)
    if (get(cl, c->dt, i) != SENTINEL && bad++ < 5)
      print_error("rank %d: padding element %zu changed\n", rank, i);
  if (bad)
    fail_msg("rank %d grid %dx%d: %zu wrong (%s m=%zu n=%zu k=%zu alpha %g "
             "beta %g)",
             rank, prow, pcol, bad, vncl_dtype_name(c->dt), m, n, k,
             c->alpha, c->beta);
  free(A);
  free(B);
  free(C);
  free(a);
  free(b);
  free(cl);
  vncl_mpi_grid_destroy(g);
}

static void test_grids(void **st) {
  (void)st;
  mcase cases[] = {
      {VNCL_F32, 37, 53, 29, 1.0, 0.0},
      {VNCL_F32, 130, 67, 201, -0.75, 0.5},
      {VNCL_F32, 1, 40, 17, 2.0, 1.0},   /* a grid row without rows of C */
      {VNCL_F32, 64, 48, 0, 1.0, 2.0},   /* k = 0: C = beta*C */
      {VNCL_F32, 150, 131, 1100, 1.0, 0.0}, /* several panels per block */
      {VNCL_F64, 45, 38, 77, 1.5, -1.0},
      {VNCL_F32, 33, 29, 41, -0.0, 1.0}, /* -0.0: the same bits everywhere */
  };
  int grids = 0;
  for (int p = 1; p <= size; p++) {
    if (size % p) continue;
    grids++;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
      run_case(p, size / p, &cases[i]);
  }
  assert_true(grids >= (size > 1 ? 2 : 1));
  /* The default grid is the squarest. */
  vncl_mpi_grid *g;
  T_OK(NULL, vncl_mpi_grid_create(&g, MPI_COMM_WORLD, 0, 0));
  int pr, pc, mr, mc;
  T_OK(NULL, vncl_mpi_grid_coords(g, &pr, &pc, &mr, &mc));
  assert_int_equal(pr * pc, size);
  assert_int_equal(mr * pc + mc, rank);
  vncl_mpi_grid_destroy(g);
}

static void test_block(void **st) {
  (void)st;
  size_t off, cnt, total = 0;
  for (int i = 0; i < 3; i++) {
    vncl_mpi_block(10, 3, i, &off, &cnt);
    assert_int_equal(off, total);
    assert_int_equal(cnt, i == 0 ? 4 : 3);
    total += cnt;
  }
  vncl_mpi_block(2, 4, 3, &off, &cnt);
  assert_int_equal(cnt, 0);
  assert_int_equal(off, 2);
}

/* Each call is made on every rank; `who` passes something else. */
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
  vncl_mpi_grid *g = NULL;
  /* A grid that does not fit, and ranks that disagree on it. */
  expect_all(vncl_mpi_grid_create(&g, MPI_COMM_WORLD, size + 1, 1),
             VNCL_ERR_INVALID_ARG, "grid", "does not match");
  expect_all(vncl_mpi_grid_create(&g, MPI_COMM_WORLD, rank == 0 ? 1 : size,
                                  rank == 0 ? size : 1),
             VNCL_ERR_INVALID_ARG, "disagree", "prow");
  assert_null(g);
  T_OK(NULL, vncl_mpi_grid_create(&g, MPI_COMM_WORLD, 1, size));
  size_t m = 20, n = 8 * (size_t)size, k = 6 * (size_t)size, nc = 8, kc = 6;
  float a[20 * 6], b[6 * 8 * 8], c[20 * 8];
  for (size_t i = 0; i < 20 * 6; i++) a[i] = 1;
  for (size_t i = 0; i < 6 * 8 * 8; i++) b[i] = 1;
  for (size_t i = 0; i < 20 * 8; i++) c[i] = 5;
  const vncl_dtype F = VNCL_F32;
  /* rank 1 passes an lda below its block's width */
  expect_all(vncl_mpi_gemm(g, ctx, F, m, n, k, 1, a, rank == 1 ? kc - 1 : kc,
                           b, nc, 0, c, nc),
             VNCL_ERR_INVALID_ARG, "rank 1", "lda");
  /* rank 0 passes no A */
  expect_all(vncl_mpi_gemm(g, ctx, F, m, n, k, 1, rank == 0 ? NULL : a, kc, b,
                           nc, 0, c, nc),
             VNCL_ERR_INVALID_ARG, "rank 0", "a is NULL");
  /* rank 1 passes no context */
  expect_all(vncl_mpi_gemm(g, rank == 1 ? NULL : ctx, F, m, n, k, 1, a, kc, b,
                           nc, 0, c, nc),
             VNCL_ERR_INVALID_ARG, "rank 1", "ctx is NULL");
  /* the ranks disagree on m, on alpha */
  expect_all(vncl_mpi_gemm(g, ctx, F, m + (rank == 1), n, k, 1, a, kc, b, nc,
                           0, c, nc),
             VNCL_ERR_INVALID_ARG, "disagree", "on m");
  expect_all(vncl_mpi_gemm(g, ctx, F, m, n, k, rank == 1 ? 2 : 1, a, kc, b,
                           nc, 0, c, nc),
             VNCL_ERR_INVALID_ARG, "disagree", "alpha");
  /* every rank asks for i32 */
  expect_all(vncl_mpi_gemm(g, ctx, VNCL_I32, m, n, k, 1, a, kc, b, nc, 0, c,
                           nc),
             VNCL_ERR_UNSUPPORTED, "rank 0", "i32");
  /* rank 1's device cannot hold its blocks (a 4 KiB memory limit): a device
   * error, agreed on before anything moves */
  vncl_options o;
  vncl_options_init(&o);
  o.memory_limit = rank == 1 ? 4096 : 0;
  vncl_context *small = NULL;
  T_OK(NULL, vncl_mpi_context_create(&small, MPI_COMM_WORLD, &o));
  expect_all(vncl_mpi_gemm(g, small, F, m, n, k, 1, a, kc, b, nc, 0, c, nc),
             VNCL_ERR_OUT_OF_MEMORY, "rank 1", "limit");
  vncl_context_destroy(small);
  for (size_t i = 0; i < 20 * 8; i++) assert_true(c[i] == 5);
  /* and the grid still works afterwards */
  T_OK(NULL, vncl_mpi_gemm(g, ctx, F, m, n, k, 1, a, kc, b, nc, 0, c, nc));
  for (size_t i = 0; i < 20 * 8; i++) assert_true(c[i] == (float)k);
  vncl_mpi_grid_destroy(g);
}

int main(int argc, char **argv) {
  setenv("POCL_DEVICES", "pthread pthread", 1); /* before OpenCL starts */
  unsetenv("VNCL_DEVICE");
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  shared_state = rank == 0 ? t_seed() : 0;
  MPI_Bcast(&shared_state, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (vncl_mpi_context_create(&ctx, MPI_COMM_WORLD, NULL)) {
    fprintf(stderr, "rank %d: %s\n", rank, vncl_mpi_errmsg());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  vncl_device_info d;
  vncl_context_device_info(ctx, &d);
  printf("rank %d of %d on device %d (%s)\n", rank, size, d.index, d.name);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_block),
      cmocka_unit_test(test_grids),
      cmocka_unit_test(test_bad_input),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  vncl_context_destroy(ctx);
  MPI_Finalize();
  return failed;
}
