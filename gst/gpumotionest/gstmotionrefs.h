/* gpumotionest — the pictures each frame is searched against: the
 * `references` property, and the window of frames it needs.
 *
 * References are signed frame distances in presentation order: -1 the
 * previous frame (the default, searched through the backend's submit()
 * exactly as before), -2 the one before it, +1 the next frame.  Any other
 * list goes through the backend's submit_pairs(): every frame is added to
 * the backend's window as it arrives, and searched against all its
 * references once the furthest future one has arrived; until then it is
 * held here, in `held`.  docs/references.md has the rules.
 */
#ifndef GST_MOTION_REFS_H
#define GST_MOTION_REFS_H

#include <gst/gst.h>

#include "gstmotionestjob.h"

G_BEGIN_DECLS

#define GST_MOTION_REFS_MAX 8
#define GST_MOTION_REFS_MAX_PAST 8
#define GST_MOTION_REFS_MAX_FUTURE 4
#define GST_MOTION_REFS_DEFAULT "-1"

typedef struct {
  gint dist[GST_MOTION_REFS_MAX];
  guint n;
} GstMotionRefs;

gboolean gst_motion_refs_parse (const gchar * str, GstMotionRefs * refs,
    GError ** error);
gboolean gst_motion_refs_equal (const GstMotionRefs * a,
    const GstMotionRefs * b);
/* The default list, -1 alone: the previous frame through submit(). */
gboolean gst_motion_refs_previous_only (const GstMotionRefs * refs);
/* The furthest future reference (0: none): how many frames a frame waits. */
guint gst_motion_refs_future (const GstMotionRefs * refs);

/* Frames added since the last reset, the ones not searched yet, and the
 * timestamps of those still in reach of a reference. */
#define GST_MOTION_REFS_PTS_RING 16

typedef struct {
  GstMotionRefs refs;
  guint64 added;                /* frames (stereo: instants) added since
                                 * the reset */
  guint next_view;              /* frame-by-frame stereo: the view the
                                 * next buffer must be */
  GQueue held;                  /* GstMotionEstJob: added, not searched */
  GstClockTime pts[GST_MOTION_REFS_PTS_RING];
} GstMotionRefWindow;

void gst_motion_ref_window_init (GstMotionRefWindow * w);
/* Forgets every frame; held jobs must have been taken out first. */
void gst_motion_ref_window_reset (GstMotionRefWindow * w,
    const GstMotionRefs * refs);
void gst_motion_ref_window_add (GstMotionRefWindow * w, GstMotionEstJob * job);
/* Stereo: `job` starts a new instant; it is not held. */
void gst_motion_ref_window_add_instant (GstMotionRefWindow * w,
    GstMotionEstJob * job);
/* The oldest held frame when it can be searched (its furthest future
 * reference was added, or `at_end`: there will be no more), taken out of
 * `held`, with its searches in `pairs` (ages as submit_pairs() counts
 * them) and the fields of the references that do not exist cleared.
 * NULL when none can be searched yet. */
GstMotionEstJob *gst_motion_ref_window_next (GstMotionRefWindow * w,
    gboolean at_end, MESearchPair * pairs, guint * n_pairs);
/* The newest held frame, which what arrives next must follow. */
GstMotionEstJob *gst_motion_ref_window_newest (GstMotionRefWindow * w);

/* With mode decision: the partition of each macroblock and the reference
 * of each partition (ref_decision.h) of a buffer's fields that have a
 * reference, attached to its first field (modes and chosen references).
 * FALSE when fewer than two fields have one: the caller decides the
 * partitions of the first field alone, as with one reference. */
gboolean gst_motion_refs_decide (GstBuffer * buffer, guint lambda);

G_END_DECLS

#endif /* GST_MOTION_REFS_H */
