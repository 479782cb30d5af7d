/*
 * Shared by the tensor operations (ops_*.c): the tunable parameter spaces
 * of each kernel family with their defaults, the one function that turns
 * parameters into build options, argument checks, shape collapsing and
 * host-side conversions.
 *
 * Families and their parameters (cl_kernels/<source> documents each macro):
 *
 *   family       source            parameters
 *   elementwise  elementwise.cl    WG, VW, IPT, ITEM_CONTIG, NT_STORE
 *   cast         cast.cl           WG, IPT, ITEM_CONTIG   (casts, fill, copy)
 *   transpose    transpose.cl      TILE, WGY, ROW_ITEMS
 *   reduce       reduce.cl         WG, VW, ITEM_CONTIG, ROWS_ITEM, CB
 *   softmax      softmax.cl        WG, VW, ITEM_CONTIG
 *   random       random.cl         WG, BPI
 *
 * Every parameter reaches the compiler as -DNAME=value through
 * vncl__ops_options, so the full set is part of the program-cache key.
 * ROWS_ITEM is also read by the host (which reduction kernel to run).
 */
#ifndef VNCL_OPS_COMMON_H
#define VNCL_OPS_COMMON_H

#include "runtime/runtime.h"

typedef enum vncl__ops_family {
  VNCL__OPS_ELEMENTWISE = 0,
  VNCL__OPS_CAST,
  VNCL__OPS_TRANSPOSE,
  VNCL__OPS_REDUCE,
  VNCL__OPS_SOFTMAX,
  VNCL__OPS_RANDOM,
  VNCL__OPS_FAMILIES
} vncl__ops_family;

#define VNCL__OPS_MAX_PARAMS 6 /* matches vncl_context.ops_params */

/* Each family's parameter set is a small array of ints in the order of its
 * space (vncl__ops_space); these name the positions. */
enum { EW_WG, EW_VW, EW_IPT, EW_ITEM_CONTIG, EW_NT_STORE };
enum { CAST_WG, CAST_IPT, CAST_ITEM_CONTIG };
enum { TR_TILE, TR_WGY, TR_ROW_ITEMS };
enum { RED_WG, RED_VW, RED_ITEM_CONTIG, RED_ROWS_ITEM, RED_CB };
enum { SM_WG, SM_VW, SM_ITEM_CONTIG };
enum { RND_WG, RND_BPI };
#define VNCL__OPS_MAX_VALUES 8

/* One tunable: the macro that reaches the compiler, what it means, and the
 * candidate values an autotuner should try. */
typedef struct vncl__tune_param {
  const char *name;
  const char *meaning;
  int nvalues;
  int values[VNCL__OPS_MAX_VALUES];
} vncl__tune_param;

/* A family's search space. The work-group size is params[wg] times
 * params[wg2] when wg2 >= 0. */
typedef struct vncl__tune_space {
  const char *family; /* "elementwise" */
  const char *source; /* "elementwise.cl" */
  int nparams;
  vncl__tune_param params[VNCL__OPS_MAX_PARAMS];
  int wg, wg2;
} vncl__tune_space;

/* The space of family f, or NULL when f is out of range. */
const vncl__tune_space *vncl__ops_space(int f);

/* The parameters in force for family f on ctx: the autotuner's values if it
 * set some, else the defaults table (vendor -> device type -> global),
 * then fitted to the device: work-group size within the device maximum and
 * a multiple of its preferred multiple where that fits, local memory within
 * the device's. values receives VNCL__OPS_MAX_PARAMS ints. */
void vncl__ops_params(vncl_context *ctx, vncl__ops_family f, int *values);

/* The defaults table's row for family f on a device like info, before any
 * fitting to the device's limits (NULL when f is out of range). For checks
 * that a row fits a vendor's real limits unchanged. */
const int *vncl__ops_defaults(const vncl_device_info *info,
                              vncl__ops_family f);

/* Sets the parameters of family f on ctx (the autotuner's entry, also used
 * by tests to check that results do not depend on them). Every value must
 * be one of the space's candidates. values NULL restores the defaults.
 * Errors: VNCL_ERR_INVALID_ARG naming the bad value. Thread-safe. */
vncl_status vncl__ops_params_set(vncl_context *ctx, vncl__ops_family f,
                                 const int *values);

/* The build options for family f: "-DWG=256 -DVW=4 -DIPT=1" followed by
 * `extra` (dtype and index macros). The full string keys the program
 * caches. */
void vncl__ops_options(vncl__ops_family f, const int *values,
                       const char *extra, char *out, size_t cap);

/* The runtime's kernel handle and typed argument (runtime.h) under the
 * names the family files use. */
typedef vncl__kernel vncl__ops_kernel;
typedef vncl__targ vncl__ops_arg;
#define VNCL_OPS_ARG(a) VNCL_TARG(a)

/* Builds (or finds) `name` in family f's source with the family's
 * parameters `values` plus `extra`, and checks the kernel accepts the
 * work-group size the parameters ask for; where the compiled kernel allows
 * fewer work-items (registers), the work-group parameter is halved and the
 * program rebuilt, and `values` updated to what the launch must use. */
vncl_status vncl__ops_kernel_get(vncl_context *ctx, vncl__ops_family f,
                                 int *values, const char *extra,
                                 const char *name, vncl__kernel *out);
static inline void vncl__ops_kernel_put(vncl_context *ctx, vncl__kernel *k) {
  vncl__kernel_put(ctx, k);
}

/* An index (IDX in the kernels): cl_uint for 32 bits, cl_ulong for 64. */
vncl__targ vncl__ops_idx(int bits, size_t v);
/* An IDX8 vector from up to 8 values (the rest 1). */
vncl__targ vncl__ops_idx8(int bits, const size_t *v, int n);
/* A scalar of the kernels' compute type (vncl__real_arg). */
static inline vncl__targ vncl__ops_real(vncl_dtype dt, double v) {
  return vncl__real_arg(dt, v);
}

/* Round n up to a multiple of m (m > 0). */
static inline size_t vncl__round_up(size_t n, size_t m) {
  return (n + m - 1) / m * m;
}

/* ---- argument checks: each records a message naming `fn` and `what` ---- */

/* ctx not NULL. */
vncl_status vncl__ops_check_ctx(const vncl_context *ctx, const char *fn);
/* t not NULL and belongs to ctx. */
vncl_status vncl__ops_check_tensor(vncl_context *ctx, const vncl_tensor *t,
                                   const char *fn, const char *what);
/* t's dtype is one arithmetic works on (f32, f64, f16, bf16), and the
 * device has fp64 when it is f64. */
vncl_status vncl__ops_check_arith(vncl_context *ctx, const vncl_tensor *t,
                                  const char *fn, const char *what);
/* a and b have the same dtype. */
vncl_status vncl__ops_check_same_dtype(vncl_context *ctx,
                                       const vncl_tensor *a,
                                       const vncl_tensor *b, const char *fn,
                                       const char *aname, const char *bname);
/* a and b have the same shape. */
vncl_status vncl__ops_check_same_shape(vncl_context *ctx,
                                       const vncl_tensor *a,
                                       const vncl_tensor *b, const char *fn,
                                       const char *aname, const char *bname);

/* "[2, 3, 4]" into buf (vncl__shape_str). */
static inline const char *vncl__ops_shape_str(int ndim, const int64_t *shape,
                                              char *buf, size_t cap) {
  return vncl__shape_str(ndim, shape, buf, cap);
}

/* -DIDX_BITS=32 when every index stays below 2^31, else 64. */
int vncl__ops_idx_bits(size_t max_elements);

/* The tensor's offset in elements of its dtype. */
static inline size_t vncl__ops_elem_offset(const vncl_tensor *t) {
  return t->offset / vncl_dtype_size(t->dtype);
}

/* ---- layouts: an output's dimensions with each operand's strides ------- */

typedef struct vncl__ops_layout {
  int nd;                          /* dimensions, outermost first */
  size_t shape[VNCL_MAX_DIMS];
  size_t stride[3][VNCL_MAX_DIMS]; /* per operand, in elements; 0: broadcast */
  int nops;
} vncl__ops_layout;

/* Drops dimensions of size 1 and merges neighbours that are contiguous in
 * every operand. Leaves at least one dimension. */
void vncl__ops_collapse(vncl__ops_layout *l);


#endif
