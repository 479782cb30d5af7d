/* PoCL's worker threads: pinned by vncl where that is safe.
 *
 * PoCL's CPU device runs kernels on one worker thread per compute unit,
 * left to the operating system unless POCL_AFFINITY=1 pins worker i to
 * CPU i. Left alone, Linux often wakes both workers of a 2-core guest onto
 * one CPU and leaves one waiting there for most of a product while the
 * other CPU idles (docs/portability.md, "PoCL's worker threads"): dgemm
 * 512^3 ran 0.78-0.79x OpenBLAS unpinned and 0.94-1.03x pinned, sgemm
 * 256^3 queued 0.67-0.72x against 1.09-1.14x, FFTs up to 2x. Back-to-back
 * calls of 32^3-64^3 lose 1-2.5 us a call pinned.
 *
 * PoCL reads the variable when the ICD loader first starts it, so the
 * choice is made here, once, before vncl's first clGetPlatformIDs, and
 * the variable removed again once discovery is over
 * (vncl__pocl_affinity_restore: PoCL 3.1's workers stay pinned, and no
 * child process inherits a setting made for this one; test_device checks
 * that the workers are pinned). Only where it cannot surprise anyone:
 *   - VNCL_POCL_AFFINITY is not 0 (the user's way out);
 *   - POCL_AFFINITY and POCL_CPU_MAX_CU_NUM are unset (the user decided,
 *     or asked for a number of workers that CPU i need not exist for);
 *   - this process may run on every online CPU, and they are 0 to n-1:
 *     PoCL 3.1 pins worker i to CPU i whatever the process's mask (a
 *     `taskset -c 1` process had its worker 0 moved to CPU 0; where a
 *     cpuset forbids the CPU, PoCL treats the failure as fatal);
 *   - no PoCL library is loaded yet: once the loader has started PoCL the
 *     variable would be read by nobody, and vncl would claim a pinning
 *     that did not happen.
 * The decision cannot come from the device table (lib/runtime/
 * device_rule.c): it must be taken before any device is known. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT, dl_iterate_phdr */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef __linux__
#include <link.h>
#include <sched.h>
#include <unistd.h>
#endif

#include "runtime/runtime.h"

/* What the process had when vncl first looked for devices, -1 until then:
 * set once, in device discovery's pthread_once; atomic because a context
 * over the application's own device describes it (vncl__worker_affinity)
 * before it looks for devices, perhaps while another thread does. */
static _Atomic int g_pocl = -1;

#ifdef __linux__
static int pocl_loaded_cb(struct dl_phdr_info *info, size_t size,
                          void *data) {
  (void)size;
  (void)data;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  const char *slash = strrchr(name, '/');
  return strncmp(slash ? slash + 1 : name, "libpocl", 7) == 0;
}

/* Every online CPU in this process's mask, numbered 0 to n-1. */
static bool may_run_everywhere(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  if (n < 1 || n > CPU_SETSIZE || sched_getaffinity(0, sizeof set, &set))
    return false;
  if (CPU_COUNT(&set) != n) return false;
  for (long i = 0; i < n; i++)
    if (!CPU_ISSET((int)i, &set)) return false;
  return true;
}
#endif

static vncl_worker_affinity decide(void) {
  const char *user = getenv("POCL_AFFINITY");
  if (user) return atoi(user) > 0 ? VNCL_WORKERS_PINNED : VNCL_WORKERS_FREE;
  const char *own = vncl__getenv("VNCL_POCL_AFFINITY");
  if (own && (!strcmp(own, "0") || !strcasecmp(own, "off")))
    return VNCL_WORKERS_FREE;
#ifdef __linux__
  if (getenv("POCL_CPU_MAX_CU_NUM") || !may_run_everywhere() ||
      dl_iterate_phdr(pocl_loaded_cb, NULL))
    return VNCL_WORKERS_FREE;
  /* Not overwriting: a thread of the application may have set it since. */
  if (setenv("POCL_AFFINITY", "1", 0) == 0) {
    const char *now = getenv("POCL_AFFINITY");
    return now && atoi(now) > 0 ? VNCL_WORKERS_PINNED_BY_VNCL
                                : VNCL_WORKERS_FREE;
  }
#endif
  return VNCL_WORKERS_FREE;
}

void vncl__pocl_affinity_decide(void) { atomic_store(&g_pocl, (int)decide()); }

void vncl__pocl_affinity_restore(void) {
  if (atomic_load(&g_pocl) != VNCL_WORKERS_PINNED_BY_VNCL) return;
  const char *now = getenv("POCL_AFFINITY");
  if (now && !strcmp(now, "1")) unsetenv("POCL_AFFINITY");
}

vncl_worker_affinity vncl__worker_affinity(const vncl_device_info *d) {
  /* PoCL's threaded CPU driver ("pthread-..." in PoCL 3, "cpu-..." from
   * PoCL 4); its single-threaded "basic" / "cpu-minimal" device has no
   * workers to place. */
  if (d->type != VNCL_DEVICE_CPU ||
      !strstr(d->platform, "Portable Computing Language") ||
      vncl__pocl_single_threaded(d) ||
      (strncmp(d->name, "pthread", 7) && strncmp(d->name, "cpu", 3)))
    return VNCL_WORKERS_NONE;
  int state = atomic_load(&g_pocl);
  if (state < 0) { /* the application's own device, before discovery */
    const char *e = getenv("POCL_AFFINITY");
    return e && atoi(e) > 0 ? VNCL_WORKERS_PINNED : VNCL_WORKERS_FREE;
  }
  return (vncl_worker_affinity)state;
}
