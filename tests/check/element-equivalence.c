/* gpumotionest — the element gives the same metas whatever runs the search.
 *
 * The same input goes through `gpumotionest backend=cpu in-flight=1` (the
 * reference) and through the element under test: the CPU backend at depths
 * 2..8, or with --backend cuda the CUDA backend at depths 1..8.  Every
 * buffer that leaves is compared with the reference's buffer of the same
 * timestamp, meta field by meta field, cell by cell and, with the
 * partition decision on, macroblock by macroblock.  A backend-level
 * comparison (checkasm) cannot see frames lost, duplicated or reordered by
 * the element, nor a reference dropped at a start or a seek: this does.
 *
 * Two inputs:
 *  - a script pushed through a GstHarness: starts, a DISCONT buffer, a
 *    flushing seek with frames in flight, caps changes to other formats
 *    and sizes (NV12, then UYVY and BGRx, whose luma each backend reads
 *    from the packed pixels, then P010_10LE and GRAY16_LE, searched at 10
 *    and 16 bits), EOS;
 *  - a real pipeline, videotestsrc ! gpumotionest ! appsink, with a
 *    flushing seek while playing.
 *
 * --devices LIST sets the devices property (cuda-multi splits frames over
 * them; "0,0,0" gives three sessions on one GPU).
 * --method NAME runs both with that search method (default full); with
 * `predictive` the scripted DISCONT, seek and caps change also check that
 * every backend drops its temporal predictors at the same frames.
 * --qp N adds quarter-pel SATD refinement and the rate-constrained
 * decision at that quantiser, whose order of decisions is the GPU's most
 * intricate schedule.
 * --references LIST sets the references property on both: every field of
 * every buffer is compared, in order; frames held for a future reference
 * may also be lost at the flush.
 *
 * Exits 77 (skip) when the backend asked for cannot run here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#define FRAME_NS (GST_SECOND / 30)

/* ---- input ---------------------------------------------------------------- */

/* A textured world with flat areas and soft gradients: flat areas give
 * many candidates of equal cost, where only the tie-break decides. */
static guint8 *world;
#define WORLD_W 1024
#define WORLD_H 640

static void
make_world (void)
{
  GRand *rand = g_rand_new_with_seed (77);

  world = g_malloc (WORLD_W * WORLD_H);
  for (guint y = 0; y < WORLD_H; y++)
    for (guint x = 0; x < WORLD_W; x++) {
      guint8 v;
      if ((x / 96 + y / 80) % 3 == 0)
        v = 100;                /* flat */
      else if ((x / 96 + y / 80) % 3 == 1)
        v = (x + 2 * y) / 8;    /* gradient */
      else
        v = g_rand_int (rand) & 0xff;
      world[y * WORLD_W + x] = v;
    }
  g_rand_free (rand);
}

/* Frame i of a camera wandering over the world, with a little noise. */
static GstBuffer *
make_frame (GstVideoFormat format, guint w, guint h, guint i)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;
  guint ox = 200 + 5 * i + (i % 3), oy = 150 + 3 * i - 2 * (i % 4);
  GRand *rand = g_rand_new_with_seed (i);

  gst_video_info_set_format (&info, format, w, h);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 128, info.size);
  g_assert (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (guint y = 0; y < h; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (guint x = 0; x < w; x++) {
      gint v = world[((oy + y) % WORLD_H) * WORLD_W + (ox + x) % WORLD_W];
      v += (gint) (g_rand_int (rand) % 5) - 2;
      v = CLAMP (v, 0, 255);
      if (GST_VIDEO_INFO_COMP_DEPTH (&info, 0) > 8) {
        /* 16-bit words: the sample spread over the depth, the bits below
         * the eighth from the noise, at the format's shift */
        const guint depth = GST_VIDEO_INFO_COMP_DEPTH (&info, 0);
        const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (info.finfo, 0);
        const guint s = (guint) v << (depth - 8)
            | (g_rand_int (rand) & ((1u << (depth - 8)) - 1));
        GST_WRITE_UINT16_LE (row + 2 * x, s << shift);
      } else if (GST_VIDEO_INFO_IS_RGB (&info)) {
        /* three different channels, so that the derived luma weighs them */
        guint8 *p = row + x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);
        p[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_R)] = v;
        p[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_G)] = 255 - v;
        p[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_B)] = v * 7;
      } else {
        row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0)
            + GST_VIDEO_FRAME_COMP_POFFSET (&frame, 0)] = v;
      }
    }
  }
  gst_video_frame_unmap (&frame);
  g_rand_free (rand);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  return buf;
}

/* ---- comparison ----------------------------------------------------------- */

typedef struct {
  const gchar *what;
  guint frames;
  guint cells;
  guint failures;
} Tally;

static gboolean
same_meta (Tally * t, GstClockTime pts, const GstMotionVectorMeta * a,
    const GstMotionVectorMeta * b, gboolean with_modes)
{
  gsize sa, sb;
  const GstMotionVectorCell *ca, *cb;

#define FIELD(f) if (a->f != b->f) { \
    g_printerr ("%s: frame %" GST_TIME_FORMAT ": " #f " %" G_GINT64_FORMAT \
        " != %" G_GINT64_FORMAT "\n", t->what, GST_TIME_ARGS (pts), \
        (gint64) a->f, (gint64) b->f); return FALSE; }
  FIELD (width);
  FIELD (height);
  FIELD (analysis_width);
  FIELD (analysis_height);
  FIELD (ref_distance);
  FIELD (ref_pts);
  FIELD (flags);
  FIELD (method);
  FIELD (search_range);
  FIELD (partitions);
  for (guint p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    FIELD (grids[p].cols);
    FIELD (grids[p].rows);
    FIELD (grids[p].offset);
  }
#undef FIELD
  ca = g_bytes_get_data (a->data, &sa);
  cb = g_bytes_get_data (b->data, &sb);
  if (sa != sb) {
    g_printerr ("%s: frame %" GST_TIME_FORMAT ": %" G_GSIZE_FORMAT
        " bytes of cells != %" G_GSIZE_FORMAT "\n", t->what,
        GST_TIME_ARGS (pts), sa, sb);
    return FALSE;
  }
  for (gsize i = 0; i < sa / sizeof (GstMotionVectorCell); i++) {
    if (memcmp (&ca[i], &cb[i], sizeof (GstMotionVectorCell)) != 0) {
      g_printerr ("%s: frame %" GST_TIME_FORMAT ", cell %" G_GSIZE_FORMAT
          ": mv (%d,%d) cost %u pred (%d,%d) mvd (%d,%d) != mv (%d,%d) "
          "cost %u pred (%d,%d) mvd (%d,%d)\n", t->what, GST_TIME_ARGS (pts),
          i, ca[i].mv_x, ca[i].mv_y, ca[i].cost, ca[i].pred_x, ca[i].pred_y,
          ca[i].mvd_x, ca[i].mvd_y, cb[i].mv_x, cb[i].mv_y, cb[i].cost,
          cb[i].pred_x, cb[i].pred_y, cb[i].mvd_x, cb[i].mvd_y);
      return FALSE;
    }
  }
  t->cells += sa / sizeof (GstMotionVectorCell);

  /* the partition decision (flags says whether there is one), on the
   * first field */
  if (!with_modes)
    return TRUE;
  if (a->modes && (g_bytes_get_size (a->modes) != g_bytes_get_size (b->modes)
          || memcmp (g_bytes_get_data (a->modes, NULL),
              g_bytes_get_data (b->modes, NULL),
              g_bytes_get_size (a->modes)) != 0)) {
    g_printerr ("%s: frame %" GST_TIME_FORMAT ": modes differ\n", t->what,
        GST_TIME_ARGS (pts));
    return FALSE;
  }
  if (!a->modes || !gst_motion_vector_meta_get_modes (a, NULL, NULL)) {
    g_printerr ("%s: frame %" GST_TIME_FORMAT ": no partition decision\n",
        t->what, GST_TIME_ARGS (pts));
    return FALSE;
  }
  return TRUE;
}

/* Every field of two buffers, in order; the first carries the decision. */
static gboolean
same_fields (Tally * t, GstClockTime pts, GstBuffer * a, GstBuffer * b)
{
  const guint n = gst_buffer_get_n_motion_vector_metas (a);

  if (n != gst_buffer_get_n_motion_vector_metas (b) || n == 0) {
    g_printerr ("%s: frame %" GST_TIME_FORMAT ": %u fields, expected %u\n",
        t->what, GST_TIME_ARGS (pts), gst_buffer_get_n_motion_vector_metas
        (b), n);
    return FALSE;
  }
  for (guint i = 0; i < n; i++)
    if (!same_meta (t, pts, gst_buffer_get_motion_vector_meta_nth (a, i),
            gst_buffer_get_motion_vector_meta_nth (b, i), i == 0))
      return FALSE;
  return TRUE;
}

/* Compares two outputs (GstBuffer lists in the order they left).  Frames
 * present in both must agree; `may_lack` lists the timestamps one side may
 * lack (frames in flight at a flush, dropped by design).  Everything else
 * must be in both, each once, in increasing time. */
static void
compare_outputs (Tally * t, GPtrArray * ref, GPtrArray * out,
    const GstClockTime * may_lack, guint n_may_lack)
{
  GHashTable *by_pts = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTable *seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  GstClockTime last = GST_CLOCK_TIME_NONE;

  for (guint i = 0; i < ref->len; i++) {
    GstBuffer *b = g_ptr_array_index (ref, i);
    g_hash_table_insert (by_pts, &GST_BUFFER_PTS (b), b);
  }
  for (guint i = 0; i < out->len; i++) {
    GstBuffer *b = g_ptr_array_index (out, i);
    GstClockTime pts = GST_BUFFER_PTS (b);
    GstBuffer *r = g_hash_table_lookup (by_pts, &pts);
    GstMotionVectorMeta *mo = gst_buffer_get_motion_vector_meta (b);

    if (GST_CLOCK_TIME_IS_VALID (last) && pts <= last) {
      g_printerr ("%s: frame %" GST_TIME_FORMAT " after %" GST_TIME_FORMAT
          "\n", t->what, GST_TIME_ARGS (pts), GST_TIME_ARGS (last));
      t->failures++;
    }
    last = pts;
    g_hash_table_add (seen, &GST_BUFFER_PTS (b));
    if (!r) {
      gboolean allowed = FALSE;
      for (guint k = 0; k < n_may_lack; k++)
        allowed |= may_lack[k] == pts;
      if (!allowed) {
        g_printerr ("%s: frame %" GST_TIME_FORMAT " not in the reference\n",
            t->what, GST_TIME_ARGS (pts));
        t->failures++;
      }
      continue;
    }
    if (!mo || !gst_buffer_get_motion_vector_meta (r)) {
      g_printerr ("%s: frame %" GST_TIME_FORMAT " without a meta\n",
          t->what, GST_TIME_ARGS (pts));
      t->failures++;
      continue;
    }
    if (!same_fields (t, pts, r, b))
      t->failures++;
    t->frames++;
  }
  for (guint i = 0; i < ref->len; i++) {
    GstClockTime pts = GST_BUFFER_PTS ((GstBuffer *) g_ptr_array_index (ref,
            i));
    gboolean allowed = FALSE;
    for (guint k = 0; k < n_may_lack; k++)
      allowed |= may_lack[k] == pts;
    if (!allowed && !g_hash_table_contains (seen, &pts)) {
      g_printerr ("%s: frame %" GST_TIME_FORMAT " lost\n", t->what,
          GST_TIME_ARGS (pts));
      t->failures++;
    }
  }
  g_hash_table_unref (by_pts);
  g_hash_table_unref (seen);
}

/* ---- the harness script --------------------------------------------------- */

static const gchar *backend_name = "cpu";
static const gchar *method_name = "full";
static const gchar *devices = "all";
static const gchar *references = "-1";
static gint qp = -1;

/* The furthest future reference of the list: frames the element holds. */
static guint
future_references (void)
{
  g_auto (GStrv) items = g_strsplit (references, ",", -1);
  gint f = 0;

  for (guint i = 0; items[i]; i++)
    f = MAX (f, atoi (items[i]));
  return f;
}

/* The encoder-grade stages (--qp), or the integer search alone. */
static void
set_stages (GstElement * me)
{
  if (qp < 0)
    return;
  gst_util_set_object_arg (G_OBJECT (me), "subpel", "quarter");
  gst_util_set_object_arg (G_OBJECT (me), "metric", "satd");
  g_object_set (me, "qp", qp, NULL);
}

/* The element starts on "auto" and is switched to `backend`, which opens
 * at the first frame: whether it could is known only then. */
static GstHarness *
open_harness (const gchar * backend, guint depth)
{
  GstHarness *h = gst_harness_new ("gpumotionest");

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  gst_util_set_object_arg (G_OBJECT (h->element), "method", method_name);
  g_object_set (h->element, "devices", devices, "references", references,
      NULL);
  g_object_set (h->element, "in-flight", depth, "search-range", 16,
      "partitions", GST_MOTION_VECTOR_PARTITIONS_ALL, "mode-decision", TRUE,
      NULL);
  set_stages (h->element);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=200,"
      "height=120,framerate=30/1");
  return h;
}

static gboolean
is_active (GstHarness * h, const gchar * backend)
{
  gchar *active = NULL;
  gboolean same;

  g_object_get (h->element, "active-backend", &active, NULL);
  same = g_strcmp0 (active, backend) == 0;
  g_free (active);
  return same;
}

static void
push (GstHarness * h, GPtrArray * out, GstBuffer * b)
{
  GstBuffer *o;

  if (gst_harness_push (h, b) != GST_FLOW_OK)
    g_error ("push failed");
  while ((o = gst_harness_try_pull (h)))
    g_ptr_array_add (out, o);
}

static void
event (GstHarness * h, GPtrArray * out, GstEvent * e)
{
  GstBuffer *o;

  if (!gst_harness_push_event (h, e))
    g_error ("event refused");
  while ((o = gst_harness_try_pull (h)))
    g_ptr_array_add (out, o);
}

/* Runs the script; returns the buffers that left, in order.  The frames
 * just before the flush (depth - 1 of them) are the only ones a deeper
 * element may drop. */
static GPtrArray *
run_script (const gchar * backend, guint depth, gboolean * usable)
{
  GstHarness *h = open_harness (backend, depth);
  GPtrArray *out = g_ptr_array_new_with_free_func (
      (GDestroyNotify) gst_buffer_unref);
  GstSegment seg;
  GstBuffer *b;
  guint i = 0;

  /* a start, as a source marks it */
  b = make_frame (GST_VIDEO_FORMAT_I420, 200, 120, i++);
  GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
  *usable = gst_harness_push (h, b) == GST_FLOW_OK && is_active (h, backend);
  if (!*usable) {
    gst_harness_teardown (h);
    return out;
  }
  for (; i < 12; i++)
    push (h, out, make_frame (GST_VIDEO_FORMAT_I420, 200, 120, i));
  /* a discontinuity */
  for (; i < 24; i++) {
    b = make_frame (GST_VIDEO_FORMAT_I420, 200, 120, i);
    if (i == 15)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    push (h, out, b);
  }
  /* a flushing seek with frames in flight */
  event (h, out, gst_event_new_flush_start ());
  event (h, out, gst_event_new_flush_stop (TRUE));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  event (h, out, gst_event_new_segment (&seg));
  for (i = 40; i < 52; i++) {
    b = make_frame (GST_VIDEO_FORMAT_I420, 200, 120, i);
    if (i == 40)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    push (h, out, b);
  }
  /* new caps: another format and size */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=NV12,width=97,"
      "height=65,framerate=30/1");
  for (; i < 64; i++)
    push (h, out, make_frame (GST_VIDEO_FORMAT_NV12, 97, 65, i));
  /* packed 4:2:2 and RGB, converted to luma in each backend's copy */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=UYVY,width=130,"
      "height=70,framerate=30/1");
  for (; i < 72; i++)
    push (h, out, make_frame (GST_VIDEO_FORMAT_UYVY, 130, 70, i));
  gst_harness_set_src_caps_str (h, "video/x-raw,format=BGRx,width=99,"
      "height=67,framerate=30/1");
  for (; i < 80; i++)
    push (h, out, make_frame (GST_VIDEO_FORMAT_BGRx, 99, 67, i));
  /* 10 and 16 bits, searched at their depth (docs/high-bit-depth.md) */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=P010_10LE,width=120,"
      "height=68,framerate=30/1");
  for (; i < 88; i++)
    push (h, out, make_frame (GST_VIDEO_FORMAT_P010_10LE, 120, 68, i));
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY16_LE,width=90,"
      "height=50,framerate=30/1");
  for (; i < 96; i++)
    push (h, out, make_frame (GST_VIDEO_FORMAT_GRAY16_LE, 90, 50, i));
  event (h, out, gst_event_new_eos ());
  gst_harness_teardown (h);
  return out;
}

/* ---- a real pipeline with a seek ----------------------------------------- */

static GPtrArray *
run_pipeline (const gchar * backend, guint depth)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=ball "
      "motion=sweep ! video/x-raw,format=I420,width=320,height=240,"
      "framerate=30/1 ! gpumotionest name=me backend=%s in-flight=%u "
      "method=%s devices=%s references=%s search-range=24 partitions=all "
      "mode-decision=true ! appsink name=sink sync=false",
      backend, depth, method_name, devices, references);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *sink;
  GPtrArray *out = g_ptr_array_new_with_free_func (
      (GDestroyNotify) gst_buffer_unref);
  GstSample *s;
  guint n = 0;

  if (!pipe)
    g_error ("%s", err->message);
  g_free (desc);
  {
    GstElement *me = gst_bin_get_by_name (GST_BIN (pipe), "me");
    set_stages (me);
    gst_object_unref (me);
  }
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  gst_element_get_state (pipe, NULL, NULL, GST_CLOCK_TIME_NONE);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((s = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    g_ptr_array_add (out, gst_buffer_ref (gst_sample_get_buffer (s)));
    gst_sample_unref (s);
    /* After 20 frames, jump back to frame 10 and play up to frame 90. */
    if (++n == 20)
      gst_element_seek (pipe, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
          gst_util_uint64_scale (10, GST_SECOND, 30), GST_SEEK_TYPE_SET,
          gst_util_uint64_scale (90, GST_SECOND, 30));
  }
  {
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (m)
      g_error ("pipeline error");
    gst_object_unref (bus);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return out;
}

/* The pipeline's output: frames 0..19 or more, then 10..89.  Split at
 * the seek (the first time that goes back) into two runs to compare. */
static void
split_at_seek (GPtrArray * all, GPtrArray * before, GPtrArray * after)
{
  gboolean seeked = FALSE;

  for (guint i = 0; i < all->len; i++) {
    GstBuffer *b = g_ptr_array_index (all, i);
    if (i > 0 && GST_BUFFER_PTS (b) <= GST_BUFFER_PTS ((GstBuffer *)
            g_ptr_array_index (all, i - 1)))
      seeked = TRUE;
    g_ptr_array_add (seeked ? after : before, gst_buffer_ref (b));
  }
}

int
main (int argc, char **argv)
{
  guint first_depth = 2, failures = 0;
  GPtrArray *ref, *pref, *ref_before, *ref_after;
  gboolean usable;

  gst_init (&argc, &argv);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp (argv[i], "--backend") == 0)
      backend_name = argv[i + 1];
    else if (strcmp (argv[i], "--method") == 0)
      method_name = argv[i + 1];
    else if (strcmp (argv[i], "--devices") == 0)
      devices = argv[i + 1];
    else if (strcmp (argv[i], "--qp") == 0)
      qp = atoi (argv[i + 1]);
    else if (strcmp (argv[i], "--references") == 0)
      references = argv[i + 1];
  }
  if (strcmp (backend_name, "cpu") != 0)
    first_depth = 1;
  if (qp < 0)
    g_print ("method %s, integer SAD\n", method_name);
  else
    g_print ("method %s, quarter pel, SATD, qp %d\n", method_name, qp);
  make_world ();

  ref = run_script ("cpu", 1, &usable);
  g_assert (usable);
  /* the reference itself: every frame out, once, in order */
  /* (the flush drops the frames held for a future reference) */
  if (ref->len != 12 + 12 + 24 + 32 - future_references ()) {
    g_printerr ("reference: %u frames out of %u\n", ref->len,
        80 - future_references ());
    return 1;
  }
  pref = run_pipeline ("cpu", 1);
  ref_before = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  ref_after = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  split_at_seek (pref, ref_before, ref_after);
  if (ref_after->len != 80) {
    g_printerr ("reference pipeline: %u frames after the seek, not 80:",
        ref_after->len);
    for (guint k = 0; k < ref_after->len; k++)
      g_printerr (" %" G_GUINT64_FORMAT, GST_BUFFER_PTS ((GstBuffer *)
              g_ptr_array_index (ref_after, k)) / FRAME_NS);
    g_printerr ("\n");
    return 1;
  }

  for (guint depth = first_depth; depth <= 8; depth++) {
    GstClockTime before_flush[16];
    const guint held = depth - 1 + future_references ();
    GPtrArray *out = run_script (backend_name, depth, &usable);
    GPtrArray *pout, *before, *after;
    gchar *what;
    Tally t = { 0 };

    if (!usable) {
      g_print ("the %s backend cannot run here: skipped\n", backend_name);
      return 77;
    }
    /* at depth d the flush finds the d - 1 frames before it in flight */
    for (guint k = 0; k < 16; k++)
      before_flush[k] = (23 - k) * FRAME_NS;
    what = g_strdup_printf ("%s depth %u, script", backend_name, depth);
    t.what = what;
    compare_outputs (&t, ref, out, before_flush, held);
    g_print ("%s: %u frames, %u cells compared, %u differences\n", what,
        t.frames, t.cells, t.failures);
    failures += t.failures;
    g_free (what);
    g_ptr_array_unref (out);

    pout = run_pipeline (backend_name, depth);
    before = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);
    after = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);
    split_at_seek (pout, before, after);
    what = g_strdup_printf ("%s depth %u, pipeline", backend_name, depth);
    memset (&t, 0, sizeof (t));
    t.what = what;
    /* Before the seek the two runs may have got different numbers of
     * frames through; those both have must agree. */
    for (guint k = 0; k < before->len; k++) {
      GstBuffer *b = g_ptr_array_index (before, k);
      if (k < ref_before->len) {
        GstBuffer *r = g_ptr_array_index (ref_before, k);
        if (GST_BUFFER_PTS (r) != GST_BUFFER_PTS (b)
            || !same_fields (&t, GST_BUFFER_PTS (b), r, b))
          t.failures++;
        t.frames++;
      }
    }
    compare_outputs (&t, ref_after, after, NULL, 0);
    if (after->len != ref_after->len) {
      g_printerr ("%s: %u frames after the seek, not %u\n", what, after->len,
          ref_after->len);
      t.failures++;
    }
    g_print ("%s: %u frames, %u cells compared, %u differences\n", what,
        t.frames, t.cells, t.failures);
    failures += t.failures;
    g_free (what);
    g_ptr_array_unref (pout);
    g_ptr_array_unref (before);
    g_ptr_array_unref (after);
  }
  g_ptr_array_unref (ref);
  g_ptr_array_unref (pref);
  g_ptr_array_unref (ref_before);
  g_ptr_array_unref (ref_after);
  g_free (world);
  return failures ? 1 : 0;
}
