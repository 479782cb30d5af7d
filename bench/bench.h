/* The benchmark framework behind `vncl bench`. Each suite (bench_<name>.c)
 * measures vncl and its peer in the same run and records cases; the command
 * (bench_main.c) prints the table, writes JSON, compares with a baseline and
 * draws plots. Suites never define main(). */
#ifndef VNCL_BENCH_H
#define VNCL_BENCH_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "vncl.h"

typedef struct bench_ctx {
  vncl_context *ctx; /* the device under test */
  vncl_device_info dev;
  bool quick;        /* small sizes: the CI run */
  int repeats;       /* timed runs per case after warm-up (median reported) */
  int max_dim;       /* GEMM shapes with a side above it are left out; 0: all */
  cJSON *cases;      /* array, filled by bench_record */
  int wrong;         /* cases whose result did not verify */
} bench_ctx;

/* One measured case. Rates are "higher is better" (GFLOP/s, GB/s) unless
 * unit is "ms" or "s". */
typedef struct bench_case {
  const char *suite;     /* "gemm", "transfer", "fft", "ops", "startup" */
  const char *name;      /* "sgemm 2048x2048x2048" */
  const char *dtype;     /* "f32", ... */
  const char *unit;      /* "GFLOP/s", "GB/s", "ms" */
  double value;          /* vncl: median */
  double spread;         /* vncl: (max - min) / median over the runs */
  double device_seconds; /* vncl: median device time from profiling (0: n/a) */
  double wall_seconds;   /* vncl: median wall time end to end */
  double host_seconds;   /* vncl: median time until the call returns, for
                            calls queued back to back (0: n/a) */
  double floor_seconds;  /* single calls: the driver's floor per call (an
                            empty kernel, waited or queued as the case),
                            median over the same rounds (0: n/a) */
  double over_floor_seconds; /* single calls: median over the rounds of
                                the call's time less the floor's */
  const char *peer;      /* "clblast", "openblas", "clfft", "fftw", "memcpy" */
  double peer_value;     /* peer: median, same unit (0: peer not run) */
  double peer_spread;
  double flops;          /* work per run, for the fraction of peak (0: n/a) */
  double bytes;          /* bytes moved per run (0: n/a) */
  bool correct;          /* vncl's result verified against a reference */
  bool gate;             /* CI fails when vncl is worse than the peer here */
  double goal;           /* gated: the ratio to the peer CI requires (0: 1.0) */
  bool goal_gate;        /* a goal gate (bench_gate.c): goal is the issue's
                            (0: none), a known shortfall is gated at its
                            floor, the spread is allowed for, CPUs only */
  int m, n, k;           /* shape where it applies (0 elsewhere) */
  int attempts;          /* measurements taken (0 or 1: one); a goal-gated
                            case that fails its gate is measured again, up
                            to BENCH_ATTEMPTS in all, and the best kept */
  double first_ratio;    /* attempts > 1: the ratio the first one read */
} bench_case;

/* Measurements a goal-gated case gets before it fails its gate. A quick
 * run's operation takes a millisecond or two, and a stretch of noise from
 * outside the process (another guest on the host) can hold one attempt's
 * median below the gate: CI's quick bench read a cast at 0.33x memcpy
 * once (13.8 GB/s, spread 6%) where quiet runs read 0.53-1.10x. A real
 * regression stays below the gate in every attempt; the table and the
 * JSON keep the first attempt's ratio. Attempt t (from 0) takes repeats
 * << t samples after a pause of t seconds (bench_retry_pause), so that a
 * burst of noise has time to pass. */
#define BENCH_ATTEMPTS 3

/* What the gates make of a case (bench_gate.c). */
typedef struct bench_verdict {
  double goal;      /* the ratio asked for (0: none) */
  double gate_at;   /* the ratio the gate holds it to: the goal, or a known
                       shortfall's floor */
  double allowance; /* goal gates: the measured spread allowed for */
  bool gated;       /* the gate applies here */
  bool known;       /* a known shortfall (gated at its floor) */
  bool below_goal;  /* measured below the goal */
  bool fail;        /* the gate fails: CI fails */
} bench_verdict;

/* The verdict on case c measured at `ratio` (vncl / peer, > 1 better) on a
 * CPU device (cpu) or another. */
void bench_verdict_of(const bench_case *c, double ratio, bool cpu,
                      bench_verdict *v);
/* The floor of a known shortfall of the goal gates, 0 when the case is not
 * one. */
double bench_shortfall_floor(const char *suite, const char *name,
                             const char *dtype);

/* Whether case c, as measured, fails its gate (what bench_record would
 * count): the suites measure such a goal-gated case again. */
bool bench_gate_fails(const bench_ctx *b, const bench_case *c);
/* vncl / peer for case c, oriented so that > 1 means vncl is better (0
 * when either was not measured). */
double bench_case_ratio(const bench_case *c);

/* Adds a case to b->cases and prints its table row. */
void bench_record(bench_ctx *b, const bench_case *c);

/* Median of v[0..n) (v is reordered). spread receives (max-min)/median. */
double bench_median(double *v, int n, double *spread);
/* Seconds between an event's START and END (0 when profiling is off). */
double bench_event_seconds(cl_event ev);
double bench_now(void);
/* Before attempt t of a case (BENCH_ATTEMPTS): sleeps t seconds. */
void bench_retry_pause(int t);
/* Device seconds of the GEMM commands in bc's profile since its last
 * reset (bench_gemm.c). */
double bench_gemm_device_seconds(bench_ctx *bc);
/* Waits until the process's other threads are idle: a threaded peer
 * (OpenBLAS) keeps a worker spinning on a core for about 0.1 s after each
 * call (measured: 100% of one core for 100-110 ms after a cblas_sgemm on
 * the 2-core Xeon), which took half the machine from whatever the bench
 * timed next. Polls the process's CPU time every 5 ms until it has grown
 * by less than 10% of the wall time in four windows in a row (one quiet
 * window can be a gap in a worker that yields as it spins), at most 1 s;
 * returns the seconds waited. Call it after a peer's calls and before
 * timing vncl. */
double bench_peer_quiet(void);

/* Suites. Each returns 0, or -1 when it could not run at all. */
int bench_suite_gemm(bench_ctx *b);
/* f64, single small calls, strided batches (bench_gemm_calls.c). */
int bench_gemm_calls(bench_ctx *b);
int bench_suite_transfer(bench_ctx *b);
int bench_suite_fft(bench_ctx *b);
int bench_suite_ops(bench_ctx *b);
int bench_suite_startup(bench_ctx *b);
int bench_suite_multi(bench_ctx *b); /* needs 2+ devices (bench_multi.c) */
/* `vncl-bench __startup-child vncl|clblast CACHE_DIR` (bench_startup.c):
 * the process the startup suite measures. */
int bench_startup_child(int argc, char **argv);

#endif
