/* Small helpers: hashing, number parsing, strings, time. */
#define _GNU_SOURCE /* secure_getenv */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/runtime.h"

uint64_t vncl__hash(const void *data, size_t len, uint64_t h) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

bool vncl__parse_bytes(const char *s, uint64_t *out) {
  if (!s || !*s) return false;
  while (isspace((unsigned char)*s)) s++;
  if (*s == '-' || *s == '+') return false;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (end == s || errno || !isfinite(v) || v < 0) return false;
  double mult = 1;
  switch (toupper((unsigned char)*end)) {
    case 'K': mult = 1024.0; end++; break;
    case 'M': mult = 1024.0 * 1024; end++; break;
    case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
  }
  if (mult > 1 && (*end == 'i' || *end == 'I')) end++;
  if (*end == 'B' || *end == 'b') end++;
  while (isspace((unsigned char)*end)) end++;
  if (*end) return false;
  v *= mult;
  if (v >= 18446744073709551615.0) return false;
  *out = (uint64_t)v;
  return true;
}

bool vncl__mul_overflow(size_t a, size_t b, size_t *out) {
  if (a != 0 && b > SIZE_MAX / a) return false;
  *out = a * b;
  return true;
}

/* One folder, 0700. mkdir's mode passes through the umask, which may only
 * take bits away (a umask of 0777 would leave 000), so the mode is set again
 * on the folder just made, through a descriptor that follows no link. */
static bool make_dir(const char *p) {
  if (mkdir(p, 0700) != 0) return errno == EEXIST;
  int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = fchmod(fd, 0700) == 0;
  close(fd);
  return ok;
}

bool vncl__make_dirs(const char *path) {
  char tmp[1024];
  if (!path || !*path || strlen(path) >= sizeof tmp) return false;
  vncl__strlcpy(tmp, path, sizeof tmp);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (!make_dir(tmp)) return false;
    *p = '/';
  }
  if (!make_dir(tmp)) return false;
  struct stat st;
  return stat(tmp, &st) == 0 && S_ISDIR(st.st_mode);
}

bool vncl__contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  if (n == 0) return true;
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] &&
           tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n) return true;
  }
  return false;
}

void vncl__strlcpy(char *dst, const char *src, size_t cap) {
  if (cap == 0) return;
  size_t n = src ? strlen(src) : 0;
  if (n >= cap) n = cap - 1;
  if (n) memcpy(dst, src, n);
  dst[n] = '\0';
}

const char *vncl__getenv(const char *name) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 17)
  const char *v = secure_getenv(name);
#else
  /* Without secure_getenv: the same rule for set-ID programs. */
  const char *v = (getuid() != geteuid() || getgid() != getegid())
                      ? NULL
                      : getenv(name);
#endif
  return (v && *v) ? v : NULL;
}

double vncl__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *vncl__shape_str(int ndim, const int64_t *shape, char *buf,
                            size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < ndim && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "",
                          (long long)shape[i]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
  return buf;
}
