/* mvtools — the decided field of a buffer searched against several
 * references: for each partition the reference it chose (the chosen_refs
 * of the field carrying the decision) and the cell of that reference's
 * field (docs/overlay.md, "The reference each block chose"). */
#ifndef MV_CHOSEN_H
#define MV_CHOSEN_H

#include <gst/motionvectors/gstmotionvectormeta.h>

G_BEGIN_DECLS

/* Fields of one buffer looked at: gpumotionest attaches 8 at most, and
 * the table stays on the stack (the overlay allocates nothing per
 * frame). */
#define MV_CHOSEN_MAX_FIELDS 16

typedef struct {
  const gint8 *refs;            /* ref_cols x ref_rows, one per 4x4 block */
  guint ref_cols, ref_rows;
  guint n_fields;
  /* the buffer's first field of each distance, in the buffer's order */
  gint distance[MV_CHOSEN_MAX_FIELDS];
  gboolean used[MV_CHOSEN_MAX_FIELDS];  /* named by refs */
  const GstMotionVectorCell *grids[MV_CHOSEN_MAX_FIELDS]
      [GST_MOTION_VECTOR_PARTITION_COUNT];
} MvChosen;

/* Fills @ch from @meta's chosen references (@meta consistent, a field of
 * @buf) and the fields of @buf they name.  FALSE, with what is wrong in
 * @problem, when @meta has no readable chosen references, or one names a
 * reference whose field @buf lacks, is inconsistent, is not of @meta's
 * sizes or lacks one of @meta's shapes: then nothing of the decision is
 * drawn or written, rather than a part of it. */
gboolean mv_chosen_init (MvChosen * ch, GstBuffer * buf,
    const GstMotionVectorMeta * meta, const gchar ** problem);

/* The reference of cell (@c, @r) of @shape's grid: that of its top-left
 * 4x4 block (every block of a partition holds the same). */
gint mv_chosen_ref (const MvChosen * ch, GstMotionVectorPartition shape,
    guint c, guint r);

/* Cell (@c, @r) of @shape's grid in the field of its chosen reference;
 * @shape is one of the decision's meta, (@c, @r) inside its grid. */
const GstMotionVectorCell *mv_chosen_cell (const MvChosen * ch,
    GstMotionVectorPartition shape, guint c, guint r);

G_END_DECLS

#endif /* MV_CHOSEN_H */
