/* gpumotionest — exact full search with successive elimination on CUDA.
 *
 * The same integer winners as me_cuda_launch_search (every cell of every
 * requested grid, keys lowered with atomicMin), with candidates that
 * provably cannot win left uncosted (docs/elimination.md).
 *
 * The reference's 4x4 block sums are made once per search by
 * me_cuda_launch_sums4 (one pass over the device frame) into a plane laid
 * out as the frame's samples.  Then one thread block per macroblock:
 *
 *   1. the current block in shared memory, its sixteen 4x4 sums;
 *   2. the costs of every partition at the window's centre: the first
 *      thresholds t_k, and the first best keys;
 *   3. the candidates of the window shared out to the block's threads,
 *      rows from the centre outwards (dy = 0, 1, -1, 2, ...; the winners
 *      lie mostly near the centre, and a minimum does not depend on the
 *      order).  A thread computes the lower bound of every partition k,
 *      lb_k = sum over its 4x4 sub-blocks of |current sum - reference sum|
 *      <= its SAD, and costs the candidate only when lb_k <= t_k for some
 *      requested k; otherwise every requested partition's SAD is larger
 *      than a cost some candidate has, and the candidate neither wins nor
 *      ties.  A costed candidate lowers t_k and the block's best key of
 *      each requested partition it reaches (shared atomicMin: t_k only ever
 *      falls, and any value a thread reads is a real candidate's cost, so
 *      the test stays exact whatever the threads' interleaving);
 *   4. the block's best keys to the grids (global atomicMin).
 *
 * Keys are me_key (cost, dx, dy), relative to the window's centre, as the
 * plain search writes them; the finish adds the window's offset.
 *
 * The backend runs it by its rule (use_esa() in me_cuda_backend.cu): for
 * samples deeper than 8 bits, 16x16 alone from R = 32 and other shape
 * sets from R = 128; elsewhere the plain kernel's packed SADs are cheaper
 * than this kernel's bound test (docs/elimination.md).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_parts.h"
#include "me_cuda_kernels.h"
#include "me_cuda_pixel.cuh"

#define ESA_THREADS 256
#define NPARTS ME_PARTS
static_assert (ME_PARTS == GST_MOTION_VECTOR_BLOCKS_PER_MB, "the shape table's blocks");

/* Shape of partition k (the shape table's block order), at compile time
 * once the loops over k are unrolled. */
static __host__ __device__ constexpr int
esa_shape_of (int k)
{
  return k < GST_MOTION_VECTOR_PARTITION_FIRST (1)   ? 0
         : k < GST_MOTION_VECTOR_PARTITION_FIRST (2) ? 1
         : k < GST_MOTION_VECTOR_PARTITION_FIRST (3) ? 2
         : k < GST_MOTION_VECTOR_PARTITION_FIRST (4) ? 3
         : k < GST_MOTION_VECTOR_PARTITION_FIRST (5) ? 4
         : k < GST_MOTION_VECTOR_PARTITION_FIRST (6) ? 5
                                                     : 6;
}

/* ---- the 4x4 sums ------------------------------------------------------- */

size_t
me_cuda_sums_bytes (const MECudaGeometry *g)
{
  return g->pitch / g->bps * g->rows * sizeof (uint32_t);
}

/* sums[y * spitch + x] = the sum of the 4x4 block whose top-left sample is
 * (x, y) of the buffer, 0 where the block would leave it.  At most 16 x
 * 65535: 32 bits for either sample type. */
template <typename pixel>
__global__ void
__launch_bounds__ (ESA_THREADS) sums4_kernel (
    const uint8_t *frame, size_t pitch, size_t spitch, size_t rows,
    uint32_t *sums)
{
  const size_t n = spitch * rows;
  for (size_t i = (size_t)blockIdx.x * ESA_THREADS + threadIdx.x; i < n;
       i += (size_t)gridDim.x * ESA_THREADS) {
    const size_t y = i / spitch, x = i - y * spitch;
    uint32_t s = 0;
    if (y + 4 <= rows && x + 4 <= spitch) {
#pragma unroll
      for (int yy = 0; yy < 4; yy++) {
        const pixel *r = (const pixel *)(frame + (y + yy) * pitch) + x;
        s += (uint32_t)r[0] + r[1] + r[2] + r[3];
      }
    }
    sums[i] = s;
  }
}

cudaError_t
me_cuda_launch_sums4 (const uint8_t *frame, const MECudaGeometry *g,
    uint32_t *sums, cudaStream_t stream)
{
  const size_t spitch = g->pitch / g->bps, n = spitch * g->rows;
  size_t blocks = (n + ESA_THREADS - 1) / ESA_THREADS;
  if (blocks > 65535)
    blocks = 65535;
  if (g->bps == 2)
    sums4_kernel<uint16_t><<<(unsigned)blocks, ESA_THREADS, 0, stream>>> (
        frame, g->pitch, spitch, g->rows, sums);
  else
    sums4_kernel<uint8_t><<<(unsigned)blocks, ESA_THREADS, 0, stream>>> (
        frame, g->pitch, spitch, g->rows, sums);
  return cudaGetLastError ();
}

/* ---- the search --------------------------------------------------------- */

typedef struct {
  const uint8_t *cur;
  const uint8_t *ref;   /* pixel (0, 0) of the plane, moved to the centre */
  const uint32_t *sums; /* the same position of the reference's sums */
  uint64_t *keys;
  unsigned long long *costed; /* candidates costed, or NULL */
  size_t pitch;  /* bytes */
  size_t spitch; /* sums per row */
  unsigned mb_cols;
  int range, range_y;
  unsigned partitions;
  size_t grid_offset[GST_MOTION_VECTOR_PARTITION_COUNT];
} EsaArgs;

/* The sixteen 4x4 SADs of the current block against the reference block at
 * `r` (rows `pitch` bytes apart): the block's rows as 32-bit words in
 * shared memory (`curw`, 16 / PW words a row), each reference row read as
 * words realigned with byte permutes and matched by one packed SAD per word
 * (me_cuda_pixel.cuh), as the plain kernel reads its rows. */
template <typename pixel>
static __device__ __forceinline__ void
esa_sad4 (const uint32_t *curw, const uint8_t *r, size_t pitch,
    uint32_t (&s)[16])
{
  typedef MePix<pixel> Pix;
  constexpr int W = 16 / Pix::PW;
#pragma unroll
  for (int b = 0; b < 16; b++)
    s[b] = 0;
  uint32_t sel;
  const uint32_t *w = me_pix_aligned (r, &sel);
  const size_t wpitch = pitch / 4;
#pragma unroll
  for (int y = 0; y < 16; y++, w += wpitch) {
    uint32_t q[W];
    me_pix_words<W> (w, sel, q);
#pragma unroll
    for (int k = 0; k < W; k++)
      s[4 * (y >> 2) + k * 4 / W] =
          Pix::sad (curw[W * y + k], q[k], s[4 * (y >> 2) + k * 4 / W]);
  }
}

/* ONLY16: 16x16 is the one shape asked for, so only its bound and cost
 * are formed (the other 40 sums and tests would double a candidate's
 * test). */
template <typename pixel, bool ONLY16>
__global__ void
__launch_bounds__ (ESA_THREADS) esa_kernel (const EsaArgs a)
{
  constexpr int PW = MePix<pixel>::PW;
  __shared__ uint32_t cur[256];
  __shared__ uint32_t curw[256 / PW];
  __shared__ uint32_t c4[16];
  __shared__ uint32_t s4[16];
  __shared__ uint32_t thr[NPARTS];
  __shared__ unsigned long long best[NPARTS];
  __shared__ unsigned block_costed;

  const unsigned t = threadIdx.x;
  const unsigned mby = blockIdx.x / a.mb_cols;
  const unsigned mbx = blockIdx.x - mby * a.mb_cols;
  const size_t pitch = a.pitch;
  const ptrdiff_t spitch = (ptrdiff_t)a.spitch;
  const int R = a.range, Ry = a.range_y, W = 2 * R + 1;
  const uint8_t *cb = a.cur + (size_t)(ME_CUDA_PAD + mby * 16) * pitch +
                      (size_t)(ME_CUDA_PAD + mbx * 16) * sizeof (pixel);
  /* candidate (0, 0) of this macroblock, and its sums */
  const uint8_t *rb = a.ref + (ptrdiff_t)(ME_CUDA_PAD + mby * 16) * (ptrdiff_t)pitch +
                      (ptrdiff_t)(ME_CUDA_PAD + mbx * 16) * (ptrdiff_t)sizeof (pixel);
  const uint32_t *sb =
      a.sums + (ptrdiff_t)(mby * 16) * spitch + (ptrdiff_t)(mbx * 16);

  cur[t] = ((const pixel *)(cb + (size_t)(t >> 4) * pitch))[t & 15];
  /* the same rows as words (every block starts 16-byte aligned) */
  if (t < 256 / PW)
    curw[t] = ((const uint32_t *)(cb + (size_t)(t / (16 / PW)) * pitch))
        [t % (16 / PW)];
  __syncthreads ();

  /* the current sums, and the 4x4 SADs at the centre */
  if (t < 16) {
    const int bx = 4 * (t & 3), by = 4 * (t >> 2);
    uint32_t sum = 0, sad = 0;
    for (int y = by; y < by + 4; y++) {
      const pixel *row = (const pixel *)(rb + (size_t)y * pitch);
      for (int x = bx; x < bx + 4; x++) {
        const int d = (int)cur[16 * y + x] - (int)row[x];
        sum += cur[16 * y + x];
        sad += (uint32_t)(d < 0 ? -d : d);
      }
    }
    c4[t] = sum;
    s4[t] = sad;
  }
  __syncthreads ();
  if (t == 0) {
    block_costed = 1; /* the centre */
    uint32_t b[16], c[NPARTS];
#pragma unroll
    for (int j = 0; j < 16; j++)
      b[j] = s4[j];
    me_part_sums (b, c);
#pragma unroll
    for (int k = 0; k < NPARTS; k++) {
      thr[k] = c[k];
      best[k] = me_key (c[k], 0, 0);
    }
  }
  __syncthreads ();

  uint32_t cc[16];
#pragma unroll
  for (int b = 0; b < 16; b++)
    cc[b] = c4[b];
  const volatile uint32_t *vthr = thr;
  const unsigned n = (unsigned)W * (unsigned)(2 * Ry + 1);
  unsigned costed = 0;

  for (unsigned i = t; i < n; i += ESA_THREADS) {
    const unsigned k = i / (unsigned)W;
    const int dx = (int)(i - k * (unsigned)W) - R;
    /* rows 0, 1, -1, 2, -2, ... */
    const int dy = (k & 1) ? (int)((k + 1) >> 1) : -(int)(k >> 1);
    if (dx == 0 && dy == 0)
      continue;                 /* costed above */

    uint32_t d[16], lb[NPARTS];
    const uint32_t *sp = sb + (ptrdiff_t)dy * spitch + dx;
#pragma unroll
    for (int b = 0; b < 16; b++) {
      const uint32_t v = __ldg (sp + 4 * (b >> 2) * spitch + 4 * (b & 3));
      d[b] = v > cc[b] ? v - cc[b] : cc[b] - v;
    }
    bool keep = false;
    if constexpr (ONLY16) {
      uint32_t l = 0;
#pragma unroll
      for (int b = 0; b < 16; b++)
        l += d[b];
      keep = l <= vthr[0];
    } else {
      me_part_sums (d, lb);
#pragma unroll
      for (int p = 0; p < NPARTS; p++)
        if ((a.partitions >> esa_shape_of (p)) & 1)
          keep = keep || lb[p] <= vthr[p];
    }
    if (!keep)
      continue;

    costed++;
    uint32_t s[16], c[NPARTS];
    esa_sad4<pixel> (curw, rb + (ptrdiff_t)dy * (ptrdiff_t)pitch +
                              (ptrdiff_t)dx * (ptrdiff_t)sizeof (pixel),
        pitch, s);
    if constexpr (ONLY16) {
      uint32_t c0 = 0;
#pragma unroll
      for (int b = 0; b < 16; b++)
        c0 += s[b];
      if (c0 <= vthr[0]) {
        atomicMin (&thr[0], c0);
        atomicMin (&best[0], (unsigned long long)me_key (c0, dx, dy));
      }
      continue;
    }
    me_part_sums (s, c);
#pragma unroll
    for (int p = 0; p < NPARTS; p++) {
      if (!((a.partitions >> esa_shape_of (p)) & 1) || c[p] > vthr[p])
        continue;
      atomicMin (&thr[p], c[p]);
      atomicMin (&best[p], (unsigned long long)me_key (c[p], dx, dy));
    }
  }
  if (a.costed && costed)
    atomicAdd (&block_costed, costed);
  __syncthreads ();
  if (a.costed && t == 0)
    atomicAdd (a.costed, (unsigned long long)block_costed);

  if (t < NPARTS) {
    const int p = esa_shape_of ((int)t);
    if ((a.partitions >> p) & 1) {
      const unsigned sw = 16 / GST_MOTION_VECTOR_PARTITION_W (p);
      const unsigned sh = 16 / GST_MOTION_VECTOR_PARTITION_H (p);
      const unsigned j = t - GST_MOTION_VECTOR_PARTITION_FIRST (p);
      const unsigned gy = mby * sh + j / sw, gx = mbx * sw + j % sw;
      atomicMin ((unsigned long long *)&a.keys[a.grid_offset[p] +
                                               (size_t)gy * a.mb_cols * sw + gx],
          best[t]);
    }
  }
}

cudaError_t
me_cuda_launch_search_esa (const uint8_t *cur, const uint8_t *ref,
    const uint32_t *sums, int offset_x, const MECudaGeometry *g,
    unsigned range, unsigned range_y, unsigned partitions, uint64_t *keys,
    unsigned long long *costed, cudaStream_t stream)
{
  /* the border holds windows reaching ME_MAX_RANGE (me_cuda_kernels.h) */
  if (range < 1 || range_y < 1 || range_y > range ||
      (unsigned)(offset_x < 0 ? -offset_x : offset_x) + range > ME_MAX_RANGE)
    return cudaErrorInvalidValue;
  EsaArgs a;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);
  a.cur = cur;
  a.ref = ref + (ptrdiff_t)offset_x * (ptrdiff_t)g->bps;
  a.spitch = g->pitch / g->bps;
  a.sums = sums + (ptrdiff_t)ME_CUDA_PAD * (ptrdiff_t)a.spitch + ME_CUDA_PAD +
           offset_x;
  a.keys = keys;
  a.costed = costed;
  a.pitch = g->pitch;
  a.mb_cols = g->mb_cols;
  a.range = (int)range;
  a.range_y = (int)range_y;
  a.partitions = partitions;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    a.grid_offset[p] = (size_t)offsets[p];

  const unsigned mbs = g->mb_cols * g->mb_rows;
  const bool only16 = partitions == GST_MOTION_VECTOR_PARTITIONS_16X16;
  if (g->bps == 2 && only16)
    esa_kernel<uint16_t, true><<<mbs, ESA_THREADS, 0, stream>>> (a);
  else if (g->bps == 2)
    esa_kernel<uint16_t, false><<<mbs, ESA_THREADS, 0, stream>>> (a);
  else if (only16)
    esa_kernel<uint8_t, true><<<mbs, ESA_THREADS, 0, stream>>> (a);
  else
    esa_kernel<uint8_t, false><<<mbs, ESA_THREADS, 0, stream>>> (a);
  return cudaGetLastError ();
}
