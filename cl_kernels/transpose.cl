/*
 * transpose.cl: permutes the axes of a row-major tensor. Only moves
 * elements, so one program per element size (ELEM bytes) serves every dtype.
 *
 *   permute_tiled   the innermost input axis A moves: a TILE x TILE tile is
 *                   read along A (coalesced), kept in local memory, and
 *                   written along the output's innermost axis R (coalesced):
 *
 *                      input (rows r, columns a)         output (rows a, columns r)
 *                      r0 +----TILE----+                 a0 +----TILE----+
 *                         | read rows  |   tile[j][lx]      | write rows |
 *                         | along a    |   -> tile[lx][j]   | along r    |
 *                         +------------+                    +------------+
 *
 *                   Work-group TILE x WGY: each work-item moves TILE/WGY
 *                   elements each way (or, with ROW_ITEMS, whole tile rows). The third dimension runs over the
 *                   other axes (the batch), whose strides come from the host.
 *                   The tile row is padded by one element against bank
 *                   conflicts.
 *   permute_blocks  the same on CPUs with ROW_ITEMS 2, without local memory:
 *                   a work-item moves one 16 x 16 block, 16 vector loads
 *                   along a, a transpose in registers (4 rounds of 16
 *                   zips, VNCL_SQUARE: one permute each on AVX-512) and
 *                   16 vector stores along r (non-temporal when the host
 *                   says the output rows are aligned). A work-group of
 *                   TILE x WGY work-items covers 16 TILE columns of a by
 *                   VBR WGY rows of r; blocks at the edges move element by
 *                   element. 2-byte elements (VBR 32) take 16 x 32 blocks:
 *                   rows 2k and 2k+1 of r are joined lane by lane into one
 *                   uint16 (row 2k in the low half, the first in memory),
 *                   the 16 x 16 block of uints is transposed like 4-byte
 *                   elements, and each uint16 is one output row's 32
 *                   elements in order, so no 16-bit shuffles are needed.
 *                   A last block of r with fewer than 32 rows goes the
 *                   same way, the missing rows repeating the last one
 *                   (never stored), and stores each output row's er
 *                   elements in pieces of 16, 8, 4, 2 and 1.
 *   permute_rows    the innermost axis stays innermost, on CPUs (ROW_ITEMS):
 *                   work-item g copies run g % nruns (RUN elements) of
 *                   output row g / nruns, a contiguous copy on both sides;
 *                   only the row's input offset is decomposed. RUN_NT
 *                   chooses its stores.
 *   permute_gather  one output element per work-item, read from wherever the
 *                   permutation puts it: the path when the innermost axis
 *                   stays innermost (reads are then contiguous too), and the
 *                   reference the tiled kernel is tested against.
 */

/* Element size in bytes: 1, 2, 4 or 8. */
#ifndef ELEM
#define ELEM 4
#endif
/* Tile edge in elements (work-group width). */
#ifndef TILE
#define TILE 32
#endif
/* Work-group height: rows of the tile moved at once (divides TILE). */
#ifndef WGY
#define WGY 8
#endif
/* 1: each work-item of permute_tiled reads and writes whole tile rows
 * (contiguous runs: CPUs, which run a group's work-items one after the
 * other); 0: the work-items of a tile row move it together (coalesced:
 * GPUs). */
#ifndef ROW_ITEMS
#define ROW_ITEMS 0
#endif
/* Elements per work-item of permute_rows (the host passes it). */
#ifndef RUN
#define RUN 256
#endif
/* 1: whole output lines are stored non-temporally where the compiler has
 * it (ROW_ITEMS kernels; permute_blocks also needs the host's nt). */
#ifndef NT_STORE
#define NT_STORE 0
#endif
/* 1: permute_rows stores 16-element vectors non-temporally from the first
 * aligned one of its output run on (where the compiler has them); 0:
 * ordinary stores (some CPUs skip the read of a line written whole in
 * order, and then ordinary stores run faster: docs/ops.md). */
#ifndef RUN_NT
#define RUN_NT 0
#endif
/* Index width: 32 or 64 bits. */
#ifndef IDX_BITS
#define IDX_BITS 32
#endif

#if IDX_BITS == 64
typedef ulong IDX;
typedef ulong8 IDX8;
#else
typedef uint IDX;
typedef uint8 IDX8;
#endif

#if ELEM == 1
typedef uchar T;
#elif ELEM == 2
typedef ushort T;
#elif ELEM == 8
typedef ulong T;
#else
typedef uint T;
#endif

/* A store of a whole output line's element: non-temporal where the
 * compiler has it (CPUs then skip reading the line before writing it). */
#if ROW_ITEMS && NT_STORE && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define ST_NT(p, x) __builtin_nontemporal_store((x), (p))
#endif
#endif
#ifndef ST_NT
#define ST_NT(p, x) (*(p) = (x))
#endif

/* Batch decomposition: component C of shape/istr/ostr is batch dimension
 * C counted from the innermost. */
#define DECOMP(C)                                  \
  if (C < nb) {                                    \
    const IDX c = b % bshape.s##C;                 \
    b /= bshape.s##C;                              \
    ib += c * bin.s##C;                            \
    ob += c * bout.s##C;                           \
  }

__kernel __attribute__((reqd_work_group_size(TILE, WGY, 1))) void
permute_tiled(const IDX na, const IDX nr, const IDX in_sr, const IDX out_sa,
              const int nb, const IDX8 bshape, const IDX8 bin,
              const IDX8 bout, __global const T *in, const IDX ioff,
              __global T *out, const IDX ooff) {
  __local T tile[TILE][TILE + 1];
  const int lx = get_local_id(0), ly = get_local_id(1);
  const IDX a0 = (IDX)get_group_id(0) * TILE, r0 = (IDX)get_group_id(1) * TILE;
  IDX b = get_global_id(2), ib = 0, ob = 0;
  DECOMP(0) DECOMP(1) DECOMP(2) DECOMP(3) DECOMP(4) DECOMP(5)
  in += ioff + ib;
  out += ooff + ob;
#if ROW_ITEMS
  /* Each work-item moves whole tile rows: reads one input row segment and
   * writes one output row segment, both contiguous. Whole tiles (all but
   * the edges) run without bounds tests, so that the compiler vectorizes
   * the row loops, and write with non-temporal stores where the compiler
   * has them (the output lines are written whole, never read). */
  const int t = ly * TILE + lx;
  const int full = a0 + TILE <= na && r0 + TILE <= nr;
  if (full) {
    for (int j = t; j < TILE; j += TILE * WGY) {
      __global const T *src = in + (r0 + j) * in_sr + a0;
      for (int i = 0; i < TILE; i++) tile[j][i] = src[i];
    }
  } else {
    for (int j = t; j < TILE; j += TILE * WGY) {
      const IDX r = r0 + j;
      if (r < nr)
        for (int i = 0; i < TILE; i++)
          if (a0 + i < na) tile[j][i] = in[r * in_sr + a0 + i];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (full) {
    for (int j = t; j < TILE; j += TILE * WGY) {
      __global T *dst = out + (a0 + j) * out_sa + r0;
      for (int i = 0; i < TILE; i++) ST_NT(dst + i, tile[i][j]);
    }
  } else {
    for (int j = t; j < TILE; j += TILE * WGY) {
      const IDX a = a0 + j;
      if (a < na)
        for (int i = 0; i < TILE; i++)
          if (r0 + i < nr) out[a * out_sa + r0 + i] = tile[i][j];
    }
  }
#else
  for (int j = ly; j < TILE; j += WGY) {
    const IDX r = r0 + j, a = a0 + lx;
    if (r < nr && a < na) tile[j][lx] = in[r * in_sr + a];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int j = ly; j < TILE; j += WGY) {
    const IDX a = a0 + j, r = r0 + lx;
    if (a < na && r < nr) out[a * out_sa + r] = tile[lx][j];
  }
#endif
}

/* permute_blocks: 16-element vectors of T, transposed in registers by
 * the prelude's zips (VNCL_SQUARE). BT is the type the block is held in:
 * T16, or uint16 for 2-byte elements (two rows of r per vector, see the
 * top of the file). VBR: rows of r per block. */
#if ELEM == 1
typedef uchar16 T16;
#elif ELEM == 2
typedef ushort16 T16;
#elif ELEM == 8
typedef ulong16 T16;
#else
typedef uint16 T16;
#endif
/* Lanes of the register transposition (LANES, 16 or 8; 1-byte elements
 * always 16). 16: one 16 x 16 square of 16-lane vectors. 8, for CPUs
 * whose vectors have 8 lanes (AVX2), where the 16-lane square took twice
 * the 16 registers (docs/ops.md, thirty-third pass):
 *   4- and 8-byte elements: blocks 8 elements of a wide (VB 8), the 16
 *   rows of r loaded 8 elements each, transposed as two 8 x 8 squares
 *   (rows 0-7 and 8-15), output row J joined from both squares' vector J;
 *   2-byte elements: the 16 x 32 block as before, its 16 uint vectors
 *   transposed as four 8 x 8 squares, their low halves (output rows 0-7)
 *   and then their high halves (rows 8-15); blocks 8 wide ran slower
 *   there (half-line loads from 32 rows). */
#ifndef LANES
#define LANES 16
#endif
#if LANES == 8 && (ELEM == 4 || ELEM == 8)
#define VB 8
#else
#define VB 16
#endif
#if ELEM == 2
typedef uint16 BT;
#define VBR 32
#else
typedef T16 BT;
#define VBR 16
#endif
#define EACH8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define EACH8_HI(M) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define EACH16(M)                                                          \
  M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) \
  M(14) M(15)
/* BLOCK16(LD, ST): the block's 16 vectors v[J] loaded by LD(J) (VLN: one
 * row's load), transposed, and output row J stored by ST(J) from
 * VOUT(J). */
#if VB == 8
#if ELEM == 8
typedef ulong8 BV;
#else
typedef uint8 BV;
#endif
#define VLN(p) vload8(0, p)
#define VOUT(J) ((BT)(v[J], v[(J) + 8]))
#define BLOCK16(LD, ST)                                                    \
  BV v[16], w[8];                                                          \
  EACH16(LD)                                                               \
  VNCL_SQUARE(8, v, w);                                                    \
  VNCL_SQUARE(8, (v + 8), w);                                              \
  EACH8(ST)
#elif LANES == 8 && ELEM == 2
#define VLN(p) vload16(0, p)
#define VOUT(J) ((BT)(q[(J) & 7], q[((J) & 7) + 8]))
#define QLO(J) q[J] = v[J].lo;
#define QHI(J) q[J] = v[J].hi;
#define BLOCK16(LD, ST)                                                    \
  BT v[16];                                                                \
  uint8 q[16], w[8];                                                       \
  EACH16(LD)                                                               \
  EACH16(QLO)                                                              \
  VNCL_SQUARE(8, q, w);                                                    \
  VNCL_SQUARE(8, (q + 8), w);                                              \
  EACH8(ST)                                                                \
  EACH16(QHI)                                                              \
  VNCL_SQUARE(8, q, w);                                                    \
  VNCL_SQUARE(8, (q + 8), w);                                              \
  EACH8_HI(ST)
#else
#define VLN(p) vload16(0, p)
#define VOUT(J) (v[J])
/* four rounds of zips (VNCL_SQUARE, vncl_prelude.cl) */
#define BLOCK16(LD, ST)                                                    \
  BT v[16], w[16];                                                         \
  EACH16(LD)                                                               \
  VNCL_SQUARE(16, v, w);                                                   \
  EACH16(ST)
#endif
#if ELEM == 2
/* Vector J holds rows 2J (low halves) and 2J+1 (high halves) of r. */
#define VLD(J)                                                             \
  v[J] = convert_uint16(vload16(0, src + (IDX)(2 * (J)) * in_sr)) |        \
         convert_uint16(vload16(0, src + (IDX)(2 * (J) + 1) * in_sr)) << 16;
/* The same for a last block of r with er < 32 rows: the missing rows
 * repeat row er - 1 (read, never stored), so that the loads need no
 * branches. */
#define VLDP(J)                                                            \
  v[J] = convert_uint16(vload16(0, src + (IDX)min(2 * (J), er - 1) * in_sr)) | \
         convert_uint16(vload16(0, src + (IDX)min(2 * (J) + 1, er - 1) * in_sr)) \
             << 16;
/* Non-temporal store of 16 elements (32 bytes, aligned). */
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define ST_NT_HALF(p, x) __builtin_nontemporal_store((x), (__global uint8 *)(p))
#endif
#endif
#ifndef ST_NT_HALF
#define ST_NT_HALF(p, x) vstore8((x), 0, (__global uint *)(p))
#endif
/* The first er elements of an output row held in x: the first 16 as one
 * vector when er >= 16 (non-temporal with nt), the rest in pieces. */
inline void st_part(__global ushort *p, const uint16 x, const int er,
                    const int u32, const int nt) {
  if (er >= 16) {
    if (nt) ST_NT_HALF(p, x.lo);
    else if (u32) vstore8(x.lo, 0, (__global uint *)p);
    else vstore16(as_ushort16(x.lo), 0, p);
  }
  /* the rest, er % 16 elements, in pieces of 8, 4, 2 and 1 (no private
   * array, no runtime index into a vector) */
  const ushort16 h = as_ushort16(er >= 16 ? x.hi : x.lo);
  const int rem = er & 15;
  int e = er & 16;
  ushort8 h8 = h.lo;
  if (rem & 8) vstore8(h.lo, 0, p + e), h8 = h.hi, e += 8;
  ushort4 h4 = h8.lo;
  if (rem & 4) vstore4(h8.lo, 0, p + e), h4 = h8.hi, e += 4;
  ushort2 h2 = h4.lo;
  if (rem & 2) vstore2(h4.lo, 0, p + e), h2 = h4.hi, e += 2;
  if (rem & 1) p[e] = h2.s0;
}
#define VSTP(J) st_part(dst + (IDX)(J) * out_sa, VOUT(J), er, u32, nt);
#else
#define VLD(J) v[J] = VLN(src + (IDX)(J) * in_sr);
#endif
/* Virtual rows (permute_blocks with nr0): the next row's start. */
#define VSTEP                                                              \
  if (++rr == nr0) {                                                       \
    rr = 0;                                                                \
    qrow += isq;                                                           \
    vp = qrow;                                                             \
  } else {                                                                 \
    vp += in_sr;                                                           \
  }
#if ELEM == 2
/* two rows a vector, as VLD */
#define VLDV(J)                                                            \
  {                                                                        \
    const uint16 lo_ = convert_uint16(vload16(0, vp));                     \
    VSTEP                                                                  \
    v[J] = lo_ | convert_uint16(vload16(0, vp)) << 16;                     \
    VSTEP                                                                  \
  }
#else
#define VLDV(J) v[J] = VLN(vp); VSTEP
#endif
#if defined(ST_NT_VEC)
#elif defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define ST_NT_VEC(p, x) __builtin_nontemporal_store((x), (__global BT *)(p))
#endif
#endif
#ifndef ST_NT_VEC
#if ELEM == 2
#define ST_NT_VEC(p, x) vstore16((x), 0, (__global uint *)(p))
#else
#define ST_NT_VEC(p, x) vstore16((x), 0, (p))
#endif
#endif
#if ELEM == 2
/* 32 elements of an output row: one uint16 where the row is 4-byte
 * aligned (u32), else two ushort16. */
#define VST(J)                                                             \
  {                                                                        \
    const BT o_ = VOUT(J);                                                 \
    __global T *d_ = dst + (IDX)(J) * out_sa;                              \
    if (nt == 2) ST_NT_VEC(d_, o_);                                        \
    else if (nt) {                                                         \
      ST_NT_HALF(d_, o_.lo);                                               \
      ST_NT_HALF(d_ + 16, o_.hi);                                          \
    } else if (u32) vstore16(o_, 0, (__global uint *)d_);                  \
    else {                                                                 \
      vstore16(as_ushort16(o_.lo), 0, d_);                                 \
      vstore16(as_ushort16(o_.hi), 0, d_ + 16);                            \
    }                                                                      \
  }
#else
#define VST(J)                                                             \
  {                                                                        \
    const BT o_ = VOUT(J);                                                 \
    if (nt) ST_NT_VEC(dst + (IDX)(J) * out_sa, o_);                        \
    else vstore16(o_, 0, dst + (IDX)(J) * out_sa);                         \
  }
#endif

/* nt: every output row of a block starts on a 16-element boundary (the
 * host checks the offsets and strides), so whole-vector non-temporal
 * stores are aligned; 2-byte elements: 2 (rows 64-byte aligned: one
 * store of 32 elements) or 1 (32-byte aligned: two halves per row).
 * nrb 0: dimension 1 of the grid runs over the blocks of r, dimension 2
 * over the batch. nrb > 0 (a short r axis, nrb = its number of blocks):
 * dimension 1 runs over (batch index, block of r) pairs, r fastest, and
 * dimension 2 is 1; nbt is the batch's size. The host folds when r is
 * shorter than a group's height in blocks and the innermost batch axis is
 * the output axis next to r: a group then writes output runs across the
 * batch (e.g. 4 x 256 bytes together) and no work-item idles.
 * nab 0: dimension 0 runs over the blocks of a. nab > 0 (a short a axis,
 * nab = its number of blocks): dimension 0 runs over (index of a batch
 * axis folded in, block of a) pairs, a fastest; that axis (nba long,
 * strides fin and fout) is the input axis right outside a, so a group's
 * input rows continue across it (e.g. 4 x 1 KiB read together), and the
 * host leaves it out of the batch.
 * fla > 0 (no fold; planes too small to fill the 2-D grid's groups): the
 * work-items in order run over (batch, block of r, block of a), so that
 * a group covers whole small planes one after the other.
 * Built only for ROW_ITEMS 2 (the CPU rows that use it): its zips are
 * clang's __builtin_shufflevector (VNCL_SQUARE), which a GPU's compiler
 * need not have; permute_tiled, the GPUs' kernel, uses none. */
#if ROW_ITEMS == 2
__kernel __attribute__((reqd_work_group_size(TILE, WGY, 1))) void
permute_blocks(const IDX na, const IDX nr, const IDX in_sr, const IDX out_sa,
               const int nb, const IDX8 bshape, const IDX8 bin,
               const IDX8 bout, __global const T *in, const IDX ioff,
               __global T *out, const IDX ooff, const int nt, const IDX nrb,
               const IDX nbt, const IDX nab, const IDX nba, const IDX fin,
               const IDX fout, const IDX nr0, const IDX isq, const IDX fla) {
  IDX a, r, b, ib = 0, ob = 0;
  if (fla) {
    /* flat: the grid's work-items in order (dimension 0 is TILE wide)
     * over (batch, block of r, block of a) triples, a fastest, fla blocks
     * of a, nrb of r, nbt batch elements: small planes fill the groups */
    const IDX l = (IDX)get_global_id(1) * TILE + get_global_id(0);
    const IDX t = l / fla, q = t / nrb;
    if (q >= nbt) return;
    a = (l - t * fla) * VB;
    r = (t - q * nrb) * VBR;
    b = q;
  } else {
    if (nab) {
      const IDX gx = get_global_id(0), qa = gx / nab;
      if (qa >= nba) return;
      a = (gx - qa * nab) * VB;
      ib = qa * fin;
      ob = qa * fout;
    } else {
      a = (IDX)get_global_id(0) * VB;
    }
    if (nrb) {
      const IDX gy = get_global_id(1), q = gy / nrb;
      if (q >= nbt) return;
      r = (gy - q * nrb) * VBR;
      b = q;
    } else {
      r = (IDX)get_global_id(1) * VBR;
      b = get_global_id(2);
    }
  }
  DECOMP(0) DECOMP(1) DECOMP(2) DECOMP(3) DECOMP(4) DECOMP(5)
  if (a >= na || r >= nr) return;
  __global T *dst = out + ooff + ob + a * out_sa + r;
  if (nr0) {
    /* virtual rows: r = q nr0 + r0 (a short r merged with the batch axis
     * after it in the output, input stride isq); each row's start
     * follows from the one before */
    const IDX q = r / nr0;
    IDX rr = r - q * nr0;
    __global const T *qrow = in + ioff + ib + q * isq + a,
                     *vp = qrow + rr * in_sr;
    if (a + VB <= na && r + VBR <= nr) {
#if ELEM == 2
      const int u32 = ((size_t)dst & 3) == 0 && (out_sa & 1) == 0;
#endif
      BLOCK16(VLDV, VST)
    } else {
      const int ea = na - a < VB ? (int)(na - a) : VB;
      const int er = nr - r < VBR ? (int)(nr - r) : VBR;
      for (int j = 0; j < er; j++) {
        for (int i = 0; i < ea; i++) dst[(IDX)i * out_sa + j] = vp[i];
        VSTEP
      }
    }
    return;
  }
  __global const T *src = in + ioff + ib + r * in_sr + a;
  if (a + VB <= na && r + VBR <= nr) {
#if ELEM == 2
    /* every output row of the block 4-byte aligned */
    const int u32 = ((size_t)dst & 3) == 0 && (out_sa & 1) == 0;
#endif
    BLOCK16(VLD, VST)
  }
#if ELEM == 2
  else if (a + VB <= na) {
    /* the last block of r: er < 32 rows, zeros for the others */
    const int er = (int)(nr - r);
    const int u32 = ((size_t)dst & 3) == 0 && (out_sa & 1) == 0;
    BLOCK16(VLDP, VSTP)
  }
#endif
  else {
    const int ea = na - a < VB ? (int)(na - a) : VB;
    const int er = nr - r < VBR ? (int)(nr - r) : VBR;
    for (int i = 0; i < ea; i++)
      for (int j = 0; j < er; j++)
        dst[(IDX)i * out_sa + j] = src[(IDX)j * in_sr + i];
  }
}
#endif

/* The 16 elements of x to d[0], d[s], ..., d[15 s]. */
#define PLANE_ST16(d, s, x)                                                  \
  d[0] = x.s0; d[s] = x.s1; d[2 * s] = x.s2; d[3 * s] = x.s3;               \
  d[4 * s] = x.s4; d[5 * s] = x.s5; d[6 * s] = x.s6; d[7 * s] = x.s7;       \
  d[8 * s] = x.s8; d[9 * s] = x.s9; d[10 * s] = x.sa; d[11 * s] = x.sb;     \
  d[12 * s] = x.sc; d[13 * s] = x.sd; d[14 * s] = x.se; d[15 * s] = x.sf;

/* A plane with a short side (CPUs, ROW_ITEMS 2): fewer than 16 elements
 * of a, or of r, where a block of 16 x 16 would be mostly edge. Its rows
 * are "virtual": v = q nr0 + r over nq x nr0 rows, row v at input offset
 * r in_sr + q isq, so that a short r merges with the batch axis next to it
 * in the output (out stride nr0), whose runs then continue across it (nq
 * 1, isq 0: the plain plane). Output element (a, v) is at a out_sa + v.
 * Work-item (i, j, b) moves a in [i ca, (i + 1) ca) by v in [j cv, (j + 1)
 * cv) of batch element b, a outermost: each a writes a run of cv output
 * elements and reads one element of each of cv rows, lines that the next
 * a reads again (the host sizes cv to keep them in L1). Without a merged
 * axis (nq 1) a row's elements come 16 at a time, one vector load stored
 * to the 16 output runs they belong to (PLANE_ST16); with one, and for
 * the last a's, element by element: per element a load, a store and the
 * step to the next row. Built with PACK (a of 2 to 15 elements, its rows
 * back to back, no merged axis), 16 rows at a time as PACK vectors. */
__kernel void permute_plane(const IDX na, const IDX nr0, const IDX nq,
                            const IDX in_sr, const IDX isq, const IDX out_sa,
                            const int nb, const IDX8 bshape, const IDX8 bin,
                            const IDX8 bout, __global const T *in,
                            const IDX ioff, __global T *out, const IDX ooff,
                            const IDX ca, const IDX cv) {
  const IDX nv = nq * nr0;
  const IDX a0 = (IDX)get_global_id(0) * ca, v0 = (IDX)get_global_id(1) * cv;
  if (a0 >= na || v0 >= nv) return;
  const IDX a1 = min(na, a0 + ca), v1 = min(nv, v0 + cv);
  IDX b = get_global_id(2), ib = 0, ob = 0;
  DECOMP(0) DECOMP(1) DECOMP(2) DECOMP(3) DECOMP(4) DECOMP(5)
  if (nq == 1) { /* no merged axis: one stride */
    __global const T *src0 = in + ioff + ib + v0 * in_sr;
    __global T *dst0 = out + ooff + ob + v0;
    const IDX n = v1 - v0;
#if defined(PACK) && defined(VW)
    /* a of PACK elements (2 to 15), the rows next to each other (in_sr ==
     * PACK; the host builds it so), a work-item all of a: 16 rows are
     * PACK whole vectors, turned by the prelude's transposition
     * (VNCL_PACK_IN, VW 16) into PACK vectors, vector k the 16 output
     * elements of a = k, each one store (docs/ops.md, thirty-third pass). */
    if (a0 == 0 && a1 == PACK) {
      IDX v = 0;
      for (; v + 16 <= n; v += 16) {
        T16 t[PACK], g[PACK];
        _Pragma("unroll") for (int k = 0; k < PACK; k++)
          t[k] = vload16(k, src0 + v * PACK);
        VNCL_PACK_IN(t, g);
        _Pragma("unroll") for (int k = 0; k < PACK; k++)
          vstore16(g[k], 0, dst0 + (IDX)k * out_sa + v);
      }
      for (; v < n; v++)
        for (int k = 0; k < PACK; k++)
          dst0[(IDX)k * out_sa + v] = src0[v * PACK + k];
      return;
    }
#endif
    IDX a = a0;
    /* 16 elements of a row at once (element by element this was
     * compute-bound on a Zen 5: 0.5x memcpy with 3 rows, on every group
     * shape). A row holds all of a (in_sr >= na), so the 16 never reach
     * into the next row. */
    for (; a + 16 <= a1; a += 16) {
      __global T *d = dst0 + a * out_sa;
      for (IDX v = 0; v < n; v++, d++) {
        const T16 x = vload16(0, src0 + v * in_sr + a);
        PLANE_ST16(d, out_sa, x)
      }
    }
    for (; a < a1; a++) {
      __global const T *src = src0 + a;
      __global T *dst = dst0 + a * out_sa;
      for (IDX v = 0; v < n; v++) dst[v] = src[v * in_sr];
    }
    return;
  }
  const IDX q0 = v0 / nr0, r0 = v0 - q0 * nr0;
  __global const T *row0 = in + ioff + ib + q0 * isq; /* row 0 of q0 */
  __global T *dst0 = out + ooff + ob + v0;
  for (IDX a = a0; a < a1; a++) {
    __global const T *qrow = row0 + a, *src = qrow + r0 * in_sr;
    __global T *dst = dst0 + a * out_sa;
    IDX r = r0;
    for (IDX v = v0; v < v1; v++) {
      *dst++ = *src;
      if (++r == nr0) {
        r = 0;
        qrow += isq;
        src = qrow;
      } else {
        src += in_sr;
      }
    }
  }
}

/* Output dimension nd-1-C is component C of shape (its size) and istr (the
 * input stride of the axis that lands there). */
#define GDECOMP(C)                                 \
  if (C < nd) {                                    \
    const IDX c = r % shape.s##C;                  \
    r /= shape.s##C;                               \
    ii += c * istr.s##C;                           \
  }

__kernel __attribute__((reqd_work_group_size(TILE * WGY, 1, 1))) void
permute_gather(const IDX n, const int nd, const IDX8 shape, const IDX8 istr,
               __global const T *in, const IDX ioff, __global T *out,
               const IDX ooff) {
  const IDX o = get_global_id(0);
  if (o >= n) return;
  IDX r = o, ii = 0;
  GDECOMP(0) GDECOMP(1) GDECOMP(2) GDECOMP(3)
  GDECOMP(4) GDECOMP(5) GDECOMP(6) GDECOMP(7)
  out[ooff + o] = in[ioff + ii];
}

/* A non-temporal store of 16 elements (an aligned T16) for permute_rows. */
#if RUN_NT && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define ST_NT_RUN(p, x) __builtin_nontemporal_store((x), (__global T16 *)(p))
#endif
#endif

/* Output rows of L elements: row q of the output starts at input element
 * sum of its coordinates (output dimensions nd-2 .. 0, innermost first in
 * shape/istr) times the input strides. */
__kernel __attribute__((reqd_work_group_size(TILE * WGY, 1, 1))) void
permute_rows(const IDX nrows, const IDX L, const IDX nruns, const int nd,
             const IDX8 shape, const IDX8 istr, __global const T *in,
             const IDX ioff, __global T *out, const IDX ooff) {
  const IDX g = get_global_id(0), q = g / nruns;
  if (q >= nrows) return;
  const IDX c = (g - q * nruns) * RUN, e = min(L, c + RUN);
  IDX r = q, ii = 0;
  GDECOMP(0) GDECOMP(1) GDECOMP(2) GDECOMP(3)
  GDECOMP(4) GDECOMP(5) GDECOMP(6)
  __global const T *src = in + ioff + ii;
  __global T *dst = out + ooff + q * L;
#if RUN_NT && defined(ST_NT_RUN)
  /* element by element up to the first output address that is a multiple
   * of the vector's size (an aligned T16), then whole vectors stored
   * non-temporally, then the rest */
  IDX i = c;
  while (i < e && (size_t)(dst + i) % sizeof(T16)) dst[i] = src[i], i++;
  for (; i + 16 <= e; i += 16) ST_NT_RUN(dst + i, vload16(0, src + i));
  for (; i < e; i++) dst[i] = src[i];
#else
  for (IDX i = c; i < e; i++) dst[i] = src[i];
#endif
}
