/*
 * gemm_direct.cl - GEMM straight from the caller's strided buffers, with full
 * edge handling: any m, n, k, offsets, row/column strides (so any transpose
 * and layout) and batch. No scratch, one launch: the kernel for small and
 * medium problems, below the switch point to the packed kernels.
 *
 *   C(i,j) = alpha * sum_p A(i,p) * B(p,j) + beta * C(i,j)
 *   A(i,p) = a[a_off + g*a_bs + i*a_rs + p*a_cs]
 *   B(p,j) = b[b_off + g*b_bs + p*b_rs + j*b_cs]
 *   C(i,j) = c[c_off + g*c_bs + i*ldc + j]        g = get_global_id(2)
 *
 * A work-group computes a WGD_M x WGD_N tile of C with LDN x LDM work-items
 * (local size (LDN, LDM, 1)); each work-item holds MWID x NWID accumulators.
 *
 *             <-------------- WGD_N -------------->
 *           ^ +--------+--------+-- --+--------+
 *           | | (0,0)  | (1,0)  |     |        |  DIRECT_LOCAL == 0: work-item
 *     WGD_M | +--------+--------+-- --+--------+  (x,y) owns the contiguous
 *           | | (0,1)  |        |     |        |  MWID x NWID block at row
 *           v +--------+--------+-- --+--------+  y*MWID, column x*NWID; A and
 *                                                 B are read from global memory
 *
 *   DIRECT_LOCAL == 1: each step stages a KWGD-deep slice of A (KWGD x WGD_M)
 *   and B (KWGD x WGD_N) in local memory, zero-filled outside the matrices;
 *   work-item (x,y) owns rows y + LDM*r and columns x + LDN*c (interleaved, so
 *   neighbouring work-items touch neighbouring local words and C elements).
 *
 * Edges without branches in the inner loop: rows >= m and columns >= n are
 * clamped to m-1 / n-1 for loading (DIRECT_LOCAL == 0) and skipped at the
 * store. beta == 0 means C is not read. Accumulation is in float, or double
 * for f64 inputs.
 */

/* ---- tunables ----------------------------------------------------------- */
#ifndef WGD_M
#define WGD_M 8           /* rows of C per work-group */
#endif
#ifndef WGD_N
#define WGD_N 32          /* columns of C per work-group */
#endif
#ifndef LDM
#define LDM 1             /* work-items per work-group along rows (local size 1) */
#endif
#ifndef LDN
#define LDN 1             /* work-items per work-group along columns (local size 0) */
#endif
#ifndef KWGD
#define KWGD 8            /* depth of a local-memory slice (DIRECT_LOCAL), or unroll */
#endif
#ifndef VWD
#define VWD 16            /* vector width over a work-item's columns (DIRECT_LOCAL == 0) */
#endif
#ifndef DIRECT_LOCAL
#define DIRECT_LOCAL 0    /* 1: stage A and B through local memory (GPUs) */
#endif

/* derived */
#define MWID (WGD_M / LDM)      /* rows per work-item */
#define NWID (WGD_N / LDN)      /* columns per work-item */
#define WGSD (LDM * LDN)        /* work-group size */
#if DIRECT_LOCAL
#undef VWD
#define VWD 1
#endif
#define NVD (NWID / VWD)        /* accumulator vectors per row of a work-item */

#if WGD_M % LDM != 0 || WGD_N % LDN != 0 || NWID % VWD != 0
#error "gemm_direct: WGD_M % LDM, WGD_N % LDN and (WGD_N/LDN) % VWD must be 0"
#endif

/* Storage types: DTYPE_AB, DTYPE_C, ACC, AB_T, LOAD_AB, C_T, LOAD_C and
 * STORE_C, and GEMM_DIMS and UPDATE_C, come from vncl_gemm_common.cl, which the program builder puts
 * before this file. */

#if VWD == 1
#define VSUF
#else
#define VSUF VWD
#endif
#define VT CAT(ACC, VSUF)         /* accumulator vector type */

/* VLOAD_AB: VWD consecutive elements as VT; VLOAD_C / VSTORE_C the same for
 * C and back. */
#if VWD == 1
#define VLOAD_AB(p) LOAD_AB((p), 0)
#define VSTORE_ACC(v, p) (*(p) = (v))
#define VLOAD_ACC(p) (*(p))
#define VLOAD_C(p) LOAD_C((p), 0)
#define VSTORE_C(v, p) STORE_C((p), 0, (v))
#else
#define VLOAD_AB(p) VNCL_VLOAD(DTYPE_AB, VWD, 0, p)
#define VSTORE_ACC(v, p) CAT(vstore, VWD)((v), 0, (p))
#define VLOAD_ACC(p) CAT(vload, VWD)(0, (p))
#define VLOAD_C(p) CAT(convert_, VT)(VNCL_VLOAD(DTYPE_C, VWD, 0, p))
#define VSTORE_C(v, p) VNCL_VSTORE(DTYPE_C, VWD, p, 0, v)
#endif

/* KWA consecutive elements of a row of A as ACC values (A_ROWVEC): KWGD of
 * them, and 4 for 16-bit storage where KWGD is 1. Broadcasting one 16-bit
 * element a depth widens it in a general register first (a shift for
 * bf16, vcvtph2ps of one lane for f16), and with 24 zmm accumulators that
 * left bf16 spilling accumulators in the hot loop (perf annotate); four at
 * once are widened as one vector and broadcast from the stack. Zen 4 EPYC,
 * 2026-12-03, one process, 6 x 64 tiles, against f32's own: bf16 512^3
 * 0.74-0.76x -> 1.00x, f16 0.94-0.95x -> 0.97-0.98x; as AVX2 code (6 x 16)
 * at 256^3 bf16 0.76x -> 0.92x, f16 0.54x -> 0.81x. */
#if !DIRECT_LOCAL && KWGD == 1 && DTYPE_AB >= 2
#define KWA 4
#else
#define KWA KWGD
#endif
#if !DIRECT_LOCAL && (KWA == 2 || KWA == 4 || KWA == 8 || KWA == 16)
#define A_ROWVEC 1
#define VLOAD_A_K(p) VNCL_VLOAD(DTYPE_AB, KWA, 0, p)
#else
#define A_ROWVEC 0
#endif
/* ------------------------------------------------------------------------- */


__kernel
#if DIRECT_LOCAL
__attribute__((reqd_work_group_size(LDN, LDM, 1)))
#endif
void gemm_direct(const ACC alpha, const ACC beta,
                 __global const AB_T *a, __global const AB_T *b,
                 __global C_T *c, const ulong16 dims)
{
    GEMM_DIMS(dims);
    const uint x = get_local_id(0), y = get_local_id(1);
    const uint ib = get_group_id(1) * WGD_M, jb = get_group_id(0) * WGD_N;
    const ulong g = get_global_id(2);
    a += a_off + g * a_bs;
    b += b_off + g * b_bs;
    c += c_off + g * c_bs;

#if !DIRECT_LOCAL
    const uint i0 = ib + y * MWID, j0 = jb + x * NWID;
    if (i0 >= m || j0 >= n)
        return;

    __global const AB_T *arow[MWID];
    #pragma unroll
    for (uint r = 0; r < MWID; ++r)
        arow[r] = a + (ulong)min(i0 + r, m - 1) * a_rs;

    VT acc[MWID][NVD];
    #pragma unroll
    for (uint r = 0; r < MWID; ++r)
        #pragma unroll
        for (uint v = 0; v < NVD; ++v)
            acc[r][v] = (VT)0;

    /* One depth step p with the row of B already in bv[]. */
#define STEP(p)                                                                \
    {                                                                          \
        _Pragma("unroll")                                                      \
        for (uint r_ = 0; r_ < MWID; ++r_) {                                   \
            const VT av_ = (VT)LOAD_AB(arow[r_], (ulong)(p) * a_cs);           \
            _Pragma("unroll")                                                  \
            for (uint v_ = 0; v_ < NVD; ++v_)                                  \
                acc[r_][v_] = fma(av_, bv[v_], acc[r_][v_]);                   \
        }                                                                      \
    }

    if (b_cs == 1 && j0 + NWID <= n) {
        /* B rows contiguous and the tile fully inside: vector loads. */
        __global const AB_T *bp = b + j0;
        uint p = 0;
#if A_ROWVEC
        if (a_cs == 1) {
            /* Rows of A contiguous in depth: KWA of them per vector load
             * (one widening per vector for 16-bit types), then broadcast. */
            for (; p + KWA <= k; p += KWA) {
                ACC at[MWID][KWA];
                #pragma unroll
                for (uint r = 0; r < MWID; ++r)
                    CAT(vstore, KWA)(VLOAD_A_K(arow[r] + p), 0, at[r]);
                #pragma unroll
                for (uint u = 0; u < KWA; ++u) {
                    VT bv[NVD];
                    #pragma unroll
                    for (uint v = 0; v < NVD; ++v)
                        bv[v] = VLOAD_AB(bp + (ulong)(p + u) * b_rs + v * VWD);
                    #pragma unroll
                    for (uint r = 0; r < MWID; ++r) {
                        const VT av = (VT)(at[r][u]);
                        #pragma unroll
                        for (uint v = 0; v < NVD; ++v)
                            acc[r][v] = fma(av, bv[v], acc[r][v]);
                    }
                }
            }
        }
#endif
        for (; p + KWGD <= k; p += KWGD) {
            #pragma unroll
            for (uint u = 0; u < KWGD; ++u) {
                VT bv[NVD];
                #pragma unroll
                for (uint v = 0; v < NVD; ++v)
                    bv[v] = VLOAD_AB(bp + (ulong)(p + u) * b_rs + v * VWD);
                STEP(p + u);
            }
        }
        for (; p < k; ++p) {
            VT bv[NVD];
            #pragma unroll
            for (uint v = 0; v < NVD; ++v)
                bv[v] = VLOAD_AB(bp + (ulong)p * b_rs + v * VWD);
            STEP(p);
        }
    } else if (b_cs == 1) {
        /* A partial tile at the right edge: vectors wholly inside n are
         * loaded as vectors, the one across the edge element by element
         * (columns clamped), those past it not at all. */
        const uint nin = n - j0;
        __global const AB_T *bp = b + j0;
        for (uint p = 0; p < k; ++p) {
            VT bv[NVD];
            #pragma unroll
            for (uint v = 0; v < NVD; ++v) {
                if ((v + 1) * VWD <= nin) {
                    bv[v] = VLOAD_AB(bp + (ulong)p * b_rs + v * VWD);
                } else if (v * VWD < nin) {
                    ACC t[VWD];
                    #pragma unroll
                    for (uint e = 0; e < VWD; ++e)
                        t[e] = LOAD_AB(bp, (ulong)p * b_rs + min(v * VWD + e, nin - 1));
                    bv[v] = VLOAD_ACC(t);
                } else {
                    bv[v] = (VT)0;
                }
            }
            STEP(p);
        }
    } else {
        /* General strides (B transposed): gather B, columns clamped. */
        __global const AB_T *bcol[NWID];
        #pragma unroll
        for (uint q = 0; q < NWID; ++q)
            bcol[q] = b + (ulong)min(j0 + q, n - 1) * b_cs;
        for (uint p = 0; p < k; ++p) {
            ACC t[NWID];
            #pragma unroll
            for (uint q = 0; q < NWID; ++q)
                t[q] = LOAD_AB(bcol[q], (ulong)p * b_rs);
            VT bv[NVD];
            #pragma unroll
            for (uint v = 0; v < NVD; ++v)
                bv[v] = VLOAD_ACC(t + v * VWD);
            STEP(p);
        }
    }
#undef STEP

    #pragma unroll
    for (uint r = 0; r < MWID; ++r) {
        if (i0 + r < m) {
            ACC t[NWID];
            #pragma unroll
            for (uint v = 0; v < NVD; ++v)
                VSTORE_ACC(acc[r][v], t + v * VWD);
            __global C_T *crow = c + (ulong)(i0 + r) * ldc + j0;
            if (j0 + NWID <= n) {
                /* A whole row of the tile: vector access to C. */
                #pragma unroll
                for (uint v = 0; v < NVD; ++v) {
                    VT x = alpha * acc[r][v];
                    if (beta != (ACC)0)
                        x += beta * VLOAD_C(crow + v * VWD);
                    VSTORE_C(x, crow + v * VWD);
                }
                continue;
            }
            const uint nq = n - j0;
            for (uint q = 0; q < nq; ++q)
                UPDATE_C(crow + q, t[q]);
        }
    }

#else /* DIRECT_LOCAL */
    __local ACC as[KWGD][WGD_M];
    __local ACC bs[KWGD][WGD_N];
    const uint lid = y * LDN + x;

    ACC acc[MWID][NWID];
    #pragma unroll
    for (uint r = 0; r < MWID; ++r)
        #pragma unroll
        for (uint q = 0; q < NWID; ++q)
            acc[r][q] = (ACC)0;

    for (uint p0 = 0; p0 < k; p0 += KWGD) {
        /* Stage the slices; consecutive work-items take consecutive
         * addresses of whichever dimension is contiguous in memory. */
        for (uint t = lid; t < KWGD * WGD_M; t += WGSD) {
            const uint r = a_cs == 1 ? t / KWGD : t % WGD_M;
            const uint p = a_cs == 1 ? t % KWGD : t / WGD_M;
            const uint i = ib + r, pp = p0 + p;
            as[p][r] = (i < m && pp < k) ? LOAD_AB(a, (ulong)i * a_rs + (ulong)pp * a_cs) : (ACC)0;
        }
        for (uint t = lid; t < KWGD * WGD_N; t += WGSD) {
            const uint q = b_cs == 1 ? t % WGD_N : t / KWGD;
            const uint p = b_cs == 1 ? t / WGD_N : t % KWGD;
            const uint j = jb + q, pp = p0 + p;
            bs[p][q] = (j < n && pp < k) ? LOAD_AB(b, (ulong)pp * b_rs + (ulong)j * b_cs) : (ACC)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        #pragma unroll
        for (uint p = 0; p < KWGD; ++p) {
            ACC av[MWID], bv[NWID];
            #pragma unroll
            for (uint r = 0; r < MWID; ++r)
                av[r] = as[p][y + LDM * r];
            #pragma unroll
            for (uint q = 0; q < NWID; ++q)
                bv[q] = bs[p][x + LDN * q];
            #pragma unroll
            for (uint r = 0; r < MWID; ++r)
                #pragma unroll
                for (uint q = 0; q < NWID; ++q)
                    acc[r][q] = fma(av[r], bv[q], acc[r][q]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    #pragma unroll
    for (uint r = 0; r < MWID; ++r) {
        const uint i = ib + y + LDM * r;
        if (i < m) {
            __global C_T *crow = c + (ulong)i * ldc;
            #pragma unroll
            for (uint q = 0; q < NWID; ++q) {
                const uint j = jb + x + LDN * q;
                if (j < n)
                    UPDATE_C(crow + j, acc[r][q]);
            }
        }
    }
#endif
}
