/* Whether a parameter set fits a device (vncl_tuning_check, and the
 * autotuner's candidate filter): the kernels' divisibility rules, the
 * device's work-group limits and preferred multiple, local memory, and the
 * register model (vector registers each CPU kernel keeps live) against the
 * set's VREGS.
 * Takes a device description rather than a context, so that tests can
 * check the rules against devices that are not present. */
#ifndef VNCL_TUNING_CHECK_INTERNAL_H
#define VNCL_TUNING_CHECK_INTERNAL_H

#include "gemm/gemm.h"
#include "ops/ops.h"

/* What the rules need to know about a device. */
typedef struct vncl__tune_device {
  vncl_device_info info;
  int native_float_width; /* CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT */
  int wg_multiple; /* the device row's WG_MULTIPLE: ops and CLBlast
                    * work-groups must be multiples of the preferred one */
} vncl__tune_device;

/* ctx's device as the rules see it. */
void vncl__tune_device_of(vncl_context *ctx, vncl__tune_device *d);

/* Which of a GEMM set's kernels to check (the others' values are not
 * looked at): the direct kernel, the fast (packed) kernel the set names,
 * the small kernel. */
enum { VNCL__CHECK_DIRECT = 1, VNCL__CHECK_FAST = 2, VNCL__CHECK_SMALL = 4 };

/* Whether `set` (f->size bytes) of family f (gemm, clblast or an ops
 * family) fits device d for storage class acc; kernels: VNCL__CHECK_*
 * (GEMM only). False with the reason in why. */
bool vncl__tuning_check_dev(const vncl__tune_device *d,
                            const vncl__param_family *f, int acc,
                            const void *set, int kernels, char *why,
                            size_t cap);

#endif
