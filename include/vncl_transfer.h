/* vncl transfer API: included by vncl.h; see the conventions at the top of
 * vncl.h. Host <-> device transfers, the pinned staging pool behind them,
 * asynchronous transfers with events, pinned host memory for the caller,
 * and the statistics of the device caching allocator. docs/transfers.md
 * explains the design and gives the figures measured.
 *
 * How a transfer travels. vncl_tensor_write / vncl_tensor_read (vncl.h) and
 * their _async forms pick one of these paths, per direction and size, from
 * a table of measured thresholds per kind of device (vncl_transfer_config):
 *   direct  clEnqueueWriteBuffer / clEnqueueReadBuffer on the caller's
 *           pointer;
 *   staged  the transfer is cut into pieces that go through a pool of
 *           pinned host chunks (CL_MEM_ALLOC_HOST_PTR, mapped once and kept
 *           mapped), pipelined: the host copies piece i into one chunk while
 *           the device moves piece i-1 out of another (double or triple
 *           buffering, ordered by events). On a device that shares host
 *           memory (a CPU, an integrated GPU) the tensor's own mapping is
 *           such pinned memory, so staging copies once, through it:
 *           blocking transfers as map, async ones direct (counted so in
 *           vncl_staging_stats); VNCL_STAGING_VIA=chunks keeps the chunks;
 *   map     the tensor's buffer is mapped and copied with memcpy (blocking
 *           transfers only; the fastest on devices that share host memory).
 *           Where such a device is a CPU with fine-grained buffer SVM
 *           (OpenCL 2.0), vncl's tensors live in SVM and stay mapped: the
 *           transfer waits for the queue and copies, with no command of
 *           its own;
 *   pinned  the caller's pointer lies in memory from vncl_host_alloc: direct,
 *           with no staging copy, whatever the table says (blocking, with a
 *           tensor in SVM: the host copy).
 * The pool is created on first use; after warm-up no transfer allocates
 * pinned or device memory. When every chunk is busy a transfer waits up to
 * wait_ms for one, then goes direct (counted as a fallback): it never
 * deadlocks.
 *
 * Environment (read when the context's first transfer runs):
 *   VNCL_STAGING_BYTES  most pinned bytes the pool holds (also
 *                       vncl_options.staging_bytes); default 64 MiB
 *   VNCL_STAGING_CHUNK  bytes per chunk; default 16 MiB
 *   VNCL_TRANSFER_PATH  direct | staged | map | auto: force one path for
 *                       every size and direction (benchmarks, debugging)
 *   VNCL_STAGING_VIA    chunks | tensor | auto: what the staged path copies
 *                       through (auto: the table; tensor only on devices
 *                       that share host memory, chunks elsewhere)
 *   VNCL_TENSOR_MEMORY  svm | buffer | auto: whether tensors live in
 *                       fine-grained SVM (auto: CPU devices that have it;
 *                       svm: any device sharing host memory that has it),
 *                       read at context creation
 */
#ifndef VNCL_TRANSFER_H
#define VNCL_TRANSFER_H

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Events                                                               */
/* ------------------------------------------------------------------ */

/* Completion of an asynchronous operation. Created by the _async calls,
 * released by the caller with vncl_event_release. An event holds its
 * context (like a tensor), so it may outlive vncl_context_destroy. The
 * functions below may be called from any thread. */
typedef struct vncl_event vncl_event;

/* Blocks until the operation has finished. VNCL_OK when it succeeded;
 * VNCL_ERR_OPENCL when the operation failed (the message says which
 * command). e NULL: VNCL_ERR_INVALID_ARG. */
VNCL_API vncl_status vncl_event_wait(vncl_event *e);

/* Does not block: *complete becomes 1 when the operation has finished, 0
 * while it runs. Errors: VNCL_ERR_INVALID_ARG (NULL), VNCL_ERR_OPENCL (the
 * operation failed; *complete is then 1). */
VNCL_API vncl_status vncl_event_status(const vncl_event *e, int *complete);

/* Releases the caller's hold. The operation itself goes on to completion
 * (vncl_finish waits for it). NULL: no-op. */
VNCL_API void vncl_event_release(vncl_event *e);

/* The OpenCL event that completes with the operation, for wait lists of
 * the caller's own commands or of vncl_gemm_cl_event; owned by the
 * vncl_event (retain it to keep it past vncl_event_release). NULL: NULL. */
VNCL_API cl_event vncl_event_cl(const vncl_event *e);

/* ------------------------------------------------------------------ */
/* Asynchronous transfers                                               */
/* ------------------------------------------------------------------ */

/* vncl_tensor_write / vncl_tensor_read that return once the transfer is
 * enqueued, with an event that completes when it is done. Same checks and
 * errors as the blocking forms (nothing is enqueued on error, *event is
 * untouched).
 *
 * THE CALLER'S HOST BUFFER MUST STAY VALID, AND UNCHANGED (write) OR
 * UNREAD (read), UNTIL THE EVENT COMPLETES.
 *
 * Order: the transfer starts after the num_wait events of wait_list (OpenCL
 * events of this context; num_wait 0 and wait_list NULL for none) and, the
 * queue being in order, after everything enqueued on the context before the
 * call; everything enqueued after the call (a kernel, another transfer,
 * vncl_finish) comes after it. So a read enqueued after a kernel sees the
 * kernel's result, and vncl_finish waits for pending transfers.
 * event may be NULL when the caller does not need one.
 *
 * A staged write copies the caller's data into pinned chunks before it
 * returns (as CUDA does for pageable memory) while the device drains the
 * chunks; a staged read's copies out of the chunks are done by the
 * context's transfer thread as the pieces arrive. Direct and pinned
 * transfers return at once. Thread-safe per the rule in vncl.h.
 * VNCL_ERR_UNSUPPORTED, nothing enqueued, where vncl_gemm_cl_event gives
 * it: a wait list with an event not yet complete, on a driver that
 * deadlocks on one. */
VNCL_API vncl_status vncl_tensor_write_async(vncl_tensor *t, const void *src,
                                             size_t bytes, cl_uint num_wait,
                                             const cl_event *wait_list,
                                             vncl_event **event);
VNCL_API vncl_status vncl_tensor_read_async(const vncl_tensor *t, void *dst,
                                            size_t bytes, cl_uint num_wait,
                                            const cl_event *wait_list,
                                            vncl_event **event);

/* ------------------------------------------------------------------ */
/* Pinned host memory for the caller                                    */
/* ------------------------------------------------------------------ */

/* Allocates `bytes` of pinned (page-locked where the driver does so) host
 * memory: a CL_MEM_ALLOC_HOST_PTR buffer, mapped for its lifetime. Transfers
 * whose host pointer range lies inside such memory use it directly, with no
 * staging copy (as PyTorch's pin_memory). The memory belongs to the caller
 * until vncl_host_free; it holds the context, like a tensor. Errors:
 * VNCL_ERR_INVALID_ARG (ctx or out NULL, bytes 0), VNCL_ERR_OUT_OF_MEMORY,
 * VNCL_ERR_OPENCL. Thread-safe. */
VNCL_API vncl_status vncl_host_alloc(vncl_context *ctx, size_t bytes,
                                     void **out);

/* Frees memory from vncl_host_alloc on the same context. Transfers already
 * enqueued on it finish first (the unmap is queued behind them). ptr NULL:
 * no-op. A pointer that vncl_host_alloc did not return (or already freed):
 * VNCL_ERR_INVALID_ARG, nothing freed. */
VNCL_API vncl_status vncl_host_free(vncl_context *ctx, void *ptr);

/* ------------------------------------------------------------------ */
/* Transfer configuration                                               */
/* ------------------------------------------------------------------ */

typedef enum vncl_transfer_path {
  VNCL_TRANSFER_AUTO = 0,   /* only in VNCL_TRANSFER_PATH: the table */
  VNCL_TRANSFER_DIRECT = 1, /* clEnqueueWrite/ReadBuffer on the host pointer */
  VNCL_TRANSFER_STAGED = 2, /* pipelined through the pinned pool */
  VNCL_TRANSFER_MAP = 3     /* map the tensor + memcpy (async: direct) */
} vncl_transfer_path;

/* A context's transfer settings. Defaults: chunk and pool sizes from the
 * environment (above), the paths and thresholds from the table of the
 * device's kind (docs/transfers.md): a transfer of fewer than *_threshold
 * bytes takes *_small, others *_large. */
typedef struct vncl_transfer_config {
  uint64_t chunk_bytes;  /* one pinned chunk; at least 4096 */
  uint64_t pool_bytes;   /* most pinned bytes the pool holds (>= chunk) */
  unsigned depth;        /* chunks one transfer pipelines through, 1 to 8
                            (2: double, 3: triple buffering) */
  unsigned wait_ms;      /* how long a transfer waits for a free chunk
                            before it goes direct */
  vncl_transfer_path write_small, write_large;
  uint64_t write_threshold;
  vncl_transfer_path read_small, read_large;
  uint64_t read_threshold;
  char table[32]; /* out: which row of the table gave the defaults */
} vncl_transfer_config;

/* The context's settings now. Errors: VNCL_ERR_INVALID_ARG (NULL). */
VNCL_API vncl_status vncl_transfer_config_get(vncl_context *ctx,
                                              vncl_transfer_config *out);

/* Replaces the settings (cfg NULL: back to the defaults). Chunks of another
 * size are freed as they come back; the new size applies to chunks created
 * from then on. Errors: VNCL_ERR_INVALID_ARG (ctx NULL, chunk_bytes below
 * 4096, pool_bytes below chunk_bytes, depth out of 1..8, a path that is not
 * DIRECT, STAGED or MAP), nothing changed. Thread-safe; transfers in flight
 * finish with the settings they started with. */
VNCL_API vncl_status vncl_transfer_config_set(vncl_context *ctx,
                                              const vncl_transfer_config *cfg);

/* ------------------------------------------------------------------ */
/* Statistics                                                           */
/* ------------------------------------------------------------------ */

typedef struct vncl_staging_stats {
  uint64_t chunk_bytes;      /* bytes per chunk now */
  uint64_t chunks;           /* chunks the pool holds now */
  uint64_t max_chunks;       /* the most it may hold (pool / chunk bytes) */
  uint64_t chunks_busy;      /* held by transfers now */
  uint64_t pinned_bytes;     /* pinned host bytes held by the pool */
  uint64_t host_alloc_bytes; /* live memory from vncl_host_alloc */
  uint64_t host_alloc_count;
  uint64_t chunks_created;   /* since the context was created */
  uint64_t hits;             /* chunk acquisitions served with no allocation */
  uint64_t waits;            /* transfers that waited for a busy chunk */
  uint64_t fallbacks;        /* staged transfers that went direct: no chunk
                                came within wait_ms, or creating one failed */
  uint64_t staged_transfers, direct_transfers, mapped_transfers,
      pinned_transfers;      /* transfers by the path they took (staged
                                through the tensor's mapping: mapped, or
                                direct when async) */
  uint64_t bytes_staged;     /* bytes copied through the pool */
  uint64_t bytes_direct, bytes_mapped, bytes_pinned;
} vncl_staging_stats;

/* Counters since the context was created. Errors: VNCL_ERR_INVALID_ARG. */
VNCL_API vncl_status vncl_staging_stats_get(vncl_context *ctx,
                                            vncl_staging_stats *out);

/* The device caching allocator (vncl_memory_stats in vncl.h gives the
 * allocated and reserved bytes; vncl_memory_trim empties the cache). */
typedef struct vncl_cache_stats {
  uint64_t cached_bytes;   /* device bytes kept for reuse now */
  uint64_t cached_buffers; /* buffers kept for reuse now */
  uint64_t hits;           /* allocations served from the cache */
  uint64_t misses;         /* allocations that created a buffer */
  uint64_t trims;          /* times the cache was emptied (trim or OOM) */
  uint64_t oom_retries;    /* allocations retried after emptying the cache
                              under the limit or a device out-of-memory */
} vncl_cache_stats;

VNCL_API vncl_status vncl_memory_cache_stats_get(vncl_context *ctx,
                                                 vncl_cache_stats *out);

#ifdef __cplusplus
}
#endif
#endif
