/* gpumotionest — motion compensation, the fast CPU implementation built
 * for AVX2: mc_cpu_tmpl.c as it is, compiled with -mavx2 (meson.build), so
 * that its rows vectorize 16 samples a step.  Called only when the CPU
 * has AVX2 (mc_impl_cpu_level()). */
#include "../mc_cpu.h"

#define MC_CPU_FN(name) name##_avx2
#include "../mc_cpu_tmpl.c"

const MCImpl *
mc_cpu_table_avx2 (void)
{
  static const MCImpl impl = { "cpu-avx2", FALSE, predict_plane_avx2,
    blend_plane_avx2, interpolate_plane_avx2, bilateral_costs_avx2,
    NULL, denoise_refs_avx2, warp_plane_avx2,
    sigma_filter_plane_avx2
  };
  return &impl;
}
