/* vncl device groups: included by vncl.h; see the conventions at the top of
 * vncl.h. docs/multi-device.md explains the design and gives the figures
 * measured.
 *
 * A group is a set of devices of one host, each with its own vncl_context
 * (so its own queue, program caches, staging pool and device allocator),
 * created and destroyed together. Work given to the group is split over its
 * devices in proportion to their measured speed and runs on all of them at
 * once, one host thread per device, with the transfers between host memory
 * and each device overlapped with that device's computation.
 *
 * Messages: the group functions record their errors for the calling thread
 * outside any context: read them with vncl_errmsg(NULL). An error on one
 * device names the device.
 *
 * Threads: a group may be used from several threads at once (its speed
 * table and last-run record are locked); each call runs on its own buffers.
 * Its contexts may be used directly as well, under the rules of vncl.h.
 */
#ifndef VNCL_GROUP_H
#define VNCL_GROUP_H

#ifdef __cplusplus
extern "C" {
#endif

/* The most devices one group holds. */
#define VNCL_GROUP_MAX_DEVICES 16

typedef struct vncl_group vncl_group;

/* Creates a context on each device the selector names, in the selector's
 * order. A group selector is a comma-separated list of elements:
 *   "all"                            every device, in vncl's default order
 *   "gpu" | "cpu" | "accelerator"    every device of that type
 *   anything else                    one device, resolved by
 *                                    vncl_device_select ("0", "0:1",
 *                                    "nvidia", ...)
 * so "all", "gpu" and "0,2" are all group selectors. selector NULL or "":
 * opts->device, then VNCL_DEVICE, then "all". Every context is created with
 * opts (NULL: the environment), its device field replaced. On error nothing
 * is created and *out is untouched. Errors: VNCL_ERR_INVALID_ARG (out NULL,
 * an empty element as in "0,,1", a device named twice, more than
 * VNCL_GROUP_MAX_DEVICES), VNCL_ERR_NO_DEVICE (an element matches nothing;
 * the message lists the devices found), and those of vncl_context_create.
 * Thread-safe. */
VNCL_API vncl_status vncl_group_create(vncl_group **out, const char *selector,
                                       const vncl_options *opts);

/* Waits for every device, then destroys the contexts (tensors still alive
 * on them keep them, as vncl_context_destroy says) and the group. NULL:
 * no-op. */
VNCL_API void vncl_group_destroy(vncl_group *g);

/* The number of devices (0 for NULL). */
VNCL_API int vncl_group_size(const vncl_group *g);

/* The context of device i (0 <= i < size), owned by the group; NULL when g
 * is NULL or i out of range. */
VNCL_API vncl_context *vncl_group_context(const vncl_group *g, int i);

/* The relative speed of each device, in GFLOP/s of an f32 GEMM, found the
 * first time the group needs it and then kept: the rate the tuning database
 * (vncl autotune, docs/tuning.md) measured for the square f32 class on each
 * device's model, when it has one for every device; else a short probe on
 * each device in turn (a product that grows from 256^3 until one run lasts
 * 5 ms, best of three), after which devices of one model (same name,
 * vendor, driver, compute units, clock and memory) get the mean of their
 * probes, since what tells them apart is noise. out receives n = vncl_group_size(g) values. Errors:
 * VNCL_ERR_INVALID_ARG (NULL, n different from the size). A device whose
 * probe fails is given the mean of the others (logged as a warning). */
VNCL_API vncl_status vncl_group_speeds(vncl_group *g, double *out, int n);

/* Replaces the speeds (n = size, each finite and > 0), e.g. with rates the
 * application measured on its own work; speeds NULL forgets them, so that
 * the next use probes again. Errors: VNCL_ERR_INVALID_ARG. */
VNCL_API vncl_status vncl_group_set_speeds(vncl_group *g, const double *speeds,
                                           int n);

/* ---- GEMM on host memory, split over the group ----------------------- */

/* C = alpha * op(A) * op(B) + beta * C with A, B and C in host memory, laid
 * out as in vncl_gemm_cl (layout, transposes, leading dimensions in
 * elements; dtype is the type of A, B and C: f32, f64, f16 or bf16). The
 * product is split by blocks of C: row panels (or column panels when C is
 * wider than tall) in proportion to the devices' speeds, every device
 * computing its block with vncl_gemm_cl on its own queue while the next
 * panel of A (or B) is written and the last panel of C read on two transfer
 * queues of its own. Each element of C is summed over all of k by one
 * device, through the path of a single-device call, so the result equals a
 * single-device result within rounding. The call blocks until C is written;
 * A, B and C must not change meanwhile (other threads included).
 * beta == 0: C is not read. m, n or batch 0: nothing to do. C must not
 * overlap A or B. Errors (nothing written): VNCL_ERR_INVALID_ARG (NULL
 * pointers, a layout or transpose that is not one, m, n or k of 2^31 or more,
 * a leading dimension below its minimum, an extent that overflows,
 * overlapping matrices of C in a batch), VNCL_ERR_UNSUPPORTED (i32; f64 on
 * a group with a device that lacks fp64). Errors of a device during the run
 * (VNCL_ERR_OUT_OF_MEMORY, VNCL_ERR_BUILD, VNCL_ERR_OPENCL): the message
 * names the device; C may then be partly written. */
VNCL_API vncl_status vncl_group_gemm(vncl_group *g, vncl_dtype dtype,
                                     vncl_layout layout, vncl_trans ta,
                                     vncl_trans tb, size_t m, size_t n,
                                     size_t k, double alpha, const void *a,
                                     size_t lda, const void *b, size_t ldb,
                                     double beta, void *c, size_t ldc);

/* Strided batched form: matrix i of A starts stride_a elements after matrix
 * i - 1 (0: one A shared by the whole batch), and so for B and C (stride_c
 * must keep the matrices of C apart). Batches of at least twice as many
 * products as devices are split by batch, in proportion to speed; smaller
 * ones by blocks of every product, as vncl_group_gemm. Same errors. */
VNCL_API vncl_status vncl_group_gemm_batched(
    vncl_group *g, vncl_dtype dtype, vncl_layout layout, vncl_trans ta,
    vncl_trans tb, size_t m, size_t n, size_t k, double alpha, const void *a,
    size_t lda, size_t stride_a, const void *b, size_t ldb, size_t stride_b,
    double beta, void *c, size_t ldc, size_t stride_c, size_t batch);

/* How the last GEMM call on the group was split and how long each part
 * took, for load-balance questions (the device-side split of that time into
 * transfers and computation is in each context's vncl_profile_get). */
typedef enum vncl_group_split {
  VNCL_GROUP_SPLIT_NONE = 0,  /* no call yet, or nothing to do */
  VNCL_GROUP_SPLIT_BATCH = 1, /* by products of the batch */
  VNCL_GROUP_SPLIT_ROWS = 2,  /* by row panels of C (row-major view) */
  VNCL_GROUP_SPLIT_COLS = 3   /* by column panels of C (row-major view) */
} vncl_group_split;

typedef struct vncl_group_run {
  vncl_group_split split;
  int devices;                /* the group's size */
  size_t share[VNCL_GROUP_MAX_DEVICES];  /* products, rows or columns */
  int steps[VNCL_GROUP_MAX_DEVICES];     /* pipelined panels per device */
  double seconds[VNCL_GROUP_MAX_DEVICES]; /* host time of each part, from
                                             its first enqueue to its last
                                             completion */
  double speeds[VNCL_GROUP_MAX_DEVICES];  /* the speeds the split used */
  double wall_seconds;        /* the whole call */
} vncl_group_run;

/* The record of the last successful GEMM call (split NONE before any).
 * Errors: VNCL_ERR_INVALID_ARG (NULL). */
VNCL_API vncl_status vncl_group_last_run(vncl_group *g, vncl_group_run *out);

/* ---- device-to-device copies ----------------------------------------- */

/* Copies src into dst, tensors of the same dtype and element count on
 * contexts of the group (shapes may differ). Devices of one group share no
 * OpenCL context, so the data travels through pinned host memory of the
 * source's context, in chunks: the source reads chunk i + 1 while the
 * destination writes chunk i. The copy starts after the work enqueued
 * before the call on both contexts and is complete when the call returns.
 * src and dst on one context: a device copy on its queue. Errors:
 * VNCL_ERR_INVALID_ARG (NULL, dtype or size that differ, a tensor on a
 * context outside the group, src == dst), VNCL_ERR_OUT_OF_MEMORY (pinned
 * memory), VNCL_ERR_OPENCL. */
VNCL_API vncl_status vncl_group_copy(vncl_group *g, vncl_tensor *dst,
                                     const vncl_tensor *src);

#ifdef __cplusplus
}
#endif
#endif
