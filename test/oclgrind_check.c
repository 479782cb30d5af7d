/* oclgrind_check: every kernel family of vncl on small shapes that still
 * reach the edges (odd sizes, partial tiles, batches, offsets, padded
 * leading dimensions, every dtype the device has), each result checked
 * element by element against a CPU reference in double with fresh random
 * inputs and poisoned outputs. Meant to run under Oclgrind
 * (scripts/check-oclgrind.sh, `make check-oclgrind`), whose plugins report
 * data races and invalid accesses to a log the driver fails on; it runs on
 * any device (on PoCL it is a quick functional check).
 *
 *   oclgrind_check [--set NAME] [--parts gemm,ops,fft,NAME..]
 *                  [--cpu-rows] [--native W]
 *
 * --set points one built-in GEMM parameter set at the device through a
 * tuning database written for the run (the database is data, so the
 * NVIDIA row runs on a device that is not NVIDIA): nvidia, amd, intel (the
 * vendor rows), gpu (any GPU), any (any device), last (the last resort),
 * cpu512 and cpu256 (the CPU rows with 512- and 256-bit vectors),
 * ref (VNCL_GEMM_BACKEND=ref: the reference kernel), own (the device's own
 * set; the default). The set must be taken unchanged on a device with that
 * vendor's limits (the driver sets them with OCLGRIND_LOCAL_MEM_SIZE and
 * OCLGRIND_MAX_WGSIZE) and pass the check against the vendor's preferred
 * work-group multiple too: a set that does not fit is a bug in the table.
 * The tensor-op families run with the device's rows of lib/ops/ops_common.c
 * (the GPU rows on Oclgrind), which must also fit unchanged; --cpu-rows
 * runs transpose, reduce, softmax and random again with the CPU rows'
 * kernel shapes, and native vectors of 16 floats (one profile of
 * scripts/check-oclgrind.sh asks for it), or of W with --native W (another
 * profile runs softmax and the reductions alone with 8, the AVX2 CPUs'
 * path). --parts takes the groups gemm, ops and fft, and single tests of
 * ops by name (elementwise, cast, transpose, reduce, softmax, random,
 * ops_rows_fit; an unknown name fails with exit 2), so that the driver
 * can split a long run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Internal headers on purpose: sets GEMM and ops parameter sets directly, to
 * run every built-in GPU set under Oclgrind (before test_ops.h, whose probe
 * helper needs them). */
#include "gemm/gemm.h"
#include "runtime/runtime.h"
#include "ops/ops.h"
#include "fft/fft.h"
#include "gemm/gemm.h" /* includes tuning/tuning.h */
#include "test_ops.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* clFFT 2.12 deletes its plan actions through a base-class pointer without
 * a virtual destructor, which AddressSanitizer reports as
 * new-delete-type-mismatch (as in test_fft.c): that one check is off for
 * this program when it is built with ASan. */
__attribute__((used)) const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) {
  return "new_delete_type_mismatch=0";
}

static vncl_context *ctx;
static cl_context clctx;
static cl_command_queue clq;
static const char *set_name = "own";
static int cpu_rows = 0; /* --cpu-rows */
/* 0 with --native W other than 16: the GPU rows' shapes, which the native
 * width does not touch, are left to the runs without it */
static int gpu_shapes = 1;
static char db_path[512], tmp_dir[256];
static bool fp64;

/* ---- GEMM parameter sets by name ---------------------------------------- */

static const struct set_def {
  const char *name;
  const char *vendor;    /* the vendor string such a device reports */
  vncl_device_type type;
  size_t pref_multiple;  /* the vendor's preferred work-group multiple */
  bool last;
  int vec;               /* native float vector width (CPU rows) */
} sets[] = {
    {"nvidia", "NVIDIA Corporation", VNCL_DEVICE_GPU, 32, false, 0},
    {"amd", "Advanced Micro Devices, Inc.", VNCL_DEVICE_GPU, 64, false, 0},
    {"intel", "Intel(R) Corporation", VNCL_DEVICE_GPU, 16, false, 0},
    {"gpu", "Another GPU vendor", VNCL_DEVICE_GPU, 0, false, 0},
    {"any", "Another vendor", VNCL_DEVICE_ACCELERATOR, 0, false, 0},
    {"last", "", 0, 0, true, 0},
    /* The CPU rows (512- and 256-bit vectors), for their kernel shapes
     * under GPU semantics (gemm_small's wide tiles among them). */
    {"cpu512", "GenuineIntel", VNCL_DEVICE_CPU, 0, false, 16},
    {"cpu256", "AuthenticAMD", VNCL_DEVICE_CPU, 0, false, 8},
};
static const struct set_def *set_def;

static void set_row(vncl__gemm_acc acc, vncl__gemm_shape sh,
                    vncl__gemm_params *p) {
  vncl_device_info fake;
  memset(&fake, 0, sizeof fake);
  vncl__strlcpy(fake.vendor, set_def->vendor, sizeof fake.vendor);
  fake.type = set_def->type;
  if (!vncl__gemm_params_builtin(&fake, set_def->vec, acc, sh, set_def->last,
                                 p))
    fail_msg("no built-in GEMM row for set %s", set_def->name);
}

/* A tuning database whose GEMM entries name this device exactly and hold
 * the set's every parameter. */
static void write_db(const vncl_device_info *info) {
  static const char *const dts[2] = {"f32", "f64"};
  static const char *const shs[3] = {"square", "narrow", "flat"};
  cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
  cJSON_AddStringToObject(root, "schema", VNCL__TUNING_SCHEMA);
  cJSON_AddNumberToObject(root, "version", VNCL__TUNING_VERSION);
  cJSON_AddItemToObject(root, "entries", arr);
  for (int acc = 0; acc < 2; acc++)
    for (int sh = 0; sh < 3; sh++) {
      vncl__gemm_params p;
      set_row((vncl__gemm_acc)acc, (vncl__gemm_shape)sh, &p);
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "vendor", info->vendor);
      cJSON_AddStringToObject(e, "device", info->name);
      cJSON_AddStringToObject(e, "driver", info->driver_version);
      cJSON_AddStringToObject(e, "library", vncl_version_string());
      cJSON_AddStringToObject(e, "device_type",
                              info->type == VNCL_DEVICE_GPU   ? "gpu"
                              : info->type == VNCL_DEVICE_CPU ? "cpu"
                                                              : "accelerator");
      cJSON_AddStringToObject(e, "kernel", "gemm");
      cJSON_AddStringToObject(e, "dtype", dts[acc]);
      cJSON_AddStringToObject(e, "class", shs[sh]);
      cJSON_AddStringToObject(e, "backend", "own");
      cJSON_AddItemToObject(e, "params", vncl__gemm_params_to_json(&p));
      cJSON_AddItemToArray(arr, e);
    }
  char *text = cJSON_Print(root);
  FILE *f = fopen(db_path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f)) fail_msg("cannot write %s", db_path);
  free(text);
  cJSON_Delete(root);
}

static int setup(void **st) {
  (void)st;
  t_tmpdir(tmp_dir, sizeof tmp_dir);
  vncl_options o;
  vncl_options_init(&o);
  if (set_def) {
    /* A first context only to learn the device's names. */
    vncl_context *c0 = t_context(NULL);
    snprintf(db_path, sizeof db_path, "%s/tuning.json", tmp_dir);
    write_db(&c0->info);
    vncl_context_destroy(c0);
    o.tuning_db = db_path;
  } else {
    snprintf(db_path, sizeof db_path, "%s/none.json", tmp_dir);
    o.tuning_db = db_path; /* no file: the built-in defaults */
  }
  if (vncl_context_create(&ctx, &o))
    fail_msg("vncl_context_create: %s", vncl_errmsg(NULL));
  vncl_context_cl(ctx, &clctx, &clq, NULL);
  fp64 = ctx->info.fp64;
  /* VNCL_GEMM_BACKEND=ref, as the context would have read it. */
  ctx->gemm_backend =
      !strcmp(set_name, "ref") ? VNCL__BACKEND_REF : VNCL__BACKEND_AUTO;
  fprintf(stderr, "oclgrind_check: %s (%s), %llu bytes local, %zu work-items, "
          "GEMM set %s\n", ctx->info.name, ctx->info.vendor,
          (unsigned long long)ctx->info.local_mem_bytes,
          ctx->info.max_work_group_size, set_name);
  return 0;
}

/* --kernels FILE: every kernel the group's context created, one
 * "source name" line each, appended (scripts/check-oclgrind.sh checks that
 * the runs together cover every kernel of cl_kernels/). */
static const char *kernels_out;
static void note_kernel(const char *source, const char *name, void *arg) {
  fprintf((FILE *)arg, "%s %s\n", source, name);
}

static int teardown(void **st) {
  (void)st;
  int rc = 0;
  if (kernels_out) {
    FILE *f = fopen(kernels_out, "a");
    if (f) {
      vncl__kernels_each(ctx, note_kernel, f);
      rc = fclose(f) ? -1 : 0;
    } else {
      rc = -1;
    }
    if (rc) fprintf(stderr, "oclgrind_check: cannot append to %s\n", kernels_out);
  }
  vncl_context_destroy(ctx);
  ctx = NULL;
  t_rmtree(tmp_dir);
  return rc;
}

/* The set in force is the named row, unchanged, for every class; and the
 * row also passes with the vendor's preferred work-group multiple. */
static void test_gemm_set_taken(void **st) {
  (void)st;
  if (!set_def) skip();
  for (int acc = 0; acc < (fp64 ? 2 : 1); acc++)
    for (int sh = 0; sh < VNCL__GEMM_SHAPES; sh++) {
      vncl__gemm_params want, got;
      set_row((vncl__gemm_acc)acc, (vncl__gemm_shape)sh, &want);
      vncl__gemm_params_get(ctx, (vncl__gemm_acc)acc, (vncl__gemm_shape)sh,
                            &got);
      vncl_device_info real = ctx->info;
      if (set_def->pref_multiple)
        real.preferred_work_group_multiple = set_def->pref_multiple;
      const vncl__gemm_kernel ks[4] = {VNCL__GEMM_DIRECT, VNCL__GEMM_PACK,
                                       (vncl__gemm_kernel)want.fast,
                                       VNCL__GEMM_SMALL};
      for (int i = 0; i < 4; i++) {
        char why[200];
        if (!vncl__gemm_params_valid(&real, ks[i], (vncl__gemm_acc)acc, &want,
                                     why, sizeof why))
          fail_msg("table bug: GEMM set %s (%s %s) does not fit %s's limits "
                   "(%llu bytes local, %zu work-items, multiple %zu): %s",
                   set_name, acc ? "f64" : "f32",
                   vncl__gemm_shape_name((vncl__gemm_shape)sh), set_name,
                   (unsigned long long)real.local_mem_bytes,
                   real.max_work_group_size, real.preferred_work_group_multiple,
                   why);
      }
      if (memcmp(&want, &got, sizeof want))
        fail_msg("GEMM set %s (%s %s) was not taken from the tuning database",
                 set_name, acc ? "f64" : "f32",
                 vncl__gemm_shape_name((vncl__gemm_shape)sh));
    }
}

/* ---- GEMM ------------------------------------------------------------------ */

static void put_v(void *buf, vncl_dtype t, size_t i, double v) {
  switch (t) {
    case VNCL_F32: ((float *)buf)[i] = (float)v; break;
    case VNCL_F64: ((double *)buf)[i] = v; break;
    case VNCL_F16: ((uint16_t *)buf)[i] = t_to_f16(v); break;
    default: ((uint16_t *)buf)[i] = t_to_bf16(v); break;
  }
}
static double get_v(const void *buf, vncl_dtype t, size_t i) {
  switch (t) {
    case VNCL_F32: return ((const float *)buf)[i];
    case VNCL_F64: return ((const double *)buf)[i];
    case VNCL_F16: return t_f16_value(((const uint16_t *)buf)[i]);
    default: return t_bf16_value(((const uint16_t *)buf)[i]);
  }
}

static cl_mem buffer(size_t bytes, const void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(clctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL,
                            &err);
  if (err) fail_msg("clCreateBuffer(%zu): %d", bytes, err);
  if (host && bytes &&
      clEnqueueWriteBuffer(clq, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL))
    fail_msg("clEnqueueWriteBuffer failed");
  return m;
}

/* Index of element (r, c) of a stored matrix. */
static size_t at(vncl_layout l, size_t r, size_t c, size_t ld) {
  return l == VNCL_ROW_MAJOR ? r * ld + c : r + c * ld;
}

typedef struct gcase {
  vncl_dtype t;
  vncl_layout lay;
  vncl_trans ta, tb;
  size_t m, n, k, batch;
  double alpha, beta;
  size_t off, pad; /* elements before each matrix; extra leading dimension */
} gcase;

static void gemm_case(const gcase *g) {
  vncl_dtype t = g->t;
  size_t es = vncl_dtype_size(t);
  /* Stored shapes: A is m x k (k x m transposed), B k x n, C m x n. */
  size_t ar = g->ta ? g->k : g->m, ac = g->ta ? g->m : g->k;
  size_t br = g->tb ? g->n : g->k, bc = g->tb ? g->k : g->n;
  bool rm = g->lay == VNCL_ROW_MAJOR;
  size_t lda = (rm ? ac : ar) + g->pad, ldb = (rm ? bc : br) + g->pad,
         ldc = (rm ? g->n : g->m) + g->pad;
  size_t sa = lda * (rm ? ar : ac) + 3, sb = ldb * (rm ? br : bc) + 1,
         sc = ldc * (rm ? g->m : g->n) + 2;
  size_t na = g->off + sa * g->batch, nb = g->off + sb * g->batch,
         nc = g->off + sc * g->batch;
  void *ha = malloc(na * es), *hb = malloc(nb * es), *hc = malloc(nc * es),
       *c0 = malloc(nc * es);
  for (size_t i = 0; i < na; i++) put_v(ha, t, i, t_rand_uniform(-1, 1));
  for (size_t i = 0; i < nb; i++) put_v(hb, t, i, t_rand_uniform(-1, 1));
  for (size_t i = 0; i < nc; i++)
    put_v(hc, t, i, g->beta == 0 ? NAN : t_rand_uniform(-1, 1));
  memcpy(c0, hc, nc * es);
  cl_mem a = buffer(na * es, ha), b = buffer(nb * es, hb),
         c = buffer(nc * es, hc);
  vncl_status s = vncl_gemm_cl_batched(
      ctx, t, g->lay, g->ta, g->tb, g->m, g->n, g->k, g->alpha, a, g->off, lda,
      sa, b, g->off, ldb, sb, g->beta, c, g->off, ldc, sc, g->batch);
  if (s)
    fail_msg("vncl_gemm_cl_batched %s %zux%zux%zu: %s", vncl_dtype_name(t),
             g->m, g->n, g->k, vncl_errmsg(ctx));
  if (clEnqueueReadBuffer(clq, c, CL_TRUE, 0, nc * es, hc, 0, NULL, NULL))
    fail_msg("clEnqueueReadBuffer failed");
  double u = t == VNCL_F64 ? 0x1p-53 : 0x1p-24, uo = t_eps(t) / 2;
  double fl = t == VNCL_F16 ? 0x1p-24 : t == VNCL_BF16 ? 0x1p-133 : 0;
  size_t bad = 0;
  char *inside = calloc(nc, 1);
  for (size_t q = 0; q < g->batch; q++)
    for (size_t i = 0; i < g->m; i++)
      for (size_t j = 0; j < g->n; j++) {
        double ref = 0, mag = 0;
        for (size_t p = 0; p < g->k; p++) {
          size_t ia = g->off + q * sa +
                      (g->ta ? at(g->lay, p, i, lda) : at(g->lay, i, p, lda));
          size_t ib = g->off + q * sb +
                      (g->tb ? at(g->lay, j, p, ldb) : at(g->lay, p, j, ldb));
          double x = get_v(ha, t, ia) * get_v(hb, t, ib);
          ref += x;
          mag += fabs(x);
        }
        size_t ic = g->off + q * sc + at(g->lay, i, j, ldc);
        inside[ic] = 1;
        double cv = g->beta == 0 ? 0 : get_v(c0, t, ic);
        double want = g->alpha * ref + g->beta * cv;
        double tol = 2.0 * (double)(g->k + 2) * u *
                         (fabs(g->alpha) * mag + fabs(g->beta * cv)) +
                     uo * fabs(want) + fl;
        double got = get_v(hc, t, ic);
        if (!(fabs(got - want) <= tol) && bad++ < 3)
          fprintf(stderr, "  C[%zu](%zu,%zu) = %.9g, expected %.9g (tol %.3g)\n",
                  q, i, j, got, want, tol);
      }
  size_t touched = 0;
  for (size_t i = 0; i < nc; i++)
    if (!inside[i] && memcmp((char *)hc + i * es, (char *)c0 + i * es, es))
      touched++;
  if (bad || touched)
    fail_msg("GEMM set %s %s %s %s%s %zux%zux%zu batch %zu alpha %g beta %g "
             "off %zu pad %zu: %zu wrong, %zu outside C written",
             set_name, vncl_dtype_name(t), rm ? "row" : "col",
             g->ta ? "T" : "N", g->tb ? "T" : "N", g->m, g->n, g->k, g->batch,
             g->alpha, g->beta, g->off, g->pad, bad, touched);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
  free(ha);
  free(hb);
  free(hc);
  free(c0);
  free(inside);
}

/* Shapes: single elements, odd sizes below and across one tile of every
 * set (the largest tile is 128 x 128), a narrow and a flat product, k = 0,
 * batches, offsets and padded leading dimensions. */
static void gemm_cases(vncl_dtype t, bool packed) {
  static const size_t sh[][4] = {{1, 1, 1, 1},     {33, 17, 9, 1},
                                 {65, 130, 19, 2}, {131, 35, 40, 1},
                                 {64, 64, 64, 1},  {200, 9, 23, 1},
                                 {7, 150, 31, 3},  {5, 6, 0, 1}};
  static const double al[] = {1.0, -0.5, 2.0, 1.0};
  static const double be[] = {0.0, 1.0, -2.0, 0.5, 0.0};
  size_t count = sizeof sh / sizeof *sh;
  for (size_t i = 0; i < count; i++) {
    /* The packed path at small sizes is slow under the simulator: the
     * larger shapes once per dtype in it. */
    if (packed && (i == 2 || i == 3) && t != VNCL_F32) continue;
    gcase g = {t,
               (vncl_layout)(i & 1),
               (vncl_trans)((i >> 1) & 1),
               (vncl_trans)(((i >> 2) ^ i) & 1),
               sh[i][0],
               sh[i][1],
               sh[i][2],
               sh[i][3],
               al[i % 4],
               be[i % 5],
               i % 3 == 1 ? 5 : 0,
               i % 2 ? 3 : 0};
    gemm_case(&g);
  }
  /* Packed, the CPU kernel's variants for few rows: against a transposed
   * B with n and k at least 2m, C^T = B A^T (C_TRANS; a batch, so not
   * gemm_small); B as stored in one block of rows, packed by the kernel
   * into local memory (B_FUSED; 40 depths fit half of Oclgrind's 32 KiB).
   * Other sets run them on their own kernels. */
  if (packed && t == VNCL_F32) {
    const gcase few[2] = {
        {t, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_TRANS, 9, 40, 30, 2, 1.0, 0.5,
         3, 2},
        {t, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_NO_TRANS, 20, 70, 40, 1, -1.0,
         0.0, 0, 1}};
    for (int i = 0; i < 2; i++) gemm_case(&few[i]);
  }
}

static void gemm_all(bool packed) {
  const vncl_dtype dts[4] = {VNCL_F32, VNCL_F64, VNCL_F16, VNCL_BF16};
  for (int i = 0; i < 4; i++)
    if (dts[i] != VNCL_F64 || fp64) gemm_cases(dts[i], packed);
}

/* As the set stands: below the switch points, the direct kernel. */
static void test_gemm_direct(void **st) {
  (void)st;
  gemm_all(false);
}

/* The sets in force for every (accumulation, shape class), into saved. */
typedef vncl__gemm_params gemm_sets[2][VNCL__GEMM_SHAPES];
static void save_sets(gemm_sets saved) {
  for (int acc = 0; acc < 2; acc++)
    for (int sh = 0; sh < VNCL__GEMM_SHAPES; sh++)
      vncl__gemm_params_get(ctx, (vncl__gemm_acc)acc, (vncl__gemm_shape)sh,
                            &saved[acc][sh]);
}

/* Installs each of saved, changed by edit (NULL: as it is). */
static void install_sets(gemm_sets saved, void (*edit)(vncl__gemm_params *)) {
  for (int acc = 0; acc < 2; acc++)
    for (int sh = 0; sh < VNCL__GEMM_SHAPES; sh++) {
      vncl__gemm_params p = saved[acc][sh];
      if (edit) edit(&p);
      T_OK(ctx, vncl__gemm_params_set(ctx, (vncl__gemm_acc)acc,
                                      (vncl__gemm_shape)sh, &p));
    }
}

/* Switch points at 0 (the small-product ones too): no product to
 * gemm_direct or gemm_small. */
static void all_packed(vncl__gemm_params *p) {
  p->switch_mnk = p->switch_mnk_bt = 0;
  p->small_mnk = p->small_batch_mnk = 0;
}

/* The same, with the CPU-shaped pack kernel (gemm_pack, one work-item per
 * 16 depths of a panel). */
static void all_packed_cpu_pack(vncl__gemm_params *p) {
  all_packed(p);
  p->pack_elem = 0;
  p->pack_wg0 = p->pack_wg1 = 4;
}

/* gemm_small for every product (single and batched, B transposed too). */
static void all_small(vncl__gemm_params *p) {
  p->small_mnk = p->small_batch_mnk = p->small_batch_mnk_bt = 1e30;
  p->switch_mnk_bt = 1e30;
}

/* The same set with its switch points at 0: pack + the packed kernel for
 * every shape. */
static void test_gemm_packed(void **st) {
  (void)st;
  if (!strcmp(set_name, "ref")) skip();
  gemm_sets saved;
  save_sets(saved);
  install_sets(saved, all_packed);
  gemm_all(true);
  if (set_def && set_def->last) {
    /* with the last-resort set's packed kernel */
    install_sets(saved, all_packed_cpu_pack);
    gemm_all(true);
  }
  install_sets(saved, NULL);
}

/* The same set with gemm_small taking every product (single and batched;
 * k = 0 stays on gemm_direct), its own SM_* parameters unchanged. */
static void test_gemm_small(void **st) {
  (void)st;
  if (!strcmp(set_name, "ref")) skip();
  gemm_sets saved;
  save_sets(saved);
  install_sets(saved, all_small);
  gemm_all(false);
  install_sets(saved, NULL);
}

/* Tensors: 16-bit inputs with C in f32 (the mixed case the raw API lacks). */
static void test_gemm_mixed(void **st) {
  (void)st;
  const vncl_dtype ins[2] = {VNCL_F16, VNCL_BF16};
  for (int d = 0; d < 2; d++) {
    size_t m = 19, n = 37, k = 21;
    int64_t sa[2] = {(int64_t)m, (int64_t)k}, sb[2] = {(int64_t)k, (int64_t)n},
            sc[2] = {(int64_t)m, (int64_t)n};
    vncl_tensor *a = t_new(ctx, ins[d], 2, sa), *b = t_new(ctx, ins[d], 2, sb),
                *c = t_new(ctx, VNCL_F32, 2, sc);
    double *av = t_rand_vals(ins[d], m * k, -1, 1),
           *bv = t_rand_vals(ins[d], k * n, -1, 1);
    t_write(ctx, a, av);
    t_write(ctx, b, bv);
    t_poison(ctx, c);
    T_OK(ctx, vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1.0, a, b, 0.0, c));
    double *got = t_read(ctx, c), *ref = malloc(m * n * sizeof *ref),
           *tol = malloc(m * n * sizeof *tol);
    t_ref_gemm(false, false, m, n, k, 1, 1.0, av, k, bv, n, 0.0, NULL, n, ref,
               tol);
    for (size_t i = 0; i < m * n; i++)
      tol[i] = 2.0 * (double)(k + 2) * 0x1p-24 * tol[i] + 0x1p-24 * fabs(ref[i]);
    t_check_each("gemm f16/bf16 -> f32", m * n, got, ref, tol);
    free(got);
    free(ref);
    free(tol);
    free(av);
    free(bv);
    vncl_tensor_destroy(a);
    vncl_tensor_destroy(b);
    vncl_tensor_destroy(c);
  }
}

/* ---- tensor operations ------------------------------------------------------ */

static const vncl_dtype fts[4] = {VNCL_F32, VNCL_F64, VNCL_F16, VNCL_BF16};
/* The body runs once per arithmetic dtype the device has. */
#define FOR_DTYPES(t)                                                     \
  for (int di_ = 0, o_ = 1; di_ < 4; di_++, o_ = 1)                       \
    for (vncl_dtype t = fts[di_]; o_ && (t != VNCL_F64 || fp64); o_ = 0)

/* A view of `base` starting `off` elements in, of the given shape (the
 * kernels take element offsets; the public API makes none yet). */
static vncl_tensor views[4];
static vncl_tensor *view(int slot, const vncl_tensor *base, size_t off, int nd,
                         const int64_t *shape) {
  vncl_tensor *v = &views[slot];
  *v = *base;
  v->ndim = nd;
  for (int i = 0; i < nd; i++) v->shape[i] = shape[i];
  v->numel = t_numel(nd, shape);
  v->bytes = v->numel * vncl_dtype_size(base->dtype);
  v->offset = base->offset + off * vncl_dtype_size(base->dtype);
  if (v->offset + v->bytes > base->bytes + base->offset)
    fail_msg("view beyond its base");
  return v;
}

/* Reads a view's elements as doubles. */
static double *read_view(const vncl_tensor *v) { return t_read(ctx, v); }

/* The table's rows for every family are what the device runs, unchanged
 * by the fitting to its limits. */
static void test_ops_rows_fit(void **st) {
  (void)st;
  for (int f = 0; f < VNCL__OPS_FAMILIES; f++) {
    const vncl__tune_space *sp = vncl__ops_space(f);
    int row[VNCL__OPS_MAX_PARAMS];
    assert_true(vncl__ops_defaults(&ctx->info, (vncl__ops_family)f, row));
    int got[VNCL__OPS_MAX_PARAMS];
    vncl__ops_params(ctx, (vncl__ops_family)f, got);
    for (int i = 0; i < sp->nparams; i++)
      if (got[i] != row[i])
        fail_msg("table bug: %s row %s=%d becomes %d on %s (%llu bytes local, "
                 "%zu work-items)",
                 sp->family, sp->params[i].name, row[i], got[i],
                 ctx->info.name,
                 (unsigned long long)ctx->info.local_mem_bytes,
                 ctx->info.max_work_group_size);
  }
}

static double ew_ref(int op, double a, double b) {
  switch (op) {
    case VNCL_ADD: return a + b;
    case VNCL_SUB: return a - b;
    case VNCL_MUL: return a * b;
    case VNCL_DIV: return a / b;
    case VNCL_MAX: return a > b ? a : b;
    case VNCL_MIN: return a < b ? a : b;
    default: return pow(a, b);
  }
}

/* Half the smallest step of a 16-bit type (its subnormals): the rounding
 * to storage near zero. */
static double t_floor(vncl_dtype t) {
  return t == VNCL_F16 ? 0x1p-25 : t == VNCL_BF16 ? 0x1p-134 : 1e-300;
}

/* Compute rounding (f32 for 16-bit types) plus the rounding to storage. */
static double ew_tol(vncl_dtype t, double ref, double ulps) {
  double e = t == VNCL_F64 ? 0x1p-52 : 0x1p-23;
  return ulps * e * fabs(ref) + t_eps(t) / 2 * fabs(ref) + t_floor(t);
}

static void check_binary(vncl_dtype t, int op, const char *what, size_t n,
                         const double *got, const double *av, const size_t *ia,
                         const double *bv, const size_t *ib, bool swap,
                         double scalar) {
  double *ref = malloc(n * sizeof *ref), *tol = malloc(n * sizeof *tol);
  for (size_t i = 0; i < n; i++) {
    double a = av[ia ? ia[i] : i], b = bv ? bv[ib ? ib[i] : i] : scalar;
    /* The exact value: the result may be off by its rounding to storage
     * (half a step) plus the compute rounding, so no rounded reference. */
    ref[i] = swap ? ew_ref(op, b, a) : ew_ref(op, a, b);
    tol[i] = ew_tol(t, ref[i], op == VNCL_POW ? 16 : 2);
  }
  t_check_each(what, n, got, ref, tol);
  free(ref);
  free(tol);
}

/* Broadcasts over short rows (ew_binary_short, several rows a work-item),
 * with --cpu-rows: the CPU row (rows of 24 in vectors of 16, the tail an
 * overlapping vector, in place; rows of 3 in vectors of 2; a row of 3
 * repeated down the rows and rows of 2 by columns in ew_binary_period)
 * and a set that steps rows WG apart as GPUs would (rows of 6 in vectors
 * of 4, eight vectors a work-item), f32 and f16. */
static void short_rows_cases(void) {
  /* WG, VW, IPT, ITEM_CONTIG, NT_STORE; the row length with a tail */
  static const struct {
    int set[VNCL__OPS_MAX_PARAMS];
    int64_t len;
  } sets[] = {{{16, 16, 64, 1, 1}, 24}, {{32, 4, 8, 0, 0}, 6}};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_ELEMENTWISE, sets[k].set));
    for (int di = 0; di < 2; di++) {
      vncl_dtype t = di ? VNCL_F16 : VNCL_F32;
      int64_t L = sets[k].len, R = 67, sr[2] = {R, L}, sb[1] = {L},
              s3[2] = {R, 3}, sc[2] = {R, 1}, s31[1] = {3};
      size_t n = (size_t)(R * L), n3 = (size_t)R * 3;
      vncl_tensor *a = t_new(ctx, t, 2, sr), *b = t_new(ctx, t, 1, sb),
                  *a3 = t_new(ctx, t, 2, s3), *c = t_new(ctx, t, 2, sc),
                  *o3 = t_new(ctx, t, 2, s3), *b3 = t_new(ctx, t, 1, s31);
      double *av = t_rand_vals(t, n, -2, 2), *bv = t_rand_vals(t, (size_t)L, -2, 2),
             *a3v = t_rand_vals(t, n3, -2, 2), *cv = t_rand_vals(t, (size_t)R, 0.5, 2),
             *b3v = t_rand_vals(t, 3, -2, 2);
      size_t *ia = malloc(n * sizeof *ia), *ib = malloc(n * sizeof *ib);
      t_write(ctx, a, av);
      t_write(ctx, b, bv);
      t_write(ctx, a3, a3v);
      t_write(ctx, c, cv);
      t_write(ctx, b3, b3v);
      t_poison(ctx, o3);
      T_OK(ctx, vncl_binary(ctx, VNCL_SUB, a, b, a)); /* in place */
      double *got = t_read(ctx, a);
      for (size_t i = 0; i < n; i++) ia[i] = i, ib[i] = i % (size_t)L;
      check_binary(t, VNCL_SUB, "short rows in place", n, got, av, ia, bv, ib,
                   false, 0);
      free(got);
      T_OK(ctx, vncl_binary(ctx, VNCL_DIV, a3, c, o3));
      got = t_read(ctx, o3);
      for (size_t i = 0; i < n3; i++) ia[i] = i, ib[i] = i / 3;
      check_binary(t, VNCL_DIV, "rows of 3", n3, got, a3v, ia, cv, ib, false,
                   0);
      free(got);
      /* a row of 3 repeated down the rows: ew_binary_period with vectors
       * of 16 (three phases), the short-rows kernel with vectors of 4 */
      t_poison(ctx, o3);
      T_OK(ctx, vncl_binary(ctx, VNCL_SUB, b3, a3, o3));
      got = t_read(ctx, o3);
      for (size_t i = 0; i < n3; i++) ia[i] = i, ib[i] = i % 3;
      check_binary(t, VNCL_SUB, "row of 3 repeated", n3, got, a3v, ia, b3v,
                   ib, true, 0);
      free(got);
      /* rows of 2 by columns: ew_binary_period in both sets (one phase;
       * vectors WG apart in the second) */
      int64_t s2[2] = {R, 2};
      vncl_tensor *a2 = t_new(ctx, t, 2, s2), *o2 = t_new(ctx, t, 2, s2);
      t_write(ctx, a2, a3v);
      t_poison(ctx, o2);
      T_OK(ctx, vncl_binary(ctx, VNCL_MUL, a2, c, o2));
      got = t_read(ctx, o2);
      for (size_t i = 0; i < (size_t)R * 2; i++) ia[i] = i, ib[i] = i / 2;
      check_binary(t, VNCL_MUL, "rows of 2 by columns", (size_t)R * 2, got,
                   a3v, ia, cv, ib, false, 0);
      free(got);
      vncl_tensor_destroy(a2);
      vncl_tensor_destroy(o2);
      free(av), free(bv), free(a3v), free(cv), free(b3v), free(ia), free(ib);
      vncl_tensor *all[] = {a, b, a3, c, o3, b3};
      for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        vncl_tensor_destroy(all[i]);
    }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_ELEMENTWISE, NULL));
}

static void test_elementwise(void **st) {
  (void)st;
  FOR_DTYPES(t) {
    char what[96];
    /* Contiguous, with an offset on a and out; every binary op. */
    size_t n = 1031, off = 3;
    int64_t sn[1] = {(int64_t)n}, sb[1] = {(int64_t)(n + 2 * off)};
    vncl_tensor *ab = t_new(ctx, t, 1, sb), *b = t_new(ctx, t, 1, sn),
                *ob = t_new(ctx, t, 1, sb);
    double *abv = t_rand_vals(t, n + 2 * off, 0.25, 2),
           *bv = t_rand_vals(t, n, 0.25, 2);
    t_write(ctx, ab, abv);
    t_write(ctx, b, bv);
    vncl_tensor *a = view(0, ab, off, 1, sn), *o = view(1, ob, 2 * off, 1, sn);
    for (int op = VNCL_ADD; op <= VNCL_POW; op++) {
      t_poison(ctx, ob);
      T_OK(ctx, vncl_binary(ctx, (vncl_binary_op)op, a, b, o));
      double *got = read_view(o), *all = t_read(ctx, ob);
      snprintf(what, sizeof what, "binary %d %s contiguous", op,
               vncl_dtype_name(t));
      check_binary(t, op, what, n, got, abv + off, NULL, bv, NULL, false, 0);
      for (size_t i = 0; i < 2 * off; i++)
        if (!isnan(all[i])) fail_msg("%s: wrote before out", what);
      free(got);
      free(all);
    }
    /* Scalar on either side. */
    t_poison(ctx, ob);
    T_OK(ctx, vncl_binary_scalar(ctx, VNCL_SUB, a, 0.75, o));
    double *got = read_view(o);
    snprintf(what, sizeof what, "a - s %s", vncl_dtype_name(t));
    check_binary(t, VNCL_SUB, what, n, got, abv + off, NULL, NULL, NULL, false,
                 (double)(float)0.75);
    free(got);
    t_poison(ctx, ob);
    T_OK(ctx, vncl_scalar_binary(ctx, VNCL_DIV, 1.5, a, o));
    got = read_view(o);
    snprintf(what, sizeof what, "s / a %s", vncl_dtype_name(t));
    check_binary(t, VNCL_DIV, what, n, got, abv + off, NULL, NULL, NULL, true,
                 1.5);
    free(got);
    /* Unary, every op. */
    for (int op = VNCL_NEG; op <= VNCL_GELU; op++) {
      t_poison(ctx, ob);
      T_OK(ctx, vncl_unary(ctx, (vncl_unary_op)op, a, o));
      got = read_view(o);
      double *ref = malloc(n * sizeof *ref), *tol = malloc(n * sizeof *tol);
      for (size_t i = 0; i < n; i++) {
        double x = abv[off + i], r;
        switch (op) {
          case VNCL_NEG: r = -x; break;
          case VNCL_ABS: r = fabs(x); break;
          case VNCL_EXP: r = exp(x); break;
          case VNCL_LOG: r = log(x); break;
          case VNCL_SQRT: r = sqrt(x); break;
          case VNCL_TANH: r = tanh(x); break;
          case VNCL_SIGMOID: r = 1 / (1 + exp(-x)); break;
          case VNCL_RELU: r = x > 0 ? x : 0; break;
          default: r = x / 2 * erfc(-x / sqrt(2.0)); break;
        }
        ref[i] = r;
        tol[i] = ew_tol(t, ref[i], 8) + (op == VNCL_LOG ? 8 * 0x1p-23 : 0);
      }
      snprintf(what, sizeof what, "unary %d %s", op, vncl_dtype_name(t));
      t_check_each(what, n, got, ref, tol);
      free(ref);
      free(tol);
      free(got);
    }
    /* axpby with x broadcast over rows: y[5,37] = 2 x[37] - 0.5 y. */
    int64_t sy[2] = {5, 37}, sx[1] = {37};
    vncl_tensor *y = t_new(ctx, t, 2, sy), *x = t_new(ctx, t, 1, sx);
    double *yv = t_rand_vals(t, 5 * 37, -1, 1), *xv = t_rand_vals(t, 37, -1, 1);
    t_write(ctx, y, yv);
    t_write(ctx, x, xv);
    T_OK(ctx, vncl_axpby(ctx, 2.0, x, -0.5, y));
    got = t_read(ctx, y);
    double *ref = malloc(5 * 37 * sizeof *ref), *tol = malloc(5 * 37 * sizeof *tol);
    for (size_t i = 0; i < 5 * 37; i++) {
      ref[i] = 2.0 * xv[i % 37] - 0.5 * yv[i];
      tol[i] = ew_tol(t, 2 * fabs(xv[i % 37]) + 0.5 * fabs(yv[i]), 2);
    }
    t_check_each("axpby broadcast", 5 * 37, got, ref, tol);
    free(got);
    free(ref);
    free(tol);
    /* Row broadcast ([5,37] + [37]) and general ([3,1,7] * [1,5,1]). */
    vncl_tensor *r = t_new(ctx, t, 2, sy);
    t_write(ctx, y, yv);
    t_poison(ctx, r);
    T_OK(ctx, vncl_binary(ctx, VNCL_ADD, y, x, r));
    got = t_read(ctx, r);
    size_t *iy = malloc(5 * 37 * sizeof *iy), *ix = malloc(5 * 37 * sizeof *ix);
    for (size_t i = 0; i < 5 * 37; i++) iy[i] = i, ix[i] = i % 37;
    check_binary(t, VNCL_ADD, "rows broadcast", 5 * 37, got, yv, iy, xv, ix,
                 false, 0);
    free(got);
    int64_t s1[3] = {3, 1, 7}, s2[3] = {1, 5, 1}, s3[3] = {3, 5, 7};
    vncl_tensor *p1 = t_new(ctx, t, 3, s1), *p2 = t_new(ctx, t, 3, s2),
                *p3 = t_new(ctx, t, 3, s3);
    double *v1 = t_rand_vals(t, 21, -2, 2), *v2 = t_rand_vals(t, 5, -2, 2);
    t_write(ctx, p1, v1);
    t_write(ctx, p2, v2);
    t_poison(ctx, p3);
    T_OK(ctx, vncl_binary(ctx, VNCL_MUL, p1, p2, p3));
    got = t_read(ctx, p3);
    size_t i1[105], i2[105];
    for (size_t i = 0; i < 105; i++) {
      size_t a0 = i / 35, a1 = (i / 7) % 5, a2 = i % 7;
      i1[i] = a0 * 7 + a2;
      i2[i] = a1;
    }
    check_binary(t, VNCL_MUL, "general broadcast", 105, got, v1, i1, v2, i2,
                 false, 0);
    free(got);
    /* Rows shorter than a vector: the general kernel (ew_binary_bcast). */
    int64_t s4[3] = {3, 1, 3}, s5[3] = {3, 5, 3};
    vncl_tensor *p4 = t_new(ctx, t, 3, s4), *p5 = t_new(ctx, t, 3, s5);
    t_write(ctx, p4, v1);
    t_poison(ctx, p5);
    T_OK(ctx, vncl_binary(ctx, VNCL_SUB, p4, p2, p5));
    got = t_read(ctx, p5);
    for (size_t i = 0; i < 45; i++) {
      i1[i] = (i / 15) * 3 + i % 3;
      i2[i] = (i / 3) % 5;
    }
    check_binary(t, VNCL_SUB, "short-row broadcast", 45, got, v1, i1, v2, i2,
                 false, 0);
    free(got);
    vncl_tensor_destroy(p4);
    vncl_tensor_destroy(p5);
    free(iy);
    free(ix);
    free(v1);
    free(v2);
    free(yv);
    free(xv);
    free(abv);
    free(bv);
    vncl_tensor_destroy(ab);
    vncl_tensor_destroy(b);
    vncl_tensor_destroy(ob);
    vncl_tensor_destroy(y);
    vncl_tensor_destroy(x);
    vncl_tensor_destroy(r);
    vncl_tensor_destroy(p1);
    vncl_tensor_destroy(p2);
    vncl_tensor_destroy(p3);
  }
  if (cpu_rows) short_rows_cases();
}

/* Casts between every pair of dtypes, fill and copy with offsets. */
static void cast_cases(void) {
  const vncl_dtype all[5] = {VNCL_F32, VNCL_F64, VNCL_F16, VNCL_BF16, VNCL_I32};
  size_t n = 517;
  int64_t sn[1] = {(int64_t)n};
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) {
      vncl_dtype s = all[i], d = all[j];
      vncl_tensor *x = t_new(ctx, s, 1, sn), *y = t_new(ctx, d, 1, sn);
      double *xv = malloc(n * sizeof *xv);
      for (size_t e = 0; e < n; e++)
        xv[e] = s == VNCL_I32 ? (double)(int)t_rand_uniform(-3000, 3000)
                              : t_round(s, t_rand_uniform(-3000, 3000));
      t_write(ctx, x, xv);
      t_poison(ctx, y);
      T_OK(ctx, vncl_cast(ctx, x, y));
      double *got = t_read(ctx, y), *ref = malloc(n * sizeof *ref);
      for (size_t e = 0; e < n; e++)
        ref[e] = d == VNCL_I32 ? trunc(xv[e]) : t_round(d, xv[e]);
      char what[64];
      snprintf(what, sizeof what, "cast %s -> %s", vncl_dtype_name(s),
               vncl_dtype_name(d));
      t_check(what, n, got, ref, 0, 0);
      free(got);
      free(ref);
      free(xv);
      vncl_tensor_destroy(x);
      vncl_tensor_destroy(y);
    }
  for (int i = 0; i < 5; i++) {
    vncl_dtype t = all[i];
    int64_t sb[1] = {(int64_t)n + 8};
    vncl_tensor *base = t_new(ctx, t, 1, sb), *src = t_new(ctx, t, 1, sn);
    t_poison(ctx, base);
    vncl_tensor *v = view(0, base, 5, 1, sn);
    T_OK(ctx, vncl_fill(ctx, v, -7.0));
    double *got = t_read(ctx, base);
    for (size_t e = 0; e < n + 8; e++) {
      bool in = e >= 5 && e < 5 + n;
      bool ok = in ? got[e] == -7.0
                   : (t == VNCL_I32 ? got[e] == 0x7fc0dead : isnan(got[e]));
      if (!ok) fail_msg("fill %s: element %zu is %g", vncl_dtype_name(t), e, got[e]);
    }
    free(got);
    double *sv = malloc(n * sizeof *sv);
    for (size_t e = 0; e < n; e++)
      sv[e] = t == VNCL_I32 ? (double)(int)t_rand_uniform(-99, 99)
                            : t_round(t, t_rand_uniform(-9, 9));
    t_write(ctx, src, sv);
    T_OK(ctx, vncl_copy(ctx, src, v));
    got = read_view(v);
    t_check("copy into a view", n, got, sv, 0, 0);
    free(got);
    free(sv);
    vncl_tensor_destroy(base);
    vncl_tensor_destroy(src);
  }
}
static void with_cpu_rows(void (*cases)(void), vncl__ops_family f,
                          const int *cpu);
/* The cast family with its GPU row, then (--cpu-rows) the CPU row's
 * 16-lane vectors per work-item (ITEM_CONTIG, 64 elements each) with
 * non-temporal stores. */
static void test_cast(void **st) {
  (void)st;
  static const int cpu[VNCL__OPS_MAX_PARAMS] = {16, 64, 1, 1};
  with_cpu_rows(cast_cases, VNCL__OPS_CAST, cpu);
}

/* Transposes across partial tiles with a batch, and permutations (tiled
 * and gathered), in every dtype (bits move unchanged); with tr_one_per_size,
 * f32, f64 and f16 (one type of each size but 1). */
static int tr_one_per_size;
static void transpose_cases(void) {
  const vncl_dtype all[5] = {VNCL_F32, VNCL_F64, VNCL_F16, VNCL_I32, VNCL_BF16};
  static const struct {
    int nd;
    int64_t shape[4];
    int perm[4];
  } cs[] = {{3, {3, 37, 45}, {0, 2, 1}},
            {2, {70, 33}, {1, 0}},
            {2, {48, 32}, {1, 0}}, /* aligned output rows */
            {2, {64, 40}, {1, 0}}, /* 64-byte aligned rows of 2-byte elements */
            {3, {5, 6, 7}, {2, 0, 1}},
            {4, {2, 3, 4, 5}, {3, 1, 0, 2}},
            {3, {4, 9, 33}, {1, 0, 2}},
            {3, {20, 5, 40}, {2, 1, 0}}, /* short r: blocks fold the batch */
            {4, {2, 100, 6, 24}, {0, 3, 2, 1}}, /* short a folds */
            {4, {20, 5, 3, 40}, {3, 2, 1, 0}}, /* both fold */
            {4, {2, 3, 9, 19}, {0, 2, 3, 1}},  /* a plane: r 3 */
            {4, {2, 9, 19, 3}, {0, 3, 1, 2}},  /* a plane: a 3 */
            {3, {3, 7, 5}, {2, 1, 0}},         /* a plane, merged rows */
            {4, {7, 9, 5, 37}, {3, 2, 1, 0}}}; /* virtual block rows */
  for (int d = 0; d < (tr_one_per_size ? 3 : 5); d++)
    for (size_t c = 0; c < sizeof cs / sizeof *cs; c++) {
      vncl_dtype t = all[d];
      int nd = cs[c].nd;
      int64_t os[4];
      for (int i = 0; i < nd; i++) os[i] = cs[c].shape[cs[c].perm[i]];
      size_t n = t_numel(nd, cs[c].shape);
      vncl_tensor *x = t_new(ctx, t, nd, cs[c].shape), *y = t_new(ctx, t, nd, os);
      double *xv = malloc(n * sizeof *xv), *ref = malloc(n * sizeof *ref);
      for (size_t e = 0; e < n; e++)
        xv[e] = t == VNCL_I32 ? (double)(int)t_rand_uniform(-1e6, 1e6)
                              : t_round(t, t_rand_uniform(-1, 1));
      t_write(ctx, x, xv);
      t_poison(ctx, y);
      if (c == 0)
        T_OK(ctx, vncl_transpose(ctx, x, y));
      else
        T_OK(ctx, vncl_permute(ctx, x, cs[c].perm, y));
      size_t istr[4];
      istr[nd - 1] = 1;
      for (int i = nd - 2; i >= 0; i--)
        istr[i] = istr[i + 1] * (size_t)cs[c].shape[i + 1];
      for (size_t e = 0; e < n; e++) {
        size_t r = e, src = 0;
        for (int i = nd - 1; i >= 0; i--) {
          size_t idx = r % (size_t)os[i];
          r /= (size_t)os[i];
          src += idx * istr[cs[c].perm[i]];
        }
        ref[e] = xv[src];
      }
      double *got = t_read(ctx, y);
      char what[64];
      snprintf(what, sizeof what, "permute case %zu %s", c, vncl_dtype_name(t));
      t_check(what, n, got, ref, 0, 0);
      free(got);
      free(ref);
      free(xv);
      vncl_tensor_destroy(x);
      vncl_tensor_destroy(y);
    }
}

/* Every reduction over rows short and long (one work-item per row, a
 * work-group per row, a row split over groups), columns, a middle axis and
 * everything. */
/* The sum in long double (as test_ops_reduce's reference): a plain double
 * sum of 5000 f64 values or squares can itself be off by tens of ulp, more
 * than the 16 the check allows (one CI run of 2026-12-05 failed an f64 norm
 * of 5000 values by 1.85e-13 at a tolerance of 1.48e-13, on random inputs
 * that three later runs passed). */
static double red_ref(int op, const double *x, size_t base, size_t R,
                      size_t step, double *mag) {
  long double s = 0;
  double best = x[base];
  size_t bi = 0;
  *mag = 0;
  for (size_t r = 0; r < R; r++) {
    double v = x[base + r * step];
    s += op == VNCL_REDUCE_NORM2 ? (long double)v * v : v;
    *mag += op == VNCL_REDUCE_NORM2 ? v * v : fabs(v);
    if (op == VNCL_REDUCE_MIN ? v < best : v > best) best = v, bi = r;
  }
  switch (op) {
    case VNCL_REDUCE_SUM: return (double)s;
    case VNCL_REDUCE_MEAN: *mag /= (double)R; return (double)(s / R);
    case VNCL_REDUCE_NORM2: return (double)sqrtl(s);
    case VNCL_REDUCE_ARGMAX: return (double)bi;
    default: return best;
  }
}

static void reduce_cases(void) {
  static const struct {
    int nd;
    int64_t shape[3];
    int axis; /* 99: all */
  } cs[] = {{2, {9, 13}, 1}, /* CPU rows: in blocks of vectors of 8 */
            {2, {5, 300}, 1},  {2, {2, 5000}, 1},
            {2, {50, 37}, 0},  {3, {4, 33, 5}, 1}, {1, {4099}, 99},
            {3, {3, 4, 17}, 99},
            {2, {40, 1100}, 0},  /* CPU rows: two column strips */
            /* CPU rows: VW rows a work-item (reduce_rows_block: rows of
             * 17 to ROWS_BLOCK 32; the last block 6 rows), and a work-item
             * a row (rows of 40, one compute unit), a tail of 8 as the last
             * vector (and argmax's two passes) */
            {2, {70, 24}, 1}, {2, {70, 40}, 1},
            /* CPU rows: rows of 3, 4 and 16 as whole vectors
             * (reduce_rows_packed, transposed and by the tree; rows of
             * 16 a vector each, argmax's square transposition; the last
             * work-item's 5 rows gathered element by element) */
            {2, {37, 3}, 1}, {2, {37, 4}, 1}, {2, {37, 16}, 1},
            /* rows of 8 (a tree of a vector) and 13: with --native 8
             * argmax's rows of 8 as an 8 x 8 square, rows of 13 and 16 as
             * two, in two whole blocks of 16 rows and a part of 5 */
            {2, {37, 8}, 1}, {2, {37, 13}, 1}};
  FOR_DTYPES(t) {
    for (size_t c = 0; c < sizeof cs / sizeof *cs; c++)
      for (int op = VNCL_REDUCE_SUM; op <= VNCL_REDUCE_NORM2; op++) {
        int nd = cs[c].nd, ax = cs[c].axis;
        size_t n = t_numel(nd, cs[c].shape), outer = 1, inner = 1, R = n;
        int64_t os[3];
        int ond = 0;
        if (ax != 99) {
          R = (size_t)cs[c].shape[ax];
          for (int i = 0; i < ax; i++) outer *= (size_t)cs[c].shape[i];
          for (int i = ax + 1; i < nd; i++) inner *= (size_t)cs[c].shape[i];
          for (int i = 0; i < nd; i++)
            if (i != ax) os[ond++] = cs[c].shape[i];
          if (!ond) os[ond++] = 1;
        } else {
          os[ond++] = 1;
        }
        vncl_dtype ot = op == VNCL_REDUCE_ARGMAX ? VNCL_I32 : t;
        vncl_tensor *x = t_new(ctx, t, nd, cs[c].shape), *o = t_new(ctx, ot, ond, os);
        /* Distinct values, so that argmax has one answer. */
        double *xv = t_rand_vals(t, n, -1, 1);
        if (op == VNCL_REDUCE_ARGMAX || op == VNCL_REDUCE_MAX ||
            op == VNCL_REDUCE_MIN)
          for (size_t e = 0; e < n; e++)
            xv[e] = t_round(t, (double)((e * 7919) % n) / (double)n - 0.5);
        t_write(ctx, x, xv);
        t_poison(ctx, o);
        if (ax == 99)
          T_OK(ctx, vncl_reduce_all(ctx, (vncl_reduce_op)op, x, o));
        else
          T_OK(ctx, vncl_reduce(ctx, (vncl_reduce_op)op, x, ax, o));
        size_t nout = outer * inner;
        double *got = t_read(ctx, o), *ref = malloc(nout * sizeof *ref),
               *tol = malloc(nout * sizeof *tol);
        for (size_t oi = 0; oi < outer; oi++)
          for (size_t ii = 0; ii < inner; ii++) {
            double mag;
            size_t q = oi * inner + ii;
            double r = red_ref(op, xv, oi * R * inner + ii, R, inner, &mag);
            bool exact = op == VNCL_REDUCE_ARGMAX || op == VNCL_REDUCE_MAX ||
                         op == VNCL_REDUCE_MIN;
            ref[q] = r;
            double e = t == VNCL_F64 ? 0x1p-52 : 0x1p-23;
            tol[q] = exact ? 0
                           : (op == VNCL_REDUCE_NORM2 ? 16 * e * sqrt(mag)
                                                      : 16 * e * mag) +
                                 t_eps(t) / 2 * fabs(r) + t_floor(t);
          }
        char what[64];
        snprintf(what, sizeof what, "reduce %d case %zu %s", op, c,
                 vncl_dtype_name(t));
        t_check_each(what, nout, got, ref, tol);
        free(got);
        free(ref);
        free(tol);
        free(xv);
        vncl_tensor_destroy(x);
        vncl_tensor_destroy(o);
      }
  }
}

/* 1: softmax_cases leaves out its rows of 1000 and more, for a second
 * CPU-layout set (test_softmax). */
static int sm_short_rows_only;

static void softmax_cases(void) {
  /* 2 x 5000: rows too long for local memory here (exp kept in the
   * output, or computed again for 16-bit storage); CPU rows: 4 x 5, 37 x 3
   * and 37 x 13 VW rows a work-item, transposed (softmax_rows_packed; the
   * last block 4 and 5 rows; 37 x 13 as 8 x 8 squares, rows loaded and
   * stored at their own offsets, and 150 x 16 so too with --native 8) */
  static const int64_t shapes[][2] = {{7, 300}, {3, 1000}, {4, 5}, {2, 5000},
                                      {70, 48}, {67, 24}, {150, 16}, {37, 3},
                                      {69, 72}, {37, 13}};
  FOR_DTYPES(t) {
    for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++)
      for (int lg = 0; lg < 2; lg++) {
        if (sm_short_rows_only && shapes[c][1] >= 1000) continue;
        size_t rows = (size_t)shapes[c][0], N = (size_t)shapes[c][1];
        vncl_tensor *x = t_new(ctx, t, 2, shapes[c]), *y = t_new(ctx, t, 2, shapes[c]);
        double *xv = t_rand_vals(t, rows * N, -4, 4);
        t_write(ctx, x, xv);
        t_poison(ctx, y);
        T_OK(ctx, lg ? vncl_log_softmax(ctx, x, y) : vncl_softmax(ctx, x, y));
        double *got = t_read(ctx, y), *ref = malloc(rows * N * sizeof *ref),
               *tol = malloc(rows * N * sizeof *tol);
        double e = t == VNCL_F64 ? 0x1p-52 : 0x1p-23;
        for (size_t r = 0; r < rows; r++) {
          double mx = -INFINITY, s = 0;
          for (size_t j = 0; j < N; j++) mx = fmax(mx, xv[r * N + j]);
          for (size_t j = 0; j < N; j++) s += exp(xv[r * N + j] - mx);
          for (size_t j = 0; j < N; j++) {
            double v = xv[r * N + j] - mx;
            double rv = lg ? v - log(s) : exp(v) / s;
            ref[r * N + j] = rv;
            tol[r * N + j] = (lg ? 32 * e * (fabs(v) + log(s) + 1)
                                 : 32 * e * fabs(rv)) +
                             t_eps(t) / 2 * fabs(rv) + t_floor(t);
          }
        }
        char what[64];
        snprintf(what, sizeof what, "%ssoftmax %zux%zu %s", lg ? "log_" : "",
                 rows, N, vncl_dtype_name(t));
        t_check_each(what, rows * N, got, ref, tol);
        free(got);
        free(ref);
        free(tol);
        free(xv);
        vncl_tensor_destroy(x);
        vncl_tensor_destroy(y);
      }
  }
  /* The kernels' own exp (test hook) on its domain: -inf, NaN, -0, and
   * random arguments in [-104, 0]; <= 2 ulp (results below 2^-126 within
   * 2^-126). */
  size_t n = 1003;
  float *in = malloc(n * sizeof *in);
  in[0] = -INFINITY, in[1] = NAN, in[2] = -0.0f;
  for (size_t i = 3; i < n; i++) in[i] = (float)t_rand_uniform(-104, 0);
  float *got = t_probe(ctx, VNCL__OPS_SOFTMAX, SM_VW, "softmax_exp_probe", in,
                       n, 1);
  for (size_t i = 0; i < n; i++) {
    double ref = exp((double)in[i]);
    int ok = isnan(in[i]) ? isnan(got[i])
             : ref < 0x1p-126 ? fabs(got[i] - ref) <= 0x1p-126
                              : t_ulp_err(got[i], ref) <= 2;
    if (!ok)
      fail_msg("softmax exp(%.9g): got %.9g, expected %.9g", (double)in[i],
               (double)got[i], ref);
  }
  free(in);
  free(got);
}

/* ---- random: against the CPU Philox of test/common.c -------------------- */

static void random_cases(void) {
  size_t n = 1029;
  int64_t sn[1] = {(int64_t)n};
  FOR_DTYPES(t) {
    uint64_t seed = t_rand_u64(), sub = t_rand_u64() >> 40, off = 7;
    vncl_tensor *o = t_new(ctx, t, 1, sn);
    t_poison(ctx, o);
    T_OK(ctx, vncl_random_uniform(ctx, o, seed, sub, off, -1.0, 3.0));
    double *got = t_read(ctx, o), *ref = malloc(n * sizeof *ref),
           *tol = malloc(n * sizeof *tol);
    for (size_t e = 0; e < n; e++) {
      uint32_t w[4];
      if (t == VNCL_F64) {
        t_philox_block(seed, sub, off + e / 2, w);
        ref[e] = fma(4.0, t_philox_u53(w[2 * (e % 2)], w[2 * (e % 2) + 1]), -1.0);
      } else {
        t_philox_block(seed, sub, off + e / 4, w);
        float u = (float)(w[e % 4] >> 8) * 0x1p-24f;
        ref[e] = t_round(t, fmaf(4.0f, u, -1.0f));
      }
    }
    t_check("uniform", n, got, ref, 0, 0);
    free(got);
    t_poison(ctx, o);
    T_OK(ctx, vncl_random_normal(ctx, o, seed, sub, off, 0.5, 2.0));
    got = t_read(ctx, o);
    for (size_t e = 0; e < n; e++) {
      uint32_t w[4];
      double u1, u2;
      if (t == VNCL_F64) {
        t_philox_block(seed, sub, off + e / 2, w);
        u1 = (double)((((uint64_t)(w[0] >> 5) << 26) | (w[1] >> 6)) + 1) *
             0x1p-53;
        u2 = t_philox_u53(w[2], w[3]);
      } else {
        t_philox_block(seed, sub, off + e / 4, w);
        size_t p = (e % 4) / 2;
        u1 = (double)((w[2 * p] >> 8) + 1) * 0x1p-24;
        u2 = (double)(w[2 * p + 1] >> 8) * 0x1p-24;
      }
      double r = sqrt(-2 * log(u1)), th = 2 * M_PI * u2;
      ref[e] = 0.5 + 2.0 * r * (e % 2 ? sin(th) : cos(th));
      double eps = t == VNCL_F64 ? 0x1p-52 : 0x1p-23;
      tol[e] = 64 * eps * (fabs(ref[e]) + 2.0 * r + 1) +
               t_eps(t) * fabs(ref[e]) + t_floor(t);
    }
    t_check_each("normal", n, got, ref, tol);
    free(got);
    free(ref);
    free(tol);
    vncl_tensor_destroy(o);
  }
  /* The kernels' own log, cos and sin of 2 pi u (test hook) on Box-Muller's
   * arguments u = j * 2^-24: the ends and random j; <= 2 ulp each. */
  size_t m = 1001;
  float *u = malloc(m * sizeof *u);
  u[0] = 0x1p-24f, u[1] = 1.0f, u[2] = 0.25f, u[3] = 0.5f, u[4] = 0.75f;
  for (size_t i = 5; i < m; i++)
    u[i] = (float)(1 + t_rand_u64() % (1u << 24)) * 0x1p-24f;
  float *lcs = t_probe(ctx, VNCL__OPS_RANDOM, RND_BPI, "philox_math_probe", u,
                       m, 3);
  for (size_t i = 0; i < m; i++) {
    double sv, cv;
    t_sincos2pi(u[i], &sv, &cv);
    if (!(t_ulp_err(lcs[3 * i], log(u[i])) <= 2 &&
          t_ulp_err(lcs[3 * i + 1], cv) <= 2 &&
          t_ulp_err(lcs[3 * i + 2], sv) <= 2))
      fail_msg("u = %.9g: log %.9g, cos %.9g, sin %.9g; expected %.9g, %.9g, "
               "%.9g", (double)u[i], (double)lcs[3 * i],
               (double)lcs[3 * i + 1], (double)lcs[3 * i + 2], log(u[i]), cv,
               sv);
  }
  free(u);
  free(lcs);
}

/* ---- FFT: vncl's own kernels (Stockham, Bluestein, layouts) -------------- */

/* Naive DFT in double of `lines` lines (x[o][j][i], element stride `inner`)
 * along one axis, in place on (re, im) pairs. */
static void dft_axis(double *x, size_t outer, size_t n, size_t inner,
                     int sign) {
  double *tmp = malloc(2 * n * sizeof *tmp);
  for (size_t o = 0; o < outer; o++)
    for (size_t i = 0; i < inner; i++) {
      for (size_t k = 0; k < n; k++) {
        double sr = 0, si = 0;
        for (size_t j = 0; j < n; j++) {
          double a = sign * 2 * M_PI * (double)((j * k) % n) / (double)n;
          const double *v = x + 2 * ((o * n + j) * inner + i);
          sr += v[0] * cos(a) - v[1] * sin(a);
          si += v[0] * sin(a) + v[1] * cos(a);
        }
        tmp[2 * k] = sr;
        tmp[2 * k + 1] = si;
      }
      for (size_t k = 0; k < n; k++) {
        double *v = x + 2 * ((o * n + k) * inner + i);
        v[0] = tmp[2 * k];
        v[1] = tmp[2 * k + 1];
      }
    }
  free(tmp);
}

/* Full complex DFT of batch signals of lengths n[0..nd) (unscaled). */
static void dft(double *x, size_t batch, int nd, const size_t *n, int sign) {
  size_t total = 1;
  for (int i = 0; i < nd; i++) total *= n[i];
  for (int ax = 0; ax < nd; ax++) {
    size_t inner = 1, outer = batch;
    for (int i = ax + 1; i < nd; i++) inner *= n[i];
    for (int i = 0; i < ax; i++) outer *= n[i];
    dft_axis(x, outer, n[ax], inner, sign);
  }
  (void)total;
}

static double *fft_read(const vncl_tensor *t) { return t_read(ctx, t); }

/* Tolerance of an FFT result: a few ulps times log2(N) of the size of the
 * data (rms of the input times sqrt(N) bounds every output). */
static double fft_tol(vncl_dtype t, size_t N, double rms_out) {
  double e = t == VNCL_F64 ? 0x1p-52 : 0x1p-23, lg = 1;
  while ((double)(1u << (int)lg) < (double)N) lg++;
  return 8 * e * (lg + 2) * rms_out + 1e-300;
}

static double rms(const double *x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += x[i] * x[i];
  return n ? sqrt(s / (double)n) : 0;
}

static void c2c_case(vncl_dtype t, int nd, const size_t *n, size_t batch,
                     bool in_place, const char *expect_alg) {
  size_t N = 1;
  for (int i = 0; i < nd; i++) N *= n[i];
  int64_t shape[5];
  int sd = 0;
  if (batch > 1) shape[sd++] = (int64_t)batch;
  for (int i = 0; i < nd; i++) shape[sd++] = (int64_t)n[i];
  shape[sd++] = 2;
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.dtype = t;
  d.ndim = nd;
  for (int i = 0; i < nd; i++) d.n[i] = (int64_t)n[i];
  d.batch = (int64_t)batch;
  d.in_place = in_place;
  d.backend = VNCL_FFT_BACKEND_AUTO;
  vncl_fft_plan *p = NULL;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &p));
  if (strcmp(vncl_fft_plan_algorithm(p), expect_alg))
    fail_msg("fft %zu: algorithm %s, expected %s (the plan must run as expected)",
             N, vncl_fft_plan_algorithm(p), expect_alg);
  size_t cnt = 2 * N * batch;
  vncl_tensor *x = t_new(ctx, t, sd, shape), *y = in_place ? x : t_new(ctx, t, sd, shape);
  double *xv = t_rand_vals(t, cnt, -1, 1);
  for (int dir = -1; dir <= 1; dir += 2) {
    t_write(ctx, x, xv);
    if (!in_place) t_poison(ctx, y);
    T_OK(ctx, vncl_fft_execute(p, (vncl_fft_direction)dir, x, y));
    double *got = fft_read(y), *ref = malloc(cnt * sizeof *ref);
    memcpy(ref, xv, cnt * sizeof *ref);
    dft(ref, batch, nd, n, dir);
    if (dir == 1)
      for (size_t i = 0; i < cnt; i++) ref[i] /= (double)N;
    char what[96];
    snprintf(what, sizeof what, "c2c %s n=%zu nd=%d batch %zu %s dir %d",
             vncl_dtype_name(t), N, nd, batch, in_place ? "in place" : "out",
             dir);
    t_check(what, cnt, got, ref, 0, fft_tol(t, N, rms(ref, cnt)) * 4);
    if (!in_place) {
      double *again = t_read(ctx, x);
      t_check("c2c input unchanged", cnt, again, xv, 0, 0);
      free(again);
    }
    free(got);
    free(ref);
  }
  vncl_fft_plan_destroy(p);
  free(xv);
  vncl_tensor_destroy(x);
  if (!in_place) vncl_tensor_destroy(y);
}

/* R2C then C2R of the spectrum of a real signal, out of place. */
static void real_case(vncl_dtype t, int nd, const size_t *n, size_t batch) {
  size_t N = 1, last = n[nd - 1], h = last / 2 + 1, rows = batch;
  for (int i = 0; i < nd; i++) N *= n[i];
  for (int i = 0; i < nd - 1; i++) rows *= n[i];
  int64_t rs[5], cs[5];
  int sd = 0;
  if (batch > 1) rs[sd] = cs[sd] = (int64_t)batch, sd++;
  for (int i = 0; i < nd; i++) rs[sd] = cs[sd] = (int64_t)n[i], sd++;
  cs[sd - 1] = (int64_t)h;
  cs[sd] = 2;
  size_t nreal = N * batch, ncplx = rows * h * 2;
  vncl_tensor *xr = t_new(ctx, t, sd, rs), *xc = t_new(ctx, t, sd + 1, cs);
  double *xv = t_rand_vals(t, nreal, -1, 1);
  /* The full spectrum in double. */
  double *full = calloc(2 * nreal, sizeof *full);
  for (size_t i = 0; i < nreal; i++) full[2 * i] = xv[i];
  dft(full, batch, nd, n, -1);
  double *half = malloc(ncplx * sizeof *half);
  for (size_t r = 0; r < rows; r++)
    for (size_t k = 0; k < h; k++) {
      half[2 * (r * h + k)] = full[2 * (r * last + k)];
      half[2 * (r * h + k) + 1] = full[2 * (r * last + k) + 1];
    }
  t_write(ctx, xr, xv);
  t_poison(ctx, xc);
  T_OK(ctx, vncl_fft(ctx, VNCL_FFT_R2C, VNCL_FFT_FORWARD, nd,
                     VNCL_FFT_NORM_BACKWARD, xr, xc));
  double *got = t_read(ctx, xc);
  char what[96];
  snprintf(what, sizeof what, "r2c %s n=%zu nd=%d batch %zu", vncl_dtype_name(t),
           N, nd, batch);
  t_check(what, ncplx, got, half, 0, fft_tol(t, N, rms(half, ncplx)) * 4);
  free(got);
  /* C2R of the exact spectrum (rounded to the dtype) gives x back. */
  double *hr = malloc(ncplx * sizeof *hr);
  for (size_t i = 0; i < ncplx; i++) hr[i] = t_round(t, half[i]);
  t_write(ctx, xc, hr);
  t_poison(ctx, xr);
  T_OK(ctx, vncl_fft(ctx, VNCL_FFT_C2R, VNCL_FFT_INVERSE, nd,
                     VNCL_FFT_NORM_BACKWARD, xc, xr));
  got = t_read(ctx, xr);
  snprintf(what, sizeof what, "c2r %s n=%zu nd=%d batch %zu", vncl_dtype_name(t),
           N, nd, batch);
  t_check(what, nreal, got, xv, 0, fft_tol(t, N, rms(xv, nreal)) * 8);
  free(got);
  free(hr);
  free(half);
  free(full);
  free(xv);
  vncl_tensor_destroy(xr);
  vncl_tensor_destroy(xc);
}

/* R2C then C2R in place through plans: real rows padded to 2h values
 * (the padding NaN, never read), the spectrum over them, then the real
 * rows back. Even last lengths take the packing of the padded rows
 * (fft_real_rows) around the half-length transform. */
static void real_inplace_case(vncl_dtype t, int nd, const size_t *n,
                              size_t batch) {
  size_t N = 1, last = n[nd - 1], h = last / 2 + 1, rows = batch;
  for (int i = 0; i < nd; i++) N *= n[i];
  for (int i = 0; i < nd - 1; i++) rows *= n[i];
  int64_t cs[5];
  int sd = 0;
  if (batch > 1) cs[sd++] = (int64_t)batch;
  for (int i = 0; i < nd; i++) cs[sd++] = (int64_t)n[i];
  cs[sd - 1] = (int64_t)h;
  cs[sd] = 2;
  size_t nreal = N * batch, ncplx = rows * h * 2;
  vncl_fft_desc d;
  vncl_fft_desc_init(&d);
  d.dtype = t;
  d.ndim = nd;
  for (int i = 0; i < nd; i++) d.n[i] = (int64_t)n[i];
  d.batch = (int64_t)batch;
  d.in_place = 1;
  vncl_fft_plan *pf = NULL, *pb = NULL;
  d.type = VNCL_FFT_R2C;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &pf));
  d.type = VNCL_FFT_C2R;
  T_OK(ctx, vncl_fft_plan_create(ctx, &d, &pb));
  vncl_tensor *xc = t_new(ctx, t, sd + 1, cs);
  double *xv = t_rand_vals(t, nreal, -1, 1);
  double *full = calloc(2 * nreal, sizeof *full);
  for (size_t i = 0; i < nreal; i++) full[2 * i] = xv[i];
  dft(full, batch, nd, n, -1);
  double *half = malloc(ncplx * sizeof *half);
  double *pad = malloc(ncplx * sizeof *pad);
  for (size_t r = 0; r < rows; r++)
    for (size_t k = 0; k < h; k++) {
      half[2 * (r * h + k)] = full[2 * (r * last + k)];
      half[2 * (r * h + k) + 1] = full[2 * (r * last + k) + 1];
    }
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < 2 * h; j++)
      pad[r * 2 * h + j] = j < last ? xv[r * last + j] : NAN;
  t_write(ctx, xc, pad);
  T_OK(ctx, vncl_fft_execute(pf, VNCL_FFT_FORWARD, xc, xc));
  double *got = t_read(ctx, xc);
  char what[96];
  snprintf(what, sizeof what, "r2c in place %s n=%zu nd=%d batch %zu",
           vncl_dtype_name(t), N, nd, batch);
  t_check(what, ncplx, got, half, 0, fft_tol(t, N, rms(half, ncplx)) * 4);
  free(got);
  for (size_t i = 0; i < ncplx; i++) pad[i] = t_round(t, half[i]);
  t_write(ctx, xc, pad);
  T_OK(ctx, vncl_fft_execute(pb, VNCL_FFT_INVERSE, xc, xc));
  got = t_read(ctx, xc);
  double *back = malloc(nreal * sizeof *back);
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < last; j++)
      back[r * last + j] = got[r * 2 * h + j];
  snprintf(what, sizeof what, "c2r in place %s n=%zu nd=%d batch %zu",
           vncl_dtype_name(t), N, nd, batch);
  t_check(what, nreal, back, xv, 0, fft_tol(t, N, rms(xv, nreal)) * 8);
  free(back);
  free(got);
  free(pad);
  free(half);
  free(full);
  free(xv);
  vncl_tensor_destroy(xc);
  vncl_fft_plan_destroy(pf);
  vncl_fft_plan_destroy(pb);
}

/* vncl's own kernels, the default backend on CPUs and GPUs (AUTO): lengths
 * with prime factors up to 13 on Stockham (radix 2, 3, 4, 5, 7, 8, 11, 13),
 * one pass and split, Rader and Bluestein (their inner FFTs on Stockham),
 * 2-D and 3-D, real transforms through the layout kernels. No
 * clFFT kernel runs here. */
static void test_fft(void **st) {
  (void)st;
  unsetenv("VNCL_FFT_BACKEND");
  vncl__fft_tuning tn;
  vncl__fft_tuning_for(&ctx->info, &tn);
  if (ctx->info.type != VNCL_DEVICE_ACCELERATOR &&
      tn.backend != VNCL_FFT_BACKEND_VNCL)
    fail_msg("the default FFT backend on %s is not vncl's kernels",
             ctx->info.name);
  for (int d = 0; d < 2; d++) {
    vncl_dtype t = d ? VNCL_F64 : VNCL_F32;
    if (t == VNCL_F64 && !fp64) continue;
    /* Radix 10 in 250 (10 5 5), 100 (10 10), 70 x 70 and 6 x 10 below. */
    static const size_t lens[] = {2,  3,  5,  8,  12, 60,  250,
                                  100, 7, 11, 13, 98, 1001};
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
      c2c_case(t, 1, &lens[i], 1 + i % 3, i % 2, "stockham");
    /* Batches of lines of 8, 4 and 2 (fft_stockham_short) and 16
     * (fft_stockham_short16) in registers: whole blocks and a partial
     * last one. */
    size_t s8 = 8, s4 = 4, s2 = 2, s16 = 16;
    c2c_case(t, 1, &s16, 11, true, "stockham");
    c2c_case(t, 1, &s8, 19, false, "stockham");
    c2c_case(t, 1, &s4, 35, true, "stockham");
    c2c_case(t, 1, &s2, 33, false, "stockham");
    /* Above one pass (4096): the four-step split (4500 = 60 x 75,
     * 4900 = 70 x 70). */
    size_t split = 4500, split7 = 4900;
    c2c_case(t, 1, &split, 1, false, "stockham");
    c2c_case(t, 1, &split7, 1, true, "stockham");
    /* Primes: Rader where p - 1 runs on Stockham (17, 257, 6 x 17),
     * Bluestein where it does not (47: 46 = 2 23). */
    size_t prime = 17, p257 = 257, p47 = 47, bs[2] = {6, 17}, b47[2] = {47, 3};
    c2c_case(t, 1, &prime, 2, true, "rader");
    c2c_case(t, 1, &p257, 1, false, "rader");
    c2c_case(t, 2, bs, 1, false, "rader");
    c2c_case(t, 1, &p47, 2, true, "bluestein");
    c2c_case(t, 2, b47, 1, false, "bluestein");
    size_t n2[2] = {6, 10}, n3[3] = {4, 3, 5}, n3b[3] = {7, 2, 13};
    c2c_case(t, 2, n2, 2, true, "stockham");
    c2c_case(t, 3, n3, 1, false, "stockham");
    c2c_case(t, 3, n3b, 2, true, "stockham");
    /* Real transforms: odd last lengths (15, 9, 77) on the full-length
     * path; even ones (30, 14, 2, 8, 12, 26, 6) through the half-length
     * transform with the split and pre-processing inside the pass
     * (fft_stockham_r2c1, fft_stockham_c2r1), the packing of padded rows
     * in place (fft_real_rows) and outer axes over the half spectrum
     * (Stockham, Rader 17). */
    size_t r1 = 30, r1o = 15, r2[2] = {6, 9}, r7 = 77, r2b[2] = {11, 14};
    real_case(t, 1, &r1, 3);
    real_case(t, 1, &r1o, 1);
    real_case(t, 2, r2, 2);
    real_case(t, 1, &r7, 2);
    real_case(t, 2, r2b, 1);
    size_t e2 = 2, e3[3] = {3, 4, 8}, e17[2] = {17, 12}, e26 = 26;
    size_t e6[2] = {5, 6}, e2b[2] = {3, 2};
    real_case(t, 1, &e2, 3);
    real_case(t, 3, e3, 1);
    real_case(t, 2, e17, 1);
    real_inplace_case(t, 1, &e26, 2);
    real_inplace_case(t, 2, e6, 1);
    real_inplace_case(t, 2, e2b, 2);
    real_inplace_case(t, 1, &r1o, 1);
    /* A half above one pass (4500 = 60 x 75): R2C runs the split inside
     * the second step (fft_stockham_r2c), C2R the pre-processing inside
     * the first step's gather (fft_stockham_c2r2, lines j2 and n2 - j2
     * together), out of place and in place. */
    size_t e9000 = 9000;
    real_case(t, 1, &e9000, 2);
    real_inplace_case(t, 1, &e9000, 1);
  }
}

/* clFFT along a strided axis, which happens with the clFFT backend beside
 * a prime axis: vncl gathers the lines of 7 (fft_gather), clFFT transforms
 * them in place, vncl scatters them back (fft_scatter); the prime 31 runs
 * through Bluestein with its length-64 convolution on clFFT. clFFT's
 * kernels of 7 and 64 are among those clean under the race detector in
 * place (docs/fft.md). */
static void test_fft_lines(void **st) {
  (void)st;
  setenv("VNCL_FFT_BACKEND", "clfft", 1);
  size_t n[2] = {7, 31};
  c2c_case(VNCL_F32, 2, n, 2, false, "bluestein");
  /* One clFFT plan for it all, in f64: the 1/7 of the inverse is no float,
   * so vncl scales after clFFT (fft_scale). */
  if (fp64) c2c_case(VNCL_F64, 1, n, 2, false, "clfft");
  unsetenv("VNCL_FFT_BACKEND");
}

/* ---- main ------------------------------------------------------------------- */

/* The ops families with their GPU rows (the defaults here), then, with
 * --cpu-rows, with the CPU rows' kernel shapes (ITEM_CONTIG, ROW_ITEMS,
 * BPI 16: column strips, row copies, whole-tile fast paths, interleaved
 * stores), so that those kernels too run under the race and bounds
 * checks. The CPU transpose tile is 32 here (64 x 65 elements of 8 bytes
 * exceed 32 KiB of local memory); the CPU row's register blocks run in
 * groups of 16 x 4. */
static void with_cpu_rows(void (*cases)(void), vncl__ops_family f,
                          const int *cpu) {
  if (gpu_shapes) cases();
  if (!cpu_rows) return;
  T_OK(ctx, vncl__ops_params_set(ctx, f, cpu));
  cases();
  T_OK(ctx, vncl__ops_params_set(ctx, f, NULL));
}
static void test_transpose(void **st) {
  (void)st;
  /* TILE, WGY, ROW_ITEMS, NT_STORE, RUN_NT, LANES: row copies with
   * non-temporal vectors here, with ordinary stores in the blocks' runs
   * below */
  static const int cpu[VNCL__OPS_MAX_PARAMS] = {32, 1, 1, 1, 1, 16};
  /* The CPU rows' register blocks (permute_blocks), in a group within
   * every vendor's limit: 16-lane squares, then 8-lane ones (the AVX2 row:
   * blocks 8 wide of 4- and 8-byte elements, 2-byte ones as four
   * squares). */
  static const int blocks[VNCL__OPS_MAX_PARAMS] = {16, 4, 2, 1, 0, 16};
  static const int blocks8[VNCL__OPS_MAX_PARAMS] = {16, 4, 2, 1, 0, 8};
  with_cpu_rows(transpose_cases, VNCL__OPS_TRANSPOSE, cpu);
  if (!cpu_rows) return;
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, blocks));
  transpose_cases();
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, blocks8));
  tr_one_per_size = 1;
  transpose_cases();
  tr_one_per_size = 0;
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_TRANSPOSE, NULL));
}
static void test_reduce(void **st) {
  (void)st;
  /* WG, VW, ITEM_CONTIG, ROWS_ITEM, CB, STREAMS, ROWS_BLOCK, ROW_STREAMS */
  static const int cpu[VNCL__OPS_MAX_PARAMS] = {16, 16, 1, 65536, 4, 8, 32, 8};
  with_cpu_rows(reduce_cases, VNCL__OPS_REDUCE, cpu);
}
static void test_softmax(void **st) {
  (void)st;
  /* PREFETCH 0: Oclgrind cannot run llvm.prefetch (a hint, no effect on
   * the results); the rest is the CPU row (WG, VW, ITEM_CONTIG), with
   * ROW_ITEM 256 (4 x 5 and 70 x 48 run one row per work-item, f32's e in
   * 16 KiB of local memory, which the 32 KiB of the generic-gpu run
   * allow), ITEM_ROWS 1 and non-temporal stores for every row (NT_MIN 0;
   * the run with ITEM_ROWS 2 below takes ordinary ones for rows under
   * 4096). */
  static const int cpu[VNCL__OPS_MAX_PARAMS] = {16, 16, 1, 256, 0, 1, 0};
  with_cpu_rows(softmax_cases, VNCL__OPS_SOFTMAX, cpu);
  if (!cpu_rows) return;
  /* Two rows a work-item (ITEM_ROWS 2): groups of 8 keep both rows' e in
   * the 16 KiB (half of 32 KiB) the host allows; 70 x 48 then gives the
   * one compute unit the groups that ITEM_ROWS 2 needs, 67 x 24 too, its
   * last work-item's second row repeating the last row; 7 x 300 goes a
   * group a row with a tail of 12 over 8 work-items; 69 x 72 stores each
   * work-item's two rows as 9 whole vectors (BLOCK_OUT 1), 67 x 24 as 3,
   * the last work-item's (one row and its repeat) as the rows' own;
   * softmax reads e back from its local copy in the block's layout
   * (unaligned vector stores of the rows' own vectors, aligned loads of
   * the block's) for 16-bit storage and f32, computes it again for f64,
   * whose copy does not fit. */
  static const int two[VNCL__OPS_MAX_PARAMS] = {8, 16, 1, 256, 0, 2, 4096};
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, two));
  sm_short_rows_only = 1;
  softmax_cases();
  /* Four rows a work-item (groups of 8: their e no longer fits the 16
   * KiB, so pass 3 computes it again), kept for 150 x 16 (five groups;
   * the host halves ITEM_ROWS for fewer): log-softmax takes the four
   * rows' logs as one vector. */
  static const int four[VNCL__OPS_MAX_PARAMS] = {8, 16, 1, 256, 0, 4, 4096};
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, four));
  softmax_cases();
  sm_short_rows_only = 0;
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_SOFTMAX, NULL));
}
static void test_random(void **st) {
  (void)st;
  static const int cpu[VNCL__OPS_MAX_PARAMS] = {16, 16};
  with_cpu_rows(random_cases, VNCL__OPS_RANDOM, cpu);
}

/* Whether the comma-separated list `parts` names `name`. */
static bool has_part(const char *parts, const char *name) {
  size_t n = strlen(name);
  for (const char *p = parts; *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && !strncmp(p, name, n)) return true;
    p += len;
    if (*p) p++;
  }
  return false;
}

int main(int argc, char **argv) {
  const char *parts = "gemm,ops,fft";
  /* --native W: the CPU rows' native float width instead of 16 (8: as on
   * an AVX2 CPU; --parts softmax,reduce then runs their 8 x 8 squares) */
  static const char w16[] = "16";
  const char *native = w16;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--set") && i + 1 < argc)
      set_name = argv[++i];
    else if (!strcmp(argv[i], "--parts") && i + 1 < argc)
      parts = argv[++i];
    else if (!strcmp(argv[i], "--cpu-rows"))
      cpu_rows = 1;
    else if (!strcmp(argv[i], "--native") && i + 1 < argc)
      native = argv[++i];
    else if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
      kernels_out = argv[++i];
    else {
      fprintf(stderr, "usage: oclgrind_check [--set NAME] [--parts "
              "gemm,ops,fft,NAME..] [--cpu-rows] [--native W] [--kernels "
              "FILE]\n");
      return 2;
    }
  }
  /* The CPU rows as on an AVX-512 CPU: native vectors of 16 floats
   * (Oclgrind reports 1), so that softmax over rows of exactly VW takes
   * its square transposition (softmax_rows_packed, PACK = VW) here too.
   * Before the context exists: the width is read once. */
  if (cpu_rows) setenv("VNCL_NATIVE_FLOAT_WIDTH", native, native != w16);
  gpu_shapes = !cpu_rows || !strcmp(native, w16);
  for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
    if (!strcmp(sets[i].name, set_name)) set_def = &sets[i];
  if (!set_def && strcmp(set_name, "own") && strcmp(set_name, "ref")) {
    fprintf(stderr, "oclgrind_check: unknown set '%s'\n", set_name);
    return 2;
  }
  const struct CMUnitTest gemm[] = {
      cmocka_unit_test(test_gemm_set_taken),
      cmocka_unit_test(test_gemm_direct),
      cmocka_unit_test(test_gemm_packed),
      cmocka_unit_test(test_gemm_small),
      cmocka_unit_test(test_gemm_mixed),
  };
  const struct CMUnitTest ops[] = {
      cmocka_unit_test(test_ops_rows_fit), cmocka_unit_test(test_elementwise),
      cmocka_unit_test(test_cast),         cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_reduce),       cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_random),
  };
  const struct CMUnitTest fft[] = {cmocka_unit_test(test_fft),
                                   cmocka_unit_test(test_fft_lines)};
  /* every name in --parts known (a misspelt one would run nothing and
   * pass): the groups, or an ops test's name without "test_" */
  for (const char *p = parts;;) {
    size_t len = strcspn(p, ","), k = 0;
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)len, p);
    while (k < sizeof ops / sizeof *ops && strcmp(name, ops[k].name + 5)) k++;
    if (k == sizeof ops / sizeof *ops && strcmp(name, "gemm") &&
        strcmp(name, "ops") && strcmp(name, "fft")) {
      fprintf(stderr, "oclgrind_check: unknown part '%.*s' in --parts\n",
              (int)len, p);
      return 2;
    }
    p += len;
    if (!*p++) break;
  }
  int fails = 0;
  if (has_part(parts, "gemm"))
    fails += cmocka_run_group_tests_name("gemm", gemm, setup, teardown);
  if (has_part(parts, "ops")) {
    fails += cmocka_run_group_tests_name("ops", ops, setup, teardown);
  } else {
    /* single ops tests by name, without "test_" */
    struct CMUnitTest some[sizeof ops / sizeof *ops];
    size_t n = 0;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
      if (has_part(parts, ops[i].name + 5)) some[n++] = ops[i];
    if (n) fails += _cmocka_run_group_tests("ops", some, n, setup, teardown);
  }
  if (has_part(parts, "fft"))
    fails += cmocka_run_group_tests_name("fft", fft, setup, teardown);
  return fails ? 1 : 0;
}
