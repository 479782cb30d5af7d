/* Non-temporal stores by the size of a call (NT_CACHE; docs/ops.md,
 * thirtieth pass). For each family that has such stores (elementwise,
 * cast, transpose, softmax, random), on fresh contexts: a call that moves
 * less than NT_CACHE quarters of the device's global-memory cache builds
 * its program without them; one that moves that much or more (the cache
 * figure made small, exactly at the threshold and just above it), any call
 * on a device that reports no cache, and any call under NT_CACHE 0 build it
 * with what the family's set allows. Every result is checked element by
 * element either way (random: bit-identical between the two kinds of
 * store). */
#include "test_ops.h"

/* Internal headers on purpose: the device's cache figure
 * (ctx->mem_cache_bytes) is faked, and the programs a context built are
 * listed. */
#include "runtime/runtime.h"
#include "ops/ops.h"

/* Whether c built a program of `source` whose options hold `opt` as a
 * whole word ("-DNT_STORE=1"). */
static bool built_with(vncl_context *c, const char *source, const char *opt) {
  const char *src[256], *opts[256];
  cl_program progs[256];
  int n = vncl__programs_list(c, src, opts, progs, 256);
  size_t len = strlen(opt);
  for (int i = 0; i < n && i < 256; i++) {
    if (strcmp(src[i], source)) continue;
    for (const char *at = strstr(opts[i], opt); at;
         at = strstr(at + 1, opt))
      if ((at == opts[i] || at[-1] == ' ') && (!at[len] || at[len] == ' '))
        return true;
  }
  return false;
}

enum { N = 4096, SIDE = 64 }; /* elements; rows x columns of 2-D shapes */

static uint64_t rnd_seed; /* one random stream for every random call */

typedef enum { F_EW, F_CAST, F_TR, F_SM, F_RND, F_COUNT } fam;
static const vncl__ops_family fam_of[F_COUNT] = {
    VNCL__OPS_ELEMENTWISE, VNCL__OPS_CAST, VNCL__OPS_TRANSPOSE,
    VNCL__OPS_SOFTMAX, VNCL__OPS_RANDOM};
static const char *const source_of[F_COUNT] = {
    "elementwise.cl", "cast.cl", "transpose.cl", "softmax.cl", "random.cl"};
static const char *const name_of[F_COUNT] = {"add", "cast f32->bf16",
                                             "transpose", "softmax",
                                             "random uniform"};
/* What each call reads and writes, in bytes (the host's count). */
static const double bytes_of[F_COUNT] = {3.0 * N * 4, N * 4.0 + N * 2.0,
                                         2.0 * N * 4, 2.0 * N * 4, N * 4.0};
static int nt_cache_pos(fam f) {
  switch (f) {
    case F_EW: return EW_NT_CACHE;
    case F_CAST: return CAST_NT_CACHE;
    case F_TR: return TR_NT_CACHE;
    case F_SM: return SM_NT_CACHE;
    default: return RND_NT_CACHE;
  }
}

/* Runs family f's call once on c, checks its result (random: returns the
 * values for the caller to compare; else NULL), and says whether the
 * program it built stores non-temporally as far as the set allows: 1
 * with, 0 without; fails when the options match neither. */
static int run_one(vncl_context *c, fam f, double **rnd_out) {
  int64_t s1[1] = {N}, s2[2] = {SIDE, N / SIDE};
  vncl_tensor *a, *b = NULL, *out;
  double *va = t_rand_vals(VNCL_F32, N, -4, 4), *vb = NULL;
  double *ref = malloc(N * sizeof *ref);
  vncl_dtype odt = f == F_CAST ? VNCL_BF16 : VNCL_F32;
  bool two_d = f == F_TR || f == F_SM;
  a = t_new(c, VNCL_F32, two_d ? 2 : 1, two_d ? s2 : s1);
  out = t_new(c, odt, two_d ? 2 : 1, two_d ? s2 : s1);
  t_write(c, a, va);
  t_poison(c, out);
  switch (f) {
    case F_EW:
      vb = t_rand_vals(VNCL_F32, N, -4, 4);
      b = t_new(c, VNCL_F32, 1, s1);
      t_write(c, b, vb);
      T_OK(c, vncl_binary(c, VNCL_ADD, a, b, out));
      for (size_t i = 0; i < N; i++) ref[i] = t_round(VNCL_F32, va[i] + vb[i]);
      break;
    case F_CAST:
      T_OK(c, vncl_cast(c, a, out));
      for (size_t i = 0; i < N; i++) ref[i] = t_round(VNCL_BF16, va[i]);
      break;
    case F_TR:
      T_OK(c, vncl_transpose(c, a, out));
      for (size_t r = 0; r < SIDE; r++)
        for (size_t k = 0; k < N / SIDE; k++)
          ref[k * SIDE + r] = va[r * (N / SIDE) + k];
      break;
    case F_SM:
      T_OK(c, vncl_softmax(c, a, out));
      for (size_t r = 0; r < SIDE; r++) {
        const double *x = va + r * (N / SIDE);
        double m = x[0], sum = 0;
        for (size_t k = 1; k < N / SIDE; k++) m = x[k] > m ? x[k] : m;
        for (size_t k = 0; k < N / SIDE; k++) sum += exp(x[k] - m);
        for (size_t k = 0; k < N / SIDE; k++)
          ref[r * (N / SIDE) + k] = exp(x[k] - m) / sum;
      }
      break;
    default:
      T_OK(c, vncl_random_uniform(c, out, rnd_seed, 3, 0, -1.0, 2.0));
      break;
  }
  double *got = t_read(c, out);
  char what[96];
  snprintf(what, sizeof what, "%s, cache figure %llu", name_of[f],
           (unsigned long long)c->mem_cache_bytes);
  if (f == F_RND) {
    for (size_t i = 0; i < N; i++)
      if (!(got[i] >= -1.0 && got[i] <= 2.0))
        fail_msg("%s: element %zu is %.17g, outside [-1, 2]", what, i, got[i]);
    *rnd_out = got;
  } else {
    t_check(what, N, got, ref, f == F_SM ? 1e-5 : 0, f == F_SM ? 1e-9 : 0);
    free(got);
  }
  /* The set's own word for non-temporal stores, and the option that says
   * whether this call's program has them. */
  int p[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(c, fam_of[f], p);
  char on[32], off[32];
  const char *flag = f == F_SM || f == F_RND ? "NT_OUT" : "NT_STORE";
  int allowed = f == F_EW     ? p[EW_NT_STORE]
                : f == F_CAST ? p[CAST_NT_STORE]
                : f == F_TR   ? p[TR_NT_STORE]
                : f == F_SM   ? (N / SIDE) % p[SM_VW] == 0 &&
                                  N / SIDE >= p[SM_NT_MIN]
                              : 1;
  snprintf(on, sizeof on, "-D%s=%d", flag, allowed);
  snprintf(off, sizeof off, "-D%s=0", flag);
  bool has_on = built_with(c, source_of[f], on);
  bool has_off = built_with(c, source_of[f], off);
  int r = has_on && (allowed || !has_off) ? 1 : 0;
  if (!has_on && !has_off)
    fail_msg("%s: no %s program with %s or %s", what, source_of[f], on, off);
  if (has_on && has_off && allowed)
    fail_msg("%s: %s built both with and without non-temporal stores", what,
             source_of[f]);
  /* transpose's row copies follow the same rule (RUN_NT) */
  if (f == F_TR && p[TR_RUN_NT]) {
    snprintf(on, sizeof on, "-DRUN_NT=%d", r);
    if (!built_with(c, source_of[f], on))
      fail_msg("%s: RUN_NT does not follow NT_STORE (want %s)", what, on);
  }
  vncl_tensor_destroy(a), vncl_tensor_destroy(out);
  if (b) vncl_tensor_destroy(b);
  free(va), free(vb), free(ref);
  return allowed ? r : -1; /* -1: the set has none to give */
}

/* One call of family f on a fresh context whose cache figure is `cache`
 * (UINT64_MAX: the device's own) and whose NT_CACHE is `q` (-1: the
 * set's); returns run_one's answer and the set's NT_CACHE in *q_out. */
static int case_run(fam f, uint64_t cache, int q, int *q_out,
                    double **rnd_out) {
  vncl_context *c = t_context(NULL);
  if (cache != UINT64_MAX) c->mem_cache_bytes = cache;
  int p[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(c, fam_of[f], p);
  if (q >= 0) {
    p[nt_cache_pos(f)] = q;
    T_OK(c, vncl__ops_params_set(c, fam_of[f], p));
  }
  *q_out = p[nt_cache_pos(f)];
  int r = run_one(c, f, rnd_out);
  vncl_context_destroy(c);
  return r;
}

static void test_nt_by_size(void **state) {
  (void)state;
  const uint64_t big = (uint64_t)1 << 40; /* every call here is small */
  rnd_seed = t_seed();
  for (int f = 0; f < F_COUNT; f++) {
    double *r_on = NULL, *r_off = NULL, *r_tmp = NULL;
    int q;
    /* The set's NT_CACHE against a cache no call here fills: ordinary
     * stores (or, with NT_CACHE 0 in the set, the set's). */
    int small = case_run((fam)f, big, -1, &q, &r_off);
    if (small < 0) {
      print_message("%s: the set has no non-temporal stores here\n",
                    name_of[f]);
      free(r_off);
      continue;
    }
    assert_int_equal(small, q == 0);
    /* NT_CACHE 0: always. */
    assert_int_equal(case_run((fam)f, big, 0, &q, &r_on), 1);
    if (f == F_RND) {
      for (size_t i = 0; i < N; i++)
        if (memcmp(&r_on[i], &r_off[i], sizeof r_on[i]))
          fail_msg("random: element %zu %.17g with non-temporal stores, "
                   "%.17g without",
                   i, r_on[i], r_off[i]);
    }
    free(r_on), free(r_off);
    /* No cache reported: always. */
    assert_int_equal(case_run((fam)f, 0, -1, &q, &r_tmp), 1);
    free(r_tmp), r_tmp = NULL;
    /* At the threshold (the call moves exactly, or a little more than, q
     * quarters of the cache): with; just below it: without. */
    int qq = q ? q : 3;
    uint64_t at = (uint64_t)(bytes_of[f] * 4 / qq);
    assert_int_equal(case_run((fam)f, at, qq, &q, &r_tmp), 1);
    free(r_tmp), r_tmp = NULL;
    assert_int_equal(case_run((fam)f, at + 8, qq, &q, &r_tmp), 0);
    free(r_tmp), r_tmp = NULL;
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nt_by_size),
  };
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
