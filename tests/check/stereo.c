/* gpumotionest — stereo video through the element: each view's motion,
 * the second view's disparity against the first, for side-by-side,
 * top-bottom and frame-by-frame streams; modes and settings that cannot be
 * searched refused by name.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#define VW 64                   /* one view */
#define VH 48
#define FRAME_NS (GST_SECOND / 30)
#define MOTION 3                /* pixels a frame, content moving left */
#define DISPARITY 5             /* the second view sees it 5 pixels on */

/* The world seen by view v at instant i: x shifted by MOTION i plus
 * DISPARITY v.  What a block of view 1 shows is DISPARITY pixels to its
 * right in view 0 (4 DISPARITY quarter pixels), what a block of either view
 * shows MOTION pixels to its right in its previous frame (4 MOTION). */
static guint8
world (gint x, gint y, guint i, guint v)
{
  const guint wx = x + MOTION * i + DISPARITY * v + 16;
  return (guint8) ((wx * 37 + y * 101 + ((wx * y) % 13) * 17) & 0xff);
}

static void
draw_view (guint8 * p, gint stride, guint i, guint v)
{
  for (gint y = 0; y < VH; y++)
    for (gint x = 0; x < VW; x++)
      p[y * stride + x] = world (x, y, i, v);
}

/* A GRAY8 frame of `layout` at instant i: both views, or view v alone
 * (frame-by-frame). */
static GstBuffer *
make_frame (const gchar * layout, guint i, guint v)
{
  const gboolean sbs = !strcmp (layout, "side-by-side");
  const gboolean tb = !strcmp (layout, "top-bottom");
  const guint w = sbs ? 2 * VW : VW, h = tb ? 2 * VH : VH;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, w * h, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  if (sbs || tb) {
    draw_view (map.data, w, i, 0);
    draw_view (map.data + (sbs ? VW : VH * w), w, i, 1);
  } else {
    draw_view (map.data, w, i, v);
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  if (!sbs && !tb && v == 0)
    GST_BUFFER_FLAG_SET (buf, GST_VIDEO_BUFFER_FLAG_FIRST_IN_BUNDLE);
  return buf;
}

static GstHarness *
open_harness (const gchar * layout, const gchar * props)
{
  const gboolean sbs = !strcmp (layout, "side-by-side");
  const gboolean tb = !strcmp (layout, "top-bottom");
  GstHarness *h = gst_harness_new ("gpumotionest");
  gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=%u,"
      "height=%u,framerate=30/1,multiview-mode=%s%s", sbs ? 2 * VW : VW,
      tb ? 2 * VH : VH, layout,
      sbs || tb ? "" : ",views=2");

  /* the CPU unless the environment names another backend (the GPU run) */
  gst_util_set_object_arg (G_OBJECT (h->element), "backend",
      g_getenv ("GPUMOTIONEST_TEST_BACKEND") ?
      g_getenv ("GPUMOTIONEST_TEST_BACKEND") : "cpu");
  /* one frame in flight: each buffer leaves before the next is pushed */
  g_object_set (h->element, "search-range", 8, "disparity-range", "0,12",
      "in-flight", 1, NULL);
  if (props)
    gst_util_set_object_arg (G_OBJECT (h->element), "references", props);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* The 16x16 vector most blocks have, in quarter pixels (x only). */
static gint
dominant_x (const GstMotionVectorMeta * m)
{
  guint cols, rows, best = 0;
  gint mx = G_MININT;
  const GstMotionVectorCell *c = gst_motion_vector_meta_get_grid (m,
      GST_MOTION_VECTOR_PARTITION_16X16, &cols, &rows);

  fail_unless (c != NULL);
  for (guint i = 0; i < cols * rows; i++) {
    guint n = 0;
    for (guint j = 0; j < cols * rows; j++)
      n += c[j].mv_x == c[i].mv_x && c[j].mv_y == c[i].mv_y;
    if (n > best) {
      best = n;
      mx = c[i].mv_x;
    }
  }
  return mx;
}

static void
check_motion (GstMotionVectorMeta * m, guint view, guint instant)
{
  fail_unless (m != NULL);
  fail_unless_equals_int (m->view, view);
  fail_unless_equals_int (m->analysis_width, VW);
  fail_unless_equals_int (m->analysis_height, VH);
  fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_INTER_VIEW);
  if (instant == 0) {
    fail_unless (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
    return;
  }
  fail_unless_equals_uint64 (m->ref_pts, (instant - 1) * FRAME_NS);
  fail_unless_equals_int (dominant_x (m), 4 * MOTION);
}

static void
check_disparity (GstMotionVectorMeta * m, guint instant)
{
  fail_unless (m != NULL);
  fail_unless_equals_int (m->view, 1);
  fail_unless_equals_int (m->ref_distance, 0);
  fail_unless (m->flags & GST_MOTION_VECTOR_META_FLAG_INTER_VIEW);
  fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
  fail_unless_equals_uint64 (m->ref_pts, instant * FRAME_NS);
  fail_unless_equals_int (dominant_x (m), 4 * DISPARITY);
  fail_unless_equals_int (m->method, GST_MOTION_VECTOR_METHOD_FULL);
  fail_unless_equals_int (m->search_range, 12);
}

/* Both views in each frame: three fields, view 0's motion, view 1's
 * motion, view 1's disparity. */
static void
run_packed (const gchar * layout)
{
  GstHarness *h = open_harness (layout, NULL);

  for (guint i = 0; i < 5; i++) {
    GstBuffer *b;

    fail_unless_equals_int (gst_harness_push (h, make_frame (layout, i, 0)),
        GST_FLOW_OK);
    b = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), i * FRAME_NS);
    fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (b), 3);
    check_motion (gst_buffer_get_motion_vector_meta_nth (b, 0), 0, i);
    check_motion (gst_buffer_get_motion_vector_meta_nth (b, 1), 1, i);
    check_disparity (gst_buffer_get_motion_vector_meta_nth (b, 2), i);
    fail_unless (gst_buffer_get_motion_vector_meta_for_view (b, 1, 0) ==
        gst_buffer_get_motion_vector_meta_nth (b, 2));
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_side_by_side)
{
  run_packed ("side-by-side");
}

GST_END_TEST;

GST_START_TEST (test_top_bottom)
{
  run_packed ("top-bottom");
}

GST_END_TEST;

/* One view a buffer: the first view's buffers carry its motion, the
 * second's its motion and its disparity; a view missing starts over. */
GST_START_TEST (test_frame_by_frame)
{
  GstHarness *h = open_harness ("frame-by-frame", NULL);
  GstBuffer *b;

  for (guint i = 0; i < 3; i++)
    for (guint v = 0; v < 2; v++) {
      fail_unless_equals_int (gst_harness_push (h, make_frame
              ("frame-by-frame", i, v)), GST_FLOW_OK);
      b = gst_harness_pull (h);
      fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (b),
          v + 1);
      check_motion (gst_buffer_get_motion_vector_meta_nth (b, 0), v, i);
      if (v == 1)
        check_disparity (gst_buffer_get_motion_vector_meta_nth (b, 1), i);
      gst_buffer_unref (b);
    }
  /* instant 3's first view is lost: its second view has no first view to
   * be searched against, nor a past the views agree on */
  fail_unless_equals_int (gst_harness_push (h, make_frame ("frame-by-frame",
              3, 1)), GST_FLOW_OK);
  b = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (b), 2);
  fail_unless (gst_buffer_get_motion_vector_meta_nth (b, 0)->flags &
      GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
  fail_unless (gst_buffer_get_motion_vector_meta_nth (b, 1)->flags &
      GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
  gst_buffer_unref (b);
  /* and the next instant is whole again: view 1's motion against the
   * lone view 1 of instant 3 */
  for (guint v = 0; v < 2; v++) {
    fail_unless_equals_int (gst_harness_push (h, make_frame
            ("frame-by-frame", 4, v)), GST_FLOW_OK);
    b = gst_harness_pull (h);
    if (v == 1) {
      GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta_nth (b, 0);
      fail_unless_equals_uint64 (m->ref_pts, 3 * FRAME_NS);
      fail_unless_equals_int (dominant_x (m), 4 * MOTION);
      check_disparity (gst_buffer_get_motion_vector_meta_nth (b, 1), 4);
    } else {
      fail_unless (gst_buffer_get_motion_vector_meta_nth (b, 0)->flags &
          GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
    }
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Several references: each view against its own past frames. */
GST_START_TEST (test_references)
{
  GstHarness *h = open_harness ("side-by-side", "-1,-2");

  for (guint i = 0; i < 4; i++) {
    GstBuffer *b;

    fail_unless_equals_int (gst_harness_push (h, make_frame ("side-by-side",
                i, 0)), GST_FLOW_OK);
    b = gst_harness_pull (h);
    fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (b), 5);
    for (guint v = 0; v < 2; v++) {
      GstMotionVectorMeta *m2 = gst_buffer_get_motion_vector_meta_for_view (b,
          v, -2);
      fail_unless (m2 != NULL);
      fail_unless_equals_int (m2->view, v);
      if (i >= 2) {
        fail_unless_equals_int (dominant_x (m2), 8 * MOTION);
      } else {
        fail_unless (m2->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
      }
    }
    check_disparity (gst_buffer_get_motion_vector_meta_for_view (b, 1, 0), i);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A side-by-side frame at instant i whose views are swapped: view 1 shows
 * the world of view 0 and the other way round, so that what a block of
 * view 1 shows is DISPARITY pixels to its left in view 0 (a right-first
 * rig: negative disparities). */
static GstBuffer *
make_swapped (guint i)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 2 * VW * VH, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  draw_view (map.data, 2 * VW, i, 1);
  draw_view (map.data + VW, 2 * VW, i, 0);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  return buf;
}

/* The 16x16 disparity field of one side-by-side frame searched with
 * disparity-range `range`: its cells, dominant and extreme x vectors and
 * the search range its meta reports. */
typedef struct {
  GstMotionVectorCell *cells;
  guint n;
  gint dominant, min_x, max_x;
  guint search_range;
} Disparity;

static void
search_disparity (const gchar * range, gboolean swapped, Disparity * d)
{
  GstHarness *h = open_harness ("side-by-side", NULL);
  GstMotionVectorMeta *m;
  const GstMotionVectorCell *c;
  gchar *readback = NULL;
  guint cols, rows;
  GstBuffer *b;

  g_object_set (h->element, "disparity-range", range, NULL);
  /* kept as it was written */
  g_object_get (h->element, "disparity-range", &readback, NULL);
  fail_unless_equals_string (readback, range);
  g_free (readback);
  fail_unless_equals_int (gst_harness_push (h, swapped ? make_swapped (0) :
          make_frame ("side-by-side", 0, 0)), GST_FLOW_OK);
  b = gst_harness_pull (h);
  m = gst_buffer_get_motion_vector_meta_for_view (b, 1, 0);
  fail_unless (m != NULL, "no disparity field with range \"%s\"", range);
  fail_unless (m->flags & GST_MOTION_VECTOR_META_FLAG_INTER_VIEW);
  fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
  c = gst_motion_vector_meta_get_grid (m, GST_MOTION_VECTOR_PARTITION_16X16,
      &cols, &rows);
  fail_unless (c != NULL && cols * rows > 0);
  d->n = cols * rows;
  d->cells = g_memdup2 (c, d->n * sizeof (GstMotionVectorCell));
  d->dominant = dominant_x (m);
  d->search_range = m->search_range;
  d->min_x = G_MAXINT;
  d->max_x = G_MININT;
  for (guint i = 0; i < d->n; i++) {
    d->min_x = MIN (d->min_x, c[i].mv_x);
    d->max_x = MAX (d->max_x, c[i].mv_x);
  }
  gst_buffer_unref (b);
  gst_harness_teardown (h);
}

/* The same field, cell for cell, with either spelling of a range. */
static void
check_same_field (const gchar * a, const gchar * b, gboolean swapped)
{
  Disparity da, db;

  search_disparity (a, swapped, &da);
  search_disparity (b, swapped, &db);
  fail_unless_equals_int (da.search_range, db.search_range);
  fail_unless_equals_int (da.n, db.n);
  fail_unless (memcmp (da.cells, db.cells,
          da.n * sizeof (GstMotionVectorCell)) == 0,
      "\"%s\" and \"%s\" gave different fields", a, b);
  g_free (da.cells);
  g_free (db.cells);
}

/* disparity-range as a single number N: the range between 0 and N. */
GST_START_TEST (test_single_number_range)
{
  Disparity d;

  /* "32" is 0,32: a window of 16 either side of 16, which finds the
   * positive disparity and reports its reach, 32 */
  search_disparity ("32", FALSE, &d);
  fail_unless_equals_int (d.dominant, 4 * DISPARITY);
  fail_unless_equals_int (d.search_range, 32);
  fail_unless (d.min_x >= 0 && d.max_x <= 4 * 32, "%d .. %d", d.min_x,
      d.max_x);
  g_free (d.cells);
  check_same_field ("32", "0,32", FALSE);

  /* "-32" is -32,0 (not -32,32): it finds a right-first rig's negative
   * disparity, and nothing to the right of 0 on a left-first one */
  search_disparity ("-32", TRUE, &d);
  fail_unless_equals_int (d.dominant, -4 * DISPARITY);
  fail_unless_equals_int (d.search_range, 32);
  fail_unless (d.min_x >= -4 * 32 && d.max_x <= 0, "%d .. %d", d.min_x,
      d.max_x);
  g_free (d.cells);
  search_disparity ("-32", FALSE, &d);
  fail_unless (d.max_x <= 0, "-32 reached %d", d.max_x);
  g_free (d.cells);
  check_same_field ("-32", "-32,0", TRUE);
  check_same_field ("-32", "-32,0", FALSE);

  /* and "32" nothing to the left of 0 */
  search_disparity ("32", TRUE, &d);
  fail_unless (d.min_x >= 0, "32 reached %d", d.min_x);
  g_free (d.cells);
}

GST_END_TEST;

/* What cannot be searched is refused by name. */
static void
expect_error (const gchar * caps, const gchar * refs, const gchar * range,
    const gchar * says)
{
  GstHarness *h = gst_harness_new ("gpumotionest");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (h->element, bus);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  if (refs)
    g_object_set (h->element, "references", refs, NULL);
  if (range)
    g_object_set (h->element, "disparity-range", range, NULL);
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_push (h, make_frame ("side-by-side", 0, 0));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for %s", says);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, says) != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_START_TEST (test_refused)
{
  const gchar *sbs = "video/x-raw,format=GRAY8,width=128,height=48,"
      "framerate=30/1,multiview-mode=side-by-side";

  expect_error ("video/x-raw,format=GRAY8,width=128,height=48,"
      "framerate=30/1,multiview-mode=column-interleaved", NULL, NULL,
      "multiview-mode column-interleaved is not searched");
  expect_error (sbs, "-1,+1", NULL, "reference +1 in a stereo stream");
  expect_error (sbs, "-8", NULL, "reference -8 in a stereo stream");
  expect_error (sbs, NULL, "8,2", "the smallest first");
  expect_error (sbs, NULL, "0,300", "at most 256 pixels wide");
  expect_error (sbs, NULL, "300", "at most 256 pixels wide");
  expect_error (sbs, NULL, "-300", "at most 256 pixels wide");
  expect_error (sbs, NULL, "32,", "is neither MIN,MAX nor a single number");
  expect_error (sbs, NULL, ",32", "is neither MIN,MAX nor a single number");
  expect_error (sbs, NULL, "0,64,1", "is neither MIN,MAX nor a single");
  expect_error (sbs, NULL, "32px", "\"32px\" is neither MIN,MAX");
  expect_error (sbs, NULL, "", "is neither MIN,MAX nor a single number");
}

GST_END_TEST;

static Suite *
stereo_suite (void)
{
  Suite *s = suite_create ("stereo");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_side_by_side);
  tcase_add_test (tc, test_top_bottom);
  tcase_add_test (tc, test_frame_by_frame);
  tcase_add_test (tc, test_references);
  tcase_add_test (tc, test_single_number_range);
  tcase_add_test (tc, test_refused);
  return s;
}

GST_CHECK_MAIN (stereo);
