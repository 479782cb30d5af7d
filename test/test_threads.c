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
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
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

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "child")) return child(argv[2], argv[3]);
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (n <= 0) return 1;
  self_path[n] = '\0';
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_share_context),
      cmocka_unit_test(test_processes_share_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
