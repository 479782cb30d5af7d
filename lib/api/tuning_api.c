/*
 * The public tuning API (include/vncl_tuning.h) over the parameter store
 * (lib/tuning/) and the families' tables (gemm.h, ops.h). It spans every
 * family, so it sits above them (the "api" layer).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/tuning_check.h"
#include "vncl_tuning.h"

struct vncl_tuning_db {
  vncl__tuning_db db;
};

/* ---- families -------------------------------------------------------- */

int vncl_tuning_family_count(void) { return 1 + VNCL__OPS_FAMILIES; }

static const vncl__param_family *family_at(int i) {
  if (i == 0) return &vncl__gemm_family;
  return vncl__ops_family_of(i - 1);
}

const char *vncl_tuning_family_name(int i) {
  const vncl__param_family *f =
      i >= 0 && i < vncl_tuning_family_count() ? family_at(i) : NULL;
  return f ? f->kernel : NULL;
}

/* The family named `name`, or NULL with a message on ctx. "clblast"
 * (CLBlast's Xgemm parameters, index -1) only where clblast is set. */
static const vncl__param_family *family_of_x(const vncl_context *ctx,
                                             const char *fn, const char *name,
                                             int *index, bool clblast) {
  for (int i = 0; name && i < vncl_tuning_family_count(); i++)
    if (!strcmp(family_at(i)->kernel, name)) {
      if (index) *index = i;
      return family_at(i);
    }
  if (clblast && name && !strcmp(name, vncl__clblast_family.kernel)) {
    if (index) *index = -1;
    return &vncl__clblast_family;
  }
  vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
             "%s: %s kernel family%s%s (families: gemm, elementwise, cast, "
             "transpose, reduce, softmax, random%s)",
             fn, name ? "unknown" : "no", name ? " " : "", name ? name : "",
             clblast ? "; clblast" : "");
  return NULL;
}

static const vncl__param_family *family_of(const vncl_context *ctx,
                                           const char *fn, const char *name,
                                           int *index) {
  return family_of_x(ctx, fn, name, index, false);
}

static const char *kernel_name(int fi, const vncl__tunable *t) {
  if (fi < 0) return "clblast_xgemm";
  if (fi > 0) return vncl__ops_space(fi - 1)->source;
  switch (t->group) {
    case VNCL__GEMM_DIRECT: return "gemm_direct";
    case VNCL__GEMM_PACKED_CPU: return "gemm_packed_cpu";
    case VNCL__GEMM_PACKED_LOCAL: return "gemm_packed_local";
    case VNCL__GEMM_SMALL: return "gemm_small";
    default: return "host";
  }
}

int vncl_tuning_tunable_count(const char *family) {
  const vncl__param_family *f =
      family_of_x(NULL, "vncl_tuning_tunable_count", family, NULL, true);
  return f ? f->n : -1;
}

vncl_status vncl_tuning_tunable(const char *family, int i, vncl_tunable *out) {
  int fi = 0;
  const vncl__param_family *f =
      family_of_x(NULL, "vncl_tuning_tunable", family, &fi, true);
  if (!f) return VNCL_ERR_INVALID_ARG;
  if (!out)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_tuning_tunable: out is NULL");
  if (i < 0 || i >= f->n)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_tuning_tunable: %s has %d tunables, not %d",
                      f->kernel, f->n, i + 1);
  const vncl__tunable *t = &f->t[i];
  out->name = t->name;
  out->meaning = t->meaning;
  out->kernel = kernel_name(fi, t);
  out->integer = !t->dbl;
  out->def = t->def;
  out->min = t->min;
  out->max = t->max;
  out->nfull = t->nfull;
  out->nquick = t->nquick;
  out->full = t->full;
  out->quick = t->quick;
  return VNCL_OK;
}

const char *vncl_tuning_source_name(vncl_tuning_source s) {
  return vncl__param_source_name((vncl__param_source)s);
}

/* ---- classes ------------------------------------------------------------ */

/* The accumulation and shape class of (dtype, shape_class) in f. */
static vncl_status class_of(vncl_context *ctx, const char *fn,
                            const vncl__param_family *f, vncl_dtype dtype,
                            const char *shape_class, int *acc, int *shape) {
  if (dtype != VNCL_F32 && dtype != VNCL_F64 && dtype != VNCL_F16 &&
      dtype != VNCL_BF16 && dtype != VNCL_I32)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: unknown dtype %d", fn,
                      (int)dtype);
  if (f == &vncl__gemm_family && dtype == VNCL_I32)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: gemm takes f32, f64, f16 or bf16, not i32", fn);
  *acc = f == &vncl__gemm_family ? (int)vncl__gemm_acc_of(dtype) : 0;
  *shape = 0;
  if (shape_class) {
    *shape = -1;
    for (int i = 0; i < f->nshape; i++)
      if (!strcmp(f->shape_names[i], shape_class)) *shape = i;
    if (*shape < 0)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "%s: %s has no shape class '%s'%s", fn, f->kernel,
                        shape_class,
                        f->nshape > 1 ? " (square, narrow, flat)"
                                      : " (default)");
  }
  return VNCL_OK;
}

/* A set of f as bytes (the largest family's size). */
typedef union set_buf {
  vncl__gemm_params g;
  int ops[VNCL__OPS_MAX_PARAMS];
} set_buf;

/* Where a set came from, in words (vncl_tuning_params.origin). */
static void origin_of(vncl_context *ctx, const vncl__param_family *f, int acc,
                      int shape, vncl__param_source src, int row,
                      vncl_tuning_params *out) {
  const vncl__tuning_db *db =
      src == VNCL__SRC_DATABASE ? vncl__tuning_db_of(ctx) : NULL;
  if (db && row >= 0 && row < db->n) {
    vncl__tune_level lvl = VNCL__TUNE_BUILTIN_TABLE;
    vncl__tuning_find(db, &ctx->info, f->kernel, f->acc_names[acc],
                      f->shape_names[shape], &lvl);
    snprintf(out->origin, sizeof out->origin, "%s entry %d (%s)",
             ctx->tuning_db, row, vncl__tune_level_name(lvl));
    out->rate = db->e[row].gflops;
    vncl__strlcpy(out->date, db->e[row].date, sizeof out->date);
  } else if (src == VNCL__SRC_USER) {
    snprintf(out->origin, sizeof out->origin, "set on this context");
  } else if (src == VNCL__SRC_BUILTIN && row >= 0 && row < f->nrows) {
    const char *m = f->rows[row].measured;
    snprintf(out->origin, sizeof out->origin, "built-in table (%s, row %d%s%s)",
             f->table, row, m ? "; measured on " : "", m ? m : "");
  } else {
    snprintf(out->origin, sizeof out->origin,
             "built-in table (%s, the table's defaults)", f->table);
  }
}

static void to_public(const vncl__param_family *f, const void *set,
                      vncl__param_source src, int row,
                      vncl_tuning_params *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < f->n && i < VNCL_TUNING_MAX_PARAMS; i++) {
    vncl__strlcpy(out->names[i], f->t[i].name, sizeof out->names[i]);
    out->values[i] = vncl__params_value(&f->t[i], set);
    out->count++;
  }
  out->source = (vncl_tuning_source)src;
  out->index = row;
}

/* Lays p's values over set; false naming the first bad one. */
static bool overlay(vncl_context *ctx, const char *fn,
                    const vncl__param_family *f, const vncl_tuning_params *p,
                    void *set) {
  if (p->count < 0 || p->count > VNCL_TUNING_MAX_PARAMS) {
    vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: count %d outside 0..%d", fn,
               p->count, VNCL_TUNING_MAX_PARAMS);
    return false;
  }
  for (int i = 0; i < p->count; i++) {
    char name[sizeof p->names[i] + 1];
    memcpy(name, p->names[i], sizeof p->names[i]);
    name[sizeof p->names[i]] = '\0';
    const vncl__tunable *t = vncl__params_find(f, name);
    if (!t) {
      vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s has no tunable '%s'", fn,
                 f->kernel, name);
      return false;
    }
    if (!vncl__params_set_named(f, set, name, p->values[i])) {
      vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                 "%s: %s=%g outside its range [%g, %g]", fn, name,
                 p->values[i], t->min, t->max);
      return false;
    }
  }
  return true;
}

/* ---- the set in force --------------------------------------------------- */

vncl_status vncl_tuning_get(vncl_context *ctx, const char *family,
                            vncl_dtype dtype, const char *shape_class,
                            vncl_tuning_params *out) {
  if (!ctx)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "vncl_tuning_get: ctx is NULL");
  const vncl__param_family *f = family_of(ctx, "vncl_tuning_get", family, NULL);
  if (!f) return VNCL_ERR_INVALID_ARG;
  if (!out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "vncl_tuning_get: out is NULL");
  int acc = 0, shape = 0;
  vncl_status s =
      class_of(ctx, "vncl_tuning_get", f, dtype, shape_class, &acc, &shape);
  if (s) return s;
  set_buf b;
  vncl__param_source src;
  int row;
  vncl__params_get(ctx, f, acc, shape, &b, &src, &row);
  int fi = 0;
  family_of(ctx, "vncl_tuning_get", family, &fi);
  if (fi > 0) /* what the launches use: fitted to the device's limits */
    vncl__ops_params(ctx, (vncl__ops_family)(fi - 1), b.ops);
  to_public(f, &b, src, row, out);
  origin_of(ctx, f, acc, shape, src, row, out);
  return VNCL_OK;
}

vncl_status vncl_tuning_database(vncl_context *ctx,
                                 vncl_tuning_database_info *out) {
  if (!ctx || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "vncl_tuning_database: %s is NULL", !ctx ? "ctx" : "out");
  vncl__tuning_load(ctx);
  memset(out, 0, sizeof *out);
  out->state = ctx->tuning_state;
  out->entries = ctx->tuning_entries;
  vncl__strlcpy(out->path, ctx->tuning_db, sizeof out->path);
  vncl__strlcpy(out->why, ctx->tuning_why, sizeof out->why);
  vncl__strlcpy(out->fix, ctx->tuning_fix, sizeof out->fix);
  return VNCL_OK;
}

vncl_status vncl_tuning_value(const vncl_tuning_params *p, const char *name,
                              double *out) {
  if (!p || !name || !out)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "vncl_tuning_value: %s is NULL",
                      !p ? "p" : !name ? "name" : "out");
  for (int i = 0; i < p->count && i < VNCL_TUNING_MAX_PARAMS; i++)
    if (!strncmp(p->names[i], name, sizeof p->names[i])) {
      *out = p->values[i];
      return VNCL_OK;
    }
  return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                    "vncl_tuning_value: no tunable '%s' in the set", name);
}

/* The set in force with p over it, into b (not installed). */
static vncl_status candidate(vncl_context *ctx, const char *fn,
                             const vncl__param_family *f, int acc, int shape,
                             const vncl_tuning_params *p, set_buf *b) {
  vncl__params_get(ctx, f, acc, shape, b, NULL, NULL);
  return overlay(ctx, fn, f, p, b) ? VNCL_OK : VNCL_ERR_INVALID_ARG;
}

/* CLBlast's Xgemm parameters p (over the table's defaults) as a complete
 * set, checked against ctx's device; false with a message. */
static bool clblast_set(vncl_context *ctx, const char *fn, int acc,
                        const vncl_tuning_params *p, set_buf *b) {
  const vncl__param_family *f = &vncl__clblast_family;
  vncl__params_defaults(f, b);
  if (!overlay(ctx, fn, f, p, b)) return false;
  vncl__tune_device d;
  vncl__tune_device_of(ctx, &d);
  char why[512];
  if (!vncl__tuning_check_dev(&d, f, acc, b, 0, why, sizeof why)) {
    vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s", fn, why);
    return false;
  }
  return true;
}

/* Installs CLBlast's Xgemm parameters for ctx's device and acc's
 * precision (CLBlast keeps them per device for the process). */
static vncl_status clblast_install(vncl_context *ctx, int acc,
                                   const vncl_tuning_params *p) {
  const char *fn = "vncl_tuning_set";
  if (!p)
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "%s: CLBlast keeps its parameters for the process; they "
                      "cannot be withdrawn (p is NULL)", fn);
  set_buf b;
  if (!clblast_set(ctx, fn, acc, p, &b)) return VNCL_ERR_INVALID_ARG;
  cJSON *o = vncl__params_to_json(&vncl__clblast_family, &b);
  if (!o) return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
  char why[256];
  bool ok = vncl__clblast_override(ctx->device, (vncl__gemm_acc)acc, o,
                                   why, sizeof why);
  cJSON_Delete(o);
  return ok ? VNCL_OK
            : vncl__fail(ctx, VNCL_ERR_UNSUPPORTED, "%s: clblast: %s", fn, why);
}

vncl_status vncl_tuning_set(vncl_context *ctx, const char *family,
                            vncl_dtype dtype, const char *shape_class,
                            const vncl_tuning_params *p) {
  if (!ctx)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "vncl_tuning_set: ctx is NULL");
  int fi = 0;
  const vncl__param_family *f =
      family_of_x(ctx, "vncl_tuning_set", family, &fi, true);
  if (!f) return VNCL_ERR_INVALID_ARG;
  if (fi < 0) {
    int acc = 0, shape = 0;
    vncl_status s = class_of(ctx, "vncl_tuning_set", &vncl__gemm_family,
                             dtype, shape_class, &acc, &shape);
    return s ? s : clblast_install(ctx, acc, p);
  }
  int acc = 0, shape = 0;
  vncl_status s =
      class_of(ctx, "vncl_tuning_set", f, dtype, shape_class, &acc, &shape);
  if (s) return s;
  if (!p) return vncl__params_set(ctx, f, acc, shape, NULL);
  set_buf b;
  s = candidate(ctx, "vncl_tuning_set", f, acc, shape, p, &b);
  return s ? s : vncl__params_set(ctx, f, acc, shape, &b);
}

vncl_status vncl_tuning_check(vncl_context *ctx, const char *family,
                              vncl_dtype dtype, const char *shape_class,
                              const vncl_tuning_params *p, char *why,
                              size_t cap) {
  const char *fn = "vncl_tuning_check";
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
  int fi = 0;
  const vncl__param_family *f = family_of_x(ctx, fn, family, &fi, true);
  if (!f) return VNCL_ERR_INVALID_ARG;
  if (!p) return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: p is NULL", fn);
  if (why && cap == 0)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: why given with cap 0",
                      fn);
  /* CLBlast's parameters have GEMM's classes and no set in force: the
   * candidate lies over the table's defaults. */
  const vncl__param_family *cf = fi < 0 ? &vncl__gemm_family : f;
  int acc = 0, shape = 0;
  vncl_status s = class_of(ctx, fn, cf, dtype, shape_class, &acc, &shape);
  if (s) return s;
  set_buf b;
  if (fi < 0) {
    vncl__params_defaults(f, &b);
    if (!overlay(ctx, fn, f, p, &b)) return VNCL_ERR_INVALID_ARG;
  } else {
    s = candidate(ctx, fn, f, acc, shape, p, &b);
    if (s) return s;
  }
  /* GEMM: the kernels that read the tunables p names (both when it names
   * only host tunables). */
  int kernels = 0;
  for (int i = 0; fi == 0 && i < p->count; i++) {
    char name[sizeof p->names[i] + 1];
    memcpy(name, p->names[i], sizeof p->names[i]);
    name[sizeof p->names[i]] = '\0';
    const vncl__tunable *t = vncl__params_find(f, name);
    if (t && t->group == VNCL__GEMM_DIRECT) kernels |= VNCL__CHECK_DIRECT;
    if (t && (t->group == VNCL__GEMM_PACKED_CPU ||
              t->group == VNCL__GEMM_PACKED_LOCAL))
      kernels |= VNCL__CHECK_FAST;
    if (t && t->group == VNCL__GEMM_SMALL) kernels |= VNCL__CHECK_SMALL;
  }
  if (!kernels) {
    /* Only host tunables: every kernel the set runs (gemm_small where it
     * routes products there). */
    kernels = VNCL__CHECK_DIRECT | VNCL__CHECK_FAST;
    if (fi == 0 && (b.g.small_mnk > 0 || b.g.small_batch_mnk > 0))
      kernels |= VNCL__CHECK_SMALL;
  }
  vncl__tune_device d;
  vncl__tune_device_of(ctx, &d);
  char r[512];
  if (vncl__tuning_check_dev(&d, f, acc, &b, kernels, r, sizeof r))
    return VNCL_OK;
  if (why) vncl__strlcpy(why, r, cap);
  return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                    "%s: the %s set does not fit device '%s': %s", fn,
                    f->kernel, ctx->info.name, r);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

vncl_status vncl_tuning_measure(vncl_context *ctx, const char *family,
                                vncl_dtype dtype, const vncl_tuning_params *p,
                                size_t m, size_t n, size_t k, int runs,
                                double *seconds) {
  const char *fn = "vncl_tuning_measure";
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
  const vncl__param_family *f = family_of(ctx, fn, family, NULL);
  if (!f) return VNCL_ERR_INVALID_ARG;
  if (!p || !seconds)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                      !p ? "p" : "seconds");
  if (f != &vncl__gemm_family)
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "%s: only gemm is measured here; time the %s family "
                      "with `vncl autotune --kernel %s`",
                      fn, f->kernel, f->kernel);
  if (!m || !n || !k || runs < 1 || runs > 100)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: m, n, k must be >= 1 and runs 1..100 (got %zu, %zu, "
                      "%zu, %d)", fn, m, n, k, runs);
  if (m > (1u << 16) || n > (1u << 16) || k > (1u << 16))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: sizes above 65536 (%zu x %zu x %zu)", fn, m, n, k);
  int acc = 0, shape = 0;
  vncl_status s = class_of(ctx, fn, f, dtype, NULL, &acc, &shape);
  if (s) return s;
  if (dtype == VNCL_F64 && !ctx->info.fp64)
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "%s: f64 and device '%s' has no fp64", fn,
                      ctx->info.name);
  shape = (int)vncl__gemm_shape_of(m, n, k);
  /* What to put back afterwards. */
  set_buf prev, cand;
  vncl__param_source src;
  vncl__params_get(ctx, f, acc, shape, &prev, &src, NULL);
  s = candidate(ctx, fn, f, acc, shape, p, &cand);
  if (!s) s = vncl__params_set(ctx, f, acc, shape, &cand);
  if (s) return s;
  int64_t sa[2] = {(int64_t)m, (int64_t)k}, sb[2] = {(int64_t)k, (int64_t)n},
          sc[2] = {(int64_t)m, (int64_t)n};
  vncl_tensor *a = NULL, *b = NULL, *c = NULL;
  double *t = calloc((size_t)runs, sizeof *t);
  if (!t) s = vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
  if (!s) s = vncl_tensor_create(ctx, dtype, 2, sa, &a);
  if (!s) s = vncl_tensor_create(ctx, dtype, 2, sb, &b);
  if (!s) s = vncl_tensor_create(ctx, dtype, 2, sc, &c);
  if (!s) s = vncl_random_uniform(ctx, a, 1, 0, 0, -1, 1);
  if (!s) s = vncl_random_uniform(ctx, b, 1, 1, 0, -1, 1);
  if (!s) s = vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, a, b, 0, c);
  if (!s) s = vncl_finish(ctx);
  for (int i = 0; !s && i < runs; i++) {
    double t0 = vncl__now();
    s = vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, a, b, 0, c);
    if (!s) s = vncl_finish(ctx);
    t[i] = vncl__now() - t0;
  }
  if (!s) {
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    *seconds = t[runs / 2];
  }
  free(t);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(b);
  vncl_tensor_destroy(c);
  /* The set that was installed, or none. */
  vncl__params_set(ctx, f, acc, shape,
                   src == VNCL__SRC_USER ? (const void *)&prev : NULL);
  return s;
}

/* ---- the database ------------------------------------------------------- */

vncl_status vncl_tuning_db_create(vncl_tuning_db **out) {
  if (!out)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_tuning_db_create: out is NULL");
  *out = calloc(1, sizeof **out);
  return *out ? VNCL_OK
              : vncl__fail(NULL, VNCL_ERR_OUT_OF_MEMORY,
                           "vncl_tuning_db_create: no memory");
}

void vncl_tuning_db_free(vncl_tuning_db *db) {
  if (!db) return;
  vncl__tuning_db_free(&db->db);
  free(db);
}

int vncl_tuning_db_count(const vncl_tuning_db *db) { return db ? db->db.n : 0; }

vncl_status vncl_tuning_db_load(const char *path, vncl_tuning_db **out) {
  if (!path || !out)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_tuning_db_load: %s is NULL", !path ? "path" : "out");
  vncl_tuning_db *db = calloc(1, sizeof *db);
  if (!db)
    return vncl__fail(NULL, VNCL_ERR_OUT_OF_MEMORY,
                      "vncl_tuning_db_load: no memory");
  char why[512], fix[512];
  int st = vncl__tuning_db_read(path, &db->db, why, sizeof why, fix,
                                sizeof fix);
  if (st < 0) {
    free(db);
    return vncl__fail(NULL, VNCL_ERR_IO, "vncl_tuning_db_load: %s %s: %s%s%s",
                      path, st == -2 ? "not trusted" : "invalid", why,
                      st == -2 && fix[0] ? "; fix: " : "",
                      st == -2 ? fix : "");
  }
  if (st == 0) memset(&db->db, 0, sizeof db->db);
  *out = db;
  return VNCL_OK;
}

vncl_status vncl_tuning_db_merge(vncl_tuning_db *into,
                                 const vncl_tuning_db *from) {
  if (!into || !from)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_tuning_db_merge: %s is NULL", !into ? "into" : "from");
  int n = from->db.n; /* into == from: each entry replaces itself */
  for (int i = 0; i < n; i++) {
    vncl__tune_entry e = from->db.e[i];
    e.params = cJSON_Duplicate(from->db.e[i].params, 1);
    if (!e.params || !vncl__tuning_db_put(&into->db, &e)) {
      cJSON_Delete(e.params);
      return vncl__fail(NULL, VNCL_ERR_OUT_OF_MEMORY,
                        "vncl_tuning_db_merge: no memory");
    }
  }
  return VNCL_OK;
}

/* CLBlast's parameters into the gemm entry of (ctx's device, acc, shape). */
static vncl_status clblast_put(vncl_tuning_db *db, vncl_context *ctx, int acc,
                               int shape, const vncl_tuning_params *p,
                               double rate) {
  const char *fn = "vncl_tuning_db_put";
  const vncl__param_family *g = &vncl__gemm_family;
  set_buf b;
  if (!clblast_set(ctx, fn, acc, p, &b)) return VNCL_ERR_INVALID_ARG;
  vncl__tune_entry k;
  memset(&k, 0, sizeof k);
  vncl__tune_entry_key(&k, &ctx->info, g->kernel, g->acc_names[acc],
                       g->shape_names[shape]);
  for (int i = 0; i < db->db.n; i++) {
    vncl__tune_entry *e = &db->db.e[i];
    if (strcmp(e->vendor, k.vendor) || strcmp(e->device, k.device) ||
        strcmp(e->driver, k.driver) || strcmp(e->library, k.library) ||
        strcmp(e->type, k.type) || strcmp(e->kernel, k.kernel) ||
        strcmp(e->dtype, k.dtype) || strcmp(e->shape, k.shape))
      continue;
    cJSON *o = vncl__params_to_json(&vncl__clblast_family, &b);
    if (!o || !e->params) {
      cJSON_Delete(o);
      return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(e->params, "clblast");
    cJSON_AddItemToObject(e->params, "clblast", o);
    if (rate > 0) e->gflops = rate;
    return VNCL_OK;
  }
  return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                    "%s: no gemm %s %s entry for this device to hold CLBlast's "
                    "parameters (put the gemm set first)",
                    fn, k.dtype, k.shape);
}

vncl_status vncl_tuning_db_put(vncl_tuning_db *db, vncl_context *ctx,
                               const char *family, vncl_dtype dtype,
                               const char *shape_class,
                               const vncl_tuning_params *p, double rate) {
  const char *fn = "vncl_tuning_db_put";
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
  if (!db || !p)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                      !db ? "db" : "p");
  int fi = 0;
  const vncl__param_family *f = family_of_x(ctx, fn, family, &fi, true);
  if (!f) return VNCL_ERR_INVALID_ARG;
  if (!(rate >= 0) || !isfinite(rate))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: rate %g is not a finite number >= 0", fn, rate);
  int acc = 0, shape = 0;
  vncl_status s = class_of(ctx, fn, fi < 0 ? &vncl__gemm_family : f, dtype,
                           shape_class, &acc, &shape);
  if (s) return s;
  set_buf b;
  if (fi < 0) return clblast_put(db, ctx, acc, shape, p, rate);
  s = candidate(ctx, fn, f, acc, shape, p, &b);
  if (s) return s;
  vncl__tune_entry e;
  memset(&e, 0, sizeof e);
  vncl__tune_entry_key(&e, &ctx->info, f->kernel, f->acc_names[acc],
                       f->shape_names[shape]);
  if (f == &vncl__gemm_family)
    vncl__strlcpy(e.backend,
                  b.g.backend == VNCL__GEMM_CLBLAST ? "clblast" : "own",
                  sizeof e.backend);
  e.gflops = rate;
  e.params = vncl__params_to_json(f, &b);
  if (!e.params || !vncl__tuning_db_put(&db->db, &e)) {
    cJSON_Delete(e.params);
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
  }
  return VNCL_OK;
}

vncl_status vncl_tuning_db_save(const vncl_tuning_db *db, const char *path) {
  if (!db || !path)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "vncl_tuning_db_save: %s is NULL",
                      !db ? "db" : "path");
  char why[512];
  if (!vncl__tuning_db_save(path, &db->db, why, sizeof why))
    return vncl__fail(NULL, VNCL_ERR_IO, "vncl_tuning_db_save: %s", why);
  return VNCL_OK;
}
