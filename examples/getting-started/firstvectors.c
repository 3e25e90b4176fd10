/* gpumotionest — the vectors of a clip, from a program of one's own.
 *
 *   cc firstvectors.c -o firstvectors \
 *       $(pkg-config --cflags --libs gstreamer-motionvectors-1.0)
 *   ./firstvectors CLIP
 *
 * Built out of the project's tree against an installed
 * libgstmotionvectors-1.0 (docs/getting-started.md).  Plays CLIP (any file
 * decodebin plays) through gpumotionest and prints, for every frame, the
 * number of 16x16 blocks and their most common vector in pixels.
 */
#include <stdlib.h>

#include <gst/gst.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

/* Orders vectors packed as (mv_x << 16) | (mv_y & 0xffff). */
static int
compare_packed (const void *a, const void *b)
{
  gint32 x = *(const gint32 *) a, y = *(const gint32 *) b;

  return (x > y) - (x < y);
}

/* fakesink's handoff: @buf is the frame, its meta the field. */
static void
on_frame (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  guint *frame = data;
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (buf);
  const GstMotionVectorCell *grid;
  guint cols, rows, n, i, run = 0, best_run = 0;
  gint32 *packed, best = 0;

  if (meta == NULL || (meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE)) {
    g_print ("frame %u: no reference\n", (*frame)++);
    return;
  }
  grid = gst_motion_vector_meta_get_grid (meta,
      GST_MOTION_VECTOR_PARTITION_16X16, &cols, &rows);
  if (grid == NULL) {
    g_print ("frame %u: no 16x16 grid\n", (*frame)++);
    return;
  }

  /* the most common vector: the longest run of equal ones, sorted */
  n = cols * rows;
  packed = g_new (gint32, n);
  for (i = 0; i < n; i++)
    packed[i] = (gint32) ((guint32) (guint16) grid[i].mv_x << 16
        | (guint16) grid[i].mv_y);
  qsort (packed, n, sizeof (gint32), compare_packed);
  for (i = 0; i < n; i++) {
    run = (i > 0 && packed[i] == packed[i - 1]) ? run + 1 : 1;
    if (run > best_run) {
      best_run = run;
      best = packed[i];
    }
  }
  g_free (packed);

  /* quarter pixels to pixels */
  g_print ("frame %u: %ux%u blocks, most common vector (%+g,%+g) px "
      "on %u blocks\n", (*frame)++, cols, rows,
      (gint16) (best >> 16) / 4.0, (gint16) (best & 0xffff) / 4.0, best_run);
}

int
main (int argc, char **argv)
{
  GstElement *pipeline, *element;
  GstMessage *msg;
  GError *error = NULL;
  guint frame = 0;
  int ret = 0;

  gst_init (&argc, &argv);
  if (argc != 2) {
    g_printerr ("usage: %s CLIP\n", argv[0]);
    return 2;
  }
  pipeline = gst_parse_launch ("filesrc name=src ! decodebin ! videoconvert "
      "! gpumotionest ! fakesink name=sink signal-handoffs=true", &error);
  if (pipeline == NULL) {
    /* most often: gpumotionest not on GST_PLUGIN_PATH */
    g_printerr ("error: %s\n", error->message);
    return 1;
  }
  element = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  g_object_set (element, "location", argv[1], NULL);
  gst_object_unref (element);
  element = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_signal_connect (element, "handoff", G_CALLBACK (on_frame), &frame);
  gst_object_unref (element);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    g_printerr ("error: %s\n", error->message);
    g_clear_error (&error);
    ret = 1;
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return ret;
}
