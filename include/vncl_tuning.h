/* vncl tuning API: included by vncl.h; see the conventions at the top of
 * vncl.h.
 *
 * The parameters vncl's kernels run with, by kernel family: which
 * tunables a family has and their candidates (from the family's table),
 * the set in force on a context for a (family, dtype, shape class) and
 * where it came from, installing a set on one context, checking whether a
 * candidate fits the device, timing one candidate, the tuning database
 * (load, merge, save) and a journal of measurements beside it (what
 * `vncl autotune`, a tool over this header alone, resumes from). docs/tuning.md
 * describes the tables, the device rows and the precedence.
 *
 * Families: "gemm" (its dtype picks the storage class: f32, f64, and f16
 * and bf16 together, a set each; shape classes "square", "narrow", "flat") and
 * the tensor-operation families "elementwise", "cast", "transpose",
 * "reduce", "softmax" and "random" (one set each: any dtype, class
 * "default" or NULL). vncl_tuning_family_name() lists them.
 *
 * Rules for every function below:
 *  - Errors: VNCL_ERR_INVALID_ARG for a NULL argument the function needs,
 *    an unknown family, class or tunable name, or a value the family's
 *    rules refuse, each with a message (vncl_errmsg(ctx), or
 *    vncl_errmsg(NULL) where no context is given) naming the problem. On
 *    error no output is written and nothing is installed.
 *  - Threads: every function is thread-safe; a vncl_tuning_db and a
 *    vncl_tuning_journal are not: one thread at a time per database or
 *    journal.
 */
#ifndef VNCL_TUNING_H
#define VNCL_TUNING_H

#include "vncl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of kernel families, and the name of family i ("gemm",
 * "elementwise", ...; NULL when i is out of range). Static strings. */
VNCL_API int vncl_tuning_family_count(void);
VNCL_API const char *vncl_tuning_family_name(int i);

/* One tunable of a family's table. The strings and arrays are the
 * library's, valid for the life of the process. */
typedef struct vncl_tunable {
  const char *name;    /* the kernel macro and the database name ("MR") */
  const char *meaning; /* one line */
  const char *kernel;  /* the kernel that reads it ("gemm_packed_cpu"), or
                        * "host" for a value only the host reads */
  int integer;         /* 1: an int, 0: a double */
  double def;          /* the table's default (fits any device) */
  double min, max;     /* the range a set may hold */
  int nfull, nquick;   /* the autotuner's candidates: full, quick */
  const double *full, *quick;
} vncl_tunable;

/* The number of tunables of `family` (-1 when unknown, with a message),
 * and tunable i into out. Errors: VNCL_ERR_INVALID_ARG (family unknown, i
 * out of range, out NULL). */
VNCL_API int vncl_tuning_tunable_count(const char *family);
VNCL_API vncl_status vncl_tuning_tunable(const char *family, int i,
                                         vncl_tunable *out);

/* Where a set in force came from, most binding first. */
typedef enum vncl_tuning_source {
  VNCL_TUNING_SOURCE_USER = 1, /* installed on the context (vncl_tuning_set) */
  VNCL_TUNING_SOURCE_DATABASE, /* an entry of the context's tuning database */
  VNCL_TUNING_SOURCE_BUILTIN,  /* a built-in device row */
  VNCL_TUNING_SOURCE_TABLE     /* the table's defaults (no row fits) */
} vncl_tuning_source;

/* A name of the source ("database entry"); never NULL. */
VNCL_API const char *vncl_tuning_source_name(vncl_tuning_source s);

/* A parameter set by name, in table order. */
#define VNCL_TUNING_MAX_PARAMS 48
typedef struct vncl_tuning_params {
  int count;
  char names[VNCL_TUNING_MAX_PARAMS][24];
  double values[VNCL_TUNING_MAX_PARAMS];
  vncl_tuning_source source; /* filled by vncl_tuning_get */
  int index; /* the built-in row or database entry, -1 for none */
  /* Filled by vncl_tuning_get: where the set came from in words ("PATH
   * entry 0 (exact device and driver)", "built-in table (FILE, row 1;
   * measured on HOST, DATE)"), and for a database entry its measured rate
   * (GFLOP/s for GEMM, GB/s for ops; 0 when unknown) and date. */
  char origin[1280];
  double rate;
  char date[32];
} vncl_tuning_params;

/* The set in force on ctx for (family, dtype, shape class) and where it
 * came from (the first lookup reads ctx's tuning database). For the
 * tensor-op families the values are those the launches use, after fitting
 * to the device's work-group and local-memory limits. shape_class
 * NULL means the family's first ("square", "default"). Errors:
 * VNCL_ERR_INVALID_ARG (NULL ctx or out, unknown family or class). */
VNCL_API vncl_status vncl_tuning_get(vncl_context *ctx, const char *family,
                                     vncl_dtype dtype,
                                     const char *shape_class,
                                     vncl_tuning_params *out);

/* The tuning database a context reads (on its first parameter lookup,
 * which this call makes if none has). */
typedef struct vncl_tuning_database_info {
  int state;        /* 0 none (no such file, or no path), 1 read,
                     * -1 invalid, -2 not trusted and ignored */
  int entries;      /* entries naming this device (state 1) */
  char path[1024];  /* "" when there is none (no home folder) */
  char why[512];    /* state < 0: the reason */
  char fix[512];    /* state -2: the remedy, when one is known */
} vncl_tuning_database_info;
/* Errors: VNCL_ERR_INVALID_ARG (NULL argument). */
VNCL_API vncl_status vncl_tuning_database(vncl_context *ctx,
                                          vncl_tuning_database_info *out);

/* The value of `name` in p into *out. Errors: VNCL_ERR_INVALID_ARG (NULL
 * argument, name not in p). */
VNCL_API vncl_status vncl_tuning_value(const vncl_tuning_params *p,
                                       const char *name, double *out);

/* Installs p on ctx for (family, dtype, shape class): ctx's calls run with
 * it, other contexts keep theirs. p lies over the set in force, so it may
 * name only some tunables; p NULL withdraws an installed set (the database
 * entry or built-in row applies again). Family "clblast" installs CLBlast's
 * Xgemm parameters (p over CLBlast's table defaults) for ctx's device and
 * dtype's precision (f64, else f32), the shape class unused: CLBlast keeps
 * them per device for the rest of the process, in every context, and they
 * cannot be withdrawn (p NULL: VNCL_ERR_UNSUPPORTED); gemm sets whose
 * backend is CLBlast (backend 1) then run with them. Errors:
 * VNCL_ERR_INVALID_ARG (unknown name, a value outside its range, a set the
 * kernels' rules or the device's limits refuse: the message names the
 * rule), VNCL_ERR_UNSUPPORTED (CLBlast refused the parameters). */
VNCL_API vncl_status vncl_tuning_set(vncl_context *ctx, const char *family,
                                     vncl_dtype dtype, const char *shape_class,
                                     const vncl_tuning_params *p);

/* Whether candidate p (laid over the set in force for (family, dtype,
 * shape class); for "clblast", over CLBlast's table defaults) would build
 * and fit ctx's device: the kernels' divisibility rules, the device's
 * work-group limit and (where the device row asks) its preferred multiple,
 * local memory, and for GEMM the register check against the row's VREGS
 * (the vector registers each CPU kernel keeps live; docs/tuning.md, "The
 * register check"). For "gemm" the kernels checked are those that read the
 * tunables p names (gemm_direct, the packed kernel FAST selects,
 * gemm_small), all of them when p names only host tunables (gemm_small
 * only where the set routes products to it). Besides the families of
 * vncl_tuning_family_name, family may be "clblast": CLBlast's Xgemm
 * parameters (GEMM's dtypes; vncl_tuning_tunable lists them too). Installs
 * nothing. Returns VNCL_OK when the set fits; VNCL_ERR_UNSUPPORTED when it
 * does not, the reason (the rule) then in why (up to cap bytes, why may be
 * NULL) and in vncl_errmsg(ctx). Errors: VNCL_ERR_INVALID_ARG (as
 * vncl_tuning_set; why non-NULL with cap 0; why is then untouched). */
VNCL_API vncl_status vncl_tuning_check(vncl_context *ctx, const char *family,
                                       vncl_dtype dtype,
                                       const char *shape_class,
                                       const vncl_tuning_params *p, char *why,
                                       size_t cap);

/* Times one candidate: a GEMM C = A B of random f32/f64 inputs (m x k times
 * k x n, dtype f32, f64, f16 or bf16) under candidate p (laid over the set
 * in force for dtype and the product's shape class, installed for the
 * measurement only), once to build, then `runs` times; *seconds receives
 * the median of one product. Only "gemm" is measured here (the tensor-op
 * families through `vncl autotune`). Errors: VNCL_ERR_INVALID_ARG (as
 * vncl_tuning_set, a size of 0, runs < 1 or > 100), VNCL_ERR_UNSUPPORTED
 * (another family; f64 without fp64), and the errors of vncl_gemm. The
 * previously installed set, if any, is back afterwards. */
VNCL_API vncl_status vncl_tuning_measure(vncl_context *ctx, const char *family,
                                         vncl_dtype dtype,
                                         const vncl_tuning_params *p,
                                         size_t m, size_t n, size_t k,
                                         int runs, double *seconds);

/* ---- the tuning database ---------------------------------------------- */

/* A database in memory (docs/tuning.md describes the file). */
typedef struct vncl_tuning_db vncl_tuning_db;

/* Reads path into a new database (*out; free with vncl_tuning_db_free). A
 * missing file gives an empty database. The file is read only when
 * trusted (docs/security.md). Errors: VNCL_ERR_INVALID_ARG (NULL
 * argument), VNCL_ERR_IO (unreadable, invalid, or not trusted: the message
 * says why and how to fix it), VNCL_ERR_OUT_OF_MEMORY. */
VNCL_API vncl_status vncl_tuning_db_load(const char *path,
                                         vncl_tuning_db **out);
/* A new empty database. Errors: VNCL_ERR_INVALID_ARG, _OUT_OF_MEMORY. */
VNCL_API vncl_status vncl_tuning_db_create(vncl_tuning_db **out);
/* Frees db; NULL does nothing. */
VNCL_API void vncl_tuning_db_free(vncl_tuning_db *db);
/* The number of entries (0 for NULL). */
VNCL_API int vncl_tuning_db_count(const vncl_tuning_db *db);
/* Copies every entry of from into into, replacing entries with the same
 * key (vendor, device, driver, library version, device type, kernel,
 * dtype, class). Errors: VNCL_ERR_INVALID_ARG, _OUT_OF_MEMORY (into is then
 * unchanged past the entries already copied). */
VNCL_API vncl_status vncl_tuning_db_merge(vncl_tuning_db *into,
                                          const vncl_tuning_db *from);
/* Adds (or replaces) the entry for ctx's device and (family, dtype, shape
 * class) holding p (every tunable p names, checked against the family's
 * names and ranges), with the measured rate (GFLOP/s for GEMM, GB/s for
 * ops; 0 when unknown). Family "clblast": CLBlast's Xgemm parameters (p
 * over its table defaults, checked against ctx's device) join the gemm
 * entry of (dtype, class) for ctx's device, which must be in db already
 * (put it first); they apply when that entry's backend is CLBlast; a rate
 * above 0 replaces the entry's. Errors: VNCL_ERR_INVALID_ARG (as
 * vncl_tuning_set, without the device check for the vncl families; no gemm
 * entry for "clblast"), _OUT_OF_MEMORY. */
VNCL_API vncl_status vncl_tuning_db_put(vncl_tuning_db *db, vncl_context *ctx,
                                        const char *family, vncl_dtype dtype,
                                        const char *shape_class,
                                        const vncl_tuning_params *p,
                                        double rate);
/* Writes db to path atomically (a 0600 file renamed over the name; the
 * folder made 0700 and refused when others could write it). Errors:
 * VNCL_ERR_INVALID_ARG, VNCL_ERR_IO (with the reason). */
VNCL_API vncl_status vncl_tuning_db_save(const vncl_tuning_db *db,
                                         const char *path);

/* ---- a journal of measurements --------------------------------------- */

/* An append-only file of text lines kept next to a tuning database (the
 * autotuner's OUT.partial: one answer a line, so that an interrupted run
 * resumes), under the database's trust rules (docs/security.md). */
typedef struct vncl_tuning_journal vncl_tuning_journal;

/* Opens path for appending (*out; close with vncl_tuning_journal_close).
 * Its folder is made (0700) when missing and used only when trusted. The
 * lines already in the file are read first when the file is trusted; one
 * that is not trusted is not read (vncl_tuning_journal_note says why) but
 * replaced by a new empty file. The file is 0600 and never reached through
 * a symbolic link. Errors: VNCL_ERR_INVALID_ARG (NULL argument, a path
 * that names no file), VNCL_ERR_IO (the folder not trusted or not usable,
 * the file not writable: the message says why and how to fix it),
 * VNCL_ERR_OUT_OF_MEMORY. */
VNCL_API vncl_status vncl_tuning_journal_open(const char *path,
                                              vncl_tuning_journal **out);
/* The lines read when it was opened (0 for NULL), and line i without its
 * newline (NULL out of range); valid until the journal is closed. */
VNCL_API int vncl_tuning_journal_count(const vncl_tuning_journal *j);
VNCL_API const char *vncl_tuning_journal_line(const vncl_tuning_journal *j,
                                              int i);
/* "" or why the file found at open was not read; never NULL. */
VNCL_API const char *vncl_tuning_journal_note(const vncl_tuning_journal *j);
/* Appends one line (which must hold no newline) and flushes it. Errors:
 * VNCL_ERR_INVALID_ARG (NULL argument, a newline in line), VNCL_ERR_IO. */
VNCL_API vncl_status vncl_tuning_journal_append(vncl_tuning_journal *j,
                                                const char *line);
/* Closes j, removing its file when remove is non-zero; NULL does nothing. */
VNCL_API void vncl_tuning_journal_close(vncl_tuning_journal *j, int remove);

#ifdef __cplusplus
}
#endif

#endif
