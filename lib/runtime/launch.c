/* The one place where vncl enqueues kernels. */
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

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
        cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, num_wait, wait,
                                                 event);
        if (err) return vncl__cl_fail(ctx, err, "clEnqueueMarkerWithWaitList");
      }
      return VNCL_OK;
    }
  /* The profiler needs an event even when the caller wants none. */
  cl_event local_ev = NULL;
  cl_event *ev = event ? event : ctx->profiler ? &local_ev : NULL;
  cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, dims, NULL, global, local,
                                      num_wait, num_wait ? wait : NULL, ev);
  if (err != CL_SUCCESS) {
    char what[128];
    snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s)", op);
    return vncl__cl_fail(ctx, err, what);
  }
  if (ev) vncl__profile_event(ctx, op, *ev, bytes, flops, false);
  if (local_ev) clReleaseEvent(local_ev);
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
