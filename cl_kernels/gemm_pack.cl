/*
 * gemm_pack.cl - copy a strided operand of GEMM into packed, zero-padded
 * scratch in the accumulation type, so that the packed GEMM kernels
 * (gemm_packed_cpu, gemm_packed_local) never test bounds on their loads.
 *
 * The source is read as a matrix X of `rows` x `depth` elements,
 *     X(r,p) = x[off + g*bs + r*rs + p*cs]        (g = batch index)
 * which is A itself (r = i, p = k index) or B transposed (r = j, p = k index):
 * transposes and layouts only change rs and cs.
 *
 * The destination holds rows_p x depth_p elements (rows_p a multiple of pw,
 * depth_p >= depth) cut into panels of pw rows; inside a panel the pw values
 * of one p are contiguous, and p runs fastest after them:
 *
 *            p = 0      p = 1      p = 2          p = depth_p-1
 *          +----------+----------+----------+-- --+----------+
 * panel 0  | r0..r_pw | r0..r_pw | r0..r_pw | ... | r0..r_pw |   pw*depth_p
 *          +----------+----------+----------+-- --+----------+
 * panel 1  | ...                                              |
 *
 *   out[g*out_bs + (r / pw)*pw*depth_p + p*pw + r % pw] = X(r,p), or 0 when
 *   r >= rows or p >= depth.
 *
 * Two kernels do the same copy with different work-item shapes:
 *   gemm_pack       one work-item per (PACK_K = 16 depths, panel): global
 *                   size at least (ceil(depth_p / 16), panels, batch), where
 *                   panels = rows_p / pw; work-items outside do nothing, so
 *                   the host may round up to a 2-D work-group. When the
 *                   source is contiguous in depth (cs == 1) each row's 16
 *                   values come in one vector load (one widening for 16-bit
 *                   types: scalar vload_half is a slow library call on PoCL),
 *                   and blocks of 16 rows are transposed through private
 *                   memory into one vector store per depth;
 *                   otherwise the loop runs along the rows, and where they
 *                   are contiguous (rs == 1) each depth's run of the panel
 *                   is copied 16 values per vector load and store (16-bit
 *                   types then 8, 4 and 2: narrow panels, A transposed).
 *                   For CPUs: few, long work-items.
 *   gemm_pack_elem  one work-item per element: global size (pw, depth_p,
 *                   panels * batch); neighbouring work-items write
 *                   neighbouring addresses (coalesced on GPUs).
 * The panel width and padding are run-time arguments, so one program per
 * storage type serves every GEMM parameter set.
 */

/* ---- storage types (the dtype block of vncl_prelude.cl) ----------------- */
#ifndef DTYPE_AB
#define DTYPE_AB 0        /* storage of the source: 0 f32, 1 f64, 2 f16, 3 bf16 */
#endif
#if DTYPE_AB < 0 || DTYPE_AB > 3
#error "DTYPE_AB must be 0, 1, 2 or 3"
#endif

#if DTYPE_AB == 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define ACC VNCL_REAL(DTYPE_AB) /* accumulation type = type of the packed scratch */
#define AB_T VNCL_STORAGE(DTYPE_AB)
#define LOAD_AB(p, i) ((ACC)VNCL_LOAD(DTYPE_AB, p, i))

/* gemm_pack: depths per work-item (fixed: the host sizes its launch by it),
 * and PACK_K consecutive source elements as a vector of ACC. */
#define PACK_K 16
#define VLOAD_K(p) VNCL_VLOAD(DTYPE_AB, 16, 0, p)
/* In gemm_pack's copy along rows: the next W rows of the run (r, d, s, r0,
 * rows, pw in scope) by one vector load and store where they lie inside
 * the panel and the matrix. */
#define PACK_RUN(W)                                                            \
    if (r + (W) <= pw && r0 + r + (W) <= rows) {                               \
        CAT(vstore, W)(VNCL_VLOAD(DTYPE_AB, W, 0, x + s + r), 0, d + r);       \
        r += (W);                                                              \
    }
/* Column u of a 16 x 16 private block t as one vector. */
#define PACK_COLUMN(t, u)                                                      \
    ((CAT(ACC, 16))((t)[0][u], (t)[1][u], (t)[2][u], (t)[3][u], (t)[4][u],    \
                    (t)[5][u], (t)[6][u], (t)[7][u], (t)[8][u], (t)[9][u],    \
                    (t)[10][u], (t)[11][u], (t)[12][u], (t)[13][u],           \
                    (t)[14][u], (t)[15][u]))
/* ------------------------------------------------------------------------- */

__kernel void gemm_pack_elem(const uint rows, const uint depth,
                             const uint depth_p, const uint pw,
                             const uint panels,
                             __global const AB_T *x, const ulong off,
                             const ulong rs, const ulong cs, const ulong bs,
                             __global ACC *out, const ulong out_bs)
{
    const uint lane = get_global_id(0);
    const uint p = get_global_id(1);
    const uint pg = get_global_id(2);
    const uint panel = pg % panels;
    const ulong g = pg / panels;
    const uint r = panel * pw + lane;
    ACC v = (ACC)0;
    if (r < rows && p < depth)
        v = LOAD_AB(x, off + g * bs + (ulong)r * rs + (ulong)p * cs);
    out[g * out_bs + ((ulong)panel * depth_p + p) * pw + lane] = v;
}

__kernel void gemm_pack(const uint rows, const uint depth,
                        const uint depth_p, const uint pw, const uint panels,
                        __global const AB_T *x, const ulong off,
                        const ulong rs, const ulong cs, const ulong bs,
                        __global ACC *out, const ulong out_bs)
{
    const uint p0 = get_global_id(0) * PACK_K;
    const uint panel = get_global_id(1);
    const ulong g = get_global_id(2);
    if (p0 >= depth_p || panel >= panels)
        return;
    __global ACC *dst = out + g * out_bs + ((ulong)panel * depth_p + p0) * pw;
    const uint r0 = panel * pw;
    const uint np = min((uint)PACK_K, depth_p - p0);
    const ulong src0 = off + g * bs + (ulong)p0 * cs;
    if (cs == 1) {
        uint r = 0;
        /* Blocks of 16 rows with all 16 depths inside the matrix: 16
         * vector loads (a row's depths each), transposed through private
         * memory into 16 vector stores (a depth's rows each), where one
         * row at a time made 16 scalar stores pw apart. */
        if (p0 + PACK_K <= depth && np == PACK_K) {
            for (; r + 16 <= pw && r0 + r + 16 <= rows; r += 16) {
                ACC t[16][PACK_K];
                for (uint i = 0; i < 16; ++i)
                    vstore16(VLOAD_K(x + src0 + (ulong)(r0 + r + i) * rs), 0,
                             t[i]);
                for (uint u = 0; u < PACK_K; ++u)
                    vstore16(PACK_COLUMN(t, u), 0, dst + u * pw + r);
            }
        }
        for (; r < pw; ++r) {
            const uint row = r0 + r;
            if (row < rows && p0 + PACK_K <= depth && np == PACK_K) {
                ACC t[PACK_K];
                vstore16(VLOAD_K(x + src0 + (ulong)row * rs), 0, t);
                for (uint u = 0; u < PACK_K; ++u)
                    dst[u * pw + r] = t[u];
            } else {
                for (uint u = 0; u < np; ++u)
                    dst[u * pw + r] = (row < rows && p0 + u < depth)
                        ? LOAD_AB(x, src0 + (ulong)row * rs + u) : (ACC)0;
            }
        }
    } else if (rs == 1) {
        /* Rows contiguous (B row-major packed as B^T): each depth's run of
         * the panel's rows is a copy, 16 values per vector load and store
         * where the run lies inside the rows; the rest element by element. */
        for (uint u = 0; u < np; ++u) {
            __global ACC *d = dst + u * pw;
            const ulong s = src0 + (ulong)u * cs + r0;
            uint r = 0;
            if (p0 + u < depth) {
                for (; r + PACK_K <= pw && r0 + r + PACK_K <= rows; r += PACK_K)
                    vstore16(VLOAD_K(x + s + r), 0, d + r);
#if DTYPE_AB >= 2
                /* 16-bit: narrow panels (A's MR rows, 6 on the CPU rows)
                 * and their ends 8, 4 and 2 at a time: f16 per element is
                 * PoCL's scalar vload_half (at 1024^3 with A transposed
                 * its pack took 2.8 ms against 1.7 this way). f32 and f64
                 * keep the element copy, which ran faster here (2.1
                 * against 2.35 ms). */
                PACK_RUN(8);
                PACK_RUN(4);
                PACK_RUN(2);
#endif
            }
            for (; r < pw; ++r)
                d[r] = (r0 + r < rows && p0 + u < depth)
                    ? LOAD_AB(x, s + r) : (ACC)0;
        }
    } else {
        for (uint u = 0; u < np; ++u)
            for (uint r = 0; r < pw; ++r) {
                const uint row = r0 + r;
                dst[u * pw + r] = (row < rows && p0 + u < depth)
                    ? LOAD_AB(x, src0 + (ulong)row * rs + (ulong)u * cs) : (ACC)0;
            }
    }
}
