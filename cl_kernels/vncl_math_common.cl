/*
 * vncl_math_common.cl: f32 functions of vncl's own (no library call), put
 * after the prelude of the programs that use them (random.cl, softmax.cl;
 * lib/runtime/program.c, shared_sources).
 *
 * VNCL_LOGF_FN(N) defines vncl_logfN(u), the natural log of a positive
 * normal f32 on N lanes (N empty: scalar): u = m 2^e with m in
 * [sqrt(1/2), sqrt(2)) taken from the bits (subtracting the bits of
 * sqrt(1/2) first puts e in the exponent field), log(m) = 2 atanh(s) =
 * 2s + s z R(z), s = (m - 1) / (m + 1), z = s^2 <= 0.0295, R of degree 3
 * (fitted by Chebyshev interpolation in z, coefficients rounded to f32:
 * 3e-10 relative), plus e ln2 as ln2_hi + ln2_lo (ln2_hi has 16
 * significant bits: e ln2_hi is exact for every f32 exponent). Lane-wise
 * operations with explicit fma and one division. Zero, subnormals,
 * negative values, inf and NaN are outside its domain (it returns a finite
 * value for them, NaN included): callers pass only normal positive
 * arguments (Box-Muller's u in (0, 1], softmax's row sums in [1, N]) and
 * handle NaN themselves. docs/ops.md gives the measured errors.
 */
#define VNCL_LOGF_FN(N)                                                     \
  inline CAT(float, N) CAT(vncl_logf, N)(CAT(float, N) u) {                 \
    typedef CAT(float, N) fv;                                               \
    typedef CAT(int, N) iv;                                                 \
    const iv ix = CAT(as_int, N)(u) - (iv)0x3f3504f3;                       \
    const fv e = CAT(convert_float, N)(ix >> 23);                           \
    const fv f = CAT(as_float, N)((ix & (iv)0x007fffff) + (iv)0x3f3504f3) - \
                 (fv)1.0f;                                                  \
    const fv s = f / ((fv)2.0f + f), z = s * s;                             \
    fv R = fma((fv)0x1.dddadap-3f, z, (fv)0x1.245c0cp-2f);                  \
    R = fma(R, z, (fv)0x1.9999ecp-2f);                                      \
    R = fma(R, z, (fv)0x1.555556p-1f);                                      \
    const fv lm = fma(s * z, R, s + s);                                     \
    return fma(e, (fv)0x1.62e4p-1f, fma(e, (fv)0x1.7f7d1cp-20f, lm));       \
  }
