/* The `vncl` command: device report, checks, and (as they land) tuning and
 * benchmarks. Usage errors exit 2, failed checks 1, success 0. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
  const char *name;
  int (*fn)(int, char **);
  const char *help;
} commands[] = {
    {"devices", cmd_devices, "list every OpenCL device with its selector"},
    {"info", cmd_info, "device report, memory, and a verified matrix product"},
    {"doctor", cmd_doctor, "deployment checklist with a fix for each failure"},
    {"monitor", cmd_monitor, "live memory, utilization, temperature, power per device"},
    {"autotune", cmd_autotune, "tune kernels for a device; --show: parameters in use"},
    {"bench", cmd_bench, "benchmarks against CLBlast, clFFT, OpenBLAS, FFTW, memcpy"},
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: vncl <command> [options]\n"
          "       vncl --version | help\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
  fprintf(f, "\n'vncl <command> --help' describes each command's options.\n"
             "Environment: VNCL_DEVICE, VNCL_CACHE_DIR, VNCL_MEMORY_LIMIT, "
             "VNCL_LOG, VNCL_KERNEL_DIR (see README.md).\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    printf("vncl %s\n", vncl_version_string());
    return 0;
  }
  if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    usage(stdout);
    return 0;
  }
  /* Internal: a fresh process measured by `vncl bench --suite startup`. */
  if (!strcmp(cmd, "__startup-child"))
    return cmd_startup_child(argc - 1, argv + 1);
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (!strcmp(cmd, commands[i].name))
      return commands[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "vncl: unknown command '%s'\n\n", cmd);
  usage(stderr);
  return CLI_USAGE;
}
