/* vncl ops API: included by vncl.h; see the conventions at the top of vncl.h.
 *
 * Tensor operations: elementwise arithmetic with NumPy broadcasting, unary
 * functions, fill, copy and casts, transpose and permutations of axes,
 * reductions, softmax, and counter-based random numbers. docs/ops.md gives
 * the rules in full, the accuracy of each operation and measured figures.
 *
 * Rules that hold for every function below:
 *  - The caller gives every output tensor; outputs are never allocated.
 *    Every tensor must belong to ctx.
 *  - Calls only enqueue work on the context's in-order queue: a later
 *    vncl_tensor_read (or vncl_finish) sees the result.
 *  - Data types: arithmetic takes f32, f64, f16 and bf16 (16-bit storage is
 *    computed in f32). Inputs and outputs of one call share a dtype unless
 *    the function says otherwise. i32 takes part only in fill, copy, casts,
 *    permutations and as the output of argmax; arithmetic on i32 gives
 *    VNCL_ERR_UNSUPPORTED. f64 arithmetic on a device without fp64 gives
 *    VNCL_ERR_UNSUPPORTED; fill, copy and permutations of f64 only move
 *    bits and work everywhere.
 *  - Errors: VNCL_ERR_INVALID_ARG (NULL ctx or tensor, a tensor of another
 *    context, a dtype mismatch, shapes that do not broadcast or do not
 *    match, an axis out of range, an unknown operation), each with a
 *    message naming the problem; VNCL_ERR_UNSUPPORTED (above);
 *    VNCL_ERR_BUILD; VNCL_ERR_OUT_OF_MEMORY (scratch for split
 *    reductions); VNCL_ERR_OPENCL. On error nothing is enqueued and no
 *    output is written.
 *  - Empty tensors (a dimension of 0) are valid: there is nothing to do.
 *  - Threads: any function may be called from several threads on one
 *    context, as long as no two calls write the same tensor.
 */
#ifndef VNCL_OPS_H
#define VNCL_OPS_H

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Elementwise                                                          */
/* ------------------------------------------------------------------ */

typedef enum vncl_binary_op {
  VNCL_ADD = 0, /* a + b */
  VNCL_SUB = 1, /* a - b */
  VNCL_MUL = 2, /* a * b */
  VNCL_DIV = 3, /* a / b */
  VNCL_MAX = 4, /* larger of a and b; NaN if either is NaN */
  VNCL_MIN = 5, /* smaller of a and b; NaN if either is NaN */
  VNCL_POW = 6  /* a to the power b (C pow semantics) */
} vncl_binary_op;

/* out = op(a, b) with NumPy broadcasting: shapes are aligned on their last
 * dimension, and each pair of dimensions must be equal or one of them 1
 * (a missing leading dimension counts as 1). out's shape must be exactly
 * the broadcast shape. out may be a or b when that input has out's shape
 * (in place). */
VNCL_API vncl_status vncl_binary(vncl_context *ctx, vncl_binary_op op,
                                 const vncl_tensor *a, const vncl_tensor *b,
                                 vncl_tensor *out);

/* out = op(a, s) with a scalar (rounded to the dtype's compute type: f32
 * for f32/f16/bf16). out has a's shape; out may be a. */
VNCL_API vncl_status vncl_binary_scalar(vncl_context *ctx, vncl_binary_op op,
                                        const vncl_tensor *a, double s,
                                        vncl_tensor *out);

/* out = op(s, a): the scalar on the left (s - a, s / a, pow(s, a)). */
VNCL_API vncl_status vncl_scalar_binary(vncl_context *ctx, vncl_binary_op op,
                                        double s, const vncl_tensor *a,
                                        vncl_tensor *out);

/* y = alpha * x + beta * y, x broadcast to y's shape. beta == 0: y is only
 * written (NaN or inf in y do not propagate), as in BLAS. */
VNCL_API vncl_status vncl_axpby(vncl_context *ctx, double alpha,
                                const vncl_tensor *x, double beta,
                                vncl_tensor *y);

typedef enum vncl_unary_op {
  VNCL_NEG = 0,     /* -x */
  VNCL_ABS = 1,     /* |x| */
  VNCL_EXP = 2,     /* e^x */
  VNCL_LOG = 3,     /* natural log; NaN below 0, -inf at 0 */
  VNCL_SQRT = 4,    /* square root; NaN below 0 */
  VNCL_TANH = 5,    /* hyperbolic tangent */
  VNCL_SIGMOID = 6, /* 1 / (1 + e^-x) */
  VNCL_RELU = 7,    /* max(x, 0); NaN stays NaN */
  VNCL_GELU = 8     /* exact GELU, x/2 * erfc(-x/sqrt(2)) (not the tanh
                       approximation) */
} vncl_unary_op;

/* out = f(x), same shape and dtype; out may be x. */
VNCL_API vncl_status vncl_unary(vncl_context *ctx, vncl_unary_op op,
                                const vncl_tensor *x, vncl_tensor *out);

/* ------------------------------------------------------------------ */
/* Fill, copy, casts                                                    */
/* ------------------------------------------------------------------ */

/* Every element of t = value, converted as vncl_cast converts (rounded to
 * nearest even for f32, f16 and bf16). For i32 the value must be a whole
 * number in the i32 range (else VNCL_ERR_INVALID_ARG). Any dtype. */
VNCL_API vncl_status vncl_fill(vncl_context *ctx, vncl_tensor *t,
                               double value);

/* dst = src: same dtype and shape (any dtype). */
VNCL_API vncl_status vncl_copy(vncl_context *ctx, const vncl_tensor *src,
                               vncl_tensor *dst);

/* dst = src converted to dst's dtype; same shape, any pair of f32, f64,
 * f16, bf16, i32. Floating conversions round once to nearest even,
 * overflow to inf and keep NaN a NaN (bf16 included). To i32: toward zero,
 * saturating at the i32 range, NaN gives 0. Same dtypes: a copy. */
VNCL_API vncl_status vncl_cast(vncl_context *ctx, const vncl_tensor *src,
                               vncl_tensor *dst);

/* ------------------------------------------------------------------ */
/* Transpose and permutations of axes                                   */
/* ------------------------------------------------------------------ */

/* out = x with its last two axes swapped (x has 2 or more dimensions; a
 * leading batch is kept). out's shape must be the swapped shape; out must
 * not be x. Any dtype. */
VNCL_API vncl_status vncl_transpose(vncl_context *ctx, const vncl_tensor *x,
                                    vncl_tensor *out);

/* out = x with axes permuted: out dimension i is x dimension perm[i] (as
 * numpy.transpose(x, perm)). perm holds each of 0 .. ndim-1 once; out's
 * shape must be the permuted shape; out must not be x. Any dtype. */
VNCL_API vncl_status vncl_permute(vncl_context *ctx, const vncl_tensor *x,
                                  const int *perm, vncl_tensor *out);

/* ------------------------------------------------------------------ */
/* Reductions                                                           */
/* ------------------------------------------------------------------ */

typedef enum vncl_reduce_op {
  VNCL_REDUCE_SUM = 0,
  VNCL_REDUCE_MEAN = 1,   /* sum / count; NaN over an empty axis */
  VNCL_REDUCE_MAX = 2,    /* NaN if any element is NaN */
  VNCL_REDUCE_MIN = 3,    /* NaN if any element is NaN */
  VNCL_REDUCE_ARGMAX = 4, /* first index of the maximum, a NaN counting as
                             the maximum; out is i32 */
  VNCL_REDUCE_NORM2 = 5   /* sqrt(sum of squares), no rescaling: squares
                             above the dtype's range overflow to inf */
} vncl_reduce_op;

/* Reduces x over one axis (negative counts from the end: -1 is the last).
 * out has x's shape without that axis, or with it set to 1 (keepdims);
 * reducing the only axis of a 1-D tensor gives a tensor of one element.
 * out has x's dtype, or i32 for argmax. Sums are compensated (see
 * docs/ops.md). max, min and argmax over an empty axis: VNCL_ERR_INVALID_ARG;
 * sum and norm give 0 there. out must not be x. */
VNCL_API vncl_status vncl_reduce(vncl_context *ctx, vncl_reduce_op op,
                                 const vncl_tensor *x, int axis,
                                 vncl_tensor *out);

/* Reduces every element of x into out, a tensor of one element (any shape
 * of numel 1). argmax gives the index into x seen as flat (row-major), and
 * needs x to have at most INT32_MAX elements. */
VNCL_API vncl_status vncl_reduce_all(vncl_context *ctx, vncl_reduce_op op,
                                     const vncl_tensor *x, vncl_tensor *out);

/* ------------------------------------------------------------------ */
/* Softmax                                                              */
/* ------------------------------------------------------------------ */

/* out = softmax over the last axis, exp(x - max) / sum(exp(x - max)), and
 * log-softmax, (x - max) - log(sum(exp(x - max))). Same shape and dtype;
 * out may be x. -inf elements give 0 (log: -inf); a row that is all -inf
 * or holds +inf or NaN gives NaN, as in PyTorch. */
VNCL_API vncl_status vncl_softmax(vncl_context *ctx, const vncl_tensor *x,
                                  vncl_tensor *out);
VNCL_API vncl_status vncl_log_softmax(vncl_context *ctx,
                                      const vncl_tensor *x,
                                      vncl_tensor *out);

/* ------------------------------------------------------------------ */
/* Random numbers                                                       */
/* ------------------------------------------------------------------ */

/* Philox4x32-10, counter based: element e of out is a function of (seed,
 * subsequence, offset, e) only, not of the device's work-group layout:
 * uniform numbers are bit-identical on every device and work-group size;
 * normal ones go through log, sin and cos and agree to those functions'
 * accuracy. Element e uses Philox block offset + e / K, where K = 4 values per
 * block for f32, f16 and bf16 and K = 2 for f64; a tensor of n elements
 * uses ceil(n / K) blocks, so pass offset + ceil(n / K) to continue a
 * stream, or another subsequence for an independent one. docs/ops.md gives
 * the exact formulas (a CPU implementation reproduces uniform f32 bit for
 * bit). Arithmetic dtypes only (not i32). */

/* Uniform on [lo, hi): lo + (hi - lo) * u, u = k * 2^-24 (f32; 2^-53 for
 * f64). Rounding (and 16-bit storage) can give hi itself when hi - lo is
 * not a power of two times lo's scale. lo and hi must be finite. */
VNCL_API vncl_status vncl_random_uniform(vncl_context *ctx, vncl_tensor *out,
                                         uint64_t seed, uint64_t subsequence,
                                         uint64_t offset, double lo,
                                         double hi);

/* Normal with the given mean and standard deviation (Box-Muller); stddev
 * must be finite and >= 0, mean finite. */
VNCL_API vncl_status vncl_random_normal(vncl_context *ctx, vncl_tensor *out,
                                        uint64_t seed, uint64_t subsequence,
                                        uint64_t offset, double mean,
                                        double stddev);

#ifdef __cplusplus
}
#endif
#endif
