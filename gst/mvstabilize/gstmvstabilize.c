/* mvstabilize — video stabilisation from the global motion.
 *
 * Input: frames in system or CUDA memory, each with gpumotionest's field
 * against the previous frame carrying its summary (gpumotionest
 * summary=true): a similarity model of the camera's motion.  The models
 * are composed into the camera path and smoothed over a window of
 * `lookahead` frames each side (or those lookahead-time makes at the
 * caps' frame rate; stabpath.c); frame t goes out once frame
 * t + lookahead has arrived, warped by mc_warp_picture() onto the
 * smoothed path and zoomed just enough to hide the borders, with the
 * correction as a custom meta (GST_MV_STABILIZE_META_NAME).
 *
 * A scene cut (the summary's flag), a frame without a reference, a
 * discontinuity, a gap, new caps, a new segment or stream and EOS end the
 * path's segment: the held frames go out first (the lookahead drained),
 * the next frame starts a new path.  A flush drops the held frames.  A
 * frame whose model few blocks agree with (global_share below
 * min-agreement) is not corrected, only zoomed as its neighbours are.
 * docs/stabilization.md gives the rules and their reasons.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/motionvectors/gstmotionvectormeta.h>

#include "mc.h"
#include "gstmotionestcuda.h"
#include "gstmcframe.h"
#include "gstmcbackend.h"
#include "gstmcoutput.h"
#include "gstmvstabilize.h"
#include "stabpath.h"

GST_DEBUG_CATEGORY (gst_mv_stabilize_debug);
#define GST_CAT_DEFAULT gst_mv_stabilize_debug

/* Every format gpumotionest takes, as mvdenoise: each component read and
 * written where GstVideoInfo puts it. */
#define FORMATS_8 "I420, YV12, NV12, NV21, Y42B, Y444, GRAY8, YUY2, UYVY, " \
    "YVYU, BGRx, RGBx, xRGB, xBGR, BGRA, RGBA, ARGB, ABGR"
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
#define FORMATS "{ " FORMATS_8 ", P010_10LE, P012_LE, P016_LE, I420_10LE, " \
    "I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE, " \
    "GRAY16_LE }"
#else
#define FORMATS "{ " FORMATS_8 " }"
#endif
#define CUDA_FORMATS_8 "I420, YV12, NV12, NV21, Y42B, Y444, GRAY8"
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
#define CUDA_FORMATS "{ " CUDA_FORMATS_8 ", P010_10LE, P012_LE, P016_LE, " \
    "I420_10LE, I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, " \
    "Y444_16LE, GRAY16_LE }"
#else
#define CUDA_FORMATS "{ " CUDA_FORMATS_8 " }"
#endif

#define SIZES ", width = (int) [ 1, 8192 ], height = (int) [ 1, 8192 ]"
#if HAVE_GST_CUDA
#define CUDA_CAPS GST_VIDEO_CAPS_MAKE_WITH_FEATURES \
    (GST_MOTION_EST_CAPS_FEATURE_CUDA, CUDA_FORMATS) SIZES "; "
#else
#define CUDA_CAPS
#endif
#define CAPS CUDA_CAPS GST_VIDEO_CAPS_MAKE (FORMATS) SIZES

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (CAPS));

enum
{
  PROP_0,
  PROP_LOOKAHEAD,
  PROP_LOOKAHEAD_TIME,
  PROP_MAX_ZOOM,
  PROP_MIN_AGREEMENT,
  PROP_BACKEND,
  PROP_THREADS,
};

#define DEFAULT_LOOKAHEAD 30
#define DEFAULT_LOOKAHEAD_TIME 0
#define DEFAULT_MAX_ZOOM 1.25
#define DEFAULT_MIN_AGREEMENT 0.2
#define DEFAULT_BACKEND GST_MV_STABILIZE_BACKEND_AUTO
/* the property's values as the common backend code reads them */
G_STATIC_ASSERT ((gint) GST_MV_STABILIZE_BACKEND_AUTO
    == (gint) GST_MC_BACKEND_AUTO);
G_STATIC_ASSERT ((gint) GST_MV_STABILIZE_BACKEND_CPU
    == (gint) GST_MC_BACKEND_CPU);
G_STATIC_ASSERT ((gint) GST_MV_STABILIZE_BACKEND_CUDA
    == (gint) GST_MC_BACKEND_CUDA);
#define DEFAULT_THREADS 0

struct _GstMvStabilize
{
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;

  /* properties, under the object lock */
  guint lookahead;
  guint64 lookahead_time;       /* ns, 0: lookahead in frames */
  gdouble max_zoom;
  gdouble min_agreement;
  guint threads;
  gint fps_n, fps_d;            /* for the latency query */
  guint lookahead_used;         /* frames the path holds, for the latency
                                 * query: from lookahead-time and the
                                 * frame rate, or lookahead */
  gboolean lookahead_decided;   /* lookahead_used is that of a path */

  /* streaming state, under the stream lock */
  gboolean have_caps;
  GstVideoInfo info;
  StabPath *path;
  GQueue held;                  /* GstBuffer, oldest first: the frames the
                                 * path has not given out yet */
  GstBufferPool *pool;
  GstCaps *caps;
  gboolean cuda_caps;
  GstObject *cuda_ctx;          /* under the object lock */
  GstMcBackend mc;              /* requested, changed: under the object
                                 * lock (the backend property) */
  guint64 n_frames, n_corrected, n_cuts;
};

GType gst_mv_stabilize_backend_get_type (void);

GType
gst_mv_stabilize_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MV_STABILIZE_BACKEND_AUTO, "CUDA when usable, else the CPU",
        "auto"},
    {GST_MV_STABILIZE_BACKEND_CPU, "The CPU", "cpu"},
    {GST_MV_STABILIZE_BACKEND_CUDA, "CUDA (an error without a usable "
          "device)", "cuda"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMvStabilizeBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_mv_stabilize_parent_class parent_class
G_DEFINE_TYPE (GstMvStabilize, gst_mv_stabilize, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (mvstabilize, "mvstabilize", GST_RANK_NONE,
    GST_TYPE_MV_STABILIZE);

/* ---- the correction meta ------------------------------------------------- */

static const GstMetaInfo *
correction_meta_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter (&info)) {
    static const gchar *tags[] = { NULL };
    const GstMetaInfo *i = gst_meta_register_custom
        (GST_MV_STABILIZE_META_NAME, tags, NULL, NULL, NULL);
    g_once_init_leave (&info, i);
  }
  return info;
}

static void
add_correction_meta (GstBuffer * buf, const StabOutput * o, const double m[6])
{
  GstCustomMeta *meta;
  GstStructure *s;

  correction_meta_info ();
  meta = gst_buffer_add_custom_meta (buf, GST_MV_STABILIZE_META_NAME);
  if (!meta)
    return;
  s = gst_custom_meta_get_structure (meta);
  gst_structure_set (s,
      "frame", G_TYPE_UINT64, o->index,
      "corrected", G_TYPE_BOOLEAN, o->corrected,
      "segment-start", G_TYPE_BOOLEAN, o->segment_start,
      "dx", G_TYPE_DOUBLE, o->dx, "dy", G_TYPE_DOUBLE, o->dy,
      "angle", G_TYPE_DOUBLE, o->angle, "scale", G_TYPE_DOUBLE, o->scale,
      "crop", G_TYPE_DOUBLE, o->crop,
      "xx", G_TYPE_DOUBLE, m[0], "xy", G_TYPE_DOUBLE, m[1],
      "yx", G_TYPE_DOUBLE, m[2], "yy", G_TYPE_DOUBLE, m[3],
      "x0", G_TYPE_DOUBLE, m[4], "y0", G_TYPE_DOUBLE, m[5],
      "raw-x", G_TYPE_DOUBLE, o->raw[0], "raw-y", G_TYPE_DOUBLE, o->raw[1],
      "raw-angle", G_TYPE_DOUBLE, o->raw[2],
      "raw-log-scale", G_TYPE_DOUBLE, o->raw[3],
      "smooth-x", G_TYPE_DOUBLE, o->smooth[0],
      "smooth-y", G_TYPE_DOUBLE, o->smooth[1],
      "smooth-angle", G_TYPE_DOUBLE, o->smooth[2],
      "smooth-log-scale", G_TYPE_DOUBLE, o->smooth[3], NULL);
}

/* ---- CUDA context, session, pools ---------------------------------------- */

/* The frames' CUDA context, referenced (NULL: none). */
static GstObject *
cuda_ctx_ref (GstMvStabilize * self)
{
  return gst_mc_cuda_context_ref (GST_OBJECT (self), &self->cuda_ctx);
}

static gboolean
setup_cuda_pool (GstMvStabilize * self)
{
  GstObject *ctx = cuda_ctx_ref (self);
  gboolean ok;

  ok = gst_mc_output_setup_cuda_pool (&self->pool, ctx, self->caps,
      self->info.size);
  gst_clear_object (&ctx);
  return ok;
}

static gboolean
setup_pool (GstMvStabilize * self)
{
  if (self->cuda_caps)
    return setup_cuda_pool (self);
  return gst_mc_output_setup_pool (&self->pool, self->srcpad, self->caps,
      self->info.size, GST_CAT_DEFAULT);
}

/* ---- the path ------------------------------------------------------------ */

/* The frames to hold: lookahead-time at the caps' frame rate, rounded, 1
 * to STAB_PATH_MAX_LOOKAHEAD; lookahead when lookahead-time is 0 or the
 * frame rate is variable (or unknown).  Under the object lock. */
static guint
lookahead_frames (GstMvStabilize * self)
{
  guint64 n;

  if (self->lookahead_time == 0)
    return self->lookahead;
  if (self->fps_n <= 0 || self->fps_d <= 0) {
    GST_INFO_OBJECT (self, "variable frame rate (%d/%d): lookahead-time %"
        GST_TIME_FORMAT " cannot be counted in frames, lookahead=%u used",
        self->fps_n, self->fps_d, GST_TIME_ARGS (self->lookahead_time),
        self->lookahead);
    return self->lookahead;
  }
  n = gst_util_uint64_scale_round (self->lookahead_time, self->fps_n,
      (guint64) self->fps_d * GST_SECOND);
  n = CLAMP (n, 1, STAB_PATH_MAX_LOOKAHEAD);
  GST_DEBUG_OBJECT (self, "lookahead-time %" GST_TIME_FORMAT " at %d/%d: %"
      G_GUINT64_FORMAT " frames", GST_TIME_ARGS (self->lookahead_time),
      self->fps_n, self->fps_d, n);
  return (guint) n;
}

/* A new path with the properties' values (at the start, and after every
 * break: a lookahead or lookahead-time set while playing takes effect
 * there; the frame rate is the caps'). */
static void
new_path (GstMvStabilize * self)
{
  guint lookahead;
  gdouble max_zoom;

  stab_path_free (self->path);
  self->path = NULL;
  if (!self->have_caps) {
    GST_OBJECT_LOCK (self);
    self->lookahead_decided = FALSE;
    GST_OBJECT_UNLOCK (self);
    return;
  }
  GST_OBJECT_LOCK (self);
  lookahead = self->lookahead_used = lookahead_frames (self);
  self->lookahead_decided = TRUE;
  max_zoom = self->max_zoom;
  GST_OBJECT_UNLOCK (self);
  self->path = stab_path_new (GST_VIDEO_INFO_WIDTH (&self->info),
      GST_VIDEO_INFO_HEIGHT (&self->info), lookahead, max_zoom);
}

/* The motion of @buf against the previous frame from its summary, scaled
 * to the frame; FALSE (an error posted) when the buffer has none. */
static gboolean
motion_of (GstMvStabilize * self, GstBuffer * buf, StabMotion * m)
{
  GstMotionVectorMeta *meta =
      gst_buffer_get_motion_vector_meta_for_reference (buf, -1);
  GstMotionVectorSummary s;
  gdouble min_agreement;

  memset (m, 0, sizeof (*m));
  /* the first frame, or after the search dropped its reference: no
   * motion, a new path */
  if (meta && (meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE)) {
    m->cut = TRUE;
    return TRUE;
  }
  if (!meta || !(meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY)
      || !gst_motion_vector_meta_get_summary (meta, &s)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The frame at %" GST_TIME_FORMAT " has no motion summary against "
            "the previous frame: upstream needs \"gpumotionest "
            "summary=true\" (with the previous frame among its references)",
            GST_TIME_ARGS (GST_BUFFER_PTS (buf))),
        ("%s", meta ? "its field against the previous frame has no summary"
            : "no field against the previous frame (ref_distance -1)"));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  min_agreement = self->min_agreement;
  GST_OBJECT_UNLOCK (self);
  if ((meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE)
      || (s.flags & (GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE
              | GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE))) {
    m->cut = TRUE;
    return TRUE;
  }
  /* global_x, global_y: quarter pixels at the meta's width and height */
  m->dx = s.global_x / 4.0 * GST_VIDEO_INFO_WIDTH (&self->info)
      / MAX (meta->width, 1);
  m->dy = s.global_y / 4.0 * GST_VIDEO_INFO_HEIGHT (&self->info)
      / MAX (meta->height, 1);
  m->angle = s.rotation;
  m->zoom = s.zoom;
  m->reliable = s.global_share >= min_agreement;
  if (!m->reliable)
    GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %.0f%% of the blocks agree "
        "with the model, below %.0f%%: not corrected",
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)), 100 * s.global_share,
        100 * min_agreement);
  return TRUE;
}

/* ---- output -------------------------------------------------------------- */

/* The metas of @in on @out, but the video meta and memory-tagged ones. */
static gboolean
copy_meta (GstBuffer * in, GstMeta ** meta, gpointer out)
{
  const GstMetaInfo *info = (*meta)->info;
  GstMetaTransformCopy copy = { FALSE, 0, (gsize) - 1 };

  if (info->api == GST_VIDEO_META_API_TYPE
      || gst_meta_api_type_has_tag (info->api,
          g_quark_from_static_string (GST_META_TAG_MEMORY_STR)))
    return TRUE;
  if (info->transform_func)
    info->transform_func (out, *meta, in, _gst_meta_transform_copy, &copy);
  return TRUE;
}

static gboolean
is_identity (const MCWarp * w)
{
  return w->xx == MC_WARP_ONE && w->yy == MC_WARP_ONE && w->xy == 0
      && w->yx == 0 && w->x0 == 0 && w->y0 == 0;
}

/* Warps @in into @out with @w by the backend, the frames mapped where it
 * reads them. */
static gboolean
warp_frame (GstMvStabilize * self, GstBuffer * in, GstBuffer * out,
    const MCWarp * w)
{
  GstVideoFrame fi, fo;
  MCPicture pi, po;
  MCOptions opt;
  GstObject *ctx;
  GError *err = NULL;
  GstMapFlags iflags = 0, oflags = 0;
  gboolean ok, on_device, is_alpha;

  mc_options_init (&opt);
  GST_OBJECT_LOCK (self);
  opt.threads = self->threads;
  GST_OBJECT_UNLOCK (self);
  if (opt.threads == 0)
    opt.threads = MIN (g_get_num_processors (), 64);
  ctx = cuda_ctx_ref (self);
  ok = gst_motion_est_cuda_push (ctx);
  if (!ok)
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("could not make the frames' CUDA context current"));
  opt.impl = ok ? gst_mc_backend_resolve (&self->mc, GST_OBJECT (self),
      &err) : NULL;
  if (ok && !opt.impl) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("backend=cuda: %s", err ? err->message : "CUDA unusable"), (NULL));
    g_clear_error (&err);
    ok = FALSE;
  }
  on_device = ok && self->mc.is_cuda && ctx;
  if (on_device
      && !(opt.cuda_session = gst_mc_backend_session (&self->mc, ctx,
              &err))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("CUDA session: %s", err ? err->message : "?"));
    g_clear_error (&err);
    ok = FALSE;
  }
  if (ok && on_device) {
    iflags = gst_motion_est_cuda_map_flags (in, ctx);
    oflags = gst_motion_est_cuda_map_flags (out, ctx);
  }
  opt.device = (MCDevice) ((iflags ? MC_DEVICE_INPUTS : 0)
      | (oflags ? MC_DEVICE_OUTPUT : 0));
  if (ok) {
    if (!gst_video_frame_map (&fo, &self->info, out, GST_MAP_WRITE | oflags)) {
      ok = FALSE;
    } else if (!gst_video_frame_map (&fi, &self->info, in,
            GST_MAP_READ | iflags)) {
      gst_video_frame_unmap (&fo);
      ok = FALSE;
    }
    if (!ok)
      GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
          ("could not map the frames to warp"));
  }
  if (ok) {
    gst_mc_picture_from_frame (&fi, &pi);
    gst_mc_picture_from_frame (&fo, &po);
    ok = mc_warp_picture (&pi, &po, w, &opt, &err);
    /* alpha (and RGBx's x byte) moves with the picture */
    if (ok && gst_mc_extra_from_frame (&fo, &po, &is_alpha)) {
      gst_mc_extra_from_frame (&fi, &pi, &is_alpha);
      ok = mc_warp_picture (&pi, &po, w, &opt, &err);
    }
    if (!ok) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Warping failed: %s", err ? err->message : "?"), (NULL));
      g_clear_error (&err);
    }
    gst_video_frame_unmap (&fi);
    gst_video_frame_unmap (&fo);
  }
  gst_motion_est_cuda_pop (ctx);
  gst_clear_object (&ctx);
  return ok;
}

static GstFlowReturn
output_frame (GstMvStabilize * self, GstBuffer * in, const StabOutput * o)
{
  const guint width = GST_VIDEO_INFO_WIDTH (&self->info);
  const guint height = GST_VIDEO_INFO_HEIGHT (&self->info);
  GstBuffer *out = NULL;
  GError *err = NULL;
  GstFlowReturn ret;
  MCWarp w;
  double m[6];

  stab_output_affine (o, width, height, m);
  if (!mc_warp_from_double (&w, m[0], m[1], m[2], m[3], m[4], m[5], &err)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The correction of the frame "
            "at %" GST_TIME_FORMAT " is out of range: %s",
            GST_TIME_ARGS (GST_BUFFER_PTS (in)), err->message), (NULL));
    g_clear_error (&err);
    gst_buffer_unref (in);
    return GST_FLOW_ERROR;
  }
  self->n_frames++;
  if (o->corrected)
    self->n_corrected++;
  if (o->segment_start)
    self->n_cuts++;
  if (is_identity (&w)) {
    /* nothing moves: the frame itself */
    out = gst_buffer_make_writable (in);
  } else {
    if (!self->pool) {
      gst_buffer_unref (in);
      return GST_FLOW_NOT_NEGOTIATED;
    }
    ret = gst_buffer_pool_acquire_buffer (self->pool, &out, NULL);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (in);
      return ret;
    }
    if (!warp_frame (self, in, out, &w)) {
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      return GST_FLOW_ERROR;
    }
    gst_buffer_copy_into (out, in, GST_BUFFER_COPY_FLAGS
        | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    gst_buffer_foreach_meta (in, copy_meta, out);
    gst_buffer_unref (in);
  }
  GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": shift %.2f, %.2f px, turn "
      "%.3f deg, crop %.4f%s", GST_TIME_ARGS (GST_BUFFER_PTS (out)), o->dx,
      o->dy, o->angle * 180 / G_PI, o->crop, o->corrected ? ""
      : ", uncorrected");
  add_correction_meta (out, o, m);
  return gst_pad_push (self->srcpad, out);
}

/* Frames out while the path gives them (all of them when @draining). */
static GstFlowReturn
advance (GstMvStabilize * self, gboolean draining)
{
  GstFlowReturn ret = GST_FLOW_OK;
  StabOutput o;

  while (self->path && stab_path_pop (self->path, draining, &o)) {
    GstBuffer *in = g_queue_pop_head (&self->held);

    g_assert (in);
    ret = output_frame (self, in, &o);
    if (ret != GST_FLOW_OK)
      break;
  }
  return ret;
}

static void
drop_held (GstMvStabilize * self)
{
  GstBuffer *b;

  while ((b = g_queue_pop_head (&self->held)))
    gst_buffer_unref (b);
}

/* At a break: every held frame out, then a new path. */
static GstFlowReturn
drain (GstMvStabilize * self)
{
  GstFlowReturn ret = advance (self, TRUE);

  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "drain: %s", gst_flow_get_name (ret));
  drop_held (self);
  new_path (self);
  return ret;
}

static void
reset (GstMvStabilize * self)
{
  drop_held (self);
  new_path (self);
}

/* ---- input --------------------------------------------------------------- */

static gboolean
check_layout (GstMvStabilize * self, GstBuffer * buf)
{
  GstObject *ctx = cuda_ctx_ref (self);
  gboolean ok = gst_mc_check_frame (GST_ELEMENT (self), buf, &self->info,
      self->cuda_caps, ctx);

  gst_clear_object (&ctx);
  return ok;
}

static gboolean
follow_frames_context (GstMvStabilize * self, GstBuffer * buf)
{
  GstObject *ctx = cuda_ctx_ref (self);
  gboolean follow = gst_motion_est_cuda_should_follow (buf, ctx, -1);

  gst_clear_object (&ctx);
  if (!follow)
    return TRUE;
  if (!gst_motion_est_cuda_ensure_context (GST_ELEMENT (self), -1, buf,
          &self->cuda_ctx) || !setup_cuda_pool (self)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("could not move to the CUDA context of the frames"));
    return FALSE;
  }
  self->mc.resolved = FALSE;
  return TRUE;
}

static GstFlowReturn
gst_mv_stabilize_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstMvStabilize *self = GST_MV_STABILIZE (parent);
  GstFlowReturn ret;
  StabMotion m;

  if (!self->have_caps || !self->pool || !self->path) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("a buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)) {
    ret = drain (self);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return ret;
    }
    return gst_pad_push (self->srcpad, buf);
  }
  if (!motion_of (self, buf, &m)
      || (self->cuda_caps && !follow_frames_context (self, buf))
      || !check_layout (self, buf)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)
      && !g_queue_is_empty (&self->held)) {
    ret = drain (self);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return ret;
    }
  }
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT))
    m.cut = TRUE;
  stab_path_push (self->path, &m);
  g_queue_push_tail (&self->held, buf);
  return advance (self, FALSE);
}

/* ---- events and queries -------------------------------------------------- */

static gboolean
set_caps (GstMvStabilize * self, GstCaps * caps)
{
  GstVideoInfo info;
  gboolean cuda;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  cuda = gst_motion_est_cuda_caps_are_cuda (caps);
  if (self->have_caps && self->pool && cuda == self->cuda_caps
      && gst_video_info_is_equal (&info, &self->info))
    return TRUE;
  /* what is held was made with the old caps: out with them */
  if (self->have_caps)
    drain (self);
  if (cuda && !gst_motion_est_cuda_ensure_context (GST_ELEMENT (self), -1,
          NULL, &self->cuda_ctx)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("frames in CUDA memory, but no CUDA context could be opened"));
    return FALSE;
  }
  self->info = info;
  self->cuda_caps = cuda;
  gst_caps_replace (&self->caps, caps);
  GST_OBJECT_LOCK (self);
  self->fps_n = GST_VIDEO_INFO_FPS_N (&info);
  self->fps_d = GST_VIDEO_INFO_FPS_D (&info);
  GST_OBJECT_UNLOCK (self);
  self->have_caps = TRUE;
  new_path (self);
  if (!gst_pad_push_event (self->srcpad, gst_event_new_caps (caps)))
    return FALSE;
  if (!setup_pool (self)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (NULL),
        ("could not configure a buffer pool"));
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_mv_stabilize_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstMvStabilize *self = GST_MV_STABILIZE (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gboolean ok;

      gst_event_parse_caps (event, &caps);
      ok = set_caps (self, caps);
      gst_event_unref (event);
      return ok;
    }
    case GST_EVENT_SEGMENT:{
      GstSegment seg;

      gst_event_copy_segment (event, &seg);
      if (seg.format != GST_FORMAT_TIME) {
        GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
            ("segment of format %s, mvstabilize needs TIME",
                gst_format_get_name (seg.format)));
        gst_event_unref (event);
        return FALSE;
      }
      drain (self);
      break;
    }
    case GST_EVENT_STREAM_START:
    case GST_EVENT_GAP:
    case GST_EVENT_EOS:
      /* a break, or the end: the lookahead drained first */
      drain (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      reset (self);
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_mv_stabilize_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstMvStabilize *self = GST_MV_STABILIZE (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_ALLOCATION:
      /* frames are read, or passed on when nothing moves: upstream
       * allocates its own */
      return FALSE;
    case GST_QUERY_CONTEXT:{
      GstObject *ctx = cuda_ctx_ref (self);
      gboolean ok = gst_motion_est_cuda_query_context (GST_ELEMENT (self),
          query, ctx);

      gst_clear_object (&ctx);
      return ok || gst_pad_query_default (pad, parent, query);
    }
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

static gboolean
gst_mv_stabilize_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstMvStabilize *self = GST_MV_STABILIZE (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:{
      gboolean live;
      GstClockTime min, max, held = 0;
      gint n, d;
      guint lookahead;

      if (!gst_pad_peer_query (self->sinkpad, query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      GST_OBJECT_LOCK (self);
      n = self->fps_n;
      d = self->fps_d;
      /* what the path holds (before caps there is no frame rate, and
       * nothing is added) */
      lookahead = self->lookahead_decided ? self->lookahead_used
          : self->lookahead;
      GST_OBJECT_UNLOCK (self);
      /* frame t waits for t + lookahead */
      if (n > 0 && d > 0)
        held = gst_util_uint64_scale (GST_SECOND, (guint64) d * lookahead,
            n);
      else
        GST_DEBUG_OBJECT (self, "variable frame rate: the %u frames held "
            "add a latency not known here, none reported", lookahead);
      min += held;
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += held;
      gst_query_set_latency (query, live, min, max);
      return TRUE;
    }
    case GST_QUERY_CONTEXT:{
      GstObject *ctx = cuda_ctx_ref (self);
      gboolean ok = gst_motion_est_cuda_query_context (GST_ELEMENT (self),
          query, ctx);

      gst_clear_object (&ctx);
      return ok || gst_pad_query_default (pad, parent, query);
    }
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

/* ---- element ------------------------------------------------------------- */

static GstStateChangeReturn
gst_mv_stabilize_change_state (GstElement * element,
    GstStateChange transition)
{
  GstMvStabilize *self = GST_MV_STABILIZE (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    self->have_caps = FALSE;
    reset (self);
    self->mc.resolved = FALSE;
    self->n_frames = self->n_corrected = self->n_cuts = 0;
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    GST_INFO_OBJECT (self, "%" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
        " corrected, %" G_GUINT64_FORMAT " path segments", self->n_frames,
        self->n_corrected, self->n_cuts);
    self->have_caps = FALSE;
    reset (self);
    self->cuda_caps = FALSE;
    gst_mc_output_drop_pool (&self->pool);
    gst_mc_backend_drop_session (&self->mc);
    gst_caps_replace (&self->caps, NULL);
  }
  if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
    GST_OBJECT_LOCK (self);
    gst_clear_object (&self->cuda_ctx);
    GST_OBJECT_UNLOCK (self);
  }
  return ret;
}

static void
gst_mv_stabilize_set_context (GstElement * element, GstContext * context)
{
  GstMvStabilize *self = GST_MV_STABILIZE (element);

  gst_motion_est_cuda_set_context (element, context, -1, &self->cuda_ctx);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static void
gst_mv_stabilize_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvStabilize *self = GST_MV_STABILIZE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOOKAHEAD:
      self->lookahead = g_value_get_uint (value);
      break;
    case PROP_LOOKAHEAD_TIME:
      self->lookahead_time = g_value_get_uint64 (value);
      break;
    case PROP_MAX_ZOOM:
      self->max_zoom = g_value_get_double (value);
      break;
    case PROP_MIN_AGREEMENT:
      self->min_agreement = g_value_get_double (value);
      break;
    case PROP_BACKEND:
      gst_mc_backend_request (&self->mc, g_value_get_enum (value));
      break;
    case PROP_THREADS:
      self->threads = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_stabilize_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstMvStabilize *self = GST_MV_STABILIZE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOOKAHEAD:
      g_value_set_uint (value, self->lookahead);
      break;
    case PROP_LOOKAHEAD_TIME:
      g_value_set_uint64 (value, self->lookahead_time);
      break;
    case PROP_MAX_ZOOM:
      g_value_set_double (value, self->max_zoom);
      break;
    case PROP_MIN_AGREEMENT:
      g_value_set_double (value, self->min_agreement);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, self->mc.requested);
      break;
    case PROP_THREADS:
      g_value_set_uint (value, self->threads);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_stabilize_finalize (GObject * object)
{
  GstMvStabilize *self = GST_MV_STABILIZE (object);

  drop_held (self);
  stab_path_free (self->path);
  if (self->pool)
    gst_object_unref (self->pool);
  gst_caps_replace (&self->caps, NULL);
  gst_mc_backend_drop_session (&self->mc);
  gst_clear_object (&self->cuda_ctx);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mv_stabilize_class_init (GstMvStabilizeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_mv_stabilize_debug, "mvstabilize", 0,
      "video stabilisation from the global motion");
  correction_meta_info ();

  gobject_class->set_property = gst_mv_stabilize_set_property;
  gobject_class->get_property = gst_mv_stabilize_get_property;
  gobject_class->finalize = gst_mv_stabilize_finalize;

  g_object_class_install_property (gobject_class, PROP_LOOKAHEAD,
      g_param_spec_uint ("lookahead", "Lookahead",
          "Frames held before a frame goes out (the latency; the path is "
          "smoothed over that many frames each side; a change takes "
          "effect at the next break)", 0, STAB_PATH_MAX_LOOKAHEAD,
          DEFAULT_LOOKAHEAD, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_LOOKAHEAD_TIME,
      g_param_spec_uint64 ("lookahead-time", "Lookahead time",
          "The lookahead as a time in ns (0: lookahead in frames is used): "
          "that time at the caps' frame rate, rounded, 1 to "
          G_STRINGIFY (STAB_PATH_MAX_LOOKAHEAD) " frames; with a variable "
          "frame rate lookahead is used (a change takes effect at the next "
          "break)", 0, G_MAXUINT64, DEFAULT_LOOKAHEAD_TIME,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MAX_ZOOM,
      g_param_spec_double ("max-zoom", "Largest zoom",
          "The largest zoom used to hide the borders a correction uncovers "
          "(1: none; beyond it, edges repeat)", 1.0, 4.0, DEFAULT_MAX_ZOOM,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MIN_AGREEMENT,
      g_param_spec_double ("min-agreement", "Least agreement",
          "The least share of blocks agreeing with a frame's global motion "
          "(the summary's global_share) for the frame to be corrected",
          0.0, 1.0, DEFAULT_MIN_AGREEMENT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Which implementation warps the frames",
          gst_mv_stabilize_backend_get_type (), DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "Threads of the CPU backend (0: one per core; 1: the streaming "
          "thread alone)", 0, 64, DEFAULT_THREADS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Video stabiliser", "Filter/Effect/Video",
      "Smooths the camera path of the motion-vector metas' summaries "
      "(gpumotionest summary=true) and warps each frame onto it",
      "gpumotionest developers");
  element_class->change_state = gst_mv_stabilize_change_state;
  element_class->set_context = gst_mv_stabilize_set_context;

  gst_type_mark_as_plugin_api (gst_mv_stabilize_backend_get_type (), 0);
}

static void
gst_mv_stabilize_init (GstMvStabilize * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mv_stabilize_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mv_stabilize_sink_event));
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mv_stabilize_sink_query));
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_mv_stabilize_src_query));
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->lookahead = DEFAULT_LOOKAHEAD;
  self->lookahead_time = DEFAULT_LOOKAHEAD_TIME;
  self->max_zoom = DEFAULT_MAX_ZOOM;
  self->min_agreement = DEFAULT_MIN_AGREEMENT;
  gst_mc_backend_init (&self->mc, GST_CAT_DEFAULT, DEFAULT_BACKEND);
  self->threads = DEFAULT_THREADS;
  g_queue_init (&self->held);
}
