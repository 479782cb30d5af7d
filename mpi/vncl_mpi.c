/* vncl across hosts through MPI: a context per rank, a 2-D process grid,
 * SUMMA over it with vncl_gemm_cl for the local products, and the allreduce
 * of a tensor. Built on vncl's public API only (it is a separate library).
 *
 * Every collective starts with the same two steps, so that bad input on
 * one rank becomes an error on all of them rather than a hang: the global
 * arguments are compared across ranks (MPI_Allreduce under MPI_MAX and
 * MPI_MIN gives the largest and smallest of each), and the ranks' own
 * verdicts are combined (MPI_MINLOC finds the lowest failing rank, which
 * then broadcasts its status and message). Device errors met
 * later are kept while the rank goes on taking part in every collective,
 * and agreed on the same way at the end. */
#define _GNU_SOURCE /* secure_getenv, as the library reads its variables */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include "vncl_mpi.h"

#define MSG_CAP 1024
#define PANEL 512                   /* SUMMA panel width (columns of A) */
#define CHUNK ((size_t)4 << 20)     /* allreduce: bytes per chunk */

static _Thread_local char last_msg[MSG_CAP];

const char *vncl_mpi_errmsg(void) { return last_msg; }

static vncl_status fail(vncl_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static vncl_status fail(vncl_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_msg, sizeof last_msg, fmt, ap);
  va_end(ap);
  return s;
}

int vncl_mpi_device_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() ? 1 : 0;
#else
  return 0;
#endif
}

void vncl_mpi_block(size_t n, int parts, int i, size_t *offset,
                    size_t *count) {
  size_t p = parts > 0 ? (size_t)parts : 1, q = n / p, r = n % p;
  size_t ii = i < 0 ? 0 : (size_t)i;
  if (count) *count = ii < p ? q + (ii < r) : 0;
  if (offset) *offset = ii < p ? ii * q + (ii < r ? ii : r) : n;
}

/* ---- agreement ------------------------------------------------------------ */

/* Combines the ranks' verdicts: VNCL_OK when every rank's `local` is OK,
 * else the status and message of the lowest failing rank, on every rank. */
static vncl_status agree(MPI_Comm comm, vncl_status local, const char *fn) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  int in[2] = {local != VNCL_OK ? 0 : 1, rank}, out[2];
  MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MINLOC, comm);
  if (out[0] == 1) {
    last_msg[0] = '\0';
    return VNCL_OK;
  }
  struct {
    int status;
    char text[MSG_CAP - 64];
  } what;
  memset(&what, 0, sizeof what);
  if (rank == out[1]) {
    what.status = (int)local;
    memcpy(what.text, last_msg, sizeof what.text - 1); /* cut to fit */
  }
  MPI_Bcast(&what, (int)sizeof what, MPI_BYTE, out[1], comm);
  return fail((vncl_status)what.status, "%s: rank %d: %s", fn, out[1],
              what.text);
}

/* Whether every rank passed the same values; on a mismatch *which is the
 * first index that differs, lo/hi its smallest and largest values. */
static bool same_everywhere(MPI_Comm comm, const long long *v, int n,
                            int *which, long long *lo, long long *hi) {
  long long mx[8] = {0}, mn[8] = {0};
  MPI_Allreduce(v, mx, n, MPI_LONG_LONG, MPI_MAX, comm);
  MPI_Allreduce(v, mn, n, MPI_LONG_LONG, MPI_MIN, comm);
  for (int i = 0; i < n; i++)
    if (mx[i] != mn[i]) {
      *which = i;
      *hi = mx[i];
      *lo = mn[i];
      return false;
    }
  return true;
}

static long long bits(double x) {
  long long b;
  memcpy(&b, &x, sizeof b);
  return b;
}

/* ---- context per rank -------------------------------------------------- */

static int local_rank(MPI_Comm comm) {
  MPI_Comm node;
  int lr = 0;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                          &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &lr);
    MPI_Comm_free(&node);
  }
  return lr;
}

vncl_status vncl_mpi_context_create(vncl_context **out, MPI_Comm comm,
                                    const vncl_options *opts) {
  const char *fn = "vncl_mpi_context_create";
  vncl_status s = VNCL_OK;
  vncl_context *ctx = NULL;
  int lr = local_rank(comm);
  if (!out) s = fail(VNCL_ERR_INVALID_ARG, "out is NULL");
  vncl_options o;
  vncl_options_init(&o);
  if (!s && opts) {
    if (opts->struct_size != sizeof *opts)
      s = fail(VNCL_ERR_INVALID_ARG,
               "vncl_options.struct_size is %zu, expected %zu: call "
               "vncl_options_init first",
               opts->struct_size, sizeof *opts);
    else
      o = *opts;
  }
  char sel[256] = "";
  if (!s) {
    const char *v = o.device ? o.device : secure_getenv("VNCL_DEVICE");
    int count = 0;
    if (v && strchr(v, ',')) {
      /* element (local rank mod length) of the list */
      int len = 1;
      for (const char *p = v; *p; p++) len += *p == ',';
      int want = lr % len, at = 0;
      const char *p = v;
      while (at < want) at += *p++ == ',';
      size_t n = strcspn(p, ",");
      while (n && (*p == ' ')) {
        p++;
        n--;
      }
      while (n && p[n - 1] == ' ') n--;
      snprintf(sel, sizeof sel, "%.*s", (int)n, p);
    } else if (v && *v) {
      snprintf(sel, sizeof sel, "%s", v);
    } else if ((s = vncl_device_count(&count)) == VNCL_OK) {
      snprintf(sel, sizeof sel, "%d", lr % count);
    } else {
      fail(s, "%s", vncl_errmsg(NULL));
    }
  }
  if (!s) {
    o.device = sel;
    s = vncl_context_create(&ctx, &o);
    if (s)
      fail(s, "device '%s' (local rank %d): %s", sel, lr, vncl_errmsg(NULL));
  }
  s = agree(comm, s, fn);
  if (s) {
    vncl_context_destroy(ctx);
    return s;
  }
  *out = ctx;
  return VNCL_OK;
}

/* ---- grid --------------------------------------------------------------- */

struct vncl_mpi_grid {
  MPI_Comm comm, row, col; /* row: my process row, ranked by column */
  int prow, pcol, myrow, mycol;
};

vncl_status vncl_mpi_grid_create(vncl_mpi_grid **out, MPI_Comm comm, int prow,
                                 int pcol) {
  const char *fn = "vncl_mpi_grid_create";
  int size, rank;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  long long v[2] = {prow, pcol}, lo, hi;
  int which;
  if (!same_everywhere(comm, v, 2, &which, &lo, &hi))
    return fail(VNCL_ERR_INVALID_ARG, "%s: ranks disagree on %s (from %lld "
                "to %lld)", fn, which ? "pcol" : "prow", lo, hi);
  vncl_status s = VNCL_OK;
  if (!out) {
    s = fail(VNCL_ERR_INVALID_ARG, "out is NULL");
  } else if (prow == 0 && pcol == 0) {
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    prow = dims[0];
    pcol = dims[1];
  } else if (prow <= 0 || pcol <= 0 || (long long)prow * pcol != size) {
    s = fail(VNCL_ERR_INVALID_ARG,
             "a %d x %d grid does not match the %d ranks of the communicator",
             prow, pcol, size);
  }
  vncl_mpi_grid *g = NULL;
  if (!s && !(g = calloc(1, sizeof *g)))
    s = fail(VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
  s = agree(comm, s, fn);
  if (s) {
    free(g);
    return s;
  }
  g->prow = prow;
  g->pcol = pcol;
  g->myrow = rank / pcol;
  g->mycol = rank % pcol;
  MPI_Comm_dup(comm, &g->comm);
  MPI_Comm_split(g->comm, g->myrow, g->mycol, &g->row);
  MPI_Comm_split(g->comm, g->mycol, g->myrow, &g->col);
  *out = g;
  return VNCL_OK;
}

void vncl_mpi_grid_destroy(vncl_mpi_grid *g) {
  if (!g) return;
  MPI_Comm_free(&g->row);
  MPI_Comm_free(&g->col);
  MPI_Comm_free(&g->comm);
  free(g);
}

vncl_status vncl_mpi_grid_coords(const vncl_mpi_grid *g, int *prow, int *pcol,
                                 int *myrow, int *mycol) {
  if (!g) return fail(VNCL_ERR_INVALID_ARG, "vncl_mpi_grid_coords: g is NULL");
  if (prow) *prow = g->prow;
  if (pcol) *pcol = g->pcol;
  if (myrow) *myrow = g->myrow;
  if (mycol) *mycol = g->mycol;
  return VNCL_OK;
}

/* ---- host staging ---------------------------------------------------------- */

/* Pinned memory of ctx when it can be had, else malloc'd. */
typedef struct hostbuf {
  vncl_context *ctx;
  unsigned char *p;
  bool pinned;
} hostbuf;

static bool hostbuf_alloc(hostbuf *h, vncl_context *ctx, size_t bytes) {
  h->ctx = ctx;
  h->pinned = false;
  h->p = NULL;
  if (bytes == 0) bytes = 1;
  void *p = NULL;
  if (ctx && vncl_host_alloc(ctx, bytes, &p) == VNCL_OK) {
    h->p = p;
    h->pinned = true;
    return true;
  }
  h->p = malloc(bytes);
  return h->p != NULL;
}

static void hostbuf_free(hostbuf *h) {
  if (h->pinned)
    vncl_host_free(h->ctx, h->p);
  else
    free(h->p);
  h->p = NULL;
}

static cl_int ev_wait(cl_event ev) {
  cl_int err = clWaitForEvents(1, &ev);
  cl_int st = CL_COMPLETE;
  clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
  return st < 0 ? st : err;
}

/* A device failure: keeps the first, with the OpenCL error (err != 0) or
 * the status and message of the vncl call that failed. */
static void dev_fail(vncl_status *s, vncl_status st, vncl_context *ctx,
                     cl_int err, const char *what) {
  if (*s) return;
  if (err)
    *s = fail(err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                      err == CL_OUT_OF_RESOURCES ||
                      err == CL_OUT_OF_HOST_MEMORY
                  ? VNCL_ERR_OUT_OF_MEMORY
                  : VNCL_ERR_OPENCL,
              "%s: OpenCL error %d", what, (int)err);
  else
    *s = fail(st ? st : VNCL_ERR_INTERNAL, "%s: %s", what, vncl_errmsg(ctx));
}

/* ---- SUMMA ------------------------------------------------------------------ */

static size_t owner_of(size_t n, int parts, size_t at, size_t *end) {
  for (int i = 0; i < parts; i++) {
    size_t off, cnt;
    vncl_mpi_block(n, parts, i, &off, &cnt);
    if (at >= off && at < off + cnt) {
      *end = off + cnt;
      return (size_t)i;
    }
  }
  *end = n;
  return 0;
}

static vncl_status gemm_checks(vncl_mpi_grid *g, vncl_context *ctx,
                               vncl_dtype dt, size_t m, size_t n, size_t k,
                               const void *a, size_t lda, const void *b,
                               size_t ldb, const void *c, size_t ldc) {
  if (!ctx) return fail(VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (dt == VNCL_I32)
    return fail(VNCL_ERR_UNSUPPORTED, "dtype i32: GEMM takes f32, f64, f16 "
                "or bf16");
  if (dt != VNCL_F32 && dt != VNCL_F64 && dt != VNCL_F16 && dt != VNCL_BF16)
    return fail(VNCL_ERR_INVALID_ARG, "dtype %d is not a dtype", (int)dt);
  vncl_device_info info;
  if (dt == VNCL_F64 && vncl_context_device_info(ctx, &info) == VNCL_OK &&
      !info.fp64)
    return fail(VNCL_ERR_UNSUPPORTED, "f64 needs double precision, which %s "
                "lacks", info.name);
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    return fail(VNCL_ERR_INVALID_ARG, "m=%zu, n=%zu, k=%zu: each must be "
                "below 2^31", m, n, k);
  size_t mr, kc, kr, nc;
  vncl_mpi_block(m, g->prow, g->myrow, NULL, &mr);
  vncl_mpi_block(k, g->pcol, g->mycol, NULL, &kc);
  vncl_mpi_block(k, g->prow, g->myrow, NULL, &kr);
  vncl_mpi_block(n, g->pcol, g->mycol, NULL, &nc);
  struct {
    const char *name, *ldname;
    const void *p;
    size_t rows, cols, ld;
  } blk[3] = {{"a", "lda", a, mr, kc, lda},
              {"b", "ldb", b, kr, nc, ldb},
              {"c", "ldc", c, mr, nc, ldc}};
  for (int i = 0; i < 3; i++) {
    if (blk[i].rows && blk[i].cols && !blk[i].p)
      return fail(VNCL_ERR_INVALID_ARG, "%s is NULL for a %zu x %zu block",
                  blk[i].name, blk[i].rows, blk[i].cols);
    size_t min = blk[i].cols ? blk[i].cols : 1;
    if (blk[i].ld < min)
      return fail(VNCL_ERR_INVALID_ARG, "%s=%zu is below the block's width "
                  "%zu", blk[i].ldname, blk[i].ld, min);
    if (blk[i].rows && blk[i].ld > SIZE_MAX / 16 / blk[i].rows)
      return fail(VNCL_ERR_INVALID_ARG, "the extent of %s overflows",
                  blk[i].name);
  }
  return VNCL_OK;
}

/* The state of the walk over k. */
typedef struct summa {
  vncl_mpi_grid *g;
  const unsigned char *a, *b;
  size_t lda, ldb, es, k;
  size_t mr, nc;     /* this rank's rows of C (and A), columns of C (and B) */
  size_t aoff, boff; /* the first k index of its block of A, of B */
  size_t wmax;       /* widest panel */
  size_t next;       /* the first k index not posted yet */
  MPI_Request req[2][2];
  size_t k0[2], w[2]; /* the segment in each slot */
} summa;

static void pack(unsigned char *dst, const unsigned char *src, size_t rows,
                 size_t cols, size_t ld, size_t es);

/* Posts the broadcasts of the next segment of k into slot: a segment lies
 * within one block of A's columns and one block of B's rows, and is at most
 * wmax wide. The owner of its columns of A (in this process row) packs and
 * broadcasts them along the row; the owner of its rows of B (in this
 * process column) along the column. */
static void post_segment(summa *sm, hostbuf *ha, hostbuf *hb, size_t slot) {
  vncl_mpi_grid *g = sm->g;
  size_t aend, bend, k0 = sm->next;
  int ac = (int)owner_of(sm->k, g->pcol, k0, &aend);
  int br = (int)owner_of(sm->k, g->prow, k0, &bend);
  size_t k1 = aend < bend ? aend : bend;
  if (k1 > k0 + sm->wmax) k1 = k0 + sm->wmax;
  size_t w = k1 - k0, es = sm->es;
  sm->k0[slot] = k0;
  sm->w[slot] = w;
  if (g->mycol == ac && sm->mr)
    pack(ha[slot].p, sm->a + (k0 - sm->aoff) * es, sm->mr, w, sm->lda, es);
  if (g->myrow == br && sm->nc)
    pack(hb[slot].p, sm->b + (k0 - sm->boff) * sm->ldb * es, w, sm->nc,
         sm->ldb, es);
  MPI_Ibcast(ha[slot].p, (int)(sm->mr * w * es), MPI_BYTE, ac, g->row,
             &sm->req[slot][0]);
  MPI_Ibcast(hb[slot].p, (int)(w * sm->nc * es), MPI_BYTE, br, g->col,
             &sm->req[slot][1]);
  sm->next = k1;
}

/* Copies rows x cols (ld apart) into a dense array. */
static void pack(unsigned char *dst, const unsigned char *src, size_t rows,
                 size_t cols, size_t ld, size_t es) {
  for (size_t i = 0; i < rows; i++)
    memcpy(dst + i * cols * es, src + i * ld * es, cols * es);
}

/* What one rank holds during a product: its blocks' sizes, the panel
 * width, its device buffers (C, two slots of panels), its host panels and
 * the events of their last writes, and the first device error (agreed
 * between ranks at the end). */
typedef struct gemm_rank {
  vncl_mpi_grid *g;
  vncl_context *ctx;
  vncl_dtype dtype;
  size_t es, mr, nc, aoff, boff, wmax;
  bool mine; /* this rank holds part of C */
  bool walk; /* k > 0 and alpha != 0: the walk over k runs */
  cl_command_queue q;
  vncl_tensor *dc, *da[2], *db[2];
  hostbuf ha[2], hb[2];
  cl_event wev[2];
  vncl_status ds;
} gemm_rank;

/* Every rank passes the same sizes, dtype, alpha and beta, and each its
 * own valid blocks (agreed: one rank's error is every rank's). */
static vncl_status gemm_agree_args(vncl_mpi_grid *g, vncl_context *ctx,
                                   vncl_dtype dtype, size_t m, size_t n,
                                   size_t k, double alpha, const void *a,
                                   size_t lda, const void *b, size_t ldb,
                                   double beta, const void *c, size_t ldc,
                                   const char *fn) {
  static const char *const names[6] = {"m", "n", "k", "dtype", "alpha",
                                       "beta"};
  long long v[6] = {(long long)m, (long long)n, (long long)k, (long long)dtype,
                    bits(alpha), bits(beta)}, lo, hi;
  int which;
  if (!same_everywhere(g->comm, v, 6, &which, &lo, &hi))
    return fail(VNCL_ERR_INVALID_ARG, "%s: ranks disagree on %s (%s)", fn,
                names[which],
                which < 4 ? "sizes and dtype must be the same on every rank"
                          : "alpha and beta must be the same on every rank");
  return agree(g->comm,
               gemm_checks(g, ctx, dtype, m, n, k, a, lda, b, ldb, c, ldc),
               fn);
}

/* The rank's blocks and panel width: at most PANEL, and a broadcast's
 * bytes must fit an int. */
static void gemm_rank_plan(gemm_rank *r, size_t m, size_t n, size_t k,
                           double alpha) {
  vncl_mpi_grid *g = r->g;
  size_t kc, kr;
  r->es = vncl_dtype_size(r->dtype);
  vncl_mpi_block(m, g->prow, g->myrow, NULL, &r->mr);
  vncl_mpi_block(n, g->pcol, g->mycol, NULL, &r->nc);
  vncl_mpi_block(k, g->pcol, g->mycol, &r->aoff, &kc);
  vncl_mpi_block(k, g->prow, g->myrow, &r->boff, &kr);
  r->mine = r->mr > 0 && r->nc > 0;
  r->walk = k > 0 && alpha != 0;
  size_t wmax = PANEL, big = r->mr > r->nc ? r->mr : r->nc;
  if (big && wmax > (size_t)INT_MAX / r->es / big)
    wmax = (size_t)INT_MAX / r->es / big;
  r->wmax = wmax ? wmax : 1;
}

/* Device C and panels (for a rank that holds C), host panels (for every
 * rank of the walk). Errors go to r->ds. */
static void gemm_rank_alloc(gemm_rank *r) {
  size_t mr = r->mr, nc = r->nc, wmax = r->wmax, es = r->es;
  vncl_context_cl(r->ctx, NULL, &r->q, NULL);
  if (r->mine) {
    int64_t sc = (int64_t)(mr * nc), sa = (int64_t)(mr * wmax),
            sb = (int64_t)(wmax * nc);
    vncl_status st = vncl_tensor_create(r->ctx, r->dtype, 1, &sc, &r->dc);
    if (st) dev_fail(&r->ds, st, r->ctx, 0, "C on the device");
    for (int i = 0; i < 2 && r->walk && !r->ds; i++)
      if ((st = vncl_tensor_create(r->ctx, r->dtype, 1, &sa, &r->da[i])) ||
          (st = vncl_tensor_create(r->ctx, r->dtype, 1, &sb, &r->db[i])))
        dev_fail(&r->ds, st, r->ctx, 0, "panels on the device");
  }
  for (int i = 0; i < 2 && r->walk; i++)
    if (!hostbuf_alloc(&r->ha[i], r->ctx, mr * wmax * es) ||
        !hostbuf_alloc(&r->hb[i], r->ctx, wmax * nc * es))
      r->ds = r->ds ? r->ds
                    : fail(VNCL_ERR_OUT_OF_MEMORY, "out of host memory for "
                           "the panels");
}

/* C to the device when beta != 0; C = beta*C there when there is no walk. */
static void gemm_rank_load_c(gemm_rank *r, double beta, const void *c,
                             size_t ldc) {
  size_t mr = r->mr, nc = r->nc, es = r->es;
  if (!r->mine) return;
  if (beta != 0) {
    size_t borg[3] = {0, 0, 0}, horg[3] = {0, 0, 0}, reg[3] = {nc * es, mr, 1};
    cl_int err = clEnqueueWriteBufferRect(
        r->q, vncl_tensor_cl_mem(r->dc), CL_TRUE, borg, horg, reg, nc * es, 0,
        ldc * es, 0, c, 0, NULL, NULL);
    if (err) dev_fail(&r->ds, VNCL_OK, r->ctx, err, "writing C to the device");
  }
  if (!r->ds && !r->walk) {
    cl_mem dcm = vncl_tensor_cl_mem(r->dc);
    vncl_status st = vncl_gemm_cl(r->ctx, r->dtype, VNCL_ROW_MAJOR,
                                  VNCL_NO_TRANS, VNCL_NO_TRANS, mr, nc, 0, 0.0,
                                  dcm, 0, 1, dcm, 0, nc, beta, dcm, 0, nc);
    if (st) dev_fail(&r->ds, st, r->ctx, 0, "C = beta*C");
  }
}

/* The panels of a segment in `slot` to the device, then the local product
 * (beta on the first segment, 1 after). */
static void gemm_rank_segment(gemm_rank *r, const summa *sm, size_t slot,
                              double alpha, double beta) {
  size_t mr = r->mr, nc = r->nc, es = r->es, w = sm->w[slot];
  cl_int err = clEnqueueWriteBuffer(r->q, vncl_tensor_cl_mem(r->da[slot]),
                                    CL_FALSE, 0, mr * w * es, r->ha[slot].p, 0,
                                    NULL, NULL);
  if (!err)
    err = clEnqueueWriteBuffer(r->q, vncl_tensor_cl_mem(r->db[slot]),
                               CL_FALSE, 0, w * nc * es, r->hb[slot].p, 0,
                               NULL, &r->wev[slot]);
  vncl_status st = VNCL_OK;
  if (err)
    dev_fail(&r->ds, VNCL_OK, r->ctx, err, "writing a panel");
  else if ((st = vncl_gemm_cl(r->ctx, r->dtype, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                              VNCL_NO_TRANS, mr, nc, w, alpha,
                              vncl_tensor_cl_mem(r->da[slot]), 0, w,
                              vncl_tensor_cl_mem(r->db[slot]), 0, nc,
                              sm->k0[slot] == 0 ? beta : 1.0,
                              vncl_tensor_cl_mem(r->dc), 0, nc)))
    dev_fail(&r->ds, st, r->ctx, 0, "the local product");
  clFlush(r->q);
}

/* The walk over k (see post_segment): the broadcasts of segment s + 1 go
 * while the device computes segment s. */
static void gemm_rank_walk(gemm_rank *r, const void *a, size_t lda,
                           const void *b, size_t ldb, size_t k, double alpha,
                           double beta) {
  summa sm = {r->g, a, b, lda, ldb, r->es, k, r->mr, r->nc, r->aoff, r->boff,
              r->wmax, 0,
              {{MPI_REQUEST_NULL, MPI_REQUEST_NULL},
               {MPI_REQUEST_NULL, MPI_REQUEST_NULL}},
              {0, 0}, {0, 0}};
  post_segment(&sm, r->ha, r->hb, 0);
  for (size_t seg = 0;; seg++) {
    size_t slot = seg % 2;
    MPI_Waitall(2, sm.req[slot], MPI_STATUSES_IGNORE);
    bool more = sm.next < k;
    if (more) {
      size_t ns = (seg + 1) % 2;
      /* The slot's last device writes must be done with its host panels. */
      if (r->wev[ns]) {
        cl_int err = ev_wait(r->wev[ns]);
        if (err) dev_fail(&r->ds, VNCL_OK, r->ctx, err, "writing a panel");
        clReleaseEvent(r->wev[ns]);
        r->wev[ns] = NULL;
      }
      post_segment(&sm, r->ha, r->hb, ns);
    }
    if (r->mine && !r->ds) gemm_rank_segment(r, &sm, slot, alpha, beta);
    if (!more) break;
  }
}

/* C back to the host, then everything the rank held goes. */
static void gemm_rank_end(gemm_rank *r, void *c, size_t ldc) {
  size_t mr = r->mr, nc = r->nc, es = r->es;
  if (r->mine && !r->ds) {
    size_t borg[3] = {0, 0, 0}, horg[3] = {0, 0, 0}, reg[3] = {nc * es, mr, 1};
    cl_int err = clEnqueueReadBufferRect(
        r->q, vncl_tensor_cl_mem(r->dc), CL_TRUE, borg, horg, reg, nc * es, 0,
        ldc * es, 0, c, 0, NULL, NULL);
    if (err)
      dev_fail(&r->ds, VNCL_OK, r->ctx, err, "reading C from the device");
  }
  if (r->q) clFinish(r->q);
  for (int i = 0; i < 2; i++) {
    if (r->wev[i]) clReleaseEvent(r->wev[i]);
    vncl_tensor_destroy(r->da[i]);
    vncl_tensor_destroy(r->db[i]);
    if (r->ha[i].p) hostbuf_free(&r->ha[i]);
    if (r->hb[i].p) hostbuf_free(&r->hb[i]);
  }
  vncl_tensor_destroy(r->dc);
}

vncl_status vncl_mpi_gemm(vncl_mpi_grid *g, vncl_context *ctx,
                          vncl_dtype dtype, size_t m, size_t n, size_t k,
                          double alpha, const void *a, size_t lda,
                          const void *b, size_t ldb, double beta, void *c,
                          size_t ldc) {
  const char *fn = "vncl_mpi_gemm";
  if (!g) return fail(VNCL_ERR_INVALID_ARG, "%s: g is NULL", fn);
  vncl_status s = gemm_agree_args(g, ctx, dtype, m, n, k, alpha, a, lda, b,
                                  ldb, beta, c, ldc, fn);
  if (s) return s;
  gemm_rank r = {.g = g, .ctx = ctx, .dtype = dtype};
  gemm_rank_plan(&r, m, n, k, alpha);
  gemm_rank_alloc(&r);
  /* A rank that could not set up stops every rank before the walk. */
  vncl_status hs = agree(g->comm, r.ds, fn);
  if (hs) r.ds = hs;
  if (!hs) gemm_rank_load_c(&r, beta, c, ldc);
  if (!hs && r.walk) gemm_rank_walk(&r, a, lda, b, ldb, k, alpha, beta);
  gemm_rank_end(&r, c, ldc);
  return hs ? hs : agree(g->comm, r.ds, fn);
}

/* ---- allreduce ------------------------------------------------------------------ */

vncl_status vncl_mpi_allreduce(MPI_Comm comm, vncl_tensor *t, vncl_mpi_op op) {
  const char *fn = "vncl_mpi_allreduce";
  long long v[3] = {t ? (long long)vncl_tensor_numel(t) : -1,
                    t ? (long long)vncl_tensor_dtype(t) : -1, (long long)op},
            lo, hi;
  int which;
  static const char *const names[3] = {"the element count", "the dtype",
                                       "the operation"};
  if (!same_everywhere(comm, v, 3, &which, &lo, &hi))
    return fail(VNCL_ERR_INVALID_ARG, "%s: ranks disagree on %s (from %lld "
                "to %lld)%s", fn, names[which], lo, hi,
                lo == -1 ? "; a rank passed a NULL tensor" : "");
  vncl_status s = VNCL_OK;
  vncl_dtype dt = t ? vncl_tensor_dtype(t) : VNCL_F32;
  MPI_Datatype type = dt == VNCL_F64 ? MPI_DOUBLE
                      : dt == VNCL_I32 ? MPI_INT
                                       : MPI_FLOAT;
  MPI_Op mop = op == VNCL_MPI_MAX ? MPI_MAX
               : op == VNCL_MPI_MIN ? MPI_MIN
                                    : MPI_SUM;
  if (!t)
    s = fail(VNCL_ERR_INVALID_ARG, "t is NULL");
  else if (op != VNCL_MPI_SUM && op != VNCL_MPI_AVG && op != VNCL_MPI_MAX &&
           op != VNCL_MPI_MIN)
    s = fail(VNCL_ERR_INVALID_ARG, "op %d is not a vncl_mpi_op", (int)op);
  else if (dt != VNCL_F32 && dt != VNCL_F64 && dt != VNCL_I32)
    s = fail(VNCL_ERR_UNSUPPORTED, "dtype %s: the allreduce takes f32, f64 "
             "or i32", vncl_dtype_name(dt));
  else if (op == VNCL_MPI_AVG && dt == VNCL_I32)
    s = fail(VNCL_ERR_UNSUPPORTED, "the average of i32 is not an i32");
  vncl_context *ctx = t ? vncl_tensor_context(t) : NULL;
  size_t bytes = t ? vncl_tensor_bytes(t) : 0;
  hostbuf h = {0};
  if (!s && !hostbuf_alloc(&h, ctx, bytes))
    s = fail(VNCL_ERR_OUT_OF_MEMORY, "out of host memory (%zu bytes)", bytes);
  s = agree(comm, s, fn);
  if (s) {
    if (h.p) hostbuf_free(&h);
    return s;
  }
  if (bytes == 0) {
    hostbuf_free(&h);
    return VNCL_OK;
  }
  int size;
  MPI_Comm_size(comm, &size);
  size_t es = vncl_dtype_size(dt), nch = (bytes + CHUNK - 1) / CHUNK;
  cl_command_queue q = NULL;
  vncl_context_cl(ctx, NULL, &q, NULL);
  cl_mem mem = vncl_tensor_cl_mem(t);
  size_t base = vncl_tensor_offset(t);
  cl_event *rd = calloc(nch, sizeof *rd);
  vncl_status ds = rd ? VNCL_OK
                      : fail(VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
  /* Every chunk's read is enqueued at once; MPI reduces chunk i while the
   * device reads the next ones, and chunk i goes back as soon as reduced. */
  for (size_t i = 0; i < nch && !ds; i++) {
    size_t len = i + 1 < nch ? CHUNK : bytes - i * CHUNK;
    cl_int err = clEnqueueReadBuffer(q, mem, CL_FALSE, base + i * CHUNK, len,
                                     h.p + i * CHUNK, 0, NULL, &rd[i]);
    if (err) dev_fail(&ds, VNCL_OK, ctx, err, "reading the tensor");
  }
  if (q) clFlush(q);
  for (size_t i = 0; i < nch; i++) {
    size_t len = i + 1 < nch ? CHUNK : bytes - i * CHUNK;
    unsigned char *p = h.p + i * CHUNK;
    if (!ds && rd[i]) {
      cl_int err = ev_wait(rd[i]);
      if (err) dev_fail(&ds, VNCL_OK, ctx, err, "reading the tensor");
    }
    /* Every rank takes part, whatever its device did. */
    MPI_Allreduce(MPI_IN_PLACE, p, (int)(len / es), type, mop, comm);
    if (op == VNCL_MPI_AVG) {
      if (dt == VNCL_F64)
        for (size_t j = 0; j < len / es; j++) ((double *)p)[j] /= size;
      else
        for (size_t j = 0; j < len / es; j++) ((float *)p)[j] /= (float)size;
    }
    if (!ds) {
      cl_int err = clEnqueueWriteBuffer(q, mem, CL_FALSE, base + i * CHUNK,
                                        len, p, 0, NULL, NULL);
      if (err) dev_fail(&ds, VNCL_OK, ctx, err, "writing the tensor");
      clFlush(q);
    }
  }
  if (q) {
    cl_int err = clFinish(q);
    if (err) dev_fail(&ds, VNCL_OK, ctx, err, "clFinish");
  }
  for (size_t i = 0; rd && i < nch; i++)
    if (rd[i]) clReleaseEvent(rd[i]);
  free(rd);
  hostbuf_free(&h);
  return agree(comm, ds, fn);
}
