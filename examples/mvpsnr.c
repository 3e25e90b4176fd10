/* mvpsnr — how well do the vectors predict the frame?
 *
 *   mvpsnr [OPTIONS] [FILE]
 *
 * For every frame that has a reference, builds the motion-compensated
 * prediction of its luma from the previous frame's luma and the vectors of
 * one partition shape (each block copies the reference block its vector
 * points to; reads outside the reference repeat its nearest edge pixel, as
 * the search itself does), and prints the PSNR of that prediction against
 * the real frame.  --zero-vectors predicts with all vectors zero instead
 * (the frame difference), --compare prints both.  A vector field that
 * describes the motion gives a clearly higher PSNR than zero vectors.
 *
 * Without FILE the program renders its own clip (synthclip.h); with FILE it
 * decodes it (or reads raw I420 with --raw --width --height).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "synthclip.h"

/* One frame's luma as a tightly packed width x height plane. */
typedef struct
{
  guint8 *data;
  gint width, height;
} Plane;

static void
copy_luma (const GstVideoFrame * frame, Plane * dst)
{
  const guint8 *src = GST_VIDEO_FRAME_COMP_DATA (frame, 0);
  gint stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, 0);
  gint y;

  for (y = 0; y < dst->height; y++)
    memcpy (dst->data + (gsize) y * dst->width, src + (gsize) y * stride,
        dst->width);
}

/* Quarter-pel -> whole pixels, halves away from zero (the search is
 * integer, so at analysis size this is an exact division). */
static gint
qpel_to_pixels (gint v)
{
  return v >= 0 ? (v + 2) / 4 : -((-v + 2) / 4);
}

/* Fills @pred with the motion-compensated prediction from @ref (same
 * size); @cells may be NULL for zero vectors.  Grid geometry is at the
 * analysis size, which the caller has checked equals the frame size. */
static void
predict (const Plane * ref, const GstMotionVectorCell * cells, guint cols,
    guint rows, GstMotionVectorPartition shape, Plane * pred)
{
  gint pw = gst_motion_vector_partition_width (shape);
  gint ph = gst_motion_vector_partition_height (shape);
  gint w = ref->width, h = ref->height;
  guint c, r;

  for (r = 0; r < rows; r++) {
    gint y0 = r * ph, y1 = MIN (y0 + ph, h);

    for (c = 0; c < cols; c++) {
      gint x0 = c * pw, x1 = MIN (x0 + pw, w);
      gint dx = cells ? qpel_to_pixels (cells[r * cols + c].mv_x) : 0;
      gint dy = cells ? qpel_to_pixels (cells[r * cols + c].mv_y) : 0;
      gint x, y;

      for (y = y0; y < y1; y++) {
        const guint8 *src = ref->data + (gsize) CLAMP (y + dy, 0, h - 1) * w;
        guint8 *dst = pred->data + (gsize) y * w;

        for (x = x0; x < x1; x++)
          dst[x] = src[CLAMP (x + dx, 0, w - 1)];
      }
    }
  }
}

/* Mean squared error of @pred against the current frame's luma, leaving
 * out a border of @margin pixels on every side (new content entering at
 * the edges cannot be predicted from the previous frame). */
static gdouble
luma_mse (const GstVideoFrame * cur, const Plane * pred, gint margin)
{
  const guint8 *data = GST_VIDEO_FRAME_COMP_DATA (cur, 0);
  gint stride = GST_VIDEO_FRAME_COMP_STRIDE (cur, 0);
  gint x0 = margin, x1 = pred->width - margin;
  gint y0 = margin, y1 = pred->height - margin;
  guint64 sum = 0;
  gint x, y;

  for (y = y0; y < y1; y++) {
    const guint8 *a = data + (gsize) y * stride;
    const guint8 *b = pred->data + (gsize) y * pred->width;
    for (x = x0; x < x1; x++) {
      gint d = (gint) a[x] - (gint) b[x];
      sum += (guint64) (d * d);
    }
  }
  return (gdouble) sum / ((gdouble) (x1 - x0) * (y1 - y0));
}

static gdouble
psnr_of_mse (gdouble mse)
{
  return mse > 0.0 ? 10.0 * log10 (255.0 * 255.0 / mse) : INFINITY;
}

int
main (int argc, char **argv)
{
  gint n_frames = 30, width = 640, height = 360, range = 16, margin = 0;
  gboolean zero_vectors = FALSE, compare = FALSE, raw = FALSE, quiet = FALSE;
  gchar *motion = NULL, *backend = NULL, *partition_name = NULL;
  gint vx = 3, vy = -2;
  GOptionEntry entries[] = {
    {"partition", 'p', 0, G_OPTION_ARG_STRING, &partition_name,
        "Partition shape whose vectors predict (default 16x16)", "WxH"},
    {"zero-vectors", 'z', 0, G_OPTION_ARG_NONE, &zero_vectors,
        "Predict with zero vectors (the previous frame as it is)", NULL},
    {"compare", 'c', 0, G_OPTION_ARG_NONE, &compare,
        "Print the PSNR of both predictions", NULL},
    {"margin", 'M', 0, G_OPTION_ARG_INT, &margin,
        "Leave out a border of this many pixels from the PSNR (default 0)",
        "PX"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
        "Print only the summary", NULL},
    {"range", 'r', 0, G_OPTION_ARG_INT, &range,
        "Search range in pixels (default 16)", "R"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "gpumotionest backend: auto, cpu, cuda (default auto)", "B"},
    {"raw", 0, 0, G_OPTION_ARG_NONE, &raw,
        "FILE is raw I420 of --width x --height at 30 fps", NULL},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &n_frames,
        "Frames of the synthetic clip (default 30)", "N"},
    {"width", 'W', 0, G_OPTION_ARG_INT, &width,
        "Width of the synthetic or raw clip (default 640)", "W"},
    {"height", 'H', 0, G_OPTION_ARG_INT, &height,
        "Height of the synthetic or raw clip (default 360)", "H"},
    {"motion", 'm', 0, G_OPTION_ARG_STRING, &motion,
        "Motion of the synthetic clip in pixels per frame (default 3,-2)",
        "DX,DY"},
    {NULL},
  };
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *source = NULL, *desc = NULL;
  GEnumClass *pclass;
  GEnumValue *pvalue;
  GstMotionVectorPartition partition;
  GstElement *pipeline, *src, *sink;
  GstVideoInfo info;
  Plane ref = { NULL }, pred = { NULL };
  gboolean have_ref = FALSE, have_info = FALSE;
  gdouble sum_mse_mc = 0.0, sum_mse_zero = 0.0;
  guint frame_no = 0, measured = 0;
  gint ret = 0;

  ctx = g_option_context_new ("[FILE] - PSNR of the motion-compensated "
      "prediction");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("%s\n", error->message);
    return 2;
  }
  if (motion && sscanf (motion, "%d,%d", &vx, &vy) != 2) {
    g_printerr ("--motion wants DX,DY\n");
    return 2;
  }
  if (raw && argc < 2) {
    g_printerr ("--raw needs a FILE\n");
    return 2;
  }
  pclass = g_type_class_ref (GST_TYPE_MOTION_VECTOR_PARTITION);
  pvalue = g_enum_get_value_by_nick (pclass,
      partition_name ? partition_name : "16x16");
  if (!pvalue) {
    g_printerr ("unknown partition shape '%s'\n", partition_name);
    return 2;
  }
  partition = pvalue->value;

  if (argc > 1 && raw)
    source = g_strdup_printf ("filesrc name=src ! rawvideoparse width=%d "
        "height=%d format=i420 framerate=30/1", width, height);
  else if (argc > 1)
    source = g_strdup ("filesrc name=src ! decodebin ! videoconvert ! "
        "video/x-raw,format=I420");
  else
    source = g_strdup ("appsrc name=src");
  desc = g_strdup_printf ("%s ! gpumotionest search-range=%d partitions=%s "
      "backend=%s ! appsink name=sink sync=false", source, range,
      pvalue->value_nick, backend ? backend : "auto");
  pipeline = gst_parse_launch (desc, &error);
  if (!pipeline) {
    g_printerr ("pipeline: %s\n", error->message);
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  if (argc > 1) {
    g_object_set (src, "location", argv[1], NULL);
  } else {
    synth_attach_appsrc (GST_APP_SRC (src), width, height, n_frames, vx, vy);
    g_print ("synthetic clip: %d frames of %dx%d moving by (%+d,%+d) px per "
        "frame\n", n_frames, width, height, vx, vy);
  }
  gst_object_unref (src);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (;;) {
    g_autoptr (GstSample) sample =
        gst_app_sink_try_pull_sample (GST_APP_SINK (sink), GST_SECOND / 10);
    GstBuffer *buf;
    GstMotionVectorMeta *meta;
    GstVideoFrame frame;
    const GstMotionVectorCell *cells;
    guint cols = 0, rows = 0;
    gdouble mse_mc = 0.0, mse_zero = 0.0;

    if (!sample) {
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        break;
      if (example_pipeline_failed (pipeline)) {
        ret = 1;
        break;
      }
      continue;
    }
    buf = gst_sample_get_buffer (sample);
    if (!have_info) {
      /* The planes are sized once, from the first caps; a later size change
       * is refused below rather than handled. */
      if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))) {
        g_printerr ("unusable caps\n");
        ret = 1;
        break;
      }
      ref.width = pred.width = GST_VIDEO_INFO_WIDTH (&info);
      ref.height = pred.height = GST_VIDEO_INFO_HEIGHT (&info);
      if (margin < 0 || 2 * margin >= MIN (ref.width, ref.height)) {
        g_printerr ("--margin %d leaves nothing of a %dx%d frame\n", margin,
            ref.width, ref.height);
        ret = 2;
        break;
      }
      ref.data = g_malloc ((gsize) ref.width * ref.height);
      pred.data = g_malloc ((gsize) pred.width * pred.height);
      have_info = TRUE;
    }
    meta = gst_buffer_get_motion_vector_meta (buf);
    if (!meta) {
      g_printerr ("frame %u has no motion-vector meta\n", frame_no);
      ret = 1;
      break;
    }
    if (meta->analysis_width != (guint) ref.width
        || meta->analysis_height != (guint) ref.height
        || meta->width != (guint) ref.width
        || meta->height != (guint) ref.height) {
      g_printerr ("frame %u: the vectors are for %ux%u (searched at %ux%u), "
          "the frame is %dx%d\n", frame_no, meta->width, meta->height,
          meta->analysis_width, meta->analysis_height, ref.width, ref.height);
      ret = 1;
      break;
    }
    if (!gst_video_frame_map (&frame, &info, buf, GST_MAP_READ)) {
      g_printerr ("frame %u: cannot map\n", frame_no);
      ret = 1;
      break;
    }

    if (!(meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE)
        && meta->ref_distance == -1 && have_ref) {
      cells = gst_motion_vector_meta_get_grid (meta, partition, &cols, &rows);
      if (!cells) {
        g_printerr ("frame %u: shape %s absent\n", frame_no,
            pvalue->value_nick);
        gst_video_frame_unmap (&frame);
        ret = 1;
        break;
      }
      if (compare || !zero_vectors) {
        predict (&ref, cells, cols, rows, partition, &pred);
        mse_mc = luma_mse (&frame, &pred, margin);
      }
      if (compare || zero_vectors) {
        predict (&ref, NULL, cols, rows, partition, &pred);
        mse_zero = luma_mse (&frame, &pred, margin);
      }
      sum_mse_mc += mse_mc;
      sum_mse_zero += mse_zero;
      measured++;
      if (!quiet) {
        if (compare)
          g_print ("frame %4u: motion-compensated %6.2f dB, zero vectors "
              "%6.2f dB\n", frame_no, psnr_of_mse (mse_mc),
              psnr_of_mse (mse_zero));
        else
          g_print ("frame %4u: %6.2f dB\n", frame_no,
              psnr_of_mse (zero_vectors ? mse_zero : mse_mc));
      }
    } else if (!quiet) {
      g_print ("frame %4u: no reference\n", frame_no);
    }
    copy_luma (&frame, &ref);
    have_ref = TRUE;
    gst_video_frame_unmap (&frame);
    frame_no++;
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (ret == 0 && measured == 0) {
    g_printerr ("no frame had a reference\n");
    ret = 1;
  }
  if (ret == 0) {
    /* PSNR of the mean MSE over the clip, so one perfect frame (infinite
     * PSNR) does not swamp the average. */
    if (compare || !zero_vectors)
      g_print ("PSNR over %u frames, %s vectors: %.2f dB\n", measured,
          pvalue->value_nick, psnr_of_mse (sum_mse_mc / measured));
    if (compare || zero_vectors)
      g_print ("PSNR over %u frames, zero vectors: %.2f dB\n", measured,
          psnr_of_mse (sum_mse_zero / measured));
  }
  g_type_class_unref (pclass);
  g_free (ref.data);
  g_free (pred.data);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (motion);
  g_free (backend);
  g_free (partition_name);
  return ret;
}
