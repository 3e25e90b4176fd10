/* gpumotionest — the mc backend of the consumers of fields (gstmcbackend.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmotionestcuda.h"
#include "gstmcbackend.h"

void
gst_mc_backend_init (GstMcBackend * backend, GstDebugCategory * cat,
    gint requested)
{
  backend->cat = cat;
  backend->requested = requested;
}

void
gst_mc_backend_request (GstMcBackend * backend, gint requested)
{
  backend->requested = requested;
  backend->changed = TRUE;
}

const MCImpl *
gst_mc_backend_resolve (GstMcBackend * backend, GstObject * owner,
    GError ** error)
{
  gint requested;

  GST_OBJECT_LOCK (owner);
  requested = backend->requested;
  if (backend->changed) {
    backend->resolved = FALSE;
    backend->changed = FALSE;
  }
  GST_OBJECT_UNLOCK (owner);
  if (backend->resolved)
    return backend->impl;

  backend->is_cuda = FALSE;
  if (requested == GST_MC_BACKEND_CPU) {
    backend->impl = mc_impl_cpu ();
  } else {
    GError *err = NULL;
    const MCImpl *cuda = mc_impl_cuda (&err);

    if (cuda) {
      backend->impl = cuda;
      backend->is_cuda = TRUE;
    } else if (requested == GST_MC_BACKEND_CUDA) {
      g_propagate_error (error, err);
      return NULL;
    } else {
      GST_CAT_INFO_OBJECT (backend->cat, owner,
          "CUDA unusable (%s): the CPU", err ? err->message : "?");
      g_clear_error (&err);
      backend->impl = mc_impl_cpu ();
    }
  }
  GST_CAT_INFO_OBJECT (backend->cat, owner, "backend: %s",
      backend->is_cuda ? "cuda" : "cpu");
  backend->resolved = TRUE;
  return backend->impl;
}

void
gst_mc_backend_drop_session (GstMcBackend * backend)
{
  if (backend->session && gst_motion_est_cuda_push (backend->session_ctx)) {
    mc_cuda_session_free (backend->session);
    gst_motion_est_cuda_pop (backend->session_ctx);
  }
  backend->session = NULL;
  gst_clear_object (&backend->session_ctx);
}

MCCudaSession *
gst_mc_backend_session (GstMcBackend * backend, GstObject * ctx,
    GError ** error)
{
  if (backend->session && backend->session_ctx == ctx)
    return backend->session;
  gst_mc_backend_drop_session (backend);
  backend->session = mc_cuda_session_new (error);
  if (backend->session)
    backend->session_ctx = gst_object_ref (ctx);
  return backend->session;
}

GstObject *
gst_mc_cuda_context_ref (GstObject * owner, GstObject ** ctx)
{
  GstObject *ref = NULL;

  GST_OBJECT_LOCK (owner);
  if (*ctx)
    ref = gst_object_ref (*ctx);
  GST_OBJECT_UNLOCK (owner);
  return ref;
}
