/* gpumotionest — plain-data types of a motion field.
 *
 * This header depends on GLib only, so the backends in kernels/ (C and CUDA)
 * write straight into the layout the meta library publishes.
 */
#ifndef GST_MOTION_VECTOR_TYPES_H
#define GST_MOTION_VECTOR_TYPES_H

#include <glib.h>

G_BEGIN_DECLS

/**
 * GstMotionVectorPartition:
 * @GST_MOTION_VECTOR_PARTITION_16X16: 16x16 macroblock
 * @GST_MOTION_VECTOR_PARTITION_16X8: two 16x8 halves per macroblock
 * @GST_MOTION_VECTOR_PARTITION_8X16: two 8x16 halves per macroblock
 * @GST_MOTION_VECTOR_PARTITION_8X8: four 8x8 blocks per macroblock
 * @GST_MOTION_VECTOR_PARTITION_8X4: eight 8x4 blocks per macroblock
 * @GST_MOTION_VECTOR_PARTITION_4X8: eight 4x8 blocks per macroblock
 * @GST_MOTION_VECTOR_PARTITION_4X4: sixteen 4x4 blocks per macroblock
 * @GST_MOTION_VECTOR_PARTITION_COUNT: number of shapes; not a shape, so
 *   it is left out of the enum's #GType (property values, bindings)
 *
 * The H.264 partition shapes, width x height in luma pixels.  Each computed
 * shape is one dense grid covering the whole (macroblock-padded) frame.
 */
typedef enum {
  GST_MOTION_VECTOR_PARTITION_16X16 = 0,
  GST_MOTION_VECTOR_PARTITION_16X8 = 1,
  GST_MOTION_VECTOR_PARTITION_8X16 = 2,
  GST_MOTION_VECTOR_PARTITION_8X8 = 3,
  GST_MOTION_VECTOR_PARTITION_8X4 = 4,
  GST_MOTION_VECTOR_PARTITION_4X8 = 5,
  GST_MOTION_VECTOR_PARTITION_4X4 = 6,
  GST_MOTION_VECTOR_PARTITION_COUNT = 7 /*< skip >*/
} GstMotionVectorPartition;

/**
 * GstMotionVectorPartitionFlags:
 * @GST_MOTION_VECTOR_PARTITIONS_16X16: 16x16
 * @GST_MOTION_VECTOR_PARTITIONS_16X8: 16x8
 * @GST_MOTION_VECTOR_PARTITIONS_8X16: 8x16
 * @GST_MOTION_VECTOR_PARTITIONS_8X8: 8x8
 * @GST_MOTION_VECTOR_PARTITIONS_8X4: 8x4
 * @GST_MOTION_VECTOR_PARTITIONS_4X8: 4x8
 * @GST_MOTION_VECTOR_PARTITIONS_4X4: 4x4
 * @GST_MOTION_VECTOR_PARTITIONS_ALL: all seven shapes
 *
 * A set of partition shapes: bit n stands for #GstMotionVectorPartition n.
 */
typedef enum {
  GST_MOTION_VECTOR_PARTITIONS_16X16 = 1 << 0,
  GST_MOTION_VECTOR_PARTITIONS_16X8 = 1 << 1,
  GST_MOTION_VECTOR_PARTITIONS_8X16 = 1 << 2,
  GST_MOTION_VECTOR_PARTITIONS_8X8 = 1 << 3,
  GST_MOTION_VECTOR_PARTITIONS_8X4 = 1 << 4,
  GST_MOTION_VECTOR_PARTITIONS_4X8 = 1 << 5,
  GST_MOTION_VECTOR_PARTITIONS_4X4 = 1 << 6,
  GST_MOTION_VECTOR_PARTITIONS_ALL = 0x7f
} GstMotionVectorPartitionFlags;

/**
 * GstMotionVectorMethod:
 * @GST_MOTION_VECTOR_METHOD_FULL: exhaustive integer search over the whole
 *   ±search-range window (at most ±511; ±256 on the CUDA backends)
 * @GST_MOTION_VECTOR_METHOD_MODS: multithreaded one-dimensional search: each
 *   column of the window searched along y in shrinking steps
 * @GST_MOTION_VECTOR_METHOD_HIERARCHICAL: full search on a 4x decimated
 *   pyramid level, refined at 2x and full resolution
 * @GST_MOTION_VECTOR_METHOD_PREDICTIVE: EPZS-style: the best of spatial,
 *   temporal, median and zero predictors, then a 3x3 pattern walk
 *
 * The search that produced a field.
 */
typedef enum {
  GST_MOTION_VECTOR_METHOD_FULL = 0,
  GST_MOTION_VECTOR_METHOD_MODS = 1,
  GST_MOTION_VECTOR_METHOD_HIERARCHICAL = 2,
  GST_MOTION_VECTOR_METHOD_PREDICTIVE = 3,
} GstMotionVectorMethod;

/**
 * GstMotionVectorLuma:
 * @GST_MOTION_VECTOR_LUMA_PLANE: the frame's luma plane as it is (planar
 *   YUV, GRAY8)
 * @GST_MOTION_VECTOR_LUMA_PACKED: the luma samples of a packed 4:2:2 frame
 *   (YUY2, UYVY, YVYU), read where they are: the same samples a planar
 *   copy of the frame would hold
 * @GST_MOTION_VECTOR_LUMA_BT601: a luma derived from R, G and B with
 *   BT.601's integer weights (77, 150, 29)/256, full range
 * @GST_MOTION_VECTOR_LUMA_BT709: the same with BT.709's (54, 183, 19)/256
 *
 * The samples a field's costs were computed on.
 */
typedef enum {
  GST_MOTION_VECTOR_LUMA_PLANE = 0,
  GST_MOTION_VECTOR_LUMA_PACKED = 1,
  GST_MOTION_VECTOR_LUMA_BT601 = 2,
  GST_MOTION_VECTOR_LUMA_BT709 = 3,
} GstMotionVectorLuma;

/**
 * GstMotionVectorCell:
 * @mv_x: horizontal motion vector, quarter-pel units
 * @mv_y: vertical motion vector, quarter-pel units
 * @cost: matching cost of @mv (sum of absolute luma differences)
 * @pred_x: H.264 median prediction of @mv_x, quarter-pel units
 * @pred_y: H.264 median prediction of @mv_y, quarter-pel units
 * @mvd_x: @mv_x - @pred_x
 * @mvd_y: @mv_y - @pred_y
 *
 * One block of one grid: 16 bytes, no padding, host byte order.  The
 * vector points from the block in the current frame to its match in the
 * reference frame: block at (x, y) matches reference pixels at
 * (x + mv_x / 4, y + mv_y / 4).
 */
typedef struct {
  gint16 mv_x;
  gint16 mv_y;
  guint32 cost;
  gint16 pred_x;
  gint16 pred_y;
  gint16 mvd_x;
  gint16 mvd_y;
} GstMotionVectorCell;

#ifndef __GI_SCANNER__
G_STATIC_ASSERT (sizeof (GstMotionVectorCell) == 16);
#endif

/* The one table of partition shapes.  Everything that needs a shape's
 * geometry (this library, both backends, the H.264 prediction rules, the
 * tests) reads it from here; it is written as macros so that GPU device
 * code and constant expressions can read it too.
 *
 *   shape   0      1      2      3     4     5     6
 *           16x16  16x8   8x16   8x8   8x4   4x8   4x4
 *   per MB  1      2      2      4     8     8     16     (41 in all)
 *   first   0      1      3      5     9     17    25
 *
 * "first" numbers the blocks of every shape of one macroblock in shape
 * order, row-major within the macroblock: block k of shape p is number
 * first(p) + k.  Both backends keep their per-macroblock minima in that
 * order. */
#define GST_MOTION_VECTOR_PARTITION_W(p) \
  ((p) <= 1 ? 16 : ((p) == 5 || (p) == 6) ? 4 : 8)
#define GST_MOTION_VECTOR_PARTITION_H(p) \
  (((p) == 0 || (p) == 2) ? 16 : ((p) == 4 || (p) == 6) ? 4 : 8)
#define GST_MOTION_VECTOR_PARTITION_PER_MB(p) \
  ((16 / GST_MOTION_VECTOR_PARTITION_W (p)) \
      * (16 / GST_MOTION_VECTOR_PARTITION_H (p)))
#define GST_MOTION_VECTOR_PARTITION_FIRST(p) \
  ((p) == 0 ? 0 : (p) == 1 ? 1 : (p) == 2 ? 3 : (p) == 3 ? 5 : (p) == 4 ? 9 \
      : (p) == 5 ? 17 : (p) == 6 ? 25 : 41)
#define GST_MOTION_VECTOR_BLOCKS_PER_MB 41

/* Width and height of a partition shape in pixels. */
static inline guint
gst_motion_vector_partition_width (GstMotionVectorPartition p)
{
  return GST_MOTION_VECTOR_PARTITION_W (p);
}

static inline guint
gst_motion_vector_partition_height (GstMotionVectorPartition p)
{
  return GST_MOTION_VECTOR_PARTITION_H (p);
}

/* Number of macroblocks across / down a frame of @width x @height pixels. */
static inline guint
gst_motion_vector_mb_cols (guint width)
{
  return (width + 15) / 16;
}

static inline guint
gst_motion_vector_mb_rows (guint height)
{
  return (height + 15) / 16;
}

/* Grid of shape @p over a frame of @mb_cols x @mb_rows macroblocks. */
static inline guint
gst_motion_vector_grid_cols (GstMotionVectorPartition p, guint mb_cols)
{
  return mb_cols * (16 / gst_motion_vector_partition_width (p));
}

static inline guint
gst_motion_vector_grid_rows (GstMotionVectorPartition p, guint mb_rows)
{
  return mb_rows * (16 / gst_motion_vector_partition_height (p));
}

/* The one layout of a field: the grids of the shapes in @partitions one
 * after the other in shape order, each covering @mb_cols x @mb_rows
 * macroblocks.  Writes each requested shape's first cell to @offsets
 * (others get 0) and returns the total number of cells.  Sizes are not
 * checked here: gst_motion_vector_layout() is the checked, public form. */
static inline guint64
gst_motion_vector_grid_offsets (GstMotionVectorPartitionFlags partitions,
    guint mb_cols, guint mb_rows,
    guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT])
{
  guint64 total = 0;
  int p;

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    offsets[p] = 0;
    if (!(partitions & (1u << p)))
      continue;
    offsets[p] = total;
    total += (guint64) gst_motion_vector_grid_cols ((GstMotionVectorPartition) p,
        mb_cols) * gst_motion_vector_grid_rows ((GstMotionVectorPartition) p,
        mb_rows);
  }
  return total;
}

G_END_DECLS

#endif /* GST_MOTION_VECTOR_TYPES_H */
