/*
 * The parameter store: the sets of every kernel family in force on one
 * context, per class, with where each came from. Knows no family: a family
 * hands over its table (vncl__param_family, tuning.h). The context's tuning
 * database is read on the first lookup, not when the context is made, and
 * every set lives on its context, so two contexts on one device with two
 * databases each run their own. docs/tuning.md ("Precedence").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning/tuning.h"

typedef struct slot {
  const vncl__param_family *f;
  int acc, shape;
  bool user;     /* user_set holds a set installed by vncl__params_set */
  bool resolved; /* set holds the answer */
  vncl__param_source src;
  int row;
  struct slot *next;
  unsigned char *user_set, *set; /* f->size bytes each */
} slot;

struct vncl__tuning_store {
  pthread_mutex_t lock; /* guards everything below */
  bool loaded;
  bool have;         /* db holds the context's file */
  vncl__tuning_db db;
  int vec;           /* native float vector width, -1 until asked */
  slot *slots;
};

const char *vncl__param_source_name(vncl__param_source s) {
  switch (s) {
    case VNCL__SRC_USER: return "user override";
    case VNCL__SRC_DATABASE: return "database entry";
    case VNCL__SRC_BUILTIN: return "built-in row";
    default: return "table default";
  }
}

/* ---- sets by name ------------------------------------------------------- */

const vncl__tunable *vncl__params_find(const vncl__param_family *f,
                                       const char *name) {
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->t[i].name, name)) return &f->t[i];
  return NULL;
}

double vncl__params_value(const vncl__tunable *t, const void *set) {
  const char *b = (const char *)set + t->off;
  return t->dbl ? *(const double *)(const void *)b
                : *(const int *)(const void *)b;
}

static bool put(const vncl__tunable *t, void *set, double v) {
  if (!(v >= t->min && v <= t->max)) return false; /* NaN too */
  char *b = (char *)set + t->off;
  if (t->dbl)
    *(double *)(void *)b = v;
  else
    *(int *)(void *)b = (int)v;
  return true;
}

bool vncl__params_set_named(const vncl__param_family *f, void *set,
                            const char *name, double v) {
  const vncl__tunable *t = vncl__params_find(f, name);
  return t && put(t, set, v);
}

void vncl__params_defaults(const vncl__param_family *f, void *out) {
  memset(out, 0, f->size);
  for (int i = 0; i < f->n; i++) put(&f->t[i], out, f->t[i].def);
}

bool vncl__params_apply_string(const vncl__param_family *f, void *set,
                               const char *list, char *why, size_t cap) {
  const char *p = list ? list : "";
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    char name[32];
    size_t n = strcspn(p, "= ");
    if (p[n] != '=' || n == 0 || n >= sizeof name) {
      snprintf(why, cap, "%s: '%.40s' is not NAME=value", f->kernel, p);
      return false;
    }
    memcpy(name, p, n);
    name[n] = '\0';
    char *end;
    double v = strtod(p + n + 1, &end);
    if (end == p + n + 1 || (*end && *end != ' ') ||
        !vncl__params_set_named(f, set, name, v)) {
      snprintf(why, cap, "%s: unknown parameter or value out of range in "
               "'%s=%.20s'", f->kernel, name, p + n + 1);
      return false;
    }
    p = end;
  }
  return true;
}

bool vncl__params_from_json(const vncl__param_family *f, const cJSON *obj,
                            void *set, char *why, size_t cap) {
  if (!cJSON_IsObject(obj)) {
    snprintf(why, cap, "parameters are not an object");
    return false;
  }
  for (const cJSON *it = obj->child; it; it = it->next) {
    if (!strcmp(it->string, "clblast")) continue; /* CLBlast's own */
    /* Finite; each tunable's own range is checked as it is set (the
     * size switches go up to 1e30, their "never"). */
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) {
      snprintf(why, cap, "parameter '%s' is not a number", it->string);
      return false;
    }
    if (!vncl__params_set_named(f, set, it->string, it->valuedouble)) {
      snprintf(why, cap, "unknown %s parameter '%s' or value out of range",
               f->kernel, it->string);
      return false;
    }
  }
  return true;
}

cJSON *vncl__params_to_json(const vncl__param_family *f, const void *set) {
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; o && i < f->n; i++)
    cJSON_AddNumberToObject(o, f->t[i].name, vncl__params_value(&f->t[i], set));
  return o;
}

void vncl__params_options(const vncl__param_family *f, int group,
                          const void *set, char *out, size_t cap) {
  size_t n = strlen(out);
  for (int i = 0; i < f->n && n < cap; i++) {
    if (f->t[i].group != group) continue;
    double v = vncl__params_value(&f->t[i], set);
    int w = f->t[i].dbl ? snprintf(out + n, cap - n, " -D%s=%.17g",
                                   f->t[i].name, v)
                        : snprintf(out + n, cap - n, " -D%s=%d", f->t[i].name,
                                   (int)v);
    if (w < 0) return;
    n += (size_t)w;
  }
}

bool vncl__params_in_range(const vncl__param_family *f, const void *set,
                           char *why, size_t cap) {
  for (int i = 0; i < f->n; i++) {
    double v = vncl__params_value(&f->t[i], set);
    if (!(v >= f->t[i].min && v <= f->t[i].max)) {
      snprintf(why, cap, "%s: %s=%g outside [%g, %g]", f->kernel,
               f->t[i].name, v, f->t[i].min, f->t[i].max);
      return false;
    }
  }
  return true;
}

/* ---- built-in rows ------------------------------------------------------- */

bool vncl__params_row(const vncl__param_family *f, int i, void *out,
                      char *why, size_t cap) {
  if (i < 0 || i >= f->nrows) return false;
  vncl__params_defaults(f, out);
  return vncl__params_apply_string(f, out, f->rows[i].set, why, cap);
}

bool vncl__params_builtin(const vncl__param_family *f,
                          const vncl_device_info *info, int vec, int acc,
                          int shape, void *out) {
  vncl__device_key k;
  vncl__device_key_of(info, vec, acc, shape, &k);
  int i = vncl__rule_pick(f->rows, (size_t)f->nrows, sizeof *f->rows, &k, -1);
  char why[160];
  return i >= 0 && vncl__params_row(f, i, out, why, sizeof why);
}

/* What best_row's fit test needs. */
typedef struct row_fit {
  const vncl__param_family *f;
  const vncl_device_info *info;
  int acc;
  void *out;
} row_fit;

static bool row_fits(int i, void *arg) {
  row_fit *r = arg;
  char why[160] = "";
  if (vncl__params_row(r->f, i, r->out, why, sizeof why) &&
      (!r->f->valid ||
       r->f->valid(r->f, r->info, r->acc, r->out, why, sizeof why)))
    return true;
  vncl__log(VNCL_LOG_DEBUG, "%s: built-in row %d does not fit %s: %s",
            r->f->kernel, i, r->info->name, why);
  return false;
}

/* The best row that fits the device, walking the matcher's ranking. */
static int best_row(const vncl__param_family *f, const vncl_device_info *info,
                    int vec, int acc, int shape, void *out) {
  vncl__device_key k;
  vncl__device_key_of(info, vec, acc, shape, &k);
  row_fit r = {f, info, acc, out};
  int i = vncl__rule_pick_fit(f->rows, (size_t)f->nrows, sizeof *f->rows, &k,
                              row_fits, &r);
  if (i < 0) vncl__params_defaults(f, out);
  return i;
}

/* ---- the store ------------------------------------------------------------ */

static void store_free(vncl_context *ctx) {
  struct vncl__tuning_store *s = ctx->tuning_store;
  if (!s) return;
  for (slot *p = s->slots, *nx; p; p = nx) {
    nx = p->next;
    free(p);
  }
  if (s->have) vncl__tuning_db_free(&s->db);
  pthread_mutex_destroy(&s->lock);
  free(s);
  ctx->tuning_store = NULL;
}

/* The context's store, made on first use; NULL when out of memory. */
static struct vncl__tuning_store *store_of(vncl_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  struct vncl__tuning_store *s = ctx->tuning_store;
  bool made = false;
  if (!s && (s = calloc(1, sizeof *s)) != NULL) {
    pthread_mutex_init(&s->lock, NULL);
    s->vec = -1;
    ctx->tuning_store = s;
    made = true;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (made) vncl__context_on_release(ctx, store_free);
  return s;
}

/* Reads the database, once; s->lock held. */
static void load_locked(vncl_context *ctx, struct vncl__tuning_store *s) {
  if (s->loaded) return;
  s->loaded = true;
  const char *path = ctx->tuning_db;
  int state = vncl__tuning_db_read(path, &s->db, ctx->tuning_why,
                                   sizeof ctx->tuning_why, ctx->tuning_fix,
                                   sizeof ctx->tuning_fix);
  s->have = state == 1;
  ctx->tuning_state = state;
  ctx->tuning_entries = 0;
  if (state == -1)
    vncl__log(VNCL_LOG_WARN,
              "tuning database %s is invalid (%s): using the built-in "
              "defaults",
              path, ctx->tuning_why);
  else if (state == -2)
    vncl__log(VNCL_LOG_WARN,
              "tuning database %s is not trusted: %s; ignored, using the "
              "built-in defaults (fix: %s%sset VNCL_TUNING_DB to a file of "
              "your own)",
              path, ctx->tuning_why, ctx->tuning_fix,
              ctx->tuning_fix[0] ? ", or " : "");
  for (int i = 0; s->have && i < s->db.n; i++)
    if (!strcmp(s->db.e[i].device, ctx->info.name) &&
        !strcmp(s->db.e[i].vendor, ctx->info.vendor))
      ctx->tuning_entries++;
}

void vncl__tuning_load(vncl_context *ctx) {
  struct vncl__tuning_store *s = ctx ? store_of(ctx) : NULL;
  if (!s) return;
  pthread_mutex_lock(&s->lock);
  load_locked(ctx, s);
  pthread_mutex_unlock(&s->lock);
}

const vncl__tuning_db *vncl__tuning_db_of(vncl_context *ctx) {
  struct vncl__tuning_store *s = ctx ? store_of(ctx) : NULL;
  if (!s) return NULL;
  pthread_mutex_lock(&s->lock);
  load_locked(ctx, s);
  const vncl__tuning_db *db = s->have ? &s->db : NULL;
  pthread_mutex_unlock(&s->lock);
  return db; /* never changed after loading */
}

/* The device's native float vector width, which picks the CPU rows' class
 * (AVX-512 16, AVX2 8). VNCL_NATIVE_FLOAT_WIDTH=1|2|4|8|16 replaces it:
 * with PoCL compiling for an AVX2 CPU (POCL_KERNELLIB_NAME=avx2), whose
 * device still reports the host's width, an AVX-512 machine then runs
 * what an AVX2 host such as an AMD EPYC runs (CI's AVX2 stage). */
static int vec_locked(vncl_context *ctx, struct vncl__tuning_store *s) {
  if (s->vec < 0) {
    cl_uint w = 0;
    s->vec = clGetDeviceInfo(ctx->device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
                             sizeof w, &w, NULL) == CL_SUCCESS
                 ? (int)w
                 : 0;
    const char *v = vncl__getenv("VNCL_NATIVE_FLOAT_WIDTH");
    if (v) {
      char *end = NULL;
      long n = strtol(v, &end, 10);
      if (end && end != v && !*end && (n == 1 || n == 2 || n == 4 || n == 8 ||
                                       n == 16))
        s->vec = (int)n;
      else
        vncl__log(VNCL_LOG_WARN, "VNCL_NATIVE_FLOAT_WIDTH='%s' ignored: use "
                  "1, 2, 4, 8 or 16", v);
    }
  }
  return s->vec;
}

int vncl__params_vec(vncl_context *ctx) {
  struct vncl__tuning_store *s = store_of(ctx);
  if (!s) return 0;
  pthread_mutex_lock(&s->lock);
  int v = vec_locked(ctx, s);
  pthread_mutex_unlock(&s->lock);
  return v;
}

static slot *slot_of(struct vncl__tuning_store *s, const vncl__param_family *f,
                     int acc, int shape, bool make) {
  for (slot *p = s->slots; p; p = p->next)
    if (p->f == f && p->acc == acc && p->shape == shape) return p;
  if (!make) return NULL;
  slot *p = calloc(1, sizeof *p + 2 * f->size);
  if (!p) return NULL;
  p->f = f;
  p->acc = acc;
  p->shape = shape;
  p->user_set = (unsigned char *)(p + 1);
  p->set = p->user_set + f->size;
  p->next = s->slots;
  s->slots = p;
  return p;
}

/* What the database and the built-in rows give for a class; s->lock held. */
static void resolve_locked(vncl_context *ctx, struct vncl__tuning_store *s,
                           const vncl__param_family *f, int acc, int shape,
                           void *out, vncl__param_source *src, int *row) {
  int r = best_row(f, &ctx->info, vec_locked(ctx, s), acc, shape, out);
  *src = r >= 0 ? VNCL__SRC_BUILTIN : VNCL__SRC_TABLE;
  *row = r;
  load_locked(ctx, s);
  if (!s->have) return;
  vncl__tune_level lvl;
  const vncl__tune_entry *e =
      vncl__tuning_find(&s->db, &ctx->info, f->kernel, f->acc_names[acc],
                        f->shape_names[shape], &lvl);
  if (!e) return;
  unsigned char *cand = malloc(f->size);
  if (!cand) return;
  memcpy(cand, out, f->size);
  char why[512] = "";
  bool ok = vncl__params_from_json(f, e->params, cand, why, sizeof why) &&
            (!f->from_entry ||
             f->from_entry(ctx, acc, e, cand, why, sizeof why)) &&
            (!f->valid ||
             f->valid(f, &ctx->info, acc, cand, why, sizeof why)) &&
            vncl__params_in_range(f, cand, why, sizeof why);
  if (ok) {
    memcpy(out, cand, f->size);
    *src = VNCL__SRC_DATABASE;
    *row = (int)(e - s->db.e);
  } else {
    vncl__log(VNCL_LOG_WARN, "tuning database %s: %s %s %s entry not used (%s)",
              ctx->tuning_db, f->kernel, f->acc_names[acc],
              f->shape_names[shape], why);
  }
  free(cand);
}

void vncl__params_get(vncl_context *ctx, const vncl__param_family *f, int acc,
                      int shape, void *out, vncl__param_source *src,
                      int *row) {
  vncl__param_source sv = VNCL__SRC_TABLE;
  int rv = -1;
  if (acc < 0 || acc >= f->nacc) acc = 0;
  if (shape < 0 || shape >= f->nshape) shape = 0;
  struct vncl__tuning_store *s = store_of(ctx);
  if (!s) { /* out of memory: the best row, unremembered */
    rv = best_row(f, &ctx->info, 0, acc, shape, out);
    sv = rv >= 0 ? VNCL__SRC_BUILTIN : VNCL__SRC_TABLE;
  } else {
    pthread_mutex_lock(&s->lock);
    slot *p = slot_of(s, f, acc, shape, true);
    if (p && p->user) {
      memcpy(out, p->user_set, f->size);
      sv = VNCL__SRC_USER;
    } else if (p && p->resolved) {
      memcpy(out, p->set, f->size);
      sv = p->src;
      rv = p->row;
    } else {
      resolve_locked(ctx, s, f, acc, shape, out, &sv, &rv);
      if (p) {
        memcpy(p->set, out, f->size);
        p->src = sv;
        p->row = rv;
        p->resolved = true;
      }
    }
    pthread_mutex_unlock(&s->lock);
  }
  if (src) *src = sv;
  if (row) *row = rv;
}

vncl_status vncl__params_set(vncl_context *ctx, const vncl__param_family *f,
                             int acc, int shape, const void *set) {
  if (!ctx || !f || acc < 0 || acc >= f->nacc || shape < 0 ||
      shape >= f->nshape)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s parameters: %s",
                      f ? f->kernel : "?",
                      !ctx ? "ctx is NULL" : "unknown class");
  char why[256] = "";
  if (set &&
      ((f->valid && !f->valid(f, &ctx->info, acc, set, why, sizeof why)) ||
       !vncl__params_in_range(f, set, why, sizeof why)))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s parameters rejected for %s: %s", f->kernel,
                      ctx->info.name, why);
  struct vncl__tuning_store *s = store_of(ctx);
  if (!s)
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                      "%s parameters: no memory for the store", f->kernel);
  pthread_mutex_lock(&s->lock);
  slot *p = slot_of(s, f, acc, shape, set != NULL);
  if (p) {
    p->user = set != NULL;
    if (set) memcpy(p->user_set, set, f->size);
  }
  pthread_mutex_unlock(&s->lock);
  if (set && !p)
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                      "%s parameters: no memory for the store", f->kernel);
  return VNCL_OK;
}
