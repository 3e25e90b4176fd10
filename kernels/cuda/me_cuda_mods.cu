/* gpumotionest — method `mods` on CUDA (docs/fast-search.md): every column
 * x of the window searched along y in shrinking steps.
 *
 * One thread per (macroblock, column), as the method was designed: the
 * columns are independent and all take the same steps, so a warp stays
 * converged except where a step's candidate falls outside the window.  The
 * thread holds the current block in registers, costs each candidate of its
 * column (every requested shape's sums at once) and walks by the 16x16 sum.
 *
 * Within a column x is fixed, so the thread ranks by the 32-bit key
 * (cost << 10) | 2|dy| + (dy > 0), which orders candidates as me_key() does
 * for that x (|dy| <= 256 takes 10 bits, a 16x16 SAD 16; the same key in 64
 * bits for 16-bit samples, whose 16x16 SAD takes 24).  At the end the
 * minima become full me_key() values, lanes of one macroblock reduce them
 * with shuffles and the first lane lowers the key grids with atomicMin, as
 * the full search does (me_cuda_search.cu): keys are unique, so any order
 * gives the CPU's result.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "fast_rules.h"
#include "me_cuda_fast.cuh"

#define MODS_THREADS 128

typedef struct {
  const uint8_t *cur, *ref; /* pixel (0, 0) */
  size_t pitch;
  unsigned mb_cols;
  unsigned threads; /* macroblocks x (2R + 1) */
  int range;
  unsigned partitions;
  uint64_t *keys[GST_MOTION_VECTOR_PARTITION_COUNT];
} ModsArgs;

/* The column key, of the thread's rank type R (me_cuda_pixel.cuh). */
template <typename R>
static __device__ __forceinline__ R
column_key (uint32_t cost, int dy)
{
  return ((R)cost << 10) | (2u * (uint32_t)abs (dy) + (dy > 0));
}

/* Costs (x, y) of the thread's column: lowers every requested partition's
 * minimum and returns the guide key. */
template <int BS, typename pixel>
static __device__ __forceinline__ typename MePix<pixel>::rank_t
visit (const uint32_t (&c)[16][MeRow<pixel>::W], const uint32_t *col,
    size_t wpitch, uint32_t sel, int y, unsigned parts,
    typename MePix<pixel>::rank_t (&best)[MeSplit<BS>::NI])
{
  typedef typename MePix<pixel>::rank_t R;
  uint32_t acc[MeSplit<BS>::NB], s[MeSplit<BS>::NI];
  me_fast_sad<BS, pixel> (
      c, col + (ptrdiff_t)y * (ptrdiff_t)wpitch, wpitch, sel, acc);
  me_fast_part_sums<BS> (acc, s);
#pragma unroll
  for (int n = 0; n < MeSplit<BS>::NI; n++)
    if (parts & (1u << me_fast_shape_of (n)))
      best[n] = rank_min (best[n], column_key<R> (s[n], y));
  return column_key<R> (s[0], y);
}

template <int BS, typename pixel>
__global__ void
__launch_bounds__ (MODS_THREADS) mods_kernel (const ModsArgs a)
{
  typedef typename MePix<pixel>::rank_t Rank;
  const int NI = MeSplit<BS>::NI;
  const unsigned t = blockIdx.x * MODS_THREADS + threadIdx.x;
  const unsigned lane = threadIdx.x & 31;
  const unsigned ncols = 2 * a.range + 1;
  const bool active = t < a.threads;
  /* lanes past the end take a macroblock index no other lane has */
  const unsigned mb = active ? t / ncols : 0xffffffffu;
  const int x = active ? (int)(t - mb * ncols) - a.range : 0;
  const int mby = active ? (int)(mb / a.mb_cols) : 0;
  const int mbx = active ? (int)(mb % a.mb_cols) : 0;

  Rank best[NI];
#pragma unroll
  for (int n = 0; n < NI; n++)
    best[n] = ~(Rank)0;

  if (active) {
    const int R = a.range;
    const int s1 = me_mods_first_step (R), k1 = me_mods_first_reach (R, s1);
    const size_t wpitch = a.pitch / 4;
    uint32_t c[16][MeRow<pixel>::W], sel;
    me_fast_load_block<pixel> (a.cur, a.pitch, mbx, mby, c);
    const uint32_t *col =
        me_fast_ref_row<pixel> (a.ref, a.pitch, 16 * mbx + x, 16 * mby, &sel);

    Rank guide = ~(Rank)0;
    int y = 0;
    for (int k = -k1; k <= k1; k++) {
      const Rank g =
          visit<BS, pixel> (c, col, wpitch, sel, k * s1, a.partitions, best);
      if (g < guide) {
        guide = g;
        y = k * s1;
      }
    }
    for (int s = s1 / 2; s >= 1; s /= 2) {
      const int y0 = y;
#pragma unroll
      for (int d = -1; d <= 1; d += 2) {
        const int yy = y0 + d * s;
        if (yy < -R || yy > R)
          continue;
        const Rank g =
            visit<BS, pixel> (c, col, wpitch, sel, yy, a.partitions, best);
        if (g < guide) {
          guide = g;
          y = yy;
        }
      }
    }
  }

  /* which lanes to the right hold the same macroblock (they are
   * contiguous), and whether this lane is the first of its macroblock */
  bool same[5];
#pragma unroll
  for (int s = 0; s < 5; s++) {
    const unsigned off = 1u << s;
    const unsigned other = __shfl_down_sync (ME_FULL_MASK, mb, off);
    same[s] = lane + off < 32 && other == mb;
  }
  const unsigned left = __shfl_up_sync (ME_FULL_MASK, mb, 1);
  const bool head = active && (lane == 0 || left != mb);

#pragma unroll
  for (int n = 0; n < NI; n++) {
    const int p = me_fast_shape_of (n);
    if (!(a.partitions & (1u << p)))
      continue;
    const Rank b = best[n];
    uint64_t key = ME_KEY_NONE;
    if (b != ~(Rank)0) {
      const int ady = (int)((b & 1023) >> 1);
      key = me_key ((uint32_t)(b >> 10), x, (b & 1) ? ady : -ady);
    }
#pragma unroll
    for (int s = 0; s < 5; s++) {
      const uint64_t other = __shfl_down_sync (ME_FULL_MASK, key, 1u << s);
      if (same[s] && other < key)
        key = other;
    }
    if (head)
      atomicMin ((unsigned long long *)&a.keys[p][me_fast_cell (
                     n, a.mb_cols, mbx, mby)],
          (unsigned long long)key);
  }
}

template <typename pixel>
static void
launch_mods (const ModsArgs &a, unsigned partitions, unsigned blocks,
    cudaStream_t stream)
{
  switch (me_fast_split (partitions)) {
  case 16:
    mods_kernel<16, pixel><<<blocks, MODS_THREADS, 0, stream>>> (a);
    break;
  case 8:
    mods_kernel<8, pixel><<<blocks, MODS_THREADS, 0, stream>>> (a);
    break;
  default:
    mods_kernel<4, pixel><<<blocks, MODS_THREADS, 0, stream>>> (a);
    break;
  }
}

cudaError_t
me_cuda_launch_mods (const uint8_t *cur, const uint8_t *ref,
    const MECudaGeometry *g, unsigned range, unsigned partitions,
    uint64_t *keys, cudaStream_t stream)
{
  ModsArgs a;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  const size_t origin = (size_t)ME_CUDA_PAD * g->pitch + ME_CUDA_PAD * g->bps;

  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);
  a.cur = cur + origin;
  a.ref = ref + origin;
  a.pitch = g->pitch;
  a.mb_cols = g->mb_cols;
  a.range = (int)range;
  a.partitions = partitions;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    a.keys[p] = keys + offsets[p];
  const uint64_t threads =
      (uint64_t)g->mb_cols * g->mb_rows * (2 * range + 1);
  if (threads > 0x7fffffffull)
    return cudaErrorInvalidConfiguration;
  a.threads = (unsigned)threads;

  const unsigned blocks =
      (unsigned)((threads + MODS_THREADS - 1) / MODS_THREADS);
  if (g->bps == 2)
    launch_mods<uint16_t> (a, partitions, blocks, stream);
  else
    launch_mods<uint8_t> (a, partitions, blocks, stream);
  return cudaGetLastError ();
}
