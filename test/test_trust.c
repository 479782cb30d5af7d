/* Trust on disk (docs/security.md): folders vncl makes are 0700 and files
 * 0600 under any umask; a binary cache folder that is group- or
 * world-writable, under a folder others may write, or owned by another
 * user is not used; a link or a loose file under a cache file's name is
 * never read; a tuning database that others could have written is ignored;
 * VNCL_* variables read as unset in a set-user-ID process. In each case:
 * the warning is logged (VNCL_LOG=warn, captured from stderr), GEMM is
 * still right against a CPU reference in double, and nothing was written
 * in the untrusted place.
 *
 * The tests that need a second user chown to `nobody` and so need root
 * (CI runs as root); elsewhere they are skipped, saying why. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
/* Internal headers on purpose: reads the binary cache's and the tuning
 * database's state on the context, and the cache's counters. */
#include "runtime/runtime.h"
#include "../tools/autotune/autotune.h"
#include "api/tuning_check.h" /* with gemm, ops and tuning */

static char self_path[1024];

/* ---- helpers ------------------------------------------------------------ */

/* snprintf for paths (a cut-short one fails the test where it is used). */
static void fmt(char *out, size_t cap, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
static void fmt(char *out, size_t cap, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  vsnprintf(out, cap, f, ap);
  va_end(ap);
}

/* Captures what the library writes to stderr between begin and end (the
 * argument only says what is being tried, for the reader of the code). */
static int cap_saved = -1;
static char cap_path[64];
static void cap_begin(const char *what) {
  (void)what;
  fmt(cap_path, sizeof cap_path, "/tmp/vncl-test-stderr-XXXXXX");
  fflush(stderr);
  cap_saved = dup(STDERR_FILENO);
  int fd = mkstemp(cap_path);
  assert_true(cap_saved >= 0 && fd >= 0);
  dup2(fd, STDERR_FILENO);
  close(fd);
}
static char *cap_end(void) {
  static char buf[1 << 16];
  fflush(stderr);
  dup2(cap_saved, STDERR_FILENO);
  close(cap_saved);
  FILE *f = fopen(cap_path, "r");
  assert_non_null(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  unlink(cap_path);
  fputs(buf, stderr); /* still visible in the test's log */
  return buf;
}
static void expect_in(const char *hay, const char *needle) {
  if (!strstr(hay, needle))
    fail_msg("expected '%s' in the log:\n%s", needle, hay);
}
static int count_in(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) n++;
  return n;
}

static int entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static unsigned mode_of(const char *path) {
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  return (unsigned)(st.st_mode & 07777);
}

static void mkdir_mode(const char *path, mode_t mode) {
  assert_int_equal(mkdir(path, 0700), 0);
  assert_int_equal(chmod(path, mode), 0); /* past the umask */
}

static bool nobody_ids(uid_t *u, gid_t *g) {
  struct passwd *pw = getpwnam("nobody");
  *u = pw ? pw->pw_uid : 65534;
  *g = pw ? pw->pw_gid : 65534;
  return *u != 0;
}

/* Skips unless root (`what` needs it), saying why. */
#define NEED_ROOT(what)                                                    \
  do {                                                                     \
    if (geteuid() != 0) {                                                  \
      fprintf(stderr, "skipped: needs root to %s (running as uid %u)\n",   \
              (what), (unsigned)geteuid());                                \
      skip();                                                              \
    }                                                                      \
  } while (0)

/* A GEMM of random f32 inputs into a NaN-poisoned output, every element
 * checked against the product in double (t_gemm_f32_check). */
static void gemm_check(vncl_context *ctx) {
  char why[512];
  if (!t_gemm_f32_check(ctx, 37, 29, 23, why, sizeof why)) fail_msg("%s", why);
}

static vncl_context *ctx_cache(const char *cache_dir) {
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = cache_dir;
  o.tuning_db = "/nonexistent/vncl-none.json";
  vncl_context *ctx = NULL;
  T_OK(NULL, vncl_context_create(&ctx, &o));
  return ctx;
}

/* A cache folder that must be refused: one warning naming it and `why`,
 * the cache off, a right product, nothing written into it. */
static void expect_cache_refused(const char *cache, const char *why) {
  int before = entries(cache);
  cap_begin(cache);
  vncl_context *ctx = ctx_cache(cache);
  gemm_check(ctx);
  char *log = cap_end();
  char want[700];
  fmt(want, sizeof want, "binary cache '%s' is not trusted", cache);
  expect_in(log, want);
  expect_in(log, why);
  assert_int_equal(count_in(log, "is not trusted"), 1);
  assert_string_equal(ctx->bincache.dir, "");
  assert_true(ctx->bincache.dirfd < 0);
  assert_non_null(strstr(ctx->bincache.untrusted.why, why));
  assert_int_equal(ctx->binary_hits, 0);
  assert_int_equal(ctx->binary_stores, 0);
  vncl_context_destroy(ctx);
  assert_int_equal(entries(cache), before);
}

/* A cache folder that must be used: no warning, programs stored. */
static void expect_cache_used(const char *cache) {
  cap_begin(cache);
  vncl_context *ctx = ctx_cache(cache);
  gemm_check(ctx);
  char *log = cap_end();
  assert_null(strstr(log, "not trusted"));
  assert_string_not_equal(ctx->bincache.dir, "");
  assert_true(ctx->binary_stores + ctx->binary_hits >= 1);
  vncl_context_destroy(ctx);
  assert_true(entries(cache) >= 1);
}

/* ---- modes of what vncl makes ------------------------------------------- */

static void test_created_modes(void **st) {
  (void)st;
  char dir[256], p[600];
  t_tmpdir(dir, sizeof dir);
  mode_t old = umask(0); /* the loosest: mkdir 0777 would give 0777 */
  char cache[400];
  fmt(cache, sizeof cache, "%s/a/b/cache", dir);
  vncl_context *ctx = ctx_cache(cache);
  gemm_check(ctx);
  assert_true(ctx->binary_stores >= 1);
  vncl_context_destroy(ctx);
  fmt(p, sizeof p, "%s/a", dir);
  assert_int_equal(mode_of(p), 0700);
  fmt(p, sizeof p, "%s/a/b", dir);
  assert_int_equal(mode_of(p), 0700);
  assert_int_equal(mode_of(cache), 0700);
  DIR *d = opendir(cache);
  assert_non_null(d);
  struct dirent *e;
  int files = 0;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    assert_null(strstr(e->d_name, ".tmp."));
    fmt(p, sizeof p, "%s/%s", cache, e->d_name);
    assert_int_equal(mode_of(p), 0600);
    files++;
  }
  closedir(d);
  assert_true(files >= 1);

  /* The tuning database and its folders. */
  char db[600], why[512];
  fmt(db, sizeof db, "%s/t/u/tuning.json", dir);
  vncl__tuning_db empty;
  memset(&empty, 0, sizeof empty);
  assert_true(vncl__tuning_db_save(db, &empty, why, sizeof why));
  fmt(p, sizeof p, "%s/t", dir);
  assert_int_equal(mode_of(p), 0700);
  fmt(p, sizeof p, "%s/t/u", dir);
  assert_int_equal(mode_of(p), 0700);
  assert_int_equal(mode_of(db), 0600);
  fmt(p, sizeof p, "%s/t/u", dir);
  assert_int_equal(entries(p), 1); /* no temporary file left */
  umask(old);
  t_rmtree(dir);
}

/* ---- the cache folder ------------------------------------------------------ */

static void test_loose_cache_folder(void **st) {
  (void)st;
  char dir[256], cache[400], open_dir[400], sticky[400];
  t_tmpdir(dir, sizeof dir);
  /* World-writable, as in the report: named by VNCL_CACHE_DIR. */
  fmt(cache, sizeof cache, "%s/world", dir);
  mkdir_mode(cache, 0777);
  setenv("VNCL_CACHE_DIR", cache, 1);
  expect_cache_refused(cache, "is writable by others (mode 0777)");
  unsetenv("VNCL_CACHE_DIR");
  /* Group-writable. */
  fmt(cache, sizeof cache, "%s/group", dir);
  mkdir_mode(cache, 0770);
  expect_cache_refused(cache, "is writable by its group (mode 0770)");
  /* Private, but in a folder others may write (not sticky): they could
   * rename it away and put their own in its place. */
  fmt(open_dir, sizeof open_dir, "%s/open", dir);
  mkdir_mode(open_dir, 0777);
  fmt(cache, sizeof cache, "%s/cache", open_dir);
  mkdir_mode(cache, 0700);
  expect_cache_refused(cache, "(a folder above it) is writable by others and "
                              "not sticky");
  /* One that does not exist yet under such a folder: refused too, and not
   * made. */
  fmt(cache, sizeof cache, "%s/new/cache", open_dir);
  cap_begin(cache);
  vncl_context *ctx = ctx_cache(cache);
  gemm_check(ctx);
  char *log = cap_end();
  expect_in(log, "not trusted");
  expect_in(log, "is writable by others and not sticky");
  assert_string_equal(ctx->bincache.dir, "");
  vncl_context_destroy(ctx);
  assert_int_equal(entries(open_dir), 1); /* only "cache" from above */
  /* The control: private, in a sticky world-writable folder (like /tmp,
   * the test's own folder's parent): used. */
  fmt(sticky, sizeof sticky, "%s/sticky", dir);
  mkdir_mode(sticky, 01777);
  fmt(cache, sizeof cache, "%s/cache", sticky);
  expect_cache_used(cache);
  t_rmtree(dir);
}

static void test_cache_other_owner(void **st) {
  (void)st;
  NEED_ROOT("chown a folder to another user");
  uid_t nu;
  gid_t ng;
  if (!nobody_ids(&nu, &ng)) {
    fprintf(stderr, "skipped: no user 'nobody' other than root\n");
    skip();
  }
  char dir[256], cache[400], theirs[400], want[200];
  t_tmpdir(dir, sizeof dir);
  /* The folder itself belongs to someone else (mode 0700 does not help:
   * its owner may write it). */
  fmt(cache, sizeof cache, "%s/cache", dir);
  mkdir_mode(cache, 0700);
  assert_int_equal(chown(cache, nu, ng), 0);
  fmt(want, sizeof want, "is owned by uid %u", (unsigned)nu);
  expect_cache_refused(cache, want);
  /* A folder above it belongs to someone else. */
  fmt(theirs, sizeof theirs, "%s/theirs", dir);
  mkdir_mode(theirs, 0755);
  fmt(cache, sizeof cache, "%s/cache", theirs);
  mkdir_mode(cache, 0700);
  assert_int_equal(chown(theirs, nu, ng), 0);
  fmt(want, sizeof want, "(a folder above it) is owned by uid %u",
           (unsigned)nu);
  expect_cache_refused(cache, want);
  /* A link someone else planted under the name, pointing at a folder that
   * would pass: refused before anything is made or opened through it. */
  char real[400], link[400];
  fmt(real, sizeof real, "%s/real", dir);
  mkdir_mode(real, 0700);
  fmt(link, sizeof link, "%s/link", dir);
  assert_int_equal(symlink(real, link), 0);
  assert_int_equal(lchown(link, nu, ng), 0);
  cap_begin(link);
  vncl_context *ctx = ctx_cache(link);
  gemm_check(ctx);
  char *log = cap_end();
  expect_in(log, "is a symbolic link owned by uid");
  assert_string_equal(ctx->bincache.dir, "");
  assert_int_equal(ctx->binary_stores, 0);
  vncl_context_destroy(ctx);
  assert_int_equal(entries(real), 0);
  t_rmtree(dir);
}

/* ---- cache files ------------------------------------------------------------- */

/* Names of the cache files in dir (up to 16). */
static int cache_files(const char *dir, char names[16][64]) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 16)
    if (strstr(e->d_name, ".bin") && !strstr(e->d_name, ".tmp."))
      fmt(names[n++], 64, "%s", e->d_name);
  closedir(d);
  return n;
}

/* The whole file (malloc'd) and its size in *n; NULL when unreadable. */
static unsigned char *read_all(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0, r;
  unsigned char *buf = malloc(cap);
  while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
    len += r;
    if (len == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  *n = (long)len;
  return buf;
}

/* Runs GEMM on a fresh context over `cache`, expecting no cache hit and
 * `warning` logged; then each entry is a private regular file again. */
static void expect_files_not_read(const char *cache, const char *warning) {
  cap_begin(cache);
  vncl_context *ctx = ctx_cache(cache);
  gemm_check(ctx);
  char *log = cap_end();
  expect_in(log, warning);
  expect_in(log, "not used; the program is compiled and the entry replaced");
  assert_string_not_equal(ctx->bincache.dir, "");
  assert_int_equal(ctx->binary_hits, 0);
  assert_true(ctx->binary_stores >= 1);
  vncl_context_destroy(ctx);
  char names[16][64], p[700];
  int n = cache_files(cache, names);
  assert_true(n >= 1);
  for (int i = 0; i < n; i++) {
    fmt(p, sizeof p, "%s/%s", cache, names[i]);
    struct stat sb;
    assert_int_equal(lstat(p, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    assert_int_equal(sb.st_uid, geteuid());
    assert_int_equal(sb.st_mode & 07777, 0600);
  }
}

static void test_cache_file_link_and_mode(void **st) {
  (void)st;
  char dir[256], cache[400], outside[400], p[700], q[700];
  t_tmpdir(dir, sizeof dir);
  fmt(cache, sizeof cache, "%s/cache", dir);
  fmt(outside, sizeof outside, "%s/outside", dir);
  mkdir_mode(outside, 0700);
  /* Fill the cache, and check a second context reads it (the control). */
  vncl_context *ctx = ctx_cache(cache);
  gemm_check(ctx);
  vncl_context_destroy(ctx);
  ctx = ctx_cache(cache);
  gemm_check(ctx);
  assert_true(ctx->binary_hits >= 1);
  vncl_context_destroy(ctx);

  /* Each entry becomes a link to a copy of itself elsewhere: a valid
   * binary, so only the refusal to follow links keeps it from loading. */
  char names[16][64];
  unsigned char *orig[16];
  long sizes[16];
  int n = cache_files(cache, names);
  assert_true(n >= 1);
  for (int i = 0; i < n; i++) {
    fmt(p, sizeof p, "%s/%s", cache, names[i]);
    fmt(q, sizeof q, "%s/%s", outside, names[i]);
    orig[i] = read_all(p, &sizes[i]);
    assert_true(orig[i] && sizes[i] > 0);
    assert_int_equal(rename(p, q), 0);
    assert_int_equal(symlink(q, p), 0);
  }
  expect_files_not_read(cache, "is a symbolic link, which vncl does not follow");
  /* The link targets were neither read as binaries nor written through. */
  for (int i = 0; i < n; i++) {
    fmt(q, sizeof q, "%s/%s", outside, names[i]);
    long len = 0;
    unsigned char *now = read_all(q, &len);
    assert_non_null(now);
    assert_int_equal(len, sizes[i]);
    assert_memory_equal(now, orig[i], (size_t)sizes[i]);
    free(now);
    free(orig[i]);
  }
  assert_int_equal(entries(outside), n);

  /* A cache file that others may write. */
  n = cache_files(cache, names);
  for (int i = 0; i < n; i++) {
    fmt(p, sizeof p, "%s/%s", cache, names[i]);
    assert_int_equal(chmod(p, 0666), 0);
  }
  expect_files_not_read(cache, "is writable by others (mode 0666)");

  /* Owned by someone else (root only). */
  uid_t nu;
  gid_t ng;
  if (geteuid() == 0 && nobody_ids(&nu, &ng)) {
    n = cache_files(cache, names);
    for (int i = 0; i < n; i++) {
      fmt(p, sizeof p, "%s/%s", cache, names[i]);
      assert_int_equal(chown(p, nu, ng), 0);
    }
    char want[100];
    fmt(want, sizeof want, "is owned by uid %u", (unsigned)nu);
    expect_files_not_read(cache, want);
  } else {
    fprintf(stderr, "part skipped: a cache file owned by another user needs "
            "root (running as uid %u)\n", (unsigned)geteuid());
  }
  /* Replaced entries are read again. */
  ctx = ctx_cache(cache);
  gemm_check(ctx);
  assert_true(ctx->binary_hits >= 1);
  vncl_context_destroy(ctx);
  t_rmtree(dir);
}

/* ---- the tuning database --------------------------------------------------- */

static vncl_context *ctx_db(const char *db) {
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  o.tuning_db = db;
  vncl_context *ctx = NULL;
  T_OK(NULL, vncl_context_create(&ctx, &o));
  /* The database is read on the first parameter lookup; read it now so
   * that its state can be checked. */
  vncl__tuning_load(ctx);
  return ctx;
}

/* A database with an entry for this device that changes the flat f32
 * GEMM set (MR 4, MB 8), so that using it or not shows. */
static void write_db(const char *path, const vncl_context *c0,
                     const vncl__gemm_params *def) {
  char text[4096];
  fmt(text, sizeof text,
           "{\"schema\": \"vncl-tuning\", \"version\": 1, \"entries\": ["
           "{\"vendor\": \"%s\", \"device\": \"%s\", \"driver\": \"%s\", "
           "\"library\": \"%s\", \"device_type\": \"%s\", \"kernel\": "
           "\"gemm\", \"dtype\": \"f32\", \"class\": \"flat\", \"backend\": "
           "\"own\", \"gflops\": 12.5, \"date\": \"2026-11-29\", \"params\": "
           "{\"MR\": 4, \"NR\": %d, \"VW\": %d, \"MB\": 8, \"NB\": %d}}]}",
           c0->info.vendor, c0->info.name, c0->info.driver_version,
           vncl_version_string(),
           c0->info.type == VNCL_DEVICE_CPU ? "cpu" : "gpu", def->cpu.nr,
           def->cpu.vw, def->cpu.nr);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  assert_int_equal(chmod(path, 0644), 0);
}

/* The database at `path` (named by VNCL_TUNING_DB when via_env) must be
 * ignored: the warning, state -2 with the reason, the defaults in force, a
 * right product, nothing new in `dir`. */
static void expect_db_ignored(const char *path, bool via_env, const char *dir,
                              const vncl__gemm_params *def, const char *why) {
  int before = entries(dir);
  cap_begin(dir);
  if (via_env) setenv("VNCL_TUNING_DB", path, 1);
  vncl_context *ctx = ctx_db(via_env ? NULL : path);
  unsetenv("VNCL_TUNING_DB");
  gemm_check(ctx);
  char *log = cap_end();
  char want[800];
  fmt(want, sizeof want, "tuning database %s is not trusted", path);
  expect_in(log, want);
  expect_in(log, why);
  assert_int_equal(count_in(log, "is not trusted"), 1);
  assert_int_equal(ctx->tuning_state, -2);
  assert_non_null(strstr(ctx->tuning_why, why));
  vncl__gemm_params got;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_FLAT, &got);
  assert_memory_equal(def, &got, sizeof got);
  vncl_context_destroy(ctx);
  assert_int_equal(entries(dir), before);
}

static void test_untrusted_tuning_db(void **st) {
  (void)st;
  char dir[256], sub[400], db[600], real[600], link[600];
  t_tmpdir(dir, sizeof dir);
  fmt(sub, sizeof sub, "%s/db", dir);
  mkdir_mode(sub, 0700);
  fmt(db, sizeof db, "%s/tuning.json", sub);
  vncl_context *c0 = ctx_db("/nonexistent/vncl-none.json");
  vncl__gemm_params def;
  vncl__gemm_params_get(c0, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_FLAT, &def);
  write_db(db, c0, &def);
  vncl_context_destroy(c0);

  /* The control: a private file is read and installed. */
  vncl_context *ctx = ctx_db(db);
  assert_int_equal(ctx->tuning_state, 1);
  vncl__gemm_params got;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_FLAT, &got);
  assert_int_equal(got.cpu.mr, 4);
  assert_int_equal(got.cpu.mb, 8);
  gemm_check(ctx);
  vncl_context_destroy(ctx);

  /* World-writable file, named by VNCL_TUNING_DB. */
  assert_int_equal(chmod(db, 0666), 0);
  expect_db_ignored(db, true, sub, &def, "is writable by others (mode 0666)");
  assert_int_equal(chmod(db, 0644), 0);
  /* In a folder others may write. */
  assert_int_equal(chmod(sub, 0777), 0);
  expect_db_ignored(db, false, sub, &def,
                    "is writable by others and not sticky");
  assert_int_equal(chmod(sub, 0700), 0);
  /* A link under the name, to a valid private file. */
  fmt(real, sizeof real, "%s/real.json", dir);
  fmt(link, sizeof link, "%s/linked.json", sub);
  assert_int_equal(rename(db, real), 0);
  assert_int_equal(symlink(real, link), 0);
  expect_db_ignored(link, false, sub, &def, "is a symbolic link, which vncl does not follow");
  assert_int_equal(unlink(link), 0);
  assert_int_equal(rename(real, db), 0);
  /* Owned by someone else (root only). */
  uid_t nu;
  gid_t ng;
  if (geteuid() == 0 && nobody_ids(&nu, &ng)) {
    assert_int_equal(chown(db, nu, ng), 0);
    char want[100];
    fmt(want, sizeof want, "is owned by uid %u", (unsigned)nu);
    expect_db_ignored(db, false, sub, &def, want);
    assert_int_equal(chown(db, 0, 0), 0);
  } else {
    fprintf(stderr, "part skipped: a database owned by another user needs "
            "root (running as uid %u)\n", (unsigned)geteuid());
  }
  /* The database is read again once it is private. */
  ctx = ctx_db(db);
  assert_int_equal(ctx->tuning_state, 1);
  vncl_context_destroy(ctx);
  /* The writer refuses a folder others may write, and writes nothing. */
  char why[512];
  vncl__tuning_db empty;
  memset(&empty, 0, sizeof empty);
  assert_int_equal(chmod(sub, 0777), 0);
  assert_false(vncl__tuning_db_save(db, &empty, why, sizeof why));
  assert_non_null(strstr(why, "not trusted"));
  assert_int_equal(entries(sub), 1);
  t_rmtree(dir);
}

/* `vncl autotune` refuses a database folder others may write before it
 * measures anything, and writes nothing there. */
static void test_autotune_untrusted_folder(void **st) {
  (void)st;
  char dir[256], loose[400], out[500];
  t_tmpdir(dir, sizeof dir);
  fmt(loose, sizeof loose, "%s/shared", dir);
  mkdir_mode(loose, 0777);
  fmt(out, sizeof out, "%s/tuning.json", loose);
  autotune_opts o;
  memset(&o, 0, sizeof o);
  o.out = out;
  o.quick = true;
  o.kernels = "transpose";
  cap_begin(loose);
  int rc = autotune_run(&o);
  char *log = cap_end();
  assert_int_equal(rc, 1);
  expect_in(log, "autotune: the database folder is not trusted");
  expect_in(log, "is writable by others and not sticky");
  fmt(out, sizeof out, "chmod go-w '%s'", loose);
  expect_in(log, out);
  assert_int_equal(o.evaluated, 0);
  assert_int_equal(entries(loose), 0);
  t_rmtree(dir);
}

/* ---- the environment in a set-user-ID process ------------------------------- */

/* Child mode: what the library makes of its environment. */
static int env_child(void) {
  vncl__settings s;
  vncl__settings_resolve(NULL, &s);
  const char *nvml = vncl__getenv("VNCL_NVML_LIBRARY");
  char db[1024];
  vncl__tuning_default_path(db, sizeof db);
  printf("secure=%lu cache=[%s] tuning=[%s] nvml=[%s] default_db=[%s]\n",
         getauxval(AT_SECURE), s.cache_dir, s.tuning_db, nvml ? nvml : "",
         db);
  fflush(stdout);
  _exit(0); /* nothing else runs in a set-user-ID process */
}

/* Runs the helper as user u with a hostile environment; its line in out. */
static void run_helper(const char *helper, uid_t u, gid_t g, char *out,
                       size_t cap) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    if (setgroups(0, NULL) || setgid(g) || setuid(u)) _exit(2);
    char *const argv[] = {(char *)helper, (char *)"env-child", NULL};
    char *const envp[] = {(char *)"VNCL_CACHE_DIR=/tmp/evil-cache",
                          (char *)"VNCL_TUNING_DB=/tmp/evil.json",
                          (char *)"VNCL_NVML_LIBRARY=/tmp/evil.so",
                          (char *)"HOME=/tmp/evil-home", NULL};
    execve(helper, argv, envp);
    _exit(127);
  }
  close(fds[1]);
  size_t n = 0;
  ssize_t r;
  while (n + 1 < cap && (r = read(fds[0], out + n, cap - 1 - n)) > 0)
    n += (size_t)r;
  out[n] = '\0';
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("helper as uid %u: status %d, output '%s'", (unsigned)u, status,
             out);
}

static void test_setuid_environment(void **st) {
  (void)st;
  NEED_ROOT("make a set-user-ID root program for another user to start");
  uid_t nu;
  gid_t ng;
  if (!nobody_ids(&nu, &ng)) {
    fprintf(stderr, "skipped: no user 'nobody' other than root\n");
    skip();
  }
  char dir[256], helper[400], cmd[1200], out[2048];
  t_tmpdir(dir, sizeof dir);
  assert_int_equal(chmod(dir, 0755), 0);
  fmt(helper, sizeof helper, "%s/helper", dir);
  fmt(cmd, sizeof cmd, "cp '%s' '%s'", self_path, helper);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(chmod(helper, 0755), 0);
  /* The control: an ordinary process reads every variable. */
  run_helper(helper, nu, ng, out, sizeof out);
  if (!strstr(out, "secure=0 cache=[/tmp/evil-cache] tuning=[/tmp/evil.json] "
                   "nvml=[/tmp/evil.so] default_db=[/tmp/evil-home/"))
    fail_msg("ordinary process: %s", out);
  /* Set-user-ID root, started by nobody: the variables read as unset, so
   * the cache is off and no database path comes from HOME. */
  assert_int_equal(chmod(helper, 04755), 0);
  run_helper(helper, nu, ng, out, sizeof out);
  if (strstr(out, "secure=0")) {
    fprintf(stderr, "skipped: set-user-ID has no effect here (nosuid mount "
            "or no_new_privs): %s", out);
    t_rmtree(dir);
    skip();
  }
  if (!strstr(out, "cache=[] tuning=[] nvml=[] default_db=[]"))
    fail_msg("set-user-ID process: %s", out);
  t_rmtree(dir);
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "env-child")) return env_child();
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (n <= 0) return 1;
  self_path[n] = '\0';
  /* Before the library's first log call, which reads it once. */
  setenv("VNCL_LOG", "warn", 1);
  t_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_created_modes),
      cmocka_unit_test(test_loose_cache_folder),
      cmocka_unit_test(test_cache_other_owner),
      cmocka_unit_test(test_cache_file_link_and_mode),
      cmocka_unit_test(test_untrusted_tuning_db),
      cmocka_unit_test(test_autotune_untrusted_folder),
      cmocka_unit_test(test_setuid_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
