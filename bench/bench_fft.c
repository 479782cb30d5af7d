/* The FFT suite of `vncl bench`: transforms through vncl (plans reused,
 * tensors in and out, the device's default backend) against FFTW on the
 * host CPU (FFTW_MEASURE plans, one thread, the same precision: the peer
 * the issue sets) and, for 1-D complex f32 lengths clFFT can do, against
 * clFFT called directly with the same configuration (plan reused; gated
 * at 1.0x where vncl runs its own kernels). The implementations are timed
 * in turn within each repeat so that load on the machine hits them alike.
 * FFTW also runs a second time with as many threads as the host has
 * online CPUs (peer "fftw-Nt", FFTW's threads library, the same flags): a
 * program on this host would give FFTW every core, as the CPU device
 * gives vncl every core. Not gated; the goal is set against the
 * one-thread plan (a goal gate, bench_gate.c), and the table shows both.
 * Cases cover every length class of issue 15: powers of two, 2^a 3^b 5^c
 * 7^d (one pass, split, small lengths in large batches), factors 11 and
 * 13, primes (Rader where p - 1 is 13-smooth, else Bluestein), 1-D
 * batched, 2-D and 3-D, C2C, R2C and C2R, f32 and f64. Rates are in GFLOP/s
 * counting 5 N log2 N per complex transform and 2.5 N log2 N per real one
 * (the usual FFT convention, also for lengths that are not powers of
 * two). C2R runs unscaled (NORM_FORWARD), as FFTW's does, on 1-D
 * spectra of real signals (imaginary parts of X[0] and X[n/2] zero),
 * FFTW's plan with FFTW_PRESERVE_INPUT (its c2r otherwise overwrites the
 * input, which the repeats reuse; multi-dimensional c2r cannot preserve
 * it, so C2R cases are 1-D).
 *
 * clFFT's setup is vncl's: the suite uses clFFT directly only while a vncl
 * plan holds it, and never tears it down itself. */
#include <clFFT.h>
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* One case: `batch` transforms of lengths n[0..nd) (row-major). */
typedef struct fft_shape {
  vncl_fft_type type; /* C2C or R2C (forward), C2R (inverse, 1-D) */
  vncl_dtype dtype;
  int nd;
  size_t n[3];
  size_t batch;
  bool clfft; /* also against clFFT directly (1-D C2C f32 only) */
} fft_shape;

typedef struct fft_run {
  bench_ctx *b;
  fft_shape sh;
  size_t total;               /* product of the lengths */
  size_t in_count, out_count; /* reals in the input and the output */
  size_t esize;
  vncl_fft_plan *plan;
  vncl_tensor *in, *out;
  /* clFFT directly */
  clfftPlanHandle cplan;
  bool has_cplan;
  cl_mem cin, cout;
  /* FFTW, in the case's precision */
  fftwf_plan fplan;
  fftw_plan dplan;
  void *fin, *fout;
  /* FFTW with fftw_threads threads: same input, its own output */
  fftwf_plan fplan_t;
  fftw_plan dplan_t;
  void *fout_t;
} fft_run;

/* Threads of the "fftw-Nt" peer: the host's online CPUs (0: not run). */
static int fftw_threads;
static char fftw_threads_name[32];

static void run_free(fft_run *r) {
  if (r->has_cplan) clfftDestroyPlan(&r->cplan);
  if (r->cin) clReleaseMemObject(r->cin);
  if (r->cout) clReleaseMemObject(r->cout);
  if (r->fplan) fftwf_destroy_plan(r->fplan);
  if (r->dplan) fftw_destroy_plan(r->dplan);
  if (r->fplan_t) fftwf_destroy_plan(r->fplan_t);
  if (r->dplan_t) fftw_destroy_plan(r->dplan_t);
  fftw_free(r->fin);
  fftw_free(r->fout);
  fftw_free(r->fout_t);
  vncl_tensor_destroy(r->in);
  vncl_tensor_destroy(r->out);
  vncl_fft_plan_destroy(r->plan);
}

static int setup_vncl(fft_run *r, const void *x) {
  bench_ctx *b = r->b;
  const fft_shape *sh = &r->sh;
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.type = sh->type;
  d.dtype = sh->dtype;
  d.ndim = sh->nd;
  for (int i = 0; i < sh->nd; i++) d.n[i] = (int64_t)sh->n[i];
  d.batch = (int64_t)sh->batch;
  if (sh->type == VNCL_FFT_C2R) d.norm = VNCL_FFT_NORM_FORWARD; /* unscaled */
  if (vncl_fft_plan_create(b->ctx, &d, &r->plan)) return -1;
  int64_t ishape[5], oshape[5];
  int k = 0;
  ishape[k] = oshape[k] = (int64_t)sh->batch;
  k++;
  for (int i = 0; i < sh->nd; i++, k++) ishape[k] = oshape[k] = (int64_t)sh->n[i];
  int ni = k, no = k + 1;
  oshape[k] = 2;
  if (sh->type == VNCL_FFT_C2C) {
    ishape[k] = 2;
    ni++;
  } else if (sh->type == VNCL_FFT_R2C) {
    oshape[k - 1] = (int64_t)(sh->n[sh->nd - 1] / 2 + 1);
  } else { /* C2R: in the half spectrum, out real */
    ishape[k - 1] = (int64_t)(sh->n[sh->nd - 1] / 2 + 1);
    ishape[k] = 2;
    ni = k + 1;
    no = k;
  }
  if (vncl_tensor_create(b->ctx, sh->dtype, ni, ishape, &r->in) ||
      vncl_tensor_create(b->ctx, sh->dtype, no, oshape, &r->out) ||
      vncl_tensor_write(r->in, x, r->in_count * r->esize))
    return -1;
  return 0;
}

/* The same transform with clFFT's own API: out of place, interleaved,
 * batched, default scales, clFFT's internal scratch. */
static int setup_clfft(fft_run *r, const void *x) {
  cl_context c;
  cl_command_queue q;
  vncl_context_cl(r->b->ctx, &c, &q, NULL);
  size_t len = r->sh.n[0];
  if (clfftCreateDefaultPlan(&r->cplan, c, CLFFT_1D, &len) != CLFFT_SUCCESS)
    return -1;
  r->has_cplan = true;
  if (clfftSetPlanPrecision(r->cplan, CLFFT_SINGLE) ||
      clfftSetLayout(r->cplan, CLFFT_COMPLEX_INTERLEAVED,
                     CLFFT_COMPLEX_INTERLEAVED) ||
      clfftSetResultLocation(r->cplan, CLFFT_OUTOFPLACE) ||
      clfftSetPlanBatchSize(r->cplan, r->sh.batch) ||
      clfftSetPlanDistance(r->cplan, len, len) ||
      clfftBakePlan(r->cplan, 1, &q, NULL, NULL))
    return -1;
  cl_int err;
  size_t bytes = r->in_count * r->esize;
  r->cin = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &err);
  r->cout = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (!r->cin || !r->cout ||
      clEnqueueWriteBuffer(q, r->cin, CL_TRUE, 0, bytes, x, 0, NULL, NULL))
    return -1;
  return 0;
}

/* FFTW plans for r's case into *fp / *dp (the case's precision), from
 * r->fin to out, with `threads` threads (FFTW_MEASURE overwrites both
 * arrays: the caller fills r->fin afterwards). */
static void plan_fftw(fft_run *r, void *out, int threads, fftwf_plan *fp,
                      fftw_plan *dp) {
  const fft_shape *sh = &r->sh;
  int n[3], b = (int)sh->batch;
  for (int i = 0; i < sh->nd; i++) n[i] = (int)sh->n[i];
  int t = (int)r->total;
  int h = (int)(r->total / sh->n[sh->nd - 1] * (sh->n[sh->nd - 1] / 2 + 1));
  bool f64 = sh->dtype == VNCL_F64;
  if (fftw_threads > 0) { /* the threads library is set up */
    if (f64)
      fftw_plan_with_nthreads(threads);
    else
      fftwf_plan_with_nthreads(threads);
  }
  *fp = NULL;
  *dp = NULL;
  if (sh->type == VNCL_FFT_C2C) {
    if (f64)
      *dp = fftw_plan_many_dft(sh->nd, n, b, r->fin, NULL, 1, t, out, NULL,
                               1, t, FFTW_FORWARD, FFTW_MEASURE);
    else
      *fp = fftwf_plan_many_dft(sh->nd, n, b, r->fin, NULL, 1, t, out, NULL,
                                1, t, FFTW_FORWARD, FFTW_MEASURE);
  } else if (sh->type == VNCL_FFT_R2C) {
    if (f64)
      *dp = fftw_plan_many_dft_r2c(sh->nd, n, b, r->fin, NULL, 1, t, out,
                                   NULL, 1, h, FFTW_MEASURE);
    else
      *fp = fftwf_plan_many_dft_r2c(sh->nd, n, b, r->fin, NULL, 1, t, out,
                                    NULL, 1, h, FFTW_MEASURE);
  } else {
    unsigned fl = FFTW_MEASURE | FFTW_PRESERVE_INPUT;
    if (f64)
      *dp = fftw_plan_many_dft_c2r(sh->nd, n, b, r->fin, NULL, 1, h, out,
                                   NULL, 1, t, fl);
    else
      *fp = fftwf_plan_many_dft_c2r(sh->nd, n, b, r->fin, NULL, 1, h, out,
                                    NULL, 1, t, fl);
  }
}

static int setup_fftw(fft_run *r, const void *x) {
  r->fin = fftw_malloc(r->in_count * r->esize);
  r->fout = fftw_malloc(r->out_count * r->esize);
  if (!r->fin || !r->fout) return -1;
  plan_fftw(r, r->fout, 1, &r->fplan, &r->dplan);
  if (!r->fplan && !r->dplan) return -1;
  if (fftw_threads > 0) {
    r->fout_t = fftw_malloc(r->out_count * r->esize);
    if (!r->fout_t) return -1;
    plan_fftw(r, r->fout_t, fftw_threads, &r->fplan_t, &r->dplan_t);
    if (!r->fplan_t && !r->dplan_t) return -1;
  }
  memcpy(r->fin, x, r->in_count * r->esize); /* planning overwrote it */
  return 0;
}

static int run_vncl(fft_run *r, int times) {
  for (int i = 0; i < times; i++)
    if (vncl_fft_execute(r->plan,
                         r->sh.type == VNCL_FFT_C2R ? VNCL_FFT_INVERSE
                                                    : VNCL_FFT_FORWARD,
                         r->in, r->out))
      return -1;
  return vncl_finish(r->b->ctx) ? -1 : 0;
}

static int run_clfft(fft_run *r, int times) {
  cl_command_queue q;
  vncl_context_cl(r->b->ctx, NULL, &q, NULL);
  for (int i = 0; i < times; i++)
    if (clfftEnqueueTransform(r->cplan, CLFFT_FORWARD, 1, &q, 0, NULL, NULL,
                              &r->cin, &r->cout, NULL))
      return -1;
  return clFinish(q) ? -1 : 0;
}

static void run_fftw(fft_run *r, int times) {
  for (int i = 0; i < times; i++)
    if (r->dplan)
      fftw_execute(r->dplan);
    else
      fftwf_execute(r->fplan);
}

static void run_fftw_threads(fft_run *r, int times) {
  for (int i = 0; i < times; i++)
    if (r->dplan_t)
      fftw_execute(r->dplan_t);
    else if (r->fplan_t)
      fftwf_execute(r->fplan_t);
}

static double value_at(const fft_run *r, const void *p, size_t i) {
  return r->sh.dtype == VNCL_F64 ? ((const double *)p)[i]
                                 : ((const float *)p)[i];
}

/* vncl's result against FFTW's (same precision) within the rounding error
 * of two FFTs: max |a - b| <= 8 eps log2(N) rms(b). */
static bool close_to_fftw(fft_run *r) {
  void *y = malloc(r->out_count * r->esize);
  if (!y || vncl_tensor_read(r->out, y, r->out_count * r->esize)) {
    free(y);
    return false;
  }
  double rms = 0, worst = 0;
  for (size_t i = 0; i < r->out_count; i++) {
    double ref = value_at(r, r->fout, i);
    rms += ref * ref;
    double e = fabs(value_at(r, y, i) - ref);
    if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
  }
  free(y);
  rms = sqrt(rms / (double)r->out_count);
  double eps = r->sh.dtype == VNCL_F64 ? 2.220446049250313e-16 : 1.1920929e-7;
  double tol = 8 * eps * fmax(1, log2((double)r->total)) * rms;
  return worst <= tol;
}

static void case_name(const fft_run *r, const char *alg, char *out,
                      size_t cap) {
  const fft_shape *sh = &r->sh;
  char dims[64] = "";
  for (int i = 0; i < sh->nd; i++) {
    size_t l = strlen(dims);
    snprintf(dims + l, sizeof dims - l, "%s%zu", i ? "x" : "", sh->n[i]);
  }
  const char *t = sh->type == VNCL_FFT_C2C   ? "c2c"
                  : sh->type == VNCL_FFT_R2C ? "r2c"
                                             : "c2r";
  if (sh->batch > 1)
    snprintf(out, cap, "%s %zu x %s (%s)", t, sh->batch, dims, alg);
  else
    snprintf(out, cap, "%s %s (%s)", t, dims, alg);
}

/* One attempt's medians (seconds a transform) and spreads: vncl, clFFT,
 * FFTW on one thread, FFTW on fftw_threads. */
typedef struct fft_times {
  double mv, sv, mc, sc, mf, sf, mt, st;
} fft_times;

/* Times vncl, clFFT (with_clfft), FFTW and threaded FFTW alternately, reps
 * samples of `inner` transforms each. */
static int fft_measure(fft_run *r, int reps, int inner, bool with_clfft,
                       fft_times *out) {
  double *tv = calloc((size_t)reps, sizeof *tv);
  double *tc = calloc((size_t)reps, sizeof *tc);
  double *tf = calloc((size_t)reps, sizeof *tf);
  double *tt = calloc((size_t)reps, sizeof *tt);
  int rc = tv && tc && tf && tt ? 0 : -1;
  for (int k = 0; k < reps && !rc; k++) {
    double t0 = bench_now();
    rc = run_vncl(r, inner);
    tv[k] = (bench_now() - t0) / inner;
    if (with_clfft && !rc) {
      t0 = bench_now();
      rc = run_clfft(r, inner);
      tc[k] = (bench_now() - t0) / inner;
    }
    t0 = bench_now();
    run_fftw(r, inner);
    tf[k] = (bench_now() - t0) / inner;
    if (fftw_threads > 0) {
      t0 = bench_now();
      run_fftw_threads(r, inner);
      tt[k] = (bench_now() - t0) / inner;
    }
  }
  if (!rc) {
    out->mv = bench_median(tv, reps, &out->sv);
    out->mc = with_clfft ? bench_median(tc, reps, &out->sc) : 0;
    out->mf = bench_median(tf, reps, &out->sf);
    out->mt = fftw_threads > 0 ? bench_median(tt, reps, &out->st) : 0;
  }
  free(tv);
  free(tc);
  free(tf);
  free(tt);
  return rc;
}

/* Case c's rates from one attempt's medians: vncl's from t, the peer's
 * from its median seconds peer_s and spread peer_sp (0 s: not run). */
static void fft_rates(bench_case *c, double flops, const fft_times *t,
                      double peer_s, double peer_sp) {
  c->value = t->mv > 0 ? flops / t->mv * 1e-9 : 0;
  c->spread = t->sv;
  c->wall_seconds = t->mv;
  c->peer_value = peer_s > 0 ? flops / peer_s * 1e-9 : 0;
  c->peer_spread = peer_sp;
}

static int fft_case(bench_ctx *b, const fft_shape *sh) {
  fft_run r = {0};
  r.b = b;
  r.sh = *sh;
  r.total = 1;
  for (int i = 0; i < sh->nd; i++) r.total *= sh->n[i];
  size_t last = sh->n[sh->nd - 1];
  bool c2c = sh->type == VNCL_FFT_C2C;
  bool with_clfft = sh->clfft && c2c && sh->nd == 1 && sh->dtype == VNCL_F32;
  r.esize = vncl_dtype_size(sh->dtype);
  size_t spec = 2 * (r.total / last) * (c2c ? last : last / 2 + 1) *
                sh->batch; /* reals of the spectrum */
  bool c2r = sh->type == VNCL_FFT_C2R;
  r.in_count = c2r ? spec : (c2c ? 2 : 1) * r.total * sh->batch;
  r.out_count = c2r ? r.total * sh->batch : spec;
  void *x = malloc(r.in_count * r.esize);
  if (!x) return -1;
  srand(12345);
  for (size_t i = 0; i < r.in_count; i++) {
    double v = (double)rand() / RAND_MAX - 0.5;
    if (sh->dtype == VNCL_F64)
      ((double *)x)[i] = v;
    else
      ((float *)x)[i] = (float)v;
  }
  /* C2R: the spectrum of a real signal (1-D): Im X[0] = Im X[n/2] = 0. */
  for (size_t row = 0, h = last / 2 + 1; c2r && row < sh->batch; row++)
    for (int e = 0; e < (last % 2 ? 1 : 2); e++) {
      size_t i = 2 * (row * h + (e ? h - 1 : 0)) + 1;
      if (sh->dtype == VNCL_F64)
        ((double *)x)[i] = 0;
      else
        ((float *)x)[i] = 0;
    }
  int rc = setup_vncl(&r, x);
  if (!rc && with_clfft) rc = setup_clfft(&r, x);
  if (!rc) rc = setup_fftw(&r, x);
  free(x);
  char name[128];
  if (rc) {
    case_name(&r, "-", name, sizeof name);
    printf("fft       setup of %s %s failed: %s\n", name,
           vncl_dtype_name(sh->dtype),
           vncl_errmsg(b->ctx)[0] ? vncl_errmsg(b->ctx)
                                  : "clFFT or FFTW refused the plan");
    b->wrong++;
    run_free(&r);
    return -1;
  }
  /* Warm-up (the first run of a clFFT kernel compiles its work-group
   * function on PoCL), then the sample size: at least ~20 ms per sample. */
  rc = run_vncl(&r, 1);
  if (!rc && with_clfft) rc = run_clfft(&r, 1);
  run_fftw(&r, 1);
  run_fftw_threads(&r, 1);
  double t0 = bench_now();
  if (!rc) rc = run_vncl(&r, 1);
  double one = bench_now() - t0;
  int inner = one > 0.02 ? 1 : (int)(0.02 / (one > 1e-5 ? one : 1e-5)) + 1;
  if (inner > 200) inner = 200;
  const char *alg = vncl_fft_plan_algorithm(r.plan);
  case_name(&r, alg, name, sizeof name);
  /* Issue 15's goal against FFTW on one thread: 1.0x, 0.6x for primes
   * (Rader, Bluestein); a goal gate (bench_gate.c). */
  double goal = strcmp(alg, "rader") && strcmp(alg, "bluestein") ? 1.0 : 0.6;
  double nn = (double)r.total;
  double flops = (c2c ? 5.0 : 2.5) * nn * log2(nn) * (double)sh->batch;
  bench_case c = {0};
  c.suite = "fft";
  c.name = name;
  c.dtype = vncl_dtype_name(sh->dtype);
  c.unit = "GFLOP/s";
  c.flops = flops;
  c.bytes = (double)(r.in_count + r.out_count) * (double)r.esize;
  c.m = (int)r.total;
  c.n = (int)sh->batch;
  /* The FFTW row, the one goal gate: measured again only while it fails,
   * the best attempt kept (BENCH_ATTEMPTS). */
  bench_case g = c;
  g.peer = "fftw";
  g.gate = g.goal_gate = true;
  g.goal = goal;
  fft_times ft = {0}, best = {0};
  for (int t = 0; !rc && t < BENCH_ATTEMPTS; t++) {
    bench_retry_pause(t);
    rc = fft_measure(&r, b->repeats << t, inner, with_clfft, &ft);
    if (rc) break;
    bench_case now = g; /* keeps the first attempt's ratio */
    fft_rates(&now, flops, &ft, ft.mf, ft.sf);
    if (t == 0) now.first_ratio = bench_case_ratio(&now);
    if (t == 0 || bench_case_ratio(&now) > bench_case_ratio(&g)) {
      g = now;
      best = ft;
    }
    g.attempts = t + 1;
    if (!bench_gate_fails(b, &g)) break;
  }
  if (rc) { /* a failed call: no rate for vncl */
    best.mv = 0;
    fft_rates(&g, flops, &best, best.mf, best.sf);
  }
  c.correct = g.correct = !rc && close_to_fftw(&r);
  if (with_clfft) {
    /* Gated where vncl runs its own kernels (the device's default backend
     * chose them). Where the plan is "clfft", vncl enqueues the very same
     * clFFT kernels as the peer, and the ratio is 1 +- noise. */
    c.peer = "clfft";
    fft_rates(&c, flops, &best, best.mc, best.sc);
    c.gate = strcmp(alg, "clfft") != 0;
    bench_record(b, &c);
  }
  bench_record(b, &g);
  if (fftw_threads > 0) {
    c.peer = fftw_threads_name;
    fft_rates(&c, flops, &best, best.mt, best.st);
    c.gate = false;
    bench_record(b, &c);
  }
  run_free(&r);
  return rc;
}

#define C2C VNCL_FFT_C2C
#define R2C VNCL_FFT_R2C
#define C2R VNCL_FFT_C2R
#define F32 VNCL_F32
#define F64 VNCL_F64

int bench_suite_fft(bench_ctx *b) {
  /* The length classes of issue 15. With clFFT as a second peer: the 1-D
   * C2C f32 lengths it does. FFTW is the peer of every case. */
  static const fft_shape full[] = {
      /* powers of two, 2^5 5^5, a prime (Rader: 65536 = 2^16): the
       * long-standing four */
      {C2C, F32, 1, {1u << 20}, 1, true},
      {C2C, F32, 1, {4096}, 256, true},
      {C2C, F32, 1, {100000}, 1, true},
      {C2C, F32, 1, {65537}, 1, false},
      /* 2^a 3^b 5^c 7^d: short in a large batch, one pass, split, 2^22 */
      {C2C, F32, 1, {8}, 131072, true},
      {C2C, F64, 1, {16}, 32768, false},          /* lines of 16, f64 */
      {C2C, F32, 1, {3528}, 256, true},           /* 2^3 3^2 7^2 */
      {C2C, F32, 1, {1u << 22}, 1, true},
      {C2C, F32, 1, {200704}, 1, true},           /* 2^12 7^2 */
      /* medium lengths, where a launch and a few passes cost as much as
       * FFTW's whole transform: one line of 16384 (split), 64 of 1024 */
      {C2C, F32, 1, {16384}, 1, true},
      {C2C, F32, 1, {1024}, 64, true},
      /* fewer lines than a work-item's lanes: one line of 4096, 3 of 1000
       * (split in two on the CPU table, few_lines) */
      {C2C, F32, 1, {4096}, 1, true},
      {C2C, F32, 1, {1000}, 3, false},
      /* a prime through Bluestein (100002 = 2 3 7 2381) */
      {C2C, F32, 1, {100003}, 1, false},
      /* factors 11 and 13 */
      {C2C, F32, 1, {1001}, 256, true},           /* 7 11 13 */
      {C2C, F64, 1, {173056}, 1, false},          /* 2^10 13^2 */
      /* f64, 2-D, 3-D, real */
      {C2C, F64, 1, {1u << 20}, 1, false},
      {C2C, F32, 2, {1024, 1024}, 1, false},
      {C2C, F32, 3, {128, 128, 128}, 1, false},
      {R2C, F32, 1, {1u << 20}, 1, false},
      {R2C, F64, 2, {1050, 1024}, 1, false},      /* 2 3 5^2 7 */
      {R2C, F32, 1, {4096}, 256, false},
      {R2C, F32, 1, {8192}, 1, false}, /* one row: the half split */
      {C2R, F32, 1, {1u << 20}, 1, false},
      {C2R, F32, 1, {4096}, 256, false},
      {C2R, F64, 1, {100000}, 4, false},
  };
  static const fft_shape quick[] = {
      {C2C, F32, 1, {1u << 14}, 1, true},
      {C2C, F32, 1, {1024}, 64, true},
      {C2C, F32, 1, {1000}, 16, true},
      {C2C, F32, 1, {4096}, 1, false}, /* few lines: split */
      {C2C, F32, 1, {4099}, 1, false}, /* Bluestein */
      {C2C, F32, 1, {1009}, 8, false}, /* Rader */
      {C2C, F32, 1, {1001}, 16, true},
      {C2C, F64, 2, {64, 70}, 4, false},
      {R2C, F32, 3, {16, 14, 22}, 2, false},
      {C2R, F32, 1, {1000}, 16, false},
  };
  const fft_shape *cases = b->quick ? quick : full;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus > 1 && fftw_init_threads() && fftwf_init_threads()) {
    fftw_threads = (int)cpus;
    snprintf(fftw_threads_name, sizeof fftw_threads_name, "fftw-%dt",
             fftw_threads);
  }
  size_t count = b->quick ? sizeof quick / sizeof *quick
                          : sizeof full / sizeof *full;
  vncl_fft_stats s0, s1;
  vncl_fft_stats_get(b->ctx, &s0);
  int failed = 0;
  for (size_t i = 0; i < count; i++) {
    if (cases[i].dtype == F64 && !b->dev.fp64) continue;
    if (fft_case(b, &cases[i])) failed++;
  }
  vncl_fft_stats_get(b->ctx, &s1);
  printf("fft       %llu clFFT plan(s) baked in %.1f s for this suite\n",
         (unsigned long long)(s1.bakes - s0.bakes),
         s1.bake_seconds - s0.bake_seconds);
  return failed == (int)count ? -1 : 0;
}
