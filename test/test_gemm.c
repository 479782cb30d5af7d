/* GEMM: every result element against a double-precision CPU reference,
 * with fresh random inputs each run, C poisoned with NaN where beta == 0
 * (random otherwise), offsets and padded leading dimensions whose padding
 * must stay untouched; all transposes and both layouts, alpha/beta 0, 1 and
 * negative, odd shapes, m/n/k of 1 and k = 0, strided batches, f16 and bf16
 * storage (C in the input type and in f32), f64, both backends, a handful of
 * parameter sets (packed path at small sizes, A in place, depth chunks, the
 * GPU-shaped kernels), events, and every bad input (nothing written). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
/* Internal headers on purpose: sets GEMM parameter sets directly
 * (vncl__gemm_params_set), to run every kernel variant on whatever device
 * this is. */
#include "gemm/gemm.h"

static vncl_context *ctx;
static cl_context clctx;
static cl_command_queue clq;

static int setup(void **st) {
  (void)st;
  ctx = t_context(NULL);
  vncl_context_cl(ctx, &clctx, &clq, NULL);
  unsetenv("VNCL_GEMM_BACKEND");
  return 0;
}
static int teardown(void **st) {
  (void)st;
  vncl_context_destroy(ctx);
  return 0;
}

/* ---- storage types on the host ------------------------------------------ */

static size_t esize(vncl_dtype t) { return vncl_dtype_size(t); }

static void put(void *buf, vncl_dtype t, size_t i, double v) {
  switch (t) {
    case VNCL_F32: ((float *)buf)[i] = (float)v; break;
    case VNCL_F64: ((double *)buf)[i] = v; break;
    case VNCL_F16: ((uint16_t *)buf)[i] = t_to_f16(v); break;
    default: ((uint16_t *)buf)[i] = t_to_bf16(v); break;
  }
}
static double get(const void *buf, vncl_dtype t, size_t i) {
  switch (t) {
    case VNCL_F32: return ((const float *)buf)[i];
    case VNCL_F64: return ((const double *)buf)[i];
    case VNCL_F16: return t_f16_value(((const uint16_t *)buf)[i]);
    default: return t_bf16_value(((const uint16_t *)buf)[i]);
  }
}
/* Unit roundoff of the accumulation and of C's storage. */
static double u_acc(vncl_dtype ab) { return ab == VNCL_F64 ? 0x1p-53 : 0x1p-24; }
static double u_out(vncl_dtype c) {
  switch (c) {
    case VNCL_F64: return 0x1p-53;
    case VNCL_F32: return 0x1p-24;
    case VNCL_F16: return 0x1p-11;
    default: return 0x1p-8;
  }
}
static double floor_out(vncl_dtype c) { /* smallest step near zero */
  return c == VNCL_F16 ? 0x1p-24 : 0;
}

/* ---- one product through vncl_gemm_cl* ---------------------------------------- */

typedef struct gcase {
  vncl_dtype dt;
  vncl_layout layout;
  vncl_trans ta, tb;
  size_t m, n, k, batch;
  double alpha, beta;
  size_t a_off, b_off, c_off, pad; /* offsets, ld padding (elements) */
  bool nan_ab;  /* poison A and B too (alpha == 0 or k == 0 must not read) */
  bool event;   /* through vncl_gemm_cl_event with a user-event wait */
} gcase;

static const char *dname(vncl_dtype t) { return vncl_dtype_name(t); }

static void describe(const gcase *g, char *buf, size_t cap) {
  snprintf(buf, cap,
           "%s %s ta=%d tb=%d m=%zu n=%zu k=%zu batch=%zu alpha=%g beta=%g "
           "offs=%zu/%zu/%zu pad=%zu backend=%s",
           dname(g->dt), g->layout == VNCL_ROW_MAJOR ? "row" : "col",
           (int)g->ta, (int)g->tb, g->m, g->n, g->k, g->batch, g->alpha,
           g->beta, g->a_off, g->b_off, g->c_off, g->pad,
           (const char *[]){"auto", "own", "clblast", "ref"}[ctx->gemm_backend]);
}

/* Stored shape of an operand: `outer` runs of `inner` elements, ld apart. */
typedef struct stored {
  size_t outer, inner, ld, stride, total;
} stored;

static stored layout_of(vncl_layout lay, size_t rows, size_t cols, size_t pad,
                        size_t off, size_t batch, size_t gap) {
  stored s;
  bool row = lay == VNCL_ROW_MAJOR;
  s.outer = row ? rows : cols;
  s.inner = row ? cols : rows;
  s.ld = (s.inner ? s.inner : 1) + pad;
  s.stride = s.outer * s.ld + gap;
  s.total = off + s.stride * (batch ? batch : 1) + 3; /* 3 guard elements */
  return s;
}
/* Element (r, c) of the logical stored matrix (rows x cols) of batch g. */
static size_t at(vncl_layout lay, const stored *s, size_t off, size_t g,
                 size_t r, size_t c) {
  return off + g * s->stride +
         (lay == VNCL_ROW_MAJOR ? r * s->ld + c : c * s->ld + r);
}

static void fill_random(void *buf, vncl_dtype t, size_t n) {
  for (size_t i = 0; i < n; i++) put(buf, t, i, t_rand_uniform(-1, 1));
}

/* Runs g and checks every element of C's buffer: the matrices against the
 * reference, everything else (offsets, padding, gaps) bit for bit. inf_at
 * not 0: op(A)'s depth inf_at - 1 is +inf in every row. */
static void run_case_inf(const gcase *g, size_t inf_at) {
  char desc[320];
  describe(g, desc, sizeof desc);
  vncl_dtype dt = g->dt;
  size_t es = esize(dt), batch = g->batch;
  size_t gap = batch > 1 ? (size_t)(t_rand_u64() % 3) : 0;
  /* op(A) is m x k: A stored as m x k, or k x m when transposed. */
  size_t ar = g->ta ? g->k : g->m, ac = g->ta ? g->m : g->k;
  size_t br = g->tb ? g->n : g->k, bc = g->tb ? g->k : g->n;
  stored sa = layout_of(g->layout, ar, ac, g->pad, g->a_off, batch, gap);
  stored sb = layout_of(g->layout, br, bc, g->pad, g->b_off, batch, gap);
  stored sc = layout_of(g->layout, g->m, g->n, g->pad, g->c_off, batch, gap);
  unsigned char *ha = malloc(sa.total * es), *hb = malloc(sb.total * es);
  unsigned char *hc = malloc(sc.total * es), *c0 = malloc(sc.total * es);
  fill_random(ha, dt, sa.total);
  fill_random(hb, dt, sb.total);
  fill_random(hc, dt, sc.total);
  if (g->nan_ab) {
    for (size_t i = 0; i < sa.total; i += 3) put(ha, dt, i, NAN);
    for (size_t i = 0; i < sb.total; i += 3) put(hb, dt, i, NAN);
  }
  if (inf_at && inf_at <= g->k)
    for (size_t b = 0, p = inf_at - 1; b < batch; b++)
      for (size_t i = 0; i < g->m; i++)
        put(ha, dt,
            at(g->layout, &sa, g->a_off, b, g->ta ? p : i, g->ta ? i : p),
            INFINITY);
  if (g->beta == 0) /* poison C's matrices */
    for (size_t b = 0; b < batch; b++)
      for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++)
          put(hc, dt, at(g->layout, &sc, g->c_off, b, i, j), NAN);
  memcpy(c0, hc, sc.total * es);

  cl_int err;
  cl_mem da = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             sa.total * es, ha, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem db = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             sb.total * es, hb, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem dc = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             sc.total * es, hc, &err);
  assert_int_equal(err, CL_SUCCESS);

  vncl_status s;
  if (g->event) {
    cl_event user = clCreateUserEvent(clctx, &err), done = NULL;
    assert_int_equal(err, CL_SUCCESS);
    vncl_device_info info;
    T_OK(ctx, vncl_context_device_info(ctx, &info));
#define GEMM_EVENT_CALL()                                                    \
  vncl_gemm_cl_event(ctx, dt, g->layout, g->ta, g->tb, g->m, g->n, g->k,     \
                     g->alpha, da, g->a_off, sa.ld, sa.stride, db, g->b_off, \
                     sb.ld, sb.stride, g->beta, dc, g->c_off, sc.ld,         \
                     sc.stride, batch, 1, &user, &done)
    s = GEMM_EVENT_CALL();
    if (info.serial_driver) {
      /* A driver that deadlocks on a pending wait list (driver.c): the
       * call is refused with nothing enqueued, and taken once the event
       * has completed. */
      if (s != VNCL_ERR_UNSUPPORTED)
        fail_msg("%s: %s on a serial driver with a pending wait list", desc,
                 vncl_status_name(s));
      assert_null(done);
      clSetUserEventStatus(user, CL_COMPLETE);
      s = GEMM_EVENT_CALL();
      if (s) fail_msg("%s: %s", desc, vncl_errmsg(ctx));
      assert_non_null(done);
    } else {
      if (s) fail_msg("%s: %s", desc, vncl_errmsg(ctx));
      assert_non_null(done);
      /* Flushed and given 20 ms: a product that does not wait for the
       * list (every command of it) has run by then. */
      clFlush(clq);
      cl_int st = CL_QUEUED;
      for (int i = 0; i < 20 && st != CL_COMPLETE; i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
                       &st, NULL);
      }
      /* Completed first either way, so that nothing is left waiting on
       * it when the test fails. */
      clSetUserEventStatus(user, CL_COMPLETE);
      if (st == CL_COMPLETE)
        fail_msg("%s: finished before its wait list", desc);
    }
#undef GEMM_EVENT_CALL
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    clReleaseEvent(user);
  } else if (batch == 1 && (t_rand_u64() & 1)) {
    s = vncl_gemm_cl(ctx, dt, g->layout, g->ta, g->tb, g->m, g->n, g->k,
                     g->alpha, da, g->a_off, sa.ld, db, g->b_off, sb.ld,
                     g->beta, dc, g->c_off, sc.ld);
  } else {
    s = vncl_gemm_cl_batched(ctx, dt, g->layout, g->ta, g->tb, g->m, g->n,
                             g->k, g->alpha, da, g->a_off, sa.ld, sa.stride,
                             db, g->b_off, sb.ld, sb.stride, g->beta, dc,
                             g->c_off, sc.ld, sc.stride, batch);
  }
  if (s) fail_msg("%s: %s (%s)", desc, vncl_status_name(s), vncl_errmsg(ctx));
  T_OK(ctx, vncl_finish(ctx));
  assert_int_equal(clEnqueueReadBuffer(clq, dc, CL_TRUE, 0, sc.total * es, hc,
                                       0, NULL, NULL),
                   CL_SUCCESS);

  /* Everything outside the matrices is untouched. */
  unsigned char *inside = calloc(sc.total, 1);
  for (size_t b = 0; b < batch; b++)
    for (size_t i = 0; i < g->m; i++)
      for (size_t j = 0; j < g->n; j++)
        inside[at(g->layout, &sc, g->c_off, b, i, j)] = 1;
  for (size_t e = 0; e < sc.total; e++)
    if (!inside[e] && memcmp(hc + e * es, c0 + e * es, es))
      fail_msg("%s: element %zu outside C (offset/padding) was written", desc,
               e);
  size_t bad = 0;
  double ua = u_acc(dt), uo = u_out(dt);
  bool skip = g->k == 0 || g->alpha == 0;
  /* op(A) and op(B) gathered densely, then the shared reference (its alpha
   * part; beta's term is added below, with its own bound). */
  size_t kk = skip ? 0 : g->k, mn = g->m * g->n;
  double *ad = malloc((batch * g->m * kk + 1) * sizeof *ad);
  double *bd = malloc((batch * kk * g->n + 1) * sizeof *bd);
  double *dots = malloc((batch * mn + 1) * sizeof *dots);
  double *adots = malloc((batch * mn + 1) * sizeof *adots);
  assert_true(ad && bd && dots && adots);
  for (size_t b = 0; b < batch; b++)
    for (size_t p = 0; p < kk; p++) {
      for (size_t i = 0; i < g->m; i++)
        ad[(b * g->m + i) * kk + p] =
            get(ha, dt, at(g->layout, &sa, g->a_off, b, g->ta ? p : i,
                           g->ta ? i : p));
      for (size_t j = 0; j < g->n; j++)
        bd[(b * kk + p) * g->n + j] =
            get(hb, dt, at(g->layout, &sb, g->b_off, b, g->tb ? j : p,
                           g->tb ? p : j));
    }
  t_ref_gemm(false, false, g->m, g->n, kk, batch, skip ? 0 : g->alpha, ad, kk,
             bd, g->n, 0.0, NULL, g->n, dots, adots);
  for (size_t b = 0; b < batch; b++)
    for (size_t i = 0; i < g->m; i++)
      for (size_t j = 0; j < g->n; j++) {
        size_t ci = at(g->layout, &sc, g->c_off, b, i, j);
        double cin = g->beta == 0 ? 0 : get(c0, dt, ci);
        double want = dots[b * mn + i * g->n + j] + g->beta * cin;
        double tol = 2.0 * (g->k + 2) * ua * adots[b * mn + i * g->n + j] +
                     4 * ua * fabs(g->beta * cin) + uo * fabs(want) +
                     floor_out(dt) + 1e-300;
        double got = get(hc, dt, ci);
        /* An infinite sum: the same infinity (NaN where the reference's is
         * NaN), whatever the tolerance. */
        bool ok = isfinite(want) ? fabs(got - want) <= tol
                                 : got == want || (isnan(want) && isnan(got));
        if (!ok) {
          if (bad < 5)
            print_error("%s: C[%zu](%zu,%zu) = %.9g, want %.9g (tol %.3g)\n",
                        desc, b, i, j, got, want, tol);
          bad++;
        }
      }
  free(ad);
  free(bd);
  free(dots);
  free(adots);
  if (bad) fail_msg("%s: %zu wrong elements (seed above)", desc, bad);
  free(inside);
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseMemObject(dc);
  free(ha);
  free(hb);
  free(hc);
  free(c0);
}

static void run_case(const gcase *g) { run_case_inf(g, 0); }

static const double alphas[] = {1.0, -1.5, 0.75, 2.0};
static const double betas[] = {0.0, 1.0, -0.5, 0.0, 2.0};

/* Shapes: the odd sizes, the 64 boundary, a few hundred, m/n/k of 1. */
static const size_t shapes[][3] = {
    {1, 1, 1},    {7, 17, 63},   {64, 64, 64},  {65, 129, 17}, {129, 63, 65},
    {17, 1, 129}, {1, 65, 7},    {63, 7, 1},    {300, 211, 257}, {33, 130, 64},
};
#define NSHAPES (sizeof shapes / sizeof *shapes)

/* Every layout x transpose pair over the shape list, alpha/beta and offsets
 * varying from case to case. */
static void sweep(vncl_dtype dt, size_t nshapes, size_t batch) {
  int idx = 0;
  for (int lay = 0; lay < 2; lay++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        for (size_t s = 0; s < nshapes; s++, idx++) {
          gcase g = {dt, (vncl_layout)lay, (vncl_trans)ta, (vncl_trans)tb,
                     shapes[s][0], shapes[s][1], shapes[s][2], batch,
                     alphas[idx % 4], betas[idx % 5], 0, 0, 0, 0, false, false};
          g.a_off = t_rand_u64() % 5;
          g.b_off = t_rand_u64() % 5;
          g.c_off = t_rand_u64() % 5;
          g.pad = t_rand_u64() % 4;
          run_case(&g);
        }
}

static void test_f32_all_layouts(void **st) {
  (void)st;
  sweep(VNCL_F32, NSHAPES, 1);
}

static void test_f32_edges(void **st) {
  (void)st;
  const size_t e[][3] = {{1, 1, 1}, {1, 50, 30}, {40, 1, 30}, {40, 50, 1},
                         {5, 6, 0}, {0, 5, 5},   {5, 0, 5},   {0, 0, 0}};
  for (size_t i = 0; i < sizeof e / sizeof *e; i++)
    for (int lay = 0; lay < 2; lay++) {
      gcase g = {VNCL_F32, (vncl_layout)lay, VNCL_NO_TRANS, VNCL_TRANS,
                 e[i][0], e[i][1], e[i][2], 1, -1.0, 0.0, 1, 2, 3, 1, false,
                 false};
      run_case(&g);
      g.beta = 2.0;
      run_case(&g);
    }
  /* k == 0 and alpha == 0: C = beta*C, A and B (full of NaN) never read. */
  gcase z = {VNCL_F32, VNCL_ROW_MAJOR, VNCL_TRANS, VNCL_NO_TRANS, 37, 45, 0, 2,
             1.0, -0.5, 0, 0, 0, 2, true, false};
  run_case(&z);
  z.k = 20;
  z.alpha = 0;
  run_case(&z);
  z.beta = 0;
  run_case(&z);
}

static void test_f32_batched_and_events(void **st) {
  (void)st;
  sweep(VNCL_F32, 4, 3);
  gcase g = {VNCL_F32, VNCL_COL_MAJOR, VNCL_TRANS, VNCL_NO_TRANS, 70, 33, 90,
             2, 0.5, 1.0, 4, 0, 7, 2, false, true};
  run_case(&g);
  g.m = 0; /* nothing to do still gives an event after the wait list */
  run_case(&g);
  /* Batches with B's columns strided, in both layouts: 70^3 within the CPU
   * rows' gemm_small reach for them (small_batch_mnk_bt: 100^3 on the
   * AVX-512 f32 row); 101^3 above every CPU row's batch reach
   * (small_batch_mnk 1000000), the route single products take there. */
  for (int lay = 0; lay < 2; lay++)
    for (size_t n = 70; n <= 101; n += 31) {
      gcase t = {VNCL_F32, (vncl_layout)lay, VNCL_NO_TRANS, VNCL_TRANS, n, n,
                 n, 3, 1.0, 0.0, 1, 2, 3, 1, false, false};
      run_case(&t);
    }
}

static void test_f64(void **st) {
  (void)st;
  sweep(VNCL_F64, 5, 1);
  sweep(VNCL_F64, 2, 2);
}

static void test_f16_bf16(void **st) {
  (void)st;
  sweep(VNCL_F16, 5, 1);
  sweep(VNCL_BF16, 5, 1);
  sweep(VNCL_BF16, 2, 2);
}

/* Every f16 and bf16 bit pattern, read one element at a time by the
 * kernels (the f16 one through F16C where the device compiler has it): A is
 * the 65536 patterns as a column (65536 x 1), B the 1 x 1 value 1.0, C in
 * f32. C must be each pattern's exact value (NaN for NaNs, the sign of
 * zeros aside), on the built-in route and on gemm_small forced. C is
 * poisoned first. */
static void exact_patterns(vncl_dtype dt) {
  const int64_t sa[2] = {65536, 1}, sb[2] = {1, 1};
  uint16_t *bits = malloc(65536 * sizeof *bits);
  float *got = malloc(65536 * sizeof *got);
  assert_non_null(bits);
  assert_non_null(got);
  for (unsigned b = 0; b < 65536; b++) bits[b] = (uint16_t)b;
  const uint16_t one = dt == VNCL_F16 ? vncl_f16_from_double(1.0)
                                      : vncl_bf16_from_double(1.0);
  vncl_tensor *a, *bt, *c;
  T_OK(ctx, vncl_tensor_create(ctx, dt, 2, sa, &a));
  T_OK(ctx, vncl_tensor_create(ctx, dt, 2, sb, &bt));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, sa, &c));
  T_OK(ctx, vncl_tensor_write(a, bits, 65536 * sizeof *bits));
  T_OK(ctx, vncl_tensor_write(bt, &one, sizeof one));
  vncl__gemm_params q; /* the built-in set, gemm_small for everything */
  vncl__gemm_params_get(ctx, vncl__gemm_acc_of(dt), VNCL__GEMM_SHAPE_NARROW,
                        &q);
  q.small_mnk = q.small_batch_mnk = 1e30;
  for (int forced = 0; forced < 2; forced++) {
    if (forced)
      T_OK(ctx, vncl__gemm_params_set(ctx, vncl__gemm_acc_of(dt),
                                      VNCL__GEMM_SHAPE_NARROW, &q));
    for (unsigned i = 0; i < 65536; i++) got[i] = 12345.0f;
    T_OK(ctx, vncl_tensor_write(c, got, 65536 * sizeof *got));
    T_OK(ctx, vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1.0, a, bt, 0.0, c));
    T_OK(ctx, vncl_tensor_read(c, got, 65536 * sizeof *got));
    for (unsigned b = 0; b < 65536; b++) {
      double want = dt == VNCL_F16 ? vncl_f16_to_double((uint16_t)b)
                                   : vncl_bf16_to_double((uint16_t)b);
      bool ok = isnan(want) ? isnan(got[b]) : (double)got[b] == want;
      if (!ok)
        fail_msg("%s 0x%04x%s: %.9g, want %.9g", dname(dt), b,
                 forced ? " (gemm_small)" : "", got[b], want);
    }
  }
  T_OK(ctx, vncl__gemm_params_set(ctx, vncl__gemm_acc_of(dt),
                                  VNCL__GEMM_SHAPE_NARROW, NULL));
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(bt);
  vncl_tensor_destroy(c);
  free(bits);
  free(got);
}

static void test_exact_16bit_patterns(void **st) {
  (void)st;
  exact_patterns(VNCL_F16);
  exact_patterns(VNCL_BF16);
}

/* Above the switch point with the built-in sets: tall and narrow (A read in
 * place, by rows or transposed) and square, each storage type. */
static void test_default_large(void **st) {
  (void)st;
  const vncl_dtype types[] = {VNCL_F32, VNCL_F16, VNCL_BF16, VNCL_F64};
  for (size_t t = 0; t < 4; t++)
    for (int ta = 0; ta < 2; ta++) {
      gcase g = {types[t], VNCL_ROW_MAJOR, (vncl_trans)ta, VNCL_NO_TRANS, 2001,
                 24, 1500, 1, 1.0, ta ? 0.5 : 0.0, 3, 1, 2, 1, false, false};
      run_case(&g);
    }
  gcase sq = {VNCL_F32, VNCL_COL_MAJOR, VNCL_NO_TRANS, VNCL_TRANS, 390, 401,
              420, 1, -1.0, 0.0, 0, 5, 0, 2, false, false};
  run_case(&sq);

  /* No room for packing scratch under the context's memory limit: the
   * direct kernel, which needs none, computes it. */
  vncl_options o;
  vncl_options_init(&o);
  o.memory_limit = 4096;
  vncl_context *small = NULL, *saved = ctx;
  T_OK(NULL, vncl_context_create(&small, &o));
  ctx = small;
  vncl_context_cl(ctx, &clctx, &clq, NULL);
  run_case(&sq);
  ctx = saved;
  vncl_context_cl(ctx, &clctx, &clq, NULL);
  vncl_context_destroy(small);
}

/* gemm_pack launches counted by ctx's profile since its last reset. */
/* Installs q on the test context for every shape class of acc (q NULL:
 * withdraws it, the device's rows apply again). */
static void set_every_shape(vncl__gemm_acc acc, const vncl__gemm_params *q) {
  for (int s = 0; s < VNCL__GEMM_SHAPES; s++)
    T_OK(ctx, vncl__gemm_params_set(ctx, acc, (vncl__gemm_shape)s, q));
}

/* Runs g in a fresh context (with the set q on every shape class, unless
 * q is NULL), then says whether a program whose file name starts with
 * `src` and whose options hold `opt` (and `opt2`, unless NULL) was built
 * there: the route g took. */
static bool route_built2(const vncl__gemm_params *q, const gcase *g,
                         const char *src, const char *opt, const char *opt2) {
  vncl_context *fresh = NULL, *saved = ctx;
  T_OK(NULL, vncl_context_create(&fresh, NULL));
  ctx = fresh;
  vncl_context_cl(ctx, &clctx, &clq, NULL);
  if (q) set_every_shape(vncl__gemm_acc_of(g->dt), q);
  run_case(g);
  const char *srcs[256], *opts[256];
  cl_program progs[256];
  int n = vncl__programs_list(ctx, srcs, opts, progs, 256);
  bool built = false;
  for (int i = 0; i < n && i < 256; i++)
    built = built ||
            (!strncmp(srcs[i], src, strlen(src)) && strstr(opts[i], opt) &&
             (!opt2 || strstr(opts[i], opt2)));
  ctx = saved;
  vncl_context_cl(ctx, &clctx, &clq, NULL);
  vncl_context_destroy(fresh);
  return built;
}
static bool route_built(const vncl__gemm_params *q, const gcase *g,
                        const char *src, const char *opt) {
  return route_built2(q, g, src, opt, NULL);
}

static uint64_t pack_count(void) {
  vncl_profile pf;
  T_OK(ctx, vncl_profile_get(ctx, &pf));
  for (int i = 0; i < pf.num_ops; i++)
    if (!strcmp(pf.ops[i].name, "gemm_pack")) return pf.ops[i].count;
  return 0;
}

/* Single products between the 16-bit switch (switch_mnk16) and switch_mnk
 * with the built-in sets, each storage type, both layouts and transposes,
 * odd sizes: every element against the double reference, and the path the
 * set in force names (packed for f16/bf16 from the lower switch, per the
 * dispatch rule; whatever the device's row says) taken: a packed kernel's
 * program built in a fresh context (a flat product with B as stored and A
 * read in place launches no gemm_pack: the kernel packs B itself). */
static void test_switch16(void **st) {
  (void)st;
  const vncl_dtype types[] = {VNCL_F16, VNCL_BF16, VNCL_F32};
  const size_t sh[][3] = {{130, 129, 127}, {61, 300, 131}, {127, 131, 200},
                          {100, 37, 77}};
  int idx = 0;
  for (size_t t = 0; t < 3; t++)
    for (size_t s = 0; s < sizeof sh / sizeof *sh; s++)
      for (int v = 0; v < 3; v++, idx++) {
        vncl_layout lay = v == 2 ? VNCL_COL_MAJOR : VNCL_ROW_MAJOR;
        vncl_trans ta = (vncl_trans)(v == 1), tb = (vncl_trans)(v == 2);
        gcase g = {types[t], lay, ta, tb, sh[s][0], sh[s][1], sh[s][2], 1,
                   alphas[idx % 4], betas[idx % 5], 1, 2, 3, 1, false, false};
        /* The kernel form's m, n and B contiguity (col-major: C^T). */
        bool row = lay == VNCL_ROW_MAJOR;
        size_t km = row ? g.m : g.n, kn = row ? g.n : g.m;
        bool b_contig = row ? tb == VNCL_NO_TRANS : ta == VNCL_NO_TRANS;
        vncl__gemm_params p;
        vncl__gemm_params_get(ctx, vncl__gemm_acc_of(types[t]),
                              vncl__gemm_shape_of(km, kn, g.k), &p);
        /* The path is the set's where our kernels run unprobed. */
        bool check = p.backend == VNCL__GEMM_OWN && !ctx->gemm_probe &&
                     (ctx->gemm_backend == VNCL__BACKEND_AUTO ||
                      ctx->gemm_backend == VNCL__BACKEND_OWN);
        double mnk = (double)g.m * g.n * g.k;
        double sw = b_contig ? p.switch_mnk : p.switch_mnk_bt;
        if (types[t] != VNCL_F32 && p.switch_mnk16 < sw) sw = p.switch_mnk16;
        bool small = mnk <= p.small_mnk && (b_contig || mnk < p.switch_mnk_bt);
        bool packed = !small && mnk >= sw;
        bool ran = route_built(NULL, &g, "gemm_packed_", "");
        if (check && packed != ran)
          fail_msg("%s %zux%zux%zu v%d: %s the packed kernel, the set "
                   "(switch_mnk %.0f, _bt %.0f, 16-bit %.0f) names the %s "
                   "path",
                   dname(g.dt), g.m, g.n, g.k, v, ran ? "ran" : "did not run",
                   p.switch_mnk, p.switch_mnk_bt, p.switch_mnk16,
                   packed ? "packed" : "direct");
      }
}

/* ---- tensors: 2-D, 3-D, C in f32 for 16-bit inputs ------------------------ */

static void tensor_case(vncl_dtype ab, vncl_dtype cdt, int batch, vncl_trans ta,
                        vncl_trans tb, size_t m, size_t n, size_t k,
                        double alpha, double beta) {
  int nd = batch ? 3 : 2;
  size_t nb = batch ? (size_t)batch : 1;
  int64_t sa[3], sb[3], sc[3];
  int o = nd - 2;
  if (batch) sa[0] = sb[0] = sc[0] = batch;
  sa[o] = (int64_t)(ta ? k : m);
  sa[o + 1] = (int64_t)(ta ? m : k);
  sb[o] = (int64_t)(tb ? n : k);
  sb[o + 1] = (int64_t)(tb ? k : n);
  sc[o] = (int64_t)m;
  sc[o + 1] = (int64_t)n;
  vncl_tensor *a, *b, *c;
  T_OK(ctx, vncl_tensor_create(ctx, ab, nd, sa, &a));
  T_OK(ctx, vncl_tensor_create(ctx, ab, nd, sb, &b));
  T_OK(ctx, vncl_tensor_create(ctx, cdt, nd, sc, &c));
  size_t na = nb * m * k, nbb = nb * k * n, nc = nb * m * n;
  void *ha = malloc(na * esize(ab)), *hb = malloc(nbb * esize(ab));
  void *hc = malloc(nc * esize(cdt)), *c0 = malloc(nc * esize(cdt));
  fill_random(ha, ab, na);
  fill_random(hb, ab, nbb);
  fill_random(hc, cdt, nc);
  if (beta == 0)
    for (size_t i = 0; i < nc; i++) put(hc, cdt, i, NAN);
  memcpy(c0, hc, nc * esize(cdt));
  T_OK(ctx, vncl_tensor_write(a, ha, na * esize(ab)));
  T_OK(ctx, vncl_tensor_write(b, hb, nbb * esize(ab)));
  T_OK(ctx, vncl_tensor_write(c, hc, nc * esize(cdt)));
  T_OK(ctx, vncl_gemm(ctx, ta, tb, alpha, a, b, beta, c));
  T_OK(ctx, vncl_tensor_read(c, hc, nc * esize(cdt)));
  size_t bad = 0;
  /* The shared reference on the widened inputs (alpha's part; beta's term
   * is added here, with its own bound). */
  double *ad = malloc((na + 1) * sizeof *ad), *bd = malloc((nbb + 1) * sizeof *bd);
  double *dots = malloc((nc + 1) * sizeof *dots);
  double *adots = malloc((nc + 1) * sizeof *adots);
  assert_true(ad && bd && dots && adots);
  for (size_t i = 0; i < na; i++) ad[i] = get(ha, ab, i);
  for (size_t i = 0; i < nbb; i++) bd[i] = get(hb, ab, i);
  t_ref_gemm(ta, tb, m, n, k, nb, alpha, ad, ta ? m : k, bd, tb ? k : n, 0.0,
             NULL, n, dots, adots);
  free(ad);
  free(bd);
  for (size_t g = 0; g < nb; g++)
    for (size_t i = 0; i < m; i++)
      for (size_t j = 0; j < n; j++) {
        size_t ci = g * m * n + i * n + j;
        double cin = beta == 0 ? 0 : get(c0, cdt, ci);
        double want = dots[ci] + beta * cin;
        double tol = 2.0 * (k + 2) * u_acc(ab) * adots[ci] +
                     4 * u_acc(ab) * fabs(beta * cin) +
                     u_out(cdt) * fabs(want) + floor_out(cdt) + 1e-300;
        double got = get(hc, cdt, ci);
        if (!(fabs(got - want) <= tol)) {
          if (bad < 5)
            print_error("tensor %s->%s batch %d ta=%d tb=%d %zux%zux%zu: "
                        "(%zu,%zu,%zu) = %.9g, want %.9g\n",
                        dname(ab), dname(cdt), batch, ta, tb, m, n, k, g, i,
                        j, got, want);
          bad++;
        }
      }
  free(dots);
  free(adots);
  if (bad) fail_msg("tensor GEMM: %zu wrong elements", bad);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(b);
  vncl_tensor_destroy(c);
  free(ha);
  free(hb);
  free(hc);
  free(c0);
}

static void test_tensors(void **st) {
  (void)st;
  const vncl_dtype pairs[][2] = {{VNCL_F32, VNCL_F32}, {VNCL_F16, VNCL_F32},
                                 {VNCL_BF16, VNCL_F32}, {VNCL_F16, VNCL_F16},
                                 {VNCL_BF16, VNCL_BF16}, {VNCL_F64, VNCL_F64}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    tensor_case(pairs[i][0], pairs[i][1], 0, VNCL_NO_TRANS, VNCL_NO_TRANS, 65,
                33, 129, 1.0, 0.0);
    tensor_case(pairs[i][0], pairs[i][1], 3, VNCL_TRANS, VNCL_TRANS, 17, 40, 9,
                -2.0, 0.5);
    tensor_case(pairs[i][0], pairs[i][1], 2, VNCL_NO_TRANS, VNCL_TRANS, 400,
                390, 410, 0.5, 0.0); /* the packed path */
  }
}

/* ---- parameter sets --------------------------------------------------------- */

/* Installs p (all shape classes) for dt's storage class, runs a few cases
 * in dt, restores. */
static void with_params(const vncl__gemm_params *p, vncl_dtype dt) {
  const vncl__gemm_acc acc = vncl__gemm_acc_of(dt);
  set_every_shape(acc, p);
  const size_t sh[][3] = {{1, 1, 1}, {7, 130, 33}, {131, 67, 129},
                          {200, 8, 300}, {64, 64, 64}};
  for (size_t i = 0; i < sizeof sh / sizeof *sh; i++) {
    gcase g = {dt, (vncl_layout)(i & 1), (vncl_trans)((i >> 1) & 1),
               (vncl_trans)(i & 1), sh[i][0], sh[i][1], sh[i][2], 1 + (i == 2),
               alphas[i % 4], betas[i % 5], i, 2 * i, 1, i % 3, false, false};
    run_case(&g);
  }
  set_every_shape(acc, NULL);
}

/* Whether ctx holds a gemm_packed_cpu program whose options have both
 * opt1 and opt2: the products run went through that variant. */
static bool cpu_built(const char *opt1, const char *opt2) {
  const char *src[256], *opts[256];
  cl_program progs[256];
  int n = vncl__programs_list(ctx, src, opts, progs, 256);
  for (int i = 0; i < n && i < 256; i++)
    if (!strcmp(src[i], "gemm_packed_cpu.cl") && strstr(opts[i], opt1) &&
        strstr(opts[i], opt2))
      return true;
  return false;
}

static void test_param_sets(void **st) {
  (void)st;
  vncl__gemm_params p;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &p);
  /* These sets test the direct and packed kernels: no product may go to
   * gemm_small, whatever the device's row routes there. */
  p.small_mnk = p.small_batch_mnk = 0;
  /* The packed CPU kernel at every size, A packed and in place, with and
   * without depth chunks (with KC 8, depth 1 stays within one chunk and
   * runs the whole-depth path, the others the chunked one). */
  vncl__gemm_params q = p;
  q.fast = VNCL__GEMM_PACKED_CPU;
  q.switch_mnk = q.switch_mnk_bt = 0;
  q.cpu = (vncl__gemm_cpu_params){4, 16, 8, 8, 32, 0, 2, 0, 1, 0};
  with_params(&q, VNCL_F32);
  with_params(&q, VNCL_BF16);
  q.cpu = (vncl__gemm_cpu_params){3, 8, 4, 6, 16, 8, 4, 1, 0, 4};
  with_params(&q, VNCL_F16);
  with_params(&q, VNCL_F32);
  /* bf16 in place in depth chunks: the volatile stage of the widened rows
   * (16-bit storage only) with KU=4 and KC=8. */
  with_params(&q, VNCL_BF16);
  /* A_PACKED=2: A in place where its rows are contiguous in depth, packed
   * where A is transposed (with_params runs both); NR=32 (a multiple of 16)
   * takes gemm_pack's vector copy of B's rows, f16 and bf16 through the
   * 16-wide conversions, B prefetched 16 (f64: 8) depths ahead. Both
   * variants must have been built. */
  q.cpu = (vncl__gemm_cpu_params){6, 32, 16, 12, 64, 0, 16, 0, 2, 16};
  with_params(&q, VNCL_F32);
  with_params(&q, VNCL_F16);
  with_params(&q, VNCL_BF16);
  assert_true(cpu_built("-DMB=12 ", "-DA_PACKED=0"));
  assert_true(cpu_built("-DMB=12 ", "-DA_PACKED=1"));
  assert_true(cpu_built("-DMB=12 ", "-DPREFETCH=16"));
  /* From big_mnk on (131 x 67 x 129 and 200 x 8 x 300 here), products take
   * blocks big_tall times taller and narrower (24 x 32), the others the
   * set's own 12 x 64. */
  q.big_mnk = 300000;
  q.big_tall = 2;
  with_params(&q, VNCL_F32);
  with_params(&q, VNCL_BF16);
  assert_true(cpu_built("-DMB=24 ", "-DNB=32 "));
  /* 64 / 3 rounds down to a multiple of NR 32, at least NR: 36 x 32. */
  q.big_tall = 3;
  with_params(&q, VNCL_F32);
  assert_true(cpu_built("-DMB=36 ", "-DNB=32 "));
  q.big_mnk = 1e30;
  q.big_tall = 1;
  if (ctx->info.fp64) {
    vncl__gemm_params d;
    vncl__gemm_params_get(ctx, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE, &d);
    d.small_mnk = d.small_batch_mnk = 0;
    d.fast = VNCL__GEMM_PACKED_CPU;
    d.switch_mnk = d.switch_mnk_bt = 0;
    d.cpu = (vncl__gemm_cpu_params){6, 32, 8, 18, 64, 0, 16, 0, 2, 8};
    with_params(&d, VNCL_F64);
    /* f64 in depth chunks with A in place, 8 depths a row load (the AMD
     * AVX-512 f64 row's KU, with chunks of 2048 there). */
    d.cpu = (vncl__gemm_cpu_params){6, 32, 8, 18, 64, 16, 8, 0, 2, 0};
    with_params(&d, VNCL_F64);
    /* f64 from big_mnk on, as the AVX-512 f64 square rows take it (AMD
     * and Intel, big_tall 2): 36 x 32 blocks of doubles. */
    d.big_mnk = 300000;
    d.big_tall = 2;
    with_params(&d, VNCL_F64);
    assert_true(cpu_built("-DVW=8 -DMB=36 -DNB=32 ", "-DKC=16 "));
  }
  /* The GPU-shaped kernels: local-memory direct kernel, packed tiles. */
  q = p;
  q.switch_mnk = q.switch_mnk_bt = 4096;
  q.fast = VNCL__GEMM_PACKED_LOCAL;
  q.pack_elem = 1;
  q.direct = (vncl__gemm_direct_params){16, 16, 4, 4, 8, 1, 1};
  q.local = (vncl__gemm_local_params){32, 16, 8, 8, 4, 2, 2, 2, 1, 1};
  with_params(&q, VNCL_F32);
  q.local = (vncl__gemm_local_params){16, 32, 4, 4, 8, 1, 4, 1, 0, 1};
  with_params(&q, VNCL_BF16);
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE, &p);
  p.small_mnk = p.small_batch_mnk = 0;
  p.switch_mnk = p.switch_mnk_bt = 0;
  with_params(&p, VNCL_F64);
  /* The direct kernel at every size, edges and strided B included. */
  p.switch_mnk = p.switch_mnk_bt = 1e30;
  with_params(&p, VNCL_F64);
  /* 16-bit storage on the direct kernel with A broadcast (KWGD 1), which
   * widens A four depths at a time (k 64 whole; 1, 33, 129 and 300 with
   * tails), whatever tile the device's row has. Rows whose direct kernel
   * stages slices in local memory (GPUs) read A there instead. */
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC16, VNCL__GEMM_SHAPE_SQUARE, &p);
  if (!p.direct.local) {
    p.small_mnk = p.small_batch_mnk = 0;
    p.switch_mnk = p.switch_mnk_bt = p.switch_mnk16 = 1e30;
    p.direct.kwgd = 1;
    with_params(&p, VNCL_F16);
    with_params(&p, VNCL_BF16);
  }

  /* Sets that break a rule are rejected, naming it. */
  q = p;
  q.cpu.mb = q.cpu.mr + 1;
  T_FAILS(ctx, vncl__gemm_params_set(ctx, VNCL__GEMM_ACC64,
                                     VNCL__GEMM_SHAPE_SQUARE, &q),
          VNCL_ERR_INVALID_ARG, "multiple of MR");
  q = p;
  q.fast = VNCL__GEMM_PACKED_LOCAL;
  q.local = (vncl__gemm_local_params){256, 256, 16, 128, 128, 1, 1, 1, 1, 1};
  T_FAILS(ctx, vncl__gemm_params_set(ctx, VNCL__GEMM_ACC32,
                                     VNCL__GEMM_SHAPE_SQUARE, &q),
          VNCL_ERR_INVALID_ARG, "work-items per group");
  q.local = (vncl__gemm_local_params){64, 64, 8192, 8, 8, 1, 1, 1, 1, 1};
  T_FAILS(ctx, vncl__gemm_params_set(ctx, VNCL__GEMM_ACC32,
                                     VNCL__GEMM_SHAPE_SQUARE, &q),
          VNCL_ERR_INVALID_ARG, "local memory");
  char opts[512];
  vncl__gemm_options(VNCL__GEMM_PACKED_CPU, &p, VNCL_F64, VNCL_F64, opts,
                     sizeof opts);
  assert_non_null(strstr(opts, "-DDTYPE_AB=1"));
  assert_non_null(strstr(opts, "-DMR="));
}

/* ---- the small-product kernel ---------------------------------------------- */

/* Whether ctx holds a gemm_small program built with options `opt` and
 * `opt2`: the products above went through that variant, not another
 * path. */
static bool small_built2(const char *opt, const char *opt2) {
  const char *src[256], *opts[256];
  cl_program progs[256];
  int n = vncl__programs_list(ctx, src, opts, progs, 256);
  for (int i = 0; i < n && i < 256; i++)
    if (!strcmp(src[i], "gemm_small.cl") && strstr(opts[i], opt) &&
        strstr(opts[i], opt2))
      return true;
  return false;
}

static bool small_built(const char *opt) { return small_built2(opt, ""); }

/* gemm_small forced for every product (single and batched) under
 * parameter set q: odd sizes 1..maxs in every layout and transpose pair,
 * alpha/beta varying (beta == 0 with C poisoned), offsets, padding and
 * batches with gaps; then the tensor path with C in f32. Above 33, the
 * first cases are single products whose columns take every column path
 * of the set's tiles (full tiles, the half tile, single vectors, the last
 * columns one by one) and whose rows spread over several work-items. */
static void small_sweep_to(vncl__gemm_params q, vncl_dtype dt, int cases,
                           size_t maxs) {
  const vncl__gemm_acc acc = vncl__gemm_acc_of(dt);
  q.small_mnk = q.small_batch_mnk = q.small_batch_mnk_bt = 1e30;
  q.switch_mnk_bt = 1e30; /* B transposed too */
  set_every_shape(acc, &q);
  size_t vw = (size_t)q.small.vw, nc = (size_t)q.small.nv * vw;
  size_t rows = 4 * (size_t)q.small.mr * ctx->info.compute_units + 1;
  for (int i = 0; i < cases; i++) {
    gcase g = {dt, (vncl_layout)(i & 1), (vncl_trans)((i >> 1) & 1),
               (vncl_trans)((i >> 2) & 1), 1 + t_rand_u64() % maxs,
               1 + t_rand_u64() % maxs, 1 + t_rand_u64() % maxs,
               i % 3 == 2 ? 1 + t_rand_u64() % 5 : 1, alphas[i % 4],
               betas[i % 5], t_rand_u64() % 5, t_rand_u64() % 5,
               t_rand_u64() % 5, t_rand_u64() % 4, false, false};
    if (maxs <= 33) {
      if (i == 0) g.m = g.n = g.k = 1;
      if (i == 1) g.m = g.n = g.k = 33;
      if (i == 2) g.m = g.n = g.k = 17;
    } else if (i < 4) {
      /* Row-major, B not transposed (vector loads of B), then B
       * transposed (gathered); single products. */
      g.layout = VNCL_ROW_MAJOR;
      g.ta = VNCL_NO_TRANS;
      g.tb = i & 1 ? VNCL_TRANS : VNCL_NO_TRANS;
      g.batch = 1;
      g.m = i < 2 ? rows : 1 + t_rand_u64() % maxs;
      g.n = i < 2 ? nc + nc / 2 + vw + 3 : nc / 2 + (size_t)i;
      g.k = 1 + t_rand_u64() % maxs;
    }
    run_case(&g);
  }
  char opt[48];
  snprintf(opt, sizeof opt, "-DSM_NV=%d -DSM_VW=%d -DSM_RB=%d", q.small.nv,
           q.small.vw, q.small.rb);
  if (!small_built(opt)) fail_msg("no gemm_small program with %s", opt);
  set_every_shape(acc, NULL);
}

static void small_sweep(vncl__gemm_params q, vncl_dtype dt, int cases) {
  small_sweep_to(q, dt, cases, 33);
}

/* Batches with B transposed on gemm_small (its dot products along the
 * depth) at depths that are not whole vectors: the last vector of depths
 * overlaps the ones before, which must count once. A's depth k - SM_VW,
 * the overlap's first, is +inf in every row: the overlap's lanes must be
 * left out of both operands, since an infinity times a zero is NaN; C must
 * be the reference's +-inf. Then finite inputs at the same depths, and m
 * and n that leave partial tiles and column groups. The device's own sets (f64's with its columns per tile doubled, gemm.c's
 * small_tile) and a tile of three columns (a group padded with a zero
 * vector). */
static void test_small_bt_depths(void **st) {
  (void)st;
  vncl__gemm_params p;
  vncl_dtype types[] = {VNCL_F32, VNCL_F64, VNCL_F16};
  for (int d = 0; d < 3; d++) {
    vncl_dtype dt = types[d];
    if (dt == VNCL_F64 && !ctx->info.fp64) continue;
    vncl__gemm_acc acc = vncl__gemm_acc_of(dt);
    vncl__gemm_params_get(ctx, acc, VNCL__GEMM_SHAPE_SQUARE, &p);
    for (int t = 0; t < (dt == VNCL_F32 ? 2 : 1); t++) {
      vncl__gemm_params q = p;
      if (t) q.small = (vncl__gemm_small_params){2, 3, 4, 6, 2};
      q.small_mnk = q.small_batch_mnk = q.small_batch_mnk_bt = 1e30;
      q.switch_mnk_bt = 1e30;
      set_every_shape(acc, &q);
      size_t vw = (size_t)q.small.vw;
      size_t depths[] = {vw + 1, 2 * vw + vw / 2 + 1, 3 * vw - 1};
      for (int i = 0; i < 6; i++) {
        gcase g = {dt, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_TRANS,
                   5 + t_rand_u64() % 20, 3 + t_rand_u64() % 20,
                   depths[i % 3], 1 + t_rand_u64() % 3, alphas[i % 4],
                   i < 3 ? 0.0 : 0.5, t_rand_u64() % 5, t_rand_u64() % 5,
                   t_rand_u64() % 5, t_rand_u64() % 3, false, false};
        run_case_inf(&g, i < 3 ? depths[i % 3] - vw + 1 : 0);
      }
      set_every_shape(acc, NULL);
    }
  }
}

/* Single products of up to a few tiles each way on gemm_small: the
 * device's set, then four vectors per tile row (the half tile runs), f32,
 * 16-bit storage and f64. */
static void test_small_single(void **st) {
  (void)st;
  vncl__gemm_params p, q;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &p);
  size_t maxs = 3 * (size_t)p.small.nv * p.small.vw + 7;
  small_sweep_to(p, VNCL_F32, 10, maxs);
  q = p;
  q.small.nv = 4;
  maxs = 3 * 4 * (size_t)q.small.vw + 7;
  small_sweep_to(q, VNCL_F32, 12, maxs);
  small_sweep_to(q, VNCL_F16, 5, maxs);
  small_sweep_to(q, VNCL_BF16, 5, maxs);
  /* Three vectors a row: the half tile is one vector. */
  q.small = (vncl__gemm_small_params){2, 3, 4, 6, 2};
  small_sweep_to(q, VNCL_F32, 6, 40);
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE, &p);
  q = p;
  q.small.nv = 4;
  maxs = 3 * 4 * (size_t)q.small.vw + 7;
  small_sweep_to(q, VNCL_F64, 8, maxs);
}

/* The square set of f32 (d 0) or f64 (d 1) on this device, for the tests
 * of the host's per-call gemm_small tiles; false where the device has no
 * fp64, or no register model (GPU rows keep the set's tile). */
static bool small_square_set(int d, vncl_dtype *dt, vncl__gemm_acc *acc,
                             vncl__gemm_params *p) {
  *dt = d ? VNCL_F64 : VNCL_F32;
  if (*dt == VNCL_F64 && !ctx->info.fp64) return false;
  *acc = vncl__gemm_acc_of(*dt);
  vncl__gemm_params_get(ctx, *acc, VNCL__GEMM_SHAPE_SQUARE, p);
  return p->vregs > 0;
}

/* Rows of C that are a whole number of vectors, more than the set's SM_NV
 * and at most 8, run as one tile (gemm.c, small_tile) on CPU rows: batches
 * of f32 and f64 with n = 1 .. 8 vectors wider than the tile, odd m and k,
 * checked against the reference, and the program built with the whole-row
 * tile (SM_NV = n / SM_VW, SM_MR keeping the accumulators to half of
 * VREGS and dividing SM_RB). */
static void test_small_whole_rows(void **st) {
  (void)st;
  for (int d = 0; d < 2; d++) {
    vncl_dtype dt;
    vncl__gemm_acc acc;
    vncl__gemm_params p, q;
    if (!small_square_set(d, &dt, &acc, &p)) continue;
    q = p;
    q.small_mnk = q.small_batch_mnk = 1e30;
    set_every_shape(acc, &q);
    for (int nv = p.small.nv + 1; nv <= 8; nv++) {
      int mr = p.vregs / 2 / nv;
      if (mr > p.small.mr) mr = p.small.mr;
      while (mr > 1 && p.small.rb % mr) mr--;
      gcase g = {dt, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_NO_TRANS,
                 2 * (size_t)p.small.rb + 1 + t_rand_u64() % 7,
                 (size_t)nv * p.small.vw, 3 + t_rand_u64() % 29,
                 2 + t_rand_u64() % 3, alphas[nv % 4], betas[nv % 5],
                 t_rand_u64() % 5, t_rand_u64() % 5, t_rand_u64() % 5,
                 t_rand_u64() % 4, false, false};
      run_case(&g);
      char o1[32], o2[32];
      snprintf(o1, sizeof o1, "-DSM_NV=%d ", nv);
      snprintf(o2, sizeof o2, "-DSM_MR=%d ", mr);
      if (!small_built2(o1, o2))
        fail_msg("%s n=%zu: no gemm_small program with SM_NV=%d SM_MR=%d",
                 vncl_dtype_name(dt), g.n, nv, mr);
    }
    set_every_shape(acc, NULL);
  }
}

/* Batches whose products' rows the set's tile rows would overrun: with
 * the CPU rows' 6-row tiles and 24 rows a work-item, a product of 32 rows
 * computes 36 (the last tile clamped), so gemm_small takes 4-row tiles,
 * which divide it (and 8, 16 and 20 rows too; 17, 64 and 100 keep the
 * set's tile). Rows of exactly the set's tile width, so that no whole-row
 * tile is taken. Every product is checked against the reference; on the
 * CPU rows the 4-row program must have been built. */
static void test_small_rows_by_m(void **st) {
  (void)st;
  static const size_t ms[] = {32, 8, 16, 20, 17, 64, 100};
  for (int d = 0; d < 2; d++) {
    vncl_dtype dt;
    vncl__gemm_acc acc;
    vncl__gemm_params p, q;
    if (!small_square_set(d, &dt, &acc, &p)) continue;
    /* A fresh context, whose program list holds only what this test
     * builds. */
    vncl_context *fresh = NULL, *saved = ctx;
    T_OK(NULL, vncl_context_create(&fresh, NULL));
    ctx = fresh;
    vncl_context_cl(ctx, &clctx, &clq, NULL);
    q = p;
    q.small_mnk = q.small_batch_mnk = 1e30;
    set_every_shape(acc, &q);
    size_t n = (size_t)p.small.nv * (size_t)p.small.vw;
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++) {
      gcase g = {dt, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_NO_TRANS,
                 ms[i], n, 3 + t_rand_u64() % 29, 2 + t_rand_u64() % 3,
                 alphas[i % 4], betas[i % 5], t_rand_u64() % 5,
                 t_rand_u64() % 5, t_rand_u64() % 5, t_rand_u64() % 4,
                 false, false};
      run_case(&g);
      /* After the first case (m 32) only. */
      if (i == 0 && p.small.mr == 6 && p.small.rb == 24) {
        char o1[32];
        snprintf(o1, sizeof o1, "-DSM_NV=%d ", p.small.nv);
        if (!small_built2(o1, "-DSM_MR=4 "))
          fail_msg("%s: no gemm_small program with 4-row tiles for m = 32",
                   vncl_dtype_name(dt));
      }
    }
    ctx = saved;
    vncl_context_cl(ctx, &clctx, &clq, NULL);
    vncl_context_destroy(fresh);
  }
}

/* gemm_small streaming C (small_stream_bytes 1: every launch where C's
 * rows are whole 64-byte lines): the sweep of the device's set, then
 * batches with C offset 0 and rows of 64 and 96 elements (whole lines:
 * streamed) and 80 (in f32 320 bytes: plain stores; in f64 streamed),
 * beside one at an odd offset (plain stores), beta 0 and not. On devices
 * without streaming stores the bit changes nothing and the products must
 * still be right. */
static void small_streamed(vncl_dtype dt) {
  const vncl__gemm_acc acc = vncl__gemm_acc_of(dt);
  vncl__gemm_params q;
  vncl__gemm_params_get(ctx, acc, VNCL__GEMM_SHAPE_SQUARE, &q);
  q.small_stream_bytes = 1;
  small_sweep(q, dt, 8);
  q.small_mnk = q.small_batch_mnk = q.small_batch_mnk_bt = 1e30;
  set_every_shape(acc, &q);
  static const size_t cols[] = {64, 80, 96, 64};
  for (int i = 0; i < 4; i++) {
    gcase g = {dt,        VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_NO_TRANS,
               29 + (size_t)i, cols[i],   33,            3,
               alphas[i], betas[i + 1],   0,             0,
               i == 3 ? 1 : 0, 0,         false,         false};
    run_case(&g);
  }
  set_every_shape(acc, NULL);
}

/* Whether a fresh context with set q (every shape) builds gemm_small for
 * one f32 product m x n x k, B transposed or not, computing it right. */
static bool small_taken(const vncl__gemm_params *q, size_t m, size_t n,
                        size_t k, vncl_trans tb) {
  vncl_context *fresh = NULL, *saved = ctx;
  T_OK(NULL, vncl_context_create(&fresh, NULL));
  ctx = fresh;
  vncl_context_cl(ctx, &clctx, &clq, NULL);
  set_every_shape(VNCL__GEMM_ACC32, q);
  gcase g = {VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS, tb, m, n, k, 1, 1.0,
             0.0, 0, 0, 0, 0, false, false};
  run_case(&g);
  bool taken = small_built("-DSM_RB=");
  ctx = saved;
  vncl_context_cl(ctx, &clctx, &clq, NULL);
  vncl_context_destroy(fresh);
  return taken;
}

/* Routing of single products: at most small_mnk on gemm_small; with B's
 * columns strided only below switch_mnk_bt (gemm_small gathers B). */
static void test_small_routing(void **st) {
  (void)st;
  vncl__gemm_params q;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &q);
  q.small_mnk = 20 * 21 * 22;
  q.switch_mnk_bt = 20 * 21 * 22;
  q.switch_mnk = 1e30;
  assert_true(small_taken(&q, 20, 21, 22, VNCL_NO_TRANS));
  assert_false(small_taken(&q, 20, 21, 23, VNCL_NO_TRANS));
  assert_false(small_taken(&q, 20, 21, 22, VNCL_TRANS));
  assert_true(small_taken(&q, 20, 21, 21, VNCL_TRANS));
}

/* gemm_small's groups (vncl__gemm_small_group): for every SM_WG, unit
 * count and launch size, a size within [1, SM_WG]; 1 below SM_WG groups a
 * unit; otherwise the busiest unit (ceil(groups / units) whole groups)
 * within 10/9 of an even share, and no larger size up to SM_WG that is;
 * SM_WG unchanged where the device wants the multiple. Then products on
 * gemm_small whose launches take such sizes on this device: batches of
 * 2 to 13, every element checked. */
static void test_small_group(void **st) {
  (void)st;
  vncl__gemm_params p;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &p);
  for (int wg0 = 1; wg0 <= 16; wg0++)
    for (size_t cus = 1; cus <= 8; cus++)
      for (size_t items = 1; items <= 600; items++) {
        p.small.wg = wg0;
        p.wg_multiple = 1;
        assert_int_equal(vncl__gemm_small_group(&p, items, cus), wg0);
        p.wg_multiple = 0;
        size_t wg = vncl__gemm_small_group(&p, items, cus);
        bool few = items < (size_t)wg0 * cus;
        if (wg < 1 || wg > (size_t)wg0 || (few && wg != 1))
          fail_msg("SM_WG %d, %zu units, %zu work-items: groups of %zu", wg0,
                   cus, items, wg);
        /* The busiest unit's work-items for groups of w. */
#define BUSIEST(w) (((items + (w) - 1) / (w) + cus - 1) / cus * (w))
        if (wg > 1 && 10 * items < 9 * cus * BUSIEST(wg))
          fail_msg("SM_WG %d, %zu units, %zu work-items: groups of %zu "
                   "leave a unit %zu of them",
                   wg0, cus, items, wg, BUSIEST(wg));
        for (size_t w = wg + 1; !few && w <= (size_t)wg0; w++)
          if (10 * items >= 9 * cus * BUSIEST(w))
            fail_msg("SM_WG %d, %zu units, %zu work-items: groups of %zu, "
                     "where %zu would do",
                     wg0, cus, items, wg, w);
#undef BUSIEST
      }
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &p);
  p.small_mnk = p.small_batch_mnk = p.small_batch_mnk_bt = 1e30;
  set_every_shape(VNCL__GEMM_ACC32, &p);
  for (size_t b = 2; b <= 13; b++) {
    gcase g = {VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
               b % 2 ? VNCL_TRANS : VNCL_NO_TRANS, 50 + b, 40, 30 + b, b,
               alphas[b % 4], betas[b % 5], 0, 0, 0, 0, false, false};
    run_case(&g);
  }
  set_every_shape(VNCL__GEMM_ACC32, NULL);
}

/* gemm_pack's groups (vncl__gemm_pack_local): within the set's pack_wg0 x
 * pack_wg1, the set's own where that makes eight groups a unit, else at
 * least eight groups a unit unless they are down to 1 x 1; the set's own
 * where the device wants the multiple. Then packed products whose packs
 * take such groups on this device (40 to 390 rows and columns, B
 * transposed or not, A transposed so that A is packed too), in every
 * storage type, every element checked. */
static void test_pack_groups(void **st) {
  (void)st;
  vncl__gemm_params p;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &p);
  const int wgs[][2] = {{16, 16}, {16, 1}, {1, 16}, {5, 3}, {1, 1}};
  for (size_t w = 0; w < sizeof wgs / sizeof *wgs; w++)
    for (size_t cus = 1; cus <= 8; cus++)
      for (size_t g0 = 1; g0 <= 40; g0++)
        for (size_t g1 = 1; g1 <= 40; g1++)
          for (size_t b = 1; b <= 3; b++) {
            size_t w0 = (size_t)wgs[w][0], w1 = (size_t)wgs[w][1], l0, l1;
            p.pack_wg0 = wgs[w][0];
            p.pack_wg1 = wgs[w][1];
            p.wg_multiple = 1;
            vncl__gemm_pack_local(&p, g0, g1, b, cus, &l0, &l1);
            assert_true(l0 == w0 && l1 == w1);
            p.wg_multiple = 0;
            vncl__gemm_pack_local(&p, g0, g1, b, cus, &l0, &l1);
#define GROUPS(x, y) ((g0 + (x) - 1) / (x) * ((g1 + (y) - 1) / (y)) * b)
            bool own = GROUPS(w0, w1) >= 8 * cus;
            if (l0 < 1 || l1 < 1 || l0 > w0 || l1 > w1 ||
                (own && (l0 != w0 || l1 != w1)) ||
                (!own && GROUPS(l0, l1) < 8 * cus && (l0 > 1 || l1 > 1)))
              fail_msg("pack_wg %zu x %zu, %zu units, %zu x %zu x %zu "
                       "work-items: groups of %zu x %zu (%zu groups)",
                       w0, w1, cus, g0, g1, b, l0, l1, GROUPS(l0, l1));
#undef GROUPS
          }
  const vncl_dtype types[] = {VNCL_F32, VNCL_F64, VNCL_F16, VNCL_BF16};
  for (int t = 0; t < 4; t++) {
    vncl__gemm_acc acc = vncl__gemm_acc_of(types[t]);
    if (acc == VNCL__GEMM_ACC64 && !ctx->info.fp64) continue;
    vncl__gemm_params_get(ctx, acc, VNCL__GEMM_SHAPE_SQUARE, &p);
    p.small_mnk = p.small_batch_mnk = 0;
    p.switch_mnk = p.switch_mnk_bt = p.switch_mnk16 = 0;
    set_every_shape(acc, &p);
    /* B transposed (packed from rows contiguous in depth: blocks of 16
     * rows and 16 depths, and the rest) and not, A transposed or not;
     * more rows than one block and a depth below half of them (else the
     * kernel packs a B as stored itself, B_FUSED). */
    for (int i = 0; i < 6; i++) {
      size_t m = (size_t)p.cpu.mb + 1 + t_rand_u64() % 300,
             n = 40 + t_rand_u64() % 350;
      gcase g = {types[t], VNCL_ROW_MAJOR,
                 i % 3 == 0 ? VNCL_TRANS : VNCL_NO_TRANS,
                 i < 4 ? VNCL_TRANS : VNCL_NO_TRANS, m, n,
                 1 + t_rand_u64() % ((m - 1) / 2), i == 5 ? 2 : 1,
                 alphas[i % 4], betas[i % 5], 0, 0, 0, 0, false, false};
      T_OK(ctx, vncl_profile_reset(ctx));
      run_case(&g);
      if (pack_count() == 0)
        fail_msg("%s %zux%zu: no pack", dname(types[t]), m, n);
    }
    set_every_shape(acc, NULL);
  }
}

static const vncl_dtype all_types[4] = {VNCL_F32, VNCL_F64, VNCL_F16,
                                         VNCL_BF16};

/* The flat set of dt's class with every product sent to the packed route
 * (switch points and small limits 0), into q; false (said) where the
 * device has no f64 for dt or the set is not gemm_packed_cpu's. */
static bool packed_cpu_set(vncl_dtype dt, vncl__gemm_params *q) {
  const vncl__gemm_acc acc = vncl__gemm_acc_of(dt);
  if (acc == VNCL__GEMM_ACC64 && !ctx->info.fp64) return false;
  vncl__gemm_params_get(ctx, acc, VNCL__GEMM_SHAPE_FLAT, q);
  if (q->fast != VNCL__GEMM_PACKED_CPU) {
    print_message("  %s: the flat set is not the CPU kernel; skipped\n",
                  dname(dt));
    return false;
  }
  q->small_mnk = q->small_batch_mnk = 0;
  q->switch_mnk = q->switch_mnk_bt = q->switch_mnk16 = 0;
  return true;
}

/* Few rows of A against a transposed B (a layer's x W^T) on the packed
 * route run as C^T = B A^T, gemm_packed_cpu storing its tiles transposed
 * (C_TRANS), where B has at least twice A's rows and the depth is at least
 * twice A's rows; on gemm_small where A's rows are at most a quarter of
 * the set's NR; as before otherwise. Every storage type, odd sizes,
 * offsets, padded leading dimensions, beta, batches of two (gaps between
 * the matrices): every element against the double reference, and the
 * route each took. Column-major products for their results only. */
static void test_packed_swap(void **st) {
  (void)st;
  for (int t = 0; t < 4; t++) {
    const vncl_dtype dt = all_types[t];
    const vncl__gemm_acc acc = vncl__gemm_acc_of(dt);
    vncl__gemm_params q;
    if (!packed_cpu_set(dt, &q)) continue;
    const size_t few = (size_t)q.cpu.nr / 4;
    for (int i = 0; i < 4; i++) {
      /* Swapped: more rows than `few`, n and k at least 2m. */
      size_t m = few + 1 + t_rand_u64() % 40;
      gcase g = {dt, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_TRANS, m,
                 2 * m + t_rand_u64() % 150, 2 * m + t_rand_u64() % 150,
                 1 + (size_t)(i & 1), alphas[i % 4], betas[(i + 1) % 5],
                 (size_t)i, 3 * (size_t)i, 2, (size_t)i % 3, false, i == 0};
      if (!route_built(&q, &g, "gemm_packed_cpu.cl", "-DC_TRANS=1"))
        fail_msg("%s %zu x %zu x %zu (batch %zu), B transposed: not run "
                 "as C^T = B A^T", dname(dt), g.m, g.n, g.k, g.batch);
      /* Few rows: gemm_small, whatever the set's small_mnk. */
      g.m = 1 + t_rand_u64() % few;
      g.batch = 1;
      if (!route_built(&q, &g, "gemm_small.cl", "-DSM_RB="))
        fail_msg("%s %zu x %zu x %zu, B transposed: not on gemm_small",
                 dname(dt), g.m, g.n, g.k);
      /* Depth below 2m: the pack of B, C stored as it is. */
      g.m = few + 20 + (size_t)i;
      g.k = g.m + t_rand_u64() % g.m;
      g.n = 2 * g.m + 7;
      g.batch = 1 + (size_t)(i & 1);
      if (route_built(&q, &g, "gemm_packed_cpu.cl", "-DC_TRANS=1"))
        fail_msg("%s %zu x %zu x %zu: swapped with k < 2m", dname(dt), g.m,
                 g.n, g.k);
    }
    /* Column-major and A transposed: the results. */
    set_every_shape(acc, &q);
    for (int i = 0; i < 4; i++) {
      size_t m = 3 + t_rand_u64() % 60;
      gcase g = {dt, VNCL_COL_MAJOR, (vncl_trans)(i & 1),
                 (vncl_trans)((i >> 1) & 1), m, 2 * m + t_rand_u64() % 90,
                 2 * m + t_rand_u64() % 90, 1 + (size_t)(i == 3),
                 alphas[i % 4], betas[i % 5], 1, 2, (size_t)i, 1, false,
                 false};
      run_case(&g);
      g.layout = VNCL_ROW_MAJOR;
      run_case(&g);
    }
    set_every_shape(acc, NULL);
  }
}

/* B as stored or transposed on the packed route: gemm_packed_cpu packs B
 * itself into local memory (B_FUSED) where NB columns of the padded depth
 * fit half the device's local memory and either every row of C is in one
 * block (m <= MB) or the depth is at least half the rows and the
 * ceil(n / NB) work-items share the compute units evenly (the busiest
 * within 10/9); the separate pack otherwise. Every storage type, odd
 * sizes (columns past the last whole sliver, depths not a multiple of KU,
 * several row blocks), B transposed (16 x 16 blocks and the rest), A
 * transposed (A packed, B fused), offsets, padded leading dimensions,
 * beta, batches of two: every element against the double reference, and
 * the route each took. Where every row of C is one block and the row's NB
 * does not fit at the depth, the widest NB / 2^i (whole slivers) that
 * does. */
static void test_packed_fused(void **st) {
  (void)st;
  for (int t = 0; t < 4; t++) {
    const vncl_dtype dt = all_types[t];
    vncl__gemm_params q;
    if (!packed_cpu_set(dt, &q)) continue;
    if (q.cpu.kc != 0) {
      print_message("  %s: the flat set chunks the depth; skipped\n",
                    dname(dt));
      continue;
    }
    const size_t mb = (size_t)q.cpu.mb, es = dt == VNCL_F64 ? 8 : 4;
    /* The deepest padded depth whose NB columns fit half of local memory. */
    const size_t kmax = ctx->info.local_mem_bytes / 2 / ((size_t)q.cpu.nb * es);
    for (int i = 0; i < (kmax >= 32 ? 4 : 0); i++) {
      size_t m = 1 + t_rand_u64() % (mb < 60 ? mb : 60);
      size_t k = 1 + t_rand_u64() % (kmax < 300 ? kmax - 16 : 300);
      /* B transposed in two of four (columns contiguous in depth: 16 x 16
       * blocks and the rest); n below 2m there, so no swap. */
      gcase g = {dt, VNCL_ROW_MAJOR, (vncl_trans)(i == 3),
                 (vncl_trans)(i >= 2), m,
                 i >= 2 ? m + t_rand_u64() % m : 1 + t_rand_u64() % 300, k,
                 1 + (size_t)(i & 1),
                 alphas[i % 4], betas[(i + 2) % 5], (size_t)i, 2 * (size_t)i,
                 1, (size_t)i % 3, false, i < 2};
      /* Through a user event in two (A in place: no pack launched at all,
       * the kernel itself must wait for the caller's list). */
      if (!route_built(&q, &g, "gemm_packed_cpu.cl", "-DB_FUSED=1"))
        fail_msg("%s %zu x %zu x %zu (batch %zu): B not packed by the "
                 "kernel", dname(dt), g.m, g.n, g.k, g.batch);
    }
    /* Several blocks of rows (of MR rows each): fused with a depth of
     * at least half the rows and even work-items (as many as the units),
     * not with a shorter depth, nor with one work-item more than the
     * units. */
    vncl__gemm_params q2 = q;
    q2.cpu.mb = q.cpu.mr;
    const size_t cus = ctx->info.compute_units ? ctx->info.compute_units : 1,
                 nb = (size_t)q.cpu.nb;
    gcase g = {dt, VNCL_ROW_MAJOR, (vncl_trans)(t & 1),
               (vncl_trans)((t >> 1) & 1), 40 + t_rand_u64() % 40,
               cus * nb - t_rand_u64() % 7, 0, 1, 1.0, 0.5, 1, 0, 2, 1,
               false, false};
    g.k = (g.m + 1) / 2 + t_rand_u64() % 30;
    if (kmax > g.k + 16 &&
        !route_built(&q2, &g, "gemm_packed_cpu.cl", "-DB_FUSED=1"))
      fail_msg("%s %zu x %zu x %zu, blocks of %d: B not packed by the "
               "kernel", dname(dt), g.m, g.n, g.k, q2.cpu.mb);
    g.k = g.m / 2 - 1 - t_rand_u64() % 10;
    if (route_built(&q2, &g, "gemm_packed_cpu.cl", "-DB_FUSED=1"))
      fail_msg("%s %zu x %zu x %zu, blocks of %d: B packed by the kernel",
               dname(dt), g.m, g.n, g.k, q2.cpu.mb);
    g.k = g.m;
    g.n = (cus + 1) * nb - t_rand_u64() % 7;
    if (cus > 1 && route_built(&q2, &g, "gemm_packed_cpu.cl", "-DB_FUSED=1"))
      fail_msg("%s %zu x %zu x %zu: B packed by the kernel in %zu "
               "work-items on %zu units", dname(dt), g.m, g.n, g.k, cus + 1,
               cus);
    /* Every row in one block and a depth past the local memory for NB
     * columns (here 4 NR): B still packed by the kernel, in slivers of
     * the widest NB / 2^i that fits (2 NR, then NR), each element against
     * the reference; past NR's depth, the separate pack. */
    vncl__gemm_params q3 = q;
    q3.cpu.nb = 4 * q.cpu.nr;
    const size_t nr = (size_t)q.cpu.nr, ku = (size_t)q.cpu.ku,
                 k4 = ctx->info.local_mem_bytes / 2 / (4 * nr * es);
    for (int w = 0; w < 3 && k4 >= 4 * ku; w++) {
      gcase d = {dt, VNCL_ROW_MAJOR, VNCL_NO_TRANS, (vncl_trans)(w == 1),
                 1 + t_rand_u64() % 5, 1 + t_rand_u64() % (6 * nr), 0, 1,
                 1.0, 0.0, (size_t)w, 1, 0, (size_t)w, false, false};
      if (w == 1) /* B transposed: n below 2m, so no swap */
        d.n = d.m + t_rand_u64() % d.m;
      /* padded depths within (k4 << w, 2 k4 << w]: NB 2 NR >> w fits */
      d.k = (k4 << w) + 1 + t_rand_u64() % (k4 << w) / 2;
      char nbo[32];
      snprintf(nbo, sizeof nbo, "-DNB=%zu ", (2 * nr) >> w);
      bool fused = route_built2(&q3, &d, "gemm_packed_cpu.cl", "-DB_FUSED=1",
                                w < 2 ? nbo : NULL);
      if (fused != (w < 2))
        fail_msg("%s %zu x %zu x %zu (local memory for %zu deep at NB %zu): "
                 "%s", dname(dt), d.m, d.n, d.k, k4, 4 * nr,
                 w < 2 ? "not packed by the kernel in the widest NB that fits"
                       : "B packed by the kernel past NR's depth");
    }
  }
}

static void test_small_kernel(void **st) {
  (void)st;
  vncl__gemm_params p;
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &p);
  /* The device's own set, every storage type. */
  small_sweep(p, VNCL_F32, 24);
  small_sweep(p, VNCL_F16, 8);
  small_sweep(p, VNCL_BF16, 8);
  /* Odd tiles: 3 rows, two vectors of 4, 9 rows per work-item, groups of
   * 4; and everything scalar, one row per work-item. */
  vncl__gemm_params q = p;
  q.small = (vncl__gemm_small_params){3, 2, 4, 9, 4};
  small_sweep(q, VNCL_F32, 16);
  q.small = (vncl__gemm_small_params){1, 1, 1, 1, 1};
  small_sweep(q, VNCL_F32, 8);
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE, &p);
  small_sweep(p, VNCL_F64, 16);
  small_streamed(VNCL_F32);
  small_streamed(VNCL_F64);
  /* Tensors: f16/bf16 inputs with C in f32, batched and not. */
  vncl__gemm_params_get(ctx, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE, &q);
  q.small_mnk = q.small_batch_mnk = 1e30;
  set_every_shape(VNCL__GEMM_ACC32, &q);
  tensor_case(VNCL_F16, VNCL_F32, 0, VNCL_NO_TRANS, VNCL_TRANS, 17, 23, 31,
              1.0, 0.0);
  tensor_case(VNCL_BF16, VNCL_F32, 3, VNCL_TRANS, VNCL_NO_TRANS, 9, 33, 5,
              -0.5, 2.0);
  tensor_case(VNCL_F32, VNCL_F32, 4, VNCL_NO_TRANS, VNCL_NO_TRANS, 32, 32, 32,
              1.5, 0.0);
  set_every_shape(VNCL__GEMM_ACC32, NULL);
  /* Sets that break its rules are rejected (where the set routes to it). */
  q.small = (vncl__gemm_small_params){4, 1, 8, 10, 1};
  T_FAILS(ctx, vncl__gemm_params_set(ctx, VNCL__GEMM_ACC32,
                                     VNCL__GEMM_SHAPE_SQUARE, &q),
          VNCL_ERR_INVALID_ARG, "multiple of SM_MR");
  q.small = (vncl__gemm_small_params){4, 1, 3, 8, 1};
  T_FAILS(ctx, vncl__gemm_params_set(ctx, VNCL__GEMM_ACC32,
                                     VNCL__GEMM_SHAPE_SQUARE, &q),
          VNCL_ERR_INVALID_ARG, "SM_VW=3");
}

/* ---- CLBlast ---------------------------------------------------------------- */

/* The backend is VNCL_GEMM_BACKEND read when a context is made; these tests
 * switch the shared context's resolved setting instead (an internal, on
 * purpose: one context for every case keeps the suite fast), and
 * test_backend_env checks the variable itself. */
static void test_clblast_backend(void **st) {
  (void)st;
  ctx->gemm_backend = VNCL__BACKEND_CLBLAST;
  for (int lay = 0; lay < 2; lay++)
    for (int t = 0; t < 4; t++) {
      gcase g = {VNCL_F32, (vncl_layout)lay, (vncl_trans)(t & 1),
                 (vncl_trans)(t >> 1), 33 + t, 65, 17 + 2 * t, 1 + (t == 3),
                 alphas[t], betas[t + lay], (size_t)t, 1, 2, (size_t)lay,
                 false, false};
      run_case(&g);
    }
  gcase d = {VNCL_F64, VNCL_COL_MAJOR, VNCL_TRANS, VNCL_NO_TRANS, 40, 23, 31,
             2, -1.0, 0.0, 0, 3, 1, 1, false, false};
  run_case(&d);
  /* What CLBlast cannot do runs on our kernels: bf16, k == 0. */
  gcase b = {VNCL_BF16, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_TRANS, 30, 40, 50,
             1, 1.0, 0.5, 0, 0, 0, 0, false, false};
  run_case(&b);
  b.k = 0;
  b.dt = VNCL_F32;
  run_case(&b);
  tensor_case(VNCL_F16, VNCL_F32, 2, VNCL_NO_TRANS, VNCL_NO_TRANS, 20, 30, 40,
              1.0, 0.0);
  ctx->gemm_backend = VNCL__BACKEND_OWN;
  run_case(&d);
  ctx->gemm_backend = VNCL__BACKEND_AUTO;
}

/* VNCL_GEMM_BACKEND=ref: the reference kernel alone, every case, k = 0 and
 * alpha = 0 included, 16-bit and f64 storage, C in f32. */
static void test_ref_backend(void **st) {
  (void)st;
  ctx->gemm_backend = VNCL__BACKEND_REF;
  const vncl_dtype dts[4] = {VNCL_F32, VNCL_F64, VNCL_F16, VNCL_BF16};
  for (int t = 0; t < 4; t++) {
    gcase g = {dts[t], (vncl_layout)(t & 1), (vncl_trans)(t & 1),
               (vncl_trans)(t >> 1), 37 + t, 21, 15 + 3 * t, 1 + (t == 2),
               alphas[t], betas[t], (size_t)t, 2, 1, (size_t)(t & 1),
               false, false};
    run_case(&g);
    g.nan_ab = true; /* neither case may read A or B */
    g.k = 0;
    run_case(&g);
    g.k = 9;
    g.alpha = 0;
    run_case(&g);
  }
  tensor_case(VNCL_BF16, VNCL_F32, 2, VNCL_TRANS, VNCL_NO_TRANS, 19, 33, 21,
              -1.0, 0.5);
  ctx->gemm_backend = VNCL__BACKEND_AUTO;
}

/* ---- bad input: an error naming the problem, and nothing written ------------- */

static cl_mem buf_of(size_t floats, float fill) {
  float *h = malloc(floats * sizeof *h);
  for (size_t i = 0; i < floats; i++) h[i] = fill;
  cl_int err;
  cl_mem m = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            floats * sizeof *h, h, &err);
  assert_int_equal(err, CL_SUCCESS);
  free(h);
  return m;
}

static void assert_untouched(cl_mem c, size_t floats, float fill) {
  T_OK(ctx, vncl_finish(ctx));
  float *h = malloc(floats * sizeof *h);
  assert_int_equal(clEnqueueReadBuffer(clq, c, CL_TRUE, 0, floats * sizeof *h,
                                       h, 0, NULL, NULL),
                   CL_SUCCESS);
  for (size_t i = 0; i < floats; i++)
    if (h[i] != fill) fail_msg("C[%zu] was written by a rejected call", i);
  free(h);
}

#define GEMM_ROW(dt, m, n, k, a, lda, b, ldb, c, ldc)                        \
  vncl_gemm_cl(ctx, dt, VNCL_ROW_MAJOR, VNCL_NO_TRANS, VNCL_NO_TRANS, m, n, k, \
               1.0, a, 0, lda, b, 0, ldb, 0.0, c, 0, ldc)

static void test_bad_cl_args(void **st) {
  (void)st;
  const float F = 3.25f;
  cl_mem a = buf_of(64, 1), b = buf_of(64, 1), c = buf_of(64, F);
  T_FAILS(NULL,
          vncl_gemm_cl(NULL, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                       VNCL_NO_TRANS, 8, 8, 8, 1, a, 0, 8, b, 0, 8, 0, c, 0, 8),
          VNCL_ERR_INVALID_ARG, "ctx");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 8, 8, NULL, 8, b, 8, c, 8),
          VNCL_ERR_INVALID_ARG, "buffer a is NULL");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 8, 8, a, 8, NULL, 8, c, 8),
          VNCL_ERR_INVALID_ARG, "buffer b is NULL");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 8, 8, a, 8, b, 8, NULL, 8),
          VNCL_ERR_INVALID_ARG, "buffer c is NULL");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 8, 8, a, 7, b, 8, c, 8),
          VNCL_ERR_INVALID_ARG, "lda=7");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 8, 8, a, 8, b, 7, c, 8),
          VNCL_ERR_INVALID_ARG, "ldb=7");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 8, 8, a, 8, b, 8, c, 5),
          VNCL_ERR_INVALID_ARG, "ldc=5");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 8, 8, a, 9, b, 8, c, 8),
          VNCL_ERR_INVALID_ARG, "buffer a holds 256 bytes");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 9, 8, a, 8, b, 9, c, 9),
          VNCL_ERR_INVALID_ARG, "buffer b holds");
  T_FAILS(ctx,
          vncl_gemm_cl(ctx, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                       VNCL_NO_TRANS, 8, 8, 8, 1, a, 0, 8, b, 0, 8, 0, c, 1, 8),
          VNCL_ERR_INVALID_ARG, "buffer c holds");
  /* Column-major: lda is checked against m. */
  T_FAILS(ctx,
          vncl_gemm_cl(ctx, VNCL_F32, VNCL_COL_MAJOR, VNCL_NO_TRANS,
                       VNCL_NO_TRANS, 8, 4, 4, 1, a, 0, 4, b, 0, 4, 0, c, 0, 8),
          VNCL_ERR_INVALID_ARG, "lda=4");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 8, 8, a, (size_t)1 << 62, b, 8, c, 8),
          VNCL_ERR_INVALID_ARG, "overflows");
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, (size_t)1 << 40, 1, 1, a, 1, b, 1, c, 1),
          VNCL_ERR_INVALID_ARG, "below 2^31");
  T_FAILS(ctx, GEMM_ROW(VNCL_I32, 8, 8, 8, a, 8, b, 8, c, 8),
          VNCL_ERR_UNSUPPORTED, "i32");
  T_FAILS(ctx, GEMM_ROW((vncl_dtype)42, 8, 8, 8, a, 8, b, 8, c, 8),
          VNCL_ERR_INVALID_ARG, "not a dtype");
  T_FAILS(ctx,
          vncl_gemm_cl(ctx, VNCL_F32, (vncl_layout)5, VNCL_NO_TRANS,
                       VNCL_NO_TRANS, 8, 8, 8, 1, a, 0, 8, b, 0, 8, 0, c, 0, 8),
          VNCL_ERR_INVALID_ARG, "layout");
  T_FAILS(ctx,
          vncl_gemm_cl(ctx, VNCL_F32, VNCL_ROW_MAJOR, (vncl_trans)3,
                       VNCL_NO_TRANS, 8, 8, 8, 1, a, 0, 8, b, 0, 8, 0, c, 0, 8),
          VNCL_ERR_INVALID_ARG, "ta 3");
  T_FAILS(ctx,
          vncl_gemm_cl_batched(ctx, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                               VNCL_NO_TRANS, 4, 4, 4, 1, a, 0, 4, 16, b, 0, 4,
                               16, 0, c, 0, 4, 8, 2),
          VNCL_ERR_INVALID_ARG, "overlap");
  T_FAILS(ctx,
          vncl_gemm_cl_batched(ctx, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                               VNCL_NO_TRANS, 4, 4, 4, 1, a, 0, 4, 16, b, 0, 4,
                               16, 0, c, 0, 4, 16, 5),
          VNCL_ERR_INVALID_ARG, "buffer a holds");
  T_FAILS(ctx,
          vncl_gemm_cl_event(ctx, VNCL_F32, VNCL_ROW_MAJOR, VNCL_NO_TRANS,
                             VNCL_NO_TRANS, 4, 4, 4, 1, a, 0, 4, 0, b, 0, 4, 0,
                             0, c, 0, 4, 0, 1, 2, NULL, NULL),
          VNCL_ERR_INVALID_ARG, "wait list");
  /* A buffer of another OpenCL context. */
  cl_device_id dev;
  vncl_context_cl(ctx, NULL, NULL, &dev);
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 256, NULL, &err);
  T_FAILS(ctx, GEMM_ROW(VNCL_F32, 8, 8, 8, foreign, 8, b, 8, c, 8),
          VNCL_ERR_INVALID_ARG, "another OpenCL context");
  clReleaseMemObject(foreign);
  clReleaseContext(other);
  /* f64 on a device without it (simulated). */
  int had = ctx->info.fp64;
  ctx->info.fp64 = 0;
  T_FAILS(ctx, GEMM_ROW(VNCL_F64, 4, 4, 4, a, 4, b, 4, c, 4),
          VNCL_ERR_UNSUPPORTED, "f64");
  ctx->info.fp64 = had;
  /* VNCL_GEMM_BACKEND is read once, when a context is made: a bad value
   * fails there, naming the variable, and a context made before it keeps
   * its backend. */
  setenv("VNCL_GEMM_BACKEND", "fastest", 1);
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  vncl_context *bad = NULL;
  assert_int_equal(vncl_context_create(&bad, &o), VNCL_ERR_INVALID_ARG);
  assert_null(bad);
  assert_non_null(strstr(vncl_errmsg(NULL), "VNCL_GEMM_BACKEND='fastest'"));
  assert_int_equal(ctx->gemm_backend, VNCL__BACKEND_AUTO);
  setenv("VNCL_GEMM_BACKEND", "ref", 1);
  vncl_context *ref = NULL;
  T_OK(NULL, vncl_context_create(&ref, &o));
  assert_int_equal(ref->gemm_backend, VNCL__BACKEND_REF);
  vncl_context_destroy(ref);
  unsetenv("VNCL_GEMM_BACKEND");
  assert_untouched(c, 64, F);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
}

static void test_bad_tensor_args(void **st) {
  (void)st;
  int64_t s44[2] = {4, 4}, s45[2] = {4, 5}, s244[3] = {2, 4, 4},
          s344[3] = {3, 4, 4};
  vncl_tensor *a, *b, *c, *c16, *d64, *i32, *b3, *c3, *c45;
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, s44, &a));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, s45, &b));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, s45, &c));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F16, 2, s45, &c16));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F64, 2, s45, &d64));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_I32, 2, s44, &i32));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 3, s244, &b3));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 3, s344, &c3));
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, s44, &c45));
  float fill[20];
  for (int i = 0; i < 20; i++) fill[i] = 7.5f;
  T_OK(ctx, vncl_tensor_write(c, fill, sizeof fill));
  const vncl_trans N = VNCL_NO_TRANS, T = VNCL_TRANS;
  T_FAILS(NULL, vncl_gemm(NULL, N, N, 1, a, b, 0, c), VNCL_ERR_INVALID_ARG,
          "ctx");
  T_FAILS(ctx, vncl_gemm(ctx, N, N, 1, NULL, b, 0, c), VNCL_ERR_INVALID_ARG,
          "a is NULL");
  T_FAILS(ctx, vncl_gemm(ctx, N, N, 1, a, b, 0, NULL), VNCL_ERR_INVALID_ARG,
          "c is NULL");
  T_FAILS(ctx, vncl_gemm(ctx, N, N, 1, a, d64, 0, c), VNCL_ERR_INVALID_ARG,
          "dtypes differ");
  T_FAILS(ctx, vncl_gemm(ctx, N, N, 1, a, b, 0, c16), VNCL_ERR_INVALID_ARG,
          "c is f16");
  T_FAILS(ctx, vncl_gemm(ctx, N, N, 1, i32, i32, 0, c), VNCL_ERR_UNSUPPORTED,
          "i32");
  T_FAILS(ctx, vncl_gemm(ctx, N, T, 1, a, b, 0, c), VNCL_ERR_INVALID_ARG,
          "inner dimensions differ");
  T_FAILS(ctx, vncl_gemm(ctx, N, N, 1, a, b, 0, c45), VNCL_ERR_INVALID_ARG,
          "c is [4, 4]");
  T_FAILS(ctx, vncl_gemm(ctx, N, N, 1, a, b3, 0, c), VNCL_ERR_INVALID_ARG,
          "all be 2-D or all 3-D");
  T_FAILS(ctx, vncl_gemm(ctx, N, N, 1, b3, b3, 0, c3), VNCL_ERR_INVALID_ARG,
          "batch dimensions differ");
  T_FAILS(ctx, vncl_gemm(ctx, (vncl_trans)9, N, 1, a, b, 0, c),
          VNCL_ERR_INVALID_ARG, "VNCL_NO_TRANS");
  vncl_context *other = t_context(NULL);
  vncl_tensor *ao;
  T_OK(other, vncl_tensor_create(other, VNCL_F32, 2, s44, &ao));
  T_FAILS(ctx, vncl_gemm(ctx, N, N, 1, ao, b, 0, c), VNCL_ERR_INVALID_ARG,
          "another context");
  vncl_tensor_destroy(ao);
  vncl_context_destroy(other);
  float back[20];
  T_OK(ctx, vncl_tensor_read(c, back, sizeof back));
  assert_memory_equal(back, fill, sizeof fill);
  vncl_tensor *ts[] = {a, b, c, c16, d64, i32, b3, c3, c45};
  for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) vncl_tensor_destroy(ts[i]);
}

int main(void) {
  t_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f32_all_layouts),
      cmocka_unit_test(test_f32_edges),
      cmocka_unit_test(test_f32_batched_and_events),
      cmocka_unit_test(test_f64),
      cmocka_unit_test(test_f16_bf16),
      cmocka_unit_test(test_exact_16bit_patterns),
      cmocka_unit_test(test_default_large),
      cmocka_unit_test(test_switch16),
      cmocka_unit_test(test_tensors),
      cmocka_unit_test(test_param_sets),
      cmocka_unit_test(test_small_kernel),
      cmocka_unit_test(test_small_single),
      cmocka_unit_test(test_small_bt_depths),
      cmocka_unit_test(test_small_whole_rows),
      cmocka_unit_test(test_small_rows_by_m),
      cmocka_unit_test(test_small_routing),
      cmocka_unit_test(test_small_group),
      cmocka_unit_test(test_pack_groups),
      cmocka_unit_test(test_packed_swap),
      cmocka_unit_test(test_packed_fused),
      cmocka_unit_test(test_clblast_backend),
      cmocka_unit_test(test_ref_backend),
      cmocka_unit_test(test_bad_cl_args),
      cmocka_unit_test(test_bad_tensor_args),
  };
  t_test_filter();
  return cmocka_run_group_tests(tests, setup, teardown);
}
