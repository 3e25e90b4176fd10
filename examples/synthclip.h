/* gpumotionest examples — a synthetic textured clip with a known motion.
 *
 * Frame n shows an endless procedural texture T moved by n * (vx, vy)
 * pixels: frame_n(x, y) = T(x - n * vx, y - n * vy).  Against the previous
 * frame every block therefore matches at (x - vx, y - vy): the expected
 * motion vector is (-vx, -vy) pixels, i.e. (-4 vx, -4 vy) quarter-pel,
 * except along the edges where new texture enters the picture.
 */
#ifndef SYNTH_CLIP_H
#define SYNTH_CLIP_H

#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* Luma of the texture at integer position (x, y), any sign: smooth value
 * noise on an 8-pixel lattice plus fine per-pixel grain, so that every
 * block has a unique best match. */
guint8 synth_texture (gint x, gint y);

/* Renders frame @n of the clip into @frame (8-bit YUV formats only: luma
 * from the texture, neutral chroma). */
void synth_render (GstVideoFrame * frame, gint n, gint vx, gint vy);

/* Makes @src play @n_frames I420 frames of @width x @height at 30 fps
 * (timestamped), rendered on demand, then end-of-stream. */
void synth_attach_appsrc (GstAppSrc * src, gint width, gint height,
    gint n_frames, gint vx, gint vy);

/* TRUE when @pipeline has posted an error, which is printed; other
 * messages on its bus are dropped.  Shared by the example programs. */
gboolean example_pipeline_failed (GstElement * pipeline);

G_END_DECLS

#endif /* SYNTH_CLIP_H */
