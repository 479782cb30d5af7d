/* A stand-in for libnvidia-ml, built as build/test/libfake_nvml.so and
 * selected with VNCL_NVML_LIBRARY, so that test_telemetry exercises vncl's
 * loaded NVML path on a machine without an NVIDIA GPU. It reports two
 * devices with fixed readings:
 *   0  "Fake NVML Other GPU", PCI 0000:17:00.0 (never matches PoCL)
 *   1  the name in FAKE_NVML_NAME (the test passes the PoCL device's name),
 *      PCI 0000:42:00.0, with the readings listed in FAKE1_* below.
 * FAKE_NVML_FAIL_INIT=1 makes nvmlInit_v2 fail (NVML_ERROR_DRIVER_NOT_LOADED);
 * FAKE_NVML_NO_POWER=1 makes power reading unsupported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_dev *nvmlDevice_t;
typedef struct {
  unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
};

struct fake_dev {
  const char *name;
  unsigned bus;
  unsigned util_gpu, util_mem;
  unsigned long long total, free;
  unsigned temp, power_mw, sm_mhz, mem_mhz;
};

/* The values test_telemetry checks. */
static struct fake_dev devs[2] = {
    {"Fake NVML Other GPU", 0x17, 99, 98, 8ull << 30, 1ull << 30, 90, 300000,
     2000, 3000},
    {NULL, 0x42, 37, 12, 16ull << 30, 10ull << 30, 55, 123456, 1410, 1215},
};
static int initialized;

static int env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

nvmlReturn_t nvmlInit_v2(void) {
  if (env_on("FAKE_NVML_FAIL_INIT")) return NVML_ERROR_DRIVER_NOT_LOADED;
  const char *n = getenv("FAKE_NVML_NAME");
  devs[1].name = n ? n : "Fake NVML Matching GPU";
  initialized = 1;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  initialized = 0;
  return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int len) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  snprintf(v, len, "999.99.fake");
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  *n = 2;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (i >= 2 || !d) return NVML_ERROR_INVALID_ARGUMENT;
  *d = &devs[i];
  return NVML_SUCCESS;
}

static int valid(nvmlDevice_t d) {
  return initialized && (d == &devs[0] || d == &devs[1]);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len) {
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
  snprintf(name, len, "%s", d->name);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) {
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
  memset(p, 0, sizeof *p);
  p->domain = 0;
  p->bus = d->bus;
  p->device = 0;
  snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02x:00.0", d->bus);
  snprintf(p->busId, sizeof p->busId, "00000000:%02x:00.0", d->bus);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d,
                                           nvmlUtilization_t *u) {
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
  u->gpu = d->util_gpu;
  u->memory = d->util_mem;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
  m->total = d->total;
  m->free = d->free;
  m->used = d->total - d->free;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor,
                                      unsigned int *t) {
  if (!valid(d) || sensor != 0) return NVML_ERROR_INVALID_ARGUMENT;
  *t = d->temp;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw) {
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
  if (env_on("FAKE_NVML_NO_POWER")) return NVML_ERROR_NOT_SUPPORTED;
  *mw = d->power_mw;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type,
                                    unsigned int *mhz) {
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
  if (type == 1) *mhz = d->sm_mhz;      /* NVML_CLOCK_SM */
  else if (type == 2) *mhz = d->mem_mhz; /* NVML_CLOCK_MEM */
  else return NVML_ERROR_NOT_SUPPORTED;
  return NVML_SUCCESS;
}
