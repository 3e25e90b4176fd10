/* gpumotionest — device pieces shared by the fast methods' kernels
 * (me_cuda_mods.cu, me_cuda_hier.cu, me_cuda_pred.cu): the 16x16 SAD of one
 * candidate with the sums of every requested shape, and the reduction of
 * per-lane minima into the key grids.
 *
 * A fast method costs a few scattered candidates per macroblock, so unlike
 * the full search (me_cuda_search.cu) nothing here shares reference rows
 * between candidates: a thread costs one candidate at a time, with the
 * current block in its registers.  BS picks what a candidate's SAD is split
 * into, as in the full search: 16 (16x16 only), 8 (four 8x8 sums: shapes
 * down to 8x8) or 4 (sixteen 4x4 sums: all seven shapes).
 *
 * Everything that reads samples is a template over their type `pixel`
 * (me_cuda_pixel.cuh): a row of 16 samples is W = 16 / PW words, 4 for
 * bytes and 8 for 16-bit samples; pointers are bytes, pitches in bytes.
 * The sums are 32-bit for either; the keys are full me_key() values.
 */
#ifndef ME_CUDA_FAST_CUH
#define ME_CUDA_FAST_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_cuda_kernels.h"
#include "me_cuda_pixel.cuh"

#define ME_FULL_MASK 0xffffffffu

/* Sub-block sums per candidate (NB) and partition sums (NI, in the shape
 * table's block order, GST_MOTION_VECTOR_PARTITION_FIRST) for split BS. */
template <int BS>
struct MeSplit;
template <>
struct MeSplit<16> {
  static const int NB = 1, NI = 1;
};
template <>
struct MeSplit<8> {
  static const int NB = 4, NI = 9;
};
template <>
struct MeSplit<4> {
  static const int NB = 16, NI = 41;
};

/* The split that covers the requested shapes at the least cost. */
static inline int
me_fast_split (unsigned partitions)
{
  if ((partitions & ~GST_MOTION_VECTOR_PARTITIONS_16X16) == 0)
    return 16;
  if (partitions & (GST_MOTION_VECTOR_PARTITIONS_8X4 |
                       GST_MOTION_VECTOR_PARTITIONS_4X8 |
                       GST_MOTION_VECTOR_PARTITIONS_4X4))
    return 4;
  return 8;
}

/* Shape of partition number n (0 .. 40). */
static __host__ __device__ constexpr int
me_fast_shape_of (int n)
{
  return n < GST_MOTION_VECTOR_PARTITION_FIRST (1)   ? 0
         : n < GST_MOTION_VECTOR_PARTITION_FIRST (2) ? 1
         : n < GST_MOTION_VECTOR_PARTITION_FIRST (3) ? 2
         : n < GST_MOTION_VECTOR_PARTITION_FIRST (4) ? 3
         : n < GST_MOTION_VECTOR_PARTITION_FIRST (5) ? 4
         : n < GST_MOTION_VECTOR_PARTITION_FIRST (6) ? 5
                                                     : 6;
}

/* Words per row of 16 samples. */
template <typename pixel>
struct MeRow {
  static constexpr int W = 16 / MePix<pixel>::PW;
};

/* The 16x16 current block of macroblock (mbx, mby), PW pixels a word;
 * `cur` is pixel (0, 0) of the padded frame. */
template <typename pixel>
static __device__ __forceinline__ void
me_fast_load_block (const uint8_t *cur, size_t pitch, int mbx, int mby,
    uint32_t (&c)[16][MeRow<pixel>::W])
{
  const uint8_t *cb = cur + (ptrdiff_t)(16 * mby) * (ptrdiff_t)pitch +
                      (ptrdiff_t)(16 * mbx) * (ptrdiff_t)sizeof (pixel);
#pragma unroll
  for (int y = 0; y < 16; y++)
    me_pix_aligned_words<MeRow<pixel>::W> (cb + (size_t)y * pitch, c[y]);
}

/* Where the reference rows of a block at frame pixel (x, y) start: the
 * aligned word holding that pixel, and the byte-permute selector that
 * realigns W + 1 loaded words into W.  `ref` is pixel (0, 0). */
template <typename pixel>
static __device__ __forceinline__ const uint32_t *
me_fast_ref_row (const uint8_t *ref, size_t pitch, int x, int y, uint32_t *sel)
{
  return me_pix_aligned (ref + (ptrdiff_t)y * (ptrdiff_t)pitch +
                             (ptrdiff_t)x * (ptrdiff_t)sizeof (pixel),
      sel);
}

/* The 16 reference samples of the row at `p` (me_fast_ref_row()), as W
 * words realigned by `sel`: W + 1 loads and W byte permutes. */
template <typename pixel>
static __device__ __forceinline__ void
me_fast_row16 (const uint32_t *p, uint32_t sel,
    uint32_t (&q)[MeRow<pixel>::W])
{
  me_pix_words<MeRow<pixel>::W> (p, sel, q);
}

/* The sub-block sums of the 16x16 block whose reference rows start at
 * `row` (me_fast_ref_row). */
template <int BS, typename pixel>
static __device__ __forceinline__ void
me_fast_sad (const uint32_t (&c)[16][MeRow<pixel>::W], const uint32_t *row,
    size_t wpitch, uint32_t sel, uint32_t (&acc)[MeSplit<BS>::NB])
{
  typedef MePix<pixel> Pix;
  constexpr int W = MeRow<pixel>::W;
#pragma unroll
  for (int b = 0; b < MeSplit<BS>::NB; b++)
    acc[b] = 0;
#pragma unroll
  for (int y = 0; y < 16; y++) {
    uint32_t q[W];
    me_fast_row16<pixel> (row + (size_t)y * wpitch, sel, q);
#pragma unroll
    for (int k = 0; k < W; k++) {
      /* word k holds pixels k * PW .. k * PW + PW - 1 of the row */
      const int b = (y / BS) * (16 / BS) + (k * Pix::PW) / BS;
      acc[b] = Pix::sad (c[y][k], q[k], acc[b]);
    }
  }
}

/* Partition sums from sub-block sums, in block order: s[0] is the 16x16
 * SAD, which guides every method. */
template <int BS>
static __device__ __forceinline__ void
me_fast_part_sums (
    const uint32_t (&acc)[MeSplit<BS>::NB], uint32_t (&s)[MeSplit<BS>::NI])
{
  if constexpr (BS == 16) {
    s[0] = acc[0];
  } else {
    uint32_t s8[4];
    if constexpr (BS == 8) {
#pragma unroll
      for (int b = 0; b < 4; b++)
        s8[b] = acc[b];
    } else {
      /* 4x4 sub-blocks b = row * 4 + col; 8x4 and 4x8 from pairs */
#pragma unroll
      for (int b = 0; b < 16; b++)
        s[GST_MOTION_VECTOR_PARTITION_FIRST (6) + b] = acc[b];
#pragma unroll
      for (int r = 0; r < 4; r++)
#pragma unroll
        for (int c = 0; c < 2; c++)
          s[GST_MOTION_VECTOR_PARTITION_FIRST (4) + r * 2 + c] =
              acc[r * 4 + 2 * c] + acc[r * 4 + 2 * c + 1];
#pragma unroll
      for (int r = 0; r < 2; r++)
#pragma unroll
        for (int c = 0; c < 4; c++)
          s[GST_MOTION_VECTOR_PARTITION_FIRST (5) + r * 4 + c] =
              acc[2 * r * 4 + c] + acc[(2 * r + 1) * 4 + c];
#pragma unroll
      for (int r = 0; r < 2; r++)
#pragma unroll
        for (int c = 0; c < 2; c++) {
          const int e = GST_MOTION_VECTOR_PARTITION_FIRST (4);
          s8[r * 2 + c] = s[e + 2 * r * 2 + c] + s[e + (2 * r + 1) * 2 + c];
        }
    }
#pragma unroll
    for (int b = 0; b < 4; b++)
      s[GST_MOTION_VECTOR_PARTITION_FIRST (3) + b] = s8[b];
    s[GST_MOTION_VECTOR_PARTITION_FIRST (1)] = s8[0] + s8[1];
    s[GST_MOTION_VECTOR_PARTITION_FIRST (1) + 1] = s8[2] + s8[3];
    s[GST_MOTION_VECTOR_PARTITION_FIRST (2)] = s8[0] + s8[2];
    s[GST_MOTION_VECTOR_PARTITION_FIRST (2) + 1] = s8[1] + s8[3];
    s[0] = s8[0] + s8[1] + s8[2] + s8[3];
  }
}

/* Candidate (dx, dy) of macroblock (mbx, mby) for every requested shape:
 * best[n] = min (best[n], its key); returns the guide key (16x16). */
template <int BS, typename pixel>
static __device__ __forceinline__ uint64_t
me_fast_visit (const uint32_t (&c)[16][MeRow<pixel>::W], const uint8_t *ref,
    size_t pitch, int mbx, int mby, int dx, int dy, unsigned parts,
    uint64_t (&best)[MeSplit<BS>::NI])
{
  uint32_t sel;
  const uint32_t *row =
      me_fast_ref_row<pixel> (ref, pitch, 16 * mbx + dx, 16 * mby + dy, &sel);
  uint32_t acc[MeSplit<BS>::NB], s[MeSplit<BS>::NI];
  me_fast_sad<BS, pixel> (c, row, pitch / 4, sel, acc);
  me_fast_part_sums<BS> (acc, s);
#pragma unroll
  for (int n = 0; n < MeSplit<BS>::NI; n++) {
    if (!(parts & (1u << me_fast_shape_of (n))))
      continue;
    const uint64_t k = me_key (s[n], dx, dy);
    best[n] = k < best[n] ? k : best[n];
  }
  return me_key (s[0], dx, dy);
}

/* The smallest key across the warp, in every lane. */
static __device__ __forceinline__ uint64_t
me_fast_warp_min (uint64_t k)
{
#pragma unroll
  for (int off = 16; off >= 1; off >>= 1) {
    const uint64_t o = __shfl_xor_sync (ME_FULL_MASK, k, off);
    k = o < k ? o : k;
  }
  return k;
}

/* Cell of partition n of macroblock (mbx, mby) in the grid of its shape. */
static __device__ __forceinline__ size_t
me_fast_cell (int n, unsigned mb_cols, int mbx, int mby)
{
  const int p = me_fast_shape_of (n);
  const int k = n - GST_MOTION_VECTOR_PARTITION_FIRST (p);
  const int sw = 16 / GST_MOTION_VECTOR_PARTITION_W (p);
  const int sh = 16 / GST_MOTION_VECTOR_PARTITION_H (p);
  return (size_t)(mby * sh + k / sw) * mb_cols * sw + mbx * sw + k % sw;
}

/* A whole warp's minima of macroblock (mbx, mby) into the key grids. */
template <int BS>
static __device__ __forceinline__ void
me_fast_store (const uint64_t (&best)[MeSplit<BS>::NI], unsigned parts,
    uint64_t *const *keys, unsigned mb_cols, int mbx, int mby)
{
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int n = 0; n < MeSplit<BS>::NI; n++) {
    const int p = me_fast_shape_of (n);
    if (!(parts & (1u << p)))
      continue;
    const uint64_t k = me_fast_warp_min (best[n]);
    if (lane == 0)
      keys[p][me_fast_cell (n, mb_cols, mbx, mby)] = k;
  }
}

#endif /* ME_CUDA_FAST_CUH */
