/* The reductions' host reference and check (test_ops_reduce.c,
 * test_ops_reduce_cpu.c): run_reduce reduces a tensor of given values over
 * an axis or all of it and checks every output against ref_reduce, a
 * compensated sum in long double (or the exact extremum, the first index
 * of it). Static functions, included after test_ops.h, with the shared
 * fixture's context t_ctx. */
#ifndef VNCL_TEST_REDUCE_H
#define VNCL_TEST_REDUCE_H

#include <stdint.h>

#include "test_ops.h"

static const char *const red_names[] = {"sum", "mean", "max",
                                        "min", "argmax", "norm2"};

/* Accumulation epsilon: f64 for f64, f32 for the others. */
static inline double acc_eps(vncl_dtype t) {
  return t == VNCL_F64 ? 0x1p-52 : 0x1p-23;
}

/* Reference for one output: the R values x[base + r*inner], summed in long
 * double with Neumaier's compensation (a double loop over 10^5 values
 * would itself be off by more than the tolerance); tol gets the allowed
 * error. */
static inline double ref_reduce(int op, vncl_dtype t, const double *x,
                                size_t base, size_t R, size_t inner,
                                double *tol) {
  long double s = 0, c = 0, sa = 0;
  double best = 0;
  size_t bi = 0;
  int nan = 0;
  for (size_t r = 0; r < R; r++) {
    double v = x[base + r * inner];
    long double term = op == VNCL_REDUCE_NORM2 ? (long double)v * v : v;
    long double tt = s + term;
    if (isfinite(tt))
      c += fabsl(s) >= fabsl(term) ? (s - tt) + term : (term - tt) + s;
    s = tt;
    sa += fabsl(term);
    if (isnan(v)) {
      if (!nan) bi = r, best = v;
      nan = 1;
    } else if (!nan &&
               (r == 0 || (op == VNCL_REDUCE_MIN ? v < best : v > best))) {
      best = v;
      bi = r;
    }
  }
  double sum = isfinite(s) ? (double)(s + c) : (double)s;
  /* Compensated sums: a few ulp of the sum of magnitudes (the tree adds
   * log2(work-group) roundings), plus the rounding to the storage type. */
  double e = acc_eps(t), st = t_eps(t) / 2;
  switch (op) {
    case VNCL_REDUCE_SUM:
      *tol = 16 * e * (double)sa + st * fabs(sum);
      return sum;
    case VNCL_REDUCE_MEAN:
      *tol = (16 * e * (double)sa + st * fabs(sum)) / (double)R +
             2 * e * fabs(sum / (double)R);
      return R ? sum / (double)R : NAN;
    case VNCL_REDUCE_NORM2:
      *tol = (16 * e + st) * sqrt(sum) + 1e-300;
      return sqrt(sum);
    case VNCL_REDUCE_ARGMAX:
      *tol = 0;
      return (double)bi;
    default: /* max, min: one of the inputs, exactly */
      *tol = 0;
      return best;
  }
}

/* Reduces x (shape nd/shape, values xv) over axis (or all when axis is
 * INT32_MIN) and checks every output. keepdims picks the out shape. */
static inline void run_reduce(vncl_dtype t, int op, int nd,
                              const int64_t *shape, const double *xv,
                              int axis, int keepdims) {
  int all = axis == INT32_MIN;
  int ax = all ? 0 : (axis < 0 ? axis + nd : axis);
  size_t outer = 1, inner = 1, R;
  int64_t oshape[VNCL_MAX_DIMS];
  int ond = 0;
  if (all) {
    R = t_numel(nd, shape);
    oshape[ond++] = 1;
  } else {
    R = (size_t)shape[ax];
    for (int i = 0; i < ax; i++) outer *= (size_t)shape[i];
    for (int i = ax + 1; i < nd; i++) inner *= (size_t)shape[i];
    for (int i = 0; i < nd; i++)
      if (i != ax) oshape[ond++] = shape[i];
      else if (keepdims) oshape[ond++] = 1;
    if (ond == 0) oshape[ond++] = 1;
  }
  vncl_dtype ot = op == VNCL_REDUCE_ARGMAX ? VNCL_I32 : t;
  vncl_tensor *x = t_new(t_ctx, t, nd, shape),
              *o = t_new(t_ctx, ot, ond, oshape);
  t_write(t_ctx, x, xv);
  t_poison(t_ctx, o);
  if (all)
    T_OK(t_ctx, vncl_reduce_all(t_ctx, (vncl_reduce_op)op, x, o));
  else
    T_OK(t_ctx, vncl_reduce(t_ctx, (vncl_reduce_op)op, x, axis, o));
  size_t nout = outer * inner;
  double *got = t_read(t_ctx, o),
         *ref = malloc((nout ? nout : 1) * sizeof *ref),
         *tol = malloc((nout ? nout : 1) * sizeof *tol);
  for (size_t oi = 0; oi < outer; oi++)
    for (size_t ii = 0; ii < inner; ii++)
      ref[oi * inner + ii] = ref_reduce(op, t, xv, oi * R * inner + ii, R,
                                        inner, &tol[oi * inner + ii]);
  char what[128];
  snprintf(what, sizeof what, "%s %s over axis %d of %zu x %zu x %zu%s",
           red_names[op], vncl_dtype_name(t), all ? -99 : axis, outer, R,
           inner, keepdims ? " (keepdims)" : "");
  t_check_each(what, nout, got, ref, tol);
  free(got), free(ref), free(tol);
  vncl_tensor_destroy(x), vncl_tensor_destroy(o);
}

static inline void run_reduce_random(vncl_dtype t, int op, int nd,
                                     const int64_t *shape, int axis,
                                     int keepdims) {
  size_t n = t_numel(nd, shape);
  double *xv = t_rand_vals(t, n, -2, 2);
  run_reduce(t, op, nd, shape, xv, axis, keepdims);
  free(xv);
}

#endif
