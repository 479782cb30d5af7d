/* The status table, messages, version, option parsing helpers. */
#include <string.h>

#include "common.h"
/* Internal headers on purpose: unit tests of internal helpers (byte counts,
 * overflow checks, hashing, messages). */
#include "runtime/runtime.h"

static void test_status_table(void **st) {
  (void)st;
  static const struct {
    vncl_status s;
    const char *name;
  } all[] = {
#define ROW(name, value, text) {VNCL_##name, #name},
      VNCL_STATUS_MAP(ROW)
#undef ROW
  };
  size_t n = sizeof all / sizeof *all;
  assert_true(n >= 10);
  assert_int_equal(VNCL_OK, 0);
  for (size_t i = 0; i < n; i++) {
    if (i > 0) assert_true(all[i].s < 0);
    assert_string_equal(vncl_status_name(all[i].s), all[i].name);
    assert_true(strlen(vncl_status_string(all[i].s)) > 3);
    for (size_t j = 0; j < i; j++) assert_int_not_equal(all[i].s, all[j].s);
  }
  assert_string_equal(vncl_status_string((vncl_status)-999), "unknown status");
  assert_string_equal(vncl_status_name((vncl_status)-999), "UNKNOWN");
  /* The ones the API promises by name. */
  assert_string_equal(vncl_status_name(VNCL_ERR_INVALID_ARG), "ERR_INVALID_ARG");
  assert_string_equal(vncl_status_name(VNCL_ERR_NO_DEVICE), "ERR_NO_DEVICE");
  assert_string_equal(vncl_status_name(VNCL_ERR_OUT_OF_MEMORY),
                      "ERR_OUT_OF_MEMORY");
  assert_string_equal(vncl_status_name(VNCL_ERR_BUILD), "ERR_BUILD");
  assert_string_equal(vncl_status_name(VNCL_ERR_UNSUPPORTED), "ERR_UNSUPPORTED");
  assert_string_equal(vncl_status_name(VNCL_ERR_OPENCL), "ERR_OPENCL");
  assert_string_equal(vncl_status_name(VNCL_ERR_IO), "ERR_IO");
}

static void test_version(void **st) {
  (void)st;
  assert_int_equal(vncl_version(), VNCL_VERSION_HEX);
  assert_string_equal(vncl_version_string(), VNCL_VERSION_STRING);
}

static void test_cl_error_mapping(void **st) {
  (void)st;
  assert_int_equal(vncl__cl_fail(NULL, CL_MEM_OBJECT_ALLOCATION_FAILURE, "x"),
                   VNCL_ERR_OUT_OF_MEMORY);
  assert_non_null(strstr(vncl_errmsg(NULL), "CL_MEM_OBJECT_ALLOCATION_FAILURE"));
  assert_non_null(strstr(vncl_errmsg(NULL), "(-4)"));
  assert_int_equal(vncl__cl_fail(NULL, CL_BUILD_PROGRAM_FAILURE, "b"),
                   VNCL_ERR_BUILD);
  assert_int_equal(vncl__cl_fail(NULL, CL_INVALID_KERNEL_ARGS, "k"),
                   VNCL_ERR_OPENCL);
  assert_non_null(strstr(vncl_errmsg(NULL), "CL_INVALID_KERNEL_ARGS (-52)"));
  assert_string_equal(vncl__cl_error_name(-12345), "CL_UNKNOWN_ERROR");
}

/* Messages are per (context, thread): an error without a context does not
 * overwrite a context's message. */
static void test_message_slots(void **st) {
  (void)st;
  const vncl_context *fake = (const vncl_context *)(uintptr_t)0x1000;
  vncl__fail(fake, VNCL_ERR_IO, "context message %d", 1);
  vncl__fail(NULL, VNCL_ERR_IO, "global message");
  assert_string_equal(vncl_errmsg(fake), "context message 1");
  assert_string_equal(vncl_errmsg(NULL), "global message");
  vncl__clear_error(fake);
  assert_string_equal(vncl_errmsg(fake), "");
}

static void test_parse_bytes(void **st) {
  (void)st;
  uint64_t v = 0;
  assert_true(vncl__parse_bytes("123", &v));
  assert_int_equal(v, 123);
  assert_true(vncl__parse_bytes("64K", &v));
  assert_int_equal(v, 65536);
  assert_true(vncl__parse_bytes("1.5G", &v));
  assert_int_equal(v, 1610612736ull);
  assert_true(vncl__parse_bytes("2MiB", &v));
  assert_int_equal(v, 2u << 20);
  assert_true(vncl__parse_bytes("1t", &v));
  assert_int_equal(v, 1ull << 40);
  const char *bad[] = {"", "-1", "abc", "12Q", "1e400", "5 G x", "+3"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    v = 77;
    assert_false(vncl__parse_bytes(bad[i], &v));
    assert_int_equal(v, 77);
  }
}

static void test_helpers(void **st) {
  (void)st;
  size_t out = 5;
  assert_false(vncl__mul_overflow(SIZE_MAX / 2 + 1, 2, &out));
  assert_int_equal(out, 5);
  assert_true(vncl__mul_overflow(1u << 20, 1u << 10, &out));
  assert_int_equal(out, 1u << 30);
  assert_true(vncl__contains_nocase("Portable Computing Language", "computing"));
  assert_false(vncl__contains_nocase("NVIDIA", "amd"));
  assert_int_equal(vncl_dtype_size(VNCL_BF16), 2);
  assert_int_equal(vncl_dtype_size((vncl_dtype)99), 0);
  assert_string_equal(vncl_dtype_name(VNCL_F16), "f16");
  assert_int_not_equal(vncl__hash("a", 1, VNCL_FNV_SEED),
                       vncl__hash("b", 1, VNCL_FNV_SEED));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_table),
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_cl_error_mapping),
      cmocka_unit_test(test_message_slots),
      cmocka_unit_test(test_parse_bytes),
      cmocka_unit_test(test_helpers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
