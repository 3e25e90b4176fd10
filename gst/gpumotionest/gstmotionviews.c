/* gpumotionest — the views of stereo video (gstmotionviews.h). */
#include <math.h>
#include <stdlib.h>

#include "gstmotionviews.h"
#include "me_cost.h"

gboolean
gst_motion_views_from_info (GstMotionViews * views, const GstVideoInfo * info,
    GError ** error)
{
  const GstVideoMultiviewMode mode = GST_VIDEO_INFO_MULTIVIEW_MODE (info);
  const guint w = GST_VIDEO_INFO_WIDTH (info);
  const guint h = GST_VIDEO_INFO_HEIGHT (info);

  views->width = w;
  views->height = h;
  switch (mode) {
    case GST_VIDEO_MULTIVIEW_MODE_NONE:
    case GST_VIDEO_MULTIVIEW_MODE_MONO:
    case GST_VIDEO_MULTIVIEW_MODE_LEFT:
    case GST_VIDEO_MULTIVIEW_MODE_RIGHT:
      views->layout = GST_MOTION_VIEWS_MONO;
      return TRUE;
    case GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE:
      views->layout = GST_MOTION_VIEWS_SIDE_BY_SIDE;
      views->width = w / 2;
      break;
    case GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM:
      views->layout = GST_MOTION_VIEWS_TOP_BOTTOM;
      views->height = h / 2;
      break;
    case GST_VIDEO_MULTIVIEW_MODE_FRAME_BY_FRAME:
      views->layout = GST_MOTION_VIEWS_FRAME_BY_FRAME;
      if (GST_VIDEO_INFO_VIEWS (info) != 2) {
        g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
            "frame-by-frame stereo of %u views: two are searched",
            GST_VIDEO_INFO_VIEWS (info));
        return FALSE;
      }
      break;
    default:
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "multiview-mode %s is not searched: side-by-side, top-bottom and "
          "frame-by-frame are (and mono)",
          gst_video_multiview_mode_to_caps_string (mode) ?
          gst_video_multiview_mode_to_caps_string (mode) : "unknown");
      return FALSE;
  }
  if (views->width < 1 || views->height < 1) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "a %ux%u %s frame has no room for two views", w, h,
        gst_video_multiview_mode_to_caps_string (mode));
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_motion_views_parse_disparity (const gchar * str, gint * min, gint * max,
    GError ** error)
{
  gchar *end = NULL;
  gint64 a, b;

  a = g_ascii_strtoll (str ? str : "", &end, 10);
  if (!str || end == str || (*end && *end != ','))
    goto syntax;
  if (!*end) {
    /* one number N: the range between 0 and N, whichever side N is on
     * (a left-first rig's 0,N; a right-first rig's N,0) */
    b = MAX (a, 0);
    a = MIN (a, 0);
  } else {
    const gchar *second = end + 1;

    b = g_ascii_strtoll (second, &end, 10);
    if (end == second || *end)
      goto syntax;
  }
  if (a > b) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "disparity range %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
        ": the smallest first", a, b);
    return FALSE;
  }
  /* the bounds first: b - a of numbers out of them may overflow */
  if (a < -ME_MAX_RANGE || b > ME_MAX_RANGE
      || b - a > 2 * ME_MAX_VIEWS_RANGE) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "disparity range %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
        ": at most %d pixels wide, within ±%d", a, b, 2 * ME_MAX_VIEWS_RANGE,
        ME_MAX_RANGE);
    return FALSE;
  }
  *min = (gint) a;
  *max = (gint) b;
  return TRUE;

syntax:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "disparity range \"%s\" is neither MIN,MAX nor a single number "
      "N (0 to N) in pixels, such as 0,64, -32,96 or 64", str ? str : "");
  return FALSE;
}

void
gst_motion_views_disparity_params (MESearchParams * params, gint min,
    gint max, guint vertical)
{
  /* the window [c - R, c + R] covers [min, max]: c rounded down, R up */
  const gint c = (gint) floor ((min + max) / 2.0);
  const guint R = MAX (1, MAX (max - c, c - min));

  params->method = GST_MOTION_VECTOR_METHOD_FULL;
  params->offset_x = c;
  params->search_range = R;
  params->range_y = CLAMP (vertical, 1, R);
}

void
gst_motion_views_plane (const GstMotionViews * views, const MEPlane * luma,
    guint v, MEPlane * out)
{
  const unsigned step = luma->step ? luma->step : 1;

  *out = *luma;
  out->width = views->width;
  out->height = views->height;
  if (views->layout == GST_MOTION_VIEWS_SIDE_BY_SIDE)
    out->data = luma->data + (gsize) v * views->width * step;
  else if (views->layout == GST_MOTION_VIEWS_TOP_BOTTOM)
    out->data = luma->data + (gsize) v * views->height * luma->stride;
}

guint
gst_motion_views_pairs (const GstMotionRefWindow * w, GstMotionEstJob * job,
    guint newest_view, gboolean inter_view, MESearchPair * pairs)
{
  const gint64 t = (gint64) job->frame_no;
  const gint64 newest = 2 * t + newest_view;
  guint n = 0;

  for (guint i = 0; i < job->n_fields; i++) {
    const guint v = job->field_view[i];
    gint64 ref_instant, entry;

    if (job->inter_view[i] != inter_view || (!inter_view && v != newest_view))
      continue;
    ref_instant = inter_view ? t : t + job->ref_distance[i];
    entry = inter_view ? 2 * t : 2 * ref_instant + v;
    /* before the first instant, or past the window */
    if (ref_instant < 0 || newest - entry >= ME_MAX_WINDOW
        || (inter_view && newest_view == 0)) {
      gst_motion_est_job_clear_field (job, i);
      continue;
    }
    job->ref_pts[i] = w->pts[ref_instant % GST_MOTION_REFS_PTS_RING];
    pairs[n++] = (MESearchPair) {
    (guint) (newest - (2 * t + v)), (guint) (newest - entry),
          &job->fields[i]};
  }
  return n;
}

guint
gst_motion_views_fields (const GstMotionRefs * refs, gint fbf_view,
    gint * dist, guint8 * view, gboolean * inter_view)
{
  const guint first = fbf_view < 0 ? 0 : (guint) fbf_view;
  const guint last = fbf_view < 0 ? 1 : (guint) fbf_view;
  guint n = 0;

  for (guint v = first; v <= last; v++)
    for (guint k = 0; k < refs->n; k++) {
      dist[n] = refs->dist[k];
      view[n] = v;
      inter_view[n++] = FALSE;
    }
  for (guint v = MAX (first, 1); v <= last; v++) {
    dist[n] = 0;
    view[n] = v;
    inter_view[n++] = TRUE;
  }
  return n;
}

gboolean
gst_motion_views_check_refs (const GstMotionRefs * refs, GError ** error)
{
  for (guint k = 0; k < refs->n; k++)
    if (refs->dist[k] > 0 || refs->dist[k] < -GST_MOTION_VIEWS_MAX_PAST) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "reference %+d in a stereo stream: its views are searched against "
          "past frames up to -%d", refs->dist[k], GST_MOTION_VIEWS_MAX_PAST);
      return FALSE;
    }
  return TRUE;
}
