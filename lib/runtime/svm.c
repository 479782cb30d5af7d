/* Tensors the host can reach without a command: on a device that shares
 * host memory and has fine-grained buffer SVM (OpenCL 2.0), vncl allocates
 * its buffers with clSVMAlloc and wraps each in a cl_mem
 * (CL_MEM_USE_HOST_PTR on the SVM pointer: the buffer then uses the SVM
 * allocation as its storage, OpenCL 2.0 section 5.2.1). Kernels, CLBlast
 * and clFFT see an ordinary cl_mem. The host reads and writes the bytes in
 * place once the queue has finished the commands before it (fine-grained
 * buffers are coherent at those points, OpenCL 2.0 section 3.3.6), so a
 * blocking transfer costs one host copy and no driver command. On PoCL each
 * command costs a round trip of 25-75 us to its worker threads, which held
 * 1 MiB transfers under 0.4x memcpy (docs/transfers.md, "Tensors in SVM").
 *
 * This file alone is built against the OpenCL 2.0 API (the rest of vncl
 * stays on 1.2 so that it runs on 1.2 platforms); nothing here is called
 * unless the device reports version 2.0 or later and the capability. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 200
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#include <CL/cl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "runtime/runtime.h"

/* "OpenCL 2.1 ..." -> 2; 0 when the string is not of that form. */
static int major_version(const char *s) {
  if (strncmp(s, "OpenCL ", 7)) return 0;
  return atoi(s + 7);
}

/* Which devices keep tensors in fine-grained SVM (where they have it): the
 * device-rule matcher picks the row. */
static const struct svm_policy {
  vncl__device_rule rule;
  bool use;
} svm_rows[] = {
    /* CPU devices: the host's own memory. Measured on PoCL 3.1 (pthread
     * device, 2-core Xeon): kernels over an SVM buffer run as over an
     * ordinary one, and a 1 MiB blocking transfer takes 0.84-0.95x memcpy
     * instead of 0.18-0.40x (docs/transfers.md, "Tensors in SVM"). */
    {{NULL, VNCL_DEVICE_CPU, VNCL__RULE_UNIFIED, 0, VNCL__RULE_ANY,
      VNCL__RULE_ANY, 0},
     true},
    /* Everything else, integrated GPUs included: on some (AMD APUs)
     * fine-grained memory is coherent by bypassing the GPU's caches, so
     * kernels could slow down; unmeasured here (no GPU), so off. A
     * discrete device would reach such memory across the bus. */
    {{NULL, 0, VNCL__RULE_ANY, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, 0}, false},
};

bool vncl__svm_choose(vncl_context *ctx) {
  const char *v = vncl__getenv("VNCL_TENSOR_MEMORY");
  if (v && !strcasecmp(v, "buffer")) return false;
  bool forced = v && !strcasecmp(v, "svm");
  if (v && !forced && strcasecmp(v, "auto"))
    vncl__log(VNCL_LOG_WARN, "VNCL_TENSOR_MEMORY='%s' ignored: use svm, "
              "buffer or auto", v);
  /* Never across a bus, even when forced. */
  if (!ctx->info.unified_memory) return false;
  if (!forced) {
    vncl__device_key k;
    vncl__device_key_of(&ctx->info, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, &k);
    int i = vncl__rule_pick(svm_rows, sizeof svm_rows / sizeof *svm_rows,
                            sizeof *svm_rows, &k, -1);
    if (i < 0 || !svm_rows[i].use) return false;
  }
  if (major_version(ctx->info.opencl_version) < 2 ||
      major_version(ctx->info.platform_version) < 2)
    return false;
  cl_device_svm_capabilities caps = 0;
  if (clGetDeviceInfo(ctx->device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps,
                      &caps, NULL) != CL_SUCCESS)
    return false;
  return (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
}

/* Frees the SVM allocation once OpenCL destroys the buffer over it, which
 * it does only after the last command using the buffer has finished. */
typedef struct svm_block {
  cl_context ctx;
  void *ptr;
} svm_block;

static void CL_CALLBACK svm_release(cl_mem m, void *arg) {
  (void)m;
  svm_block *b = arg;
  clSVMFree(b->ctx, b->ptr);
  free(b);
}

/* Large tensors on 2 MiB pages where the kernel gives them on request
 * (Linux with transparent huge pages in "madvise" mode, as on this
 * project's Debian hosts): the whole 2 MiB-aligned stretches of an
 * allocation of VNCL__HUGE_MIN bytes or more are advised before anything
 * touches them, so that the allocator's early fill maps them as huge
 * pages. On the 2-core Xeon guest the ops suite's rates gained 1.00-1.47x,
 * median 1.13x, in three alternated pairs (add 64 Mi 29-30 -> 34-40 GB/s,
 * the f32->bf16 cast 23-24 -> 32-35, transpose 22-25 -> 25-28), a layer's
 * x W at 32 x 4096 x 4096 ran 8.8-9.8 -> 7.6-8.3 ms, and the transfer and
 * FFT suites held (docs/transfers.md, "Huge pages"). Advice
 * only: where the kernel has none or refuses it nothing changes; where
 * THP is "always" the pages were eligible anyway. VNCL_HUGE_PAGES=0 (read
 * per allocation) leaves them alone, for a host where compacting memory
 * at the first touch would cost more than the pages save. */
#define VNCL__HUGE_PAGE ((uintptr_t)2 << 20)
#define VNCL__HUGE_MIN ((size_t)8 << 20)
static void svm_huge_pages(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < VNCL__HUGE_MIN) return;
  const char *v = vncl__getenv("VNCL_HUGE_PAGES");
  if (v && !strcmp(v, "0")) return;
  uintptr_t a = ((uintptr_t)p + VNCL__HUGE_PAGE - 1) & ~(VNCL__HUGE_PAGE - 1);
  uintptr_t e = ((uintptr_t)p + bytes) & ~(VNCL__HUGE_PAGE - 1);
  if (e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

cl_mem vncl__svm_buffer_create(vncl_context *ctx, size_t bytes, cl_int *err) {
  svm_block *b = malloc(sizeof *b);
  if (!b) {
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  void *p = vncl__fault_point(VNCL_FAULT_BUFFER)
                ? NULL
                : clSVMAlloc(ctx->cl_ctx,
                             CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                             bytes, 0);
  if (!p) {
    free(b);
    *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return NULL;
  }
  svm_huge_pages(p, bytes);
  cl_mem m = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                            bytes, p, err);
  if (!m) {
    clSVMFree(ctx->cl_ctx, p);
    free(b);
    return NULL;
  }
  b->ctx = ctx->cl_ctx;
  b->ptr = p;
  cl_int e = clSetMemObjectDestructorCallback(m, svm_release, b);
  if (e != CL_SUCCESS) {
    /* Without the callback the allocation could not be freed safely. */
    clReleaseMemObject(m);
    clFinish(ctx->queue);
    clSVMFree(ctx->cl_ctx, p);
    free(b);
    *err = e;
    return NULL;
  }
  return m;
}

void *vncl__svm_host_ptr(cl_mem m) {
  cl_bool svm = CL_FALSE;
  if (clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof svm, &svm,
                         NULL) != CL_SUCCESS ||
      svm != CL_TRUE)
    return NULL;
  void *p = NULL;
  if (clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof p, &p, NULL) != CL_SUCCESS)
    return NULL;
  return p;
}
