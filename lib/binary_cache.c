/* The on-disk cache of compiled program binaries.
 *
 * One file per key, named by the key's hash. Layout:
 *   magic "VNCLBIN1" | u32 format | u32 key length | u64 binary length |
 *   u64 checksum of key and binary | key bytes | binary bytes
 * A file is used only when every field matches: a truncated, corrupted or
 * foreign file (a hash collision, another library version) is ignored and
 * overwritten by the next store. Stores write a temporary file in the same
 * folder and rename it over the final name, so readers in other processes
 * see either the old file or the new one, never half of one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

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
  if (!dir_opt || !*dir_opt || !strcmp(dir_opt, "off")) return;
  if (!vncl__make_dirs(dir_opt) || access(dir_opt, W_OK | X_OK) != 0) {
    vncl__log(VNCL_LOG_WARN,
              "binary cache '%s' is not a writable folder: caching is off",
              dir_opt);
    return;
  }
  vncl__strlcpy(bc->dir, dir_opt, sizeof bc->dir);
}

static void file_for(const vncl__bincache *bc, const char *key, char *out,
                     size_t cap) {
  uint64_t h = vncl__hash(key, strlen(key), VNCL_FNV_SEED);
  snprintf(out, cap, "%s/%016llx.bin", bc->dir, (unsigned long long)h);
}

static uint64_t checksum(const char *key, size_t klen, const void *bin,
                         size_t blen) {
  return vncl__hash(bin, blen, vncl__hash(key, klen, VNCL_FNV_SEED));
}

unsigned char *vncl__bincache_load(const vncl__bincache *bc, const char *key,
                                   size_t *len) {
  if (!bc->dir[0]) return NULL;
  char path[1200];
  file_for(bc, key, path, sizeof path);
  FILE *f = fopen(path, "rb");
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
    vncl__log(VNCL_LOG_WARN, "ignoring invalid cache file %s", path);
    free(bin);
    return NULL;
  }
  *len = (size_t)h.bin_len;
  return bin;
}

bool vncl__bincache_store(const vncl__bincache *bc, const char *key,
                          const unsigned char *bin, size_t len) {
  if (!bc->dir[0] || len == 0) return false;
  char path[1200], tmp[1300];
  file_for(bc, key, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    vncl__log(VNCL_LOG_WARN, "cannot write to the binary cache %s: %s",
              bc->dir, strerror(errno));
    return false;
  }
  fchmod(fd, 0644);
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd);
    unlink(tmp);
    return false;
  }
  size_t klen = strlen(key);
  bc_header h;
  memcpy(h.magic, BC_MAGIC, 8);
  h.format = BC_FORMAT;
  h.key_len = (uint32_t)klen;
  h.bin_len = len;
  h.checksum = checksum(key, klen, bin, len);
  bool ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(key, 1, klen, f) == klen &&
            fwrite(bin, 1, len, f) == len;
  ok = (fclose(f) == 0) && ok;
  if (ok) ok = rename(tmp, path) == 0;
  if (!ok) {
    unlink(tmp);
    vncl__log(VNCL_LOG_WARN, "cannot store %s in the binary cache", path);
  }
  return ok;
}
