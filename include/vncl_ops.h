/* vncl ops API: included by vncl.h; see the conventions at the top of vncl.h. */
#ifndef VNCL_OPS_H
#define VNCL_OPS_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
