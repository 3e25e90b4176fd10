/* gpumotionest — result cells in the backend's preferred memory. */
#include "gstcellpool.h"
#include "gsthostallocator.h"

GST_DEBUG_CATEGORY_EXTERN (gst_gpu_motion_est_debug);
#define GST_CAT_DEFAULT gst_gpu_motion_est_debug

struct _GstCellPool
{
  GstAllocator *allocator;
  GstBufferPool *pool;          /* for blocks of `size` bytes */
  gsize size;
};

/* A block handed out as GBytes: mapped until the GBytes goes. */
typedef struct
{
  GstBuffer *buffer;
  GstMapInfo map;
} Block;

static void
block_release (gpointer data)
{
  Block *b = data;

  gst_buffer_unmap (b->buffer, &b->map);
  gst_buffer_unref (b->buffer);         /* back to its pool */
  g_free (b);
}

GstCellPool *
gst_cell_pool_new (const MEBackendOps * ops)
{
  GstAllocator *allocator = gst_host_allocator_new (ops);
  GstCellPool *pool;

  if (!allocator)
    return NULL;
  pool = g_new0 (GstCellPool, 1);
  pool->allocator = allocator;
  return pool;
}

static void
drop_pool (GstCellPool * pool)
{
  if (pool->pool) {
    /* Blocks still out keep the old pool alive; they are freed when they
     * come back to it. */
    gst_buffer_pool_set_active (pool->pool, FALSE);
    gst_clear_object (&pool->pool);
  }
  pool->size = 0;
}

void
gst_cell_pool_free (GstCellPool * pool)
{
  if (!pool)
    return;
  drop_pool (pool);
  gst_object_unref (pool->allocator);
  g_free (pool);
}

static gboolean
ensure_pool (GstCellPool * pool, gsize size)
{
  GstStructure *config;
  GstAllocationParams params;

  if (pool->pool && pool->size == size)
    return TRUE;
  drop_pool (pool);
  pool->pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool->pool);
  gst_allocation_params_init (&params);
  params.align = 63;
  gst_buffer_pool_config_set_params (config, NULL, size, 0, 0);
  gst_buffer_pool_config_set_allocator (config, pool->allocator, &params);
  if (!gst_buffer_pool_set_config (pool->pool, config)
      || !gst_buffer_pool_set_active (pool->pool, TRUE)) {
    GST_WARNING ("could not set up a pool of %" G_GSIZE_FORMAT
        "-byte cell blocks", size);
    gst_clear_object (&pool->pool);
    return FALSE;
  }
  pool->size = size;
  return TRUE;
}

GBytes *
gst_cell_pool_alloc (GstCellPool * pool, gsize size)
{
  Block *b;

  if (!pool || size == 0 || !ensure_pool (pool, size))
    return g_bytes_new_take (g_malloc (size), size);
  b = g_new0 (Block, 1);
  if (gst_buffer_pool_acquire_buffer (pool->pool, &b->buffer, NULL)
      != GST_FLOW_OK || !gst_buffer_map (b->buffer, &b->map, GST_MAP_WRITE)) {
    gst_clear_buffer (&b->buffer);
    g_free (b);
    return g_bytes_new_take (g_malloc (size), size);
  }
  return g_bytes_new_with_free_func (b->map.data, size, block_release, b);
}
