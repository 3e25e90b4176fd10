/* gpumotionest — what the CUDA kernels do differently for each sample type.
 *
 * Every search kernel is a template over `pixel`: uint8_t for 8-bit frames,
 * uint16_t for frames of 9 to 16 bits (me_cuda_kernels.h gives the device
 * layout of both).  Rows are read as 32-bit words either way, a word holding
 * PW samples (4 bytes or 2 halfwords), so a row of n samples is n / PW
 * words, and a block's sums come from one packed instruction per word:
 * VABSDIFF4 with accumulate for bytes, the halfword SAD for 16-bit samples.
 * Every sum of a 16x16 block stays within 32 bits (256 x 65535 < 2^24).
 *
 * What widens is the ranking inside a thread: the 8-bit kernels rank the
 * candidates of one column by (cost << 10) | tie in 32 bits, which a
 * 16x16 SAD of 16-bit samples (24 bits) overflows, so the 16-bit kernels
 * use the same key in 64 bits (rank_t): the same order, the same
 * tie-break, only wider.
 */
#ifndef ME_CUDA_PIXEL_CUH
#define ME_CUDA_PIXEL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cuda_vsad.cuh"

template <typename pixel>
struct MePix;

template <>
struct MePix<uint8_t> {
  static constexpr int PW = 4; /* samples per 32-bit word */
  typedef uint32_t rank_t;
  /* acc + the sum of |a - b| over the word's samples */
  static __device__ __forceinline__ uint32_t
  sad (uint32_t a, uint32_t b, uint32_t acc)
  {
    return me_vsad4 (a, b, acc);
  }
};

template <>
struct MePix<uint16_t> {
  static constexpr int PW = 2;
  typedef uint64_t rank_t;
  /* |a - b| of each halfword as max - min (a 16-bit subtraction that
   * cannot borrow across the halves, max >= min in each), both summed
   * into acc by one two-way dot product with (1, 1): three native
   * instructions where __vsadu2 is a longer emulated sequence. */
  static __device__ __forceinline__ uint32_t
  sad (uint32_t a, uint32_t b, uint32_t acc)
  {
    return __dp2a_lo (__vmaxu2 (a, b) - __vminu2 (a, b), 0x0101u, acc);
  }
};

/* The smaller of two of a thread's keys (rank_t: 32-bit for bytes, 64-bit
 * for 16-bit samples). */
template <typename R>
static __device__ __forceinline__ R
rank_min (R a, R b)
{
  if constexpr (sizeof (R) == 4)
    return min (a, b);
  else
    return a < b ? a : b;
}

/* The byte-permute selector that realigns two words loaded from the aligned
 * word below byte address `addr` into the word starting at `addr`, and that
 * aligned word.  A 16-bit sample lies on an even address, so its shift is 0
 * or 2. */
static __device__ __forceinline__ const uint32_t *
me_pix_aligned (const uint8_t *addr, uint32_t *sel)
{
  const uintptr_t a = (uintptr_t)addr;
  const uint32_t shift = (uint32_t)(a & 3);
  *sel = 0x3210u + 0x1111u * shift;
  return (const uint32_t *)(a - shift);
}

/* N words realigned by `sel` from the aligned words at `w`: N + 1 loads
 * (the word after is in the border, so always readable) and N permutes. */
template <int N>
static __device__ __forceinline__ void
me_pix_words (const uint32_t *w, uint32_t sel, uint32_t (&q)[N])
{
  uint32_t v[N + 1];
#pragma unroll
  for (int k = 0; k <= N; k++)
    v[k] = __ldg (w + k);
#pragma unroll
  for (int k = 0; k < N; k++)
    q[k] = __byte_perm (v[k], v[k + 1], sel);
}

/* N words from an address aligned to 4 N bytes (a row of a current block:
 * every block starts 16-byte aligned in the device frame). */
template <int N>
static __device__ __forceinline__ void
me_pix_aligned_words (const uint8_t *p, uint32_t (&q)[N])
{
  if constexpr (N % 4 == 0) {
#pragma unroll
    for (int k = 0; k < N / 4; k++) {
      const uint4 v = __ldg ((const uint4 *)p + k);
      q[4 * k] = v.x;
      q[4 * k + 1] = v.y;
      q[4 * k + 2] = v.z;
      q[4 * k + 3] = v.w;
    }
  } else if constexpr (N == 2) {
    const uint2 v = __ldg ((const uint2 *)p);
    q[0] = v.x;
    q[1] = v.y;
  } else {
#pragma unroll
    for (int k = 0; k < N; k++)
      q[k] = __ldg ((const uint32_t *)p + k);
  }
}

#endif /* ME_CUDA_PIXEL_CUH */
