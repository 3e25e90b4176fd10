/* gpumotionest — the CPU backend's DSP table.
 *
 * The hot loops of the search, one function pointer each.  me_dsp_init()
 * fills the plain C versions (the reference) and then lets each SIMD level
 * the CPU supports override what it implements, as dav1d does.  tests/
 * checkasm calls every version on the same inputs and compares.
 *
 * The SAD routines match one 16x16 current block, stored contiguously
 * (stride 16), against n consecutive horizontal candidates: candidate i is
 * the 16x16 reference block whose top-left pixel is ref + i.
 *
 * The search ranks candidates with "row keys" (rowkey_t), (cost << 16) |
 * rank, where rank is the candidate's position in me_key() order among the
 * candidates searched together (so it fits 16 bits) and cost, a SAD of at
 * most 256 x 255 = 65280, fits the upper half of 32 bits (of 64 for deeper
 * samples, bitdepth.h).  The smallest row key is the candidate with the
 * smallest me_key(); the backend maps rank back to (dx, dy).
 *
 * Compiled once per sample size (bitdepth.h): `pixel` is the sample, and
 * the types and names of what widens with it follow.  "Bytes" below mean
 * samples at 16 bits.
 */
#ifndef ME_CPU_DSP_H
#define ME_CPU_DSP_H

#include <stddef.h>
#include <stdint.h>
#include <gst/motionvectors/gstmotionvectortypes.h>

#include "bitdepth.h"
#include "me_parts.h"

/* Levels in ascending order: each implies the ones below it, and checkasm
 * forms "this level and every one below" as flag | (flag - 1). */
#define ME_CPU_FLAG_SSE2 (1u << 0)
#define ME_CPU_FLAG_SSSE3 (1u << 1)
#define ME_CPU_FLAG_SSE41 (1u << 2)
#define ME_CPU_FLAG_AVX2 (1u << 3)
#define ME_CPU_FLAG_ALL (~0u)

/* The 41 partitions of a macroblock in the shape table's block order
 * (GST_MOTION_VECTOR_PARTITION_FIRST: 16x16, 16x8 x2, 8x16 x2, 8x8 x4,
 * 8x4 x8, 4x8 x8, 4x4 x16, each shape's partitions in raster order). */
#define ME_DSP_N_PARTS GST_MOTION_VECTOR_BLOCKS_PER_MB

/* Candidate i of an esa_row (below): bit i of keep[] is set when some
 * partition's bound, summed from the sixteen 4x4 bounds d[] (me_parts.h),
 * is below its lim[k]; the first candidate of a word clears the word.  The
 * C routine, and the SIMD routines for the candidates past their last
 * whole step. */
static inline void
me_dsp_esa_keep (const uint32_t d[16], const uint32_t * lim, int i,
    uint32_t * keep)
{
  uint32_t c[ME_PARTS];

  me_part_sums (d, c);
  if (i % 32 == 0)
    keep[i / 32] = 0;
  for (int k = 0; k < ME_PARTS; k++)
    if (c[k] < lim[k]) {
      keep[i / 32] |= 1u << (i % 32);
      return;
    }
}

/* sad[i] = SAD of the whole block at candidate i, i < n.  Reads only the
 * 16 x 16 bytes of each candidate. */
#define decl_sad16_row_fn(name) \
  void (name) (const pixel * cur, const pixel * ref, ptrdiff_t ref_stride, \
      int n, uint32_t * sad)

/* sad[i] = SAD of the whole block at ref + off[i], i < n: candidates
 * scattered anywhere, as a fast method's steps leave them.  Reads only the
 * 16 x 16 bytes of each candidate. */
#define decl_sad16_points_fn(name) \
  void (name) (const pixel * cur, const pixel * ref, ptrdiff_t ref_stride, \
      int n, const ptrdiff_t * off, uint32_t * sad)

/* out[b * out_stride + i] = SAD of 4x4 sub-block b (= 4 * row + column) at
 * candidate i, for i < n: one array of candidates per sub-block.  Writes
 * nothing else.  May read up to 32 bytes past the last candidate's bytes on
 * each of its 16 rows (the backend's planes have that slack). */
#define decl_sad4x4_row_fn(name) \
  void (name) (const pixel * cur, const pixel * ref, ptrdiff_t ref_stride, \
      int n, sad4_t * out, ptrdiff_t out_stride)

/* For each partition k, best[k] = min (best[k], min over i < n of
 * (cost_k(i) << 16) | rank[i]), cost_k(i) being the sum of the 4x4 SADs
 * sad4[b * stride + i] that the partition covers.  Reads nothing past n
 * (checkasm puts the arrays' ends against an unreadable page). */
#define decl_part_min_fn(name) \
  void (name) (const sad4_t * sad4, ptrdiff_t stride, const uint16_t * rank, \
      int n, rowkey_t best[ME_DSP_N_PARTS])

/* min over i < n of (sad[i] << 16) | rank[i], or all ones for n = 0;
 * every sad[i] <= 65535 (<= 2^24 - 1 at 16 bits).  Reads nothing past n. */
#define decl_min_key_fn(name) \
  rowkey_t (name) (const uint32_t * sad, const uint16_t * rank, int n)

/* lb[i] = sum over the four 8x8 quarters q of the block of |cq[q] -
 * q8[off_q + i]|, off_q = 8 * (q >> 1) * q8_stride + 8 * (q & 1), for i < n:
 * q8 holds sums of 8x8 reference blocks (at most 16320) and cq the current
 * block's quarter sums, so lb[i] <= the 16x16 SAD at candidate i, since
 * |sum a - sum b| <= sum |a - b|.  Reads nothing past n. */
#define decl_sea_row_fn(name) \
  void (name) (const q8_t * q8, ptrdiff_t q8_stride, const q8_t cq[4], \
      int n, q8_t * lb)

/* Bit i % 32 of keep[i / 32] = 1 when, for some partition k <
 * ME_DSP_N_PARTS, the lower bound of k at candidate i is less than lim[k],
 * else 0, for i < n; the bits of the last word past n are 0.  The lower
 * bound of a partition is the sum over the 4x4 sub-blocks b it covers of
 * |c4[b] - q4[off_b + i]|, off_b = 4 * (b >> 2) * q4_stride + 4 * (b & 3):
 * q4 holds sums of 4x4 reference blocks (at most 16 x the largest sample)
 * and c4 the current block's, so the bound is at most the partition's SAD
 * at candidate i.  A lim[k] of 0 leaves partition k out.  Every lim[k] is
 * at most 65535 (2^32 - 1 at 16 bits).  Reads nothing past n. */
#define decl_esa_row_fn(name) \
  void (name) (const q8_t * q4, ptrdiff_t q4_stride, const q8_t c4[16], \
      const uint32_t lim[ME_DSP_N_PARTS], int n, uint32_t * keep)

/* Cost of a w x h block (w, h multiples of 4, at most 16) of `cur` (rows
 * cur_stride apart) against the prediction (a[i] + b[i] + 1) >> 1, a and b
 * two planes with rows `stride` apart (subpel_rules.h): the SAD, or with
 * `satd` the sum of the 4x4 Hadamard SATDs (me_satd4x4). */
#define decl_subpel_cost_fn(name) \
  uint32_t (name) (const pixel * cur, ptrdiff_t cur_stride, \
      const pixel * a, const pixel * b, ptrdiff_t stride, int w, int h, \
      int satd)

/* The half-sample planes (subpel_rules.h) of n pixels of a row: h[i], v[i]
 * and c[i] for the pixel at src + i, whose rows are `stride` apart.  Reads
 * 2 pixels and rows before and 3 after each.  At 16 bits, bitdepth_max
 * is the largest sample (2^depth - 1), where the planes clip. */
#define decl_hpel_row_fn(name) \
  void (name) (const pixel * src, ptrdiff_t stride, int n, pixel * h, \
      pixel * v, pixel * c HIGHBD_DECL_SUFFIX)

/* sad[i] = SAD of the 8x8 block `cur` (8 bytes a row, contiguous) against
 * the one at ref + off[i] (rows `ref_stride` apart), i < n: the
 * hierarchical search's level 1, whose candidates are scattered.  Reads
 * only the 8 x 8 bytes of each candidate. */
#define decl_sad8x8_points_fn(name) \
  void (name) (const pixel * cur, const pixel * ref, ptrdiff_t ref_stride, \
      int n, const ptrdiff_t * off, uint32_t * sad)

/* dst[i] = src[i * step], i < n: the luma samples of a row of a packed
 * 4:2:2 frame (step 2), `src` pointing at the first one. */
#define decl_luma_packed_row_fn(name) \
  void (name) (uint8_t * dst, const uint8_t * src, int n, int step)

/* dst[i] = the derived luma (luma_rules.h) of pixel i of an RGB row, whose
 * pixels are `step` bytes apart with R, G and B at bytes off[0], off[1] and
 * off[2] of each, weighted by w = { wr, wg, wb } (sum 256), i < n. */
#define decl_luma_rgb_row_fn(name) \
  void (name) (uint8_t * dst, const uint8_t * src, int n, int step, \
      const uint8_t off[3], const uint16_t w[3])

typedef decl_sad16_row_fn (*me_sad16_row_fn);
typedef decl_sad16_points_fn (*me_sad16_points_fn);
typedef decl_sad8x8_points_fn (*me_sad8x8_points_fn);
typedef decl_subpel_cost_fn (*me_subpel_cost_fn);
typedef decl_hpel_row_fn (*me_hpel_row_fn);
typedef decl_sea_row_fn (*me_sea_row_fn);
typedef decl_esa_row_fn (*me_esa_row_fn);
typedef decl_sad4x4_row_fn (*me_sad4x4_row_fn);
typedef decl_part_min_fn (*me_part_min_fn);
typedef decl_min_key_fn (*me_min_key_fn);
typedef decl_luma_packed_row_fn (*me_luma_packed_row_fn);
typedef decl_luma_rgb_row_fn (*me_luma_rgb_row_fn);

typedef struct {
  me_sad16_row_fn sad16_row;      /* 16x16 only: whole-block SADs */
  me_sad16_points_fn sad16_points;        /* 16x16 only: the same, scattered */
  me_min_key_fn min_key;          /* 16x16 only: the best of them */
  me_sea_row_fn sea_row;          /* 16x16 only: lower bounds for pruning */
  me_esa_row_fn esa_row;          /* any shapes: candidates pruning keeps */
  me_sad4x4_row_fn sad4x4_row;    /* any shapes: 4x4 sub-block SADs */
  me_sad8x8_points_fn sad8x8_points;      /* hierarchical: level 1's blocks */
  me_part_min_fn part_min;        /* any shapes: the best per partition */
  me_hpel_row_fn hpel_row;        /* sub-pel: the half-sample planes */
  me_subpel_cost_fn subpel_cost;  /* sub-pel: one candidate's cost */
  me_luma_packed_row_fn luma_packed_row;  /* packed 4:2:2 frames' luma */
  me_luma_rgb_row_fn luma_rgb_row;        /* RGB frames' derived luma */
  /* (8-bit only: packed and RGB frames are 8-bit; NULL at 16 bits) */
} MEDsp;

/* What this CPU supports, as ME_CPU_FLAG_* bits. */
unsigned me_cpu_flags (void);

/* Fills dsp with the fastest versions among the levels in `mask` & what the
 * CPU supports; mask 0 gives the C reference alone. */
void me_dsp_init (MEDsp * dsp, unsigned mask);

/* The same for samples of at most `depth` bits: at 16 bits, routines
 * that are faster where sums of narrower samples fit narrower lanes. */
void me_dsp_init_depth (MEDsp * dsp, unsigned mask, unsigned depth);

void me_dsp_init_c (MEDsp * dsp);
void me_dsp_init_x86 (MEDsp * dsp, unsigned flags);
void me_dsp_init_x86_depth (MEDsp * dsp, unsigned flags, unsigned depth);

#endif /* ME_CPU_DSP_H */
