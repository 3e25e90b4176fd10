/* gpumotionest — exhaustive block-matching search on CUDA.
 *
 * Work split.  One thread owns one macroblock, one horizontal offset dx and
 * a run ("chunk") of vertical offsets dy.  It keeps the 16x16 current block
 * in 64 registers and walks down the reference column at dx: every
 * reference row it reads (20 aligned bytes, realigned with byte permutes)
 * is matched against up to G current rows at once, one for each of G
 * consecutive candidates dy, so each row loaded feeds up to 4 x G packed
 * SAD instructions (VABSDIFF4 with accumulate).  G is 16 when only 16x16
 * is asked for, 8 for shapes down to 8x8 (4 sub-block sums per candidate)
 * and 4 when 8x4, 4x8 or 4x4 are asked for (16 4x4 sums per candidate),
 * which keeps the accumulators within the register file.
 *
 * Within a thread dx is fixed, so the thread ranks its candidates by a
 * 32-bit key (cost << 9 | 2|dy| + (dy > 0)), which orders them exactly as
 * me_key() does for that dx.  At the end each thread turns its best into
 * the full 64-bit me_key(); lanes of a warp that share a macroblock are
 * reduced with shuffles, and the first lane of each macroblock lowers the
 * global key with atomicMin.  Keys are unique, so the order never matters.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_cuda_kernels.h"
#include "me_cuda_vsad.cuh"

#define FULL_MASK 0xffffffffu
#define SEARCH_THREADS 128

/* Shape geometry in constant expressions, from the shape table
 * (gstmotionvectortypes.h): width and height of shape p in pixels, and
 * where its blocks start in a thread's list of running minima (the table's
 * block order). */
static __host__ __device__ constexpr int
shape_w (int p)
{
  return GST_MOTION_VECTOR_PARTITION_W (p);
}

static __host__ __device__ constexpr int
shape_h (int p)
{
  return GST_MOTION_VECTOR_PARTITION_H (p);
}

static __host__ __device__ constexpr int
shape_base (int p)
{
  return GST_MOTION_VECTOR_PARTITION_FIRST (p);
}

void
me_cuda_geometry_init (MECudaGeometry *g, unsigned width, unsigned height)
{
  g->width = width;
  g->height = height;
  g->mb_cols = gst_motion_vector_mb_cols (width);
  g->mb_rows = gst_motion_vector_mb_rows (height);
  g->pitch = ((size_t)g->mb_cols * 16 + 2 * ME_CUDA_PAD + 127) & ~(size_t)127;
  g->rows = (size_t)g->mb_rows * 16 + 2 * ME_CUDA_PAD;
}

/* ---- border fill -------------------------------------------------------- */

/* One block per buffer row.  Rows inside the plane get their left and right
 * margins; rows above and below copy the nearest plane row, margins
 * included.  Reads only the plane, writes only the border. */
__global__ void
pad_kernel (uint8_t *frame, size_t pitch, unsigned width, unsigned height)
{
  const unsigned Y = blockIdx.x;
  const int y = (int)Y - ME_CUDA_PAD;
  const int sy = y < 0 ? 0 : (y >= (int)height ? (int)height - 1 : y);
  const uint8_t *src = frame + (size_t)(sy + ME_CUDA_PAD) * pitch + ME_CUDA_PAD;
  uint8_t *dst = frame + (size_t)Y * pitch;
  const bool inside = y == sy;

  for (size_t X = threadIdx.x; X < pitch; X += blockDim.x) {
    int x = (int)X - ME_CUDA_PAD;
    if (inside && x >= 0 && x < (int)width)
      continue;
    int sx = x < 0 ? 0 : (x >= (int)width ? (int)width - 1 : x);
    dst[X] = src[sx];
  }
}

cudaError_t
me_cuda_launch_pad (
    uint8_t *frame, const MECudaGeometry *g, cudaStream_t stream)
{
  pad_kernel<<<(unsigned)g->rows, 256, 0, stream>>> (
      frame, g->pitch, g->width, g->height);
  return cudaGetLastError ();
}

/* ---- the search --------------------------------------------------------- */

typedef struct {
  const uint8_t *cur;
  const uint8_t *ref;
  size_t pitch;
  unsigned mb_cols, mb_rows;
  int range;
  int range_y;         /* dy = -range_y .. range_y */
  unsigned nchunks;    /* dy chunks per (macroblock, dx) */
  unsigned chunk_rows; /* candidates dy per chunk */
  unsigned threads;    /* threads with work */
  unsigned partitions;
  uint64_t *keys[GST_MOTION_VECTOR_PARTITION_COUNT]; /* per requested grid */
} SearchArgs;

static __device__ __forceinline__ void
keep_min (uint32_t &best, uint32_t sad, uint32_t tie)
{
  best = min (best, (sad << 9) | tie);
}

/* keep_min() of a sum already shifted left by 9: sums of shifted sums stay
 * shifted (a 16x16 SAD of 65280 still fits), so the shape minima cost one
 * add-and-min each, a single instruction on Hopper (VIADDMNMX). */
static __device__ __forceinline__ void
keep_min9 (uint32_t &best, uint32_t sad9, uint32_t tie)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  best = __viaddmin_u32 (sad9, tie, best);
#else
  best = min (best, sad9 + tie);
#endif
}

/* Sub-blocks of BS x BS pixels per macroblock, and running minima kept. */
template <int BS>
struct Gran;
template <>
struct Gran<16> {
  static const int NB = 1, NI = 1, G = 16;
};
template <>
struct Gran<8> {
  static const int NB = 4, NI = 9, G = 8;
};
template <>
struct Gran<4> {
  static const int NB = 16, NI = 41, G = 4;
};

/* Folds candidate i's sub-block sums into the running minima of every
 * requested shape. */
template <int BS, int G>
static __device__ __forceinline__ void
update_shapes (const uint32_t (&acc)[Gran<BS>::NB][G], int i, uint32_t tie,
    uint32_t (&best)[Gran<BS>::NI], unsigned parts)
{
  /* below, every sum is shifted left by 9 (keep_min9()) */
  uint32_t s8[4];
  if constexpr (BS == 16) {
    keep_min (best[0], acc[0][i], tie);
    return;
  } else if constexpr (BS == 8) {
#pragma unroll
    for (int b = 0; b < 4; b++)
      s8[b] = acc[b][i] << 9;
  } else {
    /* 4x4 sub-blocks, b = row * 4 + col; 8x4 and 4x8 from pairs of them */
    uint32_t s4[16], s84[8], s48[8];
#pragma unroll
    for (int b = 0; b < 16; b++)
      s4[b] = acc[b][i] << 9;
#pragma unroll
    for (int r = 0; r < 4; r++)
#pragma unroll
      for (int c = 0; c < 2; c++)
        s84[r * 2 + c] = s4[r * 4 + 2 * c] + s4[r * 4 + 2 * c + 1];
#pragma unroll
    for (int r = 0; r < 2; r++)
#pragma unroll
      for (int c = 0; c < 4; c++)
        s48[r * 4 + c] = s4[2 * r * 4 + c] + s4[(2 * r + 1) * 4 + c];
#pragma unroll
    for (int r = 0; r < 2; r++)
#pragma unroll
      for (int c = 0; c < 2; c++)
        s8[r * 2 + c] = s84[2 * r * 2 + c] + s84[(2 * r + 1) * 2 + c];
    if (parts & GST_MOTION_VECTOR_PARTITIONS_4X4) {
#pragma unroll
      for (int b = 0; b < 16; b++)
        keep_min9 (best[shape_base (6) + b], s4[b], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_8X4) {
#pragma unroll
      for (int b = 0; b < 8; b++)
        keep_min9 (best[shape_base (4) + b], s84[b], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_4X8) {
#pragma unroll
      for (int b = 0; b < 8; b++)
        keep_min9 (best[shape_base (5) + b], s48[b], tie);
    }
  }
  if constexpr (BS != 16) {
    const uint32_t s168[2] = {s8[0] + s8[1], s8[2] + s8[3]};
    const uint32_t s816[2] = {s8[0] + s8[2], s8[1] + s8[3]};
    if (parts & GST_MOTION_VECTOR_PARTITIONS_8X8) {
#pragma unroll
      for (int b = 0; b < 4; b++)
        keep_min9 (best[shape_base (3) + b], s8[b], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_16X8) {
      keep_min9 (best[shape_base (1)], s168[0], tie);
      keep_min9 (best[shape_base (1) + 1], s168[1], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_8X16) {
      keep_min9 (best[shape_base (2)], s816[0], tie);
      keep_min9 (best[shape_base (2) + 1], s816[1], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_16X16)
      keep_min9 (best[0], s168[0] + s168[1], tie);
  }
}

/* G consecutive candidates dy0 .. dy0 + G - 1 at the thread's dx.  `row`
 * points at the aligned word holding the reference pixel of the block's top
 * left corner for dy0; `sel` realigns 5 loaded words into 4. */
template <int BS, int G>
static __device__ __forceinline__ void
search_group (const uint32_t (&c)[16][4], const uint32_t *row, size_t wpitch,
    uint32_t sel, int dy0, uint32_t (&best)[Gran<BS>::NI], unsigned parts)
{
  const int NB = Gran<BS>::NB;
  uint32_t acc[NB][G];
#pragma unroll
  for (int b = 0; b < NB; b++)
#pragma unroll
    for (int i = 0; i < G; i++)
      acc[b][i] = 0;

#pragma unroll
  for (int j = 0; j < G + 15; j++) {
    const uint32_t *p = row + (size_t)j * wpitch;
    uint32_t w[5], r[4];
#pragma unroll
    for (int k = 0; k < 5; k++)
      w[k] = __ldg (p + k);
#pragma unroll
    for (int k = 0; k < 4; k++)
      r[k] = __byte_perm (w[k], w[k + 1], sel);
#pragma unroll
    for (int i = 0; i < G; i++) {
      const int ci = j - i; /* current-block row matched to this row */
      if (ci < 0 || ci >= 16)
        continue;
#pragma unroll
      for (int k = 0; k < 4; k++) {
        const int b = (ci / BS) * (16 / BS) + (k * 4) / BS;
        acc[b][i] = me_vsad4 (c[ci][k], r[k], acc[b][i]);
      }
    }
  }

#pragma unroll
  for (int i = 0; i < G; i++) {
    const int dy = dy0 + i;
    const uint32_t tie = 2u * (uint32_t)abs (dy) + (dy > 0);
    update_shapes<BS, G> (acc, i, tie, best, parts);
  }
}

template <int BS>
__global__ void
__launch_bounds__ (SEARCH_THREADS) search_kernel (const SearchArgs a)
{
  const int NI = Gran<BS>::NI;
  const int G = Gran<BS>::G;
  const unsigned t = blockIdx.x * SEARCH_THREADS + threadIdx.x;
  const unsigned lane = threadIdx.x & 31;
  const unsigned ndx = 2 * a.range + 1;
  const unsigned per_mb = a.nchunks * ndx;
  const bool active = t < a.threads;
  /* Lanes past the end take a macroblock index no other lane has. */
  const unsigned mb = active ? t / per_mb : 0xffffffffu;
  const unsigned in_mb = active ? t - mb * per_mb : 0;
  const unsigned chunk = in_mb / ndx;
  const int dx = (int)(in_mb - chunk * ndx) - a.range;
  const unsigned mby = active ? mb / a.mb_cols : 0;
  const unsigned mbx = active ? mb - mby * a.mb_cols : 0;

  uint32_t best[NI];
#pragma unroll
  for (int k = 0; k < NI; k++)
    best[k] = 0xffffffffu;

  if (active) {
    uint32_t c[16][4];
    const uint8_t *cb = a.cur + (size_t)(ME_CUDA_PAD + mby * 16) * a.pitch +
                        ME_CUDA_PAD + mbx * 16;
#pragma unroll
    for (int y = 0; y < 16; y++) {
      uint4 v = __ldg ((const uint4 *)(cb + (size_t)y * a.pitch));
      c[y][0] = v.x;
      c[y][1] = v.y;
      c[y][2] = v.z;
      c[y][3] = v.w;
    }

    int dy = -a.range_y + (int)(chunk * a.chunk_rows);
    const int dy_end = min (dy + (int)a.chunk_rows, a.range_y + 1);
    const uintptr_t addr =
        (uintptr_t)(a.ref +
                    (ptrdiff_t)(ME_CUDA_PAD + (int)mby * 16 + dy) *
                        (ptrdiff_t)a.pitch +
                    ME_CUDA_PAD + (int)mbx * 16 + dx);
    const uint32_t shift = (uint32_t)(addr & 3);
    const uint32_t sel = 0x3210u + 0x1111u * shift;
    const size_t wpitch = a.pitch / 4;
    const uint32_t *row = (const uint32_t *)(addr - shift);

    for (; dy + G <= dy_end; dy += G, row += G * wpitch)
      search_group<BS, G> (c, row, wpitch, sel, dy, best, a.partitions);
    /* the rest of the chunk, fewer than G candidates */
    if constexpr (G > 8) {
      if (dy_end - dy >= 8) {
        search_group<BS, 8> (c, row, wpitch, sel, dy, best, a.partitions);
        dy += 8;
        row += 8 * wpitch;
      }
    }
    if constexpr (G > 4) {
      if (dy_end - dy >= 4) {
        search_group<BS, 4> (c, row, wpitch, sel, dy, best, a.partitions);
        dy += 4;
        row += 4 * wpitch;
      }
    }
    if (dy_end - dy >= 2) {
      search_group<BS, 2> (c, row, wpitch, sel, dy, best, a.partitions);
      dy += 2;
      row += 2 * wpitch;
    }
    if (dy_end - dy >= 1)
      search_group<BS, 1> (c, row, wpitch, sel, dy, best, a.partitions);
  }

  /* Which lanes to the right hold the same macroblock (they are contiguous),
   * and whether this lane is the first of its macroblock. */
  bool same[5];
#pragma unroll
  for (int s = 0; s < 5; s++) {
    const unsigned off = 1u << s;
    const unsigned other = __shfl_down_sync (FULL_MASK, mb, off);
    same[s] = lane + off < 32 && other == mb;
  }
  const unsigned left = __shfl_up_sync (FULL_MASK, mb, 1);
  const bool head = active && (lane == 0 || left != mb);

  /* Instance n of the thread's minima belongs to shape p = shape_of (n);
   * every index below is a compile-time constant, so best[] stays in
   * registers. */
#pragma unroll
  for (int n = 0; n < NI; n++) {
    const int p = n < shape_base (1)   ? 0
                  : n < shape_base (2) ? 1
                  : n < shape_base (3) ? 2
                  : n < shape_base (4) ? 3
                  : n < shape_base (5) ? 4
                  : n < shape_base (6) ? 5
                                       : 6;
    if (!(a.partitions & (1u << p)))
      continue;
    const int k = n - shape_base (p);
    const unsigned sw = 16 / shape_w (p), sh = 16 / shape_h (p);
    const uint32_t b = best[n];
    uint64_t key = ME_KEY_NONE;
    if (b != 0xffffffffu) {
      const uint32_t tie = b & 511;
      const int ady = (int)(tie >> 1);
      key = me_key (b >> 9, dx, (tie & 1) ? ady : -ady);
    }
#pragma unroll
    for (int s = 0; s < 5; s++) {
      const unsigned long long other =
          __shfl_down_sync (FULL_MASK, (unsigned long long)key, 1u << s);
      if (same[s] && other < key)
        key = other;
    }
    if (head) {
      const unsigned gy = mby * sh + k / sw, gx = mbx * sw + k % sw;
      atomicMin (
          (unsigned long long *)&a.keys[p][(size_t)gy * a.mb_cols * sw + gx],
          (unsigned long long)key);
    }
  }
}

cudaError_t
me_cuda_launch_search (const uint8_t *cur, const uint8_t *ref,
    const MECudaGeometry *g, unsigned range, unsigned range_y,
    unsigned partitions, uint64_t *keys, int sm_count, cudaStream_t stream)
{
  SearchArgs a;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);

  a.cur = cur;
  a.ref = ref;
  a.pitch = g->pitch;
  a.mb_cols = g->mb_cols;
  a.mb_rows = g->mb_rows;
  a.range = (int)range;
  a.range_y = (int)range_y;
  a.partitions = partitions;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    a.keys[p] = keys + offsets[p];

  const int bs = (partitions & ~GST_MOTION_VECTOR_PARTITIONS_16X16) == 0 ? 16
                 : (partitions & (GST_MOTION_VECTOR_PARTITIONS_8X4 |
                                     GST_MOTION_VECTOR_PARTITIONS_4X8 |
                                     GST_MOTION_VECTOR_PARTITIONS_4X4))
                     ? 4
                     : 8;
  const unsigned group = bs == 16 ? 16 : bs == 8 ? 8 : 4;

  /* Split the dy range into chunks only when (macroblock, dx) pairs alone
   * would leave the chip short of threads; each chunk a whole number of
   * groups. */
  const unsigned ndx = 2 * range + 1, ndy = 2 * range_y + 1;
  const uint64_t pairs = (uint64_t)g->mb_cols * g->mb_rows * ndx;
  const uint64_t want = (uint64_t)(sm_count > 0 ? sm_count : 1) * 2048;
  unsigned nchunks = pairs >= want ? 1 : (unsigned)((want + pairs - 1) / pairs);
  const unsigned max_chunks = (ndy + group - 1) / group;
  if (nchunks > max_chunks)
    nchunks = max_chunks;
  unsigned rows = (ndy + nchunks - 1) / nchunks;
  rows = (rows + group - 1) / group * group;
  a.chunk_rows = rows;
  a.nchunks = (ndy + rows - 1) / rows;

  const uint64_t threads = pairs * a.nchunks;
  if (threads > 0x7fffffffull)
    return cudaErrorInvalidConfiguration;
  a.threads = (unsigned)threads;
  const unsigned blocks =
      (unsigned)((threads + SEARCH_THREADS - 1) / SEARCH_THREADS);

  if (bs == 16)
    search_kernel<16><<<blocks, SEARCH_THREADS, 0, stream>>> (a);
  else if (bs == 8)
    search_kernel<8><<<blocks, SEARCH_THREADS, 0, stream>>> (a);
  else
    search_kernel<4><<<blocks, SEARCH_THREADS, 0, stream>>> (a);
  return cudaGetLastError ();
}

/* Whether this build's kernels can run on the current device (machine code
 * for it, or PTX it can compile). */
extern "C" cudaError_t
me_cuda_kernels_check (void)
{
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes (&attr, search_kernel<16>);
}
