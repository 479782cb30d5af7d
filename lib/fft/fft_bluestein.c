/* The convolution paths for lengths with a prime factor above 13. Rader
 * (vncl__fft_rader_run, at the end): a prime p as a cyclic convolution of
 * length p - 1 on the Stockham kernels, when they do p - 1. Bluestein
 * (chirp-z): a DFT of any length along any axis, with
 * the kernels of cl_kernels/fft_bluestein.cl around a convolution of
 * 5-smooth length m >= 2n - 1 (vncl__fft_bluestein_length) done by the
 * Stockham kernels or clFFT. Enqueues only, with st->exec_lock held by the
 * caller (the lines scratch is shared). */
#include "fft/fft.h"

/* The Bluestein and Rader kernels' first range dimension for n elements
 * of a line: EB = 8 elements a work-item (fft_bluestein.cl), rounded up to
 * a multiple of 8 work-items (a range of a prime n, as Bluestein's post
 * and Rader's post had, left PoCL work-groups of one work-item). */
static size_t bs_range(size_t n) { return ((n + 7) / 8 + 7) / 8 * 8; }

vncl_status vncl__fft_bluestein_run(vncl_context *ctx, vncl__fft_state *st,
                                    vncl_dtype dtype, vncl__fft_axis ax,
                                    const vncl__fft_entry *chirp,
                                    const vncl__fft_entry *mplan,
                                    const vncl__fft_stockham *mst,
                                    const vncl__fft_tuning *tn, bool conj,
                                    double scale, cl_mem src, cl_mem dst) {
  size_t esize = 2 * vncl_dtype_size(dtype);
  size_t lines = ax.outer * ax.inner, m = chirp->m;
  cl_mem s_buf = NULL;
  vncl_status s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_LINES,
                                    lines * m * esize, &s_buf);
  if (s) return s;
  cl_ulong n_ = ax.n, m_ = m, inner_ = ax.inner;
  cl_int conj_ = conj;
  vncl__kernel k;
  if ((s = vncl__fft_kget(ctx, dtype, "fft_bluestein.cl", 0, "fft_bs_pre",
                          &k)))
    return s;
  s = vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 7, VNCL_ARG(n_), VNCL_ARG(m_), VNCL_ARG(inner_),
                     VNCL_ARG(conj_), VNCL_ARG(src), VNCL_ARG(chirp->tables[0]),
                     VNCL_ARG(s_buf)),
      bs_range(m), lines, (double)lines * (ax.n + m) * esize);
  if (s) return s;
  /* The convolution's lines: contiguous, length m. */
  vncl__fft_axis conv = {m, lines, 1};
  if (mst)
    s = vncl__fft_stockham_run(ctx, st, dtype, tn, mst, conv, -1, 1.0, s_buf,
                               s_buf);
  else
    s = vncl__fft_clfft_run(ctx, st, mplan, CLFFT_FORWARD, s_buf, NULL);
  if (s) return s;
  if ((s = vncl__fft_kget(ctx, dtype, "fft_bluestein.cl", 0, "fft_bs_mul",
                          &k)))
    return s;
  s = vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 3, VNCL_ARG(m_), VNCL_ARG(s_buf),
                     VNCL_ARG(chirp->tables[1])),
      bs_range(m), lines, 2.0 * lines * m * esize);
  if (s) return s;
  if (mst)
    s = vncl__fft_stockham_run(ctx, st, dtype, tn, mst, conv, 1,
                               1.0 / (double)m, s_buf, s_buf);
  else /* unscaled (clFFT takes a float scale): 1/m in the post-multiply */
    s = vncl__fft_clfft_run(ctx, st, mplan, CLFFT_BACKWARD, s_buf, NULL);
  if (s) return s;
  if ((s = vncl__fft_kget(ctx, dtype, "fft_bluestein.cl", 0, "fft_bs_post",
                          &k)))
    return s;
  vncl__targ sc = vncl__real_arg(dtype, mst ? scale : scale / (double)m);
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 8, VNCL_ARG(n_), VNCL_ARG(m_), VNCL_ARG(inner_),
                     VNCL_ARG(conj_), VNCL_TARG(sc), VNCL_ARG(s_buf),
                     VNCL_ARG(chirp->tables[0]), VNCL_ARG(dst)),
      bs_range(ax.n), lines, 2.0 * lines * ax.n * esize);
}

vncl_status vncl__fft_rader_run(vncl_context *ctx, vncl__fft_state *st,
                                vncl_dtype dtype, vncl__fft_axis ax,
                                const vncl__fft_entry *rader,
                                const vncl__fft_stockham *mst,
                                const vncl__fft_tuning *tn, bool conj,
                                double scale, cl_mem src, cl_mem dst) {
  size_t esize = 2 * vncl_dtype_size(dtype);
  size_t lines = ax.outer * ax.inner, m = rader->m;
  cl_mem s_buf = NULL;
  vncl_status s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_LINES,
                                    lines * (m + 2) * esize, &s_buf);
  if (s) return s;
  cl_ulong n_ = ax.n, m_ = m, inner_ = ax.inner, dco = lines * m;
  cl_int conj_ = conj;
  vncl__kernel k;
  if ((s = vncl__fft_kget(ctx, dtype, "fft_bluestein.cl", 0, "fft_rd_pre",
                          &k)))
    return s;
  s = vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 8, VNCL_ARG(n_), VNCL_ARG(m_), VNCL_ARG(inner_),
                     VNCL_ARG(conj_), VNCL_ARG(src), VNCL_ARG(rader->tables[1]),
                     VNCL_ARG(s_buf), VNCL_ARG(dco)),
      bs_range(m), lines, 2.0 * lines * m * esize);
  if (s) return s;
  vncl__fft_axis conv = {m, lines, 1};
  s = vncl__fft_stockham_run(ctx, st, dtype, tn, mst, conv, -1, 1.0, s_buf,
                             s_buf);
  if (s) return s;
  if ((s = vncl__fft_kget(ctx, dtype, "fft_bluestein.cl", 0, "fft_rd_mul",
                          &k)))
    return s;
  s = vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 4, VNCL_ARG(m_), VNCL_ARG(s_buf),
                     VNCL_ARG(rader->tables[0]), VNCL_ARG(dco)),
      bs_range(m), lines, 3.0 * lines * m * esize);
  if (s) return s;
  s = vncl__fft_stockham_run(ctx, st, dtype, tn, mst, conv, 1,
                             1.0 / (double)m, s_buf, s_buf);
  if (s) return s;
  if ((s = vncl__fft_kget(ctx, dtype, "fft_bluestein.cl", 0, "fft_rd_post",
                          &k)))
    return s;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  return vncl__fft_klaunch(
      ctx, &k,
      vncl__set_args(ctx, k.k, 9, VNCL_ARG(n_), VNCL_ARG(m_), VNCL_ARG(inner_),
                     VNCL_ARG(conj_), VNCL_TARG(sc), VNCL_ARG(s_buf),
                     VNCL_ARG(rader->tables[1]), VNCL_ARG(dco), VNCL_ARG(dst)),
      bs_range(m), lines, 2.0 * lines * n_ * esize);
}
