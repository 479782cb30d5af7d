/* The autotuner (`vncl autotune`), an application over the public API
 * (include/vncl_tuning.h): its search spaces from the families' tables
 * (space.c), the search (search.c), the isolated worker and its runner
 * (worker.c, runner.c). The --show report is tools/tuning_show.c. */
#ifndef VNCL_TOOLS_AUTOTUNE_H
#define VNCL_TOOLS_AUTOTUNE_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "vncl.h"

enum { TS_GEMM_FAST, TS_GEMM_DIRECT, TS_CLBLAST, TS_OPS };

#define TS_MAX_PARAMS 16
#define TS_MAX_VALUES 10

typedef struct tparam {
  const char *name; /* macro name, as in the database */
  int n;
  int v[TS_MAX_VALUES];
} tparam;

typedef struct tspace {
  const char *name;   /* the kernel ("gemm_packed_cpu"), "clblast_xgemm" or
                       * the ops family */
  const char *family; /* what vncl_tuning_* calls it: "gemm", "clblast", an
                       * ops family */
  int kind;           /* TS_* */
  int np;
  tparam p[TS_MAX_PARAMS];
} tspace;

/* The space of our GEMM kernel `kernel` ("gemm_direct", "gemm_packed_cpu",
 * "gemm_packed_local": the base set's `fast` picks the fast kernel), of
 * CLBlast's Xgemm, and of an ops family; quick: the tables' quick
 * candidates. NULL for an unknown kernel. */
const tspace *tspace_gemm(const char *kernel, bool quick);
const tspace *tspace_clblast(bool quick);
bool tspace_from_ops(const char *family, bool quick, tspace *out);
/* s with the value `base` holds for each of its tunables added, in order,
 * where the candidates lack it (up to TS_MAX_VALUES): a search then climbs
 * from the set in force and steps to its neighbours. Without this a row
 * outside the table's candidates (the AVX2 f64 row's VW 4 and NR 8) left
 * a search no point that fits its device: `vncl autotune` measured the
 * defaults alone (docs/tuning.md). */
void tspace_with_base(const tspace *s, const vncl_tuning_params *base,
                      tspace *out);
/* The kernel the fast value of a GEMM set names. */
const char *tspace_fast_kernel(double fast);

/* Candidate idx of s as a parameter set (its tunables only). */
void tspace_params(const tspace *s, const int *idx, vncl_tuning_params *out);
/* Whether candidate idx fits ctx's device (vncl_tuning_check: laid over
 * the set in force for dtype and shape class). False with why. */
bool tspace_valid(vncl_context *ctx, const tspace *s, const int *idx,
                  vncl_dtype dtype, const char *shape_class, char *why,
                  size_t cap);

/* Parameter sets by name (vncl_tuning_params). */
bool params_get(const vncl_tuning_params *p, const char *name, double *v);
bool params_put(vncl_tuning_params *p, const char *name, double v);
cJSON *params_to_json(const vncl_tuning_params *p);
bool params_from_json(const cJSON *o, vncl_tuning_params *p);

/* Seconds on a monotonic clock. */
double tune_now(void);

/* ---- the search (search.c) ---------------------------------------------- */

typedef struct autotune_opts {
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
} autotune_opts;

/* The square products the GEMM confirmations time beside the searched one,
 * for a packed path switching at m*n*k >= sw: the smallest that runs
 * packed (512^3, or the first multiple of 16 from the switch on, at most
 * 8192: beyond every size the search times), and the largest below the
 * switch that the direct kernel runs (a multiple of 16, at most 1024). */
size_t autotune_square_low(double sw);
size_t autotune_direct_top(double sw);

/* Runs a tuning session; returns 0 on success, 3 when stopped (stop_after
 * or SIGINT: the partial results stay in OUT.partial and the next run
 * resumes from them), else 1 with a message on stderr. */
int autotune_run(autotune_opts *o);

/* The worker side: reads requests (one JSON object a line) on stdin,
 * answers one line each on stdout. Returns the exit code. */
int autotune_worker_main(void);

/* Child-process isolation, exposed for the tests: a runner evaluates one
 * request in a worker with a timeout and returns the answer (a cJSON
 * object the caller frees: {"ok":true,"seconds":..} or {"ok":false,
 * "why":..}); a crash or a timeout answers ok false and starts a fresh
 * worker for the next request. */
typedef struct tune_runner tune_runner;
tune_runner *tune_runner_new(const char *const *argv, double timeout);
cJSON *tune_runner_eval(tune_runner *r, const cJSON *request);
void tune_runner_free(tune_runner *r);

#endif
