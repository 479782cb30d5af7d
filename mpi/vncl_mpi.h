/*
 * vncl_mpi: vncl across hosts through MPI (an optional component, built as
 * libvncl_mpi when mpicc is found). Every rank runs vncl on its own device;
 * MPI moves the data between ranks from host memory. docs/multi-device.md
 * says what to install on each host, how to run, and the figures measured.
 *
 * Conventions, beyond those of vncl.h:
 *  - Collective: every function below except vncl_mpi_block and
 *    vncl_mpi_errmsg must be called by every rank of the communicator, with
 *    the same global arguments (sizes, dtype, operation).
 *  - Errors agree: the arguments are checked on each rank and the verdicts
 *    combined (MPI_Allreduce) before any data moves, so a rank that passes
 *    bad input makes the call fail on EVERY rank, with the same status and a
 *    message naming the rank, instead of leaving the others waiting in a
 *    collective. A device error during the work is agreed on the same way
 *    at the end. The only exceptions: a NULL grid or an MPI error itself
 *    (MPI's own handler decides; the default aborts the job).
 *  - Messages: vncl_mpi_errmsg() gives the calling thread's last message of
 *    this component (vncl_errmsg(ctx) still holds the device's own).
 *  - Memory: the matrices and tensors of the caller stay where they are;
 *    the component stages them through pinned host memory of the rank's
 *    context (vncl_host_alloc) where it can. OpenCL buffers cannot be handed
 *    to MPI, so even a GPU-aware MPI (see vncl_mpi_device_aware) is reached
 *    through host memory.
 *  - MPI must be initialized (MPI_Init) before, and finalized after, these
 *    calls, by the application. Call them from one thread per rank.
 */
#ifndef VNCL_MPI_H
#define VNCL_MPI_H

#include <mpi.h>

#include "vncl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The calling thread's last message from a vncl_mpi function ("" when the
 * last call succeeded). Valid until the thread's next vncl_mpi call. */
VNCL_API const char *vncl_mpi_errmsg(void);

/* 1 when the MPI library says it can take GPU device pointers (Open MPI's
 * MPIX_Query_cuda_support), else 0. Informational: vncl's buffers are
 * OpenCL objects, which no MPI takes, so vncl_mpi always goes through host
 * memory. Not collective. */
VNCL_API int vncl_mpi_device_aware(void);

/* Creates a context for this rank on its own device. The selector is
 * opts->device, else VNCL_DEVICE: a comma-separated list gives each rank of
 * a host the element (local rank mod length), any other selector is used
 * as it is; with none, the rank takes device (local rank mod device count).
 * The local rank is the rank among those of the same host
 * (MPI_COMM_TYPE_SHARED). A failure on any rank fails every rank (the
 * contexts made are destroyed). Errors: those of vncl_context_create. */
VNCL_API vncl_status vncl_mpi_context_create(vncl_context **out, MPI_Comm comm,
                                             const vncl_options *opts);

/* ---- 2-D process grid and block distribution ---------------------------- */

typedef struct vncl_mpi_grid vncl_mpi_grid;

/* A prow x pcol grid over comm (prow * pcol must equal its size; 0 and 0:
 * the squarest grid, from MPI_Dims_create). Rank r sits at row r / pcol,
 * column r % pcol. The grid keeps duplicates of comm and of its row and
 * column communicators. Errors: VNCL_ERR_INVALID_ARG (out NULL, a grid that
 * does not match the size, ranks that disagree). */
VNCL_API vncl_status vncl_mpi_grid_create(vncl_mpi_grid **out, MPI_Comm comm,
                                          int prow, int pcol);
/* Collective. NULL: no-op (on every rank). */
VNCL_API void vncl_mpi_grid_destroy(vncl_mpi_grid *g);
/* The grid's shape and this rank's place in it (any pointer may be NULL).
 * Not collective. */
VNCL_API vncl_status vncl_mpi_grid_coords(const vncl_mpi_grid *g, int *prow,
                                          int *pcol, int *myrow, int *mycol);

/* The block distribution every function here uses: n items over `parts`
 * parts, part i holding *count items from *offset, the first n % parts
 * parts one more than the others. Not collective. */
VNCL_API void vncl_mpi_block(size_t n, int parts, int i, size_t *offset,
                             size_t *count);

/* ---- distributed GEMM ----------------------------------------------------- */

/* C = alpha * A * B + beta * C for matrices distributed in blocks over the
 * grid, row-major, no transposes: A is m x k, B is k x n, C is m x n, and
 * the rank at (r, c) holds
 *   A rows block(m, prow, r), columns block(k, pcol, c)   (lda >= its width)
 *   B rows block(k, prow, r), columns block(n, pcol, c)   (ldb >= its width)
 *   C rows block(m, prow, r), columns block(n, pcol, c)   (ldc >= its width)
 * in host memory (vncl_mpi_block gives each block). SUMMA: the k dimension
 * is walked in panels; the owner of each panel of A broadcasts it along its
 * process row, the owner of the panel of B along its column, and every rank
 * adds the product of the two into its block of C with vncl_gemm_cl on ctx.
 * The next panels' broadcasts run while the device computes; C stays on the
 * device until the end. dtype: f32, f64, f16 or bf16 (A, B and C alike).
 * Errors (every rank): VNCL_ERR_INVALID_ARG (NULL where a block is not
 * empty, ld below the block's width, ranks that disagree on m, n, k, dtype,
 * alpha or beta, sizes of 2^31 or more), VNCL_ERR_UNSUPPORTED (i32, f64
 * without fp64 on some rank), and device errors (the message names the
 * rank). On a device error C may be partly written. */
VNCL_API vncl_status vncl_mpi_gemm(vncl_mpi_grid *g, vncl_context *ctx,
                                   vncl_dtype dtype, size_t m, size_t n,
                                   size_t k, double alpha, const void *a,
                                   size_t lda, const void *b, size_t ldb,
                                   double beta, void *c, size_t ldc);

/* ---- allreduce of a tensor (the data-parallel step) ------------------------ */

typedef enum vncl_mpi_op {
  VNCL_MPI_SUM = 0,
  VNCL_MPI_AVG = 1, /* the sum divided by the number of ranks (f32, f64) */
  VNCL_MPI_MAX = 2,
  VNCL_MPI_MIN = 3
} vncl_mpi_op;

/* t = op over every rank's t, in place, for tensors of the same dtype and
 * element count on every rank (shapes may differ): gradients averaged
 * across data-parallel replicas. The tensor is read in chunks into pinned
 * host memory while MPI reduces the chunks already there, and each reduced
 * chunk is written back as it comes. Waits for the work enqueued on t's
 * context before (queue order) and returns when t holds the result.
 * dtype: f32, f64 or i32. Errors (every rank): VNCL_ERR_INVALID_ARG (t
 * NULL, an unknown op, ranks that disagree on count, dtype or op),
 * VNCL_ERR_UNSUPPORTED (f16/bf16; AVG of i32), VNCL_ERR_OUT_OF_MEMORY,
 * VNCL_ERR_OPENCL. */
VNCL_API vncl_status vncl_mpi_allreduce(MPI_Comm comm, vncl_tensor *t,
                                        vncl_mpi_op op);

#ifdef __cplusplus
}
#endif
#endif
