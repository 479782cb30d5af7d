/* GEMM on host memory split over the devices of a group.
 *
 * After the checks, a column-major product becomes a row-major one
 * (C^T = B^T A^T), then the work is cut along one dimension of C: the batch
 * (enough products for every device), else the rows or the columns
 * (whichever is longer), in proportion to the devices' speeds. Each device
 * runs its part in its own host thread as a pipeline of steps (panels):
 *
 *   h2d queue   write A_p (and B_p, C_p)   write A_p+1 ...
 *   ctx queue                gemm_p                 gemm_p+1
 *   d2h queue                         read C_p               read C_p+1
 *
 * through two slots of device memory, ordered by events only: a write into
 * a slot waits for the gemm that last read it, a gemm waits for the read of
 * the C it is about to overwrite. The operand that every step shares (B for
 * row panels, A for column panels, or one broadcast in a batch) is written
 * once. Sub-matrices travel with clEnqueue{Write,Read}BufferRect between
 * the caller's strided matrices and dense device buffers, so there is no
 * host-side packing; the transfer commands are timed by the context's
 * profiler as "group_write" and "group_read". */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gemm/gemm.h"
#include "group/group.h"

#define SLOTS 2
#define MAX_STEPS 4
#define PANEL_UNIT 16      /* rows / columns: shares are multiples of it */
#define STEP_FLOPS 2.5e8   /* below this a part is one step */

/* The product in row-major form; strides and leading dimensions in
 * elements. */
typedef struct problem {
  vncl_dtype dt;
  size_t es;
  vncl_trans ta, tb;
  size_t m, n, k, batch;
  double alpha, beta;
  const unsigned char *a, *b;
  unsigned char *c;
  size_t lda, ldb, ldc, sa, sb, sc;
  bool read_ab; /* k > 0 and alpha != 0 */
  double step_flops; /* the group's work per step (its settings) */
} problem;

typedef struct part {
  vncl__group_dev *dev;
  const problem *p;
  vncl_group_split split;
  size_t lo, hi; /* along the split dimension */
  int steps;
  double seconds;
  vncl_status status;
  char msg[768];
} part;

/* A block of C: products [b0, b1), rows [r0, r1), columns [c0, c1). */
typedef struct block {
  size_t b0, b1, r0, r1, c0, c1;
} block;

/* A region of a stored operand: `nmat` matrices (host stride hs, device
 * stride ds = rows*cols or 0 when shared), rows x cols from (row0, col0). */
typedef struct region {
  size_t item0, nmat, row0, col0, rows, cols, ld, hs;
  bool shared; /* one matrix serves every product (stride 0) */
} region;

static size_t region_elems(const region *r) {
  return (r->shared ? 1 : r->nmat) * r->rows * r->cols;
}

/* op(A) rows [r0, r1) of products [b0, b1), as stored. */
static region region_a(const problem *p, const block *bl) {
  region r = {bl->b0, bl->b1 - bl->b0, 0, 0, 0, 0, p->lda, p->sa, p->sa == 0};
  if (p->ta == VNCL_NO_TRANS) {
    r.row0 = bl->r0;
    r.rows = bl->r1 - bl->r0;
    r.cols = p->k;
  } else {
    r.col0 = bl->r0;
    r.rows = p->k;
    r.cols = bl->r1 - bl->r0;
  }
  return r;
}

/* op(B) columns [c0, c1) of products [b0, b1), as stored. */
static region region_b(const problem *p, const block *bl) {
  region r = {bl->b0, bl->b1 - bl->b0, 0, 0, 0, 0, p->ldb, p->sb, p->sb == 0};
  if (p->tb == VNCL_NO_TRANS) {
    r.col0 = bl->c0;
    r.rows = p->k;
    r.cols = bl->c1 - bl->c0;
  } else {
    r.row0 = bl->c0;
    r.rows = bl->c1 - bl->c0;
    r.cols = p->k;
  }
  return r;
}

static region region_c(const problem *p, const block *bl) {
  region r = {bl->b0,         bl->b1 - bl->b0, bl->r0, bl->c0,
              bl->r1 - bl->r0, bl->c1 - bl->c0, p->ldc, p->sc, false};
  return r;
}

/* Moves a region between the caller's matrices and a dense buffer (rows of
 * `cols`, matrices rows*cols apart) with rect transfers: one 3-D command
 * when the host stride allows it, else one per matrix. The first command
 * waits for the wait list; the queue being in order, so do the others.
 * *ev: the last command's event (NULL when there was nothing to move). */
static cl_int move_region(vncl_context *ctx, cl_command_queue q, bool write,
                          cl_mem buf, const region *r, size_t es,
                          const unsigned char *host, cl_uint nw,
                          const cl_event *wl, cl_event *ev) {
  *ev = NULL;
  size_t nmat = r->shared ? 1 : r->nmat;
  if (!r->rows || !r->cols || !nmat) return CL_SUCCESS;
  size_t hrow = r->ld * es, brow = r->cols * es, bslice = r->rows * brow;
  size_t hslice = r->hs * es;
  const unsigned char *base = host + r->item0 * r->hs * es;
  bool one = nmat == 1 || (hslice >= r->rows * hrow && hslice % hrow == 0);
  size_t per = one ? nmat : 1, cmds = one ? 1 : nmat;
  size_t hsp = per > 1 ? hslice : 0;
  cl_int err = CL_SUCCESS;
  for (size_t i = 0; i < cmds && !err; i++) {
    size_t borg[3] = {0, 0, i}; /* matrix i: slice i of the buffer */
    size_t horg[3] = {r->col0 * es, r->row0, 0};
    size_t reg[3] = {brow, r->rows, per};
    const unsigned char *h = base + i * hslice;
    cl_event e = NULL;
    cl_uint n = i == 0 ? nw : 0;
    const cl_event *w = n ? wl : NULL;
    /* Each command is timed on the context's profile (the launch path). */
    err = vncl__enqueue_rect(ctx, q, write ? "group_write" : "group_read",
                             write, buf, borg, horg, reg, brow, bslice, hrow,
                             hsp, (void *)h, n, w, &e);
    if (!err) {
      if (*ev) clReleaseEvent(*ev);
      *ev = e;
    }
  }
  return err;
}

/* ---- one device's part --------------------------------------------------- */

typedef struct events {
  cl_event *list;
  size_t n, cap;
} events;

static bool ev_keep(events *e, cl_event ev) {
  if (!ev) return true;
  if (e->n == e->cap) {
    size_t cap = e->cap ? 2 * e->cap : 32;
    cl_event *l = realloc(e->list, cap * sizeof *l);
    if (!l) return false;
    e->list = l;
    e->cap = cap;
  }
  e->list[e->n++] = ev;
  return true;
}

/* The block of step s of a part (steps of `len` along the split). */
static block step_block(const part *pt, size_t s0, size_t s1) {
  const problem *p = pt->p;
  block bl = {0, p->batch, 0, p->m, 0, p->n};
  if (pt->split == VNCL_GROUP_SPLIT_BATCH) {
    bl.b0 = s0;
    bl.b1 = s1;
  } else if (pt->split == VNCL_GROUP_SPLIT_ROWS) {
    bl.r0 = s0;
    bl.r1 = s1;
  } else {
    bl.c0 = s0;
    bl.c1 = s1;
  }
  return bl;
}

/* One device's part in flight: the plan of its steps, its buffers, the
 * events that order them, and the first error (an OpenCL code with the
 * command that gave it, or a status already recorded). */
typedef struct pipeline {
  part *pt;
  vncl_context *ctx;
  cl_command_queue h2d, d2h;
  const problem *p;
  size_t steps, step, nslots;
  bool a_fixed, b_fixed; /* written once into slot 0 (shared by every step) */
  region ra0, rb0;       /* their regions */
  size_t a_bytes, b_bytes, c_bytes;
  cl_mem abuf[SLOTS], bbuf[SLOTS], cbuf[SLOTS];
  events all; /* every panel write's event, released at the end */
  cl_event gev[MAX_STEPS], rev[MAX_STEPS]; /* each step's gemm and read */
  cl_event ready, afix, bfix;
  bool first_h2d; /* no transfer enqueued yet: the next waits for `ready` */
  vncl_status s;
  cl_int err;
  const char *what;
} pipeline;

/* Steps: a few, so that transfers overlap, but each worth a launch; their
 * length a multiple of the panel unit. */
static void plan_steps(pipeline *pl) {
  const part *pt = pl->pt;
  const problem *p = pl->p;
  size_t len = pt->hi - pt->lo;
  size_t unit = pt->split == VNCL_GROUP_SPLIT_BATCH ? 1 : PANEL_UNIT;
  block whole = step_block(pt, pt->lo, pt->hi);
  double flops = 2.0 * (double)(whole.b1 - whole.b0) *
                 (double)(whole.r1 - whole.r0) *
                 (double)(whole.c1 - whole.c0) * (double)p->k;
  double per_step = p->step_flops > 0 ? p->step_flops : STEP_FLOPS;
  double want = flops / per_step;
  size_t steps = want >= MAX_STEPS ? MAX_STEPS : want < 1 ? 1 : (size_t)want;
  size_t step = (len + steps - 1) / steps;
  step = (step + unit - 1) / unit * unit;
  pl->step = step;
  pl->steps = (len + step - 1) / step;
  pl->nslots = pl->steps < SLOTS ? pl->steps : SLOTS;
  pl->pt->steps = (int)pl->steps;
}

/* Which operands every step shares (written once into slot 0), and the
 * device buffers: scratch, since each is written whole before a kernel
 * reads it (A and B are not read when k or alpha is 0, C not when beta
 * is 0). */
static void alloc_buffers(pipeline *pl) {
  const part *pt = pl->pt;
  const problem *p = pl->p;
  size_t len = pt->hi - pt->lo, es = p->es;
  block first =
      step_block(pt, pt->lo, pt->lo + (pl->step < len ? pl->step : len));
  pl->ra0 = region_a(p, &first);
  pl->rb0 = region_b(p, &first);
  pl->a_fixed = pt->split == VNCL_GROUP_SPLIT_COLS ||
                (pt->split == VNCL_GROUP_SPLIT_BATCH && pl->ra0.shared);
  pl->b_fixed = pt->split == VNCL_GROUP_SPLIT_ROWS ||
                (pt->split == VNCL_GROUP_SPLIT_BATCH && pl->rb0.shared);
  region rc0 = region_c(p, &first);
  pl->a_bytes = region_elems(&pl->ra0) * es;
  pl->b_bytes = region_elems(&pl->rb0) * es;
  pl->c_bytes = region_elems(&rc0) * es;
  size_t na = pl->a_fixed ? 1 : pl->nslots, nb = pl->b_fixed ? 1 : pl->nslots;
  for (size_t i = 0; i < na && !pl->s; i++)
    pl->s = vncl__buffer_alloc_scratch(pl->ctx, pl->a_bytes, &pl->abuf[i]);
  for (size_t i = 0; i < nb && !pl->s; i++)
    pl->s = vncl__buffer_alloc_scratch(pl->ctx, pl->b_bytes, &pl->bbuf[i]);
  for (size_t i = 0; i < pl->nslots && !pl->s; i++)
    pl->s = vncl__buffer_alloc_scratch(pl->ctx, pl->c_bytes, &pl->cbuf[i]);
}

/* The allocator touches new buffers on ctx's queue: the transfer queues
 * start after that (`ready`). */
static void mark_ready(pipeline *pl) {
  pl->err = clEnqueueMarkerWithWaitList(pl->ctx->queue, 0, NULL, &pl->ready);
  pl->what = "clEnqueueMarkerWithWaitList";
  if (!pl->err) clFlush(pl->ctx->queue);
}

/* Until one transfer has been enqueued on h2d, each waits for `ready`. */
static void h2d_wait(const pipeline *pl, cl_event *wl, cl_uint *n) {
  if (pl->first_h2d) wl[(*n)++] = pl->ready;
}

/* Writes `r` of host operand `host` into buf on h2d after the wait list;
 * *ev: the write's last event. */
static void write_panel(pipeline *pl, cl_mem buf, const region *r,
                        const unsigned char *host, const char *what,
                        cl_uint n, cl_event *wl, cl_event *ev) {
  h2d_wait(pl, wl, &n);
  pl->err = move_region(pl->ctx, pl->h2d, true, buf, r, pl->p->es, host, n,
                        wl, ev);
  pl->what = what;
  if (!pl->err && *ev) pl->first_h2d = false;
}

/* The operands every step shares, once. */
static void write_fixed(pipeline *pl) {
  cl_event wl[1];
  if (pl->a_fixed)
    write_panel(pl, pl->abuf[0], &pl->ra0, pl->p->a,
                "clEnqueueWriteBufferRect(A)", 0, wl, &pl->afix);
  if (!pl->err && pl->b_fixed)
    write_panel(pl, pl->bbuf[0], &pl->rb0, pl->p->b,
                "clEnqueueWriteBufferRect(B)", 0, wl, &pl->bfix);
  if (!pl->err) clFlush(pl->h2d);
}

/* Step st's panels of A and B (the slot's last gemm must be done with
 * them) and of C when beta != 0 (the slot's last read must be done). */
static void write_step(pipeline *pl, size_t st, const block *bl,
                       cl_event ev[3]) {
  const problem *p = pl->p;
  size_t slot = st % pl->nslots;
  bool again = st >= pl->nslots;
  region ra = region_a(p, bl), rb = region_b(p, bl), rc = region_c(p, bl);
  cl_event wl[3];
  if (p->read_ab && !pl->a_fixed) {
    if (again) wl[0] = pl->gev[st - pl->nslots];
    write_panel(pl, pl->abuf[slot], &ra, p->a, "clEnqueueWriteBufferRect(A)",
                again, wl, &ev[0]);
  }
  if (!pl->err && p->read_ab && !pl->b_fixed) {
    if (again) wl[0] = pl->gev[st - pl->nslots];
    write_panel(pl, pl->bbuf[slot], &rb, p->b, "clEnqueueWriteBufferRect(B)",
                again, wl, &ev[1]);
  }
  if (!pl->err && p->beta != 0) {
    if (again) wl[0] = pl->rev[st - pl->nslots];
    write_panel(pl, pl->cbuf[slot], &rc, p->c, "clEnqueueWriteBufferRect(C)",
                again, wl, &ev[2]);
  }
  if (!pl->err) clFlush(pl->h2d);
}

/* Step st's product on the context's queue, after its panels (ev), the
 * fixed operands and, when C was not written, the slot's last read. */
static void gemm_step(pipeline *pl, size_t st, const block *bl,
                      const cl_event ev[3]) {
  const problem *p = pl->p;
  size_t slot = st % pl->nslots;
  region ra = region_a(p, bl), rb = region_b(p, bl);
  cl_event gw[5];
  cl_uint n = 0;
  for (int i = 0; i < 3; i++)
    if (ev[i]) gw[n++] = ev[i];
  if (pl->afix) gw[n++] = pl->afix;
  if (pl->bfix) gw[n++] = pl->bfix;
  if (!ev[2] && st >= pl->nslots && pl->rev[st - pl->nslots] && n < 5)
    gw[n++] = pl->rev[st - pl->nslots];
  size_t mb = bl->r1 - bl->r0, nbc = bl->c1 - bl->c0, items = bl->b1 - bl->b0;
  size_t ald = ra.cols ? ra.cols : 1, bld = rb.cols ? rb.cols : 1;
  size_t cld = nbc ? nbc : 1;
  size_t ast = ra.shared ? 0 : ra.rows * ra.cols;
  size_t bst = rb.shared ? 0 : rb.rows * rb.cols;
  cl_mem am = pl->abuf[pl->a_fixed ? 0 : slot];
  cl_mem bm = pl->bbuf[pl->b_fixed ? 0 : slot];
  /* A fixed in a column split holds the whole op(A); B fixed in a row
   * split the whole op(B): the block's part starts at 0 either way. */
  pl->s = vncl_gemm_cl_event(pl->ctx, p->dt, VNCL_ROW_MAJOR, p->ta, p->tb, mb,
                             nbc, p->k, p->alpha, am, 0, ald, ast, bm, 0, bld,
                             bst, p->beta, pl->cbuf[slot], 0, cld, mb * nbc,
                             items, n, n ? gw : NULL, &pl->gev[st]);
  if (!pl->s) clFlush(pl->ctx->queue);
}

/* Step st's C panel back to the host after its product. */
static void read_step(pipeline *pl, size_t st, const block *bl) {
  region rc = region_c(pl->p, bl);
  pl->err = move_region(pl->ctx, pl->d2h, false, pl->cbuf[st % pl->nslots],
                        &rc, pl->p->es, pl->p->c, 1, &pl->gev[st],
                        &pl->rev[st]);
  pl->what = "clEnqueueReadBufferRect(C)";
  if (!pl->err && pl->rev[st]) clFlush(pl->d2h);
}

static void run_steps(pipeline *pl) {
  const part *pt = pl->pt;
  for (size_t st = 0; st < pl->steps && !pl->s && !pl->err; st++) {
    size_t s0 = pt->lo + st * pl->step;
    size_t s1 = s0 + pl->step < pt->hi ? s0 + pl->step : pt->hi;
    block bl = step_block(pt, s0, s1);
    cl_event ev[3] = {NULL, NULL, NULL};
    write_step(pl, st, &bl, ev);
    if (!ev_keep(&pl->all, ev[0]) || !ev_keep(&pl->all, ev[1]) ||
        !ev_keep(&pl->all, ev[2])) {
      pl->s = vncl__fail(pl->ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
      break;
    }
    if (pl->err) break;
    gemm_step(pl, st, &bl, ev);
    if (pl->s) break;
    read_step(pl, st, &bl);
  }
}

/* Everything enqueued finishes before the buffers go; a command that failed
 * on the device fails the part. */
static void finish(pipeline *pl) {
  vncl_context *ctx = pl->ctx;
  if (pl->err && !pl->s) pl->s = vncl__cl_fail(ctx, pl->err, pl->what);
  cl_int ferr = clFinish(pl->h2d);
  cl_int f2 = clFinish(ctx->queue);
  cl_int f3 = clFinish(pl->d2h);
  if (!pl->s && (ferr || f2 || f3))
    pl->s = vncl__cl_fail(ctx, ferr ? ferr : f2 ? f2 : f3, "clFinish");
  events *all = &pl->all;
  ev_keep(all, pl->afix);
  ev_keep(all, pl->bfix);
  ev_keep(all, pl->ready);
  for (size_t i = 0; i < MAX_STEPS; i++) {
    ev_keep(all, pl->gev[i]);
    ev_keep(all, pl->rev[i]);
  }
  for (size_t i = 0; i < all->n; i++) {
    cl_int stt = CL_COMPLETE;
    clGetEventInfo(all->list[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                   sizeof stt, &stt, NULL);
    if (stt < 0 && !pl->s)
      pl->s = vncl__fail(ctx, VNCL_ERR_OPENCL,
                         "a command of the device's part failed: %s (%d)",
                         vncl__cl_error_name(stt), (int)stt);
    clReleaseEvent(all->list[i]);
  }
  free(all->list);
  for (size_t i = 0; i < SLOTS; i++) {
    if (pl->abuf[i]) vncl__buffer_free(ctx, pl->abuf[i], pl->a_bytes);
    if (pl->bbuf[i]) vncl__buffer_free(ctx, pl->bbuf[i], pl->b_bytes);
    if (pl->cbuf[i]) vncl__buffer_free(ctx, pl->cbuf[i], pl->c_bytes);
  }
}

/* One device's part: plan, buffers, the shared operands, the steps, and
 * the wait for all of it. */
static vncl_status run_part(part *pt) {
  double t0 = vncl__now();
  pipeline pl = {.pt = pt,
                 .ctx = pt->dev->ctx,
                 .h2d = pt->dev->h2d,
                 .d2h = pt->dev->d2h,
                 .p = pt->p,
                 .first_h2d = true,
                 .what = ""};
  plan_steps(&pl);
  alloc_buffers(&pl);
  if (!pl.s) mark_ready(&pl);
  if (!pl.s && !pl.err && pl.p->read_ab) write_fixed(&pl);
  run_steps(&pl);
  finish(&pl);
  pt->seconds = vncl__now() - t0;
  if (pl.s) vncl__strlcpy(pt->msg, vncl_errmsg(pl.ctx), sizeof pt->msg);
  pt->status = pl.s;
  return pl.s;
}

static void *part_main(void *arg) {
  run_part(arg);
  return NULL;
}

/* ---- checks -------------------------------------------------------------------- */

/* Elements spanned by `batch` matrices of `outer` rows of `inner`
 * elements, ld apart, stride apart; false on overflow. */
static bool span(size_t outer, size_t inner, size_t ld, size_t stride,
                 size_t batch, size_t es, size_t *out) {
  if (!outer || !inner || !batch) {
    *out = 0;
    return true;
  }
  size_t a, b, e;
  if (!vncl__mul_overflow(outer - 1, ld, &a) ||
      !vncl__mul_overflow(batch - 1, stride, &b) || a > SIZE_MAX - b ||
      a + b > SIZE_MAX - inner)
    return false;
  e = a + b + inner;
  return vncl__mul_overflow(e, es, out);
}

static vncl_status check_matrix(const char *fn, const char *name,
                                const void *ptr, size_t outer, size_t inner,
                                size_t ld, const char *ldname, size_t stride,
                                size_t batch, size_t es) {
  if (!ptr)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: %s is NULL", fn, name);
  size_t bytes;
  vncl_status s = vncl__gemm_check_ld(NULL, fn, ldname, ld, inner);
  if (s) return s;
  if (!span(outer, inner, ld, stride, batch, es, &bytes))
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "%s: the extent of %s (%zu x %zu, %s %zu, batch %zu) "
                      "overflows",
                      fn, name, outer, inner, ldname, ld, batch);
  return VNCL_OK;
}

/* The checks of gemm.c's front end (vncl__gemm_check_*), on host
 * matrices, with f64 needing every device of the group. */
static vncl_status check_args(vncl_group *g, const char *fn,
                              const vncl__gemm_args *ga, const void *a,
                              const void *b, void *c) {
  if (!g) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: g is NULL", fn);
  vncl_status s = vncl__gemm_check_dtype(NULL, fn, "dtype", ga->dtype);
  if (s) return s;
  for (int i = 0; ga->dtype == VNCL_F64 && i < g->n; i++)
    if (!g->dev[i].ctx->info.fp64)
      return vncl__fail(NULL, VNCL_ERR_UNSUPPORTED,
                        "%s: f64 needs double precision, which device %d "
                        "(%s) lacks",
                        fn, i, g->dev[i].ctx->info.name);
  if ((s = vncl__gemm_check_form(NULL, fn, ga))) return s;
  size_t es = vncl_dtype_size(ga->dtype), ao, ai, bo, bi, co, ci;
  vncl__gemm_stored(ga, 'a', &ao, &ai);
  vncl__gemm_stored(ga, 'b', &bo, &bi);
  vncl__gemm_stored(ga, 'c', &co, &ci);
  s = check_matrix(fn, "a", a, ao, ai, ga->lda, "lda", ga->stride_a,
                   ga->batch, es);
  if (!s)
    s = check_matrix(fn, "b", b, bo, bi, ga->ldb, "ldb", ga->stride_b,
                     ga->batch, es);
  if (!s)
    s = check_matrix(fn, "c", c, co, ci, ga->ldc, "ldc", ga->stride_c,
                     ga->batch, es);
  if (!s) s = vncl__gemm_check_c_overlap(NULL, fn, ga);
  return s;
}

/* ---- the split ------------------------------------------------------------------ */

/* Shares of `len` in multiples of `unit`, in proportion to w (largest
 * remainder); out[i] in elements, summing to len. */
static void shares(size_t len, size_t unit, const double *w, int n,
                   size_t *out) {
  size_t units = (len + unit - 1) / unit, given = 0;
  double sum = 0, frac[VNCL_GROUP_MAX_DEVICES];
  for (int i = 0; i < n; i++) sum += w[i];
  for (int i = 0; i < n; i++) {
    double exact = (double)units * w[i] / sum;
    out[i] = (size_t)exact;
    frac[i] = exact - (double)out[i];
    given += out[i];
  }
  while (given < units) {
    int best = 0;
    for (int i = 1; i < n; i++)
      if (frac[i] > frac[best]) best = i;
    out[best]++;
    frac[best] = -1;
    given++;
  }
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    size_t e = out[i] * unit;
    if (e > len - at) e = len - at;
    out[i] = e;
    at += e;
  }
}

static vncl_status group_gemm(vncl_group *g, const char *fn, vncl_dtype dt,
                              vncl_layout layout, vncl_trans ta,
                              vncl_trans tb, size_t m, size_t n, size_t k,
                              double alpha, const void *a, size_t lda,
                              size_t sa, const void *b, size_t ldb, size_t sb,
                              double beta, void *c, size_t ldc, size_t sc,
                              size_t batch) {
  const vncl__gemm_args ga = {.dtype = dt, .layout = layout, .ta = ta,
                              .tb = tb, .m = m, .n = n, .k = k,
                              .batch = batch, .lda = lda, .ldb = ldb,
                              .ldc = ldc, .stride_a = sa, .stride_b = sb,
                              .stride_c = sc};
  vncl_status s = check_args(g, fn, &ga, a, b, c);
  if (s) return s;
  double t0 = vncl__now();
  vncl_group_run run;
  memset(&run, 0, sizeof run);
  run.devices = g->n;
  if (m == 0 || n == 0 || batch == 0) {
    vncl__group_record(g, &run);
    return VNCL_OK;
  }
  problem p = {dt, vncl_dtype_size(dt), ta, tb, m, n, k, batch, alpha, beta,
               a, b, c, lda, ldb, ldc, sa, sb, sc, k > 0 && alpha != 0,
               g->step_flops};
  if (layout == VNCL_COL_MAJOR) { /* C^T = op(B)^T op(A)^T, row-major */
    p.m = n;
    p.n = m;
    p.ta = tb;
    p.tb = ta;
    p.a = b;
    p.b = a;
    p.lda = ldb;
    p.ldb = lda;
    p.sa = sb;
    p.sb = sa;
  }
  if (batch == 1) p.sa = p.sb = p.sc = 0;
  if (batch == 1) p.sc = p.m * p.ldc; /* unused; keeps the 3-D rule simple */
  double speeds[VNCL_GROUP_MAX_DEVICES];
  vncl__group_speeds_get(g, speeds);
  vncl_group_split split;
  size_t len, unit;
  if (batch >= 2 * (size_t)g->n) {
    split = VNCL_GROUP_SPLIT_BATCH;
    len = batch;
    unit = 1;
  } else if (p.m >= p.n) {
    split = VNCL_GROUP_SPLIT_ROWS;
    len = p.m;
    unit = PANEL_UNIT;
  } else {
    split = VNCL_GROUP_SPLIT_COLS;
    len = p.n;
    unit = PANEL_UNIT;
  }
  size_t sh[VNCL_GROUP_MAX_DEVICES];
  shares(len, unit, speeds, g->n, sh);
  part parts[VNCL_GROUP_MAX_DEVICES];
  pthread_t th[VNCL_GROUP_MAX_DEVICES];
  bool started[VNCL_GROUP_MAX_DEVICES] = {false};
  int last = -1;
  size_t at = 0;
  for (int i = 0; i < g->n; i++) {
    parts[i] = (part){&g->dev[i], &p, split, at, at + sh[i], 0, 0, VNCL_OK,
                      ""};
    at += sh[i];
    if (sh[i]) last = i;
  }
  /* One thread per device with work; the last part runs here. */
  for (int i = 0; i < g->n; i++) {
    if (!sh[i] || i == last) continue;
    if (pthread_create(&th[i], NULL, part_main, &parts[i]) == 0)
      started[i] = true;
    else
      run_part(&parts[i]); /* no thread: run it here, in turn */
  }
  run_part(&parts[last]);
  for (int i = 0; i < g->n; i++)
    if (started[i]) pthread_join(th[i], NULL);
  for (int i = 0; i < g->n; i++)
    if (sh[i] && parts[i].status)
      return vncl__fail(NULL, parts[i].status, "%s: device %d (%s): %s", fn,
                        i, g->dev[i].ctx->info.name, parts[i].msg);
  run.split = split;
  for (int i = 0; i < g->n; i++) {
    run.share[i] = sh[i];
    run.steps[i] = parts[i].steps;
    run.seconds[i] = parts[i].seconds;
    run.speeds[i] = speeds[i];
  }
  run.wall_seconds = vncl__now() - t0;
  vncl__group_record(g, &run);
  return VNCL_OK;
}

vncl_status vncl_group_gemm(vncl_group *g, vncl_dtype dtype,
                            vncl_layout layout, vncl_trans ta, vncl_trans tb,
                            size_t m, size_t n, size_t k, double alpha,
                            const void *a, size_t lda, const void *b,
                            size_t ldb, double beta, void *c, size_t ldc) {
  return group_gemm(g, "vncl_group_gemm", dtype, layout, ta, tb, m, n, k,
                    alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1);
}

vncl_status vncl_group_gemm_batched(
    vncl_group *g, vncl_dtype dtype, vncl_layout layout, vncl_trans ta,
    vncl_trans tb, size_t m, size_t n, size_t k, double alpha, const void *a,
    size_t lda, size_t stride_a, const void *b, size_t ldb, size_t stride_b,
    double beta, void *c, size_t ldc, size_t stride_c, size_t batch) {
  return group_gemm(g, "vncl_group_gemm_batched", dtype, layout, ta, tb, m, n,
                    k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c,
                    ldc, stride_c, batch);
}
