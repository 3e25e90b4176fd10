/* gpumotionest — packed and RGB rows for host code outside the CPU
 * backend (luma_rows.h), through the 8-bit DSP table. */
#include "config.h"

#include "luma_rows.h"
#include "dsp.h"

static MEDsp *
luma_dsp (void)
{
  static MEDsp dsp;
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    me_dsp_init (&dsp, ME_CPU_FLAG_ALL);
    g_once_init_leave (&done, 1);
  }
  return &dsp;
}

void
me_luma_row (uint8_t * dst, const MEPlane * luma, unsigned y)
{
  const MEDsp *dsp = luma_dsp ();
  const uint8_t *s = luma->data + (ptrdiff_t) y * luma->stride;

  if (luma->kind == ME_LUMA_RGB)
    dsp->luma_rgb_row (dst, s, luma->width, luma->step, luma->offset,
        luma->weights);
  else
    dsp->luma_packed_row (dst, s + luma->offset[0], luma->width, luma->step);
}
