/* Programs: kernel sources (embedded or from VNCL_KERNEL_DIR), builds with an
 * options string, the in-memory program cache and the pool of kernel objects.
 *
 * A program is identified by (source file, source hash, options) on the
 * context's device. Lookups and builds hold ctx->prog_lock, so two threads
 * asking for the same program build it once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

typedef struct pooled_kernel {
  struct pooled_kernel *next;
  char name[64];
  cl_kernel k;
  bool busy;
} pooled_kernel;

struct vncl__program {
  vncl__program *next;
  char *source;  /* file name */
  char *options;
  uint64_t src_hash;
  cl_program prog;
  pooled_kernel *kernels;
  vncl__variant_key variants[4]; /* keys callers found this program by */
  int nvariants;
};

/* Reads cl_kernels' file `name` from VNCL_KERNEL_DIR into a malloc'd
 * buffer (*owned). *missing is set, with nothing recorded, when there is
 * no such file. */
static vncl_status read_source(vncl_context *ctx, const char *name,
                               const char **text, size_t *len, char **owned,
                               bool *missing) {
  char path[1400];
  snprintf(path, sizeof path, "%s/%s", ctx->kernel_dir, name);
  FILE *f = fopen(path, "rb");
  *missing = !f;
  if (!f) return VNCL_OK;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(buf);
    return vncl__fail(ctx, VNCL_ERR_IO, "cannot read kernel source %s", path);
  }
  fclose(f);
  buf[n] = '\0';
  *text = *owned = buf;
  *len = (size_t)n;
  return VNCL_OK;
}

/* Returns the source text (malloc'd when read from disk, *owned set). With
 * `optional`, a file that VNCL_KERNEL_DIR does not hold comes from the
 * embedded sources (the prelude: a folder of a few kernels under work need
 * not copy it); any other file must be there. */
static vncl_status load_source(vncl_context *ctx, const char *name,
                               bool optional, const char **text, size_t *len,
                               char **owned) {
  *owned = NULL;
  if (ctx->kernel_dir[0]) {
    bool missing;
    vncl_status s = read_source(ctx, name, text, len, owned, &missing);
    if (s || !missing) return s;
    if (!optional)
      return vncl__fail(ctx, VNCL_ERR_IO,
                        "cannot open kernel source %s/%s (VNCL_KERNEL_DIR)",
                        ctx->kernel_dir, name);
  }
  for (size_t i = 0; i < vncl__source_count; i++)
    if (!strcmp(vncl__sources[i].name, name)) {
      *text = vncl__sources[i].text;
      *len = vncl__sources[i].len;
      return VNCL_OK;
    }
  return vncl__fail(ctx, VNCL_ERR_INTERNAL, "no embedded kernel source '%s'",
                    name);
}

/* Every program is this file's text, then LINE_RESET (so that the driver
 * counts the kernel file's own lines in its messages), then the file. */
#define PRELUDE "vncl_prelude.cl"
#define LINE_RESET "\n#line 1\n"

/* Shared sources, put between the prelude and the files named here
 * only (behind a LINE_RESET of its own): the GEMM storage-type block, whose
 * names (ACC, LOAD_C, STORE_C ...) the ops kernels define their own way, so
 * that it cannot live in the prelude. */
#define GEMM_COMMON "vncl_gemm_common.cl"
/* And vncl's own f32 math (the log of random numbers and of softmax's row
 * sums), only where used, so that the other programs keep their cache
 * keys; likewise the 8 x 8 squares of short rows. */
#define MATH_COMMON "vncl_math_common.cl"
#define SQUARE8_COMMON "vncl_square8.cl"
#define MAX_SHARED 2
static const struct {
  const char *file, *shared[MAX_SHARED]; /* in order; NULL past the last */
} shared_sources[] = {
    {"gemm_direct.cl", {GEMM_COMMON}},
    {"gemm_packed_cpu.cl", {GEMM_COMMON}},
    {"gemm_packed_local.cl", {GEMM_COMMON}},
    {"gemm_ref.cl", {GEMM_COMMON}},
    {"gemm_small.cl", {GEMM_COMMON}},
    {"random.cl", {MATH_COMMON}},
    {"softmax.cl", {MATH_COMMON, SQUARE8_COMMON}},
    {"elementwise.cl", {MATH_COMMON}},
    {"reduce.cl", {SQUARE8_COMMON}},
};

/* The shared sources that `file` takes after the prelude (MAX_SHARED
 * entries, NULL past the last), or NULL for none. */
static const char *const *shared_sources_of(const char *file) {
  for (size_t i = 0; i < sizeof shared_sources / sizeof *shared_sources; i++)
    if (!strcmp(shared_sources[i].file, file)) return shared_sources[i].shared;
  return NULL;
}

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static void cache_key(vncl_context *ctx, const char *source, uint64_t hash,
                      const char *options, char *out, size_t cap) {
  snprintf(out, cap,
           "vncl %s|platform %s|%s|device %s|driver %s|source %s %016llx|"
           "options %s",
           VNCL_VERSION_STRING, ctx->info.platform, ctx->info.platform_version,
           ctx->info.name, ctx->info.driver_version, source,
           (unsigned long long)hash, options);
}

static vncl_status build_log_fail(vncl_context *ctx, cl_program prog,
                                  const char *source, const char *options,
                                  cl_int err) {
  size_t n = 0;
  clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
  char *log = malloc(n + 1);
  if (log) {
    log[0] = '\0';
    clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, n, log,
                          NULL);
    log[n] = '\0';
  }
  vncl_status s = vncl__fail(ctx, VNCL_ERR_BUILD,
                             "building %s with options '%s' failed: %s (%d)\n%s",
                             source, options, vncl__cl_error_name(err),
                             (int)err, log ? log : "(no build log)");
  free(log);
  return s;
}

bool vncl__build_log(vncl_context *ctx, cl_program prog, char *out,
                     size_t cap) {
  size_t n = 0;
  if (!cap) return false;
  out[0] = '\0';
  if (clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                            &n) != CL_SUCCESS)
    return false;
  char *log = malloc(n + 1);
  if (!log) return false;
  bool ok = clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, n,
                                  log, NULL) == CL_SUCCESS;
  log[ok ? n : 0] = '\0';
  vncl__strlcpy(out, log, cap);
  free(log);
  return ok;
}

int vncl__programs_list(vncl_context *ctx, const char **sources,
                        const char **options, cl_program *progs, int cap) {
  int n = 0;
  pthread_mutex_lock(&ctx->prog_lock);
  for (vncl__program *p = ctx->programs; p; p = p->next, n++)
    if (n < cap) {
      sources[n] = p->source;
      options[n] = p->options;
      progs[n] = p->prog;
    }
  pthread_mutex_unlock(&ctx->prog_lock);
  return n;
}

void vncl__kernels_each(vncl_context *ctx,
                        void (*fn)(const char *source, const char *name,
                                   void *arg),
                        void *arg) {
  pthread_mutex_lock(&ctx->prog_lock);
  for (vncl__program *p = ctx->programs; p; p = p->next)
    for (pooled_kernel *k = p->kernels; k; k = k->next) {
      bool seen = false; /* pooled twice (two callers at once): once */
      for (pooled_kernel *e = p->kernels; e != k && !seen; e = e->next)
        seen = !strcmp(e->name, k->name);
      if (!seen) fn(p->source, k->name, arg);
    }
  pthread_mutex_unlock(&ctx->prog_lock);
}

/* The texts of one program: prelude, LINE_RESET, then for the files of
 * shared_sources each shared source and another LINE_RESET, then the
 * file (n parts: 3, 5 or 7). */
#define MAX_PARTS (3 + 2 * MAX_SHARED)
typedef struct program_text {
  const char *parts[MAX_PARTS];
  size_t lens[MAX_PARTS];
  int n;
  char *owned[2 + MAX_SHARED]; /* read from VNCL_KERNEL_DIR: freed by
                                  text_free */
} program_text;

static vncl_status text_load(vncl_context *ctx, const char *source,
                             program_text *t) {
  memset(t, 0, sizeof *t);
  const char *const *shared = shared_sources_of(source);
  int ns = 0;
  while (shared && ns < MAX_SHARED && shared[ns]) ns++;
  t->n = 3 + 2 * ns;
  vncl_status s = load_source(ctx, source, false, &t->parts[t->n - 1],
                              &t->lens[t->n - 1], &t->owned[0]);
  if (!s)
    s = load_source(ctx, PRELUDE, true, &t->parts[0], &t->lens[0],
                    &t->owned[1]);
  for (int i = 0; !s && i < ns; i++)
    s = load_source(ctx, shared[i], true, &t->parts[2 + 2 * i],
                    &t->lens[2 + 2 * i], &t->owned[2 + i]);
  for (int i = 1; i < t->n - 1; i += 2) {
    t->parts[i] = LINE_RESET;
    t->lens[i] = sizeof LINE_RESET - 1;
  }
  return s;
}

static void text_free(program_text *t) {
  for (int i = 0; i < 2 + MAX_SHARED; i++) free(t->owned[i]);
}

/* The program from the binary cache, or NULL (none, or the driver refused
 * it: then it is rebuilt from source). */
static cl_program from_binary(vncl_context *ctx, const char *key,
                              const char *source, const char *options) {
  size_t blen = 0;
  unsigned char *bin = vncl__bincache_load(&ctx->bincache, key, &blen);
  if (!bin) return NULL;
  const unsigned char *bins[1] = {bin};
  cl_int bstatus = CL_SUCCESS, err = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(ctx->cl_ctx, 1, &ctx->device,
                                           &blen, bins, &bstatus, &err);
  free(bin);
  if (p && err == CL_SUCCESS && bstatus == CL_SUCCESS &&
      clBuildProgram(p, 1, &ctx->device, options, NULL, NULL) == CL_SUCCESS) {
    vncl__log(VNCL_LOG_DEBUG, "binary cache hit: %s [%s]", source, options);
    ctx->binary_hits++;
    return p;
  }
  if (p) clReleaseProgram(p);
  vncl__log(VNCL_LOG_WARN, "cached binary for %s rejected by the driver; "
            "rebuilding", source);
  return NULL;
}

/* Compiles the texts; *out is the program, built or not (for its log),
 * or NULL when none could be made. Returns the build's OpenCL status. */
static cl_int compile(vncl_context *ctx, program_text *t,
                      const char *source, const char *options,
                      cl_program *out) {
  cl_int err = CL_SUCCESS;
  cl_program p =
      clCreateProgramWithSource(ctx->cl_ctx, (cl_uint)t->n, t->parts, t->lens,
                                &err);
  *out = p;
  if (!p) return err;
  err = clBuildProgram(p, 1, &ctx->device, options, NULL, NULL);
  if (err != CL_BUILD_PROGRAM_FAILURE) return err;
  /* Drivers with a shared on-disk cache of their own (PoCL) can fail a
   * build when many processes compile the same program at the same
   * moment. A real compile error fails again; a race does not. */
  cl_program retry =
      clCreateProgramWithSource(ctx->cl_ctx, (cl_uint)t->n, t->parts, t->lens,
                                &err);
  if (!retry) return CL_BUILD_PROGRAM_FAILURE;
  err = clBuildProgram(retry, 1, &ctx->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    clReleaseProgram(retry);
    return err;
  }
  vncl__log(VNCL_LOG_WARN, "build of %s [%s] failed once, then succeeded: a "
            "transient driver failure", source, options);
  clReleaseProgram(p);
  *out = retry;
  return CL_SUCCESS;
}

/* A kernel of ours must build without warnings (test_kernel_builds): say
 * so where one does. */
static void warn_on_warnings(vncl_context *ctx, cl_program p,
                             const char *source, const char *options) {
  if (vncl__log_level() < VNCL_LOG_WARN) return;
  char blog[2048];
  if (vncl__build_log(ctx, p, blog, sizeof blog) &&
      vncl__contains_nocase(blog, "warning"))
    vncl__log(VNCL_LOG_WARN, "%s [%s] built with warnings:\n%s", source,
              options, blog);
}

/* Keeps the built binary in the on-disk cache (when there is one). */
static void store_binary(vncl_context *ctx, cl_program p, const char *key) {
  size_t bsize = 0;
  if (!ctx->bincache.dir[0] ||
      clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bsize, &bsize,
                       NULL) != CL_SUCCESS ||
      bsize == 0)
    return;
  unsigned char *b = malloc(bsize);
  unsigned char *bins[1] = {b};
  if (b && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins,
                            NULL) == CL_SUCCESS)
    if (vncl__bincache_store(&ctx->bincache, key, b, bsize))
      ctx->binary_stores++;
  free(b);
}

/* The program for (source, options): from the binary cache when it holds
 * one for exactly these texts and options, else compiled (and stored). The
 * key hashes every text: prelude, shared sources, file. */
static vncl_status build(vncl_context *ctx, const char *source,
                         const char *options, cl_program *out,
                         uint64_t *out_hash) {
  program_text t;
  vncl_status s = text_load(ctx, source, &t);
  if (s) {
    text_free(&t);
    return s;
  }
  uint64_t hash = VNCL_FNV_SEED;
  for (int i = 0; i < t.n; i++) hash = vncl__hash(t.parts[i], t.lens[i], hash);
  *out_hash = hash;
  char key[4096];
  cache_key(ctx, source, hash, options, key, sizeof key);
  cl_program p = from_binary(ctx, key, source, options);
  if (p) {
    text_free(&t);
    *out = p;
    return VNCL_OK;
  }
  double t0 = vncl__now();
  cl_int err = compile(ctx, &t, source, options, &p);
  text_free(&t);
  if (!p) return vncl__cl_fail(ctx, err, "clCreateProgramWithSource");
  if (err != CL_SUCCESS) {
    s = build_log_fail(ctx, p, source, options, err);
    clReleaseProgram(p);
    return s;
  }
  vncl__log(VNCL_LOG_INFO, "built %s [%s] in %.2f s", source, options,
            vncl__now() - t0);
  warn_on_warnings(ctx, p, source, options);
  ctx->programs_built++;
  store_binary(ctx, p, key);
  *out = p;
  return VNCL_OK;
}

vncl_status vncl__program_get(vncl_context *ctx, const char *source,
                              const char *options, vncl__program **out) {
  if (!options) options = "";
  pthread_mutex_lock(&ctx->prog_lock);
  for (vncl__program *p = ctx->programs; p; p = p->next)
    if (!strcmp(p->source, source) && !strcmp(p->options, options)) {
      pthread_mutex_unlock(&ctx->prog_lock);
      *out = p;
      return VNCL_OK;
    }
  vncl__program *np = calloc(1, sizeof *np);
  char *src = dupstr(source), *opt = dupstr(options);
  if (!np || !src || !opt) {
    pthread_mutex_unlock(&ctx->prog_lock);
    free(np);
    free(src);
    free(opt);
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  vncl_status s = build(ctx, source, options, &np->prog, &np->src_hash);
  if (s) {
    pthread_mutex_unlock(&ctx->prog_lock);
    free(np);
    free(src);
    free(opt);
    return s;
  }
  np->source = src;
  np->options = opt;
  np->next = ctx->programs;
  ctx->programs = np;
  pthread_mutex_unlock(&ctx->prog_lock);
  *out = np;
  return VNCL_OK;
}

/* Takes a kernel object named `name` out of p's pool, creating one when
 * every pooled one is busy. */
static vncl_status pool_take(vncl_context *ctx, vncl__program *p,
                             const char *name, cl_kernel *out) {
  pthread_mutex_lock(&ctx->prog_lock);
  for (pooled_kernel *k = p->kernels; k; k = k->next)
    if (!k->busy && !strcmp(k->name, name)) {
      k->busy = true;
      pthread_mutex_unlock(&ctx->prog_lock);
      *out = k->k;
      return VNCL_OK;
    }
  pooled_kernel *nk = calloc(1, sizeof *nk);
  if (!nk) {
    pthread_mutex_unlock(&ctx->prog_lock);
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  cl_int err;
  nk->k = clCreateKernel(p->prog, name, &err);
  if (!nk->k) {
    pthread_mutex_unlock(&ctx->prog_lock);
    free(nk);
    char what[160];
    snprintf(what, sizeof what, "clCreateKernel(%s in %s)", name, p->source);
    return vncl__cl_fail(ctx, err, what);
  }
  vncl__strlcpy(nk->name, name, sizeof nk->name);
  nk->busy = true;
  nk->next = p->kernels;
  p->kernels = nk;
  pthread_mutex_unlock(&ctx->prog_lock);
  *out = nk->k;
  return VNCL_OK;
}

static void pool_give(vncl_context *ctx, vncl__program *p, cl_kernel k) {
  pthread_mutex_lock(&ctx->prog_lock);
  for (pooled_kernel *pk = p->kernels; pk; pk = pk->next)
    if (pk->k == k) {
      pk->busy = false;
      break;
    }
  pthread_mutex_unlock(&ctx->prog_lock);
}

vncl_status vncl__kernel_from(vncl_context *ctx, vncl__program *p,
                              const char *name, vncl__kernel *out) {
  out->prog = p;
  out->name = name;
  out->k = NULL;
  return pool_take(ctx, p, name, &out->k);
}

void vncl__kernel_put(vncl_context *ctx, vncl__kernel *k) {
  if (k->k) pool_give(ctx, k->prog, k->k);
  k->k = NULL;
}

bool vncl__kernel_wg_fits(vncl_context *ctx, const vncl__kernel *k,
                          size_t want, size_t *allowed) {
  size_t kwg = 0;
  *allowed = 0;
  if (clGetKernelWorkGroupInfo(k->k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE,
                               sizeof kwg, &kwg, NULL) != CL_SUCCESS ||
      kwg == 0 || kwg >= want)
    return true;
  *allowed = kwg;
  return false;
}

vncl__program *vncl__program_find_variant(vncl_context *ctx,
                                          const char *source,
                                          const vncl__variant_key *key) {
  vncl__program *found = NULL;
  pthread_mutex_lock(&ctx->prog_lock);
  for (vncl__program *p = ctx->programs; p && !found; p = p->next)
    for (int i = 0; i < p->nvariants; i++)
      if (!memcmp(&p->variants[i], key, sizeof *key) &&
          !strcmp(p->source, source)) {
        found = p;
        break;
      }
  pthread_mutex_unlock(&ctx->prog_lock);
  return found;
}

void vncl__program_add_variant(vncl_context *ctx, vncl__program *p,
                               const vncl__variant_key *key) {
  pthread_mutex_lock(&ctx->prog_lock);
  int have = 0;
  for (int i = 0; i < p->nvariants && !have; i++)
    have = !memcmp(&p->variants[i], key, sizeof *key);
  if (!have && p->nvariants < (int)(sizeof p->variants / sizeof *p->variants))
    p->variants[p->nvariants++] = *key;
  pthread_mutex_unlock(&ctx->prog_lock);
}

vncl_status vncl__kernel_get(vncl_context *ctx, const char *source,
                             const char *options, const char *name,
                             vncl__kernel *out) {
  out->prog = NULL;
  out->name = name;
  out->k = NULL;
  vncl_status s = vncl__program_get(ctx, source, options, &out->prog);
  if (s) return s;
  return pool_take(ctx, out->prog, name, &out->k);
}

void vncl__programs_free(vncl_context *ctx) {
  vncl__program *p = ctx->programs;
  while (p) {
    vncl__program *next = p->next;
    pooled_kernel *k = p->kernels;
    while (k) {
      pooled_kernel *kn = k->next;
      clReleaseKernel(k->k);
      free(k);
      k = kn;
    }
    clReleaseProgram(p->prog);
    free(p->source);
    free(p->options);
    free(p);
    p = next;
  }
  ctx->programs = NULL;
}
