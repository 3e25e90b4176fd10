/* gpumotionest — a GstAllocator over a backend's preferred host memory
 * (page-locked memory for the GPU), so upstream can write frames where the
 * backend uploads them from without a staging copy. */
#ifndef GST_HOST_ALLOCATOR_H
#define GST_HOST_ALLOCATOR_H

#include <gst/gst.h>

#include "me_backend.h"

G_BEGIN_DECLS

#define GST_TYPE_HOST_ALLOCATOR (gst_host_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstHostAllocator, gst_host_allocator, GST,
    HOST_ALLOCATOR, GstAllocator);

/* An allocator over ops->host_alloc/host_free; NULL when the backend has
 * none (plain memory is as good). */
GstAllocator *gst_host_allocator_new (const MEBackendOps * ops);

G_END_DECLS

#endif /* GST_HOST_ALLOCATOR_H */
