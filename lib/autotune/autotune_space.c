/*
 * The autotuner's search spaces, as data: each is a list of parameters
 * with their candidate values; constraints (divisibility, work-group size
 * against the device, local memory, a register-pressure heuristic) are
 * checked by vncl__tune_space_valid, through vncl__gemm_params_valid for
 * our GEMM kernels. The tensor-op families bring their own spaces
 * (ops_common.c, vncl__ops_space).
 */
#include <string.h>

#include "autotune/autotune.h"
#include "ops/ops.h"

/* Our CPU-shaped GEMM kernel (gemm_packed_cpu.cl). */
static const vncl__tspace space_cpu = {
    "gemm_packed_cpu", VNCL__TS_GEMM_FAST, 8,
    {{"MR", 6, {4, 6, 8, 12, 14, 16}},
     {"NR", 4, {16, 32, 48, 64}},
     {"VW", 2, {8, 16}},
     {"MB", 8, {12, 24, 28, 32, 48, 56, 64, 96}},
     {"NB", 5, {32, 64, 96, 128, 192}},
     {"KC", 3, {0, 256, 512}},
     {"KU", 4, {1, 2, 4, 8}},
     {"ORDER", 2, {0, 1}}}, 0};

/* Tall and narrow: A may be read in place, with deeper unrolls. */
static const vncl__tspace space_cpu_narrow = {
    "gemm_packed_cpu (narrow)", VNCL__TS_GEMM_FAST, 8,
    {{"MR", 4, {4, 6, 8, 12}},
     {"NR", 4, {16, 32, 48, 64}},
     {"VW", 2, {8, 16}},
     {"MB", 6, {12, 24, 32, 48, 64, 96}},
     {"NB", 3, {32, 64, 128}},
     {"KU", 3, {4, 8, 16}},
     {"ORDER", 2, {0, 1}},
     {"A_PACKED", 2, {0, 1}}}, 0};

/* Our GPU-shaped GEMM kernel (gemm_packed_local.cl). */
static const vncl__tspace space_local = {
    "gemm_packed_local", VNCL__TS_GEMM_FAST, 10,
    {{"MWG", 3, {32, 64, 128}},
     {"NWG", 3, {32, 64, 128}},
     {"KWG", 3, {8, 16, 32}},
     {"MDIMC", 3, {8, 16, 32}},
     {"NDIMC", 3, {8, 16, 32}},
     {"VWM", 4, {1, 2, 4, 8}},
     {"VWN", 4, {1, 2, 4, 8}},
     {"KWI", 3, {1, 2, 4}},
     {"SA", 2, {0, 1}},
     {"SB", 2, {0, 1}}}, 0};

/* The direct kernel (small and batched products). */
static const vncl__tspace space_direct = {
    "gemm_direct", VNCL__TS_GEMM_DIRECT, 7,
    {{"WGD_M", 7, {4, 6, 8, 12, 16, 32, 64}},
     {"WGD_N", 5, {8, 16, 32, 64, 128}},
     {"LDM", 5, {1, 2, 4, 8, 16}},
     {"LDN", 5, {1, 2, 4, 8, 16}},
     {"KWGD", 5, {1, 2, 4, 8, 16}},
     {"VWD", 5, {1, 2, 4, 8, 16}},
     {"DIRECT_LOCAL", 2, {0, 1}}}, 0};

/* CLBlast's Xgemm kernel (its parameters, set with
 * CLBlastOverrideParameters); GEMMK 0, KREG 1, no strided stores. */
static const vncl__tspace space_clblast = {
    "clblast_xgemm", VNCL__TS_CLBLAST, 16,
    {{"MWG", 3, {32, 64, 128}},
     {"NWG", 3, {32, 64, 128}},
     {"KWG", 2, {16, 32}},
     {"MDIMC", 2, {8, 16}},
     {"NDIMC", 2, {8, 16}},
     {"MDIMA", 2, {8, 16}},
     {"NDIMB", 2, {8, 16}},
     {"KWI", 2, {2, 8}},
     {"VWM", 4, {1, 2, 4, 8}},
     {"VWN", 4, {1, 2, 4, 8}},
     {"SA", 2, {0, 1}},
     {"SB", 2, {0, 1}},
     {"STRM", 1, {0}},
     {"STRN", 1, {0}},
     {"GEMMK", 1, {0}},
     {"KREG", 1, {1}}}, 0};

const vncl__tspace *vncl__tspace_gemm_fast(const vncl_device_info *info,
                                           int shape) {
  if (info->type == VNCL_DEVICE_GPU) return &space_local;
  return shape == VNCL__GEMM_SHAPE_NARROW ? &space_cpu_narrow : &space_cpu;
}
const vncl__tspace *vncl__tspace_gemm_direct(void) { return &space_direct; }
const vncl__tspace *vncl__tspace_clblast(void) { return &space_clblast; }

void vncl__tspace_from_ops(int family, vncl__tspace *out) {
  const vncl__tune_space *sp = vncl__ops_space(family);
  memset(out, 0, sizeof *out);
  out->name = sp->family;
  out->kind = VNCL__TS_OPS;
  out->family = family;
  out->np = sp->nparams;
  for (int i = 0; i < sp->nparams; i++) {
    out->p[i].name = sp->params[i].name;
    out->p[i].n = sp->params[i].nvalues;
    for (int j = 0; j < sp->params[i].nvalues; j++)
      out->p[i].v[j] = sp->params[i].values[j];
  }
}

int vncl__tspace_get(const vncl__tspace *s, const int *idx, const char *name,
                     int def) {
  for (int i = 0; i < s->np; i++)
    if (!strcmp(s->p[i].name, name)) return s->p[i].v[idx[i]];
  return def;
}

/* Vector registers the accumulators of an mr x nr tile (plus a row of B
 * and a broadcast) need against what the device has: 32 on 512-bit CPUs,
 * 16 otherwise (a heuristic; spills cost 4x on PoCL, docs/tuning.md). */
static bool registers_fit(const vncl__tune_device *d, int mr, int nr,
                          bool f64) {
  int hw = d->native_float_width > 0 ? d->native_float_width : 4;
  if (f64 && hw > 1) hw /= 2;
  int regs = d->native_float_width >= 16 ? 32 : 16;
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
      (d->info.type == VNCL_DEVICE_GPU &&
       d->info.preferred_work_group_multiple > 1 &&
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
  if (s->kind == VNCL__TS_CLBLAST) return clblast_valid(d, s, idx, f64, why, cap);
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
    if (d->info.type == VNCL_DEVICE_GPU && pref > 1 && wg % pref) {
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
  if (d->info.type != VNCL_DEVICE_GPU) {
    int mr = k == VNCL__GEMM_DIRECT ? p.direct.wgd_m / p.direct.ldm : p.cpu.mr;
    int nr = k == VNCL__GEMM_DIRECT ? p.direct.wgd_n / p.direct.ldn : p.cpu.nr;
    if (!(k == VNCL__GEMM_DIRECT && p.direct.local) &&
        k != VNCL__GEMM_PACKED_LOCAL && !registers_fit(d, mr, nr, f64)) {
      snprintf(why, cap, "%s: %d x %d accumulators do not fit the registers",
               s->name, mr, nr);
      return false;
    }
  }
  return true;
}
