/*
 * Internal API shared by the files of lib/. Nothing here is exported: the
 * library is built with -fvisibility=hidden and only VNCL_API names leave
 * it. Internal non-static names start with vncl__.
 *
 * Layers (docs/architecture.md draws them):
 *   api files (tensor.c, gemm.c, ...)   check arguments, pick kernels
 *   program.c / binary_cache.c          build programs, cache binaries
 *   alloc.c                             device memory, accounting, limit
 *   launch.c                            every enqueue goes through here
 *   context.c / device.c                OpenCL objects, discovery
 *   status.c / log.c / util.c           errors, messages, helpers
 */
#ifndef VNCL_INTERNAL_H
#define VNCL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>

#include "vncl.h"
#include "fault.h" /* routes calls through fault injection in test builds */

#define VNCL_UNUSED(x) ((void)(x))

typedef struct vncl__profiler vncl__profiler; /* profile.c */

/* ---- status and messages (status.c) ---------------------------------- */

/* Records a formatted message for (ctx, calling thread), logs it at "error"
 * level when VNCL_LOG asks, and returns s. ctx may be NULL. */
vncl_status vncl__fail(const vncl_context *ctx, vncl_status s, const char *fmt,
                       ...) __attribute__((format(printf, 3, 4)));
/* Maps an OpenCL error to a vncl_status and records "<what>: <CL name> (<n>)".
 * CL_MEM_OBJECT_ALLOCATION_FAILURE / CL_OUT_OF_RESOURCES / CL_OUT_OF_HOST_MEMORY
 * map to VNCL_ERR_OUT_OF_MEMORY, CL_BUILD_PROGRAM_FAILURE to VNCL_ERR_BUILD,
 * the rest to VNCL_ERR_OPENCL. */
vncl_status vncl__cl_fail(const vncl_context *ctx, cl_int err, const char *what);
const char *vncl__cl_error_name(cl_int err);
/* Clears the calling thread's message for ctx (used when ctx is new). */
void vncl__clear_error(const vncl_context *ctx);

/* ---- logging (log.c) --------------------------------------------------- */

enum { VNCL_LOG_OFF = 0, VNCL_LOG_ERROR, VNCL_LOG_WARN, VNCL_LOG_INFO,
       VNCL_LOG_DEBUG };
int vncl__log_level(void);
void vncl__log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- helpers (util.c) -------------------------------------------------- */

/* 64-bit FNV-1a, chained through `h` (start with VNCL_FNV_SEED). */
#define VNCL_FNV_SEED 0xcbf29ce484222325ULL
uint64_t vncl__hash(const void *data, size_t len, uint64_t h);
/* Parses "123", "64K", "1.5G" (powers of 1024). Returns false on junk. */
bool vncl__parse_bytes(const char *s, uint64_t *out);
/* a*b into *out; false on overflow. */
bool vncl__mul_overflow(size_t a, size_t b, size_t *out);
/* mkdir -p: creates `path` and its missing parents (0755); true when the
 * folder exists afterwards. */
bool vncl__make_dirs(const char *path);
/* Case-insensitive substring test. */
bool vncl__contains_nocase(const char *hay, const char *needle);
/* strncpy that always terminates. */
void vncl__strlcpy(char *dst, const char *src, size_t cap);
/* Environment lookup that treats "" as unset. */
const char *vncl__getenv(const char *name);
/* Monotonic seconds. */
double vncl__now(void);

/* ---- devices (device.c) ------------------------------------------------ */

typedef struct vncl__device {
  cl_platform_id platform;
  cl_device_id device;
  vncl_device_info info;
} vncl__device;

/* The process-wide list of devices in default order, discovered once.
 * Returns VNCL_ERR_NO_DEVICE (with the ICD hint) when there are none. */
vncl_status vncl__devices(const vncl__device **list, int *count);
/* Reads the description of one device (also used for interop devices). */
void vncl__device_describe(cl_platform_id p, cl_device_id d,
                           vncl_device_info *out);

/* ---- kernel sources (generated build/kernels_gen.c) --------------------- */

typedef struct vncl__source {
  const char *name; /* file name in cl_kernels/, e.g. "gemm_ref.cl" */
  const char *text;
  size_t len;
} vncl__source;
extern const vncl__source vncl__sources[];
extern const size_t vncl__source_count;

/* ---- programs and kernels (program.c, binary_cache.c) -------------------- */

typedef struct vncl__program vncl__program;

/* Returns the built program for (source file, options) on ctx's device:
 * from the in-memory cache, else the on-disk binary cache, else compiled
 * from source (then stored in both). `source` names a file of cl_kernels/
 * ("gemm_ref.cl"). The program stays owned by the context. A build failure
 * gives VNCL_ERR_BUILD with the build log in the message. Thread-safe. */
vncl_status vncl__program_get(vncl_context *ctx, const char *source,
                              const char *options, vncl__program **out);
/* The build log of prog on ctx's device (truncated to cap); false when
 * the driver gives none. A program loaded from the binary cache has an
 * empty log: a cache that is "off" forces real builds. */
bool vncl__build_log(vncl_context *ctx, cl_program prog, char *out,
                     size_t cap);
/* The (source, options, program) of every program ctx holds, newest
 * first: fills up to cap and returns how many there are. The strings stay
 * valid while ctx lives. For tests and diagnostics. */
int vncl__programs_list(vncl_context *ctx, const char **sources,
                        const char **options, cl_program *progs, int cap);
/* Takes a kernel object out of the program's pool (creating one if every
 * pooled one is in use), so that two threads never set arguments on the same
 * cl_kernel. Give it back with vncl__kernel_release. */
vncl_status vncl__kernel_acquire(vncl_context *ctx, vncl__program *p,
                                 const char *name, cl_kernel *out);
void vncl__kernel_release(vncl_context *ctx, vncl__program *p,
                          const char *name, cl_kernel k);
/* Convenience: program_get + kernel_acquire. *prog receives the program for
 * the matching release. */
vncl_status vncl__kernel_get(vncl_context *ctx, const char *source,
                             const char *options, const char *name,
                             vncl__program **prog, cl_kernel *out);

/* Binary cache (binary_cache.c). Keys are full strings; files carry a
 * header with magic, key, length and checksum, and anything that does not
 * match is ignored. All failures are silent (logged): the cache only ever
 * saves time. */
typedef struct vncl__bincache {
  char dir[1024]; /* "" when disabled */
} vncl__bincache;
void vncl__bincache_init(vncl__bincache *bc, const char *dir_opt);
/* Loads a binary for `key`; returns malloc'd bytes or NULL. */
unsigned char *vncl__bincache_load(const vncl__bincache *bc, const char *key,
                                   size_t *len);
/* Stores atomically (temp file + rename); returns false if it could not. */
bool vncl__bincache_store(const vncl__bincache *bc, const char *key,
                          const unsigned char *bin, size_t len);
/* The default folder (VNCL_CACHE_DIR, $XDG_CACHE_HOME/vncl, ~/.cache/vncl);
 * "" when off. */
void vncl__bincache_default_dir(char *out, size_t cap);

/* ---- context (context.c) ------------------------------------------------- */

struct vncl_context {
  cl_platform_id platform;
  cl_device_id device;
  cl_context cl_ctx;
  cl_command_queue queue;
  bool profiling; /* queue has CL_QUEUE_PROFILING_ENABLE */
  vncl_device_info info;
  char kernel_dir[1024]; /* "" : embedded sources */
  char tuning_db[1024];
  vncl__bincache bincache;

  _Atomic int refs; /* the caller's hold plus one per live tensor */
  pthread_mutex_t prog_lock; /* guards programs; held while building */
  vncl__program *programs;   /* linked list */
  pthread_mutex_t lock; /* guards everything below */
  /* memory accounting (alloc.c) */
  uint64_t limit_bytes;
  uint64_t allocated_bytes;
  uint64_t peak_bytes;
  uint64_t alloc_count, free_count, live_count, failed_count;
  uint64_t reserved_bytes;   /* allocated (rounded up) + cached (alloc.c) */
  struct vncl__cache *cache; /* freed buffers kept for reuse (alloc.c) */
  uint64_t staging_bytes;
  /* staging pool, pinned host memory, transfer worker (staging.c,
   * pinned.c, transfer.c); created on first use, under `lock` */
  struct vncl__xfer *xfer;
  vncl__profiler *profiler; /* profile.c; has its own lock */
  /* program statistics (program.c), for tests, doctor and bench */
  uint64_t programs_built, binary_hits, binary_stores;
  /* Tensor-operation parameters set by the autotuner, one row per kernel
   * family (vncl__ops_family, ops_common.c); a row of zeros means the
   * built-in defaults. Guarded by `lock`. */
  int ops_params[8][6];
  /* The tuning database read at creation (tuning_db.c), for doctor and
   * `vncl autotune --show`: state 0 none, 1 read, -1 invalid (reason in
   * tuning_why); entries that matched this device. */
  int tuning_state;
  int tuning_entries;
  char tuning_why[256];
  /* The untuned-device GEMM probe is on for this context (gemm_probe.c):
   * VNCL_GEMM_PROBE is not 0, and the device is not a CPU or the probe is
   * forced. Set at creation. */
  bool gemm_probe;
  /* This context has run CLBlast (gemm_clblast.c). */
  _Atomic bool used_clblast;
  /* FFT plan cache and scratch (fft_cache.c), made on the first FFT; has
   * its own locks. */
  struct vncl__fft_state *fft;
};

/* Holds and drops a reference; the last drop frees the context. */
void vncl__context_retain(vncl_context *ctx);
void vncl__context_release(vncl_context *ctx);
/* Frees every cached program and kernel (program.c). */
void vncl__programs_free(vncl_context *ctx);
/* Destroys the context's cached FFT plans and scratch, and tears clFFT
 * down after the last context that used it (fft_cache.c). */
void vncl__fft_release(vncl_context *ctx);

/* Options with the environment applied (context.c). */
typedef struct vncl__settings {
  char device[256];
  uint64_t memory_limit;
  char cache_dir[1024];
  char kernel_dir[1024];
  char tuning_db[1024];
  uint64_t staging_bytes;
  int gemm_probe; /* VNCL_GEMM_PROBE: 0 off, 1 on, 2 force */
} vncl__settings;
vncl_status vncl__settings_resolve(const vncl_options *opts,
                                   vncl__settings *out);

/* ---- device memory (alloc.c) ----------------------------------------------- */

/* Allocates `bytes` of device memory for ctx, counted against its limit and
 * touched (zero-filled) so that a device out-of-memory surfaces here.
 * bytes == 0 allocates a 1-byte placeholder that is counted as 0. Errors:
 * VNCL_ERR_OUT_OF_MEMORY with requested/allocated/limit in the message. */
vncl_status vncl__buffer_alloc(vncl_context *ctx, size_t bytes, cl_mem *out);
/* The same for scratch that the caller overwrites whole before reading it
 * (GEMM packing): a buffer reused from the cache is not zero-filled again.
 * New buffers are still touched, so a device OOM still surfaces here. */
vncl_status vncl__buffer_alloc_scratch(vncl_context *ctx, size_t bytes,
                                       cl_mem *out);
/* Releases a buffer from vncl__buffer_alloc (bytes as requested): it goes
 * to the context's cache for reuse (see docs/transfers.md). */
void vncl__buffer_free(vncl_context *ctx, cl_mem m, size_t bytes);
/* Releases every cached buffer; the last context reference calls it. */
void vncl__buffer_cache_free(vncl_context *ctx);

/* ---- transfers (transfer.c, staging.c, pinned.c, event.c) ---------------- */

/* Stops the transfer worker and frees the staging pool; the last context
 * reference calls it after the queue has drained. */
void vncl__transfer_shutdown(vncl_context *ctx);

/* ---- tensors (tensor.c) --------------------------------------------------- */

struct vncl_tensor {
  vncl_context *ctx;
  vncl_dtype dtype;
  int ndim;
  int64_t shape[VNCL_MAX_DIMS];
  size_t numel;
  size_t bytes;
  cl_mem mem;
  size_t offset; /* bytes into mem */
};

/* ---- profiling (profile.c) ------------------------------------------------------ */

vncl_status vncl__profiler_create(vncl_context *ctx);
/* Prints the summary when VNCL_PROFILE asks, then frees everything. */
void vncl__profiler_destroy(vncl_context *ctx);
/* Hands the profiler a command's event (it takes its own reference) with
 * the work it does; `op` must be a string literal or otherwise static. */
void vncl__profile_event(vncl_context *ctx, const char *op, cl_event ev,
                         double bytes, double flops, bool is_transfer);
/* Until called again with NULL, every command this thread hands the
 * profiler is counted under `op` (static) instead of its own name: the
 * GEMM probe's runs show as "gemm probe", not as the caller's GEMMs. */
void vncl__profile_label(const char *op);

/* ---- launching (launch.c) ---------------------------------------------------- */

/* Every kernel vncl runs goes through here: one place for profiling,
 * fault injection and error mapping. `op` names the operation ("gemm"). */
vncl_status vncl__launch(vncl_context *ctx, const char *op, cl_kernel k,
                         cl_uint dims, const size_t *global,
                         const size_t *local, cl_uint num_wait,
                         const cl_event *wait, cl_event *event);
/* The same, declaring the work the kernel does for the profile (FLOPs and
 * bytes it must move; 0 when unknown). `op` must be static. */
vncl_status vncl__launch_work(vncl_context *ctx, const char *op, cl_kernel k,
                              cl_uint dims, const size_t *global,
                              const size_t *local, cl_uint num_wait,
                              const cl_event *wait, cl_event *event,
                              double flops, double bytes);

/* Sets kernel arguments from a list: pairs of (size, pointer). Returns the
 * first OpenCL error, mapped and recorded. */
vncl_status vncl__set_args(vncl_context *ctx, cl_kernel k, int n, ...);
#define VNCL_ARG(x) sizeof(x), (const void *)&(x)

#endif /* VNCL_INTERNAL_H */
