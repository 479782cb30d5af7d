/* The public tuning API (include/vncl_tuning.h), through the public headers
 * only: the tables, the set in force and its source, sets per context, one
 * candidate's measurement, and the database (load, merge, put, save). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common.h"

static char dir[512];

static int setup(void **state) {
  (void)state;
  t_tmpdir(dir, sizeof dir);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  t_rmtree(dir);
  return 0;
}

static vncl_context *ctx_db(const char *path) {
  vncl_options o;
  vncl_options_init(&o);
  o.tuning_db = path;
  o.cache_dir = dir;
  vncl_context *ctx = NULL;
  T_OK(NULL, vncl_context_create(&ctx, &o));
  return ctx;
}

static double value_of(const vncl_tuning_params *p, const char *name) {
  double v = NAN;
  T_OK(NULL, vncl_tuning_value(p, name, &v));
  return v;
}

static vncl_tuning_params one(const char *name, double v) {
  vncl_tuning_params p;
  memset(&p, 0, sizeof p);
  snprintf(p.names[0], sizeof p.names[0], "%s", name);
  p.values[0] = v;
  p.count = 1;
  return p;
}

/* Every family's table: names, defaults within ranges, candidates too. */
static void test_tables(void **st) {
  (void)st;
  int nf = vncl_tuning_family_count();
  assert_int_equal(nf, 7);
  bool gemm = false, transpose = false;
  for (int f = 0; f < nf; f++) {
    const char *name = vncl_tuning_family_name(f);
    assert_non_null(name);
    gemm |= !strcmp(name, "gemm");
    transpose |= !strcmp(name, "transpose");
    int n = vncl_tuning_tunable_count(name);
    assert_true(n > 0 && n <= VNCL_TUNING_MAX_PARAMS);
    for (int i = 0; i < n; i++) {
      vncl_tunable t;
      memset(&t, 0xa5, sizeof t);
      T_OK(NULL, vncl_tuning_tunable(name, i, &t));
      assert_true(t.name && t.name[0] && t.meaning && t.meaning[0] &&
                  t.kernel && t.kernel[0]);
      if (!(t.min <= t.def && t.def <= t.max))
        fail_msg("%s %s: default %g outside [%g, %g]", name, t.name, t.def,
                 t.min, t.max);
      assert_true(t.nfull >= 1 && t.nquick >= 1);
      for (int j = 0; j < t.nfull + t.nquick; j++) {
        double c = j < t.nfull ? t.full[j] : t.quick[j - t.nfull];
        if (!(c >= t.min && c <= t.max))
          fail_msg("%s %s: candidate %g outside [%g, %g]", name, t.name, c,
                   t.min, t.max);
      }
    }
    vncl_tunable t;
    T_FAILS(NULL, vncl_tuning_tunable(name, n, &t), VNCL_ERR_INVALID_ARG,
            "tunables");
  }
  assert_true(gemm && transpose);
  assert_null(vncl_tuning_family_name(-1));
  assert_null(vncl_tuning_family_name(nf));
  assert_int_equal(vncl_tuning_tunable_count("nope"), -1);
  vncl_tunable t;
  T_FAILS(NULL, vncl_tuning_tunable("nope", 0, &t), VNCL_ERR_INVALID_ARG,
          "nope");
  T_FAILS(NULL, vncl_tuning_tunable("gemm", 0, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
}

/* The set in force and its source; bad input is refused by name. */
static void test_get_and_bad_input(void **st) {
  (void)st;
  vncl_context *ctx = ctx_db("/nonexistent/none.json");
  vncl_tuning_params p;
  T_OK(ctx, vncl_tuning_get(ctx, "gemm", VNCL_F32, "square", &p));
  assert_int_equal(p.count, vncl_tuning_tunable_count("gemm"));
  assert_true(p.source == VNCL_TUNING_SOURCE_BUILTIN ||
              p.source == VNCL_TUNING_SOURCE_TABLE);
  for (int i = 0; i < p.count; i++) {
    vncl_tunable t;
    T_OK(NULL, vncl_tuning_tunable("gemm", i, &t));
    assert_string_equal(p.names[i], t.name);
    assert_true(p.values[i] >= t.min && p.values[i] <= t.max);
  }
  T_OK(ctx, vncl_tuning_get(ctx, "transpose", VNCL_F32, NULL, &p));
  assert_int_equal(p.count, vncl_tuning_tunable_count("transpose"));
  double nt = -1;
  T_OK(NULL, vncl_tuning_value(&p, "NT_STORE", &nt));
  assert_true(nt == 0 || nt == 1);
  assert_non_null(vncl_tuning_source_name(p.source));

  vncl_tuning_params before, after;
  T_OK(ctx, vncl_tuning_get(ctx, "gemm", VNCL_F32, "narrow", &before));
  T_FAILS(NULL, vncl_tuning_get(NULL, "gemm", VNCL_F32, NULL, &p),
          VNCL_ERR_INVALID_ARG, "ctx is NULL");
  T_FAILS(ctx, vncl_tuning_get(ctx, "nope", VNCL_F32, NULL, &p),
          VNCL_ERR_INVALID_ARG, "nope");
  T_FAILS(ctx, vncl_tuning_get(ctx, "gemm", VNCL_F32, "round", &p),
          VNCL_ERR_INVALID_ARG, "round");
  T_FAILS(ctx, vncl_tuning_get(ctx, "gemm", VNCL_I32, NULL, &p),
          VNCL_ERR_INVALID_ARG, "i32");
  T_FAILS(ctx, vncl_tuning_get(ctx, "gemm", VNCL_F32, NULL, NULL),
          VNCL_ERR_INVALID_ARG, "out is NULL");
  vncl_tuning_params bad = one("NOPE", 1);
  T_FAILS(ctx, vncl_tuning_set(ctx, "gemm", VNCL_F32, "narrow", &bad),
          VNCL_ERR_INVALID_ARG, "NOPE");
  bad = one("VWD", 1000);
  T_FAILS(ctx, vncl_tuning_set(ctx, "gemm", VNCL_F32, "narrow", &bad),
          VNCL_ERR_INVALID_ARG, "outside its range");
  /* A rule of gemm_direct: WGD_M a multiple of LDM. */
  bad = one("WGD_M", 4);
  snprintf(bad.names[1], sizeof bad.names[1], "LDM");
  bad.values[1] = 3;
  bad.count = 2;
  T_FAILS(ctx, vncl_tuning_set(ctx, "gemm", VNCL_F32, "narrow", &bad),
          VNCL_ERR_INVALID_ARG, "multiple of LDM");
  bad = one("WG", 48);
  T_FAILS(ctx, vncl_tuning_set(ctx, "reduce", VNCL_F32, NULL, &bad),
          VNCL_ERR_INVALID_ARG, "WG=48");
  double v;
  T_FAILS(NULL, vncl_tuning_value(&before, "NOPE", &v), VNCL_ERR_INVALID_ARG,
          "NOPE");
  /* Nothing was installed by the refused calls. */
  T_OK(ctx, vncl_tuning_get(ctx, "gemm", VNCL_F32, "narrow", &after));
  assert_int_equal(after.source, before.source);
  assert_memory_equal(after.values, before.values,
                      sizeof(double) * (size_t)before.count);
  vncl_context_destroy(ctx);
}

/* VNCL_NATIVE_FLOAT_WIDTH picks the rows of another vector-width class
 * (CI's AVX2 stage): on a CPU device the GEMM f32 row's vector width
 * follows it (8: the AVX2 row, 16: the AVX-512 one); elsewhere (GPU rows
 * have no width class) nothing changes; a bad value is ignored. */
static double gemm_vw(const char *width) {
  t_env w;
  t_env_set(&w, "VNCL_NATIVE_FLOAT_WIDTH", width);
  vncl_context *ctx = ctx_db("/nonexistent/none.json");
  vncl_tuning_params p;
  T_OK(ctx, vncl_tuning_get(ctx, "gemm", VNCL_F32, "square", &p));
  double vw = 0;
  T_OK(NULL, vncl_tuning_value(&p, "VW", &vw));
  vncl_context_destroy(ctx);
  t_env_restore(&w);
  return vw;
}

static void test_native_width_override(void **st) {
  (void)st;
  vncl_context *ctx = ctx_db("/nonexistent/none.json");
  vncl_device_info di;
  T_OK(ctx, vncl_context_device_info(ctx, &di));
  vncl_context_destroy(ctx);
  double own = gemm_vw(NULL);
  if (di.type == VNCL_DEVICE_CPU) {
    assert_true(gemm_vw("8") == 8);
    assert_true(gemm_vw("16") == 16);
  } else {
    assert_true(gemm_vw("8") == own);
  }
  assert_true(gemm_vw("7") == own);
  assert_true(gemm_vw("eight") == own);
}

/* A saved set whose size switches say "never" (1e30, switch_mnk16's
 * default wherever a row does not set it: AVX2 CPUs, GPUs) reads back: the
 * reader once refused any value past 1e18, so on such devices every
 * database entry was dropped. */
static void test_database_never_switch(void **st) {
  (void)st;
  char path[700];
  snprintf(path, sizeof path, "%s/never.json", dir);
  vncl_context *ctx = ctx_db("/nonexistent/none.json");
  vncl_tuning_db *db = NULL;
  T_OK(NULL, vncl_tuning_db_create(&db));
  vncl_tuning_params p = one("switch_mnk16", 1e30);
  snprintf(p.names[1], sizeof p.names[1], "small_mnk");
  p.values[1] = 1e30;
  p.count = 2;
  T_OK(ctx, vncl_tuning_db_put(db, ctx, "gemm", VNCL_F32, "square", &p, 1.0));
  T_OK(NULL, vncl_tuning_db_save(db, path));
  vncl_tuning_db_free(db);
  vncl_context_destroy(ctx);
  vncl_context *c2 = ctx_db(path);
  vncl_tuning_params got;
  T_OK(c2, vncl_tuning_get(c2, "gemm", VNCL_F32, "square", &got));
  assert_int_equal(got.source, VNCL_TUNING_SOURCE_DATABASE);
  double v = 0;
  T_OK(NULL, vncl_tuning_value(&got, "switch_mnk16", &v));
  assert_true(v == 1e30);
  T_OK(NULL, vncl_tuning_value(&got, "small_mnk", &v));
  assert_true(v == 1e30);
  vncl_context_destroy(c2);
}

/* The flat set in force on c for dt is the one one("switch_mnk", 0)
 * installed over orig: the user's, switch_mnk 0, the rest orig's. */
static void installed(vncl_context *c, vncl_dtype dt,
                      const vncl_tuning_params *orig) {
  vncl_tuning_params got;
  T_OK(c, vncl_tuning_get(c, "gemm", dt, "flat", &got));
  assert_int_equal(got.source, VNCL_TUNING_SOURCE_USER);
  assert_true(value_of(&got, "switch_mnk") == 0);
  assert_true(value_of(&got, "MR") == value_of(orig, "MR"));
}

/* A set installed on one context is that context's, and its storage
 * class's (bf16 and f16 share one, f32 has its own); NULL withdraws it. */
static void test_set_per_context(void **st) {
  (void)st;
  vncl_context *a = ctx_db("/nonexistent/none.json");
  vncl_context *b = ctx_db("/nonexistent/none.json");
  vncl_tuning_params p = one("switch_mnk", 0), got, orig, orig16;
  T_OK(a, vncl_tuning_get(a, "gemm", VNCL_F32, "flat", &orig));
  T_OK(a, vncl_tuning_get(a, "gemm", VNCL_BF16, "flat", &orig16));
  T_OK(a, vncl_tuning_set(a, "gemm", VNCL_BF16, "flat", &p));
  installed(a, VNCL_F16, &orig16); /* the 16-bit class: f16 too */
  /* f32's set is its own: untouched by the 16-bit class's. */
  T_OK(a, vncl_tuning_get(a, "gemm", VNCL_F32, "flat", &got));
  assert_int_equal(got.source, orig.source);
  assert_true(value_of(&got, "switch_mnk") == value_of(&orig, "switch_mnk"));
  T_OK(a, vncl_tuning_set(a, "gemm", VNCL_F32, "flat", &p));
  installed(a, VNCL_F32, &orig);
  T_OK(b, vncl_tuning_get(b, "gemm", VNCL_F32, "flat", &got));
  assert_int_equal(got.source, orig.source);
  assert_true(value_of(&got, "switch_mnk") == value_of(&orig, "switch_mnk"));
  /* Products on both stay right (the packed path on a at every size). */
  char why[256];
  if (!t_gemm_f32_check(a, 40, 300, 50, why, sizeof why)) fail_msg("%s", why);
  if (!t_gemm_f32_check(b, 40, 300, 50, why, sizeof why)) fail_msg("%s", why);
  T_OK(a, vncl_tuning_set(a, "gemm", VNCL_F32, "flat", NULL));
  T_OK(a, vncl_tuning_get(a, "gemm", VNCL_F32, "flat", &got));
  assert_int_equal(got.source, orig.source);
  assert_memory_equal(got.values, orig.values,
                      sizeof(double) * (size_t)orig.count);
  T_OK(a, vncl_tuning_get(a, "gemm", VNCL_BF16, "flat", &got));
  assert_int_equal(got.source, VNCL_TUNING_SOURCE_USER);
  T_OK(a, vncl_tuning_set(a, "gemm", VNCL_F16, "flat", NULL));
  T_OK(a, vncl_tuning_get(a, "gemm", VNCL_BF16, "flat", &got));
  assert_int_equal(got.source, orig16.source);
  assert_memory_equal(got.values, orig16.values,
                      sizeof(double) * (size_t)orig16.count);
  vncl_context_destroy(a);
  vncl_context_destroy(b);
}

/* One candidate's measurement; the installed set is back afterwards. */
static void test_measure(void **st) {
  (void)st;
  vncl_context *ctx = ctx_db("/nonexistent/none.json");
  vncl_tuning_params p = one("switch_mnk", 0), got;
  double s = -1;
  T_OK(ctx, vncl_tuning_measure(ctx, "gemm", VNCL_F32, &p, 64, 64, 64, 3, &s));
  assert_true(isfinite(s) && s > 0);
  T_OK(ctx, vncl_tuning_get(ctx, "gemm", VNCL_F32, "square", &got));
  assert_int_not_equal(got.source, VNCL_TUNING_SOURCE_USER);
  vncl_tuning_params mine = one("switch_mnk_bt", 777);
  T_OK(ctx, vncl_tuning_set(ctx, "gemm", VNCL_F32, "square", &mine));
  T_OK(ctx, vncl_tuning_measure(ctx, "gemm", VNCL_F32, &p, 64, 64, 64, 1, &s));
  T_OK(ctx, vncl_tuning_get(ctx, "gemm", VNCL_F32, "square", &got));
  assert_int_equal(got.source, VNCL_TUNING_SOURCE_USER);
  assert_true(value_of(&got, "switch_mnk_bt") == 777);
  assert_true(value_of(&got, "switch_mnk") != 0);
  T_FAILS(ctx, vncl_tuning_measure(ctx, "gemm", VNCL_F32, &p, 64, 64, 64, 0,
                                   &s),
          VNCL_ERR_INVALID_ARG, "runs");
  T_FAILS(ctx, vncl_tuning_measure(ctx, "gemm", VNCL_F32, &p, 0, 64, 64, 1,
                                   &s),
          VNCL_ERR_INVALID_ARG, "m, n, k");
  T_FAILS(ctx, vncl_tuning_measure(ctx, "reduce", VNCL_F32, &p, 64, 64, 64,
                                   1, &s),
          VNCL_ERR_UNSUPPORTED, "only gemm");
  vncl_context_destroy(ctx);
}

/* The database: put, save, load, merge, and a context that reads it. */
static void test_database(void **st) {
  (void)st;
  char path[700], bad[700];
  snprintf(path, sizeof path, "%s/db/tuning.json", dir);
  snprintf(bad, sizeof bad, "%s/bad.json", dir);
  vncl_context *ctx = ctx_db("/nonexistent/none.json");
  vncl_tuning_db *db = NULL, *back = NULL, *merged = NULL;
  T_OK(NULL, vncl_tuning_db_create(&db));
  vncl_tuning_params g = one("switch_mnk", 0);
  T_OK(ctx, vncl_tuning_db_put(db, ctx, "gemm", VNCL_F32, "square", &g, 12.5));
  vncl_tuning_params t = one("TILE", 16);
  T_OK(ctx, vncl_tuning_db_put(db, ctx, "transpose", VNCL_F32, NULL, &t, 0));
  T_OK(ctx, vncl_tuning_db_put(db, ctx, "gemm", VNCL_F32, "square", &g, 13));
  assert_int_equal(vncl_tuning_db_count(db), 2);
  T_FAILS(ctx, vncl_tuning_db_put(db, ctx, "gemm", VNCL_F32, NULL, &g, NAN),
          VNCL_ERR_INVALID_ARG, "rate");
  vncl_tuning_params nope = one("NOPE", 1);
  T_FAILS(ctx, vncl_tuning_db_put(db, ctx, "gemm", VNCL_F32, NULL, &nope, 1),
          VNCL_ERR_INVALID_ARG, "NOPE");
  assert_int_equal(vncl_tuning_db_count(db), 2);
  T_OK(NULL, vncl_tuning_db_save(db, path));
  T_OK(NULL, vncl_tuning_db_load(path, &back));
  assert_int_equal(vncl_tuning_db_count(back), 2);
  T_OK(NULL, vncl_tuning_db_create(&merged));
  T_OK(NULL, vncl_tuning_db_merge(merged, back));
  T_OK(NULL, vncl_tuning_db_merge(merged, db));
  assert_int_equal(vncl_tuning_db_count(merged), 2);
  vncl_tuning_db_free(merged);
  vncl_tuning_db_free(back);
  vncl_tuning_db_free(db);
  vncl_tuning_db_free(NULL);

  /* A context on that database runs its entries. */
  vncl_context *c2 = ctx_db(path);
  vncl_tuning_database_info di;
  memset(&di, 0x5a, sizeof di);
  T_OK(c2, vncl_tuning_database(c2, &di));
  assert_int_equal(di.state, 1);
  assert_int_equal(di.entries, 2);
  assert_string_equal(di.path, path);
  T_OK(ctx, vncl_tuning_database(ctx, &di));
  assert_int_equal(di.state, 0);
  assert_int_equal(di.entries, 0);
  T_FAILS(ctx, vncl_tuning_database(ctx, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  vncl_tuning_params got;
  T_OK(c2, vncl_tuning_get(c2, "gemm", VNCL_F32, "square", &got));
  assert_int_equal(got.source, VNCL_TUNING_SOURCE_DATABASE);
  assert_true(got.index >= 0);
  assert_true(value_of(&got, "switch_mnk") == 0);
  assert_true(got.rate == 13); /* the later put replaced the first */
  assert_non_null(strstr(got.origin, "exact device and driver"));
  assert_non_null(strstr(got.origin, path));
  T_OK(c2, vncl_tuning_get(c2, "transpose", VNCL_F32, NULL, &got));
  assert_int_equal(got.source, VNCL_TUNING_SOURCE_DATABASE);
  assert_true(value_of(&got, "TILE") == 16);
  char why[256];
  if (!t_gemm_f32_check(c2, 33, 65, 17, why, sizeof why)) fail_msg("%s", why);
  vncl_context_destroy(c2);

  /* Missing: empty; corrupt: an error naming it; NULL arguments. */
  snprintf(bad, sizeof bad, "%s/missing.json", dir);
  T_OK(NULL, vncl_tuning_db_load(bad, &back));
  assert_int_equal(vncl_tuning_db_count(back), 0);
  vncl_tuning_db_free(back);
  snprintf(bad, sizeof bad, "%s/bad.json", dir);
  FILE *f = fopen(bad, "w");
  assert_non_null(f);
  fputs("{\"schema\": \"vncl-tuning\", \"version\": 1, \"entries\": [", f);
  fclose(f);
  back = (vncl_tuning_db *)&back; /* must stay untouched on error */
  vncl_tuning_db *keep = back;
  T_FAILS(NULL, vncl_tuning_db_load(bad, &back), VNCL_ERR_IO, "JSON");
  assert_ptr_equal(back, keep);
  T_FAILS(NULL, vncl_tuning_db_load(NULL, &back), VNCL_ERR_INVALID_ARG,
          "path is NULL");
  T_FAILS(NULL, vncl_tuning_db_save(NULL, path), VNCL_ERR_INVALID_ARG,
          "db is NULL");
  T_FAILS(NULL, vncl_tuning_db_merge(NULL, NULL), VNCL_ERR_INVALID_ARG,
          "into is NULL");
  assert_int_equal(vncl_tuning_db_count(NULL), 0);
  vncl_context_destroy(ctx);
}

/* vncl_tuning_check: the set in force fits; a candidate breaking a
 * kernel's rule is refused by the rule, on every device; a work-group or
 * local-memory candidate is refused exactly when the device's limits
 * (read from the device found) say so; bad input is refused by name and
 * writes no reason. Nothing is installed. */
static void test_check(void **st) {
  (void)st;
  vncl_context *ctx = ctx_db("/nonexistent/none.json");
  vncl_device_info info;
  T_OK(ctx, vncl_context_device_info(ctx, &info));
  vncl_tuning_params none;
  memset(&none, 0, sizeof none);
  char why[256];
  for (int f = 0; f < vncl_tuning_family_count(); f++) {
    memset(why, 'x', sizeof why);
    T_OK(ctx, vncl_tuning_check(ctx, vncl_tuning_family_name(f), VNCL_F32,
                                NULL, &none, why, sizeof why));
    assert_int_equal(why[0], 'x'); /* no reason when it fits */
  }
  T_OK(ctx, vncl_tuning_check(ctx, "clblast", VNCL_F32, NULL, &none, NULL, 0));

  /* gemm_direct's WGD_M must be a multiple of LDM. */
  vncl_tuning_params p;
  memset(&p, 0, sizeof p);
  snprintf(p.names[0], sizeof p.names[0], "WGD_M");
  snprintf(p.names[1], sizeof p.names[1], "LDM");
  p.values[0] = 6;
  p.values[1] = 4;
  p.count = 2;
  memset(why, 'x', sizeof why);
  T_FAILS(ctx, vncl_tuning_check(ctx, "gemm", VNCL_F32, "square", &p, why,
                                 sizeof why),
          VNCL_ERR_UNSUPPORTED, "gemm_direct");
  assert_non_null(memchr(why, '\0', sizeof why));
  assert_non_null(strstr(why, "gemm_direct"));
  /* CLBlast: MWG must be a multiple of MDIMC * VWM (32 vs 16 * 4). */
  memset(&p, 0, sizeof p);
  const char *cn[] = {"MWG", "MDIMC", "VWM"};
  const double cv[] = {32, 16, 4};
  for (int i = 0; i < 3; i++) {
    snprintf(p.names[i], sizeof p.names[i], "%s", cn[i]);
    p.values[i] = cv[i];
  }
  p.count = 3;
  T_FAILS(ctx, vncl_tuning_check(ctx, "clblast", VNCL_F64, NULL, &p, why,
                                 sizeof why),
          VNCL_ERR_UNSUPPORTED, "divisibility");
  assert_int_equal(vncl_tuning_tunable_count("clblast"), 16);

  /* transpose TILE x WGY work-items and TILE x (TILE + 1) 8-byte elements
   * of local memory, against this device's limits. */
  static const double tiles[] = {8, 16, 32, 64}, wgys[] = {1, 2, 4, 8, 16};
  int refused = 0, fitted = 0;
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 5; b++) {
      size_t wg = (size_t)(tiles[a] * wgys[b]);
      size_t lb = (size_t)(tiles[a] * (tiles[a] + 1) * 8);
      if (info.preferred_work_group_multiple > 1 &&
          wg % info.preferred_work_group_multiple)
        continue; /* whether the row asks for multiples is the row's */
      bool fits = wg <= info.max_work_group_size &&
                  (!info.local_mem_bytes || lb <= info.local_mem_bytes);
      memset(&p, 0, sizeof p);
      snprintf(p.names[0], sizeof p.names[0], "TILE");
      snprintf(p.names[1], sizeof p.names[1], "WGY");
      p.values[0] = tiles[a];
      p.values[1] = wgys[b];
      p.count = 2;
      vncl_status s = vncl_tuning_check(ctx, "transpose", VNCL_F32, NULL, &p,
                                        why, sizeof why);
      if (fits) {
        if (s) fail_msg("TILE=%g WGY=%g refused: %s", tiles[a], wgys[b], why);
        fitted++;
      } else {
        assert_int_equal(s, VNCL_ERR_UNSUPPORTED);
        assert_non_null(strstr(vncl_errmsg(ctx), "transpose"));
        refused++;
      }
    }
  assert_true(fitted > 0);
  (void)refused; /* 0 on a device whose limits take every candidate */

  /* Bad input: refused by name, why untouched. */
  memset(why, 'x', sizeof why);
  T_FAILS(NULL, vncl_tuning_check(NULL, "gemm", VNCL_F32, NULL, &none, why,
                                  sizeof why),
          VNCL_ERR_INVALID_ARG, "ctx is NULL");
  T_FAILS(ctx, vncl_tuning_check(ctx, "nope", VNCL_F32, NULL, &none, why,
                                 sizeof why),
          VNCL_ERR_INVALID_ARG, "nope");
  T_FAILS(ctx, vncl_tuning_check(ctx, "gemm", VNCL_F32, NULL, NULL, why,
                                 sizeof why),
          VNCL_ERR_INVALID_ARG, "p is NULL");
  T_FAILS(ctx, vncl_tuning_check(ctx, "gemm", VNCL_F32, NULL, &none, why, 0),
          VNCL_ERR_INVALID_ARG, "cap 0");
  T_FAILS(ctx, vncl_tuning_check(ctx, "gemm", VNCL_I32, NULL, &none, why,
                                 sizeof why),
          VNCL_ERR_INVALID_ARG, "i32");
  T_FAILS(ctx, vncl_tuning_check(ctx, "gemm", VNCL_F32, "round", &none, why,
                                 sizeof why),
          VNCL_ERR_INVALID_ARG, "round");
  vncl_tuning_params bad = one("NOPE", 1);
  T_FAILS(ctx, vncl_tuning_check(ctx, "transpose", VNCL_F32, NULL, &bad, why,
                                 sizeof why),
          VNCL_ERR_INVALID_ARG, "NOPE");
  bad = one("TILE", 1e9);
  T_FAILS(ctx, vncl_tuning_check(ctx, "transpose", VNCL_F32, NULL, &bad, why,
                                 sizeof why),
          VNCL_ERR_INVALID_ARG, "TILE");
  for (size_t i = 0; i < sizeof why; i++) assert_int_equal(why[i], 'x');
  /* Nothing was installed: the set in force is still the built-in one. */
  vncl_tuning_params got;
  T_OK(ctx, vncl_tuning_get(ctx, "transpose", VNCL_F32, NULL, &got));
  assert_int_not_equal(got.source, VNCL_TUNING_SOURCE_USER);
  T_OK(ctx, vncl_tuning_get(ctx, "gemm", VNCL_F32, "square", &got));
  assert_int_not_equal(got.source, VNCL_TUNING_SOURCE_USER);
  vncl_context_destroy(ctx);
}

/* CLBlast's Xgemm parameters: installed for the device (no withdrawal),
 * refused when they break its rules, and kept in the database inside the
 * gemm entry they belong to (which must come first). */
static void test_clblast(void **st) {
  (void)st;
  char path[700];
  snprintf(path, sizeof path, "%s/clblast.json", dir);
  vncl_context *ctx = ctx_db("/nonexistent/none.json");
  vncl_tuning_params none;
  memset(&none, 0, sizeof none);
  T_OK(ctx, vncl_tuning_set(ctx, "clblast", VNCL_F32, NULL, &none));
  T_FAILS(ctx, vncl_tuning_set(ctx, "clblast", VNCL_F32, NULL, NULL),
          VNCL_ERR_UNSUPPORTED, "withdrawn");
  vncl_tuning_params bad = one("MWG", 32);
  bad.values[1] = 16;
  snprintf(bad.names[1], sizeof bad.names[1], "MDIMC");
  bad.count = 2; /* 32 is no multiple of MDIMC * VWM = 16 * 4 */
  T_FAILS(ctx, vncl_tuning_set(ctx, "clblast", VNCL_F32, NULL, &bad),
          VNCL_ERR_INVALID_ARG, "divisibility");
  vncl_tuning_params kwg = one("KWG", 16);
  vncl_tuning_db *db = NULL;
  T_OK(NULL, vncl_tuning_db_create(&db));
  T_FAILS(ctx, vncl_tuning_db_put(db, ctx, "clblast", VNCL_F32, "flat", &kwg,
                                  0),
          VNCL_ERR_INVALID_ARG, "put the gemm set first");
  assert_int_equal(vncl_tuning_db_count(db), 0);
  vncl_tuning_params backend = one("backend", 1);
  T_OK(ctx, vncl_tuning_db_put(db, ctx, "gemm", VNCL_F32, "flat", &backend, 3));
  T_FAILS(ctx, vncl_tuning_db_put(db, ctx, "clblast", VNCL_F32, "flat", &bad,
                                  0),
          VNCL_ERR_INVALID_ARG, "divisibility");
  T_OK(ctx, vncl_tuning_db_put(db, ctx, "clblast", VNCL_F32, "flat", &kwg, 7));
  assert_int_equal(vncl_tuning_db_count(db), 1);
  T_OK(NULL, vncl_tuning_db_save(db, path));
  vncl_tuning_db_free(db);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  cJSON *root = cJSON_Parse(text);
  cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "entries"), 0);
  assert_non_null(e);
  assert_string_equal(cJSON_GetObjectItem(e, "backend")->valuestring,
                      "clblast");
  assert_string_equal(cJSON_GetObjectItem(e, "class")->valuestring, "flat");
  cJSON *cb = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "params"), "clblast");
  assert_non_null(cb);
  assert_int_equal(cJSON_GetArraySize(cb),
                   vncl_tuning_tunable_count("clblast"));
  assert_int_equal(cJSON_GetObjectItem(cb, "KWG")->valueint, 16);
  cJSON_Delete(root);
  /* The database entry applies on a context that reads it. */
  vncl_context *c2 = ctx_db(path);
  vncl_tuning_params got;
  T_OK(c2, vncl_tuning_get(c2, "gemm", VNCL_F32, "flat", &got));
  assert_int_equal(got.source, VNCL_TUNING_SOURCE_DATABASE);
  assert_true(value_of(&got, "backend") == 1);
  vncl_context_destroy(c2);
  vncl_context_destroy(ctx);
}

static unsigned mode_of(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return (unsigned)(st.st_mode & 07777);
}

/* The journal: lines survive a reopen; a file others may write is not
 * read but replaced; a folder others may write is refused; bad input is
 * refused by name. */
static void test_journal(void **st) {
  (void)st;
  char sub[700], path[800];
  snprintf(sub, sizeof sub, "%s/journal", dir);
  snprintf(path, sizeof path, "%s/tuning.json.partial", sub);
  mode_t old_mask = umask(0);
  vncl_tuning_journal *j = NULL;
  T_OK(NULL, vncl_tuning_journal_open(path, &j));
  assert_int_equal(mode_of(sub), 0700);
  assert_int_equal(mode_of(path), 0600);
  assert_int_equal(vncl_tuning_journal_count(j), 0);
  char a[64], b[64];
  snprintf(a, sizeof a, "{\"n\":%u}", (unsigned)(t_rand_u64() & 0xffffffffu));
  snprintf(b, sizeof b, "line %u", (unsigned)(t_rand_u64() & 0xffffffffu));
  T_OK(NULL, vncl_tuning_journal_append(j, a));
  T_OK(NULL, vncl_tuning_journal_append(j, b));
  T_FAILS(NULL, vncl_tuning_journal_append(j, "two\nlines"),
          VNCL_ERR_INVALID_ARG, "newline");
  T_FAILS(NULL, vncl_tuning_journal_append(j, NULL), VNCL_ERR_INVALID_ARG,
          "line is NULL");
  vncl_tuning_journal_close(j, 0);
  j = NULL;
  T_OK(NULL, vncl_tuning_journal_open(path, &j));
  assert_int_equal(vncl_tuning_journal_count(j), 2);
  assert_string_equal(vncl_tuning_journal_line(j, 0), a);
  assert_string_equal(vncl_tuning_journal_line(j, 1), b);
  assert_null(vncl_tuning_journal_line(j, 2));
  assert_null(vncl_tuning_journal_line(j, -1));
  assert_string_equal(vncl_tuning_journal_note(j), "");
  vncl_tuning_journal_close(j, 0);
  /* Loosened: not read, replaced by a new 0600 file. */
  assert_int_equal(chmod(path, 0666), 0);
  j = NULL;
  T_OK(NULL, vncl_tuning_journal_open(path, &j));
  assert_int_equal(vncl_tuning_journal_count(j), 0);
  assert_non_null(strstr(vncl_tuning_journal_note(j), "not trusted"));
  assert_int_equal(mode_of(path), 0600);
  vncl_tuning_journal_close(j, 1);
  assert_int_not_equal(access(path, F_OK), 0);
  /* A folder others may write (not sticky) is refused. */
  assert_int_equal(chmod(sub, 0777), 0);
  j = NULL;
  T_FAILS(NULL, vncl_tuning_journal_open(path, &j), VNCL_ERR_IO,
          "not trusted");
  assert_null(j);
  assert_int_not_equal(access(path, F_OK), 0);
  assert_int_equal(chmod(sub, 0700), 0);
  umask(old_mask);
  T_FAILS(NULL, vncl_tuning_journal_open(NULL, &j), VNCL_ERR_INVALID_ARG,
          "path is NULL");
  T_FAILS(NULL, vncl_tuning_journal_open(path, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  T_FAILS(NULL, vncl_tuning_journal_open("/tmp/", &j), VNCL_ERR_INVALID_ARG,
          "names no file");
  assert_int_equal(vncl_tuning_journal_count(NULL), 0);
  assert_string_equal(vncl_tuning_journal_note(NULL), "");
  vncl_tuning_journal_close(NULL, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tables),
      cmocka_unit_test(test_get_and_bad_input),
      cmocka_unit_test(test_native_width_override),
      cmocka_unit_test(test_set_per_context),
      cmocka_unit_test(test_check),
      cmocka_unit_test(test_clblast),
      cmocka_unit_test(test_journal),
      cmocka_unit_test(test_measure),
      cmocka_unit_test(test_database),
      cmocka_unit_test(test_database_never_switch),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
