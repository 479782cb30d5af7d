/* Trust on disk: the owner and permission checks that decide whether vncl
 * may use a folder or file it finds (the binary cache, the tuning
 * database, the autotuner's partial results), and opens that follow no
 * symbolic link. docs/security.md gives the rules and their reasons.
 *
 * A folder or file is trusted when it, and every folder above it up to the
 * first one that is owned by root and writable by no one else (or is
 * sticky), is owned by the effective user or by root and writable by
 * neither group nor others: then no other account can have put or replaced
 * anything in it. This is OpenSSH's StrictModes rule. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/runtime.h"

static bool owner_ok(uid_t u) { return u == geteuid() || u == 0; }

static void clear(vncl__trust *t) {
  t->state = VNCL__TRUST_OK;
  t->why[0] = t->fix[0] = '\0';
}

/* snprintf for messages that may be cut short (paths near PATH_MAX). */
static void fmt(char *out, size_t cap, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
static void fmt(char *out, size_t cap, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  vsnprintf(out, cap, f, ap);
  va_end(ap);
}

/* Records a broken rule (fix: the command that mends it, "" when only
 * another place will do) or, with fix NULL, an error that says nothing
 * about trust (a path that cannot be resolved or opened). */
static void set(vncl__trust *t, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set(vncl__trust *t, const char *fix, const char *fmt, ...) {
  t->state = fix ? VNCL__TRUST_BROKEN : VNCL__TRUST_ERROR;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->why, sizeof t->why, fmt, ap);
  va_end(ap);
  vncl__strlcpy(t->fix, fix ? fix : "", sizeof t->fix);
}

bool vncl__trust_stat(const struct stat *st, bool want_dir, const char *path,
                      vncl__trust *t) {
  char fix[sizeof t->fix];
  if (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)) {
    set(t, "", "'%s' is not a %s", path,
        want_dir ? "folder" : "regular file");
    return false;
  }
  if (!owner_ok(st->st_uid)) {
    set(t, "", "'%s' is owned by uid %u, not by you (uid %u) or root", path,
        (unsigned)st->st_uid, (unsigned)geteuid());
    return false;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    fmt(fix, sizeof fix, "chmod %s '%s'", want_dir ? "700" : "600",
             path);
    set(t, fix, "'%s' is writable by %s (mode %04o)", path,
        (st->st_mode & S_IWOTH) ? "others" : "its group",
        (unsigned)(st->st_mode & 07777));
    return false;
  }
  return true;
}

/* The folder `dir` (canonical) and those above it, bottom up, until one is
 * owned by root and closed to others, or is sticky (its other users cannot
 * rename or remove what they do not own), or "/" has been checked. */
static bool walk_up(const char *dir, bool above, vncl__trust *t) {
  char p[PATH_MAX];
  vncl__strlcpy(p, dir, sizeof p);
  for (;;) {
    struct stat st;
    if (lstat(p, &st) != 0) {
      set(t, NULL, "cannot examine '%s': %s", p, strerror(errno));
      return false;
    }
    const char *rel = above ? " (a folder above it)" : "";
    if (!S_ISDIR(st.st_mode)) {
      set(t, "", "'%s' changed while it was checked", p);
      return false;
    }
    if (!owner_ok(st.st_uid)) {
      set(t, "", "'%s'%s is owned by uid %u, not by you (uid %u) or root", p,
          rel, (unsigned)st.st_uid, (unsigned)geteuid());
      return false;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
      if (st.st_mode & S_ISVTX) return true;
      char fix[sizeof t->fix];
      fmt(fix, sizeof fix, "chmod go-w '%s'", p);
      set(t, fix,
          "'%s'%s is writable by %s and not sticky (mode %04o): others could "
          "replace what lies in it",
          p, rel, (st.st_mode & S_IWOTH) ? "others" : "its group",
          (unsigned)(st.st_mode & 07777));
      return false;
    }
    if (st.st_uid == 0 || !strcmp(p, "/")) return true;
    char *slash = strrchr(p, '/');
    if (!slash) return true; /* canonical paths are absolute */
    if (slash == p)
      slash[1] = '\0'; /* the root folder */
    else
      *slash = '\0';
    above = true;
  }
}

/* walk_up from the folder that holds `canon`. */
static bool parents_ok(const char *canon, vncl__trust *t) {
  char p[PATH_MAX];
  vncl__strlcpy(p, canon, sizeof p);
  char *slash = strrchr(p, '/');
  if (!slash || !strcmp(p, "/")) return true;
  if (slash == p)
    slash[1] = '\0';
  else
    *slash = '\0';
  return walk_up(p, true, t);
}

bool vncl__trust_links(const char *path, vncl__trust *t) {
  clear(t);
  char p[PATH_MAX];
  if (strlen(path) >= sizeof p) {
    set(t, NULL, "path too long");
    return false;
  }
  vncl__strlcpy(p, path, sizeof p);
  size_t n = strlen(p);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] != '/' && p[i] != '\0') continue;
    char c = p[i];
    p[i] = '\0';
    struct stat st;
    if (lstat(p, &st) != 0) return true; /* the rest does not exist yet */
    if (S_ISLNK(st.st_mode) && !owner_ok(st.st_uid)) {
      set(t, "", "'%s' is a symbolic link owned by uid %u, not by you (uid %u) or "
          "root",
          p, (unsigned)st.st_uid, (unsigned)geteuid());
      return false;
    }
    p[i] = c;
  }
  return true;
}

bool vncl__trust_make_dirs(const char *path, vncl__trust *t) {
  if (!vncl__trust_links(path, t)) return false;
  char p[PATH_MAX], real[PATH_MAX];
  vncl__strlcpy(p, path, sizeof p);
  struct stat st;
  bool missing = false;
  while (lstat(p, &st) != 0 && errno == ENOENT) {
    missing = true;
    char *slash = strrchr(p, '/');
    if (!slash) {
      vncl__strlcpy(p, ".", sizeof p);
      break;
    }
    if (slash == p) {
      p[1] = '\0';
      break;
    }
    *slash = '\0';
  }
  /* What is made goes into the first folder that exists: it must be one
   * where no one else can take it over. */
  if (missing && realpath(p, real) && !walk_up(real, true, t)) return false;
  if (!vncl__make_dirs(path)) {
    set(t, NULL, "cannot create '%s': %s", path, strerror(errno));
    return false;
  }
  return true;
}

int vncl__trust_open_dir(const char *path, bool holder, char *canon,
                         size_t cap, vncl__trust *t) {
  clear(t);
  char real[PATH_MAX];
  if (!vncl__trust_links(path, t)) return -1;
  if (!realpath(path, real)) {
    int e = errno;
    set(t, NULL, "cannot resolve '%s': %s", path, strerror(e));
    errno = e;
    return -1;
  }
  if (strlen(real) >= cap) {
    set(t, NULL, "'%s' is too long a path", real);
    return -1;
  }
  struct stat st, fst;
  if (lstat(real, &st) != 0) {
    set(t, NULL, "cannot examine '%s': %s", real, strerror(errno));
    return -1;
  }
  if (holder ? !walk_up(real, false, t)
             : !vncl__trust_stat(&st, true, real, t) || !parents_ok(real, t))
    return -1;
  int fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    set(t, NULL, "cannot open '%s': %s", real, strerror(errno));
    return -1;
  }
  /* The folder opened is the one checked, not one put there since. */
  if (fstat(fd, &fst) != 0 || fst.st_dev != st.st_dev ||
      fst.st_ino != st.st_ino || fst.st_uid != st.st_uid ||
      fst.st_mode != st.st_mode) {
    if (!t->why[0])
      set(t, "", "'%s' changed while it was checked", real);
    close(fd);
    return -1;
  }
  vncl__strlcpy(canon, real, cap);
  return fd;
}

int vncl__trust_openat(int dirfd, const char *dir, const char *name,
                       vncl__trust *t) {
  clear(t);
  /* O_NONBLOCK: a FIFO under the name cannot stall the open; fstat then
   * rejects it. */
  int fd = openat(dirfd, name,
                  O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    int e = errno;
    if (e == ELOOP) {
      char fix[sizeof t->fix];
      fmt(fix, sizeof fix, "rm '%s/%s'", dir, name);
      set(t, fix, "'%s/%s' is a symbolic link, which vncl does not follow",
          dir, name);
    }
    errno = e;
    return -1;
  }
  struct stat st;
  char path[PATH_MAX];
  fmt(path, sizeof path, "%s/%s", dir, name);
  if (fstat(fd, &st) != 0) {
    set(t, NULL, "cannot examine '%s': %s", path, strerror(errno));
    close(fd);
    errno = EACCES;
    return -1;
  }
  if (!vncl__trust_stat(&st, false, path, t)) {
    close(fd);
    errno = EACCES;
    return -1;
  }
  /* Reads block as usual from here. */
  int fl = fcntl(fd, F_GETFL);
  if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

int vncl__trust_open_file(const char *path, vncl__trust *t, int *dirfd_out,
                          char *dir_out, size_t dir_cap) {
  clear(t);
  if (dirfd_out) *dirfd_out = -1;
  char dir[PATH_MAX];
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (!*name) {
    set(t, NULL, "'%s' names a folder, not a file", path);
    errno = EISDIR;
    return -1;
  }
  if (!slash)
    vncl__strlcpy(dir, ".", sizeof dir);
  else if (slash == path)
    vncl__strlcpy(dir, "/", sizeof dir);
  else
    fmt(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  char canon[PATH_MAX];
  int dfd = vncl__trust_open_dir(dir, true, canon, sizeof canon, t);
  if (dfd < 0) {
    /* No file there, so nothing is ignored: not worth a warning (the
     * writers check the folder again before they put anything in it). */
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT) {
      clear(t);
      errno = ENOENT;
    } else {
      errno = EACCES;
    }
    return -1;
  }
  int fd = vncl__trust_openat(dfd, canon, name, t);
  int e = errno;
  if (fd >= 0 && dirfd_out) {
    *dirfd_out = dfd;
    if (dir_out) vncl__strlcpy(dir_out, canon, dir_cap);
  } else {
    close(dfd);
  }
  errno = e;
  return fd;
}
