/*
 * fft_layout.cl: data movement around clFFT for the transforms vncl runs
 * axis by axis (when a length needs the Bluestein path):
 *
 *   fft_gather / fft_scatter   lines along a strided axis <-> contiguous
 *                              lines (element j of line l at
 *                              (l / inner) * n * inner + j * inner + l % inner)
 *   fft_scale                  x *= scale (normalizations clFFT cannot apply
 *                              exactly in double: its scale is a float)
 *   fft_real_to_full           real rows -> complex rows, imaginary 0
 *   fft_full_to_half           first h = n/2+1 values of each complex row
 *   fft_half_to_full           full spectrum of a real signal from its
 *                              Hermitian half, by X[-k] = conj(X[k])
 *   fft_full_to_real           real parts of complex rows
 *   fft_real_rows              real rows -> real rows of another stride,
 *                              scaled (the padded rows of in-place real
 *                              transforms <-> contiguous rows)
 *   fft_r2c_post               half-length spectra -> real spectra (R2C of
 *                              even n = 2m: the n reals of a row as m complex
 *                              values z[j] = x[2j] + i x[2j+1], transformed
 *                              by a length-m complex FFT, then split here)
 *   fft_c2r_pre                its inverse: h = m + 1 values of a real
 *                              spectrum -> the m values whose inverse
 *                              length-m FFT is x[2j] + i x[2j+1]
 *
 * Real rows are `rstride` values apart (n, or 2h for in-place real
 * transforms, whose real rows are padded to the complex row's size).
 * NDRange: (elements per row, rows); one work-item per element.
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

inline ulong line_at(ulong l, ulong j, ulong n, ulong inner) {
  return (l / inner) * n * inner + j * inner + (l % inner);
}

__kernel void fft_gather(const ulong n, const ulong inner,
                         __global const real2 *x, __global real2 *s) {
  const ulong j = get_global_id(0), l = get_global_id(1);
  s[l * n + j] = x[line_at(l, j, n, inner)];
}

__kernel void fft_scatter(const ulong n, const ulong inner, const real scale,
                          __global const real2 *s, __global real2 *y) {
  const ulong j = get_global_id(0), l = get_global_id(1);
  y[line_at(l, j, n, inner)] = s[l * n + j] * scale;
}

__kernel void fft_scale(const real scale, __global real *x) {
  const ulong i = get_global_id(0);
  x[i] *= scale;
}

__kernel void fft_real_to_full(const ulong n2, const ulong rstride,
                               __global const real *r, __global real2 *f) {
  const ulong j = get_global_id(0), row = get_global_id(1);
  f[row * n2 + j] = (real2)(r[row * rstride + j], 0);
}

__kernel void fft_full_to_half(const ulong n2, const ulong h, const real scale,
                               __global const real2 *f, __global real2 *y) {
  const ulong k = get_global_id(0), row = get_global_id(1);
  y[row * h + k] = f[row * n2 + k] * scale;
}

/* Rows are (batch, i0 < n0, i1 < n1); 1-D and 2-D transforms have n0 = 1
 * (and n1 = 1). */
__kernel void fft_half_to_full(const ulong n0, const ulong n1, const ulong n2,
                               const ulong h, __global const real2 *x,
                               __global real2 *f) {
  const ulong k = get_global_id(0), row = get_global_id(1);
  real2 v;
  if (k < h) {
    v = x[row * h + k];
  } else {
    const ulong i1 = row % n1, t = row / n1, i0 = t % n0, b = t / n0;
    const ulong mrow = (b * n0 + (n0 - i0) % n0) * n1 + (n1 - i1) % n1;
    v = x[mrow * h + (n2 - k)];
    v.y = -v.y;
  }
  f[row * n2 + k] = v;
}

__kernel void fft_full_to_real(const ulong n2, const ulong rstride,
                               const real scale, __global const real2 *f,
                               __global real *r) {
  const ulong j = get_global_id(0), row = get_global_id(1);
  r[row * rstride + j] = f[row * n2 + j].x * scale;
}

/* Real rows of n values, `sstride` apart in s, to rows `dstride` apart in
 * d, times scale. NDRange (n, rows). */
__kernel void fft_real_rows(const ulong sstride, const ulong dstride,
                            const real scale, __global const real *s,
                            __global real *d) {
  const ulong j = get_global_id(0), row = get_global_id(1);
  d[row * dstride + j] = s[row * sstride + j] * scale;
}

inline real2 cmul(real2 a, real2 b) {
  return (real2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* Rows of m complex values Z = FFT_m(x[2j] + i x[2j+1]) (z) to rows of
 * h = m + 1 values of X = FFT_2m(x) (y), times scale:
 *   X[k] = (Z[k] + conj Z[m-k]) / 2 - i W^k (Z[k] - conj Z[m-k]) / 2,
 * W = exp(-2 pi i / 2m) from tw (tw[t] = W^t, t < 2m, made on the host in
 * double); X[0] = Re Z[0] + Im Z[0] and X[m] = Re Z[0] - Im Z[0], both
 * real. NDRange (h, rows). */
__kernel void fft_r2c_post(const ulong m, const real scale,
                           __global const real2 *z, __global const real2 *tw,
                           __global real2 *y) {
  const ulong k = get_global_id(0), row = get_global_id(1);
  __global const real2 *zr = z + row * m;
  real2 v;
  if (k == 0 || k == m) {
    const real2 a = zr[0];
    v = (real2)(k == 0 ? a.x + a.y : a.x - a.y, 0);
  } else {
    const real2 a = zr[k], b = zr[m - k];
    const real2 bc = (real2)(b.x, -b.y);
    const real2 e = (a + bc) * (real)0.5, o = (a - bc) * (real)0.5;
    /* O = o / i = (o.y, -o.x); X = E + W^k O. */
    v = e + cmul(tw[k], (real2)(o.y, -o.x));
  }
  y[row * (m + 1) + k] = v * scale;
}

/* Rows of h = m + 1 values of a real spectrum X (x) to rows of m values
 * Z[k] = E[k] + i O[k] (z), E[k] = X[k] + conj X[m-k],
 * O[k] = conj(W^k) (X[k] - conj X[m-k]), whose unnormalized inverse FFT_m
 * is x[2j] + i x[2j+1] of the unnormalized inverse FFT_2m of X. X[0] and
 * X[m] count by their real parts only (the imaginary parts of a real
 * signal's spectrum there are 0; the full-length path ignores them too).
 * NDRange (m, rows). */
__kernel void fft_c2r_pre(const ulong m, __global const real2 *x,
                          __global const real2 *tw, __global real2 *z) {
  const ulong k = get_global_id(0), row = get_global_id(1);
  __global const real2 *xr = x + row * (m + 1);
  real2 v;
  if (k == 0) {
    const real a = xr[0].x, c = xr[m].x;
    v = (real2)(a + c, a - c);
  } else {
    const real2 a = xr[k], b = xr[m - k];
    const real2 bc = (real2)(b.x, -b.y);
    const real2 w = tw[k];
    const real2 e = a + bc, o = cmul((real2)(w.x, -w.y), a - bc);
    v = (real2)(e.x - o.y, e.y + o.x);
  }
  z[row * m + k] = v;
}
