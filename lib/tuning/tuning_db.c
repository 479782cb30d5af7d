/*
 * The tuning database: schema, load, save, lookup with fallbacks (exact
 * device and driver -> the device under another driver -> vendor and type
 * -> type -> the built-in defaults of tuning/defaults.json -> the C tables
 * of gemm_params.c and ops_common.c), and installing what a lookup finds
 * when a context is created. A bad file is a warning, never an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <clblast_c.h>

#include "ops/ops.h"
#include "tuning/tuning.h"

/* tuning/defaults.json, embedded by the Makefile (build/tuning_defaults_gen.c). */
extern const char vncl__tuning_defaults_json[];
extern const size_t vncl__tuning_defaults_len;

const char *vncl__tune_level_name(vncl__tune_level l) {
  switch (l) {
    case VNCL__TUNE_EXACT: return "exact device and driver";
    case VNCL__TUNE_DEVICE: return "same device, other driver";
    case VNCL__TUNE_VENDOR_TYPE: return "same vendor and device type";
    case VNCL__TUNE_TYPE: return "same device type";
    default: return "built-in table";
  }
}

static const char *type_name(vncl_device_type t) {
  switch (t) {
    case VNCL_DEVICE_GPU: return "gpu";
    case VNCL_DEVICE_ACCELERATOR: return "accelerator";
    case VNCL_DEVICE_CPU: return "cpu";
    default: return "other";
  }
}

/* ---- GEMM parameters by name ------------------------------------------- */

#define F(field) offsetof(vncl__gemm_params, field)
static const struct {
  const char *name;
  size_t off;
  bool dbl;
} gemm_fields[] = {
    {"backend", F(backend), 0},      {"fast", F(fast), 0},
    {"switch_mnk", F(switch_mnk), 1}, {"switch_mnk_bt", F(switch_mnk_bt), 1},
    {"pack_elem", F(pack_elem), 0},  {"pack_wg0", F(pack_wg0), 0},
    {"pack_wg1", F(pack_wg1), 0},
    {"WGD_M", F(direct.wgd_m), 0},   {"WGD_N", F(direct.wgd_n), 0},
    {"LDM", F(direct.ldm), 0},       {"LDN", F(direct.ldn), 0},
    {"KWGD", F(direct.kwgd), 0},     {"VWD", F(direct.vwd), 0},
    {"DIRECT_LOCAL", F(direct.local), 0},
    {"MR", F(cpu.mr), 0},            {"NR", F(cpu.nr), 0},
    {"VW", F(cpu.vw), 0},            {"MB", F(cpu.mb), 0},
    {"NB", F(cpu.nb), 0},            {"KC", F(cpu.kc), 0},
    {"KU", F(cpu.ku), 0},            {"ORDER", F(cpu.order), 0},
    {"A_PACKED", F(cpu.a_packed), 0},
    {"MWG", F(local.mwg), 0},        {"NWG", F(local.nwg), 0},
    {"KWG", F(local.kwg), 0},        {"MDIMC", F(local.mdimc), 0},
    {"NDIMC", F(local.ndimc), 0},    {"VWM", F(local.vwm), 0},
    {"VWN", F(local.vwn), 0},        {"KWI", F(local.kwi), 0},
    {"SA", F(local.sa), 0},          {"SB", F(local.sb), 0},
};
#undef F
#define NFIELDS (sizeof gemm_fields / sizeof *gemm_fields)

bool vncl__gemm_param_set_named(vncl__gemm_params *p, const char *name,
                                double v) {
  for (size_t i = 0; i < NFIELDS; i++)
    if (!strcmp(gemm_fields[i].name, name)) {
      char *b = (char *)p + gemm_fields[i].off;
      if (!(v >= -1e9 && v <= 1e18) || (!gemm_fields[i].dbl && v > 1e9))
        return false; /* out of range (and NaN) */
      if (gemm_fields[i].dbl)
        *(double *)(void *)b = v;
      else
        *(int *)(void *)b = (int)v;
      return true;
    }
  return false;
}

bool vncl__gemm_params_from_json(const cJSON *obj, vncl__gemm_params *p,
                                 char *why, size_t cap) {
  if (!cJSON_IsObject(obj)) {
    snprintf(why, cap, "parameters are not an object");
    return false;
  }
  for (const cJSON *it = obj->child; it; it = it->next) {
    if (!strcmp(it->string, "clblast")) continue; /* CLBlast's own */
    if (!cJSON_IsNumber(it) || it->valuedouble < -1e18 ||
        it->valuedouble > 1e18) {
      snprintf(why, cap, "parameter '%s' is not a number", it->string);
      return false;
    }
    if (!vncl__gemm_param_set_named(p, it->string, it->valuedouble)) {
      snprintf(why, cap, "unknown GEMM parameter '%s' or value out of range",
               it->string);
      return false;
    }
  }
  return true;
}

cJSON *vncl__gemm_params_to_json(const vncl__gemm_params *p) {
  cJSON *o = cJSON_CreateObject();
  for (size_t i = 0; o && i < NFIELDS; i++) {
    const char *b = (const char *)p + gemm_fields[i].off;
    double v = gemm_fields[i].dbl ? *(const double *)(const void *)b
                                  : *(const int *)(const void *)b;
    cJSON_AddNumberToObject(o, gemm_fields[i].name, v);
  }
  return o;
}

/* CLBlast's Xgemm parameter names (CLBlast 1.5: all must be given). */
static const char *const xgemm_names[] = {
    "GEMMK", "KREG", "KWG",  "KWI",  "MDIMA", "MDIMC", "MWG", "NDIMB",
    "NDIMC", "NWG",  "SA",   "SB",   "STRM",  "STRN",  "VWM", "VWN"};

bool vncl__clblast_override(cl_device_id dev, bool f64, const cJSON *obj,
                            char *why, size_t cap) {
  size_t n = sizeof xgemm_names / sizeof *xgemm_names;
  size_t vals[16];
  for (size_t i = 0; i < n; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, xgemm_names[i]);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 4096) {
      snprintf(why, cap, "CLBlast parameter %s missing or out of range",
               xgemm_names[i]);
      return false;
    }
    vals[i] = (size_t)v->valuedouble;
  }
  CLBlastStatusCode st = CLBlastOverrideParameters(
      dev, "Xgemm", f64 ? CLBlastPrecisionDouble : CLBlastPrecisionSingle, n,
      (const char **)xgemm_names, vals);
  if (st != CLBlastSuccess) {
    snprintf(why, cap, "CLBlastOverrideParameters: status %d", (int)st);
    return false;
  }
  CLBlastClearCache(); /* programs built with the old parameters */
  return true;
}

/* ---- entries and files ------------------------------------------------- */

static void copy_str(char *dst, size_t cap, const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  dst[0] = '\0';
  if (cJSON_IsString(v) && v->valuestring)
    vncl__strlcpy(dst, v->valuestring, cap);
}

void vncl__tuning_db_free(vncl__tuning_db *db) {
  if (!db) return;
  for (int i = 0; i < db->n; i++) cJSON_Delete(db->e[i].params);
  free(db->e);
  memset(db, 0, sizeof *db);
}

static bool same_key(const vncl__tune_entry *a, const vncl__tune_entry *b) {
  return !strcmp(a->vendor, b->vendor) && !strcmp(a->device, b->device) &&
         !strcmp(a->driver, b->driver) && !strcmp(a->library, b->library) &&
         !strcmp(a->type, b->type) &&
         !strcmp(a->kernel, b->kernel) && !strcmp(a->dtype, b->dtype) &&
         !strcmp(a->shape, b->shape);
}

bool vncl__tuning_db_put(vncl__tuning_db *db, vncl__tune_entry *e) {
  for (int i = 0; i < db->n; i++)
    if (same_key(&db->e[i], e)) {
      cJSON_Delete(db->e[i].params);
      db->e[i] = *e;
      e->params = NULL;
      return true;
    }
  if (db->n == db->cap) {
    int nc = db->cap ? db->cap * 2 : 16;
    vncl__tune_entry *ne = realloc(db->e, (size_t)nc * sizeof *ne);
    if (!ne) return false;
    db->e = ne;
    db->cap = nc;
  }
  db->e[db->n++] = *e;
  e->params = NULL;
  return true;
}

bool vncl__tuning_db_parse(const char *text, size_t len, vncl__tuning_db *db,
                           char *why, size_t cap) {
  memset(db, 0, sizeof *db);
  cJSON *root = cJSON_ParseWithLength(text, len);
  if (!root) {
    snprintf(why, cap, "not valid JSON");
    return false;
  }
  bool ok = false;
  const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
  const cJSON *ents = cJSON_GetObjectItemCaseSensitive(root, "entries");
  if (!cJSON_IsObject(root) || !cJSON_IsString(schema) ||
      strcmp(schema->valuestring, VNCL__TUNING_SCHEMA)) {
    snprintf(why, cap, "not a vncl tuning database (schema is not '%s')",
             VNCL__TUNING_SCHEMA);
    goto out;
  }
  if (!cJSON_IsNumber(ver) || ver->valuedouble != VNCL__TUNING_VERSION) {
    snprintf(why, cap, "schema version %g, this library reads version %d",
             cJSON_IsNumber(ver) ? ver->valuedouble : -1.0,
             VNCL__TUNING_VERSION);
    goto out;
  }
  if (!cJSON_IsArray(ents)) {
    snprintf(why, cap, "'entries' is not an array");
    goto out;
  }
  int idx = 0;
  for (const cJSON *it = ents->child; it; it = it->next, idx++) {
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(it, "params");
    const cJSON *rate = cJSON_GetObjectItemCaseSensitive(it, "gflops");
    vncl__tune_entry e;
    memset(&e, 0, sizeof e);
    if (!cJSON_IsObject(it) || !cJSON_IsObject(params)) {
      snprintf(why, cap, "entry %d: not an object with 'params'", idx);
      goto out;
    }
    copy_str(e.vendor, sizeof e.vendor, it, "vendor");
    copy_str(e.device, sizeof e.device, it, "device");
    copy_str(e.driver, sizeof e.driver, it, "driver");
    copy_str(e.library, sizeof e.library, it, "library");
    copy_str(e.type, sizeof e.type, it, "device_type");
    copy_str(e.kernel, sizeof e.kernel, it, "kernel");
    copy_str(e.dtype, sizeof e.dtype, it, "dtype");
    copy_str(e.shape, sizeof e.shape, it, "class");
    copy_str(e.backend, sizeof e.backend, it, "backend");
    copy_str(e.date, sizeof e.date, it, "date");
    if (!e.kernel[0] || !e.type[0]) {
      snprintf(why, cap, "entry %d: no kernel or device_type", idx);
      goto out;
    }
    e.gflops = cJSON_IsNumber(rate) ? rate->valuedouble : 0;
    e.params = cJSON_Duplicate(params, 1);
    if (!e.params || !vncl__tuning_db_put(db, &e)) {
      cJSON_Delete(e.params);
      snprintf(why, cap, "out of memory");
      goto out;
    }
  }
  ok = true;
out:
  cJSON_Delete(root);
  if (!ok) vncl__tuning_db_free(db);
  return ok;
}

int vncl__tuning_db_read(const char *path, vncl__tuning_db *db, char *why,
                         size_t cap, char *fix, size_t fix_cap) {
  memset(db, 0, sizeof *db);
  why[0] = '\0';
  if (fix && fix_cap) fix[0] = '\0';
  if (!path || !*path) return 0;
  /* Its parameters become build options and work-group shapes: a file
   * another account could have written is not read (trust.c). */
  vncl__trust t;
  int fd = vncl__trust_open_file(path, &t, NULL, NULL, 0);
  if (fd < 0) {
    int e = errno;
    if (t.state == VNCL__TRUST_BROKEN) {
      vncl__strlcpy(why, t.why, cap);
      if (fix && fix_cap) vncl__strlcpy(fix, t.fix, fix_cap);
      return -2;
    }
    if (t.state == VNCL__TRUST_OK && e == ENOENT) return 0;
    if (t.why[0])
      vncl__strlcpy(why, t.why, cap);
    else
      snprintf(why, cap, "cannot read: %s", strerror(e));
    return -1;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    snprintf(why, cap, "cannot read: %s", strerror(errno));
    close(fd);
    return -1;
  }
  size_t n = 0, sz = 0;
  char *buf = NULL;
  for (;;) {
    if (n == sz) {
      if (sz >= ((size_t)64 << 20)) {
        snprintf(why, cap, "larger than 64 MiB");
        free(buf);
        fclose(f);
        return -1;
      }
      sz = sz ? sz * 2 : 65536;
      char *nb = realloc(buf, sz);
      if (!nb) {
        free(buf);
        fclose(f);
        snprintf(why, cap, "out of memory");
        return -1;
      }
      buf = nb;
    }
    size_t r = fread(buf + n, 1, sz - n, f);
    n += r;
    if (r == 0) break;
  }
  bool err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    snprintf(why, cap, "cannot read: %s", strerror(EIO));
    return -1;
  }
  bool ok = vncl__tuning_db_parse(buf, n, db, why, cap);
  free(buf);
  return ok ? 1 : -1;
}

bool vncl__tuning_db_load(const char *path, vncl__tuning_db *db, char *why,
                          size_t cap) {
  return vncl__tuning_db_read(path, db, why, cap, NULL, 0) == 1;
}

static cJSON *entry_json(const vncl__tune_entry *e) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "vendor", e->vendor);
  cJSON_AddStringToObject(o, "device", e->device);
  cJSON_AddStringToObject(o, "driver", e->driver);
  cJSON_AddStringToObject(o, "library", e->library);
  cJSON_AddStringToObject(o, "device_type", e->type);
  cJSON_AddStringToObject(o, "kernel", e->kernel);
  cJSON_AddStringToObject(o, "dtype", e->dtype);
  cJSON_AddStringToObject(o, "class", e->shape);
  if (e->backend[0]) cJSON_AddStringToObject(o, "backend", e->backend);
  cJSON_AddNumberToObject(o, "gflops", e->gflops);
  cJSON_AddStringToObject(o, "date", e->date);
  cJSON_AddItemToObject(o, "params", e->params ? cJSON_Duplicate(e->params, 1)
                                               : cJSON_CreateObject());
  return o;
}

bool vncl__tuning_db_save(const char *path, const vncl__tuning_db *db,
                          char *why, size_t cap) {
  cJSON *root = cJSON_CreateObject();
  cJSON *arr = cJSON_CreateArray();
  if (!root || !arr) {
    cJSON_Delete(root);
    cJSON_Delete(arr);
    snprintf(why, cap, "out of memory");
    return false;
  }
  cJSON_AddStringToObject(root, "schema", VNCL__TUNING_SCHEMA);
  cJSON_AddNumberToObject(root, "version", VNCL__TUNING_VERSION);
  cJSON_AddItemToObject(root, "entries", arr);
  for (int i = 0; i < db->n; i++) cJSON_AddItemToArray(arr, entry_json(&db->e[i]));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) {
    snprintf(why, cap, "out of memory");
    return false;
  }
  /* Written only into a trusted folder (one vncl would read back from),
   * 0600 through a temporary file of the same folder renamed over the
   * name: a link under the name is replaced, never written through. */
  char dir[1024], canon[1024], tmp[1200];
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (!*name || strlen(path) >= sizeof dir) {
    snprintf(why, cap, "cannot write '%s': not a file name", path);
    free(text);
    return false;
  }
  if (!slash)
    vncl__strlcpy(dir, ".", sizeof dir);
  else if (slash == path)
    vncl__strlcpy(dir, "/", sizeof dir);
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  vncl__trust t;
  int dfd = -1;
  if (vncl__trust_make_dirs(dir, &t))
    dfd = vncl__trust_open_dir(dir, true, canon, sizeof canon, &t);
  if (dfd < 0) {
    if (t.state == VNCL__TRUST_BROKEN)
      snprintf(why, cap, "cannot write %s: its folder is not trusted: %s%s%s%s",
               path, t.why, t.fix[0] ? " (fix: " : "", t.fix,
               t.fix[0] ? ")" : "");
    else
      snprintf(why, cap, "cannot write %s: %s", path, t.why);
    free(text);
    return false;
  }
  int w = snprintf(tmp, sizeof tmp, "%s/%s.tmp.XXXXXX", canon, name);
  int fd = w > 0 && (size_t)w < sizeof tmp ? mkstemp(tmp) : -1;
  const char *tmpname = strrchr(tmp, '/') + 1;
  FILE *f = NULL;
  if (fd >= 0) {
    f = fchmod(fd, 0600) == 0 ? fdopen(fd, "wb") : NULL;
    if (!f) close(fd);
  }
  bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  if (f && fclose(f)) ok = false;
  free(text);
  if (!ok || renameat(dfd, tmpname, dfd, name)) {
    snprintf(why, cap, "cannot write %s: %s", path, strerror(errno));
    if (fd >= 0) unlinkat(dfd, tmpname, 0);
    close(dfd);
    return false;
  }
  close(dfd);
  return true;
}

void vncl__tuning_default_path(char *out, size_t cap) {
  const char *x = vncl__getenv("XDG_DATA_HOME");
  const char *h = vncl__getenv("HOME");
  if (x)
    snprintf(out, cap, "%s/vncl/tuning.json", x);
  else if (h)
    snprintf(out, cap, "%s/.local/share/vncl/tuning.json", h);
  else
    vncl__strlcpy(out, "", cap); /* no home: the built-in defaults only */
}

void vncl__tuning_path(const vncl_context *ctx, char *out, size_t cap) {
  if (ctx->tuning_db[0])
    vncl__strlcpy(out, ctx->tuning_db, cap);
  else
    vncl__tuning_default_path(out, cap);
}

void vncl__tune_entry_key(vncl__tune_entry *e, const vncl_device_info *info,
                          const char *kernel, const char *dtype,
                          const char *shape) {
  vncl__strlcpy(e->vendor, info->vendor, sizeof e->vendor);
  vncl__strlcpy(e->device, info->name, sizeof e->device);
  vncl__strlcpy(e->driver, info->driver_version, sizeof e->driver);
  vncl__strlcpy(e->library, vncl_version_string(), sizeof e->library);
  vncl__strlcpy(e->type, type_name(info->type), sizeof e->type);
  vncl__strlcpy(e->kernel, kernel, sizeof e->kernel);
  vncl__strlcpy(e->dtype, dtype, sizeof e->dtype);
  vncl__strlcpy(e->shape, shape, sizeof e->shape);
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(e->date, sizeof e->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- lookup ------------------------------------------------------------- */

const vncl__tune_entry *vncl__tuning_find(const vncl__tuning_db *db,
                                          const vncl_device_info *info,
                                          const char *kernel,
                                          const char *dtype,
                                          const char *shape,
                                          vncl__tune_level *level) {
  const vncl__tune_entry *best = NULL;
  int best_rank = 0;
  const char *tn = type_name(info->type);
  for (int i = 0; db && i < db->n; i++) {
    const vncl__tune_entry *e = &db->e[i];
    if (strcmp(e->kernel, kernel) || strcmp(e->dtype, dtype) ||
        strcmp(e->shape, shape) || strcmp(e->type, tn))
      continue;
    /* An entry names a device, a vendor, or neither (a type-wide row). */
    int lvl;
    if (e->device[0]) {
      if (strcmp(e->device, info->name) || strcmp(e->vendor, info->vendor))
        continue;
      lvl = !strcmp(e->driver, info->driver_version) ? VNCL__TUNE_EXACT
                                                      : VNCL__TUNE_DEVICE;
    } else if (e->vendor[0]) {
      if (!vncl__contains_nocase(info->vendor, e->vendor)) continue;
      lvl = VNCL__TUNE_VENDOR_TYPE;
    } else {
      lvl = VNCL__TUNE_TYPE;
    }
    /* Lower level wins; among equals, this library version, then later. */
    int rank = (10 - lvl) * 4 +
               (!strcmp(e->library, vncl_version_string()) ? 2 : 0) + 1;
    if (rank >= best_rank) {
      best_rank = rank;
      best = e;
      if (level) *level = (vncl__tune_level)lvl;
    }
  }
  if (!best && level) *level = VNCL__TUNE_BUILTIN_TABLE;
  return best;
}

/* Entries for "the device under another driver" or "vendor and type"
 * are found by the same device-name / vendor rows; a database row made by
 * `vncl autotune` names its device, so levels 3 and 4 come from rows a
 * person (or tuning/defaults.json) writes with "device": "". */

static const vncl__tuning_db *builtin_db;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static void builtin_load(void) {
  static vncl__tuning_db db;
  char why[256];
  if (!vncl__tuning_db_parse(vncl__tuning_defaults_json,
                             vncl__tuning_defaults_len, &db, why, sizeof why))
    vncl__log(VNCL_LOG_WARN, "tuning/defaults.json (built in): %s", why);
  builtin_db = &db;
}

const vncl__tuning_db *vncl__tuning_builtin(void) {
  pthread_once(&builtin_once, builtin_load);
  return builtin_db;
}

/* ---- installing at context creation ------------------------------------ */

static const char *const gemm_shapes[VNCL__GEMM_SHAPES] = {"square", "narrow",
                                                           "flat"};
static const char *const gemm_dtypes[VNCL__GEMM_ACCS] = {"f32", "f64"};

/* Which (device, acc, shape) sets came from a database, so that a later
 * context with another database (or none) restores the defaults for them
 * and does not touch sets installed otherwise (tests). */
#define MARK_DEVICES 16
static struct {
  cl_device_id dev;
  bool from_db[VNCL__GEMM_ACCS][VNCL__GEMM_SHAPES];
} marks[MARK_DEVICES];
static pthread_mutex_t marks_lock = PTHREAD_MUTEX_INITIALIZER;

static bool *mark_of(cl_device_id dev, int acc, int shape) {
  for (int i = 0; i < MARK_DEVICES; i++)
    if (marks[i].dev == dev) return &marks[i].from_db[acc][shape];
  for (int i = 0; i < MARK_DEVICES; i++)
    if (!marks[i].dev) {
      marks[i].dev = dev;
      return &marks[i].from_db[acc][shape];
    }
  return NULL;
}

/* The entry for (kernel, dtype, shape): file first, then built-ins. */
static const vncl__tune_entry *resolve(const vncl__tuning_db *file,
                                       const vncl_device_info *info,
                                       const char *kernel, const char *dtype,
                                       const char *shape, bool *from_file,
                                       vncl__tune_level *lvl) {
  const vncl__tune_entry *e =
      vncl__tuning_find(file, info, kernel, dtype, shape, lvl);
  *from_file = e != NULL;
  if (!e)
    e = vncl__tuning_find(vncl__tuning_builtin(), info, kernel, dtype, shape,
                          lvl);
  return e;
}

/* Builds the GEMM set an entry describes, over the C defaults. */
static bool gemm_from_entry(vncl_context *ctx, int acc, int shape,
                            const vncl__tune_entry *e, vncl__gemm_params *p,
                            char *why, size_t cap) {
  vncl__gemm_params_set(ctx, (vncl__gemm_acc)acc, (vncl__gemm_shape)shape,
                        NULL);
  vncl__gemm_params_get(ctx, (vncl__gemm_acc)acc, (vncl__gemm_shape)shape, p);
  if (!vncl__gemm_params_from_json(e->params, p, why, cap)) return false;
  p->backend = !strcmp(e->backend, "clblast") ? VNCL__GEMM_CLBLAST
                                              : VNCL__GEMM_OWN;
  const cJSON *cb = cJSON_GetObjectItemCaseSensitive(e->params, "clblast");
  if (p->backend == VNCL__GEMM_CLBLAST && cJSON_IsObject(cb) &&
      !vncl__clblast_override(ctx->device, acc == VNCL__GEMM_ACC64, cb, why,
                              cap))
    return false;
  return true;
}

static bool ops_from_entry(const vncl__tune_entry *e, int f, int *v,
                           char *why, size_t cap) {
  const vncl__tune_space *sp = vncl__ops_space(f);
  memset(v, 0, sizeof(int) * VNCL__OPS_MAX_PARAMS);
  for (int i = 0; i < sp->nparams; i++) {
    const cJSON *x =
        cJSON_GetObjectItemCaseSensitive(e->params, sp->params[i].name);
    if (!cJSON_IsNumber(x)) {
      snprintf(why, cap, "%s: parameter %s missing", sp->family,
               sp->params[i].name);
      return false;
    }
    v[i] = x->valueint;
  }
  return true;
}

void vncl__tuning_apply(vncl_context *ctx) {
  char path[1024], why[512];
  vncl__tuning_path(ctx, path, sizeof path);
  vncl__tuning_db file;
  int state = vncl__tuning_db_read(path, &file, ctx->tuning_why,
                                   sizeof ctx->tuning_why, ctx->tuning_fix,
                                   sizeof ctx->tuning_fix);
  bool have = state == 1;
  ctx->tuning_state = state;
  ctx->tuning_entries = 0;
  if (state == -1)
    vncl__log(VNCL_LOG_WARN,
              "tuning database %s is invalid (%s): using the built-in "
              "defaults",
              path, ctx->tuning_why);
  else if (state == -2)
    vncl__log(VNCL_LOG_WARN,
              "tuning database %s is not trusted: %s; ignored, using the "
              "built-in defaults (fix: %s%sset VNCL_TUNING_DB to a file of "
              "your own)",
              path, ctx->tuning_why, ctx->tuning_fix,
              ctx->tuning_fix[0] ? ", or " : "");
  for (int i = 0; have && i < file.n; i++)
    if (!strcmp(file.e[i].device, ctx->info.name) &&
        !strcmp(file.e[i].vendor, ctx->info.vendor))
      ctx->tuning_entries++;

  for (int acc = 0; acc < VNCL__GEMM_ACCS; acc++)
    for (int sh = 0; sh < VNCL__GEMM_SHAPES; sh++) {
      bool from_file;
      vncl__tune_level lvl;
      const vncl__tune_entry *e =
          resolve(have ? &file : NULL, &ctx->info, "gemm", gemm_dtypes[acc],
                  gemm_shapes[sh], &from_file, &lvl);
      pthread_mutex_lock(&marks_lock);
      bool *mk = mark_of(ctx->device, acc, sh);
      if (!e) {
        if (mk && *mk) {
          vncl__gemm_params_set(ctx, (vncl__gemm_acc)acc,
                                (vncl__gemm_shape)sh, NULL);
          *mk = false;
        }
        pthread_mutex_unlock(&marks_lock);
        continue;
      }
      vncl__gemm_params p;
      why[0] = '\0';
      bool ok = gemm_from_entry(ctx, acc, sh, e, &p, why, sizeof why) &&
                vncl__gemm_params_set(ctx, (vncl__gemm_acc)acc,
                                      (vncl__gemm_shape)sh, &p) == VNCL_OK;
      if (!ok && !why[0]) vncl__strlcpy(why, vncl_errmsg(ctx), sizeof why);
      if (!ok) {
        vncl__gemm_params_set(ctx, (vncl__gemm_acc)acc, (vncl__gemm_shape)sh,
                              NULL);
        vncl__clear_error(ctx);
        vncl__log(VNCL_LOG_WARN,
                  "tuning database %s: gemm %s %s entry not used (%s)",
                  from_file ? path : "(built in)", gemm_dtypes[acc],
                  gemm_shapes[sh], why);
      }
      if (mk) *mk = ok;
      pthread_mutex_unlock(&marks_lock);
    }

  for (int f = 0; f < VNCL__OPS_FAMILIES; f++) {
    const vncl__tune_space *sp = vncl__ops_space(f);
    bool from_file;
    vncl__tune_level lvl;
    const vncl__tune_entry *e = resolve(have ? &file : NULL, &ctx->info,
                                        sp->family, "any", "default",
                                        &from_file, &lvl);
    if (!e) continue;
    int v[VNCL__OPS_MAX_PARAMS];
    why[0] = '\0';
    if (!ops_from_entry(e, f, v, why, sizeof why) ||
        vncl__ops_params_set(ctx, (vncl__ops_family)f, v) != VNCL_OK) {
      vncl__log(VNCL_LOG_WARN, "tuning database %s: %s entry not used (%s)",
                from_file ? path : "(built in)", sp->family,
                why[0] ? why : vncl_errmsg(ctx));
      vncl__ops_params_set(ctx, (vncl__ops_family)f, NULL);
      vncl__clear_error(ctx);
    }
  }
  if (have) vncl__tuning_db_free(&file);
}

/* ---- what the library uses, and from where ------------------------------ */

static void print_source(FILE *f, bool from_file, const char *path,
                         const vncl__tuning_db *db, const vncl__tune_entry *e,
                         vncl__tune_level lvl, const char *table) {
  if (!e) {
    fprintf(f, "    from: built-in table (%s)\n", table);
    return;
  }
  fprintf(f, "    from: %s entry %d (%s)\n",
          from_file ? path : "built-in defaults (tuning/defaults.json)",
          (int)(e - db->e), vncl__tune_level_name(lvl));
  if (e->gflops > 0)
    fprintf(f, "    measured: %.1f %s on %s\n", e->gflops,
            strcmp(e->kernel, "gemm") ? "GB/s" : "GFLOP/s", e->date);
}

void vncl__tuning_show(vncl_context *ctx, FILE *f) {
  char path[1024], why[512];
  vncl__tuning_path(ctx, path, sizeof path);
  vncl__tuning_db file;
  int state = vncl__tuning_db_read(path, &file, why, sizeof why, NULL, 0);
  bool have = state == 1;
  fprintf(f, "device: %s (%s, driver %s)\n", ctx->info.name, ctx->info.vendor,
          ctx->info.driver_version);
  if (have)
    fprintf(f, "tuning database: %s (%d entries for this device)\n", path,
            ctx->tuning_entries);
  else if (state == -2)
    fprintf(f, "tuning database: %s not trusted, ignored: %s (built-in "
            "defaults)\n", path, why);
  else if (!path[0])
    fprintf(f, "tuning database: none (no home folder; built-in "
            "defaults)\n");
  else if (why[0])
    fprintf(f, "tuning database: %s invalid: %s (built-in defaults)\n", path,
            why);
  else
    fprintf(f, "tuning database: none at %s (built-in defaults)\n", path);
  int naccs = ctx->info.fp64 ? 2 : 1;
  for (int acc = 0; acc < naccs; acc++)
    for (int sh = 0; sh < VNCL__GEMM_SHAPES; sh++) {
      bool from_file;
      vncl__tune_level lvl;
      const vncl__tune_entry *e =
          resolve(have ? &file : NULL, &ctx->info, "gemm", gemm_dtypes[acc],
                  gemm_shapes[sh], &from_file, &lvl);
      vncl__gemm_params p;
      vncl__gemm_params_get(ctx, (vncl__gemm_acc)acc, (vncl__gemm_shape)sh,
                            &p);
      fprintf(f, "gemm %s%s %s: backend %s, %s kernel\n", gemm_dtypes[acc],
              acc == 0 ? " (also f16, bf16)" : "", gemm_shapes[sh],
              p.backend == VNCL__GEMM_CLBLAST ? "clblast" : "own",
              p.fast == VNCL__GEMM_PACKED_CPU ? "packed_cpu" : "packed_local");
      char opt[512];
      vncl__gemm_options(VNCL__GEMM_DIRECT, &p, VNCL_F32, VNCL_F32, opt,
                         sizeof opt);
      fprintf(f, "    direct: %s\n", opt + 25);
      vncl__gemm_options((vncl__gemm_kernel)p.fast, &p, VNCL_F32, VNCL_F32,
                         opt, sizeof opt);
      fprintf(f, "    fast:   %s\n", opt + 25);
      fprintf(f, "    switch_mnk %.0f, switch_mnk_bt %.0f\n", p.switch_mnk,
              p.switch_mnk_bt);
      print_source(f, from_file, path,
                   from_file ? &file : vncl__tuning_builtin(), e, lvl,
                   "lib/gemm_params.c");
    }
  for (int fam = 0; fam < VNCL__OPS_FAMILIES; fam++) {
    const vncl__tune_space *sp = vncl__ops_space(fam);
    bool from_file;
    vncl__tune_level lvl;
    const vncl__tune_entry *e = resolve(have ? &file : NULL, &ctx->info,
                                        sp->family, "any", "default",
                                        &from_file, &lvl);
    int v[VNCL__OPS_MAX_PARAMS];
    vncl__ops_params(ctx, (vncl__ops_family)fam, v);
    fprintf(f, "%s:", sp->family);
    for (int i = 0; i < sp->nparams; i++)
      fprintf(f, " %s=%d", sp->params[i].name, v[i]);
    fprintf(f, "\n");
    print_source(f, from_file, path,
                 from_file ? &file : vncl__tuning_builtin(), e, lvl,
                 "lib/ops_common.c");
  }
  if (have) vncl__tuning_db_free(&file);
}
