/* gpumotionest — GstMotionVectorMeta: registration, transforms, accessors.
 *
 * The meta's cells live in one immutable GBytes.  Copying a buffer shares it
 * (a reference, no copy); scaling a buffer makes a new GBytes with rescaled
 * vectors, because the original may still be in use by other buffers.  The
 * optional partition decision (one byte per macroblock) is a second
 * immutable GBytes, and the optional reference decision (one signed byte
 * per 4x4 block) a third, both shared by copies and scales alike: a scale
 * moves no block.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/video/video.h>

#include "gstmotionvectormeta.h"
#include "summary-private.h"

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

/* Whether @data's bytes start where a GstMotionVectorCell may: the
 * accessors hand out pointers to cells in place. */
static gboolean
cells_aligned (GBytes * data)
{
  gconstpointer p = g_bytes_get_data (data, NULL);

  return ((guintptr) p % G_ALIGNOF (GstMotionVectorCell)) == 0;
}

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

static gboolean check_meta (const GstMotionVectorMeta * meta);

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
  mvmeta->modes = NULL;
  memset (&mvmeta->summary, 0, sizeof (mvmeta->summary));
  mvmeta->luma = GST_MOTION_VECTOR_LUMA_PLANE;
  mvmeta->bit_depth = 8;
  mvmeta->chosen_refs = NULL;
  mvmeta->view = 0;

  return TRUE;
}

static void
gst_motion_vector_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstMotionVectorMeta *mvmeta = (GstMotionVectorMeta *) meta;

  g_clear_pointer (&mvmeta->data, g_bytes_unref);
  g_clear_pointer (&mvmeta->modes, g_bytes_unref);
  g_clear_pointer (&mvmeta->chosen_refs, g_bytes_unref);
}

/* Copies every field but the GstMeta header and the data; the modes and
 * the chosen references, which neither a copy nor a scale changes, are
 * shared. */
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
  dst->modes = src->modes ? g_bytes_ref (src->modes) : NULL;
  dst->summary = src->summary;
  /* a scale rescales the vectors, not the samples the costs were of */
  dst->luma = src->luma;
  dst->bit_depth = src->bit_depth;
  /* per 4x4 block of the analysis frame, which a scale does not move */
  dst->chosen_refs = src->chosen_refs ? g_bytes_ref (src->chosen_refs) : NULL;
  dst->view = src->view;
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
     * as the other video metas do.  The copy is faithful even for an
     * inconsistent meta (every reader checks it anyway), since GstBuffer
     * logs a failed copy as an error. */
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

    /* Rescaling reads the sizes: an inconsistent meta is not carried
     * over (it reads as absent anyway). */
    if (in_w == 0 || in_h == 0 || out_w == 0 || out_h == 0
        || !check_meta (src))
      return FALSE;

    dmeta = (GstMotionVectorMeta *) gst_buffer_add_meta (dest,
        GST_MOTION_VECTOR_META_INFO, NULL);
    if (!dmeta)
      return FALSE;
    copy_fields (dmeta, src);
    dmeta->width = out_w;
    dmeta->height = out_h;
    /* the vectors are in units of the meta's own size, which is the input
     * frame's for any meta gpumotionest writes but need not be for
     * another writer's: from there to the output frame's */
    dmeta->data = scale_cells (src->data, src->width, src->height, out_w,
        out_h);
    if (src->flags & GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY)
      gst_motion_vector_summary_scale (&dmeta->summary, src->width,
          src->height, out_w, out_h);
    GST_DEBUG ("scaled motion-vector meta %ux%u (frame %ux%u) -> %ux%u",
        src->width, src->height, in_w, in_h, out_w, out_h);
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

/* Whether a frame of @width x @height with the shapes @partitions can be laid
 * out: both sizes in 1..GST_MOTION_VECTOR_MAX_SIZE, at least one shape and
 * no bit outside the seven shapes.  Returns NULL when it can, else what is
 * wrong.  Within these limits every count below fits a guint (8192 x 8192
 * with all shapes is 512 * 512 * 41 cells). */
static const gchar *
layout_problem (guint width, guint height, guint partitions)
{
  if (width == 0 || width > GST_MOTION_VECTOR_MAX_SIZE)
    return "analysis width out of range";
  if (height == 0 || height > GST_MOTION_VECTOR_MAX_SIZE)
    return "analysis height out of range";
  if (partitions == 0)
    return "no partition shape";
  if (partitions & ~(guint) GST_MOTION_VECTOR_PARTITIONS_ALL)
    return "unknown partition bits";
  return NULL;
}

/**
 * gst_motion_vector_layout: (skip)
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
 * A size outside 1..%GST_MOTION_VECTOR_MAX_SIZE, an empty @partitions or
 * one with bits beyond %GST_MOTION_VECTOR_PARTITIONS_ALL has no layout:
 * the result is 0 and every grid is zero.
 *
 * C only: bindings cannot hand a caller-allocated array of structures to
 * C reliably (PyGObject passes too small a block), so they use
 * gst_motion_vector_layout_grid(), one shape at a time.
 *
 * Returns: the total number of cells (the data holds 16 bytes per cell), or
 *   0 when the arguments are out of range
 */
guint
gst_motion_vector_layout (guint analysis_width, guint analysis_height,
    GstMotionVectorPartitionFlags partitions,
    GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT])
{
  const gchar *problem;
  guint mb_cols, mb_rows;
  guint64 total, offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  gint p;

  g_return_val_if_fail (grids != NULL, 0);

  memset (grids, 0, sizeof (GstMotionVectorGrid) *
      GST_MOTION_VECTOR_PARTITION_COUNT);
  problem = layout_problem (analysis_width, analysis_height, partitions);
  if (problem) {
    GST_DEBUG ("no layout for %ux%u, partitions 0x%x: %s", analysis_width,
        analysis_height, (guint) partitions, problem);
    return 0;
  }

  mb_cols = gst_motion_vector_mb_cols (analysis_width);
  mb_rows = gst_motion_vector_mb_rows (analysis_height);
  total = gst_motion_vector_grid_offsets (partitions, mb_cols, mb_rows,
      offsets);
  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    GstMotionVectorGrid *g = &grids[p];

    if (!(partitions & (1u << p)))
      continue;
    g->cols = gst_motion_vector_grid_cols (p, mb_cols);
    g->rows = gst_motion_vector_grid_rows (p, mb_rows);
    g->offset = (guint) offsets[p];
  }
  g_assert (total <= G_MAXUINT);
  return (guint) total;
}

/**
 * gst_motion_vector_layout_grid:
 * @analysis_width: width of the analysed frame, in pixels
 * @analysis_height: height of the analysed frame, in pixels
 * @partitions: the shapes present
 * @partition: the shape asked about
 * @cols: (out) (optional): cells across, 0 when @partition is absent
 * @rows: (out) (optional): cells down, 0 when @partition is absent
 * @offset: (out) (optional): index of the grid's first cell in the data,
 *   0 when @partition is absent
 *
 * One shape's entry of gst_motion_vector_layout(), for language bindings:
 * `n_cells, cols, rows, offset = MV.motion_vector_layout_grid(w, h, parts,
 * p)` in Python.
 *
 * Returns: the total number of cells of the whole layout, as
 *   gst_motion_vector_layout() returns it (0 when the arguments are out of
 *   range)
 */
guint
gst_motion_vector_layout_grid (guint analysis_width, guint analysis_height,
    GstMotionVectorPartitionFlags partitions,
    GstMotionVectorPartition partition, guint * cols, guint * rows,
    guint * offset)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint total = gst_motion_vector_layout (analysis_width, analysis_height,
      partitions, grids);
  gboolean known = (guint) partition < GST_MOTION_VECTOR_PARTITION_COUNT;

  if (cols)
    *cols = known ? grids[partition].cols : 0;
  if (rows)
    *rows = known ? grids[partition].rows : 0;
  if (offset)
    *offset = known ? grids[partition].offset : 0;
  return total;
}

/* ---- adding and getting --------------------------------------------------- */

/**
 * gst_buffer_add_motion_vector_meta:
 * @buffer: a #GstBuffer
 * @analysis_width: width of the frame the search ran on,
 *   1..%GST_MOTION_VECTOR_MAX_SIZE
 * @analysis_height: height of the frame the search ran on,
 *   1..%GST_MOTION_VECTOR_MAX_SIZE
 * @partitions: the shapes present in @data, not empty, no bit beyond
 *   %GST_MOTION_VECTOR_PARTITIONS_ALL
 * @data: the cells of every present grid, laid out as
 *   gst_motion_vector_layout() says; its size must be 16 bytes times the
 *   layout's cell count, and its bytes must start at a multiple of 4 (the
 *   alignment of #GstMotionVectorCell; any #GBytes of its own memory does,
 *   a sub-range may not)
 *
 * Attaches a motion field to @buffer.  The meta takes its own reference to
 * @data.  #GstMotionVectorMeta.width and #GstMotionVectorMeta.height are set
 * to the analysis size; the caller sets @ref_distance, @ref_pts, @flags,
 * @method and @search_range on the returned meta.
 *
 * Arguments outside the limits above (which may come from caps, files or
 * other programs) are refused without a CRITICAL: the function returns
 * %NULL, attaches nothing and logs a warning in the `motionvectormeta`
 * debug category.  A %NULL @buffer or @data is a programming error and
 * fails with a CRITICAL.
 *
 * Returns: (transfer none) (nullable): the new meta, or %NULL when the
 *   arguments are out of range
 */
GstMotionVectorMeta *
gst_buffer_add_motion_vector_meta (GstBuffer * buffer, guint analysis_width,
    guint analysis_height, GstMotionVectorPartitionFlags partitions,
    GBytes * data)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  GstMotionVectorMeta *meta;
  const gchar *problem;
  guint n_cells;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (data != NULL, NULL);

  problem = layout_problem (analysis_width, analysis_height, partitions);
  if (problem) {
    GST_WARNING ("not adding a motion-vector meta of %ux%u, partitions "
        "0x%x: %s", analysis_width, analysis_height, (guint) partitions,
        problem);
    return NULL;
  }
  n_cells = gst_motion_vector_layout (analysis_width, analysis_height,
      partitions, grids);
  if (g_bytes_get_size (data) != (gsize) n_cells * CELL_SIZE) {
    GST_WARNING ("not adding a motion-vector meta of %ux%u, partitions "
        "0x%x: %" G_GSIZE_FORMAT " bytes of data, the layout needs %"
        G_GSIZE_FORMAT, analysis_width, analysis_height, (guint) partitions,
        g_bytes_get_size (data), (gsize) n_cells * CELL_SIZE);
    return NULL;
  }
  if (!cells_aligned (data)) {
    GST_WARNING ("not adding a motion-vector meta of %ux%u, partitions "
        "0x%x: its data at %p is not aligned for cells (%" G_GSIZE_FORMAT
        " bytes)", analysis_width, analysis_height, (guint) partitions,
        g_bytes_get_data (data, NULL), (gsize) G_ALIGNOF (GstMotionVectorCell));
    return NULL;
  }

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
 * The first motion field of @buffer: with several references (a buffer
 * carrying one meta per reference frame), the field of the first one
 * added, which for gpumotionest is the first of its references list
 * (with the default list, -1, the only one).
 * gst_buffer_get_motion_vector_meta_for_reference() picks a field by its
 * reference, gst_buffer_get_motion_vector_meta_nth() by its place.
 *
 * The meta belongs to @buffer and is freed with it: keep a reference to
 * @buffer for as long as the meta is used (bindings included; a Python
 * object wrapping the meta does not keep the buffer alive).
 *
 * Returns: (transfer none) (nullable): the first #GstMotionVectorMeta of
 *   @buffer, or %NULL if it has none
 */
GstMotionVectorMeta *
gst_buffer_get_motion_vector_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  /* GstBuffer appends each new meta to its list, so the first one found
   * is the first one added. */
  return (GstMotionVectorMeta *) gst_buffer_get_meta (buffer,
      GST_MOTION_VECTOR_META_API_TYPE);
}

/**
 * gst_buffer_get_n_motion_vector_metas:
 * @buffer: a #GstBuffer
 *
 * Returns: how many #GstMotionVectorMeta @buffer carries (one per
 *   reference frame searched; 0 when it has none)
 */
guint
gst_buffer_get_n_motion_vector_metas (GstBuffer * buffer)
{
  gpointer state = NULL;
  guint n = 0;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), 0);

  while (gst_buffer_iterate_meta_filtered (buffer, &state,
          GST_MOTION_VECTOR_META_API_TYPE))
    n++;
  return n;
}

/**
 * gst_buffer_get_motion_vector_meta_nth:
 * @buffer: a #GstBuffer
 * @index: the place of the field, from 0
 *
 * The @index-th motion field of @buffer in the order the metas were
 * added (gpumotionest adds them in the order of its references list).
 * A copy of the buffer, and a scale through the meta's transform, keep
 * that order: GstBuffer appends each meta it adds to its list and copies
 * and transforms them walking that list from its start.  Index 0 is
 * gst_buffer_get_motion_vector_meta().
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL when @index is
 *   not below gst_buffer_get_n_motion_vector_metas()
 */
GstMotionVectorMeta *
gst_buffer_get_motion_vector_meta_nth (GstBuffer * buffer, guint index)
{
  gpointer state = NULL;
  GstMeta *m;
  guint i = 0;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  while ((m = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_MOTION_VECTOR_META_API_TYPE)))
    if (i++ == index)
      return (GstMotionVectorMeta *) m;
  return NULL;
}

/**
 * gst_buffer_get_motion_vector_meta_for_view:
 * @buffer: a #GstBuffer
 * @view: the view of stereo video, 0 for the first (or only) one
 * @ref_distance: the reference, as gst_buffer_get_motion_vector_meta_for_reference()
 *   takes it, or 0 for the view's inter-view field (disparity against the
 *   first view at the same instant)
 *
 * Returns: (transfer none) (nullable): the first field of @view searched
 *   against that reference, or %NULL when @buffer has none
 */
GstMotionVectorMeta *
gst_buffer_get_motion_vector_meta_for_view (GstBuffer * buffer, guint view,
    gint ref_distance)
{
  gpointer state = NULL;
  GstMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  while ((m = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_MOTION_VECTOR_META_API_TYPE))) {
    const GstMotionVectorMeta *mv = (const GstMotionVectorMeta *) m;
    if (mv->view == view && mv->ref_distance == ref_distance
        && (ref_distance != 0
            || (mv->flags & GST_MOTION_VECTOR_META_FLAG_INTER_VIEW)))
      return (GstMotionVectorMeta *) m;
  }
  return NULL;
}

/**
 * gst_buffer_get_motion_vector_meta_for_reference:
 * @buffer: a #GstBuffer
 * @ref_distance: the reference, as #GstMotionVectorMeta.ref_distance
 *   gives it: -1 the previous frame, -2 the one before, +1 the next
 *   one (frames in presentation order)
 *
 * The motion field of @buffer searched against the frame @ref_distance
 * frames away: the first meta (in the order of
 * gst_buffer_get_motion_vector_meta_nth()) whose
 * #GstMotionVectorMeta.ref_distance is @ref_distance.  Its
 * %GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE flag says whether that frame
 * existed (near the start or the end of a stream it may not).  A
 * @ref_distance of 0 names no other frame and finds nothing.
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL when @buffer
 *   has no field against that reference
 */
GstMotionVectorMeta *
gst_buffer_get_motion_vector_meta_for_reference (GstBuffer * buffer,
    gint ref_distance)
{
  gpointer state = NULL;
  GstMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  if (ref_distance == 0)
    return NULL;
  while ((m = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_MOTION_VECTOR_META_API_TYPE)))
    if (((GstMotionVectorMeta *) m)->ref_distance == ref_distance)
      return (GstMotionVectorMeta *) m;
  return NULL;
}

/* ---- validation ------------------------------------------------------------ */

/* Macroblocks of @meta's analysis frame; its size must be within the
 * limits. */
static guint
mb_count (const GstMotionVectorMeta * meta)
{
  return gst_motion_vector_mb_cols (meta->analysis_width)
      * gst_motion_vector_mb_rows (meta->analysis_height);
}

/* NULL when @meta's public fields agree with one another and with its data,
 * else what is wrong.  The one place that knows what a reader may rely on:
 * frame and analysis sizes non-zero (the analysis size within the limits),
 * partitions among the seven shapes, grids exactly as
 * gst_motion_vector_layout() lays them out, and data of exactly the
 * layout's size, aligned for the cells the accessors point into; modes
 * present exactly when the flag says so, one byte per macroblock.
 * search_range, method, the other flags and ref_pts are only ever
 * printed, so any value is accepted; ref_distance any but 0: readers take
 * its sign for a reference in the past or the future, and 0 would be the
 * frame itself (docs/meta.md, "Several references").  The values of the modes are checked by the
 * readers of the modes (modes_problem()), not here: this runs before every
 * cell access, and a pass over the macroblocks there would make a loop of
 * get_cell() quadratic. */
static const gchar *
meta_problem (const GstMotionVectorMeta * meta)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  const gchar *problem;
  guint n_cells;

  if (!meta->data)
    return "no data";
  /* 0 is the frame itself, and only an inter-view field is of it */
  if ((meta->ref_distance == 0)
      != ! !(meta->flags & GST_MOTION_VECTOR_META_FLAG_INTER_VIEW))
    return meta->ref_distance == 0 ? "ref_distance 0 names no reference frame"
        : "an inter-view field with a ref_distance other than 0";
  if (meta->width == 0 || meta->width > G_MAXINT)
    return "frame width out of range";
  if (meta->height == 0 || meta->height > G_MAXINT)
    return "frame height out of range";
  problem = layout_problem (meta->analysis_width, meta->analysis_height,
      meta->partitions);
  if (problem)
    return problem;
  n_cells = gst_motion_vector_layout (meta->analysis_width,
      meta->analysis_height, meta->partitions, grids);
  if (memcmp (grids, meta->grids, sizeof (grids)) != 0)
    return "grids do not match the analysis size and partitions";
  if (g_bytes_get_size (meta->data) != (gsize) n_cells * CELL_SIZE)
    return "data size does not match the layout";
  if (!cells_aligned (meta->data))
    return "data not aligned for cells";
  /* A flag that disagrees with @modes (a writer that assigns @flags
   * wholesale) leaves the cells readable: only the decision is not
   * (lookup_modes()).  A @modes of the wrong size is a broken meta. */
  if (meta->modes && g_bytes_get_size (meta->modes) != mb_count (meta))
    return "modes size does not match the macroblocks";
  /* chosen_refs is left to its readers (lookup_chosen_refs()). */
  return NULL;
}

/**
 * gst_motion_vector_meta_is_valid:
 * @meta: a #GstMotionVectorMeta
 *
 * Checks that the meta's public fields agree with its data, as they do
 * when gst_buffer_add_motion_vector_meta() made it: @width and @height
 * non-zero, the analysis size in 1..%GST_MOTION_VECTOR_MAX_SIZE,
 * @partitions non-empty and among the seven shapes, @grids exactly as
 * gst_motion_vector_layout() lays them out for that size and those shapes,
 * and @data of exactly the layout's size, starting where a
 * #GstMotionVectorCell may (a multiple of 4 bytes); @modes, when present,
 * of one byte per macroblock; @ref_distance not 0 (a field is searched
 * against another frame, in the past or the future, and readers take the
 * sign for which).  The other fields (@search_range, @method, @flags,
 * @ref_pts) are not checked: nothing is indexed or divided by them.  Nor are the values of @modes (one pass over the
 * macroblocks, too slow for a check that runs before every cell read), or
 * whether %GST_MOTION_VECTOR_META_FLAG_HAS_MODES agrees with @modes:
 * gst_motion_vector_meta_get_modes() checks both, and without a readable
 * decision the cells still read.  @chosen_refs is not checked here at
 * all: gst_motion_vector_meta_get_chosen_refs() checks its size, its
 * values and its flag, and treats it as absent when one is wrong.
 *
 * Every accessor of this library, and the mvtools elements, call it first
 * and treat an inconsistent meta as one without any grid (accessors return
 * %NULL, transforms drop it).
 *
 * Returns: %TRUE when the meta can be read safely
 */
gboolean
gst_motion_vector_meta_is_valid (const GstMotionVectorMeta * meta)
{
  g_return_val_if_fail (meta != NULL, FALSE);

  return meta_problem (meta) == NULL;
}

/* TRUE when @meta is consistent; else logs why and returns FALSE. */
static gboolean
check_meta (const GstMotionVectorMeta * meta)
{
  const gchar *problem = meta_problem (meta);

  if (G_LIKELY (!problem))
    return TRUE;
  GST_WARNING ("ignoring an inconsistent motion-vector meta (%s): frame "
      "%ux%u, analysis %ux%u, partitions 0x%x, %" G_GSIZE_FORMAT " bytes",
      problem, meta->width, meta->height, meta->analysis_width,
      meta->analysis_height, (guint) meta->partitions,
      meta->data ? g_bytes_get_size (meta->data) : 0);
  return FALSE;
}

/* ---- reading ----------------------------------------------------------------- */

/* The grid of @partition and its size, or NULL and 0 x 0 when the shape is
 * absent or the meta is inconsistent. */
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

  if (!(meta->partitions & (1u << partition)) || !check_meta (meta))
    return NULL;
  g = &meta->grids[partition];
  if (cols)
    *cols = g->cols;
  if (rows)
    *rows = g->rows;
  return g;
}

/**
 * gst_motion_vector_meta_get_cell:
 * @meta: a #GstMotionVectorMeta
 * @partition: a shape
 * @col: column in the shape's grid
 * @row: row in the shape's grid
 *
 * Returns: (transfer none) (nullable): the cell, valid as long as @meta
 *   (that is, its buffer) is, or %NULL when the shape is absent, the meta
 *   is inconsistent (see gst_motion_vector_meta_is_valid()) or (@col, @row)
 *   lies outside the grid
 */
const GstMotionVectorCell *
gst_motion_vector_meta_get_cell (const GstMotionVectorMeta * meta,
    GstMotionVectorPartition partition, guint col, guint row)
{
  const GstMotionVectorGrid *g;
  const GstMotionVectorCell *cells;

  g = lookup_grid (meta, partition, NULL, NULL);
  if (!g || col >= g->cols || row >= g->rows)
    return NULL;

  cells = g_bytes_get_data (meta->data, NULL);
  return &cells[g->offset + (gsize) row * g->cols + col];
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
 *   long as @meta (that is, its buffer) is, or %NULL (and 0 x 0) when the
 *   shape is absent or the meta is inconsistent
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
 * Python, numpy.frombuffer() reads it with a structured dtype.  The #GBytes
 * holds its own reference to the cells, so it stays valid after the buffer
 * is freed.
 *
 * Returns: (transfer full) (nullable): the grid's bytes, or %NULL (and
 *   0 x 0) when the shape is absent or the meta is inconsistent
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

/* ---- the partition decision ------------------------------------------------ */

/* NULL when every byte of @modes names a shape among @partitions, else what
 * is wrong. */
static const gchar *
modes_problem (GBytes * modes, guint partitions)
{
  gsize n, i;
  const guint8 *m = g_bytes_get_data (modes, &n);

  for (i = 0; i < n; i++)
    if (m[i] >= GST_MOTION_VECTOR_PARTITION_COUNT
        || !(partitions & (1u << m[i])))
      return "a macroblock's mode is not a present shape";
  return NULL;
}

/**
 * gst_motion_vector_meta_set_modes:
 * @meta: a #GstMotionVectorMeta
 * @modes: (nullable): the partition each macroblock is coded with, one
 *   byte per macroblock of the analysis frame (ceil(analysis_width / 16)
 *   x ceil(analysis_height / 16)), row-major, each a
 *   #GstMotionVectorPartition present in #GstMotionVectorMeta.partitions;
 *   %NULL to remove the decision
 *
 * Attaches a partition decision to @meta (docs/mode-decision.md): the meta
 * takes its own reference to @modes and sets
 * %GST_MOTION_VECTOR_META_FLAG_HAS_MODES; with %NULL it drops its modes
 * and clears the flag.
 *
 * @meta must be consistent (gst_motion_vector_meta_is_valid()), and
 * @modes of the right size with every value a present shape; otherwise
 * the meta is left as it was, a warning is logged in the
 * `motionvectormeta` debug category and %FALSE is returned.
 *
 * Returns: %TRUE when the modes were set (or removed)
 */
gboolean
gst_motion_vector_meta_set_modes (GstMotionVectorMeta * meta, GBytes * modes)
{
  const gchar *problem;

  g_return_val_if_fail (meta != NULL, FALSE);

  if (!modes) {
    g_clear_pointer (&meta->modes, g_bytes_unref);
    meta->flags &= ~GST_MOTION_VECTOR_META_FLAG_HAS_MODES;
    return TRUE;
  }
  if (!check_meta (meta))
    return FALSE;
  if (g_bytes_get_size (modes) != mb_count (meta))
    problem = "modes size does not match the macroblocks";
  else
    problem = modes_problem (modes, meta->partitions);
  if (problem) {
    GST_WARNING ("not setting the modes of a motion-vector meta of %ux%u, "
        "partitions 0x%x, from %" G_GSIZE_FORMAT " bytes: %s",
        meta->analysis_width, meta->analysis_height, (guint) meta->partitions,
        g_bytes_get_size (modes), problem);
    return FALSE;
  }
  g_bytes_ref (modes);
  g_clear_pointer (&meta->modes, g_bytes_unref);
  meta->modes = modes;
  meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_MODES;
  return TRUE;
}

/* The meta's modes and the macroblock grid, or NULL and 0 x 0 when it has
 * none, is inconsistent, its flag and modes disagree or a mode is not a
 * present shape. */
static GBytes *
lookup_modes (const GstMotionVectorMeta * meta, guint * cols, guint * rows)
{
  const gchar *problem;
  gboolean has_flag;

  if (cols)
    *cols = 0;
  if (rows)
    *rows = 0;
  g_return_val_if_fail (meta != NULL, NULL);

  has_flag = (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_MODES) != 0;
  if (!meta->modes && !has_flag)
    return NULL;
  if (!check_meta (meta))
    return NULL;
  problem = !has_flag ? "modes without the has-modes flag"
      : !meta->modes ? "has-modes flag without modes"
      : modes_problem (meta->modes, meta->partitions);
  if (problem) {
    GST_WARNING ("ignoring the modes of a motion-vector meta (%s): "
        "partitions 0x%x", problem, (guint) meta->partitions);
    return NULL;
  }
  if (cols)
    *cols = gst_motion_vector_mb_cols (meta->analysis_width);
  if (rows)
    *rows = gst_motion_vector_mb_rows (meta->analysis_height);
  return meta->modes;
}

/**
 * gst_motion_vector_meta_get_modes: (skip)
 * @meta: a #GstMotionVectorMeta
 * @cols: (out) (optional): macroblocks across
 * @rows: (out) (optional): macroblocks down
 *
 * The partition decision: for macroblock (x, y), element y * @cols + x is
 * the #GstMotionVectorPartition it is coded with, always a shape present
 * in the meta.  Bindings use gst_motion_vector_meta_get_modes_bytes().
 *
 * Returns: (transfer none) (nullable): @cols x @rows bytes, valid as long
 *   as @meta (that is, its buffer) is, or %NULL (and 0 x 0) when the meta
 *   has no decision, is inconsistent, its @flags and @modes disagree, or a
 *   byte is not a present shape
 */
const guint8 *
gst_motion_vector_meta_get_modes (const GstMotionVectorMeta * meta,
    guint * cols, guint * rows)
{
  GBytes *modes = lookup_modes (meta, cols, rows);

  return modes ? g_bytes_get_data (modes, NULL) : NULL;
}

/**
 * gst_motion_vector_meta_get_modes_bytes:
 * @meta: a #GstMotionVectorMeta
 * @cols: (out) (optional): macroblocks across
 * @rows: (out) (optional): macroblocks down
 *
 * gst_motion_vector_meta_get_modes() for bindings: the same bytes as a
 * #GBytes that holds its own reference (it outlives the buffer).  From
 * Python, numpy.frombuffer(b.get_data(), numpy.uint8).reshape(rows, cols).
 *
 * Returns: (transfer full) (nullable): the modes, or %NULL (and 0 x 0)
 *   when the meta has no decision, is inconsistent, its @flags and @modes
 *   disagree, or a byte is not a present shape
 */
GBytes *
gst_motion_vector_meta_get_modes_bytes (const GstMotionVectorMeta * meta,
    guint * cols, guint * rows)
{
  GBytes *modes = lookup_modes (meta, cols, rows);

  return modes ? g_bytes_ref (modes) : NULL;
}

/* ---- the reference decision ------------------------------------------------- */

/* 4x4 blocks of @meta's analysis frame, (4 mb_cols) x (4 mb_rows); its
 * size must be within the limits. */
static gsize
block_count (const GstMotionVectorMeta * meta)
{
  return (gsize) 16 * mb_count (meta);
}

/* NULL when @refs holds one byte per 4x4 block of @meta and none of them
 * is 0, else what is wrong. */
static const gchar *
chosen_refs_problem (const GstMotionVectorMeta * meta, GBytes * refs)
{
  gsize n, i;
  const gint8 *r = g_bytes_get_data (refs, &n);

  if (n != block_count (meta))
    return "chosen references size does not match the 4x4 blocks";
  for (i = 0; i < n; i++)
    if (r[i] == 0)
      return "a block's chosen reference is 0, which names no frame";
  return NULL;
}

/**
 * gst_motion_vector_meta_set_chosen_refs:
 * @meta: a #GstMotionVectorMeta
 * @refs: (nullable): the reference each block is predicted from, one
 *   #gint8 per 4x4 block of the analysis frame ((4 * mb_cols) x
 *   (4 * mb_rows), mb_cols = gst_motion_vector_mb_cols (analysis_width),
 *   row-major), each the #GstMotionVectorMeta.ref_distance of the field
 *   whose vector the partition covering that block takes, never 0;
 *   %NULL to remove the decision
 *
 * Attaches a reference decision to @meta, the first field of a buffer
 * searched against several references (docs/references.md): the meta
 * takes its own reference to @refs and sets
 * %GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS; with %NULL it drops its
 * chosen references and clears the flag.  Every 4x4 block of one
 * partition should hold the same value: readers take a partition's
 * reference from its top-left block.
 *
 * @meta must be consistent (gst_motion_vector_meta_is_valid()), and
 * @refs of the right size with no value 0; otherwise the meta is left as
 * it was, a warning is logged in the `motionvectormeta` debug category
 * and %FALSE is returned.  Whether each value names a field of the
 * buffer is up to the readers, which see the whole buffer.
 *
 * Returns: %TRUE when the chosen references were set (or removed)
 */
gboolean
gst_motion_vector_meta_set_chosen_refs (GstMotionVectorMeta * meta,
    GBytes * refs)
{
  const gchar *problem;

  g_return_val_if_fail (meta != NULL, FALSE);

  if (!refs) {
    g_clear_pointer (&meta->chosen_refs, g_bytes_unref);
    meta->flags &= ~GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS;
    return TRUE;
  }
  if (!check_meta (meta))
    return FALSE;
  problem = chosen_refs_problem (meta, refs);
  if (problem) {
    GST_WARNING ("not setting the chosen references of a motion-vector meta "
        "of %ux%u from %" G_GSIZE_FORMAT " bytes: %s", meta->analysis_width,
        meta->analysis_height, g_bytes_get_size (refs), problem);
    return FALSE;
  }
  g_bytes_ref (refs);
  g_clear_pointer (&meta->chosen_refs, g_bytes_unref);
  meta->chosen_refs = refs;
  meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS;
  return TRUE;
}

/* The meta's chosen references and the 4x4 block grid, or NULL and 0 x 0
 * when it has none, is inconsistent, its flag and chosen_refs disagree, or
 * chosen_refs is of the wrong size or holds a 0.  Unlike a modes of the
 * wrong size, a wrong chosen_refs leaves the meta valid: the cells do not
 * depend on it, and no reader of the cells alone should lose them over a
 * field it does not read (docs/meta.md). */
static GBytes *
lookup_chosen_refs (const GstMotionVectorMeta * meta, guint * cols,
    guint * rows)
{
  const gchar *problem;
  gboolean has_flag;

  if (cols)
    *cols = 0;
  if (rows)
    *rows = 0;
  g_return_val_if_fail (meta != NULL, NULL);

  has_flag = (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS) != 0;
  if (!meta->chosen_refs && !has_flag)
    return NULL;
  if (!check_meta (meta))
    return NULL;
  problem = !has_flag ? "chosen references without the has-chosen-refs flag"
      : !meta->chosen_refs ? "has-chosen-refs flag without chosen references"
      : chosen_refs_problem (meta, meta->chosen_refs);
  if (problem) {
    GST_WARNING ("ignoring the chosen references of a motion-vector meta of "
        "%ux%u: %s", meta->analysis_width, meta->analysis_height, problem);
    return NULL;
  }
  if (cols)
    *cols = 4 * gst_motion_vector_mb_cols (meta->analysis_width);
  if (rows)
    *rows = 4 * gst_motion_vector_mb_rows (meta->analysis_height);
  return meta->chosen_refs;
}

/**
 * gst_motion_vector_meta_get_chosen_refs: (skip)
 * @meta: a #GstMotionVectorMeta
 * @cols: (out) (optional): 4x4 blocks across, 4 * mb_cols
 * @rows: (out) (optional): 4x4 blocks down, 4 * mb_rows
 *
 * The reference decision: for the 4x4 block (x, y) of the analysis frame
 * (pixels 4x .. 4x + 3, 4y .. 4y + 3), element y * @cols + x is the
 * #GstMotionVectorMeta.ref_distance of the field whose vector the
 * partition covering it takes, never 0.  Bindings use
 * gst_motion_vector_meta_get_chosen_refs_bytes().
 *
 * Returns: (transfer none) (nullable): @cols x @rows values, valid as long
 *   as @meta (that is, its buffer) is, or %NULL (and 0 x 0) when the meta
 *   has none, is inconsistent, its @flags and @chosen_refs disagree, or
 *   @chosen_refs is not of one value per 4x4 block or holds a 0
 */
const gint8 *
gst_motion_vector_meta_get_chosen_refs (const GstMotionVectorMeta * meta,
    guint * cols, guint * rows)
{
  GBytes *refs = lookup_chosen_refs (meta, cols, rows);

  return refs ? g_bytes_get_data (refs, NULL) : NULL;
}

/**
 * gst_motion_vector_meta_get_chosen_refs_bytes:
 * @meta: a #GstMotionVectorMeta
 * @cols: (out) (optional): 4x4 blocks across, 4 * mb_cols
 * @rows: (out) (optional): 4x4 blocks down, 4 * mb_rows
 *
 * gst_motion_vector_meta_get_chosen_refs() for bindings: the same bytes
 * (signed) as a #GBytes that holds its own reference (it outlives the
 * buffer).  From Python,
 * numpy.frombuffer(b.get_data(), numpy.int8).reshape(rows, cols).
 *
 * Returns: (transfer full) (nullable): the chosen references, or %NULL
 *   (and 0 x 0) when gst_motion_vector_meta_get_chosen_refs() gives %NULL
 */
GBytes *
gst_motion_vector_meta_get_chosen_refs_bytes (const GstMotionVectorMeta * meta,
    guint * cols, guint * rows)
{
  GBytes *refs = lookup_chosen_refs (meta, cols, rows);

  return refs ? g_bytes_ref (refs) : NULL;
}

/* ---- the motion summary ------------------------------------------------------ */

/**
 * gst_motion_vector_meta_set_summary:
 * @meta: a #GstMotionVectorMeta
 * @summary: (nullable): the summary of @meta's field
 *   (gst_motion_vector_summary_compute()), or %NULL to remove it
 *
 * Stores a copy of @summary in @meta and sets
 * %GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY; with %NULL clears both.  A
 * copy of the buffer keeps the summary; a scale rescales its translation
 * as it rescales the vectors (docs/summary.md).
 */
void
gst_motion_vector_meta_set_summary (GstMotionVectorMeta * meta,
    const GstMotionVectorSummary * summary)
{
  g_return_if_fail (meta != NULL);

  if (!summary) {
    memset (&meta->summary, 0, sizeof (meta->summary));
    meta->flags &= ~GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY;
    return;
  }
  meta->summary = *summary;
  meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY;
}

/**
 * gst_motion_vector_meta_get_summary:
 * @meta: a #GstMotionVectorMeta
 * @out: (out caller-allocates): the summary
 *
 * Returns: %TRUE and the meta's summary in @out when it has one
 *   (%GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY); %FALSE, and @out zeroed,
 *   when it has none
 */
gboolean
gst_motion_vector_meta_get_summary (const GstMotionVectorMeta * meta,
    GstMotionVectorSummary * out)
{
  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof (*out));
  g_return_val_if_fail (meta != NULL, FALSE);

  if (!(meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY))
    return FALSE;
  *out = meta->summary;
  return TRUE;
}

/* ---- AVMotionVector records ------------------------------------------------ */

/* Scales an analysis-frame coordinate or length to the meta's frame. */
static gint64
to_frame (guint v, guint size, guint analysis_size)
{
  return div_round_half_away ((gint64) v * size, analysis_size);
}

/* The record of cell (@c, @r) of shape @p; @meta is consistent. */
static void
fill_record (GstMotionVectorAVRecord * rec, const GstMotionVectorMeta * meta,
    GstMotionVectorPartition p, guint c, guint r,
    const GstMotionVectorCell * cell)
{
  guint pw = gst_motion_vector_partition_width (p);
  guint ph = gst_motion_vector_partition_height (p);
  gint64 x = to_frame (c * pw + pw / 2, meta->width, meta->analysis_width);
  gint64 y = to_frame (r * ph + ph / 2, meta->height, meta->analysis_height);
  gint16 dst_x = clamp_int16 (CLAMP (x, 0, (gint64) meta->width - 1));
  gint16 dst_y = clamp_int16 (CLAMP (y, 0, (gint64) meta->height - 1));

  rec->source = meta->ref_distance < 0 ? -1 : 1;
  rec->w = (guint8) CLAMP (to_frame (pw, meta->width, meta->analysis_width),
      1, 255);
  rec->h = (guint8) CLAMP (to_frame (ph, meta->height, meta->analysis_height),
      1, 255);
  rec->dst_x = dst_x;
  rec->dst_y = dst_y;
  rec->src_x = clamp_int16 (dst_x + div_round_half_away (cell->mv_x, 4));
  rec->src_y = clamp_int16 (dst_y + div_round_half_away (cell->mv_y, 4));
  rec->flags = 0;
  rec->motion_x = cell->mv_x;
  rec->motion_y = cell->mv_y;
  rec->motion_scale = 4;
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
 * When the meta carries a partition decision
 * (%GST_MOTION_VECTOR_META_FLAG_HAS_MODES), only the cells of the
 * macroblocks coded with @partition are returned, still in the grid's
 * raster order, as a decoder exports only the partitions coded; an
 * unreadable decision (gst_motion_vector_meta_get_modes() returns %NULL)
 * gives %NULL.  gst_motion_vector_meta_to_av_records_chosen() gives every
 * macroblock's chosen blocks in one array.
 *
 * Returns: (transfer full) (array length=n_records) (nullable): the records,
 *   free with g_free(); %NULL (and 0) when the shape is absent, no
 *   macroblock chose it, or the meta is inconsistent (see
 *   gst_motion_vector_meta_is_valid())
 */
GstMotionVectorAVRecord *
gst_motion_vector_meta_to_av_records (const GstMotionVectorMeta * meta,
    GstMotionVectorPartition partition, guint * n_records)
{
  const GstMotionVectorCell *cells;
  const guint8 *modes = NULL;
  GstMotionVectorAVRecord *records;
  guint cols, rows, mb_cols, across, down, c, r, n = 0;

  g_return_val_if_fail (n_records != NULL, NULL);
  *n_records = 0;
  g_return_val_if_fail (meta != NULL, NULL);
  g_return_val_if_fail ((guint) partition < GST_MOTION_VECTOR_PARTITION_COUNT,
      NULL);

  /* NULL for an absent shape or an inconsistent meta; otherwise the sizes
   * used below are all non-zero. */
  cells = gst_motion_vector_meta_get_grid (meta, partition, &cols, &rows);
  if (!cells || cols == 0 || rows == 0)
    return NULL;
  if (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_MODES) {
    modes = gst_motion_vector_meta_get_modes (meta, &mb_cols, NULL);
    if (!modes)
      return NULL;
  }
  across = 16 / gst_motion_vector_partition_width (partition);
  down = 16 / gst_motion_vector_partition_height (partition);

  records = g_new0 (GstMotionVectorAVRecord, (gsize) cols * rows);
  for (r = 0; r < rows; r++) {
    for (c = 0; c < cols; c++) {
      if (modes && modes[(gsize) (r / down) * mb_cols + c / across]
          != partition)
        continue;
      fill_record (&records[n++], meta, partition, c, r,
          &cells[(gsize) r * cols + c]);
    }
  }
  if (n == 0)
    g_clear_pointer (&records, g_free);
  *n_records = n;
  return records;
}

/**
 * gst_motion_vector_meta_to_av_records_chosen:
 * @meta: a #GstMotionVectorMeta
 * @n_records: (out): number of records returned
 *
 * The whole decided field as AVMotionVector records, as a decoder exports
 * it: macroblocks in raster order, and in each the blocks of the partition
 * it is coded with (gst_motion_vector_meta_get_modes()), in raster order
 * inside the macroblock.  Each record is the one
 * gst_motion_vector_meta_to_av_records() gives for that cell.
 *
 * Returns: (transfer full) (array length=n_records) (nullable): the records,
 *   free with g_free(); %NULL (and 0) when the meta has no partition
 *   decision or is inconsistent
 */
GstMotionVectorAVRecord *
gst_motion_vector_meta_to_av_records_chosen (const GstMotionVectorMeta * meta,
    guint * n_records)
{
  const GstMotionVectorCell *grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  const guint8 *modes;
  GstMotionVectorAVRecord *records;
  guint mb_cols, mb_rows, mx, my, n = 0, p;
  gsize total = 0, i;

  g_return_val_if_fail (n_records != NULL, NULL);
  *n_records = 0;
  g_return_val_if_fail (meta != NULL, NULL);

  modes = gst_motion_vector_meta_get_modes (meta, &mb_cols, &mb_rows);
  if (!modes)
    return NULL;
  /* every mode names a present shape: its grid is not NULL */
  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    grids[p] = gst_motion_vector_meta_get_grid (meta, p, NULL, NULL);
  for (i = 0; i < (gsize) mb_cols * mb_rows; i++)
    total += GST_MOTION_VECTOR_PARTITION_PER_MB (modes[i]);

  records = g_new0 (GstMotionVectorAVRecord, total);
  for (my = 0; my < mb_rows; my++) {
    for (mx = 0; mx < mb_cols; mx++) {
      GstMotionVectorPartition shape = modes[(gsize) my * mb_cols + mx];
      guint across = 16 / gst_motion_vector_partition_width (shape);
      guint down = 16 / gst_motion_vector_partition_height (shape);
      guint cols = gst_motion_vector_grid_cols (shape, mb_cols);
      const GstMotionVectorCell *cells = grids[shape];
      guint c, r;

      for (r = my * down; r < (my + 1) * down; r++)
        for (c = mx * across; c < (mx + 1) * across; c++)
          fill_record (&records[n++], meta, shape, c, r,
              &cells[(gsize) r * cols + c]);
    }
  }
  g_assert (n == total);
  *n_records = n;
  return records;
}

/* Most distinct references one decision may name: gpumotionest searches
 * at most 8, and the table of them stays on the stack. */
#define DECIDED_MAX 16

/* The fields a reference decision takes its vectors from, found as they
 * are named. */
typedef struct
{
  guint n;
  gint distance[DECIDED_MAX];
  const GstMotionVectorMeta *field[DECIDED_MAX];
  const GstMotionVectorCell *grids[DECIDED_MAX][GST_MOTION_VECTOR_PARTITION_COUNT];
} DecidedFields;

/* The index in @t of @buffer's field against @distance, found and checked
 * the first time it is asked for: of @first's view (stereo video has a
 * field against each reference per view), consistent, with the sizes of
 * @first (whose decision it is), so that its cells lie where @first's do;
 * -1 (with a warning) when there is none such. */
static gint
decided_field (DecidedFields * t, GstBuffer * buffer,
    const GstMotionVectorMeta * first, gint distance)
{
  const GstMotionVectorMeta *m;
  const gchar *problem;
  guint i, p;

  for (i = 0; i < t->n; i++)
    if (t->distance[i] == distance)
      return (gint) i;

  m = gst_buffer_get_motion_vector_meta_for_view (buffer, first->view,
      distance);
  if (!m)
    problem = "the buffer has no field of the view against it";
  else if (!check_meta (m))
    problem = "its field is inconsistent";
  else if (m->width != first->width || m->height != first->height
      || m->analysis_width != first->analysis_width
      || m->analysis_height != first->analysis_height)
    problem = "its field is of other sizes than the decision's";
  else if (t->n == DECIDED_MAX)
    problem = "the decision names too many references";
  else
    problem = NULL;
  if (problem) {
    GST_WARNING ("ignoring the reference decision of a motion-vector meta: "
        "reference %d: %s", distance, problem);
    return -1;
  }
  t->distance[t->n] = distance;
  t->field[t->n] = m;
  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    t->grids[t->n][p] = gst_motion_vector_meta_get_grid (m, p, NULL, NULL);
  return (gint) t->n++;
}

/**
 * gst_buffer_motion_vector_to_av_records_chosen:
 * @buffer: a #GstBuffer
 * @n_records: (out): number of records returned
 *
 * The decided field of @buffer as AVMotionVector records, as a decoder
 * exports a frame coded with several references: macroblocks in raster
 * order, in each the blocks of the partition it is coded with (the
 * #GstMotionVectorMeta.modes of the buffer's first field), each the record
 * gst_motion_vector_meta_to_av_records() gives for that cell of the field
 * of the reference the partition chose (the first field's
 * #GstMotionVectorMeta.chosen_refs, read at the partition's top-left 4x4
 * block; of the first field's #GstMotionVectorMeta.view, as
 * gst_buffer_get_motion_vector_meta_for_view() finds it): its vector, and
 * @source -1 for a reference in the past, 1 in the future.
 *
 * A meta cannot reach the other fields of its buffer, hence this function
 * next to gst_motion_vector_meta_to_av_records_chosen(), which gives the
 * first field's own vectors for every partition.  When the first field
 * has a partition decision and no chosen references (one reference), the
 * two give the same records.
 *
 * Returns: (transfer full) (array length=n_records) (nullable): the records,
 *   free with g_free(); %NULL (and 0) when the buffer has no field, its
 *   first field has no readable partition decision, or its chosen
 *   references cannot be read or name a reference whose field the buffer
 *   lacks, is inconsistent, is of other sizes, or lacks the shape chosen
 */
GstMotionVectorAVRecord *
gst_buffer_motion_vector_to_av_records_chosen (GstBuffer * buffer,
    guint * n_records)
{
  GstMotionVectorMeta *first;
  DecidedFields fields;
  const guint8 *modes;
  const gint8 *refs;
  GstMotionVectorAVRecord *records;
  guint mb_cols, mb_rows, ref_cols, mx, my, n = 0;
  gsize total = 0, i;

  g_return_val_if_fail (n_records != NULL, NULL);
  *n_records = 0;
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  first = gst_buffer_get_motion_vector_meta (buffer);
  if (!first)
    return NULL;
  if (!first->chosen_refs
      && !(first->flags & GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS))
    return gst_motion_vector_meta_to_av_records_chosen (first, n_records);

  refs = gst_motion_vector_meta_get_chosen_refs (first, &ref_cols, NULL);
  modes = gst_motion_vector_meta_get_modes (first, &mb_cols, &mb_rows);
  if (!refs || !modes)
    return NULL;
  for (i = 0; i < (gsize) mb_cols * mb_rows; i++)
    total += GST_MOTION_VECTOR_PARTITION_PER_MB (modes[i]);

  fields.n = 0;
  records = g_new0 (GstMotionVectorAVRecord, total);
  for (my = 0; my < mb_rows; my++) {
    for (mx = 0; mx < mb_cols; mx++) {
      GstMotionVectorPartition shape = modes[(gsize) my * mb_cols + mx];
      guint pw = gst_motion_vector_partition_width (shape);
      guint ph = gst_motion_vector_partition_height (shape);
      guint cols = gst_motion_vector_grid_cols (shape, mb_cols);
      guint c, r;

      for (r = my * (16 / ph); r < (my + 1) * (16 / ph); r++) {
        for (c = mx * (16 / pw); c < (mx + 1) * (16 / pw); c++) {
          gint k = decided_field (&fields, buffer, first,
              refs[(gsize) (r * ph / 4) * ref_cols + c * pw / 4]);

          if (k < 0 || !fields.grids[k][shape]) {
            if (k >= 0)
              GST_WARNING ("ignoring the reference decision of a "
                  "motion-vector meta: the field against %d lacks shape %u",
                  fields.distance[k], (guint) shape);
            g_free (records);
            return NULL;
          }
          fill_record (&records[n++], fields.field[k], shape, c, r,
              &fields.grids[k][shape][(gsize) r * cols + c]);
        }
      }
    }
  }
  g_assert (n == total);
  *n_records = n;
  return records;
}
