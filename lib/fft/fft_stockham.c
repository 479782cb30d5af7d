/* vncl's own FFT kernels (cl_kernels/fft_stockham.cl): lengths
 * 2^a 3^b 5^c 7^d 11^e 13^f along the lines of any axis, VW lines per
 * work-item with the lines in the lanes of a vector, and the two-step (four-step) split of
 * lengths longer than one pass should take. Also the per-device table that
 * decides when these kernels run instead of clFFT. Enqueues only, with
 * st->exec_lock held by the caller (the scratch is shared). */
#include "fft/fft.h"

/* Per-device defaults, rows picked by the device-rule matcher: a device
 * type, then the global fallback (any device). CPU devices: the Stockham kernels measured 3 to 6
 * times faster than clFFT under PoCL (docs/fft.md). GPUs: these kernels
 * too, because they are race-free under Oclgrind's detector while clFFT's
 * multi-pass in-place kernels read and write the same global memory across
 * work-items separated only by local-memory barriers, a data race under
 * the OpenCL memory model (docs/fft.md has the evidence). They are
 * CPU-shaped and not measured on a GPU yet: slow there is expected;
 * VNCL_FFT_BACKEND=clfft chooses clFFT. Other devices: clFFT.
 * few_lines 8, few_min 1024 on CPUs: one pass gives each group of 8 lines a
 * work-item, so 1 to 7 lines cost what 8 do, on one core; split in two
 * they spread over lanes and cores. Model-207 Xeon, 2026-12-02, queued
 * calls, medians of 15: one line of 4096 117 -> 26 us, of 2048 63 -> 26,
 * of 1024 31 -> 27; 2 x 4096 123 -> 45, 4 x 4096 170 -> 74, 2 x 1024 40 ->
 * 20, 4 x 1024 48 -> 36; but 8 x 4096 112 -> 124, 8 x 1024 31 -> 56, and
 * one line of 256 or 512 16-18 -> 27-30 (docs/fft.md, ninth round).
 * AMD CPUs: few_lines 16, few_min 256. On the Zen 4 EPYC, where a launch
 * costs PoCL a third of what it did on the Xeon (a queued 64-point
 * transform 3.2-3.7 us against 10.8-12.9), the split's second launch
 * costs less than the lanes and core one pass leaves idle, down to 512
 * and for 9 to 15 lines too (lines that fill whole groups stay in one
 * pass): queued C2C, medians of three alternated runs, one line of 512
 * 11.4 -> 6.5 us, 3 x 1000 29.2 -> 10.6, 5 x 768 23.0 -> 13.8, 12 x 1024
 * 46.5 -> 31.0, 15 x 4096 158.5 -> 95.5, R2C of one row of 1024 14.8 ->
 * 9.5; 256 and below no different; 8 x 1024 in one pass 19.4 against
 * 24.5 split (docs/fft.md, eleventh round). */
static const struct {
  vncl__device_rule rule; /* the device-rule matcher (runtime.h) */
  vncl__fft_tuning t;
} fft_table[] = {
    {{"AuthenticAMD", VNCL_DEVICE_CPU, VNCL__RULE_ANY, 0, VNCL__RULE_ANY,
      VNCL__RULE_ANY, 0},
     {VNCL_FFT_BACKEND_VNCL, 8, 8, 4096, 4, (size_t)1 << 20, 16, 256}},
    {{NULL, VNCL_DEVICE_CPU, VNCL__RULE_ANY, 0, VNCL__RULE_ANY, VNCL__RULE_ANY,
      0},
     {VNCL_FFT_BACKEND_VNCL, 8, 8, 4096, 4, (size_t)1 << 20, 8, 1024}},
    {{NULL, VNCL_DEVICE_GPU, VNCL__RULE_ANY, 0, VNCL__RULE_ANY, VNCL__RULE_ANY,
      0},
     {VNCL_FFT_BACKEND_VNCL, 8, 8, 4096, 4, 0, 0, 0}},
    {{NULL, 0, VNCL__RULE_ANY, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, 0},
     {VNCL_FFT_BACKEND_CLFFT, 8, 8, 4096, 4, 0, 0, 0}},
};

void vncl__fft_tuning_for(const vncl_device_info *dev, vncl__fft_tuning *out) {
  size_t n = sizeof fft_table / sizeof *fft_table;
  vncl__device_key k;
  vncl__device_key_of(dev, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, &k);
  int i = vncl__rule_pick(fft_table, n, sizeof *fft_table, &k, -1);
  *out = fft_table[i >= 0 ? (size_t)i : n - 1].t;
}

/* n = 2^a 3^b 5^c 7^d 11^e 13^f, the radices the kernel has (4 and 2 for
 * the powers of two). */
static bool smooth(size_t n) {
  static const size_t r[] = {2, 3, 5, 7, 11, 13};
  if (n == 0) return false;
  for (int i = 0; i < 6; i++)
    while (n % r[i] == 0) n /= r[i];
  return n == 1;
}

/* The first factor of the split of n: the largest divisor n1 <= sqrt(n)
 * (so n1 <= n2), or 1 when n fits one pass. 0 when no split fits. A step
 * of `lines` lines (0: any) of vw lanes a work-item is split all the same
 * when one pass would leave lanes idle (lines not a multiple of vw) in
 * fewer than few_lines lines of at least few_min. */
static size_t split_of(const vncl__fft_tuning *tn, size_t n, size_t lines,
                       size_t vw) {
  bool few = lines && lines < tn->few_lines && lines % vw != 0 &&
             n >= tn->few_min;
  if (n <= tn->nmax && !few) return 1;
  size_t n1 = 1;
  while ((n1 + 1) * (n1 + 1) <= n) n1++;
  for (; n1 > 1; n1--)
    if (n % n1 == 0) break;
  if (n1 > 1 && n / n1 <= tn->nmax) return n1;
  return n <= tn->nmax ? 1 : 0;
}

int vncl__fft_pass_radices(size_t n, int *r) {
  /* passes_dir's order (RADIX8 and RADIX10 on): 8s, 10s (not for 4 x 5
   * without a second 5), 4s, 2s, then 3, 5, 7, 11, 13. */
  static const int odd[] = {3, 5, 7, 11, 13};
  int c = 0;
  size_t rest = n;
  while (rest % 8 == 0) rest /= (size_t)(r[c++] = 8);
  while (rest % 10 == 0 && (rest % 4 != 0 || rest % 25 == 0))
    rest /= (size_t)(r[c++] = 10);
  while (rest % 4 == 0) rest /= (size_t)(r[c++] = 4);
  while (rest % 2 == 0) rest /= (size_t)(r[c++] = 2);
  for (int i = 0; i < 5; i++)
    while (rest % (size_t)odd[i] == 0) rest /= (size_t)(r[c++] = odd[i]);
  return c;
}

bool vncl__fft_stockham_length(const vncl__fft_tuning *tn, size_t n) {
  return n >= 2 && smooth(n) && split_of(tn, n, 0, 1) != 0;
}

size_t vncl__fft_real_half(const vncl__fft_tuning *tn, bool own, size_t n) {
  if (!own || n % 2 != 0) return 0;
  return n == 2 || vncl__fft_stockham_length(tn, n / 2) ? n / 2 : 0;
}

size_t vncl__fft_bluestein_length(const vncl__fft_tuning *tn, size_t n,
                                  bool own) {
  size_t need = 2 * n - 1, best = vncl__fft_pow2_at_least(need);
  /* Every 2^a 3^b 5^c in [need, best): a 5-smooth length costs about what
   * a power of two of the same size costs on these kernels and on clFFT,
   * and the nearest one is at most a few percent above need (the power
   * of two up to twice). */
  for (size_t p5 = 1; p5 < best; p5 *= 5)
    for (size_t p3 = p5; p3 < best; p3 *= 3)
      for (size_t m = p3; m < best; m *= 2)
        if (m >= need && (!own || vncl__fft_stockham_length(tn, m))) {
          best = m;
          break;
        }
  return best;
}

bool vncl__fft_rader_length(const vncl__fft_tuning *tn, size_t n) {
  if (n <= 13 || n >= ((size_t)1 << 32) || n % 2 == 0) return false;
  for (size_t d = 3; d * d <= n; d += 2)
    if (n % d == 0) return false;
  return vncl__fft_stockham_length(tn, n - 1);
}

static int vw_of(const vncl__fft_tuning *tn, vncl_dtype dtype) {
  return dtype == VNCL_F64 ? tn->vw64 : tn->vw32;
}

vncl_status vncl__fft_stockham_prepare(vncl_context *ctx, vncl__fft_state *st,
                                       vncl_dtype dtype,
                                       const vncl__fft_tuning *tn, size_t n,
                                       size_t lines, vncl__fft_stockham *out) {
  out->n = n;
  out->n1 = n;
  out->n2 = 1;
  out->tw1 = out->tw2 = out->split = NULL;
  size_t n1 = split_of(tn, n, lines, (size_t)vw_of(tn, dtype));
  if (n1 > 1) {
    out->n1 = n1;
    out->n2 = n / n1;
  }
  vncl__fft_entry *tw1 = NULL, *tw2 = NULL, *split = NULL;
  vncl_status s = vncl__fft_pass_twiddles_get(ctx, st, out->n1, dtype, &tw1);
  if (!s && out->n2 > 1)
    s = vncl__fft_pass_twiddles_get(ctx, st, out->n2, dtype, &tw2);
  if (!s && out->n2 > 1)
    s = vncl__fft_twiddle_get(ctx, st, n, dtype, true, &split);
  out->tw1 = tw1;
  out->tw2 = tw2;
  out->split = split;
  return s;
}

/* Work-items for `lines` lines of length n. */
static size_t work_items(const vncl__fft_tuning *tn,
                         const vncl_device_info *dev, vncl_dtype dtype,
                         size_t lines) {
  size_t vw = (size_t)vw_of(tn, dtype);
  size_t groups = (lines + vw - 1) / vw;
  size_t cap = (size_t)(dev->compute_units ? dev->compute_units : 1) *
               (size_t)tn->wi_per_cu;
  return groups < cap ? groups : cap;
}

/* Transforms (units of `outer`) per run of both steps of a split length:
 * as many whole transforms as fit tn->block_bytes (at least one), or all
 * of them (one pass, no block size, or a batch that fits anyway). */
static size_t outer_block(const vncl__fft_tuning *tn, vncl_dtype dtype,
                          const vncl__fft_stockham *p, vncl__fft_axis ax) {
  if (p->n2 == 1 || tn->block_bytes == 0) return ax.outer;
  size_t one = p->n * ax.inner * 2 * vncl_dtype_size(dtype);
  size_t b = tn->block_bytes / one;
  if (b < 1) b = 1;
  return b < ax.outer ? b : ax.outer;
}

void vncl__fft_stockham_scratch(const vncl__fft_tuning *tn,
                                const vncl_device_info *dev, vncl_dtype dtype,
                                const vncl__fft_stockham *p, vncl__fft_axis ax,
                                size_t *lines_bytes, size_t *split_bytes) {
  size_t esize = vncl_dtype_size(dtype), vw = (size_t)vw_of(tn, dtype);
  size_t lines = ax.outer * ax.inner;
  size_t longest = p->n1 > p->n2 ? p->n1 : p->n2;
  /* The step with the most work-items and the longest lines bounds it. */
  size_t wi = work_items(tn, dev, dtype, lines * (p->n2 > 1 ? p->n2 : 1));
  *lines_bytes = wi * 4 * longest * vw * esize;
  *split_bytes = p->n2 > 1 ? outer_block(tn, dtype, p, ax) * ax.inner * p->n *
                                 2 * esize
                           : 0;
}

/* Line geometry of one kernel run (see the kernel's comment). */
typedef struct geom {
  size_t lines, mid, inner;
  size_t xo, xm, xi, xj, yo, ym, yi, yj;
  size_t x0, y0; /* complex elements before the first line in x and y */
} geom;

static vncl_status pass(vncl_context *ctx, vncl__fft_state *st,
                        vncl_dtype dtype, const vncl__fft_tuning *tn, size_t n,
                        const vncl__fft_entry *tw, const vncl__fft_entry *split,
                        size_t twn, int sign, double scale, const geom *g,
                        const vncl__fft_entry *pre, cl_mem x, cl_mem y) {
  size_t esize = vncl_dtype_size(dtype), vw = (size_t)vw_of(tn, dtype);
  size_t wi = work_items(tn, &ctx->info, dtype, g->lines);
  cl_mem scr = NULL;
  vncl_status s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_STOCKHAM,
                                    wi * 4 * n * vw * esize, &scr);
  if (s) return s;
  vncl__kernel k;
  if ((s = vncl__fft_kget(ctx, dtype, "fft_stockham.cl", (int)vw,
                          "fft_stockham", &k)))
    return s;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  cl_uint shift = split ? (cl_uint)split->m : 0;
  /* Tables a run does not read are NULL arguments (allowed for __global
   * pointers): PoCL allocates and copies every buffer argument of every
   * launch. */
  cl_mem lo = split ? split->tables[0] : NULL;
  cl_mem hi = split ? split->tables[1] : NULL;
  /* pre: the C2R pre-processing in the gather, rows of prem + 1 values in
   * x (pre is the twiddle table of 2 prem). */
  cl_mem rtw = pre ? pre->tables[0] : NULL;
  cl_mem twv = split ? split->tables[2] : NULL;
  /* The kernel's gm (its comment): n, twshift and the sign's bit, then the
   * geometry, the split's length, x0, y0 and prem. */
  cl_ulong16 gm;
  gm.s[0] = (cl_ulong)n | (cl_ulong)shift << 32 |
            (cl_ulong)(sign < 0 ? 1 : 0) << 40;
  const size_t rest[15] = {g->lines, g->mid, g->inner, g->xo, g->xm,
                           g->xi,    g->xj,  g->yo,    g->ym, g->yi,
                           g->yj,    twn,    g->x0,    g->y0, pre ? pre->n / 2 : 0};
  for (int i = 0; i < 15; i++) gm.s[i + 1] = rest[i];
  s = vncl__set_args(ctx, k.k, 10, VNCL_TARG(sc), VNCL_ARG(gm), VNCL_ARG(x),
                     VNCL_ARG(y), VNCL_ARG(scr), VNCL_ARG(tw->tables[0]),
                     VNCL_ARG(lo), VNCL_ARG(hi), VNCL_ARG(rtw), VNCL_ARG(twv));
  size_t lg = 0;
  while (((size_t)1 << lg) < n) lg++;
  double flops = 5.0 * (double)n * (double)lg * (double)g->lines;
  return vncl__fft_klaunch1(ctx, &k, s, wi, 1, flops,
                            4.0 * (double)g->lines * n * esize);
}

/* Contiguous lines of n = 2, 4, 8 or 16 (a batch of short transforms along
 * the last axis): fft_stockham_short (64 values per block) and
 * fft_stockham_short16 (8 lines per group) do them in registers, with no
 * scratch, where fft_stockham would take groups of lines through its
 * scratch. */
static bool short_length(const vncl__fft_tuning *tn, vncl_dtype dtype,
                         size_t n, size_t inner) {
  return (n == 2 || n == 4 || n == 8 || n == 16) && inner == 1 &&
         vw_of(tn, dtype) == 8;
}

static vncl_status short_run(vncl_context *ctx, vncl_dtype dtype,
                             const vncl__fft_tuning *tn, size_t n,
                             size_t lines, int sign, double scale, cl_mem x,
                             cl_mem y) {
  size_t esize = vncl_dtype_size(dtype);
  /* Blocks of 64 values, as many work-items as groups of 8 such blocks
   * would be lines of the main kernel (at most its cap). */
  size_t blocks = (lines * n + 63) / 64;
  size_t wi = work_items(tn, &ctx->info, dtype, blocks);
  vncl__kernel k;
  bool n16 = n == 16;
  vncl_status s = vncl__fft_kget(
      ctx, dtype, "fft_stockham.cl", 8,
      n16 ? "fft_stockham_short16" : "fft_stockham_short", &k);
  if (s) return s;
  cl_uint n_ = (cl_uint)n;
  cl_int sign_ = sign;
  cl_ulong lines_ = lines;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  if (n16)
    s = vncl__set_args(ctx, k.k, 5, VNCL_ARG(sign_), VNCL_TARG(sc),
                       VNCL_ARG(lines_), VNCL_ARG(x), VNCL_ARG(y));
  else
    s = vncl__set_args(ctx, k.k, 6, VNCL_ARG(n_), VNCL_ARG(sign_),
                       VNCL_TARG(sc), VNCL_ARG(lines_), VNCL_ARG(x),
                       VNCL_ARG(y));
  size_t lg = 0;
  while (((size_t)1 << lg) < n) lg++;
  return vncl__fft_klaunch1(ctx, &k, s, wi, 1,
                            5.0 * (double)n * (double)lg * (double)lines,
                            4.0 * (double)lines * (double)n * esize);
}

vncl_status vncl__fft_stockham_run(vncl_context *ctx, vncl__fft_state *st,
                                   vncl_dtype dtype, const vncl__fft_tuning *tn,
                                   const vncl__fft_stockham *p,
                                   vncl__fft_axis ax, int sign, double scale,
                                   cl_mem src, cl_mem dst) {
  size_t n = p->n, inner = ax.inner;
  if (short_length(tn, dtype, n, inner))
    return short_run(ctx, dtype, tn, n, ax.outer, sign, scale, src, dst);
  if (p->n2 == 1) {
    geom g = {ax.outer * inner, 1, inner, n * inner, 0, 1, inner,
              n * inner,        0, 1,     inner, 0, 0};
    return pass(ctx, st, dtype, tn, n, p->tw1, NULL, 0, sign, scale, &g, NULL,
                src, dst);
  }
  /* Four-step: j = n2 j1 + j2. Step 1, a DFT over j1 for every (o, j2, i)
   * into the middle array, times exp(sign 2 pi i j2 k1 / n); step 2, a DFT
   * over j2 for every (o, k1, i), written to k = k1 + n1 k2. A batch runs
   * in blocks of whole transforms (outer_block), both steps per block, so
   * that the block's middle array is still in cache when step 2 reads it;
   * every block uses the start of the middle array. A block reads all of
   * its input in step 1 before step 2 writes its output, so in place
   * works block by block. */
  size_t n1 = p->n1, n2 = p->n2, esize = vncl_dtype_size(dtype);
  size_t blk = outer_block(tn, dtype, p, ax);
  cl_mem mid = NULL;
  vncl_status s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_SPLIT,
                                    blk * inner * n * 2 * esize, &mid);
  for (size_t o0 = 0; !s && o0 < ax.outer; o0 += blk) {
    size_t no = ax.outer - o0 < blk ? ax.outer - o0 : blk;
    size_t off = o0 * n * inner; /* complex elements before the block */
    geom g1 = {no * n2 * inner, n2, inner, n * inner, inner, 1, n2 * inner,
               n * inner, inner, 1, n2 * inner, off, 0};
    s = pass(ctx, st, dtype, tn, n1, p->tw1, p->split, n, sign, 1.0, &g1,
             NULL, src, mid);
    geom g2 = {no * n1 * inner, n1, inner, n * inner, n2 * inner, 1, inner,
               n * inner, inner, 1, n1 * inner, 0, off};
    if (!s)
      s = pass(ctx, st, dtype, tn, n2, p->tw2, NULL, 0, sign, scale, &g2, NULL,
               mid, dst);
  }
  return s;
}

/* ---- R2C with the split fused into the second step ---------------------- */

/* Work-items of fft_stockham_r2c: twice the main kernel's (each has two
 * groups of lines, and PoCL hands work-groups to its threads one by one,
 * so more of them balance a pass with few pairs, as 33 for 2^20). */
static size_t r2c_work_items(const vncl__fft_tuning *tn,
                             const vncl_device_info *dev, size_t pairs) {
  size_t cap = 2 * (size_t)(dev->compute_units ? dev->compute_units : 1) *
               (size_t)tn->wi_per_cu;
  return pairs < cap ? pairs : cap;
}

static size_t r2c_pairs(const vncl__fft_tuning *tn, vncl_dtype dtype,
                        const vncl__fft_stockham *p) {
  size_t vw = (size_t)vw_of(tn, dtype);
  return (p->n1 / 2 + vw) / vw;
}

bool vncl__fft_stockham_r2c_fused(const vncl__fft_tuning *tn,
                                  vncl_dtype dtype,
                                  const vncl__fft_stockham *p) {
  int vw = vw_of(tn, dtype);
  /* fft_stockham_c2r2 needs a split's n2 >= 2 VW - 1 (a split m has
   * n2 >= 65, so this holds for every vector width the kernels take). */
  if (p->n2 > 1 && p->n2 + 1 < 2 * (size_t)vw) return false;
  return vw == 2 || vw == 4 || vw == 8 || vw == 16;
}

/* fft_stockham_c2r2: pairs of line groups (j2, n2 - j2) per row, and
 * work-items for them (as the main kernel's, so that its scratch of two
 * groups of lines of n1 stays within twice the C2C's). */
static size_t c2r_pairs(const vncl__fft_tuning *tn, vncl_dtype dtype,
                        const vncl__fft_stockham *p) {
  size_t vw = (size_t)vw_of(tn, dtype);
  return (p->n2 / 2 + vw) / vw;
}

static size_t c2r_work_items(const vncl__fft_tuning *tn,
                             const vncl_device_info *dev, size_t pairs) {
  size_t cap = (size_t)(dev->compute_units ? dev->compute_units : 1) *
               (size_t)tn->wi_per_cu;
  return pairs < cap ? pairs : cap;
}

size_t vncl__fft_stockham_r2c_scratch(const vncl__fft_tuning *tn,
                                      const vncl_device_info *dev,
                                      vncl_dtype dtype,
                                      const vncl__fft_stockham *p,
                                      vncl__fft_axis ax, bool c2r) {
  size_t vw = (size_t)vw_of(tn, dtype), rows = ax.outer;
  if (p->n2 == 1)
    return work_items(tn, dev, dtype, rows) * 4 * p->n * vw *
           vncl_dtype_size(dtype);
  /* The rows of one block run at a time. */
  size_t blk = outer_block(tn, dtype, p, ax);
  if (c2r)
    return c2r_work_items(tn, dev, blk * c2r_pairs(tn, dtype, p)) * 8 *
           p->n1 * vw * vncl_dtype_size(dtype);
  size_t wi = r2c_work_items(tn, dev, blk * r2c_pairs(tn, dtype, p));
  return wi * 8 * p->n2 * vw * vncl_dtype_size(dtype);
}

vncl_status vncl__fft_stockham_r2c_run(vncl_context *ctx, vncl__fft_state *st,
                                       vncl_dtype dtype,
                                       const vncl__fft_tuning *tn,
                                       const vncl__fft_stockham *p,
                                       size_t rows, double scale,
                                       const vncl__fft_entry *rtw,
                                       const vncl__fft_entry *rtw2, cl_mem src,
                                       size_t xstride, cl_mem dst) {
  size_t m = p->n, n1 = p->n1, n2 = p->n2, esize = vncl_dtype_size(dtype);
  size_t vw = (size_t)vw_of(tn, dtype);
  if (n2 == 1) {
    /* One pass: the rows in the lanes, the split in the scratch. */
    size_t wi = work_items(tn, &ctx->info, dtype, rows);
    cl_mem scr = NULL;
    vncl_status s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_STOCKHAM,
                                      wi * 4 * m * vw * esize, &scr);
    vncl__kernel k;
    if (!s)
      s = vncl__fft_kget(ctx, dtype, "fft_stockham.cl", (int)vw,
                         "fft_stockham_r2c1", &k);
    if (s) return s;
    cl_uint m_ = (cl_uint)m;
    cl_ulong rows_ = rows, xs = xstride;
    vncl__targ sc = vncl__real_arg(dtype, scale);
    s = vncl__set_args(ctx, k.k, 9, VNCL_ARG(m_), VNCL_TARG(sc),
                       VNCL_ARG(rows_), VNCL_ARG(src), VNCL_ARG(xs),
                       VNCL_ARG(dst), VNCL_ARG(scr),
                       VNCL_ARG(p->tw1->tables[0]),
                       VNCL_ARG(rtw->tables[0]));
    size_t lg = 0;
    while (((size_t)1 << lg) < m) lg++;
    return vncl__fft_klaunch1(ctx, &k, s, wi, 1,
                              5.0 * (double)m * (double)lg * (double)rows,
                              (4.0 * (double)m + 2.0) * (double)rows * esize);
  }
  vncl__fft_axis ax = {m, rows, 1};
  size_t blk = outer_block(tn, dtype, p, ax);
  cl_mem mid = NULL, scr = NULL;
  vncl_status s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_SPLIT,
                                    blk * m * 2 * esize, &mid);
  size_t pairs = r2c_pairs(tn, dtype, p);
  size_t wi = r2c_work_items(tn, &ctx->info, blk * pairs);
  if (!s)
    s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_STOCKHAM,
                          wi * 8 * n2 * vw * esize, &scr);
  size_t lg = 0;
  while (((size_t)1 << lg) < n2) lg++;
  for (size_t o0 = 0; !s && o0 < rows; o0 += blk) {
    size_t no = rows - o0 < blk ? rows - o0 : blk;
    /* Step 1 as in vncl__fft_stockham_run: DFTs over j1, twiddled, from
     * rows xstride apart (in place: the block's rows are read whole into
     * the middle array before step 2 writes them). */
    geom g1 = {no * n2, n2, 1, xstride, 1, 1, n2, m, 1, 1, n2, o0 * xstride,
               0};
    s = pass(ctx, st, dtype, tn, n1, p->tw1, p->split, m, -1, 1.0, &g1, NULL,
             src, mid);
    vncl__kernel k;
    if (!s)
      s = vncl__fft_kget(ctx, dtype, "fft_stockham.cl", (int)vw,
                         "fft_stockham_r2c", &k);
    if (s) break;
    cl_uint n1_ = (cl_uint)n1, n2_ = (cl_uint)n2;
    cl_ulong rows_ = no, y0 = o0 * (m + 1);
    vncl__targ sc = vncl__real_arg(dtype, scale);
    size_t w = r2c_work_items(tn, &ctx->info, no * pairs);
    s = vncl__set_args(ctx, k.k, 11, VNCL_ARG(n1_), VNCL_ARG(n2_),
                       VNCL_TARG(sc), VNCL_ARG(rows_), VNCL_ARG(mid),
                       VNCL_ARG(dst), VNCL_ARG(y0), VNCL_ARG(scr),
                       VNCL_ARG(p->tw2->tables[0]),
                       VNCL_ARG(rtw->tables[0]), VNCL_ARG(rtw2->tables[0]));
    /* The declared work: the n1 lines of step 2 (the B lines repeat the
     * A ones) and the split's reads and writes. */
    double flops = 5.0 * (double)n2 * (double)lg * (double)(n1 * no);
    s = vncl__fft_klaunch1(ctx, &k, s, w, 1, flops,
                           (4.0 * (double)m + 2.0) * (double)no * esize);
  }
  return s;
}

vncl_status vncl__fft_stockham_c2r_run(vncl_context *ctx, vncl__fft_state *st,
                                       vncl_dtype dtype,
                                       const vncl__fft_tuning *tn,
                                       const vncl__fft_stockham *p,
                                       size_t rows, double scale,
                                       const vncl__fft_entry *rtw,
                                       const vncl__fft_entry *rtw2, cl_mem src,
                                       cl_mem dst, size_t ystride) {
  size_t m = p->n, esize = vncl_dtype_size(dtype);
  size_t vw = (size_t)vw_of(tn, dtype);
  if (p->n2 > 1) {
    /* Split m: the four-step of vncl__fft_stockham_run (inverse, inner 1)
     * with the pre-processing in step 1's gather, lines j2 and n2 - j2
     * together (fft_stockham_c2r2): step 1 reads the spectrum rows, step
     * 2 writes rows ystride apart. */
    size_t n1 = p->n1, n2 = p->n2;
    vncl__fft_axis ax = {m, rows, 1};
    size_t blk = outer_block(tn, dtype, p, ax);
    cl_mem mid = NULL;
    vncl_status s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_SPLIT,
                                      blk * m * 2 * esize, &mid);
    size_t pairs = c2r_pairs(tn, dtype, p);
    size_t wi = c2r_work_items(tn, &ctx->info, blk * pairs);
    cl_mem scr = NULL;
    if (!s)
      s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_STOCKHAM,
                            wi * 8 * n1 * vw * esize, &scr);
    size_t lg = 0;
    while (((size_t)1 << lg) < n1) lg++;
    for (size_t o0 = 0; !s && o0 < rows; o0 += blk) {
      size_t no = rows - o0 < blk ? rows - o0 : blk;
      /* Step 1: lines j2 and n2 - j2 together, the pre-processing in the
       * gather (fft_stockham_c2r2), into the middle array. */
      vncl__kernel k;
      s = vncl__fft_kget(ctx, dtype, "fft_stockham.cl", (int)vw,
                         "fft_stockham_c2r2", &k);
      if (s) break;
      cl_uint n1_ = (cl_uint)n1, n2_ = (cl_uint)n2;
      cl_uint shift = (cl_uint)p->split->m;
      cl_ulong rows_ = no, x0 = o0;
      s = vncl__set_args(ctx, k.k, 14, VNCL_ARG(n1_), VNCL_ARG(n2_),
                         VNCL_ARG(rows_), VNCL_ARG(src), VNCL_ARG(x0),
                         VNCL_ARG(mid), VNCL_ARG(scr),
                         VNCL_ARG(p->tw1->tables[0]), VNCL_ARG(shift),
                         VNCL_ARG(p->split->tables[0]),
                         VNCL_ARG(p->split->tables[1]),
                         VNCL_ARG(rtw->tables[0]), VNCL_ARG(rtw2->tables[0]),
                         VNCL_ARG(p->split->tables[2]));
      size_t w = c2r_work_items(tn, &ctx->info, no * pairs);
      s = vncl__fft_klaunch1(ctx, &k, s, w, 1,
                             5.0 * (double)n1 * (double)lg * (double)(n2 * no),
                             (2.0 * (double)m + 2.0 + 2.0 * (double)m) *
                                 (double)no * esize);
      geom g2 = {no * n1, n1, 1, m, n2, 1, 1, ystride, 1, 1, n1, 0,
                 o0 * ystride};
      if (!s)
        s = pass(ctx, st, dtype, tn, n2, p->tw2, NULL, 0, 1, scale, &g2, NULL,
                 mid, dst);
    }
    return s;
  }
  size_t wi = work_items(tn, &ctx->info, dtype, rows);
  cl_mem scr = NULL;
  vncl_status s = vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_STOCKHAM,
                                    wi * 4 * m * vw * esize, &scr);
  vncl__kernel k;
  if (!s)
    s = vncl__fft_kget(ctx, dtype, "fft_stockham.cl", (int)vw,
                       "fft_stockham_c2r1", &k);
  if (s) return s;
  cl_uint m_ = (cl_uint)m;
  cl_ulong rows_ = rows, ys = ystride;
  vncl__targ sc = vncl__real_arg(dtype, scale);
  s = vncl__set_args(ctx, k.k, 9, VNCL_ARG(m_), VNCL_TARG(sc), VNCL_ARG(rows_),
                     VNCL_ARG(src), VNCL_ARG(dst), VNCL_ARG(ys), VNCL_ARG(scr),
                     VNCL_ARG(p->tw1->tables[0]), VNCL_ARG(rtw->tables[0]));
  size_t lg = 0;
  while (((size_t)1 << lg) < m) lg++;
  return vncl__fft_klaunch1(ctx, &k, s, wi, 1,
                            5.0 * (double)m * (double)lg * (double)rows,
                            (4.0 * (double)m + 2.0) * (double)rows * esize);
}
