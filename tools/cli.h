/* Shared pieces of the `vncl` command. */
#ifndef VNCL_CLI_H
#define VNCL_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

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
/* Prints the JSON (pretty) to f and frees it. */
void cli_print_json(cJSON *j, FILE *f);
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
/* ---- options (cli_opts.c): one table per command, one parser -------------
 * Every command declares its options as a cli_opt table ending in {0} and
 * calls cli_parse. Long options only, matched whole (no abbreviations),
 * "--name VALUE" or "--name=VALUE"; numbers must be the whole word and in
 * [min, max]; -h/--help prints the command's help on stdout. A usage error
 * prints what was wrong and the command's help on stderr. */
typedef enum cli_kind {
  CLI_FLAG,   /* bool *out */
  CLI_STRING, /* const char **out; never "" */
  CLI_INT,    /* long *out, in [min, max] */
  CLI_DOUBLE, /* double *out, finite, in [min, max] */
  CLI_JSON    /* --json [FILE]: bool *out set, const char **out2 the FILE
                 (NULL: the standard output); --json=FILE, or FILE as the
                 next word when that ends in ".json" or holds a '/' */
} cli_kind;
typedef struct cli_opt {
  const char *name; /* without the leading "--" */
  cli_kind kind;
  void *out;
  void *out2;
  double min, max;
  const char *arg;  /* the value's name in the help ("SEL"); NULL: N/X/FILE */
  const char *help; /* one line */
  bool hidden;      /* internal: accepted, not listed */
} cli_opt;
typedef struct cli_command {
  const char *prog;   /* "vncl" (NULL) or "vncl-bench" ... for messages */
  const char *name;   /* "info" */
  const cli_opt *opts;
  const char *about;  /* printed after the options, lines ending in \n */
} cli_command;
#define CLI_PARSED (-1)
/* Parses argv[1..argc) (argv[0] is the command's name). Returns CLI_PARSED
 * to go on, 0 when the help was printed, CLI_USAGE after a usage error. */
int cli_parse(const cli_command *c, int argc, char **argv);
void cli_help(const cli_command *c, FILE *f);
/* The stream --json writes to: the file (NULL and a message when it cannot
 * be made), or stdout for path NULL; cli_json_close flushes and closes it
 * and returns 1 (with a message) when the writing failed, else 0. */
FILE *cli_json_open(const cli_command *c, const char *path);
int cli_json_close(const cli_command *c, FILE *f, const char *path);
/* The environment variables the library and the tools read (cli_env.c),
 * for `vncl --help`: every one, with a line of meaning. */
typedef struct cli_env_var {
  const char *name;
  const char *meaning;
} cli_env_var;
extern const cli_env_var cli_env[];

#endif
