/* gpumotionest — the element attaches every frame's motion summary: a pan
 * of known motion, a cut to unrelated content, a discontinuity. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/motionvectors/gstmotionvectormeta.h>

#define W 160
#define H 96
#define WORLD_W 1024
#define WORLD_H 512

static guint8 *world;

static void
world_setup (void)
{
  GRand *rand = g_rand_new_with_seed (77);

  world = g_malloc (WORLD_W * WORLD_H);
  for (gsize i = 0; i < (gsize) WORLD_W * WORLD_H; i++)
    world[i] = g_rand_int (rand) & 0xff;
  g_rand_free (rand);
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
  g_object_set (h->element, "search-range", 8, "in-flight", 1, NULL);
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

static Suite *
summary_element_suite (void)
{
  Suite *s = suite_create ("summary-element");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, world_setup, world_teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_element_attaches_summary);
  return s;
}

GST_CHECK_MAIN (summary_element);
