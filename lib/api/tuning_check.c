/*
 * Whether a parameter set fits a device: the rules the autotuner filters
 * its candidates with, and vncl_tuning_check (tuning_api.c) over them.
 * GEMM: the kernels' own rules (vncl__gemm_params_valid) and a register
 * model (what each CPU kernel keeps live, against the row's VREGS); CLBlast's Xgemm: its tuner's divisibility rules, work-group
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

/* The register model (docs/tuning.md, "The register check"): the vector
 * registers a CPU kernel keeps live in its depth loop, against the `regs`
 * the device row gives (VREGS: 32 on 512-bit CPUs, 16 on others; spills
 * cost up to 4x on PoCL). A register holds `lanes` accumulator values: the
 * native float width, half that for f64; a vector of w values takes
 * ceil(w / lanes) registers (at least one).
 *   gemm_direct (not DIRECT_LOCAL): MWID x NVD accumulator vectors, the NVD
 *     vectors of B's row, the MWID staged rows of A (KWGD values each, when
 *     KWGD is 2, 4, 8 or 16: the A_ROWVEC path, taken when A's rows are
 *     contiguous in depth) and the broadcast. 16-bit storage with KWGD 1
 *     stages 4 depths of A too (gemm_direct.cl, KWA), not counted: they
 *     are stored to the stack at once and broadcast from there, and the
 *     Zen 4's 6 x 64 tile (29 by this count) ran at f32's rate with them;
 *   gemm_direct with DIRECT_LOCAL: MWID vectors of NWID accumulators
 *     (the work-item's scalars, as vectors along the columns), NWID of B
 *     as one vector, MWID values of A, the broadcast;
 *   gemm_small: SM_MR x SM_NV accumulator vectors, SM_NV of B, the
 *     broadcast (A is broadcast from memory);
 *   gemm_packed_cpu: MR x NR/VW accumulator vectors, NR/VW of B, the
 *     broadcast. Its A_ROWVEC rows (A in place, KU 2-16) are not counted.
 * Both kernels' depth loops (objdump of PoCL 3.1's code, AVX-512) store the
 * staged rows to the stack and broadcast from there; what differs is the
 * pressure the loads leave: gemm_direct f64 6 x 32 with KWGD 4 (35 by this
 * count) moved accumulators (40 register moves and 14 more stack stores
 * per 4 depths; KWGD 1, 29, none), while gemm_packed_cpu's 6 x 64 f32 loop
 * with KU 16 (29 here, 35 with the rows) had no moves and only the 6 rows'
 * stores. docs/tuning.md, "The register check". */
typedef struct reg_count {
  int acc, b, a, total;
} reg_count;

static int regs_of(int w, int lanes) { return w <= lanes ? 1 : (w + lanes - 1) / lanes; }

static reg_count count_regs(int lanes, int rows, int vecs, int vw,
                            int staged) {
  reg_count r;
  int per = regs_of(vw, lanes);
  r.acc = rows * vecs * per;
  r.b = vecs * per;
  r.a = staged > 0 ? rows * regs_of(staged, lanes) : 0;
  r.total = r.acc + r.b + r.a + 1;
  return r;
}

static bool registers_fit(const vncl__tune_device *d, int regs, bool f64,
                          const char *name, int rows, int vecs, int vw,
                          int staged, char *why, size_t cap) {
  int lanes = d->native_float_width > 0 ? d->native_float_width : 4;
  if (f64 && lanes > 1) lanes /= 2;
  if (rows < 1 || vecs < 1 || vw < 1) return true; /* the kernel rules say */
  reg_count r = count_regs(lanes, rows, vecs, vw, staged);
  if (r.total <= regs) return true;
  if (r.a)
    snprintf(why, cap,
             "%s: %d vector registers live (%d accumulators, %d of B, %d of "
             "staged A rows, 1 broadcast), the row's VREGS is %d",
             name, r.total, r.acc, r.b, r.a, regs);
  else
    snprintf(why, cap,
             "%s: %d vector registers live (%d accumulators, %d of B, 1 "
             "broadcast), the row's VREGS is %d",
             name, r.total, r.acc, r.b, regs);
  return false;
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
  if (p->vregs <= 0) return true;
  bool f64 = acc == VNCL__GEMM_ACC64;
  if (k == VNCL__GEMM_DIRECT) {
    const vncl__gemm_direct_params *q = &p->direct;
    int rows = q->ldm ? q->wgd_m / q->ldm : 0; /* MWID */
    int cols = q->ldn ? q->wgd_n / q->ldn : 0; /* NWID */
    /* The local-memory variant on a row that names VREGS (a CPU's): each
     * work-item's MWID x NWID scalar accumulators, taken as MWID vectors
     * of NWID along the columns (the most a compiler can make of them),
     * NWID of B as one such vector, and the MWID values of A it
     * broadcasts. A 32 x 16 tile of one work-item is 66 registers: PoCL
     * 3.1 spent over 120 s compiling it for a 16-bit autotune candidate
     * (2026-12-03, killed by the worker's timeout). */
    if (q->local)
      return registers_fit(d, p->vregs, f64, "gemm_direct (local)", rows, 1,
                           cols, 1, why, cap);
    int vecs = q->vwd ? cols / q->vwd : 0;
    bool rowvec = q->kwgd == 2 || q->kwgd == 4 || q->kwgd == 8 || q->kwgd == 16;
    return registers_fit(d, p->vregs, f64, "gemm_direct", rows, vecs, q->vwd,
                         rowvec ? q->kwgd : 0, why, cap);
  }
  if (k == VNCL__GEMM_SMALL)
    return registers_fit(d, p->vregs, f64, "gemm_small", p->small.mr,
                         p->small.nv, p->small.vw, 0, why, cap);
  if (k == VNCL__GEMM_PACKED_CPU)
    return registers_fit(d, p->vregs, f64, "gemm_packed_cpu", p->cpu.mr,
                         p->cpu.vw ? p->cpu.nr / p->cpu.vw : 0, p->cpu.vw, 0,
                         why, cap);
  return true; /* gemm_packed_local: GPU register files, not modelled */
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
  if ((kernels & VNCL__CHECK_SMALL) &&
      !gemm_fits(d, p, acc, VNCL__GEMM_SMALL, why, cap))
    return false;
  return true;
}
