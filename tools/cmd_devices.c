/* vncl devices [--json [FILE]] */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_devices(int argc, char **argv) {
  bool json = false;
  const char *json_path = NULL;
  const cli_opt opts[] = {
      {.name = "json", .kind = CLI_JSON, .out = &json, .out2 = &json_path,
       .help = "the list as JSON, to FILE (default: stdout)"},
      {0}};
  const cli_command cmd = {
      .name = "devices", .opts = opts,
      .about = "Lists every OpenCL device in vncl's default order (GPUs "
               "first) with the selectors\nthat pick it: its index, P:D "
               "(platform:device), its type, or part of its name.\n"};
  int pr = cli_parse(&cmd, argc, argv);
  if (pr != CLI_PARSED) return pr;
  FILE *jf = json ? cli_json_open(&cmd, json_path) : NULL;
  if (json && !jf) return 1;
  int n = 0;
  vncl_status s = vncl_device_count(&n);
  if (s) {
    if (json) {
      cJSON *j = cJSON_CreateObject();
      cJSON_AddArrayToObject(j, "devices");
      cJSON_AddStringToObject(j, "error", vncl_errmsg(NULL));
      cli_print_json(j, jf);
      cli_json_close(&cmd, jf, json_path);
    } else {
      fprintf(stderr, "vncl devices: %s\n", vncl_errmsg(NULL));
    }
    return 1;
  }
  cJSON *arr = json ? cJSON_CreateArray() : NULL;
  for (int i = 0; i < n; i++) {
    vncl_device_info d;
    if (vncl_device_get_info(i, &d)) continue;
    if (json) {
      cJSON_AddItemToArray(arr, cli_device_json(&d));
    } else {
      printf("[%d] %d:%d %-11s %s | %s | %s | %u CU, %.1f GiB, fp64 %s, "
             "fp16 %s%s\n",
             i, d.platform_index, d.device_index, cli_device_type(d.type),
             d.name, d.vendor, d.platform, d.compute_units,
             (double)d.global_mem_bytes / (1u << 30), d.fp64 ? "yes" : "no",
             d.fp16 ? "yes" : "no",
             d.serial_driver ? ", one command at a time (driver defect)" : "");
    }
  }
  if (json) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "devices", arr);
    cli_print_json(j, jf);
    return cli_json_close(&cmd, jf, json_path);
  }
  return 0;
}
