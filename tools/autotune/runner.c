/*
 * Crash isolation for the autotuner: candidates run in a worker process
 * (fork + exec of a program that runs autotune_worker_main, by
 * default `/proc/self/exe autotune --worker`), one request line out, one
 * answer line back, with a timeout. A worker that dies or does not answer
 * in time is killed; the candidate is recorded as failed and the next
 * request starts a fresh worker. A socket pair, not pipes, so that writing
 * to a dead worker returns EPIPE instead of raising SIGPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "autotune.h"

struct tune_runner {
  char **argv;
  double timeout;
  pid_t pid;
  int fd;
  char buf[8192];
  size_t have;
};

static void stop(tune_runner *r) {
  if (r->pid > 0) {
    kill(r->pid, SIGKILL);
    waitpid(r->pid, NULL, 0);
  }
  if (r->fd >= 0) close(r->fd);
  r->pid = -1;
  r->fd = -1;
  r->have = 0;
}

static bool start(tune_runner *r) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) return false;
  pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    return false;
  }
  if (pid == 0) {
    /* Only async-signal-safe calls from here to exec. Its own process
     * group: Ctrl-C reaches the parent, which ends the worker itself. */
    setpgid(0, 0);
    dup2(sv[1], 0);
    dup2(sv[1], 1);
    if (!getenv("VNCL_TUNE_WORKER_STDERR")) {
      int nul = open("/dev/null", O_WRONLY);
      if (nul >= 0) dup2(nul, 2);
    }
    execv(r->argv[0], r->argv);
    _exit(127);
  }
  close(sv[1]);
  r->pid = pid;
  r->fd = sv[0];
  r->have = 0;
  return true;
}

tune_runner *tune_runner_new(const char *const *argv,
                                         double timeout) {
  static const char *const def[] = {"/proc/self/exe", "autotune", "--worker",
                                    NULL};
  if (!argv) argv = def;
  tune_runner *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  int n = 0;
  while (argv[n]) n++;
  r->argv = calloc((size_t)n + 1, sizeof *r->argv);
  for (int i = 0; r->argv && i < n; i++) r->argv[i] = strdup(argv[i]);
  r->timeout = timeout > 0 ? timeout : 120;
  r->pid = -1;
  r->fd = -1;
  if (!r->argv) {
    free(r);
    return NULL;
  }
  return r;
}

void tune_runner_free(tune_runner *r) {
  if (!r) return;
  stop(r);
  for (int i = 0; r->argv[i]; i++) free(r->argv[i]);
  free(r->argv);
  free(r);
}

static cJSON *fail(const char *fmt, const char *arg) {
  char why[256];
  snprintf(why, sizeof why, fmt, arg);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddFalseToObject(o, "ok");
  cJSON_AddStringToObject(o, "why", why);
  cJSON_AddTrueToObject(o, "isolated"); /* the worker died or hung */
  return o;
}

cJSON *tune_runner_eval(tune_runner *r, const cJSON *request) {
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(request, "fresh")))
    stop(r);
  if (r->pid < 0 && !start(r)) return fail("cannot start a worker%s", "");
  char *line = cJSON_PrintUnformatted(request);
  if (!line) return fail("out of memory%s", "");
  size_t len = strlen(line);
  line[len] = '\n'; /* replaces the terminator; length kept in len */
  size_t off = 0;
  while (off < len + 1) {
    ssize_t w = send(r->fd, line + off, len + 1 - off, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
  free(line);
  if (off < len + 1) {
    stop(r);
    return fail("worker gone before the request%s", "");
  }
  double deadline = tune_now() + r->timeout;
  for (;;) {
    char *nl = memchr(r->buf, '\n', r->have);
    if (nl) {
      *nl = '\0';
      cJSON *ans = cJSON_Parse(r->buf);
      size_t used = (size_t)(nl - r->buf) + 1;
      memmove(r->buf, nl + 1, r->have - used);
      r->have -= used;
      return ans ? ans : fail("unreadable answer%s", "");
    }
    if (r->have == sizeof r->buf) {
      stop(r);
      return fail("answer too long%s", "");
    }
    double left = deadline - tune_now();
    if (left <= 0) {
      stop(r);
      char t[32];
      snprintf(t, sizeof t, "%.0f", r->timeout);
      return fail("timed out after %s s (hung)", t);
    }
    struct pollfd pf = {r->fd, POLLIN, 0};
    int pr = poll(&pf, 1, (int)(left * 1000) + 1);
    if (pr < 0 && errno == EINTR) { /* SIGINT: the run is stopping */
      stop(r);
      return fail("interrupted%s", "");
    }
    if (pr <= 0) continue;
    ssize_t got = read(r->fd, r->buf + r->have, sizeof r->buf - r->have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      int status = 0;
      kill(r->pid, SIGKILL);
      waitpid(r->pid, &status, 0);
      r->pid = -1;
      close(r->fd);
      r->fd = -1;
      r->have = 0;
      char how[64];
      if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "signal %d", WTERMSIG(status));
      else
        snprintf(how, sizeof how, "exit %d", WEXITSTATUS(status));
      return fail("worker crashed (%s)", how);
    }
    r->have += (size_t)got;
  }
}
