/* gpumotionest — checks that a video buffer's layout fits its memory. */
#include "gstframecheck.h"
#include "me_backend.h"

gboolean
gst_motion_est_check_video_meta (GstBuffer * buffer, const GstVideoInfo * info,
    GError ** error)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);

  if (!meta)
    return TRUE;
  if (meta->format != GST_VIDEO_INFO_FORMAT (info)
      || meta->n_planes != GST_VIDEO_INFO_N_PLANES (info)
      || meta->width < (guint) GST_VIDEO_INFO_WIDTH (info)
      || meta->height < (guint) GST_VIDEO_INFO_HEIGHT (info)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "the buffer's video meta (%s %ux%u, %u planes) does not match the "
        "caps (%s %dx%d, %u planes)", gst_video_format_to_string (meta->format),
        meta->width, meta->height, meta->n_planes,
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_N_PLANES (info));
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_motion_est_check_planes (const GstVideoFrame * frame, GError ** error)
{
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    /* Without a video meta all planes live in the one mapping of the whole
     * buffer; with one, each plane has its own. */
    const GstMapInfo *map = frame->meta ? &frame->map[p] : &frame->map[0];
    const guint8 *data = frame->data[p];
    gint64 stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gint64 rows, row_bytes, start, first, last;

    gst_video_format_info_component (frame->info.finfo, p, comp);
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (frame, comp[0]);
    row_bytes = (gint64) GST_VIDEO_FRAME_COMP_WIDTH (frame, comp[0])
        * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, comp[0]);
    if (rows < 1 || row_bytes < 1)
      continue;
    /* Rows are 8192 at most and strides are 32-bit: no overflow in 64. */
    start = data - map->data;
    first = start + MIN (0, (rows - 1) * stride);
    last = start + MAX (0, (rows - 1) * stride) + row_bytes;
    if (data < map->data || first < 0 || last > (gint64) map->size) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "plane %u (%" G_GINT64_FORMAT " rows of %" G_GINT64_FORMAT
          " bytes, stride %" G_GINT64_FORMAT ", offset %" G_GSIZE_FORMAT
          ") does not fit in the %" G_GSIZE_FORMAT " bytes of memory it "
          "starts in", p, rows, row_bytes, stride,
          GST_VIDEO_FRAME_PLANE_OFFSET (frame, p), map->size);
      return FALSE;
    }
  }
  return TRUE;
}
