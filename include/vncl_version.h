/* vncl version numbers. The Makefile reads these three lines to name the
 * shared library (the soname carries the major version only). */
#ifndef VNCL_VERSION_H
#define VNCL_VERSION_H

#define VNCL_VERSION_MAJOR 0
#define VNCL_VERSION_MINOR 1
#define VNCL_VERSION_PATCH 0

#define VNCL_VERSION_HEX                                                      \
  ((VNCL_VERSION_MAJOR << 16) | (VNCL_VERSION_MINOR << 8) | VNCL_VERSION_PATCH)

#define VNCL_STRINGIFY_(x) #x
#define VNCL_STRINGIFY(x) VNCL_STRINGIFY_(x)
#define VNCL_VERSION_STRING                                                   \
  VNCL_STRINGIFY(VNCL_VERSION_MAJOR) "." VNCL_STRINGIFY(VNCL_VERSION_MINOR) "." \
      VNCL_STRINGIFY(VNCL_VERSION_PATCH)

#endif
