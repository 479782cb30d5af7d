/*
 * Device groups, shared by group.c (creation, selectors, the speed table),
 * group_gemm.c (GEMM split over the devices) and group_copy.c (copies
 * between devices). docs/multi-device.md describes the design.
 */
#ifndef VNCL_GROUP_INTERNAL_H
#define VNCL_GROUP_INTERNAL_H

#include "runtime/runtime.h"

/* One device of a group. */
typedef struct vncl__group_dev {
  vncl_context *ctx;
  /* Two transfer queues in the context's cl_context (profiling on), so that
   * host-to-device writes, the computation on ctx->queue and device-to-host
   * reads run at once, ordered by events only (as copy engines and streams
   * are used on GPUs). */
  cl_command_queue h2d, d2h;
  /* Pinned host memory of ctx (vncl_host_alloc) that copies from this
   * device go through; made on the first copy, guarded by copy_lock, which
   * is held for the whole of a copy from this device. */
  pthread_mutex_t copy_lock;
  void *pinned;
  size_t pinned_bytes;
} vncl__group_dev;

struct vncl_group {
  int n;
  vncl__group_dev dev[VNCL_GROUP_MAX_DEVICES];
  double step_flops; /* VNCL_GROUP_STEP_FLOPS at creation; 0: the default */
  pthread_mutex_t lock; /* guards everything below */
  bool have_speeds;
  double speeds[VNCL_GROUP_MAX_DEVICES];
  vncl_group_run last;
};

/* The speed table, measured on first use (under g->lock). A group of one
 * device gets 1 without a probe. */
void vncl__group_speeds_get(vncl_group *g, double *out);
/* Stores the record of a finished GEMM call. */
void vncl__group_record(vncl_group *g, const vncl_group_run *r);
/* Whether ctx is one of g's contexts; *index receives its position. */
bool vncl__group_has(const vncl_group *g, const vncl_context *ctx,
                     int *index);

#endif
