/*
 * One OpenCL command at a time, for drivers that deadlock otherwise
 * (driver.c's table: PoCL's single-threaded device before PoCL 5.0).
 *
 * Every call of the library's own that enqueues, waits for, flushes or
 * releases OpenCL commands and events goes through an inline wrapper here
 * (by macros over the OpenCL names, like fault.h's), which holds one
 * process-wide recursive lock across the call when the call is for a
 * serial context's objects (its cl_context, found from the queue or the
 * event); other contexts' calls never take it, so a wait on another device
 * cannot hold up, or be held up by, the serial one. In a process without
 * a serial context the wrapper costs one relaxed atomic load; with one, a
 * clGet*Info call to find the call's context. vncl__enqueue (launch.c,
 * the path of kernels, transfers, CLBlast's and clFFT's calls) holds the
 * same lock itself on a serial context. A driver that runs each command inside
 * the call that enqueues it (as that device does) then never has a command
 * waiting on another when it is enqueued, which is what deadlocked.
 *
 * Included by runtime.h after fault.h: in fault-injection builds the
 * wrappers of fault.c take the lock for the calls they wrap, and the
 * macros here cover the rest.
 */
#ifndef VNCL_SERIAL_H
#define VNCL_SERIAL_H

#include <CL/cl.h>
#include <stdbool.h>

/* Take the lock when the call is for a serial context's objects (its
 * cl_context, a queue or an event of it); return whether they did. */
bool vncl__serial_enter_ctx(cl_context c);
bool vncl__serial_enter_queue(cl_command_queue q);
bool vncl__serial_enter_events(cl_uint n, const cl_event *e);
/* Takes the lock unconditionally (vncl__enqueue on a serial context). */
bool vncl__serial_lock(void);
void vncl__serial_leave(bool held);
/* A serial vncl context over c begins or ends (one call each per vncl
 * context; several may share c). */
void vncl__serial_add(cl_context c);
void vncl__serial_remove(cl_context c);

#define VNCL__SERIAL_CALL(enter, type, call) \
  bool held_ = enter;                        \
  type r_ = call;                            \
  vncl__serial_leave(held_);                 \
  return r_

static inline cl_int vncl__s_clEnqueueNDRangeKernel(
    cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o,
    const size_t *g, const size_t *l, cl_uint nw, const cl_event *w,
    cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueNDRangeKernel(q, k, d, o, g, l, nw, w, e));
}
static inline cl_int vncl__s_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m,
                                                  cl_bool b, size_t off,
                                                  size_t n, const void *p,
                                                  cl_uint nw, const cl_event *w,
                                                  cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueWriteBuffer(q, m, b, off, n, p, nw, w, e));
}
static inline cl_int vncl__s_clEnqueueReadBuffer(cl_command_queue q, cl_mem m,
                                                 cl_bool b, size_t off,
                                                 size_t n, void *p, cl_uint nw,
                                                 const cl_event *w,
                                                 cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueReadBuffer(q, m, b, off, n, p, nw, w, e));
}
static inline cl_int vncl__s_clEnqueueWriteBufferRect(
    cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho,
    const size_t *r, size_t brp, size_t bsp, size_t hrp, size_t hsp,
    const void *p, cl_uint nw, const cl_event *w, cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueWriteBufferRect(q, m, b, bo, ho, r, brp, bsp, hrp,
                                             hsp, p, nw, w, e));
}
static inline cl_int vncl__s_clEnqueueReadBufferRect(
    cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho,
    const size_t *r, size_t brp, size_t bsp, size_t hrp, size_t hsp, void *p,
    cl_uint nw, const cl_event *w, cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueReadBufferRect(q, m, b, bo, ho, r, brp, bsp, hrp,
                                            hsp, p, nw, w, e));
}
static inline cl_int vncl__s_clEnqueueFillBuffer(cl_command_queue q, cl_mem m,
                                                 const void *pat, size_t ps,
                                                 size_t off, size_t n,
                                                 cl_uint nw, const cl_event *w,
                                                 cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueFillBuffer(q, m, pat, ps, off, n, nw, w, e));
}
static inline cl_int vncl__s_clEnqueueCopyBuffer(cl_command_queue q, cl_mem s,
                                                 cl_mem d, size_t so,
                                                 size_t dof, size_t n,
                                                 cl_uint nw, const cl_event *w,
                                                 cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueCopyBuffer(q, s, d, so, dof, n, nw, w, e));
}
static inline void *vncl__s_clEnqueueMapBuffer(cl_command_queue q, cl_mem m,
                                               cl_bool b, cl_map_flags f,
                                               size_t off, size_t n, cl_uint nw,
                                               const cl_event *w, cl_event *e,
                                               cl_int *err) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), void *,
                    clEnqueueMapBuffer(q, m, b, f, off, n, nw, w, e, err));
}
static inline cl_int vncl__s_clEnqueueUnmapMemObject(cl_command_queue q,
                                                     cl_mem m, void *p,
                                                     cl_uint nw,
                                                     const cl_event *w,
                                                     cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueUnmapMemObject(q, m, p, nw, w, e));
}
static inline cl_int vncl__s_clEnqueueMarkerWithWaitList(cl_command_queue q,
                                                         cl_uint nw,
                                                         const cl_event *w,
                                                         cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueMarkerWithWaitList(q, nw, w, e));
}
static inline cl_int vncl__s_clEnqueueBarrierWithWaitList(cl_command_queue q,
                                                          cl_uint nw,
                                                          const cl_event *w,
                                                          cl_event *e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int,
                    clEnqueueBarrierWithWaitList(q, nw, w, e));
}
static inline cl_int vncl__s_clWaitForEvents(cl_uint n, const cl_event *l) {
  VNCL__SERIAL_CALL(vncl__serial_enter_events(n, l), cl_int,
                    clWaitForEvents(n, l));
}
static inline cl_int vncl__s_clFinish(cl_command_queue q) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int, clFinish(q));
}
static inline cl_int vncl__s_clFlush(cl_command_queue q) {
  VNCL__SERIAL_CALL(vncl__serial_enter_queue(q), cl_int, clFlush(q));
}
static inline cl_int vncl__s_clReleaseEvent(cl_event e) {
  VNCL__SERIAL_CALL(vncl__serial_enter_events(1, &e), cl_int,
                    clReleaseEvent(e));
}
static inline cl_int vncl__s_clSetUserEventStatus(cl_event e, cl_int s) {
  VNCL__SERIAL_CALL(vncl__serial_enter_events(1, &e), cl_int,
                    clSetUserEventStatus(e, s));
}
#undef VNCL__SERIAL_CALL

#if !defined(VNCL_FAULT_IMPL) && !defined(VNCL_FAULT_CLIENT)
/* Where fault.h routes a name already, its wrapper takes the lock. */
#ifndef clEnqueueNDRangeKernel
#define clEnqueueNDRangeKernel vncl__s_clEnqueueNDRangeKernel
#endif
#ifndef clEnqueueWriteBuffer
#define clEnqueueWriteBuffer vncl__s_clEnqueueWriteBuffer
#endif
#ifndef clEnqueueReadBuffer
#define clEnqueueReadBuffer vncl__s_clEnqueueReadBuffer
#endif
#ifndef clEnqueueFillBuffer
#define clEnqueueFillBuffer vncl__s_clEnqueueFillBuffer
#endif
#ifndef clEnqueueCopyBuffer
#define clEnqueueCopyBuffer vncl__s_clEnqueueCopyBuffer
#endif
#ifndef clEnqueueMapBuffer
#define clEnqueueMapBuffer vncl__s_clEnqueueMapBuffer
#endif
#ifndef clWaitForEvents
#define clWaitForEvents vncl__s_clWaitForEvents
#endif
#ifndef clFinish
#define clFinish vncl__s_clFinish
#endif
#define clEnqueueWriteBufferRect vncl__s_clEnqueueWriteBufferRect
#define clEnqueueReadBufferRect vncl__s_clEnqueueReadBufferRect
#define clEnqueueUnmapMemObject vncl__s_clEnqueueUnmapMemObject
#define clEnqueueMarkerWithWaitList vncl__s_clEnqueueMarkerWithWaitList
#define clEnqueueBarrierWithWaitList vncl__s_clEnqueueBarrierWithWaitList
#define clFlush vncl__s_clFlush
#define clReleaseEvent vncl__s_clReleaseEvent
#define clSetUserEventStatus vncl__s_clSetUserEventStatus

#endif /* !VNCL_FAULT_IMPL && !VNCL_FAULT_CLIENT */
#endif
