/* gpumotionest — fuzz targets: GStreamer set-up and frame filling. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

static void
set_default (const char *name, const char *value)
{
  if (!g_getenv (name))
    g_setenv (name, value, TRUE);
}

void
fuzz_init (const char *const *factories)
{
  set_default ("GST_PLUGIN_PATH_1_0", FUZZ_PLUGIN_DIR);
  set_default ("GST_PLUGIN_SYSTEM_PATH_1_0", "");
  set_default ("GST_REGISTRY_1_0", FUZZ_REGISTRY);
  set_default ("GST_REGISTRY_FORK", "no");
  /* Errors posted by the elements are expected; keep the log quiet. */
  set_default ("GST_DEBUG", "*:0");

  gst_init (NULL, NULL);

  if (!g_getenv ("FUZZ_NONFATAL_CRITICALS")
      || !g_str_equal (g_getenv ("FUZZ_NONFATAL_CRITICALS"), "1"))
    g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

  for (; *factories; factories++) {
    GstElementFactory *f = gst_element_factory_find (*factories);
    if (!f) {
      fprintf (stderr, "fuzz: element '%s' not found (GST_PLUGIN_PATH_1_0=%s)\n",
          *factories, g_getenv ("GST_PLUGIN_PATH_1_0"));
      abort ();
    }
    gst_object_unref (f);
  }
}

void
fuzz_fill (guint8 * data, gsize size, guint32 seed)
{
  guint32 x = seed * 2654435761u + 0x9e3779b9u;

  for (gsize i = 0; i < size; i++) {
    /* xorshift32; never stuck at zero thanks to the odd constant above */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    if (x == 0)
      x = 0x9e3779b9u;
    data[i] = (guint8) (x >> 24);
  }
}
