/* Device memory: a caching allocator with accounting, the context's limit,
 * and an early touch so that a device out-of-memory surfaces at allocation.
 *
 * Freed buffers are not released: they go to a per-context cache, sorted by
 * size, and a later request of a similar size takes one back (as PyTorch's
 * caching allocator does). Requests are rounded up to size classes so that
 * similar sizes share buffers: multiples of 512 bytes up to 4 KiB, then four
 * classes per power of two (at most 25% over the request). A cached buffer
 * serves a request when its size lies between the request and the request's
 * class. Reused buffers are zero-filled again (enqueued, not waited for: the
 * queue is in order, so everything the caller enqueues later sees zeros).
 *
 * Accounting: allocated_bytes counts what callers asked for; reserved_bytes
 * counts the device memory held, rounded sizes of live buffers plus the
 * cache. The limit (VNCL_MEMORY_LIMIT) caps reserved bytes, since that is
 * what the device really holds. When a request would cross the limit, or
 * the device refuses it, the cache is released and the request retried
 * once before VNCL_ERR_OUT_OF_MEMORY. docs/transfers.md has the figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

typedef struct cblock {
  size_t size; /* CL_MEM_SIZE of the buffer */
  cl_mem mem;
} cblock;

/* Guarded by ctx->lock. */
struct vncl__cache {
  cblock *v; /* sorted by size, ascending */
  size_t n, cap;
  uint64_t bytes;
  uint64_t hits, misses, trims, oom_retries;
};

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

/* The size a request is rounded up to (see the top of the file). */
static size_t size_class(size_t b) {
  if (b <= 4096) return (b + 511) & ~(size_t)511;
  int k = 63 - __builtin_clzll((unsigned long long)(b - 1)); /* 2^k < b */
  size_t step = (size_t)1 << (k - 2);
  size_t c = (b + step - 1) & ~(step - 1);
  return c < b ? b : c; /* wrapped near SIZE_MAX */
}

static vncl_status oom(vncl_context *ctx, size_t bytes, const char *why) {
  char req[32], have[32], res[32], lim[32];
  pthread_mutex_lock(&ctx->lock);
  ctx->failed_count++;
  uint64_t allocated = ctx->allocated_bytes, limit = ctx->limit_bytes;
  uint64_t reserved = ctx->reserved_bytes;
  pthread_mutex_unlock(&ctx->lock);
  fmt_bytes(bytes, req, sizeof req);
  fmt_bytes(allocated, have, sizeof have);
  fmt_bytes(reserved, res, sizeof res);
  if (limit)
    fmt_bytes(limit, lim, sizeof lim);
  else
    snprintf(lim, sizeof lim, "none");
  return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                    "out of device memory: %s; requested %s (%zu bytes), "
                    "allocated %s, reserved %s, limit %s, device '%s' has "
                    "%.2f GiB",
                    why, req, bytes, have, res, lim, ctx->info.name,
                    (double)ctx->info.global_mem_bytes / (1ull << 30));
}

/* Where ctx->cache points once the context is being torn down: buffers
 * freed after that (by teardown code that runs later) are released, not
 * cached. */
static struct vncl__cache closed;

/* Under ctx->lock: the cache, created on first use (NULL if out of host
 * memory or closed, in which case nothing is cached). */
static struct vncl__cache *cache_of(vncl_context *ctx) {
  if (ctx->cache == &closed) return NULL;
  if (!ctx->cache) ctx->cache = calloc(1, sizeof *ctx->cache);
  return ctx->cache;
}

/* Under ctx->lock: removes and returns a cached buffer of size in
 * [lo, hi], the smallest such; NULL when there is none. */
static cl_mem cache_take(struct vncl__cache *c, size_t lo, size_t hi,
                         size_t *size) {
  size_t a = 0, b = c->n;
  while (a < b) { /* first block with size >= lo */
    size_t mid = a + (b - a) / 2;
    if (c->v[mid].size < lo)
      a = mid + 1;
    else
      b = mid;
  }
  if (a == c->n || c->v[a].size > hi) return NULL;
  cl_mem m = c->v[a].mem;
  *size = c->v[a].size;
  memmove(&c->v[a], &c->v[a + 1], (c->n - a - 1) * sizeof *c->v);
  c->n--;
  c->bytes -= *size;
  return m;
}

/* Under ctx->lock: adds a buffer; false when the array cannot grow. */
static bool cache_put(struct vncl__cache *c, cl_mem m, size_t size) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    cblock *v = realloc(c->v, cap * sizeof *v);
    if (!v) return false;
    c->v = v;
    c->cap = cap;
  }
  size_t a = 0, b = c->n;
  while (a < b) { /* after every block of the same size: oldest reused first */
    size_t mid = a + (b - a) / 2;
    if (c->v[mid].size <= size)
      a = mid + 1;
    else
      b = mid;
  }
  memmove(&c->v[a + 1], &c->v[a], (c->n - a) * sizeof *c->v);
  c->v[a].size = size;
  c->v[a].mem = m;
  c->n++;
  c->bytes += size;
  return true;
}

/* Empties the cache: the buffers are taken out under the lock and released
 * outside it. Returns the bytes released. */
static uint64_t cache_release_all(vncl_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  struct vncl__cache *c = ctx->cache;
  if (!c || c == &closed || c->n == 0) {
    pthread_mutex_unlock(&ctx->lock);
    return 0;
  }
  cblock *v = c->v;
  size_t n = c->n;
  uint64_t bytes = c->bytes;
  c->v = NULL;
  c->n = c->cap = 0;
  c->bytes = 0;
  c->trims++;
  ctx->reserved_bytes -= bytes;
  pthread_mutex_unlock(&ctx->lock);
  for (size_t i = 0; i < n; i++) clReleaseMemObject(v[i].mem);
  free(v);
  return bytes;
}

/* Fills [0, bytes) of m with zeros; with `wait`, waits and reports the
 * command's own status (the early touch). */
static cl_int zero_fill(vncl_context *ctx, cl_mem m, size_t bytes, bool wait) {
  static const cl_uint zero4 = 0;
  size_t pat = bytes % 4 == 0 ? 4 : 1;
  cl_event ev = NULL;
  cl_int err = clEnqueueFillBuffer(ctx->queue, m, &zero4, pat, 0, bytes, 0,
                                   NULL, wait ? &ev : NULL);
  if (err == CL_SUCCESS && wait) {
    err = clWaitForEvents(1, &ev);
    cl_int st = CL_COMPLETE;
    if (err == CL_SUCCESS &&
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                       NULL) == CL_SUCCESS &&
        st < 0)
      err = st;
  }
  if (ev) clReleaseEvent(ev);
  return err;
}

static bool fits(uint64_t used, uint64_t limit, size_t bytes) {
  return !limit || (bytes <= limit && used <= limit - bytes);
}

static bool is_oom_error(cl_int err) {
  return err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
         err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
         err == CL_INVALID_BUFFER_SIZE;
}

/* Under ctx->lock: the bookkeeping of a successful allocation. */
static void count_alloc(vncl_context *ctx, size_t bytes) {
  ctx->allocated_bytes += bytes;
  if (ctx->allocated_bytes > ctx->peak_bytes)
    ctx->peak_bytes = ctx->allocated_bytes;
  ctx->alloc_count++;
  ctx->live_count++;
}

static vncl_status buffer_alloc(vncl_context *ctx, size_t bytes, bool zero,
                                cl_mem *out);

vncl_status vncl__buffer_alloc(vncl_context *ctx, size_t bytes, cl_mem *out) {
  return buffer_alloc(ctx, bytes, true, out);
}

vncl_status vncl__buffer_alloc_scratch(vncl_context *ctx, size_t bytes,
                                       cl_mem *out) {
  return buffer_alloc(ctx, bytes, false, out);
}

static vncl_status buffer_alloc(vncl_context *ctx, size_t bytes, bool zero,
                                cl_mem *out) {
  uint64_t max_alloc = ctx->info.max_alloc_bytes;
  if (max_alloc && bytes > max_alloc)
    return oom(ctx, bytes, "larger than the device's maximum allocation");
  size_t cls = size_class(bytes);
  if (max_alloc && cls > max_alloc) cls = bytes;
  bool trimmed = false;
  cl_int err = CL_SUCCESS;
  for (;;) {
    pthread_mutex_lock(&ctx->lock);
    struct vncl__cache *c = cache_of(ctx);
    size_t got = 0;
    cl_mem m = (bytes && c) ? cache_take(c, bytes, cls, &got) : NULL;
    if (m) {
      c->hits++;
      count_alloc(ctx, bytes);
      pthread_mutex_unlock(&ctx->lock);
      err = zero ? zero_fill(ctx, m, bytes, false) : CL_SUCCESS;
      if (err != CL_SUCCESS) {
        vncl__buffer_free(ctx, m, bytes);
        return vncl__cl_fail(ctx, err, "zero-filling a reused buffer");
      }
      *out = m;
      return VNCL_OK;
    }
    /* A new buffer of the class size, or of the exact size where only that
     * fits under the limit; 0-byte requests get a 1-byte placeholder that
     * counts as nothing. */
    size_t real = cls;
    if (!fits(ctx->reserved_bytes, ctx->limit_bytes, cls)) real = bytes;
    if (!fits(ctx->reserved_bytes, ctx->limit_bytes, real)) {
      bool can_trim = !trimmed && c && c->n > 0;
      if (can_trim) c->oom_retries++;
      pthread_mutex_unlock(&ctx->lock);
      if (can_trim) {
        cache_release_all(ctx);
        trimmed = true;
        continue;
      }
      return oom(ctx, bytes, "over the context's memory limit");
    }
    ctx->reserved_bytes += real; /* held before the slow part */
    if (c) c->misses++;
    pthread_mutex_unlock(&ctx->lock);

    size_t make = real ? real : 1;
    m = ctx->svm ? vncl__svm_buffer_create(ctx, make, &err) : NULL;
    if (!m) /* no SVM tensors here, or the SVM allocation failed */
      m = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, make, NULL, &err);
    if (m) {
      /* Drivers allocate lazily; filling the buffer makes the device commit
       * it now, so an out-of-memory is reported here, by this call. */
      err = zero_fill(ctx, m, make, true);
      if (err != CL_SUCCESS) {
        clReleaseMemObject(m);
        m = NULL;
      }
    }
    pthread_mutex_lock(&ctx->lock);
    if (m) {
      count_alloc(ctx, bytes);
      pthread_mutex_unlock(&ctx->lock);
      *out = m;
      return VNCL_OK;
    }
    ctx->reserved_bytes -= real;
    bool can_trim = !trimmed && is_oom_error(err) && c && c->n > 0;
    if (can_trim) c->oom_retries++;
    pthread_mutex_unlock(&ctx->lock);
    if (!can_trim) break;
    cache_release_all(ctx);
    trimmed = true;
  }
  if (is_oom_error(err)) {
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

void vncl__buffer_free(vncl_context *ctx, cl_mem m, size_t bytes) {
  if (!m) return;
  size_t size = 0;
  if (bytes &&
      clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS)
    size = 0;
  pthread_mutex_lock(&ctx->lock);
  ctx->allocated_bytes -= bytes;
  ctx->free_count++;
  ctx->live_count--;
  struct vncl__cache *c = size ? cache_of(ctx) : NULL;
  bool kept = c && cache_put(c, m, size);
  if (!kept) ctx->reserved_bytes -= size;
  pthread_mutex_unlock(&ctx->lock);
  /* Released buffers stay alive in OpenCL until the commands that use them
   * finish; cached ones are reused only by commands enqueued later on the
   * same in-order queue. Either way work in flight is safe. */
  if (!kept) clReleaseMemObject(m);
}

void vncl__buffer_cache_free(vncl_context *ctx) {
  cache_release_all(ctx);
  pthread_mutex_lock(&ctx->lock);
  struct vncl__cache *c = ctx->cache == &closed ? NULL : ctx->cache;
  ctx->cache = &closed;
  pthread_mutex_unlock(&ctx->lock);
  if (c) free(c->v);
  free(c);
}

vncl_status vncl_memory_stats_get(vncl_context *ctx, vncl_memory_stats *out) {
  if (!ctx || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !ctx ? "ctx" : "out");
  pthread_mutex_lock(&ctx->lock);
  out->allocated_bytes = ctx->allocated_bytes;
  out->peak_bytes = ctx->peak_bytes;
  out->reserved_bytes = ctx->reserved_bytes;
  out->limit_bytes = ctx->limit_bytes;
  out->device_total_bytes = ctx->info.global_mem_bytes;
  out->alloc_count = ctx->alloc_count;
  out->free_count = ctx->free_count;
  out->live_count = ctx->live_count;
  out->failed_count = ctx->failed_count;
  pthread_mutex_unlock(&ctx->lock);
  return VNCL_OK;
}

vncl_status vncl_memory_cache_stats_get(vncl_context *ctx,
                                        vncl_cache_stats *out) {
  if (!ctx || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !ctx ? "ctx" : "out");
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&ctx->lock);
  const struct vncl__cache *c = ctx->cache;
  if (c && c != &closed) {
    out->cached_bytes = c->bytes;
    out->cached_buffers = c->n;
    out->hits = c->hits;
    out->misses = c->misses;
    out->trims = c->trims;
    out->oom_retries = c->oom_retries;
  }
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
  cache_release_all(ctx);
  return VNCL_OK;
}
