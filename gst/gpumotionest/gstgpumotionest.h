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

/**
 * GstGpuMotionEstBackend:
 * @GST_GPU_MOTION_EST_BACKEND_AUTO: the GPU when one is usable, else the CPU
 * @GST_GPU_MOTION_EST_BACKEND_CPU: the CPU backend
 * @GST_GPU_MOTION_EST_BACKEND_CUDA: the CUDA backend; fails if unusable
 */
typedef enum {
  GST_GPU_MOTION_EST_BACKEND_AUTO,
  GST_GPU_MOTION_EST_BACKEND_CPU,
  GST_GPU_MOTION_EST_BACKEND_CUDA,
} GstGpuMotionEstBackend;

GST_ELEMENT_REGISTER_DECLARE (gpumotionest);

G_END_DECLS

#endif /* GST_GPU_MOTION_EST_H */
