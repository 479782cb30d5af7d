/*
 * gemm_packed_cpu.cl - GEMM on packed operands, shaped for CPU devices:
 * few large work-items, no local memory, no barriers, BLIS-style register
 * micro-tiles.
 *
 *   C(i,j) = alpha * sum_p A(i,p) * B(p,j) + beta * C(i,j)
 *   C(i,j) = c[c_off + g*c_bs + i*ldc + j]   (g = get_global_id(2), the batch)
 *            (c[c_off + g*c_bs + j*ldc + i] with C_TRANS: the host's swap of
 *            C = A B^T into C^T = B A^T, see STORE_TILE)
 *
 * A and B come from gemm_pack: A in panels of MR rows, B (as B^T) in slivers
 * of NR columns, both zero-padded to a depth kp (a multiple of KU) and to a
 * whole number of blocks (MB rows, NB columns), so no load is bounds-checked.
 * Only the stores to C test i < m and j < n.
 *
 * A_PACKED == 0 reads A where the caller keeps it instead (A(i,p) =
 * a[a_off + g*a_bs + i*a_rs + p*a_cs], rows past m clamped to m-1, exactly k
 * depths), which saves packing A when it is large next to the product (few
 * columns of C). Where a_cs == 1, each row's next KU values come in one
 * vector load (one widening for 16-bit storage) and are broadcast in turn.
 * (A parameter set's A_PACKED=2 is the host's choice per call: in place
 * where a_cs == 1, packed otherwise; this file sees 0 or 1, and reads any
 * nonzero value as packed.)
 *
 * Work-item (x, y) = get_global_id(0..1) owns the MB x NB block of C at
 * rows y*MB, columns x*NB, and walks it in MR x NR micro-tiles:
 *
 *            <------------- NB ------------->
 *            <-- NR -->
 *          ^ +----------+----------+-- --+
 *       MR | | acc in   |          |     |    acc[MR][NR/VW] vectors of VW
 *          v | registers|          |     |    elements, held in registers over
 *          ^ +----------+----------+-- --+    a depth chunk; per p: NR/VW vector
 *       MB | |          |          |     |    loads of B, MR broadcasts of A,
 *          | +----------+----------+-- --+    MR*NR/VW fused multiply-adds
 *          v
 *
 * KC == 0, or a depth of at most KC: each micro-tile runs over the whole
 *          depth and is written to C once.
 * KC  > 0 and a longer depth: the depth is cut in chunks of KC; the sliver
 *          of B (KC x NR) stays in cache while the panels of A stream past
 *          it, and the partial sums of the whole block live in a private
 *          array of MB*NB accumulators until the last chunk, so C (possibly
 *          16-bit) is rounded only once.
 * beta == 0 means C is not read.
 */

/* ---- tunables ----------------------------------------------------------- */
#ifndef MR
#define MR 6           /* micro-tile rows = panel width of packed A */
#endif
#ifndef NR
#define NR 64          /* micro-tile columns = sliver width of packed B */
#endif
#ifndef VW
#define VW 16          /* vector width of B loads and accumulators (1,2,4,8,16) */
#endif
#ifndef MB
#define MB 48          /* rows of C per work-item (multiple of MR) */
#endif
#ifndef NB
#define NB 64          /* columns of C per work-item (multiple of NR) */
#endif
#ifndef KC
#define KC 0           /* depth chunk kept in cache; 0 = no chunking (multiple of KU) */
#endif
#ifndef KU
#define KU 4           /* unroll of the depth loop; packed depth is a multiple of it */
#endif
#ifndef A_PACKED
#define A_PACKED 1     /* 1: A from packed scratch; 0: A read in place (strided, rows clamped) */
#endif
#ifndef ORDER
#define ORDER 0        /* micro-tile walk: 0 = columns outer (B sliver reused), 1 = rows outer */
#endif
#ifndef PREFETCH
#define PREFETCH 0     /* software prefetch of B, this many depths ahead; 0 = none */
#endif
#ifndef C_TRANS
#define C_TRANS 0      /* 1: C(i,j) at c[c_off + g*c_bs + j*ldc + i] (set by the host) */
#endif
#ifndef B_FUSED
#define B_FUSED 0      /* 1: B where the caller keeps it, packed by each work-item (set by the host) */
#endif

/* derived */
#define NV (NR / VW)            /* accumulator vectors per micro-tile row */
#define TM (MB / MR)            /* micro-tiles per block, vertically */
#define TN (NB / NR)            /* micro-tiles per block, horizontally */

#if NR % VW != 0 || MB % MR != 0 || NB % NR != 0 || (KC != 0 && KC % KU != 0)
#error "gemm_packed_cpu: NR % VW, MB % MR, NB % NR and KC % KU must be 0"
#endif
#if B_FUSED && (VW < 2 || KC != 0)
#error "gemm_packed_cpu: B_FUSED takes VW >= 2 and KC == 0"
#endif
/* B_FUSED, B as stored: the row PF_ROWS depths ahead of the one being
 * copied (its NB values, one prefetch per 64-byte line) is asked into the
 * cache. Rows of B lie n values apart, a page or more for a layer's
 * weights, where the hardware prefetchers do not follow: as AVX2 code on
 * the Intel Xeon the copy of 32 x 4096 x 4096's B waited on memory for 55%
 * of the kernel's samples and ran the product in 12.0-14.5 ms, with rows 8
 * ahead in 9.1-10.1 (4 ahead 11.4-12.0, 16 9.9-10.0, 32 10.3-11.7); as
 * AVX-512 code within the noise (docs/tuning.md, "Few rows against B as
 * stored"). Only where PoCL compiles for the host CPU (x86-64, AArch64):
 * the CPU sets run under Oclgrind too, which cannot run llvm.prefetch. */
#define PF_FUSED_ROW(r, p) (void)0
#if B_FUSED && (defined(__x86_64__) || defined(__aarch64__)) &&               \
    defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
#undef PF_FUSED_ROW
#define PF_ROWS 8
#define PF_FUSED_ROW(r, p)                                                     \
    if ((p) + PF_ROWS < k) {                                                   \
        __global const char *pf_ =                                             \
            (__global const char *)((r) + (ulong)PF_ROWS * b_rs);              \
        for (uint l_ = 0; l_ < (NB * (uint)sizeof(AB_T) + 63) / 64; ++l_)    \
            __builtin_prefetch(pf_ + l_ * 64, 0, 3);                           \
    }
#endif
#endif

/* Where the B slivers live: scratch from gemm_pack, or (B_FUSED) the
 * work-item's local memory. */
#if B_FUSED
#define BSP __local
#else
#define BSP __global
#endif

/* Storage types: DTYPE_AB, DTYPE_C, ACC, AB_T, LOAD_AB, C_T, LOAD_C and
 * STORE_C come from vncl_gemm_common.cl, which the program builder puts
 * before this file. */

#if VW == 1
#define VSUF
#else
#define VSUF VW
#endif
#define VT CAT(ACC, VSUF)                     /* accumulator vector type */

/* VW-wide access to the packed scratch (VLOAD/VSTORE) and to C
 * (VLOAD_C/VSTORE_C). */
#if VW == 1
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#define VLOAD_C(p) LOAD_C((p), 0)
#define VSTORE_C(v, p) STORE_C((p), 0, (v))
#else
#define VLOAD(p) CAT(vload, VW)(0, (p))
#define VSTORE(v, p) CAT(vstore, VW)((v), 0, (p))
#define VLOAD_C(p) CAT(convert_, VT)(VNCL_VLOAD(DTYPE_C, VW, 0, p))
#define VSTORE_C(v, p) VNCL_VSTORE(DTYPE_C, VW, p, 0, v)
#endif
/* ------------------------------------------------------------------------- */

/* PREFETCH > 0: at each KU-step block, the B sliver's rows PREFETCH depths
 * ahead (KU*NR values, one prefetch per 64-byte line) are asked into L1, so
 * that the sliver streaming from L2 does not wait on the hardware
 * prefetcher. A parameter of the CPU rows, not a compiler test alone:
 * Oclgrind's compiler has the builtin but cannot run llvm.prefetch (the
 * GPU rows and the table's defaults keep 0). Prefetches past the end of the
 * scratch are hints and do not fault. */
#define PF_B(bp, p) (void)0
#if PREFETCH > 0 && !B_FUSED && defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
#undef PF_B
#define PF_LINES ((KU * NR * (uint)sizeof(ACC) + 63) / 64)
#define PF_B(bp, p)                                                            \
    {                                                                          \
        __global const char *pf_ =                                             \
            (__global const char *)((bp) + ((p) + PREFETCH) * NR);             \
        _Pragma("unroll")                                                      \
        for (uint l_ = 0; l_ < PF_LINES; ++l_)                                 \
            __builtin_prefetch(pf_ + l_ * 64, 0, 3);                           \
    }
#endif
#endif

/* In place with a_cs == 1 (rows of A contiguous in depth), the depth loop
 * knows A's stride: KU must then be 2, 4, 8 or 16. For 16-bit storage each
 * row's next KU values come in one vector load, widened as a vector, and
 * are then broadcast one by one: one conversion per KU elements instead of
 * one per element. */
#if !A_PACKED && (KU == 2 || KU == 4 || KU == 8 || KU == 16)
#define A_ROWVEC 1
#define KT CAT(ACC, KU)
#define VLOAD_A_KU(p) VNCL_VLOAD(DTYPE_AB, KU, 0, p)

/* 16-bit storage: the widened rows of A are staged on the stack and
 * broadcast from there. The stage is volatile: otherwise the compiler keeps
 * the MR widened vectors in registers beside the MR*NV accumulators and
 * spills an accumulator every depth step (seen on PoCL 3.1, AVX-512, bf16:
 * one accumulator loaded and stored per 24 FMAs); volatile makes every
 * broadcast a load from the stage.
 * f32 and f64 need no widening: each element is broadcast straight from
 * its row (one `vbroadcastss/sd` from memory per row and depth, the row
 * pointers in registers). Staging those rows too (a vector store of KU
 * values per row, then broadcasts from the stack) made PoCL 3.1 split each
 * row's load into 128- and 256-bit pieces stored to the stack in several
 * places and move an accumulator between registers every step: about 80
 * instructions more per KU = 16 depths of a 6 x 64 tile, and 0.9x the
 * speed of the direct broadcasts at 512^3-2048^3 (docs/tuning.md, "Direct
 * broadcasts of A in place"). */
#if DTYPE_AB >= 2
#define A_STAGE_DECL(t) volatile KT t[MR]
#define A_STAGE_PUT(t, r, v) ((t)[r] = (v))
#define A_STAGE_GET(t, r, u) (((volatile ACC *)&(t)[r])[u])
#else
#define A_STAGE_DECL(t)
#define A_STAGE_PUT(t, r, v) ((void)0)
#define A_STAGE_GET(t, r, u) (arow_[r][p_ + (u)])
#endif

/* acc += A rows (in place, a_cs == 1) * B sliver over depth [0, kc), KU at
 * a time; returns with p_ at the first depth not done (the caller finishes). */
#define MICRO_KERNEL_ROWVEC(acc, bp, kc, p_)                                   \
    for (; p_ + KU <= (kc); p_ += KU) {                                        \
        PF_B(bp, p_);                                                          \
        A_STAGE_DECL(at_);                                                     \
        _Pragma("unroll")                                                      \
        for (uint r_ = 0; r_ < MR; ++r_)                                       \
            A_STAGE_PUT(at_, r_, VLOAD_A_KU(arow_[r_] + p_));                  \
        _Pragma("unroll")                                                      \
        for (uint u_ = 0; u_ < KU; ++u_) {                                     \
            VT bv_[NV];                                                        \
            _Pragma("unroll")                                                  \
            for (uint v_ = 0; v_ < NV; ++v_)                                   \
                bv_[v_] = VLOAD((bp) + (p_ + u_) * NR + v_ * VW);              \
            _Pragma("unroll")                                                  \
            for (uint r_ = 0; r_ < MR; ++r_) {                                 \
                const VT av_ = (VT)(A_STAGE_GET(at_, r_, u_));                 \
                _Pragma("unroll")                                              \
                for (uint v_ = 0; v_ < NV; ++v_)                               \
                    acc[r_][v_] = fma(av_, bv_[v_], acc[r_][v_]);              \
            }                                                                  \
        }                                                                      \
    }
#else
#define A_ROWVEC 0
#endif

/* One depth step: acc += A(:, p) * B(p, :); AT(r, p) reads A. */
#define RANK1(acc, AT, bp, p)                                                  \
    {                                                                          \
        VT bv_[NV];                                                            \
        _Pragma("unroll")                                                      \
        for (uint v_ = 0; v_ < NV; ++v_)                                       \
            bv_[v_] = VLOAD((bp) + (p) * NR + v_ * VW);                        \
        _Pragma("unroll")                                                      \
        for (uint r_ = 0; r_ < MR; ++r_) {                                     \
            const VT av_ = (VT)(AT(r_, (p)));                                  \
            _Pragma("unroll")                                                  \
            for (uint v_ = 0; v_ < NV; ++v_)                                   \
                acc[r_][v_] = fma(av_, bv_[v_], acc[r_][v_]);                  \
        }                                                                      \
    }

/* acc += A (MR x kc) * B sliver (kc x NR); kc need not be a multiple of KU.
 * With A_ROWVEC, rows contiguous in depth take the vector path first. */
#if A_ROWVEC
#define ROWVEC_FIRST(acc, bp, kc, p_)                                          \
    if (a_cs == 1) {                                                           \
        MICRO_KERNEL_ROWVEC(acc, bp, kc, p_);                                  \
    }
#else
#define ROWVEC_FIRST(acc, bp, kc, p_)
#endif
#define MICRO_KERNEL(acc, AT, bp, kc)                                          \
    {                                                                          \
        uint p_ = 0;                                                           \
        ROWVEC_FIRST(acc, bp, kc, p_)                                          \
        for (; p_ + KU <= (kc); p_ += KU) {                                    \
            PF_B(bp, p_);                                                      \
            _Pragma("unroll")                                                  \
            for (uint u_ = 0; u_ < KU; ++u_)                                   \
                RANK1(acc, AT, bp, p_ + u_);                                   \
        }                                                                      \
        for (; p_ < (kc); ++p_)                                                \
            RANK1(acc, AT, bp, p_);                                            \
    }

/* A(r, p) of the current micro-tile: packed panel, or strided rows in place. */
#if A_PACKED
#define A_T ACC
#define A_PANEL(r, p) (a_[(p) * MR + (r)])
#else
#define A_T AB_T
#define A_PANEL(r, p) LOAD_AB(arow_[r], (ulong)(p) * a_cs)
#endif

/* C tile (rows i0.., columns j0..) = alpha*acc + beta*C, inside m x n only. */
#if C_TRANS
/* C stored transposed: the host runs C = A B^T (B's rows along the depth)
 * as C^T = B A^T when that packs the smaller operand, and this kernel's C
 * is then the caller's C^T. Column j of the tile is MR contiguous values
 * of the caller's row j; the tile goes through private memory once per
 * whole depth (a few hundred scalar stores against MR*NR*k FMAs). */
#define STORE_TILE(acc, i0, j0)                                                \
    {                                                                          \
        ACC t_[MR][NR];                                                        \
        _Pragma("unroll")                                                      \
        for (uint r_ = 0; r_ < MR; ++r_)                                       \
            _Pragma("unroll")                                                  \
            for (uint v_ = 0; v_ < NV; ++v_)                                   \
                VSTORE(acc[r_][v_], t_[r_] + v_ * VW);                         \
        const uint rn_ = min((uint)MR, m - (i0));                              \
        for (uint e_ = 0; e_ < NR && (j0) + e_ < n; ++e_) {                    \
            __global C_T *ccol_ = c + (ulong)((j0) + e_) * ldc + (i0);         \
            for (uint r_ = 0; r_ < rn_; ++r_) {                                \
                ACC x_ = alpha * t_[r_][e_];                                   \
                if (beta != (ACC)0)                                            \
                    x_ += beta * LOAD_C(ccol_, r_);                            \
                STORE_C(ccol_, r_, x_);                                        \
            }                                                                  \
        }                                                                      \
    }
#else
#define STORE_TILE(acc, i0, j0)                                                \
    _Pragma("unroll")                                                          \
    for (uint r_ = 0; r_ < MR; ++r_) {                                         \
        if ((i0) + r_ < m) {                                                   \
            __global C_T *crow_ = c + (ulong)((i0) + r_) * ldc + (j0);         \
            if ((j0) + NR <= n) {                                              \
                _Pragma("unroll")                                              \
                for (uint v_ = 0; v_ < NV; ++v_) {                             \
                    VT x_ = alpha * acc[r_][v_];                               \
                    if (beta != (ACC)0)                                        \
                        x_ += beta * VLOAD_C(crow_ + v_ * VW);                 \
                    VSTORE_C(x_, crow_ + v_ * VW);                             \
                }                                                              \
            } else {                                                           \
                ACC t_[NR];                                                    \
                _Pragma("unroll")                                              \
                for (uint v_ = 0; v_ < NV; ++v_)                               \
                    VSTORE(acc[r_][v_], t_ + v_ * VW);             \
                for (uint e_ = 0; (j0) + e_ < n; ++e_) {                       \
                    ACC x_ = alpha * t_[e_];                                   \
                    if (beta != (ACC)0)                                        \
                        x_ += beta * LOAD_C(crow_, e_);                        \
                    STORE_C(crow_, e_, x_);                                    \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }

#endif

/* Pointers to the rows of A of the micro-tile at row i0 (in-place A only). */
#if A_PACKED
#define A_SETUP(i0)
#else
#define A_SETUP(i0)                                                            \
    __global const AB_T *arow_[MR];                                            \
    _Pragma("unroll")                                                          \
    for (uint r_ = 0; r_ < MR; ++r_)                                           \
        arow_[r_] = a + (ulong)min((i0) + r_, m - 1) * a_rs;
#endif

/* The whole depth at once (KC 0, or a depth within one chunk) for the
 * block at row ib: each micro-tile is written to C once, no private block
 * of sums. a: the block's A (its packed panels, or A in place); bp: its B
 * slivers. */
#if ORDER == 0
#define TILE_LOOPS                                                             \
    for (uint jr = 0; jr < NB; jr += NR)                                       \
        for (uint ir = 0; ir < MB; ir += MR)
#else
#define TILE_LOOPS                                                             \
    for (uint ir = 0; ir < MB; ir += MR)                                       \
        for (uint jr = 0; jr < NB; jr += NR)
#endif
#define BLOCK_FULL_DEPTH(ib, a, bp, kk)                                        \
    TILE_LOOPS {                                                               \
        if ((ib) + ir >= m || jb + jr >= n)                                    \
            continue;                                                          \
        __global const A_T *a_ = (a) + (ulong)ir * kp;                         \
        BSP const ACC *b_ = (bp) + (ulong)jr * kp;                             \
        A_SETUP((ib) + ir);                                                    \
        VT acc[MR][NV];                                                        \
        _Pragma("unroll")                                                      \
        for (uint r = 0; r < MR; ++r)                                          \
            _Pragma("unroll")                                                  \
            for (uint v = 0; v < NV; ++v)                                      \
                acc[r][v] = (VT)0;                                             \
        MICRO_KERNEL(acc, A_PANEL, b_, (kk));                                  \
        STORE_TILE(acc, (ib) + ir, jb + jr);                                   \
    }

/*
 * a: packed A (A_PACKED, a_off = 0, a_bs = panel scratch per batch) or A in
 * place (A(i,p) = a[a_off + g*a_bs + i*a_rs + p*a_cs]); bp: packed B with
 * depth kp >= k (rows k..kp-1 zero).
 *
 * B_FUSED: b instead of bp, B(p,j) = b[b_off + g*b_bs + p*b_rs + j*b_cs]
 * where the caller keeps it (b_cs == 1, or b_rs == 1: B transposed, moved
 * in 16 x 16 blocks through private memory). Work-item x (1 x 1 groups)
 * packs its NB columns of B, every depth, into bl (local memory of NB*kp
 * values: TN slivers [kp][NR], zeros past n and k), then runs every row
 * block of C against them (global size 1 along y). The separate pack
 * wrote all of B to scratch and read it back once per row block; here B
 * is read from memory once, and the slivers stay in the cache that bl
 * lives in (PoCL keeps a work-group's local memory per worker thread).
 */
__kernel void gemm_packed_cpu(const uint m, const uint n, const uint k,
                              const uint kp, const ACC alpha, const ACC beta,
                              __global const A_T *a, const ulong a_off,
                              const ulong a_rs, const ulong a_cs,
                              const ulong a_bs,
#if B_FUSED
                              __global const AB_T *b, const ulong b_off,
                              const ulong b_rs, const ulong b_cs,
                              const ulong b_bs, __local ACC *bl,
#else
                              __global const ACC *bp, const ulong bp_bs,
#endif
                              __global C_T *c, const ulong c_off,
                              const ulong ldc, const ulong c_bs)
{
    const uint jb = get_global_id(0) * NB;
    const ulong g = get_global_id(2);
    a += a_off + g * a_bs;
    c += c_off + g * c_bs;
#if A_PACKED
    const uint kk = kp;             /* depth to run: padded (zeros are harmless) */
#else
    const uint kk = k;              /* in place: exactly k */
#endif
#if B_FUSED
    if (jb >= n)
        return;
    b += b_off + g * b_bs;
    if (b_cs == 1) {
        /* Rows of B along n: a depth's NB values at once (NV vector loads
         * per sliver), so that each row of B is read as one run of NB
         * values and its page walked once, not once per sliver (a sliver
         * at a time, 16-wide AVX2 slivers read 64 bytes a row 16 KiB apart
         * four times over: 32 x 4096 x 4096 ran at 0.57x OpenBLAS). */
        for (uint p = 0; p < kp; ++p) {
            __global const AB_T *r_ = b + (ulong)p * b_rs + jb;
            PF_FUSED_ROW(r_, p);
            for (uint tj = 0; tj < TN; ++tj, r_ += NR) {
                const uint j0 = jb + tj * NR;
                __local ACC *s_ = bl + ((ulong)tj * kp + p) * NR;
                if (p < k && j0 + NR <= n) {
                    _Pragma("unroll")
                    for (uint v = 0; v < NV; ++v)
                        VSTORE(VNCL_VLOAD(DTYPE_AB, VW, v, r_), s_ + v * VW);
                } else {
                    for (uint e = 0; e < NR; ++e)
                        s_[e] = p < k && j0 + e < n ? LOAD_AB(r_, e) : (ACC)0;
                }
            }
        }
    } else {
        for (uint tj = 0; tj < TN; ++tj) {
            const uint j0 = jb + tj * NR;
            __local ACC *s_ = bl + (ulong)tj * kp * NR;
            /* B transposed (b_rs == 1): each column of the sliver is
             * contiguous in depth. Blocks of 16 columns and 16 depths: 16
             * vector loads, a transpose through private memory, 16 vector
             * stores of a depth's columns; the rest element by element. */
            uint e0 = 0;
#if NR % 16 == 0
            for (; e0 + 16 <= NR && j0 + e0 + 16 <= n; e0 += 16) {
                uint p = 0;
                for (; p + 16 <= k; p += 16) {
                    ACC t_[16][16];
                    _Pragma("unroll")
                    for (uint i = 0; i < 16; ++i)
                        vstore16(VNCL_VLOAD(DTYPE_AB, 16, 0,
                                            b + (ulong)(j0 + e0 + i) * b_cs +
                                                p),
                                 0, t_[i]);
                    _Pragma("unroll")
                    for (uint u = 0; u < 16; ++u)
                        vstore16(GEMM_COLUMN16(t_, u), 0,
                                 s_ + (ulong)(p + u) * NR + e0);
                }
                for (; p < kp; ++p)
                    for (uint i = 0; i < 16; ++i)
                        s_[(ulong)p * NR + e0 + i] =
                            p < k ? LOAD_AB(b + (ulong)(j0 + e0 + i) * b_cs, p)
                                  : (ACC)0;
            }
#endif
            for (uint e = e0; e < NR; ++e) {
                __global const AB_T *col_ = b + (ulong)(j0 + e) * b_cs;
                const bool in_ = j0 + e < n;
                uint p = 0;
                if (in_)
                    for (; p + 16 <= k; p += 16) {
                        ACC t_[16];
                        vstore16(VNCL_VLOAD(DTYPE_AB, 16, 0, col_ + p), 0, t_);
                        _Pragma("unroll")
                        for (uint u = 0; u < 16; ++u)
                            s_[(ulong)(p + u) * NR + e] = t_[u];
                    }
                for (; p < kp; ++p)
                    s_[(ulong)p * NR + e] = in_ && p < k ? LOAD_AB(col_, p)
                                                         : (ACC)0;
            }
        }
    }
    for (uint ib = 0; ib < m; ib += MB) {
#if A_PACKED
        __global const A_T *ab_ = a + (ulong)ib * kp;
#else
        __global const A_T *ab_ = a;
#endif
        BLOCK_FULL_DEPTH(ib, ab_, bl, kk)
    }
#else
    const uint ib = get_global_id(1) * MB;
    if (ib >= m || jb >= n)
        return;
    /* Panel ib/MR of packed A starts at (ib/MR)*MR*kp = ib*kp; the same for B. */
#if A_PACKED
    a += (ulong)ib * kp;
#endif
    bp += g * bp_bs + (ulong)jb * kp;

#if KC != 0
    if (kk > KC) {
        /* Partial sums of the whole block, tile by tile. */
        VT blk[TM * TN][MR][NV];
        for (uint pc = 0; pc < kk; pc += KC) {
            const uint kc = min((uint)KC, kk - pc);
#if ORDER == 0
            for (uint tj = 0; tj < TN; ++tj) {
                for (uint ti = 0; ti < TM; ++ti) {
#else
            for (uint ti = 0; ti < TM; ++ti) {
                for (uint tj = 0; tj < TN; ++tj) {
#endif
                    __global const A_T *a_ = a + (ulong)ti * MR * kp + pc * MR;
                    __global const ACC *b_ = bp + (ulong)tj * NR * kp + pc * NR;
                    A_SETUP(ib + ti * MR);
#if !A_PACKED
                    _Pragma("unroll")
                    for (uint r = 0; r < MR; ++r)
                        arow_[r] += (ulong)pc * a_cs;
#endif
                    VT acc[MR][NV];
                    const uint t = ti * TN + tj;
                    _Pragma("unroll")
                    for (uint r = 0; r < MR; ++r)
                        _Pragma("unroll")
                        for (uint v = 0; v < NV; ++v)
                            acc[r][v] = pc == 0 ? (VT)0 : blk[t][r][v];
                    MICRO_KERNEL(acc, A_PANEL, b_, kc);
                    _Pragma("unroll")
                    for (uint r = 0; r < MR; ++r)
                        _Pragma("unroll")
                        for (uint v = 0; v < NV; ++v)
                            blk[t][r][v] = acc[r][v];
                }
            }
        }
        for (uint ti = 0; ti < TM; ++ti) {
            for (uint tj = 0; tj < TN; ++tj) {
                if (ib + ti * MR >= m || jb + tj * NR >= n)
                    continue;
                const uint t = ti * TN + tj;
                VT acc[MR][NV];
                _Pragma("unroll")
                for (uint r = 0; r < MR; ++r)
                    _Pragma("unroll")
                    for (uint v = 0; v < NV; ++v)
                        acc[r][v] = blk[t][r][v];
                STORE_TILE(acc, ib + ti * MR, jb + tj * NR);
            }
        }
        return;
    }
#endif
    BLOCK_FULL_DEPTH(ib, a, bp, kk)
#endif
}
