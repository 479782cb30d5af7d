/* Softmax and log-softmax against a double-precision CPU reference: every
 * dtype, rows a group each and short rows a work-item each (several rows
 * a work-item, rows under a vector transposed), in place and not; the
 * special values (-inf, +inf, NaN, values whose exp would overflow) in
 * every kernel; results independent of the tunable parameters. The
 * kernels' own exp over its whole domain and the bad inputs:
 * test_ops_reduce.c (test_softmax_exp, test_bad_inputs). */
/* Internal headers on purpose (before test_ops.h, whose probe helper
 * needs them): sets the family's parameters (vncl__ops_params_set) to
 * reach each kernel variant, and lists the built programs. */
#include "runtime/runtime.h"
#include "ops/ops.h"
#include "test_ops.h"

#define ctx t_ctx /* the shared fixture's context (common.c) */

/* Accumulation epsilon: f64 for f64, f32 for the others. */
static double acc_eps(vncl_dtype t) { return t == VNCL_F64 ? 0x1p-52 : 0x1p-23; }

/* Softmax or log-softmax of xv against the double reference, into a
 * poisoned tensor or, in_place, over x itself (the output is x). */
static void run_softmax_to(vncl_dtype t, int logmode, int nd,
                           const int64_t *shape, const double *xv,
                           bool in_place) {
  size_t n = t_numel(nd, shape), N = (size_t)shape[nd - 1], rows = n / N;
  vncl_tensor *x = t_new(ctx, t, nd, shape),
              *o = in_place ? x : t_new(ctx, t, nd, shape);
  t_write(ctx, x, xv);
  if (!in_place) t_poison(ctx, o);
  if (logmode) T_OK(ctx, vncl_log_softmax(ctx, x, o));
  else T_OK(ctx, vncl_softmax(ctx, x, o));
  double *got = t_read(ctx, o), *ref = malloc(n * sizeof *ref),
         *tol = malloc(n * sizeof *tol);
  double e = acc_eps(t), se = t_eps(t);
  /* Results near underflow: one step of f16's subnormals, or the smallest
   * normal of the compute type (devices may flush subnormals to zero). */
  double tiny = t == VNCL_F16 ? 0x1p-24 : t == VNCL_F64 ? 0x1p-1021 : 0x1p-125;
  for (size_t r = 0; r < rows; r++) {
    const double *xr = xv + r * N;
    double m = -INFINITY;
    int nan = 0;
    for (size_t i = 0; i < N; i++) {
      nan |= isnan(xr[i]);
      if (xr[i] > m) m = xr[i];
    }
    double s = 0, amax = 0;
    for (size_t i = 0; i < N; i++) {
      s += exp(xr[i] - m);
      if (fabs(xr[i] - m) > amax && isfinite(xr[i] - m)) amax = fabs(xr[i] - m);
    }
    for (size_t i = 0; i < N; i++) {
      size_t k = r * N + i;
      double d = xr[i] - m;
      ref[k] = nan ? NAN : logmode ? d - log(s) : exp(d) / s;
      /* exp of a difference rounded in the compute type: relative error
       * about |x - m| * eps, plus a few ulp; log-softmax is absolute. */
      if (logmode)
        tol[k] = 64 * e * (amax + fabs(log(s)) + 1) + se * fabs(ref[k]);
      else
        tol[k] = (64 * e * (amax + 1) + se) * fabs(ref[k]) + tiny;
    }
  }
  char what[96];
  snprintf(what, sizeof what, "%s %s rows of %zu%s",
           logmode ? "log_softmax" : "softmax", vncl_dtype_name(t), N,
           in_place ? ", in place" : "");
  t_check_each(what, n, got, ref, tol);
  free(got), free(ref), free(tol);
  vncl_tensor_destroy(x);
  if (!in_place) vncl_tensor_destroy(o);
}

static void run_softmax(vncl_dtype t, int logmode, int nd, const int64_t *shape,
                        const double *xv) {
  run_softmax_to(t, logmode, nd, shape, xv, false);
}

static void test_softmax(void **st) {
  (void)st;
  static const struct {
    int nd;
    int64_t s[3];
  } cases[] = {{2, {1, 1}},      {2, {7, 13}},  {2, {33, 1000}},
               {2, {3, 50001}},  {3, {2, 3, 257}}, {1, {64}},
               /* rows of whole vectors (non-temporal stores), kept in
                * local memory or not, and a row of 64 Ki */
               {2, {5, 4096}},   {2, {3, 16384}}, {2, {2, 65536}}};
  for (int ti = 0; ti < 4; ti++)
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
      for (int lg = 0; lg < 2; lg++) {
        vncl_dtype t = t_float_types[ti];
        size_t n = t_numel(cases[c].nd, cases[c].s);
        double *xv = t_rand_vals(t, n, -6, 6);
        /* in place (documented) for every other case, both modes */
        run_softmax_to(t, lg, cases[c].nd, cases[c].s, xv, (c + lg) % 2);
        free(xv);
      }
}

/* -inf entries give 0 (log: -inf); rows all -inf, with +inf or with NaN
 * give NaN, short rows and long ones; large values do not overflow. */
static void test_softmax_special(void **st) {
  (void)st;
  enum { N = 40 };
  int64_t shape[2] = {5, N};
  double xv[5 * N];
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    for (int i = 0; i < 5 * N; i++) xv[i] = t_round(t, t_rand_uniform(-3, 3));
    xv[0 * N + 3] = -INFINITY, xv[0 * N + 20] = -INFINITY;
    for (int i = 0; i < N; i++) xv[1 * N + i] = -INFINITY;
    xv[2 * N + 7] = INFINITY;
    xv[3 * N + 9] = NAN;
    for (int i = 0; i < N; i++)  /* large values: exp would overflow */
      xv[4 * N + i] = t_round(t, t == VNCL_F16 ? 60000 - i * 32 : 1e4 + i);
    for (int lg = 0; lg < 2; lg++) run_softmax(t, lg, 2, shape, xv);
    /* Rows a group each (longer than any row's ROW_ITEM), the special
     * value in each of pass 1's four running maxima (elements 0, 19, 37
     * and 55: vectors 0-3 of a work-item's part with vectors of 16), past
     * the last vector and far along: NaN must come out of pass 2,
     * whatever maximum pass 1 found. */
    enum { L = 4109 };
    static const int at[] = {0, 19, 37, 55, L - 3, 114, 2000};
    const int nat = (int)(sizeof at / sizeof *at);
    int64_t lshape[2] = {3 * nat + 3, L};
    double *lv = t_rand_vals(t, (size_t)lshape[0] * L, -6, 6);
    for (int k = 0; k < nat; k++) {
      lv[(size_t)k * L + at[k]] = NAN;
      lv[(size_t)(nat + k) * L + at[k]] = INFINITY;
      /* the maximum alone there, by more than exp's range: a maximum
       * that missed it would overflow the others' exp */
      lv[(size_t)(2 * nat + k) * L + at[k]] = 100;
    }
    double *r = lv + (size_t)3 * nat * L;
    for (int i = 0; i < L; i++) r[i] = -INFINITY; /* all -inf */
    r += L;
    r[1] = -INFINITY, r[L - 1] = -INFINITY; /* finite results */
    r += L;
    r[20] = -INFINITY, r[3001] = INFINITY;
    for (int lg = 0; lg < 2; lg++) run_softmax(t, lg, 2, lshape, lv);
    free(lv);
  }
}

/* A row spanning the whole range of exp: the maximum 0 and differences
 * down to -110 (underflow to 0 inside the row), plus -inf. */
static void test_softmax_wide(void **st) {
  (void)st;
  int64_t shape[2] = {3, 4099};
  size_t n = 3 * 4099;
  for (int ti = 0; ti < 4; ti++) {
    vncl_dtype t = t_float_types[ti];
    double *xv = malloc(n * sizeof *xv);
    for (size_t i = 0; i < n; i++) xv[i] = t_round(t, t_rand_uniform(-110, 0));
    xv[17] = 0, xv[4099 + 5] = 0, xv[2 * 4099 + 4000] = 0;
    xv[33] = -INFINITY;
    for (int lg = 0; lg < 2; lg++) run_softmax(t, lg, 2, shape, xv);
    free(xv);
  }
}

/* Short rows one per work-item (softmax_rows_item: ITEM_CONTIG with
 * ROW_ITEM), ITEM_ROWS at a time: enough rows that every compute unit of
 * this device gets its groups with ITEM_ROWS rows a work-item (the host's
 * condition, from the device's own count), and a row count no multiple of
 * it (the last work-item's missing rows repeat the last row), rows of
 * whole vectors (non-temporal stores, or ordinary ones for rows shorter
 * than NT_MIN: all of them, or those below 512; so the packed rows'
 * blocks too) and with a tail (77 and
 * 20: the last vector overlapping the last whole one, every width; rows
 * of 100, 1000 and (log-softmax, vectors of 8) 20 whose work-item's rows
 * make whole vectors from an aligned start stored as that block's
 * vectors, non-temporally or not (BLOCK_OUT 2, 1), in place too,
 * softmax's e read back from local memory in the block's layout or (the
 * last set, f64) computed again; rows
 * shorter than a vector keep the scalar tail; rows of 3, 5 and 8 as whole
 * vectors transposed, VW rows a work-item, 7 rows fewer than one such
 * block; rows of 2, 4, 12 and 13 so with vectors of 16, as 8 x 8 squares
 * where the device's native vectors hold 8 or 16 floats, PACK_H8, and
 * rows of 16 so where they hold 8), rows of 16 and fewer
 * (taken whatever their count), e kept in local memory (the rows' vectors
 * interleaved) or computed again (ROW_ITEM 4096 leaves no room for f64's),
 * in place, special values. */
/* Whether a softmax_rows_item program (-DITEM_LOCAL=...) was built with
 * -D<name>=<value>, and, with keep_e, a local copy of e (ITEM_LOCAL not
 * 0). */
static bool sm_item_built_with(const char *name, int value, bool keep_e) {
  const char *src[512], *opts[512];
  cl_program progs[512];
  char want[48];
  int w = snprintf(want, sizeof want, "-D%s=%d", name, value);
  int n = vncl__programs_list(ctx, src, opts, progs, 512);
  for (int i = 0; i < n && i < 512; i++) {
    const char *at = strstr(opts[i], want);
    const char *loc = strstr(opts[i], "-DITEM_LOCAL=");
    if (!strcmp(src[i], "softmax.cl") && at && (at[w] == ' ' || !at[w]) &&
        loc && (!keep_e || loc[strlen("-DITEM_LOCAL=")] != '0'))
      return true;
  }
  return false;
}

/* Whether a softmax_rows_item program with ITEM_ROWS ir was built. */
static bool sm_item_built(int ir) {
  return sm_item_built_with("ITEM_ROWS", ir, false);
}

/* Whether a softmax_rows_item program with BLOCK_OUT b was built. */
static bool sm_block_built(int b) {
  return sm_item_built_with("BLOCK_OUT", b, false);
}

/* Whether a softmax_rows_item program with blocks (BLOCK_OUT 1 or 2) and a
 * local copy of e (the kernel's BLOCK_E, e kept in the block's layout) was
 * built. */
static bool sm_block_e_built(void) {
  return sm_item_built_with("BLOCK_OUT", 1, true) ||
         sm_item_built_with("BLOCK_OUT", 2, true);
}

/* Whether softmax over rows of exactly VW elements was built as one square
 * transposition (softmax_rows_packed with PACK = VW), f32. */
static bool sm_square_built(int vw) {
  return t_f32_built(ctx, "softmax.cl", vw, vw);
}

/* Whether a softmax_rows_packed program for rows of 8 in vectors of 16 as
 * two 8 x 8 squares (-DVW=16 -DPACK=8 -DPACK_H8=1) was built. */
static bool sm_h8_square_built(void) {
  const char *src[512], *opts[512];
  cl_program progs[512];
  int n = vncl__programs_list(ctx, src, opts, progs, 512);
  for (int i = 0; i < n && i < 512; i++) {
    const char *pk = strstr(opts[i], "-DPACK=8");
    if (!strcmp(src[i], "softmax.cl") && strstr(opts[i], "-DVW=16 ") && pk &&
        (pk[8] == ' ' || !pk[8]) && strstr(opts[i], "-DPACK_H8=1"))
      return true;
  }
  return false;
}

static void test_softmax_rows_item(void **st) {
  (void)st;
  const size_t cu = ctx->info.compute_units ? ctx->info.compute_units : 1;
  /* WG, VW, ITEM_CONTIG, ROW_ITEM, PREFETCH, ITEM_ROWS, NT_MIN; the last
   * set for rows of 20 and 100 only, f32 and f64: its copy of f64's e (a
   * megabyte for the group) does not fit half of a device's local memory
   * of up to 2 MiB, so softmax's blocks compute exp(x - m) again there */
  static const int sets[][VNCL__OPS_MAX_PARAMS] = {
      {16, 16, 1, 1024, 2, 4, 0},  {16, 4, 1, 4096, 0, 2, 65536},
      {32, 2, 1, 256, 1, 1, 0},    {16, 8, 1, 256, 0, 8, 0},
      {16, 1, 1, 256, 0, 1, 0},    {16, 16, 1, 1024, 2, 4, 512},
      {16, 16, 1, 2048, 2, 4, 0}};
  const size_t last = sizeof sets / sizeof *sets - 1;
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, sets[k]));
    const int64_t R =
        (int64_t)(4 * cu * (size_t)sets[k][0] * (size_t)sets[k][5]) + 5;
    /* from the eighth: rows of up to a vector, VW a work-item
     * (softmax_rows_packed; sets 0 and 3, vectors of 16 and 8; rows of 13
     * with the sets' vectors of 16 too), rows of exactly a vector by one
     * square transposition where the device's native vectors are as wide
     * (16 with set 0, 8 with set 3, 4 with set 1, the only set with rows
     * of 4); rows of 2, 4 and 8 under wider vectors by rounds of unzips
     * (rows of 8 as two 8 x 8 squares instead where the native vectors
     * hold 8);
     * rows of 8 with set 5 too, whole blocks with ordinary stores (set 0
     * stores them non-temporally) */
    const int64_t shapes[][2] = {{R, 77}, {R, 1024}, {R, 1000}, {3, 16},
                                 {5, 13}, {R, 1},    {R, 20},   {R, 3},
                                 {7, 5},  {R, 8},    {R, 12},   {R, 16},
                                 {R, 4},  {R, 2},    {R, 100},  {R, 24}};
    /* rows of 24 with set 0's vectors of 16 go in vectors of 8 (f32 and
     * 16-bit): whether such a program existed before it ran them */
    const bool vw8_before = k == 0 && sm_item_built_with("VW", 8, false);
    for (int ti = 0; ti < (k == last ? 2 : 4); ti++) {
      vncl_dtype t = t_float_types[ti];
      for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
        if (k == last && shapes[c][1] != 20 && shapes[c][1] != 100) continue;
        /* Rows too long for this ROW_ITEM go a group per row, which
         * test_softmax covers: not R of them again. */
        if (shapes[c][1] > sets[k][3] && shapes[c][0] == R) continue;
        if (c >= 7 && k != 0 && k != 3 && k != last &&
            !(k == 1 && shapes[c][1] == 4) &&
            !(k == 5 && (shapes[c][1] == 8 || shapes[c][1] == 100)))
          continue;
        size_t n = (size_t)(shapes[c][0] * shapes[c][1]);
        double *xv = t_rand_vals(t, n, -6, 6);
        /* in place for every other shape and mode, and for rows of 77
         * in both: the last vector of a row with a tail is loaded before
         * the whole ones are stored, and the repeats of the last row
         * (R is odd) must read no output */
        for (int lg = 0; lg < 2; lg++) {
          if (shapes[c][1] == 77 || shapes[c][1] == 100)
            run_softmax_to(t, lg, 2, shapes[c], xv, true);
          run_softmax_to(t, lg, 2, shapes[c], xv, (c + lg) % 2);
        }
        free(xv);
      }
      /* -inf entries, a row all -inf, +inf, NaN, values whose exp would
       * overflow, every 7th row (so every lane of a packed work-item's
       * rows in turn) of R x 40 (and of R x 12, R x 16 and R x 8, packed
       * with the vectors of 16 of set 0; rows of 8 as 8 x 8 squares where
       * the native vectors hold 8) */
      static const int64_t lens[] = {40, 12, 16, 100, 8};
      for (size_t li = 0; li < (k == 0 ? 5u : k == last ? 0u : 1u); li++) {
        const int64_t L = lens[li];
        int64_t sp[2] = {R, L};
        size_t n = (size_t)(R * L);
        double *xv = t_rand_vals(t, n, -3, 3);
        for (int64_t r = 0; r < R; r += 7) {
          double *row = xv + r * L;
          switch ((r / 7) % 5) {
            case 0: row[3] = -INFINITY, row[L / 2] = -INFINITY; break;
            case 1: for (int i = 0; i < L; i++) row[i] = -INFINITY; break;
            case 2: row[7] = INFINITY; break;
            case 3: row[9 % L] = NAN; break;
            default:
              for (int i = 0; i < L; i++)
                row[i] = t_round(t, t == VNCL_F16 ? 60000 - i * 32 : 1e4 + i);
          }
        }
        for (int lg = 0; lg < 2; lg++) run_softmax(t, lg, 2, sp, xv);
        free(xv);
      }
    }
    /* R rows give each compute unit four groups with all ITEM_ROWS rows a
     * work-item: the host kept the set's value. */
    assert_true(sm_item_built(sets[k][5]));
    /* rows of 8 with set 0's vectors of 16 went as two 8 x 8 squares
     * (PACK_H8) exactly where the native vectors hold 8 */
    if (k == 0)
      assert_int_equal(sm_h8_square_built(), vncl__params_vec(ctx) == 8);
    if (k == 0 && !vw8_before) assert_true(sm_item_built_with("VW", 8, false));
  }
  /* rows of 100 (and of 1000, 20 in log mode with vectors of 8) as whole
   * vectors of their work-item's block: non-temporal with sets 0 and 3,
   * ordinary with set 5 (rows under its NT_MIN) */
  assert_true(sm_block_built(2));
  assert_true(sm_block_built(1));
  /* softmax's blocks kept e in local memory where set 0's copy (f32: 16
   * work-items, 4 rows of 1024) fits half of it */
  if ((size_t)16 * 4 * 1024 * 4 <= ctx->info.local_mem_bytes / 2)
    assert_true(sm_block_e_built());
  /* rows of a whole vector took the square transposition exactly where the
   * device's native f32 vectors are as wide, and rows of 16 in vectors of
   * 16 also where they hold 8 (as 8 x 8 squares, PACK_H8) */
  const int nat = vncl__params_vec(ctx);
  for (int vw = 4; vw <= 16; vw *= 2)
    assert_int_equal(sm_square_built(vw),
                     vw <= nat || (vw == 16 && nat == 8));
  /* set 0's rows of 12 and 13 (vectors of 16) moved as 8 x 8 squares
   * exactly where the native vectors hold 8 or 16 floats (and its rows of
   * 16 where they hold 8: the square above) */
  assert_int_equal(sm_item_built_with("PACK_H8", 1, false),
                   nat == 8 || nat == 16);
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, NULL));
}

/* ---- parameters ---------------------------------------------------------- */

/* Other work-group sizes and vector widths give the same results (within
 * the tolerance: the summation order changes), groups narrower than a
 * vector too (8 work-items, vectors of 16: a row's tail of 13 elements,
 * more than one per work-item, which the row kernels once dropped). */
static void test_params_independent(void **st) {
  (void)st;
  /* WG, VW, ITEM_CONTIG, ROW_ITEM, PREFETCH, ITEM_ROWS, NT_MIN */
  static const int sm_sets[][VNCL__OPS_MAX_PARAMS] = {
      {32, 1, 0, 0, 0, 1, 0}, {256, 16, 1, 0, 1, 2, 4096},
      {128, 2, 1, 0, 2, 4, 0}, {8, 16, 1, 0, 0, 1, 0}};
  int64_t sm[2] = {9, 333};
  for (size_t k = 0; k < sizeof sm_sets / sizeof *sm_sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, sm_sets[k]));
    for (int ti = 0; ti < 4; ti += 2) { /* f32, f16 */
      vncl_dtype t = t_float_types[ti];
      double *xv = t_rand_vals(t, 9 * 333, -5, 5);
      run_softmax(t, k % 2, 2, sm, xv);
      free(xv);
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, NULL));
  int bad[VNCL__OPS_MAX_PARAMS] = {48, 4};
  T_FAILS(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, bad),
          VNCL_ERR_INVALID_ARG, "WG=48");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_softmax_special),
      cmocka_unit_test(test_softmax_wide),
      cmocka_unit_test(test_softmax_rows_item),
      cmocka_unit_test(test_params_independent),
  };
  t_test_filter();
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
