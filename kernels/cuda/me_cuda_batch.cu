/* gpumotionest — the per-context launcher of batched full searches
 * (me_cuda_batch.h). */
#include <string.h>

#include "me_cuda_batch.h"

/* Rounds of launches on the device at once: one running, one queued
 * behind it, so that frames gather into batches while the chip is busy.
 * Measured on an H200 with 256 instances against 64 (a flush launching at
 * once): 2 was the better of the two everywhere (docs/scaling.md,
 * "Batched launches"). */
#define ME_CUDA_LAUNCH_ROUNDS 2
/* Round events: more than the rounds, so that a thread still waiting on a
 * retired round's event rarely sees it recorded again. */
#define ROUND_EVENTS (ME_CUDA_LAUNCH_ROUNDS + 2)
/* Frames one round takes at most, in launches of ME_CUDA_BATCH_MAX. */
#define ROUND_FRAMES (4 * ME_CUDA_BATCH_MAX)

struct MECudaLauncher {
  void *context; /* CUcontext, compared only */
  int device;
  gint users; /* under launchers_lock; read atomically */

  GMutex lock; /* everything below */
  cudaStream_t stream;
  cudaEvent_t rounds[ROUND_EVENTS];
  guint64 launched, retired; /* rounds */
  GQueue pending;            /* MECudaBatchItem, oldest first */
};

static GMutex launchers_lock;
static GList *launchers;

/* ---- which context ------------------------------------------------------ */

/* The runtime API cannot name the current context; the driver's
 * cuCtxGetCurrent can, reached through the runtime so that the plugin
 * still loads where there is no driver.  CUresult 0 is success. */
typedef int (*CtxGetCurrent) (void **context);

static void *
current_context (void)
{
  static gsize once;
  static CtxGetCurrent get;
  if (g_once_init_enter (&once)) {
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion ("cuCtxGetCurrent", &fn, 12000,
            cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      fn = NULL;
    cudaGetLastError ();
    get = (CtxGetCurrent)fn;
    g_once_init_leave (&once, 1);
  }
  void *context = NULL;
  if (!get || get (&context) != 0)
    return NULL;
  return context;
}

static void
launcher_free (MECudaLauncher *l)
{
  if (l->stream)
    cudaStreamDestroy (l->stream);
  for (int i = 0; i < ROUND_EVENTS; i++)
    if (l->rounds[i])
      cudaEventDestroy (l->rounds[i]);
  cudaGetLastError ();
  g_mutex_clear (&l->lock);
  g_free (l);
}

MECudaLauncher *
me_cuda_launcher_acquire (int device)
{
  void *context = current_context ();
  if (!context)
    return NULL;

  g_mutex_lock (&launchers_lock);
  MECudaLauncher *l = NULL;
  for (GList *i = launchers; i; i = i->next) {
    MECudaLauncher *c = (MECudaLauncher *)i->data;
    if (c->context == context) {
      l = c;
      break;
    }
  }
  if (!l) {
    l = g_new0 (MECudaLauncher, 1);
    l->context = context;
    l->device = device;
    g_mutex_init (&l->lock);
    g_queue_init (&l->pending);
    gboolean ok =
        cudaStreamCreateWithFlags (&l->stream, cudaStreamNonBlocking) ==
        cudaSuccess;
    /* flushes sleep on these rather than spin */
    for (int i = 0; ok && i < ROUND_EVENTS; i++)
      ok = cudaEventCreateWithFlags (&l->rounds[i],
               cudaEventDisableTiming | cudaEventBlockingSync) ==
           cudaSuccess;
    if (!ok) {
      launcher_free (l);
      g_mutex_unlock (&launchers_lock);
      return NULL;
    }
    launchers = g_list_prepend (launchers, l);
  }
  g_atomic_int_inc (&l->users);
  g_mutex_unlock (&launchers_lock);
  return l;
}

void
me_cuda_launcher_release (MECudaLauncher *l)
{
  if (!l)
    return;
  g_mutex_lock (&launchers_lock);
  if (g_atomic_int_dec_and_test (&l->users)) {
    launchers = g_list_remove (launchers, l);
    /* every user flushed its frames before it let go */
    g_warn_if_fail (g_queue_is_empty (&l->pending));
    cudaStreamSynchronize (l->stream);
    launcher_free (l);
  }
  g_mutex_unlock (&launchers_lock);
}

unsigned
me_cuda_launcher_users (MECudaLauncher *l)
{
  return l ? (unsigned)g_atomic_int_get (&l->users) : 0;
}

/* ---- rounds --------------------------------------------------------------- */

static gboolean
same_setting (const MECudaBatchSetting *a, const MECudaBatchSetting *b)
{
  return memcmp (a, b, sizeof *a) == 0;
}

/* Counts the rounds the device has finished (or failed: either way no
 * longer running). */
static void
retire_rounds (MECudaLauncher *l)
{
  while (l->launched > l->retired) {
    cudaError_t e = cudaEventQuery (l->rounds[l->retired % ROUND_EVENTS]);
    if (e == cudaErrorNotReady)
      break;
    l->retired++;
  }
  /* a query's "not ready" must not be taken for a later launch's error */
  cudaGetLastError ();
}

/* One launch of key reset, search and maybe finish over n frames, then
 * each frame's `searched` event: recorded once a kernel may have been
 * queued, even when a later one failed (a key reset launched, then the
 * search refused), since the kernels that were queued write the frames'
 * keys and cells, and the slots must not reuse them before they end. */
static void
launch_batch (MECudaLauncher *l, MECudaBatchItem **items, unsigned n)
{
  const MECudaBatchSetting *s = &items[0]->setting;
  MECudaBatchFrame frames[ME_CUDA_BATCH_MAX];
  cudaError_t e = cudaSuccess;

  for (unsigned k = 0; k < n; k++) {
    frames[k] = items[k]->frame;
    if (e == cudaSuccess)
      e = cudaStreamWaitEvent (l->stream, items[k]->ready, 0);
  }
  /* from here on kernels may be on the stream */
  const gboolean queued = e == cudaSuccess;
  if (e == cudaSuccess)
    e = me_cuda_launch_key_reset_batch (frames, n, items[0]->nkeys, l->stream);
  if (e == cudaSuccess)
    e = me_cuda_launch_search_batch (frames, n, &s->g, s->range, s->range_y,
        s->partitions, s->sm_count, l->stream);
  if (e == cudaSuccess && s->finish)
    e = me_cuda_launch_finish_batch (
        frames, n, &s->g, s->partitions, s->offset_qx, l->stream);
  for (unsigned k = 0; k < n; k++) {
    MECudaBatchItem *it = items[k];
    const cudaError_t r =
        queued ? cudaEventRecord (it->searched, l->stream) : cudaSuccess;
    it->recorded = queued && r == cudaSuccess;
    it->error = e != cudaSuccess ? e : r;
    it->pending = FALSE;
  }
}

/* Launches the pending frames of `setting`, oldest first, as one round. */
static void
launch_round (MECudaLauncher *l, const MECudaBatchSetting *setting)
{
  MECudaBatchItem *items[ROUND_FRAMES];
  unsigned n = 0;
  GList *i = l->pending.head;
  while (i && n < ROUND_FRAMES) {
    GList *next = i->next;
    MECudaBatchItem *it = (MECudaBatchItem *)i->data;
    if (same_setting (&it->setting, setting)) {
      items[n++] = it;
      g_queue_delete_link (&l->pending, i);
    }
    i = next;
  }
  for (unsigned c = 0; c < n; c += ME_CUDA_BATCH_MAX)
    launch_batch (l, items + c, MIN (ME_CUDA_BATCH_MAX, n - c));
  cudaEventRecord (l->rounds[l->launched % ROUND_EVENTS], l->stream);
  cudaGetLastError ();
  l->launched++;
}

void
me_cuda_launcher_add (MECudaLauncher *l, MECudaBatchItem *item)
{
  g_mutex_lock (&l->lock);
  item->pending = TRUE;
  item->error = cudaSuccess;
  item->recorded = FALSE;
  g_queue_push_tail (&l->pending, item);
  unsigned same = 0;
  for (GList *i = l->pending.head; i; i = i->next)
    same += same_setting (&((MECudaBatchItem *)i->data)->setting,
        &item->setting);
  const unsigned target = MIN (ME_CUDA_BATCH_MAX, me_cuda_launcher_users (l));
  if (same >= target) {
    retire_rounds (l);
    if (l->launched - l->retired < ME_CUDA_LAUNCH_ROUNDS)
      launch_round (l, &item->setting);
  }
  g_mutex_unlock (&l->lock);
}

void
me_cuda_launcher_flush (MECudaLauncher *l, MECudaBatchItem *item)
{
  g_mutex_lock (&l->lock);
  while (item->pending) {
    retire_rounds (l);
    if (l->launched - l->retired < ME_CUDA_LAUNCH_ROUNDS) {
      launch_round (l, &item->setting);
      continue;
    }
    /* the device is busy: wait for its oldest round, and take what came
     * meanwhile along (unless another thread launched it first) */
    cudaEvent_t oldest = l->rounds[l->retired % ROUND_EVENTS];
    g_mutex_unlock (&l->lock);
    cudaEventSynchronize (oldest);
    cudaGetLastError ();
    g_mutex_lock (&l->lock);
  }
  g_mutex_unlock (&l->lock);
}
