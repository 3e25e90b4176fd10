/* gpumotionest — CUDA kernels of the full search: launch functions.
 *
 * Device frame layout (one buffer per frame, written by the upload path):
 * the luma plane sits at (ME_CUDA_PAD, ME_CUDA_PAD) inside a buffer of
 * `pitch` x (mb_rows * 16 + 2 * ME_CUDA_PAD) bytes, and every byte around it
 * holds the nearest frame pixel (edge replication).  The current frame's
 * macroblock padding and the reference's extension beyond its edges both fall
 * out of that one layout, so the search reads with no bounds checks.
 *
 * Search results are 64-bit me_key() values, one per cell of every requested
 * grid, laid out grid after grid in shape order (only requested shapes), each
 * grid row-major.  They start at ME_KEY_NONE and are lowered with atomicMin;
 * keys are unique, so the result is independent of the order.
 */
#ifndef ME_CUDA_KERNELS_H
#define ME_CUDA_KERNELS_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <gst/motionvectors/gstmotionvectortypes.h>

/* Border around the plane, in pixels: the search range (at most 128) plus
 * the 16 pixels of a block plus slack for the aligned 20-byte row reads;
 * a multiple of 16 so that every macroblock row starts 16-byte aligned. */
#define ME_CUDA_PAD 160

typedef struct {
  unsigned width, height; /* the plane, pixels */
  unsigned mb_cols, mb_rows;
  size_t pitch; /* bytes per buffer row, multiple of 128 */
  size_t rows;  /* buffer rows */
} MECudaGeometry;

void me_cuda_geometry_init (MECudaGeometry *g, unsigned width, unsigned height);

static inline size_t
me_cuda_frame_bytes (const MECudaGeometry *g)
{
  return g->pitch * g->rows;
}

/* Fills the border of a frame whose plane was copied in. */
cudaError_t me_cuda_launch_pad (
    uint8_t *frame, const MECudaGeometry *g, cudaStream_t stream);

/* Searches every macroblock of `cur` against `ref` over [-range, range]^2 for
 * the requested shapes, lowering `keys` (laid out by
 * gst_motion_vector_grid_offsets). `sm_count` sizes the work split. */
cudaError_t me_cuda_launch_search (const uint8_t *cur, const uint8_t *ref,
    const MECudaGeometry *g, unsigned range, unsigned partitions,
    uint64_t *keys, int sm_count, cudaStream_t stream);

/* The half-sample planes H, V, C of `ref` into `hpel` (3 frame buffers,
 * one after the other), for sub-pel refinement (me_cuda_refine.cu). */
cudaError_t me_cuda_launch_hpel (const uint8_t *ref, uint8_t *hpel,
    const MECudaGeometry *g, cudaStream_t stream);

/* Stage 3: refines the integer keys `keys` into `out` (MERefine,
 * MEMetric; the same array but with lambda); with lambda, then the
 * rate-constrained choice in decoding order, which needs `progress`,
 * ME_CUDA_PROGRESS_WORDS unsigned words of device memory.  `hpel` may be
 * NULL when refine is ME_REFINE_NONE. */
cudaError_t me_cuda_launch_refine (const uint8_t *cur, const uint8_t *ref,
    const uint8_t *hpel, const MECudaGeometry *g, unsigned partitions,
    int refine, int metric, unsigned range, unsigned lambda, uint64_t *keys,
    uint64_t *out, unsigned *progress, cudaStream_t stream);

/* Words of `progress` for a frame: one per row of every grid and one more;
 * 4x4 rows of an 8192-row frame, times seven shapes, fit. */
#define ME_CUDA_PROGRESS_WORDS (7 * 2048 + 1)

/* Turns keys into cells: vector, cost, H.264 prediction and MVD. */
cudaError_t me_cuda_launch_finish (const uint64_t *keys,
    GstMotionVectorCell *cells, const MECudaGeometry *g, unsigned partitions,
    cudaStream_t stream);

#endif /* ME_CUDA_KERNELS_H */
