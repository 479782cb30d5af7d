/* The Level-3 routines for one type, included by blas_level3.c once per
 * type with these defined:
 *   P      the type letter (s, d, c, z)     PSTR / UPSTR  "s" / "S"
 *   E      the element type                 R      its real type
 *   CPLX   1 for complex                    DBL    1 for double precision
 *   TYPE   VB_S, VB_D, VB_C or VB_Z
 *
 * Each routine checks its arguments as the reference BLAS does (same INFO
 * to xerbla_, same order), returns early where the reference does, does the
 * scaling-only cases (alpha or k zero) on the host, and sends the rest to
 * the device when vb_device_wanted() says so, else to the CPU BLAS. The
 * device versions turn every routine into GEMMs on dense host operands:
 *   gemm         real: vncl's GEMM on the caller's operands as they are;
 *                complex: one real GEMM of twice the size (below)
 *   symm, hemm   the symmetric/Hermitian operand expanded to a full matrix
 *   syrk ... her2k  the full product into a scratch matrix, then only the
 *                referenced triangle merged into C (beta applied there)
 *   trmm         the triangle expanded to a dense triangular matrix
 *   trsm         blocked: diagonal blocks inverted by the CPU BLAS (trsm on
 *                an identity), the rest GEMM updates on the device.
 * Complex GEMM as one real GEMM: with op(A) (m x k) expanded into the real
 * 2m x 2k matrix [re -im; im re] per element (alpha folded in), and op(B)
 * and C read as real 2k x n and 2m x n matrices (interleaved re, im), the
 * real product is exactly the complex one. */

#define FN(x) VB_CAT(P, x)
#define VB(x) VB_CAT3(vb_, P, x)
#define CB(x) VB_CAT3(cblas_, P, x)
#define CPUFN(x) VB_CAT3(vb_fn_, P, x)
#define CPUSLOT(x) VB_CAT3(VB_CPU_, P, x)
#define CPU(x) ((CPUFN(x) *)vb_cpu_fn(CPUSLOT(x)))

#if CPLX
#if DBL
#define CONJ(x) conj(x)
#define REAL(x) creal(x)
#define IMAG(x) cimag(x)
#else
#define CONJ(x) conjf(x)
#define REAL(x) crealf(x)
#define IMAG(x) cimagf(x)
#endif
#define FLOPMUL 4.0 /* one complex multiply-add is four real ones */
#define SVAL(x) (*(const E *)(x))
#else
#define CONJ(x) (x)
#define REAL(x) (x)
#define IMAG(x) ((R)0)
#define FLOPMUL 1.0
#define SVAL(x) (x)
#endif

/* ---- Host helpers ------------------------------------------------------- */

/* C (m x n) = beta C; beta zero writes zeros without reading C. */
static void VB(scale)(int64_t m, int64_t n, E beta, E *c, int64_t ldc) {
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      c[i + j * ldc] = beta == 0 ? (E)0 : beta * c[i + j * ldc];
}

/* The uplo triangle of C (n x n) = D + beta C (D NULL: 0 + beta C);
 * herm: the diagonal is real (the imaginary parts of C's are ignored). */
static void VB(merge_tri)(int upper, int herm, int64_t n, const E *d, E beta,
                          E *c, int64_t ldc) {
  for (int64_t j = 0; j < n; j++) {
    int64_t i0 = upper ? 0 : j, i1 = upper ? j + 1 : n;
    for (int64_t i = i0; i < i1; i++) {
      E dv = d ? d[i + j * n] : (E)0;
      E cv = c[i + j * ldc];
      if (herm && i == j) {
        dv = REAL(dv);
        cv = REAL(cv);
      }
      c[i + j * ldc] = beta == 0 ? dv : dv + beta * cv;
    }
  }
}

/* The full n x n matrix of a symmetric (herm 0) or Hermitian (herm 1) one
 * stored in the uplo triangle of A. */
static E *VB(expand_sym)(int upper, int herm, int64_t n, const E *a,
                         int64_t lda) {
  E *f = malloc((size_t)(n * n) * sizeof(E));
  if (!f) return NULL;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      int stored = upper ? i <= j : i >= j;
      E v = stored ? a[i + j * lda] : a[j + i * lda];
      if (!stored && herm) v = CONJ(v);
      if (herm && i == j) v = REAL(v);
      f[i + j * n] = v;
    }
  return f;
}

/* The dense n x n triangular matrix of A's uplo triangle (unit: ones on
 * the diagonal), zeros elsewhere. */
static E *VB(expand_tri)(int upper, int unit, int64_t n, const E *a,
                         int64_t lda) {
  E *f = malloc((size_t)(n * n) * sizeof(E));
  if (!f) return NULL;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      E v = (upper ? i <= j : i >= j) ? a[i + j * lda] : (E)0;
      if (unit && i == j) v = 1;
      f[i + j * n] = v;
    }
  return f;
}

static void VB(copy)(int64_t m, int64_t n, const E *src, int64_t lds, E *dst,
                     int64_t ldd) {
  for (int64_t j = 0; j < n; j++)
    memcpy(dst + j * ldd, src + j * lds, (size_t)m * sizeof(E));
}

/* ---- GEMM on the device ------------------------------------------------- */

/* C = alpha op(A) op(B) + beta C, column-major host operands; C keeps its
 * values on failure (or, with beta zero, is left to be overwritten). */
static vncl_status VB(devgemm)(char ta, char tb, int64_t m, int64_t n,
                               int64_t k, E alpha, const E *a, int64_t lda,
                               const E *b, int64_t ldb, E beta, E *c,
                               int64_t ldc) {
#if !CPLX
  return vb_dev_gemm_real(DBL, ta, tb, m, n, k, (double)alpha, a, lda, b, ldb,
                          (double)beta, c, ldc);
#else
  const int nota = vb_lsame(ta, 'N'), conja = vb_lsame(ta, 'C');
  const int notb = vb_lsame(tb, 'N'), conjb = vb_lsame(tb, 'C');
  vncl_status st = VNCL_ERR_OUT_OF_MEMORY;
  R *ae = malloc((size_t)(4 * m * k) * sizeof(R));
  E *bp = NULL, *d = NULL;
  if (!ae) goto done;
  for (int64_t p = 0; p < k; p++) {
    R *col0 = ae + (2 * p) * (2 * m), *col1 = col0 + 2 * m;
    for (int64_t i = 0; i < m; i++) {
      E v = nota ? a[i + p * lda] : a[p + i * lda];
      if (conja) v = CONJ(v);
      if (alpha != 1) v *= alpha;
      col0[2 * i] = REAL(v);
      col0[2 * i + 1] = IMAG(v);
      col1[2 * i] = -IMAG(v);
      col1[2 * i + 1] = REAL(v);
    }
  }
  const E *bv = b;
  int64_t ldbv = ldb;
  if (!notb) { /* op(B) packed as a k x n matrix */
    bp = malloc((size_t)(k * n) * sizeof(E));
    if (!bp) goto done;
    for (int64_t j = 0; j < n; j++)
      for (int64_t p = 0; p < k; p++)
        bp[p + j * k] = conjb ? CONJ(b[j + p * ldb]) : b[j + p * ldb];
    bv = bp;
    ldbv = k;
  }
  if (IMAG(beta) == 0) {
    st = vb_dev_gemm_real(DBL, 'N', 'N', 2 * m, n, 2 * k, 1.0, ae, 2 * m, bv,
                          2 * ldbv, (double)REAL(beta), c, 2 * ldc);
  } else { /* a complex beta: the product into scratch, beta on the host */
    d = malloc((size_t)(m * n) * sizeof(E));
    if (!d) goto done;
    st = vb_dev_gemm_real(DBL, 'N', 'N', 2 * m, n, 2 * k, 1.0, ae, 2 * m, bv,
                          2 * ldbv, 0.0, d, 2 * m);
    if (st == VNCL_OK)
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
          c[i + j * ldc] = d[i + j * m] + beta * c[i + j * ldc];
  }
done:
  free(ae);
  free(bp);
  free(d);
  return st;
#endif
}

static void VB(fallback_warn)(const char *routine, vncl_status st) {
  vb_warn("blas: %s%s on the device failed (%s: %s): this call runs on the "
          "CPU BLAS", PSTR, routine, vncl_status_name(st), vb_device_errmsg());
}

/* ---- GEMM --------------------------------------------------------------- */

static void VB(gemm)(char ta, char tb, int m, int n, int k, E alpha,
                     const E *a, int lda, const E *b, int ldb, E beta, E *c,
                     int ldc) {
  const int nota = vb_lsame(ta, 'N'), notb = vb_lsame(tb, 'N');
  const int nrowa = nota ? m : k, nrowb = notb ? k : n;
  int info = 0;
  if (!nota && !vb_lsame(ta, 'C') && !vb_lsame(ta, 'T')) info = 1;
  else if (!notb && !vb_lsame(tb, 'C') && !vb_lsame(tb, 'T')) info = 2;
  else if (m < 0) info = 3;
  else if (n < 0) info = 4;
  else if (k < 0) info = 5;
  else if (lda < VB_MAX(1, nrowa)) info = 8;
  else if (ldb < VB_MAX(1, nrowb)) info = 10;
  else if (ldc < VB_MAX(1, m)) info = 13;
  if (info) {
    vb_xerbla(UPSTR "GEMM ", info);
    return;
  }
  if (m == 0 || n == 0 || ((alpha == 0 || k == 0) && beta == 1)) {
    vb_stats_add(VB_GEMM, TYPE, VB_QUICK, 0);
    return;
  }
  if (alpha == 0 || k == 0) {
    VB(scale)(m, n, beta, c, ldc);
    vb_stats_add(VB_GEMM, TYPE, VB_QUICK, 0);
    return;
  }
  const double fl = 2.0 * FLOPMUL * (double)m * (double)n * (double)k;
  if (vb_device_wanted(VB_GEMM, TYPE, fl)) {
    vncl_status st = VB(devgemm)(ta, tb, m, n, k, alpha, a, lda, b, ldb,
                                 beta, c, ldc);
    if (st == VNCL_OK) {
      vb_stats_add(VB_GEMM, TYPE, VB_ON_DEVICE, fl);
      return;
    }
    VB(fallback_warn)("gemm", st);
  }
  CPUFN(gemm_) *f = CPU(gemm_);
  if (f) f(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  vb_stats_add(VB_GEMM, TYPE, VB_ON_CPU, fl);
}

void FN(gemm_)(const char *transa, const char *transb, const int *m,
               const int *n, const int *k, const E *alpha, const E *a,
               const int *lda, const E *b, const int *ldb, const E *beta, E *c,
               const int *ldc, size_t transa_len, size_t transb_len) {
  (void)transa_len;
  (void)transb_len;
  VB(gemm)(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c,
           *ldc);
}

/* ---- SYMM and HEMM ------------------------------------------------------ */

static void VB(symm_any)(int herm, char side, char uplo, int m, int n,
                         E alpha, const E *a, int lda, const E *b, int ldb,
                         E beta, E *c, int ldc) {
  const int left = vb_lsame(side, 'L'), upper = vb_lsame(uplo, 'U');
  const int nrowa = left ? m : n;
  const int routine = herm ? VB_HEMM : VB_SYMM;
  int info = 0;
  if (!left && !vb_lsame(side, 'R')) info = 1;
  else if (!upper && !vb_lsame(uplo, 'L')) info = 2;
  else if (m < 0) info = 3;
  else if (n < 0) info = 4;
  else if (lda < VB_MAX(1, nrowa)) info = 7;
  else if (ldb < VB_MAX(1, m)) info = 9;
  else if (ldc < VB_MAX(1, m)) info = 12;
  if (info) {
    vb_xerbla(herm ? UPSTR "HEMM " : UPSTR "SYMM ", info);
    return;
  }
  if (m == 0 || n == 0 || (alpha == 0 && beta == 1)) {
    vb_stats_add(routine, TYPE, VB_QUICK, 0);
    return;
  }
  if (alpha == 0) {
    VB(scale)(m, n, beta, c, ldc);
    vb_stats_add(routine, TYPE, VB_QUICK, 0);
    return;
  }
  const double fl = 2.0 * FLOPMUL * (double)m * (double)n * (double)nrowa;
  if (vb_device_wanted(routine, TYPE, fl)) {
    vncl_status st = VNCL_ERR_OUT_OF_MEMORY;
    E *full = VB(expand_sym)(upper, herm, nrowa, a, lda);
    if (full)
      st = left ? VB(devgemm)('N', 'N', m, n, m, alpha, full, m, b, ldb, beta,
                              c, ldc)
                : VB(devgemm)('N', 'N', m, n, n, alpha, b, ldb, full, n, beta,
                              c, ldc);
    free(full);
    if (st == VNCL_OK) {
      vb_stats_add(routine, TYPE, VB_ON_DEVICE, fl);
      return;
    }
    VB(fallback_warn)(herm ? "hemm" : "symm", st);
  }
#if CPLX
  if (herm) {
    CPUFN(hemm_) *f = CPU(hemm_);
    if (f) f(&side, &uplo, &m, &n, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  } else
#endif
  {
    CPUFN(symm_) *f = CPU(symm_);
    if (f) f(&side, &uplo, &m, &n, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  }
  vb_stats_add(routine, TYPE, VB_ON_CPU, fl);
}

void FN(symm_)(const char *side, const char *uplo, const int *m, const int *n,
               const E *alpha, const E *a, const int *lda, const E *b,
               const int *ldb, const E *beta, E *c, const int *ldc,
               size_t side_len, size_t uplo_len) {
  (void)side_len;
  (void)uplo_len;
  VB(symm_any)(0, *side, *uplo, *m, *n, *alpha, a, *lda, b, *ldb, *beta, c,
               *ldc);
}

#if CPLX
void FN(hemm_)(const char *side, const char *uplo, const int *m, const int *n,
               const E *alpha, const E *a, const int *lda, const E *b,
               const int *ldb, const E *beta, E *c, const int *ldc,
               size_t side_len, size_t uplo_len) {
  (void)side_len;
  (void)uplo_len;
  VB(symm_any)(1, *side, *uplo, *m, *n, *alpha, a, *lda, b, *ldb, *beta, c,
               *ldc);
}
#endif

/* ---- SYRK, HERK, SYR2K, HER2K ------------------------------------------ */

/* two 0: syrk/herk (B unused); two 1: syr2k/her2k. herm: herk/her2k, whose
 * beta (and herk's alpha) are real: passed here as E with zero imaginary
 * part. */
static void VB(rank_k)(int two, int herm, char uplo, char trans, int n, int k,
                       E alpha, const E *a, int lda, const E *b, int ldb,
                       E beta, E *c, int ldc) {
  const int upper = vb_lsame(uplo, 'U'), notr = vb_lsame(trans, 'N');
  const int nrowa = notr ? n : k;
  const int routine = two ? (herm ? VB_HER2K : VB_SYR2K)
                          : (herm ? VB_HERK : VB_SYRK);
  /* Which transposes are legal: real N/T/C, complex symmetric N/T,
   * Hermitian N/C. */
  int trans_ok = notr || (herm ? vb_lsame(trans, 'C')
                               : (vb_lsame(trans, 'T') ||
                                  (!CPLX && vb_lsame(trans, 'C'))));
  int info = 0;
  if (!upper && !vb_lsame(uplo, 'L')) info = 1;
  else if (!trans_ok) info = 2;
  else if (n < 0) info = 3;
  else if (k < 0) info = 4;
  else if (lda < VB_MAX(1, nrowa)) info = 7;
  else if (two && ldb < VB_MAX(1, nrowa)) info = 9;
  else if (ldc < VB_MAX(1, n)) info = two ? 12 : 10;
  if (info) {
    static const char *const names[2][2] = {{UPSTR "SYRK ", UPSTR "HERK "},
                                            {UPSTR "SYR2K", UPSTR "HER2K"}};
    vb_xerbla(names[two][herm], info);
    return;
  }
  if (n == 0 || ((alpha == 0 || k == 0) && beta == 1)) {
    vb_stats_add(routine, TYPE, VB_QUICK, 0);
    return;
  }
  if (alpha == 0 || k == 0) {
    VB(merge_tri)(upper, herm, n, NULL, beta, c, ldc);
    vb_stats_add(routine, TYPE, VB_QUICK, 0);
    return;
  }
  const double fl = (two ? 2.0 : 1.0) * FLOPMUL * (double)n * (double)(n + 1) *
                    (double)k;
  if (vb_device_wanted(routine, TYPE, fl)) {
    vncl_status st = VNCL_ERR_OUT_OF_MEMORY;
    E *d = malloc((size_t)n * (size_t)n * sizeof(E));
    const char x = herm ? 'C' : 'T';
    const char t1 = notr ? 'N' : x, t2 = notr ? x : 'N';
    if (d) {
      st = VB(devgemm)(t1, t2, n, n, k, alpha, a, lda, two ? b : a,
                       two ? ldb : lda, 0, d, n);
      if (st == VNCL_OK && two)
        st = VB(devgemm)(t1, t2, n, n, k, herm ? CONJ(alpha) : alpha, b, ldb,
                         a, lda, 1, d, n);
      if (st == VNCL_OK) VB(merge_tri)(upper, herm, n, d, beta, c, ldc);
    }
    free(d);
    if (st == VNCL_OK) {
      vb_stats_add(routine, TYPE, VB_ON_DEVICE, fl);
      return;
    }
    VB(fallback_warn)(vb_routine_name(routine), st);
  }
#if CPLX
  if (herm) {
    const R ra = REAL(alpha), rb = REAL(beta);
    if (two) {
      CPUFN(her2k_) *f = CPU(her2k_);
      if (f) f(&uplo, &trans, &n, &k, &alpha, a, &lda, b, &ldb, &rb, c, &ldc, 1, 1);
    } else {
      CPUFN(herk_) *f = CPU(herk_);
      if (f) f(&uplo, &trans, &n, &k, &ra, a, &lda, &rb, c, &ldc, 1, 1);
    }
  } else
#endif
  if (two) {
    CPUFN(syr2k_) *f = CPU(syr2k_);
    if (f) f(&uplo, &trans, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  } else {
    CPUFN(syrk_) *f = CPU(syrk_);
    if (f) f(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc, 1, 1);
  }
  vb_stats_add(routine, TYPE, VB_ON_CPU, fl);
}

void FN(syrk_)(const char *uplo, const char *trans, const int *n, const int *k,
               const E *alpha, const E *a, const int *lda, const E *beta, E *c,
               const int *ldc, size_t uplo_len, size_t trans_len) {
  (void)uplo_len;
  (void)trans_len;
  VB(rank_k)(0, 0, *uplo, *trans, *n, *k, *alpha, a, *lda, NULL, 1, *beta, c,
             *ldc);
}

void FN(syr2k_)(const char *uplo, const char *trans, const int *n,
                const int *k, const E *alpha, const E *a, const int *lda,
                const E *b, const int *ldb, const E *beta, E *c,
                const int *ldc, size_t uplo_len, size_t trans_len) {
  (void)uplo_len;
  (void)trans_len;
  VB(rank_k)(1, 0, *uplo, *trans, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c,
             *ldc);
}

#if CPLX
void FN(herk_)(const char *uplo, const char *trans, const int *n, const int *k,
               const R *alpha, const E *a, const int *lda, const R *beta, E *c,
               const int *ldc, size_t uplo_len, size_t trans_len) {
  (void)uplo_len;
  (void)trans_len;
  VB(rank_k)(0, 1, *uplo, *trans, *n, *k, *alpha, a, *lda, NULL, 1, *beta, c,
             *ldc);
}

void FN(her2k_)(const char *uplo, const char *trans, const int *n,
                const int *k, const E *alpha, const E *a, const int *lda,
                const E *b, const int *ldb, const R *beta, E *c,
                const int *ldc, size_t uplo_len, size_t trans_len) {
  (void)uplo_len;
  (void)trans_len;
  VB(rank_k)(1, 1, *uplo, *trans, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c,
             *ldc);
}
#endif

/* ---- TRMM and TRSM ------------------------------------------------------ */

/* The rows (left) or columns (right) of one diagonal block of TRSM. */
#define VB_TRSM_BLOCK 256

/* TRSM on the device, B overwritten in place (the caller keeps a copy when
 * a failure could leave B half solved). */
static vncl_status VB(devtrsm)(int left, int upper, char ta, char diag, int m,
                               int n, E alpha, const E *a, int lda, E *b,
                               int ldb) {
  const int notr = vb_lsame(ta, 'N');
  const int na = left ? m : n;
  const int forward = left ? upper != notr : upper == notr;
  const int nblk = (na + VB_TRSM_BLOCK - 1) / VB_TRSM_BLOCK;
  CPUFN(trsm_) *cpu_trsm = CPU(trsm_);
  if (!cpu_trsm) return VNCL_ERR_INTERNAL;
  const int bs = na < VB_TRSM_BLOCK ? na : VB_TRSM_BLOCK;
  E *inv = malloc((size_t)bs * (size_t)bs * sizeof(E));
  E *x = malloc((size_t)(left ? bs * (int64_t)n : (int64_t)m * bs) * sizeof(E));
  vncl_status st = (inv && x) ? VNCL_OK : VNCL_ERR_OUT_OF_MEMORY;
  const char side = left ? 'L' : 'R', ul = upper ? 'U' : 'L';
  const E one = 1;
  for (int step = 0; step < nblk && st == VNCL_OK; step++) {
    const int q = forward ? step : nblk - 1 - step;
    const int o = q * VB_TRSM_BLOCK;
    const int s = o + VB_TRSM_BLOCK <= na ? VB_TRSM_BLOCK : na - o;
    const int o1 = o + s;
    /* inv = inverse of op(A)'s diagonal block, by the CPU BLAS */
    for (int j = 0; j < s; j++)
      for (int i = 0; i < s; i++) inv[i + j * s] = i == j ? (E)1 : (E)0;
    cpu_trsm(&side, &ul, &ta, &diag, &s, &s, &one, a + o + (int64_t)o * lda,
             &lda, inv, &s, 1, 1, 1, 1);
    if (left) {
      E *bq = b + o;
      if (step > 0) { /* B_q = alpha B_q - op(A)_{q,solved} X_solved */
        if (forward)
          st = notr ? VB(devgemm)('N', 'N', s, n, o, -1, a + o, lda, b, ldb,
                                  alpha, bq, ldb)
                    : VB(devgemm)(ta, 'N', s, n, o, -1, a + (int64_t)o * lda,
                                  lda, b, ldb, alpha, bq, ldb);
        else
          st = notr ? VB(devgemm)('N', 'N', s, n, m - o1, -1,
                                  a + o + (int64_t)o1 * lda, lda, b + o1, ldb,
                                  alpha, bq, ldb)
                    : VB(devgemm)(ta, 'N', s, n, m - o1, -1,
                                  a + o1 + (int64_t)o * lda, lda, b + o1, ldb,
                                  alpha, bq, ldb);
        if (st != VNCL_OK) break;
      }
      st = VB(devgemm)('N', 'N', s, n, s, step > 0 ? (E)1 : alpha, inv, s, bq,
                       ldb, 0, x, s);
      if (st == VNCL_OK) VB(copy)(s, n, x, s, bq, ldb);
    } else {
      E *bq = b + (int64_t)o * ldb;
      if (step > 0) { /* B_q = alpha B_q - X_solved op(A)_{solved,q} */
        if (forward)
          st = notr ? VB(devgemm)('N', 'N', m, s, o, -1, b, ldb,
                                  a + (int64_t)o * lda, lda, alpha, bq, ldb)
                    : VB(devgemm)('N', ta, m, s, o, -1, b, ldb, a + o, lda,
                                  alpha, bq, ldb);
        else
          st = notr ? VB(devgemm)('N', 'N', m, s, n - o1, -1,
                                  b + (int64_t)o1 * ldb, ldb,
                                  a + o1 + (int64_t)o * lda, lda, alpha, bq,
                                  ldb)
                    : VB(devgemm)('N', ta, m, s, n - o1, -1,
                                  b + (int64_t)o1 * ldb, ldb,
                                  a + o + (int64_t)o1 * lda, lda, alpha, bq,
                                  ldb);
        if (st != VNCL_OK) break;
      }
      st = VB(devgemm)('N', 'N', m, s, s, step > 0 ? (E)1 : alpha, bq, ldb,
                       inv, s, 0, x, m);
      if (st == VNCL_OK) VB(copy)(m, s, x, m, bq, ldb);
    }
  }
  free(inv);
  free(x);
  return st;
}

/* solve 0: trmm, 1: trsm. */
static void VB(tr_any)(int solve, char side, char uplo, char ta, char diag,
                       int m, int n, E alpha, const E *a, int lda, E *b,
                       int ldb) {
  const int left = vb_lsame(side, 'L'), upper = vb_lsame(uplo, 'U');
  const int nrowa = left ? m : n;
  const int routine = solve ? VB_TRSM : VB_TRMM;
  int info = 0;
  if (!left && !vb_lsame(side, 'R')) info = 1;
  else if (!upper && !vb_lsame(uplo, 'L')) info = 2;
  else if (!vb_lsame(ta, 'N') && !vb_lsame(ta, 'T') && !vb_lsame(ta, 'C'))
    info = 3;
  else if (!vb_lsame(diag, 'U') && !vb_lsame(diag, 'N')) info = 4;
  else if (m < 0) info = 5;
  else if (n < 0) info = 6;
  else if (lda < VB_MAX(1, nrowa)) info = 9;
  else if (ldb < VB_MAX(1, m)) info = 11;
  if (info) {
    vb_xerbla(solve ? UPSTR "TRSM " : UPSTR "TRMM ", info);
    return;
  }
  if (m == 0 || n == 0) {
    vb_stats_add(routine, TYPE, VB_QUICK, 0);
    return;
  }
  if (alpha == 0) {
    VB(scale)(m, n, 0, b, ldb);
    vb_stats_add(routine, TYPE, VB_QUICK, 0);
    return;
  }
  const double fl = FLOPMUL * (double)m * (double)n * (double)nrowa;
  if (vb_device_wanted(routine, TYPE, fl)) {
    vncl_status st = VNCL_ERR_OUT_OF_MEMORY;
    if (solve) {
      /* More than one block writes B as it goes: keep the caller's B. */
      E *keep = NULL;
      if (nrowa > VB_TRSM_BLOCK) {
        keep = malloc((size_t)m * (size_t)n * sizeof(E));
        if (keep) VB(copy)(m, n, b, ldb, keep, m);
      }
      if (keep || nrowa <= VB_TRSM_BLOCK) {
        st = VB(devtrsm)(left, upper, ta, diag, m, n, alpha, a, lda, b, ldb);
        if (st != VNCL_OK && keep) VB(copy)(m, n, keep, m, b, ldb);
      }
      free(keep);
    } else {
      E *t = VB(expand_tri)(upper, vb_lsame(diag, 'U'), nrowa, a, lda);
      E *d = malloc((size_t)m * (size_t)n * sizeof(E));
      if (t && d) {
        st = left ? VB(devgemm)(ta, 'N', m, n, m, alpha, t, m, b, ldb, 0, d, m)
                  : VB(devgemm)('N', ta, m, n, n, alpha, b, ldb, t, n, 0, d, m);
        if (st == VNCL_OK) VB(copy)(m, n, d, m, b, ldb);
      }
      free(t);
      free(d);
    }
    if (st == VNCL_OK) {
      vb_stats_add(routine, TYPE, VB_ON_DEVICE, fl);
      return;
    }
    VB(fallback_warn)(solve ? "trsm" : "trmm", st);
  }
  if (solve) {
    CPUFN(trsm_) *f = CPU(trsm_);
    if (f) f(&side, &uplo, &ta, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
  } else {
    CPUFN(trmm_) *f = CPU(trmm_);
    if (f) f(&side, &uplo, &ta, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
  }
  vb_stats_add(routine, TYPE, VB_ON_CPU, fl);
}

void FN(trmm_)(const char *side, const char *uplo, const char *transa,
               const char *diag, const int *m, const int *n, const E *alpha,
               const E *a, const int *lda, E *b, const int *ldb,
               size_t side_len, size_t uplo_len, size_t transa_len,
               size_t diag_len) {
  (void)side_len;
  (void)uplo_len;
  (void)transa_len;
  (void)diag_len;
  VB(tr_any)(0, *side, *uplo, *transa, *diag, *m, *n, *alpha, a, *lda, b,
             *ldb);
}

void FN(trsm_)(const char *side, const char *uplo, const char *transa,
               const char *diag, const int *m, const int *n, const E *alpha,
               const E *a, const int *lda, E *b, const int *ldb,
               size_t side_len, size_t uplo_len, size_t transa_len,
               size_t diag_len) {
  (void)side_len;
  (void)uplo_len;
  (void)transa_len;
  (void)diag_len;
  VB(tr_any)(1, *side, *uplo, *transa, *diag, *m, *n, *alpha, a, *lda, b,
             *ldb);
}

/* ---- CBLAS -------------------------------------------------------------
 * As the reference CBLAS: the enums become the Fortran letters, row-major
 * calls become column-major ones on the transposed problem, RowMajorStrg
 * and CBLAS_CallFromC tell the error handlers which, and bad enums go to
 * cblas_xerbla with their CBLAS argument positions. */

#define CB_BEGIN()                                                          \
  RowMajorStrg = 0;                                                         \
  CBLAS_CallFromC = 1
#define CB_END()                                                            \
  CBLAS_CallFromC = 0;                                                      \
  RowMajorStrg = 0
#define CB_FAIL(pos, name, what, v)                                         \
  do {                                                                      \
    cblas_xerbla(pos, "cblas_" PSTR name, "Illegal " what " setting, %d\n", \
                 v);                                                        \
    CB_END();                                                               \
    return;                                                                 \
  } while (0)

void CB(gemm)(const int order, const int transa, const int transb,
              const int m, const int n, const int k, const CBS alpha,
              const CBV *a, const int lda, const CBV *b, const int ldb,
              const CBS beta, CBV *c, const int ldc) {
  char ta, tb;
  CB_BEGIN();
  if (order != VB_COL_MAJOR && order != VB_ROW_MAJOR)
    CB_FAIL(1, "gemm", "layout", order);
  if (order == VB_ROW_MAJOR) RowMajorStrg = 1;
  if (!(ta = vb_cb_trans(transa))) CB_FAIL(2, "gemm", "TransA", transa);
  if (!(tb = vb_cb_trans(transb))) CB_FAIL(3, "gemm", "TransB", transb);
  if (order == VB_COL_MAJOR)
    VB(gemm)(ta, tb, m, n, k, SVAL(alpha), (const E *)a, lda, (const E *)b,
             ldb, SVAL(beta), (E *)c, ldc);
  else
    VB(gemm)(tb, ta, n, m, k, SVAL(alpha), (const E *)b, ldb, (const E *)a,
             lda, SVAL(beta), (E *)c, ldc);
  CB_END();
}

static void VB(cb_symm)(int herm, const int order, const int side,
                        const int uplo, const int m, const int n, E alpha,
                        const E *a, const int lda, const E *b, const int ldb,
                        E beta, E *c, const int ldc) {
  const char *name = herm ? "hemm" : "symm";
  char sd, ul;
  CB_BEGIN();
  if (order != VB_COL_MAJOR && order != VB_ROW_MAJOR) {
    cblas_xerbla(1, herm ? "cblas_" PSTR "hemm" : "cblas_" PSTR "symm",
                 "Illegal layout setting, %d\n", order);
    CB_END();
    return;
  }
  const int row = order == VB_ROW_MAJOR;
  if (row) RowMajorStrg = 1;
  sd = vb_cb_side(side, row);
  ul = vb_cb_uplo(uplo, row);
  if (!sd || !ul) {
    char rout[32];
    snprintf(rout, sizeof rout, "cblas_%s%s", PSTR, name);
    cblas_xerbla(!sd ? 2 : 3, rout, !sd ? "Illegal Side setting, %d\n"
                                        : "Illegal Uplo setting, %d\n",
                 !sd ? side : uplo);
    CB_END();
    return;
  }
  if (row)
    VB(symm_any)(herm, sd, ul, n, m, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    VB(symm_any)(herm, sd, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
  CB_END();
}

void CB(symm)(const int order, const int side, const int uplo, const int m,
              const int n, const CBS alpha, const CBV *a, const int lda,
              const CBV *b, const int ldb, const CBS beta, CBV *c,
              const int ldc) {
  VB(cb_symm)(0, order, side, uplo, m, n, SVAL(alpha), (const E *)a, lda,
              (const E *)b, ldb, SVAL(beta), (E *)c, ldc);
}

#if CPLX
void CB(hemm)(const int order, const int side, const int uplo, const int m,
              const int n, const CBS alpha, const CBV *a, const int lda,
              const CBV *b, const int ldb, const CBS beta, CBV *c,
              const int ldc) {
  VB(cb_symm)(1, order, side, uplo, m, n, SVAL(alpha), (const E *)a, lda,
              (const E *)b, ldb, SVAL(beta), (E *)c, ldc);
}
#endif

/* syrk, herk, syr2k, her2k: row-major swaps uplo and the transpose. */
static void VB(cb_rank_k)(int two, int herm, const int order, const int uplo,
                          const int trans, const int n, const int k, E alpha,
                          const E *a, const int lda, const E *b,
                          const int ldb, E beta, E *c, const int ldc) {
  static const char *const names[2][2] = {{"syrk", "herk"},
                                          {"syr2k", "her2k"}};
  char rout[32];
  snprintf(rout, sizeof rout, "cblas_%s%s", PSTR, names[two][herm]);
  CB_BEGIN();
  if (order != VB_COL_MAJOR && order != VB_ROW_MAJOR) {
    cblas_xerbla(1, rout, "Illegal layout setting, %d\n", order);
    CB_END();
    return;
  }
  const int row = order == VB_ROW_MAJOR;
  if (row) RowMajorStrg = 1;
  char ul = vb_cb_uplo(uplo, row), tr = 0;
  if (!ul) {
    cblas_xerbla(2, rout, "Illegal Uplo setting, %d\n", uplo);
    CB_END();
    return;
  }
  const char x = herm ? 'C' : 'T';
  if (!row) {
    tr = vb_cb_trans(trans);
  } else if (trans == VB_NO_TRANS) {
    tr = x;
  } else if (trans == VB_TRANS || trans == VB_CONJ_TRANS) {
    /* the reference accepts either here, for every type */
    tr = 'N';
  }
  if (!tr) {
    cblas_xerbla(3, rout, "Illegal Trans setting, %d\n", trans);
    CB_END();
    return;
  }
  /* her2k's row-major form is the column-major one with conj(alpha). */
  E al = (row && herm && two) ? CONJ(alpha) : alpha;
  VB(rank_k)(two, herm, ul, tr, n, k, al, a, lda, b, ldb, beta, c, ldc);
  CB_END();
}

void CB(syrk)(const int order, const int uplo, const int trans, const int n,
              const int k, const CBS alpha, const CBV *a, const int lda,
              const CBS beta, CBV *c, const int ldc) {
  VB(cb_rank_k)(0, 0, order, uplo, trans, n, k, SVAL(alpha), (const E *)a,
                lda, NULL, 1, SVAL(beta), (E *)c, ldc);
}

void CB(syr2k)(const int order, const int uplo, const int trans, const int n,
               const int k, const CBS alpha, const CBV *a, const int lda,
               const CBV *b, const int ldb, const CBS beta, CBV *c,
               const int ldc) {
  VB(cb_rank_k)(1, 0, order, uplo, trans, n, k, SVAL(alpha), (const E *)a,
                lda, (const E *)b, ldb, SVAL(beta), (E *)c, ldc);
}

#if CPLX
void CB(herk)(const int order, const int uplo, const int trans, const int n,
              const int k, const R alpha, const CBV *a, const int lda,
              const R beta, CBV *c, const int ldc) {
  VB(cb_rank_k)(0, 1, order, uplo, trans, n, k, alpha, (const E *)a, lda,
                NULL, 1, beta, (E *)c, ldc);
}

void CB(her2k)(const int order, const int uplo, const int trans, const int n,
               const int k, const CBS alpha, const CBV *a, const int lda,
               const CBV *b, const int ldb, const R beta, CBV *c,
               const int ldc) {
  VB(cb_rank_k)(1, 1, order, uplo, trans, n, k, SVAL(alpha), (const E *)a,
                lda, (const E *)b, ldb, beta, (E *)c, ldc);
}
#endif

static void VB(cb_tr)(int solve, const int order, const int side,
                      const int uplo, const int transa, const int diag,
                      const int m, const int n, E alpha, const E *a,
                      const int lda, E *b, const int ldb) {
  char rout[32];
  snprintf(rout, sizeof rout, "cblas_%s%s", PSTR, solve ? "trsm" : "trmm");
  CB_BEGIN();
  if (order != VB_COL_MAJOR && order != VB_ROW_MAJOR) {
    cblas_xerbla(1, rout, "Illegal layout setting, %d\n", order);
    CB_END();
    return;
  }
  const int row = order == VB_ROW_MAJOR;
  if (row) RowMajorStrg = 1;
  const char sd = vb_cb_side(side, row), ul = vb_cb_uplo(uplo, row);
  const char ta = vb_cb_trans(transa), di = vb_cb_diag(diag);
  int pos = !sd ? 2 : !ul ? 3 : !ta ? 4 : !di ? 5 : 0;
  if (pos) {
    static const char *const what[] = {"", "", "Side", "Uplo", "Trans",
                                       "Diag"};
    static const char *const fmts[] = {
        "", "", "Illegal Side setting, %d\n", "Illegal Uplo setting, %d\n",
        "Illegal Trans setting, %d\n", "Illegal Diag setting, %d\n"};
    const int vals[] = {0, 0, side, uplo, transa, diag};
    (void)what;
    cblas_xerbla(pos, rout, fmts[pos], vals[pos]);
    CB_END();
    return;
  }
  if (row)
    VB(tr_any)(solve, sd, ul, ta, di, n, m, alpha, a, lda, b, ldb);
  else
    VB(tr_any)(solve, sd, ul, ta, di, m, n, alpha, a, lda, b, ldb);
  CB_END();
}

void CB(trmm)(const int order, const int side, const int uplo,
              const int transa, const int diag, const int m, const int n,
              const CBS alpha, const CBV *a, const int lda, CBV *b,
              const int ldb) {
  VB(cb_tr)(0, order, side, uplo, transa, diag, m, n, SVAL(alpha),
            (const E *)a, lda, (E *)b, ldb);
}

void CB(trsm)(const int order, const int side, const int uplo,
              const int transa, const int diag, const int m, const int n,
              const CBS alpha, const CBV *a, const int lda, CBV *b,
              const int ldb) {
  VB(cb_tr)(1, order, side, uplo, transa, diag, m, n, SVAL(alpha),
            (const E *)a, lda, (E *)b, ldb);
}

#undef CB_BEGIN
#undef CB_END
#undef CB_FAIL
#undef FN
#undef VB
#undef CB
#undef CPUFN
#undef CPUSLOT
#undef CPU
#undef CONJ
#undef REAL
#undef IMAG
#undef FLOPMUL
#undef SVAL
