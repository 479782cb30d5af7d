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
 *   permute_rows    the innermost axis stays innermost, on CPUs (ROW_ITEMS):
 *                   work-item g copies run g % nruns (RUN elements) of
 *                   output row g / nruns, a contiguous copy on both sides;
 *                   only the row's input offset is decomposed.
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
/* Elements per work-item of permute_rows. */
#ifndef RUN
#define RUN 256
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
#if ROW_ITEMS && defined(__has_builtin)
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
  for (IDX i = c; i < e; i++) ST_NT(dst + i, src[i]);
}
