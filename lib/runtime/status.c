/* Status codes, their strings, and the per-thread error messages. */
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

const char *vncl_status_string(vncl_status s) {
  switch (s) {
#define VNCL_STATUS_TEXT_(name, value, text) \
  case VNCL_##name:                          \
    return text;
    VNCL_STATUS_MAP(VNCL_STATUS_TEXT_)
#undef VNCL_STATUS_TEXT_
  }
  return "unknown status";
}

const char *vncl_status_name(vncl_status s) {
  switch (s) {
#define VNCL_STATUS_NAME_(name, value, text) \
  case VNCL_##name:                          \
    return #name;
    VNCL_STATUS_MAP(VNCL_STATUS_NAME_)
#undef VNCL_STATUS_NAME_
  }
  return "UNKNOWN";
}

unsigned vncl_version(void) { return VNCL_VERSION_HEX; }
const char *vncl_version_string(void) { return VNCL_VERSION_STRING; }

/* Messages live in a few per-thread slots, one per context recently used by
 * the thread (slot owner NULL: errors outside any context). Per-thread storage
 * means two threads failing on one context never overwrite each other's text,
 * and the string stays valid until this thread's next error on that context. */
#define VNCL_MSG_SLOTS 4
#define VNCL_MSG_CAP 8192
typedef struct {
  const vncl_context *owner;
  unsigned long stamp;
  char text[VNCL_MSG_CAP];
} vncl__msg_slot;

static _Thread_local vncl__msg_slot msg_slots[VNCL_MSG_SLOTS];
static _Thread_local unsigned long msg_clock;

static vncl__msg_slot *slot_for(const vncl_context *ctx, bool create) {
  vncl__msg_slot *oldest = &msg_slots[0];
  for (int i = 0; i < VNCL_MSG_SLOTS; i++) {
    vncl__msg_slot *s = &msg_slots[i];
    if (s->stamp != 0 && s->owner == ctx) return s;
    if (s->stamp < oldest->stamp) oldest = s;
  }
  if (!create) return NULL;
  oldest->owner = ctx;
  oldest->text[0] = '\0';
  return oldest;
}

vncl_status vncl__fail(const vncl_context *ctx, vncl_status s, const char *fmt,
                       ...) {
  vncl__msg_slot *slot = slot_for(ctx, true);
  slot->stamp = ++msg_clock;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(slot->text, sizeof slot->text, fmt, ap);
  va_end(ap);
  vncl__log(VNCL_LOG_ERROR, "%s: %s", vncl_status_name(s), slot->text);
  return s;
}

void vncl__clear_error(const vncl_context *ctx) {
  vncl__msg_slot *slot = slot_for(ctx, false);
  if (slot) slot->text[0] = '\0';
}

const char *vncl_errmsg(const vncl_context *ctx) {
  vncl__msg_slot *slot = slot_for(ctx, false);
  return slot ? slot->text : "";
}

const char *vncl__cl_error_name(cl_int err) {
  switch (err) {
#define E(x) \
  case x:    \
    return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
    E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP)
    E(CL_IMAGE_FORMAT_MISMATCH) E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE)
    E(CL_LINK_PROGRAM_FAILURE) E(CL_DEVICE_PARTITION_FAILED)
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE)
    E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE)
    E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES)
    E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    E(CL_INVALID_IMAGE_SIZE) E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY)
    E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME)
    E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_KERNEL)
    E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION)
    E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE)
    E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT)
    E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL)
    E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
    E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS)
    E(CL_INVALID_LINKER_OPTIONS) E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
  }
  return "CL_UNKNOWN_ERROR";
}

vncl_status vncl__cl_fail(const vncl_context *ctx, cl_int err,
                          const char *what) {
  vncl_status s = VNCL_ERR_OPENCL;
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
      err == CL_OUT_OF_HOST_MEMORY)
    s = VNCL_ERR_OUT_OF_MEMORY;
  else if (err == CL_BUILD_PROGRAM_FAILURE)
    s = VNCL_ERR_BUILD;
  return vncl__fail(ctx, s, "%s: %s (%d)", what, vncl__cl_error_name(err),
                    (int)err);
}
