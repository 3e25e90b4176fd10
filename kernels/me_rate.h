/* gpumotionest — the rate term of a rate-constrained decision: the bits an
 * H.264 encoder spends on a motion vector difference, shared by C and CUDA.
 *
 * Each MVD component (quarter pixels) is coded as a signed Exp-Golomb
 * se(v) (clause 9.1.1): v > 0 maps to codeNum 2v - 1, v <= 0 to -2v, and
 * codeNum k takes 2 floor(log2(k + 1)) + 1 bits.  A candidate vector costs
 * distortion + lambda x (bits(mvd_x) + bits(mvd_y)).
 */
#ifndef ME_RATE_H
#define ME_RATE_H

#include <stdint.h>
#include "me_cost.h"

/* Largest lambda: an MVD component lies within +-4094 (vector and
 * prediction each within +-2047), 25 bits at most, so 50 bits for two;
 * times this (3.3 million), plus a 16x16 SATD, stays far below
 * ME_KEY_MAX_COST. */
#define ME_MAX_LAMBDA 65535

/* The rate term at `depth` bits per sample (docs/high-bit-depth.md): a
 * difference of one step of an 8-bit sample is 2^(depth - 8) steps of a
 * deeper one, so distortion grows by that factor and lambda is scaled by
 * the same to keep the trade-off of the same picture at any depth:
 * lambda is given in 8-bit units, and the search uses this. */
ME_INLINE uint32_t
me_lambda_at_depth (uint32_t lambda, unsigned depth)
{
  return depth > 8 ? lambda << (depth - 8) : lambda;
}

/* The largest lambda at `depth`: its scaled value stays <= ME_MAX_LAMBDA,
 * so that distortion (a 16x16 SATD of 16-bit samples is below 2^26) plus
 * the rate stays below ME_KEY_MAX_COST. */
ME_INLINE uint32_t
me_max_lambda_at_depth (unsigned depth)
{
  return depth > 8 ? ME_MAX_LAMBDA >> (depth - 8) : ME_MAX_LAMBDA;
}

ME_INLINE uint32_t
me_se_bits (int v)
{
  const uint32_t k = v > 0 ? 2u * (uint32_t) v - 1 : 2u * (uint32_t) (-v);
#ifdef __CUDA_ARCH__
  return 2 * (31 - __clz (k + 1)) + 1;
#else
  return 2 * (31 - __builtin_clz (k + 1)) + 1;
#endif
}

/* lambda x the bits of the MVD (qx - px, qy - py). */
ME_INLINE uint32_t
me_mv_rate (uint32_t lambda, int qx, int qy, int px, int py)
{
  return lambda * (me_se_bits (qx - px) + me_se_bits (qy - py));
}

#endif /* ME_RATE_H */
