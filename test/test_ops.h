/* Helpers for the tensor-operation tests (test_ops_*.c): tensors from and
 * to double arrays in every dtype (the 16-bit conversions, done
 * independently of the library, are common.c's), random values exact in a
 * dtype, poison,
 * and the element-by-element check against a double reference.
 *
 * Included by each test_ops_*.c (static functions; not every test uses
 * every helper). */
#ifndef VNCL_TEST_OPS_H
#define VNCL_TEST_OPS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const vncl_dtype t_float_types[4] = {VNCL_F32, VNCL_F64, VNCL_F16,
                                            VNCL_BF16};

/* x rounded to dtype t (value semantics of a round trip through t). */
static inline double t_round(vncl_dtype t, double x) {
  switch (t) {
    case VNCL_F32: return (float)x;
    case VNCL_F16: return t_f16_value(t_to_f16(x));
    case VNCL_BF16: return t_bf16_value(t_to_bf16(x));
    default: return x;
  }
}

/* Machine epsilon of the dtype's storage. */
static inline double t_eps(vncl_dtype t) {
  switch (t) {
    case VNCL_F32: return 0x1p-23;
    case VNCL_F64: return 0x1p-52;
    case VNCL_F16: return 0x1p-10;
    case VNCL_BF16: return 0x1p-7;
    default: return 0;
  }
}

/* ---- tensors to and from doubles ------------------------------------- */

static inline void t_pack(vncl_dtype t, const double *v, size_t n, void *buf) {
  for (size_t i = 0; i < n; i++) switch (t) {
      case VNCL_F32: ((float *)buf)[i] = (float)v[i]; break;
      case VNCL_F64: ((double *)buf)[i] = v[i]; break;
      case VNCL_F16: ((uint16_t *)buf)[i] = t_to_f16(v[i]); break;
      case VNCL_BF16: ((uint16_t *)buf)[i] = t_to_bf16(v[i]); break;
      case VNCL_I32: ((int32_t *)buf)[i] = (int32_t)v[i]; break;
    }
}

static inline void t_unpack(vncl_dtype t, const void *buf, size_t n, double *v) {
  for (size_t i = 0; i < n; i++) switch (t) {
      case VNCL_F32: v[i] = ((const float *)buf)[i]; break;
      case VNCL_F64: v[i] = ((const double *)buf)[i]; break;
      case VNCL_F16: v[i] = t_f16_value(((const uint16_t *)buf)[i]); break;
      case VNCL_BF16: v[i] = t_bf16_value(((const uint16_t *)buf)[i]); break;
      case VNCL_I32: v[i] = ((const int32_t *)buf)[i]; break;
    }
}

static inline void t_write(vncl_context *ctx, vncl_tensor *t, const double *v) {
  size_t bytes = vncl_tensor_bytes(t);
  void *buf = malloc(bytes ? bytes : 1);
  t_pack(vncl_tensor_dtype(t), v, vncl_tensor_numel(t), buf);
  T_OK(ctx, vncl_tensor_write(t, buf, bytes));
  free(buf);
}

static inline double *t_read(vncl_context *ctx, const vncl_tensor *t) {
  size_t n = vncl_tensor_numel(t), bytes = vncl_tensor_bytes(t);
  void *buf = malloc(bytes ? bytes : 1);
  double *v = malloc((n ? n : 1) * sizeof *v);
  T_OK(ctx, vncl_tensor_read(t, buf, bytes));
  t_unpack(vncl_tensor_dtype(t), buf, n, v);
  free(buf);
  return v;
}

/* Fills the tensor with NaN (i32: 0x7fc0dead), so that an element the call
 * forgets to write fails the check. */
static inline void t_poison(vncl_context *ctx, vncl_tensor *t) {
  size_t bytes = vncl_tensor_bytes(t), n = vncl_tensor_numel(t);
  unsigned char *buf = malloc(bytes ? bytes : 1);
  for (size_t i = 0; i < n; i++) switch (vncl_tensor_dtype(t)) {
      case VNCL_F32: ((float *)buf)[i] = NAN; break;
      case VNCL_F64: ((double *)buf)[i] = NAN; break;
      case VNCL_F16: ((uint16_t *)buf)[i] = 0x7e00; break;
      case VNCL_BF16: ((uint16_t *)buf)[i] = 0x7fc0; break;
      case VNCL_I32: ((int32_t *)buf)[i] = 0x7fc0dead; break;
    }
  T_OK(ctx, vncl_tensor_write(t, buf, bytes));
  free(buf);
}

/* Whether every element still holds the poison. */
static inline int t_still_poisoned(vncl_context *ctx, const vncl_tensor *t) {
  double *v = t_read(ctx, t);
  int ok = 1;
  for (size_t i = 0; i < vncl_tensor_numel(t); i++)
    ok &= vncl_tensor_dtype(t) == VNCL_I32 ? v[i] == 0x7fc0dead : isnan(v[i]);
  free(v);
  return ok;
}

static inline vncl_tensor *t_new(vncl_context *ctx, vncl_dtype t, int nd,
                          const int64_t *shape) {
  vncl_tensor *x = NULL;
  T_OK(ctx, vncl_tensor_create(ctx, t, nd, shape, &x));
  return x;
}

/* n random values in [lo, hi], rounded to dtype t. */
static inline double *t_rand_vals(vncl_dtype t, size_t n, double lo, double hi) {
  double *v = malloc((n ? n : 1) * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = t_round(t, t_rand_uniform(lo, hi));
  return v;
}

static inline size_t t_numel(int nd, const int64_t *shape) {
  size_t n = 1;
  for (int i = 0; i < nd; i++) n *= (size_t)shape[i];
  return n;
}

/* Checks got against ref element by element: |got - ref| <= atol +
 * rtol * |ref|; a NaN reference needs a NaN, an infinite one the same
 * infinity, and a NaN result never passes otherwise. Fails the test with
 * the first bad element. */
static inline void t_check(const char *what, size_t n, const double *got,
                    const double *ref, double rtol, double atol) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++) {
    double g = got[i], r = ref[i];
    int ok;
    if (isnan(r)) ok = isnan(g);
    else if (isinf(r)) ok = g == r;
    else ok = !isnan(g) && fabs(g - r) <= atol + rtol * fabs(r);
    if (!ok && bad++ == 0) first = i;
  }
  if (bad)
    fail_msg("%s: %zu of %zu elements wrong; first at %zu: got %.17g, "
             "expected %.17g (rtol %g, atol %g)",
             what, bad, n, first, got[first], ref[first], rtol, atol);
}

/* The same with a tolerance of its own for each element: |got - ref| <=
 * tol[i]. */
static inline void t_check_each(const char *what, size_t n, const double *got,
                         const double *ref, const double *tol) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++) {
    double g = got[i], r = ref[i];
    int ok;
    if (isnan(r)) ok = isnan(g);
    else if (isinf(r)) ok = g == r;
    else ok = !isnan(g) && fabs(g - r) <= tol[i];
    if (!ok && bad++ == 0) first = i;
  }
  if (bad)
    fail_msg("%s: %zu of %zu elements wrong; first at %zu: got %.17g, "
             "expected %.17g (tolerance %g)",
             what, bad, n, first, got[first], ref[first], tol[first]);
}

/* sin and cos of 2 pi u in double, u reduced by the nearest quarter turn
 * exactly first (u - q/4), so that the zeros at quarter turns are exact:
 * the reference for the kernels' rnd_sincos2pi. */
static inline void t_sincos2pi(double u, double *sv, double *cv) {
  double q = nearbyint(4 * u), r = u - q / 4;
  double sr = sin(2 * 3.14159265358979323846 * r),
         cr = cos(2 * 3.14159265358979323846 * r);
  switch ((int)q & 3) {
    case 0: *sv = sr, *cv = cr; break;
    case 1: *sv = cr, *cv = -sr; break;
    case 2: *sv = -sr, *cv = -cr; break;
    default: *sv = -cr, *cv = sr; break;
  }
  if (*sv == 0) *sv = 0;
  if (*cv == 0) *cv = 0;
}

#ifdef VNCL_OPS_COMMON_H
/* Runs a test-hook kernel `name(n, in, out)` of family f (f32, the
 * family's current parameters; `per_pos` the position of the parameter
 * giving the elements per work-item) on the n floats `in`; returns the
 * n * nout floats it wrote (poisoned before the call). lib/ops/ops.h must
 * be included before this header's first use. */
static inline float *t_probe(vncl_context *ctx, vncl__ops_family f,
                             int per_pos, const char *name, const float *in,
                             size_t n, size_t nout) {
  int64_t si[1] = {(int64_t)n}, so[1] = {(int64_t)(n * nout)};
  vncl_tensor *ti = t_new(ctx, VNCL_F32, 1, si), *to = t_new(ctx, VNCL_F32, 1, so);
  T_OK(ctx, vncl_tensor_write(ti, in, n * sizeof *in));
  t_poison(ctx, to);
  int p[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(ctx, f, p);
  vncl__ops_kernel k;
  T_OK(ctx, vncl__ops_kernel_get(ctx, f, p, "-DDTYPE=0 -DIDX_BITS=32", name, &k));
  cl_uint cn = (cl_uint)n;
  size_t per = (size_t)p[per_pos], global = (n + per - 1) / per;
  T_OK(ctx, vncl__set_args(ctx, k.k, 3, VNCL_ARG(cn), VNCL_ARG(ti->mem),
                           VNCL_ARG(to->mem)));
  T_OK(ctx, vncl__launch_work(ctx, name, k.k, 1, &global, NULL, 0, NULL, NULL,
                              0, 0));
  vncl__ops_kernel_put(ctx, &k);
  float *out = malloc(n * nout * sizeof *out);
  assert_non_null(out);
  T_OK(ctx, vncl_tensor_read(to, out, n * nout * sizeof *out));
  vncl_tensor_destroy(ti), vncl_tensor_destroy(to);
  return out;
}

/* |got - ref| in units of the f32 ulp at ref (2^-149 below 2^-126); 0
 * when both are the same NaN class or equal, inf when one is NaN and the
 * other not. */
static inline double t_ulp_err(float got, double ref) {
  if (isnan(ref) || isnan(got)) return isnan(ref) && isnan(got) ? 0 : INFINITY;
  if ((double)got == ref) return 0;
  if (isinf(ref) || isinf(got)) return INFINITY;
  double a = fabs(ref), ulp = 0x1p-149;
  if (a >= 0x1p-126) ulp = ldexp(1.0, ilogb(a) - 23);
  return fabs((double)got - ref) / ulp;
}
#endif

#ifdef VNCL_INTERNAL_H
/* Whether this context built `source` (a cl_kernels/ file) for f32 with
 * vectors of vw and, for pk > 0, rows of exactly pk elements as whole
 * vectors (-DPACK=pk; pk 0: packed or not): the kernel the host chose, for
 * tests that include runtime/runtime.h. */
static inline bool t_f32_built(vncl_context *ctx, const char *source, int vw,
                               int pk) {
  const char *src[512], *opts[512];
  cl_program progs[512];
  char v[24], p[24];
  snprintf(v, sizeof v, "-DVW=%d ", vw);
  snprintf(p, sizeof p, "-DPACK=%d", pk);
  int n = vncl__programs_list(ctx, src, opts, progs, 512);
  for (int i = 0; i < n && i < 512; i++) {
    const char *at = pk > 0 ? strstr(opts[i], p) : NULL;
    if (!strcmp(src[i], source) && strstr(opts[i], v) &&
        (pk <= 0 || (at && (at[strlen(p)] == ' ' || !at[strlen(p)]))) &&
        strstr(opts[i], "-DDTYPE=0 "))
      return true;
  }
  return false;
}
#endif

#endif
