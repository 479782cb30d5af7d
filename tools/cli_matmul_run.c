/* The product behind `vncl info` until the tuned GEMM lands: the plain
 * selftest kernel, through the library's internal program cache. */
#include <time.h>

#include "cli_matmul.h"
#include "internal.h"

double cli_now(void) { return vncl__now(); }

vncl_status cli_matmul_run(vncl_context *ctx, double alpha,
                           const vncl_tensor *a, const vncl_tensor *b,
                           double beta, vncl_tensor *c) {
  (void)alpha;
  (void)beta;
  vncl__program *p;
  cl_kernel k;
  vncl_status s =
      vncl__kernel_get(ctx, "selftest.cl", "", "selftest_matmul", &p, &k);
  if (s) return s;
  cl_uint n = (cl_uint)vncl_tensor_dim(a, 0);
  cl_mem am = a->mem, bm = b->mem, cm = c->mem;
  s = vncl__set_args(ctx, k, 4, VNCL_ARG(n), VNCL_ARG(am), VNCL_ARG(bm),
                     VNCL_ARG(cm));
  size_t g[2] = {(n + 7) / 8 * 8, (n + 7) / 8 * 8};
  size_t l[2] = {8, 8};
  if (!s) s = vncl__launch(ctx, "matmul", k, 2, g, l, 0, NULL, NULL);
  vncl__kernel_release(ctx, p, "selftest_matmul", k);
  return s;
}
