/* Helpers shared by the cmocka tests. */
#ifndef VNCL_TEST_COMMON_H
#define VNCL_TEST_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

#include "vncl.h"
#include "common_ref.h" /* t_ref_gemm: the host reference GEMM */

/* Fresh inputs every run: the seed comes from the clock and the pid unless
 * VNCL_TEST_SEED is set, and is printed so that a failure can be replayed. */
uint64_t t_seed(void);
uint64_t t_rand_u64(void);

/* VNCL_TEST_FILTER=pattern runs the matching tests only (cmocka's filter;
 * slow sanitizer runs, one test while working on it). Call before
 * cmocka_run_group_tests. */
void t_test_filter(void);
double t_rand_uniform(double lo, double hi);
void t_fill_random_f32(float *x, size_t n);

/* A fresh temporary folder (mkdtemp); removed with t_rmtree. */
void t_tmpdir(char *out, size_t cap);
void t_rmtree(const char *path);

/* Sets (value NULL: unsets) an environment variable for a while, keeping
 * what it was; t_env_restore puts that back (or unsets it again). */
typedef struct t_env {
  const char *name;
  bool had;
  char value[256];
} t_env;
void t_env_set(t_env *e, const char *name, const char *value);
void t_env_restore(const t_env *e);
/* Whether this thread may run on every online CPU and they are numbered 0
 * to n-1: where vncl pins PoCL's workers (docs/portability.md, "PoCL's
 * worker threads"). false off Linux. */
bool t_every_cpu_open(void);
/* For a device named `name` with driver `driver`: -1 when it is not PoCL's
 * single-threaded device ("basic", "cpu-minimal"), else whether vncl must
 * treat it as serial (PoCL before 5.0; docs/portability.md, "PoCL's
 * single-threaded device"). */
int t_pocl_serial_expected(const char *name, const char *driver);

/* A context on the default device with the given cache folder (NULL: the
 * caller's environment), failing the test on error. */
vncl_context *t_context(const char *cache_dir);

/* The fixture the test groups share (cmocka_run_group_tests(tests,
 * t_setup, t_teardown)): t_ctx, a context on the selected device
 * (VNCL_DEVICE, else the first) with the caller's binary cache, or with the
 * cache off (t_setup_nocache: tests whose builds must not come from, or
 * go to, the cache). A file names it `ctx` with `#define ctx t_ctx`. */
extern vncl_context *t_ctx;
int t_setup(void **st);
int t_setup_nocache(void **st);
int t_teardown(void **st);

/* Skip rules: skips the current test, saying why, when cond holds. */
#define T_SKIP_IF(cond, ...)                                              \
  do {                                                                    \
    if (cond) {                                                           \
      print_message("skipped: " __VA_ARGS__);                             \
      print_message("\n");                                                \
      skip();                                                             \
    }                                                                     \
  } while (0)
/* Whether t_ctx's device computes in f64. */
bool t_has_fp64(void);

/* The devices this machine has, and what the documented selector rules
 * (README, "Selecting a device") pick among them: expectations come from the
 * devices found, never from the machine a test was written on. */
#define T_MAX_DEVICES 64
void t_devices_load(int *n, vncl_device_info *out); /* out[T_MAX_DEVICES] */
/* The first device that a type word (gpu, cpu, accelerator) or a name
 * substring (vendor, device, platform, platform version; any case)
 * selects, -1 for none. */
int t_expected_select(const char *sel);
/* The CPU Philox4x32-10 that vncl's random kernels must match bit for bit
 * (random.cl): ten rounds on counter c with key (k0, k1); the four words of
 * block `blk` of stream (seed, sub); and the uniform double in [0, 1) the
 * kernels make of two words (53 bits). */
void t_philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1);
void t_philox_block(uint64_t seed, uint64_t sub, uint64_t blk, uint32_t w[4]);
double t_philox_u53(uint32_t a, uint32_t b);

/* The 16-bit storage types, independently of the library (the oracle its
 * conversions are checked against): the double that the bits of an IEEE
 * half or a bfloat16 stand for, and a double to the nearest such value's
 * bits (ties to even, overflow to infinity, NaN to a quiet NaN). */
double t_f16_value(uint16_t h);
double t_bf16_value(uint16_t b);
uint16_t t_to_f16(double x);
uint16_t t_to_bf16(double x);

/* C = A B (f32, row-major, m x k times k x n) of fresh random inputs through
 * vncl_gemm on tensors, C poisoned with NaN first, every element checked
 * against the product in double (error bound 2 k 2^-24 sum|a b|). Returns
 * false with the reason in why; asserts nothing, so threads may call it
 * (its inputs come from a local generator seeded by t_seed and the shape). */
bool t_gemm_f32_check(vncl_context *ctx, size_t m, size_t n, size_t k,
                      char *why, size_t cap);

/* The cl_device_id of vncl's device `index`, found through the raw OpenCL
 * enumeration (its P:D), for tests that ask the driver directly. */
cl_device_id t_cl_device(int index);
/* A device name that no device found mentions. */
void t_absent_name(char *out, size_t cap);

/* Asserts a vncl call succeeded, printing the message otherwise. */
#define T_OK(ctx, call)                                                    \
  do {                                                                     \
    vncl_status t_s_ = (call);                                             \
    if (t_s_ != VNCL_OK)                                                   \
      fail_msg("%s -> %s: %s", #call, vncl_status_name(t_s_),              \
               vncl_errmsg(ctx));                                          \
  } while (0)

/* Asserts a status and that the message names the problem. */
#define T_FAILS(ctx, call, status, needle)                                 \
  do {                                                                     \
    vncl_status t_s_ = (call);                                             \
    if (t_s_ != (status))                                                  \
      fail_msg("%s -> %s, expected %s (%s)", #call, vncl_status_name(t_s_), \
               vncl_status_name(status), vncl_errmsg(ctx));                \
    if (!strstr(vncl_errmsg(ctx), (needle)))                               \
      fail_msg("%s: message '%s' does not mention '%s'", #call,            \
               vncl_errmsg(ctx), (needle));                                \
  } while (0)

#endif
