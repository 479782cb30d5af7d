/* vncl fft API: included by vncl.h; see the conventions at the top of vncl.h.
 *
 * Fast Fourier transforms of 1, 2 or 3 dimensions on vncl tensors, through
 * clFFT or vncl's own Stockham kernels (lengths 2^a 3^b 5^c 7^d 11^e 13^f;
 * the default on CPU and GPU devices, see vncl_fft_backend), with a
 * Bluestein (chirp-z) path of vncl's own for the other lengths (prime
 * factors above 13).
 * docs/fft.md has the details and the figures measured.
 *
 * Layout. Complex data are interleaved (re, im) pairs in an f32 or f64
 * tensor whose last dimension is 2. A transform of logical lengths
 * n[0..ndim) (row-major: n[ndim-1] varies fastest) over `batch` signals
 * reads and writes these tensor shapes, where B... is any run of leading
 * dimensions whose product is the batch (none when batch is 1) and
 * h = n[ndim-1]/2 + 1:
 *
 *   C2C  in  [B..., n..., 2]                 out  the same
 *   R2C  in  [B..., n...] (real)             out  [B..., n[0..ndim-1), h, 2]
 *   C2R  in  [B..., n[0..ndim-1), h, 2]      out  [B..., n...] (real)
 *
 * R2C and C2R in place use one tensor of the complex shape; the real data
 * then sit in rows of 2h values whose first n[ndim-1] are used (the FFTW and
 * cuFFT convention).
 *
 * Sign and scale. FORWARD computes X[k] = sum_j x[j] exp(-2 pi i jk/N) and
 * INVERSE the same with +i; the scale is chosen by vncl_fft_norm, by default
 * NumPy's: the inverse is multiplied by 1/N (N = product of the logical
 * lengths), so that INVERSE(FORWARD(x)) == x. R2C is a forward transform and
 * C2R an inverse one. C2R expects the spectrum of a real signal (Hermitian
 * symmetric), as FFTW and cuFFT do; for other input the result depends on
 * the engine.
 *
 * Cost. A plan that runs on clFFT bakes clFFT kernels the first time its
 * configuration is seen in a context (seconds on a CPU device with an empty
 * driver cache); the context keeps every baked configuration, so a repeated
 * transform, through a new plan or the one-shot call, never bakes again.
 */
#ifndef VNCL_FFT_H
#define VNCL_FFT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vncl_fft_type {
  VNCL_FFT_C2C = 0, /* complex to complex, either direction */
  VNCL_FFT_R2C = 1, /* real to complex (Hermitian half), forward only */
  VNCL_FFT_C2R = 2  /* complex (Hermitian half) to real, inverse only */
} vncl_fft_type;

typedef enum vncl_fft_direction {
  VNCL_FFT_FORWARD = -1, /* exp(-2 pi i jk/N) */
  VNCL_FFT_INVERSE = 1   /* exp(+2 pi i jk/N) */
} vncl_fft_direction;

/* Which direction carries the 1/N (the names are NumPy's `norm`). */
typedef enum vncl_fft_norm {
  VNCL_FFT_NORM_BACKWARD = 0, /* forward unscaled, inverse 1/N (default) */
  VNCL_FFT_NORM_ORTHO = 1,    /* both 1/sqrt(N) */
  VNCL_FFT_NORM_FORWARD = 2,  /* forward 1/N, inverse unscaled */
  VNCL_FFT_NORM_NONE = 3      /* neither (FFTW's and cuFFT's convention) */
} vncl_fft_norm;

/* Which kernels run the transform. AUTO takes VNCL_FFT_BACKEND from the
 * environment ("auto", "clfft" or "vncl"), then the device's default: vncl's
 * own Stockham kernels on CPU devices, where they measured several times
 * faster than clFFT, and on GPUs, where clFFT's in-place kernels have data
 * races under the OpenCL memory model (docs/fft.md); clFFT elsewhere. VNCL
 * runs every length whose prime factors are in {2,3,5,7,11,13} on vncl's
 * kernels and the others on the Bluestein path (its convolution on vncl's
 * kernels too); CLFFT runs everything clFFT can do on clFFT. */
typedef enum vncl_fft_backend {
  VNCL_FFT_BACKEND_AUTO = 0,
  VNCL_FFT_BACKEND_CLFFT = 1,
  VNCL_FFT_BACKEND_VNCL = 2
} vncl_fft_backend;

/* What a plan computes. Call vncl_fft_desc_init first, then set the fields. */
typedef struct vncl_fft_desc {
  size_t struct_size;  /* set by vncl_fft_desc_init */
  vncl_fft_type type;  /* default VNCL_FFT_C2C */
  vncl_dtype dtype;    /* VNCL_F32 (default) or VNCL_F64 */
  int ndim;            /* 1, 2 or 3 (default 1) */
  int64_t n[3];        /* logical lengths, each >= 1; for R2C/C2R the real
                          lengths. n[ndim..3) are ignored */
  int64_t batch;       /* signals per execution, >= 1 (default 1) */
  int in_place;        /* 1: execute with in == out; 0 (default): two
                          distinct tensors */
  vncl_fft_norm norm;  /* default VNCL_FFT_NORM_BACKWARD */
  vncl_fft_backend backend; /* default VNCL_FFT_BACKEND_AUTO */
} vncl_fft_desc;

/* Sets the defaults listed above. NULL: no-op. */
VNCL_API void vncl_fft_desc_init(vncl_fft_desc *desc);

typedef struct vncl_fft_plan vncl_fft_plan;

/* Makes a plan for `desc` on ctx: finds the clFFT configuration in the
 * context's cache or bakes it (slow the first time, see above), builds the
 * kernels, and reserves the scratch memory the transform needs, so that an
 * out-of-memory shows here rather than at execution. The plan holds a
 * reference to ctx. Lengths whose prime factors are all in
 * {2,3,5,7,11,13} run on vncl's Stockham kernels when the backend is VNCL
 * and on clFFT otherwise, others on the Bluestein path (5 to 10 times the
 * work of a direct length of the same size). Errors: VNCL_ERR_INVALID_ARG
 * (NULL, struct_size not from vncl_fft_desc_init, type, dtype, ndim, norm,
 * backend or in_place out of range, a length or batch below 1, sizes that
 * overflow, a bad VNCL_FFT_BACKEND), VNCL_ERR_UNSUPPORTED (f64 on a device
 * without fp64), VNCL_ERR_OUT_OF_MEMORY, VNCL_ERR_BUILD, VNCL_ERR_OPENCL
 * (clFFT's status is named in the message). Thread-safe: plans are made
 * under the context's FFT lock, so two threads asking for a new
 * configuration bake it once. */
VNCL_API vncl_status vncl_fft_plan_create(vncl_context *ctx,
                                          const vncl_fft_desc *desc,
                                          vncl_fft_plan **out);

/* Enqueues the transform on the context's queue (a later read of `out`
 * waits for it). `in` and `out` are tensors of the plan's context and dtype
 * with the shapes listed at the top; in == out exactly when the plan is in
 * place. Out of place, `in` is left unchanged for C2C and R2C; C2R may use
 * it as scratch (as clFFT, FFTW and cuFFT do). R2C takes only FORWARD and
 * C2R only INVERSE. Errors: VNCL_ERR_INVALID_ARG (NULL, a direction the type
 * does not allow, dtype or shape that does not match the plan, in == out for
 * an out-of-place plan or the reverse, tensors of another context, distinct
 * tensors sharing memory), VNCL_ERR_OUT_OF_MEMORY, VNCL_ERR_OPENCL; on error
 * nothing is enqueued. Thread-safe: one plan may be executed by several
 * threads at once on different tensors. */
VNCL_API vncl_status vncl_fft_execute(vncl_fft_plan *plan,
                                      vncl_fft_direction dir,
                                      const vncl_tensor *in, vncl_tensor *out);

/* Releases the plan (its clFFT configuration stays cached in the context
 * until the context goes). NULL: no-op. */
VNCL_API void vncl_fft_plan_destroy(vncl_fft_plan *plan);

/* The plan's description, with in/out shapes implied; NULL plan or out:
 * VNCL_ERR_INVALID_ARG. */
VNCL_API vncl_status vncl_fft_plan_desc(const vncl_fft_plan *plan,
                                        vncl_fft_desc *out);

/* How the plan runs: "clfft" (one clFFT plan does it all), "stockham"
 * (every axis on vncl's Stockham kernels), "bluestein" (axis by axis, at
 * least one axis through vncl's chirp-z path), "rader" (axis by axis, at
 * least one prime axis through vncl's Rader path and none through
 * Bluestein) or "axes" (another mix of the above).
 * Static string; NULL plan gives "". */
VNCL_API const char *vncl_fft_plan_algorithm(const vncl_fft_plan *plan);

/* One-shot transform of the last `ndim` logical dimensions of the tensors,
 * the leading ones being the batch: C2C takes the lengths from `in`, R2C
 * from `in` (real), C2R from `out` (real). Equivalent to a plan made,
 * executed and destroyed, and as cheap as that after the first call of a
 * configuration (the context's cache keeps it). in == out runs in place,
 * for C2C only: a real transform in place needs a plan because the last
 * length (2h-2 or 2h-1) is ambiguous. A batch of 0 (a leading dimension of
 * 0) does nothing. Errors: as vncl_fft_plan_create and vncl_fft_execute. */
VNCL_API vncl_status vncl_fft(vncl_context *ctx, vncl_fft_type type,
                              vncl_fft_direction dir, int ndim,
                              vncl_fft_norm norm, const vncl_tensor *in,
                              vncl_tensor *out);

/* The context's FFT cache, for tests, tuning and `vncl bench`. */
typedef struct vncl_fft_stats {
  uint64_t cached_plans; /* clFFT configurations held by the context */
  uint64_t bakes;        /* clfftBakePlan calls so far */
  double bake_seconds;   /* time spent in them */
  uint64_t hits;         /* plan lookups answered by the cache */
  uint64_t misses;       /* lookups that had to bake */
  uint64_t device_bytes; /* scratch and chirp tables held */
} vncl_fft_stats;

/* Fills *out (zeros when the context never ran an FFT). Thread-safe. */
VNCL_API vncl_status vncl_fft_stats_get(vncl_context *ctx,
                                        vncl_fft_stats *out);

#ifdef __cplusplus
}
#endif
#endif
