/* AMD telemetry through ROCm SMI (librocm_smi64), opened with dlopen. The
 * declarations below are written from the ROCm SMI library's public API
 * reference; vncl never includes rocm_smi.h nor links the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telemetry.h"

typedef int rsmi_ret; /* rsmi_status_t; 0 is RSMI_STATUS_SUCCESS */

enum {
  RSMI_MEM_TYPE_VRAM = 0,
  RSMI_TEMP_TYPE_EDGE = 0,
  RSMI_TEMP_TYPE_JUNCTION = 1,
  RSMI_TEMP_CURRENT = 0,
  RSMI_CLK_TYPE_SYS = 0,
  RSMI_CLK_TYPE_MEM = 4,
};

static struct {
  rsmi_ret (*init)(uint64_t);
  rsmi_ret (*status_string)(rsmi_ret, const char **);
  rsmi_ret (*count)(uint32_t *);
  rsmi_ret (*name)(uint32_t, char *, size_t);
  rsmi_ret (*pci_id)(uint32_t, uint64_t *);
  rsmi_ret (*busy)(uint32_t, uint32_t *);
  rsmi_ret (*mem_busy)(uint32_t, uint32_t *);
  rsmi_ret (*mem_used)(uint32_t, int, uint64_t *);
  rsmi_ret (*mem_total)(uint32_t, int, uint64_t *);
  rsmi_ret (*temp)(uint32_t, uint32_t, int, int64_t *);
  rsmi_ret (*power_ave)(uint32_t, uint32_t, uint64_t *);
  rsmi_ret (*socket_power)(uint32_t, uint64_t *);
  rsmi_ret (*clock)(uint32_t, int, void *);
  int n;
} rs;

static const char *err(rsmi_ret r) {
  const char *s = NULL;
  if (rs.status_string && rs.status_string(r, &s) == 0 && s) return s;
  return "error";
}

static int rocm_open(void *dl, char *detail, size_t cap) {
  VNCL_TM_SYM(dl, rs.init, "rsmi_init");
  VNCL_TM_SYM(dl, rs.status_string, "rsmi_status_string");
  VNCL_TM_SYM(dl, rs.count, "rsmi_num_monitor_devices");
  VNCL_TM_SYM(dl, rs.name, "rsmi_dev_name_get");
  VNCL_TM_SYM(dl, rs.pci_id, "rsmi_dev_pci_id_get");
  VNCL_TM_SYM(dl, rs.busy, "rsmi_dev_busy_percent_get");
  VNCL_TM_SYM(dl, rs.mem_busy, "rsmi_dev_memory_busy_percent_get");
  VNCL_TM_SYM(dl, rs.mem_used, "rsmi_dev_memory_usage_get");
  VNCL_TM_SYM(dl, rs.mem_total, "rsmi_dev_memory_total_get");
  VNCL_TM_SYM(dl, rs.temp, "rsmi_dev_temp_metric_get");
  VNCL_TM_SYM(dl, rs.power_ave, "rsmi_dev_power_ave_get");
  VNCL_TM_SYM(dl, rs.socket_power, "rsmi_dev_current_socket_power_get");
  VNCL_TM_SYM(dl, rs.clock, "rsmi_dev_gpu_clk_freq_get");
  if (!rs.init || !rs.count) {
    snprintf(detail, cap, "not a ROCm SMI library (rsmi_init or "
             "rsmi_num_monitor_devices missing)");
    return -1;
  }
  rsmi_ret r = rs.init(0);
  if (r != 0) {
    snprintf(detail, cap, "rsmi_init failed: %s (%d)", err(r), r);
    return -1;
  }
  uint32_t n = 0;
  r = rs.count(&n);
  if (r != 0) {
    snprintf(detail, cap, "rsmi_num_monitor_devices failed: %s (%d)", err(r),
             r);
    return -1;
  }
  rs.n = n > 4096 ? 4096 : (int)n;
  return rs.n;
}

static void rocm_describe(int i, vncl__tm_device *out) {
  memset(out, 0, sizeof *out);
  if (rs.name && rs.name((uint32_t)i, out->name, sizeof out->name) != 0)
    out->name[0] = '\0';
  out->name[sizeof out->name - 1] = '\0';
  uint64_t id = 0;
  if (rs.pci_id && rs.pci_id((uint32_t)i, &id) == 0) {
    /* BDFID: domain in bits 63..32, bus 15..8, device 7..3, function 2..0
     * (which some devices use for a partition id instead). */
    out->pci.known = out->pci.domain_known = out->pci.function_known = true;
    out->pci.domain = (unsigned)(id >> 32);
    out->pci.bus = (unsigned)((id >> 8) & 0xff);
    out->pci.device = (unsigned)((id >> 3) & 0x1f);
    out->pci.function = (unsigned)(id & 7);
  }
}

/* rsmi_frequencies_t changed in ROCm 6: a leading bool was added and the
 * table grew from 32 to 33 entries. Both layouts are read from one zeroed
 * buffer and the consistent one is used; a reading that fits neither, or
 * both, is dropped. */
typedef struct {
  uint32_t num_supported, current;
  uint64_t frequency[32];
} freqs_v5;
typedef struct {
  bool has_deep_sleep;
  uint32_t num_supported, current;
  uint64_t frequency[33];
} freqs_v6;

static bool plausible(uint32_t num, uint32_t cur, uint32_t max,
                      const uint64_t *f) {
  return num >= 1 && num <= max && cur < num && f[cur] >= 1000000u &&
         f[cur] <= 100000000000ull; /* 1 MHz .. 100 GHz, in Hz */
}

static bool rocm_clock(uint32_t dev, int type, unsigned *mhz) {
  if (!rs.clock) return false;
  union {
    freqs_v5 v5;
    freqs_v6 v6;
    unsigned char bytes[sizeof(freqs_v6) + 64];
  } u;
  memset(&u, 0, sizeof u);
  if (rs.clock(dev, type, &u) != 0) return false;
  unsigned char b0 = u.bytes[0];
  bool v6 = (b0 == 0 || b0 == 1) &&
            plausible(u.v6.num_supported, u.v6.current, 33, u.v6.frequency);
  bool v5 = plausible(u.v5.num_supported, u.v5.current, 32, u.v5.frequency);
  if (v6 == v5) return false;
  uint64_t hz = v6 ? u.v6.frequency[u.v6.current]
                   : u.v5.frequency[u.v5.current];
  *mhz = (unsigned)(hz / 1000000u);
  return true;
}

static void rocm_read(int i, vncl_telemetry *t) {
  uint32_t d = (uint32_t)i, pct = 0;
  if (rs.busy && rs.busy(d, &pct) == 0) {
    t->utilization_valid = 1;
    t->utilization_percent = pct;
  }
  if (rs.mem_busy && rs.mem_busy(d, &pct) == 0) {
    t->memory_utilization_valid = 1;
    t->memory_utilization_percent = pct;
  }
  uint64_t v = 0;
  if (rs.mem_total && rs.mem_total(d, RSMI_MEM_TYPE_VRAM, &v) == 0 && v) {
    t->memory_total_valid = 1;
    t->memory_total_bytes = v;
  }
  if (rs.mem_used && rs.mem_used(d, RSMI_MEM_TYPE_VRAM, &v) == 0) {
    t->memory_used_valid = 1;
    t->memory_used_bytes = v;
    t->memory_free_valid = 0; /* recomputed from total - used */
  }
  int64_t mc = 0; /* millidegrees Celsius; MI300 reports junction only */
  if (rs.temp && (rs.temp(d, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &mc) == 0 ||
                  rs.temp(d, RSMI_TEMP_TYPE_JUNCTION, RSMI_TEMP_CURRENT,
                          &mc) == 0)) {
    t->temperature_valid = 1;
    t->temperature_c = (double)mc / 1000.0;
  }
  /* Microwatts: the average where the device has it, else the current
   * socket power (newer devices report only that). */
  if ((rs.power_ave && rs.power_ave(d, 0, &v) == 0) ||
      (rs.socket_power && rs.socket_power(d, &v) == 0)) {
    t->power_valid = 1;
    t->power_watts = (double)v / 1e6;
  }
  unsigned mhz = 0;
  if (rocm_clock(d, RSMI_CLK_TYPE_SYS, &mhz)) {
    t->sm_clock_valid = 1;
    t->sm_clock_mhz = mhz;
  }
  if (rocm_clock(d, RSMI_CLK_TYPE_MEM, &mhz)) {
    t->memory_clock_valid = 1;
    t->memory_clock_mhz = mhz;
  }
}

static const char *const rocm_names[] = {
    "librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5",
    "librocm_smi64.so", "/opt/rocm/lib/librocm_smi64.so.7",
    "/opt/rocm/lib/librocm_smi64.so.6", "/opt/rocm/lib/librocm_smi64.so",
    NULL};

const vncl__tm_backend vncl__tm_rocm = {"rocm-smi", "VNCL_ROCM_SMI_LIBRARY",
                                        rocm_names, rocm_open, rocm_describe,
                                        rocm_read};
