/* libFuzzer target: the tuning-database reader (a file anyone can edit or
 * corrupt, read at every context creation). Accepts or rejects; an
 * accepted database must survive a lookup, parameter conversion, a save
 * and a reload with the same number of entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemm/gemm.h" /* includes tuning/tuning.h */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vncl__tuning_db db;
  char why[256];
  if (!vncl__tuning_db_parse((const char *)data, size, &db, why, sizeof why)) {
    if (!why[0]) abort(); /* a rejection always says why */
    return 0;
  }
  vncl_device_info info;
  memset(&info, 0, sizeof info);
  info.type = VNCL_DEVICE_CPU;
  if (db.n) {
    vncl__strlcpy(info.vendor, db.e[0].vendor, sizeof info.vendor);
    vncl__strlcpy(info.name, db.e[0].device, sizeof info.name);
  }
  vncl__tune_level lvl;
  const vncl__tune_entry *e =
      vncl__tuning_find(&db, &info, "gemm", "f32", "square", &lvl);
  for (int i = 0; i < db.n; i++) {
    vncl__gemm_params p;
    memset(&p, 0, sizeof p);
    vncl__gemm_params_from_json(db.e[i].params, &p, why, sizeof why);
  }
  (void)e;
  char path[64];
  snprintf(path, sizeof path, "/tmp/fuzz_tuning_db.%d.json", (int)getpid());
  if (vncl__tuning_db_save(path, &db, why, sizeof why)) {
    vncl__tuning_db back;
    if (!vncl__tuning_db_load(path, &back, why, sizeof why)) abort();
    if (back.n != db.n) abort();
    vncl__tuning_db_free(&back);
    unlink(path);
  }
  vncl__tuning_db_free(&db);
  return 0;
}
