/* Placeholder: replaced by the H.264 predictor. */
#include "mvpred.h"

void
me_mvpred_grid (GstMotionVectorCell * cells, GstMotionVectorPartition shape,
    unsigned mb_cols, unsigned mb_rows)
{
  unsigned n = gst_motion_vector_grid_cols (shape, mb_cols)
      * gst_motion_vector_grid_rows (shape, mb_rows);
  for (unsigned i = 0; i < n; i++) {
    cells[i].pred_x = cells[i].pred_y = 0;
    cells[i].mvd_x = cells[i].mv_x;
    cells[i].mvd_y = cells[i].mv_y;
  }
}

void
me_mvpred_field (MEField * field)
{
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if (field->grid[p])
      me_mvpred_grid (field->grid[p], p, field->mb_cols, field->mb_rows);
}
