/* FFT: every plan type (C2C, R2C, C2R), 1-D to 3-D, f32 and f64, batched,
 * in and out of place, every normalization, the Bluestein path for lengths
 * clFFT cannot do, all checked element by element against FFTW in double
 * on fresh random inputs with NaN-poisoned outputs; the plan cache (a
 * repeated transform does not bake); clFFT's counted setup across contexts;
 * and every bad input (status, message, nothing written).
 *
 * clFFT bakes slowly on PoCL (up to seconds per configuration with an empty
 * driver cache), so the cases share configurations where they can. */
#include <fftw3.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define ctx t_ctx /* the shared fixture's context (common.c) */

/* clFFT 2.12 deletes its plan actions through a base-class pointer without
 * a virtual destructor (FFTRepo::deletePlan, reached from clfftDestroyPlan),
 * which AddressSanitizer reports as new-delete-type-mismatch. The bug is
 * clFFT's, outside vncl; only that one check is turned off, for this test
 * (the function is read by ASan at start-up; ASAN_OPTIONS still overrides). */
__attribute__((used)) const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) {
  return "new_delete_type_mismatch=0";
}

/* ---- host data in double, packed to and from tensors --------------------- */

static void pack(vncl_dtype t, const double *x, size_t n, void *out) {
  for (size_t i = 0; i < n; i++)
    if (t == VNCL_F64)
      ((double *)out)[i] = x[i];
    else
      ((float *)out)[i] = (float)x[i];
}
static void unpack(vncl_dtype t, const void *x, size_t n, double *out) {
  for (size_t i = 0; i < n; i++)
    out[i] = t == VNCL_F64 ? ((const double *)x)[i] : ((const float *)x)[i];
}

static vncl_tensor *tensor(vncl_dtype t, int nd, const int64_t *shape) {
  vncl_tensor *x = NULL;
  T_OK(ctx, vncl_tensor_create(ctx, t, nd, shape, &x));
  return x;
}

static void write_d(vncl_tensor *x, const double *v) {
  size_t n = vncl_tensor_numel(x);
  void *buf = malloc(vncl_tensor_bytes(x) + 1);
  pack(vncl_tensor_dtype(x), v, n, buf);
  T_OK(ctx, vncl_tensor_write(x, buf, vncl_tensor_bytes(x)));
  free(buf);
}
static void read_d(const vncl_tensor *x, double *v) {
  size_t n = vncl_tensor_numel(x);
  void *buf = malloc(vncl_tensor_bytes(x) + 1);
  T_OK(ctx, vncl_tensor_read(x, buf, vncl_tensor_bytes(x)));
  unpack(vncl_tensor_dtype(x), buf, n, v);
  free(buf);
}
static void poison(vncl_tensor *x) {
  size_t n = vncl_tensor_numel(x);
  double *v = malloc(n * sizeof *v + 1);
  for (size_t i = 0; i < n; i++) v[i] = NAN;
  write_d(x, v);
  free(v);
}

/* ---- FFTW reference ------------------------------------------------------ */

/* Unscaled DFT in double of `batch` signals of lengths n[0..nd) (row-major).
 * C2C: sign -1 forward / +1 inverse on complex data; R2C: real -> half;
 * C2R: half -> real. Buffers contiguous. */
static void ref_fft(vncl_fft_type type, int sign, int nd, const int *n,
                    int batch, const double *in, double *out) {
  size_t total = 1;
  for (int i = 0; i < nd; i++) total *= (size_t)n[i];
  size_t half = total / (size_t)n[nd - 1] * (size_t)(n[nd - 1] / 2 + 1);
  fftw_plan p;
  if (type == VNCL_FFT_C2C) {
    fftw_complex *a = fftw_alloc_complex(total * batch);
    memcpy(a, in, total * batch * sizeof *a);
    p = fftw_plan_many_dft(nd, n, batch, a, NULL, 1, (int)total,
                           (fftw_complex *)out, NULL, 1, (int)total, sign,
                           FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_free(a);
  } else if (type == VNCL_FFT_R2C) {
    double *a = fftw_alloc_real(total * batch);
    memcpy(a, in, total * batch * sizeof *a);
    p = fftw_plan_many_dft_r2c(nd, n, batch, a, NULL, 1, (int)total,
                               (fftw_complex *)out, NULL, 1, (int)half,
                               FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_free(a);
  } else {
    fftw_complex *a = fftw_alloc_complex(half * batch);
    memcpy(a, in, half * batch * sizeof *a);
    p = fftw_plan_many_dft_c2r(nd, n, batch, a, NULL, 1, (int)half, out, NULL,
                               1, (int)total, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_free(a);
  }
  fftw_destroy_plan(p);
}

static double norm_scale(vncl_fft_norm norm, bool forward, double n) {
  switch (norm) {
    case VNCL_FFT_NORM_BACKWARD: return forward ? 1 : 1 / n;
    case VNCL_FFT_NORM_ORTHO: return 1 / sqrt(n);
    case VNCL_FFT_NORM_FORWARD: return forward ? 1 / n : 1;
    case VNCL_FFT_NORM_NONE: return 1;
  }
  return 1;
}

/* Worst error measured, in units of the tolerance, for the log. */
static double worst_ratio;

/* Every element of got (count values) against ref: finite, and within
 * k * eps * log2(len) * rms(ref), the growth of an FFT's rounding error. */
static void check_close(const char *what, vncl_dtype t, const double *got,
                        const double *ref, size_t count, double len, double k) {
  double rms = 0;
  for (size_t i = 0; i < count; i++) rms += ref[i] * ref[i];
  rms = sqrt(rms / (double)(count ? count : 1));
  double eps = t == VNCL_F64 ? DBL_EPSILON : FLT_EPSILON;
  double tol = k * eps * fmax(1.0, log2(len)) * fmax(rms, 1e-300);
  for (size_t i = 0; i < count; i++) {
    double e = fabs(got[i] - ref[i]);
    if (!(e <= tol))
      fail_msg(
          "%s: element %zu is %.17g, FFTW says %.17g (error %.3g, "
          "tolerance %.3g)",
          what, i, got[i], ref[i], e, tol);
    if (e / tol > worst_ratio) worst_ratio = e / tol;
  }
}

/* ---- one configuration, forward and back ----------------------------------
 */

typedef struct fcase {
  vncl_fft_type type; /* C2C or R2C (R2C also checks the C2R plan back) */
  vncl_dtype dtype;
  int nd;
  int n[3];
  int batch;
  int in_place;
  vncl_fft_norm norm;
  int backends; /* bit 1: run with clFFT, bit 2: with vncl's kernels */
} fcase;

/* The backend a case runs with now (set by the loops below). */
static vncl_fft_backend backend_now = VNCL_FFT_BACKEND_AUTO;

static void desc_of(const fcase *c, vncl_fft_type type, vncl_fft_desc *d) {
  vncl_fft_desc_init(d);
  d->type = type;
  d->dtype = c->dtype;
  d->ndim = c->nd;
  for (int i = 0; i < c->nd; i++) d->n[i] = c->n[i];
  d->batch = c->batch;
  d->in_place = c->in_place;
  d->norm = c->norm;
  d->backend = backend_now;
}

/* Whether n has no prime factor but the first `k` of 2, 3, 5, 7, 11, 13. */
static bool factors_in(int n, int k) {
  static const int r[] = {2, 3, 5, 7, 11, 13};
  for (int i = 0; i < k; i++)
    while (n % r[i] == 0) n /= r[i];
  return n == 1;
}

static bool is_prime(int n) {
  if (n < 2) return false;
  for (int d = 2; d * d <= n; d++)
    if (n % d == 0) return false;
  return true;
}

/* Whether vncl's kernels take length n by Rader: a prime above 13 whose
 * n - 1 has prime factors up to 13 (every such n - 1 in these cases has a
 * four-step split). */
static bool rader_length(int n) {
  return n > 13 && is_prime(n) && factors_in(n - 1, 6);
}

/* What vncl_fft_plan_algorithm must say for the case and backend: clFFT
 * and vncl's Stockham kernels both do prime factors up to 13; vncl's
 * kernels do primes p with a 13-smooth p - 1 by Rader, clFFT's backend
 * every other length by Bluestein, and vncl's the rest. */
static const char *expected_algorithm(const fcase *c) {
  bool prime = false, rader = false, sk_any = false, sk_all = true;
  bool own = backend_now != VNCL_FFT_BACKEND_CLFFT;
  for (int i = 0; i < c->nd; i++) {
    int n = c->n[i];
    if (!factors_in(n, 6)) {
      if (own && rader_length(n))
        rader = true;
      else
        prime = true;
    }
    bool sk = n > 1 && factors_in(n, 6);
    sk_any |= sk;
    if (n > 1) sk_all &= sk;
  }
  if (prime) return "bluestein";
  if (rader) return "rader";
  if (backend_now == VNCL_FFT_BACKEND_CLFFT || !sk_any) return "clfft";
  return sk_all ? "stockham" : "axes";
}

static bool slow_path(const fcase *c) {
  return strcmp(expected_algorithm(c), "clfft") != 0 &&
         strcmp(expected_algorithm(c), "stockham") != 0;
}

/* Shape [batch dims..., tail...]: a batch of 6 as [2, 3] to check that any
 * run of leading dimensions works. */
static int shape_of(const fcase *c, const int64_t *tail, int ntail,
                    int64_t *out) {
  int k = 0;
  if (c->batch == 6) {
    out[k++] = 2;
    out[k++] = 3;
  } else if (c->batch > 1) {
    out[k++] = c->batch;
  }
  for (int i = 0; i < ntail; i++) out[k++] = tail[i];
  return k;
}

static void run_c2c(const fcase *c) {
  char what[160];
  snprintf(what, sizeof what, "C2C %s %dx%dx%d batch %d %s norm %d (%s)",
           vncl_dtype_name(c->dtype), c->n[0], c->nd > 1 ? c->n[1] : 1,
           c->nd > 2 ? c->n[2] : 1, c->batch,
           c->in_place ? "in place" : "out of place", (int)c->norm,
           expected_algorithm(c));
  vncl_fft_desc d;
  desc_of(c, VNCL_FFT_C2C, &d);
  vncl_fft_plan *p;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &p));
  if (strcmp(vncl_fft_plan_algorithm(p), expected_algorithm(c)))
    fail_msg("%s: algorithm %s", what, vncl_fft_plan_algorithm(p));
  int64_t tail[4], shape[8];
  size_t total = 1;
  for (int i = 0; i < c->nd; i++) {
    tail[i] = c->n[i];
    total *= (size_t)c->n[i];
  }
  tail[c->nd] = 2;
  int nds = shape_of(c, tail, c->nd + 1, shape);
  size_t count = 2 * total * (size_t)c->batch;
  double *x = malloc(count * sizeof *x), *y = malloc(count * sizeof *y);
  double *ref = malloc(count * sizeof *ref), *x2 = malloc(count * sizeof *x2);
  for (size_t i = 0; i < count; i++) x[i] = t_rand_uniform(-1, 1);
  vncl_tensor *in = tensor(c->dtype, nds, shape);
  vncl_tensor *out = c->in_place ? in : tensor(c->dtype, nds, shape);
  write_d(in, x);
  if (!c->in_place) poison(out);
  /* The tensor holds x rounded to its dtype: that is the reference input. */
  read_d(in, x);
  T_OK(ctx, vncl_fft_execute(p, VNCL_FFT_FORWARD, in, out));
  read_d(out, y);
  ref_fft(VNCL_FFT_C2C, FFTW_FORWARD, c->nd, c->n, c->batch, x, ref);
  double fs = norm_scale(c->norm, true, (double)total);
  for (size_t i = 0; i < count; i++) ref[i] *= fs;
  double k = slow_path(c) ? 8 : 4;
  check_close(what, c->dtype, y, ref, count, (double)total, k);
  if (!c->in_place) {
    read_d(in, x2);
    for (size_t i = 0; i < count; i++)
      if (x2[i] != x[i]) fail_msg("%s: the input changed at %zu", what, i);
  }
  /* Inverse of what the device produced, against FFTW's inverse of it. */
  if (!c->in_place) poison(in);
  T_OK(ctx, vncl_fft_execute(p, VNCL_FFT_INVERSE, out, in));
  read_d(in, x2);
  ref_fft(VNCL_FFT_C2C, FFTW_BACKWARD, c->nd, c->n, c->batch, y, ref);
  double is = norm_scale(c->norm, false, (double)total);
  for (size_t i = 0; i < count; i++) ref[i] *= is;
  check_close(what, c->dtype, x2, ref, count, (double)total, k);
  /* And the round trip gives x back, times N for NORM_NONE. */
  for (size_t i = 0; i < count; i++) ref[i] = x[i] * fs * is * (double)total;
  check_close(what, c->dtype, x2, ref, count, (double)total, 2 * k);
  vncl_tensor_destroy(in);
  if (!c->in_place) vncl_tensor_destroy(out);
  vncl_fft_plan_destroy(p);
  free(x);
  free(y);
  free(ref);
  free(x2);
}

/* R2C forward then the matching C2R plan back. */
static void run_real(const fcase *c) {
  char what[160];
  snprintf(what, sizeof what, "R2C/C2R %s %dx%dx%d batch %d %s norm %d (%s)",
           vncl_dtype_name(c->dtype), c->n[0], c->nd > 1 ? c->n[1] : 1,
           c->nd > 2 ? c->n[2] : 1, c->batch,
           c->in_place ? "in place" : "out of place", (int)c->norm,
           expected_algorithm(c));
  vncl_fft_desc d;
  vncl_fft_plan *pf, *pb;
  desc_of(c, VNCL_FFT_R2C, &d);
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &pf));
  desc_of(c, VNCL_FFT_C2R, &d);
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &pb));
  if (strcmp(vncl_fft_plan_algorithm(pf), expected_algorithm(c)) ||
      strcmp(vncl_fft_plan_algorithm(pb), expected_algorithm(c)))
    fail_msg("%s: algorithms %s/%s", what, vncl_fft_plan_algorithm(pf),
             vncl_fft_plan_algorithm(pb));
  int last = c->n[c->nd - 1], h = last / 2 + 1;
  size_t total = 1;
  int64_t rtail[3], ctail[4], rshape[8], cshape[8];
  for (int i = 0; i < c->nd; i++) {
    rtail[i] = ctail[i] = c->n[i];
    total *= (size_t)c->n[i];
  }
  ctail[c->nd - 1] = h;
  ctail[c->nd] = 2;
  int nr = shape_of(c, rtail, c->nd, rshape);
  int nc = shape_of(c, ctail, c->nd + 1, cshape);
  size_t rows = total / (size_t)last * (size_t)c->batch;
  size_t rcount = rows * (size_t)last, ccount = rows * (size_t)h * 2;
  double *x = malloc(rcount * sizeof *x), *ref = malloc(ccount * sizeof *ref);
  double *y = malloc(ccount * sizeof *y), *x2 = malloc(rcount * sizeof *x2);
  double *pad = malloc(ccount * sizeof *pad);
  for (size_t i = 0; i < rcount; i++) x[i] = t_rand_uniform(-1, 1);
  /* The values as the dtype holds them. */
  for (size_t i = 0; c->dtype == VNCL_F32 && i < rcount; i++)
    x[i] = (float)x[i];
  vncl_tensor *cx = tensor(c->dtype, nc, cshape), *rx = NULL;
  if (c->in_place) {
    /* Real rows padded to 2h values, the rest NaN (never read). */
    for (size_t r = 0; r < rows; r++)
      for (int j = 0; j < 2 * h; j++)
        pad[r * 2 * h + j] = j < last ? x[r * last + j] : NAN;
    write_d(cx, pad);
    T_OK(ctx, vncl_fft_execute(pf, VNCL_FFT_FORWARD, cx, cx));
  } else {
    rx = tensor(c->dtype, nr, rshape);
    write_d(rx, x);
    poison(cx);
    T_OK(ctx, vncl_fft_execute(pf, VNCL_FFT_FORWARD, rx, cx));
    read_d(rx, x2);
    for (size_t i = 0; i < rcount; i++)
      if (x2[i] != x[i]) fail_msg("%s: R2C changed its input at %zu", what, i);
  }
  read_d(cx, y);
  ref_fft(VNCL_FFT_R2C, -1, c->nd, c->n, c->batch, x, ref);
  double fs = norm_scale(c->norm, true, (double)total);
  for (size_t i = 0; i < ccount; i++) ref[i] *= fs;
  double k = slow_path(c) ? 8 : 4;
  check_close(what, c->dtype, y, ref, ccount, (double)total, k);

  /* C2R of the device's spectrum against FFTW's C2R of it. */
  double is = norm_scale(c->norm, false, (double)total);
  ref_fft(VNCL_FFT_C2R, 1, c->nd, c->n, c->batch, y, x2);
  for (size_t i = 0; i < rcount; i++) x2[i] *= is;
  if (c->in_place) {
    T_OK(ctx, vncl_fft_execute(pb, VNCL_FFT_INVERSE, cx, cx));
    read_d(cx, pad);
    for (size_t r = 0; r < rows; r++)
      for (int j = 0; j < last; j++) ref[r * last + j] = pad[r * 2 * h + j];
  } else {
    poison(rx);
    T_OK(ctx, vncl_fft_execute(pb, VNCL_FFT_INVERSE, cx, rx));
    read_d(rx, ref);
  }
  check_close(what, c->dtype, ref, x2, rcount, (double)total, k);
  /* Round trip: x times fs * is * N. */
  for (size_t i = 0; i < rcount; i++) x2[i] = x[i] * fs * is * (double)total;
  check_close(what, c->dtype, ref, x2, rcount, (double)total, 2 * k);
  vncl_tensor_destroy(cx);
  vncl_tensor_destroy(rx);
  vncl_fft_plan_destroy(pf);
  vncl_fft_plan_destroy(pb);
  free(x);
  free(ref);
  free(y);
  free(x2);
  free(pad);
}

#define C2C VNCL_FFT_C2C
#define R2C VNCL_FFT_R2C
#define BACK VNCL_FFT_NORM_BACKWARD
#define BOTH 3
#define CLFFT 1
#define VNCL 2

/* Runs every case with each backend its mask names. */
static void run_cases(const fcase *cases, size_t count) {
  static const vncl_fft_backend order[2] = {VNCL_FFT_BACKEND_CLFFT,
                                            VNCL_FFT_BACKEND_VNCL};
  for (int b = 0; b < 2; b++)
    for (size_t i = 0; i < count; i++) {
      if (!(cases[i].backends & (1 << b))) continue;
      backend_now = order[b];
      if (cases[i].type == VNCL_FFT_C2C)
        run_c2c(&cases[i]);
      else
        run_real(&cases[i]);
    }
  backend_now = VNCL_FFT_BACKEND_AUTO;
}

static void test_c2c(void **st) {
  (void)st;
  static const fcase cases[] = {
      {C2C, VNCL_F32, 1, {1024}, 3, 0, BACK, BOTH},
      {C2C, VNCL_F32, 1, {1024}, 3, 1, BACK, BOTH},
      {C2C, VNCL_F64, 1, {360}, 6, 1, BACK, BOTH}, /* 1/360: vncl scales */
      {C2C, VNCL_F64, 1, {360}, 6, 1, VNCL_FFT_NORM_ORTHO, CLFFT},
      {C2C, VNCL_F32, 2, {12, 20}, 2, 0, BACK, CLFFT},
      {C2C, VNCL_F64, 3, {4, 6, 10}, 1, 1, VNCL_FFT_NORM_FORWARD, BOTH},
      {C2C, VNCL_F32, 3, {8, 5, 6}, 6, 0, VNCL_FFT_NORM_NONE, BOTH},
      {C2C, VNCL_F32, 1, {1}, 4, 0, BACK, BOTH},
      /* vncl's kernels: odd and even powers, every axis, partial groups
       * of lines, and lengths split in two (four-step, n > 4096). */
      {C2C, VNCL_F32, 1, {2}, 3, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {8}, 11, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F32, 2, {32, 16}, 3, 0, BACK, VNCL},
      {C2C, VNCL_F64, 3, {4, 2, 8}, 6, 1, BACK, VNCL},
      {C2C, VNCL_F32, 1, {16384}, 2, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {32768}, 1, 1, VNCL_FFT_NORM_FORWARD, VNCL},
      {C2C, VNCL_F32, 1, {1 << 20}, 1, 0, BACK, VNCL},
      {C2C, VNCL_F32, 2, {8192, 4}, 1, 0, BACK, VNCL},
      /* Fewer lines than a work-item's lanes of a one-pass length (CPU
       * table: 1 to 7 lines of 1024 and up) run split in two as well: one
       * line, a strided axis of 3 lines in place, 7 lines in place. */
      {C2C, VNCL_F32, 1, {4096}, 1, 0, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F64, 2, {2048, 3}, 1, 1, BACK, VNCL},
      {C2C, VNCL_F32, 1, {1536}, 7, 1, VNCL_FFT_NORM_FORWARD, VNCL},
      /* The AMD CPU row splits 1 to 15 lines (not 8) of 256 and up: one
       * line of 300 (15 x 20), 13 lines of 512 in place, 10 of 768 in f64
       * (one pass on the other rows). */
      {C2C, VNCL_F32, 1, {300}, 1, 0, VNCL_FFT_NORM_FORWARD, VNCL},
      {C2C, VNCL_F32, 1, {512}, 13, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F64, 1, {768}, 10, 0, BACK, VNCL},
      /* Batches of lines of 2, 4, 8 (fft_stockham_short, blocks of 64
       * values) and 16 (fft_stockham_short16, groups of 8 lines) in
       * registers: odd batches ending in a partial block, in
       * and out of place, f32 and f64, a last axis of 8 under an outer
       * axis, and whole blocks only (8 x 64). */
      {C2C, VNCL_F32, 1, {8}, 1037, 0, VNCL_FFT_NORM_FORWARD, VNCL},
      {C2C, VNCL_F64, 1, {8}, 515, 1, BACK, VNCL},
      {C2C, VNCL_F64, 1, {4}, 333, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F32, 1, {4}, 4097, 0, BACK, VNCL},
      {C2C, VNCL_F32, 1, {2}, 4099, 1, VNCL_FFT_NORM_NONE, VNCL},
      {C2C, VNCL_F64, 1, {2}, 97, 0, BACK, VNCL},
      {C2C, VNCL_F64, 2, {3, 8}, 37, 0, VNCL_FFT_NORM_NONE, VNCL},
      {C2C, VNCL_F32, 1, {8}, 64, 0, BACK, VNCL},
      {C2C, VNCL_F32, 1, {16}, 1029, 0, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F64, 1, {16}, 77, 1, BACK, VNCL},
      {C2C, VNCL_F64, 2, {5, 16}, 8, 0, VNCL_FFT_NORM_FORWARD, VNCL},
      /* Radix 3 and 5, split ones (100000 = 250 x 400, 3^9 = 81 x 243),
       * and an axis of 7 left to clFFT beside a Stockham one. */
      {C2C, VNCL_F32, 1, {15}, 7, 0, BACK, VNCL},
      {C2C, VNCL_F64, 2, {27, 25}, 2, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F32, 1, {100000}, 1, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {19683}, 1, 1, BACK, VNCL},
      /* Radix 10 (a 2 x 5 pass, where it saves one): alone with a partial
       * line group, twice (100 = 10 10), after radix 8 (2000 = 8 10 5 5),
       * with 3 (30), a strided axis, both steps of a split (100000 =
       * 250 x 400: 10 5 5 and 8 10 5) batched and in place, f32 and f64;
       * 5^5 and 20 = 4 x 5, which keep radix 5 and 4 alone. */
      {C2C, VNCL_F32, 1, {10}, 13, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {100}, 9, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F32, 1, {2000}, 3, 1, VNCL_FFT_NORM_FORWARD, VNCL},
      {C2C, VNCL_F64, 2, {50, 30}, 2, 0, BACK, VNCL},
      {C2C, VNCL_F32, 3, {10, 4, 250}, 1, 0, VNCL_FFT_NORM_NONE, VNCL},
      {C2C, VNCL_F64, 1, {100000}, 2, 1, BACK, VNCL},
      {C2C, VNCL_F32, 1, {100000}, 3, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F32, 1, {3125}, 2, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {20}, 5, 0, BACK, VNCL},
      {C2C, VNCL_F32, 2, {7, 16}, 3, 0, BACK, VNCL},
      /* Radix 7, 11 and 13 (Stockham with the vncl backend): each alone,
       * powers, mixed with 2, 3, 5, partial line groups, every axis, a
       * split length (7^6 = 343 x 343; 2^10 13^2 = 416 x 416) and
       * 7 11 13 = 1001 in one pass. */
      {C2C, VNCL_F64, 1, {7}, 3, 0, BACK, BOTH},
      {C2C, VNCL_F32, 1, {11}, 9, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F64, 1, {13}, 5, 0, VNCL_FFT_NORM_FORWARD, VNCL},
      {C2C, VNCL_F32, 1, {49}, 2, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {1001}, 3, 0, BACK, BOTH},
      {C2C, VNCL_F32, 1, {1001}, 3, 1, BACK, VNCL},
      {C2C, VNCL_F64, 1, {2 * 3 * 5 * 7 * 11 * 13}, 1, 0, BACK, VNCL},
      {C2C, VNCL_F32, 1, {117649}, 1, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {173056}, 1, 1, BACK, VNCL},
      {C2C, VNCL_F32, 2, {14, 22}, 6, 0, VNCL_FFT_NORM_NONE, VNCL},
      {C2C, VNCL_F64, 3, {13, 11, 7}, 1, 1, BACK, VNCL},
      {C2C, VNCL_F32, 1, {1331}, 8, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {2197}, 2, 0, BACK, VNCL},
      /* Split lengths in batches larger than one block (CPU devices run
       * the four-step on blocks of whole transforms of up to 1 MiB, both
       * steps per block): 16384 f32 (128 KiB, blocks of 8: 8, 8, 3),
       * 8192 f64 in place (blocks of 8, the last of 5), a split first
       * axis of a 2-D transform (4500 x 24: one transform per block),
       * and Rader over a split convolution (65536, two per block). */
      {C2C, VNCL_F32, 1, {16384}, 19, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {8192}, 37, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F32, 2, {4500, 24}, 5, 0, VNCL_FFT_NORM_FORWARD, VNCL},
      {C2C, VNCL_F32, 1, {65537}, 3, 1, BACK, VNCL},
  };
  run_cases(cases, sizeof cases / sizeof *cases);
}

static void test_real(void **st) {
  (void)st;
  static const fcase cases[] = {
      {R2C, VNCL_F32, 1, {100}, 4, 0, BACK, CLFFT},
      {R2C, VNCL_F64, 1, {45}, 6, 1, BACK, CLFFT}, /* odd, in place */
      {R2C, VNCL_F64, 2, {16, 18}, 1, 0, VNCL_FFT_NORM_ORTHO, BOTH},
      {R2C, VNCL_F32, 3, {6, 8, 10}, 2, 1, BACK, BOTH},
      {R2C, VNCL_F32, 1, {256}, 5, 0, BACK, BOTH},
      {R2C, VNCL_F64, 2, {8, 64}, 1, 1, VNCL_FFT_NORM_NONE, VNCL},
      /* Radix 7, 11, 13 through the real layouts: odd and even last
       * lengths, in and out of place, 1-D batched and 2-D. */
      {R2C, VNCL_F32, 1, {77}, 3, 0, BACK, VNCL},
      {R2C, VNCL_F64, 1, {26}, 6, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F64, 2, {13, 14}, 2, 0, BACK, VNCL},
      {R2C, VNCL_F32, 2, {22, 91}, 1, 1, BACK, VNCL},
  };
  run_cases(cases, sizeof cases / sizeof *cases);
}

/* Even last lengths on vncl's kernels run as one complex transform of half
 * the length (the n reals of a row as n/2 complex values) with a split
 * (R2C) or a pre-processing (C2R) pass around it: every class of even
 * length (n = 2, 4, 6, powers of two, 2^a 3^b 5^c 7^d, with 11 and 13, a
 * half above one Stockham pass, whose R2C fuses the split into its second
 * step), 1-D batched, 2-D and 3-D (outer axes on
 * Stockham, Rader and Bluestein over the half spectrum), in and out of
 * place, f32 and f64, every norm (a split half's C2R with the
 * pre-processing in its first step); odd lengths beside them keep the
 * full-length path. */
static void test_real_half(void **st) {
  (void)st;
  static const fcase cases[] = {
      {R2C, VNCL_F32, 1, {2}, 5, 0, BACK, VNCL},
      {R2C, VNCL_F64, 1, {2}, 1, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F64, 1, {4}, 3, 1, BACK, VNCL},
      {R2C, VNCL_F32, 1, {4}, 1, 0, VNCL_FFT_NORM_FORWARD, VNCL},
      {R2C, VNCL_F32, 1, {6}, 6, 0, VNCL_FFT_NORM_FORWARD, VNCL},
      {R2C, VNCL_F64, 1, {6}, 2, 1, VNCL_FFT_NORM_NONE, VNCL},
      {R2C, VNCL_F32, 1, {1024}, 3, 1, BACK, VNCL},
      {R2C, VNCL_F64, 1, {4096}, 2, 0, BACK, VNCL},
      /* halves of 1024 and up in fewer rows than a work-item's lanes: split
       * in two (few_lines) on the CPU table; in place, and under an outer
       * axis */
      {R2C, VNCL_F32, 1, {8192}, 1, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F32, 2, {5, 2048}, 1, 0, BACK, VNCL},
      {R2C, VNCL_F64, 1, {1260}, 2, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F32, 1, {840}, 6, 0, VNCL_FFT_NORM_NONE, VNCL},
      {R2C, VNCL_F32, 1, {286}, 2, 1, BACK, VNCL}, /* 2 11 13 */
      {R2C, VNCL_F64, 1, {22}, 3, 0, BACK, VNCL},
      {R2C, VNCL_F64, 1, {2 * 13 * 13}, 1, 1, BACK, VNCL},
      /* Halves above one pass: 4500 = 60 x 75, 8192 = 64 x 128. */
      {R2C, VNCL_F32, 1, {9000}, 1, 0, BACK, VNCL},
      {R2C, VNCL_F64, 1, {16384}, 1, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      /* R2C of a split half runs the split inside the second step
       * (fft_stockham_r2c, lines k1 and n1 - k1 together): an odd first
       * factor (5625 = 75 x 75), in place, several rows, rows in blocks
       * (2^17 = 256 x 512, 1 MiB a row in f32: one row per block), and an
       * outer axis after it. */
      {R2C, VNCL_F32, 1, {11250}, 3, 0, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F64, 1, {11250}, 2, 1, BACK, VNCL},
      {R2C, VNCL_F32, 1, {1 << 18}, 3, 1, VNCL_FFT_NORM_FORWARD, VNCL},
      {R2C, VNCL_F32, 2, {3, 9000}, 2, 0, BACK, VNCL},
      /* C2R of a split half runs the pre-processing inside the first
       * step's gather (fft_stockham_c2r2, lines j2 and n2 - j2
       * together): odd batches in and out of place, an odd first
       * factor, f64 rows in blocks of one (2^17: 256 x 256, 1 MiB a
       * row), outer axes before it in place. */
      {R2C, VNCL_F32, 1, {11250}, 5, 1, VNCL_FFT_NORM_NONE, VNCL},
      {R2C, VNCL_F64, 1, {1 << 15}, 3, 1, VNCL_FFT_NORM_FORWARD, VNCL},
      {R2C, VNCL_F64, 1, {1 << 17}, 3, 0, BACK, VNCL},
      {R2C, VNCL_F64, 2, {5, 16384}, 1, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      /* One-pass halves run the split inside the pass
       * (fft_stockham_r2c1): full and partial groups of rows (11 = 8 + 3,
       * 9 = 8 + 1), an odd half (1001) in place. */
      {R2C, VNCL_F32, 1, {1000}, 11, 0, BACK, VNCL},
      {R2C, VNCL_F64, 1, {2002}, 9, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F32, 2, {5, 12}, 3, 0, BACK, VNCL},
      {R2C, VNCL_F64, 2, {7, 2}, 2, 1, BACK, VNCL},
      {R2C, VNCL_F32, 2, {13, 22}, 1, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F64, 2, {64, 128}, 1, 0, BACK, VNCL},
      {R2C, VNCL_F64, 3, {3, 5, 14}, 2, 0, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F32, 3, {4, 6, 2}, 1, 1, BACK, VNCL},
      {R2C, VNCL_F32, 3, {8, 1, 10}, 6, 0, VNCL_FFT_NORM_NONE, VNCL},
      /* Outer axes off Stockham: Rader (17) and Bluestein (47). */
      {R2C, VNCL_F64, 2, {17, 8}, 1, 0, BACK, VNCL},
      {R2C, VNCL_F32, 2, {47, 6}, 2, 1, BACK, VNCL},
      {R2C, VNCL_F32, 3, {2, 17, 4}, 1, 1, VNCL_FFT_NORM_FORWARD, VNCL},
      /* Radix 10 in both steps of a split half (m = 100000 = 250 x 400:
       * fft_stockham_r2c and fft_stockham_c2r2), f64, in place. */
      {R2C, VNCL_F64, 1, {200000}, 2, 1, BACK, VNCL},
      /* The strided factor of the split twiddle W^k from its own short
       * table (length 2 n2 for R2C, 2 n1 for C2R: 150 and 120 for m =
       * 4500 = 60 x 75, 1024 and 512 for 2^19): odd batches under an
       * outer axis, in place in f64, out of place in f32. */
      {R2C, VNCL_F64, 2, {3, 9000}, 3, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F32, 2, {3, 1 << 20}, 1, 0, BACK, VNCL},
      /* Odd beside them (the full-length path), and clFFT unchanged. */
      {R2C, VNCL_F32, 1, {15}, 2, 1, BACK, VNCL},
      {R2C, VNCL_F64, 2, {4, 9}, 1, 0, BACK, VNCL},
      {R2C, VNCL_F32, 1, {6}, 2, 1, BACK, CLFFT},
      {R2C, VNCL_F64, 2, {6, 20}, 1, 0, BACK, CLFFT},
  };
  run_cases(cases, sizeof cases / sizeof *cases);
}

/* The scratch and tables a plan holds, in a fresh context (its own
 * scratch only: scratch is shared by a context's plans and only grows). */
static uint64_t fresh_plan_bytes(vncl_fft_type type, vncl_dtype t, int n,
                                 int batch, int in_place) {
  vncl_context *c = t_context("off");
  assert_non_null(c);
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.type = type;
  d.dtype = t;
  d.n[0] = n;
  d.batch = batch;
  d.in_place = in_place;
  d.backend = VNCL_FFT_BACKEND_VNCL;
  vncl_fft_plan *p;
  T_OK(c, vncl_fft_plan_create(c, &d, &p));
  vncl_fft_stats s;
  T_OK(c, vncl_fft_stats_get(c, &s));
  vncl_fft_plan_destroy(p);
  vncl_context_destroy(c);
  return s.device_bytes;
}

/* Real transforms of even n = 2m on the half-length path reserve only
 * what their kernels use: where the split (R2C) or the pre-processing
 * (C2R) runs inside the Stockham kernels, no `rows x m` workspace, in
 * place included (the kernels read the padded rows themselves). With m in
 * one pass, R2C and C2R of n hold what the C2C of m holds (same passes,
 * same scratch) plus the length-n twiddle table, n complex values. C2R of
 * a split m pairs lines j2 and n2 - j2 in its first step, two groups of
 * lines per work-item (at most 4 n1 VW values more than the C2C's per
 * work-item, for at most compute units x 4 work-items): less than the
 * batch x m complex values of a workspace for a batch above the compute
 * units. Each case also runs, in a context of its own, against FFTW:
 * what the plan reserved is all its execution has. */
static void test_real_scratch(void **st) {
  (void)st;
  vncl_device_info info;
  T_OK(ctx, vncl_context_device_info(ctx, &info));
  const int cu = (int)(info.compute_units ? info.compute_units : 1);
  static const struct {
    vncl_fft_type type;
    vncl_dtype t;
    int n, batch, in_place, split;
  } mem[] = {
      /* m = 1000, one pass: batches of 17 and 19 rows (partial groups of
       * lanes) are at least every row's few_lines (16 at most), so no row
       * of the per-device table splits them, nor the C2C of m they are
       * held to */
      {VNCL_FFT_C2R, VNCL_F32, 2000, 19, 0, 0},
      {VNCL_FFT_C2R, VNCL_F64, 2002, 17, 1, 0}, /* in place */
      {VNCL_FFT_R2C, VNCL_F32, 2000, 19, 1, 0},
      {VNCL_FFT_R2C, VNCL_F64, 4096, 17, 0, 0},
      /* m = 75 x 75 and 128 x 128; batch: compute units + 2 */
      {VNCL_FFT_C2R, VNCL_F32, 11250, 0, 1, 1},
      {VNCL_FFT_C2R, VNCL_F64, 1 << 15, 0, 0, 1},
  };
  for (size_t i = 0; i < sizeof mem / sizeof *mem; i++) {
    if (mem[i].t == VNCL_F64 && !t_has_fp64()) continue;
    int n = mem[i].n, m = n / 2, b = mem[i].split ? cu + 2 : mem[i].batch;
    size_t real = vncl_dtype_size(mem[i].t);
    uint64_t got =
        fresh_plan_bytes(mem[i].type, mem[i].t, n, b, mem[i].in_place);
    uint64_t c2c = fresh_plan_bytes(VNCL_FFT_C2C, mem[i].t, m, b,
                                    mem[i].in_place);
    uint64_t table = (uint64_t)n * 2 * real;
    uint64_t work = (uint64_t)b * (uint64_t)m * 2 * real;
    if (mem[i].split ? got >= c2c + table + work : got > c2c + table)
      fail_msg("%s %s %d x %d %s: %llu bytes of scratch and tables, the C2C "
               "of %d holds %llu, the length-%d twiddles %llu (a workspace "
               "would be %llu more)",
               mem[i].type == VNCL_FFT_C2R ? "C2R" : "R2C",
               vncl_dtype_name(mem[i].t), b, n,
               mem[i].in_place ? "in place" : "out of place",
               (unsigned long long)got, m, (unsigned long long)c2c, n,
               (unsigned long long)table, (unsigned long long)work);
  }
  /* Every kind of half-length run in a context of its own: one pass and
   * split, R2C and C2R, in and out of place, odd batches, 2-D, and n = 2
   * (the separate passes, which keep the workspace). */
  static const fcase cases[] = {
      {R2C, VNCL_F32, 1, {1000}, 11, 0, BACK, VNCL},
      {R2C, VNCL_F32, 1, {1000}, 11, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      {R2C, VNCL_F64, 1, {2002}, 9, 1, BACK, VNCL},
      {R2C, VNCL_F32, 1, {11250}, 3, 1, VNCL_FFT_NORM_NONE, VNCL},
      {R2C, VNCL_F64, 1, {1 << 17}, 3, 1, BACK, VNCL},
      {R2C, VNCL_F32, 1, {1 << 17}, 1, 0, BACK, VNCL},
      {R2C, VNCL_F32, 2, {3, 9000}, 2, 1, BACK, VNCL},
      {R2C, VNCL_F64, 2, {5, 12}, 3, 1, VNCL_FFT_NORM_FORWARD, VNCL},
      {R2C, VNCL_F32, 1, {2}, 5, 1, BACK, VNCL},
      {R2C, VNCL_F64, 1, {2}, 3, 0, BACK, VNCL},
  };
  vncl_context *shared = t_ctx;
  const bool f64 = t_has_fp64(); /* of t_ctx, swapped below */
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    if (cases[i].dtype == VNCL_F64 && !f64) continue;
    t_ctx = t_context("off");
    assert_non_null(t_ctx);
    backend_now = VNCL_FFT_BACKEND_VNCL;
    run_real(&cases[i]);
    backend_now = VNCL_FFT_BACKEND_AUTO;
    vncl_context_destroy(t_ctx);
  }
  t_ctx = shared;
}

static void test_bluestein(void **st) {
  (void)st;
  static const fcase cases[] = {
      {C2C, VNCL_F32, 1, {17}, 5, 0, BACK, BOTH},
      {C2C, VNCL_F64, 1, {97}, 1, 1, BACK, BOTH},
      {C2C, VNCL_F32, 1, {1009}, 2, 0, VNCL_FFT_NORM_ORTHO, BOTH},
      /* Mixed: a prime axis (strided) and a clFFT one (contiguous). */
      {C2C, VNCL_F32, 2, {17, 12}, 1, 1, BACK, BOTH},
      /* A strided clFFT axis (gathered lines) and a prime middle axis. */
      {C2C, VNCL_F64, 3, {4, 19, 6}, 2, 0, VNCL_FFT_NORM_FORWARD, BOTH},
      /* A convolution longer than one Stockham pass (m = 8640 = 90 x 96);
       * 4098 = 2 3 683 and 46 = 2 23 leave Bluestein to vncl's kernels. */
      {C2C, VNCL_F32, 1, {4099}, 1, 0, BACK, VNCL},
      {C2C, VNCL_F64, 1, {47}, 5, 1, VNCL_FFT_NORM_ORTHO, VNCL},
      /* The Bluestein steps take 8 elements a work-item as vectors, the
       * rest of a line element by element: 136 = 8 x 17 has no rest (in
       * place, batched; f64 under an outer Stockham axis), 100003 (the
       * bench's length) a rest of 3 and m = 202500 = 450 x 450. */
      {C2C, VNCL_F32, 1, {136}, 3, 1, BACK, VNCL},
      {C2C, VNCL_F64, 2, {3, 136}, 2, 0, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F32, 1, {100003}, 2, 0, VNCL_FFT_NORM_FORWARD, VNCL},
      /* Rader on vncl's kernels (17, 97, 1009 above too): p - 1 in one
       * pass, split (65537: 2^16 = 256 x 256; 8191: 8190 = 2 3^2 5 7 13
       * = 90 x 91), strided axes and real transforms. */
      {C2C, VNCL_F32, 1, {8191}, 2, 1, BACK, VNCL},
      {C2C, VNCL_F64, 1, {65537}, 1, 0, VNCL_FFT_NORM_FORWARD, VNCL},
      /* Convolutions of few lines take the few-lines split too (AMD CPU
       * row: 1 to 15 lines, not 8, of 256 and up; others 1 to 7 of 1024
       * and up): Bluestein's 1024 for 509, in place, f64; Rader's 2002
       * for 2003, in place; Bluestein's 2160 for 1031 over 12 lines. */
      {C2C, VNCL_F64, 1, {509}, 3, 1, BACK, VNCL},
      {C2C, VNCL_F32, 1, {2003}, 5, 1, VNCL_FFT_NORM_FORWARD, VNCL},
      {C2C, VNCL_F32, 1, {1031}, 12, 0, VNCL_FFT_NORM_ORTHO, VNCL},
      {C2C, VNCL_F32, 3, {29, 5, 3}, 2, 0, BACK, VNCL},
      {R2C, VNCL_F64, 2, {23, 31}, 2, 0, BACK, VNCL},
      {R2C, VNCL_F32, 1, {211}, 3, 1, BACK, VNCL},
      {R2C, VNCL_F32, 1, {97}, 3, 0, BACK, BOTH},
      {R2C, VNCL_F64, 2, {6, 17}, 1, 1, VNCL_FFT_NORM_NONE, BOTH},
      {R2C, VNCL_F32, 3, {17, 4, 6}, 1, 0, BACK, CLFFT},
  };
  run_cases(cases, sizeof cases / sizeof *cases);
  print_message("worst error: %.2f of the tolerance\n", worst_ratio);
}

/* f64 accuracy on vncl's kernels (twiddles from the host in double, angles
 * reduced in integers to |phi| <= pi/4; radix constants correctly
 * rounded): the largest error of every element over the rms of the
 * output, against FFTW in double, for one-pass, split, 7/11/13 and
 * Rader (65537) lengths, radix 10 (2000 = 8 10 5 5 in one pass, 100000 =
 * 250 x 400 split), within 1.5 eps log2(N) (Rader and Bluestein, two
 * transforms and a product of filters made in double: 3 eps log2(N)), against the general 4 eps log2(N).
 * Measured: 0.2 to 0.45 of that; with the angle 2 pi t/n rounded directly
 * (the twiddles before) 173056 = 2^10 13^2 reached 1.1 eps log2(N). */
static void test_f64_accuracy(void **st) {
  (void)st;
  static const int lens[] = {1001, 4096, 2197, 117649, 173056, 1 << 20,
                             2000, 100000, 65537, 4099};
  double worst = 0;
  for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
    int n = lens[li];
    vncl_fft_desc d;
    vncl_fft_desc_init(&d);
    d.dtype = VNCL_F64;
    d.n[0] = n;
    d.backend = VNCL_FFT_BACKEND_VNCL;
    vncl_fft_plan *p;
    T_OK(ctx, vncl_fft_plan_create(ctx, &d, &p));
    int64_t shape[2] = {n, 2};
    size_t count = 2 * (size_t)n;
    double *x = malloc(count * sizeof *x), *y = malloc(count * sizeof *y);
    double *ref = malloc(count * sizeof *ref);
    for (size_t i = 0; i < count; i++) x[i] = t_rand_uniform(-1, 1);
    vncl_tensor *in = tensor(VNCL_F64, 2, shape);
    vncl_tensor *out = tensor(VNCL_F64, 2, shape);
    write_d(in, x);
    poison(out);
    T_OK(ctx, vncl_fft_execute(p, VNCL_FFT_FORWARD, in, out));
    read_d(out, y);
    ref_fft(VNCL_FFT_C2C, FFTW_FORWARD, 1, &n, 1, x, ref);
    double rms = 0, e = 0;
    for (size_t i = 0; i < count; i++) rms += ref[i] * ref[i];
    rms = sqrt(rms / (double)count);
    for (size_t i = 0; i < count; i++) {
      double ei = fabs(y[i] - ref[i]);
      if (!(ei <= e)) e = isnan(ei) ? INFINITY : ei;
    }
    bool blue = !factors_in(n, 6); /* Rader here (65536 = 2^16) */
    double rel = e / rms, bound = (blue ? 3 : 1.5) * DBL_EPSILON * log2(n);
    print_message("f64 %s %d: max error %.3g of the output rms (bound %.3g)\n",
                  vncl_fft_plan_algorithm(p), n, rel, bound);
    if (!(rel <= bound))
      fail_msg("f64 length %d: error %.3g of rms, bound %.3g", n, rel, bound);
    if (rel / bound > worst) worst = rel / bound;
    vncl_tensor_destroy(in);
    vncl_tensor_destroy(out);
    vncl_fft_plan_destroy(p);
    free(x);
    free(y);
    free(ref);
  }
  print_message("f64: worst %.2f of the bound\n", worst);
}

/* The largest error of every element over the rms of the reference. */
static double rel_error(const double *got, const double *ref, size_t count) {
  double rms = 0, e = 0;
  for (size_t i = 0; i < count; i++) rms += ref[i] * ref[i];
  rms = sqrt(rms / (double)count);
  for (size_t i = 0; i < count; i++) {
    double ei = fabs(got[i] - ref[i]);
    if (!(ei <= e)) e = isnan(ei) ? INFINITY : ei;
  }
  return e / rms;
}

/* The "fft" flops vncl's profile declares for the commands since `reset`. */
static double fft_flops(void) {
  vncl_profile pr;
  T_OK(ctx, vncl_profile_get(ctx, &pr));
  double f = 0;
  for (int i = 0; i < pr.num_ops; i++)
    if (!strcmp(pr.ops[i].name, "fft")) f += pr.ops[i].flops;
  return f;
}

/* f64 R2C and C2R of even lengths on vncl's kernels (the half-length
 * transform with the split in double-made twiddles), against FFTW in
 * double, within the one-pass bound of test_f64_accuracy (1.5 eps
 * log2(N) of the output rms); C2R of FFTW's spectrum against FFTW's C2R.
 * And they run through the half length: the Stockham passes declare
 * 5 m ceil(log2 m) flops per line of m = n/2 (a split m one log more at
 * most), at most half of what one transform of the full length n
 * declares. */
static void test_real_f64_accuracy(void **st) {
  (void)st;
  static const int lens[] = {4096, 2520, 4394, 9000, 1 << 20};
  double worst = 0;
  for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
    int n = lens[li], h = n / 2 + 1, m = n / 2;
    vncl_fft_desc d;
    vncl_fft_desc_init(&d);
    d.type = VNCL_FFT_R2C;
    d.dtype = VNCL_F64;
    d.n[0] = n;
    d.backend = VNCL_FFT_BACKEND_VNCL;
    vncl_fft_plan *pf, *pb;
    T_OK(ctx, vncl_fft_plan_create(ctx, &d, &pf));
    d.type = VNCL_FFT_C2R;
    T_OK(ctx, vncl_fft_plan_create(ctx, &d, &pb));
    int64_t rshape[1] = {n}, cshape[2] = {h, 2};
    size_t rc = (size_t)n, cc = 2 * (size_t)h;
    double *x = malloc(rc * sizeof *x), *y = malloc(cc * sizeof *y);
    double *ref = malloc(cc * sizeof *ref), *x2 = malloc(rc * sizeof *x2);
    double *xr = malloc(rc * sizeof *xr);
    for (size_t i = 0; i < rc; i++) x[i] = t_rand_uniform(-1, 1);
    vncl_tensor *r = tensor(VNCL_F64, 1, rshape);
    vncl_tensor *c = tensor(VNCL_F64, 2, cshape);
    write_d(r, x);
    poison(c);
    T_OK(ctx, vncl_profile_reset(ctx));
    T_OK(ctx, vncl_fft_execute(pf, VNCL_FFT_FORWARD, r, c));
    double flops = fft_flops();
    read_d(c, y);
    ref_fft(VNCL_FFT_R2C, -1, 1, &n, 1, x, ref);
    double bound = 1.5 * DBL_EPSILON * log2(n);
    double e1 = rel_error(y, ref, cc);
    /* C2R (scaled 1/n) of FFTW's spectrum against FFTW's C2R of it. */
    write_d(c, ref);
    poison(r);
    T_OK(ctx, vncl_fft_execute(pb, VNCL_FFT_INVERSE, c, r));
    read_d(r, x2);
    ref_fft(VNCL_FFT_C2R, 1, 1, &n, 1, ref, xr);
    for (size_t i = 0; i < rc; i++) xr[i] /= n;
    double e2 = rel_error(x2, xr, rc);
    int lg = 0;
    while ((1 << lg) < m) lg++;
    double most = 5.0 * m * (lg + 1);
    print_message("f64 r2c %d: max error %.3g, c2r %.3g of the output rms "
                  "(bound %.3g); %.0f flops declared (half length: at most "
                  "%.0f)\n",
                  n, e1, e2, bound, flops, most);
    if (!(e1 <= bound) || !(e2 <= bound))
      fail_msg("f64 real length %d: errors %.3g, %.3g of rms, bound %.3g", n,
               e1, e2, bound);
    if (!(flops > 0 && flops <= most))
      fail_msg("f64 r2c %d: %.0f flops declared, a half-length transform "
               "declares at most %.0f",
               n, flops, most);
    if (e1 / bound > worst) worst = e1 / bound;
    if (e2 / bound > worst) worst = e2 / bound;
    vncl_tensor_destroy(r);
    vncl_tensor_destroy(c);
    vncl_fft_plan_destroy(pf);
    vncl_fft_plan_destroy(pb);
    free(x);
    free(y);
    free(ref);
    free(x2);
    free(xr);
  }
  print_message("f64 real: worst %.2f of the bound\n", worst);
}

/* A repeated transform takes its plan from the context's cache. */
static void test_plan_cache(void **st) {
  (void)st;
  /* 392 = 2^3 7^2 on clFFT (asked for: vncl's kernels bake nothing; the
   * one-shot call below takes it from VNCL_FFT_BACKEND). */
  enum { N = 392, B = 2, C = 2 * N * B };
  vncl_fft_stats s0, s1, s2;
  T_OK(ctx, vncl_fft_stats_get(ctx, &s0));
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.n[0] = N;
  d.batch = B;
  d.backend = VNCL_FFT_BACKEND_CLFFT;
  vncl_fft_plan *p1, *p2;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &p1));
  assert_string_equal(vncl_fft_plan_algorithm(p1), "clfft");
  T_OK(ctx, vncl_fft_stats_get(ctx, &s1));
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &p2));
  T_OK(ctx, vncl_fft_stats_get(ctx, &s2));
  assert_true(s1.bakes <= s0.bakes + 1);
  assert_int_equal(s2.bakes, s1.bakes);
  assert_int_equal(s2.hits, s1.hits + 1);
  assert_int_equal(s2.cached_plans, s1.cached_plans);
  assert_true(s2.cached_plans >= 1);
  /* The one-shot call with the same configuration does not bake either. */
  int64_t shape[3] = {B, N, 2};
  vncl_tensor *a = tensor(VNCL_F32, 3, shape), *b = tensor(VNCL_F32, 3, shape);
  double *x = malloc(C * sizeof *x), *y = malloc(C * sizeof *y);
  double *ref = malloc(C * sizeof *ref);
  for (int i = 0; i < C; i++) x[i] = (float)t_rand_uniform(-1, 1);
  write_d(a, x);
  poison(b);
  t_env be;
  t_env_set(&be, "VNCL_FFT_BACKEND", "clfft");
  T_OK(ctx, vncl_fft(ctx, VNCL_FFT_C2C, VNCL_FFT_FORWARD, 1, BACK, a, b));
  t_env_restore(&be);
  T_OK(ctx, vncl_fft_stats_get(ctx, &s1));
  assert_int_equal(s1.bakes, s2.bakes);
  assert_int_equal(s1.hits, s2.hits + 1);
  read_d(b, y);
  int n = N;
  ref_fft(VNCL_FFT_C2C, -1, 1, &n, B, x, ref);
  check_close("one-shot C2C 392", VNCL_F32, y, ref, C, N, 4);
  /* Another batch is another configuration. */
  d.batch = 3;
  vncl_fft_plan *p3;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &p3));
  T_OK(ctx, vncl_fft_stats_get(ctx, &s2));
  assert_int_equal(s2.bakes, s1.bakes + 1);
  assert_true(s2.bake_seconds > 0);
  vncl_fft_desc back;
  T_OK(ctx, vncl_fft_plan_desc(p3, &back));
  assert_int_equal(back.batch, 3);
  assert_int_equal(back.n[0], N);
  vncl_fft_plan_destroy(p1);
  vncl_fft_plan_destroy(p2);
  vncl_fft_plan_destroy(p3);
  vncl_fft_plan_destroy(NULL);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(b);
  free(x);
  free(y);
  free(ref);
}

/* One-shot calls of each type, and a batch of zero. */
static void test_one_shot(void **st) {
  (void)st;
  int64_t rs[2] = {3, 100}, cs[3] = {3, 51, 2};
  vncl_tensor *r = tensor(VNCL_F32, 2, rs), *c = tensor(VNCL_F32, 3, cs);
  vncl_tensor *r2 = tensor(VNCL_F32, 2, rs);
  double x[300], y[306], ref[306], z[300];
  for (int i = 0; i < 300; i++) x[i] = (float)t_rand_uniform(-1, 1);
  write_d(r, x);
  poison(c);
  T_OK(ctx, vncl_fft(ctx, VNCL_FFT_R2C, VNCL_FFT_FORWARD, 1, BACK, r, c));
  read_d(c, y);
  int n = 100;
  ref_fft(VNCL_FFT_R2C, -1, 1, &n, 3, x, ref);
  check_close("one-shot R2C 100", VNCL_F32, y, ref, 306, 100, 4);
  poison(r2);
  T_OK(ctx, vncl_fft(ctx, VNCL_FFT_C2R, VNCL_FFT_INVERSE, 1, BACK, c, r2));
  read_d(r2, z);
  check_close("one-shot C2R 100", VNCL_F32, z, x, 300, 100, 8);
  /* In-place C2C through the one-shot call. */
  int64_t s4[2] = {100, 2};
  vncl_tensor *t = tensor(VNCL_F32, 2, s4);
  write_d(t, x);
  T_OK(ctx, vncl_fft(ctx, VNCL_FFT_C2C, VNCL_FFT_FORWARD, 1, BACK, t, t));
  read_d(t, y);
  ref_fft(VNCL_FFT_C2C, -1, 1, &n, 1, x, ref);
  check_close("one-shot C2C in place 100", VNCL_F32, y, ref, 200, 100, 4);
  /* A batch of 0: nothing to do. */
  int64_t s0[3] = {0, 8, 2};
  vncl_tensor *e = tensor(VNCL_F32, 3, s0);
  T_OK(ctx, vncl_fft(ctx, VNCL_FFT_C2C, VNCL_FFT_FORWARD, 1, BACK, e, e));
  vncl_tensor_destroy(e);
  vncl_tensor_destroy(t);
  vncl_tensor_destroy(r);
  vncl_tensor_destroy(r2);
  vncl_tensor_destroy(c);
}

/* clFFT's setup is counted across contexts: a context that goes does not
 * take the others' plans with it, and FFTs work again after the last one
 * went (teardown, then setup again). A plan keeps its context alive. */
static void test_contexts(void **st) {
  (void)st;
  vncl_context *a = t_context("off"), *b = t_context("off");
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.n[0] = 64;
  vncl_fft_plan *pa, *pb;
  T_OK(a, vncl_fft_plan_create(a, &d, &pa));
  T_OK(b, vncl_fft_plan_create(b, &d, &pb));
  int64_t shape[2] = {64, 2};
  double x[128], y[128], ref[128];
  for (int i = 0; i < 128; i++) x[i] = (float)t_rand_uniform(-1, 1);
  int n = 64;
  ref_fft(VNCL_FFT_C2C, -1, 1, &n, 1, x, ref);
  vncl_fft_plan_destroy(pa);
  vncl_context_destroy(a); /* b's plan must survive this */
  for (int round = 0; round < 2; round++) {
    vncl_context *c = b;
    vncl_tensor *in, *out;
    T_OK(c, vncl_tensor_create(c, VNCL_F32, 2, shape, &in));
    T_OK(c, vncl_tensor_create(c, VNCL_F32, 2, shape, &out));
    float f[128];
    for (int i = 0; i < 128; i++) f[i] = (float)x[i];
    T_OK(c, vncl_tensor_write(in, f, sizeof f));
    T_OK(c, vncl_fft_execute(pb, VNCL_FFT_FORWARD, in, out));
    T_OK(c, vncl_tensor_read(out, f, sizeof f));
    for (int i = 0; i < 128; i++) y[i] = f[i];
    check_close("C2C 64 in a second context", VNCL_F32, y, ref, 128, 64, 4);
    vncl_tensor_destroy(in);
    vncl_tensor_destroy(out);
    /* Destroying the context first: the plan keeps it alive. */
    vncl_context_destroy(b);
    vncl_fft_plan_destroy(pb);
    /* Every FFT context gone: clFFT was torn down; a new one sets it up. */
    b = t_context("off");
    T_OK(b, vncl_fft_plan_create(b, &d, &pb));
  }
  vncl_fft_plan_destroy(pb);
  vncl_context_destroy(b);
}

/* ---- threads ------------------------------------------------------------- */

/* One thread's job: `runs` transforms of length n (batch 1, f32) against a
 * reference made beforehand (FFTW's planner is not thread-safe), on its own
 * context (own_ctx) or the shared one. No cmocka calls here: the main
 * thread checks what the job reports. */
typedef struct tjob {
  bool own_ctx;
  int n, runs;
  const float *x;
  const double *ref;
  double worst; /* max |error| / rms(ref) */
  vncl_status status;
  char msg[512];
} tjob;

static void *tjob_run(void *arg) {
  tjob *j = arg;
  vncl_context *c = ctx;
  j->status = VNCL_OK;
  if (j->own_ctx && (j->status = vncl_context_create(&c, NULL))) {
    snprintf(j->msg, sizeof j->msg, "%s", vncl_errmsg(NULL));
    return NULL;
  }
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.n[0] = j->n;
  vncl_fft_plan *p = NULL;
  vncl_tensor *in = NULL, *out = NULL;
  int64_t shape[2] = {j->n, 2};
  size_t bytes = (size_t)j->n * 2 * sizeof(float);
  float *y = malloc(bytes);
  double rms = 0;
  for (int i = 0; i < 2 * j->n; i++) rms += j->ref[i] * j->ref[i];
  rms = sqrt(rms / (2.0 * j->n));
  vncl_status s = vncl_fft_plan_create(c, &d, &p);
  if (!s) s = vncl_tensor_create(c, VNCL_F32, 2, shape, &in);
  if (!s) s = vncl_tensor_create(c, VNCL_F32, 2, shape, &out);
  if (!s) s = vncl_tensor_write(in, j->x, bytes);
  for (int r = 0; !s && r < j->runs; r++) {
    s = vncl_fft_execute(p, VNCL_FFT_FORWARD, in, out);
    if (!s) s = vncl_tensor_read(out, y, bytes);
    for (int i = 0; !s && i < 2 * j->n; i++) {
      double e = fabs(y[i] - j->ref[i]) / rms;
      if (!(e <= j->worst)) j->worst = isnan(e) ? INFINITY : e;
    }
  }
  if (s) {
    j->status = s;
    snprintf(j->msg, sizeof j->msg, "%s", vncl_errmsg(c));
  }
  free(y);
  vncl_tensor_destroy(in);
  vncl_tensor_destroy(out);
  vncl_fft_plan_destroy(p);
  if (j->own_ctx) vncl_context_destroy(c);
  return NULL;
}

/* Threads making and dropping their own contexts (clFFT's counted setup
 * under contention) beside threads sharing one context and running plans
 * that share its scratch (Rader lengths 17 and 1009, Stockham ones). */
static void test_threads(void **st) {
  (void)st;
  enum { NT = 6 };
  static const int lens[NT] = {64, 64, 64, 17, 1009, 256};
  static const bool own[NT] = {true, true, true, false, false, false};
  float *xs[NT];
  double *refs[NT];
  tjob jobs[NT];
  pthread_t th[NT];
  for (int t = 0; t < NT; t++) {
    int n = lens[t];
    xs[t] = malloc(2 * (size_t)n * sizeof(float));
    double *xd = malloc(2 * (size_t)n * sizeof(double));
    refs[t] = malloc(2 * (size_t)n * sizeof(double));
    for (int i = 0; i < 2 * n; i++)
      xd[i] = xs[t][i] = (float)t_rand_uniform(-1, 1);
    ref_fft(VNCL_FFT_C2C, -1, 1, &n, 1, xd, refs[t]);
    free(xd);
    jobs[t] = (tjob){.own_ctx = own[t],
                     .n = n,
                     .runs = own[t] ? 2 : 20,
                     .x = xs[t],
                     .ref = refs[t]};
  }
  for (int t = 0; t < NT; t++)
    assert_int_equal(pthread_create(&th[t], NULL, tjob_run, &jobs[t]), 0);
  for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < NT; t++) {
    if (jobs[t].status)
      fail_msg("thread %d (length %d): %s: %s", t, lens[t],
               vncl_status_name(jobs[t].status), jobs[t].msg);
    double tol = 8 * FLT_EPSILON * log2(lens[t]);
    if (!(jobs[t].worst <= tol))
      fail_msg("thread %d (length %d): error %.3g of rms, tolerance %.3g", t,
               lens[t], jobs[t].worst, tol);
    free(xs[t]);
    free(refs[t]);
  }
}

/* ---- bad input: status, a message naming the problem, nothing written ---- */

static void expect_untouched(vncl_tensor *t, const double *v) {
  size_t n = vncl_tensor_numel(t);
  double *now = malloc(n * sizeof *now + 1);
  read_d(t, now);
  for (size_t i = 0; i < n; i++)
    if (!(now[i] == v[i] || (isnan(now[i]) && isnan(v[i]))))
      fail_msg("element %zu was written by a failing call", i);
  free(now);
}

static void test_bad_desc(void **st) {
  (void)st;
  vncl_fft_desc d;
  vncl_fft_plan *p = (vncl_fft_plan *)&d; /* must stay as it is */
  vncl_fft_desc_init(&d);
  d.n[0] = 8;
  T_FAILS(NULL, vncl_fft_plan_create(NULL, &d, &p), VNCL_ERR_INVALID_ARG,
          "ctx is NULL");
  T_FAILS(ctx, vncl_fft_plan_create(ctx, NULL, &p), VNCL_ERR_INVALID_ARG,
          "desc is NULL");
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &d, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  vncl_fft_desc bad = d;
  bad.struct_size = 3;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "vncl_fft_desc_init");
  bad = d;
  bad.type = (vncl_fft_type)7;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "type 7");
  bad = d;
  bad.dtype = VNCL_F16;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "f32 or f64");
  bad = d;
  bad.dtype = VNCL_I32;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "dtype i32");
  bad = d;
  bad.ndim = 4;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "ndim 4");
  bad.ndim = 0;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "ndim 0");
  bad = d;
  bad.n[0] = 0;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "n[0] is 0");
  bad = d;
  bad.ndim = 2;
  bad.n[1] = -5;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "n[1] is -5");
  bad = d;
  bad.batch = 0;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "batch 0");
  bad = d;
  bad.norm = (vncl_fft_norm)9;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "norm 9");
  bad = d;
  bad.backend = (vncl_fft_backend)7;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "backend 7");
  t_env be;
  t_env_set(&be, "VNCL_FFT_BACKEND", "cuda");
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &d, &p), VNCL_ERR_INVALID_ARG,
          "VNCL_FFT_BACKEND='cuda'");
  t_env_restore(&be);
  bad = d;
  bad.in_place = 2;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "in_place");
  bad = d;
  bad.ndim = 3;
  bad.n[0] = bad.n[1] = bad.n[2] = INT64_MAX / 4;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &bad, &p), VNCL_ERR_INVALID_ARG,
          "overflow");
  assert_ptr_equal(p, (vncl_fft_plan *)&d);
  vncl_fft_desc_init(NULL);
  assert_string_equal(vncl_fft_plan_algorithm(NULL), "");
  T_FAILS(NULL, vncl_fft_plan_desc(NULL, &d), VNCL_ERR_INVALID_ARG,
          "plan is NULL");
  T_FAILS(NULL, vncl_fft_stats_get(NULL, NULL), VNCL_ERR_INVALID_ARG,
          "ctx is NULL");
  T_FAILS(ctx, vncl_fft_stats_get(ctx, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
}

static void test_bad_execute(void **st) {
  (void)st;
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.n[0] = 8;
  d.batch = 2;
  vncl_fft_plan *p, *pr, *pc, *pip;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &p));
  d.in_place = 1;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &pip));
  d.in_place = 0;
  d.type = VNCL_FFT_R2C;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &pr));
  d.type = VNCL_FFT_C2R;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &pc));
  int64_t cs[3] = {2, 8, 2}, hs[3] = {2, 5, 2}, rs[2] = {2, 8};
  int64_t wrong_last[3] = {2, 8, 3}, wrong_n[3] = {2, 9, 2};
  int64_t wrong_b[3] = {3, 8, 2};
  vncl_tensor *a = tensor(VNCL_F32, 3, cs), *b = tensor(VNCL_F32, 3, cs);
  vncl_tensor *a64 = tensor(VNCL_F64, 3, cs);
  vncl_tensor *wl = tensor(VNCL_F32, 3, wrong_last);
  vncl_tensor *wn = tensor(VNCL_F32, 3, wrong_n);
  vncl_tensor *wb = tensor(VNCL_F32, 3, wrong_b);
  vncl_tensor *h = tensor(VNCL_F32, 3, hs), *r = tensor(VNCL_F32, 2, rs);
  poison(b);
  double bv[32];
  read_d(b, bv);
  double av[32];
  for (int i = 0; i < 32; i++) av[i] = t_rand_uniform(-1, 1);
  write_d(a, av);
  read_d(a, av);
  vncl_fft_direction F = VNCL_FFT_FORWARD, I = VNCL_FFT_INVERSE;
  T_FAILS(NULL, vncl_fft_execute(NULL, F, a, b), VNCL_ERR_INVALID_ARG,
          "plan is NULL");
  T_FAILS(ctx, vncl_fft_execute(p, F, NULL, b), VNCL_ERR_INVALID_ARG,
          "in is NULL");
  T_FAILS(ctx, vncl_fft_execute(p, F, a, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  T_FAILS(ctx, vncl_fft_execute(p, (vncl_fft_direction)0, a, b),
          VNCL_ERR_INVALID_ARG, "direction 0");
  T_FAILS(ctx, vncl_fft_execute(pr, I, r, h), VNCL_ERR_INVALID_ARG,
          "forward only");
  T_FAILS(ctx, vncl_fft_execute(pc, F, h, r), VNCL_ERR_INVALID_ARG,
          "inverse only");
  T_FAILS(ctx, vncl_fft_execute(p, F, a64, b), VNCL_ERR_INVALID_ARG,
          "in: dtype f64, the plan is f32");
  T_FAILS(ctx, vncl_fft_execute(p, F, a, a64), VNCL_ERR_INVALID_ARG,
          "out: dtype f64");
  T_FAILS(ctx, vncl_fft_execute(p, F, wl, b), VNCL_ERR_INVALID_ARG,
          "in: shape [2, 8, 3] does not match");
  T_FAILS(ctx, vncl_fft_execute(p, F, a, wn), VNCL_ERR_INVALID_ARG,
          "out: shape [2, 9, 2] does not match the C2C plan, which needs "
          "[batch..., 8, 2]");
  T_FAILS(ctx, vncl_fft_execute(p, F, wb, b), VNCL_ERR_INVALID_ARG,
          "has batch 3, the plan has batch 2");
  T_FAILS(ctx, vncl_fft_execute(p, F, a, a), VNCL_ERR_INVALID_ARG,
          "out of place");
  T_FAILS(ctx, vncl_fft_execute(pip, F, a, b), VNCL_ERR_INVALID_ARG,
          "in place");
  T_FAILS(ctx, vncl_fft_execute(pr, F, h, b), VNCL_ERR_INVALID_ARG,
          "in: shape [2, 5, 2] does not match the R2C plan");
  T_FAILS(ctx, vncl_fft_execute(pr, F, r, b), VNCL_ERR_INVALID_ARG,
          "out: shape [2, 8, 2] does not match the R2C plan, which needs "
          "[batch..., 5, 2]");
  T_FAILS(ctx, vncl_fft_execute(pc, I, b, r), VNCL_ERR_INVALID_ARG,
          "in: shape [2, 8, 2] does not match the C2R plan");
  vncl_context *other = t_context("off");
  vncl_tensor *o;
  T_OK(other, vncl_tensor_create(other, VNCL_F32, 3, cs, &o));
  T_FAILS(ctx, vncl_fft_execute(p, F, o, b), VNCL_ERR_INVALID_ARG,
          "another context");
  T_FAILS(ctx, vncl_fft_execute(p, F, a, o), VNCL_ERR_INVALID_ARG,
          "another context");
  vncl_tensor_destroy(o);
  vncl_context_destroy(other);
  /* One-shot. */
  T_FAILS(NULL, vncl_fft(NULL, C2C, F, 1, BACK, a, b), VNCL_ERR_INVALID_ARG,
          "ctx is NULL");
  T_FAILS(ctx, vncl_fft(ctx, C2C, F, 1, BACK, NULL, b), VNCL_ERR_INVALID_ARG,
          "in is NULL");
  T_FAILS(ctx, vncl_fft(ctx, C2C, F, 4, BACK, a, b), VNCL_ERR_INVALID_ARG,
          "ndim 4");
  T_FAILS(ctx, vncl_fft(ctx, (vncl_fft_type)5, F, 1, BACK, a, b),
          VNCL_ERR_INVALID_ARG, "type 5");
  T_FAILS(ctx, vncl_fft(ctx, C2C, F, 1, BACK, wl, wl), VNCL_ERR_INVALID_ARG,
          "complex tensors have 2");
  T_FAILS(ctx, vncl_fft(ctx, C2C, F, 3, BACK, a, b), VNCL_ERR_INVALID_ARG,
          "needs at least 4");
  T_FAILS(ctx, vncl_fft(ctx, VNCL_FFT_R2C, F, 1, BACK, h, h),
          VNCL_ERR_INVALID_ARG, "needs a plan");
  T_FAILS(ctx, vncl_fft(ctx, C2C, F, 1, BACK, a, wn), VNCL_ERR_INVALID_ARG,
          "out: shape [2, 9, 2]");
  T_FAILS(ctx, vncl_fft(ctx, C2C, F, 1, (vncl_fft_norm)-1, a, b),
          VNCL_ERR_INVALID_ARG, "norm -1");
  vncl_tensor *ai;
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_I32, 3, cs, &ai));
  T_FAILS(ctx, vncl_fft(ctx, C2C, F, 1, BACK, ai, b), VNCL_ERR_INVALID_ARG,
          "dtype i32");
  vncl_tensor_destroy(ai);
  /* Nothing was written by any of these. */
  expect_untouched(b, bv);
  expect_untouched(a, av);
  vncl_tensor *all[] = {a, b, a64, wl, wn, wb, h, r};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    vncl_tensor_destroy(all[i]);
  vncl_fft_plan_destroy(p);
  vncl_fft_plan_destroy(pr);
  vncl_fft_plan_destroy(pc);
  vncl_fft_plan_destroy(pip);
}

int main(void) {
  t_seed();
  const struct CMUnitTest tests[] = {
      /* First, while no other context has run an FFT: it sees clFFT torn
       * down and set up again. */
      cmocka_unit_test(test_contexts),    cmocka_unit_test(test_bad_desc),
      cmocka_unit_test(test_bad_execute), cmocka_unit_test(test_plan_cache),
      cmocka_unit_test(test_c2c),         cmocka_unit_test(test_real),
      cmocka_unit_test(test_real_half),
      cmocka_unit_test(test_real_scratch),
      cmocka_unit_test(test_bluestein),   cmocka_unit_test(test_one_shot),
      cmocka_unit_test(test_f64_accuracy),
      cmocka_unit_test(test_real_f64_accuracy),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, t_setup_nocache, t_teardown);
}
