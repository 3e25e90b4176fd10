/* gpumotionest — one process-wide read mapping per memory.
 *
 * A GstMemory counts the mappings held on it in 8 bits of its lock state:
 * the 256th concurrent mapping wraps the count to zero, the access mode is
 * then cleared while mappings are still out, and a later unmap fails its
 * assertion ("gst_mini_object_unlock: assertion '(state & access_mode) ==
 * access_mode' failed") with the memory's sharing count off by one.  A
 * frame in flight stays mapped until it is collected, and one decoded
 * frame may be in flight in hundreds of instances at once (a tee into many
 * branches, or many streams of the same pictures), each mapping each of
 * its planes.  So the element maps the memory that holds a frame's luma
 * once for the whole process, for as long as any frame in flight uses it,
 * and every job shares that mapping: whatever the number of instances, it
 * holds one lock on the memory.
 *
 * Reusing a mapping is safe because a read mapping pins the contents: no
 * one may map the memory for writing while it is held (the lock refuses
 * it), and each job keeps its buffer, so the memory lives on. */
#ifndef GST_SHARED_MAP_H
#define GST_SHARED_MAP_H

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _GstSharedMap GstSharedMap;

/* A mapping of `mem` for reading with `flags` (GST_MAP_READ, plus
 * GST_MAP_CUDA for device pointers), the one already held by someone else
 * if there is one; NULL when the memory cannot be mapped.  `data` is where
 * the mapped bytes start and `size` their number. */
GstSharedMap *gst_shared_map_acquire (GstMemory * mem, GstMapFlags flags,
    guint8 ** data, gsize * size);

/* Gives a mapping back; the last user unmaps the memory. */
void gst_shared_map_release (GstSharedMap * map);

G_END_DECLS

#endif /* GST_SHARED_MAP_H */
