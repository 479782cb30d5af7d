/* vncl fft API: included by vncl.h; see the conventions at the top of vncl.h. */
#ifndef VNCL_FFT_H
#define VNCL_FFT_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
