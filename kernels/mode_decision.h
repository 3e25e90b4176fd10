/* gpumotionest — the per-macroblock partition decision (docs/mode-decision.md).
 *
 * A pure function of the finished cells of the uniform grids: for each
 * macroblock, the requested shape whose cells covering it cost the least,
 * counting lambda x the bits of the H.264 P-slice macroblock type that
 * partitioning needs.  It runs on the host after a frame is collected, the
 * same code whatever backend searched, so every backend gives the same
 * decision.
 */
#ifndef ME_MODE_DECISION_H
#define ME_MODE_DECISION_H

#include <glib.h>
#include <gst/motionvectors/gstmotionvectortypes.h>

G_BEGIN_DECLS

/* Bits of the CAVLC syntax that codes a macroblock partitioned uniformly
 * into `shape` (P slice, one reference): mb_type ue(v), plus for P_8x8 the
 * four sub_mb_type ue(v).  1, 3, 3, 9, 17, 17, 25 for shapes 0 .. 6. */
unsigned me_mode_type_bits (GstMotionVectorPartition shape);

/* The cost of coding macroblock (mb_x, mb_y) with `shape`: the sum of the
 * `cost` of the shape's cells covering it, plus lambda x
 * me_mode_type_bits (shape).  `cells` is the shape's grid over mb_cols
 * macroblocks across. */
guint64 me_mode_cost (const GstMotionVectorCell * cells,
    GstMotionVectorPartition shape, unsigned mb_cols, unsigned mb_x,
    unsigned mb_y, unsigned lambda);

/* Writes to `modes` (mb_cols x mb_rows bytes, row-major) the shape each
 * macroblock is coded with: among the shapes whose grid is not NULL, the
 * smallest me_mode_cost(), the smaller enum value (the larger partition)
 * on a tie.  At least one grid must be present.  `grids[p]` is shape p's
 * grid over mb_cols x mb_rows macroblocks, as in MEField and the meta. */
void me_mode_decide (const GstMotionVectorCell *
    const grids[GST_MOTION_VECTOR_PARTITION_COUNT], unsigned mb_cols,
    unsigned mb_rows, unsigned lambda, guint8 * modes);

G_END_DECLS

#endif /* ME_MODE_DECISION_H */
