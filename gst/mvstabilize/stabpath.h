/* gpumotionest — the camera path of a stabiliser: plain C, no GStreamer.
 *
 * Frames go in with their motion against the previous frame (a similarity
 * about the frame centre, as GstMotionVectorSummary gives it); frames come
 * out, `lookahead` frames later (all of them at the end), each with the
 * correction that moves it onto the smoothed path and the zoom that hides
 * the borders the correction uncovers.  docs/stabilization.md gives the
 * method and its reasons:
 *
 *   path      the motions composed into the camera's pose against the
 *             segment's first frame: shift, angle, log scale
 *   smooth    a Gaussian over the pose, window [t - r, t + r] with r the
 *             path radius, shrunk symmetrically near a segment's ends (so
 *             a steady pan is left as it is, and the first and last frame
 *             of a segment are not moved)
 *   crop      per frame the least zoom that keeps the corrected frame's
 *             borders out of the picture; the maximum of it over
 *             [t - rc, t + rc], then a Gaussian over the same window: the
 *             zoom changes smoothly and is never below what a frame needs
 *   segments  a cut, a frame without a reference and stab_path_restart()
 *             start a new segment (the path restarts); a frame whose model
 *             is unreliable keeps the path going with the previous
 *             frame's motion (a pan goes on) and is itself not corrected
 *             (only zoomed like its neighbours)
 *
 * The lookahead L is split between the path and the crop: rc = L / 6,
 * r = L - 2 rc (the crop of frame t needs the path up to t + 2 rc).
 */
#ifndef STAB_PATH_H
#define STAB_PATH_H

#include <glib.h>

G_BEGIN_DECLS

/* A frame's motion against the previous frame: a pixel p of this frame
 * lies in the previous one at c + (dx, dy) + R(-angle) (p - c) / (1 + zoom)
 * (c the frame centre, R a turn clockwise on screen, y down; in pixels of
 * the frame), GstMotionVectorSummary's model scaled to the frame. */
typedef struct {
  gboolean cut;              /* a new segment starts here (scene cut, no
                              * reference, discontinuity) */
  gboolean reliable;         /* the model holds (enough blocks agree) */
  double dx, dy;
  double angle;
  double zoom;
} StabMotion;

/* What a frame gets: the correction as a map from output pixels to input
 * pixels, q -> c + (cx_shift, cy_shift) + scale R(angle) (q - c), zoom
 * included, and its parts. */
typedef struct {
  guint64 index;             /* the frame's number among those pushed */
  double dx, dy;             /* the map's shift at the centre, pixels */
  double angle;              /* its turn, radians, clockwise on screen */
  double scale;              /* its scale (the correction's scale / crop) */
  double crop;               /* the zoom hiding the borders, >= 1 */
  gboolean corrected;        /* FALSE: the frame keeps its place (first
                              * or last of a segment, unreliable model) */
  gboolean segment_start;    /* the first frame of a segment */
  /* the raw and the smoothed camera pose against the segment's first
   * frame (x, y in pixels, angle in radians, log scale), for plots */
  double raw[4];
  double smooth[4];
} StabOutput;

typedef struct _StabPath StabPath;

/* A path for frames of width x height, `lookahead` frames (0 ..
 * STAB_PATH_MAX_LOOKAHEAD), the zoom at most max_zoom (>= 1). */
#define STAB_PATH_MAX_LOOKAHEAD 300
StabPath *stab_path_new (unsigned width, unsigned height, unsigned lookahead,
    double max_zoom);
void stab_path_free (StabPath * path);

/* The radii lookahead L gives: path r = L - 2 rc, crop rc = L / 6. */
void stab_path_radii (unsigned lookahead, unsigned *path_radius,
    unsigned *crop_radius);

/* A frame enters. */
void stab_path_push (StabPath * path, const StabMotion * motion);

/* The next frame's output, if it can be given: `lookahead` frames after it
 * have been pushed, or `draining` (the end: no more frames come).  FALSE
 * when it cannot yet, or no frame waits. */
gboolean stab_path_pop (StabPath * path, gboolean draining, StabOutput * out);

/* Frames pushed and not yet popped. */
unsigned stab_path_pending (const StabPath * path);

/* Forget every frame (a flush): the next one starts a segment. */
void stab_path_reset (StabPath * path);

/* The similarity of an output (its map) as six coefficients, output pixel
 * (x, y) read at input (xx x + xy y + x0, yx x + yy y + y0), the centre c
 * of a width x height frame being ((width - 1) / 2, (height - 1) / 2). */
void stab_output_affine (const StabOutput * out, unsigned width,
    unsigned height, double m[6]);

G_END_DECLS

#endif /* STAB_PATH_H */
