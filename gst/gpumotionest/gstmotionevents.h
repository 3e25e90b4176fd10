/* gpumotionest — "motion" element messages: motion began, goes on, ended.
 *
 * A small state machine fed once per frame with the frame's share of
 * moving blocks and its regions; it says which message, if any, the frame
 * posts.  Hysteresis (two shares, two frames to begin, a quiet interval to
 * end) keeps noise from flapping, and no two messages are closer than the
 * interval in stream time.  docs/encoder-hints.md, "Motion messages". */
#ifndef GST_MOTION_EVENTS_H
#define GST_MOTION_EVENTS_H

#include <gst/gst.h>

#include "gstmotionregions.h"

G_BEGIN_DECLS

/* Motion begins when this share of the blocks or more moves on its own in
 * GST_MOTION_EVENTS_BEGIN_FRAMES frames in a row, and counts as gone in a
 * frame below GST_MOTION_EVENTS_STILL_SHARE. */
#define GST_MOTION_EVENTS_BEGIN_SHARE 0.005
#define GST_MOTION_EVENTS_STILL_SHARE 0.0025
#define GST_MOTION_EVENTS_BEGIN_FRAMES 2

/* The name of the messages' structure. */
#define GST_MOTION_EVENTS_MESSAGE "motion"

typedef struct {
  gboolean moving;              /* between "begin" and "finished" */
  guint above;                  /* frames in a row at the begin share or more */
  GstClockTime first_above;     /* the first of them */
  GstClockTime last_motion;     /* the last frame not still, while moving */
  GstClockTime last_post;       /* the last message, NONE before the first */
} GstMotionEvents;

void gst_motion_events_reset (GstMotionEvents * ev);

GstStructure *gst_motion_events_frame (GstMotionEvents * ev,
    GstClockTime interval, GstClockTime ts, gdouble moving_share,
    const GstMotionRegion * regions, guint n_regions);

GstStructure *gst_motion_events_eos (GstMotionEvents * ev, GstClockTime ts);

G_END_DECLS

#endif /* GST_MOTION_EVENTS_H */
