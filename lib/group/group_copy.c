/* Copies between the devices of a group. Each device has its own OpenCL
 * context, so no device command can read another device's buffer: the data
 * goes through pinned host memory of the source's context, in chunks, with
 * the source reading chunk i + 1 (and i + 2) while the destination writes
 * chunk i. Cross-context events cannot sit in a wait list, so the host
 * thread joins the two queues: it waits for a read before enqueuing the
 * write of that chunk, and for a write before reusing its chunk. */
#include <stdio.h>
#include <string.h>

#include "group/group.h"

#define DEPTH 3
#define CHUNK ((size_t)4 << 20)

static cl_int ev_wait(cl_event ev) {
  cl_int err = clWaitForEvents(1, &ev);
  cl_int st = CL_COMPLETE;
  clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
  return st < 0 ? st : err;
}

static vncl_status copy_same(vncl_context *ctx, vncl_tensor *dst,
                             const vncl_tensor *src) {
  cl_event ev = NULL;
  cl_int err = vncl__enqueue_copy(ctx, ctx->queue, "group_copy", src->mem,
                                  dst->mem, src->offset, dst->offset,
                                  src->bytes, 0, NULL, &ev);
  if (!err) {
    err = ev_wait(ev);
    clReleaseEvent(ev);
  }
  return err ? vncl__cl_fail(NULL, err, "vncl_group_copy: clEnqueueCopyBuffer")
             : VNCL_OK;
}

/* The pipeline, with the source device's copy lock held. */
static vncl_status copy_through_host(vncl__group_dev *sd, vncl__group_dev *dd,
                                     vncl_tensor *dst,
                                     const vncl_tensor *src) {
  vncl_context *sc = sd->ctx, *dc = dd->ctx;
  size_t bytes = src->bytes;
  if (!sd->pinned) {
    vncl_status s = vncl_host_alloc(sc, DEPTH * CHUNK, &sd->pinned);
    if (s)
      return vncl__fail(NULL, s, "vncl_group_copy: pinned host memory on "
                        "device '%s': %s", sc->info.name, vncl_errmsg(sc));
    sd->pinned_bytes = DEPTH * CHUNK;
  }
  unsigned char *slot[DEPTH];
  for (int i = 0; i < DEPTH; i++)
    slot[i] = (unsigned char *)sd->pinned + (size_t)i * CHUNK;
  size_t nch = (bytes + CHUNK - 1) / CHUNK;
  cl_event rd[DEPTH] = {NULL}, wr[DEPTH] = {NULL};
  cl_int err = CL_SUCCESS;
  const char *what = "";
#define LEN(i) ((i) + 1 < nch ? CHUNK : bytes - (i) * CHUNK)
  for (size_t i = 0; i < nch && i < DEPTH && !err; i++) {
    err = vncl__enqueue_rw(sc, sc->queue, "group_copy", false, src->mem,
                           CL_FALSE, src->offset + i * CHUNK, LEN(i), slot[i],
                           0, NULL, &rd[i]);
    what = "clEnqueueReadBuffer(source)";
  }
  clFlush(sc->queue);
  for (size_t i = 0; i < nch && !err; i++) {
    size_t k = i % DEPTH;
    err = ev_wait(rd[k]);
    what = "reading the source";
    if (err) break;
    if (wr[k]) clReleaseEvent(wr[k]);
    wr[k] = NULL;
    err = vncl__enqueue_rw(dc, dc->queue, "group_copy", true, dst->mem,
                           CL_FALSE, dst->offset + i * CHUNK, LEN(i), slot[k],
                           0, NULL, &wr[k]);
    what = "clEnqueueWriteBuffer(destination)";
    if (err) break;
    clFlush(dc->queue);
    /* The chunk before this one is being written: once it is, its slot
     * takes the next read. */
    if (i >= 1 && i - 1 + DEPTH < nch) {
      size_t j = i - 1, kj = j % DEPTH;
      err = ev_wait(wr[kj]);
      what = "writing the destination";
      if (err) break;
      clReleaseEvent(rd[kj]);
      rd[kj] = NULL;
      err = vncl__enqueue_rw(sc, sc->queue, "group_copy", false, src->mem,
                             CL_FALSE, src->offset + (j + DEPTH) * CHUNK,
                             LEN(j + DEPTH), slot[kj], 0, NULL, &rd[kj]);
      what = "clEnqueueReadBuffer(source)";
      if (err) break;
      clFlush(sc->queue);
    }
  }
#undef LEN
  /* Everything in flight ends before the chunks are reused. */
  for (int i = 0; i < DEPTH; i++) {
    if (wr[i]) {
      cl_int e = ev_wait(wr[i]);
      if (!err && e) {
        err = e;
        what = "writing the destination";
      }
      clReleaseEvent(wr[i]);
    }
    if (rd[i]) {
      clWaitForEvents(1, &rd[i]);
      clReleaseEvent(rd[i]);
    }
  }
  if (err) {
    char w[96];
    snprintf(w, sizeof w, "vncl_group_copy: %s", what);
    return vncl__cl_fail(NULL, err, w);
  }
  return VNCL_OK;
}

vncl_status vncl_group_copy(vncl_group *g, vncl_tensor *dst,
                            const vncl_tensor *src) {
  const char *fn = "vncl_group_copy";
  if (!g || !dst || !src)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                      !g ? "g" : !dst ? "dst" : "src");
  if (dst == src)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "%s: dst and src are the same tensor", fn);
  if (dst->dtype != src->dtype || dst->numel != src->numel)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "%s: src is %zu x %s, dst %zu x %s: they must hold as "
                      "many elements of one dtype",
                      fn, src->numel, vncl_dtype_name(src->dtype), dst->numel,
                      vncl_dtype_name(dst->dtype));
  int si, di;
  if (!vncl__group_has(g, src->ctx, &si) || !vncl__group_has(g, dst->ctx, &di))
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "%s: %s is on a context outside the group", fn,
                      !vncl__group_has(g, src->ctx, NULL) ? "src" : "dst");
  if (src->bytes == 0) return VNCL_OK;
  if (si == di) return copy_same(src->ctx, dst, src);
  vncl__group_dev *sd = &g->dev[si];
  pthread_mutex_lock(&sd->copy_lock);
  vncl_status s = copy_through_host(sd, &g->dev[di], dst, src);
  pthread_mutex_unlock(&sd->copy_lock);
  return s;
}
