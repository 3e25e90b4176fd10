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

typedef struct {
  GstBuffer *buffer;            /* our only reference: stays writable */
  /* The luma is read through `luma_map`, the process-wide mapping of its
   * memory (gstsharedmap.h), or, where that cannot give it, through
   * `frame`, mapped until the job ends (frame.buffer NULL when not). */
  GstVideoFrame frame;
  GstSharedMap *luma_map;
  MEPlane luma;
  MESearchParams params;
  MEField field;
  GBytes *cell_bytes;           /* all grids, laid out as the meta wants: */
  GstMotionVectorCell *cells;   /* their data, written by the backend */
  gsize n_cells;
  GstClockTime ref_pts;
  /* Serialized events and pass-through buffers that arrived after this
   * frame: they leave right after it, so nothing overtakes a frame in
   * flight.  GstMiniObject, oldest first. */
  GQueue followers;
} GstMotionEstJob;

gboolean gst_motion_est_luma_is_bt709 (const GstVideoColorimetry * cinfo);

GstMotionEstJob *gst_motion_est_job_new (GstBuffer * buffer,
    const GstVideoInfo * info, const MESearchParams * params,
    GstClockTime ref_pts, GstCellPool * cells, GstMapFlags device_map,
    GError ** error);

GstBuffer *gst_motion_est_job_finish (GstMotionEstJob * job,
    GQueue * followers, GstMotionVectorMeta ** meta);

void gst_motion_est_job_free (GstMotionEstJob * job);

G_END_DECLS

#endif /* GST_MOTION_EST_JOB_H */
