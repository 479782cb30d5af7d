/*
 * gemm_ref.cl - naive reference GEMM: the fallback when a tuned kernel cannot
 * be built, and the oracle the tests compare against.
 *
 *   C(i,j) = alpha * sum_p A(i,p) * B(p,j) + beta * C(i,j)
 *
 *   A(i,p) = a[a_off + g*a_bs + i*a_rs + p*a_cs]   (a transpose swaps a_rs/a_cs)
 *   B(p,j) = b[b_off + g*b_bs + p*b_rs + j*b_cs]
 *   C(i,j) = c[c_off + g*c_bs + i*ldc  + j]        (col-major C: swap A and B)
 *
 * One work-item per element of C; g = get_global_id(2) is the batch index.
 *
 *        j = get_global_id(0) ->
 *      +---+---+---+
 *  i   |   |   |   |   each cell: one work-item, a full dot product over k
 *  |   +---+---+---+
 *  v   |   |   |   |   i = get_global_id(1)
 *      +---+---+---+
 *
 * beta == 0 means C is not read, so NaN or Inf in C never reaches the result.
 * Accumulation is in float, or in double when A and B are f64.
 */

/* ---- storage types (the dtype block of vncl_prelude.cl) ----------------- */
#ifndef DTYPE_AB
#define DTYPE_AB 0        /* storage of A and B: 0 f32, 1 f64, 2 f16, 3 bf16 */
#endif
#ifndef DTYPE_C
#define DTYPE_C DTYPE_AB  /* storage of C, same codes */
#endif
#if DTYPE_AB < 0 || DTYPE_AB > 3
#error "DTYPE_AB must be 0, 1, 2 or 3"
#endif
#if DTYPE_C < 0 || DTYPE_C > 3
#error "DTYPE_C must be 0, 1, 2 or 3"
#endif

#if DTYPE_AB == 1 || DTYPE_C == 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define ACC VNCL_REAL(DTYPE_AB) /* accumulation type */
#define AB_T VNCL_STORAGE(DTYPE_AB)
#define LOAD_AB(p, i) ((ACC)VNCL_LOAD(DTYPE_AB, p, i))
#define C_T VNCL_STORAGE(DTYPE_C)
#define LOAD_C(p, i) ((ACC)VNCL_LOAD(DTYPE_C, p, i))
#define STORE_C(p, i, v) VNCL_STORE(DTYPE_C, p, i, v)
/* ------------------------------------------------------------------------- */

__kernel void gemm_ref(const uint m, const uint n, const uint k,
                       const ACC alpha, const ACC beta,
                       __global const AB_T *a, const ulong a_off,
                       const ulong a_rs, const ulong a_cs, const ulong a_bs,
                       __global const AB_T *b, const ulong b_off,
                       const ulong b_rs, const ulong b_cs, const ulong b_bs,
                       __global C_T *c, const ulong c_off,
                       const ulong ldc, const ulong c_bs)
{
    const uint j = get_global_id(0);
    const uint i = get_global_id(1);
    const ulong g = get_global_id(2);
    if (i >= m || j >= n)
        return;

    const ulong ai = a_off + g * a_bs + (ulong)i * a_rs;
    const ulong bj = b_off + g * b_bs + (ulong)j * b_cs;
    ACC sum = (ACC)0;
    for (uint p = 0; p < k; ++p)
        sum += LOAD_AB(a, ai + (ulong)p * a_cs) * LOAD_AB(b, bj + (ulong)p * b_rs);

    const ulong ci = c_off + g * c_bs + (ulong)i * ldc + j;
    ACC r = alpha * sum;
    if (beta != (ACC)0)
        r += beta * LOAD_C(c, ci);
    STORE_C(c, ci, r);
}
