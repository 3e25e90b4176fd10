/* gpumotionest — method `hierarchical` on CUDA (docs/fast-search.md): a
 * three-level pyramid, full search at level 2, refinements around the
 * doubled winners of the macroblock and its neighbours at levels 1 and 0.
 *
 * Pyramid.  Levels 1 and 2 of a device frame live in one buffer, each with
 * a border that holds its own edge samples replicated, so the searches read
 * with no bounds checks.  One kernel writes every sample of both, border
 * included, straight from the frame: a border sample is the level's edge
 * sample, recomputed (a few byte reads) rather than copied, so no pass
 * waits for another.  Level 0 is the device frame itself, whose border
 * already replicates the macroblock-extended frame's edges.
 *
 * Search.  Three kernels, one per level, since each level reads the
 * winners of the neighbouring macroblocks at the level below (`vecs`: level
 * 2's winners, then level 1's, one word per macroblock).  Level 2: one warp
 * per macroblock; the lanes share out the window's columns and walk down
 * them, four rows in registers, so each row loaded serves four candidates.
 * Levels 1 and 0: the set, the union of the squares around the
 * macroblock's own and its neighbours' doubled winners (and at level 0 the
 * zero vector), is listed as columns of candidates (level_column()), and a
 * lane walks down each column the same way; eight lanes per macroblock, or
 * sixteen at level 0 with 4x4 shapes, where two lanes share a column, one
 * per half of the macroblock.  Keys are unique, so reductions in any order
 * agree with the CPU's loops.
 *
 * Every kernel is a template over the sample type (me_cuda_pixel.cuh): the
 * levels of a 16-bit frame hold 16-bit samples, decimated by the same rule
 * (the rounded mean of four, in int), rows are read as words of two
 * samples instead of four, and a column's 32-bit rank becomes the same
 * rank in 64 bits.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "fast_rules.h"
#include "me_cuda_fast.cuh"

#define HIER_WARPS 4  /* macroblocks per thread block */
#define PYR_THREADS 256

/* Borders of levels 1 and 2, in samples: the level's range (at most 128
 * and 64) plus the aligned word reads around a row (3 bytes before, up to 8
 * after; for 16-bit samples 1 sample before, up to 2 after), rounded up to
 * a multiple of 16 so that block rows stay aligned. */
#define PYR_PAD1 144
#define PYR_PAD2 80

static const int pyr_pad[2] = {PYR_PAD1, PYR_PAD2};

void
me_cuda_pyramid_init (MECudaPyramid *pyr, const MECudaGeometry *g)
{
  size_t off = 0;
  for (int l = 0; l < 2; l++) {
    const size_t w = (size_t)g->mb_cols * (8 >> l);
    const size_t h = (size_t)g->mb_rows * (8 >> l);
    pyr->pitch[l] = ((w + 2 * pyr_pad[l]) * g->bps + 127) & ~(size_t)127;
    pyr->rows[l] = h + 2 * pyr_pad[l];
    pyr->offset[l] = off;
    off += pyr->pitch[l] * pyr->rows[l];
  }
}

/* ---- the pyramid ---------------------------------------------------------- */

/* One sample of the level above from the 2x2 square under it: the rule of
 * fast_rules.h, me_hier_decimate(), for bytes; the same rounded mean, in
 * int, for 16-bit samples (the mean of four samples of a depth stays
 * within that depth). */
template <typename pixel>
static __device__ __forceinline__ unsigned
decimate (unsigned a, unsigned b, unsigned c, unsigned d)
{
  if constexpr (sizeof (pixel) == 1)
    return me_hier_decimate (a, b, c, d);
  else
    return (uint16_t)((a + b + c + d + 2) >> 2);
}

/* Level 1 sample (x, y), inside level 1, from level 0 (`f`: pixel (0, 0),
 * rows `pitch` bytes apart). */
template <typename pixel>
static __device__ __forceinline__ unsigned
level1 (const uint8_t *f, size_t pitch, int x, int y)
{
  const uint8_t *a = f + (size_t)(2 * y) * pitch + 2 * x * (int)sizeof (pixel);
  const pixel *a0 = (const pixel *)a, *a1 = (const pixel *)(a + pitch);
  return decimate<pixel> (a0[0], a0[1], a1[0], a1[1]);
}

template <typename pixel>
__global__ void
__launch_bounds__ (PYR_THREADS) pyramid_kernel (const uint8_t *__restrict__ f,
    size_t pitch, uint8_t *__restrict__ pyr, MECudaPyramid layout, int w1,
    int h1)
{
  const int X = blockIdx.x * PYR_THREADS + threadIdx.x;
  const int Y = blockIdx.y;
  /* X is a sample: BPS bytes; the levels' rows in samples */
  constexpr int BPS = (int)sizeof (pixel);

  /* level 1: edge replication is a clamp of the position */
  if (X < (int)layout.pitch[0] / BPS && Y < (int)layout.rows[0]) {
    const int x = min (max (X - PYR_PAD1, 0), w1 - 1);
    const int y = min (max (Y - PYR_PAD1, 0), h1 - 1);
    *(pixel *)(pyr + (layout.offset[0] + (size_t)Y * layout.pitch[0] +
                        X * BPS)) = (pixel)level1<pixel> (f, pitch, x, y);
  }
  /* level 2, from the four level-1 samples under it */
  if (X < (int)layout.pitch[1] / BPS && Y < (int)layout.rows[1]) {
    const int x = min (max (X - PYR_PAD2, 0), w1 / 2 - 1);
    const int y = min (max (Y - PYR_PAD2, 0), h1 / 2 - 1);
    *(pixel *)(pyr + (layout.offset[1] + (size_t)Y * layout.pitch[1] +
                        X * BPS)) =
        (pixel)decimate<pixel> (level1<pixel> (f, pitch, 2 * x, 2 * y),
            level1<pixel> (f, pitch, 2 * x + 1, 2 * y),
            level1<pixel> (f, pitch, 2 * x, 2 * y + 1),
            level1<pixel> (f, pitch, 2 * x + 1, 2 * y + 1));
  }
}

cudaError_t
me_cuda_launch_pyramid (const uint8_t *frame, uint8_t *pyramid,
    const MECudaGeometry *g, cudaStream_t stream)
{
  MECudaPyramid layout;
  me_cuda_pyramid_init (&layout, g);
  /* a thread per sample of a level-1 row */
  const size_t n1 = layout.pitch[0] / g->bps;
  const dim3 grid ((unsigned)((n1 + PYR_THREADS - 1) / PYR_THREADS),
      (unsigned)layout.rows[0]);
  const uint8_t *origin =
      frame + (size_t)ME_CUDA_PAD * g->pitch + ME_CUDA_PAD * g->bps;
  if (g->bps == 2)
    pyramid_kernel<uint16_t><<<grid, PYR_THREADS, 0, stream>>> (origin,
        g->pitch, pyramid, layout, (int)g->mb_cols * 8, (int)g->mb_rows * 8);
  else
    pyramid_kernel<uint8_t><<<grid, PYR_THREADS, 0, stream>>> (origin,
        g->pitch, pyramid, layout, (int)g->mb_cols * 8, (int)g->mb_rows * 8);
  return cudaGetLastError ();
}

/* ---- the search ----------------------------------------------------------- */

typedef struct {
  const uint8_t *cur, *ref; /* level 0: pixel (0, 0) */
  const uint8_t *cur1, *ref1, *cur2, *ref2; /* levels 1, 2: sample (0, 0) */
  size_t pitch, pitch1, pitch2;
  unsigned mb_cols, mb_rows, n_mbs;
  int range;
  uint32_t *vec2, *vec1; /* winners of levels 2 and 1, per macroblock */
  unsigned partitions;
  uint64_t *keys[GST_MOTION_VECTOR_PARTITION_COUNT];
} HierArgs;

/* A row of N words of a pyramid level's block, from an address aligned to
 * its size (4 N bytes). */
template <int N>
static __device__ __forceinline__ void
level_row (const uint8_t *p, uint32_t (&q)[N])
{
  static_assert (N == 1 || N == 2 || N == 4, "a row of 4 or 8 samples");
  if constexpr (N == 1) {
    q[0] = *(const uint32_t *)p;
  } else if constexpr (N == 2) {
    const uint2 v = *(const uint2 *)p;
    q[0] = v.x;
    q[1] = v.y;
  } else {
    const uint4 v = *(const uint4 *)p;
    q[0] = v.x;
    q[1] = v.y;
    q[2] = v.z;
    q[3] = v.w;
  }
}

/* Level 2: the full search of the 4x4 block over [-R2, R2]^2; the smallest
 * key, in every lane.  A row of the block is W words (1 for bytes, 2 for
 * 16-bit samples). */
template <typename pixel>
static __device__ __forceinline__ uint64_t
search_level2 (const HierArgs &a, int mbx, int mby, int lane)
{
  typedef MePix<pixel> Pix;
  typedef typename Pix::rank_t Rank;
  constexpr int W = 4 / Pix::PW;
  constexpr int BPS = (int)sizeof (pixel);
  const int R2 = me_hier_range (a.range, 2);
  const size_t wp = a.pitch2 / 4;
  uint32_t c[4][W];
#pragma unroll
  for (int y = 0; y < 4; y++)
    level_row<W> (
        a.cur2 + (size_t)(4 * mby + y) * a.pitch2 + 4 * mbx * BPS, c[y]);

  uint64_t best = ME_KEY_NONE;
  for (int dx = -R2 + lane; dx <= R2; dx += 32) {
    uint32_t sel;
    const uint32_t *row = me_fast_ref_row<pixel> (
        a.ref2, a.pitch2, 4 * mbx + dx, 4 * mby - R2, &sel);
    uint32_t r0[W], r1[W], r2[W];
    me_pix_words<W> (row, sel, r0);
    me_pix_words<W> (row + wp, sel, r1);
    me_pix_words<W> (row + 2 * wp, sel, r2);
    /* within a column: (sad << 10) | 2|dy| + (dy > 0), me_key's order */
    Rank col = ~(Rank)0;
    row += 3 * wp;
    for (int dy = -R2; dy <= R2; dy++, row += wp) {
      uint32_t r3[W];
      me_pix_words<W> (row, sel, r3);
      uint32_t sad = 0;
#pragma unroll
      for (int k = 0; k < W; k++)
        sad = Pix::sad (c[0][k], r0[k], Pix::sad (c[1][k], r1[k],
            Pix::sad (c[2][k], r2[k], Pix::sad (c[3][k], r3[k], sad))));
      col = rank_min (
          col, ((Rank)sad << 10) | (2u * (uint32_t)abs (dy) + (dy > 0)));
#pragma unroll
      for (int k = 0; k < W; k++) {
        r0[k] = r1[k];
        r1[k] = r2[k];
        r2[k] = r3[k];
      }
    }
    const int ady = (int)((col & 1023) >> 1);
    const uint64_t k =
        me_key ((uint32_t)(col >> 10), dx, (col & 1) ? ady : -ady);
    best = k < best ? k : best;
  }
  return me_fast_warp_min (best);
}

/* A vector in one word, and back. */
static __device__ __forceinline__ uint32_t
pack_vec (uint64_t key)
{
  return (uint32_t)(uint16_t)me_key_dx (key) |
         (uint32_t)(uint16_t)me_key_dy (key) << 16;
}

static __device__ __forceinline__ int
vec_x (uint32_t v)
{
  return (int16_t)(v & 0xffff);
}

static __device__ __forceinline__ int
vec_y (uint32_t v)
{
  return (int16_t)(v >> 16);
}

template <typename pixel>
__global__ void
__launch_bounds__ (HIER_WARPS * 32) hier_level2_kernel (const HierArgs a)
{
  const unsigned mb = blockIdx.x * HIER_WARPS + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (mb >= a.n_mbs)
    return; /* the whole warp */
  const uint64_t v2 = search_level2<pixel> (a, (int)(mb % a.mb_cols),
      (int)(mb / a.mb_cols), lane);
  if (lane == 0)
    a.vec2[mb] = pack_vec (v2);
}

/* ---- levels 1 and 0 by columns ---------------------------------------------
 *
 * A square around a centre is 7 columns of 7 candidates.  The union of a
 * level's squares is listed as columns: one per square and dx, holding the
 * dy that lie in the window and in no earlier square (since the squares
 * are equal, an earlier square takes a top or a bottom run of a column,
 * so what is left is one run).  One lane costs a whole column: it walks
 * down the reference rows under it once, each row serving the column's 7
 * candidates, where costing candidates one at a time loads every row of
 * every candidate and scatters the loads of a warp over many rows.  Eight
 * lanes share a macroblock (7 columns of one square and the zero vector
 * fill them where the neighbours agree), so a warp takes four. */

#define COL_LEN (2 * ME_HIER_REFINE + 1)
#define GROUP 8                /* lanes per macroblock */
#define GROUP_MBS (32 / GROUP) /* macroblocks per warp */

#if ME_HIER_NEIGHBOUR_REFINE != ME_HIER_REFINE
#error "the column lists assume squares of one size"
#endif

/* The distinct doubled winners of the level below around macroblock
 * (mbx, mby), the macroblock's own first, packed into `out`; returns how
 * many.  The same in every lane that calls it. */
static __device__ __forceinline__ int
level_centres (const HierArgs &a, const uint32_t *vecs, int mbx, int mby,
    uint32_t *out, bool write)
{
  int cx[ME_HIER_CENTRES], cy[ME_HIER_CENTRES];
  int n = 0;
#pragma unroll
  for (int j = 0; j < ME_HIER_CENTRES; j++) {
    const int x = mbx + (j ? me_hier_neighbour (j - 1, 0) : 0);
    const int y = mby + (j ? me_hier_neighbour (j - 1, 1) : 0);
    cx[j] = cy[j] = INT_MIN;
    if (x < 0 || y < 0 || x >= (int)a.mb_cols || y >= (int)a.mb_rows)
      continue;
    const uint32_t v = vecs[(size_t)y * a.mb_cols + x];
    bool seen = false;
#pragma unroll
    for (int k = 0; k < j; k++)
      seen |= cx[k] == 2 * vec_x (v) && cy[k] == 2 * vec_y (v);
    if (seen)
      continue;
    cx[j] = 2 * vec_x (v);
    cy[j] = 2 * vec_y (v);
    if (write)
      out[n] = (uint32_t)(uint16_t)cx[j] | (uint32_t)(uint16_t)cy[j] << 16;
    n++;
  }
  return n;
}

/* Column `col` (0 .. 6) of centre number i of `centres`: its dx and its run
 * of dy, [*lo, *hi] (empty when *lo > *hi), inside [-range, range]^2 and
 * outside the squares of centres 0 .. i - 1. */
static __device__ __forceinline__ int
level_column (const uint32_t *centres, int i, int col, int range, int *lo,
    int *hi)
{
  const uint32_t c = centres[i];
  const int dx = vec_x (c) - ME_HIER_REFINE + col;
  int l = max (vec_y (c) - ME_HIER_REFINE, -range);
  int h = min (vec_y (c) + ME_HIER_REFINE, range);
  if (dx < -range || dx > range)
    l = h + 1;
  for (int k = 0; k < i && l <= h; k++) {
    const uint32_t e = centres[k];
    if (abs (dx - vec_x (e)) > ME_HIER_REFINE)
      continue;
    const int el = max (vec_y (e) - ME_HIER_REFINE, -range);
    const int eh = min (vec_y (e) + ME_HIER_REFINE, range);
    if (eh < l || el > h)
      continue;
    if (el <= l)
      l = eh + 1; /* it holds the top of the run */
    else
      h = el - 1; /* equal squares: it holds the bottom */
  }
  *lo = l;
  *hi = h;
  return dx;
}

/* The smallest key over the 8 lanes of a macroblock, in each of them. */
static __device__ __forceinline__ uint64_t
group_min (uint64_t k)
{
#pragma unroll
  for (int off = GROUP / 2; off >= 1; off >>= 1) {
    const uint64_t o = __shfl_xor_sync (ME_FULL_MASK, k, off);
    k = o < k ? o : k;
  }
  return k;
}

/* Within a column dx is fixed, so its candidates are ranked by a 32-bit
 * key, cost << 10 | 2|dy| + (dy > 0): me_key()'s order for that dx (|dy|
 * <= 256 fits the 10 bits, a 16x16 SAD the other 22), one instruction to
 * form and one to compare where a 64-bit key costs several; a column's
 * winners become full keys once.  col_rank() of a candidate past the run
 * is all ones, so that its key loses to every other.  For 16-bit samples
 * (Rank uint64_t) the same key in 64 bits: their 16x16 SAD takes 24 bits,
 * and a candidate past the run is all ones in 64 bits. */
template <typename Rank>
static __device__ __forceinline__ Rank
col_rank (int dy, bool kept)
{
  return kept ? (Rank)(2u * (uint32_t)abs (dy) + (dy > 0)) : ~(Rank)0;
}

template <typename Rank>
static __device__ __forceinline__ uint64_t
col_full_key (Rank k, int dx)
{
  const int a = (int)((k & 1023) >> 1);
  return me_key ((uint32_t)(k >> 10), dx, (k & 1) ? a : -a);
}

/* Level 1: the 8x8 block's keys down column dx from dy = lo; candidates
 * past hi are costed (the rows are there: the border covers the window
 * and 16 more rows) but not kept. */
template <typename pixel>
static __device__ __forceinline__ uint64_t
level1_column (const HierArgs &a,
    const uint32_t (&c)[8][8 / MePix<pixel>::PW], int mbx, int mby, int dx,
    int lo, int hi)
{
  typedef MePix<pixel> Pix;
  typedef typename Pix::rank_t Rank;
  constexpr int W = 8 / Pix::PW; /* words of a row of 8 samples */
  uint32_t sel;
  const uint32_t *row = me_fast_ref_row<pixel> (
      a.ref1, a.pitch1, 8 * mbx + dx, 8 * mby + lo, &sel);
  const size_t wp = a.pitch1 / 4;
  uint32_t acc[COL_LEN];
#pragma unroll
  for (int j = 0; j < COL_LEN; j++)
    acc[j] = 0;
#pragma unroll
  for (int r = 0; r < 8 + COL_LEN - 1; r++) {
    uint32_t q[W];
    me_pix_words<W> (row + (size_t)r * wp, sel, q);
#pragma unroll
    for (int j = 0; j < COL_LEN; j++) {
      const int y = r - j; /* this row's row in candidate lo + j's block */
      if (y >= 0 && y < 8)
#pragma unroll
        for (int k = 0; k < W; k++)
          acc[j] = Pix::sad (c[y][k], q[k], acc[j]);
    }
  }
  Rank best = ~(Rank)0;
#pragma unroll
  for (int j = 0; j < COL_LEN; j++)
    best = rank_min (best,
        (Rank)acc[j] << 10 | col_rank<Rank> (lo + j, lo + j <= hi));
  return col_full_key (best, dx);
}

template <typename pixel>
__global__ void
__launch_bounds__ (HIER_WARPS * 32) hier_level1_kernel (const HierArgs a)
{
  constexpr int W = 8 / MePix<pixel>::PW;
  __shared__ uint32_t centres[HIER_WARPS * GROUP_MBS][ME_HIER_CENTRES];
  const int lane = threadIdx.x & 31, sub = lane % GROUP;
  const unsigned g = blockIdx.x * HIER_WARPS * GROUP_MBS + threadIdx.x / GROUP;
  const bool valid = g < a.n_mbs; /* every lane stays for the shuffles */
  const int mby = valid ? (int)(g / a.mb_cols) : 0;
  const int mbx = valid ? (int)(g % a.mb_cols) : 0;
  uint32_t *list = centres[threadIdx.x / GROUP];
  const int R1 = me_hier_range (a.range, 1);
  const int n = valid ? level_centres (a, a.vec2, mbx, mby, list, sub == 0) : 0;
  __syncwarp ();

  uint32_t c[8][W];
  const uint8_t *cb =
      a.cur1 + (size_t)(8 * mby) * a.pitch1 + 8 * mbx * (int)sizeof (pixel);
#pragma unroll
  for (int y = 0; y < 8; y++)
    level_row<W> (cb + (size_t)y * a.pitch1, c[y]);
  uint64_t best = ME_KEY_NONE;
  for (int t = sub; t < n * COL_LEN; t += GROUP) {
    int lo, hi;
    const int dx = level_column (list, t / COL_LEN, t % COL_LEN, R1, &lo, &hi);
    if (lo <= hi) {
      const uint64_t k = level1_column<pixel> (a, c, mbx, mby, dx, lo, hi);
      best = k < best ? k : best;
    }
  }
  best = group_min (best);
  if (valid && sub == 0)
    a.vec1[g] = pack_vec (best);
}

/* Level 0, shapes down to 8x8 (BS 16 or 8): every requested partition's
 * keys down column dx from dy = lo, into best (candidates past hi are
 * costed, not kept: the frame's border covers the window and 16 more). */
template <int BS, typename pixel>
static __device__ __forceinline__ void
level0_column (const HierArgs &a, const uint32_t (&c)[16][MeRow<pixel>::W],
    int mbx, int mby, int dx, int lo, int hi,
    uint64_t (&best)[MeSplit<BS>::NI])
{
  static_assert (BS == 16 || BS == 8, "sixteen 4x4 sums per candidate "
      "would not fit in registers seven times");
  typedef MePix<pixel> Pix;
  typedef typename Pix::rank_t Rank;
  constexpr int W = MeRow<pixel>::W;
  uint32_t sel;
  const uint32_t *row = me_fast_ref_row<pixel> (
      a.ref, a.pitch, 16 * mbx + dx, 16 * mby + lo, &sel);
  const size_t wp = a.pitch / 4;
  uint32_t acc[COL_LEN][MeSplit<BS>::NB];
#pragma unroll
  for (int j = 0; j < COL_LEN; j++)
#pragma unroll
    for (int b = 0; b < MeSplit<BS>::NB; b++)
      acc[j][b] = 0;
#pragma unroll
  for (int r = 0; r < 16 + COL_LEN - 1; r++) {
    uint32_t q[W];
    me_fast_row16<pixel> (row + (size_t)r * wp, sel, q);
#pragma unroll
    for (int j = 0; j < COL_LEN; j++) {
      const int y = r - j;
      if (y < 0 || y >= 16)
        continue;
#pragma unroll
      for (int k = 0; k < W; k++) {
        const int b = (y / BS) * (16 / BS) + (k * Pix::PW) / BS;
        acc[j][b] = Pix::sad (c[y][k], q[k], acc[j][b]);
      }
    }
  }
  Rank col[MeSplit<BS>::NI];
#pragma unroll
  for (int n = 0; n < MeSplit<BS>::NI; n++)
    col[n] = ~(Rank)0;
#pragma unroll
  for (int j = 0; j < COL_LEN; j++) {
    uint32_t s[MeSplit<BS>::NI];
    me_fast_part_sums<BS> (acc[j], s);
    const Rank rank = col_rank<Rank> (lo + j, lo + j <= hi);
#pragma unroll
    for (int n = 0; n < MeSplit<BS>::NI; n++)
      if (a.partitions & (1u << me_fast_shape_of (n)))
        col[n] = rank_min (col[n], (Rank)s[n] << 10 | rank);
  }
#pragma unroll
  for (int n = 0; n < MeSplit<BS>::NI; n++) {
    if (!(a.partitions & (1u << me_fast_shape_of (n))))
      continue;
    const uint64_t k = col_full_key (col[n], dx);
    best[n] = k < best[n] ? k : best[n];
  }
}

template <int BS, typename pixel>
__global__ void
__launch_bounds__ (HIER_WARPS * 32) hier_level0_columns_kernel (
    const HierArgs a)
{
  __shared__ uint32_t centres[HIER_WARPS * GROUP_MBS][ME_HIER_CENTRES];
  const int lane = threadIdx.x & 31, sub = lane % GROUP;
  const unsigned g = blockIdx.x * HIER_WARPS * GROUP_MBS + threadIdx.x / GROUP;
  const bool valid = g < a.n_mbs;
  const int mby = valid ? (int)(g / a.mb_cols) : 0;
  const int mbx = valid ? (int)(g % a.mb_cols) : 0;
  uint32_t *list = centres[threadIdx.x / GROUP];
  const int n = valid ? level_centres (a, a.vec1, mbx, mby, list, sub == 0) : 0;
  __syncwarp ();

  uint64_t best[MeSplit<BS>::NI];
#pragma unroll
  for (int k = 0; k < MeSplit<BS>::NI; k++)
    best[k] = ME_KEY_NONE;
  uint32_t c[16][MeRow<pixel>::W];
  me_fast_load_block<pixel> (a.cur, a.pitch, mbx, mby, c);
  /* the columns, then the zero vector as a run of one (a candidate costed
   * twice changes no minimum, so it is not checked against the squares) */
  for (int t = sub; t < (valid ? n * COL_LEN + 1 : 0); t += GROUP) {
    int dx = 0, lo = 0, hi = 0;
    if (t < n * COL_LEN)
      dx = level_column (list, t / COL_LEN, t % COL_LEN, a.range, &lo, &hi);
    if (lo <= hi)
      level0_column<BS, pixel> (a, c, mbx, mby, dx, lo, hi, best);
  }
#pragma unroll
  for (int n = 0; n < MeSplit<BS>::NI; n++) {
    const int p = me_fast_shape_of (n);
    if (!(a.partitions & (1u << p)))
      continue;
    const uint64_t k = group_min (best[n]);
    if (valid && sub == 0)
      a.keys[p][me_fast_cell (n, a.mb_cols, mbx, mby)] = k;
  }
}

/* Level 0 with 4x4 shapes.  Seven candidates' sixteen 4x4 sums would not
 * fit in a lane's registers, so two lanes share a column: each costs one
 * half of the macroblock (rows 8h .. 8h + 7), whose shapes lie within it
 * but for 8x16 and 16x16, which a shuffle of the halves' 8x8 sums
 * completes.  A lane keeps the minima of its half's partitions only. */
#define HALF_PARTS 21 /* 8 4x4, 4 8x4, 4 4x8, 2 8x8, 16x8, 8x16, 16x16 */

/* Partition number of half h's slot l: slots 0-7 its 4x4 blocks, 8-11 its
 * 8x4, 12-15 its 4x8, 16-17 its 8x8, 18 its 16x8, 19 the left (h = 0) or
 * right (h = 1) 8x16, 20 the 16x16 (kept by half 0). */
static __device__ __forceinline__ int
half_part (int h, int l)
{
  if (l < 8)
    return GST_MOTION_VECTOR_PARTITION_FIRST (6) + (2 * h + l / 4) * 4 + l % 4;
  if (l < 12)
    return GST_MOTION_VECTOR_PARTITION_FIRST (4) + (2 * h + (l - 8) / 2) * 2 +
           (l - 8) % 2;
  if (l < 16)
    return GST_MOTION_VECTOR_PARTITION_FIRST (5) + 4 * h + (l - 12);
  if (l < 18)
    return GST_MOTION_VECTOR_PARTITION_FIRST (3) + 2 * h + (l - 16);
  if (l < 20)
    return GST_MOTION_VECTOR_PARTITION_FIRST (l == 18 ? 1 : 2) + h;
  return 0;
}

static __host__ __device__ constexpr int
half_shape (int l)
{
  return l < 8 ? 6 : l < 12 ? 4 : l < 16 ? 5 : l < 18 ? 3 : l == 18 ? 1
         : l == 19 ? 2 : 0;
}

/* Half h of column dx from dy = lo: its partitions' keys into best.  The
 * two lanes in `mask`, one per half, call it together. */
template <typename pixel>
static __device__ __forceinline__ void
level0_half_column (const HierArgs &a,
    const uint32_t (&c)[8][MeRow<pixel>::W], int mbx, int mby, int h, int dx,
    int lo, int hi, unsigned mask, uint64_t (&best)[HALF_PARTS])
{
  typedef MePix<pixel> Pix;
  typedef typename Pix::rank_t Rank;
  constexpr int W = MeRow<pixel>::W;
  uint32_t sel;
  const uint32_t *row = me_fast_ref_row<pixel> (a.ref, a.pitch, 16 * mbx + dx,
      16 * mby + 8 * h + lo, &sel);
  const size_t wp = a.pitch / 4;
  uint32_t acc[COL_LEN][8];
#pragma unroll
  for (int j = 0; j < COL_LEN; j++)
#pragma unroll
    for (int b = 0; b < 8; b++)
      acc[j][b] = 0;
#pragma unroll
  for (int r = 0; r < 8 + COL_LEN - 1; r++) {
    uint32_t q[W];
    me_fast_row16<pixel> (row + (size_t)r * wp, sel, q);
#pragma unroll
    for (int j = 0; j < COL_LEN; j++) {
      const int y = r - j;
      if (y < 0 || y >= 8)
        continue;
#pragma unroll
      for (int k = 0; k < W; k++) {
        /* the 4x4 block (row y / 4, column of pixel k * PW) */
        const int b = (y / 4) * 4 + (k * Pix::PW) / 4;
        acc[j][b] = Pix::sad (c[y][k], q[k], acc[j][b]);
      }
    }
  }
  Rank col[HALF_PARTS];
#pragma unroll
  for (int l = 0; l < HALF_PARTS; l++)
    col[l] = ~(Rank)0;
#pragma unroll
  for (int j = 0; j < COL_LEN; j++) {
    uint32_t s[HALF_PARTS];
#pragma unroll
    for (int b = 0; b < 8; b++)
      s[b] = acc[j][b];
#pragma unroll
    for (int b = 0; b < 4; b++) /* 8x4: (block row, pair) */
      s[8 + b] = acc[j][(b / 2) * 4 + 2 * (b % 2)] +
                 acc[j][(b / 2) * 4 + 2 * (b % 2) + 1];
#pragma unroll
    for (int b = 0; b < 4; b++) /* 4x8 */
      s[12 + b] = acc[j][b] + acc[j][4 + b];
    s[16] = s[8] + s[10];
    s[17] = s[9] + s[11];
    s[18] = s[16] + s[17];
    const uint32_t o0 = __shfl_xor_sync (mask, s[16], 8);
    const uint32_t o1 = __shfl_xor_sync (mask, s[17], 8);
    s[19] = h ? s[17] + o1 : s[16] + o0;
    s[20] = s[18] + o0 + o1;
    const Rank rank = col_rank<Rank> (lo + j, lo + j <= hi);
#pragma unroll
    for (int l = 0; l < HALF_PARTS; l++)
      if (a.partitions & (1u << half_shape (l)))
        col[l] = rank_min (col[l], (Rank)s[l] << 10 | rank);
  }
#pragma unroll
  for (int l = 0; l < HALF_PARTS; l++) {
    if (!(a.partitions & (1u << half_shape (l))))
      continue;
    const uint64_t k = col_full_key (col[l], dx);
    best[l] = k < best[l] ? k : best[l];
  }
}

template <typename pixel>
__global__ void
__launch_bounds__ (HIER_WARPS * 32) hier_level0_halves_kernel (
    const HierArgs a)
{
  constexpr int W = MeRow<pixel>::W;
  __shared__ uint32_t centres[HIER_WARPS * 2][ME_HIER_CENTRES];
  const int lane = threadIdx.x & 31, sub = lane % 16;
  const int h = sub / GROUP, s = sub % GROUP;
  const unsigned g = blockIdx.x * HIER_WARPS * 2 + threadIdx.x / 16;
  /* the two lanes of a column: a lane of another column may be elsewhere */
  const unsigned mask = 1u << lane | 1u << (lane ^ GROUP);
  const bool valid = g < a.n_mbs;
  const int mby = valid ? (int)(g / a.mb_cols) : 0;
  const int mbx = valid ? (int)(g % a.mb_cols) : 0;
  uint32_t *list = centres[threadIdx.x / 16];
  const int n = valid ? level_centres (a, a.vec1, mbx, mby, list, sub == 0) : 0;
  __syncwarp ();

  uint64_t best[HALF_PARTS];
#pragma unroll
  for (int l = 0; l < HALF_PARTS; l++)
    best[l] = ME_KEY_NONE;
  uint32_t c[8][W];
  const uint8_t *cb = a.cur + (ptrdiff_t)(16 * mby + 8 * h) * (ptrdiff_t)a.pitch
      + (ptrdiff_t)(16 * mbx) * (ptrdiff_t)sizeof (pixel);
#pragma unroll
  for (int y = 0; y < 8; y++)
    me_pix_aligned_words<W> (cb + (size_t)y * a.pitch, c[y]);
  /* as hier_level0_columns_kernel; both halves take the same columns */
  for (int t = s; t < (valid ? n * COL_LEN + 1 : 0); t += GROUP) {
    int dx = 0, lo = 0, hi = 0;
    if (t < n * COL_LEN)
      dx = level_column (list, t / COL_LEN, t % COL_LEN, a.range, &lo, &hi);
    if (lo <= hi)
      level0_half_column<pixel> (a, c, mbx, mby, h, dx, lo, hi, mask, best);
  }
#pragma unroll
  for (int l = 0; l < HALF_PARTS; l++) {
    if (!(a.partitions & (1u << half_shape (l))))
      continue;
    const uint64_t k = group_min (best[l]); /* over the half's 8 lanes */
    if (valid && s == 0 && (l < HALF_PARTS - 1 || h == 0))
      a.keys[half_shape (l)][me_fast_cell (half_part (h, l), a.mb_cols, mbx,
          mby)] = k;
  }
}

template <typename pixel>
static void
launch_hier (const HierArgs &a, unsigned partitions, cudaStream_t stream)
{
  const unsigned blocks = (a.n_mbs + HIER_WARPS - 1) / HIER_WARPS;
  const unsigned grouped =
      (a.n_mbs + HIER_WARPS * GROUP_MBS - 1) / (HIER_WARPS * GROUP_MBS);
  hier_level2_kernel<pixel><<<blocks, HIER_WARPS * 32, 0, stream>>> (a);
  hier_level1_kernel<pixel><<<grouped, HIER_WARPS * 32, 0, stream>>> (a);
  switch (me_fast_split (partitions)) {
  case 16:
    hier_level0_columns_kernel<16, pixel>
        <<<grouped, HIER_WARPS * 32, 0, stream>>> (a);
    break;
  case 8:
    hier_level0_columns_kernel<8, pixel>
        <<<grouped, HIER_WARPS * 32, 0, stream>>> (a);
    break;
  default:
    hier_level0_halves_kernel<pixel><<<(a.n_mbs + 2 * HIER_WARPS - 1) /
                                           (2 * HIER_WARPS),
        HIER_WARPS * 32, 0, stream>>> (a);
    break;
  }
}

cudaError_t
me_cuda_launch_coarse (const uint8_t *cur_pyramid, const uint8_t *ref_pyramid,
    const MECudaGeometry *g, unsigned range, uint32_t *vecs,
    cudaStream_t stream)
{
  HierArgs a;
  MECudaPyramid layout;

  memset (&a, 0, sizeof a);
  me_cuda_pyramid_init (&layout, g);
  const size_t o2 =
      layout.offset[1] + PYR_PAD2 * layout.pitch[1] + PYR_PAD2 * g->bps;
  a.cur2 = cur_pyramid + o2;
  a.ref2 = ref_pyramid + o2;
  a.pitch2 = layout.pitch[1];
  a.mb_cols = g->mb_cols;
  a.mb_rows = g->mb_rows;
  a.n_mbs = g->mb_cols * g->mb_rows;
  a.vec2 = vecs;
  a.range = (int)range;

  const unsigned blocks = (a.n_mbs + HIER_WARPS - 1) / HIER_WARPS;
  if (g->bps == 2)
    hier_level2_kernel<uint16_t><<<blocks, HIER_WARPS * 32, 0, stream>>> (a);
  else
    hier_level2_kernel<uint8_t><<<blocks, HIER_WARPS * 32, 0, stream>>> (a);
  return cudaGetLastError ();
}

cudaError_t
me_cuda_launch_hier (const uint8_t *cur, const uint8_t *ref,
    const uint8_t *cur_pyramid, const uint8_t *ref_pyramid,
    const MECudaGeometry *g, unsigned range, unsigned partitions,
    uint64_t *keys, uint32_t *vecs, cudaStream_t stream)
{
  HierArgs a;
  MECudaPyramid layout;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  const size_t origin = (size_t)ME_CUDA_PAD * g->pitch + ME_CUDA_PAD * g->bps;

  me_cuda_pyramid_init (&layout, g);
  const size_t o1 =
      layout.offset[0] + PYR_PAD1 * layout.pitch[0] + PYR_PAD1 * g->bps;
  const size_t o2 =
      layout.offset[1] + PYR_PAD2 * layout.pitch[1] + PYR_PAD2 * g->bps;
  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);
  a.cur = cur + origin;
  a.ref = ref + origin;
  a.cur1 = cur_pyramid + o1;
  a.ref1 = ref_pyramid + o1;
  a.cur2 = cur_pyramid + o2;
  a.ref2 = ref_pyramid + o2;
  a.pitch = g->pitch;
  a.pitch1 = layout.pitch[0];
  a.pitch2 = layout.pitch[1];
  a.mb_cols = g->mb_cols;
  a.mb_rows = g->mb_rows;
  a.n_mbs = g->mb_cols * g->mb_rows;
  a.vec2 = vecs;
  a.vec1 = vecs + a.n_mbs;
  a.range = (int)range;
  a.partitions = partitions;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    a.keys[p] = keys + offsets[p];

  if (g->bps == 2)
    launch_hier<uint16_t> (a, partitions, stream);
  else
    launch_hier<uint8_t> (a, partitions, stream);
  return cudaGetLastError ();
}
