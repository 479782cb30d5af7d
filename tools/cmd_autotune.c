/* vncl autotune [--device SEL] [--quick] [--budget S] [--out FILE] [--show]
 *               [--kernel gemm,ops,...] [--dtype f32,f64,...]
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

static void usage(FILE *f) {
  fprintf(f,
          "usage: vncl autotune [--device SEL] [--quick] [--budget SECONDS] "
          "[--out FILE]\n"
          "                     [--kernel gemm,ops,FAMILY...] [--dtype "
          "f32,f64,f16,bf16]\n"
          "       vncl autotune --show [--device SEL] [--out FILE]\n"
          "Searches GEMM tile sizes per dtype and shape class (ours against "
          "CLBlast, whose\nparameters are tuned too) and the tensor-op "
          "kernels' work-group sizes and vector\nwidths; candidates run in "
          "child processes with a timeout, so one that crashes\nor hangs is "
          "skipped. Results go to FILE (default: VNCL_TUNING_DB, else\n"
          "$XDG_DATA_HOME/vncl/tuning.json); an interrupted run resumes from "
          "FILE.partial.\n"
          "  --quick          about a minute; --budget sets the seconds "
          "(default 780)\n"
          "  --timeout S      per candidate (default 120)\n"
          "  --show           the parameters in use and their source\n");
}

int cmd_autotune(int argc, char **argv) {
  autotune_opts o;
  memset(&o, 0, sizeof o);
  bool show = false;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    if (!strcmp(argv[i], "--worker")) {
      return autotune_worker_main();
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(argv[i], "--quick")) {
      o.quick = true;
    } else if (!strcmp(argv[i], "--show")) {
      show = true;
    } else if (cli_opt_value(argc, argv, &i, "--device", &v) ||
               cli_opt_value(argc, argv, &i, "--out", &v) ||
               cli_opt_value(argc, argv, &i, "--kernel", &v) ||
               cli_opt_value(argc, argv, &i, "--dtype", &v)) {
      /* i now points at the value (or past the option when it has none). */
      const char *opt = v && argv[i] == v ? argv[i - 1] : argv[i];
      if (!v || !*v) {
        fprintf(stderr, "vncl autotune: %s needs a value\n", opt);
        return CLI_USAGE;
      }
      if (!strncmp(opt, "--device", 8)) o.device = v;
      else if (!strncmp(opt, "--out", 5)) o.out = v;
      else if (!strncmp(opt, "--kernel", 8)) o.kernels = v;
      else o.dtypes = v;
    } else if (!strncmp(argv[i], "--budget", 8) ||
               !strncmp(argv[i], "--timeout", 9)) {
      bool budget = argv[i][2] == 'b';
      if (!cli_opt_value(argc, argv, &i, budget ? "--budget" : "--timeout",
                         &v)) {
        fprintf(stderr, "vncl autotune: unknown option '%s'\n", argv[i]);
        return CLI_USAGE;
      }
      char *end = NULL;
      double d = v ? strtod(v, &end) : 0;
      if (!v || *end || d <= 0) {
        fprintf(stderr, "vncl autotune: %s needs a positive number of "
                "seconds\n", budget ? "--budget" : "--timeout");
        return CLI_USAGE;
      }
      if (budget) o.budget = d;
      else o.timeout = d;
    } else {
      fprintf(stderr, "vncl autotune: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return CLI_USAGE;
    }
  }
  static const char *const kernels[] = {"gemm", "ops", NULL};
  static const char *const dtypes[] = {"f32", "f64", "f16", "bf16", NULL};
  char bad[64];
  if ((o.kernels && !list_ok(o.kernels, kernels, true, bad, sizeof bad)) ||
      (o.dtypes && !list_ok(o.dtypes, dtypes, false, bad, sizeof bad))) {
    fprintf(stderr, "vncl autotune: unknown kernel or dtype '%s' (kernels: "
            "gemm, ops, elementwise, cast, transpose, reduce, softmax, "
            "random; dtypes: f32, f64, f16, bf16)\n", bad);
    return CLI_USAGE;
  }
  if ((o.kernels && !*o.kernels) || (o.dtypes && !*o.dtypes) ||
      (o.device && !*o.device)) {
    fprintf(stderr, "vncl autotune: empty option value\n");
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
