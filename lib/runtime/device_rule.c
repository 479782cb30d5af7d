/* The one device-rule matcher: built-in per-device knowledge (GEMM and ops
 * parameter rows, the FFT engine table, the transfer path table) is rows of
 * data, each with a rule that says which devices it is for; this picks the
 * row for a device. docs/tuning.md ("The device-rule matcher"). */
#include <pthread.h>

#include "runtime/runtime.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static int host_family;
static pthread_once_t host_family_once = PTHREAD_ONCE_INIT;

static void host_family_init(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    unsigned family = (a >> 8) & 0xf;
    if (family == 0xf) family += (a >> 20) & 0xff;
    host_family = (int)family;
  }
#endif
}

int vncl__host_cpu_family(void) {
  pthread_once(&host_family_once, host_family_init);
  return host_family;
}

int vncl__rule_score(const vncl__device_rule *r, const vncl__device_key *k) {
  int score = 0;
  if (r->cpu_family > 0) {
    if (k->cpu_family != r->cpu_family) return -1;
    score += 1 << 13;
  }
  if (r->vendor && r->vendor[0]) {
    if (!k->vendor || !vncl__contains_nocase(k->vendor, r->vendor)) return -1;
    score += 1 << 12;
  }
  if (r->type) {
    if (r->type != k->type) return -1;
    score += 1 << 11;
  }
  if (r->memory != VNCL__RULE_ANY) {
    if (r->memory != (k->unified ? VNCL__RULE_UNIFIED : VNCL__RULE_DISCRETE))
      return -1;
    score += 1 << 10;
  }
  if (r->min_vec > 0) {
    if (k->vec < r->min_vec) return -1;
    score += (1 << 9) + (r->min_vec > 64 ? 64 : r->min_vec) * 4;
  }
  if (r->acc != VNCL__RULE_ANY) {
    if (r->acc != k->acc) return -1;
    score += 2;
  }
  if (r->shape != VNCL__RULE_ANY) {
    if (r->shape != k->shape) return -1;
    score += 1;
  }
  return score;
}

int vncl__rule_pick(const void *rows, size_t n, size_t stride,
                    const vncl__device_key *k, int below) {
  int best = -1, best_score = -1;
  for (size_t i = 0; i < n; i++) {
    const vncl__device_rule *r =
        (const vncl__device_rule *)(const void *)((const char *)rows +
                                                  i * stride);
    int s = vncl__rule_score(r, k);
    if (s < 0) continue;
    /* The next rank down: below is a (score << 16 | row) bound. */
    int key = (s << 16) | (int)(0xffff - i);
    if (below >= 0 && key >= below) continue;
    if (key > best_score) {
      best_score = key;
      best = (int)i;
    }
  }
  return best < 0 ? -1 : best;
}

int vncl__rule_pick_fit(const void *rows, size_t n, size_t stride,
                        const vncl__device_key *k,
                        bool (*fits)(int i, void *arg), void *arg) {
  int below = -1;
  for (;;) {
    int i = vncl__rule_pick(rows, n, stride, k, below);
    if (i < 0 || fits(i, arg)) return i;
    below = vncl__rule_rank_key(rows, stride, i, k);
  }
}

int vncl__rule_rank_key(const void *rows, size_t stride, int i,
                        const vncl__device_key *k) {
  const vncl__device_rule *r =
      (const vncl__device_rule *)(const void *)((const char *)rows +
                                                (size_t)i * stride);
  return (vncl__rule_score(r, k) << 16) | (0xffff - i);
}

void vncl__device_key_of(const vncl_device_info *info, int vec, int acc,
                         int shape, vncl__device_key *out) {
  out->vendor = info->vendor;
  out->type = info->type;
  out->unified = info->unified_memory != 0;
  out->vec = vec;
  out->acc = acc;
  out->shape = shape;
  out->cpu_family =
      info->type == VNCL_DEVICE_CPU ? vncl__host_cpu_family() : 0;
}
