/*
 * Shared by the tensor operations (ops_*.c): the tunables of each kernel
 * family (one table each, below), the one function that turns
 * parameters into build options, argument checks, shape collapsing and
 * host-side conversions.
 *
 * Families and their parameters (cl_kernels/<source> documents each macro):
 *
 *   family       source            parameters
 *   elementwise  elementwise.cl    WG, VW, IPT, ITEM_CONTIG, NT_STORE, NT_CACHE
 *   cast         cast.cl           WG, IPT, ITEM_CONTIG, NT_STORE, NT_CACHE
 *                                  (casts, fill, copy)
 *   transpose    transpose.cl      TILE, WGY, ROW_ITEMS, NT_STORE, RUN_NT,
 *                                  NT_CACHE
 *   reduce       reduce.cl         WG, VW, ITEM_CONTIG, ROWS_ITEM, CB, STREAMS,
 *                                  ROWS_BLOCK, ROW_STREAMS
 *   softmax      softmax.cl        WG, VW, ITEM_CONTIG, ROW_ITEM, PREFETCH,
 *                                  ITEM_ROWS, NT_MIN, NT_CACHE
 *   random       random.cl         WG, BPI, NT_CACHE
 *
 * Every parameter reaches the compiler as -DNAME=value through
 * vncl__ops_options, so the full set is part of the program-cache key.
 * ROWS_ITEM and ROWS_BLOCK are also read by the host (which reduction
 * kernel to run), NT_MIN and NT_CACHE only by the host (whether a call's
 * stores are non-temporal: vncl__ops_nt_pays).
 */
#ifndef VNCL_OPS_COMMON_H
#define VNCL_OPS_COMMON_H

#include "tuning/tuning.h"

/* ---- the tunables: one table per family -----------------------------------
 *
 * Each line: P(NAME, default, (full candidates), (quick candidates),
 * "meaning"). NAME is the macro the kernel reads (-DNAME=value) and the
 * name in the tuning database; a family's set is an int array in table
 * order (the enums below name the positions). The defaults are the set for
 * any device (GPU-shaped: many work-items, coalesced steps); per-device
 * sets are rows of data in ops_common.c. From these tables come the
 * positions, the -D option strings, the database names, the candidate
 * checks and the autotuner's search spaces. Adding a tunable: its line
 * here, its macro in the kernel, its test (docs/contributing.md). */
#define VNCL__OPS_WG_VALUES (8, 16, 32, 64, 128, 256, 512, 1024)
#define VNCL__OPS_WG_QUICK (16, 64, 256)

/* Every family that stores non-temporally has this one last: such stores
 * leave the output out of the cache, which pays for calls that would
 * push it out anyway and costs the next call a trip to memory for small
 * ones (docs/ops.md, thirtieth pass). */
#define VNCL__OPS_NT_CACHE(P)                                                  \
  P(NT_CACHE, 3, (0, 1, 2, 3, 4, 6, 8), (3),                                   \
    "non-temporal stores only for calls that move (read plus write) at "       \
    "least this many quarters of the device's global-memory cache (0: any "    \
    "size; read by the host)")

#define VNCL__OPS_ELEMENTWISE_TABLE(P)                                         \
  P(WG, 256, VNCL__OPS_WG_VALUES, VNCL__OPS_WG_QUICK,                          \
    "work-items per work-group")                                               \
  P(VW, 4, (1, 2, 4, 8, 16), (4, 16), "elements per vector load/store")        \
  P(IPT, 1, (1, 2, 4, 8, 16, 32, 64), (1, 16, 64), "vectors per work-item")    \
  P(ITEM_CONTIG, 0, (0, 1), (0, 1),                                            \
    "1: a work-item's vectors are consecutive (CPUs); 0: WG apart (GPUs)")     \
  P(NT_STORE, 0, (0, 1), (0, 1),                                               \
    "1: non-temporal vector stores where the compiler has them")               \
  VNCL__OPS_NT_CACHE(P)

#define VNCL__OPS_CAST_TABLE(P)                                                \
  P(WG, 256, VNCL__OPS_WG_VALUES, VNCL__OPS_WG_QUICK,                          \
    "work-items per work-group")                                               \
  P(IPT, 4, (1, 2, 4, 8, 16, 32, 64), (1, 16, 64), "elements per work-item")   \
  P(ITEM_CONTIG, 0, (0, 1), (0, 1),                                            \
    "1: a work-item's elements are consecutive (CPUs); 0: WG apart (GPUs)")   \
  P(NT_STORE, 0, (0, 1), (0, 1),                                               \
    "1: non-temporal vector stores of casts where the compiler has them")      \
  VNCL__OPS_NT_CACHE(P)

#define VNCL__OPS_TRANSPOSE_TABLE(P)                                           \
  P(TILE, 32, (8, 16, 32, 64), (16, 32, 64),                                   \
    "tile edge in elements (work-group width)")                                \
  P(WGY, 8, (1, 2, 4, 8, 16), (1, 8, 16),                                      \
    "work-group height (tile rows moved at once)")                             \
  P(ROW_ITEMS, 0, (0, 1, 2), (0, 1, 2),                                        \
    "1: a work-item moves whole tile rows (CPUs); 2: a work-item moves a "     \
    "16 x 16 block through registers, TILE x WGY blocks per group (CPUs); "    \
    "0: a tile row is moved by a row of work-items (GPUs)")                   \
  P(NT_STORE, 0, (0, 1), (0, 1),                                               \
    "1: non-temporal stores of whole output lines where the compiler has "     \
    "them (ROW_ITEMS 1 and 2)")                                               \
  P(RUN_NT, 0, (0, 1), (0, 1),                                                 \
    "the CPUs' row copies (innermost axis kept, ROW_ITEMS): 1 non-temporal "   \
    "16-element vector stores from the first aligned one, 0 ordinary stores")  \
  P(LANES, 16, (8, 16), (8, 16),                                               \
    "ROW_ITEMS 2: lanes of the register blocks' transposition, 16 or 8 (CPUs " \
    "with 8-lane vectors: blocks 8 wide for 4- and 8-byte elements, 8 x 8 "    \
    "squares for 2-byte ones)")                                               \
  VNCL__OPS_NT_CACHE(P)

#define VNCL__OPS_REDUCE_TABLE(P)                                              \
  P(WG, 256, VNCL__OPS_WG_VALUES, VNCL__OPS_WG_QUICK,                          \
    "work-items per work-group (power of two)")                                \
  P(VW, 4, (1, 2, 4, 8, 16), (4, 16), "elements per vector load")              \
  P(ITEM_CONTIG, 0, (0, 1), (0, 1),                                            \
    "1: a work-item's part of a row is contiguous (CPUs); 0: interleaved "     \
    "(GPUs)")                                                                  \
  P(ROWS_ITEM, 16, (0, 16, 64, 1024, 16384, 65536), (16, 1024, 65536),         \
    "longest row reduced by one work-item (else a work-group per row)")        \
  P(CB, 1, (1, 2, 4, 8), (1, 4),                                               \
    "vectors of columns per work-item (column reductions)")                    \
  P(STREAMS, 1, (1, 2, 4, 8), (1, 8),                                          \
    "rows of a column strip a work-item reads at once with ITEM_CONTIG "       \
    "(CPUs)")                                                                  \
  P(ROWS_BLOCK, 0, (0, 32, 64, 128, 256), (0, 128),                           \
    "longest row of the rows one work-item reduces VW at a time: rows of "     \
    "2 to VW as whole vectors, longer ones a vector's lanes one row each "     \
    "(0: never)")                                                              \
  P(ROW_STREAMS, 1, (1, 2, 4, 8), (1, 8),                                      \
    "parts of its range of a row a work-item reads at once with ITEM_CONTIG "  \
    "(CPUs)")

#define VNCL__OPS_SOFTMAX_TABLE(P)                                             \
  P(WG, 256, VNCL__OPS_WG_VALUES, VNCL__OPS_WG_QUICK,                          \
    "work-items per work-group, one group per row")                            \
  P(VW, 4, (1, 2, 4, 8, 16), (4, 16), "elements per vector load/store")        \
  P(ITEM_CONTIG, 0, (0, 1), (0, 1),                                            \
    "1: a work-item's part of the row is contiguous (CPUs); 0: interleaved "   \
    "(GPUs)")                                                                  \
  P(ROW_ITEM, 0, (0, 256, 1024, 2048, 4096), (0, 1024, 4096),                  \
    "rows of up to this many elements go to work-items, ITEM_ROWS each "       \
    "(CPUs; 0: one work-group per row always)")                                \
  P(PREFETCH, 0, (0, 1, 2), (0, 1, 2),                                         \
    "with ITEM_CONTIG, the pass that prefetches the next row "                 \
    "(__builtin_prefetch where the compiler has it): 0 none, 1 pass 3 (the "   \
    "stores), 2 pass 2 (the exponentials)")                                    \
  P(ITEM_ROWS, 1, (1, 2, 4, 8), (1, 4),                                        \
    "rows a work-item takes where rows go to work-items (ROW_ITEM), their "    \
    "passes interleaved so that one row's reductions and log overlap the "     \
    "others' work")                                                            \
  P(NT_MIN, 0, (0, 128, 256, 512, 1024, 4096, 65536), (0, 512),               \
    "rows of at least this many elements get non-temporal final stores "       \
    "where every row starts on a whole vector (and the compiler has them); "   \
    "shorter rows ordinary stores (read by the host: NT_OUT)")                 \
  VNCL__OPS_NT_CACHE(P)

#define VNCL__OPS_RANDOM_TABLE(P)                                              \
  P(WG, 256, VNCL__OPS_WG_VALUES, VNCL__OPS_WG_QUICK,                          \
    "work-items per work-group")                                               \
  P(BPI, 1, (1, 2, 4, 8, 16), (1, 16),                                         \
    "Philox blocks per work-item, one per vector lane")                        \
  VNCL__OPS_NT_CACHE(P)

/* The families: F(ENUM, table, "name", "source.cl", enum prefix, position
 * of the work-group size, position of its second factor or -1). */
#define VNCL__OPS_FAMILY_LIST(F)                                               \
  F(ELEMENTWISE, VNCL__OPS_ELEMENTWISE_TABLE, "elementwise",                   \
    "elementwise.cl", EW, 0, -1)                                               \
  F(CAST, VNCL__OPS_CAST_TABLE, "cast", "cast.cl", CAST, 0, -1)                \
  F(TRANSPOSE, VNCL__OPS_TRANSPOSE_TABLE, "transpose", "transpose.cl", TR, 0,  \
    1)                                                                         \
  F(REDUCE, VNCL__OPS_REDUCE_TABLE, "reduce", "reduce.cl", RED, 0, -1)         \
  F(SOFTMAX, VNCL__OPS_SOFTMAX_TABLE, "softmax", "softmax.cl", SM, 0, -1)      \
  F(RANDOM, VNCL__OPS_RANDOM_TABLE, "random", "random.cl", RND, 0, -1)

typedef enum vncl__ops_family {
#define VNCL__OPS_ENUM(E, ...) VNCL__OPS_##E,
  VNCL__OPS_FAMILY_LIST(VNCL__OPS_ENUM)
#undef VNCL__OPS_ENUM
  VNCL__OPS_FAMILIES
} vncl__ops_family;

#define VNCL__OPS_MAX_PARAMS 8 /* the longest table */

/* Each family's parameter set is a small array of ints in table order;
 * these name the positions (EW_WG, CAST_IPT, TR_TILE, RED_ROWS_ITEM, ...). */
#define VNCL__OPS_POS_EW(N, ...) EW_##N,
#define VNCL__OPS_POS_CAST(N, ...) CAST_##N,
#define VNCL__OPS_POS_TR(N, ...) TR_##N,
#define VNCL__OPS_POS_RED(N, ...) RED_##N,
#define VNCL__OPS_POS_SM(N, ...) SM_##N,
#define VNCL__OPS_POS_RND(N, ...) RND_##N,
enum { VNCL__OPS_ELEMENTWISE_TABLE(VNCL__OPS_POS_EW) EW_COUNT };
enum { VNCL__OPS_CAST_TABLE(VNCL__OPS_POS_CAST) CAST_COUNT };
enum { VNCL__OPS_TRANSPOSE_TABLE(VNCL__OPS_POS_TR) TR_COUNT };
enum { VNCL__OPS_REDUCE_TABLE(VNCL__OPS_POS_RED) RED_COUNT };
enum { VNCL__OPS_SOFTMAX_TABLE(VNCL__OPS_POS_SM) SM_COUNT };
enum { VNCL__OPS_RANDOM_TABLE(VNCL__OPS_POS_RND) RND_COUNT };
#define VNCL__OPS_MAX_VALUES 8

/* One tunable as the autotuner and --show see it: the macro, what it
 * means, and the candidates (from the tables above). */
typedef struct vncl__tune_param {
  const char *name;
  const char *meaning;
  int nvalues;
  int values[VNCL__OPS_MAX_VALUES];
  int nquick;
  int quick[VNCL__OPS_MAX_VALUES];
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
/* Family f's table for the parameter store (tuning.h), NULL out of range. */
const vncl__param_family *vncl__ops_family_of(int f);

/* The parameters in force for family f on ctx (from the parameter store:
 * a set installed on ctx, else ctx's database entry, else the most
 * specific built-in row, else the table's defaults), then fitted to the
 * device: work-group size within the device maximum and a multiple of its
 * preferred multiple where that fits, local memory within the device's.
 * values receives VNCL__OPS_MAX_PARAMS ints. */
void vncl__ops_params(vncl_context *ctx, vncl__ops_family f, int *values);

/* The built-in row for family f on a device like info (or the table's
 * defaults), before any fitting to the device's limits, into values
 * (VNCL__OPS_MAX_PARAMS ints); false when f is out of range. For checks
 * that a row fits a vendor's real limits unchanged. */
bool vncl__ops_defaults(const vncl_device_info *info, vncl__ops_family f,
                        int *values);

/* Local memory family f's kernels declare under values, at most (8-byte
 * elements); 0 for the families that declare none. */
size_t vncl__ops_local_bytes(vncl__ops_family f, const int *values);

/* Whether a call that moves `bytes` (read plus written) on ctx's device
 * should store non-temporally, given its family's NT_CACHE: nt_cache 0,
 * or a device that reports no global-memory cache, always; else when the
 * bytes reach nt_cache quarters of that cache (docs/ops.md, thirtieth
 * pass). Each family still needs its NT_STORE (or NT_MIN) and aligned
 * output for such stores. */
bool vncl__ops_nt_pays(const vncl_context *ctx, int nt_cache, double bytes);

/* Sets the parameters of family f on ctx only (the autotuner's entry, also
 * used by tests to check that results do not depend on them). Every value
 * must be one of the table's candidates. values NULL withdraws the set.
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

/* dst = src element for element (the same element count and dtype, the
 * shapes unchecked): vncl_copy's kernel, for permutations that simplify
 * to a copy (ops_cast.c). */
vncl_status vncl__ops_copy_run(vncl_context *ctx, const vncl_tensor *src,
                               vncl_tensor *dst);
/* -DIDX_BITS=32 when every index stays below 2^31, else 64. */
int vncl__ops_idx_bits(size_t max_elements);
/* The vector width for rows of n elements (2 <= n) shorter than a
 * family's vector: the widest power of two they hold (2, 4, 8), a program
 * of its own, for the kernels that take several short rows a work-item. */
size_t vncl__ops_short_vw(size_t n);

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
