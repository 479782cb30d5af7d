/* The verified matrix product that `vncl info` and `vncl doctor` run: random
 * inputs, the product on the device, every element checked against a CPU
 * reference computed in double. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_matmul.h"

static uint64_t rng_state;
static double rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
}

vncl_status cli_matmul_check(vncl_context *ctx, int n, int repeats,
                             cli_matmul_result *r) {
  memset(r, 0, sizeof *r);
  size_t nn = (size_t)n * (size_t)n;
  float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b),
        *c = malloc(nn * sizeof *c);
  double *ref = calloc(nn, sizeof *ref);
  vncl_tensor *ta = NULL, *tb = NULL, *tc = NULL;
  vncl_status s = VNCL_ERR_OUT_OF_MEMORY;
  if (!a || !b || !c || !ref) goto done;
  rng_state = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)a;
  for (size_t i = 0; i < nn; i++) a[i] = (float)rnd();
  for (size_t i = 0; i < nn; i++) b[i] = (float)rnd();
  int64_t shape[2] = {n, n};
  if ((s = vncl_tensor_create(ctx, VNCL_F32, 2, shape, &ta)) ||
      (s = vncl_tensor_create(ctx, VNCL_F32, 2, shape, &tb)) ||
      (s = vncl_tensor_create(ctx, VNCL_F32, 2, shape, &tc)))
    goto done;
  if ((s = vncl_tensor_write(ta, a, nn * sizeof *a)) ||
      (s = vncl_tensor_write(tb, b, nn * sizeof *b)))
    goto done;
  for (size_t i = 0; i < nn; i++) c[i] = NAN; /* poison */
  if ((s = vncl_tensor_write(tc, c, nn * sizeof *c))) goto done;
  double best = 0;
  for (int rep = 0; rep < 1 + repeats; rep++) {
    double t0 = cli_now();
    if ((s = cli_matmul_run(ctx, 1.0, ta, tb, 0.0, tc))) goto done;
    if ((s = vncl_finish(ctx))) goto done;
    double dt = cli_now() - t0;
    if (rep == 0) r->first_seconds = dt;
    if (rep > 0 && (best == 0 || dt < best)) best = dt;
  }
  if (repeats == 0) best = r->first_seconds;
  r->seconds = best;
  r->gflops = 2.0 * n * (double)n * n / best * 1e-9;
  if ((s = vncl_tensor_read(tc, c, nn * sizeof *c))) goto done;
  for (int i = 0; i < n; i++)
    for (int p = 0; p < n; p++) {
      double av = a[(size_t)i * n + p];
      const float *brow = b + (size_t)p * n;
      double *rrow = ref + (size_t)i * n;
      for (int j = 0; j < n; j++) rrow[j] += av * brow[j];
    }
  /* Relative error against the size of the terms summed, so it does not
   * blow up where the exact result happens to be near zero. */
  double max_rel = 0;
  for (size_t i = 0; i < nn; i++) {
    double scale = sqrt((double)n) + fabs(ref[i]);
    double e = fabs((double)c[i] - ref[i]) / scale;
    if (!(e == e) || isinf(c[i])) {
      max_rel = INFINITY;
      break;
    }
    if (e > max_rel) max_rel = e;
  }
  r->max_rel_error = max_rel;
  r->ok = max_rel < 1e-4;
  s = VNCL_OK;
done:
  vncl_tensor_destroy(ta);
  vncl_tensor_destroy(tb);
  vncl_tensor_destroy(tc);
  free(a);
  free(b);
  free(c);
  free(ref);
  return s;
}
