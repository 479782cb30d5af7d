/*
 * fft_stockham.cl: complex DFTs of length n = 2^a 3^b 5^c 7^d 11^e 13^f
 * along many lines at once, shaped for CPU devices: one work-item
 * transforms VW lines together, with the VW lines in the lanes of a vector
 * (SIMD across lines), so every butterfly is plain vector arithmetic with
 * no shuffles, no local memory and no barriers (PoCL runs those poorly, see
 * docs/fft.md).
 *
 *   gather    the work-item's VW lines -> its scratch, as [n][re|im][VW]
 *   passes    Stockham autosort passes of radix 8, 10, 4, 2, 3, 5, 7, 11, 13,
 *             ping-ponging between the two halves of the scratch
 *   scatter   scratch -> y, times `scale`, times an optional twiddle
 *
 * Lines. Line l = (o, m, i), l = (o * mid + m) * inner + i; element j of it
 * is x[o*xo + m*xm + i*xi + j*xj] and its output k goes to
 * y[o*yo + m*ym + i*yi + k*yj]. That covers any axis of a row-major array
 * (mid = 1) and both steps of a four-step split of a long axis (where the
 * second step writes its result transposed). x and y may be the same
 * buffer when every line is written where it was read.
 *
 * Direction: sign = -1 computes sum_j x[j] exp(-2 pi i jk/n), +1 the same
 * with +i. tw: the twiddles of the passes in the order they read them,
 * forward then (at tw + n) conjugated for +1 (PASS, passes_dir).
 *
 * Post-twiddle (four-step): when twn != 0, output k of a line with middle
 * index m is also multiplied by exp(sign 2 pi i m k / twn), m k < twn, from
 * two tables: twlo[t & (2^twshift - 1)] * twhi[t >> twshift]. When the
 * lanes' middle indices are consecutive, m0 + l, as vectors: w^(m0 k)
 * from the two tables times twv's row of w^(l k) (k = TW_EVERY r: 16 real
 * parts, then 16 imaginary ones).
 *
 * Offsets: x0 and y0 complex elements are skipped in x and y before the
 * addressing above (one block of a batch at a time).
 *
 * C2R pre-processing (prem = m != 0, the first step of a split C2R half):
 * x is then a real spectrum X, rows of m + 1 values, and element j of a
 * line is not x[...] but Z[z], fft_c2r_pre's value from X[k] and X[m - k]
 * (c2r_pre_at), z = x0 + o*xo + m*xm + i*xi + j*xj in rows of m (row
 * z / m, k = z mod m): the pre-processing pass, its write and the read of
 * Z are gone. rtw[k] = exp(-2 pi i k / 2m). prem = 0: rtw is unused.
 * No plan sets prem since fft_stockham_c2r2; the path stays because the
 * kernel without it ran large c2c transforms 1.2-1.4x slower under PoCL
 * 3.1 (docs/fft.md, "prem").
 *
 * NDRange: 1-D, any number of work-items; work-item g of W handles the
 * contiguous range of line groups [g G / W, (g + 1) G / W) of the G
 * groups (fft_stockham_r2c1 and fft_stockham_c2r1: [g per, (g + 1) per),
 * per = G / W rounded up), so the scratch is bounded by the number of
 * work-items, not by the number of lines. Scratch: 4 * n * VW reals per
 * work-item.
 *
 * Real transforms of even n = 2m through the half length (at the end of
 * the file): fft_stockham_r2c1 and fft_stockham_c2r1 (m in one pass, the
 * split or the pre-processing in the scratch), fft_stockham_r2c (the
 * second step of a split m with the split) and fft_stockham_c2r2 (the
 * first step of a split m with the pre-processing). Batches of contiguous lines
 * of 2, 4, 8 and 16 (at the very end): fft_stockham_short and
 * fft_stockham_short16, the whole transform in registers.
 */

/* 32: float, 64: double (needs cl_khr_fp64). */
#ifndef PRECISION
#define PRECISION 32
#endif
/* Lines per work-item: the vector width (2, 4, 8 or 16). */
#ifndef VW
#define VW 8
#endif
/* 1: radix-8 passes for the factors 8 of n (then 4, 2, ...); 0: radix 4
 * and 2 only. RADIX8 and RADIX10 change the passes, so the host's pass
 * twiddle tables (vncl__fft_pass_radices, fft_stockham.c) must change with
 * them. */
#ifndef RADIX8
#define RADIX8 1
#endif
/* 1: radix-10 passes (a 2-point and two 5-point DFTs) for factors 2 x 5
 * left after the radix-8 passes; 0: radix 2 and 5 separately. */
#ifndef RADIX10
#define RADIX10 1
#endif
/* Four-step twiddles: read from the tables every TW_EVERY outputs, by
 * recurrence in between (the split entry's row table, fft_cache.c, has
 * rows every 8 outputs). */
#define TW_EVERY 8

#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#define VT_ double
#else
typedef float real;
typedef float2 real2;
#define VT_ float
#endif

/* The butterflies and the transpose: always inlined (PoCL 3.1 kept them as
 * calls, about 140 instructions a radix-5 call with its prologue and
 * argument moves, the transpose's rows through memory; docs/fft.md). */
#define FFT_INLINE __attribute__((always_inline)) inline

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
typedef CAT(VT_, VW) vec;
#define VLOAD CAT(vload, VW)
#define VSTORE CAT(vstore, VW)

/* VW complex values side by side (re, im, re, im, ...): one vector of 2 VW
 * reals, split into its even (re) and odd (im) lanes. Used when the VW
 * lines of a group are adjacent in memory, as along a strided axis. */
#if VW == 2
#define VW2 4
#elif VW == 4
#define VW2 8
#elif VW == 8
#define VW2 16
#endif
#ifdef VW2
typedef CAT(VT_, VW2) pvec;
#define PVLOAD CAT(vload, VW2)
#define PVSTORE CAT(vstore, VW2)
#define PAIR_LOAD(p, re, im)   \
  do {                         \
    const pvec v_ = PVLOAD(0, p); \
    re = v_.even;              \
    im = v_.odd;               \
  } while (0)
#define PAIR_STORE(p, re, im)  \
  do {                         \
    pvec v_;                   \
    v_.even = re;              \
    v_.odd = im;               \
    PVSTORE(v_, 0, p);         \
  } while (0)
#elif VW == 16
/* Two vectors of 16: lanes 0-7, then 8-15. */
typedef CAT(VT_, 16) pvec;
#define VW2 32
#define PAIR_LOAD(p, re, im)                          \
  do {                                                \
    const pvec v0_ = vload16(0, p), v1_ = vload16(1, p); \
    re = (vec)(v0_.even, v1_.even);                   \
    im = (vec)(v0_.odd, v1_.odd);                     \
  } while (0)
#define PAIR_STORE(p, re, im)                         \
  do {                                                \
    pvec v0_, v1_;                                    \
    v0_.even = (re).lo;                               \
    v0_.odd = (im).lo;                                \
    v1_.even = (re).hi;                               \
    v1_.odd = (im).hi;                                \
    vstore16(v0_, 0, p);                              \
    vstore16(v1_, 1, p);                              \
  } while (0)
#endif

inline real2 cmul(real2 a, real2 b) {
  return (real2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

#if VW == 8
/* Transposes the 8 x 8 matrix whose rows are r[0..8) in three rounds of
 * shuffles (pairs, quads, halves): afterwards r[j][i] is the old r[i][j].
 * Moves the VW lines of a group between "lanes" (the scratch layout) and
 * "elements" (a contiguous line) 8 values at a time. */
#if PRECISION == 64
typedef ulong8 mask8; /* shuffle masks have the element's width */
#else
typedef uint8 mask8;
#endif
/* Three rounds of two-source shuffles (pairs, quads, halves) on rows r[0..8)
 * of type T with masks of type M, written out: as loops over arrays of 8
 * temporaries PoCL 3.1 kept the arrays on the stack and ran the loops (a
 * store and a reload per shuffle; the gathers and scatters took 36% of a
 * 64 x 1024 transform's samples under perf, the passes 28%). */
#define TRANSPOSE8_BODY(T, M)                                                  \
  const M lo1 = (M)(0, 8, 1, 9, 2, 10, 3, 11);                                 \
  const M hi1 = (M)(4, 12, 5, 13, 6, 14, 7, 15);                               \
  const M lo2 = (M)(0, 1, 8, 9, 2, 3, 10, 11);                                 \
  const M hi2 = (M)(4, 5, 12, 13, 6, 7, 14, 15);                               \
  const M lo4 = (M)(0, 1, 2, 3, 8, 9, 10, 11);                                 \
  const M hi4 = (M)(4, 5, 6, 7, 12, 13, 14, 15);                               \
  const T t0 = shuffle2(r[0], r[1], lo1), t1 = shuffle2(r[0], r[1], hi1);      \
  const T t2 = shuffle2(r[2], r[3], lo1), t3 = shuffle2(r[2], r[3], hi1);      \
  const T t4 = shuffle2(r[4], r[5], lo1), t5 = shuffle2(r[4], r[5], hi1);      \
  const T t6 = shuffle2(r[6], r[7], lo1), t7 = shuffle2(r[6], r[7], hi1);      \
  const T u0 = shuffle2(t0, t2, lo2), u1 = shuffle2(t0, t2, hi2);              \
  const T u2 = shuffle2(t1, t3, lo2), u3 = shuffle2(t1, t3, hi2);              \
  const T u4 = shuffle2(t4, t6, lo2), u5 = shuffle2(t4, t6, hi2);              \
  const T u6 = shuffle2(t5, t7, lo2), u7 = shuffle2(t5, t7, hi2);              \
  r[0] = shuffle2(u0, u4, lo4);                                                \
  r[1] = shuffle2(u0, u4, hi4);                                                \
  r[2] = shuffle2(u1, u5, lo4);                                                \
  r[3] = shuffle2(u1, u5, hi4);                                                \
  r[4] = shuffle2(u2, u6, lo4);                                                \
  r[5] = shuffle2(u2, u6, hi4);                                                \
  r[6] = shuffle2(u3, u7, lo4);                                                \
  r[7] = shuffle2(u3, u7, hi4)
#if PRECISION == 32 && !defined(__AVX512F__)
/* f32 without AVX-512: the shuffles of the usual AVX 8 x 8 transpose
 * (unpack within 128-bit halves, shufps, then the halves exchanged). For
 * an AVX2 target PoCL 3.1's LLVM made the generic masks below a loop
 * through the stack of about 170 instructions a call, these 117 straight
 * ones; for AVX-512 it makes the generic masks 61 instructions (two-source
 * permutes) and these 118, so AVX-512 keeps them (counts from the
 * generated code, docs/fft.md). */
FFT_INLINE void transpose8(vec *r) {
  const mask8 ulo = (mask8)(0, 8, 1, 9, 4, 12, 5, 13);
  const mask8 uhi = (mask8)(2, 10, 3, 11, 6, 14, 7, 15);
  const mask8 slo = (mask8)(0, 1, 8, 9, 4, 5, 12, 13);
  const mask8 shi = (mask8)(2, 3, 10, 11, 6, 7, 14, 15);
  const mask8 plo = (mask8)(0, 1, 2, 3, 8, 9, 10, 11);
  const mask8 phi = (mask8)(4, 5, 6, 7, 12, 13, 14, 15);
  const vec t0 = shuffle2(r[0], r[1], ulo), t1 = shuffle2(r[0], r[1], uhi);
  const vec t2 = shuffle2(r[2], r[3], ulo), t3 = shuffle2(r[2], r[3], uhi);
  const vec t4 = shuffle2(r[4], r[5], ulo), t5 = shuffle2(r[4], r[5], uhi);
  const vec t6 = shuffle2(r[6], r[7], ulo), t7 = shuffle2(r[6], r[7], uhi);
  const vec u0 = shuffle2(t0, t2, slo), u1 = shuffle2(t0, t2, shi);
  const vec u2 = shuffle2(t1, t3, slo), u3 = shuffle2(t1, t3, shi);
  const vec u4 = shuffle2(t4, t6, slo), u5 = shuffle2(t4, t6, shi);
  const vec u6 = shuffle2(t5, t7, slo), u7 = shuffle2(t5, t7, shi);
  r[0] = shuffle2(u0, u4, plo);
  r[1] = shuffle2(u1, u5, plo);
  r[2] = shuffle2(u2, u6, plo);
  r[3] = shuffle2(u3, u7, plo);
  r[4] = shuffle2(u0, u4, phi);
  r[5] = shuffle2(u1, u5, phi);
  r[6] = shuffle2(u2, u6, phi);
  r[7] = shuffle2(u3, u7, phi);
}
#else
FFT_INLINE void transpose8(vec *r) { TRANSPOSE8_BODY(vec, mask8); }
#endif /* PRECISION */
#if PRECISION == 32 && defined(__AVX512F__)
/* The same transpose on 64-bit elements: r[l] holds 8 complex f32 values
 * (re, im interleaved) of line l; afterwards r[j] holds value j of the 8
 * lines, still interleaved. gather_block8 and scatter_block8 move a block
 * this way, one permute per pair of values where the split into re and im
 * first (.even/.odd of each load, then two float transposes) let LLVM
 * take the block apart into 64-bit loads and 128-bit shuffles (about 230
 * instructions a block of 64 values). */
FFT_INLINE void transpose8_pairs(ulong8 *r) { TRANSPOSE8_BODY(ulong8, ulong8); }
#define TRANSPOSE_PAIRS 1
#endif
#endif

/* Butterflies of one Stockham pass with sub-transforms of size ns: the
 * R inputs j + r n/R (stride `q` = n/R lines of 2 VW reals) go, twiddled
 * by w^(r k), k = j mod ns, to outputs d + r ns, d = (j / ns) ns R + k.
 * The caller walks j as (j / ns, k) so no division is needed here.
 * s = +1 forward, -1 inverse (the sign of the i in the twiddles). */

#define LOADC(p, off, re, im)           \
  do {                                  \
    re = VLOAD(0, (p) + (off));         \
    im = VLOAD(0, (p) + (off) + VW);    \
  } while (0)
#define STOREC(p, off, re, im)          \
  do {                                  \
    VSTORE(re, 0, (p) + (off));         \
    VSTORE(im, 0, (p) + (off) + VW);    \
  } while (0)
/* (re, im) *= w^(r k), the pass table's value for input r of this k (w
 * points at the R - 1 values of k, already conjugated for the inverse). */
#define TWIDDLE(re, im, r)                                        \
  do {                                                            \
    /* two scalars: broadcasts from memory, not a pair and a permute */ \
    const real wx_ = ((__global const real *)w)[2 * (r) - 2];     \
    const real wy_ = ((__global const real *)w)[2 * (r) - 1];     \
    const vec t_ = re * wx_ - im * wy_;                           \
    im = re * wy_ + im * wx_;                                     \
    re = t_;                                                      \
  } while (0)

FFT_INLINE void radix2(__global const real *in, __global real *out, uint j,
                       uint k, uint d, uint q, uint ns, real s,
                       __global const real2 *w) {
  const size_t qs = (size_t)q * 2 * VW, st = (size_t)ns * 2 * VW;
  __global const real *p = in + (size_t)j * 2 * VW;
  vec r0, i0, r1, i1;
  LOADC(p, 0, r0, i0);
  LOADC(p, qs, r1, i1);
  if (k) TWIDDLE(r1, i1, 1);
  __global real *o = out + (size_t)d * 2 * VW;
  STOREC(o, 0, r0 + r1, i0 + i1);
  STOREC(o, st, r0 - r1, i0 - i1);
}

FFT_INLINE void radix3(__global const real *in, __global real *out, uint j,
                       uint k, uint d, uint q, uint ns, real s,
                       __global const real2 *w) {
  const size_t qs = (size_t)q * 2 * VW, st = (size_t)ns * 2 * VW;
  __global const real *p = in + (size_t)j * 2 * VW;
  vec r0, i0, r1, i1, r2, i2;
  LOADC(p, 0, r0, i0);
  LOADC(p, qs, r1, i1);
  LOADC(p, 2 * qs, r2, i2);
  if (k) {
    TWIDDLE(r1, i1, 1);
    TWIDDLE(r2, i2, 2);
  }
  /* X1,2 = a - (b + c)/2 -+ i s sin(2 pi/3) (b - c) */
  const real s1 = s * (real)0.86602540378443864676;
  const vec tr = r1 + r2, ti = i1 + i2;
  const vec mr = r0 - (real)0.5 * tr, mi = i0 - (real)0.5 * ti;
  const vec ur = s1 * (i1 - i2), ui = -s1 * (r1 - r2); /* -i s1 (b - c) */
  __global real *o = out + (size_t)d * 2 * VW;
  STOREC(o, 0, r0 + tr, i0 + ti);
  STOREC(o, st, mr + ur, mi + ui);
  STOREC(o, 2 * st, mr - ur, mi - ui);
}

FFT_INLINE void radix4(__global const real *in, __global real *out, uint j,
                       uint k, uint d, uint q, uint ns, real s,
                       __global const real2 *w) {
  const size_t qs = (size_t)q * 2 * VW, st = (size_t)ns * 2 * VW;
  __global const real *p = in + (size_t)j * 2 * VW;
  vec r0, i0, r1, i1, r2, i2, r3, i3;
  LOADC(p, 0, r0, i0);
  LOADC(p, qs, r1, i1);
  LOADC(p, 2 * qs, r2, i2);
  LOADC(p, 3 * qs, r3, i3);
  if (k) {
    TWIDDLE(r1, i1, 1);
    TWIDDLE(r2, i2, 2);
    TWIDDLE(r3, i3, 3);
  }
  const vec a0r = r0 + r2, a0i = i0 + i2, a1r = r0 - r2, a1i = i0 - i2;
  const vec a2r = r1 + r3, a2i = i1 + i3, a3r = r1 - r3, a3i = i1 - i3;
  __global real *o = out + (size_t)d * 2 * VW;
  STOREC(o, 0, a0r + a2r, a0i + a2i);
  STOREC(o, st, a1r + s * a3i, a1i - s * a3r);
  STOREC(o, 2 * st, a0r - a2r, a0i - a2i);
  STOREC(o, 3 * st, a1r - s * a3i, a1i + s * a3r);
}

FFT_INLINE void radix5(__global const real *in, __global real *out, uint j,
                       uint k, uint d, uint q, uint ns, real s,
                       __global const real2 *w) {
  const size_t qs = (size_t)q * 2 * VW, st = (size_t)ns * 2 * VW;
  __global const real *p = in + (size_t)j * 2 * VW;
  vec r0, i0, r1, i1, r2, i2, r3, i3, r4, i4;
  LOADC(p, 0, r0, i0);
  LOADC(p, qs, r1, i1);
  LOADC(p, 2 * qs, r2, i2);
  LOADC(p, 3 * qs, r3, i3);
  LOADC(p, 4 * qs, r4, i4);
  if (k) {
    TWIDDLE(r1, i1, 1);
    TWIDDLE(r2, i2, 2);
    TWIDDLE(r3, i3, 3);
    TWIDDLE(r4, i4, 4);
  }
  /* cos and sin of 2 pi/5 and 4 pi/5 */
  const real c1 = (real)0.30901699437494742410,
             c2 = (real)-0.80901699437494742410;
  const real s1 = s * (real)0.95105651629515357212,
             s2 = s * (real)0.58778525229247312917;
  const vec b1r = r1 + r4, b1i = i1 + i4, d1r = r1 - r4, d1i = i1 - i4;
  const vec b2r = r2 + r3, b2i = i2 + i3, d2r = r2 - r3, d2i = i2 - i3;
  const vec t1r = r0 + c1 * b1r + c2 * b2r, t1i = i0 + c1 * b1i + c2 * b2i;
  const vec t2r = r0 + c2 * b1r + c1 * b2r, t2i = i0 + c2 * b1i + c1 * b2i;
  /* u1 = s1 d1 + s2 d2, u2 = s2 d1 - s1 d2; X1,4 = t1 -+ i u1,
   * X2,3 = t2 -+ i u2 (forward; the inverse flips i through s). */
  const vec u1r = s1 * d1r + s2 * d2r, u1i = s1 * d1i + s2 * d2i;
  const vec u2r = s2 * d1r - s1 * d2r, u2i = s2 * d1i - s1 * d2i;
  __global real *o = out + (size_t)d * 2 * VW;
  STOREC(o, 0, r0 + b1r + b2r, i0 + b1i + b2i);
  STOREC(o, st, t1r + u1i, t1i - u1r);
  STOREC(o, 2 * st, t2r + u2i, t2i - u2r);
  STOREC(o, 3 * st, t2r - u2i, t2i + u2r);
  STOREC(o, 4 * st, t1r - u1i, t1i + u1r);
}

/* The 5-point DFT of (r0, i0) .. (r4, i4) in place, the arithmetic of
 * radix5 (s = +1 forward, -1 inverse): X0 .. X4 into the same names. */
#define DFT5(r0, i0, r1, i1, r2, i2, r3, i3, r4, i4)                     \
  do {                                                                   \
    const real c1_ = (real)0.30901699437494742410,                       \
               c2_ = (real)-0.80901699437494742410;                      \
    const real s1_ = s * (real)0.95105651629515357212,                   \
               s2_ = s * (real)0.58778525229247312917;                   \
    const vec b1r = r1 + r4, b1i = i1 + i4, d1r = r1 - r4, d1i = i1 - i4; \
    const vec b2r = r2 + r3, b2i = i2 + i3, d2r = r2 - r3, d2i = i2 - i3; \
    const vec t1r = r0 + c1_ * b1r + c2_ * b2r;                          \
    const vec t1i = i0 + c1_ * b1i + c2_ * b2i;                          \
    const vec t2r = r0 + c2_ * b1r + c1_ * b2r;                          \
    const vec t2i = i0 + c2_ * b1i + c1_ * b2i;                          \
    const vec u1r = s1_ * d1r + s2_ * d2r, u1i = s1_ * d1i + s2_ * d2i;  \
    const vec u2r = s2_ * d1r - s1_ * d2r, u2i = s2_ * d1i - s1_ * d2i;  \
    r0 = r0 + b1r + b2r;                                                 \
    i0 = i0 + b1i + b2i;                                                 \
    r1 = t1r + u1i;                                                      \
    i1 = t1i - u1r;                                                      \
    r2 = t2r + u2i;                                                      \
    i2 = t2i - u2r;                                                      \
    r3 = t2r - u2i;                                                      \
    i3 = t2i + u2r;                                                      \
    r4 = t1r - u1i;                                                      \
    i4 = t1i + u1r;                                                      \
  } while (0)

/* Radix 10 as two 5-point DFTs (even and odd inputs) and a radix-2 step
 * with w10^t = exp(-s 2 pi i t/10): one pass where radix 2 and radix 5
 * took two (2^a 5^b lengths: 100000 = 250 x 400 in six passes instead of
 * eight). */
FFT_INLINE void radix10(__global const real *in, __global real *out, uint j,
                        uint k, uint d, uint q, uint ns, real s,
                        __global const real2 *w) {
  const size_t qs = (size_t)q * 2 * VW, st = (size_t)ns * 2 * VW;
  __global const real *p = in + (size_t)j * 2 * VW;
  vec r0, i0, r1, i1, r2, i2, r3, i3, r4, i4, r5, i5, r6, i6, r7, i7, r8, i8,
      r9, i9;
  LOADC(p, 0, r0, i0);
  LOADC(p, qs, r1, i1);
  LOADC(p, 2 * qs, r2, i2);
  LOADC(p, 3 * qs, r3, i3);
  LOADC(p, 4 * qs, r4, i4);
  LOADC(p, 5 * qs, r5, i5);
  LOADC(p, 6 * qs, r6, i6);
  LOADC(p, 7 * qs, r7, i7);
  LOADC(p, 8 * qs, r8, i8);
  LOADC(p, 9 * qs, r9, i9);
  if (k) {
    TWIDDLE(r1, i1, 1);
    TWIDDLE(r2, i2, 2);
    TWIDDLE(r3, i3, 3);
    TWIDDLE(r4, i4, 4);
    TWIDDLE(r5, i5, 5);
    TWIDDLE(r6, i6, 6);
    TWIDDLE(r7, i7, 7);
    TWIDDLE(r8, i8, 8);
    TWIDDLE(r9, i9, 9);
  }
  DFT5(r0, i0, r2, i2, r4, i4, r6, i6, r8, i8); /* E_t in (r0,r2,..,r8)[t] */
  DFT5(r1, i1, r3, i3, r5, i5, r7, i7, r9, i9); /* O_t in (r1,r3,..,r9)[t] */
  /* O_t times w10^t = cos(2 pi t/10) - i s sin(2 pi t/10), t = 1 .. 4:
   * (a - i s b)(x + i y) = (a x + s b y) + i (a y - s b x). */
  const real ca = (real)0.80901699437494742410,
             cb = (real)0.30901699437494742410;
  const real sa = s * (real)0.58778525229247312917,
             sb = s * (real)0.95105651629515357212;
  const vec o1r = ca * r3 + sa * i3, o1i = ca * i3 - sa * r3;
  const vec o2r = cb * r5 + sb * i5, o2i = cb * i5 - sb * r5;
  const vec o3r = sb * i7 - cb * r7, o3i = -cb * i7 - sb * r7;
  const vec o4r = sa * i9 - ca * r9, o4i = -ca * i9 - sa * r9;
  __global real *o = out + (size_t)d * 2 * VW;
  STOREC(o, 0, r0 + r1, i0 + i1);
  STOREC(o, st, r2 + o1r, i2 + o1i);
  STOREC(o, 2 * st, r4 + o2r, i4 + o2i);
  STOREC(o, 3 * st, r6 + o3r, i6 + o3i);
  STOREC(o, 4 * st, r8 + o4r, i8 + o4i);
  STOREC(o, 5 * st, r0 - r1, i0 - i1);
  STOREC(o, 6 * st, r2 - o1r, i2 - o1i);
  STOREC(o, 7 * st, r4 - o2r, i4 - o2i);
  STOREC(o, 8 * st, r6 - o3r, i6 - o3i);
  STOREC(o, 9 * st, r8 - o4r, i8 - o4i);
}

/* Radix 8 as two 4-point DFTs (even and odd inputs) and a radix-2 step
 * with w8^t = exp(-s 2 pi i t/8): 3 passes of 8 where there were 4.5 of 4,
 * so fewer trips through the scratch for powers of two. */
#define DFT4(r0, i0, r1, i1, r2, i2, r3, i3)                    \
  do {                                                          \
    const vec a0r = r0 + r2, a0i = i0 + i2;                     \
    const vec a1r = r0 - r2, a1i = i0 - i2;                     \
    const vec a2r = r1 + r3, a2i = i1 + i3;                     \
    const vec a3r = r1 - r3, a3i = i1 - i3;                     \
    r0 = a0r + a2r;                                             \
    i0 = a0i + a2i;                                             \
    r2 = a0r - a2r;                                             \
    i2 = a0i - a2i;                                             \
    r1 = a1r + s * a3i;                                         \
    i1 = a1i - s * a3r;                                         \
    r3 = a1r - s * a3i;                                         \
    i3 = a1i + s * a3r;                                         \
  } while (0)

FFT_INLINE void radix8(__global const real *in, __global real *out, uint j,
                       uint k, uint d, uint q, uint ns, real s,
                       __global const real2 *w) {
  const size_t qs = (size_t)q * 2 * VW, st = (size_t)ns * 2 * VW;
  __global const real *p = in + (size_t)j * 2 * VW;
  vec r0, i0, r1, i1, r2, i2, r3, i3, r4, i4, r5, i5, r6, i6, r7, i7;
  LOADC(p, 0, r0, i0);
  LOADC(p, qs, r1, i1);
  LOADC(p, 2 * qs, r2, i2);
  LOADC(p, 3 * qs, r3, i3);
  LOADC(p, 4 * qs, r4, i4);
  LOADC(p, 5 * qs, r5, i5);
  LOADC(p, 6 * qs, r6, i6);
  LOADC(p, 7 * qs, r7, i7);
  if (k) {
    TWIDDLE(r1, i1, 1);
    TWIDDLE(r2, i2, 2);
    TWIDDLE(r3, i3, 3);
    TWIDDLE(r4, i4, 4);
    TWIDDLE(r5, i5, 5);
    TWIDDLE(r6, i6, 6);
    TWIDDLE(r7, i7, 7);
  }
  DFT4(r0, i0, r2, i2, r4, i4, r6, i6); /* E_t in (r0,r2,r4,r6)[t] */
  DFT4(r1, i1, r3, i3, r5, i5, r7, i7); /* O_t in (r1,r3,r5,r7)[t] */
  const real c = (real)0.70710678118654752440; /* sqrt(1/2) */
  /* O_t times w8^t: t = 1, 2, 3 */
  const vec o1r = c * (r3 + s * i3), o1i = c * (i3 - s * r3);
  const vec o2r = s * i5, o2i = -s * r5;
  const vec o3r = c * (s * i7 - r7), o3i = -c * (i7 + s * r7);
  __global real *o = out + (size_t)d * 2 * VW;
  STOREC(o, 0, r0 + r1, i0 + i1);
  STOREC(o, st, r2 + o1r, i2 + o1i);
  STOREC(o, 2 * st, r4 + o2r, i4 + o2i);
  STOREC(o, 3 * st, r6 + o3r, i6 + o3i);
  STOREC(o, 4 * st, r0 - r1, i0 - i1);
  STOREC(o, 5 * st, r2 - o1r, i2 - o1i);
  STOREC(o, 6 * st, r4 - o2r, i4 - o2i);
  STOREC(o, 7 * st, r6 - o3r, i6 - o3i);
}

/* Odd prime radices 7, 11 and 13, one generic body: with the pairs
 * b_m = x_m + x_{R-m} and d_m = x_m - x_{R-m} (m = 1 .. H, H = (R-1)/2),
 *   X_k     = T_k - i U_k,   X_{R-k} = T_k + i U_k   (k = 1 .. H),
 *   T_k = x_0 + sum_m cos(2 pi mk/R) b_m,  U_k = s sum_m sin(2 pi mk/R) d_m,
 * so H^2 real multiply-adds per output pair instead of R^2. The constants
 * are cos and sin of 2 pi t/R, t = 1 .. H, correctly rounded to double
 * (from 40-digit arithmetic); mk mod R > H uses the symmetry
 * cos(2 pi (R-t)/R) = cos(2 pi t/R), sin(2 pi (R-t)/R) = -sin(2 pi t/R).
 * R is a constant in every copy, so the loops unroll and the array indices
 * are constants: the values stay in registers. */
#define ODD_RADIX(NAME, R, H, COS, SIN)                                      \
  FFT_INLINE void NAME(__global const real *in, __global real *out, uint j,  \
                       uint k, uint d, uint q, uint ns, real s,              \
                       __global const real2 *w) {                            \
    const real cs[H] = COS, sn[H] = SIN;                                     \
    const size_t qs = (size_t)q * 2 * VW, st = (size_t)ns * 2 * VW;          \
    __global const real *p = in + (size_t)j * 2 * VW;                        \
    vec xr[R], xi[R];                                                        \
    _Pragma("unroll") for (int r = 0; r < R; r++)                            \
        LOADC(p, r * qs, xr[r], xi[r]);                                      \
    if (k) {                                                                 \
      _Pragma("unroll") for (int r = 1; r < R; r++)                          \
          TWIDDLE(xr[r], xi[r], r);                             \
    }                                                                        \
    vec br[H], bi[H], dr[H], di[H];                                          \
    vec sr = xr[0], si = xi[0];                                              \
    _Pragma("unroll") for (int m = 0; m < H; m++) {                          \
      br[m] = xr[m + 1] + xr[R - 1 - m];                                     \
      bi[m] = xi[m + 1] + xi[R - 1 - m];                                     \
      dr[m] = xr[m + 1] - xr[R - 1 - m];                                     \
      di[m] = xi[m + 1] - xi[R - 1 - m];                                     \
      sr += br[m];                                                           \
      si += bi[m];                                                           \
    }                                                                        \
    __global real *o = out + (size_t)d * 2 * VW;                             \
    STOREC(o, 0, sr, si);                                                    \
    _Pragma("unroll") for (int kk = 1; kk <= H; kk++) {                      \
      vec tr = xr[0], ti = xi[0], ur = 0, ui = 0;                            \
      _Pragma("unroll") for (int m = 1; m <= H; m++) {                       \
        const int t = (m * kk) % R;                                          \
        const real c = t <= H ? cs[t - 1] : cs[R - t - 1];                   \
        const real w = t <= H ? sn[t - 1] : -sn[R - t - 1];                  \
        tr += c * br[m - 1];                                                 \
        ti += c * bi[m - 1];                                                 \
        ur += w * dr[m - 1];                                                 \
        ui += w * di[m - 1];                                                 \
      }                                                                      \
      ur *= s;                                                               \
      ui *= s;                                                               \
      STOREC(o, kk * st, tr + ui, ti - ur);                                  \
      STOREC(o, (R - kk) * st, tr - ui, ti + ur);                            \
    }                                                                        \
  }

#define R_(x) (real)(x)
#define COS7 {R_(0.623489801858733530525), R_(-0.2225209339563144042889), \
              R_(-0.9009688679024191262361)}
#define SIN7 {R_(0.7818314824680298087084), R_(0.9749279121818236070181), \
              R_(0.4338837391175581204758)}
#define COS11 {R_(0.8412535328311811688618), R_(0.4154150130018864255293), \
               R_(-0.1423148382732851404438), R_(-0.6548607339452850640569), \
               R_(-0.9594929736144973898904)}
#define SIN11 {R_(0.5406408174555975821076), R_(0.9096319953545183714117), \
               R_(0.9898214418809327323761), R_(0.7557495743542582837740), \
               R_(0.2817325568414296977114)}
#define COS13 {R_(0.8854560256532098959004), R_(0.5680647467311558025118), \
               R_(0.1205366802553230533491), R_(-0.3546048870425356259696), \
               R_(-0.7485107481711010986346), R_(-0.9709418174260520271570)}
#define SIN13 {R_(0.4647231720437685456560), R_(0.8229838658936563945796), \
               R_(0.9927088740980539928008), R_(0.9350162426854148234398), \
               R_(0.6631226582407952023768), R_(0.2393156642875577671488)}
ODD_RADIX(radix7, 7, 3, COS7, SIN7)
ODD_RADIX(radix11, 11, 5, COS11, SIN11)
ODD_RADIX(radix13, 13, 6, COS13, SIN13)

/* One pass of radix R over the work-item's lines. Its twiddles w^(r k)
 * (w = exp(-2 pi i/(ns R)), k < ns, r = 1 .. R-1) are tw[ns - 1 + k (R-1)
 * + r - 1]: the passes before it hold ns - 1 values (the sum of their
 * ns' (R' - 1) telescopes), made on the host in the order passes_dir takes
 * the radices (fft_stockham.c, pass_radices). */
#define PASS(R, fn)                                                   \
  do {                                                                \
    const uint q = n / R;                                             \
    __global const real2 *wp = tw + ns - 1;                           \
    for (uint b = 0, j = 0; b < q / ns; b++)                          \
      for (uint k = 0; k < ns; k++, j++)                              \
        fn(in, out, j, k, b * ns * R + k, q, ns, s, wp + k * (R - 1)); \
    __global real *t_ = in;                                           \
    in = out;                                                         \
    out = t_;                                                         \
    ns *= R;                                                          \
    rest /= R;                                                        \
  } while (0)

/* The lanes of a vector in reverse order. */
#if VW == 2
#define REV(v) (v).s10
#elif VW == 4
#define REV(v) (v).s3210
#elif VW == 8
#define REV(v) (v).s76543210
#else
#define REV(v) (v).sfedcba9876543210
#endif

/* Z[k] of fft_c2r_pre (fft_layout.cl) from the row xr of m + 1 values of
 * a real spectrum X: Z[0] = (Re X[0] + Re X[m]) + i (Re X[0] - Re X[m]),
 * else with e = X[k] + conj X[m-k], o = conj(W^k) (X[k] - conj X[m-k]),
 * Z[k] = e + i o (rtw[k] = W^k, W = exp(-2 pi i/2m)). */
inline real2 c2r_pre_at(__global const real2 *xr, ulong k, ulong m,
                        __global const real2 *rtw) {
  if (k == 0) {
    const real a = xr[0].x, c = xr[m].x;
    return (real2)(a + c, a - c);
  }
  const real2 a = xr[k], b = xr[m - k];
  const real2 bc = (real2)(b.x, -b.y);
  const real2 w = rtw[k];
  const real2 e = a + bc, o = cmul((real2)(w.x, -w.y), a - bc);
  return (real2)(e.x - o.y, e.y + o.x);
}

/* The work-item's lines at xb[l] (l < lanes, contiguous, n values) into
 * its scratch as [n][re|im][VW]; missing lanes are zeros. */
/* The first values of the VW lines at xb[l] (whole lines, contiguous) into
 * the scratch [n][re|im][VW], 8 at a time: 8 vector loads per lane block
 * and a transpose instead of 64 scalar loads. Returns how many it did (0
 * unless VW is 8); the caller does the rest. */
inline uint gather_block8(__global const real2 *x, const ulong *xb, uint n,
                          __global real *a) {
  uint j0 = 0;
#if VW == 8
  for (; j0 + 8 <= n; j0 += 8) {
#ifdef TRANSPOSE_PAIRS
    ulong8 z[8];
    _Pragma("unroll") for (int l = 0; l < 8; l++)
      z[l] = as_ulong8(vload16(0, (__global const real *)(x + xb[l] + j0)));
    transpose8_pairs(z);
    _Pragma("unroll") for (int jj = 0; jj < 8; jj++) {
      const pvec v = as_float16(z[jj]);
      __global real *d = a + (size_t)(j0 + jj) * 2 * VW;
      VSTORE(v.even, 0, d);
      VSTORE(v.odd, 0, d + VW);
    }
#else
    vec re[8], im[8];
    /* Unrolled, so that the rows stay in registers through the transposes
     * (rolled, PoCL 3.1 kept them on the stack and took the transposes
     * apart: about 410 instructions a block of 64 values, 230 now;
     * docs/fft.md). */
    _Pragma("unroll") for (int l = 0; l < 8; l++) {
      const pvec v = vload16(0, (__global const real *)(x + xb[l] + j0));
      re[l] = v.even;
      im[l] = v.odd;
    }
    transpose8(re);
    transpose8(im);
    _Pragma("unroll") for (int jj = 0; jj < 8; jj++) {
      __global real *d = a + (size_t)(j0 + jj) * 2 * VW;
      VSTORE(re[jj], 0, d);
      VSTORE(im[jj], 0, d + VW);
    }
#endif
  }
#endif
  return j0;
}

inline void gather_rows(__global const real2 *x, const ulong *xb, int lanes,
                        uint n, __global real *a) {
  const uint j0 = lanes == VW ? gather_block8(x, xb, n, a) : 0;
  for (uint j = j0; j < n; j++) {
    __global real *d = a + (size_t)j * 2 * VW;
    real re[VW], im[VW];
    for (int l = 0; l < VW; l++) {
      real2 v = l < lanes ? x[xb[l] + j] : (real2)(0, 0);
      re[l] = v.x;
      im[l] = v.y;
    }
    VSTORE(VLOAD(0, re), 0, d);
    VSTORE(VLOAD(0, im), 0, d + VW);
  }
}

/* The passes over a scratch of [n][re|im][VW] (in, with out the other
 * half), s = 1 forward, -1 inverse; returns the half that holds the
 * result. tw: the pass twiddles of n (n - 1 values, see PASS) for the
 * forward transform, then at tw + n the same conjugated. The order of the
 * radices here is the host's pass_radices (fft_stockham.c): change both. */
inline __global real *passes_dir(uint n, const real s, __global real *in,
                                 __global real *out,
                                 __global const real2 *tw) {
  uint ns = 1, rest = n;
  if (s < 0) tw += n;
#if RADIX8
  while (rest % 8 == 0) PASS(8, radix8);
#endif
#if RADIX10
  /* 10 = 2 x 5 in one pass where it saves one: not for 4 x 5 (4 then 5
   * are two passes either way). */
  while (rest % 10 == 0 && (rest % 4 != 0 || rest % 25 == 0))
    PASS(10, radix10);
#endif
  while (rest % 4 == 0) PASS(4, radix4);
  while (rest % 2 == 0) PASS(2, radix2);
  while (rest % 3 == 0) PASS(3, radix3);
  while (rest % 5 == 0) PASS(5, radix5);
  while (rest % 7 == 0) PASS(7, radix7);
  while (rest % 11 == 0) PASS(11, radix11);
  while (rest % 13 == 0) PASS(13, radix13);
  return in;
}
#define passes_fwd(n, in, out, tw) passes_dir(n, (real)1, in, out, tw)

/* The work-item's scratch r ([n][re|im][VW]) times scale to its lines at
 * yb[l] (l < lanes, contiguous, n values). */
/* The reverse of gather_block8: the first outputs of the scratch r, times
 * scale, to the VW lines at yb[l], 8 at a time; returns how many. */
inline uint scatter_block8(__global const real *r, real scale,
                           const ulong *yb, uint n, __global real2 *y) {
  uint k0 = 0;
#if VW == 8
  for (; k0 + 8 <= n; k0 += 8) {
#ifdef TRANSPOSE_PAIRS
    ulong8 z[8];
    _Pragma("unroll") for (int kk = 0; kk < 8; kk++) {
      pvec v;
      v.even = VLOAD(0, r + (size_t)(k0 + kk) * 2 * VW) * scale;
      v.odd = VLOAD(0, r + (size_t)(k0 + kk) * 2 * VW + VW) * scale;
      z[kk] = as_ulong8(v);
    }
    transpose8_pairs(z);
    _Pragma("unroll") for (int l = 0; l < 8; l++)
      vstore16(as_float16(z[l]), 0, (__global real *)(y + yb[l] + k0));
#else
    vec re[8], im[8];
    /* Unrolled, as in gather_block8. */
    _Pragma("unroll") for (int kk = 0; kk < 8; kk++) {
      re[kk] = VLOAD(0, r + (size_t)(k0 + kk) * 2 * VW) * scale;
      im[kk] = VLOAD(0, r + (size_t)(k0 + kk) * 2 * VW + VW) * scale;
    }
    transpose8(re);
    transpose8(im);
    _Pragma("unroll") for (int l = 0; l < 8; l++) {
      pvec v;
      v.even = re[l];
      v.odd = im[l];
      vstore16(v, 0, (__global real *)(y + yb[l] + k0));
    }
#endif
  }
#endif
  return k0;
}

inline void scatter_rows(__global const real *r, real scale, const ulong *yb,
                         int lanes, uint n, __global real2 *y) {
  const uint k0 = lanes == VW ? scatter_block8(r, scale, yb, n, y) : 0;
  for (uint k = k0; k < n; k++) {
    real rr[VW], ri[VW];
    VSTORE(VLOAD(0, r + (size_t)k * 2 * VW) * scale, 0, rr);
    VSTORE(VLOAD(0, r + (size_t)k * 2 * VW + VW) * scale, 0, ri);
    for (int l = 0; l < lanes; l++) y[yb[l] + k] = (real2)(rr[l], ri[l]);
  }
}

/* The integers of a run come packed in one ulong16, gm (the host's
 * `geom`): PoCL copies every argument of every launch on the host (an
 * allocation per argument in clSetKernelArg and again in the enqueue), so
 * 27 arguments cost a single short transform more host time than its
 * arithmetic; packed, the kernel takes 10. gm.s0 holds n (bits 0-31),
 * twshift (32-39) and whether sign < 0 (bit 40); s1-sf are lines, mid,
 * inner, xo, xm, xi, xj, yo, ym, yi, yj, twn, x0, y0, prem. */
__kernel void fft_stockham(const real scale, const ulong16 gm,
                           __global const real2 *x, __global real2 *y,
                           __global real *scr, __global const real2 *tw,
                           __global const real2 *twlo,
                           __global const real2 *twhi,
                           __global const real2 *rtw,
                           __global const real *twv) {
  const uint n = (uint)(gm.s0 & 0xffffffffu);
  const uint twshift = (uint)(gm.s0 >> 32) & 0xffu;
  const int sign = (gm.s0 >> 40) & 1 ? -1 : 1;
  const ulong lines = gm.s1, mid = gm.s2, inner = gm.s3;
  const ulong xo = gm.s4, xm = gm.s5, xi = gm.s6, xj = gm.s7;
  const ulong yo = gm.s8, ym = gm.s9, yi = gm.sa, yj = gm.sb;
  const ulong twn = gm.sc, x0 = gm.sd, y0 = gm.se, prem = gm.sf;
  /* prem != 0: the C2R pre-processing in the gather (x is a real
   * spectrum, its lines addressed in Z coordinates; see the header). */
  if (!prem) x += x0;
  y += y0;
  const real s = sign < 0 ? (real)1 : (real)-1;
  const ulong groups = (lines + VW - 1) / VW;
  __global real *a = scr + (size_t)get_global_id(0) * 4 * n * VW;
  __global real *b = a + (size_t)2 * n * VW;
  /* Work-item g takes the line groups [g G / W, (g + 1) G / W) (G groups,
   * W work-items): neighbouring groups are neighbours in memory for most
   * layouts, so each work-item streams through its own stretch (1.5x for
   * 131072 lines of 8 on PoCL, against groups g, g + global size, ...,
   * which left every work-item an eighth of each page), and the ranges
   * differ by one group at most (ranges of ceil(G / W) gave 50 groups on 8
   * work-items as seven of 7 and one of 1: 28 against 22 on two threads). */
  const ulong gsz = get_global_size(0), gid = get_global_id(0);
  const ulong gend = (gid + 1) * groups / gsz;
  for (ulong g = gid * groups / gsz; g < gend; g++) {
    ulong xb[VW], yb[VW], mm[VW], xr[VW];
    int lanes = 0;
    /* (o, m, i) of the group's first line by division, of the next ones by
     * counting (short lines in large batches spend little else). */
    ulong i = g * VW % inner, t = g * VW / inner;
    ulong m = t % mid, o = t / mid;
    for (int l = 0; l < VW; l++) {
      if (g * VW + l < lines) {
        xb[l] = o * xo + m * xm + i * xi;
        yb[l] = o * yo + m * ym + i * yi;
        mm[l] = m;
        lanes = l + 1;
      } else {
        xb[l] = yb[l] = mm[l] = 0;
      }
      if (++i == inner) {
        i = 0;
        if (++m == mid) {
          m = 0;
          o++;
        }
      }
    }
    /* Whether the group's lines sit side by side in x and in y. */
    bool xadj = lanes == VW, yadj = lanes == VW;
    for (int l = 1; l < VW; l++) {
      xadj = xadj && xb[l] == xb[0] + l;
      yadj = yadj && yb[l] == yb[0] + l;
    }
#ifndef VW2
    xadj = yadj = false;
#endif
    /* C2R pre: lane l reads row xr[l] of m + 1 values at Z index xb[l];
     * padj: the lanes are neighbours in one row (vector loads). */
    bool padj = false;
    if (prem) {
      xadj = false;
      for (int l = 0; l < VW; l++) {
        const ulong z = x0 + xb[l];
        xr[l] = z / prem * (prem + 1);
        xb[l] = z % prem;
      }
      padj = lanes == VW;
      for (int l = 1; l < VW; l++)
        padj = padj && xr[l] == xr[0] && xb[l] == xb[0] + l;
    }
#ifdef VW2
    /* W^(q0 + l) of the lanes, once per group: W^(q0 + l + j xj) is that
     * times the lanes' common W^(j xj) (one rounding more than the table,
     * and no third strided stream). */
    vec w0r = 0, w0i = 0;
    if (padj) PAIR_LOAD((__global const real *)(rtw + xb[0]), w0r, w0i);
#endif
    /* Gather; missing lanes of the last group are zeros. */
    /* Contiguous lines: 8 elements at a time. */
    uint j0 = lanes == VW && xj == 1 && !xadj && !prem
                  ? gather_block8(x, xb, n, a)
                  : 0;
#ifdef VW2
    if (xadj) {
      /* Lines side by side in x (a split's first step): a loop of its own,
       * without the tests on every element, the address by increments. */
      __global const real *xp = (__global const real *)(x + xb[0]);
      const size_t xs = 2 * xj;
      for (uint j = 0; j < n; j++, xp += xs) {
        vec re, im;
        PAIR_LOAD(xp, re, im);
        VSTORE(re, 0, a + (size_t)j * 2 * VW);
        VSTORE(im, 0, a + (size_t)j * 2 * VW + VW);
      }
      j0 = n;
    }
#endif
    for (uint j = j0; j < n; j++) {
      __global real *d = a + (size_t)j * 2 * VW;
#ifdef VW2
      if (padj) {
        /* c2r_pre_at on vectors: X[q + l], X[m - q - l] (a reversed
         * vector load), W^(q + l); Z[0] (lane 0 at q = 0) after. */
        const ulong q = xb[0] + j * xj;
        __global const real *xrow = (__global const real *)(x + xr[0]);
        vec ar, ai, br, bi;
        PAIR_LOAD(xrow + 2 * q, ar, ai);
        PAIR_LOAD(xrow + 2 * (prem - q - (VW - 1)), br, bi);
        const real2 wj = rtw[j * xj];
        const vec wr = w0r * wj.x - w0i * wj.y, wi = w0r * wj.y + w0i * wj.x;
        br = REV(br);
        bi = REV(bi);
        const vec er = ar + br, ei = ai - bi, dr = ar - br, di = ai + bi;
        const vec or_ = wr * dr + wi * di, oi = wr * di - wi * dr;
        VSTORE(er - oi, 0, d);
        VSTORE(ei + or_, 0, d + VW);
        if (q == 0) {
          d[0] = xrow[0] + xrow[2 * prem];
          d[VW] = xrow[0] - xrow[2 * prem];
        }
        continue;
      }
#endif
      real re[VW], im[VW];
      if (prem)
        for (int l = 0; l < VW; l++) {
          real2 v = l < lanes ? c2r_pre_at(x + xr[l], xb[l] + j * xj, prem, rtw)
                              : (real2)(0, 0);
          re[l] = v.x;
          im[l] = v.y;
        }
      else
        for (int l = 0; l < VW; l++) {
          real2 v = l < lanes ? x[xb[l] + j * xj] : (real2)(0, 0);
          re[l] = v.x;
          im[l] = v.y;
        }
      VSTORE(VLOAD(0, re), 0, d);
      VSTORE(VLOAD(0, im), 0, d + VW);
    }
    __global const real *in = passes_dir(n, s, a, b, tw);
    /* Scatter, scaled, with the four-step twiddle when asked. The twiddle
     * of lane l at output k is w^(m_l k), w = exp(sign 2 pi i / twn): from
     * the tables every TW_EVERY outputs, by the recurrence
     * w^(m (k+1)) = w^(m k) w^m in between (a few roundings at most). */
    const ulong lomask = ((ulong)1 << twshift) - 1;
    vec cr = 0, ci = 0, sr = 0, si = 0;
    if (twn) {
      real wr[VW], wi[VW];
      for (int l = 0; l < VW; l++) {
        const real2 w = cmul(twlo[mm[l] & lomask], twhi[mm[l] >> twshift]);
        wr[l] = w.x;
        wi[l] = s * w.y;
      }
      sr = VLOAD(0, wr);
      si = VLOAD(0, wi);
    }
    /* The lanes' middle indices are m0 + l: the table reads as vectors
     * (mm rises by 0 or 1 a lane, or wraps to 0, so the last lane says). */
    const bool tadj = twn && lanes == VW && mm[VW - 1] == mm[0] + VW - 1;
    /* Contiguous lines: 8 outputs at a time (the reverse of the gather). */
    const uint k0 = lanes == VW && yj == 1 && !yadj && !twn
                        ? scatter_block8(in, scale, yb, n, y)
                        : 0;
    /* The four-step twiddle of output k of consecutive lanes (tadj), the
     * scale in it: w^(m0 k) from the two tables times twv's row. */
#define TW_ROW(k)                                                       \
  do {                                                                  \
    const ulong t_ = mm[0] * (k);                                       \
    const real2 c_ = cmul(twlo[t_ & lomask], twhi[t_ >> twshift]);      \
    const real cx_ = c_.x * scale, cy_ = s * c_.y * scale;              \
    __global const real *v_ = twv + (size_t)((k) / TW_EVERY) * 32;      \
    const vec vr_ = VLOAD(0, v_), vi_ = s * VLOAD(0, v_ + 16);          \
    cr = vr_ * cx_ - vi_ * cy_;                                         \
    ci = vr_ * cy_ + vi_ * cx_;                                         \
  } while (0)
#ifdef VW2
    if (yadj && (!twn || tadj)) {
      /* Both steps of a split of contiguous rows (the lines side by side
       * in y; in the first step, consecutive middle indices): loops
       * without the general loop's tests on every output (twn, yadj,
       * k % TW_EVERY), the output address by increments. */
      __global real *yp = (__global real *)(y + yb[0]);
      const size_t ys = 2 * yj;
      if (twn) {
        for (uint kb = 0; kb < n; kb += TW_EVERY) {
          TW_ROW(kb);
          const uint ke = min(n, kb + TW_EVERY);
          for (uint k = kb; k < ke; k++, yp += ys) {
            const vec re = VLOAD(0, in + (size_t)k * 2 * VW);
            const vec im = VLOAD(0, in + (size_t)k * 2 * VW + VW);
            PAIR_STORE(yp, re * cr - im * ci, re * ci + im * cr);
            const vec t = cr * sr - ci * si;
            ci = cr * si + ci * sr;
            cr = t;
          }
        }
      } else {
        for (uint k = 0; k < n; k++, yp += ys) {
          const vec re = VLOAD(0, in + (size_t)k * 2 * VW) * scale;
          const vec im = VLOAD(0, in + (size_t)k * 2 * VW + VW) * scale;
          PAIR_STORE(yp, re, im);
        }
      }
      continue;
    }
#endif
    for (uint k = k0; k < n; k++) {
      vec re = VLOAD(0, in + (size_t)k * 2 * VW);
      vec im = VLOAD(0, in + (size_t)k * 2 * VW + VW);
      if (twn) {
        /* The scale rides in the twiddle (the recurrence keeps it). */
        if (k % TW_EVERY == 0 && tadj) {
          TW_ROW(k);
        } else if (k % TW_EVERY == 0) {
          real wr[VW], wi[VW];
          for (int l = 0; l < VW; l++) {
            const ulong t = mm[l] * k;
            const real2 w = cmul(twlo[t & lomask], twhi[t >> twshift]);
            wr[l] = w.x * scale;
            wi[l] = s * w.y * scale;
          }
          cr = VLOAD(0, wr);
          ci = VLOAD(0, wi);
        } else {
          const vec t = cr * sr - ci * si;
          ci = cr * si + ci * sr;
          cr = t;
        }
        const vec tr = re * cr - im * ci;
        im = re * ci + im * cr;
        re = tr;
      } else {
        re *= scale;
        im *= scale;
      }
#ifdef VW2
      if (yadj) {
        PAIR_STORE((__global real *)(y + yb[0] + k * yj), re, im);
        continue;
      }
#endif
      real rr[VW], ri[VW];
      VSTORE(re, 0, rr);
      VSTORE(im, 0, ri);
      for (int l = 0; l < lanes; l++) y[yb[l] + k * yj] = (real2)(rr[l], ri[l]);
    }
  }
}

/* ---- R2C of even length n = 2m with m = n1 n2 split in two steps --------
 *
 * fft_stockham_r2c is the second step of the four-step half-length
 * transform fused with the split of the real spectrum (what fft_r2c_post
 * in fft_layout.cl does as a pass of its own). z holds, per row, the
 * first step's result: line k1 (< n1) of n2 values at z[row m + k1 n2],
 * twiddled. The DFT of line k1 gives Z[k1 + n1 k2] (k2 < n2), and the
 * split of output k needs Z[m - k] = Z[(n1 - k1) + n1 (n2 - 1 - k2)]
 * (k1 > 0): line n1 - k1 read backwards. So a work-item transforms two
 * groups of VW lines together: A, lines k1 = VW p + l (lane l), and B,
 * lines n1 - k1 (line 0 for k1 = 0), and with a = Z[k], b = Z[m - k]
 * (lane l of A at k2 and of B at n2 - 1 - k2), e = (a + conj b)/2,
 * o = (a - conj b)/2, t = W^k o (W = exp(-2 pi i/n), rtw[k] = W^k):
 *   X[k] = e - i t,   X[m - k] = conj(e + i t).
 * A writes X[k] for k1 <= n1/2, B X[m - k] for 0 < k1 < n1 - n1/2, so
 * every output is written once. Line 0 (k1 = 0, lane 0 of p = 0) mirrors
 * itself, Z[m - n1 k2] = Z[n1 (n2 - k2)]: done lane by lane at the end,
 * with X[0] and X[m] = Re Z[0] +- Im Z[0]. Outputs go to rows of
 * h = m + 1 at y[row h + k], times scale.
 *
 * W^k of lane l at k = p0 + l + n1 k2 is W^(p0 + l) (one vector, once per
 * pair) times W^(n1 k2) = rtw2[k2] (rtw2: the n2 first twiddles of length
 * 2 n2, contiguous and shared by every pair, so they stay in L1): one
 * rounding more than the table's value, no stream of W^k (k < m, half of
 * rtw) beside the data, and no rtw[n1 k2], which are n1 values apart (4
 * KiB for 2^20 f32: one L1 set for all of them).
 *
 * Pairs (row, p), p < P = ceil((n1/2 + 1)/VW); work-item g handles the
 * contiguous range [g T/W, (g + 1) T/W) of the T = P rows pairs (W
 * work-items). The B stores of neighbouring pairs share a cache line
 * (lanes reversed, n1 - p0 - VW + 1 is not a multiple of VW), so they
 * follow each other in one work-item rather than run at once on two
 * (pairs g, g + global size, ... put pairs p and p + 1 side by side on two
 * threads). Scratch: 8 n2 VW reals per work-item. Forward only (R2C). */

#ifdef VW2
__kernel void fft_stockham_r2c(const uint n1, const uint n2, const real scale,
                               const ulong rows, __global const real2 *z,
                               __global real2 *y, const ulong y0,
                               __global real *scr, __global const real2 *tw,
                               __global const real2 *rtw,
                               __global const real2 *rtw2) {
  y += y0;
  const ulong m = (ulong)n1 * n2, h = m + 1;
  const uint hn1 = n1 / 2;
  const ulong pairs = (hn1 + VW) / VW; /* ceil((hn1 + 1) / VW) */
  __global real *a = scr + (size_t)get_global_id(0) * 8 * n2 * VW;
  __global real *b = a + (size_t)2 * n2 * VW;
  __global real *c = b + (size_t)2 * n2 * VW;
  __global real *d = c + (size_t)2 * n2 * VW;
  const ulong total = pairs * rows, gsz = get_global_size(0);
  const ulong qend = (get_global_id(0) + 1) * total / gsz;
  for (ulong q = get_global_id(0) * total / gsz; q < qend; q++) {
    const ulong row = q / pairs;
    const uint p0 = (uint)(q % pairs) * VW;
    const int lanes = n1 - p0 < VW ? (int)(n1 - p0) : VW;
    ulong xa[VW], xb[VW];
    for (int l = 0; l < VW; l++) {
      const uint k1 = l < lanes ? p0 + l : 0;
      xa[l] = row * m + (ulong)k1 * n2;
      xb[l] = row * m + (ulong)(k1 ? n1 - k1 : 0) * n2;
    }
    gather_rows(z, xa, lanes, n2, a);
    gather_rows(z, xb, lanes, n2, c);
    __global const real *ra = passes_fwd(n2, a, b, tw);
    __global const real *rb = passes_fwd(n2, c, d, tw);
    /* Which lanes write: A for k1 <= n1/2 (not line 0), B for
     * 0 < k1 < n1 - n1/2. */
    const bool all_a = p0 > 0 && p0 + VW - 1 <= hn1 && lanes == VW;
    const bool all_b = p0 > 0 && p0 + VW - 1 < n1 - hn1 && lanes == VW;
    __global real2 *yr = y + row * h;
    vec w0r, w0i; /* W^(p0 + l) */
    PAIR_LOAD((__global const real *)(rtw + p0), w0r, w0i);
    for (uint k2 = 0; k2 < n2; k2++) {
      __global const real *pa = ra + (size_t)k2 * 2 * VW;
      __global const real *pb = rb + (size_t)(n2 - 1 - k2) * 2 * VW;
      const vec ar = VLOAD(0, pa), ai = VLOAD(0, pa + VW);
      const vec br = VLOAD(0, pb), bi = VLOAD(0, pb + VW);
      const ulong k0 = p0 + (ulong)n1 * k2; /* k of lane 0 */
      const real2 wk = rtw2[k2];
      const vec wr = w0r * wk.x - w0i * wk.y, wi = w0r * wk.y + w0i * wk.x;
      /* e = (a + conj b)/2, o = (a - conj b)/2, t = W o */
      const vec er = (ar + br) * (real)0.5, ei = (ai - bi) * (real)0.5;
      const vec or_ = (ar - br) * (real)0.5, oi = (ai + bi) * (real)0.5;
      const vec tr = wr * or_ - wi * oi, ti = wr * oi + wi * or_;
      /* X[k] = e - i t; X[m - k] = conj(e + i t) = (er - ti, -(ei + tr)) */
      const vec xr = (er + ti) * scale, xi = (ei - tr) * scale;
      const vec vr = (er - ti) * scale, vi = -(ei + tr) * scale;
      /* X[m - k] of lane l sits at n1 - p0 - l + n1 (n2 - 1 - k2). */
      const ulong kb = (ulong)n1 * (n2 - 1 - k2) + n1 - p0;
      if (all_a) {
        PAIR_STORE((__global real *)(yr + k0), xr, xi);
      } else {
        real rr[VW], ri[VW];
        VSTORE(xr, 0, rr);
        VSTORE(xi, 0, ri);
        for (int l = 0; l < lanes; l++)
          if (p0 + l > 0 && p0 + l <= hn1)
            yr[k0 + l] = (real2)(rr[l], ri[l]);
      }
#if VW == 8
      if (all_b) {
        /* Lanes reversed: lane VW - 1 - l goes to kb - VW + 1 + l. */
#if PRECISION == 64
        const ulong8 rev = (ulong8)(7, 6, 5, 4, 3, 2, 1, 0);
#else
        const uint8 rev = (uint8)(7, 6, 5, 4, 3, 2, 1, 0);
#endif
        PAIR_STORE((__global real *)(yr + kb - (VW - 1)), shuffle(vr, rev),
                   shuffle(vi, rev));
        continue;
      }
#endif
      real rr[VW], ri[VW];
      VSTORE(vr, 0, rr);
      VSTORE(vi, 0, ri);
      for (int l = 0; l < lanes; l++)
        if (p0 + l > 0 && p0 + l < n1 - hn1)
          yr[kb - l] = (real2)(rr[l], ri[l]);
    }
    if (p0 == 0) {
      /* Line 0, lane 0 of A: Z[n1 k2] with its mirror Z[n1 (n2 - k2)]. */
      const real2 z0 = (real2)(ra[0], ra[VW]);
      yr[0] = (real2)(z0.x + z0.y, 0) * scale;
      yr[m] = (real2)(z0.x - z0.y, 0) * scale;
      for (uint k2 = 1; k2 < n2; k2++) {
        const real2 av = (real2)(ra[(size_t)k2 * 2 * VW],
                                 ra[(size_t)k2 * 2 * VW + VW]);
        const size_t jb = (size_t)(n2 - k2) * 2 * VW;
        const real2 bc = (real2)(ra[jb], -ra[jb + VW]);
        const real2 e = (av + bc) * (real)0.5, o = (av - bc) * (real)0.5;
        yr[(ulong)n1 * k2] =
            (e + cmul(rtw2[k2], (real2)(o.y, -o.x))) * scale;
      }
    }
  }
}

/* ---- C2R of even length n = 2m with m = n1 n2 split: the first step ----
 *
 * fft_stockham_c2r2 is the first step of the four-step inverse of length
 * m fused with the pre-processing of fft_c2r_pre, as fft_stockham does it
 * with prem, but for lines j2 and n2 - j2 together, so that each input
 * value is loaded once. x holds rows of h = m + 1 values of a real
 * spectrum X (row x0 + r at x[(x0 + r) h]); line j2 (< n2) of the step
 * has the elements Z[q], q = n2 j1 + j2 (j1 < n1), with
 * e = X[q] + conj X[m - q], o = conj(W^q) (X[q] - conj X[m - q]),
 * Z[q] = e + i o (W = exp(-2 pi i/2m), rtw[k] = W^k; Z[0] from the real
 * parts of X[0] and X[m]). As m - q = n2 (n1 - 1 - j1) + (n2 - j2) for
 * j2 > 0 and W^m = -1, the same two loads give element n1 - 1 - j1 of
 * line n2 - j2: Z[m - q] = conj(e) + i conj(o). So a work-item takes a
 * group A of VW lines j2 = p VW + l (lane l) and the group B of their
 * mirrors n2 - j2, loads X[q] as one vector and X[m - q] as one reversed
 * vector per element, and fills both scratches; A writes the lines
 * j2 <= n2/2, B the lines n2 - j2 for 0 < j2 < n2 - n2/2 (every line
 * once; line 0 is its own mirror and A has it whole). Then the inverse
 * DFT over j1 of both groups and the scatter as fft_stockham's: output
 * k1 of line j2 times conj(exp(-2 pi i j2 k1/m)) (split tables twlo,
 * twhi) to y[r m + k1 n2 + j2]. W^q of lane l is W^(j0 + l) (one vector
 * per pair) times W^(n2 j1) = rtw2[j1] (rtw2: the n1 first twiddles of
 * length 2 n1, contiguous; rtw[n2 j1] would be n2 values apart).
 *
 * Pairs (r, p), p < P = ceil((n2/2 + 1)/VW); work-item g handles the
 * contiguous range [g per, (g + 1) per) of them. Scratch: 8 n1 VW reals
 * per work-item. x and y must not overlap (y is the middle array). Needs
 * n2 >= 2 VW - 1, so that a group's lanes are lines of the row (a split
 * m has n2 >= 65). */
#ifdef VW2
/* The four-step twiddles of lanes mm[l] times the scratch r ([n][re|im]
 * [VW]) to y[mm[l] + k n2] for the lanes with ok[l]: as a vector when
 * dir is 1 (lanes ascending from mm[0]) or -1 (descending), else lane by
 * lane. For dir 1 or -1 the table reads every TW_EVERY outputs are
 * w^(mm[0] k) times twv's row of w^(l k) (conjugated for dir 1: the
 * inverse's twiddle of mm[0] + l is conj(w^(mm[0] k) w^(l k)), of
 * mm[0] - l conj(w^(mm[0] k)) w^(l k)), as in fft_stockham. */
inline void c2r2_scatter(__global const real *r, const ulong *mm,
                         const bool *ok, int dir, uint n, uint n2,
                         __global const real2 *twlo,
                         __global const real2 *twhi, uint twshift,
                         __global const real *twv, __global real2 *y) {
  const ulong lomask = ((ulong)1 << twshift) - 1;
  vec cr = 0, ci = 0, sr, si;
  {
    real wr[VW], wi[VW];
    for (int l = 0; l < VW; l++) {
      const real2 w = cmul(twlo[mm[l] & lomask], twhi[mm[l] >> twshift]);
      wr[l] = w.x;
      wi[l] = -w.y;
    }
    sr = VLOAD(0, wr);
    si = VLOAD(0, wi);
  }
  for (uint k = 0; k < n; k++) {
    vec re = VLOAD(0, r + (size_t)k * 2 * VW);
    vec im = VLOAD(0, r + (size_t)k * 2 * VW + VW);
    if (k % TW_EVERY == 0 && dir) {
      const ulong t = mm[0] * k;
      const real2 c = cmul(twlo[t & lomask], twhi[t >> twshift]);
      __global const real *v = twv + (size_t)(k / TW_EVERY) * 32;
      const vec vr = VLOAD(0, v), vi = (real)-dir * VLOAD(0, v + 16);
      cr = vr * c.x + vi * c.y; /* (c.x - i c.y)(vr + i vi) */
      ci = vi * c.x - vr * c.y;
    } else if (k % TW_EVERY == 0) {
      real wr[VW], wi[VW];
      for (int l = 0; l < VW; l++) {
        const ulong t = mm[l] * k;
        const real2 w = cmul(twlo[t & lomask], twhi[t >> twshift]);
        wr[l] = w.x;
        wi[l] = -w.y;
      }
      cr = VLOAD(0, wr);
      ci = VLOAD(0, wi);
    } else {
      const vec t = cr * sr - ci * si;
      ci = cr * si + ci * sr;
      cr = t;
    }
    const vec tr = re * cr - im * ci;
    im = re * ci + im * cr;
    re = tr;
    const ulong o = (ulong)k * n2;
    if (dir == 1) {
      PAIR_STORE((__global real *)(y + o + mm[0]), re, im);
    } else if (dir == -1) {
      PAIR_STORE((__global real *)(y + o + mm[VW - 1]), REV(re), REV(im));
    } else {
      real rr[VW], ri[VW];
      VSTORE(re, 0, rr);
      VSTORE(im, 0, ri);
      for (int l = 0; l < VW; l++)
        if (ok[l]) y[o + mm[l]] = (real2)(rr[l], ri[l]);
    }
  }
}

__kernel void fft_stockham_c2r2(const uint n1, const uint n2,
                                const ulong rows, __global const real2 *x,
                                const ulong x0, __global real2 *y,
                                __global real *scr, __global const real2 *tw,
                                const uint twshift,
                                __global const real2 *twlo,
                                __global const real2 *twhi,
                                __global const real2 *rtw,
                                __global const real2 *rtw2,
                                __global const real *twv) {
  const ulong m = (ulong)n1 * n2, h = m + 1;
  const uint hn2 = n2 / 2;
  const ulong pairs = (hn2 + VW) / VW; /* ceil((hn2 + 1) / VW) */
  __global real *a = scr + (size_t)get_global_id(0) * 8 * n1 * VW;
  __global real *b = a + (size_t)2 * n1 * VW;
  __global real *c = b + (size_t)2 * n1 * VW;
  __global real *d = c + (size_t)2 * n1 * VW;
  const ulong total = pairs * rows;
  const ulong per = (total + get_global_size(0) - 1) / get_global_size(0);
  const ulong qend = min(total, (get_global_id(0) + 1) * per);
  for (ulong pq = get_global_id(0) * per; pq < qend; pq++) {
    const ulong row = pq / pairs;
    const uint j0 = (uint)(pq % pairs) * VW;
    __global const real *xrow = (__global const real *)(x + (x0 + row) * h);
    /* Lines of A (j0 + l) and B (n2 - j0 - l), and which lanes write. */
    ulong ma[VW], mb[VW];
    bool oka[VW], okb[VW];
    bool alla = true, allb = true;
    for (int l = 0; l < VW; l++) {
      const uint j2 = j0 + l;
      oka[l] = j2 <= hn2;
      okb[l] = j2 > 0 && j2 < n2 - hn2;
      ma[l] = oka[l] ? j2 : 0;
      mb[l] = okb[l] ? n2 - j2 : 0;
      alla = alla && oka[l];
      allb = allb && okb[l];
    }
    /* The group's VW lanes are lines of the row (j0 <= n2/2 and
     * n2 >= 2 VW - 1: see above), so X[q + l] and X[m - q - l] are
     * vectors in the row. */
    vec w0r, w0i;
    PAIR_LOAD((__global const real *)(rtw + j0), w0r, w0i);
    for (uint j1 = 0; j1 < n1; j1++) {
      __global real *da = a + (size_t)j1 * 2 * VW;
      __global real *db = c + (size_t)(n1 - 1 - j1) * 2 * VW;
      const ulong q = (ulong)n2 * j1 + j0; /* q of lane 0 */
      vec ar, ai, br, bi;
      PAIR_LOAD(xrow + 2 * q, ar, ai);
      PAIR_LOAD(xrow + 2 * (m - q - (VW - 1)), br, bi);
      br = REV(br);
      bi = REV(bi);
      const real2 wj = rtw2[j1]; /* W^(n2 j1) */
      const vec wr = w0r * wj.x - w0i * wj.y, wi = w0r * wj.y + w0i * wj.x;
      const vec er = ar + br, ei = ai - bi, dr = ar - br, di = ai + bi;
      const vec or_ = wr * dr + wi * di, oi = wr * di - wi * dr;
      VSTORE(er - oi, 0, da);
      VSTORE(ei + or_, 0, da + VW);
      VSTORE(er + oi, 0, db);
      VSTORE(or_ - ei, 0, db + VW);
      if (q == 0) { /* Z[0] from the real parts of X[0] and X[m] */
        da[0] = xrow[0] + xrow[2 * m];
        da[VW] = xrow[0] - xrow[2 * m];
      }
    }
    __global const real *ra = passes_dir(n1, (real)-1, a, b, tw);
    __global const real *rb = passes_dir(n1, (real)-1, c, d, tw);
    __global real2 *yr = y + row * m;
    c2r2_scatter(ra, ma, oka, alla ? 1 : 0, n1, n2, twlo, twhi, twshift, twv,
                 yr);
    if ((j0 > 0 ? j0 : 1) < n2 - hn2) /* some lane of B writes */
      c2r2_scatter(rb, mb, okb, allb ? -1 : 0, n1, n2, twlo, twhi, twshift,
                   twv, yr);
  }
}
#endif

/* R2C of even n = 2m with m in one pass: the work-item's VW rows (lanes)
 * of m complex values z[j] = x[2j] + i x[2j+1] (rows xs complex values
 * apart in z: m out of place, h for the padded rows in place), one
 * forward pass, and the split in the scratch: Z[k] and Z[m - k] are in
 * the same lane, so X[k] = e - i t and X[m - k] = conj(e + i t) (as
 * above, W^k = rtw[k] the same for every lane) replace them in place,
 * X[0] = Re Z[0] + Im Z[0] and X[m] = Re Z[0] - Im Z[0]; then the rows of
 * h = m + 1 outputs go to y[row h + k] (8 at a time through the
 * transpose when VW = 8), times scale. Work-item g handles a contiguous
 * range of row groups, as fft_stockham; scratch 4 m VW reals per
 * work-item. In place (z and y the same rows, xs = h) works: a work-item
 * reads its rows whole before it writes them. */
__kernel void fft_stockham_r2c1(const uint m, const real scale,
                                const ulong rows, __global const real2 *z,
                                const ulong xs, __global real2 *y,
                                __global real *scr,
                                __global const real2 *tw,
                                __global const real2 *rtw) {
  const ulong h = (ulong)m + 1, groups = (rows + VW - 1) / VW;
  __global real *a = scr + (size_t)get_global_id(0) * 4 * m * VW;
  __global real *b = a + (size_t)2 * m * VW;
  const ulong per = (groups + get_global_size(0) - 1) / get_global_size(0);
  const ulong gend = min(groups, (get_global_id(0) + 1) * per);
  for (ulong g = get_global_id(0) * per; g < gend; g++) {
    const int lanes = rows - g * VW < VW ? (int)(rows - g * VW) : VW;
    ulong xb[VW], yb[VW];
    for (int l = 0; l < VW; l++) {
      xb[l] = (g * VW + (l < lanes ? l : 0)) * xs;
      yb[l] = (g * VW + (l < lanes ? l : 0)) * h;
    }
    gather_rows(z, xb, lanes, m, a);
    __global real *r = passes_fwd(m, a, b, tw);
    /* The split, in place: pairs (k, m - k), k = 1 .. m/2. */
    const vec z0r = VLOAD(0, r), z0i = VLOAD(0, r + VW);
    const vec lastr = (z0r - z0i) * scale; /* X[m] */
    VSTORE((z0r + z0i) * scale, 0, r);
    VSTORE((vec)0, 0, r + VW);
    for (uint k = 1; k <= m / 2; k++) {
      __global real *pa = r + (size_t)k * 2 * VW;
      __global real *pb = r + (size_t)(m - k) * 2 * VW;
      const vec ar = VLOAD(0, pa), ai = VLOAD(0, pa + VW);
      const vec br = VLOAD(0, pb), bi = VLOAD(0, pb + VW);
      const real2 w = rtw[k];
      const vec er = (ar + br) * (real)0.5, ei = (ai - bi) * (real)0.5;
      const vec or_ = (ar - br) * (real)0.5, oi = (ai + bi) * (real)0.5;
      const vec tr = w.x * or_ - w.y * oi, ti = w.x * oi + w.y * or_;
      /* pb first: for k = m - k both are the same value. */
      VSTORE((er - ti) * scale, 0, pb);
      VSTORE(-(ei + tr) * scale, 0, pb + VW);
      VSTORE((er + ti) * scale, 0, pa);
      VSTORE((ei - tr) * scale, 0, pa + VW);
    }
    scatter_rows(r, (real)1, yb, lanes, m, y);
    real lr[VW];
    VSTORE(lastr, 0, lr);
    for (int l = 0; l < lanes; l++) y[yb[l] + m] = (real2)(lr[l], 0);
  }
}

/* C2R of even n = 2m with m in one pass, the inverse of the above: the
 * work-item's VW rows of h = m + 1 values of a real spectrum X (rows h
 * apart in x), Z[k] = E[k] + i O[k] in the scratch (fft_c2r_pre's
 * formula, in place by pairs: with e = X[k] + conj X[m-k] and
 * o = conj(W^k) (X[k] - conj X[m-k]), Z[k] = e + i o and
 * Z[m - k] = conj(e) + i conj(o); Z[0] from the real parts of X[0] and
 * X[m]), one inverse pass, and the rows of m complex values (the n reals)
 * times scale to y[row ys + j]. In place (x and y the same rows) works:
 * a work-item reads its rows whole before it writes them. */
__kernel void fft_stockham_c2r1(const uint m, const real scale,
                                const ulong rows, __global const real2 *x,
                                __global real2 *y, const ulong ys,
                                __global real *scr, __global const real2 *tw,
                                __global const real2 *rtw) {
  const ulong h = (ulong)m + 1, groups = (rows + VW - 1) / VW;
  __global real *a = scr + (size_t)get_global_id(0) * 4 * m * VW;
  __global real *b = a + (size_t)2 * m * VW;
  const ulong per = (groups + get_global_size(0) - 1) / get_global_size(0);
  const ulong gend = min(groups, (get_global_id(0) + 1) * per);
  for (ulong g = get_global_id(0) * per; g < gend; g++) {
    const int lanes = rows - g * VW < VW ? (int)(rows - g * VW) : VW;
    ulong xb[VW], yb[VW];
    real xm[VW];
    for (int l = 0; l < VW; l++) {
      const ulong row = g * VW + (l < lanes ? l : 0);
      xb[l] = row * h;
      yb[l] = row * ys;
      xm[l] = l < lanes ? x[row * h + m].x : 0;
    }
    gather_rows(x, xb, lanes, m, a);
    const vec x0 = VLOAD(0, a), xmr = VLOAD(0, xm);
    VSTORE(x0 + xmr, 0, a);
    VSTORE(x0 - xmr, 0, a + VW);
    for (uint k = 1; k <= m / 2; k++) {
      __global real *pa = a + (size_t)k * 2 * VW;
      __global real *pb = a + (size_t)(m - k) * 2 * VW;
      const vec ar = VLOAD(0, pa), ai = VLOAD(0, pa + VW);
      const vec br = VLOAD(0, pb), bi = VLOAD(0, pb + VW);
      const real2 w = rtw[k];
      /* e = a + conj b, d = a - conj b, o = conj(w) d */
      const vec er = ar + br, ei = ai - bi;
      const vec dr = ar - br, di = ai + bi;
      const vec or_ = w.x * dr + w.y * di, oi = w.x * di - w.y * dr;
      /* pb first: for k = m - k both are the same value. */
      VSTORE(er + oi, 0, pb);
      VSTORE(or_ - ei, 0, pb + VW);
      VSTORE(er - oi, 0, pa);
      VSTORE(ei + or_, 0, pa + VW);
    }
    __global real *r = passes_dir(m, (real)-1, a, b, tw);
    scatter_rows(r, scale, yb, lanes, m, y);
  }
}
#endif

/* ---- Many transforms of length 2, 4 or 8 ---------------------------------
 *
 * fft_stockham_short: `lines` contiguous lines of n = 2, 4 or 8 complex
 * values (line l at x[n l], its output at y[n l]; x == y in place), the
 * whole transform in registers. The data are taken in blocks of 64
 * complex values, each as 8 / SP_ROWS blocks of SP_ROWS rows of 8 values
 * (short_pairs_in: lane pair l of z[j] holds value 8 l + j of its block).
 * As n divides 8, z[0..8) of lane pair l then hold 8 / n whole lines
 * (line (8 l + j) / n, element j mod n), so the block is 8 / n radix-n
 * butterflies on vectors (radix 8's, DFT4 or a sum and a difference, no
 * twiddles: one pass), the transpose back and the stores, times scale. No
 * scratch; sign as fft_stockham. Work-item g handles the contiguous range
 * of blocks [g per, (g + 1) per); a last block of fewer than 64 values is
 * loaded and stored element by element (short_pairs_in_part, missing
 * values zeros, their results dropped). */
#if VW == 8
/* Whole blocks of short lines as complex pairs: SP_ROWS rows of 8 values
 * (row l at p + stride l) go through a transpose of complex elements, so
 * that z[j] holds value j of the rows, (re, im) side by side, and the
 * butterflies work on the pairs. f32: 4 rows, two 4 x 4 transposes of
 * 64-bit elements (values 0-3 and 4-7 of each row), z of 8 lanes; f64: 2
 * rows, 2 x 2 transposes of 128-bit elements (128-bit lane moves), z of 4
 * lanes. Each block fills 8 vectors: 8 of AVX2's 16 registers, where the
 * earlier 8 rows split into re and im took all 16 and spilled, and needed
 * permutes to split a block and join it again: 131072 lines of 8 ran 2x
 * faster as AVX2 code and 1.7-2x as AVX-512 code, where 8-row blocks of
 * 16 lanes (transpose8_pairs) ran 1.2-1.25x slower than these (docs/fft.md,
 * "Fourteenth round"). A product by -i s (s the sign of the exponent) is a
 * swap within each pair and a sign pattern (MULMI); by a constant w = wr +
 * i wi, z wr plus swap(z) (-wi, wi). */
#if PRECISION == 32
#define SP_ROWS 4
typedef float8 spvec;
#define SP_LOAD vload8
#define SP_STORE vstore8
#define SP_SPLAT2(a, b) ((spvec)(a, b, a, b, a, b, a, b))
FFT_INLINE spvec pair_swap(spvec z) {
  return shuffle(z, (uint8)(1, 0, 3, 2, 5, 4, 7, 6));
}
/* Transposes the 4 x 4 matrix of 64-bit elements in rows r[0..4):
 * unpacks of pairs, then 128-bit halves (vunpcklpd / vperm2f128). */
FFT_INLINE void transpose4_pairs(ulong4 *r) {
  const ulong4 t0 = shuffle2(r[0], r[1], (ulong4)(0, 4, 2, 6));
  const ulong4 t1 = shuffle2(r[0], r[1], (ulong4)(1, 5, 3, 7));
  const ulong4 t2 = shuffle2(r[2], r[3], (ulong4)(0, 4, 2, 6));
  const ulong4 t3 = shuffle2(r[2], r[3], (ulong4)(1, 5, 3, 7));
  r[0] = shuffle2(t0, t2, (ulong4)(0, 1, 4, 5));
  r[1] = shuffle2(t1, t3, (ulong4)(0, 1, 4, 5));
  r[2] = shuffle2(t0, t2, (ulong4)(2, 3, 6, 7));
  r[3] = shuffle2(t1, t3, (ulong4)(2, 3, 6, 7));
}
FFT_INLINE void short_pairs_in(__global const real2 *p, ulong stride,
                               spvec *z) {
  ulong4 lo[4], hi[4];
  _Pragma("unroll") for (int l = 0; l < 4; l++) {
    const ulong8 u =
        as_ulong8(vload16(0, (__global const real *)(p + stride * l)));
    lo[l] = u.lo;
    hi[l] = u.hi;
  }
  transpose4_pairs(lo);
  transpose4_pairs(hi);
  _Pragma("unroll") for (int j = 0; j < 4; j++) {
    z[j] = as_float8(lo[j]);
    z[4 + j] = as_float8(hi[j]);
  }
}
FFT_INLINE void short_pairs_out(__global real2 *p, ulong stride, spvec *z) {
  ulong4 lo[4], hi[4];
  _Pragma("unroll") for (int j = 0; j < 4; j++) {
    lo[j] = as_ulong4(z[j]);
    hi[j] = as_ulong4(z[4 + j]);
  }
  transpose4_pairs(lo);
  transpose4_pairs(hi);
  _Pragma("unroll") for (int l = 0; l < 4; l++) {
    ulong8 u;
    u.lo = lo[l];
    u.hi = hi[l];
    vstore16(as_float16(u), 0, (__global real *)(p + stride * l));
  }
}
#else
#define SP_ROWS 2
typedef double4 spvec;
#define SP_LOAD vload4
#define SP_STORE vstore4
#define SP_SPLAT2(a, b) ((spvec)(a, b, a, b))
FFT_INLINE spvec pair_swap(spvec z) {
  return shuffle(z, (ulong4)(1, 0, 3, 2));
}
FFT_INLINE void short_pairs_in(__global const real2 *p, ulong stride,
                               spvec *z) {
  __global const real *a = (__global const real *)p;
  __global const real *b = (__global const real *)(p + stride);
  _Pragma("unroll") for (int q = 0; q < 4; q++) {
    const spvec u = vload4(q, a), v = vload4(q, b);
    z[2 * q] = shuffle2(u, v, (ulong4)(0, 1, 4, 5));
    z[2 * q + 1] = shuffle2(u, v, (ulong4)(2, 3, 6, 7));
  }
}
FFT_INLINE void short_pairs_out(__global real2 *p, ulong stride, spvec *z) {
  __global real *a = (__global real *)p;
  __global real *b = (__global real *)(p + stride);
  _Pragma("unroll") for (int q = 0; q < 4; q++) {
    vstore4(shuffle2(z[2 * q], z[2 * q + 1], (ulong4)(0, 1, 4, 5)), q, a);
    vstore4(shuffle2(z[2 * q], z[2 * q + 1], (ulong4)(2, 3, 6, 7)), q, b);
  }
}
#endif
#define MULMI(z) (pair_swap(z) * sgn_)
#define DFT4P(z0, z1, z2, z3)                                   \
  do {                                                          \
    const spvec a0_ = z0 + z2, a1_ = z0 - z2;                   \
    const spvec a2_ = z1 + z3, a3_ = MULMI(z1 - z3);            \
    z0 = a0_ + a2_;                                             \
    z2 = a0_ - a2_;                                             \
    z1 = a1_ + a3_;                                             \
    z3 = a1_ - a3_;                                             \
  } while (0)
/* short_pairs_in and _out for a last, partial block, element by element:
 * value j of row l (at p + stride l + j) only where stride l + j < left;
 * zeros come in for the others, and they are not stored. */
FFT_INLINE void short_pairs_in_part(__global const real2 *p, ulong stride,
                                    ulong left, spvec *z) {
  for (int j = 0; j < 8; j++) {
    real a[2 * SP_ROWS];
    for (int l = 0; l < SP_ROWS; l++) {
      const ulong e = stride * l + j;
      const real2 v = e < left ? p[e] : (real2)(0, 0);
      a[2 * l] = v.x;
      a[2 * l + 1] = v.y;
    }
    z[j] = SP_LOAD(0, a);
  }
}
FFT_INLINE void short_pairs_out_part(__global real2 *p, ulong stride,
                                     ulong left, const spvec *z) {
  for (int j = 0; j < 8; j++) {
    real a[2 * SP_ROWS];
    SP_STORE(z[j], 0, a);
    for (int l = 0; l < SP_ROWS; l++) {
      const ulong e = stride * l + j;
      if (e < left) p[e] = (real2)(a[2 * l], a[2 * l + 1]);
    }
  }
}
/* The 8 / n transforms of length n in z[0..8), then the scale. */
#define SHORT_DFT_PAIRS(n, z)                                           \
  do {                                                                  \
    if (n == 8) {                                                       \
      DFT4P(z[0], z[2], z[4], z[6]);                                    \
      DFT4P(z[1], z[3], z[5], z[7]);                                    \
      const real c_ = (real)0.70710678118654752440;                     \
      const spvec o1 = c_ * (z[3] + MULMI(z[3]));                       \
      const spvec o2 = MULMI(z[5]);                                     \
      const spvec o3 = c_ * (MULMI(z[7]) - z[7]);                       \
      const spvec e0 = z[0], e1 = z[2], e2 = z[4], e3 = z[6], o0 = z[1]; \
      z[0] = e0 + o0;                                                   \
      z[1] = e1 + o1;                                                   \
      z[2] = e2 + o2;                                                   \
      z[3] = e3 + o3;                                                   \
      z[4] = e0 - o0;                                                   \
      z[5] = e1 - o1;                                                   \
      z[6] = e2 - o2;                                                   \
      z[7] = e3 - o3;                                                   \
    } else if (n == 4) {                                                \
      DFT4P(z[0], z[1], z[2], z[3]);                                    \
      DFT4P(z[4], z[5], z[6], z[7]);                                    \
    } else {                                                            \
      _Pragma("unroll") for (int j = 0; j < 8; j += 2) {                \
        const spvec a_ = z[j];                                          \
        z[j] = a_ + z[j + 1];                                           \
        z[j + 1] = a_ - z[j + 1];                                       \
      }                                                                 \
    }                                                                   \
    _Pragma("unroll") for (int j = 0; j < 8; j++) z[j] *= scale;        \
  } while (0)

/* SP_ROWS rows of 8 values of a block at x (its output at y), of which
 * `left` are values to transform (all of them from 8 SP_ROWS on). */
FFT_INLINE void short_slice(__global const real2 *x, __global real2 *y,
                            ulong left, uint n, spvec sgn_, real scale) {
  spvec z[8];
  if (left >= 8 * SP_ROWS)
    short_pairs_in(x, 8, z);
  else
    short_pairs_in_part(x, 8, left, z);
  SHORT_DFT_PAIRS(n, z);
  if (left >= 8 * SP_ROWS)
    short_pairs_out(y, 8, z);
  else
    short_pairs_out_part(y, 8, left, z);
}

__kernel void fft_stockham_short(const uint n, const int sign,
                                 const real scale, const ulong lines,
                                 __global const real2 *x, __global real2 *y) {
  const real s = sign < 0 ? (real)1 : (real)-1;
  const spvec sgn_ = SP_SPLAT2(s, -s);
  const ulong count = lines * n, blocks = (count + 63) / 64;
  const ulong per = (blocks + get_global_size(0) - 1) / get_global_size(0);
  const ulong bend = min(blocks, (get_global_id(0) + 1) * per);
  for (ulong b = get_global_id(0) * per; b < bend; b++) {
    const ulong base = b * 64; /* complex values before the block */
    const ulong left = min(count - base, (ulong)64); /* a multiple of n */
    if (left == 64) {
      _Pragma("unroll") for (int h = 0; h < 64; h += 8 * SP_ROWS)
        short_slice(x + base + h, y + base + h, 64 - h, n, sgn_, scale);
    } else {
      for (uint h = 0; h < left; h += 8 * SP_ROWS)
        short_slice(x + base + h, y + base + h, left - h, n, sgn_, scale);
    }
  }
}

/* fft_stockham_short16: lines of 16, the same in groups of 8 lines (128
 * values), SP_ROWS lines at a time: the two halves of each line go through
 * short_pairs_in, so lane pair l of z[j] (j < 16) holds element j of line
 * l; then a 16-point DFT as 4 x 4 (DFT4 over j2 for each j1 of j = j1 + 4
 * j2, the twiddles w16^(j1 k1) as literals, DFT4 over j1), which leaves
 * X[k1 + 4 k2] in z[4 k1 + k2], read back in order for the transpose and
 * the stores. A last group of fewer than 8 lines is loaded and stored
 * element by element (short_pairs_in_part, short_pairs_out_part). */
#define SHORT16_PAIRS(z)                                                   \
  do {                                                                     \
    _Pragma("unroll") for (int j1 = 0; j1 < 4; j1++)                       \
      DFT4P(z[j1], z[j1 + 4], z[j1 + 8], z[j1 + 12]);                      \
    /* cos and sin of 2 pi t/16, t = 0 .. 9 */                            \
    const real cw_[10] = {1, (real)0.92387953251128675613,                 \
                          (real)0.70710678118654752440,                    \
                          (real)0.38268343236508977173, 0,                 \
                          (real)-0.38268343236508977173,                   \
                          (real)-0.70710678118654752440,                   \
                          (real)-0.92387953251128675613, -1,               \
                          (real)-0.92387953251128675613};                  \
    const real sw_[10] = {0, (real)0.38268343236508977173,                 \
                          (real)0.70710678118654752440,                    \
                          (real)0.92387953251128675613, 1,                 \
                          (real)0.92387953251128675613,                    \
                          (real)0.70710678118654752440,                    \
                          (real)0.38268343236508977173, 0,                 \
                          (real)-0.38268343236508977173};                  \
    _Pragma("unroll") for (int j1 = 1; j1 < 4; j1++)                       \
      _Pragma("unroll") for (int k1 = 1; k1 < 4; k1++) {                   \
        const int t_ = j1 * k1, q_ = j1 + 4 * k1;                          \
        const real wr_ = cw_[t_], wi_ = -s * sw_[t_];                      \
        const spvec wp_ = SP_SPLAT2(-wi_, wi_);                            \
        z[q_] = z[q_] * wr_ + pair_swap(z[q_]) * wp_;                      \
      }                                                                    \
    _Pragma("unroll") for (int k1 = 0; k1 < 4; k1++)                       \
      DFT4P(z[4 * k1], z[4 * k1 + 1], z[4 * k1 + 2], z[4 * k1 + 3]);       \
  } while (0)

/* SP_ROWS lines of 16 of a group at x (their output at y), of which
 * `left` values are lines to transform (all of them from 16 SP_ROWS on). */
FFT_INLINE void short16_slice(__global const real2 *x, __global real2 *y,
                              ulong left, real s, spvec sgn_, real scale) {
  spvec z[16], o[16];
  if (left >= 16 * SP_ROWS) {
    short_pairs_in(x, 16, z);
    short_pairs_in(x + 8, 16, z + 8);
  } else {
    short_pairs_in_part(x, 16, left, z);
    short_pairs_in_part(x + 8, 16, left, z + 8);
  }
  SHORT16_PAIRS(z);
  _Pragma("unroll") for (int k = 0; k < 16; k++)
    o[k] = z[4 * (k % 4) + k / 4] * scale;
  if (left >= 16 * SP_ROWS) {
    short_pairs_out(y, 16, o);
    short_pairs_out(y + 8, 16, o + 8);
  } else {
    short_pairs_out_part(y, 16, left, o);
    short_pairs_out_part(y + 8, 16, left, o + 8);
  }
}

__kernel void fft_stockham_short16(const int sign, const real scale,
                                   const ulong lines, __global const real2 *x,
                                   __global real2 *y) {
  const real s = sign < 0 ? (real)1 : (real)-1;
  const ulong groups = (lines + 7) / 8;
  const ulong per = (groups + get_global_size(0) - 1) / get_global_size(0);
  const ulong gend = min(groups, (get_global_id(0) + 1) * per);
  const spvec sgn_ = SP_SPLAT2(s, -s);
  for (ulong g = get_global_id(0) * per; g < gend; g++) {
    const ulong base = g * 128; /* complex values before the group */
    const ulong left = min(lines - g * 8, (ulong)8) * 16;
    if (left == 128) {
      _Pragma("unroll") for (int h = 0; h < 128; h += 16 * SP_ROWS)
        short16_slice(x + base + h, y + base + h, 128 - h, s, sgn_, scale);
    } else {
      for (uint h = 0; h < left; h += 16 * SP_ROWS)
        short16_slice(x + base + h, y + base + h, left - h, s, sgn_, scale);
    }
  }
}
#endif
