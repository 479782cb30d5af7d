/* Tensor operations, shared parts: parameter spaces and defaults (data),
 * the options string, kernel fetch with the work-group check, argument
 * checks, shape collapsing, host conversions. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"

/* ---- the tables, from ops.h ----------------------------------------------- */

#define UNPAREN(...) __VA_ARGS__
#define NINTS(list) (int)(sizeof((const int[]){UNPAREN list}) / sizeof(int))
#define NDBLS(list) (int)(sizeof((const double[]){UNPAREN list}) / sizeof(double))

/* The autotuner's view (vncl__tune_space). */
#define SPACE_PARAM(N, def, full, quick, meaning)                         \
  {#N, meaning, NINTS(full), {UNPAREN full}, NINTS(quick), {UNPAREN quick}},
#define SPACE(E, TABLE, name, source, pre, wg, wg2)                       \
  [VNCL__OPS_##E] = {name, source, pre##_COUNT, {TABLE(SPACE_PARAM)}, wg, wg2},
static const vncl__tune_space spaces[VNCL__OPS_FAMILIES] = {
    VNCL__OPS_FAMILY_LIST(SPACE)};

/* The parameter store's view (vncl__param_family): a set is an int array,
 * the candidates bound each value (checked in full by ops_valid). */
#define TUNABLE(pre, N, def, full, quick, meaning)                      \
  {#N, meaning, 0, false, pre##_##N * sizeof(int), def, 0,                \
   1 << 20, (const double[]){UNPAREN full}, (const double[]){UNPAREN quick}, \
   NDBLS(full), NDBLS(quick)},
#define T_EW(...) TUNABLE(EW, __VA_ARGS__)
#define T_CAST(...) TUNABLE(CAST, __VA_ARGS__)
#define T_TR(...) TUNABLE(TR, __VA_ARGS__)
#define T_RED(...) TUNABLE(RED, __VA_ARGS__)
#define T_SM(...) TUNABLE(SM, __VA_ARGS__)
#define T_RND(...) TUNABLE(RND, __VA_ARGS__)
static const vncl__tunable t_elementwise[] = {VNCL__OPS_ELEMENTWISE_TABLE(T_EW)};
static const vncl__tunable t_cast[] = {VNCL__OPS_CAST_TABLE(T_CAST)};
static const vncl__tunable t_transpose[] = {VNCL__OPS_TRANSPOSE_TABLE(T_TR)};
static const vncl__tunable t_reduce[] = {VNCL__OPS_REDUCE_TABLE(T_RED)};
static const vncl__tunable t_softmax[] = {VNCL__OPS_SOFTMAX_TABLE(T_SM)};
static const vncl__tunable t_random[] = {VNCL__OPS_RANDOM_TABLE(T_RND)};

_Static_assert(EW_COUNT <= VNCL__OPS_MAX_PARAMS &&
                   CAST_COUNT <= VNCL__OPS_MAX_PARAMS &&
                   TR_COUNT <= VNCL__OPS_MAX_PARAMS &&
                   RED_COUNT <= VNCL__OPS_MAX_PARAMS &&
                   SM_COUNT <= VNCL__OPS_MAX_PARAMS &&
                   RND_COUNT <= VNCL__OPS_MAX_PARAMS,
               "VNCL__OPS_MAX_PARAMS must hold every family's table");

/* Built-in device rows, by name over the tables' (GPU-shaped) defaults.
 * The CPU rows were measured on PoCL 3.1 (2 cores of an AVX-512 guest,
 * docs/ops.md; `vncl autotune --quick` kept the 2026-11-29 sets); each
 * row's string says when, and what was added later. */
#define CPU_ROW(set, when)                                                    \
  {{NULL, VNCL_DEVICE_CPU, VNCL__RULE_ANY, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, \
    0},                                                                       \
   set, "PoCL 3.1, 2-core AVX-512 guest, " when}
static const vncl__param_row r_elementwise[] = {
    CPU_ROW("WG=16 VW=16 IPT=64 ITEM_CONTIG=1 NT_STORE=1", "2026-11-29")};
static const vncl__param_row r_cast[] = {
    CPU_ROW("WG=16 IPT=64 ITEM_CONTIG=1 NT_STORE=1",
            "2026-11-29; NT_STORE 2026-12-01 (docs/ops.md, fifth pass)")};
/* The Zen 5 (AMD, x86 family 26; PoCL 3.1 names it as it names a Zen 4,
 * the family tells them apart): groups of 8 x 8 blocks and ordinary stores
 * in the row copies (docs/ops.md, twelfth pass). The Zen 4 keeps the CPU
 * row (its transpose at 0.81x memcpy there, 2026-12-02), and so does an
 * Intel Xeon, where the Zen 5's sets run the transpose at half the CPU
 * row's rate (docs/ops.md, fourteenth pass). CPUs with 8-lane vectors
 * (AVX2) transpose in 8-lane squares (LANES 8, thirty-third pass). */
#define ZEN5 26
static const vncl__param_row r_transpose[] = {
    {{"AuthenticAMD", VNCL_DEVICE_CPU, VNCL__RULE_ANY, 16, VNCL__RULE_ANY,
      VNCL__RULE_ANY, ZEN5},
     "TILE=8 WGY=8 ROW_ITEMS=2 NT_STORE=1 RUN_NT=0",
     "PoCL 3.1, 2-core Zen 5 EPYC guest, 2026-12-04"},
    {{NULL, VNCL_DEVICE_CPU, VNCL__RULE_ANY, 16, VNCL__RULE_ANY,
      VNCL__RULE_ANY, 0},
     "TILE=64 WGY=16 ROW_ITEMS=2 NT_STORE=1 RUN_NT=1 LANES=16",
     "PoCL 3.1, 2-core AVX-512 guest, 2026-11-29; RUN_NT 2026-12-04 on the "
     "Zen 5 (vectors in place of the element stores before); against the "
     "Zen 5 row on an Intel Xeon (x86 family 6, model 167), 2026-12-04: "
     "transpose 1.06x against 0.54x memcpy, (1,0,2) 1.45x against 1.02x "
     "(docs/ops.md, fourteenth pass); LANES 16 against 8 on a Zen 4 (x86 "
     "family 25), 2026-12-07: f32 transpose 1.52x against 1.41x memcpy, f16 "
     "(2,1,0) 1.09x against 1.07x (thirty-third pass)"},
    {{NULL, VNCL_DEVICE_CPU, VNCL__RULE_ANY, 0, VNCL__RULE_ANY,
      VNCL__RULE_ANY, 0},
     "TILE=64 WGY=16 ROW_ITEMS=2 NT_STORE=1 RUN_NT=1 LANES=8",
     "PoCL 3.1, 2-core Zen 4 EPYC guest (x86 family 25) as AVX2 code "
     "(8-lane vectors), 2026-12-07: the AVX-512 row with LANES 8, f32 "
     "transpose 1.35x against 0.93x memcpy, f16 (2,1,0) 1.12x against "
     "0.92x (docs/ops.md, thirty-third pass)"}};
/* ROWS_BLOCK by vector width: rows of up to 128 as AVX-512 code, 32 as
 * AVX2 code (there max over rows of 64 ran at 1.04-1.08x memcpy in blocks,
 * 1.52-1.62x a row a work-item; Zen 5 both ways, docs/ops.md,
 * twenty-second pass). ROW_STREAMS: 8 parts of a row at once where the
 * sixth pass measured them (an Intel Xeon: row sums 1.15-1.33x faster than
 * one stream); one on AMD CPUs, where 8 ran rows of 1024 1.7-2.3x and of
 * 4096 1.2-1.9x slower than one on a Zen 5, natively and as AVX2 code
 * (twenty-ninth pass). Column strips keep 8 rows a step everywhere (one
 * row a step ran them 0.6x as fast there). */
#define RED_CPU "WG=16 VW=16 ITEM_CONTIG=1 ROWS_ITEM=65536 CB=4 STREAMS=8 "
#define RED_WHEN "2026-11-29; STREAMS 2026-12-01 (docs/ops.md, sixth pass); "
#define RED_AMD "AuthenticAMD", VNCL_DEVICE_CPU, VNCL__RULE_ANY
static const vncl__param_row r_reduce[] = {
    {{RED_AMD, 16, VNCL__RULE_ANY, VNCL__RULE_ANY, 0},
     RED_CPU "ROWS_BLOCK=128 ROW_STREAMS=1",
     "PoCL 3.1, 2-core Zen 5 EPYC guest: ROWS_BLOCK and ROW_STREAMS "
     "2026-12-06; the rest as the CPU rows (2026-11-29; STREAMS "
     "2026-12-01, docs/ops.md, sixth pass)"},
    {{RED_AMD, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, 0},
     RED_CPU "ROWS_BLOCK=32 ROW_STREAMS=1",
     "PoCL 3.1, 2-core Zen 5 EPYC guest as AVX2 code: ROWS_BLOCK and "
     "ROW_STREAMS 2026-12-06; the rest as the CPU rows (2026-11-29; "
     "STREAMS 2026-12-01, docs/ops.md, sixth pass)"},
    {{NULL, VNCL_DEVICE_CPU, VNCL__RULE_ANY, 16, VNCL__RULE_ANY,
      VNCL__RULE_ANY, 0},
     RED_CPU "ROWS_BLOCK=128 ROW_STREAMS=8",
     "PoCL 3.1, 2-core AVX-512 guest, " RED_WHEN
     "ROWS_BLOCK 2026-12-06 on the Zen 5"},
    CPU_ROW(RED_CPU "ROWS_BLOCK=32 ROW_STREAMS=8",
            RED_WHEN "ROWS_BLOCK 2026-12-06 on the Zen 5 as AVX2 code")};
#undef RED_AMD
#undef RED_CPU
#undef RED_WHEN
/* Every CPU: non-temporal final stores for rows of whole vectors (and
 * packed rows) of any length (NT_MIN 0). AMD CPUs had ordinary stores for
 * rows under 512 from 2026-12-04 (the Zen 5 of the twelfth pass: rows of
 * 64 1.2x faster so); on the same kind of host on 2026-12-06 they were the
 * slower ones, natively and as AVX2 code, f32 and f64: softmax over rows
 * of 32 to 256 1.3-2.0x slower, of 16 as AVX2 code 1.1-1.3x (docs/ops.md,
 * twenty-eighth pass). */
static const vncl__param_row r_softmax[] = {
    CPU_ROW("WG=16 VW=16 ITEM_CONTIG=1 ROW_ITEM=1024 PREFETCH=2 ITEM_ROWS=4",
            "2026-11-29; PREFETCH 2026-12-01 (docs/ops.md, third pass); WG, "
            "ROW_ITEM and PREFETCH 2 2026-12-01, quiet, also as AVX2 code "
            "(docs/ops.md, eighth pass); ITEM_ROWS 2026-12-03 on the Zen 5, "
            "also as AVX2 code (docs/ops.md, tenth pass); NT_MIN 0 on AMD "
            "CPUs too since 2026-12-06 (twenty-eighth pass)")};
static const vncl__param_row r_random[] = {CPU_ROW("WG=16 BPI=16", "2026-11-29")};

static bool ops_valid(const vncl__param_family *f,
                      const vncl_device_info *info, int acc, const void *set,
                      char *why, size_t cap);

static const char *const any_acc[] = {"any"};
static const char *const any_class[] = {"default"};
#define N_OF(a) (int)(sizeof a / sizeof *a)
#define FAMILY(E, TABLE, name, source, pre, wg, wg2, t, r)                 \
  [VNCL__OPS_##E] = {name, "lib/ops/ops_common.c",                         \
                     sizeof(int) * VNCL__OPS_MAX_PARAMS, t, N_OF(t), 1, 1,  \
                     any_acc, any_class, r, N_OF(r), ops_valid, NULL},
#define FAM(E, TABLE, name, source, pre, wg, wg2) \
  FAMILY(E, TABLE, name, source, pre, wg, wg2, T_OF_##E, R_OF_##E)
#define T_OF_ELEMENTWISE t_elementwise
#define T_OF_CAST t_cast
#define T_OF_TRANSPOSE t_transpose
#define T_OF_REDUCE t_reduce
#define T_OF_SOFTMAX t_softmax
#define T_OF_RANDOM t_random
#define R_OF_ELEMENTWISE r_elementwise
#define R_OF_CAST r_cast
#define R_OF_TRANSPOSE r_transpose
#define R_OF_REDUCE r_reduce
#define R_OF_SOFTMAX r_softmax
#define R_OF_RANDOM r_random
static const vncl__param_family families[VNCL__OPS_FAMILIES] = {
    VNCL__OPS_FAMILY_LIST(FAM)};

const vncl__tune_space *vncl__ops_space(int f) {
  return f >= 0 && f < VNCL__OPS_FAMILIES ? &spaces[f] : NULL;
}

const vncl__param_family *vncl__ops_family_of(int f) {
  return f >= 0 && f < VNCL__OPS_FAMILIES ? &families[f] : NULL;
}

/* Every value one of its candidates (the kernels assume powers of two and
 * the host's fitting halves them). */
static bool ops_valid(const vncl__param_family *f,
                      const vncl_device_info *info, int acc, const void *set,
                      char *why, size_t cap) {
  (void)info;
  (void)acc;
  for (int i = 0; i < f->n; i++) {
    double v = vncl__params_value(&f->t[i], set);
    bool ok = false;
    for (int j = 0; j < f->t[i].nfull && !ok; j++) ok = f->t[i].full[j] == v;
    if (!ok) {
      snprintf(why, cap, "%s=%d is not a candidate of the %s space",
               f->t[i].name, (int)v, f->kernel);
      return false;
    }
  }
  return true;
}

bool vncl__ops_defaults(const vncl_device_info *info, vncl__ops_family f,
                        int *values) {
  const vncl__param_family *fam = vncl__ops_family_of(f);
  if (!fam) return false;
  if (!vncl__params_builtin(fam, info, 0, 0, 0, values))
    vncl__params_defaults(fam, values);
  return true;
}

size_t vncl__ops_local_bytes(vncl__ops_family f, const int *v) {
  switch (f) {
    case VNCL__OPS_REDUCE: return (size_t)v[0] * 16;
    case VNCL__OPS_SOFTMAX: return (size_t)v[0] * 8;
    case VNCL__OPS_TRANSPOSE: return (size_t)v[0] * (size_t)(v[0] + 1) * 8;
    default: return 0;
  }
}

bool vncl__ops_nt_pays(const vncl_context *ctx, int nt_cache, double bytes) {
  return nt_cache <= 0 || ctx->mem_cache_bytes == 0 ||
         bytes >= (double)ctx->mem_cache_bytes * nt_cache / 4;
}

static size_t wg_total(const vncl__tune_space *sp, const int *v) {
  size_t t = (size_t)v[sp->wg];
  if (sp->wg2 >= 0) t *= (size_t)v[sp->wg2];
  return t;
}

/* Fits values to the device's limits. */
static void fit(const vncl_device_info *info, vncl__ops_family f, int *v) {
  const vncl__tune_space *sp = &spaces[f];
  size_t maxwg = info->max_work_group_size ? info->max_work_group_size : 256;
  /* Halve the second factor first (transpose: WGY), then the first. */
  while (wg_total(sp, v) > maxwg) {
    if (sp->wg2 >= 0 && v[sp->wg2] > 1)
      v[sp->wg2] /= 2;
    else if (v[sp->wg] > 1)
      v[sp->wg] /= 2;
    else
      break;
  }
  if (f == VNCL__OPS_TRANSPOSE && v[1] > v[0]) v[1] = v[0];
  size_t lmax = info->local_mem_bytes;
  while (lmax && vncl__ops_local_bytes(f, v) > lmax && v[sp->wg] > 1) {
    v[sp->wg] /= 2;
    if (f == VNCL__OPS_TRANSPOSE && v[1] > v[0]) v[1] = v[0];
  }
  /* A multiple of the preferred multiple, where doubling keeps within the
   * limits (all candidates are powers of two). */
  size_t pref = info->preferred_work_group_multiple;
  if (pref > 1 && (pref & (pref - 1)) == 0) {
    int *grow = f == VNCL__OPS_TRANSPOSE ? &v[1] : &v[sp->wg];
    while (wg_total(sp, v) % pref != 0 && wg_total(sp, v) * 2 <= maxwg) {
      *grow *= 2;
      if (f == VNCL__OPS_TRANSPOSE && v[1] > v[0]) {
        v[1] = v[0];
        break;
      }
      if (lmax && vncl__ops_local_bytes(f, v) > lmax) {
        *grow /= 2;
        break;
      }
    }
  }
}

void vncl__ops_params(vncl_context *ctx, vncl__ops_family f, int *values) {
  memset(values, 0, VNCL__OPS_MAX_PARAMS * sizeof *values);
  const vncl__param_family *fam = vncl__ops_family_of(f);
  if (!fam) return;
  vncl__params_get(ctx, fam, 0, 0, values, NULL, NULL);
  fit(&ctx->info, f, values);
}

vncl_status vncl__ops_params_set(vncl_context *ctx, vncl__ops_family f,
                                 const int *values) {
  const vncl__param_family *fam = vncl__ops_family_of(f);
  if (!ctx || !fam)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "ops parameters: %s", !ctx ? "ctx is NULL"
                                                 : "unknown kernel family");
  int v[VNCL__OPS_MAX_PARAMS] = {0};
  if (values) memcpy(v, values, sizeof(int) * (size_t)fam->n);
  return vncl__params_set(ctx, fam, 0, 0, values ? v : NULL);
}

void vncl__ops_options(vncl__ops_family f, const int *values,
                       const char *extra, char *out, size_t cap) {
  const vncl__param_family *fam = &families[f];
  out[0] = '\0';
  vncl__params_options(fam, 0, values, out, cap);
  /* The store writes " -DWG=256 ..."; the string starts at its first. */
  size_t n = strlen(out);
  if (n && out[0] == ' ') memmove(out, out + 1, n--);
  if (extra && extra[0] && n < cap)
    snprintf(out + n, cap - n, " %s", extra);
}

vncl_status vncl__ops_kernel_get(vncl_context *ctx, vncl__ops_family f,
                                 int *values, const char *extra,
                                 const char *name, vncl__kernel *out) {
  const vncl__tune_space *sp = &spaces[f];
  for (int attempt = 0;; attempt++) {
    char opts[512];
    vncl__ops_options(f, values, extra, opts, sizeof opts);
    vncl_status s = vncl__kernel_get(ctx, sp->source, opts, name, out);
    if (s) return s;
    size_t want = wg_total(sp, values), kwg;
    if (vncl__kernel_wg_fits(ctx, out, want, &kwg)) return VNCL_OK;
    vncl__kernel_put(ctx, out);
    int *shrink = sp->wg2 >= 0 && values[sp->wg2] > 1 ? &values[sp->wg2]
                                                       : &values[sp->wg];
    if (attempt >= 6 || *shrink <= 1)
      return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                        "kernel %s (%s) allows %zu work-items per group on "
                        "this device, fewer than the smallest candidate",
                        name, sp->source, kwg);
    vncl__log(VNCL_LOG_INFO, "%s allows %zu work-items per group, not %zu: "
              "halving", name, kwg, want);
    *shrink /= 2;
  }
}

/* ---- checks ------------------------------------------------------------ */

vncl_status vncl__ops_check_ctx(const vncl_context *ctx, const char *fn) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
  return VNCL_OK;
}

vncl_status vncl__ops_check_tensor(vncl_context *ctx, const vncl_tensor *t,
                                   const char *fn, const char *what) {
  if (!t)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s is NULL", fn, what);
  if (t->ctx != ctx)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: %s belongs to another context", fn, what);
  return VNCL_OK;
}

vncl_status vncl__ops_check_arith(vncl_context *ctx, const vncl_tensor *t,
                                  const char *fn, const char *what) {
  switch (t->dtype) {
    case VNCL_F32:
    case VNCL_F16:
    case VNCL_BF16: return VNCL_OK;
    case VNCL_F64:
      if (!ctx->info.fp64)
        return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                          "%s: %s is f64 and device '%s' has no fp64", fn,
                          what, ctx->info.name);
      return VNCL_OK;
    case VNCL_I32:
      return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                        "%s: %s is i32; this operation takes f32, f64, f16 "
                        "or bf16", fn, what);
  }
  return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s has unknown dtype %d",
                    fn, what, (int)t->dtype);
}

vncl_status vncl__ops_check_same_dtype(vncl_context *ctx,
                                       const vncl_tensor *a,
                                       const vncl_tensor *b, const char *fn,
                                       const char *aname, const char *bname) {
  if (a->dtype != b->dtype)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: dtype mismatch: %s is %s, %s is %s", fn, aname,
                      vncl_dtype_name(a->dtype), bname,
                      vncl_dtype_name(b->dtype));
  return VNCL_OK;
}

vncl_status vncl__ops_check_same_shape(vncl_context *ctx,
                                       const vncl_tensor *a,
                                       const vncl_tensor *b, const char *fn,
                                       const char *aname, const char *bname) {
  bool same = a->ndim == b->ndim;
  for (int i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
  if (!same) {
    char sa[160], sb[160];
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: shape mismatch: %s is %s, %s is %s", fn, aname,
                      vncl__shape_str(a->ndim, a->shape, sa, sizeof sa),
                      bname,
                      vncl__shape_str(b->ndim, b->shape, sb, sizeof sb));
  }
  return VNCL_OK;
}

size_t vncl__ops_short_vw(size_t n) {
  size_t vw = 2;
  while (vw * 2 <= n) vw *= 2;
  return vw;
}

int vncl__ops_idx_bits(size_t max_elements) {
  return max_elements < ((size_t)1 << 31) ? 32 : 64;
}

vncl__targ vncl__ops_idx(int bits, size_t v) {
  vncl__targ a;
  memset(&a, 0, sizeof a);
  if (bits == 64) {
    a.size = sizeof(cl_ulong);
    a.v.ul = (cl_ulong)v;
  } else {
    a.size = sizeof(cl_uint);
    a.v.u = (cl_uint)v;
  }
  return a;
}

vncl__targ vncl__ops_idx8(int bits, const size_t *v, int n) {
  vncl__targ a;
  memset(&a, 0, sizeof a);
  for (int i = 0; i < 8; i++) {
    size_t x = i < n ? v[i] : 1;
    if (bits == 64)
      a.v.ul8.s[i] = (cl_ulong)x;
    else
      a.v.u8.s[i] = (cl_uint)x;
  }
  a.size = bits == 64 ? sizeof(cl_ulong8) : sizeof(cl_uint8);
  return a;
}

/* ---- layouts ------------------------------------------------------------ */

void vncl__ops_collapse(vncl__ops_layout *l) {
  vncl__ops_layout c = {0};
  c.nops = l->nops;
  for (int d = 0; d < l->nd; d++) {
    if (l->shape[d] == 1) continue;
    int m = c.nd - 1;
    bool merge = m >= 0;
    for (int op = 0; merge && op < l->nops; op++)
      merge = c.stride[op][m] == l->stride[op][d] * l->shape[d];
    if (merge) {
      c.shape[m] *= l->shape[d];
      for (int op = 0; op < l->nops; op++) c.stride[op][m] = l->stride[op][d];
    } else {
      c.shape[c.nd] = l->shape[d];
      for (int op = 0; op < l->nops; op++)
        c.stride[op][c.nd] = l->stride[op][d];
      c.nd++;
    }
  }
  if (c.nd == 0) { /* one element */
    c.nd = 1;
    c.shape[0] = 1;
    for (int op = 0; op < l->nops; op++) c.stride[op][0] = 1;
  }
  *l = c;
}
