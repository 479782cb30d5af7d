/* Fill, copy and casts between storage types (cl_kernels/cast.cl). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"

typedef struct cast_launch {
  int p[VNCL__OPS_MAX_PARAMS]; /* WG, IPT */
  int bits;
  vncl__ops_kernel k;
} cast_launch;

/* `bytes`: what the call reads and writes (for NT_CACHE). */
static vncl_status cast_kernel(vncl_context *ctx, size_t maxel, double bytes,
                               const char *name, cast_launch *l) {
  vncl__ops_params(ctx, VNCL__OPS_CAST, l->p);
  if (!vncl__ops_nt_pays(ctx, l->p[CAST_NT_CACHE], bytes))
    l->p[CAST_NT_STORE] = 0;
  l->bits = vncl__ops_idx_bits(maxel);
  char extra[64];
  snprintf(extra, sizeof extra, "-DHAS_FP64=%d -DIDX_BITS=%d",
           ctx->info.fp64 ? 1 : 0, l->bits);
  return vncl__ops_kernel_get(ctx, VNCL__OPS_CAST, l->p, extra, name, &l->k);
}

static vncl_status cast_enqueue(vncl_context *ctx, cast_launch *l, size_t n,
                                const char *op, double bytes) {
  size_t wg = (size_t)l->p[CAST_WG], per = wg * (size_t)l->p[CAST_IPT];
  size_t global = (n + per - 1) / per * wg, local = wg;
  return vncl__launch_work(ctx, op, l->k.k, 1, &global, &local, 0, NULL, NULL,
                           0, bytes);
}

static size_t extent(const vncl_tensor *t) {
  return t->numel + vncl__ops_elem_offset(t);
}

static const char *fill_name(size_t esz) {
  return esz == 2 ? "fill_u16" : esz == 8 ? "fill_u64" : "fill_u32";
}
static const char *copy_name(size_t esz) {
  return esz == 2 ? "copy_u16" : esz == 8 ? "copy_u64" : "copy_u32";
}

vncl_status vncl_fill(vncl_context *ctx, vncl_tensor *t, double value) {
  const char *fn = "vncl_fill";
  vncl_status s = vncl__ops_check_ctx(ctx, fn);
  if (!s) s = vncl__ops_check_tensor(ctx, t, fn, "t");
  if (s) return s;
  /* The value as the bits of t's dtype, rounded as vncl_cast rounds. */
  union {
    cl_ushort h;
    cl_float f;
    cl_int i;
    cl_double d;
  } pat;
  memset(&pat, 0, sizeof pat);
  size_t psize = vncl_dtype_size(t->dtype);
  switch (t->dtype) {
    case VNCL_F32: pat.f = (cl_float)value; break;
    case VNCL_F64: pat.d = value; break;
    case VNCL_F16: pat.h = vncl__f64_to_f16_bits(value); break;
    case VNCL_BF16: pat.h = vncl__f64_to_bf16_bits(value); break;
    case VNCL_I32:
      if (!(value == floor(value) && value >= -2147483648.0 &&
            value <= 2147483647.0))
        return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                          "%s: %g is not a whole number in the i32 range", fn,
                          value);
      pat.i = (cl_int)value;
      break;
    default:
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: t has unknown dtype %d",
                        fn, (int)t->dtype);
  }
  if (t->numel == 0) return VNCL_OK;
  cast_launch l;
  s = cast_kernel(ctx, extent(t), (double)t->bytes, fill_name(psize), &l);
  if (s) return s;
  vncl__ops_arg an = vncl__ops_idx(l.bits, t->numel);
  vncl__ops_arg off = vncl__ops_idx(l.bits, vncl__ops_elem_offset(t));
  s = vncl__set_args(ctx, l.k.k, 4, VNCL_OPS_ARG(an), VNCL_ARG(t->mem),
                     VNCL_OPS_ARG(off), psize, (const void *)&pat);
  if (!s) s = cast_enqueue(ctx, &l, t->numel, "fill", (double)t->bytes);
  vncl__ops_kernel_put(ctx, &l.k);
  return s;
}

static vncl_status check_pair(vncl_context *ctx, const char *fn,
                              const vncl_tensor *src, const vncl_tensor *dst) {
  vncl_status s = vncl__ops_check_ctx(ctx, fn);
  if (!s) s = vncl__ops_check_tensor(ctx, src, fn, "src");
  if (!s) s = vncl__ops_check_tensor(ctx, dst, fn, "dst");
  if (!s) s = vncl__ops_check_same_shape(ctx, src, dst, fn, "src", "dst");
  return s;
}

vncl_status vncl__ops_copy_run(vncl_context *ctx, const vncl_tensor *src,
                               vncl_tensor *dst) {
  if (src->numel == 0 || src == dst) return VNCL_OK;
  size_t esz = vncl_dtype_size(src->dtype);
  size_t maxel = extent(src) > extent(dst) ? extent(src) : extent(dst);
  cast_launch l;
  vncl_status s =
      cast_kernel(ctx, maxel, 2.0 * (double)src->bytes, copy_name(esz), &l);
  if (s) return s;
  vncl__ops_arg an = vncl__ops_idx(l.bits, src->numel);
  vncl__ops_arg so = vncl__ops_idx(l.bits, vncl__ops_elem_offset(src));
  vncl__ops_arg dof = vncl__ops_idx(l.bits, vncl__ops_elem_offset(dst));
  s = vncl__set_args(ctx, l.k.k, 5, VNCL_OPS_ARG(an), VNCL_ARG(src->mem),
                     VNCL_OPS_ARG(so), VNCL_ARG(dst->mem), VNCL_OPS_ARG(dof));
  if (!s)
    s = cast_enqueue(ctx, &l, src->numel, "copy", 2.0 * (double)src->bytes);
  vncl__ops_kernel_put(ctx, &l.k);
  return s;
}

vncl_status vncl_copy(vncl_context *ctx, const vncl_tensor *src,
                      vncl_tensor *dst) {
  const char *fn = "vncl_copy";
  vncl_status s = check_pair(ctx, fn, src, dst);
  if (!s) s = vncl__ops_check_same_dtype(ctx, src, dst, fn, "src", "dst");
  if (s) return s;
  return vncl__ops_copy_run(ctx, src, dst);
}

vncl_status vncl_cast(vncl_context *ctx, const vncl_tensor *src,
                      vncl_tensor *dst) {
  const char *fn = "vncl_cast";
  vncl_status s = check_pair(ctx, fn, src, dst);
  if (s) return s;
  if (src->dtype == dst->dtype) return vncl__ops_copy_run(ctx, src, dst);
  if ((src->dtype == VNCL_F64 || dst->dtype == VNCL_F64) && !ctx->info.fp64)
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "%s: converting %s to %s needs fp64, which device '%s' "
                      "lacks",
                      fn, vncl_dtype_name(src->dtype),
                      vncl_dtype_name(dst->dtype), ctx->info.name);
  if (src->numel == 0) return VNCL_OK;
  size_t maxel = extent(src) > extent(dst) ? extent(src) : extent(dst);
  cast_launch l;
  s = cast_kernel(ctx, maxel, (double)src->bytes + (double)dst->bytes,
                  "cast_contig", &l);
  if (s) return s;
  vncl__ops_arg an = vncl__ops_idx(l.bits, src->numel);
  vncl__ops_arg so = vncl__ops_idx(l.bits, vncl__ops_elem_offset(src));
  vncl__ops_arg dof = vncl__ops_idx(l.bits, vncl__ops_elem_offset(dst));
  cl_int st = (cl_int)src->dtype, dt = (cl_int)dst->dtype;
  s = vncl__set_args(ctx, l.k.k, 7, VNCL_OPS_ARG(an), VNCL_ARG(st),
                     VNCL_ARG(src->mem), VNCL_OPS_ARG(so), VNCL_ARG(dt),
                     VNCL_ARG(dst->mem), VNCL_OPS_ARG(dof));
  if (!s)
    s = cast_enqueue(ctx, &l, src->numel, "cast",
                     (double)src->bytes + (double)dst->bytes);
  vncl__ops_kernel_put(ctx, &l.k);
  return s;
}
