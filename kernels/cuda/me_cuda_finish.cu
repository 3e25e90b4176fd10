/* gpumotionest — from search keys to cells: vector, cost, H.264 motion
 * vector prediction (ITU-T H.264 clause 8.4.1.3, one reference picture,
 * every macroblock of the grid's shape) and the difference to it.
 *
 * One thread per cell of every requested grid.  A cell's neighbours are
 * read straight from the keys, which the search has finished, so one launch
 * does it all.  Vectors are quarter-pel, as the keys hold them.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_cuda_kernels.h"
#include "mvpred_rules.h"

#define FINISH_THREADS 256

typedef struct {
  const uint64_t *keys[ME_CUDA_BATCH_MAX]; /* a grid row per frame */
  GstMotionVectorCell *cells[ME_CUDA_BATCH_MAX];
  size_t grid_offset[GST_MOTION_VECTOR_PARTITION_COUNT]; /* keys, cells */
  unsigned first[GST_MOTION_VECTOR_PARTITION_COUNT + 1]; /* thread ranges */
  unsigned mb_cols, mb_rows;
  int offset_qx; /* the window's centre, added to every key's vector */
} FinishArgs;

__global__ void
__launch_bounds__ (FINISH_THREADS) finish_kernel (const FinishArgs a)
{
  const unsigned t = blockIdx.x * FINISH_THREADS + threadIdx.x;
  if (t >= a.first[GST_MOTION_VECTOR_PARTITION_COUNT])
    return;
  int p = 0;
  while (t >= a.first[p + 1])
    p++;
  const unsigned i = t - a.first[p];
  const int w = me_mvpred_part_w (p);
  const unsigned gcols = a.mb_cols * (16 / w);
  const int gx = (int)(i % gcols), gy = (int)(i / gcols);
  const uint64_t *keys = a.keys[blockIdx.y] + a.grid_offset[p];
  const uint64_t key = keys[i];

  /* The rules are shared with the CPU (kernels/mvpred_rules.h); the
   * neighbours' vectors come straight from the finished search keys. */
  const MEMvpredNeighbours n =
      me_mvpred_neighbours (p, gx, gy, (int)a.mb_cols, (int)a.mb_rows);
  const uint64_t ka = keys[n.a >= 0 ? n.a : 0];
  const uint64_t kb = keys[n.b >= 0 ? n.b : 0];
  const uint64_t kc = keys[n.c >= 0 ? n.c : 0];
  int px, py;
  const int o = a.offset_qx;
  me_mvpred_combine (p, gx, gy, n, me_key_qx (ka) + o, me_key_qy (ka),
      me_key_qx (kb) + o, me_key_qy (kb), me_key_qx (kc) + o, me_key_qy (kc),
      &px, &py);

  GstMotionVectorCell cell;
  cell.mv_x = (gint16)(me_key_qx (key) + o);
  cell.mv_y = (gint16)me_key_qy (key);
  cell.cost = me_key_cost (key);
  cell.pred_x = (gint16)px;
  cell.pred_y = (gint16)py;
  cell.mvd_x = (gint16)(cell.mv_x - px);
  cell.mvd_y = (gint16)(cell.mv_y - py);
  /* one 16-byte store */
  *(uint4 *)&a.cells[blockIdx.y][a.grid_offset[p] + i] =
      *(const uint4 *)&cell;
}

cudaError_t
me_cuda_launch_finish_batch (const MECudaBatchFrame *frames, unsigned n,
    const MECudaGeometry *g, unsigned partitions, int offset_qx,
    cudaStream_t stream)
{
  if (n == 0 || n > ME_CUDA_BATCH_MAX)
    return cudaErrorInvalidValue;
  FinishArgs a;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);

  for (unsigned i = 0; i < n; i++) {
    a.keys[i] = frames[i].keys;
    a.cells[i] = frames[i].cells;
  }
  unsigned t = 0;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    a.first[p] = t;
    a.grid_offset[p] = (size_t)offsets[p];
    if (partitions & (1u << p))
      t +=
          gst_motion_vector_grid_cols (
              (GstMotionVectorPartition)p, g->mb_cols) *
          gst_motion_vector_grid_rows ((GstMotionVectorPartition)p, g->mb_rows);
  }
  a.first[GST_MOTION_VECTOR_PARTITION_COUNT] = t;
  a.mb_cols = g->mb_cols;
  a.mb_rows = g->mb_rows;
  a.offset_qx = offset_qx;

  finish_kernel<<<dim3 ((t + FINISH_THREADS - 1) / FINISH_THREADS, n),
      FINISH_THREADS, 0, stream>>> (a);
  return cudaGetLastError ();
}

cudaError_t
me_cuda_launch_finish (const uint64_t *keys, GstMotionVectorCell *cells,
    const MECudaGeometry *g, unsigned partitions, int offset_qx,
    cudaStream_t stream)
{
  MECudaBatchFrame f = { NULL, NULL, (uint64_t *)keys, cells };
  return me_cuda_launch_finish_batch (&f, 1, g, partitions, offset_qx, stream);
}
