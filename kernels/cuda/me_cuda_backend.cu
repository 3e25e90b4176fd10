/* gpumotionest — the CUDA backend: sessions, streaming, error reporting.
 *
 * Frames flow through SLOTS slots used round-robin, each with its own
 * stream.  submit() enqueues on the frame's slot stream: upload of the luma
 * plane (from the caller's memory when it is page-locked, else through the
 * slot's page-locked staging copy) into a device frame buffer, the border
 * fill, then, when there is a reference, the key reset, the search, the
 * prediction and the download of the cells; and returns.  collect() waits
 * for the oldest slot's last operation (sleeping, not spinning) and hands
 * its cells over.  A frame whose search goes to the context's shared
 * launcher (batches()) is the exception: the launcher searches it, and
 * collect queues the rest of it (prediction, download) behind that launch
 * before it waits (flush_batched()).
 *
 * Every call runs in the CUDA context current on the calling thread when
 * the caller asks so (MEBackendOptions.current_cuda_context: the element
 * pushes the context it shares with the pipeline); otherwise the session
 * selects its device's primary context itself.
 *
 * Device frames form a ring of SLOTS + 1 buffers: frame n lives in buffer
 * n % (SLOTS + 1) and is the reference of frame n + 1, whose stream waits
 * on the event recorded after frame n's border fill.  Buffer n % (SLOTS + 1)
 * was last read by frames n - SLOTS - 1 (as current, collected before frame
 * n can be submitted since at most SLOTS are in flight) and n - SLOTS (as
 * reference, on the same stream as frame n), so overwriting it is safe.
 *
 * The fast methods keep per-frame state beside each device frame, in the
 * same ring and by the same reasoning: `hierarchical` the frame's pyramid,
 * made right after its border fill (before the event the next frame waits
 * on) when the frame is searched with it, else by the next frame's stream
 * when that one needs it as a reference; `predictive` the frame's guide
 * winners, the next frame's temporal predictors, with an event after the
 * wavefront that the next frame's wavefront waits on.  Buffer
 * n % (SLOTS + 1) of either is read only by frame n + 1, on the stream of
 * frame n + SLOTS + 1, which writes it next.
 *
 * submit_pairs() keeps a window of the last ME_MAX_WINDOW frames in a ring
 * of RING buffers, one frame added per submission at most: a submission
 * in flight reads frames at most ME_MAX_WINDOW - 1 additions older than
 * its newest, and at most SLOTS - 1 others are in flight, so the buffer a
 * new frame overwrites was last read by a submission already collected.
 * The searches of one submission run one after the other on its slot's
 * stream, predictive's chained pair last (below).  Switching between
 * submit() and submit_pairs() waits for every stream and forgets the
 * frames, so each mode's ring arithmetic starts afresh.
 *
 * Buffers are allocated once and grown when a frame needs more; nothing is
 * allocated per frame once sizes are stable.
 *
 * Frames deeper than 8 bits live on the device as 16-bit samples
 * (me_cuda_kernels.h), and every kernel runs its 16-bit instantiation on
 * them.  A session holds frames of one depth at a time: a frame of another
 * depth than the frames held starts a new sequence, as after a reset (no
 * reference, no window, no temporal predictors); the buffers stay, grown
 * if the samples are wider, and the rings go on as they were.
 */
#include <cuda_runtime.h>
#include <string.h>

#include "me_backend.h"
#include "me_cost.h"
#include "me_rate.h"
#include "me_search.h"
#include "me_cuda_batch.h"
#include "me_cuda_host.h"
#include "me_cuda_kernels.h"
#include "me_cuda_summary.h"
#include "cpu/luma_rows.h"

#define SLOTS 8         /* most frames in flight */
#define DEFAULT_DEPTH 4 /* measured: docs/cuda-backend.md */
#define NFRAMES (SLOTS + 1)                /* ring of submit() */
#define RING (SLOTS + ME_MAX_WINDOW - 1)  /* ring of submit_pairs() */
/* submit_pairs()'s guide buffers: one per slot, then two for the chain */
static_assert (RING >= SLOTS + 2, "guide buffers of submit_pairs()");

/* Frames in flight one device takes from all the sessions of a process
 * before some of them starve: measured on an H100 with 1080p searches,
 * 128 sessions x 2 and 64 x 4 ran every stream at the same rate, 128 x 4
 * left a third of them without a frame for seconds (docs/benchmarks.md,
 * "Many streams in one process").  Sessions left at their default depth
 * share it equally (cuda_default_in_flight). */
#define DEVICE_FRAME_BUDGET 256
#define TRACKED_DEVICES 64

/* Sessions sharing a context above which their frames from host memory
 * go to the shared launcher (me_cuda_batch.h).  Measured on an H200,
 * frames from system memory, own launches against the launcher
 * (docs/scaling.md, "Batched launches"): at 32 sessions own launches kept
 * every stream going and were faster (1080p 17420 against 17098 frames/s,
 * 640x360 55257 against 36613); at 64, 128 and 256 some streams got no
 * frame for seconds with their own launches and none did with the
 * launcher (1080p, 256: 66.2 .. 69.4 frames/s each against 0 .. 78.7;
 * the 32-session figures were measured with the launcher's tails under
 * its lock, before they moved to the sessions' threads).
 * Frames in device memory always launch their own: there the launcher
 * measured slower and own launches fair. */
#define BATCH_HOST_SESSIONS 32

/* Open sessions per device, process-wide. */
static gint sessions_on_device[TRACKED_DEVICES];

/* One field a slot completes at collect. */
typedef struct {
  MEField *field;
  GstMotionVectorCell *grid[GST_MOTION_VECTOR_PARTITION_COUNT];
  gboolean has_reference;
  gboolean direct; /* cells downloaded into the field's grids; else into
                    * the slot's host_cells, at ncells x its index */
  gboolean summarized; /* its summary's core comes down with the cells */
} SlotOut;

typedef struct {
  cudaStream_t stream;
  cudaEvent_t kernel_start, kernel_end; /* timing of the kernels */
  /* the frame's last operation: collect() sleeps on it (blocking sync)
   * rather than spinning, so that many sessions sharing a GPU leave the
   * CPU to the threads that have work */
  cudaEvent_t done;

  /* page-locked staging of the frame and of the cells */
  uint8_t *stage;
  size_t stage_size;
  GstMotionVectorCell *host_cells;
  size_t host_cells_size; /* in cells */
  /* device keys and cells */
  uint64_t *keys; /* cells_size integer keys, cells_size more, then
                   * cells_size words */
  GstMotionVectorCell *cells;
  size_t cells_size; /* in cells, for keys and cells alike */
  uint8_t *hpel;     /* the reference's half-sample planes, 3 frames */
  size_t hpel_size;
  unsigned *progress; /* wavefronts' state (ME_CUDA_PROGRESS_WORDS) */
  uint32_t *visited;  /* predictive: candidates visited per macroblock */
  size_t visited_size;
  uint32_t *hier_vecs; /* hierarchical: levels 2 and 1's winners */
  size_t hier_vecs_size;
  /* the fields' summaries (me_cuda_summary.h): working memory, and each
   * output's core on the device and page-locked on the host */
  void *summary_work;
  size_t summary_work_size;
  MvsCore *summary_dev, *summary_host; /* ME_MAX_PAIRS each */
  /* the reduction's own stream, of the device's highest priority, so
   * that its one block is dispatched before the searches of the frames
   * queued behind (made at first use), and its two events */
  cudaStream_t summary_stream;
  cudaEvent_t summary_ready, summary_done;
  uint32_t *sums;      /* pruned full search: the reference's 4x4 sums */
  size_t sums_size;
  /* the frame's pruned searches: candidates costed (on the device, and
   * its page-locked copy after the last of them) against candidates in
   * their windows; esa_ran says the frame ran one */
  unsigned long long *esa_costed, *esa_costed_host;
  guint64 esa_candidates;
  gboolean esa_ran;
  gboolean full_searched; /* the frame ran a full search, pruned or not */

  /* a full search handed to the context's launcher (me_cuda_batch.h):
   * what its tail needs to queue the rest once the launcher has searched
   * it, kept here because the session goes on to other frames meanwhile */
  MECudaBatchItem item;
  cudaEvent_t batch_searched; /* the item's: after the launch */
  gboolean batched;      /* added: collect flushes it before waiting */
  gboolean tail_queued;  /* the rest queued behind batch_searched */
  MESession *session;
  MESearchParams params;
  MECudaGeometry geometry;
  unsigned f, r;         /* ring frames searched */
  size_t ncells;
  unsigned frame_depth;
  GError *tail_error;    /* the tail's own failure, for collect */

  /* the submission in flight: the fields it completes (none for a
   * reference only), all of one layout */
  SlotOut outs[ME_MAX_PAIRS];
  unsigned n_outs;
  gboolean searched; /* some field has a reference: kernels were timed */
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  size_t grid_cells[GST_MOTION_VECTOR_PARTITION_COUNT];
} Slot;

struct MESession {
  int device;
  gboolean own_device; /* FALSE: runs in the caller's current context */
  gboolean counted;    /* in sessions_on_device */
  /* the caller times frames (MEBackendOptions.stats): only then are the
   * kernels bracketed by events, two calls a frame saved otherwise */
  gboolean timed;
  /* the launcher of the session's context, shared with the other
   * sessions in it; NULL: every search launched by the session itself */
  MECudaLauncher *launcher;
  gboolean batch_device_frames; /* frames in device memory too */
  /* MEBackendOptions.exhaustive and .prune: which full search runs
   * (use_esa()) */
  gboolean exhaustive;
  MEPrune prune;
  int sm_count;
  char device_name[256];
  unsigned depth;

  Slot slots[SLOTS];
  /* buffers in use: NFRAMES for submit(), RING for submit_pairs() */
  unsigned nframes;
  uint8_t *frames[RING];
  cudaEvent_t frame_ready[RING];
  unsigned frame_w[RING], frame_h[RING]; /* of the frame each holds */
  size_t frame_size; /* bytes allocated per device frame */
  /* submit_pairs(): the buffer of the newest frame, frames in the window */
  gboolean pairs_mode;
  unsigned newest, win_count;

  /* hierarchical: levels 1 and 2 of each device frame, valid when made
   * from the frame now in that buffer */
  uint8_t *pyramids[RING];
  gboolean pyramid_ok[RING];
  size_t pyramid_size;
  /* predictive: guide winners and the event after the wavefront that
   * wrote them.  submit(): those of each device frame's search, the next
   * frame's temporal predictors when temporal_ok (that frame was searched
   * with predictive) on the same macroblock grid.  submit_pairs(): the
   * guide words belong to searches, not to frames (a frame may be the
   * target of searches in several submissions in flight): buffer i <
   * SLOTS is slot i's, for its searches that pass nothing on, and
   * buffers SLOTS and SLOTS + 1 take the chained searches (reference =
   * target + 1) in turn, chain_buf the one of the last, which holds the
   * temporal predictors as the CPU's session does. */
  uint64_t *guides[RING];
  cudaEvent_t guide_ready[RING];
  size_t guide_size; /* in macroblocks */
  uint32_t epoch;    /* tag of the guide words of the last predictive frame */
  gboolean temporal_ok;
  unsigned temporal_cols, temporal_rows;
  unsigned chain_buf;            /* 0 or 1: guides[SLOTS + chain_buf] */
  unsigned guide_out, guide_in;  /* the buffers of the next search */

  guint64 submitted, collected;
  gboolean have_ref; /* the last frame submitted can be a reference */
  unsigned ref_width, ref_height;
  /* bits per sample of the frames held (8 for 8-bit frames): every frame
   * in the rings that a search may read is of this depth */
  unsigned frame_depth;

  double last_ms; /* of the frame collected last; < 0: none */
  /* the pruned search's fallback (use_esa()): the frames collected last
   * that ran it skipped too few candidates, and the share skipped of the
   * frame collected last (< 0: no full search) */
  gboolean esa_poor;
  double last_pruned_share;
};

/* ---- errors ------------------------------------------------------------- */

static gboolean
check (cudaError_t e, const char *what, GError **error)
{
  if (e == cudaSuccess)
    return TRUE;
  cudaGetLastError (); /* clear it if it is not sticky */
  g_set_error (error, ME_BACKEND_ERROR,
      e == cudaErrorMemoryAllocation ? ME_BACKEND_ERROR_NO_MEMORY
                                     : ME_BACKEND_ERROR_DEVICE,
      "CUDA: %s failed: %s (%s)", what, cudaGetErrorName (e),
      cudaGetErrorString (e));
  return FALSE;
}

#define CHECK(call, what) \
  G_STMT_START \
  { \
    if (!check ((call), (what), error)) \
      return FALSE; \
  } \
  G_STMT_END

/* The session's device made current, unless the caller makes its own
 * context current around every call (MEBackendOptions.current_cuda_context):
 * cudaSetDevice() would replace that context with the device's primary
 * one. */
static cudaError_t
select_device (MESession *s)
{
  return s->own_device ? cudaSetDevice (s->device) : cudaSuccess;
}

static gboolean
device_alloc (void **ptr, size_t size, const char *what, GError **error)
{
  cudaError_t e = cudaMalloc (ptr, size);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError ();
    *ptr = NULL;
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_NO_MEMORY,
        "CUDA: out of device memory allocating %s (%.1f MiB)", what,
        size / 1048576.0);
    return FALSE;
  }
  return check (e, "cudaMalloc", error);
}

static gboolean
host_alloc (void **ptr, size_t size, const char *what, GError **error)
{
  cudaError_t e = cudaHostAlloc (ptr, size, cudaHostAllocDefault);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError ();
    *ptr = NULL;
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_NO_MEMORY,
        "CUDA: out of page-locked host memory allocating %s (%.1f MiB)", what,
        size / 1048576.0);
    return FALSE;
  }
  return check (e, "cudaHostAlloc", error);
}

/* ---- session ------------------------------------------------------------ */

static void flush_batched (Slot *sl);

static void
wait_all (MESession *s)
{
  for (int i = 0; i < SLOTS; i++)
    flush_batched (&s->slots[i]);
  for (int i = 0; i < SLOTS; i++)
    if (s->slots[i].stream)
      cudaStreamSynchronize (s->slots[i].stream);
  cudaGetLastError ();
}

static void
free_frames (MESession *s)
{
  for (int i = 0; i < RING; i++)
    g_clear_pointer (&s->frames[i], cudaFree);
  s->frame_size = 0;
}

static void
free_fast_state (MESession *s)
{
  for (int i = 0; i < RING; i++) {
    g_clear_pointer (&s->pyramids[i], cudaFree);
    g_clear_pointer (&s->guides[i], cudaFree);
    s->pyramid_ok[i] = FALSE;
  }
  s->pyramid_size = 0;
  s->guide_size = 0;
  s->temporal_ok = FALSE;
}

static void
cuda_close (MESession *s)
{
  if (!s)
    return;
  if (s->counted)
    g_atomic_int_add (&sessions_on_device[s->device], -1);
  select_device (s);
  wait_all (s);
  me_cuda_launcher_release (s->launcher);
  s->launcher = NULL;
  free_frames (s);
  free_fast_state (s);
  for (int i = 0; i < RING; i++) {
    if (s->frame_ready[i])
      cudaEventDestroy (s->frame_ready[i]);
    if (s->guide_ready[i])
      cudaEventDestroy (s->guide_ready[i]);
  }
  for (int i = 0; i < SLOTS; i++) {
    Slot *sl = &s->slots[i];
    cudaFreeHost (sl->stage);
    cudaFreeHost (sl->host_cells);
    cudaFree (sl->keys);
    cudaFree (sl->cells);
    cudaFree (sl->hpel);
    cudaFree (sl->progress);
    cudaFree (sl->visited);
    cudaFree (sl->hier_vecs);
    cudaFree (sl->summary_work);
    cudaFree (sl->summary_dev);
    cudaFreeHost (sl->summary_host);
    if (sl->summary_ready)
      cudaEventDestroy (sl->summary_ready);
    if (sl->summary_done)
      cudaEventDestroy (sl->summary_done);
    if (sl->summary_stream)
      cudaStreamDestroy (sl->summary_stream);
    cudaFree (sl->sums);
    cudaFree (sl->esa_costed);
    cudaFreeHost (sl->esa_costed_host);
    if (sl->kernel_start)
      cudaEventDestroy (sl->kernel_start);
    if (sl->kernel_end)
      cudaEventDestroy (sl->kernel_end);
    if (sl->done)
      cudaEventDestroy (sl->done);
    if (sl->batch_searched)
      cudaEventDestroy (sl->batch_searched);
    if (sl->stream)
      cudaStreamDestroy (sl->stream);
    g_clear_error (&sl->tail_error);
  }
  cudaGetLastError ();
  g_free (s);
}

extern "C" cudaError_t me_cuda_kernels_check (void);

static gboolean
open_device (MESession *s, int device, GError **error)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError ();
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNAVAILABLE,
        "no usable CUDA device: %s (%s)",
        e != cudaSuccess ? cudaGetErrorName (e) : "cudaErrorNoDevice",
        e != cudaSuccess ? cudaGetErrorString (e) : "no device found");
    return FALSE;
  }
  if (device >= count) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNAVAILABLE,
        "CUDA device %d requested, but only %d present", device, count);
    return FALSE;
  }
  s->device = device;
  e = select_device (s);
  cudaDeviceProp prop;
  if (e == cudaSuccess)
    e = cudaGetDeviceProperties (&prop, device);
  if (e == cudaSuccess)
    e = me_cuda_kernels_check ();
  if (e == cudaErrorNoKernelImageForDevice ||
      e == cudaErrorUnsupportedPtxVersion || e == cudaErrorInvalidPtx) {
    /* The build has neither machine code for this chip nor PTX its driver
     * can compile: say which chip and which build, and how to fix it. */
    cudaGetLastError ();
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNAVAILABLE,
        "CUDA device %d (%s, compute capability %d.%d) cannot run this "
        "build's kernels, built for %s: %s; rebuild with -Dgpu_arch=%d%d",
        device, prop.name, prop.major, prop.minor, ME_CUDA_BUILD_ARCHS,
        cudaGetErrorName (e), prop.major, prop.minor);
    return FALSE;
  }
  if (e != cudaSuccess) {
    cudaGetLastError ();
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNAVAILABLE,
        "CUDA device %d is not usable: %s (%s)", device, cudaGetErrorName (e),
        cudaGetErrorString (e));
    return FALSE;
  }
  s->sm_count = prop.multiProcessorCount;
  g_strlcpy (s->device_name, prop.name, sizeof (s->device_name));
  return TRUE;
}

static MESession *
cuda_open (const MEBackendOptions *options, GError **error)
{
  MESession *s = g_new0 (MESession, 1);
  int device = options->device;
  s->depth = DEFAULT_DEPTH;
  s->nframes = NFRAMES;
  s->frame_depth = 8;
  s->last_pruned_share = -1;
  s->own_device = !options->current_cuda_context;
  s->timed = options->stats != NULL;
  s->exhaustive = options->exhaustive;
  s->prune = options->prune;
  if (!s->own_device) {
    /* the device of the caller's context */
    if (cudaGetDevice (&device) != cudaSuccess) {
      cudaGetLastError ();
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNAVAILABLE,
          "no current CUDA context to run in");
      g_free (s);
      return NULL;
    }
  }
  if (!open_device (s, device < 0 ? 0 : device, error)) {
    g_free (s);
    return NULL;
  }
  for (int i = 0; i < SLOTS; i++) {
    Slot *sl = &s->slots[i];
    if (!check (cudaStreamCreateWithFlags (&sl->stream, cudaStreamNonBlocking),
            "cudaStreamCreate", error) ||
        !check (
            cudaEventCreate (&sl->kernel_start), "cudaEventCreate", error) ||
        !check (cudaEventCreate (&sl->kernel_end), "cudaEventCreate", error) ||
        !check (cudaEventCreateWithFlags (&sl->done,
                    cudaEventBlockingSync | cudaEventDisableTiming),
            "cudaEventCreate", error) ||
        !check (cudaEventCreateWithFlags (
                    &sl->batch_searched, cudaEventDisableTiming),
            "cudaEventCreate", error))
      goto fail;
  }
  for (int i = 0; i < RING; i++)
    if (!check (cudaEventCreateWithFlags (
                    &s->frame_ready[i], cudaEventDisableTiming),
            "cudaEventCreate", error) ||
        !check (cudaEventCreateWithFlags (
                    &s->guide_ready[i], cudaEventDisableTiming),
            "cudaEventCreate", error))
      goto fail;
  if (s->device < TRACKED_DEVICES) {
    g_atomic_int_inc (&sessions_on_device[s->device]);
    s->counted = TRUE;
  }
  /* Which frames go to the context's shared launcher (batches()),
   * options->cuda_launch: by default those from host memory once more
   * than BATCH_HOST_SESSIONS sessions share it; SHARED every frame of two
   * sessions or more; OWN none (the session does not join it). */
  s->batch_device_frames = options->cuda_launch == ME_CUDA_LAUNCH_SHARED;
  if (options->cuda_launch != ME_CUDA_LAUNCH_OWN)
    s->launcher = me_cuda_launcher_acquire (s->device);
  return s;

fail:
  cuda_close (s);
  return NULL;
}

static unsigned
cuda_max_in_flight (MESession *s G_GNUC_UNUSED)
{
  return SLOTS;
}

/* With the rate decision a frame spends most of its time in the ordered
 * chain, which keeps few multiprocessors busy: the other frames in flight
 * fill the chip meanwhile, so the gain goes on up to the most slots
 * (docs/rate.md, "Frames in flight").  The summary's reduction is such a
 * tail too, one block long: 1080p R = 16 on an H100 gave 10,107 frames/s
 * with it at depth 4 and 11,711 at 8 (docs/summary.md, "On the GPU"). */
static unsigned
cuda_own_default_in_flight (const MESearchParams *params)
{
  return params && (params->lambda || params->summary) ? SLOTS
                                                        : DEFAULT_DEPTH;
}

/* The session's own best depth, or its equal share of the device's budget
 * when that is smaller: the share changes as sessions open and close, and
 * the element asks again at every frame (and drains to the new depth). */
static unsigned
cuda_default_in_flight (MESession *s, const MESearchParams *params)
{
  unsigned own = cuda_own_default_in_flight (params);
  int n = s && s->counted ? g_atomic_int_get (&sessions_on_device[s->device])
                          : 1;
  unsigned share = DEVICE_FRAME_BUDGET / (unsigned) MAX (n, 1);

  return CLAMP (share, 1, own);
}

static void
cuda_set_in_flight (MESession *s, unsigned depth)
{
  s->depth = CLAMP (depth, 1, SLOTS);
}

/* Device frames big enough for `g`.  Growing them drops the reference: the
 * size changed, so there is none anyway. */
static gboolean
ensure_frames (MESession *s, const MECudaGeometry *g, GError **error)
{
  const size_t need = me_cuda_frame_bytes (g);
  const size_t size = MAX (need, s->frame_size);
  if (need > s->frame_size) {
    wait_all (s);
    free_frames (s);
    s->have_ref = FALSE;
    s->win_count = 0;
  }
  /* the buffers of the ring in use that are not there yet */
  for (unsigned i = 0; i < s->nframes; i++) {
    if (!s->frames[i] &&
        !device_alloc ((void **)&s->frames[i], size, "a frame buffer", error)) {
      g_prefix_error (error, "frame of %ux%u: ", g->width, g->height);
      free_frames (s);
      s->have_ref = FALSE;
      s->win_count = 0;
      return FALSE;
    }
  }
  s->frame_size = size;
  return TRUE;
}

/* Pyramids for frames of geometry `g` (hierarchical).  Growing them waits
 * for the frames in flight and forgets every pyramid. */
static gboolean
ensure_pyramids (MESession *s, const MECudaGeometry *g, GError **error)
{
  MECudaPyramid layout;
  me_cuda_pyramid_init (&layout, g);
  const size_t need = me_cuda_pyramid_bytes (&layout);
  if (need > s->pyramid_size) {
    wait_all (s);
    for (int i = 0; i < RING; i++) {
      g_clear_pointer (&s->pyramids[i], cudaFree);
      s->pyramid_ok[i] = FALSE;
    }
    s->pyramid_size = need;
  }
  for (unsigned i = 0; i < s->nframes; i++) {
    if (s->pyramids[i])
      continue;
    s->pyramid_ok[i] = FALSE;
    if (!device_alloc ((void **)&s->pyramids[i], s->pyramid_size, "a pyramid",
            error))
      return FALSE;
  }
  return TRUE;
}

/* Every guide word's tag set to 0, which no frame uses, once nothing is in
 * flight; the vectors stay (the next frame's temporal predictors); the
 * next frame is tagged 1. */
static gboolean
clear_guides (MESession *s, GError **error)
{
  wait_all (s);
  for (int i = 0; i < RING; i++)
    if (s->guides[i])
      CHECK (cudaMemset2D ((uint8_t *)s->guides[i] + 4, sizeof (uint64_t), 0,
                 4, s->guide_size),
          "cudaMemset2D");
  /* the legacy stream does not order the slots' streams: wait here */
  CHECK (cudaDeviceSynchronize (), "cudaDeviceSynchronize");
  s->epoch = 0;
  return TRUE;
}

/* Guide winners for `n` macroblocks per frame (predictive).  Growing them
 * waits for the frames in flight; the grid changed, so there are no
 * temporal predictors. */
static gboolean
ensure_guides (MESession *s, size_t n, GError **error)
{
  gboolean missing = FALSE;
  for (unsigned i = 0; i < s->nframes; i++)
    missing |= s->guides[i] == NULL;
  if (n <= s->guide_size && !missing)
    return TRUE;
  wait_all (s);
  if (n > s->guide_size) {
    for (int i = 0; i < RING; i++)
      g_clear_pointer (&s->guides[i], cudaFree);
    s->temporal_ok = FALSE;
  } else {
    n = s->guide_size;
  }
  s->guide_size = 0;
  for (unsigned i = 0; i < s->nframes; i++)
    if (!s->guides[i] && !device_alloc ((void **)&s->guides[i],
                             n * sizeof (uint64_t), "guide winners", error))
      return FALSE;
  s->guide_size = n;
  if (!clear_guides (s, error)) {
    /* not all tags cleared: cleared again, from allocation, next time */
    s->guide_size = 0;
    return FALSE;
  }
  return TRUE;
}

/* A slot's buffer of at least `need` bytes, grown (not kept) when smaller:
 * the slot's last frame was collected, so its stream is idle. */
static gboolean
ensure_buffer (void **buf, size_t *size, size_t need, const char *what,
    GError **error)
{
  if (need <= *size)
    return TRUE;
  g_clear_pointer (buf, cudaFree);
  *size = 0;
  if (!device_alloc (buf, need, what, error))
    return FALSE;
  *size = need;
  return TRUE;
}

static gboolean
ensure_progress (Slot *sl, GError **error)
{
  return sl->progress ||
         device_alloc ((void **)&sl->progress,
             ME_CUDA_PROGRESS_WORDS * sizeof (unsigned), "wavefront state",
             error);
}

/* Bytes per device sample of frames of `depth` bits (me_plane_depth()). */
static unsigned
depth_bps (unsigned depth)
{
  return depth > 8 ? 2 : 1;
}

/* Whether the full search of `params` runs pruned (me_cuda_esa.cu), by the
 * rule measured on an H200 at 1080p and 2160p (docs/elimination.md, "Which
 * search runs"): the plain kernel's packed byte SADs cost a candidate less
 * than the pruned kernel's bound test does, so 8-bit frames never prune;
 * for deeper samples, whose plain SAD takes four times as long, the pruned
 * kernel is faster on real footage for 16x16 alone from R = 32 (1.6x, up
 * to 2.8x at R = 256) and for other shape sets from R = 128 (1.1x, 1.5x at
 * R = 256).  On content where little can be skipped (noise: 0.43x at
 * 16x16, 0.75x for every shape) it is slower, so once a frame collected
 * has skipped less than ME_CUDA_ESA_MIN_SKIP of its candidates the
 * session searches plain, pruning every ME_CUDA_ESA_PROBE-th frame to see
 * whether the content has changed.  Both kernels give the same result: the
 * rule moves time only.  A pruned search launches on its session's own
 * stream, never through the shared launcher's batches. */
#define ME_CUDA_ESA_MIN_RANGE_16X16 32
#define ME_CUDA_ESA_MIN_RANGE_SHAPES 128
#define ME_CUDA_ESA_MIN_SKIP 0.5
#define ME_CUDA_ESA_PROBE 16

static gboolean
use_esa (const MESession *s, const MESearchParams *params)
{
  if (params->method != GST_MOTION_VECTOR_METHOD_FULL || s->exhaustive)
    return FALSE;
  if (s->prune == ME_PRUNE_ALWAYS)
    return TRUE;
  if (depth_bps (s->frame_depth) == 1)
    return FALSE;
  if (params->search_range <
      (params->partitions == GST_MOTION_VECTOR_PARTITIONS_16X16
              ? ME_CUDA_ESA_MIN_RANGE_16X16
              : ME_CUDA_ESA_MIN_RANGE_SHAPES))
    return FALSE;
  /* s->submitted: the frame being submitted, the same for every search
   * of it */
  return !s->esa_poor || s->submitted % ME_CUDA_ESA_PROBE == 0;
}

/* Stages 1 and 2 of frame ring[f] against ring[prev]: the method's integer
 * winner keys, every cell of every requested grid, into sl->keys. */
static gboolean
search_integer (MESession *s, Slot *sl, const MECudaGeometry *g,
    const MESearchParams *params, unsigned f, unsigned prev, size_t ncells,
    GError **error)
{
  const uint8_t *cur = s->frames[f], *ref = s->frames[prev];
  const unsigned parts = params->partitions;
  const unsigned range = params->search_range;
  cudaStream_t st = sl->stream;

  switch (params->method) {
  case GST_MOTION_VECTOR_METHOD_MODS:
    CHECK (cudaMemsetAsync (sl->keys, 0xff, ncells * 8, st), "key reset");
    CHECK (me_cuda_launch_mods (cur, ref, g, range, parts, sl->keys, st),
        "mods kernel");
    return TRUE;
  case GST_MOTION_VECTOR_METHOD_HIERARCHICAL:
    /* the reference's pyramid, unless it was searched with this method */
    if (!s->pyramid_ok[prev]) {
      CHECK (me_cuda_launch_pyramid (ref, s->pyramids[prev], g, st),
          "pyramid kernel");
      s->pyramid_ok[prev] = TRUE;
    }
    if (!ensure_buffer ((void **)&sl->hier_vecs, &sl->hier_vecs_size,
            me_cuda_hier_vecs_bytes (g), "hierarchical levels", error))
      return FALSE;
    CHECK (me_cuda_launch_hier (cur, ref, s->pyramids[f], s->pyramids[prev],
               g, range, parts, sl->keys, sl->hier_vecs, st),
        "hierarchical kernel");
    return TRUE;
  case GST_MOTION_VECTOR_METHOD_PREDICTIVE: {
    /* the guide words this search writes and the temporal predictors it
     * reads (s->guide_out, s->guide_in: set by the caller) */
    const unsigned out = s->guide_out, in = s->guide_in;
    const gboolean temporal = s->temporal_ok &&
                              s->temporal_cols == g->mb_cols &&
                              s->temporal_rows == g->mb_rows;
    if (!ensure_progress (sl, error))
      return FALSE;
    if (parts != GST_MOTION_VECTOR_PARTITIONS_16X16 &&
        !ensure_buffer ((void **)&sl->visited, &sl->visited_size,
            me_cuda_pred_visited_bytes (g), "visited candidates", error))
      return FALSE;
    /* the coarse predictors: hierarchical's level 2 over both pyramids
     * (the current frame's made with it, the reference's here unless it
     * was searched with a pyramid too) */
    if (!s->pyramid_ok[prev]) {
      CHECK (me_cuda_launch_pyramid (ref, s->pyramids[prev], g, st),
          "pyramid kernel");
      s->pyramid_ok[prev] = TRUE;
    }
    if (!ensure_buffer ((void **)&sl->hier_vecs, &sl->hier_vecs_size,
            me_cuda_hier_vecs_bytes (g), "coarse predictors", error))
      return FALSE;
    CHECK (me_cuda_launch_coarse (s->pyramids[f], s->pyramids[prev], g,
               range, sl->hier_vecs, st),
        "coarse predictor kernel");
    /* the wavefront that wrote the temporal predictors */
    if (temporal)
      CHECK (cudaStreamWaitEvent (st, s->guide_ready[in], 0),
          "cudaStreamWaitEvent");
    /* a new tag for every search (the words in guides[out] carry an older
     * search's or 0); after 2^32 searches, tags start over from cleared
     * words */
    if (s->epoch == G_MAXUINT32 && !clear_guides (s, error))
      return FALSE;
    s->epoch++;
    CHECK (me_cuda_launch_pred (cur, ref, g, range, parts, sl->keys,
               s->guides[out], temporal ? s->guides[in] : NULL,
               sl->hier_vecs, s->epoch, sl->visited, sl->progress, st),
        "predictive kernel");
    CHECK (cudaEventRecord (s->guide_ready[out], st), "cudaEventRecord");
    return TRUE;
  }
  default:
    CHECK (cudaMemsetAsync (sl->keys, 0xff, ncells * 8, st), "key reset");
    sl->full_searched = TRUE;
    if (use_esa (s, params)) {
      /* the reference's sums, then the pruned search (the sums are made
       * for each search: a frame searched against several references
       * makes each one's) */
      if (!ensure_buffer ((void **)&sl->sums, &sl->sums_size,
              me_cuda_sums_bytes (g), "block sums", error))
        return FALSE;
      if (!sl->esa_costed) {
        if (!device_alloc ((void **)&sl->esa_costed, sizeof (*sl->esa_costed),
                "pruned search count", error))
          return FALSE;
        CHECK (cudaMallocHost ((void **)&sl->esa_costed_host,
                   sizeof (*sl->esa_costed_host)),
            "cudaMallocHost (pruned search count)");
      }
      if (!sl->esa_ran) {
        CHECK (cudaMemsetAsync (sl->esa_costed, 0, sizeof (*sl->esa_costed),
                   st),
            "pruned search count reset");
        sl->esa_ran = TRUE;
        sl->esa_candidates = 0;
      }
      const unsigned range_y = me_search_range_y (params);
      sl->esa_candidates += (guint64)g->mb_cols * g->mb_rows *
                            (2 * range + 1) * (2 * range_y + 1);
      CHECK (me_cuda_launch_sums4 (ref, g, sl->sums, st), "block sums kernel");
      CHECK (me_cuda_launch_search_esa (cur, ref, sl->sums, params->offset_x,
                 g, range, range_y, parts, sl->keys, sl->esa_costed, st),
          "pruned search kernel");
      /* the count so far to the host: the frame's last copy is the total */
      CHECK (cudaMemcpyAsync (sl->esa_costed_host, sl->esa_costed,
                 sizeof (*sl->esa_costed), cudaMemcpyDeviceToHost, st),
          "pruned search count download");
      return TRUE;
    }
    /* a window off centre: the reference read from its centre */
    CHECK (me_cuda_launch_search (cur,
               ref + (ptrdiff_t)params->offset_x * (ptrdiff_t)g->bps, g, range,
               me_search_range_y (params), parts, sl->keys, s->sm_count, st),
        "search kernel");
    return TRUE;
  }
}

static gboolean
ensure_slot (Slot *sl, size_t stage, size_t cells, size_t host_cells,
    GError **error)
{
  if (stage > sl->stage_size) {
    g_clear_pointer (&sl->stage, cudaFreeHost);
    sl->stage_size = 0;
    if (!host_alloc ((void **)&sl->stage, stage, "frame staging", error))
      return FALSE;
    sl->stage_size = stage;
  }
  if (host_cells > sl->host_cells_size) {
    g_clear_pointer (&sl->host_cells, cudaFreeHost);
    sl->host_cells_size = 0;
    if (!host_alloc (
            (void **)&sl->host_cells, host_cells * 16, "result cells", error))
      return FALSE;
    sl->host_cells_size = host_cells;
  }
  if (cells > sl->cells_size) {
    g_clear_pointer (&sl->keys, cudaFree);
    g_clear_pointer (&sl->cells, cudaFree);
    sl->cells_size = 0;
    /* two sets of keys: the integer winners, and stage 3's when it keeps
     * them (lambda); then a word per cell for the rate decision */
    if (!device_alloc ((void **)&sl->keys, cells * 20, "search keys", error) ||
        !device_alloc ((void **)&sl->cells, cells * 16, "result cells", error))
      return FALSE;
    sl->cells_size = cells;
  }
  return TRUE;
}

/* Whether another frame may be submitted, and the device selected. */
static gboolean
begin_submit (MESession *s, GError **error)
{
  if (s->submitted - s->collected >= s->depth) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "%u frame(s) already in flight: collect one first", s->depth);
    return FALSE;
  }
  CHECK (select_device (s), "cudaSetDevice");
  return TRUE;
}

/* A frame of another depth than the frames held starts a new sequence: the
 * references are forgotten, as a reset forgets them.  Nothing in flight is
 * waited for: the rings' arithmetic, which the depth does not change, keeps
 * every buffer a frame in flight reads from being overwritten, and buffers
 * that must grow for wider samples wait for the streams themselves. */
static void
take_depth (MESession *s, const MEPlane *luma)
{
  const unsigned depth = me_plane_depth (luma);
  if (depth == s->frame_depth)
    return;
  s->frame_depth = depth;
  s->have_ref = FALSE;
  s->temporal_ok = FALSE;
  s->win_count = 0;
  for (int i = 0; i < RING; i++)
    s->pyramid_ok[i] = FALSE;
}

/* One row of `luma` into `dst`: copied from a plane (its 16-bit words as
 * they are, for a frame deeper than 8 bits), picked from packed 4:2:2,
 * derived from RGB by the rule of luma_rules.h, the very bytes the CPU
 * backend's DSP routines give. */
static void
stage_row (uint8_t *dst, const MEPlane *luma, unsigned y)
{
  const uint8_t *s = luma->data + (size_t)y * luma->stride;
  const unsigned w = luma->width;
  switch (luma->kind) {
  case ME_LUMA_PACKED:
  case ME_LUMA_RGB:
    /* the CPU backend's SIMD rows (the same rule, checked by checkasm) */
    me_luma_row (dst, luma, y);
    break;
  case ME_LUMA_PLANE:
  default:
    memcpy (dst, s, (size_t)w * depth_bps (me_plane_depth (luma)));
    break;
  }
}

/* Enqueues the upload of `luma` into device frame `cur` and its border
 * fill on the slot's stream.  A plane in device memory or page-locked host
 * memory is copied as it is; anything else through the slot's staging
 * copy, so that the caller's memory is no longer read when this returns.
 * Packed and RGB frames always take the staging copy, even when
 * page-locked: the conversion to 8-bit luma happens in it, so a quarter
 * (RGB) or half (4:2:2) of the bytes cross the bus and no kernel of its
 * own is needed.
 *
 * A frame deeper than 8 bits (g->bps 2) is converted on the device: its
 * words cross the bus as they are, into the plane of the device frame,
 * and me_cuda_launch_import16() shifts and masks them there in place; a
 * frame in device memory is read by that kernel straight from where it
 * lies.  Not on the host, because a page-locked frame is copied by DMA
 * with no host pass at all, which a conversion would take away (and the
 * staging copy of other frames stays a plain memcpy); on the device it is
 * one pass over the plane, the same kernel for host and device frames. */
static gboolean
upload_frame (Slot *sl, const MEPlane *luma, const MECudaGeometry *g,
    uint8_t *cur, GError **error)
{
  const gboolean deep = g->bps == 2;
  const size_t row_bytes = (size_t)g->width * g->bps;
  uint8_t *plane = cur + ME_CUDA_PAD * g->pitch + ME_CUDA_PAD * g->bps;
  const gboolean src_direct = luma->kind == ME_LUMA_PLANE &&
      (luma->on_device || me_cuda_host_is_pinned (luma->data));

  if (deep && luma->on_device) {
    CHECK (me_cuda_launch_import16 (cur, g, luma->data, luma->stride,
               luma->shift, me_plane_depth (luma), sl->stream),
        "sample conversion kernel");
    CHECK (me_cuda_launch_pad (cur, g, sl->stream), "border fill kernel");
    return TRUE;
  }
  if (!ensure_slot (
          sl, src_direct ? 0 : row_bytes * g->height, 0, 0, error))
    return FALSE;
  const uint8_t *src = luma->data;
  size_t spitch = luma->stride;
  if (!src_direct) {
    for (unsigned y = 0; y < g->height; y++)
      stage_row (sl->stage + (size_t)y * row_bytes, luma, y);
    src = sl->stage;
    spitch = row_bytes;
  }
  CHECK (cudaMemcpy2DAsync (plane, g->pitch, src, spitch, row_bytes,
             g->height,
             luma->on_device ? cudaMemcpyDeviceToDevice
                             : cudaMemcpyHostToDevice,
             sl->stream),
      "frame upload");
  if (deep)
    CHECK (me_cuda_launch_import16 (cur, g, plane, g->pitch, luma->shift,
               me_plane_depth (luma), sl->stream),
        "sample conversion kernel");
  CHECK (me_cuda_launch_pad (cur, g, sl->stream), "border fill kernel");
  return TRUE;
}

/* The frame becomes the reference of the next one (its size, no temporal
 * predictors unless the caller says so) and counts as submitted. */
static void
end_submit (MESession *s, const MECudaGeometry *g, gboolean temporal_ok)
{
  s->temporal_ok = temporal_ok;
  s->temporal_cols = g->mb_cols;
  s->temporal_rows = g->mb_rows;
  s->have_ref = TRUE;
  s->ref_width = g->width;
  s->ref_height = g->height;
  s->submitted++;
}

/* A submit that failed after it queued work on the slot's stream (an
 * allocation that failed after the upload, a launch error) waits for that
 * work: the caller's frame is then no longer read, and the slot, which the
 * next submit takes again, is idle. */
static gboolean
abandon_slot (Slot *sl)
{
  cudaStreamSynchronize (sl->stream);
  return FALSE;
}

/* The slot's layout for fields of geometry `g` and shapes `parts`, and
 * its outputs cleared: returns the cells of one field. */
static size_t
slot_layout (Slot *sl, const MECudaGeometry *g, unsigned parts)
{
  const size_t ncells = gst_motion_vector_grid_offsets (
      (GstMotionVectorPartitionFlags)parts, g->mb_cols, g->mb_rows,
      sl->offsets);
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    sl->grid_cells[p] = (parts & (1u << p))
        ? (size_t)gst_motion_vector_grid_cols (
              (GstMotionVectorPartition)p, g->mb_cols) *
            gst_motion_vector_grid_rows ((GstMotionVectorPartition)p,
                g->mb_rows)
        : 0;
  sl->n_outs = 0;
  sl->searched = FALSE;
  return ncells;
}

/* Adds `field` to the slot's outputs. */
static SlotOut *
slot_add_out (Slot *sl, MEField *field, unsigned parts, gboolean has_reference)
{
  SlotOut *o = &sl->outs[sl->n_outs++];
  o->field = field;
  o->has_reference = has_reference;
  o->summarized = FALSE;
  o->direct = TRUE;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    o->grid[p] = (parts & (1u << p)) ? field->grid[p] : NULL;
    if (o->grid[p] && !me_cuda_host_is_pinned (o->grid[p]))
      o->direct = FALSE;
  }
  return o;
}

/* The buffers stage 3 of a search with `params` writes, grown to `g`. */
static gboolean
prepare_stage3 (Slot *sl, const MECudaGeometry *g, const MESearchParams *params,
    GError **error)
{
  if (!me_search_refines (params))
    return TRUE;
  const size_t hp = 3 * me_cuda_frame_bytes (g);
  if (params->refine != ME_REFINE_NONE && hp > sl->hpel_size) {
    g_clear_pointer (&sl->hpel, cudaFree);
    sl->hpel_size = 0;
    if (!device_alloc ((void **)&sl->hpel, hp, "half-sample planes", error))
      return FALSE;
    sl->hpel_size = hp;
  }
  return !params->lambda || ensure_progress (sl, error);
}

/* Enqueues on the slot's stream the reduction of output k's field to its
 * summary's core (MEField.summary), from the coarsest of the cells just
 * made, and its download. */
static gboolean
enqueue_summary (Slot *sl, const MECudaGeometry *g, unsigned parts,
    unsigned k, unsigned depth, GError **error)
{
  SlotOut *o = &sl->outs[k];
  int p = 0;
  while (!(parts & (1u << p)))
    p++;
  const GstMotionVectorPartition part = (GstMotionVectorPartition)p;
  const unsigned cols = gst_motion_vector_grid_cols (part, g->mb_cols);
  const unsigned rows = gst_motion_vector_grid_rows (part, g->mb_rows);
  MvsGeometry geo;
  /* the meta gpumotionest attaches: analysed at the frame's size */
  mvs_geometry_init (&geo, cols, rows, gst_motion_vector_partition_width (part),
      gst_motion_vector_partition_height (part), g->width, g->height,
      g->width, g->height, depth);

  if (!ensure_buffer (&sl->summary_work, &sl->summary_work_size,
          me_cuda_summary_scratch_bytes ((size_t)cols * rows),
          "summary working memory", error))
    return FALSE;
  if (!sl->summary_dev &&
      !device_alloc ((void **)&sl->summary_dev,
          ME_MAX_PAIRS * sizeof (MvsCore), "summaries", error))
    return FALSE;
  if (!sl->summary_host) {
    cudaError_t e = cudaMallocHost ((void **)&sl->summary_host,
        ME_MAX_PAIRS * sizeof (MvsCore));
    if (e != cudaSuccess) {
      sl->summary_host = NULL;
      return check (e, "cudaMallocHost (summaries)", error);
    }
  }
  if (!sl->summary_stream) {
    int least, greatest;
    CHECK (cudaDeviceGetStreamPriorityRange (&least, &greatest),
        "cudaDeviceGetStreamPriorityRange");
    CHECK (cudaEventCreateWithFlags (&sl->summary_ready,
               cudaEventDisableTiming), "cudaEventCreate");
    CHECK (cudaEventCreateWithFlags (&sl->summary_done,
               cudaEventDisableTiming), "cudaEventCreate");
    CHECK (cudaStreamCreateWithPriority (&sl->summary_stream,
               cudaStreamNonBlocking, greatest), "cudaStreamCreate");
  }
  /* after the field on the slot's stream; the slot's stream goes on once
   * the core is down */
  cudaStream_t st = sl->summary_stream;
  CHECK (cudaEventRecord (sl->summary_ready, sl->stream), "cudaEventRecord");
  CHECK (cudaStreamWaitEvent (st, sl->summary_ready, 0),
      "cudaStreamWaitEvent");
  CHECK ((cudaError_t)me_cuda_launch_summary (sl->cells + sl->offsets[p],
             &geo, (unsigned)p, sl->summary_work, sl->summary_dev + k, st),
      "summary kernel");
  CHECK (cudaMemcpyAsync (sl->summary_host + k, sl->summary_dev + k,
             sizeof (MvsCore), cudaMemcpyDeviceToHost, st),
      "summary download");
  CHECK (cudaEventRecord (sl->summary_done, st), "cudaEventRecord");
  CHECK (cudaStreamWaitEvent (sl->stream, sl->summary_done, 0),
      "cudaStreamWaitEvent");
  o->summarized = TRUE;
  return TRUE;
}

/* Enqueues on the slot's stream what follows the integer search of ring
 * frame f against ring frame r, whose keys are in sl->keys: stage 3, the
 * finish unless `finished` (a batch ran it), the end of the timing when
 * `timed`, and the download of the cells for output k.  `depth` is the
 * frames' bit depth. */
static gboolean
enqueue_after_search (MESession *s, Slot *sl, const MECudaGeometry *g,
    const MESearchParams *params, unsigned f, unsigned r, size_t ncells,
    unsigned k, unsigned depth, gboolean finished, gboolean timed,
    GError **error)
{
  const unsigned parts = params->partitions;
  const SlotOut *o = &sl->outs[k];
  cudaStream_t st = sl->stream;

  uint64_t *final_keys = sl->keys;
  if (me_search_refines (params)) {
    /* the window's centre, in bytes of the frames' samples */
    const ptrdiff_t offset = (ptrdiff_t)params->offset_x * (ptrdiff_t)g->bps;
    if (params->refine != ME_REFINE_NONE)
      CHECK (me_cuda_launch_hpel (s->frames[r] + offset, sl->hpel, g,
                 params->search_range, (1 << depth) - 1, st),
          "half-sample kernel");
    if (params->lambda)
      final_keys = sl->keys + sl->cells_size;
    CHECK (me_cuda_launch_refine (s->frames[f], s->frames[r] + offset,
               sl->hpel, g, parts, params->refine, params->metric,
               params->search_range, me_search_range_y (params),
               me_lambda_at_depth (params->lambda, depth), sl->keys,
               final_keys,
               (uint32_t *)(sl->keys + 2 * sl->cells_size), sl->progress, st),
        "refinement kernel");
  }
  if (!finished)
    CHECK (me_cuda_launch_finish (final_keys, sl->cells, g, parts,
               4 * params->offset_x, st),
        "prediction kernel");
  if (o->field->summary &&
      !enqueue_summary (sl, g, parts, k, depth, error))
    return FALSE;
  if (timed)
    CHECK (cudaEventRecord (sl->kernel_end, st), "cudaEventRecord");
  if (o->direct) {
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      if (o->grid[p])
        CHECK (cudaMemcpyAsync (o->grid[p], sl->cells + sl->offsets[p],
                   sl->grid_cells[p] * 16, cudaMemcpyDeviceToHost, st),
            "result download");
  } else {
    CHECK (cudaMemcpyAsync (sl->host_cells + k * ncells, sl->cells,
               ncells * 16, cudaMemcpyDeviceToHost, st),
        "result download");
  }
  return TRUE;
}

/* Enqueues on the slot's stream the search of ring frame f against ring
 * frame r (stages 1 to 4) and the download of its cells for output k,
 * after the events that make both frames ready (`uploaded_here`: frame f
 * was uploaded on this stream).  The first search of a timed submission
 * starts the slot's timing unless the caller already did. */
static gboolean
enqueue_search (MESession *s, Slot *sl, const MECudaGeometry *g,
    const MESearchParams *params, unsigned f, unsigned r, size_t ncells,
    unsigned k, gboolean uploaded_here, GError **error)
{
  cudaStream_t st = sl->stream;

  CHECK (cudaStreamWaitEvent (st, s->frame_ready[r], 0), "cudaStreamWaitEvent");
  /* frame f uploaded on this stream needs no wait (submit()) */
  if (!uploaded_here)
    CHECK (cudaStreamWaitEvent (st, s->frame_ready[f], 0),
        "cudaStreamWaitEvent");
  if (s->timed && !sl->searched)
    CHECK (cudaEventRecord (sl->kernel_start, st), "cudaEventRecord");
  sl->searched = s->timed;
  if (!search_integer (s, sl, g, params, f, r, ncells, error) ||
      !prepare_stage3 (sl, g, params, error))
    return FALSE;
  return enqueue_after_search (s, sl, g, params, f, r, ncells, k,
      s->frame_depth, FALSE, s->timed, error);
}

/* ---- searches in a batch (me_cuda_batch.h) ---------------------------- */

/* Whether the search of this submit goes to the context's launcher: a
 * full search, by submit() (submit_pairs() chains its searches on one
 * stream), of a frame from host memory while more than
 * BATCH_HOST_SESSIONS sessions share the launcher, or of any frame while
 * another does when the session sends all. */
static gboolean
batches (const MESession *s, const MESearchParams *params,
    const MEPlane *luma)
{
  if (!s->launcher || s->pairs_mode ||
      params->method != GST_MOTION_VECTOR_METHOD_FULL || use_esa (s, params))
    return FALSE;
  const unsigned users = me_cuda_launcher_users (s->launcher);
  return s->batch_device_frames
             ? users > 1
             : !luma->on_device && users > BATCH_HOST_SESSIONS;
}

/* After the launch that searched the slot's frame: the rest of it on the
 * slot's own stream, then the event collect waits on (recorded whatever
 * failed, so that collect never waits for nothing).  The slot's stream
 * waits for the launch whenever its event was recorded, failed or not:
 * a launch that failed after its key reset still writes the slot's keys,
 * and collect's wait on the slot must cover that. */
static cudaError_t
slot_tail (Slot *sl)
{
  cudaError_t e = sl->item.error;
  if (sl->item.recorded) {
    const cudaError_t w =
        cudaStreamWaitEvent (sl->stream, sl->batch_searched, 0);
    if (e == cudaSuccess)
      e = w;
  }
  if (e == cudaSuccess &&
      !enqueue_after_search (sl->session, sl, &sl->geometry, &sl->params,
          sl->f, sl->r, sl->ncells, 0, sl->frame_depth, sl->item.setting.finish,
          FALSE, &sl->tail_error))
    e = cudaErrorLaunchFailure; /* the GError says which */
  const cudaError_t d = cudaEventRecord (sl->done, sl->stream);
  return e != cudaSuccess ? e : d;
}

/* Hands the search of ring frame f against r to the launcher; the slot's
 * done event is recorded by its tail (flush_batched()). */
static gboolean
add_batched (MESession *s, Slot *sl, const MECudaGeometry *g,
    const MESearchParams *params, unsigned f, unsigned r, size_t ncells,
    GError **error)
{
  if (!prepare_stage3 (sl, g, params, error))
    return FALSE;
  MECudaBatchItem *it = &sl->item;
  memset (it, 0, sizeof *it);
  it->setting.g = *g;
  it->setting.range = params->search_range;
  it->setting.range_y = me_search_range_y (params);
  it->setting.partitions = params->partitions;
  it->setting.offset_qx = 4 * params->offset_x;
  it->setting.finish = !me_search_refines (params);
  it->setting.sm_count = s->sm_count;
  it->frame.cur = s->frames[f];
  it->frame.ref = s->frames[r] + (ptrdiff_t)params->offset_x * (ptrdiff_t)g->bps;
  it->frame.keys = sl->keys;
  it->frame.cells = sl->cells;
  it->nkeys = ncells;
  /* frame f's event, recorded after the wait below, covers both frames */
  it->ready = s->frame_ready[f];
  it->searched = sl->batch_searched;
  sl->session = s;
  sl->params = *params;
  sl->full_searched = TRUE;
  sl->geometry = *g;
  sl->f = f;
  sl->r = r;
  sl->ncells = ncells;
  sl->frame_depth = s->frame_depth;
  g_clear_error (&sl->tail_error);
  sl->batched = TRUE;
  sl->tail_queued = FALSE;
  /* not timed: the batch's device time is not one frame's */
  sl->searched = FALSE;
  me_cuda_launcher_add (s->launcher, it);
  return TRUE;
}

/* Has the launcher search the slot's frame if it has not yet, then queues
 * the rest of the frame on the slot's stream (the launch's error, or the
 * tail's own, in item.error). */
static void
flush_batched (Slot *sl)
{
  if (!sl->batched || sl->tail_queued)
    return;
  me_cuda_launcher_flush (sl->session->launcher, &sl->item);
  const cudaError_t e = slot_tail (sl);
  if (sl->item.error == cudaSuccess)
    sl->item.error = e;
  sl->tail_queued = TRUE;
}

static gboolean submit_frame (MESession *s, Slot *sl, const MEPlane *luma,
    const MESearchParams *params, MEField *out, GError **error);

/* The first call of submit() or submit_reference() after submit_pairs():
 * the window is forgotten and the ring of submit() starts afresh. */
static void
leave_pairs_mode (MESession *s)
{
  if (!s->pairs_mode)
    return;
  wait_all (s);
  s->pairs_mode = FALSE;
  s->nframes = NFRAMES;
  s->have_ref = FALSE;
  s->temporal_ok = FALSE;
  s->win_count = 0;
  for (int i = 0; i < RING; i++)
    s->pyramid_ok[i] = FALSE;
}

static gboolean
cuda_submit (MESession *s, const MEPlane *luma, const MESearchParams *params,
    MEField *out, GError **error)
{
  if (!begin_submit (s, error))
    return FALSE;
  leave_pairs_mode (s);
  Slot *sl = &s->slots[s->submitted % SLOTS];
  return submit_frame (s, sl, luma, params, out, error) || abandon_slot (sl);
}

static gboolean
submit_frame (MESession *s, Slot *sl, const MEPlane *luma,
    const MESearchParams *params, MEField *out, GError **error)
{
  MECudaGeometry g;
  take_depth (s, luma);
  me_cuda_geometry_init (
      &g, luma->width, luma->height, depth_bps (s->frame_depth));
  const unsigned parts = params->partitions;
  const size_t ncells = slot_layout (sl, &g, parts);

  const gboolean pred = params->method == GST_MOTION_VECTOR_METHOD_PREDICTIVE;
  /* predictive's coarse predictors are hierarchical's level 2 */
  const gboolean pyr =
      params->method == GST_MOTION_VECTOR_METHOD_HIERARCHICAL || pred;
  if (!ensure_frames (s, &g, error) ||
      !ensure_slot (sl, 0, ncells, ncells, error) ||
      (pyr && !ensure_pyramids (s, &g, error)) ||
      (pred && !ensure_guides (s, (size_t)g.mb_cols * g.mb_rows, error)))
    return FALSE;

  const unsigned f = s->submitted % NFRAMES;
  const unsigned prev = (f + NFRAMES - 1) % NFRAMES;
  uint8_t *cur = s->frames[f];
  cudaStream_t st = sl->stream;
  const gboolean has_reference =
      s->have_ref && s->ref_width == g.width && s->ref_height == g.height;
  const gboolean batched = has_reference && batches (s, params, luma);
  sl->batched = FALSE;

  if (!upload_frame (sl, luma, &g, cur, error))
    return FALSE;
  /* the launcher waits on one event per frame: this frame's, made to
   * follow its reference too */
  if (batched)
    CHECK (cudaStreamWaitEvent (st, s->frame_ready[prev], 0),
        "cudaStreamWaitEvent");
  s->pyramid_ok[f] = FALSE;
  if (pyr) {
    /* the pyramid is part of this frame's search: timed with it */
    if (s->timed)
      CHECK (cudaEventRecord (sl->kernel_start, st), "cudaEventRecord");
    sl->searched = s->timed;
    CHECK (me_cuda_launch_pyramid (cur, s->pyramids[f], &g, st),
        "pyramid kernel");
    s->pyramid_ok[f] = TRUE;
  }
  CHECK (cudaEventRecord (s->frame_ready[f], st), "cudaEventRecord");

  slot_add_out (sl, out, parts, has_reference);
  /* predictive: the frame's guide words, the previous frame's as temporal
   * predictors */
  s->guide_out = f;
  s->guide_in = prev;
  if (batched) {
    /* its tail, queued by flush_batched() at collect, records sl->done */
    if (!add_batched (s, sl, &g, params, f, prev, ncells, error))
      return FALSE;
  } else {
    if (has_reference &&
        !enqueue_search (s, sl, &g, params, f, prev, ncells, 0, TRUE, error))
      return FALSE;
    if (!has_reference)
      sl->searched = FALSE; /* a pyramid alone is not a search to time */
    CHECK (cudaEventRecord (sl->done, st), "cudaEventRecord");
  }

  /* only a predictive search leaves temporal predictors for the next */
  end_submit (s, &g,
      has_reference && params->method == GST_MOTION_VECTOR_METHOD_PREDICTIVE);
  return TRUE;
}

/* A frame for the next one to search against, not searched itself: the
 * upload and the border of cuda_submit(), in a slot of its own so that it
 * is collected in order with the others.  A pyramid is made later, by the
 * next frame's stream, if that one searches hierarchically. */
static gboolean
submit_reference_frame (MESession *s, Slot *sl, const MEPlane *luma,
    GError **error)
{
  MECudaGeometry g;
  take_depth (s, luma);
  me_cuda_geometry_init (
      &g, luma->width, luma->height, depth_bps (s->frame_depth));
  const unsigned f = s->submitted % NFRAMES;
  if (!ensure_frames (s, &g, error) ||
      !upload_frame (sl, luma, &g, s->frames[f], error))
    return FALSE;
  s->pyramid_ok[f] = FALSE;
  CHECK (cudaEventRecord (s->frame_ready[f], sl->stream), "cudaEventRecord");
  slot_layout (sl, &g, 0);
  CHECK (cudaEventRecord (sl->done, sl->stream), "cudaEventRecord");
  end_submit (s, &g, FALSE);
  return TRUE;
}

static gboolean
cuda_submit_reference (MESession *s, const MEPlane *luma, GError **error)
{
  if (!begin_submit (s, error))
    return FALSE;
  leave_pairs_mode (s);
  Slot *sl = &s->slots[s->submitted % SLOTS];
  return submit_reference_frame (s, sl, luma, error) || abandon_slot (sl);
}

/* ---- submit_pairs ------------------------------------------------------- */

/* The ring buffer of the window's frame `age` additions back. */
static unsigned
window_buffer (const MESession *s, unsigned age)
{
  return (s->newest + RING - age) % RING;
}

/* Makes ring frame `b`'s pyramid on the slot's stream when it has none
 * (a frame added while another method searched), and moves the frame's
 * ready event after it, for the streams that read it later. */
static gboolean
ensure_frame_pyramid (MESession *s, Slot *sl, const MECudaGeometry *g,
    unsigned b, GError **error)
{
  if (s->pyramid_ok[b])
    return TRUE;
  CHECK (cudaStreamWaitEvent (sl->stream, s->frame_ready[b], 0),
      "cudaStreamWaitEvent");
  CHECK (me_cuda_launch_pyramid (s->frames[b], s->pyramids[b], g, sl->stream),
      "pyramid kernel");
  CHECK (cudaEventRecord (s->frame_ready[b], sl->stream), "cudaEventRecord");
  s->pyramid_ok[b] = TRUE;
  return TRUE;
}

static gboolean
submit_pairs (MESession *s, Slot *sl, const MEPlane *luma,
    const MESearchParams *params, const MESearchPair *pairs, unsigned n_pairs,
    GError **error)
{
  const unsigned parts = params->partitions;
  const gboolean pred = params->method == GST_MOTION_VECTOR_METHOD_PREDICTIVE;
  /* predictive's coarse predictors are hierarchical's level 2 */
  const gboolean pyr =
      params->method == GST_MOTION_VECTOR_METHOD_HIERARCHICAL || pred;

  /* the geometry of the new frame, or else of the newest; a new frame of
   * another depth empties the window first */
  MECudaGeometry g;
  if (luma)
    take_depth (s, luma);
  const unsigned bps = depth_bps (s->frame_depth);
  if (luma)
    me_cuda_geometry_init (&g, luma->width, luma->height, bps);
  else if (s->win_count)
    me_cuda_geometry_init (
        &g, s->frame_w[s->newest], s->frame_h[s->newest], bps);
  else
    me_cuda_geometry_init (&g, 16, 16, bps);
  const size_t ncells = slot_layout (sl, &g, parts);
  if (!ensure_frames (s, &g, error) ||
      !ensure_slot (sl, 0, ncells, ncells * n_pairs, error) ||
      (pyr && !ensure_pyramids (s, &g, error)) ||
      (pred && !ensure_guides (s, (size_t)g.mb_cols * g.mb_rows, error)))
    return FALSE;
  /* (a frame of a larger size than the window's empties it) */
  const unsigned have = MIN (s->win_count + (luma ? 1 : 0), ME_MAX_WINDOW);
  for (unsigned i = 0; i < n_pairs; i++)
    if (pairs[i].target >= have) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "no frame %u submissions back to search: the window holds %u",
          pairs[i].target, have);
      return FALSE;
    }

  if (luma) {
    const unsigned b = (s->newest + 1) % RING;
    if (!upload_frame (sl, luma, &g, s->frames[b], error))
      return FALSE;
    s->pyramid_ok[b] = FALSE;
    if (pyr) {
      if (s->timed)
        CHECK (cudaEventRecord (sl->kernel_start, sl->stream),
            "cudaEventRecord");
      sl->searched = s->timed;
      CHECK (me_cuda_launch_pyramid (s->frames[b], s->pyramids[b], &g,
                 sl->stream),
          "pyramid kernel");
      s->pyramid_ok[b] = TRUE;
    }
    CHECK (cudaEventRecord (s->frame_ready[b], sl->stream), "cudaEventRecord");
    s->newest = b;
    s->frame_w[b] = g.width;
    s->frame_h[b] = g.height;
    s->win_count = MIN (s->win_count + 1, ME_MAX_WINDOW);
  }

  for (unsigned i = 0; i < n_pairs; i++) {
    const unsigned t = window_buffer (s, pairs[i].target);
    if (pairs[i].out->mb_cols != gst_motion_vector_mb_cols (s->frame_w[t]) ||
        pairs[i].out->mb_rows != gst_motion_vector_mb_rows (s->frame_h[t])) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "field of %ux%u macroblocks does not match the %ux%u frame it is "
          "for", pairs[i].out->mb_cols, pairs[i].out->mb_rows, s->frame_w[t],
          s->frame_h[t]);
      return FALSE;
    }
    /* one layout for the slot's fields */
    if (s->frame_w[t] != g.width || s->frame_h[t] != g.height) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "searches of one submission of frames of %ux%u and %ux%u",
          s->frame_w[t], s->frame_h[t], g.width, g.height);
      return FALSE;
    }
    const gboolean has_reference = pairs[i].reference < s->win_count &&
        s->frame_w[window_buffer (s, pairs[i].reference)] == s->frame_w[t] &&
        s->frame_h[window_buffer (s, pairs[i].reference)] == s->frame_h[t];
    slot_add_out (sl, pairs[i].out, parts, has_reference);
  }

  /* Predictive: a chained pair reads the temporal predictors the last
   * chained search left (guides[SLOTS + chain_buf]) and leaves its own in
   * the other buffer of the two, after that search's wavefront (which read
   * it) has ended; the others write into the slot's buffer and pass
   * nothing on.  So no two wavefronts in flight share guide words, and
   * every chained search sees the CPU's temporal predictors: those of the
   * chained search before it, whatever the pairs between.  The chained
   * pairs run last, in the order of the list (only their order matters). */
  const unsigned slot_buf = (unsigned)(sl - s->slots);
  gboolean any = FALSE;
  for (int chained = 0; chained < 2; chained++) {
    for (unsigned i = 0; i < n_pairs; i++) {
      const gboolean chain = pairs[i].reference == pairs[i].target + 1;
      if (chain != (chained == 1))
        continue;
      const unsigned t = window_buffer (s, pairs[i].target);
      const unsigned r = window_buffer (s, pairs[i].reference);
      MECudaGeometry pg;
      me_cuda_geometry_init (&pg, s->frame_w[t], s->frame_h[t], bps);
      if (!sl->outs[i].has_reference) {
        if (chain)
          s->temporal_ok = FALSE;
        continue;
      }
      if (pyr && (!ensure_frame_pyramid (s, sl, &pg, t, error) ||
                      !ensure_frame_pyramid (s, sl, &pg, r, error)))
        return FALSE;
      /* search_integer reads temporal_ok: only a chained pair may */
      const gboolean temporal_ok = s->temporal_ok;
      if (!chain)
        s->temporal_ok = FALSE;
      if (pred && chain) {
        s->guide_in = SLOTS + s->chain_buf;
        s->guide_out = SLOTS + (s->chain_buf ^ 1);
        /* the last chained search has read guides[guide_out] */
        CHECK (cudaStreamWaitEvent (sl->stream, s->guide_ready[s->guide_in],
                   0),
            "cudaStreamWaitEvent");
      } else {
        s->guide_in = s->guide_out = slot_buf;
      }
      const gboolean ok =
          enqueue_search (s, sl, &pg, params, t, r, ncells, i, FALSE, error);
      any = TRUE;
      s->temporal_ok = chain ? pred : temporal_ok;
      if (chain && pred) {
        s->temporal_cols = pg.mb_cols;
        s->temporal_rows = pg.mb_rows;
        s->chain_buf ^= 1;
      }
      if (!ok)
        return FALSE;
    }
  }
  if (!any)
    sl->searched = FALSE; /* a pyramid alone is not a search to time */
  CHECK (cudaEventRecord (sl->done, sl->stream), "cudaEventRecord");
  s->submitted++;
  return TRUE;
}

static gboolean
cuda_submit_pairs (MESession *s, const MEPlane *luma,
    const MESearchParams *params, const MESearchPair *pairs, unsigned n_pairs,
    GError **error)
{
  if (!begin_submit (s, error))
    return FALSE;
  if (!s->pairs_mode) {
    wait_all (s);
    s->pairs_mode = TRUE;
    s->nframes = RING;
    s->win_count = 0;
    s->have_ref = FALSE;
    s->temporal_ok = FALSE;
    for (int i = 0; i < RING; i++)
      s->pyramid_ok[i] = FALSE;
  }
  Slot *sl = &s->slots[s->submitted % SLOTS];
  return submit_pairs (s, sl, luma, params, pairs, n_pairs, error) ||
         abandon_slot (sl);
}

static gboolean
cuda_collect (MESession *s, GError **error)
{
  if (s->collected == s->submitted) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "no frame in flight to collect");
    return FALSE;
  }
  Slot *sl = &s->slots[s->collected % SLOTS];
  s->collected++;
  /* The frame counts as collected whatever happens, so that the element
   * and the session agree on what is in flight; if the wait fails, the
   * slot's stream is still waited for (its result ignored) before the
   * caller frees what the copies write into. */
  const char *what = "cudaSetDevice";
  cudaError_t e = select_device (s);
  /* a frame in a batch: launched (and its tail queued) before the wait */
  const gboolean batched = sl->batched;
  flush_batched (sl);
  sl->batched = FALSE;
  if (e == cudaSuccess) {
    what = "search";
    e = cudaEventSynchronize (sl->done);
  }
  if (e == cudaSuccess && batched && sl->tail_error) {
    cudaStreamSynchronize (sl->stream);
    g_propagate_error (error, sl->tail_error);
    sl->tail_error = NULL;
    return FALSE;
  }
  if (e == cudaSuccess && batched && sl->item.error != cudaSuccess) {
    e = sl->item.error;
    what = "batched search";
  }
  if (e != cudaSuccess) {
    cudaStreamSynchronize (sl->stream);
    return check (e, what, error);
  }

  size_t ncells = 0;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    ncells += sl->grid_cells[p];
  for (unsigned k = 0; k < sl->n_outs; k++) {
    const SlotOut *o = &sl->outs[k];
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
      if (!o->grid[p])
        continue;
      if (!o->has_reference)
        memset (o->grid[p], 0, sl->grid_cells[p] * 16);
      else if (!o->direct)
        memcpy (o->grid[p], sl->host_cells + k * ncells + sl->offsets[p],
            sl->grid_cells[p] * 16);
    }
    o->field->has_reference = o->has_reference;
    if (o->summarized && o->has_reference)
      *o->field->summary = sl->summary_host[k];
  }
  s->last_pruned_share = -1;
  if (sl->esa_ran) {
    const double share =
        1.0 - (double)*sl->esa_costed_host / (double)MAX (sl->esa_candidates, 1);
    s->last_pruned_share = share;
    s->esa_poor = share < ME_CUDA_ESA_MIN_SKIP;
    sl->esa_ran = FALSE;
  } else if (sl->full_searched) {
    s->last_pruned_share = 0;
  }
  sl->full_searched = FALSE;
  s->last_ms = -1;
  if (sl->searched) {
    float ms = 0;
    if (cudaEventElapsedTime (&ms, sl->kernel_start, sl->kernel_end) ==
        cudaSuccess) {
      s->last_ms = ms;
    }
    cudaGetLastError ();
  }
  return TRUE;
}

static void
cuda_reset (MESession *s)
{
  select_device (s);
  wait_all (s);
  for (int i = 0; i < SLOTS; i++) {
    s->slots[i].batched = FALSE;
    s->slots[i].esa_ran = FALSE;
    s->slots[i].full_searched = FALSE;
  }
  s->collected = s->submitted;
  s->have_ref = FALSE;
  s->temporal_ok = FALSE;
  s->win_count = 0;
}

static double
cuda_last_device_ms (MESession *s)
{
  return s->last_ms;
}

static double
cuda_last_pruned_share (MESession *s)
{
  return s->last_pruned_share;
}

static const char *
cuda_device_name (MESession *s)
{
  return s->device_name;
}

/* In MEBackendOps order (C++17 has no designated initializers).  A
 * method is offered only once checkasm --backend cuda has passed on it. */
extern "C" const MEBackendOps me_backend_cuda = {
    "cuda",
    {
        1u << GST_MOTION_VECTOR_METHOD_FULL |
            1u << GST_MOTION_VECTOR_METHOD_MODS |
            1u << GST_MOTION_VECTOR_METHOD_HIERARCHICAL |
            1u << GST_MOTION_VECTOR_METHOD_PREDICTIVE, /* methods */
        1u << ME_REFINE_NONE | 1u << ME_REFINE_HALF |
            1u << ME_REFINE_QUARTER,                 /* refinements */
        1u << ME_METRIC_SAD | 1u << ME_METRIC_SATD, /* metrics */
        TRUE,                                       /* rate */
        ME_MAX_RANGE,                        /* max_range */
        ME_MEMORY_HOST_PINNED,               /* frame_memory */
        ME_MEMORY_HOST_PINNED,               /* result_memory */
        TRUE,                                /* bit_exact */
        TRUE,                                /* cuda_device */
        ME_MAX_WINDOW,                       /* window */
        16,                                  /* max_depth */
        ME_MAX_RANGE,                        /* max_full_range */
    },
    cuda_open,
    cuda_close,
    cuda_max_in_flight,
    cuda_default_in_flight,
    cuda_set_in_flight,
    cuda_submit,
    cuda_collect,
    cuda_reset,
    me_cuda_host_alloc,
    me_cuda_host_free,
    cuda_last_device_ms,
    cuda_device_name,
    cuda_submit_reference,
    cuda_submit_pairs,
    cuda_last_pruned_share,
};
