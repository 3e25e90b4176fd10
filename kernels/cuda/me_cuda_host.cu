/* gpumotionest — page-locked host memory helpers (see me_cuda_host.h). */
#include <cuda_runtime.h>

#include "me_cuda_host.h"

gboolean
me_cuda_host_is_pinned (const void *ptr)
{
  cudaPointerAttributes attr;
  if (!ptr)
    return FALSE;
  if (cudaPointerGetAttributes (&attr, ptr) != cudaSuccess) {
    /* no driver, or a pointer CUDA never saw: not pinned */
    cudaGetLastError ();
    return FALSE;
  }
  return attr.type == cudaMemoryTypeHost;
}

/* The blocks that fell back to g_malloc, so that a free need not ask CUDA
 * what a pointer is: during process exit (a static object's destructor
 * closing a pipeline) the runtime is unloading, answers no question, and
 * a pinned block taken for an ordinary one would go to g_free.  Fallbacks
 * are rare; the set is nearly always empty. */
static GMutex fallback_lock;
static GHashTable *fallbacks;

void *
me_cuda_host_alloc (size_t size)
{
  void *ptr = NULL;
  if (size == 0)
    return NULL;
  if (cudaHostAlloc (&ptr, size, cudaHostAllocPortable) == cudaSuccess)
    return ptr;
  cudaGetLastError ();
  ptr = g_malloc (size);
  g_mutex_lock (&fallback_lock);
  if (!fallbacks)
    fallbacks = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_hash_table_add (fallbacks, ptr);
  g_mutex_unlock (&fallback_lock);
  return ptr;
}

void
me_cuda_host_free (void *ptr)
{
  gboolean fallback;

  if (!ptr)
    return;
  g_mutex_lock (&fallback_lock);
  fallback = fallbacks && g_hash_table_remove (fallbacks, ptr);
  g_mutex_unlock (&fallback_lock);
  if (fallback) {
    g_free (ptr);
  } else if (cudaFreeHost (ptr) != cudaSuccess) {
    /* the runtime is unloading: the process is ending, the block with it */
    cudaGetLastError ();
  }
}

int
me_cuda_device_count (void)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return n;
}
