/* mvtools — the colours of the references, and their legend.
 *
 * Past references are cool colours, future ones warm, so the direction
 * of a block's prediction reads before its distance.  The first four of
 * each side are the Okabe-Ito colours, which stay apart for the common
 * kinds of colour blindness; -5 .. -8 are darker or paler versions of
 * -1 .. -4, and +4 a darker vermillion.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mvdrawrefs.h"

static const guint8 past_rgb[8][3] = {
  {0, 114, 178},                /* -1 blue */
  {0, 158, 115},                /* -2 bluish green */
  {86, 180, 233},               /* -3 sky blue */
  {204, 121, 167},              /* -4 reddish purple */
  {0, 57, 89},                  /* -5 dark blue */
  {0, 79, 57},                  /* -6 dark green */
  {170, 218, 244},              /* -7 pale blue */
  {102, 60, 83},                /* -8 dark purple */
};

static const guint8 future_rgb[4][3] = {
  {213, 94, 0},                 /* +1 vermillion */
  {230, 159, 0},                /* +2 orange */
  {240, 228, 66},               /* +3 yellow */
  {115, 47, 0},                 /* +4 brown */
};

void
mv_reference_rgb (gint distance, guint8 * r, guint8 * g, guint8 * b)
{
  const guint8 *c;
  static const guint8 white[3] = { 255, 255, 255 };

  if (distance < 0 && distance >= -(gint) G_N_ELEMENTS (past_rgb))
    c = past_rgb[-distance - 1];
  else if (distance > 0 && distance <= (gint) G_N_ELEMENTS (future_rgb))
    c = future_rgb[distance - 1];
  else
    c = white;
  *r = c[0];
  *g = c[1];
  *b = c[2];
}

void
mv_draw_reference_legend (const MvPainter * p, const gint * distances,
    guint n, gint size, const MvColor * rim)
{
  gint x = p->width - size - 4;
  guint i;

  for (i = 0; i < n; i++) {
    gint y = 4 + (gint) i * (size + 3);
    guint8 r, g, b;
    MvColor col;

    mv_reference_rgb (distances[i], &r, &g, &b);
    col = mv_painter_color (p, r, g, b);
    mv_fill_rect (p, x - 1, y - 1, size + 2, size + 2, rim, 256);
    mv_fill_rect (p, x, y, size, size, &col, 256);
  }
}
