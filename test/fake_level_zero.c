/* A stand-in for the Level Zero loader's Sysman entry points, built as
 * build/test/libfake_level_zero.so and selected with
 * VNCL_LEVEL_ZERO_LIBRARY. One driver with one device named FAKE_ZE_NAME,
 * PCI 0000:3a:00.0. Counters advance by a fixed step at every read, so the
 * rates vncl computes from two successive calls are exact: compute engines
 * 25 % busy, 90 W. Memory: one device module (24 GiB, 20 GiB free) and one
 * system module that must be ignored. Temperatures: global 40.0, GPU 58.25.
 * Clocks: GPU 1550 MHz, memory 3200 MHz. FAKE_ZE_FAIL_INIT=1 makes zesInit
 * fail. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int ze_result_t;
typedef uint8_t ze_bool_t;
enum {
  ZE_RESULT_SUCCESS = 0,
  ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001,
  ZE_RESULT_ERROR_INVALID_ARGUMENT = 0x78000004,
};

typedef struct {
  uint32_t stype;
  void *pNext;
  uint32_t type, vendorId, deviceId, flags, subdeviceId, coreClockRate;
  uint64_t maxMemAllocSize;
  uint32_t maxHardwareContexts, maxCommandQueuePriority, numThreadsPerEU,
      physicalEUSimdWidth, numEUsPerSubslice, numSubslicesPerSlice, numSlices;
  uint64_t timerResolution;
  uint32_t timestampValidBits, kernelTimestampValidBits;
  uint8_t uuid[16];
  char name[256];
} ze_device_properties_t;
typedef struct {
  uint32_t stype;
  void *pNext;
  ze_device_properties_t core;
  uint32_t numSubdevices;
  char serialNumber[64], boardNumber[64], brandName[64], modelName[64],
      vendorName[64], driverVersion[64];
} zes_device_properties_t;
typedef struct {
  uint32_t stype;
  void *pNext;
  uint32_t domain, bus, device, function;
  int32_t gen, width;
  int64_t maxBandwidth;
  ze_bool_t a, b, c;
} zes_pci_properties_t;
typedef struct {
  uint32_t stype;
  void *pNext;
  uint32_t type;
  ze_bool_t onSubdevice;
  uint32_t subdeviceId, location;
  uint64_t physicalSize;
  int32_t busWidth, numChannels;
} zes_mem_properties_t;
typedef struct {
  uint32_t stype;
  const void *pNext;
  uint32_t health;
  uint64_t free, size;
} zes_mem_state_t;
typedef struct {
  uint32_t stype;
  void *pNext;
  uint32_t type;
  ze_bool_t onSubdevice;
  uint32_t subdeviceId;
} zes_engine_properties_t;
typedef struct {
  uint64_t activeTime, timestamp;
} zes_engine_stats_t;
typedef struct {
  uint32_t stype;
  void *pNext;
  uint32_t type;
  ze_bool_t onSubdevice;
  uint32_t subdeviceId;
  double maxTemperature;
  ze_bool_t a, b, c;
} zes_temp_properties_t;
typedef struct {
  uint64_t energy, timestamp;
} zes_power_energy_counter_t;
typedef struct {
  uint32_t stype;
  void *pNext;
  uint32_t type;
  ze_bool_t onSubdevice;
  uint32_t subdeviceId;
  ze_bool_t canControl, isThrottleEventSupported;
  double min, max;
} zes_freq_properties_t;
typedef struct {
  uint32_t stype;
  const void *pNext;
  double currentVoltage, request, tdp, efficient, actual;
  uint32_t throttleReasons;
} zes_freq_state_t;

/* Handles are addresses of these objects. */
static int driver, device, mem[2], engine[2], temp[2], power, freq[2];
static int initialized;
static uint64_t busy_active, busy_ts, energy_uj, energy_ts;

ze_result_t zesInit(uint32_t flags) {
  (void)flags;
  const char *v = getenv("FAKE_ZE_FAIL_INIT");
  if (v && *v && strcmp(v, "0") != 0) return ZE_RESULT_ERROR_UNINITIALIZED;
  initialized = 1;
  return ZE_RESULT_SUCCESS;
}

/* Fills a handle list of `n` objects the way every zes enumerator does. */
static ze_result_t list(uint32_t *count, void **out, void *objs, size_t size,
                        uint32_t n) {
  if (!initialized) return ZE_RESULT_ERROR_UNINITIALIZED;
  if (!count) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  if (!out || *count == 0) {
    *count = n;
    return ZE_RESULT_SUCCESS;
  }
  if (*count > n) *count = n;
  for (uint32_t i = 0; i < *count; i++) out[i] = (char *)objs + i * size;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDriverGet(uint32_t *count, void **drivers) {
  return list(count, drivers, &driver, sizeof driver, 1);
}

ze_result_t zesDeviceGet(void *drv, uint32_t *count, void **devs) {
  if (drv != &driver) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  return list(count, devs, &device, sizeof device, 1);
}

ze_result_t zesDeviceGetProperties(void *dev, zes_device_properties_t *p) {
  if (dev != &device || p->stype != 0x1) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  const char *n = getenv("FAKE_ZE_NAME");
  snprintf(p->core.name, sizeof p->core.name, "%s", n ? n : "Fake Level Zero GPU");
  snprintf(p->modelName, sizeof p->modelName, "model");
  p->numSubdevices = 0;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDevicePciGetProperties(void *dev, zes_pci_properties_t *p) {
  if (dev != &device || p->stype != 0x2) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  p->domain = 0;
  p->bus = 0x3a;
  p->device = 0;
  p->function = 0;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDeviceEnumMemoryModules(void *dev, uint32_t *count, void **h) {
  if (dev != &device) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  return list(count, h, mem, sizeof mem[0], 2);
}

ze_result_t zesMemoryGetProperties(void *h, zes_mem_properties_t *p) {
  if (p->stype != 0xb) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  p->location = h == &mem[0] ? 1 /* device */ : 0 /* system */;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesMemoryGetState(void *h, zes_mem_state_t *s) {
  if (s->stype != 0x1e) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  s->health = 1;
  s->size = h == &mem[0] ? 24ull << 30 : 64ull << 30;
  s->free = h == &mem[0] ? 20ull << 30 : 60ull << 30;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDeviceEnumEngineGroups(void *dev, uint32_t *count, void **h) {
  if (dev != &device) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  return list(count, h, engine, sizeof engine[0], 2);
}

ze_result_t zesEngineGetProperties(void *h, zes_engine_properties_t *p) {
  if (p->stype != 0x5) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  p->type = h == &engine[0] ? 2 /* media: ignored */ : 1 /* compute all */;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesEngineGetActivity(void *h, zes_engine_stats_t *s) {
  if (h == &engine[0]) { /* a media engine, always busy: must be ignored */
    s->activeTime = s->timestamp = 5000000;
    return ZE_RESULT_SUCCESS;
  }
  busy_active += 250000;
  busy_ts += 1000000;
  s->activeTime = busy_active;
  s->timestamp = busy_ts;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDeviceEnumTemperatureSensors(void *dev, uint32_t *count,
                                            void **h) {
  if (dev != &device) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  return list(count, h, temp, sizeof temp[0], 2);
}

ze_result_t zesTemperatureGetProperties(void *h, zes_temp_properties_t *p) {
  if (p->stype != 0x14) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  p->type = h == &temp[0] ? 0 /* global */ : 1 /* GPU */;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesTemperatureGetState(void *h, double *c) {
  *c = h == &temp[0] ? 40.0 : 58.25;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDeviceGetCardPowerDomain(void *dev, void **h) {
  if (dev != &device) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  *h = &power;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesPowerGetEnergyCounter(void *h, zes_power_energy_counter_t *e) {
  if (h != &power) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  energy_uj += 90000000; /* 90 J per second */
  energy_ts += 1000000;
  e->energy = energy_uj;
  e->timestamp = energy_ts;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesDeviceEnumFrequencyDomains(void *dev, uint32_t *count,
                                          void **h) {
  if (dev != &device) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  return list(count, h, freq, sizeof freq[0], 2);
}

ze_result_t zesFrequencyGetProperties(void *h, zes_freq_properties_t *p) {
  if (p->stype != 0x9) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  p->type = h == &freq[0] ? 0 /* GPU */ : 1 /* memory */;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zesFrequencyGetState(void *h, zes_freq_state_t *s) {
  if (s->stype != 0x1b) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  s->actual = h == &freq[0] ? 1550.0 : 3200.0;
  return ZE_RESULT_SUCCESS;
}
