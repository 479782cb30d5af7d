/*
 * The autotuner's child process: it measures one candidate per request
 * (a JSON line on stdin) and answers one JSON line on stdout. A candidate
 * that crashes the driver or hangs takes only this process down; the
 * parent (autotune_runner.c) records it as failed and starts another.
 *
 * Each candidate is built through the program cache, run once (warm-up,
 * also the build), validated, then timed `runs` times with profiling
 * markers around it on rotating inputs; the answer is the median. A
 * candidate that passes is run once more on a problem with ragged edges
 * (every dimension of the timed one less one, or less a few), validated
 * the same way: a set is installed for every shape of its class, and a
 * set that drops or spoils the values past its last whole tile or vector
 * would pass on the timed shape (powers of two) alone.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune.h"

#define ROTATE 3 /* input sets, so that no run finds its inputs in cache */

typedef struct wstate {
  struct wstate *edge; /* the ragged-edge problem (same context), or NULL */
  int sets;            /* input sets: ROTATE, 1 for the edge problem */
  vncl_context *ctx;
  cl_context cl_ctx; /* the context's own (vncl_context_cl) */
  cl_command_queue queue;
  cl_device_id dev;
  /* GEMM problem */
  int dt; /* VNCL_F32 or VNCL_F64 */
  size_t m, n, k, batch;
  cl_mem a[ROTATE], b[ROTATE], c;
  double *y0, *x; /* A(Bx) for set 0 per batch, and x */
  double *rowscale;
  /* ops problem */
  const char *fam; /* the family, NULL: none set up */
  vncl_tensor *in[ROTATE], *in2, *out;
  void *ref;
  size_t ref_bytes;
  double *absum; /* reduce: sum of |x| along each row of input set 0 */
} wstate;

static double rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void gemm_free(wstate *w) {
  for (int i = 0; i < ROTATE; i++) {
    if (w->a[i]) clReleaseMemObject(w->a[i]);
    if (w->b[i]) clReleaseMemObject(w->b[i]);
    w->a[i] = w->b[i] = NULL;
  }
  if (w->c) clReleaseMemObject(w->c);
  w->c = NULL;
  free(w->y0);
  free(w->x);
  free(w->rowscale);
  w->y0 = w->x = w->rowscale = NULL;
  w->m = 0;
}

/* x stored as element i of buffer h in dtype dt; returns the stored value. */
static double put(void *h, size_t i, int dt, double x) {
  switch (dt) {
    case VNCL_F64: return ((double *)h)[i] = x;
    case VNCL_F16:
      return vncl_f16_to_double(((uint16_t *)h)[i] = vncl_f16_from_double(x));
    case VNCL_BF16:
      return vncl_bf16_to_double(((uint16_t *)h)[i] =
                                     vncl_bf16_from_double(x));
    default: return ((float *)h)[i] = (float)x;
  }
}

/* Element i of buffer h in dtype dt. */
static double get(const void *h, size_t i, int dt) {
  switch (dt) {
    case VNCL_F64: return ((const double *)h)[i];
    case VNCL_F16: return vncl_f16_to_double(((const uint16_t *)h)[i]);
    case VNCL_BF16: return vncl_bf16_to_double(((const uint16_t *)h)[i]);
    default: return ((const float *)h)[i];
  }
}

static bool gemm_setup(wstate *w, int dt, size_t m, size_t n, size_t k,
                       size_t batch, char *why, size_t cap) {
  if (w->m == m && w->n == n && w->k == k && w->batch == batch && w->dt == dt)
    return true;
  gemm_free(w);
  size_t es = vncl_dtype_size((vncl_dtype)dt);
  size_t na = m * k * batch, nb = k * n * batch;
  double *ha = malloc(na * sizeof *ha), *hb = malloc(nb * sizeof *hb);
  void *tmp = malloc((na > nb ? na : nb) * es);
  w->x = malloc(n * sizeof *w->x);
  w->y0 = calloc(m * batch, sizeof *w->y0);
  w->rowscale = calloc(m * batch, sizeof *w->rowscale);
  cl_int err = 0;
  bool ok = ha && hb && tmp && w->x && w->y0 && w->rowscale;
  uint64_t seed = 12345;
  for (int r = 0; ok && r < w->sets; r++) {
    for (size_t i = 0; i < na; i++) ha[i] = rnd(&seed);
    for (size_t i = 0; i < nb; i++) hb[i] = rnd(&seed);
    for (int which = 0; which < 2 && ok; which++) {
      size_t cnt = which ? nb : na;
      const double *h = which ? hb : ha;
      /* The stored values, and the reference from them (rounded). */
      for (size_t i = 0; i < cnt; i++)
        (which ? hb : ha)[i] = put(tmp, i, dt, h[i]);
      cl_mem buf = clCreateBuffer(w->cl_ctx,
                                  CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                  cnt * es, tmp, &err);
      if (!buf) ok = false;
      if (which) w->b[r] = buf;
      else w->a[r] = buf;
    }
    if (ok && r == 0) {
      /* y0 = A (B x) per batch, and a scale for the tolerance:
       * |A| (|B| |x|). Freivalds' check needs O(mk + kn) work.
       * |x(j)| in [0.5, 1): an error in any column of C moves its row's
       * residual by at least half of it. x near zero (rnd's full range)
       * left column j unchecked, and the spoiled last value of the edge
       * test passed on one random shape in a few hundred. */
      for (size_t j = 0; j < n; j++) {
        double r = rnd(&seed);
        w->x[j] = (r < 0 ? -0.5 : 0.5) * (1.0 + fabs(r));
      }
      double *bx = malloc(k * sizeof *bx), *bxa = malloc(k * sizeof *bxa);
      ok = bx && bxa;
      for (size_t g = 0; ok && g < batch; g++) {
        for (size_t p = 0; p < k; p++) {
          double s = 0, sa = 0;
          const double *row = hb + g * k * n + p * n;
          for (size_t j = 0; j < n; j++) {
            s += row[j] * w->x[j];
            sa += fabs(row[j] * w->x[j]);
          }
          bx[p] = s;
          bxa[p] = sa;
        }
        for (size_t i = 0; i < m; i++) {
          double s = 0, sa = 0;
          const double *row = ha + g * m * k + i * k;
          for (size_t p = 0; p < k; p++) {
            s += row[p] * bx[p];
            sa += fabs(row[p]) * bxa[p];
          }
          w->y0[g * m + i] = s;
          w->rowscale[g * m + i] = sa;
        }
      }
      free(bx);
      free(bxa);
    }
  }
  if (ok) {
    w->c = clCreateBuffer(w->cl_ctx, CL_MEM_READ_WRITE,
                          m * n * batch * es, NULL, &err);
    ok = w->c != NULL;
  }
  free(ha);
  free(hb);
  free(tmp);
  if (!ok) {
    snprintf(why, cap, "cannot set up the %zu x %zu x %zu problem (%d)", m,
             n, k, (int)err);
    gemm_free(w);
    return false;
  }
  w->dt = dt;
  w->m = m;
  w->n = n;
  w->k = k;
  w->batch = batch;
  return true;
}

static vncl_status gemm_once(wstate *w, int set) {
  size_t m = w->m, n = w->n, k = w->k;
  return vncl_gemm_cl_batched(w->ctx, (vncl_dtype)w->dt, VNCL_ROW_MAJOR,
                              VNCL_NO_TRANS, VNCL_NO_TRANS, m, n, k, 1.0,
                              w->a[set], 0, k, m * k, w->b[set], 0, n, k * n,
                              0.0, w->c, 0, n, m * n, w->batch);
}

/* Test-only (VNCL_TUNE_TEST_FAULTS, the request's "test": "edge"): the
 * top exponent bit of the last element of a result, flipped before the
 * comparison, as a kernel that spoiled its last value would leave it. */
static void spoil_last(void *h, size_t bytes) {
  if (bytes) ((unsigned char *)h)[bytes - 1] ^= 0x40;
}

/* C of input set 0 against A(Bx): NaN, Inf or a residual above the
 * tolerance rejects the candidate. */
static bool gemm_check(wstate *w, bool spoil, char *why, size_t cap) {
  size_t es = vncl_dtype_size((vncl_dtype)w->dt),
         cnt = w->m * w->n * w->batch;
  void *h = malloc(cnt * es);
  if (!h) return snprintf(why, cap, "out of memory"), false;
  cl_int err = clEnqueueReadBuffer(w->queue, w->c, CL_TRUE, 0, cnt * es,
                                   h, 0, NULL, NULL);
  bool ok = err == CL_SUCCESS;
  if (!ok) snprintf(why, cap, "reading C: %d", (int)err);
  if (spoil) spoil_last(h, cnt * es);
  /* 16-bit storage: C itself is rounded to 11 (f16) or 8 (bf16) bits. */
  double tol = w->dt == VNCL_F64    ? 1e-11
               : w->dt == VNCL_F16  ? 2e-3
               : w->dt == VNCL_BF16 ? 1.6e-2
                                    : 2e-5;
  for (size_t g = 0; ok && g < w->batch; g++)
    for (size_t i = 0; ok && i < w->m; i++) {
      double s = 0;
      for (size_t j = 0; j < w->n; j++) {
        size_t at = g * w->m * w->n + i * w->n + j;
        double v = get(h, at, w->dt);
        if (!isfinite(v)) {
          snprintf(why, cap, "C(%zu,%zu) is not finite", i, j);
          ok = false;
          break;
        }
        s += v * w->x[j];
      }
      double e = fabs(s - w->y0[g * w->m + i]);
      if (ok && e > tol * w->rowscale[g * w->m + i] + 1e-30) {
        snprintf(why, cap, "wrong result: row %zu residual %.3g (scale %.3g)",
                 i, e, w->rowscale[g * w->m + i]);
        ok = false;
      }
    }
  free(h);
  return ok;
}

/* ---- ops --------------------------------------------------------------- */

static void ops_free(wstate *w) {
  for (int i = 0; i < ROTATE; i++) vncl_tensor_destroy(w->in[i]);
  vncl_tensor_destroy(w->in2);
  vncl_tensor_destroy(w->out);
  memset(w->in, 0, sizeof w->in);
  w->in2 = w->out = NULL;
  free(w->ref);
  free(w->absum);
  w->ref = NULL;
  w->absum = NULL;
  w->fam = NULL;
}

static vncl_status ops_once(wstate *w, int set) {
  vncl_tensor *x = w->in[set];
  const char *f = w->fam ? w->fam : "";
  if (!strcmp(f, "elementwise"))
    return vncl_binary(w->ctx, VNCL_ADD, x, w->in2, w->out);
  if (!strcmp(f, "cast")) return vncl_cast(w->ctx, x, w->out);
  if (!strcmp(f, "transpose")) return vncl_transpose(w->ctx, x, w->out);
  if (!strcmp(f, "reduce"))
    return vncl_reduce(w->ctx, VNCL_REDUCE_SUM, x, -1, w->out);
  if (!strcmp(f, "softmax")) return vncl_softmax(w->ctx, x, w->out);
  if (!strcmp(f, "random"))
    return vncl_random_uniform(w->ctx, w->out, 7, (uint64_t)set, 0, 0, 1);
  return VNCL_ERR_INVALID_ARG;
}

static bool is(const char *fam, const char *name) {
  return fam && !strcmp(fam, name);
}

/* Bytes one call moves (for the rate). */
static double ops_bytes(const wstate *w) {
  double n = (double)vncl_tensor_bytes(w->in[0]);
  if (is(w->fam, "elementwise")) return 3.0 * n;
  if (is(w->fam, "cast")) return 1.5 * n;
  if (is(w->fam, "reduce") || is(w->fam, "random")) return 1.0 * n;
  return 2.0 * n;
}

static bool ops_setup(wstate *w, const char *fam, char *why, size_t cap) {
  if (is(w->fam, fam)) return true;
  ops_free(w);
  /* The timed shapes, or (the edge problem) a few less in every
   * dimension: no whole vector, tile or work-group at the ends. */
  const bool edge = w->sets == 1;
  int64_t big[1] = {edge ? (1 << 22) - 13 : 1 << 22},
          sq[2] = {edge ? 2045 : 2048, edge ? 2043 : 2048},
          sm[2] = {edge ? 1021 : 1024, edge ? 4093 : 4096}, col[1] = {sq[0]};
  int nd = 1;
  const int64_t *shape = big;
  if (is(fam, "transpose") || is(fam, "reduce")) {
    nd = 2;
    shape = sq;
  } else if (is(fam, "softmax")) {
    nd = 2;
    shape = sm;
  }
  vncl_status s = VNCL_OK;
  size_t numel = 1;
  for (int i = 0; i < nd; i++) numel *= (size_t)shape[i];
  float *h = malloc(numel * sizeof *h);
  uint64_t seed = 99;
  if (is(fam, "reduce") && !(w->absum = calloc((size_t)shape[0],
                                                 sizeof *w->absum)))
    s = VNCL_ERR_OUT_OF_MEMORY;
  for (int r = 0; !s && h && r < w->sets; r++) {
    for (size_t i = 0; i < numel; i++) h[i] = (float)rnd(&seed);
    for (size_t i = 0; r == 0 && w->absum && i < numel; i++)
      w->absum[i / (size_t)shape[1]] += fabs(h[i]);
    s = vncl_tensor_create(w->ctx, VNCL_F32, nd, shape, &w->in[r]);
    if (!s) s = vncl_tensor_write(w->in[r], h, numel * sizeof *h);
  }
  free(h);
  if (!s && is(fam, "elementwise"))
    s = vncl_tensor_create(w->ctx, VNCL_F32, nd, shape, &w->in2);
  if (!s && is(fam, "elementwise")) s = vncl_fill(w->ctx, w->in2, 0.5);
  if (!s) {
    if (is(fam, "cast")) /* to bf16: through cast_contig, so NT_STORE counts
                            (f16 goes out through vstore_half, which it
                            does not change) */
      s = vncl_tensor_create(w->ctx, VNCL_BF16, nd, shape, &w->out);
    else if (is(fam, "reduce"))
      s = vncl_tensor_create(w->ctx, VNCL_F32, 1, col, &w->out);
    else if (is(fam, "transpose")) {
      const int64_t t[2] = {shape[1], shape[0]};
      s = vncl_tensor_create(w->ctx, VNCL_F32, 2, t, &w->out);
    } else
      s = vncl_tensor_create(w->ctx, VNCL_F32, nd, shape, &w->out);
  }
  w->fam = fam;
  /* The reference: the built-in defaults on input set 0. */
  if (!s) s = vncl_tuning_set(w->ctx, fam, VNCL_F32, NULL, NULL);
  if (!s) s = ops_once(w, 0);
  if (!s) {
    w->ref_bytes = vncl_tensor_bytes(w->out);
    w->ref = malloc(w->ref_bytes);
    s = w->ref ? vncl_tensor_read(w->out, w->ref, w->ref_bytes)
               : VNCL_ERR_OUT_OF_MEMORY;
  }
  if (s) {
    snprintf(why, cap, "ops set-up: %s", vncl_errmsg(w->ctx));
    ops_free(w);
    return false;
  }
  return true;
}

static bool ops_check(wstate *w, bool spoil, char *why, size_t cap) {
  void *h = malloc(w->ref_bytes);
  if (!h) return snprintf(why, cap, "out of memory"), false;
  bool ok = vncl_tensor_read(w->out, h, w->ref_bytes) == VNCL_OK;
  if (!ok) snprintf(why, cap, "read: %s", vncl_errmsg(w->ctx));
  if (ok && spoil) spoil_last(h, w->ref_bytes);
  if (ok && (is(w->fam, "reduce") || is(w->fam, "softmax"))) {
    /* Two sums of a row differ by their rounding, which scales with the
     * sum of |x| (2^-22 of it: about 30 times what the compensated sums
     * leave, and far below one element of the row), not with the result:
     * a row that sums to nearly zero differed by 400 times 1e-4 of it. */
    const float *a = h, *b = w->ref;
    for (size_t i = 0; ok && i < w->ref_bytes / 4; i++)
      if (!isfinite(a[i]) ||
          fabs((double)a[i] - b[i]) >
              (w->absum ? 0x1p-22 * w->absum[i] + 1e-6 * fabs((double)b[i])
                        : 1e-4 * (fabs((double)b[i]) + 1e-3))) {
        snprintf(why, cap, "wrong result at %zu: %g, expected %g", i, a[i],
                 b[i]);
        ok = false;
      }
  } else if (ok && memcmp(h, w->ref, w->ref_bytes)) {
    snprintf(why, cap, "result differs from the defaults' result");
    ok = false;
  }
  free(h);
  return ok;
}

/* ---- timing -------------------------------------------------------------- */

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Seconds between two markers' completions; the wall clock when the driver
 * gives no times. */
static double timed(wstate *w, bool gemm, int set, vncl_status *st) {
  cl_event e0 = NULL, e1 = NULL;
  double t0 = tune_now();
  clEnqueueMarkerWithWaitList(w->queue, 0, NULL, &e0);
  *st = gemm ? gemm_once(w, set) : ops_once(w, set);
  clEnqueueMarkerWithWaitList(w->queue, 0, NULL, &e1);
  clFinish(w->queue);
  double wall = tune_now() - t0;
  cl_ulong a = 0, b = 0;
  bool have = e0 && e1 &&
              !clGetEventProfilingInfo(e0, CL_PROFILING_COMMAND_END, sizeof a,
                                       &a, NULL) &&
              !clGetEventProfilingInfo(e1, CL_PROFILING_COMMAND_END, sizeof b,
                                       &b, NULL) &&
              b > a;
  if (e0) clReleaseEvent(e0);
  if (e1) clReleaseEvent(e1);
  return have ? (double)(b - a) * 1e-9 : wall;
}

static cJSON *answer_fail(const char *why) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddFalseToObject(o, "ok");
  cJSON_AddStringToObject(o, "why", why);
  return o;
}

static int num(const cJSON *req, const char *k, int def) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, k);
  return cJSON_IsNumber(v) ? v->valueint : def;
}

/* The ragged-edge problem, sharing w's context; NULL without memory. */
static wstate *edge_of(wstate *w) {
  if (!w->edge && (w->edge = calloc(1, sizeof *w->edge))) {
    w->edge->ctx = w->ctx;
    w->edge->cl_ctx = w->cl_ctx;
    w->edge->queue = w->queue;
    w->edge->dev = w->dev;
    w->edge->sets = 1;
  }
  return w->edge;
}

/* The candidate (installed) once on the edge problem, checked as the timed
 * one was. */
static bool edge_check(wstate *w, bool gemm, bool spoil, char *why,
                       size_t cap) {
  wstate *e = w->edge;
  char sub[400] = "";
  vncl_status st = gemm ? gemm_once(e, 0) : ops_once(e, 0);
  if (st) snprintf(sub, sizeof sub, "%s", vncl_errmsg(w->ctx));
  if (!st && (gemm ? gemm_check(e, spoil, sub, sizeof sub)
                   : ops_check(e, spoil, sub, sizeof sub)))
    return true;
  if (gemm)
    snprintf(why, cap, "at the edges (%zu x %zu x %zu): %s", e->m, e->n, e->k,
             sub);
  else
    snprintf(why, cap, "at the edges (%zu elements): %s",
             vncl_tensor_numel(e->in[0]), sub);
  return false;
}

static cJSON *handle(wstate *w, const cJSON *req) {
  char why[512] = "";
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(req, "kind");
  const cJSON *test = cJSON_GetObjectItemCaseSensitive(req, "test");
  /* Candidates that crash or hang, for the isolation tests only. */
  if (cJSON_IsString(test) && getenv("VNCL_TUNE_TEST_FAULTS")) {
    if (!strcmp(test->valuestring, "abort")) abort();
    if (!strcmp(test->valuestring, "hang"))
      for (;;) pause();
  }
  bool gemm = cJSON_IsString(kind) && !strcmp(kind->valuestring, "gemm");
  bool spoil = cJSON_IsString(test) && getenv("VNCL_TUNE_TEST_FAULTS") &&
               !strcmp(test->valuestring, "edge");
  if (!edge_of(w)) return answer_fail("out of memory");
  int runs = num(req, "runs", 5);
  if (runs < 1 || runs > 100) runs = 5;
  if (gemm) {
    int dt = (int)num(req, "dtype", VNCL_F32);
    if (dt != VNCL_F64 && dt != VNCL_F16 && dt != VNCL_BF16) dt = VNCL_F32;
    int shape = num(req, "shape", 0);
    size_t m = (size_t)num(req, "m", 64), n = (size_t)num(req, "n", 64),
           k = (size_t)num(req, "k", 64), batch = (size_t)num(req, "batch", 1);
    static const char *const shapes[] = {"square", "narrow", "flat"};
    if (m < 1 || n < 1 || k < 1 || batch < 1 || shape < 0 || shape >= 3 ||
        m * n * k * batch > ((size_t)1 << 36))
      return answer_fail("bad problem");
    /* The request's set over the built-in one (no set installed). */
    vncl_tuning_set(w->ctx, "gemm", (vncl_dtype)dt, shapes[shape], NULL);
    vncl_tuning_params p;
    memset(&p, 0, sizeof p);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
    if (params && !params_from_json(params, &p))
      return answer_fail("bad gemm parameters");
    double backend = 0;
    params_get(&p, "backend", &backend);
    const cJSON *cb = cJSON_GetObjectItemCaseSensitive(req, "clblast");
    vncl_tuning_params cp;
    if (backend == 1 && cJSON_IsObject(cb) &&
        (!params_from_json(cb, &cp) ||
         vncl_tuning_set(w->ctx, "clblast", (vncl_dtype)dt, NULL, &cp)))
      return answer_fail(vncl_errmsg(w->ctx));
    if (vncl_tuning_set(w->ctx, "gemm", (vncl_dtype)dt, shapes[shape], &p))
      return answer_fail(vncl_errmsg(w->ctx));
    if (!gemm_setup(w, dt, m, n, k, batch, why, sizeof why) ||
        !gemm_setup(w->edge, dt, m > 1 ? m - 1 : 1, n > 1 ? n - 1 : 1,
                    k > 1 ? k - 1 : 1, batch, why, sizeof why))
      return answer_fail(why);
  } else {
    const cJSON *fj = cJSON_GetObjectItemCaseSensitive(req, "family");
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(req, "values");
    tspace sp;
    if (!cJSON_IsString(fj) || !tspace_from_ops(fj->valuestring, false, &sp) ||
        !cJSON_IsArray(vals) || cJSON_GetArraySize(vals) != sp.np)
      return answer_fail("bad ops request");
    vncl_tuning_params p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < sp.np; i++) {
      const cJSON *v = cJSON_GetArrayItem(vals, i);
      if (!cJSON_IsNumber(v)) return answer_fail("bad ops request");
      params_put(&p, sp.p[i].name, v->valuedouble);
    }
    /* sp's names are the table's, and live for the process. */
    if (!ops_setup(w, sp.family, why, sizeof why) ||
        !ops_setup(w->edge, sp.family, why, sizeof why))
      return answer_fail(why);
    if (vncl_tuning_set(w->ctx, sp.family, VNCL_F32, NULL, &p))
      return answer_fail(vncl_errmsg(w->ctx));
  }
  /* Warm-up (builds the programs), then the check on input set 0. */
  vncl_status st;
  timed(w, gemm, 0, &st);
  if (st) return answer_fail(vncl_errmsg(w->ctx));
  if (!(gemm ? gemm_check(w, false, why, sizeof why)
              : ops_check(w, false, why, sizeof why)))
    return answer_fail(why);
  double t[100];
  for (int r = 0; r < runs; r++) {
    t[r] = timed(w, gemm, (r + 1) % ROTATE, &st);
    if (st) return answer_fail(vncl_errmsg(w->ctx));
  }
  if (!edge_check(w, gemm, spoil, why, sizeof why)) return answer_fail(why);
  qsort(t, (size_t)runs, sizeof *t, cmp_d);
  double med = t[runs / 2];
  double work = gemm ? 2.0 * w->m * w->n * w->k * w->batch : ops_bytes(w);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddTrueToObject(o, "ok");
  cJSON_AddNumberToObject(o, "seconds", med);
  cJSON_AddNumberToObject(o, "rate", work / med * 1e-9);
  return o;
}

int autotune_worker_main(void) {
  unsetenv("VNCL_GEMM_BACKEND"); /* the parameter set names the backend */
  wstate w;
  memset(&w, 0, sizeof w);
  w.sets = ROTATE;
  if (vncl_context_create(&w.ctx, NULL) ||
      vncl_context_cl(w.ctx, &w.cl_ctx, &w.queue, &w.dev)) {
    fprintf(stdout, "{\"ok\":false,\"why\":\"no context\"}\n");
    fflush(stdout);
    return 1;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    cJSON *req = cJSON_ParseWithLength(line, (size_t)len);
    cJSON *ans = req ? handle(&w, req) : answer_fail("bad request");
    char *s = cJSON_PrintUnformatted(ans);
    if (s) {
      fprintf(stdout, "%s\n", s);
      fflush(stdout);
      free(s);
    }
    cJSON_Delete(ans);
    cJSON_Delete(req);
  }
  free(line);
  gemm_free(&w);
  ops_free(&w);
  if (w.edge) {
    gemm_free(w.edge);
    ops_free(w.edge);
    free(w.edge);
  }
  vncl_context_destroy(w.ctx);
  return 0;
}
