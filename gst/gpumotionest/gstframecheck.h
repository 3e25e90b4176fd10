/* gpumotionest — checks that a video buffer's layout fits its memory.
 *
 * A GstVideoMeta is data from upstream: its strides and offsets may point
 * anywhere.  These checks run before any pixel is read, so that a bad
 * layout is refused with an error naming what is wrong instead of being
 * read out of bounds. */
#ifndef GST_FRAME_CHECK_H
#define GST_FRAME_CHECK_H

#include <gst/video/video.h>

G_BEGIN_DECLS

/* A GstVideoMeta on `buffer`, if any, must agree with the caps: same format
 * and plane count, at least the caps' size.  (gst_video_frame_map() meets a
 * disagreement with a critical.) */
gboolean gst_motion_est_check_video_meta (GstBuffer * buffer,
    const GstVideoInfo * info, GError ** error);

/* Every row of every plane of a mapped frame lies inside the memory mapped
 * for that plane. */
gboolean gst_motion_est_check_planes (const GstVideoFrame * frame,
    GError ** error);

G_END_DECLS

#endif /* GST_FRAME_CHECK_H */
