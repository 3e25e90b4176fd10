/* mvtools — the colours of the references, and their legend
 * (docs/overlay.md, "The reference each block chose"). */
#ifndef MV_DRAW_REFS_H
#define MV_DRAW_REFS_H

#include "mvdraw.h"

G_BEGIN_DECLS

/* The fixed colour of the reference @distance frames away, in RGB: one of
 * its own for -8 .. -1 and +1 .. +4 (what gpumotionest can search), white
 * for any other. */
void mv_reference_rgb (gint distance, guint8 * r, guint8 * g, guint8 * b);

/* The legend of @n references @distances (ascending): a column of squares
 * of @size pixels in their colours, each with a dark rim, from the top
 * right corner down. */
void mv_draw_reference_legend (const MvPainter * p, const gint * distances,
    guint n, gint size, const MvColor * rim);

G_END_DECLS

#endif /* MV_DRAW_REFS_H */
