/* gst-check tests of mvstabilize: stabilisation from the global motion.
 *
 * A synthetic photograph (smooth value noise of several scales, continuous
 * in the plane) filmed by a camera moving along a smooth path (a pan, a
 * slow sway and turn) with hand-shake on it (random sub-pixel shifts and
 * turns, known), searched by the real gpumotionest summary=true
 * subpel=quarter, then stabilised: the camera of the output frames (the
 * input's, known, composed with the correction in each frame's meta)
 * against the smooth path, frame to frame; the output pictures against
 * each other; and the stream's handling: frames held by the lookahead,
 * EOS draining them, flushes, breaks, caps changes, frames without a
 * summary, the latency, the formats.
 */
#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#define W 320
#define H 240
#define FPS 30
#define DUR (GST_SECOND / FPS)
#define SEARCH "gpumotionest backend=cpu summary=true subpel=quarter"
#define META_NAME "GstMvStabilizeMeta"

/* ---- the photograph and the camera ------------------------------------- */

static double
lattice (int x, int y, unsigned seed)
{
  guint32 v = (guint32) x * 73856093u ^ (guint32) y * 19349663u
      ^ (seed + 1) * 83492791u;

  v ^= v >> 13;
  v *= 0x5bd1e995u;
  v ^= v >> 15;
  return (v & 0xffff) / 65535.0;
}

/* Value noise at scale s, smooth (cubic fade), continuous everywhere. */
static double
noise (double x, double y, double s, unsigned seed)
{
  const double u = x / s, v = y / s;
  const int i = (int) floor (u), j = (int) floor (v);
  double fx = u - i, fy = v - j;

  fx = fx * fx * (3 - 2 * fx);
  fy = fy * fy * (3 - 2 * fy);
  return (lattice (i, j, seed) * (1 - fx) + lattice (i + 1, j, seed) * fx)
      * (1 - fy) + (lattice (i, j + 1, seed) * (1 - fx)
      + lattice (i + 1, j + 1, seed) * fx) * fy;
}

/* The photograph at world point (x, y): 30 .. 225. */
static double
photo (double x, double y)
{
  return 30 + 195 * (0.4 * noise (x, y, 40, 1) + 0.3 * noise (x, y, 16, 2)
      + 0.2 * noise (x, y, 7, 3) + 0.1 * noise (x, y, 3, 4));
}

/* A pose: frame pixel p lies in the world at c + (x, y) + R(phi) (p - c),
 * R turning clockwise on screen (y down); c the frame centre. */
typedef struct
{
  double x, y, phi;
} Pose;

static Pose
compose (Pose a, Pose b)
{
  const double c = cos (a.phi), n = sin (a.phi);
  Pose r = { a.x + c * b.x - n * b.y, a.y + n * b.x + c * b.y,
    a.phi + b.phi
  };
  return r;
}

static Pose
invert (Pose a)
{
  const double c = cos (-a.phi), n = sin (-a.phi);
  Pose r = { -(c * a.x - n * a.y), -(n * a.x + c * a.y), -a.phi };
  return r;
}

typedef struct
{
  guint n;
  Pose *smooth;                 /* the intended path */
  Pose *cam;                    /* with the shake */
  double shake_px, shake_deg;   /* the shake's RMS */
} Path;

static void
path_init (Path * p, guint n, double amp_px, double amp_deg, guint seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  double sx = 0, sa = 0;
  guint t;

  p->n = n;
  p->smooth = g_new (Pose, n);
  p->cam = g_new (Pose, n);
  for (t = 0; t < n; t++) {
    const double jx = g_rand_double_range (rand, -amp_px, amp_px);
    const double jy = g_rand_double_range (rand, -amp_px, amp_px);
    const double ja = g_rand_double_range (rand, -amp_deg, amp_deg)
        * G_PI / 180;

    p->smooth[t] = (Pose) { 1.0 * t + 6 * sin (t / 25.0),
      4 * sin (t / 40.0), 0.01 * sin (t / 30.0) };
    p->cam[t] = p->smooth[t];
    p->cam[t].x += jx;
    p->cam[t].y += jy;
    p->cam[t].phi += ja;
    sx += jx * jx;
    sa += ja * ja;
  }
  p->shake_px = sqrt (sx / n);
  p->shake_deg = sqrt (sa / n) * 180 / G_PI;
  g_rand_free (rand);
}

static void
path_clear (Path * p)
{
  g_free (p->smooth);
  g_free (p->cam);
}

static GstCaps *
caps_for (GstVideoFormat fmt, gint w, gint h)
{
  GstVideoInfo info;

  gst_video_info_set_format (&info, fmt, w, h);
  GST_VIDEO_INFO_FPS_N (&info) = FPS;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  return gst_video_info_to_caps (&info);
}

/* Frame @t as the camera of @p films it, I420 or GRAY8 (grey chroma). */
static GstBuffer *
make_frame (const Path * p, guint t, GstVideoFormat fmt, gint w, gint h)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *buf;
  const Pose cam = p->cam[t];
  const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
  const double c = cos (cam.phi), s = sin (cam.phi);
  guint comp;
  gint x, y;

  gst_video_info_set_format (&info, fmt, w, h);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
  for (y = 0; y < h; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, 0)
        + y * GST_VIDEO_FRAME_COMP_STRIDE (&f, 0);
    for (x = 0; x < w; x++) {
      const double wx = cx + cam.x + c * (x - cx) - s * (y - cy);
      const double wy = cy + cam.y + s * (x - cx) + c * (y - cy);
      row[x] = (guint8) lrint (photo (wx, wy));
    }
  }
  for (comp = 1; comp < GST_VIDEO_FRAME_N_COMPONENTS (&f); comp++)
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, comp); y++)
      memset ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, comp)
          + y * GST_VIDEO_FRAME_COMP_STRIDE (&f, comp), 128,
          GST_VIDEO_FRAME_COMP_WIDTH (&f, comp));
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = t * DUR;
  GST_BUFFER_DURATION (buf) = DUR;
  return buf;
}

/* The clip searched by gpumotionest (@search): @n frames with their
 * fields and summaries. */
static GstBuffer **
search_clip (const Path * p, const gchar * search, GstVideoFormat fmt,
    gint w, gint h)
{
  GstHarness *h_ = gst_harness_new_parse (search);
  GstBuffer **out = g_new0 (GstBuffer *, p->n);
  guint i;

  gst_harness_set_src_caps (h_, caps_for (fmt, w, h));
  for (i = 0; i < p->n; i++)
    fail_unless_equals_int (gst_harness_push (h_, make_frame (p, i, fmt, w,
                h)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h_, gst_event_new_eos ()));
  for (i = 0; i < p->n; i++) {
    out[i] = gst_harness_pull (h_);
    fail_unless (out[i] != NULL);
  }
  gst_harness_teardown (h_);
  return out;
}

static void
free_buffers (GstBuffer ** b, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    gst_clear_buffer (&b[i]);
  g_free (b);
}

static const GstStructure *
correction_of (GstBuffer * b)
{
  GstCustomMeta *m = gst_buffer_get_custom_meta (b, META_NAME);

  return m ? gst_custom_meta_get_structure (m) : NULL;
}

static double
field (const GstStructure * s, const gchar * name)
{
  gdouble v = NAN;

  fail_unless (gst_structure_get_double (s, name, &v), "no %s", name);
  return v;
}

/* The mean absolute difference of the luma of two frames over their
 * middle (a quarter of each side left out). */
static double
mad_middle (GstBuffer * a, GstBuffer * b, gint w, gint h)
{
  GstMapInfo ma, mb;
  double sum = 0;
  gint x, y, n = 0;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  for (y = h / 4; y < 3 * h / 4; y++)
    for (x = w / 4; x < 3 * w / 4; x++) {
      sum += fabs ((double) ma.data[y * w + x] - mb.data[y * w + x]);
      n++;
    }
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return sum / n;
}

/* ---- the shake removed ---------------------------------------------------- */

/* 150 frames of a 320x240 pan with hand-shake of +-3 px and +-0.4 degrees
 * (uniform; RMS 1.7 px, 0.23 degrees) stabilised with a lookahead of 30:
 * the output camera, frame to frame, departs from the smooth path by a
 * fraction of the shake's; the crop stays small and smooth; the output
 * pictures differ less from frame to frame than the input's. */
GST_START_TEST (test_shake_removed)
{
  Path p;
  GstBuffer **in;
  GstHarness *h;
  const guint n = 150, L = 30;
  double *rx, *ry, *ra, d2x = 0, d2a = 0, in2x = 0, in2a = 0;
  double max_crop = 0, max_step = 0, prev_crop = 0, mad_in = 0, mad_out = 0;
  GstBuffer *prev_out = NULL;
  guint i, m = 0, corrected = 0;

  path_init (&p, n, 3.0, 0.4, 5);
  in = search_clip (&p, SEARCH, GST_VIDEO_FORMAT_GRAY8, W, H);
  h = gst_harness_new_parse ("mvstabilize backend=cpu lookahead=30");
  gst_harness_set_src_caps (h, caps_for (GST_VIDEO_FORMAT_GRAY8, W, H));
  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), n);
  rx = g_new (double, n);
  ry = g_new (double, n);
  ra = g_new (double, n);
  for (i = 0; i < n; i++) {
    GstBuffer *b = gst_harness_pull (h);
    const GstStructure *s = correction_of (b);
    gboolean corr = FALSE;
    Pose c, o, want;

    fail_unless (s != NULL, "frame %u has no correction meta", i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), i * DUR);
    fail_unless (gst_structure_get_boolean (s, "corrected", &corr));
    corrected += corr;
    /* the correction without the crop's zoom, applied to the camera */
    c = (Pose) { field (s, "dx"), field (s, "dy"), field (s, "angle") };
    o = compose (compose (invert (p.cam[0]), p.cam[i]), c);
    want = compose (invert (p.cam[0]), p.smooth[i]);
    rx[i] = o.x - want.x;
    ry[i] = o.y - want.y;
    ra[i] = o.phi - want.phi;
    fail_unless (field (s, "crop") >= 1.0);
    fail_unless (field (s, "crop") <= 1.25 + 1e-9);
    if (i)
      max_step = MAX (max_step, fabs (field (s, "crop") - prev_crop));
    prev_crop = field (s, "crop");
    max_crop = MAX (max_crop, prev_crop);
    if (i > L && i < n - L) {
      mad_in += mad_middle (in[i - 1], in[i], W, H);
      mad_out += mad_middle (prev_out, b, W, H);
    }
    gst_clear_buffer (&prev_out);
    prev_out = b;
  }
  gst_clear_buffer (&prev_out);
  /* frame to frame, where the window is whole */
  for (i = L + 1; i < n - L; i++) {
    const Pose a = p.cam[i - 1], b = p.cam[i];
    const Pose sa = p.smooth[i - 1], sb = p.smooth[i];

    d2x += (rx[i] - rx[i - 1]) * (rx[i] - rx[i - 1])
        + (ry[i] - ry[i - 1]) * (ry[i] - ry[i - 1]);
    d2a += (ra[i] - ra[i - 1]) * (ra[i] - ra[i - 1]);
    in2x += pow ((b.x - sb.x) - (a.x - sa.x), 2)
        + pow ((b.y - sb.y) - (a.y - sa.y), 2);
    in2a += pow ((b.phi - sb.phi) - (a.phi - sa.phi), 2);
    m++;
  }
  {
    const double out_px = sqrt (d2x / m), in_px = sqrt (in2x / m);
    const double out_deg = sqrt (d2a / m) * 180 / G_PI;
    const double in_deg = sqrt (in2a / m) * 180 / G_PI;

    GST_INFO ("shake %.2f px %.3f deg RMS; frame to frame: input %.3f px "
        "%.4f deg, output %.3f px %.4f deg; crop up to %.4f, step %.5f; "
        "%u of %u corrected; middle MAD input %.2f output %.2f", p.shake_px,
        p.shake_deg, in_px, in_deg, out_px, out_deg, max_crop, max_step,
        corrected, n, mad_in / m, mad_out / m);
    g_print ("mvstabilize: frame-to-frame jitter %.3f px %.4f deg -> %.3f px "
        "%.4f deg; crop <= %.4f (step <= %.5f); middle MAD %.2f -> %.2f\n",
        in_px, in_deg, out_px, out_deg, max_crop, max_step, mad_in / m,
        mad_out / m);
    fail_unless (out_px < 0.15 * in_px, "%.3f px left of %.3f", out_px,
        in_px);
    fail_unless (out_deg < 0.25 * in_deg, "%.4f deg left of %.4f", out_deg,
        in_deg);
    fail_unless (max_crop > 1.0 && max_crop < 1.1, "crop %.4f", max_crop);
    fail_unless (max_step < 0.005, "crop step %.5f", max_step);
    fail_unless (mad_out < 0.7 * mad_in, "MAD %.2f against %.2f", mad_out,
        mad_in);
    fail_unless (corrected > n - 2 * L / 3);
  }
  g_free (rx);
  g_free (ry);
  g_free (ra);
  gst_harness_teardown (h);
  free_buffers (in, n);
  path_clear (&p);
}

GST_END_TEST;

/* ---- the stream ---------------------------------------------------------- */

static GstBuffer **
small_clip (guint n, guint seed)
{
  Path p;
  GstBuffer **in;

  path_init (&p, n, 2.0, 0.2, seed);
  in = search_clip (&p, SEARCH, GST_VIDEO_FORMAT_I420, 96, 64);
  path_clear (&p);
  return in;
}

static GstHarness *
stab_harness (const gchar * launch)
{
  GstHarness *h = gst_harness_new_parse (launch);

  gst_harness_set_src_caps (h, caps_for (GST_VIDEO_FORMAT_I420, 96, 64));
  return h;
}

/* Frame t goes out when frame t + lookahead comes; EOS drains the rest
 * and goes on. */
GST_START_TEST (test_holding_and_eos)
{
  GstBuffer **in = small_clip (12, 1);
  guint la, i;

  for (la = 0; la <= 5; la += 5) {
    gchar *launch = g_strdup_printf ("mvstabilize backend=cpu lookahead=%u",
        la);
    GstHarness *h = stab_harness (launch);
    GstEvent *ev;

    for (i = 0; i < 12; i++) {
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
          GST_FLOW_OK);
      fail_unless_equals_int (gst_harness_buffers_received (h),
          i + 1 > la ? i + 1 - la : 0);
    }
    while ((ev = gst_harness_try_pull_event (h)))
      gst_event_unref (ev);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    fail_unless_equals_int (gst_harness_buffers_received (h), 12);
    ev = gst_harness_try_pull_event (h);
    fail_unless (ev && GST_EVENT_TYPE (ev) == GST_EVENT_EOS);
    gst_event_unref (ev);
    for (i = 0; i < 12; i++) {
      GstBuffer *b = gst_harness_pull (h);

      fail_unless_equals_uint64 (GST_BUFFER_PTS (b), i * DUR);
      fail_unless (correction_of (b) != NULL);
      gst_buffer_unref (b);
    }
    gst_harness_teardown (h);
    g_free (launch);
  }
  free_buffers (in, 12);
}

GST_END_TEST;

/* A flush drops the held frames; the stream after it starts a path. */
GST_START_TEST (test_flushing_seek)
{
  GstBuffer **in = small_clip (16, 2);
  GstHarness *h = stab_harness ("mvstabilize backend=cpu lookahead=5");
  GstSegment seg;
  guint i;

  for (i = 0; i < 8; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  for (i = 10; i < 16; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), 9);
  for (i = 0; i < 9; i++) {
    GstBuffer *b = gst_harness_pull (h);
    const GstStructure *s = correction_of (b);
    gboolean start = FALSE;

    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), (i < 3 ? i : i + 7)
        * DUR);
    fail_unless (gst_structure_get_boolean (s, "segment-start", &start));
    fail_unless_equals_int (start, i == 0 || i == 3);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
  free_buffers (in, 16);
}

GST_END_TEST;

/* A DISCONT frame and a gap buffer end the path: the frames before come
 * out first, the frame after starts a path, neither side is moved at the
 * break. */
static void
check_break (gboolean gap)
{
  GstBuffer **in = small_clip (14, 3);
  GstHarness *h = stab_harness ("mvstabilize backend=cpu lookahead=4");
  guint i, n_out = gap ? 15 : 14, k = 0;

  for (i = 0; i < 14; i++) {
    if (i == 7) {
      if (gap) {
        GstBuffer *g = gst_buffer_new ();

        GST_BUFFER_FLAG_SET (g, GST_BUFFER_FLAG_GAP);
        GST_BUFFER_PTS (g) = 7 * DUR - DUR / 2;
        fail_unless_equals_int (gst_harness_push (h, g), GST_FLOW_OK);
        /* the 7 frames before it are out by then */
        fail_unless_equals_int (gst_harness_buffers_received (h), 8);
      } else {
        in[i] = gst_buffer_make_writable (in[i]);
        GST_BUFFER_FLAG_SET (in[i], GST_BUFFER_FLAG_DISCONT);
      }
    }
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), n_out);
  for (i = 0; i < n_out; i++) {
    GstBuffer *b = gst_harness_pull (h);
    const GstStructure *s;
    gboolean start = FALSE, corr = TRUE;

    if (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_GAP)) {
      fail_unless (gap && k == 7);
      gst_buffer_unref (b);
      continue;
    }
    s = correction_of (b);
    fail_unless (s != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), k * DUR);
    gst_structure_get_boolean (s, "segment-start", &start);
    gst_structure_get_boolean (s, "corrected", &corr);
    fail_unless_equals_int (start, k == 0 || k == 7);
    if (k == 6 || k == 7)
      fail_if (corr, "frame %u moved at the break", k);
    k++;
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
  free_buffers (in, 14);
}

GST_START_TEST (test_discont)
{
  check_break (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_gap)
{
  check_break (TRUE);
}

GST_END_TEST;

/* New caps drain the frames of the old ones first. */
GST_START_TEST (test_caps_change)
{
  GstBuffer **in = small_clip (6, 4);
  GstHarness *h = stab_harness ("mvstabilize backend=cpu lookahead=10");
  guint i;

  for (i = 0; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  gst_harness_set_src_caps (h, caps_for (GST_VIDEO_FORMAT_I420, 80, 48));
  fail_unless_equals_int (gst_harness_buffers_received (h), 6);
  gst_harness_teardown (h);
  free_buffers (in, 6);
}

GST_END_TEST;

/* Frames whose fields carry no summary (or that have no fields) are an
 * error that names the fix. */
GST_START_TEST (test_no_summary)
{
  Path p;
  GstBuffer **in;
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  path_init (&p, 3, 1.0, 0.1, 6);
  in = search_clip (&p, "gpumotionest backend=cpu", GST_VIDEO_FORMAT_I420,
      96, 64);
  h = stab_harness ("mvstabilize backend=cpu");
  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[1])),
      GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "gpumotionest summary=true") != NULL,
      "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  /* a bare frame, no field at all */
  fail_unless_equals_int (gst_harness_push (h, make_frame (&p, 2,
              GST_VIDEO_FORMAT_I420, 96, 64)), GST_FLOW_ERROR);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  free_buffers (in, 3);
  path_clear (&p);
}

GST_END_TEST;

GST_START_TEST (test_latency)
{
  guint la;

  for (la = 0; la <= 30; la += 15) {
    gchar *launch = g_strdup_printf ("mvstabilize lookahead=%u", la);
    GstHarness *h = stab_harness (launch);

    gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        10 * GST_MSECOND + gst_util_uint64_scale (GST_SECOND, la, FPS));
    gst_harness_teardown (h);
    g_free (launch);
  }
}

GST_END_TEST;

/* lookahead-time: 500 ms at 30/1 holds 15 frames (whatever lookahead
 * says), reported as 15 frame durations of latency; 1 ns still holds 1
 * frame, and a time past the largest lookahead holds 300. */
GST_START_TEST (test_lookahead_time)
{
  GstBuffer **in = small_clip (20, 3);
  GstHarness *h = stab_harness ("mvstabilize backend=cpu lookahead=3 "
      "lookahead-time=500000000");
  guint i;

  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      10 * GST_MSECOND + gst_util_uint64_scale (GST_SECOND, 15, FPS));
  for (i = 0; i < 20; i++) {
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
    /* the first goes out with the 16th frame */
    fail_unless_equals_int (gst_harness_buffers_received (h),
        i + 1 > 15 ? i + 1 - 15 : 0);
  }
  gst_harness_teardown (h);

  h = stab_harness ("mvstabilize backend=cpu lookahead=3 lookahead-time=1");
  gst_harness_set_upstream_latency (h, 0);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      gst_util_uint64_scale (GST_SECOND, 1, FPS));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[0])),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[1])),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  gst_harness_teardown (h);

  h = stab_harness ("mvstabilize lookahead-time=3600000000000");
  gst_harness_set_upstream_latency (h, 0);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      gst_util_uint64_scale (GST_SECOND, 300, FPS));
  gst_harness_teardown (h);
  free_buffers (in, 20);
}

GST_END_TEST;

/* A variable frame rate (0/1): lookahead-time cannot be counted in
 * frames, lookahead is held instead. */
GST_START_TEST (test_lookahead_time_variable_rate)
{
  GstBuffer **in = small_clip (8, 5);
  GstHarness *h = stab_harness ("mvstabilize backend=cpu lookahead=4 "
      "lookahead-time=500000000");
  GstVideoInfo info;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 96, 64);
  GST_VIDEO_INFO_FPS_N (&info) = 0;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 8; i++) {
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_buffers_received (h),
        i + 1 > 4 ? i + 1 - 4 : 0);
  }
  gst_harness_teardown (h);
  free_buffers (in, 8);
}

GST_END_TEST;

/* Every kind of layout goes through (planar, semi-planar, packed, RGB,
 * 16-bit): the frames out, each with its meta, the same size. */
GST_START_TEST (test_formats)
{
  const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_Y444,
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
    GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_GRAY16_LE,
#endif
  };
  GstBuffer **in = small_clip (8, 7);
  GstVideoInfo iinfo;
  guint f, i;

  gst_video_info_set_format (&iinfo, GST_VIDEO_FORMAT_I420, 96, 64);
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo oinfo;
    GstVideoConverter *conv;
    GstHarness *h;
    gchar *launch = g_strdup_printf ("%s ! mvstabilize backend=cpu "
        "lookahead=3", SEARCH);

    gst_video_info_set_format (&oinfo, formats[f], 96, 64);
    conv = gst_video_converter_new (&iinfo, &oinfo, gst_structure_new
        ("opts", GST_VIDEO_CONVERTER_OPT_DITHER_METHOD,
            GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE, NULL));
    h = gst_harness_new_parse (launch);
    gst_harness_set_src_caps (h, caps_for (formats[f], 96, 64));
    for (i = 0; i < 8; i++) {
      GstVideoFrame fi, fo;
      GstBuffer *b = gst_buffer_new_allocate (NULL, oinfo.size, NULL);

      fail_unless (gst_video_frame_map (&fi, &iinfo, in[i], GST_MAP_READ));
      fail_unless (gst_video_frame_map (&fo, &oinfo, b, GST_MAP_WRITE));
      gst_video_converter_frame (conv, &fi, &fo);
      gst_video_frame_unmap (&fi);
      gst_video_frame_unmap (&fo);
      GST_BUFFER_PTS (b) = i * DUR;
      GST_BUFFER_DURATION (b) = DUR;
      fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    fail_unless_equals_int (gst_harness_buffers_received (h), 8);
    for (i = 0; i < 8; i++) {
      GstBuffer *b = gst_harness_pull (h);

      fail_unless (correction_of (b) != NULL, "%s frame %u",
          gst_video_format_to_string (formats[f]), i);
      fail_unless (gst_buffer_get_size (b) >= oinfo.size);
      gst_buffer_unref (b);
    }
    gst_harness_teardown (h);
    gst_video_converter_free (conv);
    g_free (launch);
  }
  free_buffers (in, 8);
}

GST_END_TEST;

static Suite *
mvstabilize_suite (void)
{
  Suite *s = suite_create ("mvstabilize");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_shake_removed);
  tcase_add_test (tc, test_holding_and_eos);
  tcase_add_test (tc, test_flushing_seek);
  tcase_add_test (tc, test_discont);
  tcase_add_test (tc, test_gap);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_no_summary);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_lookahead_time);
  tcase_add_test (tc, test_lookahead_time_variable_rate);
  tcase_add_test (tc, test_formats);
  return s;
}

GST_CHECK_MAIN (mvstabilize);
