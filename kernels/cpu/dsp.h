/* gpumotionest — the CPU backend's DSP table.
 *
 * The hot loops of the search, one function pointer each.  me_dsp_init()
 * fills the plain C versions (the reference) and then lets each SIMD level
 * the CPU supports override what it implements, as dav1d does.  tests/
 * checkasm calls every version on the same inputs and compares.
 *
 * Both routines match one 16x16 current block, stored contiguously (stride
 * 16), against n consecutive horizontal candidates: candidate i is the 16x16
 * reference block whose top-left pixel is ref + i.  They may read exactly the
 * 16 x 16 bytes of each candidate, nothing around it.
 */
#ifndef ME_CPU_DSP_H
#define ME_CPU_DSP_H

#include <stddef.h>
#include <stdint.h>

#define ME_CPU_FLAG_SSE2 (1u << 0)
#define ME_CPU_FLAG_SSSE3 (1u << 1)
#define ME_CPU_FLAG_AVX2 (1u << 2)
#define ME_CPU_FLAG_ALL (~0u)

#define decl_sad16_row_fn(name) \
  void (name) (const uint8_t * cur, const uint8_t * ref, ptrdiff_t ref_stride, \
      int n, uint32_t * sad)
/* out[i][4 * by + bx] = SAD of the 4x4 sub-block (bx, by) at candidate i. */
#define decl_sad4x4_row_fn(name) \
  void (name) (const uint8_t * cur, const uint8_t * ref, ptrdiff_t ref_stride, \
      int n, uint16_t (*out)[16])

typedef decl_sad16_row_fn (*me_sad16_row_fn);
typedef decl_sad4x4_row_fn (*me_sad4x4_row_fn);

typedef struct {
  me_sad16_row_fn sad16_row;      /* SAD of the whole 16x16 block */
  me_sad4x4_row_fn sad4x4_row;    /* SADs of its sixteen 4x4 sub-blocks */
} MEDsp;

/* What this CPU supports, as ME_CPU_FLAG_* bits. */
unsigned me_cpu_flags (void);

/* Fills dsp with the fastest versions among the levels in `mask` & what the
 * CPU supports; mask 0 gives the C reference alone. */
void me_dsp_init (MEDsp * dsp, unsigned mask);

void me_dsp_init_c (MEDsp * dsp);
void me_dsp_init_x86 (MEDsp * dsp, unsigned flags);

#endif /* ME_CPU_DSP_H */
