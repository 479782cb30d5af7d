/* Error handlers, LSAME, the CBLAS globals and the small routines of the
 * reference interface that the CPU BLAS need not have. */
#include <complex.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blas_internal.h"

/* Set by the CBLAS routines while they run, read by error handlers (the
 * reference CBLAS testers' among them) to map Fortran argument positions
 * back to CBLAS ones. */
VB_EXPORT int RowMajorStrg = 0;
VB_EXPORT int CBLAS_CallFromC = 0;

/* The reference XERBLA prints this and stops the program; a library must
 * not stop its host program, so this one prints and returns (as OpenBLAS
 * does). Programs that define their own xerbla_ get theirs. */
void xerbla_(const char *srname, const int *info, size_t srname_len) {
  size_t n = srname ? strnlen(srname, srname_len) : 0;
  while (n && srname[n - 1] == ' ') n--;
  fprintf(stderr,
          " ** On entry to %.*s parameter number %2d had an illegal value\n",
          (int)n, srname ? srname : "", info ? *info : 0);
}

void xerbla_array_(const char *srname_array, const int *srname_len,
                   const int *info, size_t srname_array_len) {
  (void)srname_array_len;
  char name[33] = {0};
  int n = srname_len ? *srname_len : 0;
  if (n < 0) n = 0;
  if (n > 32) n = 32;
  for (int i = 0; i < n; i++) name[i] = srname_array[i];
  xerbla_(name, info, (size_t)n);
}

void vb_xerbla(const char *name, int info) {
  xerbla_(name, &info, strlen(name));
}

int lsame_(const char *ca, const char *cb, size_t ca_len, size_t cb_len) {
  (void)ca_len;
  (void)cb_len;
  return vb_lsame(*ca, *cb);
}

/* The reference prints this and exits; this one prints and returns. With
 * RowMajorStrg set it reports the row-major argument positions, as the
 * reference does for the routines whose arguments swap. */
void cblas_xerbla(int p, const char *rout, const char *form, ...) {
  if (RowMajorStrg && rout) {
    if (strstr(rout, "gemm")) {
      if (p == 5) p = 4; else if (p == 4) p = 5;
      else if (p == 11) p = 9; else if (p == 9) p = 11;
    } else if (strstr(rout, "symm") || strstr(rout, "hemm")) {
      if (p == 5) p = 4; else if (p == 4) p = 5;
    } else if (strstr(rout, "trmm") || strstr(rout, "trsm")) {
      if (p == 7) p = 6; else if (p == 6) p = 7;
    } else if (strstr(rout, "gemv")) {
      if (p == 4) p = 3; else if (p == 3) p = 4;
    } else if (strstr(rout, "gbmv")) {
      if (p == 4) p = 3; else if (p == 3) p = 4;
      else if (p == 6) p = 5; else if (p == 5) p = 6;
    } else if (strstr(rout, "ger")) {
      if (p == 3) p = 2; else if (p == 2) p = 3;
      else if (p == 8) p = 6; else if (p == 6) p = 8;
    }
  }
  if (p) fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p,
                 rout ? rout : "?");
  if (form) {
    va_list ap;
    va_start(ap, form);
    vfprintf(stderr, form, ap);
    va_end(ap);
  }
}

/* ---- Subroutine forms of the functions -------------------------------- */

void sdotsub_(const int *n, const float *x, const int *incx, const float *y,
              const int *incy, float *dot) {
  *dot = sdot_(n, x, incx, y, incy);
}
void ddotsub_(const int *n, const double *x, const int *incx, const double *y,
              const int *incy, double *dot) {
  *dot = ddot_(n, x, incx, y, incy);
}
void cdotusub_(const int *n, const float _Complex *x, const int *incx,
               const float _Complex *y, const int *incy, float _Complex *dot) {
  *dot = cdotu_(n, x, incx, y, incy);
}
void cdotcsub_(const int *n, const float _Complex *x, const int *incx,
               const float _Complex *y, const int *incy, float _Complex *dot) {
  *dot = cdotc_(n, x, incx, y, incy);
}
void zdotusub_(const int *n, const double _Complex *x, const int *incx,
               const double _Complex *y, const int *incy,
               double _Complex *dot) {
  *dot = zdotu_(n, x, incx, y, incy);
}
void zdotcsub_(const int *n, const double _Complex *x, const int *incx,
               const double _Complex *y, const int *incy,
               double _Complex *dot) {
  *dot = zdotc_(n, x, incx, y, incy);
}
void sdsdotsub_(const int *n, const float *sb, const float *x, const int *incx,
                const float *y, const int *incy, float *dot) {
  *dot = sdsdot_(n, sb, x, incx, y, incy);
}
void dsdotsub_(const int *n, const float *x, const int *incx, const float *y,
               const int *incy, double *dot) {
  *dot = dsdot_(n, x, incx, y, incy);
}
void snrm2sub_(const int *n, const float *x, const int *incx, float *nrm2) {
  *nrm2 = snrm2_(n, x, incx);
}
void dnrm2sub_(const int *n, const double *x, const int *incx, double *nrm2) {
  *nrm2 = dnrm2_(n, x, incx);
}
void scnrm2sub_(const int *n, const float _Complex *x, const int *incx,
                float *nrm2) {
  *nrm2 = scnrm2_(n, x, incx);
}
void dznrm2sub_(const int *n, const double _Complex *x, const int *incx,
                double *nrm2) {
  *nrm2 = dznrm2_(n, x, incx);
}
void sasumsub_(const int *n, const float *x, const int *incx, float *asum) {
  *asum = sasum_(n, x, incx);
}
void dasumsub_(const int *n, const double *x, const int *incx, double *asum) {
  *asum = dasum_(n, x, incx);
}
void scasumsub_(const int *n, const float _Complex *x, const int *incx,
                float *asum) {
  *asum = scasum_(n, x, incx);
}
void dzasumsub_(const int *n, const double _Complex *x, const int *incx,
                double *asum) {
  *asum = dzasum_(n, x, incx);
}
void isamaxsub_(const int *n, const float *x, const int *incx, int *amax) {
  *amax = isamax_(n, x, incx);
}
void idamaxsub_(const int *n, const double *x, const int *incx, int *amax) {
  *amax = idamax_(n, x, incx);
}
void icamaxsub_(const int *n, const float _Complex *x, const int *incx,
                int *amax) {
  *amax = icamax_(n, x, incx);
}
void izamaxsub_(const int *n, const double _Complex *x, const int *incx,
                int *amax) {
  *amax = izamax_(n, x, incx);
}
void scabs1sub_(const float _Complex *z, float *abs1) {
  *abs1 = fabsf(crealf(*z)) + fabsf(cimagf(*z));
}
void dcabs1sub_(const double _Complex *z, double *abs1) {
  *abs1 = fabs(creal(*z)) + fabs(cimag(*z));
}
float cblas_scabs1(const void *c) {
  const float _Complex *z = c;
  return fabsf(crealf(*z)) + fabsf(cimagf(*z));
}
double cblas_dcabs1(const void *z) {
  const double _Complex *v = z;
  return fabs(creal(*v)) + fabs(cimag(*v));
}
