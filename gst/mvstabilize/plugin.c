/* mvstabilize — plugin entry: registers mvstabilize. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvstabilize.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (mvstabilize, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, mvstabilize,
    "Video stabilisation from the motion-vector metas' global motion",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
