/* The FFT suite of `vncl bench`: complex f32 transforms through vncl
 * (plans reused, tensors in and out, the device's default backend) against
 * clFFT called directly with the same configuration (plan reused: the peer
 * the issue sets, gated at 1.0x where vncl runs its own kernels) and
 * against FFTW on the host CPU (FFTW_MEASURE plan, one thread: the figure
 * users compare with; reported, not gated). The three are timed in turn
 * within each repeat so that load on the machine hits them alike. Rates are
 * in GFLOP/s counting 5 N log2 N per transform (the usual FFT convention,
 * also for lengths that are not powers of two).
 *
 * clFFT's setup is vncl's: the suite uses clFFT directly only while a vncl
 * plan holds it, and never tears it down itself. */
#include <clFFT.h>
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct fft_run {
  bench_ctx *b;
  size_t n, batch, count; /* count: floats in one buffer */
  vncl_fft_plan *plan;
  vncl_tensor *in, *out;
  /* clFFT directly */
  clfftPlanHandle cplan;
  bool has_cplan;
  cl_mem cin, cout;
  /* FFTW */
  fftwf_plan fplan;
  fftwf_complex *fin, *fout;
} fft_run;

static void run_free(fft_run *r) {
  if (r->has_cplan) clfftDestroyPlan(&r->cplan);
  if (r->cin) clReleaseMemObject(r->cin);
  if (r->cout) clReleaseMemObject(r->cout);
  if (r->fplan) fftwf_destroy_plan(r->fplan);
  fftwf_free(r->fin);
  fftwf_free(r->fout);
  vncl_tensor_destroy(r->in);
  vncl_tensor_destroy(r->out);
  vncl_fft_plan_destroy(r->plan);
}

static int setup_vncl(fft_run *r, const float *x) {
  bench_ctx *b = r->b;
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.n[0] = (int64_t)r->n;
  d.batch = (int64_t)r->batch;
  if (vncl_fft_plan_create(b->ctx, &d, &r->plan)) return -1;
  int64_t shape[3] = {(int64_t)r->batch, (int64_t)r->n, 2};
  if (vncl_tensor_create(b->ctx, VNCL_F32, 3, shape, &r->in) ||
      vncl_tensor_create(b->ctx, VNCL_F32, 3, shape, &r->out) ||
      vncl_tensor_write(r->in, x, r->count * sizeof *x))
    return -1;
  return 0;
}

/* The same transform with clFFT's own API: out of place, interleaved,
 * batched, default scales, clFFT's internal scratch. */
static int setup_clfft(fft_run *r, const float *x) {
  cl_context c;
  cl_command_queue q;
  vncl_context_cl(r->b->ctx, &c, &q, NULL);
  size_t len = r->n;
  if (clfftCreateDefaultPlan(&r->cplan, c, CLFFT_1D, &len) != CLFFT_SUCCESS)
    return -1;
  r->has_cplan = true;
  if (clfftSetPlanPrecision(r->cplan, CLFFT_SINGLE) ||
      clfftSetLayout(r->cplan, CLFFT_COMPLEX_INTERLEAVED,
                     CLFFT_COMPLEX_INTERLEAVED) ||
      clfftSetResultLocation(r->cplan, CLFFT_OUTOFPLACE) ||
      clfftSetPlanBatchSize(r->cplan, r->batch) ||
      clfftSetPlanDistance(r->cplan, r->n, r->n) ||
      clfftBakePlan(r->cplan, 1, &q, NULL, NULL))
    return -1;
  cl_int err;
  size_t bytes = r->count * sizeof(float);
  r->cin = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &err);
  r->cout = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (!r->cin || !r->cout ||
      clEnqueueWriteBuffer(q, r->cin, CL_TRUE, 0, bytes, x, 0, NULL, NULL))
    return -1;
  return 0;
}

static int setup_fftw(fft_run *r, const float *x) {
  size_t m = r->count / 2;
  r->fin = fftwf_alloc_complex(m);
  r->fout = fftwf_alloc_complex(m);
  if (!r->fin || !r->fout) return -1;
  int n = (int)r->n;
  r->fplan =
      fftwf_plan_many_dft(1, &n, (int)r->batch, r->fin, NULL, 1, n, r->fout,
                          NULL, 1, n, FFTW_FORWARD, FFTW_MEASURE);
  if (!r->fplan) return -1;
  memcpy(r->fin, x, r->count * sizeof *x); /* planning overwrote it */
  return 0;
}

static int run_vncl(fft_run *r, int times) {
  for (int i = 0; i < times; i++)
    if (vncl_fft_execute(r->plan, VNCL_FFT_FORWARD, r->in, r->out)) return -1;
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
  for (int i = 0; i < times; i++) fftwf_execute(r->fplan);
}

/* vncl's result against FFTW's (both f32) within the rounding error of two
 * FFTs: max |a - b| <= 8 eps log2(n) rms(b). */
static bool close_to_fftw(fft_run *r) {
  float *y = malloc(r->count * sizeof *y);
  if (!y || vncl_tensor_read(r->out, y, r->count * sizeof *y)) {
    free(y);
    return false;
  }
  const float *ref = (const float *)r->fout;
  double rms = 0, worst = 0;
  for (size_t i = 0; i < r->count; i++) {
    rms += (double)ref[i] * ref[i];
    double e = fabs((double)y[i] - ref[i]);
    if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
  }
  free(y);
  rms = sqrt(rms / (double)r->count);
  double tol = 8 * 1.1920929e-7 * fmax(1, log2((double)r->n)) * rms;
  return worst <= tol;
}

/* One complex f32 case: `batch` transforms of length n. with_clfft: also
 * against clFFT directly (lengths clFFT can do). */
static int c2c_case(bench_ctx *b, size_t n, size_t batch, bool with_clfft) {
  fft_run r = {0};
  r.b = b;
  r.n = n;
  r.batch = batch;
  r.count = 2 * n * batch;
  float *x = malloc(r.count * sizeof *x);
  if (!x) return -1;
  srand(12345);
  for (size_t i = 0; i < r.count; i++) x[i] = (float)rand() / RAND_MAX - 0.5f;
  int rc = setup_vncl(&r, x);
  if (!rc && with_clfft) rc = setup_clfft(&r, x);
  if (!rc) rc = setup_fftw(&r, x);
  free(x);
  if (rc) {
    printf("fft       setup of %zu x %zu failed: %s\n", batch, n,
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
  double t0 = bench_now();
  if (!rc) rc = run_vncl(&r, 1);
  double one = bench_now() - t0;
  int inner = one > 0.02 ? 1 : (int)(0.02 / (one > 1e-5 ? one : 1e-5)) + 1;
  if (inner > 200) inner = 200;
  int reps = b->repeats;
  double *tv = calloc((size_t)reps, sizeof *tv);
  double *tc = calloc((size_t)reps, sizeof *tc);
  double *tf = calloc((size_t)reps, sizeof *tf);
  for (int k = 0; k < reps && !rc; k++) {
    t0 = bench_now();
    rc = run_vncl(&r, inner);
    tv[k] = (bench_now() - t0) / inner;
    if (with_clfft && !rc) {
      t0 = bench_now();
      rc = run_clfft(&r, inner);
      tc[k] = (bench_now() - t0) / inner;
    }
    t0 = bench_now();
    run_fftw(&r, inner);
    tf[k] = (bench_now() - t0) / inner;
  }
  bool correct = !rc && close_to_fftw(&r);
  double flops = 5.0 * (double)n * log2((double)n) * (double)batch;
  double sv, sc = 0, sf;
  double mv = bench_median(tv, reps, &sv);
  double mc = with_clfft ? bench_median(tc, reps, &sc) : 0;
  double mf = bench_median(tf, reps, &sf);
  char name[96];
  const char *alg = vncl_fft_plan_algorithm(r.plan);
  if (batch > 1)
    snprintf(name, sizeof name, "c2c %zu x %zu (%s)", batch, n, alg);
  else
    snprintf(name, sizeof name, "c2c %zu (%s)", n, alg);
  bench_case c = {0};
  c.suite = "fft";
  c.name = name;
  c.dtype = "f32";
  c.unit = "GFLOP/s";
  c.value = !rc && mv > 0 ? flops / mv * 1e-9 : 0;
  c.spread = sv;
  c.wall_seconds = mv;
  c.flops = flops;
  c.bytes = 2.0 * r.count * sizeof(float);
  c.correct = correct;
  c.m = (int)n;
  c.n = (int)batch;
  if (with_clfft) {
    /* Gated where vncl runs its own kernels (the device's default backend
     * chose them). Where the plan is "clfft", vncl enqueues the very same
     * clFFT kernels as the peer, and the ratio is 1 +- noise. */
    c.peer = "clfft";
    c.peer_value = mc > 0 ? flops / mc * 1e-9 : 0;
    c.peer_spread = sc;
    c.gate = strcmp(alg, "clfft") != 0;
    bench_record(b, &c);
  }
  c.peer = "fftw";
  c.peer_value = mf > 0 ? flops / mf * 1e-9 : 0;
  c.peer_spread = sf;
  c.gate = false;
  bench_record(b, &c);
  free(tv);
  free(tc);
  free(tf);
  run_free(&r);
  return rc;
}

int bench_suite_fft(bench_ctx *b) {
  /* Lengths clFFT does (powers of two, and 2^5 5^5) against clFFT and
   * FFTW; a prime through the Bluestein path against FFTW. */
  static const struct {
    size_t n, batch;
    bool clfft;
  } full[] = {{1u << 20, 1, true},
              {4096, 256, true},
              {100000, 1, true},
              {65537, 1, false}},
    quick[] = {{1u << 14, 1, true},
               {1024, 64, true},
               {1000, 16, true},
               {4099, 1, false}};
  const size_t count = 4;
  vncl_fft_stats s0, s1;
  vncl_fft_stats_get(b->ctx, &s0);
  int failed = 0;
  for (size_t i = 0; i < count; i++) {
    size_t n = b->quick ? quick[i].n : full[i].n;
    size_t batch = b->quick ? quick[i].batch : full[i].batch;
    bool with_clfft = b->quick ? quick[i].clfft : full[i].clfft;
    if (c2c_case(b, n, batch, with_clfft)) failed++;
  }
  vncl_fft_stats_get(b->ctx, &s1);
  printf("fft       %llu clFFT plan(s) baked in %.1f s for this suite\n",
         (unsigned long long)(s1.bakes - s0.bakes),
         s1.bake_seconds - s0.bake_seconds);
  return failed == (int)count ? -1 : 0;
}
