/* gpumotionest — H.264 motion-vector prediction (ITU-T H.264 clause 8.4.1.3)
 * for uniform partition grids, one reference frame. */
#ifndef ME_MVPRED_H
#define ME_MVPRED_H

#include "me_backend.h"

G_BEGIN_DECLS

/* Fills pred_x/pred_y and mvd_x/mvd_y of every cell of grid `shape` from the
 * grid's vectors.  `cells` is cols x rows for mb_cols x mb_rows macroblocks. */
void me_mvpred_grid (GstMotionVectorCell * cells, GstMotionVectorPartition shape,
    unsigned mb_cols, unsigned mb_rows);

/* The same for grid rows [gy0, gy1) only: cells read other cells' vectors
 * and write only their own prediction, so bands can run in parallel. */
void me_mvpred_grid_rows (GstMotionVectorCell * cells,
    GstMotionVectorPartition shape, unsigned mb_cols, unsigned mb_rows,
    unsigned gy0, unsigned gy1);

G_END_DECLS

#endif /* ME_MVPRED_H */
