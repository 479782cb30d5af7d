/* Device groups: the group selector, a context and two transfer queues per
 * device, created and destroyed together, and the speed table that the
 * split of work follows (a short GEMM probe per device, or the
 * application's own figures). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "group/group.h"
#include "tuning/tuning.h"

/* ---- selector ----------------------------------------------------------- */

static bool add_index(int *idx, int *n, int i, const char *sel,
                      vncl_status *s) {
  for (int j = 0; j < *n; j++)
    if (idx[j] == i) {
      *s = vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_group_create: selector '%s' names device %d twice",
                      sel, i);
      return false;
    }
  if (*n == VNCL_GROUP_MAX_DEVICES) {
    *s = vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                    "vncl_group_create: selector '%s' names more than %d "
                    "devices",
                    sel, VNCL_GROUP_MAX_DEVICES);
    return false;
  }
  idx[(*n)++] = i;
  return true;
}

/* Resolves a group selector to device positions (see vncl_group.h). */
static vncl_status parse_selector(const char *sel, int *idx, int *n) {
  const vncl__device *l = NULL;
  int count = 0;
  vncl_status s = vncl__devices(&l, &count);
  if (s) return s;
  *n = 0;
  const char *p = sel;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    while (len && isspace((unsigned char)*p)) {
      p++;
      len--;
    }
    while (len && isspace((unsigned char)p[len - 1])) len--;
    char el[256];
    if (len == 0 || len >= sizeof el)
      return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                        "vncl_group_create: selector '%s' has %s element",
                        sel, len ? "an overlong" : "an empty");
    memcpy(el, p, len);
    el[len] = '\0';
    vncl_device_type type = 0;
    if (!strcasecmp(el, "gpu")) type = VNCL_DEVICE_GPU;
    else if (!strcasecmp(el, "cpu")) type = VNCL_DEVICE_CPU;
    else if (!strcasecmp(el, "accelerator")) type = VNCL_DEVICE_ACCELERATOR;
    if (!strcasecmp(el, "all") || type) {
      int found = 0;
      for (int i = 0; i < count; i++)
        if (!type || l[i].info.type == type) {
          if (!add_index(idx, n, i, sel, &s)) return s;
          found++;
        }
      if (!found) {
        int unused;
        s = vncl_device_select(el, &unused); /* the message lists devices */
        return s ? s : vncl__fail(NULL, VNCL_ERR_NO_DEVICE, "no %s", el);
      }
    } else {
      int i;
      s = vncl_device_select(el, &i);
      if (s) return s;
      if (!add_index(idx, n, i, sel, &s)) return s;
    }
    if (!end) break;
    p = end + 1;
  }
  return VNCL_OK;
}

/* ---- create / destroy ---------------------------------------------------- */

static void dev_free(vncl__group_dev *d) {
  if (d->h2d) {
    clFinish(d->h2d);
    clReleaseCommandQueue(d->h2d);
  }
  if (d->d2h) {
    clFinish(d->d2h);
    clReleaseCommandQueue(d->d2h);
  }
  if (d->pinned) vncl_host_free(d->ctx, d->pinned);
  pthread_mutex_destroy(&d->copy_lock);
  vncl_context_destroy(d->ctx);
}

vncl_status vncl_group_create(vncl_group **out, const char *selector,
                              const vncl_options *opts) {
  if (!out)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_group_create: out is NULL");
  vncl__settings st;
  vncl_status s = vncl__settings_resolve(opts, &st);
  if (s) return s;
  const char *sel = selector && *selector ? selector
                    : st.device[0]        ? st.device
                                          : "all";
  int idx[VNCL_GROUP_MAX_DEVICES], n = 0;
  s = parse_selector(sel, idx, &n);
  if (s) return s;
  vncl_group *g = calloc(1, sizeof *g);
  if (!g)
    return vncl__fail(NULL, VNCL_ERR_OUT_OF_MEMORY,
                      "vncl_group_create: out of host memory");
  pthread_mutex_init(&g->lock, NULL);
  g->step_flops = st.group_step_flops;
  vncl_options o;
  if (opts)
    o = *opts;
  else
    vncl_options_init(&o);
  for (int i = 0; i < n && !s; i++) {
    char dev[16];
    snprintf(dev, sizeof dev, "%d", idx[i]);
    o.device = dev;
    vncl__group_dev *d = &g->dev[i];
    s = vncl_context_create(&d->ctx, &o);
    if (s) break;
    pthread_mutex_init(&d->copy_lock, NULL);
    g->n = i + 1;
    cl_int err = CL_SUCCESS;
    d->h2d = clCreateCommandQueue(d->ctx->cl_ctx, d->ctx->device,
                                  CL_QUEUE_PROFILING_ENABLE, &err);
    if (d->h2d)
      d->d2h = clCreateCommandQueue(d->ctx->cl_ctx, d->ctx->device,
                                    CL_QUEUE_PROFILING_ENABLE, &err);
    if (!d->h2d || !d->d2h)
      s = vncl__cl_fail(NULL, err, "vncl_group_create: clCreateCommandQueue");
  }
  if (s) {
    char msg[1024];
    vncl__strlcpy(msg, vncl_errmsg(NULL), sizeof msg);
    for (int i = 0; i < g->n; i++) dev_free(&g->dev[i]);
    pthread_mutex_destroy(&g->lock);
    free(g);
    return vncl__fail(NULL, s, "%s", msg);
  }
  g->last.devices = n;
  vncl__log(VNCL_LOG_INFO, "group of %d device(s) from selector '%s'", n, sel);
  *out = g;
  return VNCL_OK;
}

void vncl_group_destroy(vncl_group *g) {
  if (!g) return;
  for (int i = 0; i < g->n; i++) dev_free(&g->dev[i]);
  pthread_mutex_destroy(&g->lock);
  free(g);
}

int vncl_group_size(const vncl_group *g) { return g ? g->n : 0; }

vncl_context *vncl_group_context(const vncl_group *g, int i) {
  if (!g || i < 0 || i >= g->n) return NULL;
  return g->dev[i].ctx;
}

bool vncl__group_has(const vncl_group *g, const vncl_context *ctx,
                     int *index) {
  for (int i = 0; i < g->n; i++)
    if (g->dev[i].ctx == ctx) {
      if (index) *index = i;
      return true;
    }
  return false;
}

/* ---- speeds ------------------------------------------------------------------ */

/* GFLOP/s of an f32 GEMM on one device: sizes double from 256 until a run
 * lasts 5 ms (or 2048), then the best of three runs; 0 on failure. */
static double probe(vncl_context *ctx) {
  double rate = 0;
  for (size_t s = 256;; s *= 2) {
    size_t bytes = s * s * sizeof(float);
    cl_mem m[3] = {NULL, NULL, NULL};
    vncl_status st = VNCL_OK;
    for (int i = 0; i < 3 && !st; i++)
      st = vncl__buffer_alloc(ctx, bytes, &m[i]);
    double best = 0;
    for (int r = 0; r < 4 && !st; r++) { /* run 0 warms up (builds) */
      double t0 = vncl__now();
      st = vncl_gemm_cl(ctx, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                        VNCL_NO_TRANS, s, s, s, 1.0, m[0], 0, s, m[1], 0, s,
                        0.0, m[2], 0, s);
      if (!st) st = vncl_finish(ctx);
      double t = vncl__now() - t0;
      if (!st && r > 0 && (best == 0 || t < best)) best = t;
    }
    for (int i = 0; i < 3; i++)
      if (m[i]) vncl__buffer_free(ctx, m[i], bytes);
    if (st || best <= 0) {
      vncl__log(VNCL_LOG_WARN, "group: speed probe failed on %s at %zu: %s",
                ctx->info.name, s, vncl_errmsg(ctx));
      return rate; /* the last size that worked, or 0 */
    }
    rate = 2.0 * (double)s * s * s / best * 1e-9;
    if (best >= 5e-3 || s >= 2048) return rate;
  }
}

static bool same_model(const vncl_device_info *a, const vncl_device_info *b) {
  return !strcmp(a->name, b->name) && !strcmp(a->vendor, b->vendor) &&
         !strcmp(a->driver_version, b->driver_version) &&
         !strcmp(a->amd_board_name, b->amd_board_name) &&
         a->compute_units == b->compute_units &&
         a->max_clock_mhz == b->max_clock_mhz &&
         a->global_mem_bytes == b->global_mem_bytes;
}

/* The f32 square-GEMM rate the tuning database measured on each device
 * (its own row: this device model, any driver); true only when every
 * device has one, since measured and probed rates do not mix. */
static bool speeds_from_db(vncl_group *g, double *out) {
  for (int i = 0; i < g->n; i++) {
    vncl_context *ctx = g->dev[i].ctx;
    char path[1024], why[256];
    vncl__tuning_path(ctx, path, sizeof path);
    vncl__tuning_db db = {0};
    if (!vncl__tuning_db_load(path, &db, why, sizeof why)) return false;
    vncl__tune_level level = VNCL__TUNE_BUILTIN_TABLE;
    const vncl__tune_entry *e =
        vncl__tuning_find(&db, &ctx->info, "gemm", "f32", "square", &level);
    out[i] = e && level <= VNCL__TUNE_DEVICE ? e->gflops : 0;
    vncl__tuning_db_free(&db);
    if (!(out[i] > 0)) return false;
  }
  return true;
}

void vncl__group_speeds_get(vncl_group *g, double *out) {
  pthread_mutex_lock(&g->lock);
  if (!g->have_speeds && g->n > 1 && speeds_from_db(g, g->speeds)) {
    vncl__log(VNCL_LOG_INFO, "group: speeds from the tuning database");
    g->have_speeds = true;
  }
  if (!g->have_speeds) {
    double sum = 0;
    int ok = 0;
    for (int i = 0; i < g->n; i++) {
      g->speeds[i] = g->n > 1 ? probe(g->dev[i].ctx) : 1.0;
      if (g->speeds[i] > 0) {
        sum += g->speeds[i];
        ok++;
      }
    }
    for (int i = 0; i < g->n; i++)
      if (g->speeds[i] <= 0) {
        g->speeds[i] = ok ? sum / ok : 1.0;
        vncl__log(VNCL_LOG_WARN, "group: device %d gets the mean speed", i);
      }
    /* Devices of one model run at one speed: what tells their probes apart
     * is noise (other work on the machine), so each gets the mean of its
     * model's probes. */
    double model[VNCL_GROUP_MAX_DEVICES];
    for (int i = 0; i < g->n; i++) {
      double msum = 0;
      int mn = 0;
      for (int j = 0; j < g->n; j++)
        if (same_model(&g->dev[i].ctx->info, &g->dev[j].ctx->info)) {
          msum += g->speeds[j];
          mn++;
        }
      model[i] = msum / mn;
    }
    for (int i = 0; i < g->n; i++) {
      g->speeds[i] = model[i];
      vncl__log(VNCL_LOG_INFO, "group: device %d (%s): %.1f GFLOP/s", i,
                g->dev[i].ctx->info.name, g->speeds[i]);
    }
    g->have_speeds = true;
  }
  memcpy(out, g->speeds, (size_t)g->n * sizeof *out);
  pthread_mutex_unlock(&g->lock);
}

vncl_status vncl_group_speeds(vncl_group *g, double *out, int n) {
  if (!g || !out)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "vncl_group_speeds: %s is "
                      "NULL", !g ? "g" : "out");
  if (n != g->n)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_group_speeds: n=%d, the group has %d device(s)",
                      n, g->n);
  vncl__group_speeds_get(g, out);
  return VNCL_OK;
}

vncl_status vncl_group_set_speeds(vncl_group *g, const double *speeds,
                                  int n) {
  if (!g)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_group_set_speeds: g is NULL");
  if (speeds && n != g->n)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_group_set_speeds: n=%d, the group has %d "
                      "device(s)",
                      n, g->n);
  for (int i = 0; speeds && i < n; i++)
    if (!isfinite(speeds[i]) || !(speeds[i] > 0))
      return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                        "vncl_group_set_speeds: speeds[%d]=%g is not a "
                        "positive number",
                        i, speeds[i]);
  pthread_mutex_lock(&g->lock);
  g->have_speeds = speeds != NULL;
  if (speeds) memcpy(g->speeds, speeds, (size_t)n * sizeof *speeds);
  pthread_mutex_unlock(&g->lock);
  return VNCL_OK;
}

/* ---- last run ------------------------------------------------------------------- */

void vncl__group_record(vncl_group *g, const vncl_group_run *r) {
  pthread_mutex_lock(&g->lock);
  g->last = *r;
  pthread_mutex_unlock(&g->lock);
}

vncl_status vncl_group_last_run(vncl_group *g, vncl_group_run *out) {
  if (!g || !out)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "vncl_group_last_run: %s is NULL", !g ? "g" : "out");
  pthread_mutex_lock(&g->lock);
  *out = g->last;
  pthread_mutex_unlock(&g->lock);
  return VNCL_OK;
}
