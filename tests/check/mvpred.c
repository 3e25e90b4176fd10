/* gpumotionest — H.264 motion-vector prediction, case by case.
 *
 * Every expected predictor below was worked out by hand from ITU-T H.264
 * clauses 8.4.1.3 (directional 16x8/8x16 rules, median), 8.4.1.3.1 (A
 * standing in for missing B and C; a single available neighbour), 8.4.1.3.2
 * (D replacing an unavailable C), 6.4.11.7 and 6.4.12 (which locations are
 * available).  Grids are written row by row as (mv_x, mv_y) pairs.
 */
#include <glib.h>

#include "mvpred.h"

typedef struct {
  int col, row;
  int pred_x, pred_y;
  const char *why;
} Expect;

static GstMotionVectorCell *
grid_new (GstMotionVectorPartition p, unsigned mb_cols, unsigned mb_rows,
    const int *mv)
{
  unsigned n = gst_motion_vector_grid_cols (p, mb_cols)
      * gst_motion_vector_grid_rows (p, mb_rows);
  GstMotionVectorCell *g = g_new0 (GstMotionVectorCell, n);

  for (unsigned i = 0; i < n; i++) {
    g[i].mv_x = mv[2 * i];
    g[i].mv_y = mv[2 * i + 1];
    g[i].cost = 1000 + i;
    /* poison: prediction and MVD must be written */
    g[i].pred_x = g[i].pred_y = g[i].mvd_x = g[i].mvd_y = 0x5555;
  }
  return g;
}

static void
check (GstMotionVectorPartition p, unsigned mb_cols, unsigned mb_rows,
    const int *mv, const Expect * e, unsigned n_expect)
{
  GstMotionVectorCell *g = grid_new (p, mb_cols, mb_rows, mv);
  unsigned cols = gst_motion_vector_grid_cols (p, mb_cols);
  unsigned n = cols * gst_motion_vector_grid_rows (p, mb_rows);

  me_mvpred_grid (g, p, mb_cols, mb_rows);
  for (unsigned i = 0; i < n; i++) {
    /* the prediction never touches vectors or costs; MVD = MV - prediction */
    g_assert_cmpint (g[i].mv_x, ==, mv[2 * i]);
    g_assert_cmpint (g[i].mv_y, ==, mv[2 * i + 1]);
    g_assert_cmpuint (g[i].cost, ==, 1000 + i);
    g_assert_cmpint (g[i].mvd_x, ==, g[i].mv_x - g[i].pred_x);
    g_assert_cmpint (g[i].mvd_y, ==, g[i].mv_y - g[i].pred_y);
  }
  for (unsigned k = 0; k < n_expect; k++) {
    const GstMotionVectorCell *c = &g[e[k].row * cols + e[k].col];
    if (c->pred_x != e[k].pred_x || c->pred_y != e[k].pred_y)
      g_error ("shape %d %ux%u MBs, cell (%d,%d): pred (%d,%d), expected "
          "(%d,%d): %s", p, mb_cols, mb_rows, e[k].col, e[k].row, c->pred_x,
          c->pred_y, e[k].pred_x, e[k].pred_y, e[k].why);
  }
  g_free (g);
}

static void
test_single_macroblock (void)
{
  static const int mv[] = { 36, -20 };
  static const Expect e[] = { {0, 0, 0, 0, "no neighbour at all"} };
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    unsigned n = gst_motion_vector_grid_cols (p, 1)
        * gst_motion_vector_grid_rows (p, 1);
    int *v = g_new0 (int, 2 * n);
    v[0] = mv[0];
    v[1] = mv[1];
    check (p, 1, 1, v, e, 1);
    g_free (v);
  }
}

/* 16x16 over 3x2 macroblocks:
 *   (4,8)   (-12,20)  (40,-4)
 *   (8,8)   (100,-100) (0,0)      */
static void
test_16x16 (void)
{
  static const int mv[] = { 4, 8, -12, 20, 40, -4, 8, 8, 100, -100, 0, 0 };
  static const Expect e[] = {
    {0, 0, 0, 0, "first macroblock: nothing available"},
    {1, 0, 4, 8, "first row: only A, which stands in for B and C"},
    {2, 0, -12, 20, "first row: only A"},
    {0, 1, 0, 8, "first column: A missing (0,0), median of 0, B, C"},
    {1, 1, 8, 8, "median of A (8,8), B (-12,20), C (40,-4)"},
    {2, 1, 40, -4, "last column: C outside, D (-12,20) instead; median with "
          "A (100,-100), B (40,-4)"},
  };
  check (GST_MOTION_VECTOR_PARTITION_16X16, 3, 2, mv, e, G_N_ELEMENTS (e));
}

/* 16x8 over 1x2 macroblocks (one column, cells top to bottom):
 *   MB0 top (4,4), MB0 bottom (8,-8), MB1 top (12,0), MB1 bottom (-4,16) */
static void
test_16x8_column (void)
{
  static const int mv[] = { 4, 4, 8, -8, 12, 0, -4, 16 };
  static const Expect e[] = {
    {0, 0, 0, 0, "top partition, B above the picture: median of nothing"},
    {0, 1, 4, 4, "bottom partition, A outside: median rule, only B (the top "
          "partition) available, C right of the MB and D outside"},
    {0, 2, 8, -8, "top partition, B available: directional, B = MB0 bottom"},
    {0, 3, 12, 0, "bottom partition, A outside: only B available"},
  };
  check (GST_MOTION_VECTOR_PARTITION_16X8, 1, 2, mv, e, G_N_ELEMENTS (e));
}

/* 16x8 over 2x1 macroblocks, cells row by row:
 *   MB0 top (4,4)     MB1 top (20,0)
 *   MB0 bottom (8,-8) MB1 bottom (0,0) */
static void
test_16x8_row (void)
{
  static const int mv[] = { 4, 4, 20, 0, 8, -8, 0, 0 };
  static const Expect e[] = {
    {1, 0, 4, 4, "top partition without B: median, A alone stands in"},
    {1, 1, 8, -8, "bottom partition with A: directional, A = MB0 bottom"},
    {0, 1, 4, 4, "bottom partition without A: only B"},
  };
  check (GST_MOTION_VECTOR_PARTITION_16X8, 2, 1, mv, e, G_N_ELEMENTS (e));
}

/* 8x16 over 2x2 macroblocks, 4x2 cells:
 *   (4,1)  (8,2)  | (12,3) (16,4)
 *   (20,5) (24,6) | (28,7) (32,8)   */
static void
test_8x16 (void)
{
  static const int mv[] = { 4, 1, 8, 2, 12, 3, 16, 4, 20, 5, 24, 6, 28, 7, 32,
    8
  };
  static const Expect e[] = {
    {0, 0, 0, 0, "left partition, nothing available"},
    {1, 0, 4, 1, "right partition, C and D above the picture: only A "
          "(the left partition)"},
    {2, 0, 8, 2, "left partition, A available: directional A"},
    {3, 0, 12, 3, "right partition, C outside: median, only A"},
    {0, 1, 4, 1, "left partition, A outside: median of A=(0,0), "
          "B=(4,1) (MB above, left half), C=(12,3) (above-right MB, "
          "left half)"},
    {1, 1, 12, 3, "right partition, C = above-right MB's left half "
          "(12,3): directional C"},
    {2, 1, 24, 6, "left partition, A = MB(0,1) right half: directional"},
    {3, 1, 12, 3, "right partition, C outside the picture, D = (7,-1) in "
          "the MB above, its left half (12,3): directional C after D"},
  };
  check (GST_MOTION_VECTOR_PARTITION_8X16, 2, 2, mv, e, G_N_ELEMENTS (e));
}

/* 8x8 inside one macroblock: b0 (4,4) b1 (-8,12) / b2 (16,0) b3 (0,0) */
static void
test_8x8_inside (void)
{
  static const int mv[] = { 4, 4, -8, 12, 16, 0, 0, 0 };
  static const Expect e[] = {
    {1, 0, 4, 4, "block 1: only A (block 0)"},
    {0, 1, 0, 4, "block 2: A outside, B block 0, C block 1 (decoded "
          "earlier): median(0,4,-8)=0, median(0,4,12)=4"},
    {1, 1, 4, 4, "block 3: C right of the MB, D block 0: "
          "median(16,-8,4)=4, median(0,12,4)=4"},
  };
  check (GST_MOTION_VECTOR_PARTITION_8X8, 1, 1, mv, e, G_N_ELEMENTS (e));
}

/* 4x4 in a 1x1 frame, every vector distinct: mv of cell (c, r) is
 * (4 * (1 + c + 4 r), -4 * (1 + c + 4 r)).  Cells in decoding order
 * 0 1 4 5 / 2 3 6 7 / 8 9 12 13 / 10 11 14 15. */
static void
test_4x4_inside (void)
{
  int mv[32];
  for (int i = 0; i < 16; i++) {
    mv[2 * i] = 4 * (1 + i);
    mv[2 * i + 1] = -4 * (1 + i);
  }
#define V(c, r) (4 * (1 + (c) + 4 * (r)))
  const Expect e[] = {
    /* (1,1), index 3: A (0,1), B (1,0), C (2,0) is index 4: later, so D
     * (0,0): median(V(0,1), V(1,0), V(0,0)) = median(20, 8, 4) = 8 */
    {1, 1, V (1, 0), -V (1, 0), "index 3: C not yet decoded, D used"},
    /* (3,0), index 5: A (2,0), C and D above the picture, B too: only A */
    {3, 0, V (2, 0), -V (2, 0), "index 5: only A"},
    /* (3,1), index 7: C right of MB, D (2,0): median(V(2,1)=28,
     * V(3,0)=16, V(2,0)=12) = 16 */
    {3, 1, V (3, 0), -V (3, 0), "index 7: C right of the MB, D"},
    /* (0,2), index 8: A outside, B (0,1), C (1,1) index 3 earlier:
     * median(0, 20, 24) = 20 */
    {0, 2, V (0, 1), -V (0, 1), "index 8: A outside, median(0, B, C)"},
    /* (1,2), index 9: A (0,2)=36, B (1,1)=24, C (2,1) index 6 earlier
     * =28: median = 28 */
    {1, 2, V (2, 1), -V (2, 1), "index 9: C in block 1, decoded earlier"},
    /* (1,3), index 11: A (0,3)=52, B (1,2)=40, C (2,2) index 12 later,
     * D (0,2)=36: median = 40 */
    {1, 3, V (1, 2), -V (1, 2), "index 11: C in block 3, not yet decoded"},
    /* (3,3), index 15: A (2,3)=60, B (3,2)=48, C right of MB, D (2,2)=44:
     * median = 48 */
    {3, 3, V (3, 2), -V (3, 2), "index 15: D"},
  };
#undef V
  check (GST_MOTION_VECTOR_PARTITION_4X4, 1, 1, mv, e, G_N_ELEMENTS (e));
}

/* 8x4 and 4x8 within one macroblock: vectors as in test_4x4_inside,
 * numbered by raster cell. */
static void
test_8x4_4x8_inside (void)
{
  int mv[32];
  for (int i = 0; i < 16; i++) {
    mv[2 * i] = 4 * (1 + i);
    mv[2 * i + 1] = 0;
  }
  {
    /* 8x4: 2 cols x 4 rows; raster cell i = 2r + c, value 4(1+i).
     * (1,1) = block 1 bottom half, index 3: A (7,4) is block 0 bottom
     * (0,1)=12, B (8,3) block 1 top (1,0)=8, C (16,3) right of MB, D (7,3)
     * block 0 top (0,0)=4: median(12,8,4)=8.
     * (0,2) = block 2 top, index 4: A outside, B (0,7) block 0 bottom
     * (0,1)=12, C (8,7) block 1 bottom (1,1)=16, earlier: median(0,12,16)=12
     * (1,3) = block 3 bottom, index 7: A (0,3)=28, B (1,2)=24, C right, D
     * (7,11) block 2 top (0,2)=20: median(28,24,20)=24 */
    const Expect e[] = {
      {1, 1, 8, 0, "8x4 index 3: D"},
      {0, 2, 12, 0, "8x4 index 4: C in block 1"},
      {1, 3, 24, 0, "8x4 index 7: D"},
    };
    check (GST_MOTION_VECTOR_PARTITION_8X4, 1, 1, mv, e, G_N_ELEMENTS (e));
  }
  {
    /* 4x8: 4 cols x 2 rows; raster cell i = 4r + c, value 4(1+i).
     * (1,0) = block 0 right half, index 1: A (0,0)=4, B and C above: only A.
     * (2,1) = block 3 left half, index 6: A (3,8) block 2 right (1,1)=24,
     * B (8,7) block 1 left (2,0)=12, C (12,7) block 1 right (3,0)=16,
     * earlier: median(24,12,16)=16.
     * (3,1) = block 3 right, index 7: A (2,1)=28, B (3,0)=16, C right of MB,
     * D (11,7) = (2,0)=12: median(28,16,12)=16 */
    const Expect e[] = {
      {1, 0, 4, 0, "4x8 index 1: only A"},
      {2, 1, 16, 0, "4x8 index 6: C in block 1, earlier"},
      {3, 1, 16, 0, "4x8 index 7: D"},
    };
    check (GST_MOTION_VECTOR_PARTITION_4X8, 1, 1, mv, e, G_N_ELEMENTS (e));
  }
}

/* Above-right macroblock availability for sub-partitions: in a 2x2 frame
 * the top-right 8x8 of MB (0,1) takes C from MB (1,0); the one of MB (1,1)
 * has no above-right MB and takes D. */
static void
test_8x8_above_right (void)
{
  int mv[32];
  for (int i = 0; i < 16; i++) {
    mv[2 * i] = 4 * (1 + i);
    mv[2 * i + 1] = 4 * (16 - i);
  }
  /* grid 4x4 cells, raster i = 4r + c.  Cell (1,2) = MB(0,1) block 1:
   * A (0,2)=(36,32), B (1,1)=(24,44), C (2,1) = MB(1,0) block 2 =(28,40):
   * median x (36,24,28)=28, y (32,44,40)=40.
   * Cell (3,2) = MB(1,1) block 1: A (2,2)=(44,24), B (3,1)=(32,36), C
   * outside the picture, D (2,1)=(28,40): x median(44,32,28)=32, y
   * median(24,36,40)=36. */
  const Expect e[] = {
    {1, 2, 28, 40, "C in the above-right macroblock"},
    {3, 2, 32, 36, "no above-right macroblock: D"},
  };
  check (GST_MOTION_VECTOR_PARTITION_8X8, 2, 2, mv, e, G_N_ELEMENTS (e));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mvpred/single-macroblock", test_single_macroblock);
  g_test_add_func ("/mvpred/16x16", test_16x16);
  g_test_add_func ("/mvpred/16x8-column", test_16x8_column);
  g_test_add_func ("/mvpred/16x8-row", test_16x8_row);
  g_test_add_func ("/mvpred/8x16", test_8x16);
  g_test_add_func ("/mvpred/8x8-inside", test_8x8_inside);
  g_test_add_func ("/mvpred/8x8-above-right", test_8x8_above_right);
  g_test_add_func ("/mvpred/4x4-inside", test_4x4_inside);
  g_test_add_func ("/mvpred/8x4-4x8-inside", test_8x4_4x8_inside);
  return g_test_run ();
}
