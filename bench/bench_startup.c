/* Suite "startup": the time from a fresh process to the first verified GEMM
 * result, with empty caches (vncl's binary cache and PoCL's or the driver's
 * own) and with warm ones; the peer is CLBlast's first SGEMM in a fresh
 * process under the same conditions. Each measurement runs in a child
 * process (`vncl-bench __startup-child`), because what is measured is a process
 * start. */
#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "common_ref.h"

enum { S = 256 };

/* The max error of C = A B against the shared reference in double
 * (test/common_ref.c). */
static double check(const float *a, const float *b, const float *c) {
  static double ad[S * S], bd[S * S], r[S * S];
  for (int i = 0; i < S * S; i++) {
    ad[i] = a[i];
    bd[i] = b[i];
  }
  t_ref_gemm(false, false, S, S, S, 1, 1.0, ad, S, bd, S, 0.0, NULL, S, r,
             NULL);
  double worst = 0;
  for (int i = 0; i < S * S; i++) {
    double e = fabs(c[i] - r[i]) / (1 + fabs(r[i]));
    if (!(e == e)) return INFINITY;
    if (e > worst) worst = e;
  }
  return worst;
}

static int child_vncl(const char *cache) {
  double t0 = bench_now();
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = cache;
  vncl_context *ctx;
  if (vncl_context_create(&ctx, &o)) return 2;
  int64_t shape[2] = {S, S};
  vncl_tensor *ta, *tb, *tc;
  static float a[S * S], b[S * S], c[S * S];
  for (int i = 0; i < S * S; i++) {
    a[i] = (float)(((unsigned)i * 7919u) % 17u) / 17.0f - 0.5f;
    b[i] = (float)(((unsigned)i * 104729u) % 13u) / 13.0f - 0.5f;
    c[i] = NAN;
  }
  if (vncl_tensor_create(ctx, VNCL_F32, 2, shape, &ta) ||
      vncl_tensor_create(ctx, VNCL_F32, 2, shape, &tb) ||
      vncl_tensor_create(ctx, VNCL_F32, 2, shape, &tc) ||
      vncl_tensor_write(ta, a, sizeof a) || vncl_tensor_write(tb, b, sizeof b) ||
      vncl_gemm(ctx, VNCL_NO_TRANS, VNCL_NO_TRANS, 1, ta, tb, 0, tc) ||
      vncl_tensor_read(tc, c, sizeof c))
    return 3;
  double t = bench_now() - t0;
  vncl_tensor_destroy(ta);
  vncl_tensor_destroy(tb);
  vncl_tensor_destroy(tc);
  vncl_context_destroy(ctx);
  printf("seconds=%.6f error=%.3g\n", t, check(a, b, c));
  return 0;
}

static int child_clblast(void) {
  double t0 = bench_now();
  cl_platform_id p;
  cl_device_id d;
  cl_int err;
  int idx = 0;
  vncl_device_select(getenv("VNCL_DEVICE"), &idx);
  vncl_options o;
  vncl_options_init(&o);
  o.cache_dir = "off";
  vncl_context *vctx; /* only to find the same device through its selector */
  if (vncl_context_create(&vctx, &o)) return 2;
  vncl_context_cl(vctx, NULL, NULL, &d);
  clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof p, &p, NULL);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)p, 0};
  cl_context c = clCreateContext(props, 1, &d, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(c, d, 0, &err);
  static float a[S * S], b[S * S], cc[S * S];
  for (int i = 0; i < S * S; i++) {
    a[i] = (float)(((unsigned)i * 7919u) % 17u) / 17.0f - 0.5f;
    b[i] = (float)(((unsigned)i * 104729u) % 13u) / 13.0f - 0.5f;
  }
  cl_mem ma = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
  cl_mem mb = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
  cl_mem mc = clCreateBuffer(c, CL_MEM_READ_WRITE, sizeof cc, NULL, &err);
  CLBlastStatusCode st =
      CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
                   CLBlastTransposeNo, S, S, S, 1.0f, ma, 0, S, mb, 0, S, 0.0f,
                   mc, 0, S, &q, NULL);
  if (st != CLBlastSuccess) return 3;
  clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof cc, cc, 0, NULL, NULL);
  double t = bench_now() - t0;
  clReleaseMemObject(ma);
  clReleaseMemObject(mb);
  clReleaseMemObject(mc);
  clReleaseCommandQueue(q);
  clReleaseContext(c);
  vncl_context_destroy(vctx);
  printf("seconds=%.6f error=%.3g\n", t, check(a, b, cc));
  return 0;
}

/* Hidden subcommand: `vncl-bench __startup-child vncl|clblast CACHE_DIR`. */
int bench_startup_child(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "vncl")) return child_vncl(argv[2]);
  if (argc == 3 && !strcmp(argv[1], "clblast")) return child_clblast();
  return CLI_USAGE;
}

/* Runs one child; returns seconds, or -1. */
static double run_child(const char *which, const char *cache,
                        const char *pocl_cache, bool *ok) {
  char self[1024];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return -1;
  self[n] = '\0';
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "POCL_CACHE_DIR='%s' '%s' __startup-child %s '%s'",
           pocl_cache, self, which, cache);
  FILE *f = popen(cmd, "r");
  if (!f) return -1;
  double secs = -1, err = INFINITY;
  char line[256];
  while (fgets(line, sizeof line, f))
    sscanf(line, "seconds=%lf error=%lf", &secs, &err);
  if (pclose(f) != 0) return -1;
  if (!(err < 1e-4)) *ok = false;
  return secs;
}

static void rmtree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "bench: could not remove %s\n", dir);
}

int bench_suite_startup(bench_ctx *b) {
  const char *modes[2] = {"cold", "warm"};
  char base[] = "/tmp/vncl-bench-startup-XXXXXX";
  if (!mkdtemp(base)) return -1;
  char vcache[300], pcache[300], pcache2[300];
  snprintf(vcache, sizeof vcache, "%s/vncl", base);
  snprintf(pcache, sizeof pcache, "%s/pocl-vncl", base);
  snprintf(pcache2, sizeof pcache2, "%s/pocl-clblast", base);
  mkdir(pcache, 0755);
  mkdir(pcache2, 0755);
  int rc = 0;
  /* Cold once (the first runs), then warm: median of a few runs. */
  for (int m = 0; m < 2; m++) {
    int runs = m == 0 ? 1 : (b->quick ? 3 : 5);
    double tv[8], tc[8];
    bool ok = true;
    int nv = 0, nc = 0;
    for (int r = 0; r < runs; r++) {
      double v = run_child("vncl", vcache, pcache, &ok);
      double c = run_child("clblast", "off", pcache2, &ok);
      if (v > 0) tv[nv++] = v;
      if (c > 0) tc[nc++] = c;
    }
    if (nv == 0 || nc == 0) {
      rc = -1;
      break;
    }
    bench_case k = {0};
    char name[64];
    snprintf(name, sizeof name, "first sgemm %dx%dx%d, %s caches", S, S, S,
             modes[m]);
    k.suite = "startup";
    k.name = name;
    k.dtype = "f32";
    k.unit = "ms";
    double sp, psp;
    k.value = 1e3 * bench_median(tv, nv, &sp);
    k.spread = sp;
    k.wall_seconds = k.value * 1e-3;
    k.peer = "clblast";
    k.peer_value = 1e3 * bench_median(tc, nc, &psp);
    k.peer_spread = psp;
    k.correct = ok;
    k.m = k.n = k.k = S;
    bench_record(b, &k);
  }
  rmtree(base);
  return rc;
}
