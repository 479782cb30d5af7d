/* Settings of the drop-in BLAS (environment, then a config file as
 * nvblas.conf is, then defaults), the per-routine counters and the
 * VNCL_BLAS_VERBOSE summary printed at exit. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blas_internal.h"

/* 2^29 flops: a 645^3 real GEMM. Below it the transfers of host operands
 * cost more than a GPU saves, on the PCIe links measured. */
#define VB_DEFAULT_MIN_FLOPS 536870912.0

static const char *const routine_names[VB_NROUTINES] = {
    "gemm", "symm", "hemm", "syrk", "herk", "syr2k", "her2k", "trmm", "trsm"};
static const char type_letters[VB_NTYPES + 1] = "sdcz";
/* hemm, herk and her2k exist for the complex types only. */
#define VB_ALL_TYPES 0xFu

const char *vb_routine_name(int r) {
  return r >= 0 && r < VB_NROUTINES ? routine_names[r] : "?";
}

static vb_settings settings;
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

/* Whether warnings print is settled apart from the other settings: reading
 * those warns (a bad value, a file that is ignored), and a warning must
 * not wait for the settings it is part of (pthread_once is not
 * re-entrant: it deadlocked). */
static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static int log_warn;

static void log_init(void) {
  const char *log = secure_getenv("VNCL_LOG");
  log_warn = log && (!strcmp(log, "warn") || !strcmp(log, "info") ||
                     !strcmp(log, "debug") || !strcmp(log, "1"));
}

void vb_warn(const char *fmt, ...) {
  pthread_once(&log_once, log_init);
  if (!log_warn) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "vncl warn: %s\n", buf);
}

int vb_parse_routines(const char *list, unsigned on[VB_NROUTINES]) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", list);
  int bad = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ", \t", &save); tok;
       tok = strtok_r(NULL, ", \t", &save)) {
    int neg = tok[0] == '-';
    if (neg || tok[0] == '+') tok++;
    if (!strcasecmp(tok, "all") || !strcasecmp(tok, "none")) {
      unsigned v = (!strcasecmp(tok, "all")) != neg ? VB_ALL_TYPES : 0;
      for (int r = 0; r < VB_NROUTINES; r++) on[r] = v;
      continue;
    }
    /* "gemm" (every type), else "dgemm" (one type). */
    int found = 0;
    for (int pass = 0; pass < 2 && !found; pass++) {
      unsigned types = VB_ALL_TYPES;
      const char *name = tok;
      if (pass == 1) {
        const char *l = strchr(type_letters, tok[0] | 32);
        if (!l || !tok[0]) break;
        types = 1u << (l - type_letters);
        name = tok + 1;
      }
      for (int r = 0; r < VB_NROUTINES; r++)
        if (!strcasecmp(name, routine_names[r])) {
          on[r] = neg ? on[r] & ~types : on[r] | types;
          found = 1;
        }
    }
    if (!found) {
      vb_warn("blas: VNCL_BLAS_ROUTINES: unknown routine \"%s\" ignored", tok);
      bad++;
    }
  }
  return bad;
}

/* Which keys a config file may set: the environment variables' names. */
static const char *const config_keys[] = {
    "VNCL_BLAS_MIN_FLOPS", "VNCL_BLAS_ROUTINES", "VNCL_BLAS_CPU_LIBRARY",
    "VNCL_BLAS_VERBOSE", "VNCL_DEVICE"};
#define NKEYS (sizeof config_keys / sizeof *config_keys)

static void apply(const char *key, const char *val) {
  if (!strcmp(key, "VNCL_BLAS_MIN_FLOPS")) {
    char *end = NULL;
    errno = 0;
    double v = strtod(val, &end);
    if (end == val || *end || errno || !(v >= 0)) {
      vb_warn("blas: VNCL_BLAS_MIN_FLOPS \"%s\" is not a number >= 0: "
              "keeping %g", val, settings.min_flops);
      return;
    }
    settings.min_flops = v;
  } else if (!strcmp(key, "VNCL_BLAS_ROUTINES")) {
    vb_parse_routines(val, settings.on);
  } else if (!strcmp(key, "VNCL_BLAS_CPU_LIBRARY")) {
    snprintf(settings.cpu_library, sizeof settings.cpu_library, "%s", val);
  } else if (!strcmp(key, "VNCL_BLAS_VERBOSE")) {
    settings.verbose = val[0] && strcmp(val, "0") != 0;
  } else if (!strcmp(key, "VNCL_DEVICE")) {
    snprintf(settings.device, sizeof settings.device, "%s", val);
  }
}

/* KEY VALUE or KEY=VALUE per line; '#' starts a comment. */
static void read_config(const char *path, int from_file[NKEYS],
                        char vals[NKEYS][1024]) {
  /* The file can name the CPU library, which is loaded: like the tuning
   * database (docs/security.md), it is read only when no one else could
   * have written it, and never through a symbolic link. */
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    vb_warn("blas: VNCL_BLAS_CONFIG %s: %s", path,
            errno == ELOOP ? "a symbolic link, not followed" : strerror(errno));
    return;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      (st.st_uid != geteuid() && st.st_uid != 0) ||
      (st.st_mode & (S_IWGRP | S_IWOTH))) {
    vb_warn("blas: VNCL_BLAS_CONFIG %s: ignored: not a regular file owned by "
            "you or root and closed to others (fix: chmod 600 '%s')",
            path, path);
    close(fd);
    return;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "r");
  if (!f) {
    close(fd);
    return;
  }
  snprintf(settings.config_file, sizeof settings.config_file, "%s", path);
  char line[1024];
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '\n' || *p == '\r') continue;
    char *key = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '=') p++;
    if (*p) *p++ = 0;
    while (*p == ' ' || *p == '\t' || *p == '=') p++;
    char *val = p;
    size_t n = strlen(val);
    while (n && (val[n - 1] == '\n' || val[n - 1] == '\r' ||
                 val[n - 1] == ' ' || val[n - 1] == '\t'))
      val[--n] = 0;
    size_t i;
    for (i = 0; i < NKEYS; i++)
      if (!strcmp(key, config_keys[i])) break;
    if (i == NKEYS) {
      vb_warn("blas: %s:%d: unknown setting \"%s\" ignored", path, lineno, key);
      continue;
    }
    from_file[i] = 1;
    snprintf(vals[i], sizeof vals[i], "%s", val);
  }
  fclose(f);
}

static void settings_init(void) {
  pthread_once(&log_once, log_init);
  settings.log_warn = log_warn;
  settings.min_flops = VB_DEFAULT_MIN_FLOPS;
  for (int r = 0; r < VB_NROUTINES; r++) settings.on[r] = VB_ALL_TYPES;
  int from_file[NKEYS] = {0};
  static char vals[NKEYS][1024];
  const char *cfg = secure_getenv("VNCL_BLAS_CONFIG");
  if (cfg && cfg[0]) read_config(cfg, from_file, vals);
  for (size_t i = 0; i < NKEYS; i++) {
    const char *env = secure_getenv(config_keys[i]);
    if (env) apply(config_keys[i], env);
    else if (from_file[i]) apply(config_keys[i], vals[i]);
  }
}

const vb_settings *vb_settings_get(void) {
  pthread_once(&settings_once, settings_init);
  return &settings;
}

/* ---- Counters ---------------------------------------------------------- */

typedef struct vb_count {
  unsigned long long calls[3];
  double flops[3];
} vb_count;

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static vb_count stats[VB_NROUTINES][VB_NTYPES];

void vb_stats_add(int routine, int type, int where, double flops) {
  pthread_mutex_lock(&stats_lock);
  stats[routine][type].calls[where]++;
  stats[routine][type].flops[where] += flops;
  pthread_mutex_unlock(&stats_lock);
}

/* At exit (or when the library is unloaded): one line per routine used. */
__attribute__((destructor)) static void vb_summary(void) {
  if (!vb_settings_get()->verbose) return;
  pthread_mutex_lock(&stats_lock);
  fprintf(stderr, "vncl-blas: CPU BLAS %s; min flops %g\n",
          vb_cpu_path()[0] ? vb_cpu_path() : "(none)",
          vb_settings_get()->min_flops);
  for (int r = 0; r < VB_NROUTINES; r++)
    for (int t = 0; t < VB_NTYPES; t++) {
      const vb_count *c = &stats[r][t];
      if (!c->calls[0] && !c->calls[1] && !c->calls[2]) continue;
      char name[16];
      snprintf(name, sizeof name, "%c%s", type_letters[t], routine_names[r]);
      fprintf(stderr,
              "vncl-blas: %-6s device %llu calls %.3e flop, cpu %llu calls "
              "%.3e flop, quick %llu calls\n",
              name, c->calls[VB_ON_DEVICE], c->flops[VB_ON_DEVICE],
              c->calls[VB_ON_CPU], c->flops[VB_ON_CPU], c->calls[VB_QUICK]);
    }
  pthread_mutex_unlock(&stats_lock);
}
