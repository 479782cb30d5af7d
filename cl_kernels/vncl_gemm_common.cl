/*
 * vncl_gemm_common.cl - what the GEMM kernels share: the storage-type block.
 * The program builder (lib/runtime/program.c) puts this text in front of
 * gemm_direct.cl, gemm_packed_cpu.cl, gemm_packed_local.cl, gemm_ref.cl and
 * gemm_small.cl only, after vncl_prelude.cl and before the file, each part
 * behind a `#line 1` (so build logs count each file's own lines), and the
 * binary-cache key hashes it with them: a change here rebuilds those
 * programs. It cannot sit in the prelude: ACC, LOAD_C, STORE_C and the like
 * are names the ops kernels define their own way. Kernel files do not
 * include it.
 *
 * The host passes the storage codes of vncl_prelude.cl's dtype block:
 *   DTYPE_AB  storage of A and B: 0 f32, 1 f64, 2 f16, 3 bf16 (default 0)
 *   DTYPE_C   storage of C, same codes (default DTYPE_AB)
 * and gets:
 *   ACC              the accumulation type, VNCL_REAL(DTYPE_AB) (float, or
 *                    double when A and B are f64; the type of the packed
 *                    scratch of the packed kernels)
 *   AB_T, C_T        the storage types of A/B and of C
 *   LOAD_AB(p, i)    p[i] of A or B as ACC
 *   LOAD_C(p, i)     p[i] of C as ACC
 *   STORE_C(p, i, v) p[i] = v into C
 * cl_khr_fp64 is enabled when either storage is f64.
 */
#ifndef DTYPE_AB
#define DTYPE_AB 0
#endif
#ifndef DTYPE_C
#define DTYPE_C DTYPE_AB
#endif
#if DTYPE_AB < 0 || DTYPE_AB > 3
#error "DTYPE_AB must be 0, 1, 2 or 3"
#endif
#if DTYPE_C < 0 || DTYPE_C > 3
#error "DTYPE_C must be 0, 1, 2 or 3"
#endif

#if DTYPE_AB == 1 || DTYPE_C == 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define ACC VNCL_REAL(DTYPE_AB)
#define AB_T VNCL_STORAGE(DTYPE_AB)
#define LOAD_AB(p, i) ((ACC)VNCL_LOAD(DTYPE_AB, p, i))
#define C_T VNCL_STORAGE(DTYPE_C)
#define LOAD_C(p, i) ((ACC)VNCL_LOAD(DTYPE_C, p, i))
#define STORE_C(p, i, v) VNCL_STORE(DTYPE_C, p, i, v)
