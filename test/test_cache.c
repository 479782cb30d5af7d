/* Programs and the binary cache: in-memory reuse, hits across processes,
 * corrupted / truncated / foreign cache files, an unwritable cache folder,
 * a kernel that fails to build, and VNCL_KERNEL_DIR. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
/* Internal headers on purpose: the program list, the kernel pool and the
 * build counters, which the public API does not show. */
#include "runtime/runtime.h"

static char self_path[1024];

/* Runs selftest_axpy on n random elements and checks every one. */
static vncl_status run_axpy(vncl_context *ctx, const char *options,
                            float expect_sign) {
  enum { N = 1000 };
  float x[N], y[N], out[N];
  t_fill_random_f32(x, N);
  t_fill_random_f32(y, N);
  float a = (float)t_rand_uniform(-2, 2);
  int64_t shape[1] = {N};
  vncl_tensor *tx, *ty;
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &tx));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &ty));
  T_OK(ctx, vncl_tensor_write(tx, x, sizeof x));
  T_OK(ctx, vncl_tensor_write(ty, y, sizeof y));
  vncl__kernel k = {0};
  vncl_status s =
      vncl__kernel_get(ctx, "selftest.cl", options, "selftest_axpy", &k);
  if (s == VNCL_OK) {
    cl_uint n = N;
    cl_mem xm = tx->mem, ym = ty->mem;
    T_OK(ctx, vncl__set_args(ctx, k.k, 4, VNCL_ARG(n), VNCL_ARG(a),
                             VNCL_ARG(xm), VNCL_ARG(ym)));
    size_t g = 1000;
    T_OK(ctx, vncl__launch(ctx, "test", k.k, 1, &g, NULL, 0, NULL, NULL));
    vncl__kernel_put(ctx, &k);
    T_OK(ctx, vncl_tensor_read(ty, out, sizeof out));
    for (int i = 0; i < N; i++) {
      double ref = (double)a * x[i] + expect_sign * (double)y[i];
      if (!(fabs(out[i] - ref) <= 1e-5 * (1 + fabs(ref))))
        fail_msg("axpy[%d] = %g, expected %g", i, out[i], ref);
    }
  }
  vncl_tensor_destroy(tx);
  vncl_tensor_destroy(ty);
  return s;
}

/* Child mode: a fresh process that builds (or loads) one program. */
static int child_main(const char *dir, const char *options) {
  vncl_context *ctx = t_context(dir);
  vncl_status s = run_axpy(ctx, options, 1.0f);
  printf("status=%d built=%llu hits=%llu stores=%llu\n", (int)s,
         (unsigned long long)ctx->programs_built,
         (unsigned long long)ctx->binary_hits,
         (unsigned long long)ctx->binary_stores);
  vncl_context_destroy(ctx);
  return s ? 1 : 0;
}

typedef struct {
  int status, built, hits, stores;
} child_result;

static child_result run_child(const char *dir, const char *options) {
  char cmd[3000];
  snprintf(cmd, sizeof cmd, "'%s' child '%s' '%s'", self_path, dir, options);
  FILE *f = popen(cmd, "r");
  assert_non_null(f);
  child_result r = {-1, -1, -1, -1};
  char line[256];
  while (fgets(line, sizeof line, f))
    sscanf(line, "status=%d built=%d hits=%d stores=%d", &r.status, &r.built,
           &r.hits, &r.stores);
  int rc = pclose(f);
  if (rc != 0) fail_msg("child exited with %d", rc);
  return r;
}

/* The one cache file in dir (and no temporary files beside it). */
static void only_file(const char *dir, char *out, size_t cap) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    assert_null(strstr(e->d_name, ".tmp."));
    snprintf(out, cap, "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  assert_int_equal(n, 1);
}

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void test_cross_process_and_damage(void **st) {
  (void)st;
  char dir[256], file[600], opts[64];
  t_tmpdir(dir, sizeof dir);
  /* A unique option keeps PoCL's own cache from hiding a rebuild. */
  snprintf(opts, sizeof opts, "-DVNCL_TEST_NONCE=%llu",
           (unsigned long long)(t_rand_u64() >> 8));

  child_result r = run_child(dir, opts);
  assert_int_equal(r.status, 0);
  assert_int_equal(r.built, 1);
  assert_int_equal(r.hits, 0);
  assert_int_equal(r.stores, 1);
  only_file(dir, file, sizeof file);
  long size = file_size(file);
  assert_true(size > 64);

  r = run_child(dir, opts); /* another process: a hit, no build */
  assert_int_equal(r.built, 0);
  assert_int_equal(r.hits, 1);
  assert_int_equal(r.stores, 0);

  /* Corrupt one byte in the binary: detected by the checksum, rebuilt. */
  FILE *f = fopen(file, "r+b");
  assert_non_null(f);
  fseek(f, size - 10, SEEK_SET);
  int c = fgetc(f);
  fseek(f, size - 10, SEEK_SET);
  fputc(c ^ 0x5A, f);
  fclose(f);
  r = run_child(dir, opts);
  assert_int_equal(r.status, 0);
  assert_int_equal(r.built, 1);
  assert_int_equal(r.hits, 0);
  assert_int_equal(r.stores, 1);
  r = run_child(dir, opts);
  assert_int_equal(r.hits, 1);

  /* Truncate it: ignored, rebuilt, rewritten whole. */
  assert_int_equal(truncate(file, size / 2), 0);
  r = run_child(dir, opts);
  assert_int_equal(r.built, 1);
  assert_int_equal(r.stores, 1);
  assert_true(file_size(file) > size / 2);
  r = run_child(dir, opts);
  assert_int_equal(r.hits, 1);

  /* A foreign file under the same name (random bytes, and an empty one). */
  f = fopen(file, "wb");
  for (int i = 0; i < 4096; i++) fputc((int)(t_rand_u64() & 0xff), f);
  fclose(f);
  r = run_child(dir, opts);
  assert_int_equal(r.built, 1);
  assert_int_equal(r.hits, 0);
  f = fopen(file, "wb");
  fclose(f);
  r = run_child(dir, opts);
  assert_int_equal(r.built, 1);
  r = run_child(dir, opts);
  assert_int_equal(r.hits, 1);
  only_file(dir, file, sizeof file);
  t_rmtree(dir);
}

/* A cache folder that cannot be created only turns the cache off. */
static void test_unwritable_cache(void **st) {
  (void)st;
  char dir[256], bad[512];
  t_tmpdir(dir, sizeof dir);
  snprintf(bad, sizeof bad, "%s/plainfile", dir);
  FILE *f = fopen(bad, "w");
  fclose(f);
  snprintf(bad, sizeof bad, "%s/plainfile/cache", dir);
  vncl_context *ctx = t_context(bad);
  assert_string_equal(ctx->bincache.dir, "");
  T_OK(ctx, run_axpy(ctx, "-DVNCL_TEST_UNWRITABLE", 1.0f));
  assert_int_equal(ctx->binary_stores, 0);
  vncl_context_destroy(ctx);
  /* "off" disables it too. */
  ctx = t_context("off");
  assert_string_equal(ctx->bincache.dir, "");
  vncl_context_destroy(ctx);
  t_rmtree(dir);
}

static void test_in_memory_cache(void **st) {
  (void)st;
  vncl_context *ctx = t_context("off");
  vncl__program *p1, *p2, *p3;
  T_OK(ctx, vncl__program_get(ctx, "selftest.cl", "-DSELFTEST_REAL=float",
                              &p1));
  T_OK(ctx, vncl__program_get(ctx, "selftest.cl", "-DSELFTEST_REAL=float",
                              &p2));
  assert_ptr_equal(p1, p2);
  T_OK(ctx, vncl__program_get(ctx, "selftest.cl", "-DSELFTEST_REAL=double",
                              &p3));
  assert_ptr_not_equal(p1, p3);
  assert_int_equal(ctx->programs_built, 2);
  /* Two kernels out of the pool at once are distinct objects. */
  vncl__kernel k1, k2, k3, kx;
  T_OK(ctx, vncl__kernel_from(ctx, p1, "selftest_axpy", &k1));
  T_OK(ctx, vncl__kernel_from(ctx, p1, "selftest_axpy", &k2));
  assert_ptr_not_equal(k1.k, k2.k);
  cl_kernel first = k1.k;
  vncl__kernel_put(ctx, &k1);
  assert_null(k1.k);
  T_OK(ctx, vncl__kernel_from(ctx, p1, "selftest_axpy", &k3));
  assert_ptr_equal(first, k3.k);
  vncl__kernel_put(ctx, &k2);
  vncl__kernel_put(ctx, &k3);
  T_FAILS(ctx, vncl__kernel_from(ctx, p1, "no_such_kernel", &kx),
          VNCL_ERR_OPENCL, "CL_INVALID_KERNEL_NAME");
  assert_null(kx.k);
  T_FAILS(ctx, vncl__program_get(ctx, "no_such_file.cl", "", &p3),
          VNCL_ERR_INTERNAL, "no_such_file.cl");
  vncl_context_destroy(ctx);
}

static void test_build_failure(void **st) {
  (void)st;
  char dir[256];
  t_tmpdir(dir, sizeof dir);
  vncl_context *ctx = t_context(dir);
  vncl__program *p = NULL;
  T_FAILS(ctx,
          vncl__program_get(ctx, "selftest.cl", "-DVNCL_SELFTEST_BREAK", &p),
          VNCL_ERR_BUILD, "this_is_not_defined");
  assert_null(p);
  assert_non_null(strstr(vncl_errmsg(ctx), "selftest.cl"));
  assert_non_null(strstr(vncl_errmsg(ctx), "-DVNCL_SELFTEST_BREAK"));
  /* Nothing cached for it, and the context still works. */
  DIR *d = opendir(dir);
  struct dirent *e;
  int files = 0;
  while ((e = readdir(d)) != NULL) files += e->d_name[0] != '.';
  closedir(d);
  assert_int_equal(files, 0);
  T_OK(ctx, run_axpy(ctx, "", 1.0f));
  vncl_context_destroy(ctx);
  t_rmtree(dir);
}

static void test_kernel_dir(void **st) {
  (void)st;
  char dir[256], path[512];
  t_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/selftest.cl", dir);
  FILE *f = fopen(path, "w");
  fputs("__kernel void selftest_axpy(const uint n, const float a,\n"
        "  __global const float *x, __global float *y) {\n"
        "  const uint i = get_global_id(0);\n"
        "  if (i < n) y[i] = a * x[i] - y[i];\n}\n",
        f);
  fclose(f);
  setenv("VNCL_KERNEL_DIR", dir, 1);
  vncl_context *ctx = t_context("off");
  unsetenv("VNCL_KERNEL_DIR");
  T_OK(ctx, run_axpy(ctx, "", -1.0f)); /* the file's kernel ran */
  vncl__program *p;
  T_FAILS(ctx, vncl__program_get(ctx, "gemm_missing.cl", "", &p), VNCL_ERR_IO,
          "gemm_missing.cl");
  vncl_context_destroy(ctx);
  t_rmtree(dir);
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "child"))
    return child_main(argv[2], argv[3]);
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (n <= 0) return 1;
  self_path[n] = '\0';
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cross_process_and_damage),
      cmocka_unit_test(test_unwritable_cache),
      cmocka_unit_test(test_in_memory_cache),
      cmocka_unit_test(test_build_failure),
      cmocka_unit_test(test_kernel_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
