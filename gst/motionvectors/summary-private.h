/* gpumotionest — what the meta's transform needs of the summary (not
 * installed). */
#ifndef GST_MOTION_VECTOR_SUMMARY_PRIVATE_H
#define GST_MOTION_VECTOR_SUMMARY_PRIVATE_H

#include "gstmotionvectorsummary.h"

G_BEGIN_DECLS

/* Rescales @summary's translation from a frame of @in_w x @in_h to one of
 * @out_w x @out_h, as the meta's scale transform rescales the vectors;
 * zoom, rotation, shares and costs stay.  All sizes > 0. */
G_GNUC_INTERNAL
void gst_motion_vector_summary_scale (GstMotionVectorSummary * summary,
    guint in_w, guint in_h, guint out_w, guint out_h);

G_END_DECLS

#endif
