/* libFuzzer target: the binary-cache file reader. Whatever bytes sit in a
 * cache file, loading must not crash, must not read out of bounds, and may
 * only return a binary when the file is an exact, checksummed entry for the
 * key asked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/runtime.h"

static vncl__bincache bc;
static char path[1400];
static const char *KEY = "vncl fuzz|platform p|device d|source s|options -DX=1";

static void setup(void) {
  char dir[] = "/tmp/vncl-fuzz-bincache-XXXXXX";
  if (!mkdtemp(dir)) abort();
  vncl__bincache_init(&bc, dir);
  /* Store once to learn the file name the key maps to. */
  static const unsigned char one[] = {1, 2, 3};
  if (!vncl__bincache_store(&bc, KEY, one, sizeof one)) abort();
  uint64_t h = vncl__hash(KEY, strlen(KEY), VNCL_FNV_SEED);
  snprintf(path, sizeof path, "%s/%016llx.bin", dir, (unsigned long long)h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!path[0]) setup();
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  fchmod(fileno(f), 0600); /* a file others may write is never read */
  if (size) fwrite(data, 1, size, f);
  fclose(f);
  size_t len = 0;
  unsigned char *bin = vncl__bincache_load(&bc, KEY, &len);
  if (bin) {
    /* Only a well-formed file loads: its binary is its tail. */
    if (len == 0 || len > size || memcmp(bin, data + size - len, len) != 0)
      abort();
    free(bin);
  }
  return 0;
}
