/* Host references shared by the tests (through common.h) and by vncl-bench:
 * plain C over the public headers, without cmocka, so that a program that
 * is not a test links test/common_ref.c too. */
#ifndef VNCL_TEST_COMMON_REF_H
#define VNCL_TEST_COMMON_REF_H

#include <stdbool.h>
#include <stddef.h>

/* The reference GEMM, accumulated in double: for each of `batch` products,
 * ref = alpha op(A) op(B) + beta C, and (mag, may be NULL) the size of the
 * terms summed, |alpha| sum_p |a_ip b_pj| + |beta c_ij|, which error bounds
 * scale with. Row-major with leading dimensions: A is (ta ? k x m : m x k)
 * with lda, B (tb ? n x k : k x n) with ldb, C m x n with ldc; the products
 * of a batch follow one another (A's rows times lda apart, and so on).
 * ref and mag are dense: element (g, i, j) at g*m*n + i*n + j. C is not
 * read when beta is 0 (and may be NULL then). */
void t_ref_gemm(bool ta, bool tb, size_t m, size_t n, size_t k, size_t batch,
                double alpha, const double *a, size_t lda, const double *b,
                size_t ldb, double beta, const double *c, size_t ldc,
                double *ref, double *mag);

#endif
