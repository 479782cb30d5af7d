/* Contexts: settings from options and environment, OpenCL objects, and the
 * reference count that lets tensors outlive the caller's hold. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

void vncl_options_init(vncl_options *opts) {
  if (!opts) return;
  memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
}

void vncl__tuning_default_path(char *out, size_t cap) {
  const char *x = vncl__getenv("XDG_DATA_HOME");
  const char *h = vncl__getenv("HOME");
  if (x)
    snprintf(out, cap, "%s/vncl/tuning.json", x);
  else if (h)
    snprintf(out, cap, "%s/.local/share/vncl/tuning.json", h);
  else
    vncl__strlcpy(out, "", cap); /* no home: the built-in defaults only */
}

vncl_status vncl__settings_resolve(const vncl_options *opts,
                                   vncl__settings *out) {
  vncl_options def;
  if (!opts) {
    vncl_options_init(&def);
    opts = &def;
  }
  if (opts->struct_size != sizeof *opts)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_options.struct_size is %zu, expected %zu: call "
                      "vncl_options_init first",
                      opts->struct_size, sizeof *opts);
  memset(out, 0, sizeof *out);
  vncl__strlcpy(out->device, opts->device ? opts->device
                                           : vncl__getenv("VNCL_DEVICE"),
                sizeof out->device);
  if (opts->memory_limit) {
    out->memory_limit = opts->memory_limit;
  } else if (vncl__getenv("VNCL_MEMORY_LIMIT")) {
    const char *v = vncl__getenv("VNCL_MEMORY_LIMIT");
    if (!vncl__parse_bytes(v, &out->memory_limit))
      return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                        "VNCL_MEMORY_LIMIT='%s' is not a byte count (use e.g. "
                        "1073741824, 512M or 2G)",
                        v);
  }
  if (opts->cache_dir)
    vncl__strlcpy(out->cache_dir, opts->cache_dir, sizeof out->cache_dir);
  else
    vncl__bincache_default_dir(out->cache_dir, sizeof out->cache_dir);
  vncl__strlcpy(out->kernel_dir,
                opts->kernel_dir ? opts->kernel_dir
                                 : vncl__getenv("VNCL_KERNEL_DIR"),
                sizeof out->kernel_dir);
  vncl__strlcpy(out->tuning_db,
                opts->tuning_db ? opts->tuning_db
                                : vncl__getenv("VNCL_TUNING_DB"),
                sizeof out->tuning_db);
  if (!out->tuning_db[0])
    vncl__tuning_default_path(out->tuning_db, sizeof out->tuning_db);
  if (opts->staging_bytes) {
    out->staging_bytes = opts->staging_bytes;
  } else if (vncl__getenv("VNCL_STAGING_BYTES")) {
    const char *v = vncl__getenv("VNCL_STAGING_BYTES");
    if (!vncl__parse_bytes(v, &out->staging_bytes))
      return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                        "VNCL_STAGING_BYTES='%s' is not a byte count", v);
  }
  /* VNCL_GEMM_PROBE (the GEMM layer's untuned-device probe reads the
   * result): unset, 1 or on -> 1 (non-CPU devices), 0 or off -> 0, force
   * -> 2 (every device: tests). */
  const char *v = vncl__getenv("VNCL_GEMM_PROBE");
  if (!v || !*v || !strcmp(v, "1") || !strcmp(v, "on"))
    out->gemm_probe = 1;
  else if (!strcmp(v, "0") || !strcmp(v, "off"))
    out->gemm_probe = 0;
  else if (!strcmp(v, "force"))
    out->gemm_probe = 2;
  else
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "VNCL_GEMM_PROBE='%s' is not 0, off, 1, on or force", v);
  v = vncl__getenv("VNCL_GEMM_BACKEND");
  static const char *const backends[] = {"auto", "own", "clblast", "ref"};
  out->gemm_backend = v && *v ? -1 : VNCL__BACKEND_AUTO;
  for (int i = 0; i < 4 && out->gemm_backend < 0; i++)
    if (!strcmp(v, backends[i])) out->gemm_backend = i;
  if (out->gemm_backend < 0)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "VNCL_GEMM_BACKEND='%s' is not own, clblast, ref or "
                      "auto",
                      v);
  v = vncl__getenv("VNCL_GROUP_STEP_FLOPS");
  out->group_step_flops = v && strtod(v, NULL) > 0 ? strtod(v, NULL) : 0;
  return VNCL_OK;
}

/* Builds the context around objects that are already retained for it. */
static vncl_status context_init(vncl_context **out, cl_platform_id plat,
                                cl_device_id dev, cl_context clc,
                                cl_command_queue q, const vncl__settings *st) {
  vncl_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    clReleaseCommandQueue(q);
    clReleaseContext(clc);
    return vncl__fail(NULL, VNCL_ERR_OUT_OF_MEMORY,
                      "cannot allocate the context");
  }
  ctx->platform = plat;
  ctx->device = dev;
  ctx->cl_ctx = clc;
  ctx->queue = q;
  cl_command_queue_properties props = 0;
  clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
  ctx->profiling = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
  cl_ulong cache = 0;
  if (clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache,
                      &cache, NULL) == CL_SUCCESS)
    ctx->mem_cache_bytes = cache;
  vncl__device_describe(plat, dev, &ctx->info);
  ctx->info.index = -1;
  /* Where the device is one of ours, keep its position and selector. */
  const vncl__device *l = NULL;
  int n = 0;
  if (vncl__devices(&l, &n) == VNCL_OK)
    for (int i = 0; i < n; i++)
      if (l[i].device == dev) ctx->info = l[i].info;
  vncl__clear_error(NULL);
  ctx->svm = vncl__svm_choose(ctx);
  vncl__strlcpy(ctx->kernel_dir, st->kernel_dir, sizeof ctx->kernel_dir);
  vncl__strlcpy(ctx->tuning_db, st->tuning_db, sizeof ctx->tuning_db);
  vncl__bincache_init(&ctx->bincache, st->cache_dir);
  ctx->limit_bytes = st->memory_limit;
  ctx->staging_bytes = st->staging_bytes;
  ctx->gemm_backend = st->gemm_backend;
  ctx->gemm_probe = st->gemm_probe == 2 ||
                    (st->gemm_probe == 1 && ctx->info.type != VNCL_DEVICE_CPU);
  atomic_init(&ctx->refs, 1);
  if (vncl__profiler_create(ctx) != VNCL_OK) {
    vncl__bincache_close(&ctx->bincache);
    clReleaseCommandQueue(q);
    clReleaseContext(clc);
    free(ctx);
    return VNCL_ERR_OUT_OF_MEMORY;
  }
  pthread_mutex_init(&ctx->lock, NULL);
  pthread_mutex_init(&ctx->prog_lock, NULL);
  pthread_mutex_init(&ctx->hook_lock, NULL);
  vncl__clear_error(ctx);
  vncl__log(VNCL_LOG_INFO, "context on '%s' (%s), cache '%s'", ctx->info.name,
            ctx->info.platform, ctx->bincache.dir);
  if (ctx->info.serial_driver) { /* driver.c: one command at a time */
    const vncl__driver_row *r = vncl__driver_row_of(&ctx->info);
    vncl__log(VNCL_LOG_INFO, "context on '%s': %s", ctx->info.name,
              r ? r->why : "one command at a time");
    vncl__serial_add(clc);
  }
  *out = ctx;
  return VNCL_OK;
}

vncl_status vncl_context_create(vncl_context **out, const vncl_options *opts) {
  if (!out) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "out is NULL");
  vncl__settings st;
  vncl_status s = vncl__settings_resolve(opts, &st);
  if (s) return s;
  int idx;
  s = vncl_device_select(st.device, &idx);
  if (s) return s;
  const vncl__device *l = NULL;
  int n = 0;
  vncl__devices(&l, &n);
  const vncl__device *dv = &l[idx];
  cl_int err;
  cl_context_properties cprops[] = {CL_CONTEXT_PLATFORM,
                                    (cl_context_properties)dv->platform, 0};
  cl_device_id dev = dv->device;
  cl_context clc = clCreateContext(cprops, 1, &dev, NULL, NULL, &err);
  if (!clc) return vncl__cl_fail(NULL, err, "clCreateContext");
  cl_command_queue q =
      clCreateCommandQueue(clc, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  if (!q) {
    clReleaseContext(clc);
    return vncl__cl_fail(NULL, err, "clCreateCommandQueue");
  }
  return context_init(out, dv->platform, dev, clc, q, &st);
}

vncl_status vncl_context_create_from_cl(vncl_context **out, cl_context clc,
                                        cl_device_id dev, cl_command_queue q,
                                        const vncl_options *opts) {
  if (!out || !clc || !dev)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "%s is NULL", !out ? "out" : !clc ? "context" : "device");
  vncl__settings st;
  vncl_status s = vncl__settings_resolve(opts, &st);
  if (s) return s;
  cl_platform_id plat = NULL;
  cl_int err = clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat,
                               NULL);
  if (err) return vncl__cl_fail(NULL, err, "clGetDeviceInfo(device)");
  err = clRetainContext(clc);
  if (err) return vncl__cl_fail(NULL, err, "clRetainContext");
  if (q) {
    err = clRetainCommandQueue(q);
    if (err) {
      clReleaseContext(clc);
      return vncl__cl_fail(NULL, err, "clRetainCommandQueue");
    }
  } else {
    q = clCreateCommandQueue(clc, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!q) {
      clReleaseContext(clc);
      return vncl__cl_fail(NULL, err, "clCreateCommandQueue");
    }
  }
  return context_init(out, plat, dev, clc, q, &st);
}

void vncl__context_retain(vncl_context *ctx) {
  atomic_fetch_add(&ctx->refs, 1);
}

void vncl__context_on_release(vncl_context *ctx, vncl__release_hook fn) {
  pthread_mutex_lock(&ctx->hook_lock);
  bool have = false;
  for (int i = 0; i < ctx->nrelease_hooks && !have; i++)
    have = ctx->release_hooks[i] == fn;
  /* The table holds every feature with state on a context; a full table is
   * a build-time mistake, caught by the tests' leak checks. */
  if (!have && ctx->nrelease_hooks < VNCL__MAX_RELEASE_HOOKS)
    ctx->release_hooks[ctx->nrelease_hooks++] = fn;
  pthread_mutex_unlock(&ctx->hook_lock);
}

void vncl__context_release(vncl_context *ctx) {
  if (atomic_fetch_sub(&ctx->refs, 1) != 1) return;
  clFinish(ctx->queue);
  /* The layers above: transfer worker and staging pool, FFT plans and
   * scratch, CLBlast's programs (they hold the context). */
  for (int i = 0; i < ctx->nrelease_hooks; i++) ctx->release_hooks[i](ctx);
  vncl__buffer_cache_free(ctx);
  vncl__profiler_destroy(ctx);
  vncl__programs_free(ctx);
  vncl__bincache_close(&ctx->bincache);
  clReleaseCommandQueue(ctx->queue);
  clReleaseContext(ctx->cl_ctx);
  if (ctx->info.serial_driver) /* the handle is only compared */
    vncl__serial_remove(ctx->cl_ctx);
  pthread_mutex_destroy(&ctx->lock);
  pthread_mutex_destroy(&ctx->prog_lock);
  pthread_mutex_destroy(&ctx->hook_lock);
  vncl__clear_error(ctx);
  free(ctx);
}

void vncl_context_destroy(vncl_context *ctx) {
  if (!ctx) return;
  int refs = atomic_load(&ctx->refs);
  if (refs > 1)
    vncl__log(VNCL_LOG_WARN,
              "context destroyed with %d live tensor(s); it is freed when "
              "the last of them is destroyed",
              refs - 1);
  clFinish(ctx->queue);
  vncl__context_release(ctx);
}

vncl_status vncl_context_cl(vncl_context *ctx, cl_context *c,
                            cl_command_queue *q, cl_device_id *d) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (c) *c = ctx->cl_ctx;
  if (q) *q = ctx->queue;
  if (d) *d = ctx->device;
  return VNCL_OK;
}

vncl_status vncl_context_device_info(vncl_context *ctx,
                                     vncl_device_info *out) {
  if (!ctx || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !ctx ? "ctx" : "out");
  *out = ctx->info;
  return VNCL_OK;
}

vncl_status vncl_finish(vncl_context *ctx) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  cl_int err = clFinish(ctx->queue);
  if (err) return vncl__cl_fail(ctx, err, "clFinish");
  return VNCL_OK;
}
