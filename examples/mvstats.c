/* mvstats — per-frame statistics of the motion field gpumotionest finds.
 *
 *   mvstats [OPTIONS] [FILE]
 *
 * Without FILE it renders its own clip (synthclip.h: a texture moving by
 * --motion pixels per frame) and feeds it through appsrc; with FILE it plays
 * the file through decodebin.  Either way the frames go through
 * gpumotionest into an appsink, and for every frame the program prints, for
 * the chosen partition shape: the mean and largest vector length in pixels,
 * the share of blocks with a non-zero vector, the mean matching cost (SAD)
 * and the most common vector.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "synthclip.h"

typedef struct
{
  gdouble mean_len, max_len;    /* pixels at the meta's width x height */
  gdouble nonzero_share;        /* 0..1 */
  gdouble mean_cost;            /* SAD per block */
  gint mode_x, mode_y;          /* most common vector, quarter-pel */
  guint mode_count;
} FieldStats;

/* Sorts vectors so that equal ones are adjacent (for the mode). */
static gint
compare_vectors (gconstpointer a, gconstpointer b)
{
  const guint32 *va = a, *vb = b;

  return (*va > *vb) - (*va < *vb);
}

/* Statistics of @n cells; @scratch has room for @n packed vectors. */
static void
field_stats (const GstMotionVectorCell * cells, guint n, guint32 * scratch,
    FieldStats * st)
{
  /* quarter-pel -> pixels of the frame the meta describes */
  const gdouble sx = 0.25, sy = 0.25;
  gdouble sum_len = 0.0, sum_cost = 0.0;
  guint i, nonzero = 0, run = 0;

  memset (st, 0, sizeof (*st));
  for (i = 0; i < n; i++) {
    gdouble len = hypot (cells[i].mv_x * sx, cells[i].mv_y * sy);

    sum_len += len;
    st->max_len = MAX (st->max_len, len);
    sum_cost += cells[i].cost;
    nonzero += cells[i].mv_x != 0 || cells[i].mv_y != 0;
    scratch[i] = (guint32) (guint16) cells[i].mv_x << 16
        | (guint16) cells[i].mv_y;
  }
  st->mean_len = n ? sum_len / n : 0.0;
  st->mean_cost = n ? sum_cost / n : 0.0;
  st->nonzero_share = n ? (gdouble) nonzero / n : 0.0;

  qsort (scratch, n, sizeof (guint32), compare_vectors);
  for (i = 0; i < n; i++) {
    run = (i > 0 && scratch[i] == scratch[i - 1]) ? run + 1 : 1;
    if (run > st->mode_count) {
      st->mode_count = run;
      st->mode_x = (gint16) (guint16) (scratch[i] >> 16);
      st->mode_y = (gint16) (guint16) (scratch[i] & 0xffff);
    }
  }
}

int
main (int argc, char **argv)
{
  gint n_frames = 30, width = 640, height = 360, range = 16;
  gchar *motion = NULL, *backend = NULL, *partition_name = NULL;
  gint vx = 3, vy = -2;
  gchar *expect = NULL;
  gint expect_x = 0, expect_y = 0;
  guint mismatches = 0;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &n_frames,
        "Frames of the synthetic clip (default 30)", "N"},
    {"width", 'W', 0, G_OPTION_ARG_INT, &width,
        "Width of the synthetic clip (default 640)", "W"},
    {"height", 'H', 0, G_OPTION_ARG_INT, &height,
        "Height of the synthetic clip (default 360)", "H"},
    {"motion", 'm', 0, G_OPTION_ARG_STRING, &motion,
        "Motion of the synthetic clip in pixels per frame (default 3,-2)",
        "DX,DY"},
    {"range", 'r', 0, G_OPTION_ARG_INT, &range,
        "Search range in pixels (default 16)", "R"},
    {"partition", 'p', 0, G_OPTION_ARG_STRING, &partition_name,
        "Partition shape to summarise (default 16x16)", "WxH"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "gpumotionest backend: auto, cpu, cuda (default auto)", "B"},
    {"expect", 'e', 0, G_OPTION_ARG_STRING, &expect,
        "Fail unless every searched frame's most common vector is DX,DY "
        "pixels", "DX,DY"},
    {NULL},
  };
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *desc = NULL;
  g_autofree guint32 *scratch = NULL;
  GEnumClass *pclass;
  GEnumValue *pvalue;
  GstMotionVectorPartition partition;
  GstElement *pipeline, *sink;
  guint frame_no = 0, searched = 0, scratch_len = 0;
  gdouble sum_mean_len = 0.0;
  gint64 start;
  gint ret = 0;

  ctx = g_option_context_new ("[FILE] - motion-field statistics per frame");
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
  if (expect && sscanf (expect, "%d,%d", &expect_x, &expect_y) != 2) {
    g_printerr ("--expect wants DX,DY\n");
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
  g_type_class_unref (pclass);

  /* Ask gpumotionest for exactly the shape that is summarised. */
  if (argc > 1) {
    desc = g_strdup_printf ("filesrc name=src ! decodebin ! videoconvert ! "
        "video/x-raw,format=I420 ! gpumotionest name=me search-range=%d "
        "partitions=%s backend=%s ! appsink name=sink sync=false",
        range, pvalue->value_nick, backend ? backend : "auto");
  } else {
    desc = g_strdup_printf ("appsrc name=src ! gpumotionest name=me "
        "search-range=%d partitions=%s backend=%s ! "
        "appsink name=sink sync=false",
        range, pvalue->value_nick, backend ? backend : "auto");
  }
  pipeline = gst_parse_launch (desc, &error);
  if (!pipeline) {
    g_printerr ("pipeline: %s\n", error->message);
    return 1;
  }
  if (argc > 1) {
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
    g_object_set (src, "location", argv[1], NULL);
    gst_object_unref (src);
    g_print ("file: %s\n", argv[1]);
  } else {
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
    synth_attach_appsrc (GST_APP_SRC (src), width, height, n_frames, vx, vy);
    gst_object_unref (src);
    g_print ("synthetic clip: %d frames of %dx%d, texture moving by (%+d,%+d) "
        "px per frame: expected vector (%+d,%+d) px\n", n_frames, width,
        height, vx, vy, -vx, -vy);
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  start = g_get_monotonic_time ();
  g_print ("frame  blocks   mean|mv|  max|mv|  nonzero  mean SAD   most common"
      "\n");
  for (;;) {
    g_autoptr (GstSample) sample =
        gst_app_sink_try_pull_sample (GST_APP_SINK (sink), GST_SECOND / 10);
    GstMotionVectorMeta *meta;
    const GstMotionVectorCell *cells;
    guint cols, rows;
    FieldStats st;

    if (!sample) {
      /* Nothing yet: stop at end-of-stream or at an error on the bus. */
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)) || example_pipeline_failed (pipeline))
        break;
      continue;
    }
    meta = gst_buffer_get_motion_vector_meta (gst_sample_get_buffer (sample));
    if (!meta) {
      g_printerr ("frame %u has no motion-vector meta\n", frame_no);
      ret = 1;
      break;
    }
    if (meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE) {
      g_print ("%5u  (no reference frame)\n", frame_no++);
      continue;
    }
    cells = gst_motion_vector_meta_get_grid (meta, partition, &cols, &rows);
    if (!cells) {
      g_printerr ("frame %u: shape %s absent\n", frame_no, pvalue->value_nick);
      ret = 1;
      break;
    }
    if (cols * rows > scratch_len) {
      scratch_len = cols * rows;
      scratch = g_renew (guint32, scratch, scratch_len);
    }
    field_stats (cells, cols * rows, scratch, &st);
    g_print ("%5u  %6u  %6.2f px %6.2f px  %5.1f %%  %8.1f   (%+g,%+g) px on "
        "%.1f %%\n", frame_no, cols * rows, st.mean_len, st.max_len,
        100.0 * st.nonzero_share, st.mean_cost, st.mode_x / 4.0,
        st.mode_y / 4.0, 100.0 * st.mode_count / (cols * rows));
    if (expect && (st.mode_x != 4 * expect_x || st.mode_y != 4 * expect_y))
      mismatches++;
    sum_mean_len += st.mean_len;
    searched++;
    frame_no++;
  }

  if (ret == 0 && !gst_app_sink_is_eos (GST_APP_SINK (sink)))
    ret = 1;                    /* stopped by an error, already printed */
  if (ret == 0) {
    gdouble secs = (g_get_monotonic_time () - start) / 1e6;
    GstElement *me = gst_bin_get_by_name (GST_BIN (pipeline), "me");
    g_autofree gchar *active = NULL;

    g_object_get (me, "active-backend", &active, NULL);
    gst_object_unref (me);
    g_print ("%u frames (%u with a reference) in %.2f s, %.1f frames/s on "
        "the %s backend; mean |mv| over the clip %.2f px\n", frame_no,
        searched, secs, secs > 0 ? frame_no / secs : 0.0,
        active ? active : "(stopped)", searched ? sum_mean_len / searched : 0);
    if (searched == 0)
      ret = 1;
    if (expect && mismatches) {
      g_printerr ("%u of %u frames did not have (%+d,%+d) px as their most "
          "common vector\n", mismatches, searched, expect_x, expect_y);
      ret = 1;
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (motion);
  g_free (backend);
  g_free (partition_name);
  g_free (expect);
  return ret;
}
