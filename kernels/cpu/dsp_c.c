/* gpumotionest — C reference versions of the DSP routines. */
#include "config.h"

#include <stdlib.h>

#include "dsp.h"

static decl_sad16_row_fn (sad16_row_c)
{
  for (int i = 0; i < n; i++) {
    const uint8_t *r = ref + i;
    uint32_t sum = 0;
    for (int y = 0; y < 16; y++, r += ref_stride)
      for (int x = 0; x < 16; x++)
        sum += abs (cur[16 * y + x] - r[x]);
    sad[i] = sum;
  }
}

static decl_sad4x4_row_fn (sad4x4_row_c)
{
  for (int i = 0; i < n; i++) {
    for (int b = 0; b < 16; b++) {
      int bx = 4 * (b & 3), by = 4 * (b >> 2);
      unsigned sum = 0;
      for (int y = by; y < by + 4; y++)
        for (int x = bx; x < bx + 4; x++)
          sum += abs (cur[16 * y + x] - ref[y * ref_stride + i + x]);
      out[i][b] = sum;
    }
  }
}

void
me_dsp_init_c (MEDsp * dsp)
{
  dsp->sad16_row = sad16_row_c;
  dsp->sad4x4_row = sad4x4_row_c;
}

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
  if (__builtin_cpu_supports ("avx2"))
    flags |= ME_CPU_FLAG_AVX2;
  return flags;
#else
  return 0;
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
