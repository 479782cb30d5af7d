/* Elementwise operations: binary with NumPy broadcasting, with a scalar,
 * axpby, unary functions (cl_kernels/elementwise.cl). */
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"

/* Operation codes of elementwise.cl (OP_*). */
enum ew_op {
  EW_ADD = 0, EW_SUB, EW_MUL, EW_DIV, EW_MAX, EW_MIN, EW_POW,
  EW_RSUB, EW_RDIV, EW_RPOW, EW_AXPBY, EW_SCALE, EW_COPY
};

/* Profile names, one per code (static strings). */
static const char *const ew_names[] = {
    "add", "sub", "mul", "div", "max", "min", "pow", "rsub", "rdiv", "rpow",
    "axpby", "scale", "copy"};
static const char *const unary_names[] = {"neg", "abs", "exp",
                                          "log", "sqrt", "tanh",
                                          "sigmoid", "relu", "gelu"};

/* Everything a launch of elementwise.cl needs beyond its arguments. */
typedef struct ew_launch {
  int p[VNCL__OPS_MAX_PARAMS]; /* WG, VW, IPT, ITEM_CONTIG, NT_STORE */
  int bits;
  vncl__ops_kernel k;
} ew_launch;

/* `out` is the tensor the kernel writes (for the alignment that
 * non-temporal stores need), `bytes` what the call reads and writes (for
 * NT_CACHE); vw, when not 0, replaces the set's VW. */
static vncl_status ew_kernel(vncl_context *ctx, vncl_dtype dt, size_t maxel,
                             const vncl_tensor *out, double bytes,
                             const char *name, int vw, ew_launch *l) {
  vncl__ops_params(ctx, VNCL__OPS_ELEMENTWISE, l->p);
  if (vw) l->p[EW_VW] = vw;
  size_t vbytes = (size_t)l->p[EW_VW] * vncl_dtype_size(dt);
  if (dt == VNCL_F16 || l->p[EW_VW] == 1 || out->offset % vbytes != 0 ||
      !vncl__ops_nt_pays(ctx, l->p[EW_NT_CACHE], bytes))
    l->p[EW_NT_STORE] = 0; /* no non-temporal stores there: one program less */
  l->bits = vncl__ops_idx_bits(maxel);
  char extra[64];
  snprintf(extra, sizeof extra, "-DDTYPE=%d -DIDX_BITS=%d", (int)dt, l->bits);
  return vncl__ops_kernel_get(ctx, VNCL__OPS_ELEMENTWISE, l->p, extra, name,
                              &l->k);
}

/* Enqueues the kernel over `units` (vectors for the contiguous kernels,
 * elements for the broadcast one), WG*IPT per group. */
static vncl_status ew_enqueue(vncl_context *ctx, ew_launch *l, size_t units,
                              const char *op, double bytes, double flops) {
  size_t wg = (size_t)l->p[EW_WG], per = wg * (size_t)l->p[EW_IPT];
  size_t global = (units + per - 1) / per * wg, local = wg;
  return vncl__launch_work(ctx, op, l->k.k, 1, &global, &local, 0, NULL, NULL,
                           flops, bytes);
}

static size_t max_extent(const vncl_tensor *t) {
  return t ? t->numel + vncl__ops_elem_offset(t) : 0;
}

/* out = op(a, b) on a collapsed layout (operands: 0 out, 1 a, 2 b), or
 * op(a, s) when b is NULL. */
static vncl_status ew_run(vncl_context *ctx, int op, const vncl_tensor *a,
                          const vncl_tensor *b, double s, vncl_tensor *out,
                          const vncl__ops_layout *lay, double alpha,
                          double beta) {
  vncl_dtype dt = out->dtype;
  size_t n = out->numel, esz = vncl_dtype_size(dt);
  size_t maxel = max_extent(out);
  if (max_extent(a) > maxel) maxel = max_extent(a);
  if (max_extent(b) > maxel) maxel = max_extent(b);
  bool contig = lay->nd == 1;
  for (int i = 0; contig && i < lay->nops; i++) contig = lay->stride[i][0] == 1;
  /* Rows of at least a vector: the row kernel; else the general one. The
   * vector width is only known with the parameters, so look first. */
  int pv[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(ctx, VNCL__OPS_ELEMENTWISE, pv);
  size_t inner = lay->shape[lay->nd - 1];
  size_t vw = (size_t)pv[EW_VW], ipt = (size_t)pv[EW_IPT];
  /* Rows of at most half a vector, one input running over the whole
   * output and the other a row repeated down the rows or a value per row:
   * ew_binary_period, the output's vectors in P phases (docs/ops.md,
   * "Twenty-first pass"). */
  int period = 0, swap = 0, colp = 0;
  if (b && lay->nd == 2 && inner >= 2 && 2 * inner <= vw) {
    size_t g = vw, r = inner;
    while (r) { size_t t = g % r; g = r; r = t; } /* gcd(vw, inner) */
    size_t P = inner / g;
    /* per operand: f runs over the output, p a repeated row, c a column */
    bool f[3], p[3], c[3];
    for (int i = 1; i < 3; i++) {
      f[i] = lay->stride[i][0] == inner && lay->stride[i][1] == 1;
      p[i] = lay->stride[i][0] == 0 && lay->stride[i][1] == 1;
      c[i] = lay->stride[i][0] == 1 && lay->stride[i][1] == 0;
    }
    if (P <= 8 && ((f[1] && (p[2] || c[2])) || (f[2] && (p[1] || c[1])))) {
      period = (int)P;
      swap = !f[1];
      colp = c[swap ? 1 : 2];
    }
  }
  /* Rows shorter than a vector, where a work-item takes at least two of
   * them: vectors of the widest power of two they hold (a program of its
   * own) in the short-rows kernel below; else the general kernel. */
  int vw_short = 0;
  if (!period && b && !contig && inner >= 2 && inner < vw && ipt >= 4) {
    vw = vncl__ops_short_vw(inner);
    vw_short = (int)vw;
  }
  bool rows = b && !contig && inner >= vw;
  /* Rows of at most half a work-item's IPT vectors (a tail counts as one):
   * ew_binary_short, rpi whole rows per work-item (docs/ops.md,
   * "Twenty-first pass"). */
  size_t slots = inner / vw + (inner % vw != 0);
  int rpi = rows && 2 * slots <= ipt ? (int)(ipt / slots) : 1;
  const char *kname = !b        ? "ew_binary_scalar"
                      : contig  ? "ew_binary_contig"
                      : period  ? "ew_binary_period"
                      : rpi > 1 ? "ew_binary_short"
                      : rows    ? "ew_binary_rows"
                                : "ew_binary_bcast";
  double bytes = (double)(a->numel + (b ? b->numel : 0) + n) * (double)esz;
  ew_launch l;
  vncl_status st = ew_kernel(ctx, dt, maxel, out, bytes, kname, vw_short, &l);
  if (st) return st;
  vncl__ops_arg an = vncl__ops_idx(l.bits, n);
  vncl__ops_arg aoff = vncl__ops_idx(l.bits, vncl__ops_elem_offset(a));
  vncl__ops_arg ooff = vncl__ops_idx(l.bits, vncl__ops_elem_offset(out));
  vncl__ops_arg al = vncl__ops_real(dt, alpha), be = vncl__ops_real(dt, beta);
  cl_int cop = op;
  size_t units;
  if (!b) {
    vncl__ops_arg sv = vncl__ops_real(dt, s);
    st = vncl__set_args(ctx, l.k.k, 9, VNCL_OPS_ARG(an), VNCL_ARG(cop),
                        VNCL_ARG(a->mem), VNCL_OPS_ARG(aoff), VNCL_OPS_ARG(sv),
                        VNCL_ARG(out->mem), VNCL_OPS_ARG(ooff),
                        VNCL_OPS_ARG(al), VNCL_OPS_ARG(be));
    units = (n + (size_t)l.p[EW_VW] - 1) / (size_t)l.p[EW_VW];
  } else if (contig) {
    vncl__ops_arg boff = vncl__ops_idx(l.bits, vncl__ops_elem_offset(b));
    st = vncl__set_args(ctx, l.k.k, 10, VNCL_OPS_ARG(an), VNCL_ARG(cop),
                        VNCL_ARG(a->mem), VNCL_OPS_ARG(aoff), VNCL_ARG(b->mem),
                        VNCL_OPS_ARG(boff), VNCL_ARG(out->mem),
                        VNCL_OPS_ARG(ooff), VNCL_OPS_ARG(al),
                        VNCL_OPS_ARG(be));
    units = (n + (size_t)l.p[EW_VW] - 1) / (size_t)l.p[EW_VW];
  } else if (period) {
    /* x: the input over the whole output; pr: the repeated row or the
     * column */
    const vncl_tensor *x = swap ? b : a, *pr = swap ? a : b;
    vncl__ops_arg xo = vncl__ops_idx(l.bits, vncl__ops_elem_offset(x));
    vncl__ops_arg po = vncl__ops_idx(l.bits, vncl__ops_elem_offset(pr));
    vncl__ops_arg ai = vncl__ops_idx(l.bits, inner);
    cl_int cp = period, cc = colp, cs = swap;
    st = vncl__set_args(ctx, l.k.k, 14, VNCL_OPS_ARG(an), VNCL_OPS_ARG(ai),
                        VNCL_ARG(cp), VNCL_ARG(cc), VNCL_ARG(cop), VNCL_ARG(cs),
                        VNCL_ARG(x->mem), VNCL_OPS_ARG(xo), VNCL_ARG(pr->mem),
                        VNCL_OPS_ARG(po), VNCL_ARG(out->mem),
                        VNCL_OPS_ARG(ooff), VNCL_OPS_ARG(al),
                        VNCL_OPS_ARG(be));
    units = (n + (size_t)l.p[EW_VW] - 1) / (size_t)l.p[EW_VW];
  } else if (rows) {
    /* Component j of the vectors is dimension nd-2-j; the last dimension
     * is the row. */
    int nd = lay->nd;
    size_t shp[8], as[8], bs[8], nrows = n / inner;
    for (int j = 0; j < nd - 1; j++) {
      shp[j] = lay->shape[nd - 2 - j];
      as[j] = lay->stride[1][nd - 2 - j];
      bs[j] = lay->stride[2][nd - 2 - j];
    }
    cl_int cnd = nd, ain = lay->stride[1][nd - 1] != 0,
           bin = lay->stride[2][nd - 1] != 0;
    vncl__ops_arg ar = vncl__ops_idx(l.bits, nrows);
    vncl__ops_arg ai = vncl__ops_idx(l.bits, inner);
    vncl__ops_arg vs = vncl__ops_idx8(l.bits, shp, nd - 1);
    vncl__ops_arg va = vncl__ops_idx8(l.bits, as, nd - 1);
    vncl__ops_arg vb = vncl__ops_idx8(l.bits, bs, nd - 1);
    vncl__ops_arg boff = vncl__ops_idx(l.bits, vncl__ops_elem_offset(b));
    cl_int crpi = rpi;
    if (rpi > 1) /* ew_binary_short: rpi after inner */
      st = vncl__set_args(ctx, l.k.k, 18, VNCL_OPS_ARG(ar), VNCL_OPS_ARG(ai),
                          VNCL_ARG(crpi), VNCL_ARG(cop), VNCL_ARG(cnd),
                          VNCL_OPS_ARG(vs), VNCL_ARG(a->mem),
                          VNCL_OPS_ARG(aoff), VNCL_OPS_ARG(va), VNCL_ARG(ain),
                          VNCL_ARG(b->mem), VNCL_OPS_ARG(boff),
                          VNCL_OPS_ARG(vb), VNCL_ARG(bin), VNCL_ARG(out->mem),
                          VNCL_OPS_ARG(ooff), VNCL_OPS_ARG(al),
                          VNCL_OPS_ARG(be));
    else
      st = vncl__set_args(ctx, l.k.k, 17, VNCL_OPS_ARG(ar), VNCL_OPS_ARG(ai),
                          VNCL_ARG(cop), VNCL_ARG(cnd), VNCL_OPS_ARG(vs),
                          VNCL_ARG(a->mem), VNCL_OPS_ARG(aoff),
                          VNCL_OPS_ARG(va), VNCL_ARG(ain), VNCL_ARG(b->mem),
                          VNCL_OPS_ARG(boff), VNCL_OPS_ARG(vb), VNCL_ARG(bin),
                          VNCL_ARG(out->mem), VNCL_OPS_ARG(ooff),
                          VNCL_OPS_ARG(al), VNCL_OPS_ARG(be));
    /* work-items: rpi rows each (ew_binary_short), or runs of IPT vectors
     * per row (one more vector slot for the row's element tail) */
    size_t items = rpi > 1 ? (nrows + (size_t)rpi - 1) / (size_t)rpi
                           : nrows * ((inner / vw + 1 + ipt - 1) / ipt);
    if (!st) {
      size_t wg = (size_t)l.p[EW_WG], global = vncl__round_up(items, wg);
      st = vncl__launch_work(ctx, ew_names[op], l.k.k, 1, &global, &wg, 0,
                             NULL, NULL, (double)n, bytes);
    }
    vncl__ops_kernel_put(ctx, &l.k);
    return st;
  } else {
    /* Component j of the vectors is dimension nd-1-j. */
    size_t shp[8], as[8], bs[8];
    for (int j = 0; j < lay->nd; j++) {
      shp[j] = lay->shape[lay->nd - 1 - j];
      as[j] = lay->stride[1][lay->nd - 1 - j];
      bs[j] = lay->stride[2][lay->nd - 1 - j];
    }
    cl_int nd = lay->nd;
    vncl__ops_arg vs = vncl__ops_idx8(l.bits, shp, lay->nd);
    vncl__ops_arg va = vncl__ops_idx8(l.bits, as, lay->nd);
    vncl__ops_arg vb = vncl__ops_idx8(l.bits, bs, lay->nd);
    vncl__ops_arg boff = vncl__ops_idx(l.bits, vncl__ops_elem_offset(b));
    st = vncl__set_args(ctx, l.k.k, 14, VNCL_OPS_ARG(an), VNCL_ARG(cop),
                        VNCL_ARG(nd), VNCL_OPS_ARG(vs), VNCL_ARG(a->mem),
                        VNCL_OPS_ARG(aoff), VNCL_OPS_ARG(va), VNCL_ARG(b->mem),
                        VNCL_OPS_ARG(boff), VNCL_OPS_ARG(vb),
                        VNCL_ARG(out->mem), VNCL_OPS_ARG(ooff),
                        VNCL_OPS_ARG(al), VNCL_OPS_ARG(be));
    units = n;
  }
  if (!st) st = ew_enqueue(ctx, &l, units, ew_names[op], bytes, (double)n);
  vncl__ops_kernel_put(ctx, &l.k);
  return st;
}

/* Broadcast shape of a and b into shape/nd; false (and a message) when
 * they do not broadcast. */
static vncl_status broadcast_shape(vncl_context *ctx, const char *fn,
                                   const vncl_tensor *a, const vncl_tensor *b,
                                   int *nd, int64_t *shape) {
  int n = a->ndim > b->ndim ? a->ndim : b->ndim;
  for (int i = 0; i < n; i++) { /* i counts from the last dimension */
    int64_t da = i < a->ndim ? a->shape[a->ndim - 1 - i] : 1;
    int64_t db = i < b->ndim ? b->shape[b->ndim - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      char sa[160], sb[160];
      return vncl__fail(
          ctx, VNCL_ERR_INVALID_ARG,
          "%s: shapes %s and %s do not broadcast (dimension %d from the end: "
          "%lld vs %lld)",
          fn, vncl__ops_shape_str(a->ndim, a->shape, sa, sizeof sa),
          vncl__ops_shape_str(b->ndim, b->shape, sb, sizeof sb), i + 1,
          (long long)da, (long long)db);
    }
    shape[n - 1 - i] = da == 1 ? db : da;
  }
  *nd = n;
  return VNCL_OK;
}

/* Strides of t (row-major, contiguous) seen in an output of nd dims, 0 on
 * broadcast dimensions. */
static void bcast_strides(const vncl_tensor *t, int nd, const int64_t *oshape,
                          size_t *stride) {
  size_t s = 1;
  for (int i = nd - 1; i >= 0; i--) {
    int ti = i - (nd - t->ndim);
    if (ti < 0) {
      stride[i] = 0;
      continue;
    }
    size_t d = (size_t)t->shape[ti];
    stride[i] = (d == 1 && oshape[i] != 1) ? 0 : s;
    s *= d;
  }
}

static vncl_status check_out_shape(vncl_context *ctx, const char *fn,
                                   const vncl_tensor *out, int nd,
                                   const int64_t *shape) {
  bool same = out->ndim == nd;
  for (int i = 0; same && i < nd; i++) same = out->shape[i] == shape[i];
  if (!same) {
    char so[160], sb[160];
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: out shape %s is not the broadcast shape %s", fn,
                      vncl__ops_shape_str(out->ndim, out->shape, so, sizeof so),
                      vncl__ops_shape_str(nd, shape, sb, sizeof sb));
  }
  return VNCL_OK;
}

/* Checks shared by the binary entries: tensors, operation, dtypes. `b` is
 * required when `has_b` (else the call has a scalar and the tensor is x). */
static vncl_status check_binary_args(vncl_context *ctx, const char *fn,
                                     int op, const vncl_tensor *a,
                                     const vncl_tensor *b, bool has_b,
                                     const vncl_tensor *out) {
  const char *aname = has_b ? "a" : "x";
  vncl_status s = vncl__ops_check_ctx(ctx, fn);
  if (!s) s = vncl__ops_check_tensor(ctx, a, fn, aname);
  if (!s && has_b) s = vncl__ops_check_tensor(ctx, b, fn, "b");
  if (!s) s = vncl__ops_check_tensor(ctx, out, fn, "out");
  if (!s && (op < 0 || op > VNCL_POW))
    s = vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: unknown operation %d", fn,
                   op);
  if (!s) s = vncl__ops_check_arith(ctx, a, fn, aname);
  if (!s && has_b) s = vncl__ops_check_same_dtype(ctx, a, b, fn, "a", "b");
  if (!s) s = vncl__ops_check_same_dtype(ctx, a, out, fn, aname, "out");
  return s;
}

static vncl_status binary_bcast(vncl_context *ctx, const char *fn, int op,
                                const vncl_tensor *a, const vncl_tensor *b,
                                vncl_tensor *out, double alpha, double beta) {
  int nd;
  int64_t shape[VNCL_MAX_DIMS];
  vncl_status s = broadcast_shape(ctx, fn, a, b, &nd, shape);
  if (!s) s = check_out_shape(ctx, fn, out, nd, shape);
  if (s || out->numel == 0) return s;
  vncl__ops_layout lay = {0};
  lay.nd = nd;
  lay.nops = 3;
  for (int i = 0; i < nd; i++) lay.shape[i] = (size_t)shape[i];
  bcast_strides(out, nd, shape, lay.stride[0]);
  bcast_strides(a, nd, shape, lay.stride[1]);
  bcast_strides(b, nd, shape, lay.stride[2]);
  vncl__ops_collapse(&lay);
  return ew_run(ctx, op, a, b, 0, out, &lay, alpha, beta);
}

vncl_status vncl_binary(vncl_context *ctx, vncl_binary_op op,
                        const vncl_tensor *a, const vncl_tensor *b,
                        vncl_tensor *out) {
  const char *fn = "vncl_binary";
  vncl_status s = check_binary_args(ctx, fn, (int)op, a, b, true, out);
  if (s) return s;
  return binary_bcast(ctx, fn, (int)op, a, b, out, 1, 0);
}

/* out = op(a, s), or op(s, a) when `left`. */
static vncl_status binary_scalar(vncl_context *ctx, const char *fn, int op,
                                 bool left, const vncl_tensor *a, double sv,
                                 vncl_tensor *out) {
  static const int reversed[] = {EW_ADD, EW_RSUB, EW_MUL, EW_RDIV,
                                 EW_MAX, EW_MIN,  EW_RPOW};
  vncl_status s = check_binary_args(ctx, fn, op, a, NULL, false, out);
  if (!s) s = vncl__ops_check_same_shape(ctx, a, out, fn, "x", "out");
  if (s || out->numel == 0) return s;
  vncl__ops_layout lay = {0};
  lay.nd = 1;
  lay.nops = 2;
  lay.shape[0] = out->numel;
  lay.stride[0][0] = lay.stride[1][0] = 1;
  return ew_run(ctx, left ? reversed[op] : op, a, NULL, sv, out, &lay, 1, 0);
}

vncl_status vncl_binary_scalar(vncl_context *ctx, vncl_binary_op op,
                               const vncl_tensor *a, double s,
                               vncl_tensor *out) {
  return binary_scalar(ctx, "vncl_binary_scalar", (int)op, false, a, s, out);
}

vncl_status vncl_scalar_binary(vncl_context *ctx, vncl_binary_op op, double s,
                               const vncl_tensor *a, vncl_tensor *out) {
  return binary_scalar(ctx, "vncl_scalar_binary", (int)op, true, a, s, out);
}

vncl_status vncl_axpby(vncl_context *ctx, double alpha, const vncl_tensor *x,
                       double beta, vncl_tensor *y) {
  const char *fn = "vncl_axpby";
  vncl_status s = vncl__ops_check_ctx(ctx, fn);
  if (!s) s = vncl__ops_check_tensor(ctx, x, fn, "x");
  if (!s) s = vncl__ops_check_tensor(ctx, y, fn, "y");
  if (!s) s = vncl__ops_check_arith(ctx, x, fn, "x");
  if (!s) s = vncl__ops_check_same_dtype(ctx, x, y, fn, "x", "y");
  if (s) return s;
  /* y is both an input and the output: x must broadcast to y's shape. */
  int nd;
  int64_t shape[VNCL_MAX_DIMS];
  s = broadcast_shape(ctx, fn, x, y, &nd, shape);
  if (!s) {
    bool same = nd == y->ndim;
    for (int i = 0; same && i < nd; i++) same = shape[i] == y->shape[i];
    if (!same) {
      char sx[160], sy[160];
      s = vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                     "%s: x of shape %s does not broadcast to y's shape %s",
                     fn, vncl__ops_shape_str(x->ndim, x->shape, sx, sizeof sx),
                     vncl__ops_shape_str(y->ndim, y->shape, sy, sizeof sy));
    }
  }
  if (s) return s;
  return binary_bcast(ctx, fn, beta == 0 ? EW_SCALE : EW_AXPBY, x, y, y,
                      alpha, beta);
}

vncl_status vncl_unary(vncl_context *ctx, vncl_unary_op op,
                       const vncl_tensor *x, vncl_tensor *out) {
  const char *fn = "vncl_unary";
  vncl_status s = vncl__ops_check_ctx(ctx, fn);
  if (!s) s = vncl__ops_check_tensor(ctx, x, fn, "x");
  if (!s) s = vncl__ops_check_tensor(ctx, out, fn, "out");
  if (!s && (op < 0 || op > VNCL_GELU))
    s = vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: unknown operation %d", fn,
                   (int)op);
  if (!s) s = vncl__ops_check_arith(ctx, x, fn, "x");
  if (!s) s = vncl__ops_check_same_dtype(ctx, x, out, fn, "x", "out");
  if (!s) s = vncl__ops_check_same_shape(ctx, x, out, fn, "x", "out");
  if (s || x->numel == 0) return s;
  size_t maxel = max_extent(x) > max_extent(out) ? max_extent(x)
                                                 : max_extent(out);
  ew_launch l;
  s = ew_kernel(ctx, x->dtype, maxel, out, 2.0 * (double)x->bytes,
                "ew_unary_contig", 0, &l);
  if (s) return s;
  size_t n = x->numel;
  vncl__ops_arg an = vncl__ops_idx(l.bits, n);
  vncl__ops_arg xoff = vncl__ops_idx(l.bits, vncl__ops_elem_offset(x));
  vncl__ops_arg ooff = vncl__ops_idx(l.bits, vncl__ops_elem_offset(out));
  cl_int cop = (cl_int)op;
  s = vncl__set_args(ctx, l.k.k, 6, VNCL_OPS_ARG(an), VNCL_ARG(cop),
                     VNCL_ARG(x->mem), VNCL_OPS_ARG(xoff), VNCL_ARG(out->mem),
                     VNCL_OPS_ARG(ooff));
  if (!s)
    s = ew_enqueue(ctx, &l, (n + (size_t)l.p[EW_VW] - 1) / (size_t)l.p[EW_VW],
                   unary_names[op],
                   2.0 * (double)n * (double)vncl_dtype_size(x->dtype),
                   (double)n);
  vncl__ops_kernel_put(ctx, &l.k);
  return s;
}
