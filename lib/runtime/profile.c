/* Per-context profiling: every command vncl enqueues hands its event here;
 * events are harvested (their START/END read, then released) when figures
 * are asked for, and in the background of new commands once many are
 * pending, so memory stays bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

#define HARVEST_AT 2048

typedef struct {
  cl_event ev;
  int op;
  double bytes, flops;
} pending;

typedef struct {
  const char *name;
  bool transfer;
  uint64_t count;
  double device_s, bytes, flops;
} op_stat;

struct vncl__profiler {
  pthread_mutex_t lock;
  pending *pend;
  size_t npend, cap;
  op_stat ops[VNCL_PROFILE_MAX_OPS];
  int nops;
  double window_start;
  cl_ulong last_end;
  double busy_s, transfer_s, compute_s;
  uint64_t commands, untimed;
};

vncl_status vncl__profiler_create(vncl_context *ctx) {
  vncl__profiler *p = calloc(1, sizeof *p);
  if (!p)
    return vncl__fail(NULL, VNCL_ERR_OUT_OF_MEMORY,
                      "cannot allocate the profiler");
  pthread_mutex_init(&p->lock, NULL);
  p->window_start = vncl__now();
  ctx->profiler = p;
  return VNCL_OK;
}

static int op_index(vncl__profiler *p, const char *op, bool transfer) {
  for (int i = 0; i < p->nops; i++)
    if (p->ops[i].name == op || !strcmp(p->ops[i].name, op)) return i;
  if (p->nops == VNCL_PROFILE_MAX_OPS) return VNCL_PROFILE_MAX_OPS - 1;
  p->ops[p->nops].name = op;
  p->ops[p->nops].transfer = transfer;
  return p->nops++;
}

/* Reads finished events (all of them when `all`, after the caller waited).
 * Called with p->lock held. */
static void harvest(vncl__profiler *p, bool all) {
  size_t keep = 0;
  for (size_t i = 0; i < p->npend; i++) {
    pending *e = &p->pend[i];
    cl_int st = CL_COMPLETE;
    if (!all &&
        (clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
                        &st, NULL) != CL_SUCCESS))
      st = CL_COMPLETE;
    if (st > CL_COMPLETE) { /* still queued or running */
      p->pend[keep++] = *e;
      continue;
    }
    op_stat *o = &p->ops[e->op];
    o->count++;
    o->bytes += e->bytes;
    o->flops += e->flops;
    p->commands++;
    cl_ulong t0 = 0, t1 = 0;
    if (st == CL_COMPLETE &&
        clGetEventProfilingInfo(e->ev, CL_PROFILING_COMMAND_START, sizeof t0,
                                &t0, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(e->ev, CL_PROFILING_COMMAND_END, sizeof t1,
                                &t1, NULL) == CL_SUCCESS &&
        t1 >= t0) {
      double d = (double)(t1 - t0) * 1e-9;
      o->device_s += d;
      if (o->transfer)
        p->transfer_s += d;
      else
        p->compute_s += d;
      /* Union of busy intervals; commands arrive nearly in order. */
      cl_ulong from = t0 > p->last_end ? t0 : p->last_end;
      if (t1 > from) p->busy_s += (double)(t1 - from) * 1e-9;
      if (t1 > p->last_end) p->last_end = t1;
    } else {
      p->untimed++;
    }
    clReleaseEvent(e->ev);
  }
  p->npend = keep;
}

static _Thread_local const char *label;

void vncl__profile_label(const char *op) { label = op; }

void vncl__profile_event(vncl_context *ctx, const char *op, cl_event ev,
                         double bytes, double flops, bool is_transfer) {
  vncl__profiler *p = ctx->profiler;
  if (!p || !ev) return;
  if (label) op = label;
  pthread_mutex_lock(&p->lock);
  if (p->npend == p->cap) {
    if (p->npend >= HARVEST_AT) harvest(p, false);
    if (p->npend == p->cap) {
      size_t ncap = p->cap ? p->cap * 2 : 64;
      pending *np = realloc(p->pend, ncap * sizeof *np);
      if (!np) { /* drop the sample rather than fail the user's call */
        pthread_mutex_unlock(&p->lock);
        return;
      }
      p->pend = np;
      p->cap = ncap;
    }
  }
  clRetainEvent(ev);
  pending *e = &p->pend[p->npend++];
  e->ev = ev;
  e->op = op_index(p, op, is_transfer);
  e->bytes = bytes;
  e->flops = flops;
  pthread_mutex_unlock(&p->lock);
}

void vncl__profile_host(vncl_context *ctx, const char *op, double seconds,
                        double bytes) {
  vncl__profiler *p = ctx->profiler;
  if (!p) return;
  if (label) op = label;
  pthread_mutex_lock(&p->lock);
  op_stat *o = &p->ops[op_index(p, op, true)];
  o->count++;
  o->bytes += bytes;
  o->device_s += seconds;
  p->transfer_s += seconds;
  /* The queue was idle (the copy waits for it), so nothing overlaps. */
  p->busy_s += seconds;
  p->commands++;
  pthread_mutex_unlock(&p->lock);
}

static int cmp_op(const void *a, const void *b) {
  const vncl_profile_op *x = a, *y = b;
  return (x->device_seconds < y->device_seconds) -
         (x->device_seconds > y->device_seconds);
}

static void fill(vncl__profiler *p, vncl_profile *out) {
  memset(out, 0, sizeof *out);
  out->wall_seconds = vncl__now() - p->window_start;
  out->busy_seconds = p->busy_s;
  out->busy_fraction =
      out->wall_seconds > 0 ? p->busy_s / out->wall_seconds : 0;
  if (out->busy_fraction > 1) out->busy_fraction = 1;
  out->transfer_seconds = p->transfer_s;
  out->compute_seconds = p->compute_s;
  out->commands = p->commands;
  out->untimed = p->untimed;
  out->num_ops = p->nops;
  for (int i = 0; i < p->nops; i++) {
    vncl_profile_op *o = &out->ops[i];
    vncl__strlcpy(o->name, p->ops[i].name, sizeof o->name);
    o->is_transfer = p->ops[i].transfer;
    o->count = p->ops[i].count;
    o->device_seconds = p->ops[i].device_s;
    o->bytes = p->ops[i].bytes;
    o->flops = p->ops[i].flops;
  }
  qsort(out->ops, (size_t)out->num_ops, sizeof *out->ops, cmp_op);
}

vncl_status vncl_profile_get(vncl_context *ctx, vncl_profile *out) {
  if (!ctx || !out)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s is NULL",
                      !ctx ? "ctx" : "out");
  cl_int err = clFinish(ctx->queue);
  if (err) return vncl__cl_fail(ctx, err, "clFinish");
  vncl__profiler *p = ctx->profiler;
  pthread_mutex_lock(&p->lock);
  harvest(p, false);
  fill(p, out);
  pthread_mutex_unlock(&p->lock);
  return VNCL_OK;
}

vncl_status vncl_profile_reset(vncl_context *ctx) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  cl_int err = clFinish(ctx->queue);
  if (err) return vncl__cl_fail(ctx, err, "clFinish");
  vncl__profiler *p = ctx->profiler;
  pthread_mutex_lock(&p->lock);
  harvest(p, false);
  memset(p->ops, 0, sizeof p->ops);
  p->nops = 0;
  p->busy_s = p->transfer_s = p->compute_s = 0;
  p->commands = p->untimed = 0;
  p->window_start = vncl__now();
  /* Later commands start after now on the device too. */
  pthread_mutex_unlock(&p->lock);
  return VNCL_OK;
}

static void print_summary(vncl_context *ctx, vncl__profiler *p) {
  vncl_profile pr;
  fill(p, &pr);
  fprintf(stderr,
          "vncl profile: %s | wall %.3f s | device busy %.3f s (%.0f%%) | "
          "compute %.3f s, transfer %.3f s | %llu commands\n",
          ctx->info.name, pr.wall_seconds, pr.busy_seconds,
          100 * pr.busy_fraction, pr.compute_seconds, pr.transfer_seconds,
          (unsigned long long)pr.commands);
  fprintf(stderr, "  %-16s %8s %12s %10s %12s %12s\n", "operation", "count",
          "device ms", "share", "GFLOP/s", "GB/s");
  for (int i = 0; i < pr.num_ops; i++) {
    const vncl_profile_op *o = &pr.ops[i];
    double s = o->device_seconds;
    fprintf(stderr, "  %-16s %8llu %12.3f %9.1f%% %12.2f %12.2f\n", o->name,
            (unsigned long long)o->count, 1e3 * s,
            pr.busy_seconds > 0 ? 100 * s / pr.busy_seconds : 0,
            s > 0 ? o->flops / s * 1e-9 : 0, s > 0 ? o->bytes / s * 1e-9 : 0);
  }
  if (pr.busy_fraction < 0.5 && pr.commands > 0)
    fprintf(stderr,
            "  the device was busy %.0f%% of the time: it waits on the host "
            "or on data\n",
            100 * pr.busy_fraction);
}

void vncl__profiler_destroy(vncl_context *ctx) {
  vncl__profiler *p = ctx->profiler;
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  harvest(p, true);
  const char *v = vncl__getenv("VNCL_PROFILE");
  if (v && strcmp(v, "0") != 0) print_summary(ctx, p);
  pthread_mutex_unlock(&p->lock);
  pthread_mutex_destroy(&p->lock);
  free(p->pend);
  free(p);
  ctx->profiler = NULL;
}
