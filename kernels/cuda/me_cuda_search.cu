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
 * 32-bit key (cost << TIE_BITS | 2|dy| + (dy > 0)), which orders them
 * exactly as me_key() does for that dx.  TIE_BITS = 10 holds |dy| <= 511
 * (2|dy| + 1 < 1024), and a 16x16 SAD of bytes (below 2^16) shifted by it
 * still fits 32 bits.  At the end each thread turns its best into
 * the full 64-bit me_key(); lanes of a warp that share a macroblock are
 * reduced with shuffles, and the first lane of each macroblock lowers the
 * global key with atomicMin.  Keys are unique, so the order never matters.
 *
 * 16-bit samples (me_cuda_pixel.cuh): the same kernel over words of two
 * samples, so the current block takes 128 registers instead of 64 and a
 * reference row 9 loads instead of 5; G is halved to leave room for that,
 * and the per-thread key is the same (cost << TIE_BITS) | tie in 64 bits, since a
 * 16x16 SAD of 16-bit samples takes 24 bits.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_cuda_kernels.h"
#include "me_cuda_pixel.cuh"

#define FULL_MASK 0xffffffffu
#define SEARCH_THREADS 128
/* bits of a thread's key below the cost: the tie 2|dy| + (dy > 0) */
#define TIE_BITS 10

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
me_cuda_geometry_init (
    MECudaGeometry *g, unsigned width, unsigned height, unsigned bps)
{
  g->width = width;
  g->height = height;
  g->mb_cols = gst_motion_vector_mb_cols (width);
  g->mb_rows = gst_motion_vector_mb_rows (height);
  g->bps = bps;
  /* ME_CUDA_PAD samples either side, the row in bytes */
  g->pitch =
      (((size_t)g->mb_cols * 16 + 2 * ME_CUDA_PAD) * bps + 127) & ~(size_t)127;
  g->rows = (size_t)g->mb_rows * 16 + 2 * ME_CUDA_PAD;
}

/* ---- border fill -------------------------------------------------------- */

/* One block per buffer row.  Rows inside the plane get their left and right
 * margins; rows above and below copy the nearest plane row, margins
 * included.  Reads only the plane, writes only the border.  `pitch` is in
 * bytes, the rest in samples. */
template <typename pixel>
__global__ void
pad_kernel (uint8_t *frame, size_t pitch, unsigned width, unsigned height)
{
  const unsigned Y = blockIdx.x;
  const int y = (int)Y - ME_CUDA_PAD;
  const int sy = y < 0 ? 0 : (y >= (int)height ? (int)height - 1 : y);
  const pixel *src =
      (const pixel *)(frame + (size_t)(sy + ME_CUDA_PAD) * pitch) + ME_CUDA_PAD;
  pixel *dst = (pixel *)(frame + (size_t)Y * pitch);
  const size_t row = pitch / sizeof (pixel);
  const bool inside = y == sy;

  for (size_t X = threadIdx.x; X < row; X += blockDim.x) {
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
  if (g->bps == 2)
    pad_kernel<uint16_t><<<(unsigned)g->rows, 256, 0, stream>>> (
        frame, g->pitch, g->width, g->height);
  else
    pad_kernel<uint8_t><<<(unsigned)g->rows, 256, 0, stream>>> (
        frame, g->pitch, g->width, g->height);
  return cudaGetLastError ();
}

/* ---- 16-bit samples from their words ------------------------------------ */

#define IMPORT_THREADS 256

/* One thread per sample, a row of blocks per row: the word read and the
 * sample written are at the same place of the plane when `src` is the
 * plane itself, and no thread reads another's sample, so converting in
 * place is safe (nothing is __restrict__ here for that reason). */
__global__ void
__launch_bounds__ (IMPORT_THREADS) import16_kernel (uint8_t *frame,
    size_t pitch, const uint8_t *src, size_t src_stride, unsigned width,
    unsigned shift, unsigned mask)
{
  const unsigned x = blockIdx.x * IMPORT_THREADS + threadIdx.x;
  const unsigned y = blockIdx.y;
  if (x >= width)
    return;
  const unsigned w = ((const uint16_t *)(src + (size_t)y * src_stride))[x];
  ((uint16_t *)(frame + (size_t)(ME_CUDA_PAD + y) * pitch))[ME_CUDA_PAD + x] =
      (uint16_t)((w >> shift) & mask);
}

cudaError_t
me_cuda_launch_import16 (uint8_t *frame, const MECudaGeometry *g,
    const uint8_t *src, size_t src_stride, unsigned shift, unsigned depth,
    cudaStream_t stream)
{
  const dim3 grid ((g->width + IMPORT_THREADS - 1) / IMPORT_THREADS, g->height);
  import16_kernel<<<grid, IMPORT_THREADS, 0, stream>>> (frame, g->pitch, src,
      src_stride, g->width, shift, (1u << depth) - 1);
  return cudaGetLastError ();
}

/* ---- the search --------------------------------------------------------- */

/* Frames of a batch share everything but their planes and keys: one grid
 * row (blockIdx.y) per frame. */
typedef struct {
  const uint8_t *cur[ME_CUDA_BATCH_MAX];
  const uint8_t *ref[ME_CUDA_BATCH_MAX];
  uint64_t *keys[ME_CUDA_BATCH_MAX];
  size_t pitch;
  unsigned mb_cols, mb_rows;
  int range;
  int range_y;         /* dy = -range_y .. range_y */
  unsigned nchunks;    /* dy chunks per (macroblock, dx) */
  unsigned chunk_rows; /* candidates dy per chunk */
  unsigned threads;    /* threads with work, per frame */
  unsigned partitions;
  size_t grid_offset[GST_MOTION_VECTOR_PARTITION_COUNT]; /* in keys */
} SearchArgs;

/* A thread's keys, (cost << TIE_BITS) | tie, are of type R: 32 bits for 8-bit
 * samples, 64 for 16-bit ones (me_cuda_pixel.cuh). */
template <typename R>
static __device__ __forceinline__ void
keep_min (R &best, uint32_t sad, uint32_t tie)
{
  if constexpr (sizeof (R) == 4)
    best = min (best, (sad << TIE_BITS) | tie);
  else
    best = rank_min (best, ((R)sad << TIE_BITS) | tie);
}

/* keep_min() of a sum already shifted left by TIE_BITS: sums of shifted
 * sums stay shifted (a 16x16 SAD of 65280 still fits 32 bits, one of
 * 16-bit samples 64), so the shape minima cost one add-and-min each, a
 * single instruction on Hopper (VIADDMNMX) for 32-bit keys. */
template <typename R>
static __device__ __forceinline__ void
keep_min_shifted (R &best, R sad_shifted, uint32_t tie)
{
  if constexpr (sizeof (R) == 4) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    best = __viaddmin_u32 (sad_shifted, tie, best);
#else
    best = min (best, sad_shifted + tie);
#endif
  } else {
    best = rank_min (best, sad_shifted + tie);
  }
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

/* G for samples of `bps` bytes: halved for 16-bit samples, whose current
 * block takes twice the registers. */
static __host__ __device__ constexpr int
search_group_size (int bs, int bps)
{
  return (bs == 16 ? 16 : bs == 8 ? 8 : 4) / bps;
}

/* Folds candidate i's sub-block sums into the running minima of every
 * requested shape. */
template <int BS, int G, typename R>
static __device__ __forceinline__ void
update_shapes (const uint32_t (&acc)[Gran<BS>::NB][G], int i, uint32_t tie,
    R (&best)[Gran<BS>::NI], unsigned parts)
{
  /* below, every sum is shifted left by TIE_BITS (keep_min_shifted()) */
  R s8[4];
  if constexpr (BS == 16) {
    keep_min (best[0], acc[0][i], tie);
    return;
  } else if constexpr (BS == 8) {
#pragma unroll
    for (int b = 0; b < 4; b++)
      s8[b] = (R)acc[b][i] << TIE_BITS;
  } else {
    /* 4x4 sub-blocks, b = row * 4 + col; 8x4 and 4x8 from pairs of them */
    R s4[16], s84[8], s48[8];
#pragma unroll
    for (int b = 0; b < 16; b++)
      s4[b] = (R)acc[b][i] << TIE_BITS;
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
        keep_min_shifted (best[shape_base (6) + b], s4[b], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_8X4) {
#pragma unroll
      for (int b = 0; b < 8; b++)
        keep_min_shifted (best[shape_base (4) + b], s84[b], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_4X8) {
#pragma unroll
      for (int b = 0; b < 8; b++)
        keep_min_shifted (best[shape_base (5) + b], s48[b], tie);
    }
  }
  if constexpr (BS != 16) {
    const R s168[2] = {s8[0] + s8[1], s8[2] + s8[3]};
    const R s816[2] = {s8[0] + s8[2], s8[1] + s8[3]};
    if (parts & GST_MOTION_VECTOR_PARTITIONS_8X8) {
#pragma unroll
      for (int b = 0; b < 4; b++)
        keep_min_shifted (best[shape_base (3) + b], s8[b], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_16X8) {
      keep_min_shifted (best[shape_base (1)], s168[0], tie);
      keep_min_shifted (best[shape_base (1) + 1], s168[1], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_8X16) {
      keep_min_shifted (best[shape_base (2)], s816[0], tie);
      keep_min_shifted (best[shape_base (2) + 1], s816[1], tie);
    }
    if (parts & GST_MOTION_VECTOR_PARTITIONS_16X16)
      keep_min_shifted (best[0], s168[0] + s168[1], tie);
  }
}

/* 16x16 blocks of 16-bit samples, by |a - b| = a + b - 2 min (a, b): a
 * candidate's SAD is the current block's sum `csum` (once per thread)
 * plus the candidate block's sum (each reference row summed once, shared
 * by the G candidates that use it) minus twice the sum of the halfwords'
 * minima.  Per word, one min and one two-way dot product instead of the
 * max, min, subtraction and dot product of MePix<uint16_t>::sad; exact in
 * 32 bits (each sum below 2^24, twice the minima below 2^25). */
template <int G>
static __device__ __forceinline__ void
search_group_16x16_min (const uint32_t (&c)[16][8], uint32_t csum,
    const uint32_t *row, size_t wpitch, uint32_t sel, int dy0,
    uint64_t (&best)[1])
{
  uint32_t accm[G], accr[G];
#pragma unroll
  for (int i = 0; i < G; i++)
    accm[i] = accr[i] = 0;
#pragma unroll
  for (int j = 0; j < G + 15; j++) {
    uint32_t r[8], rs = 0;
    me_pix_words<8> (row + (size_t)j * wpitch, sel, r);
#pragma unroll
    for (int k = 0; k < 8; k++)
      rs = __dp2a_lo (r[k], 0x0101u, rs);
#pragma unroll
    for (int i = 0; i < G; i++) {
      const int ci = j - i;
      if (ci < 0 || ci >= 16)
        continue;
      accr[i] += rs;
#pragma unroll
      for (int k = 0; k < 8; k++)
        accm[i] = __dp2a_lo (__vminu2 (c[ci][k], r[k]), 0x0101u, accm[i]);
    }
  }
#pragma unroll
  for (int i = 0; i < G; i++) {
    const int dy = dy0 + i;
    const uint32_t tie = 2u * (uint32_t)abs (dy) + (dy > 0);
    keep_min (best[0], csum + accr[i] - 2u * accm[i], tie);
  }
}

/* G consecutive candidates dy0 .. dy0 + G - 1 at the thread's dx.  `row`
 * points at the aligned word holding the reference pixel of the block's top
 * left corner for dy0; `sel` realigns W + 1 loaded words into the W words
 * of a row of 16 samples (5 into 4 for bytes, 9 into 8 for 16-bit). */
template <int BS, int G, typename pixel>
static __device__ __forceinline__ void
search_group (const uint32_t (&c)[16][16 / MePix<pixel>::PW], uint32_t csum,
    const uint32_t *row, size_t wpitch, uint32_t sel, int dy0,
    typename MePix<pixel>::rank_t (&best)[Gran<BS>::NI], unsigned parts)
{
  typedef MePix<pixel> Pix;
  if constexpr (BS == 16 && sizeof (pixel) == 2) {
    search_group_16x16_min<G> (c, csum, row, wpitch, sel, dy0, best);
    return;
  }
  constexpr int W = 16 / Pix::PW;
  const int NB = Gran<BS>::NB;
  uint32_t acc[NB][G];
#pragma unroll
  for (int b = 0; b < NB; b++)
#pragma unroll
    for (int i = 0; i < G; i++)
      acc[b][i] = 0;

#pragma unroll
  for (int j = 0; j < G + 15; j++) {
    uint32_t r[W];
    me_pix_words<W> (row + (size_t)j * wpitch, sel, r);
#pragma unroll
    for (int i = 0; i < G; i++) {
      const int ci = j - i; /* current-block row matched to this row */
      if (ci < 0 || ci >= 16)
        continue;
#pragma unroll
      for (int k = 0; k < W; k++) {
        /* word k holds pixels k * PW .. k * PW + PW - 1 of the row */
        const int b = (ci / BS) * (16 / BS) + (k * Pix::PW) / BS;
        acc[b][i] = Pix::sad (c[ci][k], r[k], acc[b][i]);
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

template <int BS, typename pixel>
__global__ void
__launch_bounds__ (SEARCH_THREADS) search_kernel (const SearchArgs a)
{
  typedef MePix<pixel> Pix;
  typedef typename Pix::rank_t R;
  constexpr int W = 16 / Pix::PW;
  constexpr int BPS = (int)sizeof (pixel);
  const int NI = Gran<BS>::NI;
  constexpr int G = search_group_size (BS, (int)sizeof (pixel));
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

  R best[NI];
#pragma unroll
  for (int k = 0; k < NI; k++)
    best[k] = ~(R)0;

  if (active) {
    uint32_t c[16][W];
    const uint8_t *cb = a.cur[blockIdx.y] + (size_t)(ME_CUDA_PAD + mby * 16) * a.pitch +
                        ME_CUDA_PAD * BPS + mbx * 16 * BPS;
#pragma unroll
    for (int y = 0; y < 16; y++)
      me_pix_aligned_words<W> (cb + (size_t)y * a.pitch, c[y]);
    /* the block's sum, for search_group_16x16_min */
    uint32_t csum = 0;
    if constexpr (BS == 16 && sizeof (pixel) == 2) {
#pragma unroll
      for (int y = 0; y < 16; y++)
#pragma unroll
        for (int k = 0; k < W; k++)
          csum = __dp2a_lo (c[y][k], 0x0101u, csum);
    }

    int dy = -a.range_y + (int)(chunk * a.chunk_rows);
    const int dy_end = min (dy + (int)a.chunk_rows, a.range_y + 1);
    const size_t wpitch = a.pitch / 4;
    uint32_t sel;
    const uint32_t *row = me_pix_aligned (a.ref[blockIdx.y] +
            (ptrdiff_t)(ME_CUDA_PAD + (int)mby * 16 + dy) * (ptrdiff_t)a.pitch +
            ME_CUDA_PAD * BPS + (int)mbx * 16 * BPS + dx * BPS,
        &sel);

    for (; dy + G <= dy_end; dy += G, row += G * wpitch)
      search_group<BS, G, pixel> (c, csum, row, wpitch, sel, dy, best, a.partitions);
    /* the rest of the chunk, fewer than G candidates */
    if constexpr (G > 8) {
      if (dy_end - dy >= 8) {
        search_group<BS, 8, pixel> (
            c, csum, row, wpitch, sel, dy, best, a.partitions);
        dy += 8;
        row += 8 * wpitch;
      }
    }
    if constexpr (G > 4) {
      if (dy_end - dy >= 4) {
        search_group<BS, 4, pixel> (
            c, csum, row, wpitch, sel, dy, best, a.partitions);
        dy += 4;
        row += 4 * wpitch;
      }
    }
    if constexpr (G > 2) {
      if (dy_end - dy >= 2) {
        search_group<BS, 2, pixel> (
            c, csum, row, wpitch, sel, dy, best, a.partitions);
        dy += 2;
        row += 2 * wpitch;
      }
    }
    if constexpr (G > 1) {
      if (dy_end - dy >= 1)
        search_group<BS, 1, pixel> (
            c, csum, row, wpitch, sel, dy, best, a.partitions);
    }
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
    const R b = best[n];
    uint64_t key = ME_KEY_NONE;
    if (b != ~(R)0) {
      const uint32_t tie = (uint32_t)(b & ((1u << TIE_BITS) - 1));
      const int ady = (int)(tie >> 1);
      key = me_key ((uint32_t)(b >> TIE_BITS), dx, (tie & 1) ? ady : -ady);
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
          (unsigned long long *)&a.keys[blockIdx.y]
              [a.grid_offset[p] + (size_t)gy * a.mb_cols * sw + gx],
          (unsigned long long)key);
    }
  }
}

cudaError_t
me_cuda_launch_search_batch (const MECudaBatchFrame *frames, unsigned n,
    const MECudaGeometry *g, unsigned range, unsigned range_y,
    unsigned partitions, int sm_count, cudaStream_t stream)
{
  return me_cuda_launch_search_split (
      frames, n, g, range, range_y, partitions, sm_count, 0, stream);
}

cudaError_t
me_cuda_launch_search_split (const MECudaBatchFrame *frames, unsigned n,
    const MECudaGeometry *g, unsigned range, unsigned range_y,
    unsigned partitions, int sm_count, unsigned chunks, cudaStream_t stream)
{
  if (n == 0 || n > ME_CUDA_BATCH_MAX)
    return cudaErrorInvalidValue;
  SearchArgs a;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);

  for (unsigned i = 0; i < n; i++) {
    a.cur[i] = frames[i].cur;
    a.ref[i] = frames[i].ref;
    a.keys[i] = frames[i].keys;
  }
  a.pitch = g->pitch;
  a.mb_cols = g->mb_cols;
  a.mb_rows = g->mb_rows;
  a.range = (int)range;
  a.range_y = (int)range_y;
  a.partitions = partitions;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    a.grid_offset[p] = (size_t)offsets[p];

  const int bs = (partitions & ~GST_MOTION_VECTOR_PARTITIONS_16X16) == 0 ? 16
                 : (partitions & (GST_MOTION_VECTOR_PARTITIONS_8X4 |
                                     GST_MOTION_VECTOR_PARTITIONS_4X8 |
                                     GST_MOTION_VECTOR_PARTITIONS_4X4))
                     ? 4
                     : 8;
  /* One (macroblock, dx) thread walks the whole dy range unless a
   * benchmark splits it (`chunks`): a thread loads its current block and
   * reduces its minima once whatever rows it walks, so splitting adds that
   * cost per chunk, and measured on an H200 it never paid, at any size from
   * 640x360 to 4K, R = 16 or 32, 16x16 or all shapes, even where the
   * threads of one frame fill less than the chip (docs/cuda-backend.md,
   * "The dy split").  The kernel's G groups then cover the range with at
   * most one short group at the end. */
  const unsigned ndx = 2 * range + 1, ndy = 2 * range_y + 1;
  const uint64_t pairs = (uint64_t)g->mb_cols * g->mb_rows * ndx;
  const unsigned nchunks = chunks ? MIN (chunks, ndy) : 1;
  a.chunk_rows = (ndy + nchunks - 1) / nchunks;
  a.nchunks = (ndy + a.chunk_rows - 1) / a.chunk_rows;
  (void)sm_count;

  const uint64_t threads = pairs * a.nchunks;
  if (threads > 0x7fffffffull)
    return cudaErrorInvalidConfiguration;
  a.threads = (unsigned)threads;
  const dim3 blocks (
      (unsigned)((threads + SEARCH_THREADS - 1) / SEARCH_THREADS), n);

  if (g->bps == 2) {
    if (bs == 16)
      search_kernel<16, uint16_t><<<blocks, SEARCH_THREADS, 0, stream>>> (a);
    else if (bs == 8)
      search_kernel<8, uint16_t><<<blocks, SEARCH_THREADS, 0, stream>>> (a);
    else
      search_kernel<4, uint16_t><<<blocks, SEARCH_THREADS, 0, stream>>> (a);
  } else {
    if (bs == 16)
      search_kernel<16, uint8_t><<<blocks, SEARCH_THREADS, 0, stream>>> (a);
    else if (bs == 8)
      search_kernel<8, uint8_t><<<blocks, SEARCH_THREADS, 0, stream>>> (a);
    else
      search_kernel<4, uint8_t><<<blocks, SEARCH_THREADS, 0, stream>>> (a);
  }
  return cudaGetLastError ();
}

cudaError_t
me_cuda_launch_search (const uint8_t *cur, const uint8_t *ref,
    const MECudaGeometry *g, unsigned range, unsigned range_y,
    unsigned partitions, uint64_t *keys, int sm_count, cudaStream_t stream)
{
  MECudaBatchFrame f = { cur, ref, keys, NULL };
  return me_cuda_launch_search_batch (
      &f, 1, g, range, range_y, partitions, sm_count, stream);
}

/* ---- key reset ---------------------------------------------------------- */

#define RESET_THREADS 256

/* Every key of every frame of a batch to ME_KEY_NONE (all ones), a grid
 * row per frame: one launch where a memset per frame would be n. */
__global__ void
__launch_bounds__ (RESET_THREADS) key_reset_kernel (
    const MECudaBatchKeys k, size_t nkeys)
{
  uint64_t *keys = k.keys[blockIdx.y];
  for (size_t i = (size_t)blockIdx.x * RESET_THREADS + threadIdx.x; i < nkeys;
       i += (size_t)gridDim.x * RESET_THREADS)
    keys[i] = ~(uint64_t)0;
}

cudaError_t
me_cuda_launch_key_reset_batch (const MECudaBatchFrame *frames, unsigned n,
    size_t nkeys, cudaStream_t stream)
{
  if (n == 0 || n > ME_CUDA_BATCH_MAX)
    return cudaErrorInvalidValue;
  MECudaBatchKeys k;
  for (unsigned i = 0; i < n; i++)
    k.keys[i] = frames[i].keys;
  size_t blocks = (nkeys + RESET_THREADS - 1) / RESET_THREADS;
  if (blocks > 1024)
    blocks = 1024;
  if (blocks == 0)
    return cudaSuccess;
  key_reset_kernel<<<dim3 ((unsigned)blocks, n), RESET_THREADS, 0, stream>>> (
      k, nkeys);
  return cudaGetLastError ();
}

/* Whether this build's kernels can run on the current device (machine code
 * for it, or PTX it can compile). */
extern "C" cudaError_t
me_cuda_kernels_check (void)
{
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes (&attr, search_kernel<16, uint8_t>);
}
