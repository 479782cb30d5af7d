/* The public diagnostic queries `vncl doctor` uses: the state of a
 * context's binary cache (vncl_context_cache_info) in each of its four
 * states, and the test build (vncl_context_selftest); bad arguments fail
 * with a message and write nothing. Public headers only. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

static void poison(vncl_cache_info *ci) { memset(ci, 0x5a, sizeof *ci); }

static void test_bad_args(void **st) {
  (void)st;
  vncl_cache_info ci, before;
  poison(&ci);
  before = ci;
  T_FAILS(NULL, vncl_context_cache_info(NULL, &ci), VNCL_ERR_INVALID_ARG,
          "ctx is NULL");
  assert_memory_equal(&ci, &before, sizeof ci);
  vncl_context *ctx = t_context("off");
  T_FAILS(ctx, vncl_context_cache_info(ctx, NULL), VNCL_ERR_INVALID_ARG,
          "out is NULL");
  double secs = -1;
  T_FAILS(NULL, vncl_context_selftest(NULL, &secs), VNCL_ERR_INVALID_ARG,
          "ctx is NULL");
  vncl_context_destroy(ctx);
}

static void test_cache_off_and_on(void **st) {
  (void)st;
  vncl_cache_info ci;
  vncl_context *ctx = t_context("off");
  poison(&ci);
  T_OK(ctx, vncl_context_cache_info(ctx, &ci));
  assert_int_equal(ci.state, VNCL_CACHE_OFF);
  assert_string_equal(ci.dir, "");
  assert_string_equal(ci.why, "");
  vncl_context_destroy(ctx);

  char dir[256], real[PATH_MAX];
  t_tmpdir(dir, sizeof dir);
  assert_non_null(realpath(dir, real));
  ctx = t_context(dir);
  poison(&ci);
  T_OK(ctx, vncl_context_cache_info(ctx, &ci));
  assert_int_equal(ci.state, VNCL_CACHE_ON);
  assert_string_equal(ci.dir, real);
  assert_string_equal(ci.why, "");
  assert_string_equal(ci.fix, "");
  /* The test build goes through this cache and succeeds. */
  double secs = -1;
  T_OK(ctx, vncl_context_selftest(ctx, &secs));
  assert_true(secs >= 0);
  T_OK(ctx, vncl_context_selftest(ctx, NULL));
  vncl_context_destroy(ctx);
  t_rmtree(dir);
}

static void test_cache_untrusted_and_unusable(void **st) {
  (void)st;
  char dir[256], loose[400], cache[500], file[500], under[600];
  t_tmpdir(dir, sizeof dir);
  snprintf(loose, sizeof loose, "%s/shared", dir);
  assert_int_equal(mkdir(loose, 0700), 0);
  assert_int_equal(chmod(loose, 0777), 0);
  snprintf(cache, sizeof cache, "%s/vnclcache", loose);
  vncl_context *ctx = t_context(cache);
  vncl_cache_info ci;
  poison(&ci);
  T_OK(ctx, vncl_context_cache_info(ctx, &ci));
  assert_int_equal(ci.state, VNCL_CACHE_UNTRUSTED);
  assert_string_equal(ci.dir, cache);
  if (!strstr(ci.why, loose))
    fail_msg("why '%s' does not name %s", ci.why, loose);
  char want[600];
  snprintf(want, sizeof want, "chmod go-w '%s'", loose);
  if (!strstr(ci.fix, want)) fail_msg("fix '%s' is not '%s'", ci.fix, want);
  vncl_context_destroy(ctx);

  /* A folder below a plain file cannot be made. */
  snprintf(file, sizeof file, "%s/plain", dir);
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fclose(f);
  snprintf(under, sizeof under, "%s/cache", file);
  ctx = t_context(under);
  poison(&ci);
  T_OK(ctx, vncl_context_cache_info(ctx, &ci));
  assert_int_equal(ci.state, VNCL_CACHE_UNUSABLE);
  assert_string_equal(ci.dir, under);
  assert_true(strlen(ci.why) > 0 && strlen(ci.why) < sizeof ci.why);
  assert_string_equal(ci.fix, "");
  vncl_context_destroy(ctx);
  t_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_args),
      cmocka_unit_test(test_cache_off_and_on),
      cmocka_unit_test(test_cache_untrusted_and_unusable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
