/*
 * vncl_gemm_common.cl - what the GEMM kernels share: the storage-type block.
 * The program builder (lib/runtime/program.c) puts this text in front of
 * gemm_direct.cl, gemm_packed_cpu.cl, gemm_packed_local.cl, gemm_ref.cl and
 * gemm_small.cl only, after vncl_prelude.cl and before the file, each part
 * behind a `#line 1` (so build logs count each file's own lines), and the
 * binary-cache key hashes it with them: a change here rebuilds those
 * programs. It cannot sit in the prelude: ACC, LOAD_C, STORE_C and the like
 * are names the ops kernels define their own way. Kernel files do not
 * include it.
 *
 * The host passes the storage codes of vncl_prelude.cl's dtype block:
 *   DTYPE_AB  storage of A and B: 0 f32, 1 f64, 2 f16, 3 bf16 (default 0)
 *   DTYPE_C   storage of C, same codes (default DTYPE_AB)
 * and gets:
 *   ACC              the accumulation type, VNCL_REAL(DTYPE_AB) (float, or
 *                    double when A and B are f64; the type of the packed
 *                    scratch of the packed kernels)
 *   AB_T, C_T        the storage types of A/B and of C
 *   LOAD_AB(p, i)    p[i] of A or B as ACC
 *   LOAD_C(p, i)     p[i] of C as ACC
 *   STORE_C(p, i, v) p[i] = v into C
 *   GEMM_DIMS(d)     the sizes, offsets and strides of the ulong16 argument
 *                    as locals (gemm_direct, gemm_small, gemm_ref)
 *   UPDATE_C(cp, x)  *cp = alpha*x + beta*(*cp), C not read when beta == 0
 *                    (needs alpha and beta in scope; gemm_direct, gemm_small)
 * cl_khr_fp64 is enabled when either storage is f64. Only what at least two
 * of the kernels use verbatim lives here; the vector-access macros (VT,
 * VLOAD_C, ...) depend on each kernel's own width macro and stay in the
 * kernels.
 */
#ifndef DTYPE_AB
#define DTYPE_AB 0
#endif
#ifndef DTYPE_C
#define DTYPE_C DTYPE_AB
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

#define ACC VNCL_REAL(DTYPE_AB)
#define AB_T VNCL_STORAGE(DTYPE_AB)
#define LOAD_AB(p, i) ((ACC)VNCL_LOAD(DTYPE_AB, p, i))
#define C_T VNCL_STORAGE(DTYPE_C)
#define LOAD_C(p, i) ((ACC)VNCL_LOAD(DTYPE_C, p, i))
#define STORE_C(p, i, v) VNCL_STORE(DTYPE_C, p, i, v)

/* The sizes, offsets and strides come in one ulong16 argument (one
 * clSetKernelArg and one argument copy per launch instead of fourteen;
 * lib/gemm/gemm.c, gemm_dims): s0 m, s1 n, s2 k, s3-s6 a_off a_rs a_cs
 * a_bs, s7-sa b_off b_rs b_cs b_bs, sb-sd c_off ldc c_bs (se and sf are
 * the kernel's own: gemm_small's batch count and rows per work-item). */
#define GEMM_DIMS(d)                                                           \
    const uint m = (uint)(d).s0, n = (uint)(d).s1, k = (uint)(d).s2;           \
    const ulong a_off = (d).s3, a_rs = (d).s4, a_cs = (d).s5, a_bs = (d).s6;   \
    const ulong b_off = (d).s7, b_rs = (d).s8, b_cs = (d).s9, b_bs = (d).sa;   \
    const ulong c_off = (d).sb, ldc = (d).sc, c_bs = (d).sd

/* C(i,j) = alpha*x + beta*C(i,j) at cp, C not read when beta == 0. */
#define UPDATE_C(cp, x)                                                        \
    {                                                                          \
        ACC y_ = alpha * (x);                                                  \
        if (beta != (ACC)0)                                                    \
            y_ += beta * LOAD_C((cp), 0);                                      \
        STORE_C((cp), 0, y_);                                                  \
    }

/* Column u of a 16 x 16 private block t (t[row][column]) as one vector of
 * ACC: gemm_packed_cpu's B_FUSED transposes. (gemm_pack.cl, which does not
 * take this file, has its own PACK_COLUMN.) */
#define GEMM_COLUMN16(t, u)                                                    \
    ((CAT(ACC, 16))((t)[0][u], (t)[1][u], (t)[2][u], (t)[3][u], (t)[4][u],    \
                    (t)[5][u], (t)[6][u], (t)[7][u], (t)[8][u], (t)[9][u],    \
                    (t)[10][u], (t)[11][u], (t)[12][u], (t)[13][u],           \
                    (t)[14][u], (t)[15][u]))
