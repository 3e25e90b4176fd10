/* gpumotionest — host memory for the CUDA backend, and the devices there are.
 *
 * Frames in page-locked (pinned) host memory are uploaded by DMA straight
 * from where they lie, with no staging copy, and result grids in pinned
 * memory are written by the device directly.  The element can build its
 * buffer pool on these.
 */
#ifndef ME_CUDA_HOST_H
#define ME_CUDA_HOST_H

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

/* Page-locked memory usable by every device, or plain g_malloc() memory
 * when no CUDA driver or device is usable (never NULL for size > 0). */
void *me_cuda_host_alloc (size_t size);

/* Frees memory from me_cuda_host_alloc() (either kind). */
void me_cuda_host_free (void *ptr);

/* TRUE when `ptr` lies in page-locked memory known to CUDA (allocated by
 * CUDA or registered with it). */
gboolean me_cuda_host_is_pinned (const void *ptr);

/* How many CUDA devices this process sees; 0 without a driver or GPU. */
int me_cuda_device_count (void);

G_END_DECLS

#endif /* ME_CUDA_HOST_H */
