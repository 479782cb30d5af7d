/*
 * vncl_prelude.cl - what every vncl kernel source shares: token pasting, the
 * NaN and finiteness tests, the bf16 conversions and the dtype load/store
 * block. The program builder (lib/runtime/program.c) puts this text in front
 * of every source of cl_kernels/ it compiles (then `#line 1`, so build logs
 * count the kernel file's own lines), and the binary-cache key hashes both:
 * a change here rebuilds every program. Kernel files do not include it.
 *
 * Only macros and inline functions, nothing that needs an extension: a file
 * that uses double enables cl_khr_fp64 itself (enabling it here would turn
 * every unsuffixed literal of a float kernel into a double).
 *
 * Storage types go by their vncl_dtype code, as the host passes them
 * (-DDTYPE=3, -DDTYPE_AB=2 ...):
 *
 *   code  storage  compute (VNCL_REAL)  load / store
 *   0     float    float                plain
 *   1     double   double               plain (needs cl_khr_fp64)
 *   2     half     float                vload_half / vstore_half_rte
 *   3     ushort   float                bf16: the top 16 bits of a float;
 *                                       stores round to nearest even
 *
 *   VNCL_STORAGE(D), VNCL_REAL(D)     the two types of code D
 *   VNCL_LOAD(D, p, i)                p[i] as VNCL_REAL(D)
 *   VNCL_STORE(D, p, i, x)            p[i] = x, x first converted to
 *                                     VNCL_REAL(D)
 *   VNCL_VLOAD(D, N, v, p)            elements N*v .. N*v+N-1 of p as a
 *                                     vector of N VNCL_REAL(D) (N = 2, 4,
 *                                     8 or 16)
 *   VNCL_VSTORE(D, N, p, v, x)        the N-vector x (any real type, each
 *                                     lane converted to VNCL_REAL(D)) into
 *                                     elements N*v .. N*v+N-1 of p (global
 *                                     memory)
 *
 * D and N may be macros (DTYPE, VW): they are expanded before pasting.
 */

/* ---- vectors wider than the target's registers ---------------------------
 * On a CPU without AVX-512 (an AVX2 Xeon or EPYC: PoCL compiles for haswell
 * or znver), clang warns (-Wpsabi) that a function taking or returning a
 * 512-bit vector (float16, uint16, double8 ...) has another calling
 * convention there. The kernels and these helpers are one program, all
 * inline, so no call crosses that boundary; the warning would only fail the
 * clean-build check on every such host (found with POCL_KERNELLIB_NAME=avx2
 * on the Xeon, and under valgrind, whose CPU has no AVX-512). Any clang
 * front end knows the pragma; others never see it. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif

/* ---- token pasting (macro arguments expanded first) -------------------- */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CAT3_(a, b, c) a##b##c
#define CAT3(a, b, c) CAT3_(a, b, c)

/* ---- NaN and finiteness by comparison ------------------------------------
 * x != x only for NaN, x - x == 0 only for finite x. (PoCL's isnan/isfinite
 * are calls that cost several times a Kahan step; these compile to one
 * compare, and stay exact without -cl-fast-relaxed-math.) Scalars or
 * vectors (a vector gives -1/0 lanes, for select or ?:). */
#define IS_NAN(x) ((x) != (x))
#define IS_FINITE(x) ((x) - (x) == 0)

/* ---- one value from the N lanes of a vector ------------------------------
 * r = OP over the lanes of v (a vector of N values of type T; N 1, 2, 4, 8
 * or 16), by halves: log2(N) vector operations, where the lanes through a
 * private array and a scalar loop took N of them (a short row's two
 * reductions cost as much as its elements; softmax.cl, reduce.cl). */
#define VNCL_HRED_1(T, OP, v, r) r = (v)
#define VNCL_HRED_2(T, OP, v, r) r = OP((v).x, (v).y)
#define VNCL_HRED_4(T, OP, v, r)                \
  do {                                          \
    const CAT(T, 2) h2_ = OP((v).lo, (v).hi);   \
    VNCL_HRED_2(T, OP, h2_, r);                 \
  } while (0)
#define VNCL_HRED_8(T, OP, v, r)                \
  do {                                          \
    const CAT(T, 4) h4_ = OP((v).lo, (v).hi);   \
    VNCL_HRED_4(T, OP, h4_, r);                 \
  } while (0)
#define VNCL_HRED_16(T, OP, v, r)               \
  do {                                          \
    const CAT(T, 8) h8_ = OP((v).lo, (v).hi);   \
    VNCL_HRED_8(T, OP, h8_, r);                 \
  } while (0)
#define VNCL_HRED(T, N, OP, v, r) CAT(VNCL_HRED_, N)(T, OP, v, r)

/* ---- lane numbers ----------------------------------------------------------
 * VNCL_IOTA(N): the elements of a vector literal 0, 1, .., N-1 (N 2, 4, 8,
 * 16), as in (int8)VNCL_IOTA(8); VNCL_LANEV(D, N): the integer vector that
 * a compare of N values of storage type D's compute type gives (long for
 * f64, int else), for lane masks. */
#define VNCL_IOTA_2 (0, 1)
#define VNCL_IOTA_4 (0, 1, 2, 3)
#define VNCL_IOTA_8 (0, 1, 2, 3, 4, 5, 6, 7)
#define VNCL_IOTA_16 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define VNCL_IOTA(N) CAT(VNCL_IOTA_, N)
#define VNCL_LANEV_0(N) CAT(int, N)
#define VNCL_LANEV_1(N) CAT(long, N)
#define VNCL_LANEV_2(N) CAT(int, N)
#define VNCL_LANEV_3(N) CAT(int, N)
#define VNCL_LANEV(D, N) CAT(VNCL_LANEV_, D)(N)

/* ---- N rows' values side by side -------------------------------------------
 * VNCL_ROWS_TREE(N, T, IT, C, t): t[0 .. N-1] are vectors of type T, one
 * row each (or, in the last log2(N) levels of a wider tree, each holding
 * several rows' consecutive lanes); lane r of t[0] becomes C over row r's
 * lanes (N 2, 4, 8 or 16; the other t[] are clobbered). Each step joins
 * two vectors a, b into (a's even lanes, b's even lanes) C (a's odd lanes,
 * b's odd lanes): after the first level a vector holds two rows' pairwise
 * partials, after the last N rows' results in order. N - 1 steps of two
 * constant shuffles and one C for N rows, where one row's horizontal
 * reduction (VNCL_HRED) costs log2(N) shuffles and C's and a lane's
 * extract. The lanes are moved as IT, the integer vector of T's width and
 * lane size: with float lanes LLVM took even + odd for a horizontal add and
 * split 512-bit vectors into 256-bit vhaddps (three micro-ops each, and the
 * halves' extracts): sums over rows of 4 ran at 0.72x memcpy where maxima
 * ran at 1.0-1.16x, 1.07-1.18x as integer shuffles (Zen 5, docs/ops.md,
 * twenty-third pass). Each level is spelled out, so that every index is a
 * constant without relying on the compiler to unroll two nested loops. */
#define VNCL_ROWS_HALF_(T, IT, a, b, h) \
  __builtin_astype((IT)(__builtin_astype((a), IT).h,   \
                        __builtin_astype((b), IT).h), T)
#define VNCL_ROWS_PAIR(T, IT, C, a, b)       \
  C(VNCL_ROWS_HALF_(T, IT, a, b, even),      \
    VNCL_ROWS_HALF_(T, IT, a, b, odd))
#define VNCL_ROWS_L1(T, IT, C, t) \
  (t)[0] = VNCL_ROWS_PAIR(T, IT, C, (t)[0], (t)[1])
#define VNCL_ROWS_L2(T, IT, C, t) \
  VNCL_ROWS_L1(T, IT, C, t);      \
  (t)[1] = VNCL_ROWS_PAIR(T, IT, C, (t)[2], (t)[3])
#define VNCL_ROWS_L4(T, IT, C, t)                      \
  VNCL_ROWS_L2(T, IT, C, t);                           \
  (t)[2] = VNCL_ROWS_PAIR(T, IT, C, (t)[4], (t)[5]);   \
  (t)[3] = VNCL_ROWS_PAIR(T, IT, C, (t)[6], (t)[7])
#define VNCL_ROWS_L8(T, IT, C, t)                       \
  VNCL_ROWS_L4(T, IT, C, t);                            \
  (t)[4] = VNCL_ROWS_PAIR(T, IT, C, (t)[8], (t)[9]);    \
  (t)[5] = VNCL_ROWS_PAIR(T, IT, C, (t)[10], (t)[11]);  \
  (t)[6] = VNCL_ROWS_PAIR(T, IT, C, (t)[12], (t)[13]);  \
  (t)[7] = VNCL_ROWS_PAIR(T, IT, C, (t)[14], (t)[15])
#define VNCL_ROWS_TREE_2(T, IT, C, t) VNCL_ROWS_L1(T, IT, C, t)
#define VNCL_ROWS_TREE_4(T, IT, C, t) \
  do {                                \
    VNCL_ROWS_L2(T, IT, C, t);        \
    VNCL_ROWS_L1(T, IT, C, t);        \
  } while (0)
#define VNCL_ROWS_TREE_8(T, IT, C, t) \
  do {                                \
    VNCL_ROWS_L4(T, IT, C, t);        \
    VNCL_ROWS_L2(T, IT, C, t);        \
    VNCL_ROWS_L1(T, IT, C, t);        \
  } while (0)
#define VNCL_ROWS_TREE_16(T, IT, C, t) \
  do {                                 \
    VNCL_ROWS_L8(T, IT, C, t);         \
    VNCL_ROWS_L4(T, IT, C, t);         \
    VNCL_ROWS_L2(T, IT, C, t);         \
    VNCL_ROWS_L1(T, IT, C, t);         \
  } while (0)
#define VNCL_ROWS_TREE(N, T, IT, C, t) CAT(VNCL_ROWS_TREE_, N)(T, IT, C, t)

/* ---- short rows transposed ---------------------------------------------
 * W rows of P elements (2 <= P < W <= 16; W 4, 8 or 16) are P whole
 * vectors t[0 .. P-1] of W lanes (element k of row r is lane (r P + k) % W
 * of vector (r P + k) / W). VNCL_TRANSPOSE_IN(W, P, t, g) sets g[k], lane
 * r, to element k of row r, so that the rows' work is lane by lane;
 * VNCL_TRANSPOSE_OUT(W, P, g, t) is its inverse. Each output vector takes
 * one constant two-source shuffle per input vector (the lanes that one
 * holds, the others kept): P^2 shuffles each way, against a row a vector
 * in narrower vectors, a row paying a load, a horizontal reduction and a
 * store of a few lanes (reduce.cl, softmax.cl).
 * VNCL_TRANSPOSE_LOAD_PART(A, W, P, LD, p, nr, t): the P vectors t[] of
 * the W rows at p when only the first nr (1 <= nr < W) exist, the
 * missing rows repeating row nr - 1: element by element through LD(p, i)
 * into a private array of A, read back as whole vectors. */
#define VNCL_TIN_I_(P, W, k, j, r) \
  ((((r) * (P) + (k)) / (W) == (j)) ? (W) + ((r) * (P) + (k)) % (W) : (r))
#define VNCL_TOUT_I_(P, W, j, k, l) \
  ((((j) * (W) + (l)) % (P) == (k)) ? (W) + ((j) * (W) + (l)) / (P) : (l))
#define VNCL_TL4_(I, P, W, a, b, l) \
  I(P, W, a, b, l), I(P, W, a, b, (l) + 1), I(P, W, a, b, (l) + 2), \
      I(P, W, a, b, (l) + 3)
#define VNCL_TLANES_4(I, P, a, b) VNCL_TL4_(I, P, 4, a, b, 0)
#define VNCL_TLANES_8(I, P, a, b) \
  VNCL_TL4_(I, P, 8, a, b, 0), VNCL_TL4_(I, P, 8, a, b, 4)
#define VNCL_TLANES_16(I, P, a, b)                                \
  VNCL_TL4_(I, P, 16, a, b, 0), VNCL_TL4_(I, P, 16, a, b, 4),     \
      VNCL_TL4_(I, P, 16, a, b, 8), VNCL_TL4_(I, P, 16, a, b, 12)
/* F(a, b, c, d, e, i) for i = 0 .. N-1 (VNCL_SEQ), F(a, b, c, d, i)
 * (VNCL_SEQO: a second family, so that one may expand the other) */
#define VNCL_SEQ_1(F, a, b, c, d, e) F(a, b, c, d, e, 0)
#define VNCL_SEQ_2(F, a, b, c, d, e) \
  VNCL_SEQ_1(F, a, b, c, d, e) F(a, b, c, d, e, 1)
#define VNCL_SEQ_3(F, a, b, c, d, e) \
  VNCL_SEQ_2(F, a, b, c, d, e) F(a, b, c, d, e, 2)
#define VNCL_SEQ_4(F, a, b, c, d, e) \
  VNCL_SEQ_3(F, a, b, c, d, e) F(a, b, c, d, e, 3)
#define VNCL_SEQ_5(F, a, b, c, d, e) \
  VNCL_SEQ_4(F, a, b, c, d, e) F(a, b, c, d, e, 4)
#define VNCL_SEQ_6(F, a, b, c, d, e) \
  VNCL_SEQ_5(F, a, b, c, d, e) F(a, b, c, d, e, 5)
#define VNCL_SEQ_7(F, a, b, c, d, e) \
  VNCL_SEQ_6(F, a, b, c, d, e) F(a, b, c, d, e, 6)
#define VNCL_SEQ_8(F, a, b, c, d, e) \
  VNCL_SEQ_7(F, a, b, c, d, e) F(a, b, c, d, e, 7)
#define VNCL_SEQ_9(F, a, b, c, d, e) \
  VNCL_SEQ_8(F, a, b, c, d, e) F(a, b, c, d, e, 8)
#define VNCL_SEQ_10(F, a, b, c, d, e) \
  VNCL_SEQ_9(F, a, b, c, d, e) F(a, b, c, d, e, 9)
#define VNCL_SEQ_11(F, a, b, c, d, e) \
  VNCL_SEQ_10(F, a, b, c, d, e) F(a, b, c, d, e, 10)
#define VNCL_SEQ_12(F, a, b, c, d, e) \
  VNCL_SEQ_11(F, a, b, c, d, e) F(a, b, c, d, e, 11)
#define VNCL_SEQ_13(F, a, b, c, d, e) \
  VNCL_SEQ_12(F, a, b, c, d, e) F(a, b, c, d, e, 12)
#define VNCL_SEQ_14(F, a, b, c, d, e) \
  VNCL_SEQ_13(F, a, b, c, d, e) F(a, b, c, d, e, 13)
#define VNCL_SEQ_15(F, a, b, c, d, e) \
  VNCL_SEQ_14(F, a, b, c, d, e) F(a, b, c, d, e, 14)
#define VNCL_SEQ_16(F, a, b, c, d, e) \
  VNCL_SEQ_15(F, a, b, c, d, e) F(a, b, c, d, e, 15)
#define VNCL_SEQ(N, F, a, b, c, d, e) CAT(VNCL_SEQ_, N)(F, a, b, c, d, e)
#define VNCL_SEQO_1(F, a, b, c, d) F(a, b, c, d, 0)
#define VNCL_SEQO_2(F, a, b, c, d) \
  VNCL_SEQO_1(F, a, b, c, d) F(a, b, c, d, 1)
#define VNCL_SEQO_3(F, a, b, c, d) \
  VNCL_SEQO_2(F, a, b, c, d) F(a, b, c, d, 2)
#define VNCL_SEQO_4(F, a, b, c, d) \
  VNCL_SEQO_3(F, a, b, c, d) F(a, b, c, d, 3)
#define VNCL_SEQO_5(F, a, b, c, d) \
  VNCL_SEQO_4(F, a, b, c, d) F(a, b, c, d, 4)
#define VNCL_SEQO_6(F, a, b, c, d) \
  VNCL_SEQO_5(F, a, b, c, d) F(a, b, c, d, 5)
#define VNCL_SEQO_7(F, a, b, c, d) \
  VNCL_SEQO_6(F, a, b, c, d) F(a, b, c, d, 6)
#define VNCL_SEQO_8(F, a, b, c, d) \
  VNCL_SEQO_7(F, a, b, c, d) F(a, b, c, d, 7)
#define VNCL_SEQO_9(F, a, b, c, d) \
  VNCL_SEQO_8(F, a, b, c, d) F(a, b, c, d, 8)
#define VNCL_SEQO_10(F, a, b, c, d) \
  VNCL_SEQO_9(F, a, b, c, d) F(a, b, c, d, 9)
#define VNCL_SEQO_11(F, a, b, c, d) \
  VNCL_SEQO_10(F, a, b, c, d) F(a, b, c, d, 10)
#define VNCL_SEQO_12(F, a, b, c, d) \
  VNCL_SEQO_11(F, a, b, c, d) F(a, b, c, d, 11)
#define VNCL_SEQO_13(F, a, b, c, d) \
  VNCL_SEQO_12(F, a, b, c, d) F(a, b, c, d, 12)
#define VNCL_SEQO_14(F, a, b, c, d) \
  VNCL_SEQO_13(F, a, b, c, d) F(a, b, c, d, 13)
#define VNCL_SEQO_15(F, a, b, c, d) \
  VNCL_SEQO_14(F, a, b, c, d) F(a, b, c, d, 14)
#define VNCL_SEQO(N, F, a, b, c, d) CAT(VNCL_SEQO_, N)(F, a, b, c, d)
#define VNCL_TIN_STEP_(W, P, t, g, k, j)                       \
  (g)[k] = __builtin_shufflevector((g)[k], (t)[j],            \
                                   CAT(VNCL_TLANES_, W)(VNCL_TIN_I_, P, k, j));
#define VNCL_TIN_ONE_(W, P, t, g, k) \
  (g)[k] = (t)[0];                   \
  VNCL_SEQ(P, VNCL_TIN_STEP_, W, P, t, g, k)
#define VNCL_TRANSPOSE_IN(W, P, t, g) VNCL_SEQO(P, VNCL_TIN_ONE_, W, P, t, g)
#define VNCL_TOUT_STEP_(W, P, g, t, j, k)                      \
  (t)[j] = __builtin_shufflevector((t)[j], (g)[k],            \
                                   CAT(VNCL_TLANES_, W)(VNCL_TOUT_I_, P, j, k));
#define VNCL_TOUT_ONE_(W, P, g, t, j) \
  (t)[j] = (g)[0];                    \
  VNCL_SEQ(P, VNCL_TOUT_STEP_, W, P, g, t, j)
#define VNCL_TRANSPOSE_OUT(W, P, g, t) \
  VNCL_SEQO(P, VNCL_TOUT_ONE_, W, P, g, t)
/* VNCL_TRANSPOSE_POW2_IN(W, P, t, g) / _OUT(W, P, g, t): the same for P a
 * power of two (2 <= P <= W) in P log2(P) shuffles each way, against P^2.
 * Element k of row r sits at bits (r, k) of its place, vector then lane
 * (log2 P bits of vector, log2 W of lane); g[k] lane r is place (k, r), the
 * bits rotated right by log2(P). A round of unzips (w[i] the even lanes of
 * v[2i], v[2i+1], w[i + P/2] the odd) rotates them right by one, a round of
 * zips (w[2i], w[2i+1] the lanes of v[i] and v[i + P/2] interleaved) left by
 * one: log2(P) unzip rounds in, log2(P) zip rounds out. For P = W (vector r
 * row r) that is the square transposition, VNCL_SQUARE(W, v, w) (v[] in
 * place, w[] W vectors of scratch). */
#define VNCL_LOG2_2 1
#define VNCL_LOG2_4 2
#define VNCL_LOG2_8 3
#define VNCL_LOG2_16 4
/* lane l of a zip of the low (h 0) or high (h 1) halves of two W-lane
 * vectors, and of an unzip taking their even (o 0) or odd (o 1) lanes, as
 * __builtin_shufflevector indices (W and on: the second vector) */
#define VNCL_ZIP_I_(h, W, u1, u2, l) \
  ((l) % 2 ? (W) + (h) * (W) / 2 + (l) / 2 : (h) * (W) / 2 + (l) / 2)
#define VNCL_UNZIP_I_(o, W, u1, u2, l) (2 * (l) + (o))
/* R rounds over the P vectors v[] (w[] scratch, the result back in v[]) */
#define VNCL_UNZIPS_(W, P, R, v, w)                                        \
  _Pragma("unroll") for (int r_ = 0; r_ < (R); r_++) {                     \
    _Pragma("unroll") for (int i_ = 0; i_ < (P) / 2; i_++) {               \
      (w)[i_] = __builtin_shufflevector(                                   \
          (v)[2 * i_], (v)[2 * i_ + 1],                                    \
          CAT(VNCL_TLANES_, W)(VNCL_UNZIP_I_, 0, 0, 0));                   \
      (w)[i_ + (P) / 2] = __builtin_shufflevector(                         \
          (v)[2 * i_], (v)[2 * i_ + 1],                                    \
          CAT(VNCL_TLANES_, W)(VNCL_UNZIP_I_, 1, 0, 0));                   \
    }                                                                      \
    _Pragma("unroll") for (int i_ = 0; i_ < (P); i_++) (v)[i_] = (w)[i_];  \
  }
#define VNCL_ZIPS_(W, P, R, v, w)                                          \
  _Pragma("unroll") for (int r_ = 0; r_ < (R); r_++) {                     \
    _Pragma("unroll") for (int i_ = 0; i_ < (P) / 2; i_++) {               \
      (w)[2 * i_] = __builtin_shufflevector(                               \
          (v)[i_], (v)[i_ + (P) / 2],                                      \
          CAT(VNCL_TLANES_, W)(VNCL_ZIP_I_, 0, 0, 0));                     \
      (w)[2 * i_ + 1] = __builtin_shufflevector(                           \
          (v)[i_], (v)[i_ + (P) / 2],                                      \
          CAT(VNCL_TLANES_, W)(VNCL_ZIP_I_, 1, 0, 0));                     \
    }                                                                      \
    _Pragma("unroll") for (int i_ = 0; i_ < (P); i_++) (v)[i_] = (w)[i_];  \
  }
#define VNCL_SQUARE(W, v, w)                       \
  do {                                             \
    VNCL_ZIPS_(W, W, CAT(VNCL_LOG2_, W), v, w)     \
  } while (0)
/* s[0 .. P) copied to d[], then ROUNDS(W, P, log2 P, d, scratch) */
#define VNCL_POW2_(ROUNDS, W, P, s, d)                               \
  do {                                                               \
    __typeof__((s)[0]) w_[P];                                        \
    _Pragma("unroll") for (int k_ = 0; k_ < (P); k_++)               \
      (d)[k_] = (s)[k_];                                             \
    ROUNDS(W, P, CAT(VNCL_LOG2_, P), d, w_);                         \
  } while (0)
#define VNCL_TRANSPOSE_POW2_IN(W, P, t, g) \
  VNCL_POW2_(VNCL_UNZIPS_, W, P, t, g)
#define VNCL_TRANSPOSE_POW2_OUT(W, P, g, t) \
  VNCL_POW2_(VNCL_ZIPS_, W, P, g, t)
/* VNCL_TRANSPOSE_X_IN(P, t, g) / VNCL_TRANSPOSE_X_OUT(P, g, t): the same
 * for W 16 and 9 <= P < 16 in fewer shuffles (taken from P = 10 on:
 * VNCL_PACK_X): each row to a vector of its own (lane l element l, lanes
 * from P on its element 0 again; one two-source shuffle a row, a row
 * spanning at most two vectors), the 16 x 16 block transposed
 * (VNCL_SQUARE, 64 shuffles), g[k] = the first P vectors; back the same
 * way, each of the P vectors gathered from the two or three row vectors
 * its 16 elements come from. About 176 shuffles both ways, against 2 P^2
 * (450 for rows of 15). */
/* whether a kernel takes VNCL_TRANSPOSE_X_IN / _OUT for W rows of P */
#define VNCL_PACK_X(W, P) ((W) == 16 && (P) >= 10)
#define VNCL_TX_E_(P, r, l) ((r) * (P) + ((l) < (P) ? (l) : 0))
#define VNCL_TX_I_(P, W, r, u, l)                          \
  ((VNCL_TX_E_(P, r, l) / 16 == (r) * (P) / 16)            \
       ? VNCL_TX_E_(P, r, l) % 16                         \
       : 16 + VNCL_TX_E_(P, r, l) % 16)
#define VNCL_TX_NEXT_(P, j) ((j) + 1 < (P) ? (j) + 1 : (P) - 1)
#define VNCL_TX_ROW_(P, t, v, u1, u2, r)                                \
  (v)[r] = __builtin_shufflevector(                                     \
      (t)[(r) * (P) / 16], (t)[VNCL_TX_NEXT_(P, (r) * (P) / 16)],       \
      VNCL_TLANES_16(VNCL_TX_I_, P, r, 0));
#define VNCL_TRANSPOSE_X_IN(P, t, g)                              \
  do {                                                            \
    __typeof__((t)[0]) v_[16], w_[16];                            \
    VNCL_SEQ(16, VNCL_TX_ROW_, P, t, v_, 0, 0)                    \
    VNCL_SQUARE(16, v_, w_);                                      \
    _Pragma("unroll") for (int k_ = 0; k_ < (P); k_++)            \
      (g)[k_] = v_[k_];                                           \
  } while (0)
/* output vector j, lane l: element i = 16 j + l, row i / P, lane i % P of
 * that row's vector; the rows from (16 j) / P on, up to three */
#define VNCL_TXO_I_(P, W, j, s, l)                                        \
  ((16 * (j) + (l)) / (P) == (16 * (j)) / (P) + (s)                       \
       ? 16 + (16 * (j) + (l)) % (P)                                      \
       : (l))
#define VNCL_TXO_ROW_(P, j, s) \
  ((16 * (j)) / (P) + (s) < 16 ? (16 * (j)) / (P) + (s) : 15)
#define VNCL_TX_OUT_(P, v, t, u1, u2, j)                                  \
  (t)[j] = __builtin_shufflevector((v)[VNCL_TXO_ROW_(P, j, 0)],           \
                                   (v)[VNCL_TXO_ROW_(P, j, 0)],           \
                                   VNCL_TLANES_16(VNCL_TXO_I_, P, j, 0)); \
  (t)[j] = __builtin_shufflevector((t)[j], (v)[VNCL_TXO_ROW_(P, j, 1)],   \
                                   VNCL_TLANES_16(VNCL_TXO_I_, P, j, 1)); \
  (t)[j] = __builtin_shufflevector((t)[j], (v)[VNCL_TXO_ROW_(P, j, 2)],   \
                                   VNCL_TLANES_16(VNCL_TXO_I_, P, j, 2));
#define VNCL_TRANSPOSE_X_OUT(P, g, t)                             \
  do {                                                            \
    __typeof__((t)[0]) v_[16], w_[16];                            \
    _Pragma("unroll") for (int k_ = 0; k_ < 16; k_++)             \
      v_[k_] = (g)[k_ < (P) ? k_ : 0];                            \
    VNCL_SQUARE(16, v_, w_);                                      \
    VNCL_SEQ(P, VNCL_TX_OUT_, P, v_, t, 0, 0)                     \
  } while (0)
#define VNCL_TRANSPOSE_LOAD_PART(A, W, P, LD, p, nr, t)          \
  do {                                                           \
    A e_[(W) * (P)];                                             \
    for (int i_ = 0; i_ < (W) * (P); i_++) {                     \
      const int r_ = min(i_ / (P), (int)(nr) - 1);               \
      e_[i_] = LD(p, r_ * (P) + i_ % (P));                       \
    }                                                            \
    _Pragma("unroll") for (int i_ = 0; i_ < (P); i_++)           \
      (t)[i_] = CAT(vload, W)(i_, e_);                           \
  } while (0)

/* VNCL_TRANSPOSE_STORE_PART(A, W, P, ST, q, nr, t): the inverse of
 * VNCL_TRANSPOSE_LOAD_PART: the first nr rows of the P vectors t[] stored
 * element by element through ST(q, i, x), the rest not. */
#define VNCL_TRANSPOSE_STORE_PART(A, W, P, ST, q, nr, t)         \
  do {                                                           \
    A e_[(W) * (P)];                                             \
    _Pragma("unroll") for (int i_ = 0; i_ < (P); i_++)           \
      CAT(vstore, W)((t)[i_], i_, e_);                           \
    for (int i_ = 0; i_ < (int)(nr) * (P); i_++)                 \
      ST(q, i_, e_[i_]);                                         \
  } while (0)

/* ---- VW rows of PACK elements as PACK vectors ---------------------------
 * For the kernels built with -DPACK (and the host's -DVW; reduce.cl,
 * softmax.cl): VNCL_PACK_IN(t, g) turns the PACK whole vectors t[] holding
 * VW rows of PACK elements into PACK vectors g[k], lane r element k of row
 * r; VNCL_PACK_OUT(g, t) is its inverse. The cheapest transposition that
 * fits: by zips for PACK a power of two (P log2 P shuffles), the row
 * vectors' square for vectors of 16 and rows of 10 to 15, else one
 * shuffle per pair of vectors (P^2). */
#if defined(PACK) && defined(VW)
#if (PACK & (PACK - 1)) == 0
#define VNCL_PACK_IN(t, g) VNCL_TRANSPOSE_POW2_IN(VW, PACK, t, g)
#define VNCL_PACK_OUT(g, t) VNCL_TRANSPOSE_POW2_OUT(VW, PACK, g, t)
#elif VNCL_PACK_X(VW, PACK)
#define VNCL_PACK_IN(t, g) VNCL_TRANSPOSE_X_IN(PACK, t, g)
#define VNCL_PACK_OUT(g, t) VNCL_TRANSPOSE_X_OUT(PACK, g, t)
#else
#define VNCL_PACK_IN(t, g) VNCL_TRANSPOSE_IN(VW, PACK, t, g)
#define VNCL_PACK_OUT(g, t) VNCL_TRANSPOSE_OUT(VW, PACK, g, t)
#endif
#endif

/* ---- bf16 <-> float --------------------------------------------------------
 * vncl_bf16_to_float[N](ushort[N])  exact: the bits become the top half.
 * vncl_float[N]_to_bf16(float[N])   round to nearest even on the float bits;
 *                                   a NaN stays a (quiet) NaN, infinities
 *                                   stay infinite, overflow rounds to inf.
 * N empty (scalar), 2, 4, 8 or 16. The NaN test is on the bits, so it holds
 * under any math flags. */
#define VNCL_BF16_CONVERSIONS(N)                                              \
  inline CAT(float, N) CAT(vncl_bf16_to_float, N)(CAT(ushort, N) u) {         \
    return CAT(as_float, N)(CAT(convert_uint, N)(u) << 16);                   \
  }                                                                           \
  inline CAT(ushort, N) CAT3(vncl_float, N, _to_bf16)(CAT(float, N) f) {      \
    CAT(uint, N) u = CAT(as_uint, N)(f);                                      \
    CAT(uint, N) r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;                  \
    CAT(uint, N) q = (u >> 16) | 0x40u;                                       \
    return CAT(convert_ushort, N)((u & 0x7fffffffu) > 0x7f800000u ? q : r);  \
  }
VNCL_BF16_CONVERSIONS()
VNCL_BF16_CONVERSIONS(2)
VNCL_BF16_CONVERSIONS(4)
VNCL_BF16_CONVERSIONS(8)
VNCL_BF16_CONVERSIONS(16)

/* ---- dtype load/store ------------------------------------------------------ */
#define VNCL_STORAGE_0 float
#define VNCL_STORAGE_1 double
#define VNCL_STORAGE_2 half
#define VNCL_STORAGE_3 ushort
#define VNCL_STORAGE(D) CAT(VNCL_STORAGE_, D)

#define VNCL_REAL_0 float
#define VNCL_REAL_1 double
#define VNCL_REAL_2 float
#define VNCL_REAL_3 float
#define VNCL_REAL(D) CAT(VNCL_REAL_, D)

#define VNCL_LOAD_0(p, i) ((p)[i])
#define VNCL_LOAD_1(p, i) ((p)[i])
#if defined(__clang__) && defined(__F16C__)
/* One half to float by the F16C conversion (vcvtph2ps): PoCL 3.1's scalar
 * vload_half is a software conversion of about 20 integer instructions,
 * which made every element broadcast from an f16 A cost more than the FMAs
 * it fed (perf, gemm_small batches of f16 64^3 on the Zen 4 EPYC). Exact,
 * as vload_half: subnormals, infinities and NaNs convert alike. */
inline float vncl_half_bits_to_float(ushort u) {
  typedef short vncl_short8_ __attribute__((__vector_size__(16)));
  typedef float vncl_float4_ __attribute__((__vector_size__(16)));
  vncl_short8_ h = {(short)u, 0, 0, 0, 0, 0, 0, 0};
  vncl_float4_ f = __builtin_ia32_vcvtph2ps(h);
  return f[0];
}
#define VNCL_LOAD_2(p, i) \
  vncl_half_bits_to_float(((const __global ushort *)(p))[i])
#else
#define VNCL_LOAD_2(p, i) vload_half((i), (p))
#endif
#define VNCL_LOAD_3(p, i) vncl_bf16_to_float((p)[i])
#define VNCL_LOAD(D, p, i) CAT(VNCL_LOAD_, D)(p, i)

#define VNCL_STORE_0(p, i, x) ((p)[i] = (float)(x))
#define VNCL_STORE_1(p, i, x) ((p)[i] = (double)(x))
#define VNCL_STORE_2(p, i, x) vstore_half_rte((float)(x), (i), (p))
#define VNCL_STORE_3(p, i, x) ((p)[i] = vncl_float_to_bf16((float)(x)))
#define VNCL_STORE(D, p, i, x) CAT(VNCL_STORE_, D)(p, i, x)

#define VNCL_VLOAD_0(N, v, p) CAT(vload, N)((v), (p))
#define VNCL_VLOAD_1(N, v, p) CAT(vload, N)((v), (p))
#define VNCL_VLOAD_2(N, v, p) CAT(vload_half, N)((v), (p))
#define VNCL_VLOAD_3(N, v, p) \
  CAT(vncl_bf16_to_float, N)(CAT(vload, N)((v), (p)))
#define VNCL_VLOAD(D, N, v, p) CAT(VNCL_VLOAD_, D)(N, v, p)

/* VNCL_VSTORE_RAW(T, N, x, v, p): vstoreN of the T vector x into global
 * memory. Where the compiler targets AVX-512, through a vector type
 * aligned to its element: one unaligned store, where PoCL's vstore16 of
 * floats became three (16 + 16 + 32 bytes) and softmax over rows of 24
 * and 64 ran 3-15% slower for it. As AVX2 code the same store was slower
 * than vstore16 (rows of 24: 33-44 ms against 30-33), so vstoreN stays
 * there and everywhere else (docs/ops.md, twenty-sixth pass). */
#if defined(__clang__) && defined(__AVX512F__)
#define VNCL_UVEC_(T, N)                     \
  typedef T vncl_u_##T##N                    \
      __attribute__((ext_vector_type(N), aligned(sizeof(T))));
VNCL_UVEC_(float, 2) VNCL_UVEC_(float, 4) VNCL_UVEC_(float, 8)
VNCL_UVEC_(float, 16) VNCL_UVEC_(double, 2) VNCL_UVEC_(double, 4)
VNCL_UVEC_(double, 8) VNCL_UVEC_(double, 16) VNCL_UVEC_(ushort, 2)
VNCL_UVEC_(ushort, 4) VNCL_UVEC_(ushort, 8) VNCL_UVEC_(ushort, 16)
#define VNCL_VSTORE_RAW(T, N, x, v, p) \
  (((__global CAT3(vncl_u_, T, N) *)(p))[v] = (x))
#else
#define VNCL_VSTORE_RAW(T, N, x, v, p) CAT(vstore, N)((x), (v), (p))
#endif
#define VNCL_VSTORE_0(N, p, v, x) \
  VNCL_VSTORE_RAW(float, N, CAT(convert_float, N)(x), v, p)
#define VNCL_VSTORE_1(N, p, v, x) \
  VNCL_VSTORE_RAW(double, N, CAT(convert_double, N)(x), v, p)
#define VNCL_VSTORE_2(N, p, v, x) \
  CAT3(vstore_half, N, _rte)(CAT(convert_float, N)(x), (v), (p))
#define VNCL_VSTORE_3(N, p, v, x)                                          \
  VNCL_VSTORE_RAW(ushort, N,                                               \
                  CAT3(vncl_float, N, _to_bf16)(CAT(convert_float, N)(x)), \
                  v, p)
#define VNCL_VSTORE(D, N, p, v, x) CAT(VNCL_VSTORE_, D)(N, p, v, x)
