/* gpumotionest — the motion estimation element. */
#ifndef GST_GPU_MOTION_EST_H
#define GST_GPU_MOTION_EST_H

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_GPU_MOTION_EST (gst_gpu_motion_est_get_type ())
G_DECLARE_FINAL_TYPE (GstGpuMotionEst, gst_gpu_motion_est, GST, GPU_MOTION_EST,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (gpumotionest);

G_END_DECLS

#endif /* GST_GPU_MOTION_EST_H */
