/* gpumotionest — the backend the consumers of fields (mvinterpolate,
 * mvdenoise, mvstabilize) run the mc library on: their backend property
 * (auto, cpu, cuda) resolved to an MCImpl, and the CUDA backend's session
 * in the frames' CUDA context.
 */
#ifndef GST_MC_BACKEND_H
#define GST_MC_BACKEND_H

#include <gst/gst.h>

#include "mc.h"

G_BEGIN_DECLS

/* The values of each element's backend property; every element's own enum
 * type numbers auto, cpu and cuda alike. */
typedef enum {
  GST_MC_BACKEND_AUTO,
  GST_MC_BACKEND_CPU,
  GST_MC_BACKEND_CUDA,
} GstMcBackendChoice;

/* Held in each element.  requested and changed are the property, under the
 * element's object lock; the rest belongs to the streaming thread. */
typedef struct {
  GstDebugCategory *cat;        /* the element's, for the log */
  gint requested;               /* a GstMcBackendChoice */
  gboolean changed;             /* requested set since the last resolve */
  gboolean resolved;            /* impl and is_cuda hold for requested */
  gboolean is_cuda;
  const MCImpl *impl;
  MCCudaSession *session;       /* the CUDA backend's state in ... */
  GstObject *session_ctx;       /* ... this context, held so that the
                                 * session can always be freed in it */
} GstMcBackend;

/* Sets up @backend (zeroed, in the element's instance) to log in @cat. */
void gst_mc_backend_init (GstMcBackend * backend, GstDebugCategory * cat,
    gint requested);

/* The property's value; the caller holds the object lock. */
void gst_mc_backend_request (GstMcBackend * backend, gint requested);

/* The implementation for the backend asked for, chosen once until the
 * property changes or resolved is cleared: cpu the CPU; auto CUDA when
 * usable, else the CPU; cuda CUDA, else NULL with @error.  @owner is the
 * element, for its object lock and the log. */
const MCImpl *gst_mc_backend_resolve (GstMcBackend * backend,
    GstObject * owner, GError ** error);

/* The CUDA backend's session in @ctx (current), made on first use there
 * (a session of another context is freed first); NULL with @error on
 * failure. */
MCCudaSession *gst_mc_backend_session (GstMcBackend * backend,
    GstObject * ctx, GError ** error);

/* Frees the session in the context it was made in. */
void gst_mc_backend_drop_session (GstMcBackend * backend);

/* *@ctx, a CUDA context kept under @owner's object lock, referenced (NULL:
 * none). */
GstObject *gst_mc_cuda_context_ref (GstObject * owner, GstObject ** ctx);

G_END_DECLS

#endif /* GST_MC_BACKEND_H */
