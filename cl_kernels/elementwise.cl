/*
 * elementwise.cl: elementwise arithmetic on one storage type (DTYPE).
 *
 *   ew_binary_contig  out[i] = op(a[i], b[i])        a, b, out contiguous, same shape
 *   ew_binary_scalar  out[i] = op(a[i], s)           (the R* ops give op(s, a[i]))
 *   ew_binary_rows    the same by rows: the output's innermost dimension in
 *                     vectors, each input running along it or constant on it
 *   ew_binary_bcast   out[o] = op(a[ia(o)], b[ib(o)]) NumPy broadcasting: the host
 *                     collapses the dimensions and gives each input a stride per
 *                     output dimension, 0 where it is broadcast (the general
 *                     path, for rows shorter than a vector)
 *   ew_binary_short   the same as ew_binary_rows, for rows of a few vectors:
 *                     several whole rows per work-item
 *   ew_binary_period  rows of at most half a vector, one input a row
 *                     repeated down them or a value per row: vectors of the
 *                     output as a whole
 *   ew_unary_contig   out[i] = f(x[i])
 *
 * The operation is a kernel argument, not a macro, so that one program per
 * storage type serves every operation; the switch sits outside the loops,
 * so each operation runs its own tight loop (a uniform branch).
 *
 * 16-bit storage (f16, bf16) is computed in f32; f64 in f64.
 *
 * Layout of the contiguous kernels: the data is cut into vectors of VW
 * elements; work-group g covers vectors g*WG*IPT .. (g+1)*WG*IPT-1 and its
 * work-item l handles IPT of them, either interleaved (ITEM_CONTIG 0, for
 * GPUs: at every step the work-items of a group touch consecutive vectors,
 * which coalesces)
 *
 *     v = g*WG*IPT + k*WG + l        group g: [k=0: l=0|l=1|...][k=1: l=0|...]
 *
 * or as one contiguous run (ITEM_CONTIG 1, for CPUs, which run the
 * work-items of a group one after the other: each streams its own run)
 *
 *     v = (g*WG + l)*IPT + k         group g: [l=0: k=0|k=1|...][l=1: ...]
 *
 * The n % VW elements past the last whole vector are done one by one by the
 * work-item whose v is the first vector past the end. The broadcast kernel
 * handles one element per work-item and step, with the same layouts.
 */

/* Storage type: 0 f32, 1 f64, 2 f16, 3 bf16 (vncl_dtype values). */
#ifndef DTYPE
#define DTYPE 0
#endif
/* Work-items per work-group. */
#ifndef WG
#define WG 256
#endif
/* Elements per vector load/store in the contiguous kernels: 1, 2, 4, 8, 16. */
#ifndef VW
#define VW 4
#endif
/* Vectors (contiguous kernels) or elements (broadcast kernel) per work-item. */
#ifndef IPT
#define IPT 1
#endif
/* 1: each work-item takes IPT consecutive vectors (CPUs); 0: they are WG
 * apart, so that work-items step together (GPUs). */
#ifndef ITEM_CONTIG
#define ITEM_CONTIG 0
#endif
/* 1: vector stores of the contiguous kernels bypass the caches (clang's
 * __builtin_nontemporal_store, where the compiler has it; f32, f64, bf16),
 * which saves CPUs reading the output lines before writing them. The host
 * asks for it only when the output is aligned to a whole vector. */
#ifndef NT_STORE
#define NT_STORE 0
#endif
/* Index width: 32 or 64 bits (64 only for tensors of 2^31 elements or more). */
#ifndef IDX_BITS
#define IDX_BITS 32
#endif

#if IDX_BITS == 64
typedef ulong IDX;
typedef ulong8 IDX8;
#else
typedef uint IDX;
typedef uint8 IDX8;
#endif

/* This work-item's first vector (or element) and the step between its
 * IPT vectors. */
#if ITEM_CONTIG
#define FIRST ((IDX)get_global_id(0) * IPT)
#define STEP 1
#else
#define FIRST ((IDX)get_group_id(0) * (WG * IPT) + (IDX)get_local_id(0))
#define STEP WG
#endif

#if VW == 1
#define VSUF
#else
#define VSUF VW
#endif

/* REAL: the compute type; STORE: what the buffers hold (vncl_prelude.cl). */
#if DTYPE == 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define REAL VNCL_REAL(DTYPE)
#define STORE VNCL_STORAGE(DTYPE)
typedef REAL real;
typedef CAT(REAL, VSUF) realv;

/* LD/ST: element i. LDV/STV: vector v (elements v*VW .. v*VW+VW-1). */
#define LD(p, i) VNCL_LOAD(DTYPE, p, i)
#define ST(p, i, x) VNCL_STORE(DTYPE, p, i, x)
#if VW == 1
#define LDV(p, v) LD(p, v)
#define STV(p, v, x) ST(p, v, x)
#else
#define LDV(p, v) VNCL_VLOAD(DTYPE, VW, v, p)
#define STV(p, v, x) VNCL_VSTORE(DTYPE, VW, p, v, x)
#endif

/* bf16 vectors of 16 lanes: PoCL 3.1's vstore16 of a ushort16 was slow
 * in the casts (docs/ops.md); where the output is 4-byte aligned the same
 * bits go out as a uint8. BF16_WIDE_ST 0 keeps the prelude's vstore16 (for
 * comparisons). */
#ifndef BF16_WIDE_ST
#define BF16_WIDE_ST 1
#endif
#if BF16_WIDE_ST && DTYPE == 3 && VW == 16
#undef STV
#define STV(p, v, x)                                                  \
  do {                                                                \
    const ushort16 u_ = vncl_float16_to_bf16(convert_float16(x));     \
    if (((size_t)(p) & 3) == 0)                                       \
      vstore8(as_uint8(u_), (v), (__global uint *)(p));               \
    else                                                              \
      vstore16(u_, (v), (p));                                         \
  } while (0)
#endif

/* STV_OUT: the vector store of the contiguous kernels and of rows of whole
 * vectors, whose output is vector-aligned: non-temporal when asked and
 * available. */
#if NT_STORE && VW > 1 && DTYPE != 2 && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#if DTYPE == 3
#define STV_OUT(p, v, x)                                             \
  __builtin_nontemporal_store(CAT3(vncl_float, VW, _to_bf16)(x),     \
                              (__global CAT(ushort, VW) *)(p) + (v))
#else
#define STV_OUT(p, v, x) \
  __builtin_nontemporal_store((x), (__global realv *)(p) + (v))
#endif
#endif
#endif
#ifndef STV_OUT
#define STV_OUT(p, v, x) STV(p, v, x)
#endif

/* Operation codes: must match enum ew_op in lib/ops_elementwise.c. */
#define OP_ADD 0
#define OP_SUB 1
#define OP_MUL 2
#define OP_DIV 3
#define OP_MAX 4
#define OP_MIN 5
#define OP_POW 6
#define OP_RSUB 7  /* y - x */
#define OP_RDIV 8  /* y / x */
#define OP_RPOW 9  /* pow(y, x) */
#define OP_AXPBY 10 /* alpha*x + beta*y */
#define OP_SCALE 11 /* alpha*x (y is not read: axpby with beta = 0) */
#define OP_COPY 12  /* x */

#define U_NEG 0
#define U_ABS 1
#define U_EXP 2
#define U_LOG 3
#define U_SQRT 4
#define U_TANH 5
#define U_SIGMOID 6
#define U_RELU 7
#define U_GELU 8

/* max/min that return NaN when either operand is NaN (fmax would drop it).
 * The same text serves scalars and vectors. */
#define NMAX(x, y) ((((x) > (y)) | IS_NAN(x)) ? (x) : (y))
#define NMIN(x, y) ((((x) < (y)) | IS_NAN(x)) ? (x) : (y))

/* Every binary operation, as an expression of x, y, alpha, beta. */
#define FOR_EACH_BINARY(DO)                 \
  DO(OP_ADD, (x) + (y))                     \
  DO(OP_SUB, (x) - (y))                     \
  DO(OP_MUL, (x) * (y))                     \
  DO(OP_DIV, (x) / (y))                     \
  DO(OP_MAX, NMAX(x, y))                    \
  DO(OP_MIN, NMIN(x, y))                    \
  DO(OP_POW, EW_POW(x, y))                  \
  DO(OP_RSUB, (y) - (x))                    \
  DO(OP_RDIV, (y) / (x))                    \
  DO(OP_RPOW, EW_POW(y, x))                 \
  DO(OP_AXPBY, alpha * (x) + beta * (y))    \
  DO(OP_SCALE, alpha * (x))                 \
  DO(OP_COPY, (x))

/* sigmoid, log, tanh and gelu in f32 compute (f32, f16, bf16): vncl's own
 * functions (with vncl_math_common.cl's) where the compiler is clang (PoCL,
 * Oclgrind and other clang front ends: one overloaded name serves the
 * scalar and the vector forms, which share the operation's expression),
 * the library's elsewhere and for f64. PoCL's library log and exp with a
 * division ran at 0.54x and 0.63x memcpy on two cores of an Intel Xeon,
 * tanh at 0.45x and gelu's erfc at 0.22x (docs/ops.md, seventeenth and
 * nineteenth passes).
 *   sigmoid: e = e^-|x| (vncl_expnegf, at most 1.08 ulp), 1 / (1 + e) for
 *     x >= 0, e / (1 + e) below: no cancellation, at most about 3 ulp;
 *     NaN gives NaN (e is NaN), -inf 0 and +inf 1.
 *   log: vncl_logf (at most 1.65 ulp) of x, or of x 2^23 for subnormal x
 *     with 23 ln 2 taken off in two exact parts; 0 gives -inf, x < 0
 *     NaN, +inf and NaN themselves.
 *   exp, for 16-bit storage only (nineteenth pass): vncl_expnegf's
 *     reduction and polynomial over [-104, 89] (NaN kept, beyond 0 or
 *     inf), the scale 2^k in two exact halves 2^(k>>1) 2^(k-(k>>1)) so
 *     the product rounds once; at most 1.05 ulp (the library's 0.97).
 *     PoCL's AVX2 library exp on 16-lane vectors ran f16 at 0.18-0.20x
 *     memcpy, this at 0.61-0.63x; in f32 storage the library's stays
 *     (0.90-0.99x natively, this 0.85-0.89x).
 *   tanh (nineteenth pass): on a = |x|, below 0.55 a + a^3
 *     P(a^2), P of degree 4; from 0.55, e = e^-2a (vncl_expnegf) and
 *     (1 - e) / (1 + e); the sign of x put back last (-0 stays -0, NaN
 *     NaN, +-inf +-1).
 *   gelu: x/2 erfc(-x/sqrt(2)) with z = min(|x|, 16)/sqrt(2): erfc(z) =
 *     1 - z P(z^2) below z = 0.75 (P of degree 5), from there e^-z^2 t Q(t)
 *     with t = 2 / (2 + z) (Q of degree 7) and z^2 = |x|^2 / 2 taken
 *     exactly (x^2 = h + l by an fma, e^-(h+l)/2 = e^-h/2 (1 - l/2)): a
 *     rounded z would cost 2 z^2 ulp there; for x >= 0 the factor is
 *     2 - erfc(z). Below -16 (-inf included) 0; NaN gives NaN.
 *   P and Q: Chebyshev interpolation in long double, coefficients rounded
 *   to f32 (scripts/fit-math.c prints them and their errors).
 * Every function is forced inline: PoCL's AVX2 kernel library left the
 * larger ones as calls, which kept its vectorizer off the work-item loop
 * (log ran at 0.25x memcpy as AVX2 code). */
#ifndef OWN_MATH
#define OWN_MATH 1
#endif
#if OWN_MATH && DTYPE != 1 && defined(__clang__)
VNCL_EXPNEGF_FN()
VNCL_LOGF_FN()
#if VW > 1
VNCL_EXPNEGF_FN(VW)
VNCL_LOGF_FN(VW)
#endif
#define EW_OWN_FN(N)                                                         \
  inline __attribute__((overloadable, always_inline)) CAT(float, N)          \
  ew_sigmoid(CAT(float, N) x) {                                              \
    typedef CAT(float, N) fv;                                                \
    const fv e = CAT(vncl_expnegf, N)(-fabs(x)), d = (fv)1.0f + e;           \
    return select(e / d, (fv)1.0f / d, x >= (fv)0.0f);                       \
  }                                                                          \
  inline __attribute__((overloadable, always_inline)) CAT(float, N)          \
  ew_log(CAT(float, N) x) {                                                  \
    typedef CAT(float, N) fv;                                                \
    const CAT(int, N) sub = x < (fv)0x1p-126f;                               \
    const fv c = select((fv)0.0f, (fv)(-23.0f), sub);                        \
    fv l = CAT(vncl_logf, N)(select(x, x * (fv)0x1p23f, sub));               \
    l = fma(c, (fv)0x1.62e4p-1f, fma(c, (fv)0x1.7f7d1cp-20f, l));            \
    l = select(l, x, !(x < (fv)INFINITY));                                   \
    l = select(l, (fv)(-INFINITY), x == (fv)0.0f);                           \
    return select(l, (fv)NAN, x < (fv)0.0f);                                 \
  }                                                                          \
  inline __attribute__((overloadable, always_inline)) CAT(float, N)          \
  ew_exp(CAT(float, N) x) {                                                  \
    typedef CAT(float, N) fv;                                                \
    typedef CAT(int, N) iv;                                                  \
    fv d = select(x, (fv)(-104.0f), (iv)(x < (fv)(-104.0f)) != (iv)0);       \
    d = select(d, (fv)89.0f, (iv)(x > (fv)89.0f) != (iv)0);                  \
    VNCL_EXPF_REDUCE(fv, d, tm, p)                                           \
    const iv k = CAT(as_int, N)(tm) - (iv)0x4b400000, k1 = k >> 1;           \
    return p * CAT(as_float, N)((k1 + (iv)127) << 23) *                      \
           CAT(as_float, N)((k - k1 + (iv)127) << 23);                       \
  }                                                                          \
  inline __attribute__((overloadable, always_inline)) CAT(float, N)          \
  ew_tanh(CAT(float, N) x) {                                                 \
    typedef CAT(float, N) fv;                                                \
    const fv a = fabs(x), w = a * a;                                         \
    fv p = fma((fv)(-0x1.b13538p-8f), w, (fv)0x1.5d220ep-6f);                \
    p = fma(p, w, (fv)(-0x1.b9a044p-5f));                                    \
    p = fma(p, w, (fv)0x1.110feap-3f);                                       \
    p = fma(p, w, (fv)(-0x1.555554p-2f));                                    \
    const fv e = CAT(vncl_expnegf, N)(a * (fv)(-2.0f));                      \
    const fv r = select(((fv)1.0f - e) / ((fv)1.0f + e), fma(a * w, p, a),   \
                        a < (fv)0.55f);                                      \
    return copysign(r, x);                                                   \
  }                                                                          \
  inline __attribute__((overloadable, always_inline)) CAT(float, N)          \
  ew_gelu(CAT(float, N) x) {                                                 \
    typedef CAT(float, N) fv;                                                \
    const fv a = fmin(fabs(x), (fv)16.0f), z = a * (fv)0x1.6a09e6p-1f;       \
    const fv w = z * z;                                                      \
    fv p = fma((fv)(-0x1.623bfp-11f), w, (fv)0x1.4f3d08p-8f);                \
    p = fma(p, w, (fv)(-0x1.b7aaap-6f));                                     \
    p = fma(p, w, (fv)0x1.ce2ae2p-4f);                                       \
    p = fma(p, w, (fv)(-0x1.81273ap-2f));                                    \
    p = fma(p, w, (fv)0x1.20dd74p+0f);                                       \
    const fv t = (fv)2.0f / ((fv)2.0f + z);                                  \
    fv q = fma((fv)0x1.5281dp-4f, t, (fv)(-0x1.91a20ep-3f));                 \
    q = fma(q, t, (fv)0x1.886038p-5f);                                       \
    q = fma(q, t, (fv)0x1.50421cp-4f);                                       \
    q = fma(q, t, (fv)0x1.5f0d54p-3f);                                       \
    q = fma(q, t, (fv)0x1.fcc9bap-3f);                                       \
    q = fma(q, t, (fv)0x1.20a6a6p-2f);                                       \
    q = fma(q, t, (fv)0x1.20e01ep-2f);                                       \
    const fv h = a * a, l = fma(a, a, -h);                                   \
    fv g = CAT(vncl_expnegf, N)(h * (fv)(-0.5f));                            \
    g = fma(g, l * (fv)(-0.5f), g) * (t * q);                                \
    g = select((fv)1.0f - z * p, g, z >= (fv)0.75f);                         \
    g = select((fv)2.0f - g, g, x < (fv)0.0f);                               \
    return select(x * (fv)0.5f * g, (fv)0.0f, x < (fv)(-16.0f));             \
  }
EW_OWN_FN()
#if VW > 1
EW_OWN_FN(VW)
#endif
#define EW_LOG(x) ew_log(x)
#define EW_SIGMOID(x) ew_sigmoid(x)
#if DTYPE == 0
#define EW_EXP(x) exp(x) /* the library's: faster in f32 natively */
#else
#define EW_EXP(x) ew_exp(x)
#endif
#define EW_TANH(x) ew_tanh(x)
#define EW_GELU(x) ew_gelu(x)
#else
#define EW_EXP(x) exp(x)
#define EW_LOG(x) log(x)
#define EW_SIGMOID(x) ((REAL)1 / ((REAL)1 + exp(-(x))))
#define EW_TANH(x) tanh(x)
#define EW_GELU(x)                                                        \
  (((x) == (REAL)(-INFINITY))                                             \
       ? (REAL)0                                                          \
       : (REAL)0.5 * (x) * erfc((x) * (REAL)-0.70710678118654752440))
#endif

/* pow in f32 compute where the compiler is clang and the device has
 * doubles (nineteenth pass): |x|^y = e^(y ln|x|) in double, then one
 * rounding to f32. PoCL's library powf ran at 0.08-0.12x memcpy.
 *   ln|x|: |x| (exact in double, subnormals normal there) = m 2^e with m
 *     in [sqrt(1/2), sqrt(2)) from the bits, ln m = 2 atanh(s) with
 *     s = (m - 1) / (m + 1), |s| <= 0.1716: the series 2s + 2s^3/3 + ...
 *     to s^15 (the rest below 4.4e-13 of ln m), plus e ln 2.
 *   t = y ln|x| clamped to [-120, 100] (beyond, the f32 result is 0 or
 *     inf either way); e^t = 2^k e^r, k = round(t / ln 2), r = t - k ln 2
 *     in two parts, e^r by its Taylor series to r^11 (|r| <= 0.347: the
 *     rest below 2e-13).
 *   The error before the final rounding stays below 1e-11 relative (t
 *     itself to a few 1e-13 of |t| <= 120), so the result is the double
 *     value rounded once: within 0.5 ulp and a hair.
 *   C99's cases, in f32: pow(x, +-0) = 1 and pow(1, y) = 1 (NaN too);
 *     otherwise NaN in, NaN out; a finite x < 0 to a non-integer y is NaN;
 *     x < 0 (or -0) to an odd integer y keeps the sign; pow(-1, +-inf) =
 *     1; zeros and infinities from ln 0 = -inf, ln inf = inf, which the
 *     product and the clamp carry to 0 or inf. y is an integer when
 *     |y| >= 2^23 or |y| rounds to itself (by adding 2^23), odd when also
 *     below 2^24 and |y|/2 does not. */
#if OWN_MATH && DTYPE != 1 && defined(__clang__) && defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define EW_POW_FN(N)                                                         \
  inline __attribute__((overloadable, always_inline)) CAT(float, N)          \
  ew_pow(CAT(float, N) x, CAT(float, N) y) {                                 \
    typedef CAT(float, N) fv;                                                \
    typedef CAT(double, N) dv;                                               \
    typedef CAT(long, N) lv;                                                 \
    const dv ax = CAT(convert_double, N)(fabs(x));                           \
    const lv ib = CAT(as_long, N)(ax) - (lv)0x3fe6a09e667f3bcdL;             \
    const dv e = CAT(convert_double, N)(ib >> 52);                           \
    const dv f = CAT(as_double, N)((ib & (lv)0x000fffffffffffffL) +          \
                                   (lv)0x3fe6a09e667f3bcdL) - (dv)1.0;       \
    const dv s = f / ((dv)2.0 + f), z = s * s;                               \
    dv R = fma((dv)(2.0 / 15), z, (dv)(2.0 / 13));                           \
    R = fma(R, z, (dv)(2.0 / 11));                                           \
    R = fma(R, z, (dv)(2.0 / 9));                                            \
    R = fma(R, z, (dv)(2.0 / 7));                                            \
    R = fma(R, z, (dv)(2.0 / 5));                                            \
    R = fma(R, z, (dv)(2.0 / 3));                                            \
    dv l = fma(e, (dv)0x1.62e42fefa39efp-1, fma(s * z, R, s + s));           \
    l = select(l, (dv)(-INFINITY), (lv)(ax == (dv)0.0));                     \
    l = select(l, (dv)INFINITY, (lv)(ax == (dv)INFINITY));                   \
    const dv t = fmin(fmax(CAT(convert_double, N)(y) * l, (dv)(-120.0)),     \
                      (dv)100.0);                                            \
    const dv kf = fma(t, (dv)0x1.71547652b82fep+0, (dv)0x1.8p52) -           \
                  (dv)0x1.8p52;                                              \
    dv r = fma(kf, (dv)(-0x1.62e42fefa3800p-1), t);                          \
    r = fma(kf, (dv)(-0x1.ef35793c76730p-45), r);                            \
    dv p = fma((dv)(1.0 / 39916800), r, (dv)(1.0 / 3628800));                \
    p = fma(p, r, (dv)(1.0 / 362880));                                       \
    p = fma(p, r, (dv)(1.0 / 40320));                                        \
    p = fma(p, r, (dv)(1.0 / 5040));                                         \
    p = fma(p, r, (dv)(1.0 / 720));                                          \
    p = fma(p, r, (dv)(1.0 / 120));                                          \
    p = fma(p, r, (dv)(1.0 / 24));                                           \
    p = fma(p, r, (dv)(1.0 / 6));                                            \
    p = fma(p, r, (dv)0.5);                                                  \
    p = fma(p, r, (dv)1.0);                                                  \
    p = fma(p, r, (dv)1.0);                                                  \
    const lv k = CAT(convert_long, N)(kf);                                   \
    fv v = CAT(convert_float, N)(p * CAT(as_double, N)((k + 1023L) << 52));  \
    const fv ay = fabs(y), h = ay * 0.5f;                                    \
    const CAT(int, N) yint = (ay >= (fv)0x1p23f) |                          \
                             (((ay + (fv)0x1p23f) - (fv)0x1p23f) == ay);     \
    const CAT(int, N) yodd = yint & (ay < (fv)0x1p24f) &                     \
                             (((h + (fv)0x1p23f) - (fv)0x1p23f) != h);       \
    v = select(v, -v, yodd & signbit(x));                                    \
    v = select(v, (fv)NAN, (x < (fv)0.0f) & (x > (fv)(-INFINITY)) & !yint);  \
    v = select(v, (fv)1.0f, (fabs(x) == (fv)1.0f) & (ay == (fv)INFINITY));   \
    v = select(v, (fv)NAN, isnan(x) | isnan(y));                             \
    return select(v, (fv)1.0f, (y == (fv)0.0f) | (x == (fv)1.0f));           \
  }
EW_POW_FN()
#if VW > 1
EW_POW_FN(VW)
#endif
#pragma OPENCL EXTENSION cl_khr_fp64 : disable
#define EW_POW(x, y) ew_pow(x, y)
#else
#define EW_POW(x, y) pow(x, y)
#endif

/* GELU uses the exact form x/2 * erfc(-x/sqrt(2)) (erfc rather than 1 + erf,
 * which would cancel for negative x); at -inf it gives the limit 0 rather
 * than -inf * 0. */
#define FOR_EACH_UNARY(DO)                                              \
  DO(U_NEG, -(x))                                                       \
  DO(U_ABS, fabs(x))                                                    \
  DO(U_EXP, EW_EXP(x))                                                  \
  DO(U_LOG, EW_LOG(x))                                                  \
  DO(U_SQRT, sqrt(x))                                                   \
  DO(U_TANH, EW_TANH(x))                                                \
  DO(U_SIGMOID, EW_SIGMOID(x))                                          \
  DO(U_RELU, ((x) < (REAL)0) ? (REAL)0 : (x))                           \
  DO(U_GELU, EW_GELU(x))

/* ---- contiguous binary -------------------------------------------------- */

/* One loop per operation: vectors, then the element tail. */
#define BIN_CONTIG_CASE(OP, EXPR)                                \
  case OP:                                                       \
    for (int k = 0; k < IPT; k++) {                              \
      const IDX v = first + (IDX)k * STEP;                         \
      if (v < nvec) {                                            \
        const realv x = LDV(a, v);                               \
        const realv y = LDV(b, v);                               \
        STV_OUT(out, v, EXPR);                                       \
      } else if (v == nvec) {                                    \
        for (IDX i = v * VW; i < n; i++) {                       \
          const real x = LD(a, i);                               \
          const real y = LD(b, i);                               \
          ST(out, i, EXPR);                                      \
        }                                                        \
      }                                                          \
    }                                                            \
    break;

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
ew_binary_contig(const IDX n, const int op, __global const STORE *a,
                 const IDX aoff, __global const STORE *b, const IDX boff,
                 __global STORE *out, const IDX ooff, const real alpha,
                 const real beta) {
  a += aoff;
  b += boff;
  out += ooff;
  const IDX nvec = n / VW;
  const IDX first = FIRST;
  switch (op) { FOR_EACH_BINARY(BIN_CONTIG_CASE) }
}

/* ---- binary with a scalar ------------------------------------------------ */

#define BIN_SCALAR_CASE(OP, EXPR)                                \
  case OP:                                                       \
    for (int k = 0; k < IPT; k++) {                              \
      const IDX v = first + (IDX)k * STEP;                         \
      if (v < nvec) {                                            \
        const realv x = LDV(a, v);                               \
        const realv y = s;                                       \
        STV_OUT(out, v, EXPR);                                       \
      } else if (v == nvec) {                                    \
        for (IDX i = v * VW; i < n; i++) {                       \
          const real x = LD(a, i);                               \
          const real y = s;                                      \
          ST(out, i, EXPR);                                      \
        }                                                        \
      }                                                          \
    }                                                            \
    break;

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
ew_binary_scalar(const IDX n, const int op, __global const STORE *a,
                 const IDX aoff, const real s, __global STORE *out,
                 const IDX ooff, const real alpha, const real beta) {
  a += aoff;
  out += ooff;
  const IDX nvec = n / VW;
  const IDX first = FIRST;
  switch (op) { FOR_EACH_BINARY(BIN_SCALAR_CASE) }
}

/* ---- broadcasting binary, by rows ----------------------------------------- */

/* The output is rows of `inner` contiguous elements; each input either
 * runs along the row (ainner/binner 1) or holds one value per row (0).
 * The other nd-1 dimensions give each row's input offsets: component j of
 * shape/astr/bstr is dimension nd-2-j. Work-item q does vectors
 * c*IPT .. c*IPT+IPT-1 of row q / runs, c = q % runs; the element tail of a
 * row goes to the work-item whose vector is the first past the row's last
 * whole one. Row starts are not vector-aligned, so stores are plain. */
#define RDECOMP(C)                                  \
  if (C < nd - 1) {                                 \
    const IDX c = r % shape.s##C;                   \
    r /= shape.s##C;                                \
    ia += c * astr.s##C;                            \
    ib += c * bstr.s##C;                            \
  }

/* Vector v of a row (ew_binary_rows, ew_binary_short): each input along
 * the row or the row's one value; non-temporal stores where nt. */
#define ROW_VECTOR(v, EXPR, nt)                                          \
  do {                                                                   \
    const realv x = ainner ? LDV(pa, v) : (realv)xa;                     \
    const realv y = binner ? LDV(pb, v) : (realv)xb;                     \
    if (nt)                                                              \
      STV_OUT(po, v, EXPR);                                              \
    else                                                                 \
      STV(po, v, EXPR);                                                  \
  } while (0)

#define BIN_ROWS_CASE(OP, EXPR)                                          \
  case OP:                                                               \
    for (int k = 0; k < IPT; k++) {                                      \
      const IDX v = c0 + (IDX)k;                                         \
      if (v < nv) {                                                      \
        ROW_VECTOR(v, EXPR, nt);                                         \
      } else if (v == nv) {                                              \
        for (IDX i = v * VW; i < inner; i++) {                           \
          const real x = ainner ? LD(pa, i) : xa;                        \
          const real y = binner ? LD(pb, i) : xb;                        \
          ST(po, i, EXPR);                                               \
        }                                                                \
      }                                                                  \
    }                                                                    \
    break;

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
ew_binary_rows(const IDX rows, const IDX inner, const int op, const int nd,
               const IDX8 shape, __global const STORE *a, const IDX aoff,
               const IDX8 astr, const int ainner, __global const STORE *b,
               const IDX boff, const IDX8 bstr, const int binner,
               __global STORE *out, const IDX ooff, const real alpha,
               const real beta) {
  const IDX nv = inner / VW, runs = (nv + 1 + IPT - 1) / IPT;
  const IDX q = get_global_id(0), row = q / runs;
  if (row >= rows) return;
  const IDX c0 = (q - row * runs) * IPT;
  IDX r = row, ia = 0, ib = 0;
  RDECOMP(0) RDECOMP(1) RDECOMP(2) RDECOMP(3) RDECOMP(4) RDECOMP(5)
  RDECOMP(6)
  __global const STORE *pa = a + aoff + ia, *pb = b + boff + ib;
  __global STORE *po = out + ooff + row * inner;
  /* The row's single value of an input broadcast along the row, read only
   * for such an input: in place (out == a), another work-item of the row
   * may be writing a's first element (a data race, even if unused). */
  const real xa = ainner ? (real)0 : LD(pa, 0);
  const real xb = binner ? (real)0 : LD(pb, 0);
  /* Rows of whole vectors start vector-aligned (the host asks for NT_STORE
   * only with an aligned output): non-temporal stores there, as in the
   * contiguous kernels. */
  const int nt = inner % VW == 0;
  switch (op) { FOR_EACH_BINARY(BIN_ROWS_CASE) }
}

/* ---- broadcasting binary, several short rows per work-item ---------------- */

/* The layout of ew_binary_rows, for rows of at most a few vectors: a
 * work-item does rpi whole rows (ITEM_CONTIG: rows q*rpi .. q*rpi+rpi-1,
 * one after the other; else WG apart, as the contiguous kernels step).
 * ew_binary_rows gives such rows a work-item each, which spends more on
 * the row's offsets and its empty vector slots than on the row.
 *
 * Consecutive rows step the innermost outer dimension: its coordinate c0
 * counts up and the offsets add its strides; only where it wraps (and for
 * rows WG apart) are the offsets decomposed again.
 *
 * A row of nv whole vectors and a tail (inner % VW != 0; inner >= VW)
 * does the tail as the row's last VW elements, a vector overlapping the
 * last whole one. Its inputs are loaded before the row's first store: in
 * place (out == a), the overlap would otherwise read what the row just
 * wrote. The overlapping lanes are stored twice with the same value. */
#define SHORT_OFFSETS()                                                  \
  do {                                                                   \
    IDX r = row;                                                         \
    ia = 0;                                                              \
    ib = 0;                                                              \
    RDECOMP(0) RDECOMP(1) RDECOMP(2) RDECOMP(3) RDECOMP(4) RDECOMP(5)    \
    RDECOMP(6)                                                           \
    c0 = nd > 1 ? row % shape.s0 : 0;                                    \
  } while (0)

#define SHORT_NEXT()                                                     \
  do {                                                                   \
    row += RSTEP;                                                        \
    if (RSTEP == 1 && nd > 1 && ++c0 < shape.s0) {                       \
      ia += astr.s0;                                                     \
      ib += bstr.s0;                                                     \
    } else {                                                             \
      SHORT_OFFSETS();                                                   \
    }                                                                    \
  } while (0)

#define BIN_SHORT_CASE(OP, EXPR)                                         \
  case OP:                                                               \
    for (int k = 0; k < rpi; k++) {                                      \
      if (k) SHORT_NEXT();                                               \
      if (row >= rows) break;                                            \
      __global const STORE *pa = a + ia, *pb = b + ib;                   \
      __global STORE *po = out + row * inner;                            \
      const real xa = ainner ? (real)0 : LD(pa, 0);                      \
      const real xb = binner ? (real)0 : LD(pb, 0);                      \
      realv xt = (realv)xa, yt = (realv)xb;                              \
      if (tail && ainner) xt = LDV(pa + (inner - VW), 0);                \
      if (tail && binner) yt = LDV(pb + (inner - VW), 0);                \
      for (IDX v = 0; v < nv; v++) ROW_VECTOR(v, EXPR, !tail);           \
      if (tail) {                                                        \
        const realv x = xt, y = yt;                                      \
        STV(po + (inner - VW), 0, EXPR);                                 \
      }                                                                  \
    }                                                                    \
    break;

#if ITEM_CONTIG
#define RSTEP 1
#else
#define RSTEP WG
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
ew_binary_short(const IDX rows, const IDX inner, const int rpi, const int op,
                const int nd, const IDX8 shape, __global const STORE *a,
                const IDX aoff, const IDX8 astr, const int ainner,
                __global const STORE *b, const IDX boff, const IDX8 bstr,
                const int binner, __global STORE *out, const IDX ooff,
                const real alpha, const real beta) {
  a += aoff;
  b += boff;
  out += ooff;
#if ITEM_CONTIG
  IDX row = (IDX)get_global_id(0) * (IDX)rpi;
#else
  IDX row = (IDX)get_group_id(0) * (IDX)(WG * rpi) + (IDX)get_local_id(0);
#endif
  if (row >= rows) return;
  IDX ia, ib, c0;
  SHORT_OFFSETS();
  const IDX nv = inner / VW;
  /* Rows of whole vectors start vector-aligned (non-temporal stores where
   * the host asked, as in ew_binary_rows). */
  const int tail = inner % VW != 0;
  switch (op) { FOR_EACH_BINARY(BIN_SHORT_CASE) }
}

/* ---- broadcasting binary, rows shorter than half a vector ---------------- */

/* out[R, L] = op(x, p) (or op(p, x) with swap) where x runs over the whole
 * output (contiguous, as out) and p is either one row of L elements
 * repeated down the rows (col 0: a bias add over rows of 3) or one value
 * per row (col 1: [R, L] * [R, 1]). The output is cut into vectors as in
 * the contiguous kernels, whatever the rows. Vector v's first element is
 * e = v*VW; its lanes meet p at (e + lane) % L (col 0) or (e + lane) / L
 * (col 1). Both repeat with the phase v % P (P = L / gcd(L, VW) <= PMAX):
 * every P vectors the pattern of the row starts again and the rows have
 * advanced by P*VW/L. So a work-item gathers once, per phase, the row's
 * vector (col 0), or the lanes' rows less the vector's first row (col 1);
 * a column's vector is then its first row's value, replaced by the next
 * row's past each boundary (a select a row: a shuffle with a mask from
 * memory ran rows of 8 at 0.63x memcpy against 0.95x for this). */
#define PMAX 8

#if DTYPE == 1
typedef CAT(ulong, VSUF) maskv;
#else
typedef CAT(uint, VSUF) maskv;
#endif

#if VW > 1
/* The column values of the vector whose first row is row0 and whose lanes
 * sit m rows further (the phase's mask; span: rows it touches): the first
 * row's value, replaced row by row in the lanes past each boundary. */
inline realv period_col(__global const STORE *ps, const IDX row0,
                        const maskv m, const int span) {
  realv r = (realv)LD(ps, row0);
  for (int j = 1; j < span; j++)
    r = select(r, (realv)LD(ps, row0 + (IDX)j), m >= (maskv)j);
  return r;
}
#define PERIOD_COL(v, q, row0) period_col(ps, row0, msk[q], span[q])
#else
#define PERIOD_COL(v, q, row0) LD(ps, (v) / L)
#endif

#define BIN_PERIOD_CASE(OP, EXPR)                                        \
  case OP:                                                               \
    for (int k = 0; k < IPT; k++) {                                      \
      const IDX v = first + (IDX)k * STEP;                               \
      if (v < nvec) {                                                    \
        const int q = ITEM_CONTIG ? ph : (int)(v % (IDX)P);              \
        const realv fx = LDV(xs, v);                                     \
        const realv fp =                                                 \
            col ? PERIOD_COL(v, q,                                       \
                             (ITEM_CONTIG ? pbase : v / (IDX)P * adv) +  \
                                 prow[q])                                \
                : pat[q];                                                \
        const realv x = swap ? fp : fx, y = swap ? fx : fp;              \
        STV_OUT(out, v, EXPR);                                           \
      } else if (v == nvec) {                                            \
        for (IDX i = v * VW; i < n; i++) {                               \
          const real fx = LD(xs, i), fp = LD(ps, col ? i / L : i % L);   \
          const real x = swap ? fp : fx, y = swap ? fx : fp;             \
          ST(out, i, EXPR);                                              \
        }                                                                \
      }                                                                  \
      if (ITEM_CONTIG && ++ph == P) {                                    \
        ph = 0;                                                          \
        pbase += adv;                                                    \
      }                                                                  \
    }                                                                    \
    break;

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
ew_binary_period(const IDX n, const IDX L, const int P, const int col,
                 const int op, const int swap, __global const STORE *xs,
                 const IDX xoff, __global const STORE *ps, const IDX poff,
                 __global STORE *out, const IDX ooff, const real alpha,
                 const real beta) {
  xs += xoff;
  ps += poff;
  out += ooff;
  const IDX nvec = n / VW, rows = n / L;
  const IDX adv = (IDX)P * VW / L; /* rows a period of P vectors */
  const IDX first = FIRST;
  realv pat[PMAX];
  maskv msk[PMAX];
  IDX prow[PMAX];
  int span[PMAX];
  for (int q = 0; q < P && q < PMAX; q++) {
    const IDX e0 = (IDX)q * VW;
    prow[q] = e0 / L;
#if VW > 1
    if (col) {
      CAT(uint, VW) m = 0;
      for (int l = 0; l < VW; l++)
        ((uint *)&m)[l] = (uint)((e0 + (IDX)l) / L - prow[q]);
      span[q] = (int)((e0 + VW - 1) / L - prow[q]) + 1;
#if DTYPE == 1
      msk[q] = CAT(convert_ulong, VW)(m);
#else
      msk[q] = m;
#endif
    } else {
      real e[VW];
      for (int l = 0; l < VW; l++) e[l] = LD(ps, (e0 + (IDX)l) % L);
      pat[q] = CAT(vload, VW)(0, e);
    }
#else
    pat[q] = LD(ps, e0 % L);
#endif
  }
  int ph = (int)(first % (IDX)P);
  IDX pbase = first / (IDX)P * adv; /* the row where ph's period starts */
  switch (op) { FOR_EACH_BINARY(BIN_PERIOD_CASE) }
}

/* ---- broadcasting binary ------------------------------------------------- */

/* The output has nd collapsed dimensions; component j of shape/astr/bstr
 * describes dimension nd-1-j (component 0 is the innermost, contiguous one
 * in the output). Strides are in elements, 0 where an input is broadcast. */
#define DECOMP(C)                                   \
  if (C < nd) {                                     \
    const IDX c = r % shape.s##C;                   \
    r /= shape.s##C;                                \
    ia += c * astr.s##C;                            \
    ib += c * bstr.s##C;                            \
  }

#define BIN_BCAST_CASE(OP, EXPR)                                 \
  case OP:                                                       \
    for (int k = 0; k < IPT; k++) {                              \
      const IDX o = first + (IDX)k * STEP;                         \
      if (o < n) {                                               \
        IDX r = o, ia = 0, ib = 0;                               \
        DECOMP(0) DECOMP(1) DECOMP(2) DECOMP(3)                  \
        DECOMP(4) DECOMP(5) DECOMP(6) DECOMP(7)                  \
        const real x = LD(a, ia);                                \
        const real y = LD(b, ib);                                \
        ST(out, o, EXPR);                                        \
      }                                                          \
    }                                                            \
    break;

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
ew_binary_bcast(const IDX n, const int op, const int nd, const IDX8 shape,
                __global const STORE *a, const IDX aoff, const IDX8 astr,
                __global const STORE *b, const IDX boff, const IDX8 bstr,
                __global STORE *out, const IDX ooff, const real alpha,
                const real beta) {
  a += aoff;
  b += boff;
  out += ooff;
  const IDX first = FIRST;
  switch (op) { FOR_EACH_BINARY(BIN_BCAST_CASE) }
}

/* ---- contiguous unary ----------------------------------------------------- */

#define UN_CONTIG_CASE(OP, EXPR)                                 \
  case OP:                                                       \
    for (int k = 0; k < IPT; k++) {                              \
      const IDX v = first + (IDX)k * STEP;                         \
      if (v < nvec) {                                            \
        const realv x = LDV(a, v);                               \
        STV_OUT(out, v, EXPR);                                       \
      } else if (v == nvec) {                                    \
        for (IDX i = v * VW; i < n; i++) {                       \
          const real x = LD(a, i);                               \
          ST(out, i, EXPR);                                      \
        }                                                        \
      }                                                          \
    }                                                            \
    break;

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
ew_unary_contig(const IDX n, const int op, __global const STORE *a,
                const IDX aoff, __global STORE *out, const IDX ooff) {
  a += aoff;
  out += ooff;
  const IDX nvec = n / VW;
  const IDX first = FIRST;
  switch (op) { FOR_EACH_UNARY(UN_CONTIG_CASE) }
}
