/* gpumotionest examples — synthetic clip; see synthclip.h. */
#include "synthclip.h"

/* A 32-bit integer hash (multiply-xorshift), uniform enough for texture. */
static guint32
hash2 (gint x, gint y)
{
  guint32 h = (guint32) x * 0x8da6b343u ^ (guint32) y * 0xd8163841u;

  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  h ^= h >> 15;
  return h;
}

guint8
synth_texture (gint x, gint y)
{
  /* Lattice corners of the 8x8 cell holding (x, y); arithmetic shift
   * floors negative coordinates too. */
  gint cx = x >> 3, cy = y >> 3, fx = x & 7, fy = y & 7;
  guint a = hash2 (cx, cy) & 0xff, b = hash2 (cx + 1, cy) & 0xff;
  guint c = hash2 (cx, cy + 1) & 0xff, d = hash2 (cx + 1, cy + 1) & 0xff;
  /* bilinear weights in 1/64 */
  guint smooth = (a * (8 - fx) * (8 - fy) + b * fx * (8 - fy)
      + c * (8 - fx) * fy + d * fx * fy) / 64;
  guint grain = hash2 (x + 7919, y - 104729) & 0x3f;

  /* 16 + 0.75 * smooth + grain stays within 16..250 */
  return (guint8) (16 + (smooth * 3) / 4 + grain);
}

void
synth_render (GstVideoFrame * frame, gint n, gint vx, gint vy)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  guint8 *y_data = GST_VIDEO_FRAME_COMP_DATA (frame, 0);
  gint y_stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, 0);
  gint y_pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0);
  gint width = GST_VIDEO_FRAME_WIDTH (frame);
  gint height = GST_VIDEO_FRAME_HEIGHT (frame);
  gint x, y;
  guint k;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      y_data[y * y_stride + x * y_pstride] =
          synth_texture (x - n * vx, y - n * vy);

  for (k = 1; k < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); k++) {
    guint8 *data = GST_VIDEO_FRAME_COMP_DATA (frame, k);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, k);
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, k);
    gint cw = GST_VIDEO_FRAME_COMP_WIDTH (frame, k);
    gint ch = GST_VIDEO_FRAME_COMP_HEIGHT (frame, k);

    for (y = 0; y < ch; y++)
      for (x = 0; x < cw; x++)
        data[y * stride + x * pstride] = 128;
  }
}

typedef struct
{
  GstVideoInfo info;
  gint next, n_frames, vx, vy;
} SynthSource;

static void
synth_need_data (GstAppSrc * src, guint length, gpointer user_data)
{
  SynthSource *s = user_data;
  GstBuffer *buf;
  GstVideoFrame frame;

  if (s->next >= s->n_frames) {
    gst_app_src_end_of_stream (src);
    return;
  }
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&s->info), NULL);
  if (!gst_video_frame_map (&frame, &s->info, buf, GST_MAP_WRITE)) {
    gst_buffer_unref (buf);
    gst_app_src_end_of_stream (src);
    return;
  }
  synth_render (&frame, s->next, s->vx, s->vy);
  gst_video_frame_unmap (&frame);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (s->next, GST_SECOND, 30);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, 30);
  s->next++;
  gst_app_src_push_buffer (src, buf);
}

void
synth_attach_appsrc (GstAppSrc * src, gint width, gint height, gint n_frames,
    gint vx, gint vy)
{
  GstAppSrcCallbacks callbacks = { synth_need_data, NULL, NULL };
  SynthSource *s = g_new0 (SynthSource, 1);
  GstCaps *caps;

  gst_video_info_set_format (&s->info, GST_VIDEO_FORMAT_I420, width, height);
  GST_VIDEO_INFO_FPS_N (&s->info) = 30;
  GST_VIDEO_INFO_FPS_D (&s->info) = 1;
  s->n_frames = n_frames;
  s->vx = vx;
  s->vy = vy;
  caps = gst_video_info_to_caps (&s->info);
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME,
      "max-buffers", (guint64) 2, NULL);
  gst_caps_unref (caps);
  gst_app_src_set_callbacks (src, &callbacks, s, g_free);
}

gboolean
example_pipeline_failed (GstElement * pipeline)
{
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);
  g_autoptr (GstMessage) msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_autoptr (GError) err = NULL;
  g_autofree gchar *dbg = NULL;

  if (!msg)
    return FALSE;
  gst_message_parse_error (msg, &err, &dbg);
  g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
      err->message, dbg ? dbg : "");
  return TRUE;
}
