/* The `vncl` command: device report, checks, monitoring, tuning, and (in
 * the separate vncl-bench) benchmarks. Usage errors exit 2, failed checks
 * 1, success 0. Every command parses its options with cli_parse
 * (cli_opts.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* `vncl bench ...` runs the separate vncl-bench program (bench/), which
 * links the peers (OpenBLAS, FFTW, CLBlast and clFFT called directly), so
 * that this command links only what the library needs. vncl-bench is looked
 * for next to this program, then in PATH. Returns only when it cannot be
 * run: CLI_NOT_FOUND (127) when absent, 126 when it cannot be executed. */
static int cmd_bench(int argc, char **argv) {
  char *args[argc + 1];
  args[0] = (char *)"vncl-bench";
  for (int i = 1; i < argc; i++) args[i] = argv[i];
  args[argc] = NULL;
  char self[PATH_MAX], next[PATH_MAX + 16] = "";
  int e = ENOENT;
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  char *slash = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
  if (slash) {
    *slash = '\0';
    snprintf(next, sizeof next, "%s/vncl-bench", self);
    execv(next, args); /* returns only on failure */
    e = errno;
  }
  if (e == ENOENT) {
    execvp("vncl-bench", args);
    e = errno;
  }
  if (e == ENOENT) {
    fprintf(stderr,
            "vncl bench: vncl-bench not found (looked next to this program%s%s "
            "and in PATH); build it with `make` (build/vncl-bench) or install "
            "it with `make install`\n",
            next[0] ? ", for " : "", next);
    return CLI_NOT_FOUND;
  }
  fprintf(stderr, "vncl bench: cannot run vncl-bench: %s\n", strerror(e));
  return CLI_CANNOT_RUN;
}

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

static void usage(FILE *f, bool env) {
  fprintf(f,
          "usage: vncl <command> [options]\n"
          "       vncl --version | --help | help [COMMAND]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
  fprintf(f, "\n'vncl help COMMAND' or 'vncl COMMAND --help' describes a "
             "command's options.\nExit status: 0 success, 1 a failed check "
             "or run, 2 a usage error.\n");
  if (!env) {
    fprintf(f, "'vncl --help' lists the environment variables.\n");
    return;
  }
  fprintf(f, "\nenvironment (README.md, \"Environment variables\"):\n");
  for (const cli_env_var *e = cli_env; e->name; e++)
    fprintf(f, "  %-24s %s\n", e->name, e->meaning);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr, false);
    return CLI_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    printf("vncl %s\n", vncl_version_string());
    return 0;
  }
  bool help = !strcmp(cmd, "help");
  if (help && argc > 3) {
    fprintf(stderr, "vncl help: one command at most\n\n");
    usage(stderr, false);
    return CLI_USAGE;
  }
  if (help && argc == 3) cmd = argv[2]; /* vncl help CMD: CMD --help */
  else if (help || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    usage(stdout, true);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (!strcmp(cmd, commands[i].name)) {
      if (help) {
        char *hv[] = {(char *)cmd, (char *)"--help", NULL};
        return commands[i].fn(2, hv);
      }
      return commands[i].fn(argc - 1, argv + 1);
    }
  fprintf(stderr, "vncl: unknown command '%s'\n\n", cmd);
  usage(stderr, false);
  return CLI_USAGE;
}
