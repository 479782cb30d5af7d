/*
 * selftest.cl: the smallest kernels vncl uses to prove a device works
 * (`vncl doctor`, tests of the program and binary caches).
 *
 *   selftest_axpy:  y[i] = a * x[i] + y[i]          one work-item per i
 *   selftest_fail:  only compiles when VNCL_SELFTEST_BREAK is undefined, so
 *                   that tests can provoke a build failure on purpose.
 */

/* Element type of the test vectors. */
#ifndef SELFTEST_REAL
#define SELFTEST_REAL float
#endif

__kernel void selftest_axpy(const uint n, const SELFTEST_REAL a,
                            __global const SELFTEST_REAL *x,
                            __global SELFTEST_REAL *y) {
  const uint i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}

#ifdef VNCL_SELFTEST_BREAK
__kernel void selftest_fail(__global float *y) { y[0] = this_is_not_defined; }
#endif

