/* gpumotionest — one frame in flight: its buffer, the mapped luma the
 * backend reads, and the field the backend fills.
 *
 * `device_map` is the map flag that gives device pointers (GST_MAP_CUDA)
 * when the backend is to read the frame where a CUDA element left it, 0
 * otherwise (gstmotionestcuda.h). */
#ifndef GST_MOTION_EST_JOB_H
#define GST_MOTION_EST_JOB_H

#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "me_backend.h"
#include "gstcellpool.h"
#include "gstsharedmap.h"

G_BEGIN_DECLS

/* Most fields one frame carries: one per reference (gstmotionrefs.h),
 * per view and one inter-view of a stereo frame (gstmotionviews.h). */
#define GST_MOTION_EST_MAX_FIELDS 16

typedef struct {
  GstBuffer *buffer;            /* our only reference: stays writable */
  /* The luma is read through `luma_map`, the process-wide mapping of its
   * memory (gstsharedmap.h), or, where that cannot give it, through
   * `frame`, mapped until the job ends (frame.buffer NULL when not). */
  GstVideoFrame frame;
  GstSharedMap *luma_map;
  MEPlane luma;
  MESearchParams params;
  /* One field per reference, in the order of the references property:
   * the backend fills fields[i], which becomes a meta of ref_distance[i]
   * against the frame of ref_pts[i]. */
  guint n_fields;
  MEField fields[GST_MOTION_EST_MAX_FIELDS];
  GBytes *cell_bytes[GST_MOTION_EST_MAX_FIELDS];  /* all grids of a field, */
  GstMotionVectorCell *cells[GST_MOTION_EST_MAX_FIELDS]; /* laid out as the
                                                          * meta wants */
  gsize n_cells;                /* per field */
  guint field_width, field_height;      /* what the fields cover: the frame,
                                         * or one view of a stereo frame */
  gint ref_distance[GST_MOTION_EST_MAX_FIELDS];
  GstClockTime ref_pts[GST_MOTION_EST_MAX_FIELDS];
  /* stereo (gstmotionviews.h): the view each field is of, and whether it
   * is searched against the first view at the same instant */
  guint8 field_view[GST_MOTION_EST_MAX_FIELDS];
  gboolean inter_view[GST_MOTION_EST_MAX_FIELDS];
  guint inter_view_range;       /* what the inter-view fields' meta says
                                 * of their window: its largest reach */
  guint64 frame_no;             /* frames since the references were reset */
  /* The first field's summary core, when the backend reduces fields where
   * it makes them (MEField.summary; docs/summary.md): zero until then. */
  MvsCore summary_core;
  /* Serialized events and pass-through buffers that arrived after this
   * frame: they leave right after it, so nothing overtakes a frame in
   * flight.  GstMiniObject, oldest first. */
  GQueue followers;
} GstMotionEstJob;

gboolean gst_motion_est_luma_is_bt709 (const GstVideoColorimetry * cinfo);

GstMotionEstJob *gst_motion_est_job_new (GstBuffer * buffer,
    const GstVideoInfo * info, const MESearchParams * params,
    const gint * ref_distances, guint n_fields, guint field_width,
    guint field_height, GstCellPool * cells, GstMapFlags device_map,
    GError ** error);

void gst_motion_est_job_clear_field (GstMotionEstJob * job, guint i);

GstBuffer *gst_motion_est_job_finish (GstMotionEstJob * job,
    GQueue * followers, GstMotionVectorMeta ** meta);

void gst_motion_est_job_free (GstMotionEstJob * job);

G_END_DECLS

#endif /* GST_MOTION_EST_JOB_H */
