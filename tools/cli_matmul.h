#ifndef VNCL_CLI_MATMUL_H
#define VNCL_CLI_MATMUL_H
#include <stdbool.h>

#include "vncl.h"

typedef struct cli_matmul_result {
  bool ok;
  double max_rel_error;
  double gflops;        /* best of the timed repeats */
  double seconds;       /* best of the timed repeats */
  double first_seconds; /* first call, including any kernel build */
} cli_matmul_result;

/* Runs C = alpha*A*B + beta*C for n x n f32 on ctx, `repeats` timed times
 * after a first call, and checks every element against a double reference. */
vncl_status cli_matmul_check(vncl_context *ctx, int n, int repeats,
                             cli_matmul_result *r);
/* One product on the device (enqueued). */
vncl_status cli_matmul_run(vncl_context *ctx, double alpha,
                           const vncl_tensor *a, const vncl_tensor *b,
                           double beta, vncl_tensor *c);
#endif
