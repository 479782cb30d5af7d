/* vncl monitor [--device SEL] [--interval MS] [--count N] [--json [FILE]]:
 * a live view of every device (or one), like nvidia-smi for any vendor:
 * memory, utilization, temperature, power and clocks from the vendor's
 * telemetry library where one is installed (vncl_telemetry_get), n/a
 * otherwise. On a terminal the view is redrawn in place; --json prints one
 * object per interval, one line each, to stdout or FILE. Runs until --count
 * intervals or SIGINT/SIGTERM. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) {
  (void)sig;
  g_stop = 1;
}

/* ---- shared with `info` and `doctor` (declared in cli.h) ---------------- */

/* Whether `hay` contains `needle`, ignoring ASCII case. */
static bool contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] &&
           tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n) return true;
  }
  return n == 0;
}

const char *cli_platform_short(const vncl_device_info *d) {
  if (contains_nocase(d->platform, "portable computing language") ||
      contains_nocase(d->platform, "pocl"))
    return "PoCL";
  return d->platform[0] ? d->platform : d->name;
}

static void add_num(cJSON *o, const char *k, int valid, double v) {
  if (valid)
    cJSON_AddNumberToObject(o, k, v);
  else
    cJSON_AddNullToObject(o, k);
}

cJSON *cli_telemetry_json(const vncl_telemetry *t, const vncl_device_info *d) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "source", t->source);
  if (t->matched_by[0])
    cJSON_AddStringToObject(j, "matched_by", t->matched_by);
  else
    cJSON_AddNullToObject(j, "matched_by");
  if (t->vendor_device_name[0])
    cJSON_AddStringToObject(j, "vendor_device_name", t->vendor_device_name);
  else
    cJSON_AddNullToObject(j, "vendor_device_name");
  if (t->pci_bus_id[0])
    cJSON_AddStringToObject(j, "pci_bus_id", t->pci_bus_id);
  else
    cJSON_AddNullToObject(j, "pci_bus_id");
  add_num(j, "utilization_percent", t->utilization_valid,
          t->utilization_percent);
  add_num(j, "memory_utilization_percent", t->memory_utilization_valid,
          t->memory_utilization_percent);
  add_num(j, "memory_total_bytes", t->memory_total_valid,
          (double)t->memory_total_bytes);
  add_num(j, "memory_used_bytes", t->memory_used_valid,
          (double)t->memory_used_bytes);
  add_num(j, "memory_free_bytes", t->memory_free_valid,
          (double)t->memory_free_bytes);
  add_num(j, "temperature_c", t->temperature_valid, t->temperature_c);
  add_num(j, "power_watts", t->power_valid, t->power_watts);
  add_num(j, "sm_clock_mhz", t->sm_clock_valid, t->sm_clock_mhz);
  add_num(j, "memory_clock_mhz", t->memory_clock_valid, t->memory_clock_mhz);
  if (!strcmp(t->source, "none") || !strcmp(t->source, "opencl")) {
    char note[300];
    snprintf(note, sizeof note, "no vendor telemetry for %s",
             cli_platform_short(d));
    cJSON_AddStringToObject(j, "note", note);
  }
  return j;
}

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

void cli_telemetry_summary(const vncl_telemetry *t, const vncl_device_info *d,
                           char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
#define PUT(...)                                                       \
  do {                                                                 \
    if (n < cap) {                                                     \
      int w_ = snprintf(buf + n, cap - n, __VA_ARGS__);                \
      if (w_ > 0) n += (size_t)w_;                                     \
    }                                                                  \
  } while (0)
  bool live = strcmp(t->source, "none") != 0;
  PUT("%s", t->source);
  if (!live) {
    PUT(": n/a (no vendor telemetry for %s)", cli_platform_short(d));
    return;
  }
  if (!strcmp(t->source, "opencl"))
    PUT(" (driver extension only; no vendor telemetry for %s)",
        cli_platform_short(d));
  PUT(":");
  if (t->utilization_valid) PUT(" util %u %%,", t->utilization_percent);
  if (t->memory_used_valid && t->memory_total_valid)
    PUT(" memory %.2f / %.2f GiB used,", gib(t->memory_used_bytes),
        gib(t->memory_total_bytes));
  if (t->temperature_valid) PUT(" %.0f C,", t->temperature_c);
  if (t->power_valid) PUT(" %.1f W,", t->power_watts);
  if (t->sm_clock_valid) PUT(" clock %u MHz,", t->sm_clock_mhz);
  if (n > 0 && n < cap && buf[n - 1] == ',') buf[--n] = '\0';
#undef PUT
}

/* ---- the view ------------------------------------------------------------- */

static void na(char *b, size_t cap, int valid, const char *fmt, double v) {
  if (valid)
    snprintf(b, cap, fmt, v);
  else
    snprintf(b, cap, "n/a");
}

static void print_device(const vncl_device_info *d, const vncl_telemetry *t) {
  printf("[%d] %d:%d  %s  (%s, %s)\n", d->index, d->platform_index,
         d->device_index, d->name, cli_device_type(d->type), d->platform);
  if (!strcmp(t->source, "none"))
    printf("    source   none: n/a (no vendor telemetry for %s)\n",
           cli_platform_short(d));
  else if (!strcmp(t->source, "opencl"))
    printf("    source   opencl: free memory from the driver; no vendor "
           "telemetry for %s\n", cli_platform_short(d));
  else
    printf("    source   %s (%s, matched by %s%s%s)\n", t->source,
           t->vendor_device_name, t->matched_by, t->pci_bus_id[0] ? ", PCI " : "",
           t->pci_bus_id);
  char a[64], b[64], c[64];
  if (t->memory_used_valid && t->memory_total_valid && t->memory_total_bytes)
    printf("    memory   %.2f / %.2f GiB used (%.1f %%), %.2f GiB free\n",
           gib(t->memory_used_bytes), gib(t->memory_total_bytes),
           100.0 * (double)t->memory_used_bytes /
               (double)t->memory_total_bytes,
           gib(t->memory_free_bytes));
  else
    printf("    memory   total %.2f GiB (OpenCL); used n/a, free n/a\n",
           gib(t->memory_total_bytes));
  na(a, sizeof a, t->utilization_valid, "%.0f %%", t->utilization_percent);
  na(b, sizeof b, t->memory_utilization_valid, "%.0f %%",
     t->memory_utilization_percent);
  printf("    util     %-10s memory util %s\n", a, b);
  na(a, sizeof a, t->temperature_valid, "%.0f C", t->temperature_c);
  na(b, sizeof b, t->power_valid, "%.1f W", t->power_watts);
  printf("    temp     %-10s power %s\n", a, b);
  na(a, sizeof a, t->sm_clock_valid, "%.0f MHz", t->sm_clock_mhz);
  na(c, sizeof c, t->memory_clock_valid, "%.0f MHz", t->memory_clock_mhz);
  printf("    clocks   core %s, memory %s\n", a, c);
}

static void libraries_line(char *buf, size_t cap) {
  vncl_telemetry_library libs[VNCL_TELEMETRY_LIBRARY_COUNT];
  int n = 0;
  buf[0] = '\0';
  if (vncl_telemetry_libraries(libs, VNCL_TELEMETRY_LIBRARY_COUNT, &n)) return;
  size_t used = 0;
  for (int i = 0; i < n && i < VNCL_TELEMETRY_LIBRARY_COUNT; i++) {
    int w = libs[i].loaded
                ? snprintf(buf + used, cap - used, "%s%s: %d device(s)%s%s",
                           i ? "; " : "", libs[i].name, libs[i].device_count,
                           libs[i].detail[0] ? ", " : "", libs[i].detail)
                : snprintf(buf + used, cap - used, "%s%s: %s", i ? "; " : "",
                           libs[i].name, libs[i].detail);
    if (w < 0 || (size_t)w >= cap - used) break;
    used += (size_t)w;
  }
}

/* Sleeps until `deadline` (CLOCK_MONOTONIC), waking early on a signal. */
static void sleep_until(const struct timespec *deadline) {
  while (!g_stop) {
    int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL);
    if (r == 0 || r != EINTR) return;
  }
}

int cmd_monitor(int argc, char **argv) {
  const char *dev = NULL, *json_path = NULL;
  bool json = false;
  long interval = 1000, count = 0; /* 0: until interrupted */
  const cli_opt opts[] = {
      {.name = "device", .kind = CLI_STRING, .out = &dev, .arg = "SEL",
       .help = "one device (default: every device)"},
      {.name = "interval", .kind = CLI_INT, .out = &interval, .min = 1,
       .max = 3600000, .arg = "MS",
       .help = "milliseconds between samples (default 1000)"},
      {.name = "count", .kind = CLI_INT, .out = &count, .min = 1,
       .max = 1000000000, .help = "stop after N samples (default: Ctrl-C)"},
      {.name = "json", .kind = CLI_JSON, .out = &json, .out2 = &json_path,
       .help = "one JSON object per sample and line, to FILE (default: "
               "stdout)"},
      {0}};
  const cli_command cmd = {
      .name = "monitor", .opts = opts,
      .about = "Shows every device (or the one SEL selects) every MS "
               "milliseconds: memory\nused/free/total, utilization, "
               "temperature, power and clocks, read from the\nvendor's "
               "library (NVML, ROCm SMI, Level Zero Sysman) where installed, "
               "n/a otherwise.\nOn a terminal the view is redrawn in place. "
               "Library paths: VNCL_NVML_LIBRARY,\nVNCL_ROCM_SMI_LIBRARY, "
               "VNCL_LEVEL_ZERO_LIBRARY (\"off\" disables).\n"};
  int pr = cli_parse(&cmd, argc, argv);
  if (pr != CLI_PARSED) return pr;
  int first = 0, n = 0;
  if (dev) {
    if (vncl_device_select(dev, &first)) {
      fprintf(stderr, "vncl monitor: %s\n", vncl_errmsg(NULL));
      return 1;
    }
    n = 1;
  } else if (vncl_device_count(&n)) {
    fprintf(stderr, "vncl monitor: %s\n", vncl_errmsg(NULL));
    return 1;
  }
  FILE *jf = json ? cli_json_open(&cmd, json_path) : NULL;
  if (json && !jf) return 1;
  vncl_device_info *info = calloc((size_t)n, sizeof *info);
  vncl_telemetry *tm = calloc((size_t)n, sizeof *tm);
  if (!info || !tm) {
    free(info);
    free(tm);
    if (jf && jf != stdout) fclose(jf);
    fprintf(stderr, "vncl monitor: out of memory\n");
    return 1;
  }
  for (int k = 0; k < n; k++) vncl_device_get_info(first + k, &info[k]);
  char libs[1024];
  libraries_line(libs, sizeof libs);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN); /* `vncl monitor --json | head -1` ends quietly */
  bool tty = !json && isatty(STDOUT_FILENO);

  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  int rc = 0;
  for (long sample = 1; !g_stop && (count == 0 || sample <= count);
       sample++) {
    for (int k = 0; k < n; k++)
      if (vncl_telemetry_get(first + k, &tm[k]) != VNCL_OK)
        memset(&tm[k], 0, sizeof tm[k]);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (json) {
      cJSON *j = cJSON_CreateObject();
      cJSON_AddNumberToObject(j, "sample", (double)sample);
      cJSON_AddNumberToObject(j, "time",
                              (double)now.tv_sec + now.tv_nsec * 1e-9);
      cJSON_AddNumberToObject(j, "interval_ms", (double)interval);
      cJSON *arr = cJSON_AddArrayToObject(j, "devices");
      for (int k = 0; k < n; k++) {
        cJSON *o = cJSON_CreateObject();
        char sel[32];
        snprintf(sel, sizeof sel, "%d:%d", info[k].platform_index,
                 info[k].device_index);
        cJSON_AddNumberToObject(o, "index", info[k].index);
        cJSON_AddStringToObject(o, "selector", sel);
        cJSON_AddStringToObject(o, "name", info[k].name);
        cJSON_AddStringToObject(o, "type", cli_device_type(info[k].type));
        cJSON_AddStringToObject(o, "platform", info[k].platform);
        cJSON_AddItemToObject(o, "telemetry",
                              cli_telemetry_json(&tm[k], &info[k]));
        cJSON_AddItemToArray(arr, o);
      }
      char *s = cJSON_PrintUnformatted(j);
      cJSON_Delete(j);
      if (s) {
        fputs(s, jf);
        fputc('\n', jf);
        free(s);
      }
    } else {
      char when[64];
      struct tm lt;
      time_t secs = now.tv_sec;
      localtime_r(&secs, &lt);
      strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &lt);
      if (tty) fputs("\033[H\033[2J", stdout); /* home, clear: redraw */
      else if (sample > 1) putchar('\n');
      printf("vncl monitor  %s  every %ld ms%s\n", when, interval,
             count ? "" : "  (Ctrl-C to stop)");
      printf("telemetry libraries: %s\n\n", libs);
      for (int k = 0; k < n; k++) print_device(&info[k], &tm[k]);
    }
    FILE *out = json ? jf : stdout;
    if (fflush(out) != 0 || ferror(out)) break; /* reader went away */
    if (count && sample == count) break;
    next.tv_sec += interval / 1000;
    next.tv_nsec += (interval % 1000) * 1000000L;
    if (next.tv_nsec >= 1000000000L) {
      next.tv_sec++;
      next.tv_nsec -= 1000000000L;
    }
    sleep_until(&next);
  }
  if (tty && g_stop) putchar('\n');
  fflush(stdout);
  if (jf && jf != stdout) fclose(jf);
  free(info);
  free(tm);
  return rc;
}
