/* mvinterpolate — motion-compensated frame-rate conversion: the frames of
 * the output rate made between each pair of input frames from the two
 * motion fields gpumotionest attaches with references=-1,+1
 * (docs/interpolation.md). */
#ifndef GST_MV_INTERPOLATE_H
#define GST_MV_INTERPOLATE_H

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GstMvInterpolateBackend:
 * @GST_MV_INTERPOLATE_BACKEND_AUTO: CUDA when a device works, else C
 * @GST_MV_INTERPOLATE_BACKEND_CPU: the C reference
 * @GST_MV_INTERPOLATE_BACKEND_CUDA: CUDA, an error without a device
 */
typedef enum {
  GST_MV_INTERPOLATE_BACKEND_AUTO,
  GST_MV_INTERPOLATE_BACKEND_CPU,
  GST_MV_INTERPOLATE_BACKEND_CUDA,
} GstMvInterpolateBackend;

/**
 * GstMvInterpolateCutMode:
 * @GST_MV_INTERPOLATE_CUT_REPEAT: the nearer input frame
 * @GST_MV_INTERPOLATE_CUT_BLEND: a cross-fade of the two input frames
 */
typedef enum {
  GST_MV_INTERPOLATE_CUT_REPEAT,
  GST_MV_INTERPOLATE_CUT_BLEND,
} GstMvInterpolateCutMode;

/**
 * GstMvInterpolatePairing:
 * @GST_MV_INTERPOLATE_PAIRING_BILATERAL: one trajectory a block, chosen
 *   among the fields' vectors by matching the two frames along it
 * @GST_MV_INTERPOLATE_PAIRING_FIELDS: each side its own field's vector
 */
typedef enum {
  GST_MV_INTERPOLATE_PAIRING_BILATERAL,
  GST_MV_INTERPOLATE_PAIRING_FIELDS,
} GstMvInterpolatePairing;

#define GST_TYPE_MV_INTERPOLATE (gst_mv_interpolate_get_type ())
G_DECLARE_FINAL_TYPE (GstMvInterpolate, gst_mv_interpolate, GST,
    MV_INTERPOLATE, GstElement);

GST_ELEMENT_REGISTER_DECLARE (mvinterpolate);

G_END_DECLS

#endif /* GST_MV_INTERPOLATE_H */
