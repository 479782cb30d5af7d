/* vncl info [--device SEL] [--json [FILE]] [--size N]: detect the device,
 * report it and its memory, run a verified matrix product. A group selector
 * ("all", "gpu", "0,1": vncl_group_create) reports every device of the
 * group, in the JSON as {"selector", "device_count", "devices": [...],
 * "status"}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_matmul.h"

/* One device's report: text on stdout, or a JSON object in *out. Returns
 * true when the product verified. */
static bool info_one(vncl_context *ctx, bool json, int n, cJSON **out) {
  vncl_device_info d;
  vncl_context_device_info(ctx, &d);
  cli_matmul_result r;
  vncl_status s = cli_matmul_check(ctx, n, 3, &r);
  vncl_memory_stats m;
  vncl_memory_stats_get(ctx, &m);
  const char *status = s ? "error" : r.ok ? "success" : "wrong result";
  /* Vendor telemetry where a library is installed; informational only. */
  vncl_telemetry tm;
  bool have_tm = vncl_telemetry_get_context(ctx, &tm) == VNCL_OK;
  if (json) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "device", cli_device_json(&d));
    cJSON *op = cJSON_AddObjectToObject(j, "matrix_op");
    int shp[2] = {n, n};
    cJSON_AddItemToObject(op, "input_shape", cJSON_CreateIntArray(shp, 2));
    cJSON_AddItemToObject(op, "output_shape", cJSON_CreateIntArray(shp, 2));
    cJSON_AddStringToObject(op, "dtype", "f32");
    cJSON_AddStringToObject(op, "device", d.name);
    cJSON_AddStringToObject(op, "status", status);
    if (s) cJSON_AddStringToObject(op, "error", vncl_errmsg(ctx));
    cJSON_AddNumberToObject(op, "max_rel_error", r.max_rel_error);
    cJSON_AddNumberToObject(op, "gflops", r.gflops);
    cJSON_AddNumberToObject(op, "seconds", r.seconds);
    cJSON_AddNumberToObject(op, "first_call_seconds", r.first_seconds);
    cJSON_AddItemToObject(j, "memory", cli_memory_json(&m));
    if (have_tm)
      cJSON_AddItemToObject(j, "telemetry", cli_telemetry_json(&tm, &d));
    *out = j;
  } else {
    printf("device:     %s (%s, %s)\n", d.name, d.vendor,
           cli_device_type(d.type));
    printf("platform:   %s, driver %s, %s\n", d.platform, d.driver_version,
           d.opencl_c_version);
    printf("compute:    %u units at %u MHz, work-group max %zu, multiple %zu\n",
           d.compute_units, d.max_clock_mhz, d.max_work_group_size,
           d.preferred_work_group_multiple);
    printf("memory:     %.2f GiB global, %.2f GiB max allocation, %llu KiB "
           "local\n",
           (double)d.global_mem_bytes / (1u << 30),
           (double)d.max_alloc_bytes / (1u << 30),
           (unsigned long long)(d.local_mem_bytes / 1024));
    printf("precision:  fp64 %s, fp16 %s\n", d.fp64 ? "yes" : "no",
           d.fp16 ? "yes" : "no");
    printf("vncl:       allocated %.1f MiB, peak %.1f MiB, limit %s\n",
           (double)m.allocated_bytes / (1 << 20),
           (double)m.peak_bytes / (1 << 20),
           m.limit_bytes ? "set" : "none");
    if (have_tm) {
      char line[512];
      cli_telemetry_summary(&tm, &d, line, sizeof line);
      printf("telemetry:  %s\n", line);
    }
    if (s)
      printf("matmul:     %dx%d f32 failed: %s\n", n, n, vncl_errmsg(ctx));
    else
      printf("matmul:     %dx%d f32, %.2f GFLOP/s, max relative error %.2e "
             "(first call %.2f s)\n",
             n, n, r.gflops, r.max_rel_error, r.first_seconds);
    printf("%s\n", status);
  }
  return !s && r.ok;
}

int cmd_info(int argc, char **argv) {
  const char *dev = NULL, *json_path = NULL;
  bool json = false;
  long size = 1024;
  const cli_opt opts[] = {
      {.name = "device", .kind = CLI_STRING, .out = &dev, .arg = "SEL",
       .help = "device or group (default: VNCL_DEVICE, else the first)"},
      {.name = "json", .kind = CLI_JSON, .out = &json, .out2 = &json_path,
       .help = "the report as JSON, to FILE (default: stdout)"},
      {.name = "size", .kind = CLI_INT, .out = &size, .min = 1, .max = 16384,
       .help = "side of the checked f32 product (default 1024)"},
      {0}};
  const cli_command cmd = {
      .name = "info", .opts = opts,
      .about = "Reports the device (default: VNCL_DEVICE, else the first in "
               "`vncl devices`),\nruns an N x N f32 matrix product checked "
               "against a CPU reference,\nand prints 'success' when it "
               "verifies.\nA group selector (all, gpu, cpu, accelerator, or "
               "a list such as 0,1) reports\nevery device of the group.\n"};
  int pr = cli_parse(&cmd, argc, argv);
  if (pr != CLI_PARSED) return pr;
  int n = (int)size;
  FILE *jf = json ? cli_json_open(&cmd, json_path) : NULL;
  if (json && !jf) return 1;
  const char *sel = dev ? dev : getenv("VNCL_DEVICE");
  if (cli_group_selector(sel)) {
    /* A group ("all", "gpu", "0,1"): one report per device. */
    vncl_group *g = NULL;
    if (vncl_group_create(&g, sel, NULL)) {
      fprintf(stderr, "vncl info: %s\n", vncl_errmsg(NULL));
      if (jf) cli_json_close(&cmd, jf, json_path);
      return 1;
    }
    int nd = vncl_group_size(g), good = 0;
    cJSON *root = json ? cJSON_CreateObject() : NULL;
    cJSON *arr = NULL;
    if (root) {
      cJSON_AddStringToObject(root, "selector", sel);
      cJSON_AddNumberToObject(root, "device_count", nd);
      arr = cJSON_AddArrayToObject(root, "devices");
    }
    for (int d = 0; d < nd; d++) {
      cJSON *one = NULL;
      if (!json) {
        vncl_device_info di;
        vncl_context_device_info(vncl_group_context(g, d), &di);
        printf("== device %d of %d in group '%s': [%d] %d:%d ==\n", d + 1, nd,
               sel, di.index, di.platform_index, di.device_index);
      }
      good += info_one(vncl_group_context(g, d), json, n, &one);
      if (one) cJSON_AddItemToArray(arr, one);
    }
    if (root) {
      cJSON_AddStringToObject(root, "status",
                              good == nd ? "success" : "failed");
      cli_print_json(root, jf);
      if (cli_json_close(&cmd, jf, json_path)) good = -1;
    } else {
      printf("group '%s': %d of %d device(s) verified\n", sel, good, nd);
    }
    vncl_group_destroy(g);
    return good == nd ? 0 : 1;
  }
  vncl_options o;
  vncl_options_init(&o);
  o.device = dev;
  vncl_context *ctx = NULL;
  if (vncl_context_create(&ctx, &o)) {
    fprintf(stderr, "vncl info: %s\n", vncl_errmsg(NULL));
    if (jf) cli_json_close(&cmd, jf, json_path);
    return 1;
  }
  cJSON *j = NULL;
  bool ok = info_one(ctx, json, n, &j);
  if (j) {
    cli_print_json(j, jf);
    if (cli_json_close(&cmd, jf, json_path)) ok = false;
  }
  vncl_context_destroy(ctx);
  return ok ? 0 : 1;
}
