/* gpumotionest — the elements' side of GStreamer's CUDA library: one
 * GstCudaContext shared with the pipeline's other CUDA elements, and frames
 * that arrive in CUDA memory.  gpumotionest and mvinterpolate use it.
 *
 * Every function here is a no-op (or says "no") when the build has no
 * gstreamer-cuda-1.0, so the element calls them unconditionally.  The
 * context is held as a GstObject so that the element needs no CUDA
 * headers.
 */
#ifndef GST_MOTION_EST_CUDA_H
#define GST_MOTION_EST_CUDA_H

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The caps feature, also when the build has no CUDA library (pad
 * templates then leave it out). */
#define GST_MOTION_EST_CAPS_FEATURE_CUDA "memory:CUDAMemory"

/* Whether this build can take CUDA memory and share a CUDA context. */
gboolean gst_motion_est_cuda_available (void);

/* GstElement::set_context and the CONTEXT query, as GStreamer's CUDA
 * elements answer them.  Both return TRUE when they handled the
 * context. */
void gst_motion_est_cuda_set_context (GstElement * element,
    GstContext * context, gint device_id, GstObject ** cuda_context);
gboolean gst_motion_est_cuda_query_context (GstElement * element,
    GstQuery * query, GstObject * cuda_context);

/* Finds or makes the context to search in: the one of `buffer` when it is
 * in CUDA memory on the device asked for (-1: any), else one shared through
 * GstContext with the pipeline, else a new one for `device_id` (-1: the
 * first GPU).  FALSE when there is none (no GPU, no driver, no library). */
gboolean gst_motion_est_cuda_ensure_context (GstElement * element,
    gint device_id, GstBuffer * buffer, GstObject ** cuda_context);

/* Whether `buffer` is in CUDA memory of another context than the
 * session's `cuda_context` (non-NULL: a CUDA backend is open) on the device
 * asked for (-1: any): the session should move to the frames' context. */
gboolean gst_motion_est_cuda_should_follow (GstBuffer * buffer,
    GstObject * cuda_context, gint device_id);

/* Makes the context current on the calling thread, and undoes that. */
gboolean gst_motion_est_cuda_push (gpointer cuda_context);
void gst_motion_est_cuda_pop (gpointer cuda_context);

/* The map flag that makes gst_video_frame_map() give device pointers for a
 * buffer whose memory is CUDA memory of `cuda_context`; 0 for any other
 * buffer, which is then read from host memory (CUDA memory of another
 * context is downloaded by its own map). */
GstMapFlags gst_motion_est_cuda_map_flags (GstBuffer * buffer,
    GstObject * cuda_context);

/* Whether the caps carry memory:CUDAMemory. */
gboolean gst_motion_est_cuda_caps_are_cuda (GstCaps * caps);

/* A pool of CUDA memory in `cuda_context` for frames of `caps`, configured;
 * NULL on failure. */
GstBufferPool *gst_motion_est_cuda_pool_new (GstObject * cuda_context,
    GstCaps * caps, guint size);

G_END_DECLS

#endif /* GST_MOTION_EST_CUDA_H */
