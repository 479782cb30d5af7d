/* The CPU BLAS every non-Level-3 routine (and every Level-3 call that stays
 * on the host) is forwarded to: loaded with dlopen by path, never through
 * the libblas.so.3 alternative, which may point at this library. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "blas_internal.h"

#ifndef VB_MULTIARCH
#define VB_MULTIARCH "x86_64-linux-gnu"
#endif

/* Searched in order when VNCL_BLAS_CPU_LIBRARY names none (or one that
 * cannot serve): Debian's OpenBLAS builds, BLIS, then the reference BLAS. */
static const char *const default_candidates[] = {
    "/usr/lib/" VB_MULTIARCH "/openblas-pthread/libblas.so.3",
    "/usr/lib/" VB_MULTIARCH "/openblas-openmp/libblas.so.3",
    "/usr/lib/" VB_MULTIARCH "/openblas-serial/libblas.so.3",
    "/usr/lib/" VB_MULTIARCH "/blis-pthread/libblas.so.3",
    "/usr/lib/" VB_MULTIARCH "/blis-openmp/libblas.so.3",
    "/usr/lib/" VB_MULTIARCH "/blis-serial/libblas.so.3",
    "/usr/lib/" VB_MULTIARCH "/blas/libblas.so.3",
};

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
static void *cpu_table[VB_CPU_COUNT];
static char cpu_loaded_path[1024];
static int cpu_missing_reported;

/* Opens one candidate; keeps it when it is not this library and has every
 * symbol of the table. */
static int try_candidate(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    vb_warn("blas: CPU BLAS %s: %s", path, dlerror());
    return 0;
  }
  void *self = (void *)&sgemm_;
  if (dlsym(h, "sgemm_") == self) {
    vb_warn("blas: CPU BLAS %s is this library itself: skipped", path);
    dlclose(h);
    return 0;
  }
  void *tab[VB_CPU_COUNT];
  for (int i = 0; i < VB_CPU_COUNT; i++) {
    tab[i] = dlsym(h, vb_cpu_names[i]);
    if (!tab[i]) {
      vb_warn("blas: CPU BLAS %s lacks %s: skipped", path, vb_cpu_names[i]);
      dlclose(h);
      return 0;
    }
  }
  memcpy(cpu_table, tab, sizeof tab);
  snprintf(cpu_loaded_path, sizeof cpu_loaded_path, "%s", path);
  return 1; /* the handle stays open for the life of the process */
}

static void cpu_load(void) {
  const vb_settings *s = vb_settings_get();
  if (s->cpu_library[0] && try_candidate(s->cpu_library)) return;
  for (size_t i = 0; i < sizeof default_candidates / sizeof *default_candidates;
       i++)
    if (try_candidate(default_candidates[i])) return;
}

void *vb_cpu_fn(int slot) {
  pthread_once(&cpu_once, cpu_load);
  if (!cpu_loaded_path[0]) {
    if (!__atomic_exchange_n(&cpu_missing_reported, 1, __ATOMIC_RELAXED))
      fprintf(stderr,
              "vncl-blas: no CPU BLAS could be loaded (OpenBLAS, BLIS or the "
              "reference BLAS under /usr/lib/%s); set VNCL_BLAS_CPU_LIBRARY "
              "to one. BLAS calls do nothing.\n",
              VB_MULTIARCH);
    return NULL;
  }
  return cpu_table[slot];
}

const char *vb_cpu_path(void) {
  pthread_once(&cpu_once, cpu_load);
  return cpu_loaded_path;
}
