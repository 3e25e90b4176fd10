/* mvtools — the views of stereo video in a frame (mvviews.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/motionvectors/gstmotionvectormeta.h>

#include "mvviews.h"

guint
mv_view_areas (const GstVideoInfo * info, GstBuffer * buf, gint want,
    MvViewArea areas[2])
{
  const gint w = GST_VIDEO_INFO_WIDTH (info);
  const gint h = GST_VIDEO_INFO_HEIGHT (info);
  const GstVideoMultiviewMode mode = GST_VIDEO_INFO_MULTIVIEW_MODE (info);
  const GstMotionVectorMeta *first;
  guint v, n = 0;

  if (mode == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE
      || mode == GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM) {
    const gboolean across = mode == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE;

    for (v = 0; v < 2; v++) {
      if (want >= 0 && (guint) want != v)
        continue;
      areas[n].view = v;
      areas[n].width = across ? w / 2 : w;
      areas[n].height = across ? h : h / 2;
      areas[n].x = across ? (gint) v * areas[n].width : 0;
      areas[n].y = across ? 0 : (gint) v * areas[n].height;
      n++;
    }
    return n;
  }

  /* One view fills the frame: mono video, a frame-by-frame buffer (one
   * view each), or a layout gpumotionest does not search. */
  first = gst_buffer_get_motion_vector_meta (buf);
  areas[0].view = want >= 0 ? (guint) want : first ? first->view : 0;
  areas[0].x = areas[0].y = 0;
  areas[0].width = w;
  areas[0].height = h;
  return 1;
}
