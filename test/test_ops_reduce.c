/* Reductions against a double-precision CPU reference (test_reduce.h):
 * every operation and dtype over rows, columns, middle axes, all
 * elements, with the axis split over several work-groups, keepdims, empty
 * axes; a row of 10^6 values that naive f32 summation gets wrong; NaN and
 * inf rules of max/min/argmax/sum; results independent of the tunable
 * parameters; every bad input, softmax's too; softmax's own exp over its
 * whole domain. test_ops_softmax.c has the rest of softmax,
 * test_ops_reduce_cpu.c the CPU layout's short rows and read streams:
 * binaries of their own, so that each builds its programs within the
 * suite's time limit on a machine with no cache. */
/* Internal headers on purpose (before test_ops.h, whose probe helper
 * needs them): fakes a device without fp64 (ctx->info.fp64)
 * and sets the family's parameters (vncl__ops_params_set) to reach each
 * kernel variant. */
#include <float.h>

#include "runtime/runtime.h"
#include "ops/ops.h"
#include "test_reduce.h"

#define ctx t_ctx /* the shared fixture's context (common.c) */

static void test_reduce_axes(void **st) {
  (void)st;
  static const struct {
    int nd;
    int64_t s[4];
    int axis;
  } cases[] = {
      {2, {37, 53}, 1},     {2, {37, 53}, 0},    {2, {37, 53}, -1},
      {3, {4, 5, 6}, 0},    {3, {4, 5, 6}, 1},   {3, {4, 5, 6}, 2},
      {2, {3, 100003}, 1},  /* rows split over groups */
      {2, {20011, 3}, 0},   /* columns split over groups */
      {3, {2, 1, 3}, 1},    /* an axis of one */
      {1, {1}, 0},          {1, {1000}, 0},
      {4, {2, 3, 1, 5}, 3}, {2, {1, 70001}, -1},
      {2, {300, 2501}, 0},  /* several column strips, the last partial */
      {3, {5, 300, 1030}, 1}, /* the middle axis, rows of whole strips */
  };
  for (int ti = 0; ti < 4; ti++)
    for (int op = 0; op <= VNCL_REDUCE_NORM2; op++)
      for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        run_reduce_random(t_float_types[ti], op, cases[c].nd, cases[c].s,
                          cases[c].axis, (int)(c % 2));
}

static void test_reduce_all(void **st) {
  (void)st;
  int64_t s2[2] = {37, 53}, s1[1] = {1000003};
  for (int ti = 0; ti < 4; ti++)
    for (int op = 0; op <= VNCL_REDUCE_NORM2; op++) {
      run_reduce_random(t_float_types[ti], op, 2, s2, INT32_MIN, 0);
      run_reduce_random(t_float_types[ti], op, 1, s1, INT32_MIN, 0);
    }
}

/* 10^6 values of 1 plus something small: naive f32 summation loses the
 * small parts (they fall below half an ulp of the running sum) and is off
 * by about 5e-4 relative; the compensated sum is within a few ulp. */
static void test_long_row_accuracy(void **st) {
  (void)st;
  const size_t n = 1000000;
  double *xv = malloc(n * sizeof *xv);
  for (size_t i = 0; i < n; i++)
    xv[i] = (float)(1.0 + t_rand_uniform(0, 1e-3));
  int64_t s1[1] = {(int64_t)n}, s2[2] = {2, (int64_t)n / 2},
          s3[2] = {(int64_t)n / 2, 2};
  double naive_err = 0;
  {
    float acc = 0;
    double exact = 0;
    for (size_t i = 0; i < n; i++) acc += (float)xv[i], exact += xv[i];
    naive_err = fabs(acc - exact) / exact;
  }
  /* Tight bound: 4 ulp of the total, far below the naive error. */
  vncl_tensor *x = t_new(ctx, VNCL_F32, 1, s1), *o = t_new(ctx, VNCL_F32, 1,
                                                           (int64_t[]){1});
  t_write(ctx, x, xv);
  t_poison(ctx, o);
  T_OK(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 0, o));
  double *got = t_read(ctx, o), exact = 0;
  for (size_t i = 0; i < n; i++) exact += xv[i];
  double err = fabs(got[0] - exact) / exact;
  printf("sum of 1e6: relative error %.3g (naive f32 loop: %.3g)\n", err,
         naive_err);
  if (!(err <= 4 * 0x1p-24 * 2))
    fail_msg("sum of 1e6 values: relative error %g", err);
  free(got);
  vncl_tensor_destroy(x), vncl_tensor_destroy(o);
  /* The same as rows, as columns, and the mean, through the general check. */
  run_reduce(VNCL_F32, VNCL_REDUCE_SUM, 2, s2, xv, 1, 0);
  run_reduce(VNCL_F32, VNCL_REDUCE_SUM, 2, s3, xv, 0, 0);
  run_reduce(VNCL_F32, VNCL_REDUCE_MEAN, 1, s1, xv, 0, 0);
  run_reduce(VNCL_F32, VNCL_REDUCE_NORM2, 1, s1, xv, 0, 0);
  free(xv);
}

/* NaN and inf: max/min/sum propagate NaN, argmax points at the first NaN,
 * inf - inf gives NaN; ties go to the first index. */
static void test_reduce_special(void **st) {
  (void)st;
  enum { R = 300 };
  int64_t shape[2] = {6, R};
  double xv[6 * R];
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    for (int i = 0; i < 6 * R; i++) xv[i] = t_round(t, t_rand_uniform(-1, 1));
    xv[0 * R + 17] = NAN;                            /* row 0: one NaN */
    xv[1 * R + 5] = NAN, xv[1 * R + 250] = NAN;      /* row 1: two */
    xv[2 * R + 100] = INFINITY;                      /* row 2: +inf */
    xv[3 * R + 3] = INFINITY, xv[3 * R + 4] = -INFINITY; /* row 3: both */
    for (int i = 0; i < R; i++) xv[4 * R + i] = -INFINITY; /* row 4 */
    xv[5 * R + 10] = 7, xv[5 * R + 200] = 7;         /* row 5: a tie */
    for (int op = 0; op <= VNCL_REDUCE_NORM2; op++) {
      run_reduce(t, op, 2, shape, xv, 1, 0);
      run_reduce(t, op, 1, (int64_t[]){6 * R}, xv, INT32_MIN, 0);
    }
  }
}

/* Long axes, along rows and down columns (the same lines as rows of
 * [C, L] and as columns of [L, C] and of [2, L, C] along the middle axis):
 * max, min and argmax fold blocks of vectors and streams of rows, and
 * argmax keeps the first maximum block by block, so NaN, ties and the
 * maximum sit in different blocks, chunks and the tail: the first NaN of
 * two far apart, a tie far apart, a maximum only in the last element, all
 * equal, all -inf but a NaN next to last, +inf twice, the maximum in the
 * first element and again later, one NaN. C = 37 columns: two vectors of
 * 16 and 5 columns alone. With the device's parameters and with the GPU
 * layout (columns a vector of 4 a lane, 2 vectors a work-item). */
static void test_reduce_special_long(void **st) {
  (void)st;
  enum { L = 5003, C = 37, P = 8 };
  double *line = malloc((size_t)L * C * sizeof *line);
  double *rows = malloc((size_t)L * C * sizeof *rows);
  double *cols = malloc((size_t)2 * L * C * sizeof *cols);
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    for (int c = 0; c < C; c++) {
      double *v = line + (size_t)c * L;
      for (int i = 0; i < L; i++) v[i] = t_round(t, t_rand_uniform(-1, 1));
      switch (c % P) {
        case 0: v[4000] = NAN, v[4500] = NAN; break;
        case 1: v[100] = 7, v[4900] = 7; break;
        case 2: v[L - 1] = 7; break;
        case 3: for (int i = 0; i < L; i++) v[i] = 0.5; break;
        case 4:
          for (int i = 0; i < L; i++) v[i] = -INFINITY;
          v[L - 2] = NAN;
          break;
        case 5: v[3000] = INFINITY, v[4000] = INFINITY; break;
        case 6: v[0] = 7, v[2500] = 7; break;
        default: v[17 + c] = NAN; break;
      }
    }
    for (int c = 0; c < C; c++)
      for (int i = 0; i < L; i++) {
        rows[(size_t)c * L + i] = line[(size_t)c * L + i];
        cols[(size_t)i * C + c] = line[(size_t)c * L + i];
        cols[(size_t)(L + i) * C + c] = line[(size_t)((c + 3) % C) * L + i];
      }
    /* the device's set, then the GPU layout (reduce_cols' vectors) */
    for (int g = 0; g < 2; g++) {
      static const int gpu[VNCL__OPS_MAX_PARAMS] = {64, 4, 0, 0, 2, 1, 0, 1};
      T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_REDUCE, g ? gpu : NULL));
      for (int op = VNCL_REDUCE_MAX; op <= VNCL_REDUCE_ARGMAX; op++) {
        run_reduce(t, op, 2, (int64_t[]){C, L}, rows, 1, 0);
        run_reduce(t, op, 2, (int64_t[]){L, C}, cols, 0, 0);
        run_reduce(t, op, 3, (int64_t[]){2, L, C}, cols, 1, 0);
        run_reduce(t, op, 1, (int64_t[]){L}, rows + (size_t)L, INT32_MIN, 0);
      }
    }
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_REDUCE, NULL));
  }
  free(line), free(rows), free(cols);
}

/* Empty axes: sums give 0, mean NaN; max/min/argmax are refused; an empty
 * output is nothing to do. */
static void test_reduce_empty(void **st) {
  (void)st;
  int64_t s40[2] = {4, 0}, s4[1] = {4}, s04[2] = {0, 4}, s0[1] = {0};
  vncl_tensor *x = t_new(ctx, VNCL_F32, 2, s40), *o = t_new(ctx, VNCL_F32, 1, s4);
  t_poison(ctx, o);
  T_OK(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 1, o));
  double *got = t_read(ctx, o);
  for (int i = 0; i < 4; i++) assert_true(got[i] == 0);
  free(got);
  T_OK(ctx, vncl_reduce(ctx, VNCL_REDUCE_MEAN, x, 1, o));
  got = t_read(ctx, o);
  for (int i = 0; i < 4; i++) assert_true(isnan(got[i]));
  free(got);
  t_poison(ctx, o);
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_MAX, x, 1, o),
          VNCL_ERR_INVALID_ARG, "empty axis");
  assert_true(t_still_poisoned(ctx, o));
  vncl_tensor *y = t_new(ctx, VNCL_F32, 2, s04), *e = t_new(ctx, VNCL_F32, 1, s0);
  T_OK(ctx, vncl_reduce(ctx, VNCL_REDUCE_MAX, y, 1, e)); /* empty out */
  vncl_tensor *one = t_new(ctx, VNCL_F32, 1, (int64_t[]){1});
  T_FAILS(ctx, vncl_reduce_all(ctx, VNCL_REDUCE_MIN, y, one),
          VNCL_ERR_INVALID_ARG, "empty axis");
  T_OK(ctx, vncl_reduce_all(ctx, VNCL_REDUCE_SUM, y, one));
  got = t_read(ctx, one);
  assert_true(got[0] == 0);
  free(got);
  vncl_tensor_destroy(x), vncl_tensor_destroy(o), vncl_tensor_destroy(y);
  vncl_tensor_destroy(e), vncl_tensor_destroy(one);
}

/* ---- softmax's exp ------------------------------------------------------ */

/* The kernels' own f32 exp (vncl_math_common.cl, vncl_expnegf) on its whole
 * domain [-inf, 0] and NaN, through the test hook softmax_exp_probe under
 * each vector width: special values, a sweep of every 997th f32 from a
 * random start over [-104, 0], random bit patterns (log-uniform magnitudes)
 * and random uniform values; against double exp of the same float. At most 2
 * ulp where the result is normal; below 2^-126 within 1 ulp of the subnormal
 * grid (0.5 is correct rounding), or flushed to 0 where the device has no
 * subnormals; exp(-inf) = 0, NaN stays NaN. */
static void test_softmax_exp(void **st) {
  (void)st;
  static const float special[] = {
      -0.0f, 0.0f, -INFINITY, NAN, -104.0f, -103.97208f, -103.9f, -103.28f,
      -87.33655f, -87.3365f, -87.0f, -0x1p-149f, -0x1p-126f, -1e-30f,
      -1e-7f, -0.34657359f, -0.3465736f, -0.6931472f, -1.0397208f, -1.0f,
      -2.0f, -10.0f, -50.0f, -88.72283f, -100.0f, -1e30f, -FLT_MAX};
  const size_t ns = sizeof special / sizeof *special, nsweep = 1u << 20,
               nrand = 1u << 20, n = ns + nsweep + 2 * nrand;
  float *in = malloc(n * sizeof *in);
  assert_non_null(in);
  memcpy(in, special, sizeof special);
  /* f32 bit patterns 0x80000000 .. 0xc2d00000 are -0 .. -104 */
  const uint32_t top = 0xc2d00000u - 0x80000000u;
  uint32_t b = (uint32_t)(t_rand_u64() % 997);
  for (size_t i = 0; i < nsweep; i++, b += 997) {
    uint32_t w = 0x80000000u + (b <= top ? b : b % top);
    memcpy(&in[ns + i], &w, 4);
  }
  for (size_t i = 0; i < nrand; i++) {
    uint32_t w = 0x80000000u + (uint32_t)(t_rand_u64() % (top + 1));
    memcpy(&in[ns + nsweep + i], &w, 4);
    in[ns + nsweep + nrand + i] = (float)t_rand_uniform(-104, 0);
  }
  cl_device_fp_config fp = 0;
  assert_int_equal(clGetDeviceInfo(ctx->device, CL_DEVICE_SINGLE_FP_CONFIG,
                                   sizeof fp, &fp, NULL), CL_SUCCESS);
  const int denorm = (fp & CL_FP_DENORM) != 0;
  static const int vws[] = {1, 4, 16};
  for (size_t v = 0; v < sizeof vws / sizeof *vws; v++) {
    int set[VNCL__OPS_MAX_PARAMS] = {64, vws[v], 1, 0, 0, 1, 0};
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, set));
    float *got = t_probe(ctx, VNCL__OPS_SOFTMAX, SM_VW, "softmax_exp_probe",
                         in, n, 1);
    double worst = 0, worst_sub = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
      double ref = exp((double)in[i]);
      double e = t_ulp_err(got[i], ref);
      int ok;
      if (isnan(in[i])) ok = isnan(got[i]);
      else if (ref < 0x1p-126)
        ok = got[i] >= 0 && (e <= 1 || (!denorm && got[i] == 0));
      else ok = e <= 2;
      if (!ok)
        fail_msg("exp(%.9g) (VW %d): got %.9g, expected %.9g (%.2f ulp)",
                 (double)in[i], vws[v], (double)got[i], ref, e);
      if (isnan(in[i])) continue;
      if (ref >= 0x1p-126 && e > worst) worst = e, at = i;
      if (ref < 0x1p-126 && got[i] != 0 && e > worst_sub) worst_sub = e;
    }
    if (v == 0)
      print_message("softmax exp: max %.3f ulp (at %.9g), %.3f ulp of the "
                    "subnormal grid, over %zu arguments\n",
                    worst, (double)in[at], worst_sub, n);
    free(got);
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, NULL));
  free(in);
}

/* ---- parameters ---------------------------------------------------------- */

/* Other work-group sizes and vector widths give the same results (within
 * the tolerance: the summation order changes), groups narrower than a
 * vector too (8 work-items, vectors of 16: a row's tail of 13 elements,
 * more than one per work-item, which the row kernels of both families
 * once dropped). */
static void test_params_independent(void **st) {
  (void)st;
  /* WG, VW, ITEM_CONTIG, ROWS_ITEM, CB, STREAMS, ROWS_BLOCK, ROW_STREAMS */
  static const int red_sets[][VNCL__OPS_MAX_PARAMS] = {
      {32, 1, 0, 0, 1, 1, 0, 1},
      {256, 4, 0, 16, 2, 2, 0, 2},
      {1024, 16, 1, 65536, 8, 8, 0, 8},
      {8, 16, 0, 0, 1, 1, 0, 1}};
  int64_t s2[2] = {5, 20013}, s3[2] = {1001, 7};
  for (size_t k = 0; k < sizeof red_sets / sizeof *red_sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_REDUCE, red_sets[k]));
    for (int ti = 0; ti < 4; ti += 2) { /* f32, f16 */
      vncl_dtype t = t_float_types[ti];
      for (int op = 0; op <= VNCL_REDUCE_NORM2; op++) {
        run_reduce_random(t, op, 2, s2, 1, 0);
        run_reduce_random(t, op, 2, s3, 0, 0);
      }
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_REDUCE, NULL));
  int bad[VNCL__OPS_MAX_PARAMS] = {48, 4};
  T_FAILS(ctx, vncl__ops_params_set(ctx, VNCL__OPS_REDUCE, bad),
          VNCL_ERR_INVALID_ARG, "WG=48");
}

static void test_bad_inputs(void **st) {
  (void)st;
  int64_t s2[2] = {4, 5}, s4[1] = {4}, s5[1] = {5}, s3[1] = {3};
  vncl_tensor *x = t_new(ctx, VNCL_F32, 2, s2), *o4 = t_new(ctx, VNCL_F32, 1, s4),
              *o5 = t_new(ctx, VNCL_F32, 1, s5), *o3 = t_new(ctx, VNCL_F32, 1, s3),
              *i4 = t_new(ctx, VNCL_I32, 1, s4), *h4 = t_new(ctx, VNCL_F16, 1, s4),
              *xi = t_new(ctx, VNCL_I32, 2, s2), *sm = t_new(ctx, VNCL_F32, 2, s2),
              *smh = t_new(ctx, VNCL_F16, 2, s2), *d = t_new(ctx, VNCL_F64, 2, s2),
              *d4 = t_new(ctx, VNCL_F64, 1, s4);
  vncl_context *other = t_context(NULL);
  vncl_tensor *ox = t_new(other, VNCL_F32, 2, s2);
  t_poison(ctx, o4);
  t_poison(ctx, sm);

  T_FAILS(NULL, vncl_reduce(NULL, VNCL_REDUCE_SUM, x, 1, o4),
          VNCL_ERR_INVALID_ARG, "ctx is NULL");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, NULL, 1, o4),
          VNCL_ERR_INVALID_ARG, "x is NULL");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 1, NULL),
          VNCL_ERR_INVALID_ARG, "out is NULL");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 2, o4),
          VNCL_ERR_INVALID_ARG, "axis 2 out of range");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, -3, o4),
          VNCL_ERR_INVALID_ARG, "axis -3 out of range");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 1, o5),
          VNCL_ERR_INVALID_ARG, "does not match reducing axis");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 0, o3),
          VNCL_ERR_INVALID_ARG, "does not match reducing axis");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 1, h4),
          VNCL_ERR_INVALID_ARG, "dtype mismatch");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_ARGMAX, x, 1, o4),
          VNCL_ERR_INVALID_ARG, "needs i32");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 1, i4),
          VNCL_ERR_INVALID_ARG, "dtype mismatch");
  T_FAILS(ctx, vncl_reduce(ctx, (vncl_reduce_op)6, x, 1, o4),
          VNCL_ERR_INVALID_ARG, "unknown reduction");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, xi, 1, i4),
          VNCL_ERR_UNSUPPORTED, "i32");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, ox, 1, o4),
          VNCL_ERR_INVALID_ARG, "another context");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 1, x),
          VNCL_ERR_INVALID_ARG, "in place");
  T_FAILS(ctx, vncl_reduce_all(ctx, VNCL_REDUCE_SUM, x, o4),
          VNCL_ERR_INVALID_ARG, "one element");
  T_FAILS(ctx, vncl_softmax(ctx, x, smh), VNCL_ERR_INVALID_ARG,
          "dtype mismatch");
  T_FAILS(ctx, vncl_softmax(ctx, x, o4), VNCL_ERR_INVALID_ARG,
          "shape mismatch");
  T_FAILS(ctx, vncl_log_softmax(ctx, NULL, sm), VNCL_ERR_INVALID_ARG,
          "x is NULL");
  T_FAILS(ctx, vncl_softmax(ctx, xi, xi), VNCL_ERR_UNSUPPORTED, "i32");
  T_FAILS(ctx, vncl_softmax(ctx, ox, sm), VNCL_ERR_INVALID_ARG,
          "another context");
  int fp64 = ctx->info.fp64;
  ctx->info.fp64 = 0;
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, d, 1, d4),
          VNCL_ERR_UNSUPPORTED, "fp64");
  T_FAILS(ctx, vncl_softmax(ctx, d, d), VNCL_ERR_UNSUPPORTED, "fp64");
  ctx->info.fp64 = fp64;
  assert_true(t_still_poisoned(ctx, o4));
  assert_true(t_still_poisoned(ctx, sm));
  vncl_tensor_destroy(ox);
  vncl_context_destroy(other);
  vncl_tensor *all[] = {x, o4, o5, o3, i4, h4, xi, sm, smh, d, d4};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    vncl_tensor_destroy(all[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reduce_axes),
      cmocka_unit_test(test_reduce_all),
      cmocka_unit_test(test_long_row_accuracy),
      cmocka_unit_test(test_reduce_special),
      cmocka_unit_test(test_reduce_special_long),
      cmocka_unit_test(test_reduce_empty),
      cmocka_unit_test(test_softmax_exp),
      cmocka_unit_test(test_params_independent),
      cmocka_unit_test(test_bad_inputs),
  };
  t_test_filter();
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
