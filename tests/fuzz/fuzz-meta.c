/* gpumotionest — fuzz target: GstMotionVectorMeta with any field values,
 * read through the accessors, copied and scaled by its transform, written
 * by mvexport and drawn by mvoverlay.
 *
 * The meta's fields are public, so an application or an upstream element
 * may set any of them.  The input first describes a valid meta (analysis
 * size, shapes, cell values), attached with
 * gst_buffer_add_motion_vector_meta(); then a mask says which public fields
 * are overwritten with values from the input (sizes, partitions, the grid
 * table, the data, which may become NULL, shorter, longer or unaligned).
 * Every reader must then either refuse the meta or stay inside its data.
 * The motion summary is computed from the valid meta and stored in it
 * before the fields change, or (SET_SUMMARY) the stored one is raw input
 * bytes, which the summary readers, mvexport and mvoverlay then take as
 * they come.
 *
 * A buffer may carry several fields (MORE_METAS), each described as the
 * first, some of the first's size: one per reference, of either view of
 * stereo video, inter-view or not, with any ref_distance (SET_VIEW).  A
 * field may carry a partition and a reference decision (SET_CHOSEN),
 * set through the setters from values the input picks, some of them bad,
 * or assigned raw, of any size and with or without their flags, so that
 * the readers that follow chosen_refs from field to field (the records,
 * mvexport's chosen column, mvoverlay's chosen partitions and reference
 * colours) meet every combination.  RUN_STEREO draws on stereo caps
 * (side-by-side, top-bottom, frame-by-frame, and a mode that is not
 * searched) with the view, reference, chosen partition and reference
 * colours chosen by the input.  The bits above RUN_COPY read their bytes
 * after those of the older bits, so the older seeds run as before.
 */
#include "fuzz.h"

#include <string.h>

#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

/* mask bits: which fields are overwritten */
#define SET_SIZE (1u << 0)             /* width, height */
#define SET_ANALYSIS (1u << 1)         /* analysis_width, analysis_height */
#define SET_REF (1u << 2)              /* ref_distance, ref_pts, flags */
#define SET_METHOD (1u << 3)           /* method, search_range */
#define SET_PARTITIONS (1u << 4)
#define SET_GRIDS (1u << 5)            /* grids[], for the shapes chosen */
#define SET_DATA (1u << 6)             /* data: NULL, resized or unaligned */
#define SET_SUMMARY (1u << 7)          /* summary: raw input bytes */
#define RUN_EXPORT (1u << 8)
#define RUN_OVERLAY (1u << 9)
#define RUN_SCALE (1u << 10)
#define RUN_COPY (1u << 11)
#define SET_VIEW (1u << 12)            /* view, inter-view flag, ref_distance */
#define SET_CHOSEN (1u << 13)          /* modes and chosen_refs */
#define MORE_METAS (1u << 14)          /* more fields on the buffer */
#define RUN_STEREO (1u << 15)          /* overlay: stereo caps, view, ... */

/* Distances a decision names: those of the fields SET_VIEW gives, and
 * some no field has (0 names none, and is refused by the setter). */
static const gint8 decision_refs[] = { -1, -2, 1, 2, -3, 0, 127, -128 };

static const GstVideoMultiviewMode overlay_views[] = {
  GST_VIDEO_MULTIVIEW_MODE_NONE, GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE,
  GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM, GST_VIDEO_MULTIVIEW_MODE_FRAME_BY_FRAME,
  GST_VIDEO_MULTIVIEW_MODE_ROW_INTERLEAVED, GST_VIDEO_MULTIVIEW_MODE_MONO,
};

static const GstVideoFormat overlay_formats[] = {
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y42B,
  GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
  GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_ARGB,
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_12LE,
  GST_VIDEO_FORMAT_GRAY16_LE,
};

/* One cell's cost, read bytewise: the harness itself must not assume the
 * alignment that the accessors' pointers are supposed to have. */
static guint32
cost_of (const GstMotionVectorCell * cell)
{
  GstMotionVectorCell c;

  memcpy (&c, cell, sizeof (c));
  return c.cost + (guint16) c.mv_x;
}

/* The summary of @meta against its stored one, and both their moving
 * masks. */
static guint64
read_summary (const GstMotionVectorMeta * meta)
{
  GstMotionVectorSummary stored, s;
  guint cols = 0, rows = 0;
  guint64 sum = 0;
  GBytes *mask;

  gst_motion_vector_meta_get_summary (meta, &stored);
  if (gst_motion_vector_summary_compute (meta, &stored, &s)) {
    mask = gst_motion_vector_summary_get_moving_blocks (meta, &s, &cols,
        &rows);
    if (mask) {
      g_assert (g_bytes_get_size (mask) == (gsize) cols * rows);
      sum += g_bytes_get_size (mask);
      g_bytes_unref (mask);
    }
    sum += s.blocks;
  }
  mask = gst_motion_vector_summary_get_moving_blocks (meta, &stored, &cols,
      &rows);
  if (mask)
    g_bytes_unref (mask);
  return sum;
}

/* Reads every cell that the accessors say is there, and the AV records. */
static void
read_meta (const GstMotionVectorMeta * meta, FuzzInput * in)
{
  guint64 sum = 0;

  (void) gst_motion_vector_meta_is_valid (meta);
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint cols = 0, rows = 0, n = 0, col, row;
    const GstMotionVectorCell *cells =
        gst_motion_vector_meta_get_grid (meta, p, &cols, &rows);
    const GstMotionVectorCell *cell;
    GstMotionVectorAVRecord *rec;
    GBytes *bytes;

    for (gsize i = 0; cells && i < (gsize) cols * rows; i++)
      sum += cost_of (cells + i);

    /* corners, one past them, and anywhere */
    cell = gst_motion_vector_meta_get_cell (meta, p, cols ? cols - 1 : 0,
        rows ? rows - 1 : 0);
    if (cell)
      sum += cost_of (cell);
    cell = gst_motion_vector_meta_get_cell (meta, p, cols, 0);
    if (cell)
      sum += cost_of (cell);
    cell = gst_motion_vector_meta_get_cell (meta, p, 0, rows);
    if (cell)
      sum += cost_of (cell);
    col = fuzz_u32_edgy (in);
    row = fuzz_u32_edgy (in);
    cell = gst_motion_vector_meta_get_cell (meta, p, col, row);
    if (cell)
      sum += cost_of (cell);

    bytes = gst_motion_vector_meta_get_grid_bytes (meta, p, &cols, &rows);
    if (bytes) {
      gsize size;
      const guint8 *d = g_bytes_get_data (bytes, &size);
      for (gsize i = 0; i < size; i += 7)
        sum += d[i];
      g_bytes_unref (bytes);
    }

    rec = gst_motion_vector_meta_to_av_records (meta, p, &n);
    for (guint i = 0; rec && i < n; i++)
      sum += rec[i].src_x + rec[i].dst_y + rec[i].w;
    g_free (rec);
  }
  sum += read_summary (meta);
  (void) sum;
}

/* Bytes for a decision of @n values: from the input while it lasts,
 * each value repeated @run times (a partition covers several blocks),
 * mapped by @map (NULL: as they come), @map_len entries. */
static GBytes *
decision_bytes (gsize n, guint run, const gint8 * map, guint map_len,
    FuzzInput * in)
{
  guint8 *d = g_malloc (MAX (n, 1));
  guint8 v = 0;

  for (gsize i = 0; i < n; i++) {
    if (i % MAX (run, 1) == 0)
      v = fuzz_u8 (in);
    d[i] = map ? (guint8) map[v % map_len] : v;
  }
  return g_bytes_new_take (d, n);
}

/* A partition and a reference decision on the valid `meta`: through the
 * setters (which refuse what does not fit), from shapes among the
 * present ones (or any byte) and distances of decision_refs; or assigned
 * raw, of any size, with or without their flags. */
static void
set_decision (GstMotionVectorMeta * meta, FuzzInput * in)
{
  gint8 shapes[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint8 how = fuzz_u8 (in);
  guint n_shapes = 0;
  gsize n_mb = (gsize) gst_motion_vector_mb_cols (meta->analysis_width)
      * gst_motion_vector_mb_rows (meta->analysis_height);
  GBytes *b;

  for (guint p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if (meta->partitions & (1u << p))
      shapes[n_shapes++] = (gint8) p;

  if (how & 1) {
    /* raw: any size, any values, the flags as the input says */
    b = decision_bytes (fuzz_u16 (in) % (n_mb + 8), 1, NULL, 0, in);
    g_clear_pointer (&meta->modes, g_bytes_unref);
    meta->modes = b;
    b = decision_bytes (fuzz_u16 (in) % (16 * n_mb + 32), 4, decision_refs,
        G_N_ELEMENTS (decision_refs), in);
    g_clear_pointer (&meta->chosen_refs, g_bytes_unref);
    meta->chosen_refs = b;
    if (how & 2)
      meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_MODES;
    if (how & 4)
      meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS;
    return;
  }
  b = (how & 2) ? decision_bytes (n_mb, 1, NULL, 0, in)
      : decision_bytes (n_mb, 1, shapes, n_shapes, in);
  (void) gst_motion_vector_meta_set_modes (meta, b);
  g_bytes_unref (b);
  if (how & 4)
    return;
  /* one distance per 4x4 block, mostly a run of four (a row of an 8x8
   * or 16x16 partition); (how & 8) every block its own */
  b = decision_bytes (16 * n_mb, (how & 8) ? 1 : 4, decision_refs,
      G_N_ELEMENTS (decision_refs), in);
  (void) gst_motion_vector_meta_set_chosen_refs (meta, b);
  g_bytes_unref (b);
}

/* What is read of a buffer's fields together: the lookups by view and
 * reference, and the records of the decision of the first field, each
 * partition's from the field of its chosen reference. */
static void
read_buffer (GstBuffer * buf)
{
  static const gint dists[] = { -1, -2, 1, 0 };
  guint64 sum = gst_buffer_get_n_motion_vector_metas (buf);
  GstMotionVectorMeta *first = gst_buffer_get_motion_vector_meta (buf);
  GstMotionVectorAVRecord *rec;
  guint n = 0;

  for (guint v = 0; v < 3; v++)
    for (guint i = 0; i < G_N_ELEMENTS (dists); i++)
      sum += gst_buffer_get_motion_vector_meta_for_view (buf, v, dists[i])
          != NULL;
  rec = gst_buffer_motion_vector_to_av_records_chosen (buf, &n);
  for (guint i = 0; rec && i < n; i++)
    sum += rec[i].src_x + rec[i].dst_y + rec[i].w + rec[i].source;
  g_free (rec);
  if (first) {
    rec = gst_motion_vector_meta_to_av_records_chosen (first, &n);
    for (guint i = 0; rec && i < n; i++)
      sum += rec[i].src_y + rec[i].h;
    g_free (rec);
  }
  (void) sum;
}

/* The meta of `buf` with the fields chosen by `mask` overwritten.  `like`,
 * when not NULL, is the buffer's first field, whose analysis size a
 * further field may take (so that decisions can name it). */
static GstMotionVectorMeta *
make_meta (GstBuffer * buf, guint mask, FuzzInput * in,
    const GstMotionVectorMeta * like)
{
  guint aw = 1 + fuzz_u16 (in) % 512, ah = 1 + fuzz_u16 (in) % 512;
  guint parts = fuzz_u8 (in) & GST_MOTION_VECTOR_PARTITIONS_ALL;
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  GstMotionVectorMeta *meta;
  GstMotionVectorCell *cells;
  guint n_cells;
  GBytes *data;

  if (!parts)
    parts = GST_MOTION_VECTOR_PARTITIONS_16X16;
  if (like && (fuzz_u8 (in) & 1) && like->analysis_width >= 1
      && like->analysis_width <= 512 && like->analysis_height >= 1
      && like->analysis_height <= 512) {
    aw = like->analysis_width;
    ah = like->analysis_height;
    parts |= like->partitions & GST_MOTION_VECTOR_PARTITIONS_ALL;
  }
  n_cells = gst_motion_vector_layout (aw, ah, parts, grids);
  cells = g_new (GstMotionVectorCell, n_cells);
  fuzz_fill ((guint8 *) cells, (gsize) n_cells * sizeof (*cells),
      fuzz_u32 (in));
  data = g_bytes_new_take (cells, (gsize) n_cells * sizeof (*cells));
  meta = gst_buffer_add_motion_vector_meta (buf, aw, ah, parts, data);
  g_bytes_unref (data);
  g_assert (meta != NULL);

  {
    GstMotionVectorSummary s;

    if (mask & SET_SUMMARY)
      fuzz_fill ((guint8 *) & s, sizeof (s), fuzz_u32 (in));
    else
      g_assert (gst_motion_vector_summary_compute (meta, NULL, &s));
    gst_motion_vector_meta_set_summary (meta, &s);
  }
  /* while the meta is valid, so that the setters take what fits */
  if (mask & SET_CHOSEN)
    set_decision (meta, in);
  if (mask & SET_SIZE) {
    meta->width = fuzz_u32_edgy (in);
    meta->height = fuzz_u32_edgy (in);
  }
  if (mask & SET_ANALYSIS) {
    meta->analysis_width = fuzz_u32_edgy (in);
    meta->analysis_height = fuzz_u32_edgy (in);
  }
  if (mask & SET_REF) {
    meta->ref_distance = (gint32) fuzz_u32_edgy (in);
    meta->ref_pts = fuzz_u64 (in);
    meta->flags = fuzz_u32_edgy (in);
  }
  if (mask & SET_METHOD) {
    meta->method = fuzz_u32_edgy (in);
    meta->search_range = fuzz_u32_edgy (in);
  }
  if (mask & SET_PARTITIONS)
    meta->partitions = (fuzz_u8 (in) & 1) ? fuzz_u32_edgy (in)
        : fuzz_u8 (in) & GST_MOTION_VECTOR_PARTITIONS_ALL;
  if (mask & SET_GRIDS) {
    guint which = fuzz_u8 (in);
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
      if (!(which & (1u << p)))
        continue;
      meta->grids[p].cols = fuzz_u32_edgy (in);
      meta->grids[p].rows = fuzz_u32_edgy (in);
      meta->grids[p].offset = fuzz_u32_edgy (in);
    }
  }
  if (mask & SET_DATA) {
    gsize size = g_bytes_get_size (meta->data);
    guint8 how = fuzz_u8 (in);
    GBytes *old = meta->data;

    if (how % 3 == 0) {
      meta->data = NULL;
    } else if (how % 3 == 1) {
      /* another size, any multiple of nothing */
      gsize n = fuzz_u32 (in) % (size + 64);
      guint8 *d = g_malloc (n);
      fuzz_fill (d, n, how);
      meta->data = g_bytes_new_take (d, n);
    } else {
      /* the same cells one byte into a larger block: unaligned */
      guint8 *d = g_malloc (size + 1);
      memcpy (d + 1, g_bytes_get_data (old, NULL), size);
      GBytes *whole = g_bytes_new_take (d, size + 1);
      meta->data = g_bytes_new_from_bytes (whole, 1, size);
      g_bytes_unref (whole);
    }
    g_bytes_unref (old);
  }
  if (mask & SET_VIEW) {
    guint8 how = fuzz_u8 (in);

    meta->view = (how & 0x80) ? fuzz_u32_edgy (in) : (how & 1);
    if (how & 2)
      meta->flags |= GST_MOTION_VECTOR_META_FLAG_INTER_VIEW;
    if (how & 4)
      meta->ref_distance = 0;
    else if (how & 8)
      meta->ref_distance = decision_refs[fuzz_u8 (in)
          % G_N_ELEMENTS (decision_refs)];
  }
  return meta;
}

static void
run_export (GstBuffer * buf, FuzzInput * in)
{
  gint format = fuzz_u8 (in) & 1;
  guint parts = fuzz_u8 (in) & GST_MOTION_VECTOR_PARTITIONS_ALL;
  GstElement *e = gst_element_factory_make ("mvexport", NULL);
  GstHarness *h;

  g_object_set (e, "location", "/dev/null", "format", format, "partitions",
      parts, "summary", (gboolean) (fuzz_u8 (in) & 1), NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, "application/x-fuzz");
  (void) gst_harness_push (h, gst_buffer_ref (buf));
  gst_harness_push_event (h, gst_event_new_eos ());
  gst_harness_teardown (h);
}

static void
run_overlay (GstBuffer * meta_buf, guint mask, FuzzInput * in)
{
  GstVideoFormat format =
      overlay_formats[fuzz_u8 (in) % G_N_ELEMENTS (overlay_formats)];
  guint w = 1 + fuzz_u8 (in) % 160, h = 1 + fuzz_u8 (in) % 120;
  gint mode = fuzz_u8 (in) % 4, partition = fuzz_u8 (in) % 7;
  gint color_mode = fuzz_u8 (in) % 2, direction = fuzz_u8 (in) % 2;
  gboolean grid = fuzz_u8 (in) & 1, legend = fuzz_u8 (in) & 1;
  gdouble scale = fuzz_u8 (in) / 4.0, opacity = fuzz_u8 (in) / 255.0;
  gdouble min_mag = fuzz_u8 (in), max_mag = fuzz_u8 (in) / 8.0;
  GstElement *e = gst_element_factory_make ("mvoverlay", NULL);
  GstVideoMultiviewMode views = GST_VIDEO_MULTIVIEW_MODE_NONE;
  GstVideoInfo info;
  GstHarness *harness;
  GstBuffer *buf;
  GstMapInfo map;

  g_object_set (e, "mode", mode, "partition", partition, "color-mode",
      color_mode, "direction", direction, "grid", grid, "legend", legend,
      "scale", scale, "opacity", opacity, "min-magnitude", min_mag,
      "max-magnitude", max_mag, "summary", (gboolean) (fuzz_u8 (in) & 1),
      NULL);
  if (mask & RUN_STEREO) {
    guint8 how = fuzz_u8 (in);

    views = overlay_views[fuzz_u8 (in) % G_N_ELEMENTS (overlay_views)];
    g_object_set (e, "view", (gint) (fuzz_u8 (in) % 3) - 1, "reference",
        (gint) decision_refs[fuzz_u8 (in) % G_N_ELEMENTS (decision_refs)],
        NULL);
    /* what the older bytes cannot say: the chosen partition, the
     * reference colours */
    if (how & 1)
      g_object_set (e, "partition", -1, NULL);
    if (how & 2)
      g_object_set (e, "color-mode", 2, NULL);
  }
  harness = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_video_info_set_format (&info, format, w, h);
  GST_VIDEO_INFO_MULTIVIEW_MODE (&info) = views;
  if (views == GST_VIDEO_MULTIVIEW_MODE_FRAME_BY_FRAME)
    GST_VIDEO_INFO_VIEWS (&info) = 2;
  gst_harness_set_src_caps (harness, gst_video_info_to_caps (&info));

  /* a frame of the caps' size carrying the fuzzed meta */
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  if (gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    memset (map.data, 0x80, map.size);
    gst_buffer_unmap (buf, &map);
  }
  gst_buffer_copy_into (buf, meta_buf, GST_BUFFER_COPY_META, 0, -1);
  (void) gst_harness_push (harness, buf);
  gst_harness_push_event (harness, gst_event_new_eos ());
  gst_harness_teardown (harness);
}

/* The scale transform, as a scaler calls it, with sizes from the input. */
static void
run_scale (GstBuffer * buf, GstMotionVectorMeta * meta, FuzzInput * in)
{
  GstVideoInfo in_info, out_info;
  GstVideoMetaTransform trans = { &in_info, &out_info };
  guint in_w = fuzz_u16 (in) % 8193, in_h = fuzz_u16 (in) % 8193;
  guint out_w = fuzz_u16 (in) % 8193, out_h = fuzz_u16 (in) % 8193;
  GstBuffer *dest = gst_buffer_new ();
  GstMotionVectorMeta *scaled;

  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_GRAY8, in_w, in_h);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_GRAY8, out_w, out_h);
  meta->meta.info->transform_func (dest, (GstMeta *) meta, buf,
      gst_video_meta_transform_scale_get_quark (), &trans);
  scaled = gst_buffer_get_motion_vector_meta (dest);
  if (scaled)
    read_meta (scaled, in);
  gst_buffer_unref (dest);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  static const char *const factories[] = { "mvexport", "mvoverlay", NULL };

  fuzz_init (factories);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  FuzzInput in = { data, size };
  guint mask = fuzz_u16 (&in);
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorMeta *meta = make_meta (buf, mask, &in, NULL);

  if (mask & MORE_METAS) {
    guint n = 1 + fuzz_u8 (&in) % 4;

    /* each described as the first, with its own mask of SET_ bits */
    for (guint i = 0; i < n; i++)
      make_meta (buf, fuzz_u16 (&in) & (SET_SIZE | SET_ANALYSIS | SET_REF
              | SET_PARTITIONS | SET_DATA | SET_VIEW | SET_CHOSEN), &in, meta);
  }
  read_meta (meta, &in);
  if (mask & (MORE_METAS | SET_CHOSEN | SET_VIEW))
    read_buffer (buf);
  if (mask & RUN_COPY) {
    GstBuffer *copy = gst_buffer_copy (buf);
    GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta (copy);
    if (m)
      read_meta (m, &in);
    gst_buffer_unref (copy);
  }
  if (mask & RUN_SCALE)
    run_scale (buf, meta, &in);
  if (mask & RUN_EXPORT)
    run_export (buf, &in);
  if (mask & RUN_OVERLAY)
    run_overlay (buf, mask, &in);
  gst_buffer_unref (buf);
  return 0;
}
