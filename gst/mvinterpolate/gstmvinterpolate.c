/* mvinterpolate — motion-compensated frame-rate conversion.
 *
 * Input: frames in system or CUDA memory, each with gpumotionest's two fields of
 * references=-1,+1 (frame n against n - 1 and against n + 1).  Output: the
 * frame rate downstream negotiates, frame k at segment.start + k * out
 * duration (computed from k, never accumulated).  An output time T between
 * input frames n - 1 (T0) and n (T1) is made by mc_interpolate_picture()
 * at t = (T - T0) / (T1 - T0); t = 0 is a plain copy of frame n - 1.  The
 * element holds one input frame (n - 1) until frame n arrives.  Frames in
 * CUDA memory (memory:CUDAMemory caps) stay there: the output comes from a
 * CUDA pool of the frames' own context, made by the CUDA backend in place.
 * The rules and their reasons are in docs/interpolation.md.
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
#include "gstmvinterpolate.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_interpolate_debug);
#define GST_CAT_DEFAULT gst_mv_interpolate_debug

/* Every format gpumotionest takes in system memory, so that its output
 * links straight here.  mc reads each component where GstVideoInfo says
 * it is (mc.h: a plane with a pixel stride), so planar, semi-planar
 * (NV12, P010), packed 4:2:2 (YUY2) and RGB frames need no conversion;
 * RGB's R, G and B are made as a 4:4:4 picture with the vectors of the
 * luma the search derived from them, alpha moves with them, the x byte is
 * the nearer frame's (docs/interpolation.md, "Formats").  8 bits a byte or
 * 9 .. 16 bits in 16-bit words of host order, so the 16-bit formats are
 * offered in little endian only, on little-endian hosts. */
#define FORMATS GST_MC_FORMATS
#define CUDA_FORMATS GST_MC_CUDA_FORMATS

#define SIZES ", width = (int) [ 1, 8192 ], height = (int) [ 1, 8192 ]"
#define SYSTEM_SINK_CAPS GST_VIDEO_CAPS_MAKE (FORMATS) SIZES
#define SYSTEM_SRC_CAPS "video/x-raw, format = (string) " FORMATS SIZES \
    ", framerate = (fraction) [ 1/2147483647, 2147483647/1 ]"
/* Frames in CUDA memory first, as GStreamer's CUDA elements offer them:
 * a decoder that can keep its frames on the GPU then does. */
#if HAVE_GST_CUDA
#define CUDA_SINK_CAPS GST_VIDEO_CAPS_MAKE_WITH_FEATURES \
    (GST_MOTION_EST_CAPS_FEATURE_CUDA, CUDA_FORMATS) SIZES "; "
#define CUDA_SRC_CAPS "video/x-raw(" GST_MOTION_EST_CAPS_FEATURE_CUDA "), " \
    "format = (string) " CUDA_FORMATS SIZES \
    ", framerate = (fraction) [ 1/2147483647, 2147483647/1 ]; "
#else
#define CUDA_SINK_CAPS
#define CUDA_SRC_CAPS
#endif
#define SINK_CAPS CUDA_SINK_CAPS SYSTEM_SINK_CAPS
#define SRC_CAPS CUDA_SRC_CAPS SYSTEM_SRC_CAPS

/* mc's largest denominator of t (mc.h: den 1 .. 65536). */
#define MAX_DEN 65536

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (SINK_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (SRC_CAPS));

enum
{
  PROP_0,
  PROP_BACKEND,
  PROP_THREADS,
  PROP_CUT_MODE,
  PROP_PAIRING,
};

#define DEFAULT_BACKEND GST_MV_INTERPOLATE_BACKEND_AUTO
/* the property's values as the common backend code reads them */
G_STATIC_ASSERT ((gint) GST_MV_INTERPOLATE_BACKEND_AUTO
    == (gint) GST_MC_BACKEND_AUTO);
G_STATIC_ASSERT ((gint) GST_MV_INTERPOLATE_BACKEND_CPU
    == (gint) GST_MC_BACKEND_CPU);
G_STATIC_ASSERT ((gint) GST_MV_INTERPOLATE_BACKEND_CUDA
    == (gint) GST_MC_BACKEND_CUDA);
#define DEFAULT_THREADS 0
#define DEFAULT_CUT_MODE GST_MV_INTERPOLATE_CUT_REPEAT
#define DEFAULT_PAIRING GST_MV_INTERPOLATE_PAIRING_BILATERAL

struct _GstMvInterpolate
{
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;

  /* properties, under the object lock */
  guint threads;
  GstMvInterpolateCutMode cut_mode;
  GstMvInterpolatePairing pairing;
  gint in_fps_n, in_fps_d;      /* for the latency query */

  /* streaming state, under the stream lock */
  gboolean have_caps;
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  gint out_n, out_d;
  GstSegment segment;
  GstBuffer *prev;              /* input frame n - 1, held */
  GstClockTime base;            /* output frame k at base + k * duration */
  guint64 k;                    /* the next output frame */
  gboolean k_valid;             /* FALSE until a run's first frame sets k */
  gboolean discont;
  gboolean warned_no_summary;   /* the missing summary said once a run */
  GstBufferPool *pool;
  GstCaps *out_caps;            /* the output caps, for a new pool */
  gboolean cuda_caps;           /* memory:CUDAMemory on both pads */
  GstObject *cuda_ctx;          /* the frames' GstCudaContext (CUDA caps),
                                 * under the object lock */
  GstMcBackend mc;              /* requested, changed: under the object
                                 * lock (the backend property) */
  guint64 n_interpolated;
  guint64 n_fallback_blocks;
};

GType gst_mv_interpolate_backend_get_type (void);
GType gst_mv_interpolate_cut_mode_get_type (void);
GType gst_mv_interpolate_pairing_get_type (void);

GType
gst_mv_interpolate_pairing_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MV_INTERPOLATE_PAIRING_BILATERAL,
        "One trajectory a block, chosen by matching the two frames along it "
          "(better frames)", "bilateral"},
    {GST_MV_INTERPOLATE_PAIRING_FIELDS,
        "Each side its own field's vector (faster, above all on a GPU)",
        "fields"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMvInterpolatePairing", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_mv_interpolate_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MV_INTERPOLATE_BACKEND_AUTO,
        "CUDA when a device works, else the fast CPU implementation", "auto"},
    {GST_MV_INTERPOLATE_BACKEND_CPU,
        "The fast CPU implementation (the C reference's samples)", "cpu"},
    {GST_MV_INTERPOLATE_BACKEND_CUDA, "CUDA (an error without a device)",
        "cuda"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMvInterpolateBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_mv_interpolate_cut_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MV_INTERPOLATE_CUT_REPEAT,
        "The nearer input frame (a clean cut)", "repeat"},
    {GST_MV_INTERPOLATE_CUT_BLEND,
        "A cross-fade of the two input frames", "blend"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMvInterpolateCutMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_mv_interpolate_parent_class parent_class
G_DEFINE_TYPE (GstMvInterpolate, gst_mv_interpolate, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (mvinterpolate, "mvinterpolate", GST_RANK_NONE,
    GST_TYPE_MV_INTERPOLATE);

/* ---- time ---------------------------------------------------------------- */

/* Output frame k's time; G_MAXUINT64 (above every timestamp) for a time
 * past the clock's range, so that the loops over k end there instead of
 * wrapping around. */
static GstClockTime
out_time (GstMvInterpolate * self, guint64 k)
{
  guint64 t = gst_util_uint64_scale (k,
      (guint64) self->out_d * GST_SECOND, (guint64) self->out_n);

  if (t >= G_MAXUINT64 - self->base)
    return G_MAXUINT64;
  return self->base + t;
}

/* The first output frame at or after @ts (never before the current k). */
static void
start_run_at (GstMvInterpolate * self, GstClockTime ts)
{
  guint64 k = 0;
  guint i;

  if (ts > self->base)
    k = gst_util_uint64_scale_ceil (ts - self->base, (guint64) self->out_n,
        (guint64) self->out_d * GST_SECOND);
  /* in integers out_time (k - 1) < ts <= out_time (k) already; the steps
   * only guard the rounding, and are bounded: past the clock's range
   * out_time () is G_MAXUINT64 for every k, which would step for ever */
  for (i = 0; i < 2 && k > 0 && out_time (self, k - 1) >= ts; i++)
    k--;
  for (i = 0; i < 2 && out_time (self, k) < ts; i++)
    k++;
  if (!self->k_valid || k > self->k)
    self->k = k;
  self->k_valid = TRUE;
}

static guint64
gcd64 (guint64 a, guint64 b)
{
  while (b) {
    guint64 r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* *num / *den: p / q (0 <= p <= q, q > 0) reduced, or, when its
 * denominator is above MAX_DEN, the nearest fraction whose denominator is
 * not (continued fractions: the last convergent within the bound or the
 * best semiconvergent past it). */
static void
time_fraction (guint64 p, guint64 q, int *num, int *den)
{
  guint64 g = gcd64 (p, q);
  guint64 h0 = 0, h1 = 1, k0 = 1, k1 = 0, a, pp, qq;

  p /= g;
  q /= g;
  if (q <= MAX_DEN) {
    *num = (int) p;
    *den = (int) q;
    return;
  }
  pp = p;
  qq = q;
  while (qq) {
    guint64 h2, k2, r;

    a = pp / qq;
    k2 = a * k1 + k0;
    if (k2 > MAX_DEN) {
      guint64 m = (MAX_DEN - k0) / k1;
      guint64 hs = m * h1 + h0, ks = m * k1 + k0;
      double x = (double) p / (double) q;

      if (m > 0 && fabs ((double) hs / (double) ks - x)
          < fabs ((double) h1 / (double) k1 - x)) {
        h1 = hs;
        k1 = ks;
      }
      break;
    }
    h2 = a * h1 + h0;
    h0 = h1;
    h1 = h2;
    k0 = k1;
    k1 = k2;
    r = pp - a * qq;
    pp = qq;
    qq = r;
  }
  *num = (int) h1;
  *den = (int) k1;
}

static GstClockTime
frame_end (GstMvInterpolate * self, GstBuffer * buf)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);

  if (GST_BUFFER_DURATION_IS_VALID (buf))
    return pts + GST_BUFFER_DURATION (buf);
  if (GST_VIDEO_INFO_FPS_N (&self->in_info) > 0)
    return pts + gst_util_uint64_scale (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&self->in_info),
        GST_VIDEO_INFO_FPS_N (&self->in_info));
  return pts;
}

/* ---- caps ---------------------------------------------------------------- */

/* @caps with any frame rate: from 0/1 (variable) when @allow_zero. */
static GstCaps *
caps_any_rate (GstCaps * caps, gboolean allow_zero)
{
  GstCaps *res = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (res); i++) {
    GstStructure *s = gst_caps_get_structure (res, i);

    gst_structure_set (s, "framerate", GST_TYPE_FRACTION_RANGE,
        allow_zero ? 0 : 1, allow_zero ? 1 : G_MAXINT, G_MAXINT, 1, NULL);
  }
  return res;
}

static GstCaps *
query_other_side (GstMvInterpolate * self, GstPad * pad, GstCaps * filter)
{
  GstPad *other = pad == self->sinkpad ? self->srcpad : self->sinkpad;
  GstCaps *tmpl = gst_pad_get_pad_template_caps (pad);
  GstCaps *peer_filter = NULL, *peer, *res;

  if (filter)
    peer_filter = caps_any_rate (filter, other == self->sinkpad);
  peer = gst_pad_peer_query_caps (other, peer_filter);
  if (peer_filter)
    gst_caps_unref (peer_filter);
  if (gst_caps_is_any (peer)) {
    res = gst_caps_ref (tmpl);
  } else {
    GstCaps *any = caps_any_rate (peer, pad == self->sinkpad);

    res = gst_caps_intersect_full (any, tmpl, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (any);
  }
  gst_caps_unref (peer);
  gst_caps_unref (tmpl);
  if (filter) {
    GstCaps *f = gst_caps_intersect_full (filter, res,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (res);
    res = f;
  }
  return res;
}

/* The frames' CUDA context, referenced (NULL: none). */
static GstObject *
cuda_ctx_ref (GstMvInterpolate * self)
{
  return gst_mc_cuda_context_ref (GST_OBJECT (self), &self->cuda_ctx);
}

/* Frames in CUDA memory go out in a CUDA pool of the frames' context, so
 * that the CUDA backend writes them in place and they are readable where
 * the input frames were. */
static gboolean
setup_cuda_pool (GstMvInterpolate * self, GstCaps * caps)
{
  GstObject *ctx = cuda_ctx_ref (self);
  gboolean ok;

  ok = gst_mc_output_setup_cuda_pool (&self->pool, ctx, caps,
      self->out_info.size);
  gst_clear_object (&ctx);
  return ok;
}

static gboolean
setup_pool (GstMvInterpolate * self, GstCaps * caps)
{
  if (self->cuda_caps)
    return setup_cuda_pool (self, caps);
  return gst_mc_output_setup_pool (&self->pool, self->srcpad, caps,
      self->out_info.size, GST_CAT_DEFAULT);
}

/* ---- output -------------------------------------------------------------- */

/* How the pair is made: motion from both fields (their shape in *shape),
 * or the cut mode when the fields do not join the two frames or the
 * summary says the scene changed. */
static MCInterpMode
choose_mode (GstMvInterpolate * self, GstBuffer * prev, GstBuffer * next,
    gint * shape)
{
  GstMotionVectorMeta *next_meta =
      gst_buffer_get_motion_vector_meta_for_reference (next, -1);
  GstMotionVectorMeta *prev_meta =
      gst_buffer_get_motion_vector_meta_for_reference (prev, +1);
  const GstMotionVectorMeta *pair[2] = { next_meta, prev_meta };
  GstMotionVectorSummary s;
  MCInterpMode mode = MC_INTERP_MOTION;

  *shape = -1;
  /* Motion needs both fields, each against the other frame of the pair
   * (a frame dropped in between, a discontinuity or the first frame
   * leave none); otherwise the pair is treated as a cut. */
  if ((next_meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE)
      || (prev_meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE)
      || next_meta->ref_pts != GST_BUFFER_PTS (prev)
      || prev_meta->ref_pts != GST_BUFFER_PTS (next)
      || (*shape = gst_mc_common_shape (pair, 2)) < 0) {
    GST_DEBUG_OBJECT (self, "no motion between %" GST_TIME_FORMAT
        " and %" GST_TIME_FORMAT ": cut mode",
        GST_TIME_ARGS (GST_BUFFER_PTS (prev)),
        GST_TIME_ARGS (GST_BUFFER_PTS (next)));
    mode = MC_INTERP_REPEAT;
  } else if (gst_motion_vector_meta_get_summary (next_meta, &s)
      && !(s.flags & GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE)
      && gst_motion_vector_summary_is_scene_change (&s, -1)) {
    GST_DEBUG_OBJECT (self, "scene cut at %" GST_TIME_FORMAT,
        GST_TIME_ARGS (GST_BUFFER_PTS (next)));
    mode = MC_INTERP_REPEAT;
  }
  if (mode == MC_INTERP_REPEAT) {
    GST_OBJECT_LOCK (self);
    if (self->cut_mode == GST_MV_INTERPOLATE_CUT_BLEND)
      mode = MC_INTERP_BLEND;
    GST_OBJECT_UNLOCK (self);
  }
  return mode;
}

/* The three frames of one output picture, mapped where the backend reads
 * them: device pointers for CUDA memory of the session's context when the
 * backend is CUDA, host pointers otherwise (GstCudaMemory then copies). */
typedef struct {
  GstVideoFrame prev, next, out;
  gboolean have_prev, have_next, have_out;
  MCDevice device;
} Frames;

static void
frames_unmap (Frames * f)
{
  if (f->have_next)
    gst_video_frame_unmap (&f->next);
  if (f->have_prev)
    gst_video_frame_unmap (&f->prev);
  if (f->have_out)
    gst_video_frame_unmap (&f->out);
  f->have_prev = f->have_next = f->have_out = FALSE;
}

static gboolean
frames_map (GstMvInterpolate * self, Frames * f, GstBuffer * prev,
    GstBuffer * next, GstBuffer * out, GstObject * ctx, gboolean on_device)
{
  GstMapFlags pflags = 0, nflags = 0, oflags = 0;

  memset (f, 0, sizeof (*f));
  if (on_device) {
    pflags = gst_motion_est_cuda_map_flags (prev, ctx);
    nflags = gst_motion_est_cuda_map_flags (next, ctx);
    oflags = gst_motion_est_cuda_map_flags (out, ctx);
    /* both inputs where the backend reads them, or neither */
    if (!pflags || !nflags)
      pflags = nflags = 0;
  }
  f->device = (MCDevice) ((pflags ? MC_DEVICE_INPUTS : 0)
      | (oflags ? MC_DEVICE_OUTPUT : 0));
  f->have_out = gst_video_frame_map (&f->out, &self->out_info, out,
      GST_MAP_WRITE | oflags);
  f->have_prev = f->have_out && gst_video_frame_map (&f->prev,
      &self->in_info, prev, GST_MAP_READ | pflags);
  f->have_next = f->have_prev && gst_video_frame_map (&f->next,
      &self->in_info, next, GST_MAP_READ | nflags);
  if (!f->have_next) {
    frames_unmap (f);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("could not map the %s frame", f->have_prev ? "next input"
            : f->have_out ? "previous input" : "output"));
    return FALSE;
  }
  return TRUE;
}

/* Makes and pushes output frame k at T between @prev (T0) and @next (T1;
 * NULL: none, a copy of @prev whatever t). */
static GstFlowReturn
push_frame (GstMvInterpolate * self, GstBuffer * prev, GstBuffer * next)
{
  GstClockTime T = out_time (self, self->k);
  GstClockTime T0 = GST_BUFFER_PTS (prev);
  GstBuffer *out = NULL;
  GstObject *ctx = NULL;
  MCInterpMode mode = MC_INTERP_REPEAT;
  MCPicture pp, np, op;
  MCField nfield, pfield;
  MCOptions opt;
  Frames f;
  GError *err = NULL;
  GstFlowReturn ret;
  unsigned n_fallback = 0;
  int num = 0, den = 1;
  gint shape = -1;
  gboolean ok, on_device;

  if (next) {
    time_fraction (T - T0, GST_BUFFER_PTS (next) - T0, &num, &den);
    if (num > 0)
      mode = choose_mode (self, prev, next, &shape);
  }

  if (!self->pool)
    return GST_FLOW_NOT_NEGOTIATED;
  ret = gst_buffer_pool_acquire_buffer (self->pool, &out, NULL);
  if (ret != GST_FLOW_OK)
    return ret;

  mc_options_init (&opt);
  GST_OBJECT_LOCK (self);
  opt.threads = self->threads;
  opt.pairing = self->pairing == GST_MV_INTERPOLATE_PAIRING_FIELDS
      ? MC_PAIR_FIELDS : MC_PAIR_BILATERAL;
  GST_OBJECT_UNLOCK (self);
  /* 0: one per core (the CPU implementations; CUDA ignores it) */
  if (opt.threads == 0)
    opt.threads = MIN (g_get_num_processors (), 64);
  ctx = cuda_ctx_ref (self);
  /* the backend's first look at the device, too, in the frames' context */
  if (!gst_motion_est_cuda_push (ctx)) {
    gst_clear_object (&ctx);
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("could not make the frames' CUDA context current"));
    return GST_FLOW_ERROR;
  }
  opt.impl = gst_mc_backend_resolve (&self->mc, GST_OBJECT (self), &err);
  on_device = opt.impl && self->mc.is_cuda && ctx;
  /* the backend's stream and buffers belong to the frames' context, which
   * may go before this thread does: a session of ours, not the thread's */
  if (on_device
      && !(opt.cuda_session = gst_mc_backend_session (&self->mc, ctx,
              &err))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("CUDA session: %s", err ? err->message : "?"));
    g_clear_error (&err);
    gst_motion_est_cuda_pop (ctx);
    gst_clear_object (&ctx);
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  ok = opt.impl && frames_map (self, &f, prev, next ? next : prev, out, ctx,
      on_device);
  if (!opt.impl) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("backend=cuda: %s", err ? err->message : "CUDA unusable"), (NULL));
    g_clear_error (&err);
  }
  if (ok && num == 0 && !f.device) {
    gst_mc_copy_frame (&f.out, &f.prev);
  } else if (ok) {
    gboolean is_alpha;

    /* On the device a copy is the repeat of prev (t = 0): every sample
     * of prev, without the frames leaving the GPU. */
    gst_mc_picture_from_frame (&f.prev, &pp);
    gst_mc_picture_from_frame (&f.next, &np);
    gst_mc_picture_from_frame (&f.out, &op);
    if (mode == MC_INTERP_MOTION) {
      gst_mc_field_from_meta (gst_buffer_get_motion_vector_meta_for_reference
          (next, -1), shape, &nfield);
      gst_mc_field_from_meta (gst_buffer_get_motion_vector_meta_for_reference
          (prev, +1), shape, &pfield);
    }
    opt.device = f.device;
    ok = mc_interpolate_picture (&pp, &np, &op,
        mode == MC_INTERP_MOTION ? &nfield : NULL,
        mode == MC_INTERP_MOTION ? &pfield : NULL, num, den, mode, &opt,
        &n_fallback, &err);
    /* alpha is made as the colour is, with the same vectors and weights;
     * the x byte of RGBx and the like is the nearer frame's */
    if (ok && gst_mc_extra_from_frame (&f.out, &op, &is_alpha)) {
      gst_mc_extra_from_frame (&f.prev, &pp, &is_alpha);
      gst_mc_extra_from_frame (&f.next, &np, &is_alpha);
      ok = mc_interpolate_picture (&pp, &np, &op,
          is_alpha && mode == MC_INTERP_MOTION ? &nfield : NULL,
          is_alpha && mode == MC_INTERP_MOTION ? &pfield : NULL, num, den,
          is_alpha ? mode : MC_INTERP_REPEAT, &opt, NULL, &err);
    }
    if (!ok) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Interpolation failed: %s", err ? err->message : "?"), (NULL));
      g_clear_error (&err);
    } else if (num > 0) {
      self->n_interpolated++;
      self->n_fallback_blocks += n_fallback;
      GST_LOG_OBJECT (self, "t = %d/%d, mode %d, %u fallback blocks", num,
          den, mode, n_fallback);
    }
  }
  if (opt.impl && (ok || f.have_out))
    frames_unmap (&f);
  gst_motion_est_cuda_pop (ctx);
  gst_clear_object (&ctx);
  if (!ok) {
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }

  GST_BUFFER_PTS (out) = T;
  GST_BUFFER_DTS (out) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (out) = out_time (self, self->k + 1) - T;
  GST_BUFFER_OFFSET (out) = GST_BUFFER_OFFSET_NONE;
  GST_BUFFER_OFFSET_END (out) = GST_BUFFER_OFFSET_NONE;
  if (self->discont) {
    GST_BUFFER_FLAG_SET (out, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
  }
  self->k++;
  return gst_pad_push (self->srcpad, out);
}

/* Every output frame before @next's time (or, without @next, before the
 * end of the held frame: copies of it), then @next becomes the held
 * frame. */
static GstFlowReturn
advance (GstMvInterpolate * self, GstBuffer * next)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *prev = self->prev;
  GstClockTime end;

  if (!prev) {
    if (next) {
      start_run_at (self, GST_BUFFER_PTS (next));
      self->prev = next;
    }
    return GST_FLOW_OK;
  }

  if (next) {
    end = GST_BUFFER_PTS (next);
  } else {
    /* the last frame: copies to its end; one with no known end still
     * gives the output frame that lands exactly on it */
    end = MAX (frame_end (self, prev), GST_BUFFER_PTS (prev) + 1);
  }
  while (ret == GST_FLOW_OK && out_time (self, self->k) < end) {
    if (out_time (self, self->k) < GST_BUFFER_PTS (prev)) {
      /* frames of the pair before that were not made: downstream answered
       * one of them with a flow other than OK (EOS, NOT_LINKED), which
       * ended that pair's loop; what comes out next follows a gap.  k
       * jumps to the held frame (the gap may be of hours: one step a
       * frame would take that long) */
      guint64 k = self->k;

      start_run_at (self, GST_BUFFER_PTS (prev));
      if (self->k == k)
        self->k++;              /* (never stays: out_time (k) < the PTS) */
      self->discont = TRUE;
    } else
      ret = push_frame (self, prev, next);
  }
  gst_buffer_unref (prev);
  self->prev = next;
  return ret;
}

static void
drain (GstMvInterpolate * self)
{
  GstFlowReturn ret = advance (self, NULL);

  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "drain: %s", gst_flow_get_name (ret));
}

static void
reset (GstMvInterpolate * self)
{
  gst_buffer_replace (&self->prev, NULL);
  self->k = 0;
  self->k_valid = FALSE;
  self->discont = TRUE;
}

/* ---- pads ---------------------------------------------------------------- */

static gboolean
check_meta (GstMvInterpolate * self, GstBuffer * buf, gint distance)
{
  GstMotionVectorMeta *m =
      gst_buffer_get_motion_vector_meta_for_reference (buf, distance);
  guint w = GST_VIDEO_INFO_WIDTH (&self->in_info);
  guint h = GST_VIDEO_INFO_HEIGHT (&self->in_info);

  if (!m) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The frame at %" GST_TIME_FORMAT " has no motion field against the "
            "%s frame (ref_distance %+d): upstream gpumotionest needs "
            "references=-1,+1", GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
            distance < 0 ? "previous" : "next", distance), (NULL));
    return FALSE;
  }
  if (!gst_motion_vector_meta_is_valid (m)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The motion field (ref_distance %+d) of the frame at %"
            GST_TIME_FORMAT " is inconsistent", distance,
            GST_TIME_ARGS (GST_BUFFER_PTS (buf))), (NULL));
    return FALSE;
  }
  if (m->analysis_width != w || m->analysis_height != h || m->width != w
      || m->height != h) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The motion field (ref_distance %+d) is for %ux%u (searched at "
            "%ux%u), the frames are %ux%u: mvinterpolate needs fields of the "
            "frames' own size", distance, m->width, m->height,
            m->analysis_width, m->analysis_height, w, h), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* A frame whose memory does not hold what its caps (and its GstVideoMeta)
 * say is refused when it arrives, with the sizes, not when a frame is
 * made from it: by then frames of its pair may have gone out.  CUDA
 * memory of our context is looked at on the device (no download); of
 * another, through the meta alone. */
static gboolean
check_layout (GstMvInterpolate * self, GstBuffer * buf)
{
  GstObject *ctx = cuda_ctx_ref (self);
  gboolean ok = gst_mc_check_frame (GST_ELEMENT (self), buf, &self->in_info,
      self->cuda_caps, ctx);

  gst_clear_object (&ctx);
  return ok;
}

/* Frames in CUDA memory of another context than ours (a decoder that
 * opened its own): work in theirs from now on, so that the backend reads
 * them in place and the output pool is theirs.  The held frame, if any,
 * is read from host memory through its own map until it is replaced. */
static gboolean
follow_frames_context (GstMvInterpolate * self, GstBuffer * buf)
{
  GstObject *ctx = cuda_ctx_ref (self);
  gboolean follow = gst_motion_est_cuda_should_follow (buf, ctx, -1);

  gst_clear_object (&ctx);
  if (!follow)
    return TRUE;
  if (!gst_motion_est_cuda_ensure_context (GST_ELEMENT (self), -1, buf,
          &self->cuda_ctx) || !setup_cuda_pool (self, self->out_caps)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("could not move to the CUDA context of the frames"));
    return FALSE;
  }
  /* the backend's state belongs to a context: look again */
  self->mc.resolved = FALSE;
  return TRUE;
}

static GstFlowReturn
gst_mv_interpolate_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstMvInterpolate *self = GST_MV_INTERPOLATE (parent);

  if (!self->have_caps || !self->pool) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("a buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)) {
    /* a gap as a buffer: as the GAP event */
    drain (self);
    self->discont = TRUE;
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  if (!GST_BUFFER_PTS_IS_VALID (buf)) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("mvinterpolate needs timestamped frames"), (NULL));
    return GST_FLOW_ERROR;
  }
  if (!check_meta (self, buf, -1) || !check_meta (self, buf, +1)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  /* Without the summary a cut is judged block by block, and most blocks
   * of a cut still find some cheap match: say so once, and how to fix it. */
  if (!self->warned_no_summary && !(gst_buffer_get_motion_vector_meta_for_reference
          (buf, -1)->flags & GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY)) {
    self->warned_no_summary = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("The motion fields carry "
            "no summary: scene cuts will be interpolated across; set "
            "summary=true on gpumotionest"), (NULL));
  }
  if (self->cuda_caps && !follow_frames_context (self, buf)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (!check_layout (self, buf)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (self->prev && GST_BUFFER_PTS (buf) <= GST_BUFFER_PTS (self->prev)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Timestamps must increase: %" GST_TIME_FORMAT " after %"
            GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
            GST_TIME_ARGS (GST_BUFFER_PTS (self->prev))), (NULL));
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  return advance (self, buf);
}

static gboolean
set_caps (GstMvInterpolate * self, GstCaps * caps)
{
  GstVideoInfo info;
  GstCaps *want, *peer, *out;
  GstStructure *s;
  gint in_n, in_d, n, d;
  gboolean cuda;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  /* the same caps again: nothing to restart */
  cuda = gst_motion_est_cuda_caps_are_cuda (caps);
  if (self->have_caps && self->pool && cuda == self->cuda_caps
      && gst_video_info_is_equal (&info, &self->in_info))
    return TRUE;
  /* the context the pool and the backend work in: the pipeline's (a
   * decoder's, through GstContext), else a new one; the frames' own when
   * they arrive in another */
  if (cuda && !gst_motion_est_cuda_ensure_context (GST_ELEMENT (self), -1,
          NULL, &self->cuda_ctx)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("frames in CUDA memory, but no CUDA context could be opened"));
    return FALSE;
  }
  in_n = GST_VIDEO_INFO_FPS_N (&info);
  in_d = GST_VIDEO_INFO_FPS_D (&info);

  want = caps_any_rate (caps, FALSE);
  peer = gst_pad_peer_query_caps (self->srcpad, want);
  out = gst_caps_intersect_full (peer, want, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (peer);
  gst_caps_unref (want);
  if (gst_caps_is_empty (out)) {
    gst_caps_unref (out);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("downstream accepts no frame rate for %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  out = gst_caps_truncate (out);
  out = gst_caps_make_writable (out);
  s = gst_caps_get_structure (out, 0);
  if (in_n > 0)
    gst_structure_fixate_field_nearest_fraction (s, "framerate", in_n, in_d);
  else
    gst_structure_fixate_field_nearest_fraction (s, "framerate", 30, 1);
  out = gst_caps_fixate (out);
  s = gst_caps_get_structure (out, 0);
  if (!gst_structure_get_fraction (s, "framerate", &n, &d) || n <= 0
      || d <= 0) {
    gst_caps_unref (out);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no output frame rate"));
    return FALSE;
  }

  /* what can still be made from the old caps, before the new ones; a new
   * output rate counts its frames from the next output time */
  if (self->have_caps) {
    drain (self);
    if (self->k_valid && (n != self->out_n || d != self->out_d)) {
      self->base = out_time (self, self->k);
      self->k = 0;
    }
  }
  {
    /* the output times go on from the next one: a first frame of the new
     * caps earlier than the held frame's end must not bring times back */
    gboolean k_valid = self->have_caps && self->k_valid;
    guint64 k = self->k;

    reset (self);
    self->k = k_valid ? k : 0;
    self->k_valid = k_valid;
  }
  self->in_info = info;
  self->cuda_caps = cuda;
  gst_caps_replace (&self->out_caps, out);
  gst_video_info_from_caps (&self->out_info, out);
  GST_OBJECT_LOCK (self);
  self->in_fps_n = in_n;
  self->in_fps_d = in_d;
  GST_OBJECT_UNLOCK (self);
  self->out_n = n;
  self->out_d = d;
  self->have_caps = TRUE;
  GST_INFO_OBJECT (self, "%d/%d -> %d/%d", in_n, in_d, n, d);

  if (!gst_pad_push_event (self->srcpad, gst_event_new_caps (out))) {
    gst_caps_unref (out);
    return FALSE;
  }
  if (!setup_pool (self, out)) {
    gst_caps_unref (out);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (NULL),
        ("could not configure a buffer pool"));
    return FALSE;
  }
  gst_caps_unref (out);
  return TRUE;
}

static gboolean
gst_mv_interpolate_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstMvInterpolate *self = GST_MV_INTERPOLATE (parent);

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
            ("segment of format %s, mvinterpolate needs TIME",
                gst_format_get_name (seg.format)));
        gst_event_unref (event);
        return FALSE;
      }
      drain (self);
      reset (self);
      self->segment = seg;
      self->base = seg.start;
      break;
    }
    case GST_EVENT_GAP:
      /* the held frame's copies to its end, then nothing until the next
       * frame: k moves past the gap when that frame starts a run */
      drain (self);
      self->discont = TRUE;
      break;
    case GST_EVENT_EOS:
      drain (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      reset (self);
      gst_segment_init (&self->segment, GST_FORMAT_TIME);
      self->base = 0;
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* Either pad's caps: the other side's, the frame rate left free. */
static gboolean
answer_caps_query (GstMvInterpolate * self, GstPad * pad, GstQuery * query)
{
  GstCaps *filter, *caps;

  gst_query_parse_caps (query, &filter);
  caps = query_other_side (self, pad, filter);
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
  return TRUE;
}

static gboolean
gst_mv_interpolate_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstMvInterpolate *self = GST_MV_INTERPOLATE (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      return answer_caps_query (self, pad, query);
    case GST_QUERY_ACCEPT_CAPS:{
      GstCaps *caps, *allowed;
      gboolean ok;

      gst_query_parse_accept_caps (query, &caps);
      allowed = query_other_side (self, pad, NULL);
      ok = gst_caps_can_intersect (caps, allowed);
      gst_caps_unref (allowed);
      gst_query_set_accept_caps_result (query, ok);
      return TRUE;
    }
    case GST_QUERY_ALLOCATION:
      /* frames are only read: upstream allocates its own */
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
gst_mv_interpolate_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstMvInterpolate *self = GST_MV_INTERPOLATE (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      return answer_caps_query (self, pad, query);
    case GST_QUERY_LATENCY:{
      gboolean live;
      GstClockTime min, max, frame = 0;
      gint n, d;

      if (!gst_pad_peer_query (self->sinkpad, query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      GST_OBJECT_LOCK (self);
      n = self->in_fps_n;
      d = self->in_fps_d;
      GST_OBJECT_UNLOCK (self);
      /* one input frame held for its successor */
      if (n > 0)
        frame = gst_util_uint64_scale (GST_SECOND, d, n);
      min += frame;
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += frame;
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
gst_mv_interpolate_change_state (GstElement * element,
    GstStateChange transition)
{
  GstMvInterpolate *self = GST_MV_INTERPOLATE (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    reset (self);
    gst_segment_init (&self->segment, GST_FORMAT_TIME);
    self->base = 0;
    self->have_caps = FALSE;
    self->mc.resolved = FALSE;
    self->warned_no_summary = FALSE;
    self->n_interpolated = 0;
    self->n_fallback_blocks = 0;
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    GST_INFO_OBJECT (self, "%" G_GUINT64_FORMAT " frames interpolated, %"
        G_GUINT64_FORMAT " fallback blocks", self->n_interpolated,
        self->n_fallback_blocks);
    reset (self);
    self->have_caps = FALSE;
    self->cuda_caps = FALSE;
    gst_mc_output_drop_pool (&self->pool);
    gst_mc_backend_drop_session (&self->mc);
    gst_caps_replace (&self->out_caps, NULL);
  }
  if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
    GST_OBJECT_LOCK (self);
    gst_clear_object (&self->cuda_ctx);
    GST_OBJECT_UNLOCK (self);
  }
  return ret;
}

/* A CUDA context offered by the pipeline (a decoder's): ours from now
 * on, so that both work in one. */
static void
gst_mv_interpolate_set_context (GstElement * element, GstContext * context)
{
  GstMvInterpolate *self = GST_MV_INTERPOLATE (element);

  gst_motion_est_cuda_set_context (element, context, -1, &self->cuda_ctx);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static void
gst_mv_interpolate_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvInterpolate *self = GST_MV_INTERPOLATE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      gst_mc_backend_request (&self->mc, g_value_get_enum (value));
      break;
    case PROP_THREADS:
      self->threads = g_value_get_uint (value);
      break;
    case PROP_CUT_MODE:
      self->cut_mode = g_value_get_enum (value);
      break;
    case PROP_PAIRING:
      self->pairing = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_interpolate_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstMvInterpolate *self = GST_MV_INTERPOLATE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, self->mc.requested);
      break;
    case PROP_THREADS:
      g_value_set_uint (value, self->threads);
      break;
    case PROP_CUT_MODE:
      g_value_set_enum (value, self->cut_mode);
      break;
    case PROP_PAIRING:
      g_value_set_enum (value, self->pairing);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_interpolate_finalize (GObject * object)
{
  GstMvInterpolate *self = GST_MV_INTERPOLATE (object);

  gst_buffer_replace (&self->prev, NULL);
  if (self->pool)
    gst_object_unref (self->pool);
  gst_caps_replace (&self->out_caps, NULL);
  gst_mc_backend_drop_session (&self->mc);
  gst_clear_object (&self->cuda_ctx);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mv_interpolate_class_init (GstMvInterpolateClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_mv_interpolate_debug, "mvinterpolate", 0,
      "motion-compensated frame-rate conversion");

  gobject_class->set_property = gst_mv_interpolate_set_property;
  gobject_class->get_property = gst_mv_interpolate_get_property;
  gobject_class->finalize = gst_mv_interpolate_finalize;

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Which motion-compensation implementation makes the frames",
          gst_mv_interpolate_backend_get_type (), DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "Threads of the CPU backend (0: one per core; 1: the streaming "
          "thread alone)",
          0, 64, DEFAULT_THREADS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CUT_MODE,
      g_param_spec_enum ("cut-mode", "Cut mode",
          "The frames between two input frames across a scene cut",
          gst_mv_interpolate_cut_mode_get_type (), DEFAULT_CUT_MODE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_PAIRING,
      g_param_spec_enum ("pairing", "Pairing",
          "Where each block of a made frame takes its motion from",
          gst_mv_interpolate_pairing_get_type (), DEFAULT_PAIRING,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Motion-compensated frame-rate converter", "Filter/Effect/Video",
      "Makes the frames of the output rate between input frames from their "
      "motion-vector metas (gpumotionest references=-1,+1)",
      "gpumotionest developers");
  element_class->change_state = gst_mv_interpolate_change_state;
  element_class->set_context = gst_mv_interpolate_set_context;

  gst_type_mark_as_plugin_api (gst_mv_interpolate_backend_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_mv_interpolate_cut_mode_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_mv_interpolate_pairing_get_type (), 0);
}

static void
gst_mv_interpolate_init (GstMvInterpolate * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mv_interpolate_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mv_interpolate_sink_event));
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mv_interpolate_sink_query));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_mv_interpolate_src_query));
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  gst_mc_backend_init (&self->mc, GST_CAT_DEFAULT, DEFAULT_BACKEND);
  self->threads = DEFAULT_THREADS;
  self->cut_mode = DEFAULT_CUT_MODE;
  self->pairing = DEFAULT_PAIRING;
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
  self->discont = TRUE;
}
