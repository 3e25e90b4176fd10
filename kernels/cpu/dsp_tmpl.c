/* gpumotionest — C reference versions of the DSP routines: written for
 * clarity, they define what every SIMD version must return.  Compiled once
 * per sample size (bitdepth.h). */
#include "config.h"

#include <stdlib.h>

#include "dsp.h"
#include "me_parts.h"
#include "subpel_rules.h"
#include "luma_rules.h"

static decl_sad16_row_fn (sad16_row_c)
{
  for (int i = 0; i < n; i++) {
    const pixel *r = ref + i;
    uint32_t sum = 0;
    for (int y = 0; y < 16; y++, r += ref_stride)
      for (int x = 0; x < 16; x++)
        sum += abs (cur[16 * y + x] - r[x]);
    sad[i] = sum;
  }
}

static decl_sad16_points_fn (sad16_points_c)
{
  for (int i = 0; i < n; i++)
    sad16_row_c (cur, ref + off[i], ref_stride, 1, &sad[i]);
}

static decl_min_key_fn (min_key_c)
{
  rowkey_t best = (rowkey_t) -1;
  for (int i = 0; i < n; i++) {
    rowkey_t key = ((rowkey_t) sad[i] << 16) | rank[i];
    if (key < best)
      best = key;
  }
  return best;
}

static decl_sea_row_fn (sea_row_c)
{
  for (int i = 0; i < n; i++) {
    unsigned sum = 0;
    for (int q = 0; q < 4; q++)
      sum += abs ((int) cq[q] - (int) q8[8 * (q >> 1) * q8_stride
              + 8 * (q & 1) + i]);
    lb[i] = sum;
  }
}

static decl_sad4x4_row_fn (sad4x4_row_c)
{
  for (int b = 0; b < 16; b++) {
    const int bx = 4 * (b & 3), by = 4 * (b >> 2);
    for (int i = 0; i < n; i++) {
      unsigned sum = 0;
      for (int y = by; y < by + 4; y++)
        for (int x = bx; x < bx + 4; x++)
          sum += abs (cur[16 * y + x] - ref[y * ref_stride + i + x]);
      out[b * out_stride + i] = sum;
    }
  }
}

/* the DSP tables' partition count is the shared one */
G_STATIC_ASSERT (ME_PARTS == ME_DSP_N_PARTS);

static decl_part_min_fn (part_min_c)
{
  for (int i = 0; i < n; i++) {
    uint32_t b[16], c[ME_DSP_N_PARTS];
    for (int j = 0; j < 16; j++)
      b[j] = sad4[j * stride + i];
    me_part_sums (b, c);
    for (int k = 0; k < ME_DSP_N_PARTS; k++) {
      rowkey_t key = ((rowkey_t) c[k] << 16) | rank[i];
      if (key < best[k])
        best[k] = key;
    }
  }
}

static decl_esa_row_fn (esa_row_c)
{
  for (int i = 0; i < n; i++) {
    uint32_t b[16];
    for (int j = 0; j < 16; j++)
      b[j] = abs ((int) c4[j] - (int) q4[4 * (j >> 2) * q4_stride
              + 4 * (j & 3) + i]);
    me_dsp_esa_keep (b, lim, i, keep);
  }
}

static decl_hpel_row_fn (hpel_row_c)
{
  for (int i = 0; i < n; i++) {
    h[i] = HPEL_H (src + i, stride, bitdepth_max);
    v[i] = HPEL_V (src + i, stride, bitdepth_max);
    c[i] = HPEL_C (src + i, stride, bitdepth_max);
  }
}

static decl_subpel_cost_fn (subpel_cost_c)
{
  uint32_t sum = 0;
  for (int by = 0; by < h; by += 4)
    for (int bx = 0; bx < w; bx += 4) {
      int d[16];
      for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
          const ptrdiff_t o = (by + y) * stride + bx + x;
          d[4 * y + x] = cur[(by + y) * cur_stride + bx + x]
              - ((a[o] + b[o] + 1) >> 1);
        }
      if (satd) {
        sum += me_satd4x4 (d);
      } else {
        for (int k = 0; k < 16; k++)
          sum += abs (d[k]);
      }
    }
  return sum;
}

static decl_sad8x8_points_fn (sad8x8_points_c)
{
  for (int i = 0; i < n; i++) {
    const pixel *r = ref + off[i];
    uint32_t sum = 0;
    for (int y = 0; y < 8; y++)
      for (int x = 0; x < 8; x++)
        sum += abs (cur[8 * y + x] - r[y * ref_stride + x]);
    sad[i] = sum;
  }
}

#if BITDEPTH == 8
static decl_luma_packed_row_fn (luma_packed_row_c)
{
  for (int i = 0; i < n; i++)
    dst[i] = src[(ptrdiff_t) i * step];
}

static decl_luma_rgb_row_fn (luma_rgb_row_c)
{
  for (int i = 0; i < n; i++, src += step)
    dst[i] = me_luma_from_rgb (src[off[0]], src[off[1]], src[off[2]], w);
}
#endif

void
me_dsp_init_c (MEDsp * dsp)
{
  dsp->sad16_row = sad16_row_c;
  dsp->sad16_points = sad16_points_c;
  dsp->min_key = min_key_c;
  dsp->sea_row = sea_row_c;
  dsp->esa_row = esa_row_c;
  dsp->sad4x4_row = sad4x4_row_c;
  dsp->sad8x8_points = sad8x8_points_c;
  dsp->part_min = part_min_c;
  dsp->hpel_row = hpel_row_c;
  dsp->subpel_cost = subpel_cost_c;
#if BITDEPTH == 8
  dsp->luma_packed_row = luma_packed_row_c;
  dsp->luma_rgb_row = luma_rgb_row_c;
#else
  dsp->luma_packed_row = NULL;
  dsp->luma_rgb_row = NULL;
#endif
}

#if BITDEPTH == 8
unsigned
me_cpu_flags (void)
{
#if ARCH_X86
  unsigned flags = 0;
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("sse2"))
    flags |= ME_CPU_FLAG_SSE2;
  if (__builtin_cpu_supports ("ssse3"))
    flags |= ME_CPU_FLAG_SSSE3;
  if (__builtin_cpu_supports ("sse4.1"))
    flags |= ME_CPU_FLAG_SSE41;
  if (__builtin_cpu_supports ("avx2"))
    flags |= ME_CPU_FLAG_AVX2;
  return flags;
#else
  return 0;
#endif
}
#endif

void
me_dsp_init_depth (MEDsp * dsp, unsigned mask, unsigned depth)
{
  me_dsp_init (dsp, mask);
#if ARCH_X86 && BITDEPTH == 16
  me_dsp_init_x86_depth (dsp, me_cpu_flags () & mask, depth);
#endif
}

void
me_dsp_init (MEDsp * dsp, unsigned mask)
{
  me_dsp_init_c (dsp);
#if ARCH_X86
  me_dsp_init_x86 (dsp, me_cpu_flags () & mask);
#endif
}
