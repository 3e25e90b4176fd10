/* gpumotionest — the motion summary's arithmetic, defined once for the
 * host and the GPU (not installed).
 *
 * gst_motion_vector_summary_compute() reduces a field on the host; the
 * CUDA backend reduces the same field where it is, on the device, before
 * the cells come down (kernels/cuda/me_cuda_summary.cu), so that a
 * summary costs the streaming thread nothing.  Both read blocks, compare
 * them with a model and solve the least squares with the functions below,
 * and both choose the same elements by rank (a median is the element of a
 * rank, whatever algorithm finds it), so the two give the same
 * MvsCore, bit for bit.  The floating-point steps are basic IEEE
 * operations with no fused multiply-add (the library is built with
 * -ffp-contract=off, the kernel with -fmad=false).  docs/summary.md
 * defines the numbers.
 *
 * Plain C99 with stdint types so that nvcc compiles it too: no GLib.
 */
#ifndef GST_MOTION_VECTOR_SUMMARY_RULES_H
#define GST_MOTION_VECTOR_SUMMARY_RULES_H

#include <stdint.h>

#ifdef __CUDACC__
#define MVS_INLINE static __host__ __device__ __forceinline__
#else
#define MVS_INLINE static inline
#endif

/* Units:
 *   positions  d = (dx, dy): block centre minus frame centre, in half
 *              pixels of the meta's frame (integers for every block)
 *   vectors    quarter pixels, as the cells
 *   model      t: 1/256 quarter pixel; k, r: 2^-24 quarter pixel per half
 *              pixel, for v(d) = t + k d + r (-dy, dx)
 *   costs      per pixel in 1/256 (a 16x16 cell's cost as it is) */
#define MVS_T_ONE 256
#define MVS_K_SHIFT 24
/* GST_MOTION_VECTOR_SUMMARY_MOVING_THRESHOLD, quarter pixels */
#define MVS_MOVING_THRESHOLD 6
/* A block is unmatched when its cost per pixel exceeds
 * MVS_UNMATCHED_FACTOR x the frame's median plus MVS_UNMATCHED_LEVELS grey
 * levels: its best match explains the block no better than an unrelated
 * one. */
#define MVS_UNMATCHED_FACTOR 4
#define MVS_UNMATCHED_LEVELS 16
/* Fewest inliers that fit zoom and rotation. */
#define MVS_MIN_SIMILARITY_BLOCKS 8
/* The first robust model's medians read every step-th matched block, at
 * least this many of them (docs/summary.md, "The fit"). */
#define MVS_MEDIAN_SAMPLE 2048

typedef struct {
  int32_t dx, dy;               /* half pixels from the frame centre */
  int16_t vx, vy;               /* quarter pixels */
  uint32_t cost : 31;           /* per pixel, 1/256 */
  uint32_t counted : 1;
} MvsBlock;

typedef struct {
  int64_t tx, ty;               /* 1/256 quarter pixel */
  int64_t k, r;                 /* 2^-24 quarter pixel per half pixel */
} MvsModel;

/* The sums of the least squares, exact 64-bit integers: at most 2^22
 * blocks of products below 2^35. */
typedef struct {
  int64_t cnt, sdx, sdy, svx, svy, sdd, sdv, scr;
} MvsSums;

/* Where a grid's blocks lie, for mvs_read_block(): from the meta's sizes
 * and the summary's grid alone (mvs_geometry_init()). */
typedef struct {
  uint32_t cols, rows;          /* the grid's cells */
  uint32_t pw, ph;              /* the shape, pixels */
  uint32_t aw, ah;              /* the analysed frame */
  uint32_t w, h;                /* the meta's frame (vectors' units) */
  uint32_t scaled;              /* w, h differ from aw, ah */
  uint32_t area_shift;          /* pw * ph = 2^area_shift */
  uint32_t level;               /* one 8-bit grey level in the costs' units */
  uint32_t pad_;
  int64_t far2, spread2;        /* "far" and "spread", squared half pixels */
} MvsGeometry;

/* What a field reduces to before the previous frame and the published
 * floating-point numbers come in: everything of the summary that needs
 * the cells.  A backend that reduces a field itself hands this over
 * (MEField.summary), with @valid set. */
typedef struct {
  uint32_t valid;               /* 1: computed */
  uint32_t partition;           /* the grid it was computed from */
  uint32_t blocks;              /* counted blocks */
  uint32_t matched;             /* of them, matched */
  uint32_t agree;               /* of them, agreeing with the model */
  uint32_t similarity;          /* the model has zoom and rotation */
  int64_t median;               /* median cost per pixel, 1/256 */
  uint64_t cost_sum;            /* sum of the counted blocks' costs */
  int64_t tx, ty, k, r;         /* the model (MvsModel) */
  MvsGeometry geometry;         /* the grid it read: a core is used only
                                 * for a meta of the same geometry */
} MvsCore;

/* @num / @den rounded to the nearest, halves away from zero; @den > 0. */
MVS_INLINE int64_t
mvs_div_round (int64_t num, int64_t den)
{
  int64_t mag = ((num < 0 ? -num : num) * 2 + den) / (2 * den);

  return num < 0 ? -mag : mag;
}

/* @v rounded to the nearest integer (halves away from zero) and clamped
 * to 32 bits, in doubles first so that no conversion overflows; NaN (a
 * degenerate fit of a meta no producer makes) gives 0. */
MVS_INLINE int64_t
mvs_round_i32 (double v)
{
  if (!(v == v))
    return 0;
  if (v < -2147483648.0)
    v = -2147483648.0;
  if (v > 2147483647.0)
    v = 2147483647.0;
  return (int64_t) (v + (v < 0 ? -0.5 : 0.5));
}

/* @v / 2^@shift rounded to the nearest, halves up.  Right shifts of
 * negative values are arithmetic on every compiler the project builds
 * with (GCC, Clang and nvcc define them so). */
MVS_INLINE int64_t
mvs_shift_round (int64_t v, unsigned shift)
{
  return (v + ((int64_t) 1 << (shift - 1))) >> shift;
}

/* Bits needed for @v > 0 (g_bit_storage). */
MVS_INLINE unsigned
mvs_bit_storage (uint64_t v)
{
  unsigned n = 0;

  while (v) {
    n++;
    v >>= 1;
  }
  return n;
}

/* One 8-bit grey level in the units of a field's costs at @bit_depth
 * bits (0: 8): costs of samples of d bits are 2^(d - 8) times those of the
 * same picture at 8 bits (docs/high-bit-depth.md). */
MVS_INLINE uint32_t
mvs_grey_level (uint32_t bit_depth)
{
  return bit_depth > 8 && bit_depth <= 16 ? 1u << (bit_depth - 8) : 1u;
}

/* The geometry of grid @partition_w x @partition_h (@cols x @rows cells)
 * of a meta of @w x @h analysed at @aw x @ah, @bit_depth bits (0: 8). */
MVS_INLINE void
mvs_geometry_init (MvsGeometry * g, uint32_t cols, uint32_t rows,
    uint32_t partition_w, uint32_t partition_h, uint32_t aw, uint32_t ah,
    uint32_t w, uint32_t h, uint32_t bit_depth)
{
  g->cols = cols;
  g->rows = rows;
  g->pw = partition_w;
  g->ph = partition_h;
  g->aw = aw;
  g->ah = ah;
  g->w = w;
  g->h = h;
  g->scaled = w != aw || h != ah;
  g->area_shift = mvs_bit_storage (partition_w * partition_h) - 1;
  g->level = mvs_grey_level (bit_depth);
  g->pad_ = 0;
  /* half-diagonal^2 = (W^2 + H^2) in half pixels; "far" is beyond a
   * quarter of it, enough "spread" an RMS distance of an eighth */
  g->far2 = ((int64_t) w * w + (int64_t) h * h) / 16;
  g->spread2 = g->far2 / 4;
}

/* Block (@c, @r) of the grid, @cell_vx/@cell_vy/@cell_cost its cell's
 * vector and cost.  Positions are in the meta's frame (a scaled meta's
 * vectors are in its own size); the counted blocks are those whose centre
 * lies in the frame, and the first column and row, so that a frame
 * smaller than a block still has one. */
MVS_INLINE MvsBlock
mvs_read_block (const MvsGeometry * g, uint32_t c, uint32_t r,
    int16_t cell_vx, int16_t cell_vy, uint32_t cell_cost)
{
  MvsBlock b;
  uint64_t cy2 = 2 * (uint64_t) r * g->ph + g->ph;      /* twice the centre */
  uint64_t cx2 = 2 * (uint64_t) c * g->pw + g->pw;
  uint64_t cost = ((uint64_t) cell_cost << 8) >> g->area_shift;
  const uint64_t cost_max = 2147483647u / MVS_UNMATCHED_FACTOR;

  b.dx = g->scaled ? (int32_t) mvs_div_round ((int64_t) (cx2 * g->w), g->aw)
      - (int32_t) g->w : (int32_t) cx2 - (int32_t) g->aw;
  b.dy = g->scaled ? (int32_t) mvs_div_round ((int64_t) (cy2 * g->h), g->ah)
      - (int32_t) g->h : (int32_t) cy2 - (int32_t) g->ah;
  b.vx = cell_vx;
  b.vy = cell_vy;
  b.cost = (uint32_t) (cost < cost_max ? cost : cost_max);
  b.counted = (c == 0 || cx2 < 2 * (uint64_t) g->aw)
      && (r == 0 || cy2 < 2 * (uint64_t) g->ah);
  return b;
}

MVS_INLINE int
mvs_unmatched (const MvsBlock * b, uint64_t median_cost, uint32_t level)
{
  return (uint64_t) b->cost > (uint64_t) MVS_UNMATCHED_FACTOR * median_cost
      + (uint64_t) MVS_UNMATCHED_LEVELS * level * MVS_T_ONE;
}

/* The model's vector at @b, in 1/256 quarter pixel. */
MVS_INLINE void
mvs_model_at (const MvsModel * m, const MvsBlock * b, int64_t * px,
    int64_t * py)
{
  *px = m->tx + mvs_shift_round (m->k * b->dx - m->r * b->dy,
      MVS_K_SHIFT - 8);
  *py = m->ty + mvs_shift_round (m->k * b->dy + m->r * b->dx,
      MVS_K_SHIFT - 8);
}

/* Whether @b's vector lies within the moving threshold of the model. */
MVS_INLINE int
mvs_agrees (const MvsModel * m, const MvsBlock * b)
{
  const int64_t lim = (int64_t) MVS_MOVING_THRESHOLD * MVS_T_ONE;
  int64_t px, py, ex, ey;

  mvs_model_at (m, b, &px, &py);
  ex = (int64_t) b->vx * MVS_T_ONE - px;
  ey = (int64_t) b->vy * MVS_T_ONE - py;
  return (ex < 0 ? -ex : ex) <= lim && (ey < 0 ? -ey : ey) <= lim;
}

/* A far block's own zoom and rotation against translation (@tx, @ty):
 * k_i = (res . d) / |d|^2, r_i = (d x res) / |d|^2.  Returns 0 for a
 * block nearer the centre than @far2 (it says too little). */
MVS_INLINE int
mvs_far_projection (const MvsBlock * b, int64_t tx, int64_t ty,
    int64_t far2, int64_t * k, int64_t * r)
{
  int64_t d2 = (int64_t) b->dx * b->dx + (int64_t) b->dy * b->dy;
  int64_t rx = (int64_t) b->vx * MVS_T_ONE - tx;
  int64_t ry = (int64_t) b->vy * MVS_T_ONE - ty;

  if (d2 < far2 || d2 == 0)
    return 0;
  /* |res| < 2^25, |d| < 2^18: exact in doubles; one IEEE division each,
   * truncated alike everywhere */
  *k = (int64_t) ((double) (rx * b->dx + ry * b->dy)
      * (1 << (MVS_K_SHIFT - 8)) / (double) d2);
  *r = (int64_t) ((double) (ry * b->dx - rx * b->dy)
      * (1 << (MVS_K_SHIFT - 8)) / (double) d2);
  return 1;
}

/* The translation a sampled block votes for once the linear part of @m
 * is known. */
MVS_INLINE void
mvs_translation_vote (const MvsModel * m, const MvsBlock * b, int64_t * x,
    int64_t * y)
{
  int64_t px, py;

  mvs_model_at (m, b, &px, &py);
  *x = (int64_t) b->vx * MVS_T_ONE - (px - m->tx);
  *y = (int64_t) b->vy * MVS_T_ONE - (py - m->ty);
}

MVS_INLINE void
mvs_sums_add (MvsSums * s, const MvsBlock * b)
{
  s->cnt++;
  s->sdx += b->dx;
  s->sdy += b->dy;
  s->svx += b->vx;
  s->svy += b->vy;
  s->sdd += (int64_t) b->dx * b->dx + (int64_t) b->dy * b->dy;
  s->sdv += (int64_t) b->dx * b->vx + (int64_t) b->dy * b->vy;
  s->scr += (int64_t) b->dx * b->vy - (int64_t) b->dy * b->vx;
}

/* The least-squares model of the sums @s, into @m: a handful of IEEE
 * operations on exact integers.  The similarity only when @similarity
 * and the blocks are enough and spread enough (*@fitted_similarity says
 * which); returns 0 (and leaves @m) with fewer than 3 blocks. */
MVS_INLINE int
mvs_solve (const MvsSums * s, int similarity, int64_t spread2, MvsModel * m,
    int *fitted_similarity)
{
  double N, cdd, cdv, ccr, k = 0, r = 0, tx, ty;

  if (s->cnt < 3)
    return 0;

  N = (double) s->cnt;
  cdd = (double) s->sdd - ((double) s->sdx * s->sdx
      + (double) s->sdy * s->sdy) / N;
  *fitted_similarity = similarity && s->cnt >= MVS_MIN_SIMILARITY_BLOCKS
      && cdd >= (double) spread2 * N && cdd > 0;
  if (*fitted_similarity) {
    cdv = (double) s->sdv - ((double) s->sdx * s->svx
        + (double) s->sdy * s->svy) / N;
    ccr = (double) s->scr - ((double) s->sdx * s->svy
        - (double) s->sdy * s->svx) / N;
    k = cdv / cdd;
    r = ccr / cdd;
  }
  tx = ((double) s->svx - k * s->sdx + r * s->sdy) / N;
  ty = ((double) s->svy - k * s->sdy - r * s->sdx) / N;

  /* rounding a double to an integer is exact and the same everywhere */
  m->tx = mvs_round_i32 (tx * MVS_T_ONE);
  m->ty = mvs_round_i32 (ty * MVS_T_ONE);
  m->k = mvs_round_i32 (k * (double) ((int64_t) 1 << MVS_K_SHIFT));
  m->r = mvs_round_i32 (r * (double) ((int64_t) 1 << MVS_K_SHIFT));
  return 1;
}

/* Whether the fitted linear part is a camera motion: one that folds the
 * frame (1 + k/2 <= 0) is not, and only the translation is kept. */
MVS_INLINE int
mvs_similarity_kept (int similarity, const MvsModel * m)
{
  return similarity && m->k > -((int64_t) 2 << MVS_K_SHIFT);
}

#endif /* GST_MOTION_VECTOR_SUMMARY_RULES_H */
