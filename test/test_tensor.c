/* Tensors: round trips of odd sizes in every dtype, accessors, bad input
 * (nothing written), memory accounting, the memory limit and OOM recovery. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define ctx t_ctx /* the shared fixture's context (common.c) */

static void test_round_trips(void **st) {
  (void)st;
  const vncl_dtype types[] = {VNCL_F32, VNCL_F64, VNCL_F16, VNCL_BF16,
                              VNCL_I32};
  const int64_t sizes[] = {1, 3, 7, 17, 63, 65, 129, 1000, 4097, 65537};
  for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
      /* Shapes of 1, 2 and 3 dimensions with the same element count. */
      int64_t n = sizes[si];
      int64_t shape3[3] = {1, n, 1};
      int ndim = (int)(si % 3) + 1;
      int64_t *shape = ndim == 1 ? &n : ndim == 2 ? shape3 + 1 : shape3;
      if (ndim == 2) shape3[2] = 1;
      vncl_tensor *t = NULL;
      T_OK(ctx, vncl_tensor_create(ctx, types[ti], ndim, shape, &t));
      size_t bytes = (size_t)n * vncl_dtype_size(types[ti]);
      assert_int_equal(vncl_tensor_bytes(t), bytes);
      assert_int_equal(vncl_tensor_numel(t), (size_t)n);
      assert_int_equal(vncl_tensor_dtype(t), types[ti]);
      assert_int_equal(vncl_tensor_ndim(t), ndim);
      assert_non_null(vncl_tensor_cl_mem(t));
      assert_ptr_equal(vncl_tensor_context(t), ctx);
      unsigned char *src = malloc(bytes), *dst = malloc(bytes);
      /* A new tensor reads back as zeros. */
      memset(dst, 0xAB, bytes);
      T_OK(ctx, vncl_tensor_read(t, dst, bytes));
      for (size_t i = 0; i < bytes; i++) assert_int_equal(dst[i], 0);
      for (size_t i = 0; i < bytes; i++) src[i] = (unsigned char)t_rand_u64();
      memset(dst, 0xCD, bytes);
      T_OK(ctx, vncl_tensor_write(t, src, bytes));
      T_OK(ctx, vncl_tensor_read(t, dst, bytes));
      assert_memory_equal(src, dst, bytes);
      free(src);
      free(dst);
      vncl_tensor_destroy(t);
    }
}

static void test_accessors_and_empty(void **st) {
  (void)st;
  int64_t shape[4] = {2, 0, 3, 5};
  vncl_tensor *t;
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 4, shape, &t));
  assert_int_equal(vncl_tensor_numel(t), 0);
  assert_int_equal(vncl_tensor_bytes(t), 0);
  assert_int_equal(vncl_tensor_dim(t, 3), 5);
  assert_int_equal(vncl_tensor_dim(t, 4), -1);
  assert_int_equal(vncl_tensor_dim(t, -1), -1);
  T_OK(ctx, vncl_tensor_write(t, NULL, 0));
  T_OK(ctx, vncl_tensor_read(t, NULL, 0));
  vncl_tensor_destroy(t);
  vncl_tensor_destroy(NULL);
  assert_int_equal(vncl_tensor_numel(NULL), 0);
  assert_null(vncl_tensor_cl_mem(NULL));
  assert_int_equal(vncl_tensor_dim(NULL, 0), -1);
  int64_t big[8] = {2, 2, 2, 2, 2, 2, 2, 2};
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F64, 8, big, &t));
  assert_int_equal(vncl_tensor_bytes(t), 256 * 8);
  vncl_tensor_destroy(t);
}

static void test_bad_input(void **st) {
  (void)st;
  vncl_tensor *sentinel = (vncl_tensor *)(uintptr_t)0x5, *t = sentinel;
  int64_t shape[2] = {4, 4};
  T_FAILS(NULL, vncl_tensor_create(NULL, VNCL_F32, 2, shape, &t),
          VNCL_ERR_INVALID_ARG, "ctx");
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, NULL, &t),
          VNCL_ERR_INVALID_ARG, "shape");
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, shape, NULL),
          VNCL_ERR_INVALID_ARG, "out");
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 0, shape, &t),
          VNCL_ERR_INVALID_ARG, "ndim 0");
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 9, shape, &t),
          VNCL_ERR_INVALID_ARG, "ndim 9");
  T_FAILS(ctx, vncl_tensor_create(ctx, (vncl_dtype)17, 2, shape, &t),
          VNCL_ERR_INVALID_ARG, "dtype");
  int64_t neg[2] = {4, -3};
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, neg, &t),
          VNCL_ERR_INVALID_ARG, "negative");
  int64_t huge[3] = {1LL << 40, 1LL << 40, 1LL << 40};
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 3, huge, &t),
          VNCL_ERR_INVALID_ARG, "overflow");
  int64_t bytes_over[2] = {1LL << 31, 1LL << 31}; /* 2^62 elements * 4 */
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, bytes_over, &t),
          VNCL_ERR_INVALID_ARG, "overflow");
  assert_ptr_equal(t, sentinel);

  /* Size mismatches and NULL buffers write nothing, either way. */
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, shape, &t));
  float src[16], dst[17];
  t_fill_random_f32(src, 16);
  T_OK(ctx, vncl_tensor_write(t, src, sizeof src));
  float other[17];
  t_fill_random_f32(other, 17);
  T_FAILS(ctx, vncl_tensor_write(t, other, sizeof other), VNCL_ERR_INVALID_ARG,
          "68 bytes given");
  T_FAILS(ctx, vncl_tensor_write(t, other, 60), VNCL_ERR_INVALID_ARG, "64");
  T_FAILS(ctx, vncl_tensor_write(t, NULL, 64), VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(NULL, vncl_tensor_write(NULL, src, 64), VNCL_ERR_INVALID_ARG,
          "NULL");
  for (int i = 0; i < 17; i++) dst[i] = -7.0f;
  T_FAILS(ctx, vncl_tensor_read(t, dst, sizeof dst), VNCL_ERR_INVALID_ARG,
          "holds 64");
  for (int i = 0; i < 17; i++) assert_true(dst[i] == -7.0f);
  T_FAILS(ctx, vncl_tensor_read(t, NULL, 64), VNCL_ERR_INVALID_ARG, "NULL");
  T_OK(ctx, vncl_tensor_read(t, dst, 64));
  assert_memory_equal(src, dst, 64);
  vncl_tensor_destroy(t);
}

static void test_accounting(void **st) {
  (void)st;
  vncl_memory_stats m0, m;
  T_OK(ctx, vncl_memory_stats_get(ctx, &m0));
  assert_true(m0.device_total_bytes > 0);
  T_OK(ctx, vncl_memory_reset_peak(ctx));
  int64_t s1[1] = {1000}, s2[2] = {300, 7};
  vncl_tensor *a, *b;
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, s1, &a));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F64, 2, s2, &b));
  T_OK(ctx, vncl_memory_stats_get(ctx, &m));
  assert_int_equal(m.allocated_bytes, m0.allocated_bytes + 4000 + 16800);
  assert_int_equal(m.peak_bytes, m.allocated_bytes);
  assert_int_equal(m.live_count, m0.live_count + 2);
  assert_int_equal(m.alloc_count, m0.alloc_count + 2);
  vncl_tensor_destroy(b);
  T_OK(ctx, vncl_memory_stats_get(ctx, &m));
  assert_int_equal(m.allocated_bytes, m0.allocated_bytes + 4000);
  assert_int_equal(m.peak_bytes, m0.allocated_bytes + 20800);
  assert_int_equal(m.free_count, m0.free_count + 1);
  T_OK(ctx, vncl_memory_reset_peak(ctx));
  T_OK(ctx, vncl_memory_stats_get(ctx, &m));
  assert_int_equal(m.peak_bytes, m0.allocated_bytes + 4000);
  vncl_tensor_destroy(a);
  T_OK(ctx, vncl_memory_stats_get(ctx, &m));
  assert_int_equal(m.allocated_bytes, m0.allocated_bytes);
  assert_int_equal(m.live_count, m0.live_count);
  T_OK(ctx, vncl_memory_trim(ctx));
}

/* The cap from VNCL_MEMORY_LIMIT: beyond it an honest OOM with requested,
 * allocated and limit in the message; the context stays usable; a failed
 * allocation is not counted. */
static void test_memory_limit(void **st) {
  (void)st;
  setenv("VNCL_MEMORY_LIMIT", "1M", 1);
  vncl_context *c = t_context("off");
  unsetenv("VNCL_MEMORY_LIMIT");
  vncl_memory_stats m;
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.limit_bytes, 1 << 20);
  int64_t half[1] = {(1 << 20) / 8}; /* 512 KiB of f32 */
  vncl_tensor *a, *b, *x = NULL;
  T_OK(c, vncl_tensor_create(c, VNCL_F32, 1, half, &a));
  T_OK(c, vncl_tensor_create(c, VNCL_F32, 1, half, &b));
  int64_t one[1] = {1};
  T_FAILS(c, vncl_tensor_create(c, VNCL_F32, 1, one, &x),
          VNCL_ERR_OUT_OF_MEMORY, "limit 1.00 MiB");
  assert_null(x);
  assert_non_null(strstr(vncl_errmsg(c), "requested 4 B"));
  assert_non_null(strstr(vncl_errmsg(c), "allocated 1.00 MiB"));
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.allocated_bytes, 1 << 20);
  assert_int_equal(m.failed_count, 1);
  assert_int_equal(m.live_count, 2);
  vncl_tensor_destroy(b);
  /* Usable again after the OOM. */
  T_OK(c, vncl_tensor_create(c, VNCL_F32, 1, one, &x));
  float v = 3.5f, r = 0;
  T_OK(c, vncl_tensor_write(x, &v, 4));
  T_OK(c, vncl_tensor_read(x, &r, 4));
  assert_true(r == 3.5f);
  vncl_tensor_destroy(x);
  vncl_tensor_destroy(a);
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.allocated_bytes, 0);

  /* The option wins over the environment. */
  setenv("VNCL_MEMORY_LIMIT", "1K", 1);
  vncl_options o;
  vncl_options_init(&o);
  o.memory_limit = 4096;
  o.cache_dir = "off";
  vncl_context *c2;
  T_OK(NULL, vncl_context_create(&c2, &o));
  unsetenv("VNCL_MEMORY_LIMIT");
  T_OK(c2, vncl_memory_stats_get(c2, &m));
  assert_int_equal(m.limit_bytes, 4096);
  vncl_context_destroy(c2);
  vncl_context_destroy(c);
}

/* A request beyond what the device can hold is refused at create time. */
static void test_device_oom(void **st) {
  (void)st;
  vncl_device_info d;
  T_OK(ctx, vncl_context_device_info(ctx, &d));
  int64_t shape[1] = {(int64_t)(d.max_alloc_bytes / 4) + 1024};
  vncl_tensor *t = NULL;
  T_FAILS(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &t),
          VNCL_ERR_OUT_OF_MEMORY, "maximum allocation");
  assert_null(t);
  vncl_memory_stats m;
  T_OK(ctx, vncl_memory_stats_get(ctx, &m));
  assert_true(m.failed_count >= 1);
  int64_t ok[1] = {16};
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, ok, &t));
  vncl_tensor_destroy(t);
}

/* Destroying the context before a tensor is safe: the tensor keeps it. */
static void test_context_outlived(void **st) {
  (void)st;
  vncl_context *c = t_context("off");
  int64_t shape[1] = {8};
  vncl_tensor *t;
  T_OK(c, vncl_tensor_create(c, VNCL_I32, 1, shape, &t));
  vncl_context_destroy(c);
  int v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8];
  T_OK(NULL, vncl_tensor_write(t, v, sizeof v));
  T_OK(NULL, vncl_tensor_read(t, r, sizeof r));
  assert_memory_equal(v, r, sizeof v);
  vncl_tensor_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trips),
      cmocka_unit_test(test_accessors_and_empty),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_accounting),
      cmocka_unit_test(test_memory_limit),
      cmocka_unit_test(test_device_oom),
      cmocka_unit_test(test_context_outlived),
  };
  return cmocka_run_group_tests(tests, t_setup_nocache, t_teardown);
}
