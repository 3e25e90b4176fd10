/* gpumotionest — motion compensation: one output sample, as the CUDA
 * kernels compute it (mc_cuda.cu), written for C and CUDA alike
 * (ME_INLINE), so that the per-sample code the GPU runs can also be run,
 * and checked against the C reference, on a machine without one
 * (tests/checkasm/check_mc.c).
 *
 * A sample gathers what the C reference's cell gathers for it (mc_c.c):
 * the blocks of its cell and the neighbours whose windows reach it, each
 * predicted at this sample alone, weighted by the window product, summed
 * in 32 bits.  Equal to the reference because a sample's prediction from
 * a block does not depend on the rest of the block (the reference's patch
 * is the clamped neighbourhood of each sample) and the sum is of integers
 * below 2^28, so the order of its terms does not matter.
 *
 * Fields and weights are packed: cell (c, r) of the plane's grid at
 * [r ncols + c], as the CUDA implementation uploads them.
 */
#ifndef MC_CUDA_SAMPLE_H
#define MC_CUDA_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <gst/motionvectors/gstmotionvectortypes.h>

#include "mc_rules.h"
#include "mc_warp_rules.h"

/* A plane as the kernels see it: bps 1 (8-bit samples) or 2 (16-bit
 * words, the sample (word >> shift) masked to depth bits), sample (x, y)
 * at data + y stride + x pstride (pstride set: bps or more). */
typedef struct {
  const uint8_t *data;
  ptrdiff_t stride;
  int width;
  int height;
  int depth;
  int shift;
  int pstride;
} MCSPlane;

/* The plane's grid (MCGrid, in ints). */
typedef struct {
  int bw;
  int bh;
  int ncols;
  int nrows;
} MCSGrid;

ME_INLINE int
mc_s_read (MCSPlane p, int bps, int x, int y)
{
  const uint8_t *s = p.data + (ptrdiff_t) y * p.stride
      + (ptrdiff_t) x * p.pstride;
  if (bps == 1)
    return *s;
  return (*(const uint16_t *) s >> p.shift) & ((1 << p.depth) - 1);
}

/* Writes the sample's own byte or word alone: the bytes between samples
 * of an interleaved plane are not touched. */
ME_INLINE void
mc_s_write (uint8_t *data, ptrdiff_t stride, int pstride, int bps, int shift,
    int x, int y, int v)
{
  uint8_t *s = data + (ptrdiff_t) y * stride + (ptrdiff_t) x * pstride;
  if (bps == 1)
    *s = (uint8_t) v;
  else
    *(uint16_t *) s = (uint16_t) (v << shift);
}

/* The window, along one direction, of block k + d - 1 (d 0 .. 2) at
 * sample i of cell k of `count`, n samples a cell: mc_c.c's window_1d()
 * for one sample. */
ME_INLINE int
mc_s_window (int n, int k, int count, int i, int d, int obmc)
{
  if (!obmc)
    return d == 1 ? MC_OBMC_ONE : 0;
  const int b = k + d - 1;
  if (b < 0 || b >= count)
    return 0;
  const int o = mc_obmc_margin (n);
  const int j = k * n + i - (b * n - o);
  if (j < 0 || j >= n + 2 * o)
    return 0;
  return mc_obmc_window (n, j, b == 0, b == count - 1);
}

/* Sample (x, y) predicted with vector (mvx, mvy), quarter luma samples:
 * the luma rule over its clamped 7x7 neighbourhood (one sample for a whole
 * vector), or the chroma bilinear over its clamped four corners. */
ME_INLINE int
mc_s_predict_one (MCSPlane ref, int bps, int x, int y, int mvx, int mvy,
    int sub_x, int sub_y)
{
  const int W = ref.width, H = ref.height;
  if (!sub_x && !sub_y) {
    const int fx = mvx & 3, fy = mvy & 3;
    const int ix = x + (mvx >> 2), iy = y + (mvy >> 2);
    if (!fx && !fy)
      return mc_s_read (ref, bps, mc_clamp (ix, W), mc_clamp (iy, H));
#define MC_S_P (MC_TAP_BEFORE + 1 + MC_TAP_AFTER)
    uint16_t patch[MC_S_P * MC_S_P];
    for (int r = 0; r < MC_S_P; r++) {
      const int yy = mc_clamp (iy - MC_TAP_BEFORE + r, H);
      for (int c = 0; c < MC_S_P; c++)
        patch[r * MC_S_P + c] = (uint16_t) mc_s_read (ref, bps,
            mc_clamp (ix - MC_TAP_BEFORE + c, W), yy);
    }
    return mc_luma_qpel (patch + MC_TAP_BEFORE * MC_S_P + MC_TAP_BEFORE,
        MC_S_P, fx, fy, (1 << ref.depth) - 1);
#undef MC_S_P
  }
  const int cx = mc_chroma_mv8 (mvx, sub_x), cy = mc_chroma_mv8 (mvy, sub_y);
  const int ix = x + (cx >> 3), iy = y + (cy >> 3);
  const int x0 = mc_clamp (ix, W), x1 = mc_clamp (ix + 1, W);
  const int y0 = mc_clamp (iy, H), y1 = mc_clamp (iy + 1, H);
  return mc_chroma_bilinear (mc_s_read (ref, bps, x0, y0),
      mc_s_read (ref, bps, x1, y0), mc_s_read (ref, bps, x0, y1),
      mc_s_read (ref, bps, x1, y1), cx & 7, cy & 7);
}

/* Output sample (x, y) of mc_predict_plane(). */
ME_INLINE int
mc_s_predict (MCSPlane ref, int bps, const GstMotionVectorCell *cells,
    MCSGrid g, int x, int y, int sub_x, int sub_y, int obmc)
{
  const int c = x / g.bw, r = y / g.bh;
  const int i = x - c * g.bw, j = y - r * g.bh;
  uint32_t acc = 0;
  for (int dy = 0; dy < 3; dy++) {
    const int wy = mc_s_window (g.bh, r, g.nrows, j, dy, obmc);
    if (!wy)
      continue;
    for (int dx = 0; dx < 3; dx++) {
      const int wx = mc_s_window (g.bw, c, g.ncols, i, dx, obmc);
      if (!wx)
        continue;
      const GstMotionVectorCell *cell = cells + (size_t) (r + dy - 1)
          * g.ncols + (c + dx - 1);
      const int pred = mc_s_predict_one (ref, bps, x, y, cell->mv_x,
          cell->mv_y, sub_x, sub_y);
      acc += (uint32_t) (wy * wx) * (uint32_t) pred;
    }
  }
  return mc_obmc_round (acc);
}

/* The weight (mc_blend_weight()) of the first input at sample (x, y) of
 * mc_blend_plane(): the block weights spread over the windows. */
ME_INLINE int
mc_s_blend_weight (const uint8_t *weights, MCSGrid g, int x, int y, int obmc)
{
  const int c = x / g.bw, r = y / g.bh;
  const int i = x - c * g.bw, j = y - r * g.bh;
  uint32_t acc = 0;
  for (int dy = 0; dy < 3; dy++) {
    const int wy = mc_s_window (g.bh, r, g.nrows, j, dy, obmc);
    if (!wy)
      continue;
    for (int dx = 0; dx < 3; dx++) {
      const int wx = mc_s_window (g.bw, c, g.ncols, i, dx, obmc);
      if (!wx)
        continue;
      acc += (uint32_t) (wy * wx) * (uint32_t) weights[(size_t) (r + dy - 1)
          * g.ncols + c + dx - 1];
    }
  }
  return mc_blend_weight (acc);
}

/* Output sample (x, y) of mc_blend_plane(). */
ME_INLINE int
mc_s_blend (MCSPlane a, MCSPlane b, int bps, const uint8_t *weights,
    MCSGrid g, int x, int y, int obmc)
{
  return mc_blend_sample (mc_s_read (a, bps, x, y), mc_s_read (b, bps, x, y),
      mc_s_blend_weight (weights, g, x, y, obmc));
}

/* Output sample (x, y) of an interpolated plane: prev predicted with
 * from_prev and next with from_next, blended by the weights, as
 * mc_interpolate_picture() composes the three steps (each prediction is
 * a sample of the plane's depth before the blend, as it would be in the
 * temporary plane). */
ME_INLINE int
mc_s_interpolate (MCSPlane prev, MCSPlane next, int bps,
    const GstMotionVectorCell *from_prev, const GstMotionVectorCell *from_next,
    const uint8_t *weights, MCSGrid g, int x, int y, int sub_x, int sub_y,
    int obmc)
{
  return mc_blend_sample (mc_s_predict (prev, bps, from_prev, g, x, y, sub_x,
          sub_y, obmc), mc_s_predict (next, bps, from_next, g, x, y, sub_x,
          sub_y, obmc), mc_s_blend_weight (weights, g, x, y, obmc));
}

/* ---- luma through half-sample planes ------------------------------------
 * The luma quarter samples of mc_s_predict_one() read a clamped 7x7
 * neighbourhood each.  A kernel that predicts from a reference many times
 * (denoising: every block of several references, overlapped) instead
 * builds the reference's four planes of subpel_rules.h once a call (full
 * samples F, half samples H, V, C), each a 16-bit plane over the box
 * [MC_S_HP_LO, W + 1] x [MC_S_HP_LO, H + 1], and takes every quarter
 * sample as the mean of two of them, as the fast CPU implementation does
 * (mc_cpu_tmpl.c, where the reason it is exact is given): a plane's sample
 * outside the picture is its sample at the clamped position, and all four
 * are constant past the box, so a read clamped to the box is exact. */
#define MC_S_HP_LO (-3)

typedef struct {
  const uint16_t *p;            /* plane k's (x, y) at p[k plane + (y -
                                 * MC_S_HP_LO) stride + x - MC_S_HP_LO] */
  ptrdiff_t stride;             /* samples from a row to the next */
  ptrdiff_t plane;              /* samples from a plane to the next */
  int w, h;                     /* the luma plane's size */
} MCSHPel;

/* Columns and rows of the box of a w x h plane. */
ME_INLINE int
mc_s_hp_cols (int w)
{
  return w + 2 - MC_S_HP_LO;
}

ME_INLINE int
mc_s_hp_rows (int h)
{
  return h + 2 - MC_S_HP_LO;
}

/* The 6-tap's sum across row y (clamped already) at x + 1/2, the full
 * samples clamped. */
ME_INLINE int
mc_s_tap6_across (MCSPlane ref, int bps, int x, int y)
{
  const int W = ref.width;
  return mc_s_read (ref, bps, mc_clamp (x - 2, W), y)
      - 5 * mc_s_read (ref, bps, mc_clamp (x - 1, W), y)
      + 20 * mc_s_read (ref, bps, mc_clamp (x, W), y)
      + 20 * mc_s_read (ref, bps, mc_clamp (x + 1, W), y)
      - 5 * mc_s_read (ref, bps, mc_clamp (x + 2, W), y)
      + mc_s_read (ref, bps, mc_clamp (x + 3, W), y);
}

/* Sample (x, y) of plane k (ME_HPEL_F, _H, _V, _C) of the reference, by
 * subpel_rules.h's formulas over clamped full samples. */
ME_INLINE int
mc_s_hp_value (MCSPlane ref, int bps, int k, int x, int y)
{
  const int W = ref.width, H = ref.height, maxv = (1 << ref.depth) - 1;
  int v;
  if (k == ME_HPEL_F)
    return mc_s_read (ref, bps, mc_clamp (x, W), mc_clamp (y, H));
  if (k == ME_HPEL_H) {
    v = (mc_s_tap6_across (ref, bps, x, mc_clamp (y, H)) + 16) >> 5;
  } else if (k == ME_HPEL_V) {
    const int cx = mc_clamp (x, W);
    v = (mc_s_read (ref, bps, cx, mc_clamp (y - 2, H))
        - 5 * mc_s_read (ref, bps, cx, mc_clamp (y - 1, H))
        + 20 * mc_s_read (ref, bps, cx, mc_clamp (y, H))
        + 20 * mc_s_read (ref, bps, cx, mc_clamp (y + 1, H))
        - 5 * mc_s_read (ref, bps, cx, mc_clamp (y + 2, H))
        + mc_s_read (ref, bps, cx, mc_clamp (y + 3, H)) + 16) >> 5;
  } else {
    v = (mc_s_tap6_across (ref, bps, x, mc_clamp (y - 2, H))
        - 5 * mc_s_tap6_across (ref, bps, x, mc_clamp (y - 1, H))
        + 20 * mc_s_tap6_across (ref, bps, x, mc_clamp (y, H))
        + 20 * mc_s_tap6_across (ref, bps, x, mc_clamp (y + 1, H))
        - 5 * mc_s_tap6_across (ref, bps, x, mc_clamp (y + 2, H))
        + mc_s_tap6_across (ref, bps, x, mc_clamp (y + 3, H)) + 512) >> 10;
  }
  return v < 0 ? 0 : v > maxv ? maxv : v;
}

/* The same planes in two passes, as the kernels build them: first B1, the
 * 6-tap's sums across every row of the picture (rows 0 .. H - 1: every row
 * the box reads is a clamped one) at the box's columns, b1[y b1_stride +
 * x - MC_S_HP_LO] = mc_s_tap6_across (x, y); then each position's four
 * planes from B1 and the full samples, six reads a plane instead of the
 * 36 that C takes from the full samples.  Equal to mc_s_hp_value(): the
 * same sums of the same clamped samples. */
ME_INLINE int
mc_s_hp_from_b1 (MCSPlane ref, int bps, const int32_t *b1,
    ptrdiff_t b1_stride, int k, int x, int y)
{
  const int W = ref.width, H = ref.height, maxv = (1 << ref.depth) - 1;
  const int bx = x - MC_S_HP_LO;
  int v;
  if (k == ME_HPEL_F)
    return mc_s_read (ref, bps, mc_clamp (x, W), mc_clamp (y, H));
  if (k == ME_HPEL_H) {
    v = (b1[(ptrdiff_t) mc_clamp (y, H) * b1_stride + bx] + 16) >> 5;
  } else if (k == ME_HPEL_V) {
    const int cx = mc_clamp (x, W);
    v = (mc_s_read (ref, bps, cx, mc_clamp (y - 2, H))
        - 5 * mc_s_read (ref, bps, cx, mc_clamp (y - 1, H))
        + 20 * mc_s_read (ref, bps, cx, mc_clamp (y, H))
        + 20 * mc_s_read (ref, bps, cx, mc_clamp (y + 1, H))
        - 5 * mc_s_read (ref, bps, cx, mc_clamp (y + 2, H))
        + mc_s_read (ref, bps, cx, mc_clamp (y + 3, H)) + 16) >> 5;
  } else {
#define MC_S_B1(d) b1[(ptrdiff_t) mc_clamp (y + (d), H) * b1_stride + bx]
    v = (MC_S_B1 (-2) - 5 * MC_S_B1 (-1) + 20 * MC_S_B1 (0)
        + 20 * MC_S_B1 (1) - 5 * MC_S_B1 (2) + MC_S_B1 (3) + 512) >> 10;
#undef MC_S_B1
  }
  return v < 0 ? 0 : v > maxv ? maxv : v;
}

/* The quarter sample at (x, y) moved by (mvx, mvy): the mean, rounded up,
 * of the two planes' samples me_subpel_pair() names, each read clamped
 * to the box. */
ME_INLINE int
mc_s_hp_qpel (const MCSHPel * hp, int x, int y, int mvx, int mvy)
{
  const unsigned v = me_subpel_pair (mvx & 3, mvy & 3);
  int s[2];
  for (int k = 0; k < 2; k++) {
    const unsigned e = k ? v >> 4 : v & 15;
    int px = x + (mvx >> 2) + ME_SP_DX (e);
    int py = y + (mvy >> 2) + ME_SP_DY (e);
    px = px < MC_S_HP_LO ? MC_S_HP_LO : px > hp->w + 1 ? hp->w + 1 : px;
    py = py < MC_S_HP_LO ? MC_S_HP_LO : py > hp->h + 1 ? hp->h + 1 : py;
    s[k] = hp->p[(ptrdiff_t) ME_SP_PLANE (e) * hp->plane
        + (ptrdiff_t) (py - MC_S_HP_LO) * hp->stride + (px - MC_S_HP_LO)];
  }
  return (s[0] + s[1] + 1) >> 1;
}

/* Output sample (x, y) of mc_predict_plane() for luma, through the
 * planes: mc_s_predict() with mc_s_hp_qpel() for each block. */
ME_INLINE int
mc_s_predict_hp (const MCSHPel * hp, const GstMotionVectorCell *cells,
    MCSGrid g, int x, int y, int obmc)
{
  const int c = x / g.bw, r = y / g.bh;
  const int i = x - c * g.bw, j = y - r * g.bh;
  uint32_t acc = 0;
  for (int dy = 0; dy < 3; dy++) {
    const int wy = mc_s_window (g.bh, r, g.nrows, j, dy, obmc);
    if (!wy)
      continue;
    for (int dx = 0; dx < 3; dx++) {
      const int wx = mc_s_window (g.bw, c, g.ncols, i, dx, obmc);
      if (!wx)
        continue;
      const GstMotionVectorCell *cell = cells + (size_t) (r + dy - 1)
          * g.ncols + (c + dx - 1);
      acc += (uint32_t) (wy * wx) * (uint32_t) mc_s_hp_qpel (hp, x, y,
          cell->mv_x, cell->mv_y);
    }
  }
  return mc_obmc_round (acc);
}

/* ---- denoising ----------------------------------------------------------- */

/* The references of a denoised plane as the kernel takes them: n planes,
 * each with its field's cells and its block weights, packed over the
 * plane's grid, and for luma each one's half-sample planes. */
typedef struct {
  MCSPlane ref[MC_DENOISE_MAX_REFS];
  MCSHPel hp[MC_DENOISE_MAX_REFS];
  const GstMotionVectorCell *cells[MC_DENOISE_MAX_REFS];
  const uint8_t *weights[MC_DENOISE_MAX_REFS];
  int n;
} MCSDenoiseRefs;

/* Output sample (x, y) of a denoised plane: cur's sample and each
 * reference's prediction with its sample weight, as mc_denoise_picture()
 * composes mc_predict_plane() and mc_denoise_plane() (each prediction a
 * sample of the plane's depth, as in the temporary plane), luma (sub_x =
 * sub_y = 0) through the half-sample planes.  The sample's windows are
 * found once and serve every reference's weight and prediction (the same
 * sums as mc_s_blend_weight() and mc_s_predict() make); a reference of
 * weight 0 at this sample adds nothing, so its prediction is not made. */
ME_INLINE int
mc_s_denoise (MCSPlane cur, const MCSDenoiseRefs * refs, int bps, MCSGrid g,
    int x, int y, int sub_x, int sub_y, int obmc)
{
  const int c = x / g.bw, r = y / g.bh;
  const int i = x - c * g.bw, j = y - r * g.bh;
  int wx[3], wy[3];
  for (int d = 0; d < 3; d++) {
    wx[d] = mc_s_window (g.bw, c, g.ncols, i, d, obmc);
    wy[d] = mc_s_window (g.bh, r, g.nrows, j, d, obmc);
  }
  const int luma = !sub_x && !sub_y;
  uint32_t sum = MC_BLEND_ONE * (uint32_t) mc_s_read (cur, bps, x, y);
  uint32_t wsum = MC_BLEND_ONE;
  for (int k = 0; k < refs->n; k++) {
    const uint8_t *wk = refs->weights[k];
    uint32_t wacc = 0;
    for (int dy = 0; dy < 3; dy++) {
      if (!wy[dy])
        continue;
      for (int dx = 0; dx < 3; dx++)
        if (wx[dx])
          wacc += (uint32_t) (wy[dy] * wx[dx]) * (uint32_t) wk[(size_t) (r
                  + dy - 1) * g.ncols + c + dx - 1];
    }
    const uint32_t w = (uint32_t) mc_blend_weight (wacc);
    if (!w)
      continue;
    uint32_t pacc = 0;
    for (int dy = 0; dy < 3; dy++) {
      if (!wy[dy])
        continue;
      for (int dx = 0; dx < 3; dx++) {
        if (!wx[dx])
          continue;
        const GstMotionVectorCell *cell = refs->cells[k] + (size_t) (r + dy
            - 1) * g.ncols + (c + dx - 1);
        const int p = luma ? mc_s_hp_qpel (&refs->hp[k], x, y, cell->mv_x,
            cell->mv_y) : mc_s_predict_one (refs->ref[k], bps, x, y,
            cell->mv_x, cell->mv_y, sub_x, sub_y);
        pacc += (uint32_t) (wy[dy] * wx[dx]) * (uint32_t) p;
      }
    }
    sum += w * (uint32_t) mc_obmc_round (pacc);
    wsum += w;
  }
  return mc_denoise_sample (sum, wsum);
}

/* ---- warp --------------------------------------------------------------- */

/* A warp's map as the kernels take it (MCWarp of mc.h, the plane's own). */
typedef struct {
  int32_t xx, xy, yx, yy;
  int64_t x0, y0;
} MCSWarp;

/* Output sample (x, y) of a warped plane: the source position of
 * mc_warp_pos() at (x, y) directly (the C reference steps along the row:
 * the same integers), the taps and weights of mc_warp_rules.h. */
ME_INLINE int
mc_s_warp (MCSPlane in, int bps, MCSWarp w, int x, int y)
{
  int x0, x1, y0, y1, fx, fy;
  mc_warp_taps (mc_warp_pos (w.xx, w.xy, w.x0, x, y), in.width, &x0, &x1,
      &fx);
  mc_warp_taps (mc_warp_pos (w.yx, w.yy, w.y0, x, y), in.height, &y0, &y1,
      &fy);
  return mc_warp_bilinear (mc_s_read (in, bps, x0, y0),
      mc_s_read (in, bps, x1, y0), mc_s_read (in, bps, x0, y1),
      mc_s_read (in, bps, x1, y1), fx, fy);
}

/* Output sample (x, y) of mc_sigma_filter_plane(): the same sum and count
 * as the C reference's, in the same order (integers: any order would do). */
ME_INLINE int
mc_s_sigma (MCSPlane in, int bps, int x, int y, int radius, int threshold)
{
  const int c = mc_s_read (in, bps, x, y);
  const int y0 = y - radius < 0 ? 0 : y - radius;
  const int y1 = y + radius > in.height - 1 ? in.height - 1 : y + radius;
  const int x0 = x - radius < 0 ? 0 : x - radius;
  const int x1 = x + radius > in.width - 1 ? in.width - 1 : x + radius;
  uint32_t sum = 0, n = 0;
  for (int yy = y0; yy <= y1; yy++)
    for (int xx = x0; xx <= x1; xx++) {
      const int v = mc_s_read (in, bps, xx, yy);
      if (mc_sigma_counts (v, c, threshold)) {
        sum += (uint32_t) v;
        n++;
      }
    }
  return mc_denoise_sample (sum, n);
}

#endif /* MC_CUDA_SAMPLE_H */
