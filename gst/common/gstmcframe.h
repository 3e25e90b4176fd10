/* gpumotionest — video frames and motion-vector metas as the mc library
 * takes them: the consumers of fields (mvinterpolate, mvdenoise) share
 * these, so that every format reads and writes alike in both.
 */
#ifndef GST_MC_FRAME_H
#define GST_MC_FRAME_H

#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "mc.h"

G_BEGIN_DECLS

/* The formats the consumers of fields take: every one gpumotionest takes
 * (8 bits a byte, or 9 .. 16 bits in 16-bit words of host order, so the
 * 16-bit formats on little-endian hosts only); in CUDA memory, what
 * gpumotionest takes there, the planar and semi-planar ones (GStreamer's
 * CUDA elements keep packed and RGB frames for their own converters). */
#define GST_MC_FORMATS_8 "I420, YV12, NV12, NV21, Y42B, Y444, GRAY8, " \
    "YUY2, UYVY, YVYU, BGRx, RGBx, xRGB, xBGR, BGRA, RGBA, ARGB, ABGR"
#define GST_MC_CUDA_FORMATS_8 "I420, YV12, NV12, NV21, Y42B, Y444, GRAY8"
#define GST_MC_FORMATS_DEEP "P010_10LE, P012_LE, P016_LE, I420_10LE, " \
    "I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE, " \
    "GRAY16_LE"
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
#define GST_MC_FORMATS "{ " GST_MC_FORMATS_8 ", " GST_MC_FORMATS_DEEP " }"
#define GST_MC_CUDA_FORMATS "{ " GST_MC_CUDA_FORMATS_8 ", " \
    GST_MC_FORMATS_DEEP " }"
#else
#define GST_MC_FORMATS "{ " GST_MC_FORMATS_8 " }"
#define GST_MC_CUDA_FORMATS "{ " GST_MC_CUDA_FORMATS_8 " }"
#endif

/* Component c of a mapped frame as an mc plane: where GstVideoInfo puts
 * its first sample, its row and pixel strides, size, depth and shift. */
void gst_mc_plane_from_component (const GstVideoFrame * f, guint c,
    MCPlane * p);

/* The picture mc makes of a frame: Y, U, V (GRAY's Y; or R, G, B as a
 * 4:4:4 picture), the chroma's sampling from component 1's. */
void gst_mc_picture_from_frame (const GstVideoFrame * f, MCPicture * p);

/* The bytes of a frame's pixels that gst_mc_picture_from_frame() leaves
 * out, as a luma-only picture of the frame's size: alpha (the fourth
 * component), or the byte of a 4-byte RGB pixel that no component covers
 * (RGBx's x).  FALSE when there is none; *is_alpha says which. */
gboolean gst_mc_extra_from_frame (const GstVideoFrame * f, MCPicture * p,
    gboolean * is_alpha);

/* Copies frame src into dst (one format and size), each plane's rows to
 * the end of their last sample or pixel, whichever lies further. */
void gst_mc_copy_frame (GstVideoFrame * dst, const GstVideoFrame * src);

/* The shape all n metas have a grid of, each of one size: 16x16 first
 * (the search's own decision grid), else the largest they share; -1 if
 * none. */
gint gst_mc_common_shape (const GstMotionVectorMeta * const *metas, guint n);

/* The meta's grid of `shape` as an mc field (cells NULL if absent). */
void gst_mc_field_from_meta (const GstMotionVectorMeta * meta, gint shape,
    MCField * f);

/* A frame whose memory does not hold what its caps (and its GstVideoMeta)
 * say: FALSE with `error` giving the sizes.  CUDA memory of `cuda_ctx`
 * (frames with CUDA caps) is looked at on the device, without a download;
 * of another context, through the meta alone. */
gboolean gst_mc_check_layout (GstBuffer * buf, const GstVideoInfo * info,
    gboolean cuda_caps, GstObject * cuda_ctx, GError ** error);

/* gst_mc_check_layout() for an element that takes frames: on FALSE it has
 * posted the error every consumer of fields posts for a short frame
 * (STREAM FORMAT, "The frame at PTS does not fit its buffer: ..."). */
gboolean gst_mc_check_frame (GstElement * element, GstBuffer * buf,
    const GstVideoInfo * info, gboolean cuda_caps, GstObject * cuda_ctx);

G_END_DECLS

#endif /* GST_MC_FRAME_H */
