/* Shared pieces of the `vncl` command. */
#ifndef VNCL_CLI_H
#define VNCL_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "vncl.h"

int cmd_devices(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_autotune(int argc, char **argv);

/* Exit codes: usage errors; `vncl bench` when vncl-bench is absent, or
 * present but cannot be executed (the shell's codes for the same). */
#define CLI_USAGE 2
#define CLI_NOT_FOUND 127
#define CLI_CANNOT_RUN 126

/* Seconds on a monotonic clock. */
double cli_now(void);
cJSON *cli_device_json(const vncl_device_info *d);
cJSON *cli_memory_json(const vncl_memory_stats *m);
const char *cli_device_type(vncl_device_type t);
/* Prints the JSON (pretty) to stdout and frees it. */
void cli_print_json(cJSON *j);
/* Telemetry (cmd_monitor.c): the JSON object `info --json` and `monitor
 * --json` print (absent fields are null), a one-line summary for `info`,
 * and "PoCL" or the platform name for "no vendor telemetry for ...". */
cJSON *cli_telemetry_json(const vncl_telemetry *t, const vncl_device_info *d);
void cli_telemetry_summary(const vncl_telemetry *t, const vncl_device_info *d,
                           char *buf, size_t cap);
const char *cli_platform_short(const vncl_device_info *d);
/* Whether a selector names a group (vncl_group_create) rather than one
 * device: "all", "gpu", "cpu", "accelerator" (any case), or a list with a
 * comma. NULL or "": no. */
bool cli_group_selector(const char *sel);
/* Matches "--name" and "--name=value"/"--name value"; advances *i. */
bool cli_opt_value(int argc, char **argv, int *i, const char *name,
                   const char **value);

#endif
