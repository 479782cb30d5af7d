/* Elementwise operations against a double-precision CPU reference: binary
 * operations on same shapes (vector and tail paths) and with broadcasting
 * (scalar-like, row, column, 3-D, higher ranks, empty), with a scalar on
 * either side, axpby, unary functions, NaN and inf semantics, in-place
 * calls, and every bad input (nothing written). */
#include "test_ops.h"

/* Internal headers on purpose: fakes a device without fp64 (ctx->info.fp64)
 * and sets the family's parameters (vncl__ops_params_set) to reach each
 * kernel variant. */
#include "runtime/runtime.h"
#include "ops/ops.h"

#define ctx t_ctx /* the shared fixture's context (common.c) */

static const char *const bin_names[] = {"add", "sub", "mul", "div",
                                        "max", "min", "pow"};
static const char *const un_names[] = {"neg",     "abs",  "exp",
                                       "log",     "sqrt", "tanh",
                                       "sigmoid", "relu", "gelu"};

static double ref_binary(int op, double x, double y) {
  switch (op) {
    case VNCL_ADD: return x + y;
    case VNCL_SUB: return x - y;
    case VNCL_MUL: return x * y;
    case VNCL_DIV: return x / y;
    case VNCL_MAX: return (isnan(x) || isnan(y)) ? NAN : x > y ? x : y;
    case VNCL_MIN: return (isnan(x) || isnan(y)) ? NAN : x < y ? x : y;
    case VNCL_POW: return pow(x, y);
  }
  return NAN;
}

static double ref_unary(int op, double x) {
  switch (op) {
    case VNCL_NEG: return -x;
    case VNCL_ABS: return fabs(x);
    case VNCL_EXP: return exp(x);
    case VNCL_LOG: return log(x);
    case VNCL_SQRT: return sqrt(x);
    case VNCL_TANH: return tanh(x);
    case VNCL_SIGMOID: return 1 / (1 + exp(-x));
    case VNCL_RELU: return x < 0 ? 0 : x;
    case VNCL_GELU:
      return x == -INFINITY ? 0 : 0.5 * x * erfc(-x / sqrt(2.0));
  }
  return NAN;
}

/* Relative tolerance: `ulps` units of the compute type (a few for + - * /,
 * OpenCL's bounds for the functions, plus their conditioning), and at
 * least one rounding of the storage type. */
enum { ULP_BASIC = 4, ULP_FUNC = 32, ULP_GELU = 128 };
static double rtol_for(vncl_dtype t, int ulps) {
  double ce = t == VNCL_F64 ? 0x1p-52 : 0x1p-23;
  double r = ulps * ce;
  return r > t_eps(t) ? r : t_eps(t);
}
static double atol_for(vncl_dtype t) {
  return t == VNCL_F16 ? 0x1p-24 : 0; /* f16 subnormal spacing */
}

/* Input ranges that keep each operation defined. */
static void bin_ranges(int op, double *alo, double *ahi, double *blo,
                       double *bhi) {
  *alo = -3, *ahi = 3, *blo = -3, *bhi = 3;
  if (op == VNCL_POW) *alo = 0.1, *blo = -2, *bhi = 2;
}

/* Divisors away from 0: magnitude in [0.5, 2], either sign. */
static void fix_divisors(vncl_dtype t, double *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double m = 0.5 + 1.5 * fabs(b[i]) / 3;
    b[i] = t_round(t, b[i] < 0 ? -m : m);
  }
}

/* Broadcasting, done here independently of the library. */
static int bshape(int na, const int64_t *sa, int nb, const int64_t *sb,
                  int64_t *so) {
  int n = na > nb ? na : nb;
  for (int i = 0; i < n; i++) {
    int64_t da = i < n - na ? 1 : sa[i - (n - na)];
    int64_t db = i < n - nb ? 1 : sb[i - (n - nb)];
    so[i] = da == 1 ? db : da;
  }
  return n;
}

/* Flat index into an input of shape (ni, si) for output coordinates co. */
static size_t in_index(int no, const int64_t *co, int ni, const int64_t *si) {
  size_t idx = 0;
  for (int i = 0; i < ni; i++) {
    int64_t c = co[i + (no - ni)];
    idx = idx * (size_t)si[i] + (size_t)(si[i] == 1 ? 0 : c);
  }
  return idx;
}

/* out = op(a, b), or a = op(a, b) in place (a then has the output's
 * shape). */
static void run_binary_to(vncl_dtype t, int op, int na, const int64_t *sa,
                          int nb, const int64_t *sb, bool in_place) {
  int64_t so[VNCL_MAX_DIMS];
  int no = bshape(na, sa, nb, sb, so);
  size_t nA = t_numel(na, sa), nB = t_numel(nb, sb), nO = t_numel(no, so);
  double alo, ahi, blo, bhi;
  bin_ranges(op, &alo, &ahi, &blo, &bhi);
  double *av = t_rand_vals(t, nA, alo, ahi), *bv = t_rand_vals(t, nB, blo, bhi);
  if (op == VNCL_DIV) fix_divisors(t, bv, nB);
  vncl_tensor *a = t_new(ctx, t, na, sa), *b = t_new(ctx, t, nb, sb),
              *o = in_place ? a : t_new(ctx, t, no, so);
  t_write(ctx, a, av);
  t_write(ctx, b, bv);
  if (!in_place) t_poison(ctx, o);
  T_OK(ctx, vncl_binary(ctx, (vncl_binary_op)op, a, b, o));
  double *got = t_read(ctx, o), *ref = malloc((nO ? nO : 1) * sizeof *ref);
  int64_t co[VNCL_MAX_DIMS];
  for (size_t f = 0; f < nO; f++) {
    size_t r = f;
    for (int i = no - 1; i >= 0; i--) {
      co[i] = (int64_t)(r % (size_t)so[i]);
      r /= (size_t)so[i];
    }
    ref[f] = ref_binary(op, av[in_index(no, co, na, sa)],
                        bv[in_index(no, co, nb, sb)]);
  }
  char what[128];
  snprintf(what, sizeof what, "%s %s (%zu x %zu -> %zu%s)", bin_names[op],
           vncl_dtype_name(t), nA, nB, nO, in_place ? ", in place" : "");
  t_check(what, nO, got, ref, rtol_for(t, op == VNCL_POW ? ULP_FUNC : ULP_BASIC), atol_for(t));
  free(av), free(bv), free(got), free(ref);
  vncl_tensor_destroy(a), vncl_tensor_destroy(b);
  if (!in_place) vncl_tensor_destroy(o);
}

static void run_binary(vncl_dtype t, int op, int na, const int64_t *sa,
                       int nb, const int64_t *sb) {
  run_binary_to(t, op, na, sa, nb, sb, false);
}

static void test_binary_same_shape(void **st) {
  (void)st;
  const int64_t sizes[] = {1, 7, 1000, 100003};
  for (int ti = 0; ti < 4; ti++)
    for (int op = 0; op <= VNCL_POW; op++)
      for (size_t si = 0; si < 4; si++)
        run_binary(t_float_types[ti], op, 1, &sizes[si], 1, &sizes[si]);
  /* 2-D and 4-D, odd sizes */
  int64_t s2[2] = {37, 53}, s4[4] = {3, 5, 7, 11};
  for (int ti = 0; ti < 4; ti++) {
    run_binary(t_float_types[ti], VNCL_ADD, 2, s2, 2, s2);
    run_binary(t_float_types[ti], VNCL_MUL, 4, s4, 4, s4);
  }
}

static void test_binary_broadcast(void **st) {
  (void)st;
  static const struct {
    int na;
    int64_t a[5];
    int nb;
    int64_t b[5];
  } cases[] = {
      {2, {37, 53}, 1, {1}},          /* scalar-like */
      {2, {37, 53}, 2, {1, 1}},       /* scalar-like, same rank */
      {2, {37, 53}, 1, {53}},         /* row */
      {2, {37, 53}, 2, {37, 1}},      /* column */
      {1, {53}, 2, {37, 53}},         /* the smaller one first */
      {2, {37, 1}, 2, {1, 53}},       /* outer product */
      {3, {5, 1, 7}, 3, {1, 6, 1}},   /* 3-D both ways */
      {3, {4, 3, 5}, 2, {3, 1}},      /* 3-D, lower rank, middle */
      {3, {2, 3, 4}, 3, {2, 1, 4}},   /* 3-D, middle broadcast */
      {5, {2, 1, 3, 1, 5}, 4, {4, 3, 2, 1}}, /* rank 5 */
      {2, {0, 5}, 1, {5}},            /* empty */
      {3, {1, 1, 1}, 1, {1}},         /* one element */
      /* rows of whole vectors (non-temporal row stores) */
      {2, {9, 64}, 1, {64}},          /* row */
      {2, {9, 64}, 2, {9, 1}},        /* column */
      {3, {3, 5, 48}, 3, {3, 1, 48}}, /* middle */
      {1, {4096}, 1, {1}},            /* scalar-like */
  };
  for (int ti = 0; ti < 4; ti++)
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
      for (int op = 0; op <= VNCL_POW; op++)
        run_binary(t_float_types[ti], op, cases[c].na, cases[c].a,
                   cases[c].nb, cases[c].b);
}

static void test_binary_scalar(void **st) {
  (void)st;
  int64_t shape[2] = {129, 7};
  size_t n = 129 * 7;
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    for (int op = 0; op <= VNCL_POW; op++)
      for (int left = 0; left < 2; left++) {
        double alo, ahi, blo, bhi;
        bin_ranges(op, &alo, &ahi, &blo, &bhi);
        /* the tensor is on the left of op unless `left` */
        double *av = left ? t_rand_vals(t, n, blo, bhi)
                          : t_rand_vals(t, n, alo, ahi);
        double s = left ? t_rand_uniform(alo, ahi) : t_rand_uniform(blo, bhi);
        if (op == VNCL_DIV && !left) s = 1.7;
        if (op == VNCL_DIV && left) fix_divisors(t, av, n);
        if (op == VNCL_POW && left) s = 2.5;
        /* the kernel computes with the scalar rounded to its compute type */
        double sr = t == VNCL_F64 ? s : (float)s;
        vncl_tensor *a = t_new(ctx, t, 2, shape), *o = t_new(ctx, t, 2, shape);
        t_write(ctx, a, av);
        t_poison(ctx, o);
        if (left)
          T_OK(ctx, vncl_scalar_binary(ctx, (vncl_binary_op)op, s, a, o));
        else
          T_OK(ctx, vncl_binary_scalar(ctx, (vncl_binary_op)op, a, s, o));
        double *got = t_read(ctx, o), *ref = malloc(n * sizeof *ref);
        for (size_t i = 0; i < n; i++)
          ref[i] = left ? ref_binary(op, sr, av[i]) : ref_binary(op, av[i], sr);
        char what[96];
        snprintf(what, sizeof what, "%s %s with a scalar on the %s",
                 bin_names[op], vncl_dtype_name(t), left ? "left" : "right");
        t_check(what, n, got, ref, rtol_for(t, op == VNCL_POW ? ULP_FUNC : ULP_BASIC), atol_for(t));
        free(av), free(got), free(ref);
        vncl_tensor_destroy(a), vncl_tensor_destroy(o);
      }
  }
}

static void test_axpby(void **st) {
  (void)st;
  int64_t sy[2] = {37, 53}, sx[1] = {53};
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    for (int bc = 0; bc < 2; bc++)
      for (int zero_beta = 0; zero_beta < 2; zero_beta++) {
        size_t ny = 37 * 53, nx = bc ? 53 : ny;
        double alpha = 2.5, beta = zero_beta ? 0 : -0.75;
        double *xv = t_rand_vals(t, nx, -2, 2), *yv = t_rand_vals(t, ny, -2, 2);
        vncl_tensor *x = bc ? t_new(ctx, t, 1, sx) : t_new(ctx, t, 2, sy);
        vncl_tensor *y = t_new(ctx, t, 2, sy);
        t_write(ctx, x, xv);
        if (zero_beta) t_poison(ctx, y); /* NaN in y must not propagate */
        else t_write(ctx, y, yv);
        T_OK(ctx, vncl_axpby(ctx, alpha, x, beta, y));
        double *got = t_read(ctx, y), *ref = malloc(ny * sizeof *ref);
        for (size_t i = 0; i < ny; i++)
          ref[i] = alpha * xv[bc ? i % 53 : i] + (zero_beta ? 0 : beta * yv[i]);
        char what[96];
        snprintf(what, sizeof what, "axpby %s%s%s", vncl_dtype_name(t),
                 bc ? " broadcast" : "", zero_beta ? " beta=0" : "");
        /* alpha*x + beta*y may cancel: tolerance on the terms' size */
        t_check(what, ny, got, ref, rtol_for(t, ULP_BASIC), 8 * rtol_for(t, ULP_BASIC));
        free(xv), free(yv), free(got), free(ref);
        vncl_tensor_destroy(x), vncl_tensor_destroy(y);
      }
  }
}

static void un_range(int op, double *lo, double *hi) {
  *lo = -3, *hi = 3;
  if (op == VNCL_LOG || op == VNCL_SQRT) *lo = 0.01, *hi = 10;
  if (op == VNCL_EXP) *lo = -10, *hi = 10;
  if (op == VNCL_GELU || op == VNCL_SIGMOID) *lo = -8, *hi = 8;
}

static void test_unary(void **st) {
  (void)st;
  const int64_t sizes[] = {5, 4099};
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    for (int op = 0; op <= VNCL_GELU; op++)
      for (int si = 0; si < 2; si++) {
        size_t n = (size_t)sizes[si];
        double lo, hi;
        un_range(op, &lo, &hi);
        double *xv = t_rand_vals(t, n, lo, hi);
        vncl_tensor *x = t_new(ctx, t, 1, &sizes[si]),
                    *o = t_new(ctx, t, 1, &sizes[si]);
        t_write(ctx, x, xv);
        t_poison(ctx, o);
        T_OK(ctx, vncl_unary(ctx, (vncl_unary_op)op, x, o));
        double *got = t_read(ctx, o), *ref = malloc(n * sizeof *ref);
        for (size_t i = 0; i < n; i++) ref[i] = ref_unary(op, xv[i]);
        char what[96];
        snprintf(what, sizeof what, "%s %s n=%zu", un_names[op],
                 vncl_dtype_name(t), n);
        int ulps = op == VNCL_GELU ? ULP_GELU
                   : (op >= VNCL_EXP && op != VNCL_RELU) ? ULP_FUNC
                                                         : ULP_BASIC;
        t_check(what, n, got, ref, rtol_for(t, ulps), atol_for(t));
        free(xv), free(got), free(ref);
        vncl_tensor_destroy(x), vncl_tensor_destroy(o);
      }
  }
}

/* log over the whole positive range of each type (log-uniform, subnormal
 * inputs included where the type has them), sigmoid over [-80, 80] (both
 * saturated ends; results stay normal in f32 and bf16), tanh over [-20, 20],
 * gelu over [-12, 12] (f64: [-8, 8]; both ends saturated, outputs normal
 * in f32 and bf16) and exp over [-87, 87] (f16: [-16, 11]); tanh, gelu and
 * exp take half of their arguments log-uniform in magnitude down to 2^-100
 * (f16: its smallest normal) with either sign. The f32 compute types take
 * vncl's own functions on clang compilers (elementwise.cl), which must
 * hold the same bound as the library's. */
static void test_unary_wide(void **st) {
  (void)st;
  const int64_t n = 6007;
  /* f32 subnormals only where the device has them (f16's are normal in
   * the f32 compute type; f64 must have them) */
  cl_device_id dev = NULL;
  cl_device_fp_config fp = 0;
  T_OK(ctx, vncl_context_cl(ctx, NULL, NULL, &dev));
  assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp,
                                   &fp, NULL), CL_SUCCESS);
  const int denorm = (fp & CL_FP_DENORM) != 0;
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    /* binary exponents of the smallest input (subnormal where the type and
     * the device have them) and of the largest finite */
    double elo = t == VNCL_F64   ? -1074
                 : t == VNCL_F16 ? -24
                 : !denorm       ? -126
                 : t == VNCL_BF16 ? -133 : -149;
    double ehi = t == VNCL_F64 ? 1023.9 : t == VNCL_F16 ? 15.9 : 127.9;
    const int ops[] = {VNCL_LOG, VNCL_SIGMOID, VNCL_TANH, VNCL_GELU,
                       VNCL_EXP};
    for (int k = 0; k < 5; k++) {
      int op = ops[k];
      double *xv = malloc((size_t)n * sizeof *xv);
      /* f64 gelu is the library's erfc of the rounded -x/sqrt(2): its
       * conditioning (2 z^2 ulp) allows 128 ulp only to |x| = 8; exp's
       * results stay finite (and normal, but for f16's subnormals) */
      double span = op == VNCL_SIGMOID ? 80
                    : op == VNCL_TANH  ? 20
                    : op == VNCL_EXP   ? (t == VNCL_F16 ? 11 : 87)
                    : t == VNCL_F64    ? 8 : 12;
      double lo = op == VNCL_EXP && t == VNCL_F16 ? -16 : -span;
      double tiny = t == VNCL_F16 ? -14 : -100;
      for (int64_t i = 0; i < n; i++) {
        double v = op == VNCL_LOG ? exp2(t_rand_uniform(elo, ehi))
                   : op == VNCL_SIGMOID || i % 2
                       ? t_rand_uniform(lo, span)
                       : (i % 4 ? -1 : 1) *
                             exp2(t_rand_uniform(tiny, log2(span)));
        xv[i] = t_round(t, v);
      }
      if (!k) xv[0] = t_round(t, exp2(elo)), xv[1] = 1.0; /* 2^elo, log 0 */
      vncl_tensor *x = t_new(ctx, t, 1, &n), *o = t_new(ctx, t, 1, &n);
      t_write(ctx, x, xv);
      t_poison(ctx, o);
      T_OK(ctx, vncl_unary(ctx, (vncl_unary_op)op, x, o));
      double *got = t_read(ctx, o), *ref = malloc((size_t)n * sizeof *ref);
      for (int64_t i = 0; i < n; i++) ref[i] = ref_unary(op, xv[i]);
      char what[96];
      snprintf(what, sizeof what, "%s %s over the whole range", un_names[op],
               vncl_dtype_name(t));
      t_check(what, (size_t)n, got, ref,
              rtol_for(t, op == VNCL_GELU ? ULP_GELU : ULP_FUNC), atol_for(t));
      free(xv), free(got), free(ref);
      vncl_tensor_destroy(x), vncl_tensor_destroy(o);
    }
  }
}

/* pow over the whole normal range of each type: |x| = 2^u with u uniform
 * over the type's normal exponents, a quarter of the bases negative, and
 * y chosen so that y ln|x| is uniform within 0.9 of the logarithms of the
 * type's largest and smallest normal (results normal, no overflow), a
 * third of them truncated to integers (negative bases to a non-integer
 * give NaN, to an odd integer a negative result); x and y rounded to the
 * type before the double reference; then the same for a scalar base of
 * -1.7 (vncl_scalar_binary). f32 compute takes vncl's own pow on clang
 * compilers with doubles (elementwise.cl), within the library's bound. */
static void test_pow_wide(void **st) {
  (void)st;
  const int64_t n = 6007;
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    double elo = t == VNCL_F64 ? -1022 : t == VNCL_F16 ? -14 : -126;
    double ehi = t == VNCL_F64 ? 1023.9 : t == VNCL_F16 ? 15.9 : 127.9;
    double tmax = 0.9 * (t == VNCL_F64 ? 708 : t == VNCL_F16 ? 9.7 : 87);
    /* k = 1: the scalar base s = -1.7 (pow(s, y), vncl_scalar_binary) */
    const double s = t_round(t, -1.7);
    for (int k = 0; k < 2; k++) {
      double *xv = malloc((size_t)n * sizeof *xv),
             *yv = malloc((size_t)n * sizeof *yv),
             *ref = malloc((size_t)n * sizeof *ref);
      for (int64_t i = 0; i < n; i++) {
        double ax = k ? -s : t_round(t, exp2(t_rand_uniform(elo, ehi)));
        double lx = log(ax), y = lx == 0 ? t_rand_uniform(-50, 50)
                                         : t_rand_uniform(-tmax, tmax) / lx;
        if (i % 3 == 0) y = trunc(y);
        xv[i] = k ? s : i % 4 == 1 ? -ax : ax;
        yv[i] = t_round(t, y);
        ref[i] = pow(xv[i], yv[i]);
      }
      vncl_tensor *x = t_new(ctx, t, 1, &n), *y = t_new(ctx, t, 1, &n),
                  *o = t_new(ctx, t, 1, &n);
      t_write(ctx, x, xv);
      t_write(ctx, y, yv);
      t_poison(ctx, o);
      if (k)
        T_OK(ctx, vncl_scalar_binary(ctx, VNCL_POW, s, y, o));
      else
        T_OK(ctx, vncl_binary(ctx, VNCL_POW, x, y, o));
      double *got = t_read(ctx, o);
      char what[96];
      snprintf(what, sizeof what, "pow%s %s over the whole range",
               k ? " of a scalar" : "", vncl_dtype_name(t));
      t_check(what, (size_t)n, got, ref, rtol_for(t, ULP_FUNC), atol_for(t));
      free(xv), free(yv), free(ref), free(got);
      vncl_tensor_destroy(x), vncl_tensor_destroy(y), vncl_tensor_destroy(o);
    }
  }
}

/* NaN, infinities and signed zeros through every operation. */
static void test_special_values(void **st) {
  (void)st;
  const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0,
                       1.0, -1.0,     0.5,       3.0, -2.0};
  enum { N = sizeof sp / sizeof *sp };
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    int64_t sa[2] = {N, 1}, sb[1] = {N}, so[2] = {N, N};
    vncl_tensor *a = t_new(ctx, t, 2, sa), *b = t_new(ctx, t, 1, sb),
                *o = t_new(ctx, t, 2, so), *u = t_new(ctx, t, 1, sb);
    t_write(ctx, a, sp);
    t_write(ctx, b, sp);
    for (int op = 0; op <= VNCL_POW; op++) {
      t_poison(ctx, o);
      T_OK(ctx, vncl_binary(ctx, (vncl_binary_op)op, a, b, o));
      double *got = t_read(ctx, o), ref[N * N];
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) ref[i * N + j] = ref_binary(op, sp[i], sp[j]);
      char what[64];
      snprintf(what, sizeof what, "%s %s on special values", bin_names[op],
               vncl_dtype_name(t));
      t_check(what, N * N, got, ref, rtol_for(t, ULP_GELU), atol_for(t));
      free(got);
    }
    for (int op = 0; op <= VNCL_GELU; op++) {
      t_poison(ctx, u);
      T_OK(ctx, vncl_unary(ctx, (vncl_unary_op)op, b, u));
      double *got = t_read(ctx, u), ref[N];
      for (int i = 0; i < N; i++) ref[i] = ref_unary(op, sp[i]);
      char what[64];
      snprintf(what, sizeof what, "%s %s on special values", un_names[op],
               vncl_dtype_name(t));
      t_check(what, N, got, ref, rtol_for(t, ULP_GELU), atol_for(t));
      free(got);
    }
    vncl_tensor_destroy(a), vncl_tensor_destroy(b), vncl_tensor_destroy(o),
        vncl_tensor_destroy(u);
  }
}

static void test_in_place(void **st) {
  (void)st;
  int64_t shape[1] = {1001};
  double *av = t_rand_vals(VNCL_F32, 1001, -2, 2),
         *bv = t_rand_vals(VNCL_F32, 1001, -2, 2);
  vncl_tensor *a = t_new(ctx, VNCL_F32, 1, shape),
              *b = t_new(ctx, VNCL_F32, 1, shape);
  t_write(ctx, a, av);
  t_write(ctx, b, bv);
  T_OK(ctx, vncl_binary(ctx, VNCL_MUL, a, b, a));  /* a *= b */
  T_OK(ctx, vncl_unary(ctx, VNCL_NEG, a, a));      /* a = -a */
  T_OK(ctx, vncl_binary_scalar(ctx, VNCL_ADD, a, 1, a));
  double *got = t_read(ctx, a), ref[1001];
  for (int i = 0; i < 1001; i++) ref[i] = -(av[i] * bv[i]) + 1;
  t_check("in place", 1001, got, ref, 1e-6, 1e-6);
  free(av), free(bv), free(got);
  vncl_tensor_destroy(a), vncl_tensor_destroy(b);
}

/* Other work-group sizes, vector widths and items per work-item give the
 * same results (elementwise results do not depend on the layout at all). */
static void test_params_independent(void **st) {
  (void)st;
  /* The GPU default in every dtype, extremes in f32 (each new set is a
   * program build per dtype, slow on PoCL); 16-lane vectors without
   * non-temporal stores in every dtype too (bf16 then stores uint8 where
   * the output is 4-byte aligned, ushort16 where not: rows of 53). */
  /* WG, VW, IPT, ITEM_CONTIG, NT_STORE */
  static const int sets[][VNCL__OPS_MAX_PARAMS] = {
      {256, 4, 1, 0, 0}, {64, 1, 1, 0, 0}, {128, 16, 2, 1, 1},
      {16, 16, 4, 1, 0}};
  int64_t n1[1] = {100003}, sa[2] = {37, 53}, sb[2] = {37, 1};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_ELEMENTWISE, sets[k]));
    for (int ti = 0; ti < (k == 0 || k == 3 ? 4 : 1); ti++) {
      vncl_dtype t = t_float_types[ti];
      run_binary(t, (int)k % 7, 1, n1, 1, n1);
      run_binary(t, VNCL_SUB, 2, sa, 2, sb);
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_ELEMENTWISE, NULL));
}

/* Broadcasts over rows of a few vectors (ew_binary_short: several rows a
 * work-item), with each set's shapes chosen to reach it: a tail past the
 * last whole vector (done as an overlapping vector, also in place), rows
 * of whole vectors (non-temporal stores), a middle axis whose coordinate
 * wraps within a work-item's rows, a broadcast on both sides, the last
 * work-item short of rows, rows shorter than the set's vector; rows one
 * after the other (the CPU row) and WG apart (GPU-style stepping). */
static void test_binary_short_rows(void **st) {
  (void)st;
  static const struct {
    int set[VNCL__OPS_MAX_PARAMS]; /* WG, VW, IPT, ITEM_CONTIG, NT_STORE */
    int64_t in; /* a row with a tail */
    int64_t whole; /* a row of whole vectors */
    int ntypes;
  } sets[] = {{{16, 16, 64, 1, 1}, 24, 16, 4}, {{32, 4, 8, 0, 0}, 6, 4, 2}};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_ELEMENTWISE, sets[k].set));
    int64_t L = sets[k].in, W = sets[k].whole;
    int64_t row[2] = {67, L}, rb[1] = {L}, col[2] = {67, W}, cb[2] = {67, 1},
            mid[3] = {5, 7, L}, mb[3] = {5, 1, L}, oa[2] = {67, 1},
            ob[2] = {1, L}, odd[2] = {67, 17}, ods[1] = {17},
            tiny[2] = {1000, 3}, tb[1] = {3}, five[2] = {1000, 5},
            fb[1] = {5}, pair[2] = {67, 2}, pb[1] = {2};
    for (int ti = 0; ti < sets[k].ntypes; ti++) {
      vncl_dtype t = ti == 1 && sets[k].ntypes == 2 ? VNCL_F16
                                                    : t_float_types[ti];
      run_binary(t, VNCL_ADD, 2, row, 1, rb);
      run_binary(t, VNCL_DIV, 2, col, 2, cb);
      run_binary(t, VNCL_SUB, 3, mid, 3, mb);
      run_binary(t, VNCL_MUL, 2, oa, 2, ob);
      run_binary(t, VNCL_MAX, 1, rb, 2, row); /* the broadcast one first */
      run_binary_to(t, VNCL_SUB, 2, row, 1, rb, true);
      /* rows of 17: 34 bytes apart in f16 (vectors loaded unaligned) */
      run_binary_to(t, VNCL_ADD, 2, odd, 1, ods, true);
      /* rows shorter than the set's vectors by columns (rows of 3 in
       * vectors of 4: vectors of 2, a program of their own, the tail
       * overlapping) and rows of at most half a vector
       * (ew_binary_period) with a value per row or a row repeated down
       * them: work-items starting at every phase of rows of 3 and 5 (in
       * vectors of 16), a column's vectors over several rows, an element
       * tail, either order, in place */
      run_binary(t, VNCL_ADD, 2, tiny, 2, (int64_t[2]){1000, 1});
      run_binary(t, VNCL_ADD, 2, pair, 2, cb);
      run_binary(t, VNCL_DIV, 2, (int64_t[2]){1000, 1}, 2, five);
      run_binary_to(t, VNCL_SUB, 2, five, 2, (int64_t[2]){1000, 1}, true);
      run_binary_to(t, VNCL_MUL, 2, tiny, 1, tb, true);
      run_binary(t, VNCL_SUB, 1, tb, 2, tiny);
      run_binary(t, VNCL_DIV, 2, five, 1, fb);
      run_binary(t, VNCL_POW, 1, fb, 2, five);
      run_binary(t, VNCL_DIV, 2, pair, 1, pb);
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_ELEMENTWISE, NULL));
}

static void test_bad_inputs(void **st) {
  (void)st;
  int64_t s2[2] = {4, 5}, s3[1] = {3}, s5[1] = {5}, s45[2] = {4, 6};
  vncl_tensor *a = t_new(ctx, VNCL_F32, 2, s2), *b = t_new(ctx, VNCL_F32, 1, s3),
              *o = t_new(ctx, VNCL_F32, 2, s2), *o2 = t_new(ctx, VNCL_F32, 2, s45),
              *h = t_new(ctx, VNCL_F16, 2, s2), *i32 = t_new(ctx, VNCL_I32, 2, s2),
              *r = t_new(ctx, VNCL_F32, 1, s5), *d = t_new(ctx, VNCL_F64, 2, s2),
              *d2 = t_new(ctx, VNCL_F64, 2, s2);
  vncl_context *other = t_context(NULL);
  vncl_tensor *x = t_new(other, VNCL_F32, 2, s2);
  t_poison(ctx, o);

  T_FAILS(NULL, vncl_binary(NULL, VNCL_ADD, a, a, o), VNCL_ERR_INVALID_ARG,
          "ctx is NULL");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, NULL, a, o), VNCL_ERR_INVALID_ARG,
          "a is NULL");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, NULL, o), VNCL_ERR_INVALID_ARG,
          "b is NULL");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, a, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, b, o), VNCL_ERR_INVALID_ARG,
          "do not broadcast");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, r, o2), VNCL_ERR_INVALID_ARG,
          "is not the broadcast shape");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, h, o), VNCL_ERR_INVALID_ARG,
          "dtype mismatch");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, a, h), VNCL_ERR_INVALID_ARG,
          "dtype mismatch");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, x, o), VNCL_ERR_INVALID_ARG,
          "another context");
  T_FAILS(ctx, vncl_binary(ctx, (vncl_binary_op)7, a, a, o),
          VNCL_ERR_INVALID_ARG, "unknown operation");
  T_FAILS(ctx, vncl_binary(ctx, (vncl_binary_op)-1, a, a, o),
          VNCL_ERR_INVALID_ARG, "unknown operation");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, i32, i32, i32), VNCL_ERR_UNSUPPORTED,
          "i32");
  T_FAILS(ctx, vncl_binary_scalar(ctx, VNCL_ADD, a, 1, o2),
          VNCL_ERR_INVALID_ARG, "shape mismatch");
  T_FAILS(ctx, vncl_binary_scalar(ctx, VNCL_ADD, NULL, 1, o),
          VNCL_ERR_INVALID_ARG, "x is NULL");
  T_FAILS(ctx, vncl_scalar_binary(ctx, (vncl_binary_op)9, 1, a, o),
          VNCL_ERR_INVALID_ARG, "unknown operation");
  T_FAILS(ctx, vncl_axpby(ctx, 1, o2, 1, o), VNCL_ERR_INVALID_ARG,
          "do not broadcast");
  T_FAILS(ctx, vncl_axpby(ctx, 1, o, 1, r), VNCL_ERR_INVALID_ARG,
          "does not broadcast to y");
  T_FAILS(ctx, vncl_axpby(ctx, 1, h, 1, o), VNCL_ERR_INVALID_ARG,
          "dtype mismatch");
  T_FAILS(ctx, vncl_axpby(ctx, 1, a, 1, NULL), VNCL_ERR_INVALID_ARG,
          "y is NULL");
  T_FAILS(ctx, vncl_unary(ctx, VNCL_EXP, a, o2), VNCL_ERR_INVALID_ARG,
          "shape mismatch");
  T_FAILS(ctx, vncl_unary(ctx, (vncl_unary_op)9, a, o), VNCL_ERR_INVALID_ARG,
          "unknown operation");
  T_FAILS(ctx, vncl_unary(ctx, VNCL_EXP, i32, i32), VNCL_ERR_UNSUPPORTED,
          "i32");
  T_FAILS(ctx, vncl_unary(ctx, VNCL_EXP, x, o), VNCL_ERR_INVALID_ARG,
          "another context");
  /* f64 on a device without fp64: pretend this one has none. */
  int fp64 = ctx->info.fp64;
  ctx->info.fp64 = 0;
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, d, d, d2), VNCL_ERR_UNSUPPORTED,
          "fp64");
  T_FAILS(ctx, vncl_unary(ctx, VNCL_EXP, d, d2), VNCL_ERR_UNSUPPORTED, "fp64");
  ctx->info.fp64 = fp64;
  assert_true(t_still_poisoned(ctx, o));

  vncl_tensor_destroy(x);
  vncl_context_destroy(other);
  vncl_tensor *all[] = {a, b, o, o2, h, i32, r, d, d2};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    vncl_tensor_destroy(all[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_binary_same_shape),
      cmocka_unit_test(test_binary_broadcast),
      cmocka_unit_test(test_binary_short_rows),
      cmocka_unit_test(test_binary_scalar),
      cmocka_unit_test(test_axpby),
      cmocka_unit_test(test_unary),
      cmocka_unit_test(test_unary_wide),
      cmocka_unit_test(test_pow_wide),
      cmocka_unit_test(test_special_values),
      cmocka_unit_test(test_in_place),
      cmocka_unit_test(test_params_independent),
      cmocka_unit_test(test_bad_inputs),
  };
  t_test_filter();
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
