/* gpumotionest — the CPU backend's sample types, for the files compiled
 * once per sample size (*_tmpl.c, as dav1d does).
 *
 * BITDEPTH 8 compiles them for 8-bit samples; BITDEPTH 16 for samples of 9
 * to 16 bits, stored in 16 bits, with the depth a run-time value (the
 * largest sample, bitdepth_max = 2^depth - 1, clips the interpolation).
 * What only widens with the samples:
 *
 *   pixel     a sample
 *   sad4_t    a 4x4 SAD: at most 16 x 255 = 4080, or 16 x 65535
 *   q8_t      an 8x8 sum, and the lower bounds made of them: at most
 *             64 x 255 = 16320, or 64 x 65535
 *   rowkey_t  a DSP row key, (cost << 16) | rank (dsp.h): a 16x16 SAD
 *             of 16-bit samples reaches 256 x 65535 < 2^24, so 64 bits
 *
 * Every function one file of a size calls in another is renamed here with
 * the size (BF: _8bpc, _16bpc), so both sizes link into one backend;
 * backend_cpu.c picks one per session from the frames' depth.
 */
#ifndef ME_CPU_BITDEPTH_H
#define ME_CPU_BITDEPTH_H

#include <stdint.h>
#include <string.h>

#if !defined(BITDEPTH)
#error "BITDEPTH must be 8 or 16"
#elif BITDEPTH == 8
typedef uint8_t pixel;
typedef uint16_t sad4_t;
typedef uint16_t q8_t;
typedef uint32_t rowkey_t;
#define BF(name) name##_8bpc
/* The interpolation's functions (subpel_rules.h) and the pyramid's
 * decimation (fast_rules.h) for this size; the DSP's half-sample routine
 * takes the largest sample only at 16 bits. */
#define HPEL_H(p, s, max) me_hpel_h (p, s)
#define HPEL_V(p, s, max) me_hpel_v (p, s)
#define HPEL_C(p, s, max) me_hpel_c (p, s)
#define HIER_DECIMATE me_hier_decimate
#define HIGHBD_DECL_SUFFIX
#define HIGHBD_CALL_SUFFIX
#define HIGHBD_TAIL_SUFFIX
/* More than any 16x16 SAD: the cost of a candidate pruning skipped. */
#define ME_SAD16_SKIP 65535u
#elif BITDEPTH == 16
typedef uint16_t pixel;
typedef uint32_t sad4_t;
typedef uint32_t q8_t;
typedef uint64_t rowkey_t;
#define BF(name) name##_16bpc
#define HPEL_H(p, s, max) me_hpel_h_16 (p, s, max)
#define HPEL_V(p, s, max) me_hpel_v_16 (p, s, max)
#define HPEL_C(p, s, max) me_hpel_c_16 (p, s, max)
#define HIER_DECIMATE me_hier_decimate_16
#define HIGHBD_DECL_SUFFIX , const int bitdepth_max
#define HIGHBD_CALL_SUFFIX , s->bitdepth_max
#define HIGHBD_TAIL_SUFFIX , bitdepth_max
#define ME_SAD16_SKIP 0xffffffu
#else
#error "BITDEPTH must be 8 or 16"
#endif

/* n samples of value v from d. */
static inline void
pixel_set (pixel * d, pixel v, size_t n)
{
#if BITDEPTH == 8
  memset (d, v, n);
#else
  for (size_t i = 0; i < n; i++)
    d[i] = v;
#endif
}

static inline void
pixel_copy (pixel * d, const pixel * s, size_t n)
{
  memcpy (d, s, n * sizeof (pixel));
}

/* The functions shared between the files of one size. */
#define me_dsp_init BF(me_dsp_init)
#define me_dsp_init_c BF(me_dsp_init_c)
#define me_dsp_init_x86 BF(me_dsp_init_x86)
#define me_dsp_init_depth BF(me_dsp_init_depth)
#define me_dsp_init_x86_depth BF(me_dsp_init_x86_depth)
#define me_cpu_parts BF(me_cpu_parts)
#define me_cpu_run_parallel BF(me_cpu_run_parallel)
#define me_cpu_plane_fill BF(me_cpu_plane_fill)
#define me_cpu_luma_fill BF(me_cpu_luma_fill)
#define me_cpu_plane_free BF(me_cpu_plane_free)
#define me_cpu_rank_table_build BF(me_cpu_rank_table_build)
#define me_cpu_rank_table_build_rect BF(me_cpu_rank_table_build_rect)
#define me_cpu_search_window BF(me_cpu_search_window)
#define me_cpu_load_mb BF(me_cpu_load_mb)
#define me_cpu_store_mb BF(me_cpu_store_mb)
#define me_cpu_method_mods BF(me_cpu_method_mods)
#define me_cpu_method_hierarchical BF(me_cpu_method_hierarchical)
#define me_cpu_method_predictive BF(me_cpu_method_predictive)
#define me_backend_cpu_impl BF(me_backend_cpu_impl)

#endif /* ME_CPU_BITDEPTH_H */
