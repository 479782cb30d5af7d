/*
 * The CLBlast backend of GEMM: Sgemm, Dgemm, Hgemm and their strided-batched
 * forms, behind the same dispatch as our kernels (gemm.c). CLBlast gets the
 * caller's own layout, transposes and leading dimensions. It takes neither
 * bf16 nor a C whose type differs from A and B, and Hgemm needs native half
 * (cl_khr_fp16): those products always run on our kernels.
 *
 * CLBlast builds and caches its own programs (outside vncl's caches) on the
 * first call per device and routine. Those programs hold the OpenCL context
 * they were built in; when the last vncl context that used CLBlast goes,
 * vncl clears CLBlast's caches (CLBlastClearCache), so that the OpenCL
 * contexts are really freed then, not by CLBlast's static destructors at
 * process exit, after the driver may be gone (under Oclgrind that ended
 * every process that had used CLBlast in "corrupted double-linked list").
 */
#include <clblast_c.h>
#include <stdio.h>

#include "gemm/gemm.h"

bool vncl__gemm_clblast_can(vncl_context *ctx, const vncl__gemm_problem *pr) {
  if (pr->c != pr->ab) return false;
  switch (pr->ab) {
    case VNCL_F32: return true;
    case VNCL_F64: return ctx->info.fp64 != 0;
    case VNCL_F16: return ctx->info.fp16 != 0;
    default: return false;
  }
}

static CLBlastTranspose tr(vncl_trans t) {
  return t == VNCL_TRANS ? CLBlastTransposeYes : CLBlastTransposeNo;
}

static vncl_status status_of(vncl_context *ctx, CLBlastStatusCode st) {
  if (st == CLBlastSuccess) return VNCL_OK;
  /* CLBlast passes OpenCL errors through as they are; its own codes are
   * -1000 and below. */
  if (st > -1000) return vncl__cl_fail(ctx, (cl_int)st, "CLBlast GEMM");
  return vncl__fail(ctx, VNCL_ERR_OPENCL, "CLBlast GEMM failed: status %d",
                    (int)st);
}

/* Live contexts that have called CLBlast, under clblast_lock. */
static int clblast_users;
static pthread_mutex_t clblast_lock = PTHREAD_MUTEX_INITIALIZER;

void vncl__gemm_clblast_release(vncl_context *ctx) {
  if (!atomic_load(&ctx->used_clblast)) return;
  pthread_mutex_lock(&clblast_lock);
  atomic_store(&ctx->used_clblast, false);
  if (--clblast_users == 0) CLBlastClearCache();
  pthread_mutex_unlock(&clblast_lock);
}

/* One CLBlast GEMM call, made by vncl__enqueue (the launch path). */
typedef struct clblast_call {
  const vncl__gemm_problem *pr;
  const vncl__gemm_blas_args *ba;
  cl_command_queue q;
} clblast_call;

static cl_int clblast_enqueue(void *arg, cl_event *ev) {
  const clblast_call *cc = arg;
  const vncl__gemm_problem *pr = cc->pr;
  const vncl__gemm_blas_args *ba = cc->ba;
  CLBlastLayout lay = ba->layout == VNCL_COL_MAJOR ? CLBlastLayoutColMajor
                                                   : CLBlastLayoutRowMajor;
  CLBlastTranspose ta = tr(ba->ta), tb = tr(ba->tb);
  size_t m = ba->m, n = ba->n, k = pr->k, batch = pr->batch;
  cl_mem a = ba->a, b = ba->b, c = pr->cm;
  cl_command_queue q = cc->q;
  CLBlastStatusCode st;
  if (pr->ab == VNCL_F32) {
    float al = (float)pr->alpha, be = (float)pr->beta;
    st = batch == 1
             ? CLBlastSgemm(lay, ta, tb, m, n, k, al, a, ba->a_offset, ba->lda,
                            b, ba->b_offset, ba->ldb, be, c, ba->c_offset,
                            pr->ldc, &q, ev)
             : CLBlastSgemmStridedBatched(
                   lay, ta, tb, m, n, k, al, a, ba->a_offset, ba->lda,
                   ba->stride_a, b, ba->b_offset, ba->ldb, ba->stride_b, be, c,
                   ba->c_offset, pr->ldc, ba->stride_c, batch, &q, ev);
  } else if (pr->ab == VNCL_F64) {
    double al = pr->alpha, be = pr->beta;
    st = batch == 1
             ? CLBlastDgemm(lay, ta, tb, m, n, k, al, a, ba->a_offset, ba->lda,
                            b, ba->b_offset, ba->ldb, be, c, ba->c_offset,
                            pr->ldc, &q, ev)
             : CLBlastDgemmStridedBatched(
                   lay, ta, tb, m, n, k, al, a, ba->a_offset, ba->lda,
                   ba->stride_a, b, ba->b_offset, ba->ldb, ba->stride_b, be, c,
                   ba->c_offset, pr->ldc, ba->stride_c, batch, &q, ev);
  } else {
    cl_half al = vncl__f64_to_f16_bits(pr->alpha),
            be = vncl__f64_to_f16_bits(pr->beta);
    st = batch == 1
             ? CLBlastHgemm(lay, ta, tb, m, n, k, al, a, ba->a_offset, ba->lda,
                            b, ba->b_offset, ba->ldb, be, c, ba->c_offset,
                            pr->ldc, &q, ev)
             : CLBlastHgemmStridedBatched(
                   lay, ta, tb, m, n, k, al, a, ba->a_offset, ba->lda,
                   ba->stride_a, b, ba->b_offset, ba->ldb, ba->stride_b, be, c,
                   ba->c_offset, pr->ldc, ba->stride_c, batch, &q, ev);
  }
  return (cl_int)st;
}

static void note_user(vncl_context *ctx) {
  if (atomic_load(&ctx->used_clblast)) return;
  pthread_mutex_lock(&clblast_lock);
  if (!atomic_load(&ctx->used_clblast)) {
    atomic_store(&ctx->used_clblast, true);
    clblast_users++;
  }
  pthread_mutex_unlock(&clblast_lock);
  vncl__context_on_release(ctx, vncl__gemm_clblast_release);
}

vncl_status vncl__gemm_clblast(vncl_context *ctx, const vncl__gemm_problem *pr,
                               const vncl__gemm_blas_args *ba,
                               cl_uint num_wait, const cl_event *wait,
                               cl_event *event) {
  note_user(ctx);
  /* CLBlast takes no wait list: a barrier on the queue stands for it. */
  if (num_wait) {
    cl_int err = clEnqueueBarrierWithWaitList(ctx->queue, num_wait, wait, NULL);
    if (err) return vncl__cl_fail(ctx, err, "clEnqueueBarrierWithWaitList");
  }
  double es = (double)vncl_dtype_size(pr->ab);
  double m = (double)ba->m, n = (double)ba->n, k = (double)pr->k,
         batch = (double)pr->batch;
  vncl__cmd cmd = {"gemm", 2.0 * m * n * k * batch,
                   es * batch * (m * k + k * n + m * n * (pr->beta != 0 ? 2 : 1)),
                   false};
  clblast_call cc = {pr, ba, ctx->queue};
  cl_event ev = NULL;
  vncl_status s =
      status_of(ctx, (CLBlastStatusCode)vncl__enqueue(ctx, &cmd, clblast_enqueue,
                                                      &cc, &ev));
  if (s) return s;
  if (event)
    *event = ev;
  else if (ev)
    clReleaseEvent(ev);
  if (event && !ev) {
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, event);
    if (err) return vncl__cl_fail(ctx, err, "clEnqueueMarkerWithWaitList");
  }
  return VNCL_OK;
}
