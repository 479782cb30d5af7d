/* Random numbers: a CPU Philox4x32-10 checked against the published
 * known-answer vectors (Random123), then the device's uniform numbers
 * against it bit for bit in every dtype, normal numbers within rounding,
 * results independent of work-group size and blocks per work-item,
 * continuation by offset, 64-bit counter carry, rough statistics, and bad
 * inputs. */
/* Internal headers on purpose (before test_ops.h, whose probe helper
 * needs them): fakes a device without fp64 (ctx->info.fp64)
 * and sets the family's parameters (vncl__ops_params_set) to reach each
 * kernel variant. */
#include "runtime/runtime.h"
#include "ops/ops.h"
#include "test_ops.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define ctx t_ctx /* the shared fixture's context (common.c) */

/* ---- the CPU Philox (test/common.c) against the published answers ------ */

static void test_philox_kat(void **st) {
  (void)st;
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
       0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
       0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}};
  for (int i = 0; i < 3; i++) {
    uint32_t c[4] = {kat[i][0], kat[i][1], kat[i][2], kat[i][3]};
    t_philox4x32_10(c, kat[i][4], kat[i][5]);
    for (int j = 0; j < 4; j++) assert_int_equal(c[j], kat[i][6 + j]);
  }
}

/* ---- the expected values ------------------------------------------------- */

/* Element e of a uniform tensor, as the bits the device must produce
 * (returned as a double of the stored value). */
static double expect_uniform(vncl_dtype t, uint64_t seed, uint64_t sub,
                             uint64_t off, size_t e, double lo, double hi) {
  uint32_t w[4];
  if (t == VNCL_F64) {
    t_philox_block(seed, sub, off + e / 2, w);
    size_t h = e % 2;
    return fma(hi - lo, t_philox_u53(w[2 * h], w[2 * h + 1]), lo);
  }
  t_philox_block(seed, sub, off + e / 4, w);
  float u = (float)(w[e % 4] >> 8) * 0x1p-24f;
  float v = fmaf((float)(hi - lo), u, (float)lo);
  return t_round(t, v);
}

/* Element e of a normal tensor, in double from the same words. */
static double expect_normal(vncl_dtype t, uint64_t seed, uint64_t sub,
                            uint64_t off, size_t e, double mean, double sd) {
  uint32_t w[4];
  double u1, u2;
  size_t h;
  if (t == VNCL_F64) {
    t_philox_block(seed, sub, off + e / 2, w);
    u1 = (double)((((uint64_t)(w[0] >> 5) << 26) | (w[1] >> 6)) + 1) * 0x1p-53;
    u2 = t_philox_u53(w[2], w[3]);
    h = e % 2;
  } else {
    t_philox_block(seed, sub, off + e / 4, w);
    size_t p = (e % 4) / 2;
    u1 = (double)((w[2 * p] >> 8) + 1) * 0x1p-24;
    u2 = (double)(w[2 * p + 1] >> 8) * 0x1p-24;
    h = e % 2;
  }
  double r = sqrt(-2 * log(u1)), th = 2 * M_PI * u2;
  return mean + sd * r * (h ? sin(th) : cos(th));
}

/* Raw bytes of a tensor (for bit comparisons). */
static void *raw(const vncl_tensor *t) {
  size_t b = vncl_tensor_bytes(t);
  void *p = malloc(b ? b : 1);
  T_OK(ctx, vncl_tensor_read(t, p, b));
  return p;
}

static void check_uniform(vncl_dtype t, size_t n, uint64_t seed, uint64_t sub,
                          uint64_t off, double lo, double hi) {
  int64_t shape[1] = {(int64_t)n};
  vncl_tensor *o = t_new(ctx, t, 1, shape);
  t_poison(ctx, o);
  T_OK(ctx, vncl_random_uniform(ctx, o, seed, sub, off, lo, hi));
  double *got = t_read(ctx, o);
  size_t bad = 0, first = 0;
  for (size_t e = 0; e < n; e++) {
    double x = expect_uniform(t, seed, sub, off, e, lo, hi);
    if (!(got[e] == x) && bad++ == 0) first = e;
  }
  if (bad)
    fail_msg("uniform %s n=%zu seed=%llu sub=%llu offset=%llu: %zu elements "
             "differ from the CPU Philox; first %zu: %.17g vs %.17g",
             vncl_dtype_name(t), n, (unsigned long long)seed,
             (unsigned long long)sub, (unsigned long long)off, bad, first,
             got[first], expect_uniform(t, seed, sub, off, first, lo, hi));
  /* lo <= x <= hi (hi only by rounding) */
  for (size_t e = 0; e < n; e++) assert_true(got[e] >= lo && got[e] <= hi);
  free(got);
  vncl_tensor_destroy(o);
}

static void test_uniform_bit_exact(void **st) {
  (void)st;
  const size_t sizes[] = {1, 3, 4, 5, 1001, (1u << 20) + 3};
  for (int ti = 0; ti < 4; ti++)
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
      uint64_t seed = t_rand_u64(), sub = si % 2 ? t_rand_u64() : 0;
      uint64_t off = si % 3 == 0 ? 0 : t_rand_u64() >> 1;
      check_uniform(t_float_types[ti], sizes[si], seed, sub, off, 0, 1);
      check_uniform(t_float_types[ti], sizes[si] / 3 + 1, seed, sub, off, -2.5,
                    7);
    }
  /* The block counter carries into its high word. */
  check_uniform(VNCL_F32, 4000, 42, 7, 0xfffffff0ull, -1, 1);
  check_uniform(VNCL_F64, 4000, 42, 7, 0xfffffff0ull, -1, 1);
}

static void test_normal(void **st) {
  (void)st;
  const size_t sizes[] = {1, 5, 1001, 1u << 20};
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
      size_t n = sizes[si];
      uint64_t seed = t_rand_u64(), sub = t_rand_u64(), off = t_rand_u64() >> 8;
      double mean = si == 3 ? 0 : 1.5, sd = si == 3 ? 1 : 0.25;
      int64_t shape[1] = {(int64_t)n};
      vncl_tensor *o = t_new(ctx, t, 1, shape);
      t_poison(ctx, o);
      T_OK(ctx, vncl_random_normal(ctx, o, seed, sub, off, mean, sd));
      double *got = t_read(ctx, o), *ref = malloc(n * sizeof *ref),
             *tol = malloc(n * sizeof *tol);
      double e = t == VNCL_F64 ? 1e-13 : 4e-6;
      double sum = 0, sq = 0;
      for (size_t i = 0; i < n; i++) {
        ref[i] = expect_normal(t, seed, sub, off, i, mean, sd);
        tol[i] = e * sd * (fabs(ref[i] - mean) / sd + 1) +
                 t_eps(t) * fabs(ref[i]);
        sum += got[i];
        sq += (got[i] - mean) * (got[i] - mean);
      }
      char what[64];
      snprintf(what, sizeof what, "normal %s n=%zu", vncl_dtype_name(t), n);
      t_check_each(what, n, got, ref, tol);
      if (n == (1u << 20)) { /* mean within 6 sigma, variance within 2% */
        double m = sum / (double)n, var = sq / (double)n;
        if (fabs(m) > 6 / sqrt((double)n) || fabs(var - 1) > 0.02)
          fail_msg("normal %s: mean %g, variance %g", vncl_dtype_name(t), m,
                   var);
      }
      free(got), free(ref), free(tol);
      vncl_tensor_destroy(o);
    }
  }
}

/* The kernels' own f32 log and sincos (random.cl, rnd_log and
 * rnd_sincos2pi) over every argument Box-Muller gives them, u = j * 2^-24
 * for j in [0, 2^24] (log for j >= 1), through the test hook
 * philox_math_probe with blocks per work-item 1 and 16 (scalar and vector
 * forms), against double: log(u), and sin, cos of 2 pi u reduced exactly
 * in double (u - q/4, so the zeros at quarter turns are exact). At most 2
 * ulp of each result (measured: the message printed). */
static void test_normal_math(void **st) {
  (void)st;
  const size_t chunk = 1u << 22, total = (1u << 24) + 1;
  float *in = malloc(chunk * sizeof *in);
  assert_non_null(in);
  static const int bpis[] = {1, 16};
  for (size_t bi = 0; bi < 2; bi++) {
    int set[VNCL__OPS_MAX_PARAMS] = {64, bpis[bi]};
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_RANDOM, set));
    double wl = 0, wc = 0, ws = 0;
    double al = 0, ac = 0, as = 0;
    /* a random rotation of the chunk boundaries */
    size_t shift = (size_t)(t_rand_u64() % chunk);
    for (size_t c0 = 0; c0 < total; c0 += chunk) {
      size_t n = total - c0 < chunk ? total - c0 : chunk;
      for (size_t i = 0; i < n; i++)
        in[i] = (float)((c0 + i + shift) % total) * 0x1p-24f;
      float *got = t_probe(ctx, VNCL__OPS_RANDOM, RND_BPI, "philox_math_probe",
                           in, n, 3);
      for (size_t i = 0; i < n; i++) {
        double u = in[i], sv, cv;
        t_sincos2pi(u, &sv, &cv);
        double el = u > 0 ? t_ulp_err(got[3 * i], log(u)) : 0;
        double ec = t_ulp_err(got[3 * i + 1], cv);
        double es = t_ulp_err(got[3 * i + 2], sv);
        if (!(el <= 2 && ec <= 2 && es <= 2))
          fail_msg("u = %.9g (BPI %d): log %.9g vs %.17g (%.2f ulp), cos "
                   "%.9g vs %.17g (%.2f ulp), sin %.9g vs %.17g (%.2f ulp)",
                   u, bpis[bi], (double)got[3 * i], log(u), el,
                   (double)got[3 * i + 1], cv, ec, (double)got[3 * i + 2], sv,
                   es);
        if (el > wl) wl = el, al = u;
        if (ec > wc) wc = ec, ac = u;
        if (es > ws) ws = es, as = u;
      }
      free(got);
    }
    if (bi == 0)
      print_message("normal math: max log %.3f ulp, cos %.3f ulp, sin %.3f "
                    "ulp over all %zu arguments (worst at u = %.9g, %.9g, "
                    "%.9g)\n", wl, wc, ws, total, al, ac, as);
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_RANDOM, NULL));
  free(in);
}

/* The same numbers whatever the work-group size and blocks per item:
 * uniform bit for bit, normal within the math functions' rounding. */
static void test_params_independent(void **st) {
  (void)st;
  static const int sets[][VNCL__OPS_MAX_PARAMS] = {{64, 1}, {256, 8},
                                                   {1024, 2}, {128, 4},
                                                   {16, 16}};
  const size_t n = 100003;
  int64_t shape[1] = {(int64_t)n};
  for (int ti = 0; ti < 2; ti++) { /* f32, f64 */
    vncl_dtype t = t_float_types[ti];
    vncl_tensor *o = t_new(ctx, t, 1, shape);
    uint64_t seed = t_rand_u64();
    void *first_u = NULL, *first_n = NULL;
    for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
      T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_RANDOM, sets[k]));
      T_OK(ctx, vncl_random_uniform(ctx, o, seed, 3, 11, -1, 1));
      void *u = raw(o);
      T_OK(ctx, vncl_random_normal(ctx, o, seed, 3, 11, 0, 1));
      void *nn = raw(o);
      if (!first_u) {
        first_u = u, first_n = nn;
        continue;
      }
      if (memcmp(u, first_u, vncl_tensor_bytes(o)))
        fail_msg("uniform %s: WG=%d BPI=%d changes the numbers",
                 vncl_dtype_name(t), sets[k][0], sets[k][1]);
      /* Normal numbers go through log, sqrt, sin and cos, whose vector
       * forms may round differently from their scalar forms by an ulp or
       * two: equal within that. */
      for (size_t i = 0; i < n; i++) {
        double x = t == VNCL_F64 ? ((double *)nn)[i] : ((float *)nn)[i];
        double y = t == VNCL_F64 ? ((double *)first_n)[i]
                                 : ((float *)first_n)[i];
        if (!(fabs(x - y) <= 8 * t_eps(t) * (fabs(y) + 1)))
          fail_msg("normal %s: WG=%d BPI=%d element %zu: %.17g vs %.17g",
                   vncl_dtype_name(t), sets[k][0], sets[k][1], i, x, y);
      }
      free(u), free(nn);
    }
    free(first_u), free(first_n);
    vncl_tensor_destroy(o);
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_RANDOM, NULL));
}

/* A tensor of 16 = one of 8 at offset 0 followed by one of 8 at offset 2
 * (8 f32 values use 2 blocks). */
static void test_continuation(void **st) {
  (void)st;
  int64_t s16[1] = {16}, s8[1] = {8};
  vncl_tensor *a = t_new(ctx, VNCL_F32, 1, s16), *b = t_new(ctx, VNCL_F32, 1, s8);
  T_OK(ctx, vncl_random_uniform(ctx, a, 99, 0, 0, 0, 1));
  float *fa = raw(a);
  T_OK(ctx, vncl_random_uniform(ctx, b, 99, 0, 0, 0, 1));
  float *f0 = raw(b);
  T_OK(ctx, vncl_random_uniform(ctx, b, 99, 0, 2, 0, 1));
  float *f2 = raw(b);
  assert_memory_equal(fa, f0, 8 * sizeof(float));
  assert_memory_equal(fa + 8, f2, 8 * sizeof(float));
  /* another subsequence or seed gives other numbers */
  T_OK(ctx, vncl_random_uniform(ctx, b, 99, 1, 0, 0, 1));
  float *fs = raw(b);
  assert_true(memcmp(fs, f0, 8 * sizeof(float)) != 0);
  free(fa), free(f0), free(f2), free(fs);
  vncl_tensor_destroy(a), vncl_tensor_destroy(b);
}

static void test_bad_inputs(void **st) {
  (void)st;
  int64_t s[1] = {10};
  vncl_tensor *i = t_new(ctx, VNCL_I32, 1, s), *f = t_new(ctx, VNCL_F32, 1, s),
              *d = t_new(ctx, VNCL_F64, 1, s);
  vncl_context *other = t_context(NULL);
  vncl_tensor *of = t_new(other, VNCL_F32, 1, s);
  t_poison(ctx, f);
  T_FAILS(NULL, vncl_random_uniform(NULL, f, 1, 0, 0, 0, 1),
          VNCL_ERR_INVALID_ARG, "ctx is NULL");
  T_FAILS(ctx, vncl_random_uniform(ctx, NULL, 1, 0, 0, 0, 1),
          VNCL_ERR_INVALID_ARG, "out is NULL");
  T_FAILS(ctx, vncl_random_uniform(ctx, of, 1, 0, 0, 0, 1),
          VNCL_ERR_INVALID_ARG, "another context");
  T_FAILS(ctx, vncl_random_uniform(ctx, i, 1, 0, 0, 0, 1),
          VNCL_ERR_UNSUPPORTED, "i32");
  T_FAILS(ctx, vncl_random_uniform(ctx, f, 1, 0, 0, 0, INFINITY),
          VNCL_ERR_INVALID_ARG, "finite");
  T_FAILS(ctx, vncl_random_uniform(ctx, f, 1, 0, 0, -3e38, 3e38),
          VNCL_ERR_INVALID_ARG, "overflow");
  T_FAILS(ctx, vncl_random_normal(ctx, f, 1, 0, 0, 0, -1),
          VNCL_ERR_INVALID_ARG, "stddev >= 0");
  T_FAILS(ctx, vncl_random_normal(ctx, f, 1, 0, 0, NAN, 1),
          VNCL_ERR_INVALID_ARG, "finite");
  int fp64 = ctx->info.fp64;
  ctx->info.fp64 = 0;
  T_FAILS(ctx, vncl_random_normal(ctx, d, 1, 0, 0, 0, 1),
          VNCL_ERR_UNSUPPORTED, "fp64");
  ctx->info.fp64 = fp64;
  assert_true(t_still_poisoned(ctx, f));
  vncl_tensor_destroy(of);
  vncl_context_destroy(other);
  vncl_tensor_destroy(i), vncl_tensor_destroy(f), vncl_tensor_destroy(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_philox_kat),
      cmocka_unit_test(test_uniform_bit_exact),
      cmocka_unit_test(test_normal),
      cmocka_unit_test(test_normal_math),
      cmocka_unit_test(test_params_independent),
      cmocka_unit_test(test_continuation),
      cmocka_unit_test(test_bad_inputs),
  };
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
