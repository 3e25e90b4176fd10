/* gpumotionest — storage for result cells in the backend's preferred
 * memory.
 *
 * A backend that downloads results from a device writes them fastest into
 * page-locked memory: given such memory, the CUDA backend's download lands
 * in the meta's own storage, with no copy.  Page-locking is slow (a system
 * call per allocation), so blocks are recycled through a GstBufferPool on
 * the backend's host allocator; a block goes back to the pool when the last
 * meta holding it is freed, wherever that happens. */
#ifndef GST_CELL_POOL_H
#define GST_CELL_POOL_H

#include <gst/gst.h>

#include "me_backend.h"

G_BEGIN_DECLS

typedef struct _GstCellPool GstCellPool;

/* NULL when the backend has no preferred memory: cells then come from the
 * heap. */
GstCellPool *gst_cell_pool_new (const MEBackendOps * ops);
void gst_cell_pool_free (GstCellPool * pool);

/* `size` bytes of cell storage, from `pool` (may be NULL: the heap).  The
 * storage lives as long as the GBytes. */
GBytes *gst_cell_pool_alloc (GstCellPool * pool, gsize size);

G_END_DECLS

#endif /* GST_CELL_POOL_H */
