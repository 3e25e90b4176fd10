/* gpumotionest — fuzz target: what reaches the mvinterpolate element from
 * upstream, downstream and the application.
 *
 * The input is a script.  A header picks the properties, the output rate
 * downstream asks for, the number of frames and the first caps; then, per
 * frame, an op byte says what comes before the buffer (new caps of any
 * format and size, a new output rate, a flush, a segment of any start, a
 * GAP event, a latency query, new properties) and a second byte what the
 * buffer is like: its timestamp (the next frame time, a duplicate, one
 * going backwards, none, or any 64-bit value), its duration, GAP and
 * DISCONT flags, a short buffer, and the two motion fields that
 * `gpumotionest references=-1,+1` would attach (against the frame before
 * and the frame after), each of which may be missing, of another size,
 * against another reference, with any ref_pts, grids, vectors (up to the
 * int16 edges), costs, summary or broken public fields.  The stream ends
 * with EOS.
 *
 * What is checked, on every output buffer as it leaves (a probe on the
 * element's source pad): a valid PTS and a duration > 0; PTS strictly
 * increasing since the last flush or segment; a buffer not flagged DISCONT
 * starts where the one before it ended (no frame skipped or repeated);
 * the frames a buffer releases lie between the held frame's PTS and its
 * own (those of a drain, between the held frame's PTS and its end).  On
 * every push: GST_FLOW_ERROR comes with a GST_MESSAGE_ERROR, an error
 * message with a flow other than OK, a refused buffer releases no frame,
 * and a buffer shorter than its caps' frame is refused when it arrives.
 * A crash, a sanitizer report or a critical ends the run as in the other
 * targets.
 *
 * With FUZZ_VERBOSE=1 in the environment every output frame (PTS,
 * duration, DISCONT) and every error message is printed, which is how a
 * saved input is read.
 *
 * Work is bounded: frames of at most FUZZ_MAX_PIXELS luma samples, at
 * most FUZZ_MAX_FRAMES inputs, and downstream answers EOS after
 * FUZZ_MAX_OUT output frames of one push (a timestamp jump of hours at
 * 60/1 asks for hundreds of thousands of frames, and makes them) or once
 * FUZZ_MAX_OUT_BYTES of output have been made by the input (the C
 * reference under the sanitizers makes about 0.5 MB of frames a second).
 */
#include "fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

/* A broken invariant: the message, then abort() (a signal libFuzzer
 * catches and saves the input for, which g_error()'s trap is not). */
static void fail (const char *fmt, ...) G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN;

static void
fail (const char *fmt, ...)
{
  va_list args;

  va_start (args, fmt);
  vfprintf (stderr, fmt, args);
  va_end (args);
  fputc ('\n', stderr);
  abort ();
}

#define FUZZ_MAX_FRAMES 16
#define FUZZ_MAX_PIXELS (1u << 12)
#define FUZZ_MAX_OUT 512
#define FUZZ_MAX_OUT_BYTES (1u << 18)

/* op, first byte: before the buffer */
#define OP_CAPS (1u << 0)       /* new input caps (format, size, rate) */
#define OP_RATE (1u << 1)       /* downstream asks for another rate (taken
                                 * at the next new caps) */
#define OP_FLUSH (1u << 2)      /* flush-start, flush-stop, segment */
#define OP_SEGMENT (1u << 3)    /* a new segment of any start */
#define OP_GAP (1u << 4)        /* a GAP event */
#define OP_PROPS (1u << 5)      /* cut-mode, threads */
#define OP_LATENCY (1u << 6)
#define OP_SKIP (1u << 7)       /* no buffer this time */
/* op, second byte: the buffer */
#define BUF_PTS (1u << 0)       /* a timestamp not from the frame clock */
#define BUF_DUR (1u << 1)       /* a duration from the input (or none) */
#define BUF_GAP (1u << 2)
#define BUF_DISCONT (1u << 3)
#define BUF_FIELDS (1u << 4)    /* fields of the input's choosing */
#define BUF_SHORT (1u << 5)     /* fewer bytes than the caps' frame */
#define BUF_CUT (1u << 6)       /* the -1 field's summary says: a cut */
#define BUF_REFPTS (1u << 7)    /* ref_pts from the input */

/* The formats mvinterpolate takes, and some it refuses. */
static const GstVideoFormat formats[] = {
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_Y42B,
  GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_I422_10LE,
  GST_VIDEO_FORMAT_Y444_16LE, GST_VIDEO_FORMAT_GRAY16_LE,
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_P010_10LE,
  GST_VIDEO_FORMAT_I420_10BE,
};

/* Input rates (0/1: variable) and output rates, odd ratios among them;
 * an output rate of 0/0 leaves downstream's caps free (the input rate). */
static const gint in_rates[][2] = {
  {25, 1}, {30, 1}, {30000, 1001}, {24000, 1001}, {0, 1}, {60, 1},
  {1, 1}, {50, 1}, {7, 3}, {1000, 1},
};

static const gint out_rates[][2] = {
  {60, 1}, {50, 1}, {30000, 1001}, {60000, 1001}, {1001, 30000}, {25, 1},
  {24, 1}, {1, 1}, {7, 3}, {120, 1}, {1, 2147483647}, {0, 0}, {48000, 1001},
  {2147483647, 2147483}, {13, 1}, {240, 1},
};

/* Steps between frame times, in ns: the usual frame times, a duplicate,
 * backwards, a jump. */
static const gint64 steps[] = {
  40000000, 33366666, 41708333, 16666667, 20000000, 1, 0, -40000000,
  1000000000, 3000000, 100000000, 33333333, -1, 7, 499999999, 66733333,
};

typedef struct {
  GstHarness *h;
  GstVideoInfo info;
  GstBus *bus;
  gint out_n, out_d;            /* the rate downstream asks for */
  guint frame_seed;

  /* what the probe saw */
  guint n_out;                  /* output frames of the current push */
  guint64 out_bytes;            /* of every output frame so far */
  gboolean capped;              /* downstream answered EOS to end it */
  gboolean have_last;           /* last_pts and last_end hold */
  GstClockTime last_pts, last_end;
  GstClockTime lo, hi;          /* where this push's frames may lie */
  gboolean have_window;
  GstClockTime final_end;       /* of this push's last frame */

  /* the frame the element holds, as far as its outputs tell */
  GstClockTime held;
  GstClockTime held_end;
  gboolean unknown;             /* whether the element holds a frame, and
                                 * which, is not known: see below */
} Stream;

static GstPadProbeReturn
on_output (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stream *s = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstClockTime pts = GST_BUFFER_PTS (buf), dur = GST_BUFFER_DURATION (buf);

  if (g_getenv ("FUZZ_VERBOSE"))
    fprintf (stderr, "out %" G_GUINT64_FORMAT " +%" G_GUINT64_FORMAT "%s\n",
        pts, dur, GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)
        ? " discont" : "");
  g_assert (GST_CLOCK_TIME_IS_VALID (pts));
  g_assert (GST_CLOCK_TIME_IS_VALID (dur) && dur > 0);
  g_assert (pts + dur > pts);   /* its end is a time too */
  if (s->have_last) {
    if (pts <= s->last_pts)
      fail ("output PTS %" G_GUINT64_FORMAT " after %" G_GUINT64_FORMAT,
          pts, s->last_pts);
    if (!GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)
        && pts != s->last_end)
      fail ("output PTS %" G_GUINT64_FORMAT " not DISCONT, but the frame "
          "before ended at %" G_GUINT64_FORMAT, pts, s->last_end);
  }
  if (s->have_window && (pts < s->lo || pts >= s->hi))
    fail ("output PTS %" G_GUINT64_FORMAT " outside [%" G_GUINT64_FORMAT
        ", %" G_GUINT64_FORMAT ")", pts, s->lo, s->hi);
  /* no motion-vector meta leaves: the fields describe input frames */
  g_assert (gst_buffer_get_motion_vector_meta (buf) == NULL);
  s->final_end = pts + dur;
  s->have_last = TRUE;
  s->last_pts = pts;
  s->last_end = pts + dur;
  s->out_bytes += gst_buffer_get_size (buf);
  if (++s->n_out >= FUZZ_MAX_OUT || s->out_bytes >= FUZZ_MAX_OUT_BYTES) {
    s->capped = TRUE;
    GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_EOS;
    gst_buffer_unref (buf);
    GST_PAD_PROBE_INFO_DATA (info) = NULL;
    return GST_PAD_PROBE_HANDLED;
  }
  return GST_PAD_PROBE_DROP;
}

static guint
pop_errors (Stream * s)
{
  GstMessage *m;
  guint n = 0;

  while ((m = gst_bus_pop_filtered (s->bus, GST_MESSAGE_ERROR))) {
    if (g_getenv ("FUZZ_VERBOSE")) {
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (m, &err, &dbg);
      fprintf (stderr, "error: %s (%s)\n", err->message, dbg ? dbg : "");
      g_clear_error (&err);
      g_free (dbg);
    }
    n++;
    gst_message_unref (m);
  }
  return n;
}

static void
begin (Stream * s)
{
  s->n_out = 0;
  s->capped = FALSE;
  s->have_window = FALSE;
}

/* The stream starts over: a flush or a segment. */
static void
restart (Stream * s)
{
  s->have_last = FALSE;
  s->held = GST_CLOCK_TIME_NONE;
  s->unknown = FALSE;
}

/* Frames released by a drain lie between the held frame and its end. */
static void
drain_window (Stream * s)
{
  begin (s);
  if (GST_CLOCK_TIME_IS_VALID (s->held) && !s->unknown) {
    s->have_window = TRUE;
    s->lo = s->held;
    s->hi = MAX (s->held_end, s->held + 1);
  }
}

static void
drained (Stream * s)
{
  s->held = GST_CLOCK_TIME_NONE;
  g_assert (s->n_out == 0 || s->capped || s->have_window || s->unknown);
  s->unknown = FALSE;
}

static void
set_sink_caps (Stream * s)
{
  GstCaps *caps = gst_caps_new_empty_simple ("video/x-raw");

  if (s->out_n > 0)
    gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, s->out_n,
        s->out_d, NULL);
  gst_harness_set_sink_caps (s->h, caps);
}

static void
set_caps (Stream * s, FuzzInput * in)
{
  GstVideoFormat format = formats[fuzz_u8 (in) % G_N_ELEMENTS (formats)];
  guint r = fuzz_u8 (in) % G_N_ELEMENTS (in_rates);
  guint w = 1 + fuzz_u16 (in) % 8192, h = 1 + fuzz_u16 (in) % 8192;
  GstVideoInfo old = s->info;
  GstCaps *caps;

  if ((guint64) w * h > FUZZ_MAX_PIXELS)
    h = MAX (1, FUZZ_MAX_PIXELS / w);
  gst_video_info_set_format (&s->info, format, w, h);
  GST_VIDEO_INFO_FPS_N (&s->info) = in_rates[r][0];
  GST_VIDEO_INFO_FPS_D (&s->info) = in_rates[r][1];
  caps = gst_video_info_to_caps (&s->info);
  /* new caps drain the held frame with the old ones */
  drain_window (s);
  /* refused caps (a format mvinterpolate does not take) leave the
   * element as it was: the held frame stays, and buffers are refused
   * until caps it takes come */
  gst_harness_push_event (s->h, gst_event_new_caps (caps));
  {
    /* (a sticky event's push says TRUE even when the peer refused it) */
    GstPad *sink = gst_element_get_static_pad (s->h->element, "sink");
    GstCaps *cur = gst_pad_get_current_caps (sink);

    if (cur && gst_caps_is_equal (cur, caps)
        && !gst_video_info_is_equal (&old, &s->info))
      drained (s);
    gst_clear_caps (&cur);
    gst_object_unref (sink);
  }
  gst_caps_unref (caps);
  pop_errors (s);
}

/* One field as gpumotionest attaches it: the frame's own size, its
 * partitions, cells from the input (vectors and costs, many at the
 * edges), against `distance` and the frame at `ref_pts`; with BUF_FIELDS,
 * `how` (a byte of the input) breaks it. */
static void
add_field (Stream * s, GstBuffer * buf, gint distance, GstClockTime ref_pts,
    gboolean hostile, gboolean cut, FuzzInput * in)
{
  guint w = GST_VIDEO_INFO_WIDTH (&s->info);
  guint h = GST_VIDEO_INFO_HEIGHT (&s->info);
  guint8 how = hostile ? fuzz_u8 (in) : 0;
  guint parts = GST_MOTION_VECTOR_PARTITIONS_16X16;
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  GstMotionVectorMeta *meta;
  GstMotionVectorCell *cells;
  GBytes *data;
  guint n;

  if (how & 1)
    return;                     /* missing */
  if (how & 2) {
    parts = fuzz_u8 (in) & GST_MOTION_VECTOR_PARTITIONS_ALL;
    if (!parts)
      parts = GST_MOTION_VECTOR_PARTITIONS_8X8;
  }
  if (how & 4) {
    /* another size (the same now and then) */
    w = 1 + fuzz_u16 (in) % 512;
    h = 1 + fuzz_u16 (in) % 512;
  }
  n = gst_motion_vector_layout (w, h, parts, grids);
  if (n == 0)
    return;
  cells = g_new0 (GstMotionVectorCell, n);
  if (how & 8) {
    /* vectors and costs from the input: a few chosen cells at the edges,
     * the rest from the generator */
    fuzz_fill ((guint8 *) cells, (gsize) n * sizeof (*cells), fuzz_u8 (in));
    for (guint k = fuzz_u8 (in) % 8; k > 0; k--) {
      guint i = fuzz_u16 (in) % n;
      cells[i].mv_x = (gint16) fuzz_u32_edgy (in);
      cells[i].mv_y = (gint16) fuzz_u32_edgy (in);
      cells[i].cost = fuzz_u32_edgy (in);
    }
  } else {
    /* a plausible field: one small motion, small costs */
    gint16 mx = (gint8) fuzz_u8 (in), my = (gint8) fuzz_u8 (in);
    for (guint i = 0; i < n; i++) {
      cells[i].mv_x = mx;
      cells[i].mv_y = my;
      cells[i].cost = i % 97;
    }
  }
  data = g_bytes_new_take (cells, (gsize) n * sizeof (*cells));
  meta = gst_buffer_add_motion_vector_meta (buf, w, h, parts, data);
  g_bytes_unref (data);
  if (!meta)
    return;
  meta->ref_distance = distance;
  meta->ref_pts = ref_pts;
  if (!GST_CLOCK_TIME_IS_VALID (ref_pts))
    meta->flags |= GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE;
  if (how & 16) {
    /* another reference: -2, 0, +2, or the other side */
    static const gint dists[] = { -2, 0, 2, 1, -1, 127, G_MININT32 };
    meta->ref_distance = dists[fuzz_u8 (in) % G_N_ELEMENTS (dists)];
  }
  if (how & 32)
    meta->flags ^= GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE;
  {
    GstMotionVectorSummary sum;

    if (cut) {
      /* (a field without a 16x16 grid may have no summary to compute) */
      if (!gst_motion_vector_summary_compute (meta, NULL, &sum)) {
        memset (&sum, 0, sizeof (sum));
        sum.version = GST_MOTION_VECTOR_SUMMARY_VERSION;
      }
      sum.scene_change = 100.0;
      sum.flags |= GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE;
      sum.flags &= ~(GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE
          | GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS);
      gst_motion_vector_meta_set_summary (meta, &sum);
    } else if (how & 64) {
      fuzz_fill ((guint8 *) & sum, sizeof (sum), fuzz_u8 (in));
      gst_motion_vector_meta_set_summary (meta, &sum);
    }
  }
  if (how & 128) {
    /* a public field edited after the meta was made */
    switch (fuzz_u8 (in) % 6) {
      case 0:
        meta->width = fuzz_u32_edgy (in);
        break;
      case 1:
        meta->analysis_height = fuzz_u32_edgy (in);
        break;
      case 2:
        meta->partitions = fuzz_u32_edgy (in);
        break;
      case 3:{
        guint p = fuzz_u8 (in) % GST_MOTION_VECTOR_PARTITION_COUNT;
        meta->grids[p].cols = fuzz_u32_edgy (in);
        meta->grids[p].rows = fuzz_u32_edgy (in);
        meta->grids[p].offset = fuzz_u32_edgy (in);
        break;
      }
      case 4:
        meta->view = fuzz_u32_edgy (in);
        break;
      default:
        meta->ref_pts = fuzz_u64 (in);
        break;
    }
  }
}

/* The frame's timestamp; *step gets the step it was made with (the
 * default step of the next frame), or 1/25 s. */
static GstClockTime
pick_pts (guint8 bop, GstClockTime prev, gint64 * step, FuzzInput * in)
{
  guint8 k = fuzz_u8 (in);

  *step = (bop & BUF_PTS) ? GST_SECOND / 25 : steps[k % G_N_ELEMENTS (steps)];

  if (bop & BUF_PTS) {
    switch (k % 6) {
      case 0:
        return GST_CLOCK_TIME_NONE;
      case 1:
        return 0;
      case 2:
        return G_MAXUINT64 - 1;
      case 3:
        return (GstClockTime) G_MAXINT64;
      case 4:
        return fuzz_u64 (in);
      default:
        return (GstClockTime) fuzz_u32_edgy (in);
    }
  }
  if (!GST_CLOCK_TIME_IS_VALID (prev))
    prev = 0;
  return prev + (GstClockTime) steps[k % G_N_ELEMENTS (steps)];
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  static const char *const factories[] = { "mvinterpolate", NULL };

  fuzz_init (factories);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  FuzzInput in = { data, size };
  Stream s;
  GstClockTime pts = 0, prev_pts = GST_CLOCK_TIME_NONE;
  guint n_frames, r;
  guint8 first;
  GstPad *srcpad;

  memset (&s, 0, sizeof (s));
  s.held = GST_CLOCK_TIME_NONE;
  gst_video_info_init (&s.info);

  first = fuzz_u8 (&in);
  s.h = gst_harness_new ("mvinterpolate");
  /* the C reference unless the input asks for auto (the C reference too
   * on a machine without a GPU) */
  gst_util_set_object_arg (G_OBJECT (s.h->element), "backend",
      (first & 1) ? "auto" : "cpu");
  g_object_set (s.h->element, "cut-mode", (first >> 1) & 1, "threads",
      (guint) ((first >> 2) & 3), NULL);
  s.bus = gst_bus_new ();
  gst_element_set_bus (s.h->element, s.bus);
  srcpad = gst_element_get_static_pad (s.h->element, "src");
  gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER, on_output, &s, NULL);
  gst_object_unref (srcpad);

  r = fuzz_u8 (&in) % G_N_ELEMENTS (out_rates);
  s.out_n = out_rates[r][0];
  s.out_d = out_rates[r][1];
  set_sink_caps (&s);
  n_frames = 1 + fuzz_u8 (&in) % FUZZ_MAX_FRAMES;

  gst_harness_push_event (s.h, gst_event_new_stream_start ("fuzz"));
  set_caps (&s, &in);
  {
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_harness_push_event (s.h, gst_event_new_segment (&seg));
  }
  pop_errors (&s);

  for (guint f = 0; f < n_frames; f++) {
    guint8 op = fuzz_u8 (&in), bop = fuzz_u8 (&in);
    GstBuffer *buf;
    GstFlowReturn ret;
    GstClockTime dur;
    gint64 step;
    guint errors;
    gsize bsize;

    if (op & OP_RATE) {
      r = fuzz_u8 (&in) % G_N_ELEMENTS (out_rates);
      s.out_n = out_rates[r][0];
      s.out_d = out_rates[r][1];
      set_sink_caps (&s);
    }
    if (op & OP_CAPS)
      set_caps (&s, &in);
    if (op & OP_PROPS)
      g_object_set (s.h->element, "cut-mode", fuzz_u8 (&in) & 1, "threads",
          (guint) (fuzz_u8 (&in) % 5), NULL);
    if (op & OP_FLUSH) {
      GstSegment seg;

      gst_harness_push_event (s.h, gst_event_new_flush_start ());
      begin (&s);
      gst_harness_push_event (s.h, gst_event_new_flush_stop (TRUE));
      g_assert (s.n_out == 0);  /* a flush drops the held frame */
      restart (&s);
      gst_segment_init (&seg, GST_FORMAT_TIME);
      gst_harness_push_event (s.h, gst_event_new_segment (&seg));
    }
    if (op & OP_SEGMENT) {
      GstSegment seg;
      guint8 k = fuzz_u8 (&in);

      gst_segment_init (&seg, (k & 0x80) ? GST_FORMAT_BYTES : GST_FORMAT_TIME);
      seg.start = (k & 1) ? fuzz_u32_edgy (&in) : (k & 2) ? fuzz_u64 (&in)
          : pts;
      seg.position = seg.start;
      seg.time = seg.start;
      drain_window (&s);
      gst_harness_push_event (s.h, gst_event_new_segment (&seg));
      if (!(k & 0x80)) {
        drained (&s);
        restart (&s);
      }
    }
    if (op & OP_GAP) {
      drain_window (&s);
      /* at the last frame's time (a GAP event needs a valid one) */
      gst_harness_push_event (s.h, gst_event_new_gap (GST_CLOCK_TIME_IS_VALID
              (pts) ? pts : 0, GST_SECOND / 25));
      drained (&s);
    }
    if (op & OP_LATENCY)
      (void) gst_harness_query_latency (s.h);
    pop_errors (&s);
    if (op & OP_SKIP)
      continue;

    pts = pick_pts (bop, prev_pts, &step, &in);
    dur = GST_CLOCK_TIME_NONE;
    if (bop & BUF_DUR) {
      guint8 k = fuzz_u8 (&in);
      dur = (k & 1) ? GST_CLOCK_TIME_NONE : (k & 2) ? (GstClockTime)
          fuzz_u32_edgy (&in) : (GstClockTime) (k >> 2) * GST_MSECOND;
    } else if (GST_VIDEO_INFO_FPS_N (&s.info) > 0) {
      dur = gst_util_uint64_scale (GST_SECOND, GST_VIDEO_INFO_FPS_D (&s.info),
          GST_VIDEO_INFO_FPS_N (&s.info));
    }

    bsize = GST_VIDEO_INFO_SIZE (&s.info);
    if (bop & BUF_SHORT)
      bsize = fuzz_u16 (&in) % (bsize + 1);
    buf = gst_buffer_new_allocate (NULL, bsize, NULL);
    if (bsize) {
      GstMapInfo map;
      if (gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
        fuzz_fill (map.data, map.size, ++s.frame_seed);
        gst_buffer_unmap (buf, &map);
      }
    }
    GST_BUFFER_PTS (buf) = pts;
    GST_BUFFER_DURATION (buf) = dur;
    if (bop & BUF_GAP)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
    if (bop & BUF_DISCONT)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    {
      /* against the frame before and the frame after: the frame after is
       * not known yet to a real search, which holds the frame; here it is
       * the time the next frame has when it comes with the same step */
      GstClockTime next = pts + (GstClockTime) step;
      GstClockTime before = prev_pts;
      if (bop & BUF_REFPTS) {
        before = fuzz_u64 (&in);
        next = fuzz_u64 (&in);
      }
      add_field (&s, buf, -1, before, (bop & BUF_FIELDS) != 0,
          (bop & BUF_CUT) != 0, &in);
      add_field (&s, buf, +1, next, (bop & BUF_FIELDS) != 0, FALSE, &in);
      if ((bop & BUF_FIELDS) && (fuzz_u8 (&in) & 1))
        add_field (&s, buf, -1, before, TRUE, FALSE, &in);      /* a third */
    }

    /* a buffer releases the frames between the held one and itself; a
     * gap buffer drains the held frame */
    if (bop & BUF_GAP) {
      drain_window (&s);
    } else {
      begin (&s);
      if (GST_CLOCK_TIME_IS_VALID (s.held) && GST_CLOCK_TIME_IS_VALID (pts)
          && !s.unknown) {
        s.have_window = TRUE;
        s.lo = s.held;
        s.hi = pts;
      }
    }
    ret = gst_harness_push (s.h, buf);
    errors = pop_errors (&s);
    if (ret == GST_FLOW_ERROR)
      g_assert (errors > 0);    /* a flow error is explained */
    /* (a gap buffer drains the held frame as the GAP event does, and
     * answers OK whatever the drain met, as the event answers TRUE) */
    if (errors > 0 && ret == GST_FLOW_OK && !(bop & BUF_GAP))
      fail ("an error message, and the buffer went on (flow OK)");
    if (bop & BUF_GAP) {
      drained (&s);
    } else if (ret == GST_FLOW_OK || (ret == GST_FLOW_EOS && s.capped)) {
      /* accepted: it is the held frame now */
      if (GST_CLOCK_TIME_IS_VALID (s.held) && s.n_out > 0 && !s.capped
          && !s.unknown)
        g_assert (s.final_end >= pts);  /* no frame left out at the end */
      if (bsize < GST_VIDEO_INFO_SIZE (&s.info))
        fail ("a buffer of %" G_GSIZE_FORMAT " bytes, shorter than its caps' "
            "%" G_GSIZE_FORMAT ", was taken", bsize,
            GST_VIDEO_INFO_SIZE (&s.info));
      s.held = pts;
      s.unknown = FALSE;
      s.held_end = GST_CLOCK_TIME_IS_VALID (dur) ? pts + dur : pts;
      if (!GST_CLOCK_TIME_IS_VALID (dur) && GST_VIDEO_INFO_FPS_N (&s.info) > 0)
        s.held_end = pts + gst_util_uint64_scale (GST_SECOND,
            GST_VIDEO_INFO_FPS_D (&s.info), GST_VIDEO_INFO_FPS_N (&s.info));
      if (s.held_end < pts)
        s.held_end = G_MAXUINT64;       /* past the clock's end */
      prev_pts = pts;
    } else {
      /* refused: nothing released */
      if (s.n_out != 0 && !s.capped)
        fail ("a refused buffer (%s) released %u frames",
            gst_flow_get_name (ret), s.n_out);
    }
  }

  drain_window (&s);
  gst_harness_push_event (s.h, gst_event_new_eos ());
  drained (&s);
  pop_errors (&s);
  gst_element_set_bus (s.h->element, NULL);
  gst_object_unref (s.bus);
  gst_harness_teardown (s.h);
  return 0;
}
