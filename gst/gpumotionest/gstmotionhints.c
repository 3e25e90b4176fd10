/* gpumotionest — encoder hints and motion messages from a frame's summary
 * (gstmotionhints.h, docs/encoder-hints.md).
 *
 * Host code after the backend, reading only the meta's cells and summary,
 * so every backend gives the same events, rectangles and messages. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/video/video.h>

#include "gstmotionhints.h"
#include "gstmotionregions.h"

GST_DEBUG_CATEGORY_EXTERN (gst_gpu_motion_est_debug);
#define GST_CAT_DEFAULT gst_gpu_motion_est_debug

#define DEFAULT_KEYFRAME_ON_CUT FALSE
#define DEFAULT_CUT_THRESHOLD GST_MOTION_VECTOR_SUMMARY_SCENE_CHANGE_THRESHOLD
#define DEFAULT_ROI FALSE
#define DEFAULT_ROI_MAX_REGIONS 8
#define DEFAULT_ROI_THRESHOLD GST_MOTION_VECTOR_SUMMARY_MOVING_THRESHOLD
#define DEFAULT_ROI_DELTA_QP (-4)
#define DEFAULT_MOTION_EVENTS FALSE
#define DEFAULT_MOTION_EVENT_INTERVAL GST_SECOND

/* Frames without a timestamp are timed as if at 30 frames/s. */
#define UNTIMED_FRAME_DURATION (GST_SECOND / 30)

/* The parameter structure this element writes on its ROI metas, and those
 * of the encoders that read a delta QP from them (GStreamer's vaapi and
 * msdk encoders: an int "delta-qp"). */
#define ROI_TYPE "motion"
#define ROI_PARAMS "roi/gpumotionest"
static const gchar *const roi_encoder_params[] = { "roi/vaapi", "roi/msdk" };

void
gst_motion_hints_settings_init (GstMotionHintsSettings * settings)
{
  settings->keyframe_on_cut = DEFAULT_KEYFRAME_ON_CUT;
  settings->cut_threshold = DEFAULT_CUT_THRESHOLD;
  settings->roi = DEFAULT_ROI;
  settings->roi_max_regions = DEFAULT_ROI_MAX_REGIONS;
  settings->roi_threshold = DEFAULT_ROI_THRESHOLD;
  settings->roi_delta_qp = DEFAULT_ROI_DELTA_QP;
  settings->motion_events = DEFAULT_MOTION_EVENTS;
  settings->motion_event_interval = DEFAULT_MOTION_EVENT_INTERVAL;
}

gboolean
gst_motion_hints_enabled (const GstMotionHintsSettings * settings)
{
  return settings->keyframe_on_cut || settings->roi
      || settings->motion_events;
}

void
gst_motion_hints_install (GObjectClass * klass, guint first, GParamFlags flags)
{
  g_object_class_install_property (klass,
      first + GST_MOTION_HINTS_PROP_KEYFRAME_ON_CUT,
      g_param_spec_boolean ("keyframe-on-cut", "Key frame on cut",
          "Send a downstream force-key-unit event (with all headers) right "
          "before each frame whose scene change score is at or above "
          "cut-threshold", DEFAULT_KEYFRAME_ON_CUT, flags));
  g_object_class_install_property (klass,
      first + GST_MOTION_HINTS_PROP_CUT_THRESHOLD,
      g_param_spec_double ("cut-threshold", "Cut threshold",
          "Scene change score (0 to 100) from which a frame is a cut",
          0.0, 100.0, DEFAULT_CUT_THRESHOLD, flags));
  g_object_class_install_property (klass, first + GST_MOTION_HINTS_PROP_ROI,
      g_param_spec_boolean ("roi", "Regions of interest",
          "Attach a GstVideoRegionOfInterestMeta of type \"motion\" to each "
          "region of the frame that moves on its own", DEFAULT_ROI, flags));
  g_object_class_install_property (klass,
      first + GST_MOTION_HINTS_PROP_ROI_MAX_REGIONS,
      g_param_spec_uint ("roi-max-regions", "Most regions",
          "Moving regions are merged until at most this many remain "
          "(regions and motion messages)", 1, GST_MOTION_REGIONS_MAX,
          DEFAULT_ROI_MAX_REGIONS, flags));
  g_object_class_install_property (klass,
      first + GST_MOTION_HINTS_PROP_ROI_THRESHOLD,
      g_param_spec_uint ("roi-threshold", "Region speed threshold",
          "A moving macroblock counts in the regions when its motion of its "
          "own exceeds this many quarter pixels per frame (at or below 6, "
          "every block the summary counts as moving)", 0, 4096,
          DEFAULT_ROI_THRESHOLD, flags));
  g_object_class_install_property (klass,
      first + GST_MOTION_HINTS_PROP_ROI_DELTA_QP,
      g_param_spec_int ("roi-delta-qp", "Region delta QP",
          "QP offset written for the encoders that read one from ROI metas "
          "(roi/vaapi, roi/msdk); negative: better quality where it moves",
          -51, 51, DEFAULT_ROI_DELTA_QP, flags));
  g_object_class_install_property (klass,
      first + GST_MOTION_HINTS_PROP_MOTION_EVENTS,
      g_param_spec_boolean ("motion-events", "Motion messages",
          "Post \"motion\" element messages when motion begins, goes on and "
          "finishes", DEFAULT_MOTION_EVENTS, flags));
  g_object_class_install_property (klass,
      first + GST_MOTION_HINTS_PROP_MOTION_EVENT_INTERVAL,
      g_param_spec_uint64 ("motion-event-interval", "Motion message interval",
          "Least stream time between two motion messages, and the time "
          "without motion before \"finished\", in nanoseconds", 0,
          G_MAXUINT64, DEFAULT_MOTION_EVENT_INTERVAL, flags));
}

gboolean
gst_motion_hints_set_property (GstMotionHintsSettings * s, guint id,
    const GValue * value)
{
  switch (id) {
    case GST_MOTION_HINTS_PROP_KEYFRAME_ON_CUT:
      s->keyframe_on_cut = g_value_get_boolean (value);
      break;
    case GST_MOTION_HINTS_PROP_CUT_THRESHOLD:
      s->cut_threshold = g_value_get_double (value);
      break;
    case GST_MOTION_HINTS_PROP_ROI:
      s->roi = g_value_get_boolean (value);
      break;
    case GST_MOTION_HINTS_PROP_ROI_MAX_REGIONS:
      s->roi_max_regions = g_value_get_uint (value);
      break;
    case GST_MOTION_HINTS_PROP_ROI_THRESHOLD:
      s->roi_threshold = g_value_get_uint (value);
      break;
    case GST_MOTION_HINTS_PROP_ROI_DELTA_QP:
      s->roi_delta_qp = g_value_get_int (value);
      break;
    case GST_MOTION_HINTS_PROP_MOTION_EVENTS:
      s->motion_events = g_value_get_boolean (value);
      break;
    case GST_MOTION_HINTS_PROP_MOTION_EVENT_INTERVAL:
      s->motion_event_interval = g_value_get_uint64 (value);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_motion_hints_get_property (const GstMotionHintsSettings * s, guint id,
    GValue * value)
{
  switch (id) {
    case GST_MOTION_HINTS_PROP_KEYFRAME_ON_CUT:
      g_value_set_boolean (value, s->keyframe_on_cut);
      break;
    case GST_MOTION_HINTS_PROP_CUT_THRESHOLD:
      g_value_set_double (value, s->cut_threshold);
      break;
    case GST_MOTION_HINTS_PROP_ROI:
      g_value_set_boolean (value, s->roi);
      break;
    case GST_MOTION_HINTS_PROP_ROI_MAX_REGIONS:
      g_value_set_uint (value, s->roi_max_regions);
      break;
    case GST_MOTION_HINTS_PROP_ROI_THRESHOLD:
      g_value_set_uint (value, s->roi_threshold);
      break;
    case GST_MOTION_HINTS_PROP_ROI_DELTA_QP:
      g_value_set_int (value, s->roi_delta_qp);
      break;
    case GST_MOTION_HINTS_PROP_MOTION_EVENTS:
      g_value_set_boolean (value, s->motion_events);
      break;
    case GST_MOTION_HINTS_PROP_MOTION_EVENT_INTERVAL:
      g_value_set_uint64 (value, s->motion_event_interval);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

void
gst_motion_hints_reset (GstMotionHints * hints)
{
  hints->frames = 0;
  hints->last_ts = GST_CLOCK_TIME_NONE;
  gst_motion_events_reset (&hints->events);
}

/* Where pts lies in the segment: NONE outside a TIME segment (none yet,
 * or after a flush) as outside the segment. */
static GstClockTime
running_time (const GstSegment * segment, GstClockTime pts)
{
  if (segment->format != GST_FORMAT_TIME)
    return GST_CLOCK_TIME_NONE;
  return gst_segment_to_running_time (segment, GST_FORMAT_TIME, pts);
}

static GstClockTime
stream_time (const GstSegment * segment, GstClockTime pts)
{
  if (segment->format != GST_FORMAT_TIME)
    return GST_CLOCK_TIME_NONE;
  return gst_segment_to_stream_time (segment, GST_FORMAT_TIME, pts);
}

/* The frame's timestamp and where it lies in the segment, on a message. */
static void
set_times (GstStructure * s, const GstSegment * segment, GstClockTime pts)
{
  gst_structure_set (s, "timestamp", G_TYPE_UINT64, pts,
      "stream-time", G_TYPE_UINT64, stream_time (segment, pts),
      "running-time", G_TYPE_UINT64, running_time (segment, pts), NULL);
}

/* Each macroblock's motion of its own: the largest, over its blocks of
 * the grid the summary was computed from, of the length of the block's
 * vector minus the global model's vector at the block centre, in quarter
 * pixels, rounded.  The model (gstmotionvectorsummary.h): a pixel p lies
 * in the reference at c + g / 4 + R(-rotation) (p - c) / (1 + zoom). */
static void
local_speeds (const GstMotionVectorMeta * meta,
    const GstMotionVectorSummary * sum, guint mb_cols, guint mb_rows,
    guint32 * speed)
{
  const GstMotionVectorPartition p = sum->partition;
  const guint bw = gst_motion_vector_partition_width (p);
  const guint bh = gst_motion_vector_partition_height (p);
  /* positions at the meta's size, where the vectors are */
  const gdouble sx = (gdouble) meta->width / meta->analysis_width;
  const gdouble sy = (gdouble) meta->height / meta->analysis_height;
  const gdouble cx = meta->width / 2.0, cy = meta->height / 2.0;
  const gdouble rc = cos (sum->rotation) / (1.0 + sum->zoom);
  const gdouble rs = sin (sum->rotation) / (1.0 + sum->zoom);
  const GstMotionVectorCell *grid;
  guint cols, rows;

  memset (speed, 0, sizeof (guint32) * mb_cols * mb_rows);
  grid = gst_motion_vector_meta_get_grid (meta, p, &cols, &rows);
  if (!grid || cols * bw / 16 > mb_cols || rows * bh / 16 > mb_rows)
    return;
  for (guint r = 0; r < rows; r++) {
    for (guint c = 0; c < cols; c++) {
      const GstMotionVectorCell *cell = &grid[r * cols + c];
      const gdouble dx = (c * bw + bw / 2.0) * sx - cx;
      const gdouble dy = (r * bh + bh / 2.0) * sy - cy;
      const gdouble mx = sum->global_x + 4.0 * (rc * dx + rs * dy - dx);
      const gdouble my = sum->global_y + 4.0 * (-rs * dx + rc * dy - dy);
      const gdouble ex = cell->mv_x - mx, ey = cell->mv_y - my;
      const guint32 q = (guint32) MIN (sqrt (ex * ex + ey * ey) + 0.5,
          (gdouble) G_MAXUINT32);
      guint32 *s = &speed[(r * bh / 16) * mb_cols + c * bw / 16];

      *s = MAX (*s, q);
    }
  }
}

/* The regions that move on their own: the summary's moving macroblocks
 * whose own motion exceeds the threshold, merged into rectangles. */
static guint
find_regions (const GstMotionVectorMeta * meta,
    const GstMotionVectorSummary * sum, const GstMotionHintsSettings * set,
    GstMotionRegion * regions)
{
  g_autoptr (GBytes) bytes = NULL;
  g_autofree guint32 *speed = NULL;
  g_autofree guint8 *mask = NULL;
  guint mb_cols = 0, mb_rows = 0;
  gsize size;

  bytes = gst_motion_vector_summary_get_moving_blocks (meta, sum, &mb_cols,
      &mb_rows);
  if (!bytes || !mb_cols || !mb_rows)
    return 0;
  mask = g_bytes_unref_to_data (g_steal_pointer (&bytes), &size);
  if (size < (gsize) mb_cols * mb_rows)
    return 0;
  speed = g_new (guint32, (gsize) mb_cols * mb_rows);
  local_speeds (meta, sum, mb_cols, mb_rows, speed);
  if (set->roi_threshold > GST_MOTION_VECTOR_SUMMARY_MOVING_THRESHOLD)
    for (gsize i = 0; i < (gsize) mb_cols * mb_rows; i++)
      mask[i] = mask[i] && speed[i] > set->roi_threshold;
  return gst_motion_regions_find (mask, speed, mb_cols, mb_rows,
      meta->analysis_width, meta->analysis_height, set->roi_max_regions,
      regions);
}

static void
add_roi_metas (GstBuffer * buffer, const GstMotionRegion * regions, guint n,
    gint delta_qp)
{
  for (guint i = 0; i < n; i++) {
    const GstMotionRegion *r = &regions[i];
    GstVideoRegionOfInterestMeta *roi;

    roi = gst_buffer_add_video_region_of_interest_meta (buffer, ROI_TYPE,
        r->x, r->y, r->w, r->h);
    roi->id = (gint) i;
    gst_video_region_of_interest_meta_add_param (roi,
        gst_structure_new (ROI_PARAMS,
            "moving-blocks", G_TYPE_UINT, r->moving,
            "moving-share", G_TYPE_DOUBLE, (gdouble) r->moving / r->blocks,
            "mean-speed", G_TYPE_DOUBLE, r->speed_sum / 4.0 / r->moving,
            NULL));
    for (guint e = 0; e < G_N_ELEMENTS (roi_encoder_params); e++)
      gst_video_region_of_interest_meta_add_param (roi,
          gst_structure_new (roi_encoder_params[e],
              "delta-qp", G_TYPE_INT, delta_qp, NULL));
  }
}

/* The force-key-unit event goes into the ready queue just before the
 * buffer (the caller queues the buffer next), so that it reaches
 * downstream right before the cut frame, as an encoder wants it. */
static void
force_key_unit (GstMotionHints * hints, GstElement * element,
    const GstSegment * segment, GstBuffer * buffer, gdouble score,
    GQueue * ready)
{
  const GstClockTime pts = GST_BUFFER_PTS (buffer);
  GstStructure *s;

  hints->key_units++;
  g_queue_push_tail (ready,
      gst_video_event_new_downstream_force_key_unit (pts,
          stream_time (segment, pts), running_time (segment, pts), TRUE,
          hints->key_units));
  GST_INFO_OBJECT (element, "scene cut at %" GST_TIME_FORMAT " (score %.1f): "
      "key unit %u forced", GST_TIME_ARGS (pts), score, hints->key_units);

  s = gst_structure_new ("scene-cut", "score", G_TYPE_DOUBLE, score,
      "count", G_TYPE_UINT, hints->key_units, NULL);
  set_times (s, segment, pts);
  gst_element_post_message (element,
      gst_message_new_element (GST_OBJECT (element), s));
}

void
gst_motion_hints_frame (GstMotionHints * hints,
    const GstMotionHintsSettings * set, GstElement * element,
    const GstSegment * segment, GstBuffer * buffer,
    const GstMotionVectorMeta * meta, GQueue * ready)
{
  GstMotionRegion regions[GST_MOTION_REGIONS_MAX];
  GstMotionVectorSummary sum;
  GstClockTime ts;
  guint n = 0;

  if (!set->keyframe_on_cut && !set->roi && !set->motion_events)
    return;
  /* a frame without a summary is one without a reference: still */
  if (!meta || !gst_motion_vector_meta_get_summary (meta, &sum))
    memset (&sum, 0, sizeof (sum));

  if (set->keyframe_on_cut && meta
      && !(sum.flags & (GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE
              | GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS))
      && gst_motion_vector_summary_is_scene_change (&sum, set->cut_threshold))
    force_key_unit (hints, element, segment, buffer, sum.scene_change, ready);

  if ((set->roi || set->motion_events) && meta && sum.moving_share > 0.0)
    n = find_regions (meta, &sum, set, regions);
  if (set->roi)
    add_roi_metas (buffer, regions, n, set->roi_delta_qp);

  if (set->motion_events) {
    GstStructure *s;

    ts = GST_BUFFER_PTS (buffer);
    if (!GST_CLOCK_TIME_IS_VALID (ts))
      ts = hints->frames * UNTIMED_FRAME_DURATION;
    s = gst_motion_events_frame (&hints->events, set->motion_event_interval,
        ts, sum.moving_share, regions, n);
    hints->last_ts = ts;
    if (s) {
      set_times (s, segment, ts);
      GST_INFO_OBJECT (element, "motion %s at %" GST_TIME_FORMAT,
          gst_structure_get_string (s, "event"), GST_TIME_ARGS (ts));
      gst_element_post_message (element,
          gst_message_new_element (GST_OBJECT (element), s));
    }
  }
  hints->frames++;
}

void
gst_motion_hints_eos (GstMotionHints * hints,
    const GstMotionHintsSettings * set, GstElement * element,
    const GstSegment * segment)
{
  GstStructure *s = gst_motion_events_eos (&hints->events, hints->last_ts);

  if (s && set->motion_events) {
    set_times (s, segment, hints->last_ts);
    GST_INFO_OBJECT (element, "motion finished at the end of the stream");
    gst_element_post_message (element,
        gst_message_new_element (GST_OBJECT (element), s));
  } else if (s) {
    gst_structure_free (s);
  }
  gst_motion_hints_reset (hints);
}
