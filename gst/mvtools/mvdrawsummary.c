/* mvtools — the motion summary drawn over a frame.
 *
 * What is drawn (docs/overlay.md):
 *   - the global model's motion at the frame centre, a thick arrow, and at
 *     eight points of a ring around it, thin ones: a pan moves them all
 *     alike, a zoom points them out of or into the ring, a rotation along
 *     it;
 *   - a bar at the bottom left: the share of blocks agreeing with the
 *     model (green), moving on their own (red), unmatched (grey);
 *   - a white border on a frame whose score says cut.
 * Nothing for a frame without a reference: its numbers mean nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "mvdrawsummary.h"

/* The model's motion, in frame pixels, of the point (dx, dy) frame pixels
 * from the centre: the reference position minus the current one
 * (gstmotionvectorsummary.h), @sx and @sy converting quarter pixels. */
static void
model_motion (const GstMotionVectorSummary * sum, gdouble sx, gdouble sy,
    gdouble dx, gdouble dy, gdouble * mx, gdouble * my)
{
  gdouble c = cos (-sum->rotation), s = sin (-sum->rotation);
  gdouble k = 1.0 / (1.0 + sum->zoom);

  *mx = sum->global_x * sx + k * (c * dx - s * dy) - dx;
  *my = sum->global_y * sy + k * (s * dx + c * dy) - dy;
  /* the fields are public: a summary an application wrote may hold
   * anything; what is not a number is not drawn */
  if (!isfinite (*mx) || !isfinite (*my))
    *mx = *my = 0;
}

/* A share as a width of @w pixels, 0 for what is not a number. */
static gint
share_width (gdouble share, gint w)
{
  return isfinite (share) ? (gint) lround (CLAMP (share, 0, 1) * w) : 0;
}

void
mv_draw_summary (const MvPainter * p, const GstMotionVectorSummary * sum,
    gdouble sx, gdouble sy, gdouble sign, gdouble gain)
{
  MvColor white = mv_painter_color (p, 255, 255, 255);
  MvColor dark = mv_painter_color (p, 0, 0, 0);
  MvColor cyan = mv_painter_color (p, 40, 220, 255);
  MvColor green = mv_painter_color (p, 40, 200, 60);
  MvColor red = mv_painter_color (p, 230, 40, 40);
  MvColor grey = mv_painter_color (p, 128, 128, 128);
  gdouble cx = p->width / 2.0, cy = p->height / 2.0, mx, my;
  gdouble ring = MIN (p->width, p->height) / 4.0;
  gint bar_w = MAX (p->width / 4, 8), bar_h = MAX (p->height / 40, 3);
  gint bar_x = 4, bar_y = p->height - bar_h - 4, agree_w, moving_w;
  gint i, edge = MAX (MIN (p->width, p->height) / 100, 2);

  if (sum->flags & GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE)
    return;

  /* the ring: a pan moves its points alike, a zoom or rotation not */
  for (i = 0; i < 8; i++) {
    gdouble a = i * G_PI / 4, dx = ring * cos (a), dy = ring * sin (a);

    model_motion (sum, sx, sy, dx, dy, &mx, &my);
    mv_draw_dot (p, (gint) floor (cx + dx), (gint) floor (cy + dy), 1,
        &dark);
    mv_draw_arrow (p, cx + dx, cy + dy, cx + dx + sign * gain * mx,
        cy + dy + sign * gain * my, &cyan, &dark);
  }
  /* the centre: the global translation */
  model_motion (sum, sx, sy, 0, 0, &mx, &my);
  mv_draw_line (p, cx, cy, cx + sign * gain * mx, cy + sign * gain * my, 2,
      &dark);
  mv_draw_arrow (p, cx, cy, cx + sign * gain * mx, cy + sign * gain * my,
      &white, &dark);
  mv_draw_dot (p, (gint) floor (cx), (gint) floor (cy), 2, &white);

  /* the shares, on a dark frame */
  agree_w = share_width (sum->global_share, bar_w);
  moving_w = MIN (share_width (sum->moving_share, bar_w), bar_w - agree_w);
  mv_fill_rect (p, bar_x - 1, bar_y - 1, bar_w + 2, bar_h + 2, &dark, 256);
  mv_fill_rect (p, bar_x, bar_y, bar_w, bar_h, &grey, 256);
  mv_fill_rect (p, bar_x, bar_y, agree_w, bar_h, &green, 256);
  mv_fill_rect (p, bar_x + agree_w, bar_y, moving_w, bar_h, &red, 256);

  /* a cut: a white border round the frame */
  if (sum->flags & GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE) {
    mv_fill_rect (p, 0, 0, p->width, edge, &white, 256);
    mv_fill_rect (p, 0, p->height - edge, p->width, edge, &white, 256);
    mv_fill_rect (p, 0, 0, edge, p->height, &white, 256);
    mv_fill_rect (p, p->width - edge, 0, edge, p->height, &white, 256);
  }
}
