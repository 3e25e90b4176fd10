/* gpumotionest — one process-wide read mapping per memory. */
#include "gstsharedmap.h"

struct _GstSharedMap
{
  GstMemory *mem;               /* a reference: the key stays unique */
  GstMapFlags flags;
  GstMapInfo info;
  guint users;
};

/* Mappings held, keyed by memory; each memory has at most one per set of
 * flags, so the few entries of one memory are a short list. */
static GMutex maps_lock;
static GHashTable *maps;        /* GstMemory * -> GSList of GstSharedMap */

GstSharedMap *
gst_shared_map_acquire (GstMemory * mem, GstMapFlags flags, guint8 ** data,
    gsize * size)
{
  GstSharedMap *map = NULL;
  GSList *list;

  g_return_val_if_fail (mem != NULL, NULL);
  g_return_val_if_fail (!(flags & GST_MAP_WRITE), NULL);

  g_mutex_lock (&maps_lock);
  if (!maps)
    maps = g_hash_table_new (g_direct_hash, g_direct_equal);
  list = g_hash_table_lookup (maps, mem);
  for (GSList * l = list; l; l = l->next) {
    GstSharedMap *m = l->data;
    if (m->flags == flags) {
      map = m;
      break;
    }
  }
  if (!map) {
    map = g_new0 (GstSharedMap, 1);
    if (!gst_memory_map (mem, &map->info, flags)) {
      g_free (map);
      g_mutex_unlock (&maps_lock);
      return NULL;
    }
    map->mem = gst_memory_ref (mem);
    map->flags = flags;
    g_hash_table_insert (maps, mem, g_slist_prepend (list, map));
  }
  map->users++;
  *data = map->info.data;
  *size = map->info.size;
  g_mutex_unlock (&maps_lock);
  return map;
}

void
gst_shared_map_release (GstSharedMap * map)
{
  GstMemory *mem;
  GSList *list;

  if (!map)
    return;
  g_mutex_lock (&maps_lock);
  if (--map->users > 0) {
    g_mutex_unlock (&maps_lock);
    return;
  }
  mem = map->mem;
  list = g_slist_remove (g_hash_table_lookup (maps, mem), map);
  if (list)
    g_hash_table_insert (maps, mem, list);
  else
    g_hash_table_remove (maps, mem);
  /* Unmapped under the lock: a new acquire of this memory must not map it
   * while the old mapping is still being torn down. */
  gst_memory_unmap (mem, &map->info);
  g_mutex_unlock (&maps_lock);
  gst_memory_unref (mem);
  g_free (map);
}
