/*
 * The autotuner: for each job (a kernel, dtype and shape class on one
 * problem size) it measures the parameters in force, then searches the
 * job's space: every valid candidate when there are few, else hill
 * climbing (one parameter one step at a time) from the set in force until
 * no neighbour is faster, then random samples, climbed from where one
 * beats it, until the job's share of the budget is spent.
 * Candidates run in worker processes (runner.c); every answer is appended
 * to OUT.partial (a vncl_tuning_journal) at once, so an interrupted run
 * resumes from it. The winners (ours or CLBlast per class) go into the
 * database at OUT (vncl_tuning_db_put, _save). Over the public API only.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune.h"

static const char *const shape_names[] = {"square", "narrow", "flat"};
enum { SHAPE_SQUARE, SHAPE_NARROW, SHAPE_FLAT, SHAPES };

typedef struct job {
  char label[48];  /* "gemm f32 large square" */
  int kind;        /* TS_* */
  int dtype;       /* VNCL_F32 / VNCL_F64 (GEMM) */
  int shape;       /* SHAPE_* */
  size_t m, n, k, batch;
  const tspace *space;
  tspace own;      /* what space points to, but for CLBlast's jobs: a
                    * table's space with the set in force's values added
                    * (job_space) */
  double share;    /* of the budget */
  int samples;     /* random samples before climbing */
} job;

typedef struct session {
  autotune_opts *o;
  vncl_device_info info;
  vncl_context *ctx;
  tune_runner *runner;
  cJSON *done;      /* key -> answer, from OUT.partial and this run */
  vncl_tuning_journal *partial;
  char out[1024], partial_path[1100];
  double t_start, budget;
  double share_scale; /* 1 / the shares of the jobs asked for */
  int runs;
  /* progress of the current job */
  const char *label;
  int cand_done;  /* evaluations of this job so far */
  int cand_total; /* those and the ones planned next: never below
                   * cand_done, and equal to it when the job ends */
  int shown_total; /* the total the last progress output showed */
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

static const char *unit_of(const session *s) {
  return strncmp(s->label, "gemm", 4) && strncmp(s->label, "clblast", 7)
             ? "GB/s"
             : "GFLOP/s";
}

static void draw_bar(const session *s, double eta) {
  int w = 24, fill = s->cand_total ? w * s->cand_done / s->cand_total : 0;
  if (fill > w) fill = w;
  char bar[32];
  for (int i = 0; i < w; i++) bar[i] = i < fill ? '#' : '.';
  bar[w] = '\0';
  fprintf(stderr, "\r\033[K%-28s [%s] %d/%d best %.1f %s ETA %d:%02d",
          s->label, bar, s->cand_done, s->cand_total, s->best_rate,
          unit_of(s), (int)eta / 60, (int)eta % 60);
}

static void progress(session *s, const char *key, const cJSON *ans) {
  double el = tune_now() - s->t_start;
  double eta = s->budget - el;
  if (eta < 0) eta = 0;
  bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "ok"));
  const cJSON *rate = cJSON_GetObjectItemCaseSensitive(ans, "rate");
  const char *unit = unit_of(s);
  s->shown_total = s->cand_total;
  if (s->o->progress_tty) {
    draw_bar(s, eta);
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
    ans = tune_runner_eval(s->runner, req);
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
    if (t && s->partial && vncl_tuning_journal_append(s->partial, t))
      fprintf(stderr, "autotune: %s\n", vncl_errmsg(NULL));
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
  return tune_now() - s->job_start < s->job_budget;
}

/* ---- requests ------------------------------------------------------------ */

static cJSON *job_request(const job *j) {
  cJSON *r = cJSON_CreateObject();
  if (j->kind == TS_OPS) {
    cJSON_AddStringToObject(r, "kind", "ops");
    cJSON_AddStringToObject(r, "family", j->space->family);
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
  snprintf(out, cap, "%s|%s|%s|%zux%zux%zux%zu|", s->info.name,
           s->info.driver_version, j->label, j->m, j->n, j->k, j->batch);
}

/* A set's values in space order, as a request's "values" (ops). */
static void add_values(cJSON *r, const tspace *sp,
                       const vncl_tuning_params *set) {
  cJSON *v = cJSON_AddArrayToObject(r, "values");
  for (int i = 0; i < sp->np; i++) {
    double x = 0;
    params_get(set, sp->p[i].name, &x);
    cJSON_AddItemToArray(v, cJSON_CreateNumber(x));
  }
}

/* The request of candidate idx of job j laid over `base`. */
static cJSON *cand_request(const job *j, const tspace *sp, const int *idx,
                           const vncl_tuning_params *base, char *key,
                           size_t cap) {
  cJSON *r = job_request(j);
  size_t n = strlen(key);
  for (int i = 0; i < sp->np; i++) {
    int w = snprintf(key + n, cap - n, "%s%s=%d", i ? "," : "", sp->p[i].name,
                     sp->p[i].v[idx[i]]);
    if (w > 0 && (size_t)w < cap - n) n += (size_t)w;
  }
  if (sp->kind == TS_OPS) {
    cJSON *v = cJSON_AddArrayToObject(r, "values");
    for (int i = 0; i < sp->np; i++)
      cJSON_AddItemToArray(v, cJSON_CreateNumber(sp->p[i].v[idx[i]]));
  } else if (sp->kind == TS_CLBLAST) {
    vncl_tuning_params p = *base;
    params_put(&p, "backend", 1);
    cJSON_AddItemToObject(r, "params", params_to_json(&p));
    cJSON *c = cJSON_AddObjectToObject(r, "clblast");
    for (int i = 0; i < sp->np; i++)
      cJSON_AddNumberToObject(c, sp->p[i].name, sp->p[i].v[idx[i]]);
    cJSON_AddTrueToObject(r, "fresh"); /* CLBlast keeps overrides */
  } else {
    vncl_tuning_params p = *base;
    for (int i = 0; i < sp->np; i++)
      params_put(&p, sp->p[i].name, sp->p[i].v[idx[i]]);
    params_put(&p, "backend", 0);
    cJSON_AddItemToObject(r, "params", params_to_json(&p));
  }
  return r;
}

/* ---- search -------------------------------------------------------------- */

typedef struct cands {
  int n, cap;
  unsigned char (*v)[TS_MAX_PARAMS];
} cands;

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Every valid candidate of the space (spaces are below ~10^5 points),
 * each laid over the set in force for job j's class. */
static void enumerate(const session *s, const job *j, const tspace *sp,
                      cands *out) {
  int idx[TS_MAX_PARAMS] = {0};
  char why[256];
  memset(out, 0, sizeof *out);
  for (;;) {
    if (tspace_valid(s->ctx, sp, idx, (vncl_dtype)j->dtype,
                     shape_names[j->shape], why, sizeof why)) {
      if (out->n == out->cap) {
        int nc = out->cap ? out->cap * 2 : 256;
        void *nv = realloc(out->v, (size_t)nc * sizeof *out->v);
        if (!nv) return;
        out->v = nv;
        out->cap = nc;
      }
      for (int i = 0; i < TS_MAX_PARAMS; i++)
        out->v[out->n][i] = (unsigned char)(i < sp->np ? idx[i] : 0);
      out->n++;
    }
    int d = 0;
    while (d < sp->np && ++idx[d] == sp->p[d].n) idx[d++] = 0;
    if (d == sp->np) break;
  }
}

/* Value indexes of `base` in the space, when every value is a candidate. */
static bool base_index(const tspace *sp, const vncl_tuning_params *base,
                       int *idx) {
  bool ok = base != NULL;
  for (int i = 0; i < sp->np && ok; i++) {
    double want = -1;
    params_get(base, sp->p[i].name, &want);
    idx[i] = -1;
    for (int k = 0; k < sp->p[i].n; k++)
      if (sp->p[i].v[k] == want) idx[i] = k;
    ok = idx[i] >= 0;
  }
  return ok;
}

typedef struct result {
  double rate;    /* best rate, 0: none */
  int idx[TS_MAX_PARAMS];
  bool have_idx;  /* best is a space point (else the baseline) */
} result;

/* Candidate idx of job j, measured; `again` measures it once more under a
 * key of its own ("again " before the values). */
static double eval_idx(session *s, const job *j, const int *idx,
                       const vncl_tuning_params *base, bool again) {
  char key[1024];
  job_prefix(s, j, key, sizeof key);
  if (again) strncat(key, "again ", sizeof key - strlen(key) - 1);
  cJSON *req = cand_request(j, j->space, idx, base, key, sizeof key);
  double r = evaluate(s, key, req);
  cJSON_Delete(req);
  return r;
}

/* Candidate idx measured; where it reads above `beat` (and the job's time
 * and cap allow) measured once more, keeping the lower rate: one
 * measurement on a busy machine can read 1.15x high, and a search that
 * steps onto such a point spends its next round around it (a quick f32
 * search took ORDER 1 at 295 GFLOP/s against 224 for the row, then read
 * every neighbour of it at 130-170, and the row's 256 again). */
static double eval_checked(session *s, const job *j, const int *idx,
                           const vncl_tuning_params *base, double beat,
                           int *tried) {
  int cap = s->o->max_candidates;
  double r = eval_idx(s, j, idx, base, false);
  (*tried)++;
  if (r > beat && job_time_left(s) && !(cap && *tried >= cap)) {
    plan(s, 1);
    double r2 = eval_idx(s, j, idx, base, true);
    (*tried)++;
    if (r2 < r) r = r2;
  }
  return r;
}

/* Hill climbing from res's point: every neighbour one value step away in
 * one parameter is measured, the best that is at least 1% faster (in the
 * lower of two measurements) becomes the point, until none is, the job's
 * time is spent or the cap reached. */
static void climb(session *s, job *j, const vncl_tuning_params *base,
                  result *res, int *tried) {
  const tspace *sp = j->space;
  int cap = s->o->max_candidates;
  char why[256];
  bool improved = true;
  while (improved && job_time_left(s) && !(cap && *tried >= cap)) {
    improved = false;
    int cur[TS_MAX_PARAMS];
    memcpy(cur, res->idx, sizeof cur);
    /* This round's valid neighbours join the plan; those the budget or
     * the cap leave out are dropped from it after the round. */
    int round = 0;
    for (int p = 0; p < sp->np; p++)
      for (int d = -1; d <= 1; d += 2) {
        int nb[TS_MAX_PARAMS];
        memcpy(nb, cur, sizeof nb);
        nb[p] += d;
        if (nb[p] >= 0 && nb[p] < sp->p[p].n &&
            tspace_valid(s->ctx, sp, nb, (vncl_dtype)j->dtype,
                         shape_names[j->shape], why, sizeof why))
          round++;
      }
    if (cap && round > cap - *tried) round = cap - *tried;
    plan(s, round);
    for (int p = 0; p < sp->np && job_time_left(s); p++)
      for (int d = -1; d <= 1; d += 2) {
        int nb[TS_MAX_PARAMS];
        memcpy(nb, cur, sizeof nb);
        nb[p] += d;
        if (nb[p] < 0 || nb[p] >= sp->p[p].n) continue;
        if (!tspace_valid(s->ctx, sp, nb, (vncl_dtype)j->dtype,
                         shape_names[j->shape], why, sizeof why))
          continue;
        if (cap && *tried >= cap) break;
        if (!job_time_left(s)) break;
        double r = eval_checked(s, j, nb, base, res->rate * 1.01, tried);
        if (r > res->rate * 1.01) {
          res->rate = r;
          memcpy(res->idx, nb, sizeof nb);
          improved = true;
        }
      }
    plan_done(s);
  }
}

/* Every valid point where the space has no more than the job's samples.
 * Otherwise, where the set in force is a point of the space (our kernels:
 * job_space adds its values), the climb starts there: its neighbours are
 * the likeliest gains, and a quick job's few seconds used to go on random
 * samples far from it (the 16-bit class as AVX2 code: three samples at
 * 0.67-0.85x the row, then the job's 10 s were spent and no neighbour had
 * been measured). Random samples follow with the time left, and a sample
 * that beats the climb's point is climbed from too.
 * CLBlast's space (its defaults are not a point): samples, then the climb
 * from the best. */
static void search(session *s, job *j, const vncl_tuning_params *base,
                   double baseline_rate, result *res) {
  const tspace *sp = j->space;
  cands c;
  enumerate(s, j, sp, &c);
  res->rate = baseline_rate;
  res->have_idx = false;
  int bidx[TS_MAX_PARAMS];
  if (base_index(sp, base, bidx) && sp->kind != TS_CLBLAST) {
    memcpy(res->idx, bidx, sizeof bidx);
    res->have_idx = true; /* the baseline is a point: climb from it */
  }
  int cap = s->o->max_candidates;
  int budget_n = j->samples;
  bool exhaustive = c.n <= budget_n;
  int tried = 0;
  if (!exhaustive && res->have_idx) climb(s, j, base, res, &tried);
  int first = c.n ? (exhaustive ? c.n : budget_n) : 0;
  if (cap && first > cap - tried) first = cap > tried ? cap - tried : 0;
  if (!job_time_left(s)) first = 0;
  plan(s, first);
  uint64_t rng = 1469598103934665603ULL; /* FNV-1a of the label */
  for (const char *c = j->label; *c; c++)
    rng = (rng ^ (unsigned char)*c) * 1099511628211ULL;
  rng |= 1;
  /* Exhaustive or random samples. */
  bool sampled_best = false;
  for (int i = 0; i < (exhaustive ? c.n : budget_n) && c.n; i++) {
    if (!job_time_left(s) || (cap && tried >= cap)) break;
    int pick = exhaustive ? i : (int)(rng_next(&rng) % (uint64_t)c.n);
    int idx[TS_MAX_PARAMS] = {0};
    for (int p = 0; p < sp->np; p++) idx[p] = c.v[pick][p];
    double r = eval_checked(s, j, idx, base, res->rate, &tried);
    if (r > res->rate) {
      res->rate = r;
      memcpy(res->idx, idx, sizeof idx);
      res->have_idx = true;
      sampled_best = true;
    }
  }
  plan_done(s); /* what the budget or the cap cut */
  if (!exhaustive && sampled_best) climb(s, j, base, res, &tried);
  free(c.v);
}

/* The baseline: the parameters in force (built-in defaults), as a plain
 * request so that it is measured even when not a point of the space. */
static double eval_baseline(session *s, const job *j,
                            const vncl_tuning_params *base, bool clblast) {
  char key[1024];
  job_prefix(s, j, key, sizeof key);
  strncat(key, clblast ? "clblast-defaults" : "defaults",
          sizeof key - strlen(key) - 1);
  cJSON *req = job_request(j);
  if (j->kind == TS_OPS) {
    add_values(req, j->space, base);
  } else {
    vncl_tuning_params p = *base;
    params_put(&p, "backend", clblast ? 1 : 0);
    cJSON_AddItemToObject(req, "params", params_to_json(&p));
    if (clblast) cJSON_AddTrueToObject(req, "fresh");
  }
  double r = evaluate(s, key, req);
  cJSON_Delete(req);
  return r;
}

/* A full set as a request, under prefix + tag. */
static double eval_set(session *s, const job *j, const vncl_tuning_params *p,
                       const char *tag) {
  char key[1024];
  job_prefix(s, j, key, sizeof key);
  strncat(key, tag, sizeof key - strlen(key) - 1);
  cJSON *req = job_request(j);
  if (j->kind == TS_OPS)
    add_values(req, j->space, p);
  else
    cJSON_AddItemToObject(req, "params", params_to_json(p));
  double r = evaluate(s, key, req);
  cJSON_Delete(req);
  return r;
}

/* On a shared machine one measurement can be off by 2x, and the search's
 * best is the maximum of many noisy ones (biased upwards). Before a tuned
 * set replaces the defaults, both are measured again in CONFIRM_ROUNDS
 * interleaved pairs; the tuned set must reach `bar` times the defaults in
 * the median pair (1.03 where it must win, below 1 where it must only not
 * lose). Returns true to keep it; the rates become the pairs' means. */
#define CONFIRM_ROUNDS 5
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static bool confirm(session *s, const job *j, const vncl_tuning_params *def,
                    const vncl_tuning_params *tuned, double bar,
                    double *def_rate, double *tuned_rate) {
  double a = 0, b = 0, ratio[CONFIRM_ROUNDS];
  int n = 0;
  plan(s, 2 * CONFIRM_ROUNDS);
  for (int i = 0; i < CONFIRM_ROUNDS && !s->stopped && !interrupted; i++) {
    char t[32];
    snprintf(t, sizeof t, "check-defaults-%d", i);
    double x = eval_set(s, j, def, t);
    snprintf(t, sizeof t, "check-tuned-%d", i);
    double y = eval_set(s, j, tuned, t);
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
  return ratio[n / 2] >= bar;
}

/* The packed path's switch for a square product of this dtype (as
 * lib/gemm/gemm.c's packed_from: 16-bit storage may switch earlier). */
static double packed_switch(const job *j, const vncl_tuning_params *p) {
  double sw = 0, sw16 = 1e30;
  params_get(p, "switch_mnk", &sw);
  params_get(p, "switch_mnk16", &sw16);
  if ((j->dtype == VNCL_F16 || j->dtype == VNCL_BF16) && sw16 < sw) sw = sw16;
  return sw;
}

/* The square class runs every product from the packed path's switch up
 * (issue 14 asks for 512^3 to 4096^3), but the search times one size,
 * 1024^3 or 2048^3. A set that wins there must not lose at the low end
 * too: on an AMD EPYC a full f64 search took a set at 1.05x the built-in
 * row at 1024^3 that ran 0.75x of it at 512^3 (docs/tuning.md, "Quick
 * against full"). So the confirmation is repeated at the smallest square
 * product the packed path runs, 512^3 or the switch if that is higher
 * (below it the packed set plays no part: the AMD rows switch at about
 * 843^3), where the tuned set must reach 0.97x (the noise of a median of
 * five pairs). */
#define SQUARE_LOW 512
size_t autotune_square_low(double sw) {
  size_t n = SQUARE_LOW;
  while (n < 8192 && (double)n * n * n < sw) n += 16;
  return n;
}

size_t autotune_direct_top(double sw) {
  size_t top = 16;
  while (top < 1024 && (double)(top + 16) * (top + 16) * (top + 16) < sw)
    top += 16;
  return top;
}

/* The confirmation of j's tuned set repeated on `batch` square products of
 * size^3, where it must reach 0.97x the defaults (the noise of a median
 * of five pairs). */
static bool holds_at(session *s, const job *j, size_t size, size_t batch,
                     const vncl_tuning_params *def,
                     const vncl_tuning_params *tuned) {
  job at = *j;
  at.m = at.n = at.k = size;
  at.batch = batch;
  snprintf(at.label, sizeof at.label, "%.30s, %zu x %zu^3", j->label, batch,
           size);
  double x, y;
  return confirm(s, &at, def, tuned, 0.97, &x, &y);
}

static bool holds_at_low_end(session *s, const job *j,
                             const vncl_tuning_params *def,
                             const vncl_tuning_params *tuned) {
  size_t low_n = autotune_square_low(packed_switch(j, def));
  return j->m <= low_n || holds_at(s, j, low_n, j->batch, def, tuned);
}

/* The direct kernel's set is searched on a batch of small products, but it
 * also serves every single product below the packed path's switch: on the
 * Zen 5 EPYC a quick search took a 6 x 32 direct tile at 1.33x on 16 x
 * 96^3 that ran 0.81x the row's 6 x 64 at 768^3 (docs/tuning.md, "Depths
 * per row load on a Zen 5"). So it is confirmed once more on the largest
 * square product below the switch (at most 1024^3), where it must reach
 * 0.97x. */
static bool direct_holds_below_switch(session *s, const job *d,
                                      const vncl_tuning_params *def,
                                      const vncl_tuning_params *tuned) {
  size_t top = autotune_direct_top(packed_switch(d, def));
  return top <= d->m || holds_at(s, d, top, 1, def, tuned);
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
 * like the database: only when no other account could have written it
 * (vncl_tuning_journal_open reads only such a file). */
static void load_partial(session *s) {
  const char *note = vncl_tuning_journal_note(s->partial);
  if (note[0]) fprintf(stderr, "autotune: %s; not resumed from\n", note);
  for (int i = 0; i < vncl_tuning_journal_count(s->partial); i++) {
    const char *line = vncl_tuning_journal_line(s->partial, i);
    cJSON *o = cJSON_Parse(line);
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

static void put_entry(session *s, vncl_tuning_db *db, const char *family,
                      vncl_dtype dtype, const char *shape, double rate,
                      const vncl_tuning_params *p) {
  if (vncl_tuning_db_put(db, s->ctx, family, dtype, shape, p, rate))
    fprintf(stderr, "autotune: %s\n", vncl_errmsg(s->ctx));
}

static void save_db(session *s, vncl_tuning_db *db) {
  if (vncl_tuning_db_save(db, s->out))
    fprintf(stderr, "autotune: %s\n", vncl_errmsg(NULL));
}

static void job_begin(session *s, job *j) {
  s->label = j->label;
  s->cand_done = 0;
  s->cand_total = 0;
  s->shown_total = 0;
  /* The baseline; the search and the confirmation plan their own. */
  plan(s, 1 + (getenv("VNCL_TUNE_TEST_FAULTS") ? 2 : 0));
  s->best_rate = 0;
  s->job_start = tune_now();
  double left = s->budget - (s->job_start - s->t_start);
  s->job_budget = s->budget * j->share * s->share_scale;
  if (s->job_budget > left) s->job_budget = left > 5 ? left : 5;
  if (getenv("VNCL_TUNE_TEST_FAULTS")) eval_test_faults(s, j);
}

/* What was planned and not run (budget, stop) leaves the total; when the
 * last output showed more, the job's count is shown once more, true. */
static void job_end(session *s) {
  plan_done(s);
  if (s->cand_done && s->cand_total != s->shown_total) {
    double eta = s->budget - (tune_now() - s->t_start);
    if (s->o->progress_tty)
      draw_bar(s, eta > 0 ? eta : 0);
    else
      fprintf(stderr, "autotune: %s %d/%d: the job ends (best %.1f %s)\n",
              s->label, s->cand_done, s->cand_total, s->best_rate,
              unit_of(s));
    s->shown_total = s->cand_total;
  }
  if (s->o->progress_tty) fprintf(stderr, "\n");
}

/* Points j at table with the values of `base` (the set in force) added
 * (tspace_with_base), in the job's own copy: every search of our kernels,
 * GEMM and tensor ops alike, climbs from the set in force even where it
 * lies outside the table's candidates. */
static void job_space(job *j, const tspace *table,
                      const vncl_tuning_params *base) {
  tspace_with_base(table, base, &j->own);
  j->space = &j->own;
}

/* Shares of the budget, per job; autotune_run scales them so that the jobs
 * asked for fill it (share_scale). f64 and 16-bit take a smaller share
 * than f32; CLBlast's search is for full runs, and a quick run times it
 * on the square class only (its builds take seconds each). */
static double share_fast(bool q, int sh) {
  return sh == SHAPE_SQUARE ? (q ? 0.40 : 0.32)
         : sh == SHAPE_NARROW ? (q ? 0.10 : 0.12)
                              : (q ? 0.08 : 0.10);
}
static double share_clblast(bool q, int sh) {
  return sh == SHAPE_SQUARE ? (q ? 0.12 : 0.10) : (q ? 0 : 0.02);
}
static double share_direct(bool q) { return q ? 0.12 : 0.14; }
static double share_ops(bool q) { return q ? 0.18 : 0.12; }
static double dtype_scale(int dtype) { return dtype == VNCL_F32 ? 1.0 : 0.35; }

/* CLBlast stores f16 only where the device computes in half (and never
 * bf16): the 16-bit class is ours alone elsewhere. */
static bool clblast_takes(const session *s, int dtype) {
  return dtype != VNCL_BF16 && (dtype != VNCL_F16 || s->info.fp16);
}

/* The shares of tune_gemm's jobs for one dtype. */
static double gemm_share(const session *s, int dtype) {
  bool q = s->o->quick;
  double sum = share_direct(q);
  for (int sh = 0; sh < SHAPES; sh++)
    sum += share_fast(q, sh) + (clblast_takes(s, dtype) ? share_clblast(q, sh)
                                                        : 0);
  return sum * dtype_scale(dtype);
}

/* GEMM for one dtype: every class, our kernels and CLBlast. */
static void tune_gemm(session *s, vncl_tuning_db *db, int dtype) {
  bool q = s->o->quick;
  bool f64 = dtype == VNCL_F64;
  const char *dn = vncl_dtype_name((vncl_dtype)dtype);
  double dscale = dtype_scale(dtype);
  bool clblast_ok = clblast_takes(s, dtype);
  size_t big = q || f64 ? 1024 : 2048;
  for (int sh = 0; sh < SHAPES && !s->stopped && !interrupted; sh++) {
    /* The built-in set: nothing installed on the session's context. */
    vncl_tuning_params base;
    vncl_tuning_set(s->ctx, "gemm", (vncl_dtype)dtype, shape_names[sh], NULL);
    if (vncl_tuning_get(s->ctx, "gemm", (vncl_dtype)dtype, shape_names[sh],
                        &base)) {
      fprintf(stderr, "autotune: %s\n", vncl_errmsg(s->ctx));
      s->stopped = true;
      return;
    }
    double fast = 2;
    params_get(&base, "fast", &fast);
    /* The class's large product: the packed (fast) kernel's parameters. */
    job j;
    memset(&j, 0, sizeof j);
    j.kind = TS_GEMM_FAST;
    j.dtype = dtype;
    j.shape = sh;
    j.batch = 1;
    if (sh == SHAPE_SQUARE) {
      j.m = j.n = j.k = big;
      j.share = share_fast(q, sh) * dscale;
      j.samples = q ? 5 : 20;
      snprintf(j.label, sizeof j.label, "gemm %s large square", dn);
    } else if (sh == SHAPE_NARROW) {
      j.m = 4096;
      j.n = 64;
      j.k = 1024;
      j.share = share_fast(q, sh) * dscale;
      j.samples = q ? 2 : 12;
      snprintf(j.label, sizeof j.label, "gemm %s tall-skinny", dn);
    } else {
      j.m = 64;
      j.n = 4096;
      j.k = 1024;
      j.share = share_fast(q, sh) * dscale;
      j.samples = q ? 2 : 10;
      snprintf(j.label, sizeof j.label, "gemm %s flat", dn);
    }
    job_space(&j, tspace_gemm(tspace_fast_kernel(fast), q), &base);
    job_begin(s, &j);
    double own_base = eval_baseline(s, &j, &base, false);
    result fr;
    search(s, &j, &base, own_base, &fr);
    vncl_tuning_params best = base;
    if (fr.have_idx)
      for (int i = 0; i < j.space->np; i++)
        params_put(&best, j.space->p[i].name, j.space->p[i].v[fr.idx[i]]);
    if (fr.rate <= own_base) best = base;
    double own_rate = fr.rate > own_base ? fr.rate : own_base;
    if (fr.rate > own_base && !s->stopped && !interrupted &&
        (!confirm(s, &j, &base, &best, 1.03, &own_base, &own_rate) ||
         (sh == SHAPE_SQUARE && !holds_at_low_end(s, &j, &base, &best)))) {
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
    bool have_cl = false, cl_ran = false;
    vncl_tuning_params cl_params;
    memset(&cl_params, 0, sizeof cl_params);
    if (clblast_ok && !s->stopped && !interrupted &&
        (!q || sh == SHAPE_SQUARE)) {
      job c = j;
      c.kind = TS_CLBLAST;
      c.space = tspace_clblast(q);
      c.share = share_clblast(q, sh) * dscale;
      /* A CLBlast build takes 5-15 s on PoCL: its search is for full
       * runs. */
      c.samples = sh == SHAPE_SQUARE && !q ? 6 : 0;
      snprintf(c.label, sizeof c.label, "clblast %s %s", dn,
               sh == SHAPE_SQUARE ? "large square" : shape_names[sh]);
      job_begin(s, &c);
      cl_rate = eval_baseline(s, &c, &best, true);
      cl_ran = true;
      if (c.samples) {
        result cr;
        search(s, &c, &best, cl_rate, &cr);
        if (cr.have_idx && cr.rate > cl_rate) {
          cl_rate = cr.rate;
          tspace_params(c.space, cr.idx, &cl_params);
          have_cl = true;
        }
      }
      job_end(s);
    }

    /* Square: the direct kernel on small and small batched products. */
    if (sh == SHAPE_SQUARE && !s->stopped && !interrupted) {
      job d;
      memset(&d, 0, sizeof d);
      d.kind = TS_GEMM_DIRECT;
      d.dtype = dtype;
      d.shape = sh;
      d.m = d.n = d.k = 96;
      d.batch = 16;
      job_space(&d, tspace_gemm("gemm_direct", q), &best);
      d.share = share_direct(q) * dscale;
      d.samples = q ? 3 : 16;
      snprintf(d.label, sizeof d.label, "gemm %s small batched", dn);
      job_begin(s, &d);
      /* The job measures gemm_direct: a set whose small_batch_mnk covers
       * 96^3 (or small_mnk the single product of its second confirmation)
       * would run these products on gemm_small, which the direct kernel's
       * parameters do not touch. Only the direct parameters go into the
       * set. */
      vncl_tuning_params dbest = best;
      params_put(&dbest, "small_batch_mnk", 0);
      params_put(&dbest, "small_mnk", 0);
      double dbase = eval_baseline(s, &d, &dbest, false);
      result dr;
      search(s, &d, &dbest, dbase, &dr);
      double drate = dbase;
      if (dr.have_idx && dr.rate > dbase && !s->stopped && !interrupted) {
        vncl_tuning_params cand = dbest;
        for (int i = 0; i < d.space->np; i++)
          params_put(&cand, d.space->p[i].name, d.space->p[i].v[dr.idx[i]]);
        drate = dr.rate;
        if (confirm(s, &d, &dbest, &cand, 1.03, &dbase, &drate) &&
            direct_holds_below_switch(s, &d, &dbest, &cand)) {
          for (int i = 0; i < d.space->np; i++)
            params_put(&best, d.space->p[i].name, d.space->p[i].v[dr.idx[i]]);
        } else {
          drate = dbase;
        }
      }
      job_end(s);
      fprintf(stderr, "autotune: %s: defaults %.1f GFLOP/s, tuned %.1f "
              "GFLOP/s\n", d.label, dbase, drate);
    }
    if (s->stopped || interrupted) break;
    bool clb = cl_rate > own_rate;
    params_put(&best, "backend", clb ? 1 : 0);
    put_entry(s, db, "gemm", (vncl_dtype)dtype, shape_names[sh],
              clb ? cl_rate : own_rate, &best);
    if (clb && have_cl)
      put_entry(s, db, "clblast", (vncl_dtype)dtype, shape_names[sh], 0,
                &cl_params);
    save_db(s, db);
    if (cl_ran) {
      fprintf(stderr, "autotune: gemm %s %s: %s wins (ours %.1f, CLBlast "
              "%.1f GFLOP/s)\n", dn, shape_names[sh], clb ? "CLBlast" : "ours",
              own_rate, cl_rate);
    } else {
      /* Not run: a dtype CLBlast lacks here; or the quick search, which
       * times it on the square class only (its builds take seconds each);
       * or a stop before it. */
      const char *why =
          !clblast_ok ? (dtype == VNCL_BF16 ? "no bf16" : "no half arithmetic")
          : q         ? "the quick search times it on the square class only"
                      : "the search stopped first";
      fprintf(stderr, "autotune: gemm %s %s: ours %.1f GFLOP/s (CLBlast not "
              "run: %s)\n", dn, shape_names[sh], own_rate, why);
    }
  }
}

static void tune_ops(session *s, vncl_tuning_db *db, const char *fam,
                     int nfam) {
  job j;
  memset(&j, 0, sizeof j);
  tspace table;
  if (!tspace_from_ops(fam, s->o->quick, &table)) return;
  /* The built-in set as the launches use it (fitted to the device). */
  vncl_tuning_params v;
  vncl_tuning_set(s->ctx, fam, VNCL_F32, NULL, NULL);
  if (vncl_tuning_get(s->ctx, fam, VNCL_F32, NULL, &v)) {
    fprintf(stderr, "autotune: %s\n", vncl_errmsg(s->ctx));
    return;
  }
  job_space(&j, &table, &v);
  j.kind = TS_OPS;
  j.dtype = VNCL_F32;
  j.share = share_ops(s->o->quick) / nfam;
  j.samples = s->o->quick ? 2 : 10;
  snprintf(j.label, sizeof j.label, "%s", j.space->name);
  job_begin(s, &j);
  double b = eval_baseline(s, &j, &v, false);
  result r;
  search(s, &j, &v, b, &r);
  vncl_tuning_params tv = v;
  bool tuned = false;
  double rate = b;
  if (r.have_idx && r.rate > b && !s->stopped && !interrupted) {
    for (int i = 0; i < j.space->np; i++)
      params_put(&tv, j.space->p[i].name, j.space->p[i].v[r.idx[i]]);
    rate = r.rate;
    tuned = confirm(s, &j, &v, &tv, 1.03, &b, &rate);
    if (!tuned) rate = b;
  }
  job_end(s);
  if (s->stopped || interrupted) return;
  /* The entry holds the family's tunables (those of its space). */
  vncl_tuning_params e;
  memset(&e, 0, sizeof e);
  for (int i = 0; i < j.space->np; i++) {
    double x = 0;
    params_get(tuned ? &tv : &v, j.space->p[i].name, &x);
    params_put(&e, j.space->p[i].name, x);
  }
  put_entry(s, db, fam, VNCL_F32, NULL, rate, &e);
  save_db(s, db);
}

/* The database path when none is given: the one a context reads by
 * default (VNCL_TUNING_DB, else the user's data folder). */
static void default_out(const autotune_opts *o, char *out, size_t cap) {
  out[0] = '\0';
  vncl_options opts;
  vncl_options_init(&opts);
  opts.device = o->device;
  vncl_context *c = NULL;
  vncl_tuning_database_info info;
  if (vncl_context_create(&c, &opts) == VNCL_OK &&
      vncl_tuning_database(c, &info) == VNCL_OK)
    snprintf(out, cap, "%s", info.path);
  vncl_context_destroy(c);
}

int autotune_run(autotune_opts *o) {
  session s;
  memset(&s, 0, sizeof s);
  s.o = o;
  o->evaluated = o->reused = o->failed = 0;
  interrupted = 0;
  const char *envdb = getenv("VNCL_TUNING_DB");
  if (o->out && *o->out)
    snprintf(s.out, sizeof s.out, "%s", o->out);
  else if (envdb && *envdb)
    snprintf(s.out, sizeof s.out, "%s", envdb);
  else
    default_out(o, s.out, sizeof s.out);
  if (!s.out[0]) {
    fprintf(stderr, "autotune: nowhere to write the database: give --out "
            "FILE, or set VNCL_TUNING_DB or HOME\n");
    return 1;
  }
  snprintf(s.partial_path, sizeof s.partial_path, "%s.partial", s.out);
  /* OUT's folder: made (0700) when missing, then used only when trusted;
   * the partial file read back only when trusted. */
  if (vncl_tuning_journal_open(s.partial_path, &s.partial)) {
    /* The library's message without its "function: " prefix. */
    const char *m = vncl_errmsg(NULL), *c = strstr(m, ": ");
    fprintf(stderr, "autotune: %s\nautotune: write the database to a folder "
            "of your own (--out FILE)\n", c ? c + 2 : m);
    return 1;
  }
  vncl_options opts;
  vncl_options_init(&opts);
  opts.device = o->device;
  opts.tuning_db = "/nonexistent/vncl-autotune"; /* measure the built-ins */
  if (vncl_context_create(&s.ctx, &opts) ||
      vncl_context_device_info(s.ctx, &s.info)) {
    fprintf(stderr, "autotune: %s\n", vncl_errmsg(NULL));
    vncl_context_destroy(s.ctx);
    vncl_tuning_journal_close(s.partial, 0);
    return 1;
  }
  s.budget = o->budget > 0 ? o->budget : o->quick ? 75 : 780;
  s.runs = o->quick ? 3 : 5;
  s.t_start = tune_now();

  /* Workers select the same device and read no database. */
  const char *cur_dev = getenv("VNCL_DEVICE");
  char *old_dev = cur_dev ? strdup(cur_dev) : NULL;
  char *old_db = envdb ? strdup(envdb) : NULL;
  char sel[32];
  snprintf(sel, sizeof sel, "%d", s.info.index >= 0 ? s.info.index : 0);
  setenv("VNCL_DEVICE", sel, 1);
  setenv("VNCL_TUNING_DB", "/nonexistent/vncl-autotune", 1);
  s.runner = tune_runner_new(o->worker_argv, o->timeout > 0 ? o->timeout
                                                             : 120);
  s.done = cJSON_CreateObject();
  load_partial(&s);
  int resumed = cJSON_GetArraySize(s.done);
  vncl_tuning_db *db = NULL;
  if (vncl_tuning_db_load(s.out, &db)) {
    fprintf(stderr, "autotune: %s; starting a new database\n",
            vncl_errmsg(NULL));
    if (vncl_tuning_db_create(&db)) {
      fprintf(stderr, "autotune: %s\n", vncl_errmsg(NULL));
      db = NULL;
    }
  }
  fprintf(stderr, "autotune: %s (%s), budget %.0f s, database %s%s\n",
          s.info.name, s.info.driver_version, s.budget, s.out,
          resumed ? ", resuming" : "");
  if (resumed)
    fprintf(stderr, "autotune: %d results from %s\n", resumed, s.partial_path);

  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old);

  if (!db) s.stopped = true;
  /* Three storage classes: f32, f64 and 16-bit (f16 and bf16 share one
   * set, tuned with f16 storage unless only bf16 is asked for). */
  bool want_gemm = wanted(o->kernels, "gemm");
  bool f32 = want_gemm && wanted(o->dtypes, "f32");
  bool f64 = want_gemm && s.info.fp64 &&
             (o->dtypes ? wanted(o->dtypes, "f64") : !o->quick);
  bool h16 = want_gemm && o->dtypes &&
             (wanted(o->dtypes, "f16") || wanted(o->dtypes, "bf16"));
  int h16_dtype = wanted(o->dtypes, "f16") ? VNCL_F16 : VNCL_BF16;
  /* The tensor-op families: every family but gemm. */
  int nfam = 0;
  for (int f = 0; f < vncl_tuning_family_count(); f++) {
    const char *fam = vncl_tuning_family_name(f);
    if (strcmp(fam, "gemm") &&
        (wanted(o->kernels, "ops") || wanted(o->kernels, fam)))
      nfam++;
  }
  /* The jobs asked for split the whole budget in their shares' ratios: a
   * run of the 16-bit class alone gets all of it, not the 0.25 of it that
   * class has beside f32 and the tensor ops. */
  double shares = (f32 ? gemm_share(&s, VNCL_F32) : 0) +
                  (f64 ? gemm_share(&s, VNCL_F64) : 0) +
                  (h16 ? gemm_share(&s, h16_dtype) : 0) +
                  (nfam ? share_ops(o->quick) : 0);
  s.share_scale = shares > 0 ? 1 / shares : 1;
  if (db) {
    if (f32) tune_gemm(&s, db, VNCL_F32);
    if (f64 && !s.stopped && !interrupted) tune_gemm(&s, db, VNCL_F64);
    if (h16 && !s.stopped && !interrupted) tune_gemm(&s, db, h16_dtype);
  }
  for (int f = 0; f < vncl_tuning_family_count() && !s.stopped && !interrupted;
       f++) {
    const char *fam = vncl_tuning_family_name(f);
    if (strcmp(fam, "gemm") &&
        (wanted(o->kernels, "ops") || wanted(o->kernels, fam)))
      tune_ops(&s, db, fam, nfam);
  }

  sigaction(SIGINT, &old, NULL);
  int rc = 0;
  bool done = !s.stopped && !interrupted;
  if (!db) {
    rc = 1;
  } else if (!done) {
    fprintf(stderr, "autotune: stopped; %d results kept in %s, run the same "
            "command again to resume\n", cJSON_GetArraySize(s.done),
            s.partial_path);
    rc = 3;
  } else {
    if (vncl_tuning_db_count(db) == 0) save_db(&s, db);
    fprintf(stderr, "autotune: done in %.0f s: %d measured, %d reused, %d "
            "failed; %d entries in %s\n", tune_now() - s.t_start,
            o->evaluated, o->reused, o->failed, vncl_tuning_db_count(db),
            s.out);
  }
  vncl_tuning_journal_close(s.partial, done && db);
  vncl_tuning_db_free(db);
  cJSON_Delete(s.done);
  tune_runner_free(s.runner);
  vncl_context_destroy(s.ctx);
  if (old_dev) setenv("VNCL_DEVICE", old_dev, 1);
  else unsetenv("VNCL_DEVICE");
  if (old_db) setenv("VNCL_TUNING_DB", old_db, 1);
  else unsetenv("VNCL_TUNING_DB");
  free(old_dev);
  free(old_db);
  return rc;
}
