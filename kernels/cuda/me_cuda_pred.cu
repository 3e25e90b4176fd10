/* gpumotionest — method `predictive` on CUDA (docs/fast-search.md):
 * predictors from the neighbours decided before, then a 3x3 pattern walk.
 *
 * The walk of a macroblock needs the guide winners of its left, top and
 * top-right (else top-left) neighbours in this frame, so macroblocks are
 * decided as a wavefront, as the rate decision is (me_cuda_refine.cu): one
 * warp per macroblock row, rows handed out in the order warps start (a
 * ticket), so the row a warp waits for is always held by a warp that runs.
 * Before macroblock x a warp waits until the row above has decided up to
 * x + 1; each macroblock then sees exactly the neighbours raster order
 * gives it.
 *
 * A guide winner is published as one 64-bit word, the frame's epoch above
 * the vector, so a waiting warp polls the very words it needs (B, and C or
 * D) until they carry this frame's epoch: no fence and no second read on
 * either side, which shortens every step of the chain.  (The rate
 * decision's progress words, with a fence after each block, made every
 * step about twice as long here.)
 *
 * Inside a warp, 8 candidates are costed at once, 4 lanes each (4 rows of
 * the 16x16 block per lane): one round holds every predictor (at most 8),
 * then one round per pattern step (the 8 neighbours of the best).  The
 * wavefront ranks by the 16x16 SAD alone, which is the guide; the 16x16
 * winner is the guide winner, so with 16x16 alone the wavefront is the whole
 * search.  For other shapes it records the candidates it visits (V), each
 * once or nearly, and a second kernel costs V for every requested shape
 * with one warp per macroblock, all macroblocks at once: the serial part of
 * the work stays as short as the guide walk.
 *
 * The guide winners of a frame are the next frame's temporal predictors:
 * the backend keeps them on the device and orders the two frames' kernels
 * (me_cuda_backend.cu).
 *
 * Both kernels are templates over the sample type (me_cuda_pixel.cuh): a
 * lane's 4 rows of 16 samples are 4 words a row for bytes, 8 for 16-bit
 * samples; sums and keys are the same 32-bit sums and full me_key() values.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "fast_rules.h"
#include "me_cuda_fast.cuh"
#include "mvpred_rules.h"

#define PRED_WARPS 4   /* macroblock rows per thread block */
#define SHAPES_WARPS 4 /* macroblocks per thread block */

/* Candidates recorded per macroblock: the predictors
 * (ME_PRED_MAX_PREDICTORS at most, duplicates within a round dropped), the
 * first ring (8), and for each of at most ME_PRED_MAX_STEPS - 1 later
 * rings the candidates not around the centre before (3 after a straight
 * move, 5 after a diagonal one): 172 with one coarse predictor.  The
 * record is the count, then the candidates, padded to 16 bytes. */
#define VISIT_STRIDE \
  ((1 + ME_PRED_MAX_PREDICTORS + 8 + 5 * (ME_PRED_MAX_STEPS - 1) + 3) & ~3)

/* The predictors that do not depend on the row above are costed before
 * the wait: zero, A, the three temporal ones and the coarse ones in one
 * round, the zero vector's neighbours in another; the others (the median,
 * B, C or D) in one round after it. */
static_assert (5 + ME_PRED_COARSE <= 8, "the predictors before the wait "
                                        "fit one round of 8 slots");
static_assert (ME_PRED_ZERO_RING == 8, "the zero vector's neighbours are "
                                       "one round");

size_t
me_cuda_pred_visited_bytes (const MECudaGeometry *g)
{
  return (size_t)g->mb_cols * g->mb_rows * VISIT_STRIDE * sizeof (uint32_t);
}

static __host__ __device__ __forceinline__ uint32_t
pack (int dx, int dy)
{
  return (uint32_t)(uint16_t)(int16_t)dx | (uint32_t)(uint16_t)(int16_t)dy
                                               << 16;
}

static __device__ __forceinline__ int
unpack_x (uint32_t v)
{
  return (int16_t)(v & 0xffff);
}

static __device__ __forceinline__ int
unpack_y (uint32_t v)
{
  return (int16_t)(v >> 16);
}

typedef struct {
  const uint8_t *cur, *ref; /* pixel (0, 0) */
  size_t pitch;
  int mb_cols, mb_rows, range;
  uint64_t *guide;          /* this frame's guide winners, epoch-tagged */
  const uint64_t *temporal; /* the previous frame's, or NULL */
  const uint32_t *coarse;   /* level 2's winner of each macroblock */
  uint32_t epoch;           /* tag of this frame's guide words */
  uint64_t *key16;          /* the 16x16 grid's keys, or NULL */
  uint32_t *visited;        /* VISIT_STRIDE words per macroblock, or NULL */
  unsigned *ticket;
} PredArgs;

/* The guide key of this lane's candidate slot, lanes 4 s .. 4 s + 3 each
 * costing 4 rows of candidate (cx, cy) when `valid`; returns the smallest
 * key of the 8 slots, in every lane. */
template <typename pixel>
static __device__ __forceinline__ uint64_t
round_min (const PredArgs &a, const uint32_t (&c)[4][MeRow<pixel>::W],
    int mbx, int mby, int q, bool valid, int cx, int cy)
{
  constexpr int W = MeRow<pixel>::W;
  uint32_t sad = 0;
  if (valid) {
    uint32_t sel;
    const uint32_t *row = me_fast_ref_row<pixel> (
        a.ref, a.pitch, 16 * mbx + cx, 16 * mby + cy + 4 * q, &sel);
#pragma unroll
    for (int y = 0; y < 4; y++) {
      uint32_t r[W];
      me_fast_row16<pixel> (row + (size_t)y * (a.pitch / 4), sel, r);
#pragma unroll
      for (int k = 0; k < W; k++)
        sad = MePix<pixel>::sad (c[y][k], r[k], sad);
    }
  }
  sad += __shfl_xor_sync (ME_FULL_MASK, sad, 1);
  sad += __shfl_xor_sync (ME_FULL_MASK, sad, 2);
  uint64_t key = valid ? me_key (sad, cx, cy) : ME_KEY_NONE;
#pragma unroll
  for (int off = 4; off < 32; off <<= 1) {
    const uint64_t o = __shfl_xor_sync (ME_FULL_MASK, key, off);
    key = o < key ? o : key;
  }
  return key;
}

/* Appends the candidates of the slots whose lane 4 s has `rec` to the
 * macroblock's record (count in *n, uniform across the warp). */
static __device__ __forceinline__ void
record (uint32_t *vis, int lane, bool rec, int cx, int cy, unsigned *n)
{
  const unsigned mask = __ballot_sync (ME_FULL_MASK, rec && (lane & 3) == 0);
  if (!vis)
    return;
  if (rec && (lane & 3) == 0)
    vis[1 + *n + __popc (mask & ((1u << lane) - 1))] = pack (cx, cy);
  *n += __popc (mask);
}

/* One round of predictors: slot s (lanes 4 s .. 4 s + 3) costs `mine`,
 * its predictor, clamped into the window, when s < np; records them,
 * those equal to an earlier slot's once; returns the smallest key. */
template <typename pixel>
static __device__ __forceinline__ uint64_t
predictor_round (const PredArgs &a, const uint32_t (&c)[4][MeRow<pixel>::W],
    int mbx, int mby, int lane, uint32_t mine, int np, uint32_t *vis,
    unsigned *nv)
{
  const int slot = lane >> 2;
  const int px = me_fast_clamp (unpack_x (mine), a.range);
  const int py = me_fast_clamp (unpack_y (mine), a.range);
  const bool live = slot < np;
  const uint64_t best =
      round_min<pixel> (a, c, mbx, mby, lane & 3, live, px, py);
  if (vis) {
    bool dup = false;
    const uint32_t me = pack (px, py);
#pragma unroll
    for (int j = 0; j < 7; j++) {
      const uint32_t o = __shfl_sync (ME_FULL_MASK, me, 4 * j);
      dup |= j < slot && o == me;
    }
    record (vis, lane, live && !dup, px, py, nv);
  }
  return best;
}

template <typename pixel>
__global__ void
__launch_bounds__ (PRED_WARPS * 32) pred_kernel (const PredArgs a)
{
  constexpr int W = MeRow<pixel>::W;
  const int lane = threadIdx.x & 31, slot = lane >> 2, q = lane & 3;
  const int R = a.range;
  unsigned t = 0;
  if (lane == 0)
    t = atomicAdd (a.ticket, 1u);
  t = __shfl_sync (ME_FULL_MASK, t, 0);
  if (t >= (unsigned)a.mb_rows)
    return;
  const int mby = (int)t;
  volatile uint64_t *guide = a.guide;
  uint32_t left = 0; /* guide winner of the macroblock before */

  for (int mbx = 0; mbx < a.mb_cols; mbx++) {
    const int mb = mby * a.mb_cols + mbx;
    /* what does not depend on the row above, before waiting for it */
    uint32_t c[4][W];
    const uint8_t *cb = a.cur + (size_t)(16 * mby + 4 * q) * a.pitch +
                        (size_t)(16 * mbx) * sizeof (pixel);
#pragma unroll
    for (int y = 0; y < 4; y++)
      me_pix_aligned_words<W> (cb + (size_t)y * a.pitch, c[y]);
    const MEMvpredNeighbours nb =
        me_mvpred_neighbours (0, mbx, mby, a.mb_cols, a.mb_rows);
    uint32_t t0 = 0, t1 = 0, t2 = 0;
    if (a.temporal) {
      t0 = (uint32_t)__ldg (a.temporal + mb);
      if (mbx + 1 < a.mb_cols)
        t1 = (uint32_t)__ldg (a.temporal + mb + 1);
      if (mby + 1 < a.mb_rows)
        t2 = (uint32_t)__ldg (a.temporal + mb + a.mb_cols);
    }
    uint32_t *vis = a.visited ? a.visited + (size_t)mb * VISIT_STRIDE : NULL;
    unsigned nv = 0;

    /* the predictors known before the wait, slot i taking the i-th: zero,
     * A, the temporal ones, the coarse ones (the CPU's order but for the
     * median, B and C, which come after the wait; the best of all is the
     * same in any order) */
    int np = 0;
    uint32_t mine_p = 0;
#define OFFER(cond, v) \
  do { \
    if (cond) { \
      if (np == slot) \
        mine_p = (v); \
      np++; \
    } \
  } while (0)
    OFFER (true, pack (0, 0));
    OFFER (nb.a >= 0, left);
    OFFER (a.temporal != NULL, t0);
    OFFER (a.temporal && mbx + 1 < a.mb_cols, t1);
    OFFER (a.temporal && mby + 1 < a.mb_rows, t2);
#pragma unroll
    for (int i = 0; i < ME_PRED_COARSE; i++) {
      const int x = mbx + me_pred_coarse_offset (i, 0);
      const int y = mby + me_pred_coarse_offset (i, 1);
      const bool in = x >= 0 && y >= 0 && x < a.mb_cols && y < a.mb_rows;
      const uint32_t v = in ? __ldg (a.coarse + y * a.mb_cols + x) : 0;
      OFFER (in, pack (ME_PRED_COARSE_SCALE * unpack_x (v),
                     ME_PRED_COARSE_SCALE * unpack_y (v)));
    }
    uint64_t best =
        predictor_round<pixel> (a, c, mbx, mby, lane, mine_p, np, vis, &nv);
    /* the zero vector's neighbours, ring slot k each (R >= 1: all inside) */
    const int k = slot < 4 ? slot : slot + 1; /* skip the centre */
    const uint64_t ring_zero = predictor_round<pixel> (a, c, mbx, mby, lane,
        pack (k % 3 - 1, k / 3 - 1), 8, vis, &nv);
    best = ring_zero < best ? ring_zero : best;
    /* The walk's first ring around the left neighbour's winner, also
     * before waiting: where that winner is the best predictor too, as in
     * most of a smooth field, the walk's first step is then already
     * costed, and the chain of macroblocks waits for one round less.
     * Ring slot k is the same square position in both rings; around the
     * zero vector it is the round just costed. */
    const int sx = me_fast_clamp (unpack_x (left), R);
    const int sy = me_fast_clamp (unpack_y (left), R);
    const uint64_t ring_left = sx == 0 && sy == 0
        ? ring_zero
        : round_min<pixel> (a, c, mbx, mby, q,
              me_fast_inside (sx + k % 3 - 1, sy + k / 3 - 1, R),
              sx + k % 3 - 1, sy + k / 3 - 1);

    /* B (lane 0) and C or D (lane 1) from the row above, once published */
    uint32_t g = 0;
    const int want = lane == 0 ? nb.b : lane == 1 ? nb.c : -1;
    if (want >= 0) {
      uint64_t w;
      do
        w = guide[want];
      while ((uint32_t)(w >> 32) != a.epoch);
      g = (uint32_t)w;
    }
    const uint32_t ga = left; /* A */
    const uint32_t gb = __shfl_sync (ME_FULL_MASK, g, 0);
    const uint32_t gc = __shfl_sync (ME_FULL_MASK, g, 1);
    int mx, my;
    me_mvpred_combine (0, mbx, mby, nb, unpack_x (ga), unpack_y (ga),
        unpack_x (gb), unpack_y (gb), unpack_x (gc), unpack_y (gc), &mx, &my);

    /* the predictors that the row above gives */
    np = 0;
    mine_p = 0;
    OFFER (true, pack (mx, my));
    OFFER (nb.b >= 0, gb);
    OFFER (nb.c >= 0, gc);
#undef OFFER
    const uint64_t after =
        predictor_round<pixel> (a, c, mbx, mby, lane, mine_p, np, vis, &nv);
    best = after < best ? after : best;

    /* the pattern: the 3x3 square around the best while it moves */
    int pcx = 0, pcy = 0;
    for (int step = 0; step < ME_PRED_MAX_STEPS; step++) {
      const int cx = me_key_dx (best), cy = me_key_dy (best);
      const int ox = cx + k % 3 - 1, oy = cy + k / 3 - 1;
      const bool in = me_fast_inside (ox, oy, R);
      /* the same in every lane: best is */
      const uint64_t next = step == 0 && cx == 0 && cy == 0 ? ring_zero
          : step == 0 && cx == sx && cy == sy
          ? ring_left
          : round_min<pixel> (a, c, mbx, mby, q, in, ox, oy);
      if (vis) {
        /* around the centre before, everything was visited already */
        const bool fresh =
            step == 0 || max (abs (ox - pcx), abs (oy - pcy)) > 1;
        record (vis, lane, in && fresh, ox, oy, &nv);
      }
      if (next >= best)
        break;
      pcx = cx;
      pcy = cy;
      best = next;
    }

    left = pack (me_key_dx (best), me_key_dy (best));
    if (lane == 0) {
      guide[mb] = (uint64_t)a.epoch << 32 | left;
      if (a.key16)
        a.key16[mb] = best;
      if (vis)
        vis[0] = nv;
    }
  }
}

/* Every requested shape over the visited candidates: one warp per
 * macroblock, the lanes sharing out its candidates. */
typedef struct {
  const uint8_t *cur, *ref; /* pixel (0, 0) */
  size_t pitch;
  unsigned mb_cols, n_mbs;
  const uint32_t *visited;
  unsigned partitions;
  uint64_t *keys[GST_MOTION_VECTOR_PARTITION_COUNT];
} ShapesArgs;

template <int BS, typename pixel>
__global__ void
__launch_bounds__ (SHAPES_WARPS * 32) shapes_kernel (const ShapesArgs a)
{
  const unsigned mb = blockIdx.x * SHAPES_WARPS + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (mb >= a.n_mbs)
    return; /* the whole warp */
  const int mby = (int)(mb / a.mb_cols), mbx = (int)(mb % a.mb_cols);
  const uint32_t *vis = a.visited + (size_t)mb * VISIT_STRIDE;
  const int n = (int)vis[0];

  uint64_t best[MeSplit<BS>::NI];
#pragma unroll
  for (int i = 0; i < MeSplit<BS>::NI; i++)
    best[i] = ME_KEY_NONE;
  if (lane < n) {
    uint32_t c[16][MeRow<pixel>::W];
    me_fast_load_block<pixel> (a.cur, a.pitch, mbx, mby, c);
    for (int i = lane; i < n; i += 32) {
      const uint32_t v = vis[1 + i];
      me_fast_visit<BS, pixel> (c, a.ref, a.pitch, mbx, mby, unpack_x (v),
          unpack_y (v), a.partitions, best);
    }
  }
  me_fast_store<BS> (best, a.partitions, a.keys, a.mb_cols, mbx, mby);
}

cudaError_t
me_cuda_launch_pred (const uint8_t *cur, const uint8_t *ref,
    const MECudaGeometry *g, unsigned range, unsigned partitions,
    uint64_t *keys, uint64_t *guide, const uint64_t *temporal,
    const uint32_t *coarse, uint32_t epoch, uint32_t *visited,
    unsigned *progress, cudaStream_t stream)
{
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  const size_t origin = (size_t)ME_CUDA_PAD * g->pitch + ME_CUDA_PAD * g->bps;
  /* the wavefront writes the 16x16 grid; the rest need the second pass */
  const unsigned rest = partitions & ~GST_MOTION_VECTOR_PARTITIONS_16X16;

  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);

  PredArgs a;
  a.cur = cur + origin;
  a.ref = ref + origin;
  a.pitch = g->pitch;
  a.mb_cols = (int)g->mb_cols;
  a.mb_rows = (int)g->mb_rows;
  a.range = (int)range;
  a.guide = guide;
  a.temporal = temporal;
  a.coarse = coarse;
  a.epoch = epoch;
  a.key16 = (partitions & GST_MOTION_VECTOR_PARTITIONS_16X16) ? keys : NULL;
  a.visited = rest ? visited : NULL;
  a.ticket = progress;
  cudaError_t e = cudaMemsetAsync (progress, 0, sizeof (unsigned), stream);
  if (e != cudaSuccess)
    return e;
  const unsigned pred_blocks = (g->mb_rows + PRED_WARPS - 1) / PRED_WARPS;
  if (g->bps == 2)
    pred_kernel<uint16_t><<<pred_blocks, PRED_WARPS * 32, 0, stream>>> (a);
  else
    pred_kernel<uint8_t><<<pred_blocks, PRED_WARPS * 32, 0, stream>>> (a);
  e = cudaGetLastError ();
  if (e != cudaSuccess || !rest)
    return e;

  ShapesArgs b;
  b.cur = a.cur;
  b.ref = a.ref;
  b.pitch = g->pitch;
  b.mb_cols = g->mb_cols;
  b.n_mbs = g->mb_cols * g->mb_rows;
  b.visited = visited;
  b.partitions = rest;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    b.keys[p] = keys + offsets[p];
  const unsigned blocks = (b.n_mbs + SHAPES_WARPS - 1) / SHAPES_WARPS;
  const bool split8 = me_fast_split (rest) == 8;
  if (g->bps == 2) {
    if (split8)
      shapes_kernel<8, uint16_t><<<blocks, SHAPES_WARPS * 32, 0, stream>>> (b);
    else
      shapes_kernel<4, uint16_t><<<blocks, SHAPES_WARPS * 32, 0, stream>>> (b);
  } else {
    if (split8)
      shapes_kernel<8, uint8_t><<<blocks, SHAPES_WARPS * 32, 0, stream>>> (b);
    else
      shapes_kernel<4, uint8_t><<<blocks, SHAPES_WARPS * 32, 0, stream>>> (b);
  }
  return cudaGetLastError ();
}
