/* gpumotionest — x86 SIMD versions of the DSP routines.
 *
 * Each function is compiled for its own instruction set through a target
 * attribute, so the file builds with the baseline flags and the code runs
 * only where me_cpu_flags() says it can.  The current block is kept in
 * registers across all candidates of a row; each candidate costs one
 * unaligned load per reference row (two rows per load in AVX2).
 */
#include "config.h"

#include <immintrin.h>

#include "../dsp.h"

#define TARGET(t) __attribute__((target (t)))

/* ---- SSE2: psadbw, one row per instruction ---------------------------- */

TARGET ("sse2")
static decl_sad16_row_fn (sad16_row_sse2)
{
  __m128i c[16];
  for (int y = 0; y < 16; y++)
    c[y] = _mm_loadu_si128 ((const __m128i *) (cur + 16 * y));
  for (int i = 0; i < n; i++) {
    const uint8_t *r = ref + i;
    __m128i acc = _mm_setzero_si128 ();
    for (int y = 0; y < 16; y++, r += ref_stride)
      acc = _mm_add_epi64 (acc, _mm_sad_epu8 (c[y],
              _mm_loadu_si128 ((const __m128i *) r)));
    sad[i] = _mm_cvtsi128_si32 (acc) + _mm_extract_epi16 (acc, 4);
  }
}

/* psadbw sums eight bytes; masking alternate 4-byte groups of both operands
 * to zero leaves the sums of 4-pixel groups: bytes 0-3 and 8-11 with lo,
 * 4-7 and 12-15 with hi. */
TARGET ("sse2")
static decl_sad4x4_row_fn (sad4x4_row_sse2)
{
  const __m128i lo = _mm_set_epi32 (0, -1, 0, -1);
  const __m128i hi = _mm_set_epi32 (-1, 0, -1, 0);
  __m128i clo[16], chi[16];

  for (int y = 0; y < 16; y++) {
    __m128i v = _mm_loadu_si128 ((const __m128i *) (cur + 16 * y));
    clo[y] = _mm_and_si128 (v, lo);
    chi[y] = _mm_and_si128 (v, hi);
  }
  for (int i = 0; i < n; i++) {
    const uint8_t *r = ref + i;
    for (int by = 0; by < 4; by++) {
      __m128i a = _mm_setzero_si128 (), b = _mm_setzero_si128 ();
      for (int y = 4 * by; y < 4 * by + 4; y++, r += ref_stride) {
        __m128i v = _mm_loadu_si128 ((const __m128i *) r);
        a = _mm_add_epi64 (a, _mm_sad_epu8 (clo[y], _mm_and_si128 (v, lo)));
        b = _mm_add_epi64 (b, _mm_sad_epu8 (chi[y], _mm_and_si128 (v, hi)));
      }
      /* a: blocks 0 and 2 in 16-bit lanes 0 and 4; b: blocks 1 and 3 */
      out[i][4 * by + 0] = _mm_extract_epi16 (a, 0);
      out[i][4 * by + 1] = _mm_extract_epi16 (b, 0);
      out[i][4 * by + 2] = _mm_extract_epi16 (a, 4);
      out[i][4 * by + 3] = _mm_extract_epi16 (b, 4);
    }
  }
}

/* ---- AVX2: two rows per register --------------------------------------- */

TARGET ("avx2")
static inline __m256i
load_rows (const uint8_t * r0, const uint8_t * r1)
{
  return _mm256_inserti128_si256 (_mm256_castsi128_si256 (_mm_loadu_si128
          ((const __m128i *) r0)), _mm_loadu_si128 ((const __m128i *) r1), 1);
}

TARGET ("avx2")
static decl_sad16_row_fn (sad16_row_avx2)
{
  __m256i c[8];
  for (int k = 0; k < 8; k++)
    c[k] = _mm256_loadu_si256 ((const __m256i *) (cur + 32 * k));

  /* Two candidates at a time: twice the independent work in flight. */
  int i = 0;
  for (; i + 1 < n; i += 2) {
    const uint8_t *r = ref + i;
    __m256i a0 = _mm256_setzero_si256 (), a1 = _mm256_setzero_si256 ();
    for (int k = 0; k < 8; k++, r += 2 * ref_stride) {
      a0 = _mm256_add_epi64 (a0, _mm256_sad_epu8 (c[k],
              load_rows (r, r + ref_stride)));
      a1 = _mm256_add_epi64 (a1, _mm256_sad_epu8 (c[k],
              load_rows (r + 1, r + 1 + ref_stride)));
    }
    /* a0 = [s0 s1 s2 s3], a1 = [t0 t1 t2 t3] in 64-bit lanes */
    __m256i m = _mm256_add_epi64 (_mm256_unpacklo_epi64 (a0, a1),
        _mm256_unpackhi_epi64 (a0, a1));
    __m128i s = _mm_add_epi64 (_mm256_castsi256_si128 (m),
        _mm256_extracti128_si256 (m, 1));
    sad[i] = _mm_cvtsi128_si32 (s);
    sad[i + 1] = _mm_extract_epi32 (s, 2);
  }
  for (; i < n; i++) {
    const uint8_t *r = ref + i;
    __m256i a0 = _mm256_setzero_si256 ();
    for (int k = 0; k < 8; k++, r += 2 * ref_stride)
      a0 = _mm256_add_epi64 (a0, _mm256_sad_epu8 (c[k],
              load_rows (r, r + ref_stride)));
    __m128i s = _mm_add_epi64 (_mm256_castsi256_si128 (a0),
        _mm256_extracti128_si256 (a0, 1));
    sad[i] = _mm_cvtsi128_si32 (s) + _mm_extract_epi32 (s, 2);
  }
}

/* |c - r| per byte, pairs of neighbours summed into 16 bits (maddubs by
 * ones), rows of a 4x4 block row added, then neighbouring pairs added
 * (hadd): four 4x4 SADs per block row.  A 4x4 SAD is at most 4080, so
 * 16-bit lanes never saturate. */
TARGET ("avx2")
static decl_sad4x4_row_fn (sad4x4_row_avx2)
{
  const __m256i ones = _mm256_set1_epi8 (1);
  __m256i c[8];
  for (int k = 0; k < 8; k++)
    c[k] = _mm256_loadu_si256 ((const __m256i *) (cur + 32 * k));

  for (int i = 0; i < n; i++) {
    const uint8_t *r = ref + i;
    __m256i rows[4];
    for (int by = 0; by < 4; by++) {
      __m256i s = _mm256_setzero_si256 ();
      for (int k = 2 * by; k < 2 * by + 2; k++, r += 2 * ref_stride) {
        __m256i v = load_rows (r, r + ref_stride);
        __m256i d = _mm256_or_si256 (_mm256_subs_epu8 (c[k], v),
            _mm256_subs_epu8 (v, c[k]));
        s = _mm256_add_epi16 (s, _mm256_maddubs_epi16 (d, ones));
      }
      rows[by] = s;
    }
    /* Within each 128-bit lane hadd turns eight pair sums into the four
     * block sums; lane 0 holds rows 0 and 2 of each block row, lane 1 rows
     * 1 and 3, so adding the lanes completes the 4x4 SADs. */
    __m256i s01 = _mm256_hadd_epi16 (rows[0], rows[1]);
    __m256i s23 = _mm256_hadd_epi16 (rows[2], rows[3]);
    _mm_storeu_si128 ((__m128i *) out[i], _mm_add_epi16
        (_mm256_castsi256_si128 (s01), _mm256_extracti128_si256 (s01, 1)));
    _mm_storeu_si128 ((__m128i *) out[i] + 1, _mm_add_epi16
        (_mm256_castsi256_si128 (s23), _mm256_extracti128_si256 (s23, 1)));
  }
}

void
me_dsp_init_x86 (MEDsp * dsp, unsigned flags)
{
  if (flags & ME_CPU_FLAG_SSE2) {
    dsp->sad16_row = sad16_row_sse2;
    dsp->sad4x4_row = sad4x4_row_sse2;
  }
  if (flags & ME_CPU_FLAG_AVX2) {
    dsp->sad16_row = sad16_row_avx2;
    dsp->sad4x4_row = sad4x4_row_avx2;
  }
}
