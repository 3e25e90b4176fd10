/* gpumotionest — the per-sample rules of motion compensation, written once
 * for C and CUDA alike (ME_INLINE, me_cost.h), so that every backend makes
 * the same pictures bit for bit.  All integer; docs/motion-compensation.md
 * gives each rule its reason.
 *
 *   luma        the search's own quarter samples (subpel_rules.h), at any
 *               depth: mc_luma_qpel()
 *   chroma      the luma vector read in eighths of a chroma sample and
 *               H.264's bilinear (clause 8.4.2.2.2): mc_chroma_mv8(),
 *               mc_chroma_bilinear(); 4:4:4 chroma takes the luma rule, as
 *               H.264 does for ChromaArrayType 3
 *   edges       a sample outside the plane is the nearest edge sample
 *               (Clip3 of the coordinates), what the search's edge-
 *               replicated planes hold: mc_clamp()
 *   overlap     the separable OBMC window: mc_obmc_margin(),
 *               mc_obmc_ramp(), weights of one direction summing to
 *               MC_OBMC_ONE everywhere, MC_OBMC_ONE^2 in two
 *   time        a vector scaled to t = num / den, rounded half away from
 *               zero: mc_scale_qpel()
 *   blend       two predictions mixed with a weight of 0 .. MC_BLEND_ONE
 *               for the first: mc_blend_sample(); the weight of a block
 *               from the two sides' costs: mc_cost_weight()
 *   denoise     the current sample and up to MC_DENOISE_MAX_REFS
 *               compensated references, weighted means rounded half up:
 *               mc_denoise_sample(); a reference's block weight from its
 *               cost and the noise level: mc_denoise_weight()
 *
 * Shifts of negative integers are arithmetic (floor), as in the search
 * (subpel_rules.h reads qx >> 2): GCC, Clang, MSVC and nvcc all do so.
 */
#ifndef MC_RULES_H
#define MC_RULES_H

#include <stdint.h>
#include "../me_cost.h"
#include "../subpel_rules.h"

/* ---- edges -------------------------------------------------------------- */

/* Coordinate v clamped into 0 .. n - 1. */
ME_INLINE int
mc_clamp (int v, int n)
{
  return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* ---- luma: the search's quarter samples -------------------------------- */

/* Margins of the 6-tap: a quarter sample at integer position (x, y) reads
 * full samples x - 2 .. x + 4 and y - 2 .. y + 4 (the half samples at x and
 * x + 1, each over -2 .. +3). */
#define MC_TAP_BEFORE 2
#define MC_TAP_AFTER 4

/* The sample at fraction (fx, fy), in quarters, of integer position p of a
 * 16-bit patch whose rows are `stride` samples apart, clipped to maxv =
 * 2^depth - 1.  It is the search's rule (subpel_rules.h) to the bit: the
 * two samples me_subpel_pair() names, each a full sample or one of the
 * half samples b, h, j, and their mean rounded up.  8-bit samples take the
 * same arithmetic with maxv = 255 (me_hpel_*_8 and _16 are one formula). */
ME_INLINE int
mc_luma_qpel (const uint16_t *p, ptrdiff_t stride, int fx, int fy, int maxv)
{
  const unsigned v = me_subpel_pair (fx, fy);
  int s[2];
  for (int k = 0; k < 2; k++) {
    const unsigned e = k ? v >> 4 : v & 15;
    const uint16_t *q = p + ME_SP_DY (e) * stride + ME_SP_DX (e);
    switch (ME_SP_PLANE (e)) {
      case ME_HPEL_F: s[k] = *q; break;
      case ME_HPEL_H: s[k] = me_hpel_h_16 (q, stride, maxv); break;
      case ME_HPEL_V: s[k] = me_hpel_v_16 (q, stride, maxv); break;
      default: s[k] = me_hpel_c_16 (q, stride, maxv); break;
    }
  }
  return (s[0] + s[1] + 1) >> 1;
}

/* ---- chroma: H.264's eighth-sample bilinear ---------------------------- */

/* One component of the chroma vector, in eighths of a chroma sample, from
 * the luma component mv (quarter luma samples) along a direction whose
 * chroma is subsampled by 2^sub (sub 1: 4:2:0 both ways, 4:2:2 across;
 * sub 0: 4:2:2 down).  A quarter luma sample is an eighth of a subsampled
 * chroma sample (H.264 8-229/8-230, mvCLX = mvLX) and a quarter of a full
 * one (8-231/8-232, 4:2:2's vertical (mvCLX[1] & 3) << 1).  Its integer
 * part is mv8 >> 3, its fraction mv8 & 7. */
ME_INLINE int
mc_chroma_mv8 (int mv, int sub)
{
  return sub ? mv : 2 * mv;
}

/* H.264 equation 8-266: the chroma sample at fraction (fx, fy), in
 * eighths, between A (x, y), B (x + 1, y), C (x, y + 1) and D (x + 1,
 * y + 1).  The weights sum to 64 and are not negative, so the result lies
 * between the four samples: no clipping at any depth.  The largest sum,
 * 64 x 65535 + 32, fits 22 bits. */
ME_INLINE int
mc_chroma_bilinear (int A, int B, int C, int D, int fx, int fy)
{
  return ((8 - fx) * (8 - fy) * A + fx * (8 - fy) * B + (8 - fx) * fy * C
      + fx * fy * D + 32) >> 6;
}

/* ---- overlapped blocks ------------------------------------------------- */

/* The window of one direction is in units of MC_OBMC_ONE; a sample's
 * weight in two directions is the product, in MC_OBMC_ONE^2 =
 * 2^MC_OBMC_BITS2. */
#define MC_OBMC_SHIFT 6
#define MC_OBMC_ONE (1 << MC_OBMC_SHIFT)
#define MC_OBMC_BITS2 (2 * MC_OBMC_SHIFT)

/* The blend margin of a block n samples long (2, 4, 8 or 16): the window
 * reaches `o` samples past each end of the block, so two neighbours share
 * a zone 2o wide centred on their common edge, and the middle n - 2o of
 * the block is the block's own prediction alone.  o = n / 4, at least 1:
 * 1, 1, 2, 4. */
ME_INLINE int
mc_obmc_margin (int n)
{
  return n >= 8 ? n / 4 : 1;
}

/* The rising side of the window: weight of index i (0 .. 2o - 1) of the
 * zone, counted from its outer end, (2i + 1) MC_OBMC_ONE / 4o: a straight
 * ramp through the zone's sample centres.  With o in {1, 2, 4} it is an
 * exact integer (16 48; 8 24 40 56; 4 12 .. 60), and the two windows that
 * meet in a zone sum to MC_OBMC_ONE at every sample:
 * ramp (i) + ramp (2o - 1 - i) = MC_OBMC_ONE. */
ME_INLINE int
mc_obmc_ramp (int o, int i)
{
  return (2 * i + 1) * (MC_OBMC_ONE / (4 * o));
}

/* The window of a block n samples long at index j (0 .. n + 2o - 1; j = o
 * is the block's first sample), with `first` / `last` saying whether the
 * block has no neighbour before / after it in the picture: there the
 * window stays MC_OBMC_ONE up to the picture's edge (the picture's border
 * takes the nearest block's vector alone). */
ME_INLINE int
mc_obmc_window (int n, int j, int first, int last)
{
  const int o = mc_obmc_margin (n);
  if (j < 2 * o)
    return first ? (j < o ? 0 : MC_OBMC_ONE) : mc_obmc_ramp (o, j);
  if (j >= n)
    return last ? (j < n + o ? MC_OBMC_ONE : 0) : mc_obmc_ramp (o, n + 2 * o - 1 - j);
  return MC_OBMC_ONE;
}

/* ---- time --------------------------------------------------------------- */

/* Vector component v (quarter samples) scaled to t = num / den, den > 0,
 * rounded half away from zero, so that scaling -v gives -(scaled v) and the
 * two sides of an interpolated picture stay symmetric.  Worked in 64 bits
 * (|v| <= 32768, |num| <= 4 den, den <= 2^16) and saturated to int16. */
ME_INLINE int
mc_scale_qpel (int v, int num, int den)
{
  const int64_t p = (int64_t) v * num;
  const int64_t a = p < 0 ? -p : p;
  const int64_t q = (2 * a + den) / (2 * (int64_t) den);
  const int64_t r = p < 0 ? -q : q;
  return r < -32768 ? -32768 : r > 32767 ? 32767 : (int) r;
}

/* ---- blend -------------------------------------------------------------- */

#define MC_BLEND_SHIFT 6
#define MC_BLEND_ONE (1 << MC_BLEND_SHIFT)

/* The weight of side A, 0 .. MC_BLEND_ONE, from the costs of the two
 * sides' matches: inversely proportional to A's cost, cost_b / (cost_a +
 * cost_b) of MC_BLEND_ONE, rounded half up; two perfect matches share
 * equally.  Costs saturate at 2^28 (me_cost.h) and the products stay in
 * 64 bits. */
ME_INLINE int
mc_cost_weight (uint32_t cost_a, uint32_t cost_b)
{
  const uint64_t s = (uint64_t) cost_a + cost_b;
  if (s == 0)
    return MC_BLEND_ONE / 2;
  return (int) ((2 * (uint64_t) MC_BLEND_ONE * cost_b + s) / (2 * s));
}

/* Samples a and b mixed with weight w (0 .. MC_BLEND_ONE) for a, rounded
 * half up: between a and b, so no clipping; w = MC_BLEND_ONE gives a, 0
 * gives b exactly. */
ME_INLINE int
mc_blend_sample (int a, int b, int w)
{
  return (w * a + (MC_BLEND_ONE - w) * b + MC_BLEND_ONE / 2) >> MC_BLEND_SHIFT;
}

/* The weight of a sample from the block weights around it: the window
 * products (MC_OBMC_ONE^2 in all) times the blocks' weights, summed in
 * `acc` (at most MC_OBMC_ONE^2 x MC_BLEND_ONE = 2^18), brought back to
 * 0 .. MC_BLEND_ONE rounding half up. */
ME_INLINE int
mc_blend_weight (uint32_t acc)
{
  return (int) ((acc + (1u << (MC_OBMC_BITS2 - 1))) >> MC_OBMC_BITS2);
}

/* A predicted sample from the window-weighted sum of the blocks' predictions
 * (weights summing to MC_OBMC_ONE^2), rounding half up.  The sum is at most
 * 2^12 x 65535 < 2^28. */
ME_INLINE int
mc_obmc_round (uint32_t acc)
{
  return (int) ((acc + (1u << (MC_OBMC_BITS2 - 1))) >> MC_OBMC_BITS2);
}

/* ---- denoising ----------------------------------------------------------- */

/* The most compensated references one denoised plane takes. */
#define MC_DENOISE_MAX_REFS 8

/* A denoised sample: the current sample with weight MC_BLEND_ONE and each
 * reference's prediction with its own sample weight (0 .. MC_BLEND_ONE,
 * mc_blend_weight() of its block weights spread over the windows), as
 * sum = MC_BLEND_ONE cur + sum_i w_i pred_i over wsum = MC_BLEND_ONE +
 * sum_i w_i, rounded to the nearest, halves up: (2 sum + wsum) / (2
 * wsum).  A mean of its samples, so never outside them and never
 * clipped; a reference of weight 0 changes nothing, so wsum =
 * MC_BLEND_ONE gives cur exactly.  sum <= 9 x 64 x 65535 < 2^26. */
ME_INLINE int
mc_denoise_sample (uint32_t sum, uint32_t wsum)
{
  return (int) ((2 * sum + wsum) / (2 * wsum));
}

/* The cost a block of bw x bh luma samples at `depth` bits has from noise
 * alone, noise of standard deviation sigma_q4 / 16 at 8 bits (scaled by
 * 2^(depth - 8)): two independent noisy copies differ by noise of
 * sigma sqrt 2, whose mean absolute value is 2 sigma / sqrt pi, so a SAD
 * of N samples is N 2 sigma / sqrt pi.  2 / sqrt pi = 1.12838 is taken
 * as 289 / 256 (1.12891), and the level is rounded half up: (bw bh
 * sigma_q4 289 2^(depth - 8) + 2^11) >> 12.  In 64 bits: sigma_q4 <=
 * MC_DENOISE_MAX_SIGMA_Q4 keeps it under 2^25. */
#define MC_DENOISE_MAX_SIGMA_Q4 4095

ME_INLINE uint64_t
mc_denoise_level (int bw, int bh, unsigned sigma_q4, int depth)
{
  return ((((uint64_t) (bw * bh) * sigma_q4 * 289) << (depth - 8))
      + 2048) >> 12;
}

/* Where a reference's weight reaches 0: at (1 + MC_DENOISE_SPAN) times
 * the noise level. */
#define MC_DENOISE_SPAN 2

/* The block weight of a reference, 0 .. MC_BLEND_ONE, from the cost of
 * its block's match and the noise level L (mc_denoise_level()): a cost
 * within L is what noise alone gives and weighs MC_BLEND_ONE; past it,
 * the excess s = cost - L over d = MC_DENOISE_SPAN L weighs MC_BLEND_ONE
 * (d^2 - s^2) / (d^2 + s^2), MVTools' MDegrain curve on the excess,
 * rounded half up: flat where it leaves MC_BLEND_ONE (no step at L), 0
 * from cost = L + d on.  L = 0 (no noise): a perfect match weighs
 * MC_BLEND_ONE, any other 0.  d < 2^26, so the products stay in 64
 * bits. */
ME_INLINE int
mc_denoise_weight (uint32_t cost, uint64_t level)
{
  if (cost <= level)
    return MC_BLEND_ONE;
  const uint64_t d = MC_DENOISE_SPAN * level;
  const uint64_t s = cost - level;
  if (s >= d)
    return 0;
  const uint64_t d2 = d * d, s2 = s * s;
  return (int) ((2 * (uint64_t) MC_BLEND_ONE * (d2 - s2) + (d2 + s2))
      / (2 * (d2 + s2)));
}

/* ---- the spatial pass ---------------------------------------------------- */

/* The largest window radius of mc_sigma_filter_plane(): 7x7. */
#define MC_SIGMA_MAX_RADIUS 3

/* Lee's sigma filter: a sample of the window around c counts when it
 * differs from c by at most the threshold t; the output is the rounded
 * mean of those that count (c among them), mc_denoise_sample() of their
 * sum and count with halves up.  A mean of its samples, never clipped. */
ME_INLINE int
mc_sigma_counts (int v, int c, int t)
{
  const int d = v > c ? v - c : c - v;
  return d <= t;
}

/* ---- interpolation ------------------------------------------------------ */

/* A picture at t = num / den (0 <= num <= den) between prev (t = 0) and
 * next (t = 1) is made block by block from two predictions: prev with
 * next's field scaled to t, next with prev's field scaled to 1 - t.  Each
 * block's weight for the prev side is the time's, unless the two fields'
 * costs for that block say that neither side's motion can be trusted:
 * cost_p, the cost of next's field (how well the block matched in prev),
 * and cost_n, that of prev's field (how well it matched in next).  Costs
 * are SADs of luma blocks of bw x bh samples at `depth` bits (a field's
 * meta does not say its metric; a SATD is larger for the same match, so
 * SATD fields fall back a little more often). */

/* A side is not trusted past MC_INTERP_TRUST a sample at 8 bits (scaled
 * by 2^(depth - 8)) on average over its block; a block whose two sides are
 * both untrusted falls back to the plain blend of prev and next.  64 a
 * sample is a match that is plainly wrong, not merely a shape that
 * changed (a walking person's legs cost 20 to 40 a sample and are still
 * better moved than blended unmoved: docs/motion-compensation.md,
 * "Interpolation"). */
#define MC_INTERP_TRUST 64
/* mc_interp_weight()'s answer for a block that falls back. */
#define MC_INTERP_FALLBACK (-1)

/* The plain blend's weight of prev at t: (1 - t) of MC_BLEND_ONE, rounded
 * half up.  0 <= num <= den, den <= 2^16. */
ME_INLINE int
mc_interp_time_weight (int num, int den)
{
  return (int) ((2 * (int64_t) MC_BLEND_ONE * (den - num) + den)
      / (2 * (int64_t) den));
}

/* The trust threshold of a block of bw x bh luma samples at `depth`
 * bits. */
ME_INLINE uint32_t
mc_interp_trust (int bw, int bh, int depth)
{
  return ((uint32_t) MC_INTERP_TRUST * (uint32_t) (bw * bh)) << (depth - 8);
}

/* The weight of the prev side in one block, 0 .. MC_BLEND_ONE, or
 * MC_INTERP_FALLBACK, in this order:
 *   t = 0 gives MC_BLEND_ONE and t = 1 gives 0: the pictures themselves;
 *   both costs above `trust`: MC_INTERP_FALLBACK (the caller blends prev
 *   and next unmoved with mc_interp_time_weight());
 *   otherwise the time weight, mc_interp_time_weight(): the costs say
 *   whether the motion is trusted, not how the two sides are mixed (a
 *   side's SAD measures its block against the other picture, not the
 *   prediction at t, and weighting or dropping sides by it lost 0.2 dB
 *   on real clips: docs/interpolation-quality.md). */
ME_INLINE int
mc_interp_weight (uint32_t cost_p, uint32_t cost_n, int num, int den,
    uint32_t trust)
{
  if (num <= 0)
    return MC_BLEND_ONE;
  if (num >= den)
    return 0;
  if (cost_p > trust && cost_n > trust)
    return MC_INTERP_FALLBACK;
  return mc_interp_time_weight (num, den);
}

/* ---- interpolation: the bilateral choice of a cell's motion ------------- */

/* Each cell q of the picture at t chooses one motion among candidates
 * taken from the two fields around it (mc.c lists them, in a fixed order;
 * docs/motion-compensation.md, "Interpolation"): a pair of displacements
 * in quarter luma samples (MCBiCand, mc.h), prev read at q + a and next
 * at q + b.  The choice is the candidate of lowest bilateral cost. */

/* The whole-sample position that the bilateral cost reads for sample
 * coordinate x displaced by d quarter samples in a plane n samples long:
 * d rounded to the nearest whole sample, halves up (floor ((d + 2) / 4)),
 * and the result clamped into the plane as every other read is
 * (mc_clamp()).  |d| <= 32768 and x < 16384 keep the sum in an int.
 *
 * A candidate's cost for a cell is the sum, over the cell's luma samples
 * inside the plane, of |prev (pos (x, ax), pos (y, ay)) - next (pos (x,
 * bx), pos (y, by))|, the samples read at their depth, in 32 bits (at
 * most 256 x 65535).  Whole samples, not quarter samples: the cost only
 * ranks candidates, and a sixth of the work of the 6-tap is the price
 * that lets every candidate of every cell be costed each picture. */
ME_INLINE int
mc_bi_pos (int x, int d, int n)
{
  return mc_clamp (x + ((d + 2) >> 2), n);
}

/* What ranks the candidates of a cell of bw x bh luma samples at `depth`
 * bits: the bilateral cost plus, for each quarter sample of the motion's
 * length len = |ax| + |ay| + |bx| + |by|, MC_BI_LAMBDA / 256 of a level
 * a sample (at 8 bits; scaled by 2^(depth - 8)): cost + len bw bh
 * MC_BI_LAMBDA 2^(depth - 8) / 256, 16 len for a 16x16 cell at 8 bits.
 * The smallest wins, the earliest candidate of equal ones.  Without the
 * length term the whole-sample cost of flat areas is noise and picks far
 * vectors as often as near ones; with it, a flat area keeps still.  16
 * was measured against 0, 2, 8 and 32 (docs/interpolation-quality.md,
 * History, 6).  In 64 bits: len <= 2^17. */
#define MC_BI_LAMBDA 16

ME_INLINE uint64_t
mc_bi_key (uint32_t cost, int len, int bw, int bh, int depth)
{
  return cost + (((uint64_t) len * (uint64_t) (bw * bh) * MC_BI_LAMBDA)
      << (depth - 8)) / 256;
}

#endif /* MC_RULES_H */
