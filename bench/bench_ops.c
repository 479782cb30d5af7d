/* The ops suite of `vncl bench`: tensor operations against memcpy, measured
 * in the same run and interleaved (one memcpy sample, then one operation
 * sample). Rates count the bytes each operation must move at least (an add
 * reads two tensors and writes one: 3 x 4 bytes per f32 element; a row sum
 * reads the tensor and writes one value per row; memcpy reads and writes
 * its size), so a ratio of 1.0 means "as fast as copying memory".
 * Each result is checked on a sample of elements against a CPU reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef enum {
  K_ADD,       /* c = a + b, same shape */
  K_ADD_ROW,   /* c = a + row, [r, n] + [n] */
  K_SUM_ROWS,  /* sum over the last axis */
  K_SUM_COLS,  /* sum over the first axis */
  K_SUM_ALL,   /* sum of everything */
  K_SOFTMAX,   /* softmax over the last axis */
  K_TRANSPOSE, /* [r, n] -> [n, r] */
  K_CAST,      /* f32 -> bf16 */
  K_RANDOM,    /* uniform f32 */
  K_ADD_COL,   /* [r, n] + [r, 1] */
  K_ADD_SCALAR, /* [r, n] + [1] */
  K_ADD_MID,   /* [64, m, n] + [64, 1, n] */
  K_SUM_MID,   /* [64, m, n] over the middle axis */
  K_LOG_SOFTMAX, /* log-softmax over the last axis */
  K_PERM3,     /* [64, m, n] -> [n, m, 64] */
  K_PERM3_KEEP, /* [64, m, n] -> [m, 64, n] (the innermost axis stays) */
  K_PERM4,     /* [8, m/8, 64, n/64] -> [8, n/64, 64, m/8] */
  K_NORMAL,    /* normal f32 */
  K_PERM3_H,   /* K_PERM3 on f16 (2-byte elements) */
  K_MAX_ROWS,  /* max over the last axis */
  K_MAX_COLS,  /* max over the first axis */
  K_ARGMAX_ROWS, /* argmax over the last axis (i32 out) */
  K_ARGMAX_COLS, /* argmax over the first axis */
  K_ARGMAX_ALL, /* argmax of everything */
  K_WIDEN_F16, /* f16 -> f32 (a's values rounded to f16) */
  K_WIDEN_BF16, /* bf16 -> f32 (a's values rounded to bf16) */
  K_PERMG,     /* 4-D permutation o->pperm of a tensor of shape o->pshape */
  K_GELU,      /* exact gelu, elementwise */
  K_POW        /* 3^a, elementwise (vncl_scalar_binary, VNCL_POW) */
} kind;

typedef struct ops_bench {
  bench_ctx *b;
  float *host;          /* input values, rows x cols */
  unsigned char *psrc;  /* memcpy peer */
  unsigned char *pdst;
  size_t peer_bytes;    /* bytes memcpy copies per sample */
  int64_t rows, cols;
  int64_t mid;          /* the 3-D view: [64, mid, cols], mid = rows / 64 */
  int64_t pshape[4];    /* K_PERMG: the input's shape (a's first values) */
  int pperm[4];         /* and the permutation */
} ops_bench;

static const int perm3[3] = {2, 1, 0}, perm3_keep[3] = {1, 0, 2},
                 perm4[4] = {0, 3, 2, 1};

static vncl_status run(ops_bench *o, kind k, vncl_tensor *a, vncl_tensor *b,
                       vncl_tensor *c) {
  vncl_context *ctx = o->b->ctx;
  switch (k) {
    case K_ADD:
    case K_ADD_ROW: return vncl_binary(ctx, VNCL_ADD, a, b, c);
    case K_SUM_ROWS: return vncl_reduce(ctx, VNCL_REDUCE_SUM, a, 1, c);
    case K_SUM_COLS: return vncl_reduce(ctx, VNCL_REDUCE_SUM, a, 0, c);
    case K_SUM_ALL: return vncl_reduce_all(ctx, VNCL_REDUCE_SUM, a, c);
    case K_SOFTMAX: return vncl_softmax(ctx, a, c);
    case K_TRANSPOSE: return vncl_transpose(ctx, a, c);
    case K_CAST:
    case K_WIDEN_F16:
    case K_WIDEN_BF16: return vncl_cast(ctx, a, c);
    case K_RANDOM: return vncl_random_uniform(ctx, c, 1234, 0, 0, 0, 1);
    case K_ADD_COL:
    case K_ADD_SCALAR:
    case K_ADD_MID: return vncl_binary(ctx, VNCL_ADD, a, b, c);
    case K_SUM_MID: return vncl_reduce(ctx, VNCL_REDUCE_SUM, a, 1, c);
    case K_LOG_SOFTMAX: return vncl_log_softmax(ctx, a, c);
    case K_PERM3:
    case K_PERM3_H: return vncl_permute(ctx, a, perm3, c);
    case K_PERM3_KEEP: return vncl_permute(ctx, a, perm3_keep, c);
    case K_PERM4: return vncl_permute(ctx, a, perm4, c);
    case K_NORMAL: return vncl_random_normal(ctx, c, 1234, 0, 0, 0, 1);
    case K_MAX_ROWS: return vncl_reduce(ctx, VNCL_REDUCE_MAX, a, 1, c);
    case K_MAX_COLS: return vncl_reduce(ctx, VNCL_REDUCE_MAX, a, 0, c);
    case K_ARGMAX_ROWS: return vncl_reduce(ctx, VNCL_REDUCE_ARGMAX, a, 1, c);
    case K_ARGMAX_COLS: return vncl_reduce(ctx, VNCL_REDUCE_ARGMAX, a, 0, c);
    case K_ARGMAX_ALL: return vncl_reduce_all(ctx, VNCL_REDUCE_ARGMAX, a, c);
    case K_PERMG: return vncl_permute(ctx, a, o->pperm, c);
    case K_GELU: return vncl_unary(ctx, VNCL_GELU, a, c);
    case K_POW: return vncl_scalar_binary(ctx, VNCL_POW, 3.0, a, c);
  }
  return VNCL_ERR_INVALID_ARG;
}

/* Checks about 1000 outputs spread over the result. */
static bool verify(ops_bench *o, kind k, const vncl_tensor *c) {
  size_t n = vncl_tensor_numel(c), bytes = vncl_tensor_bytes(c);
  unsigned char *raw = malloc(bytes);
  if (!raw || vncl_tensor_read(c, raw, bytes)) {
    free(raw);
    return false;
  }
  const float *x = o->host, *y = (const float *)raw;
  size_t R = (size_t)o->rows, C = (size_t)o->cols, N = R * C;
  size_t M = (size_t)o->mid; /* [64, M, C] */
  size_t step = n / 997 + 1;
  bool ok = true;
  for (size_t i = 0; i < n && ok; i += step) {
    double want, got = k == K_CAST || k == K_PERM3_H ? 0 : y[i], tol = 1e-6;
    switch (k) {
      case K_ADD: want = (double)x[i] + x[(i * 7 + 3) % N]; break;
      case K_ADD_ROW: want = (double)x[i] + x[i % C]; break;
      case K_SUM_ROWS:
      case K_SUM_COLS:
      case K_SUM_ALL: {
        double s = 0, sa = 0;
        size_t cnt = k == K_SUM_ROWS ? C : k == K_SUM_COLS ? R : N;
        for (size_t j = 0; j < cnt; j++) {
          double v = k == K_SUM_ROWS ? x[i * C + j]
                     : k == K_SUM_COLS ? x[j * C + i] : x[j];
          s += v;
          sa += fabs(v);
        }
        want = s;
        tol = 1e-5 * sa;
        break;
      }
      case K_SUM_MID: { /* out [64, C]: i = b * C + col */
        double sm = 0, sa = 0;
        size_t b0 = i / C, col = i % C;
        for (size_t j = 0; j < M; j++) {
          double v = x[(b0 * M + j) * C + col];
          sm += v;
          sa += fabs(v);
        }
        want = sm;
        tol = 1e-5 * sa;
        break;
      }
      case K_MAX_ROWS:
      case K_MAX_COLS:
      case K_ARGMAX_ROWS:
      case K_ARGMAX_COLS:
      case K_ARGMAX_ALL: { /* the first maximum (the values hold no NaN) */
        bool rows = k == K_MAX_ROWS || k == K_ARGMAX_ROWS;
        size_t cnt = rows ? C : k == K_ARGMAX_ALL ? N : R;
        double m = -INFINITY;
        size_t at = 0;
        for (size_t j = 0; j < cnt; j++) {
          double v = rows ? x[i * C + j] : k == K_ARGMAX_ALL ? x[j]
                                                             : x[j * C + i];
          if (v > m) m = v, at = j;
        }
        bool arg = k != K_MAX_ROWS && k != K_MAX_COLS;
        want = arg ? (double)at : m;
        if (arg) got = ((const int32_t *)raw)[i];
        tol = 0;
        break;
      }
      case K_ADD_COL: want = (double)x[i] + x[i / C]; break;
      case K_ADD_SCALAR: want = (double)x[i] + x[0]; break;
      case K_ADD_MID: want = (double)x[i] + x[i / (M * C) * C + i % C]; break;
      case K_PERM3:
      case K_PERM3_H: { /* out [C, M, 64] */
        size_t b0 = i % 64, j = i / 64 % M, col = i / (64 * M);
        want = x[(b0 * M + j) * C + col];
        if (k == K_PERM3_H) { /* f16 of a's values, moved bit for bit */
          got = vncl_f16_to_double(((const uint16_t *)raw)[i]);
          tol = 0x1p-11 * fabs(want);
        }
        break;
      }
      case K_PERM3_KEEP: { /* out [M, 64, C] */
        size_t col = i % C, b0 = i / C % 64, j = i / (64 * C);
        want = x[(b0 * M + j) * C + col];
        break;
      }
      case K_PERM4: { /* in [8, M8, 64, C64] -> out [8, C64, 64, M8] */
        size_t M8 = R / 8, C64 = C / 64;
        size_t j1 = i % M8, j2 = i / M8 % 64, j3 = i / (M8 * 64) % C64,
               j0 = i / (M8 * 64 * C64);
        want = x[((j0 * M8 + j1) * 64 + j2) * C64 + j3];
        break;
      }
      case K_PERMG: { /* out dimension j is input dimension pperm[j] */
        size_t istr[4], r = i, src = 0;
        istr[3] = 1;
        for (int d = 2; d >= 0; d--)
          istr[d] = istr[d + 1] * (size_t)o->pshape[d + 1];
        for (int j = 3; j >= 0; j--) {
          size_t len = (size_t)o->pshape[o->pperm[j]];
          src += r % len * istr[o->pperm[j]];
          r /= len;
        }
        want = x[src];
        break;
      }
      case K_NORMAL: want = 0; tol = 7; break; /* |z| < 7: 1 in 4e11 */
      case K_LOG_SOFTMAX:
      case K_SOFTMAX: {
        size_t r = i / C;
        double m = -INFINITY, s = 0;
        for (size_t j = 0; j < C; j++) m = fmax(m, x[r * C + j]);
        for (size_t j = 0; j < C; j++) s += exp(x[r * C + j] - m);
        want = k == K_SOFTMAX ? exp(x[i] - m) / s : (x[i] - m) - log(s);
        tol = k == K_SOFTMAX ? 1e-5 * want : 1e-5 * (fabs(want) + 1);
        break;
      }
      case K_TRANSPOSE: want = x[(i % R) * C + i / R]; break;
      case K_CAST: { /* from a's values (f32, or f64 holding them) */
        const uint16_t *h = (const uint16_t *)raw;
        switch (vncl_tensor_dtype(c)) {
          case VNCL_BF16: got = vncl_bf16_to_double(h[i]); tol = 0x1p-8; break;
          case VNCL_F16: got = vncl_f16_to_double(h[i]); tol = 0x1p-11; break;
          case VNCL_F64: got = ((const double *)raw)[i]; tol = 0; break;
          default: got = y[i]; tol = 0; break; /* f32 from f64: exact */
        }
        want = x[i];
        tol *= fabs(want);
        break;
      }
      case K_WIDEN_F16:
      case K_WIDEN_BF16: /* within the 16-bit rounding of a's values (f16:
                            its subnormals' absolute step below 2^-14) */
        want = x[i];
        tol = (k == K_WIDEN_BF16 ? 0x1p-8 : 0x1p-11) * fabs(want) +
              (k == K_WIDEN_F16 ? 0x1p-25 : 0);
        break;
      case K_RANDOM: want = 0.5; tol = 0.5; break;
      case K_GELU:
        want = 0.5 * x[i] * erfc(-x[i] / sqrt(2.0));
        tol = 1e-5 * fabs(want);
        break;
      case K_POW: want = pow(3.0, x[i]); tol = 1e-5 * want; break;
      default: want = NAN;
    }
    ok = fabs(got - want) <= tol + 1e-30;
  }
  free(raw);
  return ok;
}

/* Times memcpy and the operation alternately, reps samples each, into
 * *cs (medians); false when a call failed. */
static bool measure(ops_bench *o, kind k, vncl_tensor *a, vncl_tensor *b,
                    vncl_tensor *c, double bytes, int reps, bench_case *cs) {
  bench_ctx *bc = o->b;
  double *tv = calloc((size_t)reps, sizeof *tv);
  double *tp = calloc((size_t)reps, sizeof *tp);
  bool ok = tv && tp;
  for (int r = 0; r < reps && ok; r++) {
    double t0 = bench_now();
    memcpy(o->pdst, o->psrc, o->peer_bytes);
    tp[r] = bench_now() - t0;
    t0 = bench_now();
    ok = run(o, k, a, b, c) == VNCL_OK && vncl_finish(bc->ctx) == VNCL_OK;
    tv[r] = bench_now() - t0;
  }
  double sv = 0, sp = 0;
  double mv = ok ? bench_median(tv, reps, &sv) : 0;
  double mp = ok ? bench_median(tp, reps, &sp) : 0;
  cs->value = mv > 0 ? bytes / mv * 1e-9 : 0;
  cs->spread = sv;
  cs->wall_seconds = mv;
  cs->peer_value = mp > 0 ? 2.0 * (double)o->peer_bytes / mp * 1e-9 : 0;
  cs->peer_spread = sp;
  free(tv);
  free(tp);
  return ok;
}

/* Measures the case after a warm-up (again, with twice the samples, while
 * it fails its gate: BENCH_ATTEMPTS), checks the result and records the
 * best attempt. */
static void bench_case_run(ops_bench *o, const char *name, const char *dtype,
                           kind k, vncl_tensor *a, vncl_tensor *b,
                           vncl_tensor *c, double bytes) {
  bench_ctx *bc = o->b;
  bench_case cs = {0};
  cs.suite = "ops";
  cs.name = name;
  cs.dtype = dtype;
  cs.unit = "GB/s";
  cs.peer = "memcpy";
  cs.bytes = bytes;
  /* The goal is a fraction of memcpy, not parity: 0.8x for the bytes an
   * operation must move; random numbers, gelu and pow are compute-bound
   * (no goal, gated at their floor; bench_gate.c). */
  cs.gate = true;
  cs.goal_gate = true;
  cs.goal = k == K_RANDOM || k == K_NORMAL || k == K_GELU || k == K_POW
                ? 0
                : 0.8;
  cs.m = (int)o->rows;
  cs.n = (int)o->cols;
  bool ok = run(o, k, a, b, c) == VNCL_OK && vncl_finish(bc->ctx) == VNCL_OK;
  bench_case best = cs;
  for (int t = 0; ok && t < BENCH_ATTEMPTS; t++) {
    bench_case now = best; /* keeps the first attempt's ratio */
    bench_retry_pause(t);
    ok = measure(o, k, a, b, c, bytes, bc->repeats << t, &now);
    if (!ok) break;
    if (t == 0) now.first_ratio = bench_case_ratio(&now);
    if (t == 0 || bench_case_ratio(&now) > bench_case_ratio(&best)) best = now;
    best.attempts = t + 1;
    if (!bench_gate_fails(bc, &best)) break;
  }
  if (!ok) fprintf(stderr, "ops %s: %s\n", name, vncl_errmsg(bc->ctx));
  best.correct = ok && verify(o, k, c);
  bench_record(bc, &best);
}

static vncl_tensor *tensor4t(bench_ctx *b, vncl_dtype t, int nd, int64_t d0,
                             int64_t d1, int64_t d2, int64_t d3) {
  int64_t shape[4] = {d0, d1, d2, d3};
  vncl_tensor *x = NULL;
  if (vncl_tensor_create(b->ctx, t, nd, shape, &x)) return NULL;
  return x;
}

static vncl_tensor *tensor4(bench_ctx *b, int nd, int64_t d0, int64_t d1,
                            int64_t d2, int64_t d3) {
  return tensor4t(b, VNCL_F32, nd, d0, d1, d2, d3);
}

static vncl_tensor *tensor(bench_ctx *b, vncl_dtype t, int nd, int64_t d0,
                           int64_t d1) {
  int64_t shape[2] = {d0, d1};
  vncl_tensor *x = NULL;
  if (vncl_tensor_create(b->ctx, t, nd, shape, &x)) return NULL;
  return x;
}

int bench_suite_ops(bench_ctx *b) {
  ops_bench o = {0};
  o.b = b;
  /* 64 Mi elements (4 Mi in quick mode), as rows x cols. */
  o.rows = b->quick ? 1024 : 4096;
  o.cols = b->quick ? 4096 : 16384;
  size_t N = (size_t)o.rows * (size_t)o.cols, bytes = N * 4;
  o.peer_bytes = bytes;
  o.host = malloc(bytes);
  o.psrc = malloc(bytes);
  o.pdst = malloc(bytes);
  vncl_tensor *a = tensor(b, VNCL_F32, 2, o.rows, o.cols);
  vncl_tensor *bb = tensor(b, VNCL_F32, 2, o.rows, o.cols);
  vncl_tensor *c = tensor(b, VNCL_F32, 2, o.rows, o.cols);
  vncl_tensor *row = tensor(b, VNCL_F32, 1, o.cols, 0);
  vncl_tensor *rsum = tensor(b, VNCL_F32, 1, o.rows, 0);
  vncl_tensor *csum = tensor(b, VNCL_F32, 1, o.cols, 0);
  vncl_tensor *one = tensor(b, VNCL_F32, 1, 1, 0);
  vncl_tensor *irow = tensor(b, VNCL_I32, 1, o.rows, 0);
  vncl_tensor *icol = tensor(b, VNCL_I32, 1, o.cols, 0);
  vncl_tensor *ione = tensor(b, VNCL_I32, 1, 1, 0);
  vncl_tensor *tr = tensor(b, VNCL_F32, 2, o.cols, o.rows);
  vncl_tensor *h = tensor(b, VNCL_BF16, 2, o.rows, o.cols);
  vncl_tensor *hf = tensor(b, VNCL_F16, 2, o.rows, o.cols);
  vncl_tensor *d = tensor(b, VNCL_F64, 2, o.rows, o.cols);
  o.mid = o.rows / 64;
  int64_t M = o.mid, C0 = o.cols;
  vncl_tensor *col = tensor(b, VNCL_F32, 2, o.rows, 1);
  vncl_tensor *sc = tensor(b, VNCL_F32, 1, 1, 0);
  vncl_tensor *a3 = tensor4(b, 3, 64, M, C0, 0); /* a's values, 3-D */
  vncl_tensor *o3 = tensor4(b, 3, 64, M, C0, 0);
  vncl_tensor *b3 = tensor4(b, 3, 64, 1, C0, 0);
  vncl_tensor *s3 = tensor4(b, 2, 64, C0, 0, 0);
  vncl_tensor *p3 = tensor4(b, 3, C0, M, 64, 0);
  vncl_tensor *k3 = tensor4(b, 3, M, 64, C0, 0);
  vncl_tensor *a4 = tensor4(b, 4, 8, o.rows / 8, 64, C0 / 64);
  vncl_tensor *p4 = tensor4(b, 4, 8, C0 / 64, 64, o.rows / 8);
  vncl_tensor *h3 = tensor4t(b, VNCL_F16, 3, 64, M, C0, 0); /* f16 of a3 */
  vncl_tensor *q3 = tensor4t(b, VNCL_F16, 3, C0, M, 64, 0);
  int rc = -1;
  if (!o.host || !o.psrc || !o.pdst || !a || !bb || !c || !row || !rsum ||
      !csum || !one || !irow || !icol || !ione || !tr || !h || !hf || !d ||
      !col || !sc || !a3 || !o3 || !b3 || !s3 || !p3 || !k3 || !a4 || !p4 ||
      !h3 || !q3)
    goto out;
  /* Inputs: b is a shifted copy of a, the row is a's first row. */
  srand(7);
  for (size_t i = 0; i < N; i++) o.host[i] = (float)rand() / RAND_MAX * 2 - 1;
  float *shifted = (float *)o.pdst;
  for (size_t i = 0; i < N; i++) shifted[i] = o.host[(i * 7 + 3) % N];
  memset(o.psrc, 1, bytes);
  if (vncl_tensor_write(a, o.host, bytes) ||
      vncl_tensor_write(bb, shifted, bytes) ||
      vncl_tensor_write(row, o.host, (size_t)o.cols * 4) ||
      vncl_tensor_write(col, o.host, (size_t)o.rows * 4) ||
      vncl_tensor_write(sc, o.host, 4) ||
      vncl_tensor_write(a3, o.host, bytes) ||
      vncl_tensor_write(a4, o.host, bytes) ||
      vncl_tensor_write(b3, o.host, (size_t)(64 * C0) * 4))
    goto out;

  char name[64];
  const char *sz = b->quick ? "4Mi" : "64Mi";
  double R = (double)o.rows, C = (double)o.cols, n = (double)N;
  snprintf(name, sizeof name, "add %s", sz);
  bench_case_run(&o, name, "f32", K_ADD, a, bb, c, 12 * n);
  snprintf(name, sizeof name, "add row-broadcast %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_ADD_ROW, a, row, c, 8 * n + 4 * C);
  snprintf(name, sizeof name, "sum rows %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_SUM_ROWS, a, NULL, rsum, 4 * n + 4 * R);
  snprintf(name, sizeof name, "sum cols %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_SUM_COLS, a, NULL, csum, 4 * n + 4 * C);
  snprintf(name, sizeof name, "sum all %s", sz);
  bench_case_run(&o, name, "f32", K_SUM_ALL, a, NULL, one, 4 * n);
  snprintf(name, sizeof name, "softmax rows %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_SOFTMAX, a, NULL, c, 8 * n);
  snprintf(name, sizeof name, "transpose %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_TRANSPOSE, a, NULL, tr, 8 * n);
  snprintf(name, sizeof name, "cast f32->bf16 %s", sz);
  bench_case_run(&o, name, "f32", K_CAST, a, NULL, h, 6 * n);
  snprintf(name, sizeof name, "random uniform %s", sz);
  bench_case_run(&o, name, "f32", K_RANDOM, NULL, NULL, c, 4 * n);
  /* The other broadcast patterns, the middle axis, log-softmax, 3-D and
   * 4-D permutations, normal numbers. Bytes: what must be read and
   * written at least (a broadcast operand once). */
  double Md = (double)M;
  snprintf(name, sizeof name, "add col-broadcast %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_ADD_COL, a, col, c, 8 * n + 4 * R);
  snprintf(name, sizeof name, "add scalar-broadcast %s", sz);
  bench_case_run(&o, name, "f32", K_ADD_SCALAR, a, sc, c, 8 * n);
  snprintf(name, sizeof name, "add mid-broadcast 64x%.0fx%.0f", Md, C);
  bench_case_run(&o, name, "f32", K_ADD_MID, a3, b3, o3, 8 * n + 4 * 64 * C);
  snprintf(name, sizeof name, "sum mid 64x%.0fx%.0f", Md, C);
  bench_case_run(&o, name, "f32", K_SUM_MID, a3, NULL, s3, 4 * n + 4 * 64 * C);
  snprintf(name, sizeof name, "log-softmax rows %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_LOG_SOFTMAX, a, NULL, c, 8 * n);
  snprintf(name, sizeof name, "permute 64x%.0fx%.0f (2,1,0)", Md, C);
  bench_case_run(&o, name, "f32", K_PERM3, a3, NULL, p3, 8 * n);
  snprintf(name, sizeof name, "permute 64x%.0fx%.0f (1,0,2)", Md, C);
  bench_case_run(&o, name, "f32", K_PERM3_KEEP, a3, NULL, k3, 8 * n);
  snprintf(name, sizeof name, "permute 8x%.0fx64x%.0f (0,3,2,1)", R / 8, C / 64);
  bench_case_run(&o, name, "f32", K_PERM4, a4, NULL, p4, 8 * n);
  /* 2-byte elements: the f16 values of a3 (rounded by a cast first). */
  if (vncl_cast(b->ctx, a3, h3) || vncl_finish(b->ctx)) goto out;
  snprintf(name, sizeof name, "permute 64x%.0fx%.0f (2,1,0)", Md, C);
  bench_case_run(&o, name, "f16", K_PERM3_H, h3, NULL, q3, 4 * n);
  snprintf(name, sizeof name, "random normal %s", sz);
  bench_case_run(&o, name, "f32", K_NORMAL, NULL, NULL, c, 4 * n);
  /* Elementwise functions that compute more than they move (vncl's own
   * on clang compilers, docs/ops.md, nineteenth pass): a read and a
   * write an element. */
  snprintf(name, sizeof name, "gelu %s", sz);
  bench_case_run(&o, name, "f32", K_GELU, a, NULL, c, 8 * n);
  snprintf(name, sizeof name, "pow 3^x %s", sz);
  bench_case_run(&o, name, "f32", K_POW, a, NULL, c, 8 * n);
  /* Casts other than to bf16: widening (f32 -> f64 writes 8 bytes per
   * element), narrowing back from those f64 values, and to f16. */
  if (b->dev.fp64) {
    snprintf(name, sizeof name, "cast f32->f64 %s", sz);
    bench_case_run(&o, name, "f32", K_CAST, a, NULL, d, 12 * n);
    snprintf(name, sizeof name, "cast f64->f32 %s", sz);
    bench_case_run(&o, name, "f64", K_CAST, d, NULL, c, 12 * n);
    /* f64 -> 16-bit: one rounding of 16 doubles per vector (docs/ops.md) */
    snprintf(name, sizeof name, "cast f64->f16 %s", sz);
    bench_case_run(&o, name, "f64", K_CAST, d, NULL, hf, 10 * n);
    snprintf(name, sizeof name, "cast f64->bf16 %s", sz);
    bench_case_run(&o, name, "f64", K_CAST, d, NULL, h, 10 * n);
  }
  snprintf(name, sizeof name, "cast f32->f16 %s", sz);
  bench_case_run(&o, name, "f32", K_CAST, a, NULL, hf, 6 * n);
  /* Widening from 16-bit storage (what the casts above wrote: a's values
   * rounded): 2 bytes read, 4 written per element. */
  snprintf(name, sizeof name, "cast f16->f32 %s", sz);
  bench_case_run(&o, name, "f16", K_WIDEN_F16, hf, NULL, c, 6 * n);
  snprintf(name, sizeof name, "cast bf16->f32 %s", sz);
  bench_case_run(&o, name, "bf16", K_WIDEN_BF16, h, NULL, c, 6 * n);
  /* Max and argmax along rows, down columns and over everything: the
   * other reductions (sums above); argmax writes i32. */
  snprintf(name, sizeof name, "max rows %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_MAX_ROWS, a, NULL, rsum, 4 * n + 4 * R);
  snprintf(name, sizeof name, "max cols %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_MAX_COLS, a, NULL, csum, 4 * n + 4 * C);
  snprintf(name, sizeof name, "argmax rows %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_ARGMAX_ROWS, a, NULL, irow, 4 * n + 4 * R);
  snprintf(name, sizeof name, "argmax cols %.0fx%.0f", R, C);
  bench_case_run(&o, name, "f32", K_ARGMAX_COLS, a, NULL, icol, 4 * n + 4 * C);
  snprintf(name, sizeof name, "argmax all %s", sz);
  bench_case_run(&o, name, "f32", K_ARGMAX_ALL, a, NULL, ione, 4 * n);
  /* Permutations with a short side: image layouts with 3 channels (NCHW
   * -> NHWC and back) and a short first axis moved innermost (8 x ... in
   * (3,2,1,0)), a's first values; 8 bytes an element. */
  static const struct {
    const char *what;
    int64_t shape[4];
    int perm[4];
  } pg[] = {{"NCHW->NHWC", {64, 3, 256, 1024}, {0, 2, 3, 1}},
            {"NHWC->NCHW", {64, 256, 1024, 3}, {0, 3, 1, 2}},
            {"", {8, 512, 64, 256}, {3, 2, 1, 0}}};
  for (size_t i = 0; i < sizeof pg / sizeof *pg; i++) {
    int64_t sh[4], osh[4], pn = 1;
    memcpy(sh, pg[i].shape, sizeof sh);
    if (b->quick) sh[pg[i].perm[3] == 0 ? 1 : 0] /= 16; /* 4 Mi at most */
    for (int d = 0; d < 4; d++) pn *= sh[d];
    for (int d = 0; d < 4; d++) osh[d] = sh[pg[i].perm[d]];
    vncl_tensor *pi = NULL, *po = NULL;
    int wrote = vncl_tensor_create(b->ctx, VNCL_F32, 4, sh, &pi) == VNCL_OK &&
                vncl_tensor_create(b->ctx, VNCL_F32, 4, osh, &po) == VNCL_OK &&
                vncl_tensor_write(pi, o.host, (size_t)pn * 4) == VNCL_OK;
    if (wrote) {
      memcpy(o.pshape, sh, sizeof sh);
      memcpy(o.pperm, pg[i].perm, sizeof o.pperm);
      snprintf(name, sizeof name,
               "permute %s%s%lldx%lldx%lldx%lld (%d,%d,%d,%d)",
               pg[i].what, *pg[i].what ? " " : "", (long long)sh[0],
               (long long)sh[1], (long long)sh[2], (long long)sh[3],
               pg[i].perm[0], pg[i].perm[1], pg[i].perm[2], pg[i].perm[3]);
      bench_case_run(&o, name, "f32", K_PERMG, pi, NULL, po, 8.0 * (double)pn);
    }
    vncl_tensor_destroy(pi);
    vncl_tensor_destroy(po);
    if (!wrote) goto out;
  }
  /* Short rows, the same values as rows of 3 to 1024, one tensor per
   * length for three groups of cases:
   * - softmax and log-softmax (one group per row ran 64 and 1024 at
   *   0.03x and 0.38x memcpy, docs/ops.md "Eighth pass"; rows with a tail
   *   past their last whole vector, 24 and 100, ran theirs element by
   *   element before the twentieth pass, 24 at 0.40x; rows of 3 and 8
   *   element by element before the twenty-third, 0.13-0.18x; rows of
   *   10, a classifier's ten classes, before the twenty-fourth, 0.16x);
   * - sum, max and argmax over rows shorter than a vector (3, 8, 10), of
   *   one (16) and of several (100): a work-item a row before the twenty-
   *   second pass, its lanes and tail element by element before the
   *   twentieth (rows of 3 to 12 at 0.03-0.11x, of 16-100 at 0.08-0.38x);
   * - broadcasts by rows ([rows, L] + [L]) and by columns ([rows, L] +
   *   [rows, 1]) from 3 to 100: before the twenty-first pass rows under a
   *   vector went element by element (0.15x) and rows of a vector or two
   *   a work-item a row (rows of 16 at 0.16x, of 100 at 0.9x). */
  static const struct {
    int64_t L;
    bool softmax, reduce, bcast;
  } short_rows[] = {{3, 1, 1, 1},  {8, 1, 1, 1},   {10, 1, 1, 0},
                    {16, 1, 1, 1}, {24, 1, 0, 1},  {64, 1, 0, 0},
                    {100, 1, 1, 1}, {1024, 1, 0, 0}};
  for (size_t i = 0; i < sizeof short_rows / sizeof *short_rows; i++) {
    const int64_t L = short_rows[i].L, rows = (int64_t)N / L;
    const bool bc = short_rows[i].bcast;
    double nl = (double)rows * (double)L; /* N, or the rows that fit in it */
    vncl_tensor *si = tensor(b, VNCL_F32, 2, rows, L);
    vncl_tensor *so = tensor(b, VNCL_F32, 2, rows, L);
    vncl_tensor *rv = bc ? tensor(b, VNCL_F32, 1, L, 0) : NULL;
    vncl_tensor *cv = bc ? tensor(b, VNCL_F32, 2, rows, 1) : NULL;
#define WRITE_HOST(t) \
  (vncl_tensor_write(t, o.host, vncl_tensor_bytes(t)) == VNCL_OK)
    int wrote = si && so && WRITE_HOST(si) &&
                (!bc || (rv && cv && WRITE_HOST(rv) && WRITE_HOST(cv)));
#undef WRITE_HOST
    if (wrote) {
      int64_t keep_r = o.rows, keep_c = o.cols;
      o.rows = rows, o.cols = L; /* what verify reads the rows as */
      if (short_rows[i].softmax) {
        snprintf(name, sizeof name, "softmax rows %lldx%lld", (long long)rows,
                 (long long)L);
        bench_case_run(&o, name, "f32", K_SOFTMAX, si, NULL, so, 8 * nl);
        snprintf(name, sizeof name, "log-softmax rows %lldx%lld",
                 (long long)rows, (long long)L);
        bench_case_run(&o, name, "f32", K_LOG_SOFTMAX, si, NULL, so, 8 * nl);
      }
      vncl_tensor *rs = short_rows[i].reduce ? tensor(b, VNCL_F32, 1, rows, 0)
                                             : NULL;
      vncl_tensor *ri = rs ? tensor(b, VNCL_I32, 1, rows, 0) : NULL;
      if (rs && ri) {
        double rb = 4 * nl + 4 * (double)rows;
        snprintf(name, sizeof name, "sum rows %lldx%lld", (long long)rows,
                 (long long)L);
        bench_case_run(&o, name, "f32", K_SUM_ROWS, si, NULL, rs, rb);
        snprintf(name, sizeof name, "max rows %lldx%lld", (long long)rows,
                 (long long)L);
        bench_case_run(&o, name, "f32", K_MAX_ROWS, si, NULL, rs, rb);
        snprintf(name, sizeof name, "argmax rows %lldx%lld",
                 (long long)rows, (long long)L);
        bench_case_run(&o, name, "f32", K_ARGMAX_ROWS, si, NULL, ri, rb);
      }
      vncl_tensor_destroy(rs);
      vncl_tensor_destroy(ri);
      if (bc) {
        snprintf(name, sizeof name, "add row-broadcast %lldx%lld",
                 (long long)rows, (long long)L);
        bench_case_run(&o, name, "f32", K_ADD_ROW, si, rv, so,
                       8 * nl + 4 * (double)L);
        snprintf(name, sizeof name, "add col-broadcast %lldx%lld",
                 (long long)rows, (long long)L);
        bench_case_run(&o, name, "f32", K_ADD_COL, si, cv, so,
                       8 * nl + 4 * (double)rows);
      }
      o.rows = keep_r, o.cols = keep_c;
    }
    vncl_tensor_destroy(si);
    vncl_tensor_destroy(so);
    vncl_tensor_destroy(rv);
    vncl_tensor_destroy(cv);
    if (!wrote) goto out;
  }
  rc = 0;
out:;
  vncl_tensor *all[] = {a,  bb, c,  row, rsum, csum, one, irow, icol, ione,
                        tr, h, hf, d,  col, sc, a3, o3, b3, s3, p3, k3,
                        a4, p4, h3, q3};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    vncl_tensor_destroy(all[i]);
  free(o.host);
  free(o.psrc);
  free(o.pdst);
  return rc;
}
