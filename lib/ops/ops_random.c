/* Uniform and normal random numbers from Philox4x32-10
 * (cl_kernels/random.cl documents the counter layout and formulas). */
#include <math.h>
#include <stdio.h>

#include "ops/ops.h"

static vncl_status random_run(vncl_context *ctx, const char *fn, int normal,
                              vncl_tensor *out, uint64_t seed, uint64_t sub,
                              uint64_t offset, double a, double b) {
  vncl_status s = vncl__ops_check_ctx(ctx, fn);
  if (!s) s = vncl__ops_check_tensor(ctx, out, fn, "out");
  if (!s) s = vncl__ops_check_arith(ctx, out, fn, "out");
  if (s) return s;
  if (normal ? !(isfinite(a) && isfinite(b) && b >= 0)
             : !(isfinite(a) && isfinite(b)))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      normal ? "%s: mean %g and stddev %g must be finite, "
                               "stddev >= 0"
                             : "%s: lo %g and hi %g must be finite",
                      fn, a, b);
  if (out->numel == 0) return VNCL_OK;
  int p[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(ctx, VNCL__OPS_RANDOM, p);
  size_t oo = vncl__ops_elem_offset(out);
  int bits = vncl__ops_idx_bits(out->numel + oo + 8);
  /* Non-temporal whole-vector stores need 64-byte alignment (buffers are
   * aligned to at least 128 bytes in OpenCL 1.2's full profile), and pay
   * for large outputs only (NT_CACHE). */
  int nt = out->offset % 64 == 0 &&
           vncl__ops_nt_pays(ctx, p[RND_NT_CACHE], (double)out->bytes);
  char extra[80];
  snprintf(extra, sizeof extra, "-DDTYPE=%d -DIDX_BITS=%d -DNT_OUT=%d",
           (int)out->dtype, bits, nt);
  vncl__ops_kernel k;
  s = vncl__ops_kernel_get(ctx, VNCL__OPS_RANDOM, p, extra, "philox_fill", &k);
  if (s) return s;
  size_t K = out->dtype == VNCL_F64 ? 2 : 4;
  size_t blocks = (out->numel + K - 1) / K;
  vncl__ops_arg an = vncl__ops_idx(bits, out->numel);
  vncl__ops_arg aoo = vncl__ops_idx(bits, oo);
  /* Uniform: fma(hi - lo, u, lo), the difference taken in double and
   * rounded once to the compute type. */
  vncl__ops_arg ra = vncl__ops_real(out->dtype, a);
  vncl__ops_arg rb = vncl__ops_real(out->dtype, normal ? b : b - a);
  if (!isfinite(out->dtype == VNCL_F64 ? rb.v.d : (double)rb.v.f) ||
      !isfinite(out->dtype == VNCL_F64 ? ra.v.d : (double)ra.v.f)) {
    vncl__ops_kernel_put(ctx, &k);
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: %g and %g overflow %s arithmetic", fn, a, b,
                      out->dtype == VNCL_F64 ? "f64" : "f32");
  }
  cl_int nm = normal;
  cl_ulong sd = seed, sb = sub, of = offset;
  s = vncl__set_args(ctx, k.k, 9, VNCL_OPS_ARG(an), VNCL_ARG(nm),
                     VNCL_ARG(out->mem), VNCL_OPS_ARG(aoo), VNCL_ARG(sd),
                     VNCL_ARG(sb), VNCL_ARG(of), VNCL_OPS_ARG(ra),
                     VNCL_OPS_ARG(rb));
  size_t wg = (size_t)p[RND_WG], bpi = (size_t)p[RND_BPI];
  size_t global = vncl__round_up((blocks + bpi - 1) / bpi, wg);
  if (!s)
    s = vncl__launch_work(ctx, normal ? "random_normal" : "random_uniform",
                          k.k, 1, &global, &wg, 0, NULL, NULL, 0,
                          (double)out->bytes);
  vncl__ops_kernel_put(ctx, &k);
  return s;
}

vncl_status vncl_random_uniform(vncl_context *ctx, vncl_tensor *out,
                                uint64_t seed, uint64_t subsequence,
                                uint64_t offset, double lo, double hi) {
  return random_run(ctx, "vncl_random_uniform", 0, out, seed, subsequence,
                    offset, lo, hi);
}

vncl_status vncl_random_normal(vncl_context *ctx, vncl_tensor *out,
                               uint64_t seed, uint64_t subsequence,
                               uint64_t offset, double mean, double stddev) {
  return random_run(ctx, "vncl_random_normal", 1, out, seed, subsequence,
                    offset, mean, stddev);
}
