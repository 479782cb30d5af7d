/*
 * vncl_math_common.cl: f32 functions of vncl's own (no library call), put
 * after the prelude of the programs that use them (random.cl, softmax.cl,
 * elementwise.cl; lib/runtime/program.c, shared_sources).
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

/*
 * VNCL_EXPNEGF_FN(N) defines vncl_expnegfN(d), e^d for d <= 0, -inf or NaN
 * (softmax's d = x - max: at most 0, -inf for an element of -inf, NaN for
 * a row holding NaN or +inf; the elementwise sigmoid's -|x|). On that
 * domain:
 *   d is clamped at -104 (exp(-104) < 2^-150 rounds to 0; -inf -> -104, NaN
 *   stays NaN), k = round(d / ln 2) by the 1.5 * 2^23 rounding constant
 *   (float arithmetic only: no float -> int conversion of a NaN),
 *   r = d - k ln2 in two steps (Cody-Waite: ln2_hi has 16 significant bits,
 *   so k * ln2_hi is exact for |k| <= 150), |r| <= ln2 / 2 (+ rounding),
 *   e^r by a degree-6 polynomial (fitted by Chebyshev interpolation on
 *   [-0.35, 0.35], coefficients rounded to f32: 2.2e-8 relative), and the
 *   scale 2^k as 2^(k+64) built from exponent bits (normal for -150 <= k
 *   <= 0, so p 2^(k+64) is exact) times 2^-64: results below 2^-126 round
 *   once to the subnormal. (Before the seventh pass: two factors 2^(k/2)
 *   2^(k - k/2), the same single rounding of p 2^k, so the same bits, in
 *   9 vector operations where this takes 4.)
 * Measured on PoCL over every f32 in [-104, 0]: docs/ops.md gives the max
 * ulp error (test_ops_reduce checks <= 2 ulp on samples of the range every
 * run). Lane-wise IEEE operations with explicit fma: vector and scalar
 * forms give the same bits. */
#define VNCL_EXPNEGF_FN(N)                                                  \
  inline CAT(float, N) CAT(vncl_expnegf, N)(CAT(float, N) d) {              \
    typedef CAT(float, N) fv;                                               \
    typedef CAT(int, N) iv;                                                 \
    const fv x = select(d, (fv)(-104.0f), (iv)(d < -104.0f) != (iv)0);      \
    VNCL_EXPF_REDUCE(fv, x, tm, p)                                          \
    const iv k64 = CAT(as_int, N)(tm) - (iv)(0x4b400000 - 64 - 127);        \
    return p * CAT(as_float, N)(k64 << 23) * 0x1p-64f;                      \
  }

/* VNCL_EXPF_REDUCE(fv, x, tm, p): the core every f32 exp of vncl's shares
 * (vncl_expnegf above, elementwise.cl's exp for 16-bit storage), as
 * statements in the caller's scope (fv its float type): for x within
 * [-104, 89] or NaN, declares tm = x / ln 2 + 1.5 * 2^23 (its bits are
 * 0x4b400000 + k, k = round(x / ln 2)) and p = e^r, r = x - k ln 2, as
 * described above. The caller scales p by 2^k. */
#define VNCL_EXPF_REDUCE(fv, x, tm, p)                                      \
  const fv tm = fma(x, (fv)0x1.715476p+0f, (fv)0x1.8p23f);                  \
  fv p;                                                                     \
  {                                                                         \
    const fv kf_ = tm - (fv)0x1.8p23f;                                      \
    fv r_ = fma(kf_, (fv)(-0x1.62e4p-1f), x);                               \
    r_ = fma(kf_, (fv)(-0x1.7f7d1cp-20f), r_);                              \
    p = fma((fv)0x1.6d7c4p-10f, r_, (fv)0x1.1276b6p-7f);                    \
    p = fma(p, r_, (fv)0x1.5554a6p-5f);                                     \
    p = fma(p, r_, (fv)0x1.5553f6p-3f);                                     \
    p = fma(p, r_, (fv)0.5f);                                               \
    p = fma(p, r_, (fv)1.0f);                                               \
    p = fma(p, r_, (fv)1.0f);                                               \
  }
