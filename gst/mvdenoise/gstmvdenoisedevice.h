/* gpumotionest — mvdenoise: frames in system memory on the GPU, each
 * uploaded once.
 *
 * With backend=cuda and frames in system memory, every output frame reads
 * its own frame and up to 8 neighbours: handed to the library as host
 * planes, each would go up again for every frame that uses it (9 times at
 * radius 4), plane by plane from pageable memory.  Instead the first use
 * of a frame copies its buffer's memory to the device whole, the copy is
 * kept on the buffer (qdata) while the element holds it, and the planes
 * are handed over as device planes at the same offsets.
 */
#ifndef GST_MV_DENOISE_DEVICE_H
#define GST_MV_DENOISE_DEVICE_H

#include <gst/video/video.h>
#include "mc.h"

G_BEGIN_DECLS

/* pic (the planes of `frame`, a mapping of `buf`, as
 * gst_mc_picture_from_frame() or gst_mc_extra_from_frame() gave them)
 * moved onto buf's device copy, made now if buf has none: TRUE, or FALSE
 * with pic untouched when buf is not one memory, a plane lies outside it,
 * or the copy failed (the caller then hands over host planes). */
gboolean gst_mv_denoise_device_picture (GstBuffer * buf,
    const GstVideoFrame * frame, MCPicture * pic);

/* Frees buf's device copy, if it has one (the element lets go of it; a
 * pool may hand the same buffer back with other pixels). */
void gst_mv_denoise_device_forget (GstBuffer * buf);

G_END_DECLS

#endif /* GST_MV_DENOISE_DEVICE_H */
