/* mvtools — mvoverlay: draws each buffer's GstMotionVectorMeta. */
#ifndef GST_MV_OVERLAY_H
#define GST_MV_OVERLAY_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

G_BEGIN_DECLS

/**
 * GstMvOverlayMode:
 * @GST_MV_OVERLAY_MODE_VECTORS: an arrow per block along its motion
 * @GST_MV_OVERLAY_MODE_MVD: an arrow per block along its MV difference
 * @GST_MV_OVERLAY_MODE_COST: a heat colour per block by matching cost
 * @GST_MV_OVERLAY_MODE_FLOW: each block filled with its motion colour
 */
typedef enum {
  GST_MV_OVERLAY_MODE_VECTORS,
  GST_MV_OVERLAY_MODE_MVD,
  GST_MV_OVERLAY_MODE_COST,
  GST_MV_OVERLAY_MODE_FLOW,
} GstMvOverlayMode;

/**
 * GstMvOverlayColorMode:
 * @GST_MV_OVERLAY_COLOR_DIRECTION: hue by direction, brightness by magnitude
 * @GST_MV_OVERLAY_COLOR_SOLID: one colour for every arrow
 * @GST_MV_OVERLAY_COLOR_REFERENCE: each block filled, and its arrow
 *   coloured, by the reference it chose (the meta's
 *   #GstMotionVectorMeta.chosen_refs), its arrow that reference's vector;
 *   as %GST_MV_OVERLAY_COLOR_DIRECTION without a reference decision
 */
typedef enum {
  GST_MV_OVERLAY_COLOR_DIRECTION,
  GST_MV_OVERLAY_COLOR_SOLID,
  GST_MV_OVERLAY_COLOR_REFERENCE,
} GstMvOverlayColorMode;

/**
 * GstMvOverlayDirection:
 * @GST_MV_OVERLAY_DIRECTION_FORWARD: arrows along the motion of the
 *   content, from where it was in the reference to where it is now
 *   (centre - mv / 4)
 * @GST_MV_OVERLAY_DIRECTION_BACKWARD: arrows along the stored vector, from
 *   the block to its match in the reference (centre + mv / 4)
 */
typedef enum {
  GST_MV_OVERLAY_DIRECTION_FORWARD,
  GST_MV_OVERLAY_DIRECTION_BACKWARD,
} GstMvOverlayDirection;

/**
 * GST_MV_OVERLAY_PARTITION_CHOSEN:
 *
 * The value "chosen" of mvoverlay's partition property, next to the seven
 * #GstMotionVectorPartition shapes: draw each macroblock's chosen partition
 * (the meta's partition decision, gst_motion_vector_meta_get_modes()) with
 * its blocks' outlines, and with a reference decision
 * (gst_motion_vector_meta_get_chosen_refs()) each partition's vector from
 * the field of its chosen reference.  Not a shape, hence outside the
 * shapes' values.
 */
#define GST_MV_OVERLAY_PARTITION_CHOSEN (-1)

#define GST_TYPE_MV_OVERLAY (gst_mv_overlay_get_type ())
G_DECLARE_FINAL_TYPE (GstMvOverlay, gst_mv_overlay, GST, MV_OVERLAY,
    GstVideoFilter);

GST_ELEMENT_REGISTER_DECLARE (mvoverlay);

G_END_DECLS

#endif /* GST_MV_OVERLAY_H */
