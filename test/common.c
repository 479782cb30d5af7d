#define _GNU_SOURCE
#include <dirent.h>
#include <stdbool.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static uint64_t state;
static int seeded;

void t_test_filter(void) {
  const char *f = getenv("VNCL_TEST_FILTER");
  if (f) cmocka_set_test_filter(f);
}

uint64_t t_seed(void) {
  if (!seeded) {
    const char *s = getenv("VNCL_TEST_SEED");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    state = s ? strtoull(s, NULL, 0)
              : ((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                 ((uint64_t)getpid() << 40));
    fprintf(stderr, "test seed: VNCL_TEST_SEED=%llu\n",
            (unsigned long long)state);
    seeded = 1;
  }
  return state;
}

uint64_t t_rand_u64(void) {
  t_seed();
  /* splitmix64 */
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double t_rand_uniform(double lo, double hi) {
  return lo + (hi - lo) * (double)(t_rand_u64() >> 11) * (1.0 / 9007199254740992.0);
}

void t_fill_random_f32(float *x, size_t n) {
  for (size_t i = 0; i < n; i++) x[i] = (float)t_rand_uniform(-1, 1);
}

void t_tmpdir(char *out, size_t cap) {
  snprintf(out, cap, "/tmp/vncl-test-XXXXXX");
  if (!mkdtemp(out)) fail_msg("mkdtemp failed");
}

void t_rmtree(const char *path) {
  DIR *d = opendir(path);
  if (!d) {
    unlink(path);
    return;
  }
  struct dirent *e;
  char sub[2048];
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    struct stat st;
    if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
      t_rmtree(sub);
    else
      unlink(sub);
  }
  closedir(d);
  rmdir(path);
}

void t_env_set(t_env *e, const char *name, const char *value) {
  const char *was = getenv(name);
  e->name = name;
  e->had = was != NULL;
  snprintf(e->value, sizeof e->value, "%s", was ? was : "");
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

void t_env_restore(const t_env *e) {
  if (e->had)
    setenv(e->name, e->value, 1);
  else
    unsetenv(e->name);
}

int t_pocl_serial_expected(const char *name, const char *driver) {
  if (strncmp(name, "basic", 5) && strncmp(name, "cpu-minimal", 11))
    return -1;
  return atoi(driver) < 5;
}

bool t_every_cpu_open(void) {
#ifdef __linux__
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  if (n < 1 || n > CPU_SETSIZE || sched_getaffinity(0, sizeof set, &set) ||
      CPU_COUNT(&set) != n)
    return false;
  for (long i = 0; i < n; i++)
    if (!CPU_ISSET((int)i, &set)) return false;
  return true;
#else
  return false;
#endif
}

vncl_context *t_context(const char *cache_dir) {
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = cache_dir;
  vncl_context *ctx = NULL;
  vncl_status s = vncl_context_create(&ctx, &o);
  if (s) fail_msg("vncl_context_create: %s", vncl_errmsg(NULL));
  return ctx;
}

/* ---- the shared fixture ------------------------------------------------- */

vncl_context *t_ctx;

static int setup_with(const char *cache) {
  t_ctx = t_context(cache);
  return t_ctx ? 0 : -1;
}
int t_setup(void **st) {
  (void)st;
  return setup_with(NULL);
}
int t_setup_nocache(void **st) {
  (void)st;
  return setup_with("off");
}
int t_teardown(void **st) {
  (void)st;
  vncl_context_destroy(t_ctx);
  t_ctx = NULL;
  return 0;
}

bool t_has_fp64(void) {
  vncl_device_info d;
  return t_ctx && vncl_context_device_info(t_ctx, &d) == VNCL_OK && d.fp64;
}

/* ---- devices and the selector oracle ------------------------------------ */

static int dev_n = -1;
static vncl_device_info dev_list[T_MAX_DEVICES];

void t_devices_load(int *n, vncl_device_info *out) {
  vncl_status s = vncl_device_count(&dev_n);
  if (s) fail_msg("vncl_device_count: %s", vncl_errmsg(NULL));
  if (dev_n < 1 || dev_n > T_MAX_DEVICES) fail_msg("%d devices", dev_n);
  for (int i = 0; i < dev_n; i++)
    if (vncl_device_get_info(i, &dev_list[i]))
      fail_msg("vncl_device_get_info(%d): %s", i, vncl_errmsg(NULL));
  if (n) *n = dev_n;
  if (out) memcpy(out, dev_list, (size_t)dev_n * sizeof *out);
}

static int has_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (!strncasecmp(hay, needle, n)) return 1;
  return 0;
}

int t_expected_select(const char *sel) {
  if (dev_n < 0) t_devices_load(NULL, NULL);
  vncl_device_type want = 0;
  if (!strcasecmp(sel, "gpu")) want = VNCL_DEVICE_GPU;
  else if (!strcasecmp(sel, "cpu")) want = VNCL_DEVICE_CPU;
  else if (!strcasecmp(sel, "accelerator")) want = VNCL_DEVICE_ACCELERATOR;
  for (int i = 0; i < dev_n; i++) {
    const vncl_device_info *d = &dev_list[i];
    if (want ? d->type == want
             : (has_nocase(d->vendor, sel) || has_nocase(d->name, sel) ||
                has_nocase(d->platform, sel) ||
                has_nocase(d->platform_version, sel)))
      return i;
  }
  return -1;
}

void t_absent_name(char *out, size_t cap) {
  do
    snprintf(out, cap, "no-such-device-%08llx",
             (unsigned long long)(t_rand_u64() & 0xffffffffu));
  while (t_expected_select(out) >= 0);
}

cl_device_id t_cl_device(int index) {
  vncl_device_info d;
  if (vncl_device_get_info(index, &d)) fail_msg("%s", vncl_errmsg(NULL));
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, plats, &np) || (cl_uint)d.platform_index >= np)
    fail_msg("no OpenCL platform %d", d.platform_index);
  cl_device_id ids[64];
  cl_uint nd = 0;
  if (clGetDeviceIDs(plats[d.platform_index], CL_DEVICE_TYPE_ALL, 64, ids,
                     &nd) ||
      (cl_uint)d.device_index >= nd)
    fail_msg("no OpenCL device %d:%d", d.platform_index, d.device_index);
  return ids[d.device_index];
}

/* ---- Philox4x32-10 (Salmon et al., SC'11), the reference of random.cl ---- */

void t_philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; r++) {
    if (r) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0];
    uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n1 = (uint32_t)p1;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1, n3 = (uint32_t)p0;
    c[0] = n0, c[1] = n1, c[2] = n2, c[3] = n3;
  }
}

void t_philox_block(uint64_t seed, uint64_t sub, uint64_t blk, uint32_t w[4]) {
  w[0] = (uint32_t)blk;
  w[1] = (uint32_t)(blk >> 32);
  w[2] = (uint32_t)sub;
  w[3] = (uint32_t)(sub >> 32);
  t_philox4x32_10(w, (uint32_t)seed, (uint32_t)(seed >> 32));
}

double t_philox_u53(uint32_t a, uint32_t b) {
  return (double)(((uint64_t)(a >> 5) << 26) | (uint64_t)(b >> 6)) * 0x1p-53;
}

/* ---- a checked product ---------------------------------------------------- */

bool t_gemm_f32_check(vncl_context *ctx, size_t m, size_t n, size_t k,
                          char *why, size_t cap) {
  int64_t sa[2] = {(int64_t)m, (int64_t)k}, sb[2] = {(int64_t)k, (int64_t)n},
          sc[2] = {(int64_t)m, (int64_t)n};
  float *a = malloc(m * k * 4), *b = malloc(k * n * 4), *c = malloc(m * n * 4);
  vncl_tensor *ta = NULL, *tb = NULL, *tc = NULL;
  bool ok = a && b && c;
  if (!ok) snprintf(why, cap, "out of host memory");
  if (ok) {
    /* The shared generator is not for threads: a local one, seeded from
     * the inputs' shape and the run's seed. */
    uint64_t x = t_seed() ^ (m * 0x9e3779b97f4a7c15ULL) ^ (n << 20) ^ k;
    for (size_t i = 0; i < m * k + k * n; i++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      float v = (float)((double)(x >> 11) / 9007199254740992.0 * 2 - 1);
      if (i < m * k) a[i] = v; else b[i - m * k] = v;
    }
    for (size_t i = 0; i < m * n; i++) c[i] = NAN;
    vncl_status st = vncl_tensor_create(ctx, VNCL_F32, 2, sa, &ta);
    if (!st) st = vncl_tensor_create(ctx, VNCL_F32, 2, sb, &tb);
    if (!st) st = vncl_tensor_create(ctx, VNCL_F32, 2, sc, &tc);
    if (!st) st = vncl_tensor_write(ta, a, m * k * 4);
    if (!st) st = vncl_tensor_write(tb, b, k * n * 4);
    if (!st) st = vncl_tensor_write(tc, c, m * n * 4);
    if (!st)
      st = vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1.0, ta, tb, 0.0, tc);
    if (!st) st = vncl_tensor_read(tc, c, m * n * 4);
    if (st) {
      snprintf(why, cap, "%zux%zux%zu: %s", m, n, k, vncl_errmsg(ctx));
      ok = false;
    }
  }
  double *ad = ok ? malloc(m * k * sizeof *ad) : NULL;
  double *bd = ok ? malloc(k * n * sizeof *bd) : NULL;
  double *want = ok ? malloc(m * n * sizeof *want) : NULL;
  double *mag = ok ? malloc(m * n * sizeof *mag) : NULL;
  if (ok && (!ad || !bd || !want || !mag)) {
    snprintf(why, cap, "out of host memory");
    ok = false;
  }
  if (ok) {
    for (size_t i = 0; i < m * k; i++) ad[i] = a[i];
    for (size_t i = 0; i < k * n; i++) bd[i] = b[i];
    t_ref_gemm(false, false, m, n, k, 1, 1.0, ad, k, bd, n, 0.0, NULL, n,
               want, mag);
  }
  for (size_t i = 0; ok && i < m * n; i++) {
    double got = c[i];
    double tol = 2.0 * (double)k * 0x1p-24 * mag[i] + 1e-30;
    if (!(fabs(got - want[i]) <= tol)) {
      snprintf(why, cap, "C(%zu,%zu) of %zux%zux%zu = %.9g, want %.9g "
               "(tol %.3g)", i / n, i % n, m, n, k, got, want[i], tol);
      ok = false;
    }
  }
  free(ad);
  free(bd);
  free(want);
  free(mag);
  vncl_tensor_destroy(ta);
  vncl_tensor_destroy(tb);
  vncl_tensor_destroy(tc);
  free(a);
  free(b);
  free(c);
  return ok;
}

/* ---- 16-bit formats, independently of the library ------------------------
 * The values of the bits by their definition, and conversions from double
 * by nearest lookup in the sorted table of every finite positive value. */

static double t_f16_table[31744];  /* bits 0x0000 .. 0x7bff */
static double t_bf16_table[32640]; /* bits 0x0000 .. 0x7f7f */
static pthread_once_t t_tables_once = PTHREAD_ONCE_INIT;

double t_f16_value(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexp(m, -24);
  else v = ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

double t_bf16_value(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void t_tables_fill(void) {
  for (int i = 0; i < 31744; i++) t_f16_table[i] = t_f16_value((uint16_t)i);
  for (int i = 0; i < 32640; i++) t_bf16_table[i] = t_bf16_value((uint16_t)i);
}
/* Threads of a test may convert at once. */
static void t_tables(void) { pthread_once(&t_tables_once, t_tables_fill); }

/* Nearest entry of a sorted table of n positive values (ties to the even
 * index), n when x is beyond the last value by half a step or more. */
static int t_nearest(const double *tab, int n, double x) {
  int lo = 0, hi = n - 1;
  if (x >= tab[n - 1]) {
    /* beyond the largest: overflow when past the halfway point to the next
     * (virtual) value, one step above */
    double step = tab[n - 1] - tab[n - 2];
    if (x > tab[n - 1] + step / 2) return n;
    if (x == tab[n - 1] + step / 2) return ((n - 1) & 1) ? n : n - 1;
    return n - 1;
  }
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (tab[mid] <= x) lo = mid; else hi = mid;
  }
  double dl = x - tab[lo], dh = tab[hi] - x;
  if (dl < dh) return lo;
  if (dh < dl) return hi;
  return (lo & 1) ? hi : lo;
}

/* Correctly rounded (nearest even) conversions from double. */
uint16_t t_to_f16(double x) {
  t_tables();
  if (isnan(x)) return 0x7e00;
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  int i = t_nearest(t_f16_table, 31744, fabs(x));
  return sign | (i >= 31744 ? 0x7c00 : (uint16_t)i);
}
uint16_t t_to_bf16(double x) {
  t_tables();
  if (isnan(x)) return 0x7fc0;
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  int i = t_nearest(t_bf16_table, 32640, fabs(x));
  return sign | (i >= 32640 ? 0x7f80 : (uint16_t)i);
}
