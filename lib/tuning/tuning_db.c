/*
 * The tuning database: schema, load, save, and lookup with fallbacks
 * (exact device and driver -> the device under another driver -> vendor
 * and type -> type). What a lookup finds is applied by the parameter store
 * (store.c) on a context's first lookup; below the database come the
 * families' built-in rows. A bad file is a warning, never an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tuning/tuning.h"

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

void vncl__tuning_path(const vncl_context *ctx, char *out, size_t cap) {
  vncl__strlcpy(out, ctx->tuning_db, cap);
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

