/* gpumotionest — plugin entry: registers the element, nothing else. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpumotionest.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (gpumotionest, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, gpumotionest,
    "Block-matching motion estimation on the GPU and the CPU",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
