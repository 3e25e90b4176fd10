/* gpumotionest — fuzz target: what reaches the gpumotionest element from
 * upstream and from the application.
 *
 * The input is a script.  A header picks the format and size of the caps,
 * the element's properties and the number of frames; then, per frame, a
 * pair of op bytes decides what comes before the buffer (new caps, new
 * properties, a flush, a segment, a latency or allocation query) and what
 * the buffer is like (its size, a GstVideoMeta with any strides and
 * offsets, DISCONT, its timestamp).  Whatever comes out is checked to carry
 * a consistent meta.  The stream ends with EOS.
 *
 * Sizes and search ranges are bounded so that one input runs in well under
 * a second: at most FUZZ_MAX_PIXELS luma pixels per frame (a frame of 8192
 * columns has few rows) and at most FUZZ_MAX_WORK macroblock-candidate
 * pairs per frame (a large frame gets a smaller range).
 */
#include "fuzz.h"

#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#define FUZZ_MAX_FRAMES 8
#define FUZZ_MAX_PIXELS (1u << 16)
#define FUZZ_MAX_WORK (1u << 20)

/* op, first byte: before the buffer */
#define OP_CAPS (1u << 0)       /* new caps (format, size, frame rate) */
#define OP_PROPS (1u << 1)      /* new search-range, partitions, in-flight,
                                 * method, references, mode decision */
#define OP_FLUSH (1u << 2)      /* flush-start, flush-stop, segment */
#define OP_SEGMENT (1u << 3)    /* a new segment (drains) */
#define OP_LATENCY (1u << 4)    /* a latency query from downstream */
#define OP_POOL (1u << 5)       /* the buffer comes from the proposed pool */
#define OP_SKIP (1u << 6)       /* no buffer this time */
#define OP_BACKEND (1u << 7)    /* backend property set again (reopens) */
/* op, second byte: the buffer */
#define BUF_DISCONT (1u << 0)
#define BUF_META (1u << 1)      /* a GstVideoMeta, fields from the input */
#define BUF_SIZE (1u << 2)      /* a size from the input, not the caps' */
#define BUF_PTS (1u << 3)       /* a timestamp from the input */
#define BUF_GAP (1u << 4)
#define BUF_EMPTY (1u << 5)     /* no memory at all */
#define BUF_FIRST (1u << 6)     /* frame-by-frame stereo: the first view */

/* Lists of references, a few that cannot be searched among them; the
 * searches of one frame are bounded by the number of its fields. */
static const struct {
  const gchar *list;
  guint fields;
} ref_lists[] = {
  {"-1", 1}, {"-1,-2", 2}, {"+1", 1}, {"-1,+1", 2}, {"-2,+2,-1", 3},
  {"0", 1}, {"-1,-1", 1}, {"+5", 1},
};

/* Multiview modes: mono, the three stereo layouts, and one refused. */
static const GstVideoMultiviewMode multiview_modes[] = {
  GST_VIDEO_MULTIVIEW_MODE_NONE, GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE,
  GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM, GST_VIDEO_MULTIVIEW_MODE_FRAME_BY_FRAME,
  GST_VIDEO_MULTIVIEW_MODE_COLUMN_INTERLEAVED,
};

static const GstVideoFormat formats[] = {
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_P010_10LE,
  GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_GRAY16_LE,
};

/* What a GstVideoMeta may claim: the formats above and some it does not
 * accept. */
static const GstVideoFormat meta_formats[] = {
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_YUY2,
  GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10BE,
};

typedef struct {
  GstHarness *h;
  GstVideoInfo info;
  guint range;                  /* the search range asked for */
  guint partitions;
  guint fields;                 /* searches a frame makes, at most */
  GstBufferPool *pool;
} Stream;

static void
pick_size (FuzzInput * in, guint * w, guint * h)
{
  *w = 1 + fuzz_u16 (in) % 8192;
  *h = 1 + fuzz_u16 (in) % 8192;
  if ((guint64) * w * *h > FUZZ_MAX_PIXELS)
    *h = MAX (1, FUZZ_MAX_PIXELS / *w);
}

/* The search range, made smaller when the frame and shapes would make the
 * search too slow for fuzzing. */
static void
set_search (Stream * s)
{
  guint64 mbs = (guint64) ((GST_VIDEO_INFO_WIDTH (&s->info) + 15) / 16)
      * ((GST_VIDEO_INFO_HEIGHT (&s->info) + 15) / 16);
  guint weight = ((s->partitions & ~1u) ? 4 : 1) * MAX (1, s->fields);
  guint r = s->range;

  while (r > 1 && mbs * weight * (2 * r + 1) * (2 * r + 1) > FUZZ_MAX_WORK)
    r /= 2;
  g_object_set (s->h->element, "search-range", r, "partitions", s->partitions,
      NULL);
}

static void
drop_pool (Stream * s)
{
  if (s->pool) {
    gst_buffer_pool_set_active (s->pool, FALSE);
    gst_clear_object (&s->pool);
  }
}

static void
set_caps (Stream * s, FuzzInput * in)
{
  GstVideoFormat format = formats[fuzz_u8 (in) % G_N_ELEMENTS (formats)];
  guint w, h, fps = fuzz_u8 (in) % 4;
  GstCaps *caps;

  pick_size (in, &w, &h);
  gst_video_info_set_format (&s->info, format, w, h);
  /* 0/1 (unknown rate) too: the latency query must cope */
  GST_VIDEO_INFO_FPS_N (&s->info) = fps == 0 ? 0 : 10 * fps;
  GST_VIDEO_INFO_FPS_D (&s->info) = 1;
  /* stereo now and then (its disparity search is one more field) */
  GST_VIDEO_INFO_MULTIVIEW_MODE (&s->info) =
      multiview_modes[fuzz_u8 (in) % G_N_ELEMENTS (multiview_modes)];
  if (GST_VIDEO_INFO_MULTIVIEW_MODE (&s->info)
      == GST_VIDEO_MULTIVIEW_MODE_FRAME_BY_FRAME)
    GST_VIDEO_INFO_VIEWS (&s->info) = 2;
  set_search (s);
  caps = gst_video_info_to_caps (&s->info);
  drop_pool (s);
  gst_harness_set_src_caps (s->h, caps);
}

static void
push_segment (Stream * s)
{
  GstSegment seg;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (s->h, gst_event_new_segment (&seg));
}

/* Asks the element for an allocation proposal, as upstream would, and
 * keeps the first pool it offers (active) for OP_POOL buffers; with none
 * offered (the CPU backend has no host memory of its own), a video pool
 * of the proposed size and minimum, as upstream would make then. */
static GstBuffer *
buffer_from_pool (Stream * s)
{
  GstBuffer *buf = NULL;

  if (!s->pool) {
    GstCaps *caps = gst_video_info_to_caps (&s->info);
    GstQuery *q = gst_query_new_allocation (caps, TRUE);

    if (gst_pad_peer_query (s->h->srcpad, q)
        && gst_query_get_n_allocation_pools (q) == 0)
      gst_query_add_allocation_pool (q, NULL, s->info.size, 0, 0);
    if (gst_query_get_n_allocation_pools (q) > 0) {
      GstBufferPool *pool = NULL;
      GstStructure *config;
      guint size, min, max;

      gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
      const gboolean own = !pool;

      if (own)
        pool = gst_video_buffer_pool_new ();
      {
        config = gst_buffer_pool_get_config (pool);
        gst_buffer_pool_config_set_params (config, caps, size, min, max);
        if (own)
          gst_buffer_pool_config_add_option (config,
              GST_BUFFER_POOL_OPTION_VIDEO_META);
        if (gst_buffer_pool_set_config (pool, config)
            && gst_buffer_pool_set_active (pool, TRUE))
          s->pool = pool;
        else
          gst_object_unref (pool);
      }
    }
    gst_query_unref (q);
    gst_caps_unref (caps);
  }
  if (s->pool && gst_buffer_pool_acquire_buffer (s->pool, &buf,
          NULL) != GST_FLOW_OK)
    buf = NULL;
  return buf;
}

/* A GstVideoMeta whose every field may disagree with the caps and with the
 * buffer's memory. */
static void
add_video_meta (GstBuffer * buf, const GstVideoInfo * info, FuzzInput * in)
{
  guint8 how = fuzz_u8 (in);
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  guint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  guint n_planes = GST_VIDEO_INFO_N_PLANES (info);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  gsize size = gst_buffer_get_size (buf);

  if (how & 1)
    format = meta_formats[fuzz_u8 (in) % G_N_ELEMENTS (meta_formats)];
  if (how & 2) {
    w = fuzz_u32_edgy (in);
    h = fuzz_u32_edgy (in);
  }
  if (how & 4)
    n_planes = 1 + fuzz_u8 (in) % GST_VIDEO_MAX_PLANES;
  for (guint i = 0; i < GST_VIDEO_MAX_PLANES; i++) {
    offset[i] = GST_VIDEO_INFO_PLANE_OFFSET (info, i);
    stride[i] = GST_VIDEO_INFO_PLANE_STRIDE (info, i);
  }
  if (how & 8) {
    /* padded rows: a stride a little wider than the caps' */
    for (guint i = 0; i < GST_VIDEO_MAX_PLANES; i++)
      stride[i] += fuzz_u8 (in) % 64;
  }
  if (how & 16) {
    for (guint i = 0; i < n_planes; i++)
      stride[i] = (gint) fuzz_u32_edgy (in);
  }
  if (how & 32) {
    for (guint i = 0; i < n_planes; i++)
      offset[i] = (how & 64) ? fuzz_u32_edgy (in)
          : fuzz_u32 (in) % (size + 256);
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format, w, h,
      n_planes, offset, stride);
}

static GstBuffer *
make_buffer (Stream * s, guint8 op, FuzzInput * in)
{
  gsize size = GST_VIDEO_INFO_SIZE (&s->info);
  GstBuffer *buf;

  if (op & BUF_EMPTY) {
    buf = gst_buffer_new ();
  } else {
    if (op & BUF_SIZE)
      size = fuzz_u32 (in) % (2 * size + 64);
    buf = gst_buffer_new_allocate (NULL, size, NULL);
    if (size) {
      GstMapInfo map;
      if (gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
        fuzz_fill (map.data, map.size, fuzz_u8 (in));
        gst_buffer_unmap (buf, &map);
      }
    }
  }
  if (op & BUF_META)
    add_video_meta (buf, &s->info, in);
  return buf;
}

/* Everything that came out: a buffer from gpumotionest carries one
 * consistent meta whose grids can be read in full. */
static void
pull_all (Stream * s)
{
  GstBuffer *out;
  GstEvent *ev;

  while ((out = gst_harness_try_pull (s->h))) {
    GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (out);

    if (meta) {
      guint sum = 0;

      g_assert (gst_motion_vector_meta_is_valid (meta));
      for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
        guint cols, rows;
        const GstMotionVectorCell *cells =
            gst_motion_vector_meta_get_grid (meta, p, &cols, &rows);
        for (gsize i = 0; cells && i < (gsize) cols * rows; i++)
          sum += cells[i].cost;
      }
      (void) sum;
    }
    gst_buffer_unref (out);
  }
  while ((ev = gst_harness_try_pull_event (s->h)))
    gst_event_unref (ev);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  static const char *const factories[] = { "gpumotionest", NULL };

  fuzz_init (factories);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  FuzzInput in = { data, size };
  Stream s = { 0 };
  guint n_frames;
  GstClockTime pts = 0;

  /* backend: auto (the CPU on a machine without a GPU) or the CPU; the
   * other bits of the same byte turn on the encoder hints, a threshold of
   * 0 making every frame with a score a cut */
  guint8 first = fuzz_u8 (&in);
  gint backend = first & 1;
  guint in_flight = fuzz_u8 (&in) % 17;

  s.h = gst_harness_new ("gpumotionest");
  g_object_set (s.h->element, "backend", backend, "in-flight", in_flight,
      "keyframe-on-cut", (first & 2) != 0, "roi", (first & 4) != 0,
      "motion-events", (first & 8) != 0, "cut-threshold",
      (first & 16) ? 0.0 : 40.0, "roi-max-regions", 1 + (first >> 5),
      "motion-event-interval", (guint64) (first >> 5) * 20 * GST_MSECOND,
      NULL);
  s.range = 1 + fuzz_u8 (&in) % 128;
  s.partitions = fuzz_u8 (&in) & 0x7f;
  if (!s.partitions)
    s.partitions = 1;
  n_frames = 1 + fuzz_u8 (&in) % FUZZ_MAX_FRAMES;
  s.fields = 3;                 /* stereo with the default reference */
  set_caps (&s, &in);

  for (guint f = 0; f < n_frames; f++) {
    guint8 op = fuzz_u8 (&in), bop = fuzz_u8 (&in);
    GstBuffer *buf = NULL;

    if (op & OP_CAPS)
      set_caps (&s, &in);
    if (op & OP_PROPS) {
      s.range = 1 + fuzz_u8 (&in) % 128;
      s.partitions = fuzz_u8 (&in) & 0x7f;
      if (!s.partitions)
        s.partitions = 1;
      set_search (&s);
      in_flight = fuzz_u8 (&in) % 17;
      g_object_set (s.h->element, "in-flight", in_flight, NULL);
      /* every method, switched mid-stream (predictive's temporal
       * predictors must be dropped, not read from another grid) */
      gst_util_set_object_arg (G_OBJECT (s.h->element), "method",
          (const gchar *[]) { "full", "mods", "hierarchical",
          "predictive"}[fuzz_u8 (&in) % 4]);
      {
        const guint8 r = fuzz_u8 (&in);
        const guint k = r % G_N_ELEMENTS (ref_lists);
        /* each view of stereo video has them, and a disparity field */
        s.fields = 2 * ref_lists[k].fields + 1;
        set_search (&s);
        g_object_set (s.h->element, "references", ref_lists[k].list,
            "mode-decision", (r & 0x80) != 0, NULL);
      }
    }
    if (op & OP_BACKEND) {
      gint b = fuzz_u8 (&in) & 1;
      g_object_set (s.h->element, "backend", b, NULL);
    }
    if (op & OP_FLUSH) {
      gst_harness_push_event (s.h, gst_event_new_flush_start ());
      gst_harness_push_event (s.h, gst_event_new_flush_stop (TRUE));
      push_segment (&s);
    }
    if (op & OP_SEGMENT)
      push_segment (&s);
    if (op & OP_LATENCY)
      (void) gst_harness_query_latency (s.h);

    if (!(op & OP_SKIP)) {
      if (op & OP_POOL)
        buf = buffer_from_pool (&s);
      if (!buf)
        buf = make_buffer (&s, bop, &in);
      if (bop & BUF_DISCONT)
        GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
      if (bop & BUF_GAP)
        GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
      if (bop & BUF_FIRST)
        GST_BUFFER_FLAG_SET (buf, GST_VIDEO_BUFFER_FLAG_FIRST_IN_BUNDLE);
      GST_BUFFER_PTS (buf) = (bop & BUF_PTS) ? fuzz_u64 (&in) : pts;
      GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
      pts += GST_SECOND / 30;
      /* an error (a refused layout) is an answer, not a failure */
      (void) gst_harness_push (s.h, buf);
    }
    pull_all (&s);
  }

  gst_harness_push_event (s.h, gst_event_new_eos ());
  pull_all (&s);
  drop_pool (&s);
  gst_harness_teardown (s.h);
  return 0;
}
