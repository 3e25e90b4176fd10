/* gpumotionest — motion compensation, the fast CPU implementation: the
 * portable level, and the choice of the best level for this CPU.
 *
 * The kernels are mc_cpu_tmpl.c; this file builds them for the compiler's
 * baseline (SSE2 on x86-64), x86/mc_cpu_avx2.c for AVX2.
 * docs/motion-compensation.md gives the design and the figures.
 */
#include "mc_cpu.h"

#define MC_CPU_FN(name) name##_portable
#include "mc_cpu_tmpl.c"

const MCImpl *
mc_cpu_table_portable (void)
{
  static const MCImpl impl = { "cpu-portable", FALSE, predict_plane_portable,
    blend_plane_portable, interpolate_plane_portable, bilateral_costs_portable,
    NULL, denoise_refs_portable, warp_plane_portable,
    sigma_filter_plane_portable
  };
  return &impl;
}

const MCImpl *
mc_impl_cpu_level (MCCpuLevel level)
{
  switch (level) {
    case MC_CPU_PORTABLE:
      return mc_cpu_table_portable ();
    case MC_CPU_AVX2:
#if defined(HAVE_MC_CPU_AVX2) && (defined(__x86_64__) || defined(__i386__))
      if (__builtin_cpu_supports ("avx2"))
        return mc_cpu_table_avx2 ();
#endif
      return NULL;
    default:
      return NULL;
  }
}

const MCImpl *
mc_impl_cpu (void)
{
  static const MCImpl *best;
  const MCImpl *impl = g_atomic_pointer_get (&best);
  if (impl)
    return impl;
  for (int l = MC_CPU_N_LEVELS - 1; l >= 0 && !impl; l--)
    impl = mc_impl_cpu_level ((MCCpuLevel) l);
  g_atomic_pointer_set (&best, impl);
  return impl;
}
