/* gpumotionest — fractional-sample rules shared by every backend: H.264
 * luma interpolation (ITU-T H.264 clause 8.4.2.2.1) and the 4x4 Hadamard
 * SATD, written for C and CUDA alike (ME_INLINE).
 *
 * Interpolation is split the way encoders do it: three half-sample planes
 * of the reference are computed once per frame, and every quarter sample is
 * then the rounded mean of two samples taken from the full-sample plane and
 * those three (equations 8-250 to 8-261).  With the full samples G of the
 * reference at integer positions, the planes hold, at integer position
 * (x, y):
 *
 *   ME_HPEL_H   b at (x + 1/2, y)       horizontal 6-tap, (b1 + 16) >> 5
 *   ME_HPEL_V   h at (x, y + 1/2)       vertical 6-tap, (h1 + 16) >> 5
 *   ME_HPEL_C   j at (x + 1/2, y + 1/2) 6-tap over the unrounded b1 of six
 *                                       rows, (j1 + 512) >> 10
 *
 * each clipped to 0..255 (Clip1; 0 .. 2^depth - 1 for deeper samples).  The taps are (1, -5, 20, 20, -5, 1) on
 * positions -2 .. +3.  Samples outside the picture are the nearest edge
 * sample (clause 8.4.2.2.1's Clip3 of the coordinates), which is what an
 * edge-replicated plane holds.
 *
 * Quarter-pel vector (qx, qy) of a block whose top-left pixel is (x0, y0)
 * reads, for each pixel (x, y) of the block, position
 * (x0 + x + (qx >> 2), y0 + y + (qy >> 2)) of the two planes that
 * me_subpel_pair() names for (qx & 3, qy & 3), each with its own (0 or 1)
 * offset, and averages them rounding up: (A + B + 1) >> 1.  Whole and half
 * positions name the same sample twice, so the mean is the sample itself.
 */
#ifndef ME_SUBPEL_RULES_H
#define ME_SUBPEL_RULES_H

#include <stdint.h>
#include "me_cost.h"

/* Planes, as indices: the full samples and the three half-sample planes. */
#define ME_HPEL_F 0
#define ME_HPEL_H 1
#define ME_HPEL_V 2
#define ME_HPEL_C 3

/* The interpolation of one sample type: me_tap6_##SFX, me_clip1_##SFX and
 * the three half samples me_hpel_{h,v,c}_##SFX over `PIXEL` samples,
 * clipped to maxv.  8-bit samples clip to 255; deeper ones to the largest
 * sample of their depth, maxv = 2^depth - 1, as H.264 High 10 and beyond
 * clip to (1 << BitDepthY) - 1 (Clip1Y).  The sums of 16-bit samples stay
 * within int: |b1| < 42 x 65535 and |j1| < 42 x 42 x 65535 < 2^27.
 *
 * me_hpel_h (p, stride) gives the half sample at (x + 1/2, y) of a plane
 * whose pixel (x, y) is at p, rows `stride` samples apart, and likewise
 * _v and _c; p[-2 .. +3] in both directions must be readable. */
#define ME_DEFINE_HPEL(SFX, PIXEL) \
ME_INLINE int \
me_tap6_##SFX (const PIXEL *p, ptrdiff_t s) \
{ \
  return p[-2 * s] - 5 * p[-s] + 20 * p[0] + 20 * p[s] - 5 * p[2 * s] \
      + p[3 * s]; \
} \
ME_INLINE PIXEL \
me_clip1_##SFX (int v, int maxv) \
{ \
  return (PIXEL) (v < 0 ? 0 : v > maxv ? maxv : v); \
} \
ME_INLINE PIXEL \
me_hpel_h_##SFX (const PIXEL *p, ptrdiff_t stride, int maxv) \
{ \
  (void) stride; \
  return me_clip1_##SFX ((me_tap6_##SFX (p, 1) + 16) >> 5, maxv); \
} \
ME_INLINE PIXEL \
me_hpel_v_##SFX (const PIXEL *p, ptrdiff_t stride, int maxv) \
{ \
  return me_clip1_##SFX ((me_tap6_##SFX (p, stride) + 16) >> 5, maxv); \
} \
ME_INLINE PIXEL \
me_hpel_c_##SFX (const PIXEL *p, ptrdiff_t stride, int maxv) \
{ \
  const int j1 = me_tap6_##SFX (p - 2 * stride, 1) \
      - 5 * me_tap6_##SFX (p - stride, 1) + 20 * me_tap6_##SFX (p, 1) \
      + 20 * me_tap6_##SFX (p + stride, 1) \
      - 5 * me_tap6_##SFX (p + 2 * stride, 1) \
      + me_tap6_##SFX (p + 3 * stride, 1); \
  return me_clip1_##SFX ((j1 + 512) >> 10, maxv); \
}

ME_DEFINE_HPEL (8, uint8_t)
ME_DEFINE_HPEL (16, uint16_t)

/* The 8-bit ones, by their first names. */
ME_INLINE int
me_tap6 (const uint8_t *p, ptrdiff_t s)
{
  return me_tap6_8 (p, s);
}

ME_INLINE uint8_t
me_clip1 (int v)
{
  return me_clip1_8 (v, 255);
}

ME_INLINE uint8_t
me_hpel_h (const uint8_t *p, ptrdiff_t stride)
{
  return me_hpel_h_8 (p, stride, 255);
}

ME_INLINE uint8_t
me_hpel_v (const uint8_t *p, ptrdiff_t stride)
{
  return me_hpel_v_8 (p, stride, 255);
}

ME_INLINE uint8_t
me_hpel_c (const uint8_t *p, ptrdiff_t stride)
{
  return me_hpel_c_8 (p, stride, 255);
}

/* The two samples whose mean is the sample at fraction (fx, fy), in
 * quarters, of integer position (x, y): plane and (dx, dy) offset of each.
 * Packed as 4 bits a: plane_a | dx_a << 2 | dy_a << 3, and b likewise in
 * bits 4..7.  Table 8-12 of the standard, row by row (fy), by fx:
 *
 *        fx=0        1          2          3
 *   fy=0 G          a=G+b      b          c=H+b
 *      1 d=G+h      e=b+h      f=b+j      g=b+m
 *      2 h          i=h+j      j          k=j+m
 *      3 n=M+h      p=h+s      q=j+s      r=m+s
 *
 * with H = G(x+1, y), M = G(x, y+1), m = h(x+1, y), s = b(x, y+1). */
#define ME_SP(pa, dxa, dya, pb, dxb, dyb) \
  ((pa) | (dxa) << 2 | (dya) << 3 | ((pb) | (dxb) << 2 | (dyb) << 3) << 4)

ME_INLINE unsigned
me_subpel_pair (int fx, int fy)
{
#define F ME_HPEL_F
#define H ME_HPEL_H
#define V ME_HPEL_V
#define C ME_HPEL_C
  /* the table as a switch: constant memory is not shared by C and CUDA */
  switch (fy * 4 + fx) {
    case 0: return ME_SP (F, 0, 0, F, 0, 0);
    case 1: return ME_SP (F, 0, 0, H, 0, 0);
    case 2: return ME_SP (H, 0, 0, H, 0, 0);
    case 3: return ME_SP (F, 1, 0, H, 0, 0);
    case 4: return ME_SP (F, 0, 0, V, 0, 0);
    case 5: return ME_SP (H, 0, 0, V, 0, 0);
    case 6: return ME_SP (H, 0, 0, C, 0, 0);
    case 7: return ME_SP (H, 0, 0, V, 1, 0);
    case 8: return ME_SP (V, 0, 0, V, 0, 0);
    case 9: return ME_SP (V, 0, 0, C, 0, 0);
    case 10: return ME_SP (C, 0, 0, C, 0, 0);
    case 11: return ME_SP (C, 0, 0, V, 1, 0);
    case 12: return ME_SP (F, 0, 1, V, 0, 0);
    case 13: return ME_SP (V, 0, 0, H, 0, 1);
    case 14: return ME_SP (C, 0, 0, H, 0, 1);
    default: return ME_SP (V, 1, 0, H, 0, 1);
  }
#undef F
#undef H
#undef V
#undef C
}

#define ME_SP_PLANE(v) ((v) & 3)
#define ME_SP_DX(v) (((v) >> 2) & 1)
#define ME_SP_DY(v) (((v) >> 3) & 1)

/* SATD of one 4x4 block of differences d (row-major): the sum of the
 * absolute values of its 4x4 Hadamard transform, halved.  Every coefficient
 * is a +-1 sum of all sixteen differences, so all have the parity of their
 * sum and the halving is exact: the SATD of a larger block is the sum over
 * its 4x4 blocks, in any grouping.  The transform is orthogonal up to a
 * factor 4, so the sum is at most 4 x 4 x |d| (Euclidean) <= 16320 before
 * the halving for 8-bit samples, 4 x 4 x 4 x 65535 < 2^22 for 16-bit ones:
 * int holds every step. */
ME_INLINE uint32_t
me_satd4x4 (const int d[16])
{
  int t[16];
  uint32_t sum = 0;
  for (int i = 0; i < 4; i++) {
    const int a0 = d[4 * i] + d[4 * i + 1], a1 = d[4 * i] - d[4 * i + 1];
    const int a2 = d[4 * i + 2] + d[4 * i + 3];
    const int a3 = d[4 * i + 2] - d[4 * i + 3];
    t[4 * i] = a0 + a2;
    t[4 * i + 1] = a1 + a3;
    t[4 * i + 2] = a0 - a2;
    t[4 * i + 3] = a1 - a3;
  }
  for (int i = 0; i < 4; i++) {
    const int a0 = t[i] + t[4 + i], a1 = t[i] - t[4 + i];
    const int a2 = t[8 + i] + t[12 + i], a3 = t[8 + i] - t[12 + i];
    const int c0 = a0 + a2, c1 = a1 + a3, c2 = a0 - a2, c3 = a1 - a3;
    sum += (uint32_t) ((c0 < 0 ? -c0 : c0) + (c1 < 0 ? -c1 : c1)
        + (c2 < 0 ? -c2 : c2) + (c3 < 0 ? -c3 : c3));
  }
  return sum >> 1;
}

#endif /* ME_SUBPEL_RULES_H */
