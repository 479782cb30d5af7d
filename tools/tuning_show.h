/* `vncl autotune --show` (tuning_show.c), over the public API only. */
#ifndef VNCL_TOOLS_TUNING_SHOW_H
#define VNCL_TOOLS_TUNING_SHOW_H

#include <stdio.h>

#include "vncl.h"

/* One block per (kernel, dtype, class): the parameters in force on ctx and
 * where they came from. */
void tuning_show(vncl_context *ctx, FILE *f);

#endif
