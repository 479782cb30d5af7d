/* Between lib/telemetry.c (loading, matching, the public calls) and the
 * vendor back ends lib/telemetry_nvml.c, telemetry_rocm.c, telemetry_l0.c.
 * Each back end declares the vendor library's functions itself (from the
 * vendor's public documentation), resolves them with dlsym and never links
 * against the library. */
#ifndef VNCL_TELEMETRY_INTERNAL_H
#define VNCL_TELEMETRY_INTERNAL_H

#include <string.h>

#include "runtime/runtime.h"

/* A PCI address; fields are valid only where the flags say so. */
typedef struct vncl__pci {
  bool known;        /* bus and device are known */
  bool domain_known;
  bool function_known;
  unsigned domain, bus, device, function;
} vncl__pci;

/* One device as a vendor library lists it. */
typedef struct vncl__tm_device {
  char name[256];
  vncl__pci pci;
} vncl__tm_device;

typedef struct vncl__tm_backend {
  const char *name;     /* "nvml" */
  const char *env;      /* "VNCL_NVML_LIBRARY" */
  const char *const *defaults; /* file names to try, NULL-terminated */
  /* Resolves the symbols in `dl` (from dlopen) and initialises the library.
   * Returns the number of devices (>= 0), or -1 with `detail` saying why it
   * cannot be used; on success `detail` may carry version information.
   * Called once, under the loader's pthread_once. */
  int (*open)(void *dl, char *detail, size_t cap);
  /* Describes device i (0 <= i < the count open returned). */
  void (*describe)(int i, vncl__tm_device *out);
  /* Fills the live fields of *out it can read for device i and sets their
   * _valid flags; leaves the rest alone. Called with the telemetry lock
   * held, so back ends may keep state between calls (for rates). */
  void (*read)(int i, vncl_telemetry *out);
} vncl__tm_backend;

extern const vncl__tm_backend vncl__tm_nvml;
extern const vncl__tm_backend vncl__tm_rocm;
extern const vncl__tm_backend vncl__tm_l0;

/* dlsym into a function pointer (copied, so that no object-to-function
 * pointer conversion is needed; POSIX gives both the same size). Evaluates
 * to true when the symbol exists. */
void *vncl__tm_sym(void *dl, const char *name);
static inline bool vncl__tm_bind(void *dl, const char *name, void *dst,
                                 size_t n) {
  void *p = vncl__tm_sym(dl, name);
  memcpy(dst, &p, n < sizeof p ? n : sizeof p);
  return p != NULL;
}
#define VNCL_TM_SYM(dl, var, name) \
  vncl__tm_bind((dl), (name), (void *)&(var), sizeof(var))

/* Formats "DDDD:BB:DD.F" (function 0 when unknown); "" when !known. */
void vncl__pci_format(const vncl__pci *p, char *out, size_t cap);

#endif
