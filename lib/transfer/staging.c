/* The staging pool: pinned host chunks (CL_MEM_ALLOC_HOST_PTR, mapped once
 * and kept mapped) that transfers pipeline through, the transfer settings
 * (a table of measured thresholds per kind of device, the environment and
 * vncl_transfer_config_set) and the staging statistics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "transfer/transfer.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)

/* Which path a transfer takes, by kind of device, direction and size: a
 * transfer below the threshold takes the "small" path, others the "large"
 * one. The device-rule matcher (runtime.h) picks the row by the device's
 * memory kind (unified or discrete). Figures behind
 * each row are in docs/transfers.md; refresh them with
 * `vncl bench --suite transfer`, which times every path. */
static const struct policy {
  vncl__device_rule rule; /* memory: unified (CPUs, integrated GPUs) or not */
  const char *name;
  /* 1: this host's memcpy runs at one speed whatever the relative alignment
   * (vncl__host_copy_uniform), 0: it slows down for some, -1: either. A
   * host trait, not a device's: checked after the rule, on the ranking. */
  int uniform_copy;
  /* 1: for contexts whose tensors live in fine-grained SVM (ctx->svm, see
   * svm.c), 0: for the others, -1: either. Checked with the host copy. */
  int svm;
  vncl_transfer_path write_small, write_large;
  uint64_t write_threshold;
  vncl_transfer_path read_small, read_large;
  uint64_t read_threshold;
  /* What path=staged copies through: chunks (two copies) or, where the
   * device shares host memory, the buffer's own mapping (one copy). */
  vncl__stage_via staged_via;
} policies[] = {
    /* Tensors in fine-grained SVM (PoCL 3.1's CPU device has it): the map
     * path is then a host copy straight into the tensor with no command
     * (the blocking transfer only waits for the queue), so it wins at every
     * size and on any host: vncl__host_copy keeps clear of the slow
     * alignments. Quiet Xeon, 1 MiB: direct 0.18-0.40x memcpy, each PoCL
     * command a round trip of 25-75 us; the host copy 0.91-0.95x in plain C
     * (docs/transfers.md, "Tensors in SVM"). Async transfers go direct (a
     * host copy would have to wait for the queue). */
    {{NULL, 0, VNCL__RULE_UNIFIED, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, 0},
     "unified-svm", -1, 1, VNCL_TRANSFER_MAP, VNCL_TRANSFER_MAP, 0,
     VNCL_TRANSFER_MAP, VNCL_TRANSFER_MAP, 0, VNCL__STAGE_TENSOR},
    /* Measured on PoCL 3.1 (pthread CPU device) on an Intel Xeon whose
     * memcpy is uniform: direct copies are already at memcpy speed both
     * ways from pageable memory, and mapping the tensor costs an extra round
     * trip, so direct wins at every size; staging adds a second copy
     * through the same memory and runs at about half speed: with two
     * copies on two cores that share one memory bus the pipeline cannot
     * reach 0.9x memcpy (docs/transfers.md, "Staging on unified memory"),
     * so path=staged copies once, through the tensor's own mapping. */
    {{NULL, 0, VNCL__RULE_UNIFIED, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, 0},
     "unified", 1, 0, VNCL_TRANSFER_DIRECT, VNCL_TRANSFER_DIRECT, 0,
     VNCL_TRANSFER_DIRECT, VNCL_TRANSFER_DIRECT, 0, VNCL__STAGE_TENSOR},
    /* The same device on a host whose memcpy slows down 3-4x for some
     * relative alignments (an AMD EPYC, issue 14: direct 0.24-0.30x memcpy
     * for malloc'd buffers at most page offsets). The driver's copy cannot
     * be steered, so large transfers map the tensor and copy with
     * vncl__host_copy, which avoids the slow alignments; small ones stay
     * direct (the map's round trip dominates below 1 MiB). */
    {{NULL, 0, VNCL__RULE_UNIFIED, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, 0},
     "unified-aligned-copy", 0, 0, VNCL_TRANSFER_DIRECT, VNCL_TRANSFER_MAP,
     1 * MIB, VNCL_TRANSFER_DIRECT, VNCL_TRANSFER_MAP, 1 * MIB,
     VNCL__STAGE_TENSOR},
    /* Discrete GPUs: pageable copies go through the driver's own bounce
     * buffer at roughly half the pinned rate, while pinned chunks reach the
     * copy engine's full rate and the pipeline hides the host copy (made by
     * vncl__host_copy, so the chunk's alignment never hits a slow memcpy).
     * Small copies are latency-bound and go direct. Not measured here (no
     * GPU on the build machine): estimates to confirm with the bench. */
    {{NULL, 0, VNCL__RULE_DISCRETE, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, 0},
     "discrete", -1, -1, VNCL_TRANSFER_DIRECT, VNCL_TRANSFER_STAGED, 256 * KIB,
     VNCL_TRANSFER_DIRECT, VNCL_TRANSFER_STAGED, 1 * MIB, VNCL__STAGE_CHUNKS},
};

#define DEFAULT_CHUNK (16 * MIB)
#define DEFAULT_POOL (64 * MIB)
#define DEFAULT_DEPTH 3
#define DEFAULT_WAIT_MS 100

static bool parse_path(const char *s, vncl_transfer_path *out) {
  static const char *names[] = {"auto", "direct", "staged", "map"};
  for (int i = 0; i < 4; i++)
    if (!strcasecmp(s, names[i])) {
      *out = (vncl_transfer_path)i;
      return true;
    }
  return false;
}

/* A row fits when its SVM and host-copy columns do (the host copy is
 * measured only when a row asks: uniform -1 until then). */
struct fit_arg {
  bool svm;
  int uniform;
};
static bool row_fits(int i, void *arg) {
  struct fit_arg *a = arg;
  if (policies[i].svm >= 0 && policies[i].svm != (a->svm ? 1 : 0))
    return false;
  if (policies[i].uniform_copy < 0) return true;
  if (a->uniform < 0) a->uniform = vncl__host_copy_uniform() ? 1 : 0;
  return policies[i].uniform_copy == a->uniform;
}

void vncl__transfer_defaults(vncl_context *ctx, vncl_transfer_config *out,
                             vncl__stage_via *via) {
  memset(out, 0, sizeof *out);
  vncl__device_key k;
  vncl__device_key_of(&ctx->info, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, &k);
  struct fit_arg fa = {ctx->svm, -1};
  int i = vncl__rule_pick_fit(policies, sizeof policies / sizeof *policies,
                              sizeof *policies, &k, row_fits, &fa);
  const struct policy *p = &policies[i >= 0 ? i : 0];
  vncl__strlcpy(out->table, p->name, sizeof out->table);
  out->write_small = p->write_small;
  out->write_large = p->write_large;
  out->write_threshold = p->write_threshold;
  out->read_small = p->read_small;
  out->read_large = p->read_large;
  out->read_threshold = p->read_threshold;
  *via = p->staged_via;
  const char *sv = vncl__getenv("VNCL_STAGING_VIA");
  if (sv) {
    if (!strcasecmp(sv, "chunks"))
      *via = VNCL__STAGE_CHUNKS;
    else if (!strcasecmp(sv, "tensor"))
      *via = VNCL__STAGE_TENSOR;
    else if (strcasecmp(sv, "auto"))
      vncl__log(VNCL_LOG_WARN, "VNCL_STAGING_VIA='%s' ignored: use chunks, "
                "tensor or auto", sv);
  }
  /* The tensor's mapping is only host memory on a device that shares it. */
  if (*via == VNCL__STAGE_TENSOR && !k.unified)
    *via = VNCL__STAGE_CHUNKS;
  out->depth = DEFAULT_DEPTH;
  out->wait_ms = DEFAULT_WAIT_MS;
  out->chunk_bytes = DEFAULT_CHUNK;
  const char *v = vncl__getenv("VNCL_STAGING_CHUNK");
  uint64_t n;
  if (v) {
    if (vncl__parse_bytes(v, &n) && n >= 4096)
      out->chunk_bytes = n;
    else
      vncl__log(VNCL_LOG_WARN, "VNCL_STAGING_CHUNK='%s' ignored: not a byte "
                "count of at least 4096", v);
  }
  out->pool_bytes = ctx->staging_bytes ? ctx->staging_bytes : DEFAULT_POOL;
  if (out->pool_bytes < out->chunk_bytes) out->chunk_bytes = out->pool_bytes;
  if (out->chunk_bytes < 4096) out->chunk_bytes = out->pool_bytes = 4096;
  v = vncl__getenv("VNCL_TRANSFER_PATH");
  vncl_transfer_path forced;
  if (v) {
    if (!parse_path(v, &forced))
      vncl__log(VNCL_LOG_WARN, "VNCL_TRANSFER_PATH='%s' ignored: use direct, "
                "staged, map or auto", v);
    else if (forced != VNCL_TRANSFER_AUTO) {
      out->write_small = out->write_large = forced;
      out->read_small = out->read_large = forced;
      snprintf(out->table, sizeof out->table, "VNCL_TRANSFER_PATH");
    }
  }
}

struct vncl__xfer *vncl__xfer_get(vncl_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  struct vncl__xfer *x = ctx->xfer;
  bool made = false;
  if (!x && (x = calloc(1, sizeof *x)) != NULL) {
    made = true;
    x->ctx = ctx;
    pthread_mutex_init(&x->lock, NULL);
    pthread_mutex_init(&x->enq_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&x->freed, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&x->work, NULL);
    for (int i = 0; i < 16; i++) pthread_mutex_init(&x->map_locks[i], NULL);
    vncl__transfer_defaults(ctx, &x->defaults, &x->stage_via);
    x->cfg = x->defaults;
    x->max_chunks = (unsigned)(x->cfg.pool_bytes / x->cfg.chunk_bytes);
    ctx->xfer = x;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (made) vncl__context_on_release(ctx, vncl__transfer_shutdown);
  if (!x)
    vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
               "out of host memory for the transfer state");
  return x;
}

/* A queue for mapping and unmapping pinned memory, so that doing so never
 * waits behind the work on the context's queue. Falls back to that queue. */
static cl_command_queue aux_queue(struct vncl__xfer *x) {
  pthread_mutex_lock(&x->lock);
  if (!x->aux) {
    cl_int err;
    x->aux = clCreateCommandQueue(x->ctx->cl_ctx, x->ctx->device, 0, &err);
    if (!x->aux) {
      vncl__log(VNCL_LOG_WARN, "no second queue for mapping (%s): using the "
                "context's queue", vncl__cl_error_name(err));
      clRetainCommandQueue(x->ctx->queue);
      x->aux = x->ctx->queue;
    }
  }
  cl_command_queue q = x->aux;
  pthread_mutex_unlock(&x->lock);
  return q;
}

cl_command_queue vncl__aux_queue(struct vncl__xfer *x) { return aux_queue(x); }

static vncl__chunk *chunk_create(struct vncl__xfer *x, size_t bytes) {
  vncl_context *ctx = x->ctx;
  vncl__chunk *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  cl_int err;
  c->mem = clCreateBuffer(ctx->cl_ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                          bytes, NULL, &err);
  if (c->mem)
    c->ptr = clEnqueueMapBuffer(aux_queue(x), c->mem, CL_TRUE,
                                CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
                                NULL, &err);
  if (!c->ptr) {
    vncl__log(VNCL_LOG_WARN, "cannot create a %zu-byte pinned chunk: %s (%d)",
              bytes, vncl__cl_error_name(err), (int)err);
    if (c->mem) clReleaseMemObject(c->mem);
    free(c);
    return NULL;
  }
  c->bytes = bytes;
  return c;
}

static void chunk_destroy(struct vncl__xfer *x, vncl__chunk *c) {
  cl_command_queue q = aux_queue(x);
  clEnqueueUnmapMemObject(q, c->mem, c->ptr, c->busy ? 1 : 0,
                          c->busy ? &c->busy : NULL, NULL);
  clFlush(q);
  if (c->busy) clReleaseEvent(c->busy);
  clReleaseMemObject(c->mem);
  free(c);
}

static void deadline_after(struct timespec *ts, unsigned ms) {
  clock_gettime(CLOCK_MONOTONIC, ts);
  ts->tv_sec += ms / 1000;
  ts->tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts->tv_nsec >= 1000000000L) {
    ts->tv_sec++;
    ts->tv_nsec -= 1000000000L;
  }
}

unsigned vncl__chunks_acquire(vncl_context *ctx, struct vncl__xfer *x,
                              unsigned want, vncl__chunk **out, bool *waited) {
  VNCL_UNUSED(ctx);
  unsigned got = 0;
  bool have_deadline = false;
  struct timespec deadline;
  *waited = false;
  pthread_mutex_lock(&x->lock);
  for (;;) {
    while (got < want && x->free_head) {
      vncl__chunk *c = x->free_head;
      x->free_head = c->next;
      if (!x->free_head) x->free_tail = NULL;
      c->next = NULL;
      x->busy++;
      x->st.hits++;
      out[got++] = c;
    }
    if (got == want) break;
    if (x->chunks < x->max_chunks && !x->create_failed) {
      /* Count it first so that no other thread overshoots the cap while
       * this one creates it without the lock. */
      size_t bytes = (size_t)x->cfg.chunk_bytes;
      x->chunks++;
      x->busy++;
      pthread_mutex_unlock(&x->lock);
      vncl__chunk *c = chunk_create(x, bytes);
      pthread_mutex_lock(&x->lock);
      if (c) {
        x->st.chunks_created++;
        x->chunk_bytes_held += c->bytes;
        out[got++] = c;
        continue;
      }
      x->chunks--;
      x->busy--;
      x->create_failed = true; /* until the settings change */
      pthread_cond_broadcast(&x->freed);
      if (got) break;
    }
    if (got) break; /* fewer buffers, but no waiting */
    if (x->create_failed && x->chunks == 0) break; /* nothing will come */
    if (!have_deadline) {
      deadline_after(&deadline, x->cfg.wait_ms);
      have_deadline = true;
      *waited = true;
      x->st.waits++;
    }
    if (pthread_cond_timedwait(&x->freed, &x->lock, &deadline) == ETIMEDOUT &&
        !x->free_head)
      break;
  }
  if (!got) x->st.fallbacks++;
  pthread_mutex_unlock(&x->lock);
  return got;
}

void vncl__chunks_release(struct vncl__xfer *x, vncl__chunk **c, unsigned n) {
  vncl__chunk *drop = NULL;
  pthread_mutex_lock(&x->lock);
  for (unsigned i = 0; i < n; i++) {
    x->busy--;
    /* A chunk of a size the settings no longer ask for, or above a cap that
     * shrank, is freed instead of kept. */
    if (c[i]->bytes != x->cfg.chunk_bytes || x->chunks > x->max_chunks) {
      x->chunks--;
      x->chunk_bytes_held -= c[i]->bytes;
      c[i]->next = drop;
      drop = c[i];
      continue;
    }
    c[i]->next = NULL;
    if (x->free_tail)
      x->free_tail->next = c[i];
    else
      x->free_head = c[i];
    x->free_tail = c[i];
  }
  pthread_cond_broadcast(&x->freed);
  pthread_mutex_unlock(&x->lock);
  while (drop) {
    vncl__chunk *next = drop->next;
    chunk_destroy(x, drop);
    drop = next;
  }
}

void vncl__staging_free(vncl_context *ctx, struct vncl__xfer *x) {
  VNCL_UNUSED(ctx);
  pthread_mutex_lock(&x->lock);
  vncl__chunk *c = x->free_head;
  x->free_head = x->free_tail = NULL;
  x->chunks = 0;
  x->chunk_bytes_held = 0;
  pthread_mutex_unlock(&x->lock);
  while (c) {
    vncl__chunk *next = c->next;
    chunk_destroy(x, c);
    c = next;
  }
  if (x->aux) {
    clFinish(x->aux);
    clReleaseCommandQueue(x->aux);
    x->aux = NULL;
  }
}

static bool path_ok(vncl_transfer_path p) {
  return p == VNCL_TRANSFER_DIRECT || p == VNCL_TRANSFER_STAGED ||
         p == VNCL_TRANSFER_MAP;
}

vncl_status vncl_transfer_config_get(vncl_context *ctx,
                                     vncl_transfer_config *out) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (!out) return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "out is NULL");
  struct vncl__xfer *x = vncl__xfer_get(ctx);
  if (!x) return VNCL_ERR_OUT_OF_MEMORY;
  pthread_mutex_lock(&x->lock);
  *out = x->cfg;
  pthread_mutex_unlock(&x->lock);
  return VNCL_OK;
}

vncl_status vncl_transfer_config_set(vncl_context *ctx,
                                     const vncl_transfer_config *cfg) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (cfg) {
    if (cfg->chunk_bytes < 4096 || cfg->chunk_bytes > SIZE_MAX)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "chunk_bytes %llu: at least 4096 bytes",
                        (unsigned long long)cfg->chunk_bytes);
    if (cfg->pool_bytes < cfg->chunk_bytes)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "pool_bytes %llu is smaller than chunk_bytes %llu",
                        (unsigned long long)cfg->pool_bytes,
                        (unsigned long long)cfg->chunk_bytes);
    if (cfg->depth < 1 || cfg->depth > VNCL__MAX_DEPTH)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "depth %u: 1 to %d",
                        cfg->depth, VNCL__MAX_DEPTH);
    if (!path_ok(cfg->write_small) || !path_ok(cfg->write_large) ||
        !path_ok(cfg->read_small) || !path_ok(cfg->read_large))
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "a path is not VNCL_TRANSFER_DIRECT, _STAGED or _MAP");
  }
  struct vncl__xfer *x = vncl__xfer_get(ctx);
  if (!x) return VNCL_ERR_OUT_OF_MEMORY;
  vncl__chunk *drop = NULL;
  pthread_mutex_lock(&x->lock);
  x->cfg = cfg ? *cfg : x->defaults;
  if (cfg) vncl__strlcpy(x->cfg.table, "vncl_transfer_config_set",
                         sizeof x->cfg.table);
  uint64_t maxc = x->cfg.pool_bytes / x->cfg.chunk_bytes;
  x->max_chunks = maxc > 65536 ? 65536 : (unsigned)maxc;
  x->create_failed = false;
  /* Idle chunks that no longer fit the settings go now; busy ones when
   * they come back. */
  vncl__chunk **pp = &x->free_head, *last = NULL;
  while (*pp) {
    vncl__chunk *c = *pp;
    if (c->bytes != x->cfg.chunk_bytes || x->chunks > x->max_chunks) {
      *pp = c->next;
      x->chunks--;
      x->chunk_bytes_held -= c->bytes;
      c->next = drop;
      drop = c;
    } else {
      last = c;
      pp = &c->next;
    }
  }
  x->free_tail = last;
  pthread_cond_broadcast(&x->freed);
  pthread_mutex_unlock(&x->lock);
  while (drop) {
    vncl__chunk *next = drop->next;
    chunk_destroy(x, drop);
    drop = next;
  }
  return VNCL_OK;
}

vncl_status vncl_staging_stats_get(vncl_context *ctx, vncl_staging_stats *out) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (!out) return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "out is NULL");
  struct vncl__xfer *x = vncl__xfer_get(ctx);
  if (!x) return VNCL_ERR_OUT_OF_MEMORY;
  pthread_mutex_lock(&x->lock);
  *out = x->st;
  out->chunk_bytes = x->cfg.chunk_bytes;
  out->chunks = x->chunks;
  out->max_chunks = x->max_chunks;
  out->chunks_busy = x->busy;
  out->pinned_bytes = x->chunk_bytes_held;
  out->host_alloc_bytes = x->pinned_bytes;
  out->host_alloc_count = x->npinned;
  pthread_mutex_unlock(&x->lock);
  return VNCL_OK;
}
