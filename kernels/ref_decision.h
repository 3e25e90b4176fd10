/* gpumotionest — the partition and reference decision of a frame searched
 * against several references (docs/references.md).
 *
 * Host code after collect, like mode_decision.h, so every backend gives
 * the same decision.  Each reference k has its field (one grid per
 * requested shape); the decision takes, for every macroblock, the shape
 * and for each of its partitions the reference that an H.264 encoder
 * coding the frame with one list of these references would choose by
 * distortion + lambda x (bits of ref_idx + bits of the MVD against the
 * prediction of clause 8.4.1.3, which prefers a neighbour of the same
 * reference over the median) + lambda x the macroblock type's bits.
 */
#ifndef ME_REF_DECISION_H
#define ME_REF_DECISION_H

#include <glib.h>
#include <gst/motionvectors/gstmotionvectortypes.h>

G_BEGIN_DECLS

/* Most references one decision weighs. */
#define ME_REF_DECISION_MAX 8

/* Bits of ref_idx k among n references (te(v), clause 9.1.2): none for one
 * reference, one bit for two, ue(v) for more. */
unsigned me_ref_idx_bits (unsigned k, unsigned n);

/* The H.264 predictor (quarter pixels) of cell (gx, gy) of shape p coded
 * with reference `ref`, its neighbours A, B and C (after C -> D) having
 * references ra, rb, rc (-1: not available) and vectors a*, b*, c*
 * (clause 8.4.1.3 with 8.4.1.3.1).  With every reference 0 it is
 * me_mvpred_combine(). */
void me_mvpred_combine_refs (int p, int gx, int gy, int ra, int rb, int rc,
    int ref, int ax, int ay, int bx, int by, int cx, int cy, int *px,
    int *py);

/* fields[k][p]: reference k's grid of shape p over mb_cols x mb_rows
 * macroblocks (NULL for the shapes not requested, the same for every k),
 * its cells' cost the stage's (with lambda x the bits of their own MVD
 * when lambda > 0, which the decision takes off again).  Writes the shape
 * of each macroblock to `modes` (mb_cols x mb_rows bytes) and the
 * reference of the partition covering each 4x4 block to `refs` ((4
 * mb_cols) x (4 mb_rows) bytes, row-major, values 0 .. n_refs - 1).
 * Ties go to the larger partition, then to the earlier reference. */
void me_ref_decide (const GstMotionVectorCell *
    const fields[][GST_MOTION_VECTOR_PARTITION_COUNT], unsigned n_refs,
    unsigned mb_cols, unsigned mb_rows, unsigned lambda, guint8 * modes,
    guint8 * refs);

G_END_DECLS

#endif /* ME_REF_DECISION_H */
