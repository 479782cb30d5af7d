/*
 * random.cl: uniform and normal random numbers from Philox4x32-10
 * (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011),
 * on one storage type (DTYPE).
 *
 *   philox_fill   element e of the tensor comes from Philox block
 *                 b = e / K (K = 4 values per block for f32/f16/bf16, 2 for
 *                 f64), word(s) e % K, with
 *                    counter = (offset + b) as 64 bits in words 0-1,
 *                              subsequence as 64 bits in words 2-3
 *                    key     = seed as 64 bits
 *                 so every element is a function of (seed, subsequence,
 *                 offset, e) alone: the same on every device, work-group
 *                 size and BPI.
 *
 * Values (u in [0, 1), computed exactly):
 *   f32: u = (w >> 8) * 2^-24;  uniform = fma(hi - lo, u, lo)
 *   f64: u = ((w0 >> 5) * 2^26 + (w1 >> 6)) * 2^-53, from a pair of words
 *   normal (Box-Muller): u1 = (bits + 1) * 2^-k in (0, 1], u2 as above,
 *        z0 = sqrt(-2 log u1) cos(2 pi u2), z1 = ... sin(2 pi u2),
 *        value = fma(stddev, z, mean); pairs are words (0,1), (2,3) in f32,
 *        (words 0-1, words 2-3) in f64.
 * 16-bit storage computes the f32 value and rounds it to nearest even.
 *
 * Layout: work-item l of group g makes blocks g*WG*BPI + k*WG + l, k < BPI
 * (or, with ITEM_CONTIG, the BPI blocks from (g*WG + l)*BPI).
 */

/* Storage type: 0 f32, 1 f64, 2 f16, 3 bf16 (vncl_dtype values). */
#ifndef DTYPE
#define DTYPE 0
#endif
/* Work-items per work-group. */
#ifndef WG
#define WG 256
#endif
/* Philox blocks per work-item. */
#ifndef BPI
#define BPI 1
#endif
/* 1: each work-item makes BPI consecutive blocks (CPUs); 0: they are WG
 * apart (GPUs: neighbouring work-items write neighbouring blocks). The
 * numbers do not depend on it. */
#ifndef ITEM_CONTIG
#define ITEM_CONTIG 0
#endif
/* Index width: 32 or 64 bits. */
#ifndef IDX_BITS
#define IDX_BITS 32
#endif

/* NaN and finiteness by comparison: x != x only for NaN, x - x == 0 only
 * for finite x. (PoCL's isnan/isfinite are calls that cost several times
 * a Kahan step; these compile to one compare, and stay exact without
 * -cl-fast-relaxed-math.) */
#define IS_NAN(x) ((x) != (x))
#define IS_FINITE(x) ((x) - (x) == 0)

#if IDX_BITS == 64
typedef ulong IDX;
#else
typedef uint IDX;
#endif

#if DTYPE == 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define REAL double
#define STORE double
#define K 2
#else
#define REAL float
#define K 4
#if DTYPE == 2
#define STORE half
#elif DTYPE == 3
#define STORE ushort
#else
#define STORE float
#endif
#endif
typedef REAL real;

#if DTYPE == 2
#define ST(p, i, x) vstore_half_rte((x), (i), (p))
#elif DTYPE == 3
inline ushort bf16_round(float f) {
  uint u = as_uint(f);
  if (IS_NAN(f)) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#define ST(p, i, x) ((p)[i] = bf16_round(x))
#else
#define ST(p, i, x) ((p)[i] = (x))
#endif

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* Philox4x32 with 10 rounds. */
inline uint4 philox4x32_10(uint4 c, uint2 k) {
  for (int r = 0; r < 10; r++) {
    if (r) {
      k.x += PHILOX_W0;
      k.y += PHILOX_W1;
    }
    /* 32 x 32 -> 64-bit products (one multiply each; mul_hi may be a
     * call) */
    const ulong p0 = (ulong)PHILOX_M0 * c.x, p1 = (ulong)PHILOX_M1 * c.z;
    c = (uint4)((uint)(p1 >> 32) ^ c.y ^ k.x, (uint)p1,
                (uint)(p0 >> 32) ^ c.w ^ k.y, (uint)p0);
  }
  return c;
}

#if DTYPE == 1
inline double u53(uint a, uint b) {
  return (double)(((ulong)(a >> 5) << 26) | (ulong)(b >> 6)) * 0x1p-53;
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
philox_fill(const IDX n, const int normal, __global STORE *out,
            const IDX ooff, const ulong seed, const ulong subsequence,
            const ulong offset, const real a, const real b) {
  out += ooff;
  const uint2 key = (uint2)((uint)seed, (uint)(seed >> 32));
#if ITEM_CONTIG
  const IDX first = (IDX)get_global_id(0) * BPI, step = 1;
#else
  const IDX first = (IDX)get_group_id(0) * (WG * BPI) + (IDX)get_local_id(0),
            step = WG;
#endif
  for (int j = 0; j < BPI; j++) {
    const IDX blk = first + (IDX)j * step;
    const IDX e = blk * K;
    if (e >= n) break;
    const ulong c = offset + blk;
    const uint4 w = philox4x32_10(
        (uint4)((uint)c, (uint)(c >> 32), (uint)subsequence,
                (uint)(subsequence >> 32)),
        key);
    real v[K];
#if DTYPE == 1
    if (normal) {
      const double u1 = (double)((((ulong)(w.x >> 5) << 26) |
                                  (ulong)(w.y >> 6)) + 1) * 0x1p-53;
      const double u2 = u53(w.z, w.w);
      const double rad = sqrt(-2.0 * log(u1));
      double cs;
      const double sn = sincos(2.0 * M_PI * u2, &cs);
      v[0] = fma(b, rad * cs, a);
      v[1] = fma(b, rad * sn, a);
    } else {
      v[0] = fma(b, u53(w.x, w.y), a);
      v[1] = fma(b, u53(w.z, w.w), a);
    }
#else
    if (normal) {
      const uint ws[4] = {w.x, w.y, w.z, w.w};
      for (int h = 0; h < 2; h++) {
        const float u1 = (float)((ws[2 * h] >> 8) + 1) * 0x1p-24f;
        const float u2 = (float)(ws[2 * h + 1] >> 8) * 0x1p-24f;
        const float rad = sqrt(-2.0f * log(u1));
        float cs;
        const float sn = sincos(2.0f * M_PI_F * u2, &cs);
        v[2 * h] = fma(b, rad * cs, a);
        v[2 * h + 1] = fma(b, rad * sn, a);
      }
    } else {
      v[0] = fma(b, (float)(w.x >> 8) * 0x1p-24f, a);
      v[1] = fma(b, (float)(w.y >> 8) * 0x1p-24f, a);
      v[2] = fma(b, (float)(w.z >> 8) * 0x1p-24f, a);
      v[3] = fma(b, (float)(w.w >> 8) * 0x1p-24f, a);
    }
#endif
    for (int h = 0; h < K; h++)
      if (e + h < n) ST(out, e + h, v[h]);
  }
}
