/* Device groups: every selector form and the bad ones, the speed table,
 * GEMM split over two devices (by batch, by row and column panels; both
 * layouts, every transpose pair, odd sizes, pipelined steps, uneven speeds)
 * against a CPU reference in double and against a one-device run, with
 * fresh random inputs, poisoned outputs and every element checked, copies
 * between devices, and bad input. Selector expectations come from the
 * devices found. The split tests use the first two devices ("0,1"): on PoCL
 * two (POCL_DEVICES="pthread pthread", set before OpenCL is first touched);
 * where the machine has one, they are skipped and say so. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"

#define SENTINEL 777.0

/* ---- creation ------------------------------------------------------------ */

static int dev_index(vncl_group *g, int i) {
  vncl_device_info d;
  T_OK(NULL, vncl_context_device_info(vncl_group_context(g, i), &d));
  return d.index;
}

static vncl_group *make(const char *sel, const vncl_options *o) {
  vncl_group *g = NULL;
  vncl_status s = vncl_group_create(&g, sel, o);
  if (s)
    fail_msg("vncl_group_create('%s'): %s: %s", sel ? sel : "(null)",
             vncl_status_name(s), vncl_errmsg(NULL));
  return g;
}

/* The devices a selector list names, by the documented rules: "all" (and
 * NULL, "") every device, a type word every device of that type, an index,
 * P:D or name one device each. */
static int g_n;
static vncl_device_info g_dev[T_MAX_DEVICES];

static int expected_group(const char *sel, int *idx) {
  if (!sel || !*sel || !strcmp(sel, "all")) {
    for (int i = 0; i < g_n; i++) idx[i] = i;
    return g_n;
  }
  int n = 0;
  vncl_device_type want = !strcasecmp(sel, "gpu") ? VNCL_DEVICE_GPU
                          : !strcasecmp(sel, "cpu") ? VNCL_DEVICE_CPU
                          : !strcasecmp(sel, "accelerator")
                              ? VNCL_DEVICE_ACCELERATOR
                              : 0;
  if (want) {
    for (int i = 0; i < g_n; i++)
      if (g_dev[i].type == want) idx[n++] = i;
    return n;
  }
  idx[0] = t_expected_select(sel);
  return idx[0] < 0 ? 0 : 1;
}

static void check_group(const char *sel, int n, const int *idx) {
  vncl_group *g = make(sel, NULL);
  assert_int_equal(vncl_group_size(g), n);
  for (int i = 0; i < n; i++) assert_int_equal(dev_index(g, i), idx[i]);
  assert_null(vncl_group_context(g, n));
  assert_null(vncl_group_context(g, -1));
  /* Every context works on its own. */
  for (int i = 0; i < n; i++) T_OK(NULL, vncl_finish(vncl_group_context(g, i)));
  vncl_group_destroy(g);
}

/* Tests that split work over two devices need two; PoCL gives two here
 * (POCL_DEVICES), another OpenCL may give one. */
#define NEED_TWO()                                                        \
  T_SKIP_IF(g_n < 2, "%d device found, this test splits work over two",   \
            g_n)

static void test_selectors(void **st) {
  (void)st;
  int idx[T_MAX_DEVICES];
  const char *words[] = {"all", "", "cpu", "CPU", "gpu", "accelerator"};
  for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
    int n = expected_group(words[w], idx);
    if (n) check_group(words[w], n, idx);
  }
  check_group(NULL, expected_group(NULL, idx), idx);
  /* Each device by index, by P:D and by its own name. */
  char sel[320];
  for (int i = 0; i < g_n; i++) {
    snprintf(sel, sizeof sel, "%d", i);
    check_group(sel, 1, &i);
    snprintf(sel, sizeof sel, "%d:%d", g_dev[i].platform_index,
             g_dev[i].device_index);
    check_group(sel, 1, &i);
    int first = t_expected_select(g_dev[i].name);
    check_group(g_dev[i].name, 1, &first);
  }
  if (g_n >= 2) {
    int fwd[2] = {0, 1}, rev[2] = {1, 0};
    check_group("0,1", 2, fwd);
    check_group("1,0", 2, rev);
    check_group(" 1 , 0 ", 2, rev);
    /* A name, then an index. */
    int first = t_expected_select(g_dev[0].name);
    int other = first == 0 ? 1 : 0;
    snprintf(sel, sizeof sel, "%s,%d", g_dev[0].name, other);
    int mixed[2] = {first, other};
    check_group(sel, 2, mixed);
  }
  /* The default comes from opts->device, then VNCL_DEVICE. */
  int last = g_n - 1;
  snprintf(sel, sizeof sel, "%d", last);
  vncl_options o;
  vncl_options_init(&o);
  o.device = sel;
  vncl_group *g = make(NULL, &o);
  assert_int_equal(vncl_group_size(g), 1);
  assert_int_equal(dev_index(g, 0), last);
  vncl_group_destroy(g);
  if (g_n >= 2) {
    setenv("VNCL_DEVICE", "1,0", 1);
    g = make(NULL, NULL);
    assert_int_equal(vncl_group_size(g), 2);
    assert_int_equal(dev_index(g, 0), 1);
    vncl_group_destroy(g);
    unsetenv("VNCL_DEVICE");
  }
  /* Options reach every context. */
  o.device = NULL;
  o.memory_limit = 64 << 20;
  g = make("all", &o);
  for (int i = 0; i < g_n; i++) {
    vncl_memory_stats ms;
    T_OK(NULL, vncl_memory_stats_get(vncl_group_context(g, i), &ms));
    assert_int_equal(ms.limit_bytes, 64 << 20);
  }
  vncl_group_destroy(g);
  vncl_group_destroy(NULL);
  assert_int_equal(vncl_group_size(NULL), 0);
  assert_null(vncl_group_context(NULL, 0));
}

static void test_bad_selectors(void **st) {
  (void)st;
  vncl_group *g = (vncl_group *)&g; /* must stay untouched */
  vncl_group *keep = g;
  int idx[T_MAX_DEVICES];
  /* Types this machine lacks. */
  const char *types[] = {"gpu", "accelerator", "cpu"};
  for (size_t w = 0; w < 3; w++)
    if (!expected_group(types[w], idx))
      T_FAILS(NULL, vncl_group_create(&g, types[w], NULL), VNCL_ERR_NO_DEVICE,
              "devices found");
  char sel[96], none[64];
  snprintf(sel, sizeof sel, "%d", g_n);
  T_FAILS(NULL, vncl_group_create(&g, sel, NULL), VNCL_ERR_NO_DEVICE, sel);
  t_absent_name(none, sizeof none);
  snprintf(sel, sizeof sel, "0,%s", none);
  T_FAILS(NULL, vncl_group_create(&g, sel, NULL), VNCL_ERR_NO_DEVICE, none);
  T_FAILS(NULL, vncl_group_create(&g, none, NULL), VNCL_ERR_NO_DEVICE,
          g_dev[0].name);
  T_FAILS(NULL, vncl_group_create(&g, "0,,1", NULL), VNCL_ERR_INVALID_ARG,
          "empty");
  T_FAILS(NULL, vncl_group_create(&g, ",", NULL), VNCL_ERR_INVALID_ARG,
          "empty");
  T_FAILS(NULL, vncl_group_create(&g, "0,", NULL), VNCL_ERR_INVALID_ARG,
          "empty");
  T_FAILS(NULL, vncl_group_create(&g, "0,0", NULL), VNCL_ERR_INVALID_ARG,
          "twice");
  T_FAILS(NULL, vncl_group_create(&g, "all,0", NULL), VNCL_ERR_INVALID_ARG,
          "twice");
  T_FAILS(NULL, vncl_group_create(NULL, "all", NULL), VNCL_ERR_INVALID_ARG,
          "NULL");
  vncl_options o;
  vncl_options_init(&o);
  o.struct_size = 3;
  T_FAILS(NULL, vncl_group_create(&g, "all", &o), VNCL_ERR_INVALID_ARG,
          "struct_size");
  setenv("VNCL_MEMORY_LIMIT", "lots", 1);
  T_FAILS(NULL, vncl_group_create(&g, "all", NULL), VNCL_ERR_INVALID_ARG,
          "VNCL_MEMORY_LIMIT");
  unsetenv("VNCL_MEMORY_LIMIT");
  assert_ptr_equal(g, keep);
}

static void test_speeds(void **st) {
  (void)st;
  NEED_TWO();
  vncl_group *g = make("0,1", NULL);
  double sp[2] = {0, 0};
  T_OK(NULL, vncl_group_speeds(g, sp, 2));
  assert_true(sp[0] > 0 && sp[1] > 0);
  printf("probe: %.1f and %.1f GFLOP/s\n", sp[0], sp[1]);
  double bad[2][2] = {{1, 0}, {-1, 1}};
  for (int i = 0; i < 2; i++)
    T_FAILS(NULL, vncl_group_set_speeds(g, bad[i], 2), VNCL_ERR_INVALID_ARG,
            "positive");
  double nan2[2] = {NAN, 1};
  T_FAILS(NULL, vncl_group_set_speeds(g, nan2, 2), VNCL_ERR_INVALID_ARG,
          "positive");
  double good[2] = {1, 3};
  T_FAILS(NULL, vncl_group_set_speeds(g, good, 1), VNCL_ERR_INVALID_ARG,
          "n=1");
  T_FAILS(NULL, vncl_group_speeds(g, sp, 3), VNCL_ERR_INVALID_ARG, "n=3");
  T_FAILS(NULL, vncl_group_speeds(NULL, sp, 2), VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(NULL, vncl_group_speeds(g, NULL, 2), VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(NULL, vncl_group_set_speeds(NULL, good, 2), VNCL_ERR_INVALID_ARG,
          "NULL");
  T_OK(NULL, vncl_group_set_speeds(g, good, 2));
  T_OK(NULL, vncl_group_speeds(g, sp, 2));
  assert_true(sp[0] == 1 && sp[1] == 3);
  T_OK(NULL, vncl_group_set_speeds(g, NULL, 0)); /* forget: probe again */
  T_OK(NULL, vncl_group_speeds(g, sp, 2));
  assert_true(sp[0] > 0 && sp[1] > 0);
  vncl_group_run r;
  T_OK(NULL, vncl_group_last_run(g, &r));
  assert_int_equal(r.split, VNCL_GROUP_SPLIT_NONE);
  assert_int_equal(r.devices, 2);
  T_FAILS(NULL, vncl_group_last_run(g, NULL), VNCL_ERR_INVALID_ARG, "NULL");
  vncl_group_destroy(g);
}

/* ---- GEMM ------------------------------------------------------------------ */

typedef struct gcase {
  vncl_dtype dt;
  vncl_layout lay;
  vncl_trans ta, tb;
  size_t m, n, k, batch;
  double alpha, beta;
  int shared_b; /* stride_b = 0 */
  size_t pad;   /* extra elements per stored row, and between matrices */
} gcase;

typedef struct hostmat {
  size_t outer, inner, ld, stride, total;
} hostmat;

static hostmat layout_of(const gcase *c, size_t rows, size_t cols,
                         bool shared) {
  hostmat h;
  bool row = c->lay == VNCL_ROW_MAJOR;
  h.outer = row ? rows : cols;
  h.inner = row ? cols : rows;
  h.ld = h.inner + c->pad;
  if (h.ld == 0) h.ld = 1;
  size_t one = h.outer * h.ld;
  h.stride = shared || c->batch == 1 ? 0 : one + c->pad;
  h.total = (c->batch - 1) * h.stride + one + 1;
  return h;
}

static double get(const void *x, vncl_dtype dt, size_t i) {
  return dt == VNCL_F64 ? ((const double *)x)[i] : ((const float *)x)[i];
}
static void put(void *x, vncl_dtype dt, size_t i, double v) {
  if (dt == VNCL_F64)
    ((double *)x)[i] = v;
  else
    ((float *)x)[i] = (float)v;
}

/* Element (i, j) of a stored matrix (i < rows as stored). */
static size_t at(const gcase *c, const hostmat *h, size_t g, size_t i,
                 size_t j) {
  return g * h->stride +
         (c->lay == VNCL_ROW_MAJOR ? i * h->ld + j : j * h->ld + i);
}

/* Runs the case on g (and on the one-device g1, whose result must agree),
 * checks every element against the reference and that nothing outside C's
 * matrices changed. Returns the group's record. */
static vncl_group_run run_case(vncl_group *g, vncl_group *g1,
                               const gcase *c) {
  size_t es = vncl_dtype_size(c->dt);
  size_t ar = c->ta ? c->k : c->m, ac = c->ta ? c->m : c->k;
  size_t br = c->tb ? c->n : c->k, bc = c->tb ? c->k : c->n;
  hostmat ha = layout_of(c, ar, ac, false), hb = layout_of(c, br, bc,
                                                            c->shared_b);
  hostmat hc = layout_of(c, c->m, c->n, false);
  void *a = malloc(ha.total * es), *b = malloc(hb.total * es);
  void *c0 = malloc(hc.total * es), *c1 = malloc(hc.total * es),
       *c2 = malloc(hc.total * es);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(c0);
  assert_non_null(c1);
  assert_non_null(c2);
  for (size_t i = 0; i < ha.total; i++) put(a, c->dt, i, t_rand_uniform(-1, 1));
  for (size_t i = 0; i < hb.total; i++) put(b, c->dt, i, t_rand_uniform(-1, 1));
  for (size_t i = 0; i < hc.total; i++) put(c0, c->dt, i, SENTINEL);
  for (size_t g0 = 0; g0 < c->batch; g0++)
    for (size_t i = 0; i < c->m; i++)
      for (size_t j = 0; j < c->n; j++)
        put(c0, c->dt, at(c, &hc, g0, i, j),
            c->beta == 0 ? NAN : t_rand_uniform(-1, 1));
  memcpy(c1, c0, hc.total * es);
  memcpy(c2, c0, hc.total * es);
  T_OK(NULL, vncl_group_gemm_batched(g, c->dt, c->lay, c->ta, c->tb, c->m,
                                     c->n, c->k, c->alpha, a, ha.ld,
                                     ha.stride, b, hb.ld, hb.stride, c->beta,
                                     c2, hc.ld, hc.stride, c->batch));
  vncl_group_run run;
  T_OK(NULL, vncl_group_last_run(g, &run));
  T_OK(NULL, vncl_group_gemm_batched(g1, c->dt, c->lay, c->ta, c->tb, c->m,
                                     c->n, c->k, c->alpha, a, ha.ld,
                                     ha.stride, b, hb.ld, hb.stride, c->beta,
                                     c1, hc.ld, hc.stride, c->batch));
  double eps = c->dt == VNCL_F64 ? 2.3e-16 : 1.2e-7;
  size_t bad = 0;
  /* op(A), op(B) and C gathered densely, then the shared reference. */
  size_t m = c->m, n = c->n, k = c->k, nb = c->batch;
  double *ad = malloc((nb * m * k + 1) * sizeof *ad),
         *bd = malloc((nb * k * n + 1) * sizeof *bd),
         *cd = malloc((nb * m * n + 1) * sizeof *cd),
         *refs = malloc((nb * m * n + 1) * sizeof *refs),
         *bounds = malloc((nb * m * n + 1) * sizeof *bounds);
  assert_true(ad && bd && cd && refs && bounds);
  for (size_t g0 = 0; g0 < nb; g0++) {
    for (size_t i = 0; i < m; i++)
      for (size_t p = 0; p < k; p++)
        ad[(g0 * m + i) * k + p] = get(
            a, c->dt, c->ta ? at(c, &ha, g0, p, i) : at(c, &ha, g0, i, p));
    for (size_t p = 0; p < k; p++)
      for (size_t j = 0; j < n; j++)
        bd[(g0 * k + p) * n + j] = get(
            b, c->dt, c->tb ? at(c, &hb, g0, j, p) : at(c, &hb, g0, p, j));
    for (size_t i = 0; i < m; i++)
      for (size_t j = 0; j < n; j++)
        cd[(g0 * m + i) * n + j] =
            c->beta == 0 ? 0 : get(c0, c->dt, at(c, &hc, g0, i, j));
  }
  t_ref_gemm(false, false, m, n, k, nb, c->alpha, ad, k, bd, n, c->beta, cd,
             n, refs, bounds);
  free(ad);
  free(bd);
  free(cd);
  for (size_t g0 = 0; g0 < c->batch; g0++)
    for (size_t i = 0; i < c->m; i++)
      for (size_t j = 0; j < c->n; j++) {
        size_t ci = at(c, &hc, g0, i, j);
        double ref = refs[(g0 * m + i) * n + j],
               bound = bounds[(g0 * m + i) * n + j];
        double tol = 2.0 * (double)(c->k + 4) * eps * bound + 1e-30;
        double v2 = get(c2, c->dt, ci), v1 = get(c1, c->dt, ci);
        if (!(fabs(v2 - ref) <= tol) || !(fabs(v1 - ref) <= tol) ||
            !(fabs(v2 - v1) <= tol)) {
          if (bad++ < 5)
            print_error("batch %zu (%zu,%zu): 2 devices %.9g, 1 device %.9g,"
                        " reference %.9g (tolerance %.3g)\n",
                        g0, i, j, v2, v1, ref, tol);
        }
        put(c2, c->dt, ci, SENTINEL); /* what remains must be untouched */
      }
  free(refs);
  free(bounds);
  for (size_t i = 0; i < hc.total; i++)
    if (get(c2, c->dt, i) != SENTINEL && bad++ < 5)
      print_error("element %zu outside C changed to %g\n", i,
                  get(c2, c->dt, i));
  if (bad)
    fail_msg("%zu wrong: %s %s %c%c m=%zu n=%zu k=%zu batch %zu alpha %g "
             "beta %g",
             bad, vncl_dtype_name(c->dt),
             c->lay == VNCL_ROW_MAJOR ? "row" : "col", c->ta ? 'T' : 'N',
             c->tb ? 'T' : 'N', c->m, c->n, c->k, c->batch, c->alpha,
             c->beta);
  free(a);
  free(b);
  free(c0);
  free(c1);
  free(c2);
  return run;
}

static size_t odd_size(size_t lo, size_t hi) {
  return lo + (size_t)(t_rand_u64() % (hi - lo + 1));
}

/* Single products: every layout and transpose pair, odd sizes, row and
 * column panels, beta zero (NaN-poisoned C) and not, several steps. */
static void test_gemm_split(void **st) {
  (void)st;
  NEED_TWO();
  vncl_group *g = make("0,1", NULL), *g1 = make("0", NULL);
  /* Read when a group is made: gs takes several steps per device. */
  setenv("VNCL_GROUP_STEP_FLOPS", "2e4", 1);
  vncl_group *gs = make("0,1", NULL);
  unsetenv("VNCL_GROUP_STEP_FLOPS");
  int rows = 0, cols = 0;
  for (int lay = 0; lay < 2; lay++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++) {
        bool tall = (lay + ta + tb) % 2 == 0;
        gcase c = {VNCL_F32, (vncl_layout)lay, (vncl_trans)ta,
                   (vncl_trans)tb, 0, 0, odd_size(33, 151), 1,
                   t_rand_uniform(0.5, 2), (ta + tb) % 2 ? 0.0 : -0.75, 0,
                   (size_t)(t_rand_u64() % 3)};
        c.m = tall ? odd_size(150, 260) : odd_size(20, 90);
        c.n = tall ? odd_size(20, 90) : odd_size(150, 260);
        vncl_group_run r = run_case(gs, g1, &c);
        vncl_group_split want =
            (lay == VNCL_ROW_MAJOR) == tall ? VNCL_GROUP_SPLIT_ROWS
                                            : VNCL_GROUP_SPLIT_COLS;
        assert_int_equal(r.split, want);
        rows += r.split == VNCL_GROUP_SPLIT_ROWS;
        cols += r.split == VNCL_GROUP_SPLIT_COLS;
        assert_true(r.share[0] > 0 && r.share[1] > 0);
        if (r.steps[0] < 2 || r.steps[1] < 2)
          fail_msg("steps %d and %d for shares %zu and %zu", r.steps[0],
                   r.steps[1], r.share[0], r.share[1]);
      }
  assert_true(rows > 0 && cols > 0);
  vncl_group_destroy(gs);
  /* Large enough for the packed kernels on each device. */
  gcase big = {VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_NO_TRANS, 701,
               499, 403, 1, 1.0, 0.0, 0, 0};
  run_case(g, g1, &big);
  /* One step per device (the default for small products), and f64. */
  gcase c = {VNCL_F64, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_TRANS, 131, 77,
             203, 1, 1.5, 0.5, 0, 1};
  vncl_group_run r = run_case(g, g1, &c);
  assert_int_equal(r.steps[0], 1);
  assert_int_equal(r.steps[1], 1);
  vncl_group_destroy(g);
  vncl_group_destroy(g1);
}

/* Uneven speeds give uneven shares, in multiples of the panel unit. */
static void test_gemm_uneven(void **st) {
  (void)st;
  NEED_TWO();
  vncl_group *g = make("0,1", NULL), *g1 = make("1", NULL);
  double sp[2] = {1, 3};
  T_OK(NULL, vncl_group_set_speeds(g, sp, 2));
  gcase c = {VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_NO_TRANS, 333, 101,
             97, 1, 1.0, 1.0, 0, 0};
  vncl_group_run r = run_case(g, g1, &c);
  assert_int_equal(r.split, VNCL_GROUP_SPLIT_ROWS);
  assert_int_equal(r.share[0] + r.share[1], 333);
  assert_int_equal(r.share[0] % 16, 0);
  assert_true(r.share[0] >= 64 && r.share[0] <= 96); /* about a quarter */
  assert_true(r.speeds[0] == 1 && r.speeds[1] == 3);
  /* All work to one device when the other's share rounds to nothing. */
  double lop[2] = {1, 1000};
  T_OK(NULL, vncl_group_set_speeds(g, lop, 2));
  c.m = 40;
  c.n = 30;
  r = run_case(g, g1, &c);
  assert_int_equal(r.share[0], 0);
  assert_int_equal(r.share[1], 40);
  vncl_group_destroy(g);
  vncl_group_destroy(g1);
}

/* Batches: split by batch (strided, shared B, col-major, transposes), and
 * small batches split by panels of every product. */
static void test_gemm_batched(void **st) {
  (void)st;
  NEED_TWO();
  setenv("VNCL_GROUP_STEP_FLOPS", "1e5", 1); /* read when a group is made */
  vncl_group *g = make("0,1", NULL), *g1 = make("0", NULL);
  unsetenv("VNCL_GROUP_STEP_FLOPS");
  gcase cases[] = {
      {VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_NO_TRANS, 37, 45, 29, 7,
       1.0, 0.0, 0, 2},
      {VNCL_F32, VNCL_COL_MAJOR, VNCL_TRANS, VNCL_NO_TRANS, 64, 33, 51, 9,
       -0.5, 2.0, 0, 1},
      {VNCL_F32, VNCL_ROW_MAJOR, VNCL_TRANS, VNCL_TRANS, 21, 70, 40, 5, 2.0,
       0.0, 1, 0},
      {VNCL_F64, VNCL_COL_MAJOR, VNCL_NO_TRANS, VNCL_TRANS, 50, 20, 17, 6, 1.0,
       1.0, 1, 3},
      /* fewer than two products per device: panels of every product */
      {VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_TRANS, 90, 40, 23, 3, 1.0,
       0.5, 0, 1},
      {VNCL_F32, VNCL_COL_MAJOR, VNCL_TRANS, VNCL_NO_TRANS, 90, 40, 23, 2, 1.0,
       0.0, 1, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    vncl_group_run r = run_case(g, g1, &cases[i]);
    assert_int_equal(r.split, cases[i].batch >= 4 ? VNCL_GROUP_SPLIT_BATCH
                              : cases[i].lay == VNCL_ROW_MAJOR
                                  ? VNCL_GROUP_SPLIT_ROWS
                                  : VNCL_GROUP_SPLIT_COLS);
    assert_true(r.share[0] > 0 && r.share[1] > 0);
  }
  vncl_group_destroy(g);
  vncl_group_destroy(g1);
}

/* k == 0 and alpha == 0: C = beta*C, A and B never read (NaN there does not
 * leak); m == 0: nothing written. */
static void test_gemm_degenerate(void **st) {
  (void)st;
  NEED_TWO();
  vncl_group *g = make("0,1", NULL);
  float a[64 * 8], b[8 * 64], c[64 * 64];
  for (size_t i = 0; i < 64 * 8; i++) a[i] = b[i] = NAN;
  for (size_t i = 0; i < 64 * 64; i++) c[i] = (float)i;
  T_OK(NULL, vncl_group_gemm(g, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                             VNCL_NO_TRANS, 64, 64, 0, 1.0, a, 1, b, 64, 2.0,
                             c, 64));
  for (size_t i = 0; i < 64 * 64; i++) assert_true(c[i] == 2.0f * (float)i);
  T_OK(NULL, vncl_group_gemm(g, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                             VNCL_NO_TRANS, 64, 64, 8, 0.0, a, 8, b, 64, 0.5,
                             c, 64));
  for (size_t i = 0; i < 64 * 64; i++) assert_true(c[i] == (float)i);
  T_OK(NULL, vncl_group_gemm(g, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                             VNCL_NO_TRANS, 0, 64, 8, 1.0, a, 8, b, 64, 0.0,
                             c, 64));
  T_OK(NULL, vncl_group_gemm_batched(g, VNCL_F32, VNCL_ROW_MAJOR,
                                     VNCL_NO_TRANS, VNCL_NO_TRANS, 8, 8, 8,
                                     1.0, a, 8, 64, b, 8, 64, 0.0, c, 8, 64,
                                     0));
  for (size_t i = 0; i < 64 * 64; i++) assert_true(c[i] == (float)i);
  vncl_group_destroy(g);
}

static void test_gemm_bad_input(void **st) {
  (void)st;
  NEED_TWO();
  vncl_group *g = make("0,1", NULL);
  float a[16 * 16], b[16 * 16], c[16 * 16];
  for (int i = 0; i < 256; i++) {
    a[i] = b[i] = 1;
    c[i] = 5;
  }
  const vncl_dtype F = VNCL_F32;
  const vncl_layout R = VNCL_ROW_MAJOR;
  const vncl_trans N = VNCL_NO_TRANS;
  T_FAILS(NULL, vncl_group_gemm(NULL, F, R, N, N, 16, 16, 16, 1, a, 16, b, 16,
                                0, c, 16),
          VNCL_ERR_INVALID_ARG, "g is NULL");
  T_FAILS(NULL, vncl_group_gemm(g, F, R, N, N, 16, 16, 16, 1, NULL, 16, b,
                                16, 0, c, 16),
          VNCL_ERR_INVALID_ARG, "a is NULL");
  T_FAILS(NULL, vncl_group_gemm(g, F, R, N, N, 16, 16, 16, 1, a, 16, b, 16, 0,
                                NULL, 16),
          VNCL_ERR_INVALID_ARG, "c is NULL");
  T_FAILS(NULL, vncl_group_gemm(g, F, R, N, N, 16, 16, 16, 1, a, 15, b, 16, 0,
                                c, 16),
          VNCL_ERR_INVALID_ARG, "lda=15");
  T_FAILS(NULL, vncl_group_gemm(g, F, VNCL_COL_MAJOR, N, VNCL_TRANS, 16, 8,
                                16, 1, a, 16, b, 7, 0, c, 16),
          VNCL_ERR_INVALID_ARG, "ldb=7");
  T_FAILS(NULL, vncl_group_gemm(g, F, R, N, N, 16, 16, 16, 1, a, 16, b, 16, 0,
                                c, 8),
          VNCL_ERR_INVALID_ARG, "ldc=8");
  T_FAILS(NULL, vncl_group_gemm(g, F, (vncl_layout)7, N, N, 16, 16, 16, 1, a,
                                16, b, 16, 0, c, 16),
          VNCL_ERR_INVALID_ARG, "layout 7");
  T_FAILS(NULL, vncl_group_gemm(g, F, R, (vncl_trans)2, N, 16, 16, 16, 1, a,
                                16, b, 16, 0, c, 16),
          VNCL_ERR_INVALID_ARG, "ta 2");
  T_FAILS(NULL, vncl_group_gemm(g, VNCL_I32, R, N, N, 16, 16, 16, 1, a, 16, b,
                                16, 0, c, 16),
          VNCL_ERR_UNSUPPORTED, "i32");
  T_FAILS(NULL, vncl_group_gemm(g, (vncl_dtype)9, R, N, N, 16, 16, 16, 1, a,
                                16, b, 16, 0, c, 16),
          VNCL_ERR_INVALID_ARG, "not a dtype");
  T_FAILS(NULL, vncl_group_gemm(g, F, R, N, N, (size_t)1 << 31, 16, 16, 1, a,
                                16, b, 16, 0, c, 16),
          VNCL_ERR_INVALID_ARG, "2^31");
  T_FAILS(NULL, vncl_group_gemm(g, F, R, N, N, 1 << 30, 1 << 30, 16, 1, a, 16,
                                b, (size_t)1 << 30, 0, c, SIZE_MAX / 2),
          VNCL_ERR_INVALID_ARG, "overflows");
  T_FAILS(NULL, vncl_group_gemm_batched(g, F, R, N, N, 4, 4, 4, 1, a, 4, 16,
                                        b, 4, 16, 0, c, 4, 15, 3),
          VNCL_ERR_INVALID_ARG, "overlap");
  for (int i = 0; i < 256; i++) assert_true(c[i] == 5); /* nothing written */
  vncl_group_destroy(g);
  /* A device error names the device: no room under a 1 KiB limit (the
   * speeds are given, so no probe runs into the limit first). */
  vncl_options o;
  vncl_options_init(&o);
  o.memory_limit = 1024;
  g = make("0,1", &o);
  double sp[2] = {1, 1};
  T_OK(NULL, vncl_group_set_speeds(g, sp, 2));
  T_FAILS(NULL, vncl_group_gemm(g, F, R, N, N, 16, 16, 16, 1, a, 16, b, 16,
                                0, c, 16),
          VNCL_ERR_OUT_OF_MEMORY, "device 0");
  vncl_group_destroy(g);
}

/* ---- copies ------------------------------------------------------------------ */

static vncl_tensor *tensor(vncl_context *ctx, vncl_dtype dt, int64_t n) {
  vncl_tensor *t = NULL;
  T_OK(ctx, vncl_tensor_create(ctx, dt, 1, &n, &t));
  return t;
}

static void check_copy(vncl_group *g, vncl_context *from, vncl_context *to,
                       int64_t n) {
  float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  assert_non_null(x);
  assert_non_null(y);
  t_fill_random_f32(x, (size_t)n);
  vncl_tensor *s = tensor(from, VNCL_F32, n), *d = tensor(to, VNCL_F32, n);
  T_OK(from, vncl_tensor_write(s, x, (size_t)n * sizeof *x));
  T_OK(NULL, vncl_group_copy(g, d, s));
  memset(y, 0xff, (size_t)n * sizeof *y);
  T_OK(to, vncl_tensor_read(d, y, (size_t)n * sizeof *y));
  assert_memory_equal(x, y, (size_t)n * sizeof *x);
  vncl_tensor_destroy(s);
  vncl_tensor_destroy(d);
  free(x);
  free(y);
}

static void test_copy(void **st) {
  (void)st;
  NEED_TWO();
  vncl_group *g = make("0,1", NULL);
  vncl_context *c0 = vncl_group_context(g, 0), *c1 = vncl_group_context(g, 1);
  int64_t sizes[] = {1, 1000, (int64_t)1 << 20, 2621447}; /* to 2.5 chunks */
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    check_copy(g, c0, c1, sizes[i]);
    check_copy(g, c1, c0, sizes[i]);
  }
  check_copy(g, c0, c0, 4099); /* one context: a device copy */
  /* A copy sees the work enqueued before it on the source: a kernel. */
  vncl_tensor *s = tensor(c0, VNCL_F32, 3000), *d = tensor(c1, VNCL_F32, 3000);
  T_OK(c0, vncl_fill(c0, s, 2.5));
  T_OK(NULL, vncl_group_copy(g, d, s));
  float y[3000];
  T_OK(c1, vncl_tensor_read(d, y, sizeof y));
  for (int i = 0; i < 3000; i++) assert_true(y[i] == 2.5f);
  /* bad input */
  vncl_tensor *di = tensor(c1, VNCL_I32, 3000), *d2 = tensor(c1, VNCL_F32, 2999);
  T_FAILS(NULL, vncl_group_copy(g, di, s), VNCL_ERR_INVALID_ARG, "dtype");
  T_FAILS(NULL, vncl_group_copy(g, d2, s), VNCL_ERR_INVALID_ARG, "2999");
  T_FAILS(NULL, vncl_group_copy(g, s, s), VNCL_ERR_INVALID_ARG, "same");
  T_FAILS(NULL, vncl_group_copy(NULL, d, s), VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(NULL, vncl_group_copy(g, NULL, s), VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(NULL, vncl_group_copy(g, d, NULL), VNCL_ERR_INVALID_ARG, "NULL");
  vncl_context *other = t_context(NULL);
  vncl_tensor *o = tensor(other, VNCL_F32, 3000);
  T_FAILS(NULL, vncl_group_copy(g, o, s), VNCL_ERR_INVALID_ARG, "outside");
  vncl_tensor_destroy(o);
  vncl_context_destroy(other);
  vncl_tensor_destroy(s);
  vncl_tensor_destroy(d);
  vncl_tensor_destroy(di);
  vncl_tensor_destroy(d2);
  vncl_group_destroy(g);
}

/* The transfers of a split GEMM are in each context's profile, beside the
 * computation. */
static void test_profile(void **st) {
  (void)st;
  NEED_TWO();
  vncl_group *g = make("0,1", NULL);
  size_t m = 256, n = 192, k = 160;
  float *a = calloc(m * k, sizeof *a), *b = calloc(k * n, sizeof *b),
        *c = calloc(m * n, sizeof *c);
  for (int i = 0; i < 2; i++)
    T_OK(NULL, vncl_profile_reset(vncl_group_context(g, i)));
  T_OK(NULL, vncl_group_gemm(g, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                             VNCL_NO_TRANS, m, n, k, 1.0, a, k, b, n, 0.0, c,
                             n));
  for (int i = 0; i < 2; i++) {
    vncl_profile p;
    T_OK(NULL, vncl_profile_get(vncl_group_context(g, i), &p));
    bool wr = false, rd = false, gemm = false;
    for (int j = 0; j < p.num_ops; j++) {
      wr |= !strcmp(p.ops[j].name, "group_write") && p.ops[j].is_transfer;
      rd |= !strcmp(p.ops[j].name, "group_read") && p.ops[j].is_transfer;
      gemm |= !strcmp(p.ops[j].name, "gemm") && p.ops[j].flops > 0;
    }
    assert_true(wr && rd && gemm);
    assert_true(p.compute_seconds > 0 && p.transfer_seconds > 0);
  }
  free(a);
  free(b);
  free(c);
  vncl_group_destroy(g);
}

/* Speeds come from the tuning database when it has a measured rate for
 * every device (here both devices are one model: one row serves both). */
static void test_speeds_from_db(void **st) {
  (void)st;
  NEED_TWO();
  char dir[256], path[300];
  t_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/tuning.json", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  /* An entry for each of the two devices, as they describe themselves. */
  fprintf(f, "{\"schema\": \"vncl-tuning\", \"version\": 1, \"entries\": [");
  for (int i = 0; i < 2; i++)
    fprintf(f,
            "%s{\"vendor\": \"%s\", \"device\": \"%s\", \"driver\": "
            "\"elsewhere\", \"library\": \"0\", \"device_type\": \"%s\", "
            "\"kernel\": \"gemm\", \"dtype\": \"f32\", \"class\": \"square\", "
            "\"backend\": \"own\", \"gflops\": 123.5, \"params\": {}}",
            i ? ", " : "", g_dev[i].vendor, g_dev[i].name,
            g_dev[i].type == VNCL_DEVICE_GPU           ? "gpu"
            : g_dev[i].type == VNCL_DEVICE_ACCELERATOR ? "accelerator"
                                                       : "cpu");
  fprintf(f, "]}\n");
  fclose(f);
  vncl_options o;
  vncl_options_init(&o);
  o.tuning_db = path;
  vncl_group *g = make("0,1", &o);
  double sp[2];
  T_OK(NULL, vncl_group_speeds(g, sp, 2));
  assert_true(sp[0] == 123.5 && sp[1] == 123.5);
  vncl_group_destroy(g);
  t_rmtree(dir);
}

int main(void) {
  setenv("POCL_DEVICES", "pthread pthread", 1);
  unsetenv("VNCL_DEVICE");
  unsetenv("VNCL_GROUP_STEP_FLOPS");
  t_seed();
  t_devices_load(&g_n, g_dev);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_selectors),
      cmocka_unit_test(test_bad_selectors),
      cmocka_unit_test(test_speeds),
      cmocka_unit_test(test_gemm_split),
      cmocka_unit_test(test_gemm_uneven),
      cmocka_unit_test(test_gemm_batched),
      cmocka_unit_test(test_gemm_degenerate),
      cmocka_unit_test(test_gemm_bad_input),
      cmocka_unit_test(test_copy),
      cmocka_unit_test(test_profile),
      cmocka_unit_test(test_speeds_from_db),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
