/* mvdenoise — motion-compensated temporal denoising (gstmvdenoise.c). */
#ifndef GST_MV_DENOISE_H
#define GST_MV_DENOISE_H

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_MV_DENOISE (gst_mv_denoise_get_type ())
G_DECLARE_FINAL_TYPE (GstMvDenoise, gst_mv_denoise, GST, MV_DENOISE,
    GstElement);

/**
 * GstMvDenoiseBackend:
 * @GST_MV_DENOISE_BACKEND_AUTO: CUDA when a device works, else the CPU
 * @GST_MV_DENOISE_BACKEND_CPU: the fast CPU implementation
 * @GST_MV_DENOISE_BACKEND_CUDA: CUDA (an error without a device)
 */
typedef enum {
  GST_MV_DENOISE_BACKEND_AUTO,
  GST_MV_DENOISE_BACKEND_CPU,
  GST_MV_DENOISE_BACKEND_CUDA,
} GstMvDenoiseBackend;

GST_ELEMENT_REGISTER_DECLARE (mvdenoise);

G_END_DECLS

#endif /* GST_MV_DENOISE_H */
