/* A program that uses vncl as an installed library:
 *   cc example.c $(pkg-config --cflags --libs vncl)
 * It creates a context on the default device, round-trips a tensor and
 * prints the device and memory figures. */
#include <stdio.h>
#include <string.h>
#include <vncl.h>

int main(void) {
  vncl_context *ctx = NULL;
  if (vncl_context_create(&ctx, NULL) != VNCL_OK) {
    fprintf(stderr, "example: %s\n", vncl_errmsg(NULL));
    return 1;
  }
  vncl_device_info dev;
  vncl_context_device_info(ctx, &dev);
  int64_t shape[2] = {3, 4};
  vncl_tensor *t = NULL;
  float in[12], out[12];
  for (int i = 0; i < 12; i++) in[i] = (float)i * 0.5f;
  vncl_status s = vncl_tensor_create(ctx, VNCL_F32, 2, shape, &t);
  if (!s) s = vncl_tensor_write(t, in, sizeof in);
  if (!s) s = vncl_tensor_read(t, out, sizeof out);
  if (s) {
    fprintf(stderr, "example: %s: %s\n", vncl_status_string(s),
            vncl_errmsg(ctx));
    vncl_tensor_destroy(t);
    vncl_context_destroy(ctx);
    return 1;
  }
  vncl_memory_stats m;
  vncl_memory_stats_get(ctx, &m);
  printf("example: vncl %s on %s, %llu bytes allocated\n",
         vncl_version_string(), dev.name,
         (unsigned long long)m.allocated_bytes);
  int ok = memcmp(in, out, sizeof in) == 0;
  vncl_tensor_destroy(t);
  vncl_context_destroy(ctx);
  printf("example: %s\n", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
