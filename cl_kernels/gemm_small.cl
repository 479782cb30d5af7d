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
 * (the same accumulator count; the host may widen SM_NV for them), since
 * the tiles would gather B. The last k % SM_VW depths are one more vector,
 * the one that ends at depth k, with its lanes already counted zeroed; the
 * lanes of a row's SM_NV accumulators are summed as one tree (SM_PAIR).
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
/* The dot-product tiles (B transposed, below) end with SM_NV vectors of
 * partial sums per row of A, one per column of C; their lanes are summed as
 * a tree across the vectors rather than one vector at a time. Columns go in
 * groups of SM_G vectors (SM_NV rounded up to a power of two, at most
 * SM_VW; a group's missing vectors are zeros). SM_PAIR of two vectors whose
 * lanes fall in blocks, one block a column, adds each block's even lanes to
 * its odd ones and packs both vectors' halved blocks into one vector:
 * log2(SM_G) rounds of pairs leave one vector with a block of SM_VW/SM_G
 * lanes per column, and SM_FOLD_* (even lanes plus odd, log2 of that many
 * times) leaves one lane per column, in column order. Each step adds whole
 * vectors: about 15 instructions for the 4 sums of a 6 x 4 tile's row of
 * 16-wide vectors, where summing each vector alone took about 8 a sum. */
#if SM_NV == 1
#define SM_NP 1
#elif SM_NV == 2
#define SM_NP 2
#elif SM_NV <= 4
#define SM_NP 4
#elif SM_NV <= 8
#define SM_NP 8
#else
#define SM_NP 16
#endif
#if SM_NP < SM_VW
#define SM_G SM_NP
#else
#define SM_G SM_VW
#endif
/* SM_PAIR, and SM_F<W>: the even lanes plus the odd of a vector of W lanes
 * (W/2 lanes). With clang, its own shuffle, reinterpreted as the OpenCL
 * vector type (older clangs return a GCC vector, which a cast does not
 * take): one two-source permute (vpermt2ps) per half, where the vector
 * literal of .even and .odd became an insert per lane (PoCL 3.1: 65 against
 * 97 GFLOP/s on f32 batches of 90^3 with B transposed). */
#if defined(__clang__)
#define SM_EV2 0, 2
#define SM_OD2 1, 3
#define SM_EV4 0, 2, 4, 6
#define SM_OD4 1, 3, 5, 7
#define SM_EV8 0, 2, 4, 6, 8, 10, 12, 14
#define SM_OD8 1, 3, 5, 7, 9, 11, 13, 15
#define SM_EV16 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define SM_OD16 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define SM_SHUF(T, x, y, I)                                                    \
    __builtin_astype(__builtin_shufflevector((x), (y), I), T)
#define SM_HALVES(T, x, y, W)                                                  \
    (SM_SHUF(T, x, y, CAT(SM_EV, W)) + SM_SHUF(T, x, y, CAT(SM_OD, W)))
#define SM_PAIR(x, y) SM_HALVES(VT, x, y, SM_VW)
#define SM_F16(x) SM_HALVES(CAT(ACC, 8), x, x, 8)
#define SM_F8(x) SM_HALVES(CAT(ACC, 4), x, x, 4)
#define SM_F4(x) SM_HALVES(CAT(ACC, 2), x, x, 2)
#else
#define SM_PAIR(x, y) ((VT)((x).even, (y).even) + (VT)((x).odd, (y).odd))
#define SM_F16(x) ((x).even + (x).odd)
#define SM_F8(x) ((x).even + (x).odd)
#define SM_F4(x) ((x).even + (x).odd)
#endif
#define SM_F2(x) ((x).s0 + (x).s1)
/* One round: the group's first 2H vectors paired into its first H. */
#define SM_ROUND(H)                                                            \
    _Pragma("unroll")                                                          \
    for (uint v_ = 0; v_ < (H); ++v_)                                          \
        t[v_] = SM_PAIR(t[2 * v_], t[2 * v_ + 1]);
/* SM_FOLD: from SM_VW lanes down to SM_G. */
#define SM_FOLD_16_8(x) SM_F16(x)
#define SM_FOLD_16_4(x) SM_F8(SM_F16(x))
#define SM_FOLD_16_2(x) SM_F4(SM_F8(SM_F16(x)))
#define SM_FOLD_16_1(x) SM_F2(SM_F4(SM_F8(SM_F16(x))))
#define SM_FOLD_8_4(x) SM_F8(x)
#define SM_FOLD_8_2(x) SM_F4(SM_F8(x))
#define SM_FOLD_8_1(x) SM_F2(SM_F4(SM_F8(x)))
#define SM_FOLD_4_2(x) SM_F4(x)
#define SM_FOLD_4_1(x) SM_F2(SM_F4(x))
#define SM_FOLD_2_1(x) SM_F2(x)
#if SM_VW == SM_G
#define SM_FOLD(x) (x)
#else
#define SM_FOLD(x) CAT(CAT(CAT(SM_FOLD_, SM_VW), _), SM_G)(x)
#endif
#define SM_GT CAT(ACC, SM_G) /* a group's sums (SM_G > 1) */
#if SM_G == 1
#define SM_STORE_SUMS(x, p) (*(p) = (x))
#else
#define SM_STORE_SUMS(x, p) CAT(vstore, SM_G)((x), 0, (p))
#endif
/* Lane masks (select's integer vector of VT's lane size). */
#if DTYPE_AB == 1
#define SM_IT CAT(long, SM_VW)
#define SM_IS long
#else
#define SM_IT CAT(int, SM_VW)
#define SM_IS int
#endif
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
         * accumulators as the tile below), the lanes summed at the end
         * and C's SM_G columns of a group stored as one vector. */
        if (b_cs != 1 && b_rs == 1 && a_cs == 1 && k >= SM_VW) {
            /* Lanes of the last vector of depths that are past the whole
             * vectors (all of them when k is a multiple of SM_VW). */
            SM_IS lane[SM_VW];
            #pragma unroll
            for (uint l = 0; l < SM_VW; ++l)
                lane[l] = (SM_IS)l;
            const SM_IT tail = CAT(vload, SM_VW)(0, lane) >=
                               (SM_IT)(SM_IS)(SM_VW - k % SM_VW);
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
                for (uint p = 0; p + SM_VW <= k; p += SM_VW) {
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
                /* The last k % SM_VW depths: the vector that ends at depth
                 * k, its lanes before them (counted above) zeroed in both
                 * operands, so that no infinity meets a zero. */
                if (k % SM_VW) {
                    const uint p = k - SM_VW;
                    VT bv[SM_NV];
                    #pragma unroll
                    for (uint v = 0; v < SM_NV; ++v)
                        bv[v] = select((VT)0, VLOAD_AB(bcol[v] + p), tail);
                    #pragma unroll
                    for (uint r = 0; r < SM_MR; ++r) {
                        const VT av =
                            select((VT)0, VLOAD_AB(arow[r] + p), tail);
                        #pragma unroll
                        for (uint v = 0; v < SM_NV; ++v)
                            dacc[r][v] = fma(av, bv[v], dacc[r][v]);
                    }
                }
                #pragma unroll
                for (uint r = 0; r < SM_MR; ++r) {
                    if (i0 + r >= r_end)
                        continue;
                    __global C_T *cp = c + (ulong)(i0 + r) * ldc + j0;
                    #pragma unroll
                    for (uint g0 = 0; g0 < SM_NV; g0 += SM_G) {
                        VT t[SM_G];
                        #pragma unroll
                        for (uint v = 0; v < SM_G; ++v)
                            t[v] = g0 + v < SM_NV ? dacc[r][g0 + v] : (VT)0;
#if SM_G >= 16
                        SM_ROUND(8)
#endif
#if SM_G >= 8
                        SM_ROUND(4)
#endif
#if SM_G >= 4
                        SM_ROUND(2)
#endif
#if SM_G >= 2
                        SM_ROUND(1)
#endif
#if SM_G > 1
                        /* A whole group's columns of C: one vector. */
                        if (g0 + SM_G <= SM_NV && j0 + g0 + SM_G <= n) {
                            SM_GT x = alpha * SM_FOLD(t[0]);
                            if (beta != (ACC)0)
                                x += beta * CAT(convert_, SM_GT)(VNCL_VLOAD(
                                                DTYPE_C, SM_G, 0, cp + g0));
                            VNCL_VSTORE(DTYPE_C, SM_G, cp + g0, 0, x);
                            continue;
                        }
#endif
                        ACC s[SM_G];
                        SM_STORE_SUMS(SM_FOLD(t[0]), s);
                        #pragma unroll
                        for (uint v = 0; v < SM_G; ++v)
                            if (g0 + v < SM_NV && j0 + g0 + v < n)
                                UPDATE_C(cp + g0 + v, s[v]);
                    }
                }
            }
            continue;
        }
#endif

        /* One depth step of NV_ vectors with the tile's row of B in bv[]:
         * row r_ of A's element is AV (an expression in r_). STEP: A's
         * element at depth p of row r_ at arow[r_][p * ACS_]. */
#define STEP_AS(NV_, AV)                                                       \
        {                                                                      \
            _Pragma("unroll")                                                  \
            for (uint r_ = 0; r_ < SM_MR; ++r_) {                              \
                const VT av_ = (VT)(AV);                                       \
                _Pragma("unroll")                                              \
                for (uint v_ = 0; v_ < (NV_); ++v_)                            \
                    acc[r_][v_] = fma(av_, bv[v_], acc[r_][v_]);               \
            }                                                                  \
        }
#define STEP(p, NV_, ACS_)                                                     \
        STEP_AS(NV_, LOAD_AB(arow[r_], (ulong)(p) * (ACS_)))
        /* bv[]: the NV_ vectors of B's row at depth p_ from bp_ (B's rows
         * contiguous). */
#define B_ROW(bp_, p_, NV_)                                                    \
        VT bv[NV_];                                                            \
        _Pragma("unroll")                                                      \
        for (uint v = 0; v < (NV_); ++v)                                       \
            bv[v] = VLOAD_AB((bp_) + (ulong)(p_) * b_rs + v * SM_VW);
        /* f16 storage, A's rows contiguous in depth: blocks of 16 depths
         * with each row's 16 values loaded and widened as one vector and
         * staged on the stack (volatile, as gemm_packed_cpu's stage: kept
         * in registers they would push accumulators out), each then
         * broadcast from there; the depths after the last whole block go
         * through STEP. One conversion per 16 elements of A instead of a
         * load, a move and a conversion (F16C) per element. Intel Xeon
         * (x86 family 6, model 167), 2026-12-05, batches on the CPU rows'
         * gemm_small, one process each, before / after, GFLOP/s: 4000 x
         * 32^3 77 / 130, 1000 x 64^3 122 / 135, 96^3 97 / 146, 100^3 78 /
         * 115, 500 x 128^3 110 / 155. bf16, whose widening is a shift,
         * lost up to 14% with the stage (128^3 165-170 / 146-157) and keeps
         * STEP. */
#if DTYPE_AB == 2
#define A_STAGED(bp_, NV_)                                                     \
        for (; p + 16 <= k; p += 16) {                                         \
            volatile CAT(ACC, 16) at_[SM_MR];                                  \
            _Pragma("unroll")                                                  \
            for (uint r_ = 0; r_ < SM_MR; ++r_)                                \
                at_[r_] = VNCL_VLOAD(DTYPE_AB, 16, 0, arow[r_] + p);           \
            _Pragma("unroll")                                                  \
            for (uint u_ = 0; u_ < 16; ++u_) {                                 \
                B_ROW(bp_, p + u_, NV_)                                        \
                STEP_AS(NV_, ((volatile ACC *)&at_[r_])[u_]);                  \
            }                                                                  \
        }
#else
#define A_STAGED(bp_, NV_)
#endif
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
                    uint p = 0;                                                \
                    A_STAGED(bp, NV_)                                          \
                    for (; p < k; ++p) {                                       \
                        B_ROW(bp, p, NV_)                                      \
                        STEP(p, NV_, 1);                                       \
                    }                                                          \
                } else {                                                       \
                    for (uint p = 0; p < k; ++p) {                             \
                        B_ROW(bp, p, NV_)                                      \
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
#undef STEP_AS
#undef B_ROW
#undef A_STAGED

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
