/* gpumotionest — the luma the search reads from packed and RGB frames,
 * defined once for every backend (C and CUDA alike, ME_INLINE).
 *
 * Packed 4:2:2 (YUY2, UYVY, YVYU) carries its luma samples as they are,
 * every other byte: they are read, never recomputed.
 *
 * RGB carries no luma, so one is derived, in integers so that every
 * backend gives the same byte:
 *
 *   Y = (wr * R + wg * G + wb * B + 128) >> 8,   wr + wg + wb = 256
 *
 * with the matrix's coefficients scaled by 256 and rounded so that they
 * sum to 256 (a grey stays that grey, white stays 255):
 *
 *   BT.601  0.299 0.587 0.114     ->  77 150 29
 *   BT.709  0.2126 0.7152 0.0722  ->  54 183 19
 *
 * Full range: no 16..235 offset or scale, which a block-matching cost
 * does not need (it compares samples with samples) and which would only
 * fold 256 levels into 220.  The result is at most (256 * 255 + 128) >> 8
 * = 255, so it always fits a byte.
 */
#ifndef ME_LUMA_RULES_H
#define ME_LUMA_RULES_H

#include <stdint.h>
#include "me_cost.h"

#define ME_LUMA_BT601_WR 77
#define ME_LUMA_BT601_WG 150
#define ME_LUMA_BT601_WB 29

#define ME_LUMA_BT709_WR 54
#define ME_LUMA_BT709_WG 183
#define ME_LUMA_BT709_WB 19

/* The derived luma of one RGB sample; w = { wr, wg, wb }, summing to 256. */
ME_INLINE uint8_t
me_luma_from_rgb (unsigned r, unsigned g, unsigned b, const uint16_t w[3])
{
  return (uint8_t) ((w[0] * r + w[1] * g + w[2] * b + 128) >> 8);
}

/* The weights of a matrix: BT.709's when `bt709`, BT.601's otherwise. */
ME_INLINE void
me_luma_weights (int bt709, uint16_t w[3])
{
  w[0] = bt709 ? ME_LUMA_BT709_WR : ME_LUMA_BT601_WR;
  w[1] = bt709 ? ME_LUMA_BT709_WG : ME_LUMA_BT601_WG;
  w[2] = bt709 ? ME_LUMA_BT709_WB : ME_LUMA_BT601_WB;
}

#endif /* ME_LUMA_RULES_H */
