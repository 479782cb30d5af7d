/* Host references (common_ref.h). */
#include <math.h>

#include "common_ref.h"

void t_ref_gemm(bool ta, bool tb, size_t m, size_t n, size_t k, size_t batch,
                double alpha, const double *a, size_t lda, const double *b,
                size_t ldb, double beta, const double *c, size_t ldc,
                double *ref, double *mag) {
  size_t sa = (ta ? k : m) * lda, sb = (tb ? n : k) * ldb, sc = m * ldc;
  for (size_t g = 0; g < batch; g++) {
    const double *ag = a + g * sa, *bg = b + g * sb;
    for (size_t i = 0; i < m; i++)
      for (size_t j = 0; j < n; j++) {
        double dot = 0, abs = 0;
        for (size_t p = 0; p < k; p++) {
          double x = ag[ta ? p * lda + i : i * lda + p];
          double y = bg[tb ? j * ldb + p : p * ldb + j];
          dot += x * y;
          abs += fabs(x * y);
        }
        double cin = beta == 0 ? 0 : c[g * sc + i * ldc + j];
        size_t o = g * m * n + i * n + j;
        ref[o] = alpha * dot + beta * cin;
        if (mag) mag[o] = fabs(alpha) * abs + fabs(beta * cin);
      }
  }
}
