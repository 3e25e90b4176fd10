/* gpumotionest — the packed-byte SAD every CUDA search kernel is built on. */
#ifndef ME_CUDA_VSAD_CUH
#define ME_CUDA_VSAD_CUH

#include <stdint.h>

/* d = c + sum over the 4 bytes of |a - b|: one VABSDIFF4 instruction. */
static __device__ __forceinline__ uint32_t
me_vsad4 (uint32_t a, uint32_t b, uint32_t c)
{
  uint32_t d;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;"
      : "=r"(d)
      : "r"(a), "r"(b), "r"(c));
  return d;
}

#endif /* ME_CUDA_VSAD_CUH */
