/* A stand-in for librocm_smi64, built as build/test/libfake_rocm_smi.so and
 * selected with VNCL_ROCM_SMI_LIBRARY. One device named FAKE_RSMI_NAME, with
 * the readings below. FAKE_RSMI_FREQ_V5=1 writes clocks in the pre-ROCm-6
 * rsmi_frequencies_t layout (default: the ROCm 6 layout);
 * FAKE_RSMI_NO_EDGE=1 reports only the junction temperature (as MI300
 * does); FAKE_RSMI_FAIL_INIT=1 makes rsmi_init fail. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int rsmi_status_t;
enum {
  RSMI_STATUS_SUCCESS = 0,
  RSMI_STATUS_INVALID_ARGS = 1,
  RSMI_STATUS_NOT_SUPPORTED = 2,
  RSMI_STATUS_INIT_ERROR = 8,
};

typedef struct {
  uint32_t num_supported, current;
  uint64_t frequency[32];
} freqs_v5;
typedef struct {
  bool has_deep_sleep;
  uint32_t num_supported, current;
  uint64_t frequency[33];
} freqs_v6;

static int initialized;

static int env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

rsmi_status_t rsmi_init(uint64_t flags) {
  (void)flags;
  if (env_on("FAKE_RSMI_FAIL_INIT")) return RSMI_STATUS_INIT_ERROR;
  initialized = 1;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_shut_down(void) {
  initialized = 0;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_status_string(rsmi_status_t s, const char **out) {
  *out = s == RSMI_STATUS_INIT_ERROR ? "RSMI_STATUS_INIT_ERROR" : "fake";
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_num_monitor_devices(uint32_t *n) {
  if (!initialized) return RSMI_STATUS_INIT_ERROR;
  *n = 1;
  return RSMI_STATUS_SUCCESS;
}

#define CHECK(dv)                                          \
  do {                                                     \
    if (!initialized) return RSMI_STATUS_INIT_ERROR;       \
    if ((dv) != 0) return RSMI_STATUS_INVALID_ARGS;        \
  } while (0)

rsmi_status_t rsmi_dev_name_get(uint32_t dv, char *name, size_t len) {
  CHECK(dv);
  const char *n = getenv("FAKE_RSMI_NAME");
  snprintf(name, len, "%s", n ? n : "Fake ROCm GPU");
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv, uint64_t *bdfid) {
  CHECK(dv);
  /* 0001:63:00.0: domain << 32 | bus << 8 | device << 3 | function */
  *bdfid = (1ull << 32) | (0x63u << 8);
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv, uint32_t *pct) {
  CHECK(dv);
  *pct = 64;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_busy_percent_get(uint32_t dv, uint32_t *pct) {
  CHECK(dv);
  *pct = 21;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv, int type, uint64_t *v) {
  CHECK(dv);
  if (type != 0) return RSMI_STATUS_NOT_SUPPORTED; /* VRAM only */
  *v = 32ull << 30;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv, int type, uint64_t *v) {
  CHECK(dv);
  if (type != 0) return RSMI_STATUS_NOT_SUPPORTED;
  *v = 5ull << 30;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv, uint32_t sensor,
                                       int metric, int64_t *mc) {
  CHECK(dv);
  if (metric != 0) return RSMI_STATUS_NOT_SUPPORTED;
  if (sensor == 0 && !env_on("FAKE_RSMI_NO_EDGE")) {
    *mc = 47500;
    return RSMI_STATUS_SUCCESS;
  }
  if (sensor == 1) {
    *mc = 61000;
    return RSMI_STATUS_SUCCESS;
  }
  return RSMI_STATUS_NOT_SUPPORTED;
}

rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor,
                                     uint64_t *uw) {
  CHECK(dv);
  if (sensor != 0) return RSMI_STATUS_INVALID_ARGS;
  *uw = 250500000u; /* 250.5 W */
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_gpu_clk_freq_get(uint32_t dv, int type, void *f) {
  CHECK(dv);
  static const uint64_t sys[3] = {500000000u, 1700000000u, 2100000000u};
  static const uint64_t mem[1] = {1600000000u};
  const uint64_t *tab = type == 0 ? sys : type == 4 ? mem : NULL;
  uint32_t n = type == 0 ? 3 : 1, cur = type == 0 ? 1 : 0;
  if (!tab) return RSMI_STATUS_NOT_SUPPORTED;
  if (env_on("FAKE_RSMI_FREQ_V5")) {
    freqs_v5 *v = f;
    v->num_supported = n;
    v->current = cur;
    memcpy(v->frequency, tab, n * sizeof *tab);
  } else {
    freqs_v6 *v = f;
    v->has_deep_sleep = true;
    v->num_supported = n;
    v->current = cur;
    memcpy(v->frequency, tab, n * sizeof *tab);
  }
  return RSMI_STATUS_SUCCESS;
}
