/* Tensor operations, shared parts: parameter spaces and defaults (data),
 * the options string, kernel fetch with the work-group check, argument
 * checks, shape collapsing, host conversions. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"

/* ---- parameter spaces ------------------------------------------------- */

#define WG_VALUES {8, 16, 32, 64, 128, 256, 512, 1024}
static const vncl__tune_space spaces[VNCL__OPS_FAMILIES] = {
    [VNCL__OPS_ELEMENTWISE] =
        {"elementwise", "elementwise.cl", 5,
         {{"WG", "work-items per work-group", 8, WG_VALUES},
          {"VW", "elements per vector load/store", 5, {1, 2, 4, 8, 16}},
          {"IPT", "vectors per work-item", 7, {1, 2, 4, 8, 16, 32, 64}},
          {"ITEM_CONTIG", "1: a work-item's vectors are consecutive (CPUs); "
           "0: WG apart (GPUs)", 2, {0, 1}},
          {"NT_STORE", "1: non-temporal vector stores where the compiler "
           "has them", 2, {0, 1}}},
         0, -1},
    [VNCL__OPS_CAST] =
        {"cast", "cast.cl", 3,
         {{"WG", "work-items per work-group", 8, WG_VALUES},
          {"IPT", "elements per work-item", 7, {1, 2, 4, 8, 16, 32, 64}},
          {"ITEM_CONTIG", "1: a work-item's elements are consecutive (CPUs); "
           "0: WG apart (GPUs)", 2, {0, 1}}},
         0, -1},
    [VNCL__OPS_TRANSPOSE] =
        {"transpose", "transpose.cl", 3,
         {{"TILE", "tile edge in elements (work-group width)", 4,
           {8, 16, 32, 64}},
          {"WGY", "work-group height (tile rows moved at once)", 5,
           {1, 2, 4, 8, 16}},
          {"ROW_ITEMS", "1: a work-item moves whole tile rows (CPUs); 0: a "
           "tile row is moved by a row of work-items (GPUs)", 2, {0, 1}}},
         0, 1},
    [VNCL__OPS_REDUCE] =
        {"reduce", "reduce.cl", 5,
         {{"WG", "work-items per work-group (power of two)", 8,
           {8, 16, 32, 64, 128, 256, 512, 1024}},
          {"VW", "elements per vector load", 5, {1, 2, 4, 8, 16}},
          {"ITEM_CONTIG", "1: a work-item's part of a row is contiguous "
           "(CPUs); 0: interleaved (GPUs)", 2, {0, 1}},
          {"ROWS_ITEM", "longest row reduced by one work-item (else a "
           "work-group per row)", 6, {0, 16, 64, 1024, 16384, 65536}},
          {"CB", "vectors of columns per work-item (column reductions)", 4,
           {1, 2, 4, 8}}},
         0, -1},
    [VNCL__OPS_SOFTMAX] =
        {"softmax", "softmax.cl", 3,
         {{"WG", "work-items per work-group, one group per row", 8,
           {8, 16, 32, 64, 128, 256, 512, 1024}},
          {"VW", "elements per vector load/store", 5, {1, 2, 4, 8, 16}},
          {"ITEM_CONTIG", "1: a work-item's part of the row is contiguous "
           "(CPUs); 0: interleaved (GPUs)", 2, {0, 1}}},
         0, -1},
    [VNCL__OPS_RANDOM] =
        {"random", "random.cl", 2,
         {{"WG", "work-items per work-group", 8, WG_VALUES},
          {"BPI", "Philox blocks per work-item, one per vector lane", 5,
           {1, 2, 4, 8, 16}}},
         0, -1},
};

_Static_assert(sizeof ((vncl_context *)0)->ops_params ==
                   sizeof(int) * VNCL__OPS_MAX_PARAMS * 8 &&
               VNCL__OPS_FAMILIES <= 8,
               "vncl_context.ops_params must hold every family");

const vncl__tune_space *vncl__ops_space(int f) {
  return f >= 0 && f < VNCL__OPS_FAMILIES ? &spaces[f] : NULL;
}

/* Built-in defaults, looked up vendor + type, then type, then global. The
 * global rows are GPU-shaped (many work-items, coalesced steps); the CPU
 * rows were measured on PoCL 3.1 (2 cores of an AVX-512 guest; docs/ops.md). */
static const struct ops_default {
  const char *vendor;    /* part of the vendor name; "" for any */
  vncl_device_type type; /* 0 for any */
  vncl__ops_family family;
  int values[VNCL__OPS_MAX_PARAMS];
} defaults[] = {
    {"", VNCL_DEVICE_CPU, VNCL__OPS_ELEMENTWISE, {16, 16, 64, 1, 1}},
    {"", VNCL_DEVICE_CPU, VNCL__OPS_CAST, {16, 64, 1}},
    {"", VNCL_DEVICE_CPU, VNCL__OPS_TRANSPOSE, {64, 1, 1}},
    {"", VNCL_DEVICE_CPU, VNCL__OPS_REDUCE, {16, 16, 1, 65536, 4}},
    {"", VNCL_DEVICE_CPU, VNCL__OPS_SOFTMAX, {64, 16, 1}},
    {"", VNCL_DEVICE_CPU, VNCL__OPS_RANDOM, {16, 16}},
    {"", 0, VNCL__OPS_ELEMENTWISE, {256, 4, 1, 0, 0}},
    {"", 0, VNCL__OPS_CAST, {256, 4, 0}},
    {"", 0, VNCL__OPS_TRANSPOSE, {32, 8, 0}},
    {"", 0, VNCL__OPS_REDUCE, {256, 4, 0, 16, 1}},
    {"", 0, VNCL__OPS_SOFTMAX, {256, 4, 0}},
    {"", 0, VNCL__OPS_RANDOM, {256, 1}},
};

static const int *default_values(const vncl_device_info *info,
                                 vncl__ops_family f) {
  const int *best = NULL;
  int best_rank = -1;
  for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++) {
    const struct ops_default *d = &defaults[i];
    if (d->family != f) continue;
    bool vendor_ok = !d->vendor[0] || vncl__contains_nocase(info->vendor,
                                                            d->vendor);
    bool type_ok = !d->type || d->type == info->type;
    if (!vendor_ok || !type_ok) continue;
    int rank = (d->vendor[0] ? 2 : 0) + (d->type ? 1 : 0);
    if (rank > best_rank) {
      best_rank = rank;
      best = d->values;
    }
  }
  return best;
}

const int *vncl__ops_defaults(const vncl_device_info *info,
                              vncl__ops_family f) {
  return f >= 0 && f < VNCL__OPS_FAMILIES ? default_values(info, f) : NULL;
}

/* Local memory the family's kernels declare, at most (8-byte elements). */
static size_t local_bytes(vncl__ops_family f, const int *v) {
  switch (f) {
    case VNCL__OPS_REDUCE: return (size_t)v[0] * 16;
    case VNCL__OPS_SOFTMAX: return (size_t)v[0] * 8;
    case VNCL__OPS_TRANSPOSE: return (size_t)v[0] * (size_t)(v[0] + 1) * 8;
    default: return 0;
  }
}

static size_t wg_total(const vncl__tune_space *sp, const int *v) {
  size_t t = (size_t)v[sp->wg];
  if (sp->wg2 >= 0) t *= (size_t)v[sp->wg2];
  return t;
}

/* Fits values to the device's limits. */
static void fit(const vncl_device_info *info, vncl__ops_family f, int *v) {
  const vncl__tune_space *sp = &spaces[f];
  size_t maxwg = info->max_work_group_size ? info->max_work_group_size : 256;
  /* Halve the second factor first (transpose: WGY), then the first. */
  while (wg_total(sp, v) > maxwg) {
    if (sp->wg2 >= 0 && v[sp->wg2] > 1)
      v[sp->wg2] /= 2;
    else if (v[sp->wg] > 1)
      v[sp->wg] /= 2;
    else
      break;
  }
  if (f == VNCL__OPS_TRANSPOSE && v[1] > v[0]) v[1] = v[0];
  size_t lmax = info->local_mem_bytes;
  while (lmax && local_bytes(f, v) > lmax && v[sp->wg] > 1) {
    v[sp->wg] /= 2;
    if (f == VNCL__OPS_TRANSPOSE && v[1] > v[0]) v[1] = v[0];
  }
  /* A multiple of the preferred multiple, where doubling keeps within the
   * limits (all candidates are powers of two). */
  size_t pref = info->preferred_work_group_multiple;
  if (pref > 1 && (pref & (pref - 1)) == 0) {
    int *grow = f == VNCL__OPS_TRANSPOSE ? &v[1] : &v[sp->wg];
    while (wg_total(sp, v) % pref != 0 && wg_total(sp, v) * 2 <= maxwg) {
      *grow *= 2;
      if (f == VNCL__OPS_TRANSPOSE && v[1] > v[0]) {
        v[1] = v[0];
        break;
      }
      if (lmax && local_bytes(f, v) > lmax) {
        *grow /= 2;
        break;
      }
    }
  }
}

void vncl__ops_params(vncl_context *ctx, vncl__ops_family f, int *values) {
  memset(values, 0, VNCL__OPS_MAX_PARAMS * sizeof *values);
  pthread_mutex_lock(&ctx->lock);
  memcpy(values, ctx->ops_params[f], VNCL__OPS_MAX_PARAMS * sizeof *values);
  pthread_mutex_unlock(&ctx->lock);
  if (values[0] == 0) {
    const int *d = default_values(&ctx->info, f);
    if (d) memcpy(values, d, VNCL__OPS_MAX_PARAMS * sizeof *values);
  }
  fit(&ctx->info, f, values);
}

vncl_status vncl__ops_params_set(vncl_context *ctx, vncl__ops_family f,
                                 const int *values) {
  const vncl__tune_space *sp = vncl__ops_space(f);
  if (!ctx || !sp)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "ops parameters: %s", !ctx ? "ctx is NULL"
                                                 : "unknown kernel family");
  int v[VNCL__OPS_MAX_PARAMS] = {0};
  if (values) {
    for (int i = 0; i < sp->nparams; i++) {
      bool ok = false;
      for (int j = 0; j < sp->params[i].nvalues; j++)
        ok |= sp->params[i].values[j] == values[i];
      if (!ok)
        return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                          "ops parameters: %s=%d is not a candidate of the "
                          "%s space",
                          sp->params[i].name, values[i], sp->family);
      v[i] = values[i];
    }
  }
  pthread_mutex_lock(&ctx->lock);
  memcpy(ctx->ops_params[f], v, sizeof v);
  pthread_mutex_unlock(&ctx->lock);
  return VNCL_OK;
}

void vncl__ops_options(vncl__ops_family f, const int *values,
                       const char *extra, char *out, size_t cap) {
  const vncl__tune_space *sp = &spaces[f];
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < sp->nparams && n < cap; i++)
    n += (size_t)snprintf(out + n, cap - n, "%s-D%s=%d", i ? " " : "",
                          sp->params[i].name, values[i]);
  if (extra && extra[0] && n < cap)
    snprintf(out + n, cap - n, " %s", extra);
}

vncl_status vncl__ops_kernel_get(vncl_context *ctx, vncl__ops_family f,
                                 int *values, const char *extra,
                                 const char *name, vncl__kernel *out) {
  const vncl__tune_space *sp = &spaces[f];
  for (int attempt = 0;; attempt++) {
    char opts[512];
    vncl__ops_options(f, values, extra, opts, sizeof opts);
    vncl_status s = vncl__kernel_get(ctx, sp->source, opts, name, out);
    if (s) return s;
    size_t want = wg_total(sp, values), kwg;
    if (vncl__kernel_wg_fits(ctx, out, want, &kwg)) return VNCL_OK;
    vncl__kernel_put(ctx, out);
    int *shrink = sp->wg2 >= 0 && values[sp->wg2] > 1 ? &values[sp->wg2]
                                                       : &values[sp->wg];
    if (attempt >= 6 || *shrink <= 1)
      return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                        "kernel %s (%s) allows %zu work-items per group on "
                        "this device, fewer than the smallest candidate",
                        name, sp->source, kwg);
    vncl__log(VNCL_LOG_INFO, "%s allows %zu work-items per group, not %zu: "
              "halving", name, kwg, want);
    *shrink /= 2;
  }
}

/* ---- checks ------------------------------------------------------------ */

vncl_status vncl__ops_check_ctx(const vncl_context *ctx, const char *fn) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
  return VNCL_OK;
}

vncl_status vncl__ops_check_tensor(vncl_context *ctx, const vncl_tensor *t,
                                   const char *fn, const char *what) {
  if (!t)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s is NULL", fn, what);
  if (t->ctx != ctx)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: %s belongs to another context", fn, what);
  return VNCL_OK;
}

vncl_status vncl__ops_check_arith(vncl_context *ctx, const vncl_tensor *t,
                                  const char *fn, const char *what) {
  switch (t->dtype) {
    case VNCL_F32:
    case VNCL_F16:
    case VNCL_BF16: return VNCL_OK;
    case VNCL_F64:
      if (!ctx->info.fp64)
        return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                          "%s: %s is f64 and device '%s' has no fp64", fn,
                          what, ctx->info.name);
      return VNCL_OK;
    case VNCL_I32:
      return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                        "%s: %s is i32; this operation takes f32, f64, f16 "
                        "or bf16", fn, what);
  }
  return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s has unknown dtype %d",
                    fn, what, (int)t->dtype);
}

vncl_status vncl__ops_check_same_dtype(vncl_context *ctx,
                                       const vncl_tensor *a,
                                       const vncl_tensor *b, const char *fn,
                                       const char *aname, const char *bname) {
  if (a->dtype != b->dtype)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: dtype mismatch: %s is %s, %s is %s", fn, aname,
                      vncl_dtype_name(a->dtype), bname,
                      vncl_dtype_name(b->dtype));
  return VNCL_OK;
}

vncl_status vncl__ops_check_same_shape(vncl_context *ctx,
                                       const vncl_tensor *a,
                                       const vncl_tensor *b, const char *fn,
                                       const char *aname, const char *bname) {
  bool same = a->ndim == b->ndim;
  for (int i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
  if (!same) {
    char sa[160], sb[160];
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: shape mismatch: %s is %s, %s is %s", fn, aname,
                      vncl__shape_str(a->ndim, a->shape, sa, sizeof sa),
                      bname,
                      vncl__shape_str(b->ndim, b->shape, sb, sizeof sb));
  }
  return VNCL_OK;
}

int vncl__ops_idx_bits(size_t max_elements) {
  return max_elements < ((size_t)1 << 31) ? 32 : 64;
}

vncl__targ vncl__ops_idx(int bits, size_t v) {
  vncl__targ a;
  memset(&a, 0, sizeof a);
  if (bits == 64) {
    a.size = sizeof(cl_ulong);
    a.v.ul = (cl_ulong)v;
  } else {
    a.size = sizeof(cl_uint);
    a.v.u = (cl_uint)v;
  }
  return a;
}

vncl__targ vncl__ops_idx8(int bits, const size_t *v, int n) {
  vncl__targ a;
  memset(&a, 0, sizeof a);
  for (int i = 0; i < 8; i++) {
    size_t x = i < n ? v[i] : 1;
    if (bits == 64)
      a.v.ul8.s[i] = (cl_ulong)x;
    else
      a.v.u8.s[i] = (cl_uint)x;
  }
  a.size = bits == 64 ? sizeof(cl_ulong8) : sizeof(cl_uint8);
  return a;
}

/* ---- layouts ------------------------------------------------------------ */

void vncl__ops_collapse(vncl__ops_layout *l) {
  vncl__ops_layout c = {0};
  c.nops = l->nops;
  for (int d = 0; d < l->nd; d++) {
    if (l->shape[d] == 1) continue;
    int m = c.nd - 1;
    bool merge = m >= 0;
    for (int op = 0; merge && op < l->nops; op++)
      merge = c.stride[op][m] == l->stride[op][d] * l->shape[d];
    if (merge) {
      c.shape[m] *= l->shape[d];
      for (int op = 0; op < l->nops; op++) c.stride[op][m] = l->stride[op][d];
    } else {
      c.shape[c.nd] = l->shape[d];
      for (int op = 0; op < l->nops; op++)
        c.stride[op][c.nd] = l->stride[op][d];
      c.nd++;
    }
  }
  if (c.nd == 0) { /* one element */
    c.nd = 1;
    c.shape[0] = 1;
    for (int op = 0; op < l->nops; op++) c.stride[op][0] = 1;
  }
  *l = c;
}
