/* The 8 x 8 square of 8-lane float vectors, for the kernels that move
 * 16 short rows at a time as two such squares: softmax.cl's and
 * reduce.cl's PACK_H8, on CPUs whose native vectors hold 8 floats (AVX2),
 * and softmax's over rows of 9 to 15 where they hold 16 (AVX-512).
 * lib/runtime/program.c puts this file between the prelude and those
 * kernels only, so that no other program's cache key changes with it.
 *
 * VNCL_SQUARE8(r): r[0..8) (float8) transposed in place: unpacks of row
 * pairs within 128-bit halves, shufps pairings of those (each half then
 * holds four rows of one column), then the halves exchanged: 24 shuffles,
 * the AVX way. The prelude's VNCL_SQUARE(8, ..) interleaves whole vectors
 * in every round, which AVX2 code does in 128-bit pieces with spills: its
 * 16-lane form over rows of 10 took half of softmax's time (docs/ops.md,
 * thirty-sixth pass), and reductions over rows of 8 to 16 ran 1.2-2x
 * faster on these squares (thirty-seventh pass). */
#define VNCL_SQ8_(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#define VNCL_SQUARE8(r)                                                    \
  do {                                                                     \
    const float8 t0 = VNCL_SQ8_(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);     \
    const float8 t1 = VNCL_SQ8_(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);   \
    const float8 t2 = VNCL_SQ8_(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);     \
    const float8 t3 = VNCL_SQ8_(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);   \
    const float8 t4 = VNCL_SQ8_(r[4], r[5], 0, 8, 1, 9, 4, 12, 5, 13);     \
    const float8 t5 = VNCL_SQ8_(r[4], r[5], 2, 10, 3, 11, 6, 14, 7, 15);   \
    const float8 t6 = VNCL_SQ8_(r[6], r[7], 0, 8, 1, 9, 4, 12, 5, 13);     \
    const float8 t7 = VNCL_SQ8_(r[6], r[7], 2, 10, 3, 11, 6, 14, 7, 15);   \
    const float8 u0 = VNCL_SQ8_(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);         \
    const float8 u1 = VNCL_SQ8_(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);       \
    const float8 u2 = VNCL_SQ8_(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);         \
    const float8 u3 = VNCL_SQ8_(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);       \
    const float8 u4 = VNCL_SQ8_(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13);         \
    const float8 u5 = VNCL_SQ8_(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);       \
    const float8 u6 = VNCL_SQ8_(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13);         \
    const float8 u7 = VNCL_SQ8_(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);       \
    r[0] = VNCL_SQ8_(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11);                    \
    r[1] = VNCL_SQ8_(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11);                    \
    r[2] = VNCL_SQ8_(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11);                    \
    r[3] = VNCL_SQ8_(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11);                    \
    r[4] = VNCL_SQ8_(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15);                  \
    r[5] = VNCL_SQ8_(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15);                  \
    r[6] = VNCL_SQ8_(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15);                  \
    r[7] = VNCL_SQ8_(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15);                  \
  } while (0)
/* VNCL_SQUARE8_IN(LD8, P, V, g): 16 rows of P elements (8 <= P <= 16),
 * row r's 8 elements from o on loaded by LD8(r, o), into g[0..P) of the
 * 16-lane type V: lane r of g[k] element k of row r. Each half of the rows
 * (0-7, 8-15) as two squares, of the rows' elements 0-7 and of their last
 * 8 (at each row's own offset: rows need not be aligned); rows of 8 load
 * the same vectors twice, which the compiler merges. */
#define VNCL_SQUARE8_IN(LD8, P, V, g)                                      \
  do {                                                                     \
    float8 a_[2][8], b_[2][8];                                             \
    _Pragma("unroll") for (int h_ = 0; h_ < 2; h_++) {                     \
      _Pragma("unroll") for (int r_ = 0; r_ < 8; r_++) {                   \
        a_[h_][r_] = LD8(8 * h_ + r_, 0);                                  \
        b_[h_][r_] = LD8(8 * h_ + r_, (P) - 8);                            \
      }                                                                    \
      VNCL_SQUARE8(a_[h_]);                                                \
      VNCL_SQUARE8(b_[h_]);                                                \
    }                                                                      \
    _Pragma("unroll") for (int k_ = 0; k_ < (P); k_++)                     \
      (g)[k_] = k_ < 8 ? (V)(a_[0][k_], a_[1][k_])                         \
                       : (V)(b_[0][k_ + 8 - (P)], b_[1][k_ + 8 - (P)]);    \
  } while (0)
/* VNCL_SQUARE8_OUT(ST8, P, g): the way back, g[0..P) as VNCL_SQUARE8_IN
 * leaves it into 16 rows of P elements, row r's 8 elements from o on
 * stored by ST8(r, o, x): each half of the rows as the squares of g's
 * elements 0-7 and of its last 8, stored at the rows' own offsets (the
 * same values twice where the two overlap; rows of 8 one square). */
#define VNCL_SQUARE8_OUT(ST8, P, g)                                        \
  do {                                                                     \
    _Pragma("unroll") for (int h_ = 0; h_ < 2; h_++) {                     \
      float8 a_[8], b_[8];                                                 \
      _Pragma("unroll") for (int k_ = 0; k_ < 8; k_++) {                   \
        a_[k_] = h_ ? (g)[k_].hi : (g)[k_].lo;                             \
        b_[k_] = h_ ? (g)[k_ + (P) - 8].hi : (g)[k_ + (P) - 8].lo;         \
      }                                                                    \
      VNCL_SQUARE8(a_);                                                    \
      if ((P) > 8) VNCL_SQUARE8(b_);                                       \
      _Pragma("unroll") for (int r_ = 0; r_ < 8; r_++) {                   \
        ST8(8 * h_ + r_, 0, a_[r_]);                                       \
        if ((P) > 8) ST8(8 * h_ + r_, (P) - 8, b_[r_]);                    \
      }                                                                    \
    }                                                                      \
  } while (0)

/* PACK_H8, the host's -D option for both kernels (vectors of 16, rows of
 * PACK = 8 to 16 elements, f32 or f16 storage), checked here once, and
 * the loads and stores of 8 elements the two kernels hand the macros
 * above: row r's from element o on, of the work-item's rows at p (loads)
 * or q (stores), the kernels' names for their first row in and out. */
#ifndef PACK_H8
#define PACK_H8 0
#endif
#if PACK_H8
#if VW != 16 || PACK < 8 || PACK > 16 || (DTYPE != 0 && DTYPE != 2)
#error "PACK_H8 is for vectors of 16, rows of 8 to 16, f32 or f16"
#endif
#define VNCL_SQUARE8_LD8(r, o) VNCL_VLOAD(DTYPE, 8, 0, p + (r) * PACK + (o))
#define VNCL_SQUARE8_ST8(r, o, x) \
  VNCL_VSTORE(DTYPE, 8, q + (r) * PACK + (o), 0, x)
#endif
