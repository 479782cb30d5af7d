/* vncl transfer API: included by vncl.h; see the conventions at the top of vncl.h. */
#ifndef VNCL_TRANSFER_H
#define VNCL_TRANSFER_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
