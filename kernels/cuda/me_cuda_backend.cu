/* gpumotionest — the CUDA backend: sessions, streaming, error reporting.
 *
 * Frames flow through SLOTS slots used round-robin, each with its own
 * stream.  submit() enqueues on the frame's slot stream: upload of the luma
 * plane (from the caller's memory when it is page-locked, else through the
 * slot's page-locked staging copy) into a device frame buffer, the border
 * fill, then, when there is a reference, the key reset, the search, the
 * prediction and the download of the cells; and returns.  collect() waits
 * for the oldest slot's last operation (sleeping, not spinning) and hands
 * its cells over.
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
 * Buffers are allocated once and grown when a frame needs more; nothing is
 * allocated per frame once sizes are stable.
 */
#include <cuda_runtime.h>
#include <string.h>

#include "me_backend.h"
#include "me_cost.h"
#include "luma_rules.h"
#include "me_search.h"
#include "me_cuda_host.h"
#include "me_cuda_kernels.h"

#define SLOTS 8         /* most frames in flight */
#define DEFAULT_DEPTH 4 /* measured: docs/cuda-backend.md */
#define NFRAMES (SLOTS + 1)

/* Frames in flight one device takes from all the sessions of a process
 * before some of them starve: measured on an H100 with 1080p searches,
 * 128 sessions x 2 and 64 x 4 ran every stream at the same rate, 128 x 4
 * left a third of them without a frame for seconds (docs/benchmarks.md,
 * "Many streams in one process").  Sessions left at their default depth
 * share it equally (cuda_default_in_flight). */
#define DEVICE_FRAME_BUDGET 256
#define TRACKED_DEVICES 64

/* Open sessions per device, process-wide. */
static gint sessions_on_device[TRACKED_DEVICES];

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

  /* the frame in flight */
  MEField *out;
  GstMotionVectorCell *grid[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  size_t grid_cells[GST_MOTION_VECTOR_PARTITION_COUNT];
  gboolean has_reference;
  gboolean direct; /* cells downloaded into out's grids */
} Slot;

struct MESession {
  int device;
  gboolean own_device; /* FALSE: runs in the caller's current context */
  gboolean counted;    /* in sessions_on_device */
  int sm_count;
  char device_name[256];
  unsigned depth;

  Slot slots[SLOTS];
  uint8_t *frames[NFRAMES];
  cudaEvent_t frame_ready[NFRAMES];
  size_t frame_size; /* bytes allocated per device frame */

  /* hierarchical: levels 1 and 2 of each device frame, valid when made
   * from the frame now in that buffer */
  uint8_t *pyramids[NFRAMES];
  gboolean pyramid_ok[NFRAMES];
  size_t pyramid_size;
  /* predictive: the guide winners of each device frame's search and the
   * event after its wavefront; the next frame's temporal predictors when
   * temporal_ok (that frame was searched with predictive) on the same
   * macroblock grid */
  uint64_t *guides[NFRAMES];
  cudaEvent_t guide_ready[NFRAMES];
  size_t guide_size; /* in macroblocks */
  uint32_t epoch;    /* tag of the guide words of the last predictive frame */
  gboolean temporal_ok;
  unsigned temporal_cols, temporal_rows;

  guint64 submitted, collected;
  gboolean have_ref; /* the last frame submitted can be a reference */
  unsigned ref_width, ref_height;

  double last_ms; /* of the frame collected last; < 0: none */
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

static void
wait_all (MESession *s)
{
  for (int i = 0; i < SLOTS; i++)
    if (s->slots[i].stream)
      cudaStreamSynchronize (s->slots[i].stream);
  cudaGetLastError ();
}

static void
free_frames (MESession *s)
{
  for (int i = 0; i < NFRAMES; i++)
    g_clear_pointer (&s->frames[i], cudaFree);
  s->frame_size = 0;
}

static void
free_fast_state (MESession *s)
{
  for (int i = 0; i < NFRAMES; i++) {
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
  free_frames (s);
  free_fast_state (s);
  for (int i = 0; i < NFRAMES; i++) {
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
    if (sl->kernel_start)
      cudaEventDestroy (sl->kernel_start);
    if (sl->kernel_end)
      cudaEventDestroy (sl->kernel_end);
    if (sl->done)
      cudaEventDestroy (sl->done);
    if (sl->stream)
      cudaStreamDestroy (sl->stream);
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
  s->own_device = !options->current_cuda_context;
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
            "cudaEventCreate", error))
      goto fail;
  }
  for (int i = 0; i < NFRAMES; i++)
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
 * (docs/rate.md, "Frames in flight"). */
static unsigned
cuda_own_default_in_flight (const MESearchParams *params)
{
  return params && params->lambda ? SLOTS : DEFAULT_DEPTH;
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
  if (need <= s->frame_size)
    return TRUE;
  wait_all (s);
  free_frames (s);
  s->have_ref = FALSE;
  for (int i = 0; i < NFRAMES; i++) {
    if (!device_alloc ((void **)&s->frames[i], need, "a frame buffer", error)) {
      g_prefix_error (error, "frame of %ux%u: ", g->width, g->height);
      free_frames (s);
      return FALSE;
    }
  }
  s->frame_size = need;
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
  if (need <= s->pyramid_size)
    return TRUE;
  wait_all (s);
  for (int i = 0; i < NFRAMES; i++) {
    g_clear_pointer (&s->pyramids[i], cudaFree);
    s->pyramid_ok[i] = FALSE;
  }
  s->pyramid_size = 0;
  for (int i = 0; i < NFRAMES; i++)
    if (!device_alloc ((void **)&s->pyramids[i], need, "a pyramid", error))
      return FALSE;
  s->pyramid_size = need;
  return TRUE;
}

/* Every guide word's tag set to 0, which no frame uses, once nothing is in
 * flight; the vectors stay (the next frame's temporal predictors); the
 * next frame is tagged 1. */
static gboolean
clear_guides (MESession *s, GError **error)
{
  wait_all (s);
  for (int i = 0; i < NFRAMES; i++)
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
  if (n <= s->guide_size)
    return TRUE;
  wait_all (s);
  for (int i = 0; i < NFRAMES; i++)
    g_clear_pointer (&s->guides[i], cudaFree);
  s->guide_size = 0;
  s->temporal_ok = FALSE;
  for (int i = 0; i < NFRAMES; i++)
    if (!device_alloc ((void **)&s->guides[i], n * sizeof (uint64_t),
            "guide winners", error))
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
    const gboolean temporal = s->temporal_ok &&
                              s->temporal_cols == g->mb_cols &&
                              s->temporal_rows == g->mb_rows;
    if (!ensure_progress (sl, error))
      return FALSE;
    if (parts != GST_MOTION_VECTOR_PARTITIONS_16X16 &&
        !ensure_buffer ((void **)&sl->visited, &sl->visited_size,
            me_cuda_pred_visited_bytes (g), "visited candidates", error))
      return FALSE;
    /* the previous frame's wavefront wrote the temporal predictors */
    if (temporal)
      CHECK (cudaStreamWaitEvent (st, s->guide_ready[prev], 0),
          "cudaStreamWaitEvent");
    /* a new tag for every frame (the words in guides[f] carry an older
     * frame's or 0); after 2^32 frames, tags start over from cleared words */
    if (s->epoch == G_MAXUINT32 && !clear_guides (s, error))
      return FALSE;
    s->epoch++;
    CHECK (me_cuda_launch_pred (cur, ref, g, range, parts, sl->keys,
               s->guides[f], temporal ? s->guides[prev] : NULL, s->epoch,
               sl->visited, sl->progress, st),
        "predictive kernel");
    CHECK (cudaEventRecord (s->guide_ready[f], st), "cudaEventRecord");
    return TRUE;
  }
  default:
    CHECK (cudaMemsetAsync (sl->keys, 0xff, ncells * 8, st), "key reset");
    CHECK (me_cuda_launch_search (cur, ref, g, range, parts, sl->keys,
               s->sm_count, st),
        "search kernel");
    return TRUE;
  }
}

static gboolean
ensure_slot (Slot *sl, size_t stage, size_t cells, GError **error)
{
  if (stage > sl->stage_size) {
    g_clear_pointer (&sl->stage, cudaFreeHost);
    sl->stage_size = 0;
    if (!host_alloc ((void **)&sl->stage, stage, "frame staging", error))
      return FALSE;
    sl->stage_size = stage;
  }
  if (cells > sl->host_cells_size) {
    g_clear_pointer (&sl->host_cells, cudaFreeHost);
    sl->host_cells_size = 0;
    if (!host_alloc (
            (void **)&sl->host_cells, cells * 16, "result cells", error))
      return FALSE;
    sl->host_cells_size = cells;
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

/* One row of `luma` as 8-bit samples into `dst`: copied from a plane,
 * picked from packed 4:2:2, derived from RGB by the rule of luma_rules.h,
 * the very bytes the CPU backend's DSP routines give. */
static void
stage_row (uint8_t *dst, const MEPlane *luma, unsigned y)
{
  const uint8_t *s = luma->data + (size_t)y * luma->stride;
  const unsigned w = luma->width, step = luma->step;
  switch (luma->kind) {
  case ME_LUMA_PACKED:
    s += luma->offset[0];
    for (unsigned x = 0; x < w; x++)
      dst[x] = s[(size_t)x * step];
    break;
  case ME_LUMA_RGB:
    for (unsigned x = 0; x < w; x++, s += step)
      dst[x] = me_luma_from_rgb (s[luma->offset[0]], s[luma->offset[1]],
          s[luma->offset[2]], luma->weights);
    break;
  case ME_LUMA_PLANE:
  default:
    memcpy (dst, s, w);
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
 * own is needed. */
static gboolean
upload_frame (Slot *sl, const MEPlane *luma, const MECudaGeometry *g,
    uint8_t *cur, GError **error)
{
  const gboolean src_direct = luma->kind == ME_LUMA_PLANE &&
      (luma->on_device || me_cuda_host_is_pinned (luma->data));
  if (!ensure_slot (
          sl, src_direct ? 0 : (size_t)g->width * g->height, 0, error))
    return FALSE;
  const uint8_t *src = luma->data;
  size_t spitch = luma->stride;
  if (!src_direct) {
    for (unsigned y = 0; y < g->height; y++)
      stage_row (sl->stage + (size_t)y * g->width, luma, y);
    src = sl->stage;
    spitch = g->width;
  }
  CHECK (cudaMemcpy2DAsync (cur + ME_CUDA_PAD * g->pitch + ME_CUDA_PAD,
             g->pitch, src, spitch, g->width, g->height,
             luma->on_device ? cudaMemcpyDeviceToDevice
                             : cudaMemcpyHostToDevice,
             sl->stream),
      "frame upload");
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

static gboolean submit_frame (MESession *s, Slot *sl, const MEPlane *luma,
    const MESearchParams *params, MEField *out, GError **error);

static gboolean
cuda_submit (MESession *s, const MEPlane *luma, const MESearchParams *params,
    MEField *out, GError **error)
{
  if (!begin_submit (s, error))
    return FALSE;
  Slot *sl = &s->slots[s->submitted % SLOTS];
  return submit_frame (s, sl, luma, params, out, error) || abandon_slot (sl);
}

static gboolean
submit_frame (MESession *s, Slot *sl, const MEPlane *luma,
    const MESearchParams *params, MEField *out, GError **error)
{
  MECudaGeometry g;
  me_cuda_geometry_init (&g, luma->width, luma->height);
  const unsigned parts = params->partitions;
  const size_t ncells = gst_motion_vector_grid_offsets (
      (GstMotionVectorPartitionFlags)parts, g.mb_cols, g.mb_rows, sl->offsets);

  const gboolean hier =
      params->method == GST_MOTION_VECTOR_METHOD_HIERARCHICAL;
  if (!ensure_frames (s, &g, error) || !ensure_slot (sl, 0, ncells, error) ||
      (hier && !ensure_pyramids (s, &g, error)) ||
      (params->method == GST_MOTION_VECTOR_METHOD_PREDICTIVE &&
          !ensure_guides (s, (size_t)g.mb_cols * g.mb_rows, error)))
    return FALSE;

  const unsigned f = s->submitted % NFRAMES;
  const unsigned prev = (f + NFRAMES - 1) % NFRAMES;
  uint8_t *cur = s->frames[f];
  cudaStream_t st = sl->stream;

  if (!upload_frame (sl, luma, &g, cur, error))
    return FALSE;
  s->pyramid_ok[f] = FALSE;
  if (hier) {
    /* the pyramid is part of this frame's search: timed with it */
    CHECK (cudaEventRecord (sl->kernel_start, st), "cudaEventRecord");
    CHECK (me_cuda_launch_pyramid (cur, s->pyramids[f], &g, st),
        "pyramid kernel");
    s->pyramid_ok[f] = TRUE;
  }
  CHECK (cudaEventRecord (s->frame_ready[f], st), "cudaEventRecord");

  sl->out = out;
  sl->has_reference =
      s->have_ref && s->ref_width == g.width && s->ref_height == g.height;
  sl->direct = TRUE;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    sl->grid[p] = (parts & (1u << p)) ? out->grid[p] : NULL;
    sl->grid_cells[p] = 0;
    if (!sl->grid[p])
      continue;
    sl->grid_cells[p] =
        (size_t)gst_motion_vector_grid_cols (
            (GstMotionVectorPartition)p, g.mb_cols) *
        gst_motion_vector_grid_rows ((GstMotionVectorPartition)p, g.mb_rows);
    if (!me_cuda_host_is_pinned (sl->grid[p]))
      sl->direct = FALSE;
  }

  if (sl->has_reference) {
    CHECK (cudaStreamWaitEvent (st, s->frame_ready[prev], 0),
        "cudaStreamWaitEvent");
    if (!hier)
      CHECK (cudaEventRecord (sl->kernel_start, st), "cudaEventRecord");
    if (!search_integer (s, sl, &g, params, f, prev, ncells, error))
      return FALSE;
    uint64_t *final_keys = sl->keys;
    if (me_search_refines (params)) {
      const size_t hp = 3 * me_cuda_frame_bytes (&g);
      if (params->refine != ME_REFINE_NONE && hp > sl->hpel_size) {
        g_clear_pointer (&sl->hpel, cudaFree);
        sl->hpel_size = 0;
        if (!device_alloc ((void **)&sl->hpel, hp, "half-sample planes",
                error))
          return FALSE;
        sl->hpel_size = hp;
      }
      if (params->refine != ME_REFINE_NONE)
        CHECK (me_cuda_launch_hpel (s->frames[prev], sl->hpel, &g,
                   params->search_range, st),
            "half-sample kernel");
      if (params->lambda && !ensure_progress (sl, error))
        return FALSE;
      if (params->lambda)
        final_keys = sl->keys + sl->cells_size;
      CHECK (me_cuda_launch_refine (cur, s->frames[prev], sl->hpel, &g, parts,
                 params->refine, params->metric, params->search_range,
                 params->lambda, sl->keys, final_keys,
                 (uint32_t *)(sl->keys + 2 * sl->cells_size), sl->progress,
                 st),
          "refinement kernel");
    }
    CHECK (me_cuda_launch_finish (final_keys, sl->cells, &g, parts, st),
        "prediction kernel");
    CHECK (cudaEventRecord (sl->kernel_end, st), "cudaEventRecord");
    if (sl->direct) {
      for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
        if (sl->grid[p])
          CHECK (cudaMemcpyAsync (sl->grid[p], sl->cells + sl->offsets[p],
                     sl->grid_cells[p] * 16, cudaMemcpyDeviceToHost, st),
              "result download");
    } else {
      CHECK (cudaMemcpyAsync (sl->host_cells, sl->cells, ncells * 16,
                 cudaMemcpyDeviceToHost, st),
          "result download");
    }
  }

  CHECK (cudaEventRecord (sl->done, st), "cudaEventRecord");

  /* only a predictive search leaves temporal predictors for the next */
  end_submit (s, &g,
      sl->has_reference &&
          params->method == GST_MOTION_VECTOR_METHOD_PREDICTIVE);
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
  me_cuda_geometry_init (&g, luma->width, luma->height);
  const unsigned f = s->submitted % NFRAMES;
  if (!ensure_frames (s, &g, error) ||
      !upload_frame (sl, luma, &g, s->frames[f], error))
    return FALSE;
  s->pyramid_ok[f] = FALSE;
  CHECK (cudaEventRecord (s->frame_ready[f], sl->stream), "cudaEventRecord");
  sl->out = NULL;
  sl->has_reference = FALSE;
  sl->direct = TRUE;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    sl->grid[p] = NULL;
    sl->grid_cells[p] = 0;
  }
  CHECK (cudaEventRecord (sl->done, sl->stream), "cudaEventRecord");
  end_submit (s, &g, FALSE);
  return TRUE;
}

static gboolean
cuda_submit_reference (MESession *s, const MEPlane *luma, GError **error)
{
  if (!begin_submit (s, error))
    return FALSE;
  Slot *sl = &s->slots[s->submitted % SLOTS];
  return submit_reference_frame (s, sl, luma, error) || abandon_slot (sl);
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
  if (e == cudaSuccess) {
    what = "search";
    e = cudaEventSynchronize (sl->done);
  }
  if (e != cudaSuccess) {
    cudaStreamSynchronize (sl->stream);
    return check (e, what, error);
  }

  MEField *out = sl->out;
  if (!out) /* a reference only: nothing to hand over, nothing timed */
    return TRUE;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!sl->grid[p])
      continue;
    if (!sl->has_reference)
      memset (sl->grid[p], 0, sl->grid_cells[p] * 16);
    else if (!sl->direct)
      memcpy (
          sl->grid[p], sl->host_cells + sl->offsets[p], sl->grid_cells[p] * 16);
  }
  out->has_reference = sl->has_reference;
  s->last_ms = -1;
  if (sl->has_reference) {
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
  s->collected = s->submitted;
  s->have_ref = FALSE;
  s->temporal_ok = FALSE;
}

static double
cuda_last_device_ms (MESession *s)
{
  return s->last_ms;
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
};
