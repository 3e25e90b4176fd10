/* gpumotionest — the per-macroblock partition decision; see
 * mode_decision.h and docs/mode-decision.md.
 *
 * Definition, clause by clause:
 *
 *   1. Candidates: the requested shapes (a non-NULL grid).  Each stands for
 *      the uniform partitioning of the macroblock into that shape, which
 *      H.264 codes in a P slice as
 *        16x16         mb_type P_L0_16x16    (table 7-13, value 0)
 *        16x8          mb_type P_L0_L0_16x8  (value 1)
 *        8x16          mb_type P_L0_L0_8x16  (value 2)
 *        8x8 .. 4x4    mb_type P_8x8         (value 3) and four
 *                      sub_mb_type, all alike (table 7-17): P_L0_8x8 = 0,
 *                      P_L0_8x4 = 1, P_L0_4x8 = 2, P_L0_4x4 = 3.
 *   2. Rate of the type: CAVLC codes mb_type and sub_mb_type as ue(v),
 *      codeNum k taking 2 floor(log2(k + 1)) + 1 bits (clause 9.1): value
 *      0 is "1" (1 bit), 1 and 2 "010", "011" (3 bits), 3 "00100" (5
 *      bits).  So 16x16 costs 1 bit, 16x8 and 8x16 3, 8x8 5 + 4 x 1 = 9,
 *      8x4 and 4x8 5 + 4 x 3 = 17, 4x4 5 + 4 x 5 = 25.  One reference, so
 *      no ref_idx is coded, and P_8x8ref0 (value 4) does not apply.
 *   3. Cost of a shape for a macroblock: the sum of the `cost` of the
 *      shape's cells inside it (the stage's cost as the cells report it:
 *      SAD or SATD, plus lambda x MVD bits when lambda > 0), plus lambda x
 *      the bits of clause 2.  In 64 bits: 16 cells of up to 2^32 - 1 each
 *      and 65535 x 25 cannot overflow it.
 *   4. Choice: the smallest cost; on a tie the smaller enum value, that is
 *      the larger partition (scanning shapes in enum order and replacing
 *      only on a strictly smaller cost does exactly that).
 *
 * The cells are not changed: their prediction and MVD stay those of their
 * own uniform grid.
 */
#include "mode_decision.h"

/* Bits of ue(v) codeNum k (clause 9.1): 2 floor(log2(k + 1)) + 1. */
static unsigned
ue_bits (unsigned k)
{
  unsigned n = 0;

  for (k++; k > 1; k >>= 1)
    n++;
  return 2 * n + 1;
}

unsigned
me_mode_type_bits (GstMotionVectorPartition shape)
{
  /* Clause 1: mb_type per table 7-13, sub_mb_type per table 7-17. */
  switch (shape) {
    case GST_MOTION_VECTOR_PARTITION_16X16:
      return ue_bits (0);       /* P_L0_16x16 */
    case GST_MOTION_VECTOR_PARTITION_16X8:
      return ue_bits (1);       /* P_L0_L0_16x8 */
    case GST_MOTION_VECTOR_PARTITION_8X16:
      return ue_bits (2);       /* P_L0_L0_8x16 */
    case GST_MOTION_VECTOR_PARTITION_8X8:
      return ue_bits (3) + 4 * ue_bits (0);     /* P_8x8, 4 x P_L0_8x8 */
    case GST_MOTION_VECTOR_PARTITION_8X4:
      return ue_bits (3) + 4 * ue_bits (1);     /* 4 x P_L0_8x4 */
    case GST_MOTION_VECTOR_PARTITION_4X8:
      return ue_bits (3) + 4 * ue_bits (2);     /* 4 x P_L0_4x8 */
    case GST_MOTION_VECTOR_PARTITION_4X4:
      return ue_bits (3) + 4 * ue_bits (3);     /* 4 x P_L0_4x4 */
    default:
      g_return_val_if_reached (0);
  }
}

guint64
me_mode_cost (const GstMotionVectorCell * cells,
    GstMotionVectorPartition shape, unsigned mb_cols, unsigned mb_x,
    unsigned mb_y, unsigned lambda)
{
  const unsigned across = 16 / gst_motion_vector_partition_width (shape);
  const unsigned down = 16 / gst_motion_vector_partition_height (shape);
  const unsigned cols = gst_motion_vector_grid_cols (shape, mb_cols);
  guint64 sum = (guint64) lambda * me_mode_type_bits (shape);  /* clause 2 */

  /* Clause 3: the shape's cells inside the macroblock. */
  for (unsigned r = 0; r < down; r++) {
    const GstMotionVectorCell *row =
        cells + (gsize) (mb_y * down + r) * cols + mb_x * across;

    for (unsigned c = 0; c < across; c++)
      sum += row[c].cost;
  }
  return sum;
}

void
me_mode_decide (const GstMotionVectorCell *
    const grids[GST_MOTION_VECTOR_PARTITION_COUNT], unsigned mb_cols,
    unsigned mb_rows, unsigned lambda, guint8 * modes)
{
  for (unsigned y = 0; y < mb_rows; y++) {
    for (unsigned x = 0; x < mb_cols; x++) {
      guint64 best_cost = G_MAXUINT64;
      int best = -1;

      /* Clause 4: enum order, strictly smaller replaces, so a tie keeps
       * the larger partition. */
      for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
        guint64 cost;

        if (!grids[p])
          continue;
        cost = me_mode_cost (grids[p], (GstMotionVectorPartition) p, mb_cols,
            x, y, lambda);
        if (best < 0 || cost < best_cost) {
          best = p;
          best_cost = cost;
        }
      }
      g_return_if_fail (best >= 0);
      modes[(gsize) y * mb_cols + x] = (guint8) best;
    }
  }
}
