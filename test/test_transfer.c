/* Transfers: every path (direct, staged, map, pinned) at the edge sizes
 * around a chunk and beyond the whole pool, blocking and async; 8 threads
 * at once on distinct tensors and on one; pool exhaustion (waits and
 * fallbacks, no deadlock); async reads chained after a kernel and after a
 * user event; caller-pinned memory; the caching allocator's reuse, zero
 * fill, trim and OOM retry; bad input; teardown with work in flight. Fresh
 * random bytes each run, every byte checked. path=staged through the
 * tensor's mapping (devices that share host memory) at every page offset.
 *
 * test_host_copy tests an internal on purpose (transfer/transfer.h): the
 * host copy that avoids slow memcpy alignments has no public entry, and the
 * bounce copy only runs on hosts whose memcpy is alignment-sensitive, so
 * it is called directly at every relative alignment class here. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "transfer/transfer.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* A small pool so that the edge sizes stay small: 64 KiB chunks, 4 of
 * them, triple buffering. */
#define CHUNK (64 * KIB)
#define POOL (4 * CHUNK)

#define ctx t_ctx /* the shared fixture's context (common.c) */

static void fill_random(unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)t_rand_u64();
}

/* Sets every path to `p` with the small pool. */
static void force_path(vncl_context *c, vncl_transfer_path p) {
  vncl_transfer_config cfg;
  T_OK(c, vncl_transfer_config_get(c, &cfg));
  cfg.chunk_bytes = CHUNK;
  cfg.pool_bytes = POOL;
  cfg.depth = 3;
  cfg.wait_ms = 100;
  cfg.write_small = cfg.write_large = p;
  cfg.read_small = cfg.read_large = p;
  T_OK(c, vncl_transfer_config_set(c, &cfg));
}

/* A tensor of exactly `bytes` (f32, or f16 for sizes that are only even:
 * there is no 1-byte dtype, so 2 bytes is the smallest non-empty tensor). */
static bool svm_expected(vncl_context *c);

/* A driver that deadlocks when a command waits on an event not yet
 * complete (lib/runtime/driver.c): vncl takes the staged path through
 * chunks, which orders its copies with user events, as direct there, and
 * refuses wait lists with pending events. */
static bool serial(vncl_context *c) {
  vncl_device_info info;
  T_OK(c, vncl_context_device_info(c, &info));
  return info.serial_driver != 0;
}

static vncl_tensor *bytes_tensor(vncl_context *c, size_t bytes) {
  int64_t shape[1];
  vncl_tensor *t = NULL;
  if (bytes % 4 == 0) {
    shape[0] = (int64_t)(bytes / 4);
    T_OK(c, vncl_tensor_create(c, VNCL_F32, 1, shape, &t));
  } else if (bytes % 2 == 0) {
    shape[0] = (int64_t)(bytes / 2);
    T_OK(c, vncl_tensor_create(c, VNCL_F16, 1, shape, &t));
  } else {
    return NULL;
  }
  return t;
}

/* One round trip: a new tensor reads as zeros, then write/read of random
 * bytes, blocking or async. */
static void round_trip(vncl_context *c, size_t bytes, bool async) {
  vncl_tensor *t = bytes_tensor(c, bytes);
  assert_non_null(t);
  unsigned char *src = malloc(bytes + 1), *dst = malloc(bytes + 1);
  assert_true(src && dst);
  memset(dst, 0xAB, bytes + 1);
  T_OK(c, vncl_tensor_read(t, dst, bytes));
  for (size_t i = 0; i < bytes; i++)
    if (dst[i]) fail_msg("byte %zu of a new %zu-byte tensor is %d", i, bytes, dst[i]);
  assert_int_equal(dst[bytes], 0xAB);
  fill_random(src, bytes);
  memset(dst, 0xCD, bytes + 1);
  if (async) {
    vncl_event *w = NULL, *r = NULL;
    T_OK(c, vncl_tensor_write_async(t, src, bytes, 0, NULL, &w));
    T_OK(c, vncl_tensor_read_async(t, dst, bytes, 0, NULL, &r));
    T_OK(c, vncl_event_wait(r));
    int done = 0;
    T_OK(c, vncl_event_status(w, &done));
    assert_int_equal(done, 1); /* the read came after it */
    vncl_event_release(w);
    vncl_event_release(r);
  } else {
    T_OK(c, vncl_tensor_write(t, src, bytes));
    T_OK(c, vncl_tensor_read(t, dst, bytes));
  }
  if (bytes && memcmp(src, dst, bytes) != 0) {
    size_t i = 0;
    while (src[i] == dst[i]) i++;
    fail_msg("%zu bytes (%s): first difference at byte %zu", bytes,
             async ? "async" : "blocking", i);
  }
  assert_int_equal(dst[bytes], 0xCD);
  free(src);
  free(dst);
  vncl_tensor_destroy(t);
}


/* The host copy and its bounce form at source and destination offsets
 * that cover every class of relative alignment the measurement
 * distinguishes (and odd ones), at sizes around the measurement threshold
 * and the bounce block; guard bytes around the destination stay put. Then
 * the map path end to end from malloc'd memory at several page offsets,
 * which copies with vncl__host_copy. */
static void test_host_copy(void **st) {
  (void)st;
  const size_t offs[] = {0, 1, 16, 64, 100, 2048, 4080, 4095};
  const size_t sizes[] = {VNCL__HOST_COPY_MIN - 1, VNCL__HOST_COPY_MIN,
                          16 * KIB * 3 + 7, 300 * KIB + 5};
  const unsigned r1s[] = {0, 64, 2048, 4032};
  const size_t cap = 300 * KIB + 5 + 8192 + 64;
  unsigned char *sraw = malloc(cap), *draw = malloc(cap + 64);
  assert_true(sraw && draw);
  fill_random(sraw, cap);
  for (size_t a = 0; a < sizeof offs / sizeof *offs; a++)
    for (size_t b = 0; b < sizeof offs / sizeof *offs; b++)
      for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
        for (size_t m = 0; m <= sizeof r1s / sizeof *r1s; m++) {
          const unsigned char *src = sraw + offs[a];
          unsigned char *dst = draw + 32 + offs[b];
          size_t n = sizes[z];
          memset(draw, 0xEE, cap + 64);
          /* At the largest size, m 1-3 are the stream copies: the order
           * this host measured, then one stream and four page streams. */
          const char *how = m == 0 ? "auto" : z == 3 && m <= 3 ? "stream" : "bounce";
          if (m == 0)
            vncl__host_copy(dst, src, n);
          else if (z == 3 && m == 1)
            vncl__host_copy_stream(dst, src, n);
          else if (z == 3 && m <= 3)
            vncl__host_copy_stream_as(dst, src, n, m == 2 ? 1 : 4);
          else
            vncl__host_copy_via(dst, src, n, r1s[m - 1]);
          if (memcmp(dst, src, n) != 0) {
            size_t i = 0;
            while (dst[i] == src[i]) i++;
            fail_msg("host copy (%s r1=%u) of %zu bytes, src+%zu dst+%zu: "
                     "first difference at byte %zu",
                     how, m ? r1s[m - 1] : 0, n, offs[a],
                     offs[b], i);
          }
          for (size_t i = 0; i < 32 + offs[b]; i++)
            if (draw[i] != 0xEE) fail_msg("wrote %zu bytes before dst", 32 + offs[b] - i);
          for (size_t i = 32 + offs[b] + n; i < cap + 64; i++)
            if (draw[i] != 0xEE) fail_msg("wrote past dst at +%zu", i - 32 - offs[b] - n);
        }
  free(sraw);
  free(draw);
  /* Copies past the size from which a host whose page-interleaved copies
   * slow down streams every class (16 MiB, hostcopy.c), at offsets either
   * side of a page's start; whichever method this host measured. */
  const size_t big = ((size_t)16 << 20) + 100;
  const size_t boffs[][2] = {{0, 16}, {16, 0}, {64, 4080}, {4080, 64}};
  unsigned char *bs = malloc(big + 8192), *bd = malloc(big + 8192 + 64);
  assert_true(bs && bd);
  fill_random(bs, big + 8192);
  for (size_t i = 0; i < sizeof boffs / sizeof *boffs; i++) {
    memset(bd, 0xEE, big + 8192 + 64);
    unsigned char *d = bd + 32 + boffs[i][1];
    vncl__host_copy(d, bs + boffs[i][0], big);
    assert_memory_equal(d, bs + boffs[i][0], big);
    for (size_t k = 0; k < 32 + boffs[i][1]; k++) assert_int_equal(bd[k], 0xEE);
    for (size_t k = 32 + boffs[i][1] + big; k < big + 8192 + 64; k++)
      assert_int_equal(bd[k], 0xEE);
  }
  free(bs);
  free(bd);
  /* The transfer table's row follows the host copy when it is forced
   * (make check runs this suite again with VNCL_HOST_COPY=bounce, with and
   * without tensors in SVM), except where tensors live in SVM: that row
   * serves every host (its copies avoid the slow alignments). */
  const char *forced = getenv("VNCL_HOST_COPY");
  vncl_device_info di;
  T_OK(ctx, vncl_context_device_info(ctx, &di));
  if (forced && di.unified_memory) {
    vncl_transfer_config cfg;
    T_OK(ctx, vncl_transfer_config_get(ctx, &cfg));
    if (svm_expected(ctx))
      assert_string_equal(cfg.table, "unified-svm");
    else if (!strcmp(forced, "bounce"))
      assert_string_equal(cfg.table, "unified-aligned-copy");
    else if (!strcmp(forced, "memcpy"))
      assert_string_equal(cfg.table, "unified");
  }
  /* The map path from malloc'd memory at page offsets, both ways. */
  force_path(ctx, VNCL_TRANSFER_MAP);
  const size_t bytes = 5 * MIB + 4; /* past the stream threshold (4 MiB) */
  vncl_tensor *t = bytes_tensor(ctx, bytes);
  assert_non_null(t);
  unsigned char *hs = malloc(bytes + 8192), *hd = malloc(bytes + 8192);
  assert_true(hs && hd);
  const size_t poffs[] = {0, 16, 64, 2048, 4080};
  for (size_t i = 0; i < sizeof poffs / sizeof *poffs; i++) {
    unsigned char *s0 = (unsigned char *)(((uintptr_t)hs + 4095) & ~(uintptr_t)4095) + poffs[i];
    unsigned char *d0 = (unsigned char *)(((uintptr_t)hd + 4095) & ~(uintptr_t)4095) + poffs[(i + 2) % 5];
    fill_random(s0, bytes);
    memset(d0, 0xCD, bytes);
    T_OK(ctx, vncl_tensor_write(t, s0, bytes));
    T_OK(ctx, vncl_tensor_read(t, d0, bytes));
    if (memcmp(s0, d0, bytes) != 0) fail_msg("map path at page offset %zu", poffs[i]);
  }
  free(hs);
  free(hd);
  vncl_tensor_destroy(t);
  T_OK(ctx, vncl_transfer_config_set(ctx, NULL));
}

/* Sizes 0 and 1-ish, just under, at and over a chunk, larger than the pool,
 * on every path, blocking and async. (Tensors hold whole elements; 2 bytes
 * is the smallest non-empty one, and 1-byte transfers go through
 * vncl_host_alloc memory below.) */
static void test_edge_sizes_every_path(void **st) {
  (void)st;
  const size_t sizes[] = {2,         4,         CHUNK - 4,        CHUNK - 2,
                          CHUNK,     CHUNK + 2, 3 * CHUNK + 6,    POOL,
                          POOL + 2,  MIB + 2 * KIB + 6,   3 * MIB + 2};
  const vncl_transfer_path paths[] = {VNCL_TRANSFER_DIRECT,
                                      VNCL_TRANSFER_STAGED,
                                      VNCL_TRANSFER_MAP};
  for (size_t p = 0; p < 3; p++) {
    force_path(ctx, paths[p]);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
      round_trip(ctx, sizes[i], false);
      round_trip(ctx, sizes[i], true);
    }
  }
  /* Size 0: nothing to move, NULL allowed, async gives a completed event. */
  int64_t zero[2] = {3, 0};
  vncl_tensor *t;
  T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 2, zero, &t));
  T_OK(ctx, vncl_tensor_write(t, NULL, 0));
  T_OK(ctx, vncl_tensor_read(t, NULL, 0));
  vncl_event *e = NULL;
  T_OK(ctx, vncl_tensor_read_async(t, NULL, 0, 0, NULL, &e));
  T_OK(ctx, vncl_event_wait(e));
  vncl_event_release(e);
  vncl_tensor_destroy(t);

  vncl_staging_stats s;
  T_OK(ctx, vncl_staging_stats_get(ctx, &s));
  if (serial(ctx)) { /* staged went direct, no chunk made */
    assert_true(s.staged_transfers == 0 && s.direct_transfers > 0 &&
                s.mapped_transfers > 0 && s.chunks_created == 0);
    T_OK(ctx, vncl_transfer_config_set(ctx, NULL));
    return;
  }
  assert_true(s.staged_transfers > 0 && s.direct_transfers > 0 &&
              s.mapped_transfers > 0);
  assert_true(s.chunks <= s.max_chunks && s.max_chunks == POOL / CHUNK);
  assert_int_equal(s.chunks_busy, 0);
  assert_int_equal(s.chunk_bytes, CHUNK);
  assert_true(s.hits > 0);
  /* After warm-up no transfer creates a chunk. */
  uint64_t created = s.chunks_created;
  force_path(ctx, VNCL_TRANSFER_STAGED);
  round_trip(ctx, 3 * MIB + 2, false);
  round_trip(ctx, 3 * MIB + 2, true);
  T_OK(ctx, vncl_staging_stats_get(ctx, &s));
  assert_int_equal(s.chunks_created, created);
  T_OK(ctx, vncl_transfer_config_set(ctx, NULL));
}

/* The default path choice (the table) at a few sizes, and the environment
 * knob that forces a path. */
static void test_auto_and_env(void **st) {
  (void)st;
  T_OK(ctx, vncl_transfer_config_set(ctx, NULL));
  const size_t sizes[] = {2, 4 * KIB, 300 * KIB + 4, 5 * MIB};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    round_trip(ctx, sizes[i], false);
    round_trip(ctx, sizes[i], true);
  }
  vncl_transfer_config cfg;
  T_OK(ctx, vncl_transfer_config_get(ctx, &cfg));
  assert_true(cfg.table[0] != '\0');
  assert_true(cfg.depth >= 1 && cfg.depth <= 8);
  assert_true(cfg.pool_bytes >= cfg.chunk_bytes);

  setenv("VNCL_TRANSFER_PATH", "staged", 1);
  setenv("VNCL_STAGING_CHUNK", "128K", 1);
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  o.staging_bytes = 512 * KIB;
  vncl_context *c;
  T_OK(NULL, vncl_context_create(&c, &o));
  /* The environment is read when the context's transfer state is made. */
  T_OK(c, vncl_transfer_config_get(c, &cfg));
  unsetenv("VNCL_TRANSFER_PATH");
  unsetenv("VNCL_STAGING_CHUNK");
  assert_int_equal(cfg.chunk_bytes, 128 * KIB);
  assert_int_equal(cfg.pool_bytes, 512 * KIB);
  assert_int_equal(cfg.write_small, VNCL_TRANSFER_STAGED);
  assert_int_equal(cfg.read_large, VNCL_TRANSFER_STAGED);
  round_trip(c, MIB + 6, false);
  round_trip(c, MIB + 6, true);
  vncl_staging_stats s;
  T_OK(c, vncl_staging_stats_get(c, &s));
  assert_int_equal(s.max_chunks, 4);
  if (serial(c)) {
    assert_true(s.staged_transfers == 0 && s.direct_transfers >= 4);
  } else {
    assert_true(s.staged_transfers >= 4);
    assert_true(s.bytes_staged >= 4 * (MIB + 6));
  }
  vncl_context_destroy(c);
}

/* ---- path=staged through the tensor's mapping ------------------------- */

/* One transfer of `bytes` each way between a tensor and a malloc'd buffer
 * at page offset `off`, blocking or async: fresh random bytes, the
 * destination poisoned (with guard bytes either side) and every byte
 * checked. */
static void offset_trip(vncl_context *c, vncl_tensor *t, size_t bytes,
                        size_t off, bool async) {
  unsigned char *rs = malloc(bytes + 2 * 4096), *rd = malloc(bytes + 2 * 4096);
  assert_true(rs && rd);
  unsigned char *src = (unsigned char *)(((uintptr_t)rs + 4095) &
                                         ~(uintptr_t)4095) + off;
  unsigned char *dst = (unsigned char *)(((uintptr_t)rd + 4095) &
                                         ~(uintptr_t)4095) + off;
  fill_random(src, bytes);
  memset(rd, 0xC5, bytes + 2 * 4096);
  if (async) {
    vncl_event *w = NULL, *r = NULL;
    T_OK(c, vncl_tensor_write_async(t, src, bytes, 0, NULL, &w));
    T_OK(c, vncl_tensor_read_async(t, dst, bytes, 0, NULL, &r));
    T_OK(c, vncl_event_wait(r));
    T_OK(c, vncl_event_wait(w));
    vncl_event_release(w);
    vncl_event_release(r);
  } else {
    T_OK(c, vncl_tensor_write(t, src, bytes));
    T_OK(c, vncl_tensor_read(t, dst, bytes));
  }
  for (size_t i = 0; i < bytes; i++)
    if (dst[i] != src[i])
      fail_msg("%zu bytes at page offset %zu (%s): byte %zu is %d, not %d",
               bytes, off, async ? "async" : "blocking", i, dst[i], src[i]);
  for (unsigned char *p = rd; p < dst; p++)
    if (*p != 0xC5) fail_msg("a byte before the destination was written");
  for (unsigned char *p = dst + bytes; p < rd + bytes + 2 * 4096; p++)
    if (*p != 0xC5) fail_msg("a byte after the destination was written");
  free(rs);
  free(rd);
}

/* On a device that shares host memory, path=staged copies once, through
 * the tensor's mapping (blocking: counted as mapped; async: direct), and
 * uses no chunk; elsewhere it goes through the chunks. The expectation
 * comes from the device found. Sizes that are not a multiple of a piece or
 * a page, every page offset class of the host buffer (a sweep of 43 offsets
 * past the host copy's measured size, and the offsets malloc gives at two
 * large sizes), both directions, blocking and async. Then
 * VNCL_STAGING_VIA=chunks on such a device takes the chunks again, and a
 * bad value is ignored. (The rest of this file runs with chunks forced, so
 * that the pipeline is tested on every device.) */
static void test_staged_via_tensor(void **st) {
  (void)st;
  setenv("VNCL_STAGING_VIA", "auto", 1);
  vncl_context *c = t_context("off");
  assert_non_null(c);
  vncl_device_info info;
  T_OK(c, vncl_context_device_info(c, &info));
  bool unified = info.unified_memory != 0;
  vncl_transfer_config cfg;
  T_OK(c, vncl_transfer_config_get(c, &cfg));
  cfg.write_small = cfg.write_large = VNCL_TRANSFER_STAGED;
  cfg.read_small = cfg.read_large = VNCL_TRANSFER_STAGED;
  cfg.chunk_bytes = 256 * KIB; /* pieces of 256 KiB where chunks are used */
  cfg.pool_bytes = MIB;
  T_OK(c, vncl_transfer_config_set(c, &cfg));

  vncl_staging_stats s0, s1;
  T_OK(c, vncl_staging_stats_get(c, &s0));
  size_t n = 0, sweep = VNCL__HOST_COPY_MIN + 4 * KIB + 2; /* not a page */
  vncl_tensor *t = bytes_tensor(c, sweep);
  for (size_t off = 0; off < 4096; off += 97) {
    offset_trip(c, t, sweep, off, false);
    n++;
  }
  vncl_tensor_destroy(t);
  const size_t big[] = {MIB + 6, 5 * MIB + 2 * KIB + 2};
  const size_t offs[] = {0, 16, 64, 2048, 4080, 4095};
  size_t nasync = 0;
  for (size_t b = 0; b < 2; b++) {
    t = bytes_tensor(c, big[b]);
    for (size_t o = 0; o < sizeof offs / sizeof *offs; o++) {
      offset_trip(c, t, big[b], offs[o], false);
      offset_trip(c, t, big[b], offs[o], true);
      n++;
      nasync++;
    }
    vncl_tensor_destroy(t);
  }
  T_OK(c, vncl_staging_stats_get(c, &s1));
  uint64_t moved = 2 * (n + nasync); /* each trip: a write and a read */
  if (unified) {
    assert_int_equal(s1.chunks_created, s0.chunks_created);
    assert_int_equal(s1.staged_transfers, s0.staged_transfers);
    assert_int_equal(s1.mapped_transfers - s0.mapped_transfers, 2 * n);
    assert_true(s1.direct_transfers - s0.direct_transfers >= 2 * nasync);
  } else {
    assert_true(s1.chunks_created > s0.chunks_created);
    assert_true(s1.staged_transfers - s0.staged_transfers +
                    s1.fallbacks - s0.fallbacks >= moved);
  }
  vncl_context_destroy(c);

  /* Chunks forced; then a bad value: ignored (the table's choice). */
  const char *vals[] = {"chunks", "sideways"};
  for (int v = 0; v < 2; v++) {
    setenv("VNCL_STAGING_VIA", vals[v], 1);
    c = t_context("off");
    assert_non_null(c);
    T_OK(c, vncl_transfer_config_get(c, &cfg));
    cfg.write_small = cfg.write_large = VNCL_TRANSFER_STAGED;
    cfg.read_small = cfg.read_large = VNCL_TRANSFER_STAGED;
    cfg.chunk_bytes = 256 * KIB;
    cfg.pool_bytes = MIB;
    T_OK(c, vncl_transfer_config_set(c, &cfg));
    t = bytes_tensor(c, MIB + 6);
    offset_trip(c, t, MIB + 6, 16, false);
    offset_trip(c, t, MIB + 6, 4080, true);
    vncl_tensor_destroy(t);
    T_OK(c, vncl_staging_stats_get(c, &s1));
    bool chunks = (v == 0 || !unified) && !serial(c);
    if (chunks)
      assert_true(s1.chunks_created > 0 && s1.staged_transfers > 0);
    else
      assert_true(s1.chunks_created == 0 && s1.staged_transfers == 0);
    vncl_context_destroy(c);
  }
  setenv("VNCL_STAGING_VIA", "chunks", 1);
}

/* ---- tensors in SVM ----------------------------------------------------- */

/* OpenCL 2.0 names (the tests build against the 1.2 API). */
#define T_DEVICE_SVM_CAPABILITIES 0x1053
#define T_SVM_FINE_GRAIN_BUFFER (1 << 1)
#define T_MEM_USES_SVM_POINTER 0x1109

static int cl_major(const char *s) {
  return strncmp(s, "OpenCL ", 7) ? 0 : atoi(s + 7);
}

/* What the device found says: tensors in fine-grained SVM exactly where
 * the device is a CPU (any unified device with VNCL_TENSOR_MEMORY=svm),
 * reports OpenCL 2.0 with fine-grained buffers, and VNCL_TENSOR_MEMORY
 * does not say "buffer". */
static bool svm_expected(vncl_context *c) {
  vncl_device_info di;
  T_OK(c, vncl_context_device_info(c, &di));
  const char *v = getenv("VNCL_TENSOR_MEMORY");
  if (v && !strcmp(v, "buffer")) return false;
  bool forced = v && !strcmp(v, "svm");
  if (!forced && di.type != VNCL_DEVICE_CPU) return false;
  if (!di.unified_memory || cl_major(di.opencl_version) < 2 ||
      cl_major(di.platform_version) < 2)
    return false;
  cl_bitfield caps = 0;
  cl_device_id dev = NULL;
  T_OK(c, vncl_context_cl(c, NULL, NULL, &dev));
  if (clGetDeviceInfo(dev, T_DEVICE_SVM_CAPABILITIES,
                      sizeof caps, &caps, NULL) != CL_SUCCESS)
    return false;
  return (caps & T_SVM_FINE_GRAIN_BUFFER) != 0;
}

static bool uses_svm(const vncl_tensor *t) {
  cl_bool b = CL_FALSE;
  if (clGetMemObjectInfo(vncl_tensor_cl_mem(t), T_MEM_USES_SVM_POINTER,
                         sizeof b, &b, NULL) != CL_SUCCESS)
    return false;
  return b == CL_TRUE;
}

/* Whether the mapping of this process that holds address a carries the
 * flag `flag` in /proc/self/smaps ("hg": advised MADV_HUGEPAGE). -1 when
 * no mapping holds it or the file cannot be read. */
static int vm_flag_at(uintptr_t a, const char *flag) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  bool in = false;
  int got = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char c;
    if (sscanf(line, "%lx-%lx %c", &lo, &hi, &c) == 3) { /* a mapping */
      in = a >= lo && a < hi;
      continue;
    }
    if (in && !strncmp(line, "VmFlags:", 8)) {
      got = 0;
      for (char *t = strtok(line + 8, " \n"); t; t = strtok(NULL, " \n"))
        if (!strcmp(t, flag)) got = 1;
      break;
    }
  }
  fclose(f);
  return got;
}

/* Tensors of 8 MiB and more in SVM are advised onto huge pages (Linux,
 * where the kernel has transparent huge pages): the mapping that holds
 * the first whole 2 MiB of such a tensor's memory is flagged "hg"; with
 * VNCL_HUGE_PAGES=0 it is not. 40 MiB, above glibc's largest mmap
 * threshold, so that each context's tensor is a mapping of its own (a
 * region advised once keeps the flag after it is freed); each pass in a
 * context of its own, since freed buffers stay in a context's cache. The
 * contents survive a write and a read either way. */
static void test_svm_huge_pages(void **st) {
  (void)st;
  vncl_context *c0 = t_context("off");
  assert_non_null(c0);
  bool svm = svm_expected(c0);
  vncl_context_destroy(c0);
  if (!svm || access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK))
    return; /* no SVM tensors here, or a kernel without THP */
  const size_t bytes = 40 * MIB + 6;
  unsigned char *in = malloc(bytes), *out = malloc(bytes);
  assert_true(in && out);
  fill_random(in, bytes);
  t_env env;
  for (int pass = 0; pass < 2; pass++) {
    if (!pass) t_env_set(&env, "VNCL_HUGE_PAGES", "0");
    vncl_context *c = t_context("off");
    assert_non_null(c);
    vncl_tensor *t = bytes_tensor(c, bytes);
    assert_non_null(t);
    assert_true(uses_svm(t));
    void *p = NULL;
    assert_int_equal(clGetMemObjectInfo(vncl_tensor_cl_mem(t), CL_MEM_HOST_PTR,
                                        sizeof p, &p, NULL),
                     CL_SUCCESS);
    assert_non_null(p);
    uintptr_t two = (uintptr_t)2 << 20;
    uintptr_t mid = ((uintptr_t)p + vncl_tensor_offset(t) + two - 1) & ~(two - 1);
    int hg = vm_flag_at(mid, "hg");
    assert_int_not_equal(hg, -1);
    if (pass == 0) assert_int_equal(hg, 0);
    else assert_int_equal(hg, 1);
    memset(out, 0xA5, bytes);
    T_OK(c, vncl_tensor_write(t, in, bytes));
    T_OK(c, vncl_tensor_read(t, out, bytes));
    assert_memory_equal(in, out, bytes);
    vncl_tensor_destroy(t);
    vncl_context_destroy(c);
    if (!pass) t_env_restore(&env);
  }
  free(in);
  free(out);
}

/* Where the device has it, every tensor lives in fine-grained SVM, the
 * table's row is "unified-svm" and blocking transfers are host copies with
 * no command (counted as mapped): odd sizes, every page offset class of a
 * malloc'd buffer, guard bytes around the destination. A host write right
 * after a queued GEMM that reads the tensor must wait for it, and a read
 * must see what the kernels wrote: checked against a double reference.
 * VNCL_TENSOR_MEMORY=buffer turns it off; elsewhere nothing changes. */
static void test_svm_tensors(void **st) {
  (void)st;
  t_env tm; /* set in the second pass, restored after it */
  for (int pass = 0; pass < 2; pass++) {
    if (pass) t_env_set(&tm, "VNCL_TENSOR_MEMORY", "buffer");
    vncl_context *c = t_context("off");
    assert_non_null(c);
    bool want = svm_expected(c);
    if (pass) assert_false(want);
    vncl_transfer_config cfg;
    T_OK(c, vncl_transfer_config_get(c, &cfg));
    vncl_staging_stats s0, s1;
    T_OK(c, vncl_staging_stats_get(c, &s0));
    const size_t sizes[] = {2, 4098, MIB + 6, 5 * MIB + 2 * KIB + 2};
    const size_t offs[] = {0, 16, 64, 2048, 4080, 4095};
    size_t trips = 0;
    for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++) {
      vncl_tensor *t = bytes_tensor(c, sizes[b]);
      assert_non_null(t);
      assert_int_equal(uses_svm(t), want);
      for (size_t o = 0; o < sizeof offs / sizeof *offs; o++) {
        offset_trip(c, t, sizes[b], offs[o], false);
        trips++;
      }
      vncl_tensor_destroy(t);
    }
    /* The caller's pinned memory, both ways (on SVM: a host copy). */
    const size_t pb = MIB + 6;
    unsigned char *p1 = NULL, *p2 = NULL;
    T_OK(c, vncl_host_alloc(c, pb, (void **)&p1));
    T_OK(c, vncl_host_alloc(c, pb, (void **)&p2));
    fill_random(p1, pb);
    memset(p2, 0xC5, pb);
    vncl_tensor *tp = bytes_tensor(c, pb);
    assert_non_null(tp);
    T_OK(c, vncl_tensor_write(tp, p1, pb));
    T_OK(c, vncl_tensor_read(tp, p2, pb));
    assert_memory_equal(p1, p2, pb);
    vncl_tensor_destroy(tp);
    T_OK(c, vncl_host_free(c, p1));
    T_OK(c, vncl_host_free(c, p2));
    T_OK(c, vncl_staging_stats_get(c, &s1));
    assert_int_equal(s1.pinned_transfers - s0.pinned_transfers, 2);
    if (want) {
      assert_string_equal(cfg.table, "unified-svm");
      assert_true(cfg.write_small == VNCL_TRANSFER_MAP &&
                  cfg.write_large == VNCL_TRANSFER_MAP &&
                  cfg.read_small == VNCL_TRANSFER_MAP &&
                  cfg.read_large == VNCL_TRANSFER_MAP);
      assert_int_equal(s1.mapped_transfers - s0.mapped_transfers, 2 * trips);
      assert_int_equal(s1.direct_transfers, s0.direct_transfers);
    } else {
      assert_true(strcmp(cfg.table, "unified-svm") != 0);
    }

    /* Ordering against kernels: C = A B queued, A overwritten at once. */
    const size_t n = 160;
    int64_t sh[2] = {(int64_t)n, (int64_t)n};
    vncl_tensor *ta, *tb, *tc;
    T_OK(c, vncl_tensor_create(c, VNCL_F32, 2, sh, &ta));
    T_OK(c, vncl_tensor_create(c, VNCL_F32, 2, sh, &tb));
    T_OK(c, vncl_tensor_create(c, VNCL_F32, 2, sh, &tc));
    float *a = malloc(n * n * sizeof *a), *a2 = malloc(n * n * sizeof *a2);
    float *bm = malloc(n * n * sizeof *bm), *out = malloc(n * n * sizeof *out);
    double *da = malloc(n * n * sizeof *da), *db = malloc(n * n * sizeof *db);
    double *ref = malloc(n * n * sizeof *ref), *mag = malloc(n * n * sizeof *mag);
    assert_true(a && a2 && bm && out && da && db && ref && mag);
    t_fill_random_f32(a, n * n);
    t_fill_random_f32(a2, n * n);
    t_fill_random_f32(bm, n * n);
    for (size_t i = 0; i < n * n; i++) {
      da[i] = a[i];
      db[i] = bm[i];
      out[i] = NAN;
    }
    T_OK(c, vncl_tensor_write(tc, out, n * n * sizeof *out)); /* poison */
    T_OK(c, vncl_tensor_write(ta, a, n * n * sizeof *a));
    T_OK(c, vncl_tensor_write(tb, bm, n * n * sizeof *bm));
    T_OK(c, vncl_gemm(c, VNCL_NO_TRANS, VNCL_NO_TRANS, 1.0, ta, tb, 0.0, tc));
    T_OK(c, vncl_tensor_write(ta, a2, n * n * sizeof *a2)); /* after the GEMM */
    T_OK(c, vncl_tensor_read(tc, out, n * n * sizeof *out));
    t_ref_gemm(false, false, n, n, n, 1, 1.0, da, n, db, n, 0.0, NULL, n, ref,
               mag);
    /* f32 sums of n products: at most about n roundings of the terms'
     * size (twice that, for any order of the additions). */
    const double tol = 2.0 * (double)n * 0x1p-24;
    for (size_t i = 0; i < n * n; i++) {
      double err = fabs((double)out[i] - ref[i]);
      if (!(err <= tol * mag[i] + 1e-30))
        fail_msg("C[%zu] = %.9g, reference %.9g (the GEMM saw the later "
                 "write, or its result was not read)", i, (double)out[i],
                 ref[i]);
    }
    T_OK(c, vncl_tensor_read(ta, out, n * n * sizeof *out));
    assert_memory_equal(out, a2, n * n * sizeof *a2);
    free(a), free(a2), free(bm), free(out), free(da), free(db), free(ref);
    free(mag);
    vncl_tensor_destroy(ta);
    vncl_tensor_destroy(tb);
    vncl_tensor_destroy(tc);
    vncl_context_destroy(c);
  }
  t_env_restore(&tm);
}

/* ---- threads ------------------------------------------------------------ */

typedef struct worker {
  vncl_context *c;
  vncl_tensor *t; /* own tensor, or the shared one */
  const unsigned char *shared_data;
  size_t bytes;
  uint64_t seed;
  int iters;
  int failures;
  char msg[256];
} worker;

static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void *distinct_main(void *arg) {
  worker *w = arg;
  unsigned char *src = malloc(w->bytes), *dst = malloc(w->bytes);
  for (int it = 0; it < w->iters && !w->failures; it++) {
    for (size_t i = 0; i < w->bytes; i++) src[i] = (unsigned char)next_u64(&w->seed);
    memset(dst, 0xEE, w->bytes);
    vncl_status s;
    if (it % 2) {
      vncl_event *e1 = NULL, *e2 = NULL;
      s = vncl_tensor_write_async(w->t, src, w->bytes, 0, NULL, &e1);
      if (!s) s = vncl_tensor_read_async(w->t, dst, w->bytes, 0, NULL, &e2);
      if (!s) s = vncl_event_wait(e2);
      if (!s) s = vncl_event_wait(e1);
      vncl_event_release(e1);
      vncl_event_release(e2);
    } else {
      s = vncl_tensor_write(w->t, src, w->bytes);
      if (!s) s = vncl_tensor_read(w->t, dst, w->bytes);
    }
    if (s) {
      w->failures++;
      snprintf(w->msg, sizeof w->msg, "iteration %d: %s: %s", it,
               vncl_status_name(s), vncl_errmsg(w->c));
    } else if (memcmp(src, dst, w->bytes) != 0) {
      w->failures++;
      snprintf(w->msg, sizeof w->msg, "iteration %d: data differs", it);
    }
  }
  free(src);
  free(dst);
  return NULL;
}

/* All threads read the one tensor (allowed at once), and write it with the
 * same bytes it holds (so that the race the header forbids is benign). */
static void *shared_main(void *arg) {
  worker *w = arg;
  unsigned char *dst = malloc(w->bytes);
  for (int it = 0; it < w->iters && !w->failures; it++) {
    memset(dst, 0x11, w->bytes);
    vncl_status s;
    if (it % 3 == 0) {
      s = vncl_tensor_write(w->t, w->shared_data, w->bytes);
    } else if (it % 3 == 1) {
      vncl_event *e = NULL;
      s = vncl_tensor_read_async(w->t, dst, w->bytes, 0, NULL, &e);
      if (!s) s = vncl_event_wait(e);
      vncl_event_release(e);
    } else {
      s = vncl_tensor_read(w->t, dst, w->bytes);
    }
    if (s) {
      w->failures++;
      snprintf(w->msg, sizeof w->msg, "iteration %d: %s: %s", it,
               vncl_status_name(s), vncl_errmsg(w->c));
    } else if (it % 3 && memcmp(dst, w->shared_data, w->bytes) != 0) {
      w->failures++;
      snprintf(w->msg, sizeof w->msg, "iteration %d: data differs", it);
    }
  }
  free(dst);
  return NULL;
}

static void run_threads(vncl_transfer_path path, bool shared) {
  enum { N = 8 };
  force_path(ctx, path);
  /* A short wait so that exhaustion of the 4-chunk pool by 8 threads shows
   * as both waits and fallbacks. */
  vncl_transfer_config cfg;
  T_OK(ctx, vncl_transfer_config_get(ctx, &cfg));
  cfg.wait_ms = 2;
  T_OK(ctx, vncl_transfer_config_set(ctx, &cfg));
  worker w[N];
  pthread_t th[N];
  size_t bytes = 5 * CHUNK + 12;
  unsigned char *data = malloc(bytes);
  fill_random(data, bytes);
  vncl_tensor *shared_t = bytes_tensor(ctx, bytes);
  T_OK(ctx, vncl_tensor_write(shared_t, data, bytes));
  for (int i = 0; i < N; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].c = ctx;
    w[i].bytes = shared ? bytes : bytes + (size_t)i * 4096 + 4;
    w[i].t = shared ? shared_t : bytes_tensor(ctx, w[i].bytes);
    w[i].shared_data = data;
    w[i].seed = t_rand_u64();
    w[i].iters = 12;
  }
  for (int i = 0; i < N; i++)
    assert_int_equal(pthread_create(&th[i], NULL,
                                    shared ? shared_main : distinct_main, &w[i]),
                     0);
  for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < N; i++) {
    if (w[i].failures) fail_msg("thread %d: %s", i, w[i].msg);
    if (!shared) vncl_tensor_destroy(w[i].t);
  }
  vncl_tensor_destroy(shared_t);
  free(data);
  vncl_staging_stats s;
  T_OK(ctx, vncl_staging_stats_get(ctx, &s));
  assert_int_equal(s.chunks_busy, 0);
  assert_true(s.chunks <= s.max_chunks);
}

static void test_threads_distinct(void **st) {
  (void)st;
  vncl_staging_stats s0, s;
  T_OK(ctx, vncl_staging_stats_get(ctx, &s0));
  run_threads(VNCL_TRANSFER_STAGED, false);
  T_OK(ctx, vncl_staging_stats_get(ctx, &s));
  /* 8 threads on 4 chunks: someone had to wait (no chunks where the
   * driver is serial). */
  assert_true(serial(ctx) ? s.waits == s0.waits : s.waits > s0.waits);
  run_threads(VNCL_TRANSFER_MAP, false);
  run_threads(VNCL_TRANSFER_DIRECT, false);
  T_OK(ctx, vncl_transfer_config_set(ctx, NULL));
}

static void test_threads_same_tensor(void **st) {
  (void)st;
  run_threads(VNCL_TRANSFER_STAGED, true);
  run_threads(VNCL_TRANSFER_MAP, true);
  run_threads(VNCL_TRANSFER_DIRECT, true);
  T_OK(ctx, vncl_transfer_config_set(ctx, NULL));
}

/* ---- pool exhaustion ------------------------------------------------------ */

static void *open_gate_later(void *gate) {
  struct timespec ts = {0, 150 * 1000000L};
  nanosleep(&ts, NULL);
  clSetUserEventStatus((cl_event)gate, CL_COMPLETE);
  return NULL;
}

/* The queue is held by a user event, so staged reads keep their chunks:
 * the first takes the whole pool, the next waits wait_ms and goes direct.
 * Nothing deadlocks, and every byte arrives once the queue moves. */
static void test_pool_exhaustion(void **st) {
  (void)st;
  if (serial(ctx)) {
    /* The test's own marker on a user event would deadlock the driver. */
    print_message("skipped: a serial driver (no chunks; user events "
                  "deadlock it)\n");
    skip();
  }
  vncl_context *c = t_context("off");
  vncl_transfer_config cfg;
  T_OK(c, vncl_transfer_config_get(c, &cfg));
  cfg.chunk_bytes = CHUNK;
  cfg.pool_bytes = 2 * CHUNK;
  cfg.depth = 3;
  cfg.wait_ms = 30;
  cfg.write_small = cfg.write_large = VNCL_TRANSFER_STAGED;
  cfg.read_small = cfg.read_large = VNCL_TRANSFER_STAGED;
  T_OK(c, vncl_transfer_config_set(c, &cfg));
  size_t bytes = 6 * CHUNK + 8;
  vncl_tensor *a = bytes_tensor(c, bytes), *b = bytes_tensor(c, bytes);
  unsigned char *da = malloc(bytes), *db = malloc(bytes);
  unsigned char *ra = malloc(bytes), *rb = malloc(bytes), *rc = malloc(bytes);
  fill_random(da, bytes);
  fill_random(db, bytes);
  T_OK(c, vncl_tensor_write(a, da, bytes));
  T_OK(c, vncl_tensor_write(b, db, bytes));

  cl_context clc;
  cl_command_queue q;
  T_OK(c, vncl_context_cl(c, &clc, &q, NULL));
  cl_int err;
  cl_event gate = clCreateUserEvent(clc, &err);
  assert_int_equal(err, CL_SUCCESS);
  assert_int_equal(clEnqueueMarkerWithWaitList(q, 1, &gate, NULL), CL_SUCCESS);

  vncl_staging_stats s0, s;
  T_OK(c, vncl_staging_stats_get(c, &s0));
  memset(ra, 0x77, bytes);
  memset(rb, 0x77, bytes);
  memset(rc, 0x77, bytes);
  vncl_event *ea = NULL, *eb = NULL, *ec = NULL;
  T_OK(c, vncl_tensor_read_async(a, ra, bytes, 0, NULL, &ea));
  T_OK(c, vncl_staging_stats_get(c, &s));
  assert_int_equal(s.chunks_busy, 2); /* held by the stuck read */
  T_OK(c, vncl_tensor_read_async(b, rb, bytes, 0, NULL, &eb));
  T_OK(c, vncl_tensor_read_async(a, rc, bytes, 0, NULL, &ec));
  T_OK(c, vncl_staging_stats_get(c, &s));
  assert_int_equal(s.waits, s0.waits + 2);
  assert_int_equal(s.fallbacks, s0.fallbacks + 2);
  int done = 1;
  T_OK(c, vncl_event_status(ea, &done));
  assert_int_equal(done, 0); /* still held by the gate */

  assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  T_OK(c, vncl_event_wait(ec));
  T_OK(c, vncl_event_wait(eb));
  T_OK(c, vncl_event_wait(ea));
  assert_memory_equal(ra, da, bytes);
  assert_memory_equal(rb, db, bytes);
  assert_memory_equal(rc, da, bytes);
  T_OK(c, vncl_staging_stats_get(c, &s));
  assert_int_equal(s.chunks_busy, 0);
  assert_true(s.chunks <= 2);
  vncl_event_release(ea);
  vncl_event_release(eb);
  vncl_event_release(ec);
  clReleaseEvent(gate);

  /* A blocking write while the pool is held and the queue stopped: it
   * waits wait_ms, goes direct, and returns once another thread lets the
   * queue move. */
  gate = clCreateUserEvent(clc, &err);
  assert_int_equal(clEnqueueMarkerWithWaitList(q, 1, &gate, NULL), CL_SUCCESS);
  memset(ra, 0x77, bytes);
  T_OK(c, vncl_tensor_read_async(a, ra, bytes, 0, NULL, &ea));
  fill_random(db, bytes);
  T_OK(c, vncl_staging_stats_get(c, &s0));
  pthread_t opener;
  assert_int_equal(pthread_create(&opener, NULL, open_gate_later, gate), 0);
  T_OK(c, vncl_tensor_write(b, db, bytes));
  pthread_join(opener, NULL);
  T_OK(c, vncl_staging_stats_get(c, &s));
  assert_int_equal(s.fallbacks, s0.fallbacks + 1);
  T_OK(c, vncl_tensor_read(b, rb, bytes));
  assert_memory_equal(rb, db, bytes);
  T_OK(c, vncl_event_wait(ea));
  assert_memory_equal(ra, da, bytes);
  vncl_event_release(ea);
  clReleaseEvent(gate);

  free(da);
  free(db);
  free(ra);
  free(rb);
  free(rc);
  vncl_tensor_destroy(a);
  vncl_tensor_destroy(b);
  vncl_context_destroy(c);
}

/* ---- async chained after other work --------------------------------------- */

static const char *scale_src =
    "__kernel void scale2(__global const float *x, __global float *y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = 2.0f * x[i] + 1.0f;\n"
    "}\n";

static void test_async_chained(void **st) {
  (void)st;
  cl_context clc;
  cl_command_queue q;
  cl_device_id dev;
  T_OK(ctx, vncl_context_cl(ctx, &clc, &q, &dev));
  cl_int err;
  cl_program p = clCreateProgramWithSource(clc, 1, &scale_src, NULL, &err);
  assert_int_equal(clBuildProgram(p, 1, &dev, "", NULL, NULL), CL_SUCCESS);
  cl_kernel k = clCreateKernel(p, "scale2", &err);
  assert_non_null(k);
  const vncl_transfer_path paths[] = {VNCL_TRANSFER_DIRECT,
                                      VNCL_TRANSFER_STAGED};
  size_t n = 3 * CHUNK / 4 + 1000; /* floats: over 3 chunks of bytes */
  float *x = malloc(n * 4), *y = malloc(n * 4);
  int64_t shape[1] = {(int64_t)n};
  for (int pi = 0; pi < 2; pi++) {
    force_path(ctx, paths[pi]);
    vncl_tensor *tx, *ty;
    T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &tx));
    T_OK(ctx, vncl_tensor_create(ctx, VNCL_F32, 1, shape, &ty));
    t_fill_random_f32(x, n);
    for (size_t i = 0; i < n; i++) y[i] = -99.0f;
    /* write -> kernel -> read, all enqueued without waiting. */
    vncl_event *ew = NULL, *er = NULL;
    T_OK(ctx, vncl_tensor_write_async(tx, x, n * 4, 0, NULL, &ew));
    cl_mem mx = vncl_tensor_cl_mem(tx), my = vncl_tensor_cl_mem(ty);
    clSetKernelArg(k, 0, sizeof mx, &mx);
    clSetKernelArg(k, 1, sizeof my, &my);
    cl_event kev;
    cl_event wev = vncl_event_cl(ew);
    assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 1, &wev,
                                            &kev),
                     CL_SUCCESS);
    T_OK(ctx, vncl_tensor_read_async(ty, y, n * 4, 1, &kev, &er));
    T_OK(ctx, vncl_event_wait(er));
    for (size_t i = 0; i < n; i++)
      if (y[i] != 2.0f * x[i] + 1.0f)
        fail_msg("path %d: y[%zu] = %g, expected %g", pi, i, y[i],
                 2.0f * x[i] + 1.0f);
    vncl_event_release(ew);
    vncl_event_release(er);
    clReleaseEvent(kev);

    /* A read that waits on a user event stays incomplete until it is set;
     * its event can gate the caller's own commands. */
    cl_event gate = clCreateUserEvent(clc, &err);
    for (size_t i = 0; i < n; i++) y[i] = -1.0f;
    if (serial(ctx)) {
      /* Refused, nothing written; the rest needs the driver to wait. */
      er = NULL;
      assert_int_equal(vncl_tensor_read_async(tx, y, n * 4, 1, &gate, &er),
                       VNCL_ERR_UNSUPPORTED);
      assert_null(er);
      assert_true(y[0] == -1.0f && y[n - 1] == -1.0f);
      clSetUserEventStatus(gate, CL_COMPLETE);
      T_OK(ctx, vncl_tensor_read_async(tx, y, n * 4, 1, &gate, &er));
      T_OK(ctx, vncl_event_wait(er));
      assert_memory_equal(x, y, n * 4);
      vncl_event_release(er);
      clReleaseEvent(gate);
    } else {
      T_OK(ctx, vncl_tensor_read_async(tx, y, n * 4, 1, &gate, &er));
      cl_event after;
      assert_int_equal(
          clEnqueueMarkerWithWaitList(q, 1, (cl_event[]){vncl_event_cl(er)},
                                      &after),
          CL_SUCCESS);
      int done = 1;
      T_OK(ctx, vncl_event_status(er, &done));
      assert_int_equal(done, 0);
      assert_true(y[0] == -1.0f && y[n - 1] == -1.0f); /* nothing written */
      clSetUserEventStatus(gate, CL_COMPLETE);
      assert_int_equal(clWaitForEvents(1, &after), CL_SUCCESS);
      T_OK(ctx, vncl_event_status(er, &done));
      assert_int_equal(done, 1);
      assert_memory_equal(x, y, n * 4);
      vncl_event_release(er);
      clReleaseEvent(after);
      clReleaseEvent(gate);
    }

    /* No event asked for: vncl_finish waits for the transfer. */
    for (size_t i = 0; i < n; i++) y[i] = -1.0f;
    T_OK(ctx, vncl_tensor_read_async(tx, y, n * 4, 0, NULL, NULL));
    T_OK(ctx, vncl_finish(ctx));
    assert_memory_equal(x, y, n * 4);
    vncl_tensor_destroy(tx);
    vncl_tensor_destroy(ty);
  }
  T_OK(ctx, vncl_transfer_config_set(ctx, NULL));
  free(x);
  free(y);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* ---- caller-pinned memory -------------------------------------------------- */

static void test_pinned(void **st) {
  (void)st;
  force_path(ctx, VNCL_TRANSFER_STAGED); /* pinned memory skips it anyway */
  size_t bytes = 3 * CHUNK + 10;
  unsigned char *src = NULL, *dst = NULL;
  T_OK(ctx, vncl_host_alloc(ctx, bytes + 1, (void **)&src));
  T_OK(ctx, vncl_host_alloc(ctx, bytes + 1, (void **)&dst));
  assert_true(src && dst && src != dst);
  vncl_staging_stats s0, s;
  T_OK(ctx, vncl_staging_stats_get(ctx, &s0));
  assert_int_equal(s0.host_alloc_count, 2);
  assert_int_equal(s0.host_alloc_bytes, 2 * (bytes + 1));
  fill_random(src, bytes + 1);
  vncl_tensor *t = bytes_tensor(ctx, bytes);
  memset(dst, 0x33, bytes + 1);
  T_OK(ctx, vncl_tensor_write(t, src, bytes));
  T_OK(ctx, vncl_tensor_read(t, dst, bytes));
  assert_memory_equal(src, dst, bytes);
  assert_int_equal(dst[bytes], 0x33);
  /* Async from a range inside the region (offset 1: the last byte). */
  vncl_tensor *t2 = bytes_tensor(ctx, bytes);
  vncl_event *e = NULL;
  memset(dst, 0x44, bytes + 1);
  T_OK(ctx, vncl_tensor_write_async(t2, src + 1, bytes, 0, NULL, &e));
  vncl_event_release(e);
  T_OK(ctx, vncl_tensor_read_async(t2, dst + 1, bytes, 0, NULL, &e));
  T_OK(ctx, vncl_event_wait(e));
  vncl_event_release(e);
  assert_memory_equal(src + 1, dst + 1, bytes);
  assert_int_equal(dst[0], 0x44);
  T_OK(ctx, vncl_staging_stats_get(ctx, &s));
  assert_int_equal(s.pinned_transfers, s0.pinned_transfers + 4);
  assert_int_equal(s.bytes_pinned, s0.bytes_pinned + 4 * bytes);
  assert_int_equal(s.bytes_staged, s0.bytes_staged);
  /* A range that runs past the region is not pinned: it is staged (direct
   * on a serial driver). */
  unsigned char *big = malloc(2 * bytes);
  memcpy(big, src, bytes);
  T_OK(ctx, vncl_tensor_write(t, big, bytes));
  T_OK(ctx, vncl_staging_stats_get(ctx, &s));
  assert_int_equal(s.bytes_staged,
                   s0.bytes_staged + (serial(ctx) ? 0 : bytes));
  free(big);
  vncl_tensor_destroy(t);
  vncl_tensor_destroy(t2);

  /* 1-byte transfers: the smallest one a tensor takes is an f16 element;
   * pinned memory of 1 byte is allowed. */
  unsigned char *one = NULL;
  T_OK(ctx, vncl_host_alloc(ctx, 1, (void **)&one));
  *one = 0x5A;
  T_OK(ctx, vncl_host_free(ctx, one));

  /* Frees: NULL is a no-op; a foreign pointer, or a second free, is
   * refused with nothing freed. */
  T_OK(ctx, vncl_host_free(ctx, NULL));
  int local;
  T_FAILS(ctx, vncl_host_free(ctx, &local), VNCL_ERR_INVALID_ARG,
          "not memory from vncl_host_alloc");
  T_FAILS(ctx, vncl_host_free(ctx, src + 1), VNCL_ERR_INVALID_ARG,
          "not memory from vncl_host_alloc");
  T_OK(ctx, vncl_host_free(ctx, src));
  T_FAILS(ctx, vncl_host_free(ctx, src), VNCL_ERR_INVALID_ARG,
          "already freed");
  T_OK(ctx, vncl_host_free(ctx, dst));
  T_OK(ctx, vncl_staging_stats_get(ctx, &s));
  assert_int_equal(s.host_alloc_count, 0);
  assert_int_equal(s.host_alloc_bytes, 0);
  void *out = (void *)0x1;
  T_FAILS(ctx, vncl_host_alloc(ctx, 0, &out), VNCL_ERR_INVALID_ARG, "bytes is 0");
  T_FAILS(ctx, vncl_host_alloc(ctx, 16, NULL), VNCL_ERR_INVALID_ARG, "out");
  T_FAILS(NULL, vncl_host_alloc(NULL, 16, &out), VNCL_ERR_INVALID_ARG, "ctx");
  assert_ptr_equal(out, (void *)0x1);
  T_FAILS(NULL, vncl_host_free(NULL, &local), VNCL_ERR_INVALID_ARG, "ctx");
  T_OK(ctx, vncl_transfer_config_set(ctx, NULL));
}

/* ---- the caching allocator -------------------------------------------------- */

static void test_allocator_reuse_and_trim(void **st) {
  (void)st;
  vncl_context *c = t_context("off");
  vncl_memory_stats m;
  vncl_cache_stats cs;
  size_t bytes = 100000; /* class: 112 KiB (4 per power of two) */
  vncl_tensor *t = bytes_tensor(c, bytes);
  cl_mem first = vncl_tensor_cl_mem(t);
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.allocated_bytes, bytes);
  assert_int_equal(m.reserved_bytes, 112 * KIB);
  unsigned char *buf = malloc(bytes + 4000);
  fill_random(buf, bytes);
  T_OK(c, vncl_tensor_write(t, buf, bytes));
  vncl_tensor_destroy(t);
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.allocated_bytes, 0);
  assert_int_equal(m.reserved_bytes, 112 * KIB);
  T_OK(c, vncl_memory_cache_stats_get(c, &cs));
  assert_int_equal(cs.cached_bytes, 112 * KIB);
  assert_int_equal(cs.cached_buffers, 1);
  /* A similar size reuses the buffer, and it reads back as zeros. */
  t = bytes_tensor(c, bytes + 4000);
  assert_ptr_equal(vncl_tensor_cl_mem(t), first);
  memset(buf, 0xAA, bytes + 4000);
  T_OK(c, vncl_tensor_read(t, buf, bytes + 4000));
  for (size_t i = 0; i < bytes + 4000; i++)
    if (buf[i]) fail_msg("reused buffer: byte %zu is %d, not 0", i, buf[i]);
  T_OK(c, vncl_memory_cache_stats_get(c, &cs));
  assert_int_equal(cs.hits, 1);
  assert_int_equal(cs.cached_bytes, 0);
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.allocated_bytes, bytes + 4000);
  assert_int_equal(m.reserved_bytes, 112 * KIB);
  /* A size of another class does not take it. */
  vncl_tensor_destroy(t);
  vncl_tensor *small = bytes_tensor(c, 1000);
  assert_ptr_not_equal(vncl_tensor_cl_mem(small), first);
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.reserved_bytes, 112 * KIB + 1024);
  /* Trim releases what is cached, not what is live. */
  T_OK(c, vncl_memory_trim(c));
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.reserved_bytes, 1024);
  assert_int_equal(m.allocated_bytes, 1000);
  T_OK(c, vncl_memory_cache_stats_get(c, &cs));
  assert_int_equal(cs.cached_bytes, 0);
  assert_true(cs.trims >= 1);
  vncl_tensor_destroy(small);
  /* Churn: after warm-up, creating and destroying hits the cache. */
  T_OK(c, vncl_memory_cache_stats_get(c, &cs));
  uint64_t misses = cs.misses;
  for (int i = 0; i < 50; i++) {
    vncl_tensor *a = bytes_tensor(c, 4096 * (size_t)(1 + i % 5));
    vncl_tensor *b = bytes_tensor(c, 64 * KIB);
    vncl_tensor_destroy(a);
    vncl_tensor_destroy(b);
  }
  T_OK(c, vncl_memory_cache_stats_get(c, &cs));
  assert_true(cs.misses - misses <= 6);
  assert_true(cs.hits >= 90);
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.allocated_bytes, 0);
  assert_int_equal(m.live_count, 0);
  free(buf);
  vncl_context_destroy(c); /* the cache goes with it (ASan checks) */
}

/* The limit caps reserved bytes: a request that only fits once the cache
 * is released trims it and succeeds; one that cannot fit fails. */
static void test_allocator_oom_retry(void **st) {
  (void)st;
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  o.memory_limit = 1000 * KIB; /* not a class boundary */
  vncl_context *c;
  T_OK(NULL, vncl_context_create(&c, &o));
  vncl_tensor *a = bytes_tensor(c, 768 * KIB);
  vncl_tensor_destroy(a); /* cached: 768 KiB reserved */
  vncl_memory_stats m;
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.reserved_bytes, 768 * KIB);
  vncl_tensor *b = bytes_tensor(c, 512 * KIB); /* 768 + 512 > 1000 */
  assert_non_null(b);
  vncl_cache_stats cs;
  T_OK(c, vncl_memory_cache_stats_get(c, &cs));
  assert_int_equal(cs.oom_retries, 1);
  assert_int_equal(cs.cached_bytes, 0);
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.reserved_bytes, 512 * KIB);
  assert_int_equal(m.failed_count, 0);
  /* An exact size under the cap is allowed where its class is not. */
  vncl_tensor *d = bytes_tensor(c, 480 * KIB); /* class 512 KiB: over */
  assert_non_null(d);
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.reserved_bytes, 992 * KIB);
  /* Nothing left to trim: an honest OOM, nothing counted. */
  int64_t shape[1] = {4096};
  vncl_tensor *x = NULL;
  T_FAILS(c, vncl_tensor_create(c, VNCL_F32, 1, shape, &x),
          VNCL_ERR_OUT_OF_MEMORY, "reserved 992.00 KiB");
  assert_null(x);
  T_OK(c, vncl_memory_stats_get(c, &m));
  assert_int_equal(m.failed_count, 1);
  assert_int_equal(m.allocated_bytes, 992 * KIB);
  vncl_tensor_destroy(b);
  vncl_tensor_destroy(d);
  vncl_context_destroy(c);
}

/* ---- bad input ---------------------------------------------------------------- */

static void test_bad_input(void **st) {
  (void)st;
  vncl_tensor *t = bytes_tensor(ctx, 64);
  unsigned char src[64], dst[68];
  fill_random(src, 64);
  T_OK(ctx, vncl_tensor_write(t, src, 64));
  vncl_event *sentinel = (vncl_event *)(uintptr_t)0x9, *e = sentinel;
  memset(dst, 0x21, sizeof dst);
  T_FAILS(ctx, vncl_tensor_read_async(t, dst, 68, 0, NULL, &e),
          VNCL_ERR_INVALID_ARG, "holds 64");
  T_FAILS(ctx, vncl_tensor_read_async(t, NULL, 64, 0, NULL, &e),
          VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(NULL, vncl_tensor_read_async(NULL, dst, 64, 0, NULL, &e),
          VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(ctx, vncl_tensor_read_async(t, dst, 64, 2, NULL, &e),
          VNCL_ERR_INVALID_ARG, "wait_list is NULL");
  unsigned char other[64];
  fill_random(other, 64);
  T_FAILS(ctx, vncl_tensor_write_async(t, other, 60, 0, NULL, &e),
          VNCL_ERR_INVALID_ARG, "60 bytes given");
  T_FAILS(ctx, vncl_tensor_write_async(t, NULL, 64, 0, NULL, &e),
          VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(ctx, vncl_tensor_write_async(t, other, 64, 1, NULL, &e),
          VNCL_ERR_INVALID_ARG, "wait_list");
  assert_ptr_equal(e, sentinel);
  for (size_t i = 0; i < sizeof dst; i++) assert_int_equal(dst[i], 0x21);
  T_OK(ctx, vncl_finish(ctx));
  T_OK(ctx, vncl_tensor_read(t, dst, 64));
  assert_memory_equal(dst, src, 64); /* nothing written to the tensor */
  vncl_tensor_destroy(t);

  int done = 7;
  T_FAILS(NULL, vncl_event_wait(NULL), VNCL_ERR_INVALID_ARG, "NULL");
  T_FAILS(NULL, vncl_event_status(NULL, &done), VNCL_ERR_INVALID_ARG, "NULL");
  assert_int_equal(done, 7);
  vncl_event_release(NULL);
  assert_null(vncl_event_cl(NULL));

  vncl_transfer_config cfg, good;
  T_FAILS(NULL, vncl_transfer_config_get(NULL, &cfg), VNCL_ERR_INVALID_ARG, "ctx");
  T_FAILS(ctx, vncl_transfer_config_get(ctx, NULL), VNCL_ERR_INVALID_ARG, "out");
  T_OK(ctx, vncl_transfer_config_get(ctx, &good));
  cfg = good;
  cfg.chunk_bytes = 100;
  T_FAILS(ctx, vncl_transfer_config_set(ctx, &cfg), VNCL_ERR_INVALID_ARG, "chunk_bytes");
  cfg = good;
  cfg.pool_bytes = cfg.chunk_bytes - 1;
  T_FAILS(ctx, vncl_transfer_config_set(ctx, &cfg), VNCL_ERR_INVALID_ARG, "pool_bytes");
  cfg = good;
  cfg.depth = 0;
  T_FAILS(ctx, vncl_transfer_config_set(ctx, &cfg), VNCL_ERR_INVALID_ARG, "depth");
  cfg.depth = 9;
  T_FAILS(ctx, vncl_transfer_config_set(ctx, &cfg), VNCL_ERR_INVALID_ARG, "depth");
  cfg = good;
  cfg.read_large = VNCL_TRANSFER_AUTO;
  T_FAILS(ctx, vncl_transfer_config_set(ctx, &cfg), VNCL_ERR_INVALID_ARG, "path");
  cfg.read_large = (vncl_transfer_path)42;
  T_FAILS(ctx, vncl_transfer_config_set(ctx, &cfg), VNCL_ERR_INVALID_ARG, "path");
  T_FAILS(NULL, vncl_transfer_config_set(NULL, &good), VNCL_ERR_INVALID_ARG, "ctx");
  T_OK(ctx, vncl_transfer_config_get(ctx, &cfg));
  assert_memory_equal(&cfg, &good, sizeof cfg); /* nothing changed */
  vncl_staging_stats s;
  vncl_cache_stats cs;
  T_FAILS(NULL, vncl_staging_stats_get(NULL, &s), VNCL_ERR_INVALID_ARG, "ctx");
  T_FAILS(ctx, vncl_staging_stats_get(ctx, NULL), VNCL_ERR_INVALID_ARG, "out");
  T_FAILS(NULL, vncl_memory_cache_stats_get(NULL, &cs), VNCL_ERR_INVALID_ARG, "ctx");
  T_FAILS(ctx, vncl_memory_cache_stats_get(ctx, NULL), VNCL_ERR_INVALID_ARG, "out");
}

/* ---- teardown --------------------------------------------------------------- */

/* A context destroyed with async staged reads in flight, an event and a
 * pinned region still held: everything completes and is freed when the
 * last holder goes (ASan/LSan check the "freed" part). */
static void test_teardown_in_flight(void **st) {
  (void)st;
  for (int round = 0; round < 3; round++) {
    vncl_context *c = t_context("off");
    force_path(c, VNCL_TRANSFER_STAGED);
    size_t bytes = 2 * MIB + 4;
    vncl_tensor *t = bytes_tensor(c, bytes);
    unsigned char *src = malloc(bytes), *dst = malloc(bytes), *dst2 = malloc(bytes);
    fill_random(src, bytes);
    T_OK(c, vncl_tensor_write_async(t, src, bytes, 0, NULL, NULL));
    vncl_event *e = NULL;
    T_OK(c, vncl_tensor_read_async(t, dst, bytes, 0, NULL, &e));
    T_OK(c, vncl_tensor_read_async(t, dst2, bytes, 0, NULL, NULL));
    void *pin = NULL;
    T_OK(c, vncl_host_alloc(c, 4096, &pin));
    vncl_tensor_destroy(t);
    if (round == 0) {
      vncl_context_destroy(c); /* the event and the region still hold it */
      T_OK(NULL, vncl_event_wait(e));
      vncl_event_release(e);
      T_OK(NULL, vncl_host_free(c, pin)); /* last holder: frees it all */
    } else if (round == 1) {
      vncl_event_release(e);
      T_OK(c, vncl_host_free(c, pin));
      vncl_context_destroy(c); /* waits for the reads */
    } else {
      T_OK(c, vncl_host_free(c, pin));
      vncl_context_destroy(c);
      vncl_event_release(e); /* frees it; its read completed */
    }
    assert_memory_equal(src, dst, bytes);
    assert_memory_equal(src, dst2, bytes);
    free(src);
    free(dst);
    free(dst2);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_edge_sizes_every_path),
      cmocka_unit_test(test_host_copy),
      cmocka_unit_test(test_auto_and_env),
      cmocka_unit_test(test_staged_via_tensor),
      cmocka_unit_test(test_svm_tensors),
      cmocka_unit_test(test_svm_huge_pages),
      cmocka_unit_test(test_threads_distinct),
      cmocka_unit_test(test_threads_same_tensor),
      cmocka_unit_test(test_pool_exhaustion),
      cmocka_unit_test(test_async_chained),
      cmocka_unit_test(test_pinned),
      cmocka_unit_test(test_allocator_reuse_and_trim),
      cmocka_unit_test(test_allocator_oom_retry),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_teardown_in_flight),
  };
  /* path=staged goes through the chunk pipeline in every test but
   * test_staged_via_tensor, whatever the device (on one that shares host
   * memory the table stages through the tensor's mapping instead). */
  setenv("VNCL_STAGING_VIA", "chunks", 1);
  t_test_filter(); /* e.g. VNCL_TEST_FILTER=test_pool* (slow sanitizer runs) */
  return cmocka_run_group_tests(tests, t_setup_nocache, t_teardown);
}
