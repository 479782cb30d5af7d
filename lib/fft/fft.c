/* FFT public API: descriptions, plans, execution on tensors, the one-shot
 * call and the cache statistics.
 *
 * A plan runs one of two ways:
 *  - "clfft": one clFFT plan does the whole transform, its strides and
 *    distances set from the tensor layout, so the data move no more than
 *    clFFT moves them. Taken when every length is one clFFT can do (prime
 *    factors 2..13) and the backend gives no axis to vncl's kernels.
 *  - axis by axis on a complex array (the output, or for real transforms a
 *    full complex workspace): lengths 2^a 3^b 5^c 7^d 11^e 13^f on vncl's
 *    Stockham kernels when the backend is vncl (fft_stockham.c), lengths
 *    clFFT can do on clFFT (fft_layout.c gathers strided lines), the rest
 *    through the Rader path (primes p whose p - 1 Stockham does, on the
 *    vncl backend) or the Bluestein path (fft_bluestein.c).
 *    vncl_fft_plan_algorithm names it "stockham", "bluestein", "rader" or
 *    "axes". Real transforms of an even last length n on vncl's kernels
 *    (vncl__fft_real_half) run that axis as one complex transform of
 *    length n/2 with a split (R2C) or pre-processing (C2R) pass
 *    (run_half), the other axes on the half spectrum; the rest of the
 *    real transforms on a full complex workspace.
 * Baked clFFT plans and tables come from the context's cache
 * (fft_cache.c), so making the same plan twice never bakes twice. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft/fft.h"

typedef enum step_kind {
  STEP_CLFFT_INPLACE, /* contiguous last axis: clFFT in place on the array */
  STEP_LINES,         /* strided axis: gather, clFFT, scatter */
  STEP_BLUESTEIN,     /* a length clFFT cannot do: Bluestein or Rader */
  STEP_STOCKHAM       /* a 2..13-smooth length on vncl's kernels */
} step_kind;

typedef struct fft_step {
  step_kind kind;
  vncl__fft_axis ax;
  vncl__fft_entry *plan;  /* the clFFT plan of the step (length n or m) */
  vncl__fft_entry *chirp; /* Bluestein (or Rader) tables */
  bool rader;             /* a prime by Rader's algorithm (on Stockham) */
  bool use_stockham;      /* Stockham for the step (or its convolution) */
  vncl__fft_stockham sk;  /* its tables */
} fft_step;

struct vncl_fft_plan {
  vncl_context *ctx;
  vncl__fft_state *st;
  vncl_fft_desc d;
  vncl__fft_tuning tn;
  bool own; /* the backend resolved to vncl's kernels */
  int nd;
  size_t len[3]; /* logical lengths, row-major */
  size_t total;  /* their product */
  size_t h;      /* len[nd-1] / 2 + 1 */
  size_t batch;
  size_t rows; /* batch * product of all lengths but the last */
  /* Real transforms through a half-length complex transform
   * (vncl__fft_real_half): m = len[nd-1] / 2, else 0. steps[0] is then the
   * length-m transform over the rows (hsteps = 1; 0 when m = 1) and the
   * other steps are the outer axes of the half spectrum [batch, len...,
   * h]; rtw the twiddles of length 2m; rtw2, for the fused kernels of a
   * split m = n1 n2, those of length 2 n2 (R2C) or 2 n1 (C2R): the
   * factor W^(n1 k2) or W^(n2 j1) of rtw's W^k, contiguous. */
  size_t half_m;
  int hsteps;
  vncl__fft_entry *rtw, *rtw2;
  double fwd_scale, inv_scale;
  vncl__fft_entry *native; /* the "clfft" way */
  bool clfft_scales[2];    /* clFFT applies the [forward, inverse] scale */
  int nsteps;              /* the axis-by-axis way */
  fft_step steps[3];
  const char *algorithm; /* "clfft", "stockham", "bluestein", "rader" or
                            "axes" */
};

void vncl_fft_desc_init(vncl_fft_desc *d) {
  if (!d) return;
  memset(d, 0, sizeof *d);
  d->struct_size = sizeof *d;
  d->type = VNCL_FFT_C2C;
  d->dtype = VNCL_F32;
  d->ndim = 1;
  d->n[0] = d->n[1] = d->n[2] = 1;
  d->batch = 1;
  d->in_place = 0;
  d->norm = VNCL_FFT_NORM_BACKWARD;
  d->backend = VNCL_FFT_BACKEND_AUTO;
}

static const char *type_name(vncl_fft_type t) {
  return t == VNCL_FFT_C2C ? "C2C" : t == VNCL_FFT_R2C ? "R2C" : "C2R";
}

/* ---- plan creation ---------------------------------------------------- */

static vncl_status check_desc(vncl_context *ctx, const vncl_fft_desc *d) {
  if (d->struct_size != sizeof *d)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "vncl_fft_desc.struct_size is %zu, expected %zu: call "
                      "vncl_fft_desc_init first",
                      d->struct_size, sizeof *d);
  if (d->type != VNCL_FFT_C2C && d->type != VNCL_FFT_R2C &&
      d->type != VNCL_FFT_C2R)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "fft type %d is not C2C, R2C or C2R", (int)d->type);
  if (d->dtype != VNCL_F32 && d->dtype != VNCL_F64)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "fft dtype %s: FFTs take f32 or f64",
                      vncl_dtype_name(d->dtype));
  if (d->ndim < 1 || d->ndim > 3)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "fft ndim %d out of range (1 to 3)", d->ndim);
  if ((unsigned)d->norm > VNCL_FFT_NORM_NONE)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "fft norm %d is not a vncl_fft_norm", (int)d->norm);
  if ((unsigned)d->backend > VNCL_FFT_BACKEND_VNCL)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "fft backend %d is not a vncl_fft_backend",
                      (int)d->backend);
  if (d->in_place != 0 && d->in_place != 1)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "fft in_place is %d: 0 or 1",
                      d->in_place);
  if (d->batch < 1)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "fft batch %lld: must be at least 1",
                      (long long)d->batch);
  if ((uint64_t)d->batch > SIZE_MAX / 16)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "fft batch %lld overflows",
                      (long long)d->batch);
  /* Bytes of the largest buffer involved: batch x lengths (the last padded
   * by 2 for in-place real rows) x 16. */
  size_t total = (size_t)d->batch * 16;
  for (int i = 0; i < d->ndim; i++) {
    if (d->n[i] < 1)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "fft length n[%d] is %lld: must be at least 1", i,
                        (long long)d->n[i]);
    if ((uint64_t)d->n[i] > SIZE_MAX ||
        !vncl__mul_overflow(total, (size_t)d->n[i] + 2, &total))
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "fft sizes overflow: batch x lengths up to n[%d] do "
                        "not fit in size_t",
                        i);
  }
  return VNCL_OK;
}

static clfftPrecision precision(vncl_dtype t) {
  return t == VNCL_F64 ? CLFFT_DOUBLE : CLFFT_SINGLE;
}

/* The scale clFFT can apply for `want`: f32 always (its scale is a float);
 * f64 only when the float is exact, else 1 and vncl scales afterwards. */
static bool clfft_can_scale(vncl_dtype t, double want) {
  return t == VNCL_F32 || (double)(float)want == want;
}

/* One clFFT plan for the whole transform, strides from the tensor layout. */
static vncl_status make_native(vncl_fft_plan *p) {
  const vncl_fft_desc *d = &p->d;
  vncl__fft_params q;
  memset(&q, 0, sizeof q);
  q.dim = p->nd;
  size_t last = p->len[p->nd - 1];
  /* Element counts of the three views of a row-major array: complex (full
   * rows), half complex (rows of h) and real (rows of last, or 2h in place). */
  size_t rlast = d->in_place ? 2 * p->h : last;
  size_t cs[3], hs[3], rs[3];
  cs[0] = hs[0] = rs[0] = 1;
  for (int i = 1; i < 3; i++) {
    size_t dim = i < p->nd ? p->len[p->nd - i] : 1; /* clFFT order */
    cs[i] = cs[i - 1] * (i == 1 ? last : dim);
    hs[i] = hs[i - 1] * (i == 1 ? p->h : dim);
    rs[i] = rs[i - 1] * (i == 1 ? rlast : dim);
  }
  for (int i = 0; i < p->nd; i++) q.len[i] = p->len[p->nd - 1 - i];
  for (int i = p->nd; i < 3; i++) q.len[i] = 1;
  size_t cdist = cs[p->nd - 1] * (p->nd == 1 ? last : p->len[0]);
  size_t hdist = hs[p->nd - 1] * (p->nd == 1 ? p->h : p->len[0]);
  size_t rdist = rs[p->nd - 1] * (p->nd == 1 ? rlast : p->len[0]);
  switch (d->type) {
    case VNCL_FFT_C2C:
      q.in_layout = q.out_layout = CLFFT_COMPLEX_INTERLEAVED;
      memcpy(q.in_stride, cs, sizeof cs);
      memcpy(q.out_stride, cs, sizeof cs);
      q.in_dist = q.out_dist = cdist;
      break;
    case VNCL_FFT_R2C:
      q.in_layout = CLFFT_REAL;
      q.out_layout = CLFFT_HERMITIAN_INTERLEAVED;
      memcpy(q.in_stride, rs, sizeof rs);
      memcpy(q.out_stride, hs, sizeof hs);
      q.in_dist = rdist;
      q.out_dist = hdist;
      break;
    case VNCL_FFT_C2R:
      q.in_layout = CLFFT_HERMITIAN_INTERLEAVED;
      q.out_layout = CLFFT_REAL;
      memcpy(q.in_stride, hs, sizeof hs);
      memcpy(q.out_stride, rs, sizeof rs);
      q.in_dist = hdist;
      q.out_dist = rdist;
      break;
  }
  q.precision = precision(d->dtype);
  q.batch = p->batch;
  q.in_place = d->in_place;
  p->clfft_scales[0] = clfft_can_scale(d->dtype, p->fwd_scale);
  p->clfft_scales[1] = clfft_can_scale(d->dtype, p->inv_scale);
  q.fwd_scale = p->clfft_scales[0] ? (float)p->fwd_scale : 1.0f;
  q.bwd_scale = p->clfft_scales[1] ? (float)p->inv_scale : 1.0f;
  vncl_status s = vncl__fft_plan_get(p->ctx, p->st, &q, &p->native);
  if (s) return s;
  pthread_mutex_lock(&p->st->exec_lock);
  s = vncl__fft_scratch(p->ctx, p->st, VNCL__FFT_SCRATCH_CLFFT,
                        p->native->tmp_bytes, NULL);
  pthread_mutex_unlock(&p->st->exec_lock);
  return s;
}

/* A contiguous, in-place, batched 1-D complex clFFT plan of length n. */
static vncl_status line_plan(vncl_fft_plan *p, size_t n, size_t lines,
                             float bwd_scale, vncl__fft_entry **out) {
  vncl__fft_params q;
  memset(&q, 0, sizeof q);
  q.dim = 1;
  q.len[0] = n;
  q.len[1] = q.len[2] = 1;
  q.in_layout = q.out_layout = CLFFT_COMPLEX_INTERLEAVED;
  q.in_stride[0] = q.out_stride[0] = 1;
  q.in_stride[1] = q.out_stride[1] = n;
  q.in_stride[2] = q.out_stride[2] = n;
  q.in_dist = q.out_dist = n;
  q.precision = precision(p->d.dtype);
  q.batch = lines;
  q.in_place = true;
  q.fwd_scale = 1.0f;
  q.bwd_scale = bwd_scale;
  return vncl__fft_plan_get(p->ctx, p->st, &q, out);
}

static vncl_status make_bluestein_step(vncl_fft_plan *p, fft_step *s) {
  s->kind = STEP_BLUESTEIN;
  /* The step's lines, one convolution each. */
  size_t lines = s->ax.outer * s->ax.inner;
  if (p->own && vncl__fft_rader_length(&p->tn, s->ax.n)) {
    s->rader = s->use_stockham = true;
    vncl_status r =
        vncl__fft_rader_get(p->ctx, p->st, s->ax.n, p->d.dtype, &s->chirp);
    if (r) return r;
    return vncl__fft_stockham_prepare(p->ctx, p->st, p->d.dtype, &p->tn,
                                      s->chirp->m, lines, &s->sk);
  }
  size_t mlen = vncl__fft_bluestein_length(&p->tn, s->ax.n, p->own);
  vncl_status r = vncl__fft_chirp_get(p->ctx, p->st, s->ax.n, mlen,
                                      p->d.dtype, &s->chirp);
  if (r) return r;
  size_t m = s->chirp->m;
  if (p->own && vncl__fft_stockham_length(&p->tn, m)) {
    s->use_stockham = true;
    return vncl__fft_stockham_prepare(p->ctx, p->st, p->d.dtype, &p->tn, m,
                                      lines, &s->sk);
  }
  /* Unscaled: the 1/m goes into the post-multiply, in the plan's precision
   * (1/m is not a float for most m). */
  r = line_plan(p, m, lines, 1.0f, &s->plan);
  if (r == VNCL_ERR_UNSUPPORTED) /* clFFT refused a 5-smooth length */
    return vncl__fail(p->ctx, VNCL_ERR_UNSUPPORTED,
                      "clFFT cannot do the length-%zu convolution of the "
                      "Bluestein path for length %zu",
                      m, s->ax.n);
  return r;
}

static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

/* Whether the half-length path of a real transform (p->half_m, steps
 * made) needs the `rows x m` complex workspace (slot FULL), as run_half
 * uses it: not when the split (R2C) or the pre-processing (C2R) runs
 * inside the Stockham kernels, which read the input rows (padded ones
 * in place) themselves; only for the separate passes (fft_r2c_post and
 * fft_c2r_pre, for a vector width the fused kernels do not take, and
 * n = 2) and R2C in place without a fused step (fft_real_rows). */
static bool half_workspace(const vncl_fft_plan *p) {
  if (p->hsteps &&
      vncl__fft_stockham_r2c_fused(&p->tn, p->d.dtype, &p->steps[0].sk))
    return false;
  if (p->d.type == VNCL_FFT_C2R) return true;
  return p->hsteps || p->d.in_place;
}

/* The axis-by-axis way: steps over the complex array [batch, len...]. */
static vncl_status make_steps(vncl_fft_plan *p) {
  vncl_dtype t = p->d.dtype;
  size_t esize = 2 * vncl_dtype_size(t);
  size_t need[VNCL__FFT_SCRATCH_SLOTS] = {0};
  p->nsteps = 0;
  /* The complex array the steps run on: [batch, len...], or on the
   * half-length path the half spectrum [batch, len..., h] after the
   * length-m rows. */
  size_t clen[3];
  for (int i = 0; i < p->nd; i++) clen[i] = p->len[i];
  if (p->half_m) clen[p->nd - 1] = p->h;
  for (int a = p->nd - 1; a >= 0; a--) {
    size_t n = p->len[a];
    bool half_axis = p->half_m && a == p->nd - 1;
    if (half_axis) n = p->half_m;
    if (n == 1) continue; /* a DFT of length 1 is the identity */
    fft_step *s = &p->steps[p->nsteps++];
    s->ax.n = n;
    s->ax.outer = p->batch;
    for (int i = 0; i < a; i++) s->ax.outer *= p->len[i];
    s->ax.inner = 1;
    for (int i = a + 1; i < p->nd; i++) s->ax.inner *= clen[i];
    if (half_axis) {
      s->ax.outer = p->rows;
      p->hsteps = 1;
    }
    size_t lines = s->ax.outer * s->ax.inner;
    vncl_status r = VNCL_ERR_UNSUPPORTED;
    if (p->own && vncl__fft_stockham_length(&p->tn, n)) {
      s->kind = STEP_STOCKHAM;
      s->use_stockham = true;
      r = vncl__fft_stockham_prepare(p->ctx, p->st, t, &p->tn, n, lines,
                                     &s->sk);
      /* A real half split for few rows (few_lines) must still suit the
       * fused kernels; else the plain choice (always true for the CPU
       * rows, whose few_min gives n2 >= 16). */
      if (!r && half_axis && s->sk.n2 > 1 && n <= p->tn.nmax &&
          !vncl__fft_stockham_r2c_fused(&p->tn, t, &s->sk))
        r = vncl__fft_stockham_prepare(p->ctx, p->st, t, &p->tn, n, 0,
                                       &s->sk);
    } else if (vncl__fft_clfft_length(n)) {
      s->kind = s->ax.inner == 1 ? STEP_CLFFT_INPLACE : STEP_LINES;
      r = line_plan(p, n, lines, 1.0f, &s->plan);
      if (!r && s->kind == STEP_LINES)
        need[VNCL__FFT_SCRATCH_LINES] =
            max_size(need[VNCL__FFT_SCRATCH_LINES], lines * n * esize);
    }
    if (r == VNCL_ERR_UNSUPPORTED) {
      r = make_bluestein_step(p, s);
      /* Rader keeps x[0] and A[0] of each line after the lines. */
      if (!r)
        need[VNCL__FFT_SCRATCH_LINES] = max_size(
            need[VNCL__FFT_SCRATCH_LINES],
            lines * (s->chirp->m + (s->rader ? 2 : 0)) * esize);
    }
    if (r) return r;
    if (s->plan)
      need[VNCL__FFT_SCRATCH_CLFFT] =
          max_size(need[VNCL__FFT_SCRATCH_CLFFT], s->plan->tmp_bytes);
    if (s->use_stockham) {
      /* The Stockham lines of the step, or of its convolution. */
      vncl__fft_axis ax = s->ax;
      if (s->kind == STEP_BLUESTEIN) {
        ax.n = s->chirp->m;
        ax.outer = lines;
        ax.inner = 1;
      }
      size_t lb, sb;
      vncl__fft_stockham_scratch(&p->tn, &p->ctx->info, t, &s->sk, ax, &lb,
                                 &sb);
      need[VNCL__FFT_SCRATCH_STOCKHAM] =
          max_size(need[VNCL__FFT_SCRATCH_STOCKHAM], lb);
      need[VNCL__FFT_SCRATCH_SPLIT] =
          max_size(need[VNCL__FFT_SCRATCH_SPLIT], sb);
    }
  }
  if (p->half_m) {
    if (half_workspace(p))
      need[VNCL__FFT_SCRATCH_FULL] = p->rows * p->half_m * esize;
    if (p->hsteps && vncl__fft_stockham_r2c_fused(&p->tn, t, &p->steps[0].sk))
      need[VNCL__FFT_SCRATCH_STOCKHAM] = max_size(
          need[VNCL__FFT_SCRATCH_STOCKHAM],
          vncl__fft_stockham_r2c_scratch(&p->tn, &p->ctx->info, t,
                                         &p->steps[0].sk, p->steps[0].ax,
                                         p->d.type == VNCL_FFT_C2R));
    if (p->d.type == VNCL_FFT_C2R && p->nsteps > p->hsteps)
      need[VNCL__FFT_SCRATCH_HALF] = p->rows * p->h * esize;
    vncl_status r = vncl__fft_twiddle_get(p->ctx, p->st, 2 * p->half_m, t,
                                          false, &p->rtw);
    if (r) return r;
    const vncl__fft_stockham *hk = p->hsteps ? &p->steps[0].sk : NULL;
    if (hk && hk->n2 > 1 && vncl__fft_stockham_r2c_fused(&p->tn, t, hk)) {
      size_t f = p->d.type == VNCL_FFT_C2R ? hk->n1 : hk->n2;
      r = vncl__fft_twiddle_get(p->ctx, p->st, 2 * f, t, false, &p->rtw2);
      if (r) return r;
    }
  } else if (p->d.type != VNCL_FFT_C2C) {
    need[VNCL__FFT_SCRATCH_FULL] = p->batch * p->total * esize;
  }
  /* Build the kernels now, so that a build error shows at plan creation
   * and the first execution is not slower than the next. */
  static const char *const files[] = {"fft_layout.cl", "fft_bluestein.cl",
                                      "fft_stockham.cl"};
  vncl_status r = VNCL_OK;
  for (int i = 0; !r && i < 3; i++) {
    char opts[48];
    vncl__fft_options(t, i < 2 ? 0 : t == VNCL_F64 ? p->tn.vw64 : p->tn.vw32,
                      opts);
    vncl__program *prog;
    if (i < 2 || p->own) r = vncl__program_get(p->ctx, files[i], opts, &prog);
  }
  if (r) return r;
  pthread_mutex_lock(&p->st->exec_lock);
  for (int i = 0; !r && i < VNCL__FFT_SCRATCH_SLOTS; i++)
    r = vncl__fft_scratch(p->ctx, p->st, i, need[i], NULL);
  pthread_mutex_unlock(&p->st->exec_lock);
  return r;
}

/* AUTO: VNCL_FFT_BACKEND, then the device's default. */
static vncl_status resolve_backend(vncl_fft_plan *p) {
  vncl__fft_tuning_for(&p->ctx->info, &p->tn);
  vncl_fft_backend b = p->d.backend;
  if (b == VNCL_FFT_BACKEND_AUTO) {
    const char *e = vncl__getenv("VNCL_FFT_BACKEND");
    if (!e || !strcmp(e, "auto"))
      b = p->tn.backend;
    else if (!strcmp(e, "clfft"))
      b = VNCL_FFT_BACKEND_CLFFT;
    else if (!strcmp(e, "vncl"))
      b = VNCL_FFT_BACKEND_VNCL;
    else
      return vncl__fail(p->ctx, VNCL_ERR_INVALID_ARG,
                        "VNCL_FFT_BACKEND='%s': use auto, clfft or vncl", e);
  }
  p->own = b == VNCL_FFT_BACKEND_VNCL;
  return VNCL_OK;
}

vncl_status vncl_fft_plan_create(vncl_context *ctx, const vncl_fft_desc *desc,
                                 vncl_fft_plan **out) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (!desc || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !desc ? "desc" : "out");
  vncl_status s = check_desc(ctx, desc);
  if (s) return s;
  if (desc->dtype == VNCL_F64 && !ctx->info.fp64)
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "f64 FFT needs double precision (cl_khr_fp64), which "
                      "device '%s' lacks",
                      ctx->info.name);
  vncl_fft_plan *p = calloc(1, sizeof *p);
  if (!p)
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                      "out of host memory for the FFT plan");
  p->ctx = ctx;
  p->d = *desc;
  p->nd = desc->ndim;
  p->total = 1;
  for (int i = 0; i < p->nd; i++) {
    p->len[i] = (size_t)desc->n[i];
    p->total *= p->len[i];
  }
  for (int i = p->nd; i < 3; i++) p->d.n[i] = 1;
  p->h = p->len[p->nd - 1] / 2 + 1;
  p->batch = (size_t)desc->batch;
  p->rows = p->batch * (p->total / p->len[p->nd - 1]);
  double nn = (double)p->total;
  switch (desc->norm) {
    case VNCL_FFT_NORM_BACKWARD:
      p->fwd_scale = 1;
      p->inv_scale = 1 / nn;
      break;
    case VNCL_FFT_NORM_ORTHO: p->fwd_scale = p->inv_scale = 1 / sqrt(nn); break;
    case VNCL_FFT_NORM_FORWARD:
      p->fwd_scale = 1 / nn;
      p->inv_scale = 1;
      break;
    case VNCL_FFT_NORM_NONE: p->fwd_scale = p->inv_scale = 1; break;
  }
  s = resolve_backend(p);
  if (!s) s = vncl__fft_state_get(ctx, &p->st);
  if (s) {
    free(p);
    return s;
  }
  /* One clFFT plan when clFFT can do every length, unless vncl's kernels
   * would take some axis. */
  bool clfft_all = true, stockham_any = false;
  for (int i = 0; i < p->nd; i++) {
    clfft_all &= vncl__fft_clfft_length(p->len[i]);
    stockham_any |= p->own && vncl__fft_stockham_length(&p->tn, p->len[i]);
  }
  if (desc->type != VNCL_FFT_C2C)
    p->half_m = vncl__fft_real_half(&p->tn, p->own, p->len[p->nd - 1]);
  stockham_any |= p->half_m != 0;
  s = clfft_all && !stockham_any ? make_native(p) : VNCL_ERR_UNSUPPORTED;
  if (s == VNCL_ERR_UNSUPPORTED) {
    p->native = NULL;
    s = make_steps(p);
  }
  if (s) {
    free(p);
    return s;
  }
  p->algorithm = "clfft";
  if (!p->native) {
    /* The half-length path with m = 1 (n = 2) has no steps: only vncl's
     * layout kernels. */
    bool all_stockham = p->nsteps > 0 || p->half_m, bluestein = false,
         rader = false;
    for (int i = 0; i < p->nsteps; i++) {
      const fft_step *s = &p->steps[i];
      all_stockham &= s->kind == STEP_STOCKHAM;
      bluestein |= s->kind == STEP_BLUESTEIN && !s->rader;
      rader |= s->rader;
    }
    p->algorithm = bluestein      ? "bluestein"
                   : rader        ? "rader"
                   : all_stockham ? "stockham"
                                  : "axes";
  }
  vncl__context_retain(ctx);
  vncl__log(VNCL_LOG_DEBUG, "fft plan %s %s %zux%zux%zu batch %zu: %s",
            type_name(desc->type), vncl_dtype_name(desc->dtype), p->len[0],
            p->nd > 1 ? p->len[1] : 1, p->nd > 2 ? p->len[2] : 1, p->batch,
            p->algorithm);
  *out = p;
  return VNCL_OK;
}

void vncl_fft_plan_destroy(vncl_fft_plan *plan) {
  if (!plan) return;
  vncl_context *ctx = plan->ctx;
  free(plan);
  vncl__context_release(ctx);
}

vncl_status vncl_fft_plan_desc(const vncl_fft_plan *plan, vncl_fft_desc *out) {
  if (!plan || !out)
    return vncl__fail(plan ? plan->ctx : NULL, VNCL_ERR_INVALID_ARG,
                      "%s is NULL", !plan ? "plan" : "out");
  *out = plan->d;
  return VNCL_OK;
}

const char *vncl_fft_plan_algorithm(const vncl_fft_plan *plan) {
  return plan ? plan->algorithm : "";
}

/* ---- execution ---------------------------------------------------------- */

/* Checks that t is [B..., want...] with product(B) == batch. */
static vncl_status check_shape(const vncl_fft_plan *p, const vncl_tensor *t,
                               const char *role, const int64_t *want,
                               int nwant) {
  bool ok = t->ndim >= nwant;
  for (int i = 0; ok && i < nwant; i++)
    ok = t->shape[t->ndim - nwant + i] == want[i];
  uint64_t b = 1;
  for (int i = 0; ok && i < t->ndim - nwant; i++) b *= (uint64_t)t->shape[i];
  if (ok && b == p->batch) return VNCL_OK;
  char got[256], exp[128];
  vncl__shape_str(t->ndim, t->shape, got, sizeof got);
  vncl__shape_str(nwant, want, exp, sizeof exp);
  if (ok)
    return vncl__fail(p->ctx, VNCL_ERR_INVALID_ARG,
                      "%s: shape %s has batch %llu, the plan has batch %zu",
                      role, got, (unsigned long long)b, p->batch);
  /* exp + 1: "[n0, n1]" without its '[', after "[batch..., ". */
  return vncl__fail(p->ctx, VNCL_ERR_INVALID_ARG,
                    "%s: shape %s does not match the %s plan, which needs "
                    "[batch..., %s%s",
                    role, got, type_name(p->d.type), exp + 1,
                    p->d.type == VNCL_FFT_C2C
                        ? " (complex: interleaved pairs, last dimension 2)"
                        : "");
}

/* The trailing dimensions of the plan's complex (half: last length h) and
 * real views. */
static int complex_shape(const vncl_fft_plan *p, bool half, int64_t *out) {
  for (int i = 0; i < p->nd; i++) out[i] = (int64_t)p->len[i];
  if (half) out[p->nd - 1] = (int64_t)p->h;
  out[p->nd] = 2;
  return p->nd + 1;
}
static int real_shape(const vncl_fft_plan *p, int64_t *out) {
  for (int i = 0; i < p->nd; i++) out[i] = (int64_t)p->len[i];
  return p->nd;
}

static vncl_status check_tensor(const vncl_fft_plan *p, const vncl_tensor *t,
                                const char *role, bool is_in) {
  if (t->ctx != p->ctx)
    return vncl__fail(p->ctx, VNCL_ERR_INVALID_ARG,
                      "%s: the tensor belongs to another context", role);
  if (t->dtype != p->d.dtype)
    return vncl__fail(p->ctx, VNCL_ERR_INVALID_ARG,
                      "%s: dtype %s, the plan is %s", role,
                      vncl_dtype_name(t->dtype), vncl_dtype_name(p->d.dtype));
  int64_t want[4];
  int n;
  switch (p->d.type) {
    case VNCL_FFT_C2C: n = complex_shape(p, false, want); break;
    case VNCL_FFT_R2C:
      n = is_in && !p->d.in_place ? real_shape(p, want)
                                  : complex_shape(p, true, want);
      break;
    default: /* C2R */
      n = !is_in && !p->d.in_place ? real_shape(p, want)
                                   : complex_shape(p, true, want);
      break;
  }
  return check_shape(p, t, role, want, n);
}

/* The buffer that starts at the tensor's data (a sub-buffer when it has an
 * offset; *owned then receives it for release). */
static vncl_status data_mem(vncl_context *ctx, const vncl_tensor *t,
                            const char *role, cl_mem *out, cl_mem *owned) {
  *owned = NULL;
  if (t->offset == 0) {
    *out = t->mem;
    return VNCL_OK;
  }
  cl_buffer_region r = {t->offset, t->bytes};
  cl_int err;
  cl_mem m = clCreateSubBuffer(t->mem, CL_MEM_READ_WRITE,
                               CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  if (!m) {
    if (err == CL_MISALIGNED_SUB_BUFFER_OFFSET)
      return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                        "%s: the tensor starts %zu bytes into its buffer, "
                        "which is not aligned as the device needs for clFFT",
                        role, t->offset);
    return vncl__cl_fail(ctx, err, "clCreateSubBuffer");
  }
  *out = *owned = m;
  return VNCL_OK;
}

static vncl_status copy_buffer(vncl_context *ctx, cl_mem src, cl_mem dst,
                               size_t bytes) {
  cl_int err =
      clEnqueueCopyBuffer(ctx->queue, src, dst, 0, 0, bytes, 0, NULL, NULL);
  if (err) return vncl__cl_fail(ctx, err, "clEnqueueCopyBuffer");
  return VNCL_OK;
}

/* The axis-by-axis steps first.. on the complex array `work` of `count`
 * reals (read from `src` by the first of them), the last step applying
 * `scale`. */
static vncl_status run_steps(vncl_fft_plan *p, vncl_fft_direction dir,
                             double scale, cl_mem src, cl_mem work, int first,
                             size_t count) {
  vncl_context *ctx = p->ctx;
  vncl_dtype t = p->d.dtype;
  vncl_status s = VNCL_OK;
  if (p->nsteps == first || p->steps[first].kind == STEP_CLFFT_INPLACE)
    if (src != work)
      s = copy_buffer(ctx, src, work, count * vncl_dtype_size(t));
  bool scaled = false;
  for (int i = first; !s && i < p->nsteps; i++) {
    fft_step *st = &p->steps[i];
    cl_mem from = i == first ? src : work;
    bool last = i == p->nsteps - 1;
    double sc = last ? scale : 1.0;
    switch (st->kind) {
      case STEP_CLFFT_INPLACE:
        s = vncl__fft_clfft_run(ctx, p->st, st->plan, (clfftDirection)dir, work,
                                NULL);
        break;
      case STEP_LINES:
        s = vncl__fft_lines_run(ctx, p->st, t, st->ax, st->plan,
                                (clfftDirection)dir, sc, from, work);
        scaled |= last;
        break;
      case STEP_BLUESTEIN:
        if (st->rader)
          s = vncl__fft_rader_run(ctx, p->st, t, st->ax, st->chirp, &st->sk,
                                  &p->tn, dir == VNCL_FFT_INVERSE, sc, from,
                                  work);
        else
          s = vncl__fft_bluestein_run(
              ctx, p->st, t, st->ax, st->chirp, st->plan,
              st->use_stockham ? &st->sk : NULL, &p->tn,
              dir == VNCL_FFT_INVERSE, sc, from, work);
        scaled |= last;
        break;
      case STEP_STOCKHAM:
        s = vncl__fft_stockham_run(ctx, p->st, t, &p->tn, &st->sk, st->ax,
                                   (int)dir, sc, from, work);
        scaled |= last;
        break;
    }
  }
  if (!s && !scaled && scale != 1.0)
    s = vncl__fft_scale_run(ctx, t, count, scale, work);
  return s;
}

/* R2C and C2R of even last length n = 2m through the half-length complex
 * transform (vncl__fft_real_half). R2C: each row's n reals as m complex
 * values (read in place from `in`, or packed from the padded rows of an
 * in-place plan into the workspace), FFT_m into the workspace, the split
 * into the h outputs, then the outer axes on the output. C2R: the outer
 * axes (inverse) from `in` into the half scratch, the pre-processing into
 * the workspace, the inverse FFT_m, written to the real rows. */
static vncl_status run_half(vncl_fft_plan *p, vncl_fft_direction dir,
                            double scale, cl_mem in, cl_mem out) {
  vncl_context *ctx = p->ctx;
  vncl_dtype t = p->d.dtype;
  size_t m = p->half_m, n = 2 * m;
  size_t rstride = p->d.in_place ? 2 * p->h : n;
  size_t hcount = p->rows * p->h * 2; /* reals of the half spectrum */
  bool outer = p->nsteps > p->hsteps;
  cl_mem z = p->st->scratch[VNCL__FFT_SCRATCH_FULL];
  const fft_step *hs = p->hsteps ? &p->steps[0] : NULL;
  vncl_status s = VNCL_OK;
  if (p->d.type == VNCL_FFT_R2C) {
    if (hs && vncl__fft_stockham_r2c_fused(&p->tn, t, &hs->sk)) {
      /* The split runs inside the (last) Stockham step, which reads the
       * rows (padded ones in place) straight from `in`. */
      s = vncl__fft_stockham_r2c_run(ctx, p->st, t, &p->tn, &hs->sk, p->rows,
                                     outer ? 1.0 : scale, p->rtw, p->rtw2, in,
                                     rstride / 2, out);
      if (!s && outer)
        s = run_steps(p, dir, scale, out, out, p->hsteps, hcount);
      return s;
    }
    cl_mem zsrc = in;
    if (rstride != n) {
      s = vncl__fft_real_rows_run(ctx, t, p->rows, n, rstride, n, 1.0, in, z);
      zsrc = z;
    }
    if (!s && hs) {
      s = vncl__fft_stockham_run(ctx, p->st, t, &p->tn, &hs->sk, hs->ax,
                                 (int)dir, 1.0, zsrc, z);
      zsrc = z;
    }
    if (!s)
      s = vncl__fft_r2c_post_run(ctx, t, p->rows, m, outer ? 1.0 : scale, zsrc,
                                 p->rtw, out);
    if (!s && outer) s = run_steps(p, dir, scale, out, out, p->hsteps, hcount);
    return s;
  }
  cl_mem x = in;
  if (outer) {
    x = p->st->scratch[VNCL__FFT_SCRATCH_HALF];
    s = run_steps(p, dir, 1.0, in, x, p->hsteps, hcount);
  }
  if (!s && hs && vncl__fft_stockham_r2c_fused(&p->tn, t, &hs->sk))
    /* The pre-processing inside the (first) Stockham pass, the result
     * straight to the rows. */
    return vncl__fft_stockham_c2r_run(ctx, p->st, t, &p->tn, &hs->sk, p->rows,
                                      scale, p->rtw, p->rtw2, x, out,
                                      rstride / 2);
  if (!s) s = vncl__fft_c2r_pre_run(ctx, t, p->rows, m, x, p->rtw, z);
  if (!s && hs && rstride == n)
    return vncl__fft_stockham_run(ctx, p->st, t, &p->tn, &hs->sk, hs->ax,
                                  (int)dir, scale, z, out);
  if (!s && hs)
    s = vncl__fft_stockham_run(ctx, p->st, t, &p->tn, &hs->sk, hs->ax,
                               (int)dir, 1.0, z, z);
  if (!s)
    s = vncl__fft_real_rows_run(ctx, t, p->rows, n, n, rstride, scale, z, out);
  return s;
}

static vncl_status run_general(vncl_fft_plan *p, vncl_fft_direction dir,
                               double scale, cl_mem in, cl_mem out) {
  vncl_context *ctx = p->ctx;
  vncl_dtype t = p->d.dtype;
  size_t last = p->len[p->nd - 1];
  size_t rstride = p->d.in_place ? 2 * p->h : last;
  size_t count = p->batch * p->total * 2; /* reals in the complex array */
  if (p->d.type == VNCL_FFT_C2C)
    return run_steps(p, dir, scale, in, out, 0, count);
  if (p->half_m) return run_half(p, dir, scale, in, out);
  cl_mem full = p->st->scratch[VNCL__FFT_SCRATCH_FULL];
  vncl_status s;
  if (p->d.type == VNCL_FFT_R2C) {
    s = vncl__fft_real_to_full_run(ctx, t, p->rows, last, rstride, in, full);
    if (!s) s = run_steps(p, dir, 1.0, full, full, 0, count);
    if (!s)
      s = vncl__fft_full_to_half_run(ctx, t, p->rows, last, p->h, scale, full,
                                     out);
    return s;
  }
  size_t n0 = p->nd == 3 ? p->len[0] : 1;
  size_t n1 = p->nd == 3 ? p->len[1] : p->nd == 2 ? p->len[0] : 1;
  s = vncl__fft_half_to_full_run(ctx, t, p->batch, n0, n1, last, p->h, in,
                                 full);
  if (!s) s = run_steps(p, dir, 1.0, full, full, 0, count);
  if (!s)
    s = vncl__fft_full_to_real_run(ctx, t, p->rows, last, rstride, scale, full,
                                   out);
  return s;
}

static vncl_status run_native(vncl_fft_plan *p, vncl_fft_direction dir,
                              double scale, const vncl_tensor *outt, cl_mem in,
                              cl_mem out) {
  vncl_status s =
      vncl__fft_clfft_run(p->ctx, p->st, p->native, (clfftDirection)dir, in,
                          p->d.in_place ? NULL : out);
  if (s) return s;
  bool clfft_scaled = p->clfft_scales[dir == VNCL_FFT_FORWARD ? 0 : 1];
  if (clfft_scaled || scale == 1.0) return VNCL_OK;
  return vncl__fft_scale_run(p->ctx, p->d.dtype, outt->numel, scale, out);
}

vncl_status vncl_fft_execute(vncl_fft_plan *p, vncl_fft_direction dir,
                             const vncl_tensor *in, vncl_tensor *out) {
  if (!p) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "plan is NULL");
  vncl_context *ctx = p->ctx;
  if (!in || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !in ? "in" : "out");
  if (dir != VNCL_FFT_FORWARD && dir != VNCL_FFT_INVERSE)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "direction %d is neither VNCL_FFT_FORWARD nor "
                      "VNCL_FFT_INVERSE",
                      (int)dir);
  if (p->d.type == VNCL_FFT_R2C && dir != VNCL_FFT_FORWARD)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "an R2C plan runs forward only (use a C2R plan for the "
                      "inverse)");
  if (p->d.type == VNCL_FFT_C2R && dir != VNCL_FFT_INVERSE)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "a C2R plan runs inverse only (use an R2C plan for the "
                      "forward transform)");
  bool same = in->mem == out->mem && in->offset == out->offset;
  if (p->d.in_place && !same)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "the plan is in place: in and out must be the same "
                      "tensor");
  if (!p->d.in_place) {
    if (same)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "the plan is out of place: in and out must be "
                        "distinct tensors (make the plan with in_place = 1 "
                        "to transform in place)");
    if (in->mem == out->mem && in->offset < out->offset + out->bytes &&
        out->offset < in->offset + in->bytes)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "in and out overlap in memory: an out-of-place plan "
                        "needs distinct memory");
  }
  vncl_status s = check_tensor(p, in, "in", true);
  if (!s && !p->d.in_place) s = check_tensor(p, out, "out", false);
  if (s) return s;

  cl_mem inm, outm, in_owned, out_owned = NULL;
  s = data_mem(ctx, in, "in", &inm, &in_owned);
  if (s) return s;
  outm = inm;
  if (!p->d.in_place) s = data_mem(ctx, out, "out", &outm, &out_owned);
  if (!s) {
    double scale = dir == VNCL_FFT_FORWARD ? p->fwd_scale : p->inv_scale;
    pthread_mutex_lock(&p->st->exec_lock);
    s = p->native ? run_native(p, dir, scale, out, inm, outm)
                  : run_general(p, dir, scale, inm, outm);
    pthread_mutex_unlock(&p->st->exec_lock);
  }
  /* Released now, freed by OpenCL once the commands are done. */
  if (in_owned) clReleaseMemObject(in_owned);
  if (out_owned) clReleaseMemObject(out_owned);
  return s;
}

/* ---- one-shot -------------------------------------------------------------
 */

vncl_status vncl_fft(vncl_context *ctx, vncl_fft_type type,
                     vncl_fft_direction dir, int ndim, vncl_fft_norm norm,
                     const vncl_tensor *in, vncl_tensor *out) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (!in || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !in ? "in" : "out");
  if (ndim < 1 || ndim > 3)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "fft ndim %d out of range (1 to 3)", ndim);
  if (type != VNCL_FFT_C2C && type != VNCL_FFT_R2C && type != VNCL_FFT_C2R)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "fft type %d is not C2C, R2C or C2R", (int)type);
  bool in_place = in->mem == out->mem && in->offset == out->offset;
  if (in_place && type != VNCL_FFT_C2C)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "in-place %s needs a plan (vncl_fft_plan_create): the "
                      "real length of the last axis (2h-2 or 2h-1) is "
                      "ambiguous from the tensor",
                      type_name(type));
  /* The tensor that carries the logical lengths, and how many trailing
   * dimensions it has for them. */
  const vncl_tensor *lt = type == VNCL_FFT_C2R ? out : in;
  int trail = type == VNCL_FFT_C2C ? ndim + 1 : ndim;
  if (lt->ndim < trail)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: %d dimension(s), a %d-D %s needs at least %d%s",
                      lt == in ? "in" : "out", lt->ndim, ndim, type_name(type),
                      trail,
                      type == VNCL_FFT_C2C ? " (the last one 2: complex)" : "");
  if (type == VNCL_FFT_C2C && lt->shape[lt->ndim - 1] != 2)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "in: the last dimension is %lld; complex tensors have "
                      "2 (interleaved real, imaginary)",
                      (long long)lt->shape[lt->ndim - 1]);
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.type = type;
  d.dtype = in->dtype;
  d.ndim = ndim;
  d.norm = norm;
  d.in_place = in_place;
  int lead = lt->ndim - trail;
  for (int i = 0; i < ndim; i++) d.n[i] = lt->shape[lead + i];
  d.batch = 1;
  for (int i = 0; i < lead; i++) d.batch *= lt->shape[i];
  if (d.batch == 0) {
    /* Nothing to transform; still refuse a dtype a plan would refuse. */
    if (in->dtype != VNCL_F32 && in->dtype != VNCL_F64)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "fft dtype %s: FFTs take f32 or f64",
                        vncl_dtype_name(in->dtype));
    return VNCL_OK;
  }
  vncl_fft_plan *p;
  vncl_status s = vncl_fft_plan_create(ctx, &d, &p);
  if (s) return s;
  s = vncl_fft_execute(p, dir, in, out);
  vncl_fft_plan_destroy(p);
  return s;
}

/* ---- statistics -----------------------------------------------------------
 */

vncl_status vncl_fft_stats_get(vncl_context *ctx, vncl_fft_stats *out) {
  if (!ctx || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !ctx ? "ctx" : "out");
  memset(out, 0, sizeof *out);
  vncl__fft_state *st = vncl__fft_state_find(ctx);
  if (!st) return VNCL_OK;
  pthread_mutex_lock(&st->lock);
  for (vncl__fft_entry *e = st->entries; e; e = e->next) {
    if (e->has_plan) out->cached_plans++;
    out->device_bytes +=
        e->table_bytes[0] + e->table_bytes[1] + e->table_bytes[2];
  }
  out->bakes = st->bakes;
  out->bake_seconds = st->bake_seconds;
  out->hits = st->hits;
  out->misses = st->misses;
  pthread_mutex_unlock(&st->lock);
  pthread_mutex_lock(&st->exec_lock);
  for (int i = 0; i < VNCL__FFT_SCRATCH_SLOTS; i++)
    out->device_bytes += st->scratch_bytes[i];
  pthread_mutex_unlock(&st->exec_lock);
  return VNCL_OK;
}
