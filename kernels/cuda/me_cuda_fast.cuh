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
 */
#ifndef ME_CUDA_FAST_CUH
#define ME_CUDA_FAST_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_cuda_kernels.h"
#include "me_cuda_vsad.cuh"

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

/* The 16x16 current block of macroblock (mbx, mby), 4 pixels a word;
 * `cur` is pixel (0, 0) of the padded frame. */
static __device__ __forceinline__ void
me_fast_load_block (const uint8_t *cur, size_t pitch, int mbx, int mby,
    uint32_t (&c)[16][4])
{
  const uint8_t *cb = cur + (ptrdiff_t)(16 * mby) * (ptrdiff_t)pitch + 16 * mbx;
#pragma unroll
  for (int y = 0; y < 16; y++) {
    const uint4 v = __ldg ((const uint4 *)(cb + (size_t)y * pitch));
    c[y][0] = v.x;
    c[y][1] = v.y;
    c[y][2] = v.z;
    c[y][3] = v.w;
  }
}

/* Where the reference rows of a block at frame pixel (x, y) start: the
 * aligned word holding that pixel, and the byte-permute selector that
 * realigns 5 loaded words into 4.  `ref` is pixel (0, 0). */
static __device__ __forceinline__ const uint32_t *
me_fast_ref_row (const uint8_t *ref, size_t pitch, int x, int y, uint32_t *sel)
{
  const uintptr_t addr = (uintptr_t)(ref + (ptrdiff_t)y * (ptrdiff_t)pitch + x);
  const uint32_t shift = (uint32_t)(addr & 3);
  *sel = 0x3210u + 0x1111u * shift;
  return (const uint32_t *)(addr - shift);
}

/* The 16 reference bytes of the row at `p` (me_fast_ref_row()), as four
 * words realigned by `sel`: 5 loads and 4 byte permutes. */
static __device__ __forceinline__ void
me_fast_row16 (const uint32_t *p, uint32_t sel, uint32_t (&q)[4])
{
  uint32_t w[5];
#pragma unroll
  for (int k = 0; k < 5; k++)
    w[k] = __ldg (p + k);
#pragma unroll
  for (int k = 0; k < 4; k++)
    q[k] = __byte_perm (w[k], w[k + 1], sel);
}

/* The sub-block sums of the 16x16 block whose reference rows start at
 * `row` (me_fast_ref_row). */
template <int BS>
static __device__ __forceinline__ void
me_fast_sad (const uint32_t (&c)[16][4], const uint32_t *row, size_t wpitch,
    uint32_t sel, uint32_t (&acc)[MeSplit<BS>::NB])
{
#pragma unroll
  for (int b = 0; b < MeSplit<BS>::NB; b++)
    acc[b] = 0;
#pragma unroll
  for (int y = 0; y < 16; y++) {
    uint32_t q[4];
    me_fast_row16 (row + (size_t)y * wpitch, sel, q);
#pragma unroll
    for (int k = 0; k < 4; k++) {
      const int b = (y / BS) * (16 / BS) + (k * 4) / BS;
      acc[b] = me_vsad4 (c[y][k], q[k], acc[b]);
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
template <int BS>
static __device__ __forceinline__ uint64_t
me_fast_visit (const uint32_t (&c)[16][4], const uint8_t *ref, size_t pitch,
    int mbx, int mby, int dx, int dy, unsigned parts,
    uint64_t (&best)[MeSplit<BS>::NI])
{
  uint32_t sel;
  const uint32_t *row =
      me_fast_ref_row (ref, pitch, 16 * mbx + dx, 16 * mby + dy, &sel);
  uint32_t acc[MeSplit<BS>::NB], s[MeSplit<BS>::NI];
  me_fast_sad<BS> (c, row, pitch / 4, sel, acc);
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
