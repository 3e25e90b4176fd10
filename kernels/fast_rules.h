/* gpumotionest — the rules of the fast search methods (docs/fast-search.md),
 * shared by every backend and written for C and CUDA alike (ME_INLINE).
 *
 * Only the definitions live here: step schedules, pyramid ranges, the
 * decimation, the predictor list.  Each backend walks them its own way,
 * and checkasm checks that the walks agree.
 */
#ifndef ME_FAST_RULES_H
#define ME_FAST_RULES_H

#include "me_cost.h"

/* ---- mods ---------------------------------------------------------------- */

/* The first step's spacing: the smallest power of two s1 with 4 s1 > R. */
ME_INLINE int
me_mods_first_step (int range)
{
  int s = 1;
  while (4 * s <= range)
    s *= 2;
  return s;
}

/* Largest k with |k s1| <= R in the first step {k s1 : k = -3 .. 3}. */
ME_INLINE int
me_mods_first_reach (int range, int s1)
{
  const int k = range / s1;
  return k < 3 ? k : 3;
}

/* ---- hierarchical -------------------------------------------------------- */

/* Levels 1 and 0 cost the union of squares around doubled winners of the
 * level below: +-ME_HIER_REFINE around the macroblock's own and
 * +-ME_HIER_NEIGHBOUR_REFINE around each of its 8 neighbours' */
#define ME_HIER_REFINE 3
#define ME_HIER_NEIGHBOUR_REFINE 3
#define ME_HIER_NEIGHBOURS 8
/* a neighbour's centre equal to the macroblock's adds nothing to the union
 * (both backends skip it) only while its square is no larger */
#if ME_HIER_NEIGHBOUR_REFINE > ME_HIER_REFINE
#error "a neighbour's square must not be larger than the macroblock's"
#endif
/* the macroblock's own centre and its neighbours' */
#define ME_HIER_CENTRES (1 + ME_HIER_NEIGHBOURS)
/* candidates of a level-0 set at most: the squares and the zero vector */
#define ME_HIER_SET_MAX ((2 * ME_HIER_REFINE + 1) * (2 * ME_HIER_REFINE + 1) \
    + ME_HIER_NEIGHBOURS * (2 * ME_HIER_NEIGHBOUR_REFINE + 1) \
    * (2 * ME_HIER_NEIGHBOUR_REFINE + 1) + 1)

/* The dx (k = 0) and dy (k = 1) of neighbour i, 0 <= i < 8: left, right,
 * top, bottom, then the corners. */
ME_INLINE int
me_hier_neighbour (int i, int k)
{
  const int d[8][2] = { {-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, -1},
    {-1, 1}, {1, 1} };
  return d[i][k];
}

/* The window at level k: ceil(R / 2^k). */
ME_INLINE int
me_hier_range (int range, int level)
{
  return (range + (1 << level) - 1) >> level;
}

/* One sample of level k + 1 from the 2x2 square of level k under it. */
ME_INLINE uint8_t
me_hier_decimate (unsigned a, unsigned b, unsigned c, unsigned d)
{
  return (uint8_t) ((a + b + c + d + 2) >> 2);
}

/* The same for samples deeper than 8 bits: the mean of four samples of a
 * depth stays within that depth. */
ME_INLINE uint16_t
me_hier_decimate_16 (unsigned a, unsigned b, unsigned c, unsigned d)
{
  return (uint16_t) ((a + b + c + d + 2) >> 2);
}

/* ---- predictive ---------------------------------------------------------- */

#define ME_PRED_MAX_STEPS 32    /* times the 3x3 pattern is costed, at most */
/* The coarse predictors: hierarchical's level-2 winner (a full search of
 * the 4x4 block at a quarter of the resolution over +-ceil(R / 4)) of
 * the macroblocks at these offsets from the macroblock, those inside the
 * grid, each times 4; the macroblock's own first. */
#define ME_PRED_COARSE 1
ME_INLINE int
me_pred_coarse_offset (int i, int k)
{
  const int d[ME_PRED_COARSE][2] = { {0, 0} };
  return d[i][k];
}

#define ME_PRED_COARSE_SCALE 4
/* The zero vector's 8 neighbours (a 3x3 square, the zero vector in its
 * centre) are predictors too: whichever predictor wins, the smallest
 * motions are always costed. */
#define ME_PRED_ZERO_RING 8
/* zero, median, A, B, C-or-D, T(x, y), T(x + 1, y), T(x, y + 1), the
 * coarse predictors, the zero vector's neighbours */
#define ME_PRED_MAX_PREDICTORS (8 + ME_PRED_COARSE + ME_PRED_ZERO_RING)

ME_INLINE int
me_fast_clamp (int v, int range)
{
  return v < -range ? -range : v > range ? range : v;
}

ME_INLINE int
me_fast_inside (int dx, int dy, int range)
{
  return dx >= -range && dx <= range && dy >= -range && dy <= range;
}

#endif /* ME_FAST_RULES_H */
