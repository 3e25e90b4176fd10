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
#include "me_parts.h"
#include "esa_keep_simd.h"
#include "subpel_rules.h"
#include "luma_rules.h"

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

/* The current block's rows, each broadcast to both halves. */
TARGET ("avx2")
static inline void
load_cur16_avx2 (const uint8_t * cur, __m256i c[16])
{
  for (int y = 0; y < 16; y++)
    c[y] = _mm256_broadcastsi128_si256 (_mm_loadu_si128 ((const __m128i *)
            (cur + 16 * y)));
}

TARGET ("avx2")
static decl_sad16_row_fn (sad16_row_avx2)
{
  __m256i c[16];
  load_cur16_avx2 (cur, c);

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

/* Scattered candidates two at a time: row y of one in the low half, of the
 * other in the high half, against the current row broadcast to both. */
TARGET ("avx2")
static decl_sad16_points_fn (sad16_points_avx2)
{
  __m256i c[16];
  load_cur16_avx2 (cur, c);

  int i = 0;
  for (; i + 2 <= n; i += 2) {
    const uint8_t *a = ref + off[i], *b = ref + off[i + 1];
    __m256i s0 = _mm256_setzero_si256 (), s1 = _mm256_setzero_si256 ();
    for (int y = 0; y < 16; y += 2) {
      const ptrdiff_t o0 = y * ref_stride, o1 = o0 + ref_stride;
      const __m256i r0 = _mm256_inserti128_si256 (_mm256_castsi128_si256
          (_mm_loadu_si128 ((const __m128i *) (a + o0))),
          _mm_loadu_si128 ((const __m128i *) (b + o0)), 1);
      const __m256i r1 = _mm256_inserti128_si256 (_mm256_castsi128_si256
          (_mm_loadu_si128 ((const __m128i *) (a + o1))),
          _mm_loadu_si128 ((const __m128i *) (b + o1)), 1);
      s0 = _mm256_add_epi16 (s0, _mm256_sad_epu8 (c[y], r0));
      s1 = _mm256_add_epi16 (s1, _mm256_sad_epu8 (c[y + 1], r1));
    }
    s0 = _mm256_add_epi16 (s0, s1);
    s0 = _mm256_add_epi16 (s0, _mm256_shuffle_epi32 (s0, 0x4e));
    sad[i] = (uint32_t) _mm256_cvtsi256_si32 (s0);
    sad[i + 1] = (uint32_t) _mm256_extract_epi32 (s0, 4);
  }
  if (i < n)
    sad[i] = sad16_one_avx2 (c, ref + off[i], ref_stride);
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

/* esa_row's candidates i0 .. n - 1, one at a time. */
static void
esa_row_tail (const q8_t * q4, ptrdiff_t q4_stride, const q8_t c4[16],
    const uint32_t * lim, int i0, int n, uint32_t * keep)
{
  for (int i = i0; i < n; i++) {
    uint32_t d[16];
    for (int b = 0; b < 16; b++) {
      const int64_t v = (int64_t) c4[b] - (int64_t) q4[4 * (b >> 2) * q4_stride
          + 4 * (b & 3) + i];
      d[b] = (uint32_t) (v < 0 ? -v : v);
    }
    me_dsp_esa_keep (d, lim, i, keep);
  }
}
/* Sixteen candidates a step in 16-bit lanes: the sixteen |c4 - q4| are
 * exact (at most 4080), and so is every partition's sum of them (at most
 * 65280); partition k keeps a lane when lim[k] - bound does not saturate
 * to 0. */
#define LANES 16
#define ZERO _mm256_setzero_si256 ()
#define LOADQ(p) _mm256_loadu_si256 ((const __m256i *) (p))
#define ABSDIFF(v, c) _mm256_or_si256 (_mm256_subs_epu16 (v, c), \
    _mm256_subs_epu16 (c, v))
#define ADD _mm256_add_epi16
#define KEEP(v, k) (m = _mm256_max_epu16 (m, _mm256_subs_epu16 (l[k], (v))))
#define STORE_BITS(m) do { \
    const __m256i z = _mm256_cmpeq_epi16 (m, _mm256_setzero_si256 ()); \
    /* set where some lim - bound > 0; i a multiple of 16 */ \
    const unsigned bits = ~(unsigned) _mm_movemask_epi8 (_mm_packs_epi16 \
        (_mm256_castsi256_si128 (z), _mm256_extracti128_si256 (z, 1))) \
        & 0xffff; \
    if (i % 32 == 0) \
      keep[i / 32] = 0; \
    keep[i / 32] |= bits << (i % 32); \
  } while (0)
TARGET ("avx2")
static decl_esa_row_fn (esa_row_avx2)
{
  __m256i c[16], l[ME_DSP_N_PARTS];
  const uint16_t *q[16];
  for (int b = 0; b < 16; b++) {
    c[b] = _mm256_set1_epi16 ((short) c4[b]);
    q[b] = q4 + 4 * (b >> 2) * q4_stride + 4 * (b & 3);
  }
  for (int k = 0; k < ME_DSP_N_PARTS; k++)
    l[k] = _mm256_set1_epi16 ((short) (lim[k] < 65535 ? lim[k] : 65535));

  int i = 0;
  for (; i + LANES <= n; i += LANES) {
    __m256i m = ZERO, d[16];
    for (int b = 0; b < 16; b++)
      d[b] = ABSDIFF (LOADQ (q[b] + i), c[b]);
    ESA_KEEP_PARTS (d);
    STORE_BITS (m);
  }
  if (i < n)
    esa_row_tail (q4, q4_stride, c4, lim, i, n, keep);
}

#undef LANES
#undef ZERO
#undef LOADQ
#undef ABSDIFF
#undef ADD
#undef KEEP
#undef STORE_BITS

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

/* The sixteen 4x4 SADs of one candidate: per row the byte differences,
 * summed in fours by two multiply-adds, four rows per block row.  For the
 * few candidates that the sixteen-wide steps would mostly waste (the fast
 * methods cost candidates one at a time). */
TARGET ("avx2")
static void
sad4x4_one_avx2 (const uint8_t * cur, const uint8_t * ref,
    ptrdiff_t ref_stride, uint16_t * out, ptrdiff_t out_stride)
{
  const __m256i ones8 = _mm256_set1_epi8 (1), ones16 = _mm256_set1_epi16 (1);
  for (int by = 0; by < 4; by++) {
    __m256i acc = _mm256_setzero_si256 ();
    for (int y = 4 * by; y < 4 * by + 4; y += 2) {
      /* rows y and y + 1 side by side */
      __m256i a = _mm256_loadu2_m128i ((const __m128i *) (cur + 16 * y + 16),
          (const __m128i *) (cur + 16 * y));
      __m256i b = _mm256_loadu2_m128i ((const __m128i *) (ref + (y + 1)
              * ref_stride), (const __m128i *) (ref + y * ref_stride));
      __m256i d = _mm256_or_si256 (_mm256_subs_epu8 (a, b),
          _mm256_subs_epu8 (b, a));
      acc = _mm256_add_epi32 (acc, _mm256_madd_epi16 (_mm256_maddubs_epi16 (d,
              ones8), ones16));
    }
    uint32_t t[4];
    _mm_storeu_si128 ((__m128i *) t, _mm_add_epi32 (_mm256_castsi256_si128
            (acc), _mm256_extracti128_si256 (acc, 1)));
    for (int bx = 0; bx < 4; bx++)
      out[(4 * by + bx) * out_stride] = (uint16_t) t[bx];
  }
}

TARGET ("avx2")
static decl_sad4x4_row_fn (sad4x4_row_avx2)
{
  __m256i c[16];
  if (n < 4) {
    for (int i = 0; i < n; i++)
      sad4x4_one_avx2 (cur, ref + i, ref_stride, out + i, out_stride);
    return;
  }
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

/* ---- sub-pel: half-sample planes and candidate costs --------------------- */

/* hpel_row (subpel_rules.h, exactly).  The unrounded 6-tap sums of eight
 * bit pixels lie in [-2550, 10710], so they fit 16 bits; the centre sample
 * filters six of them again, which needs 32 bits (j1 in [-214200,
 * 475320]).  So the vertical sums v1 are computed first, for the columns
 * [x0 - 2, x1 + 3) of a chunk of outputs [x0, x1), into a 16-bit buffer;
 * V comes from them by rounding, and C by the horizontal filter over them
 * with pmaddwd (pairs of 16-bit products summed into 32 bits).  The
 * separable sum is exact in integers, so filtering vertically first gives
 * the j1 of the standard's horizontal-first order.
 *
 * Both filters take pairs of taps with one multiply-add: pmaddubsw on two
 * rows interleaved byte by byte (the vertical sums), or on a row loaded at
 * three offsets two apart (the horizontal ones, for the even outputs; the
 * odd ones from the loads one further).  Each pair sum, (1, -5), (20, 20)
 * or (-5, 1) applied to two pixels, lies in [-1275, 10200], so the
 * saturating add of pmaddubsw never saturates.
 *
 * Outputs go in steps of the vector width; the last step of a chunk starts
 * at x1 - width, overlapping the one before (writing the same values
 * again), so nothing outside [x0 - 2, x1 + 3) is read and nothing outside
 * [x0, x1) is written.  A row shorter than one step goes to the version
 * a level down, and one shorter than 16 to plain C. */
#define HPEL_CHUNK 256

static void
hpel_row_scalar (const uint8_t * src, ptrdiff_t stride, int n, uint8_t * h,
    uint8_t * v, uint8_t * c)
{
  for (int i = 0; i < n; i++) {
    h[i] = me_hpel_h (src + i, stride);
    v[i] = me_hpel_v (src + i, stride);
    c[i] = me_hpel_c (src + i, stride);
  }
}

/* pmaddubsw coefficients: byte pairs (first, second), first in the low
 * byte; and the pmaddwd ones, 16-bit pairs, first in the low half. */
#define TAPS8(a, b) ((short) (((a) & 0xff) | ((b) & 0xff) << 8))
#define TAPS16(a, b) ((int) (((unsigned) (a) & 0xffff) | (unsigned) (b) << 16))

TARGET ("ssse3")
static decl_hpel_row_fn (hpel_row_ssse3)
{
  const __m128i t01 = _mm_set1_epi16 (TAPS8 (1, -5));
  const __m128i t23 = _mm_set1_epi16 (TAPS8 (20, 20));
  const __m128i t45 = _mm_set1_epi16 (TAPS8 (-5, 1));
  const __m128i w01 = _mm_set1_epi32 (TAPS16 (1, -5));
  const __m128i w23 = _mm_set1_epi32 (TAPS16 (20, 20));
  const __m128i w45 = _mm_set1_epi32 (TAPS16 (-5, 1));
  const __m128i r5 = _mm_set1_epi16 (16), r10 = _mm_set1_epi32 (512);
  const __m128i zero = _mm_setzero_si128 (), max = _mm_set1_epi16 (255);
  const __m128i lo16 = _mm_set1_epi32 (0xffff);
  /* v1 of column x0 - 2 + t at t */
  int16_t v1[HPEL_CHUNK + 16 + 8] __attribute__((aligned (16)));

  if (n < 16) {
    hpel_row_scalar (src, stride, n, h, v, c);
    return;
  }
  for (int x0 = 0, x1; x0 < n; x0 = x1) {
    x1 = n - x0 <= HPEL_CHUNK + 16 ? n : x0 + HPEL_CHUNK;
    const int len = x1 - x0 + 5;

    for (int t = 0; t < len; t += 16) {
      if (t > len - 16)
        t = len - 16;
      const uint8_t *p = src + x0 - 2 + t;
      __m128i m2 = _mm_loadu_si128 ((const __m128i *) (p - 2 * stride));
      __m128i m1 = _mm_loadu_si128 ((const __m128i *) (p - stride));
      __m128i p0 = _mm_loadu_si128 ((const __m128i *) p);
      __m128i p1 = _mm_loadu_si128 ((const __m128i *) (p + stride));
      __m128i p2 = _mm_loadu_si128 ((const __m128i *) (p + 2 * stride));
      __m128i p3 = _mm_loadu_si128 ((const __m128i *) (p + 3 * stride));
      __m128i lo = _mm_add_epi16 (_mm_add_epi16 (
              _mm_maddubs_epi16 (_mm_unpacklo_epi8 (m2, m1), t01),
              _mm_maddubs_epi16 (_mm_unpacklo_epi8 (p0, p1), t23)),
          _mm_maddubs_epi16 (_mm_unpacklo_epi8 (p2, p3), t45));
      __m128i hi = _mm_add_epi16 (_mm_add_epi16 (
              _mm_maddubs_epi16 (_mm_unpackhi_epi8 (m2, m1), t01),
              _mm_maddubs_epi16 (_mm_unpackhi_epi8 (p0, p1), t23)),
          _mm_maddubs_epi16 (_mm_unpackhi_epi8 (p2, p3), t45));
      _mm_storeu_si128 ((__m128i *) (v1 + t), lo);
      _mm_storeu_si128 ((__m128i *) (v1 + t + 8), hi);
      if (t == len - 16)
        break;
    }

    for (int x = x0; x < x1; x += 16) {
      if (x > x1 - 16)
        x = x1 - 16;
      const uint8_t *p = src + x;
      const int16_t *q = v1 + (x - x0);
      /* H: even outputs from the loads at -2, 0, 2, odd ones at -1, 1, 3 */
      __m128i e = _mm_add_epi16 (_mm_add_epi16 (
              _mm_maddubs_epi16 (_mm_loadu_si128 ((const __m128i *) (p - 2)),
                  t01), _mm_maddubs_epi16 (_mm_loadu_si128 ((const __m128i *)
                      p), t23)),
          _mm_maddubs_epi16 (_mm_loadu_si128 ((const __m128i *) (p + 2)),
              t45));
      __m128i o = _mm_add_epi16 (_mm_add_epi16 (
              _mm_maddubs_epi16 (_mm_loadu_si128 ((const __m128i *) (p - 1)),
                  t01), _mm_maddubs_epi16 (_mm_loadu_si128 ((const __m128i *)
                      (p + 1)), t23)),
          _mm_maddubs_epi16 (_mm_loadu_si128 ((const __m128i *) (p + 3)),
              t45));
      e = _mm_min_epi16 (_mm_max_epi16 (_mm_srai_epi16 (_mm_add_epi16 (e, r5),
                  5), zero), max);
      o = _mm_min_epi16 (_mm_max_epi16 (_mm_srai_epi16 (_mm_add_epi16 (o, r5),
                  5), zero), max);
      _mm_storeu_si128 ((__m128i *) (h + x), _mm_or_si128 (e,
              _mm_slli_epi16 (o, 8)));

      /* V: the vertical sums of columns x .. x + 15 */
      __m128i va = _mm_srai_epi16 (_mm_add_epi16 (_mm_loadu_si128 ((const
                      __m128i *) (q + 2)), r5), 5);
      __m128i vb = _mm_srai_epi16 (_mm_add_epi16 (_mm_loadu_si128 ((const
                      __m128i *) (q + 10)), r5), 5);
      _mm_storeu_si128 ((__m128i *) (v + x), _mm_packus_epi16 (va, vb));

      /* C: 32-bit sums, four even and four odd outputs per group */
      __m128i j[2];
      for (int g = 0; g < 2; g++) {
        const int16_t *r = q + 8 * g;
        __m128i je = _mm_add_epi32 (_mm_add_epi32 (
                _mm_madd_epi16 (_mm_loadu_si128 ((const __m128i *) r), w01),
                _mm_madd_epi16 (_mm_loadu_si128 ((const __m128i *) (r + 2)),
                    w23)), _mm_madd_epi16 (_mm_loadu_si128 ((const __m128i *)
                    (r + 4)), w45));
        __m128i jo = _mm_add_epi32 (_mm_add_epi32 (
                _mm_madd_epi16 (_mm_loadu_si128 ((const __m128i *) (r + 1)),
                    w01), _mm_madd_epi16 (_mm_loadu_si128 ((const __m128i *)
                        (r + 3)), w23)),
            _mm_madd_epi16 (_mm_loadu_si128 ((const __m128i *) (r + 5)), w45));
        /* (j1 + 512) >> 10 lies in [-210, 464]: its low 16 bits are the
         * value, so even and odd interleave as 16-bit lanes */
        je = _mm_srai_epi32 (_mm_add_epi32 (je, r10), 10);
        jo = _mm_srai_epi32 (_mm_add_epi32 (jo, r10), 10);
        j[g] = _mm_or_si128 (_mm_and_si128 (je, lo16), _mm_slli_epi32 (jo,
                16));
      }
      _mm_storeu_si128 ((__m128i *) (c + x), _mm_packus_epi16 (j[0], j[1]));
    }
  }
}

/* subpel_cost.  The prediction is pavgb of the two planes, which is
 * (a + b + 1) >> 1.  SAD: psadbw.  SATD: the differences as 16-bit lanes,
 * each 4-lane group one row of one 4x4 block.  The 2-D Hadamard transform
 * is separable, so the order of its four butterfly stages does not change
 * the coefficients: first the two vertical stages, then the horizontal one
 * within lane pairs, and for the last one the identity
 * |u + v| + |u - v| = 2 max (|u|, |v|): the maximum of the absolute values
 * and those of the partner lanes two away.  Each pair's maximum then sits
 * in both of its lanes, so the lanes sum to the block's sum of absolute
 * coefficients, twice its SATD; halving the total is exact because every
 * block's sum is even (subpel_rules.h).  Each lane holds at most 2040 (a
 * sum of eight differences) per block, and at most 16 of those are added
 * in one 16-bit lane before it is widened, 32640 at most.
 *
 * The width is a constant in each loop: the entry points dispatch on it to
 * always-inlined bodies. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Four registers, rows 0..3 of up to four blocks side by side (lane 4m + x
 * of register y: pixel (x, y) of block m). */
TARGET ("ssse3")
static ALWAYS_INLINE __m128i
hadamard4_ssse3 (__m128i r0, __m128i r1, __m128i r2, __m128i r3)
{
  const __m128i swap = _mm_setr_epi8 (2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
      14, 15, 12, 13);
  const __m128i pm = _mm_set1_epi32 (TAPS16 (1, -1));
  __m128i a0 = _mm_add_epi16 (r0, r1), a1 = _mm_sub_epi16 (r0, r1);
  __m128i a2 = _mm_add_epi16 (r2, r3), a3 = _mm_sub_epi16 (r2, r3);
  __m128i b[4] = { _mm_add_epi16 (a0, a2), _mm_add_epi16 (a1, a3),
    _mm_sub_epi16 (a0, a2), _mm_sub_epi16 (a1, a3)
  };
  for (int k = 0; k < 4; k++) {
    /* (x0 + x1, x0 - x1) in each lane pair */
    b[k] = _mm_add_epi16 (_mm_shuffle_epi8 (b[k], swap),
        _mm_sign_epi16 (b[k], pm));
    b[k] = _mm_abs_epi16 (b[k]);
    b[k] = _mm_max_epi16 (b[k], _mm_shuffle_epi32 (b[k], 0xb1));
  }
  return _mm_add_epi16 (_mm_add_epi16 (b[0], b[1]), _mm_add_epi16 (b[2],
          b[3]));
}

/* One 4x4 block in two registers, rows 0, 1 and rows 2, 3: the first
 * vertical stage pairs the 64-bit halves of each, the second the two
 * registers. */
TARGET ("ssse3")
static ALWAYS_INLINE __m128i
hadamard4x4_ssse3 (__m128i r01, __m128i r23)
{
  const __m128i swap = _mm_setr_epi8 (2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
      14, 15, 12, 13);
  const __m128i pm = _mm_set1_epi32 (TAPS16 (1, -1));
  const __m128i halves = _mm_setr_epi16 (1, 1, 1, 1, -1, -1, -1, -1);
  /* r0 + r1 | r0 - r1, and r2 + r3 | r2 - r3 */
  r01 = _mm_add_epi16 (_mm_shuffle_epi32 (r01, 0x4e),
      _mm_sign_epi16 (r01, halves));
  r23 = _mm_add_epi16 (_mm_shuffle_epi32 (r23, 0x4e),
      _mm_sign_epi16 (r23, halves));
  __m128i b[2] = { _mm_add_epi16 (r01, r23), _mm_sub_epi16 (r01, r23) };
  for (int k = 0; k < 2; k++) {
    b[k] = _mm_add_epi16 (_mm_shuffle_epi8 (b[k], swap),
        _mm_sign_epi16 (b[k], pm));
    b[k] = _mm_abs_epi16 (b[k]);
    b[k] = _mm_max_epi16 (b[k], _mm_shuffle_epi32 (b[k], 0xb1));
  }
  return _mm_add_epi16 (b[0], b[1]);
}

/* The 16-bit lanes of acc (each at most 32767) widened to 32-bit sums of
 * pairs. */
TARGET ("sse2")
static ALWAYS_INLINE __m128i
widen_128 (__m128i acc)
{
  return _mm_madd_epi16 (acc, _mm_set1_epi16 (1));
}

/* The sum of the 32-bit lanes of s, halved: the SATD of the blocks whose
 * transform maxima they hold. */
TARGET ("sse2")
static ALWAYS_INLINE uint32_t
satd_total_128 (__m128i s)
{
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0x4e));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0xb1));
  return (uint32_t) _mm_cvtsi128_si32 (s) >> 1;
}

/* The two 64-bit sums of psadbw. */
TARGET ("sse2")
static ALWAYS_INLINE uint32_t
sad_total (__m128i sad)
{
  return (uint32_t) (_mm_cvtsi128_si32 (sad) + _mm_extract_epi16 (sad, 4));
}

TARGET ("sse2")
static ALWAYS_INLINE __m128i
load32 (const uint8_t * p)
{
  int32_t v;
  memcpy (&v, p, 4);
  return _mm_cvtsi32_si128 (v);
}

/* The 4x4 block at p as 16 bytes, row after row. */
TARGET ("sse2")
static ALWAYS_INLINE __m128i
block4x4 (const uint8_t * p, ptrdiff_t stride)
{
  return _mm_unpacklo_epi64 (_mm_unpacklo_epi32 (load32 (p),
          load32 (p + stride)), _mm_unpacklo_epi32 (load32 (p + 2 * stride),
          load32 (p + 3 * stride)));
}

/* Row y of a block 16 or 8 wide as 16 bytes: w = 16 the row; w = 8 the row
 * and, in the high half, row y + 4 when the block has it (zero in the
 * current block and the prediction alike when not, adding nothing). */
TARGET ("sse2")
static ALWAYS_INLINE __m128i
rows16 (const uint8_t * p, ptrdiff_t stride, int w, int h, int y)
{
  if (w == 16)
    return _mm_loadu_si128 ((const __m128i *) (p + y * stride));
  __m128i lo = _mm_loadl_epi64 ((const __m128i *) (p + y * stride));
  __m128i hi = y + 4 < h ? _mm_loadl_epi64 ((const __m128i *) (p + (y + 4)
          * stride)) : _mm_setzero_si128 ();
  return _mm_unpacklo_epi64 (lo, hi);
}

/* Blocks 16 or 8 wide, 8 lanes per register: w = 16 groups of 4 rows,
 * the left and the right half of each row; w = 8 groups of 8 rows, rows
 * y and y + 4 (whose high half is empty when h = 4). */
TARGET ("ssse3")
static ALWAYS_INLINE uint32_t
cost_wide_128 (const uint8_t * cur, ptrdiff_t cur_stride, const uint8_t * a,
    const uint8_t * b, ptrdiff_t stride, int w, int h, int satd)
{
  const int g = w == 16 ? 4 : 8, high = w == 16 || h > 4;
  const __m128i zero = _mm_setzero_si128 ();
  __m128i acc = _mm_setzero_si128 ();

  for (int y0 = 0; y0 < h; y0 += g) {
    __m128i lo[4], hi[4];
    for (int k = 0; k < 4; k++) {
      __m128i cv = rows16 (cur, cur_stride, w, h, y0 + k);
      __m128i pv = _mm_avg_epu8 (rows16 (a, stride, w, h, y0 + k),
          rows16 (b, stride, w, h, y0 + k));
      if (!satd) {
        acc = _mm_add_epi64 (acc, _mm_sad_epu8 (cv, pv));
        continue;
      }
      lo[k] = _mm_sub_epi16 (_mm_unpacklo_epi8 (cv, zero),
          _mm_unpacklo_epi8 (pv, zero));
      hi[k] = high ? _mm_sub_epi16 (_mm_unpackhi_epi8 (cv, zero),
          _mm_unpackhi_epi8 (pv, zero)) : zero;
    }
    if (!satd)
      continue;
    /* widened per group: up to 8 values of 2040 per lane */
    __m128i s = hadamard4_ssse3 (lo[0], lo[1], lo[2], lo[3]);
    if (high)
      s = _mm_add_epi16 (s, hadamard4_ssse3 (hi[0], hi[1], hi[2], hi[3]));
    acc = _mm_add_epi32 (acc, widen_128 (s));
  }
  return satd ? satd_total_128 (acc) : sad_total (acc);
}

/* Blocks 4 wide: one block in two registers at a time. */
TARGET ("ssse3")
static ALWAYS_INLINE uint32_t
cost_4_128 (const uint8_t * cur, ptrdiff_t cur_stride, const uint8_t * a,
    const uint8_t * b, ptrdiff_t stride, int h, int satd)
{
  const __m128i zero = _mm_setzero_si128 ();
  __m128i acc = _mm_setzero_si128 ();

  for (int y = 0; y < h; y += 4) {
    __m128i cv = block4x4 (cur + y * cur_stride, cur_stride);
    __m128i pv = _mm_avg_epu8 (block4x4 (a + y * stride, stride),
        block4x4 (b + y * stride, stride));
    if (!satd) {
      acc = _mm_add_epi64 (acc, _mm_sad_epu8 (cv, pv));
      continue;
    }
    /* up to 2 values of 2040 per lane per block, 4 blocks */
    acc = _mm_add_epi16 (acc, hadamard4x4_ssse3 (_mm_sub_epi16
            (_mm_unpacklo_epi8 (cv, zero), _mm_unpacklo_epi8 (pv, zero)),
            _mm_sub_epi16 (_mm_unpackhi_epi8 (cv, zero),
                _mm_unpackhi_epi8 (pv, zero))));
  }
  return satd ? satd_total_128 (widen_128 (acc)) : sad_total (acc);
}

/* The bodies above with w, h and satd constant. */
#define COST_ARGS cur, cur_stride, a, b, stride

TARGET ("ssse3")
static decl_subpel_cost_fn (subpel_cost_ssse3)
{
  if (w == 16)
    return satd ? cost_wide_128 (COST_ARGS, 16, h, 1)
        : cost_wide_128 (COST_ARGS, 16, h, 0);
  if (w == 8)
    return satd ? cost_wide_128 (COST_ARGS, 8, h, 1)
        : cost_wide_128 (COST_ARGS, 8, h, 0);
  return satd ? cost_4_128 (COST_ARGS, h, 1) : cost_4_128 (COST_ARGS, h, 0);
}

TARGET ("avx2")
static decl_hpel_row_fn (hpel_row_avx2)
{
  const __m256i t01 = _mm256_set1_epi16 (TAPS8 (1, -5));
  const __m256i t23 = _mm256_set1_epi16 (TAPS8 (20, 20));
  const __m256i t45 = _mm256_set1_epi16 (TAPS8 (-5, 1));
  const __m256i w01 = _mm256_set1_epi32 (TAPS16 (1, -5));
  const __m256i w23 = _mm256_set1_epi32 (TAPS16 (20, 20));
  const __m256i w45 = _mm256_set1_epi32 (TAPS16 (-5, 1));
  const __m256i r5 = _mm256_set1_epi16 (16), r10 = _mm256_set1_epi32 (512);
  const __m256i zero = _mm256_setzero_si256 (), max = _mm256_set1_epi16 (255);
  /* v1 of column x0 - 2 + t at t */
  int16_t v1[HPEL_CHUNK + 32 + 8] __attribute__((aligned (32)));

  if (n < 32) {
    hpel_row_ssse3 (src, stride, n, h, v, c);
    return;
  }
  for (int x0 = 0, x1; x0 < n; x0 = x1) {
    x1 = n - x0 <= HPEL_CHUNK + 32 ? n : x0 + HPEL_CHUNK;
    const int len = x1 - x0 + 5;

    for (int t = 0; t < len; t += 32) {
      if (t > len - 32)
        t = len - 32;
      const uint8_t *p = src + x0 - 2 + t;
      __m256i m2 = _mm256_loadu_si256 ((const __m256i *) (p - 2 * stride));
      __m256i m1 = _mm256_loadu_si256 ((const __m256i *) (p - stride));
      __m256i p0 = _mm256_loadu_si256 ((const __m256i *) p);
      __m256i p1 = _mm256_loadu_si256 ((const __m256i *) (p + stride));
      __m256i p2 = _mm256_loadu_si256 ((const __m256i *) (p + 2 * stride));
      __m256i p3 = _mm256_loadu_si256 ((const __m256i *) (p + 3 * stride));
      /* per 128-bit half: lo columns 0-7, hi 8-15 */
      __m256i lo = _mm256_add_epi16 (_mm256_add_epi16 (
              _mm256_maddubs_epi16 (_mm256_unpacklo_epi8 (m2, m1), t01),
              _mm256_maddubs_epi16 (_mm256_unpacklo_epi8 (p0, p1), t23)),
          _mm256_maddubs_epi16 (_mm256_unpacklo_epi8 (p2, p3), t45));
      __m256i hi = _mm256_add_epi16 (_mm256_add_epi16 (
              _mm256_maddubs_epi16 (_mm256_unpackhi_epi8 (m2, m1), t01),
              _mm256_maddubs_epi16 (_mm256_unpackhi_epi8 (p0, p1), t23)),
          _mm256_maddubs_epi16 (_mm256_unpackhi_epi8 (p2, p3), t45));
      _mm256_storeu_si256 ((__m256i *) (v1 + t),
          _mm256_permute2x128_si256 (lo, hi, 0x20));
      _mm256_storeu_si256 ((__m256i *) (v1 + t + 16),
          _mm256_permute2x128_si256 (lo, hi, 0x31));
      if (t == len - 32)
        break;
    }

    for (int x = x0; x < x1; x += 32) {
      if (x > x1 - 32)
        x = x1 - 32;
      const uint8_t *p = src + x;
      const int16_t *q = v1 + (x - x0);
      /* H: even outputs from the loads at -2, 0, 2, odd ones at -1, 1, 3;
       * clipped, the odd ones go to the high bytes: 32 outputs in order */
      __m256i e = _mm256_add_epi16 (_mm256_add_epi16 (
              _mm256_maddubs_epi16 (_mm256_loadu_si256 ((const __m256i *)
                      (p - 2)), t01),
              _mm256_maddubs_epi16 (_mm256_loadu_si256 ((const __m256i *) p),
                  t23)),
          _mm256_maddubs_epi16 (_mm256_loadu_si256 ((const __m256i *)
                  (p + 2)), t45));
      __m256i o = _mm256_add_epi16 (_mm256_add_epi16 (
              _mm256_maddubs_epi16 (_mm256_loadu_si256 ((const __m256i *)
                      (p - 1)), t01),
              _mm256_maddubs_epi16 (_mm256_loadu_si256 ((const __m256i *)
                      (p + 1)), t23)),
          _mm256_maddubs_epi16 (_mm256_loadu_si256 ((const __m256i *)
                  (p + 3)), t45));
      e = _mm256_min_epi16 (_mm256_max_epi16 (_mm256_srai_epi16
              (_mm256_add_epi16 (e, r5), 5), zero), max);
      o = _mm256_min_epi16 (_mm256_max_epi16 (_mm256_srai_epi16
              (_mm256_add_epi16 (o, r5), 5), zero), max);
      _mm256_storeu_si256 ((__m256i *) (h + x), _mm256_or_si256 (e,
              _mm256_slli_epi16 (o, 8)));

      /* V: the vertical sums of columns x .. x + 31; packus works per
       * 128-bit half, vpermq puts the quarters back in order */
      __m256i va = _mm256_srai_epi16 (_mm256_add_epi16 (_mm256_loadu_si256
              ((const __m256i *) (q + 2)), r5), 5);
      __m256i vb = _mm256_srai_epi16 (_mm256_add_epi16 (_mm256_loadu_si256
              ((const __m256i *) (q + 18)), r5), 5);
      _mm256_storeu_si256 ((__m256i *) (v + x),
          _mm256_permute4x64_epi64 (_mm256_packus_epi16 (va, vb), 0xd8));

      /* C: 32-bit sums, eight even and eight odd outputs per group */
      __m256i j[2];
      for (int g = 0; g < 2; g++) {
        const int16_t *r = q + 16 * g;
        __m256i je = _mm256_add_epi32 (_mm256_add_epi32 (
                _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) r),
                    w01),
                _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *)
                        (r + 2)), w23)),
            _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (r + 4)),
                w45));
        __m256i jo = _mm256_add_epi32 (_mm256_add_epi32 (
                _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *)
                        (r + 1)), w01),
                _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *)
                        (r + 3)), w23)),
            _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (r + 5)),
                w45));
        je = _mm256_srai_epi32 (_mm256_add_epi32 (je, r10), 10);
        jo = _mm256_srai_epi32 (_mm256_add_epi32 (jo, r10), 10);
        j[g] = _mm256_blend_epi16 (je, _mm256_slli_epi32 (jo, 16), 0xaa);
      }
      _mm256_storeu_si256 ((__m256i *) (c + x),
          _mm256_permute4x64_epi64 (_mm256_packus_epi16 (j[0], j[1]), 0xd8));
    }
  }
}

/* Four registers of 16 lanes: rows 0..3 of four blocks side by side. */
TARGET ("avx2")
static ALWAYS_INLINE __m256i
hadamard4_avx2 (__m256i r0, __m256i r1, __m256i r2, __m256i r3)
{
  const __m256i swap = _mm256_setr_epi8 (2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
      14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
  const __m256i pm = _mm256_set1_epi32 (TAPS16 (1, -1));
  __m256i a0 = _mm256_add_epi16 (r0, r1), a1 = _mm256_sub_epi16 (r0, r1);
  __m256i a2 = _mm256_add_epi16 (r2, r3), a3 = _mm256_sub_epi16 (r2, r3);
  __m256i b[4] = { _mm256_add_epi16 (a0, a2), _mm256_add_epi16 (a1, a3),
    _mm256_sub_epi16 (a0, a2), _mm256_sub_epi16 (a1, a3)
  };
  for (int k = 0; k < 4; k++) {
    b[k] = _mm256_add_epi16 (_mm256_shuffle_epi8 (b[k], swap),
        _mm256_sign_epi16 (b[k], pm));
    b[k] = _mm256_abs_epi16 (b[k]);
    b[k] = _mm256_max_epi16 (b[k], _mm256_shuffle_epi32 (b[k], 0xb1));
  }
  return _mm256_add_epi16 (_mm256_add_epi16 (b[0], b[1]),
      _mm256_add_epi16 (b[2], b[3]));
}

/* One 4x4 block in one register, rows 0..3 in lanes 0-3, 4-7, 8-11 and
 * 12-15: the vertical stages pair its 64-bit quarters (vpshufd swaps them
 * within each half, vpermq swaps the halves). */
TARGET ("avx2")
static ALWAYS_INLINE __m256i
hadamard4x4_avx2 (__m256i d)
{
  const __m256i swap = _mm256_setr_epi8 (2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
      14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
  const __m256i pm = _mm256_set1_epi32 (TAPS16 (1, -1));
  const __m256i rows01 = _mm256_setr_epi16 (1, 1, 1, 1, -1, -1, -1, -1, 1, 1,
      1, 1, -1, -1, -1, -1);
  const __m256i rows02 = _mm256_setr_epi16 (1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
      -1, -1, -1, -1, -1, -1);
  /* r0 + r1, r0 - r1, r2 + r3, r2 - r3 */
  d = _mm256_add_epi16 (_mm256_shuffle_epi32 (d, 0x4e),
      _mm256_sign_epi16 (d, rows01));
  /* their sums and differences two rows apart */
  d = _mm256_add_epi16 (_mm256_permute4x64_epi64 (d, 0x4e),
      _mm256_sign_epi16 (d, rows02));
  d = _mm256_add_epi16 (_mm256_shuffle_epi8 (d, swap),
      _mm256_sign_epi16 (d, pm));
  d = _mm256_abs_epi16 (d);
  return _mm256_max_epi16 (d, _mm256_shuffle_epi32 (d, 0xb1));
}

/* The SATD from 16-bit lanes of transform maxima (each at most 32767). */
TARGET ("avx2")
static ALWAYS_INLINE uint32_t
satd_total_avx2 (__m256i acc)
{
  __m256i s = _mm256_madd_epi16 (acc, _mm256_set1_epi16 (1));
  return satd_total_128 (_mm_add_epi32 (_mm256_castsi256_si128 (s),
          _mm256_extracti128_si256 (s, 1)));
}

/* Blocks 16 wide, or 8 wide with at least 8 rows: 16 lanes per register,
 * groups of 4 or 8 rows as rows16 gives them. */
TARGET ("avx2")
static ALWAYS_INLINE uint32_t
cost_wide_avx2 (const uint8_t * cur, ptrdiff_t cur_stride, const uint8_t * a,
    const uint8_t * b, ptrdiff_t stride, int w, int h, int satd)
{
  const int g = w == 16 ? 4 : 8;
  __m256i acc = _mm256_setzero_si256 ();
  __m128i sad = _mm_setzero_si128 ();

  for (int y0 = 0; y0 < h; y0 += g) {
    __m256i d[4];
    for (int k = 0; k < 4; k++) {
      __m128i cv = rows16 (cur, cur_stride, w, h, y0 + k);
      __m128i pv = _mm_avg_epu8 (rows16 (a, stride, w, h, y0 + k),
          rows16 (b, stride, w, h, y0 + k));
      if (!satd)
        sad = _mm_add_epi64 (sad, _mm_sad_epu8 (cv, pv));
      else
        d[k] = _mm256_sub_epi16 (_mm256_cvtepu8_epi16 (cv),
            _mm256_cvtepu8_epi16 (pv));
    }
    /* 4 values of 2040 per lane per group, 4 groups at most */
    if (satd)
      acc = _mm256_add_epi16 (acc, hadamard4_avx2 (d[0], d[1], d[2], d[3]));
  }
  return satd ? satd_total_avx2 (acc) : sad_total (sad);
}

/* Blocks 4 wide: one block per register. */
TARGET ("avx2")
static ALWAYS_INLINE uint32_t
cost_4_avx2 (const uint8_t * cur, ptrdiff_t cur_stride, const uint8_t * a,
    const uint8_t * b, ptrdiff_t stride, int h, int satd)
{
  __m256i acc = _mm256_setzero_si256 ();
  __m128i sad = _mm_setzero_si128 ();

  for (int y = 0; y < h; y += 4) {
    __m128i cv = block4x4 (cur + y * cur_stride, cur_stride);
    __m128i pv = _mm_avg_epu8 (block4x4 (a + y * stride, stride),
        block4x4 (b + y * stride, stride));
    if (!satd)
      sad = _mm_add_epi64 (sad, _mm_sad_epu8 (cv, pv));
    else                        /* 1 value of 2040 per lane per block */
      acc = _mm256_add_epi16 (acc, hadamard4x4_avx2 (_mm256_sub_epi16
              (_mm256_cvtepu8_epi16 (cv), _mm256_cvtepu8_epi16 (pv))));
  }
  return satd ? satd_total_avx2 (acc) : sad_total (sad);
}

/* The 16-lane SATD where it fills the lanes; the SAD (psadbw takes 16
 * bytes either way) and 8x4 take the 128-bit bodies. */
TARGET ("avx2")
static decl_subpel_cost_fn (subpel_cost_avx2)
{
  if (!satd)
    return w == 16 ? cost_wide_128 (COST_ARGS, 16, h, 0)
        : w == 8 ? cost_wide_128 (COST_ARGS, 8, h, 0)
        : cost_4_128 (COST_ARGS, h, 0);
  if (w == 16)
    return cost_wide_avx2 (COST_ARGS, 16, h, 1);
  if (w == 8)
    return h > 4 ? cost_wide_avx2 (COST_ARGS, 8, h, 1)
        : cost_wide_128 (COST_ARGS, 8, 4, 1);
  return cost_4_avx2 (COST_ARGS, h, 1);
}

/* Two rows per psadbw, the current block loaded once for all candidates. */
TARGET ("sse2")
static decl_sad8x8_points_fn (sad8x8_points_sse2)
{
  __m128i c[4];
  for (int y = 0; y < 4; y++)
    c[y] = _mm_loadu_si128 ((const __m128i *) (cur + 16 * y));
  for (int i = 0; i < n; i++) {
    const uint8_t *r = ref + off[i];
    __m128i acc = _mm_setzero_si128 ();
    for (int y = 0; y < 8; y += 2) {
      const __m128i rr = _mm_unpacklo_epi64 (_mm_loadl_epi64 ((const __m128i *)
              (r + y * ref_stride)), _mm_loadl_epi64 ((const __m128i *)
              (r + (y + 1) * ref_stride)));
      acc = _mm_add_epi64 (acc, _mm_sad_epu8 (c[y / 2], rr));
    }
    sad[i] = (uint32_t) (_mm_cvtsi128_si32 (acc)
        + _mm_cvtsi128_si32 (_mm_unpackhi_epi64 (acc, acc)));
  }
}

/* Four rows per psadbw: rows y .. y + 3 of a candidate in one register. */
TARGET ("avx2")
static decl_sad8x8_points_fn (sad8x8_points_avx2)
{
  const __m256i c0 = _mm256_loadu_si256 ((const __m256i *) cur);
  const __m256i c1 = _mm256_loadu_si256 ((const __m256i *) (cur + 32));
  for (int i = 0; i < n; i++) {
    const uint8_t *r = ref + off[i];
    __m256i rows[2];
    for (int h = 0; h < 2; h++) {
      const uint8_t *q = r + 4 * h * ref_stride;
      const __m128i lo = _mm_unpacklo_epi64 (_mm_loadl_epi64 ((const __m128i *)
              q), _mm_loadl_epi64 ((const __m128i *) (q + ref_stride)));
      const __m128i hi = _mm_unpacklo_epi64 (_mm_loadl_epi64 ((const __m128i *)
              (q + 2 * ref_stride)), _mm_loadl_epi64 ((const __m128i *)
              (q + 3 * ref_stride)));
      rows[h] = _mm256_inserti128_si256 (_mm256_castsi128_si256 (lo), hi, 1);
    }
    __m256i acc = _mm256_add_epi64 (_mm256_sad_epu8 (c0, rows[0]),
        _mm256_sad_epu8 (c1, rows[1]));
    const __m128i s = _mm_add_epi64 (_mm256_castsi256_si128 (acc),
        _mm256_extracti128_si256 (acc, 1));
    sad[i] = (uint32_t) (_mm_cvtsi128_si32 (s)
        + _mm_cvtsi128_si32 (_mm_unpackhi_epi64 (s, s)));
  }
}

/* ---- the luma of packed and RGB rows (luma_rules.h) -------------------- */

/* Packed 4:2:2 (step 2): the even bytes from src, 16 a step, by masking
 * each 16-bit pair to its low byte and packing.  A step reads 32 bytes
 * from src + 2 i, so it runs only while i + 16 < n: the last one ends
 * before the last sample, and a frame whose luma is the second byte of a
 * pair (UYVY) is never read past its row; the tail is the C loop. */
static TARGET ("sse2") decl_luma_packed_row_fn (luma_packed_row_sse2)
{
  int i = 0;

  if (step == 2) {
    const __m128i low = _mm_set1_epi16 (0x00ff);
    for (; i + 16 < n; i += 16) {
      const __m128i a = _mm_loadu_si128 ((const __m128i *) (src + 2 * i));
      const __m128i b = _mm_loadu_si128 ((const __m128i *) (src + 2 * i
              + 16));
      _mm_storeu_si128 ((__m128i *) (dst + i),
          _mm_packus_epi16 (_mm_and_si128 (a, low), _mm_and_si128 (b, low)));
    }
  }
  for (; i < n; i++)
    dst[i] = src[(ptrdiff_t) i * step];
}

/* Eight 4-byte pixels: (wr R + wg G + wb B + 128) >> 8 in 32-bit lanes,
 * as two pmaddwd over the pairs (R, G) . (wr, wg) and (B, 1) . (wb, 128):
 * every operand fits a signed 16-bit word (samples 255, weights 256). */
static inline TARGET ("avx2") __m256i
luma_rgb8_avx2 (__m256i v, __m128i sr, __m128i sg, __m128i sb, __m256i wrg,
    __m256i wb1)
{
  const __m256i byte = _mm256_set1_epi32 (0xff);
  const __m256i r = _mm256_and_si256 (_mm256_srl_epi32 (v, sr), byte);
  const __m256i g = _mm256_and_si256 (_mm256_srl_epi32 (v, sg), byte);
  const __m256i b = _mm256_and_si256 (_mm256_srl_epi32 (v, sb), byte);
  const __m256i rg = _mm256_or_si256 (r, _mm256_slli_epi32 (g, 16));
  const __m256i b1 = _mm256_or_si256 (b, _mm256_set1_epi32 (1 << 16));

  return _mm256_srli_epi32 (_mm256_add_epi32 (_mm256_madd_epi16 (rg, wrg),
          _mm256_madd_epi16 (b1, wb1)), 8);
}

/* 32-bit RGB (step 4): 16 pixels a step; the rest in C. */
static TARGET ("avx2") decl_luma_rgb_row_fn (luma_rgb_row_avx2)
{
  int i = 0;

  if (step == 4) {
    const __m128i sr = _mm_cvtsi32_si128 (8 * off[0]);
    const __m128i sg = _mm_cvtsi32_si128 (8 * off[1]);
    const __m128i sb = _mm_cvtsi32_si128 (8 * off[2]);
    const __m256i wrg = _mm256_set1_epi32 (w[0] | (w[1] << 16));
    const __m256i wb1 = _mm256_set1_epi32 (w[2] | (128 << 16));
    for (; i + 16 <= n; i += 16) {
      const __m256i y0 = luma_rgb8_avx2 (_mm256_loadu_si256 ((const __m256i *)
              (src + 4 * i)), sr, sg, sb, wrg, wb1);
      const __m256i y1 = luma_rgb8_avx2 (_mm256_loadu_si256 ((const __m256i *)
              (src + 4 * i + 32)), sr, sg, sb, wrg, wb1);
      /* packus works per 128-bit lane: put the words back in order */
      const __m256i y16 = _mm256_permute4x64_epi64 (_mm256_packus_epi32 (y0,
              y1), 0xd8);
      _mm_storeu_si128 ((__m128i *) (dst + i),
          _mm_packus_epi16 (_mm256_castsi256_si128 (y16),
              _mm256_extracti128_si256 (y16, 1)));
    }
  }
  for (; i < n; i++) {
    const uint8_t *p = src + (ptrdiff_t) i * step;
    dst[i] = me_luma_from_rgb (p[off[0]], p[off[1]], p[off[2]], w);
  }
}

void
me_dsp_init_x86 (MEDsp * dsp, unsigned flags)
{
  if (flags & ME_CPU_FLAG_SSE2) {
    dsp->sad8x8_points = sad8x8_points_sse2;
    dsp->sad16_row = sad16_row_sse2;
    dsp->sad4x4_row = sad4x4_row_sse2;
    dsp->luma_packed_row = luma_packed_row_sse2;
  }
  if (flags & ME_CPU_FLAG_SSSE3) {
    dsp->hpel_row = hpel_row_ssse3;
    dsp->subpel_cost = subpel_cost_ssse3;
  }
  if (flags & ME_CPU_FLAG_SSE41) {
    dsp->min_key = min_key_sse41;
  }
  if (flags & ME_CPU_FLAG_AVX2) {
    dsp->sad16_row = sad16_row_avx2;
    dsp->sad16_points = sad16_points_avx2;
    dsp->sad8x8_points = sad8x8_points_avx2;
    dsp->min_key = min_key_avx2;
    dsp->sea_row = sea_row_avx2;
    dsp->esa_row = esa_row_avx2;
    dsp->sad4x4_row = sad4x4_row_avx2;
    dsp->part_min = part_min_avx2;
    dsp->hpel_row = hpel_row_avx2;
    dsp->subpel_cost = subpel_cost_avx2;
    dsp->luma_rgb_row = luma_rgb_row_avx2;
  }
}
