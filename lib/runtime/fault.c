/* The wrappers behind lib/fault.h. In a normal build only the counters'
 * API exists (and does nothing useful); with -DVNCL_FAULT_INJECTION every
 * wrapped call counts itself and fails when armed. */
#define VNCL_FAULT_IMPL
#include "runtime/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static _Atomic unsigned long calls[VNCL_FAULT_KINDS];
static _Atomic unsigned long armed_at[VNCL_FAULT_KINDS];
static _Atomic int fired;

unsigned long vncl__fault_calls(vncl__fault_kind k) { return calls[k]; }

void vncl__fault_arm(vncl__fault_kind k, unsigned long n) {
  fired = 0;
  armed_at[k] = n ? calls[k] + n : 0;
}

void vncl__fault_reset(void) {
  for (int i = 0; i < VNCL_FAULT_KINDS; i++) calls[i] = armed_at[i] = 0;
  fired = 0;
}

int vncl__fault_fired(void) { return fired; }

const char *vncl__fault_kind_name(vncl__fault_kind k) {
  static const char *names[VNCL_FAULT_KINDS] = {
      "host-alloc", "buffer", "build", "kernel", "enqueue",
      "map",        "wait",   "file",  "setup"};
  return (unsigned)k < VNCL_FAULT_KINDS ? names[k] : "?";
}

#ifdef VNCL_FAULT_INJECTION
/* True when this call is the armed one. */
static int hit(vncl__fault_kind k) {
  unsigned long n = atomic_fetch_add(&calls[k], 1) + 1;
  if (armed_at[k] && n == armed_at[k]) {
    fired = 1;
    armed_at[k] = 0;
    return 1;
  }
  return 0;
}

int vncl__fault_point(vncl__fault_kind k) { return hit(k); }
#else
int vncl__fault_point(vncl__fault_kind k) {
  (void)k;
  return 0;
}
#endif

#ifdef VNCL_FAULT_INJECTION

#define FAIL_RET(kind, err, value) \
  do {                             \
    if (hit(kind)) {               \
      if (errcode_ret) *errcode_ret = (err); \
      return value;                \
    }                              \
  } while (0)

void *vncl__fi_malloc(size_t n) {
  return hit(VNCL_FAULT_HOST_ALLOC) ? NULL : malloc(n);
}
void *vncl__fi_calloc(size_t n, size_t s) {
  return hit(VNCL_FAULT_HOST_ALLOC) ? NULL : calloc(n, s);
}
void *vncl__fi_realloc(void *p, size_t n) {
  return hit(VNCL_FAULT_HOST_ALLOC) ? NULL : realloc(p, n);
}
int vncl__fi_mkstemp(char *tmpl) {
  if (hit(VNCL_FAULT_FILE)) {
    errno = ENOSPC;
    return -1;
  }
  return mkstemp(tmpl);
}
FILE *vncl__fi_fopen(const char *path, const char *mode) {
  if (mode[0] != 'r' && hit(VNCL_FAULT_FILE)) {
    errno = ENOSPC;
    return NULL;
  }
  return fopen(path, mode);
}
int vncl__fi_rename(const char *a, const char *b) {
  if (hit(VNCL_FAULT_FILE)) {
    errno = EIO;
    return -1;
  }
  return rename(a, b);
}
int vncl__fi_renameat(int da, const char *a, int db, const char *b) {
  if (hit(VNCL_FAULT_FILE)) {
    errno = EIO;
    return -1;
  }
  return renameat(da, a, db, b);
}
int vncl__fi_openat(int dfd, const char *path, int flags, ...) {
  int mode = 0;
  if (flags & O_CREAT) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, int);
    va_end(ap);
  }
  if ((flags & (O_WRONLY | O_RDWR)) && hit(VNCL_FAULT_FILE)) {
    errno = ENOSPC;
    return -1;
  }
  return openat(dfd, path, flags, mode);
}
cl_mem vncl__fi_clCreateBuffer(cl_context c, cl_mem_flags f, size_t n, void *h,
                               cl_int *errcode_ret) {
  FAIL_RET(VNCL_FAULT_BUFFER, CL_MEM_OBJECT_ALLOCATION_FAILURE, NULL);
  return clCreateBuffer(c, f, n, h, errcode_ret);
}
cl_program vncl__fi_clCreateProgramWithSource(cl_context c, cl_uint n,
                                              const char **s, const size_t *l,
                                              cl_int *errcode_ret) {
  FAIL_RET(VNCL_FAULT_BUILD, CL_OUT_OF_HOST_MEMORY, NULL);
  return clCreateProgramWithSource(c, n, s, l, errcode_ret);
}
cl_program vncl__fi_clCreateProgramWithBinary(
    cl_context c, cl_uint n, const cl_device_id *d, const size_t *l,
    const unsigned char **b, cl_int *st, cl_int *errcode_ret) {
  FAIL_RET(VNCL_FAULT_BUILD, CL_INVALID_BINARY, NULL);
  return clCreateProgramWithBinary(c, n, d, l, b, st, errcode_ret);
}
cl_int vncl__fi_clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d,
                               const char *o,
                               void(CL_CALLBACK *cb)(cl_program, void *),
                               void *u) {
  if (hit(VNCL_FAULT_BUILD)) return CL_BUILD_PROGRAM_FAILURE;
  return clBuildProgram(p, n, d, o, cb, u);
}
cl_kernel vncl__fi_clCreateKernel(cl_program p, const char *name,
                                  cl_int *errcode_ret) {
  FAIL_RET(VNCL_FAULT_KERNEL, CL_OUT_OF_RESOURCES, NULL);
  return clCreateKernel(p, name, errcode_ret);
}
cl_int vncl__fi_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
                                       cl_uint d, const size_t *o,
                                       const size_t *g, const size_t *l,
                                       cl_uint nw, const cl_event *w,
                                       cl_event *e) {
  if (hit(VNCL_FAULT_ENQUEUE)) return CL_OUT_OF_RESOURCES;
  return vncl__s_clEnqueueNDRangeKernel(q, k, d, o, g, l, nw, w, e);
}
cl_int vncl__fi_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                                     size_t o, size_t n, const void *p,
                                     cl_uint nw, const cl_event *w,
                                     cl_event *e) {
  if (hit(VNCL_FAULT_ENQUEUE)) return CL_OUT_OF_RESOURCES;
  return vncl__s_clEnqueueWriteBuffer(q, m, b, o, n, p, nw, w, e);
}
cl_int vncl__fi_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                                    size_t o, size_t n, void *p, cl_uint nw,
                                    const cl_event *w, cl_event *e) {
  if (hit(VNCL_FAULT_ENQUEUE)) return CL_OUT_OF_RESOURCES;
  return vncl__s_clEnqueueReadBuffer(q, m, b, o, n, p, nw, w, e);
}
cl_int vncl__fi_clEnqueueFillBuffer(cl_command_queue q, cl_mem m,
                                    const void *pat, size_t ps, size_t o,
                                    size_t n, cl_uint nw, const cl_event *w,
                                    cl_event *e) {
  if (hit(VNCL_FAULT_ENQUEUE)) return CL_OUT_OF_RESOURCES;
  return vncl__s_clEnqueueFillBuffer(q, m, pat, ps, o, n, nw, w, e);
}
cl_int vncl__fi_clEnqueueCopyBuffer(cl_command_queue q, cl_mem a, cl_mem b,
                                    size_t oa, size_t ob, size_t n, cl_uint nw,
                                    const cl_event *w, cl_event *e) {
  if (hit(VNCL_FAULT_ENQUEUE)) return CL_OUT_OF_RESOURCES;
  return vncl__s_clEnqueueCopyBuffer(q, a, b, oa, ob, n, nw, w, e);
}
void *vncl__fi_clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool b,
                                  cl_map_flags f, size_t o, size_t n,
                                  cl_uint nw, const cl_event *w, cl_event *e,
                                  cl_int *errcode_ret) {
  FAIL_RET(VNCL_FAULT_MAP, CL_MAP_FAILURE, NULL);
  return vncl__s_clEnqueueMapBuffer(q, m, b, f, o, n, nw, w, e, errcode_ret);
}
cl_int vncl__fi_clWaitForEvents(cl_uint n, const cl_event *e) {
  if (hit(VNCL_FAULT_WAIT)) return CL_OUT_OF_RESOURCES;
  return vncl__s_clWaitForEvents(n, e);
}
cl_int vncl__fi_clFinish(cl_command_queue q) {
  if (hit(VNCL_FAULT_WAIT)) {
    vncl__s_clFinish(q); /* the work still completes; only the report fails */
    return CL_OUT_OF_RESOURCES;
  }
  return vncl__s_clFinish(q);
}
cl_context vncl__fi_clCreateContext(
    const cl_context_properties *p, cl_uint n, const cl_device_id *d,
    void(CL_CALLBACK *cb)(const char *, const void *, size_t, void *), void *u,
    cl_int *errcode_ret) {
  FAIL_RET(VNCL_FAULT_SETUP, CL_OUT_OF_HOST_MEMORY, NULL);
  return clCreateContext(p, n, d, cb, u, errcode_ret);
}
cl_command_queue vncl__fi_clCreateCommandQueue(cl_context c, cl_device_id d,
                                               cl_command_queue_properties p,
                                               cl_int *errcode_ret) {
  FAIL_RET(VNCL_FAULT_SETUP, CL_OUT_OF_RESOURCES, NULL);
  return clCreateCommandQueue(c, d, p, errcode_ret);
}
#endif
