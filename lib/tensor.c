/* Tensors: creation with shape checks, host transfers, accessors. */
#include <stdlib.h>
#include <string.h>

#include "xfer.h"

size_t vncl_dtype_size(vncl_dtype t) {
  switch (t) {
    case VNCL_F32: return 4;
    case VNCL_F64: return 8;
    case VNCL_F16: return 2;
    case VNCL_BF16: return 2;
    case VNCL_I32: return 4;
  }
  return 0;
}

const char *vncl_dtype_name(vncl_dtype t) {
  switch (t) {
    case VNCL_F32: return "f32";
    case VNCL_F64: return "f64";
    case VNCL_F16: return "f16";
    case VNCL_BF16: return "bf16";
    case VNCL_I32: return "i32";
  }
  return "?";
}

vncl_status vncl_tensor_create(vncl_context *ctx, vncl_dtype dtype, int ndim,
                               const int64_t *shape, vncl_tensor **out) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (!shape || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !shape ? "shape" : "out");
  size_t esize = vncl_dtype_size(dtype);
  if (esize == 0)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "unknown dtype %d",
                      (int)dtype);
  if (ndim < 1 || ndim > VNCL_MAX_DIMS)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "ndim %d out of range (1 to %d)", ndim, VNCL_MAX_DIMS);
  size_t numel = 1;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "dimension %d is negative (%lld)", i,
                        (long long)shape[i]);
    if ((uint64_t)shape[i] > SIZE_MAX ||
        !vncl__mul_overflow(numel, (size_t)shape[i], &numel))
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "shape overflows: the element count of dimensions "
                        "0..%d does not fit in size_t", i);
  }
  size_t bytes;
  if (!vncl__mul_overflow(numel, esize, &bytes))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "shape overflows: %zu elements of %zu bytes", numel,
                      esize);
  vncl_tensor *t = calloc(1, sizeof *t);
  if (!t)
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                      "out of host memory for the tensor handle");
  vncl_status s = vncl__buffer_alloc(ctx, bytes, &t->mem);
  if (s) {
    free(t);
    return s;
  }
  t->ctx = ctx;
  t->dtype = dtype;
  t->ndim = ndim;
  memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
  t->numel = numel;
  t->bytes = bytes;
  t->offset = 0;
  vncl__context_retain(ctx);
  *out = t;
  return VNCL_OK;
}

void vncl_tensor_destroy(vncl_tensor *t) {
  if (!t) return;
  vncl_context *ctx = t->ctx;
  /* No wait here: OpenCL keeps a released buffer alive until the commands
   * that use it have finished, so destroying a tensor with work in flight is
   * safe and does not stall the queue. */
  vncl__buffer_free(ctx, t->mem, t->bytes);
  free(t);
  vncl__context_release(ctx);
}

static vncl_status check_io(const vncl_tensor *t, const void *p, size_t bytes,
                            const char *what) {
  if (!t) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "tensor is NULL");
  if (bytes != t->bytes)
    return vncl__fail(t->ctx, VNCL_ERR_INVALID_ARG,
                      "%s: %zu bytes given, the tensor holds %zu", what, bytes,
                      t->bytes);
  if (!p && bytes)
    return vncl__fail(t->ctx, VNCL_ERR_INVALID_ARG, "%s: host pointer is NULL",
                      what);
  return VNCL_OK;
}

/* Transfers go through transfer.c, which picks the path (direct, staged
 * through pinned chunks, mapped, or the caller's pinned memory). */
vncl_status vncl_tensor_write(vncl_tensor *t, const void *src, size_t bytes) {
  vncl_status s = check_io(t, src, bytes, "vncl_tensor_write");
  if (s || bytes == 0) return s;
  return vncl__transfer(t->ctx, VNCL__WRITE, t->mem, t->offset, (void *)src,
                        bytes, false, 0, NULL, NULL, NULL);
}

vncl_status vncl_tensor_read(const vncl_tensor *t, void *dst, size_t bytes) {
  vncl_status s = check_io(t, dst, bytes, "vncl_tensor_read");
  if (s || bytes == 0) return s;
  return vncl__transfer(t->ctx, VNCL__READ, t->mem, t->offset, dst, bytes,
                        false, 0, NULL, NULL, NULL);
}

static vncl_status transfer_async(const vncl_tensor *t, int dir, void *host,
                                  size_t bytes, cl_uint num_wait,
                                  const cl_event *wait_list,
                                  vncl_event **event, const char *what) {
  vncl_status s = check_io(t, host, bytes, what);
  if (s) return s;
  if (num_wait && !wait_list)
    return vncl__fail(t->ctx, VNCL_ERR_INVALID_ARG,
                      "%s: num_wait is %u but wait_list is NULL", what,
                      (unsigned)num_wait);
  vncl_event *e = NULL;
  if (event && !(e = vncl__event_alloc(t->ctx))) return VNCL_ERR_OUT_OF_MEMORY;
  cl_event ev = NULL;
  vncl__xstatus *xs = NULL;
  s = vncl__transfer(t->ctx, dir, t->mem, t->offset, host, bytes, true,
                     num_wait, wait_list, e ? &ev : NULL, e ? &xs : NULL);
  if (s) {
    vncl_event_release(e);
    return s;
  }
  if (e) {
    vncl__event_fill(e, ev, xs);
    *event = e;
  }
  return VNCL_OK;
}

vncl_status vncl_tensor_write_async(vncl_tensor *t, const void *src,
                                    size_t bytes, cl_uint num_wait,
                                    const cl_event *wait_list,
                                    vncl_event **event) {
  return transfer_async(t, VNCL__WRITE, (void *)src, bytes, num_wait,
                        wait_list, event, "vncl_tensor_write_async");
}

vncl_status vncl_tensor_read_async(const vncl_tensor *t, void *dst,
                                   size_t bytes, cl_uint num_wait,
                                   const cl_event *wait_list,
                                   vncl_event **event) {
  return transfer_async(t, VNCL__READ, dst, bytes, num_wait, wait_list, event,
                        "vncl_tensor_read_async");
}

vncl_dtype vncl_tensor_dtype(const vncl_tensor *t) {
  return t ? t->dtype : (vncl_dtype)0;
}
int vncl_tensor_ndim(const vncl_tensor *t) { return t ? t->ndim : 0; }
int64_t vncl_tensor_dim(const vncl_tensor *t, int i) {
  return (t && i >= 0 && i < t->ndim) ? t->shape[i] : -1;
}
size_t vncl_tensor_numel(const vncl_tensor *t) { return t ? t->numel : 0; }
size_t vncl_tensor_bytes(const vncl_tensor *t) { return t ? t->bytes : 0; }
cl_mem vncl_tensor_cl_mem(const vncl_tensor *t) { return t ? t->mem : NULL; }
size_t vncl_tensor_offset(const vncl_tensor *t) { return t ? t->offset : 0; }
vncl_context *vncl_tensor_context(const vncl_tensor *t) {
  return t ? t->ctx : NULL;
}
