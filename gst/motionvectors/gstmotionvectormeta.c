/* gpumotionest — GstMotionVectorMeta: registration, transforms, accessors.
 *
 * The meta's cells live in one immutable GBytes.  Copying a buffer shares it
 * (a reference, no copy); scaling a buffer makes a new GBytes with rescaled
 * vectors, because the original may still be in use by other buffers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/video/video.h>

#include "gstmotionvectormeta.h"

#ifndef GST_DISABLE_GST_DEBUG
#define GST_CAT_DEFAULT ensure_debug_category ()
static GstDebugCategory *
ensure_debug_category (void)
{
  static gsize cat = 0;

  if (g_once_init_enter (&cat)) {
    gsize c = (gsize) _gst_debug_category_new ("motionvectormeta", 0,
        "motion-vector meta");
    g_once_init_leave (&cat, c);
  }
  return (GstDebugCategory *) cat;
}
#endif

/* Size of one cell in the meta's data, in bytes. */
#define CELL_SIZE ((gsize) sizeof (GstMotionVectorCell))

/* ---- arithmetic -------------------------------------------------------- */

static gint16
clamp_int16 (gint64 v)
{
  return (gint16) CLAMP (v, G_MININT16, G_MAXINT16);
}

/* num / den rounded to the nearest integer, halves away from zero.
 * @den > 0.  Used for every rescaled quantity, so that a vector and its
 * negation always scale to negated results. */
static gint64
div_round_half_away (gint64 num, gint64 den)
{
  gint64 mag = (ABS (num) * 2 + den) / (2 * den);

  return num < 0 ? -mag : mag;
}

/* @v * @out_size / @in_size, rounded half away from zero, clamped to int16. */
static gint16
scale_component (gint v, guint out_size, guint in_size)
{
  return clamp_int16 (div_round_half_away ((gint64) v * out_size, in_size));
}

/* ---- GstMeta vfuncs ----------------------------------------------------- */

static gboolean
gst_motion_vector_meta_init (GstMeta * meta, gpointer params,
    GstBuffer * buffer)
{
  GstMotionVectorMeta *mvmeta = (GstMotionVectorMeta *) meta;

  mvmeta->width = 0;
  mvmeta->height = 0;
  mvmeta->analysis_width = 0;
  mvmeta->analysis_height = 0;
  mvmeta->ref_distance = -1;
  mvmeta->ref_pts = GST_CLOCK_TIME_NONE;
  mvmeta->flags = GST_MOTION_VECTOR_META_FLAG_NONE;
  mvmeta->method = GST_MOTION_VECTOR_METHOD_FULL;
  mvmeta->search_range = 0;
  mvmeta->partitions = 0;
  memset (mvmeta->grids, 0, sizeof (mvmeta->grids));
  mvmeta->data = NULL;

  return TRUE;
}

static void
gst_motion_vector_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstMotionVectorMeta *mvmeta = (GstMotionVectorMeta *) meta;

  g_clear_pointer (&mvmeta->data, g_bytes_unref);
}

/* Copies every field but the GstMeta header and the data. */
static void
copy_fields (GstMotionVectorMeta * dst, const GstMotionVectorMeta * src)
{
  dst->width = src->width;
  dst->height = src->height;
  dst->analysis_width = src->analysis_width;
  dst->analysis_height = src->analysis_height;
  dst->ref_distance = src->ref_distance;
  dst->ref_pts = src->ref_pts;
  dst->flags = src->flags;
  dst->method = src->method;
  dst->search_range = src->search_range;
  dst->partitions = src->partitions;
  memcpy (dst->grids, src->grids, sizeof (dst->grids));
}

/* Rescales every cell of @data by out/in in each direction.  The MVD is
 * recomputed from the rescaled vector and prediction so that
 * mvd == mv - pred keeps holding (up to int16 clamping).  The cost is a SAD
 * at analysis size and is kept as is. */
static GBytes *
scale_cells (GBytes * data, guint in_w, guint in_h, guint out_w, guint out_h)
{
  gsize size;
  const guint8 *src = g_bytes_get_data (data, &size);
  gsize n_cells = size / CELL_SIZE;
  GstMotionVectorCell *dst = g_malloc (MAX (size, 1));
  gsize i;

  for (i = 0; i < n_cells; i++) {
    GstMotionVectorCell c;

    /* memcpy: the caller's GBytes may be a sub-range with no alignment. */
    memcpy (&c, src + i * CELL_SIZE, CELL_SIZE);
    c.mv_x = scale_component (c.mv_x, out_w, in_w);
    c.mv_y = scale_component (c.mv_y, out_h, in_h);
    c.pred_x = scale_component (c.pred_x, out_w, in_w);
    c.pred_y = scale_component (c.pred_y, out_h, in_h);
    c.mvd_x = clamp_int16 ((gint) c.mv_x - c.pred_x);
    c.mvd_y = clamp_int16 ((gint) c.mv_y - c.pred_y);
    dst[i] = c;
  }

  return g_bytes_new_take (dst, size);
}

static gboolean
gst_motion_vector_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstMotionVectorMeta *src = (GstMotionVectorMeta *) meta;
  GstMotionVectorMeta *dmeta;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    /* A (region) copy keeps the frame geometry: share the cells.  The
     * vectors describe the whole frame, so a partial copy keeps them too,
     * as the other video metas do. */
    dmeta = (GstMotionVectorMeta *) gst_buffer_add_meta (dest,
        GST_MOTION_VECTOR_META_INFO, NULL);
    if (!dmeta)
      return FALSE;
    copy_fields (dmeta, src);
    dmeta->data = src->data ? g_bytes_ref (src->data) : NULL;
    GST_TRACE ("copied motion-vector meta %ux%u", src->width, src->height);
    return TRUE;
  }

  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    GstVideoMetaTransform *trans = data;
    guint in_w = GST_VIDEO_INFO_WIDTH (trans->in_info);
    guint in_h = GST_VIDEO_INFO_HEIGHT (trans->in_info);
    guint out_w = GST_VIDEO_INFO_WIDTH (trans->out_info);
    guint out_h = GST_VIDEO_INFO_HEIGHT (trans->out_info);

    if (in_w == 0 || in_h == 0 || out_w == 0 || out_h == 0 || !src->data)
      return FALSE;

    dmeta = (GstMotionVectorMeta *) gst_buffer_add_meta (dest,
        GST_MOTION_VECTOR_META_INFO, NULL);
    if (!dmeta)
      return FALSE;
    copy_fields (dmeta, src);
    dmeta->width = out_w;
    dmeta->height = out_h;
    dmeta->data = scale_cells (src->data, in_w, in_h, out_w, out_h);
    GST_DEBUG ("scaled motion-vector meta %ux%u -> %ux%u", in_w, in_h,
        out_w, out_h);
    return TRUE;
  }

  /* Crops, flips, rotations...: the vectors would be wrong, drop them. */
  GST_DEBUG ("dropping motion-vector meta on transform %s",
      g_quark_to_string (type));
  return FALSE;
}

/* ---- registration ------------------------------------------------------- */

/**
 * gst_motion_vector_meta_api_get_type:
 *
 * The API type of #GstMotionVectorMeta.  It carries the tags
 * %GST_META_TAG_VIDEO_STR and %GST_META_TAG_VIDEO_SIZE_STR: the meta
 * belongs to video and depends on the frame size, so scalers rescale it
 * through its transform function, and elements that change anything else
 * about the geometry (crop, flip, rotate) drop it.
 *
 * Returns: the #GType of the meta API
 */
GType
gst_motion_vector_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = {
    GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstMotionVectorMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * gst_motion_vector_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstMotionVectorMeta
 */
const GstMetaInfo *
gst_motion_vector_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi =
        gst_meta_register (GST_MOTION_VECTOR_META_API_TYPE,
        "GstMotionVectorMeta", sizeof (GstMotionVectorMeta),
        gst_motion_vector_meta_init, gst_motion_vector_meta_free,
        gst_motion_vector_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/* ---- layout -------------------------------------------------------------- */

/**
 * gst_motion_vector_layout:
 * @analysis_width: width of the analysed frame, in pixels
 * @analysis_height: height of the analysed frame, in pixels
 * @partitions: the shapes present
 * @grids: (out caller-allocates) (array fixed-size=7): where each shape's
 *   grid lies; absent shapes get all zeros
 *
 * Lays out the grids of the shapes in @partitions one after the other, in
 * #GstMotionVectorPartition order, each covering the frame padded to whole
 * macroblocks.
 *
 * Returns: the total number of cells (the data holds 16 bytes per cell)
 */
guint
gst_motion_vector_layout (guint analysis_width, guint analysis_height,
    GstMotionVectorPartitionFlags partitions,
    GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT])
{
  guint mb_cols = gst_motion_vector_mb_cols (analysis_width);
  guint mb_rows = gst_motion_vector_mb_rows (analysis_height);
  guint total = 0;
  gint p;

  g_return_val_if_fail (grids != NULL, 0);

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    GstMotionVectorGrid *g = &grids[p];

    if (!(partitions & (1u << p))) {
      g->cols = g->rows = g->offset = 0;
      continue;
    }
    g->cols = gst_motion_vector_grid_cols (p, mb_cols);
    g->rows = gst_motion_vector_grid_rows (p, mb_rows);
    g->offset = total;
    total += g->cols * g->rows;
  }
  return total;
}

/* ---- adding and getting --------------------------------------------------- */

/**
 * gst_buffer_add_motion_vector_meta:
 * @buffer: a #GstBuffer
 * @analysis_width: width of the frame the search ran on, 1..8192
 * @analysis_height: height of the frame the search ran on, 1..8192
 * @partitions: the shapes present in @data, not empty
 * @data: the cells of every present grid, laid out as
 *   gst_motion_vector_layout() says; its size must be 16 bytes times the
 *   layout's cell count
 *
 * Attaches a motion field to @buffer.  The meta takes its own reference to
 * @data.  #GstMotionVectorMeta.width and #GstMotionVectorMeta.height are set
 * to the analysis size; the caller sets @ref_distance, @ref_pts, @flags,
 * @method and @search_range on the returned meta.
 *
 * Returns: (transfer none) (nullable): the new meta, or %NULL on invalid
 *   arguments
 */
GstMotionVectorMeta *
gst_buffer_add_motion_vector_meta (GstBuffer * buffer, guint analysis_width,
    guint analysis_height, GstMotionVectorPartitionFlags partitions,
    GBytes * data)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  GstMotionVectorMeta *meta;
  guint n_cells;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (analysis_width > 0 && analysis_height > 0, NULL);
  g_return_val_if_fail (partitions != 0, NULL);
  g_return_val_if_fail ((partitions & ~GST_MOTION_VECTOR_PARTITIONS_ALL) == 0,
      NULL);
  g_return_val_if_fail (data != NULL, NULL);

  n_cells = gst_motion_vector_layout (analysis_width, analysis_height,
      partitions, grids);
  g_return_val_if_fail (g_bytes_get_size (data) == (gsize) n_cells * CELL_SIZE,
      NULL);

  meta = (GstMotionVectorMeta *) gst_buffer_add_meta (buffer,
      GST_MOTION_VECTOR_META_INFO, NULL);
  if (!meta)
    return NULL;

  meta->width = meta->analysis_width = analysis_width;
  meta->height = meta->analysis_height = analysis_height;
  meta->partitions = partitions;
  memcpy (meta->grids, grids, sizeof (grids));
  meta->data = g_bytes_ref (data);

  return meta;
}

/**
 * gst_buffer_get_motion_vector_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the first #GstMotionVectorMeta of
 *   @buffer, or %NULL if it has none
 */
GstMotionVectorMeta *
gst_buffer_get_motion_vector_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstMotionVectorMeta *) gst_buffer_get_meta (buffer,
      GST_MOTION_VECTOR_META_API_TYPE);
}

/* The grid of @partition, or NULL when the shape is absent. */
static const GstMotionVectorGrid *
present_grid (const GstMotionVectorMeta * meta,
    GstMotionVectorPartition partition)
{
  if (!(meta->partitions & (1u << partition)) || !meta->data)
    return NULL;
  return &meta->grids[partition];
}

/**
 * gst_motion_vector_meta_get_cell:
 * @meta: a #GstMotionVectorMeta
 * @partition: a shape
 * @col: column in the shape's grid
 * @row: row in the shape's grid
 *
 * Returns: (transfer none) (nullable): the cell, valid as long as @meta is,
 *   or %NULL when the shape is absent or (@col, @row) lies outside its grid
 */
const GstMotionVectorCell *
gst_motion_vector_meta_get_cell (const GstMotionVectorMeta * meta,
    GstMotionVectorPartition partition, guint col, guint row)
{
  const GstMotionVectorGrid *g;
  const GstMotionVectorCell *cells;

  g_return_val_if_fail (meta != NULL, NULL);
  g_return_val_if_fail ((guint) partition < GST_MOTION_VECTOR_PARTITION_COUNT,
      NULL);

  g = present_grid (meta, partition);
  if (!g)
    return NULL;
  g_return_val_if_fail (col < g->cols && row < g->rows, NULL);

  cells = g_bytes_get_data (meta->data, NULL);
  return &cells[g->offset + (gsize) row * g->cols + col];
}

/* The grid of @partition and its size, or NULL and 0 x 0 when absent. */
static const GstMotionVectorGrid *
lookup_grid (const GstMotionVectorMeta * meta,
    GstMotionVectorPartition partition, guint * cols, guint * rows)
{
  const GstMotionVectorGrid *g;

  if (cols)
    *cols = 0;
  if (rows)
    *rows = 0;
  g_return_val_if_fail (meta != NULL, NULL);
  g_return_val_if_fail ((guint) partition < GST_MOTION_VECTOR_PARTITION_COUNT,
      NULL);

  g = present_grid (meta, partition);
  if (!g)
    return NULL;
  if (cols)
    *cols = g->cols;
  if (rows)
    *rows = g->rows;
  return g;
}

/**
 * gst_motion_vector_meta_get_grid: (skip)
 * @meta: a #GstMotionVectorMeta
 * @partition: a shape
 * @cols: (out) (optional): cells across
 * @rows: (out) (optional): cells down
 *
 * The cells of one shape, in raster order: cell (c, r) is element
 * r * @cols + c.  Bindings use gst_motion_vector_meta_get_grid_bytes().
 *
 * Returns: (transfer none) (nullable): the first cell of the grid, valid as
 *   long as @meta is, or %NULL (and 0 x 0) when the shape is absent
 */
const GstMotionVectorCell *
gst_motion_vector_meta_get_grid (const GstMotionVectorMeta * meta,
    GstMotionVectorPartition partition, guint * cols, guint * rows)
{
  const GstMotionVectorGrid *g = lookup_grid (meta, partition, cols, rows);
  const GstMotionVectorCell *cells;

  if (!g)
    return NULL;
  cells = g_bytes_get_data (meta->data, NULL);
  return &cells[g->offset];
}

/**
 * gst_motion_vector_meta_get_grid_bytes:
 * @meta: a #GstMotionVectorMeta
 * @partition: a shape
 * @cols: (out) (optional): cells across
 * @rows: (out) (optional): cells down
 *
 * The cells of one shape as a #GBytes sharing the meta's memory: @rows x
 * @cols cells of 16 bytes in raster order (see #GstMotionVectorCell).  From
 * Python, numpy.frombuffer() reads it with a structured dtype.
 *
 * Returns: (transfer full) (nullable): the grid's bytes, or %NULL (and
 *   0 x 0) when the shape is absent
 */
GBytes *
gst_motion_vector_meta_get_grid_bytes (const GstMotionVectorMeta * meta,
    GstMotionVectorPartition partition, guint * cols, guint * rows)
{
  const GstMotionVectorGrid *g = lookup_grid (meta, partition, cols, rows);

  if (!g)
    return NULL;
  return g_bytes_new_from_bytes (meta->data, (gsize) g->offset * CELL_SIZE,
      (gsize) g->cols * g->rows * CELL_SIZE);
}

/* Scales an analysis-frame coordinate or length to the meta's frame. */
static gint64
to_frame (guint v, guint size, guint analysis_size)
{
  return div_round_half_away ((gint64) v * size, analysis_size);
}

/**
 * gst_motion_vector_meta_to_av_records:
 * @meta: a #GstMotionVectorMeta
 * @partition: a shape
 * @n_records: (out): number of records returned
 *
 * Converts one shape's grid to records laid out like FFmpeg's
 * AVMotionVector, one per cell in raster order.  Positions are in this
 * frame's pixels at the meta's #GstMotionVectorMeta.width x
 * #GstMotionVectorMeta.height (scaled from the analysis size, rounding half
 * away from zero).  @dst_x/@dst_y is the block centre (block origin plus
 * half its size), clamped into the frame for the padding blocks of edge
 * macroblocks; @w/@h is the block size, clamped to 1..255;
 * @src_x = @dst_x + @motion_x / 4 rounded half away from zero (it may lie
 * outside the frame).
 *
 * Returns: (transfer full) (array length=n_records) (nullable): the records,
 *   free with g_free(); %NULL (and 0) when the shape is absent
 */
GstMotionVectorAVRecord *
gst_motion_vector_meta_to_av_records (const GstMotionVectorMeta * meta,
    GstMotionVectorPartition partition, guint * n_records)
{
  const GstMotionVectorCell *cells;
  GstMotionVectorAVRecord *records;
  guint cols, rows, pw, ph, c, r;
  guint8 bw, bh;
  gint32 source;

  g_return_val_if_fail (n_records != NULL, NULL);
  *n_records = 0;
  g_return_val_if_fail (meta != NULL, NULL);
  g_return_val_if_fail ((guint) partition < GST_MOTION_VECTOR_PARTITION_COUNT,
      NULL);
  g_return_val_if_fail (meta->analysis_width > 0 && meta->analysis_height > 0,
      NULL);

  cells = gst_motion_vector_meta_get_grid (meta, partition, &cols, &rows);
  if (!cells || cols == 0 || rows == 0)
    return NULL;

  pw = gst_motion_vector_partition_width (partition);
  ph = gst_motion_vector_partition_height (partition);
  bw = (guint8) CLAMP (to_frame (pw, meta->width, meta->analysis_width), 1,
      255);
  bh = (guint8) CLAMP (to_frame (ph, meta->height, meta->analysis_height), 1,
      255);
  source = meta->ref_distance < 0 ? -1 : 1;

  records = g_new0 (GstMotionVectorAVRecord, (gsize) cols * rows);
  for (r = 0; r < rows; r++) {
    gint64 y = to_frame (r * ph + ph / 2, meta->height, meta->analysis_height);
    gint16 dst_y = clamp_int16 (CLAMP (y, 0, (gint64) meta->height - 1));

    for (c = 0; c < cols; c++) {
      const GstMotionVectorCell *cell = &cells[(gsize) r * cols + c];
      GstMotionVectorAVRecord *rec = &records[(gsize) r * cols + c];
      gint64 x = to_frame (c * pw + pw / 2, meta->width, meta->analysis_width);
      gint16 dst_x = clamp_int16 (CLAMP (x, 0, (gint64) meta->width - 1));

      rec->source = source;
      rec->w = bw;
      rec->h = bh;
      rec->dst_x = dst_x;
      rec->dst_y = dst_y;
      rec->src_x = clamp_int16 (dst_x + div_round_half_away (cell->mv_x, 4));
      rec->src_y = clamp_int16 (dst_y + div_round_half_away (cell->mv_y, 4));
      rec->flags = 0;
      rec->motion_x = cell->mv_x;
      rec->motion_y = cell->mv_y;
      rec->motion_scale = 4;
    }
  }

  *n_records = cols * rows;
  return records;
}
