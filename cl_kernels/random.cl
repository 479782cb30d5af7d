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
 * Layout: work-item q makes blocks q*BPI .. q*BPI+BPI-1, one per vector
 * lane.
 */

/* Storage type: 0 f32, 1 f64, 2 f16, 3 bf16 (vncl_dtype values). */
#ifndef DTYPE
#define DTYPE 0
#endif
/* Work-items per work-group. */
#ifndef WG
#define WG 256
#endif
/* Philox blocks per work-item, made side by side in vector lanes: 1, 2, 4,
 * 8, 16. */
#ifndef BPI
#define BPI 1
#endif
/* 1: the output is aligned to 64 bytes (the host checks), so whole
 * vectors may be stored non-temporally (f32 with BPI 16). */
#ifndef NT_OUT
#define NT_OUT 0
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

/* REAL: the compute type; STORE: what the buffers hold (vncl_prelude.cl);
 * K: values per Philox block. */
#if DTYPE == 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define K 2
#else
#define K 4
#endif
#define REAL VNCL_REAL(DTYPE)
#define STORE VNCL_STORAGE(DTYPE)
typedef REAL real;

#define ST(p, i, x) VNCL_STORE(DTYPE, p, i, x)

/* f32 with 16 blocks per work-item stores its 64 outputs as four whole
 * vectors, interleaved in registers (clang's __builtin_shufflevector),
 * non-temporally when aligned: the output is written, never read. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define HAVE_SHUFFLE 1
#endif
#endif
#ifndef HAVE_SHUFFLE
#define HAVE_SHUFFLE 0
#endif
#if BPI == 16 && DTYPE == 0 && HAVE_SHUFFLE
#define FAST_STORE 1
#endif
#ifndef FAST_STORE
#define FAST_STORE 0
#endif
#if FAST_STORE && NT_OUT && __has_builtin(__builtin_nontemporal_store)
#define ST16(x, i, p) __builtin_nontemporal_store((x), (__global float16 *)(p) + (i))
#else
#define ST16(x, i, p) vstore16((x), (i), (p))
#endif

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* Lanes: work-item q makes the BPI consecutive blocks q*BPI .. q*BPI+BPI-1,
 * one per vector lane, so that the ten dependent rounds of different blocks
 * run side by side in vector instructions (a block alone is a chain of
 * multiplies). */
#if BPI == 1
#define BSUF
#define LANE_IDS ((ulong)0)
#elif BPI == 2
#define BSUF 2
#define LANE_IDS ((ulong2)(0, 1))
#elif BPI == 4
#define BSUF 4
#define LANE_IDS ((ulong4)(0, 1, 2, 3))
#elif BPI == 8
#define BSUF 8
#define LANE_IDS ((ulong8)(0, 1, 2, 3, 4, 5, 6, 7))
#else
#define BSUF 16
#define LANE_IDS ((ulong16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#endif
typedef CAT(uint, BSUF) uintB;
typedef CAT(ulong, BSUF) ulongB;
typedef CAT(REAL, BSUF) realB;
#define CVT(T, x) CAT(convert_, CAT(T, BSUF))(x)

#if BPI >= 2
/* The 32 x 32 -> 64-bit products of all lanes, as the high and low words:
 * the even lanes are the low halves of 64-bit lanes, the odd lanes the high
 * halves, so two 64-bit multiplies of half the lanes (vpmuludq on x86)
 * give every product with no widening of the vectors. Exact integer
 * arithmetic: the same words as the plain form below. */
#if BPI == 2
#define HSUF
#elif BPI == 4
#define HSUF 2
#elif BPI == 8
#define HSUF 4
#else
#define HSUF 8
#endif
typedef CAT(ulong, HSUF) ulongH;
inline void mulhilo(const uintB a, const uint m, uintB *hi, uintB *lo) {
  const ulongH w = CAT(as_ulong, HSUF)(a);
  const ulongH pe = (w & 0xffffffffUL) * (ulong)m;
  const ulongH po = (w >> 32) * (ulong)m;
#if BPI == 16 && HAVE_SHUFFLE
  /* Picking the words with two permutes keeps the multiplier port free
   * (the arithmetic form below compiles to a 64-bit multiply on x86). */
  const uint16 e = as_uint16(pe), o = as_uint16(po);
  *hi = __builtin_shufflevector(e, o, 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11,
                                27, 13, 29, 15, 31);
  *lo = __builtin_shufflevector(e, o, 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10,
                                26, 12, 28, 14, 30);
#else
  *hi = CAT(as_uint, BSUF)((pe >> 32) | (po & 0xffffffff00000000UL));
  *lo = CAT(as_uint, BSUF)((pe & 0xffffffffUL) | (po << 32));
#endif
}
#endif

/* Philox4x32 with 10 rounds on every lane. The 32 x 32 -> 64-bit products
 * are 64-bit multiplies (mul_hi may be a call). */
inline void philox4x32_10(uintB *c0, uintB *c1, uintB *c2, uintB *c3,
                          uint k0, uint k1) {
  for (int r = 0; r < 10; r++) {
    if (r) {
      k0 += PHILOX_W0;
      k1 += PHILOX_W1;
    }
#if BPI >= 2
    uintB hi0, lo0, hi1, lo1;
    mulhilo(*c0, PHILOX_M0, &hi0, &lo0);
    mulhilo(*c2, PHILOX_M1, &hi1, &lo1);
    const uintB n0 = hi1 ^ *c1 ^ k0;
    const uintB n2 = hi0 ^ *c3 ^ k1;
    *c1 = lo1;
    *c3 = lo0;
#else
    const ulongB p0 = CVT(ulong, *c0) * (ulong)PHILOX_M0;
    const ulongB p1 = CVT(ulong, *c2) * (ulong)PHILOX_M1;
    const uintB n0 = CVT(uint, p1 >> 32) ^ *c1 ^ k0;
    const uintB n2 = CVT(uint, p0 >> 32) ^ *c3 ^ k1;
    *c1 = CVT(uint, p1);
    *c3 = CVT(uint, p0);
#endif
    *c0 = n0;
    *c2 = n2;
  }
}

#if DTYPE != 1
/* ---- log and sincos for Box-Muller in f32, no library calls ------------
 * Only the arguments Box-Muller produces: u1 = j * 2^-24, j in [1, 2^24]
 * (log), and u2 = j * 2^-24, j in [0, 2^24) (sin and cos of 2 pi u2).
 *
 * log: vncl_logf (vncl_math_common.cl, shared with softmax.cl).
 * rnd_sincos2pi(u, &c): 4u is exact, q = round(4u) (0..4), r = u - q/4 in
 * [-1/8, 1/8] exactly (no rounded argument reduction: the angle is exact),
 * sin(2 pi r) = r S(r^2), cos(2 pi r) = 1 + r^2 C(r^2), S and C of degree 3
 * (fitted the same way: 3.5e-8 relative, 9e-9 absolute), then the quadrant
 * q swaps them and sets the signs.
 * Measured on PoCL over every argument (2^24 of each): docs/ops.md gives
 * the max errors; test_ops_random checks all of them every run. Lane-wise
 * operations with explicit fma and one division: vector and scalar forms
 * agree bit for bit where the division is correctly rounded (OpenCL allows
 * f32 division 2.5 ulp). */
#define RND_MATH_FNS(N)                                                     \
  VNCL_LOGF_FN(N)                                                           \
  inline CAT(float, N) CAT(rnd_sincos2pi, N)(CAT(float, N) u,              \
                                             CAT(float, N) * cosp) {       \
    typedef CAT(float, N) fv;                                               \
    typedef CAT(int, N) iv;                                                 \
    const fv tq = fma(u, (fv)4.0f, (fv)0x1.8p23f);                          \
    const iv q = CAT(as_int, N)(tq) - (iv)0x4b400000;                       \
    const fv r = fma(tq - (fv)0x1.8p23f, (fv)(-0.25f), u);                  \
    const fv z = r * r;                                                     \
    fv S = fma((fv)(-0x1.2d9b1ep+6f), z, (fv)0x1.465ec2p+6f);               \
    S = fma(S, z, (fv)(-0x1.4abbbap+5f));                                   \
    S = fma(S, z, (fv)0x1.921fb6p+2f);                                      \
    S = S * r;                                                              \
    fv C = fma((fv)0x1.db6466p+5f, z, (fv)(-0x1.55cb98p+6f));               \
    C = fma(C, z, (fv)0x1.03c1eap+6f);                                      \
    C = fma(C, z, (fv)(-0x1.3bd3ccp+4f));                                   \
    C = fma(C, z, (fv)1.0f);                                                \
    const iv odd = (q & (iv)1) != (iv)0;                                    \
    const fv c = select(C, S, odd), s = select(S, C, odd);                  \
    *cosp = CAT(as_float, N)(CAT(as_int, N)(c) ^ (((q + (iv)1) & (iv)2) << 30)); \
    return CAT(as_float, N)(CAT(as_int, N)(s) ^ ((q & (iv)2) << 30));       \
  }
RND_MATH_FNS()
#if BPI > 1
RND_MATH_FNS(BSUF)
#endif
#define RND_LOG(u) CAT(vncl_logf, BSUF)(u)
#define RND_SINCOS2PI(u, c) CAT(rnd_sincos2pi, BSUF)(u, c)
#endif

#if DTYPE == 1
/* A double in [0, 1) from 53 bits of a pair of words. */
inline realB u53(uintB hi, uintB lo) {
  return CVT(double, (CVT(ulong, hi >> 5) << 26) | CVT(ulong, lo >> 6)) *
         0x1p-53;
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
philox_fill(const IDX n, const int normal, __global STORE *out,
            const IDX ooff, const ulong seed, const ulong subsequence,
            const ulong offset, const real a, const real b) {
  out += ooff;
  const IDX blk0 = (IDX)get_global_id(0) * BPI, e0 = blk0 * K;
  if (e0 >= n) return;
  const ulongB cnt = (ulongB)(offset + blk0) + LANE_IDS;
  uintB w0 = CVT(uint, cnt), w1 = CVT(uint, cnt >> 32);
  uintB w2 = (uintB)((uint)subsequence), w3 = (uintB)((uint)(subsequence >> 32));
  philox4x32_10(&w0, &w1, &w2, &w3, (uint)seed, (uint)(seed >> 32));
  const realB va = (realB)a, vb = (realB)b;
  realB v[K]; /* v[h], lane j: element (blk0 + j) * K + h */
#if DTYPE == 1
  if (normal) {
    const realB u1 =
        CVT(double, ((CVT(ulong, w0 >> 5) << 26) | CVT(ulong, w1 >> 6)) + 1) *
        0x1p-53;
    const realB u2 = u53(w2, w3);
    const realB rad = sqrt(-2.0 * log(u1));
    realB cs;
    const realB sn = sincos(2.0 * M_PI * u2, &cs);
    v[0] = fma(vb, rad * cs, va);
    v[1] = fma(vb, rad * sn, va);
  } else {
    v[0] = fma(vb, u53(w0, w1), va);
    v[1] = fma(vb, u53(w2, w3), va);
  }
#else
  if (normal) {
    for (int h = 0; h < 2; h++) {
      const uintB x1 = h ? w2 : w0, x2 = h ? w3 : w1;
      const realB u1 = CVT(float, (x1 >> 8) + 1) * 0x1p-24f;
      const realB u2 = CVT(float, x2 >> 8) * 0x1p-24f;
      const realB rad = sqrt(-2.0f * RND_LOG(u1));
      realB cs;
      const realB sn = RND_SINCOS2PI(u2, &cs);
      v[2 * h] = fma(vb, rad * cs, va);
      v[2 * h + 1] = fma(vb, rad * sn, va);
    }
  } else {
    v[0] = fma(vb, CVT(float, w0 >> 8) * 0x1p-24f, va);
    v[1] = fma(vb, CVT(float, w1 >> 8) * 0x1p-24f, va);
    v[2] = fma(vb, CVT(float, w2 >> 8) * 0x1p-24f, va);
    v[3] = fma(vb, CVT(float, w3 >> 8) * 0x1p-24f, va);
  }
#endif
#if FAST_STORE
  /* Element e0 + 4j + h is v[h] lane j: four interleaves make the 64
   * consecutive outputs as four vectors, stored whole. */
  if (e0 + 64 <= n) {
    const float16 ab0 = __builtin_shufflevector(v[0], v[1], 0, 16, 1, 17, 2,
                                                18, 3, 19, 4, 20, 5, 21, 6,
                                                22, 7, 23);
    const float16 ab1 = __builtin_shufflevector(v[0], v[1], 8, 24, 9, 25, 10,
                                                26, 11, 27, 12, 28, 13, 29,
                                                14, 30, 15, 31);
    const float16 cd0 = __builtin_shufflevector(v[2], v[3], 0, 16, 1, 17, 2,
                                                18, 3, 19, 4, 20, 5, 21, 6,
                                                22, 7, 23);
    const float16 cd1 = __builtin_shufflevector(v[2], v[3], 8, 24, 9, 25, 10,
                                                26, 11, 27, 12, 28, 13, 29,
                                                14, 30, 15, 31);
#define PAIRS_LO 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23
#define PAIRS_HI 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31
    __global float *o = out + e0;
    ST16(__builtin_shufflevector(ab0, cd0, PAIRS_LO), 0, o);
    ST16(__builtin_shufflevector(ab0, cd0, PAIRS_HI), 1, o);
    ST16(__builtin_shufflevector(ab1, cd1, PAIRS_LO), 2, o);
    ST16(__builtin_shufflevector(ab1, cd1, PAIRS_HI), 3, o);
    return;
  }
#endif
  real t[K][BPI];
  for (int h = 0; h < K; h++) {
#if BPI == 1
    t[h][0] = v[h];
#else
    CAT(vstore, BPI)(v[h], 0, t[h]);
#endif
  }
  if (e0 + BPI * K <= n) {
    for (int j = 0; j < BPI; j++)
      for (int h = 0; h < K; h++) ST(out, e0 + j * K + h, t[h][j]);
  } else {
    for (int j = 0; j < BPI; j++)
      for (int h = 0; h < K; h++)
        if (e0 + j * K + h < n) ST(out, e0 + j * K + h, t[h][j]);
  }
}

#if DTYPE == 0
/* Test hook (test_ops_random): for u[i] = j * 2^-24 (j in [0, 2^24]),
 * out[3i] = the kernel's log(u[i]) (u > 0), out[3i + 1] and out[3i + 2]
 * its cos and sin of 2 pi u[i]; BPI elements per work-item in vector lanes
 * as philox_fill computes them. */
__kernel void philox_math_probe(const IDX n, __global const float *u,
                                __global float *out) {
  const IDX i = (IDX)get_global_id(0) * BPI;
  if (i + BPI <= n) {
#if BPI == 1
    const realB x = u[i];
#else
    const realB x = CAT(vload, BPI)(0, u + i);
#endif
    realB c;
    const realB l = RND_LOG(x), s = RND_SINCOS2PI(x, &c);
    real tl[BPI], tc[BPI], ts[BPI];
#if BPI == 1
    tl[0] = l, tc[0] = c, ts[0] = s;
#else
    CAT(vstore, BPI)(l, 0, tl);
    CAT(vstore, BPI)(c, 0, tc);
    CAT(vstore, BPI)(s, 0, ts);
#endif
    for (int j = 0; j < BPI; j++) {
      out[3 * (i + j)] = tl[j];
      out[3 * (i + j) + 1] = tc[j];
      out[3 * (i + j) + 2] = ts[j];
    }
  } else {
    for (IDX j = i; j < n; j++) {
      float c;
      out[3 * j] = vncl_logf(u[j]);
      out[3 * j + 2] = rnd_sincos2pi(u[j], &c);
      out[3 * j + 1] = c;
    }
  }
}
#endif
