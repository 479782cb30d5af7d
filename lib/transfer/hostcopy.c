/* Host copies that do not trust the C library's memcpy blindly.
 *
 * On some CPUs (measured on an AMD EPYC host: issue 14, and a known trait of
 * `rep movsb` on several AMD cores) glibc's memcpy runs 3-4x slower when the
 * destination sits a little ahead of the source modulo the 4 KiB page: the
 * loads then alias the stores just issued. The relative alignment
 * r = (dst - src) mod 4096 decides it, so a user's malloc'd buffer can be
 * fast into one tensor and slow into the next.
 *
 * This file measures rather than guesses. The first large copy at a given
 * class of r (64 classes of 64 bytes) times memcpy at that r against memcpy
 * at r = 0, on buffers that stay in the cache (the penalty is in the core,
 * not in the memory); a class is slow when it costs more than
 * VNCL__SLOW_RATIO times the baseline in the best of several rounds. A slow
 * class is copied through a small bounce buffer placed so that both of its
 * copies see a fast relative alignment (found the same way); the extra pass
 * stays in the L1/L2 cache, so the copy runs at the speed of the fast
 * classes; from 4 MiB on, where the destination no longer stays in the
 * cache, a slow class is copied with non-temporal stores
 * (vncl__host_copy_stream)
 * instead, which read no destination line and use no `rep movsb`. Hosts
 * whose memcpy is uniform (the Intel Xeons measured so far)
 * keep plain memcpy for every class.
 *
 * VNCL_HOST_COPY=memcpy or =bounce forces one method for every class (tests,
 * and a user who wants to measure); it is read once per process. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "transfer/transfer.h"

#define PAGE 4096u
#define CLASSES 64u                  /* classes of r, CLASS_BYTES each */
#define CLASS_BYTES (PAGE / CLASSES) /* 64 */
#define PROBE_BYTES ((size_t)128 << 10)
#define BOUNCE_BYTES ((size_t)16 << 10)
/* From this size a slow class is copied with non-temporal stores instead
 * of the bounce (whose cached stores read every destination line first). */
#define STREAM_MIN ((size_t)4 << 20)
/* On a host where one non-temporal stream beats page-interleaved ones
 * (probe_stream), copies from this size use it whatever the relative
 * alignment: on the Zen 3 it ran at 1.1-1.6x glibc's memcpy from 16 MiB at
 * every relative alignment measured (13-21 GB/s against 11-13), at 0.7-1.0x
 * at 8 MiB, where memcpy's stores still land in the cache. */
#define STREAM_ALL_MIN ((size_t)16 << 20)
#define VNCL__SLOW_RATIO 1.5
#define ROUNDS 5

enum { M_UNKNOWN = 0, M_MEMCPY, M_BOUNCE };

/* Per class: the method, and for M_BOUNCE the bounce buffer's offset from
 * the source modulo PAGE (a multiple of CLASS_BYTES). */
static _Atomic unsigned char method[CLASSES];
static _Atomic unsigned short bounce_off[CLASSES];
static int forced; /* M_UNKNOWN: measure */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_env(void) {
  const char *v = vncl__getenv("VNCL_HOST_COPY");
  if (!v) return;
  if (!strcasecmp(v, "memcpy"))
    forced = M_MEMCPY;
  else if (!strcasecmp(v, "bounce"))
    forced = M_BOUNCE;
  else if (strcasecmp(v, "auto"))
    vncl__log(VNCL_LOG_WARN,
              "VNCL_HOST_COPY=%s is not auto, memcpy or bounce; measuring", v);
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The best of ROUNDS memcpy timings of PROBE_BYTES from src to src + r (in a
 * buffer laid out by the caller), after one warm-up copy. */
static double time_at(unsigned char *base, unsigned r) {
  unsigned char *src = base, *dst = base + PROBE_BYTES + PAGE + r;
  memcpy(dst, src, PROBE_BYTES);
  double best = 1e30;
  for (int i = 0; i < ROUNDS; i++) {
    double t0 = seconds();
    memcpy(dst, src, PROBE_BYTES);
    double t = seconds() - t0;
    if (t < best) best = t;
  }
  return best;
}

/* Measures class c (and, when slow, a bounce offset for it). Runs without a
 * lock: two threads measuring the same class at once only repeat work. */
static void measure(unsigned c) {
  unsigned char *raw = malloc(2 * (PROBE_BYTES + PAGE) + PAGE);
  if (!raw) return; /* stays unknown: memcpy, measured again later */
  unsigned char *base =
      (unsigned char *)(((uintptr_t)raw + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
  memset(base, 0x5A, PROBE_BYTES);
  double t0 = time_at(base, 0);
  double tc = c ? time_at(base, c * CLASS_BYTES) : t0;
  unsigned char m = M_MEMCPY;
  if (tc > VNCL__SLOW_RATIO * t0) {
    /* Both halves of a bounce must be fast: src -> bounce at r1, bounce ->
     * dst at r - r1. Try r1 = r +- half a page first, then others. */
    for (unsigned k = CLASSES / 2; k < CLASSES + CLASSES / 2 && m == M_MEMCPY;
         k += CLASSES / 8) {
      unsigned r1 = ((c + k) % CLASSES) * CLASS_BYTES;
      unsigned r2 = (c * CLASS_BYTES + PAGE - r1) % PAGE;
      if (time_at(base, r1) < 1.2 * t0 && time_at(base, r2) < 1.2 * t0) {
        atomic_store(&bounce_off[c], (unsigned short)r1);
        m = M_BOUNCE;
      }
    }
    if (m == M_MEMCPY)
      vncl__log(VNCL_LOG_DEBUG,
                "host copy: memcpy at relative offset %u is %.1fx slower, and "
                "no bounce offset helps",
                c * CLASS_BYTES, tc / t0);
  }
  free(raw);
  atomic_store(&method[c], m);
}

static unsigned class_of(const void *dst, const void *src) {
  return (unsigned)(((uintptr_t)dst - (uintptr_t)src) % PAGE) / CLASS_BYTES;
}

/* Copies through a bounce buffer whose offset from the source is r1
 * (mod PAGE), a block at a time; falls back to memcpy without memory. */
void vncl__host_copy_via(void *dstv, const void *srcv, size_t n,
                         unsigned r1) {
  unsigned char *dst = dstv;
  const unsigned char *src = srcv;
  unsigned char *raw = malloc(BOUNCE_BYTES + 2 * PAGE);
  if (!raw) {
    memcpy(dst, src, n);
    return;
  }
  uintptr_t want = ((uintptr_t)src + r1) % PAGE;
  uintptr_t at = (uintptr_t)raw;
  at += (want - at % PAGE + PAGE) % PAGE;
  unsigned char *b = (unsigned char *)at;
  for (size_t off = 0; off < n; off += BOUNCE_BYTES) {
    size_t len = n - off < BOUNCE_BYTES ? n - off : BOUNCE_BYTES;
    memcpy(b, src + off, len);
    memcpy(dst + off, b, len);
  }
  free(raw);
}

/* Large copies: non-temporal stores (no read of the destination), in one
 * of two orders, both without `rep movsb`:
 * - pages 4: four streams a page apart per step, so that the loads of one
 *   page run ahead of the stores of the others. Measured on the Xeon (256
 *   MiB, source and destination 32 bytes out of step): 0.95x of its
 *   memcpy, against 0.7x for a single stream and 0.5x for the bounce.
 * - pages 1: one stream, in order. On an AMD EPYC with AVX2 (Zen 3: x86
 *   family 25, model 1; session 47) the four streams ran at 1.3-2.6 GB/s
 *   wherever source and destination were within a few hundred bytes of
 *   each other modulo a page (either way round), against 12-15 GB/s for
 *   one stream at every relative alignment (256 MiB, plain C). glibc's own
 *   large copies (from its non-temporal threshold on) interleave pages the
 *   same way and slowed down the same: 3.5-3.9 GB/s at 256 MiB against
 *   12-15 GB/s, where its 128 KiB copies (the probe above) did not.
 * Which order this host gets is measured once (probe_stream). Without
 * SSE2, the bounce. */
#if defined(__SSE2__)
static void stream_lines(unsigned char *d, const unsigned char *s, size_t n) {
  for (size_t j = 0; j < n; j += 64) {
    const unsigned char *ss = s + j;
    __m128i *dd = (__m128i *)(void *)(d + j);
    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)ss);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(ss + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(ss + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(ss + 48));
    _mm_stream_si128(dd, x0);
    _mm_stream_si128(dd + 1, x1);
    _mm_stream_si128(dd + 2, x2);
    _mm_stream_si128(dd + 3, x3);
  }
}
#endif

void vncl__host_copy_stream_as(void *dstv, const void *srcv, size_t n,
                               unsigned pages) {
#if defined(__SSE2__)
  unsigned char *d = dstv;
  const unsigned char *s = srcv;
  size_t head = (PAGE - ((uintptr_t)d & (PAGE - 1))) & (PAGE - 1);
  if (head > n) head = n;
  memcpy(d, s, head);
  d += head;
  s += head;
  n -= head;
  size_t o = 0;
  if (pages == 1) {
    o = n & ~(size_t)63;
    unsigned r = (unsigned)(((uintptr_t)d - (uintptr_t)s) % PAGE);
    if (r > 0 && r < PAGE / 4) {
      /* The destination a little ahead of the source: the load of x then
       * shares its page offset with the store to x - r, issued a few lines
       * earlier when copying upwards, later when copying downwards. On the
       * Zen 3, 256 MiB at r = 32 and 96: 14.7-15.7 GB/s downwards against
       * 13.1-13.2 upwards (and 15.1-15.9 upwards at other r, where
       * downwards gave 13.7-14.5). */
      for (size_t j = o; j > 0; j -= 64)
        stream_lines(d + j - 64, s + j - 64, 64);
    } else {
      stream_lines(d, s, o);
    }
  } else {
    for (; o + 4 * PAGE <= n; o += 4 * PAGE)
      for (size_t j = 0; j < PAGE; j += 64)
        for (size_t p = 0; p < 4; p++)
          stream_lines(d + o + p * PAGE + j, s + o + p * PAGE + j, 64);
  }
  _mm_sfence();
  memcpy(d + o, s + o, n - o);
#else
  (void)pages;
  vncl__host_copy_via(dstv, srcv, n, PAGE / 2);
#endif
}

/* 1 or 4 (the order above), 0 until measured. */
static _Atomic unsigned stream_pages;
static pthread_once_t stream_once = PTHREAD_ONCE_INIT;

/* Times both orders on 1 MiB whose destination is 16 bytes ahead of its
 * source modulo a page (a malloc'd buffer against page-aligned memory),
 * best of 3 after a warm-up: one stream when the four streams take more
 * than twice as long (the Zen 3 above: 10x at 1 MiB), else four. */
static void probe_stream(void) {
  const size_t bytes = (size_t)1 << 20;
  unsigned pages = 4;
  unsigned char *raw = malloc(2 * (bytes + 2 * PAGE) + PAGE);
  if (raw) {
    unsigned char *src =
        (unsigned char *)(((uintptr_t)raw + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
    unsigned char *dst = src + bytes + 2 * PAGE + 16;
    memset(src, 0x5A, bytes);
    double best[2] = {1e30, 1e30};
    for (int i = 0; i < 4; i++)
      for (int v = 0; v < 2; v++) {
        double t0 = seconds();
        vncl__host_copy_stream_as(dst, src, bytes, v ? 1 : 4);
        double t = seconds() - t0;
        if (i > 0 && t < best[v]) best[v] = t;
      }
    if (best[0] > 2.0 * best[1]) pages = 1;
    vncl__log(VNCL_LOG_DEBUG,
              "host copy: non-temporal copies of 1 MiB 16 bytes out of step, "
              "four page streams %.0f us, one stream %.0f us: %u",
              best[0] * 1e6, best[1] * 1e6, pages);
    free(raw);
  }
  atomic_store(&stream_pages, pages);
}

static unsigned stream_order(void) {
  pthread_once(&stream_once, probe_stream);
  return atomic_load(&stream_pages);
}

void vncl__host_copy_stream(void *dst, const void *src, size_t n) {
  vncl__host_copy_stream_as(dst, src, n, stream_order());
}

void vncl__host_copy(void *dst, const void *src, size_t n) {
  if (n < VNCL__HOST_COPY_MIN) {
    memcpy(dst, src, n);
    return;
  }
  pthread_once(&once, read_env);
  unsigned c = class_of(dst, src);
  int m = forced;
  if (m == M_UNKNOWN) {
    m = atomic_load(&method[c]);
    if (m == M_UNKNOWN) {
      measure(c);
      m = atomic_load(&method[c]);
    }
  }
  if (m == M_BOUNCE && n >= STREAM_MIN) {
    vncl__host_copy_stream(dst, src, n);
  } else if (n >= STREAM_ALL_MIN && forced != M_MEMCPY &&
             stream_order() == 1) {
    /* A host whose page-interleaved copies slow down (glibc's large ones
     * among them): one stream for every class from here on. */
    vncl__host_copy_stream_as(dst, src, n, 1);
  } else if (m == M_BOUNCE) {
    unsigned r1 = forced == M_BOUNCE && atomic_load(&method[c]) != M_BOUNCE
                      ? PAGE / 2
                      : atomic_load(&bounce_off[c]);
    vncl__host_copy_via(dst, src, n, r1);
  } else {
    memcpy(dst, src, n);
  }
}

bool vncl__host_copy_uniform(void) {
  pthread_once(&once, read_env);
  if (forced == M_BOUNCE) return false;
  if (forced == M_MEMCPY) return true;
  /* Page-interleaved copies slow down at some relative alignments: so do
   * the driver's large copies through glibc's memcpy. */
  if (stream_order() == 1) return false;
  /* The classes that malloc'd buffers meet most against page-aligned
   * device memory: a few bytes to a few hundred ahead, and none. */
  static const unsigned probe[] = {0, 1, 2, 4, 8, 32, 63};
  for (size_t i = 0; i < sizeof probe / sizeof *probe; i++) {
    unsigned c = probe[i];
    if (atomic_load(&method[c]) == M_UNKNOWN) measure(c);
    if (atomic_load(&method[c]) == M_BOUNCE) return false;
  }
  return true;
}
