/* mvdenoise — plugin entry: registers mvdenoise. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvdenoise.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (mvdenoise, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, mvdenoise,
    "Motion-compensated temporal denoising from motion-vector metas",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
