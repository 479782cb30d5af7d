/* JSON forms of device info and memory stats, option parsing, the clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"

double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *cli_device_type(vncl_device_type t) {
  switch (t) {
    case VNCL_DEVICE_GPU: return "gpu";
    case VNCL_DEVICE_ACCELERATOR: return "accelerator";
    case VNCL_DEVICE_CPU: return "cpu";
    default: return "other";
  }
}

cJSON *cli_device_json(const vncl_device_info *d) {
  cJSON *j = cJSON_CreateObject();
  char sel[32];
  snprintf(sel, sizeof sel, "%d:%d", d->platform_index, d->device_index);
  cJSON_AddNumberToObject(j, "index", d->index);
  cJSON_AddStringToObject(j, "selector", sel);
  cJSON_AddStringToObject(j, "name", d->name);
  cJSON_AddStringToObject(j, "vendor", d->vendor);
  cJSON_AddStringToObject(j, "platform", d->platform);
  cJSON_AddStringToObject(j, "platform_version", d->platform_version);
  cJSON_AddStringToObject(j, "driver_version", d->driver_version);
  cJSON_AddStringToObject(j, "opencl_version", d->opencl_version);
  cJSON_AddStringToObject(j, "opencl_c_version", d->opencl_c_version);
  cJSON_AddStringToObject(j, "type", cli_device_type(d->type));
  cJSON_AddNumberToObject(j, "compute_units", d->compute_units);
  cJSON_AddNumberToObject(j, "max_clock_mhz", d->max_clock_mhz);
  cJSON_AddNumberToObject(j, "global_mem_bytes", (double)d->global_mem_bytes);
  cJSON_AddNumberToObject(j, "max_alloc_bytes", (double)d->max_alloc_bytes);
  cJSON_AddNumberToObject(j, "local_mem_bytes", (double)d->local_mem_bytes);
  cJSON_AddNumberToObject(j, "max_work_group_size",
                          (double)d->max_work_group_size);
  cJSON_AddNumberToObject(j, "preferred_work_group_multiple",
                          (double)d->preferred_work_group_multiple);
  cJSON_AddBoolToObject(j, "fp16", d->fp16);
  cJSON_AddBoolToObject(j, "fp64", d->fp64);
  cJSON_AddBoolToObject(j, "unified_memory", d->unified_memory);
  cJSON_AddBoolToObject(j, "compiler_available", d->compiler_available);
  if (d->nv_compute_capability_major) {
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->nv_compute_capability_major,
             d->nv_compute_capability_minor);
    cJSON_AddStringToObject(j, "nv_compute_capability", cc);
  }
  if (d->amd_board_name[0]) {
    cJSON_AddStringToObject(j, "amd_board_name", d->amd_board_name);
    char gfx[32];
    snprintf(gfx, sizeof gfx, "gfx%d.%d", d->amd_gfxip_major,
             d->amd_gfxip_minor);
    cJSON_AddStringToObject(j, "amd_gfxip", gfx);
  }
  /* PoCL's worker threads: "free", "pinned" (POCL_AFFINITY set by the
   * user) or "pinned by vncl"; absent where the driver has none. */
  static const char *const aff[] = {NULL, "free", "pinned", "pinned by vncl"};
  if (d->worker_affinity > VNCL_WORKERS_NONE &&
      d->worker_affinity <= VNCL_WORKERS_PINNED_BY_VNCL)
    cJSON_AddStringToObject(j, "worker_threads", aff[d->worker_affinity]);
  /* The driver deadlocks when commands meet (lib/runtime/driver.c). */
  if (d->serial_driver) cJSON_AddBoolToObject(j, "serial_driver", 1);
  return j;
}

cJSON *cli_memory_json(const vncl_memory_stats *m) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddNumberToObject(j, "allocated_bytes", (double)m->allocated_bytes);
  cJSON_AddNumberToObject(j, "peak_bytes", (double)m->peak_bytes);
  cJSON_AddNumberToObject(j, "reserved_bytes", (double)m->reserved_bytes);
  cJSON_AddNumberToObject(j, "limit_bytes", (double)m->limit_bytes);
  cJSON_AddNumberToObject(j, "device_total_bytes",
                          (double)m->device_total_bytes);
  cJSON_AddNumberToObject(j, "alloc_count", (double)m->alloc_count);
  cJSON_AddNumberToObject(j, "free_count", (double)m->free_count);
  cJSON_AddNumberToObject(j, "live_count", (double)m->live_count);
  cJSON_AddNumberToObject(j, "failed_count", (double)m->failed_count);
  return j;
}

void cli_print_json(cJSON *j, FILE *f) {
  char *s = cJSON_Print(j);
  if (s) {
    fputs(s, f);
    fputc('\n', f);
    free(s);
  }
  cJSON_Delete(j);
}

bool cli_group_selector(const char *sel) {
  if (!sel || !*sel) return false;
  return strchr(sel, ',') || !strcasecmp(sel, "all") ||
         !strcasecmp(sel, "gpu") || !strcasecmp(sel, "cpu") ||
         !strcasecmp(sel, "accelerator");
}
