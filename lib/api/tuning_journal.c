/*
 * A journal of measurements: an append-only file of lines next to a tuning
 * database (the autotuner's OUT.partial), under the database's trust rules
 * (docs/security.md): its folder made 0700 when missing and used only when
 * trusted, the file 0600 and never reached through a symbolic link, and
 * its lines read back only when no other account could have written them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "vncl_tuning.h"

struct vncl_tuning_journal {
  int dirfd;
  char dir[1024];
  char name[256];
  FILE *f;
  char **lines;
  int n;
  char note[700];
};

/* The folder of path into dir, and the file's name. */
static bool split(const char *path, char *dir, size_t dcap, char *name,
                  size_t ncap) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    vncl__strlcpy(dir, ".", dcap);
  else if (slash == path)
    vncl__strlcpy(dir, "/", dcap);
  else
    snprintf(dir, dcap, "%.*s", (int)(slash - path), path);
  const char *base = slash ? slash + 1 : path;
  if (!*base || strlen(base) >= ncap) return false;
  vncl__strlcpy(name, base, ncap);
  return true;
}

/* The trusted file's lines (newlines removed). */
static bool read_lines(vncl_tuning_journal *j, const char *path) {
  vncl__trust t;
  int fd = vncl__trust_openat(j->dirfd, j->dir, j->name, &t);
  if (fd < 0) {
    if (t.state == VNCL__TRUST_BROKEN)
      snprintf(j->note, sizeof j->note, "%s: not trusted, not read: %s", path,
               t.why);
    return true;
  }
  FILE *f = fdopen(fd, "r");
  if (!f) {
    close(fd);
    return true;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  bool ok = true;
  int lcap = 0;
  while (ok && (len = getline(&line, &cap, f)) > 0) {
    if (line[len - 1] == '\n') line[--len] = '\0';
    if (j->n == lcap) {
      int nc = lcap ? lcap * 2 : 64;
      char **nl = realloc(j->lines, (size_t)nc * sizeof *nl);
      if (!nl) {
        ok = false;
        break;
      }
      j->lines = nl;
      lcap = nc;
    }
    j->lines[j->n] = strdup(line);
    if (!j->lines[j->n]) ok = false;
    else j->n++;
  }
  free(line);
  fclose(f);
  return ok;
}

/* For appending: 0600, in the open folder, never through a link; a file
 * there that is not trusted (so not read) is replaced by a new one. */
static FILE *open_append(vncl_tuning_journal *j, const char *path) {
  const int flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
  for (int attempt = 0; attempt < 2; attempt++) {
    int fd = openat(j->dirfd, j->name, flags | (attempt ? O_EXCL : 0), 0600);
    if (fd < 0 && errno != ELOOP) return NULL;
    struct stat st;
    vncl__trust t;
    if (fd >= 0 && fstat(fd, &st) == 0 &&
        vncl__trust_stat(&st, false, path, &t) && fchmod(fd, 0600) == 0) {
      FILE *f = fdopen(fd, "a");
      if (f) return f;
    }
    if (fd >= 0) close(fd);
    if (attempt || unlinkat(j->dirfd, j->name, 0) != 0) return NULL;
  }
  return NULL;
}

static void journal_free(vncl_tuning_journal *j) {
  if (j->f) fclose(j->f);
  if (j->dirfd >= 0) close(j->dirfd);
  for (int i = 0; i < j->n; i++) free(j->lines[i]);
  free(j->lines);
  free(j);
}

vncl_status vncl_tuning_journal_open(const char *path,
                                     vncl_tuning_journal **out) {
  const char *fn = "vncl_tuning_journal_open";
  if (!path || !out)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                      !path ? "path" : "out");
  vncl_tuning_journal *j = calloc(1, sizeof *j);
  if (!j) return vncl__fail(NULL, VNCL_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
  j->dirfd = -1;
  char dir[1024];
  if (!split(path, dir, sizeof dir, j->name, sizeof j->name)) {
    free(j);
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "%s: '%s' names no file", fn, path);
  }
  vncl__trust t;
  if (vncl__trust_make_dirs(dir, &t))
    j->dirfd = vncl__trust_open_dir(dir, true, j->dir, sizeof j->dir, &t);
  if (j->dirfd < 0) {
    journal_free(j);
    if (t.state == VNCL__TRUST_BROKEN)
      return vncl__fail(NULL, VNCL_ERR_IO,
                        "%s: the database folder is not trusted: %s%s%s", fn,
                        t.why, t.fix[0] ? "; fix: " : "", t.fix);
    return vncl__fail(NULL, VNCL_ERR_IO, "%s: cannot use the folder of %s: %s",
                      fn, path, t.why);
  }
  if (!read_lines(j, path)) {
    journal_free(j);
    return vncl__fail(NULL, VNCL_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
  }
  j->f = open_append(j, path);
  if (!j->f) {
    int e = errno;
    journal_free(j);
    return vncl__fail(NULL, VNCL_ERR_IO, "%s: cannot write %s: %s", fn, path,
                      strerror(e));
  }
  *out = j;
  return VNCL_OK;
}

int vncl_tuning_journal_count(const vncl_tuning_journal *j) {
  return j ? j->n : 0;
}

const char *vncl_tuning_journal_line(const vncl_tuning_journal *j, int i) {
  return j && i >= 0 && i < j->n ? j->lines[i] : NULL;
}

const char *vncl_tuning_journal_note(const vncl_tuning_journal *j) {
  return j ? j->note : "";
}

vncl_status vncl_tuning_journal_append(vncl_tuning_journal *j,
                                       const char *line) {
  const char *fn = "vncl_tuning_journal_append";
  if (!j || !line)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                      !j ? "j" : "line");
  if (strchr(line, '\n'))
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "%s: the line holds a newline", fn);
  if (fprintf(j->f, "%s\n", line) < 0 || fflush(j->f) != 0)
    return vncl__fail(NULL, VNCL_ERR_IO, "%s: %s", fn, strerror(errno));
  return VNCL_OK;
}

void vncl_tuning_journal_close(vncl_tuning_journal *j, int remove) {
  if (!j) return;
  if (remove) unlinkat(j->dirfd, j->name, 0);
  journal_free(j);
}
