/* The autotuner's search spaces (autotune_space.c) and search
 * (autotune.c). */
#ifndef VNCL_AUTOTUNE_INTERNAL_H
#define VNCL_AUTOTUNE_INTERNAL_H

#include <stdio.h>

#include "tuning/tuning.h"

enum { VNCL__TS_GEMM_FAST, VNCL__TS_GEMM_DIRECT, VNCL__TS_CLBLAST,
       VNCL__TS_OPS };

#define VNCL__TS_MAX_PARAMS 16
#define VNCL__TS_MAX_VALUES 10

typedef struct vncl__tparam {
  const char *name; /* macro name, as in the database */
  int n;
  int v[VNCL__TS_MAX_VALUES];
} vncl__tparam;

typedef struct vncl__tspace {
  const char *name;
  int kind;   /* VNCL__TS_* */
  int np;
  vncl__tparam p[VNCL__TS_MAX_PARAMS];
  int family; /* ops family (VNCL__TS_OPS) */
} vncl__tspace;

/* What the constraints need to know about the device. */
typedef struct vncl__tune_device {
  vncl_device_info info;
  int native_float_width; /* CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT */
} vncl__tune_device;

const vncl__tspace *vncl__tspace_gemm_fast(const vncl_device_info *info,
                                           int shape);
const vncl__tspace *vncl__tspace_gemm_direct(void);
const vncl__tspace *vncl__tspace_clblast(void);
void vncl__tspace_from_ops(int family, vncl__tspace *out);

/* The value of `name` in candidate idx (value indexes), or def. */
int vncl__tspace_get(const vncl__tspace *s, const int *idx, const char *name,
                     int def);
/* Whether candidate idx satisfies every constraint on device d; base is the
 * GEMM set the candidate's values are laid over (GEMM spaces), acc the
 * accumulation class. False with the reason in why. */
bool vncl__tspace_valid(const vncl__tune_device *d, const vncl__tspace *s,
                        const int *idx, const vncl__gemm_params *base,
                        int acc, char *why, size_t cap);

#endif
