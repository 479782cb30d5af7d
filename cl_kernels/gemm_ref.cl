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

/* The sizes, offsets and strides come in one ulong16 argument (one
 * clSetKernelArg and one argument copy per launch instead of fourteen;
 * lib/gemm/gemm.c, gemm_dims): s0 m, s1 n, s2 k, s3-s6 a_off a_rs a_cs
 * a_bs, s7-sa b_off b_rs b_cs b_bs, sb-sd c_off ldc c_bs. */
#define GEMM_DIMS(d)                                                           \
    const uint m = (uint)(d).s0, n = (uint)(d).s1, k = (uint)(d).s2;           \
    const ulong a_off = (d).s3, a_rs = (d).s4, a_cs = (d).s5, a_bs = (d).s6;   \
    const ulong b_off = (d).s7, b_rs = (d).s8, b_cs = (d).s9, b_bs = (d).sa;   \
    const ulong c_off = (d).sb, ldc = (d).sc, c_bs = (d).sd

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
