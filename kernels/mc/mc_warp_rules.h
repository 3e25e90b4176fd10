/* gpumotionest — the per-sample rule of the warp (mc_warp_plane(),
 * mc_warp_picture()), written once for C and CUDA alike (ME_INLINE), so
 * that the C reference and the CUDA kernel make the same samples bit for
 * bit.  docs/motion-compensation.md ("Warping") gives the reasons.
 *
 *   position    output sample (x, y) reads the input at
 *               (xx x + xy y + x0, yx x + yy y + y0) / 2^16: coefficients
 *               in 16.16 fixed point, the products and sums in 64 bits, so
 *               the position is exact (no rounding before the taps)
 *   taps        the four samples around it, the integer part floor
 *               (arithmetic shift), each coordinate clamped into the plane
 *               (the nearest edge sample, as mc_clamp() does everywhere in
 *               the library)
 *   weights     the fraction cut to MC_WARP_FRAC_BITS (8: 1/256 sample),
 *               bilinear, the sum of the four products rounded half up
 *               and shifted down by 16; weights sum to 2^16 and are not
 *               negative, so the result lies between the four samples
 *               and needs no clipping; the largest sum,
 *               65535 x 65536 + 32768, fits 32 unsigned bits
 */
#ifndef MC_WARP_RULES_H
#define MC_WARP_RULES_H

#include <stdint.h>
#include "mc_rules.h"

#define MC_WARP_SHIFT 16
#define MC_WARP_FRAC_BITS 8
#define MC_WARP_FRAC_ONE (1 << MC_WARP_FRAC_BITS)

/* One coordinate of the source position, 16.16, of output sample (x, y)
 * under the row (a, b, t) of the transform: a x + b y + t. */
ME_INLINE int64_t
mc_warp_pos (int32_t a, int32_t b, int64_t t, int x, int y)
{
  return (int64_t) a * x + (int64_t) b * y + t;
}

/* The two tap coordinates (clamped into 0 .. n - 1) and the fraction
 * (0 .. MC_WARP_FRAC_ONE - 1) of a source coordinate p (16.16). */
ME_INLINE void
mc_warp_taps (int64_t p, int n, int *i0, int *i1, int *f)
{
  int64_t i = p >> MC_WARP_SHIFT;
  /* far outside: any position past the edge reads the edge */
  if (i < -1)
    i = -1;
  if (i > n)
    i = n;
  *i0 = mc_clamp ((int) i, n);
  *i1 = mc_clamp ((int) i + 1, n);
  *f = (int) ((p >> (MC_WARP_SHIFT - MC_WARP_FRAC_BITS))
      & (MC_WARP_FRAC_ONE - 1));
}

/* The bilinear sample between A (x0, y0), B (x1, y0), C (x0, y1) and
 * D (x1, y1) at fraction (fx, fy) in 1/256ths. */
ME_INLINE int
mc_warp_bilinear (int A, int B, int C, int D, int fx, int fy)
{
  const uint32_t gx = (uint32_t) (MC_WARP_FRAC_ONE - fx);
  const uint32_t gy = (uint32_t) (MC_WARP_FRAC_ONE - fy);
  const uint32_t ux = (uint32_t) fx, uy = (uint32_t) fy;
  const uint32_t s = gx * gy * (uint32_t) A + ux * gy * (uint32_t) B
      + gx * uy * (uint32_t) C + ux * uy * (uint32_t) D
      + (1u << (2 * MC_WARP_FRAC_BITS - 1));
  return (int) (s >> (2 * MC_WARP_FRAC_BITS));
}

#endif /* MC_WARP_RULES_H */
