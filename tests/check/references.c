/* gpumotionest — the references property through the element: one field
 * per reference on every buffer, in the list's order, each against the
 * frame it names; frames held for a future reference; the latency that
 * adds; the ends of a stream; lists that cannot be searched.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#define W 64
#define H 48
#define FRAME_NS (GST_SECOND / 30)

/* Frame i: a textured world seen from (3 i, 0): the content moves 3
 * pixels left per frame, so frame t against frame t + d finds (3 d, 0). */
static GstBuffer *
make_frame (guint i)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, W, H);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE);
  for (guint y = 0; y < H; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (guint x = 0; x < W; x++) {
      guint wx = x + 3 * i;
      row[x] = (guint8) ((wx * 37 + y * 101 + ((wx * y) % 13) * 17) & 0xff);
    }
  }
  gst_video_frame_unmap (&frame);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  return buf;
}

static GstHarness *
open_harness (const gchar * references)
{
  GstHarness *h = gst_harness_new ("gpumotionest");

  g_object_set (h->element, "references", references, "search-range", 12,
      NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=64,"
      "height=48,framerate=30/1");
  return h;
}

/* The 16x16 vector most blocks of `meta` have, in quarter pixels. */
static void
dominant_vector (const GstMotionVectorMeta * meta, gint * mx, gint * my)
{
  guint cols, rows, best = 0;
  const GstMotionVectorCell *c = gst_motion_vector_meta_get_grid (meta,
      GST_MOTION_VECTOR_PARTITION_16X16, &cols, &rows);

  fail_unless (c != NULL);
  for (guint i = 0; i < cols * rows; i++) {
    guint n = 0;
    for (guint j = 0; j < cols * rows; j++)
      n += c[j].mv_x == c[i].mv_x && c[j].mv_y == c[i].mv_y;
    if (n > best) {
      best = n;
      *mx = c[i].mv_x;
      *my = c[i].mv_y;
    }
  }
}

/* Every buffer carries one field per reference in the list's order, each
 * with its distance, the reference's timestamp, and the motion towards
 * that frame; references outside the stream give fields without one. */
GST_START_TEST (test_fields_per_reference)
{
  static const gint refs[] = { -1, -2, +1 };
  const guint n = 8;
  GstHarness *h = open_harness ("-1,-2,+1");

  for (guint i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i)),
        GST_FLOW_OK);
  /* the last frame waits for its next one until the end of the stream */
  fail_unless_equals_int (gst_harness_buffers_received (h), n - 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), n);

  for (guint t = 0; t < n; t++) {
    GstBuffer *b = gst_harness_pull (h);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), t * FRAME_NS);
    fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (b), 3);
    for (guint k = 0; k < 3; k++) {
      GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta_nth (b, k);
      const gint r = (gint) t + refs[k];

      fail_unless_equals_int (m->ref_distance, refs[k]);
      fail_unless (gst_buffer_get_motion_vector_meta_for_reference (b,
              refs[k]) == m);
      if (r < 0 || r >= (gint) n) {
        fail_unless (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
        fail_unless_equals_uint64 (m->ref_pts, GST_CLOCK_TIME_NONE);
      } else {
        gint mx = 0, my = 0;

        fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
        fail_unless_equals_uint64 (m->ref_pts, r * FRAME_NS);
        dominant_vector (m, &mx, &my);
        /* content moves 3 pixels left per frame: what a block shows is
         * 3 d pixels to its left in frame t + d (-12 d quarter pixels) */
        fail_unless_equals_int (mx, -12 * refs[k]);
        fail_unless_equals_int (my, 0);
      }
    }
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The default is the previous frame alone, one field, as before. */
GST_START_TEST (test_default_one_field)
{
  GstHarness *h = gst_harness_new ("gpumotionest");
  gchar *refs = NULL;

  g_object_get (h->element, "references", &refs, NULL);
  fail_unless_equals_string (refs, "-1");
  g_free (refs);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=64,"
      "height=48,framerate=30/1");
  for (guint i = 0; i < 3; i++) {
    GstBuffer *b;

    fail_unless_equals_int (gst_harness_push (h, make_frame (i)),
        GST_FLOW_OK);
    b = gst_harness_pull (h);
    fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (b), 1);
    fail_unless_equals_int (gst_buffer_get_motion_vector_meta (b)->ref_distance,
        -1);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A future reference of +2 holds two frames: the latency query says so,
 * and a DISCONT buffer first finishes the frames held, against the
 * references they have. */
GST_START_TEST (test_future_latency_and_discont)
{
  GstHarness *h = open_harness ("+2");
  GstBuffer *b;

  /* the first frame opens the backend, whose depth the latency counts;
   * the CPU backend keeps one frame in flight, so the latency is the two
   * future frames' */
  fail_unless_equals_int (gst_harness_push (h, make_frame (0)), GST_FLOW_OK);
  fail_unless_equals_uint64 (gst_harness_query_latency (h), 2 * FRAME_NS);

  fail_unless_equals_int (gst_harness_push (h, make_frame (1)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  fail_unless_equals_int (gst_harness_push (h, make_frame (2)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  b = make_frame (3);
  GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  /* frames 1 and 2 left (2 without its reference), frame 3 waits */
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  for (guint t = 0; t < 3; t++) {
    GstMotionVectorMeta *m;

    b = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), t * FRAME_NS);
    m = gst_buffer_get_motion_vector_meta (b);
    fail_unless_equals_int (m->ref_distance, 2);
    fail_unless_equals_int (! !(m->flags &
            GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE), t != 0);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Lists that cannot be searched are an error naming the problem, at the
 * first frame; the buffer is not passed on searched against another
 * list. */
GST_START_TEST (test_invalid_lists)
{
  static const struct {
    const gchar *list, *says;
  } bad[] = {
    {"0", "not searched against itself"},
    {"-1,-1", "listed twice"},
    {"-9", "out of reach"},
    {"+5", "out of reach"},
    {"-1,x", "not a frame distance"},
    {"-1,,-2", "empty item"},
    {"", "empty"},
    {"-1,-2,-3,-4,-5,-6,-7,-8,+1", "more than 8"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstHarness *h = open_harness (bad[i].list);
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    GError *err = NULL;

    gst_element_set_bus (h->element, bus);
    fail_unless_equals_int (gst_harness_push (h, make_frame (0)),
        GST_FLOW_ERROR);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "no error for \"%s\"", bad[i].list);
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (strstr (err->message, bad[i].says) != NULL,
        "\"%s\": %s", bad[i].list, err->message);
    g_error_free (err);
    gst_message_unref (msg);
    fail_unless_equals_int (gst_harness_buffers_received (h), 0);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A new list while streaming: the frames held are finished against the
 * old one, then the new one starts without references. */
GST_START_TEST (test_change_list)
{
  GstHarness *h = open_harness ("+1");
  GstBuffer *b;

  for (guint i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i)),
        GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 2);
  g_object_set (h->element, "references", "-1,-2", NULL);
  fail_unless_equals_int (gst_harness_push (h, make_frame (3)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, make_frame (4)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 5);
  for (guint t = 0; t < 5; t++) {
    b = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), t * FRAME_NS);
    if (t < 3) {
      fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (b), 1);
      fail_unless_equals_int (gst_buffer_get_motion_vector_meta (b)->flags &
          GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE, t == 2 ?
          GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE : 0);
    } else {
      GstMotionVectorMeta *m1, *m2;

      fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (b), 2);
      m1 = gst_buffer_get_motion_vector_meta_for_reference (b, -1);
      m2 = gst_buffer_get_motion_vector_meta_for_reference (b, -2);
      fail_unless (m1 && m2);
      /* frame 3 is the first of the new list: nothing before it */
      fail_unless_equals_int (! !(m1->flags &
              GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE), t == 3);
      fail_unless (m2->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
    }
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
references_suite (void)
{
  Suite *s = suite_create ("references");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fields_per_reference);
  tcase_add_test (tc, test_default_one_field);
  tcase_add_test (tc, test_future_latency_and_discont);
  tcase_add_test (tc, test_invalid_lists);
  tcase_add_test (tc, test_change_list);
  return s;
}

GST_CHECK_MAIN (references);
