/* The product behind `vncl info` and `vncl doctor`: the library's GEMM, as
 * a user calls it. */
#include "cli_matmul.h"

vncl_status cli_matmul_run(vncl_context *ctx, double alpha,
                           const vncl_tensor *a, const vncl_tensor *b,
                           double beta, vncl_tensor *c) {
  return vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, alpha, a, b, beta, c);
}
