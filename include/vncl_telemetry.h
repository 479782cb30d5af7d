/* vncl telemetry API: included by vncl.h; see the conventions at the top of
 * vncl.h.
 *
 * Live device figures that OpenCL itself does not report (utilization,
 * memory in use, temperature, power, clocks), read from the vendor's
 * management library where one is installed:
 *
 *   NVML (NVIDIA)          libnvidia-ml.so.1      VNCL_NVML_LIBRARY
 *   ROCm SMI (AMD)         librocm_smi64.so       VNCL_ROCM_SMI_LIBRARY
 *   Level Zero Sysman      libze_loader.so.1      VNCL_LEVEL_ZERO_LIBRARY
 *   (Intel)
 *
 * The libraries are opened at run time with dlopen, once per process (on the
 * first telemetry call, never by vncl_context_create), so vncl depends on
 * none of them: a library that is missing, or that fails to initialise,
 * simply leaves its fields absent. Each variable above names the file to
 * open instead of the default search ("off" disables that library). A
 * vendor device is matched to an OpenCL device by PCI address where the
 * OpenCL driver reports one (cl_khr_pci_bus_info, cl_nv_device_attribute_query,
 * cl_amd_device_attribute_query), else by device name when the name is
 * unique on both sides. Without a vendor library, the AMD OpenCL extension
 * still gives free device memory (source "opencl"). docs/observability.md
 * describes what each library provides.
 *
 * Every figure has a `*_valid` flag: 0 means absent (not reported, not
 * supported, or no library), and the value is then 0. Absence is never an
 * error. */
#ifndef VNCL_TELEMETRY_H
#define VNCL_TELEMETRY_H

#ifdef __cplusplus
extern "C" {
#endif

/* One reading of one device. */
typedef struct vncl_telemetry {
  int device_index;    /* position in vncl's order; -1: a context's device
                          that is not in the list (interop) */
  char source[16];     /* who filled the live fields: "nvml", "rocm-smi",
                          "level-zero", "opencl" (driver extension only) or
                          "none" (no live telemetry for this device) */
  char matched_by[8];  /* how the vendor device was found: "pci", "name",
                          or "" when no vendor library matched */
  char vendor_device_name[256]; /* the name the vendor library reports */
  char pci_bus_id[32];          /* "DDDD:BB:DD.F" when known, else "" */

  int utilization_valid;
  unsigned utilization_percent;        /* time the device was busy, 0-100 */
  int memory_utilization_valid;
  unsigned memory_utilization_percent; /* memory controller busy, 0-100 */

  /* Device-wide memory (all processes), as the driver sees it. Total is
   * the vendor library's figure, else CL_DEVICE_GLOBAL_MEM_SIZE, so it is
   * valid for every device. Used = total - free where only one is given. */
  int memory_total_valid;
  uint64_t memory_total_bytes;
  int memory_used_valid;
  uint64_t memory_used_bytes;
  int memory_free_valid;
  uint64_t memory_free_bytes;

  int temperature_valid;
  double temperature_c;  /* device (GPU die / edge) temperature, Celsius */
  int power_valid;
  double power_watts;    /* board or package power draw */
  int sm_clock_valid;
  unsigned sm_clock_mhz;     /* current shader / graphics clock */
  int memory_clock_valid;
  unsigned memory_clock_mhz; /* current memory clock */
} vncl_telemetry;

/* Reads the device at position `device_index` of vncl's order (as
 * vncl_device_get_info). The first call opens the vendor libraries; later
 * calls only query. Errors: VNCL_ERR_INVALID_ARG (out NULL, index out of
 * range), VNCL_ERR_NO_DEVICE (no OpenCL device at all). A missing or failing
 * vendor library is not an error: the fields are absent. Thread-safe. */
VNCL_API vncl_status vncl_telemetry_get(int device_index, vncl_telemetry *out);

/* The same for the device of a context (also for interop contexts).
 * Errors: VNCL_ERR_INVALID_ARG (ctx or out NULL). Thread-safe. */
VNCL_API vncl_status vncl_telemetry_get_context(vncl_context *ctx,
                                                vncl_telemetry *out);

/* What the process found when it opened the vendor libraries. */
typedef struct vncl_telemetry_library {
  char name[16];     /* "nvml", "rocm-smi", "level-zero" */
  int loaded;        /* opened and initialised */
  int device_count;  /* devices the library reports (0 when not loaded) */
  char path[512];    /* the file opened, or the last one tried ("" if off) */
  char detail[256];  /* when loaded, e.g. "driver 550.54.15"; otherwise why
                        not: "not installed", "disabled by ...", "nvmlInit
                        failed: ..." */
} vncl_telemetry_library;

#define VNCL_TELEMETRY_LIBRARY_COUNT 3

/* Fills out[0 .. min(cap, VNCL_TELEMETRY_LIBRARY_COUNT) - 1], in the order
 * nvml, rocm-smi, level-zero, opening the libraries if that has not happened
 * yet; *count receives VNCL_TELEMETRY_LIBRARY_COUNT. Errors:
 * VNCL_ERR_INVALID_ARG (count NULL, or out NULL with cap > 0, cap < 0).
 * Thread-safe. */
VNCL_API vncl_status vncl_telemetry_libraries(vncl_telemetry_library *out,
                                              int cap, int *count);

#ifdef __cplusplus
}
#endif
#endif
