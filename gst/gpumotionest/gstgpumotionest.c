/* gpumotionest — block-matching motion estimation element.
 *
 * SECTION:element-gpumotionest
 * @title: gpumotionest
 *
 * Finds a motion vector for every block of every frame against the previous
 * frame, derives the H.264 motion-vector prediction and the MVD, and attaches
 * all of it to the buffer as a #GstMotionVectorMeta.  The pixels pass through
 * untouched: the element never copies or changes them.
 *
 * The search runs on a backend: CUDA when a GPU is usable, otherwise the
 * CPU; both give bit-identical results.  The GPU backend keeps several
 * frames in flight so that uploads overlap the search; buffers still leave
 * in order, one for one.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! gpumotionest partitions=16x16+8x8 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"

#include <math.h>
#endif

#include <gst/motionvectors/gstmotionvectormeta.h>
#include <gst/motionvectors/summary-private.h>

#include "gstgpumotionest.h"
#include "gstmotionestjob.h"
#include "gstmotionrefs.h"
#include "gstmotionviews.h"
#include "gstmotionestcuda.h"
#include "gsthostallocator.h"
#include "gstcellpool.h"
#include "gstmotionhints.h"
#include "me_backend.h"
#include "me_cost.h"
#include "me_rate.h"
#include "mode_decision.h"

GST_DEBUG_CATEGORY (gst_gpu_motion_est_debug);
#define GST_CAT_DEFAULT gst_gpu_motion_est_debug

enum
{
  PROP_0,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_DEVICES,
  PROP_SEARCH_RANGE,
  PROP_PARTITIONS,
  PROP_METHOD,
  PROP_SUBPEL,
  PROP_METRIC,
  PROP_LAMBDA,
  PROP_QP,
  PROP_MODE_DECISION,
  PROP_SUMMARY,
  PROP_IN_FLIGHT,
  PROP_THREADS,
  PROP_ACTIVE_BACKEND,
  PROP_REFERENCES,
  PROP_DISPARITY_RANGE,
  PROP_DISPARITY_VERTICAL,
  PROP_CUDA_LAUNCH,
  /* gstmotionhints.h's GST_MOTION_HINTS_N_PROPS from here on: keep last */
  PROP_HINTS,
};

#define DEFAULT_BACKEND 0        /* auto */
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_DEVICES "all"
#define DEFAULT_SEARCH_RANGE 16
#define DEFAULT_PARTITIONS GST_MOTION_VECTOR_PARTITIONS_16X16
#define DEFAULT_METHOD GST_MOTION_VECTOR_METHOD_FULL
#define DEFAULT_SUBPEL ME_REFINE_NONE
#define DEFAULT_METRIC ME_METRIC_SAD
#define DEFAULT_LAMBDA 0
#define DEFAULT_QP -1
#define DEFAULT_MODE_DECISION FALSE
#define DEFAULT_SUMMARY FALSE
#define DEFAULT_IN_FLIGHT 0
#define DEFAULT_THREADS 0
#define DEFAULT_CUDA_LAUNCH ME_CUDA_LAUNCH_AUTO
#define MAX_IN_FLIGHT 64      /* 4 on each of 16 GPUs (cuda-multi) */

struct _GstGpuMotionEst
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gint backend_choice;          /* a registry id, 0 for auto */
  gint device_id;
  gchar *devices;               /* "all" or a list, for cuda-multi */
  guint threads;
  MECudaLaunch cuda_launch;
  guint search_range;
  GstMotionVectorPartitionFlags partitions;
  GstMotionVectorMethod method;
  MERefine subpel;
  MEMetric metric;
  guint lambda;
  gint qp;                      /* -1: lambda set directly */
  gboolean mode_decision;       /* read as each frame is collected */
  gboolean summary;             /* likewise */
  guint in_flight;
  gchar *references;            /* as set; refs parsed from it, or */
  GstMotionRefs refs;
  gchar *refs_error;            /* why it could not be */
  gchar *disparity;             /* as set; its range, or */
  gint disparity_min, disparity_max;
  gchar *disparity_error;       /* why it could not be read */
  guint disparity_vertical;
  GstMotionHintsSettings hint_settings;  /* encoder hints, motion messages */
  gboolean backend_dirty;       /* backend or device changed: reopen */
  gboolean depth_dirty;         /* in-flight changed: drain, set depth */

  /* streaming state, touched only from the streaming thread and while
   * streaming is stopped (start, stop, flush-stop); backend and depth are
   * written under the object lock too, for the property and latency
   * readers on other threads */
  MEBackend *backend;
  GstCellPool *cells;           /* result storage the backend prefers */
  guint depth;                  /* frames kept in flight */
  GstVideoInfo info;
  GQueue pending;               /* GstMotionEstJob: submitted, oldest first */
  /* GstBuffer and GstEvent in stream order: finished frames, and the
   * serialized events and pass-through buffers that followed them */
  GQueue ready;
  /* references other than the previous frame (gstmotionrefs.h): frames
   * held for their future references, the list in use */
  GstMotionRefWindow window;
  GstMotionViews views;         /* stereo: the views of the caps */
  GstClockTime prev_pts;
  GstMotionVectorSummary prev_summary;  /* the last frame's, for the score */
  GstMotionHints hints;
  /* QoS dropped a buffer: the next one leaves DISCONT (the stream has a
   * gap); and if the dropped one was DISCONT, the next one also starts
   * without a reference */
  gboolean gap_dropped;
  gboolean discont_dropped;
  gboolean warned_fallback;
  /* "auto" passed over a backend that cannot do the search asked for:
   * the parameters it was opened for, so that a change tries again */
  gboolean caps_fallback;
  MESearchParams opened_params;
  /* bits per luma sample of the negotiated format (8 before caps): "auto"
   * passes over a backend that cannot search them */
  guint sample_depth;

  /* The GstCudaContext shared with the pipeline (set_context, the CONTEXT
   * query); and the one the open session lives in, streaming state like
   * the backend, held apart because set_context may replace the former at
   * any time. */
  GstObject *cuda_context;
  GstObject *session_cuda_context;
};

/* Packed 4:2:2 and RGB are read in system memory only (docs/formats.md):
 * they are converted to 8-bit luma in the host-side copy every backend
 * makes of such frames, which memory on a GPU does not go through.  The
 * 10- to 16-bit formats (docs/high-bit-depth.md) are searched at their
 * depth, from either memory. */
#define DEEP_FORMATS "P010_10LE, P012_LE, P016_LE, I420_10LE, I420_12LE, " \
    "I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE, GRAY16_LE"
#define FORMATS "{ I420, YV12, NV12, NV21, Y42B, Y444, GRAY8, " \
    DEEP_FORMATS " }"
#define SYSTEM_FORMATS "{ I420, YV12, NV12, NV21, Y42B, Y444, GRAY8, " \
    "YUY2, UYVY, YVYU, BGRx, RGBx, xRGB, xBGR, BGRA, RGBA, ARGB, ABGR, " \
    DEEP_FORMATS " }"
#define CAPS_STR GST_VIDEO_CAPS_MAKE (SYSTEM_FORMATS) \
    ", width = (int) [ 1, 8192 ], height = (int) [ 1, 8192 ]"

/* Frames in CUDA memory pass through as they came, and the CUDA backend
 * reads them where they are (gstmotionestcuda.h). */
#if HAVE_GST_CUDA
#define ALL_CAPS_STR CAPS_STR "; " GST_VIDEO_CAPS_MAKE_WITH_FEATURES \
    (GST_MOTION_EST_CAPS_FEATURE_CUDA, FORMATS) \
    ", width = (int) [ 1, 8192 ], height = (int) [ 1, 8192 ]"
#else
#define ALL_CAPS_STR CAPS_STR
#endif

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (ALL_CAPS_STR));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (ALL_CAPS_STR));

#define gst_gpu_motion_est_parent_class parent_class
G_DEFINE_TYPE (GstGpuMotionEst, gst_gpu_motion_est, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (gpumotionest, "gpumotionest", GST_RANK_NONE,
    GST_TYPE_GPU_MOTION_EST);

/* The backend property's values: "auto", then every backend the project
 * knows (built in or not: asking for one this build lacks is a clear error
 * rather than a parse failure), with the registry's stable ids. */
#define GST_TYPE_GPU_MOTION_EST_BACKEND (gst_gpu_motion_est_backend_get_type ())
static GType
gst_gpu_motion_est_backend_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    unsigned n;
    const MEBackendEntry *reg = me_backend_registry (&n);
    GEnumValue *values = g_new0 (GEnumValue, n + 2);

    values[0] = (GEnumValue) {
    0, "The first backend of the list that can run here", "auto"};
    for (unsigned i = 0; i < n; i++)
      values[i + 1] = (GEnumValue) {
      reg[i].id, reg[i].description, reg[i].name};
    g_once_init_leave (&type,
        g_enum_register_static ("GstGpuMotionEstBackend", values));
  }
  return type;
}

/* Whose launches search a CUDA session's frames (me_backend.h,
 * docs/scaling.md "Batched launches"). */
#define GST_TYPE_GPU_MOTION_EST_CUDA_LAUNCH \
    (gst_gpu_motion_est_cuda_launch_get_type ())
static GType
gst_gpu_motion_est_cuda_launch_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {ME_CUDA_LAUNCH_AUTO, "Its own, except frames from system memory while "
          "more than 32 instances share the CUDA context: the shared "
          "launcher", "auto"},
    {ME_CUDA_LAUNCH_SHARED, "The CUDA context's shared launcher, which "
          "searches the frames of many instances in one launch", "shared"},
    {ME_CUDA_LAUNCH_OWN, "Its own launches always", "own"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstGpuMotionEstCudaLaunch", values));
  return type;
}

/* Stage 3 (kernels/me_search.h): how far below a pixel, and by what. */
#define GST_TYPE_GPU_MOTION_EST_SUBPEL (gst_gpu_motion_est_subpel_get_type ())
static GType
gst_gpu_motion_est_subpel_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {ME_REFINE_NONE, "Whole-pixel vectors", "none"},
    {ME_REFINE_HALF, "Half-pixel refinement (H.264 6-tap samples)", "half"},
    {ME_REFINE_QUARTER, "Half- then quarter-pixel refinement", "quarter"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstGpuMotionEstSubpel", values));
  return type;
}

#define GST_TYPE_GPU_MOTION_EST_METRIC (gst_gpu_motion_est_metric_get_type ())
static GType
gst_gpu_motion_est_metric_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {ME_METRIC_SAD, "Sum of absolute differences", "sad"},
    {ME_METRIC_SATD, "Sum of 4x4 Hadamard-transformed differences, halved "
          "(ranks sub-pel candidates; the integer search stays SAD)", "satd"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstGpuMotionEstMetric", values));
  return type;
}

/* The motion lambda of x264 at quantiser qp (its x264_lambda_tab, the
 * SAD-domain weight of one bit: 2^((qp - 12) / 6) rounded, at least 1; 5
 * at qp 26): the weight of one bit of MVD against one unit of SAD or
 * SATD. */
static guint
lambda_for_qp (gint qp)
{
  const double l = pow (2.0, (qp - 12) / 6.0);
  return MAX (1, (guint) (l + 0.5));
}

/* ---- backend lifetime --------------------------------------------------- */

/* A flush drops the data in flight.  Sticky events among it (tags, stream
 * start) still describe the stream: they are kept on the source pad, to go
 * before the next buffer, as a flush keeps them on a pad. */
static void
drop_object (GstGpuMotionEst * self, GstMiniObject * obj)
{
  if (GST_IS_EVENT (obj) && GST_EVENT_IS_STICKY (obj)
      && GST_EVENT_TYPE (obj) != GST_EVENT_SEGMENT
      && GST_EVENT_TYPE (obj) != GST_EVENT_EOS)
    gst_pad_store_sticky_event (GST_BASE_TRANSFORM_SRC_PAD (self),
        GST_EVENT (obj));
  gst_mini_object_unref (obj);
}

/* In `pending` for a submission that added a frame to the backend's
 * window and searched none (a frame waits for its future references):
 * collected like any other, with no buffer to hand on. */
static GstMotionEstJob window_only;

/* Pending and held frames go, each with what followed it (dropped, or
 * moved to `to` when not NULL); the window starts over. */
static void
release_jobs (GstGpuMotionEst * self, GQueue * to)
{
  GQueue *queues[] = { &self->pending, &self->window.held };
  GstMotionEstJob *job;
  GstMiniObject *obj;

  for (guint q = 0; q < G_N_ELEMENTS (queues); q++)
    while ((job = g_queue_pop_head (queues[q]))) {
      if (job == &window_only)
        continue;
      while ((obj = g_queue_pop_head (&job->followers))) {
        if (to)
          g_queue_push_tail (to, obj);
        else
          drop_object (self, obj);
      }
      gst_motion_est_job_free (job);
    }
  gst_motion_ref_window_reset (&self->window, &self->window.refs);
}

static void
drop_jobs (GstGpuMotionEst * self)
{
  GstMiniObject *obj;

  release_jobs (self, NULL);
  while ((obj = g_queue_pop_head (&self->ready)))
    drop_object (self, obj);
}

static void
set_backend (GstGpuMotionEst * self, MEBackend * backend)
{
  GST_OBJECT_LOCK (self);
  self->backend = backend;
  GST_OBJECT_UNLOCK (self);
}

/* Closes the backend; frames in flight must have been collected or
 * dropped. */
static void
close_session (GstGpuMotionEst * self)
{
  MEBackend *backend = self->backend;

  set_backend (self, NULL);
  me_backend_close (backend);
  g_clear_pointer (&self->cells, gst_cell_pool_free);
  gst_clear_object (&self->session_cuda_context);
}

static void
close_backend (GstGpuMotionEst * self)
{
  /* the backend first lets go of the frames in flight (a reset waits for
   * them), then their buffers and cells go back */
  if (self->backend)
    me_backend_reset (self->backend);
  drop_jobs (self);
  close_session (self);
  self->gap_dropped = self->discont_dropped = FALSE;
}

/* How many frames the backend is to keep in flight: the property, or the
 * backend's own choice for searches like params for 0.  The backend's
 * choice may change while streaming (a GPU's budget of frames in flight
 * is shared by the sessions open on it: docs/gpu-pipelines.md), so it is
 * asked again at every frame. */
static guint
wanted_depth (GstGpuMotionEst * self, guint in_flight,
    const MESearchParams * params)
{
  guint depth = in_flight ? in_flight :
      me_backend_default_in_flight (self->backend, params);

  return CLAMP (depth, 1, me_backend_max_in_flight (self->backend));
}

/* Sets the depth wanted_depth() gives.  Only with no frame in flight. */
static void
apply_depth (GstGpuMotionEst * self, guint in_flight,
    const MESearchParams * params)
{
  guint depth = wanted_depth (self, in_flight, params);

  me_backend_set_in_flight (self->backend, depth);
  GST_OBJECT_LOCK (self);
  self->depth = depth;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "%u frame(s) in flight", depth);
  /* The latency we add depends on the depth: let the pipeline ask again. */
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_latency (GST_OBJECT (self)));
}

/* The CUDA context a CUDA backend is to live in (shared with the
 * pipeline, or that of the frames in `first`), set up in `options`; NULL
 * when there is none to share, and the backend then picks its own. */
static GstObject *
cuda_session_context (GstGpuMotionEst * self, gint device_id,
    GstBuffer * first, MEBackendOptions * options)
{
  GstObject *ctx;

  /* As GStreamer's CUDA elements do, the field itself: a context the bin
   * hands over while this runs (need-context) lands there. */
  if (!gst_motion_est_cuda_ensure_context (GST_ELEMENT (self), device_id,
          first, &self->cuda_context))
    return NULL;
  GST_OBJECT_LOCK (self);
  ctx = gst_object_ref (self->cuda_context);
  GST_OBJECT_UNLOCK (self);
  options->current_cuda_context = TRUE;
  options->enter = gst_motion_est_cuda_push;
  options->leave = gst_motion_est_cuda_pop;
  options->context_data = ctx;
  return ctx;
}

/* The devices property: "all" (n = 0) or device numbers separated by
 * commas, in order; a number may repeat. */
static gboolean
parse_devices (const gchar * str, int *devices, unsigned *n, GError ** error)
{
  g_auto (GStrv) parts = NULL;
  g_autofree gchar *trimmed = g_strstrip (g_strdup (str ? str : "all"));

  *n = 0;
  if (!g_ascii_strcasecmp (trimmed, "all"))
    return TRUE;
  parts = g_strsplit (trimmed, ",", -1);
  if (!parts[0])                /* "" */
    goto bad;
  for (guint i = 0; parts[i]; i++) {
    guint64 v;
    if (*n == ME_MAX_DEVICES || !g_ascii_string_to_unsigned (g_strstrip
            (parts[i]), 10, 0, G_MAXINT, &v, NULL))
      goto bad;
    devices[(*n)++] = (int) v;
  }
  return TRUE;

bad:
  g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
      "devices \"%s\" is neither \"all\" nor a list of at most %d device "
      "numbers such as \"0,1\"", str, ME_MAX_DEVICES);
  return FALSE;
}

/* Opens the backend the properties ask for: that one, or for "auto" the
 * first of the registry that can do the search asked for and opens here.
 * A CUDA backend runs in the pipeline's shared CUDA context when there is
 * one, or in that of the frames (`first`, which may be NULL).  On failure
 * an error has been posted and there is no backend: no frame reaches one
 * until a later open succeeds. */
static gboolean
open_backend (GstGpuMotionEst * self, GstBuffer * first)
{
  g_autoptr (GString) skipped = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  MEBackendOptions options;
  MESearchParams params;
  const MEBackendEntry *reg;
  MEBackend *backend = NULL;
  unsigned n;
  gint choice;
  guint in_flight;
  gboolean caps_fallback = FALSE;

  g_assert (self->backend == NULL && g_queue_is_empty (&self->pending));

  me_backend_options_init (&options);
  me_search_params_init (&params);
  GST_OBJECT_LOCK (self);
  params.search_range = self->search_range;
  params.partitions = self->partitions;
  params.method = self->method;
  params.refine = self->subpel;
  params.metric = self->metric;
  params.lambda = self->lambda;
  params.summary = self->summary
      || gst_motion_hints_enabled (&self->hint_settings);
  choice = self->backend_choice;
  options.device = self->device_id;
  options.threads = self->threads;
  options.cuda_launch = self->cuda_launch;
  if (!parse_devices (self->devices, options.devices, &options.n_devices,
          &error)) {
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", error->message),
        (NULL));
    return FALSE;
  }
  in_flight = self->in_flight;
  self->backend_dirty = FALSE;
  self->depth_dirty = FALSE;
  GST_OBJECT_UNLOCK (self);

  reg = me_backend_registry (&n);
  for (unsigned i = 0; i < n && !backend; i++) {
    if (choice != 0 && reg[i].id != choice)
      continue;
    g_clear_error (&error);
    if (!reg[i].ops) {
      g_set_error (&error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNAVAILABLE,
          "this build has no %s backend", reg[i].name);
    } else if (choice == 0
        && (!me_backend_supports (reg[i].ops, &params, &error)
            || !me_backend_supports_depth (reg[i].ops, self->sample_depth,
                &error))) {
      caps_fallback = TRUE;
    } else {
      GstObject *ctx = NULL;
      MEBackendOptions o = options;

      if (reg[i].ops->caps.cuda_device)
        ctx = cuda_session_context (self, options.device, first, &o);
      backend = me_backend_open (reg[i].ops, &o, &error);
      if (backend) {
        self->session_cuda_context = ctx;
        break;
      }
      gst_clear_object (&ctx);
    }
    if (choice != 0)
      goto open_failed;
    GST_INFO_OBJECT (self, "%s backend: %s", reg[i].name, error->message);
    g_string_append_printf (skipped, "%s%s: %s", skipped->len ? "; " : "",
        reg[i].name, error->message);
  }
  if (!backend)
    goto open_failed;

  /* "auto" passed over a faster backend: say once why it is slower. */
  if (skipped->len && !self->warned_fallback) {
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ,
        ("Using the %s backend: the faster ones cannot be used here (%s).",
            me_backend_name (backend), skipped->str), (NULL));
    self->warned_fallback = TRUE;
  }

  set_backend (self, backend);
  self->caps_fallback = caps_fallback;
  self->opened_params = params;
  self->cells = gst_cell_pool_new (me_backend_get_ops (backend));
  self->prev_pts = GST_CLOCK_TIME_NONE;
  gst_motion_ref_window_reset (&self->window, &self->window.refs);
  apply_depth (self, in_flight, &params);
  GST_INFO_OBJECT (self, "using the %s backend%s%s", me_backend_name (backend),
      me_backend_device_name (backend) ? " on " : "",
      me_backend_device_name (backend) ? me_backend_device_name (backend) : "");
  g_object_notify (G_OBJECT (self), "active-backend");
  return TRUE;

  /* ERRORS */
open_failed:
  /* name the device asked for: a backend that finds no device at all
   * cannot say which one was meant */
  if (error && options.device >= 0)
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("The motion search backend could not be opened: %s (device-id %d)",
            error->message, options.device), ("backend %d", choice));
  else if (error)
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("The motion search backend could not be opened: %s",
            error->message), ("backend %d, device %d", choice,
            options.device));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("No motion search backend could be opened."), (NULL));
  return FALSE;
}

/* ---- frames in flight --------------------------------------------------- */

/* The partition decision of a finished frame (docs/mode-decision.md),
 * from its meta's own cells with the lambda they were costed with: host
 * code after the backend, so every backend gives the same decision.  Only
 * with two shapes or more. */
static void
attach_modes (GstMotionVectorMeta * meta, guint lambda)
{
  const GstMotionVectorCell *grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint mb_cols, mb_rows;
  guint8 *modes;
  GBytes *bytes;

  if (!meta || !(meta->partitions & (meta->partitions - 1)))
    return;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    grids[p] = gst_motion_vector_meta_get_grid (meta, p, NULL, NULL);
  mb_cols = gst_motion_vector_mb_cols (meta->analysis_width);
  mb_rows = gst_motion_vector_mb_rows (meta->analysis_height);
  modes = g_malloc ((gsize) mb_cols * mb_rows);
  me_mode_decide (grids, mb_cols, mb_rows, lambda, modes);
  bytes = g_bytes_new_take (modes, (gsize) mb_cols * mb_rows);
  gst_motion_vector_meta_set_modes (meta, bytes);
  g_bytes_unref (bytes);
}

/* After a failed collect or submit the element and the backend may no
 * longer agree on which frames are in flight: a context that cannot be
 * made current collects nothing, and cuda-multi drops its frames when a
 * reference copy fails.  So the backend is reset, which waits for whatever
 * it still runs (copies into the frames' cells included), and the frames
 * the element holds go with the error; what followed them (events, gap
 * buffers) still leaves, in order.  The next frame has no reference. */
static void
abandon_in_flight (GstGpuMotionEst * self)
{
  if (self->backend)
    me_backend_reset (self->backend);
  release_jobs (self, &self->ready);
  self->prev_pts = GST_CLOCK_TIME_NONE;
  /* the next buffer that leaves follows a gap */
  self->gap_dropped = TRUE;
}

/* Waits for the oldest frame in flight and moves it to the ready queue. */
static GstFlowReturn
collect_one (GstGpuMotionEst * self)
{
  g_autoptr (GError) error = NULL;
  GstMotionEstJob *job = g_queue_pop_head (&self->pending);
  guint lambda = job->params.lambda;
  GstMotionHintsSettings hint_settings;
  gboolean decide, summarize;

  if (!me_backend_collect (self->backend, &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Motion search failed on the %s backend: %s",
            me_backend_name (self->backend),
            error->message), (NULL));
    g_queue_push_head (&self->pending, job);
    abandon_in_flight (self);
    return GST_FLOW_ERROR;
  }
  if (job == &window_only)
    return GST_FLOW_OK;
  GST_OBJECT_LOCK (self);
  decide = self->mode_decision;
  summarize = self->summary;
  hint_settings = self->hint_settings;
  GST_OBJECT_UNLOCK (self);
  {
    GQueue followers = G_QUEUE_INIT;
    GstMiniObject *obj;
    GstMotionVectorMeta *meta = NULL;
    const MvsCore core = job->summary_core;
    GstBuffer *buffer = gst_motion_est_job_finish (job, &followers, &meta);

    /* several references: partitions and references together
     * (docs/references.md); else the first field's partitions */
    if (decide && !gst_motion_refs_decide (buffer, lambda))
      attach_modes (meta, lambda);
    /* The frame's summary (docs/summary.md), when asked for or read by
     * the hints; the reference resets reach it through the field's
     * no-reference flag.  Frames without one leave no previous summary,
     * so a score is never taken against an older frame. */
    if (summarize || gst_motion_hints_enabled (&hint_settings))
      gst_motion_vector_summary_attach_with_core (meta, &core,
          &self->prev_summary);
    else
      memset (&self->prev_summary, 0, sizeof (self->prev_summary));
    /* With the meta complete: a force-key-unit event queued just before
     * the buffer, ROI metas, motion messages (gstmotionhints.h). */
    gst_motion_hints_frame (&self->hints, &hint_settings, GST_ELEMENT (self),
        &GST_BASE_TRANSFORM (self)->segment, buffer, meta, &self->ready);
    /* What followed the frame leaves right after it. */
    g_queue_push_tail (&self->ready, buffer);
    while ((obj = g_queue_pop_head (&followers)))
      g_queue_push_tail (&self->ready, obj);
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
collect_all (GstGpuMotionEst * self)
{
  while (!g_queue_is_empty (&self->pending)) {
    GstFlowReturn ret = collect_one (self);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  return GST_FLOW_OK;
}

/* Sends on an event that waited for the frames before it.  The base class
 * does what it does with any event (a tag, a gap, a custom event), now. */
static gboolean
forward_event (GstGpuMotionEst * self, GstEvent * event)
{
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event
      (GST_BASE_TRANSFORM (self), event);
}

static GstFlowReturn submit_window (GstGpuMotionEst * self,
    GstMotionEstJob * job);

/* The frames held for future references are searched against those that
 * exist (the stream ends, or is cut), and collected. */
static GstFlowReturn
finish_window (GstGpuMotionEst * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK && !g_queue_is_empty (&self->window.held))
    ret = submit_window (self, NULL);
  if (ret == GST_FLOW_OK)
    ret = collect_all (self);
  return ret;
}

/* Finishes every frame in flight and sends it downstream with what
 * followed it, in order. */
static GstFlowReturn
drain (GstGpuMotionEst * self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GstMiniObject *obj;

  if (self->backend)
    ret = finish_window (self);
  while ((obj = g_queue_pop_head (&self->ready))) {
    if (GST_IS_EVENT (obj)) {
      forward_event (self, GST_EVENT (obj));
    } else {
      GstFlowReturn r = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self),
          GST_BUFFER (obj));
      if (ret == GST_FLOW_OK)
        ret = r;
    }
  }
  return ret;
}

/* Queues a serialized event or a pass-through buffer behind the frames in
 * flight.  FALSE when nothing is in flight or waiting: it may go now. */
static gboolean
queue_behind_frames (GstGpuMotionEst * self, GstMiniObject * obj)
{
  /* the newest frame: held for a future reference, or else in flight */
  GstMotionEstJob *last = gst_motion_ref_window_newest (&self->window);

  for (GList * l = self->pending.tail; !last && l; l = l->prev)
    if (l->data != &window_only)
      last = l->data;
  if (last) {
    g_queue_push_tail (&last->followers, obj);
    return TRUE;
  }
  if (!g_queue_is_empty (&self->ready)) {
    g_queue_push_tail (&self->ready, obj);
    return TRUE;
  }
  return FALSE;
}

/* Under "auto", whether the backend open is no longer the one to use: it
 * cannot do the search now asked for, or it was chosen because a faster one
 * could not do the search asked for then. */
static gboolean
auto_choice_stale (GstGpuMotionEst * self, const MESearchParams * params)
{
  if (!self->backend)
    return TRUE;
  if (!me_backend_supports (me_backend_get_ops (self->backend), params, NULL)
      || !me_backend_supports_depth (me_backend_get_ops (self->backend),
          self->sample_depth, NULL))
    return TRUE;
  return self->caps_fallback
      && (params->method != self->opened_params.method
      || params->metric != self->opened_params.metric
      || (params->lambda != 0) != (self->opened_params.lambda != 0)
      || params->refine != self->opened_params.refine
      || params->search_range != self->opened_params.search_range);
}

/* GstBaseTransform's chain notes a DISCONT buffer before it hands it to
 * submit_input_buffer, and marks the next buffer that leaves: with frames
 * in flight an older, continuous frame.  It does the same after a buffer
 * that QoS dropped.  So the element decides which buffers leave DISCONT:
 * the flag is taken off incoming buffers before the chain sees it and
 * kept in their qdata (the strip_discont probe); submit_input_buffer marks the
 * buffers that are to leave DISCONT with the same qdata, and a probe on
 * the source pad sets the flag on exactly those (place_discont). */
static GQuark discont_quark;

static gboolean
strip_discont_one (GstBuffer ** buf, guint idx, gpointer user_data)
{
  if (GST_BUFFER_IS_DISCONT (*buf)) {
    *buf = gst_buffer_make_writable (*buf);
    GST_BUFFER_FLAG_UNSET (*buf, GST_BUFFER_FLAG_DISCONT);
    gst_mini_object_set_qdata (GST_MINI_OBJECT (*buf), discont_quark,
        GINT_TO_POINTER (1), NULL);
  }
  return TRUE;
}

static gboolean
strip_needed (GstBuffer * buf)
{
  return GST_BUFFER_IS_DISCONT (buf);
}

static gboolean
place_discont_one (GstBuffer ** buf, guint idx, gpointer user_data)
{
  const gboolean want = gst_mini_object_steal_qdata (GST_MINI_OBJECT (*buf),
      discont_quark) != NULL;

  if (want != GST_BUFFER_IS_DISCONT (*buf)) {
    *buf = gst_buffer_make_writable (*buf);
    if (want)
      GST_BUFFER_FLAG_SET (*buf, GST_BUFFER_FLAG_DISCONT);
    else
      GST_BUFFER_FLAG_UNSET (*buf, GST_BUFFER_FLAG_DISCONT);
  }
  return TRUE;
}

static gboolean
place_needed (GstBuffer * buf)
{
  return (gst_mini_object_get_qdata (GST_MINI_OBJECT (buf),
          discont_quark) != NULL) != GST_BUFFER_IS_DISCONT (buf);
}

/* One of the two probes: what it does to a buffer, and whether a buffer
 * needs it (a list is made writable only when one of its buffers does). */
typedef struct {
  GstBufferListFunc apply;
  gboolean (*needed) (GstBuffer * buf);
} DiscontProbe;

static const DiscontProbe strip_discont = { strip_discont_one, strip_needed };
static const DiscontProbe place_discont = { place_discont_one, place_needed };

static GstPadProbeReturn
discont_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  const DiscontProbe *probe = user_data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

    probe->apply (&buf, 0, NULL);
    GST_PAD_PROBE_INFO_DATA (info) = buf;
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *list = GST_PAD_PROBE_INFO_BUFFER_LIST (info);
    gboolean any = FALSE;

    for (guint i = 0; i < gst_buffer_list_length (list); i++)
      any |= probe->needed (gst_buffer_list_get (list, i));
    if (any) {
      list = gst_buffer_list_make_writable (list);
      gst_buffer_list_foreach (list, probe->apply, NULL);
      GST_PAD_PROBE_INFO_DATA (info) = list;
    }
  }
  return GST_PAD_PROBE_OK;
}

static gboolean
drop_field_meta (GstBuffer * buffer, GstMeta ** meta, gpointer user_data)
{
  if ((*meta)->info->api == GST_MOTION_VECTOR_META_API_TYPE) {
    if (GST_META_FLAG_IS_SET (*meta, GST_META_FLAG_LOCKED))
      *(gboolean *) user_data = TRUE;
    else
      *meta = NULL;
  }
  return TRUE;
}

/* One field per buffer: a motion-vector meta that came in with the frame
 * (an earlier gpumotionest's, kept through a scaler) would be the one
 * gst_buffer_get_motion_vector_meta() returns, in place of this element's.
 * A locked one (a buffer pool's) stays on the pool's buffer, and the frame
 * goes on as a copy without it. */
static GstBuffer *
drop_field_metas (GstBuffer * buffer)
{
  gboolean locked = FALSE;

  if (!gst_buffer_get_motion_vector_meta (buffer))
    return buffer;
  buffer = gst_buffer_make_writable (buffer);
  gst_buffer_foreach_meta (buffer, drop_field_meta, &locked);
  if (locked) {
    GstBuffer *copy = gst_buffer_copy (buffer);

    gst_buffer_unref (buffer);
    buffer = copy;
    gst_buffer_foreach_meta (buffer, drop_field_meta, &locked);
  }
  return buffer;
}

/* One submission to the backend's window (me_backend.h, submit_pairs):
 * `luma` added (NULL: none) and the pairs searched with `params`; in
 * flight as `owner`, the frame whose last search this is (NULL: others
 * follow, or none).  On an error `owner` goes with the frames in flight,
 * what followed it still leaving. */
static GstFlowReturn
submit_item (GstGpuMotionEst * self, const MEPlane * luma,
    const MESearchParams * params, const MESearchPair * pairs, guint n_pairs,
    GstMotionEstJob * owner)
{
  g_autoptr (GError) error = NULL;

  while (g_queue_get_length (&self->pending) >= self->depth) {
    GstFlowReturn ret = collect_one (self);
    if (ret != GST_FLOW_OK) {
      if (owner)
        gst_motion_est_job_free (owner);
      return ret;
    }
  }
  if (!me_backend_submit_pairs (self->backend, luma, params, pairs, n_pairs,
          &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Motion search failed on the %s backend: %s",
            me_backend_name (self->backend), error->message), (NULL));
    if (owner)
      g_queue_push_tail (&self->pending, owner);
    abandon_in_flight (self);
    return GST_FLOW_ERROR;
  }
  g_queue_push_tail (&self->pending, owner ? owner : &window_only);
  return GST_FLOW_OK;
}

/* Adds `added` (NULL: no more frames) to the backend's window and
 * searches the oldest held frame that can be searched now: one
 * submission, in flight like any other (gstmotionrefs.h). */
static GstFlowReturn
submit_window (GstGpuMotionEst * self, GstMotionEstJob * added)
{
  MESearchPair pairs[GST_MOTION_REFS_MAX];
  GstMotionEstJob *target;
  GstFlowReturn ret;
  guint n_pairs;

  /* the target is taken once a submission can go */
  while (g_queue_get_length (&self->pending) >= self->depth) {
    ret = collect_one (self);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  target = gst_motion_ref_window_next (&self->window, added == NULL, pairs,
      &n_pairs);
  if (!added && !target)
    return GST_FLOW_OK;
  /* each frame is searched with the settings it arrived with, which its
   * cells are laid out for */
  ret = submit_item (self, added ? &added->luma : NULL,
      target ? &target->params : &added->params, pairs, n_pairs, target);
  if (ret == GST_FLOW_OK && added
      && g_queue_get_length (&self->pending) >= self->depth)
    return collect_one (self);
  return ret;
}

/* Stereo (gstmotionviews.h): the searches of one buffer, one view or both.
 * `fbf_view` is the view of a frame-by-frame buffer, -1 for a frame that
 * carries both.  Each view is added to the window and searched against its
 * own past; each view after the first then against the first view of the
 * same instant, with `disparity`. */
static GstFlowReturn
submit_views (GstGpuMotionEst * self, GstMotionEstJob * job,
    const MESearchParams * disparity, gint fbf_view)
{
  MESearchPair pairs[GST_MOTION_EST_MAX_FIELDS];
  GstMotionRefWindow *w = &self->window;
  const guint first = fbf_view < 0 ? 0 : (guint) fbf_view;
  const guint last = fbf_view < 0 ? 1 : (guint) fbf_view;
  GstFlowReturn ret = GST_FLOW_OK;

  if (fbf_view >= 0 && (guint) fbf_view != w->next_view) {
    /* a view missing: what was searched is finished, and the views start
     * over from this buffer */
    GST_DEBUG_OBJECT (self, "view %d where view %u was due: starting over",
        fbf_view, w->next_view);
    ret = collect_all (self);
    if (ret != GST_FLOW_OK) {
      gst_motion_est_job_free (job);
      return ret;
    }
    me_backend_reset (self->backend);
    gst_motion_ref_window_reset (w, &w->refs);
  }
  if (fbf_view <= 0 || w->added == 0)
    gst_motion_ref_window_add_instant (w, job);
  else
    job->frame_no = w->added - 1;
  w->next_view = fbf_view == 0 ? 1 : 0;
  job->inter_view_range = ABS (disparity->offset_x)
      + disparity->search_range;

  for (guint v = first; v <= last; v++) {
    MEPlane plane;
    const guint n = gst_motion_views_pairs (w, job, v, FALSE, pairs);
    const gboolean done = v == 0 && last == 0;

    gst_motion_views_plane (&self->views, &job->luma, v, &plane);
    ret = submit_item (self, &plane, &job->params, pairs, n,
        done ? job : NULL);
    if (ret != GST_FLOW_OK) {
      if (!done)
        gst_motion_est_job_free (job);
      return ret;
    }
    if (v >= 1) {
      const guint m = gst_motion_views_pairs (w, job, v, TRUE, pairs);
      ret = submit_item (self, NULL, disparity, pairs, m, job);
      if (ret != GST_FLOW_OK)
        return ret;
    }
  }
  if (g_queue_get_length (&self->pending) >= self->depth)
    return collect_one (self);
  return ret;
}

/* ---- one input buffer, stage by stage ----------------------------------- */

/* What a frame is searched with: the properties as they were when it
 * arrived, read once under the object lock, and what must happen to the
 * backend before it is searched. */
typedef struct {
  MESearchParams params;
  MESearchParams disparity;     /* stereo: the search across the views */
  GstMotionRefs refs;
  gchar *refs_error;            /* why the references could not be read */
  gchar *disparity_error;       /* why the disparity range could not be */
  gboolean reopen;              /* open the backend (again) first */
  gboolean redepth;             /* set the depth again first */
  guint in_flight;
} FrameSettings;

static void
frame_settings_clear (FrameSettings * fs)
{
  g_clear_pointer (&fs->refs_error, g_free);
  g_clear_pointer (&fs->disparity_error, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FrameSettings, frame_settings_clear);

/* The buffer as the element takes it: through the base class (which
 * renegotiates when downstream asks and applies QoS), without the
 * motion-vector metas it came with, marked to leave DISCONT when it
 * follows a discontinuity or a dropped buffer.  NULL, with *ret saying
 * why, when there is nothing to search: QoS dropped it, or no caps came
 * before it.  *discont: the reference goes before this frame. */
static GstBuffer *
accept_input (GstGpuMotionEst * self, gboolean is_discont, GstBuffer * input,
    gboolean * discont, GstFlowReturn * ret)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  /* The base class's is_discont is not ours to follow: it stays TRUE
   * until a buffer has left, which with frames in flight is several
   * frames after the start or a flush.  Only the buffer's own DISCONT
   * flag (and a flush, a caps change) drops the reference.  Nor may the
   * base class see that flag (the strip_discont probe). */
  const gboolean own_discont =
      gst_mini_object_steal_qdata (GST_MINI_OBJECT (input), discont_quark)
      != NULL;

  /* The default implementation leaves the buffer in queued_buf. */
  *ret = GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans,
      is_discont, input);
  input = trans->queued_buf;
  trans->queued_buf = NULL;
  if (*ret != GST_FLOW_OK || !input) {
    /* QoS dropped it (GST_BASE_TRANSFORM_FLOW_DROPPED): the next buffer
     * follows a gap, and a discontinuity the dropped one carried is the
     * next one's too */
    if (*ret == GST_FLOW_OK || *ret == GST_BASE_TRANSFORM_FLOW_DROPPED) {
      self->gap_dropped = TRUE;
      self->discont_dropped |= own_discont;
    }
    gst_clear_buffer (&input);
    return NULL;
  }
  input = drop_field_metas (input);
  *discont = own_discont || self->discont_dropped;
  /* This buffer leaves DISCONT after a discontinuity or a dropped buffer;
   * only a discontinuity drops the reference (ready_backend()). */
  if (*discont || self->gap_dropped) {
    input = gst_buffer_make_writable (input);
    gst_mini_object_set_qdata (GST_MINI_OBJECT (input), discont_quark,
        GINT_TO_POINTER (1), NULL);
  }
  self->gap_dropped = self->discont_dropped = FALSE;

  if (!GST_VIDEO_INFO_FORMAT (&self->info)) {
    gst_buffer_unref (input);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer received before caps"));
    *ret = GST_FLOW_NOT_NEGOTIATED;
    return NULL;
  }
  return input;
}

/* The settings `input` is searched with, read under the object lock, and
 * whether the backend is to be reopened (a setting that needs another
 * session, or frames in another CUDA context) or its depth set again. */
static void
read_settings (GstGpuMotionEst * self, GstBuffer * input, FrameSettings * fs)
{
  me_search_params_init (&fs->params);
  GST_OBJECT_LOCK (self);
  fs->params.search_range = self->search_range;
  fs->params.partitions = self->partitions;
  fs->params.method = self->method;
  fs->params.refine = self->subpel;
  fs->params.metric = self->metric;
  fs->params.lambda = self->lambda;
  fs->params.summary = self->summary
      || gst_motion_hints_enabled (&self->hint_settings);
  fs->refs = self->refs;
  fs->refs_error = g_strdup (self->refs_error);
  fs->disparity = fs->params;
  gst_motion_views_disparity_params (&fs->disparity, self->disparity_min,
      self->disparity_max, self->disparity_vertical);
  fs->disparity_error = g_strdup (self->disparity_error);
  fs->reopen = self->backend_dirty || !self->backend
      || (self->backend_choice == 0
      && auto_choice_stale (self, &fs->params));
  /* Frames in CUDA memory of another context (an application's, a
   * decoder that shared none): the session moves to theirs, so that the
   * kernels read them where they are.  As at a caps change, the next frame
   * has no reference. */
  if (!fs->reopen && gst_motion_est_cuda_should_follow (input,
          self->session_cuda_context, self->device_id)) {
    GST_INFO_OBJECT (self, "frames in another CUDA context: following them");
    fs->reopen = TRUE;
  }
  fs->in_flight = self->in_flight;
  fs->redepth = self->depth_dirty && !fs->reopen;
  self->depth_dirty = FALSE;
  GST_OBJECT_UNLOCK (self);
}

/* Whether the references (and, in a stereo stream, the disparity range)
 * can be searched; if not, posts the error. */
static gboolean
check_settings (GstGpuMotionEst * self, FrameSettings * fs)
{
  if (!fs->refs_error && self->views.layout != GST_MOTION_VIEWS_MONO) {
    g_autoptr (GError) err = NULL;

    if (!gst_motion_views_check_refs (&fs->refs, &err)) {
      fs->refs_error = g_strdup (err->message);
    } else if (fs->disparity_error) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("Invalid disparity range: %s", fs->disparity_error), (NULL));
      return FALSE;
    }
  }
  if (fs->refs_error) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Invalid references: %s",
            fs->refs_error), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* The backend ready for the frame: the depth it is to have, the session
 * the settings need (reopened), the reference dropped at a
 * discontinuity, the window started over for a new list of references.
 * What is in flight is finished first wherever it would be lost. */
static GstFlowReturn
ready_backend (GstGpuMotionEst * self, const FrameSettings * fs,
    GstBuffer * input, gboolean discont)
{
  GstFlowReturn ret;
  gboolean redepth = fs->redepth;

  /* the backend's own depth depends on the search and on the sessions
   * sharing its device */
  if (!fs->reopen && !redepth && !fs->in_flight)
    redepth = wanted_depth (self, 0, &fs->params) != self->depth;

  /* A new depth keeps the reference: finish what is in flight first. */
  if (redepth) {
    ret = collect_all (self);
    if (ret != GST_FLOW_OK) {
      /* the next buffer tries again */
      GST_OBJECT_LOCK (self);
      self->depth_dirty = TRUE;
      GST_OBJECT_UNLOCK (self);
      return ret;
    }
    apply_depth (self, fs->in_flight, &fs->params);
  }

  /* Frames already in flight were searched against their own references;
   * finish them and send them on before the reference is dropped or the
   * backend replaced, so that a failing reopen loses none of them. */
  if (fs->reopen) {
    GST_DEBUG_OBJECT (self, "backend settings changed, reopening");
    ret = drain (self);
    if (ret != GST_FLOW_OK)
      return ret;
    close_session (self);
    if (!open_backend (self, input))
      return GST_FLOW_ERROR;
  } else if (discont) {
    ret = finish_window (self);
    if (ret != GST_FLOW_OK)
      return ret;
    GST_DEBUG_OBJECT (self, "discontinuity: dropping the reference");
    me_backend_reset (self->backend);
    self->prev_pts = GST_CLOCK_TIME_NONE;
    gst_motion_ref_window_reset (&self->window, &self->window.refs);
  }

  /* A new list of references: the frames held are searched against the
   * old one, and the new one starts without frames. */
  if (!gst_motion_refs_equal (&fs->refs, &self->window.refs)) {
    ret = finish_window (self);
    if (ret != GST_FLOW_OK)
      return ret;
    GST_DEBUG_OBJECT (self, "new references: starting over");
    me_backend_reset (self->backend);
    self->prev_pts = GST_CLOCK_TIME_NONE;
    gst_motion_ref_window_reset (&self->window, &fs->refs);
  }
  return GST_FLOW_OK;
}

/* A gap buffer is filler, whatever it holds (no picture at all, or a
 * black frame from a source without signal): it goes through as it is,
 * in its place, unsearched, and the reference stays for the next real
 * frame. */
static GstFlowReturn
pass_gap (GstGpuMotionEst * self, GstBuffer * input)
{
  GST_DEBUG_OBJECT (self, "gap buffer %" GST_PTR_FORMAT ": not searched",
      input);
  if (!queue_behind_frames (self, GST_MINI_OBJECT (input)))
    g_queue_push_tail (&self->ready, input);
  return GST_FLOW_OK;
}

/* The frame as a job (gstmotionestjob.h): its luma mapped, the cells of
 * its fields laid out, one field per reference, and in a stereo stream
 * per view plus the disparity (*fbf_view: the view of a frame-by-frame
 * buffer, -1 for a frame of both or a mono one).  NULL, with the error
 * posted and the buffer gone, for a buffer that cannot be mapped. */
static GstMotionEstJob *
wrap_frame (GstGpuMotionEst * self, GstBuffer * input,
    const FrameSettings * fs, gint * fbf_view)
{
  g_autoptr (GError) error = NULL;
  GstMapFlags device_map;
  GstMotionEstJob *job;

  /* The meta is added in place: the job holds the only reference. */
  input = gst_buffer_make_writable (input);
  device_map = gst_motion_est_cuda_map_flags (input,
      self->session_cuda_context);
  *fbf_view = -1;
  /* Stereo: each view's fields, and its disparity (gstmotionviews.h). */
  if (self->views.layout != GST_MOTION_VIEWS_MONO) {
    gint dist[GST_MOTION_EST_MAX_FIELDS];
    guint8 view[GST_MOTION_EST_MAX_FIELDS];
    gboolean inter[GST_MOTION_EST_MAX_FIELDS];
    guint n;

    if (self->views.layout == GST_MOTION_VIEWS_FRAME_BY_FRAME)
      *fbf_view = GST_BUFFER_FLAG_IS_SET (input,
          GST_VIDEO_BUFFER_FLAG_FIRST_IN_BUNDLE) ? 0 : 1;
    n = gst_motion_views_fields (&fs->refs, *fbf_view, dist, view, inter);
    job = gst_motion_est_job_new (input, &self->info, &fs->params, dist, n,
        self->views.width, self->views.height, self->cells, device_map,
        &error);
    if (job) {
      memcpy (job->field_view, view, n);
      memcpy (job->inter_view, inter, n * sizeof (gboolean));
    }
  } else {
    job = gst_motion_est_job_new (input, &self->info, &fs->params,
        fs->refs.dist, fs->refs.n, 0, 0, self->cells, device_map, &error);
  }
  if (!job) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Invalid video buffer: %s",
            error->message), ("buffer %" GST_PTR_FORMAT, input));
    gst_buffer_unref (input);
    return NULL;
  }
  /* The summary's core from the backend where it reduces the field it
   * made (the CUDA one, on the device): collect_one() then only finishes
   * it.  Asked for whenever a summary may be; unused otherwise. */
  if (fs->params.summary)
    job->fields[0].summary = &job->summary_core;
  return job;
}

/* The usual case, the previous frame the only reference: the job goes to
 * the backend's submit(), with the previous frame's timestamp as its
 * reference's; the oldest job is collected first while the queue is
 * full, and again once this one fills it. */
static GstFlowReturn
submit_previous (GstGpuMotionEst * self, GstMotionEstJob * job)
{
  g_autoptr (GError) error = NULL;

  /* The queue never holds more than depth frames. */
  while (g_queue_get_length (&self->pending) >= self->depth) {
    GstFlowReturn ret = collect_one (self);
    if (ret != GST_FLOW_OK) {
      gst_motion_est_job_free (job);
      return ret;
    }
  }

  job->ref_pts[0] = self->prev_pts;
  if (!me_backend_submit (self->backend, &job->luma, &job->params,
          &job->fields[0], &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Motion search failed on the %s backend: %s",
            me_backend_name (self->backend), error->message), (NULL));
    gst_motion_est_job_free (job);
    abandon_in_flight (self);
    return GST_FLOW_ERROR;
  }
  self->prev_pts = GST_BUFFER_PTS (job->buffer);
  g_queue_push_tail (&self->pending, job);

  if (g_queue_get_length (&self->pending) >= self->depth)
    return collect_one (self);
  return GST_FLOW_OK;
}

/* The job to the backend by the path its references take: a stereo
 * stream's views, other references than the previous frame through the
 * window, else the previous frame alone. */
static GstFlowReturn
submit_job (GstGpuMotionEst * self, GstMotionEstJob * job,
    const FrameSettings * fs, gint fbf_view)
{
  if (self->views.layout != GST_MOTION_VIEWS_MONO)
    return submit_views (self, job, &fs->disparity, fbf_view);
  if (!gst_motion_refs_previous_only (&fs->refs)) {
    gst_motion_ref_window_add (&self->window, job);
    return submit_window (self, job);
  }
  return submit_previous (self, job);
}

/* A buffer in, in the stages of docs/architecture.md: accepted, the
 * settings read and checked, the backend made ready for them, the frame
 * wrapped in a job (or a gap buffer passed on), the job submitted. */
static GstFlowReturn
gst_gpu_motion_est_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (trans);
  g_auto (FrameSettings) fs = { 0, };
  GstMotionEstJob *job;
  GstFlowReturn ret;
  gboolean discont = FALSE;
  gint fbf_view;

  input = accept_input (self, is_discont, input, &discont, &ret);
  if (!input)
    return ret;

  read_settings (self, input, &fs);
  if (!check_settings (self, &fs)) {
    gst_buffer_unref (input);
    return GST_FLOW_ERROR;
  }
  ret = ready_backend (self, &fs, input, discont);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (input);
    return ret;
  }

  if (GST_BUFFER_FLAG_IS_SET (input, GST_BUFFER_FLAG_GAP))
    return pass_gap (self, input);

  job = wrap_frame (self, input, &fs, &fbf_view);
  if (!job)
    return GST_FLOW_ERROR;
  return submit_job (self, job, &fs, fbf_view);
}

/* Hands the base class the next finished buffer; events that waited for
 * the buffers before them are sent on first. */
static GstFlowReturn
gst_gpu_motion_est_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (trans);
  GstMiniObject *obj;

  *outbuf = NULL;
  while ((obj = g_queue_pop_head (&self->ready))) {
    if (GST_IS_BUFFER (obj)) {
      *outbuf = GST_BUFFER (obj);
      break;
    }
    forward_event (self, GST_EVENT (obj));
  }
  return GST_FLOW_OK;
}

/* ---- events, queries, caps ------------------------------------------------ */

/* The stream ended or was flushed: motion going on is "finished". */
static void
end_hints (GstGpuMotionEst * self)
{
  GstMotionHintsSettings settings;

  GST_OBJECT_LOCK (self);
  settings = self->hint_settings;
  GST_OBJECT_UNLOCK (self);
  gst_motion_hints_eos (&self->hints, &settings, GST_ELEMENT (self),
      &GST_BASE_TRANSFORM (self)->segment);
}

static gboolean
gst_gpu_motion_est_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
    case GST_EVENT_CAPS:
    case GST_EVENT_SEGMENT:
      /* Everything received before these leaves before them; a new caps
       * or segment also starts over without frames of the old one. */
      if (drain (self) == GST_FLOW_ERROR) {
        gst_event_unref (event);
        return FALSE;
      }
      if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
        end_hints (self);
      break;
    case GST_EVENT_FLUSH_STOP:{
      gboolean ret;

      /* motion going on ends, in the segment it was in (the base class
       * resets it) */
      end_hints (self);
      /* Forwarded first: the source pad must have stopped flushing to
       * keep the sticky events among the dropped data. */
      ret = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
      /* the reset waits for the frames in flight: only then may their
       * buffers and cells go back */
      if (self->backend)
        me_backend_reset (self->backend);
      drop_jobs (self);
      self->prev_pts = GST_CLOCK_TIME_NONE;
      self->gap_dropped = self->discont_dropped = FALSE;
      return ret;
    }
    default:
      /* Any other serialized event (tag, gap, stream start, custom) waits
       * for the frames in flight before it. */
      if (GST_EVENT_IS_SERIALIZED (event)
          && queue_behind_frames (self, GST_MINI_OBJECT (event)))
        return TRUE;
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_gpu_motion_est_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (trans);

  /* Upstream asks for every buffer back (before a pool goes away, say). */
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_DRAIN)
    drain (self);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    GstObject *ctx;
    gboolean ret;

    GST_OBJECT_LOCK (self);
    ctx = self->cuda_context ? gst_object_ref (self->cuda_context) : NULL;
    GST_OBJECT_UNLOCK (self);
    ret = gst_motion_est_cuda_query_context (GST_ELEMENT (self), query, ctx);
    gst_clear_object (&ctx);
    if (ret)
      return TRUE;
  }

  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min, max, frame, added;
    gboolean live;

    if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
            query))
      return FALSE;
    gst_query_parse_latency (query, &live, &min, &max);
    /* A frame leaves when depth - 1 later frames have arrived, after
     * those its future references take. */
    GST_OBJECT_LOCK (self);
    frame = self->info.fps_n > 0
        ? gst_util_uint64_scale_int (GST_SECOND, self->info.fps_d,
        self->info.fps_n) : 0;
    added = self->backend ? frame * (self->depth - 1
        + gst_motion_refs_future (&self->refs)) : 0;
    GST_OBJECT_UNLOCK (self);
    GST_DEBUG_OBJECT (self, "adding latency %" GST_TIME_FORMAT,
        GST_TIME_ARGS (added));
    min += added;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += added;
    gst_query_set_latency (query, live, min, max);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static void
prepend_pool (GstQuery * query, GstBufferPool * pool, guint size)
{
  guint n = gst_query_get_n_allocation_pools (query);
  GstBufferPool *others[8];
  guint sizes[8], mins[8], maxs[8], kept = 0;

  for (guint i = 0; i < n && kept < G_N_ELEMENTS (others); i++, kept++)
    gst_query_parse_nth_allocation_pool (query, i, &others[kept],
        &sizes[kept], &mins[kept], &maxs[kept]);
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  for (guint i = 0; i < kept; i++) {
    gst_query_add_allocation_pool (query, others[i], sizes[i], mins[i],
        maxs[i]);
    gst_clear_object (&others[i]);
  }
}

static void
prepend_allocator (GstQuery * query, GstAllocator * allocator,
    const GstAllocationParams * params)
{
  guint n = gst_query_get_n_allocation_params (query);
  GstAllocator *others[8];
  GstAllocationParams p[8];
  guint kept = 0;

  for (guint i = 0; i < n && kept < G_N_ELEMENTS (others); i++, kept++)
    gst_query_parse_nth_allocation_param (query, i, &others[kept], &p[kept]);
  while (gst_query_get_n_allocation_params (query) > 0)
    gst_query_remove_nth_allocation_param (query, 0);
  gst_query_add_allocation_param (query, allocator, params);
  for (guint i = 0; i < kept; i++) {
    gst_query_add_allocation_param (query, others[i], &p[i]);
    gst_clear_object (&others[i]);
  }
}

/* Offers upstream a pool of the backend's preferred host memory (pinned
 * memory for the GPU): frames written there are uploaded without a staging
 * copy.  The element reads strided frames, but it passes its buffers on as
 * they are: GstVideoMeta is in the answer only if downstream's says so. */
static void
propose_pools (GstGpuMotionEst * self, GstQuery * query)
{
  g_autoptr (GstAllocator) allocator = NULL;
  GstAllocationParams params;
  GstStructure *config;
  GstBufferPool *pool;
  GstVideoInfo info;
  GstCaps *caps;
  gboolean need_pool;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !self->backend || !gst_video_info_from_caps (&info, caps))
    return;
  if (gst_motion_est_cuda_caps_are_cuda (caps)) {
    /* CUDA memory: a pool of the context our kernels run in, else of the
     * pipeline's; upstream's own pool is as good when it has one. */
    GstObject *ctx = self->session_cuda_context;
    if (!ctx && !gst_motion_est_cuda_ensure_context (GST_ELEMENT (self),
            self->device_id, NULL, &self->cuda_context))
      return;
    pool = gst_motion_est_cuda_pool_new (ctx ? ctx : self->cuda_context, caps,
        info.size);
    if (need_pool && pool) {
      GST_DEBUG_OBJECT (self, "offering a CUDA memory pool");
      prepend_pool (query, pool, info.size);
    }
    gst_clear_object (&pool);
    return;
  }
  allocator = gst_host_allocator_new (me_backend_get_ops (self->backend));
  if (!allocator)
    return;

  gst_allocation_params_init (&params);
  params.align = 63;
  prepend_allocator (query, allocator, &params);
  if (!need_pool)
    return;

  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (self, "could not configure the host-memory pool");
    gst_object_unref (pool);
    return;
  }
  GST_DEBUG_OBJECT (self, "offering a %s host-memory pool",
      me_backend_name (self->backend));
  /* Ours goes first: upstream takes the first pool and allocator it can
   * use.  Downstream's proposals follow. */
  prepend_pool (query, pool, info.size);
  gst_object_unref (pool);
}

/* Offers upstream the pools above, with room for the frames this element
 * holds: up to depth - 1 of upstream's buffers stay here while the chain
 * returns, so a pool with a limit must count them or it waits for buffers
 * that only more input would release. */
static gboolean
gst_gpu_motion_est_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (trans);
  guint held;

  /* Working in place, the base class asks downstream; its answer is only
   * a hint (a fakesink has none), so a refusal does not end the query. */
  GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
      decide_query, query);
  propose_pools (self, query);

  GST_OBJECT_LOCK (self);
  held = self->backend ? self->depth - 1 + gst_motion_refs_future
      (&self->refs) : 0;
  GST_OBJECT_UNLOCK (self);
  /* no pool offered: the entry without a pool still tells upstream how
   * many buffers its own pool needs */
  if (held && gst_query_get_n_allocation_pools (query) == 0) {
    GstCaps *caps = NULL;
    GstVideoInfo info;

    gst_query_parse_allocation (query, &caps, NULL);
    if (caps && gst_video_info_from_caps (&info, caps))
      gst_query_add_allocation_pool (query, NULL, info.size, 0, 0);
  }
  for (guint i = 0; held && i < gst_query_get_n_allocation_pools (query);
      i++) {
    GstBufferPool *pool = NULL;
    guint size, min, max;

    gst_query_parse_nth_allocation_pool (query, i, &pool, &size, &min, &max);
    min += held;
    if (max != 0 && max < min)
      max = min;
    gst_query_set_nth_allocation_pool (query, i, pool, size, min, max);
    gst_clear_object (&pool);
  }
  return TRUE;
}

static gboolean
gst_gpu_motion_est_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (trans);
  g_autoptr (GError) error = NULL;
  GstMotionViews views;
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, incaps))
    goto invalid_caps;
  if (!gst_motion_views_from_info (&views, &info, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", error->message),
        ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  self->views = views;
  /* a backend chosen by name must search the format's samples; under
   * "auto" the next frame reopens one that can (auto_choice_stale) */
  self->sample_depth = GST_VIDEO_INFO_COMP_DEPTH (&info, GST_VIDEO_COMP_Y);
  if (self->backend && self->backend_choice != 0
      && !me_backend_supports_depth (me_backend_get_ops (self->backend),
          self->sample_depth, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", error->message),
        ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }

  GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT, incaps);
  GST_OBJECT_LOCK (self);
  self->info = info;
  GST_OBJECT_UNLOCK (self);
  /* A new size or format starts a new sequence: no reference.  (The
   * CAPS event drained every frame held or in flight.) */
  if (self->backend)
    me_backend_reset (self->backend);
  self->prev_pts = GST_CLOCK_TIME_NONE;
  release_jobs (self, &self->ready);
  return TRUE;

  /* ERRORS */
invalid_caps:
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
      ("invalid caps %" GST_PTR_FORMAT, incaps));
  return FALSE;
}

static gboolean
gst_gpu_motion_est_start (GstBaseTransform * trans)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (trans);

  gst_video_info_init (&self->info);
  self->sample_depth = 8;
  return open_backend (self, NULL);
}

static gboolean
gst_gpu_motion_est_stop (GstBaseTransform * trans)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (trans);

  close_backend (self);
  GST_OBJECT_LOCK (self);
  gst_clear_object (&self->cuda_context);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void
gst_gpu_motion_est_set_context (GstElement * element, GstContext * context)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (element);

  /* Unlocked, as GStreamer's CUDA elements do: the library logs with the
   * element, which takes its lock. */
  gst_motion_est_cuda_set_context (element, context, self->device_id,
      &self->cuda_context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* ---- properties ----------------------------------------------------------- */

static void
gst_gpu_motion_est_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      /* a reopen starts without a reference: only for a new value */
      if (self->backend_choice != g_value_get_enum (value))
        self->backend_dirty = TRUE;
      self->backend_choice = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      /* The device decides the CUDA context shared with the pipeline,
       * chosen as streaming starts: later changes would leave the element
       * in another context than its neighbours. */
      if (GST_STATE (self) > GST_STATE_READY) {
        GST_WARNING_OBJECT (self, "device-id can only be set in NULL or "
            "READY: %d kept, %d ignored", self->device_id,
            g_value_get_int (value));
        break;
      }
      self->device_id = g_value_get_int (value);
      self->backend_dirty = TRUE;
      break;
    case PROP_DEVICES:
      /* as device-id: the GPUs are chosen as streaming starts */
      if (GST_STATE (self) > GST_STATE_READY) {
        GST_WARNING_OBJECT (self, "devices can only be set in NULL or "
            "READY: \"%s\" kept, \"%s\" ignored", self->devices,
            g_value_get_string (value));
        break;
      }
      g_free (self->devices);
      self->devices = g_value_dup_string (value);
      self->backend_dirty = TRUE;
      break;
    case PROP_SEARCH_RANGE:
      self->search_range = g_value_get_uint (value);
      break;
    case PROP_PARTITIONS:{
      guint p = g_value_get_flags (value);
      /* An empty set would search nothing: keep 16x16 then. */
      self->partitions = p ? p : GST_MOTION_VECTOR_PARTITIONS_16X16;
      break;
    }
    case PROP_SUBPEL:
      self->subpel = g_value_get_enum (value);
      break;
    case PROP_LAMBDA:
      self->lambda = g_value_get_uint (value);
      self->qp = -1;
      break;
    case PROP_QP:
      self->qp = g_value_get_int (value);
      if (self->qp >= 0)
        self->lambda = lambda_for_qp (self->qp);
      break;
    case PROP_METRIC:
      self->metric = g_value_get_enum (value);
      break;
    case PROP_MODE_DECISION:
      self->mode_decision = g_value_get_boolean (value);
      break;
    case PROP_SUMMARY:
      self->summary = g_value_get_boolean (value);
      break;
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      break;
    case PROP_IN_FLIGHT:
      self->in_flight = g_value_get_uint (value);
      self->depth_dirty = TRUE;
      break;
    case PROP_THREADS:
      if (self->threads != g_value_get_uint (value))
        self->backend_dirty = TRUE;
      self->threads = g_value_get_uint (value);
      break;
    case PROP_CUDA_LAUNCH:
      if (self->cuda_launch != (MECudaLaunch) g_value_get_enum (value))
        self->backend_dirty = TRUE;
      self->cuda_launch = g_value_get_enum (value);
      break;
    case PROP_REFERENCES:{
      g_autoptr (GError) err = NULL;
      const gchar *str = g_value_get_string (value);
      GstMotionRefs refs;

      if (!str)
        str = GST_MOTION_REFS_DEFAULT;
      g_free (self->references);
      self->references = g_strdup (str);
      g_clear_pointer (&self->refs_error, g_free);
      /* kept, and refused with an error at the next frame, so that a
       * wrong list is never searched as another one */
      if (gst_motion_refs_parse (str, &refs, &err))
        self->refs = refs;
      else
        self->refs_error = g_strdup (err->message);
      break;
    }
    case PROP_DISPARITY_RANGE:{
      g_autoptr (GError) err = NULL;
      const gchar *str = g_value_get_string (value);

      if (!str)
        str = GST_MOTION_VIEWS_DEFAULT_DISPARITY;
      g_free (self->disparity);
      self->disparity = g_strdup (str);
      g_clear_pointer (&self->disparity_error, g_free);
      if (!gst_motion_views_parse_disparity (str, &self->disparity_min,
              &self->disparity_max, &err))
        self->disparity_error = g_strdup (err->message);
      break;
    }
    case PROP_DISPARITY_VERTICAL:
      self->disparity_vertical = g_value_get_uint (value);
      break;
    default:
      if (prop_id < PROP_HINTS || !gst_motion_hints_set_property
          (&self->hint_settings, prop_id - PROP_HINTS, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gpu_motion_est_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, self->backend_choice);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_DEVICES:
      g_value_set_string (value, self->devices);
      break;
    case PROP_SEARCH_RANGE:
      g_value_set_uint (value, self->search_range);
      break;
    case PROP_PARTITIONS:
      g_value_set_flags (value, self->partitions);
      break;
    case PROP_SUBPEL:
      g_value_set_enum (value, self->subpel);
      break;
    case PROP_LAMBDA:
      g_value_set_uint (value, self->lambda);
      break;
    case PROP_QP:
      g_value_set_int (value, self->qp);
      break;
    case PROP_METRIC:
      g_value_set_enum (value, self->metric);
      break;
    case PROP_MODE_DECISION:
      g_value_set_boolean (value, self->mode_decision);
      break;
    case PROP_SUMMARY:
      g_value_set_boolean (value, self->summary);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_IN_FLIGHT:
      g_value_set_uint (value, self->in_flight);
      break;
    case PROP_THREADS:
      g_value_set_uint (value, self->threads);
      break;
    case PROP_CUDA_LAUNCH:
      g_value_set_enum (value, self->cuda_launch);
      break;
    case PROP_REFERENCES:
      g_value_set_string (value, self->references);
      break;
    case PROP_DISPARITY_RANGE:
      g_value_set_string (value, self->disparity);
      break;
    case PROP_DISPARITY_VERTICAL:
      g_value_set_uint (value, self->disparity_vertical);
      break;
    case PROP_ACTIVE_BACKEND:
      /* backend is written under the object lock, held here. */
      g_value_set_string (value, self->backend ?
          me_backend_name (self->backend) : NULL);
      break;
    default:
      if (prop_id < PROP_HINTS || !gst_motion_hints_get_property
          (&self->hint_settings, prop_id - PROP_HINTS, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gpu_motion_est_finalize (GObject * object)
{
  GstGpuMotionEst *self = GST_GPU_MOTION_EST (object);

  close_backend (self);
  gst_clear_object (&self->cuda_context);
  g_free (self->devices);
  g_free (self->references);
  g_free (self->refs_error);
  g_free (self->disparity);
  g_free (self->disparity_error);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_gpu_motion_est_class_init (GstGpuMotionEstClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_gpu_motion_est_debug, "gpumotionest", 0,
      "GPU block-matching motion estimation");
  discont_quark = g_quark_from_static_string ("gpumotionest-discont");

  gobject_class->set_property = gst_gpu_motion_est_set_property;
  gobject_class->get_property = gst_gpu_motion_est_get_property;
  gobject_class->finalize = gst_gpu_motion_est_finalize;
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_gpu_motion_est_set_context);

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the search runs (takes effect at the next frame)",
          GST_TYPE_GPU_MOTION_EST_BACKEND, DEFAULT_BACKEND, rw));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "GPU to use, -1 for that of the frames (CUDA memory) or the "
          "pipeline's shared CUDA context, else the first (set in NULL or "
          "READY, as GStreamer's CUDA elements take it)",
          -1, G_MAXINT, DEFAULT_DEVICE_ID, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICES,
      g_param_spec_string ("devices", "Devices",
          "GPUs the cuda-multi backend splits frames over: \"all\", or "
          "device numbers such as \"0,1\" (set in NULL or READY)",
          DEFAULT_DEVICES, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SEARCH_RANGE,
      g_param_spec_uint ("search-range", "Search range",
          "Largest vector component searched, in pixels (±range); method "
          "full goes up to 511 (the CUDA backends' to 256), the fast methods "
          "to 256",
          1, ME_MAX_FULL_RANGE, DEFAULT_SEARCH_RANGE, rw));
  g_object_class_install_property (gobject_class, PROP_PARTITIONS,
      g_param_spec_flags ("partitions", "Partitions",
          "Partition shapes to compute, each as its own grid",
          gst_motion_vector_partition_flags_get_type (), DEFAULT_PARTITIONS,
          rw));
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Search method",
          gst_motion_vector_method_get_type (), DEFAULT_METHOD, rw));
  g_object_class_install_property (gobject_class, PROP_SUBPEL,
      g_param_spec_enum ("subpel", "Sub-pixel refinement",
          "Refine the integer vectors to half or quarter pixels, with the "
          "reference interpolated as H.264 does", GST_TYPE_GPU_MOTION_EST_SUBPEL,
          DEFAULT_SUBPEL, rw));
  g_object_class_install_property (gobject_class, PROP_METRIC,
      g_param_spec_enum ("metric", "Metric",
          "Cost that ranks the sub-pixel candidates and that the cells report",
          GST_TYPE_GPU_MOTION_EST_METRIC, DEFAULT_METRIC, rw));
  g_object_class_install_property (gobject_class, PROP_LAMBDA,
      g_param_spec_uint ("lambda", "Lambda",
          "Rate-constrained decision: cost = distortion + lambda x bits of "
          "the MVD against the H.264 prediction; 0 = distortion only",
          0, ME_MAX_LAMBDA, DEFAULT_LAMBDA, rw));
  g_object_class_install_property (gobject_class, PROP_QP,
      g_param_spec_int ("qp", "QP",
          "Sets lambda as x264 does at this quantiser (2^((qp - 12) / 6), "
          "5 at qp 26); -1 when lambda is set directly",
          -1, 51, DEFAULT_QP, rw));
  g_object_class_install_property (gobject_class, PROP_MODE_DECISION,
      g_param_spec_boolean ("mode-decision", "Mode decision",
          "Choose each macroblock's partition among the requested shapes "
          "(at least two) by the cells' costs plus lambda x the bits of its "
          "H.264 macroblock type, and attach it to the meta (applies to the "
          "frames collected after a change)", DEFAULT_MODE_DECISION, rw));
  g_object_class_install_property (gobject_class, PROP_SUMMARY,
      g_param_spec_boolean ("summary", "Motion summary",
          "Attach each frame's motion summary to the meta: global motion, "
          "the share of moving blocks, a scene-change score "
          "(docs/summary.md); a cost at every frame (host CPU time, or a "
          "reduction on the GPU with backend=cuda), so off unless asked "
          "for or needed by keyframe-on-cut, roi or motion-events",
          DEFAULT_SUMMARY, rw));
  g_object_class_install_property (gobject_class, PROP_IN_FLIGHT,
      g_param_spec_uint ("in-flight", "Frames in flight",
          "Frames queued on the backend at once, 0 for the backend's "
          "default; more overlaps transfers with compute and adds latency",
          0, MAX_IN_FLIGHT, DEFAULT_IN_FLIGHT, rw));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "CPU threads the search may use, 0 for one per core (takes effect "
          "at the next frame)", 0, 256, DEFAULT_THREADS, rw));
  g_object_class_install_property (gobject_class, PROP_CUDA_LAUNCH,
      g_param_spec_enum ("cuda-launch", "CUDA launches",
          "CUDA backends: whose kernel launches search the frames, when many "
          "instances share a CUDA context; the vectors are the same either "
          "way (takes effect at the next frame; docs/scaling.md)",
          GST_TYPE_GPU_MOTION_EST_CUDA_LAUNCH, DEFAULT_CUDA_LAUNCH, rw));
  g_object_class_install_property (gobject_class, PROP_REFERENCES,
      g_param_spec_string ("references", "References",
          "The pictures each frame is searched against, as signed frame "
          "distances separated by commas: -1 the previous frame, -2 the one "
          "before, +1 the next (held back until it arrives); one meta per "
          "reference, in this order (docs/references.md)",
          GST_MOTION_REFS_DEFAULT, rw));
  g_object_class_install_property (gobject_class, PROP_DISPARITY_RANGE,
      g_param_spec_string ("disparity-range", "Disparity range",
          "Stereo video (multiview-mode side-by-side, top-bottom or "
          "frame-by-frame): how far across, in pixels, a block of the second "
          "view is searched for in the first view at the same instant, as "
          "MIN,MAX, or N for 0 to N (32: 0,32; -32: -32,0) (docs/stereo.md)",
          GST_MOTION_VIEWS_DEFAULT_DISPARITY, rw));
  g_object_class_install_property (gobject_class, PROP_DISPARITY_VERTICAL,
      g_param_spec_uint ("disparity-vertical", "Disparity vertical range",
          "Stereo video: how far up and down, in pixels, the disparity "
          "search goes (views of a rig that is not perfectly rectified)",
          1, ME_MAX_VIEWS_RANGE, GST_MOTION_VIEWS_DEFAULT_VERTICAL, rw));
  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      g_param_spec_string ("active-backend", "Active backend",
          "The backend in use (cpu, cuda), NULL when stopped", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_motion_hints_install (gobject_class, PROP_HINTS, rw);

  gst_element_class_set_static_metadata (element_class,
      "GPU motion estimation", "Filter/Analyzer/Video",
      "Block-matching motion estimation: a motion vector, its H.264 "
      "prediction and MVD for every block, attached as metadata",
      "gpumotionest developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_gpu_motion_est_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_gpu_motion_est_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_gpu_motion_est_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_gpu_motion_est_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_gpu_motion_est_query);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_gpu_motion_est_propose_allocation);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_gpu_motion_est_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_gpu_motion_est_generate_output);

  gst_type_mark_as_plugin_api (GST_TYPE_GPU_MOTION_EST_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_GPU_MOTION_EST_CUDA_LAUNCH, 0);
}

static void
gst_gpu_motion_est_init (GstGpuMotionEst * self)
{
  self->backend_choice = DEFAULT_BACKEND;
  self->device_id = DEFAULT_DEVICE_ID;
  self->devices = g_strdup (DEFAULT_DEVICES);
  self->search_range = DEFAULT_SEARCH_RANGE;
  self->partitions = DEFAULT_PARTITIONS;
  self->method = DEFAULT_METHOD;
  self->subpel = DEFAULT_SUBPEL;
  self->lambda = DEFAULT_LAMBDA;
  self->qp = DEFAULT_QP;
  self->mode_decision = DEFAULT_MODE_DECISION;
  self->metric = DEFAULT_METRIC;
  self->in_flight = DEFAULT_IN_FLIGHT;
  self->summary = DEFAULT_SUMMARY;
  self->threads = DEFAULT_THREADS;
  self->cuda_launch = DEFAULT_CUDA_LAUNCH;
  gst_motion_hints_settings_init (&self->hint_settings);
  gst_motion_hints_reset (&self->hints);
  self->hints.key_units = 0;
  g_queue_init (&self->pending);
  g_queue_init (&self->ready);
  self->references = g_strdup (GST_MOTION_REFS_DEFAULT);
  self->disparity = g_strdup (GST_MOTION_VIEWS_DEFAULT_DISPARITY);
  gst_motion_views_parse_disparity (self->disparity, &self->disparity_min,
      &self->disparity_max, NULL);
  self->disparity_vertical = GST_MOTION_VIEWS_DEFAULT_VERTICAL;
  gst_motion_refs_parse (GST_MOTION_REFS_DEFAULT, &self->refs, NULL);
  gst_motion_ref_window_init (&self->window);
  self->prev_pts = GST_CLOCK_TIME_NONE;
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
  gst_pad_add_probe (GST_BASE_TRANSFORM_SINK_PAD (self),
      GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
      discont_probe, (gpointer) & strip_discont, NULL);
  gst_pad_add_probe (GST_BASE_TRANSFORM_SRC_PAD (self),
      GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
      discont_probe, (gpointer) & place_discont, NULL);
}
