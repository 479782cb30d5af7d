/* vncl doctor [--device SEL]: the deployment checklist. One line per check,
 * a fix for each failure; exit 0 only when every required check holds. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "cli_matmul.h"
#include "vncl_tuning.h"

static int failures;

static void check(bool ok, bool required, const char *what, const char *fix) {
  if (ok)
    printf("[ ok ] %s\n", what);
  else if (required) {
    printf("[FAIL] %s\n       fix: %s\n", what, fix);
    failures++;
  } else {
    printf("[warn] %s\n       note: %s\n", what, fix);
  }
}

/* One direction of a transfer row: "map", or "direct below N bytes, else
 * staged". */
static void paths_text(char *out, size_t cap, vncl_transfer_path small,
                       vncl_transfer_path large, uint64_t threshold) {
  static const char *names[] = {"auto", "direct", "staged", "map"};
  if (threshold && small != large)
    snprintf(out, cap, "%s below %llu bytes, else %s", names[small & 3],
             (unsigned long long)threshold, names[large & 3]);
  else
    snprintf(out, cap, "%s", names[large & 3]);
}

/* The transfer table's row for this device (docs/transfers.md): which path
 * host transfers take, and whether tensors live in fine-grained SVM (row
 * "unified-svm": blocking transfers are host copies with no command). */
static void transfer_line(vncl_context *ctx) {
  vncl_transfer_config tc;
  char line[320];
  if (vncl_transfer_config_get(ctx, &tc) != VNCL_OK) {
    snprintf(line, sizeof line, "transfers: %s", vncl_errmsg(ctx));
    check(false, false, line, "see docs/transfers.md");
    return;
  }
  char w[64], r[64];
  paths_text(w, sizeof w, tc.write_small, tc.write_large, tc.write_threshold);
  paths_text(r, sizeof r, tc.read_small, tc.read_large, tc.read_threshold);
  snprintf(line, sizeof line, "transfers: table row '%s'%s; writes %s, reads %s",
           tc.table,
           strcmp(tc.table, "unified-svm") ? ""
                                           : " (tensors in fine-grained SVM: "
                                             "blocking transfers are host "
                                             "copies)",
           w, r);
  check(true, false, line, "");
}

static int count_icds(const char *dir, char *names, size_t cap) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  names[0] = '\0';
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l > 4 && !strcmp(e->d_name + l - 4, ".icd")) {
      n++;
      if (strlen(names) + l + 3 < cap) {
        if (names[0]) strcat(names, ", ");
        strcat(names, e->d_name);
      }
    }
  }
  closedir(d);
  return n;
}

/* Informational: which vendor library gives live figures for this device
 * (never a failure; a GPU without one gets a note on how to add it). */
static void telemetry_line(vncl_context *ctx, const vncl_device_info *d) {
  char line[1600];
  vncl_telemetry t;
  if (vncl_telemetry_get_context(ctx, &t) != VNCL_OK) return;
  vncl_telemetry_library libs[VNCL_TELEMETRY_LIBRARY_COUNT];
  int nl = 0;
  if (vncl_telemetry_libraries(libs, VNCL_TELEMETRY_LIBRARY_COUNT, &nl))
    nl = 0;
  const vncl_telemetry_library *lib = NULL;
  for (int i = 0; i < nl && i < VNCL_TELEMETRY_LIBRARY_COUNT; i++)
    if (!strcmp(libs[i].name, t.source)) lib = &libs[i];
  bool gpu = d->type == VNCL_DEVICE_GPU;
  if (lib) {
    snprintf(line, sizeof line,
             "vendor telemetry: %s (%s%s%s; device '%s' matched by %s%s%s)",
             t.source, lib->path, lib->detail[0] ? ", " : "", lib->detail,
             t.vendor_device_name, t.matched_by,
             t.pci_bus_id[0] ? " " : "", t.pci_bus_id);
    check(true, false, line, "");
    return;
  }
  char tried[600] = "";
  size_t used = 0;
  for (int i = 0; i < nl && i < VNCL_TELEMETRY_LIBRARY_COUNT; i++) {
    int w = snprintf(tried + used, sizeof tried - used, "%s%s: %s",
                     i ? "; " : "", libs[i].name, libs[i].detail);
    if (w < 0 || (size_t)w >= sizeof tried - used) break;
    used += (size_t)w;
  }
  bool cl_only = !strcmp(t.source, "opencl");
  snprintf(line, sizeof line, "vendor telemetry: %s (%s%s; %s)", t.source,
           cl_only ? "free memory from the OpenCL driver, other "
                   : "",
           gpu ? "fields absent" : "fields absent; fine for CPU devices",
           tried[0] ? tried : "no library tried");
  check(!gpu, false, line,
        "utilization, temperature and power need the vendor's library: "
        "NVML (libnvidia-ml.so.1, NVIDIA driver), ROCm SMI (librocm_smi64), "
        "or the Level Zero loader (libze_loader.so.1, Intel); set "
        "VNCL_NVML_LIBRARY, VNCL_ROCM_SMI_LIBRARY or VNCL_LEVEL_ZERO_LIBRARY "
        "for an unusual path");
}

/* A driver that deadlocks when two commands meet inside it (the library's
 * driver table, lib/runtime/driver.c): vncl enqueues one command at a time,
 * and wait lists must be complete; a warning, since threads of the
 * application's own that call OpenCL on the device are not covered. */
static void serial_driver_line(const vncl_device_info *d) {
  if (!d->serial_driver) return;
  check(false, false,
        "driver runs one command at a time: vncl serializes its commands "
        "on this device across the process",
        "PoCL's single-threaded device before PoCL 5.0 deadlocks when two "
        "threads enqueue on it at once or a command waits on an event not "
        "yet complete (PoCL pull request 1323); vncl's calls are safe, "
        "the application's own OpenCL calls on the device are not, and "
        "vncl refuses wait lists with pending events. PoCL 5.0 or later, "
        "or the threaded device, has no such limit");
}

/* PoCL's CPU device: are its worker threads pinned? vncl pins them itself
 * (POCL_AFFINITY=1, set before the ICD loader starts PoCL) where the
 * process may run on every CPU and nobody chose otherwise
 * (lib/runtime/affinity.c); the line says which applies, and why not
 * where they are left free. PoCL 3.1 pins worker i to CPU i whatever the
 * process's affinity mask, so a restricted mask is left alone
 * (docs/portability.md, "PoCL's worker threads"). */
static void pocl_affinity_line(const vncl_device_info *d) {
  if (d->worker_affinity == VNCL_WORKERS_NONE) return;
  if (d->worker_affinity == VNCL_WORKERS_PINNED_BY_VNCL) {
    check(true, false,
          "PoCL worker threads pinned by vncl (POCL_AFFINITY=1 while PoCL "
          "started; VNCL_POCL_AFFINITY=0 leaves them to the scheduler)",
          "");
    return;
  }
  if (d->worker_affinity == VNCL_WORKERS_PINNED) {
    check(true, false, "PoCL worker threads pinned (POCL_AFFINITY set)", "");
    return;
  }
  /* The library's rule (lib/runtime/affinity.c): every online CPU, 0 to
   * n-1, open to this process. */
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  bool can = false;
#ifdef __linux__
  cpu_set_t set;
  if (n >= 1 && n <= CPU_SETSIZE &&
      sched_getaffinity(0, sizeof set, &set) == 0) {
    can = CPU_COUNT(&set) == n;
    for (long i = 0; can && i < n; i++) can = CPU_ISSET((int)i, &set);
  }
#endif
  char line[256];
  const char *own = getenv("VNCL_POCL_AFFINITY");
  if (getenv("POCL_AFFINITY") ||
      (own && (!strcmp(own, "0") || !strcasecmp(own, "off")))) {
    /* The user's choice (POCL_AFFINITY=0, VNCL_POCL_AFFINITY=0). */
    check(true, false,
          "PoCL worker threads not pinned (as POCL_AFFINITY or "
          "VNCL_POCL_AFFINITY asks)",
          "");
    return;
  }
  if (!can) {
    snprintf(line, sizeof line,
             "PoCL worker threads not pinned (this process may not run on "
             "every CPU 0-%ld, and PoCL would pin worker i to CPU i "
             "regardless)",
             n > 0 ? n - 1 : 0);
    check(true, false, line, "");
    return;
  }
  check(false, false, "PoCL worker threads not pinned",
        "OpenCL was started in this process before vncl, or PoCL was told "
        "its worker count (POCL_CPU_MAX_CU_NUM): export POCL_AFFINITY=1 "
        "where the device runs large work (on 2-core guests mid-size and "
        "large calls ran up to 2x faster pinned, tiny back-to-back calls "
        "1-2.5 us slower; docs/portability.md)");
}

/* The checks of one device: compiler, precisions, memory, a kernel that
 * builds, runs and verifies, the caches and the tuning database. */
static void doctor_device(vncl_context *ctx) {
  char line[1600];
  vncl_status s;
  vncl_device_info d;
  vncl_context_device_info(ctx, &d);
  printf("       device: %s | %s | %s | driver %s\n", d.name, d.vendor,
         d.platform, d.driver_version);
  check(d.compiler_available, true, "device compiler available",
        "this driver cannot compile OpenCL C at run time; install a full "
        "driver (not a runtime-only one)");
  int major = 0, minor = 0;
  sscanf(d.opencl_c_version, "OpenCL C %d.%d", &major, &minor);
  snprintf(line, sizeof line, "OpenCL C version: %s (1.2 or later needed)",
           d.opencl_c_version);
  check(major > 1 || (major == 1 && minor >= 2), true, line,
        "update the device driver to one with OpenCL C 1.2");
  snprintf(line, sizeof line, "fp64: %s", d.fp64 ? "yes" : "no");
  check(d.fp64, false, line,
        "f64 GEMM and tensors return VNCL_ERR_UNSUPPORTED on this device");
  snprintf(line, sizeof line,
           "fp16: %s (f16/bf16 storage works either way, through "
           "vload_half and 16-bit loads)",
           d.fp16 ? "native cl_khr_fp16" : "storage only");
  check(true, false, line, "");
  snprintf(line, sizeof line, "memory: %.2f GiB global, %.2f GiB per allocation",
           (double)d.global_mem_bytes / (1u << 30),
           (double)d.max_alloc_bytes / (1u << 30));
  check(d.global_mem_bytes >= (64u << 20), true, line,
        "the device reports less than 64 MiB of global memory");

  double build_s = 0;
  s = vncl_context_selftest(ctx, &build_s);
  snprintf(line, sizeof line, "test kernel compiles (%.2f s)%s%s", build_s,
           s ? ": " : "", s ? vncl_errmsg(ctx) : "");
  check(!s, true, line,
        "the driver's compiler failed; run with VNCL_LOG=debug and report the "
        "build log");
  cli_matmul_result r = {0};
  s = cli_matmul_check(ctx, 64, 1, &r);
  snprintf(line, sizeof line,
           "test kernel runs and verifies (64x64 product, max relative "
           "error %.1e)%s%s",
           r.max_rel_error, s ? ": " : "", s ? vncl_errmsg(ctx) : "");
  check(!s && r.ok, true, line,
        "the device computed a wrong result or failed to run; update the "
        "driver, or try another device");

  vncl_cache_info ci;
  vncl_context_cache_info(ctx, &ci);
  if (ci.state == VNCL_CACHE_UNTRUSTED) {
    /* Someone else could have written it: a required check, since a
     * cached binary is code this process runs. */
    snprintf(line, sizeof line, "binary cache: %s not trusted, so off: %s",
             ci.dir, ci.why);
    char fix[1400];
    snprintf(fix, sizeof fix,
             "%s%sset VNCL_CACHE_DIR to a private folder (kernels compile "
             "in every process meanwhile)",
             ci.fix, ci.fix[0] ? ", or " : "");
    check(false, true, line, fix);
  } else {
    bool writable = ci.state == VNCL_CACHE_ON && access(ci.dir, W_OK) == 0;
    if (ci.state == VNCL_CACHE_UNUSABLE)
      snprintf(line, sizeof line, "binary cache: %s %s, so off", ci.dir,
               ci.why);
    else
      snprintf(line, sizeof line, "binary cache: %s",
               ci.state == VNCL_CACHE_ON ? ci.dir : "off (VNCL_CACHE_DIR=off)");
    check(writable || ci.state == VNCL_CACHE_OFF, false, line,
          "set VNCL_CACHE_DIR to a writable folder so kernels compile once, "
          "not in every process");
  }
  /* The tuning database (vncl_tuning_database); a bad one only warns, one
   * that is not trusted fails, as the cache does. */
  vncl_tuning_database_info ti;
  if (vncl_tuning_database(ctx, &ti)) {
    ti.state = -1;
    ti.path[0] = ti.fix[0] = '\0';
    snprintf(ti.why, sizeof ti.why, "%s", vncl_errmsg(ctx));
  }
  if (ti.state == -2) {
    snprintf(line, sizeof line, "tuning database: %s not trusted, ignored: %s",
             ti.path, ti.why);
    char fix[1400];
    snprintf(fix, sizeof fix,
             "%s%sset VNCL_TUNING_DB to a file of your own (the built-in "
             "defaults are used meanwhile)",
             ti.fix, ti.fix[0] ? ", or " : "");
    check(false, true, line, fix);
  } else {
    if (ti.state == 1)
      snprintf(line, sizeof line, "tuning database: %s (%d entries for this "
               "device)", ti.path, ti.entries);
    else if (ti.state < 0)
      snprintf(line, sizeof line, "tuning database: %s invalid: %s", ti.path,
               ti.why);
    else
      snprintf(line, sizeof line, "tuning database: none (built-in defaults)");
    check(ti.state >= 0, false, line,
          "run `vncl autotune` to write a new one (the built-in defaults are "
          "used meanwhile)");
  }
  transfer_line(ctx);
  pocl_affinity_line(&d);
  serial_driver_line(&d);
  telemetry_line(ctx, &d);
}

int cmd_doctor(int argc, char **argv) {
  const char *dev = NULL;
  const cli_opt opts[] = {
      {.name = "device", .kind = CLI_STRING, .out = &dev, .arg = "SEL",
       .help = "device or group to check (default: VNCL_DEVICE, else the "
               "first)"},
      {0}};
  const cli_command cmd = {
      .name = "doctor", .opts = opts,
      .about = "Checks what a deployment needs: the OpenCL ICD loader and "
               "drivers, the device's\ncompiler and precisions, a kernel "
               "that builds, runs and verifies, and the caches.\nExit 0 "
               "when every required check holds, 1 otherwise.\n"};
  int pr = cli_parse(&cmd, argc, argv);
  if (pr != CLI_PARSED) return pr;
  char line[1600], names[512];
  failures = 0;
  printf("vncl %s doctor\n", vncl_version_string());
  const char *vdir = getenv("OCL_ICD_VENDORS");
  if (!vdir || !*vdir) vdir = "/etc/OpenCL/vendors";
  int icds = count_icds(vdir, names, sizeof names);
  snprintf(line, sizeof line, "ICD loader: %d driver file(s) in %s%s%s%s",
           icds, vdir, icds ? " (" : "", names, icds ? ")" : "");
  check(icds > 0, true, line,
        "install an OpenCL driver: pocl-opencl-icd (CPU), your GPU vendor's "
        "ICD (nvidia-opencl-icd, mesa-opencl-icd, intel-opencl-icd, ROCm), "
        "and ocl-icd-libopencl1");
  int n = 0;
  vncl_status s = vncl_device_count(&n);
  snprintf(line, sizeof line, "platforms and devices: %d device(s) found%s%s",
           s ? 0 : n, s ? ": " : "", s ? vncl_errmsg(NULL) : "");
  check(!s && n > 0, true, line,
        "check that the driver above matches your hardware (clinfo lists "
        "what the loader sees)");
  if (s) goto out;
  const char *sel = dev ? dev : getenv("VNCL_DEVICE");
  if (cli_group_selector(sel)) {
    /* A group ("all", "gpu", "0,1"): the device checks for each member. */
    vncl_group *g = NULL;
    s = vncl_group_create(&g, sel, NULL);
    snprintf(line, sizeof line, "device group '%s': %s", sel,
             s ? vncl_errmsg(NULL) : "ok");
    if (!s)
      snprintf(line, sizeof line, "device group '%s': %d device(s)", sel,
               vncl_group_size(g));
    check(!s, true, line,
          "pick devices shown by `vncl devices` with --device or VNCL_DEVICE "
          "(all, gpu, cpu, accelerator or a list such as 0,1)");
    if (s) goto out;
    for (int i = 0; i < vncl_group_size(g); i++) {
      vncl_device_info di;
      vncl_context_device_info(vncl_group_context(g, i), &di);
      printf("== device %d of %d in group '%s': [%d] %d:%d ==\n", i + 1,
             vncl_group_size(g), sel, di.index, di.platform_index,
             di.device_index);
      doctor_device(vncl_group_context(g, i));
    }
    vncl_group_destroy(g);
    goto out;
  }
  vncl_options o;
  vncl_options_init(&o);
  o.device = dev;
  vncl_context *ctx = NULL;
  s = vncl_context_create(&ctx, &o);
  snprintf(line, sizeof line, "device selection '%s': %s", dev ? dev : "",
           s ? vncl_errmsg(NULL) : "ok");
  check(!s, true, line,
        "pick a device shown by `vncl devices` with --device or VNCL_DEVICE");
  if (s) goto out;
  doctor_device(ctx);
  vncl_context_destroy(ctx);
out:
  printf("%s: %d required check(s) failed\n", failures ? "FAILED" : "healthy",
         failures);
  return failures ? 1 : 0;
}
