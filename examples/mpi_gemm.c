/*
 * mpi_gemm: a matrix product distributed over MPI ranks, on one host or
 * many, each rank computing on its own device with vncl (docs/multi-device.md).
 *
 * Build (vncl and vncl_mpi built or installed, Open MPI's mpicc on PATH):
 *   make mpi                  # builds build/libvncl_mpi.a and build/mpi_gemm
 * or by hand against an installed vncl:
 *   mpicc -std=c11 examples/mpi_gemm.c -lvncl_mpi $(pkg-config --cflags --libs vncl)
 *
 * Run:
 *   mpirun -np 2 ./build/mpi_gemm                          # one host
 *   mpirun -np 8 --hostfile hosts ./build/mpi_gemm 8192 8192 8192 2 4
 * where `hosts` lists one host per line with its slots ("node1 slots=4"),
 * and the arguments are m n k [prow pcol] (default 2048^3 on the squarest
 * grid). Each rank takes the device (its rank on its host) mod (devices on
 * the host); set VNCL_DEVICE (mpirun -x VNCL_DEVICE=...) to choose.
 *
 * Every rank builds its own blocks of A and B from a formula (nothing is
 * scattered), runs the product three times, checks 64 elements of its block
 * of C against the formula summed in double, and rank 0 prints the best
 * rate. Exit status 0 only when every rank's check passed ("mpi_gemm: ok").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "vncl_mpi.h"

static double a_of(size_t i, size_t p) {
  return (double)((int)((i * 7 + p * 3) % 17) - 8) / 8.0;
}
static double b_of(size_t p, size_t j) {
  return (double)((int)((p * 5 + j * 11) % 13) - 6) / 8.0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t m = argc > 1 ? strtoul(argv[1], NULL, 10) : 2048;
  size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : m;
  size_t k = argc > 3 ? strtoul(argv[3], NULL, 10) : m;
  int prow = argc > 5 ? atoi(argv[4]) : 0, pcol = argc > 5 ? atoi(argv[5]) : 0;

  /* Every call below is collective: an error on any rank is an error on all
   * of them, so every rank can stop at the same place. */
  vncl_context *ctx = NULL;
  vncl_mpi_grid *grid = NULL;
  if (vncl_mpi_context_create(&ctx, MPI_COMM_WORLD, NULL) ||
      vncl_mpi_grid_create(&grid, MPI_COMM_WORLD, prow, pcol)) {
    if (rank == 0) fprintf(stderr, "mpi_gemm: %s\n", vncl_mpi_errmsg());
    vncl_context_destroy(ctx);
    MPI_Finalize();
    return 1;
  }
  int myrow, mycol;
  vncl_mpi_grid_coords(grid, &prow, &pcol, &myrow, &mycol);

  /* This rank's blocks (row-major, dense). */
  size_t r0, mr, ka, kc, kb, kr, c0, nc;
  vncl_mpi_block(m, prow, myrow, &r0, &mr);
  vncl_mpi_block(k, pcol, mycol, &ka, &kc);
  vncl_mpi_block(k, prow, myrow, &kb, &kr);
  vncl_mpi_block(n, pcol, mycol, &c0, &nc);
  float *a = malloc((mr * kc + 1) * sizeof *a);
  float *b = malloc((kr * nc + 1) * sizeof *b);
  float *c = malloc((mr * nc + 1) * sizeof *c);
  if (!a || !b || !c) {
    fprintf(stderr, "mpi_gemm: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t i = 0; i < mr; i++)
    for (size_t p = 0; p < kc; p++) a[i * kc + p] = (float)a_of(r0 + i, ka + p);
  for (size_t p = 0; p < kr; p++)
    for (size_t j = 0; j < nc; j++) b[p * nc + j] = (float)b_of(kb + p, c0 + j);

  double best = 0;
  vncl_status s = VNCL_OK;
  for (int run = 0; run < 3 && !s; run++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    s = vncl_mpi_gemm(grid, ctx, VNCL_F32, m, n, k, 1.0, a, kc ? kc : 1, b,
                      nc ? nc : 1, 0.0, c, nc ? nc : 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (!s && (best == 0 || t < best)) best = t;
  }
  int bad = 0;
  if (s) {
    if (rank == 0) fprintf(stderr, "mpi_gemm: %s\n", vncl_mpi_errmsg());
    bad = 1;
  } else {
    for (int t = 0; t < 64 && mr && nc; t++) {
      size_t i = (size_t)t * 131 % mr, j = (size_t)t * 71 % nc;
      double ref = 0;
      for (size_t p = 0; p < k; p++) ref += a_of(r0 + i, p) * b_of(p, c0 + j);
      if (fabs(c[i * nc + j] - ref) > 1e-5 * (double)k + 1e-6) {
        fprintf(stderr, "mpi_gemm: rank %d: C(%zu,%zu) = %g, expected %g\n",
                rank, r0 + i, c0 + j, c[i * nc + j], ref);
        bad = 1;
        break;
      }
    }
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !s) {
    vncl_device_info d;
    vncl_context_device_info(ctx, &d);
    printf("mpi_gemm: %zu x %zu x %zu on a %d x %d grid of %d rank(s) "
           "(rank 0 on %s): %.3f s, %.1f GFLOP/s\n",
           m, n, k, prow, pcol, size, d.name, best,
           2.0 * (double)m * n * k / best * 1e-9);
    printf("mpi_gemm: %s\n", any_bad ? "WRONG RESULT" : "ok");
  }
  free(a);
  free(b);
  free(c);
  vncl_mpi_grid_destroy(grid);
  vncl_context_destroy(ctx);
  MPI_Finalize();
  return any_bad;
}
