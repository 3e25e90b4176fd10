/* mvtools — the decided field of a buffer searched against several
 * references (mvchosen.h).
 *
 * The decision is on one field (gpumotionest puts it on the first), the
 * vectors on the buffer's other fields of the same view (stereo video
 * has a field per reference in each view); a field is found by its
 * ref_distance as gst_buffer_get_motion_vector_meta_for_view() finds it:
 * the first of that view and distance.  Every field named must have the
 * decision's sizes, so that its cells lie over the same blocks.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mvchosen.h"

/* The index in @ch of the field against @distance, or -1. */
static gint
field_index (const MvChosen * ch, gint distance)
{
  guint i;

  for (i = 0; i < ch->n_fields; i++)
    if (ch->distance[i] == distance)
      return (gint) i;
  return -1;
}

/* Whether field @m may lend its cells to @meta's decision. */
static gboolean
field_fits (const GstMotionVectorMeta * m, const GstMotionVectorMeta * meta)
{
  return gst_motion_vector_meta_is_valid (m)
      && m->width == meta->width && m->height == meta->height
      && m->analysis_width == meta->analysis_width
      && m->analysis_height == meta->analysis_height
      && (m->partitions & meta->partitions) == meta->partitions;
}

gboolean
mv_chosen_init (MvChosen * ch, GstBuffer * buf,
    const GstMotionVectorMeta * meta, const gchar ** problem)
{
  gpointer state = NULL;
  GstMeta *gm;
  gsize i, n;
  gint last = 0, k;
  guint p;

  ch->n_fields = 0;
  ch->refs = gst_motion_vector_meta_get_chosen_refs (meta, &ch->ref_cols,
      &ch->ref_rows);
  if (!ch->refs) {
    *problem = "no readable chosen references";
    return FALSE;
  }

  while ((gm = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_MOTION_VECTOR_META_API_TYPE))) {
    const GstMotionVectorMeta *m = (const GstMotionVectorMeta *) gm;
    guint f = ch->n_fields;

    if (f == MV_CHOSEN_MAX_FIELDS)
      break;
    if (m->view != meta->view || m->ref_distance == 0
        || field_index (ch, m->ref_distance) >= 0)
      continue;
    ch->distance[f] = m->ref_distance;
    ch->used[f] = FALSE;
    /* a field that does not fit has no grids: naming it fails below */
    for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      ch->grids[f][p] = field_fits (m, meta)
          && (meta->partitions & (1u << p)) ?
          gst_motion_vector_meta_get_grid (m, p, NULL, NULL) : NULL;
    ch->n_fields++;
  }

  /* every value must name a field that fits; runs of one value are the
   * rule (a partition covers several blocks), so the last one is kept */
  n = (gsize) ch->ref_cols * ch->ref_rows;
  for (i = 0; i < n; i++) {
    if (i > 0 && ch->refs[i] == last)
      continue;
    last = ch->refs[i];
    k = field_index (ch, last);
    if (k < 0) {
      *problem = "a chosen reference names no field of the buffer";
      return FALSE;
    }
    ch->used[k] = TRUE;
  }
  for (i = 0; i < ch->n_fields; i++) {
    if (!ch->used[i])
      continue;
    for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
      if ((meta->partitions & (1u << p)) && !ch->grids[i][p]) {
        *problem = "the field of a chosen reference is inconsistent, of "
            "other sizes or lacks a shape";
        return FALSE;
      }
    }
  }
  *problem = NULL;
  return TRUE;
}

gint
mv_chosen_ref (const MvChosen * ch, GstMotionVectorPartition shape, guint c,
    guint r)
{
  guint x = c * gst_motion_vector_partition_width (shape) / 4;
  guint y = r * gst_motion_vector_partition_height (shape) / 4;

  return ch->refs[(gsize) y * ch->ref_cols + x];
}

const GstMotionVectorCell *
mv_chosen_cell (const MvChosen * ch, GstMotionVectorPartition shape, guint c,
    guint r)
{
  gint k = field_index (ch, mv_chosen_ref (ch, shape, c, r));
  guint cols = gst_motion_vector_grid_cols (shape, ch->ref_cols / 4);

  /* mv_chosen_init() checked that every value names a field with every
   * shape of the decision's meta */
  return &ch->grids[k][shape][(gsize) r * cols + c];
}
