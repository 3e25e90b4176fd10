/* gpumotionest — the output buffer pool of the consumers of fields
 * (mvinterpolate, mvdenoise, mvstabilize): downstream's pool, else one of
 * their own, or for frames in CUDA memory a pool of the frames' context.
 */
#ifndef GST_MC_OUTPUT_H
#define GST_MC_OUTPUT_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* Deactivates and releases *@pool, and sets it to NULL. */
void gst_mc_output_drop_pool (GstBufferPool ** pool);

/* Replaces *@pool with an active pool for frames of @caps (@size bytes) in
 * system memory: the first one downstream offers in the ALLOCATION query
 * through @srcpad, else (none, or it refuses the configuration) a
 * GstVideoBufferPool.  FALSE, *@pool NULL, when none can be configured.
 * A refused pool is logged in @cat, the element's category. */
gboolean gst_mc_output_setup_pool (GstBufferPool ** pool, GstPad * srcpad,
    GstCaps * caps, guint size, GstDebugCategory * cat);

/* Replaces *@pool with an active pool of CUDA memory in @cuda_ctx (NULL:
 * none, a failure), so that the CUDA backend writes the frames in place and
 * they are readable where the input frames were.  FALSE, *@pool NULL, on
 * failure. */
gboolean gst_mc_output_setup_cuda_pool (GstBufferPool ** pool,
    GstObject * cuda_ctx, GstCaps * caps, guint size);

G_END_DECLS

#endif /* GST_MC_OUTPUT_H */
