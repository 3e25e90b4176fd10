/* gpumotionest — the comparison key that makes every backend agree.
 *
 * A candidate vector (qx, qy), in quarter pixels, with matching cost `cost`
 * is ranked by one 64-bit key; the smallest key wins:
 *
 *   bits 63..36  cost               28 bits   lowest cost first
 *   bits 35..24  |qx| + |qy|        12 bits   then the shortest vector (L1)
 *   bits 23..12  qy + 2048          12 bits   then the topmost
 *   bits 11..0   qx + 2048          12 bits   then the leftmost
 *
 * Every key is distinct, so the minimum is unique and any reduction order
 * (a CPU loop, a GPU tree, atomics) returns the same vector.  Components
 * reach +-2047 quarter pixels (+-511.75 pixels), so the L1 norm fits 12
 * bits.  The cost is whatever the stage ranks by (SAD today; SATD and rate
 * terms later) and saturates at ME_KEY_MAX_COST: a 16x16 SAD is at most
 * 65280, far below it.
 *
 * Whole-pixel candidates are keyed at 4x their pixel offsets, so among them
 * the order is the same as ranking by cost, |dx| + |dy|, dy, dx in pixels:
 * the integer stages rank with narrower keys of their own (dsp.h, the CUDA
 * search) that follow this order exactly.  Written for C and CUDA alike.
 */
#ifndef ME_COST_H
#define ME_COST_H

#include <stdint.h>

#ifdef __CUDACC__
#define ME_INLINE static __host__ __device__ __forceinline__
#else
#define ME_INLINE static inline
#endif

/* The fast methods and windows off centre reach ME_MAX_RANGE.  The
 * exhaustive search (centred) reaches ME_MAX_FULL_RANGE: the key's vector
 * field holds +-2047 quarter pixels, 4 x 511 plus the refinement's 3, and a
 * row of 2 x 511 + 1 candidates fits the CPU backend's group buffers
 * (docs/elimination.md).  A backend may stop earlier (MEBackendCaps.
 * max_full_range); every backend's full search reaches ME_MAX_VIEWS_RANGE,
 * the half width of a stereo disparity window. */
#define ME_MAX_RANGE 256
#define ME_MAX_FULL_RANGE 511
#define ME_MAX_VIEWS_RANGE 128
#define ME_KEY_NONE UINT64_MAX
#define ME_KEY_MAX_COST ((1u << 28) - 1)
#define ME_KEY_MAX_QPEL 2047

/* Key of the quarter-pel vector (qx, qy), |qx|, |qy| <= ME_KEY_MAX_QPEL. */
ME_INLINE uint64_t
me_key_qpel (uint32_t cost, int qx, int qy)
{
  uint32_t aqx = qx < 0 ? -qx : qx, aqy = qy < 0 ? -qy : qy;
  uint64_t c = cost < ME_KEY_MAX_COST ? cost : ME_KEY_MAX_COST;
  return (c << 36) | ((uint64_t) (aqx + aqy) << 24)
      | ((uint64_t) (qy + 2048) << 12) | (uint64_t) (qx + 2048);
}

/* Key of the whole-pixel vector (dx, dy). */
ME_INLINE uint64_t
me_key (uint32_t cost, int dx, int dy)
{
  return me_key_qpel (cost, 4 * dx, 4 * dy);
}

ME_INLINE uint32_t
me_key_cost (uint64_t key)
{
  return (uint32_t) (key >> 36);
}

ME_INLINE int
me_key_qx (uint64_t key)
{
  return (int) (key & 0xfff) - 2048;
}

ME_INLINE int
me_key_qy (uint64_t key)
{
  return (int) ((key >> 12) & 0xfff) - 2048;
}

/* Pixel components of a whole-pixel key. */
ME_INLINE int
me_key_dx (uint64_t key)
{
  return me_key_qx (key) / 4;
}

ME_INLINE int
me_key_dy (uint64_t key)
{
  return me_key_qy (key) / 4;
}

#endif /* ME_COST_H */
