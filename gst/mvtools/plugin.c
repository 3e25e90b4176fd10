/* mvtools — plugin entry: registers mvoverlay and mvexport. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvoverlay.h"
#include "gstmvexport.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;

  ok |= GST_ELEMENT_REGISTER (mvoverlay, plugin);
  ok |= GST_ELEMENT_REGISTER (mvexport, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, mvtools,
    "Draw and export motion-vector metas",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
