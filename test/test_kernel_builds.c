/* Every kernel program of vncl builds without a warning on this device.
 *
 * The programs: those vncl really builds while it runs every kernel family
 * (GEMM direct, pack, packed and reference kernels in each storage type
 * and shape class, elementwise and broadcast, casts, transpose and permute,
 * reductions, softmax, random numbers, vncl's FFT kernels and layouts;
 * the tensor operations twice, the second time as calls large enough for
 * non-temporal stores), read from the context's program list, plus the GEMM kernels under every
 * built-in parameter set (every vendor's row, not only this device's) in
 * f32 and f64.
 * Every build is a real one (the binary cache is off: a cache hit has no
 * build log); the test fails when a build log, or what the driver printed
 * on stderr meanwhile (PoCL prints "N warnings generated." there), mentions
 * a warning. The workload's programs are checked by their logs and by the
 * stderr of the whole workload, the extra sets one build at a time. PoCL's own kernel cache is turned
 * off for the same reason (POCL_KERNEL_CACHE=0, set before OpenCL starts). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
/* Internal headers on purpose: builds every kernel with every option set and
 * reads the build logs (program.c). */
#include "gemm/gemm.h"
#include "runtime/runtime.h"

#define MAX_PROGS 1024

static vncl_context *off_context(void) {
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  vncl_context *ctx = NULL;
  if (vncl_context_create(&ctx, &o))
    fail_msg("vncl_context_create: %s", vncl_errmsg(NULL));
  return ctx;
}

static vncl_tensor *tensor(vncl_context *ctx, vncl_dtype dt, int nd,
                           int64_t d0, int64_t d1, int64_t d2) {
  int64_t shape[3] = {d0, d1, d2};
  vncl_tensor *t = NULL;
  T_OK(ctx, vncl_tensor_create(ctx, dt, nd, shape, &t));
  T_OK(ctx, vncl_fill(ctx, t, dt == VNCL_I32 ? 3.0 : 0.5));
  return t;
}

static void gemm_once(vncl_context *ctx, vncl_dtype ab, vncl_dtype c,
                      vncl_trans tb, int64_t m, int64_t n, int64_t k) {
  vncl_tensor *a = tensor(ctx, ab, 2, m, k, 0);
  vncl_tensor *b = tb ? tensor(ctx, ab, 2, n, k, 0) : tensor(ctx, ab, 2, k, n, 0);
  vncl_tensor *cc = tensor(ctx, c, 2, m, n, 0);
  T_OK(ctx, vncl_gemm(ctx, VNCL_NO_TRANS, tb, 1.0, a, b, 0.5, cc));
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(b);
  vncl_tensor_destroy(cc);
}

/* The tensor operations in every dtype (see workload). */
static void ops_workload(vncl_context *ctx, const vncl_device_info *dp) {
  const vncl_device_info d = *dp;
  vncl_dtype all[5] = {VNCL_F32, VNCL_F16, VNCL_BF16, VNCL_I32, VNCL_F64};
  int nall = d.fp64 ? 5 : 4;
  for (int i = 0; i < nall; i++) {
    vncl_dtype t = all[i];
    bool is_fl = t != VNCL_I32;
    vncl_tensor *x = tensor(ctx, t, 2, 37, 129, 0);
    vncl_tensor *row = tensor(ctx, t, 1, 129, 0, 0);
    vncl_tensor *y = tensor(ctx, t, 2, 37, 129, 0);
    vncl_tensor *xt = tensor(ctx, t, 2, 129, 37, 0);
    vncl_tensor *x3 = tensor(ctx, t, 3, 5, 7, 9);
    vncl_tensor *p3 = tensor(ctx, t, 3, 9, 5, 7);
    T_OK(ctx, vncl_copy(ctx, x, y));
    T_OK(ctx, vncl_transpose(ctx, x, xt));
    int perm[3] = {2, 0, 1};
    T_OK(ctx, vncl_permute(ctx, x3, perm, p3));
    /* a short innermost axis moved out (NHWC -> NCHW): on CPUs 16 rows at
     * a time as P vectors (-DPACK), 3 (one shuffle a pair of vectors) in
     * every type, 13 (the 16 x 16 square) in f32 */
    for (int pi = 0; pi < (t == VNCL_F32 ? 2 : 1); pi++) {
      int64_t pa = pi ? 13 : 3;
      vncl_tensor *hw = tensor(ctx, t, 3, 2, 37, pa);
      vncl_tensor *ch = tensor(ctx, t, 3, 2, pa, 37);
      int pp[3] = {0, 2, 1};
      T_OK(ctx, vncl_permute(ctx, hw, pp, ch));
      vncl_tensor_destroy(hw);
      vncl_tensor_destroy(ch);
    }
    for (int j = 0; j < nall; j++) {
      vncl_tensor *z = tensor(ctx, all[j], 2, 37, 129, 0);
      T_OK(ctx, vncl_cast(ctx, x, z));
      vncl_tensor_destroy(z);
    }
    vncl_tensor *r0 = tensor(ctx, is_fl ? t : VNCL_I32, 1, 129, 0, 0);
    vncl_tensor *r1 = tensor(ctx, is_fl ? t : VNCL_I32, 1, 37, 0, 0);
    vncl_tensor *one = tensor(ctx, is_fl ? t : VNCL_I32, 1, 1, 0, 0);
    vncl_tensor *arg = tensor(ctx, VNCL_I32, 1, 37, 0, 0);
    if (is_fl) { /* i32 tensors are copied, cast and permuted only */
      T_OK(ctx, vncl_binary(ctx, VNCL_ADD, x, row, y)); /* broadcast */
      T_OK(ctx, vncl_binary(ctx, VNCL_MUL, x, x, y));
      T_OK(ctx, vncl_binary_scalar(ctx, VNCL_SUB, x, 2.0, y));
      T_OK(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, x, 0, r0));
      T_OK(ctx, vncl_reduce(ctx, VNCL_REDUCE_MAX, x, 1, r1));
      T_OK(ctx, vncl_reduce(ctx, VNCL_REDUCE_ARGMAX, x, 1, arg));
      T_OK(ctx, vncl_reduce_all(ctx, VNCL_REDUCE_SUM, x, one));
      /* rows of up to a vector, packed where the device's set takes
       * them so (-DPACK): reductions transposed (3, every type; argmax 15,
       * the most shuffles with vectors of 16; argmax 16, a square
       * transposition) and by the tree (4, 16), softmax transposed (3, 15;
       * 16, a square transposition where the device's vectors are of 16;
       * 15 as 8 x 8 squares where they are of 8 or 16, 16 where they are
       * of 8, PACK_H8, f32 and f16, so f16 takes 4 and 15 too; 8, as
       * two 8 x 8 squares where they are of 8, PACK_H8, f32 and f16, as
       * the reductions over 15, 16 and argmax's 8 there). reduce_rows_block needs no shape
       * of its own: it is in every reduce.cl program with vectors wider
       * than 1 */
      static const int64_t lens[] = {3, 4, 15, 8, 16};
      for (int li = 0; li < (t == VNCL_F32 ? 5 : t == VNCL_F16 ? 4 : 1);
           li++) {
        const int64_t len = lens[li];
        vncl_tensor *sr = tensor(ctx, t, 2, 64, len, 0);
        vncl_tensor *so = tensor(ctx, t, 1, 64, 0, 0);
        vncl_tensor *sa = tensor(ctx, VNCL_I32, 1, 64, 0, 0);
        vncl_tensor *ss = tensor(ctx, t, 2, 64, len, 0);
        T_OK(ctx, vncl_reduce(ctx, VNCL_REDUCE_SUM, sr, 1, so));
        T_OK(ctx, vncl_reduce(ctx, VNCL_REDUCE_ARGMAX, sr, 1, sa));
        if (len != 4) T_OK(ctx, vncl_softmax(ctx, sr, ss));
        vncl_tensor_destroy(sr);
        vncl_tensor_destroy(so);
        vncl_tensor_destroy(sa);
        vncl_tensor_destroy(ss);
      }
      T_OK(ctx, vncl_unary(ctx, VNCL_EXP, x, y));
      T_OK(ctx, vncl_axpby(ctx, 2.0, row, 0.5, y));
      T_OK(ctx, vncl_softmax(ctx, x, y));
      T_OK(ctx, vncl_log_softmax(ctx, x, y));
      /* rows of 100 with enough of them for the CPU set's rows a
       * work-item (ITEM_ROWS 4 with groups of 16: four groups a compute
       * unit), whose work-items store their rows as whole vectors of the
       * block (BLOCK_OUT, vectors of 16) */
      {
        const int64_t cu = d.compute_units ? (int64_t)d.compute_units : 1;
        const int64_t rows = 4 * 16 * 4 * cu + 3;
        vncl_tensor *bx = tensor(ctx, t, 2, rows, 100, 0);
        vncl_tensor *by = tensor(ctx, t, 2, rows, 100, 0);
        T_OK(ctx, vncl_softmax(ctx, bx, by));
        T_OK(ctx, vncl_log_softmax(ctx, bx, by));
        vncl_tensor_destroy(bx);
        vncl_tensor_destroy(by);
      }
      T_OK(ctx, vncl_random_uniform(ctx, y, 7, 0, 0, -1, 1));
      T_OK(ctx, vncl_random_normal(ctx, y, 7, 1, 0, 0, 1));
    }
    vncl_tensor *ts[] = {x, row, y, xt, x3, p3, r0, r1, one, arg};
    for (size_t j = 0; j < sizeof ts / sizeof *ts; j++)
      vncl_tensor_destroy(ts[j]);
  }
}

/* Runs every kernel family once in each storage type it takes. */
static void workload(vncl_context *ctx) {
  vncl_device_info d;
  vncl_context_device_info(ctx, &d);
  vncl_dtype fl[4] = {VNCL_F32, VNCL_F16, VNCL_BF16, VNCL_F64};
  int nfl = d.fp64 ? 4 : 3;
  /* GEMM: direct (small), packed (above every switch), B strided, the
   * narrow and flat classes, C in f32 for 16-bit inputs, k = 0. */
  /* Large products only on CPUs: elsewhere the built-in sets below cover
   * the packed kernels' options, and a simulator (Oclgrind) is slow. */
  int64_t big = d.type == VNCL_DEVICE_CPU ? 400 : 48;
  for (int i = 0; i < nfl; i++) {
    gemm_once(ctx, fl[i], fl[i], VNCL_NO_TRANS, 33, 35, 37);
    gemm_once(ctx, fl[i], fl[i], VNCL_NO_TRANS, big, big, big);
    gemm_once(ctx, fl[i], fl[i], VNCL_TRANS, 61, 60, 59);
    gemm_once(ctx, fl[i], fl[i], VNCL_NO_TRANS, 8 * big / 3, 64, big);
    gemm_once(ctx, fl[i], fl[i], VNCL_NO_TRANS, 64, 8 * big / 3, big);
    gemm_once(ctx, fl[i], fl[i], VNCL_NO_TRANS, 8, 9, 0);
    if (fl[i] == VNCL_F16 || fl[i] == VNCL_BF16)
      gemm_once(ctx, fl[i], VNCL_F32, VNCL_NO_TRANS, big, big, big);
  }
  ops_workload(ctx, &d);
  /* Again as calls that move enough for non-temporal stores (NT_CACHE; a
   * device that reports no cache takes them at every size), so that the
   * programs with those stores build too. */
  const uint64_t cache = ctx->mem_cache_bytes;
  ctx->mem_cache_bytes = 0;
  ops_workload(ctx, &d);
  ctx->mem_cache_bytes = cache;
  /* vncl's FFT kernels: Stockham (2^a 3^b 5^c), Bluestein (a large prime),
   * real transforms and more than one dimension (the layout kernels). */
  for (int p = 0; p < (d.fp64 ? 2 : 1); p++) {
    vncl_dtype rt = p ? VNCL_F64 : VNCL_F32;
    const struct {
      vncl_fft_type type;
      int ndim;
      int64_t n[3];
    } plans[] = {{VNCL_FFT_C2C, 1, {360, 1, 1}},
                 {VNCL_FFT_C2C, 1, {1031, 1, 1}},
                 {VNCL_FFT_R2C, 1, {240, 1, 1}},
                 {VNCL_FFT_C2R, 1, {240, 1, 1}},
                 {VNCL_FFT_C2C, 2, {12, 20, 1}},
                 {VNCL_FFT_C2C, 3, {4, 6, 10}}};
    for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
      vncl_fft_desc desc;
      vncl_fft_desc_init(&desc);
      desc.type = plans[i].type;
      desc.dtype = rt;
      desc.ndim = plans[i].ndim;
      for (int j = 0; j < 3; j++) desc.n[j] = plans[i].n[j];
      desc.batch = 3;
      desc.backend = VNCL_FFT_BACKEND_VNCL;
      vncl_fft_plan *plan = NULL;
      T_OK(ctx, vncl_fft_plan_create(ctx, &desc, &plan));
      vncl_fft_plan_destroy(plan);
    }
  }
}

/* Reads what was written to fd 2 while `run` built one program. */
typedef struct capture {
  int saved, fd;
  char path[64];
} capture;

static void capture_start(capture *c) {
  fflush(stderr);
  snprintf(c->path, sizeof c->path, "/tmp/vncl-kb-XXXXXX");
  c->fd = mkstemp(c->path);
  assert_true(c->fd >= 0);
  c->saved = dup(2);
  assert_true(c->saved >= 0);
  assert_true(dup2(c->fd, 2) >= 0);
}

static void capture_end(capture *c, char *out, size_t cap) {
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  lseek(c->fd, 0, SEEK_SET);
  ssize_t n = read(c->fd, out, cap - 1);
  out[n > 0 ? n : 0] = '\0';
  close(c->fd);
  unlink(c->path);
}

static void test_every_program_builds_clean(void **st) {
  (void)st;
  vncl_context *run = off_context();
  static char log[1 << 16], err[1 << 16];
  capture c;
  capture_start(&c);
  workload(run);
  capture_end(&c, err, sizeof err);
  int bad = 0, built = 0;
  if (strstr(err, "warning")) {
    print_error("the driver printed warnings while the workload built its "
                "programs:\n%s\n", err);
    bad++;
  }
  static const char *src[MAX_PROGS], *opt[MAX_PROGS];
  static cl_program progs[MAX_PROGS];
  int n = vncl__programs_list(run, src, opt, progs, MAX_PROGS);
  assert_true(n <= MAX_PROGS);
  /* The GEMM kernels under every built-in set, in each storage type. */
  static char extra_opt[MAX_PROGS][512];
  static const char *extra_src[MAX_PROGS];
  int ne = 0;
  static const char *files[VNCL__GEMM_KERNELS] = {
      "gemm_ref.cl", "gemm_direct.cl", "gemm_packed_cpu.cl",
      "gemm_packed_local.cl", "gemm_pack.cl", "gemm_small.cl"};
  /* f32 and f64: the 16-bit storage types change only the loads and
   * stores, which the workload built on this device's own sets. */
  vncl_dtype types[2][2] = {{VNCL_F32, VNCL_F32}, {VNCL_F64, VNCL_F64}};
  vncl_device_info d;
  vncl_context_device_info(run, &d);
  const vncl__gemm_params *p;
  for (size_t r = 0; (p = vncl__gemm_builtin_set(r)) != NULL; r++)
    for (int kern = 0; kern < VNCL__GEMM_KERNELS; kern++)
      for (int t = 0; t < (d.fp64 ? 2 : 1) * 2; t++) {
        /* A_PACKED=2 runs as 0 or 1 (the host's choice per call): both. */
        vncl__gemm_params q = *p;
        if (t % 2) {
          if (kern != VNCL__GEMM_PACKED_CPU || q.cpu.a_packed != 2) continue;
          q.cpu.a_packed = 0;
        } else if (q.cpu.a_packed == 2) {
          q.cpu.a_packed = 1;
        }
        char o[512];
        vncl__gemm_options((vncl__gemm_kernel)kern, &q, types[t / 2][0],
                           types[t / 2][1], o, sizeof o);
        /* The CPU kernel also as the host runs it for few rows: C stored
         * transposed with A in place (the swap), B packed by the kernel
         * (B_FUSED, sets with KC 0). */
        bool cpu = kern == VNCL__GEMM_PACKED_CPU;
        const char *variants[3] = {
            "", cpu && q.cpu.a_packed == 0 ? " -DC_TRANS=1" : NULL,
            cpu && q.cpu.kc == 0 && q.cpu.vw >= 2 ? " -DB_FUSED=1" : NULL};
        const size_t base = strlen(o);
        for (int v = 0; v < 3; v++) {
          if (!variants[v]) continue;
          snprintf(o + base, sizeof o - base, "%s", variants[v]);
          bool seen = false;
          for (int i = 0; i < n && !seen; i++)
            seen = !strcmp(src[i], files[kern]) && !strcmp(opt[i], o);
          for (int i = 0; i < ne && !seen; i++)
            seen = !strcmp(extra_src[i], files[kern]) &&
                   !strcmp(extra_opt[i], o);
          if (seen || ne >= MAX_PROGS) continue;
          extra_src[ne] = files[kern];
          snprintf(extra_opt[ne], sizeof extra_opt[ne], "%s", o);
          ne++;
        }
      }
  /* Every family ran (the list is not silently short). */
  const char *need[] = {"gemm_direct.cl", "gemm_pack.cl",    "cast.cl",
                        "elementwise.cl", "transpose.cl",    "reduce.cl",
                        "softmax.cl",     "random.cl",       "fft_stockham.cl",
                        "fft_bluestein.cl", "fft_layout.cl"};
  for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
    /* Off CPUs the workload's products stay below the packing switch. */
    if (!strcmp(need[i], "gemm_pack.cl") && d.type != VNCL_DEVICE_CPU)
      continue;
    bool found = false;
    for (int j = 0; j < n && !found; j++) found = !strcmp(src[j], need[i]);
    if (!found) fail_msg("no program of %s was built by the workload", need[i]);
  }

  /* The workload's programs were built for real (cache off): their logs. */
  for (int i = 0; i < n; i++) {
    vncl__build_log(run, progs[i], log, sizeof log);
    if (strstr(log, "warning")) {
      print_error("%s [%s] builds with warnings:\n%s\n", src[i], opt[i], log);
      bad++;
    }
  }
  assert_int_equal(run->programs_built, (uint64_t)n);
  /* The other built-in sets, one build at a time. */
  vncl_context *b = off_context();
  for (int i = 0; i < ne; i++) {
    const char *s = extra_src[i];
    const char *o = extra_opt[i];
    capture_start(&c);
    vncl__program *prog = NULL;
    vncl_status stt = vncl__program_get(b, s, o, &prog);
    capture_end(&c, err, sizeof err);
    if (stt) {
      print_error("%s [%s] does not build: %s\n", s, o, vncl_errmsg(b));
      bad++;
      continue;
    }
    built++;
    const char *bs[MAX_PROGS], *bo[MAX_PROGS];
    cl_program bp[MAX_PROGS];
    int nb = vncl__programs_list(b, bs, bo, bp, MAX_PROGS);
    assert_true(nb >= 1);
    assert_string_equal(bs[0], s); /* newest first */
    vncl__build_log(b, bp[0], log, sizeof log);
    if (strstr(err, "warning") || strstr(log, "warning")) {
      print_error("%s [%s] builds with warnings:\n%s%s\n", s, o, log, err);
      bad++;
    }
  }
  print_message("%d programs built (%d by the workload, %d more from the "
                "built-in GEMM sets) on %s, %d with warnings or errors\n",
                n + built, n, ne, d.name, bad);
  assert_int_equal(b->programs_built, (uint64_t)built);
  vncl_context_destroy(b);
  vncl_context_destroy(run);
  assert_int_equal(bad, 0);
}

int main(void) {
  setenv("POCL_KERNEL_CACHE", "0", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_program_builds_clean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
