/* The drop-in BLAS (libblas.so.3): the private header shared by the files of blas/.
 * It is a client of vncl's public API only (include/vncl.h), linked with
 * libvncl.a and exporting nothing but the BLAS names (build/blas/blas.map,
 * generated from blas/blas.sigs). Names here are vb_* and hidden. */
#ifndef VB_BLAS_INTERNAL_H
#define VB_BLAS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <vncl.h>

#include "blas_gen.h"

#define VB_HIDDEN __attribute__((visibility("hidden")))

/* ---- The CPU BLAS (blas_cpu.c) ---------------------------------------- */

/* The CPU BLAS's symbol for a slot, loading the library on first use
 * (thread-safe). NULL only when no CPU BLAS could be loaded; a message says
 * so once on stderr (the routines then do nothing). */
VB_HIDDEN void *vb_cpu_fn(int slot);
/* The file the CPU BLAS was loaded from, or "" before/without one. */
VB_HIDDEN const char *vb_cpu_path(void);

/* ---- Settings (blas_config.c) ------------------------------------------ */

enum vb_routine {
  VB_GEMM, VB_SYMM, VB_HEMM, VB_SYRK, VB_HERK, VB_SYR2K, VB_HER2K, VB_TRMM,
  VB_TRSM, VB_NROUTINES
};
enum vb_type { VB_S, VB_D, VB_C, VB_Z, VB_NTYPES };

typedef struct vb_settings {
  double min_flops;      /* VNCL_BLAS_MIN_FLOPS: smallest call for the device */
  int verbose;           /* VNCL_BLAS_VERBOSE: summary at exit */
  int log_warn;          /* VNCL_LOG is warn, info or debug */
  unsigned on[VB_NROUTINES]; /* bit t set: routine of type t may go to the device */
  char device[256];      /* VNCL_DEVICE ("" = vncl's default) */
  char cpu_library[1024]; /* VNCL_BLAS_CPU_LIBRARY ("" = search) */
  char config_file[1024]; /* the file read, or "" */
} vb_settings;

/* Read once (environment over VNCL_BLAS_CONFIG's file over defaults). */
VB_HIDDEN const vb_settings *vb_settings_get(void);
/* Parses a VNCL_BLAS_ROUTINES list into on[] (exposed for the tests). */
VB_HIDDEN int vb_parse_routines(const char *list, unsigned on[VB_NROUTINES]);
VB_HIDDEN const char *vb_routine_name(int r);

/* Warning under VNCL_LOG (warn and above), as vncl's own log lines. */
VB_HIDDEN void vb_warn(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Per routine and type: calls and FLOPs on the device and on the CPU BLAS,
 * and calls with nothing to multiply (quick returns, alpha or k zero). */
enum vb_where { VB_ON_CPU, VB_ON_DEVICE, VB_QUICK };
VB_HIDDEN void vb_stats_add(int routine, int type, int where, double flops);

/* ---- The device (blas_device.c) ---------------------------------------- */

/* Whether a call of this routine, type and size goes to the device: the
 * settings allow it, a device context exists (created on first use), the
 * process is not a fork() child of one that used it, and the type is
 * supported (f64 needs fp64). */
VB_HIDDEN int vb_device_wanted(int routine, int type, double flops);

/* C = alpha op(A) op(B) + beta C in column-major host memory on the device,
 * real types (dbl 0: float, 1: double); ta/tb 'N' or 'T' ('C' = 'T').
 * Returns VNCL_OK, or an error after which C holds its original values, or,
 * with beta == 0, values the caller overwrites entirely. */
VB_HIDDEN vncl_status vb_dev_gemm_real(int dbl, char ta, char tb, int64_t m,
                                       int64_t n, int64_t k, double alpha,
                                       const void *a, int64_t lda,
                                       const void *b, int64_t ldb, double beta,
                                       void *c, int64_t ldc);

/* The last vncl error message of this thread on the device context. */
VB_HIDDEN const char *vb_device_errmsg(void);

/* ---- Shared helpers (blas_misc.c) -------------------------------------- */

/* Calls the xerbla_ in force (the program's own, or ours) as the reference
 * routines do: name padded to 6 characters ("SGEMM "). */
VB_HIDDEN void vb_xerbla(const char *name, int info);
/* LSAME: equal ignoring ASCII case. */
static inline int vb_lsame(char a, char b) {
  if (a >= 'a' && a <= 'z') a = (char)(a - 32);
  if (b >= 'a' && b <= 'z') b = (char)(b - 32);
  return a == b;
}

/* CBLAS enums (cblas.h values). */
enum {
  VB_ROW_MAJOR = 101, VB_COL_MAJOR = 102, VB_NO_TRANS = 111, VB_TRANS = 112,
  VB_CONJ_TRANS = 113, VB_UPPER = 121, VB_LOWER = 122, VB_NON_UNIT = 131,
  VB_UNIT = 132, VB_LEFT = 141, VB_RIGHT = 142
};
extern int RowMajorStrg;
extern int CBLAS_CallFromC;
VB_EXPORT void cblas_xerbla(int p, const char *rout, const char *form, ...);

#endif
