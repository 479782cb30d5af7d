/* Transpose and permutations of axes: 2-D and batched transposes of odd
 * sizes through the tiled kernel (edges of partial tiles) and the gather
 * (short axes), every permutation of a 3-D tensor, random permutations up
 * to 6-D with axes of size 1, every element size, other tile shapes, and
 * bad inputs. Results are compared exactly. */
#include "test_ops.h"

/* Internal headers on purpose: sets the family's parameters
 * (vncl__ops_params_set) to reach each kernel variant. */
#include "runtime/runtime.h"
#include "ops/ops.h"

#define ctx t_ctx /* the shared fixture's context (common.c) */

static const vncl_dtype all_types[5] = {VNCL_F32, VNCL_F64, VNCL_F16,
                                        VNCL_BF16, VNCL_I32};

static void run_permute(vncl_dtype t, int nd, const int64_t *shape,
                        const int *perm, int via_transpose) {
  size_t n = t_numel(nd, shape);
  int64_t oshape[VNCL_MAX_DIMS];
  for (int j = 0; j < nd; j++) oshape[j] = shape[perm[j]];
  double *in = malloc((n ? n : 1) * sizeof *in);
  for (size_t i = 0; i < n; i++)
    in[i] = t == VNCL_I32 ? (double)(int32_t)(t_rand_u64() >> 33)
                          : t_round(t, t_rand_uniform(-100, 100));
  vncl_tensor *x = t_new(ctx, t, nd, shape), *o = t_new(ctx, t, nd, oshape);
  t_write(ctx, x, in);
  t_poison(ctx, o);
  if (via_transpose) T_OK(ctx, vncl_transpose(ctx, x, o));
  else T_OK(ctx, vncl_permute(ctx, x, perm, o));
  double *got = t_read(ctx, o), *ref = malloc((n ? n : 1) * sizeof *ref);
  /* out[o] = in[sum of c_j * in_stride[perm[j]]] */
  size_t istr[VNCL_MAX_DIMS], acc = 1;
  for (int i = nd - 1; i >= 0; i--) istr[i] = acc, acc *= (size_t)shape[i];
  for (size_t f = 0; f < n; f++) {
    size_t r = f, ii = 0;
    for (int j = nd - 1; j >= 0; j--) {
      ii += (r % (size_t)oshape[j]) * istr[perm[j]];
      r /= (size_t)oshape[j];
    }
    ref[f] = in[ii];
  }
  char what[128], sh[64];
  int k = 0;
  for (int j = 0; j < nd; j++)
    k += snprintf(sh + k, sizeof sh - (size_t)k, "%s%lld/%d", j ? "," : "",
                  (long long)shape[j], perm[j]);
  snprintf(what, sizeof what, "permute %s [%s]", vncl_dtype_name(t), sh);
  t_check(what, n, got, ref, 0, 0);
  free(in), free(got), free(ref);
  vncl_tensor_destroy(x), vncl_tensor_destroy(o);
}

static void test_transpose_2d(void **st) {
  (void)st;
  static const int64_t shapes[][2] = {{1, 1},   {3, 5},    {37, 53},
                                      {64, 64}, {1000, 3}, {257, 129},
                                      {2, 999}, {1, 77}};
  int perm[2] = {1, 0};
  for (int ti = 0; ti < 5; ti++)
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      run_permute(all_types[ti], 2, shapes[s], perm, (int)(s % 2));
}

static void test_transpose_batched(void **st) {
  (void)st;
  int64_t s3[3] = {5, 33, 17}, s4[4] = {2, 3, 40, 9};
  int64_t s3l[3] = {3, 130, 67}, s4l[4] = {2, 3, 65, 129};
  int p3[3] = {0, 2, 1}, p4[4] = {0, 1, 3, 2};
  for (int ti = 0; ti < 5; ti++) {
    run_permute(all_types[ti], 3, s3, p3, 1);
    run_permute(all_types[ti], 4, s4, p4, 0);
    run_permute(all_types[ti], 3, s3l, p3, 0); /* whole tiles too */
    run_permute(all_types[ti], 4, s4l, p4, 1);
  }
}

static void test_permute_3d_all(void **st) {
  (void)st;
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                  {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  int64_t s[3] = {6, 35, 19};
  for (int ti = 0; ti < 5; ti += 2) /* element sizes 4, 2, 4 */
    for (int p = 0; p < 6; p++) run_permute(all_types[ti], 3, s, perms[p], 0);
  for (int p = 0; p < 6; p++) run_permute(VNCL_F64, 3, s, perms[p], 0);
  /* Axes long enough for whole 64 x 64 tiles, and edges, in every
   * permutation. */
  int64_t sl[3] = {70, 3, 131};
  for (int p = 0; p < 6; p++) run_permute(VNCL_F32, 3, sl, perms[p], 0);
  /* The innermost axis kept, rows longer than one work-item's run. */
  int64_t sr[3] = {4, 3, 600};
  for (int ti = 0; ti < 5; ti++)
    run_permute(all_types[ti], 3, sr, perms[2], 0);
}

static void shuffle(int *p, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(t_rand_u64() % (uint64_t)(i + 1)), tmp = p[i];
    p[i] = p[j], p[j] = tmp;
  }
}

static void test_permute_random(void **st) {
  (void)st;
  for (int trial = 0; trial < 40; trial++) {
    int nd = 2 + trial % 5; /* 2 .. 6 */
    int64_t shape[VNCL_MAX_DIMS];
    size_t n = 1;
    for (int i = 0; i < nd; i++) {
      int64_t d = (t_rand_u64() % 4 == 0) ? 1 : 2 + (int64_t)(t_rand_u64() % 9);
      if (n * (size_t)d > 200000) d = 1;
      shape[i] = d;
      n *= (size_t)d;
    }
    int perm[VNCL_MAX_DIMS];
    for (int i = 0; i < nd; i++) perm[i] = i;
    shuffle(perm, nd);
    run_permute(all_types[trial % 5], nd, shape, perm, 0);
  }
  /* 8-D, the most the tensors hold */
  int64_t s8[8] = {2, 3, 2, 3, 2, 3, 2, 5};
  int p8[8] = {7, 0, 6, 1, 5, 2, 4, 3};
  run_permute(VNCL_F32, 8, s8, p8, 0);
}

/* Other tile shapes, through the parameter space. */
static void test_tile_params(void **st) {
  (void)st;
  /* TILE, WGY, ROW_ITEMS, NT_STORE, RUN_NT, LANES */
  static const int sets[][VNCL__OPS_MAX_PARAMS] = {
      {8, 1, 0, 0, 0, 16}, {16, 4, 0, 0, 0, 16}, {64, 16, 0, 0, 0, 16},
      {32, 16, 0, 0, 0, 16},
      /* whole tile rows per work-item (the CPU shape), whole and edge
       * tiles, with and without non-temporal stores (NT_STORE) */
      {16, 1, 1, 1, 0, 16}, {32, 1, 1, 0, 0, 16}, {8, 1, 1, 1, 0, 16}};
  int64_t s2[2] = {131, 67}, s3[3] = {3, 70, 45};
  int p2[2] = {1, 0}, p3[3] = {2, 1, 0};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, sets[k]));
    run_permute(VNCL_F32, 2, s2, p2, 0);
    run_permute(VNCL_F16, 3, s3, p3, 0);
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, NULL));
}

/* 16 x 16 register blocks per work-item (ROW_ITEMS 2), and with 8-lane
 * squares (LANES 8, the second and third sets: 8 x 16 blocks of 4- and
 * 8-byte elements, 16 x 32 blocks of 2-byte ones as four squares; 1-byte
 * elements keep 16): whole blocks with aligned output rows
 * (non-temporal vector stores, NT_STORE 1 in all sets but one), whole
 * blocks with unaligned rows, edge blocks on either axis, a batch, 3-D and
 * 4-D tiled permutations, a short r axis folded with the batch, every
 * element size, several group shapes. */
static void test_register_blocks(void **st) {
  (void)st;
  static const int sets[][VNCL__OPS_MAX_PARAMS] = {
      {64, 1, 2, 1, 0, 16}, {16, 4, 2, 1, 0, 8}, {8, 1, 2, 0, 0, 8},
      {8, 16, 2, 1, 0, 16}};
  static const int64_t s2[][2] = {{64, 48},  {48, 80}, {131, 67},
                                  {33, 160}, {16, 17}, {5, 300}};
  int p2[2] = {1, 0}, p3[3] = {2, 1, 0}, p4[4] = {0, 3, 2, 1};
  int64_t s3[3] = {3, 40, 64}, s4[4] = {2, 32, 5, 48}, s3b[3] = {7, 50, 35};
  int p3b[3] = {0, 2, 1};
  /* A short first axis moved innermost: the grid folds the batch into the
   * group's rows (whole and edge blocks of r, edges of a). */
  static const int64_t sf[][3] = {{64, 6, 200}, {20, 9, 33}, {16, 5, 48}};
  int64_t sa4[4] = {2, 100, 6, 24}, sab[4] = {20, 5, 3, 40};
  int prev[4] = {3, 2, 1, 0};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, sets[k]));
    for (size_t i = 0; i < sizeof s2 / sizeof *s2; i++)
      run_permute(all_types[(k + i) % 5], 2, s2[i], p2, (int)(i % 2));
    for (int ti = 0; ti < 5; ti++) {
      run_permute(all_types[ti], 3, s3, p3, 0);
      run_permute(all_types[ti], 4, s4, p4, 0);
      run_permute(all_types[ti], 3, s3b, p3b, 1);
      run_permute(all_types[ti], 3, sf[(k + (size_t)ti) % 3], p3, 0);
      /* a short A folded with the input axis right outside it (alone, or
       * beside the fold of a short R) */
      run_permute(all_types[ti], 4, sa4, p4, 0);
      run_permute(all_types[ti], 4, sab, prev, 0);
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, NULL));
}

/* 2-byte elements in register blocks of 16 x 32 (rows of r joined in
 * pairs into uints): output rows 64-byte aligned (non-temporal), 4-byte
 * aligned (uint16 stores), 32-byte aligned (two non-temporal halves),
 * odd row lengths (ushort16 stores), r shorter
 * than one block, a partial last block of r or a, the fold of a short r
 * with the batch, of a short a with the batch, both, 3-D and 4-D
 * permutations, bf16 and f16; the uint block transposed as one 16-lane
 * square and as four 8-lane ones (LANES 8, the second set). */
static void test_register_blocks_16bit(void **st) {
  (void)st;
  static const int sets[][VNCL__OPS_MAX_PARAMS] = {
      {64, 16, 2, 1, 0, 16}, {8, 1, 2, 1, 0, 8}, {16, 4, 2, 0, 0, 16}};
  static const int64_t s2[][2] = {{64, 96}, {70, 48},  {67, 40},
                                  {24, 50}, {96, 33},  {131, 67},
                                  {33, 17}, {256, 80}, {50, 1000},
                                  {31, 40}, {47, 20}, {15, 64},
                                  {48, 64}, {80, 112}};
  static const int64_t s3[][3] = {{64, 6, 200}, {32, 5, 48}, {40, 3, 70},
                                  {96, 4, 35},  {7, 64, 48}, {48, 5, 40}};
  static const int64_t s4[][4] = {{2, 64, 5, 48}, {3, 40, 7, 33},
                                  {2, 100, 6, 24}, {3, 70, 9, 40}};
  /* (3,2,1,0): the short R folds with the batch axis next to it in the
   * output, the short A with the one right outside it in the input */
  int64_t sboth[4] = {20, 5, 3, 40}, sboth2[4] = {40, 7, 6, 50};
  int prev[4] = {3, 2, 1, 0};
  int p2[2] = {1, 0}, p3[3] = {2, 1, 0}, p3b[3] = {1, 2, 0}, p4[4] = {0, 3, 2, 1};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, sets[k]));
    for (int h = 0; h < 2; h++) {
      vncl_dtype t = h ? VNCL_BF16 : VNCL_F16;
      for (size_t i = 0; i < sizeof s2 / sizeof *s2; i++)
        run_permute(t, 2, s2[i], p2, (int)(i % 2));
      for (size_t i = 0; i < sizeof s3 / sizeof *s3; i++) {
        run_permute(t, 3, s3[i], p3, 0);
        run_permute(t, 3, s3[i], p3b, 0);
      }
      for (size_t i = 0; i < sizeof s4 / sizeof *s4; i++)
        run_permute(t, 4, s4[i], p4, 0);
      run_permute(t, 4, sboth, prev, 0);
      run_permute(t, 4, sboth2, prev, 0);
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, NULL));
}

/* Planes with a short side on CPUs (ROW_ITEMS 2): permute_plane for image
 * layouts (NCHW <-> NHWC with 3 and 8 channels: a short r with the plane's
 * own a next to it in the output, a short a with its rows next to each
 * other in the input), a short a and a short r merged with the batch axis
 * after it in the output (the plane's virtual rows, several work-items
 * along them), and the blocks' virtual rows (a short r merged with that
 * axis: whole and edge blocks, 2-byte elements in row pairs, r shorter
 * than TILED_MIN), and batches of planes too small for the groups (the
 * blocks' flat order); every element size, two group shapes, 16- and
 * 8-lane squares (LANES); a short a of 2 to 15 with its rows next
 * to each other, 16 rows at once as whole vectors (PACK). */
static void test_short_planes(void **st) {
  (void)st;
  /* TILE, WGY, ROW_ITEMS, NT_STORE, RUN_NT, LANES */
  static const int sets[][VNCL__OPS_MAX_PARAMS] = {
      {64, 16, 2, 1, 1, 16}, {8, 4, 2, 0, 0, 16}, {64, 16, 2, 1, 1, 8}};
  static const struct {
    int64_t shape[4];
    int perm[4];
  } cs[] = {{{2, 3, 17, 19}, {0, 2, 3, 1}},  /* NCHW -> NHWC, C 3 */
            {{2, 17, 19, 3}, {0, 3, 1, 2}},  /* NHWC -> NCHW */
            {{3, 8, 9, 40}, {0, 2, 3, 1}},   /* C 8 */
            {{2, 40, 9, 8}, {0, 3, 1, 2}},
            {{3, 50, 30, 9}, {3, 2, 1, 0}},  /* short a and r, merged */
            {{7, 45, 5, 37}, {3, 2, 1, 0}},  /* virtual rows, edges */
            {{8, 64, 3, 48}, {3, 2, 1, 0}},  /* whole virtual blocks */
            {{3, 50, 2, 70}, {3, 2, 1, 0}},  /* r 3 < TILED_MIN */
            {{20, 9, 4, 40}, {3, 2, 1, 0}},  /* 2-byte r pairs */
            {{5, 3, 70, 1}, {0, 2, 1, 3}},   /* short r, nothing to merge */
            {{40, 20, 48, 1}, {0, 2, 1, 3}}, /* small planes: flat blocks */
            {{2, 7, 33, 40}, {1, 0, 3, 2}},
            {{4, 1, 33, 17}, {0, 2, 3, 1}}}; /* C 1: a copy */
  /* A short a with its rows next to each other, 16 rows at once as P
   * vectors (P 3 and 8 above): P 2 (by zips), 13 (by the 16 x 16 square),
   * rows that end within 16 of a work-item's start, one set. */
  static const struct {
    int64_t shape[4];
    int perm[4];
  } ps[] = {{{3, 11, 5, 2}, {0, 3, 1, 2}},
            {{2, 9, 7, 13}, {0, 3, 1, 2}},
            {{1, 1, 9, 5}, {0, 1, 3, 2}}};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, sets[k]));
    for (int ti = 0; ti < 5; ti++) {
      for (size_t c = 0; c < sizeof cs / sizeof *cs; c++)
        run_permute(all_types[ti], 4, cs[c].shape, cs[c].perm, 0);
      for (size_t c = 0; k == 0 && c < sizeof ps / sizeof *ps; c++)
        run_permute(all_types[ti], 4, ps[c].shape, ps[c].perm, 0);
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, NULL));
}

/* Row copies (the innermost axis kept, permute_rows on CPUs): ordinary
 * stores and non-temporal vectors (RUN_NT), with output rows at every
 * alignment (odd lengths: element stores up to the first aligned vector,
 * whole vectors, then the rest), rows shorter than a vector, a row longer
 * than one work-item's run, 4-D, every element size. */
static void test_row_copies(void **st) {
  (void)st;
  /* TILE, WGY, ROW_ITEMS, NT_STORE, RUN_NT, LANES */
  static const int sets[][VNCL__OPS_MAX_PARAMS] = {
      {64, 16, 2, 1, 0, 16}, {64, 16, 2, 1, 1, 16}, {8, 8, 1, 0, 1, 16}};
  static const int64_t s3[][3] = {
      {4, 3, 600}, {3, 5, 16}, {2, 7, 17}, {5, 2, 1000}, {3, 4, 47}};
  int64_t s4[4] = {2, 3, 4, 77};
  int p3[3] = {1, 0, 2}, p4[4] = {2, 1, 0, 3};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, sets[k]));
    for (int ti = 0; ti < 5; ti++) {
      for (size_t i = 0; i < sizeof s3 / sizeof *s3; i++)
        run_permute(all_types[ti], 3, s3[i], p3, 0);
      run_permute(all_types[ti], 4, s4, p4, 0);
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, NULL));
}

static void test_bad_inputs(void **st) {
  (void)st;
  int64_t s[2] = {3, 4}, sT[2] = {4, 3}, s1[1] = {12};
  vncl_tensor *x = t_new(ctx, VNCL_F32, 2, s), *o = t_new(ctx, VNCL_F32, 2, sT),
              *w = t_new(ctx, VNCL_F32, 2, s), *h = t_new(ctx, VNCL_F16, 2, sT),
              *v = t_new(ctx, VNCL_F32, 1, s1);
  vncl_context *other = t_context(NULL);
  vncl_tensor *ox = t_new(other, VNCL_F32, 2, s);
  int ok[2] = {1, 0}, dup[2] = {1, 1}, out_of_range[2] = {0, 2};
  t_poison(ctx, o);
  T_FAILS(NULL, vncl_permute(NULL, x, ok, o), VNCL_ERR_INVALID_ARG,
          "ctx is NULL");
  T_FAILS(ctx, vncl_permute(ctx, NULL, ok, o), VNCL_ERR_INVALID_ARG,
          "x is NULL");
  T_FAILS(ctx, vncl_permute(ctx, x, NULL, o), VNCL_ERR_INVALID_ARG,
          "perm is NULL");
  T_FAILS(ctx, vncl_permute(ctx, x, ok, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  T_FAILS(ctx, vncl_permute(ctx, x, dup, o), VNCL_ERR_INVALID_ARG,
          "each axis");
  T_FAILS(ctx, vncl_permute(ctx, x, out_of_range, o), VNCL_ERR_INVALID_ARG,
          "each axis");
  T_FAILS(ctx, vncl_permute(ctx, x, ok, w), VNCL_ERR_INVALID_ARG,
          "not the permuted shape");
  T_FAILS(ctx, vncl_permute(ctx, x, ok, h), VNCL_ERR_INVALID_ARG,
          "dtype mismatch");
  T_FAILS(ctx, vncl_permute(ctx, ox, ok, o), VNCL_ERR_INVALID_ARG,
          "another context");
  T_FAILS(ctx, vncl_transpose(ctx, w, w), VNCL_ERR_INVALID_ARG, "in place");
  T_FAILS(ctx, vncl_transpose(ctx, v, v), VNCL_ERR_INVALID_ARG,
          "needs 2 or more");
  T_FAILS(ctx, vncl_transpose(ctx, x, w), VNCL_ERR_INVALID_ARG,
          "not the permuted shape");
  assert_true(t_still_poisoned(ctx, o));
  vncl_tensor_destroy(ox);
  vncl_context_destroy(other);
  vncl_tensor_destroy(x), vncl_tensor_destroy(o), vncl_tensor_destroy(w),
      vncl_tensor_destroy(h), vncl_tensor_destroy(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_transpose_2d),
      cmocka_unit_test(test_transpose_batched),
      cmocka_unit_test(test_permute_3d_all),
      cmocka_unit_test(test_permute_random),
      cmocka_unit_test(test_tile_params),
      cmocka_unit_test(test_register_blocks),
      cmocka_unit_test(test_register_blocks_16bit),
      cmocka_unit_test(test_short_planes),
      cmocka_unit_test(test_row_copies),
      cmocka_unit_test(test_bad_inputs),
  };
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
