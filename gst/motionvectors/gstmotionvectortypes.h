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
 *   ±search-range window
 *
 * The search that produced a field.
 */
typedef enum {
  GST_MOTION_VECTOR_METHOD_FULL = 0,
} GstMotionVectorMethod;

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

/* Width and height of a partition shape in pixels. */
static inline guint
gst_motion_vector_partition_width (GstMotionVectorPartition p)
{
  static const guint8 w[] = { 16, 16, 8, 8, 8, 4, 4 };
  return w[p];
}

static inline guint
gst_motion_vector_partition_height (GstMotionVectorPartition p)
{
  static const guint8 h[] = { 16, 8, 16, 8, 4, 8, 4 };
  return h[p];
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

G_END_DECLS

#endif /* GST_MOTION_VECTOR_TYPES_H */
