/* NVIDIA telemetry through NVML (libnvidia-ml), opened with dlopen. The
 * declarations below are written from NVML's public API reference; vncl
 * never includes nvml.h nor links the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/telemetry.h"

typedef int nvml_ret;          /* nvmlReturn_t; 0 is NVML_SUCCESS */
typedef struct nvml_dev_ *nvml_dev; /* nvmlDevice_t, an opaque handle */

/* nvmlUtilization_t */
typedef struct {
  unsigned int gpu, memory;
} nvml_utilization;
/* nvmlMemory_t (version 1): bytes */
typedef struct {
  unsigned long long total, free, used;
} nvml_memory;
/* nvmlPciInfo_t as of the _v3 call. Versions 1 to 3 all put domain, bus
 * and device at the same offsets after a 16-byte bus id string, which is
 * all we read; the buffer is large enough for every version. */
typedef struct {
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
  char spare[64];
} nvml_pci;

enum {
  NVML_TEMPERATURE_GPU = 0,
  NVML_CLOCK_SM = 1,
  NVML_CLOCK_MEM = 2,
};

static struct {
  nvml_ret (*init)(void);
  const char *(*error_string)(nvml_ret);
  nvml_ret (*count)(unsigned int *);
  nvml_ret (*handle)(unsigned int, nvml_dev *);
  nvml_ret (*name)(nvml_dev, char *, unsigned int);
  nvml_ret (*pci)(nvml_dev, nvml_pci *);
  nvml_ret (*utilization)(nvml_dev, nvml_utilization *);
  nvml_ret (*memory)(nvml_dev, nvml_memory *);
  nvml_ret (*temperature)(nvml_dev, int, unsigned int *);
  nvml_ret (*power)(nvml_dev, unsigned int *);
  nvml_ret (*clock)(nvml_dev, int, unsigned int *);
  nvml_ret (*driver_version)(char *, unsigned int);
  nvml_dev *devs;
  int n;
} nv;

static const char *err(nvml_ret r) {
  const char *s = nv.error_string ? nv.error_string(r) : NULL;
  return s ? s : "unknown error";
}

static int nvml_open(void *dl, char *detail, size_t cap) {
  /* Versioned entry points first (the unversioned ones are the old ABI). */
  if (!VNCL_TM_SYM(dl, nv.init, "nvmlInit_v2"))
    VNCL_TM_SYM(dl, nv.init, "nvmlInit");
  if (!VNCL_TM_SYM(dl, nv.count, "nvmlDeviceGetCount_v2"))
    VNCL_TM_SYM(dl, nv.count, "nvmlDeviceGetCount");
  if (!VNCL_TM_SYM(dl, nv.handle, "nvmlDeviceGetHandleByIndex_v2"))
    VNCL_TM_SYM(dl, nv.handle, "nvmlDeviceGetHandleByIndex");
  if (!VNCL_TM_SYM(dl, nv.pci, "nvmlDeviceGetPciInfo_v3") &&
      !VNCL_TM_SYM(dl, nv.pci, "nvmlDeviceGetPciInfo_v2"))
    VNCL_TM_SYM(dl, nv.pci, "nvmlDeviceGetPciInfo");
  VNCL_TM_SYM(dl, nv.error_string, "nvmlErrorString");
  VNCL_TM_SYM(dl, nv.name, "nvmlDeviceGetName");
  VNCL_TM_SYM(dl, nv.utilization, "nvmlDeviceGetUtilizationRates");
  VNCL_TM_SYM(dl, nv.memory, "nvmlDeviceGetMemoryInfo");
  VNCL_TM_SYM(dl, nv.temperature, "nvmlDeviceGetTemperature");
  VNCL_TM_SYM(dl, nv.power, "nvmlDeviceGetPowerUsage");
  VNCL_TM_SYM(dl, nv.clock, "nvmlDeviceGetClockInfo");
  VNCL_TM_SYM(dl, nv.driver_version, "nvmlSystemGetDriverVersion");
  if (!nv.init || !nv.count || !nv.handle) {
    snprintf(detail, cap, "not an NVML library (nvmlInit_v2, "
             "nvmlDeviceGetCount_v2 or nvmlDeviceGetHandleByIndex_v2 missing)");
    return -1;
  }
  nvml_ret r = nv.init();
  if (r != 0) {
    snprintf(detail, cap, "nvmlInit_v2 failed: %s (%d)", err(r), r);
    return -1;
  }
  unsigned int n = 0;
  r = nv.count(&n);
  if (r != 0) {
    snprintf(detail, cap, "nvmlDeviceGetCount_v2 failed: %s (%d)", err(r), r);
    return -1;
  }
  if (n > 4096) n = 4096;
  nv.devs = calloc(n ? n : 1, sizeof *nv.devs);
  if (!nv.devs) {
    snprintf(detail, cap, "out of host memory");
    return -1;
  }
  nv.n = (int)n;
  for (unsigned int i = 0; i < n; i++)
    if (nv.handle(i, &nv.devs[i]) != 0) nv.devs[i] = NULL;
  char ver[96] = "";
  if (nv.driver_version && nv.driver_version(ver, sizeof ver) == 0 && ver[0])
    snprintf(detail, cap, "driver %.80s", ver);
  return nv.n;
}

static void nvml_describe(int i, vncl__tm_device *out) {
  memset(out, 0, sizeof *out);
  nvml_dev d = nv.devs[i];
  if (!d) return;
  if (nv.name && nv.name(d, out->name, (unsigned)sizeof out->name) != 0)
    out->name[0] = '\0';
  out->name[sizeof out->name - 1] = '\0';
  nvml_pci p;
  memset(&p, 0, sizeof p);
  if (nv.pci && nv.pci(d, &p) == 0) {
    out->pci.known = out->pci.domain_known = true;
    out->pci.domain = p.domain;
    out->pci.bus = p.bus;
    out->pci.device = p.device;
    /* The function number is only in the bus id string. */
    const char *dot = strrchr(p.bus_id_legacy, '.');
    if (dot && dot[1] >= '0' && dot[1] <= '7') {
      out->pci.function_known = true;
      out->pci.function = (unsigned)(dot[1] - '0');
    }
  }
}

static void nvml_read(int i, vncl_telemetry *t) {
  nvml_dev d = nv.devs[i];
  if (!d) return;
  nvml_utilization u;
  if (nv.utilization && nv.utilization(d, &u) == 0) {
    t->utilization_valid = t->memory_utilization_valid = 1;
    t->utilization_percent = u.gpu;
    t->memory_utilization_percent = u.memory;
  }
  nvml_memory m;
  if (nv.memory && nv.memory(d, &m) == 0) {
    t->memory_total_valid = t->memory_used_valid = t->memory_free_valid = 1;
    t->memory_total_bytes = m.total;
    t->memory_used_bytes = m.used;
    t->memory_free_bytes = m.free;
  }
  unsigned int v = 0;
  if (nv.temperature && nv.temperature(d, NVML_TEMPERATURE_GPU, &v) == 0) {
    t->temperature_valid = 1;
    t->temperature_c = v;
  }
  if (nv.power && nv.power(d, &v) == 0) { /* milliwatts */
    t->power_valid = 1;
    t->power_watts = v / 1000.0;
  }
  if (nv.clock && nv.clock(d, NVML_CLOCK_SM, &v) == 0) {
    t->sm_clock_valid = 1;
    t->sm_clock_mhz = v;
  }
  if (nv.clock && nv.clock(d, NVML_CLOCK_MEM, &v) == 0) {
    t->memory_clock_valid = 1;
    t->memory_clock_mhz = v;
  }
}

static const char *const nvml_names[] = {"libnvidia-ml.so.1",
                                         "libnvidia-ml.so", NULL};

const vncl__tm_backend vncl__tm_nvml = {
    "nvml", "VNCL_NVML_LIBRARY", nvml_names, nvml_open, nvml_describe,
    nvml_read};
