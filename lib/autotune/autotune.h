/* The autotuner: its search spaces (autotune_space.c, from the families'
 * tables), the search (autotune.c), the isolated worker and its runner
 * (autotune_worker.c, autotune_runner.c). The --show report is a tool
 * over the public API (tools/tuning_show.c). */
#ifndef VNCL_AUTOTUNE_INTERNAL_H
#define VNCL_AUTOTUNE_INTERNAL_H

#include <stdio.h>

#include "api/tuning_check.h"
#include "tuning/tuning.h"

enum { VNCL__TS_GEMM_FAST, VNCL__TS_GEMM_DIRECT, VNCL__TS_CLBLAST,
       VNCL__TS_OPS };

#define VNCL__TS_MAX_PARAMS 16
#define VNCL__TS_MAX_VALUES 10

typedef struct vncl__tparam {
  const char *name; /* macro name, as in the database */
  int n;
  int v[VNCL__TS_MAX_VALUES];
} vncl__tparam;

typedef struct vncl__tspace {
  const char *name;
  int kind;   /* VNCL__TS_* */
  int np;
  vncl__tparam p[VNCL__TS_MAX_PARAMS];
  int family; /* ops family (VNCL__TS_OPS) */
} vncl__tspace;

/* The space of our GEMM kernel `kern` (VNCL__GEMM_DIRECT, _PACKED_CPU,
 * _PACKED_LOCAL: the base set's `fast` picks the fast kernel), of CLBlast's
 * Xgemm, and of an ops family; quick: the tables' quick candidates. */
const vncl__tspace *vncl__tspace_gemm(int kern, bool quick);
const vncl__tspace *vncl__tspace_clblast(bool quick);
void vncl__tspace_from_ops(int family, bool quick, vncl__tspace *out);

/* The value of `name` in candidate idx (value indexes), or def. */
int vncl__tspace_get(const vncl__tspace *s, const int *idx, const char *name,
                     int def);
/* Whether candidate idx satisfies every constraint on device d; base is the
 * GEMM set the candidate's values are laid over (GEMM spaces), acc the
 * accumulation class. False with the reason in why. */
bool vncl__tspace_valid(const vncl__tune_device *d, const vncl__tspace *s,
                        const int *idx, const vncl__gemm_params *base,
                        int acc, char *why, size_t cap);

/* ---- the search (autotune.c) -------------------------------------------- */

typedef struct vncl__autotune_opts {
  const char *device;  /* selector, NULL: default */
  const char *out;     /* database to write, NULL: default path */
  bool quick;
  double budget;       /* seconds, 0: by mode */
  const char *kernels; /* "gemm,ops" or a list of families, NULL: all */
  const char *dtypes;  /* "f32,f64", NULL: every supported */
  double timeout;      /* per candidate, seconds; 0: 120 */
  const char *const *worker_argv; /* NULL: /proc/self/exe autotune --worker */
  bool progress_tty;   /* draw a bar (stderr is a terminal) */
  int max_candidates;  /* per search, 0: no cap (tests) */
  int stop_after;      /* stop after this many fresh evaluations, as an
                        * interrupted run would (tests); 0: never */
  /* Filled in by the run: */
  int evaluated;       /* candidates measured in this run */
  int reused;          /* results taken from an interrupted run's file */
  int failed;          /* candidates rejected, crashed or hung */
} vncl__autotune_opts;

/* Runs a tuning session; returns 0 on success, 3 when stopped (stop_after
 * or SIGINT: the partial results stay in OUT.partial and the next run
 * resumes from them), else 1 with a message on stderr. */
int vncl__autotune_run(vncl__autotune_opts *o);

/* The worker side: reads requests (one JSON object a line) on stdin,
 * answers one line each on stdout. Returns the exit code. */
int vncl__autotune_worker_main(void);

/* Child-process isolation, exposed for the tests: a runner evaluates one
 * request in a worker with a timeout and returns the answer (a cJSON
 * object the caller frees: {"ok":true,"seconds":..} or {"ok":false,
 * "why":..}); a crash or a timeout answers ok false and starts a fresh
 * worker for the next request. */
typedef struct vncl__tune_runner vncl__tune_runner;
vncl__tune_runner *vncl__tune_runner_new(const char *const *argv,
                                         double timeout);
cJSON *vncl__tune_runner_eval(vncl__tune_runner *r, const cJSON *request);
void vncl__tune_runner_free(vncl__tune_runner *r);

#endif
