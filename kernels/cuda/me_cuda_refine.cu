/* gpumotionest — stage 3 on the GPU: the half-sample planes of the
 * reference and the sub-pel refinement of every block (me_search.h), by the
 * rules the CPU uses (subpel_rules.h), so that both give the same keys.
 *
 * The half-sample planes H, V, C are laid out as the device frame is
 * (me_cuda_kernels.h) and computed for every position whose taps lie in the
 * frame buffer; with a border of ME_CUDA_PAD pixels that covers every
 * position a candidate within +-(range + 1) reads.
 *
 * Refinement: a group of lanes per block of every requested grid (a whole
 * warp for 8x8 and larger, 8 or 16 lanes for the small shapes, so that a
 * warp refines 4 or 2 of them).  The block's 4x4 sub-blocks (n4 = 1 .. 16)
 * are shared out to n4 lanes, so a group costs several candidates at once:
 * each lane computes the SAD or SATD of its sub-block for its candidate,
 * reading four pixels per load, the lanes of a candidate add theirs with
 * shuffles, and the group keeps the smallest me_key_qpel().  The first round
 * holds the integer winner and its 8 half-pel neighbours, the second the 8
 * quarter-pel neighbours of the best.  The refined key replaces the integer
 * one in place; the finish kernel runs after it.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_cuda_kernels.h"
#include "me_search.h"
#include "subpel_rules.h"

#define HPEL_THREADS 256
#define REFINE_WARPS 8 /* warps per thread block */
#define FULL_MASK 0xffffffffu

/* ---- the half-sample planes --------------------------------------------- */

__global__ void
__launch_bounds__ (HPEL_THREADS) hpel_kernel (const uint8_t *__restrict__ f,
    uint8_t *__restrict__ hp, size_t pitch, size_t rows)
{
  const size_t x = (size_t)blockIdx.x * HPEL_THREADS + threadIdx.x + 2;
  const size_t y = (size_t)blockIdx.y + 2;
  if (x + 3 >= pitch)
    return;
  const size_t o = y * pitch + x, plane = pitch * rows;
  hp[o] = me_hpel_h (f + o, (ptrdiff_t)pitch);
  hp[plane + o] = me_hpel_v (f + o, (ptrdiff_t)pitch);
  hp[2 * plane + o] = me_hpel_c (f + o, (ptrdiff_t)pitch);
}

cudaError_t
me_cuda_launch_hpel (const uint8_t *ref, uint8_t *hpel,
    const MECudaGeometry *g, cudaStream_t stream)
{
  const dim3 grid ((unsigned)((g->pitch - 5 + HPEL_THREADS - 1) / HPEL_THREADS),
      (unsigned)(g->rows - 5));
  hpel_kernel<<<grid, HPEL_THREADS, 0, stream>>> (ref, hpel, g->pitch, g->rows);
  return cudaGetLastError ();
}

/* ---- refinement ----------------------------------------------------------- */

typedef struct {
  const uint8_t *cur;      /* pixel (0, 0) of the current frame */
  const uint8_t *plane[4]; /* pixel (0, 0) of F, H, V, C of the reference */
  size_t pitch;
  uint64_t *keys[GST_MOTION_VECTOR_PARTITION_COUNT];
  unsigned cells[GST_MOTION_VECTOR_PARTITION_COUNT];
  unsigned first[GST_MOTION_VECTOR_PARTITION_COUNT + 1]; /* warp ranges */
  unsigned mb_cols;
  int refine, satd;
} RefineArgs;

/* Lanes given to one block: 8 candidate slots of n4 lanes, at most a warp
 * (n4 = number of its 4x4 sub-blocks, a power of two).  A round of 8 or 9
 * candidates then takes one or two passes whatever the shape, and small
 * blocks share a warp instead of leaving most of it idle. */
static __host__ __device__ constexpr int
group_lanes (int n4)
{
  return n4 >= 4 ? 32 : 8 * n4;
}

/* Four bytes from any address: two aligned words and a funnel shift (the
 * planes have a border, so the word after is always readable). */
static __device__ __forceinline__ uint32_t
load4 (const uint8_t *p)
{
  const uintptr_t a = (uintptr_t)p;
  const uint32_t *w = (const uint32_t *)(a & ~(uintptr_t)3);
  return __funnelshift_r (w[0], w[1], (unsigned)(a & 3) * 8);
}

/* Cost of 4x4 sub-block (x0, y0) (frame pixels, x0 a multiple of 4) at
 * quarter-pel (qx, qy): rows of four pixels at a time, the prediction by
 * __vavgu4, which is (A + B + 1) >> 1 per byte. */
static __device__ __forceinline__ uint32_t
sub_cost (const RefineArgs &a, int x0, int y0, int qx, int qy)
{
  const unsigned v = me_subpel_pair (qx & 3, qy & 3);
  const unsigned va = v & 15, vb = v >> 4;
  const ptrdiff_t p = (ptrdiff_t)a.pitch;
  const ptrdiff_t at = (ptrdiff_t)(y0 + (qy >> 2)) * p + x0 + (qx >> 2);
  const uint8_t *pa =
      a.plane[ME_SP_PLANE (va)] + at + ME_SP_DY (va) * p + ME_SP_DX (va);
  const uint8_t *pb =
      a.plane[ME_SP_PLANE (vb)] + at + ME_SP_DY (vb) * p + ME_SP_DX (vb);
  const uint8_t *c = a.cur + (ptrdiff_t)y0 * p + x0;
  uint32_t cw[4], pw[4];
#pragma unroll
  for (int y = 0; y < 4; y++) {
    cw[y] = *(const uint32_t *)(c + y * p);
    pw[y] = __vavgu4 (load4 (pa + y * p), load4 (pb + y * p));
  }
  if (!a.satd) {
    uint32_t s = 0;
#pragma unroll
    for (int y = 0; y < 4; y++)
      s += __vsadu4 (cw[y], pw[y]);
    return s;
  }
  int d[16];
#pragma unroll
  for (int y = 0; y < 4; y++)
#pragma unroll
    for (int x = 0; x < 4; x++)
      d[4 * y + x] =
          (int)((cw[y] >> (8 * x)) & 255) - (int)((pw[y] >> (8 * x)) & 255);
  return me_satd4x4 (d);
}

/* Candidate i of a round around (cx, cy): 0 the centre, 1 .. 8 the ring at
 * `step` quarter pixels. */
static __device__ __forceinline__ void
ring (int i, int step, int *dx, int *dy)
{
  const int k = i < 5 ? i - 1 : i; /* skip the centre, index 4 of 3x3 */
  *dx = i == 0 ? 0 : (k % 3 - 1) * step;
  *dy = i == 0 ? 0 : (k / 3 - 1) * step;
}

/* The best key of candidates first .. first + n - 1 of a round, for the
 * block of this lane's group (L lanes from lane `g0`); `live`: the group
 * has a block.  Every lane of the warp takes part in the shuffles. */
static __device__ uint64_t
round_best (const RefineArgs &a, bool live, int bx, int by, int bw, int n4,
    int L, int lane, int cx, int cy, int step, int first, int n)
{
  const int per = L / n4, gl = lane % L, gi = gl / n4, sub = gl % n4;
  const int sx = bx + 4 * (sub % (bw / 4)), sy = by + 4 * (sub / (bw / 4));
  uint64_t best = ME_KEY_NONE;
  for (int c0 = first; c0 < first + n; c0 += per) {
    const int i = c0 + gi;
    int dx = 0, dy = 0;
    ring (i, step, &dx, &dy);
    const bool valid = live && i < first + n;
    uint32_t s = valid ? sub_cost (a, sx, sy, cx + dx, cy + dy) : 0;
    for (int off = 1; off < n4; off <<= 1)
      s += __shfl_xor_sync (FULL_MASK, s, off);
    uint64_t key = valid ? me_key_qpel (s, cx + dx, cy + dy) : ME_KEY_NONE;
    for (int off = L / 2; off >= 1; off >>= 1) {
      const uint64_t o = __shfl_xor_sync (FULL_MASK, key, off);
      key = o < key ? o : key;
    }
    best = key < best ? key : best;
  }
  return best;
}

__global__ void
__launch_bounds__ (REFINE_WARPS * 32) refine_kernel (const RefineArgs a)
{
  const unsigned w = blockIdx.x * REFINE_WARPS + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (w >= a.first[GST_MOTION_VECTOR_PARTITION_COUNT])
    return;
  int p = 0;
  while (w >= a.first[p + 1])
    p++;
  const int bw = GST_MOTION_VECTOR_PARTITION_W (p);
  const int bh = GST_MOTION_VECTOR_PARTITION_H (p);
  const int n4 = (bw / 4) * (bh / 4);
  const int L = group_lanes (n4);
  const unsigned i = (w - a.first[p]) * (32 / L) + lane / L;
  const bool live = i < a.cells[p];
  const unsigned cols = a.mb_cols * (16 / bw);
  const int bx = live ? (int)(i % cols) * bw : 0;
  const int by = live ? (int)(i / cols) * bh : 0;
  uint64_t *key = &a.keys[p][live ? i : 0];

  /* the integer winner, re-costed, and the half-pel ring */
  const uint64_t k0 = live ? *key : 0;
  uint64_t best = round_best (a, live, bx, by, bw, n4, L, lane,
      me_key_qx (k0), me_key_qy (k0), 2, 0,
      a.refine >= ME_REFINE_HALF ? 9 : 1);
  if (a.refine >= ME_REFINE_QUARTER) {
    const uint64_t q = round_best (a, live, bx, by, bw, n4, L, lane,
        me_key_qx (best), me_key_qy (best), 1, 1, 8);
    best = q < best ? q : best;
  }
  if (live && lane % L == 0)
    *key = best;
}

cudaError_t
me_cuda_launch_refine (const uint8_t *cur, const uint8_t *ref,
    const uint8_t *hpel, const MECudaGeometry *g, unsigned partitions,
    int refine, int metric, uint64_t *keys, cudaStream_t stream)
{
  RefineArgs a;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  const size_t origin = (size_t)ME_CUDA_PAD * g->pitch + ME_CUDA_PAD;
  const size_t plane = me_cuda_frame_bytes (g);

  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);
  a.cur = cur + origin;
  a.plane[ME_HPEL_F] = ref + origin;
  a.plane[ME_HPEL_H] = hpel + origin;
  a.plane[ME_HPEL_V] = hpel + plane + origin;
  a.plane[ME_HPEL_C] = hpel + 2 * plane + origin;
  a.pitch = g->pitch;
  a.mb_cols = g->mb_cols;
  a.refine = refine;
  a.satd = metric == ME_METRIC_SATD;
  unsigned n = 0;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    const int n4 = GST_MOTION_VECTOR_PARTITION_W (p) / 4 *
        (GST_MOTION_VECTOR_PARTITION_H (p) / 4);
    const unsigned per_warp = 32 / group_lanes (n4);
    a.first[p] = n;
    a.keys[p] = keys + offsets[p];
    a.cells[p] = 0;
    if (partitions & (1u << p))
      a.cells[p] = gst_motion_vector_grid_cols ((GstMotionVectorPartition)p,
                       g->mb_cols) *
          gst_motion_vector_grid_rows ((GstMotionVectorPartition)p, g->mb_rows);
    n += (a.cells[p] + per_warp - 1) / per_warp;
  }
  a.first[GST_MOTION_VECTOR_PARTITION_COUNT] = n;
  refine_kernel<<<(n + REFINE_WARPS - 1) / REFINE_WARPS, REFINE_WARPS * 32, 0,
      stream>>> (a);
  return cudaGetLastError ();
}
