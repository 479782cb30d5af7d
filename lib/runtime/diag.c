/* Public diagnostic queries, for `vncl doctor` and for programs that check
 * a deployment the same way: the state of a context's binary cache, and a
 * test build of the smallest kernel (selftest.cl). */
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

vncl_status vncl_context_cache_info(const vncl_context *ctx,
                                    vncl_cache_info *out) {
  if (!ctx || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !ctx ? "ctx" : "out");
  const vncl__bincache *bc = &ctx->bincache;
  memset(out, 0, sizeof *out);
  if (bc->dir[0]) {
    out->state = VNCL_CACHE_ON;
    vncl__strlcpy(out->dir, bc->dir, sizeof out->dir);
    return VNCL_OK;
  }
  vncl__strlcpy(out->dir, bc->asked, sizeof out->dir);
  if (bc->untrusted.why[0]) {
    out->state = VNCL_CACHE_UNTRUSTED;
    vncl__strlcpy(out->why, bc->untrusted.why, sizeof out->why);
    vncl__strlcpy(out->fix, bc->untrusted.fix, sizeof out->fix);
  } else if (bc->asked[0]) {
    out->state = VNCL_CACHE_UNUSABLE;
    vncl__strlcpy(out->why, bc->unusable[0] ? bc->unusable : "not usable",
                  sizeof out->why);
  } else {
    out->state = VNCL_CACHE_OFF;
  }
  return VNCL_OK;
}

vncl_status vncl_context_selftest(vncl_context *ctx, double *seconds) {
  if (seconds) *seconds = 0;
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  double t0 = vncl__now();
  vncl__kernel k = {0};
  vncl_status s = vncl__kernel_get(ctx, "selftest.cl", "", "selftest_axpy", &k);
  if (seconds) *seconds = vncl__now() - t0;
  vncl__kernel_put(ctx, &k);
  return s;
}
