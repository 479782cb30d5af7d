/* Facts about the element types, in one table (VNCL__DTYPES), and the
 * host-side conversions between doubles and the bits of the 16-bit types,
 * for every layer that needs them (GEMM's scalars, fills) and, public, for
 * users, the benchmarks and the tools. */
#include <math.h>

#include "runtime/runtime.h"

size_t vncl_dtype_size(vncl_dtype t) {
#define X(e, name, bytes, is_float) \
  if (t == e) return bytes;
  VNCL__DTYPES(X)
#undef X
  return 0;
}

const char *vncl_dtype_name(vncl_dtype t) {
#define X(e, name, bytes, is_float) \
  if (t == e) return name;
  VNCL__DTYPES(X)
#undef X
  return "?";
}

/* Rounds x to nearest even in a binary format with `mant` explicit
 * significand bits, exponent bias `bias` and an all-ones top exponent for
 * inf/NaN; returns the bits (sign included) in the low 1 + ebits + mant. */
static uint16_t round_small(double x, int mant, int ebits) {
  int bias = (1 << (ebits - 1)) - 1;
  uint16_t sign = signbit(x) ? (uint16_t)(1u << (mant + ebits)) : 0;
  uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mant);
  if (isnan(x)) return sign | inf | (uint16_t)(1u << (mant - 1));
  double a = fabs(x);
  if (isinf(a)) return sign | inf;
  if (a < ldexp(1.0, 1 - bias)) { /* subnormal: a = m * 2^(1-bias-mant) */
    double m = nearbyint(ldexp(a, bias - 1 + mant));
    return sign | (uint16_t)m; /* m == 2^mant encodes the smallest normal */
  }
  int e;
  double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  double m = nearbyint(ldexp(f, mant + 1)); /* in [2^mant, 2^(mant+1)] */
  int E = e - 1;
  if (m >= ldexp(1.0, mant + 1)) {
    m = ldexp(1.0, mant);
    E++;
  }
  if (E + bias >= (1 << ebits) - 1) return sign | inf;
  return sign | (uint16_t)((unsigned)(E + bias) << mant) |
         (uint16_t)((unsigned)m - (1u << mant));
}

uint16_t vncl__f64_to_f16_bits(double x) { return round_small(x, 10, 5); }
uint16_t vncl__f64_to_bf16_bits(double x) { return round_small(x, 7, 8); }

/* The value of a small format's bits (inverse of round_small). */
static double value_small(uint16_t b, int mant, int ebits) {
  int bias = (1 << (ebits - 1)) - 1, top = (1 << ebits) - 1;
  int e = (b >> mant) & top;
  double m = b & ((1u << mant) - 1);
  double v = e == top ? (m ? NAN : INFINITY)
             : e == 0 ? ldexp(m, 1 - bias - mant)
                      : ldexp(m + ldexp(1.0, mant), e - bias - mant);
  return (b >> (mant + ebits)) & 1 ? -v : v;
}

uint16_t vncl_f16_from_double(double x) { return vncl__f64_to_f16_bits(x); }
uint16_t vncl_bf16_from_double(double x) { return vncl__f64_to_bf16_bits(x); }
double vncl_f16_to_double(uint16_t bits) { return value_small(bits, 10, 5); }
double vncl_bf16_to_double(uint16_t bits) { return value_small(bits, 7, 8); }
