/*
 * `vncl autotune --show`: per (kernel family, dtype, class) the parameters
 * in force on a context and where they came from (a set installed on the
 * context, a database entry, a built-in row or the table's defaults), all
 * through include/vncl_tuning.h.
 */
#include <stdio.h>
#include <string.h>

#include "tuning_show.h"

static double value(const vncl_tuning_params *p, const char *name) {
  double v = 0;
  vncl_tuning_value(p, name, &v);
  return v;
}

/* " -DNAME=value" for every tunable of `kernel` in family "gemm". */
static void options(const vncl_tuning_params *p, const char *kernel,
                    FILE *f) {
  int first = 1;
  for (int i = 0; i < p->count; i++) {
    vncl_tunable t;
    if (vncl_tuning_tunable("gemm", i, &t) || strcmp(t.kernel, kernel))
      continue;
    fprintf(f, "%s-D%s=%d", first ? "" : " ", t.name, (int)p->values[i]);
    first = 0;
  }
}

static void source(const vncl_tuning_params *p, int gemm, FILE *f) {
  fprintf(f, "    from: %s\n", p->origin);
  if (p->source == VNCL_TUNING_SOURCE_DATABASE && p->rate > 0)
    fprintf(f, "    measured: %.1f %s on %s\n", p->rate,
            gemm ? "GFLOP/s" : "GB/s", p->date);
}

void tuning_show(vncl_context *ctx, FILE *f) {
  vncl_device_info info;
  vncl_tuning_database_info db;
  if (vncl_context_device_info(ctx, &info) || vncl_tuning_database(ctx, &db)) {
    fprintf(f, "tuning: %s\n", vncl_errmsg(ctx));
    return;
  }
  fprintf(f, "device: %s (%s, driver %s)\n", info.name, info.vendor,
          info.driver_version);
  if (db.state == 1)
    fprintf(f, "tuning database: %s (%d entries for this device)\n", db.path,
            db.entries);
  else if (db.state == -2)
    fprintf(f, "tuning database: %s not trusted, ignored: %s (built-in "
            "defaults)\n", db.path, db.why);
  else if (!db.path[0])
    fprintf(f, "tuning database: none (no home folder; built-in "
            "defaults)\n");
  else if (db.state == -1)
    fprintf(f, "tuning database: %s invalid: %s (built-in defaults)\n",
            db.path, db.why);
  else
    fprintf(f, "tuning database: none at %s (built-in defaults)\n", db.path);
  static const char *const classes[] = {"square", "narrow", "flat"};
  /* The storage classes: f32, f64, and 16-bit storage (f16 and bf16). */
  static const vncl_dtype dtypes[] = {VNCL_F32, VNCL_F64, VNCL_F16};
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 3; c++) {
      vncl_tuning_params p;
      if ((dtypes[a] == VNCL_F64 && !info.fp64) ||
          vncl_tuning_get(ctx, "gemm", dtypes[a], classes[c], &p))
        continue;
      int fast_local = value(&p, "fast") == 3;
      fprintf(f, "gemm %s%s %s: backend %s, %s kernel\n",
              vncl_dtype_name(dtypes[a]), a == 2 ? " (also bf16)" : "",
              classes[c], value(&p, "backend") == 1 ? "clblast" : "own",
              fast_local ? "packed_local" : "packed_cpu");
      fprintf(f, "    direct: ");
      options(&p, "gemm_direct", f);
      fprintf(f, "\n    fast:   ");
      options(&p, fast_local ? "gemm_packed_local" : "gemm_packed_cpu", f);
      double s16 = value(&p, "switch_mnk16");
      fprintf(f, "\n    switch_mnk %.0f, switch_mnk_bt %.0f",
              value(&p, "switch_mnk"), value(&p, "switch_mnk_bt"));
      if (s16 < 1e15) fprintf(f, ", switch_mnk16 %.0f (f16/bf16)", s16);
      /* Larger products' blocks: MB times big_tall, NB over it. */
      double big = value(&p, "big_mnk"), tall = value(&p, "big_tall");
      if (big < 1e15)
        fprintf(f, ", big_mnk %.0f (blocks MB x %.0f, NB / %.0f)", big, tall,
                tall);
      /* gemm_small's reach: single products, batches, batches with B's
       * columns strided (1e30: no limit of its own). */
      double sbt = value(&p, "small_batch_mnk_bt");
      fprintf(f, "\n    small_mnk %.0f, small_batch_mnk %.0f",
              value(&p, "small_mnk"), value(&p, "small_batch_mnk"));
      if (sbt < 1e15) fprintf(f, ", small_batch_mnk_bt %.0f", sbt);
      double stream = value(&p, "small_stream_bytes");
      if (stream > 0) fprintf(f, ", small_stream_bytes %.0f", stream);
      fprintf(f, "\n    small:  ");
      options(&p, "gemm_small", f);
      fprintf(f, "\n");
      source(&p, 1, f);
    }
  for (int i = 0; i < vncl_tuning_family_count(); i++) {
    const char *fam = vncl_tuning_family_name(i);
    vncl_tuning_params p;
    if (!strcmp(fam, "gemm") || vncl_tuning_get(ctx, fam, VNCL_F32, NULL, &p))
      continue;
    fprintf(f, "%s:", fam);
    for (int j = 0; j < p.count; j++)
      fprintf(f, " %s=%d", p.names[j], (int)p.values[j]);
    fprintf(f, "\n");
    source(&p, 0, f);
  }
}
