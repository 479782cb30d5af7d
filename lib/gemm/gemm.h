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
 */
#ifndef VNCL_GEMM_INTERNAL_H
#define VNCL_GEMM_INTERNAL_H

#include "runtime/runtime.h"

/* Which kernel a launch uses. */
typedef enum vncl__gemm_kernel {
  VNCL__GEMM_REF = 0,
  VNCL__GEMM_DIRECT,
  VNCL__GEMM_PACKED_CPU,
  VNCL__GEMM_PACKED_LOCAL,
  VNCL__GEMM_PACK, /* the packing kernels (gemm_pack, gemm_pack_elem) */
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

/* Accumulation classes: f32, f16 and bf16 accumulate in float, f64 in
 * double; f16/bf16 are packed into f32 scratch, so they share f32's sets. */
typedef enum vncl__gemm_acc {
  VNCL__GEMM_ACC32 = 0,
  VNCL__GEMM_ACC64,
  VNCL__GEMM_ACCS
} vncl__gemm_acc;

typedef enum vncl__gemm_backend {
  VNCL__GEMM_OWN = 0,
  VNCL__GEMM_CLBLAST = 1
} vncl__gemm_backend;

/* gemm_direct.cl: WGD_M, WGD_N, LDM, LDN, KWGD, VWD, DIRECT_LOCAL. */
typedef struct vncl__gemm_direct_params {
  int wgd_m, wgd_n; /* C tile per work-group */
  int ldm, ldn;     /* work-items per group along rows / columns */
  int kwgd;         /* local slice depth (local) or depth unroll */
  int vwd;          /* vector width over a work-item's columns (not local) */
  int local;        /* stage A and B through local memory */
} vncl__gemm_direct_params;

/* gemm_packed_cpu.cl: MR, NR, VW, MB, NB, KC, KU, ORDER, A_PACKED. */
typedef struct vncl__gemm_cpu_params {
  int mr, nr;   /* register micro-tile */
  int vw;       /* vector width of B loads and accumulators */
  int mb, nb;   /* C block per work-item */
  int kc;       /* depth chunk (0: none) */
  int ku;       /* depth unroll; packed depth is a multiple */
  int order;    /* 0: micro-tile columns outer, 1: rows outer */
  int a_packed; /* 0: read A in place (skips packing A) */
} vncl__gemm_cpu_params;

/* gemm_packed_local.cl: MWG, NWG, KWG, MDIMC, NDIMC, VWM, VWN, KWI, SA, SB. */
typedef struct vncl__gemm_local_params {
  int mwg, nwg, kwg; /* C tile per work-group, local slice depth */
  int mdimc, ndimc;  /* work-items per group along rows / columns */
  int vwm, vwn;      /* vector widths of A / B reads */
  int kwi;           /* depth unroll inside a slice */
  int sa, sb;        /* stage A / B in local memory */
} vncl__gemm_local_params;

/* Everything that decides how one (device, accumulation, shape class) runs. */
typedef struct vncl__gemm_params {
  int backend;        /* vncl__gemm_backend; auto mode follows it */
  int fast;           /* VNCL__GEMM_PACKED_CPU or VNCL__GEMM_PACKED_LOCAL */
  double switch_mnk;  /* m*n*k at and above which pack + fast kernel runs */
  double switch_mnk_bt; /* the same when B's columns are strided (B^T in the
                         * row-major form): the direct kernel then gathers B */
  int pack_elem;      /* packing: 1 gemm_pack_elem (GPUs), 0 gemm_pack */
  int pack_wg0, pack_wg1; /* gemm_pack work-group (ignored by _elem) */
  vncl__gemm_direct_params direct;
  vncl__gemm_cpu_params cpu;
  vncl__gemm_local_params local;
} vncl__gemm_params;

/* The accumulation class of storage type dt (f64 -> ACC64, else ACC32). */
vncl__gemm_acc vncl__gemm_acc_of(vncl_dtype dt);
/* The shape class of an m x n x k product. */
vncl__gemm_shape vncl__gemm_shape_of(size_t m, size_t n, size_t k);
const char *vncl__gemm_shape_name(vncl__gemm_shape s);

/* The parameters in force on ctx for (acc, shape): a set the tuner put there
 * (vncl__gemm_params_set) if any, else the first built-in default (table:
 * vendor -> device type -> global fallback, most specific first) that is
 * valid on the device. Never fails: the last rows are valid everywhere. */
void vncl__gemm_params_get(vncl_context *ctx, vncl__gemm_acc acc,
                           vncl__gemm_shape shape, vncl__gemm_params *out);

/* The i-th row of the built-in table (every vendor's, whatever the
 * device), NULL past the last: for tests that build every set. */
const vncl__gemm_params *vncl__gemm_builtin_set(size_t i);

/* Whether a set was installed for (acc, shape) on ctx's device (by the
 * tuning database or a test): false means the built-in table. Thread-safe. */
bool vncl__gemm_params_installed(vncl_context *ctx, vncl__gemm_acc acc,
                                 vncl__gemm_shape shape);

/* Installs a parameter set for (acc, shape) on ctx's device (the tuning
 * database's entry point; tests use it too), after validating it; NULL
 * restores the built-in defaults. The sets are per device and shared by
 * every context on it. Errors: VNCL_ERR_INVALID_ARG naming the rule that the
 * set breaks. Thread-safe. */
/* The first built-in row that matches a device of info's vendor and type
 * with native float width vec, without checking it against the device's
 * limits (or the last-resort row); false when no row matches. For checks
 * that run one vendor's set on another device (test/oclgrind_check.c). */
bool vncl__gemm_params_builtin(const vncl_device_info *info, int vec,
                               vncl__gemm_acc acc, vncl__gemm_shape shape,
                               bool last_resort, vncl__gemm_params *out);

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
