/* Transpose and general permutations of axes (cl_kernels/transpose.cl).
 *
 * The permutation is first simplified: axes of size 1 are dropped, and
 * input axes that stay neighbours in the same order are merged, so that
 * [B, M, N] -> [B, N, M] is a batched 2-D transpose whatever B's shape was.
 * Then:
 *   - one axis left: a plain copy, by vncl_copy's kernel (the gather it
 *     ran before read 0.28x memcpy on a Zen 5);
 *   - the innermost axis stays innermost: permute_gather, whose reads are
 *     then contiguous runs too, or on CPUs (ROW_ITEMS) permute_rows, a
 *     work-item per run of a row, when rows are at least ROWS_MIN long;
 *   - otherwise the innermost axis moves: permute_tiled through local
 *     memory, or on CPUs (ROW_ITEMS 2) permute_blocks, 16 x 16 blocks
 *     through registers (16 x 32 for 2-byte elements), unless one of the two axes involved is shorter
 *     than TILED_MIN (a tile would be mostly empty; the gather is better).
 *     On CPUs a short output-innermost axis r merges with the batch axis
 *     after it in the output ("virtual rows" of the blocks), and a plane
 *     that keeps a side shorter than PLANE_BELOW goes to permute_plane,
 *     whatever its length (docs/ops.md, seventeenth pass).
 */
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"

#define TILED_MIN 4
#define PLANE_BELOW 16 /* a side shorter: permute_plane on CPUs */
#define PLANE_ELEMS 16384 /* elements a work-item of permute_plane */
#define ROWS_MIN 16
#define ROW_RUN 256 /* elements per work-item of permute_rows (RUN) */

typedef struct perm_plan {
  int nd;
  size_t shape[VNCL_MAX_DIMS]; /* input axes after merging */
  int perm[VNCL_MAX_DIMS];     /* out axis j = input axis perm[j] */
} perm_plan;

static void simplify(const vncl_tensor *x, const int *perm, perm_plan *pl) {
  /* Drop axes of size 1. */
  int map[VNCL_MAX_DIMS], nd = 0;
  size_t shape[VNCL_MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) {
    map[i] = -1;
    if (x->shape[i] != 1) {
      map[i] = nd;
      shape[nd++] = (size_t)x->shape[i];
    }
  }
  int p[VNCL_MAX_DIMS], np = 0;
  for (int j = 0; j < x->ndim; j++)
    if (map[perm[j]] >= 0) p[np++] = map[perm[j]];
  /* Runs of consecutive input axes in output order become one axis. */
  int run_start[VNCL_MAX_DIMS], run_len[VNCL_MAX_DIMS], nr = 0;
  for (int j = 0; j < np; j++) {
    if (nr && p[j] == run_start[nr - 1] + run_len[nr - 1]) {
      run_len[nr - 1]++;
    } else {
      run_start[nr] = p[j];
      run_len[nr] = 1;
      nr++;
    }
  }
  /* New input ids: runs ordered by their first input axis. */
  pl->nd = nr;
  for (int r = 0; r < nr; r++) {
    int id = 0;
    for (int q = 0; q < nr; q++) id += run_start[q] < run_start[r];
    size_t s = 1;
    for (int k = 0; k < run_len[r]; k++) s *= shape[run_start[r] + k];
    pl->shape[id] = s;
    pl->perm[r] = id;
  }
  if (nr == 0) { /* every axis was 1 */
    pl->nd = 1;
    pl->shape[0] = 1;
    pl->perm[0] = 0;
  }
}

/* Takes batch axis j out of the batch's nb axes (shape and strides). */
static void batch_drop(size_t *bshape, size_t *bin, size_t *bout, cl_int *nb,
                       cl_int j) {
  for (cl_int i = j; i + 1 < *nb; i++) {
    bshape[i] = bshape[i + 1];
    bin[i] = bin[i + 1];
    bout[i] = bout[i + 1];
  }
  (*nb)--;
}

/* permute_plane (transpose.cl) on a plane of pl.shape[R] rows of
 * pl.shape[A] elements, the other axes a batch of nb axes (innermost
 * output axis first), times nq rows of a batch axis merged with r (input
 * stride isq; nq 1: none). cv is the rows a work-item covers, ca the
 * elements of a: about PLANE_ELEMS elements a work-item (below). */
static vncl_status plane_run(vncl_context *ctx, vncl__ops_kernel *k,
                             const perm_plan *pl, int A, int R, size_t nq,
                             size_t isq, size_t in_sr, size_t out_sa,
                             cl_int nb, const size_t *bshape,
                             const size_t *bin, const size_t *bout,
                             size_t batch, size_t esz, int bits, cl_mem xm,
                             vncl__ops_arg ioff, cl_mem om, vncl__ops_arg ooff,
                             double bytes) {
  size_t na = pl->shape[A], nr0 = pl->shape[R], nv = nq * nr0;
  /* Rows far apart (a whole line each): 64 of them a work-item, so that
   * the lines one a touches stay in L1 and the input streams are few (256
   * rows ran a short r merged with the batch at 0.80x the speed of 64).
   * Rows closer than a line (a short a, its rows next to each other): as
   * many as make about 16 Ki elements with the whole of a. */
  bool near = nq == 1 && in_sr * esz < 64;
  size_t cv = near ? PLANE_ELEMS / na : 64;
  if (cv < 16) cv = 16;
  if (cv > nv) cv = nv;
  size_t ca = PLANE_ELEMS / cv;
  if (ca < 1) ca = 1;
  if (ca > na) ca = na;
  vncl__ops_arg a_na = vncl__ops_idx(bits, na),
                a_nr0 = vncl__ops_idx(bits, nr0),
                a_nq = vncl__ops_idx(bits, nq),
                a_isr = vncl__ops_idx(bits, in_sr),
                a_isq = vncl__ops_idx(bits, isq),
                a_osa = vncl__ops_idx(bits, out_sa),
                a_ca = vncl__ops_idx(bits, ca), a_cv = vncl__ops_idx(bits, cv);
  vncl__ops_arg vs = vncl__ops_idx8(bits, bshape, nb);
  vncl__ops_arg vi = vncl__ops_idx8(bits, bin, nb);
  vncl__ops_arg vo = vncl__ops_idx8(bits, bout, nb);
  vncl_status s = vncl__set_args(
      ctx, k->k, 16, VNCL_OPS_ARG(a_na), VNCL_OPS_ARG(a_nr0),
      VNCL_OPS_ARG(a_nq), VNCL_OPS_ARG(a_isr), VNCL_OPS_ARG(a_isq),
      VNCL_OPS_ARG(a_osa), VNCL_ARG(nb), VNCL_OPS_ARG(vs), VNCL_OPS_ARG(vi),
      VNCL_OPS_ARG(vo), VNCL_ARG(xm), VNCL_OPS_ARG(ioff), VNCL_ARG(om),
      VNCL_OPS_ARG(ooff), VNCL_OPS_ARG(a_ca), VNCL_OPS_ARG(a_cv));
  if (s) return s;
  size_t global[3] = {(na + ca - 1) / ca, (nv + cv - 1) / cv, batch};
  size_t local[3] = {1, 1, 1};
  return vncl__launch_work(ctx, "transpose", k->k, 3, global, local, 0, NULL,
                           NULL, 0, bytes);
}

static vncl_status permute_run(vncl_context *ctx, const char *fn,
                               const vncl_tensor *x, const int *perm,
                               vncl_tensor *out) {
  vncl_status s;
  if (x == out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: out is x; permutations cannot run in place", fn);
  if ((s = vncl__ops_check_same_dtype(ctx, x, out, fn, "x", "out"))) return s;
  /* perm: each axis once */
  unsigned seen = 0;
  for (int j = 0; j < x->ndim; j++) {
    if (perm[j] < 0 || perm[j] >= x->ndim || (seen >> perm[j]) & 1u)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "%s: perm[%d] = %d: perm must hold each axis 0..%d "
                        "once",
                        fn, j, perm[j], x->ndim - 1);
    seen |= 1u << perm[j];
  }
  int64_t want[VNCL_MAX_DIMS];
  for (int j = 0; j < x->ndim; j++) want[j] = x->shape[perm[j]];
  bool same = out->ndim == x->ndim;
  for (int j = 0; same && j < x->ndim; j++) same = out->shape[j] == want[j];
  if (!same) {
    char so[160], sw[160];
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: out shape %s is not the permuted shape %s", fn,
                      vncl__ops_shape_str(out->ndim, out->shape, so, sizeof so),
                      vncl__ops_shape_str(x->ndim, want, sw, sizeof sw));
  }
  if (x->numel == 0) return VNCL_OK;

  perm_plan pl;
  simplify(x, perm, &pl);
  if (pl.nd == 1) return vncl__ops_copy_run(ctx, x, out);
  int nd = pl.nd;
  size_t istr[VNCL_MAX_DIMS], ostr[VNCL_MAX_DIMS], oshape[VNCL_MAX_DIMS];
  size_t acc = 1;
  for (int i = nd - 1; i >= 0; i--) {
    istr[i] = acc;
    acc *= pl.shape[i];
  }
  acc = 1;
  for (int j = nd - 1; j >= 0; j--) {
    oshape[j] = pl.shape[pl.perm[j]];
    ostr[j] = acc;
    acc *= oshape[j];
  }
  int A = nd - 1, R = pl.perm[nd - 1];
  int p[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(ctx, VNCL__OPS_TRANSPOSE, p);
  if (!vncl__ops_nt_pays(ctx, p[TR_NT_CACHE], 2.0 * (double)x->bytes))
    p[TR_NT_STORE] = p[TR_RUN_NT] = 0;
  size_t esz = vncl_dtype_size(x->dtype);
  /* LANES 8: blocks 8 elements of a wide for 4- and 8-byte elements, 8 x 8
   * squares for 2-byte ones; 1-byte elements build one program whatever
   * the row says (transpose.cl). */
  if (esz < 2 || p[TR_LANES] != 8) p[TR_LANES] = 16;
  /* On CPUs (ROW_ITEMS 2) a plane with a side too short for whole 16 x 16
   * blocks (16 x 4 for 2-byte elements, whose blocks take short r sides
   * as vectors) goes to permute_plane; it moves every such plane, the
   * short sides below TILED_MIN too. */
  bool moved = nd >= 2 && R != A;
  /* The output axis next to r is a batch axis (its output stride is r's
   * length). A short r (under 16 rows, 32 of 2-byte elements) merges with
   * it: the blocks' rows run over both ("virtual rows", transpose.cl), and
   * so do permute_plane's (under 16). */
  bool next_batch = nd >= 3 && pl.perm[nd - 2] != A;
  bool vmerge = moved && p[TR_ROW_ITEMS] == 2 && next_batch &&
                pl.shape[R] < (esz == 2 ? 32 : PLANE_BELOW);
  size_t nr_eff =
      vmerge ? pl.shape[R] * pl.shape[pl.perm[nd - 2]] : pl.shape[R];
  bool plane = moved && p[TR_ROW_ITEMS] == 2 &&
               (pl.shape[A] < PLANE_BELOW ||
                (esz == 2 ? pl.shape[R] < TILED_MIN : nr_eff < PLANE_BELOW));
  bool tiled = moved && (plane || (pl.shape[A] >= TILED_MIN &&
                                   nr_eff >= TILED_MIN));
  /* the plane's merge of a short r with that axis (next_batch above) */
  bool pmerge = plane && next_batch && pl.shape[R] < PLANE_BELOW;

  size_t xo = vncl__ops_elem_offset(x), oo = vncl__ops_elem_offset(out);
  size_t maxel = x->numel + (xo > oo ? xo : oo);
  int bits = vncl__ops_idx_bits(maxel);
  /* A plane whose a is 2 to 15 elements with its rows next to each other
   * (R the input axis right outside A) and no axis merged with r: the
   * plane's 16 rows at once as PACK vectors (transpose.cl). */
  int pack = plane && pl.shape[A] >= 2 && pl.shape[A] < PLANE_BELOW &&
                     R == A - 1 && !pmerge
                 ? (int)pl.shape[A]
                 : 0;
  char extra[96];
  int ne = snprintf(extra, sizeof extra, "-DELEM=%zu -DIDX_BITS=%d -DRUN=%d",
                    esz, bits, ROW_RUN);
  if (pack)
    snprintf(extra + ne, sizeof extra - (size_t)ne, " -DPACK=%d -DVW=16",
             pack);
  vncl__ops_kernel k;
  bool rows = !tiled && nd >= 2 && R == A && p[TR_ROW_ITEMS] &&
              pl.shape[A] >= ROWS_MIN;
  s = vncl__ops_kernel_get(ctx, VNCL__OPS_TRANSPOSE, p, extra,
                           plane ? "permute_plane"
                           : tiled && p[TR_ROW_ITEMS] == 2 ? "permute_blocks"
                           : tiled                       ? "permute_tiled"
                           : rows ? "permute_rows"
                                  : "permute_gather",
                           &k);
  if (s) return s;
  vncl__ops_arg ioff = vncl__ops_idx(bits, xo), ooff = vncl__ops_idx(bits, oo);
  double bytes = 2.0 * (double)x->bytes;
  size_t tile = (size_t)p[TR_TILE], wgy = (size_t)p[TR_WGY];
  if (tiled) {
    int q = 0; /* output position of input axis A */
    while (pl.perm[q] != A) q++;
    size_t bshape[8], bin[8], bout[8], batch = 1;
    cl_int nb = 0;
    for (int j = nd - 1; j >= 0; j--) { /* innermost output axis first */
      int ax = pl.perm[j];
      if (ax == A || ax == R) continue;
      bshape[nb] = pl.shape[ax];
      bin[nb] = istr[ax];
      bout[nb] = ostr[j];
      batch *= pl.shape[ax];
      nb++;
    }
    /* The merge: the batch's innermost axis joins r. */
    size_t nr0 = 0, nq = 1, isq = 0;
    if (plane ? pmerge : vmerge) {
      nr0 = pl.shape[R];
      nq = bshape[0];
      isq = bin[0];
      batch /= nq;
      batch_drop(bshape, bin, bout, &nb, 0);
    }
    if (plane) {
      s = plane_run(ctx, &k, &pl, A, R, nq, isq, istr[R], ostr[q], nb, bshape,
                    bin, bout, batch, esz, bits, x->mem, ioff, out->mem, ooff,
                    bytes);
      vncl__ops_kernel_put(ctx, &k);
      return s;
    }
    /* permute_blocks (ROW_ITEMS 2): a work-item per block of 16 elements
     * of A by vbr of R (16, or 32 for 2-byte elements: 64 bytes per
     * output row, see transpose.cl). Its stores are whole aligned vectors
     * (non-temporal) when every output row of a block starts on a
     * 16-element boundary (buffers are aligned to at least 128 bytes,
     * OpenCL 1.2 full profile). */
    bool blocks = p[TR_ROW_ITEMS] == 2;
    size_t vbr = esz == 2 ? 32 : 16;
    cl_int nt = p[TR_NT_STORE] && oo % 16 == 0 && ostr[q] % 16 == 0;
    for (cl_int j = 0; j < nb; j++) nt = nt && bout[j] % 16 == 0;
    /* 2-byte elements: 2 when the rows are 64-byte aligned too, 1 when
     * only 32-byte aligned (two non-temporal halves per row). */
    if (esz == 2 && nt) {
      cl_int nt64 = oo % vbr == 0 && ostr[q] % vbr == 0;
      for (cl_int j = 0; j < nb; j++) nt64 = nt64 && bout[j] % vbr == 0;
      nt = nt64 ? 2 : 1;
    }
    /* A short R (fewer blocks than the group is high) with the innermost
     * batch axis next to R in the output: the grid's dimension 1 runs
     * over (batch, block of R) pairs, so that the group's rows write
     * neighbouring output runs (the batch axis's output stride is R's
     * row) and none of them idles. */
    size_t nrb = (nr_eff + vbr - 1) / vbr;
    bool fold = blocks && nb > 0 && nrb < wgy && bout[0] == nr_eff &&
                ostr[nd - 1] == 1;
    /* A short A (fewer blocks than the group is wide) with the input axis
     * right outside it in the batch (its input stride is A's length): the
     * grid's dimension 0 runs over (that axis, block of A) pairs, so that
     * a group's input rows continue across it (4 KiB runs instead of 1 KiB
     * for a 256-long A of f32) and none of its columns idles. The axis
     * leaves the batch. */
    size_t vb = esz >= 4 ? (size_t)p[TR_LANES] : 16;
    size_t nab = (pl.shape[A] + vb - 1) / vb, fa_n = 0, fa_in = 0, fa_out = 0;
    if (blocks && nab < tile)
      for (cl_int j = fold ? 1 : 0; j < nb; j++)
        if (bin[j] == pl.shape[A]) {
          fa_n = bshape[j], fa_in = bin[j], fa_out = bout[j];
          batch_drop(bshape, bin, bout, &nb, j);
          batch /= fa_n;
          break;
        }
    vncl__ops_arg na = vncl__ops_idx(bits, pl.shape[A]);
    vncl__ops_arg nr = vncl__ops_idx(bits, nr_eff);
    vncl__ops_arg isr = vncl__ops_idx(bits, istr[R]);
    vncl__ops_arg osa = vncl__ops_idx(bits, ostr[q]);
    vncl__ops_arg vs = vncl__ops_idx8(bits, bshape, nb);
    vncl__ops_arg vi = vncl__ops_idx8(bits, bin, nb);
    vncl__ops_arg vo = vncl__ops_idx8(bits, bout, nb);
    s = vncl__set_args(ctx, k.k, 12, VNCL_OPS_ARG(na), VNCL_OPS_ARG(nr),
                       VNCL_OPS_ARG(isr), VNCL_OPS_ARG(osa), VNCL_ARG(nb),
                       VNCL_OPS_ARG(vs), VNCL_OPS_ARG(vi), VNCL_OPS_ARG(vo),
                       VNCL_ARG(x->mem), VNCL_OPS_ARG(ioff),
                       VNCL_ARG(out->mem), VNCL_OPS_ARG(ooff));
    size_t global[3] = {vncl__round_up(pl.shape[A], tile),
                        vncl__round_up(pl.shape[R], tile) / tile * wgy,
                        batch};
    size_t local[3] = {tile, wgy, 1};
    if (!s && blocks) {
      /* Flat (the kernel's fla): planes that would leave more than half
       * of every group of the grid idle, with no fold to fill them. The
       * CPU row's 64 x 16 groups covered a 64 x 256 plane with 64 of
       * their 1024 work-items. */
      size_t gna = fa_n ? nab * fa_n : nab, gnr = fold ? nrb * batch : nrb;
      bool flat = !fold && !fa_n &&
                  2 * gna * gnr < vncl__round_up(gna, tile) *
                                      vncl__round_up(gnr, wgy);
      vncl__ops_arg anrb = vncl__ops_idx(bits, fold || flat ? nrb : 0);
      vncl__ops_arg anbt = vncl__ops_idx(bits, fold || flat ? batch : 0);
      vncl__ops_arg anab = vncl__ops_idx(bits, fa_n ? nab : 0);
      vncl__ops_arg anba = vncl__ops_idx(bits, fa_n);
      vncl__ops_arg afin = vncl__ops_idx(bits, fa_in);
      vncl__ops_arg afout = vncl__ops_idx(bits, fa_out);
      cl_int err = clSetKernelArg(k.k, 12, sizeof nt, &nt);
      if (err == CL_SUCCESS) err = clSetKernelArg(k.k, 13, anrb.size, &anrb.v);
      if (err == CL_SUCCESS) err = clSetKernelArg(k.k, 14, anbt.size, &anbt.v);
      if (err == CL_SUCCESS) err = clSetKernelArg(k.k, 15, anab.size, &anab.v);
      if (err == CL_SUCCESS) err = clSetKernelArg(k.k, 16, anba.size, &anba.v);
      if (err == CL_SUCCESS) err = clSetKernelArg(k.k, 17, afin.size, &afin.v);
      if (err == CL_SUCCESS)
        err = clSetKernelArg(k.k, 18, afout.size, &afout.v);
      vncl__ops_arg anr0 = vncl__ops_idx(bits, nr0);
      vncl__ops_arg aisq = vncl__ops_idx(bits, isq);
      vncl__ops_arg afla = vncl__ops_idx(bits, flat ? nab : 0);
      if (err == CL_SUCCESS) err = clSetKernelArg(k.k, 19, anr0.size, &anr0.v);
      if (err == CL_SUCCESS) err = clSetKernelArg(k.k, 20, aisq.size, &aisq.v);
      if (err == CL_SUCCESS) err = clSetKernelArg(k.k, 21, afla.size, &afla.v);
      if (err != CL_SUCCESS)
        s = vncl__cl_fail(ctx, err, "clSetKernelArg(12 .. 21)");
      global[0] = vncl__round_up(fa_n ? nab * fa_n : nab, tile);
      global[1] = vncl__round_up(fold ? nrb * batch : nrb, wgy);
      global[2] = fold ? 1 : batch;
      if (flat) {
        global[0] = tile;
        global[1] = vncl__round_up(nab * nrb * batch, tile * wgy) / tile;
        global[2] = 1;
      }
    }
    if (!s)
      s = vncl__launch_work(ctx, "transpose", k.k, 3, global, local, 0, NULL,
                            NULL, 0, bytes);
  } else if (rows) {
    /* Output dimensions 0 .. nd-2, innermost first. */
    size_t shp[8], is[8];
    for (int j = 0; j < nd - 1; j++) {
      shp[j] = oshape[nd - 2 - j];
      is[j] = istr[pl.perm[nd - 2 - j]];
    }
    size_t L = pl.shape[A], nrows = x->numel / L;
    size_t nruns = (L + ROW_RUN - 1) / ROW_RUN;
    cl_int cnd = nd - 1;
    vncl__ops_arg an = vncl__ops_idx(bits, nrows), al = vncl__ops_idx(bits, L);
    vncl__ops_arg ar = vncl__ops_idx(bits, nruns);
    vncl__ops_arg vs = vncl__ops_idx8(bits, shp, nd - 1);
    vncl__ops_arg vi = vncl__ops_idx8(bits, is, nd - 1);
    s = vncl__set_args(ctx, k.k, 10, VNCL_OPS_ARG(an), VNCL_OPS_ARG(al),
                       VNCL_OPS_ARG(ar), VNCL_ARG(cnd), VNCL_OPS_ARG(vs),
                       VNCL_OPS_ARG(vi), VNCL_ARG(x->mem), VNCL_OPS_ARG(ioff),
                       VNCL_ARG(out->mem), VNCL_OPS_ARG(ooff));
    size_t wg = tile * wgy, global = vncl__round_up(nrows * nruns, wg);
    if (!s)
      s = vncl__launch_work(ctx, "permute", k.k, 1, &global, &wg, 0, NULL,
                            NULL, 0, bytes);
  } else {
    size_t shp[8], is[8];
    for (int j = 0; j < nd; j++) {
      shp[j] = oshape[nd - 1 - j];
      is[j] = istr[pl.perm[nd - 1 - j]];
    }
    cl_int cnd = nd;
    vncl__ops_arg an = vncl__ops_idx(bits, x->numel);
    vncl__ops_arg vs = vncl__ops_idx8(bits, shp, nd);
    vncl__ops_arg vi = vncl__ops_idx8(bits, is, nd);
    s = vncl__set_args(ctx, k.k, 8, VNCL_OPS_ARG(an), VNCL_ARG(cnd),
                       VNCL_OPS_ARG(vs), VNCL_OPS_ARG(vi), VNCL_ARG(x->mem),
                       VNCL_OPS_ARG(ioff), VNCL_ARG(out->mem),
                       VNCL_OPS_ARG(ooff));
    size_t wg = tile * wgy;
    size_t global = vncl__round_up(x->numel, wg);
    if (!s)
      s = vncl__launch_work(ctx, "permute", k.k, 1, &global,
                            &wg, 0, NULL, NULL, 0, bytes);
  }
  vncl__ops_kernel_put(ctx, &k);
  return s;
}

static vncl_status check_args(vncl_context *ctx, const char *fn,
                              const vncl_tensor *x, const vncl_tensor *out) {
  vncl_status s = vncl__ops_check_ctx(ctx, fn);
  if (!s) s = vncl__ops_check_tensor(ctx, x, fn, "x");
  if (!s) s = vncl__ops_check_tensor(ctx, out, fn, "out");
  return s;
}

vncl_status vncl_permute(vncl_context *ctx, const vncl_tensor *x,
                         const int *perm, vncl_tensor *out) {
  const char *fn = "vncl_permute";
  vncl_status s = check_args(ctx, fn, x, out);
  if (s) return s;
  if (!perm) return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: perm is NULL", fn);
  return permute_run(ctx, fn, x, perm, out);
}

vncl_status vncl_transpose(vncl_context *ctx, const vncl_tensor *x,
                           vncl_tensor *out) {
  const char *fn = "vncl_transpose";
  vncl_status s = check_args(ctx, fn, x, out);
  if (s) return s;
  if (x->ndim < 2)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: x has %d dimension; transpose needs 2 or more", fn,
                      x->ndim);
  int perm[VNCL_MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) perm[i] = i;
  perm[x->ndim - 1] = x->ndim - 2;
  perm[x->ndim - 2] = x->ndim - 1;
  return permute_run(ctx, fn, x, perm, out);
}
