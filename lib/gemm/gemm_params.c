/*
 * GEMM parameter sets: the family's table for the parameter store (from
 * the X-macro tables of gemm.h), the built-in device rows as data,
 * validation against the device's limits, and the one function that turns
 * a set into build options. The sets in force live on each context
 * (lib/tuning/store.c).
 *
 * docs/tuning.md explains every parameter and where the defaults come from.
 */
#include <stdio.h>
#include <string.h>

#include <clblast_c.h>

#include "gemm/gemm.h"

vncl__gemm_acc vncl__gemm_acc_of(vncl_dtype dt) {
  return dt == VNCL_F64                      ? VNCL__GEMM_ACC64
         : dt == VNCL_F16 || dt == VNCL_BF16 ? VNCL__GEMM_ACC16
                                             : VNCL__GEMM_ACC32;
}

vncl__gemm_shape vncl__gemm_shape_of(size_t m, size_t n, size_t k) {
  (void)k;
  if (n <= 128 && m >= 4 * n) return VNCL__GEMM_SHAPE_NARROW;
  if (m <= 128 && n >= 4 * m) return VNCL__GEMM_SHAPE_FLAT;
  return VNCL__GEMM_SHAPE_SQUARE;
}

static const char *const shape_names[VNCL__GEMM_SHAPES] = {"square", "narrow",
                                                           "flat"};
static const char *const acc_names[VNCL__GEMM_ACCS] = {"f32", "f64", "f16"};

const char *vncl__gemm_shape_name(vncl__gemm_shape s) {
  return (unsigned)s < VNCL__GEMM_SHAPES ? shape_names[s] : "?";
}

/* ---- the table, from gemm.h ---------------------------------------------- */

#define UNPAREN(...) __VA_ARGS__
#define CANDS(list) (const double[]){UNPAREN list}
#define NCANDS(list) (int)(sizeof((const double[]){UNPAREN list}) / sizeof(double))
#define IS_DOUBLE(type) ((type)0.5 != 0)
#define TUNABLE(grp, base, m, N, type, def, lo, hi, full, quick, meaning)   \
  {#N, meaning, grp, IS_DOUBLE(type), offsetof(vncl__gemm_params, base m),   \
   def, lo, hi, CANDS(full), CANDS(quick), NCANDS(full), NCANDS(quick)},
#define HOST_T(...) TUNABLE(VNCL__PARAM_HOST, , __VA_ARGS__)
#define DIRECT_T(...) TUNABLE(VNCL__GEMM_DIRECT, direct., __VA_ARGS__)
#define CPU_T(...) TUNABLE(VNCL__GEMM_PACKED_CPU, cpu., __VA_ARGS__)
#define LOCAL_T(...) TUNABLE(VNCL__GEMM_PACKED_LOCAL, local., __VA_ARGS__)
#define SMALL_T(...) TUNABLE(VNCL__GEMM_SMALL, small., __VA_ARGS__)

static const vncl__tunable gemm_tunables[] = {
    VNCL__GEMM_HOST_TABLE(HOST_T) VNCL__GEMM_DIRECT_TABLE(DIRECT_T)
    VNCL__GEMM_CPU_TABLE(CPU_T) VNCL__GEMM_LOCAL_TABLE(LOCAL_T)
    VNCL__GEMM_SMALL_TABLE(SMALL_T)};

#define CLBLAST_T(m, N, type, def, lo, hi, full, quick, meaning)            \
  {#N, meaning, VNCL__PARAM_HOST, false, offsetof(vncl__clblast_params, m),  \
   def, lo, hi, CANDS(full), CANDS(quick), NCANDS(full), NCANDS(quick)},
static const vncl__tunable clblast_tunables[] = {
    VNCL__CLBLAST_TABLE(CLBLAST_T)};

/* ---- built-in device rows -------------------------------------------------- */

/* Each row names what differs from the table's defaults (which fit any
 * device); the device-rule matcher (runtime.h) picks the most specific row
 * that matches and is valid on the device. fast: 2 gemm_packed_cpu, 3
 * gemm_packed_local. */

/* CPUs with 512-bit vectors (PoCL reports a native float width of 16):
 * 6 x 64 micro-tiles are 24 zmm accumulators. Measured on PoCL 3.1, 2 cores
 * (docs/tuning.md): 2048^3 at 0.85-0.93x OpenBLAS; `vncl autotune --quick`
 * on the same host (2026-11-29) kept these sets. The direct kernel's 6 x 32
 * tiles (12 accumulators; was 6 x 64) waste less on small and odd products:
 * best of 5, quiet Xeon, 2026-12-01: 256^3 264 against 169 GFLOP/s, 64^3
 * 35 against 30, 128^3 equal, a batch of 10000 x 17^3 37.5 against 31.5. */
#define CPU512_DIRECT "WGD_M=6 WGD_N=32 LDM=1 LDN=1 KWGD=4 VWD=16 DIRECT_LOCAL=0 "
/* Square and flat: A read in place where its rows are contiguous in depth
 * (A_PACKED=2, KU=16: one 16-wide load per row and 16 depths), packed where
 * A is transposed (in place it ran at 0.39x: one scalar load per element).
 * Skipping A's pack took 3.6 of 6.4 ms of packing off a 63 ms 2048^3 f32
 * product (quiet Xeon, 2026-12-01, 1.16x the A_PACKED=1 KU=4 set in that
 * run); in loaded runs (load 4-8, one process, medians of 7 alternating
 * calls, 512^3-4096^3 and 1000x1500x700) 0.86-1.26x, median 1.11x, f32 and
 * f64 alike; at load 3.3 (OpenBLAS at half its quiet rate) 1.01-1.04x.
 * MB=96 (half the work-items, each B sliver reused by 16 A panels) over
 * MB=48 at 2047^3-2048^3: f64 1.05-1.18x, f32 0.96-1.15x (loaded), 1.11-
 * 1.13x at load 3.3, 1.02-1.05x at 1024^3; with A_PACKED=2 over the old
 * row 1.11-1.33x in every loaded pair at 2047^3-4096^3, f32
 * 1000x1500x700 0.61-1.17x. Below the 1.15x a shared machine lets one
 * trust: a quiet host should confirm (docs/tuning.md, "Where the packed
 * path's time goes"). */
#define CPU512_PACKED "MR=6 NR=64 VW=16 MB=96 NB=64 KC=0 KU=16 ORDER=0 A_PACKED=2 "
/* f16/bf16 storage, square and flat: the packed path from 128^3 on
 * (switch_mnk16), not from switch_mnk. gemm_direct widens each 16-wide
 * vector of B once per 6-row tile (vcvtph2ps / a shift beside 12 FMAs);
 * packing widens B once and A is read in place. Loaded Xeon (load 4-6),
 * 2026-12-01, one process, medians of 21 rounds alternating with f32
 * (which stays on gemm_direct there): 16-bit packed against 16-bit direct
 * 1.28-1.30x at 128^3, 1.37-1.43x at 192^3-256^3, 1.12-1.34x 255x257x129,
 * 1.08-1.16x flat 64x512x64; against f32 0.94-1.12x (direct 16-bit
 * 0.70-0.93x). Below, 96^3 lost (0.75x f32 against 0.86-0.90x direct).
 * Not on the narrow row: 1024x32x128 packed ran 0.79x the direct kernel
 * (n below NR wastes half of each micro-tile), 512x64x64 1.3-1.4x. */
#define CPU_16 "switch_mnk16=2097152 "
/* Tall and narrow (n <= 128): A read in place (packing it would cost as
 * much as the product), 16 depths per row load (KU=16: one vector load and
 * widening per 16 elements of A), smaller blocks for more work-items. */
#define CPU512_NARROW "MR=6 NR=64 VW=16 MB=24 NB=64 KC=0 KU=16 ORDER=0 A_PACKED=0 "
/* f64 on 512-bit vectors: double8 vectors, 6 x 32 = 24 zmm. The direct
 * kernel broadcasts A from memory (KWGD=1): with KWGD=4 the staged rows of
 * A (6 more registers) pushed the 24 accumulators, 4 B vectors and the
 * broadcast past 32 zmm, and PoCL's code moved ~23 accumulators between
 * registers per depth step and kept 3 on the stack; KWGD=1 gives 24 fixed
 * accumulators, 4 loads, 6 broadcasts and 24 FMAs a step. Same process,
 * alternating, medians of 31, loaded Xeon (load 2.5-5), 2026-12-01, two
 * runs: 96^3 0.89/1.21x, 128^3 1.06/1.02x, 192^3 1.05/1.11x, 256^3
 * 1.03/1.13x, 320^3 1.01/1.05x the KWGD=4 set (small: noisy, but one
 * direction in 9 of 10). docs/tuning.md, "What bounds f64". */
#define CPU512_DIRECT64 "WGD_M=6 WGD_N=32 LDM=1 LDN=1 KWGD=1 VWD=8 DIRECT_LOCAL=0 "
#define CPU512_PACKED64 "MR=6 NR=32 VW=8 MB=96 NB=64 KC=0 KU=16 ORDER=0 A_PACKED=2 "
#define CPU512_NARROW64 "MR=6 NR=32 VW=8 MB=24 NB=64 KC=0 KU=8 ORDER=0 A_PACKED=0 "
/* Other CPUs (AVX2: 16 registers of 8 floats): 6 x 16 = 12 accumulators.
 * The direct kernel broadcasts A from memory (KWGD=1), as the AVX-512 f64
 * row: KWGD=4 would stage 6 rows of A beside 12 accumulators, 2 B vectors
 * and the broadcast, 21 ymm of 16 (the register check, docs/tuning.md);
 * register model, unmeasured on AVX2 (no such host here). */
#define CPU256_DIRECT "WGD_M=6 WGD_N=16 LDM=1 LDN=1 KWGD=1 VWD=8 DIRECT_LOCAL=0 "
/* The packed sets read A in place where its rows are contiguous in depth
 * (A_PACKED=2, KU=16, as the AVX-512 rows do), packed otherwise. Under
 * valgrind (whose CPU PoCL compiles for as pthread-haswell) that executes
 * fewer instructions than packing A (KU=4): one 512^3 product 38.7 M
 * against 44.6 M in f32, 79.1 M against 89.5 M in f64. Timed as AVX2 code
 * on the AVX-512 guest (POCL_KERNELLIB_NAME=avx2, the AVX2 sets forced,
 * OpenBLAS's Haswell kernels as the peer, every other process stopped,
 * 2026-12-02, medians of 9-11 alternating rounds, since the f32/f64 rows
 * of A are broadcast straight from memory): over the packed-A set f32
 * 1.33x (512^3), 1.18x (1024^3), 1.19x (2048^3), f64 1.14x (1024^3 and
 * 2048^3); against OpenBLAS 0.90x, 0.93x, 0.96x and 0.93x, 0.88x. (On
 * 2026-12-01, with the staged rows, the same comparison had read 0.90-
 * 0.93x.) MB=96 was no better (0.77-0.93x OpenBLAS). Still to time on an
 * AVX2 host (docs/tuning.md, "AVX2 rows under valgrind"). */
#define CPU256_PACKED "MR=6 NR=16 VW=8 MB=48 NB=64 KC=0 KU=16 ORDER=0 A_PACKED=2 "
/* 16-bit storage on AVX2: 8 depths of each row of A widened at a time
 * (KU=8), and the packed path from 128^3 (CPU_16). With KU=16 the staged
 * rows (two ymm a row once widened) left the 12 accumulators, 2 B vectors
 * and the broadcast short of registers, and PoCL's code kept accumulators
 * on the stack (perf annotate); the direct kernel's 6 x 16 tile spilled
 * too. Timed as AVX2 code on the Zen 4 EPYC (POCL_KERNELLIB_NAME=avx2,
 * 2026-12-03, one process, medians of 11-21 rounds), 16-bit against f32
 * on its own route, before / after: f16 256^3 0.83 / 0.92, 384^3 0.74 /
 * 0.95, 512^3 0.68 / 0.88, 1024^3 0.70 / 0.97; bf16 256^3 0.81 / 0.85,
 * 384^3 0.70 / 0.88, 512^3 0.66 / 0.86, 1024^3 0.70 / 0.92; 128^3 within
 * the noise (0.85-0.87 / 0.90-0.94). KU=4 ran below KU=8 (0.83-0.85 at
 * 512^3). The AVX-512 16-bit rows keep KU=16: KU=8 moved nothing there
 * (1024^3 and 1536^3, 0.90-1.00x either way). */
/* Since 2026-12-05: 4 x 16 tiles (8 accumulators) with KU=16, square and
 * flat, and the narrow sets likewise (CPU256_NARROW16). With 6 x 16 tiles
 * the 12 accumulators, 2 B vectors, the broadcast and the widened A left
 * PoCL's code for a 16-bit A with an f32 C short of AVX2's 16 registers:
 * it kept accumulators on the stack every depth step (perf annotate), and
 * f16 ran at 0.58-0.74x of f32 where C is f32 (the tensor API's mixed
 * product; the bench's hgemm, C f16 too, read 0.82-0.92x). Timed as AVX2
 * code on the Intel Xeon (model 167; one process per run, two or three
 * alternated passes, 16-bit against f32 in the same pass), the old sets /
 * these: f16, C f32, 512^3-2048^3 0.59-0.71 / 0.88-0.98, 1000^3 0.62-0.63
 * / 0.85-0.89, flat 128 x 4096 x 4096 0.77-0.80 / 1.04-1.06, narrow 4096 x
 * 64 x 1024 0.58-0.63 / 0.82-0.92; f16, C f16, 512^3-2048^3 0.48-0.89 /
 * 0.89-0.96; bf16 square and flat alike within the noise (0.71-1.13 /
 * 0.64-1.21), narrow 0.80-0.98 / 0.78-0.93, and the swapped layer 8 x
 * 4096 x 4096 with B transposed 0.62-0.67 / 0.81-0.93.
 * MR=5 (MB 40) ran as MR=4 in the square class; 4 divides the flat
 * class's MB 132 and the big blocks' 192. The Zen 4's KU=8 above was
 * timed with 6-row tiles and a 16-bit C; not on an AVX2 host
 * (docs/tuning.md, "16-bit tiles on AVX2"). */
#define CPU256_PACKED16 "MR=4 NR=16 VW=8 MB=48 NB=64 KC=0 KU=16 ORDER=0 A_PACKED=2 "
#define CPU256_NARROW "MR=6 NR=16 VW=8 MB=24 NB=64 KC=0 KU=8 ORDER=0 A_PACKED=0 "
#define CPU256_NARROW16 "MR=4 NR=16 VW=8 MB=24 NB=64 KC=0 KU=16 ORDER=0 A_PACKED=0 "
/* Square products from 2e9 (about 1260^3) on the AVX2 rows: blocks of 192
 * x 16 (big_tall 4 on 48 x 64), so each B sliver (KC=0: all the depth, 64
 * bytes a depth) serves 32 panels of A instead of 8. Timed as AVX2 code on
 * the Zen 4 EPYC (POCL_KERNELLIB_NAME=avx2), 2026-12-03, one process, the
 * sets alternated (medians of 7-11 rounds), 192 x 16 against the row's 48
 * x 64: f64 512^3 0.88-0.89x, 768^3 0.87-0.93x, 1024^3 0.97-1.14x, 1536^3
 * 1.14x, 2048^3 1.19-1.33x, 3000^3 1.27x, 1024x1024x2048 1.16x; f32 512^3 0.97x,
 * 1024^3 0.97x, 1536^3 1.14x, 2048^3 1.24x, 1024x1024x2048 1.12x; f16
 * 2048^3 1.09x, bf16 1.03x. Against OpenBLAS's Haswell kernels in the same
 * runs, f64 2048^3 0.76-0.81x -> 0.96-1.01x. Again with each set in two
 * contexts (the first context's buffers can sit at an unlucky distance:
 * docs/tuning.md), 192 x 16 against 48 x 64: f64 2048^3 1.13-1.20x, f32
 * 2048^3 1.12-1.16x, f64 1024^3 0.97-0.98x (which is why f64 keeps 2e9 as
 * well). docs/tuning.md, "Blocks for large products". */
#define CPU256_BIG "big_mnk=2e9 big_tall=4 "
/* The AVX2 square rows are these sets with CPU256_BIG; the rows for the
 * other shapes keep the sets alone (tall blocks not measured there). */
#define AVX2_32 CPU256 CPU256_DIRECT CPU256_SMALL CPU256_PACKED
#define AVX2_16 CPU256 CPU256_DIRECT CPU256_SMALL CPU256_PACKED16 CPU_16
#define AVX2_64 CPU256 CPU256_DIRECT64 CPU256_SMALL64 CPU256_PACKED64
#define CPU256_DIRECT64 "WGD_M=6 WGD_N=8 LDM=1 LDN=1 KWGD=1 VWD=4 DIRECT_LOCAL=0 "
#define CPU256_PACKED64 "MR=6 NR=8 VW=4 MB=48 NB=64 KC=0 KU=16 ORDER=0 A_PACKED=2 "
/* Strided batches of small products (gemm_small): 6 x 2 vectors per tile,
 * 24 rows per work-item, 8 work-items per group. Measured on the quiet-ish
 * Xeon, 2026-12-01, best of 12 interleaved rounds against gemm_direct in
 * the same process (machine shared, load 2.5-3): f32 batches 10000 x 17^3
 * 2.4-2.6x, 32^3 1.1x, 1000 x 64^3 1.15-1.2x, 100^3 1.2-1.25x; f64 (2 x
 * double8) 17^3 2.3x, 32^3 1.2x, 64^3 1.06x, 100^3 0.90x: the f32 switch
 * takes 100^3, f64's stops at 64^3. Single products stay on gemm_direct
 * (small_mnk 0): one work-item per 24 rows left a core idle, waited 32^3
 * and 64^3 0.6-0.9x, queued 0.96-1.3x (noise). The AVX2 rows scale the
 * vectors to 256 bits, not measured (no such host here).
 * Later the same day (AVX-512 f32): tile rows of 4 vectors (6 x 64, 24
 * zmm, the packed kernel's micro-tile), with a half tile after the full
 * ones and the last columns as one overlapping vector, and single products
 * up to 256^3 there too (small_mnk; the host splits their rows over the
 * compute units). Device time per call (profiler) against gemm_direct,
 * alternated in one process, medians of 21, loaded Xeon (load 7-10), two
 * runs: 64^3 3.1 against 3.9 us, 96^3 9.0 / 10.6, 128^3 20.3 / 25.0,
 * 192^3 64 / 80, 256^3 153 / 185, 100x37x77 5.8 / 13.7, 33x250x64 9.9 /
 * 12.0. Batches 17^3-100^3 with 4 vectors: within the noise of 2 at that
 * load. f64 keeps 2 x double8 and leaves single products on gemm_direct
 * (4 vectors: 0.93-0.97x its time, within the noise; batches of 17^3
 * slower). The AVX2 rows keep 2 vectors (4 would be 24 of 16 ymm) and
 * single products on gemm_direct (not measured).
 * Quiet Xeon, 18:40Z, one process, the two routes alternated (medians of
 * 9, 40 calls queued or 3 waited per sample): single products stay on
 * gemm_direct after all (small_mnk 0). gemm_small against it: f32 64^3
 * 0.97-1.02x, 96^3 1.10x, 128^3 0.89-0.92x, 256^3 0.87-0.97x; f16
 * storage 0.52x at 128^3, 0.46x at 256^3, 0.64x at 96^3 (its 16-bit
 * loads), and the row serves f16/bf16 storage too. The loaded runs above
 * had favoured it; the bench's 128^3 queued ratio (0.74x -> 0.96-1.10x)
 * moved with OpenBLAS's own time (23.8 -> 35 us), vncl's stayed at 32 us.
 * SM_NV 4 stays for batches: 1000 x 64^3 2.6-2.8x a loop of OpenBLAS
 * against 2.4-2.5x with SM_NV 2 (17^3 2.22x / 2.14x, 32^3 2.03x / 1.71x,
 * 100^3 1.76x / 1.62x, same process, same minutes).
 * Model-207 Xeon, 2026-12-02, quiet, one process, nine to fifteen
 * alternated rounds, gemm_small against the route it replaces
 * (packed/direct), a warm call before each: f64 batches of 80^3 1.30x,
 * 100^3 1.22x (two runs), 128^3 1.12x, so the f64 row takes batches up to
 * 128^3 (small_batch_mnk 2097152; its switch at 64^3 came from a loaded
 * machine). f32 128^3 gained too (1.29x), but the f32 row also served
 * f16/bf16 storage then, whose 128^3 batches ran at 0.49x on gemm_small:
 * the f32 row stays at 1000000 (16-bit storage has rows of its own since
 * 2026-12-03, CPU512_SMALL16; the Zen 4's f32 gained nothing at 112^3-128^3,
 * and the Xeon's has not been measured again). With B transposed (its columns strided,
 * gathered element by element) f32 loses from 100^3 on (0.70x at 100^3,
 * 0.48x at 128^3; 1.34x at 64^3) and f64 still wins at 100^3 (1.16x):
 * small_batch_mnk_bt 262144 (f32) and 1000000 (f64). gemm_small then took
 * dot products for B transposed (f32 1000 x 64^3 1.2-1.4x the gathering
 * kernel; 100^3-128^3 still 0.87-0.89x the other route): the same limits.
 * Zen 4 EPYC, 2026-12-02, quiet, one process, nine alternated rounds,
 * batches of 1000 with B transposed, gemm_small (dot products) against
 * the packed route: f32 72^3 1.83x, 80^3 2.0x (two runs), 90^3 1.47x,
 * 100^3 1.20-1.40x; f16 72^3 2.4x, 90^3 2.0x, bf16 80^3 2.3-2.7x, but f16
 * 100^3 0.67x (two runs), and the Xeon's dot products ran 0.87-0.89x at
 * 100^3-128^3 (above): small_batch_mnk_bt 900000, which takes up to 96^3
 * and leaves 100^3 where it was. The packed route wastes most of its
 * 96 x 64 blocks on sides of 72-96 (20-40 GFLOP/s there against 55-85 at
 * 100^3). Not measured on the Xeon between 64^3 and 100^3.
 * Intel Xeon (x86 family 6, model 167), 2026-12-05, once the dot
 * products summed their lanes as one tree per row (cl_kernels/gemm_small.cl)
 * and took their last depths as one masked vector: batches of 1000 x 100^3
 * with B transposed on gemm_small against the packed route, one process
 * each: f32 113.5 / 78.2 GFLOP/s, f16 103.7 / 92.6, bf16 107.1 / 89.0, so
 * the f32 and 16-bit rows take them too (small_batch_mnk_bt 1000000, as
 * the AMD row). 112^3 and up stay with the packed route (small_batch_mnk).
 * The AMD 16-bit rows share these sets (CPU512_SMALL16, and CPU512_SMALL
 * for the other shapes): their f16 100^3 ran 0.67x on gemm_small on the
 * Zen 4 EPYC on 2026-12-02, before both the F16C loads and the tree, and
 * has not been measured on an AMD host since.
 * f16 batches of 64^3 had run 1.74x faster off gemm_small in one run,
 * 100^3 0.86x (docs/tuning.md). On the Intel Xeon (model 167), 2026-12-05,
 * once gemm_small widened f16 A by 16 elements at a time
 * (cl_kernels/gemm_small.cl, A_STAGED), gemm_small / the packed route, one
 * process each, GFLOP/s: 1000 x 64^3 169-174 / 177-181, 500 x 128^3 160 /
 * 166-167, 1000 x 96^3 146 / 87-91, 100^3 115 / 61: the sets keep
 * gemm_small. */
#define CPU512_SMALL "small_batch_mnk=1000000 small_batch_mnk_bt=1000000 SM_MR=6 SM_NV=4 SM_VW=16 SM_RB=24 SM_WG=8 "
/* The AMD f32 row: batches with B transposed up to 100^3 too. Once the dot
 * products took their last depths by 8- and 4-wide vectors (2026-12-03),
 * f32 1000 x 100^3 ran 1.32x the packed route on the Zen 4 EPYC (79.6
 * against 60.4 GFLOP/s), 112^3 and 128^3 the same (0.97x, 0.99x). f16
 * storage stays with the packed route at 100^3 (53 against 68), and the
 * Xeon's rows are not measured since. */
#define ZEN512_SMALL "small_batch_mnk=1000000 small_batch_mnk_bt=1000000 SM_MR=6 SM_NV=4 SM_VW=16 SM_RB=24 SM_WG=8 "
/* 16-bit storage, square and flat: batches up to 128^3 on gemm_small. Its
 * f16 loads of single elements went through F16C from 2026-12-03 (PoCL's
 * scalar vload_half is a software conversion; vncl_prelude.cl), and on the
 * Zen 4 EPYC batches of 500 x 128^3 then ran 1.26x (f16) and 1.31x (bf16)
 * the packed route (one process, medians of 11). Batches of f16 32^3-100^3
 * on gemm_small went 2.2-3.5x faster with it (31.6 -> 69.3 GFLOP/s at
 * 32^3, 63.8 -> 157.9 at 64^3, 31.6 -> 109.6 at 100^3). Not measured on
 * an Intel host. */
#define CPU512_SMALL16 "small_batch_mnk=2097152 small_batch_mnk_bt=1000000 SM_MR=6 SM_NV=4 SM_VW=16 SM_RB=24 SM_WG=8 "
#define CPU512_SMALL64 "small_batch_mnk=2097152 small_batch_mnk_bt=1000000 SM_MR=6 SM_NV=2 SM_VW=8 SM_RB=24 SM_WG=8 "
#define CPU256_SMALL "small_batch_mnk=1000000 SM_MR=6 SM_NV=2 SM_VW=8 SM_RB=24 SM_WG=8 "
/* The AVX2 f64 row: batches up to 100^3 on gemm_small (64^3 before, not
 * measured then). Timed as AVX2 code on an Intel Xeon (x86 family 6, model
 * 167; POCL_KERNELLIB_NAME=avx2, OpenBLAS's Haswell kernels), 2026-12-05,
 * one process each, batches of 1000, gemm_small against the route it
 * replaces, GFLOP/s: 80^3 47.8 / 41.1, 90^3 51.7 / 42.7, 100^3 56.1 /
 * 46.7; with B transposed 52.1 / 24.9, 53.0 / 26.4, 61.9 / 43.2 (0.84x the
 * OpenBLAS loop at 90^3 before, 1.71x after). A proxy for an AVX2 host. */
#define CPU256_SMALL64 "small_batch_mnk=1000000 SM_MR=6 SM_NV=2 SM_VW=4 SM_RB=24 SM_WG=8 "
/* m*n*k switch points: below, the direct kernel (one launch, no scratch).
 * On PoCL the direct kernel matched the packed path up to 384^3 with B rows
 * contiguous, but gathering strided B columns made it 4-5x slower from
 * 128^3 on. GPUs: the direct kernel stages either layout coalesced. */
/* gemm_small launches that move 16 MiB or more (A, B and C) stream C's
 * aligned vectors past the caches (non-temporal stores: no read of the line
 * before it is written). Zen 4 EPYC (32 MiB L3), 2026-12-03, quiet, one
 * process, two contexts alternated, medians of 11 rounds of 5 queued
 * calls, pairs streamed / not: f32 10000 x 32^3 (123 MB) 0.94-1.12x in
 * seven pairs (six above 1.0), 1000 x 64^3 (48 MB) 1.00-1.16x in five, f64
 * 10000 x 32^3 1.07-1.18x in four, 400 x 64^3 (19 MB) 1.07-1.15x; within
 * the caches it costs: 40 x 64^3 (1.9 MB) 0.92-0.96x, 150 x 64^3 (7.2 MB)
 * 0.95-0.98x. */
#define CPU_STREAM "small_stream_bytes=16777216 "
#define CPU_BASE "fast=2 switch_mnk_bt=1000000 pack_elem=0 pack_wg0=16 " \
                 "pack_wg1=16 " CPU_STREAM
#define CPU CPU_BASE "switch_mnk=56623104 "
#define CPU512 CPU "VREGS=32 "
#define CPU256 CPU "VREGS=16 "
/* AMD CPUs with 512-bit vectors, square products: the direct kernel beats
 * the packed path well past 384^3 there. Zen 4 EPYC (2-core guest),
 * 2026-12-03, quiet, one process, the two routes alternated with
 * cblas_{s,d}gemm (medians of 11 waited rounds of 3 calls, after a quiet
 * wait each), GFLOP/s direct / packed: f32 512^3 172 / 119 (earlier runs
 * 148 / 104), 640^3 172 / 122 (144 / 115), 768^3 146 / 116 (151 / 141),
 * 896^3 154 / 176 (159 / 160), 1024^3 154 / 201 (89 / 110); f64 512^3 78
 * / 62 (76 / 58, 73 / 48), 640^3 85 / 70 (88 / 66), 704^3 85 / 71 (91 /
 * 73), 768^3 89 / 93 (83 / 88), 832^3 86 / 92, 1024^3 81 / 93. So f32 is
 * packed from 6e8 (about 843^3), f64 from 4e8 (about 737^3). Likely why:
 * at these sizes the packed path's 96 x 64 blocks give the two cores
 * 48-140 long work-items, the direct kernel's 6 x 32 tiles hundreds of
 * short ones (not measured apart). The model-207 Xeon's switch (384^3,
 * where the two matched there) stays on every other CPU. */
#define ZEN512_32 CPU_BASE "VREGS=32 switch_mnk=6e8 "
/* Its f32 direct kernel: 6 x 64 tiles (24 zmm accumulators) with A
 * broadcast from memory (KWGD=1), where the other AVX-512 rows take 6 x 32
 * with 4 depths of A staged. Zen 4 EPYC, quiet, one process, the two sets
 * alternated with cblas_sgemm, waited, medians of 11, GFLOP/s 6 x 64 / 6 x
 * 32 (OpenBLAS): 2026-12-02 128^3-768^3 1.04-1.19x; 2026-12-03 128^3 44 /
 * 41 (85), 256^3 142 / 124 (152), 384^3 165 / 155 (162), 512^3 191 / 171
 * (181), 600^3 138 / 130 (156), 768^3 190 / 164 (186); 64^3 within the
 * noise. 16-bit storage widened each broadcast element of A on its own
 * there, 0.76-0.83x the 6 x 32 set at 100^3-120^3 (f16) with PoCL's scalar
 * vload_half, 0.98-1.15x once single f16 elements went through F16C (the
 * same day). Once gemm_direct widened 16-bit A four depths at a time with
 * KWGD=1 (2026-12-03, gemm_direct.cl, KWA), the AMD 16-bit square row took
 * this set and f32's switch point too: one process, medians of 15-31
 * rounds, 16-bit against f32 on its own route, direct / packed (the old
 * row's route from 128^3): f16 384^3 0.94 / 0.90, 512^3 0.97-1.00 / 0.83-
 * 0.93, bf16 384^3 0.94 / 0.87, 512^3 1.00 / 0.83; 768^3 1.03-1.05x on
 * both; 256^3 0.88-1.11 / 0.91-1.06 (within the noise of a loud day). */
#define CPU512_DIRECT_ZEN "WGD_M=6 WGD_N=64 LDM=1 LDN=1 KWGD=1 VWD=16 DIRECT_LOCAL=0 "
/* 16-bit storage on the AMD square row: 5 x 64 tiles (20 accumulators).
 * With 6 x 64 and a 16-bit C, PoCL 3.1's code for the 16-bit loop kept one
 * accumulator on the stack (a load, the FMA and a store every depth: 27%
 * of gemm_direct's samples, perf annotate) next to the four widened A
 * values it held in registers; the same code on both AMD hosts (PoCL names
 * the Zen 4 and Zen 5 alike, skylake-avx512), but on a Zen 5, whose two
 * FMA pipes finish the 24 FMAs of a depth in 12 cycles, that chain is the
 * bound. Zen 5 EPYC, 2026-12-03, one process, sets alternated both ways
 * round, medians of 9-11, GFLOP/s 5 x 64 / 6 x 64 (f32): f16 with f16 C
 * 256^3 192 / 170 (218), 287 / 244 (284); 384^3 336 / 261 (346), 345 / 282
 * (349); 512^3 355-372 / 281-301 (333-373); f16 with f32 C 512^3 358 / 298,
 * 768^3 339 / 288; bf16 (either C) 512^3-768^3 0.96-1.02x (one pair
 * 1.15x): no loss. Not measured on the Zen 4 since. */
#define CPU512_DIRECT_ZEN16 "WGD_M=5 WGD_N=64 LDM=1 LDN=1 KWGD=1 VWD=16 DIRECT_LOCAL=0 "
/* The AVX-512 f64 square rows' packed blocks from 2e9 (about 1260^3): 192
 * x 32 (big_tall 2 on 96 x 64), "Blocks for large products" in
 * docs/tuning.md. Zen 4 EPYC, 2026-12-03, one process, each set in two
 * contexts alternated (medians of 7): 1536^3 1.02-1.06x, 3000^3
 * 1.04-1.06x (every pair above the row), 2048^3 0.98-1.02x: a gain near
 * the noise. f32 (6 x 64 micro-tiles, 192 x 64 blocks) 1.01x at 2048^3 and
 * 3000^3: not taken. The CPU row's f64 square class took them on
 * 2026-12-04 after an Intel Xeon (model 167) gained 2-8% from 1536^3 on
 * (docs/tuning.md, "Quick search on an Intel Xeon, model 167"). */
#define CPU512_BIG64 "big_mnk=2e9 big_tall=2 "
#define ZEN512_64 CPU_BASE "VREGS=32 switch_mnk=4e8 " CPU512_BIG64
/* Square f32 and 16-bit products on other CPUs with 512-bit vectors: the
 * direct kernel on the AMD rows' tiles (6 x 64 f32, 5 x 64 16-bit, A
 * broadcast from memory) up to 1.5e8 (about 531^3), where the 6 x 32 tile
 * with KWGD=4 had handed over at 384^3 (the model-207 Xeon's switch).
 * Intel Xeon (x86 family 6, model 167), 2026-12-04, quiet. Harness, PoCL's
 * workers pinned, one process, the sets alternated with cblas_sgemm,
 * medians of 7 a round, three rounds, ratio to OpenBLAS, 6 x 64 direct /
 * the old row: 256^3 1.11-1.21x / 1.01-1.07x, 384^3 1.08-1.10x /
 * 0.98-1.02x, 448^3 1.06-1.30x / 0.94-1.17x, 512^3 1.04-1.15x /
 * 0.90-1.04x, 576^3 1.00-1.04x / 0.99-1.03x, but 600^3 0.79-0.96x /
 * 0.92-1.12x and 640^3 0.73-0.90x / 0.98-1.20x. In the bench (unpinned;
 * `--suite gemm`, four runs alternated with the old row): sgemm 512^3
 * 0.98-1.06x OpenBLAS (260-277 GFLOP/s) against 0.61-0.67x (154-164): one
 * launch of hundreds of short work-items is not held back by the workers'
 * placement as the packed path's launches are (docs/portability.md);
 * 256^3 0.95-0.99x against 0.84-1.23x, single calls of 256^3 waited
 * 1.00-1.07x against 0.90-0.94x; 16-bit 512^3 (direct too) 207-230
 * GFLOP/s against 140-205 packed. f64 stays at 384^3: its direct kernel
 * ran 512^3 at 0.65-0.69x OpenBLAS pinned against 1.03-1.06x packed. */
#define CPU512_SQ CPU_BASE "VREGS=32 switch_mnk=1.5e8 "
/* The AMD AVX-512 square rows' packed set: A's rows in place as on the
 * other AVX-512 rows, but 4 depths per row load (f32 and 16-bit storage,
 * KU=4) or 8 (f64, one double8), where those take 16. Zen 5 EPYC (2-core
 * guest), 2026-12-04, quiet, one process, the sets alternated with
 * cblas_{s,d}gemm (medians of 5-9 rounds), GFLOP/s KU 16 / 4 / 8: f32
 * 1000^3 353 / 364 / 368, 1024^3 375 / 394 / 389, 2047^3 343 / 374 / 367,
 * 2048^3 350-359 / 385-389 / 378-384, 4096^3 319 / 347 / 328; f64 1000^3
 * 166-172 / 182 / 186, 1024^3 172-175 / 186 / 189, 2047^3 174-176 / 182 /
 * 185, 2048^3 178-179 / 193 / 189, 4096^3 163 / 172 / 169; f16 2048^3 352 /
 * 386 / 364, bf16 357 / 383 / 388, 1024^3 within 2% (bf16 KU 8 0.86x).
 * 512^3 and below run the direct kernel (switch_mnk). Depths beyond 2048
 * in chunks of 2048 (KC; a depth within one chunk runs as KC 0 does): the
 * B sliver of all 4096 depths (1 MiB) outgrew L2. Same runs, KC 0 / 2048 /
 * 1024: f32 4096^3 331 / 364 / 360, 3000^3 340 / 353 / 362; f64 4096^3 155
 * / 172 / 176, 3000^3 172 / 173 / 175; at 2048^3 KC 1024 (two chunks) lost
 * 2-3%, KC 2048 nothing. Not measured on the Zen 4, which PoCL names
 * alike. docs/tuning.md, "Depths per row load on a Zen 5". */
#define ZEN512_PACKED "MR=6 NR=64 VW=16 MB=96 NB=64 KC=2048 KU=4 ORDER=0 A_PACKED=2 "
#define ZEN512_PACKED64 "MR=6 NR=32 VW=8 MB=96 NB=64 KC=2048 KU=8 ORDER=0 A_PACKED=2 "

/* GPUs: 64 work-items per direct group (8 x 8, a 32 x 32 tile through local
 * memory); the packed kernel with 16 x 16 work-items, 8 x 8 accumulators
 * each on a 128 x 128 tile, 16-deep slices (16 KiB of local memory). Not
 * measured here (no GPU on the build machine). */
#define GPU "fast=3 switch_mnk=16777216 switch_mnk_bt=16777216 pack_elem=1 " \
            "pack_wg0=16 pack_wg1=16 WG_MULTIPLE=1 "
#define GPU_DIRECT "WGD_M=32 WGD_N=32 LDM=8 LDN=8 KWGD=16 VWD=1 DIRECT_LOCAL=1 "
/* gemm_small on GPUs: groups of 64 work-items (a multiple of every
 * vendor's preferred multiple), 4 rows each. Not measured, and off
 * (small_mnk and small_batch_mnk 0): the Oclgrind check runs it. */
#define GPU_SMALL "SM_MR=4 SM_NV=1 SM_VW=4 SM_RB=4 SM_WG=64 "
#define GPU_LOCAL128 "MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=16 VWM=4 VWN=4 KWI=2 SA=1 SB=1"
/* Intel GPUs: smaller register files per work-item; 64 x 64 tiles. */
#define GPU_LOCAL64 "MWG=64 NWG=64 KWG=16 MDIMC=16 NDIMC=16 VWM=4 VWN=4 KWI=2 SA=1 SB=1"
/* Any other accelerator: 64 work-items, 8 KiB of local memory. */
#define DIRECT_SMALL "WGD_M=32 WGD_N=32 LDM=8 LDN=8 KWGD=8 VWD=1 DIRECT_LOCAL=1 "
#define LOCAL_SMALL "MWG=64 NWG=64 KWG=16 MDIMC=8 NDIMC=8 VWM=2 VWN=2 KWI=1 SA=1 SB=1"

#define ANY VNCL__RULE_ANY
#define R_CPU(vec, acc, shape) {NULL, VNCL_DEVICE_CPU, ANY, vec, acc, shape, 0}
#define R_CPU_OF(vendor, vec, acc, shape)                                      \
  {vendor, VNCL_DEVICE_CPU, ANY, vec, acc, shape, 0}
#define R_GPU(vendor) {vendor, VNCL_DEVICE_GPU, ANY, 0, ANY, ANY, 0}
#define MEASURED "PoCL 3.1, 2-core AVX-512 guest, 2026-11-29, batches 2026-12-02"
/* f64: the direct kernel's KWGD, and packed variants that did not beat the
 * row (docs/tuning.md, "What bounds f64"). */
#define MEASURED64 "PoCL 3.1, 2-core AVX-512 guest, 2026-12-01, batches 2026-12-02; kept by `vncl autotune --quick` on an Intel Xeon (x86 family 6, model 167), 2026-12-04"
/* The square f64 row's blocks from big_mnk on (CPU512_BIG64, as the AMD
 * AVX-512 f64 row): docs/tuning.md, "Quick search on an Intel Xeon, model
 * 167". */
#define BIG64_INTEL "; big_mnk blocks on an Intel Xeon (x86 family 6, model 167), 2026-12-04"
/* The AVX2 rows: their direct kernel's KWGD=1 comes from the register
 * check, not from a run. The first AVX2 host (a Zen 3 EPYC, session 47)
 * kept every f32 and f64 class in a quick search (docs/tuning.md, "Quick
 * search on an AVX2 EPYC"). */
#define MEASURED256 "register model; packed sets timed as AVX2 code on the AVX-512 guest (POCL_KERNELLIB_NAME=avx2), 2026-12-01 and 2026-12-02; kept by `vncl autotune --quick` (f32 and f64, every class) on an AMD EPYC with AVX2 only (x86 family 25, model 1), 2026-12-07"
#define BIG256 "; big_mnk blocks as AVX2 code on the Zen 4 EPYC guest, 2026-12-03"
#define MEASURED256_16 "as AVX2 code on a Zen 4 EPYC guest (POCL_KERNELLIB_NAME=avx2): switch_mnk16 2026-12-03; 4-row tiles and KU as AVX2 code on an Intel Xeon (x86 family 6, model 167), 2026-12-05; the rest as the AVX2 rows; not searched on an AVX2 host (bench on a Zen 3 EPYC, x86 family 25, model 1, 2026-12-07: hgemm / bgemm 512^3-2048^3 0.85-1.06x of f32)"
/* The f32 square and flat rows: the 2026-11-29 sets, A in place
 * (A_PACKED=2) since; switch_mnk16 2026-12-01 (loaded, noisy). */
#define MEASURED32 "PoCL 3.1, 2-core AVX-512 guest, 2026-11-29, 2026-12-01, batches 2026-12-02; kept by `vncl autotune --quick` on an Intel Xeon (x86 family 6, model 167), 2026-12-04"
/* The square f32 row: the packed set as MEASURED32, the direct tile and
 * switch from CPU512_SQ. */
#define MEASURED32SQ MEASURED32 "; direct 6 x 64 tiles up to 1.5e8 (the AMD row's tile) on that Xeon, 2026-12-04: sgemm 512^3 0.98-1.06x OpenBLAS in the bench against 0.61-0.67x packed; batches with B transposed up to 100^3 on gemm_small on that Xeon, 2026-12-05: 1000 x 100^3 1.45x the packed route"

/* Single square products up to 1e6 (100^3) on gemm_small, on the f32 and
 * f64 AVX-512 rows of CPUs other than AMD's (small_mnk; with B transposed
 * only below switch_mnk_bt, 1e6, so the same range). Before, they ran the
 * direct kernel, which gathers a transposed B element by element: since
 * gemm_small's groups are even (gemm.c, vncl__gemm_small_group) it is as
 * fast with B as stored and 1.15-2.2x with B transposed. Intel Xeon (x86
 * family 6, model 167), 2026-12-05, one process each, single calls queued
 * (20 a sample, medians of 15), GFLOP/s, direct / gemm_small, two runs:
 * f32 32^3 6.0-7.4 / 6.2-7.4, 48^3 17.0-17.5 / 17.5-19.8, 64^3 33.7-34.4
 * / 32.3-34.0, 80^3 36.0 / 45.6, 90^3 41.8-44.3 / 53.1-58.6, 100x37x77
 * 19.1 / 28.3, 16x16x3000 33.2 / 48.0; with B transposed 32^3 3.7-4.0 /
 * 5.5-6.8, 48^3 9.2-10.3 / 14.5-14.9, 64^3 14.9-15.5 / 20.0-26.7, 80^3
 * 19.2 / 41.8, 90^3 23.4-24.8 / 41.2-42.5, 100x37x77 14.4 / 27.3,
 * 16x16x3000 9.1 / 48.1; f64 32^3 6.0-6.6 / 5.5-6.5, 48^3 12.3-12.9 /
 * 13.9-14.2, 64^3 24.0-24.3 / 21.9-24.0, 90^3 34.9-35.9 / 36.4-36.5; with
 * B transposed 32^3 4.2-4.8 / 5.1-5.4, 48^3 8.4-8.6 / 12.3-13.1, 64^3
 * 14.1-14.4 / 21.1-21.8, 90^3 23.4-25.2 / 31.5-32.0. Only the square
 * class: narrow and flat products lost there (1x1000x1000 0.55x, f64
 * 1000x7x100 0.51x, 4x500x500 0.54x: one work-item per few rows), and the
 * 16-bit rows and AMD's were not measured. */
#define CPU512_SINGLE_SMALL "small_mnk=1000000 "
/* The same for the AVX2 f32 and f64 square rows, timed as AVX2 code on
 * that Xeon (POCL_KERNELLIB_NAME=avx2, OpenBLAS's Haswell kernels; a proxy
 * for an AVX2 host, not one), the same day and harness, direct /
 * gemm_small: f32 32^3 7.7 / 6.9, 64^3 29.9 / 30.5, 90^3 49.0 / 47.8,
 * with B transposed 5.0 / 6.8, 17.2 / 28.7, 31.6 / 44.0; f64 5.6 / 5.1,
 * 18.9 / 19.4, 34.9 / 38.0, with B transposed 4.7 / 5.8, 15.7 / 19.1,
 * 27.8 / 36.7. */
#define CPU256_SINGLE_SMALL "small_mnk=1000000 "
#define SINGLE_SMALL_AVX2 "; single products up to 1e6 on gemm_small, as AVX2 code on an Intel Xeon (x86 family 6, model 167), 2026-12-05: 1.2-1.7x the direct kernel with B transposed, 0.9-1.09x with B as stored"
#define SINGLE_SMALL_INTEL "; single products up to 1e6 on gemm_small on that Xeon, 2026-12-05: 1.15-2.2x the direct kernel with B transposed, 0.93-1.3x with B as stored"
#define MEASURED16 "PoCL 3.1, 2-core AVX-512 guest, 2026-11-29, 2026-12-01, batches 2026-12-02 (Xeon) and 2026-12-03 (Zen 4 EPYC); KU 16 against the AMD rows' 4 on an Intel Xeon (x86 family 6, model 167), 2026-12-04: bf16 2048^3 0.96-0.99x f32 against 0.85-0.91x"
/* The 16-bit square row on the direct kernel, as the AMD row: the packed
 * path from 128^3 (CPU_16) had been set on the model-207 Xeon before the
 * direct kernel read 16-bit A through F16C and widened it four depths at
 * a time (docs/tuning.md, "Storage classes"). First measured with f32's
 * switch of then (384^3; since, CPU512_SQ's 1.5e8, where 512^3 runs
 * direct too). Intel Xeon (x86 family 6, model 167), 2026-12-04, quiet:
 * `vncl bench --suite gemm` alternated with the old row, 256^3 against
 * vncl f32 in the same run,
 * hgemm / bgemm 0.79x / 0.80x and 0.85x / 0.84x (142-154 GFLOP/s) against
 * 0.43-0.61x (80-96) in four runs of the old; 128^3 (packed before)
 * direct now, 512^3 packed in both. Harness, workers pinned, one process,
 * four rounds: the 5 x 64 tile ahead of the packed path in 4 of 4 rounds
 * at f16 128^3 and 192^3 and bf16 192^3, 3 of 4 at bf16 256^3 and 320^3,
 * 2 of 4 at f16 256^3 and 320^3 and 1 of 4 at bf16 128^3; even at 384^3.
 * docs/tuning.md, "Storage classes". */
/* With PoCL's workers pinned (vncl's default since session 24,
 * lib/runtime/affinity.c) the packed path, which widens 16-bit A and B
 * once while packing, overtook the direct kernel, which widens B at every
 * use, from about 340^3: switch_mnk16 3.4e7 (about 324^3). Same Xeon,
 * 2026-12-04, harness (one process, GFLOP/s, direct / packed, f32 in the
 * same round): f16 352^3 150-172 / 190-194 (f32 222-253), bf16 168-173 /
 * 184-189; f16 384^3 173-197 / 176-235; f16 448^3 195-211 / 232-239,
 * bf16 180-212 / 210-223; f16 512^3 200-210 / 230-246, bf16 197-211 /
 * 234-240; even at 256^3-320^3 (f16 320^3 175-191 / 177-179), the direct
 * kernel ahead at 192^3 (f16 112-129 / 99-122, bf16 103-115 / 86-96). */
#define CPU512_SQ16 "switch_mnk16=3.4e7 "
/* Blocks of 48 rows below 3e8 (about 670^3), 96 from there (big_tall 2 on
 * 48 x 64; NB / 2 rounds back up to NR, 64), for 16-bit storage's packed
 * square products. Same Xeon, 2026-12-05, workers pinned, harness (one
 * process, each set in its own context and the row's in two, alternated
 * with vncl's f32 at the same size, medians of 11-15), against the 96-row
 * blocks: f16 512^3 1.08-1.13x in three runs (0.95-0.96x f32 against
 * 0.86x; a fourth, disturbed, with every set at 0.57-0.89x f32 and the
 * row's in one context only, read 0.88x), bf16 512^3 1.10-1.13x
 * (0.91-0.94x against 0.82-0.83x); 384^3
 * and 640^3 alike (0.89-0.90x / 0.88-0.89x, 1.01-1.02x / 0.99-1.01x);
 * 48 rows also above it lost (f16 1000^3 0.97x, 2048^3 0.95x), hence the
 * switch. f32 runs the direct kernel to 1.5e8 and was not measured. */
#define CPU512_MID16 "MB=48 big_mnk=3e8 big_tall=2 "
/* The direct kernel's 16-bit tiles on CPUs other than AMD's: 6 x 64, as
 * f32's, where the AMD rows keep 5 x 64 (CPU512_DIRECT_ZEN16: on the Zen 5
 * the sixth row's code kept an accumulator on the stack, and that chain
 * bounded it). PoCL builds the same code for this Xeon (skylake-avx512),
 * but here the sixth row pays. Intel Xeon (x86 family 6, model 167),
 * 2026-12-05, one process, each set in two contexts alternated with vncl's
 * f32 (medians of 15, 10 calls a sample), 16-bit C, ratio to f32 of 5 x 64
 * / 6 x 64: f16 128^3 0.78-0.79 / 0.80-0.81, 192^3 0.74-0.76 / 0.81-0.86,
 * 256^3 0.70-0.73 / 0.78-0.81, 320^3 0.76-0.84 / 0.83-0.84; bf16 128^3
 * 0.78-0.81 / 0.81-0.84, 192^3 0.74-0.75 / 0.73-0.80, 256^3 0.73 / 0.77,
 * 320^3 0.73-0.83 / 0.80-0.82. Larger products take the packed path
 * (CPU512_SQ16). */
#define CPU512_DIRECT16_INTEL "WGD_M=6 "
#define MEASURED16SQ MEASURED16 "; direct 5 x 64 tiles (the AMD row's) on that Xeon, 2026-12-04: 256^3 0.79-0.85x f32 against 0.43-0.61x packed; packed again from 3.4e7 with the workers pinned, 2026-12-04: 512^3 0.95-0.99x f32 against 0.77-0.87x direct; batches with B transposed up to 100^3 on gemm_small on that Xeon, 2026-12-05: 1000 x 100^3 f16 1.12x, bf16 1.20x the packed route"
#define MID16_INTEL "; 48-row blocks below 3e8 on that Xeon, 2026-12-05: f16 512^3 0.95-0.96x f32 against 0.86x"
#define DIRECT16_INTEL "; direct 6 x 64 tiles on that Xeon, 2026-12-05: f16 256^3 0.78-0.81x f32 against 0.70-0.73x"
#define MEASURED_ZEN16 "PoCL 3.1, 2-core Zen 4 EPYC guest: direct set and switch_mnk 2026-12-03 (16-bit storage against f32), batches as the AVX-512 16-bit row; 5-row direct tiles on a Zen 5 EPYC guest, 2026-12-03; packed KU on the Zen 5, 2026-12-04"
#define MEASURED_ZEN "PoCL 3.1, 2-core Zen 4 EPYC guest: switch_mnk 2026-12-03, f32 direct set and small_batch_mnk_bt 2026-12-02 and 2026-12-03; packed KU on a Zen 5 EPYC guest, 2026-12-04; the rest as the AVX-512 rows"

/* Flat products (m <= 128, n >= 4m) in one block of rows: MB 132 (22
 * tiles of 6; the sets' MR is 6 on every CPU row). With 96 rows (48 on
 * AVX2) a product of 97-128 rows was two blocks, the second of a few
 * rows, and each read every sliver of B again; and one block is what lets
 * gemm_packed_cpu pack B itself (B_FUSED, gemm.c: fuse_b), which reads B
 * from memory once instead of writing a packed copy and reading it back.
 * Intel Xeon (x86 family 6, model 167), 2026-12-05, one process each, B
 * as stored, the row's set / MB 132 with B_FUSED, GFLOP/s: f32 128 x 4096
 * x 4096 116-122 / 210, 64 x 4096 x 4096 105-111 / 149, 32 x 4096 x 4096
 * 66-68 / 90, 100 x 2000 x 3000 95-105 / 205, 128 x 1024 x 1024 158 /
 * 233; f64 128 x 4096 x 2048 62 / 97; f16 128 x 4096 x 2048 131 / 246.
 * As AVX2 code on that Xeon (a proxy): f32 128 x 4096 x 4096 92 / 117,
 * 100 x 2000 x 3000 76-79 / 130. With B packed by the kernel the packed
 * path beats the direct kernel on flat products from about 1.6e7 (252^3)
 * instead of 5.7e7: same Xeon, the direct kernel / the packed path, f32
 * 32 x 1024 x 1024 81-85 / 120-144, 37 x 1001 x 999 (3) 79-89 / 176-180,
 * 100 x 500 x 500 148-151 / 218-225, 64 x 512 x 512 171-176 / 176-177,
 * 64 x 1024 x 256 161-164 / 163-185, and about even at 8e6-1.2e7 (32 x
 * 512 x 512, 100 x 400 x 300); f64 32 x 1024 x 1024 39-43 / 70-71, 100 x
 * 500 x 500 63-64 / 112-117, 16 x 1024 x 1024 43 / 49-51; as AVX2 code f32
 * 32 x 1024 x 1024 47-49 / 101-104, f64 26 / 51-52. docs/tuning.md, "Few
 * rows against B as stored". The AMD AVX-512 f32 flat row takes these
 * with narrower slivers (CPU_FLAT_AMD below); AMD's other flat rows are
 * these, not measured there. */
#define CPU_FLAT "MB=132 switch_mnk=1.6e7 "
#define FLAT_INTEL "; flat products in one block of 132 rows, B packed by the kernel, on an Intel Xeon (x86 family 6, model 167), 2026-12-05: f32 128 x 4096 x 4096 1.7-1.8x the row's 96-row blocks"
/* B packed by the kernel on AMD: 32-column slivers. Zen 5 EPYC (x86
 * family 26, 1 MiB of L2 a core), 2026-12-05, f32, B as stored, one
 * process, the flat row / NR 32 NB 32, two rounds, medians of 7 of 3
 * queued calls, ratio to OpenBLAS (Cooperlake kernels) in the same
 * rounds: 32 x 4096 x 4096 0.79-0.80x / 0.84-0.87x, 128 x 4096 x 4096
 * 0.84-0.91x / 0.93-0.97x, 8 x 4096 x 4096 0.88-0.89x / 0.92-0.93x, 100 x
 * 2000 x 3000 0.87-0.90x / 0.92-0.94x; 128 x 4096 x 4096 with B
 * transposed 1.13-1.18x / 1.18-1.28x, 128 x 1024 x 1024 1.37-1.50x /
 * 1.31-1.32x (340-346 / 335-336 GFLOP/s). MR 4, MR 8, NB 128, NR 48 and a
 * KC of 1024-2048 (the separate pack) ran 0.45-0.82x. f64 and 16-bit
 * storage keep the flat rows (not measured). docs/tuning.md, "Few rows
 * against B as stored". */
#define CPU_FLAT_AMD "NR=32 NB=32 "
/* AVX2 f64 on AMD: KC 2048 (0 before), as the AMD AVX-512 f64 rows have
 * it. At depths of 2048 and less that chunks nothing; what it changes
 * there is that a KC above 0 keeps B out of the kernel's own pack
 * (fuse_b, gemm.c), so B goes through the separate pack, which ran these
 * squares faster than B packed by the kernel (whose 64-column slivers
 * over the whole depth are 1 MiB at 2048 deep). Deeper products are
 * chunked as well. Measured as
 * AVX2 code on the Zen 5 EPYC (POCL_KERNELLIB_NAME=avx2, glibc's and
 * OpenBLAS's AVX2 code: a proxy for an AMD AVX2 host, whose L2 is 512 KiB
 * to 1 MiB), 2026-12-05, one process, the row / KC 2048, two rounds,
 * medians of 7 of 3 queued calls, against OpenBLAS's Haswell dgemm in the
 * same rounds: 2048^3 68.6-79.8 / 87.6-90.7 GFLOP/s (0.74-0.83x /
 * 0.95-0.99x), 2047^3 83.3-83.9 / 92.6-93.2 (0.88x / 0.96-0.97x), 1024^3
 * 81.5-86.0 / 83.6-85.2 (0.89-0.91x / 0.89-1.09x), 512^3 97.3-98.0 /
 * 91.7-92.9 (1.06-1.08x / 0.99-1.01x); KC 512 and 1024 between the two at
 * 2048^3 (82.8-90.3), below both at 1024^3 (77.7-79.4). */
#define CPU256_KC64_AMD "KC=2048 "
#define KC64_ZEN_AVX2 "; KC 2048 as AVX2 code on a Zen 5 EPYC (x86 family 26), 2026-12-05: dgemm 2048^3 0.74-0.83x -> 0.95-0.99x OpenBLAS (Haswell kernels)"
#define FLAT_ZEN "; NR and NB 32 on a Zen 5 EPYC (x86 family 26), 2026-12-05: f32 32 x 4096 x 4096, B as stored, 0.79-0.80x -> 0.84-0.87x OpenBLAS, 128 x 4096 x 4096 0.84-0.91x -> 0.93-0.97x"
#define FLAT_ZEN16 "; NR and NB 32 as the AMD f32 flat row on a Zen 4 EPYC (x86 family 25), 2026-12-07: bf16 128 x 4096 x 4096, B as stored, C f32, 164-165 -> 181-184 GFLOP/s (f32 186), 32 x 4096 x 4096 85-90 -> 120-122, 8 x 4096 x 4096 32 -> 52; 128 x 1024 x 1024 169-179 -> 157-161"
#define FLAT_AVX2 "; flat products in one block of 132 rows, B packed by the kernel, as AVX2 code on an Intel Xeon (x86 family 6, model 167), 2026-12-05"

static const vncl__param_row gemm_rows[] = {
    {R_CPU_OF("AuthenticAMD", 16, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE),
     ZEN512_32 CPU512_DIRECT_ZEN ZEN512_SMALL ZEN512_PACKED, MEASURED_ZEN},
    {R_CPU_OF("AuthenticAMD", 16, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE),
     ZEN512_64 CPU512_DIRECT64 CPU512_SMALL64 ZEN512_PACKED64, MEASURED_ZEN},
    /* AMD, 16-bit storage, square: f32's direct tile and switch point. */
    {R_CPU_OF("AuthenticAMD", 16, VNCL__GEMM_ACC16, VNCL__GEMM_SHAPE_SQUARE),
     ZEN512_32 CPU512_DIRECT_ZEN16 CPU512_SMALL16 ZEN512_PACKED, MEASURED_ZEN16},
    {R_CPU(16, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_NARROW),
     CPU512 CPU512_DIRECT CPU512_SMALL CPU512_NARROW, MEASURED},
    /* Square f32 and 16-bit, every CPU but AMD's: the AMD rows' direct
     * tiles, up to 1.5e8 (CPU512_SQ). */
    {R_CPU(16, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE),
     CPU512_SQ CPU512_DIRECT_ZEN CPU512_SMALL CPU512_PACKED CPU512_SINGLE_SMALL,
     MEASURED32SQ SINGLE_SMALL_INTEL},
    /* AMD, f32 flat: the slivers of B that gemm_packed_cpu keeps (NB
     * columns over the depth) 32 columns wide, half a megabyte at 4096
     * deep where 64 made a whole one, all of an AMD core's L2 (CPU_FLAT_AMD). */
    {R_CPU_OF("AuthenticAMD", 16, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_FLAT),
     CPU512 CPU512_DIRECT CPU512_SMALL CPU512_PACKED CPU_FLAT CPU_FLAT_AMD,
     MEASURED32 FLAT_INTEL FLAT_ZEN},
    {R_CPU(16, VNCL__GEMM_ACC32, ANY),
     CPU512 CPU512_DIRECT CPU512_SMALL CPU512_PACKED CPU_FLAT,
     MEASURED32 FLAT_INTEL},
    /* 16-bit storage: the f32 sets (measured with f32 and f16 alike),
     * batches up to 128^3 on gemm_small (CPU512_SMALL16); square
     * products on the direct kernel to CPU512_SQ16's switch, flat ones
     * packed from 128^3 (CPU_16). */
    {R_CPU(16, VNCL__GEMM_ACC16, VNCL__GEMM_SHAPE_NARROW),
     CPU512 CPU512_DIRECT CPU512_SMALL CPU512_NARROW, MEASURED},
    {R_CPU(16, VNCL__GEMM_ACC16, VNCL__GEMM_SHAPE_SQUARE),
     CPU512_SQ CPU512_SQ16 CPU512_DIRECT_ZEN16 CPU512_SMALL16 CPU512_PACKED
         CPU512_MID16 CPU512_DIRECT16_INTEL,
     MEASURED16SQ MID16_INTEL DIRECT16_INTEL},
    /* AMD, 16-bit storage, flat: f32's 32-column slivers (CPU_FLAT_AMD;
     * FLAT_ZEN16). */
    {R_CPU_OF("AuthenticAMD", 16, VNCL__GEMM_ACC16, VNCL__GEMM_SHAPE_FLAT),
     CPU512 CPU512_DIRECT CPU512_SMALL16 CPU512_PACKED CPU_16 CPU_FLAT
         CPU_FLAT_AMD,
     MEASURED16 FLAT_INTEL FLAT_ZEN16},
    {R_CPU(16, VNCL__GEMM_ACC16, ANY),
     CPU512 CPU512_DIRECT CPU512_SMALL16 CPU512_PACKED CPU_16 CPU_FLAT,
     MEASURED16 FLAT_INTEL},
    {R_CPU(16, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_NARROW),
     CPU512 CPU512_DIRECT64 CPU512_SMALL64 CPU512_NARROW64, NULL},
    {R_CPU(16, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE),
     CPU512 CPU512_DIRECT64 CPU512_SMALL64 CPU512_PACKED64 CPU512_BIG64
         CPU512_SINGLE_SMALL,
     MEASURED64 BIG64_INTEL SINGLE_SMALL_INTEL},
    {R_CPU(16, VNCL__GEMM_ACC64, ANY),
     CPU512 CPU512_DIRECT64 CPU512_SMALL64 CPU512_PACKED64 CPU_FLAT,
     MEASURED64 FLAT_INTEL},
    {R_CPU(0, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_NARROW),
     CPU256 CPU256_DIRECT CPU256_SMALL CPU256_NARROW, MEASURED256},
    {R_CPU(0, VNCL__GEMM_ACC32, VNCL__GEMM_SHAPE_SQUARE),
     AVX2_32 CPU256_BIG CPU256_SINGLE_SMALL,
     MEASURED256 BIG256 SINGLE_SMALL_AVX2},
    {R_CPU(0, VNCL__GEMM_ACC32, ANY), AVX2_32 CPU_FLAT,
     MEASURED256 FLAT_AVX2},
    {R_CPU(0, VNCL__GEMM_ACC16, VNCL__GEMM_SHAPE_NARROW),
     CPU256 CPU256_DIRECT CPU256_SMALL CPU256_NARROW16, MEASURED256_16},
    {R_CPU(0, VNCL__GEMM_ACC16, VNCL__GEMM_SHAPE_SQUARE),
     AVX2_16 CPU256_BIG, MEASURED256_16 BIG256},
    {R_CPU(0, VNCL__GEMM_ACC16, ANY), AVX2_16 CPU_FLAT,
     MEASURED256_16 FLAT_AVX2},
    /* AMD without 512-bit vectors, f64 square: KC 2048, as the AMD
     * AVX-512 f64 rows (B's separate pack; CPU256_KC64_AMD). */
    {R_CPU_OF("AuthenticAMD", 0, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE),
     AVX2_64 CPU256_BIG CPU256_SINGLE_SMALL CPU256_KC64_AMD,
     MEASURED256 BIG256 SINGLE_SMALL_AVX2 KC64_ZEN_AVX2},
    {R_CPU(0, VNCL__GEMM_ACC64, VNCL__GEMM_SHAPE_SQUARE),
     AVX2_64 CPU256_BIG CPU256_SINGLE_SMALL,
     MEASURED256 BIG256 SINGLE_SMALL_AVX2},
    {R_CPU(0, VNCL__GEMM_ACC64, ANY), AVX2_64 CPU_FLAT,
     MEASURED256 FLAT_AVX2},
    {R_GPU("nvidia"), GPU GPU_DIRECT GPU_SMALL GPU_LOCAL128, NULL},
    {R_GPU("advanced micro devices"), GPU GPU_DIRECT GPU_SMALL GPU_LOCAL128, NULL},
    {R_GPU("amd"), GPU GPU_DIRECT GPU_SMALL GPU_LOCAL128, NULL},
    {R_GPU("intel"), GPU GPU_DIRECT GPU_SMALL GPU_LOCAL64, NULL},
    /* Any GPU, then any device at all: small groups that fit everywhere. */
    {R_GPU(NULL), GPU GPU_DIRECT GPU_SMALL LOCAL_SMALL, NULL},
    {{NULL, 0, ANY, 0, ANY, ANY, 0},
     "fast=3 pack_elem=1 pack_wg0=16 pack_wg1=16 VREGS=16 " DIRECT_SMALL
     LOCAL_SMALL, NULL},
};

#define NROWS (int)(sizeof gemm_rows / sizeof *gemm_rows)

static bool set_valid(const vncl__param_family *f,
                      const vncl_device_info *info, int acc, const void *set,
                      char *why, size_t cap);
static bool from_entry(vncl_context *ctx, int acc, const vncl__tune_entry *e,
                       void *set, char *why, size_t cap);

const vncl__param_family vncl__gemm_family = {
    "gemm", "lib/gemm/gemm_params.c", sizeof(vncl__gemm_params),
    gemm_tunables, (int)(sizeof gemm_tunables / sizeof *gemm_tunables),
    VNCL__GEMM_ACCS, VNCL__GEMM_SHAPES, acc_names, shape_names,
    gemm_rows, NROWS, set_valid, from_entry};

const vncl__param_family vncl__clblast_family = {
    "clblast", "lib/gemm/gemm.h", sizeof(vncl__clblast_params),
    clblast_tunables,
    (int)(sizeof clblast_tunables / sizeof *clblast_tunables),
    VNCL__GEMM_ACCS, VNCL__GEMM_SHAPES, acc_names, shape_names,
    NULL, 0, NULL, NULL};

/* Every row's set, then the table's defaults: built once, for tests. */
static vncl__gemm_params row_sets[NROWS + 1];
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;
static void rows_build(void) {
  char why[160];
  for (int i = 0; i < NROWS; i++)
    if (!vncl__params_row(&vncl__gemm_family, i, &row_sets[i], why,
                          sizeof why))
      vncl__log(VNCL_LOG_WARN, "gemm: built-in row %d: %s", i, why);
  vncl__params_defaults(&vncl__gemm_family, &row_sets[NROWS]);
}

const vncl__gemm_params *vncl__gemm_builtin_set(size_t i) {
  pthread_once(&rows_once, rows_build);
  return i <= (size_t)NROWS ? &row_sets[i] : NULL;
}

bool vncl__gemm_params_builtin(const vncl_device_info *info, int vec,
                               vncl__gemm_acc acc, vncl__gemm_shape shape,
                               bool last_resort, vncl__gemm_params *out) {
  if (last_resort) {
    vncl__params_defaults(&vncl__gemm_family, out);
    return true;
  }
  return vncl__params_builtin(&vncl__gemm_family, info, vec, (int)acc,
                              (int)shape, out);
}

/* A set is usable when its direct kernel and its fast kernel are valid,
 * and its small kernel where the set routes products there. */
static bool set_valid(const vncl__param_family *f,
                      const vncl_device_info *info, int acc, const void *set,
                      char *why, size_t cap) {
  (void)f;
  const vncl__gemm_params *p = set;
  vncl__gemm_acc a = (vncl__gemm_acc)acc;
  if (p->fast != VNCL__GEMM_PACKED_CPU && p->fast != VNCL__GEMM_PACKED_LOCAL) {
    snprintf(why, cap, "fast kernel %d is not a packed kernel", p->fast);
    return false;
  }
  if (p->backend != VNCL__GEMM_OWN && p->backend != VNCL__GEMM_CLBLAST) {
    snprintf(why, cap, "unknown backend %d", p->backend);
    return false;
  }
  return vncl__gemm_params_valid(info, VNCL__GEMM_DIRECT, a, p, why, cap) &&
         vncl__gemm_params_valid(info, VNCL__GEMM_PACK, a, p, why, cap) &&
         vncl__gemm_params_valid(info, (vncl__gemm_kernel)p->fast, a, p, why,
                                 cap) &&
         ((p->small_mnk <= 0 && p->small_batch_mnk <= 0) ||
          vncl__gemm_params_valid(info, VNCL__GEMM_SMALL, a, p, why, cap));
}

void vncl__gemm_params_big(const vncl__gemm_params *p,
                           vncl__gemm_params *out) {
  *out = *p;
  if (p->big_tall <= 1) return;
  int nr = p->cpu.nr > 0 ? p->cpu.nr : 1;
  int nb = p->cpu.nb / p->big_tall / nr * nr;
  out->cpu.mb = p->cpu.mb * p->big_tall;
  out->cpu.nb = nb > nr ? nb : nr;
}

/* A database entry's backend, and CLBlast's parameters when it names them. */
static bool from_entry(vncl_context *ctx, int acc, const vncl__tune_entry *e,
                       void *set, char *why, size_t cap) {
  vncl__gemm_params *p = set;
  p->backend = !strcmp(e->backend, "clblast") ? VNCL__GEMM_CLBLAST
                                              : VNCL__GEMM_OWN;
  const cJSON *cb = cJSON_GetObjectItemCaseSensitive(e->params, "clblast");
  if (p->backend == VNCL__GEMM_CLBLAST && cJSON_IsObject(cb) &&
      !vncl__clblast_override(ctx->device, (vncl__gemm_acc)acc, cb, why,
                              cap))
    return false;
  return true;
}

bool vncl__clblast_override(cl_device_id dev, vncl__gemm_acc acc,
                            const cJSON *obj, char *why, size_t cap) {
  const vncl__param_family *f = &vncl__clblast_family;
  const char *names[sizeof clblast_tunables / sizeof *clblast_tunables];
  size_t vals[sizeof clblast_tunables / sizeof *clblast_tunables];
  for (int i = 0; i < f->n; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, f->t[i].name);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 4096) {
      snprintf(why, cap, "CLBlast parameter %s missing or out of range",
               f->t[i].name);
      return false;
    }
    names[i] = f->t[i].name;
    vals[i] = (size_t)v->valuedouble;
  }
  CLBlastStatusCode st = CLBlastOverrideParameters(
      dev, "Xgemm",
      acc == VNCL__GEMM_ACC64   ? CLBlastPrecisionDouble
      : acc == VNCL__GEMM_ACC16 ? CLBlastPrecisionHalf
                                : CLBlastPrecisionSingle,
      (size_t)f->n, names, vals);
  if (st != CLBlastSuccess) {
    snprintf(why, cap, "CLBlastOverrideParameters: status %d", (int)st);
    return false;
  }
  CLBlastClearCache(); /* programs built with the old parameters */
  return true;
}

/* ---- the sets in force on a context (the parameter store) ---------------- */

void vncl__gemm_params_get(vncl_context *ctx, vncl__gemm_acc acc,
                           vncl__gemm_shape shape, vncl__gemm_params *out) {
  vncl__params_get(ctx, &vncl__gemm_family, (int)acc, (int)shape, out, NULL,
                   NULL);
}

bool vncl__gemm_params_installed(vncl_context *ctx, vncl__gemm_acc acc,
                                 vncl__gemm_shape shape) {
  vncl__gemm_params p;
  vncl__param_source src;
  vncl__params_get(ctx, &vncl__gemm_family, (int)acc, (int)shape, &p, &src,
                   NULL);
  return src == VNCL__SRC_USER || src == VNCL__SRC_DATABASE;
}

vncl_status vncl__gemm_params_set(vncl_context *ctx, vncl__gemm_acc acc,
                                  vncl__gemm_shape shape,
                                  const vncl__gemm_params *p) {
  return vncl__params_set(ctx, &vncl__gemm_family, (int)acc, (int)shape, p);
}

cJSON *vncl__gemm_params_to_json(const vncl__gemm_params *p) {
  return vncl__params_to_json(&vncl__gemm_family, p);
}

bool vncl__gemm_params_from_json(const cJSON *obj, vncl__gemm_params *p,
                                 char *why, size_t cap) {
  return vncl__params_from_json(&vncl__gemm_family, obj, p, why, cap);
}

bool vncl__gemm_param_set_named(vncl__gemm_params *p, const char *name,
                                double v) {
  return vncl__params_set_named(&vncl__gemm_family, p, name, v);
}

/* ---- validation ------------------------------------------------------------- */

static bool is_vw(int v) {
  return v == 1 || v == 2 || v == 4 || v == 8 || v == 16;
}

#define REJECT(...)                         \
  do {                                      \
    snprintf(why, cap, __VA_ARGS__);        \
    return false;                           \
  } while (0)

/* Work-group size and local memory against the device. */
static bool fits_device(const vncl_device_info *info, const char *kname,
                        size_t wg, size_t local_bytes, bool want_multiple,
                        char *why, size_t cap) {
  size_t maxwg = info->max_work_group_size ? info->max_work_group_size : 1;
  if (wg > maxwg)
    REJECT("%s: %zu work-items per group, the device allows %zu", kname, wg,
           maxwg);
  size_t pref = info->preferred_work_group_multiple;
  if (want_multiple && pref > 1 && wg % pref != 0)
    REJECT("%s: %zu work-items per group is not a multiple of the device's "
           "preferred multiple %zu",
           kname, wg, pref);
  if (local_bytes && info->local_mem_bytes &&
      local_bytes > info->local_mem_bytes)
    REJECT("%s: %zu bytes of local memory, the device has %llu", kname,
           local_bytes, (unsigned long long)info->local_mem_bytes);
  return true;
}

bool vncl__gemm_params_valid(const vncl_device_info *info,
                             vncl__gemm_kernel kern, vncl__gemm_acc acc,
                             const vncl__gemm_params *p, char *why,
                             size_t cap) {
  size_t es = acc == VNCL__GEMM_ACC64 ? 8 : 4;
  if (why && cap) why[0] = '\0';
  switch (kern) {
    case VNCL__GEMM_REF:
      return true;
    case VNCL__GEMM_PACK:
      if (p->pack_elem) return true;
      if (p->pack_wg0 < 1 || p->pack_wg1 < 1)
        REJECT("gemm_pack: work-group %d x %d", p->pack_wg0, p->pack_wg1);
      return fits_device(info, "gemm_pack",
                         (size_t)p->pack_wg0 * p->pack_wg1, 0, false, why,
                         cap);
    case VNCL__GEMM_DIRECT: {
      const vncl__gemm_direct_params *d = &p->direct;
      if (d->wgd_m < 1 || d->wgd_n < 1 || d->ldm < 1 || d->ldn < 1 ||
          d->kwgd < 1)
        REJECT("gemm_direct: WGD_M, WGD_N, LDM, LDN and KWGD must be >= 1");
      if (d->wgd_m % d->ldm || d->wgd_n % d->ldn)
        REJECT("gemm_direct: WGD_M=%d must be a multiple of LDM=%d and "
               "WGD_N=%d of LDN=%d",
               d->wgd_m, d->ldm, d->wgd_n, d->ldn);
      int mwi = d->wgd_m / d->ldm, nwi = d->wgd_n / d->ldn;
      if (!d->local && (!is_vw(d->vwd) || nwi % d->vwd))
        REJECT("gemm_direct: VWD=%d must be 1, 2, 4, 8 or 16 and divide "
               "WGD_N/LDN=%d",
               d->vwd, nwi);
      if (mwi * nwi > 512)
        REJECT("gemm_direct: %d x %d accumulators per work-item (at most 512)",
               mwi, nwi);
      if (d->local && d->kwgd > 64)
        REJECT("gemm_direct: KWGD=%d above 64", d->kwgd);
      size_t lb = d->local ? (size_t)d->kwgd * (d->wgd_m + d->wgd_n) * es : 0;
      return fits_device(info, "gemm_direct", (size_t)d->ldm * d->ldn, lb,
                         d->local != 0 && p->wg_multiple, why, cap);
    }
    case VNCL__GEMM_PACKED_CPU: {
      const vncl__gemm_cpu_params *c = &p->cpu;
      if (c->mr < 1 || c->nr < 1 || c->mb < 1 || c->nb < 1 || c->ku < 1 ||
          c->kc < 0)
        REJECT("gemm_packed_cpu: MR, NR, MB, NB, KU must be >= 1, KC >= 0");
      if (!is_vw(c->vw) || c->nr % c->vw)
        REJECT("gemm_packed_cpu: VW=%d must be 1, 2, 4, 8 or 16 and divide "
               "NR=%d",
               c->vw, c->nr);
      if (c->mb % c->mr || c->nb % c->nr)
        REJECT("gemm_packed_cpu: MB=%d must be a multiple of MR=%d and NB=%d "
               "of NR=%d",
               c->mb, c->mr, c->nb, c->nr);
      if (c->kc && c->kc % c->ku)
        REJECT("gemm_packed_cpu: KC=%d must be a multiple of KU=%d", c->kc,
               c->ku);
      if (c->mr * c->nr > 1024 || c->ku > 16)
        REJECT("gemm_packed_cpu: micro-tile %d x %d above 1024 elements or "
               "KU=%d above 16",
               c->mr, c->nr, c->ku);
      if (c->kc && (size_t)c->mb * c->nb * es > 256 * 1024)
        REJECT("gemm_packed_cpu: MB*NB=%d accumulators of private memory "
               "(KC > 0) above 256 KiB",
               c->mb * c->nb);
      if (c->order != 0 && c->order != 1)
        REJECT("gemm_packed_cpu: ORDER=%d must be 0 or 1", c->order);
      return fits_device(info, "gemm_packed_cpu", 1, 0, false, why, cap);
    }
    case VNCL__GEMM_PACKED_LOCAL: {
      const vncl__gemm_local_params *l = &p->local;
      if (l->mwg < 1 || l->nwg < 1 || l->kwg < 1 || l->mdimc < 1 ||
          l->ndimc < 1 || l->kwi < 1)
        REJECT("gemm_packed_local: MWG, NWG, KWG, MDIMC, NDIMC and KWI must "
               "be >= 1");
      if (!is_vw(l->vwm) || !is_vw(l->vwn))
        REJECT("gemm_packed_local: VWM=%d and VWN=%d must be 1, 2, 4, 8 or 16",
               l->vwm, l->vwn);
      if (l->mwg % (l->mdimc * l->vwm) || l->nwg % (l->ndimc * l->vwn))
        REJECT("gemm_packed_local: MWG=%d must be a multiple of MDIMC*VWM=%d "
               "and NWG=%d of NDIMC*VWN=%d",
               l->mwg, l->mdimc * l->vwm, l->nwg, l->ndimc * l->vwn);
      if (l->kwg % l->kwi)
        REJECT("gemm_packed_local: KWG=%d must be a multiple of KWI=%d",
               l->kwg, l->kwi);
      int mwi = l->mwg / l->mdimc, nwi = l->nwg / l->ndimc;
      if (mwi * nwi > 256)
        REJECT("gemm_packed_local: %d x %d accumulators per work-item (at "
               "most 256)",
               mwi, nwi);
      size_t lb = ((l->sa ? (size_t)l->kwg * l->mwg : 0) +
                   (l->sb ? (size_t)l->kwg * l->nwg : 0)) * es;
      return fits_device(info, "gemm_packed_local",
                         (size_t)l->mdimc * l->ndimc, lb, p->wg_multiple != 0,
                         why, cap);
    }
    case VNCL__GEMM_SMALL: {
      const vncl__gemm_small_params *q = &p->small;
      if (q->mr < 1 || q->nv < 1 || q->rb < 1 || q->wg < 1)
        REJECT("gemm_small: SM_MR, SM_NV, SM_RB and SM_WG must be >= 1");
      if (!is_vw(q->vw))
        REJECT("gemm_small: SM_VW=%d must be 1, 2, 4, 8 or 16", q->vw);
      if (q->rb % q->mr)
        REJECT("gemm_small: SM_RB=%d must be a multiple of SM_MR=%d", q->rb,
               q->mr);
      if (q->mr * q->nv * q->vw > VNCL__GEMM_SMALL_MAX_ACC)
        REJECT("gemm_small: %d x %d accumulators per work-item (at most %d)",
               q->mr, q->nv * q->vw, VNCL__GEMM_SMALL_MAX_ACC);
      return fits_device(info, "gemm_small", (size_t)q->wg, 0,
                         p->wg_multiple != 0, why, cap);
    }
    default:
      REJECT("unknown gemm kernel %d", (int)kern);
  }
}

size_t vncl__gemm_wg_size(vncl__gemm_kernel kern, const vncl__gemm_params *p) {
  switch (kern) {
    case VNCL__GEMM_DIRECT: return (size_t)p->direct.ldm * p->direct.ldn;
    case VNCL__GEMM_PACKED_LOCAL:
      return (size_t)p->local.mdimc * p->local.ndimc;
    case VNCL__GEMM_PACK:
      return p->pack_elem ? 1 : (size_t)p->pack_wg0 * p->pack_wg1;
    case VNCL__GEMM_SMALL: return (size_t)p->small.wg;
    default: return 1;
  }
}

/* ---- options -------------------------------------------------------------- */

void vncl__gemm_options(vncl__gemm_kernel kern, const vncl__gemm_params *p,
                        vncl_dtype ab, vncl_dtype c, char *out, size_t cap) {
  int n = snprintf(out, cap, "-DDTYPE_AB=%d", (int)ab);
  if (kern != VNCL__GEMM_PACK && n >= 0 && (size_t)n < cap)
    n += snprintf(out + n, cap - (size_t)n, " -DDTYPE_C=%d", (int)c);
  if (n < 0 || (size_t)n >= cap) return;
  vncl__params_options(&vncl__gemm_family, (int)kern, p, out, cap);
}
