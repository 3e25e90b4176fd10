/* gpumotionest — a macroblock's 41 partitions as sums over its sixteen 4x4
 * blocks, for C and CUDA alike (ME_INLINE).
 *
 * Every shape is a union of 4x4 blocks, so one set of sixteen per-4x4
 * values (SADs, or the bounds |current sum - reference sum| of exact
 * elimination, docs/elimination.md) gives the value of every partition.
 * The order is the shape table's block order (gstmotionvectortypes.h):
 * 16x16, 16x8 top and bottom, 8x16 left and right, the 8x8 quarters, then
 * 8x4, 4x8 and 4x4 blocks, each in raster order.  The SIMD routines that
 * keep partitions in vector lanes index their limits in this order too;
 * checkasm checks every routine against the C one built on this.
 */
#ifndef ME_PARTS_H
#define ME_PARTS_H

#include <stdint.h>

#include "me_cost.h"

#define ME_PARTS 41

#ifdef __CUDACC__
#define ME_PARTS_UNROLL _Pragma ("unroll")
#else
#define ME_PARTS_UNROLL
#endif

/* c[k] = the sum of b[] over partition k's 4x4 blocks, b[4 * row + col]. */
ME_INLINE void
me_part_sums (const uint32_t *b, uint32_t *c)
{
  const uint32_t q0 = b[0] + b[1] + b[4] + b[5];
  const uint32_t q1 = b[2] + b[3] + b[6] + b[7];
  const uint32_t q2 = b[8] + b[9] + b[12] + b[13];
  const uint32_t q3 = b[10] + b[11] + b[14] + b[15];
  int k = 0;

  c[k++] = q0 + q1 + q2 + q3;   /* 16x16 */
  c[k++] = q0 + q1;             /* 16x8 top, bottom */
  c[k++] = q2 + q3;
  c[k++] = q0 + q2;             /* 8x16 left, right */
  c[k++] = q1 + q3;
  c[k++] = q0;                  /* 8x8 */
  c[k++] = q1;
  c[k++] = q2;
  c[k++] = q3;
  ME_PARTS_UNROLL
  for (int y = 0; y < 4; y++)   /* 8x4 */
    ME_PARTS_UNROLL
    for (int x = 0; x < 4; x += 2)
      c[k++] = b[4 * y + x] + b[4 * y + x + 1];
  ME_PARTS_UNROLL
  for (int y = 0; y < 4; y += 2)        /* 4x8 */
    ME_PARTS_UNROLL
    for (int x = 0; x < 4; x++)
      c[k++] = b[4 * y + x] + b[4 * y + x + 4];
  ME_PARTS_UNROLL
  for (int j = 0; j < 16; j++)  /* 4x4 */
    c[k++] = b[j];
}

#endif /* ME_PARTS_H */
