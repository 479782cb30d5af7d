/*
 * The autotuner's search spaces, from the families' tables (gemm.h,
 * ops.h): each is the list of a kernel's tunables with their candidates
 * (full, or quick for --quick). Which kernel a GEMM class searches is the
 * base set's own `fast` (a data row), not the device type. Constraints
 * (divisibility, work-group size against the device, local memory, a
 * register-pressure heuristic whose register count is the base set's VREGS)
 * are checked by vncl__tspace_valid, through vncl__gemm_params_valid for
 * our GEMM kernels.
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

/* Vector registers the accumulators of an mr x nr tile (plus a row of B
 * and a broadcast) need against the `regs` the device row gives (VREGS:
 * 32 on 512-bit CPUs, 16 on others; a heuristic, spills cost 4x on PoCL,
 * docs/tuning.md). */
static bool registers_fit(const vncl__tune_device *d, int regs, int mr,
                          int nr, bool f64) {
  int hw = d->native_float_width > 0 ? d->native_float_width : 4;
  if (f64 && hw > 1) hw /= 2;
  int need = (mr * nr + nr + hw - 1) / hw + 1;
  return need <= regs;
}

static bool clblast_valid(const vncl__tune_device *d, const vncl__tspace *s,
                          const int *idx, bool f64, char *why, size_t cap) {
#define G(n) vncl__tspace_get(s, idx, n, 0)
  int mwg = G("MWG"), nwg = G("NWG"), kwg = G("KWG"), mdimc = G("MDIMC"),
      ndimc = G("NDIMC"), mdima = G("MDIMA"), ndimb = G("NDIMB"),
      kwi = G("KWI"), vwm = G("VWM"), vwn = G("VWN"), sa = G("SA"),
      sb = G("SB");
#undef G
  /* CLBlast's own constraints for Xgemm (its tuner's rules). */
  if (mwg % (mdimc * vwm) || nwg % (ndimc * vwn) || mwg % (mdima * vwm) ||
      nwg % (ndimb * vwn) || kwg % ((mdimc * ndimc) / mdima) ||
      kwg % ((mdimc * ndimc) / ndimb) || kwg % kwi) {
    snprintf(why, cap, "clblast: divisibility");
    return false;
  }
  size_t wg = (size_t)mdimc * ndimc;
  size_t lb = (size_t)(sa * kwg * mwg + sb * kwg * nwg) * (f64 ? 8 : 4);
  if (wg > d->info.max_work_group_size ||
      (d->wg_multiple && d->info.preferred_work_group_multiple > 1 &&
       wg % d->info.preferred_work_group_multiple)) {
    snprintf(why, cap, "clblast: work-group %zu", wg);
    return false;
  }
  if (d->info.local_mem_bytes && lb > d->info.local_mem_bytes) {
    snprintf(why, cap, "clblast: %zu bytes of local memory", lb);
    return false;
  }
  if ((mwg / mdimc) * (nwg / ndimc) > 256) {
    snprintf(why, cap, "clblast: register pressure");
    return false;
  }
  return true;
}

static size_t ops_local_bytes(int family, const int *v) {
  switch (family) {
    case VNCL__OPS_REDUCE: return (size_t)v[0] * 16;
    case VNCL__OPS_SOFTMAX: return (size_t)v[0] * 8;
    case VNCL__OPS_TRANSPOSE: return (size_t)v[0] * (size_t)(v[0] + 1) * 8;
    default: return 0;
  }
}

bool vncl__tspace_valid(const vncl__tune_device *d, const vncl__tspace *s,
                        const int *idx, const vncl__gemm_params *base,
                        int acc, char *why, size_t cap) {
  bool f64 = acc == VNCL__GEMM_ACC64;
  why[0] = '\0';
  if (s->kind == VNCL__TS_CLBLAST)
    return clblast_valid(d, s, idx, f64, why, cap);
  if (s->kind == VNCL__TS_OPS) {
    const vncl__tune_space *sp = vncl__ops_space(s->family);
    int v[VNCL__OPS_MAX_PARAMS] = {0};
    for (int i = 0; i < s->np; i++) v[i] = s->p[i].v[idx[i]];
    size_t wg = (size_t)v[sp->wg] * (sp->wg2 >= 0 ? (size_t)v[sp->wg2] : 1);
    if (wg > d->info.max_work_group_size) {
      snprintf(why, cap, "%s: %zu work-items, the device allows %zu",
               s->name, wg, d->info.max_work_group_size);
      return false;
    }
    size_t pref = d->info.preferred_work_group_multiple;
    if (d->wg_multiple && pref > 1 && wg % pref) {
      snprintf(why, cap, "%s: %zu work-items, not a multiple of %zu",
               s->name, wg, pref);
      return false;
    }
    size_t lb = ops_local_bytes(s->family, v);
    if (d->info.local_mem_bytes && lb > d->info.local_mem_bytes) {
      snprintf(why, cap, "%s: %zu bytes of local memory", s->name, lb);
      return false;
    }
    return true;
  }
  vncl__gemm_params p = *base;
  for (int i = 0; i < s->np; i++)
    vncl__gemm_param_set_named(&p, s->p[i].name, s->p[i].v[idx[i]]);
  vncl__gemm_kernel k = s->kind == VNCL__TS_GEMM_DIRECT
                            ? VNCL__GEMM_DIRECT
                            : (vncl__gemm_kernel)p.fast;
  if (!vncl__gemm_params_valid(&d->info, k, (vncl__gemm_acc)acc, &p, why,
                               cap))
    return false;
  if (p.vregs > 0) {
    int mr = k == VNCL__GEMM_DIRECT ? p.direct.wgd_m / p.direct.ldm : p.cpu.mr;
    int nr = k == VNCL__GEMM_DIRECT ? p.direct.wgd_n / p.direct.ldn : p.cpu.nr;
    if (!(k == VNCL__GEMM_DIRECT && p.direct.local) &&
        k != VNCL__GEMM_PACKED_LOCAL && !registers_fit(d, p.vregs, mr, nr, f64)) {
      snprintf(why, cap, "%s: %d x %d accumulators do not fit the registers",
               s->name, mr, nr);
      return false;
    }
  }
  return true;
}
