/* gpumotionest — the "motion" messages' state machine (gstmotionevents.h).
 *
 * Per frame, with ts its timestamp:
 *   - not moving: motion begins at the GST_MOTION_EVENTS_BEGIN_FRAMES-th
 *     frame in a row whose moving share is at or above the begin share
 *     ("begin", its motion_begin the first of those frames);
 *   - moving, the frame not still: "update" with the frame's regions;
 *   - moving, the frame still and no frame other than still for the
 *     interval: "finished", its motion_finished the last frame that was
 *     not still.
 * A message waits until the interval has passed since the one before; an
 * update that must wait is dropped, a begin is posted by the first frame
 * allowed (motion_begin still the run's first frame).  A timestamp earlier
 * than the last message's (a seek, a new segment) starts the clock over. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmotionevents.h"

void
gst_motion_events_reset (GstMotionEvents * ev)
{
  ev->moving = FALSE;
  ev->above = 0;
  ev->first_above = GST_CLOCK_TIME_NONE;
  ev->last_motion = GST_CLOCK_TIME_NONE;
  ev->last_post = GST_CLOCK_TIME_NONE;
}

static gboolean
may_post (const GstMotionEvents * ev, GstClockTime interval, GstClockTime ts)
{
  return !GST_CLOCK_TIME_IS_VALID (ev->last_post)
      || ts >= ev->last_post + interval;
}

/* The regions as an array of "region" structures: the rectangle in
 * pixels, the share of its blocks that move and their mean speed in
 * pixels per frame. */
static void
set_regions (GstStructure * s, const GstMotionRegion * regions, guint n)
{
  GValue array = G_VALUE_INIT;

  gst_value_array_init (&array, n);
  for (guint i = 0; i < n; i++) {
    const GstMotionRegion *r = &regions[i];
    GValue v = G_VALUE_INIT;

    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new ("region",
            "x", G_TYPE_INT, (gint) r->x, "y", G_TYPE_INT, (gint) r->y,
            "w", G_TYPE_INT, (gint) r->w, "h", G_TYPE_INT, (gint) r->h,
            "moving-share", G_TYPE_DOUBLE, r->blocks ?
            (gdouble) r->moving / r->blocks : 0.0,
            "mean-speed", G_TYPE_DOUBLE, r->moving ?
            r->speed_sum / 4.0 / r->moving : 0.0, NULL));
    gst_value_array_append_and_take_value (&array, &v);
  }
  gst_structure_take_value (s, "regions", &array);
}

static GstStructure *
post (GstMotionEvents * ev, GstClockTime ts, const gchar * what,
    gdouble share, const GstMotionRegion * regions, guint n)
{
  GstStructure *s = gst_structure_new (GST_MOTION_EVENTS_MESSAGE,
      "event", G_TYPE_STRING, what, "moving-share", G_TYPE_DOUBLE, share,
      NULL);

  set_regions (s, regions, n);
  ev->last_post = ts;
  return s;
}

static GstStructure *
finish (GstMotionEvents * ev, GstClockTime ts, gdouble share)
{
  GstStructure *s = post (ev, ts, "finished", share, NULL, 0);

  gst_structure_set (s, "motion_finished", G_TYPE_UINT64, ev->last_motion,
      NULL);
  ev->moving = FALSE;
  ev->above = 0;
  ev->last_motion = GST_CLOCK_TIME_NONE;
  return s;
}

/* The message the frame at ts posts, or NULL.  ts must be valid. */
GstStructure *
gst_motion_events_frame (GstMotionEvents * ev, GstClockTime interval,
    GstClockTime ts, gdouble moving_share, const GstMotionRegion * regions,
    guint n_regions)
{
  const gboolean still = moving_share < GST_MOTION_EVENTS_STILL_SHARE;
  GstStructure *s;

  g_return_val_if_fail (GST_CLOCK_TIME_IS_VALID (ts), NULL);

  if ((GST_CLOCK_TIME_IS_VALID (ev->last_post) && ts < ev->last_post)
      || (GST_CLOCK_TIME_IS_VALID (ev->last_motion) && ts < ev->last_motion)) {
    ev->last_post = GST_CLOCK_TIME_NONE;
    if (ev->moving)
      ev->last_motion = ts;
  }

  if (moving_share >= GST_MOTION_EVENTS_BEGIN_SHARE) {
    if (ev->above++ == 0)
      ev->first_above = ts;
  } else {
    ev->above = 0;
  }

  if (!ev->moving) {
    if (ev->above < GST_MOTION_EVENTS_BEGIN_FRAMES
        || !may_post (ev, interval, ts))
      return NULL;
    ev->moving = TRUE;
    ev->last_motion = ts;
    s = post (ev, ts, "begin", moving_share, regions, n_regions);
    gst_structure_set (s, "motion_begin", G_TYPE_UINT64, ev->first_above,
        NULL);
    return s;
  }

  if (!still) {
    ev->last_motion = ts;
    if (!may_post (ev, interval, ts))
      return NULL;
    return post (ev, ts, "update", moving_share, regions, n_regions);
  }

  if (ts < ev->last_motion + interval)
    return NULL;
  return finish (ev, ts, moving_share);
}

/* At the end of the stream: "finished" when motion is going on (so that
 * every "begin" has its "finished"), else NULL.  Either way the state is
 * that of a new stream. */
GstStructure *
gst_motion_events_eos (GstMotionEvents * ev, GstClockTime ts)
{
  GstStructure *s = NULL;

  if (ev->moving)
    s = finish (ev, GST_CLOCK_TIME_IS_VALID (ts) ? ts : ev->last_motion, 0.0);
  gst_motion_events_reset (ev);
  return s;
}
