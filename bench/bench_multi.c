/* The multi-device suite of `vncl bench`: the same work on a group of every
 * device against a group of one device (the peer, "1-device"), through the
 * same API (vncl_group_gemm on host memory, transfers included), measured
 * in the same run and interleaved round by round. The ratio is the scaling.
 * Where the rest is lost comes from each context's profile, taken over one
 * extra run of each: device time in transfers and in computation, and the
 * host time of each device's part (imbalance), recorded as "ms" cases
 * beside the rate and printed as a line under it.
 *
 * Needs two devices or more. With PoCL, start the command with them:
 *   POCL_DEVICES="pthread pthread" vncl bench --suite multi
 * (a process cannot add devices once OpenCL has started); on a machine
 * whose only device is one PoCL device and POCL_DEVICES is unset, the suite
 * does that itself, in a child process, and records the child's cases.
 *
 * Cases: f32 GEMM 2048^3 (1024^3 with --quick) split by row panels, a batch
 * of 64 (16) products of 256^3 split by batch, and a 64 MiB (16 MiB) copy
 * between two devices against memcpy. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

typedef struct multi {
  bench_ctx *b;
  vncl_group *g1, *gn;
  int n;
} multi;

static void fill(float *x, size_t n, unsigned *seed) {
  for (size_t i = 0; i < n; i++) {
    *seed = *seed * 1664525u + 1013904223u;
    x[i] = (float)((*seed >> 8) * (2.0 / 16777216.0) - 1.0);
  }
}

/* A case that could not run: said on a breakdown line (the parent of a
 * child run passes those through) and recorded as wrong, so it is never
 * merely missing from the table. */
static void case_failed(bench_ctx *b, const char *name, const char *unit,
                        const char *peer, bool oom) {
  /* oom: a host allocation of the bench's own failed (vncl's last message
   * may then be an older call's) */
  const char *why = oom ? "out of host memory" : vncl_errmsg(NULL);
  printf("          %s failed: %s\n", name, why[0] ? why : "(no message)");
  bench_case bc = {.suite = "multi", .name = name, .dtype = "f32",
                   .unit = unit, .peer = peer, .correct = false};
  bench_record(b, &bc);
}

static int run_gemm(vncl_group *g, size_t m, size_t n, size_t k,
                    size_t batch, const float *a, const float *b, float *c,
                    double *secs) {
  double t0 = bench_now();
  vncl_status s =
      batch == 1
          ? vncl_group_gemm(g, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                            VNCL_NO_TRANS, m, n, k, 1.0, a, k, b, n, 0.0, c, n)
          : vncl_group_gemm_batched(g, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                                    VNCL_NO_TRANS, m, n, k, 1.0, a, k, m * k,
                                    b, n, k * n, 0.0, c, n, m * n, batch);
  *secs = bench_now() - t0;
  return s ? -1 : 0;
}

/* Device times of one run on every context of g (profiles reset first). */
typedef struct where {
  double compute[VNCL_GROUP_MAX_DEVICES], transfer[VNCL_GROUP_MAX_DEVICES];
  double max_compute, max_transfer, max_part, mean_part;
  vncl_group_run run;
} where;

static int profile_run(vncl_group *g, size_t m, size_t n, size_t k,
                       size_t batch, const float *a, const float *b, float *c,
                       where *w) {
  memset(w, 0, sizeof *w);
  int nd = vncl_group_size(g);
  for (int i = 0; i < nd; i++) vncl_profile_reset(vncl_group_context(g, i));
  double secs;
  if (run_gemm(g, m, n, k, batch, a, b, c, &secs)) return -1;
  vncl_group_last_run(g, &w->run);
  int parts = 0;
  for (int i = 0; i < nd; i++) {
    vncl_profile p;
    if (vncl_profile_get(vncl_group_context(g, i), &p)) return -1;
    w->compute[i] = p.compute_seconds;
    w->transfer[i] = p.transfer_seconds;
    if (p.compute_seconds > w->max_compute) w->max_compute = p.compute_seconds;
    if (p.transfer_seconds > w->max_transfer)
      w->max_transfer = p.transfer_seconds;
    if (w->run.share[i]) {
      parts++;
      w->mean_part += w->run.seconds[i];
      if (w->run.seconds[i] > w->max_part) w->max_part = w->run.seconds[i];
    }
  }
  if (parts) w->mean_part /= parts;
  return 0;
}

static void gemm_case(multi *mu, const char *label, size_t m, size_t n,
                      size_t k, size_t batch) {
  bench_ctx *b = mu->b;
  size_t na = batch * m * k, nb = batch * k * n, nc = batch * m * n;
  float *a = malloc(na * sizeof *a), *bm = malloc(nb * sizeof *bm);
  float *c1 = malloc(nc * sizeof *c1), *cn = malloc(nc * sizeof *cn);
  char name[64];
  snprintf(name, sizeof name, "%s (%d dev)", label, mu->n);
  if (!a || !bm || !c1 || !cn) {
    free(a);
    free(bm);
    free(c1);
    free(cn);
    case_failed(b, name, "GFLOP/s", "1-device", true);
    return;
  }
  unsigned seed = 12345;
  fill(a, na, &seed);
  fill(bm, nb, &seed);
  int reps = b->repeats;
  double *t1 = calloc((size_t)reps, sizeof *t1),
         *tn = calloc((size_t)reps, sizeof *tn);
  double s;
  /* Warm-up: builds the programs and runs each group's speed probe. */
  bool ok = t1 && tn && !run_gemm(mu->g1, m, n, k, batch, a, bm, c1, &s) &&
            !run_gemm(mu->gn, m, n, k, batch, a, bm, cn, &s);
  for (int r = 0; r < reps && ok; r++)
    ok = !run_gemm(mu->g1, m, n, k, batch, a, bm, c1, &t1[r]) &&
         !run_gemm(mu->gn, m, n, k, batch, a, bm, cn, &tn[r]);
  /* Verify: the split result against the one-device result, every element,
   * and 64 elements of it against a dot product in double. */
  bool correct = ok;
  for (size_t i = 0; i < nc && correct; i++)
    correct = fabsf(c1[i] - cn[i]) <= 1e-5f * (float)k;
  for (int t = 0; t < 64 && correct; t++) {
    size_t g0 = (size_t)t % batch, i = (size_t)t * 37 % m,
           j = (size_t)t * 101 % n;
    double ref = 0;
    for (size_t p = 0; p < k; p++)
      ref += (double)a[g0 * m * k + i * k + p] * bm[g0 * k * n + p * n + j];
    correct = fabs(cn[g0 * m * n + i * n + j] - ref) <= 1e-5 * (double)k;
  }
  where w1, wn;
  if (ok)
    ok = !profile_run(mu->g1, m, n, k, batch, a, bm, c1, &w1) &&
         !profile_run(mu->gn, m, n, k, batch, a, bm, cn, &wn);
  if (ok) {
    double sp1, spn;
    double m1 = bench_median(t1, reps, &sp1), mn = bench_median(tn, reps, &spn);
    double flops = 2.0 * (double)m * n * k * batch;
    bench_case bc = {.suite = "multi", .name = name, .dtype = "f32",
        .unit = "GFLOP/s", .value = flops / mn * 1e-9, .spread = spn,
        .device_seconds = wn.max_compute, .wall_seconds = mn,
        .peer = "1-device", .peer_value = flops / m1 * 1e-9,
        .peer_spread = sp1, .flops = flops,
        .bytes = 4.0 * (double)(na + nb + nc), .correct = correct, .m = (int)m,
        .n = (int)n, .k = (int)k};
    bench_record(b, &bc);
    /* Where the time goes: the slowest device's compute and transfer time
     * against the one device's, and the slowest part against the mean. */
    char nm[64];
    snprintf(nm, sizeof nm, "%s compute (%d dev)", label, mu->n);
    bench_case cc = {.suite = "multi", .name = nm, .dtype = "f32",
        .unit = "ms", .value = 1e3 * wn.max_compute,
        .device_seconds = wn.max_compute, .wall_seconds = wn.run.wall_seconds,
        .peer = "1-device", .peer_value = 1e3 * w1.max_compute,
        .correct = correct, .m = (int)m, .n = (int)n, .k = (int)k};
    bench_record(b, &cc);
    snprintf(nm, sizeof nm, "%s transfer (%d dev)", label, mu->n);
    bench_case tc = {.suite = "multi", .name = nm, .dtype = "f32",
        .unit = "ms", .value = 1e3 * wn.max_transfer,
        .device_seconds = wn.max_transfer, .wall_seconds = wn.run.wall_seconds,
        .peer = "1-device", .peer_value = 1e3 * w1.max_transfer,
        .correct = correct, .m = (int)m, .n = (int)n, .k = (int)k};
    bench_record(b, &tc);
    printf("          %s: 1 device %.1f ms (compute %.1f, transfer %.1f ms "
           "device time); %d devices %.1f ms, ideal %.1f:",
           label, 1e3 * w1.run.wall_seconds, 1e3 * w1.compute[0],
           1e3 * w1.transfer[0], mu->n, 1e3 * wn.run.wall_seconds,
           1e3 * w1.run.wall_seconds / mu->n);
    for (int i = 0; i < mu->n; i++)
      printf(" [dev %d: %zu %s, %.0f GFLOP/s probe, part %.1f ms, compute "
             "%.1f, transfer %.1f]",
             i, wn.run.share[i],
             wn.run.split == VNCL_GROUP_SPLIT_BATCH  ? "products"
             : wn.run.split == VNCL_GROUP_SPLIT_COLS ? "cols"
                                                     : "rows",
             wn.run.speeds[i], 1e3 * wn.run.seconds[i], 1e3 * wn.compute[i],
             1e3 * wn.transfer[i]);
    double sum_c = 0;
    for (int i = 0; i < mu->n; i++) sum_c += wn.compute[i];
    printf("; compute summed over devices %.2fx the one device's, slowest "
           "part %.2fx the mean\n",
           w1.compute[0] > 0 ? sum_c / w1.compute[0] : 0,
           wn.mean_part > 0 ? wn.max_part / wn.mean_part : 0);
  } else {
    case_failed(b, name, "GFLOP/s", "1-device", !t1 || !tn);
  }
  free(t1);
  free(tn);
  free(a);
  free(bm);
  free(c1);
  free(cn);
}

static void copy_case(multi *mu, size_t bytes) {
  bench_ctx *b = mu->b;
  vncl_context *c0 = vncl_group_context(mu->gn, 0),
               *c1 = vncl_group_context(mu->gn, 1);
  int64_t n = (int64_t)(bytes / 4);
  vncl_tensor *s = NULL, *d = NULL;
  float *x = malloc(bytes), *y = malloc(bytes), *z = malloc(bytes);
  bool ok = x && y && z && !vncl_tensor_create(c0, VNCL_F32, 1, &n, &s) &&
            !vncl_tensor_create(c1, VNCL_F32, 1, &n, &d);
  unsigned seed = 7;
  if (ok) {
    fill(x, (size_t)n, &seed);
    ok = !vncl_tensor_write(s, x, bytes) && !vncl_group_copy(mu->gn, d, s);
  }
  int reps = b->repeats;
  double tv[64], tp[64];
  if (reps > 64) reps = 64;
  for (int r = 0; r < reps && ok; r++) {
    double t0 = bench_now();
    memcpy(z, x, bytes);
    tp[r] = bench_now() - t0;
    t0 = bench_now();
    ok = !vncl_group_copy(mu->gn, d, s);
    tv[r] = bench_now() - t0;
  }
  bool correct = ok && !vncl_tensor_read(d, y, bytes) && !memcmp(x, y, bytes);
  char name[64];
  snprintf(name, sizeof name, "copy %zu MiB dev0->dev1", bytes >> 20);
  if (ok) {
    double sv, sp, mv = bench_median(tv, reps, &sv),
                   mp = bench_median(tp, reps, &sp);
    bench_case bc = {.suite = "multi", .name = name, .dtype = "f32",
        .unit = "GB/s", .value = bytes / mv * 1e-9, .spread = sv,
        .wall_seconds = mv, .peer = "memcpy", .peer_value = bytes / mp * 1e-9,
        .peer_spread = sp, .bytes = (double)bytes, .correct = correct};
    bench_record(b, &bc);
  } else {
    case_failed(b, name, "GB/s", "memcpy", !x || !y || !z);
  }
  vncl_tensor_destroy(s);
  vncl_tensor_destroy(d);
  free(x);
  free(y);
  free(z);
}

/* One PoCL device and POCL_DEVICES unset: runs the suite again in a child
 * process that has two (a process cannot add devices once OpenCL has
 * started), and takes its cases from the child's JSON; the child's
 * breakdown lines are passed through. */

/* The child's exit, in words, into why. */
static void child_exit_words(int rc, char *why, size_t len) {
  if (rc == -1)
    snprintf(why, len, "its exit status could not be read");
  else if (WIFSIGNALED(rc))
    snprintf(why, len, "killed by signal %d (%s)", WTERMSIG(rc),
             strsignal(WTERMSIG(rc)));
  else if (WIFEXITED(rc) && WEXITSTATUS(rc) > 128 && WEXITSTATUS(rc) < 160)
    /* popen's shell reports its child's death by signal as 128 + it */
    snprintf(why, len, "killed by signal %d (%s)", WEXITSTATUS(rc) - 128,
             strsignal(WEXITSTATUS(rc) - 128));
  else if (WIFEXITED(rc))
    snprintf(why, len, "exit status %d", WEXITSTATUS(rc));
  else
    snprintf(why, len, "wait status %d", rc);
}

/* One run of the child. Returns the number of cases it gave (recorded in
 * b); with none, why says how it ended and what it printed last that is not
 * a table line (its standard error is read with its output). */
static int child_once(bench_ctx *b, const char *exe, char *why,
                      size_t why_len) {
  char json[] = "/tmp/vncl-bench-multi-XXXXXX";
  int fd = mkstemp(json);
  if (fd < 0) {
    snprintf(why, why_len, "mkstemp: %s", strerror(errno));
    return 0;
  }
  close(fd);
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "VNCL_BENCH_MULTI_CHILD=1 POCL_DEVICES='pthread pthread' "
           "'%s' --suite multi --repeats %d %s --json %s 2>&1",
           exe, b->repeats, b->quick ? "--quick" : "", json);
  fflush(stdout);
  FILE *p = popen(cmd, "r");
  if (!p) {
    snprintf(why, why_len, "popen: %s", strerror(errno));
    unlink(json);
    return 0;
  }
  /* The last two lines that are neither a breakdown line nor the child's
   * table: its error messages, when it has any. */
  char line[2048], last[2][512] = {"", ""};
  while (fgets(line, sizeof line, p)) {
    if (!strncmp(line, "          ", 10)) {
      fputs(line, stdout);
      continue;
    }
    if (!strncmp(line, "multi     ", 10) || !strncmp(line, "suite ", 6) ||
        !strncmp(line, "vncl ", 5) || !strncmp(line, "peer ", 5) ||
        !strncmp(line, "PoCL ", 5) || !strncmp(line, "bench: ", 7))
      continue;
    line[strcspn(line, "\n")] = '\0';
    if (!line[0]) continue;
    line[sizeof last[1] - 1] = '\0';
    memcpy(last[0], last[1], sizeof last[0]);
    memcpy(last[1], line, strlen(line) + 1);
  }
  int rc = pclose(p);
  FILE *f = fopen(json, "rb");
  char *text = NULL;
  long n = 0;
  if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
      fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) &&
      fread(text, 1, (size_t)n, f) == (size_t)n)
    text[n] = '\0';
  else {
    free(text);
    text = NULL;
  }
  if (f) fclose(f);
  unlink(json);
  cJSON *root = text ? cJSON_Parse(text) : NULL;
  free(text);
  cJSON *c, *cases = cJSON_GetObjectItem(root, "cases");
  int got = 0;
  cJSON_ArrayForEach(c, cases) {
#define STR(k) cJSON_GetStringValue(cJSON_GetObjectItem(c, k))
#define NUM(k) cJSON_GetNumberValue(cJSON_GetObjectItem(c, k))
    cJSON *mnk = cJSON_GetObjectItem(c, "mnk");
    bench_case bc = {.suite = STR("suite"), .name = STR("name"),
        .dtype = STR("dtype"), .unit = STR("unit"), .value = NUM("value"),
        .spread = NUM("spread"), .device_seconds = NUM("device_seconds"),
        .wall_seconds = NUM("wall_seconds"), .peer = STR("peer"),
        .peer_value = NUM("peer_value"), .peer_spread = NUM("peer_spread"),
        .flops = NUM("flops"), .bytes = NUM("bytes"),
        .correct = cJSON_IsTrue(cJSON_GetObjectItem(c, "correct")),
        .m = mnk ? cJSON_GetArrayItem(mnk, 0)->valueint : 0,
        .n = mnk ? cJSON_GetArrayItem(mnk, 1)->valueint : 0,
        .k = mnk ? cJSON_GetArrayItem(mnk, 2)->valueint : 0};
#undef STR
#undef NUM
    if (!bc.suite || !bc.name || !bc.unit) continue;
    bench_record(b, &bc);
    got++;
  }
  cJSON_Delete(root);
  if (!got) {
    size_t k = 0;
    child_exit_words(rc, why, why_len);
    k = strlen(why);
    for (int i = 0; i < 2 && k + 1 < why_len; i++)
      if (last[i][0]) {
        snprintf(why + k, why_len - k, "%s\"%s\"", i && last[0][0] ? ", " :
                 "; it printed last: ", last[i]);
        k = strlen(why);
      }
  }
  return got;
}

/* Runs the child, and once more when it gave no cases: the first failure
 * is printed (never hidden) but a second run that gives every case stands,
 * since a child that fails in both runs is what marks the suite "could not
 * run". Returns -1 then. */
static int run_in_child(bench_ctx *b) {
  char exe[1024], why[1200];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  /* readlink does not end the path: end it before looking into it (the
   * test for a quote read past it into the stack before 2026-12-07, and
   * once found one there: a CI run's "cannot find this program's path") */
  if (len > 0) exe[len] = '\0';
  if (len <= 0 || strchr(exe, '\'')) {
    printf("%-9s cannot find this program's path to run it again\n",
           "multi");
    return -1;
  }
  for (int attempt = 1; attempt <= 2; attempt++) {
    if (child_once(b, exe, why, sizeof why) > 0) return 0;
    printf("%-9s the run with two PoCL devices gave no cases (%s)%s\n",
           "multi", why, attempt == 1 ? "; running it once more" : "");
  }
  return -1;
}

int bench_suite_multi(bench_ctx *b) {
  int count = 0;
  if (vncl_device_count(&count) || count < 2) {
    if (count == 1 && !getenv("POCL_DEVICES") &&
        !getenv("VNCL_BENCH_MULTI_CHILD") &&
        strstr(b->dev.platform, "Portable Computing Language")) {
      printf("%-9s one PoCL device: running again with "
             "POCL_DEVICES=\"pthread pthread\"\n", "multi");
      return run_in_child(b);
    }
    printf("%-9s needs two devices or more (found %d); with PoCL run: "
           "POCL_DEVICES=\"pthread pthread\" vncl bench --suite multi\n",
           "multi", count);
    return 0;
  }
  multi mu = {b, NULL, NULL, 0};
  if (vncl_group_create(&mu.g1, "0", NULL) ||
      vncl_group_create(&mu.gn, "all", NULL)) {
    fprintf(stderr, "multi: %s\n", vncl_errmsg(NULL));
    vncl_group_destroy(mu.g1);
    return -1;
  }
  mu.n = vncl_group_size(mu.gn);
  if (b->quick) {
    gemm_case(&mu, "sgemm 1024^3", 1024, 1024, 1024, 1);
    gemm_case(&mu, "sgemm 16x256^3", 256, 256, 256, 16);
    copy_case(&mu, (size_t)16 << 20);
  } else {
    gemm_case(&mu, "sgemm 2048^3", 2048, 2048, 2048, 1);
    gemm_case(&mu, "sgemm 64x256^3", 256, 256, 256, 64);
    copy_case(&mu, (size_t)64 << 20);
  }
  vncl_group_destroy(mu.g1);
  vncl_group_destroy(mu.gn);
  return 0;
}
