/*
 * Whether a parameter set fits a device: the rules the autotuner filters
 * its candidates with, and vncl_tuning_check (tuning_api.c) over them.
 * GEMM: the kernels' own rules (vncl__gemm_params_valid) and a register
 * heuristic; CLBlast's Xgemm: its tuner's divisibility rules, work-group
 * and local memory; the tensor-op families: work-group size and local
 * memory.
 */
#include <stdio.h>
#include <string.h>

#include "api/tuning_check.h"

void vncl__tune_device_of(vncl_context *ctx, vncl__tune_device *d) {
  memset(d, 0, sizeof *d);
  d->info = ctx->info;
  d->native_float_width = vncl__params_vec(ctx);
  vncl__gemm_params gp; /* the device's row says what its groups need */
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &gp);
  d->wg_multiple = gp.wg_multiple;
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

static bool wg_fits(const vncl__tune_device *d, const char *what, size_t wg,
                    char *why, size_t cap) {
  if (wg > d->info.max_work_group_size) {
    snprintf(why, cap, "%s: %zu work-items, the device allows %zu", what, wg,
             d->info.max_work_group_size);
    return false;
  }
  size_t pref = d->info.preferred_work_group_multiple;
  if (d->wg_multiple && pref > 1 && wg % pref) {
    snprintf(why, cap, "%s: %zu work-items, not a multiple of %zu", what, wg,
             pref);
    return false;
  }
  return true;
}

static bool clblast_fits(const vncl__tune_device *d,
                         const vncl__clblast_params *c, bool f64, char *why,
                         size_t cap) {
  /* CLBlast's own constraints for Xgemm (its tuner's rules); zeros would
   * divide by zero, and the table's ranges start at 1 for these. */
  if (c->mdimc < 1 || c->ndimc < 1 || c->mdima < 1 || c->ndimb < 1 ||
      c->vwm < 1 || c->vwn < 1 || c->kwi < 1 ||
      c->mwg % (c->mdimc * c->vwm) || c->nwg % (c->ndimc * c->vwn) ||
      c->mwg % (c->mdima * c->vwm) || c->nwg % (c->ndimb * c->vwn) ||
      (c->mdimc * c->ndimc) % c->mdima || (c->mdimc * c->ndimc) % c->ndimb ||
      c->kwg % ((c->mdimc * c->ndimc) / c->mdima) ||
      c->kwg % ((c->mdimc * c->ndimc) / c->ndimb) || c->kwg % c->kwi) {
    snprintf(why, cap, "clblast: divisibility");
    return false;
  }
  size_t wg = (size_t)c->mdimc * c->ndimc;
  size_t lb = (size_t)(c->sa * c->kwg * c->mwg + c->sb * c->kwg * c->nwg) *
              (f64 ? 8 : 4);
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
  if ((c->mwg / c->mdimc) * (c->nwg / c->ndimc) > 256) {
    snprintf(why, cap, "clblast: register pressure");
    return false;
  }
  return true;
}

static bool ops_fits(const vncl__tune_device *d, int fam, const int *v,
                     char *why, size_t cap) {
  const vncl__tune_space *sp = vncl__ops_space(fam);
  size_t wg = (size_t)v[sp->wg] * (sp->wg2 >= 0 ? (size_t)v[sp->wg2] : 1);
  if (!wg_fits(d, sp->family, wg, why, cap)) return false;
  size_t lb = vncl__ops_local_bytes((vncl__ops_family)fam, v);
  if (d->info.local_mem_bytes && lb > d->info.local_mem_bytes) {
    snprintf(why, cap, "%s: %zu bytes of local memory", sp->family, lb);
    return false;
  }
  return true;
}

static bool gemm_fits(const vncl__tune_device *d, const vncl__gemm_params *p,
                      int acc, vncl__gemm_kernel k, char *why, size_t cap) {
  if (!vncl__gemm_params_valid(&d->info, k, (vncl__gemm_acc)acc, p, why, cap))
    return false;
  if (p->vregs > 0) {
    bool direct = k == VNCL__GEMM_DIRECT;
    int mr = direct ? p->direct.wgd_m / p->direct.ldm : p->cpu.mr;
    int nr = direct ? p->direct.wgd_n / p->direct.ldn : p->cpu.nr;
    const char *name = direct                          ? "gemm_direct"
                       : k == VNCL__GEMM_PACKED_LOCAL ? "gemm_packed_local"
                                                      : "gemm_packed_cpu";
    if (!(direct && p->direct.local) && k != VNCL__GEMM_PACKED_LOCAL &&
        !registers_fit(d, p->vregs, mr, nr, acc == VNCL__GEMM_ACC64)) {
      snprintf(why, cap, "%s: %d x %d accumulators do not fit the registers",
               name, mr, nr);
      return false;
    }
  }
  return true;
}

bool vncl__tuning_check_dev(const vncl__tune_device *d,
                            const vncl__param_family *f, int acc,
                            const void *set, int kernels, char *why,
                            size_t cap) {
  why[0] = '\0';
  if (!vncl__params_in_range(f, set, why, cap)) return false;
  if (f == &vncl__clblast_family)
    return clblast_fits(d, set, acc == VNCL__GEMM_ACC64, why, cap);
  for (int i = 0; i < VNCL__OPS_FAMILIES; i++)
    if (f == vncl__ops_family_of(i)) return ops_fits(d, i, set, why, cap);
  const vncl__gemm_params *p = set;
  if ((kernels & VNCL__CHECK_DIRECT) &&
      !gemm_fits(d, p, acc, VNCL__GEMM_DIRECT, why, cap))
    return false;
  if (kernels & VNCL__CHECK_FAST) {
    if (p->fast != VNCL__GEMM_PACKED_CPU && p->fast != VNCL__GEMM_PACKED_LOCAL) {
      snprintf(why, cap, "fast kernel %d is not a packed kernel", p->fast);
      return false;
    }
    if (!gemm_fits(d, p, acc, (vncl__gemm_kernel)p->fast, why, cap))
      return false;
  }
  return true;
}
