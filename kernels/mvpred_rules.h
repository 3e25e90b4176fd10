/* gpumotionest — the per-cell rules of H.264 motion-vector prediction
 * (ITU-T H.264 clause 8.4.1.3), shared by the CPU loop and CUDA kernels.
 *
 * Model: a grid of shape p covers the frame as if every macroblock were
 * coded with that one uniform partitioning (16x16, 16x8, 8x16, or P_8x8
 * with every sub-macroblock split the same way), all inter, refIdx 0, one
 * slice, macroblocks in raster order.  A cell's prediction then depends
 * only on the shape, its grid coordinates, the grid size and the vectors of
 * at most three other cells of the same grid, never on other predictions:
 * every cell can be computed on its own, in any order.
 *
 * The work is split in two so that a caller can fetch the vectors from
 * wherever it keeps them (cells, search keys):
 *
 *   me_mvpred_neighbours ()  which cells are A, B and C (after C -> D),
 *                            as grid indices, -1 when not available
 *   me_mvpred_combine ()     directional rules and the median
 *
 * and me_mvpred_cell () puts both together for a grid of
 * GstMotionVectorCell.  Shapes are numbered as GstMotionVectorPartition.
 * Vectors are quarter-pel.  Written for C and CUDA alike (ME_INLINE).
 */
#ifndef ME_MVPRED_RULES_H
#define ME_MVPRED_RULES_H

#include <gst/motionvectors/gstmotionvectortypes.h>
#include "me_cost.h"

/* Partition width / height in pixels of shape p (0 = 16x16 .. 6 = 4x4),
 * from the shape table (gstmotionvectortypes.h). */
ME_INLINE int
me_mvpred_part_w (int p)
{
  return GST_MOTION_VECTOR_PARTITION_W (p);
}

ME_INLINE int
me_mvpred_part_h (int p)
{
  return GST_MOTION_VECTOR_PARTITION_H (p);
}

/* luma4x4BlkIdx of the 4x4 block holding pixel (x, y) of a macroblock
 * (clause 6.4.13.1).  The index runs in z-order, and every partition and
 * sub-macroblock partition of H.264 covers a run of consecutive indices in
 * its decoding order, so within one macroblock of uniform partitioning a
 * partition is decoded before another exactly when the index of its
 * top-left 4x4 block is smaller. */
ME_INLINE int
me_mvpred_blk4x4 (int x, int y)
{
  return 8 * (y >> 3) + 4 * (x >> 3) + 2 * ((y & 7) >> 2) + ((x & 7) >> 2);
}

/* Grid index of the partition covering luma location (xn, yn), given
 * relative to the top-left pixel of macroblock (mbx, mby), as seen from the
 * partition whose top-left pixel in that macroblock is (x, y); -1 when that
 * partition is not available (clauses 6.4.12 and 6.4.11.7).  w, h: the
 * partition size; cols: the grid's columns. */
ME_INLINE int
me_mvpred_locate (int w, int h, int cols, int mb_cols, int mbx, int mby,
    int x, int y, int xn, int yn)
{
  int nmbx = mbx, nmby = mby;

  /* Right of the macroblock in its own row, or below it: decoded later
   * (table 6-3 gives "not available" for xN > maxW - 1 with yN >= 0). */
  if (yn > 15 || (xn > 15 && yn >= 0))
    return -1;
  if (xn < 0)
    nmbx--;                     /* A (yn >= 0) or D (yn < 0) */
  else if (xn > 15)
    nmbx++;                     /* C: above-right */
  if (yn < 0)
    nmby--;                     /* B, C or D */
  /* mbAddrA/B/C/D exist when inside the picture; any macroblock above, or
   * to the left in the same row, precedes the current one.  The row below
   * cannot be reached (yn <= 15). */
  if (nmbx < 0 || nmby < 0 || nmbx >= mb_cols)
    return -1;
  /* Inside the current macroblock: only partitions decoded earlier. */
  if (nmbx == mbx && nmby == mby
      && me_mvpred_blk4x4 (xn & ~(w - 1), yn & ~(h - 1))
      >= me_mvpred_blk4x4 (x, y))
    return -1;
  return ((nmby * 16 + (yn & 15)) / h) * cols + (nmbx * 16 + (xn & 15)) / w;
}

/* Grid indices of the neighbours A, B and C of a partition, -1 when not
 * available; c is D when C is not available (clause 8.4.1.3.2). */
typedef struct {
  int a, b, c;
} MEMvpredNeighbours;

/* Neighbours of cell (gx, gy) of the grid of shape p over mb_cols x mb_rows
 * macroblocks.  predPartWidth is the partition width for every uniform
 * shape, sub-macroblock partitions included (P_8x8, clause 6.4.11.7). */
ME_INLINE MEMvpredNeighbours
me_mvpred_neighbours (int p, int gx, int gy, int mb_cols, int mb_rows)
{
  const int w = me_mvpred_part_w (p), h = me_mvpred_part_h (p);
  const int cols = mb_cols * (16 / w);
  const int x0 = gx * w, y0 = gy * h;   /* frame pixels */
  const int mbx = x0 >> 4, mby = y0 >> 4, x = x0 & 15, y = y0 & 15;
  MEMvpredNeighbours n;

  (void) mb_rows;               /* nothing below the current row is read */
  n.a = me_mvpred_locate (w, h, cols, mb_cols, mbx, mby, x, y, x - 1, y);
  n.b = me_mvpred_locate (w, h, cols, mb_cols, mbx, mby, x, y, x, y - 1);
  n.c = me_mvpred_locate (w, h, cols, mb_cols, mbx, mby, x, y, x + w, y - 1);
  if (n.c < 0)
    n.c = me_mvpred_locate (w, h, cols, mb_cols, mbx, mby, x, y, x - 1,
        y - 1);
  return n;
}

ME_INLINE int
me_mvpred_median3 (int a, int b, int c)
{
  /* max (min (a, b), min (max (a, b), c)), written to compile to
   * conditional moves: vectors are data, branches on them mispredict */
  const int lo = a < b ? a : b, hi = a < b ? b : a;
  const int m = hi < c ? hi : c;
  return lo > m ? lo : m;
}

/* The predictor of cell (gx, gy) of shape p from its neighbours n and their
 * vectors (quarter-pel; ignored for a neighbour that is not available,
 * which counts as mv (0, 0), refIdx -1).  Clause 8.4.1.3 with 8.4.1.3.1. */
ME_INLINE void
me_mvpred_combine (int p, int gx, int gy, MEMvpredNeighbours n,
    int ax, int ay, int bx, int by, int cx, int cy, int *px, int *py)
{
  int na = n.a >= 0, nb = n.b >= 0, nc = n.c >= 0;

  if (!na)
    ax = ay = 0;
  if (!nb)
    bx = by = 0;
  if (!nc)
    cx = cy = 0;

  /* Directional prediction: refIdx of the named neighbour equals the
   * current refIdx (0) exactly when it is available. */
  if (p == 1 && !(gy & 1) && nb) {      /* 16x8, upper: B */
    *px = bx;
    *py = by;
    return;
  }
  if (p == 1 && (gy & 1) && na) {       /* 16x8, lower: A */
    *px = ax;
    *py = ay;
    return;
  }
  if (p == 2 && !(gx & 1) && na) {      /* 8x16, left: A */
    *px = ax;
    *py = ay;
    return;
  }
  if (p == 2 && (gx & 1) && nc) {       /* 8x16, right: C (or D) */
    *px = cx;
    *py = cy;
    return;
  }

  /* 8.4.1.3.1: with B and C both unavailable and A available, B and C
   * take A's vector and refIdx. */
  if (!nb && !nc && na) {
    bx = cx = ax;
    by = cy = ay;
    nb = nc = 1;
  }
  /* Exactly one refIdx equal to 0: that neighbour's vector. */
  if (na + nb + nc == 1) {
    *px = na ? ax : nb ? bx : cx;
    *py = na ? ay : nb ? by : cy;
    return;
  }
  *px = me_mvpred_median3 (ax, bx, cx);
  *py = me_mvpred_median3 (ay, by, cy);
}

/* Predictor of cell (gx, gy) of `grid`, the cols x rows grid of shape p
 * over mb_cols x mb_rows macroblocks; quarter-pel. */
ME_INLINE void
me_mvpred_cell (const GstMotionVectorCell * grid, int p, int gx, int gy,
    int mb_cols, int mb_rows, int *px, int *py)
{
  const MEMvpredNeighbours n = me_mvpred_neighbours (p, gx, gy, mb_cols,
      mb_rows);
  const GstMotionVectorCell *a = n.a >= 0 ? &grid[n.a] : grid;
  const GstMotionVectorCell *b = n.b >= 0 ? &grid[n.b] : grid;
  const GstMotionVectorCell *c = n.c >= 0 ? &grid[n.c] : grid;

  me_mvpred_combine (p, gx, gy, n, a->mv_x, a->mv_y, b->mv_x, b->mv_y,
      c->mv_x, c->mv_y, px, py);
}

#endif /* ME_MVPRED_RULES_H */
