/* gpumotionest — stereo video: the views of a multiview stream, each
 * searched for its own motion and, after the first, against the first view
 * at the same instant (disparity).  docs/stereo.md has the rules.
 *
 * Views are entries of the backend's window (submit_pairs), two per
 * instant: entry 2 t + v is view v of instant t.  Side-by-side and
 * top-bottom frames carry both (two entries per buffer, each a half of the
 * frame); frame-by-frame streams carry one per buffer, the first view
 * flagged GST_VIDEO_BUFFER_FLAG_FIRST_IN_BUNDLE.
 */
#ifndef GST_MOTION_VIEWS_H
#define GST_MOTION_VIEWS_H

#include <gst/video/video.h>

#include "gstmotionestjob.h"
#include "gstmotionrefs.h"

G_BEGIN_DECLS

typedef enum {
  GST_MOTION_VIEWS_MONO = 0,
  GST_MOTION_VIEWS_SIDE_BY_SIDE,
  GST_MOTION_VIEWS_TOP_BOTTOM,
  GST_MOTION_VIEWS_FRAME_BY_FRAME,
} GstMotionViewsLayout;

#define GST_MOTION_VIEWS_DEFAULT_DISPARITY "0,64"
#define GST_MOTION_VIEWS_DEFAULT_VERTICAL 1
/* Past references of a stereo stream: two entries an instant in a window
 * of ME_MAX_WINDOW. */
#define GST_MOTION_VIEWS_MAX_PAST 7

typedef struct {
  GstMotionViewsLayout layout;
  guint width, height;          /* of one view */
} GstMotionViews;

/* The layout of `info`'s multiview mode; FALSE, with the reason, for a
 * mode that is not searched (interleaved, checkerboard, more than two
 * views, separate pads). */
gboolean gst_motion_views_from_info (GstMotionViews * views,
    const GstVideoInfo * info, GError ** error);

/* The disparity range "MIN,MAX" in pixels (a view's block found MIN .. MAX
 * pixels across in the first view), or a single number N for the range
 * between 0 and N ("32" is 0,32, "-32" is -32,0); and the search that
 * covers it: a full search centred between them, `vertical` rows up and
 * down. */
gboolean gst_motion_views_parse_disparity (const gchar * str, gint * min,
    gint * max, GError ** error);
void gst_motion_views_disparity_params (MESearchParams * params, gint min,
    gint max, guint vertical);

/* View v of the frame `luma` describes (packed layouts), as a plane. */
void gst_motion_views_plane (const GstMotionViews * views,
    const MEPlane * luma, guint v, MEPlane * out);

/* The fields of a buffer of `fbf_view` (-1: a frame of both views), in
 * their order: each view's motion fields in the order of `refs`, then the
 * inter-view field of each view after the first.  Fills the distances
 * (0 for inter-view), views and inter-view flags; returns how many. */
guint gst_motion_views_fields (const GstMotionRefs * refs, gint fbf_view,
    gint * dist, guint8 * view, gboolean * inter_view);

/* Whether `refs` can be searched in a stereo stream: past references only,
 * within GST_MOTION_VIEWS_MAX_PAST. */
gboolean gst_motion_views_check_refs (const GstMotionRefs * refs,
    GError ** error);

/* The searches of field set `view`/`inter_view` of `job` (instant
 * job->frame_no), the newest entry of the window being view `newest_view`
 * of that instant: motion fields against their own view at their past
 * references, or the inter-view fields against view 0 of the same instant.
 * Fields whose reference is not in the window are cleared; ref_pts come
 * from the window's timestamps of instants.  Returns the pairs' count. */
guint gst_motion_views_pairs (const GstMotionRefWindow * w,
    GstMotionEstJob * job, guint newest_view, gboolean inter_view,
    MESearchPair * pairs);

G_END_DECLS

#endif /* GST_MOTION_VIEWS_H */
