/*
 * GEMM parameter sets: the built-in defaults as a table (vendor -> device
 * type -> global fallback), validation against the device's limits, the one
 * function that turns a set into build options, and the per-device sets a
 * tuner installs over the defaults.
 *
 * docs/tuning.md explains every parameter and where the defaults come from.
 */
#include <stdio.h>
#include <string.h>

#include "gemm/gemm.h"

vncl__gemm_acc vncl__gemm_acc_of(vncl_dtype dt) {
  return dt == VNCL_F64 ? VNCL__GEMM_ACC64 : VNCL__GEMM_ACC32;
}

vncl__gemm_shape vncl__gemm_shape_of(size_t m, size_t n, size_t k) {
  (void)k;
  if (n <= 128 && m >= 4 * n) return VNCL__GEMM_SHAPE_NARROW;
  if (m <= 128 && n >= 4 * m) return VNCL__GEMM_SHAPE_FLAT;
  return VNCL__GEMM_SHAPE_SQUARE;
}

const char *vncl__gemm_shape_name(vncl__gemm_shape s) {
  switch (s) {
    case VNCL__GEMM_SHAPE_SQUARE: return "square";
    case VNCL__GEMM_SHAPE_NARROW: return "narrow";
    case VNCL__GEMM_SHAPE_FLAT: return "flat";
    default: return "?";
  }
}

/* ---- built-in defaults ---------------------------------------------------- */

/* Kernel parameter blocks used by several rows. */

/* CPUs with 512-bit vectors (PoCL reports a native float width of 16):
 * 6 x 64 micro-tiles are 24 zmm accumulators. Measured on PoCL 3.1, 2 cores
 * (docs/tuning.md): 2048^3 at 0.85-0.93x OpenBLAS. */
#define CPU512_DIRECT {6, 64, 1, 1, 4, 16, 0}
#define CPU512_PACKED {6, 64, 16, 48, 64, 0, 4, 0, 1}
/* Tall and narrow (n <= 128): A read in place (packing it would cost as
 * much as the product), 16 depths per row load (KU=16: one vector load and
 * widening per 16 elements of A), smaller blocks for more work-items. */
#define CPU512_NARROW {6, 64, 16, 24, 64, 0, 16, 0, 0}
/* f64 on 512-bit vectors: double8 vectors, 6 x 32 = 24 zmm. */
#define CPU512_DIRECT64 {6, 32, 1, 1, 4, 8, 0}
#define CPU512_PACKED64 {6, 32, 8, 48, 64, 0, 4, 0, 1}
#define CPU512_NARROW64 {6, 32, 8, 24, 64, 0, 8, 0, 0}
/* Other CPUs (AVX2: 16 registers of 8 floats): 6 x 16 = 12 accumulators. */
#define CPU256_DIRECT {6, 16, 1, 1, 4, 8, 0}
#define CPU256_PACKED {6, 16, 8, 48, 64, 0, 4, 0, 1}
#define CPU256_NARROW {6, 16, 8, 24, 64, 0, 8, 0, 0}
#define CPU256_DIRECT64 {6, 8, 1, 1, 4, 4, 0}
#define CPU256_PACKED64 {6, 8, 4, 48, 64, 0, 4, 0, 1}
/* Unused by CPU rows: a valid local-kernel block all the same. */
#define LOCAL_SMALL {32, 32, 8, 8, 8, 1, 1, 1, 1, 1}
#define CPU_UNUSED_LOCAL LOCAL_SMALL

/* GPUs: 64 work-items per direct group (8 x 8, a 32 x 32 tile through local
 * memory); the packed kernel with 16 x 16 work-items, 8 x 8 accumulators
 * each on a 128 x 128 tile, 16-deep slices (16 KiB of local memory). */
#define GPU_DIRECT {32, 32, 8, 8, 16, 1, 1}
#define GPU_LOCAL128 {128, 128, 16, 16, 16, 4, 4, 2, 1, 1}
/* Intel GPUs: smaller register files per work-item; 64 x 64 tiles. */
#define GPU_LOCAL64 {64, 64, 16, 16, 16, 4, 4, 2, 1, 1}
/* Any other accelerator: 64 work-items, 8 KiB of local memory. */
#define GPU_DIRECT_SMALL {32, 32, 8, 8, 8, 1, 1}
#define GPU_LOCAL_SMALL {64, 64, 16, 8, 8, 2, 2, 1, 1, 1}
#define GPU_UNUSED_CPU {4, 4, 4, 4, 4, 0, 4, 0, 1}

/* m*n*k switch points: below, the direct kernel (one launch, no scratch).
 * On PoCL the direct kernel matched the packed path up to 384^3 with B rows
 * contiguous, but gathering strided B columns made it 4-5x slower from
 * 128^3 on. GPUs: the direct kernel stages either layout coalesced. */
#define CPU_SWITCH (384.0 * 384 * 384), (100.0 * 100 * 100)
#define GPU_SWITCH (256.0 * 256 * 256), (256.0 * 256 * 256)

#define ANY_ACC (-1)
#define ANY_SHAPE (-1)

static const struct gemm_default {
  const char *vendor;    /* part of CL_DEVICE_VENDOR; "" for any */
  vncl_device_type type; /* 0 for any */
  int min_vec;           /* native float vector width at least; 0 any */
  int acc;               /* vncl__gemm_acc or ANY_ACC */
  int shape;             /* vncl__gemm_shape or ANY_SHAPE */
  vncl__gemm_params p;
} defaults[] = {
    /* CPUs with 512-bit vectors. */
    {"", VNCL_DEVICE_CPU, 16, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_NARROW,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_CPU, CPU_SWITCH, 0, 16, 16,
      CPU512_DIRECT, CPU512_NARROW, CPU_UNUSED_LOCAL}},
    {"", VNCL_DEVICE_CPU, 16, VNCL__GEMM_ACC32, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_CPU, CPU_SWITCH, 0, 16, 16,
      CPU512_DIRECT, CPU512_PACKED, CPU_UNUSED_LOCAL}},
    {"", VNCL_DEVICE_CPU, 16, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_NARROW,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_CPU, CPU_SWITCH, 0, 16, 16,
      CPU512_DIRECT64, CPU512_NARROW64, CPU_UNUSED_LOCAL}},
    {"", VNCL_DEVICE_CPU, 16, VNCL__GEMM_ACC64, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_CPU, CPU_SWITCH, 0, 16, 16,
      CPU512_DIRECT64, CPU512_PACKED64, CPU_UNUSED_LOCAL}},
    /* Other CPUs. */
    {"", VNCL_DEVICE_CPU, 0, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_NARROW,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_CPU, CPU_SWITCH, 0, 16, 16,
      CPU256_DIRECT, CPU256_NARROW, CPU_UNUSED_LOCAL}},
    {"", VNCL_DEVICE_CPU, 0, VNCL__GEMM_ACC32, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_CPU, CPU_SWITCH, 0, 16, 16,
      CPU256_DIRECT, CPU256_PACKED, CPU_UNUSED_LOCAL}},
    {"", VNCL_DEVICE_CPU, 0, VNCL__GEMM_ACC64, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_CPU, CPU_SWITCH, 0, 16, 16,
      CPU256_DIRECT64, CPU256_PACKED64, CPU_UNUSED_LOCAL}},
    /* GPUs by vendor. */
    {"nvidia", VNCL_DEVICE_GPU, 0, ANY_ACC, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_LOCAL, GPU_SWITCH, 1, 16, 16,
      GPU_DIRECT, GPU_UNUSED_CPU, GPU_LOCAL128}},
    {"advanced micro devices", VNCL_DEVICE_GPU, 0, ANY_ACC, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_LOCAL, GPU_SWITCH, 1, 16, 16,
      GPU_DIRECT, GPU_UNUSED_CPU, GPU_LOCAL128}},
    {"amd", VNCL_DEVICE_GPU, 0, ANY_ACC, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_LOCAL, GPU_SWITCH, 1, 16, 16,
      GPU_DIRECT, GPU_UNUSED_CPU, GPU_LOCAL128}},
    {"intel", VNCL_DEVICE_GPU, 0, ANY_ACC, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_LOCAL, GPU_SWITCH, 1, 16, 16,
      GPU_DIRECT, GPU_UNUSED_CPU, GPU_LOCAL64}},
    /* Any GPU, then any device at all: small groups that fit everywhere. */
    {"", VNCL_DEVICE_GPU, 0, ANY_ACC, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_LOCAL, GPU_SWITCH, 1, 16, 16,
      GPU_DIRECT, GPU_UNUSED_CPU, GPU_LOCAL_SMALL}},
    {"", 0, 0, ANY_ACC, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_LOCAL, GPU_SWITCH, 1, 16, 16,
      GPU_DIRECT_SMALL, GPU_UNUSED_CPU, GPU_LOCAL_SMALL}},
    /* Last resort, valid on any device with 16 work-items per group and a
     * little local memory. */
    {"", 0, 0, ANY_ACC, ANY_SHAPE,
     {VNCL__GEMM_OWN, VNCL__GEMM_PACKED_CPU, GPU_SWITCH, 1, 1, 1,
      {4, 4, 1, 1, 4, 4, 0}, {4, 4, 4, 4, 4, 0, 4, 0, 1},
      {16, 16, 4, 4, 4, 1, 1, 1, 0, 0}}},
};

const vncl__gemm_params *vncl__gemm_builtin_set(size_t i) {
  return i < sizeof defaults / sizeof *defaults ? &defaults[i].p : NULL;
}

static int native_float_width(const vncl_context *ctx) {
  cl_uint w = 0;
  if (clGetDeviceInfo(ctx->device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
                      sizeof w, &w, NULL) != CL_SUCCESS)
    return 0;
  return (int)w;
}

static bool row_matches(const struct gemm_default *d,
                        const vncl_device_info *info, int vec,
                        vncl__gemm_acc acc, vncl__gemm_shape shape) {
  return (!d->vendor[0] || vncl__contains_nocase(info->vendor, d->vendor)) &&
         (!d->type || d->type == info->type) && vec >= d->min_vec &&
         (d->acc == ANY_ACC || d->acc == (int)acc) &&
         (d->shape == ANY_SHAPE || d->shape == (int)shape);
}

bool vncl__gemm_params_builtin(const vncl_device_info *info, int vec,
                               vncl__gemm_acc acc, vncl__gemm_shape shape,
                               bool last_resort, vncl__gemm_params *out) {
  size_t nrows = sizeof defaults / sizeof *defaults;
  if (last_resort) {
    *out = defaults[nrows - 1].p;
    return true;
  }
  for (size_t i = 0; i < nrows; i++)
    if (row_matches(&defaults[i], info, vec, acc, shape)) {
      *out = defaults[i].p;
      return true;
    }
  return false;
}

/* A set is usable when its direct kernel and its fast kernel are valid. */
static bool set_valid(const vncl_device_info *info, vncl__gemm_acc acc,
                      const vncl__gemm_params *p, char *why, size_t cap) {
  return vncl__gemm_params_valid(info, VNCL__GEMM_DIRECT, acc, p, why, cap) &&
         vncl__gemm_params_valid(info, VNCL__GEMM_PACK, acc, p, why, cap) &&
         vncl__gemm_params_valid(info, (vncl__gemm_kernel)p->fast, acc, p,
                                 why, cap);
}

/* ---- sets installed by a tuner, per device --------------------------------- */

#define TUNED_DEVICES 16
static struct {
  cl_device_id dev;
  bool set[VNCL__GEMM_ACCS][VNCL__GEMM_SHAPES];
  vncl__gemm_params p[VNCL__GEMM_ACCS][VNCL__GEMM_SHAPES];
} tuned[TUNED_DEVICES];
static pthread_mutex_t tuned_lock = PTHREAD_MUTEX_INITIALIZER;

void vncl__gemm_params_get(vncl_context *ctx, vncl__gemm_acc acc,
                           vncl__gemm_shape shape, vncl__gemm_params *out) {
  pthread_mutex_lock(&tuned_lock);
  for (int i = 0; i < TUNED_DEVICES; i++)
    if (tuned[i].dev == ctx->device && tuned[i].set[acc][shape]) {
      *out = tuned[i].p[acc][shape];
      pthread_mutex_unlock(&tuned_lock);
      return;
    }
  pthread_mutex_unlock(&tuned_lock);

  /* Rows are ordered most specific first; take the first that matches and
   * is valid on this device (a vendor row can ask for more work-items than
   * a small device of that vendor allows). */
  int vec = native_float_width(ctx);
  size_t nrows = sizeof defaults / sizeof *defaults;
  for (size_t i = 0; i < nrows; i++) {
    if (!row_matches(&defaults[i], &ctx->info, vec, acc, shape)) continue;
    char why[160];
    if (set_valid(&ctx->info, acc, &defaults[i].p, why, sizeof why)) {
      *out = defaults[i].p;
      return;
    }
    vncl__log(VNCL_LOG_DEBUG, "gemm: default row %zu does not fit %s: %s", i,
              ctx->info.name, why);
  }
  *out = defaults[nrows - 1].p;
}

bool vncl__gemm_params_installed(vncl_context *ctx, vncl__gemm_acc acc,
                                 vncl__gemm_shape shape) {
  bool found = false;
  pthread_mutex_lock(&tuned_lock);
  for (int i = 0; i < TUNED_DEVICES && !found; i++)
    found = tuned[i].dev == ctx->device && tuned[i].set[acc][shape];
  pthread_mutex_unlock(&tuned_lock);
  return found;
}

vncl_status vncl__gemm_params_set(vncl_context *ctx, vncl__gemm_acc acc,
                                  vncl__gemm_shape shape,
                                  const vncl__gemm_params *p) {
  if (!ctx || (unsigned)acc >= VNCL__GEMM_ACCS ||
      (unsigned)shape >= VNCL__GEMM_SHAPES)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "gemm parameters: %s", !ctx ? "ctx is NULL"
                                                  : "unknown class");
  char why[160];
  if (p && (p->fast != VNCL__GEMM_PACKED_CPU &&
            p->fast != VNCL__GEMM_PACKED_LOCAL))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "gemm parameters: fast kernel %d is not a packed kernel",
                      p->fast);
  if (p && !set_valid(&ctx->info, acc, p, why, sizeof why))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "gemm parameters rejected for %s: %s", ctx->info.name,
                      why);
  if (p && (p->backend != VNCL__GEMM_OWN && p->backend != VNCL__GEMM_CLBLAST))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "gemm parameters: unknown backend %d", p->backend);
  pthread_mutex_lock(&tuned_lock);
  int slot = -1;
  for (int i = 0; i < TUNED_DEVICES && slot < 0; i++)
    if (tuned[i].dev == ctx->device) slot = i;
  for (int i = 0; i < TUNED_DEVICES && slot < 0 && p; i++)
    if (!tuned[i].dev) slot = i;
  if (slot < 0) {
    pthread_mutex_unlock(&tuned_lock);
    if (!p) return VNCL_OK; /* nothing installed: defaults already */
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                      "gemm parameters: more than %d tuned devices",
                      TUNED_DEVICES);
  }
  tuned[slot].dev = ctx->device;
  tuned[slot].set[acc][shape] = p != NULL;
  if (p) tuned[slot].p[acc][shape] = *p;
  pthread_mutex_unlock(&tuned_lock);
  return VNCL_OK;
}

/* ---- validation ------------------------------------------------------------- */

static bool is_vw(int v) {
  return v == 1 || v == 2 || v == 4 || v == 8 || v == 16;
}

#define REJECT(...)                         \
  do {                                      \
    snprintf(why, cap, __VA_ARGS__);        \
    return false;                           \
  } while (0)

/* Work-group size and local memory against the device. */
static bool fits_device(const vncl_device_info *info, const char *kname,
                        size_t wg, size_t local_bytes, bool want_multiple,
                        char *why, size_t cap) {
  size_t maxwg = info->max_work_group_size ? info->max_work_group_size : 1;
  if (wg > maxwg)
    REJECT("%s: %zu work-items per group, the device allows %zu", kname, wg,
           maxwg);
  size_t pref = info->preferred_work_group_multiple;
  if (want_multiple && info->type == VNCL_DEVICE_GPU && pref > 1 &&
      wg % pref != 0)
    REJECT("%s: %zu work-items per group is not a multiple of the device's "
           "preferred multiple %zu",
           kname, wg, pref);
  if (local_bytes && info->local_mem_bytes &&
      local_bytes > info->local_mem_bytes)
    REJECT("%s: %zu bytes of local memory, the device has %llu", kname,
           local_bytes, (unsigned long long)info->local_mem_bytes);
  return true;
}

bool vncl__gemm_params_valid(const vncl_device_info *info,
                             vncl__gemm_kernel kern, vncl__gemm_acc acc,
                             const vncl__gemm_params *p, char *why,
                             size_t cap) {
  size_t es = acc == VNCL__GEMM_ACC64 ? 8 : 4;
  if (why && cap) why[0] = '\0';
  switch (kern) {
    case VNCL__GEMM_REF:
      return true;
    case VNCL__GEMM_PACK:
      if (p->pack_elem) return true;
      if (p->pack_wg0 < 1 || p->pack_wg1 < 1)
        REJECT("gemm_pack: work-group %d x %d", p->pack_wg0, p->pack_wg1);
      return fits_device(info, "gemm_pack",
                         (size_t)p->pack_wg0 * p->pack_wg1, 0, false, why,
                         cap);
    case VNCL__GEMM_DIRECT: {
      const vncl__gemm_direct_params *d = &p->direct;
      if (d->wgd_m < 1 || d->wgd_n < 1 || d->ldm < 1 || d->ldn < 1 ||
          d->kwgd < 1)
        REJECT("gemm_direct: WGD_M, WGD_N, LDM, LDN and KWGD must be >= 1");
      if (d->wgd_m % d->ldm || d->wgd_n % d->ldn)
        REJECT("gemm_direct: WGD_M=%d must be a multiple of LDM=%d and "
               "WGD_N=%d of LDN=%d",
               d->wgd_m, d->ldm, d->wgd_n, d->ldn);
      int mwi = d->wgd_m / d->ldm, nwi = d->wgd_n / d->ldn;
      if (!d->local && (!is_vw(d->vwd) || nwi % d->vwd))
        REJECT("gemm_direct: VWD=%d must be 1, 2, 4, 8 or 16 and divide "
               "WGD_N/LDN=%d",
               d->vwd, nwi);
      if (mwi * nwi > 512)
        REJECT("gemm_direct: %d x %d accumulators per work-item (at most 512)",
               mwi, nwi);
      if (d->local && d->kwgd > 64)
        REJECT("gemm_direct: KWGD=%d above 64", d->kwgd);
      size_t lb = d->local ? (size_t)d->kwgd * (d->wgd_m + d->wgd_n) * es : 0;
      return fits_device(info, "gemm_direct", (size_t)d->ldm * d->ldn, lb,
                         d->local != 0, why, cap);
    }
    case VNCL__GEMM_PACKED_CPU: {
      const vncl__gemm_cpu_params *c = &p->cpu;
      if (c->mr < 1 || c->nr < 1 || c->mb < 1 || c->nb < 1 || c->ku < 1 ||
          c->kc < 0)
        REJECT("gemm_packed_cpu: MR, NR, MB, NB, KU must be >= 1, KC >= 0");
      if (!is_vw(c->vw) || c->nr % c->vw)
        REJECT("gemm_packed_cpu: VW=%d must be 1, 2, 4, 8 or 16 and divide "
               "NR=%d",
               c->vw, c->nr);
      if (c->mb % c->mr || c->nb % c->nr)
        REJECT("gemm_packed_cpu: MB=%d must be a multiple of MR=%d and NB=%d "
               "of NR=%d",
               c->mb, c->mr, c->nb, c->nr);
      if (c->kc && c->kc % c->ku)
        REJECT("gemm_packed_cpu: KC=%d must be a multiple of KU=%d", c->kc,
               c->ku);
      if (c->mr * c->nr > 1024 || c->ku > 16)
        REJECT("gemm_packed_cpu: micro-tile %d x %d above 1024 elements or "
               "KU=%d above 16",
               c->mr, c->nr, c->ku);
      if (c->kc && (size_t)c->mb * c->nb * es > 256 * 1024)
        REJECT("gemm_packed_cpu: MB*NB=%d accumulators of private memory "
               "(KC > 0) above 256 KiB",
               c->mb * c->nb);
      if (c->order != 0 && c->order != 1)
        REJECT("gemm_packed_cpu: ORDER=%d must be 0 or 1", c->order);
      return fits_device(info, "gemm_packed_cpu", 1, 0, false, why, cap);
    }
    case VNCL__GEMM_PACKED_LOCAL: {
      const vncl__gemm_local_params *l = &p->local;
      if (l->mwg < 1 || l->nwg < 1 || l->kwg < 1 || l->mdimc < 1 ||
          l->ndimc < 1 || l->kwi < 1)
        REJECT("gemm_packed_local: MWG, NWG, KWG, MDIMC, NDIMC and KWI must "
               "be >= 1");
      if (!is_vw(l->vwm) || !is_vw(l->vwn))
        REJECT("gemm_packed_local: VWM=%d and VWN=%d must be 1, 2, 4, 8 or 16",
               l->vwm, l->vwn);
      if (l->mwg % (l->mdimc * l->vwm) || l->nwg % (l->ndimc * l->vwn))
        REJECT("gemm_packed_local: MWG=%d must be a multiple of MDIMC*VWM=%d "
               "and NWG=%d of NDIMC*VWN=%d",
               l->mwg, l->mdimc * l->vwm, l->nwg, l->ndimc * l->vwn);
      if (l->kwg % l->kwi)
        REJECT("gemm_packed_local: KWG=%d must be a multiple of KWI=%d",
               l->kwg, l->kwi);
      int mwi = l->mwg / l->mdimc, nwi = l->nwg / l->ndimc;
      if (mwi * nwi > 256)
        REJECT("gemm_packed_local: %d x %d accumulators per work-item (at "
               "most 256)",
               mwi, nwi);
      size_t lb = ((l->sa ? (size_t)l->kwg * l->mwg : 0) +
                   (l->sb ? (size_t)l->kwg * l->nwg : 0)) * es;
      return fits_device(info, "gemm_packed_local",
                         (size_t)l->mdimc * l->ndimc, lb, true, why, cap);
    }
    default:
      REJECT("unknown gemm kernel %d", (int)kern);
  }
}

size_t vncl__gemm_wg_size(vncl__gemm_kernel kern, const vncl__gemm_params *p) {
  switch (kern) {
    case VNCL__GEMM_DIRECT: return (size_t)p->direct.ldm * p->direct.ldn;
    case VNCL__GEMM_PACKED_LOCAL:
      return (size_t)p->local.mdimc * p->local.ndimc;
    case VNCL__GEMM_PACK:
      return p->pack_elem ? 1 : (size_t)p->pack_wg0 * p->pack_wg1;
    default: return 1;
  }
}

/* ---- options -------------------------------------------------------------- */

void vncl__gemm_options(vncl__gemm_kernel kern, const vncl__gemm_params *p,
                        vncl_dtype ab, vncl_dtype c, char *out, size_t cap) {
  int n = snprintf(out, cap, "-DDTYPE_AB=%d", (int)ab);
  if (kern != VNCL__GEMM_PACK && n >= 0 && (size_t)n < cap)
    n += snprintf(out + n, cap - (size_t)n, " -DDTYPE_C=%d", (int)c);
  if (n < 0 || (size_t)n >= cap) return;
  switch (kern) {
    case VNCL__GEMM_DIRECT: {
      const vncl__gemm_direct_params *d = &p->direct;
      snprintf(out + n, cap - (size_t)n,
               " -DWGD_M=%d -DWGD_N=%d -DLDM=%d -DLDN=%d -DKWGD=%d -DVWD=%d "
               "-DDIRECT_LOCAL=%d",
               d->wgd_m, d->wgd_n, d->ldm, d->ldn, d->kwgd, d->vwd,
               d->local ? 1 : 0);
      break;
    }
    case VNCL__GEMM_PACKED_CPU: {
      const vncl__gemm_cpu_params *q = &p->cpu;
      snprintf(out + n, cap - (size_t)n,
               " -DMR=%d -DNR=%d -DVW=%d -DMB=%d -DNB=%d -DKC=%d -DKU=%d "
               "-DORDER=%d -DA_PACKED=%d",
               q->mr, q->nr, q->vw, q->mb, q->nb, q->kc, q->ku, q->order,
               q->a_packed ? 1 : 0);
      break;
    }
    case VNCL__GEMM_PACKED_LOCAL: {
      const vncl__gemm_local_params *l = &p->local;
      snprintf(out + n, cap - (size_t)n,
               " -DMWG=%d -DNWG=%d -DKWG=%d -DMDIMC=%d -DNDIMC=%d -DVWM=%d "
               "-DVWN=%d -DKWI=%d -DSA=%d -DSB=%d",
               l->mwg, l->nwg, l->kwg, l->mdimc, l->ndimc, l->vwm, l->vwn,
               l->kwi, l->sa ? 1 : 0, l->sb ? 1 : 0);
      break;
    }
    default:
      break;
  }
}
