/*
 * reduce.cl: reductions over one axis of a row-major tensor seen as
 * [outer, R, inner] (the host collapses the other axes), on one storage
 * type (DTYPE). Operations: sum, mean, max, min, argmax, L2 norm.
 *
 *   reduce_rows      inner == 1 (the axis is contiguous). Group g reduces
 *                    chunk s = g % S of row g / S:
 *
 *                      row:  | chunk 0 (group 0) | chunk 1 (group 1) | ...
 *                      chunk: vectors of VW; item l takes l, l+WG, l+2WG ...
 *                             (ITEM_CONTIG 0, GPUs) or the l-th of WG
 *                             consecutive runs (ITEM_CONTIG 1, CPUs)
 *
 *                    then a tree over the work-group in local memory.
 *   reduce_rows_item inner == 1, rows no longer than ROWS_ITEM (a host
 *                    parameter): one work-item reduces a whole row.
 *   reduce_rows_block inner == 1, rows of VW + 1 to ROWS_BLOCK elements
 *                    (host parameters): one work-item reduces VW rows,
 *                    their vectors side by side, lane r of the result row
 *                    r's.
 *   reduce_rows_packed inner == 1, rows of 2 <= PACK <= VW elements
 *                    (-DPACK from the host): one work-item reduces VW rows
 *                    read as PACK whole vectors.
 *   reduce_cols      inner > 1: work-item (xi, o*S + s) runs down the CB*VW
 *                    columns from xi*CB*VW of row block o over chunk s of
 *                    the axis, with vector loads; reads are coalesced along
 *                    xi.
 *   reduce_cols_strip inner > 1 on CPUs (ITEM_CONTIG): work-item
 *                    (t, o*S + s) owns the strip of STRIP vectors of columns
 *                    from t*STRIP*VW and walks the rows of chunk s in order,
 *                    so that memory is read in runs of STRIP*VW elements:
 *
 *                      row r0   | strip 0 | strip 1 | ... |   each row of a
 *                      row r0+1 | strip 0 | strip 1 | ... |   strip is one
 *                      ...                                    contiguous run
 *
 *                    with one (Kahan) accumulator per column in private
 *                    memory, STREAMS rows at a time (STREAMS runs, one
 *                    page each, read at once; their vectors added
 *                    pairwise before one Kahan step); the chunks' partials
 *                    are combined as below.
 *   reduce_partials  combines the S partial results of each output when the
 *                    axis was split over several groups (S > 1).
 *
 * Accuracy: sums (sum, mean, L2 norm) add blocks of 8 vectors pairwise (in
 * reduce_cols_strip blocks of STREAMS rows), then
 * the blocks with compensation (Kahan) along each work-item's elements and
 * across the partials, and pairwise (a tree) within a work-group, so that a
 * row of 10^6 values loses a few units in the last place, not 10^6 * eps.
 * 16-bit storage is accumulated in f32, f64 in f64.
 * max and min return NaN when the row holds one; argmax returns the first
 * index of the maximum, a NaN counting as the maximum (NumPy's rule).
 */

/* Storage type: 0 f32, 1 f64, 2 f16, 3 bf16 (vncl_dtype values). */
#ifndef DTYPE
#define DTYPE 0
#endif
/* Work-items per work-group (a power of two). */
#ifndef WG
#define WG 256
#endif
/* Elements per vector load (along rows; along columns in reduce_cols):
 * 1, 2, 4, 8, 16. */
#ifndef VW
#define VW 4
#endif
/* Vectors of columns per work-item in reduce_cols: 1, 2, 4, 8. */
#ifndef CB
#define CB 1
#endif
/* Vectors of columns per work-item of reduce_cols_strip (set by the host
 * from the row length: 1 .. 64). */
#ifndef STRIP
#define STRIP 16
#endif
/* Longest row that reduce_rows_item takes (one work-item per row); the
 * host chooses the kernel with it. */
#ifndef ROWS_ITEM
#define ROWS_ITEM 16
#endif
/* 1: each work-item of reduce_rows takes a contiguous part of its group's
 * chunk (CPUs); 0: the group's items step through it together (GPUs). */
#ifndef ITEM_CONTIG
#define ITEM_CONTIG 0
#endif
/* Runs a work-item reads at once (1, 2, 4, 8; CPUs): in the ITEM_CONTIG
 * layout its contiguous range of a row is cut into ROW_STREAMS equal parts
 * read side by side (reduce_rows, reduce_rows_item), and reduce_cols_strip
 * takes STREAMS rows per step. On the Intel Xeon of the sixth pass a
 * core's single sequential read stream reached only part of the memory
 * bandwidth, and several streams at once kept more lines in flight; on a
 * Zen 5 rows read fastest as one stream (rows of 1024 1.7-2.3x faster
 * than in 8, twenty-ninth pass) while column strips still want 8 rows a
 * step: hence two parameters (docs/ops.md). */
#ifndef STREAMS
#define STREAMS 1
#endif
#ifndef ROW_STREAMS
#define ROW_STREAMS 1
#endif
/* Index width: 32 or 64 bits. */
#ifndef IDX_BITS
#define IDX_BITS 32
#endif

#if IDX_BITS == 64
typedef ulong IDX;
#define IDX_NONE ULONG_MAX
#else
typedef uint IDX;
#define IDX_NONE UINT_MAX
#endif

#if VW == 1
#define VSUF
#else
#define VSUF VW
#endif

/* ACC: the compute type; STORE: what the buffers hold (vncl_prelude.cl). */
#if DTYPE == 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define ACC VNCL_REAL(DTYPE)
#define STORE VNCL_STORAGE(DTYPE)
typedef ACC acc;
typedef CAT(ACC, VSUF) accv;

#define LD(p, i) VNCL_LOAD(DTYPE, p, i)
#define ST(p, i, x) VNCL_STORE(DTYPE, p, i, x)
#if VW == 1
#define LDV(p, v) LD(p, v)
#elif DTYPE == 2 && VW >= 8
/* f16 vectors of 8 and 16 as pieces of 4: PoCL 3.1 compiled a vload_half8
 * in argmax_vectors to an aligned 16-byte move (vmovdqa), which faulted on
 * a row of 17 halves (34 bytes apart: argmax over 131 x 17 f16 with VW 8,
 * test_reduce_rows_item, 2026-12-06); 8-byte pieces have no alignment to
 * assume, and the compiler may still join them into an unaligned move. */
#define LDV4_(p, v, j) vload_half4(0, (p) + (IDX)(v) * VW + (j))
#if VW == 8
#define LDV(p, v) ((accv)(LDV4_(p, v, 0), LDV4_(p, v, 4)))
#else
#define LDV(p, v)                                                \
  ((accv)(LDV4_(p, v, 0), LDV4_(p, v, 4), LDV4_(p, v, 8),        \
          LDV4_(p, v, 12)))
#endif
#else
#define LDV(p, v) VNCL_VLOAD(DTYPE, VW, v, p)
#endif

/* Operation codes: must match lib/ops_reduce.c. */
#define R_SUM 0
#define R_MEAN 1
#define R_MAX 2
#define R_MIN 3
#define R_ARGMAX 4
#define R_NORM2 5

#define NMAX(x, y) ((((x) > (y)) | IS_NAN(x)) ? (x) : (y))
#define NMIN(x, y) ((((x) < (y)) | IS_NAN(x)) ? (x) : (y))
/* The plain maximum and minimum (one maxps / minps on x86, where NMAX
 * takes two compares, an or and a blend, and fmin three instructions):
 * exact where neither operand is NaN. argmax's short rows take the
 * maximum with PMAX and, beside it, the plain sum of the same values,
 * which is NaN where a NaN was among them (or infinities of both signs);
 * where it is not, the maximum is exact, else they take it again with
 * NMAX. Their candidate indices are never NaN: PMIN. */
#define PMAX(x, y) ((x) > (y) ? (x) : (y))
#define PMIN(x, y) ((x) < (y) ? (x) : (y))
/* Whether (x, ix) beats (v, iv) for argmax: larger, NaN largest, ties and
 * NaNs to the smaller index. */
#define BETTER(x, ix, v, iv)                                    \
  (IS_NAN(x) ? !(IS_NAN(v) && (iv) <= (ix))                        \
            : ((x) > (v) || ((x) == (v) && (ix) < (iv))))

/* Kahan step: adds x to (s, c); the sum is s - c. Once the sum is inf or
 * NaN the compensation is dropped (it would be inf - inf = NaN), so that
 * sums reach inf when they should. */
#define KAHAN_T(T, s, c, x)                          \
  do {                                               \
    const T y_ = (x) - (c);                          \
    const T t_ = (s) + y_;                           \
    (c) = IS_FINITE(t_) ? (t_ - (s)) - y_ : (T)0;     \
    (s) = t_;                                        \
  } while (0)
#define KAHAN(s, c, x) KAHAN_T(accv, s, c, x)
#define KAHAN1(s, c, x) KAHAN_T(acc, s, c, x)
/* The compensated value of (s, c). */
#define KAHAN_VALUE(s, c) (IS_FINITE(s) ? (s) - (c) : (s))

/* Folds F(LOAD(v)) for v = vb, vb + vs, ... below ve into an accumulator:
 * blocks of 8 vectors are combined pairwise by C (independent steps, so
 * the loop is not bound by one chain of dependent ones), and each block
 * goes in by one STEP(a, b, block): a Kahan step into (a, b) = (sv, cv)
 * for sums, NMAX or NMIN into a = m for max and min (b unused). */
#define SQ(e) ((e) * (e))
#define ID(e) (e)
/* The plain sum's F: e + 0, the same value (a -0 becomes +0, which the sum,
 * started at +0, gives anyway). With F = ID, PoCL 3.1's LLVM turns the
 * pairwise block sum of 16-lane vectors into 64 loads of float2 and
 * 2-lane adds (row sums ran at 0.65-0.75x of the same loop with full
 * vectors); the extra add keeps whole zmm loads and adds. */
#define IDZ(e) ((e) + (accv)0)
#define ADD2(x, y) ((x) + (y))
#define KSTEP(s, c, x) KAHAN(s, c, x)
#define MAXSTEP(m, u, x) ((m) = NMAX(m, x))
#define MINSTEP(m, u, x) ((m) = NMIN(m, x))
#define FOLD8(F, C, e0, e1, e2, e3, e4, e5, e6, e7)             \
  C(C(C(F(e0), F(e1)), C(F(e2), F(e3))), C(C(F(e4), F(e5)), C(F(e6), F(e7))))
#define FOLD_VECTORS(F, C, STEP, LOAD, vb, ve, vs, a, b)                   \
  do {                                                                     \
    IDX v_ = (vb);                                                         \
    for (; v_ + 7 * (vs) < (ve); v_ += 8 * (vs)) {                         \
      const accv e0 = LOAD(v_), e1 = LOAD(v_ + (vs));                      \
      const accv e2 = LOAD(v_ + 2 * (vs)), e3 = LOAD(v_ + 3 * (vs));       \
      const accv e4 = LOAD(v_ + 4 * (vs)), e5 = LOAD(v_ + 5 * (vs));       \
      const accv e6 = LOAD(v_ + 6 * (vs)), e7 = LOAD(v_ + 7 * (vs));       \
      STEP(a, b, FOLD8(F, C, e0, e1, e2, e3, e4, e5, e6, e7));             \
    }                                                                      \
    for (; v_ < (ve); v_ += (vs)) {                                        \
      const accv e_ = LOAD(v_);                                            \
      STEP(a, b, F(e_));                                                   \
    }                                                                      \
  } while (0)

/* As FOLD_VECTORS over a contiguous range (step 1), read as ROW_STREAMS runs
 * at once: the range is cut into ROW_STREAMS equal parts of a multiple
 * of 8 / ROW_STREAMS vectors each, and each block of 8 vectors takes
 * 8 / ROW_STREAMS consecutive vectors from every part (combined pairwise,
 * then one STEP, as in FOLD_VECTORS); the rest, fewer than 8 vectors, one
 * by one. */
#define SS_PER (8 / ROW_STREAMS)
#define SS_AT(b, q, j) ((b) + (IDX)((j) / SS_PER) * (q) + (IDX)((j) % SS_PER))
#define FOLD_STREAMS(F, C, STEP, LOAD, vb, ve, a, b)                       \
  do {                                                                     \
    const IDX q_ = ((ve) - (vb)) / 8 * SS_PER;                             \
    for (IDX i_ = 0; i_ < q_; i_ += SS_PER) {                              \
      const IDX b_ = (vb) + i_;                                            \
      const accv e0 = LOAD(SS_AT(b_, q_, 0)), e1 = LOAD(SS_AT(b_, q_, 1)); \
      const accv e2 = LOAD(SS_AT(b_, q_, 2)), e3 = LOAD(SS_AT(b_, q_, 3)); \
      const accv e4 = LOAD(SS_AT(b_, q_, 4)), e5 = LOAD(SS_AT(b_, q_, 5)); \
      const accv e6 = LOAD(SS_AT(b_, q_, 6)), e7 = LOAD(SS_AT(b_, q_, 7)); \
      STEP(a, b, FOLD8(F, C, e0, e1, e2, e3, e4, e5, e6, e7));             \
    }                                                                      \
    for (IDX v_ = (vb) + ROW_STREAMS * q_; v_ < (ve); v_++) {              \
      const accv e_ = LOAD(v_);                                            \
      STEP(a, b, F(e_));                                                   \
    }                                                                      \
  } while (0)
/* A work-item's vectors vb, vb + vs, ... below ve. */
#if ITEM_CONTIG && ROW_STREAMS > 1
#define FOLD_RANGE(F, C, STEP, LOAD, vb, ve, vs, a, b) \
  FOLD_STREAMS(F, C, STEP, LOAD, vb, ve, a, b)
#else
#define FOLD_RANGE(F, C, STEP, LOAD, vb, ve, vs, a, b) \
  FOLD_VECTORS(F, C, STEP, LOAD, vb, ve, vs, a, b)
#endif
/* Sums into (sv, cv); the maximum or minimum into m (max and min carry a
 * NaN: NMAX/NMIN return their first operand when it is NaN, else the
 * larger, which is the second when that is NaN). Before the blocks, a
 * max or min stepped every vector into m, one chain of dependent
 * compare-and-selects: the max of everything 0.64x memcpy on a Zen 5,
 * 1.1-1.5x since (docs/ops.md, thirteenth pass). */
#define SUM_RANGE(F, LOAD, vb, ve, vs, sv, cv) \
  FOLD_RANGE(F, ADD2, KSTEP, LOAD, vb, ve, vs, sv, cv)
#define EXT_RANGE(mx, LOAD, vb, ve, vs, m)                           \
  do {                                                               \
    if (mx)                                                          \
      FOLD_RANGE(ID, NMAX, MAXSTEP, LOAD, vb, ve, vs, m, m);         \
    else                                                             \
      FOLD_RANGE(ID, NMIN, MINSTEP, LOAD, vb, ve, vs, m, m);         \
  } while (0)

/* Lanes of a vector into a private array, for the horizontal step. */
#if VW == 1
#define LANES(v, arr) arr[0] = (v)
#else
#define LANES(v, arr) CAT(vstore, VW)((v), 0, arr)
#endif

/* Final value of one output: mean divides by the count, norm takes the
 * root. */
inline acc finish(const int op, const acc v, const IDX count) {
  if (op == R_MEAN) return v / (acc)count;
  if (op == R_NORM2) return sqrt(v);
  return v;
}

/* Stores a final result (value, or index for argmax) or a partial. */
inline void put(const int op, const IDX at, const acc v, const IDX iv,
                const IDX count, const int partial, __global STORE *out,
                __global int *outi, __global acc *pv, __global IDX *pi) {
  if (partial) {
    pv[at] = v;
    pi[at] = iv;
  } else if (op == R_ARGMAX) {
    outi[at] = (int)iv;
  } else {
    ST(out, at, finish(op, v, count));
  }
}

/* This work-item's range of n units (vectors or elements) of its group's
 * chunk: consecutive (ITEM_CONTIG; b <= e, so that e - b is the count) or
 * interleaved over the group. */
#if ITEM_CONTIG
#define RANGE(n, b, e, st)                           \
  const IDX per_##b = ((n) + WG - 1) / WG;           \
  const IDX b = min((IDX)lid * per_##b, (IDX)(n));   \
  const IDX e = min((n), b + per_##b);               \
  const IDX st = 1
#else
#define RANGE(n, b, e, st) \
  const IDX b = (IDX)lid, e = (n), st = WG
#endif

/* argmax of the vectors vb, vb + vs, ... below ve of p (element v VW + j
 * is lane j of vector v): blocks of 8 vectors reduced to their maximum
 * (NMAX, so a NaN wins), the first block kept and then only a strictly
 * better one (a NaN beats any number, nothing beats a NaN), so that the
 * kept block holds the range's first maximum; that block is then read
 * again for its first element equal to the maximum (or NaN). *val, *idx:
 * the maximum and its index (-inf and IDX_NONE for an empty range). One
 * compare of the block's maximum per 8 vectors, where the element-by-
 * element form ran a compare and branch per element: argmax over rows
 * 0.4x memcpy on a Zen 5 (docs/ops.md, thirteenth pass). */
inline void argmax_vectors(__global const STORE *p, const IDX vb,
                           const IDX ve, const IDX vs, acc *val, IDX *idx) {
  acc bm = -INFINITY;
  IDX bb = IDX_NONE, bn = 0;
  for (IDX v = vb; v < ve;) {
    const IDX n = v + 7 * vs < ve ? 8 : 1;
    accv t = LDV(p, v);
    if (n == 8) {
      const accv e1 = LDV(p, v + vs), e2 = LDV(p, v + 2 * vs);
      const accv e3 = LDV(p, v + 3 * vs), e4 = LDV(p, v + 4 * vs);
      const accv e5 = LDV(p, v + 5 * vs), e6 = LDV(p, v + 6 * vs);
      const accv e7 = LDV(p, v + 7 * vs);
      t = FOLD8(ID, NMAX, t, e1, e2, e3, e4, e5, e6, e7);
    }
    acc h;
    VNCL_HRED(ACC, VW, NMAX, t, h);
    if (bb == IDX_NONE || (IS_NAN(h) ? !IS_NAN(bm) : h > bm)) {
      bm = h;
      bb = v;
      bn = n;
    }
    v += n * vs;
  }
  *val = bm;
  *idx = IDX_NONE;
  for (IDX j = 0; j < bn; j++) {
    acc l[VW];
    LANES(LDV(p, bb + j * vs), l);
    for (int k = 0; k < VW; k++)
      if (IS_NAN(bm) ? IS_NAN(l[k]) : l[k] == bm) {
        *idx = (bb + j * vs) * VW + (IDX)k;
        return;
      }
  }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce_rows(const int op, const IDX R, const IDX chunk, const IDX S,
            __global const STORE *x, const IDX xoff, __global STORE *out,
            __global int *outi, const IDX ooff, __global acc *pv,
            __global IDX *pi) {
  __local acc lv[WG];
  __local IDX li[WG];
  const int lid = get_local_id(0);
  const IDX g = get_group_id(0), row = g / S, s = g - row * S;
  const IDX c0 = s * chunk, c1 = min(c0 + chunk, R);
  /* c0 <= c1: the host makes no empty chunk (S = ceil(R / chunk); R = 0
   * gives one chunk at c0 = 0). Written without a guard: the guarded form
   * `c1 > c0 ? c1 - c0 : 0` becomes llvm.usub.sat, which Oclgrind 21.10's
   * interpreter cannot run (docs/portability.md). */
  const IDX len = c1 - c0;
  __global const STORE *p = x + xoff + row * R + c0;
  const IDX nv = len / VW, tail = nv * VW;
  acc val;
  IDX idx = IDX_NONE;

  if (op == R_SUM || op == R_MEAN || op == R_NORM2) {
    RANGE(nv, vb, ve, vs);
    accv sv = 0, cv = 0;
#define LOAD_ROW(v) LDV(p, v)
    if (op == R_NORM2)
      SUM_RANGE(SQ, LOAD_ROW, vb, ve, vs, sv, cv);
    else
      SUM_RANGE(IDZ, LOAD_ROW, vb, ve, vs, sv, cv);
    acc ls[VW], lc[VW];
    LANES(sv, ls);
    LANES(cv, lc);
    acc s1 = 0, c1k = 0;
    for (int j = 0; j < VW; j++) KAHAN1(s1, c1k, KAHAN_VALUE(ls[j], lc[j]));
    /* The tail (len - tail < VW elements): element tail + lid + j WG for
     * work-item lid (one at most where VW <= WG). */
    for (IDX i = tail + lid; i < len; i += WG) {
      const acc e = LD(p, i);
      KAHAN1(s1, c1k, op == R_NORM2 ? e * e : e);
    }
    val = KAHAN_VALUE(s1, c1k);
  } else if (op == R_MAX || op == R_MIN) {
    RANGE(nv, vb, ve, vs);
    const int mx = op == R_MAX;
    accv m = mx ? (accv)(-INFINITY) : (accv)(INFINITY);
    EXT_RANGE(mx, LOAD_ROW, vb, ve, vs, m);
    acc lm[VW];
    LANES(m, lm);
    val = lm[0];
    for (int j = 1; j < VW; j++)
      val = mx ? NMAX(val, lm[j]) : NMIN(val, lm[j]);
    for (IDX i = tail + lid; i < len; i += WG) {
      const acc e = LD(p, i);
      val = mx ? NMAX(val, e) : NMIN(val, e);
    }
  } else { /* argmax */
    RANGE(nv, vb, ve, vs);
    argmax_vectors(p, vb, ve, vs, &val, &idx);
    if (idx != IDX_NONE) idx += c0;
    for (IDX i = tail + lid; i < len; i += WG) {
      const acc e = LD(p, i);
      if (BETTER(e, c0 + i, val, idx)) {
        val = e;
        idx = c0 + i;
      }
    }
  }

  /* Tree over the work-group. */
  lv[lid] = val;
  li[lid] = idx;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = WG / 2; w > 0; w >>= 1) {
    if (lid < w) {
      const acc a = lv[lid], b = lv[lid + w];
      if (op == R_MAX) {
        lv[lid] = NMAX(a, b);
      } else if (op == R_MIN) {
        lv[lid] = NMIN(a, b);
      } else if (op == R_ARGMAX) {
        if (BETTER(b, li[lid + w], a, li[lid])) {
          lv[lid] = b;
          li[lid] = li[lid + w];
        }
      } else {
        lv[lid] = a + b;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    put(op, S > 1 ? g : ooff + row, lv[0], li[0], R, S > 1, out, outi, pv, pi);
}

/* A row's last VW elements (R - VW .. R - 1) as one vector: with a tail of
 * two or more (R % VW) past at least one whole vector, reduce_rows_item
 * takes it in place of the tail's elements one by one. It overlaps the
 * last whole vector: max and min take it whole (a repeated lane changes
 * nothing), sums mask the repeated lanes to zero. */
#if VW > 1
#define IOTA_VW VNCL_IOTA(VW)
typedef VNCL_LANEV(DTYPE, VW) lanev;
/* argmax over short rows, both kernels: vector e's candidates for the
 * first index of its row's maximum m (mnan: m is NaN, and the first NaN
 * is wanted), e's first element being element at of the row and lane the
 * lanes' numbers (accv): at + lane where e holds m, +inf elsewhere. The
 * least over the row's vectors is the index. */
#define ARG_CAND(e, at, m, mnan)                                \
  select((accv)(INFINITY), (accv)((acc)(at)) + lane,            \
         (mnan) ? IS_NAN(e) : (e) == (accv)(m))
#endif

/* One work-item per row (short rows, or CPUs, where a group per row costs
 * more than the row): row q = get_global_id(0), read with vector loads.
 * The lanes of the vector accumulators are combined by halves (VNCL_HRED:
 * for sums a pairwise tree of the lanes' compensated values), and a tail
 * of two or more as the row's last vector: element by element, a row of
 * 16 cost 16 dependent Kahan steps over its lanes, and sums and maxima of
 * rows of 16-100 ran at 0.08-0.38x memcpy (Zen 5, docs/ops.md, twentieth
 * pass). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce_rows_item(const int op, const IDX R, const IDX rows,
                 __global const STORE *x, const IDX xoff, __global STORE *out,
                 __global int *outi, const IDX ooff) {
  const IDX row = get_global_id(0);
  if (row >= rows) return;
  __global const STORE *p = x + xoff + row * R;
  const IDX nv = R / VW;
#if VW > 1
  const IDX rem = R - nv * VW;
  /* ov: the tail as the last vector; ts: where the element-by-element tail
   * starts (R: none) */
  const int ov = nv > 0 && rem >= 2;
  const IDX ts = ov ? R : nv * VW;
#else
  const IDX ts = R;
#endif
  acc val;
  IDX idx = IDX_NONE;
  if (op == R_SUM || op == R_MEAN || op == R_NORM2) {
    accv sv = 0, cv = 0;
    if (op == R_NORM2)
      SUM_RANGE(SQ, LOAD_ROW, 0, nv, 1, sv, cv);
    else
      SUM_RANGE(IDZ, LOAD_ROW, 0, nv, 1, sv, cv);
#if VW > 1
    if (ov) {
      const accv e = LDV(p + (R - VW), 0);
      const lanev fresh = (lanev)IOTA_VW >= (lanev)(VW - rem);
      KAHAN(sv, cv, select((accv)0, op == R_NORM2 ? e * e : e, fresh));
    }
#endif
    const accv kv = KAHAN_VALUE(sv, cv);
    acc s1, c1k = 0;
    VNCL_HRED(ACC, VW, ADD2, kv, s1);
    for (IDX i = ts; i < R; i++) {
      const acc e = LD(p, i);
      KAHAN1(s1, c1k, op == R_NORM2 ? e * e : e);
    }
    val = KAHAN_VALUE(s1, c1k);
  } else if (op == R_MAX || op == R_MIN) {
    const int mx = op == R_MAX;
    accv m = mx ? (accv)(-INFINITY) : (accv)(INFINITY);
    EXT_RANGE(mx, LOAD_ROW, 0, nv, 1, m);
#if VW > 1
    if (ov) {
      const accv e = LDV(p + (R - VW), 0);
      m = mx ? NMAX(m, e) : NMIN(m, e);
    }
#endif
    if (mx)
      VNCL_HRED(ACC, VW, NMAX, m, val);
    else
      VNCL_HRED(ACC, VW, NMIN, m, val);
    for (IDX i = ts; i < R; i++) {
      const acc e = LD(p, i);
      val = mx ? NMAX(val, e) : NMIN(val, e);
    }
  }
#if VW > 1
  else if (nv < 16) {
    /* argmax of rows under 16 vectors in two passes over the row (in cache
     * after the first): the maximum as for max (NaN carried), then the
     * first index holding it (or the first NaN), as the least of the
     * lanes' candidate indices, values of the compute type (exact: R <
     * 16 VW). argmax_vectors steps such rows a vector at a time, each with
     * its horizontal maximum, and searches the best one lane by lane: rows
     * of 16-100 ran at 0.13-0.33x memcpy (0.31-0.59x this way; rows of
     * 1001 read 1.03x there, 0.85x here: twentieth pass). */
    accv mv = (accv)(-INFINITY), sv = 0;
    for (IDX v = 0; v < nv; v++) {
      const accv e = LDV(p, v);
      mv = PMAX(mv, e);
      sv += e;
    }
    if (ov) {
      const accv e = LDV(p + (R - VW), 0);
      mv = PMAX(mv, e);
      sv += e;
    }
    if (any(IS_NAN(sv))) {
      mv = (accv)(-INFINITY);
      EXT_RANGE(1, LOAD_ROW, 0, nv, 1, mv);
      if (ov) mv = NMAX(mv, LDV(p + (R - VW), 0));
    }
    VNCL_HRED(ACC, VW, NMAX, mv, val);
    for (IDX i = ts; i < R; i++) val = NMAX(val, LD(p, i));
    const int vnan = IS_NAN(val);
    const accv lane = CAT(convert_, CAT(ACC, VSUF))((lanev)IOTA_VW);
    accv first = (accv)(INFINITY);
    /* the pass written once for each value of mnan, a constant in each */
#define ARG_FIRST(mnan)                                                    \
  do {                                                                     \
    for (IDX v = 0; v < nv; v++)                                           \
      first = PMIN(first, ARG_CAND(LDV(p, v), v * VW, val, mnan));         \
    if (ov)                                                                \
      first = PMIN(first,                                                  \
                   ARG_CAND(LDV(p + (R - VW), 0), R - VW, val, mnan));     \
  } while (0)
    if (vnan)
      ARG_FIRST(1);
    else
      ARG_FIRST(0);
#undef ARG_FIRST
    acc f;
    VNCL_HRED(ACC, VW, PMIN, first, f);
    idx = f < (acc)INFINITY ? (IDX)f : IDX_NONE;
    for (IDX i = ts; i < R && idx == IDX_NONE; i++) {
      const acc e = LD(p, i);
      if (vnan ? IS_NAN(e) : e == val) idx = i;
    }
  }
#endif
  else {
    argmax_vectors(p, 0, nv, 1, &val, &idx);
    for (IDX i = nv * VW; i < R; i++) {
      const acc e = LD(p, i);
      if (BETTER(e, i, val, idx)) {
        val = e;
        idx = i;
      }
    }
  }
  put(op, ooff + row, val, idx, R, 0, out, outi, (__global acc *)0,
      (__global IDX *)0);
}

#if VW > 1
/* Reduces the rows of t[0 .. VW-1] at once (vncl_prelude.cl). */
#define ROWS_TREE(C, t) VNCL_ROWS_TREE(VW, accv, lanev, C, t)

/* VW rows per work-item (rows of VW to ROWS_BLOCK on CPUs): work-item g
 * reduces rows g VW .. g VW + VW - 1, each to a vector as in
 * reduce_rows_item (whole vectors, then a tail as the row's last vector,
 * overlapping), the rows' vectors then side by side (ROWS_TREE), and
 * stores the VW results as one vector. Rows past the last are the last row
 * again, not stored. argmax: the rows' maxima first, then each row's first
 * index holding its maximum (or its first NaN) as the least of the lanes'
 * candidate indices (values of the compute type, exact below 2^24: the host
 * takes rows of at most ROWS_BLOCK, far shorter). reduce_rows_item reduces
 * each row's vector horizontally: rows of 16 f32 as AVX-512 code ran at
 * 0.40x memcpy (sum), 0.41x (max), 0.24x (argmax) on a Zen 5 (docs/ops.md,
 * twenty-second pass). The host takes this kernel for R > VW only: rows of
 * exactly VW ran 1.3-2.4x faster in reduce_rows_packed (twenty-seventh
 * pass), without this kernel's loops over a row's vectors and, for
 * argmax, its second read of the rows. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce_rows_block(const int op, const IDX R, const IDX rows,
                  __global const STORE *x, const IDX xoff, __global STORE *out,
                  __global int *outi, const IDX ooff) {
  const IDX row0 = (IDX)get_global_id(0) * VW;
  if (row0 >= rows) return;
  /* The rows one after the other through one pointer, four to a loop
   * step; rows past the last repeat it. An array of VW row pointers, or
   * the loop unrolled whole, spilled general registers: sums and maxima
   * over rows of 32 ran at 0.6x memcpy (reduce_rows_item 0.9-1.1x), 1.0-1.3x
   * four rows to a step; eight to a step ran sums over rows of 100 at 0.8x
   * (four: 1.2-1.4x). */
  __global const STORE *const p0 = x + xoff + row0 * R;
  const IDX nr = rows - row0;
#define FOR_ROWS                                               \
  __global const STORE *pr = p0;                               \
  _Pragma("unroll 4") for (int r = 0; r < VW;                  \
                         pr += (IDX)r + 1 < nr ? R : 0, r++)
  const IDX nv = R / VW, rem = R - nv * VW;
  /* the lanes of the last vector past the last whole one */
  const lanev fresh = (lanev)IOTA_VW >= (lanev)(VW - rem);
#define LDB(r, v) LDV(pr, v) /* row r's vector v (pr: row r) */
#define LDB_LAST(r) LDV(pr + (R - VW), 0)
  accv t[VW];
  if (op == R_SUM || op == R_MEAN || op == R_NORM2) {
    const int sq = op == R_NORM2;
    FOR_ROWS {
      accv e = LDB(r, 0), sv = sq ? e * e : e, cv = 0;
      for (IDX v = 1; v < nv; v++) {
        e = LDB(r, v);
        KAHAN(sv, cv, sq ? e * e : e);
      }
      if (rem) {
        e = LDB_LAST(r);
        KAHAN(sv, cv, select((accv)0, sq ? e * e : e, fresh));
      }
      t[r] = KAHAN_VALUE(sv, cv);
    }
    ROWS_TREE(ADD2, t);
    if (op == R_MEAN) t[0] /= (acc)R;
    if (sq) t[0] = sqrt(t[0]);
  } else {
    const int mx = op != R_MIN; /* max, or argmax's first pass */
    /* argmax: the maxima with PMAX, exact unless the rows' plain sum is
     * NaN (then again with NMAX) */
    int again = op != R_ARGMAX;
    if (!again) {
      accv sa = 0;
      FOR_ROWS {
        accv m = LDB(r, 0), s = m;
        for (IDX v = 1; v < nv; v++) {
          const accv e = LDB(r, v);
          m = PMAX(m, e);
          s += e;
        }
        if (rem) {
          const accv e = LDB_LAST(r);
          m = PMAX(m, e);
          s += e;
        }
        t[r] = m;
        sa += s;
      }
      again = any(IS_NAN(sa));
      if (!again) ROWS_TREE(PMAX, t);
    }
    if (again) {
      FOR_ROWS {
        accv m = LDB(r, 0);
        for (IDX v = 1; v < nv; v++)
          m = mx ? NMAX(m, LDB(r, v)) : NMIN(m, LDB(r, v));
        if (rem) m = mx ? NMAX(m, LDB_LAST(r)) : NMIN(m, LDB_LAST(r));
        t[r] = m;
      }
      if (mx)
        ROWS_TREE(NMAX, t);
      else
        ROWS_TREE(NMIN, t);
    }
  }
  if (op == R_ARGMAX) {
    acc m[VW];
    LANES(t[0], m);
    const accv lane = CAT(convert_, CAT(ACC, VSUF))((lanev)IOTA_VW);
    /* the least index of row r's lanes equal to m (or NaN where m is) */
#define ARG_ROWS(mnan)                                                     \
  FOR_ROWS {                                                               \
    accv f = ARG_CAND(LDB(r, 0), 0, m[r], mnan);                           \
    for (IDX v = 1; v < nv; v++)                                           \
      f = PMIN(f, ARG_CAND(LDB(r, v), v * VW, m[r], mnan));                \
    if (rem) f = PMIN(f, ARG_CAND(LDB_LAST(r), R - VW, m[r], mnan));       \
    t[r] = f;                                                              \
  }
    if (any(IS_NAN(t[0]))) {
      ARG_ROWS(IS_NAN(m[r]));
    } else {
      ARG_ROWS(0);
    }
#undef ARG_ROWS
    ROWS_TREE(PMIN, t);
  }
  if (row0 + VW <= rows) {
    if (op == R_ARGMAX)
      CAT(vstore, VW)(CAT(convert_int, VSUF)(t[0]), 0, outi + ooff + row0);
    else
      VNCL_VSTORE(DTYPE, VW, out + ooff + row0, 0, t[0]);
  } else {
    acc l[VW];
    LANES(t[0], l);
    for (IDX r = 0; row0 + r < rows; r++)
      if (op == R_ARGMAX)
        outi[ooff + row0 + r] = (int)l[r];
      else
        ST(out, ooff + row0 + r, l[r]);
  }
#undef LDB
#undef LDB_LAST
#undef FOR_ROWS
}

#ifdef PACK
/* Rows of PACK elements, PACK at most VW (the host passes -DPACK): VW
 * rows a work-item, as in reduce_rows_block, but read as whole vectors:
 * rows g VW .. g VW + VW - 1 are PACK consecutive vectors. PACK a power
 * of two: VW / PACK rows a vector (PACK = VW: a row a vector, the whole
 * tree), and the tree's last log2(PACK) levels
 * (VNCL_ROWS_TREE(PACK, ..)) leave row r's result in lane r of one
 * vector. Else, and for argmax, the vectors are transposed into PACK
 * vectors g[k] of one element of every row (VNCL_PACK_IN, lane r
 * element k of row r), combined lane by lane; argmax then takes each
 * row's first element equal to its maximum. In vectors of the widest
 * power of two a row holds (a row a vector, the whole tree per VW rows),
 * sums over rows of 2, 3 and 4 ran at 0.23x, 0.3x and 0.50x memcpy on a
 * Zen 5 (docs/ops.md, twenty-third pass), argmax over rows of 9 to 15 at
 * 0.3-0.6x (twenty-fourth pass). The last work-item's rows past the last
 * repeat it, gathered element by element, and are not stored. */
/* PACK_H8 (the host's, where the device's native vectors hold 8 floats,
 * AVX2; vectors of 16, rows of 8 to 16, f32 and f16): a whole work-item's
 * 16 rows come in as two 8 x 8 squares of 8-lane vectors (rows 0-7 and
 * 8-15), each row loaded as its elements 0-7 and its last 8 (at its own
 * offset; rows of 8 once), transposed (VNCL_SQUARE8, vncl_square8.cl)
 * into g[k]'s low or high half, as softmax_rows_packed does; the sums of
 * rows of 16 then go lane by lane too (rows of 8 come here for argmax
 * only: the host's rule). VNCL_PACK_IN's 16-lane
 * shuffles (a 16 x 16 square, and for rows of 10 to 15 a shuffle a row
 * before it) need twice AVX2's 16 registers: sums over rows of 10 and 12
 * and argmax over rows of 8 to 16 ran 1.2-2x faster so on an AVX2 EPYC
 * (docs/ops.md, thirty-seventh pass). The last work-item's part keeps the
 * element-by-element gathers. */
/* (PACK_H8 is checked, and its loads defined, in vncl_square8.cl.)
 * TREE: sums and extrema of power-of-two rows by the tree, on the rows as
 * loaded into t; else, and for argmax, g[k] holds element k of every row. */
#define TREE ((PACK & (PACK - 1)) == 0 && !PACK_H8)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce_rows_packed(const int op, const IDX R, const IDX rows,
                   __global const STORE *x, const IDX xoff,
                   __global STORE *out, __global int *outi, const IDX ooff) {
  const IDX row0 = (IDX)get_global_id(0) * VW;
  if (row0 >= rows) return;
  __global const STORE *const p = x + xoff + row0 * PACK;
  accv t[PACK], g[PACK];
  if (row0 + VW <= rows) {
#if PACK_H8
    VNCL_SQUARE8_IN(VNCL_SQUARE8_LD8, PACK, accv, g);
#else
    _Pragma("unroll") for (int i = 0; i < PACK; i++) t[i] = LDV(p, i);
#endif
  } else {
    VNCL_TRANSPOSE_LOAD_PART(acc, VW, PACK, LD, p, rows - row0, t);
#if PACK_H8
    VNCL_PACK_IN(t, g);
#endif
  }
#if TREE
  if (op == R_ARGMAX) {
    VNCL_PACK_IN(t, g);
  }
#elif !PACK_H8
  VNCL_PACK_IN(t, g);
#endif
  if (op == R_ARGMAX) {
    /* each row's maximum (NaN if it holds one), then its first element
     * equal to it (or its first NaN), taken from the last element back */
    accv m = g[0], s = g[0];
    _Pragma("unroll") for (int k = 1; k < PACK; k++) {
      m = PMAX(m, g[k]);
      s += g[k];
    }
    lanev at = (lanev)(PACK - 1);
    if (!any(IS_NAN(s))) {
      _Pragma("unroll") for (int k = PACK - 2; k >= 0; k--)
        at = select(at, (lanev)k, g[k] == m);
    } else {
      m = g[0];
      _Pragma("unroll") for (int k = 1; k < PACK; k++) m = NMAX(m, g[k]);
      const lanev mnan = IS_NAN(m);
      _Pragma("unroll") for (int k = PACK - 2; k >= 0; k--)
        at = select(at, (lanev)k, mnan ? IS_NAN(g[k]) : g[k] == m);
    }
    const CAT(int, VW) ai = CAT(convert_int, VSUF)(at);
    if (row0 + VW <= rows) {
      CAT(vstore, VW)(ai, 0, outi + ooff + row0);
    } else {
      int l[VW];
      CAT(vstore, VW)(ai, 0, l);
      for (IDX r = 0; row0 + r < rows; r++) outi[ooff + row0 + r] = l[r];
    }
    return;
  }
#if TREE
  if (op == R_SUM || op == R_MEAN || op == R_NORM2) {
    if (op == R_NORM2)
      _Pragma("unroll") for (int i = 0; i < PACK; i++) t[i] *= t[i];
    VNCL_ROWS_TREE(PACK, accv, lanev, ADD2, t);
    if (op == R_MEAN) t[0] /= (acc)R;
    if (op == R_NORM2) t[0] = sqrt(t[0]);
  } else if (op == R_MIN) {
    VNCL_ROWS_TREE(PACK, accv, lanev, NMIN, t);
  } else {
    VNCL_ROWS_TREE(PACK, accv, lanev, NMAX, t);
  }
#else
  /* every element k of the rows as one vector g[k] (lane r: row r):
   * C(..C(C(g0, g1), g2).., g[PACK-1]) */
  if (op == R_SUM || op == R_MEAN || op == R_NORM2) {
    const int sq = op == R_NORM2;
    t[0] = sq ? g[0] * g[0] : g[0];
    _Pragma("unroll") for (int k = 1; k < PACK; k++)
      t[0] += sq ? g[k] * g[k] : g[k];
    if (op == R_MEAN) t[0] /= (acc)R;
    if (sq) t[0] = sqrt(t[0]);
  } else if (op == R_MIN) {
    t[0] = g[0];
    _Pragma("unroll") for (int k = 1; k < PACK; k++) t[0] = NMIN(t[0], g[k]);
  } else {
    t[0] = g[0];
    _Pragma("unroll") for (int k = 1; k < PACK; k++) t[0] = NMAX(t[0], g[k]);
  }
#endif
  if (row0 + VW <= rows) {
    VNCL_VSTORE(DTYPE, VW, out + ooff + row0, 0, t[0]);
  } else {
    acc l[VW];
    LANES(t[0], l);
    for (IDX r = 0; row0 + r < rows; r++) ST(out, ooff + row0 + r, l[r]);
  }
}
#endif
#endif

/* A vector of VW elements starting at element `off` of p (any alignment
 * of the element type). */
#define LDV_AT(p, off) LDV((p) + (off), 0)

/* One column (scalar path): rows r0 .. r1-1 of column p[0], p[inner], ... */
inline void col_scalar(const int op, __global const STORE *p, const IDX inner,
                       const IDX r0, const IDX r1, acc *val, IDX *idx) {
  *idx = IDX_NONE;
  if (op == R_SUM || op == R_MEAN || op == R_NORM2) {
    acc sv = 0, cv = 0;
    for (IDX r = r0; r < r1; r++) {
      const acc e = LD(p, r * inner);
      KAHAN1(sv, cv, op == R_NORM2 ? e * e : e);
    }
    *val = KAHAN_VALUE(sv, cv);
  } else if (op == R_MAX || op == R_MIN) {
    acc m = op == R_MAX ? -INFINITY : INFINITY;
    for (IDX r = r0; r < r1; r++) {
      const acc e = LD(p, r * inner);
      m = op == R_MAX ? NMAX(m, e) : NMIN(m, e);
    }
    *val = m;
  } else {
    acc m = -INFINITY;
    for (IDX r = r0; r < r1; r++) {
      const acc e = LD(p, r * inner);
      if (BETTER(e, r, m, *idx)) {
        m = e;
        *idx = r;
      }
    }
    *val = m;
  }
}

/* Whether e beats the best so far b in argmax down rows taken in order:
 * larger, or NaN where b is not (so the first maximum, or the first NaN,
 * keeps its row). Lane by lane for vectors (-1/0 lanes as wide as the
 * values: a select mask), 1/0 for scalars. Written as "not e <= b, and b
 * is a number" (the same truth table: e <= b is false when either is NaN):
 * two compares and an and, where "e > b, or e NaN and b not" took three
 * compares, a not, an and and an or; argmax over columns as AVX2 code
 * went from 12.9-13.3 to 19.0-19.1 GB/s, as AVX-512 code from 22.1-23.0
 * to 24.0-24.5 (Intel Xeon guest, 4096 x 16384 f32, 2026-12-05). */
#define AM_BEATS(e, b) ((!((e) <= (b))) & ((b) == (b)))
#if DTYPE == 1
#define ROWT long
#else
#define ROWT int
#endif
typedef ROWT rowt;
typedef CAT(ROWT, VSUF) rowv;
/* Row r's values e into the best values v and their rows i, lane by lane. */
#define AM_TAKE(v, i, e, r)                  \
  do {                                       \
    const rowv b_ = AM_BEATS(e, v);          \
    (v) = b_ ? (e) : (v);                    \
    (i) = b_ ? (rowv)((rowt)(r)) : (i);      \
  } while (0)
/* Stores the VW lanes of best values v with their rows i from output at
 * (argmax's outputs or partials). */
inline void put_argmax_lanes(const IDX at, const accv v, const rowv i,
                             const IDX R, const int partial,
                             __global STORE *out, __global int *outi,
                             __global acc *pv, __global IDX *pi) {
  acc l[VW];
  rowt rl[VW];
  LANES(v, l);
  LANES(i, rl);
  for (int j = 0; j < VW; j++)
    put(R_ARGMAX, at + j, l[j], (IDX)rl[j], R, partial, out, outi, pv, pi);
}

/* Work-item (xi, o*S + s) reduces the CB*VW columns from xi*CB*VW of row
 * block o over chunk s of the axis: row by row, CB vector loads per row
 * into CB independent accumulators (sum, norm, max, min; argmax a best
 * value and its row per lane, the chunk's first row starting them); one
 * column at a time for the last, partial block of columns. */
__kernel void reduce_cols(const int op, const IDX R, const IDX inner,
                          const IDX chunk, const IDX S,
                          __global const STORE *x, const IDX xoff,
                          __global STORE *out, __global int *outi,
                          const IDX ooff, __global acc *pv, __global IDX *pi) {
  const IDX xi = get_global_id(0), c0 = xi * (VW * CB);
  if (c0 >= inner) return;
  const IDX os = get_global_id(1), o = os / S, s = os - o * S;
  const IDX r0 = s * chunk, r1 = min(r0 + chunk, R);
  __global const STORE *p = x + xoff + o * R * inner + c0;
  const int partial = S > 1;
  const IDX at = partial ? os * inner + c0 : ooff + o * inner + c0;
  if (c0 + VW * CB <= inner) {
    acc lanes[VW];
    if (op == R_ARGMAX) {
      accv bv[CB];
      rowv bi[CB];
      for (int q = 0; q < CB; q++) {
        bv[q] = LDV_AT(p, r0 * inner + q * VW);
        bi[q] = (rowv)((rowt)r0);
      }
      for (IDX r = r0 + 1; r < r1; r++)
        for (int q = 0; q < CB; q++) {
          const accv e = LDV_AT(p, r * inner + q * VW);
          AM_TAKE(bv[q], bi[q], e, r);
        }
      for (int q = 0; q < CB; q++)
        put_argmax_lanes(at + q * VW, bv[q], bi[q], R, partial, out, outi,
                         pv, pi);
    } else if (op == R_SUM || op == R_MEAN || op == R_NORM2) {
      accv sv[CB], cv[CB];
      for (int q = 0; q < CB; q++) sv[q] = cv[q] = 0;
      for (IDX r = r0; r < r1; r++)
        for (int q = 0; q < CB; q++) {
          const accv e = LDV_AT(p, r * inner + q * VW);
          KAHAN(sv[q], cv[q], op == R_NORM2 ? e * e : e);
        }
      for (int q = 0; q < CB; q++) {
        LANES(KAHAN_VALUE(sv[q], cv[q]), lanes);
        for (int j = 0; j < VW; j++)
          put(op, at + q * VW + j, lanes[j], IDX_NONE, R, partial, out, outi,
              pv, pi);
      }
    } else {
      accv m[CB];
      for (int q = 0; q < CB; q++)
        m[q] = op == R_MAX ? (accv)(-INFINITY) : (accv)(INFINITY);
      if (op == R_MAX)
        for (IDX r = r0; r < r1; r++)
          for (int q = 0; q < CB; q++) {
            const accv e = LDV_AT(p, r * inner + q * VW);
            m[q] = NMAX(m[q], e);
          }
      else
        for (IDX r = r0; r < r1; r++)
          for (int q = 0; q < CB; q++) {
            const accv e = LDV_AT(p, r * inner + q * VW);
            m[q] = NMIN(m[q], e);
          }
      for (int q = 0; q < CB; q++) {
        LANES(m[q], lanes);
        for (int j = 0; j < VW; j++)
          put(op, at + q * VW + j, lanes[j], IDX_NONE, R, partial, out, outi,
              pv, pi);
      }
    }
  } else {
    const IDX nc = min((IDX)(VW * CB), inner - c0);
    for (IDX j = 0; j < nc; j++) {
      acc val;
      IDX idx;
      col_scalar(op, p + j, inner, r0, r1, &val, &idx);
      put(op, at + j, val, idx, R, partial, out, outi, pv, pi);
    }
  }
}

/* F(element at offset off of rows r .. r + STREAMS - 1 of a strip, pr at
 * row r), combined pairwise by C (reduce_cols_strip). */
#define RB(F, L, i, off) F(L(pr + (IDX)(i) * inner, off))
#if STREAMS == 2
#define ROWBLK(C, F, L, off) C(RB(F, L, 0, off), RB(F, L, 1, off))
#elif STREAMS == 4
#define ROWBLK(C, F, L, off)                               \
  C(C(RB(F, L, 0, off), RB(F, L, 1, off)),                 \
    C(RB(F, L, 2, off), RB(F, L, 3, off)))
#elif STREAMS == 8
#define ROWBLK(C, F, L, off)                               \
  C(C(C(RB(F, L, 0, off), RB(F, L, 1, off)),               \
      C(RB(F, L, 2, off), RB(F, L, 3, off))),              \
    C(C(RB(F, L, 4, off), RB(F, L, 5, off)),               \
      C(RB(F, L, 6, off), RB(F, L, 7, off))))
#elif STREAMS != 1
#error "STREAMS: 1, 2, 4 or 8"
#endif

/* argmax for reduce_cols_strip: the strip's columns (nvec vectors, then
 * nrest alone, from p) down rows r0 .. r1 - 1 of the chunk, keeping per
 * column the best value and its row, a vector of columns at a time,
 * STREAMS rows' runs read at once; the chunk's first row starts the best.
 * Columns one at a time down strided rows (reduce_cols' scalar path) ran
 * argmax over columns at 0.03x memcpy on a Zen 5 (docs/ops.md, thirteenth
 * pass). */
inline void argmax_strip(__global const STORE *p, const IDX inner,
                         const IDX r0, const IDX r1, const int nvec,
                         const int nrest, const IDX at, const IDX R,
                         const int partial, __global STORE *out,
                         __global int *outi, __global acc *pv,
                         __global IDX *pi) {
  accv bv[STRIP];
  rowv bi[STRIP];
  acc bs[VW];
  IDX bj[VW];
  __global const STORE *pr = p + r0 * inner;
  for (int q = 0; q < nvec; q++) {
    bv[q] = LDV_AT(pr, q * VW);
    bi[q] = (rowv)((rowt)r0);
  }
  for (int j = 0; j < nrest; j++) {
    bs[j] = LD(pr, nvec * VW + j);
    bj[j] = r0;
  }
  /* Rows r .. r + n - 1 (n = STREAMS, or 1 for the rows left over): per
   * vector of columns the n rows' runs read together, the best kept in
   * registers across them. */
#define AM_ROWS(n)                                                   \
  do {                                                               \
    for (int q = 0; q < nvec; q++) {                                 \
      accv v_ = bv[q];                                               \
      rowv i_ = bi[q];                                               \
      _Pragma("unroll") for (int k = 0; k < (n); k++) {              \
        const accv e = LDV_AT(pr + (IDX)k * inner, q * VW);          \
        AM_TAKE(v_, i_, e, r + (IDX)k);                              \
      }                                                              \
      bv[q] = v_;                                                    \
      bi[q] = i_;                                                    \
    }                                                                \
    for (int j = 0; j < nrest; j++)                                  \
      _Pragma("unroll") for (int k = 0; k < (n); k++) {              \
        const acc e = LD(pr + (IDX)k * inner, nvec * VW + j);        \
        if (AM_BEATS(e, bs[j])) {                                    \
          bs[j] = e;                                                 \
          bj[j] = r + (IDX)k;                                        \
        }                                                            \
      }                                                              \
  } while (0)
  IDX r = r0 + 1;
  for (; r + STREAMS <= r1; r += STREAMS) {
    pr = p + r * inner;
    AM_ROWS(STREAMS);
  }
  for (; r < r1; r++) {
    pr = p + r * inner;
    AM_ROWS(1);
  }
#undef AM_ROWS
  for (int q = 0; q < nvec; q++)
    put_argmax_lanes(at + q * VW, bv[q], bi[q], R, partial, out, outi, pv,
                     pi);
  for (int j = 0; j < nrest; j++)
    put(R_ARGMAX, at + nvec * VW + j, bs[j], bj[j], R, partial, out, outi,
        pv, pi);
}

/* Work-item (t, o*S + s) of a [nstrips, outer*S] range: columns c0 =
 * t*STRIP*VW .. c0 + STRIP*VW - 1 (fewer in the last strip) of row block o,
 * rows of chunk s, row by row: one vector load per STRIP vectors and a
 * Kahan step into that vector's accumulator (sum, mean, norm2), or a
 * max/min; columns past the last whole vector go one by one in the same
 * row loop; argmax in argmax_strip. */
__kernel void reduce_cols_strip(const int op, const IDX R, const IDX inner,
                                const IDX chunk, const IDX S,
                                __global const STORE *x, const IDX xoff,
                                __global STORE *out, __global int *outi,
                                const IDX ooff, __global acc *pv,
                                __global IDX *pi) {
  const IDX c0 = (IDX)get_global_id(0) * (STRIP * VW);
  if (c0 >= inner) return;
  const IDX os = get_global_id(1), o = os / S, s = os - o * S;
  const IDX r0 = s * chunk, r1 = min(r0 + chunk, R);
  __global const STORE *p = x + xoff + o * R * inner + c0;
  const int partial = S > 1;
  const IDX at = partial ? os * inner + c0 : ooff + o * inner + c0;
  const IDX ncols = min((IDX)(STRIP * VW), inner - c0);
  const int nvec = (int)(ncols / VW), nrest = (int)(ncols - nvec * VW);
  if (op == R_ARGMAX) {
    argmax_strip(p, inner, r0, r1, nvec, nrest, at, R, partial, out, outi,
                 pv, pi);
    return;
  }
  const int sum = op == R_SUM || op == R_MEAN || op == R_NORM2;
  accv sv[STRIP], cv[STRIP];
  acc ss[VW], cs[VW];
  if (sum) {
    for (int q = 0; q < STRIP; q++) sv[q] = cv[q] = 0;
    for (int j = 0; j < VW; j++) ss[j] = cs[j] = 0;
  } else {
    const acc init = op == R_MAX ? -INFINITY : INFINITY;
    for (int q = 0; q < STRIP; q++) sv[q] = (accv)init;
    for (int j = 0; j < VW; j++) ss[j] = init;
  }
  IDX r = r0;
#if STREAMS > 1
  /* STREAMS rows at a time, added pairwise, one Kahan step per vector of
   * columns; the rows left over (fewer than STREAMS) in the loop below. */
  if (sum) {
    const int sq = op == R_NORM2;
    for (; r + STREAMS <= r1; r += STREAMS) {
      __global const STORE *pr = p + r * inner;
      if (sq) {
        for (int q = 0; q < nvec; q++)
          KAHAN(sv[q], cv[q], ROWBLK(ADD2, SQ, LDV_AT, q * VW));
        for (int j = 0; j < nrest; j++)
          KAHAN1(ss[j], cs[j], ROWBLK(ADD2, SQ, LD, nvec * VW + j));
      } else {
        for (int q = 0; q < nvec; q++)
          KAHAN(sv[q], cv[q], ROWBLK(ADD2, IDZ, LDV_AT, q * VW));
        for (int j = 0; j < nrest; j++)
          KAHAN1(ss[j], cs[j], ROWBLK(ADD2, ID, LD, nvec * VW + j));
      }
    }
  } else {
    /* max and min too: STREAMS rows' runs in flight at once (one row at a
     * time, max over columns read 0.63x memcpy, where the sums ran
     * 1.2-1.3x; docs/ops.md, thirteenth pass) */
#define EXT_ROWBLKS(OPX)                                              \
  for (; r + STREAMS <= r1; r += STREAMS) {                           \
    __global const STORE *pr = p + r * inner;                         \
    for (int q = 0; q < nvec; q++)                                    \
      sv[q] = OPX(sv[q], ROWBLK(OPX, ID, LDV_AT, q * VW));            \
    for (int j = 0; j < nrest; j++)                                   \
      ss[j] = OPX(ss[j], ROWBLK(OPX, ID, LD, nvec * VW + j));         \
  }
    if (op == R_MAX)
      EXT_ROWBLKS(NMAX)
    else
      EXT_ROWBLKS(NMIN)
#undef EXT_ROWBLKS
  }
#endif
  for (; r < r1; r++) {
    __global const STORE *pr = p + r * inner;
    if (op == R_SUM || op == R_MEAN) {
      for (int q = 0; q < nvec; q++) {
        const accv e = LDV_AT(pr, q * VW);
        KAHAN(sv[q], cv[q], e);
      }
      for (int j = 0; j < nrest; j++) {
        const acc e = LD(pr, nvec * VW + j);
        KAHAN1(ss[j], cs[j], e);
      }
    } else if (op == R_NORM2) {
      for (int q = 0; q < nvec; q++) {
        const accv e = LDV_AT(pr, q * VW);
        KAHAN(sv[q], cv[q], e * e);
      }
      for (int j = 0; j < nrest; j++) {
        const acc e = LD(pr, nvec * VW + j);
        KAHAN1(ss[j], cs[j], e * e);
      }
    } else if (op == R_MAX) {
      for (int q = 0; q < nvec; q++) {
        const accv e = LDV_AT(pr, q * VW);
        sv[q] = NMAX(sv[q], e);
      }
      for (int j = 0; j < nrest; j++) {
        const acc e = LD(pr, nvec * VW + j);
        ss[j] = NMAX(ss[j], e);
      }
    } else {
      for (int q = 0; q < nvec; q++) {
        const accv e = LDV_AT(pr, q * VW);
        sv[q] = NMIN(sv[q], e);
      }
      for (int j = 0; j < nrest; j++) {
        const acc e = LD(pr, nvec * VW + j);
        ss[j] = NMIN(ss[j], e);
      }
    }
  }
  acc lanes[VW];
  for (int q = 0; q < nvec; q++) {
    LANES(sum ? KAHAN_VALUE(sv[q], cv[q]) : sv[q], lanes);
    for (int j = 0; j < VW; j++)
      put(op, at + q * VW + j, lanes[j], IDX_NONE, R, partial, out, outi, pv,
          pi);
  }
  for (int j = 0; j < nrest; j++)
    put(op, at + nvec * VW + j, sum ? KAHAN_VALUE(ss[j], cs[j]) : ss[j],
        IDX_NONE, R, partial, out, outi, pv, pi);
}


/* Partials are [outer, S, inner]; output j = o * inner + i. */
__kernel void reduce_partials(const int op, const IDX n, const IDX S,
                              const IDX inner, const IDX R,
                              __global const acc *pv, __global const IDX *pi,
                              __global STORE *out, __global int *outi,
                              const IDX ooff) {
  const IDX j = get_global_id(0);
  if (j >= n) return;
  const IDX o = j / inner, i = j - o * inner;
  const IDX base = o * S * inner + i;
  acc val = pv[base], cv = 0;
  IDX idx = pi[base];
  for (IDX s = 1; s < S; s++) {
    const acc e = pv[base + s * inner];
    const IDX ie = pi[base + s * inner];
    if (op == R_MAX) {
      val = NMAX(val, e);
    } else if (op == R_MIN) {
      val = NMIN(val, e);
    } else if (op == R_ARGMAX) {
      if (BETTER(e, ie, val, idx)) {
        val = e;
        idx = ie;
      }
    } else {
      KAHAN1(val, cv, e);
    }
  }
  if (op == R_SUM || op == R_MEAN || op == R_NORM2) val = KAHAN_VALUE(val, cv);
  put(op, ooff + j, val, idx, R, 0, out, outi, (__global acc *)0,
      (__global IDX *)0);
}
