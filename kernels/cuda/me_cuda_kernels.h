/* gpumotionest — CUDA kernels of the search: launch functions.
 *
 * Device frame layout (one buffer per frame, written by the upload path):
 * the luma plane sits at (ME_CUDA_PAD, ME_CUDA_PAD) inside a buffer of
 * `pitch` x (mb_rows * 16 + 2 * ME_CUDA_PAD) bytes, and every sample around
 * it holds the nearest frame pixel (edge replication).  The current frame's
 * macroblock padding and the reference's extension beyond its edges both fall
 * out of that one layout, so the search reads with no bounds checks.
 *
 * Samples are of one of two types, MECudaGeometry.bps bytes each: one byte
 * (8-bit frames), or one uint16_t holding the sample itself, already
 * shifted down and masked to its depth (frames of 9 to 16 bits, whatever
 * their words held around it: me_cuda_launch_import16()).  For either:
 *
 *   - `pitch` is in bytes, a multiple of 128: row y starts at byte
 *     y * pitch, and sample x of it at byte x * bps;
 *   - ME_CUDA_PAD, the border, is in samples (so 2 x ME_CUDA_PAD bytes of
 *     a 16-bit row): pixel (x, y) of the frame is at byte
 *     (ME_CUDA_PAD + y) * pitch + (ME_CUDA_PAD + x) * bps;
 *   - a window offset or vector of dx samples moves a pointer by dx * bps
 *     bytes, dy rows by dy * pitch bytes.
 *
 * Every launch function takes byte pointers and dispatches on g->bps to the
 * kernels of its sample type; sums and keys are computed on the samples as
 * they are (a 16x16 SAD of 16-bit samples reaches 256 x 65535, within
 * 32 bits and the key's 28-bit cost).  The half-sample planes, pyramid
 * levels and every other per-frame buffer hold samples of the frame's type
 * in the same manner.
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

/* C linkage, so that C (a benchmark) can call the launches directly. */
G_BEGIN_DECLS

/* Border around the plane, in pixels (samples, of either type): the largest
 * search range (ME_MAX_RANGE = 256, the fast methods) plus what reads around
 * a window position add: the aligned 20-byte row reads of the integer search
 * (up to 3 bytes before and 4 after a row; 36 bytes for 16-bit samples, up
 * to 1 sample before and 2 after), and for stage 3 a candidate up to
 * range + 1 pixels out whose half-sample taps and aligned loads reach 8
 * more; every position read is at least 16 pixels inside the buffer (the
 * half-sample planes are computed for positions 2 pixels in).  A multiple
 * of 16 so that every macroblock row starts 16-byte aligned (32-byte for
 * 16-bit samples). */
#define ME_CUDA_PAD 288

typedef struct {
  unsigned width, height; /* the plane, pixels */
  unsigned mb_cols, mb_rows;
  unsigned bps; /* bytes per sample: 1 (8-bit), 2 (9 to 16 bits) */
  size_t pitch; /* bytes per buffer row, multiple of 128 */
  size_t rows;  /* buffer rows */
} MECudaGeometry;

/* The layout of frames of width x height with samples of `bps` bytes. */
void me_cuda_geometry_init (
    MECudaGeometry *g, unsigned width, unsigned height, unsigned bps);

static inline size_t
me_cuda_frame_bytes (const MECudaGeometry *g)
{
  return g->pitch * g->rows;
}

/* Fills the border of a frame whose plane was copied in. */
cudaError_t me_cuda_launch_pad (
    uint8_t *frame, const MECudaGeometry *g, cudaStream_t stream);

/* The plane of a 16-bit frame (g->bps 2) from words of 16 bits: sample
 * (x, y) = (word at byte y * src_stride + 2 x of `src` >> shift) masked to
 * `depth` bits, written at pixel (x, y) of `frame`.  `src` may be that
 * plane itself (the words copied there as they are: each sample is read
 * and written by one thread), or any device memory. The border is left to
 * me_cuda_launch_pad(). */
cudaError_t me_cuda_launch_import16 (uint8_t *frame, const MECudaGeometry *g,
    const uint8_t *src, size_t src_stride, unsigned shift, unsigned depth,
    cudaStream_t stream);

/* ---- batches ------------------------------------------------------------
 *
 * The full search, the key reset and the finish also run over a batch of
 * up to ME_CUDA_BATCH_MAX frames of one geometry and one setting in one
 * launch each (a grid row per frame), for frames of different sessions
 * sharing a device (me_cuda_batch.h).  A frame's result does not depend on
 * the batch it is in: the launch functions for one frame are batches of
 * one. */
#define ME_CUDA_BATCH_MAX 16

typedef struct {
  const uint8_t *cur, *ref; /* ref: at the window's centre */
  uint64_t *keys;           /* every requested grid, as for one frame */
  GstMotionVectorCell *cells;
} MECudaBatchFrame;

typedef struct {
  uint64_t *keys[ME_CUDA_BATCH_MAX];
} MECudaBatchKeys;

cudaError_t me_cuda_launch_search_batch (const MECudaBatchFrame *frames,
    unsigned n, const MECudaGeometry *g, unsigned range, unsigned range_y,
    unsigned partitions, int sm_count, cudaStream_t stream);

/* The same with the dy range split into `chunks` balanced runs per
 * (macroblock, dx) thread, 0: the launch's own choice (a benchmark's
 * measure of the work split). */
cudaError_t me_cuda_launch_search_split (const MECudaBatchFrame *frames,
    unsigned n, const MECudaGeometry *g, unsigned range, unsigned range_y,
    unsigned partitions, int sm_count, unsigned chunks, cudaStream_t stream);

/* The first `nkeys` keys of each frame to ME_KEY_NONE. */
cudaError_t me_cuda_launch_key_reset_batch (const MECudaBatchFrame *frames,
    unsigned n, size_t nkeys, cudaStream_t stream);

cudaError_t me_cuda_launch_finish_batch (const MECudaBatchFrame *frames,
    unsigned n, const MECudaGeometry *g, unsigned partitions, int offset_qx,
    cudaStream_t stream);

/* Searches every macroblock of `cur` against `ref` over [-range, range] x
 * [-range_y, range_y] for the requested shapes, lowering `keys` (laid out by
 * gst_motion_vector_grid_offsets). `sm_count` sizes the work split. */
cudaError_t me_cuda_launch_search (const uint8_t *cur, const uint8_t *ref,
    const MECudaGeometry *g, unsigned range, unsigned range_y,
    unsigned partitions, uint64_t *keys, int sm_count, cudaStream_t stream);

/* ---- exact elimination (docs/elimination.md, me_cuda_esa.cu) ------------
 *
 * The full search with candidates that provably cannot win left uncosted:
 * the same keys as me_cuda_launch_search.  `sums` is a plane of
 * me_cuda_sums_bytes (g) bytes that me_cuda_launch_sums4 fills with the
 * reference's 4x4 block sums (a 32-bit sum per sample position of the
 * device frame, laid out as its samples); `ref` is the reference frame
 * itself and `offset_x` the window's centre across (whole pixels), with
 * |offset_x| + range <= ME_MAX_RANGE. */
size_t me_cuda_sums_bytes (const MECudaGeometry *g);

cudaError_t me_cuda_launch_sums4 (const uint8_t *frame,
    const MECudaGeometry *g, uint32_t *sums, cudaStream_t stream);

/* `costed` (may be NULL) gains the number of candidates the search costed
 * (the rest were skipped): the backend's fallback to the plain kernel on
 * content where pruning does not pay reads it. */
cudaError_t me_cuda_launch_search_esa (const uint8_t *cur, const uint8_t *ref,
    const uint32_t *sums, int offset_x, const MECudaGeometry *g,
    unsigned range, unsigned range_y, unsigned partitions, uint64_t *keys,
    unsigned long long *costed, cudaStream_t stream);

/* ---- the fast methods (docs/fast-search.md) ------------------------------
 *
 * Each writes the same integer winner keys as me_cuda_launch_search (every
 * cell of every requested grid), so stage 3 and the finish run unchanged
 * after it.  `cur` and `ref` are device frames as above. */

/* mods: a thread per (macroblock, column x of the window); keys must be
 * ME_KEY_NONE on entry (they are lowered with atomicMin). */
cudaError_t me_cuda_launch_mods (const uint8_t *cur, const uint8_t *ref,
    const MECudaGeometry *g, unsigned range, unsigned partitions,
    uint64_t *keys, cudaStream_t stream);

/* hierarchical: levels 1 and 2 of a frame, each extended by edge
 * replication of its own samples, in one buffer of me_cuda_pyramid_bytes().
 * Samples are of the frame's type (g->bps bytes); pitches and offsets are
 * in bytes, the levels' borders in samples, as for the frame. */
typedef struct {
  size_t pitch[2], rows[2]; /* level 1, level 2 */
  size_t offset[2];         /* of each level in the buffer */
} MECudaPyramid;

void me_cuda_pyramid_init (MECudaPyramid *pyr, const MECudaGeometry *g);

static inline size_t
me_cuda_pyramid_bytes (const MECudaPyramid *pyr)
{
  return pyr->offset[1] + pyr->pitch[1] * pyr->rows[1];
}

cudaError_t me_cuda_launch_pyramid (const uint8_t *frame, uint8_t *pyramid,
    const MECudaGeometry *g, cudaStream_t stream);

/* The search over the pyramids of cur and ref; writes every cell. */
cudaError_t me_cuda_launch_hier (const uint8_t *cur, const uint8_t *ref,
    const uint8_t *cur_pyramid, const uint8_t *ref_pyramid,
    const MECudaGeometry *g, unsigned range, unsigned partitions,
    uint64_t *keys, uint32_t *vecs, cudaStream_t stream);

/* Level 2 of that search alone (predictive's coarse predictors): each
 * macroblock's level-2 winner, dx and dy as int16, into vecs[mb]. */
cudaError_t me_cuda_launch_coarse (const uint8_t *cur_pyramid,
    const uint8_t *ref_pyramid, const MECudaGeometry *g, unsigned range,
    uint32_t *vecs, cudaStream_t stream);

/* Bytes of the `vecs` scratch me_cuda_launch_hier needs: levels 2 and 1's
 * winners, a word per macroblock each. */
static inline size_t
me_cuda_hier_vecs_bytes (const MECudaGeometry *g)
{
  return 2 * sizeof (uint32_t) * g->mb_cols * g->mb_rows;
}

/* predictive: the guide walk as a wavefront over macroblock rows, writing
 * this frame's guide winners (`guide`, one word per macroblock: `epoch`
 * above dx and dy as int16) from the previous frame's (`temporal`, NULL:
 * none) and the level-2 winners of me_cuda_launch_coarse() (`coarse`),
 * and for shapes other than 16x16 then every shape over the
 * candidates it visited.  `epoch` must differ from the tag of every word
 * already in `guide` (0 after a clear).  Needs ME_CUDA_PROGRESS_WORDS of
 * `progress` and, when shapes other than 16x16 are asked for, `visited` of
 * me_cuda_pred_visited_bytes(). */
cudaError_t me_cuda_launch_pred (const uint8_t *cur, const uint8_t *ref,
    const MECudaGeometry *g, unsigned range, unsigned partitions,
    uint64_t *keys, uint64_t *guide, const uint64_t *temporal,
    const uint32_t *coarse, uint32_t epoch, uint32_t *visited,
    unsigned *progress, cudaStream_t stream);

size_t me_cuda_pred_visited_bytes (const MECudaGeometry *g);

/* The half-sample planes H, V, C of `ref` into `hpel` (3 frame buffers,
 * one after the other), for sub-pel refinement (me_cuda_refine.cu) of a
 * search of range `range`: only where that reads.  `maxv` is the largest
 * sample, where the interpolation clips: 255 for 8-bit frames, 2^depth - 1
 * for deeper ones. */
cudaError_t me_cuda_launch_hpel (const uint8_t *ref, uint8_t *hpel,
    const MECudaGeometry *g, unsigned range, int maxv, cudaStream_t stream);

/* Stage 3: refines the integer keys `keys` into `out` (MERefine,
 * MEMetric; the same array but with lambda, which is the one scaled to the
 * frames' depth, me_lambda_at_depth()); with lambda, then the
 * rate-constrained choice in decoding order, which needs `zero`, one word
 * per cell (laid out as the keys), and `progress`, ME_CUDA_PROGRESS_WORDS
 * unsigned words of device memory, and leaves `keys` overwritten.  `hpel`
 * may be NULL when refine is ME_REFINE_NONE. */
cudaError_t me_cuda_launch_refine (const uint8_t *cur, const uint8_t *ref,
    const uint8_t *hpel, const MECudaGeometry *g, unsigned partitions,
    int refine, int metric, unsigned range, unsigned range_y, unsigned lambda,
    uint64_t *keys, uint64_t *out, uint32_t *zero, unsigned *progress,
    cudaStream_t stream);

/* Words of `progress` for a frame: one per macroblock row (predictive) or
 * per warp of rows (the rate decision) and one more; 4x4 rows of an
 * 8192-row frame, times seven shapes, fit. */
#define ME_CUDA_PROGRESS_WORDS (7 * 2048 + 1)

/* Turns keys into cells: vector, cost, H.264 prediction and MVD.  The
 * keys' vectors are relative to a window centred at (offset_qx, 0) quarter
 * pixels (MESearchParams.offset_x), which the cells' vectors add. */
cudaError_t me_cuda_launch_finish (const uint64_t *keys,
    GstMotionVectorCell *cells, const MECudaGeometry *g, unsigned partitions,
    int offset_qx, cudaStream_t stream);

G_END_DECLS

#endif /* ME_CUDA_KERNELS_H */
