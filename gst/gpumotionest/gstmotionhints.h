/* gpumotionest — hints for an encoder and an application, from each
 * frame's motion summary: a force-key-unit event ahead of a scene cut,
 * region-of-interest metas on the regions that move, and "motion" element
 * messages.  All off by default (docs/encoder-hints.md).
 *
 * The element installs the properties here (gst_motion_hints_install),
 * keeps a GstMotionHintsSettings under its object lock and calls
 * gst_motion_hints_frame() as each frame is collected, with a copy of the
 * settings taken under the lock. */
#ifndef GST_MOTION_HINTS_H
#define GST_MOTION_HINTS_H

#include <gst/gst.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "gstmotionevents.h"

G_BEGIN_DECLS

/* The properties, numbered from the element's first id for them. */
enum
{
  GST_MOTION_HINTS_PROP_KEYFRAME_ON_CUT,
  GST_MOTION_HINTS_PROP_CUT_THRESHOLD,
  GST_MOTION_HINTS_PROP_ROI,
  GST_MOTION_HINTS_PROP_ROI_MAX_REGIONS,
  GST_MOTION_HINTS_PROP_ROI_THRESHOLD,
  GST_MOTION_HINTS_PROP_ROI_DELTA_QP,
  GST_MOTION_HINTS_PROP_MOTION_EVENTS,
  GST_MOTION_HINTS_PROP_MOTION_EVENT_INTERVAL,
  GST_MOTION_HINTS_N_PROPS
};

typedef struct {
  gboolean keyframe_on_cut;
  gdouble cut_threshold;        /* scene change score, 0 .. 100 */
  gboolean roi;
  guint roi_max_regions;
  guint roi_threshold;          /* local speed, quarter pixels per frame */
  gint roi_delta_qp;
  gboolean motion_events;
  GstClockTime motion_event_interval;
} GstMotionHintsSettings;

/* Streaming state. */
typedef struct {
  guint key_units;              /* forced since the element started */
  guint64 frames;               /* seen since the last reset */
  GstClockTime last_ts;         /* of the last frame, for the EOS message */
  GstMotionEvents events;
} GstMotionHints;

void gst_motion_hints_settings_init (GstMotionHintsSettings * settings);

/* Whether any hint is on: they read the frame's summary, which is then
 * computed whatever the element's `summary` property says. */
gboolean gst_motion_hints_enabled (const GstMotionHintsSettings * settings);

void gst_motion_hints_install (GObjectClass * klass, guint first_prop_id,
    GParamFlags flags);

gboolean gst_motion_hints_set_property (GstMotionHintsSettings * settings,
    guint id, const GValue * value);

gboolean gst_motion_hints_get_property (const GstMotionHintsSettings *
    settings, guint id, GValue * value);

void gst_motion_hints_reset (GstMotionHints * hints);

void gst_motion_hints_frame (GstMotionHints * hints,
    const GstMotionHintsSettings * settings, GstElement * element,
    const GstSegment * segment, GstBuffer * buffer,
    const GstMotionVectorMeta * meta, GQueue * ready);

void gst_motion_hints_eos (GstMotionHints * hints,
    const GstMotionHintsSettings * settings, GstElement * element,
    const GstSegment * segment);

G_END_DECLS

#endif /* GST_MOTION_HINTS_H */
