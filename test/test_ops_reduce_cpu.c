/* Reductions in the CPU layout's kernels (ITEM_CONTIG), against the
 * double-precision reference of test_reduce.h: short rows a work-item or
 * VW rows a work-item (whole vectors, tails, the rows packed and
 * transposed), and the several read streams of long rows and column
 * strips (STREAMS), every operation and type. A binary of its own, split
 * from test_ops_reduce (637 s with empty caches on a Zen 5, past what the
 * suite gives a binary then), so that each builds its programs well within
 * the limit on a machine with no cache. */
/* Internal headers on purpose (before test_ops.h): the family's
 * parameters (vncl__ops_params_set) reach each kernel variant. */
#include "runtime/runtime.h"
#include "ops/ops.h"
#include "test_reduce.h"

#define ctx t_ctx /* the shared fixture's context (common.c) */

/* Short rows one per work-item (reduce_rows_item: rows of up to ROWS_ITEM,
 * enough of them for this device's groups, the host's condition from its
 * own compute units) or VW rows per work-item (reduce_rows_block: rows
 * over VW up to ROWS_BLOCK; reduce_rows_packed: rows of up to VW, by the
 * tree (2, 8; 16 with vectors of 16) or transposed (3, 5, 9; and argmax;
 * 12 and 15 with vectors of 16, each row first a vector of its own; 16,
 * argmax's square transposition; with vectors of 16 where the native
 * ones hold 8, rows of 9 to 16 and argmax's of 8 as two 8 x 8 squares):
 * rows of whole vectors, a tail of one,
 * tails of two or more (the row's last vector, overlapping the last whole
 * one: sums mask its repeated lanes), every operation, every type, with
 * NaN in the tail, in the overlap or first, +inf in the tail, a row all
 * -inf, -inf and +inf in one row (argmax's plain sum NaN without a NaN:
 * its exact second pass), -0 tying +0 as the maximum, a tie whose second
 * half is in the tail, the maximum only in the last element; a row count
 * that leaves the last block of rows short, and fewer rows than one
 * block. The device's set, the device's with the other short-row kernel,
 * then vectors of 8 with each kernel. */
/* Whether an f32 reduce.cl program for rows of `pack` was built with
 * (h8) or without the 8 x 8 squares (-DPACK_H8=1). */
static bool packed_built(int pack, bool h8) {
  const char *src[512], *opts[512];
  cl_program progs[512];
  char want[24];
  int w = snprintf(want, sizeof want, "-DPACK=%d", pack);
  int n = vncl__programs_list(ctx, src, opts, progs, 512);
  for (int i = 0; i < n && i < 512; i++) {
    const char *at = strstr(opts[i], want);
    if (!strcmp(src[i], "reduce.cl") && at && (at[w] == ' ' || !at[w]) &&
        strstr(opts[i], "-DDTYPE=0 ") &&
        (strstr(opts[i], "-DPACK_H8=1") != NULL) == h8)
      return true;
  }
  return false;
}

static void test_reduce_rows_item(void **st) {
  (void)st;
  const size_t cu = ctx->info.compute_units ? ctx->info.compute_units : 1;
  static const int64_t lens[] = {2, 3, 5, 8, 9, 12, 15, 16, 17, 24, 77, 100};
  int dev[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(ctx, VNCL__OPS_REDUCE, dev);
  for (int k = 0; k < 4; k++) {
    int set[VNCL__OPS_MAX_PARAMS];
    memcpy(set, dev, sizeof set);
    if (k >= 2) {
      /* WG, VW, ITEM_CONTIG, ROWS_ITEM, CB, STREAMS, ROWS_BLOCK,
       * ROW_STREAMS */
      static const int eight[VNCL__OPS_MAX_PARAMS] = {16, 8, 1, 1024,
                                                      4,  1, 0, 1};
      memcpy(set, eight, sizeof set);
    }
    if (k % 2) set[RED_ROWS_BLOCK] = set[RED_ROWS_BLOCK] ? 0 : 128;
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_REDUCE, k ? set : NULL));
    int p[VNCL__OPS_MAX_PARAMS];
    vncl__ops_params(ctx, VNCL__OPS_REDUCE, p);
    const int64_t rows = (int64_t)(4 * cu * (size_t)p[RED_WG]) + 3;
    /* rows of 17 and 24 under vectors of 16 in reduce_rows_block go in
     * vectors of 8 (f32 and 16-bit): whether such a program existed
     * before they ran */
    const bool vw8_rule = p[RED_VW] == 16 && p[RED_ROWS_BLOCK] >= 24 &&
                          p[RED_ROWS_ITEM] >= 24;
    const bool vw8_before = vw8_rule && t_f32_built(ctx, "reduce.cl", 8, 0);
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
      const int64_t L = lens[li];
      if (L > p[RED_ROWS_ITEM]) continue;
      /* vectors of 8: rows of 3 and 5 show their packing; 2 and 8 are
       * the device's (a program for each type and width) */
      if (k >= 2 && (L == 2 || L == 8)) continue;
      const int vw = p[RED_VW];
      for (int ti = 0; ti < 4; ti++) {
        vncl_dtype t = t_float_types[ti];
        double *xv = t_rand_vals(t, (size_t)(rows * L), -2, 2);
        for (int64_t r = 0; r < rows; r += 7) {
          double *row = xv + r * L;
          switch ((r / 7) % 9) {
            case 0: row[L - 1] = NAN; break;
            case 1: row[L > vw ? L - vw : 0] = NAN; break; /* the overlap */
            case 2: row[L - 2] = INFINITY; break;
            case 3: for (int64_t i = 0; i < L; i++) row[i] = -INFINITY; break;
            case 4: row[1] = 5, row[L - 1] = 5; break; /* a tie */
            case 5: /* both infinities: argmax's plain sum is NaN, no NaN */
              row[0] = -INFINITY, row[L - 1] = INFINITY;
              break;
            case 6: /* -0 ties +0 as the maximum: the first of them */
              for (int64_t i = 0; i < L; i++)
                row[i] = t_round(t, -1 - fabs(row[i]));
              row[L / 2] = -0.0, row[L - 1] = 0.0;
              break;
            case 7: row[0] = NAN; break; /* the first, far from the tail */
            default: row[L - 1] = 5; break;
          }
        }
        for (int op = 0; op <= VNCL_REDUCE_NORM2; op++) {
          run_reduce(t, op, 2, (int64_t[]){rows, L}, xv, 1, (int)(li % 2));
          if (L <= 16) /* fewer rows than a block (rows of 16 or fewer
                          take the short-row kernels at any count) */
            run_reduce(t, op, 2, (int64_t[]){5, L}, xv + 7 * L, 1, 0);
        }
        free(xv);
      }
    }
    if (vw8_rule && !vw8_before)
      assert_true(t_f32_built(ctx, "reduce.cl", 8, 0));
    /* the device's set: rows of exactly VW (under ROWS_BLOCK) went as
     * whole vectors, not to reduce_rows_block's loops (1.3-2.4x slower) */
    if (k == 0 && (p[RED_VW] == 8 || p[RED_VW] == 16) &&
        p[RED_ROWS_BLOCK] >= p[RED_VW] && p[RED_ROWS_ITEM] >= p[RED_VW])
      assert_true(t_f32_built(ctx, "reduce.cl", p[RED_VW], p[RED_VW]));
    /* vectors of 16 where the native vectors hold 8 (AVX2): rows of 9 to
     * 16 moved as two 8 x 8 squares (PACK_H8), rows of 8 so for argmax
     * only (the sums keep the tree); elsewhere never */
    if (k == 0 && p[RED_VW] == 16 && p[RED_ROWS_BLOCK] >= 16 &&
        p[RED_ROWS_ITEM] >= 16) {
      const bool nat8 = vncl__params_vec(ctx) == 8;
      assert_int_equal(packed_built(12, true), nat8);
      assert_int_equal(packed_built(16, true), nat8);
      assert_int_equal(packed_built(8, true), nat8);
      assert_true(packed_built(8, false)); /* the sums */
      assert_int_equal(packed_built(12, false), !nat8);
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_REDUCE, NULL));
}

/* The CPU layout's several read streams (STREAMS): every width, with
 * ranges that leave vectors and elements over (rows of 1003 and 70001, the
 * part of a row split over groups), column strips whose row count is no
 * multiple of STREAMS (301, 37, 5 rows, fewer rows than STREAMS), the last
 * strip partial, and a sum of all elements; every operation, f32, f16 and
 * f64 (the accumulation types), keepdims or not. */
static void test_reduce_streams(void **st) {
  (void)st;
  static const struct {
    int nd;
    int64_t s[3];
    int axis;
  } cases[] = {
      {2, {3, 1003}, 1},    {2, {1, 70001}, 1},  {2, {301, 2501}, 0},
      {3, {5, 37, 1030}, 1}, {2, {5, 300}, 0},   {2, {7, 33}, 0},
      {1, {100003}, INT32_MIN},
  };
  static const int streams[] = {1, 2, 4, 8}, vws[] = {16, 4, 16, 1};
  static const int row_streams[] = {8, 1, 4, 2};
  for (int k = 0; k < 4; k++) {
    /* WG, VW, ITEM_CONTIG, ROWS_ITEM, CB, STREAMS, ROWS_BLOCK 0,
     * ROW_STREAMS */
    int set[VNCL__OPS_MAX_PARAMS] = {16, vws[k], 1, 65536, 4, streams[k], 0,
                                     row_streams[k]};
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_REDUCE, set));
    for (int ti = 0; ti < 3; ti++) /* f32, f64, f16 */
      for (int op = 0; op <= VNCL_REDUCE_NORM2; op++)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
          run_reduce_random(t_float_types[ti], op, cases[c].nd, cases[c].s,
                            cases[c].axis, (int)((c + k) % 2));
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_REDUCE, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reduce_rows_item),
      cmocka_unit_test(test_reduce_streams),
  };
  t_test_filter();
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
