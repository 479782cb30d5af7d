/* Drivers' own defects, as data: a row per (platform, device name, driver
 * version below) with what vncl does about it. The device-rule matcher
 * (device_rule.c) scores each row's device rule; the row's platform, name
 * prefixes and version bound must hold as well.
 *
 * PoCL's single-threaded CPU device ("basic" in PoCL 3, "cpu-minimal" from
 * PoCL 4) runs each command inside the call that enqueues it. Before PoCL
 * 5.0 a command that became ready only when another finished was run while
 * that finishing command's notification still held the waiting command's
 * event lock, and running it takes the same lock: the thread deadlocks
 * (PoCL pull request 1323, merged 2023-10). One thread never meets it (each
 * command is complete before the next is enqueued); two threads enqueueing
 * on such a device at once do: on PoCL 3.1 vncl's FFT from four threads
 * hung, asynchronous transfers from two threads hung, and the drop-in
 * BLAS's threads read back C before its product (docs/portability.md,
 * "PoCL's single-threaded device"). vncl therefore enqueues on such a
 * device one command at a time in the process (serial.h, the lock below;
 * launch.c), and refuses wait lists with events not yet complete there
 * (vncl__serial_wait_check). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

#define POCL "Portable Computing Language"
/* PoCL's single-threaded CPU device, by name (PoCL 3, PoCL 4 and later). */
static const char *const pocl_single[] = {"basic", "cpu-minimal", NULL};

static const vncl__driver_row rows[] = {
    {{NULL, VNCL_DEVICE_CPU, VNCL__RULE_ANY, 0, VNCL__RULE_ANY, VNCL__RULE_ANY,
      0},
     POCL,
     pocl_single,
     5,
     0,
     true,
     "PoCL's single-threaded device before 5.0 deadlocks when two threads "
     "enqueue at once or a command waits on an event not yet complete (PoCL "
     "pull request 1323): vncl enqueues one command at a time and refuses "
     "wait lists with pending events"},
};

/* "3.1+debian" -> 3, 1; "5.0-rc1" -> 5, 0. false when no number leads. */
static bool version_of(const char *s, int *major, int *minor) {
  char *end;
  long a = strtol(s, &end, 10);
  if (end == s) return false;
  long b = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
  *major = (int)a;
  *minor = (int)b;
  return true;
}

/* The name starts with one of the NULL-terminated prefixes. */
static bool named(const char *name, const char *const *prefixes) {
  for (; *prefixes; prefixes++)
    if (!strncmp(name, *prefixes, strlen(*prefixes))) return true;
  return false;
}

bool vncl__pocl_single_threaded(const vncl_device_info *d) {
  return d->type == VNCL_DEVICE_CPU && strstr(d->platform, POCL) &&
         named(d->name, pocl_single);
}

static bool row_holds(const vncl__driver_row *r, const vncl_device_info *d) {
  if (r->platform && !strstr(d->platform, r->platform)) return false;
  if (r->names && !named(d->name, r->names)) return false;
  if (r->below_major > 0) {
    int a, b;
    /* A version we cannot read is taken as affected. */
    if (version_of(d->driver_version, &a, &b) &&
        (a > r->below_major || (a == r->below_major && b >= r->below_minor)))
      return false;
  }
  return true;
}

const vncl__driver_row *vncl__driver_row_of(const vncl_device_info *info) {
  vncl__device_key k;
  vncl__device_key_of(info, 0, VNCL__RULE_ANY, VNCL__RULE_ANY, &k);
  const vncl__driver_row *best = NULL;
  int best_score = -1;
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    int s = vncl__rule_score(&rows[i].rule, &k);
    if (s > best_score && row_holds(&rows[i], info)) {
      best = &rows[i];
      best_score = s;
    }
  }
  return best;
}

bool vncl__driver_serial(const vncl_device_info *info) {
  const vncl__driver_row *r = vncl__driver_row_of(info);
  return r && r->serial;
}

vncl_status vncl__serial_wait_check(vncl_context *ctx, const char *fn,
                                    cl_uint num_wait, const cl_event *wait) {
  if (!ctx->info.serial_driver) return VNCL_OK;
  for (cl_uint i = 0; i < num_wait; i++) {
    cl_int st = CL_COMPLETE;
    if (clGetEventInfo(wait[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
                       &st, NULL) != CL_SUCCESS || st == CL_COMPLETE)
      continue; /* an invalid event is the driver's to report */
    return vncl__fail(ctx, VNCL_ERR_UNSUPPORTED,
                      "%s: event %u of the wait list has not completed, and "
                      "'%s' (driver %s) deadlocks when a command waits on "
                      "one (PoCL before 5.0, pull request 1323): wait for it "
                      "first, or use PoCL's threaded device",
                      fn, i, ctx->info.name, ctx->info.driver_version);
  }
  return VNCL_OK;
}

/* ---- one command at a time (serial.h) ----------------------------------- */

/* The cl_contexts of live serial vncl contexts, one slot per vncl context
 * (several may share one cl_context); `live` counts them, so that a
 * process without any pays one atomic load a call. Past SERIAL_SLOTS at
 * once (`overflow`), every context's calls take the lock, as if all were
 * serial: slower, and a wait elsewhere may then hold up the serial
 * device's calls. */
#define SERIAL_SLOTS 32
static _Atomic(cl_context) serial_ctx[SERIAL_SLOTS];
static atomic_int live, overflow;
static pthread_mutex_t serial_lock;
static pthread_once_t serial_once = PTHREAD_ONCE_INIT;

static void serial_init(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&serial_lock, &a);
  pthread_mutexattr_destroy(&a);
}

/* Replaces the first slot holding `from` with `to`; false when none held
 * it (adding: the table is full; removing: c was counted in overflow). */
static bool slot_swap(cl_context from, cl_context to) {
  for (int i = 0; i < SERIAL_SLOTS; i++) {
    cl_context want = from;
    if (atomic_compare_exchange_strong(&serial_ctx[i], &want, to)) return true;
  }
  return false;
}

void vncl__serial_add(cl_context c) {
  pthread_once(&serial_once, serial_init);
  if (!slot_swap(NULL, c)) atomic_fetch_add(&overflow, 1);
  atomic_fetch_add(&live, 1);
}

void vncl__serial_remove(cl_context c) {
  if (!slot_swap(c, NULL)) atomic_fetch_sub(&overflow, 1);
  atomic_fetch_sub(&live, 1);
}

bool vncl__serial_lock(void) {
  pthread_once(&serial_once, serial_init);
  pthread_mutex_lock(&serial_lock);
  return true;
}

bool vncl__serial_enter_ctx(cl_context c) {
  if (!atomic_load_explicit(&live, memory_order_acquire)) return false;
  bool mine = atomic_load(&overflow) > 0;
  for (int i = 0; i < SERIAL_SLOTS && !mine && c; i++)
    mine = atomic_load(&serial_ctx[i]) == c;
  return mine && vncl__serial_lock();
}

bool vncl__serial_enter_queue(cl_command_queue q) {
  if (!atomic_load_explicit(&live, memory_order_acquire)) return false;
  cl_context c = NULL;
  if (clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c, NULL) !=
      CL_SUCCESS)
    c = NULL;
  return vncl__serial_enter_ctx(c);
}

bool vncl__serial_enter_events(cl_uint n, const cl_event *e) {
  if (!atomic_load_explicit(&live, memory_order_acquire)) return false;
  for (cl_uint i = 0; e && i < n; i++) {
    cl_context c = NULL;
    if (clGetEventInfo(e[i], CL_EVENT_CONTEXT, sizeof c, &c, NULL) ==
            CL_SUCCESS &&
        vncl__serial_enter_ctx(c))
      return true;
  }
  return false;
}

void vncl__serial_leave(bool held) {
  if (held) pthread_mutex_unlock(&serial_lock);
}
