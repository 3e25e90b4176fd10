/* gpumotionest — H.264 motion-vector prediction over whole grids.
 *
 * The rules of clause 8.4.1.3 live in mvpred_rules.h, one cell at a time,
 * so that CUDA kernels apply the very same definition.  This file only runs
 * them over every cell of a grid: one pass, no allocation.  Cells read only
 * the vectors of other cells (mv_x, mv_y) and write only their own pred and
 * mvd fields, so the order of the loop does not matter.
 */
#include "mvpred.h"
#include "mvpred_rules.h"

void
me_mvpred_grid (GstMotionVectorCell * cells, GstMotionVectorPartition shape,
    unsigned mb_cols, unsigned mb_rows)
{
  const unsigned cols = gst_motion_vector_grid_cols (shape, mb_cols);
  const unsigned rows = gst_motion_vector_grid_rows (shape, mb_rows);

  for (unsigned gy = 0; gy < rows; gy++) {
    GstMotionVectorCell *row = cells + (gsize) gy * cols;

    for (unsigned gx = 0; gx < cols; gx++) {
      int px, py;

      me_mvpred_cell (cells, shape, gx, gy, mb_cols, mb_rows, &px, &py);
      /* Predictors are medians or copies of int16 vectors: they fit.  The
       * MVD wraps like any int16 difference (never for vectors within
       * +-16383 quarter-pel). */
      row[gx].pred_x = (gint16) px;
      row[gx].pred_y = (gint16) py;
      row[gx].mvd_x = (gint16) (row[gx].mv_x - px);
      row[gx].mvd_y = (gint16) (row[gx].mv_y - py);
    }
  }
}

void
me_mvpred_field (MEField * field)
{
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if (field->grid[p])
      me_mvpred_grid (field->grid[p], p, field->mb_cols, field->mb_rows);
}
