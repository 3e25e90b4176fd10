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
#include <string.h>

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
      uint16_t *o = out + 4 * by * out_stride + i;
      o[0] = _mm_extract_epi16 (a, 0);
      o[out_stride] = _mm_extract_epi16 (b, 0);
      o[2 * out_stride] = _mm_extract_epi16 (a, 4);
      o[3 * out_stride] = _mm_extract_epi16 (b, 4);
    }
  }
}

/* ---- AVX2: two rows per register --------------------------------------- */

/* A 32-byte load at ref + j holds row y of candidate j in its low half and
 * row y of candidate j + 16 in its high half, so with the current block's
 * rows broadcast to both halves one psadbw serves two candidates, and no
 * byte outside the two candidates is read.  Candidates go in pairs
 * (j, j + 16) over each run of 32; what is left of a run is done 16 bytes
 * at a time.  psadbw leaves each half's sum in two 64-bit lanes, at most
 * 16 x 1020 in each, so 16-bit adds never carry. */
TARGET ("avx2")
static inline void
sad16_pair_avx2 (const __m256i * c, const uint8_t * r, ptrdiff_t stride,
    uint32_t * sad0, uint32_t * sad16)
{
  __m256i a0 = _mm256_sad_epu8 (c[0], _mm256_loadu_si256 ((const __m256i *) r));
  __m256i a1 = _mm256_sad_epu8 (c[1],
      _mm256_loadu_si256 ((const __m256i *) (r + stride)));
  r += 2 * stride;
  for (int y = 2; y < 16; y += 2, r += 2 * stride) {
    a0 = _mm256_add_epi16 (a0, _mm256_sad_epu8 (c[y],
            _mm256_loadu_si256 ((const __m256i *) r)));
    a1 = _mm256_add_epi16 (a1, _mm256_sad_epu8 (c[y + 1],
            _mm256_loadu_si256 ((const __m256i *) (r + stride))));
  }
  a0 = _mm256_add_epi16 (a0, a1);
  a0 = _mm256_add_epi16 (a0, _mm256_shuffle_epi32 (a0, 0x4e));
  *sad0 = (uint32_t) _mm256_cvtsi256_si32 (a0);
  *sad16 = (uint32_t) _mm256_extract_epi32 (a0, 4);
}

TARGET ("avx2")
static inline uint32_t
sad16_one_avx2 (const __m256i * c, const uint8_t * r, ptrdiff_t stride)
{
  __m128i a0 = _mm_setzero_si128 (), a1 = _mm_setzero_si128 ();
  for (int y = 0; y < 16; y += 2, r += 2 * stride) {
    a0 = _mm_add_epi16 (a0, _mm_sad_epu8 (_mm256_castsi256_si128 (c[y]),
            _mm_loadu_si128 ((const __m128i *) r)));
    a1 = _mm_add_epi16 (a1, _mm_sad_epu8 (_mm256_castsi256_si128 (c[y + 1]),
            _mm_loadu_si128 ((const __m128i *) (r + stride))));
  }
  a0 = _mm_add_epi16 (a0, a1);
  a0 = _mm_add_epi16 (a0, _mm_shuffle_epi32 (a0, 0x4e));
  return (uint32_t) _mm_cvtsi128_si32 (a0);
}

TARGET ("avx2")
static decl_sad16_row_fn (sad16_row_avx2)
{
  __m256i c[16];
  for (int y = 0; y < 16; y++)
    c[y] = _mm256_broadcastsi128_si256 (_mm_loadu_si128 ((const __m128i *)
            (cur + 16 * y)));

  for (int base = 0; base < n; base += 32) {
    const int m = n - base < 32 ? n - base : 32;
    const int pairs = m > 16 ? m - 16 : 0;
    int i = 0;
    for (; i < pairs; i++)
      sad16_pair_avx2 (c, ref + base + i, ref_stride, &sad[base + i],
          &sad[base + i + 16]);
    for (; i < m && i < 16; i++)
      sad[base + i] = sad16_one_avx2 (c, ref + base + i, ref_stride);
  }
}

/* ---- SSE4.1 ------------------------------------------------------------ */

TARGET ("sse4.1")
static decl_min_key_fn (min_key_sse41)
{
  __m128i acc = _mm_set1_epi32 (-1);
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128i s = _mm_loadu_si128 ((const __m128i *) (sad + i));
    __m128i r = _mm_cvtepu16_epi32 (_mm_loadl_epi64 ((const __m128i *)
            (rank + i)));
    acc = _mm_min_epu32 (acc, _mm_or_si128 (_mm_slli_epi32 (s, 16), r));
  }
  acc = _mm_min_epu32 (acc, _mm_shuffle_epi32 (acc, 0x4e));
  acc = _mm_min_epu32 (acc, _mm_shuffle_epi32 (acc, 0xb1));
  uint32_t best = (uint32_t) _mm_cvtsi128_si32 (acc);
  for (; i < n; i++) {
    uint32_t key = (sad[i] << 16) | rank[i];
    if (key < best)
      best = key;
  }
  return best;
}

/* ---- AVX2 --------------------------------------------------------------- */

TARGET ("avx2")
static decl_min_key_fn (min_key_avx2)
{
  __m256i acc = _mm256_set1_epi32 (-1);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i s = _mm256_loadu_si256 ((const __m256i *) (sad + i));
    __m256i r = _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *)
            (rank + i)));
    acc = _mm256_min_epu32 (acc, _mm256_or_si256 (_mm256_slli_epi32 (s, 16),
            r));
  }
  __m128i m = _mm_min_epu32 (_mm256_castsi256_si128 (acc),
      _mm256_extracti128_si256 (acc, 1));
  m = _mm_min_epu32 (m, _mm_shuffle_epi32 (m, 0x4e));
  m = _mm_min_epu32 (m, _mm_shuffle_epi32 (m, 0xb1));
  uint32_t best = (uint32_t) _mm_cvtsi128_si32 (m);
  for (; i < n; i++) {
    uint32_t key = (sad[i] << 16) | rank[i];
    if (key < best)
      best = key;
  }
  return best;
}

TARGET ("avx2")
static decl_sea_row_fn (sea_row_avx2)
{
  const uint16_t *q[4];
  __m256i c[4];
  for (int k = 0; k < 4; k++) {
    q[k] = q8 + 8 * (k >> 1) * q8_stride + 8 * (k & 1);
    c[k] = _mm256_set1_epi16 ((short) cq[k]);
  }
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i sum = _mm256_setzero_si256 ();
    for (int k = 0; k < 4; k++) {
      __m256i v = _mm256_loadu_si256 ((const __m256i *) (q[k] + i));
      /* |a - b| of unsigned 16-bit values: one of the two saturating
       * differences is zero */
      sum = _mm256_add_epi16 (sum, _mm256_or_si256 (_mm256_subs_epu16 (v,
                  c[k]), _mm256_subs_epu16 (c[k], v)));
    }
    _mm256_storeu_si256 ((__m256i *) (lb + i), sum);
  }
  for (; i < n; i++) {
    unsigned sum = 0;
    for (int k = 0; k < 4; k++)
      sum += q[k][i] > cq[k] ? q[k][i] - cq[k] : cq[k] - q[k][i];
    lb[i] = sum;
  }
}

/* vmpsadbw, per 128-bit half: eight SADs of one 4-byte group of the current
 * row (picked by imm bits 1:0) against the reference at eight consecutive
 * byte offsets, starting 0 or 4 bytes into the half (imm bit 2).  For 16
 * candidates j..j+15 the reference row r[0..31] is arranged as
 *   A = [ r[0..15] | r[8..23] ]    columns 0, 1 (start 0, 4)
 *   B = [ r[8..23] | r[16..31] ]   columns 2, 3 (start 0, 4)
 * so each result holds one 4-pixel row of one column of 4x4 blocks for all
 * 16 candidates, in order: the 4x4 SADs come out already laid out as the
 * per-block arrays the output wants.  A 4x4 SAD is at most 4080. */
#define MPSAD_IMM(bx) ((bx) | (((bx) & 1) << 2) | ((bx) << 3) | (((bx) & 1) << 5))

TARGET ("avx2")
static decl_sad4x4_row_fn (sad4x4_row_avx2)
{
  __m256i c[16];
  for (int y = 0; y < 16; y++)
    c[y] = _mm256_broadcastsi128_si256 (_mm_loadu_si128 ((const __m128i *)
            (cur + 16 * y)));

  for (int j = 0; j < n; j += 16) {
    const uint8_t *r = ref + j;
    const int left = n - j;
    for (int by = 0; by < 4; by++) {
      __m256i s0 = _mm256_setzero_si256 (), s1 = s0, s2 = s0, s3 = s0;
      for (int y = 4 * by; y < 4 * by + 4; y++) {
        __m256i x = _mm256_loadu_si256 ((const __m256i *) (r + y * ref_stride));
        __m256i a = _mm256_permute4x64_epi64 (x, 0x94);  /* q0 q1 q1 q2 */
        __m256i b = _mm256_permute4x64_epi64 (x, 0xe9);  /* q1 q2 q2 q3 */
        s0 = _mm256_add_epi16 (s0, _mm256_mpsadbw_epu8 (a, c[y], MPSAD_IMM (0)));
        s1 = _mm256_add_epi16 (s1, _mm256_mpsadbw_epu8 (a, c[y], MPSAD_IMM (1)));
        s2 = _mm256_add_epi16 (s2, _mm256_mpsadbw_epu8 (b, c[y], MPSAD_IMM (2)));
        s3 = _mm256_add_epi16 (s3, _mm256_mpsadbw_epu8 (b, c[y], MPSAD_IMM (3)));
      }
      uint16_t *o = out + 4 * by * out_stride + j;
      if (left >= 16) {
        _mm256_storeu_si256 ((__m256i *) o, s0);
        _mm256_storeu_si256 ((__m256i *) (o + out_stride), s1);
        _mm256_storeu_si256 ((__m256i *) (o + 2 * out_stride), s2);
        _mm256_storeu_si256 ((__m256i *) (o + 3 * out_stride), s3);
      } else {
        uint16_t t[4][16];
        _mm256_storeu_si256 ((__m256i *) t[0], s0);
        _mm256_storeu_si256 ((__m256i *) t[1], s1);
        _mm256_storeu_si256 ((__m256i *) t[2], s2);
        _mm256_storeu_si256 ((__m256i *) t[3], s3);
        for (int k = 0; k < 4; k++)
          memcpy (o + k * out_stride, t[k], left * sizeof (uint16_t));
      }
    }
  }
}

/* Sixteen candidates per step: the 41 partition costs by 16-bit adds (at
 * most 65280, no wrap), then per partition the row keys (cost << 16) | rank
 * by interleaving rank and cost, and a running unsigned minimum.
 *
 * Nothing past n is read, so that memory checkers see no read of the
 * caller's unwritten scratch.  When n is not a multiple of 16 the last step
 * starts at n - 16 and overlaps the step before it, which costs nothing:
 * a minimum does not change when candidates come twice.  Fewer than 16
 * candidates are copied into a zeroed block first, and the lanes past n
 * are forced to all ones, which no real key reaches. */
TARGET ("avx2")
static decl_part_min_fn (part_min_avx2)
{
  __m256i acc[ME_DSP_N_PARTS];
  const __m256i lane = _mm256_setr_epi16 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      11, 12, 13, 14, 15);
  uint16_t small[17 * 16] __attribute__((aligned (32)));

  if (n <= 0)
    return;
  if (n < 16) {
    memset (small, 0, sizeof (small));
    for (int j = 0; j < 16; j++)
      memcpy (small + 16 * j, sad4 + j * stride, n * sizeof (uint16_t));
    memcpy (small + 16 * 16, rank, n * sizeof (uint16_t));
    sad4 = small;
    stride = 16;
    rank = small + 16 * 16;
  }

  for (int k = 0; k < ME_DSP_N_PARTS; k++)
    acc[k] = _mm256_set1_epi32 (-1);

  for (int i = 0; i < n; i += 16) {
    __m256i b[16], c[ME_DSP_N_PARTS];
    const int at = n >= 16 && n - i < 16 ? n - 16 : i;
    for (int j = 0; j < 16; j++)
      b[j] = _mm256_loadu_si256 ((const __m256i *) (sad4 + j * stride + at));
    __m256i rk = _mm256_loadu_si256 ((const __m256i *) (rank + at));
    int k = 0;

    /* 8x4 first: pairs of 4x4 side by side */
    __m256i h[8];
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 2; x++)
        h[2 * y + x] = _mm256_add_epi16 (b[4 * y + 2 * x], b[4 * y + 2 * x + 1]);
    __m256i q0 = _mm256_add_epi16 (h[0], h[2]), q1 = _mm256_add_epi16 (h[1], h[3]);
    __m256i q2 = _mm256_add_epi16 (h[4], h[6]), q3 = _mm256_add_epi16 (h[5], h[7]);
    __m256i t = _mm256_add_epi16 (q0, q1), bt = _mm256_add_epi16 (q2, q3);
    c[k++] = _mm256_add_epi16 (t, bt);
    c[k++] = t;
    c[k++] = bt;
    c[k++] = _mm256_add_epi16 (q0, q2);
    c[k++] = _mm256_add_epi16 (q1, q3);
    c[k++] = q0;
    c[k++] = q1;
    c[k++] = q2;
    c[k++] = q3;
    for (int j = 0; j < 8; j++)
      c[k++] = h[j];
    for (int y = 0; y < 4; y += 2)
      for (int x = 0; x < 4; x++)
        c[k++] = _mm256_add_epi16 (b[4 * y + x], b[4 * y + x + 4]);
    for (int j = 0; j < 16; j++)
      c[k++] = b[j];

    if (n < 16) {
      __m256i past = _mm256_cmpgt_epi16 (lane, _mm256_set1_epi16 (n - 1));
      rk = _mm256_or_si256 (rk, past);
      for (k = 0; k < ME_DSP_N_PARTS; k++)
        c[k] = _mm256_or_si256 (c[k], past);
    }
    for (k = 0; k < ME_DSP_N_PARTS; k++) {
      __m256i lo = _mm256_unpacklo_epi16 (rk, c[k]);
      __m256i hi = _mm256_unpackhi_epi16 (rk, c[k]);
      acc[k] = _mm256_min_epu32 (acc[k], _mm256_min_epu32 (lo, hi));
    }
  }

  for (int k = 0; k < ME_DSP_N_PARTS; k++) {
    __m128i m = _mm_min_epu32 (_mm256_castsi256_si128 (acc[k]),
        _mm256_extracti128_si256 (acc[k], 1));
    m = _mm_min_epu32 (m, _mm_shuffle_epi32 (m, 0x4e));
    m = _mm_min_epu32 (m, _mm_shuffle_epi32 (m, 0xb1));
    uint32_t v = (uint32_t) _mm_cvtsi128_si32 (m);
    if (v < best[k])
      best[k] = v;
  }
}

void
me_dsp_init_x86 (MEDsp * dsp, unsigned flags)
{
  if (flags & ME_CPU_FLAG_SSE2) {
    dsp->sad16_row = sad16_row_sse2;
    dsp->sad4x4_row = sad4x4_row_sse2;
  }
  if (flags & ME_CPU_FLAG_SSE41) {
    dsp->min_key = min_key_sse41;
  }
  if (flags & ME_CPU_FLAG_AVX2) {
    dsp->sad16_row = sad16_row_avx2;
    dsp->min_key = min_key_avx2;
    dsp->sea_row = sea_row_avx2;
    dsp->sad4x4_row = sad4x4_row_avx2;
    dsp->part_min = part_min_avx2;
  }
}
