/* gpumotionest — x86 SIMD versions of the 16-bit DSP routines (samples of
 * 9 to 16 bits, bitdepth.h), compiled with BITDEPTH 16.
 *
 * There is no psadbw for words, and a difference of 16-bit samples needs
 * 17 bits with its sign, so the routines work in 32-bit lanes: eight
 * candidates side by side.  Candidate i's pixel (x, y) is ref[y * stride +
 * i + x], so for a fixed (x, y) the eight candidates' samples are eight
 * consecutive words: one zero-extending load (vpmovzxwd), a subtraction
 * from the current pixel broadcast, an absolute value and an add per pixel
 * per eight candidates, every sum exact in 32 bits (at most 256 x 65535).
 * A row of fewer than eight candidates left at the end is computed at the
 * eight candidates ending there, which rewrites some with the same values.
 */
#include "config.h"

#include <immintrin.h>
#include <string.h>

#include "../dsp.h"
#include "me_parts.h"
#include "esa_keep_simd.h"
#include "subpel_rules.h"

#if BITDEPTH != 16
#error "dsp16_x86.c is the 16-bit SIMD"
#endif

#define TARGET(t) __attribute__((target (t)))

/* |cur pixel - the eight candidates' pixels| added to acc. */
TARGET ("avx2")
static inline __m256i
acc_pixel (__m256i acc, const pixel * r, __m256i c)
{
  const __m256i v = _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *)
          r));
  return _mm256_add_epi32 (acc, _mm256_abs_epi32 (_mm256_sub_epi32 (c, v)));
}

/* The sixteen 4x4 SADs of the eight candidates at ref: out4[b] for
 * sub-block b = 4 * row + column. */
TARGET ("avx2")
static inline void
sad4x4_8 (const pixel * cur, const pixel * ref, ptrdiff_t stride,
    __m256i out4[16])
{
  for (int b = 0; b < 16; b++) {
    const int bx = 4 * (b & 3), by = 4 * (b >> 2);
    __m256i acc = _mm256_setzero_si256 ();
    for (int y = by; y < by + 4; y++)
      for (int x = bx; x < bx + 4; x++)
        acc = acc_pixel (acc, ref + y * stride + x,
            _mm256_set1_epi32 (cur[16 * y + x]));
    out4[b] = acc;
  }
}

/* The start of each group of eight: 0, 8, ..., and for a last partial
 * group the eight ending at n (n >= 8). */
static inline int
group_start (int i, int n)
{
  return i + 8 <= n ? i : n - 8;
}

TARGET ("avx2")
static decl_sad16_row_fn (sad16_row_avx2)
{
  if (n < 8) {
    /* the C rule, for short rows */
    for (int i = 0; i < n; i++) {
      uint32_t sum = 0;
      for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
          const int d = cur[16 * y + x] - ref[y * ref_stride + i + x];
          sum += d < 0 ? -d : d;
        }
      sad[i] = sum;
    }
    return;
  }
  for (int i0 = 0; i0 < n; i0 += 8) {
    const int i = group_start (i0, n);
    __m256i acc = _mm256_setzero_si256 ();
    for (int y = 0; y < 16; y++)
      for (int x = 0; x < 16; x++)
        acc = acc_pixel (acc, ref + y * ref_stride + i + x,
            _mm256_set1_epi32 (cur[16 * y + x]));
    _mm256_storeu_si256 ((__m256i *) (sad + i), acc);
  }
}

TARGET ("avx2")
static decl_sad4x4_row_fn (sad4x4_row_avx2)
{
  if (n < 8) {
    for (int b = 0; b < 16; b++) {
      const int bx = 4 * (b & 3), by = 4 * (b >> 2);
      for (int i = 0; i < n; i++) {
        uint32_t sum = 0;
        for (int y = by; y < by + 4; y++)
          for (int x = bx; x < bx + 4; x++) {
            const int d = cur[16 * y + x] - ref[y * ref_stride + i + x];
            sum += d < 0 ? -d : d;
          }
        out[b * out_stride + i] = sum;
      }
    }
    return;
  }
  for (int i0 = 0; i0 < n; i0 += 8) {
    const int i = group_start (i0, n);
    __m256i s4[16];
    sad4x4_8 (cur, ref + i, ref_stride, s4);
    for (int b = 0; b < 16; b++)
      _mm256_storeu_si256 ((__m256i *) (out + b * out_stride + i), s4[b]);
  }
}

/* ---- samples of at most 12 bits ------------------------------------------
 *
 * Sixteen |differences| of 12-bit samples sum to at most 16 x 4095 =
 * 65520: a 4x4 block's SAD, or one row of a 16x16 block's, fits a word.
 * So these take sixteen candidates per vector in 16-bit lanes (the
 * difference as two saturating subtractions), and widen once per block or
 * row: two thirds of the instructions of the 32-bit lanes above.  Chosen
 * by me_dsp_init_depth() for depths up to 12. */

/* |cur pixel - the sixteen candidates' pixels| added to acc, in words. */
TARGET ("avx2")
static inline __m256i
acc_pixel16 (__m256i acc, const pixel * r, __m256i c)
{
  const __m256i v = _mm256_loadu_si256 ((const __m256i *) r);
  return _mm256_add_epi16 (acc, _mm256_or_si256 (_mm256_subs_epu16 (c, v),
          _mm256_subs_epu16 (v, c)));
}

/* The sixteen words of v widened and stored at out[0 .. 15]. */
TARGET ("avx2")
static inline void
store_widened (uint32_t * out, __m256i v)
{
  _mm256_storeu_si256 ((__m256i *) out,
      _mm256_cvtepu16_epi32 (_mm256_castsi256_si128 (v)));
  _mm256_storeu_si256 ((__m256i *) (out + 8),
      _mm256_cvtepu16_epi32 (_mm256_extracti128_si256 (v, 1)));
}

TARGET ("avx2")
static decl_sad4x4_row_fn (sad4x4_row_12_avx2)
{
  if (n < 16) {
    sad4x4_row_avx2 (cur, ref, ref_stride, n, out, out_stride);
    return;
  }
  for (int i0 = 0; i0 < n; i0 += 16) {
    const int i = i0 + 16 <= n ? i0 : n - 16;
    for (int b = 0; b < 16; b++) {
      const int bx = 4 * (b & 3), by = 4 * (b >> 2);
      __m256i acc = _mm256_setzero_si256 ();
      for (int y = by; y < by + 4; y++)
        for (int x = bx; x < bx + 4; x++)
          acc = acc_pixel16 (acc, ref + y * ref_stride + i + x,
              _mm256_set1_epi16 ((short) cur[16 * y + x]));
      store_widened (out + b * out_stride + i, acc);
    }
  }
}

TARGET ("avx2")
static decl_sad16_row_fn (sad16_row_12_avx2)
{
  if (n < 16) {
    sad16_row_avx2 (cur, ref, ref_stride, n, sad);
    return;
  }
  const __m256i zero = _mm256_setzero_si256 ();
  for (int i0 = 0; i0 < n; i0 += 16) {
    const int i = i0 + 16 <= n ? i0 : n - 16;
    __m256i lo = zero, hi = zero;
    for (int y = 0; y < 16; y++) {
      __m256i acc = zero;
      for (int x = 0; x < 16; x++)
        acc = acc_pixel16 (acc, ref + y * ref_stride + i + x,
            _mm256_set1_epi16 ((short) cur[16 * y + x]));
      /* a row's sums widened into the 32-bit totals: candidates 0-3 and
       * 8-11 in lo, 4-7 and 12-15 in hi (unpack works per 128-bit lane) */
      lo = _mm256_add_epi32 (lo, _mm256_unpacklo_epi16 (acc, zero));
      hi = _mm256_add_epi32 (hi, _mm256_unpackhi_epi16 (acc, zero));
    }
    _mm256_storeu_si256 ((__m256i *) (sad + i),
        _mm256_permute2x128_si256 (lo, hi, 0x20));
    _mm256_storeu_si256 ((__m256i *) (sad + i + 8),
        _mm256_permute2x128_si256 (lo, hi, 0x31));
  }
}

/* One candidate at a time, a row of sixteen words per load: the absolute
 * differences of a row fit 16 bits, and each pair of them is summed into
 * 32 bits (the low word plus the high word of every dword). */
TARGET ("avx2")
static inline uint32_t
sad_block_16 (const pixel * cur, const pixel * r, ptrdiff_t stride, int h)
{
  const __m256i lo = _mm256_set1_epi32 (0xffff);
  __m256i acc = _mm256_setzero_si256 ();
  for (int y = 0; y < h; y++, r += stride) {
    const __m256i a = _mm256_loadu_si256 ((const __m256i *) (cur + 16 * y));
    const __m256i b = _mm256_loadu_si256 ((const __m256i *) r);
    const __m256i d = _mm256_or_si256 (_mm256_subs_epu16 (a, b),
        _mm256_subs_epu16 (b, a));
    acc = _mm256_add_epi32 (acc, _mm256_add_epi32 (_mm256_and_si256 (d, lo),
            _mm256_srli_epi32 (d, 16)));
  }
  __m128i s = _mm_add_epi32 (_mm256_castsi256_si128 (acc),
      _mm256_extracti128_si256 (acc, 1));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0x4e));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0xb1));
  return (uint32_t) _mm_cvtsi128_si32 (s);
}

TARGET ("avx2")
static decl_sad16_points_fn (sad16_points_avx2)
{
  for (int i = 0; i < n; i++)
    sad[i] = sad_block_16 (cur, ref + off[i], ref_stride, 16);
}

/* 8x8: two rows of eight words per 256-bit vector; `cur` holds its rows
 * eight words apart, so 16 words are two of them. */
TARGET ("avx2")
static decl_sad8x8_points_fn (sad8x8_points_avx2)
{
  const __m256i lo = _mm256_set1_epi32 (0xffff);
  __m256i c[4];
  for (int y = 0; y < 4; y++)
    c[y] = _mm256_loadu_si256 ((const __m256i *) (cur + 16 * y));
  for (int i = 0; i < n; i++) {
    const pixel *r = ref + off[i];
    __m256i acc = _mm256_setzero_si256 ();
    for (int y = 0; y < 4; y++) {
      const __m256i b = _mm256_set_m128i (
          _mm_loadu_si128 ((const __m128i *) (r + (2 * y + 1) * ref_stride)),
          _mm_loadu_si128 ((const __m128i *) (r + 2 * y * ref_stride)));
      const __m256i d = _mm256_or_si256 (_mm256_subs_epu16 (c[y], b),
          _mm256_subs_epu16 (b, c[y]));
      acc = _mm256_add_epi32 (acc, _mm256_add_epi32 (_mm256_and_si256 (d,
                  lo), _mm256_srli_epi32 (d, 16)));
    }
    __m128i s = _mm_add_epi32 (_mm256_castsi256_si128 (acc),
        _mm256_extracti128_si256 (acc, 1));
    s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0x4e));
    s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0xb1));
    sad[i] = (uint32_t) _mm_cvtsi128_si32 (s);
  }
}

/* The smaller of two vectors of four 64-bit keys, each below 2^63. */
TARGET ("avx2")
static inline __m256i
min_epu64 (__m256i a, __m256i b)
{
  return _mm256_blendv_epi8 (a, b, _mm256_cmpgt_epi64 (a, b));
}

TARGET ("avx2")
static inline uint64_t
hmin_epu64 (__m256i v)
{
  uint64_t k[4];
  _mm256_storeu_si256 ((__m256i *) k, v);
  uint64_t m = k[0];
  for (int j = 1; j < 4; j++)
    m = k[j] < m ? k[j] : m;
  return m;
}

/* The keys (cost << 16) | rank of eight candidates as two vectors of
 * four, lowered into best (four lanes each). */
TARGET ("avx2")
static inline void
keys_min (__m256i cost, __m128i rank8, __m256i best[2])
{
  const __m256i r = _mm256_cvtepu16_epi32 (rank8);
  for (int h = 0; h < 2; h++) {
    const __m128i c = h ? _mm256_extracti128_si256 (cost, 1)
        : _mm256_castsi256_si128 (cost);
    const __m128i rr = h ? _mm256_extracti128_si256 (r, 1)
        : _mm256_castsi256_si128 (r);
    const __m256i key = _mm256_or_si256 (_mm256_slli_epi64
        (_mm256_cvtepu32_epi64 (c), 16), _mm256_cvtepu32_epi64 (rr));
    best[h] = min_epu64 (best[h], key);
  }
}

/* Per lane, the smaller of (cost, rank) and (*mc, *mr), compared as the
 * key (cost << 16) | rank is: by cost, then by rank.  Costs and ranks are
 * below 2^31, so the signed comparisons order them. */
TARGET ("avx2")
static inline void
lane_min (__m256i c, __m256i r, __m256i * mc, __m256i * mr)
{
  const __m256i take = _mm256_or_si256 (_mm256_cmpgt_epi32 (*mc, c),
      _mm256_and_si256 (_mm256_cmpeq_epi32 (*mc, c),
          _mm256_cmpgt_epi32 (*mr, r)));
  *mc = _mm256_blendv_epi8 (*mc, c, take);
  *mr = _mm256_blendv_epi8 (*mr, r, take);
}

/* The smallest key of the eight lanes of (mc, mr). */
TARGET ("avx2")
static inline uint64_t
lanes_key (__m256i mc, __m256i mr)
{
  uint32_t c[8], r[8];
  uint64_t m = UINT64_MAX;
  _mm256_storeu_si256 ((__m256i *) c, mc);
  _mm256_storeu_si256 ((__m256i *) r, mr);
  for (int j = 0; j < 8; j++) {
    const uint64_t key = (uint64_t) c[j] << 16 | r[j];
    m = key < m ? key : m;
  }
  return m;
}

/* Eight candidates at a time: the 41 partitions' costs as sums of the
 * 4x4 SADs in 32-bit lanes, each partition's smallest (cost, rank) kept
 * per lane, and the keys formed once at the end.  A last partial group
 * goes through the C loop: it must not read past n. */
TARGET ("avx2")
static decl_part_min_fn (part_min_avx2)
{
  __m256i mc[ME_DSP_N_PARTS], mr[ME_DSP_N_PARTS];
  int i = 0;

  for (int k = 0; k < ME_DSP_N_PARTS; k++) {
    mc[k] = _mm256_set1_epi32 (INT32_MAX);
    mr[k] = _mm256_set1_epi32 (INT32_MAX);
  }
  for (; i + 8 <= n; i += 8) {
    __m256i b[16], q[4];
    int k = 0;
    for (int j = 0; j < 16; j++)
      b[j] = _mm256_loadu_si256 ((const __m256i *) (sad4 + j * stride + i));
    const __m256i r = _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *)
            (rank + i)));
#define ADD(x, y) _mm256_add_epi32 (x, y)
#define KEEP(c) lane_min (c, r, &mc[k], &mr[k]), k++
    q[0] = ADD (ADD (b[0], b[1]), ADD (b[4], b[5]));
    q[1] = ADD (ADD (b[2], b[3]), ADD (b[6], b[7]));
    q[2] = ADD (ADD (b[8], b[9]), ADD (b[12], b[13]));
    q[3] = ADD (ADD (b[10], b[11]), ADD (b[14], b[15]));
    KEEP (ADD (ADD (q[0], q[1]), ADD (q[2], q[3])));      /* 16x16 */
    KEEP (ADD (q[0], q[1]));     /* 16x8 */
    KEEP (ADD (q[2], q[3]));
    KEEP (ADD (q[0], q[2]));     /* 8x16 */
    KEEP (ADD (q[1], q[3]));
    for (int j = 0; j < 4; j++) /* 8x8 */
      KEEP (q[j]);
    for (int y = 0; y < 4; y++) /* 8x4 */
      for (int x = 0; x < 4; x += 2)
        KEEP (ADD (b[4 * y + x], b[4 * y + x + 1]));
    for (int y = 0; y < 4; y += 2)      /* 4x8 */
      for (int x = 0; x < 4; x++)
        KEEP (ADD (b[4 * y + x], b[4 * y + x + 4]));
    for (int j = 0; j < 16; j++)        /* 4x4 */
      KEEP (b[j]);
#undef KEEP
#undef ADD
  }
  for (int k = 0; i >= 8 && k < ME_DSP_N_PARTS; k++) {
    const uint64_t m = lanes_key (mc[k], mr[k]);
    if (m < best[k])
      best[k] = m;
  }
  for (; i < n; i++) {
    uint32_t b[16], c[ME_DSP_N_PARTS];
    for (int j = 0; j < 16; j++)
      b[j] = sad4[j * stride + i];
    me_part_sums (b, c);
    for (int k = 0; k < ME_DSP_N_PARTS; k++) {
      const uint64_t key = (uint64_t) c[k] << 16 | rank[i];
      if (key < best[k])
        best[k] = key;
    }
  }
}

TARGET ("avx2")
static decl_min_key_fn (min_key_avx2)
{
  __m256i acc[2] = { _mm256_set1_epi64x (INT64_MAX),
    _mm256_set1_epi64x (INT64_MAX)
  };
  uint64_t best = UINT64_MAX;
  int i = 0;
  for (; i + 8 <= n; i += 8)
    keys_min (_mm256_loadu_si256 ((const __m256i *) (sad + i)),
        _mm_loadu_si128 ((const __m128i *) (rank + i)), acc);
  if (i > 0)
    best = hmin_epu64 (min_epu64 (acc[0], acc[1]));
  for (; i < n; i++) {
    const uint64_t key = (uint64_t) sad[i] << 16 | rank[i];
    best = key < best ? key : best;
  }
  return best;
}

/* Eight lower bounds at a time, in 32-bit lanes. */
TARGET ("avx2")
static decl_sea_row_fn (sea_row_avx2)
{
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i acc = _mm256_setzero_si256 ();
    for (int q = 0; q < 4; q++) {
      const __m256i v = _mm256_loadu_si256 ((const __m256i *) (q8
              + 8 * (q >> 1) * q8_stride + 8 * (q & 1) + i));
      acc = _mm256_add_epi32 (acc, _mm256_abs_epi32 (_mm256_sub_epi32
              (_mm256_set1_epi32 ((int) cq[q]), v)));
    }
    _mm256_storeu_si256 ((__m256i *) (lb + i), acc);
  }
  for (; i < n; i++) {
    uint32_t sum = 0;
    for (int q = 0; q < 4; q++) {
      const int64_t d = (int64_t) cq[q] - (int64_t) q8[8 * (q >> 1)
          * q8_stride + 8 * (q & 1) + i];
      sum += (uint32_t) (d < 0 ? -d : d);
    }
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
/* Eight candidates a step in 32-bit lanes: every bound is exact (at most
 * 256 x 65535); partition k keeps a lane when bound < lim[k]. */
#define LANES 8
#define ZERO _mm256_setzero_si256 ()
#define LOADQ(p) _mm256_loadu_si256 ((const __m256i *) (p))
#define ABSDIFF(v, c) _mm256_abs_epi32 (_mm256_sub_epi32 (c, v))
#define ADD _mm256_add_epi32
#define KEEP(v, k) (m = _mm256_or_si256 (m, _mm256_cmpgt_epi32 (l[k], \
        _mm256_xor_si256 ((v), sign))))
#define STORE_BITS(m) do { \
    const unsigned bits = (unsigned) _mm256_movemask_ps \
        (_mm256_castsi256_ps (m)); \
    if (i % 32 == 0) \
      keep[i / 32] = 0; \
    keep[i / 32] |= bits << (i % 32); \
  } while (0)
TARGET ("avx2")
static decl_esa_row_fn (esa_row_avx2)
{
  /* unsigned compares as signed ones of both sides with the sign flipped */
  const __m256i sign = _mm256_set1_epi32 (INT32_MIN);
  __m256i c[16], l[ME_DSP_N_PARTS];
  const uint32_t *q[16];
  for (int b = 0; b < 16; b++) {
    c[b] = _mm256_set1_epi32 ((int) c4[b]);
    q[b] = q4 + 4 * (b >> 2) * q4_stride + 4 * (b & 3);
  }
  for (int k = 0; k < ME_DSP_N_PARTS; k++)
    l[k] = _mm256_xor_si256 (_mm256_set1_epi32 ((int) lim[k]), sign);

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

/* ---- sub-pel ------------------------------------------------------------ */

/* The 6-tap sums (1, -5, 20, 20, -5, 1) of eight 32-bit lanes whose taps
 * are p[k * s], k = -2 .. 3: (p0 + p5) - 5 (p1 + p4) + 20 (p2 + p3). */
TARGET ("avx2")
static inline __m256i
tap6_8 (const pixel * p, ptrdiff_t s)
{
#define LD(k) _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *) \
        (p + (k) * s)))
  const __m256i e = _mm256_add_epi32 (LD (-2), LD (3));
  const __m256i f = _mm256_add_epi32 (LD (-1), LD (2));
  const __m256i g = _mm256_add_epi32 (LD (0), LD (1));
#undef LD
  return _mm256_add_epi32 (_mm256_sub_epi32 (e, _mm256_add_epi32 (f,
              _mm256_slli_epi32 (f, 2))), _mm256_add_epi32 (_mm256_slli_epi32
          (g, 4), _mm256_slli_epi32 (g, 2)));
}

/* The same over eight lanes of sums already in registers, rows r[0..5]. */
TARGET ("avx2")
static inline __m256i
tap6_regs (const __m256i r[6])
{
  const __m256i e = _mm256_add_epi32 (r[0], r[5]);
  const __m256i f = _mm256_add_epi32 (r[1], r[4]);
  const __m256i g = _mm256_add_epi32 (r[2], r[3]);
  return _mm256_add_epi32 (_mm256_sub_epi32 (e, _mm256_add_epi32 (f,
              _mm256_slli_epi32 (f, 2))), _mm256_add_epi32 (_mm256_slli_epi32
          (g, 4), _mm256_slli_epi32 (g, 2)));
}

/* (v + round) >> bits, clipped to 0 .. max, packed to eight words. */
TARGET ("avx2")
static inline __m128i
round_clip (__m256i v, int round, int bits, __m256i max)
{
  v = _mm256_srai_epi32 (_mm256_add_epi32 (v, _mm256_set1_epi32 (round)),
      bits);
  v = _mm256_min_epi32 (_mm256_max_epi32 (v, _mm256_setzero_si256 ()), max);
  return _mm_packus_epi32 (_mm256_castsi256_si128 (v),
      _mm256_extracti128_si256 (v, 1));
}

/* Eight pixels at a time in 32-bit lanes (the centre sample's sums reach
 * 2^27); a last partial group is the eight ending at n, rewritten with
 * the same values. */
TARGET ("avx2")
static decl_hpel_row_fn (hpel_row_avx2)
{
  const __m256i max = _mm256_set1_epi32 (bitdepth_max);
  if (n < 8) {
    for (int i = 0; i < n; i++) {
      h[i] = me_hpel_h_16 (src + i, stride, bitdepth_max);
      v[i] = me_hpel_v_16 (src + i, stride, bitdepth_max);
      c[i] = me_hpel_c_16 (src + i, stride, bitdepth_max);
    }
    return;
  }
  for (int i0 = 0; i0 < n; i0 += 8) {
    const int i = i0 + 8 <= n ? i0 : n - 8;
    const pixel *p = src + i;
    __m256i b1[6];
    for (int r = 0; r < 6; r++)
      b1[r] = tap6_8 (p + (r - 2) * stride, 1);
    _mm_storeu_si128 ((__m128i *) (h + i), round_clip (b1[2], 16, 5, max));
    _mm_storeu_si128 ((__m128i *) (v + i), round_clip (tap6_8 (p, stride),
            16, 5, max));
    _mm_storeu_si128 ((__m128i *) (c + i), round_clip (tap6_regs (b1), 512,
            10, max));
  }
}

/* Sum of |x| over the four 32-bit lanes of each of a, b, c, d. */
TARGET ("avx2")
static inline uint32_t
sum_abs4 (__m128i a, __m128i b, __m128i c, __m128i d)
{
  __m128i s = _mm_add_epi32 (_mm_add_epi32 (_mm_abs_epi32 (a),
          _mm_abs_epi32 (b)), _mm_add_epi32 (_mm_abs_epi32 (c),
          _mm_abs_epi32 (d)));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0x4e));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0xb1));
  return (uint32_t) _mm_cvtsi128_si32 (s);
}

/* One 4x4 block: the differences of `cur` and the rounded-up mean of a and
 * b (pavgw is exactly (a + b + 1) >> 1), as 32-bit lanes, a row each;
 * then the SAD, or the Hadamard transform down the columns, a transpose
 * and the transform along the rows: H D H^T, whose halved sum of |.| is
 * me_satd4x4's (the same coefficients, whichever direction goes first). */
TARGET ("avx2")
static inline uint32_t
cost4x4_16 (const pixel * cur, ptrdiff_t cur_stride, const pixel * a,
    const pixel * b, ptrdiff_t stride, int satd)
{
  __m128i d[4];
  for (int y = 0; y < 4; y++) {
    const __m128i pa = _mm_loadl_epi64 ((const __m128i *) (a + y * stride));
    const __m128i pb = _mm_loadl_epi64 ((const __m128i *) (b + y * stride));
    const __m128i pc = _mm_loadl_epi64 ((const __m128i *) (cur
            + y * cur_stride));
    d[y] = _mm_sub_epi32 (_mm_cvtepu16_epi32 (pc),
        _mm_cvtepu16_epi32 (_mm_avg_epu16 (pa, pb)));
  }
  if (!satd)
    return sum_abs4 (d[0], d[1], d[2], d[3]);
  __m128i a0 = _mm_add_epi32 (d[0], d[1]), a1 = _mm_sub_epi32 (d[0], d[1]);
  __m128i a2 = _mm_add_epi32 (d[2], d[3]), a3 = _mm_sub_epi32 (d[2], d[3]);
  __m128i t0 = _mm_add_epi32 (a0, a2), t1 = _mm_add_epi32 (a1, a3);
  __m128i t2 = _mm_sub_epi32 (a0, a2), t3 = _mm_sub_epi32 (a1, a3);
  /* transpose: rows of columns */
  const __m128i u0 = _mm_unpacklo_epi32 (t0, t1), u1 = _mm_unpackhi_epi32 (t0,
      t1);
  const __m128i u2 = _mm_unpacklo_epi32 (t2, t3), u3 = _mm_unpackhi_epi32 (t2,
      t3);
  t0 = _mm_unpacklo_epi64 (u0, u2);
  t1 = _mm_unpackhi_epi64 (u0, u2);
  t2 = _mm_unpacklo_epi64 (u1, u3);
  t3 = _mm_unpackhi_epi64 (u1, u3);
  a0 = _mm_add_epi32 (t0, t1);
  a1 = _mm_sub_epi32 (t0, t1);
  a2 = _mm_add_epi32 (t2, t3);
  a3 = _mm_sub_epi32 (t2, t3);
  return sum_abs4 (_mm_add_epi32 (a0, a2), _mm_add_epi32 (a1, a3),
      _mm_sub_epi32 (a0, a2), _mm_sub_epi32 (a1, a3)) >> 1;
}

TARGET ("avx2")
static decl_subpel_cost_fn (subpel_cost_avx2)
{
  uint32_t sum = 0;
  for (int by = 0; by < h; by += 4)
    for (int bx = 0; bx < w; bx += 4)
      sum += cost4x4_16 (cur + by * cur_stride + bx, cur_stride,
          a + by * stride + bx, b + by * stride + bx, stride, satd);
  return sum;
}

void
me_dsp_init_x86_depth (MEDsp * dsp, unsigned flags, unsigned depth)
{
  if ((flags & ME_CPU_FLAG_AVX2) && depth <= 12) {
    dsp->sad16_row = sad16_row_12_avx2;
    dsp->sad4x4_row = sad4x4_row_12_avx2;
  }
}

void
me_dsp_init_x86 (MEDsp * dsp, unsigned flags)
{
  if (flags & ME_CPU_FLAG_AVX2) {
    dsp->sad16_row = sad16_row_avx2;
    dsp->sad16_points = sad16_points_avx2;
    dsp->sad8x8_points = sad8x8_points_avx2;
    dsp->sad4x4_row = sad4x4_row_avx2;
    dsp->part_min = part_min_avx2;
    dsp->min_key = min_key_avx2;
    dsp->sea_row = sea_row_avx2;
    dsp->esa_row = esa_row_avx2;
    dsp->hpel_row = hpel_row_avx2;
    dsp->subpel_cost = subpel_cost_avx2;
  }
}
