/*
 * The autotuner: for each job (a kernel, dtype and shape class on one
 * problem size) it measures the parameters in force, then searches the
 * job's space: every valid candidate when there are few, else random
 * samples followed by hill climbing (one parameter one step at a time)
 * until no neighbour is faster or the job's share of the budget is spent.
 * Candidates run in worker processes (autotune_runner.c); every answer is
 * appended to OUT.partial at once, so an interrupted run resumes from it.
 * The winners (ours or CLBlast per class) go into the database at OUT.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autotune/autotune.h"
#include "ops/ops.h"

typedef struct job {
  char label[48];  /* "gemm f32 large square" */
  int kind;        /* VNCL__TS_* */
  int dtype;       /* VNCL_F32 / VNCL_F64 (GEMM) */
  int shape;       /* vncl__gemm_shape */
  size_t m, n, k, batch;
  const vncl__tspace *space;
  vncl__tspace ops_space;
  double share;    /* of the budget */
  int samples;     /* random samples before climbing */
} job;

typedef struct session {
  vncl__autotune_opts *o;
  vncl__tune_device dev;
  vncl_context *ctx;
  vncl__tune_runner *runner;
  cJSON *done;      /* key -> answer, from OUT.partial and this run */
  FILE *partial;
  char out[1024], partial_path[1100];
  int dirfd;             /* OUT's folder, checked as trusted (trust.c) */
  char dir[1024];        /* its resolved path */
  const char *partial_name; /* OUT.partial's name in it */
  double t_start, budget;
  int runs;
  /* progress of the current job */
  const char *label;
  int cand_done;  /* evaluations of this job so far */
  int cand_total; /* those and the ones planned next: never below
                   * cand_done, and equal to it when the job ends */
  double best_rate;
  double job_start, job_budget;
  bool stopped;
} session;

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

/* ---- progress ------------------------------------------------------------ */

static void progress(session *s, const char *key, const cJSON *ans) {
  double el = vncl__now() - s->t_start;
  double eta = s->budget - el;
  if (eta < 0) eta = 0;
  bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "ok"));
  const cJSON *rate = cJSON_GetObjectItemCaseSensitive(ans, "rate");
  const char *unit = strncmp(s->label, "gemm", 4) &&
                             strncmp(s->label, "clblast", 7)
                         ? "GB/s"
                         : "GFLOP/s";
  if (s->o->progress_tty) {
    int w = 24, fill = s->cand_total ? w * s->cand_done / s->cand_total : 0;
    if (fill > w) fill = w;
    char bar[32];
    for (int i = 0; i < w; i++) bar[i] = i < fill ? '#' : '.';
    bar[w] = '\0';
    fprintf(stderr, "\r\033[K%-28s [%s] %d/%d best %.1f %s ETA %d:%02d",
            s->label, bar, s->cand_done, s->cand_total, s->best_rate, unit,
            (int)eta / 60, (int)eta % 60);
  } else {
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(ans, "why");
    const char *bar = strrchr(key, '|');
    if (bar) key = bar + 1;
    if (ok)
      fprintf(stderr, "autotune: %s %d/%d %s: %.1f %s (best %.1f, ETA %ds)\n",
              s->label, s->cand_done, s->cand_total, key,
              cJSON_IsNumber(rate) ? rate->valuedouble : 0.0, unit,
              s->best_rate, (int)eta);
    else
      fprintf(stderr, "autotune: %s %d/%d %s: failed: %s (best %.1f, ETA "
              "%ds)\n", s->label, s->cand_done, s->cand_total, key,
              cJSON_IsString(why) ? why->valuestring : "?", s->best_rate,
              (int)eta);
  }
  fflush(stderr);
}

/* ---- one evaluation ------------------------------------------------------ */

/* Measures request `req` (owned by the caller) under `key`, from the
 * resumed results when present. Returns the rate (0: failed). */
static double evaluate(session *s, const char *key, cJSON *req) {
  const cJSON *prev = cJSON_GetObjectItemCaseSensitive(s->done, key);
  cJSON *ans;
  if (prev) {
    ans = cJSON_Duplicate(prev, 1);
    s->o->reused++;
  } else {
    if (s->o->stop_after && s->o->evaluated >= s->o->stop_after) {
      s->stopped = true;
      return 0;
    }
    cJSON_AddNumberToObject(req, "runs", s->runs);
    ans = vncl__tune_runner_eval(s->runner, req);
    if (interrupted) { /* the answer may be the interrupt's doing */
      cJSON_Delete(ans);
      s->stopped = true;
      return 0;
    }
    s->o->evaluated++;
    cJSON_AddItemToObject(s->done, key, cJSON_Duplicate(ans, 1));
    cJSON *line = cJSON_CreateObject();
    cJSON_AddStringToObject(line, "key", key);
    cJSON_AddItemToObject(line, "answer", cJSON_Duplicate(ans, 1));
    char *t = cJSON_PrintUnformatted(line);
    if (t && s->partial) {
      fprintf(s->partial, "%s\n", t);
      fflush(s->partial);
    }
    free(t);
    cJSON_Delete(line);
  }
  bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "ok"));
  const cJSON *rate = cJSON_GetObjectItemCaseSensitive(ans, "rate");
  double r = ok && cJSON_IsNumber(rate) && rate->valuedouble > 0
                 ? rate->valuedouble
                 : 0;
  if (!ok) s->o->failed++;
  s->cand_done++;
  if (r > s->best_rate) s->best_rate = r;
  progress(s, key, ans);
  cJSON_Delete(ans);
  return r;
}

/* The progress total: n more evaluations are planned; plan_done drops the
 * planned ones that were not run (budget, cap or stop), so that the count
 * shown is never past its total and ends equal to it. */
static void plan(session *s, int n) {
  if (n > 0) s->cand_total += n;
}
static void plan_done(session *s) { s->cand_total = s->cand_done; }

static bool job_time_left(session *s) {
  if (s->stopped || interrupted) return false;
  return vncl__now() - s->job_start < s->job_budget;
}

/* ---- requests ------------------------------------------------------------ */

static cJSON *job_request(const job *j) {
  cJSON *r = cJSON_CreateObject();
  if (j->kind == VNCL__TS_OPS) {
    cJSON_AddStringToObject(r, "kind", "ops");
    cJSON_AddNumberToObject(r, "family", j->ops_space.family);
  } else {
    cJSON_AddStringToObject(r, "kind", "gemm");
    cJSON_AddNumberToObject(r, "dtype", j->dtype);
    cJSON_AddNumberToObject(r, "shape", j->shape);
    cJSON_AddNumberToObject(r, "m", (double)j->m);
    cJSON_AddNumberToObject(r, "n", (double)j->n);
    cJSON_AddNumberToObject(r, "k", (double)j->k);
    cJSON_AddNumberToObject(r, "batch", (double)j->batch);
  }
  return r;
}

static void job_prefix(const session *s, const job *j, char *out, size_t cap) {
  snprintf(out, cap, "%s|%s|%s|%zux%zux%zux%zu|", s->dev.info.name,
           s->dev.info.driver_version, j->label, j->m, j->n, j->k, j->batch);
}

/* The request of candidate idx of job j laid over `base`. */
static cJSON *cand_request(const job *j, const vncl__tspace *sp,
                           const int *idx, const vncl__gemm_params *base,
                           char *key, size_t cap) {
  cJSON *r = job_request(j);
  size_t n = strlen(key);
  for (int i = 0; i < sp->np; i++) {
    int w = snprintf(key + n, cap - n, "%s%s=%d", i ? "," : "", sp->p[i].name,
                     sp->p[i].v[idx[i]]);
    if (w > 0 && (size_t)w < cap - n) n += (size_t)w;
  }
  if (sp->kind == VNCL__TS_OPS) {
    cJSON *v = cJSON_AddArrayToObject(r, "values");
    for (int i = 0; i < sp->np; i++)
      cJSON_AddItemToArray(v, cJSON_CreateNumber(sp->p[i].v[idx[i]]));
  } else if (sp->kind == VNCL__TS_CLBLAST) {
    vncl__gemm_params p = *base;
    p.backend = VNCL__GEMM_CLBLAST;
    cJSON_AddItemToObject(r, "params", vncl__gemm_params_to_json(&p));
    cJSON *c = cJSON_AddObjectToObject(r, "clblast");
    for (int i = 0; i < sp->np; i++)
      cJSON_AddNumberToObject(c, sp->p[i].name, sp->p[i].v[idx[i]]);
    cJSON_AddTrueToObject(r, "fresh"); /* CLBlast keeps overrides */
  } else {
    vncl__gemm_params p = *base;
    for (int i = 0; i < sp->np; i++)
      vncl__gemm_param_set_named(&p, sp->p[i].name, sp->p[i].v[idx[i]]);
    p.backend = VNCL__GEMM_OWN;
    cJSON_AddItemToObject(r, "params", vncl__gemm_params_to_json(&p));
  }
  return r;
}

/* ---- search -------------------------------------------------------------- */

typedef struct cands {
  int n, cap;
  unsigned char (*v)[VNCL__TS_MAX_PARAMS];
} cands;

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Every valid candidate of the space (spaces are below ~10^5 points). */
static void enumerate(const session *s, const vncl__tspace *sp,
                      const vncl__gemm_params *base, int acc, cands *out) {
  int idx[VNCL__TS_MAX_PARAMS] = {0};
  char why[256];
  memset(out, 0, sizeof *out);
  for (;;) {
    if (vncl__tspace_valid(&s->dev, sp, idx, base, acc, why, sizeof why)) {
      if (out->n == out->cap) {
        int nc = out->cap ? out->cap * 2 : 256;
        void *nv = realloc(out->v, (size_t)nc * sizeof *out->v);
        if (!nv) return;
        out->v = nv;
        out->cap = nc;
      }
      for (int i = 0; i < VNCL__TS_MAX_PARAMS; i++)
        out->v[out->n][i] = (unsigned char)(i < sp->np ? idx[i] : 0);
      out->n++;
    }
    int d = 0;
    while (d < sp->np && ++idx[d] == sp->p[d].n) idx[d++] = 0;
    if (d == sp->np) break;
  }
}

/* Value indexes of `base` in the space, when every value is a candidate. */
static bool base_index(const vncl__tspace *sp, const vncl__gemm_params *base,
                       const int *ops_vals, int *idx) {
  cJSON *j = base ? vncl__gemm_params_to_json(base) : NULL;
  bool ok = base || ops_vals;
  for (int i = 0; i < sp->np && ok; i++) {
    int want;
    if (sp->kind == VNCL__TS_OPS) {
      want = ops_vals[i];
    } else {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, sp->p[i].name);
      want = cJSON_IsNumber(v) ? v->valueint : -1;
    }
    idx[i] = -1;
    for (int k = 0; k < sp->p[i].n; k++)
      if (sp->p[i].v[k] == want) idx[i] = k;
    ok = idx[i] >= 0;
  }
  cJSON_Delete(j);
  return ok;
}

typedef struct result {
  double rate;    /* best rate, 0: none */
  int idx[VNCL__TS_MAX_PARAMS];
  bool have_idx;  /* best is a space point (else the baseline) */
} result;

static double eval_idx(session *s, const job *j, const int *idx,
                       const vncl__gemm_params *base) {
  char key[1024];
  job_prefix(s, j, key, sizeof key);
  cJSON *req = cand_request(j, j->space, idx, base, key, sizeof key);
  double r = evaluate(s, key, req);
  cJSON_Delete(req);
  return r;
}

static void search(session *s, job *j, const vncl__gemm_params *base,
                   const int *ops_vals, double baseline_rate, result *res) {
  const vncl__tspace *sp = j->space;
  int acc = vncl__gemm_acc_of((vncl_dtype)j->dtype);
  cands c;
  enumerate(s, sp, base, acc, &c);
  res->rate = baseline_rate;
  res->have_idx = false;
  int bidx[VNCL__TS_MAX_PARAMS];
  if (base_index(sp, base, ops_vals, bidx) && sp->kind != VNCL__TS_CLBLAST) {
    memcpy(res->idx, bidx, sizeof bidx);
    res->have_idx = true; /* the baseline is a point: climb from it */
  }
  int cap = s->o->max_candidates;
  int budget_n = j->samples;
  bool exhaustive = c.n <= budget_n;
  int first = c.n ? (exhaustive ? c.n : budget_n) : 0;
  if (cap && first > cap) first = cap;
  plan(s, first);
  int tried = 0;
  uint64_t rng = vncl__hash(j->label, strlen(j->label), VNCL_FNV_SEED) | 1;
  /* Exhaustive or random samples. */
  for (int i = 0; i < (exhaustive ? c.n : budget_n) && c.n; i++) {
    if (!job_time_left(s) || (cap && tried >= cap)) break;
    int pick = exhaustive ? i : (int)(rng_next(&rng) % (uint64_t)c.n);
    int idx[VNCL__TS_MAX_PARAMS] = {0};
    for (int p = 0; p < sp->np; p++) idx[p] = c.v[pick][p];
    double r = eval_idx(s, j, idx, base);
    tried++;
    if (r > res->rate) {
      res->rate = r;
      memcpy(res->idx, idx, sizeof idx);
      res->have_idx = true;
    }
  }
  plan_done(s); /* what the budget or the cap cut */
  /* Hill climbing: neighbours one step away in one parameter. */
  bool improved = !exhaustive && res->have_idx;
  char why[256];
  while (improved && job_time_left(s) && !(cap && tried >= cap)) {
    improved = false;
    int cur[VNCL__TS_MAX_PARAMS];
    memcpy(cur, res->idx, sizeof cur);
    /* This round's valid neighbours join the plan; those the budget or
     * the cap leave out are dropped from it after the round. */
    int round = 0;
    for (int p = 0; p < sp->np; p++)
      for (int d = -1; d <= 1; d += 2) {
        int nb[VNCL__TS_MAX_PARAMS];
        memcpy(nb, cur, sizeof nb);
        nb[p] += d;
        if (nb[p] >= 0 && nb[p] < sp->p[p].n &&
            vncl__tspace_valid(&s->dev, sp, nb, base, acc, why, sizeof why))
          round++;
      }
    if (cap && round > cap - tried) round = cap - tried;
    plan(s, round);
    for (int p = 0; p < sp->np && job_time_left(s); p++)
      for (int d = -1; d <= 1; d += 2) {
        int nb[VNCL__TS_MAX_PARAMS];
        memcpy(nb, cur, sizeof nb);
        nb[p] += d;
        if (nb[p] < 0 || nb[p] >= sp->p[p].n) continue;
        if (!vncl__tspace_valid(&s->dev, sp, nb, base, acc, why, sizeof why))
          continue;
        if (cap && tried >= cap) break;
        if (!job_time_left(s)) break;
        double r = eval_idx(s, j, nb, base);
        tried++;
        if (r > res->rate * 1.01) {
          res->rate = r;
          memcpy(res->idx, nb, sizeof nb);
          improved = true;
        }
      }
    plan_done(s);
  }
  free(c.v);
}

/* The baseline: the parameters in force (built-in defaults), as a plain
 * request so that it is measured even when not a point of the space. */
static double eval_baseline(session *s, const job *j,
                            const vncl__gemm_params *base, const int *ops_vals,
                            bool clblast) {
  char key[1024];
  job_prefix(s, j, key, sizeof key);
  strncat(key, clblast ? "clblast-defaults" : "defaults",
          sizeof key - strlen(key) - 1);
  cJSON *req = job_request(j);
  if (j->kind == VNCL__TS_OPS) {
    cJSON *v = cJSON_AddArrayToObject(req, "values");
    for (int i = 0; i < j->ops_space.np; i++)
      cJSON_AddItemToArray(v, cJSON_CreateNumber(ops_vals[i]));
  } else {
    vncl__gemm_params p = *base;
    p.backend = clblast ? VNCL__GEMM_CLBLAST : VNCL__GEMM_OWN;
    cJSON_AddItemToObject(req, "params", vncl__gemm_params_to_json(&p));
    if (clblast) cJSON_AddTrueToObject(req, "fresh");
  }
  double r = evaluate(s, key, req);
  cJSON_Delete(req);
  return r;
}

/* A full GEMM set as a request, under prefix + tag. */
static double eval_set(session *s, const job *j, const vncl__gemm_params *p,
                       const int *ops_vals, const char *tag) {
  char key[1024];
  job_prefix(s, j, key, sizeof key);
  strncat(key, tag, sizeof key - strlen(key) - 1);
  cJSON *req = job_request(j);
  if (p) {
    cJSON_AddItemToObject(req, "params", vncl__gemm_params_to_json(p));
  } else {
    cJSON *v = cJSON_AddArrayToObject(req, "values");
    for (int i = 0; i < j->ops_space.np; i++)
      cJSON_AddItemToArray(v, cJSON_CreateNumber(ops_vals[i]));
  }
  double r = evaluate(s, key, req);
  cJSON_Delete(req);
  return r;
}

/* On a shared machine one measurement can be off by 2x, and the search's
 * best is the maximum of many noisy ones (biased upwards). Before a tuned
 * set replaces the defaults, both are measured again in CONFIRM_ROUNDS
 * interleaved pairs; the tuned set must be at least 3% faster in the
 * median pair. Returns true to keep it; the rates become the pairs'
 * means. */
#define CONFIRM_ROUNDS 5
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static bool confirm(session *s, const job *j, const vncl__gemm_params *def,
                    const vncl__gemm_params *tuned, const int *ops_def,
                    const int *ops_tuned, double *def_rate,
                    double *tuned_rate) {
  double a = 0, b = 0, ratio[CONFIRM_ROUNDS];
  int n = 0;
  plan(s, 2 * CONFIRM_ROUNDS);
  for (int i = 0; i < CONFIRM_ROUNDS && !s->stopped && !interrupted; i++) {
    char t[32];
    snprintf(t, sizeof t, "check-defaults-%d", i);
    double x = eval_set(s, j, def, ops_def, t);
    snprintf(t, sizeof t, "check-tuned-%d", i);
    double y = eval_set(s, j, tuned, ops_tuned, t);
    a += x;
    b += y;
    ratio[n++] = x > 0 ? y / x : y > 0 ? 2 : 0;
  }
  plan_done(s);
  if (!n) return false;
  qsort(ratio, (size_t)n, sizeof *ratio, cmp_double);
  *def_rate = a / n;
  *tuned_rate = b / n;
  fprintf(stderr, "autotune: %s: tuned / defaults, median of %d interleaved "
          "pairs: %.2fx\n", j->label, n, ratio[n / 2]);
  return ratio[n / 2] >= 1.03;
}

/* The test-only candidates that crash and hang (VNCL_TUNE_TEST_FAULTS). */
static void eval_test_faults(session *s, const job *j) {
  static const char *const what[] = {"abort", "hang"};
  for (int i = 0; i < 2; i++) {
    char key[1024];
    job_prefix(s, j, key, sizeof key);
    strncat(key, what[i], sizeof key - strlen(key) - 1);
    cJSON *req = job_request(j);
    cJSON_AddStringToObject(req, "test", what[i]);
    evaluate(s, key, req);
    cJSON_Delete(req);
  }
}

/* ---- session --------------------------------------------------------------- */

/* Resumed answers choose what the database will hold, so the file is read
 * like the database: only when no other account could have written it. */
static void load_partial(session *s) {
  vncl__trust t;
  int fd = vncl__trust_openat(s->dirfd, s->dir, s->partial_name, &t);
  if (fd < 0) {
    if (t.state == VNCL__TRUST_BROKEN)
      fprintf(stderr, "autotune: %s: not trusted, not resumed from: %s\n",
              s->partial_path, t.why);
    return;
  }
  FILE *f = fdopen(fd, "r");
  if (!f) {
    close(fd);
    return;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) > 0) {
    cJSON *o = cJSON_ParseWithLength(line, (size_t)len);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "key");
    cJSON *a = cJSON_DetachItemFromObjectCaseSensitive(o, "answer");
    /* A hang or crash the interrupt caused is not a verdict: retry it. */
    if (cJSON_IsString(k) && cJSON_IsObject(a) &&
        !cJSON_GetObjectItemCaseSensitive(s->done, k->valuestring))
      cJSON_AddItemToObject(s->done, k->valuestring, a);
    else
      cJSON_Delete(a);
    cJSON_Delete(o);
  }
  free(line);
  fclose(f);
}

static bool wanted(const char *list, const char *item) {
  if (!list || !*list) return true;
  size_t n = strlen(item);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == n && !strncmp(p, item, n)) return true;
    p += l + (e ? 1 : 0);
  }
  return false;
}

static void put_entry(session *s, vncl__tuning_db *db, const char *kernel,
                      const char *dtype, const char *shape,
                      const char *backend, double rate, cJSON *params) {
  vncl__tune_entry e;
  memset(&e, 0, sizeof e);
  vncl__tune_entry_key(&e, &s->dev.info, kernel, dtype, shape);
  vncl__strlcpy(e.backend, backend, sizeof e.backend);
  e.gflops = rate;
  e.params = params;
  if (!vncl__tuning_db_put(db, &e)) cJSON_Delete(e.params);
}

static void save_db(session *s, vncl__tuning_db *db) {
  char why[256];
  if (!vncl__tuning_db_save(s->out, db, why, sizeof why))
    fprintf(stderr, "autotune: %s\n", why);
}

static void job_begin(session *s, job *j) {
  s->label = j->label;
  s->cand_done = 0;
  s->cand_total = 0;
  /* The baseline; the search and the confirmation plan their own. */
  plan(s, 1 + (vncl__getenv("VNCL_TUNE_TEST_FAULTS") ? 2 : 0));
  s->best_rate = 0;
  s->job_start = vncl__now();
  double left = s->budget - (s->job_start - s->t_start);
  s->job_budget = s->budget * j->share;
  if (s->job_budget > left) s->job_budget = left > 5 ? left : 5;
  if (vncl__getenv("VNCL_TUNE_TEST_FAULTS")) eval_test_faults(s, j);
}

static void job_end(session *s) {
  if (s->o->progress_tty) fprintf(stderr, "\n");
}

/* GEMM for one dtype: every class, our kernels and CLBlast. */
static void tune_gemm(session *s, vncl__tuning_db *db, int dtype) {
  bool q = s->o->quick;
  bool f64 = dtype == VNCL_F64;
  const char *dn = f64 ? "f64" : "f32";
  int acc = vncl__gemm_acc_of((vncl_dtype)dtype);
  double dscale = f64 ? 0.35 : 1.0; /* f64 gets a smaller share */
  size_t big = q || f64 ? 1024 : 2048;
  static const char *const shape_names[] = {"square", "narrow", "flat"};
  for (int sh = 0; sh < VNCL__GEMM_SHAPES && !s->stopped && !interrupted;
       sh++) {
    vncl__gemm_params base;
    vncl__gemm_params_set(s->ctx, (vncl__gemm_acc)acc, (vncl__gemm_shape)sh,
                          NULL);
    vncl__gemm_params_get(s->ctx, (vncl__gemm_acc)acc, (vncl__gemm_shape)sh,
                          &base);
    /* The class's large product: the packed (fast) kernel's parameters. */
    job j;
    memset(&j, 0, sizeof j);
    j.kind = VNCL__TS_GEMM_FAST;
    j.dtype = dtype;
    j.shape = sh;
    j.batch = 1;
    if (sh == VNCL__GEMM_SHAPE_SQUARE) {
      j.m = j.n = j.k = big;
      j.share = (q ? 0.40 : 0.32) * dscale;
      j.samples = q ? 5 : 20;
      snprintf(j.label, sizeof j.label, "gemm %s large square", dn);
    } else if (sh == VNCL__GEMM_SHAPE_NARROW) {
      j.m = 4096;
      j.n = 64;
      j.k = 1024;
      j.share = (q ? 0.10 : 0.12) * dscale;
      j.samples = q ? 2 : 12;
      snprintf(j.label, sizeof j.label, "gemm %s tall-skinny", dn);
    } else {
      j.m = 64;
      j.n = 4096;
      j.k = 1024;
      j.share = (q ? 0.08 : 0.10) * dscale;
      j.samples = q ? 2 : 10;
      snprintf(j.label, sizeof j.label, "gemm %s flat", dn);
    }
    j.space = vncl__tspace_gemm(base.fast, q);
    job_begin(s, &j);
    double own_base = eval_baseline(s, &j, &base, NULL, false);
    result fast;
    search(s, &j, &base, NULL, own_base, &fast);
    vncl__gemm_params best = base;
    if (fast.have_idx)
      for (int i = 0; i < j.space->np; i++)
        vncl__gemm_param_set_named(&best, j.space->p[i].name,
                                   j.space->p[i].v[fast.idx[i]]);
    if (fast.rate <= own_base) best = base;
    double own_rate = fast.rate > own_base ? fast.rate : own_base;
    if (fast.rate > own_base && !s->stopped && !interrupted &&
        !confirm(s, &j, &base, &best, NULL, NULL, &own_base, &own_rate)) {
      best = base;
      own_rate = own_base;
    }
    job_end(s);
    fprintf(stderr, "autotune: %s: defaults %.1f GFLOP/s, tuned %.1f "
            "GFLOP/s (%.2fx)\n",
            j.label, own_base, own_rate, own_base > 0 ? own_rate / own_base : 0);

    /* CLBlast on the same product: its defaults, then (square) a search
     * over its Xgemm parameters. */
    double cl_rate = 0;
    cJSON *cl_params = NULL;
    if (!s->stopped && !interrupted && (!q || sh == VNCL__GEMM_SHAPE_SQUARE)) {
      job c = j;
      c.kind = VNCL__TS_CLBLAST;
      c.space = vncl__tspace_clblast(q);
      c.share = (sh == VNCL__GEMM_SHAPE_SQUARE ? (q ? 0.12 : 0.10) : 0.02) *
                dscale;
      /* A CLBlast build takes 5-15 s on PoCL: its search is for full
       * runs. */
      c.samples = sh == VNCL__GEMM_SHAPE_SQUARE && !q ? 6 : 0;
      snprintf(c.label, sizeof c.label, "clblast %s %s", dn,
               sh == VNCL__GEMM_SHAPE_SQUARE ? "large square"
                                             : shape_names[sh]);
      job_begin(s, &c);
      cl_rate = eval_baseline(s, &c, &best, NULL, true);
      if (c.samples) {
        result cr;
        search(s, &c, &best, NULL, cl_rate, &cr);
        if (cr.have_idx && cr.rate > cl_rate) {
          cl_rate = cr.rate;
          cl_params = cJSON_CreateObject();
          for (int i = 0; i < c.space->np; i++)
            cJSON_AddNumberToObject(cl_params, c.space->p[i].name,
                                    c.space->p[i].v[cr.idx[i]]);
        }
      }
      job_end(s);
    }

    /* Square: the direct kernel on small and small batched products. */
    if (sh == VNCL__GEMM_SHAPE_SQUARE && !s->stopped && !interrupted) {
      job d;
      memset(&d, 0, sizeof d);
      d.kind = VNCL__TS_GEMM_DIRECT;
      d.dtype = dtype;
      d.shape = sh;
      d.m = d.n = d.k = 96;
      d.batch = 16;
      d.space = vncl__tspace_gemm(VNCL__GEMM_DIRECT, q);
      d.share = (q ? 0.12 : 0.14) * dscale;
      d.samples = q ? 3 : 16;
      snprintf(d.label, sizeof d.label, "gemm %s small batched", dn);
      job_begin(s, &d);
      double dbase = eval_baseline(s, &d, &best, NULL, false);
      result dr;
      search(s, &d, &best, NULL, dbase, &dr);
      double drate = dbase;
      if (dr.have_idx && dr.rate > dbase && !s->stopped && !interrupted) {
        vncl__gemm_params cand = best;
        for (int i = 0; i < d.space->np; i++)
          vncl__gemm_param_set_named(&cand, d.space->p[i].name,
                                     d.space->p[i].v[dr.idx[i]]);
        drate = dr.rate;
        if (confirm(s, &d, &best, &cand, NULL, NULL, &dbase, &drate))
          best = cand;
        else
          drate = dbase;
      }
      job_end(s);
      fprintf(stderr, "autotune: %s: defaults %.1f GFLOP/s, tuned %.1f "
              "GFLOP/s\n", d.label, dbase, drate);
    }
    if (s->stopped || interrupted) break;
    bool clb = cl_rate > own_rate;
    best.backend = clb ? VNCL__GEMM_CLBLAST : VNCL__GEMM_OWN;
    cJSON *pj = vncl__gemm_params_to_json(&best);
    if (clb && cl_params) cJSON_AddItemToObject(pj, "clblast", cl_params);
    else cJSON_Delete(cl_params);
    put_entry(s, db, "gemm", dn, shape_names[sh], clb ? "clblast" : "own",
              clb ? cl_rate : own_rate, pj);
    save_db(s, db);
    fprintf(stderr, "autotune: gemm %s %s: %s wins (ours %.1f, CLBlast %.1f "
            "GFLOP/s)\n", dn, shape_names[sh], clb ? "CLBlast" : "ours",
            own_rate, cl_rate);
  }
}

static void tune_ops(session *s, vncl__tuning_db *db, int fam, int nfam) {
  job j;
  memset(&j, 0, sizeof j);
  vncl__tspace_from_ops(fam, s->o->quick, &j.ops_space);
  j.space = &j.ops_space;
  j.kind = VNCL__TS_OPS;
  j.share = (s->o->quick ? 0.18 : 0.12) / nfam;
  j.samples = s->o->quick ? 2 : 10;
  snprintf(j.label, sizeof j.label, "%s", j.ops_space.name);
  int v[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params_set(s->ctx, (vncl__ops_family)fam, NULL);
  vncl__ops_params(s->ctx, (vncl__ops_family)fam, v);
  job_begin(s, &j);
  double b = eval_baseline(s, &j, NULL, v, false);
  result r;
  search(s, &j, NULL, v, b, &r);
  int tv[VNCL__OPS_MAX_PARAMS];
  memcpy(tv, v, sizeof tv);
  bool tuned = false;
  double rate = b;
  if (r.have_idx && r.rate > b && !s->stopped && !interrupted) {
    for (int i = 0; i < j.ops_space.np; i++)
      tv[i] = j.ops_space.p[i].v[r.idx[i]];
    rate = r.rate;
    tuned = confirm(s, &j, NULL, NULL, v, tv, &b, &rate);
    if (!tuned) rate = b;
  }
  job_end(s);
  if (s->stopped || interrupted) return;
  cJSON *p = cJSON_CreateObject();
  for (int i = 0; i < j.ops_space.np; i++)
    cJSON_AddNumberToObject(p, j.ops_space.p[i].name, tuned ? tv[i] : v[i]);
  put_entry(s, db, j.ops_space.name, "any", "default", "", rate, p);
  save_db(s, db);
}

/* OUT.partial for appending: 0600, in the open folder, never through a
 * link; a file there that is not trusted (so not resumed from) is replaced
 * by a new one. */
static FILE *open_partial(session *s) {
  const int flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
  for (int attempt = 0; attempt < 2; attempt++) {
    int fd = openat(s->dirfd, s->partial_name, flags | (attempt ? O_EXCL : 0),
                    0600);
    if (fd < 0 && errno != ELOOP) return NULL;
    struct stat st;
    vncl__trust t;
    if (fd >= 0 && fstat(fd, &st) == 0 &&
        vncl__trust_stat(&st, false, s->partial_path, &t) &&
        fchmod(fd, 0600) == 0) {
      FILE *f = fdopen(fd, "a");
      if (f) return f;
    }
    if (fd >= 0) close(fd);
    if (attempt || unlinkat(s->dirfd, s->partial_name, 0) != 0) return NULL;
  }
  return NULL;
}

/* OUT's folder: made (0700) when missing, then used only when trusted. */
static bool open_out_dir(session *s) {
  char dir[1024];
  const char *slash = strrchr(s->out, '/');
  if (!slash)
    vncl__strlcpy(dir, ".", sizeof dir);
  else if (slash == s->out)
    vncl__strlcpy(dir, "/", sizeof dir);
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - s->out), s->out);
  s->partial_name = strrchr(s->partial_path, '/')
                        ? strrchr(s->partial_path, '/') + 1
                        : s->partial_path;
  vncl__trust t;
  s->dirfd = -1;
  if (vncl__trust_make_dirs(dir, &t))
    s->dirfd = vncl__trust_open_dir(dir, true, s->dir, sizeof s->dir, &t);
  if (s->dirfd >= 0) return true;
  if (t.state == VNCL__TRUST_BROKEN)
    fprintf(stderr, "autotune: the database folder is not trusted: %s\n"
            "autotune: fix: %s%swrite the database to a folder of your own "
            "(--out FILE)\n", t.why, t.fix, t.fix[0] ? ", or " : "");
  else
    fprintf(stderr, "autotune: cannot use the folder of %s: %s\n", s->out,
            t.why);
  return false;
}

int vncl__autotune_run(vncl__autotune_opts *o) {
  session s;
  memset(&s, 0, sizeof s);
  s.o = o;
  s.dirfd = -1;
  o->evaluated = o->reused = o->failed = 0;
  interrupted = 0;
  const char *envdb = vncl__getenv("VNCL_TUNING_DB");
  if (o->out && *o->out)
    vncl__strlcpy(s.out, o->out, sizeof s.out);
  else if (envdb)
    vncl__strlcpy(s.out, envdb, sizeof s.out);
  else
    vncl__tuning_default_path(s.out, sizeof s.out);
  if (!s.out[0]) {
    fprintf(stderr, "autotune: nowhere to write the database: give --out "
            "FILE, or set VNCL_TUNING_DB or HOME\n");
    return 1;
  }
  snprintf(s.partial_path, sizeof s.partial_path, "%s.partial", s.out);
  if (!open_out_dir(&s)) return 1;
  vncl_options opts;
  vncl_options_init(&opts);
  opts.device = o->device;
  opts.tuning_db = "/nonexistent/vncl-autotune"; /* measure the built-ins */
  if (vncl_context_create(&s.ctx, &opts)) {
    fprintf(stderr, "autotune: %s\n", vncl_errmsg(NULL));
    close(s.dirfd);
    return 1;
  }
  vncl__tune_device_of(s.ctx, &s.dev);
  s.budget = o->budget > 0 ? o->budget : o->quick ? 75 : 780;
  s.runs = o->quick ? 3 : 5;
  s.t_start = vncl__now();

  /* Workers select the same device and read no database. */
  const char *cur_dev = vncl__getenv("VNCL_DEVICE");
  char *old_dev = cur_dev ? strdup(cur_dev) : NULL;
  char *old_db = envdb ? strdup(envdb) : NULL;
  char sel[32];
  snprintf(sel, sizeof sel, "%d", s.ctx->info.index >= 0 ? s.ctx->info.index
                                                         : 0);
  setenv("VNCL_DEVICE", sel, 1);
  setenv("VNCL_TUNING_DB", "/nonexistent/vncl-autotune", 1);
  s.runner = vncl__tune_runner_new(o->worker_argv, o->timeout > 0 ? o->timeout
                                                                  : 120);
  s.done = cJSON_CreateObject();
  load_partial(&s);
  int resumed = cJSON_GetArraySize(s.done);
  s.partial = open_partial(&s);
  if (!s.partial)
    fprintf(stderr, "autotune: cannot write %s: %s; an interrupted run will "
            "not resume\n", s.partial_path, strerror(errno));
  vncl__tuning_db db;
  char why[512];
  if (!vncl__tuning_db_load(s.out, &db, why, sizeof why) && why[0])
    fprintf(stderr, "autotune: %s: %s; starting a new database\n", s.out, why);
  fprintf(stderr, "autotune: %s (%s), budget %.0f s, database %s%s\n",
          s.dev.info.name, s.dev.info.driver_version, s.budget, s.out,
          resumed ? ", resuming" : "");
  if (resumed)
    fprintf(stderr, "autotune: %d results from %s\n", resumed, s.partial_path);

  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old);

  bool want_gemm = wanted(o->kernels, "gemm");
  if (want_gemm) {
    bool f32 = wanted(o->dtypes, "f32") || wanted(o->dtypes, "f16") ||
               wanted(o->dtypes, "bf16");
    bool f64 = s.dev.info.fp64 &&
               (o->dtypes ? wanted(o->dtypes, "f64") : !o->quick);
    if (f32) tune_gemm(&s, &db, VNCL_F32);
    if (f64 && !s.stopped && !interrupted) tune_gemm(&s, &db, VNCL_F64);
  }
  int nfam = 0;
  for (int f = 0; f < VNCL__OPS_FAMILIES; f++)
    if (wanted(o->kernels, "ops") || wanted(o->kernels, vncl__ops_space(f)->family))
      nfam++;
  for (int f = 0; f < VNCL__OPS_FAMILIES && !s.stopped && !interrupted; f++)
    if (wanted(o->kernels, "ops") ||
        wanted(o->kernels, vncl__ops_space(f)->family))
      tune_ops(&s, &db, f, nfam);

  sigaction(SIGINT, &old, NULL);
  int rc = 0;
  if (s.stopped || interrupted) {
    fprintf(stderr, "autotune: stopped; %d results kept in %s, run the same "
            "command again to resume\n", cJSON_GetArraySize(s.done),
            s.partial_path);
    rc = 3;
  } else {
    if (db.n == 0) save_db(&s, &db);
    unlinkat(s.dirfd, s.partial_name, 0);
    fprintf(stderr, "autotune: done in %.0f s: %d measured, %d reused, %d "
            "failed; %d entries in %s\n", vncl__now() - s.t_start,
            o->evaluated, o->reused, o->failed, db.n, s.out);
  }
  if (s.partial) fclose(s.partial);
  vncl__tuning_db_free(&db);
  cJSON_Delete(s.done);
  vncl__tune_runner_free(s.runner);
  vncl_context_destroy(s.ctx);
  close(s.dirfd);
  if (old_dev) setenv("VNCL_DEVICE", old_dev, 1);
  else unsetenv("VNCL_DEVICE");
  if (old_db) setenv("VNCL_TUNING_DB", old_db, 1);
  else unsetenv("VNCL_TUNING_DB");
  free(old_dev);
  free(old_db);
  return rc;
}
