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
 *   - to i32: toward zero, saturating at the i32 range, NaN gives 0
 *     (convert_int_sat_rtz)
 *   - i32 to f16: through f32, exact for every value below 2^24, and every
 *     larger value overflows f16 anyway
 *
 * Layout: work-item l of group g does elements g*WG*IPT + k*WG + l for
 * k < IPT, so that each step is coalesced (GPUs), or with ITEM_CONTIG the
 * IPT consecutive elements from (g*WG + l)*IPT (CPUs).
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
  const int pair = stype * 8 + dtype;
  switch (pair) {
    /* from f32 */
    case T_F32 * 8 + T_F32: CAST_LOOP(DST(float)[i] = SRC(float)[i]) break;
    case T_F32 * 8 + T_F16: CAST_LOOP(vstore_half_rte(SRC(float)[i], i, DST(half))) break;
    case T_F32 * 8 + T_BF16: CAST_LOOP(DST(ushort)[i] = vncl_float_to_bf16(SRC(float)[i])) break;
    case T_F32 * 8 + T_I32: CAST_LOOP(DST(int)[i] = convert_int_sat_rtz(SRC(float)[i])) break;
    /* from f16 (exact in f32) */
    case T_F16 * 8 + T_F32: CAST_LOOP(DST(float)[i] = vload_half(i, SRC(half))) break;
    case T_F16 * 8 + T_F16: CAST_LOOP(DST(ushort)[i] = SRC(ushort)[i]) break;
    case T_F16 * 8 + T_BF16: CAST_LOOP(DST(ushort)[i] = vncl_float_to_bf16(vload_half(i, SRC(half)))) break;
    case T_F16 * 8 + T_I32: CAST_LOOP(DST(int)[i] = convert_int_sat_rtz(vload_half(i, SRC(half)))) break;
    /* from bf16 (exact in f32) */
    case T_BF16 * 8 + T_F32: CAST_LOOP(DST(float)[i] = vncl_bf16_to_float(SRC(ushort)[i])) break;
    case T_BF16 * 8 + T_F16: CAST_LOOP(vstore_half_rte(vncl_bf16_to_float(SRC(ushort)[i]), i, DST(half))) break;
    case T_BF16 * 8 + T_BF16: CAST_LOOP(DST(ushort)[i] = SRC(ushort)[i]) break;
    case T_BF16 * 8 + T_I32: CAST_LOOP(DST(int)[i] = convert_int_sat_rtz(vncl_bf16_to_float(SRC(ushort)[i]))) break;
    /* from i32 */
    case T_I32 * 8 + T_F32: CAST_LOOP(DST(float)[i] = convert_float_rte(SRC(int)[i])) break;
    case T_I32 * 8 + T_F16: CAST_LOOP(vstore_half_rte(convert_float_rte(SRC(int)[i]), i, DST(half))) break;
    case T_I32 * 8 + T_BF16: CAST_LOOP(DST(ushort)[i] = i32_to_bf16(SRC(int)[i])) break;
    case T_I32 * 8 + T_I32: CAST_LOOP(DST(int)[i] = SRC(int)[i]) break;
#if HAS_FP64
    case T_F32 * 8 + T_F64: CAST_LOOP(DST(double)[i] = (double)SRC(float)[i]) break;
    case T_F16 * 8 + T_F64: CAST_LOOP(DST(double)[i] = (double)vload_half(i, SRC(half))) break;
    case T_BF16 * 8 + T_F64: CAST_LOOP(DST(double)[i] = (double)vncl_bf16_to_float(SRC(ushort)[i])) break;
    case T_I32 * 8 + T_F64: CAST_LOOP(DST(double)[i] = (double)SRC(int)[i]) break;
    case T_F64 * 8 + T_F32: CAST_LOOP(DST(float)[i] = convert_float_rte(SRC(double)[i])) break;
    case T_F64 * 8 + T_F64: CAST_LOOP(DST(double)[i] = SRC(double)[i]) break;
    case T_F64 * 8 + T_F16: CAST_LOOP(vstore_half_rte(SRC(double)[i], i, DST(half))) break;
    case T_F64 * 8 + T_BF16: CAST_LOOP(DST(ushort)[i] = f64_to_bf16(SRC(double)[i])) break;
    case T_F64 * 8 + T_I32: CAST_LOOP(DST(int)[i] = convert_int_sat_rtz(SRC(double)[i])) break;
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
