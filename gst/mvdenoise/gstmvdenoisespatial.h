/* gpumotionest — mvdenoise: the spatial pass after the temporal mix.
 *
 * Averaging a frame with its compensated neighbours divides the noise by
 * at most sqrt (2 radius + 1); on smooth pictures the noise left is what
 * shows.  The spatial pass (mc_sigma_filter_plane(), Lee's sigma filter
 * over a 5x5 window) averages each sample with the neighbours within a
 * threshold of it, set from the noise the temporal mix leaves, so that
 * flat areas smooth and edges and texture above the threshold stay
 * (docs/denoise.md, "The spatial pass").
 */
#ifndef GST_MV_DENOISE_SPATIAL_H
#define GST_MV_DENOISE_SPATIAL_H

#include <glib.h>
#include "mc.h"

G_BEGIN_DECLS

/* The window: 5x5. */
#define GST_MV_DENOISE_SPATIAL_RADIUS 2

/* The threshold, in levels at `depth`, for noise of sigma_q4 / 16 8-bit
 * levels after a mix of the frame with n_refs references: `strength`
 * times the noise left by a mix at full weight, sigma / sqrt (n_refs + 1),
 * rounded; 0 when strength is 0. */
guint gst_mv_denoise_spatial_threshold (gdouble strength, guint sigma_q4,
    guint depth, guint n_refs);

/* out's planes (the picture's, three or one) from in's, each through
 * mc_sigma_filter_plane() with `threshold` (mc_sigma_filter_picture()). */
gboolean gst_mv_denoise_spatial (const MCPicture * in, MCPicture * out,
    guint threshold, const MCOptions * opt, GError ** error);

G_END_DECLS

#endif /* GST_MV_DENOISE_SPATIAL_H */
