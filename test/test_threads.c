/* Threads and processes: 8 threads share one context (tensor traffic,
 * kernel builds and launches, GEMM, elementwise ops and reductions,
 * accounting) with every result checked; 16
 * processes start at once on one empty cache folder and all get correct
 * results, no corrupt or half-written cache entry, no temporary file left.
 * `make check-tsan` runs this file under ThreadSanitizer. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "vncl_transfer.h"
/* Internal headers on purpose: launches kernels from many threads through
 * the internal launch path. */
#include "runtime/runtime.h"

enum { THREADS = 8, ITERS = 12, N = 4099 };

static vncl_context *ctx;
static vncl_tensor *shared_t; /* read by every thread at once */
static float shared_data[N];

typedef struct {
  int id;
  int errors;
  char msg[256];
} worker;

/* C = A B (GEMM) and then sum over rows of (C + bias) (ops), checked
 * against a double reference computed here. */
static vncl_status gemm_and_ops(worker *w, int it, uint64_t *r) {
  enum { M = 37, K = 29, NN = 41 };
  float a[M * K], b[K * NN], bias[NN], c[M * NN], sums[M];
  for (int i = 0; i < M * K; i++) {
    *r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
    a[i] = (float)((*r >> 40) % 200) / 100.0f - 1.0f;
  }
  for (int i = 0; i < K * NN; i++) b[i] = (float)((i * 7 + it) % 13) / 13.0f;
  for (int i = 0; i < NN; i++) bias[i] = (float)w->id - (float)i / 8;
  int64_t sa[2] = {M, K}, sb[2] = {K, NN}, sc[2] = {M, NN}, sbias[1] = {NN},
          ssum[1] = {M};
  vncl_tensor *ta = NULL, *tb = NULL, *tc = NULL, *tbias = NULL,
              *tsum = NULL;
  vncl_status s = vncl_tensor_create(ctx, VNCL_F32, 2, sa, &ta);
  if (!s) s = vncl_tensor_create(ctx, VNCL_F32, 2, sb, &tb);
  if (!s) s = vncl_tensor_create(ctx, VNCL_F32, 2, sc, &tc);
  if (!s) s = vncl_tensor_create(ctx, VNCL_F32, 1, sbias, &tbias);
  if (!s) s = vncl_tensor_create(ctx, VNCL_F32, 1, ssum, &tsum);
  if (!s) s = vncl_tensor_write(ta, a, sizeof a);
  if (!s) s = vncl_tensor_write(tb, b, sizeof b);
  if (!s) s = vncl_tensor_write(tbias, bias, sizeof bias);
  if (!s) s = vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, ta, tb, 0, tc);
  if (!s) s = vncl_tensor_read(tc, c, sizeof c);
  if (!s) s = vncl_binary(ctx, VNCL_ADD, tc, tbias, tc);
  if (!s) s = vncl_reduce(ctx, VNCL_REDUCE_SUM, tc, 1, tsum);
  if (!s) s = vncl_tensor_read(tsum, sums, sizeof sums);
  double ad[M * K], bd[K * NN], refs[M * NN];
  for (int i = 0; i < M * K; i++) ad[i] = a[i];
  for (int i = 0; i < K * NN; i++) bd[i] = b[i];
  t_ref_gemm(false, false, M, NN, K, 1, 1.0, ad, K, bd, NN, 0.0, NULL, NN,
             refs, NULL);
  for (int i = 0; !s && i < M && !w->errors; i++) {
    double rowsum = 0;
    for (int j = 0; j < NN; j++) {
      double ref = refs[i * NN + j];
      if (!(fabs(c[i * NN + j] - ref) <= 1e-5 * (K + fabs(ref)))) {
        snprintf(w->msg, sizeof w->msg, "thread %d: C[%d,%d] = %g, want %g",
                 w->id, i, j, c[i * NN + j], ref);
        w->errors++;
        break;
      }
      rowsum += ref + bias[j];
    }
    if (!w->errors && !(fabs(sums[i] - rowsum) <= 1e-4 * (NN + fabs(rowsum)))) {
      snprintf(w->msg, sizeof w->msg, "thread %d: row sum %d = %g, want %g",
               w->id, i, sums[i], rowsum);
      w->errors++;
    }
  }
  vncl_tensor_destroy(ta);
  vncl_tensor_destroy(tb);
  vncl_tensor_destroy(tc);
  vncl_tensor_destroy(tbias);
  vncl_tensor_destroy(tsum);
  return s;
}

static void *work(void *arg) {
  worker *w = arg;
  uint64_t r = 0x9E3779B97F4A7C15ULL * (uint64_t)(w->id + 1);
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y),
        *back = malloc(N * sizeof *back);
  for (int it = 0; it < ITERS && !w->errors; it++) {
    int64_t shape[1] = {N};
    vncl_tensor *tx = NULL, *ty = NULL;
    vncl_status s = vncl_tensor_create(ctx, VNCL_F32, 1, shape, &tx);
    if (!s) s = vncl_tensor_create(ctx, VNCL_F32, 1, shape, &ty);
    for (int i = 0; i < N; i++) {
      r = r * 6364136223846793005ULL + 1442695040888963407ULL;
      x[i] = (float)((r >> 40) % 1000) / 100.0f;
      y[i] = (float)w->id + it;
    }
    if (!s) s = vncl_tensor_write(tx, x, N * sizeof *x);
    if (!s) s = vncl_tensor_write(ty, y, N * sizeof *y);
    /* Half the threads ask for a program of their own options, so builds
     * race with launches; the others share one. */
    char opts[64];
    snprintf(opts, sizeof opts, "-DVNCL_THREAD_TEST=%d", w->id % 2 ? w->id : 0);
    vncl__kernel k = {0};
    if (!s) s = vncl__kernel_get(ctx, "selftest.cl", opts, "selftest_axpy", &k);
    if (!s) {
      cl_uint n = N;
      float a = 3.0f;
      s = vncl__set_args(ctx, k.k, 4, VNCL_ARG(n), VNCL_ARG(a),
                         VNCL_ARG(tx->mem), VNCL_ARG(ty->mem));
      size_t g = N;
      if (!s) s = vncl__launch(ctx, "axpy", k.k, 1, &g, NULL, 0, NULL, NULL);
      vncl__kernel_put(ctx, &k);
    }
    if (!s) s = vncl_tensor_read(ty, back, N * sizeof *back);
    for (int i = 0; !s && i < N; i++)
      if (!(fabs(back[i] - (3.0 * x[i] + y[i])) <=
            1e-6 * (1 + fabs(3.0 * x[i] + y[i])))) {
        snprintf(w->msg, sizeof w->msg, "thread %d: y[%d] = %g, expected %g",
                 w->id, i, back[i], 3.0f * x[i] + y[i]);
        w->errors++;
        break;
      }
    /* Everyone reads the shared tensor at once. */
    if (!s) s = vncl_tensor_read(shared_t, back, N * sizeof *back);
    if (!s && memcmp(back, shared_data, sizeof shared_data) != 0) {
      snprintf(w->msg, sizeof w->msg, "thread %d: shared tensor differs",
               w->id);
      w->errors++;
    }
    /* GEMM and tensor operations from every thread at once. */
    if (!s) s = gemm_and_ops(w, it, &r);
    vncl_memory_stats m;
    if (!s) s = vncl_memory_stats_get(ctx, &m);
    if (s) {
      snprintf(w->msg, sizeof w->msg, "thread %d: %s: %s", w->id,
               vncl_status_name(s), vncl_errmsg(ctx));
      w->errors++;
    }
    vncl_tensor_destroy(tx);
    vncl_tensor_destroy(ty);
  }
  free(x);
  free(y);
  free(back);
  return NULL;
}

static void test_threads_share_context(void **st) {
  (void)st;
  ctx = t_context(NULL);
  int64_t shape[1] = {N};
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &shared_t));
  t_fill_random_f32(shared_data, N);
  T_OK(ctx, vncl_tensor_write(shared_t, shared_data, sizeof shared_data));
  vncl_memory_stats before;
  T_OK(ctx, vncl_memory_stats_get(ctx, &before));
  pthread_t th[THREADS];
  worker w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].id = i;
    pthread_create(&th[i], NULL, work, &w[i]);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < THREADS; i++)
    if (w[i].errors) fail_msg("%s", w[i].msg);
  vncl_memory_stats after;
  T_OK(ctx, vncl_memory_stats_get(ctx, &after));
  assert_int_equal(after.allocated_bytes, before.allocated_bytes);
  assert_int_equal(after.live_count, before.live_count);
  /* 7 tensors per iteration, and whatever scratch the operations took. */
  assert_true(after.alloc_count - before.alloc_count >=
              (uint64_t)THREADS * ITERS * 7);
  vncl_profile pr;
  T_OK(ctx, vncl_profile_get(ctx, &pr));
  uint64_t axpys = 0;
  for (int i = 0; i < pr.num_ops; i++)
    if (!strcmp(pr.ops[i].name, "axpy")) axpys = pr.ops[i].count;
  assert_int_equal(axpys, (uint64_t)THREADS * ITERS);
  vncl_tensor_destroy(shared_t);
  vncl_context_destroy(ctx);
}

static char self_path[1024];

/* Child: one process of the crowd. */
static int child(const char *dir, const char *opts) {
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = dir;
  vncl_context *c;
  if (vncl_context_create(&c, &o)) return 10;
  int64_t shape[1] = {N};
  vncl_tensor *tx, *ty;
  if (vncl_tensor_create(c, VNCL_F32, 1, shape, &tx) ||
      vncl_tensor_create(c, VNCL_F32, 1, shape, &ty))
    return 11;
  float x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 97);
    y[i] = (float)getpid();
  }
  vncl_tensor_write(tx, x, sizeof x);
  vncl_tensor_write(ty, y, sizeof y);
  vncl__kernel k = {0};
  if (vncl__kernel_get(c, "selftest.cl", opts, "selftest_axpy", &k))
    return 12;
  cl_uint n = N;
  float a = 2;
  vncl__set_args(c, k.k, 4, VNCL_ARG(n), VNCL_ARG(a), VNCL_ARG(tx->mem),
                 VNCL_ARG(ty->mem));
  size_t g = N;
  if (vncl__launch(c, "axpy", k.k, 1, &g, NULL, 0, NULL, NULL)) return 13;
  vncl__kernel_put(c, &k);
  float out[N];
  if (vncl_tensor_read(ty, out, sizeof out)) return 14;
  for (int i = 0; i < N; i++)
    if (out[i] != 2 * x[i] + y[i]) return 15;
  vncl_tensor_destroy(tx);
  vncl_tensor_destroy(ty);
  vncl_context_destroy(c);
  return 0;
}

static void test_processes_share_cache(void **st) {
  (void)st;
  char dir[256], opts[64];
  t_tmpdir(dir, sizeof dir);
  snprintf(opts, sizeof opts, "-DVNCL_CROWD=%llu",
           (unsigned long long)(t_rand_u64() >> 8));
  enum { P = 16 };
  pid_t pids[P];
  for (int i = 0; i < P; i++) {
    pids[i] = fork();
    if (pids[i] == 0) {
      /* PoCL's own kernel cache is not safe for many processes compiling
       * the same program at the same moment (seen here: a build failure or
       * a crash inside PoCL, about one run in three under load), so each
       * process gets its own; vncl's cache, under test, stays shared. */
      char pocl[300];
      snprintf(pocl, sizeof pocl, "%s.pocl-%d", dir, i);
      setenv("POCL_CACHE_DIR", pocl, 1);
      execl(self_path, self_path, "child", dir, opts, (char *)NULL);
      _exit(99);
    }
  }
  for (int i = 0; i < P; i++) {
    int stc;
    waitpid(pids[i], &stc, 0);
    if (!WIFEXITED(stc) || WEXITSTATUS(stc) != 0)
      fail_msg("process %d failed: exit %d, signal %d", i,
               WIFEXITED(stc) ? WEXITSTATUS(stc) : -1,
               WIFSIGNALED(stc) ? WTERMSIG(stc) : 0);
  }
  for (int i = 0; i < P; i++) {
    char pocl[300];
    snprintf(pocl, sizeof pocl, "%s.pocl-%d", dir, i);
    t_rmtree(pocl);
  }
  /* One valid entry, nothing half-written. */
  DIR *d = opendir(dir);
  struct dirent *e;
  int files = 0;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    assert_null(strstr(e->d_name, ".tmp."));
    files++;
  }
  closedir(d);
  assert_int_equal(files, 1);
  /* And it is a hit for the next process. */
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = dir;
  vncl_context *c;
  T_OK(NULL, vncl_context_create(&c, &o));
  vncl__program *p;
  T_OK(c, vncl__program_get(c, "selftest.cl", opts, &p));
  assert_int_equal(c->binary_hits, 1);
  assert_int_equal(c->programs_built, 0);
  vncl_context_destroy(c);
  t_rmtree(dir);
}

/* ---- a driver that deadlocks when commands meet ---------------------------
 * PoCL's single-threaded device before PoCL 5.0 deadlocks when two threads
 * enqueue on it at once or a command waits on an event not yet complete
 * (lib/runtime/driver.c). A child process of this test selects it
 * (POCL_DEVICES="basic pthread", the device by name) and runs asynchronous
 * transfers and products from four threads at once, every result checked;
 * before vncl serialized its commands there, such a run hung or read C
 * back before its product. Then the lock's scope: the threaded device's
 * queue and events do not take it, the serial one's do. An alarm turns a
 * hang into a failure. */

enum { SER_THREADS = 4, SER_ITERS = 6, SER_N = 48 };
static vncl_context *ser_ctx;

static void *serial_worker(void *arg) {
  intptr_t id = (intptr_t)arg, bad = 0;
  float a[SER_N * SER_N], b[SER_N * SER_N], c[SER_N * SER_N];
  int64_t sh[2] = {SER_N, SER_N};
  for (int it = 0; it < SER_ITERS; it++) {
    /* Small integers: every product and sum is exact in f32. */
    for (int i = 0; i < SER_N * SER_N; i++) {
      a[i] = (float)((i * 7 + (int)id * 3 + it) % 9) - 4;
      b[i] = (float)((i * 5 + it) % 7) - 3;
      c[i] = NAN;
    }
    vncl_tensor *ta = NULL, *tb = NULL, *tc = NULL;
    vncl_event *ea = NULL, *eb = NULL, *ec = NULL;
    vncl_status s = vncl_tensor_create(ser_ctx, VNCL_F32, 2, sh, &ta);
    if (!s) s = vncl_tensor_create(ser_ctx, VNCL_F32, 2, sh, &tb);
    if (!s) s = vncl_tensor_create(ser_ctx, VNCL_F32, 2, sh, &tc);
    if (!s) s = vncl_tensor_write_async(ta, a, sizeof a, 0, NULL, &ea);
    if (!s) s = vncl_tensor_write_async(tb, b, sizeof b, 0, NULL, &eb);
    if (!s)
      s = vncl_gemm(ser_ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, ta, tb, 0, tc);
    if (!s) s = vncl_tensor_read_async(tc, c, sizeof c, 0, NULL, &ec);
    if (!s) s = vncl_event_wait(ec);
    if (!s) s = vncl_event_wait(ea);
    if (!s) s = vncl_event_wait(eb);
    if (s) {
      fprintf(stderr, "thread %d: %s: %s\n", (int)id, vncl_status_name(s),
              vncl_errmsg(ser_ctx));
      bad++;
    }
    for (int i = 0; !s && i < SER_N; i++)
      for (int j = 0; j < SER_N; j++) {
        double r = 0;
        for (int p = 0; p < SER_N; p++)
          r += (double)a[i * SER_N + p] * b[p * SER_N + j];
        if (!(c[i * SER_N + j] == (float)r)) bad++;
      }
    vncl_event_release(ea);
    vncl_event_release(eb);
    vncl_event_release(ec);
    vncl_tensor_destroy(ta);
    vncl_tensor_destroy(tb);
    vncl_tensor_destroy(tc);
  }
  return (void *)bad;
}

/* The child: 0 passed, 77 no such device here, else a failure code. */
static int serial_child(void) {
  alarm(120);
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  o.device = "basic"; /* by name: PoCL also lists its threaded device */
  if (vncl_context_create(&ser_ctx, &o)) return 77;
  vncl_device_info info;
  if (vncl_context_device_info(ser_ctx, &info)) return 10;
  /* The driver table's rule, from the device found: before PoCL 5.0. */
  int serial_expected =
      t_pocl_serial_expected(info.name, info.driver_version);
  if (serial_expected < 0)
    return 77; /* POCL_DEVICES named a device this PoCL lacks */
  if (info.serial_driver != serial_expected) return 11;
  pthread_t th[SER_THREADS];
  for (intptr_t i = 0; i < SER_THREADS; i++)
    if (pthread_create(&th[i], NULL, serial_worker, (void *)i)) return 12;
  intptr_t bad = 0;
  for (int i = 0; i < SER_THREADS; i++) {
    void *r;
    pthread_join(th[i], &r);
    bad += (intptr_t)r;
  }
  if (bad) return 13;
  /* The lock is for the serial context's calls only: a queue or event of
   * a context on PoCL's threaded device never takes it. */
  vncl_context *other = NULL;
  o.device = "pthread";
  if (serial_expected && vncl_context_create(&other, &o) == VNCL_OK) {
    cl_event eo = NULL, es = NULL;
    if (clEnqueueMarkerWithWaitList(other->queue, 0, NULL, &eo) ||
        clEnqueueMarkerWithWaitList(ser_ctx->queue, 0, NULL, &es))
      return 20;
    bool held = vncl__serial_enter_queue(other->queue);
    vncl__serial_leave(held);
    if (held) return 21;
    held = vncl__serial_enter_events(1, &eo);
    vncl__serial_leave(held);
    if (held) return 22;
    held = vncl__serial_enter_queue(ser_ctx->queue);
    vncl__serial_leave(held);
    if (!held) return 23;
    held = vncl__serial_enter_events(1, &es);
    vncl__serial_leave(held);
    if (!held) return 24;
    clFinish(other->queue);
    clFinish(ser_ctx->queue);
    clReleaseEvent(eo);
    clReleaseEvent(es);
    vncl_context_destroy(other);
  }
  /* A wait list with an event not yet complete: refused there, with
   * nothing enqueued (C keeps its poison); taken once it has completed. */
  cl_context clc;
  if (vncl_context_cl(ser_ctx, &clc, NULL, NULL)) return 14;
  cl_int err;
  cl_event user = clCreateUserEvent(clc, &err);
  int64_t sh[1] = {SER_N};
  vncl_tensor *t;
  if (err || vncl_tensor_create(ser_ctx, VNCL_F32, 1, sh, &t)) return 15;
  float x[SER_N], y[SER_N];
  for (int i = 0; i < SER_N; i++) x[i] = (float)i, y[i] = NAN;
  if (vncl_tensor_write(t, x, sizeof x)) return 16;
  vncl_event *e = NULL;
  vncl_status s = vncl_tensor_read_async(t, y, sizeof y, 1, &user, &e);
  if (serial_expected) {
    if (s != VNCL_ERR_UNSUPPORTED || e || !isnan(y[0])) return 17;
    clSetUserEventStatus(user, CL_COMPLETE);
    s = vncl_tensor_read_async(t, y, sizeof y, 1, &user, &e);
  } else {
    clSetUserEventStatus(user, CL_COMPLETE);
  }
  if (s || vncl_event_wait(e)) return 18;
  if (memcmp(x, y, sizeof x)) return 19;
  vncl_event_release(e);
  clReleaseEvent(user);
  vncl_tensor_destroy(t);
  vncl_context_destroy(ser_ctx);
  return 0;
}

static void test_serial_driver(void **st) {
  (void)st;
  vncl_device_info info;
  vncl_context *c = t_context(NULL);
  T_OK(c, vncl_context_device_info(c, &info));
  vncl_context_destroy(c);
  if (!strstr(info.platform, "Portable Computing Language")) {
    print_message("skipped: no PoCL platform here\n");
    skip();
  }
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setenv("POCL_DEVICES", "basic pthread", 1);
    execl(self_path, self_path, "serial-child", (char *)NULL);
    _exit(99);
  }
  int stc;
  assert_int_equal(waitpid(pid, &stc, 0), pid);
  if (WIFEXITED(stc) && WEXITSTATUS(stc) == 77) {
    print_message("skipped: PoCL has no single-threaded device here\n");
    skip();
  }
  if (!WIFEXITED(stc) || WEXITSTATUS(stc) != 0)
    fail_msg("the child on PoCL's single-threaded device failed: exit %d, "
             "signal %d%s",
             WIFEXITED(stc) ? WEXITSTATUS(stc) : -1,
             WIFSIGNALED(stc) ? WTERMSIG(stc) : 0,
             WIFSIGNALED(stc) && WTERMSIG(stc) == SIGALRM ? " (hung)" : "");
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "child")) return child(argv[2], argv[3]);
  if (argc == 2 && !strcmp(argv[1], "serial-child")) return serial_child();
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (n <= 0) return 1;
  self_path[n] = '\0';
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_share_context),
      cmocka_unit_test(test_processes_share_cache),
      cmocka_unit_test(test_serial_driver),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
