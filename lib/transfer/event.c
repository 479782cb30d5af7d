/* vncl_event: the completion of an asynchronous operation, a cl_event with
 * the context it belongs to (held, as a tensor holds it). */
#include <stdlib.h>

#include "transfer/transfer.h"

struct vncl_event {
  vncl_context *ctx;
  cl_event ev; /* NULL only between vncl__event_alloc and _fill */
  vncl__xstatus *status; /* outcome kept by the transfer thread, or NULL */
};

vncl_event *vncl__event_alloc(vncl_context *ctx) {
  vncl_event *e = calloc(1, sizeof *e);
  if (!e) {
    vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory for an event");
    return NULL;
  }
  e->ctx = ctx;
  vncl__context_retain(ctx);
  return e;
}

void vncl__event_fill(vncl_event *e, cl_event ev, vncl__xstatus *status) {
  e->ev = ev;
  e->status = status;
}

void vncl_event_release(vncl_event *e) {
  if (!e) return;
  if (e->ev) clReleaseEvent(e->ev);
  vncl__xstatus_release(e->status);
  vncl_context *ctx = e->ctx;
  free(e);
  vncl__context_release(ctx);
}

static vncl_status failed(const vncl_event *e, cl_int st) {
  return vncl__fail(e->ctx, VNCL_ERR_OPENCL,
                    "the operation behind the event failed: %s (%d)",
                    vncl__cl_error_name(st), (int)st);
}

vncl_status vncl_event_wait(vncl_event *e) {
  if (!e) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "event is NULL");
  cl_int err = clWaitForEvents(1, &e->ev);
  cl_int st = CL_COMPLETE;
  clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                 NULL);
  if (err != CL_SUCCESS) {
    /* The wait itself failed, but the caller must be able to free its
     * buffer once this returns: poll until the transfer has really ended
     * (completed or failed), and let the transfer thread finish with it. */
    while (st > CL_COMPLETE &&
           clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                          sizeof st, &st, NULL) == CL_SUCCESS &&
           st > CL_COMPLETE) {
      struct timespec ts = {0, 200000};
      nanosleep(&ts, NULL);
    }
    vncl__transfer_sync(e->ctx);
  }
  if (st < 0) return failed(e, st);
  if (err != CL_SUCCESS) return vncl__cl_fail(e->ctx, err, "clWaitForEvents");
  vncl__transfer_sync(e->ctx);
  if (e->status && atomic_load(&e->status->err))
    return failed(e, atomic_load(&e->status->err));
  return VNCL_OK;
}

vncl_status vncl_event_status(const vncl_event *e, int *complete) {
  if (!e) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "event is NULL");
  if (!complete)
    return vncl__fail(e->ctx, VNCL_ERR_INVALID_ARG, "complete is NULL");
  cl_int st = CL_QUEUED;
  cl_int err = clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof st, &st, NULL);
  if (err != CL_SUCCESS)
    return vncl__cl_fail(e->ctx, err, "clGetEventInfo(event status)");
  *complete = st == CL_COMPLETE || st < 0;
  if (st == CL_COMPLETE) {
    vncl__transfer_sync(e->ctx);
    if (e->status && atomic_load(&e->status->err))
      st = atomic_load(&e->status->err);
  }
  return st < 0 ? failed(e, st) : VNCL_OK;
}

cl_event vncl_event_cl(const vncl_event *e) { return e ? e->ev : NULL; }
