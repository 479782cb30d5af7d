/*
 * The untuned-device probe: on a device where no tuning database entry
 * covers a (accumulation, shape) class, `auto` would run our guessed
 * built-in set, while CLBlast ships tuned parameters for many devices. The
 * first product of such a class times our kernels against CLBlast on a
 * representative product of that class and keeps the faster backend for
 * the class; the answer is stored beside the binary cache, keyed like its
 * programs (library version, platform, device, driver), so later processes
 * read it instead of probing again. docs/tuning.md describes it.
 *
 * Cost: the probe grows its product from 64 per side until one run of
 * the slower backend takes a few milliseconds (or 1024 per side), then
 * times three interleaved runs of each; on a GPU that is milliseconds plus
 * CLBlast's first compile. A device on which our first 64^3 product takes
 * over 0.1 s (a simulator) keeps ours without compiling CLBlast. Runs are
 * waited for by polling a marker with a time limit, not with clFinish: a
 * queue that does not drain in 10 s abandons the probe for the process,
 * recording nothing. VNCL_GEMM_PROBE=0 turns it off; CPU devices are
 * not probed (their built-in sets are measured ones) unless
 * VNCL_GEMM_PROBE=force, which the tests use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "gemm/gemm.h"

#define PROBE_FORMAT "vncl-gemm-probe 1"
#define PROBE_DEVICES 16
#define PROBE_MIN 64
#define PROBE_MAX 1024
#define PROBE_ENOUGH_S 3e-3 /* a run this long is long enough to compare */
/* Our first timed run at the smallest size taking this long (64^3 at under
 * 5 MFLOP/s) means a simulator such as Oclgrind or a device nobody runs
 * GEMMs on: not worth CLBlast's compile; ours is kept. */
#define PROBE_SLOW_S 0.1

typedef enum {
  P_UNKNOWN = 0,
  P_RUNNING, /* one thread probes; others take our kernels meanwhile */
  P_OWN,
  P_CLBLAST,
} probe_state;

static struct {
  cl_device_id dev;
  probe_state st[VNCL__GEMM_ACCS][VNCL__GEMM_SHAPES];
} table[PROBE_DEVICES];
static int probes_run, probes_loaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The class's name in the database and the probe records. */
static const char *acc_name(vncl__gemm_acc acc) {
  return vncl__gemm_family.acc_names[acc];
}

/* The slot of dev (made when absent), or NULL when the table is full.
 * Called with the lock held. */
static probe_state *slot_of(cl_device_id dev, vncl__gemm_acc acc,
                            vncl__gemm_shape shape) {
  for (int i = 0; i < PROBE_DEVICES; i++)
    if (table[i].dev == dev) return &table[i].st[acc][shape];
  for (int i = 0; i < PROBE_DEVICES; i++)
    if (!table[i].dev) {
      table[i].dev = dev;
      return &table[i].st[acc][shape];
    }
  return NULL;
}

void vncl__gemm_probe_stats(int *run, int *loaded) {
  pthread_mutex_lock(&lock);
  if (run) *run = probes_run;
  if (loaded) *loaded = probes_loaded;
  pthread_mutex_unlock(&lock);
}

void vncl__gemm_probe_forget(void) {
  pthread_mutex_lock(&lock);
  memset(table, 0, sizeof table);
  pthread_mutex_unlock(&lock);
}

/* ---- the record on disk ------------------------------------------------- */

static void record_key(const vncl_context *ctx, vncl__gemm_acc acc,
                       vncl__gemm_shape shape, char *out, size_t cap) {
  snprintf(out, cap,
           PROBE_FORMAT "|vncl %s|platform %s|%s|device %s|driver %s|%s %s",
           VNCL_VERSION_STRING, ctx->info.platform,
           ctx->info.platform_version, ctx->info.name,
           ctx->info.driver_version, acc_name(acc),
           vncl__gemm_shape_name(shape));
}

/* The record's file name in the binary cache folder. */
static void record_name(const vncl_context *ctx, vncl__gemm_acc acc,
                        vncl__gemm_shape shape, char *out, size_t cap) {
  char key[1200];
  record_key(ctx, acc, shape, key, sizeof key);
  snprintf(out, cap, "gemm-probe-%016llx.txt",
           (unsigned long long)vncl__hash(key, strlen(key), VNCL_FNV_SEED));
}

bool vncl__gemm_probe_path(const vncl_context *ctx, vncl__gemm_acc acc,
                           vncl__gemm_shape shape, char *out, size_t cap) {
  if (ctx->bincache.dirfd < 0) return false;
  char name[64];
  record_name(ctx, acc, shape, name, sizeof name);
  snprintf(out, cap, "%s/%s", ctx->bincache.dir, name);
  return true;
}

/* P_OWN or P_CLBLAST from the record, else P_UNKNOWN (none, or one that is
 * truncated, foreign or garbled: it is probed again and overwritten). The
 * record lives in the binary cache folder and is read and written under its
 * rules (docs/security.md). */
static probe_state record_load(const vncl_context *ctx, vncl__gemm_acc acc,
                               vncl__gemm_shape shape) {
  char name[64], key[1200], line[1300], winner[16] = "";
  record_name(ctx, acc, shape, name, sizeof name);
  FILE *f = vncl__bincache_open(&ctx->bincache, name, "the probe runs again");
  if (!f) return P_UNKNOWN;
  record_key(ctx, acc, shape, key, sizeof key);
  bool ok = fgets(line, sizeof line, f) != NULL;
  if (ok) {
    line[strcspn(line, "\n")] = '\0';
    ok = !strcmp(line, key) && fgets(line, sizeof line, f) != NULL &&
         sscanf(line, "winner %15s", winner) == 1 &&
         (!strcmp(winner, "own") || !strcmp(winner, "clblast"));
  }
  fclose(f);
  if (!ok) {
    vncl__log(VNCL_LOG_WARN, "gemm probe: ignoring invalid record %s/%s",
              ctx->bincache.dir, name);
    return P_UNKNOWN;
  }
  return !strcmp(winner, "clblast") ? P_CLBLAST : P_OWN;
}

static void record_store(const vncl_context *ctx, vncl__gemm_acc acc,
                         vncl__gemm_shape shape, probe_state st, int size,
                         double own_gf, double clb_gf) {
  char name[64], key[1200], line[256];
  record_name(ctx, acc, shape, name, sizeof name);
  record_key(ctx, acc, shape, key, sizeof key);
  int n = snprintf(line, sizeof line,
                   "\nwinner %s size %d own_gflops %.3f clblast_gflops %.3f\n",
                   st == P_CLBLAST ? "clblast" : "own", size, own_gf, clb_gf);
  if (n < 0 || (size_t)n >= sizeof line) return;
  const void *parts[2] = {key, line};
  const size_t lens[2] = {strlen(key), (size_t)n};
  vncl__bincache_put(&ctx->bincache, name, parts, lens, 2);
}

/* ---- the measurement -------------------------------------------------------- */

/* The representative product of a class at size s (row-major, no
 * transposes, contiguous). */
static void probe_shape(vncl__gemm_shape shape, size_t s, size_t *m,
                        size_t *n, size_t *k) {
  switch (shape) {
    case VNCL__GEMM_SHAPE_NARROW: *m = 4 * s; *n = 64; *k = s; break;
    case VNCL__GEMM_SHAPE_FLAT: *m = 64; *n = 4 * s; *k = s; break;
    default: *m = s; *n = s; *k = s; break;
  }
}

typedef struct probe_bufs {
  vncl__gemm_problem pr;
  vncl__gemm_blas_args ba;
  size_t bytes[3];
} probe_bufs;

static void bufs_free(vncl_context *ctx, probe_bufs *b) {
  cl_mem m[3] = {b->pr.a, b->pr.b, b->pr.cm};
  for (int i = 0; i < 3; i++)
    if (m[i]) vncl__buffer_free(ctx, m[i], b->bytes[i]);
  memset(b, 0, sizeof *b);
}

static vncl_status bufs_make(vncl_context *ctx, vncl_dtype dt,
                             vncl__gemm_shape shape, size_t s,
                             probe_bufs *b) {
  memset(b, 0, sizeof *b);
  size_t m, n, k, es = vncl_dtype_size(dt);
  probe_shape(shape, s, &m, &n, &k);
  b->bytes[0] = m * k * es;
  b->bytes[1] = k * n * es;
  b->bytes[2] = m * n * es;
  cl_mem mem[3] = {NULL, NULL, NULL};
  vncl_status st = VNCL_OK;
  for (int i = 0; i < 3 && !st; i++)
    st = vncl__buffer_alloc(ctx, b->bytes[i], &mem[i]); /* zero-filled */
  vncl__gemm_problem *pr = &b->pr;
  pr->ab = pr->c = dt;
  pr->m = m;
  pr->n = n;
  pr->k = k;
  pr->batch = 1;
  pr->alpha = 1;
  pr->beta = 0;
  pr->a = mem[0];
  pr->b = mem[1];
  pr->cm = mem[2];
  pr->a_rs = k;
  pr->a_cs = 1;
  pr->b_rs = n;
  pr->b_cs = 1;
  pr->ldc = n;
  vncl__gemm_blas_args ba = {VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_NO_TRANS,
                             m, n, mem[0], mem[1], k, n, 0, 0, 0, 0, 0, 0};
  b->ba = ba;
  if (st) bufs_free(ctx, b);
  return st;
}

/* Waits until everything enqueued on ctx's queue so far has run, for at
 * most PROBE_WAIT_S: a queue held up by the caller's earlier work (a user
 * event not yet set) abandons the probe rather than hanging in clFinish.
 * (The probe's first buffers, like every new vncl buffer, are touched with
 * a waited fill: the limit covers the runs, not that.) Polls, yielding and
 * after 50 ms sleeping, so that short runs are timed closely. Returns 1
 * when done, 0 on the time limit, -1 on an error. */
#define PROBE_WAIT_S 10.0
static int wait_queue(vncl_context *ctx) {
  cl_event ev = NULL;
  if (clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, &ev) != CL_SUCCESS)
    return -1;
  clFlush(ctx->queue);
  double t0 = vncl__now();
  int done = 0;
  for (;;) {
    cl_int st = CL_QUEUED;
    if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                       NULL) != CL_SUCCESS || st < 0) {
      done = -1;
      break;
    }
    if (st == CL_COMPLETE) {
      done = 1;
      break;
    }
    double el = vncl__now() - t0;
    if (el > PROBE_WAIT_S) break;
    if (el > 0.05) {
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    } else {
      sched_yield();
    }
  }
  clReleaseEvent(ev);
  return done;
}

/* Seconds of one product through `backend`, waited for. A queue that does
 * not drain in time abandons the probe (*stuck). */
static vncl_status time_one(vncl_context *ctx, int backend,
                            const vncl__gemm_params *p, probe_bufs *b,
                            double *secs, bool *stuck) {
  if (*stuck) return VNCL_ERR_UNSUPPORTED;
  double t0 = vncl__now();
  vncl_status s = vncl__gemm_run_backend(ctx, backend, &b->pr, &b->ba, p);
  if (!s) {
    int w = wait_queue(ctx);
    if (w == 0) *stuck = true;
    if (w <= 0)
      s = vncl__fail(ctx, VNCL_ERR_UNSUPPORTED, "gemm probe: %s",
                     w ? "the queue failed" : "the queue did not drain");
  }
  *secs = vncl__now() - t0;
  return s;
}

/* Times both backends at growing sizes, then three interleaved runs each
 * at the last size; the faster wins (ours on a tie). A backend that fails
 * loses; when ours fails too the answer is ours (the caller's call then
 * reports its own error through the usual fallbacks). */
static probe_state measure(vncl_context *ctx, vncl__gemm_acc acc,
                           vncl__gemm_shape shape,
                           const vncl__gemm_params *p, int *size,
                           double *own_gf, double *clb_gf) {
  vncl_dtype dt = acc == VNCL__GEMM_ACC64   ? VNCL_F64
                  : acc == VNCL__GEMM_ACC16 ? VNCL_F16
                                            : VNCL_F32;
  double best[2] = {0, 0};
  bool ok[2] = {true, true}, stuck = false;
  size_t s = PROBE_MIN;
  probe_bufs b;
  *size = 0;
  for (;;) {
    if (bufs_make(ctx, dt, shape, s, &b)) {
      /* Out of memory at this size: the last one that fitted. */
      if (s == PROBE_MIN) {
        vncl__clear_error(ctx);
        return P_OWN;
      }
      s /= 2;
      if (bufs_make(ctx, dt, shape, s, &b)) {
        vncl__clear_error(ctx);
        return P_OWN;
      }
      break;
    }
    /* The first run of each builds its kernels; the second is timed. */
    double t[2] = {0, 0};
    for (int be = 0; be < 2; be++) {
      double first;
      ok[be] = ok[be] && !time_one(ctx, be, p, &b, &first, &stuck) &&
               !time_one(ctx, be, p, &b, &t[be], &stuck);
      if (be == 0 && ok[0] && s == PROBE_MIN && t[0] > PROBE_SLOW_S) {
        *size = (int)s;
        *own_gf = 2.0 * b.pr.m * b.pr.n * b.pr.k / t[0] * 1e-9;
        *clb_gf = 0;
        bufs_free(ctx, &b);
        vncl__clear_error(ctx);
        return P_OWN;
      }
    }
    if (!ok[0] || !ok[1]) break;
    double slower = t[0] > t[1] ? t[0] : t[1];
    if (slower >= PROBE_ENOUGH_S || s >= PROBE_MAX) break;
    bufs_free(ctx, &b);
    s *= 2;
  }
  *size = (int)s;
  best[0] = best[1] = 1e30;
  for (int r = 0; r < 3 && ok[0] && ok[1]; r++)
    for (int be = 0; be < 2; be++) {
      double t;
      ok[be] = !time_one(ctx, be, p, &b, &t, &stuck);
      if (t < best[be]) best[be] = t;
    }
  double flops = 2.0 * b.pr.m * b.pr.n * b.pr.k;
  /* Safe with commands still queued: the in-order queue runs them before
   * anything that reuses the buffers. */
  bufs_free(ctx, &b);
  vncl__clear_error(ctx);
  if (stuck) { /* no answer: ours for now, nothing recorded */
    *size = 0;
    return P_OWN;
  }
  *own_gf = ok[0] ? flops / best[0] * 1e-9 : 0;
  *clb_gf = ok[1] ? flops / best[1] * 1e-9 : 0;
  if (!ok[1]) return P_OWN;
  if (!ok[0]) return P_CLBLAST;
  return best[1] < best[0] ? P_CLBLAST : P_OWN;
}

int vncl__gemm_probe_backend(vncl_context *ctx, vncl__gemm_acc acc,
                             vncl__gemm_shape shape,
                             const vncl__gemm_params *p) {
  pthread_mutex_lock(&lock);
  probe_state *sl = slot_of(ctx->device, acc, shape);
  probe_state st = sl ? *sl : P_OWN;
  if (st == P_UNKNOWN) *sl = P_RUNNING;
  pthread_mutex_unlock(&lock);
  if (st == P_CLBLAST) return VNCL__GEMM_CLBLAST;
  if (st != P_UNKNOWN) return VNCL__GEMM_OWN;

  st = record_load(ctx, acc, shape);
  if (st != P_UNKNOWN) {
    pthread_mutex_lock(&lock);
    probes_loaded++;
    *sl = st;
    pthread_mutex_unlock(&lock);
    return st == P_CLBLAST ? VNCL__GEMM_CLBLAST : VNCL__GEMM_OWN;
  }
  double t0 = vncl__now(), own_gf = 0, clb_gf = 0;
  int size = 0;
  vncl__profile_label("gemm probe");
  st = measure(ctx, acc, shape, p, &size, &own_gf, &clb_gf);
  vncl__profile_label(NULL);
  vncl__log(VNCL_LOG_INFO,
            "gemm probe on %s, %s %s (no tuning entry): ours %.3g GFLOP/s, "
            "CLBlast %.3g GFLOP/s at size %d -> %s (%.2f s)",
            ctx->info.name, acc_name(acc),
            vncl__gemm_shape_name(shape), own_gf, clb_gf, size,
            st == P_CLBLAST ? "clblast" : "own", vncl__now() - t0);
  if (size > 0) record_store(ctx, acc, shape, st, size, own_gf, clb_gf);
  pthread_mutex_lock(&lock);
  probes_run++;
  *sl = st;
  pthread_mutex_unlock(&lock);
  return st == P_CLBLAST ? VNCL__GEMM_CLBLAST : VNCL__GEMM_OWN;
}
