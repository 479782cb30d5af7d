/*
 * GEMM: the public entry points (tensors, raw buffers, strided batches,
 * events), every argument check before anything is enqueued, and the
 * dispatch between our kernels and CLBlast.
 *
 * Our path, per product (parameters from gemm_params.c):
 *   k == 0 or alpha == 0     gemm_direct with k = 0: C = beta*C, A and B
 *                            never read
 *   m*n*k at most small_mnk  gemm_small: whole rows of small products per
 *   (small_batch_mnk for     work-item, many products per group (a set
 *   batches)                 that leaves both 0 never takes it; a single
 *                            product with strided B columns only below
 *                            switch_mnk_bt)
 *   m*n*k below the switch   gemm_direct: one launch on the caller's buffers
 *                            (a lower switch when B's columns are strided,
 *                            and for 16-bit storage where switch_mnk16 is)
 *   otherwise                gemm_pack of A (unless the set reads A in place)
 *                            and of B into scratch from the device allocator,
 *                            then gemm_packed_cpu or gemm_packed_local
 *                            (gemm_packed_cpu's blocks big_tall times
 *                            taller and narrower from big_mnk on); on
 *                            gemm_packed_cpu, few rows against a transposed
 *                            B as C^T = B A^T (packed_swap), and B packed
 *                            by the kernel itself where fuse_b says so
 * In auto mode the class's set names the backend; a class that no tuning
 * entry covers, on a GPU, takes the winner of the untuned-device probe
 * (gemm_probe.c: ours against CLBlast, once per device and class).
 * A kernel that cannot be built or launched with its parameters on this
 * device falls back (fast -> direct -> reference), with a warning in the log;
 * so does the packed path when its scratch cannot be allocated.
 *
 * Column-major products are turned into row-major ones (C^T = B^T A^T)
 * before dispatch, so every kernel sees C(i,j) at c[i*ldc + j].
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gemm/gemm.h"

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

/* ---- kernels ------------------------------------------------------------ */

static const char *const kernel_source[VNCL__GEMM_KERNELS] = {
    "gemm_ref.cl", "gemm_direct.cl", "gemm_packed_cpu.cl",
    "gemm_packed_local.cl", "gemm_pack.cl", "gemm_small.cl"};
static const char *const kernel_name[VNCL__GEMM_KERNELS] = {
    "gemm_ref", "gemm_direct", "gemm_packed_cpu", "gemm_packed_local",
    "gemm_pack", "gemm_small"};

/* What decides a GEMM kernel's program and its checks: the kernel, its
 * name, the storage types and the parameters its options are made of. */
static void variant_key(vncl__gemm_kernel kern, const char *name,
                        const vncl__gemm_params *p,
                        const vncl__gemm_problem *pr, vncl__variant_key *key) {
  memset(key, 0, sizeof *key);
  int *v = key->v, n = 0;
  v[n++] = (int)kern + 1;
  v[n++] = (int)pr->ab;
  v[n++] = (int)pr->c;
  switch (kern) {
    case VNCL__GEMM_PACK:
      v[n++] = !strcmp(name, "gemm_pack_elem");
      v[n++] = p->pack_wg0;
      v[n++] = p->pack_wg1;
      break;
    case VNCL__GEMM_DIRECT: {
      const vncl__gemm_direct_params *d = &p->direct;
      int x[] = {d->wgd_m, d->wgd_n, d->ldm, d->ldn, d->kwgd, d->vwd, d->local};
      memcpy(v + n, x, sizeof x);
      break;
    }
    case VNCL__GEMM_PACKED_CPU: {
      const vncl__gemm_cpu_params *q = &p->cpu;
      /* The host's variants (C_TRANS, B_FUSED) are programs of their own. */
      int x[] = {q->mr, q->nr, q->vw, q->mb, q->nb, q->kc, q->ku, q->order,
                 q->a_packed, q->prefetch,
                 (int)pr->c_t | (int)pr->b_fused << 1};
      memcpy(v + n, x, sizeof x);
      break;
    }
    case VNCL__GEMM_PACKED_LOCAL: {
      const vncl__gemm_local_params *l = &p->local;
      int x[] = {l->mwg, l->nwg, l->kwg, l->mdimc, l->ndimc,
                 l->vwm, l->vwn, l->kwi, l->sa,    l->sb};
      memcpy(v + n, x, sizeof x);
      break;
    }
    case VNCL__GEMM_SMALL: {
      const vncl__gemm_small_params *q = &p->small;
      int x[] = {q->mr, q->nv, q->vw, q->rb, q->wg};
      memcpy(v + n, x, sizeof x);
      break;
    }
    default:
      break;
  }
}

/* The kernel for (kern, parameters, types): the parameters validated, the
 * program built (or found), and the compiled kernel checked to take the
 * work-group size they ask for, once: a variant already built and checked
 * on this context is found by its key without formatting options or asking
 * the driver again. */
static vncl_status kernel_get(vncl_context *ctx, vncl__gemm_kernel kern,
                              const char *name, const vncl__gemm_params *p,
                              const vncl__gemm_problem *pr, vncl__kernel *out) {
  vncl__variant_key key;
  variant_key(kern, name, p, pr, &key);
  vncl__program *known =
      vncl__program_find_variant(ctx, kernel_source[kern], &key);
  if (known) return vncl__kernel_from(ctx, known, name, out);
  char why[192];
  if (!vncl__gemm_params_valid(&ctx->info, kern, vncl__gemm_acc_of(pr->ab), p,
                               why, sizeof why))
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "gemm: parameter set rejected on %s: %s",
                      ctx->info.name, why);
  char opts[512];
  vncl__gemm_options(kern, p, pr->ab, pr->c, opts, sizeof opts);
  if (kern == VNCL__GEMM_PACKED_CPU && (pr->c_t || pr->b_fused)) {
    size_t used = strlen(opts);
    snprintf(opts + used, sizeof opts - used, "%s%s",
             pr->c_t ? " -DC_TRANS=1" : "", pr->b_fused ? " -DB_FUSED=1" : "");
  }
  vncl_status s = vncl__kernel_get(ctx, kernel_source[kern], opts, name, out);
  if (s) return s;
  size_t want = vncl__gemm_wg_size(kern, p), kwg;
  if (!vncl__kernel_wg_fits(ctx, out, want, &kwg)) {
    vncl__kernel_put(ctx, out);
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "gemm: %s (%s) allows %zu work-items per group on %s, "
                      "the parameters need %zu",
                      name, opts, kwg, ctx->info.name, want);
  }
  vncl__program_add_variant(ctx, out->prog, &key);
  return VNCL_OK;
}

static double work_bytes(const vncl__gemm_problem *pr) {
  double ab = (double)vncl_dtype_size(pr->ab), c = (double)vncl_dtype_size(pr->c);
  double b = (double)pr->batch;
  return b * (ab * ((double)pr->m * pr->k + (double)pr->k * pr->n) +
              c * (double)pr->m * pr->n * (pr->beta != 0 ? 2 : 1));
}

/* The sizes, offsets and strides of gemm_ref, gemm_direct and gemm_small
 * as their one ulong16 argument (the GEMM_DIMS order of the kernels; s14
 * the batch count, read by gemm_small):
 * PoCL copies every argument of every launch, so fourteen scalars cost
 * more on the host than the product of a small matrix. */
static void gemm_dims(const vncl__gemm_problem *pr, cl_uint k_eff,
                      cl_ulong16 *d) {
  memset(d, 0, sizeof *d);
  const size_t v[15] = {pr->m,    pr->n,    k_eff,     pr->a_off, pr->a_rs,
                        pr->a_cs, pr->a_bs, pr->b_off, pr->b_rs,  pr->b_cs,
                        pr->b_bs, pr->c_off, pr->ldc,  pr->c_bs, pr->batch};
  for (int i = 0; i < 15; i++) d->s[i] = (cl_ulong)v[i];
}

/* gemm_ref or gemm_direct on the caller's buffers (k_eff = k, or 0 for the
 * C = beta*C case). */
static vncl_status run_unpacked(vncl_context *ctx, vncl__gemm_kernel kern,
                                const vncl__gemm_params *p,
                                const vncl__gemm_problem *pr, cl_uint k_eff,
                                double alpha, cl_uint num_wait,
                                const cl_event *wait, cl_event *event) {
  vncl__kernel gk = {0};
  vncl_status s = kernel_get(ctx, kern, kernel_name[kern], p, pr, &gk);
  if (s) return s;
  vncl__targ al = vncl__real_arg(pr->ab, alpha),
             be = vncl__real_arg(pr->ab, pr->beta);
  cl_ulong16 dims;
  gemm_dims(pr, k_eff, &dims);
  s = vncl__set_args(ctx, gk.k, 6, VNCL_TARG(al), VNCL_TARG(be),
                     VNCL_ARG(pr->a), VNCL_ARG(pr->b), VNCL_ARG(pr->cm),
                     VNCL_ARG(dims));
  if (!s) {
    double flops = 2.0 * pr->m * pr->n * k_eff * pr->batch;
    if (kern == VNCL__GEMM_DIRECT) {
      const vncl__gemm_direct_params *d = &p->direct;
      size_t global[3] = {(pr->n + d->wgd_n - 1) / d->wgd_n * d->ldn,
                          (pr->m + d->wgd_m - 1) / d->wgd_m * d->ldm,
                          pr->batch};
      size_t local[3] = {(size_t)d->ldn, (size_t)d->ldm, 1};
      s = vncl__launch_work(ctx, "gemm", gk.k, 3, global, local, num_wait,
                            wait, event, flops, work_bytes(pr));
    } else {
      size_t global[3] = {pr->n, pr->m, pr->batch};
      s = vncl__launch_work(ctx, "gemm", gk.k, 3, global, NULL, num_wait,
                            wait, event, flops, work_bytes(pr));
    }
  }
  vncl__kernel_put(ctx, &gk);
  return s;
}

/* Rows of C per gemm_small work-item: SM_RB in a batch; for a single
 * product fewer (whole SM_MR tiles), so that it takes at least four
 * work-items per compute unit where it has that many tiles of rows. */
static size_t small_rows(const vncl__gemm_params *p, size_t m, size_t batch,
                         size_t cus) {
  size_t mr = (size_t)p->small.mr, rb = (size_t)p->small.rb;
  if (batch > 1) return rb;
  size_t tiles = (m + mr - 1) / mr, per = tiles / (4 * cus);
  size_t rows = (per ? per : 1) * mr;
  return rows < rb ? rows : rb;
}

/* Whether streaming C's stores writes whole cache lines (64 bytes, x86's:
 * the kernel streams only on x86): every row of C a whole number of lines
 * and every row starting on one, so that the aligned vectors the kernel
 * streams cover each line and no ordinary store shares it. A line written
 * partly by non-temporal stores and partly by ordinary ones cost up to 3x:
 * Zen 4 EPYC, 2026-12-03, one process, medians of 15, batches with C
 * streamed / not: f32 10000 x 17^3 0.86x, 1000 x 100^3 0.83x, 5000 x 50^3
 * 0.79x; as AVX2 code 17^3 0.30-0.35x, 50^3 0.58x, 100^3 0.82x. */
static bool stream_whole_lines(const vncl__gemm_problem *pr) {
  const size_t line = 64, es = vncl_dtype_size(pr->c);
  return (pr->n * es) % line == 0 && (pr->ldc * es) % line == 0 &&
         (pr->c_off * es) % line == 0 &&
         (pr->batch <= 1 || (pr->c_bs * es) % line == 0);
}

/* Tile rows for a batch's products of m rows (where small_tile below takes
 * no whole row): each work-item takes SM_RB rows, the last one of a
 * product the rest, in tiles of SM_MR rows, and a tile past the product's
 * last row is computed whole (its rows clamped, not stored). Where that
 * wastes an eighth of m or more, fewer rows a tile that divide m and SM_RB
 * (at least half SM_MR) waste none: m 32 with 6-row tiles computes 36
 * rows. Zen 5 EPYC, 2026-12-04, the
 * same harness, batches of n^3 (10000 up to 32^3, 1000 above), GFLOP/s
 * 6-row / 4-row tiles, two rounds each: f32 8^3 10.0-10.1 / 13.2-13.4,
 * 16^3 86-90 / 91-93, 20^3 93-94 / 96, 32^3 233-246 / 277-282; f64 8^3
 * 21-23 / 27, 16^3 62-65 / 71-72. Where the waste is smaller the set's
 * tile stays: f32 64^3 (3%) 308-332 / 332-333, 100^3 (2%) 173-174 /
 * 169-172, f64 100^3 124-125 / 114-116. */
static void small_rows_tile(vncl__gemm_small_params *q, size_t m) {
  size_t mr = (size_t)q->mr, rb = (size_t)q->rb, rest = m % rb;
  size_t waste = rest ? (rest + mr - 1) / mr * mr - rest : 0;
  if (waste * 8 < m) return;
  for (size_t r = mr - 1; r >= 1 && 2 * r >= mr; r--)
    if (m % r == 0 && rb % r == 0) {
      q->mr = (int)r;
      return;
    }
}

/* The tile of gemm_small for rows of n columns: a row that is a whole
 * number of SM_VW vectors, more than the set's SM_NV and at most 8, is one
 * tile (SM_NV = n / SM_VW), with as many rows as keep the accumulators to
 * half the row's VREGS (at most SM_MR, and dividing SM_RB), so that A's
 * rows are not passed over once per part of the row. Zen 5 EPYC,
 * 2026-12-03, one process, batches of n^3, GFLOP/s of the row's 6 x 2
 * tile / the whole row: f64 32^3 81 / 101 (4 x 4), 40^3 62 / 85 (3 x 5),
 * 48^3 83 / 117 (2 x 6), 56^3 84 / 131 (2 x 7), 64^3 97 / 140 (2 x 8);
 * f32 (6 x 4) 80^3 203 / 288 (3 x 5), 96^3 183 / 221 (2 x 6). Whole rows
 * with all the registers the model allows (6 x 4, 4 x 6) gained less or
 * lost (docs/tuning.md, "f64 batches and gemm_small's tile"). CPU rows
 * only (VREGS set), f32 and f64 storage with B's rows contiguous only:
 * 16-bit storage widens each vector of B it loads (about 20 integer
 * instructions) and a transposed B is gathered, which fewer rows per tile
 * pay more often (f16 96^3 0.40x, 128^3 0.78x; B transposed f32 96^3
 * 0.71x, f64 32^3 0.95x, though 48^3 1.24x). Otherwise, for batches, tile
 * rows by m (small_rows_tile above). */
static void small_tile(vncl__gemm_params *p, const vncl__gemm_problem *pr) {
  vncl__gemm_small_params *q = &p->small;
  size_t n = pr->n;
  /* B transposed under A's contiguous rows: the kernel's dot products,
   * whose sums per row of the tile cost about the same for 2 columns as for
   * 4 (one tree across the vectors). Twice the columns while the
   * accumulators stay within three quarters of VREGS: the AVX-512 f64
   * row's 6 x 2 becomes 6 x 4. Intel Xeon (x86 family 6, model 167),
   * 2026-12-05, one process each, batches with B transposed, GFLOP/s of
   * 6 x 2 / 6 x 4: 10000 x 17^3 21.4 / 24.2, 32^3 32.7 / 38.1, 1000 x
   * 64^3 54.1 / 57.5, 90^3 54.0 / 61.1, 100^3 60.8 / 66.6. The f32 and
   * 16-bit rows' 6 x 4 (24 of 32) and the AVX2 rows' 6 x 2 (12 of 16)
   * stay. Never past the lanes a set may have (VNCL__GEMM_SMALL_MAX_ACC). */
  if (pr->b_cs != 1 && pr->b_rs == 1 && pr->a_cs == 1 && p->vregs > 0 &&
      q->vw > 1 && pr->k >= (size_t)q->vw && q->mr >= 1) {
    while (q->nv < q->vw && 2 * q->mr * q->nv <= p->vregs * 3 / 4 &&
           2 * q->mr * q->nv * q->vw <= VNCL__GEMM_SMALL_MAX_ACC)
      q->nv *= 2;
    return;
  }
  if ((pr->ab != VNCL_F32 && pr->ab != VNCL_F64) || pr->b_cs != 1 ||
      p->vregs <= 0 || q->vw < 1 || q->mr < 1 || q->rb < 1)
    return;
  size_t nv = n / (size_t)q->vw;
  if (n % (size_t)q->vw == 0 && nv > (size_t)q->nv && nv <= 8) {
    int mr = (int)((size_t)p->vregs / 2 / nv);
    if (mr > q->mr) mr = q->mr;
    while (mr > 1 && q->rb % mr) mr--;
    if (mr < 1) return;
    q->nv = (int)nv;
    q->mr = mr;
    return;
  }
  if (pr->batch > 1) small_rows_tile(q, pr->m);
}

/* Work-items per group of a gemm_small launch of `items` work-items: SM_WG
 * where there are enough of them to keep every compute unit busy (or where
 * the device wants the multiple); else one, so that a single small product
 * still spreads. Where SM_WG groups would leave the units unequal shares
 * (the busiest, with ceil(groups / units) whole groups, above 10/9 of an
 * even share), the largest smaller size that does not, one if none. A
 * single product of 512 rows (22 work-items of 24 rows) made three groups
 * of 8 on two cores, so one core did two thirds of the work. Intel Xeon
 * (x86 family 6, model 167), 2026-12-05, one process each, before / after,
 * GFLOP/s: single f32 products with B transposed routed to gemm_small,
 * 416^3 120 / 194, 448^3 129 / 205, 512x256x256 135 / 174, 512x256x128
 * 115 / 151; a batch of 10 x 100^3 (B as stored, the built-in route)
 * 135-136 / 142-154 in three runs. Batches of many products keep SM_WG. */
size_t vncl__gemm_small_group(const vncl__gemm_params *p, size_t items,
                              size_t cus) {
  size_t wg = (size_t)p->small.wg;
  if (p->wg_multiple) return wg;
  if (wg < 1 || items < wg * cus) return 1;
  /* The busiest unit runs ceil(groups / cus) groups: at least 9/10 of
   * the even share. */
  for (; wg > 1; wg--) {
    size_t groups = (items + wg - 1) / wg;
    if (10 * items >= 9 * cus * ((groups + cus - 1) / cus) * wg) break;
  }
  return wg;
}

/* gemm_small on the caller's buffers: ceil(m/rows) work-items per product
 * (small_rows), in groups of vncl__gemm_small_group's size. */
static vncl_status run_small(vncl_context *ctx, const vncl__gemm_params *set,
                             const vncl__gemm_problem *pr, cl_uint num_wait,
                             const cl_event *wait, cl_event *event) {
  vncl__gemm_params tiled = *set;
  const vncl__gemm_params *p = &tiled;
  small_tile(&tiled, pr);
  vncl__kernel gk = {0};
  vncl_status s =
      kernel_get(ctx, VNCL__GEMM_SMALL, kernel_name[VNCL__GEMM_SMALL], p, pr,
                 &gk);
  if (s) return s;
  vncl__targ al = vncl__real_arg(pr->ab, pr->alpha),
             be = vncl__real_arg(pr->ab, pr->beta);
  size_t cus = ctx->info.compute_units ? ctx->info.compute_units : 1;
  size_t rb = small_rows(p, pr->m, pr->batch, cus);
  cl_ulong16 dims;
  gemm_dims(pr, (cl_uint)pr->k, &dims);
  /* Bit 32: C's aligned vectors streamed past the caches (non-temporal
   * stores) where the launch moves at least small_stream_bytes and C's
   * rows are whole cache lines. */
  double bytes = work_bytes(pr);
  bool stream = p->small_stream_bytes > 0 &&
                bytes >= p->small_stream_bytes && stream_whole_lines(pr);
  dims.s[15] = (cl_ulong)rb | (stream ? (cl_ulong)1 << 32 : 0);
  s = vncl__set_args(ctx, gk.k, 6, VNCL_TARG(al), VNCL_TARG(be),
                     VNCL_ARG(pr->a), VNCL_ARG(pr->b), VNCL_ARG(pr->cm),
                     VNCL_ARG(dims));
  if (!s) {
    size_t items = (pr->m + rb - 1) / rb * pr->batch;
    size_t wg = vncl__gemm_small_group(p, items, cus);
    size_t global[1] = {round_up(items, wg)}, local[1] = {wg};
    s = vncl__launch_work(ctx, "gemm", gk.k, 1, global, local, num_wait, wait,
                          event, 2.0 * pr->m * pr->n * pr->k * pr->batch,
                          bytes);
  }
  vncl__kernel_put(ctx, &gk);
  return s;
}

/* gemm_pack's work-groups for g0 x g1 work-items (16 depths of a panel
 * each) and `batch` products on `cus` compute units: the set's pack_wg0 x
 * pack_wg1, the larger side halved while that leaves fewer than eight
 * groups per unit (unless the set wants the device's multiple). The CPU
 * rows' 16 x 16 made the B of a product up to about 384^3 one or two
 * groups, packed by one core while the other waited. Intel Xeon (x86
 * family 6, model 167), 2026-12-05, one process, 16 x 16 and the halved
 * groups alternated (medians of 11-15 samples of 5-10 queued calls),
 * single products with B transposed (the packed route from 1e6), GFLOP/s:
 * f32 256^3 120-135 / 151-161, 384^3 187-199 / 201-205, 512x256x128 161 /
 * 174, f64 256^3 80 / 87; f32 128^3 55-67 / 53-71, and products of
 * 1024^3-2048^3 (16 to 64 groups before) within 2%. Sixteen groups a
 * unit would change those products' groups too, for no measured gain. */
void vncl__gemm_pack_local(const vncl__gemm_params *p, size_t g0, size_t g1,
                           size_t batch, size_t cus, size_t *l0, size_t *l1) {
  *l0 = (size_t)p->pack_wg0;
  *l1 = (size_t)p->pack_wg1;
  if (p->wg_multiple) return;
  if (cus < 1) cus = 1;
  while ((*l0 > 1 || *l1 > 1) &&
         (g0 + *l0 - 1) / *l0 * ((g1 + *l1 - 1) / *l1) * batch < 8 * cus) {
    if (*l1 >= *l0)
      *l1 = (*l1 + 1) / 2;
    else
      *l0 = (*l0 + 1) / 2;
  }
}

/* Enqueues gemm_pack(_elem) of X(r,p) = x[off + g*bs + r*rs + p*cs]
 * (rows x depth) into scratch of panels of pw, depth kp. */
static vncl_status enqueue_pack(vncl_context *ctx, vncl__kernel *pk,
                                const vncl__gemm_params *p, size_t rows,
                                size_t rows_p, size_t depth, size_t kp,
                                size_t pw, size_t batch, cl_mem x, size_t off,
                                size_t rs, size_t cs, size_t bs, cl_mem out,
                                size_t es, cl_uint num_wait,
                                const cl_event *wait, cl_event *ev,
                                double in_bytes) {
  cl_uint r = (cl_uint)rows, d = (cl_uint)depth, dp = (cl_uint)kp,
          w = (cl_uint)pw, panels = (cl_uint)(rows_p / pw);
  cl_ulong o = off, rs_ = rs, cs_ = cs, bs_ = bs, obs = (cl_ulong)rows_p * kp;
  vncl_status s = vncl__set_args(ctx, pk->k, 12, VNCL_ARG(r), VNCL_ARG(d),
                                 VNCL_ARG(dp), VNCL_ARG(w), VNCL_ARG(panels),
                                 VNCL_ARG(x), VNCL_ARG(o), VNCL_ARG(rs_),
                                 VNCL_ARG(cs_), VNCL_ARG(bs_), VNCL_ARG(out),
                                 VNCL_ARG(obs));
  if (s) return s;
  double bytes = in_bytes + (double)rows_p * kp * batch * es; /* scratch */
  if (p->pack_elem) {
    size_t global[3] = {pw, kp, (size_t)panels * batch};
    return vncl__launch_work(ctx, "gemm_pack", pk->k, 3, global, NULL,
                             num_wait, wait, ev, 0, bytes);
  }
  /* gemm_pack: one work-item per 16 depths (PACK_K) of one panel. */
  size_t l0, l1;
  vncl__gemm_pack_local(p, (kp + 15) / 16, panels, batch,
                        ctx->info.compute_units, &l0, &l1);
  size_t global[3] = {round_up((kp + 15) / 16, l0), round_up(panels, l1),
                      batch};
  size_t local[3] = {l0, l1, 1};
  return vncl__launch_work(ctx, "gemm_pack", pk->k, 3, global, local,
                           num_wait, wait, ev, 0, bytes);
}

/* The packed path's geometry under a parameter set: panel widths of A and
 * B, the C block a work-item or group covers, the padded sizes and the
 * scratch they need (A not packed when the CPU kernel reads it in place). */
typedef struct packed_plan {
  vncl__gemm_kernel fk;
  size_t pwa, pwb, bm, bn;
  size_t mp, np, kp, es;
  bool pack_a, fuse_b;
  size_t a_bytes, b_bytes, bl_bytes;
} packed_plan;

/* The kernel can pack B itself at all: its set (KC 0, vectors) and B's
 * layout (rows or columns contiguous). */
static bool fuse_b_can(const vncl__gemm_params *p,
                       const vncl__gemm_problem *pr) {
  return p->fast == VNCL__GEMM_PACKED_CPU && p->cpu.kc == 0 &&
         p->cpu.vw >= 2 && (pr->b_cs == 1 || pr->b_rs == 1);
}

/* Bytes of one packed element of pr's operands (f32 for 16-bit storage). */
static size_t packed_es(const vncl__gemm_problem *pr) {
  return pr->ab == VNCL_F64 ? 8 : 4;
}

/* Whether nb columns of B over the padded depth kp (es bytes a value) fit
 * the half of the device's local memory the kernel's own pack may take. */
static bool fused_b_fits(const vncl_context *ctx, size_t nb, size_t kp,
                         size_t es) {
  return (double)nb * (double)kp * (double)es <=
         (double)ctx->info.local_mem_bytes / 2;
}

/* Whether gemm_packed_cpu packs B itself (B_FUSED) for pr under p: each
 * work-item reads its NB columns of B where the caller keeps them into
 * local memory and runs every row block of C against them, so B is read
 * from memory once and never written to scratch and read back. Needs B
 * as stored (rows contiguous along n) or transposed (columns contiguous
 * in depth: 16 x 16 blocks transposed on the way), the whole depth at
 * once (KC 0) and NB columns of the padded depth within half the device's
 * local memory.
 * Taken where every row of C is one block (m <= MB: the separate pack
 * would be read by that block alone), and past that where the depth is
 * at least half the rows (the pack's share of the product does not
 * shrink with m) and the ceil(n / NB) work-items, now the whole grid,
 * leave the busiest compute unit within 10/9 of an even share. Each
 * work-item then streams all of A, which loses where A is tall against a
 * short depth (f32 8192 x 512 x 512 0.84x, 4096 x 4096 x 256 0.93x) or
 * where three work-items share two cores (4096 x 192 x 1024 0.76x), and
 * gains elsewhere (2048^3 1.10x, 4096^3 1.25x, 256 x 4096 x 4096 1.36x;
 * Intel Xeon, model 167, 2026-12-05: docs/tuning.md, "Few rows against B
 * as stored"). */
static bool fuse_b(const vncl_context *ctx, const vncl__gemm_params *p,
                   const vncl__gemm_problem *pr, size_t kp, size_t es) {
  if (!fuse_b_can(p, pr) || !fused_b_fits(ctx, (size_t)p->cpu.nb, kp, es))
    return false;
  if (pr->m <= (size_t)p->cpu.mb) return true;
  size_t items = (pr->n + (size_t)p->cpu.nb - 1) / (size_t)p->cpu.nb *
                 pr->batch,
         cus = ctx->info.compute_units ? ctx->info.compute_units : 1;
  return 2 * pr->k >= pr->m &&
         10 * items >= 9 * cus * ((items + cus - 1) / cus);
}

/* Where every row of C is one block (m <= MB: fuse_b packs B in the
 * kernel whatever the depth, if it fits), the NB columns of B over the
 * whole depth must fit half the device's local memory; where the row's NB
 * does not, the widest NB / 2^i (a whole number of NR slivers) that does,
 * instead of the separate pack. 0: no fused B either way (or the row's NB
 * fits as it is). As AVX2 code on a Zen 4 EPYC (1 MiB of local memory
 * under PoCL), 2026-12-07, f32, B as stored, the row's NB 64 (separate
 * pack at 4096 deep) against 32 (fused), GFLOP/s: 32 x 4096 x 4096 79 /
 * 111, 128 x 4096 x 4096 135 / 151, 8 x 4096 x 4096 27 / 47; at 1024 to
 * 2000 deep, where 64 fits, 64 ran 1.05-1.2x faster than 32 (hence the
 * row's NB first; docs/tuning.md, "Few rows against B as stored"). */
static size_t fused_nb(const vncl_context *ctx, const vncl__gemm_params *p,
                       const vncl__gemm_problem *pr) {
  if (!fuse_b_can(p, pr) || pr->m > (size_t)p->cpu.mb || p->cpu.ku < 1 ||
      p->cpu.nr < 1)
    return 0;
  size_t kp = round_up(pr->k, (size_t)p->cpu.ku), es = packed_es(pr),
         nb = (size_t)p->cpu.nb, nr = (size_t)p->cpu.nr;
  while (!fused_b_fits(ctx, nb, kp, es) && nb / 2 >= nr && (nb / 2) % nr == 0)
    nb /= 2;
  return fused_b_fits(ctx, nb, kp, es) ? nb : 0;
}

static vncl_status plan_packed(vncl_context *ctx, const vncl__gemm_params *p,
                               const vncl__gemm_problem *pr, packed_plan *pl) {
  memset(pl, 0, sizeof *pl);
  pl->fk = (vncl__gemm_kernel)p->fast;
  size_t ku;
  pl->pack_a = true;
  if (pl->fk == VNCL__GEMM_PACKED_CPU) {
    pl->pwa = (size_t)p->cpu.mr;
    pl->pwb = (size_t)p->cpu.nr;
    pl->bm = (size_t)p->cpu.mb;
    pl->bn = (size_t)p->cpu.nb;
    ku = (size_t)p->cpu.ku;
    pl->pack_a = p->cpu.a_packed != 0;
  } else {
    pl->pwa = pl->bm = (size_t)p->local.mwg;
    pl->pwb = pl->bn = (size_t)p->local.nwg;
    ku = (size_t)p->local.kwg;
  }
  pl->mp = round_up(pr->m, pl->bm);
  pl->np = round_up(pr->n, pl->bn);
  pl->kp = round_up(pr->k, ku);
  pl->es = packed_es(pr);
  size_t a_elems = 0, b_elems = 0;
  if (pl->kp > UINT_MAX || pl->mp > UINT_MAX || pl->np > UINT_MAX ||
      (pl->pack_a && (!vncl__mul_overflow(pl->mp, pl->kp, &a_elems) ||
                      !vncl__mul_overflow(a_elems, pr->batch, &pl->a_bytes) ||
                      !vncl__mul_overflow(pl->a_bytes, pl->es, &pl->a_bytes))) ||
      !vncl__mul_overflow(pl->np, pl->kp, &b_elems) ||
      !vncl__mul_overflow(b_elems, pr->batch, &pl->b_bytes) ||
      !vncl__mul_overflow(pl->b_bytes, pl->es, &pl->b_bytes))
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                      "gemm: packing scratch for %zu x %zu x %zu (batch %zu) "
                      "overflows",
                      pr->m, pr->n, pr->k, pr->batch);
  pl->fuse_b = fuse_b(ctx, p, pr, pl->kp, pl->es);
  if (pl->fuse_b) {
    pl->b_bytes = 0;
    pl->bl_bytes = pl->bn * pl->kp * pl->es;
  }
  return VNCL_OK;
}

/* The fast kernel on the packed scratch (sa: packed A, or NULL when A is
 * read in place; sb: packed B), after the packs (deps). */
static vncl_status launch_packed(vncl_context *ctx, const vncl__gemm_params *p,
                                 const vncl__gemm_problem *pr,
                                 const packed_plan *pl, vncl__kernel *gk,
                                 cl_mem sa, cl_mem sb, cl_uint ndeps,
                                 const cl_event *deps, cl_event *event) {
  cl_uint m = (cl_uint)pr->m, n = (cl_uint)pr->n, k = (cl_uint)pr->k,
          kpu = (cl_uint)pl->kp;
  vncl__targ al = vncl__real_arg(pr->ab, pr->alpha),
             be = vncl__real_arg(pr->ab, pr->beta);
  bool pa = pl->pack_a;
  cl_mem a = pa ? sa : pr->a;
  cl_ulong a_off = pa ? 0 : pr->a_off, a_rs = pa ? 0 : pr->a_rs,
           a_cs = pa ? 0 : pr->a_cs,
           a_bs = pa ? (cl_ulong)pl->mp * pl->kp : pr->a_bs;
  cl_ulong b_bs = (cl_ulong)pl->np * pl->kp, c_off = pr->c_off, ldc = pr->ldc,
           c_bs = pr->c_bs;
  cl_ulong b_off = pr->b_off, b_rs = pr->b_rs, b_cs = pr->b_cs,
           ub_bs = pr->b_bs;
  vncl_status s =
      pl->fuse_b
          ? vncl__set_args(ctx, gk->k, 21, VNCL_ARG(m), VNCL_ARG(n),
                           VNCL_ARG(k), VNCL_ARG(kpu), VNCL_TARG(al),
                           VNCL_TARG(be), VNCL_ARG(a), VNCL_ARG(a_off),
                           VNCL_ARG(a_rs), VNCL_ARG(a_cs), VNCL_ARG(a_bs),
                           VNCL_ARG(pr->b), VNCL_ARG(b_off), VNCL_ARG(b_rs),
                           VNCL_ARG(b_cs), VNCL_ARG(ub_bs), pl->bl_bytes,
                           (const void *)NULL,
                           VNCL_ARG(pr->cm), VNCL_ARG(c_off), VNCL_ARG(ldc),
                           VNCL_ARG(c_bs))
          : vncl__set_args(ctx, gk->k, 17, VNCL_ARG(m), VNCL_ARG(n),
                           VNCL_ARG(k), VNCL_ARG(kpu), VNCL_TARG(al),
                           VNCL_TARG(be), VNCL_ARG(a), VNCL_ARG(a_off),
                           VNCL_ARG(a_rs), VNCL_ARG(a_cs), VNCL_ARG(a_bs),
                           VNCL_ARG(sb), VNCL_ARG(b_bs), VNCL_ARG(pr->cm),
                           VNCL_ARG(c_off), VNCL_ARG(ldc), VNCL_ARG(c_bs));
  if (s) return s;
  size_t global[3], local[3];
  if (pl->fk == VNCL__GEMM_PACKED_CPU) {
    global[0] = pl->np / pl->bn;
    global[1] = pl->fuse_b ? 1 : pl->mp / pl->bm;
    local[0] = local[1] = 1;
  } else {
    global[0] = pl->np / pl->bn * (size_t)p->local.ndimc;
    global[1] = pl->mp / pl->bm * (size_t)p->local.mdimc;
    local[0] = (size_t)p->local.ndimc;
    local[1] = (size_t)p->local.mdimc;
  }
  global[2] = pr->batch;
  local[2] = 1;
  return vncl__launch_work(ctx, "gemm", gk->k, 3, global, local, ndeps, deps,
                           event, 2.0 * pr->m * pr->n * pr->k * pr->batch,
                           work_bytes(pr));
}

/* Pack + fast kernel. */
static vncl_status run_packed(vncl_context *ctx, const vncl__gemm_params *p,
                              const vncl__gemm_problem *pr, cl_uint num_wait,
                              const cl_event *wait, cl_event *event) {
  /* A_PACKED=2: A in place where its rows are contiguous in depth (one
   * vector load per row and KU depths), packed where they are strided
   * (transposed A read in place ran at 0.4-0.55x on PoCL: one scalar load
   * per element, lda apart). The kernels see 0 or 1. */
  vncl__gemm_params q;
  if (p->fast == VNCL__GEMM_PACKED_CPU && p->cpu.a_packed == 2) {
    q = *p;
    q.cpu.a_packed = pr->a_cs == 1 ? 0 : 1;
    p = &q;
  }
  size_t nb = fused_nb(ctx, p, pr);
  if (nb && nb != (size_t)p->cpu.nb) {
    if (p != &q) q = *p;
    q.cpu.nb = (int)nb;
    p = &q;
  }
  packed_plan pl;
  vncl_status s = plan_packed(ctx, p, pr, &pl);
  if (s) return s;
  vncl__gemm_problem fused;
  if (pl.fuse_b) {
    fused = *pr;
    fused.b_fused = true;
    pr = &fused;
  }
  /* Kernels first (a build failure must not leave anything enqueued). */
  vncl__kernel pk = {0}, gk = {0};
  s = kernel_get(ctx, VNCL__GEMM_PACK,
                 p->pack_elem ? "gemm_pack_elem" : "gemm_pack", p, pr, &pk);
  if (s) return s;
  s = kernel_get(ctx, pl.fk, kernel_name[pl.fk], p, pr, &gk);
  if (s) {
    vncl__kernel_put(ctx, &pk);
    return s;
  }
  cl_mem sa = NULL, sb = NULL;
  if (pl.pack_a) s = vncl__buffer_alloc_scratch(ctx, pl.a_bytes, &sa);
  if (!s && !pl.fuse_b) s = vncl__buffer_alloc_scratch(ctx, pl.b_bytes, &sb);

  cl_event deps[2] = {NULL, NULL};
  cl_uint ndeps = 0;
  double abytes = (double)vncl_dtype_size(pr->ab) * pr->batch;
  if (!s && pl.pack_a)
    s = enqueue_pack(ctx, &pk, p, pr->m, pl.mp, pr->k, pl.kp, pl.pwa,
                     pr->batch, pr->a, pr->a_off, pr->a_rs, pr->a_cs,
                     pr->a_bs, sa, pl.es, num_wait, wait, &deps[ndeps++],
                     abytes * pr->m * pr->k);
  /* B(p,j) as X(r=j, p): rows n, strides swapped. */
  if (!s && !pl.fuse_b)
    s = enqueue_pack(ctx, &pk, p, pr->n, pl.np, pr->k, pl.kp, pl.pwb,
                     pr->batch, pr->b, pr->b_off, pr->b_cs, pr->b_rs,
                     pr->b_bs, sb, pl.es, num_wait, wait, &deps[ndeps++],
                     abytes * pr->k * pr->n);
  /* The kernel waits for the packs, which waited for the caller's list;
   * with no pack at all (A read in place, B packed by the kernel) it
   * waits for the caller's list itself. */
  if (!s)
    s = launch_packed(ctx, p, pr, &pl, &gk, sa, sb, ndeps ? ndeps : num_wait,
                      ndeps ? deps : wait, event);
  for (cl_uint i = 0; i < ndeps; i++)
    if (deps[i]) clReleaseEvent(deps[i]);
  /* Safe while the kernels run: see vncl__buffer_free. */
  if (sa) vncl__buffer_free(ctx, sa, pl.a_bytes);
  if (sb) vncl__buffer_free(ctx, sb, pl.b_bytes);
  vncl__kernel_put(ctx, &pk);
  vncl__kernel_put(ctx, &gk);
  return s;
}

/* m*n*k from which a single product takes the packed path: switch_mnk, or
 * switch_mnk_bt where B's columns are strided; for 16-bit storage the
 * lower of that and switch_mnk16 (the direct kernel widens each vector of
 * B once per tile of rows, the pack once in all). */
static double packed_from(const vncl__gemm_params *p,
                          const vncl__gemm_problem *pr) {
  double sw = pr->b_cs == 1 ? p->switch_mnk : p->switch_mnk_bt;
  if ((pr->ab == VNCL_F16 || pr->ab == VNCL_BF16) && p->switch_mnk16 < sw)
    sw = p->switch_mnk16;
  return sw;
}

/* C = A B^T with B's rows along the depth (a layer's `x W^T`) and few rows
 * of A against many of B, on the packed route: as C^T = B A^T, so that the
 * pack copies A (m x k) rather than B (n x k), and B is read in place as
 * the kernel's A (its rows are contiguous in depth: one vector load per
 * row and KU depths). gemm_packed_cpu then stores its tiles transposed
 * (C_TRANS). Packing B cost as much as the product where m is small: f32
 * 128 x 4096 x 4096 spent 15.9 ms of 44 in the pack of B, 32 x 1024 x
 * 1024 326 us of 676 (Intel Xeon, model 167, 2026-12-05; docs/tuning.md,
 * "Few rows against a transposed B"). Taken where B has at least twice
 * A's rows and the depth is at least twice them (n >= 2m, k >= 2m: with
 * a shorter depth the transposed stores cost what the pack saved); the
 * swapped product runs with its own shape class's set (the one for n x m
 * x k), and only where both sets use the CPU kernel. Fills sw and ps and
 * returns true when the swap applies. */
static bool packed_swap(vncl_context *ctx, const vncl__gemm_problem *pr,
                        const vncl__gemm_params *p, vncl__gemm_problem *sw,
                        vncl__gemm_params *ps) {
  if (p->fast != VNCL__GEMM_PACKED_CPU || pr->c_t || pr->b_rs != 1 ||
      pr->b_cs == 1 || pr->a_cs != 1 || pr->n < 2 * pr->m ||
      pr->k < 2 * pr->m)
    return false;
  vncl__gemm_params_get(ctx, vncl__gemm_acc_of(pr->ab),
                        vncl__gemm_shape_of(pr->n, pr->m, pr->k), ps);
  if (ps->fast != VNCL__GEMM_PACKED_CPU) return false;
  *sw = *pr;
  sw->m = pr->n;
  sw->n = pr->m;
  /* A'(i, p) = B(p, i); B'(p, j) = A(j, p); C'(i, j) = C(j, i). */
  sw->a = pr->b;
  sw->a_off = pr->b_off;
  sw->a_rs = pr->b_cs;
  sw->a_cs = pr->b_rs;
  sw->a_bs = pr->b_bs;
  sw->b = pr->a;
  sw->b_off = pr->a_off;
  sw->b_rs = pr->a_cs;
  sw->b_cs = pr->a_rs;
  sw->b_bs = pr->a_bs;
  sw->c_t = true;
  return true;
}

/* Our kernels, with the fallback chain for parameter sets or kernels this
 * device cannot take. */
static vncl_status run_own(vncl_context *ctx, const vncl__gemm_problem *pr,
                           const vncl__gemm_params *p, cl_uint num_wait,
                           const cl_event *wait, cl_event *event) {
  vncl_status s;
  if (pr->k == 0 || pr->alpha == 0) {
    /* C = beta*C; A and B are not read (so NaN there cannot leak). */
    s = run_unpacked(ctx, VNCL__GEMM_DIRECT, p, pr, 0, 0.0, num_wait, wait,
                     event);
    if (s == VNCL_ERR_BUILD || s == VNCL_ERR_UNSUPPORTED)
      s = run_unpacked(ctx, VNCL__GEMM_REF, p, pr, 0, 0.0, num_wait, wait,
                       event);
    return s;
  }
  double mnk = (double)pr->m * (double)pr->n * (double)pr->k;
  /* A single product with strided B columns takes gemm_small only below
   * switch_mnk_bt, a batch's products only up to small_batch_mnk_bt:
   * gemm_small gathers B element by element, as gemm_direct does, and
   * from there on packing B wins. */
  bool small = pr->batch > 1
                   ? mnk <= p->small_batch_mnk &&
                         (pr->b_cs == 1 || mnk <= p->small_batch_mnk_bt)
                   : mnk <= p->small_mnk &&
                         (pr->b_cs == 1 || mnk < p->switch_mnk_bt);
  if (small) {
    s = run_small(ctx, p, pr, num_wait, wait, event);
    if (s != VNCL_ERR_BUILD && s != VNCL_ERR_UNSUPPORTED) return s;
    vncl__log(VNCL_LOG_WARN, "gemm: small kernel unavailable (%s); using the "
              "direct kernel", vncl_errmsg(ctx));
  } else if (mnk >= packed_from(p, pr)) {
    vncl__gemm_params big, swp;
    vncl__gemm_problem swpr;
    const vncl__gemm_params *pp = p;
    const vncl__gemm_problem *ppr = pr;
    if (packed_swap(ctx, pr, p, &swpr, &swp)) {
      /* So few rows that the swapped kernel's B' (A^T, m columns) would
       * fill under a quarter of its NR lanes: gemm_small's dot products,
       * which read each row of B once per block of rows. */
      if (pr->batch == 1 && 4 * pr->m <= (size_t)swp.cpu.nr) {
        s = run_small(ctx, p, pr, num_wait, wait, event);
        if (s != VNCL_ERR_BUILD && s != VNCL_ERR_UNSUPPORTED) return s;
      }
      pp = &swp;
      ppr = &swpr;
    }
    if (mnk >= pp->big_mnk && pp->fast == VNCL__GEMM_PACKED_CPU) {
      vncl__gemm_params_big(pp, &big);
      pp = &big;
    }
    s = run_packed(ctx, pp, ppr, num_wait, wait, event);
    /* No scratch (out of memory) or no packed kernel on this device: the
     * direct kernel needs neither. */
    if (s != VNCL_ERR_BUILD && s != VNCL_ERR_UNSUPPORTED &&
        s != VNCL_ERR_OUT_OF_MEMORY)
      return s;
    vncl__log(VNCL_LOG_WARN, "gemm: packed path unavailable (%s); using the "
              "direct kernel", vncl_errmsg(ctx));
  }
  s = run_unpacked(ctx, VNCL__GEMM_DIRECT, p, pr, (cl_uint)pr->k, pr->alpha,
                   num_wait, wait, event);
  if (s != VNCL_ERR_BUILD && s != VNCL_ERR_UNSUPPORTED) return s;
  vncl__log(VNCL_LOG_WARN, "gemm: direct kernel unavailable (%s); using the "
            "reference kernel", vncl_errmsg(ctx));
  return run_unpacked(ctx, VNCL__GEMM_REF, p, pr, (cl_uint)pr->k, pr->alpha,
                      num_wait, wait, event);
}

vncl_status vncl__gemm_run_backend(vncl_context *ctx, int backend,
                                   const vncl__gemm_problem *pr,
                                   const vncl__gemm_blas_args *ba,
                                   const vncl__gemm_params *p) {
  if (backend == VNCL__GEMM_CLBLAST)
    return vncl__gemm_clblast(ctx, pr, ba, 0, NULL, NULL);
  return run_own(ctx, pr, p, 0, NULL, NULL);
}

/* After the checks: choose the backend and run. */
static vncl_status dispatch(vncl_context *ctx,
                            const vncl__gemm_problem *pr,
                            const vncl__gemm_blas_args *ba, cl_uint num_wait,
                            const cl_event *wait, cl_event *event) {
  int mode = ctx->gemm_backend; /* VNCL_GEMM_BACKEND, read at creation */
  if (pr->m == 0 || pr->n == 0 || pr->batch == 0) {
    if (!event) return VNCL_OK;
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, num_wait,
                                             num_wait ? wait : NULL, event);
    return err ? vncl__cl_fail(ctx, err, "clEnqueueMarkerWithWaitList")
               : VNCL_OK;
  }
  vncl__gemm_params p;
  vncl__gemm_params_get(ctx, vncl__gemm_acc_of(pr->ab),
                        vncl__gemm_shape_of(pr->m, pr->n, pr->k), &p);
  if (mode == VNCL__BACKEND_REF)
    return run_unpacked(ctx, VNCL__GEMM_REF, &p, pr,
                        pr->alpha == 0 ? 0 : (cl_uint)pr->k,
                        pr->k == 0 ? 0.0 : pr->alpha, num_wait, wait, event);
  bool clblast = mode == VNCL__BACKEND_CLBLAST ||
                 (mode == VNCL__BACKEND_AUTO && p.backend == VNCL__GEMM_CLBLAST);
  /* An untuned class on a device that is probed (not CPUs, unless forced):
   * the faster of our built-in set and CLBlast (gemm_probe.c). */
  if (ctx->gemm_probe && mode == VNCL__BACKEND_AUTO && !clblast && pr->k > 0 &&
      pr->alpha != 0 && vncl__gemm_clblast_can(ctx, pr)) {
    vncl__gemm_acc acc = vncl__gemm_acc_of(pr->ab);
    vncl__gemm_shape shape = vncl__gemm_shape_of(pr->m, pr->n, pr->k);
    if (!vncl__gemm_params_installed(ctx, acc, shape))
      clblast = vncl__gemm_probe_backend(ctx, acc, shape, &p) ==
                VNCL__GEMM_CLBLAST;
  }
  /* CLBlast does not take k == 0 (and would read A and B for alpha == 0). */
  if (clblast && pr->k > 0 && pr->alpha != 0 &&
      vncl__gemm_clblast_can(ctx, pr))
    return vncl__gemm_clblast(ctx, pr, ba, num_wait, wait, event);
  return run_own(ctx, pr, &p, num_wait, wait, event);
}

/* ---- argument checks ------------------------------------------------------ */

static bool add_ok(size_t a, size_t b, size_t *out) {
  if (a > SIZE_MAX - b) return false;
  *out = a + b;
  return true;
}

/* Index one past the last element of a batch of matrices stored with
 * `outer` rows of `inner` elements, ld apart: offset + (batch-1)*stride +
 * (outer-1)*ld + inner. 0 elements needed when the matrix is empty. */
static bool extent(size_t off, size_t outer, size_t inner, size_t ld,
                   size_t stride, size_t batch, size_t *out) {
  if (outer == 0 || inner == 0 || batch == 0) {
    *out = 0;
    return true;
  }
  size_t a, b, e;
  if (!vncl__mul_overflow(outer - 1, ld, &a)) return false;
  if (!vncl__mul_overflow(batch - 1, stride, &b)) return false;
  return add_ok(a, b, &e) && add_ok(e, inner, &e) && add_ok(e, off, out);
}

/* One operand of vncl_gemm_cl*: NULL, wrong context, ld, size. */
static vncl_status check_operand(vncl_context *ctx, const char *fn,
                                 const char *name, cl_mem buf, size_t off,
                                 size_t outer, size_t inner, size_t ld,
                                 const char *ldname, size_t stride,
                                 size_t batch, size_t es) {
  if (!buf)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: buffer %s is NULL", fn,
                      name);
  vncl_status s = vncl__gemm_check_ld(ctx, fn, ldname, ld, inner);
  if (s) return s;
  cl_context bctx = NULL;
  size_t size = 0;
  cl_int err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof bctx, &bctx,
                                  NULL);
  if (!err)
    err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL);
  if (err)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: buffer %s is not a valid cl_mem (%s, %d)", fn, name,
                      vncl__cl_error_name(err), (int)err);
  if (bctx != ctx->cl_ctx)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: buffer %s belongs to another OpenCL context", fn,
                      name);
  size_t elems, bytes;
  if (!extent(off, outer, inner, ld, stride, batch, &elems) ||
      !vncl__mul_overflow(elems, es, &bytes))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: the extent of %s (offset %zu, %zu x %zu, %s %zu, "
                      "batch %zu) overflows",
                      fn, name, off, outer, inner, ldname, ld, batch);
  if (bytes > size)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: buffer %s holds %zu bytes, the offset, %s and "
                      "sizes need %zu",
                      fn, name, size, ldname, bytes);
  return VNCL_OK;
}

vncl_status vncl__gemm_check_dtype(vncl_context *ctx, const char *fn,
                                   const char *what, vncl_dtype dt) {
  if (dt == VNCL_I32)
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "%s: %s is i32; GEMM takes f32, f64, f16 or bf16", fn,
                      what);
  if (dt != VNCL_F32 && dt != VNCL_F64 && dt != VNCL_F16 && dt != VNCL_BF16)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s %d is not a dtype",
                      fn, what, (int)dt);
  return VNCL_OK;
}

/* The dtype check with this context's device. */
static vncl_status check_dtype(vncl_context *ctx, const char *fn,
                               const char *what, vncl_dtype dt) {
  vncl_status s = vncl__gemm_check_dtype(ctx, fn, what, dt);
  if (s) return s;
  if (dt == VNCL_F64 && !ctx->info.fp64)
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "%s: f64 needs double precision, which %s lacks", fn,
                      ctx->info.name);
  return VNCL_OK;
}

static bool is_trans(vncl_trans t) {
  return t == VNCL_NO_TRANS || t == VNCL_TRANS;
}

vncl_status vncl__gemm_check_form(vncl_context *ctx, const char *fn,
                                  const vncl__gemm_args *g) {
  if (g->layout != VNCL_ROW_MAJOR && g->layout != VNCL_COL_MAJOR)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: layout %d is neither "
                      "VNCL_ROW_MAJOR nor VNCL_COL_MAJOR", fn, (int)g->layout);
  if (!is_trans(g->ta) || !is_trans(g->tb))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: %s %d is neither VNCL_NO_TRANS nor VNCL_TRANS", fn,
                      !is_trans(g->ta) ? "ta" : "tb",
                      !is_trans(g->ta) ? (int)g->ta : (int)g->tb);
  if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: m=%zu, n=%zu, k=%zu: each must be below 2^31", fn,
                      g->m, g->n, g->k);
  return VNCL_OK;
}

void vncl__gemm_stored(const vncl__gemm_args *g, char which, size_t *outer,
                       size_t *inner) {
  size_t r, c; /* rows and columns of the stored matrix, row-major view */
  if (which == 'a') {
    r = g->ta == VNCL_NO_TRANS ? g->m : g->k;
    c = g->ta == VNCL_NO_TRANS ? g->k : g->m;
  } else if (which == 'b') {
    r = g->tb == VNCL_NO_TRANS ? g->k : g->n;
    c = g->tb == VNCL_NO_TRANS ? g->n : g->k;
  } else {
    r = g->m;
    c = g->n;
  }
  bool row = g->layout == VNCL_ROW_MAJOR;
  *outer = row ? r : c;
  *inner = row ? c : r;
}

vncl_status vncl__gemm_check_ld(vncl_context *ctx, const char *fn,
                                const char *ldname, size_t ld, size_t inner) {
  size_t min_ld = inner ? inner : 1;
  if (ld < min_ld)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: %s=%zu is below its minimum %zu", fn, ldname, ld,
                      min_ld);
  return VNCL_OK;
}

vncl_status vncl__gemm_check_c_overlap(vncl_context *ctx, const char *fn,
                                       const vncl__gemm_args *g) {
  if (g->batch <= 1 || g->m == 0 || g->n == 0) return VNCL_OK;
  size_t outer, inner, one = SIZE_MAX;
  vncl__gemm_stored(g, 'c', &outer, &inner);
  /* outer - 1 < 2^31 and ldc was checked against the buffer's size. */
  if (!extent(0, outer, inner, g->ldc, 0, 1, &one) || g->stride_c < one)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: stride_c=%zu makes the %zu matrices of C "
                      "overlap (one spans %zu elements)",
                      fn, g->stride_c, g->batch, one);
  return VNCL_OK;
}

/* Strides of the operands in the row-major kernel form, from the caller's
 * layout, transposes and leading dimensions; col-major is swapped into
 * C^T = B^T A^T. */
static void make_problem(vncl_dtype ab, vncl_dtype cdt, vncl_layout layout,
                         vncl_trans ta, vncl_trans tb, size_t m, size_t n,
                         size_t k, double alpha, double beta, cl_mem a,
                         size_t a_off, size_t lda, size_t sa, cl_mem b,
                         size_t b_off, size_t ldb, size_t sb, cl_mem c,
                         size_t c_off, size_t ldc, size_t sc, size_t batch,
                         vncl__gemm_problem *pr) {
  memset(pr, 0, sizeof *pr);
  pr->ab = ab;
  pr->c = cdt;
  pr->k = k;
  pr->batch = batch;
  pr->alpha = alpha;
  pr->beta = beta;
  pr->cm = c;
  pr->c_off = c_off;
  pr->ldc = ldc;
  pr->c_bs = sc;
  bool row = layout == VNCL_ROW_MAJOR;
  /* A(i,p) and B(p,j) strides in the caller's own layout. */
  size_t a_rs, a_cs, b_rs, b_cs;
  if (row == (ta == VNCL_NO_TRANS)) {
    a_rs = lda;
    a_cs = 1;
  } else {
    a_rs = 1;
    a_cs = lda;
  }
  if (row == (tb == VNCL_NO_TRANS)) {
    b_rs = ldb;
    b_cs = 1;
  } else {
    b_rs = 1;
    b_cs = ldb;
  }
  if (row) {
    pr->m = m;
    pr->n = n;
    pr->a = a;
    pr->a_off = a_off;
    pr->a_rs = a_rs;
    pr->a_cs = a_cs;
    pr->a_bs = sa;
    pr->b = b;
    pr->b_off = b_off;
    pr->b_rs = b_rs;
    pr->b_cs = b_cs;
    pr->b_bs = sb;
  } else {
    /* C^T (n x m, row-major with ldc) = B^T A^T. */
    pr->m = n;
    pr->n = m;
    pr->a = b;
    pr->a_off = b_off;
    pr->a_rs = b_cs;
    pr->a_cs = b_rs;
    pr->a_bs = sb;
    pr->b = a;
    pr->b_off = a_off;
    pr->b_rs = a_cs;
    pr->b_cs = a_rs;
    pr->b_bs = sa;
  }
}

vncl_status vncl_gemm_cl_event(
    vncl_context *ctx, vncl_dtype dtype, vncl_layout layout, vncl_trans ta,
    vncl_trans tb, size_t m, size_t n, size_t k, double alpha, cl_mem a,
    size_t a_offset, size_t lda, size_t stride_a, cl_mem b, size_t b_offset,
    size_t ldb, size_t stride_b, double beta, cl_mem c, size_t c_offset,
    size_t ldc, size_t stride_c, size_t batch, cl_uint num_wait,
    const cl_event *wait_list, cl_event *event) {
  const char *fn = "vncl_gemm_cl";
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
  const vncl__gemm_args g = {.dtype = dtype, .layout = layout, .ta = ta,
                             .tb = tb, .m = m, .n = n, .k = k, .batch = batch,
                             .lda = lda, .ldb = ldb, .ldc = ldc,
                             .stride_a = stride_a, .stride_b = stride_b,
                             .stride_c = stride_c};
  vncl_status s = check_dtype(ctx, fn, "dtype", dtype);
  if (!s) s = vncl__gemm_check_form(ctx, fn, &g);
  if (s) return s;
  if (num_wait > 0 && !wait_list)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: num_wait=%u with a NULL wait list", fn, num_wait);
  if (num_wait == 0 && wait_list)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: a wait list with num_wait=0", fn);
  /* Stored shapes: rows ("outer") of `inner` elements, ld apart. */
  size_t es = vncl_dtype_size(dtype), ao, ai, bo, bi, co, ci;
  vncl__gemm_stored(&g, 'a', &ao, &ai);
  vncl__gemm_stored(&g, 'b', &bo, &bi);
  vncl__gemm_stored(&g, 'c', &co, &ci);
  s = check_operand(ctx, fn, "a", a, a_offset, ao, ai, lda, "lda", stride_a,
                    batch, es);
  if (!s)
    s = check_operand(ctx, fn, "b", b, b_offset, bo, bi, ldb, "ldb", stride_b,
                      batch, es);
  if (!s)
    s = check_operand(ctx, fn, "c", c, c_offset, co, ci, ldc, "ldc", stride_c,
                      batch, es);
  if (!s) s = vncl__gemm_check_c_overlap(ctx, fn, &g);
  if (!s) s = vncl__serial_wait_check(ctx, fn, num_wait, wait_list);
  if (s) return s;
  vncl__gemm_problem pr;
  make_problem(dtype, dtype, layout, ta, tb, m, n, k, alpha, beta, a,
               a_offset, lda, stride_a, b, b_offset, ldb, stride_b, c,
               c_offset, ldc, stride_c, batch, &pr);
  vncl__gemm_blas_args ba = {layout,   ta,       tb,       m,        n,
                             a,        b,        lda,      ldb,      a_offset,
                             b_offset, c_offset, stride_a, stride_b, stride_c};
  return dispatch(ctx, &pr, &ba, num_wait, wait_list, event);
}

vncl_status vncl_gemm_cl_batched(
    vncl_context *ctx, vncl_dtype dtype, vncl_layout layout, vncl_trans ta,
    vncl_trans tb, size_t m, size_t n, size_t k, double alpha, cl_mem a,
    size_t a_offset, size_t lda, size_t stride_a, cl_mem b, size_t b_offset,
    size_t ldb, size_t stride_b, double beta, cl_mem c, size_t c_offset,
    size_t ldc, size_t stride_c, size_t batch) {
  return vncl_gemm_cl_event(ctx, dtype, layout, ta, tb, m, n, k, alpha, a,
                            a_offset, lda, stride_a, b, b_offset, ldb,
                            stride_b, beta, c, c_offset, ldc, stride_c, batch,
                            0, NULL, NULL);
}

vncl_status vncl_gemm_cl(vncl_context *ctx, vncl_dtype dtype,
                         vncl_layout layout, vncl_trans ta, vncl_trans tb,
                         size_t m, size_t n, size_t k, double alpha, cl_mem a,
                         size_t a_offset, size_t lda, cl_mem b,
                         size_t b_offset, size_t ldb, double beta, cl_mem c,
                         size_t c_offset, size_t ldc) {
  return vncl_gemm_cl_event(ctx, dtype, layout, ta, tb, m, n, k, alpha, a,
                            a_offset, lda, 0, b, b_offset, ldb, 0, beta, c,
                            c_offset, ldc, 0, 1, 0, NULL, NULL);
}

/* ---- tensors ----------------------------------------------------------------- */

static const char *shape_str(const vncl_tensor *t, char *buf, size_t cap) {
  return vncl__shape_str(t->ndim, t->shape, buf, cap);
}

vncl_status vncl_gemm(vncl_context *ctx, vncl_trans ta, vncl_trans tb,
                      double alpha, const vncl_tensor *a, const vncl_tensor *b,
                      double beta, vncl_tensor *c) {
  const char *fn = "vncl_gemm";
  if (!ctx) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
  const vncl_tensor *ts[3] = {a, b, c};
  const char *names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; i++) {
    if (!ts[i])
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                        names[i]);
    if (ts[i]->ctx != ctx)
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "%s: %s belongs to another context", fn, names[i]);
  }
  if ((ta != VNCL_NO_TRANS && ta != VNCL_TRANS) ||
      (tb != VNCL_NO_TRANS && tb != VNCL_TRANS))
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: ta and tb must be VNCL_NO_TRANS or VNCL_TRANS", fn);
  vncl_status s = check_dtype(ctx, fn, "a", a->dtype);
  if (s) return s;
  if (b->dtype != a->dtype)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: dtypes differ: a is %s, b is %s", fn,
                      vncl_dtype_name(a->dtype), vncl_dtype_name(b->dtype));
  bool c_ok = c->dtype == a->dtype ||
              (c->dtype == VNCL_F32 &&
               (a->dtype == VNCL_F16 || a->dtype == VNCL_BF16));
  if (!c_ok)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: c is %s; with %s inputs it must be %s%s", fn,
                      vncl_dtype_name(c->dtype), vncl_dtype_name(a->dtype),
                      vncl_dtype_name(a->dtype),
                      (a->dtype == VNCL_F16 || a->dtype == VNCL_BF16)
                          ? " or f32"
                          : "");
  char sa[96], sb[96], sc[96];
  int nd = a->ndim;
  if ((nd != 2 && nd != 3) || b->ndim != nd || c->ndim != nd)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: a, b and c must all be 2-D or all 3-D (batched); "
                      "they are %s, %s and %s",
                      fn, shape_str(a, sa, sizeof sa), shape_str(b, sb, sizeof sb),
                      shape_str(c, sc, sizeof sc));
  size_t batch = 1;
  int o = nd - 2;
  if (nd == 3) {
    if (a->shape[0] != b->shape[0] || a->shape[0] != c->shape[0])
      return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                        "%s: batch dimensions differ: a %s, b %s, c %s", fn,
                        shape_str(a, sa, sizeof sa), shape_str(b, sb, sizeof sb),
                        shape_str(c, sc, sizeof sc));
    batch = (size_t)a->shape[0];
  }
  size_t ar = (size_t)a->shape[o], ac = (size_t)a->shape[o + 1];
  size_t br = (size_t)b->shape[o], bc = (size_t)b->shape[o + 1];
  size_t m = ta ? ac : ar, k = ta ? ar : ac;
  size_t kb = tb ? bc : br, n = tb ? br : bc;
  if (k != kb)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: inner dimensions differ: op(a) is %zu x %zu (a %s%s)"
                      ", op(b) is %zu x %zu (b %s%s)",
                      fn, m, k, shape_str(a, sa, sizeof sa),
                      ta ? " transposed" : "", kb, n,
                      shape_str(b, sb, sizeof sb), tb ? " transposed" : "");
  if ((size_t)c->shape[o] != m || (size_t)c->shape[o + 1] != n)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: c is %s, the product is %zu x %zu", fn,
                      shape_str(c, sc, sizeof sc), m, n);
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    return vncl__fail(ctx, VNCL_ERR_INVALID_ARG,
                      "%s: m=%zu, n=%zu, k=%zu: each must be below 2^31", fn,
                      m, n, k);
  size_t eab = vncl_dtype_size(a->dtype), ec = vncl_dtype_size(c->dtype);
  size_t lda = ac ? ac : 1, ldb = bc ? bc : 1, ldc = n ? n : 1;
  vncl__gemm_problem pr;
  make_problem(a->dtype, c->dtype, VNCL_ROW_MAJOR, ta, tb, m, n, k, alpha,
               beta, a->mem, a->offset / eab, lda, ar * ac, b->mem,
               b->offset / eab, ldb, br * bc, c->mem, c->offset / ec, ldc,
               m * n, batch, &pr);
  vncl__gemm_blas_args ba = {VNCL_ROW_MAJOR,  ta,
                             tb,              m,
                             n,               a->mem,
                             b->mem,          lda,
                             ldb,             a->offset / eab,
                             b->offset / eab, c->offset / ec,
                             ar * ac,         br * bc,
                             m * n};
  return dispatch(ctx, &pr, &ba, 0, NULL, NULL);
}
