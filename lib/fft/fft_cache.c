/* FFT state: clFFT's process-wide setup (counted across contexts), each
 * context's cache of baked clFFT plans and Bluestein tables, the scratch
 * buffers its plans share, and clFFT's status codes as vncl errors.
 *
 * clfftSetup/clfftTeardown are process-wide and clfftTeardown destroys
 * every plan, so they are counted: the first context that runs an FFT sets
 * clFFT up, and the last such context to go tears it down (clFFT prints a
 * warning at exit when it is not torn down). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft/fft.h"

#define VNCL_PI 3.14159265358979323846

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
static int lib_users; /* contexts holding an FFT state; guarded by lib_lock */

const char *vncl__clfft_status_name(clfftStatus st) {
  switch ((int)st) {
    case CLFFT_BUGCHECK: return "CLFFT_BUGCHECK";
    case CLFFT_NOTIMPLEMENTED: return "CLFFT_NOTIMPLEMENTED";
    case CLFFT_TRANSPOSED_NOTIMPLEMENTED:
      return "CLFFT_TRANSPOSED_NOTIMPLEMENTED";
    case CLFFT_FILE_NOT_FOUND: return "CLFFT_FILE_NOT_FOUND";
    case CLFFT_FILE_CREATE_FAILURE: return "CLFFT_FILE_CREATE_FAILURE";
    case CLFFT_VERSION_MISMATCH: return "CLFFT_VERSION_MISMATCH";
    case CLFFT_INVALID_PLAN: return "CLFFT_INVALID_PLAN";
    case CLFFT_DEVICE_NO_DOUBLE: return "CLFFT_DEVICE_NO_DOUBLE";
    case CLFFT_DEVICE_MISMATCH: return "CLFFT_DEVICE_MISMATCH";
    default: break;
  }
  return vncl__cl_error_name((cl_int)st); /* clFFT reuses OpenCL's codes */
}

vncl_status vncl__fft_fail(vncl_context *ctx, clfftStatus st,
                           const char *what) {
  if (st < 0 || st == CLFFT_SUCCESS)
    return vncl__cl_fail(ctx, (cl_int)st, what);
  vncl_status s = VNCL_ERR_OPENCL;
  const char *hint = "";
  if (st == CLFFT_NOTIMPLEMENTED || st == CLFFT_TRANSPOSED_NOTIMPLEMENTED) {
    s = VNCL_ERR_UNSUPPORTED;
    hint = ": clFFT has no kernel for this configuration";
  } else if (st == CLFFT_DEVICE_NO_DOUBLE) {
    s = VNCL_ERR_UNSUPPORTED;
    hint = ": the device has no double precision";
  } else if (st == CLFFT_BUGCHECK || st == CLFFT_INVALID_PLAN) {
    s = VNCL_ERR_INTERNAL;
  }
  return vncl__fail(ctx, s, "%s: clFFT status %s (%d)%s", what,
                    vncl__clfft_status_name(st), (int)st, hint);
}

bool vncl__fft_clfft_length(size_t n) {
  static const size_t radices[] = {2, 3, 5, 7, 11, 13};
  if (n == 0) return false;
  for (size_t i = 0; i < sizeof radices / sizeof *radices; i++)
    while (n % radices[i] == 0) n /= radices[i];
  return n == 1;
}

size_t vncl__fft_pow2_at_least(size_t n) {
  size_t m = 1;
  while (m < n) m <<= 1;
  return m;
}

vncl_status vncl__fft_state_get(vncl_context *ctx, vncl__fft_state **out) {
  pthread_mutex_lock(&lib_lock);
  if (ctx->fft) {
    *out = ctx->fft;
    pthread_mutex_unlock(&lib_lock);
    return VNCL_OK;
  }
  vncl__fft_state *st = calloc(1, sizeof *st);
  if (!st) {
    pthread_mutex_unlock(&lib_lock);
    return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY,
                      "out of host memory for the FFT state");
  }
  if (lib_users == 0) {
    /* What clfftInitSetupData does; that header function is a C99 inline
     * with no external definition, so an unoptimised build cannot link
     * a call to it. */
    clfftSetupData sd;
    memset(&sd, 0, sizeof sd);
    sd.major = clfftVersionMajor;
    sd.minor = clfftVersionMinor;
    sd.patch = clfftVersionPatch;
    clfftStatus cs = clfftSetup(&sd);
    if (cs != CLFFT_SUCCESS) {
      pthread_mutex_unlock(&lib_lock);
      free(st);
      return vncl__fft_fail(ctx, cs, "clfftSetup");
    }
    vncl__log(VNCL_LOG_DEBUG, "clFFT set up");
  }
  lib_users++;
  pthread_mutex_init(&st->lock, NULL);
  pthread_mutex_init(&st->exec_lock, NULL);
  ctx->fft = st;
  *out = st;
  pthread_mutex_unlock(&lib_lock);
  vncl__context_on_release(ctx, vncl__fft_release);
  return VNCL_OK;
}

vncl__fft_state *vncl__fft_state_find(vncl_context *ctx) {
  pthread_mutex_lock(&lib_lock);
  vncl__fft_state *st = ctx->fft;
  pthread_mutex_unlock(&lib_lock);
  return st;
}

static void entry_free(vncl_context *ctx, vncl__fft_entry *e) {
  if (e->has_plan) {
    clfftStatus cs = clfftDestroyPlan(&e->plan);
    if (cs != CLFFT_SUCCESS)
      vncl__log(VNCL_LOG_WARN, "clfftDestroyPlan(%s): %s (%d)", e->key,
                vncl__clfft_status_name(cs), (int)cs);
  }
  for (int i = 0; i < 3; i++)
    vncl__buffer_free(ctx, e->tables[i], e->table_bytes[i]);
  free(e);
}

void vncl__fft_release(vncl_context *ctx) {
  vncl__fft_state *st = ctx->fft;
  if (!st) return;
  /* The caller (the context's last release) has finished the queue. */
  pthread_mutex_lock(&lib_lock);
  vncl__fft_entry *e = st->entries;
  while (e) {
    vncl__fft_entry *next = e->next;
    entry_free(ctx, e);
    e = next;
  }
  for (int i = 0; i < VNCL__FFT_SCRATCH_SLOTS; i++)
    vncl__buffer_free(ctx, st->scratch[i], st->scratch_bytes[i]);
  if (--lib_users == 0) {
    clfftStatus cs = clfftTeardown();
    if (cs != CLFFT_SUCCESS)
      vncl__log(VNCL_LOG_WARN, "clfftTeardown: %s (%d)",
                vncl__clfft_status_name(cs), (int)cs);
    else
      vncl__log(VNCL_LOG_DEBUG, "clFFT torn down");
  }
  ctx->fft = NULL;
  pthread_mutex_unlock(&lib_lock);
  pthread_mutex_destroy(&st->lock);
  pthread_mutex_destroy(&st->exec_lock);
  free(st);
}

static vncl__fft_entry *find(vncl__fft_state *st, const char *key) {
  for (vncl__fft_entry *e = st->entries; e; e = e->next)
    if (!strcmp(e->key, key)) return e;
  return NULL;
}

/* The start of every getter below: takes st->lock and looks key up
 * (counted in st->hits and st->misses when count is set: clFFT plans).
 * Found: releases the lock, *out is the entry, true. Not found: false,
 * with the lock still held for the caller to make the entry and end with
 * keep(). */
static bool lookup(vncl__fft_state *st, const char *key, bool count,
                   vncl__fft_entry **out) {
  pthread_mutex_lock(&st->lock);
  vncl__fft_entry *e = find(st, key);
  if (count) {
    if (e) st->hits++;
    else st->misses++;
  }
  if (!e) return false;
  pthread_mutex_unlock(&st->lock);
  *out = e;
  return true;
}

/* The end of every getter, st->lock held: s == VNCL_OK caches e under key
 * and sets *out; else e (NULL allowed) and its tables go and s is
 * returned. Releases the lock. */
static vncl_status keep(vncl_context *ctx, vncl__fft_state *st,
                        vncl__fft_entry *e, const char *key, vncl_status s,
                        vncl__fft_entry **out) {
  if (s) {
    pthread_mutex_unlock(&st->lock);
    if (e)
      for (int i = 0; i < 3; i++)
        vncl__buffer_free(ctx, e->tables[i], e->table_bytes[i]);
    free(e);
    return s;
  }
  vncl__strlcpy(e->key, key, sizeof e->key);
  e->next = st->entries;
  st->entries = e;
  pthread_mutex_unlock(&st->lock);
  *out = e;
  return VNCL_OK;
}

static void params_key(const vncl__fft_params *p, char *out, size_t cap) {
  snprintf(out, cap,
           "clfft d%d l%zu,%zu,%zu lay%d,%d is%zu,%zu,%zu os%zu,%zu,%zu "
           "dist%zu,%zu p%d b%zu %s s%a,%a",
           p->dim, p->len[0], p->len[1], p->len[2], (int)p->in_layout,
           (int)p->out_layout, p->in_stride[0], p->in_stride[1],
           p->in_stride[2], p->out_stride[0], p->out_stride[1],
           p->out_stride[2], p->in_dist, p->out_dist, (int)p->precision,
           p->batch, p->in_place ? "inplace" : "outofplace",
           (double)p->fwd_scale, (double)p->bwd_scale);
}

/* Creates and bakes; st->lock held. */
static vncl_status bake(vncl_context *ctx, vncl__fft_state *st,
                        const vncl__fft_params *p, clfftPlanHandle *out,
                        size_t *tmp_bytes) {
  clfftPlanHandle h = 0;
  size_t len[3] = {p->len[0], p->len[1], p->len[2]};
  size_t is[3] = {p->in_stride[0], p->in_stride[1], p->in_stride[2]};
  size_t os[3] = {p->out_stride[0], p->out_stride[1], p->out_stride[2]};
  clfftDim dim = p->dim == 1 ? CLFFT_1D : p->dim == 2 ? CLFFT_2D : CLFFT_3D;
  const char *what = "clfftCreateDefaultPlan";
  clfftStatus cs = clfftCreateDefaultPlan(&h, ctx->cl_ctx, dim, len);
  if (cs == CLFFT_SUCCESS) {
    bool made = true;
#define STEP(call)                              \
  if (made && (cs = (call)) != CLFFT_SUCCESS) { \
    what = #call;                               \
    made = false;                               \
  }
    STEP(clfftSetPlanPrecision(h, p->precision));
    STEP(clfftSetLayout(h, p->in_layout, p->out_layout));
    STEP(clfftSetResultLocation(
        h, p->in_place ? CLFFT_INPLACE : CLFFT_OUTOFPLACE));
    STEP(clfftSetPlanInStride(h, dim, is));
    STEP(clfftSetPlanOutStride(h, dim, os));
    STEP(clfftSetPlanDistance(h, p->in_dist, p->out_dist));
    STEP(clfftSetPlanBatchSize(h, p->batch));
    STEP(clfftSetPlanScale(h, CLFFT_FORWARD, p->fwd_scale));
    STEP(clfftSetPlanScale(h, CLFFT_BACKWARD, p->bwd_scale));
    double t0 = vncl__now();
    /* Baking may enqueue (twiddle tables): a serial driver's lock. */
    bool held = ctx->info.serial_driver && vncl__serial_lock();
    STEP(clfftBakePlan(h, 1, &ctx->queue, NULL, NULL));
    vncl__serial_leave(held);
#undef STEP
    if (made) {
      double dt = vncl__now() - t0;
      st->bakes++;
      st->bake_seconds += dt;
      vncl__log(VNCL_LOG_INFO, "clFFT plan baked in %.3f s", dt);
      cs = clfftGetTmpBufSize(h, tmp_bytes);
      what = "clfftGetTmpBufSize";
    }
    if (cs != CLFFT_SUCCESS) clfftDestroyPlan(&h);
  }
  if (cs == CLFFT_NOTIMPLEMENTED) {
    /* Not an error for the caller, who falls back on vncl's own path. */
    vncl__log(VNCL_LOG_DEBUG, "clFFT cannot do lengths %zu x %zu x %zu",
              p->len[0], p->len[1], p->len[2]);
    return VNCL_ERR_UNSUPPORTED;
  }
  if (cs != CLFFT_SUCCESS) return vncl__fft_fail(ctx, cs, what);
  *out = h;
  return VNCL_OK;
}

vncl_status vncl__fft_plan_get(vncl_context *ctx, vncl__fft_state *st,
                               const vncl__fft_params *p,
                               vncl__fft_entry **out) {
  char key[256];
  params_key(p, key, sizeof key);
  *out = NULL;
  if (lookup(st, key, true, out)) return VNCL_OK;
  vncl__fft_entry *e = calloc(1, sizeof *e);
  vncl_status s =
      e ? bake(ctx, st, p, &e->plan, &e->tmp_bytes)
        : vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
  if (!s) e->has_plan = true;
  return keep(ctx, st, e, key, s, out);
}

/* ---- Bluestein tables ---------------------------------------------------- */

/* exp(-2 pi i t / n) to about half an ulp in double. The angle is reduced
 * in integers to the nearest multiple of pi/4 (8t = o n + r, exactly), so
 * cos and sin only see |phi| <= pi/4, where their argument's rounding
 * (an absolute error of about pi/4 x 2^-53) is the only error; the
 * multiple of pi/2 is applied by exact symmetries. Computing the angle as
 * 2 pi t/n directly costs up to 2 pi x 2^-53 near t = n (measured: 1.3e-15
 * against 1.6e-16 this way, for n = 173056). */
static void unit_root(size_t t, size_t n, double *re, double *im) {
  t %= n;
  /* 8t fits: t < n, and lengths are far below SIZE_MAX / 8. */
  size_t o = 8 * t / n, r = 8 * t - o * n;
  double x, y; /* cos and sin of the angle 2 pi t/n - (pi/4) o' */
  if (o & 1) { /* nearer the next multiple: phi = -(pi/4)(n - r)/n */
    double phi = (VNCL_PI / 4) * (double)(n - r) / (double)n;
    x = cos(phi);
    y = -sin(phi);
    o++;
  } else {
    double phi = (VNCL_PI / 4) * (double)r / (double)n;
    x = cos(phi);
    y = sin(phi);
  }
  double c, s; /* cos and sin of 2 pi t/n: (x, y) turned by o/2 quarters */
  switch ((o / 2) & 3) {
    case 0: c = x; s = y; break;
    case 1: c = -y; s = x; break;
    case 2: c = -x; s = -y; break;
    default: c = y; s = -x; break;
  }
  *re = c;
  *im = -s;
}

/* Forward DFT of x (m complex values) in double on the host, in place,
 * for any m: Stockham passes over the prime factors of m, each a direct
 * DFT of its radix p (O(m p) per pass; the convolution lengths are smooth,
 * p <= 13), every twiddle and root from unit_root (not by recurrence): the
 * ns p twiddles of a pass into a table first, so about 2m unit_root calls
 * in all. Returns false when out of host memory. */
static bool host_fft(double *x, size_t m) {
  size_t pmax = 1;
  for (size_t r = m, p = 2; r > 1; p++)
    while (r % p == 0) {
      r /= p;
      pmax = p;
    }
  double *y = malloc(2 * m * sizeof *y + 1);
  double *tw = malloc(2 * m * sizeof *tw + 1); /* a pass's twiddles */
  /* One butterfly's inputs, then the p-th roots of unity. */
  double *a = malloc(4 * pmax * sizeof *a), *rt = a + 2 * pmax;
  if (!y || !a || !tw) {
    free(y);
    free(a);
    free(tw);
    return false;
  }
  double *in = x, *out = y;
  size_t ns = 1, rest = m;
  while (rest > 1) {
    size_t p = 2;
    while (rest % p) p++;
    size_t q = m / p;
    for (size_t r = 0; r < p; r++) unit_root(r, p, &rt[2 * r], &rt[2 * r + 1]);
    for (size_t k = 0; k < ns; k++)
      for (size_t r = 0; r < p; r++)
        unit_root(r * k, ns * p, &tw[2 * (k * p + r)], &tw[2 * (k * p + r) + 1]);
    for (size_t j = 0; j < q; j++) {
      size_t k = j % ns, d = (j / ns) * ns * p + k;
      for (size_t r = 0; r < p; r++) {
        const double wr = tw[2 * (k * p + r)], wi = tw[2 * (k * p + r) + 1];
        const double *v = in + 2 * (j + r * q);
        a[2 * r] = v[0] * wr - v[1] * wi;
        a[2 * r + 1] = v[0] * wi + v[1] * wr;
      }
      for (size_t t = 0; t < p; t++) {
        double sr = 0, si = 0;
        for (size_t r = 0; r < p; r++) {
          const double wr = rt[2 * (r * t % p)], wi = rt[2 * (r * t % p) + 1];
          sr += a[2 * r] * wr - a[2 * r + 1] * wi;
          si += a[2 * r] * wi + a[2 * r + 1] * wr;
        }
        out[2 * (d + t * ns)] = sr;
        out[2 * (d + t * ns) + 1] = si;
      }
    }
    double *t = in;
    in = out;
    out = t;
    ns *= p;
    rest /= p;
  }
  if (in != x) memcpy(x, in, 2 * m * sizeof *x);
  free(y);
  free(a);
  free(tw);
  return true;
}

static vncl_status upload(vncl_context *ctx, const double *x, size_t count,
                          vncl_dtype dtype, cl_mem *out, size_t *bytes) {
  size_t esize = vncl_dtype_size(dtype);
  *bytes = count * esize;
  vncl_status s = vncl__buffer_alloc(ctx, *bytes, out);
  if (s) return s;
  const void *src = x;
  float *f = NULL;
  if (dtype == VNCL_F32) {
    f = malloc(count * sizeof *f);
    if (!f) {
      vncl__buffer_free(ctx, *out, *bytes);
      *out = NULL;
      return vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    for (size_t i = 0; i < count; i++) f[i] = (float)x[i];
    src = f;
  }
  cl_int err = clEnqueueWriteBuffer(ctx->queue, *out, CL_TRUE, 0, *bytes, src,
                                    0, NULL, NULL);
  free(f);
  if (err) {
    vncl__buffer_free(ctx, *out, *bytes);
    *out = NULL;
    return vncl__cl_fail(ctx, err, "clEnqueueWriteBuffer(chirp table)");
  }
  return VNCL_OK;
}

/* j*j mod m without overflow (j < m). */
static uint64_t square_mod(uint64_t j, uint64_t m) {
  if (j < (1ull << 32)) return j * j % m;
  uint64_t r = 0, a = j % m, b = j;
  while (b) { /* double and add: every partial sum stays below 2m */
    if (b & 1) r = r >= m - a ? r - (m - a) : r + a;
    a = a >= m - a ? a - (m - a) : a + a;
    b >>= 1;
  }
  return r;
}

vncl_status vncl__fft_chirp_get(vncl_context *ctx, vncl__fft_state *st,
                                size_t n, size_t m, vncl_dtype dtype,
                                vncl__fft_entry **out) {
  char key[256];
  snprintf(key, sizeof key, "chirp n%zu m%zu %s", n, m,
           vncl_dtype_name(dtype));
  if (lookup(st, key, false, out)) return VNCL_OK;
  vncl__fft_entry *e = calloc(1, sizeof *e);
  double *w = calloc(2 * n, sizeof *w), *b = calloc(2 * m, sizeof *b);
  if (!e || !w || !b) {
    free(w);
    free(b);
    return keep(ctx, st, e, key,
                vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory"),
                out);
  }
  /* w[j] = exp(-i pi j^2 / n) = exp(-2 pi i (j^2 mod 2n) / 2n), with j^2
   * reduced modulo 2n in integers so that the angle stays exact for large
   * j. */
  for (size_t j = 0; j < n; j++)
    unit_root((size_t)square_mod(j, 2 * (uint64_t)n), 2 * n, &w[2 * j],
              &w[2 * j + 1]);
  for (size_t j = 0; j < n; j++) {
    b[2 * j] = w[2 * j];
    b[2 * j + 1] = -w[2 * j + 1];
    if (j) {
      b[2 * (m - j)] = w[2 * j];
      b[2 * (m - j) + 1] = -w[2 * j + 1];
    }
  }
  vncl_status s = VNCL_OK;
  if (!host_fft(b, m))
    s = vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
  e->n = n;
  e->m = m;
  if (!s) s = upload(ctx, w, 2 * n, dtype, &e->tables[0], &e->table_bytes[0]);
  if (!s) s = upload(ctx, b, 2 * m, dtype, &e->tables[1], &e->table_bytes[1]);
  free(w);
  free(b);
  return keep(ctx, st, e, key, s, out);
}

/* a * b mod p, p < 2^32. */
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t p) { return a * b % p; }

/* The smallest generator of the multiplicative group modulo the prime p:
 * g^((p-1)/q) != 1 for every prime q dividing p - 1. */
static uint64_t primitive_root(uint64_t p) {
  uint64_t qs[32];
  int nq = 0;
  for (uint64_t r = p - 1, q = 2; r > 1; q++) {
    if (q * q > r) q = r;
    if (r % q == 0) {
      qs[nq++] = q;
      while (r % q == 0) r /= q;
    }
  }
  for (uint64_t g = 2; g < p; g++) {
    bool ok = true;
    for (int i = 0; ok && i < nq; i++) {
      uint64_t e = (p - 1) / qs[i], r = 1, b = g;
      for (; e; e >>= 1, b = mulmod(b, b, p))
        if (e & 1) r = mulmod(r, b, p);
      ok = r != 1;
    }
    if (ok) return g;
  }
  return 1; /* p = 2: never asked for */
}

vncl_status vncl__fft_rader_get(vncl_context *ctx, vncl__fft_state *st,
                                size_t p, vncl_dtype dtype,
                                vncl__fft_entry **out) {
  char key[256];
  snprintf(key, sizeof key, "rader n%zu %s", p, vncl_dtype_name(dtype));
  if (lookup(st, key, false, out)) return VNCL_OK;
  size_t m = p - 1;
  vncl__fft_entry *e = calloc(1, sizeof *e);
  double *b = malloc(2 * m * sizeof *b + 1);
  cl_uint *perm = malloc(2 * m * sizeof *perm + 1);
  vncl_status s = VNCL_OK;
  if (!e || !b || !perm) {
    s = vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
  } else {
    /* perm[q] = g^q, perm[m + q] = g^-q (mod p); b[q] = exp(-2 pi i g^-q
     * / p), transformed. g^-1 = g^(p-2). */
    uint64_t g = primitive_root(p), gi = 1, e2 = p - 2, bb = g;
    for (; e2; e2 >>= 1, bb = mulmod(bb, bb, p))
      if (e2 & 1) gi = mulmod(gi, bb, p);
    uint64_t up = 1, down = 1;
    for (size_t q = 0; q < m; q++) {
      perm[q] = (cl_uint)up;
      perm[m + q] = (cl_uint)down;
      unit_root((size_t)down, p, &b[2 * q], &b[2 * q + 1]);
      up = mulmod(up, g, p);
      down = mulmod(down, gi, p);
    }
    if (!host_fft(b, m))
      s = vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
    e->n = p;
    e->m = m;
    if (!s) s = upload(ctx, b, 2 * m, dtype, &e->tables[0], &e->table_bytes[0]);
    if (!s) {
      e->table_bytes[1] = 2 * m * sizeof *perm;
      s = vncl__buffer_alloc(ctx, e->table_bytes[1], &e->tables[1]);
      if (s) {
        e->table_bytes[1] = 0;
      } else {
        cl_int err =
            clEnqueueWriteBuffer(ctx->queue, e->tables[1], CL_TRUE, 0,
                                 e->table_bytes[1], perm, 0, NULL, NULL);
        if (err) s = vncl__cl_fail(ctx, err, "clEnqueueWriteBuffer(Rader permutation)");
      }
    }
  }
  free(b);
  free(perm);
  return keep(ctx, st, e, key, s, out);
}

/* exp(-2 pi i t / n) for t = first, first + step, ... (count values). */
static double *roots(size_t n, size_t first, size_t step, size_t count) {
  double *w = malloc(2 * count * sizeof *w + 1);
  if (!w) return NULL;
  for (size_t i = 0; i < count; i++) {
    /* The angle from the exact integer t mod n. */
    unit_root((first + i * step) % n, n, &w[2 * i], &w[2 * i + 1]);
  }
  return w;
}

vncl_status vncl__fft_twiddle_get(vncl_context *ctx, vncl__fft_state *st,
                                  size_t n, vncl_dtype dtype, bool split,
                                  vncl__fft_entry **out) {
  char key[256];
  snprintf(key, sizeof key, "%s n%zu %s", split ? "split" : "twiddle", n,
           vncl_dtype_name(dtype));
  if (lookup(st, key, false, out)) return VNCL_OK;
  vncl__fft_entry *e = calloc(1, sizeof *e);
  size_t shift = 0;
  while (((size_t)1 << (2 * shift)) < n) shift++; /* ceil(log2(n) / 2) */
  size_t nlo = split ? (size_t)1 << shift : n;
  size_t nhi = split ? (n + nlo - 1) / nlo : 0;
  double *lo = roots(n, 0, 1, nlo);
  double *hi = split ? roots(n, 0, nlo, nhi) : NULL;
  /* split: the rows of lane twiddles exp(-2 pi i l k / n), k = 8 r, for
   * the first step's outputs k < n1 <= sqrt(n) (fft_stockham: w^(m k) of
   * lane l = w^(m0 k) w^(l k) for consecutive m = m0 + l). */
  size_t vrows = 0;
  while ((8 * vrows) * (8 * vrows) <= n) vrows++;
  double *v = split ? malloc(32 * vrows * sizeof *v) : NULL;
  vncl_status s = VNCL_OK;
  if (!e || !lo || (split && (!hi || !v))) {
    s = vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
  } else {
    e->n = n;
    e->m = split ? shift : 0;
    s = upload(ctx, lo, 2 * nlo, dtype, &e->tables[0], &e->table_bytes[0]);
    if (!s && split)
      s = upload(ctx, hi, 2 * nhi, dtype, &e->tables[1], &e->table_bytes[1]);
    if (!s && split) {
      for (size_t r = 0; r < vrows; r++)
        for (size_t l = 0; l < 16; l++)
          unit_root(l * 8 * r, n, &v[32 * r + l], &v[32 * r + 16 + l]);
      s = upload(ctx, v, 32 * vrows, dtype, &e->tables[2], &e->table_bytes[2]);
    }
  }
  free(lo);
  free(hi);
  free(v);
  return keep(ctx, st, e, key, s, out);
}

vncl_status vncl__fft_pass_twiddles_get(vncl_context *ctx, vncl__fft_state *st,
                                        size_t n, vncl_dtype dtype,
                                        vncl__fft_entry **out) {
  char key[256];
  snprintf(key, sizeof key, "passes n%zu %s", n, vncl_dtype_name(dtype));
  if (lookup(st, key, false, out)) return VNCL_OK;
  vncl__fft_entry *e = calloc(1, sizeof *e);
  /* The forward twiddles of each pass in the order the kernel reads them
   * (PASS in fft_stockham.cl): the pass of radix R after sub-transforms of
   * ns holds w^(r k), w = exp(-2 pi i/(ns R)), k < ns, r = 1 .. R-1, at
   * ns - 1 + k (R - 1) + r - 1; n - 1 values in all, then n - 1 more,
   * conjugated, from index n. */
  double *w = malloc(4 * n * sizeof *w);
  int radix[64];
  int passes = vncl__fft_pass_radices(n, radix);
  vncl_status s = VNCL_OK;
  if (!e || !w) {
    s = vncl__fail(ctx, VNCL_ERR_OUT_OF_MEMORY, "out of host memory");
  } else {
    size_t ns = 1, i = 0;
    for (int p = 0; p < passes; p++) {
      size_t R = (size_t)radix[p];
      for (size_t k = 0; k < ns; k++)
        for (size_t r = 1; r < R; r++, i++)
          unit_root(r * k, ns * R, &w[2 * i], &w[2 * i + 1]);
      ns *= R;
    }
    /* i == n - 1 here (ns == n). */
    w[2 * i] = 1;
    w[2 * i + 1] = 0;
    for (size_t t = 0; t < n; t++) {
      w[2 * (n + t)] = w[2 * t];
      w[2 * (n + t) + 1] = -w[2 * t + 1];
    }
    e->n = n;
    s = upload(ctx, w, 4 * n, dtype, &e->tables[0], &e->table_bytes[0]);
  }
  free(w);
  return keep(ctx, st, e, key, s, out);
}

vncl_status vncl__fft_scratch(vncl_context *ctx, vncl__fft_state *st, int slot,
                              size_t bytes, cl_mem *out) {
  if (st->scratch_bytes[slot] >= bytes && (st->scratch[slot] || !bytes)) {
    if (out) *out = st->scratch[slot];
    return VNCL_OK;
  }
  cl_mem m = NULL;
  vncl_status s = vncl__buffer_alloc(ctx, bytes, &m);
  if (s) return s;
  /* Commands already enqueued on the old buffer keep it alive (OpenCL
   * releases a buffer once the commands using it are done). */
  vncl__buffer_free(ctx, st->scratch[slot], st->scratch_bytes[slot]);
  st->scratch[slot] = m;
  st->scratch_bytes[slot] = bytes;
  if (out) *out = m;
  return VNCL_OK;
}

/* One clFFT transform, made by vncl__enqueue (the launch path). */
typedef struct clfft_call {
  const vncl__fft_entry *e;
  clfftDirection dir;
  cl_command_queue q;
  cl_mem in, out, tmp;
} clfft_call;

static cl_int clfft_enqueue(void *arg, cl_event *ev) {
  clfft_call *c = arg;
  cl_mem outs[1] = {c->out};
  return (cl_int)clfftEnqueueTransform(c->e->plan, c->dir, 1, &c->q, 0, NULL,
                                       ev, &c->in, c->out ? outs : NULL,
                                       c->e->tmp_bytes ? c->tmp : NULL);
}

vncl_status vncl__fft_clfft_run(vncl_context *ctx, vncl__fft_state *st,
                                const vncl__fft_entry *e, clfftDirection dir,
                                cl_mem in, cl_mem out) {
  cl_mem tmp = NULL;
  vncl_status s =
      vncl__fft_scratch(ctx, st, VNCL__FFT_SCRATCH_CLFFT, e->tmp_bytes, &tmp);
  if (s) return s;
  /* clFFT gives the event of its last kernel only: plans of several kernels
   * are under-counted in the profile. */
  vncl__cmd cmd = {"fft", 0, 0, false};
  clfft_call c = {e, dir, ctx->queue, in, out, tmp};
  cl_int cs = vncl__enqueue(ctx, &cmd, clfft_enqueue, &c, NULL);
  if (cs != CLFFT_SUCCESS)
    return vncl__fft_fail(ctx, (clfftStatus)cs, "clfftEnqueueTransform");
  return VNCL_OK;
}
