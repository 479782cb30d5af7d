/* Opt-in logging to stderr, controlled by VNCL_LOG. */
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

static int log_level = -1;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void log_init(void) {
  const char *v = vncl__getenv("VNCL_LOG");
  int lvl = VNCL_LOG_OFF;
  if (v) {
    if (!strcmp(v, "error")) lvl = VNCL_LOG_ERROR;
    else if (!strcmp(v, "warn")) lvl = VNCL_LOG_WARN;
    else if (!strcmp(v, "info")) lvl = VNCL_LOG_INFO;
    else if (!strcmp(v, "debug") || !strcmp(v, "1")) lvl = VNCL_LOG_DEBUG;
  }
  log_level = lvl;
}

int vncl__log_level(void) {
  pthread_once(&log_once, log_init);
  return log_level;
}

void vncl__log(int level, const char *fmt, ...) {
  if (level > vncl__log_level()) return;
  static const char *names[] = {"", "error", "warn", "info", "debug"};
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "vncl %s: %s\n", names[level], buf);
}
