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

void *
me_cuda_host_alloc (size_t size)
{
  void *ptr = NULL;
  if (size == 0)
    return NULL;
  if (cudaHostAlloc (&ptr, size, cudaHostAllocPortable) == cudaSuccess)
    return ptr;
  cudaGetLastError ();
  return g_malloc (size);
}

void
me_cuda_host_free (void *ptr)
{
  if (!ptr)
    return;
  if (me_cuda_host_is_pinned (ptr))
    cudaFreeHost (ptr);
  else
    g_free (ptr);
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
