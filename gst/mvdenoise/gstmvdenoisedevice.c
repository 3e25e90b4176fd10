/* gpumotionest — mvdenoise: frames in system memory on the GPU, each
 * uploaded once (gstmvdenoisedevice.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvdenoisedevice.h"

GST_DEBUG_CATEGORY_EXTERN (gst_mv_denoise_debug);
#define GST_CAT_DEFAULT gst_mv_denoise_debug

typedef struct
{
  guint8 *dev;
  gsize size;
} DeviceCopy;

static GQuark
device_quark (void)
{
  static GQuark q;
  if (!q)
    q = g_quark_from_static_string ("gst-mv-denoise-device-copy");
  return q;
}

static void
device_copy_free (gpointer data)
{
  DeviceCopy *d = data;
  mc_cuda_free (d->dev);
  g_free (d);
}

/* buf's device copy, made now when it has none; NULL when buf is not one
 * memory or CUDA failed. */
static DeviceCopy *
device_copy (GstBuffer * buf)
{
  DeviceCopy *d = gst_mini_object_get_qdata (GST_MINI_OBJECT (buf),
      device_quark ());
  GstMapInfo map;
  GError *err = NULL;

  if (d)
    return d;
  if (gst_buffer_n_memory (buf) != 1
      || !gst_buffer_map (buf, &map, GST_MAP_READ))
    return NULL;
  d = g_new0 (DeviceCopy, 1);
  d->size = map.size;
  d->dev = mc_cuda_alloc (map.size, &err);
  if (!d->dev || !mc_cuda_copy (d->dev, map.data, map.size, &err)) {
    GST_DEBUG ("no device copy of %p: %s", buf, err ? err->message : "?");
    g_clear_error (&err);
    gst_buffer_unmap (buf, &map);
    device_copy_free (d);
    return NULL;
  }
  gst_buffer_unmap (buf, &map);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (buf), device_quark (), d,
      device_copy_free);
  return d;
}

gboolean
gst_mv_denoise_device_picture (GstBuffer * buf, const GstVideoFrame * frame,
    MCPicture * pic)
{
  const guint8 *base = frame->map[0].data;
  const gsize size = frame->map[0].size;
  const guint n = pic->chroma == MC_CHROMA_NONE ? 1 : 3;
  gsize off[3];
  guint i;

  /* every plane inside the frame's one memory */
  for (i = 0; i < n; i++) {
    const guint8 *p = pic->planes[i].data;
    if (p < base || p >= base + size)
      return FALSE;
    off[i] = (gsize) (p - base);
  }
  DeviceCopy *d = device_copy (buf);
  if (!d || d->size != size)
    return FALSE;
  for (i = 0; i < n; i++)
    pic->planes[i].data = d->dev + off[i];
  return TRUE;
}

void
gst_mv_denoise_device_forget (GstBuffer * buf)
{
  if (gst_mini_object_get_qdata (GST_MINI_OBJECT (buf), device_quark ()))
    gst_mini_object_set_qdata (GST_MINI_OBJECT (buf), device_quark (), NULL,
        NULL);
}
