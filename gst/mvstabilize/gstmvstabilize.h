/* mvstabilize — video stabilisation from the global motion
 * (gstmvstabilize.c). */
#ifndef GST_MV_STABILIZE_H
#define GST_MV_STABILIZE_H

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_MV_STABILIZE (gst_mv_stabilize_get_type ())
G_DECLARE_FINAL_TYPE (GstMvStabilize, gst_mv_stabilize, GST, MV_STABILIZE,
    GstElement);

/**
 * GstMvStabilizeBackend:
 * @GST_MV_STABILIZE_BACKEND_AUTO: CUDA when usable, else the CPU
 * @GST_MV_STABILIZE_BACKEND_CPU: the CPU
 * @GST_MV_STABILIZE_BACKEND_CUDA: CUDA, an error without it
 * Which implementation warps the frames; every one makes the same samples.
 */
typedef enum {
  GST_MV_STABILIZE_BACKEND_AUTO,
  GST_MV_STABILIZE_BACKEND_CPU,
  GST_MV_STABILIZE_BACKEND_CUDA,
} GstMvStabilizeBackend;

/* The name of the custom meta each output frame carries
 * (docs/stabilization.md, "The correction as metadata"). */
#define GST_MV_STABILIZE_META_NAME "GstMvStabilizeMeta"

GST_ELEMENT_REGISTER_DECLARE (mvstabilize);

G_END_DECLS

#endif /* GST_MV_STABILIZE_H */
