/* The public host conversions of the 16-bit storage types
 * (vncl_f16_from_double, vncl_f16_to_double and the bf16 pair) against
 * the tests' own oracle (common.c, written from the formats' definitions,
 * independently of the library): every bit pattern to double, every value
 * and every midpoint between neighbours back (ties to even), fresh random
 * doubles over the whole range, overflow, infinities, NaN. Public headers
 * only. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

typedef struct fmt {
  const char *name;
  uint16_t (*from)(double);
  double (*to)(uint16_t);
  uint16_t (*oracle_from)(double);
  double (*oracle_to)(uint16_t);
  uint16_t inf; /* bits of +infinity */
} fmt;

static const fmt fmts[2] = {
    {"f16", vncl_f16_from_double, vncl_f16_to_double, t_to_f16, t_f16_value,
     0x7c00},
    {"bf16", vncl_bf16_from_double, vncl_bf16_to_double, t_to_bf16,
     t_bf16_value, 0x7f80}};

static bool is_nan_bits(const fmt *f, uint16_t b) {
  return (b & f->inf) == f->inf && (b & (uint16_t)~(f->inf | 0x8000));
}

static bool same_value(double x, double y) {
  return (isnan(x) && isnan(y)) ||
         (x == y && signbit(x) == signbit(y));
}

static void test_to_double_every_pattern(void **st) {
  (void)st;
  for (int fi = 0; fi < 2; fi++) {
    const fmt *f = &fmts[fi];
    for (unsigned b = 0; b < 65536; b++) {
      double got = f->to((uint16_t)b), want = f->oracle_to((uint16_t)b);
      if (!same_value(got, want))
        fail_msg("%s 0x%04x -> %.17g, want %.17g", f->name, b, got, want);
    }
  }
}

static void test_from_double(void **st) {
  (void)st;
  for (int fi = 0; fi < 2; fi++) {
    const fmt *f = &fmts[fi];
    /* Every value round trips; every midpoint to the next value up (and
     * from the largest finite value, the overflow threshold) rounds as the
     * oracle says: to the even neighbour. */
    for (unsigned b = 0; b < 65536; b++) {
      uint16_t bits = (uint16_t)b;
      if (is_nan_bits(f, bits)) continue;
      double v = f->to(bits);
      if (f->from(v) != bits)
        fail_msg("%s: %.17g -> 0x%04x, want 0x%04x", f->name, v, f->from(v),
                 bits);
      if ((bits & 0x7fff) >= f->inf) continue; /* infinities */
      double up = (bits & 0x7fff) + 1 == f->inf
                      ? v + (v - f->to((uint16_t)(bits - 1)))
                      : f->to((uint16_t)(bits + 1));
      double mid = v + (up - v) / 2;
      uint16_t got = f->from(mid), want = f->oracle_from(mid);
      if (got != want)
        fail_msg("%s: midpoint %.17g -> 0x%04x, want 0x%04x", f->name, mid,
                 got, want);
    }
    /* Fresh random doubles across the format's range and beyond. */
    for (int i = 0; i < 200000; i++) {
      double x = ldexp(t_rand_uniform(-1, 1), (int)(t_rand_u64() % 300) - 150);
      uint16_t got = f->from(x), want = f->oracle_from(x);
      if (got != want)
        fail_msg("%s: %.17g -> 0x%04x, want 0x%04x", f->name, x, got, want);
    }
    assert_int_equal(f->from(INFINITY), f->inf);
    assert_int_equal(f->from(-INFINITY), f->inf | 0x8000);
    assert_int_equal(f->from(-0.0), 0x8000);
    assert_true(is_nan_bits(f, f->from(NAN)));
    assert_true(isnan(f->to(f->from(NAN))));
  }
  /* The largest f16 is 65504; above 65520 (the midpoint) overflows. */
  assert_int_equal(vncl_f16_from_double(65504), 0x7bff);
  assert_int_equal(vncl_f16_from_double(65519.99), 0x7bff);
  assert_int_equal(vncl_f16_from_double(65520), 0x7c00);
  assert_true(vncl_bf16_to_double(0x3f80) == 1.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_to_double_every_pattern),
      cmocka_unit_test(test_from_double),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
