/* gpumotionest — the backend interface: the seam between the element and
 * the code that searches.
 *
 * A backend is a table of functions (MEBackendOps) over an opaque session,
 * with a description of what it can do (MEBackendCaps).  The registry
 * (me_backend_registry()) lists every backend the project knows, built in
 * or not, in the order "auto" tries them.  Nobody calls a backend's
 * functions directly: MEBackend (me_backend_open() and friends) wraps an
 * open session, checks every frame and parameter set against the shared
 * limits and the backend's capabilities before dispatching (so a backend
 * never sees invalid input), and times frames for an optional stats hook.
 * The element sees only this header: no CUDA, no SIMD, no backend names.
 *
 * Work is queued: submit() hands a frame over and returns, collect() waits
 * for the oldest frame submitted and completes its MEField.  A backend that
 * searches synchronously (the CPU one) does the work in submit(); one that
 * overlaps transfers and compute (CUDA) keeps up to max_in_flight frames
 * queued.  Frames are searched against the frame submitted just before them
 * since the last reset(); the backend keeps that reference itself.
 *
 * The search itself runs as stages (me_search.h): the method's candidates,
 * the integer decision, an optional refinement, the H.264 prediction/MVD
 * finish.  A backend declares which methods and refinements it has.
 */
#ifndef ME_BACKEND_H
#define ME_BACKEND_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <gst/motionvectors/gstmotionvectortypes.h>
#include "gst/motionvectors/summary-rules.h"

#include "me_search.h"

G_BEGIN_DECLS

#define ME_BACKEND_ERROR (me_backend_error_quark ())
GQuark me_backend_error_quark (void);

typedef enum {
  ME_BACKEND_ERROR_UNAVAILABLE,   /* no device, no driver, not built */
  ME_BACKEND_ERROR_INVALID,       /* bad parameters or frame */
  ME_BACKEND_ERROR_NO_MEMORY,     /* frame does not fit */
  ME_BACKEND_ERROR_DEVICE,        /* the device failed; message from it */
  ME_BACKEND_ERROR_UNSUPPORTED,   /* valid, but not something it can do */
} MEBackendError;

/* Most devices one session may be split over (MEBackendOptions.devices). */
#define ME_MAX_DEVICES 16

/* Where the luma samples of a frame are (MEPlane.kind). */
typedef enum {
  ME_LUMA_PLANE = 0,     /* one 8-bit sample per byte (planar YUV, GRAY8) */
  ME_LUMA_PACKED,        /* one 8-bit sample every `step` bytes, at byte
                          * offset[0] of each pixel (packed 4:2:2) */
  ME_LUMA_RGB,           /* derived from R, G, B at bytes offset[0..2] of
                          * each `step`-byte pixel, with `weights`
                          * (luma_rules.h) */
} MELumaKind;

/* The luma of a frame.  `data` must stay readable until the frame
 * has been collected; the backend never writes to it.  With `on_device` it
 * is a CUDA device pointer in the context current on the calling thread,
 * which only a backend whose caps say cuda_device can read (a frame a GPU
 * decoder left in device memory: no download, no upload), and only of
 * kind ME_LUMA_PLANE.
 *
 * A zero-initialised tail (kind, step, offset, weights) is a plain plane:
 * `data` is the first sample and samples are one byte apart.  Otherwise
 * `data` is the first byte of the first pixel, pixels are `step` bytes
 * apart and rows `stride` bytes apart; the backend converts while it
 * copies the frame into its own memory, so no full-frame copy is made
 * for the conversion alone. */
typedef struct {
  const uint8_t *data;
  ptrdiff_t stride;
  unsigned width;
  unsigned height;
  gboolean on_device;
  MELumaKind kind;
  unsigned step;             /* bytes from one pixel to the next: 2 for
                              * packed 4:2:2, 4 for RGB; 0 or 1 for a plane */
  uint8_t offset[3];         /* packed: the luma's byte; RGB: R, G, B */
  uint16_t weights[3];       /* RGB: wr, wg, wb, summing to 256 */
  /* Bits per sample (docs/high-bit-depth.md): 0 or 8, one byte a sample;
   * 9 .. 16, a plane (kind ME_LUMA_PLANE) of 16-bit words in host order,
   * rows `stride` bytes apart, whose sample is (word >> shift) masked to
   * `depth` bits: shift 0 for samples in the low bits (I420_10LE), 16 -
   * depth for samples in the high bits (P010_10LE).  Costs are computed
   * on those samples, and lambda is scaled to them (me_rate.h). */
  unsigned depth;
  unsigned shift;
} MEPlane;

/* The bits per sample of a plane: 8 for a zeroed depth. */
static inline unsigned
me_plane_depth (const MEPlane * luma)
{
  return luma->depth ? luma->depth : 8;
}

/* Where results go: one grid per requested shape, sized by
 * gst_motion_vector_grid_cols/rows() for mb_cols x mb_rows macroblocks, NULL
 * for shapes not requested.  After collect(), every cell of every requested
 * grid holds vector, cost, prediction and MVD; `has_reference` says whether
 * there was a reference (if not, every cell is zero). */
typedef struct {
  unsigned mb_cols;
  unsigned mb_rows;
  GstMotionVectorCell *grid[GST_MOTION_VECTOR_PARTITION_COUNT];
  gboolean has_reference;
  /* Optional: where a backend that reduces fields where it makes them
   * writes the core of the field's motion summary (docs/summary.md,
   * gst/motionvectors/summary-rules.h) for a meta of these grids, of the
   * frame's size and bit depth, setting its `valid`; NULL when not
   * wanted.  The caller zeroes it; a backend that does not reduce fields
   * (the CPU one: its fields are on the host already), or a field without
   * a reference, leaves it so, and the caller reduces the cells itself. */
  MvsCore *summary;
} MEField;

/* Most frames a session's window holds (MEBackendCaps.window), so most
 * pictures one frame is searched against span ME_MAX_WINDOW - 1 frames. */
#define ME_MAX_WINDOW 16
/* Most searches one submit_pairs() runs. */
#define ME_MAX_PAIRS 16

/* One search of submit_pairs(): frame `target` of the session's window
 * against frame `reference`, both counted back from the newest frame
 * submitted (0: that frame, 1: the one before, ...).  `out` is completed
 * at collect; a reference that is not in the window (too old, before the
 * last reset) or of another size than the target leaves it without one
 * (has_reference FALSE, every cell zero). */
typedef struct {
  unsigned target;
  unsigned reference;
  MEField *out;
} MESearchPair;

/* Memory a backend reads frames from or writes results to fastest. */
typedef enum {
  ME_MEMORY_SYSTEM,          /* plain host memory: nothing better */
  ME_MEMORY_HOST_PINNED,     /* page-locked host memory from host_alloc() */
} MEMemory;

/* What a backend can do.  Checked by me_backend_submit() before every
 * frame, and read by whoever offers a choice (the element's properties,
 * the tests' case lists). */
typedef struct {
  guint methods;             /* bit m: GstMotionVectorMethod m */
  guint refinements;         /* bit r: MERefine r (ME_REFINE_NONE always) */
  guint metrics;             /* bit m: MEMetric m (ME_METRIC_SAD always) */
  gboolean rate;             /* lambda > 0: the rate-constrained decision */
  unsigned max_range;        /* largest search range of the fast methods
                              * and of windows off centre, <= ME_MAX_RANGE */
  MEMemory frame_memory;     /* where frames are best read from */
  MEMemory result_memory;    /* where result cells are best written */
  gboolean bit_exact;        /* results identical to the CPU backend's */
  /* A CUDA backend: reads planes in device memory (MEPlane.on_device), and
   * with MEBackendOptions.current_cuda_context runs in the context the
   * caller makes current around every call. */
  gboolean cuda_device;
  /* Frames a session keeps for submit_pairs(): the newest and the
   * window - 1 before it; 0 when it has no submit_pairs. */
  unsigned window;
  /* The most bits per sample it searches (MEPlane.depth): 8, or 16 for
   * every depth up to 16. */
  unsigned max_depth;
  /* Largest range of the centred full search, <= ME_MAX_FULL_RANGE. */
  unsigned max_full_range;
} MEBackendCaps;

/* Per-frame measurements, handed to MEBackendOptions.stats at collect. */
typedef struct {
  guint64 frame;             /* frames collected before this one */
  gint64 submit_time;        /* g_get_monotonic_time() at submit, and */
  gint64 collect_time;       /* when collect returned (microseconds) */
  double device_ms;          /* device time of its kernels; < 0: unknown */
  gboolean has_reference;
  /* share of the full search's candidates that exact pruning skipped
   * (docs/elimination.md); < 0: none pruned, or unknown */
  double pruned_share;
} MEFrameStats;

typedef void (*MEStatsFunc) (const MEFrameStats * stats, gpointer user_data);

/* Which launches search a CUDA session's full searches
 * (MEBackendOptions.cuda_launch; docs/scaling.md, "Batched launches").
 * The fields are the same bytes whichever: only the pace of many streams
 * sharing a CUDA context changes. */
typedef enum {
  /* its own, except frames from host memory while more than 32 sessions
   * share its context: those go to the context's shared launcher, the
   * only way measured to keep every stream going there */
  ME_CUDA_LAUNCH_AUTO = 0,
  /* the context's shared launcher, for every full search of submit()
   * while another session uses it (a session alone launches its own) */
  ME_CUDA_LAUNCH_SHARED,
  /* its own always; the session does not join the launcher */
  ME_CUDA_LAUNCH_OWN,
} MECudaLaunch;

/* Which full search runs (docs/elimination.md): by the backend's own
 * documented rule, or the pruned one wherever the backend has it (checks
 * and benchmarks; the results are the same). */
typedef enum {
  ME_PRUNE_AUTO = 0,
  ME_PRUNE_ALWAYS,
} MEPrune;

/* How to open a backend.  me_backend_options_init() gives the defaults;
 * a backend reads what applies to it and ignores the rest. */
typedef struct {
  int device;                /* device index; -1: the backend's choice */
  unsigned threads;          /* CPU worker threads; 0: one per core */
  unsigned simd;             /* SIMD levels allowed (ME_CPU_FLAG_*); 0: the
                              * C reference only */
  gboolean exhaustive;       /* no early-out: every candidate is costed
                              * (the slow reference; same results) */
  MEPrune prune;             /* without `exhaustive`: when the full
                              * search skips candidates (MEPrune) */
  MEStatsFunc stats;         /* optional per-frame timing hook */
  gpointer stats_data;
  /* caps.cuda_device backends: the caller makes a CUDA context current
   * (cuCtxPushCurrent) around every call to the session, from open to
   * close, and the session lives in it instead of selecting `device`'s
   * primary context: one context shared with the caller's other CUDA
   * work, whose device memory the session can then read. */
  gboolean current_cuda_context;
  /* Optional: called on the calling thread around every call into the
   * session that may touch its device (open, submit, collect, reset,
   * set_in_flight, close): where the caller pushes and pops that context.
   * enter returns FALSE when it could not: open, submit and collect then
   * fail with ME_BACKEND_ERROR_DEVICE instead of running in whatever
   * context is current (the others run all the same, to let go). */
  gboolean (*enter) (gpointer context_data);
  void (*leave) (gpointer context_data);
  gpointer context_data;
  /* Backends that split frames over several devices: the devices to use,
   * in order (a device may be named twice: two sessions on one device);
   * n_devices 0: every device there is. */
  int devices[ME_MAX_DEVICES];
  unsigned n_devices;
  /* CUDA backends: whose launches search the frames (MECudaLaunch). */
  MECudaLaunch cuda_launch;
} MEBackendOptions;

void me_backend_options_init (MEBackendOptions * options);

typedef struct MESession MESession;

/* A backend's functions.  Input reaching them has been validated. */
typedef struct {
  const char *name;
  MEBackendCaps caps;

  /* Opens a session.  Fails with ME_BACKEND_ERROR_UNAVAILABLE when the
   * backend cannot run here. */
  MESession *(*open) (const MEBackendOptions * options, GError ** error);
  void (*close) (MESession * s);

  /* How many frames may be submitted before one must be collected, and
   * the depth that suits this backend best for searches like params
   * (NULL: the integer search) (optional: max when NULL). */
  unsigned (*max_in_flight) (MESession * s);
  unsigned (*default_in_flight) (MESession * s,
      const MESearchParams * params);
  /* Sets how many frames to keep in flight (1 .. max_in_flight). */
  void (*set_in_flight) (MESession * s, unsigned depth);

  gboolean (*submit) (MESession * s, const MEPlane * luma,
      const MESearchParams * params, MEField * out, GError ** error);
  gboolean (*collect) (MESession * s, GError ** error);
  /* Drops frames in flight (their fields are left undefined) and forgets
   * the reference. */
  void (*reset) (MESession * s);

  /* Optional (when caps say ME_MEMORY_HOST_PINNED): host memory the backend
   * reads and writes fastest, page-locked for a GPU, so that frames and
   * result cells can live there.  Independent of any session: memory may
   * outlive the session that was open when it was allocated. */
  void *(*host_alloc) (size_t size);
  void (*host_free) (void *ptr);

  /* Optional: device time of the frame collected last, in milliseconds
   * (< 0: none), and a name for the device the session runs on. */
  double (*last_device_ms) (MESession * s);
  const char *(*device_name) (MESession * s);

  /* Optional: takes the frame as the reference of the next one without
   * searching it (upload and border only).  It counts as a frame in
   * flight and is collected like one, with no field to complete; `luma`
   * must stay readable until then.  What a backend needs to be split
   * over several devices: each device searches some frames and is handed
   * the frames before them as references only. */
  gboolean (*submit_reference) (MESession * s, const MEPlane * luma,
      GError ** error);

  /* Optional (caps.window > 0): searches between any frames of a window
   * of the last caps.window frames, for references other than the
   * previous frame (several past frames, a future frame).  Adds `luma`
   * to the window as its newest frame (NULL: no new frame, as at the end
   * of a stream), then runs every pair, in order, with `params`.  It
   * counts as one frame in flight and is collected like one, completing
   * every pair's field (none with n_pairs 0); `luma` must stay readable
   * until then.  A session is driven either by submit() and
   * submit_reference() or by submit_pairs(): the first call of the other
   * kind forgets every frame, as reset() does.  Predictive's temporal
   * predictors pass only from one pair whose reference is its target's
   * previous frame to the next such pair, so that every other pair is
   * searched from its own frames alone (docs/references.md). */
  gboolean (*submit_pairs) (MESession * s, const MEPlane * luma,
      const MESearchParams * params, const MESearchPair * pairs,
      unsigned n_pairs, GError ** error);

  /* Optional: MEFrameStats.pruned_share of the frame collected last. */
  double (*last_pruned_share) (MESession * s);
} MEBackendOps;

/* ---- the registry --------------------------------------------------------- */

/* Every backend the project knows.  `id` is stable (it is the element's
 * enum value; 0 is "auto"); `ops` is NULL when this build lacks it. */
typedef struct {
  int id;
  const char *name;
  const char *description;
  const MEBackendOps *ops;
} MEBackendEntry;

/* In the order "auto" tries them: fastest first, "cpu" last. */
const MEBackendEntry *me_backend_registry (unsigned *n_entries);
/* A built backend by name; NULL if unknown or not built. */
const MEBackendOps *me_backend_find (const char *name);

/* ---- an open backend ------------------------------------------------------ */

typedef struct MEBackend MEBackend;

MEBackend *me_backend_open (const MEBackendOps * ops,
    const MEBackendOptions * options, GError ** error);
void me_backend_close (MEBackend * b);

const MEBackendOps *me_backend_get_ops (const MEBackend * b);
const char *me_backend_name (const MEBackend * b);
/* The device's name, or NULL when the backend has none to give. */
const char *me_backend_device_name (const MEBackend * b);

unsigned me_backend_max_in_flight (MEBackend * b);
/* The backend's preferred depth for searches like params (NULL: the
 * integer search). */
unsigned me_backend_default_in_flight (MEBackend * b,
    const MESearchParams * params);
void me_backend_set_in_flight (MEBackend * b, unsigned depth);

/* Validates the frame and parameters (me_check_input) and the backend's
 * capabilities, then hands the frame to the backend. */
gboolean me_backend_submit (MEBackend * b, const MEPlane * luma,
    const MESearchParams * params, MEField * out, GError ** error);
/* Checks what me_backend_submit() does for the new frame (if any) and
 * every pair's field, that the ages lie in the backend's window, and then
 * hands the searches over (submit_pairs above).  Fails with
 * ME_BACKEND_ERROR_UNSUPPORTED on a backend without submit_pairs. */
gboolean me_backend_submit_pairs (MEBackend * b, const MEPlane * luma,
    const MESearchParams * params, const MESearchPair * pairs,
    unsigned n_pairs, GError ** error);
gboolean me_backend_collect (MEBackend * b, GError ** error);
void me_backend_reset (MEBackend * b);

/* Whether the backend's capabilities cover the parameters (method,
 * refinement, range); the check me_backend_submit() applies after
 * me_check_input().  "auto" uses it to pass over a backend that cannot do
 * the search asked for. */
gboolean me_backend_supports (const MEBackendOps * ops,
    const MESearchParams * params, GError ** error);

/* Whether the backend searches samples of `depth` bits (0: 8). */
gboolean me_backend_supports_depth (const MEBackendOps * ops, unsigned depth,
    GError ** error);

/* The checks me_backend_submit() applies before the capabilities. */
gboolean me_check_input (const MEPlane * luma, const MESearchParams * params,
    const MEField * out, GError ** error);

#define ME_MAX_DIMENSION 8192

G_END_DECLS

#endif /* ME_BACKEND_H */
