/* The one path of every command vncl puts on a queue (vncl__enqueue): its
 * kernels, the transfers' reads and writes, group GEMM's rectangle
 * transfers, and CLBlast's and clFFT's calls. Here, and only here, a command
 * meets fault injection (one VNCL_FAULT_ENQUEUE point per command) and the
 * profiler (its event, made when the caller wants none).
 *
 * This file's own OpenCL enqueues are not routed through fault.h's
 * wrappers: vncl__enqueue is their fault point, so each command counts
 * once. */
#define VNCL_FAULT_CLIENT
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

cl_int vncl__enqueue(vncl_context *ctx, const vncl__cmd *c,
                     vncl__enqueue_fn fn, void *arg, cl_event *event) {
  /* The profiler needs an event even when the caller wants none. */
  cl_event local = NULL;
  cl_event *ev = event ? event : ctx->profiler ? &local : NULL;
  if (ev) *ev = NULL;
#ifdef VNCL_FAULT_INJECTION
  if (vncl__fault_point(VNCL_FAULT_ENQUEUE)) return CL_OUT_OF_RESOURCES;
#endif
  /* Serial drivers (serial.h): the command under the lock, and no lock of
   * vncl's taken while it is held (the profiler's takes it the other way
   * round, releasing events). */
  bool held = ctx->info.serial_driver && vncl__serial_lock();
  cl_int err = fn(arg, ev);
  if (err != CL_SUCCESS && ev && *ev) { /* a library may leave one behind */
    clReleaseEvent(*ev);
    *ev = NULL;
  }
  vncl__serial_leave(held);
  if (err != CL_SUCCESS) return err;
  if (ev && *ev)
    vncl__profile_event(ctx, c->op, *ev, c->bytes, c->flops, c->transfer);
  if (local) {
    held = ctx->info.serial_driver && vncl__serial_lock();
    clReleaseEvent(local);
    vncl__serial_leave(held);
  }
  return CL_SUCCESS;
}

/* ---- kernels -------------------------------------------------------------- */

typedef struct ndrange {
  cl_command_queue q;
  cl_kernel k;
  cl_uint dims;
  const size_t *global, *local;
  cl_uint num_wait;
  const cl_event *wait;
} ndrange;

static cl_int enqueue_ndrange(void *arg, cl_event *ev) {
  const ndrange *r = arg;
  return clEnqueueNDRangeKernel(r->q, r->k, r->dims, NULL, r->global, r->local,
                                r->num_wait, r->num_wait ? r->wait : NULL, ev);
}

vncl_status vncl__launch(vncl_context *ctx, const char *op, cl_kernel k,
                         cl_uint dims, const size_t *global,
                         const size_t *local, cl_uint num_wait,
                         const cl_event *wait, cl_event *event) {
  return vncl__launch_work(ctx, op, k, dims, global, local, num_wait, wait,
                           event, 0, 0);
}

vncl_status vncl__launch_work(vncl_context *ctx, const char *op, cl_kernel k,
                              cl_uint dims, const size_t *global,
                              const size_t *local, cl_uint num_wait,
                              const cl_event *wait, cl_event *event,
                              double flops, double bytes) {
  for (cl_uint i = 0; i < dims; i++)
    if (global[i] == 0) { /* nothing to run; keep the event contract */
      if (event) {
        bool held = ctx->info.serial_driver && vncl__serial_lock();
        cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, num_wait, wait,
                                                 event);
        vncl__serial_leave(held);
        if (err) return vncl__cl_fail(ctx, err, "clEnqueueMarkerWithWaitList");
      }
      return VNCL_OK;
    }
  ndrange r = {ctx->queue, k, dims, global, local, num_wait, wait};
  vncl__cmd c = {op, flops, bytes, false};
  cl_int err = vncl__enqueue(ctx, &c, enqueue_ndrange, &r, event);
  if (err != CL_SUCCESS) {
    char what[128];
    snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s)", op);
    return vncl__cl_fail(ctx, err, what);
  }
  return VNCL_OK;
}

/* ---- transfers ------------------------------------------------------------ */

typedef struct rw {
  cl_command_queue q;
  bool write;
  cl_mem mem;
  cl_bool block;
  size_t offset, bytes;
  void *host;
  cl_uint num_wait;
  const cl_event *wait;
} rw;

static cl_int enqueue_rw(void *arg, cl_event *ev) {
  const rw *t = arg;
  const cl_event *w = t->num_wait ? t->wait : NULL;
  return t->write ? clEnqueueWriteBuffer(t->q, t->mem, t->block, t->offset,
                                         t->bytes, t->host, t->num_wait, w, ev)
                  : clEnqueueReadBuffer(t->q, t->mem, t->block, t->offset,
                                        t->bytes, t->host, t->num_wait, w, ev);
}

cl_int vncl__enqueue_rw(vncl_context *ctx, cl_command_queue q, const char *op,
                        bool write, cl_mem mem, cl_bool block, size_t offset,
                        size_t bytes, void *host, cl_uint num_wait,
                        const cl_event *wait, cl_event *event) {
  rw t = {q, write, mem, block, offset, bytes, host, num_wait, wait};
  vncl__cmd c = {op, 0, (double)bytes, true};
  return vncl__enqueue(ctx, &c, enqueue_rw, &t, event);
}

typedef struct copy {
  cl_command_queue q;
  cl_mem src, dst;
  size_t src_off, dst_off, bytes;
  cl_uint num_wait;
  const cl_event *wait;
} copy;

static cl_int enqueue_copy(void *arg, cl_event *ev) {
  const copy *t = arg;
  return clEnqueueCopyBuffer(t->q, t->src, t->dst, t->src_off, t->dst_off,
                             t->bytes, t->num_wait,
                             t->num_wait ? t->wait : NULL, ev);
}

cl_int vncl__enqueue_copy(vncl_context *ctx, cl_command_queue q,
                          const char *op, cl_mem src, cl_mem dst,
                          size_t src_off, size_t dst_off, size_t bytes,
                          cl_uint num_wait, const cl_event *wait,
                          cl_event *event) {
  copy t = {q, src, dst, src_off, dst_off, bytes, num_wait, wait};
  vncl__cmd c = {op, 0, 2.0 * (double)bytes, true}; /* read and written */
  return vncl__enqueue(ctx, &c, enqueue_copy, &t, event);
}

typedef struct rect {
  cl_command_queue q;
  bool write;
  cl_mem mem;
  const size_t *borg, *horg, *region;
  size_t brow, bslice, hrow, hslice;
  void *host;
  cl_uint num_wait;
  const cl_event *wait;
} rect;

static cl_int enqueue_rect(void *arg, cl_event *ev) {
  const rect *t = arg;
  const cl_event *w = t->num_wait ? t->wait : NULL;
  return t->write
             ? clEnqueueWriteBufferRect(t->q, t->mem, CL_FALSE, t->borg,
                                        t->horg, t->region, t->brow,
                                        t->bslice, t->hrow, t->hslice, t->host,
                                        t->num_wait, w, ev)
             : clEnqueueReadBufferRect(t->q, t->mem, CL_FALSE, t->borg,
                                       t->horg, t->region, t->brow, t->bslice,
                                       t->hrow, t->hslice, t->host,
                                       t->num_wait, w, ev);
}

cl_int vncl__enqueue_rect(vncl_context *ctx, cl_command_queue q,
                          const char *op, bool write, cl_mem mem,
                          const size_t *borg, const size_t *horg,
                          const size_t *region, size_t brow, size_t bslice,
                          size_t hrow, size_t hslice, void *host,
                          cl_uint num_wait, const cl_event *wait,
                          cl_event *event) {
  rect t = {q,    write,  mem,    borg, horg,     region, brow,
            bslice, hrow, hslice, host, num_wait, wait};
  double bytes = (double)region[0] * region[1] * region[2];
  vncl__cmd c = {op, 0, bytes, true};
  return vncl__enqueue(ctx, &c, enqueue_rect, &t, event);
}

/* ---- arguments ------------------------------------------------------------ */

vncl_status vncl__set_args(vncl_context *ctx, cl_kernel k, int n, ...) {
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    size_t size = va_arg(ap, size_t);
    const void *ptr = va_arg(ap, const void *);
    cl_int err = clSetKernelArg(k, (cl_uint)i, size, ptr);
    if (err != CL_SUCCESS) {
      va_end(ap);
      char what[64];
      snprintf(what, sizeof what, "clSetKernelArg(%d)", i);
      return vncl__cl_fail(ctx, err, what);
    }
  }
  va_end(ap);
  return VNCL_OK;
}

vncl__targ vncl__real_arg(vncl_dtype dt, double v) {
  vncl__targ a;
  memset(&a, 0, sizeof a);
  if (dt == VNCL_F64) {
    a.size = sizeof(cl_double);
    a.v.d = v;
  } else {
    a.size = sizeof(cl_float);
    a.v.f = (cl_float)v;
  }
  return a;
}
