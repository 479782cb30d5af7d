/* The tuning database and the autotuner: constraint filtering against
 * device limits, database round trip, every level of the lookup, corrupt
 * and older-schema files, installing entries at context creation and
 * --show, crash isolation (a candidate that aborts, one that hangs), and
 * resuming an interrupted run. This binary is also the autotuner's worker
 * when run as `test_tuning autotune --worker`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* Internal headers on purpose: the tuning database and the candidate rules
 * on made-up devices (api/tuning_check.h), and the tool's own autotuner. */
#include "../tools/autotune/autotune.h"
#include "api/tuning_check.h"
#include "../tools/tuning_show.h"
#include "ops/ops.h"

static const char *const worker_argv[] = {"/proc/self/exe", "autotune",
                                          "--worker", NULL};

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static vncl__tune_device small_gpu(void) {
  vncl__tune_device d;
  memset(&d, 0, sizeof d);
  d.info.type = VNCL_DEVICE_GPU;
  d.info.max_work_group_size = 64;
  d.info.preferred_work_group_multiple = 32;
  d.info.local_mem_bytes = 4096;
  d.native_float_width = 1;
  return d;
}

static int idx_of(const tspace *s, const char *name, int value) {
  for (int i = 0; i < s->np; i++)
    if (!strcmp(s->p[i].name, name))
      for (int k = 0; k < s->p[i].n; k++)
        if (s->p[i].v[k] == value) return k;
  fail_msg("%s=%d is not in space %s", name, value, s->name);
  return -1;
}

static void set_idx(const tspace *s, int *idx, const char *name,
                    int value) {
  for (int i = 0; i < s->np; i++)
    if (!strcmp(s->p[i].name, name)) idx[i] = idx_of(s, name, value);
}

/* Candidate idx of the autotuner's space s over base, on a device that is
 * not present (the library's rules behind vncl_tuning_check, given a
 * device description: this test reaches them inside on purpose). */
static bool valid(const vncl__tune_device *d, const tspace *s, const int *idx,
                  const vncl__gemm_params *base, int acc, char *why,
                  size_t cap) {
  if (s->kind == TS_OPS) {
    int v[VNCL__OPS_MAX_PARAMS] = {0};
    for (int i = 0; i < s->np; i++) v[i] = s->p[i].v[idx[i]];
    for (int f = 0; f < VNCL__OPS_FAMILIES; f++)
      if (!strcmp(vncl__ops_family_of(f)->kernel, s->family))
        return vncl__tuning_check_dev(d, vncl__ops_family_of(f), 0, v, 0, why,
                                      cap);
    fail_msg("no ops family %s", s->family);
  }
  vncl__gemm_params p = *base;
  for (int i = 0; i < s->np; i++)
    assert_true(vncl__gemm_param_set_named(&p, s->p[i].name,
                                           s->p[i].v[idx[i]]));
  return vncl__tuning_check_dev(
      d, &vncl__gemm_family, acc, &p,
      s->kind == TS_GEMM_DIRECT ? VNCL__CHECK_DIRECT : VNCL__CHECK_FAST, why,
      cap);
}

static void test_constraints(void **state) {
  (void)state;
  vncl__tune_device d = small_gpu();
  char why[256];
  /* The base set is the fake device's built-in row: it names the fast
   * kernel the search tunes, and that work-groups must be multiples. */
  vncl__gemm_params base;
  assert_true(vncl__gemm_params_builtin(&d.info, d.native_float_width,
                                        VNCL__GEMM_ACC32,
                                        VNCL__GEMM_SHAPE_SQUARE, false, &base));
  const tspace *sp = tspace_gemm(tspace_fast_kernel(base.fast), false);
  assert_string_equal(sp->name, "gemm_packed_local");
  int idx[TS_MAX_PARAMS] = {0};
  /* 32 x 32 tile, 8 x 8 = 64 items, 4-wide: 8 KiB of local memory with
   * KWG 32: over the fake device's 4 KiB. */
  set_idx(sp, idx, "MWG", 32);
  set_idx(sp, idx, "NWG", 32);
  set_idx(sp, idx, "KWG", 32);
  set_idx(sp, idx, "MDIMC", 8);
  set_idx(sp, idx, "NDIMC", 8);
  set_idx(sp, idx, "VWM", 4);
  set_idx(sp, idx, "VWN", 4);
  set_idx(sp, idx, "KWI", 2);
  set_idx(sp, idx, "SA", 1);
  set_idx(sp, idx, "SB", 1);
  assert_false(valid(&d, sp, idx, &base, 0, why, sizeof why));
  assert_non_null(strstr(why, "local memory"));
  set_idx(sp, idx, "KWG", 8); /* 2 KiB: fits */
  assert_true(valid(&d, sp, idx, &base, 0, why, sizeof why));
  set_idx(sp, idx, "MDIMC", 16); /* 128 items: above the maximum 64 */
  set_idx(sp, idx, "VWM", 2);
  assert_false(valid(&d, sp, idx, &base, 0, why, sizeof why));
  assert_non_null(strstr(why, "work-items"));
  d.info.max_work_group_size = 1024;
  d.info.preferred_work_group_multiple = 48; /* 128 is not a multiple */
  assert_false(valid(&d, sp, idx, &base, 0, why, sizeof why));
  assert_non_null(strstr(why, "multiple"));
  d.info.preferred_work_group_multiple = 32;
  assert_true(valid(&d, sp, idx, &base, 0, why, sizeof why));
  set_idx(sp, idx, "MWG", 64); /* 64 % (16 * 8) != 0 */
  set_idx(sp, idx, "VWM", 8);
  assert_false(valid(&d, sp, idx, &base, 0, why, sizeof why));

  /* CPU: the register-pressure heuristic (16 ymm registers of 8 floats). */
  vncl__tune_device c;
  memset(&c, 0, sizeof c);
  c.info.type = VNCL_DEVICE_CPU;
  c.info.max_work_group_size = 4096;
  c.info.local_mem_bytes = 512 * 1024;
  c.native_float_width = 8;
  vncl__gemm_params cb; /* the row gives the register count (VREGS) */
  assert_true(vncl__gemm_params_builtin(&c.info, c.native_float_width,
                                        VNCL__GEMM_ACC32,
                                        VNCL__GEMM_SHAPE_SQUARE, false, &cb));
  const tspace *cs = tspace_gemm(tspace_fast_kernel(cb.fast), false);
  assert_string_equal(cs->name, "gemm_packed_cpu");
  int ci[TS_MAX_PARAMS] = {0};
  set_idx(cs, ci, "MR", 6);
  set_idx(cs, ci, "NR", 16);
  set_idx(cs, ci, "VW", 8);
  set_idx(cs, ci, "MB", 48);
  set_idx(cs, ci, "NB", 64);
  set_idx(cs, ci, "KU", 4);
  assert_true(valid(&c, cs, ci, &cb, 0, why, sizeof why));
  set_idx(cs, ci, "NR", 64); /* 6 x 64 / 8 = 48 accumulators > 16 */
  assert_false(valid(&c, cs, ci, &cb, 0, why, sizeof why));
  assert_non_null(strstr(why, "registers"));
  c.native_float_width = 16; /* AVX-512: 6 x 64 fits 32 zmm ... */
  assert_true(vncl__gemm_params_builtin(&c.info, c.native_float_width,
                                        VNCL__GEMM_ACC32,
                                        VNCL__GEMM_SHAPE_SQUARE, false, &cb));
  /* ... in 16-float vectors, not in 8-float ones (one register each: 48
   * accumulators + 8 B + 1). */
  assert_false(valid(&c, cs, ci, &cb, 0, why, sizeof why));
  assert_non_null(strstr(why, "57 vector registers"));
  set_idx(cs, ci, "VW", 16);
  assert_true(valid(&c, cs, ci, &cb, 0, why, sizeof why));
  set_idx(cs, ci, "MB", 28); /* MB % MR */
  assert_false(valid(&c, cs, ci, &cb, 0, why, sizeof why));

  /* Ops: a 64 x 64 transpose tile needs 33 KiB of local memory. */
  tspace ts;
  assert_true(tspace_from_ops("transpose", false, &ts));
  int ti[TS_MAX_PARAMS] = {0};
  set_idx(&ts, ti, "TILE", 64);
  set_idx(&ts, ti, "WGY", 1);
  d = small_gpu();
  assert_false(valid(&d, &ts, ti, NULL, 0, why, sizeof why));
  set_idx(&ts, ti, "TILE", 16);
  set_idx(&ts, ti, "WGY", 2); /* 32 items: fits */
  assert_true(valid(&d, &ts, ti, NULL, 0, why, sizeof why));
  set_idx(&ts, ti, "WGY", 16); /* 256 items */
  assert_false(valid(&d, &ts, ti, NULL, 0, why, sizeof why));
}

static void fill_entry(vncl__tune_entry *e, const char *vendor,
                       const char *device, const char *driver,
                       const char *type, int mr) {
  memset(e, 0, sizeof *e);
  vncl__strlcpy(e->vendor, vendor, sizeof e->vendor);
  vncl__strlcpy(e->device, device, sizeof e->device);
  vncl__strlcpy(e->driver, driver, sizeof e->driver);
  vncl__strlcpy(e->library, vncl_version_string(), sizeof e->library);
  vncl__strlcpy(e->type, type, sizeof e->type);
  vncl__strlcpy(e->kernel, "gemm", sizeof e->kernel);
  vncl__strlcpy(e->dtype, "f32", sizeof e->dtype);
  vncl__strlcpy(e->shape, "square", sizeof e->shape);
  vncl__strlcpy(e->backend, "own", sizeof e->backend);
  vncl__strlcpy(e->date, "2026-01-01T00:00:00Z", sizeof e->date);
  e->gflops = 100 + mr;
  e->params = cJSON_CreateObject();
  cJSON_AddNumberToObject(e->params, "MR", mr);
}

static int mr_of(const vncl__tune_entry *e) {
  return cJSON_GetObjectItem(e->params, "MR")->valueint;
}

static vncl__tune_device fake_cpu(int float_width) {
  vncl__tune_device c;
  memset(&c, 0, sizeof c);
  c.info.type = VNCL_DEVICE_CPU;
  c.info.max_work_group_size = 4096;
  c.info.local_mem_bytes = 512 * 1024;
  c.info.fp64 = 1;
  c.native_float_width = float_width;
  return c;
}

/* Whether set p (the row's, with name=value laid over it) fits d, every
 * kernel checked; the reason in why. */
static bool fits_with(const vncl__tune_device *d, int acc,
                      const vncl__gemm_params *row, const char *name,
                      int value, char *why, size_t cap) {
  vncl__gemm_params p = *row;
  if (name) assert_true(vncl__gemm_param_set_named(&p, name, value));
  return vncl__tuning_check_dev(
      d, &vncl__gemm_family, acc, &p,
      VNCL__CHECK_DIRECT | VNCL__CHECK_FAST | VNCL__CHECK_SMALL, why, cap);
}

/* A built-in row outside the table's candidates (the AVX2 f64 row: VW 4,
 * NR 8, where the table lists VW 8 and 16, NR from 16) left the search no
 * point that fits 16 registers: `vncl autotune` measured the defaults
 * alone. tspace_with_base adds the row's values in order, so the row is a
 * point of the space, it fits, and the climb has neighbours that fit. */
static void test_space_with_base(void **state) {
  (void)state;
  vncl__tune_device c;
  memset(&c, 0, sizeof c);
  c.info.type = VNCL_DEVICE_CPU;
  c.info.max_work_group_size = 4096;
  c.info.local_mem_bytes = 512 * 1024;
  c.info.fp64 = true;
  c.native_float_width = 8;
  vncl__gemm_params cb;
  assert_true(vncl__gemm_params_builtin(&c.info, c.native_float_width,
                                        VNCL__GEMM_ACC64,
                                        VNCL__GEMM_SHAPE_SQUARE, false, &cb));
  cJSON *o = vncl__gemm_params_to_json(&cb);
  vncl_tuning_params base;
  assert_true(params_from_json(o, &base));
  cJSON_Delete(o);
  char why[256];
  for (int q = 0; q < 2; q++) {
    const tspace *sp = tspace_gemm(tspace_fast_kernel(cb.fast), q);
    tspace ws;
    tspace_with_base(sp, &base, &ws);
    assert_int_equal(ws.np, sp->np);
    int idx[TS_MAX_PARAMS] = {0};
    for (int i = 0; i < ws.np; i++) {
      double want;
      assert_true(params_get(&base, ws.p[i].name, &want));
      idx[i] = idx_of(&ws, ws.p[i].name, (int)want);
      /* The table's candidates all stay, in order, with at most the
       * row's value added. */
      assert_true(ws.p[i].n == sp->p[i].n || ws.p[i].n == sp->p[i].n + 1);
      for (int k = 0; k < sp->p[i].n; k++)
        idx_of(&ws, sp->p[i].name, sp->p[i].v[k]);
      for (int k = 1; k < ws.p[i].n; k++)
        assert_true(ws.p[i].v[k - 1] < ws.p[i].v[k]);
    }
    assert_true(valid(&c, &ws, idx, &cb, VNCL__GEMM_ACC64, why, sizeof why));
    int fit = 0;
    for (int i = 0; i < ws.np; i++)
      for (int d = -1; d <= 1; d += 2) {
        int nb[TS_MAX_PARAMS];
        memcpy(nb, idx, sizeof nb);
        nb[i] += d;
        if (nb[i] >= 0 && nb[i] < ws.p[i].n &&
            valid(&c, &ws, nb, &cb, VNCL__GEMM_ACC64, why, sizeof why))
          fit++;
      }
    assert_true(fit > 0);
    /* A space that already holds every value is left as it is. */
    tspace again;
    tspace_with_base(&ws, &base, &again);
    assert_int_equal(again.np, ws.np);
    for (int i = 0; i < ws.np; i++) {
      assert_int_equal(again.p[i].n, ws.p[i].n);
      assert_memory_equal(again.p[i].v, ws.p[i].v,
                          (size_t)ws.p[i].n * sizeof ws.p[i].v[0]);
    }
  }
}

/* The register check (docs/tuning.md, "The register check"): every
 * built-in CPU row fits its own VREGS with every kernel it runs, and sets
 * that overflow are refused with the count in the message. */
static void test_register_model(void **state) {
  (void)state;
  char why[256];
  const int widths[] = {16, 8};
  for (int w = 0; w < 2; w++) {
    vncl__tune_device c = fake_cpu(widths[w]);
    for (int acc = 0; acc < VNCL__GEMM_ACCS; acc++)
      for (int sh = 0; sh < VNCL__GEMM_SHAPES; sh++) {
        vncl__gemm_params row;
        assert_true(vncl__gemm_params_builtin(
            &c.info, c.native_float_width, (vncl__gemm_acc)acc,
            (vncl__gemm_shape)sh, false, &row));
        assert_true(row.vregs > 0);
        if (!fits_with(&c, acc, &row, NULL, 0, why, sizeof why))
          fail_msg("float width %d, acc %d, shape %d: %s", widths[w], acc,
                   sh, why);
      }
  }

  /* AVX2 (16 ymm of 8 floats), f32: the direct row's 6 x 16 tile with
   * KWGD 4 stages 6 rows of A: 12 accumulators + 2 B + 6 A + 1 = 21. */
  vncl__tune_device c = fake_cpu(8);
  vncl__gemm_params row;
  assert_true(vncl__gemm_params_builtin(&c.info, 8, VNCL__GEMM_ACC32,
                                        VNCL__GEMM_SHAPE_SQUARE, false, &row));
  assert_int_equal(row.vregs, 16);
  assert_false(fits_with(&c, 0, &row, "KWGD", 4, why, sizeof why));
  assert_non_null(strstr(why, "gemm_direct: 21 vector registers"));
  assert_non_null(strstr(why, "6 of staged A rows"));
  assert_non_null(strstr(why, "VREGS is 16"));
  /* KWGD 3 takes the scalar path: no staged rows, 15 fit. */
  assert_true(fits_with(&c, 0, &row, "KWGD", 3, why, sizeof why));
  /* gemm_small with 4 vectors a row: 24 + 4 + 1 = 29 of 16. */
  assert_false(fits_with(&c, 0, &row, "SM_NV", 4, why, sizeof why));
  assert_non_null(strstr(why, "gemm_small: 29 vector registers"));
  /* 16-float vectors on 8-float registers take two each: 6 x 32 with
   * VW 16 is 24 + 4 + 1 = 29, the same as VW 8. */
  vncl__gemm_params wide = row;
  assert_true(vncl__gemm_param_set_named(&wide, "NR", 32));
  assert_false(fits_with(&c, 0, &wide, "VW", 16, why, sizeof why));
  assert_non_null(strstr(why, "gemm_packed_cpu: 29 vector registers"));

  /* AVX-512 f64 (8 doubles a zmm): the old direct row, 6 x 32 with KWGD
   * 4, 35 of 32 (24 + 4 + 6 + 1), measured to spill. */
  c = fake_cpu(16);
  assert_true(vncl__gemm_params_builtin(&c.info, 16, VNCL__GEMM_ACC64,
                                        VNCL__GEMM_SHAPE_SQUARE, false, &row));
  assert_int_equal(row.vregs, 32);
  assert_false(fits_with(&c, 1, &row, "KWGD", 4, why, sizeof why));
  assert_non_null(strstr(why, "gemm_direct: 35 vector registers"));
  /* The same tile in f32 (16 floats a zmm, VWD 16): 12 + 2 + 6 + 1 (the
   * flat row's; the square row has 6 x 64 with KWGD 1 since 2026-12-04). */
  assert_true(vncl__gemm_params_builtin(&c.info, 16, VNCL__GEMM_ACC32,
                                        VNCL__GEMM_SHAPE_FLAT, false, &row));
  assert_int_equal(row.direct.wgd_n, 32);
  assert_true(fits_with(&c, 0, &row, "KWGD", 4, why, sizeof why));
  /* Vectors narrower than a register still take one each: 8 x 32 of
   * 4-wide vectors is 64 accumulators + 8 B + 1 (a count of elements
   * would say 19). */
  wide = row;
  assert_true(vncl__gemm_param_set_named(&wide, "MR", 8));
  assert_true(vncl__gemm_param_set_named(&wide, "NR", 32));
  assert_true(vncl__gemm_param_set_named(&wide, "MB", 48));
  assert_false(fits_with(&c, 0, &wide, "VW", 4, why, sizeof why));
  assert_non_null(strstr(why, "gemm_packed_cpu: 73 vector registers"));
  /* The direct kernel's local-memory variant on a CPU row: each
   * work-item's MWID x NWID accumulators as MWID vectors of NWID, NWID of
   * B, MWID values of A and the broadcast. The row's 6 x 32 of one
   * work-item: 12 + 2 + 6 + 1 = 21 of 32. */
  assert_true(fits_with(&c, 0, &row, "DIRECT_LOCAL", 1, why, sizeof why));
  /* 32 x 16 (the autotune candidate PoCL took over 120 s to compile):
   * 32 + 1 + 32 + 1 = 66. */
  vncl__gemm_params loc = row;
  assert_true(vncl__gemm_param_set_named(&loc, "WGD_M", 32));
  assert_true(vncl__gemm_param_set_named(&loc, "WGD_N", 16));
  assert_true(vncl__gemm_param_set_named(&loc, "VWD", 1));
  assert_false(fits_with(&c, VNCL__GEMM_ACC16, &loc, "DIRECT_LOCAL", 1, why,
                         sizeof why));
  assert_non_null(strstr(why, "gemm_direct (local): 66 vector registers"));
  /* GPU-shaped groups (8 x 8 work-items on a 32 x 32 tile): 4 x 4 each,
   * 4 + 1 + 4 + 1 = 10. */
  assert_true(vncl__gemm_param_set_named(&loc, "WGD_N", 32));
  assert_true(vncl__gemm_param_set_named(&loc, "LDM", 8));
  assert_true(vncl__gemm_param_set_named(&loc, "LDN", 8));
  assert_true(fits_with(&c, VNCL__GEMM_ACC16, &loc, "DIRECT_LOCAL", 1, why,
                        sizeof why));
  /* GPU rows name no VREGS: nothing is counted there (register files of
   * hundreds of registers a work-item). */
  vncl__tune_device g = small_gpu();
  vncl__gemm_params gr;
  assert_true(vncl__gemm_params_builtin(&g.info, g.native_float_width,
                                        VNCL__GEMM_ACC32,
                                        VNCL__GEMM_SHAPE_SQUARE, false, &gr));
  assert_int_equal(gr.vregs, 0);
  /* 32 rows of 2 columns a work-item (66 by the CPU count), in groups of
   * 2 x 16 work-items, slices of 8 (3 KiB of the 4 KiB). */
  assert_true(vncl__gemm_param_set_named(&gr, "KWGD", 8));
  assert_true(vncl__gemm_param_set_named(&gr, "WGD_M", 64));
  assert_true(vncl__gemm_param_set_named(&gr, "WGD_N", 32));
  assert_true(vncl__gemm_param_set_named(&gr, "LDM", 2));
  assert_true(vncl__gemm_param_set_named(&gr, "LDN", 16));
  assert_true(vncl__gemm_param_set_named(&gr, "DIRECT_LOCAL", 1));
  if (!vncl__tuning_check_dev(&g, &vncl__gemm_family, 0, &gr,
                              VNCL__CHECK_DIRECT, why, sizeof why))
    fail_msg("GPU, local 64 x 32 in groups of 2 x 16: %s", why);
}

/* The built-in row a CPU of this vendor and float width gets for (acc,
 * shape); *c the fake device it was picked for. */
static vncl__gemm_params vendor_row(const char *vendor, int width, int acc,
                                    int shape, vncl__tune_device *c) {
  *c = fake_cpu(width);
  vncl__strlcpy(c->info.vendor, vendor, sizeof c->info.vendor);
  vncl__gemm_params row;
  assert_true(vncl__gemm_params_builtin(&c->info, width, (vncl__gemm_acc)acc,
                                        (vncl__gemm_shape)shape, false, &row));
  return row;
}

/* Rows keyed on the vendor: AMD CPUs with 512-bit vectors take square
 * products to the packed path later (their own switch_mnk) and, in f32
 * and 16-bit storage, on the direct kernel's 6 x 64 tile with A broadcast
 * (KWGD 1); every other class, shape, width and vendor keeps the generic
 * CPU rows (on AVX-512, f32 and 16-bit batches with B transposed up to
 * 100^3 on gemm_small, as on AMD's; square f32 and 16-bit products on the
 * AMD rows' direct tiles up to 1.5e8, 16-bit ones in 6-row direct tiles
 * (AMD's 5) and packed from 3.4e7 in blocks of 48 rows, 96 from 3e8; flat
 * 16-bit ones and AVX2 packed from 128^3; f32 and f64 single square
 * products up to 1e6 on gemm_small, on AVX2 too; flat products packed
 * from 1.6e7, every row of them in one block, on every vendor); the rows
 * fit the register check too. */
static void test_vendor_rows(void **state) {
  (void)state;
  char why[256];
  const int A32 = VNCL__GEMM_ACC32, A64 = VNCL__GEMM_ACC64,
            A16 = VNCL__GEMM_ACC16, SQ = VNCL__GEMM_SHAPE_SQUARE,
            NA = VNCL__GEMM_SHAPE_NARROW, FL = VNCL__GEMM_SHAPE_FLAT;
  const struct {
    const char *vendor;
    int width, acc, shape;
    double switch_mnk, switch_mnk16, small_bt;
    int wgd_m, wgd_n, kwgd;
    double big_mnk;
    int big_tall;
    double small_mnk;
  } cases[] = {
      {"AuthenticAMD", 16, A32, SQ, 6e8, 1e30, 1e6, 6, 64, 1, 1e30, 1, 0},
      {"AuthenticAMD", 16, A64, SQ, 4e8, 1e30, 1e6, 6, 32, 1, 2e9, 2, 0},
      {"AuthenticAMD", 16, A16, SQ, 6e8, 1e30, 1e6, 5, 64, 1, 1e30, 1, 0},
      {"AuthenticAMD", 16, A16, NA, 56623104, 1e30, 1e6, 6, 32, 4, 1e30, 1, 0},
      {"AuthenticAMD", 16, A32, FL, 1.6e7, 1e30, 1e6, 6, 32, 4, 1e30, 1, 0},
      {"AuthenticAMD", 16, A64, NA, 56623104, 1e30, 1e6, 6, 32, 1, 1e30, 1, 0},
      {"AuthenticAMD", 8, A32, SQ, 56623104, 1e30, 1e30, 6, 16, 1, 2e9, 4, 1e6},
      {"AuthenticAMD", 8, A16, SQ, 56623104, 2097152, 1e30, 6, 16, 1, 2e9, 4,
       0},
      {"AuthenticAMD", 8, A64, SQ, 56623104, 1e30, 1e30, 6, 8, 1, 2e9, 4, 1e6},
      {"GenuineIntel", 8, A32, FL, 1.6e7, 1e30, 1e30, 6, 16, 1, 1e30, 1, 0},
      {"GenuineIntel", 16, A32, SQ, 1.5e8, 1e30, 1e6, 6, 64, 1, 1e30, 1, 1e6},
      {"", 16, A32, SQ, 1.5e8, 1e30, 1e6, 6, 64, 1, 1e30, 1, 1e6},
      {"GenuineIntel", 16, A32, FL, 1.6e7, 1e30, 1e6, 6, 32, 4, 1e30, 1, 0},
      {"GenuineIntel", 16, A32, NA, 56623104, 1e30, 1e6, 6, 32, 4, 1e30, 1, 0},
      {"GenuineIntel", 16, A16, SQ, 1.5e8, 3.4e7, 1e6, 6, 64, 1, 3e8, 2, 0},
      {"", 16, A16, SQ, 1.5e8, 3.4e7, 1e6, 6, 64, 1, 3e8, 2, 0},
      {"GenuineIntel", 16, A16, FL, 1.6e7, 2097152, 1e6, 6, 32, 4, 1e30, 1,
       0},
      {"GenuineIntel", 16, A64, SQ, 56623104, 1e30, 1e6, 6, 32, 1, 2e9, 2, 1e6},
      {"GenuineIntel", 16, A64, FL, 1.6e7, 1e30, 1e6, 6, 32, 1, 1e30, 1, 0},
      {"GenuineIntel", 8, A32, SQ, 56623104, 1e30, 1e30, 6, 16, 1, 2e9, 4, 1e6},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    vncl__tune_device c;
    vncl__gemm_params row = vendor_row(cases[i].vendor, cases[i].width,
                                       cases[i].acc, cases[i].shape, &c);
    if (row.switch_mnk != cases[i].switch_mnk ||
        row.switch_mnk16 != cases[i].switch_mnk16 ||
        row.small_batch_mnk_bt != cases[i].small_bt ||
        row.direct.wgd_m != cases[i].wgd_m ||
        row.direct.wgd_n != cases[i].wgd_n ||
        row.direct.kwgd != cases[i].kwgd || row.big_mnk != cases[i].big_mnk ||
        row.big_tall != cases[i].big_tall ||
        row.small_mnk != cases[i].small_mnk)
      fail_msg("%s, width %d, acc %d, shape %d: switch_mnk %g (16-bit %g), "
               "small_batch_mnk_bt %g, direct %d x %d, KWGD %d, big_mnk "
               "%g (big_tall %d), small_mnk %g; not %g (%g), %g, %d x %d, "
               "%d, %g (%d), %g",
               cases[i].vendor, cases[i].width, cases[i].acc, cases[i].shape,
               row.switch_mnk, row.switch_mnk16, row.small_batch_mnk_bt,
               row.direct.wgd_m, row.direct.wgd_n, row.direct.kwgd,
               row.big_mnk, row.big_tall, row.small_mnk, cases[i].switch_mnk,
               cases[i].switch_mnk16, cases[i].small_bt, cases[i].wgd_m,
               cases[i].wgd_n, cases[i].kwgd, cases[i].big_mnk,
               cases[i].big_tall, cases[i].small_mnk);
    assert_true(row.small_stream_bytes > 0); /* every CPU row streams */
    /* Flat products (m <= 128) in one block: B packed by the kernel. */
    if (cases[i].shape == FL && row.cpu.mb < 128)
      fail_msg("%s, width %d, acc %d, flat: blocks of %d rows",
               cases[i].vendor, cases[i].width, cases[i].acc, row.cpu.mb);
    if (!fits_with(&c, cases[i].acc, &row, NULL, 0, why, sizeof why))
      fail_msg("%s, width %d: %s", cases[i].vendor, cases[i].width, why);
  }
  /* AMD's own sliver widths and depth chunks (docs/tuning.md, "Few rows
   * against B as stored", "AVX2 f64 on AMD: depth chunks"): the AVX-512
   * f32 flat row keeps 32-column slivers (64 elsewhere), the AVX2 f64
   * square row chunks the depth by 2048 (Intel's AVX2 row does not). */
  const struct {
    const char *vendor;
    int width, acc, shape, nr, nb, kc;
  } own[] = {{"AuthenticAMD", 16, A32, FL, 32, 32, 0},
             {"GenuineIntel", 16, A32, FL, 64, 64, 0},
             {"AuthenticAMD", 8, A64, SQ, 8, 64, 2048},
             {"GenuineIntel", 8, A64, SQ, 8, 64, 0},
             {"AuthenticAMD", 16, A64, SQ, 32, 64, 2048}};
  for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
    vncl__tune_device c;
    vncl__gemm_params row = vendor_row(own[i].vendor, own[i].width,
                                       own[i].acc, own[i].shape, &c);
    if (row.cpu.nr != own[i].nr || row.cpu.nb != own[i].nb ||
        row.cpu.kc != own[i].kc)
      fail_msg("%s, width %d, acc %d, shape %d: NR %d NB %d KC %d, not %d %d "
               "%d",
               own[i].vendor, own[i].width, own[i].acc, own[i].shape,
               row.cpu.nr, row.cpu.nb, row.cpu.kc, own[i].nr, own[i].nb,
               own[i].kc);
    if (!fits_with(&c, own[i].acc, &row, NULL, 0, why, sizeof why))
      fail_msg("%s, width %d: %s", own[i].vendor, own[i].width, why);
  }
  /* GPUs do not stream (their caches are not the CPU's). */
  vncl__tune_device g = small_gpu();
  vncl__gemm_params gr;
  assert_true(vncl__gemm_params_builtin(&g.info, g.native_float_width,
                                        VNCL__GEMM_ACC32,
                                        VNCL__GEMM_SHAPE_SQUARE, false, &gr));
  assert_true(gr.small_stream_bytes == 0);
}

/* The rules' CPU family (cpuid of the host, for CPU devices): the family
 * read as /proc/cpuinfo reads it; a family row outranks a vendor row and
 * matches no other family, no GPU and no narrower vectors; and the ops
 * rows this host gets follow from it (the Zen 5's transpose row on AMD
 * family 26 with 16-wide floats, the CPU row elsewhere). */
static void test_cpu_family_rows(void **state) {
  (void)state;
  int fam = vncl__host_cpu_family();
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    int want = -1;
    while (want < 0 && fgets(line, sizeof line, f))
      if (!strncmp(line, "cpu family", 10)) {
        const char *c = strchr(line, ':');
        if (c) want = atoi(c + 1);
      }
    fclose(f);
#if defined(__x86_64__) || defined(__i386__)
    if (want >= 0) assert_int_equal(fam, want);
#else
    assert_int_equal(fam, 0);
#endif
  }
  const int ANY = VNCL__RULE_ANY;
  const vncl__device_rule rows[] = {
      {"AuthenticAMD", VNCL_DEVICE_CPU, ANY, 16, ANY, ANY, 26},
      {"AuthenticAMD", VNCL_DEVICE_CPU, ANY, 16, ANY, ANY, 0},
      {NULL, VNCL_DEVICE_CPU, ANY, 0, ANY, ANY, 0}};
  const struct {
    const char *vendor;
    vncl_device_type type;
    int vec, family, row;
  } keys[] = {{"AuthenticAMD", VNCL_DEVICE_CPU, 16, 26, 0},
              {"AuthenticAMD", VNCL_DEVICE_CPU, 16, 25, 1},
              {"AuthenticAMD", VNCL_DEVICE_CPU, 8, 26, 2},
              {"GenuineIntel", VNCL_DEVICE_CPU, 16, 6, 2},
              {"AuthenticAMD", VNCL_DEVICE_GPU, 16, 0, -1}};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
    vncl__device_key k = {keys[i].vendor, keys[i].type, true, keys[i].vec,
                          ANY, ANY, keys[i].family};
    int got = vncl__rule_pick(rows, 3, sizeof *rows, &k, -1);
    if (got != keys[i].row)
      fail_msg("%s, type %d, width %d, family %d: row %d, not %d",
               keys[i].vendor, (int)keys[i].type, keys[i].vec,
               keys[i].family, got, keys[i].row);
  }
  /* The transpose rows of the ops table on this host's family, with
   * 16-lane vectors and as AVX2 code (8 lanes: the CPU row with 8-lane
   * squares, on every family). */
  for (int v = 0; v < 4; v++) {
    int vec = v < 2 ? 16 : 8;
    vncl__tune_device c = fake_cpu(vec);
    vncl__strlcpy(c.info.vendor, v % 2 ? "GenuineIntel" : "AuthenticAMD",
                  sizeof c.info.vendor);
    int set[VNCL__OPS_MAX_PARAMS];
    assert_true(vncl__params_builtin(
        vncl__ops_family_of(VNCL__OPS_TRANSPOSE), &c.info, vec, 0, 0, set));
    int zen5 = !(v % 2) && vec == 16 && fam == 26;
    assert_int_equal(set[TR_TILE], zen5 ? 8 : 64);
    assert_int_equal(set[TR_RUN_NT], zen5 ? 0 : 1);
    assert_int_equal(set[TR_LANES], vec == 16 ? 16 : 8);
  }
}

static void test_round_trip_and_lookup(void **state) {
  (void)state;
  char dir[512], path[600], why[256];
  t_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/sub/tuning.json", dir);
  vncl__tuning_db db;
  memset(&db, 0, sizeof db);
  vncl__tune_entry e;
  fill_entry(&e, "Acme", "Acme X1", "2.0", "gpu", 1); /* exact */
  assert_true(vncl__tuning_db_put(&db, &e));
  fill_entry(&e, "Acme", "Acme X1", "1.0", "gpu", 2); /* other driver */
  assert_true(vncl__tuning_db_put(&db, &e));
  fill_entry(&e, "Acme", "", "", "gpu", 3); /* vendor and type */
  assert_true(vncl__tuning_db_put(&db, &e));
  fill_entry(&e, "", "", "", "gpu", 4); /* type */
  assert_true(vncl__tuning_db_put(&db, &e));
  fill_entry(&e, "", "", "", "cpu", 5); /* another type */
  assert_true(vncl__tuning_db_put(&db, &e));
  fill_entry(&e, "Acme", "Acme X1", "2.0", "gpu", 6); /* replaces #1 */
  assert_true(vncl__tuning_db_put(&db, &e));
  assert_int_equal(db.n, 5);
  assert_true(vncl__tuning_db_save(path, &db, why, sizeof why));
  vncl__tuning_db_free(&db);

  vncl__tuning_db rd;
  assert_true(vncl__tuning_db_load(path, &rd, why, sizeof why));
  assert_int_equal(rd.n, 5);
  assert_string_equal(rd.e[0].device, "Acme X1");
  assert_string_equal(rd.e[0].driver, "2.0");
  assert_string_equal(rd.e[0].backend, "own");
  assert_string_equal(rd.e[0].date, "2026-01-01T00:00:00Z");
  assert_string_equal(rd.e[0].library, vncl_version_string());
  assert_true(rd.e[0].gflops == 106);
  assert_int_equal(mr_of(&rd.e[0]), 6);

  vncl_device_info info;
  memset(&info, 0, sizeof info);
  vncl__strlcpy(info.vendor, "Acme Corporation", sizeof info.vendor);
  vncl__strlcpy(info.name, "Acme X1", sizeof info.name);
  vncl__strlcpy(info.driver_version, "2.0", sizeof info.driver_version);
  info.type = VNCL_DEVICE_GPU;
  /* Vendor names differ ("Acme" vs "Acme Corporation"): the device rows
   * need the exact vendor string. */
  vncl__strlcpy(rd.e[0].vendor, "Acme Corporation", sizeof rd.e[0].vendor);
  vncl__strlcpy(rd.e[1].vendor, "Acme Corporation", sizeof rd.e[1].vendor);
  vncl__tune_level lvl;
  const vncl__tune_entry *f =
      vncl__tuning_find(&rd, &info, "gemm", "f32", "square", &lvl);
  assert_non_null(f);
  assert_int_equal(lvl, VNCL__TUNE_EXACT);
  assert_int_equal(mr_of(f), 6);
  vncl__strlcpy(info.driver_version, "3.0", sizeof info.driver_version);
  f = vncl__tuning_find(&rd, &info, "gemm", "f32", "square", &lvl);
  assert_int_equal(lvl, VNCL__TUNE_DEVICE);
  vncl__strlcpy(info.name, "Acme X2", sizeof info.name);
  f = vncl__tuning_find(&rd, &info, "gemm", "f32", "square", &lvl);
  assert_int_equal(lvl, VNCL__TUNE_VENDOR_TYPE);
  assert_int_equal(mr_of(f), 3);
  vncl__strlcpy(info.vendor, "Other", sizeof info.vendor);
  f = vncl__tuning_find(&rd, &info, "gemm", "f32", "square", &lvl);
  assert_int_equal(lvl, VNCL__TUNE_TYPE);
  assert_int_equal(mr_of(f), 4);
  info.type = VNCL_DEVICE_ACCELERATOR;
  f = vncl__tuning_find(&rd, &info, "gemm", "f32", "square", &lvl);
  assert_null(f);
  assert_int_equal(lvl, VNCL__TUNE_BUILTIN_TABLE);
  /* Other dtype or class: nothing. */
  info.type = VNCL_DEVICE_GPU;
  assert_null(vncl__tuning_find(&rd, &info, "gemm", "f64", "square", &lvl));
  assert_null(vncl__tuning_find(&rd, &info, "gemm", "f32", "flat", &lvl));
  vncl__tuning_db_free(&rd);
  /* The built-in rows parse, every value named and within its range. */
  const vncl__param_family *fams[1 + VNCL__OPS_FAMILIES];
  fams[0] = &vncl__gemm_family;
  for (int f = 0; f < VNCL__OPS_FAMILIES; f++)
    fams[1 + f] = vncl__ops_family_of(f);
  for (int f = 0; f < 1 + VNCL__OPS_FAMILIES; f++) {
    assert_true(fams[f]->nrows > 0);
    for (int r = 0; r < fams[f]->nrows; r++) {
      unsigned char set[sizeof(vncl__gemm_params)];
      if (!vncl__params_row(fams[f], r, set, why, sizeof why) ||
          !vncl__params_in_range(fams[f], set, why, sizeof why))
        fail_msg("%s row %d: %s", fams[f]->kernel, r, why);
    }
  }
  t_rmtree(dir);
}

static vncl_context *ctx_with_db(const char *path) {
  vncl_options o;
  vncl_options_init(&o);
  o.tuning_db = path;
  vncl_context *ctx = NULL;
  T_OK(NULL, vncl_context_create(&ctx, &o));
  /* The database is read on the first parameter lookup; read it now so
   * that its state can be checked. */
  vncl__tuning_load(ctx);
  return ctx;
}

/* A bad file: a warning on the context, the defaults, and calls work. */
static void test_corrupt_and_old(void **state) {
  (void)state;
  char dir[512], path[600];
  t_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/tuning.json", dir);
  vncl_context *ref = ctx_with_db("/nonexistent/none.json");
  assert_int_equal(ref->tuning_state, 0);
  vncl__gemm_params want, got;
  vncl__gemm_params_get(ref, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &want);
  vncl_context_destroy(ref);

  static const char *const bad[] = {
      "{\"schema\": \"vncl-tuning\", \"version\": 1, \"entries\": [",
      "\x01\x02 not json",
      "{\"schema\": \"other\", \"version\": 1, \"entries\": []}",
      "{\"schema\": \"vncl-tuning\", \"version\": 0, \"entries\": []}",
      "{\"schema\": \"vncl-tuning\", \"version\": 1, \"entries\": [{\"kernel\":"
      " \"gemm\", \"device_type\": \"cpu\", \"params\": 3}]}",
  };
  static const char *const reason[] = {"JSON", "JSON", "schema",
                                       "schema version 0", "params"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    write_file(path, bad[i]);
    vncl_context *ctx = ctx_with_db(path);
    assert_int_equal(ctx->tuning_state, -1);
    if (!strstr(ctx->tuning_why, reason[i]))
      fail_msg("file %zu: '%s' does not mention '%s'", i, ctx->tuning_why,
               reason[i]);
    vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE,
                          &got);
    assert_memory_equal(&want, &got, sizeof got);
    vncl_context_destroy(ctx);
  }
  /* An entry whose parameters break the kernel's rules is skipped. */
  vncl_context *c0 = ctx_with_db("/nonexistent/none.json");
  char text[2048];
  snprintf(text, sizeof text,
           "{\"schema\": \"vncl-tuning\", \"version\": 1, \"entries\": [{"
           "\"vendor\": \"%s\", \"device\": \"%s\", \"driver\": \"%s\", "
           "\"device_type\": \"%s\", \"kernel\": \"gemm\", \"dtype\": \"f32\","
           " \"class\": \"square\", \"backend\": \"own\", \"params\": "
           "{\"MR\": 5, \"NR\": 64, \"MB\": 48}}]}",
           c0->info.vendor, c0->info.name, c0->info.driver_version,
           c0->info.type == VNCL_DEVICE_CPU ? "cpu" : "gpu");
  vncl_context_destroy(c0);
  write_file(path, text);
  vncl_context *ctx = ctx_with_db(path);
  assert_int_equal(ctx->tuning_state, 1);
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &got);
  assert_memory_equal(&want, &got, sizeof got);
  /* And a product still runs (the direct kernel, small). */
  int64_t sh[2] = {8, 8};
  vncl_tensor *a, *c;
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, sh, &a));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, sh, &c));
  T_OK(ctx, vncl_fill(ctx, a, 1.0));
  T_OK(ctx, vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1.0, a, a, 0.0, c));
  float out[64];
  T_OK(ctx, vncl_tensor_read(c, out, sizeof out));
  assert_true(out[0] == 8.0f && out[63] == 8.0f);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(c);
  vncl_context_destroy(ctx);
  t_rmtree(dir);
}

/* A valid entry for this device is installed at context creation, --show
 * names it, and a context without the file restores the defaults. */
static void test_apply_and_show(void **state) {
  (void)state;
  char dir[512], path[600], text[4096];
  t_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/tuning.json", dir);
  vncl_context *c0 = ctx_with_db("/nonexistent/none.json");
  vncl__gemm_params def;
  vncl__gemm_params_get(c0, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_FLAT, &def);
  int ops_def[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(c0, VNCL__OPS_TRANSPOSE, ops_def);
  const char *type = c0->info.type == VNCL_DEVICE_CPU ? "cpu" : "gpu";
  int nr = def.cpu.nr, vw = def.cpu.vw;
  snprintf(text, sizeof text,
           "{\"schema\": \"vncl-tuning\", \"version\": 1, \"entries\": ["
           "{\"vendor\": \"%s\", \"device\": \"%s\", \"driver\": \"%s\", "
           "\"library\": \"%s\", \"device_type\": \"%s\", \"kernel\": "
           "\"gemm\", \"dtype\": \"f32\", \"class\": \"flat\", \"backend\": "
           "\"own\", \"gflops\": 12.5, \"date\": \"2026-11-29\", \"params\": "
           "{\"MR\": 4, \"NR\": %d, \"VW\": %d, \"MB\": 8, \"NB\": %d}},"
           "{\"vendor\": \"\", \"device\": \"\", \"driver\": \"\", "
           "\"device_type\": \"%s\", \"kernel\": \"transpose\", \"dtype\": "
           "\"any\", \"class\": \"default\", \"params\": {\"TILE\": 16, "
           "\"WGY\": 2, \"ROW_ITEMS\": 1}}]}",
           c0->info.vendor, c0->info.name, c0->info.driver_version,
           vncl_version_string(), type, nr, vw, nr, type);
  vncl_context_destroy(c0);
  write_file(path, text);
  vncl_context *ctx = ctx_with_db(path);
  assert_int_equal(ctx->tuning_state, 1);
  assert_int_equal(ctx->tuning_entries, 1);
  vncl__gemm_params got;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_FLAT, &got);
  assert_int_equal(got.cpu.mr, 4);
  assert_int_equal(got.cpu.mb, 8);
  assert_int_equal(got.direct.wgd_m, def.direct.wgd_m);
  int ov[VNCL__OPS_MAX_PARAMS];
  vncl__ops_params(ctx, VNCL__OPS_TRANSPOSE, ov);
  assert_int_equal(ov[TR_TILE], 16);
  assert_int_equal(ov[TR_WGY], 2);
  assert_int_equal(ov[TR_ROW_ITEMS], 1);
  /* The keys the entry lacks (an entry written before LANES existed, say)
   * keep the device's built-in values, the row the entry lies over. */
  for (int i = TR_ROW_ITEMS + 1;
       i < vncl__ops_family_of(VNCL__OPS_TRANSPOSE)->n; i++)
    assert_int_equal(ov[i], ops_def[i]);

  char showp[700];
  snprintf(showp, sizeof showp, "%s/show.txt", dir);
  FILE *f = fopen(showp, "w+");
  assert_non_null(f);
  tuning_show(ctx, f); /* tools/tuning_show.c */
  rewind(f);
  static char buf[65536];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  assert_non_null(strstr(buf, "(1 entries for this device)"));
  char want[800];
  snprintf(want, sizeof want, "from: %s entry 0 (exact device and driver)",
           path);
  if (!strstr(buf, want)) fail_msg("--show lacks '%s':\n%s", want, buf);
  snprintf(want, sizeof want, "from: %s entry 1 (same device type)", path);
  if (!strstr(buf, want)) fail_msg("--show lacks '%s':\n%s", want, buf);
  assert_non_null(strstr(buf, "-DMR=4"));
  assert_non_null(strstr(buf, "transpose: TILE=16 WGY=2 ROW_ITEMS=1"));
  assert_non_null(strstr(buf, "from: built-in table (lib/gemm/gemm_params.c"));
  vncl_context_destroy(ctx);

  /* No file: the entry the database installed is withdrawn. */
  ctx = ctx_with_db("/nonexistent/none.json");
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_FLAT, &got);
  assert_memory_equal(&def, &got, sizeof got);
  vncl_context_destroy(ctx);
  t_rmtree(dir);
}

/* A candidate that aborts and one that hangs come back as failures; the
 * next candidate runs in a fresh worker. */
static void test_crash_isolation(void **state) {
  (void)state;
  setenv("VNCL_TUNE_TEST_FAULTS", "1", 1);
  setenv("VNCL_TUNING_DB", "/nonexistent/none.json", 1);
  tune_runner *r = tune_runner_new(worker_argv, 4);
  assert_non_null(r);
  cJSON *req = cJSON_Parse("{\"kind\":\"ops\",\"test\":\"abort\"}");
  cJSON *ans = tune_runner_eval(r, req);
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(ans, "ok")));
  assert_non_null(strstr(cJSON_GetObjectItem(ans, "why")->valuestring,
                         "crashed (signal 6)"));
  cJSON_Delete(ans);
  cJSON_Delete(req);
  double t0 = vncl__now();
  req = cJSON_Parse("{\"kind\":\"ops\",\"test\":\"hang\"}");
  ans = tune_runner_eval(r, req);
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(ans, "ok")));
  assert_non_null(strstr(cJSON_GetObjectItem(ans, "why")->valuestring,
                         "timed out"));
  assert_true(vncl__now() - t0 < 20);
  cJSON_Delete(ans);
  cJSON_Delete(req);
  /* A wrong request is rejected by the worker, which lives on. */
  req = cJSON_Parse("{\"kind\":\"ops\",\"family\":99,\"values\":[]}");
  ans = tune_runner_eval(r, req);
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(ans, "ok")));
  assert_null(cJSON_GetObjectItem(ans, "isolated"));
  cJSON_Delete(ans);
  cJSON_Delete(req);
  tune_runner_free(r);
  unsetenv("VNCL_TUNE_TEST_FAULTS");
  unsetenv("VNCL_TUNING_DB");
}

/* The sizes the GEMM confirmations add: the packed set is confirmed at the
 * smallest square product the packed path runs (the AMD AVX-512 rows
 * switch at 6e8, about 843^3; the others at 384^3, below 512), the direct
 * set at the largest one the direct kernel runs (a product of exactly the
 * switch runs packed). */
static void test_confirm_sizes(void **state) {
  (void)state;
  static const struct {
    double sw;
    size_t low, top;
  } c[] = {{6e8, 848, 832},         {4e8, 752, 736},
           {56623104, 512, 368},    {16777216, 512, 240},
           {2097152, 512, 112},     {0, 512, 16},
           {1e30, 8192, 1024}};
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    size_t low = autotune_square_low(c[i].sw);
    size_t top = autotune_direct_top(c[i].sw);
    assert_int_equal(low, c[i].low);
    assert_int_equal(top, c[i].top);
    if (c[i].sw > 0 && c[i].sw < 1e30) {
      assert_true((double)low * low * low >= c[i].sw);
      assert_true((double)top * top * top < c[i].sw);
    }
  }
}

/* Every candidate is checked once more on a problem with ragged edges
 * (worker.c): the built-in sets pass it, for GEMM and for an ops family
 * (the values of the set in force, which the runner's child compares with
 * the defaults' result on the edge shape), and a result spoiled in its
 * last value (the test-only "edge" fault) is rejected naming the edge
 * problem, where the timed shape alone had passed. */
static void test_edge_check(void **state) {
  (void)state;
  setenv("VNCL_TUNE_TEST_FAULTS", "1", 1);
  setenv("VNCL_TUNING_DB", "/nonexistent/none.json", 1);
  /* Nothing here hangs; each evaluation builds its programs, several per
   * family, 0.3-10 s each with PoCL on a cold cache: 4 s timed out on the
   * reduce family once, run alone after reduce.cl changed. */
  tune_runner *r = tune_runner_new(worker_argv, 60);
  assert_non_null(r);
  char text[512];
  int m = 96 + (int)(t_rand_u64() % 64), n = 64 + (int)(t_rand_u64() % 64),
      k = 48 + (int)(t_rand_u64() % 64);
  for (int spoil = 0; spoil < 2; spoil++) {
    snprintf(text, sizeof text,
             "{\"kind\":\"gemm\",\"dtype\":%d,\"shape\":0,\"m\":%d,\"n\":%d,"
             "\"k\":%d,\"runs\":1%s}",
             (int)VNCL_F32, m, n, k, spoil ? ",\"test\":\"edge\"" : "");
    cJSON *req = cJSON_Parse(text);
    cJSON *ans = tune_runner_eval(r, req);
    const cJSON *why = cJSON_GetObjectItem(ans, "why");
    if (spoil) {
      char want[64];
      snprintf(want, sizeof want, "at the edges (%d x %d x %d)", m - 1, n - 1,
               k - 1);
      assert_false(cJSON_IsTrue(cJSON_GetObjectItem(ans, "ok")));
      assert_non_null(why);
      if (!strstr(why->valuestring, want))
        fail_msg("gemm: %s, expected %s", why->valuestring, want);
    } else if (!cJSON_IsTrue(cJSON_GetObjectItem(ans, "ok"))) {
      fail_msg("gemm %d x %d x %d: %s", m, n, k,
               why ? why->valuestring : "?");
    }
    cJSON_Delete(ans);
    cJSON_Delete(req);
  }
  /* The sum along rows: the set in force as the candidate. */
  tspace sp;
  assert_true(tspace_from_ops("reduce", false, &sp));
  vncl_context *c = NULL;
  assert_int_equal(vncl_context_create(&c, NULL), VNCL_OK);
  vncl_tuning_params cur;
  assert_int_equal(vncl_tuning_get(c, "reduce", VNCL_F32, NULL, &cur),
                   VNCL_OK);
  vncl_context_destroy(c);
  for (int spoil = 0; spoil < 2; spoil++) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "kind", "ops");
    cJSON_AddStringToObject(req, "family", "reduce");
    cJSON_AddNumberToObject(req, "runs", 1);
    if (spoil) cJSON_AddStringToObject(req, "test", "edge");
    cJSON *vals = cJSON_AddArrayToObject(req, "values");
    for (int i = 0; i < sp.np; i++) {
      double v = 0;
      assert_true(params_get(&cur, sp.p[i].name, &v));
      cJSON_AddItemToArray(vals, cJSON_CreateNumber(v));
    }
    cJSON *ans = tune_runner_eval(r, req);
    const cJSON *why = cJSON_GetObjectItem(ans, "why");
    if (spoil) {
      assert_false(cJSON_IsTrue(cJSON_GetObjectItem(ans, "ok")));
      assert_non_null(why);
      if (!strstr(why->valuestring, "at the edges (4177935 elements)"))
        fail_msg("reduce: %s", why->valuestring);
    } else if (!cJSON_IsTrue(cJSON_GetObjectItem(ans, "ok"))) {
      fail_msg("reduce: %s", why ? why->valuestring : "?");
    }
    cJSON_Delete(ans);
    cJSON_Delete(req);
  }
  tune_runner_free(r);
  unsetenv("VNCL_TUNE_TEST_FAULTS");
  unsetenv("VNCL_TUNING_DB");
}

/* Writes a database with one gemm entry of storage class `dtype` ("f32",
 * "f16", ...), shape class square, for ctx's device. */
static void write_gemm_db(const char *path, const vncl_context *c,
                          const char *dtype, const char *params) {
  char text[4096];
  snprintf(text, sizeof text,
           "{\"schema\": \"vncl-tuning\", \"version\": 1, \"entries\": [{"
           "\"vendor\": \"%s\", \"device\": \"%s\", \"driver\": \"%s\", "
           "\"library\": \"%s\", \"device_type\": \"%s\", \"kernel\": "
           "\"gemm\", \"dtype\": \"%s\", \"class\": \"square\", "
           "\"backend\": \"own\", \"params\": {%s}}]}",
           c->info.vendor, c->info.name, c->info.driver_version,
           vncl_version_string(),
           c->info.type == VNCL_DEVICE_CPU ? "cpu" : "gpu", dtype, params);
  write_file(path, text);
}

/* 16-bit storage is a class of its own: a database entry for "f16" sets
 * what f16 and bf16 products run and leaves f32 and f64 alone; the
 * autotuner's worker measures f16 and bf16 products (direct and packed)
 * and checks their results against the rounded inputs. */
static void test_sixteen_bit_class(void **state) {
  (void)state;
  char dir[512], path[600];
  t_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/tuning.json", dir);
  vncl_context *c0 = ctx_with_db("/nonexistent/none.json");
  vncl__gemm_params d32, d64, got;
  vncl__gemm_params_get(c0, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &d32);
  vncl__gemm_params_get(c0, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE, &d64);
  write_gemm_db(path, c0, "f16", "\"switch_mnk_bt\": 12345");
  vncl_context_destroy(c0);
  vncl_context *ctx = ctx_with_db(path);
  assert_int_equal(ctx->tuning_entries, 1);
  vncl__gemm_params_get(ctx, vncl__gemm_acc_of(VNCL_BF16),
                        VNCL__GEMM_SHAPE_SQUARE, &got);
  assert_true(got.switch_mnk_bt == 12345);
  vncl__gemm_params_get(ctx, vncl__gemm_acc_of(VNCL_F16),
                        VNCL__GEMM_SHAPE_SQUARE, &got);
  assert_true(got.switch_mnk_bt == 12345);
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &got);
  assert_memory_equal(&got, &d32, sizeof got);
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE, &got);
  assert_memory_equal(&got, &d64, sizeof got);
  vncl_context_destroy(ctx);
  t_rmtree(dir);

  setenv("VNCL_TUNING_DB", "/nonexistent/none.json", 1);
  tune_runner *r = tune_runner_new(worker_argv, 60);
  assert_non_null(r);
  const vncl_dtype types[] = {VNCL_F16, VNCL_BF16};
  const char *const sets[] = {"{}", "{\"switch_mnk16\": 0}"};
  for (int t = 0; t < 2; t++)
    for (int v = 0; v < 2; v++) {
      char req_text[256];
      snprintf(req_text, sizeof req_text,
               "{\"kind\":\"gemm\",\"dtype\":%d,\"shape\":0,\"m\":40,"
               "\"n\":48,\"k\":56,\"batch\":2,\"runs\":1,\"params\":%s}",
               (int)types[t], sets[v]);
      cJSON *req = cJSON_Parse(req_text);
      assert_non_null(req);
      cJSON *ans = tune_runner_eval(r, req);
      const cJSON *why = cJSON_GetObjectItem(ans, "why");
      if (!cJSON_IsTrue(cJSON_GetObjectItem(ans, "ok")))
        fail_msg("%s, %s: %s", vncl_dtype_name(types[t]), sets[v],
                 cJSON_IsString(why) ? why->valuestring : "?");
      assert_true(cJSON_GetObjectItem(ans, "rate")->valuedouble > 0);
      cJSON_Delete(ans);
      cJSON_Delete(req);
    }
  tune_runner_free(r);
  unsetenv("VNCL_TUNING_DB");
}

static unsigned mode_of(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return (unsigned)(st.st_mode & 07777);
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char buf[1 << 16];
  *n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  char *copy = malloc(*n + 1);
  assert_non_null(copy);
  memcpy(copy, buf, *n);
  return copy;
}

/* A run stopped after two answers keeps them in OUT.partial; the next run
 * takes them from there, measures the rest and writes the database. The
 * test-only candidates that abort and hang are among them: the run goes
 * on past both. Under umask 0 the folder is made 0700 and the files 0600;
 * a partial file others may write is not resumed from, but replaced. */
static void test_resume(void **state) {
  (void)state;
  char dir[512], out[600], part[700];
  t_tmpdir(dir, sizeof dir);
  snprintf(out, sizeof out, "%s/db/tuning.json", dir);
  snprintf(part, sizeof part, "%s.partial", out);
  setenv("VNCL_TUNE_TEST_FAULTS", "1", 1);
  autotune_opts o;
  memset(&o, 0, sizeof o);
  o.out = out;
  o.quick = true;
  o.kernels = "transpose";
  o.budget = 60;
  o.timeout = 8;
  o.worker_argv = worker_argv;
  o.max_candidates = 1;
  o.stop_after = 2;
  mode_t old_mask = umask(0);
  assert_int_equal(autotune_run(&o), 3);
  assert_int_equal(o.evaluated, 2);
  assert_int_equal(o.failed, 2); /* abort and hang */
  assert_int_equal(access(part, R_OK), 0);
  assert_int_not_equal(access(out, R_OK), 0);
  char sub[700];
  snprintf(sub, sizeof sub, "%s/db", dir);
  assert_int_equal(mode_of(sub), 0700);
  assert_int_equal(mode_of(part), 0600);

  /* Loosened, the partial file is not trusted: nothing resumed from it. */
  size_t plen;
  char *saved = slurp(part, &plen);
  assert_int_equal(chmod(part, 0666), 0);
  o.stop_after = 1;
  assert_int_equal(autotune_run(&o), 3);
  assert_int_equal(o.reused, 0);
  assert_int_equal(o.evaluated, 1);
  assert_int_equal(mode_of(part), 0600); /* a new file in its place */
  FILE *pf = fopen(part, "wb"); /* the two answers back, for the resume */
  assert_non_null(pf);
  assert_int_equal(fwrite(saved, 1, plen, pf), plen);
  fclose(pf);
  free(saved);

  o.stop_after = 0;
  assert_int_equal(autotune_run(&o), 0);
  assert_int_equal(o.reused, 2);
  assert_true(o.evaluated >= 1); /* the defaults, then one candidate */
  assert_int_not_equal(access(part, R_OK), 0);
  assert_int_equal(mode_of(out), 0600);
  umask(old_mask);
  vncl__tuning_db db;
  char why[256];
  assert_true(vncl__tuning_db_load(out, &db, why, sizeof why));
  assert_int_equal(db.n, 1);
  assert_string_equal(db.e[0].kernel, "transpose");
  assert_true(db.e[0].gflops > 0);
  assert_non_null(cJSON_GetObjectItem(db.e[0].params, "TILE"));
  vncl__tuning_db_free(&db);
  unsetenv("VNCL_TUNE_TEST_FAULTS");
  t_rmtree(dir);
}

/* autotune_run(o) with its standard error into the file `log`. */
static int run_logged(autotune_opts *o, const char *log) {
  fflush(stderr);
  int saved = dup(2);
  assert_true(saved >= 0);
  FILE *lf = fopen(log, "w");
  assert_non_null(lf);
  assert_true(dup2(fileno(lf), 2) >= 0);
  int rc = autotune_run(o);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  fclose(lf);
  return rc;
}

/* The progress count is true: in every job each line's count is one past
 * the last, never past its total, and the job's last line has count ==
 * total (the candidates really run; "12/11" was the old count past its
 * total). Twice: with room for the search, the climb and the confirmation,
 * and with a budget that cuts the search short (where it cuts depends on
 * the machine's speed; the count must be true wherever). */
static void progress_run(double budget, bool faults) {
  char dir[512], out[600], log[600];
  t_tmpdir(dir, sizeof dir);
  snprintf(out, sizeof out, "%s/tuning.json", dir);
  snprintf(log, sizeof log, "%s/stderr.txt", dir);
  if (faults) setenv("VNCL_TUNE_TEST_FAULTS", "1", 1); /* two failures */
  autotune_opts o;
  memset(&o, 0, sizeof o);
  o.out = out;
  o.quick = true;
  o.kernels = "transpose,cast";
  o.budget = budget;
  o.timeout = 8;
  o.worker_argv = worker_argv;
  /* No cap: the climb, the random samples and the confirmation (when a
   * candidate wins) run as the budget allows, each adding to the plan. */
  o.max_candidates = 0;
  int rc = run_logged(&o, log);
  unsetenv("VNCL_TUNE_TEST_FAULTS");
  assert_int_equal(rc, 0);
  FILE *f = fopen(log, "r");
  assert_non_null(f);
  char line[2048];
  const char *jobs[] = {"transpose", "cast"};
  int lines = 0, evals = 0;
  for (int jb = 0; jb < 2; jb++) {
    rewind(f);
    char pre[64];
    snprintf(pre, sizeof pre, "autotune: %s %%d/%%d", jobs[jb]);
    int last_done = 0, last_total = 0, n = 0;
    while (fgets(line, sizeof line, f)) {
      int d = -1, t = -1;
      if (sscanf(line, pre, &d, &t) != 2) continue;
      bool final = strstr(line, ": the job ends") != NULL;
      if (final) {
        assert_int_equal(d, last_done); /* the count again, trimmed */
      } else {
        assert_int_equal(d, last_done + 1);
        evals++;
      }
      assert_true(d <= t);
      last_done = d;
      last_total = t;
      n++;
    }
    /* The defaults, and the two test faults. */
    assert_true(last_done >= (faults ? 3 : 1));
    assert_int_equal(last_done, last_total);
    lines += n;
  }
  fclose(f);
  assert_true(lines >= evals);
  assert_int_equal(evals, o.evaluated + o.reused);
  t_rmtree(dir);
}

/* A search climbs from the set in force first: the first candidates
 * measured after the defaults are exactly the valid neighbours of that set
 * (one parameter one value step away in the job's space, as the job builds
 * it), each once; a neighbour that wins is measured again ("again"), which
 * is not a new candidate. The cap, twice the neighbours, leaves room for
 * the first round and its second measurements. Before 2026-12-05 random
 * samples came first, and a quick job's few seconds rarely reached the
 * neighbours (docs/tuning.md, "How it searches"). */
static void test_climb_first(void **state) {
  (void)state;
  vncl_context *ctx = ctx_with_db("/nonexistent/none.json");
  tspace table, sp;
  assert_true(tspace_from_ops("transpose", true, &table));
  vncl_tuning_params base;
  T_OK(ctx, vncl_tuning_get(ctx, "transpose", VNCL_F32, NULL, &base));
  tspace_with_base(&table, &base, &sp);
  int bidx[TS_MAX_PARAMS] = {0};
  for (int i = 0; i < sp.np; i++) {
    int v = -1;
    for (int k = 0; k < base.count; k++)
      if (!strcmp(base.names[k], sp.p[i].name)) v = (int)base.values[k];
    bidx[i] = idx_of(&sp, sp.p[i].name, v);
  }
  enum { MAXN = 2 * TS_MAX_PARAMS };
  int nb[MAXN][TS_MAX_PARAMS], nn = 0, seen[MAXN] = {0};
  char why[256];
  for (int p = 0; p < sp.np; p++)
    for (int d = -1; d <= 1; d += 2) {
      int c[TS_MAX_PARAMS];
      memcpy(c, bidx, sizeof c);
      c[p] += d;
      if (c[p] >= 0 && c[p] < sp.p[p].n &&
          tspace_valid(ctx, &sp, c, VNCL_F32, "square", why, sizeof why))
        memcpy(nb[nn++], c, sizeof c);
    }
  assert_true(nn >= 2); /* else the test says nothing on this device */

  char dir[512], out[600], log[600];
  t_tmpdir(dir, sizeof dir);
  snprintf(out, sizeof out, "%s/tuning.json", dir);
  snprintf(log, sizeof log, "%s/stderr.txt", dir);
  autotune_opts o;
  memset(&o, 0, sizeof o);
  o.out = out;
  o.quick = true;
  o.kernels = "transpose";
  o.budget = 300; /* room for the whole round on a slow machine */
  o.timeout = 60;
  o.worker_argv = worker_argv;
  o.max_candidates = 2 * nn;
  assert_int_equal(run_logged(&o, log), 0);
  FILE *f = fopen(log, "r");
  assert_non_null(f);
  char line[2048];
  int cands = 0;
  while (cands < nn && fgets(line, sizeof line, f)) {
    int d, t, at = 0;
    if (sscanf(line, "autotune: transpose %d/%d %n", &d, &t, &at) != 2 ||
        !at || !strchr(line + at, '=') || !strncmp(line + at, "again ", 6))
      continue; /* not a new candidate: the defaults, a summary, again */
    int idx[TS_MAX_PARAMS] = {0};
    const char *q = line + at;
    for (int i = 0; i < sp.np; i++) {
      char name[64];
      int v, used = 0;
      if (sscanf(q, "%63[^=]=%d%n", name, &v, &used) != 2)
        fail_msg("unreadable candidate: %s", line);
      assert_string_equal(name, sp.p[i].name);
      idx[i] = idx_of(&sp, name, v);
      q += used;
      if (*q == ',') q++;
    }
    int hit = -1;
    for (int k = 0; k < nn; k++)
      if (!memcmp(nb[k], idx, sizeof idx)) hit = k;
    if (hit < 0) fail_msg("candidate %d is no neighbour of the set in "
                          "force: %s", cands + 1, line);
    assert_int_equal(seen[hit], 0);
    seen[hit] = 1;
    cands++;
  }
  fclose(f);
  assert_int_equal(cands, nn);
  vncl_context_destroy(ctx);
  t_rmtree(dir);
}

static void test_progress_count(void **state) {
  (void)state;
  progress_run(60, true);
  progress_run(2, false);
}

/* Tuned sets belong to their context: two contexts on one device with two
 * databases each run their own GEMM parameters, and a set installed on one
 * leaves the other alone. */
static void test_two_contexts_two_databases(void **state) {
  (void)state;
  char dir[512], pa[600], pb[600], params[512], why[256];
  t_tmpdir(dir, sizeof dir);
  snprintf(pa, sizeof pa, "%s/a.json", dir);
  snprintf(pb, sizeof pb, "%s/b.json", dir);
  vncl_context *c0 = ctx_with_db("/nonexistent/none.json");
  vncl__gemm_params def;
  vncl__gemm_params_get(c0, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &def);
  bool cpu_kernel = def.fast == VNCL__GEMM_PACKED_CPU;
  /* A: the packed path at every size (and, with the CPU kernel, a 4-row
   * micro-tile); B: the direct kernel at every size. */
  if (cpu_kernel)
    snprintf(params, sizeof params,
             "\"switch_mnk\": 0, \"switch_mnk_bt\": 0, \"MR\": 4, \"MB\": 8, "
             "\"NR\": %d, \"VW\": %d, \"NB\": %d",
             def.cpu.nr, def.cpu.vw, def.cpu.nr);
  else
    snprintf(params, sizeof params, "\"switch_mnk\": 0, \"switch_mnk_bt\": 0");
  write_gemm_db(pa, c0, "f32", params);
  write_gemm_db(pb, c0, "f32",
                "\"switch_mnk\": 1e15, \"switch_mnk_bt\": 1e15");
  vncl_context *ca = ctx_with_db(pa), *cb = ctx_with_db(pb);
  for (int round = 0; round < 2; round++) {
    vncl__gemm_params ga, gb, g0;
    vncl__param_source sa, sb;
    vncl__params_get(ca, &vncl__gemm_family, VNCL__GEMM_ACC32,
                     VNCL__GEMM_SHAPE_SQUARE, &ga, &sa, NULL);
    vncl__params_get(cb, &vncl__gemm_family, VNCL__GEMM_ACC32,
                     VNCL__GEMM_SHAPE_SQUARE, &gb, &sb, NULL);
    vncl__gemm_params_get(c0, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &g0);
    assert_int_equal(sa, VNCL__SRC_DATABASE);
    assert_int_equal(sb, VNCL__SRC_DATABASE);
    assert_true(ga.switch_mnk == 0 && ga.switch_mnk_bt == 0);
    assert_true(gb.switch_mnk == 1e15 && gb.switch_mnk_bt == 1e15);
    assert_memory_equal(&def, &g0, sizeof g0);
    if (cpu_kernel) {
      assert_int_equal(ga.cpu.mr, 4);
      assert_int_equal(ga.cpu.mb, 8);
      assert_int_equal(gb.cpu.mr, def.cpu.mr);
    }
    /* Each context's products are right under its own set (the packed
     * path on A, the direct kernel on B). */
    if (!t_gemm_f32_check(ca, 96, 80, 72, why, sizeof why))
      fail_msg("context A: %s", why);
    if (!t_gemm_f32_check(cb, 96, 80, 72, why, sizeof why))
      fail_msg("context B: %s", why);
    if (!t_gemm_f32_check(c0, 96, 80, 72, why, sizeof why))
      fail_msg("context without a database: %s", why);
  }
  /* A set installed on A is A's alone, and withdrawing it brings back A's
   * database entry. */
  vncl__gemm_params mine = def;
  mine.switch_mnk = mine.switch_mnk_bt = 12345;
  T_OK(ca, vncl__gemm_params_set(ca, VNCL__GEMM_ACC32,
                                 VNCL__GEMM_SHAPE_SQUARE, &mine));
  vncl__gemm_params got;
  vncl__gemm_params_get(ca, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &got);
  assert_true(got.switch_mnk == 12345);
  vncl__gemm_params_get(cb, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &got);
  assert_true(got.switch_mnk == 1e15);
  vncl__gemm_params_get(c0, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &got);
  assert_memory_equal(&def, &got, sizeof got);
  T_OK(ca, vncl__gemm_params_set(ca, VNCL__GEMM_ACC32,
                                 VNCL__GEMM_SHAPE_SQUARE, NULL));
  vncl__gemm_params_get(ca, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &got);
  assert_true(got.switch_mnk == 0);
  vncl_context_destroy(ca);
  vncl_context_destroy(cb);
  vncl_context_destroy(c0);
  t_rmtree(dir);
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "autotune") &&
      !strcmp(argv[2], "--worker"))
    return autotune_worker_main();
  t_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_constraints),
      cmocka_unit_test(test_space_with_base),
      cmocka_unit_test(test_register_model),
      cmocka_unit_test(test_vendor_rows),
      cmocka_unit_test(test_cpu_family_rows),
      cmocka_unit_test(test_round_trip_and_lookup),
      cmocka_unit_test(test_corrupt_and_old),
      cmocka_unit_test(test_apply_and_show),
      cmocka_unit_test(test_two_contexts_two_databases),
      cmocka_unit_test(test_sixteen_bit_class),
      cmocka_unit_test(test_crash_isolation),
      cmocka_unit_test(test_confirm_sizes),
      cmocka_unit_test(test_edge_check),
      cmocka_unit_test(test_resume),
      cmocka_unit_test(test_progress_count),
      cmocka_unit_test(test_climb_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
