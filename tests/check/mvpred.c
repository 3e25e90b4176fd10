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


/* Grids over 1 or 2x2 macroblocks, every cell given, every prediction
 * worked out.  Vectors row by row. */
static void
test_small_grids (void)
{
  {
    /* 16x16, 2x2: (4,8) (12,-8) / (-4,20) (24,4) */
    static const int mv[] = { 4, 8, 12, -8, -4, 20, 24, 4 };
    static const Expect e[] = {
      {0, 0, 0, 0, "nothing available"},
      {1, 0, 4, 8, "first row: A alone"},
      {0, 1, 4, 0, "median(0, B (4,8), C (12,-8))"},
      {1, 1, 4, 8, "C outside, D (4,8): median of A (-4,20), B (12,-8), D"},
    };
    check (GST_MOTION_VECTOR_PARTITION_16X16, 2, 2, mv, e, G_N_ELEMENTS (e));
  }
  {
    /* 16x8, 2x2 MBs, 2 cols x 4 rows */
    static const int mv[] = { 4, 8, 12, -8, -4, 20, 24, 4, 8, -12, -16, 16,
      28, 0, 0, -20
    };
    static const Expect e[] = {
      {0, 0, 0, 0, "MB(0,0) top: nothing"},
      {0, 1, 4, 8, "MB(0,0) bottom: A outside, only B"},
      {1, 0, 4, 8, "MB(1,0) top: B above the picture, median: A alone"},
      {1, 1, -4, 20, "MB(1,0) bottom: directional A"},
      {0, 2, -4, 20, "MB(0,1) top: directional B = MB(0,0) bottom"},
      {0, 3, 8, -12, "MB(0,1) bottom: A outside, only B"},
      {1, 2, 24, 4, "MB(1,1) top: directional B"},
      {1, 3, 28, 0, "MB(1,1) bottom: directional A"},
    };
    check (GST_MOTION_VECTOR_PARTITION_16X8, 2, 2, mv, e, G_N_ELEMENTS (e));
  }
  {
    /* 8x8, 1x1: b0 (12,-4) b1 (20,8) / b2 (-8,16) b3 (0,0) */
    static const int mv[] = { 12, -4, 20, 8, -8, 16, 0, 0 };
    static const Expect e[] = {
      {0, 0, 0, 0, "block 0: nothing"},
      {1, 0, 12, -4, "block 1: only A"},
      {0, 1, 12, 0, "block 2: median(0, B, C = block 1) per component"},
      {1, 1, 12, 8, "block 3: D for C; median x (-8,20,12), y (16,8,-4)"},
    };
    check (GST_MOTION_VECTOR_PARTITION_8X8, 1, 1, mv, e, G_N_ELEMENTS (e));
  }
  {
    /* 8x4, 1x1: 2 cols x 4 rows, decoding order 0 2 / 1 3 / 4 6 / 5 7 */
    static const int mv[] = { 4, 40, 20, -16, -12, 8, 8, 24, -4, -20, 0, 32,
      16, 12, 28, -8
    };
    static const Expect e[] = {
      {0, 0, 0, 0, "index 0: nothing"},
      {0, 1, 4, 40, "index 1: C (8,3) is index 2, later; D outside: only B"},
      {1, 0, 4, 40, "index 2: only A"},
      {1, 1, 4, 8, "index 3: D; median x (-12,20,4), y (8,-16,40)"},
      {0, 2, 0, 8, "index 4: A outside, C index 3: median(0, B, C)"},
      {0, 3, -4, -20, "index 5: C index 6 later, D outside: only B"},
      {1, 2, -4, 8, "index 6: D; median x (-4,8,-12), y (-20,24,8)"},
      {1, 3, 0, 12, "index 7: D; median x (16,0,-4), y (12,32,-20)"},
    };
    check (GST_MOTION_VECTOR_PARTITION_8X4, 1, 1, mv, e, G_N_ELEMENTS (e));
  }
  {
    /* 4x8, 1x1: 4 cols x 2 rows, decoding order 0 1 2 3 / 4 5 6 7 */
    static const int mv[] = { 8, -4, 20, 12, 24, 0, 4, -28, 28, 20, -20, 4,
      12, 8, 0, 0
    };
    static const Expect e[] = {
      {0, 0, 0, 0, "index 0: nothing"},
      {1, 0, 8, -4, "index 1: only A"},
      {2, 0, 20, 12, "index 2: only A"},
      {3, 0, 24, 0, "index 3: only A"},
      {0, 1, 8, 0, "index 4: median(0, B, C = index 1)"},
      {1, 1, 24, 12, "index 5: C (8,7) is index 2, earlier"},
      {2, 1, 4, 0, "index 6: C index 3; median x (-20,24,4), y (4,0,-28)"},
      {3, 1, 12, 0, "index 7: D; median x (12,4,24), y (8,-28,0)"},
    };
    check (GST_MOTION_VECTOR_PARTITION_4X8, 1, 1, mv, e, G_N_ELEMENTS (e));
  }
}

/* Which cell stands for C.  In a 3x2-macroblock frame, one partition of
 * macroblock (1,1) (every neighbour macroblock exists, the above-right one
 * included) gets A = (4,-4), B = (8,-8), C = (40,-40) and D = (6,-6), all
 * other cells (0,0).  Using C gives median (8,-8); D in its place gives
 * (6,-6).  Cells are grid coordinates; C {-1,-1}: location outside the
 * picture. */
typedef struct {
  GstMotionVectorPartition p;
  int col, row;
  int a[2], b[2], c[2], d[2];
  gboolean uses_c;
} CornerCase;

#define P8X8 GST_MOTION_VECTOR_PARTITION_8X8
#define P8X4 GST_MOTION_VECTOR_PARTITION_8X4
#define P4X8 GST_MOTION_VECTOR_PARTITION_4X8
#define P4X4 GST_MOTION_VECTOR_PARTITION_4X4
#define P16 GST_MOTION_VECTOR_PARTITION_16X16
static const CornerCase corner_cases[] = {
  /* 16x16: C above-right; in the last column C is outside, D */
  {P16, 1, 1, {0, 1}, {1, 0}, {2, 0}, {0, 0}, TRUE},
  {P16, 2, 1, {1, 1}, {2, 0}, {-1, -1}, {1, 0}, FALSE},
  /* 8x8, macroblock at cell (2,2): blocks 0..3 */
  {P8X8, 2, 2, {1, 2}, {2, 1}, {3, 1}, {1, 1}, TRUE},
  {P8X8, 3, 2, {2, 2}, {3, 1}, {4, 1}, {2, 1}, TRUE},   /* above-right MB */
  {P8X8, 2, 3, {1, 3}, {2, 2}, {3, 2}, {1, 2}, TRUE},   /* block 1 */
  {P8X8, 3, 3, {2, 3}, {3, 2}, {4, 2}, {2, 2}, FALSE},  /* right MB: D */
  /* 8x4, macroblock at cell (2,4); decoding order 0 2 / 1 3 / 4 6 / 5 7 */
  {P8X4, 2, 4, {1, 4}, {2, 3}, {3, 3}, {1, 3}, TRUE},
  {P8X4, 3, 4, {2, 4}, {3, 3}, {4, 3}, {2, 3}, TRUE},
  {P8X4, 2, 5, {1, 5}, {2, 4}, {3, 4}, {1, 4}, FALSE},  /* C index 2 */
  {P8X4, 3, 5, {2, 5}, {3, 4}, {4, 4}, {2, 4}, FALSE},
  {P8X4, 2, 6, {1, 6}, {2, 5}, {3, 5}, {1, 5}, TRUE},   /* C index 3 */
  {P8X4, 3, 6, {2, 6}, {3, 5}, {4, 5}, {2, 5}, FALSE},
  {P8X4, 2, 7, {1, 7}, {2, 6}, {3, 6}, {1, 6}, FALSE},  /* C index 6 */
  {P8X4, 3, 7, {2, 7}, {3, 6}, {4, 6}, {2, 6}, FALSE},
  /* 4x8, macroblock at cell (4,2); decoding order 0 1 2 3 / 4 5 6 7 */
  {P4X8, 4, 2, {3, 2}, {4, 1}, {5, 1}, {3, 1}, TRUE},
  {P4X8, 5, 2, {4, 2}, {5, 1}, {6, 1}, {4, 1}, TRUE},
  {P4X8, 6, 2, {5, 2}, {6, 1}, {7, 1}, {5, 1}, TRUE},
  {P4X8, 7, 2, {6, 2}, {7, 1}, {8, 1}, {6, 1}, TRUE},   /* above-right MB */
  {P4X8, 4, 3, {3, 3}, {4, 2}, {5, 2}, {3, 2}, TRUE},
  {P4X8, 5, 3, {4, 3}, {5, 2}, {6, 2}, {4, 2}, TRUE},   /* C index 2 */
  {P4X8, 6, 3, {5, 3}, {6, 2}, {7, 2}, {5, 2}, TRUE},
  {P4X8, 7, 3, {6, 3}, {7, 2}, {8, 2}, {6, 2}, FALSE},  /* right MB */
  /* 4x4, macroblock at cell (4,4); blocks in decoding order 0..15 */
  {P4X4, 4, 4, {3, 4}, {4, 3}, {5, 3}, {3, 3}, TRUE},   /* 0 */
  {P4X4, 5, 4, {4, 4}, {5, 3}, {6, 3}, {4, 3}, TRUE},   /* 1 */
  {P4X4, 4, 5, {3, 5}, {4, 4}, {5, 4}, {3, 4}, TRUE},   /* 2 */
  {P4X4, 5, 5, {4, 5}, {5, 4}, {6, 4}, {4, 4}, FALSE},  /* 3: C is 4 */
  {P4X4, 6, 4, {5, 4}, {6, 3}, {7, 3}, {5, 3}, TRUE},   /* 4 */
  {P4X4, 7, 4, {6, 4}, {7, 3}, {8, 3}, {6, 3}, TRUE},   /* 5: above-right */
  {P4X4, 6, 5, {5, 5}, {6, 4}, {7, 4}, {5, 4}, TRUE},   /* 6 */
  {P4X4, 7, 5, {6, 5}, {7, 4}, {8, 4}, {6, 4}, FALSE},  /* 7: right MB */
  {P4X4, 4, 6, {3, 6}, {4, 5}, {5, 5}, {3, 5}, TRUE},   /* 8 */
  {P4X4, 5, 6, {4, 6}, {5, 5}, {6, 5}, {4, 5}, TRUE},   /* 9: C is 6 */
  {P4X4, 4, 7, {3, 7}, {4, 6}, {5, 6}, {3, 6}, TRUE},   /* 10 */
  {P4X4, 5, 7, {4, 7}, {5, 6}, {6, 6}, {4, 6}, FALSE},  /* 11: C is 12 */
  {P4X4, 6, 6, {5, 6}, {6, 5}, {7, 5}, {5, 5}, TRUE},   /* 12 */
  {P4X4, 7, 6, {6, 6}, {7, 5}, {8, 5}, {6, 5}, FALSE},  /* 13: right MB */
  {P4X4, 6, 7, {5, 7}, {6, 6}, {7, 6}, {5, 6}, TRUE},   /* 14 */
  {P4X4, 7, 7, {6, 7}, {7, 6}, {8, 6}, {6, 6}, FALSE},  /* 15: right MB */
};
#undef P8X8
#undef P8X4
#undef P4X8
#undef P4X4
#undef P16

/* Vectors of a grid over mb_cols x mb_rows MBs, all (0,0), as check()
 * takes them. */
static int *
zero_mvs (GstMotionVectorPartition p, unsigned mb_cols, unsigned mb_rows,
    unsigned *cols)
{
  *cols = gst_motion_vector_grid_cols (p, mb_cols);
  return g_new0 (int, 2 * *cols * gst_motion_vector_grid_rows (p, mb_rows));
}

static void
set_mv (int *mv, unsigned cols, const int cell[2], int x, int y)
{
  if (cell[0] < 0)
    return;
  mv[2 * (cell[1] * cols + cell[0])] = x;
  mv[2 * (cell[1] * cols + cell[0]) + 1] = y;
}

static void
test_c_or_d (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (corner_cases); i++) {
    const CornerCase *k = &corner_cases[i];
    unsigned cols;
    int *mv = zero_mvs (k->p, 3, 2, &cols);
    Expect e = { k->col, k->row, 0, 0, NULL };

    set_mv (mv, cols, k->a, 4, -4);
    set_mv (mv, cols, k->b, 8, -8);
    set_mv (mv, cols, k->c, 40, -40);
    set_mv (mv, cols, k->d, 6, -6);
    e.pred_x = k->uses_c ? 8 : 6;
    e.pred_y = -e.pred_x;
    e.why = k->uses_c ? "C available, median(A, B, C)" :
        "C not available, median(A, B, D)";
    check (k->p, 3, 2, mv, &e, 1);
    g_free (mv);
  }
}

/* One neighbour set, one expected prediction: directional rules, and their
 * fall back to the median when the named neighbour is missing. */
typedef struct {
  GstMotionVectorPartition p;
  unsigned mb_cols, mb_rows;
  int col, row;
  int n_set;
  int set[5][4];                /* col, row, mv_x, mv_y */
  int pred_x, pred_y;
  const char *why;
} SetCase;

static const SetCase directional_cases[] = {
  {GST_MOTION_VECTOR_PARTITION_16X8, 3, 2, 1, 2, 4,
        {{0, 2, 4, -4}, {1, 1, 100, -100}, {2, 1, 40, -40}, {0, 1, 6, -6}},
      100, -100, "16x8 upper: B, not the median (40,-40)"},
  {GST_MOTION_VECTOR_PARTITION_16X8, 3, 2, 1, 3, 4,
        {{0, 3, 100, -100}, {1, 2, 4, -4}, {0, 2, 40, -40}, {2, 2, 8, -8}},
      100, -100, "16x8 lower: A, not the median of A, B, D (40,-40)"},
  {GST_MOTION_VECTOR_PARTITION_8X16, 3, 2, 2, 1, 4,
        {{1, 1, 100, -100}, {2, 0, 4, -4}, {3, 0, 40, -40}, {1, 0, 6, -6}},
      100, -100, "8x16 left: A, not the median (40,-40)"},
  {GST_MOTION_VECTOR_PARTITION_8X16, 3, 2, 3, 1, 4,
        {{2, 1, 4, -4}, {3, 0, 40, -40}, {4, 0, 100, -100}, {2, 0, 6, -6}},
      100, -100, "8x16 right: C (above-right MB), not the median (40,-40)"},
  {GST_MOTION_VECTOR_PARTITION_8X16, 3, 2, 5, 1, 3,
        {{4, 1, 4, -4}, {5, 0, 40, -40}, {4, 0, 100, -100}},
      100, -100, "8x16 right, last column: C outside, D in its place"},
  /* fall back to the median */
  {GST_MOTION_VECTOR_PARTITION_16X8, 3, 2, 1, 0, 3,
        {{0, 0, 12, -20}, {1, 1, 50, 50}, {2, 0, 60, 60}},
      12, -20, "16x8 upper, first row: no B; median, A alone"},
  {GST_MOTION_VECTOR_PARTITION_16X8, 3, 2, 0, 3, 2,
        {{0, 2, 12, -20}, {1, 3, 60, 60}},
      12, -20, "16x8 lower, first column: no A; only B"},
  {GST_MOTION_VECTOR_PARTITION_8X16, 3, 2, 0, 1, 3,
        {{0, 0, 12, -4}, {1, 0, 20, 8}, {1, 1, 60, 60}},
      12, 0, "8x16 left, first column: no A; median(0, B, C)"},
  {GST_MOTION_VECTOR_PARTITION_8X16, 3, 2, 3, 0, 2,
        {{2, 0, 12, -20}, {4, 0, 60, 60}},
      12, -20, "8x16 right, first row: no C nor D; median, A alone"},
  /* exactly one neighbour with refIdx 0 */
  {GST_MOTION_VECTOR_PARTITION_16X16, 1, 2, 0, 1, 1,
        {{0, 0, 12, -20}},
      12, -20, "one column: only B; not median(0, B, 0) = 0"},
  {GST_MOTION_VECTOR_PARTITION_8X4, 1, 2, 0, 5, 3,
        {{0, 4, 12, -20}, {1, 4, 60, 60}, {0, 3, 70, 70}},
      12, -20, "8x4 index 1, one column: only B (C later, D outside)"},
  /* B and C unavailable, A available: A even where A would lose a median */
  {GST_MOTION_VECTOR_PARTITION_4X4, 2, 1, 4, 0, 2,
        {{3, 0, -36, 44}, {4, 1, 60, 60}},
      -36, 44, "4x4 first row, MB(1,0) block 0: only A (left MB)"},
};

static void
test_directional (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (directional_cases); i++) {
    const SetCase *k = &directional_cases[i];
    unsigned cols;
    int *mv = zero_mvs (k->p, k->mb_cols, k->mb_rows, &cols);
    const Expect e = { k->col, k->row, k->pred_x, k->pred_y, k->why };

    for (int s = 0; s < k->n_set; s++)
      set_mv (mv, cols, k->set[s], k->set[s][2], k->set[s][3]);
    check (k->p, k->mb_cols, k->mb_rows, mv, &e, 1);
    g_free (mv);
  }
}

/* ---- a second implementation, slow and literal ------------------------
 *
 * Written from the clause text rather than from kernels/mvpred.c: the
 * partitions of a macroblock are listed in decoding order by the inverse
 * scans of 6.4.2.1 and 6.4.2.2; neighbouring macroblocks come from
 * CurrMbAddr arithmetic (6.4.10.1) and table 6-3 (6.4.12.1); the partition
 * covering a location is found by search, and one of the current
 * macroblock is available when it comes earlier in the list (6.4.11.7). */

typedef struct {
  int x, y;                     /* in the macroblock, pixels */
  int mb_part_idx, sub_mb_part_idx;
} RefPartition;

static int
inverse_raster_scan (int a, int b, int c, int d, int e)
{
  return e == 0 ? (a % (d / b)) * b : (a / (d / b)) * c;
}

static int
ref_partitions (GstMotionVectorPartition p, RefPartition out[16])
{
  const int w = gst_motion_vector_partition_width (p);
  const int h = gst_motion_vector_partition_height (p);
  int n = 0;

  if (p <= GST_MOTION_VECTOR_PARTITION_8X16) {
    for (int m = 0; m < 256 / (w * h); m++) {
      RefPartition r = { inverse_raster_scan (m, w, h, 16, 0),
        inverse_raster_scan (m, w, h, 16, 1), m, 0
      };
      out[n++] = r;
    }
    return n;
  }
  /* P_8x8: four 8x8 sub-macroblocks, each split into w x h */
  for (int m = 0; m < 4; m++)
    for (int s = 0; s < 64 / (w * h); s++) {
      RefPartition r = {
        inverse_raster_scan (m, 8, 8, 16, 0)
            + inverse_raster_scan (s, w, h, 8, 0),
        inverse_raster_scan (m, 8, 8, 16, 1)
            + inverse_raster_scan (s, w, h, 8, 1), m, s
      };
      out[n++] = r;
    }
  return n;
}

typedef struct {
  int ref_idx;                  /* 0, or -1 when not available */
  int mv_x, mv_y;
} RefNeighbour;

typedef struct {
  GstMotionVectorPartition p;
  int w, h, mb_cols, mb_rows, cols;
  const GstMotionVectorCell *cells;
  RefPartition parts[16];
  int n_parts;
} RefGrid;

static RefNeighbour
ref_neighbour (const RefGrid * g, int curr_mb_addr, int curr_part, int xn,
    int yn)
{
  const RefNeighbour none = { -1, 0, 0 };
  const int width = g->mb_cols;
  const int addr_a = curr_mb_addr - 1, addr_b = curr_mb_addr - width;
  const int addr_c = curr_mb_addr - width + 1;
  const int addr_d = curr_mb_addr - width - 1;
  const gboolean avail_a = curr_mb_addr % width != 0;
  const gboolean avail_b = addr_b >= 0;
  const gboolean avail_c = addr_c >= 0 && (curr_mb_addr + 1) % width != 0;
  const gboolean avail_d = addr_d >= 0 && curr_mb_addr % width != 0;
  int addr_n = -1, xw, yw, k;

  /* table 6-3, maxW = maxH = 16 */
  if (xn < 0 && yn < 0)
    addr_n = avail_d ? addr_d : -1;
  else if (xn < 0 && yn < 16)
    addr_n = avail_a ? addr_a : -1;
  else if (xn < 16 && yn < 0)
    addr_n = avail_b ? addr_b : -1;
  else if (xn < 16 && yn < 16)
    addr_n = curr_mb_addr;
  else if (xn >= 16 && yn < 0)
    addr_n = avail_c ? addr_c : -1;
  if (addr_n < 0)
    return none;

  xw = (xn + 16) % 16;
  yw = (yn + 16) % 16;
  for (k = 0; k < g->n_parts; k++)
    if (xw >= g->parts[k].x && xw < g->parts[k].x + g->w
        && yw >= g->parts[k].y && yw < g->parts[k].y + g->h)
      break;
  g_assert_cmpint (k, <, g->n_parts);
  if (addr_n == curr_mb_addr && k >= curr_part)
    return none;                /* not yet decoded */

  {
    const int px = (addr_n % width) * 16 + g->parts[k].x;
    const int py = (addr_n / width) * 16 + g->parts[k].y;
    const GstMotionVectorCell *c = &g->cells[(py / g->h) * g->cols
        + px / g->w];
    RefNeighbour r = { 0, c->mv_x, c->mv_y };
    return r;
  }
}

static int
ref_median (int a, int b, int c)
{
  int v[3] = { a, b, c };
  /* sort three */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (v[j] > v[j + 1]) {
        int t = v[j];
        v[j] = v[j + 1];
        v[j + 1] = t;
      }
  return v[1];
}

/* Predictions of every cell, macroblock by macroblock in decoding order. */
static void
ref_predict (GstMotionVectorPartition p, int mb_cols, int mb_rows,
    const GstMotionVectorCell * cells, int *pred)
{
  RefGrid g = { p, gst_motion_vector_partition_width (p),
    gst_motion_vector_partition_height (p), mb_cols, mb_rows,
    gst_motion_vector_grid_cols (p, mb_cols), cells
  };

  g.n_parts = ref_partitions (p, g.parts);
  for (int addr = 0; addr < mb_cols * mb_rows; addr++) {
    for (int k = 0; k < g.n_parts; k++) {
      const RefPartition *part = &g.parts[k];
      const int x = part->x, y = part->y, pred_part_width = g.w;
      RefNeighbour a = ref_neighbour (&g, addr, k, x - 1, y);
      RefNeighbour b = ref_neighbour (&g, addr, k, x, y - 1);
      RefNeighbour c = ref_neighbour (&g, addr, k, x + pred_part_width,
          y - 1);
      RefNeighbour mvp;
      const int ref_idx = 0;

      if (c.ref_idx < 0)
        c = ref_neighbour (&g, addr, k, x - 1, y - 1);

      if (p == GST_MOTION_VECTOR_PARTITION_16X8 && part->mb_part_idx == 0
          && b.ref_idx == ref_idx)
        mvp = b;
      else if (p == GST_MOTION_VECTOR_PARTITION_16X8
          && part->mb_part_idx == 1 && a.ref_idx == ref_idx)
        mvp = a;
      else if (p == GST_MOTION_VECTOR_PARTITION_8X16
          && part->mb_part_idx == 0 && a.ref_idx == ref_idx)
        mvp = a;
      else if (p == GST_MOTION_VECTOR_PARTITION_8X16
          && part->mb_part_idx == 1 && c.ref_idx == ref_idx)
        mvp = c;
      else {
        int matching;

        /* 8.4.1.3.1: both B and C missing (their partitions unavailable)
         * and A present */
        if (b.ref_idx < 0 && c.ref_idx < 0 && a.ref_idx >= 0)
          b = c = a;
        matching = (a.ref_idx == ref_idx) + (b.ref_idx == ref_idx)
            + (c.ref_idx == ref_idx);
        if (matching == 1)
          mvp = a.ref_idx == ref_idx ? a : b.ref_idx == ref_idx ? b : c;
        else {
          mvp.mv_x = ref_median (a.mv_x, b.mv_x, c.mv_x);
          mvp.mv_y = ref_median (a.mv_y, b.mv_y, c.mv_y);
        }
      }
      {
        const int gx = ((addr % mb_cols) * 16 + x) / g.w;
        const int gy = ((addr / mb_cols) * 16 + y) / g.h;
        pred[2 * (gy * g.cols + gx)] = mvp.mv_x;
        pred[2 * (gy * g.cols + gx) + 1] = mvp.mv_y;
      }
    }
  }
}

/* Random grids of every shape and several sizes against ref_predict().
 * Vectors come from a small set half of the time so that medians meet
 * ties and equal components. */
static void
test_random_against_reference (void)
{
  static const unsigned sizes[][2] = {
    {1, 1}, {1, 4}, {4, 1}, {2, 2}, {3, 2}, {5, 4}, {7, 3}, {11, 9}
  };
  GRand *rand = g_rand_new_with_seed (20240601);
  unsigned checked = 0;

  for (int round = 0; round < 20; round++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
        const unsigned mb_cols = sizes[s][0], mb_rows = sizes[s][1];
        const unsigned n = gst_motion_vector_grid_cols (p, mb_cols)
            * gst_motion_vector_grid_rows (p, mb_rows);
        GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, n);
        int *pred = g_new (int, 2 * n);

        for (unsigned i = 0; i < n; i++) {
          if (g_rand_boolean (rand)) {
            cells[i].mv_x = 4 * g_rand_int_range (rand, -2, 3);
            cells[i].mv_y = 4 * g_rand_int_range (rand, -2, 3);
          } else {
            cells[i].mv_x = 4 * g_rand_int_range (rand, -128, 129);
            cells[i].mv_y = 4 * g_rand_int_range (rand, -128, 129);
          }
        }
        ref_predict (p, mb_cols, mb_rows, cells, pred);
        me_mvpred_grid (cells, p, mb_cols, mb_rows);
        for (unsigned i = 0; i < n; i++) {
          if (cells[i].pred_x != pred[2 * i]
              || cells[i].pred_y != pred[2 * i + 1])
            g_error ("shape %d, %ux%u MBs, cell %u: pred (%d,%d), "
                "reference (%d,%d)", p, mb_cols, mb_rows, i, cells[i].pred_x,
                cells[i].pred_y, pred[2 * i], pred[2 * i + 1]);
          g_assert_cmpint (cells[i].mvd_x, ==, cells[i].mv_x - pred[2 * i]);
          g_assert_cmpint (cells[i].mvd_y, ==,
              cells[i].mv_y - pred[2 * i + 1]);
          checked++;
        }
        g_free (pred);
        g_free (cells);
      }
  g_test_message ("%u cells checked against the reference", checked);
  g_rand_free (rand);
}

/* The reference itself on the 4x4 1x1 case of test_4x4_inside, so that a
 * mistake in it cannot hide behind agreement with the kernel. */
static void
test_reference_by_hand (void)
{
  GstMotionVectorCell cells[16] = { {0} };
  int pred[32];

  for (int i = 0; i < 16; i++) {
    cells[i].mv_x = 4 * (1 + i);
    cells[i].mv_y = -4 * (1 + i);
  }
  ref_predict (GST_MOTION_VECTOR_PARTITION_4X4, 1, 1, cells, pred);
  /* cell (1,1): D (0,0) for C -> median(20, 8, 4) = 8 */
  g_assert_cmpint (pred[2 * 5], ==, 8);
  /* cell (1,2): C = cell (2,1), decoded earlier -> median(36, 24, 28) */
  g_assert_cmpint (pred[2 * 9], ==, 28);
  /* cell (1,3): C = cell (2,2) later, D (0,2) -> median(52, 40, 36) */
  g_assert_cmpint (pred[2 * 13], ==, 40);
  /* cell (3,0): only A */
  g_assert_cmpint (pred[2 * 3], ==, 12);
  g_assert_cmpint (pred[2 * 3 + 1], ==, -12);
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
  g_test_add_func ("/mvpred/small-grids", test_small_grids);
  g_test_add_func ("/mvpred/c-or-d", test_c_or_d);
  g_test_add_func ("/mvpred/directional", test_directional);
  g_test_add_func ("/mvpred/reference-by-hand", test_reference_by_hand);
  g_test_add_func ("/mvpred/random-vs-reference",
      test_random_against_reference);
  return g_test_run ();
}
