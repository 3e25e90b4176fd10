/* gpumotionest — H.264 motion-vector prediction for uniform partition grids.
 *
 * ITU-T H.264 clause 8.4.1.3 with one reference picture (refIdx 0 for every
 * inter partition).  Each grid is read as if every macroblock of the frame
 * were coded with that one partition shape: 16x16, 16x8, 8x16, or P_8x8
 * with every sub-macroblock split the same way (8x8, 8x4, 4x8, 4x4).
 *
 * For a partition at (x, y) of its macroblock, width w, the neighbours are
 * the partitions covering the luma locations (6.4.11.7)
 *
 *        D = (x-1, y-1)   B = (x, y-1)   C = (x+w, y-1)
 *        A = (x-1, y)     [ current ]
 *
 * A location is available (6.4.12) when its macroblock lies in the picture
 * and is decoded before the current one: left, above-left, above and, for
 * locations above the top row right of the macroblock, above-right.  Inside
 * the current macroblock it is available only when its partition precedes
 * the current one in decoding order.  Locations to the right in the same
 * macroblock row and below are never available.  When C is unavailable D
 * takes its place.
 *
 * Every cell depends only on the vectors, never on other predictions, so
 * cells are independent and the order of the loop does not matter.
 */
#include "mvpred.h"

typedef struct {
  gboolean available;
  int x, y;                     /* quarter-pel vector, 0 when unavailable */
} Neighbour;

/* Decoding order of the partition of shape p covering pixel (x, y) of its
 * macroblock: macroblock partitions top to bottom or left to right;
 * sub-macroblocks in raster order, each one's sub-partitions in raster
 * order. */
static int
decode_index (GstMotionVectorPartition p, int x, int y)
{
  int blk8 = (y / 8) * 2 + x / 8;

  switch (p) {
    case GST_MOTION_VECTOR_PARTITION_16X16:
      return 0;
    case GST_MOTION_VECTOR_PARTITION_16X8:
      return y / 8;
    case GST_MOTION_VECTOR_PARTITION_8X16:
      return x / 8;
    case GST_MOTION_VECTOR_PARTITION_8X8:
      return blk8;
    case GST_MOTION_VECTOR_PARTITION_8X4:
      return blk8 * 2 + (y % 8) / 4;
    case GST_MOTION_VECTOR_PARTITION_4X8:
      return blk8 * 2 + (x % 8) / 4;
    default:
      return blk8 * 4 + ((y % 8) / 4) * 2 + (x % 8) / 4;
  }
}

/* The neighbour covering location (xn, yn), relative to the top-left pixel
 * of macroblock (mbx, mby), for the partition of decoding index `cur`. */
static Neighbour
neighbour (const GstMotionVectorCell * grid, GstMotionVectorPartition p,
    unsigned mb_cols, unsigned mb_rows, int mbx, int mby, int xn, int yn,
    int cur)
{
  Neighbour n = { FALSE, 0, 0 };
  int nmbx = mbx, nmby = mby;

  if (yn > 15 || (xn > 15 && yn >= 0))
    return n;                   /* not yet decoded */
  if (xn < 0)
    nmbx--;
  else if (xn > 15)
    nmbx++;
  if (yn < 0)
    nmby--;
  if (nmbx < 0 || nmby < 0 || nmbx >= (int) mb_cols || nmby >= (int) mb_rows)
    return n;                   /* outside the picture */
  if (nmbx == mbx && nmby == mby && decode_index (p, xn, yn) >= cur)
    return n;                   /* later in the same macroblock */

  {
    unsigned bw = gst_motion_vector_partition_width (p);
    unsigned bh = gst_motion_vector_partition_height (p);
    unsigned cols = gst_motion_vector_grid_cols (p, mb_cols);
    unsigned gx = nmbx * 16 + ((xn + 16) & 15);
    unsigned gy = nmby * 16 + ((yn + 16) & 15);
    const GstMotionVectorCell *c = &grid[(gy / bh) * cols + gx / bw];

    n.available = TRUE;
    n.x = c->mv_x;
    n.y = c->mv_y;
  }
  return n;
}

static int
median3 (int a, int b, int c)
{
  return MAX (MIN (a, b), MIN (MAX (a, b), c));
}

void
me_mvpred_grid (GstMotionVectorCell * grid, GstMotionVectorPartition p,
    unsigned mb_cols, unsigned mb_rows)
{
  const int bw = gst_motion_vector_partition_width (p);
  const int bh = gst_motion_vector_partition_height (p);
  const unsigned cols = gst_motion_vector_grid_cols (p, mb_cols);
  const unsigned rows = gst_motion_vector_grid_rows (p, mb_rows);

  for (unsigned r = 0; r < rows; r++) {
    for (unsigned c = 0; c < cols; c++) {
      GstMotionVectorCell *cell = &grid[r * cols + c];
      const int mbx = c * bw / 16, mby = r * bh / 16;
      const int x = c * bw % 16, y = r * bh % 16;
      const int cur = decode_index (p, x, y);
      Neighbour a, b, cn, pred;

      a = neighbour (grid, p, mb_cols, mb_rows, mbx, mby, x - 1, y, cur);
      b = neighbour (grid, p, mb_cols, mb_rows, mbx, mby, x, y - 1, cur);
      cn = neighbour (grid, p, mb_cols, mb_rows, mbx, mby, x + bw, y - 1,
          cur);
      if (!cn.available)        /* 8.4.1.3.2: D replaces C */
        cn = neighbour (grid, p, mb_cols, mb_rows, mbx, mby, x - 1, y - 1,
            cur);

      /* 8.4.1.3: the directional predictions of 16x8 and 8x16 */
      if (p == GST_MOTION_VECTOR_PARTITION_16X8 && y == 0 && b.available)
        pred = b;
      else if (p == GST_MOTION_VECTOR_PARTITION_16X8 && y == 8 && a.available)
        pred = a;
      else if (p == GST_MOTION_VECTOR_PARTITION_8X16 && x == 0 && a.available)
        pred = a;
      else if (p == GST_MOTION_VECTOR_PARTITION_8X16 && x == 8
          && cn.available)
        pred = cn;
      else {
        /* 8.4.1.3.1: A alone stands in for missing B and C */
        if (!b.available && !cn.available && a.available)
          b = cn = a;
        if (a.available + b.available + cn.available == 1)
          pred = a.available ? a : b.available ? b : cn;
        else {
          pred.x = median3 (a.x, b.x, cn.x);
          pred.y = median3 (a.y, b.y, cn.y);
        }
      }
      cell->pred_x = pred.x;
      cell->pred_y = pred.y;
      cell->mvd_x = cell->mv_x - pred.x;
      cell->mvd_y = cell->mv_y - pred.y;
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
