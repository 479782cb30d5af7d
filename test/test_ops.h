/* Helpers for the tensor-operation tests (test_ops_*.c): tensors from and
 * to double arrays in every dtype, 16-bit conversions done independently of
 * the library (by table lookup), random values exact in a dtype, poison,
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

/* ---- 16-bit formats by table: every finite positive value, sorted ------ */

static double t_f16_table[31744];  /* bits 0x0000 .. 0x7bff */
static double t_bf16_table[32640]; /* bits 0x0000 .. 0x7f7f */
static int t_tables_ready;

static inline double t_f16_value(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexp(m, -24);
  else v = ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

static inline double t_bf16_value(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline void t_tables(void) {
  if (t_tables_ready) return;
  for (int i = 0; i < 31744; i++) t_f16_table[i] = t_f16_value((uint16_t)i);
  for (int i = 0; i < 32640; i++) t_bf16_table[i] = t_bf16_value((uint16_t)i);
  t_tables_ready = 1;
}

/* Nearest entry of a sorted table of n positive values (ties to the even
 * index), n when x is beyond the last value by half a step or more. */
static inline int t_nearest(const double *tab, int n, double x) {
  int lo = 0, hi = n - 1;
  if (x >= tab[n - 1]) {
    /* beyond the largest: overflow when past the halfway point to the next
     * (virtual) value, one step above */
    double step = tab[n - 1] - tab[n - 2];
    if (x > tab[n - 1] + step / 2) return n;
    if (x == tab[n - 1] + step / 2) return ((n - 1) & 1) ? n : n - 1;
    return n - 1;
  }
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (tab[mid] <= x) lo = mid; else hi = mid;
  }
  double dl = x - tab[lo], dh = tab[hi] - x;
  if (dl < dh) return lo;
  if (dh < dl) return hi;
  return (lo & 1) ? hi : lo;
}

/* Correctly rounded (nearest even) conversions from double. */
static inline uint16_t t_to_f16(double x) {
  t_tables();
  if (isnan(x)) return 0x7e00;
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  int i = t_nearest(t_f16_table, 31744, fabs(x));
  return sign | (i >= 31744 ? 0x7c00 : (uint16_t)i);
}
static inline uint16_t t_to_bf16(double x) {
  t_tables();
  if (isnan(x)) return 0x7fc0;
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  int i = t_nearest(t_bf16_table, 32640, fabs(x));
  return sign | (i >= 32640 ? 0x7f80 : (uint16_t)i);
}

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

#endif
