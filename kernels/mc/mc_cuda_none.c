/* gpumotionest — motion compensation built without CUDA: the CUDA entry
 * points of mc.h say so instead of being absent, so that callers need no
 * build condition of their own. */
#include "mc_impl.h"

static void
not_built (GError ** error)
{
  g_set_error (error, MC_ERROR, MC_ERROR_DEVICE,
      "motion compensation was built without CUDA");
}

const MCImpl *
mc_impl_cuda (GError ** error)
{
  not_built (error);
  return NULL;
}

MCCudaSession *
mc_cuda_session_new (GError ** error)
{
  not_built (error);
  return NULL;
}

void
mc_cuda_session_free (MCCudaSession * session)
{
  (void) session;
}

void *
mc_cuda_alloc (size_t size, GError ** error)
{
  (void) size;
  not_built (error);
  return NULL;
}

void
mc_cuda_free (void *ptr)
{
  (void) ptr;
}

gboolean
mc_cuda_copy (void *dst, const void *src, size_t size, GError ** error)
{
  (void) dst;
  (void) src;
  (void) size;
  not_built (error);
  return FALSE;
}
