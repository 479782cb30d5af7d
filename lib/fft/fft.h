/*
 * Internal API between the FFT files of lib/:
 *   fft.c            public API: argument checks, plans, execution
 *   fft_cache.c      clFFT's lifetime (counted across contexts), the
 *                    per-context cache of baked clFFT plans, scratch memory,
 *                    clFFT status messages
 *   fft_bluestein.c  the steps of vncl's own kernels (cl_kernels/fft_*.cl):
 *                    Bluestein axes, strided axes, real <-> complex helpers
 */
#ifndef VNCL_FFT_INTERNAL_H
#define VNCL_FFT_INTERNAL_H

#include <clFFT.h>

#include "runtime/runtime.h"

/* A clFFT configuration: everything clfftBakePlan depends on. Lengths and
 * strides are clFFT's order, fastest dimension first; strides and distances
 * count elements (real or complex per layout). */
typedef struct vncl__fft_params {
  int dim;
  size_t len[3];
  clfftLayout in_layout, out_layout;
  size_t in_stride[3], out_stride[3];
  size_t in_dist, out_dist;
  clfftPrecision precision;
  size_t batch;
  bool in_place;
  float fwd_scale, bwd_scale;
} vncl__fft_params;

/* One cached item of a context: a baked clFFT plan, or the tables of one
 * length (Bluestein chirps, Stockham twiddles). Entries live until the
 * context goes, so plans may keep pointers to them. */
typedef struct vncl__fft_entry {
  struct vncl__fft_entry *next;
  char key[256];
  clfftPlanHandle plan; /* when has_plan */
  bool has_plan;
  size_t tmp_bytes;     /* clFFT's scratch need (clfftGetTmpBufSize) */
  /* Tables, by kind:
   *  chirp n:      [0] chirp[j] = exp(-i pi j^2 / n), j < n; [1] FFT_m of
   *                the chirp filter b (b[j] = conj(chirp[|j|]) for |j| < n,
   *                wrapped modulo m); m = the convolution length.
   *  twiddle n:    [0] tw[t] = exp(-2 pi i t / n), t < n.
   *  passes n:     [0] the twiddles of the Stockham passes of n, forward
   *                (n - 1 values and a 1), then the same conjugated.
   *  split n:      [0] lo[t] = exp(-2 pi i t / n), t < 2^shift;
   *                [1] hi[t] = exp(-2 pi i (t << shift) / n); m = shift;
   *                [2] rows of exp(-2 pi i l k / n), k = 0, 8, 16, ...
   *                up to sqrt(n), l < 16, as 16 real parts then 16
   *                imaginary ones (fft_stockham's four-step twiddle of
   *                consecutive lines every TW_EVERY outputs). */
  size_t n, m;
  cl_mem tables[3];
  size_t table_bytes[3];
} vncl__fft_entry;

/* Per-context FFT state, made on first use (ctx->fft). */
typedef struct vncl__fft_state {
  pthread_mutex_t lock;      /* entries and statistics; held while baking */
  pthread_mutex_t exec_lock; /* one execution's enqueues at a time, since
                                the scratch buffers are shared */
  vncl__fft_entry *entries;
  /* Scratch shared by all plans of the context, grown on demand (under
   * exec_lock): the full complex workspace of real transforms, the lines
   * of strided and Bluestein axes, clFFT's own temporary buffer, the middle
   * of a four-step split, and the Stockham kernels' per-work-item lines. */
  cl_mem scratch[6];
  size_t scratch_bytes[6];
  uint64_t bakes, hits, misses;
  double bake_seconds;
} vncl__fft_state;

/* FULL: the complex workspace of real transforms (full rows, or the rows of
 * m = n/2 values of the half-length path); HALF: the half spectrum of a
 * multi-dimensional C2R on the half-length path, after its outer axes. */
enum { VNCL__FFT_SCRATCH_FULL = 0, VNCL__FFT_SCRATCH_LINES = 1,
       VNCL__FFT_SCRATCH_CLFFT = 2, VNCL__FFT_SCRATCH_SPLIT = 3,
       VNCL__FFT_SCRATCH_STOCKHAM = 4, VNCL__FFT_SCRATCH_HALF = 5,
       VNCL__FFT_SCRATCH_SLOTS = 6 };

/* The context's FFT state, made (and clFFT set up) on first use. */
vncl_status vncl__fft_state_get(vncl_context *ctx, vncl__fft_state **out);
/* The context's FFT state, or NULL when it never ran an FFT. */
vncl__fft_state *vncl__fft_state_find(vncl_context *ctx);

/* Records clFFT status `st` from `what` as a vncl error and returns it:
 * OpenCL codes as vncl__cl_fail does, CLFFT_NOTIMPLEMENTED and
 * CLFFT_DEVICE_NO_DOUBLE as VNCL_ERR_UNSUPPORTED, the rest VNCL_ERR_OPENCL,
 * with clFFT's name for the code. */
vncl_status vncl__fft_fail(vncl_context *ctx, clfftStatus st,
                           const char *what);
const char *vncl__clfft_status_name(clfftStatus st);

/* The baked clFFT plan for `p`, from the cache or baked now (st->lock is
 * taken inside). When clFFT refuses the lengths (CLFFT_NOTIMPLEMENTED)
 * returns VNCL_ERR_UNSUPPORTED and *out stays NULL. */
vncl_status vncl__fft_plan_get(vncl_context *ctx, vncl__fft_state *st,
                               const vncl__fft_params *p,
                               vncl__fft_entry **out);

/* Enqueues a baked plan on the context's queue: in place when out is NULL,
 * with clFFT's scratch from the shared slot (exec_lock held). */
vncl_status vncl__fft_clfft_run(vncl_context *ctx, vncl__fft_state *st,
                                const vncl__fft_entry *e, clfftDirection dir,
                                cl_mem in, cl_mem out);

/* The Bluestein tables for length n with a convolution of length
 * m >= 2n - 1 in `dtype` (computed on the host in double, uploaded once). */
vncl_status vncl__fft_chirp_get(vncl_context *ctx, vncl__fft_state *st,
                                size_t n, size_t m, vncl_dtype dtype,
                                vncl__fft_entry **out);
/* The Rader tables of the prime p in `dtype`: [0] FFT_m of
 * b[q] = exp(-2 pi i g^-q / p), m = p - 1, g the smallest generator modulo
 * p; [1] 2m uints, perm[q] = g^q and perm[m + q] = g^-q (mod p). Computed
 * on the host in double, uploaded once. */
vncl_status vncl__fft_rader_get(vncl_context *ctx, vncl__fft_state *st,
                                size_t p, vncl_dtype dtype,
                                vncl__fft_entry **out);
/* The Stockham twiddles of length n (split: the two four-step tables). */
vncl_status vncl__fft_twiddle_get(vncl_context *ctx, vncl__fft_state *st,
                                  size_t n, vncl_dtype dtype, bool split,
                                  vncl__fft_entry **out);

/* The twiddles of the Stockham passes of length n, in the order the
 * kernel's passes read them, forward then conjugated (cached). */
vncl_status vncl__fft_pass_twiddles_get(vncl_context *ctx, vncl__fft_state *st,
                                        size_t n, vncl_dtype dtype,
                                        vncl__fft_entry **out);

/* Makes scratch slot `slot` at least `bytes` large; exec_lock held (or the
 * plan being made). *out may be NULL when bytes is 0. */
vncl_status vncl__fft_scratch(vncl_context *ctx, vncl__fft_state *st,
                              int slot, size_t bytes, cl_mem *out);

/* True when clFFT has a kernel for this length: every prime factor is one
 * of 2, 3, 5, 7, 11, 13. */
bool vncl__fft_clfft_length(size_t n);
/* The smallest power of two >= n. */
size_t vncl__fft_pow2_at_least(size_t n);

/* ---- per-device choices (fft_stockham.c) -------------------------------- */

/* What a device gets when a plan asks for VNCL_FFT_BACKEND_AUTO, and the
 * Stockham kernels' parameters: data from a table keyed by device type
 * (then a global fallback), not branches in the code. */
typedef struct vncl__fft_tuning {
  vncl_fft_backend backend; /* what AUTO means on this device */
  int vw32, vw64;           /* Stockham lines per work-item (vector width) */
  size_t nmax;              /* longest length done in one Stockham pass;
                               longer ones are split in two (four-step) */
  int wi_per_cu;            /* Stockham work-items per compute unit */
  size_t block_bytes;       /* split lengths of a batch: both steps run on
                               groups of whole transforms of at most this
                               many bytes, so the middle array stays in
                               cache (0: the whole batch at once) */
  size_t few_lines, few_min; /* a step of fewer than few_lines lines
                               (not a multiple of the vector width) of a
                               one-pass length of at least few_min is
                               split in two all the same: one pass gives a
                               group of lines a work-item of its own,
                               whatever its lanes hold (0: never) */
} vncl__fft_tuning;
void vncl__fft_tuning_for(const vncl_device_info *dev, vncl__fft_tuning *out);

/* ---- steps on vncl's kernels (fft_stockham.c, fft_bluestein.c,
 *      fft_layout.c) ------------------------------------------------------ */

/* Gets kernel `name` (runtime.h's handle) from `file` built for dtype
 * (-DPRECISION=32 or 64) and, for vw > 0, -DVW=vw (the Stockham kernels'
 * lines per work-item). */
vncl_status vncl__fft_kget(vncl_context *ctx, vncl_dtype dtype,
                           const char *file, int vw, const char *name,
                           vncl__kernel *out);
/* The build options of the FFT kernels for dtype and vw (0: none), as
 * vncl__fft_kget builds them; at most 40 characters. */
void vncl__fft_options(vncl_dtype dtype, int vw, char out[static 48]);
/* Launches k on a (d0, d1) range unless `args` (the status of setting its
 * arguments) is an error, and gives the kernel back either way. */
vncl_status vncl__fft_klaunch(vncl_context *ctx, vncl__kernel *k,
                              vncl_status args, size_t d0, size_t d1,
                              double bytes);
/* The same on a 1-D range with a work-group size (0: the driver's). */
vncl_status vncl__fft_klaunch1(vncl_context *ctx, vncl__kernel *k,
                               vncl_status args, size_t global, size_t local,
                               double flops, double bytes);
/* A `real` kernel argument (float or double by dtype) is runtime.h's
 * vncl__real_arg. */

/* An axis of a multi-dimensional array of complex values, seen as `lines`
 * = outer * inner lines of n elements: element j of line l sits at
 * (l / inner) * n * inner + j * inner + (l % inner). */
typedef struct vncl__fft_axis {
  size_t n, outer, inner;
} vncl__fft_axis;

/* A length on the Stockham kernels: n = n1 * n2, n2 = 1 when one pass does
 * it (n <= nmax), else the two steps of a four-step split with its
 * twiddles. */
typedef struct vncl__fft_stockham {
  size_t n, n1, n2;
  const vncl__fft_entry *tw1, *tw2, *split;
} vncl__fft_stockham;

/* The convolution length of the Bluestein path for length n: the
 * smallest m >= 2n - 1 of the form 2^a 3^b 5^c that the Stockham kernels
 * do (own) or clFFT does, else the power of two. */
size_t vncl__fft_bluestein_length(const vncl__fft_tuning *tn, size_t n,
                                  bool own);
/* True when length n runs by Rader's algorithm on the Stockham kernels:
 * n is a prime (above 13, else Stockham does it directly) below 2^32 and
 * the Stockham kernels do n - 1. */
bool vncl__fft_rader_length(const vncl__fft_tuning *tn, size_t n);
/* True when the Stockham kernels do length n: n >= 2, every prime factor
 * in {2, 3, 5, 7, 11, 13}, and n <= nmax or n = n1 n2 with
 * n1 <= n2 <= nmax. */
bool vncl__fft_stockham_length(const vncl__fft_tuning *tn, size_t n);
/* Real transforms (R2C, C2R) whose last length is n: m = n / 2 when they
 * run through one complex transform of length m (on vncl's kernels, `own`;
 * n even and the Stockham kernels do m, or n = 2), with the packing and
 * the split of fft_layout.cl around it; 0 when they run as a complex
 * transform of the full length n (odd n, clFFT, other lengths). */
size_t vncl__fft_real_half(const vncl__fft_tuning *tn, bool own, size_t n);
/* The radices of the Stockham passes of length n (smooth) in the order
 * passes_dir (fft_stockham.cl) takes them, into r; returns how many. */
int vncl__fft_pass_radices(size_t n, int *r);
/* Chooses one pass or the split for n (lines: the step's lines, for
 * tn->few_lines; 0 where the result also serves other kernels: Bluestein
 * and Rader) and fetches the twiddle tables (cached in the context). */
vncl_status vncl__fft_stockham_prepare(vncl_context *ctx, vncl__fft_state *st,
                                       vncl_dtype dtype,
                                       const vncl__fft_tuning *tn, size_t n,
                                       size_t lines, vncl__fft_stockham *out);
/* Scratch a run along `ax` needs: per-work-item lines (slot STOCKHAM) and,
 * for a split length, the middle array (slot SPLIT). */
void vncl__fft_stockham_scratch(const vncl__fft_tuning *tn,
                                const vncl_device_info *dev,
                                vncl_dtype dtype, const vncl__fft_stockham *p,
                                vncl__fft_axis ax, size_t *lines_bytes,
                                size_t *split_bytes);
/* DFT of every line of `ax` from src to dst (may be the same buffer),
 * sign -1 forward, +1 inverse, times scale. */
vncl_status vncl__fft_stockham_run(vncl_context *ctx, vncl__fft_state *st,
                                   vncl_dtype dtype,
                                   const vncl__fft_tuning *tn,
                                   const vncl__fft_stockham *p,
                                   vncl__fft_axis ax, int sign, double scale,
                                   cl_mem src, cl_mem dst);

/* R2C of even n = 2m on the half-length path: the (last) Stockham step
 * of the length-m transform and the split of the real spectrum in one
 * kernel (fft_stockham_r2c1 for one pass, fft_stockham_r2c after the first
 * step of a four-step split), so the half spectrum is never written to a
 * workspace. _fused: whether p (the length-m transform) runs this way;
 * _scratch: the per-work-item lines it needs (slot STOCKHAM) for the
 * ax.outer rows (in blocks as the runs take them; c2r: those of C2R's
 * fused kernels, below, instead); _run: rows
 * of m complex values (the n reals of each row) `xstride` complex values
 * apart in src (m out of place, h for the padded rows in place, src ==
 * dst then) to the rows of h = m + 1 outputs in dst, times scale; rtw the
 * twiddles of length n, rtw2 (a split m only, else unused) those of
 * length 2 n2 (W^(n1 k2) = rtw2[k2], contiguous where rtw's are n1
 * apart). */
bool vncl__fft_stockham_r2c_fused(const vncl__fft_tuning *tn,
                                  vncl_dtype dtype,
                                  const vncl__fft_stockham *p);
size_t vncl__fft_stockham_r2c_scratch(const vncl__fft_tuning *tn,
                                      const vncl_device_info *dev,
                                      vncl_dtype dtype,
                                      const vncl__fft_stockham *p,
                                      vncl__fft_axis ax, bool c2r);
vncl_status vncl__fft_stockham_r2c_run(vncl_context *ctx, vncl__fft_state *st,
                                       vncl_dtype dtype,
                                       const vncl__fft_tuning *tn,
                                       const vncl__fft_stockham *p,
                                       size_t rows, double scale,
                                       const vncl__fft_entry *rtw,
                                       const vncl__fft_entry *rtw2, cl_mem src,
                                       size_t xstride, cl_mem dst);

/* C2R of even n = 2m through the inverse FFT_m with fft_c2r_pre's
 * pre-processing inside it: m in one pass (p->n2 == 1), the
 * pre-processing, the inverse pass and the scale in one kernel
 * (fft_stockham_c2r1; scratch as vncl__fft_stockham_r2c_scratch); a split
 * m, the pre-processing in the gather of the first four-step step, lines
 * j2 and n2 - j2 together so each input value is loaded once
 * (fft_stockham_c2r2; scratch as vncl__fft_stockham_r2c_scratch with c2r
 * set), the second step as vncl__fft_stockham_run's. From rows
 * of h = m + 1 values (src) to rows of m complex values `ystride` complex
 * values apart (dst; m out of place, h for the padded rows in place, dst
 * == src then). rtw2 (a split m only): the twiddles of length 2 n1
 * (W^(n2 j1) = rtw2[j1]). */
vncl_status vncl__fft_stockham_c2r_run(vncl_context *ctx, vncl__fft_state *st,
                                       vncl_dtype dtype,
                                       const vncl__fft_tuning *tn,
                                       const vncl__fft_stockham *p,
                                       size_t rows, double scale,
                                       const vncl__fft_entry *rtw,
                                       const vncl__fft_entry *rtw2, cl_mem src,
                                       cl_mem dst, size_t ystride);

/* One forward (or, with conj set, inverse through conj(F(conj x))) DFT
 * along `ax` from src to dst (may be the same buffer) by Bluestein:
 * pre-multiply by the chirp into the lines scratch, FFT_M, multiply by the
 * filter, inverse FFT_M, post-multiply and scale. The length-M FFTs run on
 * the Stockham kernels when `mst` is given, else on `mplan`, the batched
 * in-place clFFT plan of length M over outer*inner lines, unscaled. */
vncl_status vncl__fft_bluestein_run(vncl_context *ctx, vncl__fft_state *st,
                                    vncl_dtype dtype, vncl__fft_axis ax,
                                    const vncl__fft_entry *chirp,
                                    const vncl__fft_entry *mplan,
                                    const vncl__fft_stockham *mst,
                                    const vncl__fft_tuning *tn, bool conj,
                                    double scale, cl_mem src, cl_mem dst);

/* The same by Rader's algorithm for a prime n (chirp: the Rader tables of
 * vncl__fft_rader_get): permute into the lines scratch, FFT_m on the
 * Stockham kernels (`mst`, m = n - 1), multiply by the filter, inverse
 * FFT_m, add x[0] and permute back, scaled. */
vncl_status vncl__fft_rader_run(vncl_context *ctx, vncl__fft_state *st,
                                vncl_dtype dtype, vncl__fft_axis ax,
                                const vncl__fft_entry *rader,
                                const vncl__fft_stockham *mst,
                                const vncl__fft_tuning *tn, bool conj,
                                double scale, cl_mem src, cl_mem dst);

/* A DFT along a strided axis with a clFFT plan of length n over the lines
 * (`lplan`, batched, in place): gather the lines into the lines scratch,
 * transform, scatter back scaled. */
vncl_status vncl__fft_lines_run(vncl_context *ctx, vncl__fft_state *st,
                                vncl_dtype dtype, vncl__fft_axis ax,
                                const vncl__fft_entry *lplan,
                                clfftDirection dir, double scale, cl_mem src,
                                cl_mem dst);

/* x[0..count) *= scale over `count` real values. */
vncl_status vncl__fft_scale_run(vncl_context *ctx, vncl_dtype dtype,
                                size_t count, double scale, cl_mem x);

/* Real rows (n2 values each, `rstride` apart) to complex rows of n2 with
 * zero imaginary parts. */
vncl_status vncl__fft_real_to_full_run(vncl_context *ctx, vncl_dtype dtype,
                                       size_t rows, size_t n2, size_t rstride,
                                       cl_mem src, cl_mem full);
/* The first h values of each complex row of n2, scaled. */
vncl_status vncl__fft_full_to_half_run(vncl_context *ctx, vncl_dtype dtype,
                                       size_t rows, size_t n2, size_t h,
                                       double scale, cl_mem full, cl_mem dst);
/* The full spectrum of a real signal of lengths (batch, n0, n1, n2) from
 * its Hermitian half (last dimension h), by conjugate symmetry. */
vncl_status vncl__fft_half_to_full_run(vncl_context *ctx, vncl_dtype dtype,
                                       size_t batch, size_t n0, size_t n1,
                                       size_t n2, size_t h, cl_mem half,
                                       cl_mem full);
/* Real parts of complex rows of n2, scaled, into real rows `rstride` apart. */
vncl_status vncl__fft_full_to_real_run(vncl_context *ctx, vncl_dtype dtype,
                                       size_t rows, size_t n2, size_t rstride,
                                       double scale, cl_mem full, cl_mem dst);

/* Real rows of n values `sstride` apart to rows `dstride` apart, scaled. */
vncl_status vncl__fft_real_rows_run(vncl_context *ctx, vncl_dtype dtype,
                                    size_t rows, size_t n, size_t sstride,
                                    size_t dstride, double scale, cl_mem src,
                                    cl_mem dst);
/* R2C of even n = 2m, after the length-m complex FFT of each row's n reals
 * seen as m complex values (z: rows of m): the h = m + 1 outputs of each
 * row into y (rows of h), scaled; tw: the twiddles of length n. */
vncl_status vncl__fft_r2c_post_run(vncl_context *ctx, vncl_dtype dtype,
                                   size_t rows, size_t m, double scale,
                                   cl_mem z, const vncl__fft_entry *tw,
                                   cl_mem y);
/* C2R of even n = 2m, before the inverse length-m complex FFT: rows of h
 * values (x) to rows of m (z) whose unnormalized inverse FFT is the row's
 * n reals seen as m complex values; tw: the twiddles of length n. */
vncl_status vncl__fft_c2r_pre_run(vncl_context *ctx, vncl_dtype dtype,
                                  size_t rows, size_t m, cl_mem x,
                                  const vncl__fft_entry *tw, cl_mem z);

/* Destroys the context's cached FFT plans and scratch, and tears clFFT
 * down after the last context that used it (fft_cache.c): the context's
 * release hook, registered with the FFT state. */
void vncl__fft_release(vncl_context *ctx);

#endif
