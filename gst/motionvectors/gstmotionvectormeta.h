/* gpumotionest — GstMotionVectorMeta: the motion field of a video buffer.
 *
 * One meta describes one motion field of its buffer against one reference
 * frame.  The grids of all computed partition shapes live in one immutable,
 * refcounted GBytes, so buffer copies share them.
 */
#ifndef GST_MOTION_VECTOR_META_H
#define GST_MOTION_VECTOR_META_H

#include <gst/gst.h>
#include <gst/motionvectors/gstmotionvectortypes.h>
#include <gst/motionvectors/motionvectors-prelude.h>
#include <gst/motionvectors/gstmotionvectors-enumtypes.h>
#include <gst/motionvectors/gstmotionvectorsummary.h>

G_BEGIN_DECLS

#define GST_MOTION_VECTOR_META_API_TYPE (gst_motion_vector_meta_api_get_type ())
#define GST_MOTION_VECTOR_META_INFO (gst_motion_vector_meta_get_info ())

/**
 * GST_MOTION_VECTOR_MAX_SIZE:
 *
 * The largest analysis width and height, in pixels, that a
 * #GstMotionVectorMeta may describe (the smallest is 1).
 */
#define GST_MOTION_VECTOR_MAX_SIZE 8192

/**
 * GstMotionVectorMetaFlags:
 * @GST_MOTION_VECTOR_META_FLAG_NONE: no flag
 * @GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE: there was no reference frame
 *   (first frame, after a discontinuity, flush or caps change); every cell
 *   is zero.
 * @GST_MOTION_VECTOR_META_FLAG_HAS_MODES: the meta carries the partition
 *   each macroblock was decided to be coded with
 *   (#GstMotionVectorMeta.modes, gst_motion_vector_meta_get_modes()).
 *   Set and cleared by gst_motion_vector_meta_set_modes().
 * @GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY: the meta carries the frame's
 *   #GstMotionVectorSummary (#GstMotionVectorMeta.summary,
 *   gst_motion_vector_meta_get_summary()).  Set and cleared by
 *   gst_motion_vector_meta_set_summary().
 * @GST_MOTION_VECTOR_META_FLAG_DERIVED_LUMA: the costs were computed on a
 *   luma derived from RGB (#GstMotionVectorMeta.luma says with which
 *   weights), not on luma samples the frame carries.
 * @GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS: the meta carries the
 *   reference each block is predicted from
 *   (#GstMotionVectorMeta.chosen_refs,
 *   gst_motion_vector_meta_get_chosen_refs()).  Set and cleared by
 *   gst_motion_vector_meta_set_chosen_refs().
 * @GST_MOTION_VECTOR_META_FLAG_INTER_VIEW: the field of a view of stereo
 *   video (#GstMotionVectorMeta.view) searched against the first view at
 *   the same instant: disparity, not motion.  Its @ref_distance is 0.
 */
typedef enum {
  GST_MOTION_VECTOR_META_FLAG_NONE = 0,
  GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE = 1 << 0,
  GST_MOTION_VECTOR_META_FLAG_HAS_MODES = 1 << 1,
  GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY = 1 << 2,
  GST_MOTION_VECTOR_META_FLAG_DERIVED_LUMA = 1 << 3,
  GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS = 1 << 4,
  GST_MOTION_VECTOR_META_FLAG_INTER_VIEW = 1 << 5,
} GstMotionVectorMetaFlags;

/**
 * GstMotionVectorGrid:
 * @cols: cells across
 * @rows: cells down
 * @offset: index of the grid's first cell in the meta's data, in cells
 *
 * Where one partition shape's grid lies in the meta's data.  Cells are in
 * raster order: cell (c, r) is at @offset + r * @cols + c.
 */
typedef struct {
  guint cols;
  guint rows;
  guint offset;
} GstMotionVectorGrid;

/**
 * GstMotionVectorMeta:
 * @meta: parent #GstMeta
 * @width: width of the frame the vectors are expressed for, in pixels
 * @height: height of the frame the vectors are expressed for, in pixels
 * @analysis_width: width of the frame the search ran on
 * @analysis_height: height of the frame the search ran on
 * @ref_distance: the reference frame relative to this one, in frames of
 *   presentation order: negative in the past (-1 = the previous frame),
 *   positive in the future (+1 = the next one).  Never 0, which names no
 *   other frame: a meta with 0 is inconsistent
 *   (gst_motion_vector_meta_is_valid())
 * @ref_pts: presentation timestamp of the reference, or GST_CLOCK_TIME_NONE
 *   when there was none (%GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE)
 * @flags: #GstMotionVectorMetaFlags
 * @method: the search method
 * @search_range: the search range, ± integer pixels at analysis size
 * @partitions: the shapes present, #GstMotionVectorPartitionFlags
 * @grids: (array fixed-size=7): where each present shape's grid lies in
 *   @data (zeros if absent); C only: PyGObject cannot copy this array of
 *   structures out of the field and reads it as an empty list, so bindings
 *   use gst_motion_vector_layout_grid() or the sizes returned by
 *   gst_motion_vector_meta_get_grid_bytes()
 * @data: the cells of all present grids, in shape order
 * @modes: (nullable): the partition decision, or %NULL when the meta has
 *   none: one byte per macroblock of the analysis frame, row-major, each a
 *   #GstMotionVectorPartition among @partitions.  Set with
 *   gst_motion_vector_meta_set_modes() (which also sets
 *   %GST_MOTION_VECTOR_META_FLAG_HAS_MODES), read with
 *   gst_motion_vector_meta_get_modes() or
 *   gst_motion_vector_meta_get_modes_bytes().  Added after the other
 *   fields, so code built against a meta without it reads the rest as
 *   before.
 * @summary: the frame's motion summary, meaningful only with
 *   %GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY; set with
 *   gst_motion_vector_meta_set_summary(), read with
 *   gst_motion_vector_meta_get_summary().  Added after @modes.
 * @luma: the samples the search and its costs ran on, a
 *   #GstMotionVectorLuma (%GST_MOTION_VECTOR_LUMA_PLANE unless set).
 *   Added after @summary.
 * @bit_depth: bits per sample of that luma (8 unless set; every cost is
 *   a sum of differences of such samples).  Added after @luma.
 * @chosen_refs: (nullable): the reference decision, or %NULL when the
 *   meta has none: one #gint8 per 4x4 block of the analysis frame
 *   ((4 * mb_cols) x (4 * mb_rows) blocks, row-major), each the
 *   @ref_distance of the field whose vector the partition covering that
 *   block takes (never 0).  It goes with @modes on the first field of a
 *   buffer searched against several references; the vectors are those of
 *   the buffer's other fields
 *   (gst_buffer_motion_vector_to_av_records_chosen()).  Set with
 *   gst_motion_vector_meta_set_chosen_refs() (which also sets
 *   %GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS), read with
 *   gst_motion_vector_meta_get_chosen_refs() or
 *   gst_motion_vector_meta_get_chosen_refs_bytes().  Added after
 *   @bit_depth.
 * @view: the view of stereo video the field is of: 0 the first (and the
 *   only one of other video), 1 the second; the field covers that view
 *   (analysis_width x analysis_height), whose place in the frame the caps'
 *   multiview-mode gives (docs/stereo.md).  Added after @chosen_refs.
 *
 * Grids are laid out over the analysis frame: a cell of shape (w, h) covers
 * analysis pixels (c * w, r * h) to (c * w + w - 1, r * h + h - 1).  When a
 * downstream element scales the frame the vectors are rescaled to the new
 * @width and @height, while the grids keep their shape; the block covers
 * @width / @analysis_width times as many pixels across.
 *
 * The fields are public and writable, so a meta can be made inconsistent
 * after it was attached (a size, @partitions or @grids that no longer match
 * @data).  Every reader of the library checks the meta first
 * (gst_motion_vector_meta_is_valid()) and treats an inconsistent one as
 * holding no grid; code that reads @grids and @data directly should do the
 * same.
 *
 * A buffer may carry several metas, one motion field per reference frame
 * (gpumotionest's references property), in the order they were added:
 * gst_buffer_get_n_motion_vector_metas(),
 * gst_buffer_get_motion_vector_meta_nth() and
 * gst_buffer_get_motion_vector_meta_for_reference() reach each one, and
 * gst_buffer_get_motion_vector_meta() the first.
 *
 * The meta is part of its buffer: it lives exactly as long as the buffer
 * does, and so does everything returned from it with transfer none (cells,
 * grid pointers).  Keep a reference to the buffer while using the meta, in
 * C and in bindings alike; the #GBytes of
 * gst_motion_vector_meta_get_grid_bytes() and
 * gst_motion_vector_meta_get_modes_bytes() and
 * gst_motion_vector_meta_get_chosen_refs_bytes() and the records of
 * gst_motion_vector_meta_to_av_records(),
 * gst_motion_vector_meta_to_av_records_chosen() and
 * gst_buffer_motion_vector_to_av_records_chosen() are owned by the caller
 * and stay valid after the buffer is gone.
 */
struct _GstMotionVectorMeta {
  GstMeta meta;

  guint width;
  guint height;
  guint analysis_width;
  guint analysis_height;
  gint ref_distance;
  GstClockTime ref_pts;
  GstMotionVectorMetaFlags flags;
  GstMotionVectorMethod method;
  guint search_range;
  GstMotionVectorPartitionFlags partitions;
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  GBytes *data;
  /* added with the partition decision: keep new fields after this one */
  GBytes *modes;
  /* added with the motion summary */
  GstMotionVectorSummary summary;
  /* added with packed and RGB input */
  GstMotionVectorLuma luma;
  guint bit_depth;
  /* added with the reference decision */
  GBytes *chosen_refs;
  /* added with stereo video */
  guint view;
};

/**
 * GstMotionVectorAVRecord:
 * @source: -1 when the reference is in the past, 1 in the future
 * @w: block width in pixels
 * @h: block height in pixels
 * @src_x: x of the block centre in the reference
 * @src_y: y of the block centre in the reference
 * @dst_x: x of the block centre in this frame
 * @dst_y: y of the block centre in this frame
 * @flags: always 0
 * @motion_x: src_x = dst_x + motion_x / motion_scale
 * @motion_y: src_y = dst_y + motion_y / motion_scale
 * @motion_scale: 4 (quarter-pel)
 *
 * A record laid out like FFmpeg's AVMotionVector, for tools that already
 * read that format.
 */
typedef struct {
  gint32 source;
  guint8 w;
  guint8 h;
  gint16 src_x;
  gint16 src_y;
  gint16 dst_x;
  gint16 dst_y;
  guint64 flags;
  gint32 motion_x;
  gint32 motion_y;
  guint16 motion_scale;
} GstMotionVectorAVRecord;

GST_MOTION_VECTORS_API
GType gst_motion_vector_meta_api_get_type (void);

GST_MOTION_VECTORS_API
const GstMetaInfo *gst_motion_vector_meta_get_info (void);

GST_MOTION_VECTORS_API
guint gst_motion_vector_layout (guint analysis_width, guint analysis_height,
    GstMotionVectorPartitionFlags partitions,
    GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT]);

GST_MOTION_VECTORS_API
guint gst_motion_vector_layout_grid (guint analysis_width,
    guint analysis_height, GstMotionVectorPartitionFlags partitions,
    GstMotionVectorPartition partition, guint * cols, guint * rows,
    guint * offset);

GST_MOTION_VECTORS_API
GstMotionVectorMeta *gst_buffer_add_motion_vector_meta (GstBuffer * buffer,
    guint analysis_width, guint analysis_height,
    GstMotionVectorPartitionFlags partitions, GBytes * data);

GST_MOTION_VECTORS_API
GstMotionVectorMeta *gst_buffer_get_motion_vector_meta (GstBuffer * buffer);

GST_MOTION_VECTORS_API
guint gst_buffer_get_n_motion_vector_metas (GstBuffer * buffer);

GST_MOTION_VECTORS_API
GstMotionVectorMeta *gst_buffer_get_motion_vector_meta_nth (GstBuffer * buffer,
    guint index);

GST_MOTION_VECTORS_API
GstMotionVectorMeta *gst_buffer_get_motion_vector_meta_for_view (
    GstBuffer * buffer, guint view, gint ref_distance);

GST_MOTION_VECTORS_API
GstMotionVectorMeta *gst_buffer_get_motion_vector_meta_for_reference (
    GstBuffer * buffer, gint ref_distance);

GST_MOTION_VECTORS_API
gboolean gst_motion_vector_meta_is_valid (const GstMotionVectorMeta * meta);

GST_MOTION_VECTORS_API
const GstMotionVectorCell *gst_motion_vector_meta_get_cell (
    const GstMotionVectorMeta * meta, GstMotionVectorPartition partition,
    guint col, guint row);

GST_MOTION_VECTORS_API
const GstMotionVectorCell *gst_motion_vector_meta_get_grid (
    const GstMotionVectorMeta * meta, GstMotionVectorPartition partition,
    guint * cols, guint * rows);

GST_MOTION_VECTORS_API
GBytes *gst_motion_vector_meta_get_grid_bytes (const GstMotionVectorMeta * meta,
    GstMotionVectorPartition partition, guint * cols, guint * rows);

GST_MOTION_VECTORS_API
GstMotionVectorAVRecord *gst_motion_vector_meta_to_av_records (
    const GstMotionVectorMeta * meta, GstMotionVectorPartition partition,
    guint * n_records);

GST_MOTION_VECTORS_API
gboolean gst_motion_vector_meta_set_modes (GstMotionVectorMeta * meta,
    GBytes * modes);

GST_MOTION_VECTORS_API
const guint8 *gst_motion_vector_meta_get_modes (
    const GstMotionVectorMeta * meta, guint * cols, guint * rows);

GST_MOTION_VECTORS_API
GBytes *gst_motion_vector_meta_get_modes_bytes (
    const GstMotionVectorMeta * meta, guint * cols, guint * rows);

GST_MOTION_VECTORS_API
GstMotionVectorAVRecord *gst_motion_vector_meta_to_av_records_chosen (
    const GstMotionVectorMeta * meta, guint * n_records);

GST_MOTION_VECTORS_API
gboolean gst_motion_vector_meta_set_chosen_refs (GstMotionVectorMeta * meta,
    GBytes * refs);

GST_MOTION_VECTORS_API
const gint8 *gst_motion_vector_meta_get_chosen_refs (
    const GstMotionVectorMeta * meta, guint * cols, guint * rows);

GST_MOTION_VECTORS_API
GBytes *gst_motion_vector_meta_get_chosen_refs_bytes (
    const GstMotionVectorMeta * meta, guint * cols, guint * rows);

GST_MOTION_VECTORS_API
GstMotionVectorAVRecord *gst_buffer_motion_vector_to_av_records_chosen (
    GstBuffer * buffer, guint * n_records);

GST_MOTION_VECTORS_API
void gst_motion_vector_meta_set_summary (GstMotionVectorMeta * meta,
    const GstMotionVectorSummary * summary);

GST_MOTION_VECTORS_API
gboolean gst_motion_vector_meta_get_summary (const GstMotionVectorMeta * meta,
    GstMotionVectorSummary * out);

G_END_DECLS

#endif /* GST_MOTION_VECTOR_META_H */
