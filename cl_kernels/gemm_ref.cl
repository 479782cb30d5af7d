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

/* Storage types: DTYPE_AB, DTYPE_C, ACC, AB_T, LOAD_AB, C_T, LOAD_C and
 * STORE_C, and GEMM_DIMS, come from vncl_gemm_common.cl, which the program builder puts
 * before this file. */


__kernel void gemm_ref(const ACC alpha, const ACC beta,
                       __global const AB_T *a, __global const AB_T *b,
                       __global C_T *c, const ulong16 dims)
{
    GEMM_DIMS(dims);
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
