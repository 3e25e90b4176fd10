/* gpumotionest — the motion summary through the elements: gpumotionest
 * attaches every frame's (a pan of known motion, a cut to unrelated
 * content, a discontinuity), mvexport writes it on request, mvoverlay
 * draws it on request. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <glib/gstdio.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/motionvectors/gstmotionvectormeta.h>

#include "testworld.h"

#define W 160
#define H 96
#define WORLD_W 1024
#define WORLD_H 512

static guint8 *world;

static void
world_setup (void)
{
  world = test_world_new (WORLD_W, WORLD_H, 77);
}

static void
world_teardown (void)
{
  g_clear_pointer (&world, g_free);
}

/* A GRAY8 frame showing the world from (ox, oy). */
static GstBuffer *
frame_at (guint ox, guint oy)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, W * H, NULL);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (guint y = 0; y < H; y++)
    memcpy (map.data + y * W, world + (gsize) (oy + y) * WORLD_W + ox, W);
  gst_buffer_unmap (buf, &map);
  return buf;
}

static GstBuffer *
push_pull (GstHarness * h, GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  return gst_harness_pull (h);
}

static GstMotionVectorMeta *
get_meta (GstBuffer * out)
{
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (out);

  fail_unless (meta != NULL);
  return meta;
}

/* Pulls the summary of @out and checks it is the one the library computes
 * from the same meta and @prev. */
static void
check_summary (GstBuffer * out, const GstMotionVectorSummary * prev,
    GstMotionVectorSummary * s)
{
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (out);
  GstMotionVectorSummary want;

  fail_unless (meta != NULL);
  fail_unless (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY);
  fail_unless (gst_motion_vector_meta_get_summary (meta, s));
  meta->flags &= ~GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY;
  fail_unless (gst_motion_vector_summary_compute (meta, prev, &want));
  meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY;
  fail_unless (memcmp (&want, s, sizeof (want)) == 0);
}

/* How many 16x16 cells of @out cost more than @cost. */
static guint
count_costlier (GstBuffer * out, guint32 cost)
{
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (out);
  guint cols, rows, n = 0;
  const GstMotionVectorCell *cells = gst_motion_vector_meta_get_grid (meta,
      GST_MOTION_VECTOR_PARTITION_16X16, &cols, &rows);

  for (guint i = 0; i < cols * rows; i++)
    n += cells[i].cost > cost;
  return n;
}

GST_START_TEST (test_element_attaches_summary)
{
  GstHarness *h = gst_harness_new ("gpumotionest");
  GstMotionVectorSummary s[6];
  GstBuffer *out[6], *in;
  guint i;

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  g_object_set (h->element, "search-range", 8, "in-flight", 1, "summary",
      TRUE, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=160,"
      "height=96,framerate=30/1");

  /* frames 0..2 pan by (3, 2) pixels a frame: the content moves up-left,
   * each block's match lies (3, 2) further in the reference; frame 3 cuts
   * to an unrelated part of the world, frame 4 pans on from there; frame
   * 5 is a discontinuity */
  for (i = 0; i < 3; i++)
    out[i] = push_pull (h, frame_at (100 + 3 * i, 60 + 2 * i));
  out[3] = push_pull (h, frame_at (700, 300));
  out[4] = push_pull (h, frame_at (703, 302));
  in = frame_at (706, 304);
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
  out[5] = push_pull (h, in);

  check_summary (out[0], NULL, &s[0]);
  fail_unless_equals_int (s[0].flags,
      GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE
      | GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS
      | GST_MOTION_VECTOR_SUMMARY_FLAG_TRANSLATION_ONLY);
  for (i = 1; i < 6; i++)
    check_summary (out[i], &s[i - 1], &s[i]);

  /* the pan: every block whose match lies in the reference is exact (cost
   * 0); the right and bottom edges' are not and are unmatched */
  for (i = 1; i < 3; i++) {
    fail_unless_equals_float (s[i].global_x, 12.0);
    fail_unless_equals_float (s[i].global_y, 8.0);
    fail_unless_equals_float (s[i].median_cost, 0.0);
    fail_unless_equals_float (s[i].scene_change, 0.0);
    fail_unless_equals_float (s[i].moving_share, 0.0);
    fail_unless_equals_int (s[i].blocks, 10 * 6);
    /* the median is 0: unmatched are the blocks above 16 levels a pixel,
     * along the right edge, whose match runs 3 columns out of the frame */
    fail_unless_equals_float (s[i].unmatched_share,
        count_costlier (out[i], 16 * 256) / 60.0);
    fail_unless (s[i].unmatched_share > 0 && s[i].unmatched_share <= 6 / 60.0);
    fail_unless_equals_float (s[i].global_share, 1 - s[i].unmatched_share);
  }
  fail_unless_equals_int (s[1].flags,
      GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS);
  fail_unless_equals_int (s[2].flags, 0);

  /* the cut: random against random, the best of 17 x 17 candidates still
   * costs tens of levels a pixel where the previous frame's cost was 0 */
  fail_unless (s[3].median_cost > 40, "median %g", s[3].median_cost);
  fail_unless (s[3].scene_change > 90, "score %g", s[3].scene_change);
  fail_unless (s[3].flags & GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE);
  fail_unless_equals_float (s[4].scene_change, 0.0);
  fail_unless_equals_float (s[4].global_x, 12.0);
  fail_unless_equals_int (s[4].flags, 0);

  /* the discontinuity drops the reference */
  fail_unless_equals_int (s[5].flags,
      GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE
      | GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS
      | GST_MOTION_VECTOR_SUMMARY_FLAG_TRANSLATION_ONLY);

  for (i = 0; i < 6; i++)
    gst_buffer_unref (out[i]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- mvexport ------------------------------------------------------------ */

/* The summary costs host time per frame, so it is off by default; turned
 * on while streaming, its first frame has no previous summary (the frames
 * without one left none), so no score is taken against an older frame. */
GST_START_TEST (test_element_summary_on_request)
{
  GstHarness *h = gst_harness_new ("gpumotionest");
  GstMotionVectorSummary s;
  GstBuffer *out;

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  g_object_set (h->element, "search-range", 8, "in-flight", 1, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=160,"
      "height=96,framerate=30/1");

  for (guint i = 0; i < 3; i++) {
    out = push_pull (h, frame_at (100 + 3 * i, 60 + 2 * i));
    fail_if (get_meta (out)->flags & GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY,
        "frame %u has a summary with the defaults", i);
    fail_if (gst_motion_vector_meta_get_summary (get_meta (out), &s));
    gst_buffer_unref (out);
  }
  g_object_set (h->element, "summary", TRUE, NULL);
  out = push_pull (h, frame_at (109, 66));
  fail_unless (gst_motion_vector_meta_get_summary (get_meta (out), &s));
  fail_unless_equals_int (s.flags, GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS);
  fail_unless_equals_float (s.global_x, 12.0);
  fail_unless_equals_float (s.global_y, 8.0);
  gst_buffer_unref (out);
  out = push_pull (h, frame_at (112, 68));
  fail_unless (gst_motion_vector_meta_get_summary (get_meta (out), &s));
  fail_unless_equals_int (s.flags, 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Frames 0..2 of the pan through "gpumotionest ! mvexport @props"; returns
 * the file's text and the pulled buffers' summaries in @s. */
static gchar *
export_pan (const gchar * props, GstMotionVectorSummary s[3])
{
  gchar *dir = g_dir_make_tmp ("summary-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "out.txt", NULL);
  gchar *launch = g_strdup_printf ("gpumotionest backend=cpu search-range=8 "
      "in-flight=1 summary=true ! mvexport location=\"%s\" %s", path, props);
  GstHarness *h = gst_harness_new_parse (launch);
  gchar *text = NULL;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=160,"
      "height=96,framerate=30/1");
  for (guint i = 0; i < 3; i++) {
    GstBuffer *in = frame_at (100 + 3 * i, 60 + 2 * i), *out;

    GST_BUFFER_PTS (in) = i * 40 * GST_MSECOND;
    out = push_pull (h, in);
    fail_unless (gst_motion_vector_meta_get_summary
        (gst_buffer_get_motion_vector_meta (out), &s[i]));
    gst_buffer_unref (out);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (path);
  g_free (dir);
  return text;
}

/* A number written by mvexport reads back as the very double. */
static void
check_number (const gchar * text, gdouble want)
{
  gchar *end;
  gdouble v = g_ascii_strtod (text, &end);

  fail_unless (end != text && (*end == '\0' || *end == ',' || *end == '}'),
      "not a number: %s", text);
  fail_unless (memcmp (&v, &want, sizeof (v)) == 0, "%s is not %.17g", text,
      want);
}

GST_START_TEST (test_export_summary_csv)
{
  GstMotionVectorSummary s[3];
  gchar *text = export_pan ("format=csv summary=true", s);
  gchar **lines = g_strsplit (text, "\n", -1), **f;
  static const gchar *header[] = { "frame", "pts", "has_reference",
    "has_previous", "similarity", "grid", "blocks", "global_x", "global_y",
    "zoom", "rotation", "global_share", "moving_share", "unmatched_share",
    "scene_change", "scene_cut", "mean_cost", "median_cost", "ref_distance",
    NULL
  };

  /* a header and one row per frame (one field each), no block rows */
  fail_unless_equals_int (g_strv_length (lines), 1 + 3 + 1);
  f = g_strsplit (lines[0], ",", -1);
  fail_unless_equals_int (g_strv_length (f), g_strv_length ((gchar **) header));
  for (guint i = 0; header[i]; i++)
    fail_unless_equals_string (f[i], header[i]);
  g_strfreev (f);
  fail_unless_equals_string (lines[1], "0,0,0,0,0,16x16,0,0,0,0,0,0,0,0,0,0,"
      "0,0,-1");
  fail_unless (g_str_has_prefix (lines[3], "2,80000000,1,1,1,16x16,60,12,8,"),
      "%s", lines[3]);
  f = g_strsplit (lines[3], ",", -1);
  check_number (f[9], s[2].zoom);
  check_number (f[10], s[2].rotation);
  check_number (f[11], s[2].global_share);
  check_number (f[13], s[2].unmatched_share);
  fail_unless_equals_string (f[14], "0");
  fail_unless_equals_string (f[15], "0");
  check_number (f[16], s[2].mean_cost);
  g_strfreev (f);
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_export_summary_jsonl)
{
  GstMotionVectorSummary s[3];
  gchar *text = export_pan ("", s), *line, *want;
  gchar **lines;

  /* by default the file is as before: no summary */
  fail_unless (strstr (text, "summary") == NULL);
  g_free (text);

  text = export_pan ("summary=true", s);
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_int (g_strv_length (lines), 3 + 1);
  fail_unless (g_str_has_suffix (lines[0], "]}],\"summary\":{\"version\":1,"
          "\"has_reference\":false,\"has_previous\":false,"
          "\"similarity\":false,\"grid\":\"16x16\",\"blocks\":0,"
          "\"global_x\":0,\"global_y\":0,\"zoom\":0,\"rotation\":0,"
          "\"global_share\":0,\"moving_share\":0,\"unmatched_share\":0,"
          "\"scene_change\":0,\"scene_cut\":false,\"mean_cost\":0,"
          "\"median_cost\":0}}"), "%s", lines[0]);
  line = strstr (lines[2], ",\"summary\":{");
  fail_unless (line != NULL);
  fail_unless (g_str_has_prefix (line, ",\"summary\":{\"version\":1,"
          "\"has_reference\":true,\"has_previous\":true,"
          "\"similarity\":true,\"grid\":\"16x16\",\"blocks\":60,"
          "\"global_x\":12,\"global_y\":8,\"zoom\":"), "%s", line);
  check_number (strstr (line, "\"zoom\":") + 7, s[2].zoom);
  check_number (strstr (line, "\"unmatched_share\":") + 18,
      s[2].unmatched_share);
  want = g_strdup_printf ("\"scene_change\":0,\"scene_cut\":false,"
      "\"mean_cost\":");
  fail_unless (strstr (line, want) != NULL, "%s", line);
  check_number (strstr (line, want) + strlen (want), s[2].mean_cost);
  fail_unless (g_str_has_suffix (line, ",\"median_cost\":0}}"), "%s", line);
  g_free (want);
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

/* ---- mvoverlay ------------------------------------------------------------ */

#define OW 128
#define OH 96

/* A grey I420 frame with a meta of 16x16 vectors (8, 0) and, unless
 * @no_summary, its summary; @cut marks it a scene cut. */
static GstBuffer *
overlay_input (gboolean no_summary, gboolean cut)
{
  GstVideoInfo info;
  GstBuffer *buf;
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint n = gst_motion_vector_layout (OW, OH,
      GST_MOTION_VECTOR_PARTITIONS_16X16, grids);
  GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, n);
  GstMotionVectorMeta *meta;
  GstMotionVectorSummary sum;
  GBytes *data;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, OW, OH);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 100, info.size);
  for (guint i = 0; i < n; i++) {
    cells[i].mv_x = 8;
    cells[i].cost = 512;
  }
  data = g_bytes_new_take (cells, n * sizeof (GstMotionVectorCell));
  meta = gst_buffer_add_motion_vector_meta (buf, OW, OH,
      GST_MOTION_VECTOR_PARTITIONS_16X16, data);
  g_bytes_unref (data);
  fail_unless (gst_motion_vector_summary_compute (meta, NULL, &sum));
  if (cut)
    sum.flags |= GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE;
  if (!no_summary)
    gst_motion_vector_meta_set_summary (meta, &sum);
  return buf;
}

/* @in through "mvoverlay min-magnitude=1000 @props" (no block arrows:
 * only what the summary draws); returns the output's luma. */
static guint8 *
overlay_luma (GstBuffer * in, const gchar * props)
{
  gchar *launch = g_strdup_printf ("mvoverlay min-magnitude=1000 %s", props);
  GstHarness *h = gst_harness_new_parse (launch);
  GstBuffer *out;
  guint8 *luma = g_malloc (OW * OH);

  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=128,"
      "height=96,framerate=30/1");
  out = push_pull (h, in);
  fail_unless (out != NULL);
  gst_buffer_extract (out, 0, luma, OW * OH);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (launch);
  return luma;
}

GST_START_TEST (test_overlay_summary)
{
  guint8 *plain = overlay_luma (overlay_input (TRUE, FALSE), "");
  guint8 *dflt = overlay_luma (overlay_input (FALSE, FALSE), "");
  guint8 *off = overlay_luma (overlay_input (FALSE, FALSE), "summary=false");
  guint8 *on = overlay_luma (overlay_input (FALSE, FALSE), "summary=true");
  guint8 *cut = overlay_luma (overlay_input (FALSE, TRUE), "summary=true");
  guint8 *absent = overlay_luma (overlay_input (TRUE, FALSE), "summary=true");
  guint changed = 0;

  /* nothing drawn without the property, nor without a summary */
  for (guint i = 0; i < OW * OH; i++)
    fail_unless_equals_int (plain[i], 100);
  fail_unless (memcmp (dflt, plain, OW * OH) == 0);
  fail_unless (memcmp (off, plain, OW * OH) == 0);
  fail_unless (memcmp (absent, plain, OW * OH) == 0);

  /* the summary: a white dot at the centre, the share bar at the bottom
   * left, no border without a cut */
  for (guint i = 0; i < OW * OH; i++)
    changed += on[i] != 100;
  fail_unless (changed > 100, "%u pixels drawn", changed);
  fail_unless (on[(OH / 2) * OW + OW / 2] > 200);
  fail_unless (on[(OH - 5) * OW + 6] != 100);
  fail_unless_equals_int (on[0], 100);
  fail_unless_equals_int (on[(OH / 2) * OW + OW - 1], 100);
  /* a cut: a white border */
  fail_unless (cut[0] > 200);
  fail_unless (cut[(OH / 2) * OW + OW - 1] > 200);
  fail_unless (memcmp (cut + 8 * OW + 8, on + 8 * OW + 8, OW - 16) == 0);

  g_free (plain);
  g_free (dflt);
  g_free (off);
  g_free (on);
  g_free (cut);
  g_free (absent);
}

GST_END_TEST;

static Suite *
summary_element_suite (void)
{
  Suite *s = suite_create ("summary-element");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, world_setup, world_teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_element_attaches_summary);
  tcase_add_test (tc, test_element_summary_on_request);
  tcase_add_test (tc, test_export_summary_csv);
  tcase_add_test (tc, test_export_summary_jsonl);
  tcase_add_test (tc, test_overlay_summary);
  return s;
}

GST_CHECK_MAIN (summary_element);
