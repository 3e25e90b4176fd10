/* gpumotionest — the per-macroblock partition decision on hand-made cells.
 *
 * Each macroblock is given, for each shape, a total cost spread over that
 * shape's cells inside it (docs/mode-decision.md); the expected winners
 * below were worked out by hand from the definition: the smallest total
 * plus lambda x the bits of mb_type and sub_mb_type (1, 3, 3, 9, 17, 17,
 * 25), the larger partition on a tie.
 */
#include <glib.h>

#include "mode_decision.h"

#define NP GST_MOTION_VECTOR_PARTITION_COUNT
#define X 1000                  /* a shape that never wins */

/* A field of mb_cols x mb_rows macroblocks with every shape.  Macroblock m
 * gets total[m][p] for shape p: spread evenly over the shape's cells in it,
 * the remainder on its last cell, so that a decision summing the wrong
 * cells (or too few) sees another total. */
typedef struct {
  unsigned mb_cols, mb_rows;
  GstMotionVectorCell *grid[NP];
} Field;

static void
field_init (Field * f, unsigned mb_cols, unsigned mb_rows,
    const guint32 (*total)[NP])
{
  f->mb_cols = mb_cols;
  f->mb_rows = mb_rows;
  for (int p = 0; p < NP; p++) {
    unsigned cols = gst_motion_vector_grid_cols (p, mb_cols);
    unsigned rows = gst_motion_vector_grid_rows (p, mb_rows);
    unsigned across = cols / mb_cols, down = rows / mb_rows;
    unsigned per_mb = across * down;

    f->grid[p] = g_new0 (GstMotionVectorCell, cols * rows);
    for (unsigned r = 0; r < rows; r++) {
      for (unsigned c = 0; c < cols; c++) {
        unsigned m = (r / down) * mb_cols + c / across;
        unsigned k = (r % down) * across + c % across;
        guint32 share = total[m][p] / per_mb;
        GstMotionVectorCell *cell = &f->grid[p][r * cols + c];

        cell->cost = share + (k == per_mb - 1 ? total[m][p] % per_mb : 0);
        /* vectors are not the decision's business */
        cell->mv_x = (gint16) (4 * c - 8);
        cell->mv_y = (gint16) (-4 * (int) r);
      }
    }
  }
}

static void
field_clear (Field * f)
{
  for (int p = 0; p < NP; p++)
    g_clear_pointer (&f->grid[p], g_free);
}

/* Decides with the shapes of `mask` only and compares with `expect`. */
static void
check_decision (const Field * f, guint mask, unsigned lambda,
    const guint8 * expect)
{
  const GstMotionVectorCell *grids[NP];
  unsigned n = f->mb_cols * f->mb_rows;
  guint8 *modes = g_malloc (n + 1);

  for (int p = 0; p < NP; p++)
    grids[p] = (mask & (1u << p)) ? f->grid[p] : NULL;
  modes[n] = 0xee;              /* nothing past the last macroblock */
  me_mode_decide (grids, f->mb_cols, f->mb_rows, lambda, modes);
  for (unsigned m = 0; m < n; m++)
    if (modes[m] != expect[m])
      g_error ("shapes 0x%x, lambda %u, macroblock %u: shape %u, expected "
          "%u", mask, lambda, m, modes[m], expect[m]);
  g_assert_cmpuint (modes[n], ==, 0xee);
  g_free (modes);
}

static void
test_type_bits (void)
{
  /* ue(v) codeNum 0 is "1", 1 and 2 are "010" and "011", 3 is "00100":
   * mb_type P_L0_16x16 (0) 1 bit, P_L0_L0_16x8 (1) and P_L0_L0_8x16 (2) 3,
   * P_8x8 (3) 5 plus four sub_mb_type: P_L0_8x8 (0) 4 x 1, P_L0_8x4 (1)
   * and P_L0_4x8 (2) 4 x 3, P_L0_4x4 (3) 4 x 5. */
  static const unsigned bits[NP] = { 1, 3, 3, 9, 17, 17, 25 };

  for (int p = 0; p < NP; p++)
    g_assert_cmpuint (me_mode_type_bits (p), ==, bits[p]);
}

/* Eight macroblocks (4 x 2), one case each; lambda 4 adds 4, 12, 12, 36,
 * 68, 68, 100:
 *
 *   m  totals 16x16 16x8 8x16 8x8 8x4 4x8 4x4   lambda 0   lambda 4
 *   0  all 0                                    16x16 (tie) 16x16
 *   1  100 96 X ...                             16x8       16x16 104 < 108
 *   2  100 X 90 X ...                           8x16       8x16  102 < 104
 *   3  100 100 100 60 X X X                     8x8        8x8    96 < 104
 *   4  200 200 200 200 150 X X                  8x4        16x16 204 < 218
 *   5  200 200 200 200 X 130 X                  4x8        4x8   198 < 204
 *   6  50 50 50 50 50 50 10                     4x4        16x16  54 < 62
 *   7  108 100 100 X X X X                      16x8 (tie  16x16 (three-
 *                                                with 8x16) way tie at 112)
 */
static const guint32 totals[8][NP] = {
  {0, 0, 0, 0, 0, 0, 0},
  {100, 96, X, X, X, X, X},
  {100, X, 90, X, X, X, X},
  {100, 100, 100, 60, X, X, X},
  {200, 200, 200, 200, 150, X, X},
  {200, 200, 200, 200, X, 130, X},
  {50, 50, 50, 50, 50, 50, 10},
  {108, 100, 100, X, X, X, X},
};

static void
test_each_shape_wins (void)
{
  static const guint8 lambda0[8] = { 0, 1, 2, 3, 4, 5, 6, 1 };
  static const guint8 lambda4[8] = { 0, 0, 2, 3, 0, 5, 0, 0 };
  Field f;

  field_init (&f, 4, 2, totals);
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_ALL, 0, lambda0);
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_ALL, 4, lambda4);
  field_clear (&f);
}

static void
test_mode_cost (void)
{
  Field f;

  field_init (&f, 4, 2, totals);
  /* macroblock 5 is (1, 1): its 4x8 total 130 plus 4 x 17 */
  g_assert_cmpuint (me_mode_cost (f.grid[5], 5, 4, 1, 1, 4), ==, 198);
  /* macroblock 3 is (3, 0): 8x8 60 + 0 x 9 */
  g_assert_cmpuint (me_mode_cost (f.grid[3], 3, 4, 3, 0, 0), ==, 60);
  g_assert_cmpuint (me_mode_cost (f.grid[0], 0, 4, 3, 1, 65535), ==,
      108 + 65535);
  field_clear (&f);
}

static void
test_subsets (void)
{
  /* Only the requested shapes compete; ties still go to the larger. */
  static const guint8 s8_4[8] = { 3, 3, 3, 3, 3, 3, 6, 3 };
  static const guint8 s8_4_l4[8] = { 3, 3, 3, 3, 3, 3, 3, 3 };
  static const guint8 s84_48[8] = { 4, 4, 4, 4, 4, 5, 4, 4 };
  static const guint8 s16_4[8] = { 0, 0, 0, 0, 0, 0, 6, 0 };
  static const guint8 s16_4_l4[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
  Field f;

  field_init (&f, 4, 2, totals);
  /* 8x8 against 4x4: m6 is 50 against 10 at lambda 0, but 50 + 36 = 86
   * against 10 + 100 = 110 at lambda 4 */
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_8X8
      | GST_MOTION_VECTOR_PARTITIONS_4X4, 0, s8_4);
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_8X8
      | GST_MOTION_VECTOR_PARTITIONS_4X4, 4, s8_4_l4);
  /* 8x4 against 4x8, same bits: X ties X except in m0 (0 = 0: 8x4), m4
   * (150 < X) and m5 (X > 140) */
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_8X4
      | GST_MOTION_VECTOR_PARTITIONS_4X8, 4, s84_48);
  /* 16x16 against 4x4: m6 is 50 against 10, 54 against 110 at lambda 4 */
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_16X16
      | GST_MOTION_VECTOR_PARTITIONS_4X4, 0, s16_4);
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_16X16
      | GST_MOTION_VECTOR_PARTITIONS_4X4, 4, s16_4_l4);
  field_clear (&f);
}

static void
test_lambda_zero_favours_fine (void)
{
  /* With lambda 0 the type bits cost nothing and a finer shape can only
   * match the data as well or better: one unit less on 4x4 is enough.
   * With lambda 1 the 24 bits more of 4x4 outweigh it. */
  static const guint32 near[1][NP] = { {320, 320, 320, 320, 320, 320, 319} };
  static const guint8 fine[1] = { 6 }, coarse[1] = { 0 };
  Field f;

  field_init (&f, 1, 1, near);
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_ALL, 0, fine);
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_ALL, 1, coarse);
  field_clear (&f);
}

static void
test_no_overflow (void)
{
  /* Sixteen 4x4 cells of 2^32 - 1 sum to about 2^36; in 32 bits they
   * would wrap to 2^32 - 16 and beat one 16x16 cell of 2^32 - 1. */
  static const guint32 big[1][NP] = { {0, 0, 0, 0, 0, 0, 0} };
  static const guint8 expect[1] = { 0 };
  Field f;

  field_init (&f, 1, 1, big);
  f.grid[0][0].cost = G_MAXUINT32;
  for (int i = 0; i < 16; i++)
    f.grid[6][i].cost = G_MAXUINT32;
  g_assert_cmpuint (me_mode_cost (f.grid[6], 6, 1, 0, 0, 65535), ==,
      16 * (guint64) G_MAXUINT32 + 65535 * 25);
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_16X16
      | GST_MOTION_VECTOR_PARTITIONS_4X4, 0, expect);
  check_decision (&f, GST_MOTION_VECTOR_PARTITIONS_16X16
      | GST_MOTION_VECTOR_PARTITIONS_4X4, 65535, expect);
  field_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mode-decision/type-bits", test_type_bits);
  g_test_add_func ("/mode-decision/each-shape-wins", test_each_shape_wins);
  g_test_add_func ("/mode-decision/mode-cost", test_mode_cost);
  g_test_add_func ("/mode-decision/subsets", test_subsets);
  g_test_add_func ("/mode-decision/lambda-zero-favours-fine",
      test_lambda_zero_favours_fine);
  g_test_add_func ("/mode-decision/no-overflow", test_no_overflow);
  return g_test_run ();
}
