/* gpumotionest — the comparison key that makes every backend agree.
 *
 * A candidate vector (dx, dy), in integer pixels, with matching cost `cost`
 * (SAD) is ranked by one 64-bit key; the smallest key wins:
 *
 *   bits 63..32  cost                      lowest cost first
 *   bits 31..18  |dx| + |dy|               then the shortest vector (L1)
 *   bits 17..9   dy + 128                  then the topmost
 *   bits  8..0   dx + 128                  then the leftmost
 *
 * Every key is distinct, so the minimum is unique and any reduction order
 * (a CPU loop, a GPU tree, atomics) returns the same vector.  |dx|, |dy| are
 * at most 128, so every field fits.  Written for C and CUDA alike.
 */
#ifndef ME_COST_H
#define ME_COST_H

#include <stdint.h>

#ifdef __CUDACC__
#define ME_INLINE static __host__ __device__ __forceinline__
#else
#define ME_INLINE static inline
#endif

#define ME_MAX_RANGE 128
#define ME_KEY_NONE UINT64_MAX

ME_INLINE uint64_t
me_key (uint32_t cost, int dx, int dy)
{
  uint32_t adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
  return ((uint64_t) cost << 32) | ((uint64_t) (adx + ady) << 18)
      | ((uint64_t) (dy + 128) << 9) | (uint64_t) (dx + 128);
}

ME_INLINE uint32_t
me_key_cost (uint64_t key)
{
  return (uint32_t) (key >> 32);
}

ME_INLINE int
me_key_dx (uint64_t key)
{
  return (int) (key & 0x1ff) - 128;
}

ME_INLINE int
me_key_dy (uint64_t key)
{
  return (int) ((key >> 9) & 0x1ff) - 128;
}

#endif /* ME_COST_H */
