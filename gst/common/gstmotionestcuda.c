/* gpumotionest — the elements' side of GStreamer's CUDA library (see
 * gstmotionestcuda.h).
 *
 * GStreamer's CUDA elements (nvh264dec, cudaupload, cudaconvert) each hold
 * a GstCudaContext and share it through GstContext: whoever opens first
 * makes one, the others find it through the CONTEXT query or the bin.  We
 * do the same, so that the decoder's device frames are readable by our
 * kernels (device memory belongs to a context) and a GPU carries one
 * context, not one per element.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmotionestcuda.h"

#if HAVE_GST_CUDA
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudabufferpool.h>

/* One category for every element of the project that shares CUDA
 * contexts (gpumotionest, mvinterpolate), made on first use. */
GST_DEBUG_CATEGORY_STATIC (gst_motion_est_cuda_debug);
#define GST_CAT_DEFAULT motion_est_cuda_category ()

static GstDebugCategory *
motion_est_cuda_category (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_motion_est_cuda_debug, "motionestcuda", 0,
        "CUDA contexts and memory shared with the pipeline");
    g_once_init_leave (&once, 1);
  }
  return gst_motion_est_cuda_debug;
}

gboolean
gst_motion_est_cuda_available (void)
{
  return TRUE;
}

void
gst_motion_est_cuda_set_context (GstElement * element, GstContext * context,
    gint device_id, GstObject ** cuda_context)
{
  gst_cuda_handle_set_context (element, context, device_id,
      (GstCudaContext **) cuda_context);
}

gboolean
gst_motion_est_cuda_query_context (GstElement * element, GstQuery * query,
    GstObject * cuda_context)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT || !cuda_context)
    return FALSE;
  return gst_cuda_handle_context_query (element, query,
      GST_CUDA_CONTEXT (cuda_context));
}

static GstCudaContext *
buffer_context (GstBuffer * buffer)
{
  GstMemory *mem;

  if (!buffer || gst_buffer_n_memory (buffer) == 0)
    return NULL;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_cuda_memory (mem) ? GST_CUDA_MEMORY_CAST (mem)->context : NULL;
}

static gint
context_device (GstCudaContext * ctx)
{
  guint device = 0;

  g_object_get (ctx, "cuda-device-id", &device, NULL);
  return (gint) device;
}

/* Replaces the element's context under its object lock: other threads
 * (a CONTEXT query, the session's open) take a reference under that lock,
 * so the old context must not be released between their read and their
 * ref. */
static void
replace_context (GstElement * element, GstObject ** cuda_context,
    GstObject * ctx)
{
  GstObject *old;

  if (ctx)
    gst_object_ref (ctx);
  GST_OBJECT_LOCK (element);
  old = *cuda_context;
  *cuda_context = ctx;
  GST_OBJECT_UNLOCK (element);
  if (old)
    gst_object_unref (old);
}

gboolean
gst_motion_est_cuda_ensure_context (GstElement * element, gint device_id,
    GstBuffer * buffer, GstObject ** cuda_context)
{
  GstCudaContext *from_buffer = buffer_context (buffer);
  g_autoptr (GstObject) current = NULL;

  /* Another thread (the streaming thread, an allocation query upstream)
   * may replace it meanwhile: look at it through a reference. */
  GST_OBJECT_LOCK (element);
  if (*cuda_context)
    current = gst_object_ref (*cuda_context);
  GST_OBJECT_UNLOCK (element);

  /* The incoming frames' device decides where "any device" searches: the
   * kernels then read them where they are. */
  if (from_buffer && (device_id < 0
          || context_device (from_buffer) == device_id)
      && current != GST_OBJECT (from_buffer)) {
    GST_INFO_OBJECT (element, "searching in the context of the frames "
        "(device %d)", context_device (from_buffer));
    replace_context (element, cuda_context, GST_OBJECT (from_buffer));
    return TRUE;
  }
  if (current && (device_id < 0
          || context_device (GST_CUDA_CONTEXT (current)) == device_id))
    return TRUE;
  replace_context (element, cuda_context, NULL);
  /* no driver: the library would assert rather than fail */
  if (!gst_cuda_load_library ())
    return FALSE;
  return gst_cuda_ensure_element_context (element, device_id,
      (GstCudaContext **) cuda_context);
}

gboolean
gst_motion_est_cuda_should_follow (GstBuffer * buffer,
    GstObject * cuda_context, gint device_id)
{
  GstCudaContext *ctx = buffer_context (buffer);

  return cuda_context && ctx && GST_OBJECT (ctx) != cuda_context
      && (device_id < 0 || context_device (ctx) == device_id);
}

gboolean
gst_motion_est_cuda_push (gpointer cuda_context)
{
  return !cuda_context
      || gst_cuda_context_push (GST_CUDA_CONTEXT (cuda_context));
}

void
gst_motion_est_cuda_pop (gpointer cuda_context)
{
  if (cuda_context)
    gst_cuda_context_pop (NULL);
}

GstMapFlags
gst_motion_est_cuda_map_flags (GstBuffer * buffer, GstObject * cuda_context)
{
  GstCudaContext *ctx = buffer_context (buffer);

  /* every memory of the buffer: a plane elsewhere could not be read */
  if (!ctx || GST_OBJECT (ctx) != cuda_context)
    return 0;
  for (guint i = 1; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    if (!gst_is_cuda_memory (mem)
        || GST_CUDA_MEMORY_CAST (mem)->context != ctx)
      return 0;
  }
#if GST_CHECK_VERSION (1, 24, 0)
  /* From 1.24 a CUDA map no longer waits for the producer's stream (the
   * reader must): the frame is copied on a stream of our own. */
  for (guint i = 0; i < gst_buffer_n_memory (buffer); i++)
    gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory
            (buffer, i)));
#endif
  return GST_MAP_CUDA;
}

gboolean
gst_motion_est_cuda_caps_are_cuda (GstCaps * caps)
{
  GstCapsFeatures *features;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  features = gst_caps_get_features (caps, 0);
  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

GstBufferPool *
gst_motion_est_cuda_pool_new (GstObject * cuda_context, GstCaps * caps,
    guint size)
{
  GstBufferPool *pool;
  GstStructure *config;

  if (!cuda_context)
    return NULL;
  pool = gst_cuda_buffer_pool_new (GST_CUDA_CONTEXT (cuda_context));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

#else /* !HAVE_GST_CUDA */

gboolean
gst_motion_est_cuda_available (void)
{
  return FALSE;
}

void
gst_motion_est_cuda_set_context (GstElement * element, GstContext * context,
    gint device_id, GstObject ** cuda_context)
{
}

gboolean
gst_motion_est_cuda_query_context (GstElement * element, GstQuery * query,
    GstObject * cuda_context)
{
  return FALSE;
}

gboolean
gst_motion_est_cuda_ensure_context (GstElement * element, gint device_id,
    GstBuffer * buffer, GstObject ** cuda_context)
{
  return FALSE;
}

gboolean
gst_motion_est_cuda_should_follow (GstBuffer * buffer,
    GstObject * cuda_context, gint device_id)
{
  return FALSE;
}

gboolean
gst_motion_est_cuda_push (gpointer cuda_context)
{
  return TRUE;
}

void
gst_motion_est_cuda_pop (gpointer cuda_context)
{
}

GstMapFlags
gst_motion_est_cuda_map_flags (GstBuffer * buffer, GstObject * cuda_context)
{
  return 0;
}

gboolean
gst_motion_est_cuda_caps_are_cuda (GstCaps * caps)
{
  return FALSE;
}

GstBufferPool *
gst_motion_est_cuda_pool_new (GstObject * cuda_context, GstCaps * caps,
    guint size)
{
  return NULL;
}

#endif
