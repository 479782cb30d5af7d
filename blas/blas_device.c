/* The device side of the drop-in BLAS: one vncl context per process,
 * created on the first call that goes to the device and kept, and the
 * real GEMM on host operands that every Level-3 routine ends in.
 *
 * A large product is cut into column panels of B and C. Each operand goes
 * up with vncl_tensor_write_async (the staged path copies it into the
 * pinned pool while the device still computes the previous panel), each
 * panel's GEMM is queued behind its operands, and each panel of C comes
 * back with vncl_tensor_read_async (copied out of the pool by vncl's
 * transfer thread while the next panel computes). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blas_internal.h"

/* Products from this many flops on are cut into panels of at least
 * VB_PANEL_MIN_COLS columns, at most VB_PANELS of them. */
#define VB_PANEL_MIN_FLOPS 1.0e9
#define VB_PANEL_MIN_COLS 256
#define VB_PANELS 4

static pthread_once_t dev_once = PTHREAD_ONCE_INIT;
static vncl_context *dev_ctx;
static int dev_fp64;
static int dev_unified; /* the device shares host memory: nothing to overlap */
static int dev_started; /* this process (or the parent it forked from) */
static int dev_forked;  /* a fork() child of a process that started one */

/* The child of a fork() must not touch its parent's OpenCL objects: its
 * Level-3 calls stay on the CPU BLAS. */
static void atfork_child(void) {
  if (__atomic_load_n(&dev_started, __ATOMIC_ACQUIRE)) dev_forked = 1;
}

__attribute__((constructor)) static void vb_device_ctor(void) {
  pthread_atfork(NULL, NULL, atfork_child);
}

static void dev_init(void) {
  const vb_settings *s = vb_settings_get();
  vncl_options o;
  vncl_options_init(&o);
  if (s->device[0]) o.device = s->device;
  __atomic_store_n(&dev_started, 1, __ATOMIC_RELEASE);
  vncl_context *ctx = NULL;
  vncl_status st = vncl_context_create(&ctx, &o);
  if (st != VNCL_OK) {
    vb_warn("blas: no vncl device (%s): Level 3 stays on the CPU BLAS",
            vncl_errmsg(NULL));
    return;
  }
  vncl_device_info info;
  if (vncl_context_device_info(ctx, &info) == VNCL_OK) {
    dev_fp64 = info.fp64;
    dev_unified = info.unified_memory;
  }
  /* Kept to the end of the process: tearing down OpenCL in exit handlers
   * is not safe with every driver. */
  dev_ctx = ctx;
}

int vb_device_wanted(int routine, int type, double flops) {
  const vb_settings *s = vb_settings_get();
  if (!((s->on[routine] >> type) & 1u)) return 0;
  if (flops < s->min_flops) return 0;
  if (dev_forked) return 0;
  pthread_once(&dev_once, dev_init);
  if (!dev_ctx) return 0;
  if ((type == VB_D || type == VB_Z) && !dev_fp64) return 0;
  return 1;
}

/* Device blocks outlive the call that made them: programs that call BLAS
 * in a loop (NumPy, an iterative solver) ask for the same sizes again, and
 * a tensor of the size is then taken back instead of being allocated and
 * zero-filled anew. Its old contents never matter: every block is written
 * before it is read (beta == 0 never reads C). At most VB_KEEP blocks and
 * VB_KEEP_BYTES are kept; the least recently used go first. */
#define VB_KEEP 12
#define VB_KEEP_BYTES ((size_t)512 << 20)

static pthread_mutex_t keep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  vncl_tensor *t;
  vncl_dtype dt;
  int64_t numel;
  uint64_t used; /* call counter when last handed back */
} keep[VB_KEEP];
static size_t keep_bytes;
static uint64_t keep_clock;

/* Under keep_lock: takes the least recently used kept block out (into
 * drop[*ndrop], destroyed by the caller after unlocking); false when none
 * is kept. */
static bool take_lru(vncl_tensor **drop, int *ndrop) {
  int old = -1;
  for (int i = 0; i < VB_KEEP; i++)
    if (keep[i].t && (old < 0 || keep[i].used < keep[old].used)) old = i;
  if (old < 0) return false;
  keep_bytes -= vncl_tensor_bytes(keep[old].t);
  drop[(*ndrop)++] = keep[old].t;
  keep[old].t = NULL;
  return true;
}

static int free_slot(void) {
  for (int i = 0; i < VB_KEEP; i++)
    if (!keep[i].t) return i;
  return -1;
}

static vncl_status block_tensor(vncl_context *ctx, vncl_dtype dt,
                                int64_t numel, vncl_tensor **out) {
  pthread_mutex_lock(&keep_lock);
  for (int i = 0; i < VB_KEEP; i++)
    if (keep[i].t && keep[i].dt == dt && keep[i].numel == numel) {
      *out = keep[i].t;
      keep_bytes -= vncl_tensor_bytes(keep[i].t);
      keep[i].t = NULL;
      pthread_mutex_unlock(&keep_lock);
      return VNCL_OK;
    }
  pthread_mutex_unlock(&keep_lock);
  vncl_status st = vncl_tensor_create(ctx, dt, 1, &numel, out);
  if (st == VNCL_ERR_OUT_OF_MEMORY) { /* the kept blocks go first */
    vncl_tensor *drop[VB_KEEP];
    int ndrop = 0;
    pthread_mutex_lock(&keep_lock);
    while (take_lru(drop, &ndrop)) {
    }
    pthread_mutex_unlock(&keep_lock);
    for (int i = 0; i < ndrop; i++) vncl_tensor_destroy(drop[i]);
    if (ndrop) st = vncl_tensor_create(ctx, dt, 1, &numel, out);
  }
  return st;
}

/* Hands a block back for later calls (or destroys it). Call only once no
 * command of this call uses it any more. */
static void block_keep(vncl_tensor *t, vncl_dtype dt, int64_t numel) {
  if (!t) return;
  size_t bytes = vncl_tensor_bytes(t);
  vncl_tensor *drop[VB_KEEP + 1];
  int ndrop = 0;
  pthread_mutex_lock(&keep_lock);
  if (bytes > VB_KEEP_BYTES) {
    drop[ndrop++] = t;
  } else {
    /* Room for it: a free slot and the byte bound, oldest out first. */
    while ((free_slot() < 0 || keep_bytes + bytes > VB_KEEP_BYTES) &&
           take_lru(drop, &ndrop)) {
    }
    int slot = free_slot();
    keep[slot].t = t;
    keep[slot].dt = dt;
    keep[slot].numel = numel;
    keep[slot].used = ++keep_clock;
    keep_bytes += bytes;
  }
  pthread_mutex_unlock(&keep_lock);
  for (int i = 0; i < ndrop; i++) vncl_tensor_destroy(drop[i]);
}

/* One operand block on the device, and the packed host copy it was sent
 * from when the caller's leading dimension left gaps. */
typedef struct vb_block {
  vncl_tensor *t;
  vncl_dtype dt;
  int64_t numel;
  void *host;
} vb_block;

/* ok: the call's commands are all done, so the block may serve later
 * calls; otherwise it is destroyed. */
static void block_free(vb_block *b, int ok) {
  if (ok)
    block_keep(b->t, b->dt, b->numel);
  else
    vncl_tensor_destroy(b->t);
  free(b->host);
  b->t = NULL;
  b->host = NULL;
}

static void pack(char *dst, const char *src, int64_t rows, int64_t cols,
                 int64_t ld, size_t esz) {
  for (int64_t j = 0; j < cols; j++)
    memcpy(dst + (size_t)(j * rows) * esz, src + (size_t)(j * ld) * esz,
           (size_t)rows * esz);
}

static void unpack(char *dst, const char *src, int64_t rows, int64_t cols,
                   int64_t ld, size_t esz) {
  for (int64_t j = 0; j < cols; j++)
    memcpy(dst + (size_t)(j * ld) * esz, src + (size_t)(j * rows) * esz,
           (size_t)rows * esz);
}

/* Sends a rows x cols column-major block (leading dimension ld) up. */
static vncl_status upload(vncl_context *ctx, vncl_dtype dt, size_t esz,
                          const void *src, int64_t rows, int64_t cols,
                          int64_t ld, vb_block *b) {
  int64_t numel = rows * cols;
  vncl_status st = block_tensor(ctx, dt, numel, &b->t);
  if (st != VNCL_OK) return st;
  b->dt = dt;
  b->numel = numel;
  const void *p = src;
  if (ld != rows && cols > 1) {
    b->host = malloc((size_t)numel * esz);
    if (!b->host) return VNCL_ERR_OUT_OF_MEMORY;
    pack(b->host, src, rows, cols, ld, esz);
    p = b->host;
  }
  return vncl_tensor_write_async(b->t, p, (size_t)numel * esz, 0, NULL, NULL);
}

static size_t elem_offset(const vncl_tensor *t, size_t esz) {
  return vncl_tensor_offset(t) / esz;
}

vncl_status vb_dev_gemm_real(int dbl, char ta, char tb, int64_t m, int64_t n,
                             int64_t k, double alpha, const void *a,
                             int64_t lda, const void *b, int64_t ldb,
                             double beta, void *c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return VNCL_ERR_INVALID_ARG;
  vncl_context *ctx = dev_ctx;
  if (!ctx || dev_forked) return VNCL_ERR_NO_DEVICE;
  const vncl_dtype dt = dbl ? VNCL_F64 : VNCL_F32;
  const size_t esz = dbl ? 8 : 4;
  const int nota = vb_lsame(ta, 'N'), notb = vb_lsame(tb, 'N');
  const int64_t rows_a = nota ? m : k, cols_a = nota ? k : m;

  /* Panels let transfers overlap the work of other panels; a device that
   * shares host memory has nothing to overlap, and one product runs best. */
  int64_t panels = 1;
  if (!dev_unified &&
      2.0 * (double)m * (double)n * (double)k >= VB_PANEL_MIN_FLOPS &&
      n >= 2 * VB_PANEL_MIN_COLS) {
    panels = n / VB_PANEL_MIN_COLS;
    if (panels > VB_PANELS) panels = VB_PANELS;
  }
  const int64_t width = (n + panels - 1) / panels;

  vb_block ablk = {0};
  vb_block bblk[VB_PANELS] = {{0}}, cblk[VB_PANELS] = {{0}};
  vncl_event *rev[VB_PANELS] = {0};
  void *cpanel[VB_PANELS] = {0}; /* packed C panels read back, when ldc > m */
  void *backup = NULL;
  vncl_status st = VNCL_OK;
  int enqueued = 0;

  if (beta != 0) { /* so that a failure leaves C as it was */
    backup = malloc((size_t)(m * n) * esz);
    if (!backup) return VNCL_ERR_OUT_OF_MEMORY;
    pack(backup, c, m, n, ldc, esz);
  }
  st = upload(ctx, dt, esz, a, rows_a, cols_a, lda, &ablk);
  enqueued = 1;
  for (int64_t p = 0; p < panels && st == VNCL_OK; p++) {
    const int64_t j0 = p * width;
    const int64_t w = j0 + width <= n ? width : n - j0;
    /* op(B)'s columns j0..j0+w: columns of B, or rows of B when transposed */
    const char *bsrc = (const char *)b + (size_t)(notb ? j0 * ldb : j0) * esz;
    st = notb ? upload(ctx, dt, esz, bsrc, k, w, ldb, &bblk[p])
              : upload(ctx, dt, esz, bsrc, w, k, ldb, &bblk[p]);
    if (st != VNCL_OK) break;
    char *cdst = (char *)c + (size_t)(j0 * ldc) * esz;
    if (beta != 0) {
      st = upload(ctx, dt, esz, cdst, m, w, ldc, &cblk[p]);
    } else {
      cblk[p].dt = dt;
      cblk[p].numel = m * w;
      st = block_tensor(ctx, dt, cblk[p].numel, &cblk[p].t);
    }
    if (st != VNCL_OK) break;
    st = vncl_gemm_cl(
        ctx, dt, VNCL_COL_MAJOR, nota ? VNCL_NO_TRANS : VNCL_TRANS,
        notb ? VNCL_NO_TRANS : VNCL_TRANS, (size_t)m, (size_t)w, (size_t)k,
        alpha, vncl_tensor_cl_mem(ablk.t), elem_offset(ablk.t, esz),
        (size_t)rows_a, vncl_tensor_cl_mem(bblk[p].t),
        elem_offset(bblk[p].t, esz), (size_t)(notb ? k : w), beta,
        vncl_tensor_cl_mem(cblk[p].t), elem_offset(cblk[p].t, esz),
        (size_t)m);
    if (st != VNCL_OK) break;
    void *dst = cdst;
    if (ldc != m && w > 1) {
      cpanel[p] = malloc((size_t)(m * w) * esz);
      if (!cpanel[p]) {
        st = VNCL_ERR_OUT_OF_MEMORY;
        break;
      }
      dst = cpanel[p];
    }
    st = vncl_tensor_read_async(cblk[p].t, dst, (size_t)(m * w) * esz, 0,
                                NULL, &rev[p]);
  }
  if (enqueued && st != VNCL_OK) vncl_finish(ctx); /* nothing left in flight */
  for (int64_t p = 0; p < panels; p++) {
    if (rev[p]) {
      vncl_status ws = vncl_event_wait(rev[p]);
      if (st == VNCL_OK) st = ws;
      vncl_event_release(rev[p]);
    }
  }
  if (st == VNCL_OK) {
    for (int64_t p = 0; p < panels; p++)
      if (cpanel[p]) {
        const int64_t j0 = p * width;
        const int64_t w = j0 + width <= n ? width : n - j0;
        unpack((char *)c + (size_t)(j0 * ldc) * esz, cpanel[p], m, w, ldc,
               esz);
      }
  } else if (backup) {
    unpack(c, backup, m, n, ldc, esz);
  }
  /* After a failure the queue was drained (vncl_finish) but a block may
   * still be in a state nobody checked: only clean calls keep theirs. */
  block_free(&ablk, st == VNCL_OK);
  for (int64_t p = 0; p < panels; p++) {
    block_free(&bblk[p], st == VNCL_OK);
    block_free(&cblk[p], st == VNCL_OK);
    free(cpanel[p]);
  }
  free(backup);
  return st;
}

const char *vb_device_errmsg(void) {
  return dev_ctx ? vncl_errmsg(dev_ctx) : vncl_errmsg(NULL);
}
