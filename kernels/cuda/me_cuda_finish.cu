/* gpumotionest — from search keys to cells: vector, cost, H.264 motion
 * vector prediction (ITU-T H.264 clause 8.4.1.3, one reference picture,
 * every macroblock of the grid's shape) and the difference to it.
 *
 * One thread per cell of every requested grid.  A cell's neighbours are
 * read straight from the keys, which the search has finished, so one launch
 * does it all.  Vectors are quarter-pel: 4 x the integer displacement.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_cuda_kernels.h"

#define FINISH_THREADS 256

typedef struct {
  const uint64_t *keys[GST_MOTION_VECTOR_PARTITION_COUNT];
  GstMotionVectorCell *cells[GST_MOTION_VECTOR_PARTITION_COUNT];
  unsigned first[GST_MOTION_VECTOR_PARTITION_COUNT + 1];  /* thread ranges */
  unsigned mb_cols, mb_rows;
} FinishArgs;

static __device__ __forceinline__ int
part_w (int p)
{
  return p == 0 || p == 1 ? 16 : p == 5 || p == 6 ? 4 : 8;
}

static __device__ __forceinline__ int
part_h (int p)
{
  return p == 0 || p == 2 ? 16 : p == 4 || p == 6 ? 4 : 8;
}

/* Decoding order of the partition covering pixel (x, y) of a macroblock
 * (0..15 each) when every partition has shape p: macroblock partitions in
 * raster order, and for the sub-macroblock shapes the 8x8 blocks in raster
 * order, each split in raster order. */
static __device__ __forceinline__ int
decode_index (int p, int x, int y)
{
  const int q = (y >> 3) * 2 + (x >> 3);        /* 8x8 quadrant */
  switch (p) {
    case 0:
      return 0;
    case 1:
      return y >> 3;
    case 2:
      return x >> 3;
    case 3:
      return q;
    case 4:
      return q * 2 + ((y >> 2) & 1);
    case 5:
      return q * 2 + ((x >> 2) & 1);
    default:
      return q * 4 + ((y >> 2) & 1) * 2 + ((x >> 2) & 1);
  }
}

typedef struct {
  bool avail;
  int x, y;                     /* quarter-pel vector, 0 if not available */
} Neighbour;

/* The partition covering frame pixel (xn, yn), seen from the partition of
 * shape p whose top-left pixel is (x0, y0): available when it lies in the
 * picture and precedes the current partition in decoding order (earlier
 * macroblock, or earlier partition of the same macroblock). */
static __device__ __forceinline__ Neighbour
neighbour (const uint64_t * keys, int p, unsigned gcols, unsigned mb_cols,
    int x0, int y0, int xn, int yn)
{
  Neighbour n = { false, 0, 0 };
  if (xn < 0 || yn < 0 || xn >= (int) mb_cols * 16)
    return n;
  const int mbx = x0 >> 4, mby = y0 >> 4, nbx = xn >> 4, nby = yn >> 4;
  if (nby == mby) {
    if (nbx > mbx)
      return n;                 /* macroblock to the right: not decoded yet */
    if (nbx == mbx && decode_index (p, xn & 15, yn & 15)
        > decode_index (p, x0 & 15, y0 & 15))
      return n;                 /* later partition of this macroblock */
  }
  const uint64_t key = keys[(size_t) (yn / part_h (p)) * gcols
      + xn / part_w (p)];
  n.avail = true;
  n.x = me_key_dx (key) * 4;
  n.y = me_key_dy (key) * 4;
  return n;
}

static __device__ __forceinline__ int
median3 (int a, int b, int c)
{
  return max (min (a, b), min (max (a, b), c));
}

__global__ void __launch_bounds__ (FINISH_THREADS)
finish_kernel (const FinishArgs a)
{
  const unsigned t = blockIdx.x * FINISH_THREADS + threadIdx.x;
  if (t >= a.first[GST_MOTION_VECTOR_PARTITION_COUNT])
    return;
  int p = 0;
  while (t >= a.first[p + 1])
    p++;
  const unsigned i = t - a.first[p];
  const int w = part_w (p), h = part_h (p);
  const unsigned gcols = a.mb_cols * (16 / w);
  const int gx = (int) (i % gcols), gy = (int) (i / gcols);
  const int x0 = gx * w, y0 = gy * h;
  const uint64_t *keys = a.keys[p];
  const uint64_t key = keys[i];

  /* Neighbours A (left), B (above), C (above right), D (above left) of the
   * partition, by the pixel next to its corner (clause 6.4.11.7). */
  const Neighbour A = neighbour (keys, p, gcols, a.mb_cols, x0, y0,
      x0 - 1, y0);
  const Neighbour B = neighbour (keys, p, gcols, a.mb_cols, x0, y0,
      x0, y0 - 1);
  Neighbour C = neighbour (keys, p, gcols, a.mb_cols, x0, y0,
      x0 + w, y0 - 1);
  if (!C.avail)
    C = neighbour (keys, p, gcols, a.mb_cols, x0, y0, x0 - 1, y0 - 1);

  int px, py;
  const int part_idx = p == 1 ? (gy & 1) : p == 2 ? (gx & 1) : -1;
  if (p == 1 && part_idx == 0 && B.avail) {
    px = B.x;                   /* upper 16x8: from above */
    py = B.y;
  } else if (p == 1 && part_idx == 1 && A.avail) {
    px = A.x;                   /* lower 16x8: from the left */
    py = A.y;
  } else if (p == 2 && part_idx == 0 && A.avail) {
    px = A.x;                   /* left 8x16: from the left */
    py = A.y;
  } else if (p == 2 && part_idx == 1 && C.avail) {
    px = C.x;                   /* right 8x16: from above right */
    py = C.y;
  } else {
    Neighbour b = B, c = C;
    if (!B.avail && !C.avail && A.avail)
      b = c = A;
    const int navail = (int) A.avail + (int) b.avail + (int) c.avail;
    if (navail == 1) {
      const Neighbour &o = A.avail ? A : b.avail ? b : c;
      px = o.x;
      py = o.y;
    } else {
      px = median3 (A.x, b.x, c.x);
      py = median3 (A.y, b.y, c.y);
    }
  }

  GstMotionVectorCell cell;
  cell.mv_x = (gint16) (me_key_dx (key) * 4);
  cell.mv_y = (gint16) (me_key_dy (key) * 4);
  cell.cost = me_key_cost (key);
  cell.pred_x = (gint16) px;
  cell.pred_y = (gint16) py;
  cell.mvd_x = (gint16) (cell.mv_x - px);
  cell.mvd_y = (gint16) (cell.mv_y - py);
  /* one 16-byte store */
  *(uint4 *) &a.cells[p][i] = *(const uint4 *) &cell;
}

cudaError_t
me_cuda_launch_finish (const uint64_t * keys, GstMotionVectorCell * cells,
    const MECudaGeometry * g, unsigned partitions, cudaStream_t stream)
{
  FinishArgs a;
  size_t offsets[GST_MOTION_VECTOR_PARTITION_COUNT] = { 0 };
  me_cuda_grid_offsets (partitions, g->mb_cols, g->mb_rows, offsets);

  unsigned n = 0;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    a.first[p] = n;
    a.keys[p] = keys + offsets[p];
    a.cells[p] = cells + offsets[p];
    if (partitions & (1u << p))
      n += gst_motion_vector_grid_cols ((GstMotionVectorPartition) p,
          g->mb_cols) * gst_motion_vector_grid_rows ((GstMotionVectorPartition)
          p, g->mb_rows);
  }
  a.first[GST_MOTION_VECTOR_PARTITION_COUNT] = n;
  a.mb_cols = g->mb_cols;
  a.mb_rows = g->mb_rows;

  finish_kernel <<< (n + FINISH_THREADS - 1) / FINISH_THREADS,
      FINISH_THREADS, 0, stream >>> (a);
  return cudaGetLastError ();
}
