/*
 * The autotuner's search spaces, from the families' tables through the
 * public API (vncl_tuning_tunable): each is the list of one kernel's
 * tunables with their candidates (full, or quick for --quick). Which kernel
 * a GEMM class searches is the base set's own `fast` (a data row), not the
 * device type. Whether a candidate fits the device is the library's answer
 * (vncl_tuning_check).
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "autotune.h"

double tune_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The tunables of `family` read by `kernel` (every one when NULL). */
static void from_family(const char *family, const char *kernel, bool quick,
                        const char *name, int kind, tspace *out) {
  memset(out, 0, sizeof *out);
  out->name = name;
  out->family = family;
  out->kind = kind;
  int n = vncl_tuning_tunable_count(family);
  for (int i = 0; i < n && out->np < TS_MAX_PARAMS; i++) {
    vncl_tunable t;
    if (vncl_tuning_tunable(family, i, &t)) continue;
    if (kernel && strcmp(t.kernel, kernel)) continue;
    tparam *p = &out->p[out->np++];
    int nv = quick ? t.nquick : t.nfull;
    const double *v = quick ? t.quick : t.full;
    p->name = t.name;
    p->n = nv < TS_MAX_VALUES ? nv : TS_MAX_VALUES;
    for (int j = 0; j < p->n; j++) p->v[j] = (int)v[j];
  }
}

static tspace spaces[2][4]; /* [quick][direct, cpu, local, clblast] */
static pthread_once_t spaces_once = PTHREAD_ONCE_INIT;
static void spaces_build(void) {
  for (int q = 0; q < 2; q++) {
    from_family("gemm", "gemm_direct", q, "gemm_direct", TS_GEMM_DIRECT,
                &spaces[q][0]);
    from_family("gemm", "gemm_packed_cpu", q, "gemm_packed_cpu", TS_GEMM_FAST,
                &spaces[q][1]);
    from_family("gemm", "gemm_packed_local", q, "gemm_packed_local",
                TS_GEMM_FAST, &spaces[q][2]);
    from_family("clblast", NULL, q, "clblast_xgemm", TS_CLBLAST,
                &spaces[q][3]);
  }
}

const char *tspace_fast_kernel(double fast) {
  return fast == 3 ? "gemm_packed_local" : "gemm_packed_cpu";
}

const tspace *tspace_gemm(const char *kernel, bool quick) {
  pthread_once(&spaces_once, spaces_build);
  for (int i = 0; i < 3; i++)
    if (!strcmp(spaces[quick][i].name, kernel)) return &spaces[quick][i];
  return NULL;
}

const tspace *tspace_clblast(bool quick) {
  pthread_once(&spaces_once, spaces_build);
  return &spaces[quick][3];
}

void tspace_with_base(const tspace *s, const vncl_tuning_params *base,
                      tspace *out) {
  *out = *s;
  for (int i = 0; i < out->np; i++) {
    tparam *p = &out->p[i];
    double want;
    if (!base || !params_get(base, p->name, &want) || want != (int)want)
      continue;
    int v = (int)want, k = 0;
    while (k < p->n && p->v[k] < v) k++;
    if ((k < p->n && p->v[k] == v) || p->n == TS_MAX_VALUES) continue;
    memmove(&p->v[k + 1], &p->v[k], (size_t)(p->n - k) * sizeof p->v[0]);
    p->v[k] = v;
    p->n++;
  }
}

bool tspace_from_ops(const char *family, bool quick, tspace *out) {
  for (int i = 0; i < vncl_tuning_family_count(); i++) {
    const char *f = vncl_tuning_family_name(i);
    if (strcmp(f, "gemm") && !strcmp(f, family)) {
      from_family(f, NULL, quick, f, TS_OPS, out);
      return true;
    }
  }
  return false;
}

void tspace_params(const tspace *s, const int *idx, vncl_tuning_params *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < s->np && i < VNCL_TUNING_MAX_PARAMS; i++)
    params_put(out, s->p[i].name, s->p[i].v[idx[i]]);
}

bool tspace_valid(vncl_context *ctx, const tspace *s, const int *idx,
                  vncl_dtype dtype, const char *shape_class, char *why,
                  size_t cap) {
  vncl_tuning_params p;
  tspace_params(s, idx, &p);
  why[0] = '\0';
  vncl_status st = vncl_tuning_check(
      ctx, s->family, s->kind == TS_OPS ? VNCL_F32 : dtype,
      s->kind == TS_OPS || s->kind == TS_CLBLAST ? NULL : shape_class, &p,
      why, cap);
  if (st && !why[0]) snprintf(why, cap, "%s", vncl_errmsg(ctx));
  return st == VNCL_OK;
}

/* ---- parameter sets by name ---------------------------------------------- */

bool params_get(const vncl_tuning_params *p, const char *name, double *v) {
  return vncl_tuning_value(p, name, v) == VNCL_OK;
}

bool params_put(vncl_tuning_params *p, const char *name, double v) {
  for (int i = 0; i < p->count; i++)
    if (!strncmp(p->names[i], name, sizeof p->names[i])) {
      p->values[i] = v;
      return true;
    }
  if (p->count >= VNCL_TUNING_MAX_PARAMS ||
      strlen(name) >= sizeof p->names[0])
    return false;
  snprintf(p->names[p->count], sizeof p->names[0], "%s", name);
  p->values[p->count++] = v;
  return true;
}

cJSON *params_to_json(const vncl_tuning_params *p) {
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; o && i < p->count; i++) {
    char name[sizeof p->names[0] + 1];
    memcpy(name, p->names[i], sizeof p->names[0]);
    name[sizeof p->names[0]] = '\0';
    cJSON_AddNumberToObject(o, name, p->values[i]);
  }
  return o;
}

bool params_from_json(const cJSON *o, vncl_tuning_params *p) {
  memset(p, 0, sizeof *p);
  if (!cJSON_IsObject(o)) return false;
  for (const cJSON *c = o->child; c; c = c->next)
    if (!cJSON_IsNumber(c) || !params_put(p, c->string, c->valuedouble))
      return false;
  return true;
}
