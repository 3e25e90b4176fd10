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

/* Neighbours A, B and C (or D) of each cell of a macroblock that has
 * every neighbouring macroblock (left, top, top-left, top-right), as
 * offsets in cells, for each shape: in such a macroblock the rules give
 * the same answer for every cell at the same place, so they are worked
 * out once (by the rules themselves) and only the border macroblocks run
 * them per cell. */
typedef struct {
  gint8 dx[3], dy[3];           /* a, b, c */
  gboolean ok[3];
} Offsets;

static Offsets interior[GST_MOTION_VECTOR_PARTITION_COUNT][16];

static void
interior_init (void)
{
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    const int per_x = 16 / GST_MOTION_VECTOR_PARTITION_W (p);
    const int per_y = 16 / GST_MOTION_VECTOR_PARTITION_H (p);
    const int cols = 3 * per_x;
    for (int cy = 0; cy < per_y; cy++)
      for (int cx = 0; cx < per_x; cx++) {
        const int gx = per_x + cx, gy = per_y + cy;   /* macroblock (1, 1) */
        const MEMvpredNeighbours n = me_mvpred_neighbours (p, gx, gy, 3, 3);
        const int idx[3] = { n.a, n.b, n.c };
        Offsets *o = &interior[p][cy * per_x + cx];
        for (int k = 0; k < 3; k++) {
          o->ok[k] = idx[k] >= 0;
          o->dx[k] = idx[k] >= 0 ? idx[k] % cols - gx : 0;
          o->dy[k] = idx[k] >= 0 ? idx[k] / cols - gy : 0;
        }
      }
  }
}

/* The loop over grid rows [gy0, gy1), inlined once per shape so that the
 * partition size is a constant and its divisions become shifts. */
static inline __attribute__((always_inline)) void
grid_rows (GstMotionVectorCell * cells, const int shape, unsigned mb_cols,
    unsigned mb_rows, unsigned gy0, unsigned gy1)
{
  const unsigned cols = gst_motion_vector_grid_cols (shape, mb_cols);
  const unsigned per_x = 16 / GST_MOTION_VECTOR_PARTITION_W (shape);
  const unsigned per_y = 16 / GST_MOTION_VECTOR_PARTITION_H (shape);

  for (unsigned gy = gy0; gy < gy1; gy++) {
    GstMotionVectorCell *row = cells + (gsize) gy * cols;
    const unsigned mby = gy / per_y;

    for (unsigned gx = 0; gx < cols; gx++) {
      const unsigned mbx = gx / per_x;
      int px, py;

      if (mby >= 1 && mbx >= 1 && mbx + 1 < mb_cols) {
        const Offsets *o = &interior[shape][(gy % per_y) * per_x + gx % per_x];
        const GstMotionVectorCell *nc[3];
        int idx[3];
        for (int k = 0; k < 3; k++) {
          idx[k] = o->ok[k] ? (int) ((gy + o->dy[k]) * cols + gx + o->dx[k])
              : -1;
          nc[k] = o->ok[k] ? &cells[idx[k]] : row + gx;
        }
        const MEMvpredNeighbours n = { idx[0], idx[1], idx[2] };
        me_mvpred_combine (shape, gx, gy, n, nc[0]->mv_x, nc[0]->mv_y,
            nc[1]->mv_x, nc[1]->mv_y, nc[2]->mv_x, nc[2]->mv_y, &px, &py);
      } else {
        me_mvpred_cell (cells, shape, gx, gy, mb_cols, mb_rows, &px, &py);
      }
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
me_mvpred_grid_rows (GstMotionVectorCell * cells,
    GstMotionVectorPartition shape, unsigned mb_cols, unsigned mb_rows,
    unsigned gy0, unsigned gy1)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    interior_init ();
    g_once_init_leave (&done, 1);
  }
  switch (shape) {
#define SHAPE(p) case p: grid_rows (cells, p, mb_cols, mb_rows, gy0, gy1); break;
      SHAPE (0) SHAPE (1) SHAPE (2) SHAPE (3) SHAPE (4) SHAPE (5) SHAPE (6)
#undef SHAPE
    default:
      break;
  }
}

void
me_mvpred_grid (GstMotionVectorCell * cells, GstMotionVectorPartition shape,
    unsigned mb_cols, unsigned mb_rows)
{
  me_mvpred_grid_rows (cells, shape, mb_cols, mb_rows, 0,
      gst_motion_vector_grid_rows (shape, mb_rows));
}
