/* vncl-bench, the program `vncl bench` runs: runs the suites, prints a
 * table of vncl against its peers (measured in the same run), writes JSON,
 * compares with a baseline, plots. A program of its own because it links
 * the peers (OpenBLAS, FFTW, CLBlast, clFFT), which the vncl command does
 * not. Exit: 0 when every result verified and every gated case held its
 * gate (bench_gate.c), 1 otherwise, 2 on usage errors. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"

/* Suites link in as they exist; a missing one is reported, not fatal. */
#pragma weak bench_suite_gemm
#pragma weak bench_suite_transfer
#pragma weak bench_suite_fft
#pragma weak bench_suite_ops
#pragma weak bench_suite_startup
#pragma weak bench_suite_multi

static int gate_failures;
static int below_goal, known_below; /* goal gates' cases below their goal */
static int table_header_done;

void bench_record(bench_ctx *b, const bench_case *c) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "suite", c->suite);
  cJSON_AddStringToObject(j, "name", c->name);
  cJSON_AddStringToObject(j, "dtype", c->dtype ? c->dtype : "");
  cJSON_AddStringToObject(j, "unit", c->unit);
  cJSON_AddNumberToObject(j, "value", c->value);
  cJSON_AddNumberToObject(j, "spread", c->spread);
  cJSON_AddNumberToObject(j, "device_seconds", c->device_seconds);
  cJSON_AddNumberToObject(j, "wall_seconds", c->wall_seconds);
  if (c->host_seconds > 0)
    cJSON_AddNumberToObject(j, "host_seconds", c->host_seconds);
  if (c->floor_seconds > 0) {
    cJSON_AddNumberToObject(j, "floor_seconds", c->floor_seconds);
    cJSON_AddNumberToObject(j, "over_floor_seconds", c->over_floor_seconds);
  }
  cJSON_AddStringToObject(j, "peer", c->peer ? c->peer : "");
  cJSON_AddNumberToObject(j, "peer_value", c->peer_value);
  cJSON_AddNumberToObject(j, "peer_spread", c->peer_spread);
  double ratio = bench_case_ratio(c);
  cJSON_AddNumberToObject(j, "ratio", ratio);
  cJSON_AddNumberToObject(j, "flops", c->flops);
  cJSON_AddNumberToObject(j, "bytes", c->bytes);
  cJSON_AddBoolToObject(j, "correct", c->correct);
  cJSON_AddBoolToObject(j, "gate", c->gate);
  if (c->attempts > 1) {
    cJSON_AddNumberToObject(j, "attempts", c->attempts);
    cJSON_AddNumberToObject(j, "first_ratio", c->first_ratio);
  }
  bench_verdict v;
  bench_verdict_of(c, ratio, b->dev.type == VNCL_DEVICE_CPU, &v);
  if (c->gate && !c->goal_gate) cJSON_AddNumberToObject(j, "goal", v.goal);
  if (c->goal_gate) {
    /* goal: the (absent: none); gate_at: the ratio CI holds the
     * case to, less the allowance for the measured spread (bench_gate.c). */
    if (v.goal > 0) cJSON_AddNumberToObject(j, "goal", v.goal);
    cJSON_AddBoolToObject(j, "below_goal", v.below_goal);
    cJSON_AddBoolToObject(j, "known_shortfall", v.known);
    if (v.gated) {
      cJSON_AddNumberToObject(j, "gate_at", v.gate_at);
      cJSON_AddNumberToObject(j, "allowance", v.allowance);
    }
  }
  if (c->m || c->n || c->k) {
    int shape[3] = {c->m, c->n, c->k};
    cJSON_AddItemToObject(j, "mnk", cJSON_CreateIntArray(shape, 3));
  }
  /* Fraction of the device's nominal peak, where one is known: compute
   * units x clock x 2 FLOP/FMA x the float vector width (16 on AVX-512
   * CPUs; GPUs report one lane per compute unit, so this underestimates
   * them and the figure is omitted). */
  if (c->flops > 0 && c->device_seconds > 0 &&
      b->dev.type == VNCL_DEVICE_CPU && b->dev.max_clock_mhz) {
    double peak = b->dev.compute_units * (double)b->dev.max_clock_mhz * 1e6 *
                  2 * 2 * 16; /* 2 FMA ports x 16 lanes */
    cJSON_AddNumberToObject(j, "fraction_of_peak",
                            c->flops / c->device_seconds / peak);
  }
  cJSON_AddItemToArray(b->cases, j);
  if (!c->correct) b->wrong++;
  if (v.fail) gate_failures++;
  if (c->goal_gate) {
    below_goal += v.below_goal;
    known_below += v.below_goal && v.known;
  }
  if (!table_header_done) {
    printf("%-9s %-34s %-5s %12s %7s  %-9s %12s %7s %s\n", "suite", "case",
           "dtype", "vncl", "spread", "peer", "peer", "ratio", "");
    table_header_done = 1;
  }
  char vbuf[32], pbuf[32];
  snprintf(vbuf, sizeof vbuf, "%.2f %s", c->value, c->unit);
  if (c->peer_value > 0)
    snprintf(pbuf, sizeof pbuf, "%.2f", c->peer_value);
  else
    snprintf(pbuf, sizeof pbuf, "-");
  /* The last column: a wrong result, a failed gate, or a goal gate's case
   * below its goal (known shortfalls with the floor they are gated at). */
  char note[128] = "";
  if (v.fail && !c->goal_gate)
    snprintf(note, sizeof note, "BELOW PEER (gated)");
  else if (v.fail)
    snprintf(note, sizeof note, "BELOW GATE %.2fx (goal %.2fx)", v.gate_at,
             v.goal);
  else if (c->goal_gate && v.below_goal)
    snprintf(note, sizeof note, "below goal %.2fx%s", v.goal,
             v.known ? " (known)" : "");
  if (c->attempts > 1) {
    size_t used = strlen(note);
    snprintf(note + used, sizeof note - used, "%sbest of %d (first %.2fx)",
             used ? "; " : "", c->attempts, c->first_ratio);
  }
  printf("%-9s %-34s %-5s %12s %6.0f%%  %-9s %12s %6.2fx %s%s\n", c->suite,
         c->name, c->dtype ? c->dtype : "", vbuf, 100 * c->spread,
         c->peer ? c->peer : "-", pbuf, ratio,
         c->correct ? "" : "WRONG RESULT ", note);
  fflush(stdout);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n, double *spread) {
  if (n <= 0) {
    if (spread) *spread = 0;
    return 0;
  }
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  if (spread) *spread = med > 0 ? (v[n - 1] - v[0]) / med : 0;
  return med;
}

double bench_event_seconds(cl_event ev) {
  cl_ulong t0 = 0, t1 = 0;
  if (!ev ||
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0,
                              NULL) != CL_SUCCESS ||
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1,
                              NULL) != CL_SUCCESS)
    return 0;
  return (double)(t1 - t0) * 1e-9;
}

double bench_now(void) { return cli_now(); }

void bench_retry_pause(int t) {
  if (t <= 0) return; /* the first attempt starts at once */
  struct timespec ts = {t, 0};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static double process_cpu_seconds(void) {
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u)) return 0;
  return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double bench_peer_quiet(void) {
  double t0 = bench_now();
  double c = process_cpu_seconds(), w = t0;
  int idle_run = 0;
  for (;;) {
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
    double c1 = process_cpu_seconds(), w1 = bench_now();
    idle_run = c1 - c < 0.1 * (w1 - w) ? idle_run + 1 : 0;
    c = c1;
    w = w1;
    if (idle_run >= 4 || w1 - t0 > 1.0) break;
  }
  return bench_now() - t0;
}

/* ---- plot: GEMM rate against size, one line per implementation --------- */

typedef struct {
  const char *name;
  const char *color;
  double x[64], y[64];
  int n;
} series;

static void add_point(series *s, double x, double y) {
  if (s->n < 64 && y > 0) {
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->n++;
  }
}

static int write_plot(const char *path, cJSON *cases, const char *devname) {
  series ser[3] = {{"vncl", "#d62728", {0}, {0}, 0},
                   {"CLBlast", "#1f77b4", {0}, {0}, 0},
                   {"OpenBLAS (CPU)", "#2ca02c", {0}, {0}, 0}};
  cJSON *c;
  cJSON_ArrayForEach(c, cases) {
    const char *suite = cJSON_GetStringValue(cJSON_GetObjectItem(c, "suite"));
    const char *dt = cJSON_GetStringValue(cJSON_GetObjectItem(c, "dtype"));
    const char *unit = cJSON_GetStringValue(cJSON_GetObjectItem(c, "unit"));
    cJSON *mnk = cJSON_GetObjectItem(c, "mnk");
    if (!suite || strcmp(suite, "gemm") || !dt || strcmp(dt, "f32") || !unit ||
        strcmp(unit, "GFLOP/s") || cJSON_GetArraySize(mnk) != 3)
      continue;
    int m = cJSON_GetArrayItem(mnk, 0)->valueint;
    if (m != cJSON_GetArrayItem(mnk, 1)->valueint ||
        m != cJSON_GetArrayItem(mnk, 2)->valueint)
      continue; /* square sizes only */
    const char *peer = cJSON_GetStringValue(cJSON_GetObjectItem(c, "peer"));
    double v = cJSON_GetNumberValue(cJSON_GetObjectItem(c, "value"));
    double pv = cJSON_GetNumberValue(cJSON_GetObjectItem(c, "peer_value"));
    bool seen = false;
    for (int i = 0; i < ser[0].n; i++) seen |= ser[0].x[i] == m;
    if (!seen) add_point(&ser[0], m, v);
    if (peer && !strcmp(peer, "clblast")) add_point(&ser[1], m, pv);
    if (peer && !strcmp(peer, "openblas")) add_point(&ser[2], m, pv);
  }
  double xmin = 1e30, xmax = 0, ymax = 0;
  for (int s = 0; s < 3; s++)
    for (int i = 0; i < ser[s].n; i++) {
      if (ser[s].x[i] < xmin) xmin = ser[s].x[i];
      if (ser[s].x[i] > xmax) xmax = ser[s].x[i];
      if (ser[s].y[i] > ymax) ymax = ser[s].y[i];
    }
  if (ymax <= 0 || xmax <= xmin) {
    fprintf(stderr, "vncl bench: no square f32 GEMM sizes to plot\n");
    return -1;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return -1;
  }
  const double W = 760, H = 460, L = 70, R = 180, T = 40, Bm = 50;
  double lx0 = log2(xmin), lx1 = log2(xmax);
  ymax *= 1.1;
#define PX(x) (L + (log2(x) - lx0) / (lx1 - lx0) * (W - L - R))
#define PY(y) (H - Bm - (y) / ymax * (H - T - Bm))
  fprintf(f,
          "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' "
          "font-family='sans-serif' font-size='12'>\n"
          "<rect width='100%%' height='100%%' fill='white'/>\n"
          "<text x='%.0f' y='22' font-size='15'>f32 GEMM, square sizes: "
          "GFLOP/s on %s</text>\n",
          W, H, L, devname);
  for (int t = 0; t <= 5; t++) {
    double y = ymax * t / 5;
    fprintf(f,
            "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>"
            "<text x='%.1f' y='%.1f' text-anchor='end'>%.0f</text>\n",
            L, PY(y), W - R, PY(y), L - 6, PY(y) + 4, y);
  }
  for (double x = xmin; x <= xmax * 1.001; x *= 2)
    fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle'>%.0f</text>\n",
            PX(x), H - Bm + 18, x);
  fprintf(f,
          "<text x='%.1f' y='%.1f' text-anchor='middle'>m = n = k</text>\n"
          "<text x='16' y='%.1f' transform='rotate(-90 16 %.1f)' "
          "text-anchor='middle'>GFLOP/s</text>\n",
          (L + W - R) / 2, H - 10, (T + H - Bm) / 2, (T + H - Bm) / 2);
  for (int s = 0; s < 3; s++) {
    if (!ser[s].n) continue;
    /* points in x order */
    for (int i = 1; i < ser[s].n; i++)
      for (int j = i; j > 0 && ser[s].x[j] < ser[s].x[j - 1]; j--) {
        double tx = ser[s].x[j], ty = ser[s].y[j];
        ser[s].x[j] = ser[s].x[j - 1];
        ser[s].y[j] = ser[s].y[j - 1];
        ser[s].x[j - 1] = tx;
        ser[s].y[j - 1] = ty;
      }
    fprintf(f, "<polyline fill='none' stroke-width='2' stroke='%s' points='",
            ser[s].color);
    for (int i = 0; i < ser[s].n; i++)
      fprintf(f, "%.1f,%.1f ", PX(ser[s].x[i]), PY(ser[s].y[i]));
    fprintf(f, "'/>\n");
    for (int i = 0; i < ser[s].n; i++)
      fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>\n",
              PX(ser[s].x[i]), PY(ser[s].y[i]), ser[s].color);
    fprintf(f,
            "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' "
            "stroke-width='3'/><text x='%.1f' y='%.1f'>%s</text>\n",
            W - R + 15, T + 20.0 + 20 * s, W - R + 40, T + 20.0 + 20 * s,
            ser[s].color, W - R + 46, T + 24.0 + 20 * s, ser[s].name);
  }
#undef PX
#undef PY
  fprintf(f, "</svg>\n");
  fclose(f);
  return 0;
}

/* ---- compare with a baseline: ratios to peers, not absolute times ------ */

static int compare(const char *path, cJSON *cases) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n > 0 ? malloc((size_t)n + 1) : NULL;
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(buf);
    fprintf(stderr, "vncl bench: cannot read %s\n", path);
    return -1;
  }
  fclose(f);
  buf[n] = '\0';
  cJSON *base = cJSON_Parse(buf);
  free(buf);
  cJSON *bcases = cJSON_GetObjectItem(base, "cases");
  if (!cJSON_IsArray(bcases)) {
    fprintf(stderr, "vncl bench: %s is not a vncl bench JSON file\n", path);
    cJSON_Delete(base);
    return -1;
  }
  int flagged = 0, matched = 0;
  cJSON *c, *bc;
  cJSON_ArrayForEach(c, cases) {
    const char *key[4] = {"suite", "name", "dtype", "peer"};
    cJSON_ArrayForEach(bc, bcases) {
      bool same = true;
      for (int i = 0; i < 4 && same; i++) {
        const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(c, key[i]));
        const char *y = cJSON_GetStringValue(cJSON_GetObjectItem(bc, key[i]));
        same = x && y && !strcmp(x, y);
      }
      if (!same) continue;
      double r = cJSON_GetNumberValue(cJSON_GetObjectItem(c, "ratio"));
      double br = cJSON_GetNumberValue(cJSON_GetObjectItem(bc, "ratio"));
      if (!(r > 0 && br > 0)) break;
      matched++;
      /* The noise allowance: the larger of the spreads measured for vncl
       * and the peer, in either run, and at least 5%. */
      double tol = 0.05;
      const char *sp[2] = {"spread", "peer_spread"};
      for (int i = 0; i < 2; i++) {
        double a = cJSON_GetNumberValue(cJSON_GetObjectItem(c, sp[i]));
        double b2 = cJSON_GetNumberValue(cJSON_GetObjectItem(bc, sp[i]));
        if (a > tol) tol = a;
        if (b2 > tol) tol = b2;
      }
      if (r < br * (1 - tol)) {
        printf("REGRESSION %s %s: ratio to %s %.2fx, baseline %.2fx "
               "(allowance %.0f%%)\n",
               cJSON_GetStringValue(cJSON_GetObjectItem(c, "suite")),
               cJSON_GetStringValue(cJSON_GetObjectItem(c, "name")),
               cJSON_GetStringValue(cJSON_GetObjectItem(c, "peer")), r, br,
               100 * tol);
        flagged++;
      }
      break;
    }
  }
  printf("compare: %d case(s) matched %s, %d regression(s)\n", matched, path,
         flagged);
  cJSON_Delete(base);
  return flagged;
}

/* ---- an honest OpenBLAS peer -------------------------------------------
 *
 * OpenBLAS (built with DYNAMIC_ARCH, as Debian's is) picks its kernels from
 * a table of CPU models. A model newer than its table falls back to the
 * oldest kernels: Debian 12's 0.3.21 on the Xeon of 2026-12-02 (family 6,
 * model 207) chose "Prescott" (SSE3) and ran sgemm 1024^3 at 36 GFLOP/s,
 * where its SkylakeX kernels give 200; a peer measured so would flatter
 * vncl five- to eightfold. So before anything is measured the bench checks
 * the core OpenBLAS chose against the vector units this CPU has, and when
 * the library chose below them it runs itself again with
 * OPENBLAS_CORETYPE naming the best core the CPU can run (OpenBLAS reads it
 * once, when it loads). A value the user set is kept as it is. */
char *openblas_get_corename(void);

/* 1 SSE, 2 AVX, 3 AVX2 + FMA, 4 AVX-512 (F, BW, DQ, VL). */
static int cpu_vector_level(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return 4;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 3;
  if (__builtin_cpu_supports("avx")) return 2;
  return 1;
#else
  return 0; /* not x86: nothing to compare */
#endif
}

/* The vector level of an OpenBLAS core name (case as OpenBLAS prints it). */
static int core_vector_level(const char *core) {
  static const struct {
    const char *name;
    int level;
  } cores[] = {{"SkylakeX", 4},    {"Cooperlake", 4}, {"SapphireRapids", 4},
               {"Haswell", 3},     {"Zen", 3},        {"Excavator", 3},
               {"Sandybridge", 2}, {"Bulldozer", 2},  {"Piledriver", 2},
               {"Steamroller", 2}};
  for (size_t i = 0; i < sizeof cores / sizeof *cores; i++)
    if (!strcasecmp(core, cores[i].name)) return cores[i].level;
  return 1;
}

/* Called first in main: returns only when OpenBLAS runs kernels that
 * match this CPU, or when it cannot be helped (then it says so). */
static void bench_blas_peer_check(char **argv) {
  const char *core = openblas_get_corename();
  int host = cpu_vector_level();
  if (!core || host == 0 || core_vector_level(core) >= host) return;
  if (getenv("OPENBLAS_CORETYPE")) {
    fprintf(stderr,
            "vncl bench: warning: OpenBLAS runs its %s kernels on a CPU with "
            "wider vector units (OPENBLAS_CORETYPE=%s was set by the caller): "
            "ratios to OpenBLAS flatter vncl\n",
            core, getenv("OPENBLAS_CORETYPE"));
    return;
  }
  static const char *const best[] = {NULL, NULL, "Sandybridge", "Haswell",
                                     "SkylakeX"};
  setenv("OPENBLAS_CORETYPE", best[host], 1);
  setenv("VNCL_BENCH_BLAS_CORE", core, 1); /* what it chose by itself */
  execv("/proc/self/exe", argv);
  /* Only on failure: go on, and say what the figures mean. */
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("VNCL_BENCH_BLAS_CORE");
  fprintf(stderr,
          "vncl bench: warning: OpenBLAS chose its %s kernels on this CPU and "
          "the bench could not restart with OPENBLAS_CORETYPE=%s: ratios to "
          "OpenBLAS flatter vncl\n",
          core, best[host]);
}

int main(int argc, char **argv) {
  bench_blas_peer_check(argv);
  /* Internal: a fresh process measured by the startup suite. */
  if (argc > 1 && !strcmp(argv[1], "__startup-child"))
    return bench_startup_child(argc - 1, argv + 1);
  const char *dev = NULL, *json = NULL, *plot = NULL, *base = NULL;
  const char *suites = "gemm,transfer,fft,ops,startup,multi";
  bool quick = false, want_json = false, no_gate = false;
  long repeats = 0, max_dim = 0;
  const cli_opt opts[] = {
      {.name = "device", .kind = CLI_STRING, .out = &dev, .arg = "SEL",
       .help = "the device under test (default: VNCL_DEVICE, else the "
               "first)"},
      {.name = "quick", .kind = CLI_FLAG, .out = &quick,
       .help = "small sizes (the CI run)"},
      {.name = "suite", .kind = CLI_STRING, .out = &suites, .arg = "S,...",
       .help = "gemm,transfer,fft,ops,startup,multi (default: all)"},
      {.name = "json", .kind = CLI_JSON, .out = &want_json, .out2 = &json,
       .help = "the results as JSON, to FILE (default: stdout, the table "
               "then goes to stderr)"},
      {.name = "plot", .kind = CLI_STRING, .out = &plot, .arg = "FILE.svg",
       .help = "f32 GEMM rate against size, as SVG"},
      {.name = "compare", .kind = CLI_STRING, .out = &base,
       .arg = "BASELINE.json",
       .help = "flag ratios that fell beyond the spread"},
      {.name = "no-gate", .kind = CLI_FLAG, .out = &no_gate,
       .help = "report the gates' verdicts without failing on them (a "
               "wrong result still fails)"},
      {.name = "repeats", .kind = CLI_INT, .out = &repeats, .min = 1,
       .max = 1000, .help = "timed runs per case (default 9, 5 with --quick)"},
      {.name = "max-dim", .kind = CLI_INT, .out = &max_dim, .min = 1,
       .max = 1 << 20,
       .help = "leave out GEMM shapes with a side above N (simulators)"},
      {0}};
  const cli_command cmd = {
      .name = "bench", .opts = opts,
      .about = "Measures vncl and its peer (CLBlast, clFFT, OpenBLAS, FFTW, "
               "memcpy) in the same run\nand reports their ratio. Exit 1 on "
               "a wrong result or a case below its gate (docs/benchmarks.md)."
               "\nRun as `vncl bench` or directly as vncl-bench.\n"};
  int pr = cli_parse(&cmd, argc, argv);
  if (pr != CLI_PARSED) return pr;
  /* --json alone: the JSON is the standard output, the table goes to
   * stderr (every suite prints with printf). */
  FILE *jf = NULL;
  if (want_json && !json) {
    int fd = dup(1);
    if (fd < 0 || dup2(2, 1) < 0 || !(jf = fdopen(fd, "w"))) {
      fprintf(stderr, "vncl bench: cannot use the standard output\n");
      return 1;
    }
  }
  static const struct {
    const char *name;
    int (*fn)(bench_ctx *);
  } all[] = {{"gemm", bench_suite_gemm},
             {"transfer", bench_suite_transfer},
             {"fft", bench_suite_fft},
             {"ops", bench_suite_ops},
             {"startup", bench_suite_startup},
             {"multi", bench_suite_multi}};
  /* Validate the suite list before spending time. */
  char list[256];
  snprintf(list, sizeof list, "%s", suites);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    bool known = false;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
      known |= !strcmp(tok, all[i].name);
    if (!known) {
      fprintf(stderr, "vncl bench: unknown suite '%s'\n\n", tok);
      cli_help(&cmd, stderr);
      return CLI_USAGE;
    }
  }
  vncl_options o;
  vncl_options_init(&o);
  o.device = dev;
  bench_ctx b = {0};
  if (vncl_context_create(&b.ctx, &o)) {
    fprintf(stderr, "vncl bench: %s\n", vncl_errmsg(NULL));
    return 1;
  }
  vncl_context_device_info(b.ctx, &b.dev);
  b.quick = quick;
  b.repeats = repeats ? (int)repeats : quick ? 5 : 9;
  b.max_dim = (int)max_dim;
  b.cases = cJSON_CreateArray();
  printf("vncl %s bench on %s (%s, driver %s)%s\n", vncl_version_string(),
         b.dev.name, b.dev.platform, b.dev.driver_version,
         quick ? ", quick" : "");
  const char *own_core = getenv("VNCL_BENCH_BLAS_CORE");
  if (own_core)
    printf("peer OpenBLAS: %s kernels (OPENBLAS_CORETYPE set by the bench: "
           "the library chose %s on this CPU)\n",
           openblas_get_corename(), own_core);
  else
    printf("peer OpenBLAS: %s kernels\n", openblas_get_corename());
  /* PoCL's worker threads, pinned or not, move its figures up to 2x
   * (docs/portability.md): say which these are. */
  vncl_worker_affinity aff = b.dev.worker_affinity;
  if (aff != VNCL_WORKERS_NONE)
    printf("PoCL worker threads: %s\n",
           aff == VNCL_WORKERS_PINNED_BY_VNCL
               ? "pinned by vncl (POCL_AFFINITY=1 while PoCL started)"
           : aff == VNCL_WORKERS_PINNED ? "pinned (POCL_AFFINITY set)"
                                        : "not pinned");
  int missing = 0;
  double t0 = bench_now();
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
    snprintf(list, sizeof list, ",%s,", suites);
    char want[32];
    snprintf(want, sizeof want, ",%s,", all[i].name);
    if (!strstr(list, want)) continue;
    if (!all[i].fn) {
      printf("%-9s (suite not built into this vncl)\n", all[i].name);
      missing++;
      continue;
    }
    if (all[i].fn(&b) != 0) {
      const char *why = vncl_errmsg(b.ctx);
      printf("%-9s could not run: %s\n", all[i].name,
             why[0] ? why : "see the line above");
      b.wrong++;
    }
  }
  printf("bench: %d case(s) in %.1f s, %d wrong, %d below their gate; %d "
         "below their goal (%d known shortfalls)\n",
         cJSON_GetArraySize(b.cases), bench_now() - t0, b.wrong,
         gate_failures, below_goal, known_below);
  int rc = (b.wrong || (gate_failures && !no_gate)) ? 1 : 0;
  if (want_json) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "vncl_version", vncl_version_string());
#ifdef VNCL_GIT_COMMIT
    cJSON_AddStringToObject(root, "git_commit", VNCL_GIT_COMMIT);
#else
    cJSON_AddStringToObject(root, "git_commit", "unknown");
#endif
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(root, "date", date);
    cJSON_AddBoolToObject(root, "quick", quick);
    cJSON_AddItemToObject(root, "device", cli_device_json(&b.dev));
    cJSON_AddStringToObject(root, "openblas_core", openblas_get_corename());
    if (aff != VNCL_WORKERS_NONE)
      cJSON_AddBoolToObject(root, "pocl_threads_pinned",
                            aff != VNCL_WORKERS_FREE);
    cJSON_AddItemToObject(root, "cases", b.cases);
    char *s = cJSON_Print(root);
    FILE *f = jf ? jf : cli_json_open(&cmd, json);
    if (f && s) {
      fputs(s, f);
      fputc('\n', f);
    }
    if (!s || cli_json_close(&cmd, f, json)) rc = 1;
    free(s);
    if (plot && write_plot(plot, b.cases, b.dev.name)) rc = 1;
    if (base && compare(base, b.cases) != 0) rc = 1;
    cJSON_Delete(root);
  } else {
    if (plot && write_plot(plot, b.cases, b.dev.name)) rc = 1;
    if (base && compare(base, b.cases) != 0) rc = 1;
    cJSON_Delete(b.cases);
  }
  (void)missing;
  vncl_context_destroy(b.ctx);
  return rc;
}
