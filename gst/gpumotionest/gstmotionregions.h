/* gpumotionest — the regions of a frame that move: moving macroblocks
 * joined into at most N rectangles.
 *
 * Plain data in, plain data out (no GStreamer object), so that the rules
 * are tested on constructed masks and every backend's field gives the same
 * rectangles.  docs/encoder-hints.md states the rules: 8-connected
 * components labelled in raster order, then merged by the smallest growth
 * of covered area until at most N remain and none overlap. */
#ifndef GST_MOTION_REGIONS_H
#define GST_MOTION_REGIONS_H

#include <glib.h>

G_BEGIN_DECLS

/* The largest number of rectangles asked for (a property's bound). */
#define GST_MOTION_REGIONS_MAX 64

typedef struct {
  /* pixels of the frame: whole macroblocks, clipped to the frame */
  guint x, y, w, h;
  /* macroblocks: the moving ones inside, all those the rectangle covers */
  guint moving;
  guint blocks;
  /* sum of the moving macroblocks' speeds, quarter pixels per frame */
  guint64 speed_sum;
} GstMotionRegion;

guint gst_motion_regions_find (const guint8 * mask, const guint32 * speed,
    guint mb_cols, guint mb_rows, guint width, guint height,
    guint max_regions, GstMotionRegion * regions);

G_END_DECLS

#endif /* GST_MOTION_REGIONS_H */
