/* The drop-in BLAS (build/blas/libblas.so.3) on what the netlib testers do
 * not cover: beta zero with NaN in C, leading dimensions with gaps and
 * flags in either case against a double reference, panelled products,
 * threads, fork(), a device out of memory, and the INFO given to xerbla_.
 * Every Level-3 call goes to the device (VNCL_BLAS_MIN_FLOPS=0 is set
 * before the first call). Fresh random inputs each run. */
#define _GNU_SOURCE
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *,
            const float *, const float *, const int *, const float *,
            const int *, const float *, float *, const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *,
            const double *, const double *, const int *, const double *,
            const int *, const double *, double *, const int *, size_t,
            size_t);
void zgemm_(const char *, const char *, const int *, const int *, const int *,
            const double _Complex *, const double _Complex *, const int *,
            const double _Complex *, const int *, const double _Complex *,
            double _Complex *, const int *, size_t, size_t);
void ssyrk_(const char *, const char *, const int *, const int *,
            const float *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void zherk_(const char *, const char *, const int *, const int *,
            const double *, const double _Complex *, const int *,
            const double *, double _Complex *, const int *, size_t, size_t);
void dtrsm_(const char *, const char *, const char *, const char *,
            const int *, const int *, const double *, const double *,
            const int *, double *, const int *, size_t, size_t, size_t,
            size_t);

/* Our xerbla_ replaces the library's, as the testers' does. */
static char last_name[8];
static int last_info;
void xerbla_(const char *name, const int *info, size_t len) {
  size_t n = len < 7 ? len : 7;
  memcpy(last_name, name, n);
  last_name[n] = 0;
  last_info = *info;
}

static unsigned rng_state;
static double urand(void) { /* in [-1, 1) */
  rng_state = rng_state * 1664525u + 1013904223u;
  return (double)(rng_state >> 8) / (double)(1u << 23) - 1.0;
}
static int irand(int lo, int hi) {
  return lo + (int)((urand() + 1.0) * 0.5 * (hi - lo + 1)) % (hi - lo + 1);
}

/* op(X)(i, p) of a column-major matrix, as double complex. */
static double _Complex elem(const void *x, int cplx, int dbl, char t, int i,
                            int p, int ld) {
  int notr = t == 'N' || t == 'n';
  size_t idx = notr ? (size_t)i + (size_t)p * ld : (size_t)p + (size_t)i * ld;
  double _Complex v;
  if (cplx) v = ((const double _Complex *)x)[idx];
  else v = dbl ? ((const double *)x)[idx] : ((const float *)x)[idx];
  return (t == 'C' || t == 'c') ? conj(v) : v;
}

/* Checks C against alpha op(A) op(B) + beta C0 computed in double. */
static int check_gemm(int cplx, int dbl, char ta, char tb, int m, int n,
                      int k, double _Complex alpha, const void *a, int lda,
                      const void *b, int ldb, double _Complex beta,
                      const void *c0, const void *c, int ldc) {
  const double eps = dbl ? 0x1p-52 : 0x1p-23;
  int bad = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double _Complex s = 0;
      double mag = 0;
      for (int p = 0; p < k; p++) {
        double _Complex x = elem(a, cplx, dbl, ta, i, p, lda) *
                            elem(b, cplx, dbl, tb, p, j, ldb);
        s += x;
        mag += cabs(x);
      }
      size_t idx = (size_t)i + (size_t)j * ldc;
      double _Complex cold = beta == 0 ? 0 : elem(c0, cplx, dbl, 'N', i, j, ldc);
      double _Complex want = alpha * s + beta * cold;
      double _Complex got = cplx ? ((const double _Complex *)c)[idx]
                            : dbl ? ((const double *)c)[idx]
                                  : ((const float *)c)[idx];
      double tol = 8.0 * (k + 2) * eps * (cabs(alpha) * mag + cabs(beta) * cabs(cold) + 1e-30);
      if (!(cabs(got - want) <= tol)) {
        if (bad < 3)
          print_error("C(%d,%d) = %g%+gi, want %g%+gi (tol %g)\n", i, j,
                      creal(got), cimag(got), creal(want), cimag(want), tol);
        bad++;
      }
    }
  return bad;
}

static void *alloc_fill(size_t count, size_t esz, int cplx, int dbl) {
  void *p = malloc(count * esz);
  assert_non_null(p);
  for (size_t i = 0; i < count; i++) {
    if (cplx) ((double _Complex *)p)[i] = urand() + I * urand();
    else if (dbl) ((double *)p)[i] = urand();
    else ((float *)p)[i] = (float)urand();
  }
  return p;
}

/* One random GEMM of the type; returns the number of wrong elements. */
static int one_gemm(int cplx, int dbl, int maxdim, int nan_c) {
  const char *tr = cplx ? "NnTtCc" : "NnTtCc";
  char ta = tr[irand(0, 5)], tb = tr[irand(0, 5)];
  int m = irand(1, maxdim), n = irand(1, maxdim), k = irand(1, maxdim);
  int nota = ta == 'N' || ta == 'n', notb = tb == 'N' || tb == 'n';
  int lda = (nota ? m : k) + irand(0, 3), ldb = (notb ? k : n) + irand(0, 3);
  int ldc = m + irand(0, 3);
  size_t esz = cplx ? 16 : dbl ? 8 : 4;
  void *a = alloc_fill((size_t)lda * (nota ? k : m), esz, cplx, dbl);
  void *b = alloc_fill((size_t)ldb * (notb ? n : k), esz, cplx, dbl);
  void *c = alloc_fill((size_t)ldc * n, esz, cplx, dbl);
  size_t asz = (size_t)lda * (nota ? k : m) * esz, bsz = (size_t)ldb * (notb ? n : k) * esz;
  void *a0 = malloc(asz), *b0 = malloc(bsz), *c0 = malloc((size_t)ldc * n * esz);
  double _Complex alpha = urand() + (cplx ? I * urand() : 0);
  double _Complex beta = nan_c ? 0 : urand() + (cplx ? I * urand() : 0);
  if (nan_c)
    for (size_t i = 0; i < (size_t)ldc * n; i++) {
      if (cplx) ((double _Complex *)c)[i] = NAN;
      else if (dbl) ((double *)c)[i] = NAN;
      else ((float *)c)[i] = NAN;
    }
  memcpy(a0, a, asz);
  memcpy(b0, b, bsz);
  memcpy(c0, c, (size_t)ldc * n * esz);
  if (cplx) {
    zgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  } else if (dbl) {
    double al = creal(alpha), be = creal(beta);
    dgemm_(&ta, &tb, &m, &n, &k, &al, a, &lda, b, &ldb, &be, c, &ldc, 1, 1);
  } else {
    float al = (float)creal(alpha), be = (float)creal(beta);
    alpha = al;
    beta = be;
    sgemm_(&ta, &tb, &m, &n, &k, &al, a, &lda, b, &ldb, &be, c, &ldc, 1, 1);
  }
  int bad = check_gemm(cplx, dbl, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta,
                       c0, c, ldc);
  if (memcmp(a, a0, asz) || memcmp(b, b0, bsz)) {
    print_error("an input changed\n");
    bad++;
  }
  /* the gaps between columns of C are not written */
  for (int j = 0; j < n; j++)
    if (memcmp((char *)c + ((size_t)j * ldc + m) * esz,
               (char *)c0 + ((size_t)j * ldc + m) * esz,
               (size_t)(ldc - m) * esz)) {
      print_error("C written outside m x n\n");
      bad++;
      break;
    }
  free(a); free(b); free(c); free(a0); free(b0); free(c0);
  return bad;
}

static void test_gemm_random(void **state) {
  (void)state;
  for (int it = 0; it < 12; it++) {
    assert_int_equal(one_gemm(0, 0, 70, 0), 0);
    assert_int_equal(one_gemm(0, 1, 70, 0), 0);
    assert_int_equal(one_gemm(1, 1, 40, 0), 0);
  }
}

/* beta zero: C is not read, so NaN there must not show in the result. */
static void test_beta_zero_nan(void **state) {
  (void)state;
  for (int it = 0; it < 4; it++) {
    assert_int_equal(one_gemm(0, 0, 50, 1), 0);
    assert_int_equal(one_gemm(0, 1, 50, 1), 0);
    assert_int_equal(one_gemm(1, 1, 30, 1), 0);
  }
  /* syrk and herk with beta 0: the triangle written, no NaN, the other
   * triangle untouched (still NaN) */
  int n = 37, k = 23, lda = n + 2, ldc = n + 1;
  float *a = alloc_fill((size_t)lda * k, 4, 0, 0);
  float *c = malloc((size_t)ldc * n * sizeof(float));
  for (int i = 0; i < ldc * n; i++) c[i] = NAN;
  float al = 1.5f, be = 0;
  ssyrk_("u", "n", &n, &k, &al, a, &lda, &be, c, &ldc, 1, 1);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      float got = c[i + j * ldc];
      if (i > j) {
        assert_true(isnan(got));
        continue;
      }
      double s = 0;
      for (int p = 0; p < k; p++) s += (double)a[i + p * lda] * a[j + p * lda];
      assert_true(fabs(got - 1.5 * s) <= 1e-5 * (1 + fabs(s)) * k);
    }
  free(a);
  free(c);
  double _Complex *za = alloc_fill((size_t)lda * n, 16, 1, 1);
  double _Complex *zc = malloc((size_t)ldc * n * 16);
  for (int i = 0; i < ldc * n; i++) zc[i] = NAN;
  double ral = 0.75, rbe = 0;
  zherk_("L", "C", &n, &k, &ral, za, &lda, &rbe, zc, &ldc, 1, 1);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double _Complex got = zc[i + j * ldc];
      if (i < j) {
        assert_true(isnan(creal(got)));
        continue;
      }
      double _Complex s = 0;
      for (int p = 0; p < k; p++) s += conj(za[p + i * lda]) * za[p + j * lda];
      assert_true(cabs(got - 0.75 * s) <= 1e-12 * (1 + cabs(s)) * k);
      if (i == j) assert_true(cimag(got) == 0);
    }
  free(za);
  free(zc);
}

/* Products large enough to be cut into panels, C with gaps. */
static void test_panels(void **state) {
  (void)state;
  int m = 301, n = 770, k = 2200, lda = m + 5, ldb = k, ldc = m + 3;
  float *a = alloc_fill((size_t)lda * k, 4, 0, 0);
  float *b = alloc_fill((size_t)ldb * n, 4, 0, 0);
  float *c = alloc_fill((size_t)ldc * n, 4, 0, 0);
  float *c0 = malloc((size_t)ldc * n * 4);
  memcpy(c0, c, (size_t)ldc * n * 4);
  float al = 0.5f, be = -1.25f;
  sgemm_("N", "N", &m, &n, &k, &al, a, &lda, b, &ldb, &be, c, &ldc, 1, 1);
  assert_int_equal(check_gemm(0, 0, 'N', 'N', m, n, k, al, a, lda, b, ldb, be,
                              c0, c, ldc), 0);
  free(a); free(b); free(c); free(c0);
}

/* A blocked solve: m above the block of 256 rows. */
static void test_trsm_blocked(void **state) {
  (void)state;
  int m = 300, n = 40, lda = m + 1, ldb = m + 2;
  double *a = alloc_fill((size_t)lda * m, 8, 0, 1);
  for (int i = 0; i < m; i++) a[i + i * lda] = 2.0 + fabs(a[i + i * lda]);
  double *b = alloc_fill((size_t)ldb * n, 8, 0, 1);
  double *b0 = malloc((size_t)ldb * n * 8);
  memcpy(b0, b, (size_t)ldb * n * 8);
  double al = 1.5;
  const char *uplos = "UL", *trs = "NT";
  for (int u = 0; u < 2; u++)
    for (int t = 0; t < 2; t++) {
      memcpy(b, b0, (size_t)ldb * n * 8);
      dtrsm_("L", &uplos[u], &trs[t], "N", &m, &n, &al, a, &lda, b, &ldb, 1, 1, 1, 1);
      /* residual: op(A) X = alpha B0 */
      double worst = 0;
      for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
          double s = 0;
          for (int p = 0; p < m; p++) {
            int upper = uplos[u] == 'U';
            int r = t ? p : i, cc = t ? i : p; /* op(A)(i,p) = A(r,cc) */
            if (upper ? r > cc : r < cc) continue;
            s += a[r + cc * lda] * b[p + j * ldb];
          }
          double e = fabs(s - al * b0[i + j * ldb]);
          if (e > worst) worst = e;
        }
      if (!(worst < 1e-10)) print_error("uplo %c trans %c: residual %g\n", uplos[u], trs[t], worst);
      assert_true(worst < 1e-10);
    }
  free(a); free(b); free(b0);
}

static void *thread_main(void *arg) {
  (void)arg;
  intptr_t bad = 0;
  for (int it = 0; it < 6; it++) bad += one_gemm(0, it & 1, 60, 0);
  return (void *)bad;
}

static void test_threads(void **state) {
  (void)state;
  pthread_t t[4];
  for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&t[i], NULL, thread_main, NULL), 0);
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(t[i], &r);
    assert_int_equal((intptr_t)r, 0);
  }
}

/* After the parent used the device, a fork() child's calls run on the CPU
 * BLAS and are right. */
static void test_fork(void **state) {
  (void)state;
  assert_int_equal(one_gemm(0, 1, 40, 0), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int bad = 0;
    for (int it = 0; it < 4; it++) bad += one_gemm(0, it & 1, 60, 0);
    _exit(bad ? 1 : 0);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  assert_int_equal(one_gemm(0, 0, 40, 0), 0); /* the parent carries on */
}

/* A device out of memory (a 64 KiB limit, in a fresh child process): the
 * call runs on the CPU BLAS, with C restored first (beta nonzero). */
static void test_oom_fallback(void **state) {
  (void)state;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setenv("VNCL_MEMORY_LIMIT", "64K", 1);
    int bad = 0;
    for (int it = 0; it < 3; it++) bad += one_gemm(0, 1, 200, 0);
    bad += one_gemm(1, 1, 120, 0);
    _exit(bad ? 1 : 0);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

/* INFO to xerbla_ as the reference gives it, nothing written. */
static void test_xerbla(void **state) {
  (void)state;
  float a[16] = {0}, b[16] = {0}, c[16], c0[16];
  for (int i = 0; i < 16; i++) c[i] = c0[i] = (float)i;
  float one = 1;
  int two = 2, one_i = 1, four = 4;
  last_info = 0;
  sgemm_("N", "N", &two, &two, &two, &one, a, &one_i, b, &two, &one, c, &two, 1, 1);
  assert_string_equal(last_name, "SGEMM ");
  assert_int_equal(last_info, 8);
  sgemm_("X", "N", &two, &two, &two, &one, a, &two, b, &two, &one, c, &two, 1, 1);
  assert_int_equal(last_info, 1);
  sgemm_("t", "N", &two, &two, &four, &one, a, &two, b, &four, &one, c, &one_i, 1, 1);
  assert_int_equal(last_info, 8);
  ssyrk_("U", "X", &two, &two, &one, a, &two, &one, c, &two, 1, 1);
  assert_string_equal(last_name, "SSYRK ");
  assert_int_equal(last_info, 2);
  double _Complex za[16] = {0}, zc[16] = {0};
  double rone = 1;
  zherk_("U", "T", &two, &two, &rone, za, &two, &rone, zc, &two, 1, 1);
  assert_string_equal(last_name, "ZHERK ");
  assert_int_equal(last_info, 2);
  double da[16] = {0}, db[16] = {0}, done = 1;
  dtrsm_("L", "U", "N", "N", &two, &two, &done, da, &two, db, &one_i, 1, 1, 1, 1);
  assert_string_equal(last_name, "DTRSM ");
  assert_int_equal(last_info, 11);
  assert_memory_equal(c, c0, sizeof c);
}

int main(void) {
  setenv("VNCL_BLAS_MIN_FLOPS", "0", 1);
  rng_state = (unsigned)time(NULL) ^ (unsigned)getpid();
  printf("seed %u\n", rng_state);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_oom_fallback), /* first: before the device starts */
      cmocka_unit_test(test_xerbla),
      cmocka_unit_test(test_gemm_random),
      cmocka_unit_test(test_beta_zero_nan),
      cmocka_unit_test(test_panels),
      cmocka_unit_test(test_trsm_blocked),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_fork),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
