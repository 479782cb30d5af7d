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
#include <stdio.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>

#include "vncl.h"
#include "runtime/fault.h" /* routes calls through fault injection in test builds */
#include "runtime/serial.h" /* one command at a time where a driver needs it */

#define VNCL_UNUSED(x) ((void)(x))

typedef struct vncl__profiler vncl__profiler; /* profile.c */
/* A context's teardown hook (vncl__context_on_release, below). */
#define VNCL__MAX_RELEASE_HOOKS 8
typedef void (*vncl__release_hook)(vncl_context *ctx);

/* ---- the device-rule matcher (device_rule.c) --------------------------- */

/* Per-device knowledge is rows of data (GEMM and ops parameter rows, the FFT
 * engine table, the transfer path table), each with a rule; a rule's field
 * left at "any" matches every device. Of the rows whose rule matches, the
 * most specific wins: a CPU family outranks a vendor, which outranks a
 * device type, which outranks the memory kind, then the vector-width class
 * (a higher minimum width ranks higher), the accumulation type and the
 * shape class; among equals the first row. docs/tuning.md. */
#define VNCL__RULE_ANY (-1)
enum { VNCL__RULE_DISCRETE = 0, VNCL__RULE_UNIFIED = 1 };
typedef struct vncl__device_rule {
  const char *vendor;    /* part of CL_DEVICE_VENDOR, any case; NULL/"": any */
  vncl_device_type type; /* 0: any */
  int memory;            /* VNCL__RULE_UNIFIED / _DISCRETE / _ANY */
  int min_vec;           /* native float vector width at least; 0: any */
  int acc;               /* storage class of the family; _ANY */
  int shape;             /* shape class of the family; _ANY */
  int cpu_family;        /* CPU devices: the host's x86 family (cpuid: 25
                            Zen 3 and 4, 26 Zen 5; 6 most Intel cores); 0:
                            any */
} vncl__device_rule;
/* What a rule is matched against. */
typedef struct vncl__device_key {
  const char *vendor;
  vncl_device_type type;
  bool unified;
  int vec, acc, shape;
  int cpu_family; /* vncl__host_cpu_family() for CPU devices, else 0 */
} vncl__device_key;
/* The x86 family of the CPU this process runs on (cpuid leaf 1, base plus
 * extended family), 0 elsewhere. PoCL and the other CPU drivers run on
 * the host, so for a CPU device it is the device's family: PoCL names a
 * Zen 4 and a Zen 5 EPYC alike, their families differ. */
int vncl__host_cpu_family(void);
void vncl__device_key_of(const vncl_device_info *info, int vec, int acc,
                         int shape, vncl__device_key *out);
/* The rule's specificity for k, -1 when it does not match. */
int vncl__rule_score(const vncl__device_rule *r, const vncl__device_key *k);
/* The best row of n rows `stride` bytes apart, each beginning with a
 * vncl__device_rule, or -1 when none matches. below < 0: the best; else the
 * best ranked below the row whose vncl__rule_rank_key is `below` (walks the
 * ranking from most to least specific, for rows that may not fit). */
int vncl__rule_pick(const void *rows, size_t n, size_t stride,
                    const vncl__device_key *k, int below);
int vncl__rule_rank_key(const void *rows, size_t stride, int i,
                        const vncl__device_key *k);
/* The best row for which fits(row, arg) holds, walking the ranking from
 * most to least specific; -1 when none matches and fits. */
int vncl__rule_pick_fit(const void *rows, size_t n, size_t stride,
                        const vncl__device_key *k,
                        bool (*fits)(int i, void *arg), void *arg);

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

/* ---- element types (dtype.c) -------------------------------------------- */

/* Every dtype once: enum, name, bytes, whether arithmetic is floating. */
#define VNCL__DTYPES(X)            \
  X(VNCL_F32, "f32", 4, 1)         \
  X(VNCL_F64, "f64", 8, 1)         \
  X(VNCL_F16, "f16", 2, 1)         \
  X(VNCL_BF16, "bf16", 2, 1)       \
  X(VNCL_I32, "i32", 4, 0)
/* Host-side conversions of a value to the bits of a 16-bit type: round to
 * nearest even, overflow to inf, NaN to a quiet NaN. */
uint16_t vncl__f64_to_f16_bits(double x);
uint16_t vncl__f64_to_bf16_bits(double x);

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
/* mkdir -p: creates `path` and its missing parents, each 0700 whatever the
 * umask (folders that exist keep their modes); true when the folder exists
 * afterwards. */
bool vncl__make_dirs(const char *path);
/* Case-insensitive substring test. */
bool vncl__contains_nocase(const char *hay, const char *needle);
/* strncpy that always terminates. */
void vncl__strlcpy(char *dst, const char *src, size_t cap);
/* Environment lookup that treats "" as unset, through secure_getenv: in a
 * set-user-ID or set-group-ID process (or one that gained capabilities)
 * every variable reads as unset, so no caller can point the library at
 * files or code of their choosing (docs/security.md). */
const char *vncl__getenv(const char *name);
/* Monotonic seconds. */
double vncl__now(void);

/* ---- trust on disk (trust.c, docs/security.md) -------------------------- */

/* Why a folder or file is not trusted, naming it, and the command or
 * setting that mends it; both "" when it is trusted. state tells a broken
 * rule (someone else could have written it) from a plain error (a path
 * that cannot be resolved or opened: why set, fix ""). */
enum { VNCL__TRUST_OK = 0, VNCL__TRUST_BROKEN, VNCL__TRUST_ERROR };
typedef struct vncl__trust {
  int state;
  char why[512];
  char fix[512];
} vncl__trust;
struct stat;
/* The rule for one object: a folder (want_dir) or regular file, owned by
 * the effective user or root, writable by neither group nor others. */
bool vncl__trust_stat(const struct stat *st, bool want_dir, const char *path,
                      vncl__trust *t);
/* False when a component of `path` that exists is a symbolic link owned by
 * another user (one planted in a shared folder such as /tmp). */
bool vncl__trust_links(const char *path, vncl__trust *t);
/* mkdir -p (vncl__make_dirs, 0700) after checking the path for links
 * others own and, when something is missing, the first folder that exists
 * (it and those above it: open_dir's rule for a holder), so that nothing
 * is made where another account could take it over. False with t set. */
bool vncl__trust_make_dirs(const char *path, vncl__trust *t);
/* Opens the folder `path` for use when it is trusted: resolves it, checks
 * it and every folder above it up to a root-owned one that no one else may
 * write or a sticky one, and opens it (O_DIRECTORY | O_NOFOLLOW, close on
 * exec). A folder vncl keeps as its own (the binary cache) must itself be
 * closed to others; a `holder` of files that are checked one by one (the
 * tuning database's folder) may also be a sticky one such as /tmp, where
 * others cannot rename or remove what they do not own. Returns the
 * descriptor and the resolved path in canon, or -1 with t set (errno
 * ENOENT when the folder does not exist). */
int vncl__trust_open_dir(const char *path, bool holder, char *canon,
                         size_t cap, vncl__trust *t);
/* Opens `name` in the trusted folder dirfd (path `dir`, for messages) for
 * reading, without following a symbolic link, and checks the file. Returns
 * the descriptor, or -1: errno ENOENT (none; t->state OK), ELOOP (a link)
 * or EACCES (not trusted; both with state BROKEN), or another open error
 * (state OK: the caller treats it as absent). */
int vncl__trust_openat(int dirfd, const char *dir, const char *name,
                       vncl__trust *t);
/* Opens the file at `path` for reading when it and its folder are trusted
 * (open_dir on its folder, then openat). -1 with t->why "" and errno ENOENT
 * when there is no such file; with why set when one is there but not
 * trusted. With dirfd_out, the folder stays open for the caller (who
 * closes it) and dir_out receives its resolved path. */
int vncl__trust_open_file(const char *path, vncl__trust *t, int *dirfd_out,
                          char *dir_out, size_t dir_cap);

/* ---- devices (device.c) ------------------------------------------------ */

typedef struct vncl__device {
  cl_platform_id platform;
  cl_device_id device;
  vncl_device_info info;
} vncl__device;

/* The process-wide list of devices in default order, discovered once.
 * Returns VNCL_ERR_NO_DEVICE (with the ICD hint) when there are none. */
vncl_status vncl__devices(const vncl__device **list, int *count);
/* PoCL's worker threads (affinity.c): the choice made once, before the
 * first clGetPlatformIDs (sets POCL_AFFINITY=1 where safe), the variable
 * removed again after discovery, and what it means for device d
 * (VNCL_WORKERS_NONE unless d is PoCL's threaded CPU device). */
void vncl__pocl_affinity_decide(void);
void vncl__pocl_affinity_restore(void);
vncl_worker_affinity vncl__worker_affinity(const vncl_device_info *d);
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
/* Calls fn(source, kernel name, arg) once for every kernel object ctx has
 * created (per program; a name pooled twice counts once per program).
 * For tests: the Oclgrind check lists which kernels it ran. */
void vncl__kernels_each(vncl_context *ctx,
                        void (*fn)(const char *source, const char *name,
                                   void *arg),
                        void *arg);
/* Variants: a caller's compact key (a few ints it derives from its
 * parameters) for a (source, options) pair it has built and checked before,
 * so that a hot path finds the program without formatting the options
 * string or repeating its checks. Keys are compared whole; unused ints must
 * be zero. A program holds a few keys; a key that finds no room is simply
 * not remembered (the caller takes its slow path again). Thread-safe. */
#define VNCL__VARIANT_INTS 16
typedef struct vncl__variant_key {
  int v[VNCL__VARIANT_INTS];
} vncl__variant_key;
vncl__program *vncl__program_find_variant(vncl_context *ctx,
                                          const char *source,
                                          const vncl__variant_key *key);
void vncl__program_add_variant(vncl_context *ctx, vncl__program *p,
                               const vncl__variant_key *key);
/* ---- kernel handles (program.c) ------------------------------------------
 * A kernel object taken out of its program's pool for one launch, so that
 * two threads never set arguments on the same cl_kernel: get it, set its
 * arguments, launch, put it back. Every family (GEMM, ops, FFT) uses this
 * one handle; a handle that holds no kernel (k NULL) may be put again. */
typedef struct vncl__kernel {
  vncl__program *prog;
  cl_kernel k;
  const char *name; /* static: the kernel's name in its source */
} vncl__kernel;
/* Builds or finds (source, options) (vncl__program_get) and takes kernel
 * `name` (a string literal or otherwise static) out of its pool, creating
 * one when every pooled one is in use. Errors: those of program_get, or
 * the OpenCL error of clCreateKernel. On error out->k is NULL. */
vncl_status vncl__kernel_get(vncl_context *ctx, const char *source,
                             const char *options, const char *name,
                             vncl__kernel *out);
/* The same from a program already found (a variant, below). */
vncl_status vncl__kernel_from(vncl_context *ctx, vncl__program *p,
                              const char *name, vncl__kernel *out);
/* Gives the kernel back to its pool and clears the handle. */
void vncl__kernel_put(vncl_context *ctx, vncl__kernel *k);
/* The work-group check: true when the compiled kernel accepts `want`
 * work-items per group on ctx's device (or the driver does not say);
 * false with the most it allows in *allowed. */
bool vncl__kernel_wg_fits(vncl_context *ctx, const vncl__kernel *k,
                          size_t want, size_t *allowed);

/* ---- typed kernel arguments (launch.c) ------------------------------------
 * A kernel argument whose C type is chosen at run time (compute precision,
 * index width), passed to vncl__set_args with VNCL_TARG. */
typedef struct vncl__targ {
  size_t size;
  union {
    cl_int i;
    cl_uint u;
    cl_ulong ul;
    cl_float f;
    cl_double d;
    cl_uint8 u8;
    cl_ulong8 ul8;
  } v;
} vncl__targ;
#define VNCL_TARG(a) (a).size, (const void *)&(a).v
/* A scalar of the kernels' compute type for dtype dt (VNCL_REAL of
 * vncl_prelude.cl): cl_double for f64, else cl_float. */
vncl__targ vncl__real_arg(vncl_dtype dt, double v);

/* "[2, 3, 4]" into buf (cap > 0); returns buf. For messages. */
const char *vncl__shape_str(int ndim, const int64_t *shape, char *buf,
                            size_t cap);

/* Binary cache (binary_cache.c). Keys are full strings; files carry a
 * header with magic, key, length and checksum, and anything that does not
 * match is ignored. All failures are silent (logged): the cache only ever
 * saves time. The folder is used only when trusted (trust.c), and files
 * are opened relative to it without following links. */
typedef struct vncl__bincache {
  char dir[1024]; /* resolved path; "" when disabled */
  int dirfd;      /* the open folder; -1 when disabled */
  vncl__trust untrusted; /* why it was disabled as untrusted ("" if not) */
  /* For vncl_context_cache_info: the folder asked for ("" when off) and,
   * when it could not be used for another reason, why ("" if it could). */
  char asked[1024];
  char unusable[600];
} vncl__bincache;
void vncl__bincache_init(vncl__bincache *bc, const char *dir_opt);
/* Closes the folder (the context's last reference). */
void vncl__bincache_close(vncl__bincache *bc);
/* Loads a binary for `key`; returns malloc'd bytes or NULL. */
unsigned char *vncl__bincache_load(const vncl__bincache *bc, const char *key,
                                   size_t *len);
/* Stores atomically (temp file + rename); returns false if it could not. */
bool vncl__bincache_store(const vncl__bincache *bc, const char *key,
                          const unsigned char *bin, size_t len);
/* Other records kept beside the binaries (the GEMM probe's), under the same
 * rules: `name` is opened relative to the open folder, never through a
 * link, and only when owned by the user or root and closed to others (NULL
 * otherwise, with a warning for an untrusted one that says what happens
 * instead: `redo`); written as the
 * concatenation of `parts`, 0600, to a temporary file renamed into place. */
FILE *vncl__bincache_open(const vncl__bincache *bc, const char *name,
                          const char *redo);
bool vncl__bincache_put(const vncl__bincache *bc, const char *name,
                        const void *const *parts, const size_t *lens,
                        int nparts);
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
  /* Buffers live in fine-grained SVM the host reads and writes in place
   * (svm.c); chosen at creation, fixed for the context's life. */
  bool svm;
  /* info.serial_driver: the driver runs one command at a time safely only
   * (driver.c), so every enqueue, wait and event release for this context
   * goes through one process-wide lock (serial.h). */
  vncl_device_info info;
  /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (0: not reported), for the tensor
   * operations' choice of non-temporal stores (vncl__ops_nt_pays). */
  uint64_t mem_cache_bytes;
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
  /* The parameter sets in force on this context, per kernel family and
   * class, and the tuning database they came from (lib/tuning/store.c):
   * made on the first parameter lookup, which reads the database; freed by
   * the release hook the tuning layer registers. Has its own lock. */
  struct vncl__tuning_store *tuning_store;
  /* The tuning database as the first lookup read it (store.c), for doctor
   * and `vncl autotune --show`: state 0 none, 1 read, -1 invalid (reason in
   * tuning_why), -2 not trusted and ignored (reason in tuning_why, the
   * remedy in tuning_fix); entries that matched this device. Valid after
   * vncl__tuning_load(ctx). */
  int tuning_state;
  int tuning_entries;
  char tuning_why[512];
  char tuning_fix[512];
  /* The untuned-device GEMM probe is on for this context (gemm_probe.c):
   * VNCL_GEMM_PROBE is not 0, and the device is not a CPU or the probe is
   * forced. Set at creation. */
  bool gemm_probe;
  /* VNCL_GEMM_BACKEND, resolved at creation (vncl__backend_choice). */
  int gemm_backend;
  /* This context has run CLBlast (gemm_clblast.c). */
  _Atomic bool used_clblast;
  /* FFT plan cache and scratch (fft_cache.c), made on the first FFT; has
   * its own locks. */
  struct vncl__fft_state *fft;
  /* What the last release must undo for the layers above (guarded by
   * hook_lock, vncl__context_on_release). */
  pthread_mutex_t hook_lock;
  vncl__release_hook release_hooks[VNCL__MAX_RELEASE_HOOKS];
  int nrelease_hooks;
};

/* Holds and drops a reference; the last drop frees the context. */
void vncl__context_retain(vncl_context *ctx);
void vncl__context_release(vncl_context *ctx);
/* Frees every cached program and kernel (program.c). */
void vncl__programs_free(vncl_context *ctx);
/* Teardown hooks: a layer above the runtime (transfers, FFT, CLBlast) that
 * keeps state on a context registers, when it first makes that state, what
 * the context's last release must undo. Hooks run in the order they were
 * registered, after the queue has drained and before device memory,
 * programs and the queue go. Registering the same function again does
 * nothing. Thread-safe. So the runtime never calls up into a feature. */
void vncl__context_on_release(vncl_context *ctx, vncl__release_hook fn);

/* Options with the environment applied (context.c). */
typedef struct vncl__settings {
  char device[256];
  uint64_t memory_limit;
  char cache_dir[1024];
  char kernel_dir[1024];
  char tuning_db[1024]; /* the resolved path; "" when there is none */
  uint64_t staging_bytes;
  int gemm_probe; /* VNCL_GEMM_PROBE: 0 off, 1 on, 2 force */
  int gemm_backend; /* VNCL_GEMM_BACKEND: a vncl__backend_choice */
  /* VNCL_GROUP_STEP_FLOPS: a device group's work per pipelined step (tests
   * and tuning); 0 when unset or not a positive number (the default). */
  double group_step_flops;
} vncl__settings;
/* Which GEMM kernels run (VNCL_GEMM_BACKEND): the device's choice, vncl's
 * own, CLBlast, or the reference kernel alone (checks, not speed). */
typedef enum vncl__backend_choice {
  VNCL__BACKEND_AUTO,
  VNCL__BACKEND_OWN,
  VNCL__BACKEND_CLBLAST,
  VNCL__BACKEND_REF
} vncl__backend_choice;
vncl_status vncl__settings_resolve(const vncl_options *opts,
                                   vncl__settings *out);
/* The tuning database's default path, read from the environment with the
 * other settings: $XDG_DATA_HOME/vncl/tuning.json, else
 * ~/.local/share/vncl/tuning.json; "" when neither variable is set (or the
 * process is set-user-ID). The settings' tuning_db is this when neither
 * vncl_options.tuning_db nor VNCL_TUNING_DB names a file. */
void vncl__tuning_default_path(char *out, size_t cap);

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

/* ---- drivers' own defects (driver.c) ------------------------------------
 * The row of driver.c's table for a device, by platform, device name and
 * driver version (each row also carries a device rule), or NULL. */
typedef struct vncl__driver_row {
  vncl__device_rule rule;
  const char *platform;    /* part of the platform name; NULL: any */
  const char *const *names; /* device name prefixes, NULL-terminated, any
                               matches; NULL: any */
  int below_major, below_minor; /* driver versions below this; 0: any */
  bool serial;             /* one command at a time in the process */
  const char *why;         /* the defect, and the evidence */
} vncl__driver_row;
const vncl__driver_row *vncl__driver_row_of(const vncl_device_info *info);
/* PoCL's single-threaded CPU device ("basic" in PoCL 3, "cpu-minimal" from
 * PoCL 4): no worker threads to place (affinity.c), the driver table's row
 * for PoCL before 5.0. */
bool vncl__pocl_single_threaded(const vncl_device_info *d);
/* Whether commands for this device must be enqueued one at a time across
 * the whole process (the row says so). */
bool vncl__driver_serial(const vncl_device_info *info);
/* On a context whose info.serial_driver is set, VNCL_ERR_UNSUPPORTED (with a message naming the
 * defect) when an event of the wait list has not completed: such a driver
 * deadlocks when it completes (driver.c). VNCL_OK otherwise. */
vncl_status vncl__serial_wait_check(vncl_context *ctx, const char *fn,
                                    cl_uint num_wait, const cl_event *wait);

/* ---- tensors in shared virtual memory (svm.c) --------------------------
 * Whether the context's buffers go to fine-grained SVM: the device shares
 * host memory, its row of svm.c's table says so (CPU devices) or
 * VNCL_TENSOR_MEMORY=svm, and it reports OpenCL 2.0 or later with
 * CL_DEVICE_SVM_FINE_GRAIN_BUFFER; VNCL_TENSOR_MEMORY=buffer says no.
 * Reads the device only. */
bool vncl__svm_choose(vncl_context *ctx);
/* A read-write buffer of `bytes` over a new fine-grained SVM allocation,
 * freed when OpenCL destroys the buffer; NULL with *err set on failure
 * (the caller may fall back to an ordinary buffer). */
cl_mem vncl__svm_buffer_create(vncl_context *ctx, size_t bytes, cl_int *err);
/* The host address of a buffer from vncl__svm_buffer_create, valid while
 * the buffer lives; NULL for any other buffer. Enqueues nothing. */
void *vncl__svm_host_ptr(cl_mem m);
/* Releases every cached buffer; the last context reference calls it. */
void vncl__buffer_cache_free(vncl_context *ctx);

/* ---- transfers (transfer.c, staging.c, pinned.c, event.c) ---------------- */

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
/* A transfer vncl made on the host with no command (a host copy into or out
 * of a tensor in SVM, after the queue finished): counted under `op`
 * (static) as a transfer of `seconds`, timed on the host's clock. */
void vncl__profile_host(vncl_context *ctx, const char *op, double seconds,
                        double bytes);

/* ---- launching (launch.c) ----------------------------------------------------
 * Every command vncl enqueues, on any of its queues (the context's, the
 * staging queue, a group's transfer queues), goes through vncl__enqueue:
 * vncl's kernels (vncl__launch, vncl__launch_work), the transfers
 * (vncl__enqueue_rw, vncl__enqueue_rect) and the libraries' calls (CLBlast,
 * clFFT: the caller passes a function that makes the call and leaves its
 * event). That one function is the command's fault point (test builds) and
 * hands its event to the profiler. Enqueued directly, outside the profile:
 * markers and barriers (no work), map and unmap (their own fault kind),
 * and three internal commands (the allocator's zero fill, an FFT's buffer
 * copy and its chirp-table upload), fault-wrapped as OpenCL calls. */

/* What a command is, for the profile: `op` (static) names it ("gemm",
 * "write"); the FLOPs and bytes it does (0 when unknown); transfer or
 * compute. */
typedef struct vncl__cmd {
  const char *op;
  double flops, bytes;
  bool transfer;
} vncl__cmd;
/* Makes the real enqueue and leaves its event in *ev (ev NULL: no event
 * wanted). Returns the OpenCL status, or the library's own code. */
typedef cl_int (*vncl__enqueue_fn)(void *arg, cl_event *ev);
/* Runs fn(arg, ev) for command c with an event when the caller wants one
 * (event) or the profiler does; returns fn's code unchanged (the caller
 * maps it, with its own message), or CL_OUT_OF_RESOURCES when a test build
 * injects a fault here, without calling fn. On failure *event is NULL. */
cl_int vncl__enqueue(vncl_context *ctx, const vncl__cmd *c,
                     vncl__enqueue_fn fn, void *arg, cl_event *event);

/* A kernel on the context's queue; `op` (static) names it in the profile.
 * An empty range runs nothing (a marker when an event is asked for). A
 * failure is mapped and recorded ("clEnqueueNDRangeKernel(op)"). */
vncl_status vncl__launch(vncl_context *ctx, const char *op, cl_kernel k,
                         cl_uint dims, const size_t *global,
                         const size_t *local, cl_uint num_wait,
                         const cl_event *wait, cl_event *event);
/* The same, declaring the work the kernel does for the profile (FLOPs and
 * bytes it must move; 0 when unknown). */
vncl_status vncl__launch_work(vncl_context *ctx, const char *op, cl_kernel k,
                              cl_uint dims, const size_t *global,
                              const size_t *local, cl_uint num_wait,
                              const cl_event *wait, cl_event *event,
                              double flops, double bytes);
/* clEnqueueWriteBuffer (write) or clEnqueueReadBuffer on queue q through
 * vncl__enqueue, timed as the transfer `op`; OpenCL's code back. */
cl_int vncl__enqueue_rw(vncl_context *ctx, cl_command_queue q, const char *op,
                        bool write, cl_mem mem, cl_bool block, size_t offset,
                        size_t bytes, void *host, cl_uint num_wait,
                        const cl_event *wait, cl_event *event);
/* clEnqueueCopyBuffer, the same way (bytes counted twice: read and
 * written). */
cl_int vncl__enqueue_copy(vncl_context *ctx, cl_command_queue q,
                          const char *op, cl_mem src, cl_mem dst,
                          size_t src_off, size_t dst_off, size_t bytes,
                          cl_uint num_wait, const cl_event *wait,
                          cl_event *event);
/* clEnqueue{Write,Read}BufferRect (non-blocking), the same way. */
cl_int vncl__enqueue_rect(vncl_context *ctx, cl_command_queue q,
                          const char *op, bool write, cl_mem mem,
                          const size_t *borg, const size_t *horg,
                          const size_t *region, size_t brow, size_t bslice,
                          size_t hrow, size_t hslice, void *host,
                          cl_uint num_wait, const cl_event *wait,
                          cl_event *event);

/* Sets kernel arguments from a list: pairs of (size, pointer). Returns the
 * first OpenCL error, mapped and recorded. */
vncl_status vncl__set_args(vncl_context *ctx, cl_kernel k, int n, ...);
#define VNCL_ARG(x) sizeof(x), (const void *)&(x)

#endif /* VNCL_INTERNAL_H */
