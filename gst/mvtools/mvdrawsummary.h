/* mvtools — the motion summary drawn over a frame (docs/overlay.md,
 * "Summary"). */
#ifndef MV_DRAW_SUMMARY_H
#define MV_DRAW_SUMMARY_H

#include <gst/motionvectors/gstmotionvectormeta.h>

#include "mvdraw.h"

G_BEGIN_DECLS

/* Draws @sum over the frame of @p: the global model as arrows (at the
 * centre and on a ring around it), the shares as a bar, a border on a
 * cut.  @sx, @sy turn quarter pixels at the meta's size into frame
 * pixels; @sign is -1 to draw the content's motion (the opposite of the
 * vectors), 1 to draw the vectors; @gain lengthens the arrows. */
void mv_draw_summary (const MvPainter * p, const GstMotionVectorSummary * sum,
    gdouble sx, gdouble sy, gdouble sign, gdouble gain);

G_END_DECLS

#endif /* MV_DRAW_SUMMARY_H */
