/* gpumotionest — encoder hints and motion messages through the element
 * (docs/encoder-hints.md), with GstHarness and the CPU backend.
 *
 * Frames are 128x96 GRAY8 crops of a random "world": a static background
 * (one crop) and a 32x32 textured square from elsewhere in the world,
 * pasted on whole macroblocks.  Random texture makes every static block
 * match with cost 0, every moved block match only at its true offset, and
 * every block that the square uncovers match nowhere (unmatched, so not
 * moving), so the summary's moving macroblocks are exactly the square's.
 * A cut is a crop from elsewhere: every block costs far above the level
 * before it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "testworld.h"

#define WORLD 1024
#define W 128
#define H 96
#define SQ 32
#define FRAME (40 * GST_MSECOND)        /* 25 frames/s */
#define NO_SQUARE G_MAXUINT

static guint8 *world;

static void
world_setup (void)
{
  world = test_world_new (WORLD, WORLD, 4321);
}

static void
world_teardown (void)
{
  g_clear_pointer (&world, g_free);
}

/* Frame i: the world seen from (ox, oy), the square (the world at
 * (600, 600)) at (sx, sy) unless sx is NO_SQUARE. */
static GstBuffer *
make_frame (guint i, guint ox, guint oy, guint sx, guint sy)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, W * H, NULL);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (guint y = 0; y < H; y++)
    memcpy (map.data + y * W, world + (gsize) (oy + y) * WORLD + ox, W);
  if (sx != NO_SQUARE)
    for (guint y = 0; y < SQ; y++)
      memcpy (map.data + (sy + y) * W + sx,
          world + (gsize) (600 + y) * WORLD + 600, SQ);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = i * FRAME;
  GST_BUFFER_DURATION (buf) = FRAME;
  return buf;
}

static GstHarness *
harness_new (guint in_flight)
{
  GstHarness *h = gst_harness_new ("gpumotionest");

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  g_object_set (h->element, "search-range", 32, "in-flight", in_flight, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=128,"
      "height=96,framerate=25/1");
  return h;
}

static GstBuffer *
push_pull_frame (GstHarness * h, GstBuffer * in)
{
  GstBuffer *out;

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  return out;
}

static GstBus *
harness_bus (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  return bus;
}

/* A message holds its element, which holds the bus. */
static void
release_bus (GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

/* What reaches the harness, in order: "B<i>" for the buffer of frame i,
 * "K<i>" for a force-key-unit event at frame i's timestamp, "E" for EOS;
 * other events are not listed. */
static GstPadProbeReturn
record (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GString *seq = user_data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
    g_string_append_printf (seq, "B%u ", (guint) (GST_BUFFER_PTS (b) / FRAME));
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *e = GST_PAD_PROBE_INFO_EVENT (info);

    if (gst_video_event_is_force_key_unit (e)) {
      GstClockTime ts, stream_time, running_time;
      gboolean all_headers;
      guint count;

      fail_unless (gst_video_event_parse_downstream_force_key_unit (e, &ts,
              &stream_time, &running_time, &all_headers, &count));
      /* the segment starts at 0: all three times are the frame's */
      fail_unless_equals_uint64 (stream_time, ts);
      fail_unless_equals_uint64 (running_time, ts);
      fail_unless (all_headers);
      g_string_append_printf (seq, "K%u(%u) ", (guint) (ts / FRAME), count);
    } else if (GST_EVENT_TYPE (e) == GST_EVENT_EOS) {
      g_string_append (seq, "E");
    }
  }
  return GST_PAD_PROBE_OK;
}

/* Scene A (the square moving right by 16 pixels a frame) for frames 0..4,
 * a cut to scene B at 5, scene B with the square moving for 6..9; with
 * frames in flight at every depth, the event must come right before the
 * cut's buffer and nowhere else. */
static gchar *
run_cut_clip (GstHarness * h)
{
  GString *seq = g_string_new (NULL);

  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER
      | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, record, seq, NULL);
  for (guint i = 0; i < 10; i++) {
    const guint ox = i < 5 ? 0 : 500, oy = i < 5 ? 0 : 300;
    const guint sx = 16 * (i < 5 ? i : i - 5);

    fail_unless_equals_int (gst_harness_push (h, make_frame (i, ox, oy, sx,
                32)), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  return g_string_free (seq, FALSE);
}

GST_START_TEST (test_key_unit_before_cut)
{
  /* at 8 the cut is still in flight at EOS, collected with the frames
   * around it in one drain */
  static const guint depths[] = { 1, 2, 4, 8 };

  for (guint d = 0; d < G_N_ELEMENTS (depths); d++) {
    GstHarness *h = harness_new (depths[d]);
    GstBus *bus = harness_bus (h);
    GstMessage *msg;
    const GstStructure *s;
    gchar *seq;
    guint64 ts;
    guint count;
    gdouble score;

    g_object_set (h->element, "keyframe-on-cut", TRUE, NULL);
    seq = run_cut_clip (h);
    fail_unless_equals_string (seq,
        "B0 B1 B2 B3 B4 K5(1) B5 B6 B7 B8 B9 E");
    g_free (seq);

    /* one "scene-cut" message, for frame 5 */
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
    fail_unless (msg != NULL);
    s = gst_message_get_structure (msg);
    fail_unless (gst_structure_has_name (s, "scene-cut"));
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    fail_unless_equals_uint64 (ts, 5 * FRAME);
    fail_unless (gst_structure_get_uint64 (s, "running-time", &ts));
    fail_unless_equals_uint64 (ts, 5 * FRAME);
    fail_unless (gst_structure_get_uint (s, "count", &count));
    fail_unless_equals_int (count, 1);
    fail_unless (gst_structure_get_double (s, "score", &score));
    fail_unless (score >= GST_MOTION_VECTOR_SUMMARY_SCENE_CHANGE_THRESHOLD);
    gst_message_unref (msg);
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL);

    release_bus (bus);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The threshold decides: above the cut's score, no event. */
GST_START_TEST (test_key_unit_threshold)
{
  GstHarness *h = harness_new (2);
  gchar *seq;

  g_object_set (h->element, "keyframe-on-cut", TRUE, "cut-threshold", 100.0,
      NULL);
  seq = run_cut_clip (h);
  fail_unless_equals_string (seq, "B0 B1 B2 B3 B4 B5 B6 B7 B8 B9 E");
  g_free (seq);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gboolean
has_roi (GstBuffer * buf, gpointer * state)
{
  return gst_buffer_iterate_meta_filtered (buf, state,
      GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) != NULL;
}

/* Defaults: the cut clip and the moving square give no event, no ROI
 * meta and no message. */
GST_START_TEST (test_defaults_add_nothing)
{
  GstHarness *h = harness_new (3);
  GstBus *bus = harness_bus (h);
  GstBuffer *out;
  gchar *seq;

  seq = run_cut_clip (h);
  fail_unless_equals_string (seq, "B0 B1 B2 B3 B4 B5 B6 B7 B8 B9 E");
  g_free (seq);
  while ((out = gst_harness_try_pull (h))) {
    gpointer state = NULL;

    fail_unless (gst_buffer_get_motion_vector_meta (out) != NULL);
    fail_if (has_roi (out, &state));
    gst_buffer_unref (out);
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL);
  release_bus (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
check_param_int (GstVideoRegionOfInterestMeta * roi, const gchar * name,
    gint want)
{
  GstStructure *s = gst_video_region_of_interest_meta_get_param (roi, name);
  gint v;

  fail_unless (s != NULL, "no %s", name);
  fail_unless (gst_structure_get_int (s, "delta-qp", &v));
  fail_unless_equals_int (v, want);
}

/* The square moves right by 16 pixels a frame on a static background:
 * the ROI is the square's 32x32 pixels in the frame, with our parameters
 * and the encoders' delta QP; an upstream ROI meta stays. */
GST_START_TEST (test_roi_moving_square)
{
  GstHarness *h = harness_new (2);

  g_object_set (h->element, "roi", TRUE, "roi-delta-qp", -6, NULL);
  for (guint i = 0; i < 5; i++) {
    GstBuffer *in = make_frame (i, 0, 0, 16 + 16 * i, 48);

    gst_buffer_add_video_region_of_interest_meta (in, "face", 1, 2, 3, 4);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  for (guint i = 0; i < 5; i++) {
    GstBuffer *out = gst_harness_pull (h);
    GstVideoRegionOfInterestMeta *roi, *face = NULL, *motion = NULL;
    gpointer state = NULL;
    guint n = 0;

    fail_unless (out != NULL);
    while ((roi = (GstVideoRegionOfInterestMeta *)
            gst_buffer_iterate_meta_filtered (out, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      n++;
      if (roi->roi_type == g_quark_from_string ("face"))
        face = roi;
      else if (roi->roi_type == g_quark_from_string ("motion"))
        motion = roi;
    }
    fail_unless (face != NULL);
    fail_unless_equals_int (face->x, 1);
    fail_unless_equals_int (face->w, 3);
    if (i == 0) {
      /* no reference: nothing moves */
      fail_unless_equals_int (n, 1);
    } else {
      GstStructure *s;
      guint blocks;
      gdouble share, speed;

      fail_unless_equals_int (n, 2);
      fail_unless (motion != NULL);
      fail_unless_equals_int (motion->x, 16 + 16 * i);
      fail_unless_equals_int (motion->y, 48);
      fail_unless_equals_int (motion->w, SQ);
      fail_unless_equals_int (motion->h, SQ);
      fail_unless_equals_int (motion->id, 0);
      s = gst_video_region_of_interest_meta_get_param (motion,
          "roi/gpumotionest");
      fail_unless (s != NULL);
      fail_unless (gst_structure_get_uint (s, "moving-blocks", &blocks));
      fail_unless_equals_int (blocks, 4);
      fail_unless (gst_structure_get_double (s, "moving-share", &share));
      fail_unless_equals_float (share, 1.0);
      /* 16 pixels a frame, the background still */
      fail_unless (gst_structure_get_double (s, "mean-speed", &speed));
      fail_unless_equals_float (speed, 16.0);
      check_param_int (motion, "roi/vaapi", -6);
      check_param_int (motion, "roi/msdk", -6);
    }
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Motion metas of frames 1..4 of the moving square (a speed of 64
 * quarter pixels a frame) under roi-threshold. */
static guint
count_motion_rois (guint threshold)
{
  GstHarness *h = harness_new (1);
  guint n = 0;

  g_object_set (h->element, "roi", TRUE, "roi-threshold", threshold, NULL);
  for (guint i = 0; i < 5; i++) {
    GstBuffer *out = push_pull_frame (h, make_frame (i, 0, 0, 16 + 16 * i,
            48));
    GstVideoRegionOfInterestMeta *roi;
    gpointer state = NULL;

    while ((roi = (GstVideoRegionOfInterestMeta *)
            gst_buffer_iterate_meta_filtered (out, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      fail_unless (roi->roi_type == g_quark_from_string ("motion"));
      fail_unless_equals_int (roi->x, 16 + 16 * i);
      n++;
    }
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  return n;
}

/* A macroblock counts when its own speed is above the threshold. */
GST_START_TEST (test_roi_threshold)
{
  fail_unless_equals_int (count_motion_rois (0), 4);
  fail_unless_equals_int (count_motion_rois (63), 4);
  fail_unless_equals_int (count_motion_rois (64), 0);
}

GST_END_TEST;

/* The messages of a clip, as "<event>@<frame>" in order. */
static gchar *
motion_messages (GstBus * bus, GPtrArray * keep)
{
  GString *seq = g_string_new (NULL);
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);
    guint64 ts;

    fail_unless (gst_structure_has_name (s, "motion"));
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    g_string_append_printf (seq, "%s%s@%u", seq->len ? " " : "",
        gst_structure_get_string (s, "event"), (guint) (ts / FRAME));
    g_ptr_array_add (keep, gst_structure_copy (s));
    gst_message_unref (msg);
  }
  return g_string_free (seq, FALSE);
}

/* The square (x 48, row 32) jumps once at frame 2 (one frame of motion:
 * noise, no message), then moves back and forth by 16 pixels in frames
 * 4..13, then stays.  With a 100 ms interval at 40 ms a frame: begin at
 * the second moving frame (5; motion_begin 4), updates at 8 and 11 (not
 * 100 ms after the one before at 6, 7, 9, 10, 12, 13), finished at the
 * first frame 100 ms after the last motion (13): 16. */
GST_START_TEST (test_motion_messages)
{
  GstHarness *h = harness_new (3);
  GstBus *bus = harness_bus (h);
  GPtrArray *msgs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  const GValue *regions;
  const GstStructure *r;
  guint64 t;
  gdouble share;
  gint v;
  gchar *seq;

  g_object_set (h->element, "motion-events", TRUE, "motion-event-interval",
      100 * GST_MSECOND, NULL);
  for (guint i = 0; i < 24; i++) {
    guint x = i < 2 ? 32 : 48;

    if (i >= 4 && i <= 13)
      x = 48 - 16 * ((i - 3) % 2);
    fail_unless_equals_int (gst_harness_push (h, make_frame (i, 0, 0, x, 32)),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  seq = motion_messages (bus, msgs);
  fail_unless_equals_string (seq,
      "begin@5 update@8 update@11 finished@16");
  g_free (seq);

  /* begin: when the motion started, the frame's share and regions */
  fail_unless (gst_structure_get_uint64 (msgs->pdata[0], "motion_begin", &t));
  fail_unless_equals_uint64 (t, 4 * FRAME);
  fail_unless (gst_structure_get_uint64 (msgs->pdata[0], "running-time", &t));
  fail_unless_equals_uint64 (t, 5 * FRAME);
  fail_unless (gst_structure_get_double (msgs->pdata[0], "moving-share",
          &share));
  fail_unless_equals_float (share, 4.0 / 48);
  /* frame 5: the square back at 48 */
  regions = gst_structure_get_value (msgs->pdata[0], "regions");
  fail_unless_equals_int (gst_value_array_get_size (regions), 1);
  r = gst_value_get_structure (gst_value_array_get_value (regions, 0));
  fail_unless (gst_structure_get_int (r, "x", &v) && v == 48);
  fail_unless (gst_structure_get_int (r, "y", &v) && v == 32);
  fail_unless (gst_structure_get_int (r, "w", &v) && v == SQ);
  fail_unless (gst_structure_get_int (r, "h", &v) && v == SQ);
  /* frame 8: (8 - 3) odd, the square at 32 */
  regions = gst_structure_get_value (msgs->pdata[1], "regions");
  r = gst_value_get_structure (gst_value_array_get_value (regions, 0));
  fail_unless (gst_structure_get_int (r, "x", &v) && v == 32);
  /* finished: the last motion, no region */
  fail_unless (gst_structure_get_uint64 (msgs->pdata[3], "motion_finished",
          &t));
  fail_unless_equals_uint64 (t, 13 * FRAME);
  regions = gst_structure_get_value (msgs->pdata[3], "regions");
  fail_unless_equals_int (gst_value_array_get_size (regions), 0);

  g_ptr_array_unref (msgs);
  release_bus (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Motion still going on at EOS is finished there, at the last frame. */
GST_START_TEST (test_motion_finished_at_eos)
{
  GstHarness *h = harness_new (2);
  GstBus *bus = harness_bus (h);
  GPtrArray *msgs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  guint64 t;
  gchar *seq;

  g_object_set (h->element, "motion-events", TRUE, "motion-event-interval",
      GST_SECOND, NULL);
  for (guint i = 0; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i, 0, 0,
                16 * i, 32)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  seq = motion_messages (bus, msgs);
  fail_unless_equals_string (seq, "begin@2 finished@5");
  g_free (seq);
  fail_unless (gst_structure_get_uint64 (msgs->pdata[1], "motion_finished",
          &t));
  fail_unless_equals_uint64 (t, 5 * FRAME);

  g_ptr_array_unref (msgs);
  release_bus (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flush ends the motion going on: finished at the last frame before
 * it, and the next stream starts afresh. */
GST_START_TEST (test_motion_finished_at_flush)
{
  GstHarness *h = harness_new (2);
  GstBus *bus = harness_bus (h);
  GPtrArray *msgs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstSegment segment;
  guint64 t;
  gchar *seq;

  g_object_set (h->element, "motion-events", TRUE, NULL);
  for (guint i = 0; i < 4; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i, 0, 0,
                16 * i, 32)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  /* frames 0..2 left before the flush; 3 was in flight and dropped */
  seq = motion_messages (bus, msgs);
  fail_unless_equals_string (seq, "begin@2 finished@2");
  g_free (seq);
  fail_unless (gst_structure_get_uint64 (msgs->pdata[1], "motion_finished",
          &t));
  fail_unless_equals_uint64 (t, 2 * FRAME);

  /* the same motion again from 0: a new begin at its second frame */
  for (guint i = 0; i < 4; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i, 0, 0,
                16 * i, 32)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  seq = motion_messages (bus, msgs);
  fail_unless_equals_string (seq, "begin@2 finished@3");
  g_free (seq);

  g_ptr_array_unref (msgs);
  release_bus (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* x264enc behind the element, end to end (docs/encoder-hints.md, "Known
 * problem: GStreamer before 1.26.1 and x264enc").  90 I420 frames of three
 * panned scenes with cuts at 30 and 55; the element forces a key unit at
 * each, and the H.264 stream's key frames are listed.
 *
 * GstVideoEncoder before 1.26.1 matched a request with
 * the frame's time in its output segment, which it learns only when the
 * encoder gives out its first frame; x264enc delays its timestamps by 1000
 * hours (gst_video_encoder_set_min_pts), so a request taken before then is
 * recorded as granted 1000 hours late, and every later request looks
 * granted already.  At x264enc's default preset (a lookahead of 40 frames)
 * the cut at 30 comes before the first output: the key frame at 55 is lost
 * there.  With tune=zerolatency the encoder gives out each frame as it
 * takes it, and every cut gets its key frame on any version. */

#define X264_FRAMES 90
#define X264_W 128
#define X264_H 96

/* Frame i of three scenes, each a different place in the world panned by 4
 * pixels a frame, cut at 30 and 55. */
static GstBuffer *
make_i420_frame (guint i)
{
  const guint y_size = X264_W * X264_H, c_size = y_size / 4;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, y_size + 2 * c_size, NULL);
  guint ox, oy;
  GstMapInfo map;

  if (i < 30)
    ox = 4 * i, oy = 0;
  else if (i < 55)
    ox = 500 + 4 * (i - 30), oy = 300;
  else
    ox = 100 + 4 * (i - 55), oy = 700;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (guint y = 0; y < X264_H; y++)
    memcpy (map.data + y * X264_W, world + (gsize) (oy + y) * WORLD + ox,
        X264_W);
  memset (map.data + y_size, 128, 2 * c_size);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = i * FRAME;
  GST_BUFFER_DURATION (buf) = FRAME;
  return buf;
}

/* Force-key-unit events reaching the encoder: "K<frame>(<count>) ". */
static GstPadProbeReturn
record_key_units (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstEvent *e = GST_PAD_PROBE_INFO_EVENT (info);
  GstClockTime ts, stream_time, running_time;
  gboolean all_headers;
  guint count;

  if (gst_video_event_is_force_key_unit (e)) {
    fail_unless (gst_video_event_parse_downstream_force_key_unit (e, &ts,
            &stream_time, &running_time, &all_headers, &count));
    fail_unless_equals_uint64 (running_time, ts);
    fail_unless (all_headers);
    g_string_append_printf (user_data, "K%u(%u) ", (guint) (ts / FRAME),
        count);
  }
  return GST_PAD_PROBE_OK;
}

static gint
compare_times (gconstpointer a, gconstpointer b)
{
  const GstClockTime x = *(const GstClockTime *) a, y = *(const GstClockTime *) b;

  return x < y ? -1 : x > y;
}

/* The clip through the element and x264enc with OPTIONS; returns the key
 * frames of the stream, "0 30 55" (display order, numbered from 0), and
 * checks the events that reached the encoder. */
static gchar *
x264_key_frames (const gchar * options)
{
  gchar *desc = g_strdup_printf ("gpumotionest backend=cpu search-range=32 "
      "keyframe-on-cut=true ! x264enc name=enc key-int-max=100000 "
      "option-string=scenecut=0 %s", options);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *enc = gst_bin_get_by_name (GST_BIN (h->element), "enc");
  GstPad *enc_sink = gst_element_get_static_pad (enc, "sink");
  GString *events = g_string_new (NULL);
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  GArray *keys = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  GstClockTime first = GST_CLOCK_TIME_NONE;
  GString *list = g_string_new (NULL);
  GstBuffer *out;

  gst_pad_add_probe (enc_sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      record_key_units, events, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=128,"
      "height=96,framerate=25/1");
  for (guint i = 0; i < X264_FRAMES; i++)
    fail_unless_equals_int (gst_harness_push (h, make_i420_frame (i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  /* the element forced exactly the two cuts */
  fail_unless_equals_string (events->str, "K30(1) K55(2) ");

  /* x264enc's timestamps carry its offset: count from the smallest */
  while ((out = gst_harness_try_pull (h))) {
    GstClockTime t = GST_BUFFER_PTS (out);

    fail_unless (GST_CLOCK_TIME_IS_VALID (t));
    g_array_append_val (pts, t);
    if (!GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DELTA_UNIT))
      g_array_append_val (keys, t);
    first = MIN (first, t);
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (pts->len, X264_FRAMES);
  g_array_sort (keys, compare_times);
  for (guint k = 0; k < keys->len; k++)
    g_string_append_printf (list, "%s%u", k ? " " : "",
        (guint) ((g_array_index (keys, GstClockTime, k) - first) / FRAME));

  g_array_free (pts, TRUE);
  g_array_free (keys, TRUE);
  g_string_free (events, TRUE);
  gst_object_unref (enc_sink);
  gst_object_unref (enc);
  gst_harness_teardown (h);
  g_free (desc);
  return g_string_free (list, FALSE);
}

/* Whether GstVideoEncoder has the fix: the version of plugins-base (the
 * plugin that carries videotestsrc) at least 1.26.1, the first release
 * whose notes list it.  FALSE when it cannot tell (a 1.24 bug-fix release
 * may carry it too; it is then held to the weaker check). */
static gboolean
video_encoder_has_key_unit_fix (void)
{
  GstPluginFeature *f =
      gst_registry_lookup_feature (gst_registry_get (), "videotestsrc");
  GstPlugin *plugin = f ? gst_plugin_feature_get_plugin (f) : NULL;
  guint major = 0, minor = 0, micro = 0;
  gboolean fixed = FALSE;

  if (plugin && sscanf (gst_plugin_get_version (plugin), "%u.%u.%u", &major,
          &minor, &micro) == 3)
    fixed = major > 1 || (major == 1 && (minor > 26
            || (minor == 26 && micro >= 1)));
  g_clear_object (&plugin);
  g_clear_object (&f);
  return fixed;
}

GST_START_TEST (test_x264enc_key_units)
{
  gchar *keys;

  /* the documented workaround: every cut, on every version */
  keys = x264_key_frames ("tune=zerolatency");
  fail_unless_equals_string (keys, "0 30 55");
  g_free (keys);

  /* the encoder's defaults: every cut once GstVideoEncoder has the fix;
   * before it, the first cut and then either the documented loss (55
   * missing) or, where a distribution patched the library without
   * changing its version, every cut; never a key frame elsewhere */
  keys = x264_key_frames ("");
  if (video_encoder_has_key_unit_fix ()) {
    fail_unless_equals_string (keys, "0 30 55");
  } else {
    fail_unless (g_str_equal (keys, "0 30") || g_str_equal (keys, "0 30 55"),
        "key frames %s", keys);
    g_print ("x264enc defaults, GstVideoEncoder before the fix: key frames "
        "%s (%s)\n", keys, g_str_equal (keys, "0 30") ? "the cut at 55 lost, "
        "as documented" : "every cut: the library has the fix");
  }
  g_free (keys);
}

GST_END_TEST;

static Suite *
encoder_hints_suite (void)
{
  Suite *s = suite_create ("encoder-hints");
  TCase *tc = tcase_create ("general");

  tcase_add_unchecked_fixture (tc, world_setup, world_teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_key_unit_before_cut);
  tcase_add_test (tc, test_key_unit_threshold);
  tcase_add_test (tc, test_defaults_add_nothing);
  tcase_add_test (tc, test_roi_moving_square);
  tcase_add_test (tc, test_roi_threshold);
  tcase_add_test (tc, test_motion_messages);
  tcase_add_test (tc, test_motion_finished_at_eos);
  tcase_add_test (tc, test_motion_finished_at_flush);

  /* x264enc comes with gst-plugins-ugly, which a build need not have */
  if (gst_registry_check_feature_version (gst_registry_get (), "x264enc", 1,
          0, 0))
    tcase_add_test (tc, test_x264enc_key_units);
  else
    g_print ("x264enc not found: test_x264enc_key_units not run\n");
  return s;
}

GST_CHECK_MAIN (encoder_hints);
