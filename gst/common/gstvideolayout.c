/* gpumotionest — checks that a video buffer's layout fits its memory. */
#include "gstvideolayout.h"

gboolean
gst_video_layout_check_meta (GstBuffer * buffer, const GstVideoInfo * info,
    GError ** error)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);

  if (!meta)
    return TRUE;
  /* The mapped frame takes the meta's size into its GstVideoInfo, whose
   * width and height are gint: beyond G_MAXINT they turn negative, and a
   * plane of negative width would escape the checks below. */
  if (meta->format != GST_VIDEO_INFO_FORMAT (info)
      || meta->n_planes != GST_VIDEO_INFO_N_PLANES (info)
      || meta->width < (guint) GST_VIDEO_INFO_WIDTH (info)
      || meta->height < (guint) GST_VIDEO_INFO_HEIGHT (info)
      || meta->width > G_MAXINT || meta->height > G_MAXINT) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
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

/* Rows of `plane` and the bytes from the start of a row to the end of the
 * last sample its components use. */
static void
plane_extent (const GstVideoFrame * frame, guint plane, gint64 * rows,
    gint64 * row_bytes)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;

  *rows = 0;
  *row_bytes = 0;
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    gint64 w = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
    gint64 h = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
    gint64 end;

    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != plane || w == 0 || h == 0)
      continue;
    end = GST_VIDEO_FRAME_COMP_POFFSET (frame, c)
        + (w - 1) * ABS (GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c))
        + (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) + 7) / 8;
    /* Samples of 16-bit words fill their pixel's stride: GStreamer 1.22
     * gives V of P010, P012 and P016 a byte offset of 1 where the word
     * starts at 2, so the end is taken from the stride, not the offset. */
    if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) > 8)
      end = MAX (end, w * ABS (GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c)));
    *rows = MAX (*rows, h);
    *row_bytes = MAX (*row_bytes, end);
  }
}

gboolean
gst_video_layout_check_planes (const GstVideoFrame * frame, GError ** error)
{
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    /* Without a video meta all planes live in the one mapping of the whole
     * buffer; with one, each plane has its own. */
    const GstMapInfo *map = frame->meta ? &frame->map[p] : &frame->map[0];
    const guint8 *data = frame->data[p];
    gint64 stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    gint64 rows, row_bytes, start, first, last;

    plane_extent (frame, p, &rows, &row_bytes);
    if (rows < 1 || row_bytes < 1)
      continue;
    /* Rows (the meta's height, at most G_MAXINT) and strides are 32-bit:
     * their product fits 64 bits. */
    if (!map->data || data < map->data || data > map->data + map->size)
      first = -1;
    else {
      start = data - map->data;
      first = start + MIN (0, (rows - 1) * stride);
      last = start + MAX (0, (rows - 1) * stride) + row_bytes;
      if (last > (gint64) map->size)
        first = -1;
    }
    if (first < 0) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
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
