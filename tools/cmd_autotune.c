/* vncl autotune [--device SEL] [--quick] [--budget S] [--timeout S]
 *               [--out FILE] [--show] [--kernel gemm,ops,...]
 *               [--dtype f32,f64,...]
 * Tunes GEMM and the tensor-op kernels for a device and writes the tuning
 * database the library reads (the autotuner: tools/autotune/, over
 * include/vncl_tuning.h); --show prints what the library uses and where it
 * came from. `--worker` (hidden) is the child process that measures
 * candidates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/autotune.h"
#include "cli.h"
#include "tuning_show.h"

/* Every item of a comma list is one of the names in ok (NULL-ended) or,
 * when families is set, a tensor-op family. */
static bool list_ok(const char *list, const char *const *ok, bool families,
                    char *bad, size_t cap) {
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    bool found = false;
    for (int i = 0; ok[i] && !found; i++)
      found = strlen(ok[i]) == l && !strncmp(ok[i], p, l);
    for (int f = 0; families && f < vncl_tuning_family_count() && !found;
         f++) {
      const char *n = vncl_tuning_family_name(f);
      found = strcmp(n, "gemm") && strlen(n) == l && !strncmp(n, p, l);
    }
    if (!found) {
      snprintf(bad, cap, "%.*s", (int)l, p);
      return false;
    }
    p += l + (e ? 1 : 0);
  }
  return true;
}

int cmd_autotune(int argc, char **argv) {
  autotune_opts o;
  memset(&o, 0, sizeof o);
  bool show = false, worker = false;
  const cli_opt opts[] = {
      {.name = "device", .kind = CLI_STRING, .out = &o.device, .arg = "SEL",
       .help = "the device to tune (default: VNCL_DEVICE, else the first)"},
      {.name = "quick", .kind = CLI_FLAG, .out = &o.quick,
       .help = "about a minute (default budget 75 s)"},
      {.name = "budget", .kind = CLI_DOUBLE, .out = &o.budget, .min = 0.001,
       .max = 1e6, .arg = "SECONDS",
       .help = "seconds for the whole search (default 780)"},
      {.name = "timeout", .kind = CLI_DOUBLE, .out = &o.timeout,
       .min = 0.001, .max = 86400, .arg = "SECONDS",
       .help = "per candidate (default 120)"},
      {.name = "out", .kind = CLI_STRING, .out = &o.out, .arg = "FILE",
       .help = "the database (default: VNCL_TUNING_DB, else "
               "$XDG_DATA_HOME/vncl/tuning.json)"},
      {.name = "kernel", .kind = CLI_STRING, .out = &o.kernels,
       .arg = "K,...", .help = "gemm, ops, or an ops family (elementwise, "
                               "cast, transpose, reduce, softmax, random)"},
      {.name = "dtype", .kind = CLI_STRING, .out = &o.dtypes, .arg = "D,...",
       .help = "f32, f64, f16, bf16"},
      {.name = "show", .kind = CLI_FLAG, .out = &show,
       .help = "the parameters in use and their source (with --device, "
               "--out)"},
      {.name = "worker", .kind = CLI_FLAG, .out = &worker, .hidden = true},
      {0}};
  const cli_command cmd = {
      .name = "autotune", .opts = opts,
      .about = "Searches GEMM tile sizes per dtype and shape class (ours "
               "against CLBlast, whose\nparameters are tuned too) and the "
               "tensor-op kernels' work-group sizes and vector\nwidths; "
               "candidates run in child processes with a timeout, so one "
               "that crashes\nor hangs is skipped. An interrupted run "
               "resumes from FILE.partial (exit 3).\n"};
  int pr = cli_parse(&cmd, argc, argv);
  if (pr != CLI_PARSED) return pr;
  /* The child process that measures candidates (autotune_runner.c). */
  if (worker) return autotune_worker_main();
  static const char *const kernels[] = {"gemm", "ops", NULL};
  static const char *const dtypes[] = {"f32", "f64", "f16", "bf16", NULL};
  char bad[64];
  if ((o.kernels && !list_ok(o.kernels, kernels, true, bad, sizeof bad)) ||
      (o.dtypes && !list_ok(o.dtypes, dtypes, false, bad, sizeof bad))) {
    fprintf(stderr, "vncl autotune: unknown kernel or dtype '%s' (kernels: "
            "gemm, ops, elementwise, cast, transpose, reduce, softmax, "
            "random; dtypes: f32, f64, f16, bf16)\n\n", bad);
    cli_help(&cmd, stderr);
    return CLI_USAGE;
  }
  if (show) {
    vncl_options opts;
    vncl_options_init(&opts);
    opts.device = o.device;
    opts.tuning_db = o.out;
    vncl_context *ctx;
    if (vncl_context_create(&ctx, &opts)) {
      fprintf(stderr, "vncl autotune: %s\n", vncl_errmsg(NULL));
      return 1;
    }
    tuning_show(ctx, stdout);
    vncl_context_destroy(ctx);
    return 0;
  }
  o.progress_tty = isatty(2);
  return autotune_run(&o);
}
