/* Internal API of the transfer files: the staging pool (staging.c), pinned
 * host memory (pinned.c), the transfer engine and its worker (transfer.c)
 * and events (event.c). docs/transfers.md describes the design. */
#ifndef VNCL_XFER_H
#define VNCL_XFER_H

#include <stdatomic.h>

#include "runtime/runtime.h"

/* Most chunks one transfer pipelines through (vncl_transfer_config.depth). */
#define VNCL__MAX_DEPTH 8

/* What the staged path copies through (a column of the path table in
 * staging.c; VNCL_STAGING_VIA overrides it): the pool's pinned chunks (two
 * copies: the caller's bytes into a chunk, the chunk into the buffer by the
 * driver or a DMA engine), or, on a device that shares host memory, the
 * buffer's own mapping (one copy; async transfers go direct, as map's do). */
typedef enum { VNCL__STAGE_CHUNKS = 0, VNCL__STAGE_TENSOR = 1 } vncl__stage_via;

/* One pinned chunk of the staging pool: mapped for its whole life. */
typedef struct vncl__chunk {
  cl_mem mem;
  unsigned char *ptr; /* the mapping */
  size_t bytes;
  /* The last device command that reads or writes the chunk, or NULL when
   * none is pending: whoever takes the chunk next waits for it (host side
   * before writing into it, or in the wait list of a device command). The
   * chunk owns this reference. */
  cl_event busy;
  struct vncl__chunk *next; /* free list */
} vncl__chunk;

/* A region from vncl_host_alloc. */
typedef struct vncl__pinned {
  unsigned char *ptr;
  size_t bytes;
  cl_mem mem;
} vncl__pinned;

typedef struct vncl__job vncl__job; /* an asynchronous staged read */

/* The outcome of an asynchronous staged read, shared by the transfer
 * thread and the caller's event. The thread records a failure here and
 * still completes its user events with CL_COMPLETE: a user event set to an
 * error fails every later command of the queue on PoCL, and at times
 * aborts PoCL itself. */
typedef struct vncl__xstatus {
  _Atomic int refs;
  _Atomic cl_int err;
} vncl__xstatus;
void vncl__xstatus_release(vncl__xstatus *s);

struct vncl__xfer {
  vncl_context *ctx;
  pthread_mutex_t lock; /* guards everything below but enq_lock */
  pthread_cond_t freed; /* a chunk came back to the pool */
  vncl_transfer_config cfg;
  vncl_transfer_config defaults;
  vncl__stage_via stage_via; /* what path=staged copies through */
  vncl__chunk *free_head, *free_tail; /* oldest first */
  unsigned chunks, busy, max_chunks;
  uint64_t chunk_bytes_held; /* pinned bytes of all chunks, any size */
  bool create_failed;        /* stop creating chunks until settings change */
  cl_command_queue aux;      /* maps and unmaps pinned memory */
  vncl_staging_stats st; /* counters; the gauges are filled on read */
  vncl__pinned *pinned;  /* sorted by ptr */
  size_t npinned, cap_pinned;
  uint64_t pinned_bytes;
  /* The transfer thread: runs the host side of asynchronous staged reads,
   * one job after another in the order their pieces were enqueued. */
  pthread_mutex_t enq_lock; /* a job's pieces and its place in the list
                               are enqueued together */
  pthread_cond_t work;
  vncl__job *head, *tail;
  bool worker_started, stop;
  pthread_t worker;
  /* Map-path transfers of one buffer run one at a time (by a stripe of
   * the cl_mem's address): PoCL 3.1 crashes when two threads map the same
   * buffer at once, even for reading. */
  pthread_mutex_t map_locks[16];
};

/* Stops the transfer worker and frees the staging pool: the context's
 * release hook, registered when the state is made. */
void vncl__transfer_shutdown(vncl_context *ctx);

/* The context's transfer state, created on first use (NULL when out of
 * host memory, with the error recorded). */
struct vncl__xfer *vncl__xfer_get(vncl_context *ctx);

/* ---- staging pool (staging.c) ---- */

/* Takes up to `want` chunks (at least 1 when it returns non-zero) into out[],
 * creating chunks while the pool is below its cap. When none is free it
 * waits up to cfg.wait_ms for one; returns 0 when none came (the caller
 * goes direct). *waited tells whether it had to wait. */
unsigned vncl__chunks_acquire(vncl_context *ctx, struct vncl__xfer *x,
                              unsigned want, vncl__chunk **out, bool *waited);
/* Gives chunks back. Each keeps its `busy` event (the caller sets it to the
 * last command on the chunk, or NULL). */
void vncl__chunks_release(struct vncl__xfer *x, vncl__chunk **c, unsigned n);
/* The queue that maps and unmaps pinned memory (created on first use), so
 * that doing so never waits behind the work on the context's queue. */
cl_command_queue vncl__aux_queue(struct vncl__xfer *x);
/* Frees every chunk and the mapping queue (at shutdown, queue drained). */
void vncl__staging_free(vncl_context *ctx, struct vncl__xfer *x);
/* The defaults for ctx's device: table row, environment, options; *via:
 * what the staged path copies through (row, then VNCL_STAGING_VIA). */
void vncl__transfer_defaults(vncl_context *ctx, vncl_transfer_config *out,
                             vncl__stage_via *via);

/* ---- host copies (hostcopy.c) ---- */

/* Below this many bytes a host copy is plain memcpy (nothing measured). */
#define VNCL__HOST_COPY_MIN ((size_t)64 << 10)

/* Copies like memcpy (no overlap), avoiding the relative alignments of dst
 * and src at which this host's memcpy was measured slow (through a bounce
 * buffer). Every copy the transfer engine makes itself goes through it. */
void vncl__host_copy(void *dst, const void *src, size_t n);
/* Whether this host's memcpy runs at one speed whatever the relative
 * alignment (measured once per process on the classes that malloc'd buffers
 * meet, and false where page-interleaved streaming copies, glibc's large
 * ones among them, slow down; VNCL_HOST_COPY forces the answer). Chooses
 * the transfer table row. */
bool vncl__host_copy_uniform(void);
/* The bounce copy itself, with the bounce buffer at src + r1 (mod 4 KiB). */
void vncl__host_copy_via(void *dst, const void *src, size_t n, unsigned r1);
/* The large-copy form: non-temporal stores, in the order measured fastest
 * on this host (once per process): four page streams at a time, or one. */
void vncl__host_copy_stream(void *dst, const void *src, size_t n);
/* The same in a given order: pages 4 or 1 (tests, and the measurement). */
void vncl__host_copy_stream_as(void *dst, const void *src, size_t n,
                               unsigned pages);

/* ---- pinned host memory (pinned.c) ---- */

/* True when [p, p + bytes) lies inside one vncl_host_alloc region. */
bool vncl__pinned_contains(struct vncl__xfer *x, const void *p, size_t bytes);
/* Frees regions the caller left (at shutdown). */
void vncl__pinned_free_all(vncl_context *ctx, struct vncl__xfer *x);

/* ---- transfers (transfer.c) ---- */

enum { VNCL__WRITE = 0, VNCL__READ = 1 };

/* Moves `bytes` between host memory and [offset, offset + bytes) of mem,
 * arguments already checked. async: returns once enqueued and, when done
 * is not NULL, gives an event that completes with the transfer (the caller
 * owns it) and, when the transfer thread finishes it, the status it
 * records (*status, owned by the caller; NULL otherwise); the wait list
 * applies. Blocking: returns when complete. */
vncl_status vncl__transfer(vncl_context *ctx, int dir, cl_mem mem,
                           size_t offset, void *host, size_t bytes, bool async,
                           cl_uint num_wait, const cl_event *wait,
                           cl_event *done, vncl__xstatus **status);

/* Called once an event is seen complete: takes and drops the lock that the
 * transfer thread releases after its last copy, so that the caller's view
 * of its buffer is ordered after those copies for tools that cannot see
 * through the driver's own locks (ThreadSanitizer). */
void vncl__transfer_sync(vncl_context *ctx);

/* ---- events (event.c) ---- */

/* A new event that holds ctx, not yet tied to a cl_event: allocated before
 * anything is enqueued so that a failure here enqueues nothing. NULL when
 * out of host memory (error recorded). Release it with vncl_event_release. */
vncl_event *vncl__event_alloc(vncl_context *ctx);
/* Ties e to ev and status (NULL or from vncl__transfer), taking over the
 * caller's references. */
void vncl__event_fill(vncl_event *e, cl_event ev, vncl__xstatus *status);

#endif
