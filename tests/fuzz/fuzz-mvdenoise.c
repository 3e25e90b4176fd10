/* gpumotionest — fuzz target: what reaches the mvdenoise element from
 * upstream, downstream and the application.
 *
 * The input is a script.  A header picks the properties (radius, sigma,
 * backend, threads), the number of frames and the first caps; then, per
 * frame, an op byte says what comes before the buffer (new caps of any
 * format and size, a flush, a segment of any start, a GAP event, a
 * latency query, new properties, a read of sigma-estimate) and a second
 * byte what the buffer is like: its timestamp (the next frame time, a
 * duplicate, one going backwards, none, or any 64-bit value), its
 * duration, GAP and DISCONT flags, a short buffer, and the fields that
 * `gpumotionest references=-4..+4` would attach (against the frames
 * before and after), each of which may be missing, of another size,
 * against another reference, with any ref_pts, grids, vectors (up to the
 * int16 edges), costs, summary (a cut among them) or broken public fields.
 * The stream ends with EOS.
 *
 * What is checked: every input buffer is numbered (its offset); every
 * output buffer must be the next one taken and not yet out, so that none
 * is lost, repeated or reordered (a flush alone drops the held ones);
 * after each buffer taken at most `radius` wait, and after EOS none; an
 * output buffer is a new one of the caps' size with the input's
 * timestamps and fields (a gap buffer passes as it came).  On every push:
 * GST_FLOW_ERROR comes with a GST_MESSAGE_ERROR, an error message with a
 * flow other than OK, a refused buffer releases no frame, and a buffer
 * shorter than its caps' frame is refused.  sigma-estimate stays in
 * 0 .. 255.  A crash, a sanitizer report or a critical ends the run as in
 * the other targets.
 *
 * With FUZZ_VERBOSE=1 in the environment every output (offset, PTS) and
 * every error message is printed, which is how a saved input is read.
 *
 * Work is bounded: frames of at most FUZZ_MAX_PIXELS luma samples, at
 * most FUZZ_MAX_FRAMES inputs.
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

#define FUZZ_MAX_FRAMES 24
#define FUZZ_MAX_PIXELS (1u << 12)
#define MAX_RADIUS 4

/* op, first byte: before the buffer */
#define OP_CAPS (1u << 0)       /* new input caps (format, size, rate) */
#define OP_ESTIMATE (1u << 1)   /* read sigma-estimate */
#define OP_FLUSH (1u << 2)      /* flush-start, flush-stop, segment */
#define OP_SEGMENT (1u << 3)    /* a new segment of any start */
#define OP_GAP (1u << 4)        /* a GAP event */
#define OP_PROPS (1u << 5)      /* radius, sigma, threads */
#define OP_LATENCY (1u << 6)
#define OP_SKIP (1u << 7)       /* no buffer this time */
/* op, second byte: the buffer */
#define BUF_PTS (1u << 0)       /* a timestamp not from the frame clock */
#define BUF_DUR (1u << 1)       /* a duration from the input (or none) */
#define BUF_GAP (1u << 2)
#define BUF_DISCONT (1u << 3)
#define BUF_FIELDS (1u << 4)    /* fields of the input's choosing */
#define BUF_SHORT (1u << 5)     /* fewer bytes than the caps' frame */
#define BUF_CUT (1u << 6)       /* the first field's summary says: a cut */
#define BUF_REFPTS (1u << 7)    /* ref_pts from the input */

/* The formats mvdenoise takes (packed, RGB and alpha among them), and one
 * it refuses. */
static const GstVideoFormat formats[] = {
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_Y42B,
  GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_I422_10LE,
  GST_VIDEO_FORMAT_Y444_16LE, GST_VIDEO_FORMAT_GRAY16_LE,
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_P010_10LE,
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_UYVY,
  GST_VIDEO_FORMAT_I420_10BE,
};

static const gint in_rates[][2] = {
  {25, 1}, {30, 1}, {30000, 1001}, {0, 1}, {60, 1}, {1, 1}, {7, 3},
  {2147483647, 1},
};

static const gdouble sigmas[] = { -1, 0, 1, 4.5, 10, 20, 100, 255 };

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
  guint frame_seed;
  guint radius;
  guint64 seq;                  /* the next input's number */
  GQueue waiting;               /* numbers taken, not yet out */
  gboolean refused;             /* the last caps were refused: the sticky
                                 * events after them (a segment) and
                                 * serialized ones (GAP) wait behind them,
                                 * and never reach the element */
  guint n_out;                  /* outputs of the current push */
} Stream;

static GstPadProbeReturn
on_output (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stream *s = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 off = GST_BUFFER_OFFSET (buf);
  gpointer want;

  if (g_getenv ("FUZZ_VERBOSE"))
    fprintf (stderr, "out #%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "%s\n",
        off, GST_BUFFER_PTS (buf),
        GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP) ? " gap" : "");
  if (g_queue_is_empty (&s->waiting))
    fail ("output #%" G_GUINT64_FORMAT ", but none waits", off);
  want = g_queue_pop_head (&s->waiting);
  if (off != GPOINTER_TO_SIZE (want))
    fail ("output #%" G_GUINT64_FORMAT ", #%" G_GSIZE_FORMAT " expected", off,
        GPOINTER_TO_SIZE (want));
  if (!GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)
      && gst_buffer_get_size (buf) < GST_VIDEO_INFO_SIZE (&s->info))
    fail ("output #%" G_GUINT64_FORMAT " of %" G_GSIZE_FORMAT " bytes", off,
        gst_buffer_get_size (buf));
  s->n_out++;
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

/* Everything waiting went out (a drain: new caps, a segment, a gap). */
static void
drained (Stream * s, const char *what)
{
  if (!g_queue_is_empty (&s->waiting))
    fail ("%u frames still held after %s", g_queue_get_length (&s->waiting),
        what);
}

static void
set_caps (Stream * s, FuzzInput * in)
{
  GstVideoFormat format = formats[fuzz_u8 (in) % G_N_ELEMENTS (formats)];
  guint r = fuzz_u8 (in) % G_N_ELEMENTS (in_rates);
  guint w = 1 + fuzz_u16 (in) % 8192, h = 1 + fuzz_u16 (in) % 8192;
  GstVideoInfo info;
  GstCaps *caps;

  if ((guint64) w * h > FUZZ_MAX_PIXELS)
    h = MAX (1, FUZZ_MAX_PIXELS / w);
  gst_video_info_set_format (&info, format, w, h);
  GST_VIDEO_INFO_FPS_N (&info) = in_rates[r][0];
  GST_VIDEO_INFO_FPS_D (&info) = in_rates[r][1];
  caps = gst_video_info_to_caps (&info);
  /* the frames held go out with the old caps (s->info, which the probe
   * reads, changes after the push) */
  gst_harness_push_event (s->h, gst_event_new_caps (caps));
  {
    /* (a sticky event's push says TRUE even when the peer refused it);
     * refused caps leave the element as it was */
    GstPad *sink = gst_element_get_static_pad (s->h->element, "sink");
    GstCaps *cur = gst_pad_get_current_caps (sink);

    s->refused = !cur || !gst_caps_is_equal (cur, caps);
    if (!s->refused) {
      if (!gst_video_info_is_equal (&info, &s->info))
        drained (s, "new caps");
      s->info = info;
    }
    gst_clear_caps (&cur);
    gst_object_unref (sink);
  }
  gst_caps_unref (caps);
  pop_errors (s);
}

static void
set_props (Stream * s, FuzzInput * in)
{
  guint8 k = fuzz_u8 (in);

  s->radius = 1 + k % MAX_RADIUS;
  g_object_set (s->h->element, "radius", s->radius, "sigma",
      sigmas[(k >> 2) % G_N_ELEMENTS (sigmas)], "threads",
      (guint) ((k >> 5) & 3), NULL);
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
    static const gint dists[] = { -2, 0, 2, 1, -1, 127, G_MININT32, 4, -4,
      5, -3 };
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
  static const char *const factories[] = { "mvdenoise", NULL };

  fuzz_init (factories);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  FuzzInput in = { data, size };
  Stream s;
  GstClockTime pts = 0, past[MAX_RADIUS];
  guint n_frames, n_past = 0;
  guint8 first;
  GstPad *srcpad;

  memset (&s, 0, sizeof (s));
  g_queue_init (&s.waiting);
  gst_video_info_init (&s.info);

  first = fuzz_u8 (&in);
  s.h = gst_harness_new ("mvdenoise");
  /* the CPU unless the input asks for auto (the CPU too on a machine
   * without a GPU) */
  gst_util_set_object_arg (G_OBJECT (s.h->element), "backend",
      (first & 1) ? "auto" : "cpu");
  set_props (&s, &in);
  s.bus = gst_bus_new ();
  gst_element_set_bus (s.h->element, s.bus);
  srcpad = gst_element_get_static_pad (s.h->element, "src");
  gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER, on_output, &s, NULL);
  gst_object_unref (srcpad);
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
    guint errors, held_before;
    gsize bsize;
    guint64 id;

    if (g_getenv ("FUZZ_VERBOSE"))
      fprintf (stderr, "frame %u: op 0x%02x buffer 0x%02x\n", f, op, bop);
    if (op & OP_CAPS)
      set_caps (&s, &in);
    if (op & OP_PROPS)
      set_props (&s, &in);
    if (op & OP_ESTIMATE) {
      gdouble est = -2;

      g_object_get (s.h->element, "sigma-estimate", &est, NULL);
      if (!(est >= 0 && est <= 255))
        fail ("sigma-estimate %f", est);
    }
    if (op & OP_FLUSH) {
      GstSegment seg;

      s.n_out = 0;
      gst_harness_push_event (s.h, gst_event_new_flush_start ());
      gst_harness_push_event (s.h, gst_event_new_flush_stop (TRUE));
      if (s.n_out != 0)
        fail ("a flush released %u frames", s.n_out);
      /* a flush drops what is held */
      g_queue_clear (&s.waiting);
      n_past = 0;
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
      gst_harness_push_event (s.h, gst_event_new_segment (&seg));
      if (!(k & 0x80) && !s.refused)
        drained (&s, "a segment");
    }
    if (op & OP_GAP) {
      gst_harness_push_event (s.h, gst_event_new_gap (GST_CLOCK_TIME_IS_VALID
              (pts) ? pts : 0, GST_SECOND / 25));
      if (!s.refused)
        drained (&s, "a GAP event");
    }
    if (op & OP_LATENCY)
      (void) gst_harness_query_latency (s.h);
    pop_errors (&s);
    if (op & OP_SKIP)
      continue;

    pts = pick_pts (bop, n_past ? past[0] : GST_CLOCK_TIME_NONE, &step, &in);
    dur = GST_CLOCK_TIME_NONE;
    if (bop & BUF_DUR) {
      guint8 k = fuzz_u8 (&in);
      dur = (k & 1) ? GST_CLOCK_TIME_NONE : (k & 2) ? (GstClockTime)
          fuzz_u32_edgy (&in) : (GstClockTime) (k >> 2) * GST_MSECOND;
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
    id = s.seq++;
    GST_BUFFER_PTS (buf) = pts;
    GST_BUFFER_DURATION (buf) = dur;
    GST_BUFFER_OFFSET (buf) = id;
    if (bop & BUF_GAP)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
    if (bop & BUF_DISCONT)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    if (!(bop & BUF_GAP)) {
      /* fields against the frames before (those taken) and after (the
       * times the next frames have with the same step), the nearest
       * first, a cut on the first when asked */
      guint n = 1 + fuzz_u8 (&in) % (2 * MAX_RADIUS);

      for (guint k = 0; k < n; k++) {
        gint d = (k & 1) ? (gint) (k / 2 + 1) : -(gint) (k / 2 + 1);
        GstClockTime ref = d < 0 ? ((guint) - d <= n_past ? past[-d - 1]
            : GST_CLOCK_TIME_NONE) : pts + (GstClockTime) (step * d);

        if (bop & BUF_REFPTS)
          ref = fuzz_u64 (&in);
        add_field (&s, buf, d, ref, (bop & BUF_FIELDS) != 0,
            k == 0 && (bop & BUF_CUT), &in);
      }
    }

    held_before = g_queue_get_length (&s.waiting);
    g_queue_push_tail (&s.waiting, GSIZE_TO_POINTER (id));
    s.n_out = 0;
    ret = gst_harness_push (s.h, buf);
    errors = pop_errors (&s);
    if (g_getenv ("FUZZ_VERBOSE"))
      fprintf (stderr, "in #%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT ": %s\n",
          id, pts, gst_flow_get_name (ret));
    if (ret == GST_FLOW_ERROR && errors == 0)
      fail ("a flow error without an error message");
    if (errors > 0 && ret == GST_FLOW_OK)
      fail ("an error message, and the buffer went on (flow OK)");
    if (ret == GST_FLOW_OK) {
      if (bsize < GST_VIDEO_INFO_SIZE (&s.info) && !(bop & BUF_GAP))
        fail ("a buffer of %" G_GSIZE_FORMAT " bytes, shorter than its caps' "
            "%" G_GSIZE_FORMAT ", was taken", bsize,
            GST_VIDEO_INFO_SIZE (&s.info));
      if (bop & BUF_GAP) {
        drained (&s, "a gap buffer");
        n_past = 0;
      } else {
        if (g_queue_get_length (&s.waiting) > s.radius)
          fail ("%u frames held at radius %u",
              g_queue_get_length (&s.waiting), s.radius);
        if (bop & BUF_DISCONT)
          n_past = 0;
        memmove (past + 1, past, sizeof (past[0]) * (MAX_RADIUS - 1));
        past[0] = pts;
        n_past = MIN (n_past + 1, MAX_RADIUS);
      }
    } else {
      /* refused: nothing released, and it is not held */
      if (s.n_out != 0)
        fail ("a refused buffer (%s) released %u frames",
            gst_flow_get_name (ret), s.n_out);
      if (g_queue_pop_tail (&s.waiting) != GSIZE_TO_POINTER (id)
          || g_queue_get_length (&s.waiting) != held_before)
        fail ("a refused buffer went out");
      /* a stream that erred may keep what it held: later pushes say */
    }
  }

  gst_harness_push_event (s.h, gst_event_new_eos ());
  if (pop_errors (&s) == 0 && !s.refused)
    drained (&s, "EOS");
  gst_element_set_bus (s.h->element, NULL);
  gst_object_unref (s.bus);
  gst_harness_teardown (s.h);
  g_queue_clear (&s.waiting);
  return 0;
}
