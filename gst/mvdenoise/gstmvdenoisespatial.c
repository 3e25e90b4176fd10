/* gpumotionest — mvdenoise: the spatial pass (gstmvdenoisespatial.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstmvdenoisespatial.h"

guint
gst_mv_denoise_spatial_threshold (gdouble strength, guint sigma_q4,
    guint depth, guint n_refs)
{
  if (strength <= 0.0)
    return 0;
  const gdouble left = sigma_q4 / 16.0 * (gdouble) (1u << (depth - 8))
      / sqrt ((gdouble) n_refs + 1.0);
  return (guint) MIN (lround (strength * left), 65535);
}

gboolean
gst_mv_denoise_spatial (const MCPicture * in, MCPicture * out,
    guint threshold, const MCOptions * opt, GError ** error)
{
  return mc_sigma_filter_picture (in, out, GST_MV_DENOISE_SPATIAL_RADIUS,
      threshold, opt, error);
}
