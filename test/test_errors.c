/* One test per row of docs/errors.md: each status, produced by the inputs
 * the table names, through the public API, with a message that names the
 * problem, and nothing written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

#define ctx t_ctx /* the shared fixture's context (common.c) */

static vncl_tensor *mk(vncl_dtype dt, int64_t r, int64_t c) {
  int64_t s[2] = {r, c};
  vncl_tensor *t = NULL;
  T_OK(ctx, vncl_tensor_create(ctx, dt, 2, s, &t));
  return t;
}

/* Row: VNCL_ERR_INVALID_ARG, contexts and options. */
static void test_invalid_arg_context(void **st) {
  (void)st;
  T_FAILS(NULL, vncl_context_create(NULL, NULL), VNCL_ERR_INVALID_ARG, "out");
  vncl_options o;
  memset(&o, 0, sizeof o);
  vncl_context *c = NULL;
  T_FAILS(NULL, vncl_context_create(&c, &o), VNCL_ERR_INVALID_ARG,
          "struct_size");
  setenv("VNCL_MEMORY_LIMIT", "12 bananas", 1);
  T_FAILS(NULL, vncl_context_create(&c, NULL), VNCL_ERR_INVALID_ARG,
          "VNCL_MEMORY_LIMIT");
  unsetenv("VNCL_MEMORY_LIMIT");
  assert_null(c);
}

/* Row: VNCL_ERR_INVALID_ARG, tensors. */
static void test_invalid_arg_tensor(void **st) {
  (void)st;
  vncl_tensor *t = NULL;
  int64_t neg[2] = {3, -1}, huge[2] = {INT64_MAX / 2, 8};
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 0, neg, &t),
          VNCL_ERR_INVALID_ARG, "ndim");
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, neg, &t),
          VNCL_ERR_INVALID_ARG, "negative");
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, huge, &t),
          VNCL_ERR_INVALID_ARG, "overflow");
  assert_null(t);
  t = mk(VNCL_F32, 2, 2);
  float four[4] = {1, 2, 3, 4}, five[5] = {9, 9, 9, 9, 9};
  T_OK(ctx, vncl_tensor_write(t, four, sizeof four));
  T_FAILS(ctx, vncl_tensor_write(t, five, sizeof five), VNCL_ERR_INVALID_ARG,
          "20 bytes given");
  T_FAILS(ctx, vncl_tensor_read(t, five, sizeof five), VNCL_ERR_INVALID_ARG,
          "holds 16");
  for (int i = 0; i < 5; i++) assert_true(five[i] == 9);
  float back[4];
  T_OK(ctx, vncl_tensor_read(t, back, sizeof back));
  assert_memory_equal(back, four, sizeof four);
  vncl_tensor_destroy(t);
}

/* Row: VNCL_ERR_INVALID_ARG, GEMM shapes, dtypes, contexts, raw buffers. */
static void test_invalid_arg_gemm(void **st) {
  (void)st;
  vncl_tensor *a = mk(VNCL_F32, 3, 4), *b = mk(VNCL_F32, 5, 6),
              *c = mk(VNCL_F32, 3, 6), *h = mk(VNCL_F16, 4, 6);
  float poison[18];
  for (int i = 0; i < 18; i++) poison[i] = 7.0f;
  T_OK(ctx, vncl_tensor_write(c, poison, sizeof poison));
  T_FAILS(ctx, vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, a, b, 0, c),
          VNCL_ERR_INVALID_ARG, "");
  T_FAILS(ctx, vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, a, h, 0, c),
          VNCL_ERR_INVALID_ARG, "");
  T_FAILS(ctx, vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, NULL, b, 0, c),
          VNCL_ERR_INVALID_ARG, "NULL");
  vncl_context *other = t_context(NULL);
  int64_t s46[2] = {4, 6};
  vncl_tensor *ob;
  T_OK(other, vncl_tensor_create(other, VNCL_F32, 2, s46, &ob));
  T_FAILS(ctx, vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, a, ob, 0, c),
          VNCL_ERR_INVALID_ARG, "context");
  /* Raw buffers: ld below its minimum, a buffer too small. */
  cl_mem am = vncl_tensor_cl_mem(a), cm = vncl_tensor_cl_mem(c);
  cl_context clc;
  T_OK(ctx, vncl_context_cl(ctx, &clc, NULL, NULL));
  cl_int err;
  /* 4 x 6 f32 needs 96 bytes; this buffer has 48. */
  cl_mem bm = clCreateBuffer(clc, CL_MEM_READ_WRITE, 48, NULL, &err);
  assert_non_null(bm);
  T_FAILS(ctx,
          vncl_gemm_cl(ctx, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                       VNCL_NO_TRANS, 3, 6, 4, 1, am, 0, 3, am, 0, 6, 0, cm, 0,
                       6),
          VNCL_ERR_INVALID_ARG, "lda");
  T_FAILS(ctx,
          vncl_gemm_cl(ctx, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                       VNCL_NO_TRANS, 3, 6, 4, 1, am, 0, 4, bm, 0, 6, 0, cm, 0,
                       6),
          VNCL_ERR_INVALID_ARG, "holds 48 bytes");
  clReleaseMemObject(bm);
  float back[18];
  T_OK(ctx, vncl_tensor_read(c, back, sizeof back));
  assert_memory_equal(back, poison, sizeof poison); /* nothing written */
  vncl_tensor_destroy(ob);
  vncl_context_destroy(other);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(b);
  vncl_tensor_destroy(c);
  vncl_tensor_destroy(h);
}

/* Row: VNCL_ERR_INVALID_ARG, tensor operations and FFT. */
static void test_invalid_arg_ops(void **st) {
  (void)st;
  vncl_tensor *a = mk(VNCL_F32, 3, 4), *b = mk(VNCL_F32, 3, 5),
              *o = mk(VNCL_F32, 3, 4), *d = mk(VNCL_F64, 3, 4);
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, b, o), VNCL_ERR_INVALID_ARG,
          "broadcast");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, d, o), VNCL_ERR_INVALID_ARG,
          "dtype");
  T_FAILS(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, a, 5, o),
          VNCL_ERR_INVALID_ARG, "axis");
  vncl_fft_desc desc;
  vncl_fft_desc_init(&desc);
  desc.n[0] = 0;
  vncl_fft_plan *p = NULL;
  T_FAILS(ctx, vncl_fft_plan_create(ctx, &desc, &p), VNCL_ERR_INVALID_ARG,
          "");
  assert_null(p);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(b);
  vncl_tensor_destroy(o);
  vncl_tensor_destroy(d);
}

/* Row: VNCL_ERR_INVALID_ARG, transfers and pinned memory. */
static void test_invalid_arg_transfer(void **st) {
  (void)st;
  int not_pinned = 0;
  T_FAILS(ctx, vncl_host_free(ctx, &not_pinned), VNCL_ERR_INVALID_ARG, "");
  vncl_transfer_config cfg;
  T_OK(ctx, vncl_transfer_config_get(ctx, &cfg));
  cfg.chunk_bytes = 100;
  T_FAILS(ctx, vncl_transfer_config_set(ctx, &cfg), VNCL_ERR_INVALID_ARG,
          "chunk");
}

/* Row: VNCL_ERR_NO_DEVICE. */
static void test_no_device(void **st) {
  (void)st;
  int idx = 77;
  T_FAILS(NULL, vncl_device_select("some-vendor-we-lack", &idx),
          VNCL_ERR_NO_DEVICE, "devices found");
  assert_int_equal(idx, 77);
  vncl_options o;
  vncl_options_init(&o);
  o.device = "accelerator";
  vncl_context *c = NULL;
  T_FAILS(NULL, vncl_context_create(&c, &o), VNCL_ERR_NO_DEVICE,
          "accelerator");
  assert_null(c);
}

/* Row: VNCL_ERR_OUT_OF_MEMORY (the cap, the device's largest allocation). */
static void test_out_of_memory(void **st) {
  (void)st;
  vncl_options o;
  vncl_options_init(&o);
  o.memory_limit = 64 << 10;
  vncl_context *c = NULL;
  T_OK(NULL, vncl_context_create(&c, &o));
  int64_t big[1] = {1 << 20};
  vncl_tensor *t = NULL;
  T_FAILS(c, vncl_tensor_create(c, VNCL_F32, 1, big, &t),
          VNCL_ERR_OUT_OF_MEMORY, "limit");
  assert_null(t);
  vncl_device_info d;
  T_OK(c, vncl_context_device_info(c, &d));
  vncl_context_destroy(c);
  int64_t huge[1] = {(int64_t)(d.max_alloc_bytes / 4) + 1};
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, huge, &t),
          VNCL_ERR_OUT_OF_MEMORY, "maximum allocation");
}

/* Kernel sources from a folder of our making (VNCL_KERNEL_DIR). */
static vncl_context *context_with_kernels(const char *dir) {
  setenv("VNCL_KERNEL_DIR", dir, 1);
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  vncl_context *c = NULL;
  vncl_status s = vncl_context_create(&c, &o);
  unsetenv("VNCL_KERNEL_DIR");
  if (s) fail_msg("%s", vncl_errmsg(NULL));
  return c;
}

static vncl_status small_gemm(vncl_context *c) {
  int64_t s[2] = {8, 8};
  vncl_tensor *a, *b, *o;
  T_OK(c, vncl_tensor_create(c, VNCL_F32, 2, s, &a));
  T_OK(c, vncl_tensor_create(c, VNCL_F32, 2, s, &b));
  T_OK(c, vncl_tensor_create(c, VNCL_F32, 2, s, &o));
  vncl_status r = vncl_gemm(c, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, a, b, 0, o);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(b);
  vncl_tensor_destroy(o);
  return r;
}

/* Row: VNCL_ERR_BUILD: kernels that do not compile; the log is in the
 * message. */
static void test_build(void **st) {
  (void)st;
  char dir[256], path[512];
  t_tmpdir(dir, sizeof dir);
  const char *files[] = {"gemm_ref.cl",        "gemm_direct.cl",
                         "gemm_pack.cl",       "gemm_packed_cpu.cl",
                         "gemm_packed_local.cl", "gemm_small.cl"};
  for (int i = 0; i < 6; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    FILE *f = fopen(path, "w");
    fputs("__kernel void broken(void) { undeclared_thing = 1; }\n", f);
    fclose(f);
  }
  vncl_context *c = context_with_kernels(dir);
  T_FAILS(c, small_gemm(c), VNCL_ERR_BUILD, "undeclared_thing");
  vncl_context_destroy(c);
  t_rmtree(dir);
}

/* Row: VNCL_ERR_IO: a kernel folder without the sources. */
static void test_io(void **st) {
  (void)st;
  char dir[256];
  t_tmpdir(dir, sizeof dir);
  vncl_context *c = context_with_kernels(dir);
  T_FAILS(c, small_gemm(c), VNCL_ERR_IO, "VNCL_KERNEL_DIR");
  vncl_context_destroy(c);
  t_rmtree(dir);
}

/* Row: VNCL_ERR_UNSUPPORTED: arithmetic on i32. */
static void test_unsupported(void **st) {
  (void)st;
  vncl_tensor *a = mk(VNCL_I32, 4, 4), *o = mk(VNCL_I32, 4, 4);
  T_FAILS(ctx, vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, a, a, 0, o),
          VNCL_ERR_UNSUPPORTED, "i32");
  T_FAILS(ctx, vncl_binary(ctx, VNCL_ADD, a, a, o), VNCL_ERR_UNSUPPORTED,
          "i32");
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_invalid_arg_context),
      cmocka_unit_test(test_invalid_arg_tensor),
      cmocka_unit_test(test_invalid_arg_gemm),
      cmocka_unit_test(test_invalid_arg_ops),
      cmocka_unit_test(test_invalid_arg_transfer),
      cmocka_unit_test(test_no_device),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_build),
      cmocka_unit_test(test_io),
      cmocka_unit_test(test_unsupported),
  };
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
