/* Reductions over one axis or all elements (cl_kernels/reduce.cl).
 *
 * The tensor is seen as [outer, R, inner], R the reduced axis. inner == 1
 * runs reduce_rows (a work-group per row chunk, vector loads, a tree in
 * local memory) or, for short rows, reduce_rows_item (a work-item per row)
 * or reduce_rows_block / reduce_rows_packed (a work-item per VW rows);
 * inner > 1 reduce_cols (a work-item per column vector, coalesced: GPUs)
 * or, where work-items run contiguous parts (ITEM_CONTIG, CPUs),
 * reduce_cols_strip (a work-item per strip of up to 64 vectors of columns,
 * walking its rows in order; argmax too).
 * When there are too few outputs to occupy the device, the axis is split
 * into S chunks whose partial results (with the argmax index) go to
 * scratch memory and reduce_partials combines them. */
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"

static const char *const reduce_names[] = {"sum",    "mean", "max",
                                           "min",    "argmax", "norm2"};

/* Work-groups that keep the device busy: a few per compute unit. */
static size_t target_groups(const vncl_context *ctx) {
  size_t cu = ctx->info.compute_units ? ctx->info.compute_units : 1;
  return 4 * cu;
}

/* Short rows: a work-item per row (reduce_rows_item) or, for rows of 2 to
 * ROWS_BLOCK elements, per VW rows (reduce_rows_block: the rows' vectors
 * reduced side by side, lane r of the result row r). Rows of up to VW go
 * as R whole vectors (reduce_rows_packed, a program per R): rows of 2 to 8
 * ran at 0.18-0.59x memcpy in vectors of the widest power of two a row
 * holds, 0.9-1.3x so (Zen 5, docs/ops.md, twenty-third pass); argmax over
 * rows of 9 to 15 at 0.35-0.6x, 0.8-1.0x so, their sums and extrema at
 * 0.8-1.2x, 0.9-1.4x so (twenty-fourth pass); rows of exactly VW (16) in
 * reduce_rows_block at 0.74-1.17x (argmax, max, sum), 1.13-1.52x so, as
 * AVX2 code and in f64 and f16 1.1-2.3x faster too (twenty-seventh pass).
 * One work-item a row ran them element by element, 0.03-0.11x memcpy
 * (twenty-second pass). */
static vncl_status rows_item_run(vncl_context *ctx, int op,
                                 const vncl_tensor *x, size_t outer, size_t R,
                                 vncl_tensor *out, int *p, int bits) {
  /* Rows of 17 to 31 under vectors of 16 (reduce_rows_block; f32 and
   * 16-bit storage, computed in f32) go in vectors of 8: two or three
   * vectors a row, where vectors of 16 took one whole and one overlapping
   * it, 16 accumulators a work-item. On a Zen 4, f32, the library before
   * and after alternated: rows of 17, 20, 24 and 28, sum 0.68-1.30x ->
   * 0.80-1.39x memcpy, max 0.92-1.08x -> 1.31-1.49x, argmax 0.67-0.94x ->
   * 0.85-1.24x; as AVX2 code 0.74-1.05x -> 0.85-1.23x, 0.74-1.08x ->
   * 0.88-1.53x, 0.46-0.75x -> 0.69-1.16x. Rows of 40 and 56 came out
   * mixed in vectors of 8 (docs/ops.md, thirty-fifth pass). */
  if (p[RED_VW] == 16 && R > 16 && R < 32 && R <= (size_t)p[RED_ROWS_BLOCK] &&
      x->dtype != VNCL_F64)
    p[RED_VW] = 8;
  size_t vw = (size_t)p[RED_VW];
  bool block = vw > 1 && R >= 2 && R <= (size_t)p[RED_ROWS_BLOCK];
  bool packed = block && R <= vw;
  /* Rows of 9 to 16 in vectors of 16 where the native vectors hold 8
   * floats (AVX2), f32 and f16, and argmax over rows of 8: two 8 x 8
   * squares of 8-lane vectors (PACK_H8, reduce.cl). On an AVX2 EPYC (Zen
   * 3), f32, the library before and after alternated (three pairs, GB/s
   * moved): sum over rows of 10 14.6-18.9 -> 21.9-26.0, of 12 13.4-17.2
   * -> 21.8-24.1, max over rows of 10 11.3-16.8 -> 22.4-25.3, of 16
   * 19.3-23.7 -> 24.2-25.8, argmax over rows of 8 17.9-22.1 -> 23.3-24.5,
   * of 10 12.6-18.0 -> 18.9-23.1, of 15 9.0-14.5 -> 21.5-23.2, of 16
   * 10.5-14.8 -> 21.6-25.0; sums over rows of 16 20.2-23.6 -> 22.6-24.8,
   * but of 8 25.6-27.1 -> 24.4-25.0, which keep their tree (memcpy 25-30
   * GB/s; docs/ops.md, thirty-seventh pass). AVX-512 keeps its 16-lane
   * vectors (not measured so). */
  bool h8 = packed && vw == 16 && vncl__params_vec(ctx) == 8 &&
            (R > 8 || (R == 8 && op == VNCL_REDUCE_ARGMAX)) &&
            (x->dtype == VNCL_F32 || x->dtype == VNCL_F16);
  char extra[96];
  int len = snprintf(extra, sizeof extra, "-DDTYPE=%d -DIDX_BITS=%d",
                     (int)x->dtype, bits);
  if (packed)
    snprintf(extra + len, sizeof extra - (size_t)len, " -DPACK=%zu%s", R,
             h8 ? " -DPACK_H8=1" : "");
  vncl__ops_kernel k;
  vncl_status s = vncl__ops_kernel_get(ctx, VNCL__OPS_REDUCE, p, extra,
                                       packed  ? "reduce_rows_packed"
                                       : block ? "reduce_rows_block"
                                               : "reduce_rows_item",
                                       &k);
  if (s) return s;
  cl_int cop = op;
  vncl__ops_arg aR = vncl__ops_idx(bits, R), an = vncl__ops_idx(bits, outer);
  vncl__ops_arg axo = vncl__ops_idx(bits, vncl__ops_elem_offset(x));
  vncl__ops_arg aoo = vncl__ops_idx(bits, vncl__ops_elem_offset(out));
  s = vncl__set_args(ctx, k.k, 8, VNCL_ARG(cop), VNCL_OPS_ARG(aR),
                     VNCL_OPS_ARG(an), VNCL_ARG(x->mem), VNCL_OPS_ARG(axo),
                     VNCL_ARG(out->mem), VNCL_ARG(out->mem), VNCL_OPS_ARG(aoo));
  size_t wg = (size_t)p[RED_WG];
  size_t global = vncl__round_up(block ? (outer + vw - 1) / vw : outer, wg);
  if (!s)
    s = vncl__launch_work(ctx, reduce_names[op], k.k, 1, &global, &wg, 0,
                          NULL, NULL, (double)x->numel,
                          (double)x->bytes + (double)out->bytes);
  vncl__ops_kernel_put(ctx, &k);
  return s;
}

static vncl_status reduce_run(vncl_context *ctx, int op, const vncl_tensor *x,
                              size_t outer, size_t R, size_t inner,
                              vncl_tensor *out) {
  int p[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(ctx, VNCL__OPS_REDUCE, p);
  size_t wg = (size_t)p[RED_WG], vw = (size_t)p[RED_VW];
  size_t xo = vncl__ops_elem_offset(x), oo = vncl__ops_elem_offset(out);
  size_t maxel = x->numel + xo;
  if (out->numel + oo > maxel) maxel = out->numel + oo;
  int bits = vncl__ops_idx_bits(maxel);
  size_t nout = outer * inner;
  bool rows = inner == 1;
  size_t G = target_groups(ctx);
  /* Short rows, enough of them to fill the device: a work-item per row or
   * per VW rows. */
  if (rows && R <= (size_t)p[RED_ROWS_ITEM] && (outer >= G * wg || R <= 16))
    return rows_item_run(ctx, op, x, outer, R, out, p, bits);

  /* Split of the axis. */
  size_t S = 1, chunk = R ? R : 1, lx = 0, gx = 1, strip = 0;
  bool strips = !rows && p[RED_ITEM_CONTIG];
  if (strips) {
    /* Strips of up to 64 vectors (4 KiB of f32 per row with VW 16): long
     * runs for the prefetcher, accumulators that stay in L1. A power of
     * two, so that few programs serve every width. */
    size_t ncv = (inner + vw - 1) / vw;
    strip = 1;
    while (strip < 64 && strip < ncv) strip *= 2;
    gx = (inner + strip * vw - 1) / (strip * vw);
    /* Enough work-items to share out (each is a work-group of one). */
    size_t want = 4 * G, minrows = 32;
    if (gx * outer < want && R > minrows) {
      S = (want + gx * outer - 1) / (gx * outer);
      size_t smax = (R + minrows - 1) / minrows;
      if (S > smax) S = smax;
    }
    chunk = (R + S - 1) / S;
  } else if (rows) {
    size_t minchunk = wg * vw * 4;
    if (outer < G && R > minchunk) {
      S = (G + outer - 1) / outer;
      size_t smax = (R + minchunk - 1) / minchunk;
      if (S > smax) S = smax;
    }
    chunk = vncl__round_up((R + S - 1) / S, vw);
  } else {
    /* a work-item per CB vectors of VW columns */
    size_t cols = vw * (size_t)p[RED_CB], ncv = (inner + cols - 1) / cols;
    size_t pref = ctx->info.preferred_work_group_multiple;
    if (pref < 1) pref = 1;
    lx = vncl__round_up(ncv, pref);
    if (lx > wg) lx = wg;
    gx = (ncv + lx - 1) / lx;
    size_t minrows = 64;
    if (gx * outer < G && R > minrows) {
      S = (G + gx * outer - 1) / (gx * outer);
      size_t smax = (R + minrows - 1) / minrows;
      if (S > smax) S = smax;
    }
    chunk = (R + S - 1) / S;
  }
  if (R && chunk) S = (R + chunk - 1) / chunk; /* no empty chunk */
  if (S < 1) S = 1;
  if (chunk < 1) chunk = 1;

  char extra[64];
  snprintf(extra, sizeof extra, "-DDTYPE=%d -DIDX_BITS=%d -DSTRIP=%zu",
           (int)x->dtype, bits, strips ? strip : (size_t)16);
  vncl__ops_kernel k;
  vncl_status s = vncl__ops_kernel_get(ctx, VNCL__OPS_REDUCE, p, extra,
                                       rows     ? "reduce_rows"
                                       : strips ? "reduce_cols_strip"
                                                : "reduce_cols",
                                       &k);
  if (s) return s;
  wg = (size_t)p[RED_WG]; /* the kernel may have asked for a smaller group */
  if (lx > wg) lx = wg;
  if (strips) lx = 1;

  cl_mem pv = NULL, pi = NULL;
  size_t acc_size = x->dtype == VNCL_F64 ? 8 : 4, idx_size = bits / 8;
  size_t npart = nout * S;
  if (S > 1) {
    s = vncl__buffer_alloc(ctx, npart * acc_size, &pv);
    if (!s) s = vncl__buffer_alloc(ctx, npart * idx_size, &pi);
    if (s) goto done;
  }
  cl_int cop = op;
  vncl__ops_arg aR = vncl__ops_idx(bits, R), ach = vncl__ops_idx(bits, chunk);
  vncl__ops_arg aS = vncl__ops_idx(bits, S);
  vncl__ops_arg axo = vncl__ops_idx(bits, xo), aoo = vncl__ops_idx(bits, oo);
  double bytes = (double)x->bytes + (double)out->bytes;
  const char *name = reduce_names[op];
  if (rows) {
    s = vncl__set_args(ctx, k.k, 11, VNCL_ARG(cop), VNCL_OPS_ARG(aR),
                       VNCL_OPS_ARG(ach), VNCL_OPS_ARG(aS), VNCL_ARG(x->mem),
                       VNCL_OPS_ARG(axo), VNCL_ARG(out->mem),
                       VNCL_ARG(out->mem), VNCL_OPS_ARG(aoo), VNCL_ARG(pv),
                       VNCL_ARG(pi));
    size_t global = outer * S * wg;
    if (!s)
      s = vncl__launch_work(ctx, name, k.k, 1, &global, &wg, 0, NULL, NULL,
                            (double)x->numel, bytes);
  } else {
    vncl__ops_arg ain = vncl__ops_idx(bits, inner);
    s = vncl__set_args(ctx, k.k, 12, VNCL_ARG(cop), VNCL_OPS_ARG(aR),
                       VNCL_OPS_ARG(ain), VNCL_OPS_ARG(ach), VNCL_OPS_ARG(aS),
                       VNCL_ARG(x->mem), VNCL_OPS_ARG(axo), VNCL_ARG(out->mem),
                       VNCL_ARG(out->mem), VNCL_OPS_ARG(aoo), VNCL_ARG(pv),
                       VNCL_ARG(pi));
    size_t global[2] = {gx * lx, outer * S}, local[2] = {lx, 1};
    if (!s)
      s = vncl__launch_work(ctx, name, k.k, 2, global, local, 0, NULL, NULL,
                            (double)x->numel, bytes);
  }
  if (s || S == 1) goto done;

  /* Combine the partials. */
  vncl__ops_kernel_put(ctx, &k);
  s = vncl__ops_kernel_get(ctx, VNCL__OPS_REDUCE, p, extra, "reduce_partials",
                           &k);
  if (s) goto done;
  vncl__ops_arg an = vncl__ops_idx(bits, nout), ain = vncl__ops_idx(bits, inner);
  s = vncl__set_args(ctx, k.k, 10, VNCL_ARG(cop), VNCL_OPS_ARG(an),
                     VNCL_OPS_ARG(aS), VNCL_OPS_ARG(ain), VNCL_OPS_ARG(aR),
                     VNCL_ARG(pv), VNCL_ARG(pi), VNCL_ARG(out->mem),
                     VNCL_ARG(out->mem), VNCL_OPS_ARG(aoo));
  size_t pwg = (size_t)p[RED_WG], pglobal = vncl__round_up(nout, pwg);
  if (!s)
    s = vncl__launch_work(ctx, name, k.k, 1, &pglobal, &pwg, 0, NULL, NULL,
                          (double)npart,
                          (double)npart * (double)(acc_size + idx_size));
done:
  vncl__ops_kernel_put(ctx, &k);
  /* OpenCL keeps released buffers until the commands using them finish. */
  if (pv) vncl__buffer_free(ctx, pv, npart * acc_size);
  if (pi) vncl__buffer_free(ctx, pi, npart * idx_size);
  return s;
}

static vncl_status check_common(vncl_context *ctx, const char *fn, int op,
                                const vncl_tensor *x,
                                const vncl_tensor *out) {
  vncl_status s = vncl__ops_check_ctx(ctx, fn);
  if (!s) s = vncl__ops_check_tensor(ctx, x, fn, "x");
  if (!s) s = vncl__ops_check_tensor(ctx, out, fn, "out");
  if (s) return s;
  if (op < 0 || op > VNCL_REDUCE_NORM2)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: unknown reduction %d",
                      fn, op);
  if ((s = vncl__ops_check_arith(ctx, x, fn, "x"))) return s;
  if (x == out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: out is x; reductions cannot run in place", fn);
  vncl_dtype want = op == VNCL_REDUCE_ARGMAX ? VNCL_I32 : x->dtype;
  if (out->dtype != want)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: dtype mismatch: out is %s, %s needs %s", fn,
                      vncl_dtype_name(out->dtype), reduce_names[op],
                      vncl_dtype_name(want));
  return VNCL_OK;
}

static vncl_status check_empty(vncl_context *ctx, const char *fn, int op,
                               size_t R, size_t nout) {
  if (R == 0 && nout > 0 &&
      (op == VNCL_REDUCE_MAX || op == VNCL_REDUCE_MIN ||
       op == VNCL_REDUCE_ARGMAX))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: %s over an empty axis has no value", fn,
                      reduce_names[op]);
  if (op == VNCL_REDUCE_ARGMAX && R > 2147483647u)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: argmax over %zu elements: the index does not fit "
                      "in i32", fn, R);
  return VNCL_OK;
}

vncl_status vncl_reduce(vncl_context *ctx, vncl_reduce_op op,
                        const vncl_tensor *x, int axis, vncl_tensor *out) {
  const char *fn = "vncl_reduce";
  vncl_status s = check_common(ctx, fn, (int)op, x, out);
  if (s) return s;
  int ax = axis < 0 ? axis + x->ndim : axis;
  if (ax < 0 || ax >= x->ndim)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: axis %d out of range for %d dimensions", fn, axis,
                      x->ndim);
  /* out: x's shape without the axis, or with it as 1 (keepdims). */
  int64_t drop[VNCL_MAX_DIMS], keep[VNCL_MAX_DIMS];
  int nd = 0;
  for (int i = 0; i < x->ndim; i++) {
    keep[i] = i == ax ? 1 : x->shape[i];
    if (i != ax) drop[nd++] = x->shape[i];
  }
  bool ok_keep = out->ndim == x->ndim, ok_drop = out->ndim == nd;
  for (int i = 0; ok_keep && i < x->ndim; i++) ok_keep = out->shape[i] == keep[i];
  for (int i = 0; ok_drop && i < nd; i++) ok_drop = out->shape[i] == drop[i];
  if (!ok_keep && !ok_drop) {
    char so[160], sd[160], sk[160];
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: out shape %s does not match reducing axis %d: "
                      "expected %s or %s", fn,
                      vncl__ops_shape_str(out->ndim, out->shape, so, sizeof so),
                      ax,
                      nd ? vncl__ops_shape_str(nd, drop, sd, sizeof sd) : "[]",
                      vncl__ops_shape_str(x->ndim, keep, sk, sizeof sk));
  }
  size_t outer = 1, inner = 1, R = (size_t)x->shape[ax];
  for (int i = 0; i < ax; i++) outer *= (size_t)x->shape[i];
  for (int i = ax + 1; i < x->ndim; i++) inner *= (size_t)x->shape[i];
  if ((s = check_empty(ctx, fn, (int)op, R, outer * inner))) return s;
  if (outer * inner == 0) return VNCL_OK;
  return reduce_run(ctx, (int)op, x, outer, R, inner, out);
}

vncl_status vncl_reduce_all(vncl_context *ctx, vncl_reduce_op op,
                            const vncl_tensor *x, vncl_tensor *out) {
  const char *fn = "vncl_reduce_all";
  vncl_status s = check_common(ctx, fn, (int)op, x, out);
  if (s) return s;
  if (out->numel != 1) {
    char so[160];
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: out shape %s: the result is one element", fn,
                      vncl__ops_shape_str(out->ndim, out->shape, so, sizeof so));
  }
  if ((s = check_empty(ctx, fn, (int)op, x->numel, 1))) return s;
  return reduce_run(ctx, (int)op, x, 1, x->numel, 1, out);
}
