/* Tensors: creation with shape checks, accessors (host transfers:
 * transfer/tensor_io.c). */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

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
