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
