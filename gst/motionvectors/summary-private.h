/* gpumotionest — what the meta's transform and gpumotionest need of
 * the summary (not installed). */
#ifndef GST_MOTION_VECTOR_SUMMARY_PRIVATE_H
#define GST_MOTION_VECTOR_SUMMARY_PRIVATE_H

#include "gstmotionvectorsummary.h"
#include "summary-rules.h"

G_BEGIN_DECLS

/* Rescales @summary's translation from a frame of @in_w x @in_h to one of
 * @out_w x @out_h, as the meta's scale transform rescales the vectors;
 * zoom, rotation, shares and costs stay.  All sizes > 0. */
G_GNUC_INTERNAL
void gst_motion_vector_summary_scale (GstMotionVectorSummary * summary,
    guint in_w, guint in_h, guint out_w, guint out_h);

/* The summary from a core a backend reduced on its device
 * (MEField.summary); computed from @meta's cells when @core is %NULL,
 * not valid or of another grid.  Exported for gpumotionest, not part of
 * the API. */
GST_MOTION_VECTORS_API
gboolean gst_motion_vector_summary_compute_with_core (
    const GstMotionVectorMeta * meta, const MvsCore * core,
    const GstMotionVectorSummary * previous, GstMotionVectorSummary * out);

GST_MOTION_VECTORS_API
gboolean gst_motion_vector_summary_attach_with_core (
    GstMotionVectorMeta * meta, const MvsCore * core,
    GstMotionVectorSummary * previous);

/* The host's core of @meta's summary grid, to check a backend's against:
 * %FALSE (and @core zeroed) without a reference or for an inconsistent
 * meta. */
GST_MOTION_VECTORS_API
gboolean gst_motion_vector_summary_compute_core (
    const GstMotionVectorMeta * meta, MvsCore * core);

/* The core of grid @cells of geometry @geometry (mvs_geometry_init()),
 * shape @partition: what a backend's reduction must equal. */
GST_MOTION_VECTORS_API
void gst_motion_vector_summary_compute_grid_core (
    const GstMotionVectorCell * cells, const MvsGeometry * geometry,
    guint partition, MvsCore * core);

G_END_DECLS

#endif
