/* Intel telemetry through Level Zero Sysman (libze_loader), opened with
 * dlopen. The structures below are written from the oneAPI Level Zero
 * specification (Sysman API, 1.x); vncl never includes zes_api.h nor links
 * the loader. Utilization and power are rates: they come from counters
 * sampled at successive calls, so the first call for a device leaves them
 * absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telemetry.h"

typedef int ze_ret; /* ze_result_t; 0 is ZE_RESULT_SUCCESS */
typedef void *zes_h; /* every Sysman handle is an opaque pointer */
typedef uint8_t ze_bool;

enum { /* zes_structure_type_t */
  ZES_STYPE_DEVICE_PROPERTIES = 0x1,
  ZES_STYPE_PCI_PROPERTIES = 0x2,
  ZES_STYPE_ENGINE_PROPERTIES = 0x5,
  ZES_STYPE_FREQ_PROPERTIES = 0x9,
  ZES_STYPE_MEM_PROPERTIES = 0xb,
  ZES_STYPE_TEMP_PROPERTIES = 0x14,
  ZES_STYPE_FREQ_STATE = 0x1b,
  ZES_STYPE_MEM_STATE = 0x1e,
  ZE_STYPE_DEVICE_PROPERTIES = 0x3, /* ze_structure_type_t */
};
enum {
  ZES_ENGINE_GROUP_ALL = 0,
  ZES_ENGINE_GROUP_COMPUTE_ALL = 1,
  ZES_FREQ_DOMAIN_GPU = 0,
  ZES_FREQ_DOMAIN_MEMORY = 1,
  ZES_MEM_LOC_DEVICE = 1,
  ZES_TEMP_SENSORS_GLOBAL = 0,
  ZES_TEMP_SENSORS_GPU = 1,
};

typedef struct { /* ze_device_properties_t */
  uint32_t stype;
  void *next;
  uint32_t type, vendor_id, device_id, flags, subdevice_id, core_clock_rate;
  uint64_t max_mem_alloc_size;
  uint32_t max_hw_contexts, max_queue_priority, threads_per_eu, simd_width,
      eus_per_subslice, subslices_per_slice, slices;
  uint64_t timer_resolution;
  uint32_t timestamp_bits, kernel_timestamp_bits;
  uint8_t uuid[16];
  char name[256];
} ze_device_props;
typedef struct { /* zes_device_properties_t */
  uint32_t stype;
  void *next;
  ze_device_props core;
  uint32_t num_subdevices;
  char serial[64], board[64], brand[64], model[64], vendor[64], driver[64];
} zes_device_props;
typedef struct { /* zes_pci_properties_t */
  uint32_t stype;
  void *next;
  uint32_t domain, bus, device, function; /* zes_pci_address_t */
  int32_t gen, width;                     /* zes_pci_speed_t */
  int64_t max_bandwidth;
  ze_bool have_bandwidth, have_packets, have_replays;
} zes_pci_props;
typedef struct { /* zes_mem_properties_t */
  uint32_t stype;
  void *next;
  uint32_t type;
  ze_bool on_subdevice;
  uint32_t subdevice_id, location;
  uint64_t physical_size;
  int32_t bus_width, channels;
} zes_mem_props;
typedef struct { /* zes_mem_state_t */
  uint32_t stype;
  const void *next;
  uint32_t health;
  uint64_t free, size;
} zes_mem_state;
typedef struct { /* zes_engine_properties_t */
  uint32_t stype;
  void *next;
  uint32_t type;
  ze_bool on_subdevice;
  uint32_t subdevice_id;
} zes_engine_props;
typedef struct { /* zes_engine_stats_t: microseconds */
  uint64_t active_time, timestamp;
} zes_engine_stats;
typedef struct { /* zes_temp_properties_t */
  uint32_t stype;
  void *next;
  uint32_t type;
  ze_bool on_subdevice;
  uint32_t subdevice_id;
  double max_temperature;
  ze_bool critical, threshold1, threshold2;
} zes_temp_props;
typedef struct { /* zes_power_energy_counter_t: microjoules, microseconds */
  uint64_t energy, timestamp;
} zes_energy;
typedef struct { /* zes_freq_properties_t */
  uint32_t stype;
  void *next;
  uint32_t type;
  ze_bool on_subdevice;
  uint32_t subdevice_id;
  ze_bool can_control, throttle_events;
  double min, max;
} zes_freq_props;
typedef struct { /* zes_freq_state_t: MHz */
  uint32_t stype;
  const void *next;
  double voltage, request, tdp, efficient, actual;
  uint32_t throttle_reasons;
} zes_freq_state;

static struct {
  ze_ret (*init)(uint32_t);
  ze_ret (*driver_get)(uint32_t *, zes_h *);
  ze_ret (*device_get)(zes_h, uint32_t *, zes_h *);
  ze_ret (*device_props)(zes_h, zes_device_props *);
  ze_ret (*pci_props)(zes_h, zes_pci_props *);
  ze_ret (*enum_mem)(zes_h, uint32_t *, zes_h *);
  ze_ret (*mem_props)(zes_h, zes_mem_props *);
  ze_ret (*mem_state)(zes_h, zes_mem_state *);
  ze_ret (*enum_engines)(zes_h, uint32_t *, zes_h *);
  ze_ret (*engine_props)(zes_h, zes_engine_props *);
  ze_ret (*engine_activity)(zes_h, zes_engine_stats *);
  ze_ret (*enum_temps)(zes_h, uint32_t *, zes_h *);
  ze_ret (*temp_props)(zes_h, zes_temp_props *);
  ze_ret (*temp_state)(zes_h, double *);
  ze_ret (*card_power)(zes_h, zes_h *);
  ze_ret (*enum_power)(zes_h, uint32_t *, zes_h *);
  ze_ret (*energy)(zes_h, zes_energy *);
  ze_ret (*enum_freqs)(zes_h, uint32_t *, zes_h *);
  ze_ret (*freq_props)(zes_h, zes_freq_props *);
  ze_ret (*freq_state)(zes_h, zes_freq_state *);
  int n;
  struct l0dev {
    zes_h dev;
    /* previous counter samples, for rates */
    bool have_busy, have_energy;
    uint64_t busy_active, busy_time, energy, energy_time;
  } *devs;
} ze;

#define L0_MAX_HANDLES 64

static int l0_open(void *dl, char *detail, size_t cap) {
  VNCL_TM_SYM(dl, ze.init, "zesInit");
  VNCL_TM_SYM(dl, ze.driver_get, "zesDriverGet");
  VNCL_TM_SYM(dl, ze.device_get, "zesDeviceGet");
  VNCL_TM_SYM(dl, ze.device_props, "zesDeviceGetProperties");
  VNCL_TM_SYM(dl, ze.pci_props, "zesDevicePciGetProperties");
  VNCL_TM_SYM(dl, ze.enum_mem, "zesDeviceEnumMemoryModules");
  VNCL_TM_SYM(dl, ze.mem_props, "zesMemoryGetProperties");
  VNCL_TM_SYM(dl, ze.mem_state, "zesMemoryGetState");
  VNCL_TM_SYM(dl, ze.enum_engines, "zesDeviceEnumEngineGroups");
  VNCL_TM_SYM(dl, ze.engine_props, "zesEngineGetProperties");
  VNCL_TM_SYM(dl, ze.engine_activity, "zesEngineGetActivity");
  VNCL_TM_SYM(dl, ze.enum_temps, "zesDeviceEnumTemperatureSensors");
  VNCL_TM_SYM(dl, ze.temp_props, "zesTemperatureGetProperties");
  VNCL_TM_SYM(dl, ze.temp_state, "zesTemperatureGetState");
  VNCL_TM_SYM(dl, ze.card_power, "zesDeviceGetCardPowerDomain");
  VNCL_TM_SYM(dl, ze.enum_power, "zesDeviceEnumPowerDomains");
  VNCL_TM_SYM(dl, ze.energy, "zesPowerGetEnergyCounter");
  VNCL_TM_SYM(dl, ze.enum_freqs, "zesDeviceEnumFrequencyDomains");
  VNCL_TM_SYM(dl, ze.freq_props, "zesFrequencyGetProperties");
  VNCL_TM_SYM(dl, ze.freq_state, "zesFrequencyGetState");
  if (!ze.init || !ze.driver_get || !ze.device_get) {
    snprintf(detail, cap, "zesInit, zesDriverGet or zesDeviceGet missing "
             "(Level Zero loader older than 1.5?)");
    return -1;
  }
  ze_ret r = ze.init(0);
  if (r != 0) {
    snprintf(detail, cap, "zesInit failed: 0x%x", (unsigned)r);
    return -1;
  }
  uint32_t nd = 0;
  r = ze.driver_get(&nd, NULL);
  if (r != 0) {
    snprintf(detail, cap, "zesDriverGet failed: 0x%x", (unsigned)r);
    return -1;
  }
  if (nd > 16) nd = 16;
  zes_h drivers[16];
  if (nd && ze.driver_get(&nd, drivers) != 0) nd = 0;
  int cap_devs = 0;
  for (uint32_t i = 0; i < nd; i++) {
    uint32_t n = 0;
    if (ze.device_get(drivers[i], &n, NULL) != 0 || n == 0) continue;
    if (n > L0_MAX_HANDLES) n = L0_MAX_HANDLES;
    zes_h devs[L0_MAX_HANDLES];
    if (ze.device_get(drivers[i], &n, devs) != 0) continue;
    for (uint32_t k = 0; k < n; k++) {
      if (ze.n == cap_devs) {
        int nc = cap_devs ? cap_devs * 2 : 4;
        struct l0dev *nl = realloc(ze.devs, (size_t)nc * sizeof *nl);
        if (!nl) break;
        ze.devs = nl;
        cap_devs = nc;
      }
      memset(&ze.devs[ze.n], 0, sizeof ze.devs[ze.n]);
      ze.devs[ze.n++].dev = devs[k];
    }
  }
  return ze.n;
}

static void l0_describe(int i, vncl__tm_device *out) {
  memset(out, 0, sizeof *out);
  zes_h d = ze.devs[i].dev;
  zes_device_props *p = calloc(1, sizeof *p);
  if (p && ze.device_props) {
    p->stype = ZES_STYPE_DEVICE_PROPERTIES;
    p->core.stype = ZE_STYPE_DEVICE_PROPERTIES;
    if (ze.device_props(d, p) == 0) {
      p->core.name[sizeof p->core.name - 1] = '\0';
      vncl__strlcpy(out->name, p->core.name, sizeof out->name);
    }
  }
  free(p);
  zes_pci_props pci;
  memset(&pci, 0, sizeof pci);
  pci.stype = ZES_STYPE_PCI_PROPERTIES;
  if (ze.pci_props && ze.pci_props(d, &pci) == 0) {
    out->pci = (vncl__pci){true, true, true, pci.domain, pci.bus, pci.device,
                           pci.function};
  }
}

/* Handles of one kind for a device, at most L0_MAX_HANDLES. */
static uint32_t handles(ze_ret (*en)(zes_h, uint32_t *, zes_h *), zes_h d,
                        zes_h *out) {
  uint32_t n = 0;
  if (!en || en(d, &n, NULL) != 0) return 0;
  if (n > L0_MAX_HANDLES) n = L0_MAX_HANDLES;
  if (n && en(d, &n, out) != 0) return 0;
  return n;
}

static void l0_read(int i, vncl_telemetry *t) {
  struct l0dev *s = &ze.devs[i];
  zes_h d = s->dev, h[L0_MAX_HANDLES];
  uint32_t n;

  /* Memory: the device-local modules, summed over sub-devices. */
  uint64_t total = 0, fr = 0;
  bool any = false;
  n = ze.mem_state ? handles(ze.enum_mem, d, h) : 0;
  for (uint32_t k = 0; k < n; k++) {
    zes_mem_props p;
    memset(&p, 0, sizeof p);
    p.stype = ZES_STYPE_MEM_PROPERTIES;
    if (ze.mem_props && ze.mem_props(h[k], &p) == 0 &&
        p.location != ZES_MEM_LOC_DEVICE)
      continue;
    zes_mem_state st;
    memset(&st, 0, sizeof st);
    st.stype = ZES_STYPE_MEM_STATE;
    if (ze.mem_state(h[k], &st) != 0) continue;
    total += st.size;
    fr += st.free;
    any = true;
  }
  if (any && total) {
    t->memory_total_valid = t->memory_free_valid = 1;
    t->memory_total_bytes = total;
    t->memory_free_bytes = fr;
    t->memory_used_valid = 0; /* recomputed from total - free */
  }

  /* Utilization: the compute engine groups (else all engines), averaged,
   * from the activity counters since the previous call. */
  n = ze.engine_activity ? handles(ze.enum_engines, d, h) : 0;
  uint64_t act = 0, ts = 0;
  int used = 0;
  for (int pass = 0; pass < 2 && !used; pass++) {
    uint32_t want = pass ? ZES_ENGINE_GROUP_ALL : ZES_ENGINE_GROUP_COMPUTE_ALL;
    for (uint32_t k = 0; k < n; k++) {
      zes_engine_props p;
      memset(&p, 0, sizeof p);
      p.stype = ZES_STYPE_ENGINE_PROPERTIES;
      if (!ze.engine_props || ze.engine_props(h[k], &p) != 0 ||
          p.type != want)
        continue;
      zes_engine_stats st;
      if (ze.engine_activity(h[k], &st) != 0) continue;
      act += st.active_time;
      ts += st.timestamp;
      used++;
    }
  }
  if (used) {
    if (s->have_busy && ts > s->busy_time && act >= s->busy_active) {
      double pct = 100.0 * (double)(act - s->busy_active) /
                   (double)(ts - s->busy_time);
      t->utilization_valid = 1;
      t->utilization_percent = pct > 100 ? 100u : (unsigned)(pct + 0.5);
    }
    s->have_busy = true;
    s->busy_active = act;
    s->busy_time = ts;
  }

  /* Temperature: the hottest GPU sensor, else the global one. */
  n = ze.temp_state ? handles(ze.enum_temps, d, h) : 0;
  double best = -1e9;
  for (int pass = 0; pass < 2 && best < -1e8; pass++) {
    uint32_t want = pass ? ZES_TEMP_SENSORS_GLOBAL : ZES_TEMP_SENSORS_GPU;
    for (uint32_t k = 0; k < n; k++) {
      zes_temp_props p;
      memset(&p, 0, sizeof p);
      p.stype = ZES_STYPE_TEMP_PROPERTIES;
      if (!ze.temp_props || ze.temp_props(h[k], &p) != 0 || p.type != want)
        continue;
      double c = 0;
      if (ze.temp_state(h[k], &c) == 0 && c > best) best = c;
    }
  }
  if (best > -1e8) {
    t->temperature_valid = 1;
    t->temperature_c = best;
  }

  /* Power: the card's energy counter (else the first domain's), as a rate
   * since the previous call. */
  zes_h pw = NULL;
  if (ze.energy) {
    if (!ze.card_power || ze.card_power(d, &pw) != 0) pw = NULL;
    if (!pw && handles(ze.enum_power, d, h) > 0) pw = h[0];
  }
  zes_energy e;
  if (pw && ze.energy(pw, &e) == 0) {
    if (s->have_energy && e.timestamp > s->energy_time &&
        e.energy >= s->energy) {
      t->power_valid = 1;
      t->power_watts = (double)(e.energy - s->energy) /
                       (double)(e.timestamp - s->energy_time);
    }
    s->have_energy = true;
    s->energy = e.energy;
    s->energy_time = e.timestamp;
  }

  /* Clocks: the first GPU and memory frequency domains. */
  n = ze.freq_state ? handles(ze.enum_freqs, d, h) : 0;
  for (uint32_t k = 0; k < n; k++) {
    zes_freq_props p;
    memset(&p, 0, sizeof p);
    p.stype = ZES_STYPE_FREQ_PROPERTIES;
    if (!ze.freq_props || ze.freq_props(h[k], &p) != 0) continue;
    zes_freq_state st;
    memset(&st, 0, sizeof st);
    st.stype = ZES_STYPE_FREQ_STATE;
    if (ze.freq_state(h[k], &st) != 0 || st.actual <= 0) continue;
    if (p.type == ZES_FREQ_DOMAIN_GPU && !t->sm_clock_valid) {
      t->sm_clock_valid = 1;
      t->sm_clock_mhz = (unsigned)(st.actual + 0.5);
    } else if (p.type == ZES_FREQ_DOMAIN_MEMORY && !t->memory_clock_valid) {
      t->memory_clock_valid = 1;
      t->memory_clock_mhz = (unsigned)(st.actual + 0.5);
    }
  }
}

static const char *const l0_names[] = {"libze_loader.so.1", "libze_loader.so",
                                       NULL};

const vncl__tm_backend vncl__tm_l0 = {"level-zero", "VNCL_LEVEL_ZERO_LIBRARY",
                                      l0_names, l0_open, l0_describe, l0_read};
