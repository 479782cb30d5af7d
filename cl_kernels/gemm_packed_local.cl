/*
 * gemm_packed_local.cl - GEMM on packed operands, shaped for GPUs: many
 * work-items, work-group tiles staged in local memory, barriers, a register
 * micro-tile per work-item and vector loads.
 *
 *   C(i,j) = alpha * sum_p A(i,p) * B(p,j) + beta * C(i,j)
 *   C(i,j) = c[c_off + g*c_bs + i*ldc + j]   (g = get_global_id(2), the batch)
 *
 * A and B come from gemm_pack with panel width MWG (A) and NWG (B), zero-padded
 * to a depth kp that is a multiple of KWG and to whole tiles, so the KWG x MWG
 * slice of A a work-group needs at depth p0 is one contiguous run of
 * KWG*MWG values (the same for B): loads need no bounds tests and coalesce.
 * Only the stores to C test i < m and j < n.
 *
 * Work-group (gx, gy) computes the MWG x NWG tile at rows gy*MWG, columns
 * gx*NWG, with MDIMC x NDIMC work-items (local size (NDIMC, MDIMC, 1)).
 * Work-item (x, y) owns MWI x NWI elements, interleaved in vectors of VWM rows
 * (VWN columns) so that neighbours read neighbouring local memory words:
 *
 *   columns of the tile:  | x=0 | x=1 | ... | x=NDIMC-1 | x=0 | x=1 | ...
 *                          <VWN>                        (second vector of x=0)
 *   rows of the tile:     the same with y, VWM and MDIMC.
 *
 *   for each depth slice p0 (step KWG):
 *       stage A slice (KWG x MWG) and B slice (KWG x NWG) in local memory
 *       (SA / SB == 0: read them from global memory instead), barrier,
 *       for p in slice: acc[MWI][NWI] += a[MWI] * b[NWI]  (unrolled by KWI),
 *       barrier
 *
 * beta == 0 means C is not read.
 */

/* ---- tunables ----------------------------------------------------------- */
#ifndef MWG
#define MWG 64         /* rows of C per work-group = panel width of packed A */
#endif
#ifndef NWG
#define NWG 64         /* columns of C per work-group = panel width of packed B */
#endif
#ifndef KWG
#define KWG 16         /* depth of one local-memory slice; packed depth is a multiple */
#endif
#ifndef MDIMC
#define MDIMC 16       /* work-items per work-group along rows (local size 1) */
#endif
#ifndef NDIMC
#define NDIMC 16       /* work-items per work-group along columns (local size 0) */
#endif
#ifndef VWM
#define VWM 2          /* vector width of A reads (rows of a work-item come in VWM runs) */
#endif
#ifndef VWN
#define VWN 2          /* vector width of B reads and of C runs per work-item */
#endif
#ifndef KWI
#define KWI 2          /* unroll of the depth loop inside a slice */
#endif
#ifndef SA
#define SA 1           /* 1: stage the slice of A in local memory */
#endif
#ifndef SB
#define SB 1           /* 1: stage the slice of B in local memory */
#endif

/* derived */
#define MWI (MWG / MDIMC)         /* rows per work-item */
#define NWI (NWG / NDIMC)         /* columns per work-item */
#define MVI (MWI / VWM)           /* row vectors per work-item */
#define NVI (NWI / VWN)           /* column vectors per work-item */
#define WGS (MDIMC * NDIMC)       /* work-group size */

#if MWG % (MDIMC * VWM) != 0 || NWG % (NDIMC * VWN) != 0 || KWG % KWI != 0
#error "gemm_packed_local: MWG % (MDIMC*VWM), NWG % (NDIMC*VWN), KWG % KWI must be 0"
#endif

/* Storage types: DTYPE_AB, DTYPE_C, ACC, AB_T, LOAD_AB, C_T, LOAD_C and
 * STORE_C come from vncl_gemm_common.cl, which the program builder puts
 * before this file. */

#if VWM == 1
#define VTM ACC
#define VLOADM(p) (*(p))
#define VSTOREM(v, i, p) ((p)[i] = (v))
#else
#define VTM CAT(ACC, VWM)
#define VLOADM(p) CAT(vload, VWM)(0, (p))
#define VSTOREM(v, i, p) CAT(vstore, VWM)((v), (i), (p))
#endif
#if VWN == 1
#define VTN ACC
#define VLOADN(p) (*(p))
#define VSTOREN(v, i, p) ((p)[i] = (v))
#else
#define VTN CAT(ACC, VWN)
#define VLOADN(p) CAT(vload, VWN)(0, (p))
#define VSTOREN(v, i, p) CAT(vstore, VWN)((v), (i), (p))
#endif
/* ------------------------------------------------------------------------- */

__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1)))
void gemm_packed_local(const uint m, const uint n, const uint k,
                       const uint kp, const ACC alpha, const ACC beta,
                       __global const ACC *a, const ulong a_off,
                       const ulong a_rs, const ulong a_cs,
                       const ulong a_bs,
                       __global const ACC *b, const ulong b_bs,
                       __global C_T *c, const ulong c_off,
                       const ulong ldc, const ulong c_bs)
{
    /* k, a_rs and a_cs belong to the shared signature of the packed kernels
     * (in-place A in gemm_packed_cpu); here A is always packed. */
    (void)k; (void)a_rs; (void)a_cs;
    const uint x = get_local_id(0), y = get_local_id(1);
    const uint gx = get_group_id(0), gy = get_group_id(1);
    const ulong g = get_global_id(2);

    /* This tile's panels: panel gy of A starts at gy*MWG*kp. */
    __global const ACC *ap = a + a_off + g * a_bs + (ulong)gy * MWG * kp;
    __global const ACC *bp = b + g * b_bs + (ulong)gx * NWG * kp;

#if SA
    __local ACC alm[KWG * MWG];
#endif
#if SB
    __local ACC blm[KWG * NWG];
#endif
#if SA || SB
    const uint lid = y * NDIMC + x;
#endif

    ACC acc[MWI][NWI];
    #pragma unroll
    for (uint r = 0; r < MWI; ++r)
        #pragma unroll
        for (uint q = 0; q < NWI; ++q)
            acc[r][q] = (ACC)0;

    for (uint p0 = 0; p0 < kp; p0 += KWG) {
        __global const ACC *as = ap + (ulong)p0 * MWG;   /* KWG x MWG, contiguous */
        __global const ACC *bs = bp + (ulong)p0 * NWG;   /* KWG x NWG, contiguous */
#if SA
        for (uint t = lid; t < KWG * MWG / VWM; t += WGS)
            VSTOREM(VLOADM(as + t * VWM), t, alm);
#define ASRC alm
#else
#define ASRC as
#endif
#if SB
        for (uint t = lid; t < KWG * NWG / VWN; t += WGS)
            VSTOREN(VLOADN(bs + t * VWN), t, blm);
#define BSRC blm
#else
#define BSRC bs
#endif
#if SA || SB
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        for (uint p1 = 0; p1 < KWG; p1 += KWI) {
            #pragma unroll
            for (uint u = 0; u < KWI; ++u) {
                const uint p = p1 + u;
                ACC av[MWI], bv[NWI];
                #pragma unroll
                for (uint rv = 0; rv < MVI; ++rv) {
                    VTM t = VLOADM(ASRC + p * MWG + (rv * MDIMC + y) * VWM);
                    VSTOREM(t, rv, av);
                }
                #pragma unroll
                for (uint qv = 0; qv < NVI; ++qv) {
                    VTN t = VLOADN(BSRC + p * NWG + (qv * NDIMC + x) * VWN);
                    VSTOREN(t, qv, bv);
                }
                #pragma unroll
                for (uint r = 0; r < MWI; ++r)
                    #pragma unroll
                    for (uint q = 0; q < NWI; ++q)
                        acc[r][q] = fma(av[r], bv[q], acc[r][q]);
            }
        }
#if SA || SB
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
#undef ASRC
#undef BSRC
    }

    c += c_off + g * c_bs;
    #pragma unroll
    for (uint r = 0; r < MWI; ++r) {
        const uint i = gy * MWG + ((r / VWM) * MDIMC + y) * VWM + r % VWM;
        if (i >= m)
            continue;
        __global C_T *crow = c + (ulong)i * ldc;
        #pragma unroll
        for (uint qv = 0; qv < NVI; ++qv) {
            const uint j0 = gx * NWG + (qv * NDIMC + x) * VWN;
            #pragma unroll
            for (uint e = 0; e < VWN; ++e) {
                const uint j = j0 + e;
                if (j < n) {
                    ACC y_ = alpha * acc[r][qv * VWN + e];
                    if (beta != (ACC)0)
                        y_ += beta * LOAD_C(crow, j);
                    STORE_C(crow, j, y_);
                }
            }
        }
    }
}
