/* Pinned host memory for the caller (vncl_host_alloc / vncl_host_free): a
 * CL_MEM_ALLOC_HOST_PTR buffer mapped for its lifetime, and the sorted table
 * of regions that transfers look their host pointers up in. */
#include <stdlib.h>
#include <string.h>

#include "transfer/transfer.h"

/* Under x->lock: the index of the last region whose start is <= p, or
 * npinned when there is none. */
static size_t find_le(const struct vncl__xfer *x, const unsigned char *p) {
  size_t a = 0, b = x->npinned;
  while (a < b) { /* first region whose start is > p */
    size_t mid = a + (b - a) / 2;
    if (x->pinned[mid].ptr <= p)
      a = mid + 1;
    else
      b = mid;
  }
  return a == 0 ? x->npinned : a - 1;
}

bool vncl__pinned_contains(struct vncl__xfer *x, const void *p, size_t bytes) {
  const unsigned char *q = p;
  bool in = false;
  pthread_mutex_lock(&x->lock);
  if (x->npinned) {
    size_t i = find_le(x, q);
    if (i < x->npinned) {
      size_t off = (size_t)(q - x->pinned[i].ptr);
      in = off < x->pinned[i].bytes && bytes <= x->pinned[i].bytes - off;
    }
  }
  pthread_mutex_unlock(&x->lock);
  return in;
}

vncl_status vncl_host_alloc(vncl_context *ctx, size_t bytes, void **out) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (!out) return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "out is NULL");
  if (!bytes)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "vncl_host_alloc: bytes is 0");
  struct vncl__xfer *x = vncl__xfer_get(ctx);
  if (!x) return VNCL_ERR_OUT_OF_MEMORY;
  cl_int err;
  cl_mem m = clCreateBuffer(ctx->cl_ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                            bytes, NULL, &err);
  if (!m) return vncl__cl_fail(ctx, err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
  cl_command_queue q = vncl__aux_queue(x);
  unsigned char *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                        0, bytes, 0, NULL, NULL, &err);
  if (!p) {
    clReleaseMemObject(m);
    return vncl__cl_fail(ctx, err, "clEnqueueMapBuffer(pinned host memory)");
  }
  pthread_mutex_lock(&x->lock);
  bool ok = true;
  if (x->npinned == x->cap_pinned) {
    size_t cap = x->cap_pinned ? 2 * x->cap_pinned : 16;
    vncl__pinned *v = realloc(x->pinned, cap * sizeof *v);
    if (v) {
      x->pinned = v;
      x->cap_pinned = cap;
    } else {
      ok = false;
    }
  }
  if (ok) {
    size_t i = x->npinned ? find_le(x, p) : x->npinned;
    i = (i == x->npinned) ? 0 : i + 1; /* insert after the last start <= p */
    memmove(&x->pinned[i + 1], &x->pinned[i],
            (x->npinned - i) * sizeof *x->pinned);
    x->pinned[i].ptr = p;
    x->pinned[i].bytes = bytes;
    x->pinned[i].mem = m;
    x->npinned++;
    x->pinned_bytes += bytes;
  }
  pthread_mutex_unlock(&x->lock);
  if (!ok) {
    clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
    clFinish(q);
    clReleaseMemObject(m);
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                      "out of host memory for the pinned-region table");
  }
  vncl__context_retain(ctx);
  *out = p;
  return VNCL_OK;
}

/* Unmaps behind everything enqueued on the context so far: transfers that
 * use the region finish first. */
static void region_release(vncl_context *ctx, struct vncl__xfer *x,
                           const vncl__pinned *r) {
  cl_event marker = NULL;
  if (clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &marker) != CL_SUCCESS)
    clFinish(ctx->queue);
  clFlush(ctx->queue);
  cl_command_queue q = vncl__aux_queue(x);
  clEnqueueUnmapMemObject(q, r->mem, r->ptr, marker ? 1 : 0,
                          marker ? &marker : NULL, NULL);
  clFlush(q);
  if (marker) clReleaseEvent(marker);
  clReleaseMemObject(r->mem);
}

vncl_status vncl_host_free(vncl_context *ctx, void *ptr) {
  if (!ptr) return VNCL_OK;
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  pthread_mutex_lock(&ctx->lock);
  struct vncl__xfer *x = ctx->xfer;
  pthread_mutex_unlock(&ctx->lock);
  bool found = false;
  vncl__pinned r;
  if (x) {
    pthread_mutex_lock(&x->lock);
    size_t i = x->npinned ? find_le(x, ptr) : 0;
    if (x->npinned && i < x->npinned && x->pinned[i].ptr == ptr) {
      r = x->pinned[i];
      memmove(&x->pinned[i], &x->pinned[i + 1],
              (x->npinned - i - 1) * sizeof *x->pinned);
      x->npinned--;
      x->pinned_bytes -= r.bytes;
      found = true;
    }
    pthread_mutex_unlock(&x->lock);
  }
  if (!found)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "vncl_host_free: %p is not memory from vncl_host_alloc "
                      "on this context (or was already freed)",
                      ptr);
  region_release(ctx, x, &r);
  vncl__context_release(ctx); /* may free the context: nothing after this */
  return VNCL_OK;
}

void vncl__pinned_free_all(vncl_context *ctx, struct vncl__xfer *x) {
  /* Each region holds the context, so this finds none unless a reference
   * was dropped by hand; it is here so that shutdown never leaks. */
  pthread_mutex_lock(&x->lock);
  vncl__pinned *v = x->pinned;
  size_t n = x->npinned;
  x->pinned = NULL;
  x->npinned = x->cap_pinned = 0;
  x->pinned_bytes = 0;
  pthread_mutex_unlock(&x->lock);
  for (size_t i = 0; i < n; i++) region_release(ctx, x, &v[i]);
  free(v);
}
