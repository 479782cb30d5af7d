/*
 * `vncl autotune --show`: one block per (kernel, dtype, class) with what
 * the library uses on a context and where it came from (the parameter
 * store's answer: a set installed on the context, a database entry, a
 * built-in row or the table's defaults).
 */
#include <stdio.h>
#include <string.h>

#include "autotune/autotune.h"

static void print_source(FILE *f, const vncl__param_family *fam,
                         vncl__param_source src, int row,
                         const vncl_context *ctx, const vncl__tuning_db *db,
                         vncl__tune_level lvl) {
  if (src == VNCL__SRC_DATABASE && db && row >= 0 && row < db->n) {
    const vncl__tune_entry *e = &db->e[row];
    fprintf(f, "    from: %s entry %d (%s)\n", ctx->tuning_db, row,
            vncl__tune_level_name(lvl));
    if (e->gflops > 0)
      fprintf(f, "    measured: %.1f %s on %s\n", e->gflops,
              strcmp(e->kernel, "gemm") ? "GB/s" : "GFLOP/s", e->date);
    return;
  }
  if (src == VNCL__SRC_USER) {
    fprintf(f, "    from: set on this context\n");
    return;
  }
  fprintf(f, "    from: built-in table (%s", fam->table);
  if (src == VNCL__SRC_BUILTIN && row >= 0 && row < fam->nrows) {
    fprintf(f, ", row %d", row);
    if (fam->rows[row].measured)
      fprintf(f, "; measured on %s", fam->rows[row].measured);
  } else {
    fprintf(f, ", the table's defaults");
  }
  fprintf(f, ")\n");
}

void vncl__tuning_show(vncl_context *ctx, FILE *f) {
  char why[512];
  const char *path = ctx->tuning_db;
  vncl__tuning_load(ctx);
  /* The store holds the file it applies; --show reads it again for the
   * entries' levels and rates. */
  vncl__tuning_db file;
  int state = vncl__tuning_db_read(path, &file, why, sizeof why, NULL, 0);
  bool have = state == 1;
  fprintf(f, "device: %s (%s, driver %s)\n", ctx->info.name, ctx->info.vendor,
          ctx->info.driver_version);
  if (have)
    fprintf(f, "tuning database: %s (%d entries for this device)\n", path,
            ctx->tuning_entries);
  else if (state == -2)
    fprintf(f, "tuning database: %s not trusted, ignored: %s (built-in "
            "defaults)\n", path, why);
  else if (!path[0])
    fprintf(f, "tuning database: none (no home folder; built-in "
            "defaults)\n");
  else if (why[0])
    fprintf(f, "tuning database: %s invalid: %s (built-in defaults)\n", path,
            why);
  else
    fprintf(f, "tuning database: none at %s (built-in defaults)\n", path);
  const vncl__param_family *gf = &vncl__gemm_family;
  int naccs = ctx->info.fp64 ? 2 : 1;
  for (int acc = 0; acc < naccs; acc++)
    for (int sh = 0; sh < VNCL__GEMM_SHAPES; sh++) {
      vncl__gemm_params p;
      vncl__param_source src;
      int row;
      vncl__params_get(ctx, gf, acc, sh, &p, &src, &row);
      vncl__tune_level lvl = VNCL__TUNE_BUILTIN_TABLE;
      if (have)
        vncl__tuning_find(&file, &ctx->info, gf->kernel, gf->acc_names[acc],
                          gf->shape_names[sh], &lvl);
      fprintf(f, "gemm %s%s %s: backend %s, %s kernel\n", gf->acc_names[acc],
              acc == 0 ? " (also f16, bf16)" : "", gf->shape_names[sh],
              p.backend == VNCL__GEMM_CLBLAST ? "clblast" : "own",
              p.fast == VNCL__GEMM_PACKED_CPU ? "packed_cpu" : "packed_local");
      char opt[512];
      vncl__gemm_options(VNCL__GEMM_DIRECT, &p, VNCL_F32, VNCL_F32, opt,
                         sizeof opt);
      fprintf(f, "    direct: %s\n", opt + 25);
      vncl__gemm_options((vncl__gemm_kernel)p.fast, &p, VNCL_F32, VNCL_F32,
                         opt, sizeof opt);
      fprintf(f, "    fast:   %s\n", opt + 25);
      fprintf(f, "    switch_mnk %.0f, switch_mnk_bt %.0f\n", p.switch_mnk,
              p.switch_mnk_bt);
      print_source(f, gf, src, row, ctx, have ? &file : NULL, lvl);
    }
  for (int fam = 0; fam < VNCL__OPS_FAMILIES; fam++) {
    const vncl__param_family *of = vncl__ops_family_of(fam);
    int raw[VNCL__OPS_MAX_PARAMS], v[VNCL__OPS_MAX_PARAMS];
    vncl__param_source src;
    int row;
    vncl__params_get(ctx, of, 0, 0, raw, &src, &row);
    vncl__ops_params(ctx, (vncl__ops_family)fam, v);
    vncl__tune_level lvl = VNCL__TUNE_BUILTIN_TABLE;
    if (have)
      vncl__tuning_find(&file, &ctx->info, of->kernel, "any", "default", &lvl);
    fprintf(f, "%s:", of->kernel);
    for (int i = 0; i < of->n; i++) fprintf(f, " %s=%d", of->t[i].name, v[i]);
    fprintf(f, "\n");
    print_source(f, of, src, row, ctx, have ? &file : NULL, lvl);
  }
  if (have) vncl__tuning_db_free(&file);
}
