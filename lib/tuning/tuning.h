/*
 * The tuning layer: the parameter store and the tuning database. It knows
 * no kernel family: each family (GEMM in gemm_params.c, the tensor
 * operations in ops_common.c) describes its tunables as one table
 * (vncl__param_family) and asks the store for the set in force on a
 * context; the store reads the database on the first lookup.
 *
 * Database: a JSON file {"schema": "vncl-tuning", "version": 1,
 * "entries": [...]}; each entry is keyed by vendor, device, driver,
 * library version, device type, kernel ("gemm" or an ops family), dtype
 * ("f32", "f64"; "any" for ops) and class ("square", "narrow", "flat" for
 * GEMM; "default" for ops), and holds the parameters by macro name, the
 * backend, the measured rate and the date. docs/tuning.md describes it.
 */
#ifndef VNCL_TUNING_INTERNAL_H
#define VNCL_TUNING_INTERNAL_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "runtime/runtime.h"

#define VNCL__TUNING_SCHEMA "vncl-tuning"
#define VNCL__TUNING_VERSION 1

typedef struct vncl__tune_entry {
  char vendor[128], device[128], driver[64], library[32], type[16];
  char kernel[24], dtype[8], shape[16];
  char backend[12]; /* "own" or "clblast" (GEMM); "" for ops */
  double gflops;    /* measured rate (GB/s for ops), 0 when unknown */
  char date[32];
  cJSON *params; /* object: macro name -> number; owned */
} vncl__tune_entry;

typedef struct vncl__tuning_db {
  int n, cap;
  vncl__tune_entry *e;
} vncl__tuning_db;

/* Where a lookup found its entry, most specific first. */
typedef enum vncl__tune_level {
  VNCL__TUNE_EXACT = 1,     /* device and driver */
  VNCL__TUNE_DEVICE,        /* the device under another driver */
  VNCL__TUNE_VENDOR_TYPE,   /* vendor and device type */
  VNCL__TUNE_TYPE,          /* device type */
  VNCL__TUNE_BUILTIN_TABLE  /* nothing found: the C tables */
} vncl__tune_level;
const char *vncl__tune_level_name(vncl__tune_level l);

/* Parses a database from memory. Returns true with every entry in db, or
 * false with the reason (corrupt JSON, foreign schema, other version, bad
 * entry) in why; db is then empty. Never reads past len. */
bool vncl__tuning_db_parse(const char *text, size_t len, vncl__tuning_db *db,
                           char *why, size_t cap);
/* Reads and parses path when it is trusted (trust.c: the file and the
 * folders above it owned by the user or root and writable by no one else;
 * a symbolic link as the file itself is not followed). Returns 1 (read),
 * 0 (no such file, or path ""; why ""), -1 (unreadable or invalid: why)
 * or -2 (not trusted, not read: why, and the remedy in fix when given). */
int vncl__tuning_db_read(const char *path, vncl__tuning_db *db, char *why,
                         size_t cap, char *fix, size_t fix_cap);
/* vncl__tuning_db_read() == 1: false with why "" when there is no file. */
bool vncl__tuning_db_load(const char *path, vncl__tuning_db *db, char *why,
                          size_t cap);
/* Writes db atomically (a 0600 temporary file renamed over the name),
 * making the folder (0700); refuses a folder that is not trusted. */
bool vncl__tuning_db_save(const char *path, const vncl__tuning_db *db,
                          char *why, size_t cap);
void vncl__tuning_db_free(vncl__tuning_db *db);
/* Adds e (taking its params) or replaces the entry with the same key. */
bool vncl__tuning_db_put(vncl__tuning_db *db, vncl__tune_entry *e);
/* The database path a context uses (its resolved tuning_db setting). */
void vncl__tuning_path(const vncl_context *ctx, char *out, size_t cap);

/* Fills the key fields of e for ctx's device and this library. */
void vncl__tune_entry_key(vncl__tune_entry *e, const vncl_device_info *info,
                          const char *kernel, const char *dtype,
                          const char *shape);

/* The most specific entry of db for (device, kernel, dtype, shape), with
 * its level, or NULL. */
const vncl__tune_entry *vncl__tuning_find(const vncl__tuning_db *db,
                                          const vncl_device_info *info,
                                          const char *kernel,
                                          const char *dtype,
                                          const char *shape,
                                          vncl__tune_level *level);

/* ---- the parameter store (store.c) ------------------------------------- */

/* One tunable of a family's table: the macro name (also its JSON name in
 * the database), what it means, which kernel of the family reads it (the
 * family's -D option string for kernel g lists the tunables of group g;
 * VNCL__PARAM_HOST: read by the host only), its C type and place in the
 * family's struct, its default (the row every device starts from), its
 * range, and the autotuner's candidates (full and quick search spaces). */
#define VNCL__PARAM_HOST (-1)
typedef struct vncl__tunable {
  const char *name;
  const char *meaning;
  int group;
  bool dbl; /* double, else int */
  size_t off;
  double def, min, max;
  const double *full, *quick;
  int nfull, nquick;
} vncl__tunable;

/* A built-in device row: the rule (runtime.h) and the values that differ
 * from the table's defaults, "NAME=value ..." by macro name; `measured`
 * names the host and date where the values were measured, or NULL. */
typedef struct vncl__param_row {
  vncl__device_rule rule;
  const char *set;
  const char *measured;
} vncl__param_row;

typedef struct vncl__tune_entry vncl__tune_entry;

/* A kernel family's description: its table, its classes (accumulation x
 * shape; the names are the database's dtype and class keys), its built-in
 * rows and the checks only the family knows. */
typedef struct vncl__param_family {
  const char *kernel; /* database key: "gemm", "elementwise", ... */
  const char *table;  /* where the table and rows live, for --show */
  size_t size;        /* bytes of a set */
  const vncl__tunable *t;
  int n;
  int nacc, nshape;
  const char *const *acc_names, *const *shape_names;
  const vncl__param_row *rows;
  int nrows;
  /* Whether a set fits the device: false with the reason in why. */
  bool (*valid)(const struct vncl__param_family *f,
                const vncl_device_info *info, int acc, const void *set,
                char *why, size_t cap);
  /* Applies what a database entry holds besides the tunables (GEMM: the
   * backend and CLBlast's parameters); NULL when there is nothing. */
  bool (*from_entry)(vncl_context *ctx, int acc, const vncl__tune_entry *e,
                     void *set, char *why, size_t cap);
} vncl__param_family;

/* Where the set in force came from, most binding first. */
typedef enum vncl__param_source {
  VNCL__SRC_USER = 1, /* installed by vncl__params_set (tuner, tests) */
  VNCL__SRC_DATABASE, /* an entry of the context's tuning database */
  VNCL__SRC_BUILTIN,  /* a built-in device row */
  VNCL__SRC_TABLE     /* the table's defaults (no row fits) */
} vncl__param_source;
const char *vncl__param_source_name(vncl__param_source s);

/* Reads the context's database if no lookup has yet (fills tuning_state,
 * tuning_entries, tuning_why and tuning_fix; a bad file only warns).
 * Thread-safe; never fails. */
void vncl__tuning_load(vncl_context *ctx);
/* The database the store read for ctx (loading it first), NULL when it
 * read none; valid for the context's life. */
const vncl__tuning_db *vncl__tuning_db_of(vncl_context *ctx);

/* The set in force on ctx for (acc, shape) of family f, into out
 * (f->size bytes): a user set, else the database's entry over the best
 * built-in row, else the best built-in row that fits the device (the
 * device-rule matcher's ranking), else the table's defaults. Resolved once
 * per context and class, then answered from the store. src and row (the
 * row or database entry index, -1 for none) may be NULL. Thread-safe. */
void vncl__params_get(vncl_context *ctx, const vncl__param_family *f, int acc,
                      int shape, void *out, vncl__param_source *src,
                      int *row);
/* Installs a set for (acc, shape) on ctx only, after f->valid; NULL
 * withdraws it (the database or built-in set applies again). Errors:
 * VNCL_ERR_INVALID_ARG naming the rule the set breaks. Thread-safe. */
vncl_status vncl__params_set(vncl_context *ctx, const vncl__param_family *f,
                             int acc, int shape, const void *set);
/* The table's defaults. */
void vncl__params_defaults(const vncl__param_family *f, void *out);
/* The best built-in row for a device described by (info, vec) and class,
 * without checking it against the device's limits (for checks that run one
 * vendor's set on another device); false when no row matches. */
bool vncl__params_builtin(const vncl__param_family *f,
                          const vncl_device_info *info, int vec, int acc,
                          int shape, void *out);
/* Row i's set (the defaults with its values), false past the last. */
bool vncl__params_row(const vncl__param_family *f, int i, void *out,
                      char *why, size_t cap);
/* The native float vector width of ctx's device (0 when unknown). */
int vncl__params_vec(vncl_context *ctx);

/* By name: one value (false for an unknown name, or a value outside the
 * tunable's range), a "NAME=value ..." list, a JSON object of numbers
 * (members the family does not know are errors, except "clblast"), and the
 * set as a JSON object. */
const vncl__tunable *vncl__params_find(const vncl__param_family *f,
                                       const char *name);
bool vncl__params_set_named(const vncl__param_family *f, void *set,
                            const char *name, double v);
double vncl__params_value(const vncl__tunable *t, const void *set);
bool vncl__params_apply_string(const vncl__param_family *f, void *set,
                               const char *list, char *why, size_t cap);
bool vncl__params_from_json(const vncl__param_family *f, const cJSON *obj,
                            void *set, char *why, size_t cap);
cJSON *vncl__params_to_json(const vncl__param_family *f, const void *set);
/* Every tunable of `group` as " -DNAME=value", appended to out. */
void vncl__params_options(const vncl__param_family *f, int group,
                          const void *set, char *out, size_t cap);
/* Whether each tunable's value lies in its range; false naming the first
 * that does not. */
bool vncl__params_in_range(const vncl__param_family *f, const void *set,
                           char *why, size_t cap);

#endif
