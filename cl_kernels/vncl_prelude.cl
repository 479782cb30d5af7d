/*
 * vncl_prelude.cl - what every vncl kernel source shares: token pasting, the
 * NaN and finiteness tests, the bf16 conversions and the dtype load/store
 * block. The program builder (lib/runtime/program.c) puts this text in front
 * of every source of cl_kernels/ it compiles (then `#line 1`, so build logs
 * count the kernel file's own lines), and the binary-cache key hashes both:
 * a change here rebuilds every program. Kernel files do not include it.
 *
 * Only macros and inline functions, nothing that needs an extension: a file
 * that uses double enables cl_khr_fp64 itself (enabling it here would turn
 * every unsuffixed literal of a float kernel into a double).
 *
 * Storage types go by their vncl_dtype code, as the host passes them
 * (-DDTYPE=3, -DDTYPE_AB=2 ...):
 *
 *   code  storage  compute (VNCL_REAL)  load / store
 *   0     float    float                plain
 *   1     double   double               plain (needs cl_khr_fp64)
 *   2     half     float                vload_half / vstore_half_rte
 *   3     ushort   float                bf16: the top 16 bits of a float;
 *                                       stores round to nearest even
 *
 *   VNCL_STORAGE(D), VNCL_REAL(D)     the two types of code D
 *   VNCL_LOAD(D, p, i)                p[i] as VNCL_REAL(D)
 *   VNCL_STORE(D, p, i, x)            p[i] = x, x first converted to
 *                                     VNCL_REAL(D)
 *   VNCL_VLOAD(D, N, v, p)            elements N*v .. N*v+N-1 of p as a
 *                                     vector of N VNCL_REAL(D) (N = 2, 4,
 *                                     8 or 16)
 *   VNCL_VSTORE(D, N, p, v, x)        the N-vector x (any real type, each
 *                                     lane converted to VNCL_REAL(D)) into
 *                                     elements N*v .. N*v+N-1 of p
 *
 * D and N may be macros (DTYPE, VW): they are expanded before pasting.
 */

/* ---- vectors wider than the target's registers ---------------------------
 * On a CPU without AVX-512 (an AVX2 Xeon or EPYC: PoCL compiles for haswell
 * or znver), clang warns (-Wpsabi) that a function taking or returning a
 * 512-bit vector (float16, uint16, double8 ...) has another calling
 * convention there. The kernels and these helpers are one program, all
 * inline, so no call crosses that boundary; the warning would only fail the
 * clean-build check on every such host (found with POCL_KERNELLIB_NAME=avx2
 * on the Xeon, and under valgrind, whose CPU has no AVX-512). Any clang
 * front end knows the pragma; others never see it. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif

/* ---- token pasting (macro arguments expanded first) -------------------- */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CAT3_(a, b, c) a##b##c
#define CAT3(a, b, c) CAT3_(a, b, c)

/* ---- NaN and finiteness by comparison ------------------------------------
 * x != x only for NaN, x - x == 0 only for finite x. (PoCL's isnan/isfinite
 * are calls that cost several times a Kahan step; these compile to one
 * compare, and stay exact without -cl-fast-relaxed-math.) Scalars or
 * vectors (a vector gives -1/0 lanes, for select or ?:). */
#define IS_NAN(x) ((x) != (x))
#define IS_FINITE(x) ((x) - (x) == 0)

/* ---- one value from the N lanes of a vector ------------------------------
 * r = OP over the lanes of v (a vector of N values of type T; N 1, 2, 4, 8
 * or 16), by halves: log2(N) vector operations, where the lanes through a
 * private array and a scalar loop took N of them (a short row's two
 * reductions cost as much as its elements; softmax.cl, reduce.cl). */
#define VNCL_HRED_1(T, OP, v, r) r = (v)
#define VNCL_HRED_2(T, OP, v, r) r = OP((v).x, (v).y)
#define VNCL_HRED_4(T, OP, v, r)                \
  do {                                          \
    const CAT(T, 2) h2_ = OP((v).lo, (v).hi);   \
    VNCL_HRED_2(T, OP, h2_, r);                 \
  } while (0)
#define VNCL_HRED_8(T, OP, v, r)                \
  do {                                          \
    const CAT(T, 4) h4_ = OP((v).lo, (v).hi);   \
    VNCL_HRED_4(T, OP, h4_, r);                 \
  } while (0)
#define VNCL_HRED_16(T, OP, v, r)               \
  do {                                          \
    const CAT(T, 8) h8_ = OP((v).lo, (v).hi);   \
    VNCL_HRED_8(T, OP, h8_, r);                 \
  } while (0)
#define VNCL_HRED(T, N, OP, v, r) CAT(VNCL_HRED_, N)(T, OP, v, r)

/* ---- bf16 <-> float --------------------------------------------------------
 * vncl_bf16_to_float[N](ushort[N])  exact: the bits become the top half.
 * vncl_float[N]_to_bf16(float[N])   round to nearest even on the float bits;
 *                                   a NaN stays a (quiet) NaN, infinities
 *                                   stay infinite, overflow rounds to inf.
 * N empty (scalar), 2, 4, 8 or 16. The NaN test is on the bits, so it holds
 * under any math flags. */
#define VNCL_BF16_CONVERSIONS(N)                                              \
  inline CAT(float, N) CAT(vncl_bf16_to_float, N)(CAT(ushort, N) u) {         \
    return CAT(as_float, N)(CAT(convert_uint, N)(u) << 16);                   \
  }                                                                           \
  inline CAT(ushort, N) CAT3(vncl_float, N, _to_bf16)(CAT(float, N) f) {      \
    CAT(uint, N) u = CAT(as_uint, N)(f);                                      \
    CAT(uint, N) r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;                  \
    CAT(uint, N) q = (u >> 16) | 0x40u;                                       \
    return CAT(convert_ushort, N)((u & 0x7fffffffu) > 0x7f800000u ? q : r);  \
  }
VNCL_BF16_CONVERSIONS()
VNCL_BF16_CONVERSIONS(2)
VNCL_BF16_CONVERSIONS(4)
VNCL_BF16_CONVERSIONS(8)
VNCL_BF16_CONVERSIONS(16)

/* ---- dtype load/store ------------------------------------------------------ */
#define VNCL_STORAGE_0 float
#define VNCL_STORAGE_1 double
#define VNCL_STORAGE_2 half
#define VNCL_STORAGE_3 ushort
#define VNCL_STORAGE(D) CAT(VNCL_STORAGE_, D)

#define VNCL_REAL_0 float
#define VNCL_REAL_1 double
#define VNCL_REAL_2 float
#define VNCL_REAL_3 float
#define VNCL_REAL(D) CAT(VNCL_REAL_, D)

#define VNCL_LOAD_0(p, i) ((p)[i])
#define VNCL_LOAD_1(p, i) ((p)[i])
#if defined(__clang__) && defined(__F16C__)
/* One half to float by the F16C conversion (vcvtph2ps): PoCL 3.1's scalar
 * vload_half is a software conversion of about 20 integer instructions,
 * which made every element broadcast from an f16 A cost more than the FMAs
 * it fed (perf, gemm_small batches of f16 64^3 on the Zen 4 EPYC). Exact,
 * as vload_half: subnormals, infinities and NaNs convert alike. */
inline float vncl_half_bits_to_float(ushort u) {
  typedef short vncl_short8_ __attribute__((__vector_size__(16)));
  typedef float vncl_float4_ __attribute__((__vector_size__(16)));
  vncl_short8_ h = {(short)u, 0, 0, 0, 0, 0, 0, 0};
  vncl_float4_ f = __builtin_ia32_vcvtph2ps(h);
  return f[0];
}
#define VNCL_LOAD_2(p, i) \
  vncl_half_bits_to_float(((const __global ushort *)(p))[i])
#else
#define VNCL_LOAD_2(p, i) vload_half((i), (p))
#endif
#define VNCL_LOAD_3(p, i) vncl_bf16_to_float((p)[i])
#define VNCL_LOAD(D, p, i) CAT(VNCL_LOAD_, D)(p, i)

#define VNCL_STORE_0(p, i, x) ((p)[i] = (float)(x))
#define VNCL_STORE_1(p, i, x) ((p)[i] = (double)(x))
#define VNCL_STORE_2(p, i, x) vstore_half_rte((float)(x), (i), (p))
#define VNCL_STORE_3(p, i, x) ((p)[i] = vncl_float_to_bf16((float)(x)))
#define VNCL_STORE(D, p, i, x) CAT(VNCL_STORE_, D)(p, i, x)

#define VNCL_VLOAD_0(N, v, p) CAT(vload, N)((v), (p))
#define VNCL_VLOAD_1(N, v, p) CAT(vload, N)((v), (p))
#define VNCL_VLOAD_2(N, v, p) CAT(vload_half, N)((v), (p))
#define VNCL_VLOAD_3(N, v, p) \
  CAT(vncl_bf16_to_float, N)(CAT(vload, N)((v), (p)))
#define VNCL_VLOAD(D, N, v, p) CAT(VNCL_VLOAD_, D)(N, v, p)

#define VNCL_VSTORE_0(N, p, v, x) \
  CAT(vstore, N)(CAT(convert_float, N)(x), (v), (p))
#define VNCL_VSTORE_1(N, p, v, x) \
  CAT(vstore, N)(CAT(convert_double, N)(x), (v), (p))
#define VNCL_VSTORE_2(N, p, v, x) \
  CAT3(vstore_half, N, _rte)(CAT(convert_float, N)(x), (v), (p))
#define VNCL_VSTORE_3(N, p, v, x) \
  CAT(vstore, N)(CAT3(vncl_float, N, _to_bf16)(CAT(convert_float, N)(x)), \
                 (v), (p))
#define VNCL_VSTORE(D, N, p, v, x) CAT(VNCL_VSTORE_, D)(N, p, v, x)
