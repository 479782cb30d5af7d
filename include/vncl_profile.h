/* vncl profiling API: included by vncl.h; see the conventions at the top of
 * vncl.h.
 *
 * Every kernel and transfer vncl enqueues on a context is timed from its
 * OpenCL profiling events and attributed to an operation ("gemm", "write",
 * "read", "fft", ...). A transfer that needs no command (a tensor in
 * fine-grained SVM, copied by the host once the queue is idle) is timed on
 * the host's clock and counted as one command of its operation. The figures answer the question users ask first when
 * a GPU is slow: is the device busy, or starved by transfers and the host?
 * Set VNCL_PROFILE=1 to have a summary table printed to stderr when each
 * context is destroyed (the only output the library makes unasked, and only
 * when asked through that variable). */
#ifndef VNCL_PROFILE_H
#define VNCL_PROFILE_H

#ifdef __cplusplus
extern "C" {
#endif

#define VNCL_PROFILE_MAX_OPS 32

typedef struct vncl_profile_op {
  char name[32];          /* operation name */
  int is_transfer;        /* moves data between host and device */
  uint64_t count;         /* commands timed */
  double device_seconds;  /* sum of the commands' device times */
  double bytes;           /* bytes the commands moved, as declared */
  double flops;           /* floating-point operations, as declared */
} vncl_profile_op;

typedef struct vncl_profile {
  double wall_seconds;     /* host time since creation or the last reset */
  double busy_seconds;     /* device time covered by at least one command */
  double busy_fraction;    /* busy / wall: under 0.5 means the device waits */
  double transfer_seconds; /* device time of transfer commands */
  double compute_seconds;  /* device time of everything else */
  uint64_t commands;       /* commands timed */
  uint64_t untimed;        /* commands whose times the driver did not give */
  int num_ops;             /* entries used in ops[] */
  vncl_profile_op ops[VNCL_PROFILE_MAX_OPS]; /* by device time, largest first */
} vncl_profile;

/* Waits for the queue, collects the times of every finished command and fills
 * *out for the window since the context's creation or the last reset. A
 * context created from an application queue without
 * CL_QUEUE_PROFILING_ENABLE reports counts but no times (untimed). Errors:
 * VNCL_ERR_INVALID_ARG (NULL), VNCL_ERR_OPENCL. Thread-safe. */
VNCL_API vncl_status vncl_profile_get(vncl_context *ctx, vncl_profile *out);

/* Starts a new window: clears every figure (waiting for the queue first so
 * that earlier commands do not leak into it). */
VNCL_API vncl_status vncl_profile_reset(vncl_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
