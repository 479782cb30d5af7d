/*
 * softmax.cl: softmax and log-softmax over the last axis of a row-major
 * tensor of rows of N elements, on one storage type (DTYPE).
 *
 *   softmax_rows   one work-group per row, three passes over the row:
 *                    m = max(x)                       (tree over the group)
 *                    s = sum(e = exp(x - m))          (tree over the group)
 *                    out = e / s            or   out = (x - m) - log(s)
 *                  Only pass 1 reads the row from memory; passes 2 and 3
 *                  find it in cache, and exp is computed once per
 *                  element: e is kept in local memory when the row fits
 *                  (ROW_LOCAL; the output is then written once, with
 *                  non-temporal stores under NT_OUT), else in the output
 *                  itself (f32, f64) or computed again (16-bit storage,
 *                  where a stored e would round the result twice).
 *                  Subtracting the maximum keeps exp() from overflowing
 *                  (numerically stable). Work-item l reads vectors l,
 *                  l+WG, ... of VW elements, so each pass is coalesced
 *                  (GPUs), or the l-th of WG consecutive runs of the row
 *                  (ITEM_CONTIG, CPUs).
 *
 *   softmax_rows_packed  rows of 2 to VW elements on CPUs: VW rows a
 *                  work-item, read as whole vectors and transposed so that
 *                  each row is a lane.
 *
 *   softmax_rows_item  short rows on CPUs: work-item g takes rows
 *                  g ITEM_ROWS .. (g + 1) ITEM_ROWS - 1 whole, the same
 *                  three passes in its own registers and cache (no local
 *                  memory, no barriers: one group per row paid a
 *                  work-group launch and its barriers for each row,
 *                  0.03-0.36x memcpy for rows of 64-4096 before), its
 *                  rows' passes interleaved vector by vector, so that one
 *                  row's horizontal reductions and log (chains of
 *                  dependent scalar steps) overlap the others' work.
 *
 * Special values follow PyTorch: an element of -inf gives 0 (log-softmax
 * -inf); a row that is all -inf, or holds +inf or NaN, gives NaN.
 * 16-bit storage is computed in f32, f64 in f64.
 */

/* Storage type: 0 f32, 1 f64, 2 f16, 3 bf16 (vncl_dtype values). */
#ifndef DTYPE
#define DTYPE 0
#endif
/* Work-items per work-group (a power of two). */
#ifndef WG
#define WG 256
#endif
/* Elements per vector load: 1, 2, 4, 8, 16. */
#ifndef VW
#define VW 4
#endif
/* 1: each work-item takes a contiguous part of the row (CPUs); 0: the
 * group's items step through the row together (GPUs). */
#ifndef ITEM_CONTIG
#define ITEM_CONTIG 0
#endif
/* Elements of e = exp(x - m) kept in local memory (the host sets it to a
 * power of two >= the row length when that fits; 0: no local copy). */
#ifndef ROW_LOCAL
#define ROW_LOCAL 0
#endif
/* 1: the final vector stores are non-temporal (the host sets it when the
 * output rows are aligned to whole vectors and at least NT_MIN long). */
#ifndef NT_OUT
#define NT_OUT 0
#endif
/* Rows shorter than this get ordinary final stores; read by the host,
 * which folds it into NT_OUT (docs/ops.md, twelfth pass). */
#ifndef NT_MIN
#define NT_MIN 0
#endif
/* Index width: 32 or 64 bits. */
#ifndef IDX_BITS
#define IDX_BITS 32
#endif

#if IDX_BITS == 64
typedef ulong IDX;
#else
typedef uint IDX;
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
/* Whether softmax keeps exp(x - m) in the output between passes 2 and 3
 * (storage as wide as the compute type). */
#define STORE_EXP (DTYPE == 0 || DTYPE == 1)

#define LD(p, i) VNCL_LOAD(DTYPE, p, i)
#define ST(p, i, x) VNCL_STORE(DTYPE, p, i, x)
#if VW == 1
#define LDV(p, v) LD(p, v)
#define STV(p, v, x) ST(p, v, x)
#define LANES(v, arr) arr[0] = (v)
#else
#define LDV(p, v) VNCL_VLOAD(DTYPE, VW, v, p)
#define STV(p, v, x) VNCL_VSTORE(DTYPE, VW, p, v, x)
#define LANES(v, arr) CAT(vstore, VW)((v), 0, arr)
#endif

/* A non-temporal vector store where the compiler has them (STV_NT; not
 * for f16, whose stores are conversions), for the final stores: STV_OUT
 * under NT_OUT, STB (softmax_rows_item's blocks) under BLOCK_OUT 2. */
#if VW > 1 && DTYPE != 2 && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#if DTYPE == 3
#define STV_NT(p, v, x)                                              \
  __builtin_nontemporal_store(CAT3(vncl_float, VW, _to_bf16)(x),      \
                              (__global CAT(ushort, VW) *)(p) + (v))
#else
#define STV_NT(p, v, x) __builtin_nontemporal_store((x), (__global accv *)(p) + (v))
#endif
#endif
#endif
#if NT_OUT && defined(STV_NT)
#define STV_OUT(p, v, x) STV_NT(p, v, x)
#else
#define STV_OUT(p, v, x) STV(p, v, x)
#endif

/* CPU layout: while pass 3 writes this row, the work-items ask for their
 * part of the next row (the next work-group's, which PoCL's threads mostly
 * take next), so its pass 1 finds it in cache: softmax 1.12-1.17x here
 * (docs/ops.md). Not on the GPU layout (no such order of groups). A
 * parameter (PREFETCH, set in the CPU rows), not only a compiler test:
 * Oclgrind's compiler has the builtin but cannot run llvm.prefetch. */
#ifndef PREFETCH
#define PREFETCH 0
#endif
#define PREFETCH_NEXT 0
#if PREFETCH && ITEM_CONTIG && defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
#undef PREFETCH_NEXT
#define PREFETCH_NEXT 1
#endif
#endif
#if PREFETCH_NEXT
#define PF_NEXT(v) \
  if (pf) __builtin_prefetch(p + N + (IDX)(v) * VW, 0, 3)
#else
#define PF_NEXT(v) (void)0
#endif
/* softmax_rows_item: rows of their own per work-item, so short rows ask
 * for the row PF_AHEAD elements ahead (at least the next), where the next
 * row alone would arrive too late (rows of 64 f32 are 4 lines). */
#ifndef PF_AHEAD
#define PF_AHEAD 1024
#endif
/* PREFETCH 1: pass 3 (the stores) asks for the next row; 2: pass 2 (the
 * exponentials, which find the row in cache and compute) does. */
#if PREFETCH == 2
#define PF_NEXT2(v) PF_NEXT(v)
#define PF_NEXT3(v) (void)0
#else
#define PF_NEXT2(v) (void)0
#define PF_NEXT3(v) PF_NEXT(v)
#endif

/* Vectors of the local copy of e, through a vector pointer: the copy is
 * declared as an array of vectors (so aligned to one), and PoCL 3.1 stored
 * a vstore16 to local memory in four 128-bit pieces (perf on a Zen 5 EPYC,
 * 2026-12-03: 12% of softmax rows of 1024). The tails use the same
 * memory as scalars (ebuf). */
#define EVECS(n) (((n) + VW - 1) / VW)
#define LLDV(v) (((__local accv *)ebuf)[v])
#define LSTV(v, x) (((__local accv *)ebuf)[v] = (x))

/* The row's maximum m need not carry a NaN: a row holding NaN gets NaN
 * from pass 2 whatever m is (its e = exp(NaN - m) makes the sum NaN, and
 * every result is e / sum or (x - m) - log(sum)), as does a row holding
 * +inf (m = +inf, inf - inf = NaN) or all -inf (-inf - -inf = NaN). So
 * pass 1 takes the plain maximum, one compare and select (maxps), where
 * the NaN-carrying form added a NaN test and an OR to each step of the
 * loop's dependency chain: softmax of rows of 16384 1.4-1.5x faster on a
 * Zen 5 (docs/ops.md, thirteenth pass). */
#define RMAX(x, y) (((x) > (y)) ? (x) : (y))

/* exp(d) for d = x - max <= 0 (or NaN): vncl_expnegf (vncl_math_common.cl)
 * in f32, no library call; f64 keeps the library exp. */
/* log of a row's sum s, in [1, N] or NaN (a row holding NaN or +inf,
 * or all -inf; NaN must come out: with m = +inf the finite elements' x - m
 * is -inf, and only a NaN log makes their result NaN): vncl_logf
 * (vncl_math_common.cl) in f32, one library call per row before; f64
 * keeps the library log. */
#if DTYPE == 1
#define SM_LOG(s) log(s)
#else
VNCL_LOGF_FN()
VNCL_LOGF_FN(4)
#if defined(PACK) && VW != 4
VNCL_LOGF_FN(VW) /* softmax_rows_packed: a row's log a lane */
#endif
#define SM_LOG(s) (IS_NAN(s) ? (s) : vncl_logf(s))
#endif
#if DTYPE == 1
#define SM_EXPV(d) exp(d)
#define SM_EXP1(d) exp(d)
#else
VNCL_EXPNEGF_FN()
#if VW > 1
VNCL_EXPNEGF_FN(VW)
#endif
#define SM_EXPV(d) CAT(vncl_expnegf, VSUF)(d)
#define SM_EXP1(d) vncl_expnegf(d)
#endif

/* The group's tree over red[0..WG): red[i] = OP for i < w, w = WG/2 .. 1,
 * the result in red[0] for every work-item after the last barrier. GPU
 * layout: each level by the first w work-items, a barrier after each.
 * CPU layout (ITEM_CONTIG): the same levels in the same order by work-item
 * 0 alone, between two barriers, so the bits are the same; PoCL runs each
 * stretch between barriers as a loop over the group's work-items, and the
 * log2(WG) barriers per tree cost more than the few adds (seventh pass,
 * docs/ops.md). */
#if ITEM_CONTIG
#define GROUP_TREE(OP)                                           \
  barrier(CLK_LOCAL_MEM_FENCE);                                  \
  if (lid == 0)                                                  \
    for (int w = WG / 2; w > 0; w >>= 1)                         \
      for (int i = 0; i < w; i++) red[i] = (OP);                 \
  barrier(CLK_LOCAL_MEM_FENCE)
#else
#define GROUP_TREE(OP)                                           \
  barrier(CLK_LOCAL_MEM_FENCE);                                  \
  for (int w = WG / 2; w > 0; w >>= 1) {                         \
    if (lid < w) {                                               \
      const int i = lid;                                         \
      red[i] = (OP);                                             \
    }                                                            \
    barrier(CLK_LOCAL_MEM_FENCE);                                \
  }
#endif

/* This work-item's vectors: vb, vb+vs, ... below ve. */
#if ITEM_CONTIG
#define RANGE()                                      \
  const IDX per = (nv + WG - 1) / WG;                \
  const IDX vb = (IDX)lid * per, ve = min(nv, vb + per), vs = 1
#else
#define RANGE() const IDX vb = (IDX)lid, ve = nv, vs = WG
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
softmax_rows(const IDX N, const IDX rows, const int logmode,
             __global const STORE *x, const IDX xoff, __global STORE *out,
             const IDX ooff) {
  (void)rows; /* one group per row; the argument list is the item kernel's */
  __local acc red[WG];
#if ROW_LOCAL
  __local accv ebufv[EVECS(ROW_LOCAL)];
  __local acc *ebuf = (__local acc *)ebufv;
#endif
  const int lid = get_local_id(0);
  const IDX row = get_group_id(0);
  __global const STORE *p = x + xoff + row * N;
  __global STORE *q = out + ooff + row * N;
  const IDX nv = N / VW, tail = nv * VW;
  /* The tail (N - tail < VW elements): element tail + lid + j WG for
   * work-item lid (one at most where VW <= WG). */
#define FOR_TAIL(i) for (IDX i = tail + lid; i < N; i += WG)
  RANGE();
  acc lanes[VW];

  /* Pass 1: the maximum, in four independent running maxima (the loop is
   * then not one chain of dependent steps). */
  accv mv = (accv)(-INFINITY);
  {
    accv mv1 = mv, mv2 = mv, mv3 = mv;
    IDX v = vb;
    for (; v + 3 * vs < ve; v += 4 * vs) {
      mv = RMAX(mv, LDV(p, v));
      mv1 = RMAX(mv1, LDV(p, v + vs));
      mv2 = RMAX(mv2, LDV(p, v + 2 * vs));
      mv3 = RMAX(mv3, LDV(p, v + 3 * vs));
    }
    for (; v < ve; v += vs) mv = RMAX(mv, LDV(p, v));
    mv = RMAX(RMAX(mv, mv1), RMAX(mv2, mv3));
  }
  LANES(mv, lanes);
  acc m = lanes[0];
  for (int j = 1; j < VW; j++) m = RMAX(m, lanes[j]);
  FOR_TAIL(i) m = RMAX(m, LD(p, i));
  red[lid] = m;
  GROUP_TREE(RMAX(red[i], red[i + w]));
  m = red[0];
  barrier(CLK_LOCAL_MEM_FENCE);

  /* Pass 2: the sum of e = exp(x - m), e kept for pass 3 (in local memory,
   * or in the output for f32 and f64; each work-item reads back only what
   * it wrote). */
  accv sv = 0;
  acc et = 0; /* this work-item's tail elements' sum */
  const int pf = row + 1 < get_num_groups(0);
  (void)pf;
#if ROW_LOCAL
  if (!logmode) {
    for (IDX v = vb; v < ve; v += vs) {
      PF_NEXT2(v);
      const accv e = SM_EXPV(LDV(p, v) - m);
      LSTV(v, e);
      sv += e;
    }
    FOR_TAIL(i) {
      const acc e = SM_EXP1(LD(p, i) - m);
      ebuf[i] = e;
      et += e;
    }
  } else
#elif STORE_EXP
  if (!logmode) {
    for (IDX v = vb; v < ve; v += vs) {
      PF_NEXT2(v);
      const accv e = SM_EXPV(LDV(p, v) - m);
      STV(q, v, e);
      sv += e;
    }
    FOR_TAIL(i) {
      const acc e = SM_EXP1(LD(p, i) - m);
      ST(q, i, e);
      et += e;
    }
  } else
#endif
  {
    for (IDX v = vb; v < ve; v += vs) {
      PF_NEXT2(v);
      sv += SM_EXPV(LDV(p, v) - m);
    }
    FOR_TAIL(i) et += SM_EXP1(LD(p, i) - m);
  }
  LANES(sv, lanes);
  acc s = 0;
  for (int j = 0; j < VW; j++) s += lanes[j];
  s += et;
  red[lid] = s;
  GROUP_TREE(red[i] + red[i + w]);
  s = red[0];

  /* Pass 3: the output. */
  if (logmode) {
    const acc ls = SM_LOG(s);
    for (IDX v = vb; v < ve; v += vs) {
      PF_NEXT3(v);
      STV_OUT(q, v, (LDV(p, v) - m) - ls);
    }
    FOR_TAIL(i) ST(q, i, (LD(p, i) - m) - ls);
  } else {
    const acc inv = (acc)1 / s;
#if ROW_LOCAL
    for (IDX v = vb; v < ve; v += vs) {
      PF_NEXT3(v);
      STV_OUT(q, v, LLDV(v) * inv);
    }
    FOR_TAIL(i) ST(q, i, ebuf[i] * inv);
#elif STORE_EXP
    for (IDX v = vb; v < ve; v += vs) STV(q, v, LDV(q, v) * inv);
    FOR_TAIL(i) ST(q, i, LD(q, i) * inv);
#else
    for (IDX v = vb; v < ve; v += vs) STV(q, v, SM_EXPV(LDV(p, v) - m) * inv);
    FOR_TAIL(i) ST(q, i, SM_EXP1(LD(p, i) - m) * inv);
#endif
  }
#undef FOR_TAIL
}

/* ITEM_ROWS rows per work-item (rows of up to ROW_ITEM elements, CPUs):
 * pass 1 reads the rows (vectors of VW, then the tail), pass 2 sums e =
 * exp(x - m) and keeps it in the work-item's part of local memory
 * (ITEM_LOCAL elements a row; 0: computed again in pass 3), pass 3 writes
 * the output, non-temporal under NT_OUT: the output is written once, never
 * read (a first form kept e in the output and scaled it there, which read
 * every output line from memory before writing it: 0.58-0.68x memcpy).
 * The rows stay in the work-item's cache between the passes. Each row
 * goes through the same operations in the same order whatever ITEM_ROWS
 * is, so the results are the same bits. */
#ifndef ITEM_LOCAL
#define ITEM_LOCAL 0
#endif
#ifndef ITEM_ROWS
#define ITEM_ROWS 1
#endif
#define IR ITEM_ROWS
/* r = OP over the VW lanes of v (vncl_prelude.cl). */
#define RMAXV(x, y) RMAX(x, y)
#define ADDV(x, y) ((x) + (y))
#define HRED(OP, v, r) VNCL_HRED(ACC, VW, OP, v, r)
/* A loop over the work-item's rows, unrolled so that their values stay in
 * registers (PoCL 3.1 kept the arrays on the stack, indexed, without the
 * pragma). */
#define FOR_R _Pragma("unroll") for (int r = 0; r < IR; r++)
/* Pass 3 for vector v of every row: all the rows' loads, then all the
 * stores (see the repeated rows in softmax_rows_item). */
#define LD_ROWS(t, LOAD) \
  accv t[IR];            \
  FOR_R t[r] = LOAD
/* Vector v of row r's local copy of e: the rows' vectors interleaved, so
 * that a short row's copies are a few contiguous lines (rows ITEM_LOCAL
 * apart shared their place in a 4 KiB page: softmax over rows of 64 with 8
 * rows a work-item ran at 0.8x of 4 that way). The tail (under VW
 * elements) takes the slot of vector nv. */
#define IEV(r, v) ebase[(v) * IR + (r)]
/* The rows' tails (N % VW elements past the last whole vector), set by the
 * host from N, so that a program holds the code of its own case only (the
 * three cases in one program ran rows of 16 at 0.86x of this): 0 none
 * (rows of whole vectors), 1 element by element (rows shorter than a
 * vector, and tails of one element, which cost less that way: rows of 17
 * 0.70-0.77x memcpy against 0.62-0.72x, of 18 even), 2 the row's last VW
 * elements as one vector (OV). That vector overlaps the last whole one,
 * whose lanes it repeats: the maximum takes it whole; the sum masks the
 * repeated lanes (the first VW - (N - tail)) to zero; pass 3 stores it
 * after the whole vectors, the repeated lanes with the bits they already
 * hold (the same element through the same lane-wise operations). Element
 * by element a tail cost an exp, a load and a store each: rows of 24 read
 * 0.41-0.46x memcpy where rows of 48 read 1.46x (Zen 5, docs/ops.md,
 * twentieth pass). */
#ifndef ITEM_TAIL
#define ITEM_TAIL 1
#endif
#if ITEM_TAIL == 2 && VW > 1
#define OV 1
#else
#define OV 0
#endif
#if OV
typedef VNCL_LANEV(DTYPE, VW) lanev;
#define LDO(p) VNCL_VLOAD(DTYPE, VW, 0, (p) + (N - VW))
#define STO(p, x) VNCL_VSTORE(DTYPE, VW, (p) + (N - VW), 0, x)
#endif
/* BLOCK_OUT (set by the host): a work-item's IR rows are IR N contiguous
 * elements that make whole vectors (IR N a multiple of VW) and start on
 * one (the output's offset a multiple of VW), though the rows have a
 * tail (N % VW != 0): pass 3 then runs over the block's vectors instead of
 * each row's, a vector's lanes taking the maximum and sum (or log) of the
 * row they fall in, and stores whole aligned vectors, non-temporally with
 * BLOCK_OUT 2 (where a row's own vectors start unaligned and its tail
 * overlaps them). The last work-item's block, when it holds repeats of
 * the last row, takes the rows' own path. Softmax keeps e for it in
 * local memory as the block lays it out (BLOCK_E: row r's element i at
 * r N + i, the rows' own vectors stored there unaligned, the block's
 * vectors read back aligned), or, where the host finds no room for that
 * (ITEM_LOCAL 0), computes exp(x - m) again in pass 3. Log-softmax reads
 * no e in pass 3. The host asks for it for rows of more than a vector
 * (softmax with the copy of e, log-softmax from 2 vectors) or 4 vectors
 * (softmax computing e again): rows of 100, four a work-item in vectors
 * of 16, ran at 0.7-0.9x memcpy with the rows' ordinary stores, 1.0-1.5x
 * so (Zen 5; docs/ops.md, thirty-first pass); with e read back from local
 * memory in the block's layout, softmax over rows of 24 and 40 1.1-1.3x
 * faster again (Zen 4; thirty-second pass). */
#ifndef BLOCK_OUT
#define BLOCK_OUT 0
#endif
#if BLOCK_OUT && ITEM_LOCAL
#define BLOCK_E 1
#else
#define BLOCK_E 0
#endif
/* Row r's local copy of e: vector v (ESTV, ELDV), the last vector that
 * overlaps the whole ones (ESTO, ELDO), element i of the tail (IET). */
#if BLOCK_E
#define EB(r, i) (((__local acc *)ebase)[(IDX)(r) * N + (i)])
#define ESTV(r, v, e) CAT(vstore, VW)((e), 0, &EB(r, (IDX)(v) * VW))
#define ELDV(r, v) CAT(vload, VW)(0, &EB(r, (IDX)(v) * VW))
#define ESTO(r, e) CAT(vstore, VW)((e), 0, &EB(r, N - VW))
#define ELDO(r) CAT(vload, VW)(0, &EB(r, N - VW))
#define IET(r, i) EB(r, i)
#else
#define ESTV(r, v, e) (IEV(r, v) = (e))
#define ELDV(r, v) IEV(r, v)
#define ESTO(r, e) (IEV(r, nv) = (e))
#define ELDO(r) IEV(r, nv)
#define IET(r, i) ((__local acc *)&IEV(r, nv))[(i) - tail]
#endif
#if BLOCK_OUT
typedef VNCL_LANEV(DTYPE, VW) blkv;
#if DTYPE == 1
typedef long blk_t;
#else
typedef int blk_t;
#endif
#if BLOCK_OUT == 2 && defined(STV_NT)
#define STB(p, v, x) STV_NT(p, v, x)
#else
#define STB(p, v, x) STV(p, v, x)
#endif
/* Pass 3 over the block: EXPR of xv (the block's vector j, LOAD(j)), mm
 * and bb (the m and B[r] of the row of each lane). Row by row: the
 * vectors inside row r with its own, then the one it shares with row
 * r + 1 (N > VW: a vector spans two rows at most) with each lane's. Every vector with a select of
 * the row by lane took 9 more instructions and ran rows of 24 at 0.7-0.8x
 * of the rows' own stores. */
#define BLOCK_PASS3(LOAD, EXPR, B)                                        \
  _Pragma("unroll") for (int r = 0; r < IR; r++) {                        \
    const IDX e1 = (IDX)(r + 1) * N, j1 = e1 / VW;                        \
    {                                                                     \
      const accv mm = (accv)m[r], bb = (accv)B[r];                        \
      (void)mm;                                                           \
      for (IDX j = ((IDX)r * N + VW - 1) / VW; j < j1; j++) {             \
        const accv xv = LOAD(j);                                          \
        STB(q[0], j, EXPR);                                               \
      }                                                                   \
    }                                                                     \
    if (r + 1 < IR && e1 % VW) {                                          \
      const int rn = r + 1 < IR ? r + 1 : r;                              \
      const blkv nxt = (blkv)VNCL_IOTA(VW) >= (blkv)((blk_t)(e1 % VW));   \
      const accv mm = select((accv)m[r], (accv)m[rn], nxt);               \
      const accv bb = select((accv)B[r], (accv)B[rn], nxt);               \
      const accv xv = LOAD(j1);                                           \
      (void)mm;                                                           \
      STB(q[0], j1, EXPR);                                                \
    }                                                                     \
  }
/* The block's vector j of the input, and (BLOCK_E) of the copy of e. */
#define BLK_X(j) LDV(p[0], j)
#define BLK_E(j) (((__local accv *)ebase)[j])
#endif
#if PREFETCH_NEXT
#define PF_ITEMR(r, v) \
  if (pf[r]) __builtin_prefetch(p[r] + ahead + (IDX)(v) * VW, 0, 3)
#else
#define PF_ITEMR(r, v) (void)0
#endif
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
softmax_rows_item(const IDX N, const IDX rows, const int logmode,
                  __global const STORE *x, const IDX xoff,
                  __global STORE *out, const IDX ooff) {
#if ITEM_LOCAL
  __local accv ebuf_all[WG * IR * EVECS(ITEM_LOCAL)];
  __local accv *ebase = ebuf_all + get_local_id(0) * IR * EVECS(ITEM_LOCAL);
#endif
  const IDX row0 = (IDX)get_global_id(0) * IR;
  if (row0 >= rows) return;
  /* Rows past the last (the last work-item's, when IR does not divide
   * rows) are the last row again: the same values computed and stored to
   * the same place by the same work-item. In place (out == x), pass 3
   * therefore loads a vector of every row before it stores any (LD_ROWS),
   * and the repeats store no element-by-element tail: a repeat that
   * loaded after the row itself had stored read outputs as inputs
   * (log-softmax of 517 rows of 77 in place, ITEM_ROWS 4, got the last row
   * wrong before 2026-12-06). The tail's loop over elements within each
   * row (the loads of all rows first, element by element, ran rows of 17
   * 0.86x as fast). */
  __global const STORE *p[IR];
  __global STORE *q[IR];
  /* Pass 2 finds the rows in cache and asks for the ones PF_AHEAD
   * elements ahead (at least the next: the work-items that the same thread
   * runs next), so that their pass 1 reads from cache too (PREFETCH 1 or
   * 2). pf: that row lies inside the tensor ((rows - row - 1) * N cannot
   * overflow IDX, which holds the element count). */
  const IDX ahead = N > PF_AHEAD ? N : PF_AHEAD;
  int pf[IR];
  FOR_R {
    const IDX row = row0 + r < rows ? row0 + r : rows - 1;
    p[r] = x + xoff + row * N;
    q[r] = out + ooff + row * N;
    pf[r] = ahead <= (rows - row - 1) * N;
  }
  (void)pf;
  (void)ahead;
  const IDX nv = N / VW, tail = nv * VW;
  /* ts: where the element-by-element tail starts (N: none) */
#if ITEM_TAIL == 1
  const IDX ts = tail;
#else
  const IDX ts = N;
#endif
#if OV
  /* the lanes of the last vector past the last whole one */
  const lanev fresh = (lanev)VNCL_IOTA(VW) >= (lanev)(VW - (N - tail));
#endif
  accv mv[IR];
  FOR_R mv[r] = (accv)(-INFINITY);
  for (IDX v = 0; v < nv; v++)
    FOR_R mv[r] = RMAX(mv[r], LDV(p[r], v));
#if OV
  FOR_R mv[r] = RMAX(mv[r], LDO(p[r]));
#endif
  acc m[IR];
  FOR_R {
    HRED(RMAXV, mv[r], m[r]);
    for (IDX i = ts; i < N; i++) m[r] = RMAX(m[r], LD(p[r], i));
  }

  accv sv[IR];
  acc st[IR];
  FOR_R sv[r] = 0, st[r] = 0;
#if ITEM_LOCAL
  if (!logmode) {
    for (IDX v = 0; v < nv; v++)
      FOR_R {
        PF_ITEMR(r, v);
        const accv e = SM_EXPV(LDV(p[r], v) - m[r]);
        ESTV(r, v, e);
        sv[r] += e;
      }
#if OV
    /* the last vector's e in slot nv (which the scalar tail has else) */
    FOR_R {
      const accv e = SM_EXPV(LDO(p[r]) - m[r]);
      ESTO(r, e);
      sv[r] += select((accv)0, e, fresh);
    }
#endif
    FOR_R
      for (IDX i = ts; i < N; i++) {
        const acc e = SM_EXP1(LD(p[r], i) - m[r]);
        IET(r, i) = e;
        st[r] += e;
      }
  } else
#endif
  {
    for (IDX v = 0; v < nv; v++)
      FOR_R {
        PF_ITEMR(r, v);
        sv[r] += SM_EXPV(LDV(p[r], v) - m[r]);
      }
#if OV
    FOR_R sv[r] += select((accv)0, SM_EXPV(LDO(p[r]) - m[r]), fresh);
#endif
    FOR_R
      for (IDX i = ts; i < N; i++) st[r] += SM_EXP1(LD(p[r], i) - m[r]);
  }
  acc s[IR];
  FOR_R {
    HRED(ADDV, sv[r], s[r]);
    s[r] += st[r];
  }

  if (logmode) {
    acc ls[IR];
#if DTYPE != 1 && IR % 4 == 0
    /* four rows' logs as one vector (the same bits as SM_LOG: vncl_logf is
     * lane-wise): with short rows a scalar log per row was a third of
     * log-softmax's time (rows of 16: 0.81x memcpy against softmax's
     * 1.28x, docs/ops.md) */
    _Pragma("unroll") for (int r = 0; r < IR; r += 4) {
      const float4 s4 = (float4)(s[r], s[r + 1], s[r + 2], s[r + 3]);
      const float4 l4 = select(vncl_logf4(s4), s4, isnan(s4));
      ls[r] = l4.s0, ls[r + 1] = l4.s1, ls[r + 2] = l4.s2, ls[r + 3] = l4.s3;
    }
#else
    FOR_R ls[r] = SM_LOG(s[r]);
#endif
#if BLOCK_OUT
    if (row0 + IR <= rows) {
      BLOCK_PASS3(BLK_X, (xv - mm) - bb, ls);
      return;
    }
#endif
#if OV
    /* The last vector's x, loaded before the whole vectors are stored: in
     * place (out == x) their stores overwrite the lanes it repeats. */
    accv xo[IR];
    FOR_R xo[r] = LDO(p[r]);
#endif
    for (IDX v = 0; v < nv; v++) {
      LD_ROWS(t, LDV(p[r], v));
      FOR_R STV_OUT(q[r], v, (t[r] - m[r]) - ls[r]);
    }
#if OV
    FOR_R STO(q[r], (xo[r] - m[r]) - ls[r]);
#endif
    FOR_R
      if (row0 + r < rows) /* not the repeats (LD_ROWS) */
        for (IDX i = ts; i < N; i++)
          ST(q[r], i, (LD(p[r], i) - m[r]) - ls[r]);
  } else {
    acc inv[IR];
    FOR_R inv[r] = (acc)1 / s[r];
#if BLOCK_OUT
    if (row0 + IR <= rows) {
#if BLOCK_E
      BLOCK_PASS3(BLK_E, xv * bb, inv);
#else
      BLOCK_PASS3(BLK_X, SM_EXPV(xv - mm) * bb, inv);
#endif
      return;
    }
#endif
#if ITEM_LOCAL
    for (IDX v = 0; v < nv; v++)
      FOR_R STV_OUT(q[r], v, ELDV(r, v) * inv[r]);
#if OV
    FOR_R STO(q[r], ELDO(r) * inv[r]);
#endif
    FOR_R
      for (IDX i = ts; i < N; i++)
        ST(q[r], i, IET(r, i) * inv[r]);
#else
#if OV
    accv xo[IR]; /* as in log mode: before the whole vectors' stores */
    FOR_R xo[r] = LDO(p[r]);
#endif
    for (IDX v = 0; v < nv; v++) {
      LD_ROWS(t, LDV(p[r], v));
      FOR_R STV_OUT(q[r], v, SM_EXPV(t[r] - m[r]) * inv[r]);
    }
#if OV
    FOR_R STO(q[r], SM_EXPV(xo[r] - m[r]) * inv[r]);
#endif
    FOR_R
      if (row0 + r < rows) /* not the repeats (LD_ROWS) */
        for (IDX i = ts; i < N; i++)
          ST(q[r], i, SM_EXP1(LD(p[r], i) - m[r]) * inv[r]);
#endif
  }
}

#ifdef PACK
/* PACK_H8 (the host's, with VW 16 where the device's native vectors hold
 * 8 or 16 floats, AVX2 or AVX-512; rows of 9 to 15, and 8 and 16 where
 * they hold 8; f32 and f16): the 16 rows move between memory and the
 * 16-lane vectors of their elements as 8 x 8 squares of 8-lane vectors,
 * rows 0-7 and 8-15 apart: each row loaded as its elements 0-7 and its
 * last 8 (at its own offset: rows are not aligned; rows of 8 once), the
 * squares transposed (VNCL_SQUARE8, vncl_square8.cl) into g[k]'s low or
 * high half; on the way out the same squares back and each row stored as
 * its first and last 8 elements (the same values twice where they
 * overlap). The transpositions of whole
 * 16-lane vectors (VNCL_PACK_X for rows of 10 to 15: a shuffle a row,
 * then the 16 x 16 square) need twice AVX2's 16 registers and took half
 * the kernel's time: f32 softmax over rows of 10 ran at 0.63-0.83x
 * memcpy, 1.14-1.19x with them left out; on AVX-512 the 16-lane
 * permutes cost more than the squares' 8-lane shuffles too (docs/ops.md,
 * thirty-sixth pass).
 * The last work-item's part of 16 rows keeps the element-by-element
 * gathers and the whole-vector transpositions. */
/* (PACK_H8 is checked, and its loads and stores defined, in
 * vncl_square8.cl.) */

/* Rows of PACK elements, 2 to VW (the host passes -DPACK on CPUs, where
 * rows go to work-items): work-item g takes rows g VW .. g VW + VW - 1,
 * PACK consecutive whole vectors, transposed (VNCL_PACK_IN, vncl_prelude.cl)
 * into PACK vectors of one element of every row, so that the maximum, the
 * exponentials, their sum and the log or inverse are lane by lane, a row a
 * lane, exp computed once per element; the results are transposed back
 * (VNCL_PACK_OUT) and stored as whole vectors. softmax_rows_item took such
 * rows element by element: softmax and log-softmax over rows of 3 to 15
 * ran at 0.12-0.18x memcpy on a Zen 5 (docs/ops.md, twenty-third and
 * twenty-fourth passes). Rows of exactly VW come here only where VW is no
 * wider than the device's native vectors (the host's rule), so that the VW
 * vectors stay in registers: the item kernel paid two horizontal
 * reductions, a scalar inverse or log and a broadcast per row, softmax over
 * rows of 16 on a Zen 5 at 0.88-1.02x memcpy, log-softmax at 0.72-0.90x
 * (twenty-fifth pass). The last work-item's rows past the last repeat it
 * (gathered element by element) and are not stored. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
softmax_rows_packed(const IDX N, const IDX rows, const int logmode,
                    __global const STORE *x, const IDX xoff,
                    __global STORE *out, const IDX ooff) {
  (void)N;
  const IDX row0 = (IDX)get_global_id(0) * VW;
  if (row0 >= rows) return;
  __global const STORE *const p = x + xoff + row0 * PACK;
  __global STORE *const q = out + ooff + row0 * PACK;
  const int whole = row0 + VW <= rows;
  const IDX nr = whole ? VW : rows - row0;
  accv t[PACK], g[PACK];
#if PACK_H8
  if (whole) {
    VNCL_SQUARE8_IN(VNCL_SQUARE8_LD8, PACK, accv, g);
  } else {
    VNCL_TRANSPOSE_LOAD_PART(acc, VW, PACK, LD, p, nr, t);
    VNCL_PACK_IN(t, g);
  }
#else
  if (whole) {
    _Pragma("unroll") for (int i = 0; i < PACK; i++) t[i] = LDV(p, i);
  } else {
    VNCL_TRANSPOSE_LOAD_PART(acc, VW, PACK, LD, p, nr, t);
  }
  VNCL_PACK_IN(t, g);
#endif
  accv m = g[0];
  _Pragma("unroll") for (int k = 1; k < PACK; k++) m = RMAX(m, g[k]);
  if (logmode) {
    accv s = SM_EXPV(g[0] - m);
    _Pragma("unroll") for (int k = 1; k < PACK; k++) s += SM_EXPV(g[k] - m);
#if DTYPE == 1
    const accv ls = log(s);
#else
    const accv ls = select(CAT(vncl_logf, VW)(s), s, IS_NAN(s));
#endif
    _Pragma("unroll") for (int k = 0; k < PACK; k++) g[k] = (g[k] - m) - ls;
  } else {
    _Pragma("unroll") for (int k = 0; k < PACK; k++) g[k] = SM_EXPV(g[k] - m);
    accv s = g[0];
    _Pragma("unroll") for (int k = 1; k < PACK; k++) s += g[k];
    const accv inv = (accv)1 / s;
    _Pragma("unroll") for (int k = 0; k < PACK; k++) g[k] *= inv;
  }
#if PACK_H8
  /* Ordinary stores (rows are not aligned): faster than the squares back
   * into a private copy of the block stored as whole vectors
   * non-temporally (1.04-1.11x against 0.74-0.81x memcpy, rows of 10 as
   * AVX2 code) */
  if (whole) {
    VNCL_SQUARE8_OUT(VNCL_SQUARE8_ST8, PACK, g);
    return;
  }
#endif
  VNCL_PACK_OUT(g, t);
  if (whole) {
    _Pragma("unroll") for (int i = 0; i < PACK; i++) STV_OUT(q, i, t[i]);
  } else {
    VNCL_TRANSPOSE_STORE_PART(acc, VW, PACK, ST, q, nr, t);
  }
}
#endif

#if DTYPE == 0
/* Test hook (test_ops_reduce): out[i] = the kernels' exp of in[i], for
 * in[i] <= 0 or NaN, VW elements per work-item as in softmax_rows. */
__kernel void softmax_exp_probe(const IDX n, __global const float *in,
                                __global float *out) {
  const IDX i = (IDX)get_global_id(0) * VW;
  if (i + VW <= n) {
#if VW == 1
    out[i] = SM_EXP1(in[i]);
#else
    CAT(vstore, VW)(SM_EXPV(CAT(vload, VW)(0, in + i)), 0, out + i);
#endif
  } else {
    for (IDX j = i; j < n; j++) out[j] = SM_EXP1(in[j]);
  }
}
#endif
