/*
 * The autotuner's search spaces, from the families' tables (gemm.h,
 * ops.h): each is the list of a kernel's tunables with their candidates
 * (full, or quick for --quick). Which kernel a GEMM class searches is the
 * base set's own `fast` (a data row), not the device type. Constraints
 * (divisibility, work-group size against the device, local memory, a
 * register-pressure heuristic whose register count is the base set's VREGS)
 * are the library's (api/tuning_check.c, behind vncl_tuning_check);
 * vncl__tspace_valid lays a candidate over its base set and asks them.
 */
#include <pthread.h>
#include <string.h>

#include "autotune/autotune.h"

/* A family's tunables of one group as a space. */
static void from_family(const vncl__param_family *f, int group, bool all,
                        bool quick, const char *name, int kind,
                        vncl__tspace *out) {
  memset(out, 0, sizeof *out);
  out->name = name;
  out->kind = kind;
  for (int i = 0; i < f->n && out->np < VNCL__TS_MAX_PARAMS; i++) {
    const vncl__tunable *t = &f->t[i];
    if (!all && t->group != group) continue;
    vncl__tparam *p = &out->p[out->np++];
    int n = quick ? t->nquick : t->nfull;
    const double *v = quick ? t->quick : t->full;
    p->name = t->name;
    p->n = n < VNCL__TS_MAX_VALUES ? n : VNCL__TS_MAX_VALUES;
    for (int j = 0; j < p->n; j++) p->v[j] = (int)v[j];
  }
}

static vncl__tspace spaces[2][4]; /* [quick][direct, cpu, local, clblast] */
static pthread_once_t spaces_once = PTHREAD_ONCE_INIT;
static void spaces_build(void) {
  for (int q = 0; q < 2; q++) {
    from_family(&vncl__gemm_family, VNCL__GEMM_DIRECT, false, q, "gemm_direct",
                VNCL__TS_GEMM_DIRECT, &spaces[q][0]);
    from_family(&vncl__gemm_family, VNCL__GEMM_PACKED_CPU, false, q,
                "gemm_packed_cpu", VNCL__TS_GEMM_FAST, &spaces[q][1]);
    from_family(&vncl__gemm_family, VNCL__GEMM_PACKED_LOCAL, false, q,
                "gemm_packed_local", VNCL__TS_GEMM_FAST, &spaces[q][2]);
    from_family(&vncl__clblast_family, 0, true, q, "clblast_xgemm",
                VNCL__TS_CLBLAST, &spaces[q][3]);
  }
}

const vncl__tspace *vncl__tspace_gemm(int kern, bool quick) {
  pthread_once(&spaces_once, spaces_build);
  int i = kern == VNCL__GEMM_DIRECT        ? 0
          : kern == VNCL__GEMM_PACKED_LOCAL ? 2
                                            : 1;
  return &spaces[quick][i];
}

const vncl__tspace *vncl__tspace_clblast(bool quick) {
  pthread_once(&spaces_once, spaces_build);
  return &spaces[quick][3];
}

void vncl__tspace_from_ops(int family, bool quick, vncl__tspace *out) {
  const vncl__tune_space *sp = vncl__ops_space(family);
  memset(out, 0, sizeof *out);
  out->name = sp->family;
  out->kind = VNCL__TS_OPS;
  out->family = family;
  out->np = sp->nparams;
  for (int i = 0; i < sp->nparams; i++) {
    const vncl__tune_param *tp = &sp->params[i];
    out->p[i].name = tp->name;
    out->p[i].n = quick ? tp->nquick : tp->nvalues;
    for (int j = 0; j < out->p[i].n; j++)
      out->p[i].v[j] = quick ? tp->quick[j] : tp->values[j];
  }
}

int vncl__tspace_get(const vncl__tspace *s, const int *idx, const char *name,
                     int def) {
  for (int i = 0; i < s->np; i++)
    if (!strcmp(s->p[i].name, name)) return s->p[i].v[idx[i]];
  return def;
}

bool vncl__tspace_valid(const vncl__tune_device *d, const vncl__tspace *s,
                        const int *idx, const vncl__gemm_params *base,
                        int acc, char *why, size_t cap) {
  if (s->kind == VNCL__TS_OPS) {
    int v[VNCL__OPS_MAX_PARAMS] = {0};
    for (int i = 0; i < s->np; i++) v[i] = s->p[i].v[idx[i]];
    return vncl__tuning_check_dev(d, vncl__ops_family_of(s->family), 0, v, 0,
                                  why, cap);
  }
  if (s->kind == VNCL__TS_CLBLAST) {
    vncl__clblast_params c;
    vncl__params_defaults(&vncl__clblast_family, &c);
    for (int i = 0; i < s->np; i++)
      vncl__params_set_named(&vncl__clblast_family, &c, s->p[i].name,
                             s->p[i].v[idx[i]]);
    return vncl__tuning_check_dev(d, &vncl__clblast_family, acc, &c, 0, why,
                                  cap);
  }
  vncl__gemm_params p = *base;
  for (int i = 0; i < s->np; i++)
    vncl__gemm_param_set_named(&p, s->p[i].name, s->p[i].v[idx[i]]);
  return vncl__tuning_check_dev(
      d, &vncl__gemm_family, acc, &p,
      s->kind == VNCL__TS_GEMM_DIRECT ? VNCL__CHECK_DIRECT : VNCL__CHECK_FAST,
      why, cap);
}
