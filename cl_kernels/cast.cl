/*
 * cast.cl: conversions between storage types, fill and copy.
 *
 *   cast_contig   dst[i] = convert(src[i]) for contiguous tensors of any two of
 *                 f32, f64, f16, bf16, i32 (the types are kernel arguments;
 *                 the switch over the 25 pairs sits outside the loops)
 *   fill_u16/32/64  dst[i] = pattern (the host encodes the value)
 *   copy_u16/32/64  dst[i] = src[i] (bits; no arithmetic, so no fp64 needed)
 *
 * Conversions round once, to nearest even:
 *   - to f16: vstore_half_rte (overflow to inf, NaN stays NaN)
 *   - to bf16: round to nearest even on the f32 bits; from f64 and i32 the
 *     f32 step is rounded to odd first (round toward zero, then set the last
 *     bit when inexact), which makes the two steps one correct rounding
 *     (the CPU vectors round f64 to odd on its bits, F64_JAM_V)
 *   - to i32: toward zero, saturating at the i32 range, NaN gives 0
 *     (convert_int_sat_rtz)
 *   - i32 to f16: through f32, exact for every value below 2^24, and every
 *     larger value overflows f16 anyway
 *
 * Layout: work-item l of group g does elements g*WG*IPT + k*WG + l for
 * k < IPT, so that each step is coalesced (GPUs), or with ITEM_CONTIG the
 * IPT consecutive elements from (g*WG + l)*IPT (CPUs). With ITEM_CONTIG,
 * cast_contig converts them as IPT/CVW vectors of CVW lanes (vloadN, the
 * vector conversions, vstoreN / vstore_halfN_rte) when IPT is a multiple
 * of CVW. Left to itself PoCL 3.1 compiled the scalar loop into partial
 * vectors (27 vmovsd), f64 -> f16 into a call per element
 * (_cl_vstore_half_rte on a double), and f32 -> f16, i32 -> f16 and
 * bf16 -> f16 at a quarter to a third of memcpy. Every vector conversion
 * gives the bits its scalar form gives (NaN payloads aside); f64 -> f16
 * and f64 -> bf16 go through f64 rounded to odd at 24 / 10 bits
 * (F64_JAM_V), the same single rounding.
 */

/* Work-items per work-group. */
#ifndef WG
#define WG 256
#endif
/* Elements per work-item. */
#ifndef IPT
#define IPT 4
#endif
/* 1 when the device has fp64: compiles the f64 conversions. */
#ifndef HAS_FP64
#define HAS_FP64 0
#endif
/* 1: each work-item takes IPT consecutive elements (CPUs); 0: they are WG
 * apart, so that work-items step together (GPUs). */
#ifndef ITEM_CONTIG
#define ITEM_CONTIG 0
#endif
/* Lanes of cast_contig's vectors with ITEM_CONTIG (2, 4, 8 or 16; 1: the
 * scalar loop). Not tuned: the host leaves it at 16. */
#ifndef CVW
#define CVW 16
#endif
/* 1: cast_contig's vector stores (ITEM_CONTIG) are non-temporal when the
 * destination is aligned to a whole vector and the compiler has
 * __builtin_nontemporal_store (CPUs: the output is written, never read,
 * so it skips the read for ownership of each cache line). */
#ifndef NT_STORE
#define NT_STORE 0
#endif
/* Index width: 32 or 64 bits. */
#ifndef IDX_BITS
#define IDX_BITS 32
#endif

#if IDX_BITS == 64
typedef ulong IDX;
#else
typedef uint IDX;
#endif

#if HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* vncl_dtype values */
#define T_F32 0
#define T_F64 1
#define T_F16 2
#define T_BF16 3
#define T_I32 4

/* bf16 <-> f32: vncl_bf16_to_float and vncl_float_to_bf16 (round to nearest
 * even, NaN stays a quiet NaN) come from vncl_prelude.cl. */

/* i32 to bf16 with one rounding: f32 rounded to odd, then to bf16. */
inline ushort i32_to_bf16(int x) {
  float f = convert_float_rtz(x);
  uint u = as_uint(f);
  if (convert_int_rtz(f) != x) u |= 1u;
  return vncl_float_to_bf16(as_float(u));
}

#if HAS_FP64
inline ushort f64_to_bf16(double x) {
  if (IS_NAN(x)) return vncl_float_to_bf16((float)x);
  float f = convert_float_rtz(x);
  uint u = as_uint(f);
  if ((double)f != x) u |= 1u;
  return vncl_float_to_bf16(as_float(u));
}
#endif

/* ---- CVW-lane forms of the conversions (ITEM_CONTIG) ------------------- */
#if ITEM_CONTIG && CVW > 1 && IPT % CVW == 0
#define VEC_CAST 1
#define V(T) CAT(T, CVW)
#define CV(F) CAT(F, CVW)

/* f32 to bf16 on CVW lanes, the same rounding as vncl_float_to_bf16 (to
 * nearest even, NaN kept quiet). */
inline V(ushort) f32_to_bf16_v(V(float) f) {
  V(uint) u = CV(as_uint)(f);
  V(uint) r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  V(uint) q = (u >> 16) | 0x40u;
  V(uint) nan = CV(as_uint)(CV(as_int)(u & 0x7fffffffu) > 0x7f800000);
  return CV(convert_ushort)(bitselect(r, q, nan));
}

/* i32 to bf16 on CVW lanes, the same single rounding as i32_to_bf16: f32
 * rounded to odd, then to bf16. The f32 step starts from the plain (to
 * nearest) conversion, a fast instruction where PoCL's convert_floatN_rtz
 * of ints is not: when that went away from zero (|f| > |x|; f = 2^31 only
 * from above), the bits minus one are the value toward zero, and the last
 * bit is set when f was inexact. */
inline V(ushort) i32_to_bf16_v(V(int) x) {
  V(float) f = CV(convert_float)(x);
  V(int) fi = CAT3(convert_int, CVW, _sat_rtz)(f);
  V(int) big = f >= 0x1p31f;
  V(int) up = big | select(fi < x, fi > x, x >= 0);
  V(int) inexact = big | (fi != x);
  V(uint) u = (CV(as_uint)(f) + CV(as_uint)(up)) | (CV(as_uint)(inexact) & 1u);
  return f32_to_bf16_v(CV(as_float)(u));
}

#if HAS_FP64
/* f64 to f32 for one more rounding to a 16-bit type, on CVW lanes: x
 * rounded to odd at 53 - LOW significant bits (toward zero by clearing
 * the low LOW bits of its significand, the bit above them set when any
 * of them was set: "jamming", (b | ((b & L) + L)) & ~L with L = 2^LOW - 1,
 * since (b & L) + L reaches 2^LOW exactly when b & L != 0), then
 * converted. The jammed
 * value has 53 - LOW significant bits, whose conversion to f32 is exact
 * wherever that matters, and rounding it once more to nearest (even) at
 * two or more bits less is one correct rounding of x (the eighth pass,
 * docs/ops.md):
 *   - LOW 29 (f16): 24 bits, f32 rounded to odd wherever f32 is normal;
 *     below 2^-126 the f32 step rounds once more, but all of that range
 *     is far below half f16's least subnormal (2^-25): +-0 either way.
 *   - LOW 43 (bf16): 10 bits, 2 more than bf16 has; exact in f32 down to
 *     2^-140 (its last bit at 2^-149), so also where bf16 is subnormal
 *     (grid 2^-133); below 2^-140 bf16 gives +-0 either way.
 * Overflow: a jammed value at or past 2^128 converts to inf, which is
 * what both 16-bit types give there. inf stays inf; a NaN keeps a set
 * bit in its significand, so stays NaN (quieted by the conversion).
 * Integer operations only (an and, an add, an or and an and-not per
 * lane, one constant; AVX-512 fuses the last two) before the conversion: no compares, so no
 * narrowing of 64-bit masks, which AVX2 has no instruction for. */
#define JAM_LOW(LOW) ((1ul << (LOW)) - 1ul)
#define F64_JAM_V(x, LOW)                                                  \
  CV(convert_float)(CV(as_double)(                                          \
      (CV(as_ulong)(x) |                                                    \
       ((CV(as_ulong)(x) & JAM_LOW(LOW)) + JAM_LOW(LOW))) & ~JAM_LOW(LOW)))
/* f64 to f16 and bf16 on CVW lanes (the f16 step: vstore_halfN_rte). */
#define F64_FOR_F16_V(x) F64_JAM_V(x, 29)
inline V(ushort) f64_to_bf16_v(V(double) x) {
  return f32_to_bf16_v(F64_JAM_V(x, 43));
}
#endif
#else
#define VEC_CAST 0
#endif
#if VEC_CAST && NT_STORE && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define CAST_NT 1
#endif
#endif
#ifndef CAST_NT
#define CAST_NT 0
#endif

#if ITEM_CONTIG
#define FIRST ((IDX)get_global_id(0) * IPT)
#define STEP 1
#else
#define FIRST ((IDX)get_group_id(0) * (WG * IPT) + (IDX)get_local_id(0))
#define STEP WG
#endif

/* Loops over this work-item's elements with one conversion; the common
 * case, all IPT elements in range, has no test inside the loop (so that
 * the compiler can vectorize it). */
#define CAST_LOOP(STMT)                                            \
  if (first + (IDX)(IPT - 1) * STEP < n) {                         \
    for (int k = 0; k < IPT; k++) {                                \
      const IDX i = first + (IDX)k * STEP;                         \
      STMT;                                                        \
    }                                                              \
  } else {                                                         \
    for (int k = 0; k < IPT; k++) {                                \
      const IDX i = first + (IDX)k * STEP;                         \
      if (i < n) { STMT; }                                         \
    }                                                              \
  }

#if VEC_CAST
/* The vector loop: vector v covers elements v*CVW .. v*CVW+CVW-1; a
 * work-item whose IPT elements are not all in range takes the scalar loop
 * (CAST_LOOP's second branch). */
#define VLOOP(VSTMT, STMT)                                         \
  if (first + (IDX)IPT <= n) {                                     \
    for (int k = 0; k < IPT / CVW; k++) {                          \
      const IDX v = first / CVW + (IDX)k;                          \
      VSTMT;                                                       \
    }                                                              \
  } else {                                                         \
    for (int k = 0; k < IPT; k++) {                                \
      const IDX i = first + (IDX)k;                                \
      if (i < n) { STMT; }                                         \
    }                                                              \
  }
#define LD(p) CV(vload)(v, p)
#define ST(x, p) CV(vstore)(x, v, p)
#define LDH(p) CV(vload_half)(v, p)
#define STH(x, p) CAT3(vstore_half, CVW, _rte)(x, v, p)
#define TOBF(x) f32_to_bf16_v(x)
/* A whole vector of T into dst: non-temporal when the work-item's output
 * is vector-aligned (dst_nt), else vstoreN. */
#if CAST_NT
#define NT_ST(VT, x) __builtin_nontemporal_store((x), (__global VT *)dst + v)
#define STT(T, x)                                                  \
  do {                                                             \
    if (dst_nt)                                                    \
      NT_ST(V(T), x);                                              \
    else                                                           \
      ST(x, DST(T));                                               \
  } while (0)
#else
#define STT(T, x) ST(x, DST(T))
#endif
/* 16-bit results: with vstore16 of a ushort16, PoCL 3.1's code ran at
 * 0.46-0.75x of the scalar loop's; when the destination is 4-byte aligned
 * the same bits go out as a uint8 (non-temporal when 32-byte aligned). */
#if CVW == 16
#if CAST_NT
#define STU_NT(x) if (dst_nt) NT_ST(uint8, as_uint8(x)); else
#else
#define STU_NT(x)
#endif
#define STU(x, p)                                                  \
  do {                                                             \
    STU_NT(x)                                                      \
    if (dst_u32)                                                   \
      vstore8(as_uint8(x), v, (__global uint *)(p));               \
    else                                                           \
      vstore16(x, v, p);                                           \
  } while (0)
#else
#define STU(x, p) STT(ushort, x)
#endif
/* f16 results written whole and non-temporal when the destination is
 * vector-aligned: vstore_halfN_rte into a private vector (PoCL compiles
 * the copy away), whose bits go out as STU stores them. Plain STH
 * is vcvtps2ph to memory, which has no non-temporal form, so each output
 * line is first read for ownership. (A first form that chose between
 * STH and a non-temporal store of the same address let PoCL's compiler
 * merge the two and store with an aligned vmovdqa at 2-byte offsets.) */
#if CAST_NT && CVW == 16
#define STH_NT(x, p)                                               \
  do {                                                             \
    ushort hb[16];                                                 \
    vstore_half16_rte(x, 0, (__private half *)hb);                 \
    STU(vload16(0, hb), (__global ushort *)(p));                   \
  } while (0)
#else
#define STH_NT(x, p) STH(x, p)
#endif
#define FROMBF(x) CV(vncl_bf16_to_float)(x)
#define TOI(x) CAT3(convert_int, CVW, _sat_rtz)(x)
#define TOF(x) CAT3(convert_float, CVW, _rte)(x)
#define TOD(x) CV(convert_double)(x)
#define PAIR(P, VSTMT, STMT) case P: VLOOP(VSTMT, STMT) break;
#else
#define PAIR(P, VSTMT, STMT) case P: CAST_LOOP(STMT) break;
#endif

#define SRC(T) ((__global const T *)src)
#define DST(T) ((__global T *)dst)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
cast_contig(const IDX n, const int stype, __global const uchar *src,
            const IDX soff, const int dtype, __global uchar *dst,
            const IDX doff) {
  const IDX first = FIRST;
  /* Offsets are in elements of each side's type. */
  const int ssize = stype == T_F64 ? 8 : (stype == T_F16 || stype == T_BF16) ? 2 : 4;
  const int dsize = dtype == T_F64 ? 8 : (dtype == T_F16 || dtype == T_BF16) ? 2 : 4;
  src += soff * ssize;
  dst += doff * dsize;
#if VEC_CAST
  const int dst_u32 = ((size_t)dst & 3) == 0;
#endif
#if CAST_NT
  const int dst_nt = ((size_t)dst & (size_t)(CVW * dsize - 1)) == 0;
#endif
  const int pair = stype * 8 + dtype;
  switch (pair) {
    /* from f32 */
    PAIR(T_F32 * 8 + T_F32,
         STT(float, LD(SRC(float))),
         DST(float)[i] = SRC(float)[i])
    PAIR(T_F32 * 8 + T_F16,
         STH_NT(LD(SRC(float)), DST(half)),
         vstore_half_rte(SRC(float)[i], i, DST(half)))
    PAIR(T_F32 * 8 + T_BF16,
         STU(TOBF(LD(SRC(float))), DST(ushort)),
         DST(ushort)[i] = vncl_float_to_bf16(SRC(float)[i]))
    PAIR(T_F32 * 8 + T_I32,
         STT(int, TOI(LD(SRC(float)))),
         DST(int)[i] = convert_int_sat_rtz(SRC(float)[i]))
    /* from f16 (exact in f32) */
    PAIR(T_F16 * 8 + T_F32,
         STT(float, LDH(SRC(half))),
         DST(float)[i] = vload_half(i, SRC(half)))
    PAIR(T_F16 * 8 + T_F16,
         STU(LD(SRC(ushort)), DST(ushort)),
         DST(ushort)[i] = SRC(ushort)[i])
    PAIR(T_F16 * 8 + T_BF16,
         STU(TOBF(LDH(SRC(half))), DST(ushort)),
         DST(ushort)[i] = vncl_float_to_bf16(vload_half(i, SRC(half))))
    PAIR(T_F16 * 8 + T_I32,
         STT(int, TOI(LDH(SRC(half)))),
         DST(int)[i] = convert_int_sat_rtz(vload_half(i, SRC(half))))
    /* from bf16 (exact in f32) */
    PAIR(T_BF16 * 8 + T_F32,
         STT(float, FROMBF(LD(SRC(ushort)))),
         DST(float)[i] = vncl_bf16_to_float(SRC(ushort)[i]))
    PAIR(T_BF16 * 8 + T_F16,
         STH_NT(FROMBF(LD(SRC(ushort))), DST(half)),
         vstore_half_rte(vncl_bf16_to_float(SRC(ushort)[i]), i, DST(half)))
    PAIR(T_BF16 * 8 + T_BF16,
         STU(LD(SRC(ushort)), DST(ushort)),
         DST(ushort)[i] = SRC(ushort)[i])
    PAIR(T_BF16 * 8 + T_I32,
         STT(int, TOI(FROMBF(LD(SRC(ushort))))),
         DST(int)[i] = convert_int_sat_rtz(vncl_bf16_to_float(SRC(ushort)[i])))
    /* from i32 */
    PAIR(T_I32 * 8 + T_F32,
         STT(float, TOF(LD(SRC(int)))),
         DST(float)[i] = convert_float_rte(SRC(int)[i]))
    PAIR(T_I32 * 8 + T_F16,
         STH_NT(TOF(LD(SRC(int))), DST(half)),
         vstore_half_rte(convert_float_rte(SRC(int)[i]), i, DST(half)))
    PAIR(T_I32 * 8 + T_BF16,
         STU(i32_to_bf16_v(LD(SRC(int))), DST(ushort)),
         DST(ushort)[i] = i32_to_bf16(SRC(int)[i]))
    PAIR(T_I32 * 8 + T_I32,
         STT(int, LD(SRC(int))),
         DST(int)[i] = SRC(int)[i])
#if HAS_FP64
    PAIR(T_F32 * 8 + T_F64,
         STT(double, TOD(LD(SRC(float)))),
         DST(double)[i] = (double)SRC(float)[i])
    PAIR(T_F16 * 8 + T_F64,
         STT(double, TOD(LDH(SRC(half)))),
         DST(double)[i] = (double)vload_half(i, SRC(half)))
    PAIR(T_BF16 * 8 + T_F64,
         STT(double, TOD(FROMBF(LD(SRC(ushort))))),
         DST(double)[i] = (double)vncl_bf16_to_float(SRC(ushort)[i]))
    PAIR(T_I32 * 8 + T_F64,
         STT(double, TOD(LD(SRC(int)))),
         DST(double)[i] = (double)SRC(int)[i])
    PAIR(T_F64 * 8 + T_F32,
         STT(float, TOF(LD(SRC(double)))),
         DST(float)[i] = convert_float_rte(SRC(double)[i]))
    PAIR(T_F64 * 8 + T_F64,
         STT(double, LD(SRC(double))),
         DST(double)[i] = SRC(double)[i])
    PAIR(T_F64 * 8 + T_F16,
         STH_NT(F64_FOR_F16_V(LD(SRC(double))), DST(half)),
         vstore_half_rte(SRC(double)[i], i, DST(half)))
    PAIR(T_F64 * 8 + T_BF16,
         STU(f64_to_bf16_v(LD(SRC(double))), DST(ushort)),
         DST(ushort)[i] = f64_to_bf16(SRC(double)[i]))
    PAIR(T_F64 * 8 + T_I32,
         STT(int, TOI(LD(SRC(double)))),
         DST(int)[i] = convert_int_sat_rtz(SRC(double)[i]))
#endif
    default: break;
  }
}

/* ---- fill and copy, by element size ------------------------------------- */

#define FILL_COPY(BITS, T)                                                   \
  __kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void              \
  fill_u##BITS(const IDX n, __global T *dst, const IDX doff, const T pattern) { \
    const IDX first = FIRST; \
    dst += doff;                                                             \
    CAST_LOOP(dst[i] = pattern)                                              \
  }                                                                          \
  __kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void              \
  copy_u##BITS(const IDX n, __global const T *src, const IDX soff,           \
               __global T *dst, const IDX doff) {                            \
    const IDX first = FIRST; \
    src += soff;                                                             \
    dst += doff;                                                             \
    CAST_LOOP(dst[i] = src[i])                                               \
  }

FILL_COPY(16, ushort)
FILL_COPY(32, uint)
FILL_COPY(64, ulong)
