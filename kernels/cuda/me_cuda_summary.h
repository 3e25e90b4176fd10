/* gpumotionest — the motion summary's core reduced on the device.
 *
 * A field's summary (docs/summary.md) needs every cell of its coarsest
 * grid: on the host that is a pass of the streaming thread over the cells
 * after they came down (170 us a 1080p frame), which caps a fast search
 * at a few thousand frames a second.  This reduction runs on the slot's
 * stream right after the field is made, in one thread block, and leaves
 * the MvsCore (gst/motionvectors/summary-rules.h) that the host finishes
 * in a few operations: the same core as the host's, bit for bit (the
 * same rules, the same ranks, IEEE operations with no contraction).
 */
#ifndef ME_CUDA_SUMMARY_H
#define ME_CUDA_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <gst/motionvectors/gstmotionvectortypes.h>
#include "gst/motionvectors/summary-rules.h"

G_BEGIN_DECLS

/* Device bytes the reduction of a grid of `n_blocks` cells works in. */
size_t me_cuda_summary_scratch_bytes (size_t n_blocks);

/* Reduces the grid `cells` (device, row-major, g->cols x g->rows) of shape
 * `partition` into `core` (device) on `stream` (a cudaStream_t), in
 * `scratch` (device, me_cuda_summary_scratch_bytes() of the grid).
 * Returns the launch's cudaError_t. */
int me_cuda_launch_summary (const GstMotionVectorCell *cells,
    const MvsGeometry *g, unsigned partition, void *scratch, MvsCore *core,
    void *stream);

/* The same on host cells, for checks: uploads the grid, reduces it on the
 * current device and downloads the core, synchronously.  FALSE with a
 * message in `error` (freed by the caller) when CUDA fails. */
gboolean me_cuda_summary_on_device (const GstMotionVectorCell *cells,
    const MvsGeometry *g, unsigned partition, MvsCore *core, char **error);

G_END_DECLS

#endif /* ME_CUDA_SUMMARY_H */
