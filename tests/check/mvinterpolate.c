/* gst-check tests of mvinterpolate: motion-compensated frame-rate
 * conversion behind gpumotionest references=-1,+1.
 *
 * Input frames are a smooth random texture (bilinear value noise on a
 * 4-pixel lattice) panning right by PAN luma pixels a frame, so every
 * expected sample follows from the geometry: frame i is tex (x - PAN i, y),
 * and the picture half way between frames i and i + 1 is
 * tex (x - PAN (i + 1/2), y).
 */
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#define W 160
#define H 128
#define PAN 8                   /* luma pixels a frame; chroma PAN / 2 */
#define MARGIN 32               /* border left out of the pan comparison */

static guint32
hash3 (gint x, gint y, guint seed)
{
  guint32 v = (guint32) x * 73856093u ^ (guint32) y * 19349663u
      ^ (seed + 1) * 83492791u;

  v ^= v >> 13;
  v *= 0x5bd1e995u;
  v ^= v >> 15;
  return v;
}

/* Value noise: lattice values every 4 pixels, bilinear in between, exact
 * in integers; defined for every integer x (negative too). */
static guint8
tex (gint x, gint y, guint seed)
{
  gint xi = x >> 2, yi = y >> 2, fx = x & 3, fy = y & 3;
  guint a = hash3 (xi, yi, seed) & 0xff, b = hash3 (xi + 1, yi, seed) & 0xff;
  guint c = hash3 (xi, yi + 1, seed) & 0xff;
  guint d = hash3 (xi + 1, yi + 1, seed) & 0xff;
  guint top = a * (4 - fx) + b * fx, bot = c * (4 - fx) + d * fx;

  return (top * (4 - fy) + bot * fy + 8) >> 4;
}

/* An I420 frame of the texture seen at luma shift @sx (chroma @sx / 2),
 * textures of @seed. */
static GstBuffer *
make_frame (gint sx, guint seed, GstClockTime pts, GstClockTime dur)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *buf;
  guint p;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, W, H);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
  for (p = 0; p < 3; p++) {
    guint8 *d = GST_VIDEO_FRAME_COMP_DATA (&f, p);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&f, p);
    gint pw = GST_VIDEO_FRAME_COMP_WIDTH (&f, p);
    gint ph = GST_VIDEO_FRAME_COMP_HEIGHT (&f, p);
    gint s = p ? sx / 2 : sx, x, y;

    for (y = 0; y < ph; y++)
      for (x = 0; x < pw; x++)
        d[y * stride + x] = tex (x - s, y, seed * 3 + p);
  }
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = dur;
  return buf;
}

static GstClockTime
frame_time (guint64 i, gint n, gint d)
{
  return gst_util_uint64_scale (i, (guint64) d * GST_SECOND, n);
}

static GstHarness *
make_harness (const gchar * launch, gint in_n, gint in_d, gint out_n,
    gint out_d)
{
  GstHarness *h = gst_harness_new_parse (launch);
  gchar *s;

  s = g_strdup_printf ("video/x-raw, framerate=%d/%d", out_n, out_d);
  gst_harness_set_sink_caps_str (h, s);
  g_free (s);
  s = g_strdup_printf ("video/x-raw, format=I420, width=%d, height=%d, "
      "framerate=%d/%d", W, H, in_n, in_d);
  gst_harness_set_src_caps_str (h, s);
  g_free (s);
  return h;
}

/* Pushes input frames @first .. @first + @n - 1 of a pan at in_n/in_d,
 * the texture of @seed, plus @offset on every timestamp. */
static void
push_pan (GstHarness * h, guint first, guint n, gint in_n, gint in_d,
    GstClockTime offset)
{
  guint i;

  for (i = first; i < first + n; i++) {
    GstClockTime t0 = frame_time (i, in_n, in_d);
    GstClockTime t1 = frame_time (i + 1, in_n, in_d);

    fail_unless_equals_int (gst_harness_push (h,
            make_frame (PAN * (gint) i, 0, offset + t0, t1 - t0)),
        GST_FLOW_OK);
  }
}

static gboolean
frames_equal (GstBuffer * a, GstBuffer * b)
{
  GstVideoInfo info;
  GstVideoFrame fa, fb;
  gboolean eq = TRUE;
  guint p;
  gint y;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, W, H);
  fail_unless (gst_video_frame_map (&fa, &info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &info, b, GST_MAP_READ));
  for (p = 0; p < 3 && eq; p++)
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, p) && eq; y++)
      eq = memcmp ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fa, p)
          + y * GST_VIDEO_FRAME_COMP_STRIDE (&fa, p),
          (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fb, p)
          + y * GST_VIDEO_FRAME_COMP_STRIDE (&fb, p),
          GST_VIDEO_FRAME_COMP_WIDTH (&fa, p)) == 0;
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return eq;
}

/* Runs @n_in frames of the pan at in -> out and checks the output: the
 * exact count, each timestamp and duration from its index, and every
 * output frame that lands on an input frame's time equal to it. */
static void
check_rate (gint in_n, gint in_d, gint out_n, gint out_d, guint n_in,
    guint expect_out)
{
  GstHarness *h = make_harness ("gpumotionest backend=cpu references=-1,+1 ! "
      "mvinterpolate backend=cpu", in_n, in_d, out_n, out_d);
  guint k = 0, on_input = 0;
  GstBuffer *out;

  push_pan (h, 0, n_in, in_n, in_d, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  while ((out = gst_harness_try_pull (h))) {
    GstClockTime t = frame_time (k, out_n, out_d);
    guint i;

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), t);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out),
        frame_time (k + 1, out_n, out_d) - t);
    fail_unless (gst_buffer_get_motion_vector_meta (out) == NULL);
    for (i = 0; i < n_in; i++) {
      if (frame_time (i, in_n, in_d) == t) {
        GstBuffer *in = make_frame (PAN * (gint) i, 0, t, 0);

        fail_unless (frames_equal (out, in), "output %u (t = 0 on input %u) "
            "differs from its input", k, i);
        gst_buffer_unref (in);
        on_input++;
      }
    }
    gst_buffer_unref (out);
    k++;
  }
  fail_unless_equals_int (k, expect_out);
  /* the common times: every input frame when out is a multiple of in */
  fail_unless (on_input > 0);
  gst_harness_teardown (h);
}

GST_START_TEST (test_rate_25_50)
{
  /* 10 frames of 40 ms: 400 ms at 20 ms, every other one an input */
  check_rate (25, 1, 50, 1, 10, 20);
}

GST_END_TEST;

GST_START_TEST (test_rate_30_60)
{
  check_rate (30, 1, 60, 1, 10, 20);
}

GST_END_TEST;

GST_START_TEST (test_rate_24_60)
{
  /* 12 frames = 500 ms; 60/1 gives 30 frames, every fifth on an even
   * input frame (t = 0), the others at t = 2/5, 4/5, 1/5, 3/5 */
  check_rate (24, 1, 60, 1, 12, 30);
}

GST_END_TEST;

GST_START_TEST (test_rate_ntsc)
{
  /* 30000/1001 -> 60/1 over 10 frames: the outputs before the end of the
   * last frame, 10 * 1001/30000 s = 333.666 ms: k = 0 .. 20 */
  check_rate (30000, 1001, 60, 1, 10, 21);
}

GST_END_TEST;

/* The picture half way between frames 1 and 2 of the pan is the texture
 * shifted by 1.5 pans, exactly, away from the borders. */
GST_START_TEST (test_pan_half)
{
  GstHarness *h = make_harness ("gpumotionest backend=cpu references=-1,+1 ! "
      "mvinterpolate backend=cpu", 25, 1, 50, 1);
  GstBuffer *out = NULL, *expect;
  GstVideoInfo info;
  GstVideoFrame fo, fe;
  guint k, p, bad = 0;

  push_pan (h, 0, 5, 25, 1, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (k = 0; k <= 3; k++) {
    if (out)
      gst_buffer_unref (out);
    out = gst_harness_pull (h);
  }
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 60 * GST_MSECOND);
  expect = make_frame (PAN * 3 / 2, 0, 0, 0);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, W, H);
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fe, &info, expect, GST_MAP_READ));
  for (p = 0; p < 3; p++) {
    gint m = p ? MARGIN / 2 : MARGIN, x, y;
    const guint8 *a = GST_VIDEO_FRAME_COMP_DATA (&fo, p);
    const guint8 *b = GST_VIDEO_FRAME_COMP_DATA (&fe, p);
    gint sa = GST_VIDEO_FRAME_COMP_STRIDE (&fo, p);
    gint sb = GST_VIDEO_FRAME_COMP_STRIDE (&fe, p);

    for (y = m; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fo, p) - m; y++)
      for (x = m; x < GST_VIDEO_FRAME_COMP_WIDTH (&fo, p) - m; x++)
        bad += a[y * sa + x] != b[y * sb + x];
  }
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fe);
  fail_unless_equals_int (bad, 0);

  /* and it is no copy of either input */
  gst_buffer_unref (expect);
  expect = make_frame (PAN, 0, 0, 0);
  fail_if (frames_equal (out, expect));
  gst_buffer_unref (expect);
  expect = make_frame (2 * PAN, 0, 0, 0);
  fail_if (frames_equal (out, expect));
  gst_buffer_unref (expect);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pushes frames through @launch with a bus; returns the error text.  The
 * launches search on the CPU backend: it gives each frame out as it takes
 * the next, so the error comes back from the push that causes it (a GPU
 * backend holds several frames in flight, and the same bytes). */
static gchar *
error_of (const gchar * launch)
{
  GstHarness *h = make_harness (launch, 25, 1, 50, 1);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  GstFlowReturn ret = GST_FLOW_OK;
  gchar *text;
  guint i;

  gst_element_set_bus (h->element, bus);
  for (i = 0; i < 3 && ret == GST_FLOW_OK; i++)
    ret = gst_harness_push (h, make_frame (PAN * (gint) i, 0,
            frame_time (i, 25, 1), 40 * GST_MSECOND));
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return text;
}

GST_START_TEST (test_missing_references)
{
  /* only the past field (gpumotionest's default list) */
  gchar *text = error_of ("gpumotionest backend=cpu ! mvinterpolate");

  fail_unless (strstr (text, "references=-1,+1") != NULL, "%s", text);
  fail_unless (strstr (text, "ref_distance +1") != NULL, "%s", text);
  g_free (text);

  /* no field at all */
  text = error_of ("mvinterpolate");
  fail_unless (strstr (text, "references=-1,+1") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

/* The warnings a run of four frames posts: how many, and the first's text
 * (NULL if none). */
static guint
warnings_of (const gchar * launch, gchar ** first)
{
  GstHarness *h = make_harness (launch, 25, 1, 50, 1);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  guint i, n = 0;

  *first = NULL;
  gst_element_set_bus (h->element, bus);
  push_pan (h, 0, 4, 25, 1, 0);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    if (!*first) {
      GError *err = NULL;
      gst_message_parse_warning (msg, &err, NULL);
      *first = g_strdup (err->message);
      g_error_free (err);
    }
    gst_message_unref (msg);
    n++;
  }
  for (i = 0; i < 8 && gst_harness_buffers_in_queue (h) > 0; i++)
    gst_buffer_unref (gst_harness_pull (h));
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return n;
}

/* Fields without the summary: one warning naming summary=true, not one a
 * frame; with the summary, none. */
GST_START_TEST (test_no_summary_warning)
{
  gchar *text = NULL;

  fail_unless_equals_int (warnings_of ("gpumotionest backend=cpu "
          "references=-1,+1 ! mvinterpolate", &text), 1);
  fail_unless (text && strstr (text, "summary=true") != NULL, "%s", text);
  g_free (text);
  fail_unless_equals_int (warnings_of ("gpumotionest backend=cpu "
          "references=-1,+1 summary=true ! mvinterpolate", &text), 0);
  g_free (text);
}

GST_END_TEST;

/* The last frame has no successor: the output frames up to its end are
 * copies of it, then EOS. */
GST_START_TEST (test_eos)
{
  GstHarness *h = make_harness ("gpumotionest backend=cpu references=-1,+1 ! "
      "mvinterpolate backend=cpu", 25, 1, 60, 1);
  GstBuffer *out, *last = make_frame (2 * PAN, 0, 0, 0);
  GstEvent *ev;
  guint k = 0;

  push_pan (h, 0, 3, 25, 1, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* 120 ms at 60/1: k = 0 .. 7 */
  while ((out = gst_harness_try_pull (h))) {
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), frame_time (k, 60, 1));
    /* frame 2 starts at 80 ms: k = 5, 6, 7 (83.3, 100, 116.7 ms) */
    if (k >= 5)
      fail_unless (frames_equal (out, last), "output %u", k);
    else
      fail_if (frames_equal (out, last), "output %u", k);
    gst_buffer_unref (out);
    k++;
  }
  fail_unless_equals_int (k, 8);
  while ((ev = gst_harness_try_pull_event (h))) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
  fail_unless (ev != NULL, "no EOS downstream");
  gst_buffer_unref (last);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flushing seek drops the frame held: nothing of the old position
 * comes out after it, and the new segment's frames are counted from its
 * start. */
GST_START_TEST (test_flushing_seek)
{
  GstHarness *h = make_harness ("gpumotionest backend=cpu references=-1,+1 ! "
      "mvinterpolate backend=cpu", 25, 1, 50, 1);
  GstBuffer *out;
  GstSegment seg;
  guint k = 0, before = 0;

  push_pan (h, 0, 4, 25, 1, 0);
  while ((out = gst_harness_try_pull (h))) {
    fail_unless (GST_BUFFER_PTS (out) < 120 * GST_MSECOND);
    gst_buffer_unref (out);
    before++;
  }
  /* frames 0 .. 3 in: at most the pairs (0, 1), (1, 2) made so far */
  fail_unless (before <= 4);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = GST_SECOND;
  seg.time = GST_SECOND;
  seg.position = GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));

  push_pan (h, 25, 4, 25, 1, 0);  /* frames at 1.0 s .. 1.12 s */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((out = gst_harness_try_pull (h))) {
    GstClockTime t = GST_SECOND + frame_time (k, 50, 1);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), t);
    if (k == 0) {
      GstBuffer *in = make_frame (PAN * 25, 0, 0, 0);

      fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
      fail_unless (frames_equal (out, in));
      gst_buffer_unref (in);
    }
    gst_buffer_unref (out);
    k++;
  }
  /* 4 frames of 40 ms from 1 s: 8 at 50/1 */
  fail_unless_equals_int (k, 8);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A scene cut (gpumotionest summary=true flags it; the score needs the
 * frame before's summary, so the cut comes at the third frame): frames
 * a0, a1 (a pan), b2, b3 (another texture, panning), 25/1 -> 100/1. */
static void
run_cut (const gchar * cut_mode, GstBuffer * in[4], GstBuffer * out[16])
{
  gchar *launch = g_strdup_printf ("gpumotionest backend=cpu references=-1,+1 "
      "summary=true ! mvinterpolate backend=cpu cut-mode=%s", cut_mode);
  GstHarness *h = make_harness (launch, 25, 1, 100, 1);
  guint i, n = 0;

  for (i = 0; i < 4; i++) {
    in[i] = make_frame (PAN * (gint) (i & 1), i < 2 ? 0 : 7,
        frame_time (i, 25, 1), 40 * GST_MSECOND);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while (n < 16 && (out[n] = gst_harness_try_pull (h)))
    n++;
  fail_unless_equals_int (n, 16);
  fail_unless (gst_harness_try_pull (h) == NULL);
  g_free (launch);
  gst_harness_teardown (h);
}

static void
free_cut (GstBuffer * in[4], GstBuffer * out[16])
{
  guint i;

  for (i = 0; i < 4; i++)
    gst_buffer_unref (in[i]);
  for (i = 0; i < 16; i++)
    gst_buffer_unref (out[i]);
}

/* cut-mode=repeat: t < 1/2 is the frame before, from t = 1/2 the frame
 * after, exactly; the pairs around it are motion compensated. */
GST_START_TEST (test_scene_cut_repeat)
{
  GstBuffer *in[4], *out[16];

  run_cut ("repeat", in, out);
  fail_unless (frames_equal (out[4], in[1]));
  fail_unless (frames_equal (out[5], in[1]));
  fail_unless (frames_equal (out[6], in[2]));
  fail_unless (frames_equal (out[7], in[2]));
  fail_unless (frames_equal (out[8], in[2]));
  /* a0 -> a1 and b2 -> b3 are motion: t = 1/2 is neither side */
  fail_if (frames_equal (out[2], in[0]));
  fail_if (frames_equal (out[2], in[1]));
  fail_if (frames_equal (out[10], in[2]));
  fail_if (frames_equal (out[10], in[3]));
  free_cut (in, out);
}

GST_END_TEST;

/* cut-mode=blend: at t = 1/2 across the cut, each sample the rounded
 * mean of the two frames' (weights 32/64 everywhere). */
GST_START_TEST (test_scene_cut_blend)
{
  GstBuffer *in[4], *out[16];
  GstVideoInfo info;
  GstVideoFrame fo, fa, fb;
  guint p, bad = 0;

  run_cut ("blend", in, out);
  fail_unless (frames_equal (out[4], in[1]));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, W, H);
  fail_unless (gst_video_frame_map (&fo, &info, out[6], GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fa, &info, in[1], GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &info, in[2], GST_MAP_READ));
  for (p = 0; p < 3; p++) {
    gint x, y;

    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fo, p); y++)
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&fo, p); x++) {
        guint o = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fo, p))[y *
            GST_VIDEO_FRAME_COMP_STRIDE (&fo, p) + x];
        guint a = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fa, p))[y *
            GST_VIDEO_FRAME_COMP_STRIDE (&fa, p) + x];
        guint b = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fb, p))[y *
            GST_VIDEO_FRAME_COMP_STRIDE (&fb, p) + x];

        bad += o != (a + b + 1) / 2;
      }
  }
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  fail_unless_equals_int (bad, 0);
  free_cut (in, out);
}

GST_END_TEST;

/* Variable rate (0/1), frames without durations at irregular times:
 * every t from the timestamps, the last frame only where an output time
 * lands on it. */
GST_START_TEST (test_variable_rate)
{
  GstHarness *h = make_harness ("gpumotionest backend=cpu references=-1,+1 ! "
      "mvinterpolate backend=cpu", 0, 1, 50, 1);
  static const guint ms[] = { 0, 30, 70, 100 };
  GstBuffer *in[4], *out;
  guint i, k = 0;

  for (i = 0; i < 4; i++) {
    in[i] = make_frame (PAN * (gint) i, 0, ms[i] * GST_MSECOND,
        GST_CLOCK_TIME_NONE);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* 0, 20, 40, 60, 80 between the frames, 100 on the last one */
  while ((out = gst_harness_try_pull (h))) {
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * 20 * GST_MSECOND);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), 20 * GST_MSECOND);
    if (k == 0)
      fail_unless (frames_equal (out, in[0]));
    else if (k == 5)
      fail_unless (frames_equal (out, in[3]));
    else
      for (i = 0; i < 4; i++)
        fail_if (frames_equal (out, in[i]), "output %u is input %u", k, i);
    gst_buffer_unref (out);
    k++;
  }
  fail_unless_equals_int (k, 6);
  for (i = 0; i < 4; i++)
    gst_buffer_unref (in[i]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A gap: the frame before it is held to its end (copies), nothing is
 * made inside it, the frames after it start a new run. */
GST_START_TEST (test_gap)
{
  GstHarness *h = make_harness ("gpumotionest backend=cpu references=-1,+1 ! "
      "mvinterpolate backend=cpu", 25, 1, 50, 1);
  static const guint expect_ms[] = { 0, 20, 40, 60, 160, 180, 200, 220 };
  GstBuffer *out, *f1 = make_frame (PAN, 0, 0, 0);
  guint k = 0;

  push_pan (h, 0, 2, 25, 1, 0);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_gap (80 * GST_MSECOND, 80 * GST_MSECOND)));
  push_pan (h, 4, 2, 25, 1, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((out = gst_harness_try_pull (h))) {
    fail_unless (k < G_N_ELEMENTS (expect_ms));
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out),
        expect_ms[k] * GST_MSECOND);
    /* frame 1 (40 ms) held to its end before the gap: copies */
    if (k == 2 || k == 3)
      fail_unless (frames_equal (out, f1), "output %u", k);
    if (k == 4)
      fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
    gst_buffer_unref (out);
    k++;
  }
  fail_unless_equals_int (k, G_N_ELEMENTS (expect_ms));
  gst_buffer_unref (f1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* New input caps mid-stream: the frame held is drained with the old caps
 * (copies to its end), the stream goes on at the same output times. */
GST_START_TEST (test_caps_change)
{
  GstHarness *h = make_harness ("gpumotionest backend=cpu references=-1,+1 ! "
      "mvinterpolate backend=cpu", 25, 1, 50, 1);
  GstBuffer *out, *f1 = make_frame (PAN, 0, 0, 0);
  gchar *caps;
  guint k = 0, i;

  push_pan (h, 0, 2, 25, 1, 0);         /* 0 and 40 ms */
  caps = g_strdup_printf ("video/x-raw, format=I420, width=%d, height=%d, "
      "framerate=50/1", W, H);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  for (i = 0; i < 2; i++)               /* 80 and 100 ms, 20 ms each */
    fail_unless_equals_int (gst_harness_push (h, make_frame (PAN * 2,
                0, (80 + 20 * i) * GST_MSECOND, 20 * GST_MSECOND)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((out = gst_harness_try_pull (h))) {
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * 20 * GST_MSECOND);
    if (k == 2 || k == 3)
      fail_unless (frames_equal (out, f1), "output %u", k);
    gst_buffer_unref (out);
    k++;
  }
  fail_unless_equals_int (k, 6);
  gst_buffer_unref (f1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Every format gpumotionest takes in system memory is taken, semi-planar,
 * packed and RGB included; one it does not take is refused at caps. */
GST_START_TEST (test_caps)
{
  static const gchar *const taken[] = { "NV12", "NV21", "P010_10LE",
    "P012_LE", "P016_LE", "YUY2", "UYVY", "YVYU", "BGRx", "RGBA", "xRGB",
    "ABGR"
  };
  GstElement *e = gst_element_factory_make ("mvinterpolate", NULL);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *caps;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (taken); i++) {
    gchar *str = g_strdup_printf ("video/x-raw, format=%s, width=64, "
        "height=64, framerate=25/1", taken[i]);

    caps = gst_caps_from_string (str);
    fail_unless (gst_pad_query_accept_caps (sink, caps), "%s refused", str);
    gst_caps_unref (caps);
    g_free (str);
  }
  caps = gst_caps_from_string ("video/x-raw, format=v210, width=64, "
      "height=64, framerate=25/1");
  fail_if (gst_pad_query_accept_caps (sink, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("video/x-raw, format=I420, width=64, "
      "height=64, framerate=25/1");
  fail_unless (gst_pad_query_accept_caps (sink, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("video/x-raw, format=I420_10LE, width=64, "
      "height=64, framerate=0/1");
  fail_unless (gst_pad_query_accept_caps (sink, caps));
  gst_caps_unref (caps);
  gst_object_unref (sink);
  gst_object_unref (e);
}

GST_END_TEST;

/* ---- other layouts of the same pictures ------------------------------- */

/* The frame size of these tests: W x H, and an odd one (77 x 45: the last
 * pair of a 4:2:2 row half used, chroma rounded up). */
static gint fmt_w = W, fmt_h = H;

/* Where component c of frame f has its sample (x, y).  P010, P012 and
 * P016 put V's word right after U's, at byte 2 of each 4 (which GStreamer
 * 1.22 lists as offset 1: written out here, not read from there). */
static guint8 *
comp_at (const GstVideoFrame * f, guint c, gint x, gint y)
{
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT (f);
  guint8 *s = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c);

  if (c == 2 && (format == GST_VIDEO_FORMAT_P010_10LE
          || format == GST_VIDEO_FORMAT_P012_LE
          || format == GST_VIDEO_FORMAT_P016_LE))
    s = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, 1) + 2;
  return s + y * GST_VIDEO_FRAME_COMP_STRIDE (f, c)
      + x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
}

/* Component c of frame f at (x, y), the sample value (word >> shift,
 * masked to the depth), wherever the format puts it. */
static guint
comp_get (const GstVideoFrame * f, guint c, gint x, gint y)
{
  const guint8 *s = comp_at (f, c, x, y);
  guint depth = GST_VIDEO_FRAME_COMP_DEPTH (f, c);

  if (depth == 8)
    return *s;
  return (GST_READ_UINT16_LE (s) >> GST_VIDEO_FORMAT_INFO_SHIFT
      (f->info.finfo, c)) & ((1u << depth) - 1);
}

static void
comp_set (GstVideoFrame * f, guint c, gint x, gint y, guint v)
{
  guint8 *s = comp_at (f, c, x, y);

  if (GST_VIDEO_FRAME_COMP_DEPTH (f, c) == 8)
    *s = v;
  else
    GST_WRITE_UINT16_LE (s, v << GST_VIDEO_FORMAT_INFO_SHIFT (f->info.finfo,
            c));
}

/* The value a component shows at (x, y) of the pan at luma shift @sx:
 * YUV component c is the texture of seed c at its own resolution (shifted
 * by sx halved where subsampled across), at @depth bits (the texture on
 * top, position noise below); RGB's R, G, B and A (comp_value_rgb()) the
 * textures of seeds 0 .. 3, full size. */
static guint
comp_value (guint c, gint x, gint y, gint sx, guint w_sub, guint depth)
{
  guint v = tex (x - (sx >> w_sub), y, c);

  if (depth > 8)
    v = (v << (depth - 8)) | (hash3 (x, y, 9 + c) & ((1u << (depth - 8)) -
            1));
  return v;
}

/* The luma gpumotionest derives from sRGB (BT.709's weights,
 * docs/formats.md) for the pixel at (x, y). */
static guint
rgb_luma (gint x, gint y, gint sx)
{
  return (54 * comp_value (0, x, y, sx, 0, 8) + 183 * comp_value (1, x, y,
          sx, 0, 8) + 19 * comp_value (2, x, y, sx, 0, 8) + 128) >> 8;
}

/* Frame i of the pan in @format, its samples from comp_value(); for
 * RGB, components 0 .. 3 are R, G, B, A; every other byte (RGBx's x) is
 * @fill.  With @y444_of_rgb (1 or 2), a Y444 frame whose Y is the
 * derived luma of the RGB frame, U and V its R and G (1) or B and A (2):
 * what mvinterpolate makes of those planes is what it must make of the
 * RGB frame's components. */
static GstBuffer *
make_frame_fmt (GstVideoFormat format, guint i, guint8 fill,
    gint y444_of_rgb)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *buf;
  const gint sx = PAN * (gint) i;
  guint c;
  gint x, y;

  gst_video_info_set_format (&info, format, fmt_w, fmt_h);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, fill, info.size);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&f); c++)
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, c); y++)
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&f, c); x++) {
        guint v;

        if (!y444_of_rgb)
          v = comp_value (c, x, y, sx, GST_VIDEO_FORMAT_INFO_W_SUB
              (info.finfo, c), GST_VIDEO_FRAME_COMP_DEPTH (&f, c));
        else if (c == 0)
          v = rgb_luma (x, y, sx);
        else
          v = comp_value (c - 1 + 2 * (y444_of_rgb - 1), x, y, sx, 0, 8);
        comp_set (&f, c, x, y, v);
      }
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = frame_time (i, 25, 1);
  GST_BUFFER_DURATION (buf) = frame_time (i + 1, 25, 1) - GST_BUFFER_PTS
      (buf);
  return buf;
}

#define N_IN 10
#define N_OUT 20                /* 25 -> 50 fps */

/* The N_OUT outputs of N_IN frames of the pan in @format through the
 * search and mvinterpolate on the CPU (make_frame_fmt() with @fill and
 * @y444_of_rgb). */
static GstBuffer **
run_format (GstVideoFormat format, guint8 fill, gint y444_of_rgb)
{
  GstHarness *h = gst_harness_new_parse ("gpumotionest backend=cpu "
      "references=-1,+1 ! mvinterpolate backend=cpu");
  GstBuffer **out = g_new0 (GstBuffer *, N_OUT + 1);
  GstBuffer *b;
  gchar *caps;
  guint i, k = 0;

  gst_harness_set_sink_caps_str (h, "video/x-raw, framerate=50/1");
  caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, height=%d, "
      "framerate=25/1%s", gst_video_format_to_string (format), fmt_w, fmt_h,
      GST_VIDEO_FORMAT_INFO_IS_RGB (gst_video_format_get_info (format))
      ? ", colorimetry=sRGB" : "");
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  for (i = 0; i < N_IN; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame_fmt (format, i,
                fill + i, y444_of_rgb)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (h))) {
    fail_unless (k < N_OUT, "more than %d frames out of %s", N_OUT,
        gst_video_format_to_string (format));
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), frame_time (k, 50, 1));
    out[k++] = b;
  }
  fail_unless_equals_int (k, N_OUT);
  gst_harness_teardown (h);
  return out;
}

static void
free_outputs (GstBuffer ** out)
{
  guint k;

  for (k = 0; k < N_OUT; k++)
    gst_buffer_unref (out[k]);
  g_free (out);
}

/* Samples of component @ca of @a (in @fa) unlike those of component @cb
 * of @b (in @fb), at the same positions. */
static guint
comp_differences (GstBuffer * a, GstVideoFormat fa, guint ca, GstBuffer * b,
    GstVideoFormat fb, guint cb)
{
  GstVideoInfo ia, ib;
  GstVideoFrame va, vb;
  guint bad = 0;
  gint x, y;

  gst_video_info_set_format (&ia, fa, fmt_w, fmt_h);
  gst_video_info_set_format (&ib, fb, fmt_w, fmt_h);
  fail_unless (gst_video_frame_map (&va, &ia, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&vb, &ib, b, GST_MAP_READ));
  fail_unless_equals_int (GST_VIDEO_FRAME_COMP_WIDTH (&va, ca),
      GST_VIDEO_FRAME_COMP_WIDTH (&vb, cb));
  fail_unless_equals_int (GST_VIDEO_FRAME_COMP_HEIGHT (&va, ca),
      GST_VIDEO_FRAME_COMP_HEIGHT (&vb, cb));
  for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&va, ca); y++)
    for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&va, ca); x++)
      bad += comp_get (&va, ca, x, y) != comp_get (&vb, cb, x, y);
  gst_video_frame_unmap (&va);
  gst_video_frame_unmap (&vb);
  return bad;
}

/* @format's outputs equal @planar's, component for component: the same
 * pictures laid out otherwise give the same samples.  Output 3 (half way
 * between inputs 1 and 2) is made by motion: unlike either input. */
static void
check_same_as_planar_at (GstVideoFormat format, GstVideoFormat planar)
{
  GstBuffer **got = run_format (format, 0, 0);
  GstBuffer **want = run_format (planar, 0, 0);
  GstBuffer *in1 = make_frame_fmt (planar, 1, 0, 0);
  GstBuffer *in2 = make_frame_fmt (planar, 2, 0, 0);
  guint k, c;

  for (k = 0; k < N_OUT; k++)
    for (c = 0; c < 3; c++)
      fail_unless_equals_int (comp_differences (got[k], format, c, want[k],
              planar, c), 0);
  for (c = 0; c < 3; c++) {
    fail_unless (comp_differences (want[3], planar, c, in1, planar, c) > 0);
    fail_unless (comp_differences (want[3], planar, c, in2, planar, c) > 0);
  }
  gst_buffer_unref (in1);
  gst_buffer_unref (in2);
  free_outputs (got);
  free_outputs (want);
}

static void
check_same_as_planar (GstVideoFormat format, GstVideoFormat planar)
{
  fmt_w = W;
  fmt_h = H;
  check_same_as_planar_at (format, planar);
  fmt_w = 77;
  fmt_h = 45;
  check_same_as_planar_at (format, planar);
}

GST_START_TEST (test_nv12_as_i420)
{
  check_same_as_planar (GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420);
  check_same_as_planar (GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_I420);
}

GST_END_TEST;

GST_START_TEST (test_p010_as_i420_10)
{
  /* the test's own P010 layout is GStreamer's: its unpack reads U and V
   * where comp_set() wrote them */
  GstBuffer *buf = make_frame_fmt (GST_VIDEO_FORMAT_P010_10LE, 1, 0, 0);
  const GstVideoFormatInfo *fi =
      gst_video_format_get_info (GST_VIDEO_FORMAT_P010_10LE);
  GstVideoInfo info;
  GstVideoFrame f;
  guint16 row[4 * W];

  fmt_w = W;
  fmt_h = H;
  gint x;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_P010_10LE, W, H);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_READ));
  fi->unpack_func (fi, GST_VIDEO_PACK_FLAG_TRUNCATE_RANGE, row, f.data,
      f.info.stride, 0, 6, W);
  for (x = 0; x < W; x++) {
    fail_unless_equals_int (row[4 * x + 1] >> 6, comp_value (0, x, 6, PAN,
            0, 10));
    fail_unless_equals_int (row[4 * x + 2] >> 6, comp_value (1, x / 2, 3,
            PAN, 1, 10));
    fail_unless_equals_int (row[4 * x + 3] >> 6, comp_value (2, x / 2, 3,
            PAN, 1, 10));
  }
  gst_video_frame_unmap (&f);
  gst_buffer_unref (buf);

  check_same_as_planar (GST_VIDEO_FORMAT_P010_10LE,
      GST_VIDEO_FORMAT_I420_10LE);
}

GST_END_TEST;

GST_START_TEST (test_yuy2_as_y42b)
{
  check_same_as_planar (GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_Y42B);
  check_same_as_planar (GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_Y42B);
}

GST_END_TEST;

/* RGB: R, G, B (and alpha) are made as Y444's chroma is, with the vectors
 * of the luma the search derives: two Y444 runs whose Y is that luma and
 * whose U and V are R and G, then B and A, give BGRA's components.  The
 * x byte of BGRx is the nearer input's (the next one half way), and its
 * R, G, B are BGRA's. */
GST_START_TEST (test_rgb_as_y444)
{
  const GstVideoFormat bgra = GST_VIDEO_FORMAT_BGRA, y444 =
      GST_VIDEO_FORMAT_Y444;
  GstBuffer **rgba, **rgbx, **rg, **ba, *in1;
  guint k, c;

  fmt_w = W;                    /* rows of 4 W bytes: no padding */
  fmt_h = H;
  rgba = run_format (bgra, 0, 0);
  rgbx = run_format (GST_VIDEO_FORMAT_BGRx, 0x40, 0);
  rg = run_format (y444, 0, 1);
  ba = run_format (y444, 0, 2);
  in1 = make_frame_fmt (bgra, 1, 0, 0);

  for (k = 0; k < N_OUT; k++) {
    GstMapInfo map;
    guint x_bad = 0;
    gsize j;

    fail_unless_equals_int (comp_differences (rgba[k], bgra,
            GST_VIDEO_COMP_R, rg[k], y444, 1), 0);
    fail_unless_equals_int (comp_differences (rgba[k], bgra,
            GST_VIDEO_COMP_G, rg[k], y444, 2), 0);
    fail_unless_equals_int (comp_differences (rgba[k], bgra,
            GST_VIDEO_COMP_B, ba[k], y444, 1), 0);
    fail_unless_equals_int (comp_differences (rgba[k], bgra,
            GST_VIDEO_COMP_A, ba[k], y444, 2), 0);
    for (c = 0; c < 3; c++)
      fail_unless_equals_int (comp_differences (rgbx[k],
              GST_VIDEO_FORMAT_BGRx, c, rgba[k], bgra, c), 0);
    /* BGRx: byte 3 of every pixel is input (k + 1) / 2's fill (the last
     * output, past the last input, a copy of it) */
    fail_unless (gst_buffer_map (rgbx[k], &map, GST_MAP_READ));
    for (j = 3; j < map.size; j += 4)
      x_bad += map.data[j] != 0x40 + MIN ((k + 1) / 2, N_IN - 1);
    gst_buffer_unmap (rgbx[k], &map);
    fail_unless_equals_int (x_bad, 0);
  }
  /* output 3 is made by motion, alpha too */
  for (c = 0; c < 4; c++)
    fail_unless (comp_differences (rgba[3], bgra, c, in1, bgra, c) > 0);
  gst_buffer_unref (in1);
  free_outputs (rgba);
  free_outputs (rgbx);
  free_outputs (rg);
  free_outputs (ba);
}

GST_END_TEST;

static Suite *
mvinterpolate_suite (void)
{
  Suite *s = suite_create ("mvinterpolate");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rate_25_50);
  tcase_add_test (tc, test_rate_30_60);
  tcase_add_test (tc, test_rate_24_60);
  tcase_add_test (tc, test_rate_ntsc);
  tcase_add_test (tc, test_pan_half);
  tcase_add_test (tc, test_missing_references);
  tcase_add_test (tc, test_no_summary_warning);
  tcase_add_test (tc, test_eos);
  tcase_add_test (tc, test_flushing_seek);
  tcase_add_test (tc, test_scene_cut_repeat);
  tcase_add_test (tc, test_scene_cut_blend);
  tcase_add_test (tc, test_caps);
  tcase_add_test (tc, test_variable_rate);
  tcase_add_test (tc, test_gap);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_nv12_as_i420);
  tcase_add_test (tc, test_p010_as_i420_10);
  tcase_add_test (tc, test_yuy2_as_y42b);
  tcase_add_test (tc, test_rgb_as_y444);
  return s;
}

GST_CHECK_MAIN (mvinterpolate);
