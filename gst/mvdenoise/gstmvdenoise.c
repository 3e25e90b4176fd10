/* mvdenoise — motion-compensated temporal denoising.
 *
 * Input: frames in system or CUDA memory, each with gpumotionest's fields
 * against its neighbours (references=-2,-1,+1,+2: frame t against t - 2,
 * t - 1, t + 1 and t + 2).  Output frame t is mc_denoise_picture() of
 * input frame t and the input frames t - d .. t + d (d <= radius) it has
 * fields against, each prediction weighted block by block from its
 * field's costs and the noise level (mc_denoise_weights()).  The
 * references are the noisy input frames, never denoised ones.
 *
 * Frame t goes out once frame t + radius has arrived (or at a break: EOS,
 * a discontinuity, a gap, new caps or a new segment, which drain every
 * held frame first); at most radius frames already out are held as the
 * past references of those still to come.  Frames of two sides of a break
 * or of a scene cut are never averaged.  The rules and their reasons are
 * in docs/denoise.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gst/motionvectors/gstmotionvectormeta.h>

#include "mc.h"
#include "gstmotionestcuda.h"
#include "gstmcframe.h"
#include "gstmcbackend.h"
#include "gstmcoutput.h"
#include "gstmvdenoise.h"
#include "gstmvdenoisedevice.h"
#include "gstmvdenoisespatial.h"
#include "gstmvdenoisefields.h"
#include "gstmvdenoiselevel.h"

GST_DEBUG_CATEGORY (gst_mv_denoise_debug);
#define GST_CAT_DEFAULT gst_mv_denoise_debug

/* Every format gpumotionest takes, as mvinterpolate (docs/interpolation.md,
 * "Formats"): each component read and written where GstVideoInfo puts
 * it; the 16-bit formats in little endian on little-endian hosts. */
#define FORMATS GST_MC_FORMATS
#define CUDA_FORMATS GST_MC_CUDA_FORMATS

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
  PROP_SIGMA,
  PROP_SIGMA_ESTIMATE,
  PROP_RADIUS,
  PROP_BACKEND,
  PROP_THREADS,
  PROP_SPATIAL,
};

#define DEFAULT_SIGMA (-1.0)
#define DEFAULT_RADIUS 2
#define DEFAULT_SPATIAL 2.0
#define MAX_RADIUS 4            /* 2 x 4 references: MC_DENOISE_MAX_REFS */
#define DEFAULT_BACKEND GST_MV_DENOISE_BACKEND_AUTO
/* the property's values as the common backend code reads them */
G_STATIC_ASSERT ((gint) GST_MV_DENOISE_BACKEND_AUTO
    == (gint) GST_MC_BACKEND_AUTO);
G_STATIC_ASSERT ((gint) GST_MV_DENOISE_BACKEND_CPU
    == (gint) GST_MC_BACKEND_CPU);
G_STATIC_ASSERT ((gint) GST_MV_DENOISE_BACKEND_CUDA
    == (gint) GST_MC_BACKEND_CUDA);
#define DEFAULT_THREADS 0
/* sigma 255 in sixteenths: under mc's largest (4095) */
#define MAX_SIGMA_Q4 (255 * 16)

/* A frame held: still to go out, or out and kept as a reference. */
typedef struct
{
  GstBuffer *buf;
  guint scene;                  /* frames of one scene share it: a cut
                                 * starts the next */
  gboolean done;                /* out already */
} Held;

struct _GstMvDenoise
{
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;

  /* properties, under the object lock */
  gdouble sigma;
  gdouble sigma_estimate;
  guint radius;
  gdouble spatial;
  guint threads;
  gint fps_n, fps_d;            /* for the latency query */

  /* streaming state, under the stream lock */
  gboolean have_caps;
  GstVideoInfo info;
  GQueue held;                  /* Held, oldest first: those out, then
                                 * those to go */
  guint scene;                  /* the newest frame's scene */
  GstMvDenoiseLevel level;      /* the auto level's last estimates */
  gboolean checked_fields;      /* the first frame's fields were looked at */
  gboolean warned_no_summary;
  GstBufferPool *pool;
  GstBuffer *spatial_tmp;       /* system memory: the temporal mix before
                                 * the spatial pass, kept between frames */
  GstCaps *caps;
  gboolean cuda_caps;
  GstObject *cuda_ctx;          /* under the object lock */
  GstMcBackend mc;              /* requested, changed: under the object
                                 * lock (the backend property) */
  guint64 n_frames, n_refs;
};

GType gst_mv_denoise_backend_get_type (void);

GType
gst_mv_denoise_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MV_DENOISE_BACKEND_AUTO,
        "CUDA when a device works, else the fast CPU implementation", "auto"},
    {GST_MV_DENOISE_BACKEND_CPU,
        "The fast CPU implementation (the C reference's samples)", "cpu"},
    {GST_MV_DENOISE_BACKEND_CUDA, "CUDA (an error without a device)",
        "cuda"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMvDenoiseBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_mv_denoise_parent_class parent_class
G_DEFINE_TYPE (GstMvDenoise, gst_mv_denoise, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (mvdenoise, "mvdenoise", GST_RANK_NONE,
    GST_TYPE_MV_DENOISE);

/* ---- CUDA context, session, pools ---------------------------------------- */

/* The frames' CUDA context, referenced (NULL: none). */
static GstObject *
cuda_ctx_ref (GstMvDenoise * self)
{
  return gst_mc_cuda_context_ref (GST_OBJECT (self), &self->cuda_ctx);
}

static void
drop_pool (GstMvDenoise * self)
{
  gst_clear_buffer (&self->spatial_tmp);
  gst_mc_output_drop_pool (&self->pool);
}

/* Frames in CUDA memory go out in a CUDA pool of the frames' context. */
static gboolean
setup_cuda_pool (GstMvDenoise * self)
{
  GstObject *ctx = cuda_ctx_ref (self);
  gboolean ok;

  gst_clear_buffer (&self->spatial_tmp);
  ok = gst_mc_output_setup_cuda_pool (&self->pool, ctx, self->caps,
      self->info.size);
  gst_clear_object (&ctx);
  return ok;
}

static gboolean
setup_pool (GstMvDenoise * self)
{
  if (self->cuda_caps)
    return setup_cuda_pool (self);
  gst_clear_buffer (&self->spatial_tmp);
  return gst_mc_output_setup_pool (&self->pool, self->srcpad, self->caps,
      self->info.size, GST_CAT_DEFAULT);
}

/* ---- the noise level ----------------------------------------------------- */

/* The level frame @h is denoised with, in sixteenths of an 8-bit level:
 * the property's, or (auto) the median of the estimates of the frames of
 * its scene so far, the last GST_MV_DENOISE_HISTORY of them, its own from @field (its
 * field against the nearest reference it is averaged with; NULL: none). */
static guint
sigma_for (GstMvDenoise * self, const Held * h, const MCField * field,
    guint depth)
{
  guint q4 = 0, est;
  gdouble sigma;

  GST_OBJECT_LOCK (self);
  sigma = self->sigma;
  GST_OBJECT_UNLOCK (self);
  if (sigma >= 0) {
    q4 = (guint) MIN (floor (sigma * 16 + 0.5), MAX_SIGMA_Q4);
  } else {
    if (!gst_mv_denoise_level_of_scene (&self->level, h->scene))
      gst_mv_denoise_level_restart (&self->level, h->scene);
    if (field && mc_denoise_estimate (field, FALSE,
            GST_VIDEO_INFO_WIDTH (&self->info),
            GST_VIDEO_INFO_HEIGHT (&self->info), depth, &est))
      gst_mv_denoise_level_add (&self->level, MIN (est, MAX_SIGMA_Q4));
    q4 = gst_mv_denoise_level_median (&self->level);
  }
  GST_OBJECT_LOCK (self);
  self->sigma_estimate = q4 / 16.0;
  GST_OBJECT_UNLOCK (self);
  return q4;
}

/* ---- one output frame ---------------------------------------------------- */

/* The held frame at @pts in @scene, or NULL. */
static Held *
find_held (GstMvDenoise * self, GstClockTime pts, guint scene)
{
  GList *l;

  for (l = self->held.head; l; l = l->next) {
    Held *r = l->data;

    if (GST_BUFFER_PTS (r->buf) == pts && r->scene == scene)
      return r;
  }
  return NULL;
}

/* The references of @h: the frames its fields within the radius point at
 * that are held and of its scene (so never across a cut or a break), and
 * whose field says something.  Nearest first, the past before the future
 * at one distance.  Returns how many (at most 2 MAX_RADIUS). */
static guint
pick_refs (GstMvDenoise * self, const Held * h, guint radius,
    const GstMotionVectorMeta ** metas, GstBuffer ** refs)
{
  guint n = 0, d;

  for (d = 1; d <= radius; d++) {
    gint s;

    for (s = -1; s <= 1; s += 2) {
      GstMotionVectorMeta *m =
          gst_buffer_get_motion_vector_meta_for_reference (h->buf, s * d);
      Held *r;

      if (!m || (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE)
          || !GST_CLOCK_TIME_IS_VALID (m->ref_pts))
        continue;
      r = find_held (self, m->ref_pts, h->scene);
      if (!r || r == h)
        continue;
      metas[n] = m;
      refs[n] = r->buf;
      n++;
    }
  }
  return n;
}

typedef struct
{
  GstVideoFrame cur, out, refs[2 * MAX_RADIUS];
  guint n_refs;                 /* mapped references */
  gboolean have_cur, have_out;
  MCDevice device;
} Frames;

static void
frames_unmap (Frames * f)
{
  guint i;

  for (i = 0; i < f->n_refs; i++)
    gst_video_frame_unmap (&f->refs[i]);
  f->n_refs = 0;
  if (f->have_cur)
    gst_video_frame_unmap (&f->cur);
  if (f->have_out)
    gst_video_frame_unmap (&f->out);
  f->have_cur = f->have_out = FALSE;
}

/* Maps the frames where the backend reads them: device pointers for CUDA
 * memory of @ctx when @on_device and every input is there (the inputs are
 * all on the device or all on the host: MC_DEVICE_INPUTS), host pointers
 * otherwise. */
static gboolean
frames_map (GstMvDenoise * self, Frames * f, GstBuffer * cur,
    GstBuffer ** refs, guint n, GstBuffer * out, GstObject * ctx,
    gboolean on_device)
{
  GstMapFlags iflags = 0, oflags = 0;
  guint i;

  memset (f, 0, sizeof (*f));
  if (on_device) {
    iflags = gst_motion_est_cuda_map_flags (cur, ctx);
    for (i = 0; i < n && iflags; i++)
      if (!gst_motion_est_cuda_map_flags (refs[i], ctx))
        iflags = 0;
    oflags = gst_motion_est_cuda_map_flags (out, ctx);
  }
  f->device = (MCDevice) ((iflags ? MC_DEVICE_INPUTS : 0)
      | (oflags ? MC_DEVICE_OUTPUT : 0));
  f->have_out = gst_video_frame_map (&f->out, &self->info, out,
      GST_MAP_WRITE | oflags);
  f->have_cur = f->have_out && gst_video_frame_map (&f->cur, &self->info,
      cur, GST_MAP_READ | iflags);
  for (i = 0; f->have_cur && i < n; i++) {
    if (!gst_video_frame_map (&f->refs[i], &self->info, refs[i],
            GST_MAP_READ | iflags))
      break;
    f->n_refs++;
  }
  if (!f->have_cur || f->n_refs < n) {
    frames_unmap (f);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("could not map the frames to denoise"));
    return FALSE;
  }
  return TRUE;
}

/* The metas of @in on @out, but the video meta (the output has its own,
 * of its pool's layout). */
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

/* The weights of the references' predictions; all 0 for the bytes that
 * are not denoised (RGBx's x). */
typedef struct
{
  MCField fields[2 * MAX_RADIUS];
  const MCField *fp[2 * MAX_RADIUS];
  guint8 *weights[2 * MAX_RADIUS];
  guint8 *zeros;
  GstMotionVectorCell *zero_cells;
  MCField zero_field;
} Weights;

static void
weights_clear (Weights * w)
{
  guint i;

  for (i = 0; i < 2 * MAX_RADIUS; i++)
    g_free (w->weights[i]);
  g_free (w->zeros);
  g_free (w->zero_cells);
  memset (w, 0, sizeof (*w));
}

/* System-memory frames for the CUDA backend: the current picture and the
 * references moved onto their buffers' device copies
 * (gstmvdenoisedevice.h), so that each frame goes up once, not once for
 * every frame that uses it.  MC_DEVICE_INPUTS when all of them moved;
 * otherwise (a buffer of several memories, CUDA out of memory) the host
 * planes, as they were. */
static MCDevice
inputs_to_device (const Frames * f, GstBuffer * cur, GstBuffer ** refs,
    guint n, MCPicture * cp, MCPicture * pics)
{
  MCPicture c = *cp, r[2 * MAX_RADIUS];
  guint i;

  if (!gst_mv_denoise_device_picture (cur, &f->cur, &c))
    return MC_DEVICE_NONE;
  for (i = 0; i < n; i++) {
    r[i] = pics[i];
    if (!gst_mv_denoise_device_picture (refs[i], &f->refs[i], &r[i]))
      return MC_DEVICE_NONE;
  }
  *cp = c;
  for (i = 0; i < n; i++)
    pics[i] = r[i];
  return MC_DEVICE_INPUTS;
}

/* Where the temporal mix goes before the spatial pass: a buffer of the
 * CUDA pool in CUDA memory (frames stay on the device; that pool has no
 * limit), else a buffer of the element's own, kept between frames (not
 * one of downstream's pool, whose limit a second buffer could reach). */
static GstBuffer *
spatial_tmp (GstMvDenoise * self)
{
  GstBuffer *b = NULL;

  if (self->cuda_caps)
    return gst_buffer_pool_acquire_buffer (self->pool, &b, NULL)
        == GST_FLOW_OK ? b : NULL;
  /* taken from the element while in use (one reference: writable), given
   * back by spatial_tmp_done() */
  b = self->spatial_tmp;
  self->spatial_tmp = NULL;
  if (b && gst_buffer_get_size (b) < self->info.size)
    gst_clear_buffer (&b);
  return b ? b : gst_buffer_new_allocate (NULL, self->info.size, NULL);
}

static void
spatial_tmp_done (GstMvDenoise * self, GstBuffer * b)
{
  if (!b)
    return;
  if (self->cuda_caps || self->spatial_tmp)
    gst_buffer_unref (b);
  else
    self->spatial_tmp = b;
}

/* The spatial pass from the mix in @f's output (@tmp) to @out: each
 * picture of the frame (the colour; alpha with the same threshold, an x
 * byte copied) through gst_mv_denoise_spatial(). */
static gboolean
spatial_pass (GstMvDenoise * self, const Frames * f, GstBuffer * out,
    GstObject * ctx, gboolean on_device, guint threshold,
    const MCOptions * base, GError ** err)
{
  const GstMapFlags oflags = on_device
      ? gst_motion_est_cuda_map_flags (out, ctx) : 0;
  GstVideoFrame of;
  MCPicture in, op;
  MCOptions opt = *base;
  gboolean ok, is_alpha;

  if (!gst_video_frame_map (&of, &self->info, out, GST_MAP_WRITE | oflags)) {
    g_set_error (err, MC_ERROR, MC_ERROR_INVALID, "could not map the "
        "output frame");
    return FALSE;
  }
  opt.device = (MCDevice) ((f->device & MC_DEVICE_OUTPUT ? MC_DEVICE_INPUTS
          : 0) | (oflags ? MC_DEVICE_OUTPUT : 0));
  gst_mc_picture_from_frame (&f->out, &in);
  gst_mc_picture_from_frame (&of, &op);
  ok = gst_mv_denoise_spatial (&in, &op, threshold, &opt, err);
  if (ok && gst_mc_extra_from_frame (&of, &op, &is_alpha)) {
    gst_mc_extra_from_frame (&f->out, &in, &is_alpha);
    ok = gst_mv_denoise_spatial (&in, &op, is_alpha ? threshold : 0, &opt,
        err);
  }
  gst_video_frame_unmap (&of);
  return ok;
}

/* Output frame @h from the held frames: denoised with its references, or,
 * without any, the frame itself (through the library, so that the
 * samples stay on the device when they are there: one reference, itself,
 * of weight 0). */
static GstFlowReturn
output_frame (GstMvDenoise * self, Held * h)
{
  const GstMotionVectorMeta *metas[2 * MAX_RADIUS];
  GstBuffer *refs[2 * MAX_RADIUS], *out = NULL;
  const MCPicture *rp[2 * MAX_RADIUS];
  MCPicture cp, op, pics[2 * MAX_RADIUS];
  const guint8 *wp[2 * MAX_RADIUS], *zp[2 * MAX_RADIUS];
  Weights w;
  Frames f;
  MCOptions opt;
  GstObject *ctx;
  GError *err = NULL;
  GstFlowReturn ret;
  guint radius, n, i, depth, q4, threshold;
  gdouble spatial;
  GstBuffer *tmp = NULL;
  gint shape = -1;
  gboolean ok, on_device;
  const guint width = GST_VIDEO_INFO_WIDTH (&self->info);
  const guint height = GST_VIDEO_INFO_HEIGHT (&self->info);

  h->done = TRUE;
  memset (&w, 0, sizeof (w));
  GST_OBJECT_LOCK (self);
  radius = self->radius;
  GST_OBJECT_UNLOCK (self);
  n = pick_refs (self, h, radius, metas, refs);
  if (n > 0 && (shape = gst_mv_denoise_shape (metas, n)) < 0) {
    GST_WARNING_OBJECT (self, "the fields of %" GST_TIME_FORMAT " share no "
        "grid: not denoised", GST_TIME_ARGS (GST_BUFFER_PTS (h->buf)));
    n = 0;
  }
  /* the depth the costs are in: the luma's, as mvinterpolate takes it for
   * its weights (gpumotionest searches the frame's own luma, or for RGB
   * one it derives at 8 bits) */
  depth = GST_VIDEO_INFO_COMP_DEPTH (&self->info, 0);
  for (i = 0; i < n; i++) {
    gst_mc_field_from_meta (metas[i], shape, &w.fields[i]);
    w.fp[i] = &w.fields[i];
  }
  /* the noise from the field against the nearest past reference, else
   * the nearest future one (pick_refs()' order: nearest first), on its
   * 16x16 grid when it has one: the low quantile the estimate reads lies
   * closer to the mean on blocks of more samples (docs/denoise.md, "The
   * noise level") */
  for (i = 0; i < n && metas[i]->ref_distance > 0; i++);
  if (n > 0) {
    MCField est;

    i = i < n ? i : 0;
    gst_mc_field_from_meta (metas[i], GST_MOTION_VECTOR_PARTITION_16X16,
        &est);
    q4 = sigma_for (self, h, est.cells ? &est : &w.fields[i], depth);
  } else {
    q4 = sigma_for (self, h, NULL, depth);
  }
  for (i = 0; i < n; i++) {
    w.weights[i] = g_malloc ((gsize) w.fields[i].cols * w.fields[i].rows);
    if (!mc_denoise_weights (&w.fields[i], FALSE, depth, q4, w.weights[i],
            &err)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Denoising failed: %s",
              err ? err->message : "?"), (NULL));
      g_clear_error (&err);
      weights_clear (&w);
      return GST_FLOW_ERROR;
    }
    wp[i] = w.weights[i];
  }
  if (n == 0) {
    /* a 16x16 grid of zero vectors over the frame, weight 0 */
    w.zero_field.block_w = w.zero_field.block_h = 16;
    w.zero_field.cols = (width + 15) / 16;
    w.zero_field.rows = (height + 15) / 16;
    w.zero_cells = g_new0 (GstMotionVectorCell, (gsize) w.zero_field.cols
        * w.zero_field.rows);
    w.zero_field.cells = w.zero_cells;
    w.fp[0] = &w.zero_field;
  }
  w.zeros = g_malloc0 ((gsize) (n ? w.fields[0].cols : w.zero_field.cols)
      * (n ? w.fields[0].rows : w.zero_field.rows));
  for (i = 0; i < MAX (n, 1); i++)
    zp[i] = w.zeros;
  if (n == 0)
    wp[0] = w.zeros;

  if (!self->pool) {
    weights_clear (&w);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  ret = gst_buffer_pool_acquire_buffer (self->pool, &out, NULL);
  if (ret != GST_FLOW_OK) {
    weights_clear (&w);
    return ret;
  }
  /* with a spatial pass, the mix goes to a buffer of its own first */
  GST_OBJECT_LOCK (self);
  spatial = self->spatial;
  GST_OBJECT_UNLOCK (self);
  threshold = gst_mv_denoise_spatial_threshold (spatial, q4, depth, n);
  if (threshold && !(tmp = spatial_tmp (self))) {
    weights_clear (&w);
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("no buffer for the spatial pass"));
    return GST_FLOW_ERROR;
  }

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
  /* the backend's stream and buffers belong to the frames' context, which
   * may go before this thread does: a session of ours */
  if (on_device
      && !(opt.cuda_session = gst_mc_backend_session (&self->mc, ctx,
              &err))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("CUDA session: %s", err ? err->message : "?"));
    g_clear_error (&err);
    ok = FALSE;
  }
  if (ok && (ok = frames_map (self, &f, h->buf, n ? refs : &h->buf, MAX (n,
                  1), tmp ? tmp : out, ctx, on_device))) {
    gboolean is_alpha;

    gst_mc_picture_from_frame (&f.cur, &cp);
    gst_mc_picture_from_frame (&f.out, &op);
    for (i = 0; i < MAX (n, 1); i++) {
      gst_mc_picture_from_frame (&f.refs[i], &pics[i]);
      rp[i] = &pics[i];
    }
    opt.device = f.device;
    if (self->mc.is_cuda && !on_device)
      opt.device = inputs_to_device (&f, h->buf, n ? refs : &h->buf,
          MAX (n, 1), &cp, pics);
    ok = mc_denoise_picture (&cp, rp, w.fp, wp, MAX (n, 1), &op, &opt, &err);
    /* alpha is denoised as the colour is, with the same vectors and
     * weights; the x byte of RGBx and the like is the frame's own */
    if (ok && gst_mc_extra_from_frame (&f.out, &op, &is_alpha)) {
      gst_mc_extra_from_frame (&f.cur, &cp, &is_alpha);
      for (i = 0; i < MAX (n, 1); i++)
        gst_mc_extra_from_frame (&f.refs[i], &pics[i], &is_alpha);
      if (self->mc.is_cuda && !on_device)
        opt.device = inputs_to_device (&f, h->buf, n ? refs : &h->buf,
            MAX (n, 1), &cp, pics);
      ok = mc_denoise_picture (&cp, rp, w.fp, is_alpha ? wp : zp, MAX (n, 1),
          &op, &opt, &err);
    }
    if (ok && tmp)
      ok = spatial_pass (self, &f, out, ctx, on_device, threshold, &opt,
          &err);
    if (!ok) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Denoising failed: %s", err ? err->message : "?"), (NULL));
      g_clear_error (&err);
    }
    frames_unmap (&f);
  }
  gst_motion_est_cuda_pop (ctx);
  gst_clear_object (&ctx);
  spatial_tmp_done (self, tmp);
  weights_clear (&w);
  if (!ok) {
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  self->n_frames++;
  self->n_refs += n;
  GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": %u references, sigma %.2f, "
      "spatial threshold %u", GST_TIME_ARGS (GST_BUFFER_PTS (h->buf)), n,
      q4 / 16.0, threshold);

  /* the input's timestamps, flags and metas (the fields among them) */
  gst_buffer_copy_into (out, h->buf, GST_BUFFER_COPY_FLAGS
      | GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  gst_buffer_foreach_meta (h->buf, copy_meta, out);
  return gst_pad_push (self->srcpad, out);
}

/* ---- the held frames ----------------------------------------------------- */

static void
held_free (Held * h)
{
  gst_mv_denoise_device_forget (h->buf);
  gst_buffer_unref (h->buf);
  g_free (h);
}

static guint
n_pending (GstMvDenoise * self)
{
  GList *l;
  guint n = 0;

  for (l = self->held.tail; l && !((Held *) l->data)->done; l = l->prev)
    n++;
  return n;
}

static Held *
first_pending (GstMvDenoise * self)
{
  GList *l;

  for (l = self->held.head; l; l = l->next)
    if (!((Held *) l->data)->done)
      return l->data;
  return NULL;
}

/* Frames out while more than @keep wait behind them (frame t needs t +
 * radius); then the frames out beyond the radius are let go. */
static GstFlowReturn
advance (GstMvDenoise * self, guint keep)
{
  GstFlowReturn ret = GST_FLOW_OK;
  guint radius, n_done;
  Held *h;

  GST_OBJECT_LOCK (self);
  radius = self->radius;
  GST_OBJECT_UNLOCK (self);
  while (ret == GST_FLOW_OK && n_pending (self) > keep
      && (h = first_pending (self)))
    ret = output_frame (self, h);
  n_done = g_queue_get_length (&self->held) - n_pending (self);
  while (n_done > radius) {
    held_free (g_queue_pop_head (&self->held));
    n_done--;
  }
  return ret;
}

static void
drop_held (GstMvDenoise * self)
{
  Held *h;

  while ((h = g_queue_pop_head (&self->held)))
    held_free (h);
}

/* At a break: every held frame out, with the references on its side of
 * the break; nothing is held after it. */
static GstFlowReturn
drain (GstMvDenoise * self)
{
  GstFlowReturn ret = advance (self, 0);

  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "drain: %s", gst_flow_get_name (ret));
  drop_held (self);
  gst_mv_denoise_level_clear (&self->level);
  return ret;
}

static void
reset (GstMvDenoise * self)
{
  drop_held (self);
  gst_mv_denoise_level_clear (&self->level);
}

/* ---- input --------------------------------------------------------------- */

static gboolean
check_layout (GstMvDenoise * self, GstBuffer * buf)
{
  GstObject *ctx = cuda_ctx_ref (self);
  gboolean ok = gst_mc_check_frame (GST_ELEMENT (self), buf, &self->info,
      self->cuda_caps, ctx);

  gst_clear_object (&ctx);
  return ok;
}

/* Frames in CUDA memory of another context than ours: work in theirs from
 * now on (the backend reads them in place, the output pool is theirs). */
static gboolean
follow_frames_context (GstMvDenoise * self, GstBuffer * buf)
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
gst_mv_denoise_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstMvDenoise *self = GST_MV_DENOISE (parent);
  GstFlowReturn ret;
  Held *h, *newest;
  guint radius;

  if (!self->have_caps || !self->pool) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("a buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)) {
    /* a break: the frames before it out, then the gap as it came */
    ret = drain (self);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return ret;
    }
    return gst_pad_push (self->srcpad, buf);
  }
  if (!GST_BUFFER_PTS_IS_VALID (buf)) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("mvdenoise needs timestamped frames"), (NULL));
    return GST_FLOW_ERROR;
  }
  GST_OBJECT_LOCK (self);
  radius = self->radius;
  GST_OBJECT_UNLOCK (self);
  if (!gst_mv_denoise_check_fields (GST_ELEMENT (self), buf, radius,
          GST_VIDEO_INFO_WIDTH (&self->info),
          GST_VIDEO_INFO_HEIGHT (&self->info), &self->checked_fields,
          &self->warned_no_summary)
      || (self->cuda_caps && !follow_frames_context (self, buf))
      || !check_layout (self, buf)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)) {
    ret = drain (self);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return ret;
    }
  }
  newest = g_queue_peek_tail (&self->held);
  if (newest && GST_BUFFER_PTS (buf) <= GST_BUFFER_PTS (newest->buf)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Timestamps must increase: %" GST_TIME_FORMAT " after %"
            GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
            GST_TIME_ARGS (GST_BUFFER_PTS (newest->buf))), (NULL));
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  h = g_new0 (Held, 1);
  h->buf = buf;
  if (newest && gst_mv_denoise_is_cut (GST_ELEMENT (self), buf)) {
    GST_DEBUG_OBJECT (self, "scene cut at %" GST_TIME_FORMAT,
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
    self->scene++;
  }
  h->scene = self->scene;
  g_queue_push_tail (&self->held, h);
  return advance (self, radius);
}

/* ---- events and queries -------------------------------------------------- */

static gboolean
set_caps (GstMvDenoise * self, GstCaps * caps)
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
gst_mv_denoise_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstMvDenoise *self = GST_MV_DENOISE (parent);

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
            ("segment of format %s, mvdenoise needs TIME",
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
      /* a break, or the end: every held frame out first */
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
gst_mv_denoise_sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstMvDenoise *self = GST_MV_DENOISE (parent);

  switch (GST_QUERY_TYPE (query)) {
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
gst_mv_denoise_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstMvDenoise *self = GST_MV_DENOISE (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:{
      gboolean live;
      GstClockTime min, max, held = 0;
      gint n, d;
      guint radius;

      if (!gst_pad_peer_query (self->sinkpad, query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      GST_OBJECT_LOCK (self);
      n = self->fps_n;
      d = self->fps_d;
      radius = self->radius;
      GST_OBJECT_UNLOCK (self);
      /* frame t waits for t + radius: radius frames at the caps' rate; a
       * variable rate (0/1) gives no frame duration, and nothing is added
       * (docs/denoise.md, "Latency") */
      if (n > 0 && d > 0)
        held = gst_util_uint64_scale (GST_SECOND, (guint64) d * radius, n);
      else
        GST_DEBUG_OBJECT (self, "variable frame rate: the %u frames held "
            "add a latency not known here, none reported", radius);
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
gst_mv_denoise_change_state (GstElement * element, GstStateChange transition)
{
  GstMvDenoise *self = GST_MV_DENOISE (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    reset (self);
    self->have_caps = FALSE;
    self->mc.resolved = FALSE;
    self->checked_fields = FALSE;
    self->warned_no_summary = FALSE;
    self->scene = 0;
    self->n_frames = self->n_refs = 0;
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    GST_INFO_OBJECT (self, "%" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
        " references", self->n_frames, self->n_refs);
    reset (self);
    self->have_caps = FALSE;
    self->cuda_caps = FALSE;
    drop_pool (self);
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
gst_mv_denoise_set_context (GstElement * element, GstContext * context)
{
  GstMvDenoise *self = GST_MV_DENOISE (element);

  gst_motion_est_cuda_set_context (element, context, -1, &self->cuda_ctx);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static void
gst_mv_denoise_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvDenoise *self = GST_MV_DENOISE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SIGMA:
      self->sigma = g_value_get_double (value);
      break;
    case PROP_RADIUS:
      self->radius = g_value_get_uint (value);
      break;
    case PROP_BACKEND:
      gst_mc_backend_request (&self->mc, g_value_get_enum (value));
      break;
    case PROP_THREADS:
      self->threads = g_value_get_uint (value);
      break;
    case PROP_SPATIAL:
      self->spatial = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_denoise_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMvDenoise *self = GST_MV_DENOISE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SIGMA:
      g_value_set_double (value, self->sigma);
      break;
    case PROP_SIGMA_ESTIMATE:
      g_value_set_double (value, self->sigma_estimate);
      break;
    case PROP_RADIUS:
      g_value_set_uint (value, self->radius);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, self->mc.requested);
      break;
    case PROP_THREADS:
      g_value_set_uint (value, self->threads);
      break;
    case PROP_SPATIAL:
      g_value_set_double (value, self->spatial);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_denoise_finalize (GObject * object)
{
  GstMvDenoise *self = GST_MV_DENOISE (object);

  drop_held (self);
  if (self->pool)
    gst_object_unref (self->pool);
  gst_caps_replace (&self->caps, NULL);
  gst_mc_backend_drop_session (&self->mc);
  gst_clear_object (&self->cuda_ctx);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mv_denoise_class_init (GstMvDenoiseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_mv_denoise_debug, "mvdenoise", 0,
      "motion-compensated temporal denoising");

  gobject_class->set_property = gst_mv_denoise_set_property;
  gobject_class->get_property = gst_mv_denoise_get_property;
  gobject_class->finalize = gst_mv_denoise_finalize;

  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Noise level",
          "The noise's standard deviation in 8-bit levels (-1: estimated "
          "from the fields' costs)", -1.0, 255.0, DEFAULT_SIGMA,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SIGMA_ESTIMATE,
      g_param_spec_double ("sigma-estimate", "Noise level in use",
          "The noise level the last frame was denoised with, in 8-bit "
          "levels (the property's, or the estimate)", 0.0, 255.0, 0.0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_uint ("radius", "Radius",
          "The farthest reference used on each side, in frames (each held "
          "back as latency)", 1, MAX_RADIUS, DEFAULT_RADIUS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Which motion-compensation implementation makes the frames",
          gst_mv_denoise_backend_get_type (), DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "Threads of the CPU backend (0: one per core; 1: the streaming "
          "thread alone)", 0, 64, DEFAULT_THREADS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_property (gobject_class, PROP_SPATIAL,
      g_param_spec_double ("spatial", "Spatial strength",
          "The spatial pass after the temporal mix: the threshold of its "
          "5x5 sigma filter in units of the noise the mix leaves (sigma / "
          "sqrt (references + 1)); 0: no spatial pass", 0.0, 8.0,
          DEFAULT_SPATIAL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Motion-compensated temporal denoiser", "Filter/Effect/Video",
      "Averages each frame with its neighbours moved onto it by their "
      "motion-vector metas (gpumotionest references=-2,-1,+1,+2)",
      "gpumotionest developers");
  element_class->change_state = gst_mv_denoise_change_state;
  element_class->set_context = gst_mv_denoise_set_context;

  gst_type_mark_as_plugin_api (gst_mv_denoise_backend_get_type (), 0);
}

static void
gst_mv_denoise_init (GstMvDenoise * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mv_denoise_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mv_denoise_sink_event));
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mv_denoise_sink_query));
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_mv_denoise_src_query));
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->sigma = DEFAULT_SIGMA;
  self->radius = DEFAULT_RADIUS;
  self->spatial = DEFAULT_SPATIAL;
  gst_mc_backend_init (&self->mc, GST_CAT_DEFAULT, DEFAULT_BACKEND);
  self->threads = DEFAULT_THREADS;
  g_queue_init (&self->held);
}
