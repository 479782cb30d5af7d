/*
 * GEMM internals shared by gemm.c (argument checks, dispatch, our kernels),
 * gemm_params.c (parameter sets: defaults as data, validation, options,
 * tuning overrides) and gemm_clblast.c (the CLBlast backend).
 *
 * Kernels (cl_kernels/, each documents its macros; docs/tuning.md explains
 * what each does on GPUs and CPUs):
 *   gemm_ref.cl           naive, one work-item per element: fallback, oracle
 *   gemm_direct.cl        strided operands in place, full edge handling
 *   gemm_pack.cl          strided operand -> packed, zero-padded scratch
 *   gemm_packed_cpu.cl    packed operands, few large work-items (CPUs)
 *   gemm_packed_local.cl  packed operands, local-memory tiles (GPUs)
 *   gemm_small.cl         tiny and odd products, whole rows per work-item,
 *                         many products per work-group (batches)
 */
#ifndef VNCL_GEMM_INTERNAL_H
#define VNCL_GEMM_INTERNAL_H

#include "tuning/tuning.h"

/* Which kernel a launch uses. */
typedef enum vncl__gemm_kernel {
  VNCL__GEMM_REF = 0,
  VNCL__GEMM_DIRECT,
  VNCL__GEMM_PACKED_CPU,
  VNCL__GEMM_PACKED_LOCAL,
  VNCL__GEMM_PACK, /* the packing kernels (gemm_pack, gemm_pack_elem) */
  VNCL__GEMM_SMALL,
  VNCL__GEMM_KERNELS
} vncl__gemm_kernel;

/* Shape classes: each has its own parameter set, since the best blocking
 * of a tall-and-narrow product differs from that of a square one. */
typedef enum vncl__gemm_shape {
  VNCL__GEMM_SHAPE_SQUARE = 0, /* anything not below */
  VNCL__GEMM_SHAPE_NARROW,     /* n <= 128 and m >= 4n: few columns of C */
  VNCL__GEMM_SHAPE_FLAT,       /* m <= 128 and n >= 4m: few rows of C */
  VNCL__GEMM_SHAPES
} vncl__gemm_shape;

/* Storage classes, each with its own parameter sets: f32 and f64, and
 * 16-bit storage (f16 and bf16, one class: both accumulate in float and
 * widen the same way). A kernel set that is best for f32 need not be for
 * 16-bit storage, whose elements of A the kernels widen one at a time
 * where they broadcast them (docs/tuning.md, "Storage classes"). The
 * database names them "f32", "f64" and "f16". */
typedef enum vncl__gemm_acc {
  VNCL__GEMM_ACC32 = 0,
  VNCL__GEMM_ACC64,
  VNCL__GEMM_ACC16,
  VNCL__GEMM_ACCS
} vncl__gemm_acc;

typedef enum vncl__gemm_backend {
  VNCL__GEMM_OWN = 0,
  VNCL__GEMM_CLBLAST = 1
} vncl__gemm_backend;

/* ---- the tunables: one table per kernel ---------------------------------
 *
 * Each line is one tunable:
 *   X(member, NAME, C type, default, min, max, (full candidates),
 *     (quick candidates), "meaning")
 * NAME is the macro the kernel reads (-DNAME=value) and the tunable's name
 * in the tuning database. From these tables come the parameter structs
 * below, the -D option strings (vncl__gemm_options), the database names
 * (read and written), the range checks and the autotuner's search spaces
 * (full; quick for `vncl autotune --quick`). The defaults form the set that
 * fits any device (16 work-items, a little local memory): per-device sets
 * are rows of data in gemm_params.c that name only what differs. Adding a
 * tunable: its line here, its macro in the kernel, its test
 * (docs/contributing.md). The kernels (cl_kernels/) document each macro. */

/* Which kernel path runs, and how products are packed (read by the host). */
#define VNCL__GEMM_HOST_TABLE(X)                                              \
  X(backend, backend, int, 0, 0, 1, (0), (0),                                 \
    "0: our kernels, 1: CLBlast (the auto mode follows it)")                  \
  X(fast, fast, int, 2, 2, 3, (2, 3), (2, 3),                                 \
    "the fast kernel: 2 gemm_packed_cpu, 3 gemm_packed_local")                \
  X(switch_mnk, switch_mnk, double, 16777216, 0, 1e30, (16777216), (16777216), \
    "m*n*k at and above which pack + fast kernel run (else gemm_direct)")     \
  X(switch_mnk_bt, switch_mnk_bt, double, 16777216, 0, 1e30, (16777216),      \
    (16777216),                                                               \
    "the same when B's columns are strided (direct kernel gathers B)")        \
  X(switch_mnk16, switch_mnk16, double, 1e30, 0, 1e30, (1e30), (1e30),        \
    "f16/bf16 storage: packed from the lower of this and switch_mnk(_bt)")   \
  X(big_mnk, big_mnk, double, 1e30, 0, 1e30, (1e30), (1e30),                \
    "m*n*k at and above which gemm_packed_cpu blocks are big_tall times "    \
    "taller and as many times narrower")                                      \
  X(big_tall, big_tall, int, 1, 1, 64, (1), (1),                              \
    "MB times this, NB over it (a multiple of NR) from big_mnk on")          \
  X(small_mnk, small_mnk, double, 0, 0, 1e30, (0, 32768, 262144, 16777216), \
    (0, 32768), "m*n*k at and below which a single product runs gemm_small")  \
  X(small_batch_mnk, small_batch_mnk, double, 0, 0, 1e30, (0, 32768, 1000000), \
    (0, 1000000),                                                             \
    "m*n*k at and below which each product of a batch runs gemm_small")       \
  X(small_batch_mnk_bt, small_batch_mnk_bt, double, 1e30, 0, 1e30, (1e30),   \
    (1e30),                                                                   \
    "the same, lower, when B's columns are strided (gemm_small gathers B)")   \
  X(small_stream_bytes, small_stream_bytes, double, 0, 0, 1e30, (0), (0),     \
    "bytes a gemm_small launch moves from which C is streamed (0: never)")    \
  X(pack_elem, pack_elem, int, 1, 0, 1, (0, 1), (0, 1),                       \
    "packing kernel: 1 gemm_pack_elem (GPUs), 0 gemm_pack")                   \
  X(pack_wg0, pack_wg0, int, 1, 0, 1024, (1), (1),                            \
    "gemm_pack work-group rows (ignored by gemm_pack_elem)")                  \
  X(pack_wg1, pack_wg1, int, 1, 0, 1024, (1), (1),                            \
    "gemm_pack work-group columns (ignored by gemm_pack_elem)")               \
  X(wg_multiple, WG_MULTIPLE, int, 0, 0, 1, (0), (0),                         \
    "1: work-groups must be a multiple of the device's preferred multiple")   \
  X(vregs, VREGS, int, 0, 0, 256, (0), (0),                                   \
    "vector registers the tuner's register check and gemm_small's whole-row " \
    "tiles assume (0: none)")

/* gemm_direct.cl: strided operands in place. */
#define VNCL__GEMM_DIRECT_TABLE(X)                                            \
  X(wgd_m, WGD_M, int, 4, 0, 65536, (4, 5, 6, 8, 12, 16, 32, 64), (6, 16, 32),\
    "C tile rows per work-group")                                             \
  X(wgd_n, WGD_N, int, 4, 0, 65536, (8, 16, 32, 64, 128), (16, 32, 64),       \
    "C tile columns per work-group")                                          \
  X(ldm, LDM, int, 1, 0, 65536, (1, 2, 4, 8, 16), (1, 8),                     \
    "work-items per group along rows")                                        \
  X(ldn, LDN, int, 1, 0, 65536, (1, 2, 4, 8, 16), (1, 8),                     \
    "work-items per group along columns")                                     \
  X(kwgd, KWGD, int, 4, 0, 65536, (1, 2, 4, 8, 16), (4, 16),                  \
    "local slice depth (DIRECT_LOCAL) or depth unroll")                       \
  X(vwd, VWD, int, 4, 0, 64, (1, 2, 4, 8, 16), (1, 8, 16),                    \
    "vector width over a work-item's columns (not local)")                    \
  X(local, DIRECT_LOCAL, int, 0, 0, 1, (0, 1), (0, 1),                        \
    "1: stage A and B through local memory")

/* gemm_small.cl: whole rows of tiny products per work-item. */
#define VNCL__GEMM_SMALL_TABLE(X)                                             \
  X(mr, SM_MR, int, 4, 0, 65536, (2, 4, 6, 8), (4, 6),                        \
    "rows of a register tile")                                                \
  X(nv, SM_NV, int, 1, 0, 64, (1, 2, 4), (1, 2),                              \
    "accumulator vectors per row of a tile")                                  \
  X(vw, SM_VW, int, 4, 0, 64, (4, 8, 16), (8, 16),                            \
    "vector width along n")                                                   \
  X(rb, SM_RB, int, 16, 0, 65536, (8, 12, 16, 24, 32, 48, 64), (16, 32),      \
    "rows of C per work-item in a batch (a multiple of SM_MR)")                          \
  X(wg, SM_WG, int, 1, 0, 65536, (1, 4, 8, 16, 32), (8, 16),                  \
    "work-items per group (batches; single products use groups of 1)")

/* gemm_packed_cpu.cl: packed operands, few large work-items (CPUs). */
#define VNCL__GEMM_CPU_TABLE(X)                                               \
  X(mr, MR, int, 4, 0, 65536, (4, 6, 8, 12, 14, 16), (4, 6, 8),               \
    "register micro-tile rows")                                               \
  X(nr, NR, int, 4, 0, 65536, (16, 32, 48, 64), (16, 32, 64),                 \
    "register micro-tile columns")                                            \
  X(vw, VW, int, 4, 0, 64, (8, 16), (8, 16),                                  \
    "vector width of B loads and accumulators")                               \
  X(mb, MB, int, 4, 0, 65536, (12, 24, 28, 32, 48, 56, 64, 96),               \
    (24, 48, 96), "C block rows per work-item")                               \
  X(nb, NB, int, 4, 0, 65536, (32, 64, 96, 128, 192), (64, 128),              \
    "C block columns per work-item")                                          \
  X(kc, KC, int, 0, 0, 65536, (0, 256, 512), (0, 256),                        \
    "depth chunk (0: none)")                                                  \
  X(ku, KU, int, 4, 0, 65536, (1, 2, 4, 8, 16), (4, 8, 16),                   \
    "depth unroll; the packed depth is a multiple")                           \
  X(order, ORDER, int, 0, 0, 1, (0, 1), (0, 1),                               \
    "0: micro-tile columns outer, 1: rows outer")                             \
  X(a_packed, A_PACKED, int, 1, 0, 2, (0, 1, 2), (0, 1, 2),                   \
    "0: read A in place (skips packing A), 1: pack A, 2: in place where A's "  \
    "rows are contiguous in depth, else packed (chosen per call)")            \
  X(prefetch, PREFETCH, int, 0, 0, 256, (0, 8, 16, 32), (0),                 \
    "software prefetch of B this many depths ahead (0: none; CPU rows)")

/* gemm_packed_local.cl: packed operands, local-memory tiles (GPUs). */
#define VNCL__GEMM_LOCAL_TABLE(X)                                             \
  X(mwg, MWG, int, 16, 0, 65536, (32, 64, 128), (64, 128),                    \
    "C tile rows per work-group")                                             \
  X(nwg, NWG, int, 16, 0, 65536, (32, 64, 128), (64, 128),                    \
    "C tile columns per work-group")                                          \
  X(kwg, KWG, int, 4, 0, 65536, (8, 16, 32), (16, 32),                        \
    "local slice depth")                                                      \
  X(mdimc, MDIMC, int, 4, 0, 65536, (8, 16, 32), (8, 16),                     \
    "work-items per group along rows")                                        \
  X(ndimc, NDIMC, int, 4, 0, 65536, (8, 16, 32), (8, 16),                     \
    "work-items per group along columns")                                     \
  X(vwm, VWM, int, 1, 0, 64, (1, 2, 4, 8), (2, 4),                            \
    "vector width of A reads")                                                \
  X(vwn, VWN, int, 1, 0, 64, (1, 2, 4, 8), (2, 4),                            \
    "vector width of B reads")                                                \
  X(kwi, KWI, int, 1, 0, 65536, (1, 2, 4), (1, 2),                            \
    "depth unroll inside a slice")                                            \
  X(sa, SA, int, 0, 0, 1, (0, 1), (1), "1: stage A in local memory")           \
  X(sb, SB, int, 0, 0, 1, (0, 1), (1), "1: stage B in local memory")

#define VNCL__GEMM_FIELD(m, N, type, ...) type m;

typedef struct vncl__gemm_direct_params {
  VNCL__GEMM_DIRECT_TABLE(VNCL__GEMM_FIELD)
} vncl__gemm_direct_params;

/* gemm_small's accumulator lanes per work-item (SM_MR * SM_NV * SM_VW) at
 * most: the sets' check (gemm_params.c) and the host's own tiles (gemm.c,
 * small_tile) keep to it. */
#define VNCL__GEMM_SMALL_MAX_ACC 512
typedef struct vncl__gemm_small_params {
  VNCL__GEMM_SMALL_TABLE(VNCL__GEMM_FIELD)
} vncl__gemm_small_params;

typedef struct vncl__gemm_cpu_params {
  VNCL__GEMM_CPU_TABLE(VNCL__GEMM_FIELD)
} vncl__gemm_cpu_params;

typedef struct vncl__gemm_local_params {
  VNCL__GEMM_LOCAL_TABLE(VNCL__GEMM_FIELD)
} vncl__gemm_local_params;

/* Everything that decides how one (device, accumulation, shape class) runs:
 * the host tunables, then one block per kernel. */
typedef struct vncl__gemm_params {
  VNCL__GEMM_HOST_TABLE(VNCL__GEMM_FIELD)
  vncl__gemm_direct_params direct;
  vncl__gemm_cpu_params cpu;
  vncl__gemm_local_params local;
  vncl__gemm_small_params small;
} vncl__gemm_params;

/* The GEMM family's table for the parameter store (tuning.h), and
 * CLBlast's Xgemm parameters (set with CLBlastOverrideParameters). */
extern const vncl__param_family vncl__gemm_family;
extern const vncl__param_family vncl__clblast_family;

/* CLBlast's Xgemm kernel: every one of its 16 parameters must be given.
 * GEMMK 0, KREG 1, no strided stores. */
#define VNCL__CLBLAST_TABLE(X)                                                \
  X(gemmk, GEMMK, int, 0, 0, 1, (0), (0), "0: the 2D register-tile kernel")   \
  X(kreg, KREG, int, 1, 1, 16, (1), (1), "depth per register (GEMMK 1)")      \
  X(kwg, KWG, int, 32, 1, 4096, (16, 32), (16, 32), "local slice depth")       \
  X(kwi, KWI, int, 2, 1, 4096, (2, 8), (2), "depth unroll")                   \
  X(mdima, MDIMA, int, 8, 1, 4096, (8, 16), (8, 16), "A loaders along rows")  \
  X(mdimc, MDIMC, int, 8, 1, 4096, (8, 16), (8, 16),                          \
    "work-items per group along rows")                                        \
  X(mwg, MWG, int, 64, 1, 4096, (32, 64, 128), (64, 128), "C tile rows")      \
  X(ndimb, NDIMB, int, 8, 1, 4096, (8, 16), (8, 16), "B loaders along cols")  \
  X(ndimc, NDIMC, int, 8, 1, 4096, (8, 16), (8, 16),                          \
    "work-items per group along columns")                                     \
  X(nwg, NWG, int, 64, 1, 4096, (32, 64, 128), (64, 128), "C tile columns")   \
  X(sa, SA, int, 1, 0, 1, (0, 1), (1), "1: stage A in local memory")           \
  X(sb, SB, int, 1, 0, 1, (0, 1), (1), "1: stage B in local memory")           \
  X(strm, STRM, int, 0, 0, 1, (0), (0), "strided stores along rows")           \
  X(strn, STRN, int, 0, 0, 1, (0), (0), "strided stores along columns")        \
  X(vwm, VWM, int, 4, 1, 16, (1, 2, 4, 8), (2, 4), "vector width of A")        \
  X(vwn, VWN, int, 4, 1, 16, (1, 2, 4, 8), (2, 4), "vector width of B")

typedef struct vncl__clblast_params {
  VNCL__CLBLAST_TABLE(VNCL__GEMM_FIELD)
} vncl__clblast_params;

/* Installs CLBlast Xgemm parameters (a JSON object by name) for dev, in
 * the precision of storage class acc (half for ACC16); false with why on
 * failure. */
bool vncl__clblast_override(cl_device_id dev, vncl__gemm_acc acc,
                            const cJSON *obj, char *why, size_t cap);

/* The parameters as a JSON object by name, and back (tuning database). */
cJSON *vncl__gemm_params_to_json(const vncl__gemm_params *p);
bool vncl__gemm_params_from_json(const cJSON *obj, vncl__gemm_params *p,
                                 char *why, size_t cap);
bool vncl__gemm_param_set_named(vncl__gemm_params *p, const char *name,
                                double v);

/* The storage class of dt (f64 -> ACC64, f16/bf16 -> ACC16, else ACC32). */
vncl__gemm_acc vncl__gemm_acc_of(vncl_dtype dt);
/* The shape class of an m x n x k product. */
vncl__gemm_shape vncl__gemm_shape_of(size_t m, size_t n, size_t k);
const char *vncl__gemm_shape_name(vncl__gemm_shape s);

/* The parameters in force on ctx for (acc, shape), from the parameter store
 * (tuning.h): a set installed on ctx (vncl__gemm_params_set), else ctx's
 * tuning database entry over the built-in row, else the most specific
 * built-in row (the device-rule matcher) that is valid on the device, else
 * the table's defaults, valid everywhere. Never fails. */
void vncl__gemm_params_get(vncl_context *ctx, vncl__gemm_acc acc,
                           vncl__gemm_shape shape, vncl__gemm_params *out);

/* The i-th built-in row's set (every vendor's, whatever the device), the
 * table's defaults after the last row, NULL past that: for tests that build
 * every set. */
const vncl__gemm_params *vncl__gemm_builtin_set(size_t i);

/* Whether the set for (acc, shape) on ctx was installed (by ctx's tuning
 * database or vncl__gemm_params_set): false means a built-in row.
 * Thread-safe. */
bool vncl__gemm_params_installed(vncl_context *ctx, vncl__gemm_acc acc,
                                 vncl__gemm_shape shape);

/* The best built-in row for a device of info's vendor and type with native
 * float width vec, without checking it against the device's limits (or,
 * last_resort, the table's defaults); false when no row matches. For checks
 * that run one vendor's set on another device (test/oclgrind_check.c). */
bool vncl__gemm_params_builtin(const vncl_device_info *info, int vec,
                               vncl__gemm_acc acc, vncl__gemm_shape shape,
                               bool last_resort, vncl__gemm_params *out);

/* Installs a parameter set for (acc, shape) on ctx (the autotuner and tests
 * use it), after validating it; NULL withdraws it (ctx's database entry or
 * built-in row applies again). Sets belong to their context: other
 * contexts on the device keep theirs. Errors: VNCL_ERR_INVALID_ARG naming
 * the rule that the set breaks. Thread-safe. */
vncl_status vncl__gemm_params_set(vncl_context *ctx, vncl__gemm_acc acc,
                                  vncl__gemm_shape shape,
                                  const vncl__gemm_params *p);

/* Checks the part of p that kernel `kern` uses against its divisibility
 * rules and the device's limits (work-group size, preferred multiple on
 * GPUs, local memory). Returns true when valid, else false with the reason
 * in why. */
bool vncl__gemm_params_valid(const vncl_device_info *info,
                             vncl__gemm_kernel kern, vncl__gemm_acc acc,
                             const vncl__gemm_params *p, char *why,
                             size_t cap);

/* The set a product of m*n*k >= p->big_mnk runs gemm_packed_cpu with: p
 * with MB * big_tall rows and NB / big_tall columns a block (rounded down
 * to a multiple of NR, at least NR: any set that is valid stays valid), so
 * about the same area; taller blocks reuse each B sliver over more panels
 * of A (docs/tuning.md, "Blocks for large products"). One factor rather
 * than two sizes keeps the family within the public vncl_tuning_params'
 * 48 names. */
void vncl__gemm_params_big(const vncl__gemm_params *p,
                           vncl__gemm_params *out);

/* Work-items per group of a gemm_small launch of `items` work-items on
 * `cus` compute units under p (gemm.c): SM_WG, or where that would leave
 * the units unequal shares the largest smaller size that does not (1 for
 * too few items); p's SM_WG unchanged where the device wants the multiple. */
size_t vncl__gemm_small_group(const vncl__gemm_params *p, size_t items,
                              size_t cus);

/* gemm_pack's work-group (*l0 x *l1) for g0 x g1 work-items and `batch`
 * products on `cus` compute units under p (gemm.c): p's pack_wg0 x
 * pack_wg1, smaller where that leaves fewer than eight groups a unit. */
void vncl__gemm_pack_local(const vncl__gemm_params *p, size_t g0, size_t g1,
                           size_t batch, size_t cus, size_t *l0, size_t *l1);

/* The one function that turns parameters into build options for `kern`:
 * "-DDTYPE_AB=0 -DDTYPE_C=0 -DMR=6 ...". The whole string keys the program
 * caches. */
void vncl__gemm_options(vncl__gemm_kernel kern, const vncl__gemm_params *p,
                        vncl_dtype ab, vncl_dtype c, char *out, size_t cap);

/* The work-group size kern launches with under p (1 for the CPU kernel). */
size_t vncl__gemm_wg_size(vncl__gemm_kernel kern, const vncl__gemm_params *p);

/* ---- one product, after argument checks (gemm.c) ------------------------ */

/* C(i,j) = c[c_off + g*c_bs + i*ldc + j]; A(i,p) = a[a_off + g*a_bs +
 * i*a_rs + p*a_cs]; B(p,j) = b[b_off + g*b_bs + p*b_rs + j*b_cs]; offsets
 * and strides in elements. Column-major callers are already turned into
 * this row-major form (C^T = B^T A^T). */
typedef struct vncl__gemm_problem {
  vncl_dtype ab, c;
  size_t m, n, k, batch;
  double alpha, beta;
  cl_mem a, b, cm;
  size_t a_off, a_rs, a_cs, a_bs;
  size_t b_off, b_rs, b_cs, b_bs;
  size_t c_off, ldc, c_bs;
  /* C(i,j) at c[c_off + g*c_bs + j*ldc + i]: set only by the packed
   * route's swap (run_own, packed_swap), which only gemm_packed_cpu takes. */
  bool c_t;
  /* gemm_packed_cpu packs B itself, into local memory (B_FUSED): set by
   * run_packed on its copy of the problem (plan_packed, fuse_b). */
  bool b_fused;
} vncl__gemm_problem;

/* ---- the front end: what every GEMM entry checks (gemm.c) ---------------- */

/* A product as a caller states it, before any check: sizes, layout and
 * transposes, leading dimensions and batch strides in elements. Entries
 * fill it with designated initialisers (fields left out are 0). */
typedef struct vncl__gemm_args {
  vncl_dtype dtype;
  vncl_layout layout;
  vncl_trans ta, tb;
  size_t m, n, k, batch;
  size_t lda, ldb, ldc;
  size_t stride_a, stride_b, stride_c;
} vncl__gemm_args;

/* dt is one GEMM takes: i32 is VNCL_ERR_UNSUPPORTED, anything else that is
 * not f32, f64, f16 or bf16 VNCL_ERR_INVALID_ARG ("fn: what is i32; ...").
 * Whether the device has fp64 is the caller's check (one device or a
 * group). ctx may be NULL (the message then goes to the thread's). */
vncl_status vncl__gemm_check_dtype(vncl_context *ctx, const char *fn,
                                   const char *what, vncl_dtype dt);
/* The layout, the transposes and the sizes (each below 2^31). */
vncl_status vncl__gemm_check_form(vncl_context *ctx, const char *fn,
                                  const vncl__gemm_args *g);
/* How operand 'a', 'b' or 'c' is stored: `outer` rows of `inner`
 * elements, ld apart (the caller's layout and transposes applied). */
void vncl__gemm_stored(const vncl__gemm_args *g, char which, size_t *outer,
                       size_t *inner);
/* An operand's leading dimension is at least its row (1 when empty). */
vncl_status vncl__gemm_check_ld(vncl_context *ctx, const char *fn,
                                const char *ldname, size_t ld, size_t inner);
/* With batch > 1, stride_c keeps the matrices of C apart. */
vncl_status vncl__gemm_check_c_overlap(vncl_context *ctx, const char *fn,
                                       const vncl__gemm_args *g);

/* The caller's view of the same product, as CLBlast wants it. */
typedef struct vncl__gemm_blas_args {
  vncl_layout layout;
  vncl_trans ta, tb;
  size_t m, n;
  cl_mem a, b;
  size_t lda, ldb;
  size_t a_offset, b_offset, c_offset;
  size_t stride_a, stride_b, stride_c;
} vncl__gemm_blas_args;

/* Whether the CLBlast backend can run this product on ctx's device. */
bool vncl__gemm_clblast_can(vncl_context *ctx, const vncl__gemm_problem *pr);
/* Called as a context goes: the last context that used CLBlast clears
 * CLBlast's program caches. */
void vncl__gemm_clblast_release(vncl_context *ctx);
/* Runs it through CLBlast (waits for the wait list first). */
vncl_status vncl__gemm_clblast(vncl_context *ctx, const vncl__gemm_problem *pr,
                               const vncl__gemm_blas_args *ba,
                               cl_uint num_wait, const cl_event *wait,
                               cl_event *event);

/* Runs a product through one backend with no wait list and no event:
 * VNCL__GEMM_OWN (our kernels under p, with their fallbacks) or
 * VNCL__GEMM_CLBLAST (the caller has checked vncl__gemm_clblast_can). */
vncl_status vncl__gemm_run_backend(vncl_context *ctx, int backend,
                                   const vncl__gemm_problem *pr,
                                   const vncl__gemm_blas_args *ba,
                                   const vncl__gemm_params *p);

/* ---- the untuned-device probe (gemm_probe.c) ----------------------------- */

/* The backend auto mode takes for the untuned class (acc, shape) on ctx:
 * VNCL__GEMM_OWN or VNCL__GEMM_CLBLAST. The first call for a device and
 * class reads the record beside the binary cache, else times our kernels
 * (under p) against CLBlast on a representative product of the class and
 * stores the winner; later calls answer from memory. While one thread
 * probes, others get VNCL__GEMM_OWN. Never fails: a probe that cannot run
 * answers VNCL__GEMM_OWN. Thread-safe. */
int vncl__gemm_probe_backend(vncl_context *ctx, vncl__gemm_acc acc,
                             vncl__gemm_shape shape,
                             const vncl__gemm_params *p);

/* The record's path for (acc, shape) on ctx's device; false when ctx has
 * no binary cache (the answer then lives in this process only). */
bool vncl__gemm_probe_path(const vncl_context *ctx, vncl__gemm_acc acc,
                           vncl__gemm_shape shape, char *out, size_t cap);

/* For tests: probes measured and records read in this process so far, and
 * forgetting every answer in memory (as a new process would start). */
void vncl__gemm_probe_stats(int *run, int *loaded);
void vncl__gemm_probe_forget(void);

#endif
