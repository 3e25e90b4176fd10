/* gpumotionest — the output pool of the consumers of fields
 * (gstmcoutput.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>
#include <gst/video/gstvideopool.h>

#include "gstmotionestcuda.h"
#include "gstmcoutput.h"

void
gst_mc_output_drop_pool (GstBufferPool ** pool)
{
  if (*pool) {
    gst_buffer_pool_set_active (*pool, FALSE);
    gst_object_unref (*pool);
    *pool = NULL;
  }
}

static gboolean
configure_pool (GstBufferPool * pool, GstCaps * caps, guint size, guint min,
    guint max)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  return gst_buffer_pool_set_config (pool, config)
      && gst_buffer_pool_set_active (pool, TRUE);
}

gboolean
gst_mc_output_setup_cuda_pool (GstBufferPool ** pool, GstObject * cuda_ctx,
    GstCaps * caps, guint size)
{
  GstBufferPool *p = gst_motion_est_cuda_pool_new (cuda_ctx, caps, size);

  gst_mc_output_drop_pool (pool);
  if (!p || !gst_buffer_pool_set_active (p, TRUE)) {
    gst_clear_object (&p);
    return FALSE;
  }
  *pool = p;
  return TRUE;
}

gboolean
gst_mc_output_setup_pool (GstBufferPool ** pool, GstPad * srcpad,
    GstCaps * caps, guint size, GstDebugCategory * cat)
{
  GstQuery *query;
  GstBufferPool *p = NULL;
  guint psize = size, min = 2, max = 0;

  query = gst_query_new_allocation (caps, TRUE);
  if (gst_pad_peer_query (srcpad, query)
      && gst_query_get_n_allocation_pools (query) > 0) {
    guint qsize;

    gst_query_parse_nth_allocation_pool (query, 0, &p, &qsize, &min, &max);
    psize = MAX (psize, qsize);
  }
  gst_query_unref (query);
  gst_mc_output_drop_pool (pool);

  if (p && !configure_pool (p, caps, psize, min, max)) {
    GST_CAT_DEBUG_OBJECT (cat, GST_OBJECT_PARENT (srcpad),
        "downstream's pool refused: one of our own");
    gst_object_unref (p);
    p = NULL;
  }
  if (!p) {
    p = gst_video_buffer_pool_new ();
    if (!configure_pool (p, caps, size, 2, 0)) {
      gst_object_unref (p);
      return FALSE;
    }
  }
  *pool = p;
  return TRUE;
}
