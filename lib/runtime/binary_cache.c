/* The on-disk cache of compiled program binaries.
 *
 * One file per key, named by the key's hash. Layout:
 *   magic "VNCLBIN1" | u32 format | u32 key length | u64 binary length |
 *   u64 checksum of key and binary | key bytes | binary bytes
 * A file is used only when every field matches: a truncated, corrupted or
 * foreign file (a hash collision, another library version) is ignored and
 * overwritten by the next store. Stores write a temporary file in the same
 * folder and rename it over the final name, so readers in other processes
 * see either the old file or the new one, never half of one.
 *
 * The checksum finds damage, not tampering: a binary is code the driver
 * runs, so the folder is used only when no other account could have
 * written it (trust.c), files are opened relative to the open folder
 * without following links, and made 0600 in a folder made 0700
 * (docs/security.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/runtime.h"

#define BC_MAGIC "VNCLBIN1"
#define BC_FORMAT 1u
#define BC_MAX_FILE (512u << 20)

typedef struct {
  char magic[8];
  uint32_t format;
  uint32_t key_len;
  uint64_t bin_len;
  uint64_t checksum;
} bc_header;

void vncl__bincache_default_dir(char *out, size_t cap) {
  const char *v = vncl__getenv("VNCL_CACHE_DIR");
  if (v) {
    vncl__strlcpy(out, !strcmp(v, "off") ? "" : v, cap);
    return;
  }
  const char *xdg = vncl__getenv("XDG_CACHE_HOME");
  const char *home = vncl__getenv("HOME");
  if (xdg)
    snprintf(out, cap, "%s/vncl", xdg);
  else if (home)
    snprintf(out, cap, "%s/.cache/vncl", home);
  else
    vncl__strlcpy(out, "", cap);
}

void vncl__bincache_init(vncl__bincache *bc, const char *dir_opt) {
  bc->dir[0] = '\0';
  bc->dirfd = -1;
  memset(&bc->untrusted, 0, sizeof bc->untrusted);
  bc->asked[0] = bc->unusable[0] = '\0';
  if (!dir_opt || !*dir_opt || !strcmp(dir_opt, "off")) return;
  vncl__strlcpy(bc->asked, dir_opt, sizeof bc->asked);
  vncl__trust t;
  char canon[sizeof bc->dir];
  /* Nothing is made where others could take it over, and what the folder
   * turns out to be is checked once it exists. */
  int fd = -1;
  if (vncl__trust_make_dirs(dir_opt, &t))
    fd = vncl__trust_open_dir(dir_opt, false, canon, sizeof canon, &t);
  if (fd < 0 && t.state == VNCL__TRUST_BROKEN) {
    bc->untrusted = t;
    vncl__log(VNCL_LOG_WARN,
              "binary cache '%s' is not trusted: %s; caching is off for this "
              "context (fix: %s%sset VNCL_CACHE_DIR to a private folder)",
              dir_opt, t.why, t.fix, t.fix[0] ? ", or " : "");
    return;
  }
  if (fd < 0 || faccessat(fd, ".", W_OK | X_OK, 0) != 0) {
    vncl__log(VNCL_LOG_WARN,
              "binary cache '%s' is not a writable folder%s%s: caching is off",
              dir_opt, fd < 0 ? ": " : "", fd < 0 ? t.why : "");
    snprintf(bc->unusable, sizeof bc->unusable, "not a writable folder%s%s",
             fd < 0 ? ": " : "", fd < 0 ? t.why : "");
    if (fd >= 0) close(fd);
    return;
  }
  vncl__strlcpy(bc->dir, canon, sizeof bc->dir);
  bc->dirfd = fd;
}

void vncl__bincache_close(vncl__bincache *bc) {
  if (bc->dirfd >= 0) close(bc->dirfd);
  bc->dirfd = -1;
  bc->dir[0] = '\0';
}

static void file_for(const char *key, char *out, size_t cap) {
  uint64_t h = vncl__hash(key, strlen(key), VNCL_FNV_SEED);
  snprintf(out, cap, "%016llx.bin", (unsigned long long)h);
}

static uint64_t checksum(const char *key, size_t klen, const void *bin,
                         size_t blen) {
  return vncl__hash(bin, blen, vncl__hash(key, klen, VNCL_FNV_SEED));
}

FILE *vncl__bincache_open(const vncl__bincache *bc, const char *name,
                          const char *redo) {
  if (bc->dirfd < 0) return NULL;
  vncl__trust t;
  int fd = vncl__trust_openat(bc->dirfd, bc->dir, name, &t);
  if (fd < 0) {
    /* Not there is the usual miss; a link, a file someone else owns or may
     * write is never read: the work is done again, and the store that
     * follows replaces the entry (rename replaces a link, not its target). */
    if (t.state == VNCL__TRUST_BROKEN)
      vncl__log(VNCL_LOG_WARN, "binary cache: %s: not used; %s and the entry "
                "replaced", t.why, redo);
    return NULL;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) close(fd);
  return f;
}

unsigned char *vncl__bincache_load(const vncl__bincache *bc, const char *key,
                                   size_t *len) {
  char name[64];
  file_for(key, name, sizeof name);
  FILE *f = vncl__bincache_open(bc, name, "the program is compiled");
  if (!f) return NULL;
  unsigned char *bin = NULL;
  char *fkey = NULL;
  bc_header h;
  size_t klen = strlen(key);
  bool ok = fread(&h, sizeof h, 1, f) == 1 &&
            !memcmp(h.magic, BC_MAGIC, 8) && h.format == BC_FORMAT &&
            h.key_len == klen && h.bin_len > 0 && h.bin_len < BC_MAX_FILE;
  if (ok) {
    fkey = malloc(klen + 1);
    bin = malloc((size_t)h.bin_len);
    ok = fkey && bin && fread(fkey, 1, klen, f) == klen &&
         !memcmp(fkey, key, klen) &&
         fread(bin, 1, (size_t)h.bin_len, f) == h.bin_len &&
         fgetc(f) == EOF &&
         checksum(key, klen, bin, (size_t)h.bin_len) == h.checksum;
  }
  fclose(f);
  free(fkey);
  if (!ok) {
    vncl__log(VNCL_LOG_WARN, "ignoring invalid cache file %s/%s", bc->dir,
              name);
    free(bin);
    return NULL;
  }
  *len = (size_t)h.bin_len;
  return bin;
}

bool vncl__bincache_put(const vncl__bincache *bc, const char *name,
                        const void *const *parts, const size_t *lens,
                        int nparts) {
  if (bc->dirfd < 0) return false;
  char tmp[1300];
  /* The temporary file is made in the (trusted, resolved) folder by path,
   * since there is no mkstemp relative to a descriptor; the rename is
   * relative to the open folder. */
  int w = snprintf(tmp, sizeof tmp, "%s/%s.tmp.XXXXXX", bc->dir, name);
  if (w < 0 || (size_t)w >= sizeof tmp) return false;
  int fd = mkstemp(tmp);
  if (fd < 0) {
    vncl__log(VNCL_LOG_WARN, "cannot write to the binary cache %s: %s",
              bc->dir, strerror(errno));
    return false;
  }
  const char *tmpname = strrchr(tmp, '/') + 1;
  FILE *f = fchmod(fd, 0600) == 0 ? fdopen(fd, "wb") : NULL;
  if (!f) {
    close(fd);
    unlinkat(bc->dirfd, tmpname, 0);
    return false;
  }
  bool ok = true;
  for (int i = 0; i < nparts && ok; i++)
    ok = fwrite(parts[i], 1, lens[i], f) == lens[i];
  ok = (fclose(f) == 0) && ok;
  if (ok) ok = renameat(bc->dirfd, tmpname, bc->dirfd, name) == 0;
  if (!ok) {
    unlinkat(bc->dirfd, tmpname, 0);
    vncl__log(VNCL_LOG_WARN, "cannot store %s/%s in the binary cache",
              bc->dir, name);
  }
  return ok;
}

bool vncl__bincache_store(const vncl__bincache *bc, const char *key,
                          const unsigned char *bin, size_t len) {
  if (bc->dirfd < 0 || len == 0) return false;
  char name[64];
  file_for(key, name, sizeof name);
  size_t klen = strlen(key);
  bc_header h;
  memcpy(h.magic, BC_MAGIC, 8);
  h.format = BC_FORMAT;
  h.key_len = (uint32_t)klen;
  h.bin_len = len;
  h.checksum = checksum(key, klen, bin, len);
  const void *parts[3] = {&h, key, bin};
  const size_t lens[3] = {sizeof h, klen, len};
  return vncl__bincache_put(bc, name, parts, lens, 3);
}
