/* Softmax and log-softmax over the last axis (cl_kernels/softmax.cl): one
 * work-group per row. A row whose exp values fit in half the device's local
 * memory keeps them there (ROW_LOCAL, rounded up to a power of two so that
 * few programs serve every length); rows aligned to whole vectors get
 * non-temporal final stores (NT_OUT, rows of NT_MIN or more). Short
 * rows (up to ROW_ITEM elements, the CPU layout), enough of them to give
 * every compute unit a few groups, run ITEM_ROWS per work-item instead
 * (softmax_rows_item); rows of 2 elements to a vector (VW), VW rows a
 * work-item, a row a lane (softmax_rows_packed). */
#include <stdio.h>

#include "ops/ops.h"

/* The shortest rows, in vectors, that take BLOCK_OUT (see launch):
 * softmax with its copy of e in local memory, without it (exp computed
 * again), log-softmax. */
enum { BLOCK_MIN_KEEP = 1, BLOCK_MIN_EXP = 4, BLOCK_MIN_LOG = 2 };

/* One launch of softmax_rows (a group per row) or, item, of
 * softmax_rows_item (ITEM_ROWS rows per work-item); both take the same
 * arguments. The exp values stay in local memory when they fit half of
 * it: a row's (ROW_LOCAL, the row length rounded up to a power of two,
 * beside the group's tree) or ROW_ITEM for each of a work-item's rows
 * (ITEM_LOCAL), so that few programs serve every length; non-temporal
 * final stores when every row starts on a vector. */
static vncl_status launch(vncl_context *ctx, int logmode, const vncl_tensor *x,
                          vncl_tensor *out, size_t N, size_t rows, int *p,
                          int bits, size_t xo, size_t oo, bool item,
                          bool packed, bool h8) {
  size_t accsz = x->dtype == VNCL_F64 ? 8 : 4, wg = (size_t)p[SM_WG];
  size_t half = ctx->info.local_mem_bytes / 2, local;
  size_t ir = (size_t)p[SM_ITEM_ROWS];
  if (packed) {
    local = 0; /* softmax_rows_packed keeps its rows in registers */
  } else if (item) {
    local = (size_t)p[SM_ROW_ITEM];
    if (wg * ir * local * accsz > half) local = 0;
  } else {
    for (local = 64; local < N;) local *= 2;
    if ((local + wg) * accsz > half) local = 0;
  }
  size_t vw = (size_t)p[SM_VW];
  /* NT_OUT: rows of whole vectors (or packed: a work-item's rows are
   * whole vectors), at least NT_MIN long, in a call that moves enough
   * (NT_CACHE) */
  bool nt_ok = N >= (size_t)p[SM_NT_MIN] &&
               vncl__ops_nt_pays(ctx, p[SM_NT_CACHE],
                                 (double)x->bytes + (double)out->bytes);
  int nt = (packed || N % vw == 0) && oo % vw == 0 && nt_ok;
  /* BLOCK_OUT (softmax_rows_item): rows with a tail whose work-item's
   * ITEM_ROWS rows make whole vectors from an aligned start (rows of 100,
   * four a work-item, in vectors of 16): pass 3 stores the block's whole
   * vectors, non-temporally (2) where NT_OUT's other rules allow.
   * Softmax's pass 3 there reads e from its local copy, laid out as the
   * block (the kernel's BLOCK_E), which pays from rows of more than a
   * vector: on a Zen 4, f32, medians of alternated processes, rows of 24
   * 1.1x as fast as the rows' own path (1.3x as AVX2 code), of 20 1.1x
   * (1.3x), of 40 1.3x, of 100 1.2x (1.3x) (docs/ops.md, thirty-second
   * pass). Without room for the copy it computes exp(x - m) again, which
   * pays from 4 vectors on; log-softmax (no exp in pass 3) from 2: on the
   * Zen 5, f32, rows of 72 and 100 1.3x faster (log-softmax 1.5-1.8x);
   * rows of 40 log-softmax 1.15x faster, softmax without the copy 0.9x as
   * fast; rows of 24 log-softmax 1.0x (docs/ops.md, thirty-first pass). */
  size_t bmin = logmode ? BLOCK_MIN_LOG
                 : local ? BLOCK_MIN_KEEP
                         : BLOCK_MIN_EXP;
  int block = 0;
  if (item && !packed && ir > 1 && N % vw != 0 && N > bmin * vw &&
      (ir * N) % vw == 0 && oo % vw == 0)
    block = nt_ok ? 2 : 1;
  /* Log-softmax's block keeps no copy of e: nothing reads it (the copy's
   * stores cost rows of 100 1.1x). */
  if (block && logmode) local = 0;
  /* ITEM_TAIL (softmax_rows_item): 0 rows of whole vectors, 2 a tail of
   * two or more as the row's last vector, 1 element by element (rows
   * shorter than a vector, tails of one) */
  size_t rem = N % vw;
  int tail = rem == 0 ? 0 : N > vw && rem >= 2 ? 2 : 1;
  char extra[160];
  int len = snprintf(extra, sizeof extra,
                     "-DDTYPE=%d -DIDX_BITS=%d -D%s=%zu -DNT_OUT=%d",
                     (int)x->dtype, bits, item ? "ITEM_LOCAL" : "ROW_LOCAL",
                     local, nt);
  if (packed)
    snprintf(extra + len, sizeof extra - (size_t)len, " -DPACK=%zu%s", N,
             h8 ? " -DPACK_H8=1" : "");
  else if (item)
    snprintf(extra + len, sizeof extra - (size_t)len,
             " -DITEM_TAIL=%d -DBLOCK_OUT=%d", tail, block);
  vncl__ops_kernel k;
  vncl_status s = vncl__ops_kernel_get(
      ctx, VNCL__OPS_SOFTMAX, p, extra,
      packed ? "softmax_rows_packed"
      : item ? "softmax_rows_item"
             : "softmax_rows",
      &k);
  if (s) return s;
  vncl__ops_arg an = vncl__ops_idx(bits, N), ar = vncl__ops_idx(bits, rows);
  vncl__ops_arg axo = vncl__ops_idx(bits, xo), aoo = vncl__ops_idx(bits, oo);
  cl_int lm = logmode;
  s = vncl__set_args(ctx, k.k, 7, VNCL_OPS_ARG(an), VNCL_OPS_ARG(ar),
                     VNCL_ARG(lm), VNCL_ARG(x->mem), VNCL_OPS_ARG(axo),
                     VNCL_ARG(out->mem), VNCL_OPS_ARG(aoo));
  if (packed) ir = vw; /* VW rows a work-item */
  size_t global = item ? vncl__round_up((rows + ir - 1) / ir, wg) : rows * wg;
  if (!s)
    s = vncl__launch_work(ctx, logmode ? "log_softmax" : "softmax", k.k, 1,
                          &global, &wg, 0, NULL, NULL, 4.0 * (double)x->numel,
                          (double)x->bytes + (double)out->bytes);
  vncl__ops_kernel_put(ctx, &k);
  return s;
}

/* The device's native vector width in elements of the type x is computed
 * in (f64 for f64, else f32; vncl__params_vec: the device's own, or
 * VNCL_NATIVE_FLOAT_WIDTH). */
static int native_width(vncl_context *ctx, const vncl_tensor *x) {
  return vncl__params_vec(ctx) / (x->dtype == VNCL_F64 ? 2 : 1);
}

static vncl_status softmax_run(vncl_context *ctx, const char *fn, int logmode,
                               const vncl_tensor *x, vncl_tensor *out) {
  vncl_status s = vncl__ops_check_ctx(ctx, fn);
  if (!s) s = vncl__ops_check_tensor(ctx, x, fn, "x");
  if (!s) s = vncl__ops_check_tensor(ctx, out, fn, "out");
  if (!s) s = vncl__ops_check_arith(ctx, x, fn, "x");
  if (!s) s = vncl__ops_check_same_dtype(ctx, x, out, fn, "x", "out");
  if (!s) s = vncl__ops_check_same_shape(ctx, x, out, fn, "x", "out");
  if (s || x->numel == 0) return s;
  size_t N = (size_t)x->shape[x->ndim - 1], rows = x->numel / N;
  int p[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(ctx, VNCL__OPS_SOFTMAX, p);
  size_t xo = vncl__ops_elem_offset(x), oo = vncl__ops_elem_offset(out);
  size_t maxel = x->numel + (xo > oo ? xo : oo);
  int bits = vncl__ops_idx_bits(maxel);
  size_t cu = ctx->info.compute_units ? ctx->info.compute_units : 1;
  size_t groups = rows / (4 * cu * (size_t)p[SM_WG]);
  bool item = p[SM_ITEM_CONTIG] && N <= (size_t)p[SM_ROW_ITEM] &&
              (groups >= 1 || N <= 16);
  /* Rows per work-item: ITEM_ROWS, halved while that would leave a compute
   * unit fewer than four groups (the results are the same bits). */
  while (item && p[SM_ITEM_ROWS] > 1 && groups < (size_t)p[SM_ITEM_ROWS])
    p[SM_ITEM_ROWS] /= 2;
  /* Rows of 2 or more under a vector: VW rows a work-item as whole
   * vectors, a row a lane (softmax_rows_packed; ITEM_ROWS is then unused,
   * and set to 1 so that it does not split the programs). Rows of 9 to 15
   * went element by element before, 0.13-0.20x memcpy against 0.78-1.27x
   * so (f32, vectors of 16, Zen 5; docs/ops.md, twenty-fourth pass).
   * Rows of exactly VW too, one square transposition, where VW is no
   * wider than the device's native vectors of the type computed in (f64
   * for f64, else f32): the VW vectors then fit the registers. Rows of 16
   * in vectors of 16 on the Zen 5: f32 softmax 1.35x as fast, log-softmax
   * 1.3x, f16 1.6-1.7x, bf16 1.6-1.8x; as AVX2 code (native 8) 0.9x, in
   * f64 (two registers a vector) softmax 0.85x, log-softmax 1.25x; rows
   * of two or more blocks 0.4-0.6x (docs/ops.md, twenty-fifth pass). */
  const size_t vw = (size_t)p[SM_VW];
  /* Vectors of 16 on a device whose native vectors hold 8 or 16 floats
   * (AVX2, AVX-512), rows of 9 to 15, f32 and f16, and rows of 16 where
   * they hold 8 (packed then, as rows under a vector): the rows move as
   * 8 x 8 squares of 8-lane vectors (PACK_H8, softmax.cl). On a
   * Zen 4, old and new alternated: as AVX2 code f32 softmax over rows of
   * 9 to 16 0.45-0.92x -> 0.86-1.37x memcpy, log-softmax 0.45-0.81x ->
   * 0.77-1.37x, f16 0.32-0.56x -> 0.44-0.62x; natively f32 rows of 9 to
   * 15 0.75-1.26x -> 0.92-1.48x, f16 1.1-1.5x as fast, but rows of 16
   * keep their square of 16-lane vectors there (1.32-1.61x against
   * 1.25-1.37x). bf16 came out slower as AVX2 code (0.27-0.43x ->
   * 0.22-0.47x) and keeps the whole vectors; vectors of 4 floats (8-lane
   * vectors in two registers) were not measured (docs/ops.md,
   * thirty-sixth pass). */
  const int nat = native_width(ctx, x);
  const bool h8 = item && vw == 16 &&
                  (x->dtype == VNCL_F32 || x->dtype == VNCL_F16) &&
                  ((N >= 9 && N <= 15 && (nat == 8 || nat == 16)) ||
                   ((N == 8 || N == 16) && nat == 8));
  bool packed = item && N >= 2 && (vw == 4 || vw == 8 || vw == 16) &&
                (N < vw || (N == vw && ((int)vw <= nat || h8)));
  if (packed) p[SM_ITEM_ROWS] = 1;
  /* Rows of one and a half vectors of 16 (24 elements), f32 or 16-bit
   * storage: vectors of 8, three whole ones a row, where vectors of 16
   * took one whole and one overlapping it by half (BLOCK_OUT's block of
   * four rows). On a Zen 4, f32, old and new alternated: softmax 0.85-0.96x
   * -> 1.10-1.25x memcpy, log-softmax 0.94-1.01x -> 0.91-1.07x; as AVX2
   * code 0.77-0.92x -> 0.93-0.98x and 0.73-0.85x -> 0.92-0.96x
   * (docs/ops.md, thirty-fifth pass). Longer rows with a half-vector tail
   * (40, 56, 72) came out mixed natively (log-softmax 0.9x as fast at 56),
   * rows of whole vectors of 16 (48) 0.8-0.85x as fast. */
  if (item && !packed && vw == 16 && N == 24 && x->dtype != VNCL_F64)
    p[SM_VW] = 8;
  return launch(ctx, logmode, x, out, N, rows, p, bits, xo, oo, item,
                packed, h8);
}

vncl_status vncl_softmax(vncl_context *ctx, const vncl_tensor *x,
                         vncl_tensor *out) {
  return softmax_run(ctx, "vncl_softmax", 0, x, out);
}

vncl_status vncl_log_softmax(vncl_context *ctx, const vncl_tensor *x,
                             vncl_tensor *out) {
  return softmax_run(ctx, "vncl_log_softmax", 1, x, out);
}
