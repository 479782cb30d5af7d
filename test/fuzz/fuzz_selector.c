/* libFuzzer target: the device selector ("N", "P:D", a type, a name). Any
 * string must give VNCL_OK with an index in range, or VNCL_ERR_NO_DEVICE
 * with a message; never a crash. */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  memcpy(s, data, size);
  s[size] = '\0';
  int count = 0;
  if (vncl_device_count(&count) != VNCL_OK) abort();
  int idx = -1;
  vncl_status st = vncl_device_select(s, &idx);
  if (st == VNCL_OK) {
    if (idx < 0 || idx >= count) abort();
  } else if (st != VNCL_ERR_NO_DEVICE || !vncl_errmsg(NULL)[0]) {
    abort();
  }
  free(s);
  return 0;
}
