/* gpumotionest — checks that a video buffer's layout fits its memory,
 * shared by the elements that read or write pixels.
 *
 * A GstVideoMeta is data from upstream: its strides and offsets may point
 * anywhere.  gst_video_frame_map() only checks that each plane's first byte
 * lies in the buffer, and meets a meta that disagrees with the caps with a
 * critical.  These checks run before any pixel is touched, so that a bad
 * layout is refused with an error naming what is wrong instead of being
 * read or written out of bounds.  Errors are GST_STREAM_ERROR_FORMAT. */
#ifndef GST_VIDEO_LAYOUT_H
#define GST_VIDEO_LAYOUT_H

#include <gst/video/video.h>

G_BEGIN_DECLS

/* A GstVideoMeta on `buffer`, if any, must agree with the caps: same format
 * and plane count, at least the caps' size and at most G_MAXINT each way
 * (what a GstVideoInfo holds).  Run before mapping. */
gboolean gst_video_layout_check_meta (GstBuffer * buffer,
    const GstVideoInfo * info, GError ** error);

/* Every row of every plane of a mapped frame lies inside the memory mapped
 * for that plane: with stride s, n rows of b bytes starting at byte o of a
 * mapping of m bytes, o + (n - 1) s + b <= m for s >= 0, and
 * o >= (n - 1) |s|, o + b <= m for s < 0. */
gboolean gst_video_layout_check_planes (const GstVideoFrame * frame,
    GError ** error);

G_END_DECLS

#endif /* GST_VIDEO_LAYOUT_H */
