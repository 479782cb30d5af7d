/* The untuned-device GEMM probe (lib/gemm_probe.c). PoCL is a CPU device,
 * which is not probed by default, so these tests force the probe
 * (VNCL_GEMM_PROBE=force) and make a class untuned by removing whatever set
 * the tuning database installed for it: the situation of a GPU with no
 * tuning entry. Checked: the probe runs once per device and class, stores
 * its winner beside the binary cache, a later "process" (the answers in
 * memory forgotten) reads the record instead of probing, the recorded
 * winner is the backend that runs, a garbled record is probed again, a
 * tuned class and VNCL_GEMM_PROBE=0 are never probed, and every product
 * stays right (fresh random inputs, C poisoned, each element against a
 * double reference). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
/* Internal headers on purpose: the probe's statistics and its record file
 * (vncl__gemm_probe_*), which are not public. */
#include "gemm/gemm.h"

static char dir[256];

static int setup(void **st) {
  (void)st;
  t_tmpdir(dir, sizeof dir);
  char db[300];
  snprintf(db, sizeof db, "%s/no-tuning.json", dir); /* absent: no file */
  setenv("VNCL_TUNING_DB", db, 1);
  unsetenv("VNCL_GEMM_BACKEND");
  setenv("VNCL_GEMM_PROBE", "force", 1);
  return 0;
}
static int teardown(void **st) {
  (void)st;
  t_rmtree(dir);
  unsetenv("VNCL_GEMM_PROBE");
  unsetenv("VNCL_TUNING_DB");
  return 0;
}

/* A context on the default device with the test's cache, f32 square
 * untuned (the built-in table, as on a GPU with no entry). */
static vncl_context *untuned_context(void) {
  vncl_context *ctx = t_context(dir);
  T_OK(ctx, vncl__gemm_params_set(ctx, VNCL__GEMM_ACC32,
                                  VNCL__GEMM_SHAPE_SQUARE, NULL));
  assert_false(vncl__gemm_params_installed(ctx, VNCL__GEMM_ACC32,
                                           VNCL__GEMM_SHAPE_SQUARE));
  return ctx;
}

static void product_ok(vncl_context *ctx, size_t m, size_t n, size_t k) {
  char why[512];
  if (!t_gemm_f32_check(ctx, m, n, k, why, sizeof why)) fail_msg("%s", why);
}

static void record_read(vncl_context *ctx, char *key, size_t kcap,
                        char *winner, size_t wcap) {
  char path[1300];
  assert_true(vncl__gemm_probe_path(ctx, VNCL__GEMM_ACC32,
                                    VNCL__GEMM_SHAPE_SQUARE, path,
                                    sizeof path));
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("no probe record at %s", path);
  char line[1300];
  assert_non_null(fgets(key, (int)kcap, f));
  assert_non_null(fgets(line, sizeof line, f));
  fclose(f);
  assert_int_equal(sscanf(line, "winner %15s", winner), 1);
  assert_true(!strcmp(winner, "own") || !strcmp(winner, "clblast"));
  assert_true(wcap > 8);
}

static void record_write(vncl_context *ctx, const char *text) {
  char path[1300];
  assert_true(vncl__gemm_probe_path(ctx, VNCL__GEMM_ACC32,
                                    VNCL__GEMM_SHAPE_SQUARE, path,
                                    sizeof path));
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Probed once, recorded, reused in the process and by a later one. */
static void test_probe_once_then_record(void **st) {
  (void)st;
  vncl__gemm_probe_forget();
  int run0, load0, run, load;
  vncl__gemm_probe_stats(&run0, &load0);
  vncl_context *ctx = untuned_context();
  assert_true(ctx->gemm_probe);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  product_ok(ctx, 97, 90, 83);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  vncl__gemm_probe_stats(&run, &load);
  assert_int_equal(run, run0 + 1);
  assert_int_equal(load, load0);
  char key[1300], winner[16];
  record_read(ctx, key, sizeof key, winner, sizeof winner);
  assert_non_null(strstr(key, "f32 square"));
  print_message("probe (forced) on this device: winner %s, first product "
                "with the probe %.2f s\n", winner,
                (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  /* Another product of the class: answered from memory. */
  product_ok(ctx, 130, 129, 65);
  vncl__gemm_probe_stats(&run, &load);
  assert_int_equal(run, run0 + 1);
  assert_int_equal(load, load0);
  vncl_context_destroy(ctx);

  /* A new process: the record answers, nothing is measured. */
  vncl__gemm_probe_forget();
  ctx = untuned_context();
  product_ok(ctx, 77, 129, 64);
  vncl__gemm_probe_stats(&run, &load);
  assert_int_equal(run, run0 + 1);
  assert_int_equal(load, load0 + 1);
  vncl_context_destroy(ctx);
}

/* The recorded winner is what runs: CLBlast builds no program of ours. */
static void test_record_decides(void **st) {
  (void)st;
  vncl_context *ctx = untuned_context();
  product_ok(ctx, 64, 64, 64); /* probes or reads: a record exists */
  char key[1300], winner[16], text[1500];
  record_read(ctx, key, sizeof key, winner, sizeof winner);
  vncl_context_destroy(ctx);
  const char *names[2] = {"clblast", "own"};
  for (int w = 0; w < 2; w++) {
    snprintf(text, sizeof text, "%swinner %s size 128 own_gflops 1 "
             "clblast_gflops 1\n", key, names[w]);
    vncl__gemm_probe_forget();
    /* No binary cache would also mean no record: keep the cache but count
     * programs made by this context. */
    ctx = untuned_context();
    record_write(ctx, text);
    int run0, run;
    vncl__gemm_probe_stats(&run0, NULL);
    uint64_t before = ctx->programs_built + ctx->binary_hits;
    product_ok(ctx, 96, 80, 72);
    uint64_t ours = ctx->programs_built + ctx->binary_hits - before;
    vncl__gemm_probe_stats(&run, NULL);
    assert_int_equal(run, run0);
    if (w == 0)
      assert_true(ours == 0); /* CLBlast ran it */
    else
      assert_true(ours > 0); /* our kernels ran it */
    vncl_context_destroy(ctx);
  }
}

/* A garbled or foreign record is probed again and rewritten. */
static void test_bad_record(void **st) {
  (void)st;
  const char *bad[3] = {"", "vncl-gemm-probe 1|another device\nwinner own\n",
                        "garbage\x01\x02\n"};
  for (int i = 0; i < 3; i++) {
    vncl__gemm_probe_forget();
    vncl_context *ctx = untuned_context();
    record_write(ctx, bad[i]);
    int run0, run;
    vncl__gemm_probe_stats(&run0, NULL);
    product_ok(ctx, 65, 67, 63);
    vncl__gemm_probe_stats(&run, NULL);
    assert_int_equal(run, run0 + 1);
    char key[1300], winner[16];
    record_read(ctx, key, sizeof key, winner, sizeof winner);
    vncl_context_destroy(ctx);
  }
}

/* A class a tuning entry covers is never probed, nor with the probe off,
 * nor (by default) a CPU device; a bad VNCL_GEMM_PROBE fails creation. */
static void test_not_probed(void **st) {
  (void)st;
  int run0, run;
  vncl__gemm_probe_forget();
  vncl__gemm_probe_stats(&run0, NULL);
  vncl_context *ctx = untuned_context();
  vncl__gemm_params p;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &p);
  T_OK(ctx, vncl__gemm_params_set(ctx, VNCL__GEMM_ACC32,
                                  VNCL__GEMM_SHAPE_SQUARE, &p));
  product_ok(ctx, 75, 70, 65);
  vncl__gemm_probe_stats(&run, NULL);
  assert_int_equal(run, run0);
  vncl_context_destroy(ctx);

  setenv("VNCL_GEMM_PROBE", "0", 1);
  ctx = untuned_context();
  assert_false(ctx->gemm_probe);
  product_ok(ctx, 75, 70, 65);
  vncl__gemm_probe_stats(&run, NULL);
  assert_int_equal(run, run0);
  vncl_context_destroy(ctx);

  /* On by default for every device type but CPUs. */
  unsetenv("VNCL_GEMM_PROBE");
  ctx = t_context(dir);
  vncl_device_info d;
  vncl_context_device_info(ctx, &d);
  assert_int_equal(ctx->gemm_probe, d.type != VNCL_DEVICE_CPU);
  vncl_context_destroy(ctx);

  setenv("VNCL_GEMM_PROBE", "sometimes", 1);
  vncl_context *bad = NULL;
  T_FAILS(NULL, vncl_context_create(&bad, NULL), VNCL_ERR_INVALID_ARG,
          "VNCL_GEMM_PROBE");
  assert_null(bad);
  setenv("VNCL_GEMM_PROBE", "force", 1);
}

/* Threads sharing a context: one probe for the class, every product right
 * (the others run ours while it probes). */
static vncl_context *shared;
static char thread_why[4][512];
static void *worker(void *arg) {
  size_t i = (size_t)arg;
  thread_why[i][0] = '\0';
  if (t_gemm_f32_check(shared, 60 + i, 70 + 2 * i, 50 + i, thread_why[i],
                    sizeof thread_why[i]))
    t_gemm_f32_check(shared, 90, 65 + i, 80, thread_why[i], sizeof thread_why[i]);
  return NULL;
}

static void test_threads_share_probe(void **st) {
  (void)st;
  vncl__gemm_probe_forget();
  shared = untuned_context();
  char path[1300];
  assert_true(vncl__gemm_probe_path(shared, VNCL__GEMM_ACC32,
                                    VNCL__GEMM_SHAPE_SQUARE, path,
                                    sizeof path));
  unlink(path);
  int run0, run;
  vncl__gemm_probe_stats(&run0, NULL);
  pthread_t th[4];
  for (size_t i = 0; i < 4; i++)
    assert_int_equal(pthread_create(&th[i], NULL, worker, (void *)i), 0);
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++)
    if (thread_why[i][0]) fail_msg("thread %d: %s", i, thread_why[i]);
  vncl__gemm_probe_stats(&run, NULL);
  assert_int_equal(run, run0 + 1);
  vncl_context_destroy(shared);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_probe_once_then_record),
      cmocka_unit_test(test_record_decides),
      cmocka_unit_test(test_bad_record),
      cmocka_unit_test(test_not_probed),
      cmocka_unit_test(test_threads_share_probe),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
