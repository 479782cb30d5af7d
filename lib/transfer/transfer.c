/* The transfer engine behind vncl_tensor_write / _read and their _async
 * forms: picks a path (direct, staged, map, pinned) and runs it, with the
 * transfer thread that finishes asynchronous staged reads.
 *
 * On a device that shares host memory, path=staged copies once, through
 * the tensor's own mapping (the table's staged_via column); the chunk
 * pipeline below serves discrete devices, or VNCL_STAGING_VIA=chunks.
 *
 * Staged write: the calling thread copies piece i into chunk i % k, then
 * enqueues the chunk's write to the device and goes on with piece i + 1
 * while the device drains it; before reusing a chunk it waits for the
 * chunk's previous write. Every command is enqueued before the call
 * returns, so queue order holds for async writes too.
 *
 * Staged read: every piece's read into a chunk is enqueued at once (queue
 * order again); the read of piece i + k into a chunk waits on a user event
 * ("gate") that is set once piece i has been copied out of that chunk. The
 * copies out are done by the calling thread (blocking) or by the transfer
 * thread (async), which then sets a last user event that a marker on the
 * queue waits for: the caller's event, and what vncl_finish waits for.
 * Deadlock freedom: a gate only ever holds back pieces of its own job, and
 * the transfer thread serves jobs in queue order, because an async job's
 * pieces and its place in the thread's list are enqueued under one lock. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "transfer/transfer.h"

struct vncl__job {
  vncl__job *next;
  struct vncl__xfer *x;
  unsigned char *dst;
  size_t bytes, piece, n;
  unsigned k;
  vncl__chunk *c[VNCL__MAX_DEPTH];
  cl_event done;  /* user event, async only: all pieces copied out */
  vncl__xstatus *status; /* where a failure goes (async, with an event) */
  cl_event *dev;  /* [n] the device reads */
  cl_event *gate; /* [n] gate[i] lets piece i + k reuse piece i's chunk */
};

/* Waits for ev; returns its failure status, or the wait's error. */
static cl_int wait_ok(cl_event ev) {
  cl_int err = clWaitForEvents(1, &ev);
  cl_int st = CL_COMPLETE;
  clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
  return st < 0 ? st : err;
}

/* After a wait on ev failed, the command may still be running: it becomes
 * the chunk's pending command, so that the chunk's next user waits for it
 * again instead of racing it. Takes over the reference to ev. */
static void keep_pending(vncl__chunk *ch, cl_event ev) {
  if (ch->busy && ch->busy != ev) clReleaseEvent(ch->busy);
  ch->busy = ev;
}

void vncl__xstatus_release(vncl__xstatus *s) {
  if (s && atomic_fetch_sub(&s->refs, 1) == 1) free(s);
}

/* Pieces: about 8 per transfer, so that the pipeline fills quickly, but at
 * least 1 MiB (each piece is a command with its own cost) and at most a
 * chunk. */
static size_t piece_size(size_t bytes, size_t chunk) {
  size_t p = bytes / 8;
  if (p < ((size_t)1 << 20)) p = (size_t)1 << 20;
  p = (p + 4095) & ~(size_t)4095;
  return p < chunk ? p : chunk;
}

static size_t min_chunk(vncl__chunk **c, unsigned k) {
  size_t m = c[0]->bytes;
  for (unsigned i = 1; i < k; i++)
    if (c[i]->bytes < m) m = c[i]->bytes;
  return m;
}

static void count(struct vncl__xfer *x, vncl_transfer_path p, bool pinned,
                  size_t bytes) {
  pthread_mutex_lock(&x->lock);
  if (pinned) {
    x->st.pinned_transfers++;
    x->st.bytes_pinned += bytes;
  } else if (p == VNCL_TRANSFER_STAGED) {
    x->st.staged_transfers++;
    x->st.bytes_staged += bytes;
  } else if (p == VNCL_TRANSFER_MAP) {
    x->st.mapped_transfers++;
    x->st.bytes_mapped += bytes;
  } else {
    x->st.direct_transfers++;
    x->st.bytes_direct += bytes;
  }
  pthread_mutex_unlock(&x->lock);
}

/* ---- direct and map ---------------------------------------------------- */

static vncl_status direct(vncl_context *ctx, int dir, cl_mem mem,
                          size_t offset, void *host, size_t bytes, bool async,
                          cl_uint nwait, const cl_event *wait, cl_event *done) {
  cl_event ev = NULL;
  cl_bool block = async ? CL_FALSE : CL_TRUE;
  bool write = dir == VNCL__WRITE;
  /* The launch path times it (with an event of its own when we want none). */
  cl_int err = vncl__enqueue_rw(ctx, ctx->queue, write ? "write" : "read",
                                write, mem, block, offset, bytes, host, nwait,
                                wait, async && done ? &ev : NULL);
  if (err)
    return vncl__cl_fail(ctx, err, write ? "clEnqueueWriteBuffer"
                                         : "clEnqueueReadBuffer");
  if (async) {
    clFlush(ctx->queue);
    if (done) {
      *done = ev;
      ev = NULL;
    }
  }
  if (ev) clReleaseEvent(ev);
  return VNCL_OK;
}

/* A tensor in fine-grained SVM is mapped for good: once the queue has
 * finished what came before (what a blocking clEnqueueWriteBuffer waits
 * for too; an idle queue returns at once), the host copy is the whole
 * transfer, with no command of its own. Timed on the host for the
 * profiler. */
static vncl_status host_view_copy(vncl_context *ctx, int dir,
                                  unsigned char *view, void *host,
                                  size_t bytes) {
  cl_int err = clFinish(ctx->queue);
  if (err) return vncl__cl_fail(ctx, err, "clFinish (before a host copy)");
  double t0 = vncl__now();
  if (dir == VNCL__WRITE)
    vncl__host_copy(view, host, bytes);
  else
    vncl__host_copy(host, view, bytes);
  vncl__profile_host(ctx, dir == VNCL__WRITE ? "write" : "read",
                     vncl__now() - t0, (double)bytes);
  return VNCL_OK;
}

/* Blocking only: maps the tensor's bytes and copies (vncl__host_copy), then
 * waits for the unmap (so a write is in the buffer when the call returns,
 * as with a blocking clEnqueueWriteBuffer), holding the buffer's map lock
 * throughout; a tensor in SVM needs no map (host_view_copy). */
static vncl_status mapped(vncl_context *ctx, struct vncl__xfer *x, int dir,
                          cl_mem mem, size_t offset, void *host,
                          size_t bytes) {
  unsigned char *view = ctx->svm ? vncl__svm_host_ptr(mem) : NULL;
  if (view) return host_view_copy(ctx, dir, view + offset, host, bytes);
  pthread_mutex_t *lk = &x->map_locks[((uintptr_t)mem >> 6) % 16];
  pthread_mutex_lock(lk);
  vncl_status s = VNCL_OK;
  cl_int err;
  void *p = clEnqueueMapBuffer(
      ctx->queue, mem, CL_TRUE,
      dir == VNCL__WRITE ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_READ,
      offset, bytes, 0, NULL, NULL, &err);
  if (!p) {
    s = vncl__cl_fail(ctx, err, "clEnqueueMapBuffer(tensor)");
  } else {
    if (dir == VNCL__WRITE)
      vncl__host_copy(p, host, bytes);
    else
      vncl__host_copy(host, p, bytes);
    cl_event ev = NULL;
    err = clEnqueueUnmapMemObject(ctx->queue, mem, p, 0, NULL, &ev);
    if (!err) {
      err = wait_ok(ev);
      clReleaseEvent(ev);
    }
    if (err) s = vncl__cl_fail(ctx, err, "unmapping the tensor");
  }
  pthread_mutex_unlock(lk);
  return s;
}

/* ---- staged write ------------------------------------------------------ */

static vncl_status staged_write(vncl_context *ctx, struct vncl__xfer *x,
                                cl_mem mem, size_t offset,
                                const unsigned char *src, size_t bytes,
                                bool async, cl_event pre, cl_event *done,
                                vncl__chunk **c, unsigned k) {
  size_t piece = piece_size(bytes, min_chunk(c, k));
  size_t n = (bytes + piece - 1) / piece;
  if (n < k) {
    vncl__chunks_release(x, c + n, k - (unsigned)n);
    k = (unsigned)n;
  }
  cl_int err = CL_SUCCESS;
  const char *what = "clEnqueueWriteBuffer(staged)";
  for (size_t i = 0; i < n; i++) {
    vncl__chunk *ch = c[i % k];
    if (ch->busy) { /* the chunk's previous piece must have left it */
      err = wait_ok(ch->busy);
      if (err) { /* the chunk keeps its pending command */
        what = "an earlier transfer through a staging chunk";
        break;
      }
      clReleaseEvent(ch->busy);
      ch->busy = NULL;
    }
    size_t off = i * piece, len = bytes - off < piece ? bytes - off : piece;
    vncl__host_copy(ch->ptr, src + off, len);
    err = vncl__enqueue_rw(ctx, ctx->queue, "write", true, mem, CL_FALSE,
                           offset + off, len, ch->ptr, pre ? 1 : 0,
                           pre ? &pre : NULL, &ch->busy);
    if (err) {
      ch->busy = NULL;
      break;
    }
    clFlush(ctx->queue);
  }
  if (!err && !async) {
    for (unsigned j = 0; j < k; j++) {
      if (!c[j]->busy) continue;
      cl_int e = wait_ok(c[j]->busy);
      if (e) { /* kept as the chunk's pending command */
        if (!err) err = e;
        continue;
      }
      clReleaseEvent(c[j]->busy);
      c[j]->busy = NULL;
    }
  } else if (!err && done) {
    cl_event evs[VNCL__MAX_DEPTH];
    cl_uint m = 0;
    for (unsigned j = 0; j < k; j++)
      if (c[j]->busy) evs[m++] = c[j]->busy;
    err = clEnqueueMarkerWithWaitList(ctx->queue, m, evs, done);
    if (err) what = "clEnqueueMarkerWithWaitList";
  }
  /* Async: each chunk goes back with its last write pending; the next user
   * waits for it. */
  vncl__chunks_release(x, c, k);
  if (err) return vncl__cl_fail(ctx, err, what);
  return VNCL_OK;
}

/* ---- staged read ------------------------------------------------------- */

static void job_free(vncl__job *j) {
  for (size_t i = 0; i < j->n; i++)
    if (j->gate[i]) clReleaseEvent(j->gate[i]);
  if (j->done) clReleaseEvent(j->done);
  vncl__xstatus_release(j->status);
  free(j);
}

/* The host side of a staged read: copies each piece out as it arrives and
 * opens the gate of the piece that reuses its chunk. User events are always
 * completed with CL_COMPLETE, even after a failure (see vncl__xstatus): the
 * failure goes to the caller, or to the event's status. */
static vncl_status run_job(vncl_context *ctx, vncl__job *j) {
  struct vncl__xfer *x = j->x;
  cl_int err = CL_SUCCESS;
  for (size_t i = 0; i < j->n; i++) {
    vncl__chunk *ch = j->c[i % j->k];
    cl_int e = wait_ok(j->dev[i]);
    if (e) {
      if (!err) err = e;
      keep_pending(ch, j->dev[i]);
    } else {
      clReleaseEvent(j->dev[i]);
      if (!err) {
        size_t off = i * j->piece;
        size_t len = j->bytes - off < j->piece ? j->bytes - off : j->piece;
        vncl__host_copy(j->dst + off, ch->ptr, len);
      }
    }
    if (j->gate[i]) clSetUserEventStatus(j->gate[i], CL_COMPLETE);
  }
  if (err && j->status) atomic_store(&j->status->err, err);
  vncl__chunks_release(x, j->c, j->k);
  if (j->done) clSetUserEventStatus(j->done, CL_COMPLETE);
  job_free(j);
  if (err) return vncl__cl_fail(ctx, err, "staged read from the device");
  return VNCL_OK;
}

static void *worker_main(void *arg) {
  struct vncl__xfer *x = arg;
  pthread_mutex_lock(&x->lock);
  for (;;) {
    while (!x->head && !x->stop) pthread_cond_wait(&x->work, &x->lock);
    vncl__job *j = x->head;
    if (!j) break; /* stopping, and nothing left */
    x->head = j->next;
    if (!x->head) x->tail = NULL;
    pthread_mutex_unlock(&x->lock);
    run_job(x->ctx, j); /* a failure goes to the event's status */
    pthread_mutex_lock(&x->lock);
  }
  pthread_mutex_unlock(&x->lock);
  return NULL;
}

/* The job of a staged read of `bytes` in n pieces through chunks c[0..k):
 * its event arrays, the gates that let piece i + k reuse piece i's chunk,
 * and (async) the user event of its end and its shared status. On failure
 * the chunks go back. */
static vncl_status job_make(vncl_context *ctx, struct vncl__xfer *x,
                            unsigned char *dst, size_t bytes, size_t piece,
                            size_t n, vncl__chunk **c, unsigned k, bool async,
                            bool with_status, vncl__job **out) {
  vncl__job *j = calloc(1, sizeof *j + 2 * n * sizeof(cl_event));
  if (!j) {
    vncl__chunks_release(x, c, k);
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                      "out of host memory for a staged read");
  }
  j->x = x;
  j->dst = dst;
  j->bytes = bytes;
  j->piece = piece;
  j->n = n;
  j->k = k;
  memcpy(j->c, c, k * sizeof *c);
  j->dev = (cl_event *)(j + 1);
  j->gate = j->dev + n;
  if (async && with_status) {
    j->status = calloc(1, sizeof *j->status);
    if (!j->status) {
      vncl__chunks_release(x, c, k);
      job_free(j);
      return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                        "out of host memory for a staged read");
    }
    atomic_init(&j->status->refs, 1);
    atomic_init(&j->status->err, CL_SUCCESS);
  }
  cl_int err = CL_SUCCESS;
  for (size_t i = 0; i + k < n && !err; i++)
    j->gate[i] = clCreateUserEvent(ctx->cl_ctx, &err);
  if (!err && async) j->done = clCreateUserEvent(ctx->cl_ctx, &err);
  if (err) {
    vncl__chunks_release(x, c, k);
    job_free(j);
    return vncl__cl_fail(ctx, err, "clCreateUserEvent");
  }
  *out = j;
  return VNCL_OK;
}

/* Enqueues the job's device reads, piece by piece into its chunks: the
 * first k after `pre` and the chunk's last command, the others after the
 * gate of the piece before them in the same chunk. *enq: how many were
 * enqueued. The chunks' old commands are dropped once waited for. */
static cl_int enqueue_reads(vncl_context *ctx, vncl__job *j, cl_mem mem,
                            size_t offset, cl_event pre, size_t *enq) {
  cl_int err = CL_SUCCESS;
  size_t e = 0, n = j->n, k = j->k, piece = j->piece, bytes = j->bytes;
  for (; e < n; e++) {
    vncl__chunk *ch = j->c[e % k];
    cl_event wl[2];
    cl_uint nw = 0;
    if (pre) wl[nw++] = pre;
    if (e >= k)
      wl[nw++] = j->gate[e - k];
    else if (ch->busy)
      wl[nw++] = ch->busy; /* the chunk's last command, from its last user */
    size_t off = e * piece, len = bytes - off < piece ? bytes - off : piece;
    err = vncl__enqueue_rw(ctx, ctx->queue, "read", false, mem, CL_FALSE,
                           offset + off, len, ch->ptr, nw, wl, &j->dev[e]);
    if (err) break;
  }
  /* The first reads wait for the chunks' old commands: drop those. A chunk
   * whose first read was not enqueued keeps its event. */
  for (unsigned q = 0; q < k && q < e; q++)
    if (j->c[q]->busy) {
      clReleaseEvent(j->c[q]->busy);
      j->c[q]->busy = NULL;
    }
  clFlush(ctx->queue);
  *enq = e;
  return err;
}

/* After a read failed to enqueue: opens every gate, lets the enqueued
 * reads finish (a chunk keeps one that did not), and frees the job. */
static void job_abandon(vncl__job *j, size_t enq) {
  size_t n = j->n, k = j->k;
  for (size_t i = 0; i + k < n; i++)
    clSetUserEventStatus(j->gate[i], CL_COMPLETE);
  for (size_t i = 0; i < enq; i++) {
    if (wait_ok(j->dev[i]))
      keep_pending(j->c[i % k], j->dev[i]);
    else
      clReleaseEvent(j->dev[i]);
  }
  if (j->done) clSetUserEventStatus(j->done, CL_COMPLETE);
  vncl__chunks_release(j->x, j->c, (unsigned)k);
  job_free(j);
}

/* An async job goes to the transfer thread (started on first use), which
 * copies the pieces out; *done is a marker after the job's end. Without a
 * thread, the job runs here. Called with x->enq_lock held; releases it. */
static vncl_status job_hand_over(vncl_context *ctx, struct vncl__xfer *x,
                                 vncl__job *j, cl_event *done,
                                 vncl__xstatus **status) {
  cl_event marker = NULL;
  cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, 1, &j->done, &marker);
  vncl__xstatus *xs = j->status; /* the job may be gone once handed over */
  if (xs) atomic_fetch_add(&xs->refs, 1);
  bool threaded = false;
  if (!err) {
    pthread_mutex_lock(&x->lock);
    if (!x->worker_started &&
        pthread_create(&x->worker, NULL, worker_main, x) == 0)
      x->worker_started = true;
    threaded = x->worker_started;
    if (threaded) {
      if (x->tail)
        x->tail->next = j;
      else
        x->head = j;
      x->tail = j;
      pthread_cond_signal(&x->work);
    }
    pthread_mutex_unlock(&x->lock);
  }
  pthread_mutex_unlock(&x->enq_lock);
  clFlush(ctx->queue);
  vncl_status s = VNCL_OK;
  if (!threaded) {
    /* No thread (or no marker): finish here, before returning. */
    vncl__log(VNCL_LOG_WARN, "staged read finished in the calling thread");
    s = run_job(ctx, j);
  }
  if (err || s) {
    if (marker) clReleaseEvent(marker);
    vncl__xstatus_release(xs);
    return err ? vncl__cl_fail(ctx, err, "clEnqueueMarkerWithWaitList") : s;
  }
  if (done)
    *done = marker;
  else
    clReleaseEvent(marker);
  if (status)
    *status = xs;
  else
    vncl__xstatus_release(xs);
  return VNCL_OK;
}

static vncl_status staged_read(vncl_context *ctx, struct vncl__xfer *x,
                               cl_mem mem, size_t offset, unsigned char *dst,
                               size_t bytes, bool async, cl_event pre,
                               cl_event *done, vncl__xstatus **status,
                               vncl__chunk **c, unsigned k) {
  size_t piece = piece_size(bytes, min_chunk(c, k));
  size_t n = (bytes + piece - 1) / piece;
  if (n < k) {
    vncl__chunks_release(x, c + n, k - (unsigned)n);
    k = (unsigned)n;
  }
  vncl__job *j = NULL;
  vncl_status s = job_make(ctx, x, dst, bytes, piece, n, c, k, async,
                           status != NULL, &j);
  if (s) return s;
  if (async) pthread_mutex_lock(&x->enq_lock);
  size_t enq = 0;
  cl_int err = enqueue_reads(ctx, j, mem, offset, pre, &enq);
  if (err) {
    if (async) pthread_mutex_unlock(&x->enq_lock);
    job_abandon(j, enq);
    return vncl__cl_fail(ctx, err, "clEnqueueReadBuffer(staged)");
  }
  if (!async) return run_job(ctx, j);
  return job_hand_over(ctx, x, j, done, status);
}

/* ---- dispatch ---------------------------------------------------------- */

vncl_status vncl__transfer(vncl_context *ctx, int dir, cl_mem mem,
                           size_t offset, void *host, size_t bytes, bool async,
                           cl_uint nwait, const cl_event *wait,
                           cl_event *done, vncl__xstatus **status) {
  if (status) *status = NULL;
  if (bytes == 0) {
    if (async && done) {
      cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, nwait,
                                               nwait ? wait : NULL, done);
      if (err) return vncl__cl_fail(ctx, err, "clEnqueueMarkerWithWaitList");
    }
    return VNCL_OK;
  }
  struct vncl__xfer *x = vncl__xfer_get(ctx);
  if (!x) return VNCL_ERR_OUT_OF_MEMORY;
  bool pinned = vncl__pinned_contains(x, host, bytes);
  vncl_transfer_path path = VNCL_TRANSFER_DIRECT;
  unsigned depth;
  size_t chunk;
  pthread_mutex_lock(&x->lock);
  const vncl_transfer_config *cfg = &x->cfg;
  if (!pinned) {
    if (dir == VNCL__WRITE)
      path = bytes < cfg->write_threshold ? cfg->write_small : cfg->write_large;
    else
      path = bytes < cfg->read_threshold ? cfg->read_small : cfg->read_large;
  }
  depth = cfg->depth;
  chunk = (size_t)cfg->chunk_bytes;
  vncl__stage_via via = x->stage_via;
  pthread_mutex_unlock(&x->lock);
  if (path == VNCL_TRANSFER_MAP && async) path = VNCL_TRANSFER_DIRECT;
  /* Staging through chunks orders its copies with user events, on which a
   * serial driver deadlocks (runtime/driver.c). */
  if (path == VNCL_TRANSFER_STAGED && ctx->info.serial_driver &&
      via != VNCL__STAGE_TENSOR)
    path = VNCL_TRANSFER_DIRECT;

  vncl_status s;
  /* The caller's pinned memory goes direct so that a discrete device's
   * copy engine reads it; a tensor in SVM takes the host copy instead (the
   * driver's copy would be the same copy plus a command's round trip). */
  if (pinned && !async && ctx->svm) {
    unsigned char *view = vncl__svm_host_ptr(mem);
    if (view) {
      s = host_view_copy(ctx, dir, view + offset, host, bytes);
      if (!s) count(x, path, true, bytes);
      return s;
    }
  }
  if (path == VNCL_TRANSFER_STAGED && via == VNCL__STAGE_TENSOR) {
    /* A device that shares host memory: the tensor's mapping is pinned
     * host memory the device uses as it is, so staging copies once, into
     * or out of it (blocking), and an async transfer goes direct (the
     * driver's one copy; mapping would wait for the queue). Two copies
     * through chunks cannot reach memcpy speed there (docs/transfers.md). */
    s = async ? direct(ctx, dir, mem, offset, host, bytes, true, nwait, wait,
                       done)
              : mapped(ctx, x, dir, mem, offset, host, bytes);
    if (!s)
      count(x, async ? VNCL_TRANSFER_DIRECT : VNCL_TRANSFER_MAP, false, bytes);
    return s;
  }
  if (path == VNCL_TRANSFER_STAGED) {
    size_t pieces = (bytes + piece_size(bytes, chunk) - 1) /
                    piece_size(bytes, chunk);
    unsigned want = pieces < depth ? (unsigned)pieces : depth;
    vncl__chunk *c[VNCL__MAX_DEPTH];
    bool waited;
    unsigned k = vncl__chunks_acquire(ctx, x, want, c, &waited);
    if (k == 0) {
      path = VNCL_TRANSFER_DIRECT; /* counted as a fallback */
    } else {
      cl_event pre = NULL;
      if (nwait) {
        cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, nwait, wait, &pre);
        if (err) {
          vncl__chunks_release(x, c, k);
          return vncl__cl_fail(ctx, err, "clEnqueueMarkerWithWaitList");
        }
      }
      s = dir == VNCL__WRITE
              ? staged_write(ctx, x, mem, offset, host, bytes, async, pre,
                             done, c, k)
              : staged_read(ctx, x, mem, offset, host, bytes, async, pre,
                            done, status, c, k);
      if (pre) clReleaseEvent(pre);
      if (!s) count(x, path, false, bytes);
      return s;
    }
  }
  if (path == VNCL_TRANSFER_MAP)
    s = mapped(ctx, x, dir, mem, offset, host, bytes);
  else
    s = direct(ctx, dir, mem, offset, host, bytes, async, nwait, wait, done);
  if (!s) count(x, path, pinned, bytes);
  return s;
}

void vncl__transfer_sync(vncl_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  struct vncl__xfer *x = ctx->xfer;
  pthread_mutex_unlock(&ctx->lock);
  if (!x) return;
  pthread_mutex_lock(&x->lock);
  pthread_mutex_unlock(&x->lock);
}

void vncl__transfer_shutdown(vncl_context *ctx) {
  struct vncl__xfer *x = ctx->xfer;
  if (!x) return;
  if (x->worker_started) {
    pthread_mutex_lock(&x->lock);
    x->stop = true;
    pthread_cond_signal(&x->work);
    pthread_mutex_unlock(&x->lock);
    pthread_join(x->worker, NULL);
  }
  vncl__pinned_free_all(ctx, x);
  vncl__staging_free(ctx, x);
  pthread_cond_destroy(&x->freed);
  pthread_cond_destroy(&x->work);
  pthread_mutex_destroy(&x->enq_lock);
  for (int i = 0; i < 16; i++) pthread_mutex_destroy(&x->map_locks[i]);
  pthread_mutex_destroy(&x->lock);
  free(x);
  ctx->xfer = NULL;
}
