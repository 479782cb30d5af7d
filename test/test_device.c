/* Discovery, the default order, every selector form, device info, and
 * contexts (create, options, interop, errors). Runs with two PoCL devices
 * (POCL_DEVICES="pthread pthread", set before OpenCL is first touched). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "internal.h"

static void test_discovery(void **st) {
  (void)st;
  int n = 0;
  T_OK(NULL, vncl_device_count(&n));
  assert_int_equal(n, 2);
  for (int i = 0; i < n; i++) {
    vncl_device_info d;
    T_OK(NULL, vncl_device_get_info(i, &d));
    assert_int_equal(d.index, i);
    assert_true(strlen(d.name) > 0);
    assert_true(strlen(d.platform) > 0);
    assert_true(d.compute_units >= 1);
    assert_true(d.global_mem_bytes > 0);
    assert_true(d.max_alloc_bytes > 0 &&
                d.max_alloc_bytes <= d.global_mem_bytes);
    assert_true(d.max_work_group_size >= 1);
    assert_true(d.preferred_work_group_multiple >= 1);
    assert_true(d.local_mem_bytes > 0);
    assert_true(d.compiler_available);
    assert_non_null(strstr(d.opencl_c_version, "OpenCL C"));
    assert_int_equal(d.type, VNCL_DEVICE_CPU);
    assert_int_equal(d.platform_index, 0);
    assert_int_equal(d.device_index, i); /* equal devices keep loader order */
  }
  vncl_device_info d;
  T_FAILS(NULL, vncl_device_get_info(2, &d), VNCL_ERR_INVALID_ARG,
          "out of range");
  T_FAILS(NULL, vncl_device_get_info(-1, &d), VNCL_ERR_INVALID_ARG,
          "out of range");
  T_FAILS(NULL, vncl_device_get_info(0, NULL), VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(NULL, vncl_device_count(NULL), VNCL_ERR_INVALID_ARG, "NULL");
}

static void test_selectors(void **st) {
  (void)st;
  int idx = -5;
  T_OK(NULL, vncl_device_select(NULL, &idx));
  assert_int_equal(idx, 0);
  T_OK(NULL, vncl_device_select("", &idx));
  assert_int_equal(idx, 0);
  T_OK(NULL, vncl_device_select("1", &idx));
  assert_int_equal(idx, 1);
  T_OK(NULL, vncl_device_select("0:1", &idx));
  assert_int_equal(idx, 1);
  T_OK(NULL, vncl_device_select("0:0", &idx));
  assert_int_equal(idx, 0);
  T_OK(NULL, vncl_device_select("cpu", &idx));
  assert_int_equal(idx, 0);
  T_OK(NULL, vncl_device_select("CPU", &idx));
  assert_int_equal(idx, 0);
  T_OK(NULL, vncl_device_select("pocl", &idx)); /* platform name, any case */
  assert_int_equal(idx, 0);
  T_OK(NULL, vncl_device_select("Portable Computing", &idx));
  T_OK(NULL, vncl_device_select("pthread", &idx)); /* device name */
  vncl_device_info d;
  T_OK(NULL, vncl_device_get_info(0, &d));
  T_OK(NULL, vncl_device_select(d.vendor, &idx)); /* vendor */
  assert_int_equal(idx, 0);

  idx = 42;
  T_FAILS(NULL, vncl_device_select("gpu", &idx), VNCL_ERR_NO_DEVICE,
          "devices found");
  assert_int_equal(idx, 42); /* nothing written on error */
  T_FAILS(NULL, vncl_device_select("nvidia", &idx), VNCL_ERR_NO_DEVICE,
          "pthread");
  T_FAILS(NULL, vncl_device_select("7", &idx), VNCL_ERR_NO_DEVICE, "'7'");
  T_FAILS(NULL, vncl_device_select("3:0", &idx), VNCL_ERR_NO_DEVICE, "0:1");
  T_FAILS(NULL, vncl_device_select("accelerator", &idx), VNCL_ERR_NO_DEVICE,
          "selector");
  assert_int_equal(idx, 42);
  T_FAILS(NULL, vncl_device_select("0", NULL), VNCL_ERR_INVALID_ARG, "NULL");
}

static void test_context_selection(void **st) {
  (void)st;
  vncl_options o;
  vncl_options_init(&o);
  o.device = "0:1";
  o.cache_dir = "off";
  vncl_context *ctx = NULL;
  T_OK(NULL, vncl_context_create(&ctx, &o));
  vncl_device_info d;
  T_OK(ctx, vncl_context_device_info(ctx, &d));
  assert_int_equal(d.index, 1);
  cl_context c = NULL;
  cl_command_queue q = NULL;
  cl_device_id dev = NULL;
  T_OK(ctx, vncl_context_cl(ctx, &c, &q, &dev));
  assert_non_null(c);
  assert_non_null(q);
  assert_non_null(dev);
  T_OK(ctx, vncl_context_cl(ctx, NULL, NULL, NULL));
  T_OK(ctx, vncl_finish(ctx));
  vncl_context_destroy(ctx);

  /* The environment is used when the option is left unset. */
  setenv("VNCL_DEVICE", "1", 1);
  vncl_options_init(&o);
  o.cache_dir = "off";
  T_OK(NULL, vncl_context_create(&ctx, &o));
  T_OK(ctx, vncl_context_device_info(ctx, &d));
  assert_int_equal(d.index, 1);
  vncl_context_destroy(ctx);
  setenv("VNCL_DEVICE", "amd", 1);
  vncl_context *bad = (vncl_context *)(uintptr_t)0x1;
  T_FAILS(NULL, vncl_context_create(&bad, NULL), VNCL_ERR_NO_DEVICE, "amd");
  assert_ptr_equal(bad, (vncl_context *)(uintptr_t)0x1);
  unsetenv("VNCL_DEVICE");
  vncl_context_destroy(NULL); /* no-op */
}

static void test_context_errors(void **st) {
  (void)st;
  T_FAILS(NULL, vncl_context_create(NULL, NULL), VNCL_ERR_INVALID_ARG, "out");
  vncl_options o;
  memset(&o, 0, sizeof o); /* struct_size not set */
  vncl_context *ctx = NULL;
  T_FAILS(NULL, vncl_context_create(&ctx, &o), VNCL_ERR_INVALID_ARG,
          "vncl_options_init");
  setenv("VNCL_MEMORY_LIMIT", "lots", 1);
  T_FAILS(NULL, vncl_context_create(&ctx, NULL), VNCL_ERR_INVALID_ARG,
          "VNCL_MEMORY_LIMIT");
  assert_null(ctx);
  unsetenv("VNCL_MEMORY_LIMIT");
  T_FAILS(NULL, vncl_context_cl(NULL, NULL, NULL, NULL), VNCL_ERR_INVALID_ARG,
          "ctx");
  T_FAILS(NULL, vncl_finish(NULL), VNCL_ERR_INVALID_ARG, "ctx");
  vncl_memory_stats m;
  T_FAILS(NULL, vncl_memory_stats_get(NULL, &m), VNCL_ERR_INVALID_ARG, "ctx");
}

/* Interop: wrap the application's own context and queue; vncl retains them
 * and leaves the application's references alone. */
static void test_interop(void **st) {
  (void)st;
  const vncl__device *l;
  int n;
  T_OK(NULL, vncl__devices(&l, &n));
  cl_int err;
  cl_context c = clCreateContext(NULL, 1, &l[1].device, NULL, NULL, &err);
  assert_non_null(c);
  cl_command_queue q = clCreateCommandQueue(c, l[1].device, 0, &err);
  assert_non_null(q);
  vncl_context *ctx = NULL;
  T_FAILS(NULL, vncl_context_create_from_cl(&ctx, NULL, l[1].device, q, NULL),
          VNCL_ERR_INVALID_ARG, "context");
  T_OK(NULL, vncl_context_create_from_cl(&ctx, c, l[1].device, q, NULL));
  cl_context c2;
  cl_command_queue q2;
  T_OK(ctx, vncl_context_cl(ctx, &c2, &q2, NULL));
  assert_ptr_equal(c, c2);
  assert_ptr_equal(q, q2);
  vncl_device_info d;
  T_OK(ctx, vncl_context_device_info(ctx, &d));
  assert_int_equal(d.index, 1);
  /* A tensor round trip through the wrapped queue. */
  int64_t shape[1] = {5};
  vncl_tensor *t;
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &t));
  float x[5] = {1, 2, 3, 4, 5}, y[5] = {0};
  T_OK(ctx, vncl_tensor_write(t, x, sizeof x));
  T_OK(ctx, vncl_tensor_read(t, y, sizeof y));
  assert_memory_equal(x, y, sizeof x);
  vncl_tensor_destroy(t);
  vncl_context_destroy(ctx);
  cl_uint refs = 0;
  clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL);
  assert_true(refs >= 1);
  assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
  assert_int_equal(clReleaseContext(c), CL_SUCCESS);
  /* With no queue given, vncl makes its own. */
  c = clCreateContext(NULL, 1, &l[0].device, NULL, NULL, &err);
  T_OK(NULL, vncl_context_create_from_cl(&ctx, c, l[0].device, NULL, NULL));
  T_OK(ctx, vncl_context_cl(ctx, NULL, &q2, NULL));
  assert_non_null(q2);
  vncl_context_destroy(ctx);
  clReleaseContext(c);
}

int main(void) {
  setenv("POCL_DEVICES", "pthread pthread", 1);
  unsetenv("VNCL_DEVICE");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_discovery),
      cmocka_unit_test(test_selectors),
      cmocka_unit_test(test_context_selection),
      cmocka_unit_test(test_context_errors),
      cmocka_unit_test(test_interop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
