/* mvtools — where the fields of each view of stereo video are drawn
 * (docs/overlay.md, "Stereo video"). */
#ifndef MV_VIEWS_H
#define MV_VIEWS_H

#include <gst/video/video.h>

G_BEGIN_DECLS

/* The rectangle of a frame, in pixels, that shows view @view. */
typedef struct {
  guint view;
  gint x, y, width, height;
} MvViewArea;

/* The areas of a frame of @info in which the fields of @buf are drawn,
 * at most two, in @areas; returns how many.  @want is the view asked
 * for, or -1 for each view in its place.  Side-by-side and top-bottom
 * frames hold both views, each in its half (an odd last column or row
 * in neither, as gpumotionest searches them); any other frame is one
 * view, that of @buf's first field unless @want names one. */
guint mv_view_areas (const GstVideoInfo * info, GstBuffer * buf, gint want,
    MvViewArea areas[2]);

G_END_DECLS

#endif /* MV_VIEWS_H */
