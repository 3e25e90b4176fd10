/* gpumotionest — the 8-bit luma of a row of a packed 4:2:2 or RGB frame,
 * with the fastest DSP routine this CPU has (dsp.h: luma_packed_row,
 * luma_rgb_row), for backends that convert frames on the host while they
 * copy them (the CUDA backend's staging copy).  Plain C, no sample-size
 * build: any backend's host code may call it. */
#ifndef ME_CPU_LUMA_ROWS_H
#define ME_CPU_LUMA_ROWS_H

#include "me_backend.h"

G_BEGIN_DECLS

/* dst[0 .. width - 1] = the luma of row y of `luma`, whose kind is
 * ME_LUMA_PACKED or ME_LUMA_RGB (luma_rules.h). */
void me_luma_row (uint8_t * dst, const MEPlane * luma, unsigned y);

G_END_DECLS

#endif /* ME_CPU_LUMA_ROWS_H */
