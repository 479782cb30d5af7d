/*
 * The tuning database and the autotuner (tuning_db.c, autotune*.c).
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

#include "gemm/gemm.h"

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
/* The built-in defaults (tuning/defaults.json, embedded); parsed once. */
const vncl__tuning_db *vncl__tuning_builtin(void);
/* $XDG_DATA_HOME/vncl/tuning.json or ~/.local/share/vncl/tuning.json;
 * "" when neither variable is set (or the process is set-user-ID). */
void vncl__tuning_default_path(char *out, size_t cap);
/* The database path a context uses: its tuning_db setting, else default. */
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

/* GEMM parameters by macro name ("MR", "WGD_M", "switch_mnk", ...):
 * overrides the fields of p that obj names; unknown names are errors. */
bool vncl__gemm_params_from_json(const cJSON *obj, vncl__gemm_params *p,
                                 char *why, size_t cap);
cJSON *vncl__gemm_params_to_json(const vncl__gemm_params *p);
/* Sets one field by name; false when the name is unknown. */
bool vncl__gemm_param_set_named(vncl__gemm_params *p, const char *name,
                                double v);

/* CLBlast Xgemm parameters (object of 16 names) installed for device with
 * CLBlastOverrideParameters; false with why on failure. */
bool vncl__clblast_override(cl_device_id dev, bool f64, const cJSON *obj,
                            char *why, size_t cap);

/* Loads ctx's database and installs what it finds (context.c calls it):
 * GEMM sets through vncl__gemm_params_set, ops values into
 * ctx->ops_params. Problems are logged and recorded on ctx for doctor;
 * never fails. */
void vncl__tuning_apply(vncl_context *ctx);

/* One line per (kernel, dtype, class): what the library will use on ctx
 * and where it came from. */
void vncl__tuning_show(vncl_context *ctx, FILE *f);

/* ---- the autotuner (autotune.c) ---------------------------------------- */

typedef struct vncl__autotune_opts {
  const char *device;  /* selector, NULL: default */
  const char *out;     /* database to write, NULL: default path */
  bool quick;
  double budget;       /* seconds, 0: by mode */
  const char *kernels; /* "gemm,ops" or a list of families, NULL: all */
  const char *dtypes;  /* "f32,f64", NULL: every supported */
  double timeout;      /* per candidate, seconds; 0: 120 */
  const char *const *worker_argv; /* NULL: /proc/self/exe autotune --worker */
  bool progress_tty;   /* draw a bar (stderr is a terminal) */
  int max_candidates;  /* per search, 0: no cap (tests) */
  int stop_after;      /* stop after this many fresh evaluations, as an
                        * interrupted run would (tests); 0: never */
  /* Filled in by the run: */
  int evaluated;       /* candidates measured in this run */
  int reused;          /* results taken from an interrupted run's file */
  int failed;          /* candidates rejected, crashed or hung */
} vncl__autotune_opts;

/* Runs a tuning session; returns 0 on success, 3 when stopped (stop_after
 * or SIGINT: the partial results stay in OUT.partial and the next run
 * resumes from them), else 1 with a message on stderr. */
int vncl__autotune_run(vncl__autotune_opts *o);

/* The worker side: reads requests (one JSON object a line) on stdin,
 * answers one line each on stdout. Returns the exit code. */
int vncl__autotune_worker_main(void);

/* Child-process isolation, exposed for the tests: a runner evaluates one
 * request in a worker with a timeout and returns the answer (a cJSON
 * object the caller frees: {"ok":true,"seconds":..} or {"ok":false,
 * "why":..}); a crash or a timeout answers ok false and starts a fresh
 * worker for the next request. */
typedef struct vncl__tune_runner vncl__tune_runner;
vncl__tune_runner *vncl__tune_runner_new(const char *const *argv,
                                         double timeout);
cJSON *vncl__tune_runner_eval(vncl__tune_runner *r, const cJSON *request);
void vncl__tune_runner_free(vncl__tune_runner *r);

#endif
