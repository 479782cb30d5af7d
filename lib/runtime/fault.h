/*
 * Fault injection, compiled in only with -DVNCL_FAULT_INJECTION (the
 * `make check-fault` build). Every OpenCL call, host allocation and cache
 * file write that the library makes is routed through a wrapper that can be
 * told to fail the Nth call of its kind, so that tests can walk N over every
 * call of a flow and check each failure is clean: a negative status with a
 * message, no leak, a context that still works or destroys cleanly.
 *
 * The routing is done by macros over the OpenCL and libc names, so library
 * code is written as usual and the normal build has no cost at all.
 */
#ifndef VNCL_FAULT_H
#define VNCL_FAULT_H

typedef enum vncl__fault_kind {
  VNCL_FAULT_HOST_ALLOC = 0, /* malloc, calloc, realloc */
  VNCL_FAULT_BUFFER,         /* clCreateBuffer */
  VNCL_FAULT_BUILD,          /* clCreateProgramWith*, clBuildProgram */
  VNCL_FAULT_KERNEL,         /* clCreateKernel */
  VNCL_FAULT_ENQUEUE,        /* every vncl__enqueue command (kernels, reads,
                                writes, CLBlast, clFFT), clEnqueue{Read,Write,
                                Fill,Copy}* made directly */
  VNCL_FAULT_MAP,            /* clEnqueueMapBuffer */
  VNCL_FAULT_WAIT,           /* clWaitForEvents, clFinish */
  VNCL_FAULT_FILE,           /* mkstemp, fopen/openat for writing, rename(at) */
  VNCL_FAULT_SETUP,          /* clCreateContext, clCreateCommandQueue */
  VNCL_FAULT_KINDS
} vncl__fault_kind;

/* Calls of `kind` since the last reset. */
unsigned long vncl__fault_calls(vncl__fault_kind kind);
/* Makes the nth call of `kind` from now fail (n >= 1); 0 disarms. */
void vncl__fault_arm(vncl__fault_kind kind, unsigned long n);
/* Resets every counter and disarms. */
void vncl__fault_reset(void);
/* Whether the armed fault has fired since the last arm. */
int vncl__fault_fired(void);
const char *vncl__fault_kind_name(vncl__fault_kind kind);
/* One call of `kind` that is not an OpenCL or libc call the macros below
 * can wrap (vncl__enqueue's commands, a library's among them): counts it
 * and returns 1 when it is the armed one. Always 0 in a normal build. */
int vncl__fault_point(vncl__fault_kind kind);

#if defined(VNCL_FAULT_INJECTION) && !defined(VNCL_FAULT_IMPL) && \
    !defined(VNCL_FAULT_CLIENT)
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
void *vncl__fi_malloc(size_t n);
void *vncl__fi_calloc(size_t n, size_t s);
void *vncl__fi_realloc(void *p, size_t n);
int vncl__fi_mkstemp(char *tmpl);
FILE *vncl__fi_fopen(const char *path, const char *mode);
int vncl__fi_rename(const char *a, const char *b);
int vncl__fi_renameat(int da, const char *a, int db, const char *b);
int vncl__fi_openat(int dfd, const char *path, int flags, ...);
cl_mem vncl__fi_clCreateBuffer(cl_context, cl_mem_flags, size_t, void *,
                               cl_int *);
cl_program vncl__fi_clCreateProgramWithSource(cl_context, cl_uint,
                                              const char **, const size_t *,
                                              cl_int *);
cl_program vncl__fi_clCreateProgramWithBinary(cl_context, cl_uint,
                                              const cl_device_id *,
                                              const size_t *,
                                              const unsigned char **, cl_int *,
                                              cl_int *);
cl_int vncl__fi_clBuildProgram(cl_program, cl_uint, const cl_device_id *,
                               const char *,
                               void(CL_CALLBACK *)(cl_program, void *),
                               void *);
cl_kernel vncl__fi_clCreateKernel(cl_program, const char *, cl_int *);
cl_int vncl__fi_clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint,
                                       const size_t *, const size_t *,
                                       const size_t *, cl_uint,
                                       const cl_event *, cl_event *);
cl_int vncl__fi_clEnqueueWriteBuffer(cl_command_queue, cl_mem, cl_bool, size_t,
                                     size_t, const void *, cl_uint,
                                     const cl_event *, cl_event *);
cl_int vncl__fi_clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t,
                                    size_t, void *, cl_uint, const cl_event *,
                                    cl_event *);
cl_int vncl__fi_clEnqueueFillBuffer(cl_command_queue, cl_mem, const void *,
                                    size_t, size_t, size_t, cl_uint,
                                    const cl_event *, cl_event *);
cl_int vncl__fi_clEnqueueCopyBuffer(cl_command_queue, cl_mem, cl_mem, size_t,
                                    size_t, size_t, cl_uint, const cl_event *,
                                    cl_event *);
void *vncl__fi_clEnqueueMapBuffer(cl_command_queue, cl_mem, cl_bool,
                                  cl_map_flags, size_t, size_t, cl_uint,
                                  const cl_event *, cl_event *, cl_int *);
cl_int vncl__fi_clWaitForEvents(cl_uint, const cl_event *);
cl_int vncl__fi_clFinish(cl_command_queue);
cl_context vncl__fi_clCreateContext(const cl_context_properties *, cl_uint,
                                    const cl_device_id *,
                                    void(CL_CALLBACK *)(const char *,
                                                        const void *, size_t,
                                                        void *),
                                    void *, cl_int *);
cl_command_queue vncl__fi_clCreateCommandQueue(cl_context, cl_device_id,
                                               cl_command_queue_properties,
                                               cl_int *);
#define malloc vncl__fi_malloc
#define calloc vncl__fi_calloc
#define realloc vncl__fi_realloc
#define mkstemp vncl__fi_mkstemp
#define fopen vncl__fi_fopen
#define rename vncl__fi_rename
#define renameat vncl__fi_renameat
#define openat vncl__fi_openat
#define clCreateBuffer vncl__fi_clCreateBuffer
#define clCreateProgramWithSource vncl__fi_clCreateProgramWithSource
#define clCreateProgramWithBinary vncl__fi_clCreateProgramWithBinary
#define clBuildProgram vncl__fi_clBuildProgram
#define clCreateKernel vncl__fi_clCreateKernel
#define clEnqueueNDRangeKernel vncl__fi_clEnqueueNDRangeKernel
#define clEnqueueWriteBuffer vncl__fi_clEnqueueWriteBuffer
#define clEnqueueReadBuffer vncl__fi_clEnqueueReadBuffer
#define clEnqueueFillBuffer vncl__fi_clEnqueueFillBuffer
#define clEnqueueCopyBuffer vncl__fi_clEnqueueCopyBuffer
#define clEnqueueMapBuffer vncl__fi_clEnqueueMapBuffer
#define clWaitForEvents vncl__fi_clWaitForEvents
#define clFinish vncl__fi_clFinish
#define clCreateContext vncl__fi_clCreateContext
#define clCreateCommandQueue vncl__fi_clCreateCommandQueue
#endif

#endif
