/* Device memory: allocation with accounting, the context's limit, and an
 * early touch so that a device out-of-memory surfaces at allocation. */
#include <stdio.h>

#include "internal.h"

static void fmt_bytes(uint64_t b, char *out, size_t cap) {
  if (b >= (1ull << 30))
    snprintf(out, cap, "%.2f GiB", (double)b / (1ull << 30));
  else if (b >= (1ull << 20))
    snprintf(out, cap, "%.2f MiB", (double)b / (1ull << 20));
  else if (b >= 1024)
    snprintf(out, cap, "%.2f KiB", (double)b / 1024);
  else
    snprintf(out, cap, "%llu B", (unsigned long long)b);
}

static vncl_status oom(vncl_context *ctx, size_t bytes, const char *why) {
  char req[32], have[32], lim[32];
  pthread_mutex_lock(&ctx->lock);
  ctx->failed_count++;
  uint64_t allocated = ctx->allocated_bytes, limit = ctx->limit_bytes;
  pthread_mutex_unlock(&ctx->lock);
  fmt_bytes(bytes, req, sizeof req);
  fmt_bytes(allocated, have, sizeof have);
  if (limit)
    fmt_bytes(limit, lim, sizeof lim);
  else
    snprintf(lim, sizeof lim, "none");
  return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                    "out of device memory: %s; requested %s (%zu bytes), "
                    "allocated %s, limit %s, device '%s' has %.2f GiB",
                    why, req, bytes, have, lim, ctx->info.name,
                    (double)ctx->info.global_mem_bytes / (1ull << 30));
}

vncl_status vncl__buffer_alloc(vncl_context *ctx, size_t bytes, cl_mem *out) {
  if (ctx->info.max_alloc_bytes && bytes > ctx->info.max_alloc_bytes)
    return oom(ctx, bytes, "larger than the device's maximum allocation");
  pthread_mutex_lock(&ctx->lock);
  if (ctx->limit_bytes && (bytes > ctx->limit_bytes ||
                           ctx->allocated_bytes > ctx->limit_bytes - bytes)) {
    pthread_mutex_unlock(&ctx->lock);
    return oom(ctx, bytes, "over the context's memory limit");
  }
  ctx->allocated_bytes += bytes; /* reserved before the slow part */
  pthread_mutex_unlock(&ctx->lock);

  cl_int err;
  size_t real = bytes ? bytes : 1;
  cl_mem m = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, real, NULL, &err);
  if (m) {
    /* Drivers allocate lazily; filling the buffer makes the device commit
     * it now, so an out-of-memory is reported here, by this call. */
    const unsigned char zero = 0;
    cl_event ev = NULL;
    err = clEnqueueFillBuffer(ctx->queue, m, &zero, 1, 0, real, 0, NULL, &ev);
    if (err == CL_SUCCESS) {
      err = clWaitForEvents(1, &ev);
      cl_int st = CL_COMPLETE;
      if (err == CL_SUCCESS &&
          clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                         NULL) == CL_SUCCESS &&
          st < 0)
        err = st;
    }
    if (ev) clReleaseEvent(ev);
    if (err != CL_SUCCESS) {
      clReleaseMemObject(m);
      m = NULL;
    }
  }
  if (!m) {
    pthread_mutex_lock(&ctx->lock);
    ctx->allocated_bytes -= bytes;
    pthread_mutex_unlock(&ctx->lock);
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
        err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
        err == CL_INVALID_BUFFER_SIZE) {
      char why[96];
      snprintf(why, sizeof why, "the device refused it: %s (%d)",
               vncl__cl_error_name(err), (int)err);
      return oom(ctx, bytes, why);
    }
    pthread_mutex_lock(&ctx->lock);
    ctx->failed_count++;
    pthread_mutex_unlock(&ctx->lock);
    return vncl__cl_fail(ctx, err, "allocating device memory");
  }
  pthread_mutex_lock(&ctx->lock);
  if (ctx->allocated_bytes > ctx->peak_bytes)
    ctx->peak_bytes = ctx->allocated_bytes;
  ctx->alloc_count++;
  ctx->live_count++;
  pthread_mutex_unlock(&ctx->lock);
  *out = m;
  return VNCL_OK;
}

void vncl__buffer_free(vncl_context *ctx, cl_mem m, size_t bytes) {
  if (!m) return;
  clReleaseMemObject(m);
  pthread_mutex_lock(&ctx->lock);
  ctx->allocated_bytes -= bytes;
  ctx->free_count++;
  ctx->live_count--;
  pthread_mutex_unlock(&ctx->lock);
}

vncl_status vncl_memory_stats_get(vncl_context *ctx, vncl_memory_stats *out) {
  if (!ctx || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !ctx ? "ctx" : "out");
  pthread_mutex_lock(&ctx->lock);
  out->allocated_bytes = ctx->allocated_bytes;
  out->peak_bytes = ctx->peak_bytes;
  out->reserved_bytes = ctx->allocated_bytes;
  out->limit_bytes = ctx->limit_bytes;
  out->device_total_bytes = ctx->info.global_mem_bytes;
  out->alloc_count = ctx->alloc_count;
  out->free_count = ctx->free_count;
  out->live_count = ctx->live_count;
  out->failed_count = ctx->failed_count;
  pthread_mutex_unlock(&ctx->lock);
  return VNCL_OK;
}

vncl_status vncl_memory_reset_peak(vncl_context *ctx) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  pthread_mutex_lock(&ctx->lock);
  ctx->peak_bytes = ctx->allocated_bytes;
  pthread_mutex_unlock(&ctx->lock);
  return VNCL_OK;
}

vncl_status vncl_memory_trim(vncl_context *ctx) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  /* Nothing is cached yet: every free goes straight back to the driver. */
  return VNCL_OK;
}
