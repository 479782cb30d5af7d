/* The Level-3 BLAS, Fortran and CBLAS entry points, for the four types:
 * level3_t.h instantiated once per type. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_internal.h"

#define VB_CAT_(a, b) a##b
#define VB_CAT(a, b) VB_CAT_(a, b)
#define VB_CAT3(a, b, c) VB_CAT(VB_CAT(a, b), c)
#define VB_MAX(a, b) ((a) > (b) ? (a) : (b))

/* CBLAS enums to Fortran letters; 0 for a value that is none of them.
 * Row-major swaps side and uplo (the transposed problem). */
static char vb_cb_trans(int t) {
  return t == VB_NO_TRANS ? 'N' : t == VB_TRANS ? 'T'
                                : t == VB_CONJ_TRANS ? 'C' : 0;
}
static char vb_cb_side(int s, int row) {
  return s == VB_LEFT ? (row ? 'R' : 'L') : s == VB_RIGHT ? (row ? 'L' : 'R')
                                                          : 0;
}
static char vb_cb_uplo(int u, int row) {
  return u == VB_UPPER ? (row ? 'L' : 'U') : u == VB_LOWER ? (row ? 'U' : 'L')
                                                           : 0;
}
static char vb_cb_diag(int d) {
  return d == VB_UNIT ? 'U' : d == VB_NON_UNIT ? 'N' : 0;
}

#define P s
#define PSTR "s"
#define UPSTR "S"
#define E float
#define R float
#define CPLX 0
#define DBL 0
#define TYPE VB_S
#define CBS float
#define CBV float
#include "level3_t.h"
#undef P
#undef PSTR
#undef UPSTR
#undef E
#undef R
#undef CPLX
#undef DBL
#undef TYPE
#undef CBS
#undef CBV

#define P d
#define PSTR "d"
#define UPSTR "D"
#define E double
#define R double
#define CPLX 0
#define DBL 1
#define TYPE VB_D
#define CBS double
#define CBV double
#include "level3_t.h"
#undef P
#undef PSTR
#undef UPSTR
#undef E
#undef R
#undef CPLX
#undef DBL
#undef TYPE
#undef CBS
#undef CBV

#define P c
#define PSTR "c"
#define UPSTR "C"
#define E float _Complex
#define R float
#define CPLX 1
#define DBL 0
#define TYPE VB_C
#define CBS void *
#define CBV void
#include "level3_t.h"
#undef P
#undef PSTR
#undef UPSTR
#undef E
#undef R
#undef CPLX
#undef DBL
#undef TYPE
#undef CBS
#undef CBV

#define P z
#define PSTR "z"
#define UPSTR "Z"
#define E double _Complex
#define R double
#define CPLX 1
#define DBL 1
#define TYPE VB_Z
#define CBS void *
#define CBV void
#include "level3_t.h"
