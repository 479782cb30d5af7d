/* The transfer suite of `vncl bench`: host <-> tensor bandwidth against
 * memcpy (measured in the same run, interleaved with each case), every
 * transfer path at several sizes (the data behind the thresholds in
 * lib/staging.c), pinned memory, a stream of batches overlapped against the
 * same work done serially, and tensor churn with the caching allocator
 * against raw clCreateBuffer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MIB ((size_t)1 << 20)

typedef struct xfer_bench {
  bench_ctx *b;
  vncl_tensor *t;
  unsigned char *src, *dst; /* pageable */
  unsigned char *psrc, *pdst; /* pinned (vncl_host_alloc) */
  unsigned char *peer;        /* memcpy destination */
  unsigned char *user;        /* when set: the host side of every case, as a
                                 user's buffer (see user_buffers) */
  size_t bytes;
} xfer_bench;

typedef enum { OP_WRITE, OP_READ, OP_CL_WRITE, OP_CL_READ } op_kind;

static const unsigned char *host_src(const xfer_bench *x, bool pinned) {
  return x->user ? x->user : pinned ? x->psrc : x->src;
}
static unsigned char *host_dst(const xfer_bench *x, bool pinned) {
  return x->user ? x->user : pinned ? x->pdst : x->dst;
}

static int run_op(xfer_bench *x, op_kind op, bool pinned, size_t bytes) {
  const unsigned char *s = host_src(x, pinned);
  unsigned char *d = host_dst(x, pinned);
  cl_command_queue q;
  vncl_context_cl(x->b->ctx, NULL, &q, NULL);
  switch (op) {
    case OP_WRITE: return vncl_tensor_write(x->t, s, bytes) ? -1 : 0;
    case OP_READ: return vncl_tensor_read(x->t, d, bytes) ? -1 : 0;
    case OP_CL_WRITE:
      return clEnqueueWriteBuffer(q, vncl_tensor_cl_mem(x->t), CL_TRUE, 0,
                                  bytes, s, 0, NULL, NULL) ? -1 : 0;
    case OP_CL_READ:
      return clEnqueueReadBuffer(q, vncl_tensor_cl_mem(x->t), CL_TRUE, 0,
                                 bytes, d, 0, NULL, NULL) ? -1 : 0;
  }
  return -1;
}

/* Times `op` on `bytes` (a tensor of that size is made), interleaved with
 * memcpy of the same size between two malloc'd buffers, checks what moved,
 * and gives the case in GB/s in *out (its name NULL when it could not
 * run). Small sizes run several times per sample so that a sample lasts
 * about a millisecond. */
static void bw_measure(xfer_bench *x, const char *name, op_kind op,
                       bool pinned, size_t bytes, bench_case *out) {
  memset(out, 0, sizeof *out);
  bench_ctx *b = x->b;
  int64_t shape[1] = {(int64_t)(bytes / 4)}; /* sizes are multiples of 4 */
  vncl_tensor *t = NULL;
  if (vncl_tensor_create(b->ctx, VNCL_F32, 1, shape, &t) != VNCL_OK) return;
  bytes = vncl_tensor_bytes(t);
  unsigned char *src_copy = x->user ? malloc(bytes) : NULL;
  if (x->user && !src_copy) {
    vncl_tensor_destroy(t);
    return;
  }
  if (src_copy) memcpy(src_copy, x->src, bytes);
  x->t = t;
  int inner = bytes >= 16 * MIB ? 1 : (int)((4 * MIB) / bytes + 1);
  if (inner > 2000) inner = 2000;
  int reps = b->repeats;
  double *tv = calloc((size_t)reps, sizeof *tv);
  double *tp = calloc((size_t)reps, sizeof *tp);
  bool ok = run_op(x, op, pinned, bytes) == 0; /* warm-up */
  for (int r = 0; r < reps && ok; r++) {
    double t0 = bench_now();
    for (int i = 0; i < inner; i++) memcpy(x->peer, x->src, bytes);
    tp[r] = (bench_now() - t0) / inner;
    t0 = bench_now();
    for (int i = 0; i < inner && ok; i++) ok = run_op(x, op, pinned, bytes) == 0;
    tv[r] = (bench_now() - t0) / inner;
  }
  /* Verify: a write is read back, a read is compared with what was
   * written, by the other direction's plain OpenCL call. */
  bool correct = ok;
  if (ok) {
    cl_command_queue q;
    vncl_context_cl(b->ctx, NULL, &q, NULL);
    const unsigned char *s = host_src(x, pinned);
    unsigned char *d = host_dst(x, pinned);
    if (x->user && op != OP_WRITE && op != OP_CL_WRITE) {
      /* A read into the user's buffer: the device gets known bytes first. */
      s = src_copy;
    }
    if (op == OP_WRITE || op == OP_CL_WRITE) {
      memset(x->peer, 0x5A, bytes);
      correct = clEnqueueReadBuffer(q, vncl_tensor_cl_mem(t), CL_TRUE, 0,
                                    bytes, x->peer, 0, NULL, NULL) == 0 &&
                memcmp(x->peer, s, bytes) == 0;
    } else {
      correct = clEnqueueWriteBuffer(q, vncl_tensor_cl_mem(t), CL_TRUE, 0,
                                     bytes, s, 0, NULL, NULL) == 0;
      memset(d, 0x5A, bytes);
      correct = correct && run_op(x, op, pinned, bytes) == 0 &&
                memcmp(d, s, bytes) == 0;
    }
  }
  double sv, sp;
  double mv = bench_median(tv, reps, &sv), mp = bench_median(tp, reps, &sp);
  bench_case c = {0};
  c.suite = "transfer";
  c.name = name;
  c.dtype = "u8";
  c.unit = "GB/s";
  c.value = ok && mv > 0 ? bytes / mv * 1e-9 : 0;
  c.spread = sv;
  c.wall_seconds = mv;
  c.peer = "memcpy";
  c.peer_value = mp > 0 ? bytes / mp * 1e-9 : 0;
  c.peer_spread = sp;
  c.bytes = (double)bytes;
  c.correct = correct;
  *out = c;
  free(src_copy);
  free(tv);
  free(tp);
  vncl_tensor_destroy(t);
  x->t = NULL;
}

/* bw_measure, and the case recorded; its values through out when not
 * NULL. */
static void bw_case_out(xfer_bench *x, const char *name, op_kind op,
                        bool pinned, size_t bytes, bench_case *out) {
  bench_case c;
  bw_measure(x, name, op, pinned, bytes, &c);
  if (c.name) bench_record(x->b, &c);
  if (out) *out = c;
}

static void bw_case(xfer_bench *x, const char *name, op_kind op, bool pinned,
                    size_t bytes) {
  bw_case_out(x, name, op, pinned, bytes, NULL);
}

static void size_name(char *out, size_t cap, size_t bytes) {
  if (bytes >= MIB)
    snprintf(out, cap, "%zu MiB", bytes / MIB);
  else
    snprintf(out, cap, "%zu KiB", bytes / 1024);
}

/* ---- transfers from memory as users hold it ----------------------------- */

/* Writes and reads through vncl_tensor_write / _read with the host side in
 * memory as users get it: malloc'd at several offsets into a page (the
 * relative alignment of source and destination decides a memcpy's speed on
 * some CPUs: issue 14), posix_memalign'd to a page, and vncl_host_alloc'd;
 * each against the same peer, memcpy between two malloc'd buffers. Then,
 * per direction, the worst of them is measured again and recorded as a
 * gated case: CI fails when it falls below VNCL_BENCH_XFER_GOAL of memcpy.
 * Again, because the lowest of seven noisy ratios is lower than any one
 * buffer's by chance alone (16 MiB writes on the Zen 4 guest, spreads of
 * 20-58%: every buffer at 0.83-1.02x over two runs, the lowest 0.77x
 * in a third); a buffer that is slow stays slow when measured anew. */
#define VNCL_BENCH_XFER_GOAL 0.8
static void user_buffers(xfer_bench *x, size_t bytes) {
  static const size_t offs[] = {0, 16, 64, 2048, 4080};
  unsigned char *raw = malloc(bytes + 8192), *aligned = NULL;
  if (!raw || posix_memalign((void **)&aligned, 4096, bytes)) {
    free(raw);
    return;
  }
  memcpy(aligned, x->src, bytes); /* touched, like the rest */
  unsigned char *page = (unsigned char *)(((uintptr_t)raw + 4095) &
                                          ~(uintptr_t)4095);
  memset(page, 0, bytes + 4080); /* touched: no first-touch faults timed */
  char sz[32], name[128];
  size_name(sz, sizeof sz, bytes);
  for (int dir = 0; dir < 2; dir++) {
    bench_case worst = {0};
    char worst_name[64] = "";
    double worst_ratio = 1e30;
    size_t nl = sizeof offs / sizeof *offs + 2;
    unsigned char *worst_user = NULL;
    for (size_t l = 0; l < nl; l++) {
      char what[64];
      if (l < sizeof offs / sizeof *offs) {
        x->user = page + offs[l];
        memcpy(x->user, x->src, bytes); /* fresh bytes at this offset */
        snprintf(what, sizeof what, "malloc+%zu", offs[l]);
      } else if (l == nl - 2) {
        x->user = aligned;
        snprintf(what, sizeof what, "posix_memalign");
      } else {
        x->user = dir ? x->pdst : x->psrc;
        snprintf(what, sizeof what, "vncl_host_alloc");
      }
      snprintf(name, sizeof name, "%s %s %s", dir ? "read" : "write", sz, what);
      bench_case c;
      bw_case_out(x, name, dir ? OP_READ : OP_WRITE, false, bytes, &c);
      double r = c.peer_value > 0 ? c.value / c.peer_value : 0;
      if (c.peer_value > 0 && r < worst_ratio) {
        worst_ratio = r;
        worst_user = x->user;
        snprintf(worst_name, sizeof worst_name, "%s", what);
      }
    }
    if (worst_user) { /* the worst buffer, measured again */
      x->user = worst_user;
      if (worst_user != x->pdst && worst_user != x->psrc)
        memcpy(x->user, x->src, bytes);
      snprintf(name, sizeof name, "%s %s worst buffer (%s)",
               dir ? "read" : "write", sz, worst_name);
      bw_measure(x, name, dir ? OP_READ : OP_WRITE, false, bytes, &worst);
      if (worst.name) {
        worst.gate = true;
        worst.goal = VNCL_BENCH_XFER_GOAL;
        bench_record(x->b, &worst);
      }
    }
    x->user = NULL;
  }
  free(raw);
  free(aligned);
}

/* ---- every path at several sizes: the data for the thresholds ---------- */

static void paths(xfer_bench *x, const size_t *sizes, int nsizes) {
  static const struct {
    vncl_transfer_path p;
    const char *name;
  } ps[] = {{VNCL_TRANSFER_DIRECT, "direct"},
            {VNCL_TRANSFER_STAGED, "staged"},
            {VNCL_TRANSFER_MAP, "map"}};
  vncl_transfer_config cfg;
  vncl_transfer_config_get(x->b->ctx, &cfg);
  for (int si = 0; si < nsizes; si++)
    for (int dir = 0; dir < 2; dir++)
      for (int pi = 0; pi < 3; pi++) {
        vncl_transfer_config f = cfg;
        f.write_small = f.write_large = f.read_small = f.read_large = ps[pi].p;
        vncl_transfer_config_set(x->b->ctx, &f);
        char sz[32], name[96];
        size_name(sz, sizeof sz, sizes[si]);
        snprintf(name, sizeof name, "%s %s path=%s", dir ? "read" : "write",
                 sz, ps[pi].name);
        bw_case(x, name, dir ? OP_READ : OP_WRITE, false, sizes[si]);
      }
  vncl_transfer_config_set(x->b->ctx, NULL);
}

/* ---- a stream of batches: upload, GEMM, download ------------------------ */

/* The stream case runs where the GEMM is built in. */
#pragma weak vncl_gemm

typedef struct stream {
  bench_ctx *b;
  int batches;
  size_t m, k, n;  /* C[m,n] = A[m,k] * B[k,n] per batch, B shared */
  float *in, *out; /* [batches][m*k], [batches][m*n] */
  float *bm;       /* B */
  double sum;      /* what the host made of the results */
  uint64_t seed;
  vncl_tensor *ta[2], *tc[2], *tb;
} stream;

/* Host work per batch, as a data loader and a consumer do: make the
 * batch's input, and reduce its output. */
static void prepare(stream *s, int i) {
  float *x = s->in + (size_t)i * s->m * s->k;
  uint64_t z = s->seed + (uint64_t)i * 0x9e3779b97f4a7c15ULL;
  for (size_t j = 0; j < s->m * s->k; j++) {
    z = z * 6364136223846793005ULL + 1442695040888963407ULL;
    x[j] = (float)(z >> 40) * (1.0f / 16777216.0f) - 0.5f;
  }
}

static void consume(stream *s, int i) {
  const float *y = s->out + (size_t)i * s->m * s->n;
  double acc = 0;
  for (size_t j = 0; j < s->m * s->n; j++) acc += y[j];
  s->sum += acc;
}

static int compute(stream *s, int slot) {
  return vncl_gemm(s->b->ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1.0, s->ta[slot],
                   s->tb, 0.0, s->tc[slot]) ? -1 : 0;
}

/* Each batch in turn: make it, upload, multiply, download, reduce. */
static int stream_serial(stream *s) {
  size_t ab = s->m * s->k * sizeof(float), cb = s->m * s->n * sizeof(float);
  for (int i = 0; i < s->batches; i++) {
    prepare(s, i);
    if (vncl_tensor_write(s->ta[0], s->in + i * s->m * s->k, ab) ||
        compute(s, 0) ||
        vncl_tensor_read(s->tc[0], s->out + i * s->m * s->n, cb))
      return -1;
    consume(s, i);
  }
  return 0;
}

/* The same work pipelined with the async transfers, double-buffered on the
 * device: while batch i multiplies, the host makes batch i+1 and reduces
 * batch i-1, and their transfers are queued around the product. */
static int stream_overlapped(stream *s) {
  size_t ab = s->m * s->k * sizeof(float), cb = s->m * s->n * sizeof(float);
  vncl_event *down[2] = {NULL, NULL};
  int rc = 0;
  prepare(s, 0);
  if (vncl_tensor_write_async(s->ta[0], s->in, ab, 0, NULL, NULL)) return -1;
  for (int i = 0; i < s->batches && !rc; i++) {
    int slot = i % 2;
    rc = compute(s, slot);
    if (!rc)
      rc = vncl_tensor_read_async(s->tc[slot], s->out + i * s->m * s->n, cb,
                                  0, NULL, &down[slot]) ? -1 : 0;
    if (!rc && i + 1 < s->batches) {
      prepare(s, i + 1);
      /* ta[1-slot] was last read by product i-1, enqueued before. */
      rc = vncl_tensor_write_async(s->ta[1 - slot],
                                   s->in + (i + 1) * s->m * s->k, ab, 0, NULL,
                                   NULL) ? -1 : 0;
    }
    if (!rc && i > 0) {
      rc = vncl_event_wait(down[1 - slot]) ? -1 : 0;
      vncl_event_release(down[1 - slot]);
      down[1 - slot] = NULL;
      consume(s, i - 1);
    }
  }
  int last = (s->batches - 1) % 2;
  if (!rc && down[last]) {
    rc = vncl_event_wait(down[last]) ? -1 : 0;
    consume(s, s->batches - 1);
  }
  for (int j = 0; j < 2; j++) vncl_event_release(down[j]);
  return rc;
}

/* 64 entries of each batch's C against a double-precision product. */
static bool stream_check(stream *s) {
  uint64_t z = s->seed;
  for (int i = 0; i < s->batches; i++) {
    const float *a = s->in + (size_t)i * s->m * s->k;
    const float *c = s->out + (size_t)i * s->m * s->n;
    for (int t = 0; t < 64; t++) {
      z = z * 6364136223846793005ULL + 1442695040888963407ULL;
      size_t r = (size_t)(z >> 33) % s->m, q = (size_t)(z >> 13) % s->n;
      double ref = 0, mag = 0;
      for (size_t p = 0; p < s->k; p++) {
        ref += (double)a[r * s->k + p] * s->bm[p * s->n + q];
        mag += fabs((double)a[r * s->k + p] * s->bm[p * s->n + q]);
      }
      if (fabs(c[r * s->n + q] - ref) > 1e-5 * mag + 1e-6) return false;
    }
  }
  return true;
}

static void stream_case(bench_ctx *b) {
  if (!vncl_gemm) {
    printf("%-9s stream case skipped: vncl_gemm is not built in\n", "transfer");
    return;
  }
  stream s = {0};
  s.b = b;
  s.batches = b->quick ? 8 : 16;
  s.m = b->quick ? 512 : 2048;
  s.k = b->quick ? 512 : 1024;
  s.n = 256;
  s.seed = (uint64_t)(bench_now() * 1e6);
  size_t na = (size_t)s.batches * s.m * s.k, nc = (size_t)s.batches * s.m * s.n;
  s.in = malloc(na * sizeof(float));
  s.out = malloc(nc * sizeof(float));
  s.bm = malloc(s.k * s.n * sizeof(float));
  int64_t sa[2] = {(int64_t)s.m, (int64_t)s.k}, sb[2] = {(int64_t)s.k, (int64_t)s.n},
          sc[2] = {(int64_t)s.m, (int64_t)s.n};
  bool ok = s.in && s.out && s.bm &&
            !vncl_tensor_create(b->ctx, VNCL_F32, 2, sb, &s.tb);
  for (int j = 0; j < 2 && ok; j++)
    ok = !vncl_tensor_create(b->ctx, VNCL_F32, 2, sa, &s.ta[j]) &&
         !vncl_tensor_create(b->ctx, VNCL_F32, 2, sc, &s.tc[j]);
  if (ok) {
    uint64_t z = s.seed ^ 0xabcdef;
    for (size_t j = 0; j < s.k * s.n; j++) {
      z = z * 6364136223846793005ULL + 1442695040888963407ULL;
      s.bm[j] = (float)(z >> 40) * (1.0f / 16777216.0f) - 0.5f;
    }
    ok = !vncl_tensor_write(s.tb, s.bm, s.k * s.n * sizeof(float));
  }
  if (ok) ok = stream_serial(&s) == 0 && stream_overlapped(&s) == 0; /* warm-up */
  int reps = b->repeats;
  double *tv = calloc((size_t)reps, sizeof *tv), *tp = calloc((size_t)reps, sizeof *tp);
  bool correct = ok;
  for (int r = 0; r < reps && ok; r++) {
    memset(s.out, 0, nc * sizeof(float));
    double t0 = bench_now();
    ok = stream_serial(&s) == 0;
    tp[r] = bench_now() - t0;
    correct = correct && ok && stream_check(&s);
    memset(s.out, 0, nc * sizeof(float));
    t0 = bench_now();
    ok = ok && stream_overlapped(&s) == 0;
    tv[r] = bench_now() - t0;
    correct = correct && ok && stream_check(&s);
  }
  double sv, sp, mv = bench_median(tv, reps, &sv), mp = bench_median(tp, reps, &sp);
  char name[96];
  snprintf(name, sizeof name, "stream %dx gemm %zux%zux%zu overlapped",
           s.batches, s.m, s.n, s.k);
  bench_case c = {0};
  c.suite = "transfer";
  c.name = name;
  c.dtype = "f32";
  c.unit = "ms";
  c.value = mv * 1e3;
  c.spread = sv;
  c.wall_seconds = mv;
  c.peer = "serial";
  c.peer_value = mp * 1e3;
  c.peer_spread = sp;
  c.flops = 2.0 * s.batches * s.m * s.n * s.k;
  c.bytes = (double)(na + nc) * sizeof(float);
  c.correct = correct;
  c.m = (int)s.m;
  c.n = (int)s.n;
  c.k = (int)s.k;
  bench_record(b, &c);
  free(tv);
  free(tp);
  for (int j = 0; j < 2; j++) {
    vncl_tensor_destroy(s.ta[j]);
    vncl_tensor_destroy(s.tc[j]);
  }
  vncl_tensor_destroy(s.tb);
  free(s.in);
  free(s.out);
  free(s.bm);
}

/* ---- tensor churn: caching allocator against raw clCreateBuffer --------- */

typedef enum { PEER_RAW_FILL, PEER_RAW, PEER_UNCACHED } churn_peer;

/* One step creates a tensor of each size, then destroys them, as a training
 * step does with its temporaries while the device works: the queue is
 * drained only after the last step of a sample (so zero fills are counted,
 * but nothing waits in between). Samples of vncl and of the peer
 * alternate, so that both see the same machine. Peers:
 *   raw+fill   clCreateBuffer, a zero fill (a tensor starts at zero, and
 *              the first use is where lazy drivers commit memory),
 *              clReleaseMemObject: a tensor's work without a cache;
 *   raw        clCreateBuffer + clReleaseMemObject, never used (free on
 *              lazy drivers: a floor, not a like-for-like peer);
 *   uncached   vncl with the cache emptied after each step, on a second
 *              context (every create makes, touches and waits for a new
 *              buffer: vncl before the cache). */
static bool churn_steps(vncl_context *c, const size_t *sizes, int ns,
                        int iters, bool trim) {
  bool ok = true;
  for (int it = 0; it < iters && ok; it++) {
    vncl_tensor *t[8] = {0};
    for (int i = 0; i < ns && ok; i++) {
      int64_t shape[1] = {(int64_t)(sizes[i] / 4)};
      ok = vncl_tensor_create(c, VNCL_F32, 1, shape, &t[i]) == VNCL_OK;
    }
    for (int i = 0; i < ns; i++) vncl_tensor_destroy(t[i]);
    if (trim) vncl_memory_trim(c);
  }
  return vncl_finish(c) == VNCL_OK && ok;
}

static void churn_one(bench_ctx *b, const char *label, const size_t *sizes,
                      int ns, churn_peer peer) {
  int iters = b->quick ? 20 : 40;
  cl_context clc;
  cl_command_queue q;
  vncl_context_cl(b->ctx, &clc, &q, NULL);
  vncl_context *c2 = NULL;
  if (peer == PEER_UNCACHED) {
    vncl_options o;
    char sel[16];
    snprintf(sel, sizeof sel, "%d", b->dev.index);
    vncl_options_init(&o);
    o.device = sel;
    o.cache_dir = "off";
    if (vncl_context_create(&c2, &o)) return;
  }
  int reps = b->repeats;
  double *tv = calloc((size_t)reps, sizeof *tv), *tp = calloc((size_t)reps, sizeof *tp);
  bool ok = true, correct = true;
  static const cl_uint zero = 0;
  vncl_memory_trim(b->ctx);
  for (int r = -1; r < reps && ok; r++) { /* r == -1: warm-up */
    double t0 = bench_now();
    ok = churn_steps(b->ctx, sizes, ns, iters, false);
    double tvv = bench_now() - t0;
    t0 = bench_now();
    if (peer == PEER_UNCACHED) {
      ok = ok && churn_steps(c2, sizes, ns, iters, true);
    } else {
      for (int it = 0; it < iters; it++) {
        cl_mem m[8];
        for (int i = 0; i < ns; i++) {
          cl_int err;
          m[i] = clCreateBuffer(clc, CL_MEM_READ_WRITE, sizes[i], NULL, &err);
          if (m[i] && peer == PEER_RAW_FILL)
            clEnqueueFillBuffer(q, m[i], &zero, 4, 0, sizes[i], 0, NULL, NULL);
        }
        for (int i = 0; i < ns; i++)
          if (m[i]) clReleaseMemObject(m[i]);
      }
      clFinish(q);
    }
    double tpp = bench_now() - t0;
    if (r >= 0) {
      tv[r] = tvv / ((double)iters * ns);
      tp[r] = tpp / ((double)iters * ns);
    }
  }
  vncl_context_destroy(c2);
  /* A reused tensor reads back as zeros. */
  if (ok) {
    int64_t shape[1] = {(int64_t)(sizes[0] / 4)};
    vncl_tensor *t;
    unsigned char *buf = malloc(sizes[0]);
    ok = buf && vncl_tensor_create(b->ctx, VNCL_F32, 1, shape, &t) == VNCL_OK;
    if (ok) {
      memset(buf, 0xFF, sizes[0]);
      vncl_tensor_write(t, buf, sizes[0]);
      vncl_tensor_destroy(t);
      ok = vncl_tensor_create(b->ctx, VNCL_F32, 1, shape, &t) == VNCL_OK &&
           vncl_tensor_read(t, buf, sizes[0]) == VNCL_OK;
      for (size_t i = 0; ok && i < sizes[0]; i++) correct = correct && !buf[i];
      vncl_tensor_destroy(t);
    }
    free(buf);
  }
  double sv, sp, mv = bench_median(tv, reps, &sv), mp = bench_median(tp, reps, &sp);
  char name[96];
  snprintf(name, sizeof name, "churn %s", label);
  bench_case c = {0};
  c.suite = "transfer";
  c.name = name;
  c.dtype = "f32";
  c.unit = "us";
  c.value = mv * 1e6;
  c.spread = sv;
  c.wall_seconds = mv;
  c.peer = peer == PEER_RAW_FILL ? "raw+fill" : peer == PEER_RAW ? "raw" : "uncached";
  c.peer_value = mp * 1e6;
  c.peer_spread = sp;
  c.correct = ok && correct;
  bench_record(b, &c);
  free(tv);
  free(tp);
}

static void churn_cases(bench_ctx *b) {
  static const size_t small[] = {4 << 10, 16 << 10, 64 << 10, 256 << 10};
  static const size_t large[] = {1 << 20, 4 << 20, 16 << 20};
  churn_one(b, "4K-256K tensors", small, 4, PEER_RAW_FILL);
  churn_one(b, "4K-256K tensors", small, 4, PEER_UNCACHED);
  churn_one(b, "4K-256K tensors", small, 4, PEER_RAW);
  churn_one(b, "1M-16M tensors", large, 3, PEER_RAW_FILL);
  churn_one(b, "1M-16M tensors", large, 3, PEER_UNCACHED);
}

int bench_suite_transfer(bench_ctx *b) {
  xfer_bench x = {0};
  x.b = b;
  size_t big = b->quick ? 64 * MIB : 256 * MIB; /* past the caches: the gate */
  x.bytes = big;
  x.src = malloc(big + 8192);
  x.dst = malloc(big);
  x.peer = malloc(big);
  if (!x.src || !x.dst || !x.peer ||
      vncl_host_alloc(b->ctx, big, (void **)&x.psrc) ||
      vncl_host_alloc(b->ctx, big, (void **)&x.pdst)) {
    free(x.src);
    free(x.dst);
    free(x.peer);
    return -1;
  }
  /* Fresh bytes, touched, so that no case pays first-touch page faults. */
  uint64_t z = (uint64_t)(bench_now() * 1e9);
  for (size_t i = 0; i < big; i += 8) {
    z = z * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t v = z >> 11;
    memcpy(x.src + i, &v, big - i < 8 ? big - i : 8);
  }
  memcpy(x.psrc, x.src, big);
  memset(x.dst, 0, big);
  memset(x.pdst, 0, big);
  memset(x.peer, 0, big);

  char sz[32], name[96];
  size_name(sz, sizeof sz, big);
  snprintf(name, sizeof name, "write %s pageable", sz);
  bw_case(&x, name, OP_WRITE, false, big);
  snprintf(name, sizeof name, "read %s pageable", sz);
  bw_case(&x, name, OP_READ, false, big);
  snprintf(name, sizeof name, "write %s pinned", sz);
  bw_case(&x, name, OP_WRITE, true, big);
  snprintf(name, sizeof name, "read %s pinned", sz);
  bw_case(&x, name, OP_READ, true, big);
  snprintf(name, sizeof name, "clEnqueueWriteBuffer %s (ref)", sz);
  bw_case(&x, name, OP_CL_WRITE, false, big);
  snprintf(name, sizeof name, "clEnqueueReadBuffer %s (ref)", sz);
  bw_case(&x, name, OP_CL_READ, false, big);

  user_buffers(&x, big);
  /* The range starts at 1 MiB: there each driver command's own
   * cost shows (docs/transfers.md, "Tensors in SVM"). Full runs only. */
  if (!b->quick) {
    user_buffers(&x, 1 << 20);
    user_buffers(&x, 16 << 20);
  }

  static const size_t full[] = {4 << 10, 64 << 10, 1 << 20, 16 << 20,
                                256 << 20};
  static const size_t quick[] = {4 << 10, 1 << 20, 16 << 20};
  if (b->quick)
    paths(&x, quick, 3);
  else
    paths(&x, full, 5);

  stream_case(b);
  churn_cases(b);

  vncl_staging_stats st;
  if (vncl_staging_stats_get(b->ctx, &st) == VNCL_OK)
    printf("transfer  staging: %llu chunk(s) of %llu MiB, %llu hits, %llu "
           "waits, %llu fallbacks, %.1f MiB staged\n",
           (unsigned long long)st.chunks,
           (unsigned long long)(st.chunk_bytes >> 20),
           (unsigned long long)st.hits, (unsigned long long)st.waits,
           (unsigned long long)st.fallbacks, st.bytes_staged / 1048576.0);
  vncl_host_free(b->ctx, x.psrc);
  vncl_host_free(b->ctx, x.pdst);
  free(x.src);
  free(x.dst);
  free(x.peer);
  return 0;
}
