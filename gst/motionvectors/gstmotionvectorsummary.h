/* gpumotionest — GstMotionVectorSummary: one frame's motion in a few numbers.
 *
 * A reduction of a motion field to what most users ask of it: how the
 * camera moves (a similarity model about the frame centre), how much of
 * the picture moves on its own, and whether the scene cut.  Plain scalars,
 * computed from the cells alone by deterministic integer arithmetic, so
 * every backend and every machine gives the same summary for the same
 * cells.  docs/summary.md has the definitions.
 *
 * Included by gstmotionvectormeta.h; it needs the meta's type only.
 */
#ifndef GST_MOTION_VECTOR_SUMMARY_H
#define GST_MOTION_VECTOR_SUMMARY_H

#include <gst/gst.h>
#include <gst/motionvectors/gstmotionvectortypes.h>
#include <gst/motionvectors/motionvectors-prelude.h>

G_BEGIN_DECLS

typedef struct _GstMotionVectorMeta GstMotionVectorMeta;

/**
 * GST_MOTION_VECTOR_SUMMARY_VERSION:
 *
 * The #GstMotionVectorSummary.version this library writes.  A later
 * version only adds meaning to the reserved fields or flags; the fields of
 * version 1 keep their place and definition.
 */
#define GST_MOTION_VECTOR_SUMMARY_VERSION 1

/**
 * GST_MOTION_VECTOR_SUMMARY_SCENE_CHANGE_THRESHOLD:
 *
 * The default threshold of #GstMotionVectorSummary.scene_change: a score
 * at or above it means a cut (and sets
 * %GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE).  The score runs from 0 to
 * 100; docs/summary.md gives the formula and the measurements the value
 * comes from.
 */
#define GST_MOTION_VECTOR_SUMMARY_SCENE_CHANGE_THRESHOLD 40.0

/**
 * GST_MOTION_VECTOR_SUMMARY_MOVING_THRESHOLD:
 *
 * A block moves on its own (local motion) when its vector departs from
 * the global model's vector at the block centre by more than this many
 * quarter pixels in x or in y (at analysis size): 1.5 pixels, so an
 * integer search's rounding of a model vector never counts.
 */
#define GST_MOTION_VECTOR_SUMMARY_MOVING_THRESHOLD 6

/**
 * GstMotionVectorSummaryFlags:
 * @GST_MOTION_VECTOR_SUMMARY_FLAG_NONE: no flag
 * @GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE: the field had no reference
 *   (%GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE): every number is zero and
 *   means nothing
 * @GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS: no usable previous summary
 *   (none given, or it had no reference or was of another grid): the scene
 *   change score is 0 and not a measurement
 * @GST_MOTION_VECTOR_SUMMARY_FLAG_TRANSLATION_ONLY: too few blocks, or too
 *   little spread of them, to fit zoom and rotation: both are 0 and the
 *   model is a translation
 * @GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE: the scene change score is
 *   at or above %GST_MOTION_VECTOR_SUMMARY_SCENE_CHANGE_THRESHOLD
 *
 * What a #GstMotionVectorSummary's numbers can be taken for.
 */
typedef enum {
  GST_MOTION_VECTOR_SUMMARY_FLAG_NONE = 0,
  GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE = 1 << 0,
  GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS = 1 << 1,
  GST_MOTION_VECTOR_SUMMARY_FLAG_TRANSLATION_ONLY = 1 << 2,
  GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE = 1 << 3,
} GstMotionVectorSummaryFlags;

/**
 * GstMotionVectorSummary:
 * @version: %GST_MOTION_VECTOR_SUMMARY_VERSION of the library that wrote it
 * @flags: #GstMotionVectorSummaryFlags
 * @partition: the grid it was computed from: the coarsest present
 *   (16x16 when present)
 * @blocks: blocks of that grid it counts: those whose centre lies in the
 *   analysis frame (all of them in a frame smaller than one block)
 * @global_x: global motion: the model's vector at the frame centre, x, in
 *   quarter pixels at the meta's #GstMotionVectorMeta.width, with the
 *   cells' sign (from the current frame to the reference: a camera
 *   panning right gives a positive value)
 * @global_y: the same, y (a camera tilting down gives a positive value)
 * @zoom: the current picture's scale relative to the reference, minus 1:
 *   positive when the picture grows (the camera zooms in or moves forward)
 * @rotation: the angle in radians the picture turned by from the
 *   reference to the current frame, positive clockwise as seen on screen
 *   (image axes, y down)
 * @global_share: share of the counted blocks, 0 to 1, whose vector agrees
 *   with the model (within %GST_MOTION_VECTOR_SUMMARY_MOVING_THRESHOLD)
 * @moving_share: share of the counted blocks, 0 to 1, with local motion:
 *   matched blocks whose vector departs from the model by more than
 *   %GST_MOTION_VECTOR_SUMMARY_MOVING_THRESHOLD
 * @unmatched_share: share of the counted blocks, 0 to 1, whose cost is so
 *   far above the frame's median that their vector means nothing (new or
 *   uncovered content, a cut); left out of the fit and of @moving_share
 * @scene_change: scene change score, 0 to 100: how far the median matching
 *   cost per pixel rose from the previous frame's (docs/summary.md);
 *   %GST_MOTION_VECTOR_SUMMARY_SCENE_CHANGE_THRESHOLD is the default cut
 * @mean_cost: mean cost per pixel of the counted blocks (the cells' cost,
 *   SAD or SATD, at analysis size, divided by the block's pixels)
 * @median_cost: median of the counted blocks' cost per pixel: the level
 *   the scene change score compares across frames
 *
 * A frame's motion field reduced to a few numbers (docs/summary.md).  Only
 * scalars, so bindings read it as a plain record.  The global model is a
 * similarity about the frame centre (c): a pixel p of the current frame
 * lies in the reference at
 * c + (global_x, global_y) / 4 + R(-rotation) (p - c) / (1 + zoom).
 */
typedef struct {
  guint version;
  GstMotionVectorSummaryFlags flags;
  GstMotionVectorPartition partition;
  guint blocks;
  gdouble global_x;
  gdouble global_y;
  gdouble zoom;
  gdouble rotation;
  gdouble global_share;
  gdouble moving_share;
  gdouble unmatched_share;
  gdouble scene_change;
  gdouble mean_cost;
  gdouble median_cost;
  /*< private >*/
  guint32 _reserved[8];
} GstMotionVectorSummary;

GST_MOTION_VECTORS_API
gboolean gst_motion_vector_summary_compute (const GstMotionVectorMeta * meta,
    const GstMotionVectorSummary * previous, GstMotionVectorSummary * out);

GST_MOTION_VECTORS_API
gboolean gst_motion_vector_summary_attach (GstMotionVectorMeta * meta,
    GstMotionVectorSummary * previous);

GST_MOTION_VECTORS_API
gboolean gst_motion_vector_summary_moving_blocks (
    const GstMotionVectorMeta * meta, const GstMotionVectorSummary * summary,
    guint8 * mask, guint * mb_cols, guint * mb_rows);

GST_MOTION_VECTORS_API
GBytes *gst_motion_vector_summary_get_moving_blocks (
    const GstMotionVectorMeta * meta, const GstMotionVectorSummary * summary,
    guint * mb_cols, guint * mb_rows);

GST_MOTION_VECTORS_API
gboolean gst_motion_vector_summary_is_scene_change (
    const GstMotionVectorSummary * summary, gdouble threshold);

G_END_DECLS

#endif /* GST_MOTION_VECTOR_SUMMARY_H */
