/*
 * fft_bluestein.cl: DFTs as convolutions, for lengths with a prime factor
 * above 13: the chirp-z (Bluestein) steps for any length n, and Rader's
 * steps for primes (below). Bluestein, with w[j] = exp(-i pi j^2 / n):
 *
 *   X[k] = w[k] * sum_j (x[j] w[j]) conj(w[k-j])
 *
 * a circular convolution of length m (2^a 3^b 5^c >= 2n-1) that the
 * Stockham kernels or clFFT do between fft_bs_pre and fft_bs_post:
 *
 *   fft_bs_pre:   s[l][j] = x[l][j] * w[j] for j < n, 0 for n <= j < m
 *   (forward FFT, length m, batched over the lines, in place on s)
 *   fft_bs_mul:   s[l][j] *= F[j]      F = FFT_m of the filter conj(w[|j|])
 *   (inverse FFT; its 1/m in `scale` below or in the FFT)
 *   fft_bs_post:  y[l][k] = scale * s[l][k] * w[k] for k < n
 *
 * The inverse DFT is conj(forward(conj x)): `conj_in` / `conj_out`.
 *
 * x and y are lines of a row-major array seen along one axis: element j of
 * line l sits at (l / inner) * n * inner + j * inner + (l % inner), so any
 * axis of a multi-dimensional transform runs without a transpose. The lines
 * scratch s holds line l at s[l * m].
 *
 * NDRange: (ceil(m / EB) for pre and mul, ceil(n / EB) for post, rounded
 * up to a multiple of 8; lines): EB = 8 elements per work-item (below),
 * work-items beyond the line do nothing. The work-group size is left to
 * the driver (these steps are memory-bound); the rounding keeps it from
 * work-groups of one work-item, which a range of a prime n (as for
 * n = 100003) gave on PoCL.
 */

/* 32: float, 64: double (needs cl_khr_fp64). */
#ifndef PRECISION
#define PRECISION 32
#endif

#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#else
typedef float real;
typedef float2 real2;
#endif

inline real2 cmul(real2 a, real2 b) {
  return (real2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

inline ulong line_at(ulong l, ulong j, ulong n, ulong inner) {
  return (l / inner) * n * inner + j * inner + (l % inner);
}

/* The Bluestein steps take EB consecutive elements of a line per
 * work-item: as vectors of EB complex values (vload16 of the interleaved
 * pairs) where the EB elements are all there and contiguous (inner == 1),
 * element by element otherwise. One element per work-item ran 12 to 31
 * instructions an element on PoCL, scalar, with the line address by
 * 64-bit division each time (docs/fft.md, seventh round). */
#define EB 8 /* fixed: the vectors below hold 8 complex values */
#if PRECISION == 64
typedef double8 rvec;
typedef double16 pvec;
#else
typedef float8 rvec;
typedef float16 pvec;
#endif

/* a[j0 .. j0 + EB) times b[j0 .. j0 + EB) (complex, interleaved), the
 * imaginary parts of a times sa first. */
inline pvec cmul_eb(pvec a, pvec b, real sa) {
  const rvec ar = a.even, ai = sa * a.odd, br = b.even, bi = b.odd;
  pvec r;
  r.even = ar * br - ai * bi;
  r.odd = ar * bi + ai * br;
  return r;
}

__kernel void fft_bs_pre(const ulong n, const ulong m, const ulong inner,
                         const int conj_in, __global const real2 *x,
                         __global const real2 *chirp, __global real2 *s) {
  const ulong j0 = get_global_id(0) * EB, l = get_global_id(1);
  if (j0 >= m) return;
  __global real2 *sl = s + l * m;
  const real sa = conj_in ? (real)-1 : (real)1;
  if (inner == 1 && j0 + EB <= n) {
    const pvec a = vload16(0, (__global const real *)(x + l * n + j0));
    const pvec c = vload16(0, (__global const real *)(chirp + j0));
    vstore16(cmul_eb(a, c, sa), 0, (__global real *)(sl + j0));
    return;
  }
  if (j0 >= n && j0 + EB <= m) {
    vstore16((pvec)0, 0, (__global real *)(sl + j0));
    return;
  }
  for (ulong j = j0; j < j0 + EB && j < m; j++) {
    real2 v = (real2)(0, 0);
    if (j < n) {
      real2 a = x[line_at(l, j, n, inner)];
      a.y *= sa;
      v = cmul(a, chirp[j]);
    }
    sl[j] = v;
  }
}

/* sl[j0 .. j0 + EB) *= filter_ft[...] (the convolution's pointwise
 * product of Bluestein and Rader): one vector of EB pairs, or element by
 * element at the end of the line. */
inline void mul_block(__global real2 *sl, __global const real2 *filter_ft,
                      const ulong j0, const ulong m) {
  if (j0 + EB <= m) {
    const pvec a = vload16(0, (__global const real *)(sl + j0));
    const pvec f = vload16(0, (__global const real *)(filter_ft + j0));
    vstore16(cmul_eb(a, f, (real)1), 0, (__global real *)(sl + j0));
    return;
  }
  for (ulong j = j0; j < m; j++) sl[j] = cmul(sl[j], filter_ft[j]);
}

__kernel void fft_bs_mul(const ulong m, __global real2 *s,
                         __global const real2 *filter_ft) {
  const ulong j0 = get_global_id(0) * EB, l = get_global_id(1);
  if (j0 >= m) return;
  mul_block(s + l * m, filter_ft, j0, m);
}

__kernel void fft_bs_post(const ulong n, const ulong m, const ulong inner,
                          const int conj_out, const real scale,
                          __global const real2 *s, __global const real2 *chirp,
                          __global real2 *y) {
  const ulong k0 = get_global_id(0) * EB, l = get_global_id(1);
  if (k0 >= n) return;
  __global const real2 *sl = s + l * m;
  const real so = conj_out ? -scale : scale;
  if (inner == 1 && k0 + EB <= n) {
    const pvec a = vload16(0, (__global const real *)(sl + k0));
    const pvec c = vload16(0, (__global const real *)(chirp + k0));
    pvec v = cmul_eb(a, c, (real)1);
    v.even *= scale;
    v.odd *= so;
    vstore16(v, 0, (__global real *)(y + l * n + k0));
    return;
  }
  for (ulong k = k0; k < k0 + EB && k < n; k++) {
    const real2 v = cmul(sl[k], chirp[k]);
    y[line_at(l, k, n, inner)] = (real2)(v.x * scale, v.y * so);
  }
}

/*
 * Rader's algorithm for a prime length p whose p - 1 = m the Stockham
 * kernels do: with g a generator modulo p, a[q] = x[g^q] and
 * b[q] = exp(-2 pi i g^-q / p) (q < m),
 *
 *   X[0]      = x[0] + sum_q a[q]           (A[0], the DC of FFT_m(a))
 *   X[g^-q]   = x[0] + (a (*) b)[q]         (a cyclic convolution of m)
 *
 *   fft_rd_pre:   s[l][q] = x[l][perm[q]] (perm[q] = g^q); dc[l] = (x0, -)
 *   (forward FFT, length m, in place on s)
 *   fft_rd_mul:   dc[l].A0 = s[l][0]; s[l][q] *= B[q]   (B = FFT_m(b))
 *   (inverse FFT, scaled by 1/m)
 *   fft_rd_post:  y[l][perm[m + q]] = scale (x0 + s[l][q]) (g^-q),
 *                 y[l][0] = scale (x0 + A0)
 *
 * x[0] and A[0] of line l live in dc[2l] and dc[2l+1], after the lines in
 * the same scratch (dc = s + dco), so that x may be y (in place): fft_rd_pre
 * reads all of x before fft_rd_post writes any of y. Lines are addressed as
 * in the Bluestein kernels above.
 *
 * NDRange: (ceil(m / EB) rounded up to a multiple of 8, lines) for all
 * three, EB = 8 elements q0 .. q0 + EB of a line per work-item (as for
 * Bluestein above; post's first work-item also writes X[0]).
 */

__kernel void fft_rd_pre(const ulong n, const ulong m, const ulong inner,
                         const int conj_in, __global const real2 *x,
                         __global const uint *perm, __global real2 *s,
                         const ulong dco) {
  const ulong q0 = get_global_id(0) * EB, l = get_global_id(1);
  if (q0 >= m) return;
  const real sa = conj_in ? (real)-1 : (real)1;
  if (q0 == 0) {
    real2 a0 = x[line_at(l, 0, n, inner)];
    a0.y *= sa;
    s[dco + 2 * l] = a0;
  }
  __global real2 *sl = s + l * m;
  if (inner == 1 && q0 + EB <= m) {
    /* The gather by g^q element by element, the store as one vector. */
    __global const real2 *xl = x + l * n;
    real v[2 * EB];
    for (int e = 0; e < EB; e++) {
      const real2 a = xl[perm[q0 + e]];
      v[2 * e] = a.x;
      v[2 * e + 1] = sa * a.y;
    }
    vstore16(vload16(0, v), 0, (__global real *)(sl + q0));
    return;
  }
  for (ulong q = q0; q < q0 + EB && q < m; q++) {
    real2 a = x[line_at(l, perm[q], n, inner)];
    a.y *= sa;
    sl[q] = a;
  }
}

__kernel void fft_rd_mul(const ulong m, __global real2 *s,
                         __global const real2 *filter_ft, const ulong dco) {
  const ulong q0 = get_global_id(0) * EB, l = get_global_id(1);
  if (q0 >= m) return;
  __global real2 *sl = s + l * m;
  if (q0 == 0) s[dco + 2 * l + 1] = sl[0];
  mul_block(sl, filter_ft, q0, m);
}

__kernel void fft_rd_post(const ulong n, const ulong m, const ulong inner,
                          const int conj_out, const real scale,
                          __global const real2 *s, __global const uint *perm,
                          const ulong dco, __global real2 *y) {
  const ulong q0 = get_global_id(0) * EB, l = get_global_id(1);
  if (q0 >= m) return;
  const real2 x0 = s[dco + 2 * l];
  const real so = conj_out ? -scale : scale;
  if (q0 == 0) {
    const real2 v = x0 + s[dco + 2 * l + 1];
    y[line_at(l, 0, n, inner)] = (real2)(v.x * scale, v.y * so);
  }
  __global const real2 *sl = s + l * m;
  if (inner == 1 && q0 + EB <= m) {
    /* The values as one vector, the scatter by g^-q element by element. */
    __global real2 *yl = y + l * n;
    pvec v = vload16(0, (__global const real *)(sl + q0));
    v.even = (v.even + x0.x) * scale;
    v.odd = (v.odd + x0.y) * so;
    real w[2 * EB];
    vstore16(v, 0, w);
    for (int e = 0; e < EB; e++)
      yl[perm[m + q0 + e]] = (real2)(w[2 * e], w[2 * e + 1]);
    return;
  }
  for (ulong q = q0; q < q0 + EB && q < m; q++) {
    const real2 v = x0 + sl[q];
    y[line_at(l, perm[m + q], n, inner)] = (real2)(v.x * scale, v.y * so);
  }
}
