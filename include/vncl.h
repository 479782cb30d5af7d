/*
 * vncl: a vendor-neutral compute library on OpenCL.
 *
 * This header is the API contract. Conventions that hold for every function
 * unless its comment says otherwise:
 *
 *  - Status: functions return vncl_status; VNCL_OK (0) is success and every
 *    error is negative. On error nothing is written to the caller's outputs
 *    (out-pointers keep their values, tensors and buffers their contents).
 *  - Messages: after an error, vncl_errmsg(ctx) says what went wrong (the
 *    OpenCL error number is part of it when OpenCL caused the error). The
 *    string belongs to the library and stays valid until the next call on the
 *    same context from the same thread, or until the context is destroyed.
 *    Errors that happen without a context (or before one exists) are kept per
 *    thread and read with vncl_errmsg(NULL).
 *  - NULL: a NULL handle or pointer where one is required gives
 *    VNCL_ERR_INVALID_ARG; destroy functions accept NULL and do nothing.
 *  - Ownership: whatever a *_create function returns belongs to the caller,
 *    who releases it with the matching *_destroy. Tensors must be destroyed
 *    before their context.
 *  - Threads: a vncl_context may be used from several threads at once; its
 *    caches, pools and accounting are locked inside. Work from all threads
 *    goes to the context's single in-order queue. A tensor may be read by
 *    several threads at once, but writing a tensor while another thread uses
 *    it is a data race the caller must avoid (as with any memory).
 *  - Printing: the library never prints, aborts or exits, unless VNCL_LOG asks
 *    it to log (to stderr), or VNCL_PROFILE asks for a summary.
 *
 * Environment variables (each overridden by the matching vncl_options field):
 *   VNCL_DEVICE        device selector (see vncl_device_select)
 *   VNCL_MEMORY_LIMIT  cap on the context's device memory: bytes, or with a
 *                      K/M/G/T suffix (powers of 1024)
 *   VNCL_CACHE_DIR     binary cache folder; "off" disables it. Default
 *                      $XDG_CACHE_HOME/vncl, else ~/.cache/vncl
 *   VNCL_KERNEL_DIR    load kernel sources from this folder instead of the
 *                      copies embedded in the library (for kernel work)
 *   VNCL_LOG           error | warn | info | debug: log to stderr
 *   VNCL_GEMM_BACKEND  own | clblast | ref | auto (default auto; ref: the
 *                      reference kernel only, for checks)
 *   VNCL_GEMM_PROBE    0 | off | 1 | on | force (default 1): under auto, a
 *                      GEMM class without a tuning entry on a non-CPU
 *                      device runs whichever of our built-in kernels and
 *                      CLBlast a one-time probe found faster (kept beside
 *                      the binary cache); force probes CPU devices too.
 *                      Another value: vncl_context_create fails with
 *                      VNCL_ERR_INVALID_ARG
 *   VNCL_TUNING_DB     tuning database file (see docs/tuning.md)
 * Every variable is read with secure_getenv: a set-user-ID or set-group-ID
 * process sees none of them. Variables that name a library to load
 * (VNCL_NVML_LIBRARY, ...) and VNCL_KERNEL_DIR load code by design.
 *
 * Trust on disk (docs/security.md): the binary cache folder and the tuning
 * database, whether named here, in vncl_options or by default, are used only
 * when owned by the effective user or root and writable by no one else, nor
 * any folder above them up to a root-owned or sticky one; files are opened
 * without following symbolic links; folders vncl makes are 0700 and files
 * 0600. A cache or database that fails is not used (a warning under
 * VNCL_LOG=warn): never an error, only slower or untuned.
 */
#ifndef VNCL_H
#define VNCL_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "vncl_version.h"

#if defined(_WIN32)
#define VNCL_API __declspec(dllexport)
#elif defined(__GNUC__)
#define VNCL_API __attribute__((visibility("default")))
#else
#define VNCL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Status codes                                                         */
/* ------------------------------------------------------------------ */

/* One table gives the enum, vncl_status_string() and vncl_status_name().
 * docs/errors.md lists the inputs that produce each. */
#define VNCL_STATUS_MAP(X)                                                    \
  X(OK, 0, "success")                                                         \
  X(ERR_INVALID_ARG, -1, "invalid argument")                                  \
  X(ERR_NO_DEVICE, -2, "no matching OpenCL device")                           \
  X(ERR_OUT_OF_MEMORY, -3, "out of memory")                                   \
  X(ERR_BUILD, -4, "kernel build failed")                                     \
  X(ERR_UNSUPPORTED, -5, "not supported on this device")                      \
  X(ERR_OPENCL, -6, "OpenCL error")                                           \
  X(ERR_IO, -7, "input/output error")                                         \
  X(ERR_TIMEOUT, -8, "timed out")                                             \
  X(ERR_INTERNAL, -9, "internal error")

typedef enum vncl_status {
#define VNCL_STATUS_ENUM_(name, value, text) VNCL_##name = value,
  VNCL_STATUS_MAP(VNCL_STATUS_ENUM_)
#undef VNCL_STATUS_ENUM_
} vncl_status;

/* A static description of a status ("invalid argument"); never NULL, an
 * unknown value gives "unknown status". Thread-safe. */
VNCL_API const char *vncl_status_string(vncl_status s);

/* The enum's name without prefix ("ERR_INVALID_ARG"); never NULL. */
VNCL_API const char *vncl_status_name(vncl_status s);

/* ------------------------------------------------------------------ */
/* Version                                                              */
/* ------------------------------------------------------------------ */

/* VNCL_VERSION_HEX of the library that is loaded (which may differ from the
 * header the program was compiled with). */
VNCL_API unsigned vncl_version(void);
/* "MAJOR.MINOR.PATCH"; static storage. */
VNCL_API const char *vncl_version_string(void);

/* ------------------------------------------------------------------ */
/* Data types                                                           */
/* ------------------------------------------------------------------ */

typedef enum vncl_dtype {
  VNCL_F32 = 0,
  VNCL_F64 = 1,
  VNCL_F16 = 2,  /* IEEE half, storage only: arithmetic is done in f32 */
  VNCL_BF16 = 3, /* bfloat16, storage only: arithmetic is done in f32 */
  VNCL_I32 = 4
} vncl_dtype;

/* Bytes per element, or 0 for a value that is not a vncl_dtype. */
VNCL_API size_t vncl_dtype_size(vncl_dtype t);
/* "f32", "f64", "f16", "bf16", "i32", or "?" */
VNCL_API const char *vncl_dtype_name(vncl_dtype t);

/* Host conversions of the 16-bit storage types, for filling and reading
 * f16/bf16 tensors: a double to the bits of an IEEE half or a bfloat16,
 * rounded to nearest even (subnormals kept, overflow to infinity, NaN to a
 * quiet NaN of the same sign), and the bits back to the exact double they
 * stand for. Pure functions, thread-safe. */
VNCL_API uint16_t vncl_f16_from_double(double x);
VNCL_API double vncl_f16_to_double(uint16_t bits);
VNCL_API uint16_t vncl_bf16_from_double(double x);
VNCL_API double vncl_bf16_to_double(uint16_t bits);

/* ------------------------------------------------------------------ */
/* Devices                                                              */
/* ------------------------------------------------------------------ */

typedef enum vncl_device_type {
  VNCL_DEVICE_GPU = 1,
  VNCL_DEVICE_ACCELERATOR = 2,
  VNCL_DEVICE_CPU = 3,
  VNCL_DEVICE_OTHER = 4
} vncl_device_type;

/* A CPU driver that runs kernels on worker threads of this process (PoCL's
 * CPU device): where the operating system may put them. On a PoCL device
 * with every CPU of the machine open to the process, vncl's first look
 * for devices (vncl_device_count, vncl_context_create, ...) sets
 * POCL_AFFINITY=1 in the environment while the ICD loader starts PoCL and
 * removes it again (child processes do not inherit it), unless
 * POCL_AFFINITY is already set, VNCL_POCL_AFFINITY=0, or OpenCL was
 * started in this process before vncl: pinned workers ran mid-size and
 * large calls up to 2x faster on 2-core guests, and back-to-back tiny
 * calls 1-2.5 us slower (docs/portability.md, "PoCL's worker threads").
 * Being a setenv, it is best made before the program starts threads that
 * read or write the environment. */
typedef enum vncl_worker_affinity {
  VNCL_WORKERS_NONE = 0,          /* no worker threads here (GPUs, ...) */
  VNCL_WORKERS_FREE = 1,          /* left to the operating system */
  VNCL_WORKERS_PINNED = 2,        /* pinned: POCL_AFFINITY set by the user */
  VNCL_WORKERS_PINNED_BY_VNCL = 3 /* pinned: POCL_AFFINITY=1 set by vncl */
} vncl_worker_affinity;

/* What the library knows about a device. Strings are NUL-terminated and cut
 * to fit. Fields the driver does not report are 0 or "". */
typedef struct vncl_device_info {
  int index;          /* position in vncl's default order */
  int platform_index; /* P in the "P:D" selector */
  int device_index;   /* D in the "P:D" selector */
  char name[256];
  char vendor[128];
  char platform[128];
  char platform_version[128];
  char driver_version[128];
  char opencl_version[128];   /* CL_DEVICE_VERSION */
  char opencl_c_version[128]; /* CL_DEVICE_OPENCL_C_VERSION */
  vncl_device_type type;
  unsigned compute_units;
  unsigned max_clock_mhz;
  uint64_t global_mem_bytes;
  uint64_t max_alloc_bytes;
  uint64_t local_mem_bytes;
  size_t max_work_group_size;
  size_t preferred_work_group_multiple; /* warp/wavefront width */
  int fp16;           /* cl_khr_fp16: native half arithmetic */
  int fp64;           /* double precision */
  int unified_memory; /* host and device share memory */
  int compiler_available;
  /* NVIDIA, through cl_nv_device_attribute_query (0 when absent). */
  int nv_compute_capability_major;
  int nv_compute_capability_minor;
  /* AMD, through cl_amd_device_attribute_query ("" / 0 when absent). */
  char amd_board_name[128];
  int amd_gfxip_major;
  int amd_gfxip_minor;
  vncl_worker_affinity worker_affinity;
  /* 1: the driver deadlocks when two commands meet inside it (PoCL's
   * single-threaded device before PoCL 5.0), so vncl enqueues on it one
   * command at a time across the process, and a call given a wait list
   * with an event not yet complete fails with VNCL_ERR_UNSUPPORTED
   * (docs/portability.md, "PoCL's single-threaded device"). */
  int serial_driver;
} vncl_device_info;

/* Counts the OpenCL devices found through the ICD loader. A machine with no
 * platform gives VNCL_ERR_NO_DEVICE with a hint to install an ICD.
 * Thread-safe. */
VNCL_API vncl_status vncl_device_count(int *out);

/* Fills *out for the device at position `index` of the default order: GPUs
 * first (then by global memory, then compute units), then accelerators,
 * then CPUs. Index out of range: VNCL_ERR_INVALID_ARG. Thread-safe. */
VNCL_API vncl_status vncl_device_get_info(int index, vncl_device_info *out);

/* Resolves a selector to a position in the default order. A selector is
 *   NULL or ""      the default (position 0)
 *   "N"             position N
 *   "P:D"           device D of platform P, in the ICD loader's order
 *   "gpu" | "cpu" | "accelerator"   the first device of that type
 *   any other text  the first device whose vendor, name, platform name or
 *                   platform version contains it, ignoring case ("nvidia",
 *                   "amd", "intel", "pocl")
 * No match: VNCL_ERR_NO_DEVICE, and the message lists the devices found.
 * Thread-safe. */
VNCL_API vncl_status vncl_device_select(const char *selector, int *out_index);

/* ------------------------------------------------------------------ */
/* Contexts                                                             */
/* ------------------------------------------------------------------ */

typedef struct vncl_context vncl_context;

/* Options for vncl_context_create. Call vncl_options_init first, then set
 * the fields you care about; a field left at its initial value takes the
 * environment variable named beside it, then the built-in default. */
typedef struct vncl_options {
  size_t struct_size;       /* set by vncl_options_init */
  const char *device;       /* VNCL_DEVICE */
  uint64_t memory_limit;    /* VNCL_MEMORY_LIMIT; 0: none */
  const char *cache_dir;    /* VNCL_CACHE_DIR; "off" disables; used only
                               when trusted (docs/security.md) */
  const char *kernel_dir;   /* VNCL_KERNEL_DIR */
  const char *tuning_db;    /* VNCL_TUNING_DB; read only when trusted */
  uint64_t staging_bytes;   /* VNCL_STAGING_BYTES; 0: default */
} vncl_options;

/* Sets every field to "take the environment / default". */
VNCL_API void vncl_options_init(vncl_options *opts);

/* Creates a context on one device: an OpenCL context, one in-order queue with
 * profiling, and empty program, binary and memory caches. opts may be NULL
 * (everything from the environment). On error *out is untouched and
 * vncl_errmsg(NULL) says why. Errors: VNCL_ERR_INVALID_ARG (out NULL, a bad
 * VNCL_MEMORY_LIMIT), VNCL_ERR_NO_DEVICE, VNCL_ERR_OPENCL. Thread-safe. */
VNCL_API vncl_status vncl_context_create(vncl_context **out,
                                         const vncl_options *opts);

/* Wraps an application's own OpenCL objects (interop). The context and
 * device are required; queue may be NULL, in which case vncl creates one
 * (with profiling). vncl retains what it is given and releases it when the
 * vncl context is destroyed; the caller keeps its own references. A queue
 * without profiling works, but kernel timings are then unavailable. */
VNCL_API vncl_status vncl_context_create_from_cl(vncl_context **out,
                                                 cl_context context,
                                                 cl_device_id device,
                                                 cl_command_queue queue,
                                                 const vncl_options *opts);

/* Waits for the queue and releases the caller's hold on the context. NULL:
 * no-op. Each live tensor also holds the context, so destroying a context
 * before its tensors is safe: the OpenCL objects go when the last tensor is
 * destroyed (a warning is logged, since it is usually a leak). */
VNCL_API void vncl_context_destroy(vncl_context *ctx);

/* Hands out the OpenCL objects behind the context (any pointer may be NULL
 * to skip it). They stay owned by vncl: retain them to keep them past
 * vncl_context_destroy. */
VNCL_API vncl_status vncl_context_cl(vncl_context *ctx, cl_context *c,
                                     cl_command_queue *q, cl_device_id *d);

/* The context's device description. */
VNCL_API vncl_status vncl_context_device_info(vncl_context *ctx,
                                              vncl_device_info *out);

/* The compiled-kernel cache of a context (vncl_options.cache_dir,
 * VNCL_CACHE_DIR, else $XDG_CACHE_HOME/vncl or ~/.cache/vncl), as decided
 * when the context was made. The cache only ever saves time: every state
 * but ON means kernels compile in every process. */
typedef enum vncl_cache_state {
  VNCL_CACHE_ON = 0,        /* in use: dir is the resolved folder */
  VNCL_CACHE_OFF = 1,       /* turned off ("off"), or no folder (no HOME) */
  VNCL_CACHE_UNTRUSTED = 2, /* others could have written it (docs/security.md):
                               off; why says what, fix how to mend it */
  VNCL_CACHE_UNUSABLE = 3   /* could not be made, opened or written: off */
} vncl_cache_state;

typedef struct vncl_cache_info {
  vncl_cache_state state;
  char dir[1024]; /* ON: the folder in use; otherwise the folder asked for
                     ("" when OFF) */
  char why[512];  /* UNTRUSTED, UNUSABLE: the reason, naming the path */
  char fix[512];  /* UNTRUSTED: the command that mends it ("" if none) */
} vncl_cache_info;

/* Fills *out with the state of ctx's binary cache. Errors:
 * VNCL_ERR_INVALID_ARG (ctx or out NULL; nothing written). Thread-safe. */
VNCL_API vncl_status vncl_context_cache_info(const vncl_context *ctx,
                                             vncl_cache_info *out);

/* Builds the library's smallest kernel (an axpy, cl_kernels/selftest.cl)
 * for ctx's device, from the binary cache when it holds it: proves the
 * device's compiler works. *seconds (may be NULL) receives the time the
 * build or load took. Errors: VNCL_ERR_INVALID_ARG (ctx NULL),
 * VNCL_ERR_BUILD (the message carries the build log's start),
 * VNCL_ERR_OPENCL. Thread-safe per the rule above. */
VNCL_API vncl_status vncl_context_selftest(vncl_context *ctx,
                                           double *seconds);

/* Blocks until all work enqueued on the context's queue has finished. */
VNCL_API vncl_status vncl_finish(vncl_context *ctx);

/* The message for the last error on ctx from the calling thread, or with
 * ctx NULL, the calling thread's last error outside any context. Never NULL
 * ("" when there was no error). See the lifetime rule at the top. */
VNCL_API const char *vncl_errmsg(const vncl_context *ctx);

/* ------------------------------------------------------------------ */
/* Memory accounting                                                    */
/* ------------------------------------------------------------------ */

typedef struct vncl_memory_stats {
  uint64_t allocated_bytes; /* device bytes held by live tensors/scratch */
  uint64_t peak_bytes;      /* high-water mark of allocated_bytes */
  uint64_t reserved_bytes;  /* device bytes held: live buffers, rounded up
                               to their size class, plus the allocator's
                               cache of freed ones (vncl_memory_trim) */
  uint64_t limit_bytes;     /* the cap on reserved_bytes (0: none); a
                               request over it first empties the cache */
  uint64_t device_total_bytes; /* CL_DEVICE_GLOBAL_MEM_SIZE */
  uint64_t alloc_count;     /* successful allocations since creation */
  uint64_t free_count;      /* releases since creation */
  uint64_t live_count;      /* allocations alive now */
  uint64_t failed_count;    /* allocations refused (limit or device OOM) */
} vncl_memory_stats;

VNCL_API vncl_status vncl_memory_stats_get(vncl_context *ctx,
                                           vncl_memory_stats *out);
/* Sets peak_bytes to the current allocated_bytes. */
VNCL_API vncl_status vncl_memory_reset_peak(vncl_context *ctx);
/* Releases device memory the allocator keeps cached for reuse. */
VNCL_API vncl_status vncl_memory_trim(vncl_context *ctx);

/* ------------------------------------------------------------------ */
/* Tensors                                                              */
/* ------------------------------------------------------------------ */

#define VNCL_MAX_DIMS 8

typedef struct vncl_tensor vncl_tensor;

/* Creates a row-major, contiguous tensor of 1 to VNCL_MAX_DIMS dimensions,
 * zero-filled. Dimensions may be 0 (an empty tensor). The device memory is
 * touched at creation, so a real device out-of-memory shows here rather
 * than at a later launch. Errors: VNCL_ERR_INVALID_ARG (ctx/shape/out NULL,
 * ndim out of range, a negative dimension, a byte size that overflows, an
 * unknown dtype), VNCL_ERR_OUT_OF_MEMORY (above the context's limit, above
 * the device's maximum allocation, or refused by the device; the message
 * gives requested, allocated and limit bytes), VNCL_ERR_OPENCL. */
VNCL_API vncl_status vncl_tensor_create(vncl_context *ctx, vncl_dtype dtype,
                                        int ndim, const int64_t *shape,
                                        vncl_tensor **out);
/* Releases the tensor's memory back to its context. NULL: no-op. */
VNCL_API void vncl_tensor_destroy(vncl_tensor *t);

/* Blocking copies between host memory and the tensor. `bytes` must equal
 * vncl_tensor_bytes(t); src/dst may be NULL only when bytes is 0. Errors:
 * VNCL_ERR_INVALID_ARG, VNCL_ERR_OPENCL. Thread-safe per the rule above. */
VNCL_API vncl_status vncl_tensor_write(vncl_tensor *t, const void *src,
                                       size_t bytes);
VNCL_API vncl_status vncl_tensor_read(const vncl_tensor *t, void *dst,
                                      size_t bytes);

/* Accessors: NULL tensor gives 0 / NULL / -1. */
VNCL_API vncl_dtype vncl_tensor_dtype(const vncl_tensor *t);
VNCL_API int vncl_tensor_ndim(const vncl_tensor *t);
/* Dimension i (0-based), or -1 when i is out of range. */
VNCL_API int64_t vncl_tensor_dim(const vncl_tensor *t, int i);
VNCL_API size_t vncl_tensor_numel(const vncl_tensor *t);
VNCL_API size_t vncl_tensor_bytes(const vncl_tensor *t);
/* The buffer behind the tensor, owned by vncl (retain it to keep it). The
 * tensor's data starts at vncl_tensor_offset() bytes into it. */
VNCL_API cl_mem vncl_tensor_cl_mem(const vncl_tensor *t);
VNCL_API size_t vncl_tensor_offset(const vncl_tensor *t);
VNCL_API vncl_context *vncl_tensor_context(const vncl_tensor *t);

/* ------------------------------------------------------------------ */
/* GEMM                                                                 */
/* ------------------------------------------------------------------ */

typedef enum vncl_trans { VNCL_NO_TRANS = 0, VNCL_TRANS = 1 } vncl_trans;
typedef enum vncl_layout { VNCL_ROW_MAJOR = 0, VNCL_COL_MAJOR = 1 } vncl_layout;

/* C = alpha * op(A) * op(B) + beta * C on tensors of one context.
 * 2-D: op(A) is [m,k] (A is [k,m] when transposed), op(B) is [k,n], C [m,n].
 * 3-D: a leading batch dimension on all three. A and B share a dtype; C has
 * the same dtype, or f32 when A and B are f16/bf16 (accumulation is f32 for
 * 16-bit storage, f64 for f64). beta == 0: C is not read. Enqueued on the
 * context's queue; a later read of C waits for it. Errors:
 * VNCL_ERR_INVALID_ARG (NULL, shapes or dtypes that do not match, tensors
 * of different contexts), VNCL_ERR_UNSUPPORTED (f64 without fp64, i32),
 * VNCL_ERR_BUILD, VNCL_ERR_OUT_OF_MEMORY (scratch), VNCL_ERR_OPENCL. */
VNCL_API vncl_status vncl_gemm(vncl_context *ctx, vncl_trans ta,
                               vncl_trans tb, double alpha,
                               const vncl_tensor *a, const vncl_tensor *b,
                               double beta, vncl_tensor *c);

/* The same on raw buffers the application owns (any cl_mem of the
 * context's cl_context). Offsets and leading dimensions are in elements.
 * `dtype` is the type of A and B; C has the same type. The call only
 * enqueues: wait with vncl_finish / clFinish, or use the _event variant.
 * Every argument is checked before anything is enqueued (ld below its
 * minimum, sizes that overflow, a buffer too small for offset, ld and size),
 * and nothing is written on error. m == 0 or n == 0: nothing to do; k == 0:
 * C = beta * C. */
VNCL_API vncl_status vncl_gemm_cl(vncl_context *ctx, vncl_dtype dtype,
                                  vncl_layout layout, vncl_trans ta,
                                  vncl_trans tb, size_t m, size_t n, size_t k,
                                  double alpha, cl_mem a, size_t a_offset,
                                  size_t lda, cl_mem b, size_t b_offset,
                                  size_t ldb, double beta, cl_mem c,
                                  size_t c_offset, size_t ldc);

/* Strided batched: batch products, matrix i of A at a_offset + i*stride_a
 * elements, and so on. */
VNCL_API vncl_status vncl_gemm_cl_batched(
    vncl_context *ctx, vncl_dtype dtype, vncl_layout layout, vncl_trans ta,
    vncl_trans tb, size_t m, size_t n, size_t k, double alpha, cl_mem a,
    size_t a_offset, size_t lda, size_t stride_a, cl_mem b, size_t b_offset,
    size_t ldb, size_t stride_b, double beta, cl_mem c, size_t c_offset,
    size_t ldc, size_t stride_c, size_t batch);

/* Event variant of vncl_gemm_cl_batched (batch 1 for a single product):
 * waits for the num_wait events first; when event is not NULL it receives an
 * event (the caller releases it with clReleaseEvent) that completes when C
 * is written. VNCL_ERR_UNSUPPORTED, nothing enqueued, when the device's
 * driver deadlocks on a command that waits for an event not yet complete
 * and one of the wait list is not (PoCL's single-threaded device before
 * PoCL 5.0; docs/portability.md). */
VNCL_API vncl_status vncl_gemm_cl_event(
    vncl_context *ctx, vncl_dtype dtype, vncl_layout layout, vncl_trans ta,
    vncl_trans tb, size_t m, size_t n, size_t k, double alpha, cl_mem a,
    size_t a_offset, size_t lda, size_t stride_a, cl_mem b, size_t b_offset,
    size_t ldb, size_t stride_b, double beta, cl_mem c, size_t c_offset,
    size_t ldc, size_t stride_c, size_t batch, cl_uint num_wait,
    const cl_event *wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

/* Feature areas, each in its own header with the same conventions. */
#include "vncl_transfer.h" /* staging pool, async transfers, events, pinned host memory */
#include "vncl_ops.h"      /* elementwise, reductions, softmax, transpose, casts, random */
#include "vncl_fft.h"      /* FFT through clFFT */
#include "vncl_profile.h"  /* per-context profiling: device time per operation, busy fraction */
#include "vncl_telemetry.h" /* vendor telemetry: utilization, memory, temperature, power, clocks */
#include "vncl_group.h"     /* device groups: GEMM split over every device, device-to-device copies */
#include "vncl_tuning.h"    /* kernel parameters: tables, the set in force, the tuning database */

#endif /* VNCL_H */
