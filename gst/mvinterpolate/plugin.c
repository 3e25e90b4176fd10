/* mvinterpolate — plugin entry: registers mvinterpolate. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvinterpolate.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (mvinterpolate, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, mvinterpolate,
    "Motion-compensated frame-rate conversion from motion-vector metas",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
