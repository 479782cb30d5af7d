/* Vendor telemetry: opens NVML / ROCm SMI / Level Zero Sysman with dlopen
 * once per process, matches their devices to vncl's OpenCL devices (PCI
 * address, else a unique name), and fills vncl_telemetry. The vendor calls
 * live in telemetry_nvml.c, telemetry_rocm.c and telemetry_l0.c. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "telemetry/telemetry.h"

#ifndef CL_DEVICE_PCI_BUS_INFO_KHR
#define CL_DEVICE_PCI_BUS_INFO_KHR 0x410F
#endif
#ifndef CL_DEVICE_PCI_BUS_ID_NV
#define CL_DEVICE_PCI_BUS_ID_NV 0x4008
#endif
#ifndef CL_DEVICE_PCI_SLOT_ID_NV
#define CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#endif
#ifndef CL_DEVICE_PCI_DOMAIN_ID_NV
#define CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#endif
#ifndef CL_DEVICE_TOPOLOGY_AMD
#define CL_DEVICE_TOPOLOGY_AMD 0x4037
#endif
#ifndef CL_DEVICE_GLOBAL_FREE_MEMORY_AMD
#define CL_DEVICE_GLOBAL_FREE_MEMORY_AMD 0x4039
#endif

/* Our own views of the two extension structures (layouts fixed by the
 * extensions' specifications). */
typedef struct {
  cl_uint domain, bus, device, function;
} khr_pci_bus_info;
typedef union {
  struct {
    cl_uint type;
    cl_uint data[5];
  } raw;
  struct {
    cl_uint type;
    cl_char unused[17];
    cl_char bus, device, function;
  } pcie;
} amd_topology;

void *vncl__tm_sym(void *dl, const char *name) {
  return dl ? dlsym(dl, name) : NULL;
}

void vncl__pci_format(const vncl__pci *p, char *out, size_t cap) {
  if (!p->known) {
    if (cap) out[0] = '\0';
    return;
  }
  snprintf(out, cap, "%04x:%02x:%02x.%x", p->domain_known ? p->domain : 0u,
           p->bus, p->device, p->function_known ? p->function : 0u);
}

/* ---- loading ------------------------------------------------------------ */

static const vncl__tm_backend *const backends[VNCL_TELEMETRY_LIBRARY_COUNT] = {
    &vncl__tm_nvml, &vncl__tm_rocm, &vncl__tm_l0};

typedef struct loaded {
  vncl_telemetry_library info;
  vncl__tm_device *devices; /* info.device_count entries */
} loaded;

static loaded g_libs[VNCL_TELEMETRY_LIBRARY_COUNT];
static pthread_once_t g_libs_once = PTHREAD_ONCE_INIT;
/* Serialises vendor reads (back ends keep state for rates; and not every
 * vendor library documents itself as thread-safe). */
static pthread_mutex_t g_read_lock = PTHREAD_MUTEX_INITIALIZER;

static void load_one(const vncl__tm_backend *b, loaded *l) {
  vncl_telemetry_library *inf = &l->info;
  vncl__strlcpy(inf->name, b->name, sizeof inf->name);
  const char *env = vncl__getenv(b->env);
  const char *one[2] = {env, NULL};
  const char *const *cands = env ? one : b->defaults;
  if (env && !strcasecmp(env, "off")) {
    snprintf(inf->detail, sizeof inf->detail, "disabled by %s=off", b->env);
    return;
  }
  void *dl = NULL;
  const char *why = NULL;
  for (int i = 0; cands[i] && !dl; i++) {
    vncl__strlcpy(inf->path, cands[i], sizeof inf->path);
    dl = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
    if (!dl) why = dlerror();
  }
  if (!dl) {
    if (env)
      snprintf(inf->detail, sizeof inf->detail, "cannot open %s=%s: %s",
               b->env, env, why ? why : "dlopen failed");
    else
      snprintf(inf->detail, sizeof inf->detail, "not installed");
    vncl__log(VNCL_LOG_DEBUG, "telemetry: %s: %s", b->name, inf->detail);
    return;
  }
  char detail[sizeof inf->detail] = "";
  int n = b->open(dl, detail, sizeof detail);
  vncl__strlcpy(inf->detail, detail, sizeof inf->detail);
  if (n < 0) {
    /* Keep the handle: a library may have started threads or registered
     * handlers during a failed init, and unloading it would be unsafe. */
    vncl__log(VNCL_LOG_INFO, "telemetry: %s (%s) not usable: %s", b->name,
              inf->path, detail);
    return;
  }
  if (n > 0) {
    l->devices = calloc((size_t)n, sizeof *l->devices);
    if (!l->devices) {
      snprintf(inf->detail, sizeof inf->detail, "out of host memory");
      return;
    }
    for (int i = 0; i < n; i++) b->describe(i, &l->devices[i]);
  }
  inf->loaded = 1;
  inf->device_count = n;
  vncl__log(VNCL_LOG_INFO, "telemetry: %s loaded from %s, %d device(s)%s%s",
            b->name, inf->path, n, detail[0] ? ", " : "", detail);
}

static void load_all(void) {
  for (int i = 0; i < VNCL_TELEMETRY_LIBRARY_COUNT; i++)
    load_one(backends[i], &g_libs[i]);
}

vncl_status vncl_telemetry_libraries(vncl_telemetry_library *out, int cap,
                                     int *count) {
  if (!count) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "count is NULL");
  if (cap < 0 || (cap > 0 && !out))
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "out is NULL or cap (%d) is negative", cap);
  pthread_once(&g_libs_once, load_all);
  for (int i = 0; i < cap && i < VNCL_TELEMETRY_LIBRARY_COUNT; i++)
    out[i] = g_libs[i].info;
  *count = VNCL_TELEMETRY_LIBRARY_COUNT;
  return VNCL_OK;
}

/* ---- the OpenCL side ------------------------------------------------------ */

static bool has_ext(cl_device_id d, const char *ext) {
  size_t n = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &n) != CL_SUCCESS ||
      n == 0)
    return false;
  char *s = malloc(n + 1);
  if (!s) return false;
  bool found = false;
  if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, n, s, NULL) == CL_SUCCESS) {
    s[n] = '\0';
    size_t el = strlen(ext);
    for (char *p = s; (p = strstr(p, ext)) != NULL; p += el)
      if ((p == s || p[-1] == ' ') && (p[el] == '\0' || p[el] == ' ')) {
        found = true;
        break;
      }
  }
  free(s);
  return found;
}

/* The device's PCI address from whichever extension the driver offers. */
static void cl_pci(cl_device_id d, vncl__pci *p) {
  memset(p, 0, sizeof *p);
  if (has_ext(d, "cl_khr_pci_bus_info")) {
    khr_pci_bus_info k;
    if (clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof k, &k, NULL) ==
        CL_SUCCESS) {
      *p = (vncl__pci){true, true, true, k.domain, k.bus, k.device,
                       k.function};
      return;
    }
  }
  if (has_ext(d, "cl_nv_device_attribute_query")) {
    cl_uint bus = 0, slot = 0, dom = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_ID_NV, sizeof bus, &bus, NULL) ==
            CL_SUCCESS &&
        clGetDeviceInfo(d, CL_DEVICE_PCI_SLOT_ID_NV, sizeof slot, &slot,
                        NULL) == CL_SUCCESS) {
      /* The slot id is the PCI devfn: device << 3 | function. The domain
       * query exists only in newer drivers. */
      p->known = p->function_known = true;
      p->bus = bus & 0xff;
      p->device = (slot >> 3) & 0x1f;
      p->function = slot & 7;
      if (clGetDeviceInfo(d, CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof dom, &dom,
                          NULL) == CL_SUCCESS) {
        p->domain_known = true;
        p->domain = dom;
      }
      return;
    }
  }
  if (has_ext(d, "cl_amd_device_attribute_query")) {
    amd_topology t;
    memset(&t, 0, sizeof t);
    if (clGetDeviceInfo(d, CL_DEVICE_TOPOLOGY_AMD, sizeof t, &t, NULL) ==
            CL_SUCCESS &&
        t.raw.type == 1 /* CL_DEVICE_TOPOLOGY_TYPE_PCIE_AMD */) {
      p->known = p->function_known = true;
      p->bus = (unsigned char)t.pcie.bus;
      p->device = (unsigned char)t.pcie.device;
      p->function = (unsigned char)t.pcie.function;
    }
  }
}

/* Free device memory through cl_amd_device_attribute_query: size_t values
 * in KiB, the first being the total free memory. */
static bool cl_free_memory(cl_device_id d, uint64_t *out) {
  if (!has_ext(d, "cl_amd_device_attribute_query")) return false;
  size_t n = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_GLOBAL_FREE_MEMORY_AMD, 0, NULL, &n) !=
          CL_SUCCESS ||
      n < sizeof(size_t))
    return false;
  size_t v[8] = {0};
  if (n > sizeof v) n = sizeof v;
  if (clGetDeviceInfo(d, CL_DEVICE_GLOBAL_FREE_MEMORY_AMD, n, v, NULL) !=
      CL_SUCCESS)
    return false;
  *out = (uint64_t)v[0] * 1024u;
  return true;
}

/* ---- matching ------------------------------------------------------------- */

typedef struct match {
  int lib;  /* index into g_libs, -1: none */
  int dev;  /* device index within the library */
  const char *by; /* "pci", "name" */
} match;

/* Names compare equal ignoring case and surrounding/double spaces. */
static bool same_name(const char *a, const char *b) {
  while (isspace((unsigned char)*a)) a++;
  while (isspace((unsigned char)*b)) b++;
  if (!*a || !*b) return false;
  while (*a && *b) {
    if (isspace((unsigned char)*a) && isspace((unsigned char)*b)) {
      while (isspace((unsigned char)*a)) a++;
      while (isspace((unsigned char)*b)) b++;
      continue;
    }
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
    a++;
    b++;
  }
  while (isspace((unsigned char)*a)) a++;
  while (isspace((unsigned char)*b)) b++;
  return !*a && !*b;
}

static bool pci_equal(const vncl__pci *a, const vncl__pci *b) {
  if (!a->known || !b->known) return false;
  if (a->bus != b->bus || a->device != b->device) return false;
  if (a->domain_known && b->domain_known && a->domain != b->domain)
    return false;
  return true;
}

static bool name_matches(const vncl_device_info *info, const char *vname) {
  return same_name(info->name, vname) ||
         (info->amd_board_name[0] && same_name(info->amd_board_name, vname));
}

/* Finds the vendor device for one OpenCL device. `all` lists every OpenCL
 * device (to tell whether a name is unique). */
static match find_match(const vncl_device_info *info, const vncl__pci *pci,
                        const vncl__device *all, int nall) {
  match m = {-1, -1, NULL};
  int found = 0;
  if (pci->known) {
    /* By PCI address. The function number is compared only to settle a
     * tie (ROCm SMI may keep a partition id there). */
    match c[8];
    int nc = 0;
    for (int l = 0; l < VNCL_TELEMETRY_LIBRARY_COUNT; l++)
      for (int i = 0; i < g_libs[l].info.device_count; i++)
        if (pci_equal(pci, &g_libs[l].devices[i].pci) && nc < 8)
          c[nc++] = (match){l, i, "pci"};
    if (nc > 1 && pci->function_known) {
      int k = 0;
      for (int i = 0; i < nc; i++) {
        const vncl__pci *v = &g_libs[c[i].lib].devices[c[i].dev].pci;
        if (!v->function_known || v->function == pci->function) c[k++] = c[i];
      }
      nc = k;
    }
    if (nc == 1) return c[0];
    if (nc > 1) return m; /* ambiguous: better absent than wrong */
  }
  /* By name: the name must be unique among the OpenCL devices and among
   * the vendor devices that could be this one (those without a PCI address
   * when the OpenCL side has one). */
  int same = 0;
  for (int i = 0; i < nall; i++)
    if (same_name(all[i].info.name, info->name)) same++;
  if (same > 1) return m;
  for (int l = 0; l < VNCL_TELEMETRY_LIBRARY_COUNT; l++)
    for (int i = 0; i < g_libs[l].info.device_count; i++) {
      const vncl__tm_device *v = &g_libs[l].devices[i];
      if (pci->known && v->pci.known) continue;
      if (name_matches(info, v->name)) {
        found++;
        m = (match){l, i, "name"};
      }
    }
  if (found != 1) m = (match){-1, -1, NULL};
  return m;
}

/* Per listed device: its PCI address and its match, computed once. */
typedef struct mapped {
  vncl__pci pci;
  match m;
} mapped;
static mapped *g_map;
static int g_map_count;
static pthread_once_t g_map_once = PTHREAD_ONCE_INIT;

static void map_all(void) {
  pthread_once(&g_libs_once, load_all);
  const vncl__device *l = NULL;
  int n = 0;
  if (vncl__devices(&l, &n) != VNCL_OK || n == 0) return;
  g_map = calloc((size_t)n, sizeof *g_map);
  if (!g_map) return;
  for (int i = 0; i < n; i++) {
    cl_pci(l[i].device, &g_map[i].pci);
    g_map[i].m = find_match(&l[i].info, &g_map[i].pci, l, n);
    if (g_map[i].m.lib >= 0)
      vncl__log(VNCL_LOG_INFO, "telemetry: device %d (%s) is %s device %d "
                "(%s), matched by %s", i, l[i].info.name,
                g_libs[g_map[i].m.lib].info.name, g_map[i].m.dev,
                g_libs[g_map[i].m.lib].devices[g_map[i].m.dev].name,
                g_map[i].m.by);
  }
  g_map_count = n;
}

/* ---- reading ----------------------------------------------------------------- */

static void fill(cl_device_id d, const vncl_device_info *info,
                 const vncl__pci *pci, match m, int index,
                 vncl_telemetry *t) {
  memset(t, 0, sizeof *t);
  t->device_index = index;
  vncl__strlcpy(t->source, "none", sizeof t->source);
  vncl__pci_format(pci, t->pci_bus_id, sizeof t->pci_bus_id);
  if (info->global_mem_bytes) {
    t->memory_total_valid = 1;
    t->memory_total_bytes = info->global_mem_bytes;
  }
  uint64_t fr = 0;
  if (cl_free_memory(d, &fr)) {
    vncl__strlcpy(t->source, "opencl", sizeof t->source);
    t->memory_free_valid = 1;
    t->memory_free_bytes = fr;
  }
  if (m.lib >= 0) {
    const loaded *l = &g_libs[m.lib];
    const vncl__tm_device *v = &l->devices[m.dev];
    vncl__strlcpy(t->source, l->info.name, sizeof t->source);
    vncl__strlcpy(t->matched_by, m.by, sizeof t->matched_by);
    vncl__strlcpy(t->vendor_device_name, v->name,
                  sizeof t->vendor_device_name);
    if (!pci->known) vncl__pci_format(&v->pci, t->pci_bus_id,
                                      sizeof t->pci_bus_id);
    pthread_mutex_lock(&g_read_lock);
    backends[m.lib]->read(m.dev, t);
    pthread_mutex_unlock(&g_read_lock);
  }
  /* One of used/free from the other and the total. */
  if (t->memory_total_valid && t->memory_free_valid && !t->memory_used_valid &&
      t->memory_free_bytes <= t->memory_total_bytes) {
    t->memory_used_valid = 1;
    t->memory_used_bytes = t->memory_total_bytes - t->memory_free_bytes;
  }
  if (t->memory_total_valid && t->memory_used_valid && !t->memory_free_valid &&
      t->memory_used_bytes <= t->memory_total_bytes) {
    t->memory_free_valid = 1;
    t->memory_free_bytes = t->memory_total_bytes - t->memory_used_bytes;
  }
}

vncl_status vncl_telemetry_get(int device_index, vncl_telemetry *out) {
  if (!out) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "out is NULL");
  const vncl__device *l = NULL;
  int n = 0;
  vncl_status s = vncl__devices(&l, &n);
  if (s) return s;
  if (device_index < 0 || device_index >= n)
    return vncl__fail(NULL, VNCL_ERR_INVALID_ARG,
                      "device index %d out of range (%d devices)",
                      device_index, n);
  pthread_once(&g_map_once, map_all);
  vncl_telemetry t;
  if (g_map && device_index < g_map_count)
    fill(l[device_index].device, &l[device_index].info,
         &g_map[device_index].pci, g_map[device_index].m, device_index, &t);
  else {
    vncl__pci none;
    memset(&none, 0, sizeof none);
    fill(l[device_index].device, &l[device_index].info, &none,
         (match){-1, -1, NULL}, device_index, &t);
  }
  *out = t;
  return VNCL_OK;
}

vncl_status vncl_telemetry_get_context(vncl_context *ctx,
                                       vncl_telemetry *out) {
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "ctx is NULL");
  if (!out) return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "out is NULL");
  const vncl__device *l = NULL;
  int n = 0;
  if (vncl__devices(&l, &n) == VNCL_OK) {
    for (int i = 0; i < n; i++)
      if (l[i].device == ctx->device) return vncl_telemetry_get(i, out);
  } else {
    vncl__clear_error(NULL);
    l = NULL;
    n = 0;
  }
  /* An interop device that the loader's list does not hold: match it on
   * the spot. */
  pthread_once(&g_libs_once, load_all);
  vncl__pci pci;
  cl_pci(ctx->device, &pci);
  match m = find_match(&ctx->info, &pci, l, n);
  vncl_telemetry t;
  fill(ctx->device, &ctx->info, &pci, m, -1, &t);
  *out = t;
  return VNCL_OK;
}
