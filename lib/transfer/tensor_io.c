/* Host transfers of tensors: vncl_tensor_write / _read and their _async
 * forms check their arguments here and hand the bytes to the transfer
 * engine (transfer.c), which picks the path (direct, staged through pinned
 * chunks, mapped, or the caller's pinned memory). */
#include <stdlib.h>
#include <string.h>

#include "transfer/transfer.h"

static vncl_status check_io(const vncl_tensor *t, const void *p, size_t bytes,
                            const char *what) {
  if (!t) return vncl__fail(NULL, VNCL_ERR_INVALID_ARG, "tensor is NULL");
  if (bytes != t->bytes)
    return vncl__fail(t->ctx, VNCL_ERR_INVALID_ARG,
                      "%s: %zu bytes given, the tensor holds %zu", what, bytes,
                      t->bytes);
  if (!p && bytes)
    return vncl__fail(t->ctx, VNCL_ERR_INVALID_ARG, "%s: host pointer is NULL",
                      what);
  return VNCL_OK;
}

vncl_status vncl_tensor_write(vncl_tensor *t, const void *src, size_t bytes) {
  vncl_status s = check_io(t, src, bytes, "vncl_tensor_write");
  if (s || bytes == 0) return s;
  return vncl__transfer(t->ctx, VNCL__WRITE, t->mem, t->offset, (void *)src,
                        bytes, false, 0, NULL, NULL, NULL);
}

vncl_status vncl_tensor_read(const vncl_tensor *t, void *dst, size_t bytes) {
  vncl_status s = check_io(t, dst, bytes, "vncl_tensor_read");
  if (s || bytes == 0) return s;
  return vncl__transfer(t->ctx, VNCL__READ, t->mem, t->offset, dst, bytes,
                        false, 0, NULL, NULL, NULL);
}

static vncl_status transfer_async(const vncl_tensor *t, int dir, void *host,
                                  size_t bytes, cl_uint num_wait,
                                  const cl_event *wait_list,
                                  vncl_event **event, const char *what) {
  vncl_status s = check_io(t, host, bytes, what);
  if (s) return s;
  if (num_wait && !wait_list)
    return vncl__fail(t->ctx, VNCL_ERR_INVALID_ARG,
                      "%s: num_wait is %u but wait_list is NULL", what,
                      (unsigned)num_wait);
  s = vncl__serial_wait_check(t->ctx, what, num_wait, wait_list);
  if (s) return s;
  vncl_event *e = NULL;
  if (event && !(e = vncl__event_alloc(t->ctx))) return VNCL_ERR_OUT_OF_MEMORY;
  cl_event ev = NULL;
  vncl__xstatus *xs = NULL;
  s = vncl__transfer(t->ctx, dir, t->mem, t->offset, host, bytes, true,
                     num_wait, wait_list, e ? &ev : NULL, e ? &xs : NULL);
  if (s) {
    vncl_event_release(e);
    return s;
  }
  if (e) {
    vncl__event_fill(e, ev, xs);
    *event = e;
  }
  return VNCL_OK;
}

vncl_status vncl_tensor_write_async(vncl_tensor *t, const void *src,
                                    size_t bytes, cl_uint num_wait,
                                    const cl_event *wait_list,
                                    vncl_event **event) {
  return transfer_async(t, VNCL__WRITE, (void *)src, bytes, num_wait,
                        wait_list, event, "vncl_tensor_write_async");
}

vncl_status vncl_tensor_read_async(const vncl_tensor *t, void *dst,
                                   size_t bytes, cl_uint num_wait,
                                   const cl_event *wait_list,
                                   vncl_event **event) {
  return transfer_async(t, VNCL__READ, dst, bytes, num_wait, wait_list, event,
                        "vncl_tensor_read_async");
}

