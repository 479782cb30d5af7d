/* libFuzzer target: byte-count parsing (VNCL_MEMORY_LIMIT and friends).
 * Accepts or rejects; an accepted value must be consistent with the digits
 * (no wrap-around to small numbers from huge inputs). */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  memcpy(s, data, size);
  s[size] = '\0';
  uint64_t v = 12345;
  if (!vncl__parse_bytes(s, &v) && v != 12345) abort(); /* untouched on junk */
  free(s);
  return 0;
}
