/* The FFT steps on cl_kernels/fft_layout.cl: strided axes through
 * contiguous lines, scaling, and the real <-> complex conversions of real
 * transforms (through a full complex workspace, or for even lengths the
 * packing and the split around a half-length complex transform); and the
 * helpers every
 * FFT kernel launch uses. Enqueues only, with st->exec_lock held by the
 * caller (the scratch is shared). */
#include <stdio.h>
#include <string.h>

#include "fft/fft.h"

void vncl__fft_options(vncl_dtype dtype, int vw, char out[static 48]) {
  /* By hand: snprintf ran twice on every launch (2k instructions of a
   * short transform's, callgrind). */
  static const char pre[] = "-DPRECISION=32", vwd[] = " -DVW=";
  size_t a = sizeof pre - 1;
  memcpy(out, pre, a);
  if (dtype == VNCL_F64) memcpy(out + a - 2, "64", 2);
  if (vw > 0) {
    char digits[12];
    int d = 0;
    for (unsigned v = (unsigned)vw; v; v /= 10) digits[d++] = (char)('0' + v % 10);
    memcpy(out + a, vwd, sizeof vwd - 1);
    a += sizeof vwd - 1;
    while (d) out[a++] = digits[--d];
  }
  out[a] = '\0';
}

vncl_status vncl__fft_kget(vncl_context *ctx, vncl_dtype dtype,
                           const char *file, int vw, const char *name,
                           vncl__kernel *out) {
  char opts[48];
  vncl__fft_options(dtype, vw, opts);
  return vncl__kernel_get(ctx, file, opts, name, out);
}

vncl_status vncl__fft_klaunch(vncl_context *ctx, vncl__kernel *k,
                              vncl_status args, size_t d0, size_t d1,
                              double bytes) {
  vncl_status s = args;
  size_t global[2] = {d0, d1};
  if (!s)
    s = vncl__launch_work(ctx, "fft", k->k, 2, global, NULL, 0, NULL, NULL, 0,
                          bytes);
  vncl__kernel_put(ctx, k);
  return s;
}

vncl_status vncl__fft_klaunch1(vncl_context *ctx, vncl__kernel *k,
                               vncl_status args, size_t global, size_t local,
                               double flops, double bytes) {
  vncl_status s = args;
  if (!s)
    s = vncl__launch_work(ctx, "fft", k->k, 1, &global, local ? &local : NULL,
                          0, NULL, NULL, flops, bytes);
  vncl__kernel_put(ctx, k);
  return s;
}

vncl_status vncl__fft_lines_run(vncl_context *ctx, vncl__fft_state *st,
                                vncl_dtype dtype, vncl__fft_axis ax,
                                const vncl__fft_entry *lplan,
                                clfftDirection dir, double scale, cl_mem src,
                                cl_mem dst) {
  size_t esize = 2 * vncl_dtype_size(dtype);
  size_t lines = ax.outer * ax.inner;
  cl_mem s_buf = NULL;
  vncl_status s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_LINES,
                                    lines * ax.n * esize, &s_buf);
  if (s) return s;
  cl_ulong n_ = ax.n, inner_ = ax.inner;
  double bytes = 2.0 * lines * ax.n * esize;
  vncl__kernel k;
  if ((s = vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_gather", &k)))
    return s;
  s = vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 4, VNCL_ARG(n_), VNCL_ARG(inner_), VNCL_ARG(src),
                     VNCL_ARG(s_buf)),
      ax.n, lines, bytes);
  if (s) return s;
  if ((s = vncl__fft_clfft_run(ctx, st, lplan, dir, s_buf, NULL))) return s;
  if ((s = vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_scatter",
                          &k)))
    return s;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 5, VNCL_ARG(n_), VNCL_ARG(inner_), VNCL_TARG(sc),
                     VNCL_ARG(s_buf), VNCL_ARG(dst)),
      ax.n, lines, bytes);
}

vncl_status vncl__fft_scale_run(vncl_context *ctx, vncl_dtype dtype,
                                size_t count, double scale, cl_mem x) {
  vncl__kernel k;
  vncl_status s =
      vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_scale", &k);
  if (s) return s;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  return vncl__fft_klaunch(
      ctx, &k, vncl__set_args(ctx, k.k, 2, VNCL_TARG(sc), VNCL_ARG(x)), count,
      1, 2.0 * count * vncl_dtype_size(dtype));
}

vncl_status vncl__fft_real_to_full_run(vncl_context *ctx, vncl_dtype dtype,
                                       size_t rows, size_t n2, size_t rstride,
                                       cl_mem src, cl_mem full) {
  vncl__kernel k;
  vncl_status s =
      vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_real_to_full", &k);
  if (s) return s;
  cl_ulong n2_ = n2, rs_ = rstride;
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 4, VNCL_ARG(n2_), VNCL_ARG(rs_), VNCL_ARG(src),
                     VNCL_ARG(full)),
      n2, rows, 3.0 * rows * n2 * vncl_dtype_size(dtype));
}

vncl_status vncl__fft_full_to_half_run(vncl_context *ctx, vncl_dtype dtype,
                                       size_t rows, size_t n2, size_t h,
                                       double scale, cl_mem full, cl_mem dst) {
  vncl__kernel k;
  vncl_status s =
      vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_full_to_half", &k);
  if (s) return s;
  cl_ulong n2_ = n2, h_ = h;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 5, VNCL_ARG(n2_), VNCL_ARG(h_), VNCL_TARG(sc),
                     VNCL_ARG(full), VNCL_ARG(dst)),
      h, rows, 4.0 * rows * h * vncl_dtype_size(dtype));
}

vncl_status vncl__fft_half_to_full_run(vncl_context *ctx, vncl_dtype dtype,
                                       size_t batch, size_t n0, size_t n1,
                                       size_t n2, size_t h, cl_mem half,
                                       cl_mem full) {
  vncl__kernel k;
  vncl_status s =
      vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_half_to_full", &k);
  if (s) return s;
  cl_ulong n0_ = n0, n1_ = n1, n2_ = n2, h_ = h;
  size_t rows = batch * n0 * n1;
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 6, VNCL_ARG(n0_), VNCL_ARG(n1_), VNCL_ARG(n2_),
                     VNCL_ARG(h_), VNCL_ARG(half), VNCL_ARG(full)),
      n2, rows, 4.0 * rows * n2 * vncl_dtype_size(dtype));
}

vncl_status vncl__fft_full_to_real_run(vncl_context *ctx, vncl_dtype dtype,
                                       size_t rows, size_t n2, size_t rstride,
                                       double scale, cl_mem full, cl_mem dst) {
  vncl__kernel k;
  vncl_status s =
      vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_full_to_real", &k);
  if (s) return s;
  cl_ulong n2_ = n2, rs_ = rstride;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 5, VNCL_ARG(n2_), VNCL_ARG(rs_), VNCL_TARG(sc),
                     VNCL_ARG(full), VNCL_ARG(dst)),
      n2, rows, 3.0 * rows * n2 * vncl_dtype_size(dtype));
}

vncl_status vncl__fft_real_rows_run(vncl_context *ctx, vncl_dtype dtype,
                                    size_t rows, size_t n, size_t sstride,
                                    size_t dstride, double scale, cl_mem src,
                                    cl_mem dst) {
  vncl__kernel k;
  vncl_status s =
      vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_real_rows", &k);
  if (s) return s;
  cl_ulong ss_ = sstride, ds_ = dstride;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 5, VNCL_ARG(ss_), VNCL_ARG(ds_), VNCL_TARG(sc),
                     VNCL_ARG(src), VNCL_ARG(dst)),
      n, rows, 2.0 * rows * n * vncl_dtype_size(dtype));
}

vncl_status vncl__fft_r2c_post_run(vncl_context *ctx, vncl_dtype dtype,
                                   size_t rows, size_t m, double scale,
                                   cl_mem z, const vncl__fft_entry *tw,
                                   cl_mem y) {
  vncl__kernel k;
  vncl_status s =
      vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_r2c_post", &k);
  if (s) return s;
  cl_ulong m_ = m;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 5, VNCL_ARG(m_), VNCL_TARG(sc), VNCL_ARG(z),
                     VNCL_ARG(tw->tables[0]), VNCL_ARG(y)),
      m + 1, rows, 2.0 * 2 * rows * (2 * m + 1) * vncl_dtype_size(dtype));
}

vncl_status vncl__fft_c2r_pre_run(vncl_context *ctx, vncl_dtype dtype,
                                  size_t rows, size_t m, cl_mem x,
                                  const vncl__fft_entry *tw, cl_mem z) {
  vncl__kernel k;
  vncl_status s =
      vncl__fft_kget(ctx, dtype, "fft_layout.cl", 0, "fft_c2r_pre", &k);
  if (s) return s;
  cl_ulong m_ = m;
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 4, VNCL_ARG(m_), VNCL_ARG(x),
                     VNCL_ARG(tw->tables[0]), VNCL_ARG(z)),
      m, rows, 2.0 * 2 * rows * (2 * m + 1) * vncl_dtype_size(dtype));
}
