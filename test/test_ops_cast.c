/* Fill, copy and casts: every pair of f32, f64, f16, bf16, i32 on random
 * values over a wide exponent range and on the edge cases (NaN, infinities,
 * signed zeros, round-to-nearest-even ties, the largest finite values and
 * what rounds past them, i32 saturation and values that f32 cannot hold),
 * each element against a correctly rounded conversion done independently
 * here; and bad inputs. */
#include "test_ops.h"

/* Internal headers on purpose: fakes a device without fp64 (ctx->info.fp64)
 * to check the refusal. */
#include "runtime/runtime.h"
#include "ops/ops.h"

#define ctx t_ctx /* the shared fixture's context (common.c) */

static const vncl_dtype all_types[5] = {VNCL_F32, VNCL_F64, VNCL_F16,
                                        VNCL_BF16, VNCL_I32};

/* The exact conversion of value v to dtype t. */
static double convert(vncl_dtype t, double v) {
  if (t == VNCL_I32) {
    if (isnan(v)) return 0;
    double z = trunc(v);
    if (z > 2147483647.0) return 2147483647.0;
    if (z < -2147483648.0) return -2147483648.0;
    return z;
  }
  return t_round(t, v);
}

/* Values exact in dtype t: random magnitudes 2^-30 .. 2^30 with random
 * significands (and the edge cases of every destination). */
static double *cast_inputs(vncl_dtype t, size_t n, size_t *count) {
  static const double edges[] = {
      NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.5,
      65504, 65519, 65520, 65535, 65536, -65520, 1e-8, 6e-8, 3e-8, 1e-40,
      3.3895313892515355e38,  /* bf16 largest finite */
      3.3961775292304e38,     /* past bf16's rounding point */
      3.4028234663852886e38,  /* f32 largest */
      1e39, -1e300, 1e300,
      1.00390625,             /* 1 + 2^-8: a bf16 tie, rounds to even (1) */
      1.01171875,             /* 1 + 3*2^-8: a tie, rounds up */
      1.0009765625,           /* 1 + 2^-10: exact in f16 */
      1.00048828125,          /* 1 + 2^-11: an f16 tie */
      1.0000000596046448,     /* 1 + 2^-24: an f32 tie */
      1.0039062500000002,     /* just above a bf16 tie (double rounding) */
      16777217, -16777217, 2147483647, -2147483648.0, 2147483648.0,
      -2147483649.0, 4e9, -4e9, 2147483520, 123456789, -0.75, 0.999};
  size_t ne = sizeof edges / sizeof *edges;
  double *v = malloc((n + ne) * sizeof *v);
  size_t k = 0;
  for (size_t i = 0; i < ne; i++) {
    double e = edges[i];
    if (t == VNCL_I32 && !(e == trunc(e) && fabs(e) <= 2147483647.0)) continue;
    if (t != VNCL_I32 && t != VNCL_F64 && t_round(t, e) != e && !isnan(e))
      continue; /* not exact in t */
    v[k++] = e;
  }
  for (size_t i = 0; i < n; i++) {
    if (t == VNCL_I32) {
      int32_t x = (int32_t)(uint32_t)t_rand_u64();
      if (i % 3 == 0) x >>= (int)(t_rand_u64() % 31);
      v[k++] = x;
    } else {
      double m = ldexp(t_rand_uniform(1, 2), (int)(t_rand_u64() % 61) - 30);
      v[k++] = t_round(t, t_rand_u64() & 1 ? -m : m);
    }
  }
  *count = k;
  return v;
}

/* in (n values of s) cast to d on the device, the output poisoned first,
 * every element compared exactly with convert(). */
static void check_cast(vncl_dtype s, vncl_dtype d, const double *in,
                       size_t n, const char *what) {
  int64_t shape[1] = {(int64_t)n};
  vncl_tensor *a = t_new(ctx, s, 1, shape), *b = t_new(ctx, d, 1, shape);
  t_write(ctx, a, in);
  t_poison(ctx, b);
  T_OK(ctx, vncl_cast(ctx, a, b));
  double *got = t_read(ctx, b), *ref = malloc(n * sizeof *ref);
  for (size_t i = 0; i < n; i++) ref[i] = convert(d, in[i]);
  t_check(what, n, got, ref, 0, 0); /* exact */
  free(got), free(ref);
  vncl_tensor_destroy(a), vncl_tensor_destroy(b);
}

static void test_cast_pairs(void **st) {
  (void)st;
  for (int si = 0; si < 5; si++)
    for (int di = 0; di < 5; di++) {
      vncl_dtype s = all_types[si], d = all_types[di];
      size_t n;
      double *in = cast_inputs(s, 5000, &n);
      char what[64];
      snprintf(what, sizeof what, "cast %s -> %s", vncl_dtype_name(s),
               vncl_dtype_name(d));
      check_cast(s, d, in, n, what);
      free(in);
    }
}

/* Lengths around the CPU kernel's vectors (16 lanes, 64 elements per
 * work-item, work-items whose elements run past the end take the scalar
 * loop) and the GPU kernel's groups: every pair, each element exact. */
static void test_cast_lengths(void **st) {
  (void)st;
  static const size_t lens[] = {1, 15, 16, 17, 63, 64, 65, 1024 + 48, 4096 + 7};
  for (int si = 0; si < 5; si++)
    for (int di = 0; di < 5; di++)
      for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        vncl_dtype s = all_types[si], d = all_types[di];
        size_t n = lens[li], have;
        double *in = cast_inputs(s, n, &have);
        /* the edge cases first, then random values; keep n of them, from a
         * random start so that short lengths see different edges */
        size_t from = (size_t)(t_rand_u64() % (have - n + 1));
        int64_t shape[1] = {(int64_t)n};
        vncl_tensor *a = t_new(ctx, s, 1, shape), *b = t_new(ctx, d, 1, shape);
        t_write(ctx, a, in + from);
        t_poison(ctx, b);
        T_OK(ctx, vncl_cast(ctx, a, b));
        double *got = t_read(ctx, b), *ref = malloc(n * sizeof *ref);
        for (size_t i = 0; i < n; i++) ref[i] = convert(d, in[from + i]);
        char what[80];
        snprintf(what, sizeof what, "cast %s -> %s, %zu elements",
                 vncl_dtype_name(s), vncl_dtype_name(d), n);
        t_check(what, n, got, ref, 0, 0); /* exact */
        free(in), free(got), free(ref);
        vncl_tensor_destroy(a), vncl_tensor_destroy(b);
      }
}

/* Views that start past their buffer's beginning (the library's internal
 * offsets, set here by hand): odd and even element offsets on both sides,
 * so that 16-bit results start off a 4-byte boundary too (the CPU kernel
 * then stores 16-bit vectors as such), and destination offsets of 8 and 16
 * elements: 16 elements start a whole 16-lane vector of every type (the CPU
 * kernel's non-temporal stores), 8 only half of one. Every element exact,
 * nothing written outside the view. */
static void test_cast_offsets(void **st) {
  (void)st;
  static const size_t offs[][2] = {{3, 1}, {0, 2}, {5, 0}, {1, 8}, {2, 16}};
  const size_t n = 517;
  for (int si = 0; si < 5; si++)
    for (int di = 0; di < 5; di++)
      for (size_t oi = 0; oi < sizeof offs / sizeof *offs; oi++) {
        vncl_dtype s = all_types[si], d = all_types[di];
        size_t so = offs[oi][0], dof = offs[oi][1], have;
        double *in = cast_inputs(s, n, &have);
        int64_t sb[1] = {(int64_t)(n + 24)};
        vncl_tensor *a = t_new(ctx, s, 1, sb), *b = t_new(ctx, d, 1, sb);
        double *full = malloc((n + 24) * sizeof *full);
        for (size_t i = 0; i < n + 24; i++) full[i] = 0;
        for (size_t i = 0; i < n; i++) full[so + i] = in[i];
        t_write(ctx, a, full);
        /* outside the view -7 (exact in every type), inside a poison */
        double *before = malloc((n + 24) * sizeof *before);
        for (size_t i = 0; i < n + 24; i++)
          before[i] = i >= dof && i < dof + n
                          ? (d == VNCL_I32 ? 2143346349.0 : NAN)
                          : -7.0;
        t_write(ctx, b, before);
        vncl_tensor va = *a, vb = *b;
        va.ndim = vb.ndim = 1;
        va.shape[0] = vb.shape[0] = (int64_t)n;
        va.numel = vb.numel = n;
        va.bytes = n * vncl_dtype_size(s);
        vb.bytes = n * vncl_dtype_size(d);
        va.offset += so * vncl_dtype_size(s);
        vb.offset += dof * vncl_dtype_size(d);
        T_OK(ctx, vncl_cast(ctx, &va, &vb));
        double *got = t_read(ctx, b), *ref = malloc((n + 24) * sizeof *ref);
        for (size_t i = 0; i < n + 24; i++)
          ref[i] = i >= dof && i < dof + n ? convert(d, in[i - dof])
                                           : before[i];
        char what[80];
        snprintf(what, sizeof what, "cast %s -> %s, offsets %zu, %zu",
                 vncl_dtype_name(s), vncl_dtype_name(d), so, dof);
        t_check(what, n + 24, got, ref, 0, 0); /* exact, the rest untouched */
        free(in), free(full), free(before), free(got), free(ref);
        vncl_tensor_destroy(a), vncl_tensor_destroy(b);
      }
}

/* Every pair under other parameter sets of the cast family: the GPU row,
 * and the CPU kernel's 16-lane vectors without and with non-temporal
 * stores, on a length with a partial last work-item. Each element exact
 * against the reference, so the sets agree bit for bit. */
static void test_cast_params(void **st) {
  (void)st;
  /* WG, IPT, ITEM_CONTIG, NT_STORE */
  static const int sets[][VNCL__OPS_MAX_PARAMS] = {
      {256, 4, 0, 0}, {16, 64, 1, 0}, {16, 64, 1, 1}, {8, 32, 1, 1}};
  const size_t n = 3000 + 37;
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_CAST, sets[k]));
    for (int si = 0; si < 5; si++)
      for (int di = 0; di < 5; di++) {
        vncl_dtype s = all_types[si], d = all_types[di];
        size_t have;
        double *in = cast_inputs(s, n, &have);
        char what[96];
        snprintf(what, sizeof what, "cast %s -> %s, parameter set %zu",
                 vncl_dtype_name(s), vncl_dtype_name(d), k);
        check_cast(s, d, in, n, what);
        free(in);
      }
  }
  T_OK(ctx, vncl__ops_params_set(ctx, VNCL__OPS_CAST, NULL));
}

/* in (n values) cast from f64 to f32, f16 and bf16, each exact. */
static void check_f64_casts(const char *label, const double *in, size_t n) {
  const vncl_dtype to[3] = {VNCL_F32, VNCL_F16, VNCL_BF16};
  for (int k = 0; k < 3; k++) {
    char what[64];
    snprintf(what, sizeof what, "%s -> %s", label, vncl_dtype_name(to[k]));
    check_cast(VNCL_F64, to[k], in, n, what);
  }
}

/* f64 with all 53 significand bits set to 16 bits: a conversion through
 * f32 would round twice. */
static void test_cast_no_double_rounding(void **st) {
  (void)st;
  enum { N = 20000 };
  double in[N];
  for (int i = 0; i < N; i++) {
    /* near-ties of bf16 (1 + k/2^7 + 1/2^8), f16 (1 + k/2^10 + 1/2^11)
     * and f32 (1 + k/2^23 + 1/2^24), +- a few f64 ulps */
    int k = i / 3, d = (i / 7) % 9 - 4;
    if (i % 3 == 0)
      in[i] = 1 + (double)(k % 128) / 128 + 1.0 / 256 + d * 0x1p-52;
    else if (i % 3 == 1)
      in[i] = 1 + (double)(k % 1024) / 1024 + 1.0 / 2048 + d * 0x1p-52;
    else
      in[i] = 1 + (double)(k % 4096) * 0x1p-23 + 0x1p-24 + d * 0x1p-52;
    if (i % 2) in[i] = -in[i] * 4;
  }
  check_f64_casts("cast f64 near-ties", in, N);
}

/* f64 to f32 / f16 / bf16 at the ends of the range, where the f32 step
 * (to nearest, then toward zero when that went away from zero, then odd)
 * meets subnormals, zero and overflow: bf16 subnormal near-ties, f32
 * subnormal near-ties and values that round to zero, and the points where
 * bf16 and f32 round to their largest value or to inf, +- a few f64 ulps,
 * both signs. */
static void test_cast_f64_range_ends(void **st) {
  (void)st;
  enum { N = 9000 };
  double in[N];
  for (int i = 0; i < N; i++) {
    int k = i / 6, d = (i / 5) % 9 - 4;
    double x;
    switch (i % 6) {
      case 0: x = ldexp(2 * (k % 128) + 1, -134) + d * 0x1p-186; break;
      case 1: x = ldexp(2 * (k % 64) + 1, -150) + d * 0x1p-202; break;
      case 2: x = ldexp(k % 8 + 1, -153) + d * 0x1p-205; break;
      case 3: x = 0x1.ffp127 + d * 0x1p75; break;      /* bf16: max or inf */
      case 4: x = 0x1.ffffffp127 + d * 0x1p75; break;  /* f32: max or inf */
      default: x = 0x1.fffffep127 - (k % 16) * 0x1p75; break;
    }
    in[i] = i % 2 ? -x : x;
  }
  check_f64_casts("cast f64 range ends", in, N);
}

/* f64 NaNs of every kind (quiet and signalling, both signs, random
 * payloads) among random finite values, cast to f32, f16 and bf16: each
 * NaN gives a NaN of the same sign (bf16: quiet), each finite value its
 * exact conversion. The output is poisoned with a finite pattern first,
 * so an element left unwritten fails; lengths past whole vectors and
 * work-items take the scalar tail too. */
static void test_cast_f64_nan_payloads(void **st) {
  (void)st;
  enum { N = 4096 + 37 };
  uint64_t *bits = malloc(N * sizeof *bits);
  double *ref = malloc(N * sizeof *ref);
  for (size_t i = 0; i < N; i++) {
    uint64_t r = t_rand_u64();
    if (i % 3 == 0) { /* NaN: exponent all ones, payload nonzero */
      uint64_t pay = r & 0x000fffffffffffffull;
      if (i % 9 == 0) pay &= 0x0007ffffffffffffull; /* signalling */
      if (i % 27 == 0) pay = (r >> 40) & 7;          /* tiny payloads */
      if (pay == 0) pay = 1;
      bits[i] = (r & 0x8000000000000000ull) | 0x7ff0000000000000ull | pay;
      ref[i] = NAN;
    } else {
      double m = ldexp(t_rand_uniform(1, 2), (int)(r % 61) - 30);
      ref[i] = r >> 63 ? -m : m;
      memcpy(&bits[i], &ref[i], sizeof ref[i]);
    }
  }
  const vncl_dtype to[3] = {VNCL_F32, VNCL_F16, VNCL_BF16};
  int64_t shape[1] = {N};
  vncl_tensor *a = t_new(ctx, VNCL_F64, 1, shape);
  T_OK(ctx, vncl_tensor_write(a, bits, N * sizeof *bits));
  for (int k = 0; k < 3; k++) {
    vncl_tensor *b = t_new(ctx, to[k], 1, shape);
    size_t es = vncl_dtype_size(to[k]);
    unsigned char *out = malloc(N * es);
    memset(out, 0x3c, N * es); /* finite in every type: poison */
    T_OK(ctx, vncl_tensor_write(b, out, N * es));
    T_OK(ctx, vncl_cast(ctx, a, b));
    T_OK(ctx, vncl_tensor_read(b, out, N * es));
    double *got = malloc(N * sizeof *got), *want = malloc(N * sizeof *want);
    t_unpack(to[k], out, N, got);
    for (size_t i = 0; i < N; i++) {
      want[i] = isnan(ref[i]) ? NAN : convert(to[k], ref[i]);
      if (!isnan(ref[i])) continue;
      int neg = (int)(bits[i] >> 63), ok;
      uint32_t u = 0;
      uint16_t h = 0;
      if (to[k] == VNCL_F32) {
        memcpy(&u, out + 4 * i, 4);
        ok = (u & 0x7fffffffu) > 0x7f800000u && (int)(u >> 31) == neg;
      } else {
        memcpy(&h, out + 2 * i, 2);
        u = h;
        ok = (int)(h >> 15) == neg &&
             (to[k] == VNCL_F16 ? (h & 0x7fff) > 0x7c00
                                : (h & 0x7fc0) == 0x7fc0);
      }
      if (!ok)
        fail_msg("cast f64 NaN 0x%016llx -> %s: bits 0x%x, not a NaN of "
                 "that sign%s", (unsigned long long)bits[i],
                 vncl_dtype_name(to[k]), (unsigned)u,
                 to[k] == VNCL_BF16 ? " (quiet)" : "");
    }
    char what[64];
    snprintf(what, sizeof what, "cast f64 with NaNs -> %s",
             vncl_dtype_name(to[k]));
    t_check(what, N, got, want, 0, 0); /* finite ones exact */
    free(got), free(want), free(out);
    vncl_tensor_destroy(b);
  }
  vncl_tensor_destroy(a);
  free(bits), free(ref);
}

/* f64 -> f16 / bf16 where one correct rounding is hard to get: ties
 * between neighbouring 16-bit values over their whole range (subnormals,
 * f32's subnormal range for bf16, the largest finite values and the
 * overflow point), one f64 ulp either side of each and random offsets
 * below half a 16-bit ulp, and random f64 bits with exponents 2^-160 to
 * 2^130; every output's bits against the correctly rounded value (signed
 * zeros included). The length is a multiple of the CPU kernel's vectors,
 * so all of it takes the vector path there. */
static void test_cast_f64_boundaries(void **st) {
  (void)st;
  enum { N = 64 * 1024 };
  const vncl_dtype to[2] = {VNCL_F16, VNCL_BF16};
  double *in = malloc(N * sizeof *in);
  uint16_t *out = malloc(N * sizeof *out);
  int64_t shape[1] = {N};
  vncl_tensor *a = t_new(ctx, VNCL_F64, 1, shape);
  for (int k = 0; k < 2; k++) {
    const int f16 = to[k] == VNCL_F16;
    const unsigned top = f16 ? 0x7c00 : 0x7f80; /* bits of inf */
    for (size_t i = 0; i < N; i++) {
      uint64_t r = t_rand_u64();
      double v;
      if (i % 8 == 7) { /* random f64 bits, exponents -160 .. 130 */
        uint64_t e = (uint64_t)(1023 - 160 + (int)(r % 291));
        uint64_t b = (r & 0x8000000000000000ull) | e << 52 |
                     (t_rand_u64() & 0x000fffffffffffffull);
        memcpy(&v, &b, sizeof v);
      } else { /* near the tie above a random finite value */
        unsigned h = (unsigned)(r >> 8) % top; /* 0 .. largest finite */
        if (i % 8 == 6) h = top - 1 - (unsigned)(r >> 8) % 4; /* the top */
        if (i % 8 == 5) h = (unsigned)(r >> 8) % (f16 ? 0x400 : 0x100);
        double lo = f16 ? t_f16_value((uint16_t)h) : t_bf16_value((uint16_t)h);
        double hi = h + 1 == top ? 2 * lo - (f16 ? t_f16_value((uint16_t)(h - 1))
                                                 : t_bf16_value((uint16_t)(h - 1)))
                                 : (f16 ? t_f16_value((uint16_t)(h + 1))
                                        : t_bf16_value((uint16_t)(h + 1)));
        double mid = lo + (hi - lo) / 2; /* exact: a power of 2 apart */
        switch ((r >> 40) % 6) {
          case 0: v = mid; break;
          case 1: v = nextafter(mid, 0); break;
          case 2: v = nextafter(mid, INFINITY); break;
          case 3: v = mid + ldexp(t_rand_uniform(-1, 1), -(int)(r % 60)) *
                                (hi - lo) / 2; break;
          case 4: v = lo; break;
          default: v = mid + ldexp(1, -1 - (int)(r % 52)) * (hi - lo) *
                                (r >> 63 ? 1 : -1); break;
        }
        if ((r >> 50) & 1) v = -v;
      }
      in[i] = v;
    }
    T_OK(ctx, vncl_tensor_write(a, in, N * sizeof *in));
    vncl_tensor *b = t_new(ctx, to[k], 1, shape);
    memset(out, 0x3c, N * sizeof *out); /* finite in both types: poison */
    T_OK(ctx, vncl_tensor_write(b, out, N * sizeof *out));
    T_OK(ctx, vncl_cast(ctx, a, b));
    T_OK(ctx, vncl_tensor_read(b, out, N * sizeof *out));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < N; i++) {
      uint16_t want = f16 ? t_to_f16(in[i]) : t_to_bf16(in[i]);
      if (out[i] != want && !bad++) first = i;
    }
    if (bad) {
      uint16_t want = f16 ? t_to_f16(in[first]) : t_to_bf16(in[first]);
      fail_msg("cast f64 -> %s: %zu of %d wrong, first [%zu] %a gave 0x%04x, "
               "want 0x%04x", vncl_dtype_name(to[k]), bad, (int)N, first,
               in[first], (unsigned)out[first], (unsigned)want);
    }
    vncl_tensor_destroy(b);
  }
  vncl_tensor_destroy(a);
  free(in), free(out);
}

static void test_fill(void **st) {
  (void)st;
  static const double vals[] = {1.5,   -0.0,  1.0 / 3, 65520, 1e40,
                                NAN,   -INFINITY, 1e-30, 7, -2147483648.0};
  int64_t shape[2] = {3, 1001};
  for (int ti = 0; ti < 5; ti++) {
    vncl_dtype t = all_types[ti];
    vncl_tensor *x = t_new(ctx, t, 2, shape);
    for (size_t k = 0; k < sizeof vals / sizeof *vals; k++) {
      double v = vals[k];
      if (t == VNCL_I32 && !(v == trunc(v) && fabs(v) < 3e9)) continue;
      t_poison(ctx, x);
      T_OK(ctx, vncl_fill(ctx, x, v));
      double *got = t_read(ctx, x), ref[3 * 1001];
      for (int i = 0; i < 3 * 1001; i++) ref[i] = convert(t, v);
      char what[64];
      snprintf(what, sizeof what, "fill %s with %g", vncl_dtype_name(t), v);
      t_check(what, 3 * 1001, got, ref, 0, 0);
      free(got);
    }
    vncl_tensor_destroy(x);
  }
  vncl_tensor *x = t_new(ctx, VNCL_I32, 2, shape);
  t_poison(ctx, x);
  T_FAILS(ctx, vncl_fill(ctx, x, 1.5), VNCL_ERR_INVALID_ARG, "whole number");
  T_FAILS(ctx, vncl_fill(ctx, x, 3e9), VNCL_ERR_INVALID_ARG, "i32 range");
  T_FAILS(ctx, vncl_fill(ctx, x, NAN), VNCL_ERR_INVALID_ARG, "whole number");
  T_FAILS(ctx, vncl_fill(ctx, NULL, 1), VNCL_ERR_INVALID_ARG, "t is NULL");
  assert_true(t_still_poisoned(ctx, x));
  vncl_tensor_destroy(x);
}

static void test_copy(void **st) {
  (void)st;
  int64_t shape[3] = {3, 7, 129};
  size_t n = 3 * 7 * 129;
  for (int ti = 0; ti < 5; ti++) {
    vncl_dtype t = all_types[ti];
    size_t cnt;
    double *in = cast_inputs(t, n, &cnt); /* the first n values */
    vncl_tensor *a = t_new(ctx, t, 3, shape), *b = t_new(ctx, t, 3, shape);
    t_write(ctx, a, in);
    t_poison(ctx, b);
    T_OK(ctx, vncl_copy(ctx, a, b));
    double *got = t_read(ctx, b);
    char what[32];
    snprintf(what, sizeof what, "copy %s", vncl_dtype_name(t));
    t_check(what, n, got, in, 0, 0);
    free(in), free(got);
    vncl_tensor_destroy(a), vncl_tensor_destroy(b);
  }
}

static void test_bad_inputs(void **st) {
  (void)st;
  int64_t s1[1] = {10}, s2[1] = {11};
  vncl_tensor *f = t_new(ctx, VNCL_F32, 1, s1), *f2 = t_new(ctx, VNCL_F32, 1, s2),
              *h = t_new(ctx, VNCL_F16, 1, s1), *d = t_new(ctx, VNCL_F64, 1, s1);
  vncl_context *other = t_context(NULL);
  vncl_tensor *of = t_new(other, VNCL_F32, 1, s1);
  t_poison(ctx, h);
  t_poison(ctx, f2);
  T_FAILS(NULL, vncl_cast(NULL, f, h), VNCL_ERR_INVALID_ARG, "ctx is NULL");
  T_FAILS(ctx, vncl_cast(ctx, NULL, h), VNCL_ERR_INVALID_ARG, "src is NULL");
  T_FAILS(ctx, vncl_cast(ctx, f, NULL), VNCL_ERR_INVALID_ARG, "dst is NULL");
  T_FAILS(ctx, vncl_cast(ctx, f, f2), VNCL_ERR_INVALID_ARG, "shape mismatch");
  T_FAILS(ctx, vncl_cast(ctx, of, h), VNCL_ERR_INVALID_ARG, "another context");
  T_FAILS(ctx, vncl_copy(ctx, f, h), VNCL_ERR_INVALID_ARG, "dtype mismatch");
  T_FAILS(ctx, vncl_copy(ctx, f, f2), VNCL_ERR_INVALID_ARG, "shape mismatch");
  T_FAILS(ctx, vncl_fill(ctx, of, 1), VNCL_ERR_INVALID_ARG, "another context");
  int fp64 = ctx->info.fp64;
  ctx->info.fp64 = 0;
  T_FAILS(ctx, vncl_cast(ctx, d, h), VNCL_ERR_UNSUPPORTED, "fp64");
  ctx->info.fp64 = fp64;
  assert_true(t_still_poisoned(ctx, h));
  assert_true(t_still_poisoned(ctx, f2));
  vncl_tensor_destroy(of);
  vncl_context_destroy(other);
  vncl_tensor_destroy(f), vncl_tensor_destroy(f2), vncl_tensor_destroy(h),
      vncl_tensor_destroy(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cast_pairs),
      cmocka_unit_test(test_cast_lengths),
      cmocka_unit_test(test_cast_offsets),
      cmocka_unit_test(test_cast_params),
      cmocka_unit_test(test_cast_no_double_rounding),
      cmocka_unit_test(test_cast_f64_range_ends),
      cmocka_unit_test(test_cast_f64_nan_payloads),
      cmocka_unit_test(test_cast_f64_boundaries),
      cmocka_unit_test(test_fill),
      cmocka_unit_test(test_copy),
      cmocka_unit_test(test_bad_inputs),
  };
  return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
