/*
 * gemm_small.cl - GEMM for tiny and odd products, alone or in strided
 * batches: a work-item computes SM_RB whole rows of one product (every
 * column, in SM_MR x (SM_NV*SM_VW) register tiles, vector loads of B along
 * n), so a product of m rows takes ceil(m/SM_RB) work-items and a group of
 * SM_WG work-items takes several products at once: PoCL pays its cost per
 * work-group once for all of them, where gemm_direct runs one tile per group.
 *
 *   C(i,j) = alpha * sum_p A(i,p) * B(p,j) + beta * C(i,j)
 *   A(i,p) = a[a_off + g*a_bs + i*a_rs + p*a_cs]
 *   B(p,j) = b[b_off + g*b_bs + p*b_rs + j*b_cs]
 *   C(i,j) = c[c_off + g*c_bs + i*ldc + j]
 *
 * Work-item t (1-D, t = get_global_id(0)) takes product g = t / nrb, row
 * block t % nrb, nrb = ceil(m / rb); work-items past batch * nrb return.
 * rb, the rows per work-item, comes from the host (dims.sf, a multiple of
 * SM_MR): SM_RB for batches, fewer for a single product, so that its rows
 * still spread over every compute unit.
 *
 *        <--- SM_NV*SM_VW --->
 *      +---------------------+----+   a work-item's rows: full tiles of
 *      | tile: SM_MR rows x  |tail|   SM_MR x SM_NV vectors (B rows loaded
 *      | SM_NV vectors       |    |   as vectors when contiguous, gathered
 *      +---------------------+----+   when B is transposed), then single
 *      |                     |    |   vectors, then the last columns one
 *      +---------------------+----+   by one (no work on columns not C's)
 *
 * B transposed in memory (b_cs != 1, b_rs == 1) with A not (a_cs == 1):
 * dot products along the depth instead, SM_MR rows against SM_NV columns
 * (the same accumulator count), since the tiles would gather B.
 *
 * Rows past the block are clamped for loading and skipped at the store;
 * beta == 0 means C is not read. Accumulation in float, double for f64.
 * k > 0 (the host runs k == 0 and alpha == 0 through gemm_direct).
 *
 * Streaming stores (bit 32 of dims.sf, set by the host for launches that
 * move more bytes than the caches hold): whole vectors of C aligned to
 * their size are written with non-temporal stores, which do not read the
 * cache line first (a quarter of a batch of square products' traffic), and
 * an sfence ends the work-item. Compiled in only where that exists: clang
 * on x86, C stored as f32 or f64; elsewhere the bit is ignored.
 */

/* ---- tunables ----------------------------------------------------------- */
#ifndef SM_MR
#define SM_MR 4           /* rows of a register tile */
#endif
#ifndef SM_NV
#define SM_NV 1           /* accumulator vectors per row of a tile */
#endif
#ifndef SM_VW
#define SM_VW 4           /* vector width along n */
#endif
#ifndef SM_RB
#define SM_RB 16          /* rows of C per work-item (a multiple of SM_MR) */
#endif
#ifndef SM_WG
#define SM_WG 1           /* work-items per group (read by the host) */
#endif

#define SM_NC (SM_NV * SM_VW)   /* columns of a tile */
#if SM_RB % SM_MR != 0
#error "gemm_small: SM_RB must be a multiple of SM_MR"
#endif

/* Storage types: DTYPE_AB, DTYPE_C, ACC, AB_T, LOAD_AB, C_T, LOAD_C and
 * STORE_C come from vncl_gemm_common.cl, which the program builder puts
 * before this file. */

#if SM_VW == 1
#define VT ACC
#define VLOAD_AB(p) LOAD_AB((p), 0)
#define VLOAD_ACC(p) (*(p))
#define VSTORE_ACC(v, p) (*(p) = (v))
#define VLOAD_C(p) LOAD_C((p), 0)
#define VSTORE_C(v, p) STORE_C((p), 0, (v))
#else
#define VT CAT(ACC, SM_VW)
#define VLOAD_AB(p) VNCL_VLOAD(DTYPE_AB, SM_VW, 0, p)
#define VLOAD_ACC(p) CAT(vload, SM_VW)(0, (p))
#define VSTORE_ACC(v, p) CAT(vstore, SM_VW)((v), 0, (p))
#define VLOAD_C(p) CAT(convert_, VT)(VNCL_VLOAD(DTYPE_C, SM_VW, 0, p))
#define VSTORE_C(v, p) VNCL_VSTORE(DTYPE_C, SM_VW, p, 0, v)
#endif
#if SM_VW > 1 && DTYPE_C == DTYPE_AB && DTYPE_AB < 2 && defined(__clang__) && \
    (defined(__x86_64__) || defined(__i386__))
#define SM_STREAM 1
/* x at p: streamed when the launch asks and p is aligned to a whole VT. */
#define VSTORE_C_ST(x, p)                                                      \
    {                                                                          \
        if (stream && ((ulong)(p) & (sizeof(VT) - 1)) == 0)                    \
            __builtin_nontemporal_store((x), (__global VT *)(p));              \
        else                                                                   \
            VSTORE_C((x), (p));                                                \
    }
#else
#define SM_STREAM 0
#define VSTORE_C_ST(x, p) VSTORE_C((x), (p))
#endif
/* The sum of a VT's lanes (the dot-product tiles below). */
#if SM_VW == 1
#define HSUM(v) (v)
#elif SM_VW == 2
#define HSUM(v) ((v).s0 + (v).s1)
#elif SM_VW == 4
#define HSUM(v) (((v).s01 + (v).s23).s0 + ((v).s01 + (v).s23).s1)
#elif SM_VW == 8
#define HSUM(v) HSUM4_((v).lo + (v).hi)
#define HSUM4_(w) (((w).s01 + (w).s23).s0 + ((w).s01 + (w).s23).s1)
#elif SM_VW == 16
#define HSUM(v) HSUM8_((v).lo + (v).hi)
#define HSUM8_(w) HSUM4_((w).lo + (w).hi)
#define HSUM4_(w) (((w).s01 + (w).s23).s0 + ((w).s01 + (w).s23).s1)
#endif
/* The dot-product tiles' accumulators SRC folded to half their width W
 * into DST, then one step of W depths (loads of W from A's rows and B's
 * columns) when at least W are left. */
#define DOT_HALF(SRC, DST, W)                                                  \
    CAT(ACC, W) DST[SM_MR][SM_NV];                                             \
    _Pragma("unroll")                                                          \
    for (uint r_ = 0; r_ < SM_MR; ++r_)                                        \
        _Pragma("unroll")                                                      \
        for (uint v_ = 0; v_ < SM_NV; ++v_)                                    \
            DST[r_][v_] = SRC[r_][v_].lo + SRC[r_][v_].hi;                     \
    if (p + (W) <= k) {                                                        \
        CAT(ACC, W) bh_[SM_NV];                                                \
        _Pragma("unroll")                                                      \
        for (uint v_ = 0; v_ < SM_NV; ++v_)                                    \
            bh_[v_] = VNCL_VLOAD(DTYPE_AB, W, 0, bcol[v_] + p);                \
        _Pragma("unroll")                                                      \
        for (uint r_ = 0; r_ < SM_MR; ++r_) {                                  \
            const CAT(ACC, W) ah_ = VNCL_VLOAD(DTYPE_AB, W, 0, arow[r_] + p);  \
            _Pragma("unroll")                                                  \
            for (uint v_ = 0; v_ < SM_NV; ++v_)                                \
                DST[r_][v_] = fma(ah_, bh_[v_], DST[r_][v_]);                  \
        }                                                                      \
        p += (W);                                                              \
    }
/* ------------------------------------------------------------------------- */

/* GEMM_DIMS (the sizes, offsets and strides of the ulong16 argument) and
 * UPDATE_C come from vncl_gemm_common.cl; this kernel also reads dims.se,
 * the batch count, and dims.sf: bits 0-31 the rows per work-item (0:
 * SM_RB), bit 32 streaming stores. */

__kernel void gemm_small(const ACC alpha, const ACC beta,
                         __global const AB_T *a, __global const AB_T *b,
                         __global C_T *c, const ulong16 dims)
{
    GEMM_DIMS(dims);
    const ulong batch = dims.se;
    const uint rows = (uint)dims.sf ? (uint)dims.sf : SM_RB;
#if SM_STREAM
    const bool stream = (dims.sf >> 32) & 1;
#endif
    const uint nrb = (m + rows - 1) / rows;
    const ulong t = get_global_id(0);
    if (t >= batch * nrb)
        return;
    const ulong g = t / nrb;
    const uint rb = (uint)(t - g * nrb);
    a += a_off + g * a_bs;
    b += b_off + g * b_bs;
    c += c_off + g * c_bs;
    const uint r_end = min(m, (rb + 1) * rows);

    for (uint i0 = rb * rows; i0 < r_end; i0 += SM_MR) {
        __global const AB_T *arow[SM_MR];
        #pragma unroll
        for (uint r = 0; r < SM_MR; ++r)
            arow[r] = a + (ulong)min(i0 + r, r_end - 1) * a_rs;

#if SM_VW > 1
        /* B stored transposed (its columns strided, each contiguous along
         * the depth, as A's rows): the tile's row of B would be gathered
         * element by element, SM_NV * SM_VW loads for SM_MR * SM_NV FMAs.
         * Instead dot products along the depth: SM_MR rows of A against
         * SM_NV columns of B, one vector of depths at a time (as many
         * accumulators as the tile below), the lanes summed at the end. */
        if (b_cs != 1 && b_rs == 1 && a_cs == 1 && k >= SM_VW) {
            for (uint j0 = 0; j0 < n; j0 += SM_NV) {
                __global const AB_T *bcol[SM_NV];
                #pragma unroll
                for (uint v = 0; v < SM_NV; ++v)
                    bcol[v] = b + (ulong)min(j0 + v, n - 1) * b_cs;
                VT dacc[SM_MR][SM_NV];
                #pragma unroll
                for (uint r = 0; r < SM_MR; ++r)
                    #pragma unroll
                    for (uint v = 0; v < SM_NV; ++v)
                        dacc[r][v] = (VT)0;
                uint p = 0;
                for (; p + SM_VW <= k; p += SM_VW) {
                    VT bv[SM_NV];
                    #pragma unroll
                    for (uint v = 0; v < SM_NV; ++v)
                        bv[v] = VLOAD_AB(bcol[v] + p);
                    #pragma unroll
                    for (uint r = 0; r < SM_MR; ++r) {
                        const VT av = VLOAD_AB(arow[r] + p);
                        #pragma unroll
                        for (uint v = 0; v < SM_NV; ++v)
                            dacc[r][v] = fma(av, bv[v], dacc[r][v]);
                    }
                }
                ACC dsum[SM_MR][SM_NV];
#if SM_VW == 16 || SM_VW == 8
                /* The last depths (fewer than SM_VW) by narrower vectors
                 * before the scalar ones: the accumulators folded to half
                 * their width (lo + hi, the sums' first step anyway), then
                 * one step of half a vector when that many depths are left,
                 * down to 4. A depth of 90 in 16s left 10 scalar steps of 24
                 * FMAs each, more than the 5 vector steps cost; now 8 + 2. */
#if SM_VW == 16
                DOT_HALF(dacc, d8, 8);
                DOT_HALF(d8, d4, 4);
#else
                DOT_HALF(dacc, d4, 4);
#endif
#define DOT_SUM(r, v) HSUM4_(d4[r][v])
#else
#define DOT_SUM(r, v) HSUM(dacc[r][v])
#endif
                #pragma unroll
                for (uint r = 0; r < SM_MR; ++r)
                    #pragma unroll
                    for (uint v = 0; v < SM_NV; ++v)
                        dsum[r][v] = DOT_SUM(r, v);
#undef DOT_SUM
                for (; p < k; ++p)
                    #pragma unroll
                    for (uint r = 0; r < SM_MR; ++r)
                        #pragma unroll
                        for (uint v = 0; v < SM_NV; ++v)
                            dsum[r][v] = fma(LOAD_AB(arow[r], p),
                                             LOAD_AB(bcol[v], p), dsum[r][v]);
                #pragma unroll
                for (uint r = 0; r < SM_MR; ++r)
                    #pragma unroll
                    for (uint v = 0; v < SM_NV; ++v)
                        if (i0 + r < r_end && j0 + v < n)
                            UPDATE_C(c + (ulong)(i0 + r) * ldc + j0 + v,
                                     dsum[r][v]);
            }
            continue;
        }
#endif

        /* One depth step p of NV_ vectors with the tile's row of B in bv[]
         * (A's element at depth p of row r_ at arow[r_][p * ACS_]). */
#define STEP(p, NV_, ACS_)                                                     \
        {                                                                      \
            _Pragma("unroll")                                                  \
            for (uint r_ = 0; r_ < SM_MR; ++r_) {                              \
                const VT av_ = (VT)LOAD_AB(arow[r_], (ulong)(p) * (ACS_));     \
                _Pragma("unroll")                                              \
                for (uint v_ = 0; v_ < (NV_); ++v_)                            \
                    acc[r_][v_] = fma(av_, bv[v_], acc[r_][v_]);               \
            }                                                                  \
        }
        /* A tile's accumulators, zeroed; and stored to C from lane L0 on
         * (0: whole vectors; else one vector whose first L0 columns an
         * earlier tile stored, and which must not be updated twice). */
#define TILE_ZERO(NV_)                                                         \
            VT acc[SM_MR][NV_];                                                \
            _Pragma("unroll")                                                  \
            for (uint r = 0; r < SM_MR; ++r)                                   \
                _Pragma("unroll")                                              \
                for (uint v = 0; v < (NV_); ++v)                               \
                    acc[r][v] = (VT)0;
#define TILE_STORE(j0, NV_, L0)                                                \
            _Pragma("unroll")                                                  \
            for (uint r = 0; r < SM_MR; ++r)                                   \
                if (i0 + r < r_end) {                                          \
                    __global C_T *cp = c + (ulong)(i0 + r) * ldc + (j0);       \
                    if ((L0) == 0) {                                           \
                        _Pragma("unroll")                                      \
                        for (uint v = 0; v < (NV_); ++v) {                     \
                            VT x = alpha * acc[r][v];                          \
                            if (beta != (ACC)0)                                \
                                x += beta * VLOAD_C(cp + v * SM_VW);           \
                            VSTORE_C_ST(x, cp + v * SM_VW);                    \
                        }                                                      \
                    } else {                                                   \
                        ACC t_[SM_VW];                                         \
                        VSTORE_ACC(acc[r][0], t_);                             \
                        for (uint e = (L0); e < SM_VW; ++e)                    \
                            UPDATE_C(cp + e, t_[e]);                           \
                    }                                                          \
                }
        /* A tile of NV_ vectors at column j0: B's rows as vectors (b_cs ==
         * 1; the loop twice, so that rows of A contiguous in depth get
         * their own code) or gathered (B transposed), then stored. The
         * gathering loop has accumulators (and stores) of its own: with
         * one set shared by all the loops, its 64 scalars of B pushed three
         * of the contiguous loop's 24 accumulators onto the stack, a load
         * and a store each per depth (perf, f32 1000 x 100^3 on the Zen 4
         * EPYC). */
#define TILE(j0, NV_, L0)                                                      \
        {                                                                      \
            if (b_cs == 1) {                                                   \
                __global const AB_T *bp = b + (j0);                            \
                TILE_ZERO(NV_)                                                 \
                if (a_cs == 1) {                                               \
                    for (uint p = 0; p < k; ++p) {                             \
                        VT bv[NV_];                                            \
                        _Pragma("unroll")                                      \
                        for (uint v = 0; v < (NV_); ++v)                       \
                            bv[v] = VLOAD_AB(bp + (ulong)p * b_rs + v * SM_VW); \
                        STEP(p, NV_, 1);                                       \
                    }                                                          \
                } else {                                                       \
                    for (uint p = 0; p < k; ++p) {                             \
                        VT bv[NV_];                                            \
                        _Pragma("unroll")                                      \
                        for (uint v = 0; v < (NV_); ++v)                       \
                            bv[v] = VLOAD_AB(bp + (ulong)p * b_rs + v * SM_VW); \
                        STEP(p, NV_, a_cs);                                    \
                    }                                                          \
                }                                                              \
                TILE_STORE(j0, NV_, L0)                                        \
            } else {                                                           \
                __global const AB_T *bp = b + (ulong)(j0) * b_cs;              \
                TILE_ZERO(NV_)                                                 \
                for (uint p = 0; p < k; ++p) {                                 \
                    ACC tb[(NV_) * SM_VW];                                     \
                    _Pragma("unroll")                                          \
                    for (uint q = 0; q < (NV_) * SM_VW; ++q)                   \
                        tb[q] = LOAD_AB(bp, (ulong)p * b_rs + (ulong)q * b_cs); \
                    VT bv[NV_];                                                \
                    _Pragma("unroll")                                          \
                    for (uint v = 0; v < (NV_); ++v)                           \
                        bv[v] = VLOAD_ACC(tb + v * SM_VW);                     \
                    STEP(p, NV_, a_cs);                                        \
                }                                                              \
                TILE_STORE(j0, NV_, L0)                                        \
            }                                                                  \
        }

        uint j0 = 0;
        for (; j0 + SM_NC <= n; j0 += SM_NC)
            TILE(j0, SM_NV, 0);
#if SM_NV > 2
        /* A tile of half the vectors, where that many columns are left
         * (n = 32 with 4 x 16-wide tiles: one pass over A, not two). */
        if (j0 + (SM_NV / 2) * SM_VW <= n) {
            TILE(j0, SM_NV / 2, 0);
            j0 += (SM_NV / 2) * SM_VW;
        }
#endif
#if SM_NV > 1
        /* Whole vectors past the last full tile, one at a time. */
        for (; j0 + SM_VW <= n; j0 += SM_VW)
            TILE(j0, 1, 0);
#endif
#if SM_VW > 1
        /* Fewer than a vector of columns left, n at least a vector: the
         * last SM_VW columns as one vector (its first lanes recomputed, not
         * stored), in place of up to SM_VW - 1 passes over A one column at
         * a time (n = 100 on 16-wide vectors: 4 such columns). */
        if (j0 < n && n >= SM_VW) {
            TILE(n - SM_VW, 1, j0 - (n - SM_VW));
            j0 = n;
        }
#endif
#undef TILE
#undef TILE_ZERO
#undef TILE_STORE
#undef STEP

        /* The columns past the last vector (n below SM_VW), one at a
         * time. */
        for (uint j = j0; j < n; ++j) {
            ACC s[SM_MR];
            #pragma unroll
            for (uint r = 0; r < SM_MR; ++r)
                s[r] = (ACC)0;
            __global const AB_T *bp = b + (ulong)j * b_cs;
            for (uint p = 0; p < k; ++p) {
                const ACC bq = LOAD_AB(bp, (ulong)p * b_rs);
                #pragma unroll
                for (uint r = 0; r < SM_MR; ++r)
                    s[r] = fma(LOAD_AB(arow[r], (ulong)p * a_cs), bq, s[r]);
            }
            #pragma unroll
            for (uint r = 0; r < SM_MR; ++r)
                if (i0 + r < r_end)
                    UPDATE_C(c + (ulong)(i0 + r) * ldc + j, s[r]);
        }
    }
#if SM_STREAM
    /* The streamed stores ordered before whatever marks the work done. */
    if (stream)
        __builtin_ia32_sfence();
#endif
}
