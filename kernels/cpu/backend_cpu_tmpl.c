/* gpumotionest — the CPU backend: the exact reference, SIMD and all cores.
 *
 * Each submitted frame is copied once into a padded plane: the frame
 * extended to whole macroblocks and then `pad` pixels further on every side,
 * all by edge replication, where pad >= the largest search range seen since
 * open.  That plane is the next frame's reference, so every candidate in
 * [-R, R]^2 reads valid memory with no bounds checks in the loops.  When the
 * range grows past the reference's border, the reference is re-filled from
 * its own interior with the wider border before searching.
 *
 * Macroblock rows are shared out to a pool of worker threads created at
 * open.  Within a macroblock the search walks the candidate rows dy = -R..R
 * in groups: the DSP table computes the SADs of whole rows dx = -R..R (of
 * the 16x16 block, or of its sixteen 4x4 sub-blocks when other shapes are
 * wanted) into a buffer, then the best candidate of the group for each
 * partition, ranked by 32-bit row keys (dsp.h) that order candidates
 * exactly as me_key() does.  docs/cpu-backend.md has the whole design.
 *
 * Compiled once per sample size (bitdepth.h): 8-bit samples, and deeper
 * ones held in 16 bits (docs/high-bit-depth.md); strides and offsets
 * count samples, not bytes.
 */
#include "config.h"

#include <string.h>

#include "cpu_session.h"
#include "mvpred.h"
#include "subpel_rules.h"
#include "mvpred_rules.h"
#include "me_rate.h"

/* ---- padding -------------------------------------------------------------- */

/* Fills `p` with the w x h luma of `luma` (any kind: converted row by row
 * on the way in), extended to mb_cols x mb_rows macroblocks and then `pad`
 * pixels further on every side, all by edge replication.  The frame may
 * not lie in `p`. */
void
me_cpu_luma_fill (PaddedPlane * p, const MEDsp * dsp, const MEPlane * luma,
    unsigned mb_cols, unsigned mb_rows, unsigned pad)
{
  const unsigned w = luma->width, h = luma->height;
  /* rows 32-sample aligned, so the origin is too when pad is a multiple of
   * 32 */
  size_t stride = ((size_t) mb_cols * 16 + 2 * pad + 31) & ~(size_t) 31;
  size_t rows = (size_t) mb_rows * 16 + 2 * pad;

  /* 32 samples to align the origin, 64 for the DSP's reads past the last
   * candidate (dsp.h) */
  if (stride * rows + 96 > p->size) {
    g_free (p->alloc);
    p->size = stride * rows + 96;
    /* zeroed: the SIMD SADs read a few bytes past the last row (dsp.h)
     * that nothing else writes; their results never depend on them, but
     * valgrind would see uninitialised values */
    p->alloc = g_malloc0 (p->size * sizeof (pixel));
  }
  p->stride = stride;
  p->rows = rows;
  p->pad = pad;
  p->q8_valid = FALSE;
  p->q4_valid = FALSE;
  p->hp_range = -1;
  p->levels_valid = FALSE;
  p->base = (pixel *) (((guintptr) p->alloc + 31) & ~(guintptr) 31);
  p->origin = p->base + pad * stride + pad;
  p->width = w;
  p->height = h;

  /* Rows inside the frame: copy, then replicate the edge pixels sideways. */
  const size_t right = stride - pad - w;
  for (unsigned y = 0; y < h; y++) {
    pixel *d = p->origin + (ptrdiff_t) y * stride;
    const guint8 *s = luma->data + (ptrdiff_t) y * luma->stride;
#if BITDEPTH == 8
    switch (luma->kind) {
      case ME_LUMA_PACKED:
        dsp->luma_packed_row (d, s + luma->offset[0], w, luma->step);
        break;
      case ME_LUMA_RGB:
        dsp->luma_rgb_row (d, s, w, luma->step, luma->offset, luma->weights);
        break;
      case ME_LUMA_PLANE:
      default:
        memcpy (d, s, w);
        break;
    }
#else
    /* 16-bit words (me_backend.h): the sample is (word >> shift) masked to
     * the depth, whatever the bits outside it hold */
    const uint16_t *ws = (const uint16_t *) s;
    const unsigned shift = luma->shift;
    const uint16_t mask = (uint16_t) ((1u << me_plane_depth (luma)) - 1);
    for (unsigned x = 0; x < w; x++)
      d[x] = (uint16_t) (ws[x] >> shift) & mask;
#endif
    pixel_set (d - pad, d[0], pad);
    pixel_set (d + w, d[w - 1], right);
  }
  /* Rows above and below: copies of the first and last rows. */
  pixel *first = p->origin - pad;
  pixel *last = first + (ptrdiff_t) (h - 1) * stride;
  for (int y = -(int) pad; y < 0; y++)
    pixel_copy (first + (ptrdiff_t) y * (ptrdiff_t) stride, first, stride);
  for (size_t y = h; y < rows - pad; y++)
    pixel_copy (first + (ptrdiff_t) y * (ptrdiff_t) stride, last, stride);
}

void
me_cpu_plane_fill (PaddedPlane * p, const pixel * src, ptrdiff_t src_stride,
    unsigned w, unsigned h, unsigned mb_cols, unsigned mb_rows, unsigned pad)
{
  /* samples as they are: at 16 bits, every bit of the word */
  const MEPlane plane = { (const guint8 *) src,
    src_stride * (ptrdiff_t) sizeof (pixel), w, h,
    .depth = BITDEPTH == 8 ? 0 : 16
  };

  me_cpu_luma_fill (p, NULL, &plane, mb_cols, mb_rows, pad);
}

/* Fills rows [y0, y1) of p->q8: the 8x8 box sums at each position whose
 * block lies inside the plane, by column sums of 8 rows (kept running down
 * the band) and then pairwise sums of 2, 4 and 8 columns.  Every sum fits
 * q8_t (at most 64 x 255, or 64 x 65535; bitdepth.h).  Bands are independent, so threads share them
 * out. */
#define Q8_BAND 32

static void
plane_q8_band (PaddedPlane * p, size_t y0, size_t y1)
{
  const size_t stride = p->stride;
  const pixel *b = p->base;
  q8_t *col = g_new0 (q8_t, 3 * stride), *c2 = col + stride;
  q8_t *c4 = c2 + stride;

  for (size_t k = 0; k < 8; k++)
    for (size_t x = 0; x < stride; x++)
      col[x] += b[(y0 + k) * stride + x];
  for (size_t y = y0; y < y1; y++) {
    if (y > y0) {
      const pixel *in = b + (y + 7) * stride, *out = b + (y - 1) * stride;
      for (size_t x = 0; x < stride; x++)
        col[x] = col[x] + in[x] - out[x];
    }
    for (size_t x = 0; x + 1 < stride; x++)
      c2[x] = col[x] + col[x + 1];
    for (size_t x = 0; x + 3 < stride; x++)
      c4[x] = c2[x] + c2[x + 2];
    q8_t *q = p->q8 + y * stride;
    for (size_t x = 0; x + 7 < stride; x++)
      q[x] = c4[x] + c4[x + 4];
  }
  g_free (col);
}

/* The same for p->q4, the 4x4 box sums (at most 16 x the largest sample),
 * for the pruned search of any shapes. */
static void
plane_q4_band (PaddedPlane * p, size_t y0, size_t y1)
{
  const size_t stride = p->stride;
  const pixel *b = p->base;
  q8_t *col = g_new0 (q8_t, 2 * stride), *c2 = col + stride;

  for (size_t k = 0; k < 4; k++)
    for (size_t x = 0; x < stride; x++)
      col[x] += b[(y0 + k) * stride + x];
  for (size_t y = y0; y < y1; y++) {
    if (y > y0) {
      const pixel *in = b + (y + 3) * stride, *out = b + (y - 1) * stride;
      for (size_t x = 0; x < stride; x++)
        col[x] = col[x] + in[x] - out[x];
    }
    for (size_t x = 0; x + 1 < stride; x++)
      c2[x] = col[x] + col[x + 1];
    q8_t *q = p->q4 + y * stride;
    for (size_t x = 0; x + 3 < stride; x++)
      q[x] = c2[x] + c2[x + 2];
  }
  g_free (col);
}

/* Rows of p->q8 that hold sums: every block must lie inside the plane. */
static size_t
plane_q8_rows (const PaddedPlane * p)
{
  return p->rows - 7;
}

static size_t
plane_q4_rows (const PaddedPlane * p)
{
  return p->rows - 3;
}

static void
plane_q4_alloc (PaddedPlane * p)
{
  if (p->q4_size < p->stride * p->rows) {
    g_free (p->q4);
    p->q4_size = p->stride * p->rows;
    p->q4 = g_new (q8_t, p->q4_size);
  }
}

static void
plane_q8_alloc (PaddedPlane * p)
{
  if (p->q8_size < p->stride * p->rows) {
    g_free (p->q8);
    p->q8_size = p->stride * p->rows;
    p->q8 = g_new (q8_t, p->q8_size);
  }
}

void
me_cpu_plane_free (PaddedPlane * p)
{
  for (int l = 0; l < 2; l++)
    if (p->level[l]) {
      me_cpu_plane_free (p->level[l]);
      g_free (p->level[l]);
    }
  g_free (p->alloc);
  g_free (p->q8);
  g_free (p->q4);
  g_free (p->hp);
}

/* ---- candidate ranks ------------------------------------------------------ */

/* The DSP routines rank candidates by 32-bit row keys (cost << 16) | rank
 * (see dsp.h), rank being the position in me_key() order among the
 * candidates of one chunk: whole rows dy of the window, at most 65536
 * candidates, so one chunk for R <= 127 and two for R = 128.  The table maps
 * both ways.  Chunks are split into groups of rows small enough for the
 * per-group SAD buffers to stay in the first-level cache. */

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

/* Candidate f = (dy + Ry) * (2R + 1) + dx + R. */
void
me_cpu_rank_table_build_rect (RankTable * t, unsigned range,
    unsigned range_y)
{
  const int R = range, W = 2 * R + 1, Ry = range_y, H = 2 * Ry + 1;
  uint64_t *keys = g_new (uint64_t, (size_t) W * H);

  g_free (t->rank);
  g_free (t->cand);
  /* part_min reads ranks up to a multiple of 16 past the last one */
  t->rank = g_new0 (guint16, (size_t) W * H + 16);
  t->cand = g_new (guint32, (size_t) W * H);
  t->range = range;
  t->range_y = range_y;
  t->rows_per_group = MAX (1, GROUP_MAX / W);
  t->rows_per_chunk = 65536 / W / t->rows_per_group * t->rows_per_group;

  for (int c0 = 0; c0 < H; c0 += t->rows_per_chunk) {
    const int c1 = MIN (H, c0 + (int) t->rows_per_chunk);
    size_t n = 0;
    for (int row = c0; row < c1; row++)
      for (int dx = -R; dx <= R; dx++)
        keys[n++] = me_key (0, dx, row - Ry);
    qsort (keys, n, sizeof (uint64_t), cmp_u64);
    for (size_t r = 0; r < n; r++) {
      guint32 f = (me_key_dy (keys[r]) + Ry) * W + me_key_dx (keys[r]) + R;
      t->rank[f] = r;
      t->cand[(size_t) c0 * W + r] = f;
    }
  }
  g_free (keys);
}

void
me_cpu_rank_table_build (RankTable * t, unsigned range)
{
  me_cpu_rank_table_build_rect (t, range, range);
}

/* ---- the search ----------------------------------------------------------- */

void
me_cpu_search_window (const MEDsp * dsp, const RankTable * t,
    Scratch * scratch, const pixel * cur, const pixel * ref,
    ptrdiff_t stride, int R, gboolean only16, uint64_t * best)
{
  const int W = 2 * R + 1, Ry = t->range_y, H = 2 * Ry + 1;
  const int nk = only16 ? 1 : ME_DSP_N_PARTS;
  /* candidate (-R, -Ry) */
  const pixel *base = ref - Ry * stride - R;

  for (int c0 = 0; c0 < H; c0 += t->rows_per_chunk) {
    const int c1 = MIN (H, c0 + (int) t->rows_per_chunk);
    rowkey_t cb[ME_DSP_N_PARTS];

    memset (cb, 0xff, sizeof (cb));
    for (int g0 = c0; g0 < c1; g0 += t->rows_per_group) {
      const int g1 = MIN (c1, g0 + (int) t->rows_per_group);
      const int n = (g1 - g0) * W;
      const guint16 *rank = t->rank + (size_t) g0 * W;

      if (only16) {
        for (int row = g0; row < g1; row++)
          dsp->sad16_row (cur, base + row * stride, stride, W,
              scratch->sad + (row - g0) * W);
        rowkey_t k = dsp->min_key (scratch->sad, rank, n);
        if (k < cb[0])
          cb[0] = k;
      } else {
        const ptrdiff_t os = (n + 15) & ~15;
        for (int row = g0; row < g1; row++)
          dsp->sad4x4_row (cur, base + row * stride, stride, W,
              scratch->sad4 + (row - g0) * W, os);
        dsp->part_min (scratch->sad4, os, rank, n, cb);
      }
    }
    for (int k = 0; k < nk; k++) {
      guint32 f = t->cand[(size_t) c0 * W + (cb[k] & 0xffff)];
      uint64_t key = me_key ((uint32_t) (cb[k] >> 16), (int) (f % W) - R,
          (int) (f / W) - Ry);
      if (key < best[k])
        best[k] = key;
    }
  }
}

/* best[k] = smallest me_key() of partition k (k < 1 when only16, else
 * k < ME_DSP_N_PARTS) of macroblock (mbx, mby), whose pixels are in
 * scratch->cur. */
static void
search_mb (const MESession * s, Scratch * scratch, unsigned mbx, unsigned mby,
    gboolean only16, uint64_t * best)
{
  const PaddedPlane *ref = s->ref;

  for (int k = 0; k < (only16 ? 1 : ME_DSP_N_PARTS); k++)
    best[k] = ME_KEY_NONE;
  me_cpu_search_window (&s->dsp, &s->ranks, scratch, scratch->cur,
      ref->origin + s->ref_shift + (ptrdiff_t) 16 * mby * ref->stride
      + 16 * (ptrdiff_t) mbx, ref->stride, s->params->search_range, only16,
      best);
}

/* 16x16 only, with exact pruning (successive elimination): a candidate is
 * skipped only when a lower bound of its SAD, the sum over the four 8x8
 * quarters of |current sum - reference sum|, is strictly greater than a
 * cost some candidate of the window already has.  Then its cost is greater
 * than the winner's, so it can neither win nor tie, and the result is the
 * exhaustive search's.  Skipped candidates get cost ME_SAD16_SKIP, more
 * than any SAD (at most 65280, or 256 x 65535), so they never win the
 * minimum either.  The first
 * bound comes from the zero vector and from `hint`, the left neighbour's
 * winner (ME_KEY_NONE: none); SADs are computed over the span of
 * candidates that survive within each run of 32 of a row. */
static uint64_t
search_mb_16x16_pruned (MESession * s, Scratch * scratch,
    unsigned mbx, unsigned mby, uint64_t hint, gint64 * n_costed)
{
  const RankTable *t = &s->ranks;
  const PaddedPlane *ref = s->ref;
  const int R = s->params->search_range, W = 2 * R + 1;
  const int Ry = t->range_y, H = 2 * Ry + 1;
  const ptrdiff_t stride = ref->stride;
  const pixel *base = ref->origin + s->ref_shift
      + ((ptrdiff_t) 16 * mby - Ry) * stride + 16 * (ptrdiff_t) mbx - R;
  const q8_t *qbase = ref->q8 + (base - ref->base);
  const pixel *cur = scratch->cur;
  uint32_t *sad = scratch->sad;
  q8_t cq[4], lb[2 * ME_MAX_FULL_RANGE + 1];
  uint32_t thr, v;
  uint64_t best = ME_KEY_NONE;
  gint64 costed = 0;

  for (int q = 0; q < 4; q++) {
    unsigned sum = 0;
    for (int y = 8 * (q >> 1); y < 8 * (q >> 1) + 8; y++)
      for (int x = 8 * (q & 1); x < 8 * (q & 1) + 8; x++)
        sum += cur[16 * y + x];
    cq[q] = sum;
  }
  s->dsp.sad16_row (cur, base + Ry * stride + R, stride, 1, &thr);
  if (hint != ME_KEY_NONE && ABS (me_key_dx (hint)) <= R
      && ABS (me_key_dy (hint)) <= Ry) {
    s->dsp.sad16_row (cur, base + (me_key_dy (hint) + Ry) * stride
        + me_key_dx (hint) + R, stride, 1, &v);
    thr = MIN (thr, v);
  }

  for (int c0 = 0; c0 < H; c0 += t->rows_per_chunk) {
    const int c1 = MIN (H, c0 + (int) t->rows_per_chunk);
    rowkey_t cb = (rowkey_t) -1;

    for (int row = c0; row < c1; row++) {
      s->dsp.sea_row (qbase + row * stride, stride, cq, W, lb);
      for (int b0 = 0; b0 < W; b0 += 32) {
        const int b1 = MIN (W, b0 + 32);
        int a = -1, z = -1;
        for (int i = b0; i < b1; i++)
          if (lb[i] <= thr) {
            if (a < 0)
              a = i;
            z = i;
          }
        if (a < 0) {
          a = b1;
          z = b1 - 1;
        } else {
          s->dsp.sad16_row (cur, base + row * stride + a, stride, z - a + 1,
              sad + a);
          costed += z - a + 1;
        }
        for (int i = b0; i < a; i++)
          sad[i] = ME_SAD16_SKIP;
        for (int i = z + 1; i < b1; i++)
          sad[i] = ME_SAD16_SKIP;
      }
      rowkey_t k = s->dsp.min_key (sad, t->rank + (size_t) row * W, W);
      if (k < cb)
        cb = k;
      if ((k >> 16) < thr)
        thr = k >> 16;
    }
    guint32 f = t->cand[(size_t) c0 * W + (cb & 0xffff)];
    uint64_t key = me_key ((uint32_t) (cb >> 16), (int) (f % W) - R,
        (int) (f / W) - Ry);
    if (key < best)
      best = key;
  }
  __atomic_fetch_add (&s->esa_costed, costed, __ATOMIC_RELAXED);
  __atomic_fetch_add (&s->esa_total, (gint64) W * H, __ATOMIC_RELAXED);
  *n_costed = costed;
  return best;
}

/* Any set of shapes, with exact pruning (successive elimination,
 * docs/elimination.md): candidate i of a row is skipped only when, for
 * every requested partition k, its lower bound lb_k(i), the sum over k's
 * 4x4 sub-blocks of |current sum - reference sum|, is strictly greater
 * than a cost thr_k some candidate of the window already has for k.  Then
 * its cost for k is greater than k's winner's, so it neither wins nor ties
 * for any requested partition (the others are not stored).  The first
 * thresholds come from the window's centre and from the left neighbour's
 * winner of the first requested partition; then each row's minima lower
 * them.  The survivors of a row are costed in spans of at least 16
 * (sad4x4_row), a span running on over gaps shorter than ME_ESA_GAP; the
 * spans' SADs and ranks are gathered, and one part_min takes the row's
 * minima. */
/* Gaps between survivors shorter than this are costed rather than split:
 * a call of the SAD and minimum routines costs about as much. */
#define ME_ESA_GAP 16

/* out[] = lo .. hi - 1 ordered c, c + 1, c - 1, c + 2, c - 2, ... */
static void
centre_out (int *out, int c, int lo, int hi)
{
  int n = 0;
  for (int d = 0; n < hi - lo; d++) {
    if (c + d < hi)
      out[n++] = c + d;
    if (d && c - d >= lo)
      out[n++] = c - d;
  }
}

/* The first set (clear) bit at or after i in the bit array m of n bits,
 * or n. */
static inline int
next_bit (const uint32_t * m, int i, int n)
{
  while (i < n) {
    const uint32_t w = m[i / 32] >> (i % 32);
    if (w)
      return MIN (n, i + __builtin_ctz (w));
    i = (i | 31) + 1;
  }
  return n;
}

static inline int
next_bit_clear (const uint32_t * m, int i, int n)
{
  while (i < n) {
    const uint32_t w = ~m[i / 32] >> (i % 32);
    if (w)
      return MIN (n, i + __builtin_ctz (w));
    i = (i | 31) + 1;
  }
  return n;
}

/* The rule that picks the pruned searches over the plain one
 * (docs/elimination.md has the measurements behind it).  16x16 alone: the
 * 8x8-sum pruning at every range.  Other shape sets: the 4x4-sum pruning
 * from ME_ESA_MIN_RANGE on.  Either way, along each macroblock row, a
 * macroblock is searched pruned unless the one before it (in the row) was
 * searched pruned and skipped less than ME_SEA_MIN_SKIP (16x16) or
 * ME_ESA_MIN_SKIP (other shapes) percent of its candidates; every
 * ME_ESA_PROBE-th macroblock of a row is searched pruned whatever came
 * before, so that content that turns easier is noticed.  Both searches
 * give the same result; the rule only moves time. */
#define ME_ESA_MIN_RANGE 48
#define ME_ESA_MIN_SKIP 50
#define ME_SEA_MIN_SKIP 25
#define ME_ESA_PROBE 16

static gboolean
me_cpu_esa_pays (const MESession * s)
{
  return s->prune_always || s->params->search_range >= ME_ESA_MIN_RANGE;
}

static gint64
search_mb_parts_pruned (MESession * s, Scratch * scratch, unsigned mbx,
    unsigned mby, gboolean has_left, uint64_t * best)
{
  const RankTable *t = &s->ranks;
  const PaddedPlane *ref = s->ref;
  const int R = s->params->search_range, W = 2 * R + 1;
  const int Ry = t->range_y, H = 2 * Ry + 1;
  const ptrdiff_t stride = ref->stride, os = (W + 15) & ~15;
  const pixel *base = ref->origin + s->ref_shift
      + ((ptrdiff_t) 16 * mby - Ry) * stride + 16 * (ptrdiff_t) mbx - R;
  const q8_t *qbase = ref->q4 + (base - ref->base);
  const pixel *cur = scratch->cur;
  const unsigned mask = s->params->partitions;
  sad4_t *sad4 = scratch->sad4;
  uint32_t *keep = scratch->keep;
  guint16 *rk = scratch->rank;
  q8_t c4[16];
  uint8_t parts[ME_DSP_N_PARTS];
  uint32_t thr[ME_DSP_N_PARTS], lim[ME_DSP_N_PARTS] = { 0 };
  int np = 0;
  gint64 costed = 0;

  for (int k = 0; k < ME_DSP_N_PARTS; k++)
    if (mask & (1u << me_cpu_parts[k].shape))
      parts[np++] = k;
  /* best[] still holds the left neighbour's winners */
  const uint64_t hint = has_left ? best[parts[0]] : ME_KEY_NONE;
  for (int k = 0; k < ME_DSP_N_PARTS; k++)
    best[k] = ME_KEY_NONE;
  for (int b = 0; b < 16; b++) {
    unsigned sum = 0;
    for (int y = 4 * (b >> 2); y < 4 * (b >> 2) + 4; y++)
      for (int x = 4 * (b & 3); x < 4 * (b & 3) + 4; x++)
        sum += cur[16 * y + x];
    c4[b] = sum;
  }
  /* the first thresholds: costs at the centre and at the hint */
  {
    sad4_t one[16] __attribute__((aligned (32)));
    rowkey_t cb[ME_DSP_N_PARTS];
    static const uint16_t rank0[16];
    memset (cb, 0xff, sizeof (cb));
    s->dsp.sad4x4_row (cur, base + Ry * stride + R, stride, 1, one, 1);
    s->dsp.part_min (one, 1, rank0, 1, cb);
    if (hint != ME_KEY_NONE && ABS (me_key_dx (hint)) <= R
        && ABS (me_key_dy (hint)) <= Ry) {
      s->dsp.sad4x4_row (cur, base + (me_key_dy (hint) + Ry) * stride
          + me_key_dx (hint) + R, stride, 1, one, 1);
      s->dsp.part_min (one, 1, rank0, 1, cb);
    }
    for (int j = 0; j < np; j++)
      thr[j] = (uint32_t) (cb[parts[j]] >> 16);
  }

  /* chunks, and rows within a chunk, from the window's centre outwards:
   * the winners lie mostly near it, so the thresholds fall early (the
   * minima do not depend on the order) */
  const int rpc = t->rows_per_chunk, n_chunks = (H + rpc - 1) / rpc;
  int chunks[2 * ME_MAX_FULL_RANGE + 1], rows[2 * ME_MAX_FULL_RANGE + 1];
  centre_out (chunks, Ry / rpc, 0, n_chunks);
  for (int ci = 0; ci < n_chunks; ci++) {
    const int c0 = chunks[ci] * rpc, c1 = MIN (H, c0 + rpc);
    rowkey_t cb[ME_DSP_N_PARTS];

    memset (cb, 0xff, sizeof (cb));
    centre_out (rows, CLAMP (Ry, c0, c1 - 1), c0, c1);
    for (int ri = 0; ri < c1 - c0; ri++) {
      const int row = rows[ri];
      const guint16 *rank = t->rank + (size_t) row * W;
      const pixel *rrow = base + row * stride;
      for (int j = 0; j < np; j++)
        lim[parts[j]] = thr[j] + 1;
      s->dsp.esa_row (qbase + row * stride, stride, c4, lim, W, keep);
      /* spans of survivors (gaps shorter than ME_ESA_GAP costed through,
       * at least 16 candidates, what the SIMD routines take a step),
       * their 4x4 SADs and ranks gathered one after the other, then one
       * minimum over all of them */
      int m = 0, lo = 0;
      for (int a = next_bit (keep, 0, W); a < W;) {
        int z = next_bit_clear (keep, a, W), na;
        while ((na = next_bit (keep, z, W)) < W && na - z < ME_ESA_GAP)
          z = next_bit_clear (keep, na, W);
        if (z - a < 16) {
          /* [a, z) widened, within what the spans before left and the
           * next survivor */
          z = MIN (a + 16, na);
          a = MAX (lo, z - 16);
        }
        s->dsp.sad4x4_row (cur, rrow + a, stride, z - a, sad4 + m, os);
        memcpy (rk + m, rank + a, (z - a) * sizeof (guint16));
        m += z - a;
        lo = z;
        a = na;
      }
      if (m)
        s->dsp.part_min (sad4, os, rk, m, cb);
      costed += m;
      for (int j = 0; j < np; j++)
        if ((cb[parts[j]] >> 16) < thr[j])
          thr[j] = (uint32_t) (cb[parts[j]] >> 16);
    }
    for (int j = 0; j < np; j++) {
      const int k = parts[j];
      if (cb[k] == (rowkey_t) -1)
        continue;
      guint32 f = t->cand[(size_t) c0 * W + (cb[k] & 0xffff)];
      uint64_t key = me_key ((uint32_t) (cb[k] >> 16), (int) (f % W) - R,
          (int) (f / W) - Ry);
      if (key < best[k])
        best[k] = key;
    }
  }
  __atomic_fetch_add (&s->esa_costed, costed, __ATOMIC_RELAXED);
  __atomic_fetch_add (&s->esa_total, (gint64) W * H, __ATOMIC_RELAXED);
  return costed;
}

static void
write_cell (GstMotionVectorCell * c, uint64_t key)
{
  c->mv_x = me_key_qx (key);
  c->mv_y = me_key_qy (key);
  c->cost = me_key_cost (key);
}

PartDesc me_cpu_parts[ME_DSP_N_PARTS];

/* In the shape table's block order (GST_MOTION_VECTOR_PARTITION_FIRST):
 * the order of the DSP routines' minima. */
static void
parts_init (void)
{
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    const int w = GST_MOTION_VECTOR_PARTITION_W (p);
    const int h = GST_MOTION_VECTOR_PARTITION_H (p);
    const int per_x = 16 / w;
    const int n = GST_MOTION_VECTOR_PARTITION_FIRST (p);
    for (int k = 0; k < GST_MOTION_VECTOR_PARTITION_PER_MB (p); k++) {
      PartDesc *d = &me_cpu_parts[n + k];
      *d = (PartDesc) { p, k % per_x, k / per_x, 0 };
      for (int by = d->row * h / 4; by < (d->row + 1) * h / 4; by++)
        for (int bx = d->col * w / 4; bx < (d->col + 1) * w / 4; bx++)
          d->blocks |= 1u << (4 * by + bx);
    }
  }
}

void
me_cpu_load_mb (const MESession * s, Scratch * scratch, unsigned mbx,
    unsigned mby)
{
  const PaddedPlane *cp = s->cur;
  for (int y = 0; y < 16; y++)
    pixel_copy (scratch->cur + 16 * y, cp->origin + (ptrdiff_t) (16 * mby + y)
        * cp->stride + 16 * mbx, 16);
}

void
me_cpu_store_mb (MESession * s, unsigned mbx, unsigned mby,
    gboolean only16, const uint64_t * best)
{
  const unsigned mask = s->params->partitions;
  MEField *field = s->field;

  for (int k = 0; k < (only16 ? 1 : ME_DSP_N_PARTS); k++) {
    const PartDesc *d = &me_cpu_parts[k];
    if (!(mask & (1u << d->shape)))
      continue;
    unsigned per_x = 16 / gst_motion_vector_partition_width (d->shape);
    unsigned per_y = 16 / gst_motion_vector_partition_height (d->shape);
    unsigned cols = per_x * field->mb_cols;
    write_cell (field->grid[d->shape] + (size_t) (mby * per_y + d->row)
        * cols + mbx * per_x + d->col, best[k]);
  }
}

static void
search_row (MESession * s, Scratch * scratch, unsigned mby)
{
  const gboolean only16 =
      s->params->partitions == GST_MOTION_VECTOR_PARTITIONS_16X16;
  MEField *field = s->field;
  uint64_t best[ME_DSP_N_PARTS];

  const gboolean esa = !only16 && s->prune && me_cpu_esa_pays (s);
  const gint64 total = (gint64) (2 * s->params->search_range + 1)
      * (2 * me_search_range_y (s->params) + 1);
  gboolean poor = FALSE;

  for (unsigned mbx = 0; mbx < field->mb_cols; mbx++) {
    me_cpu_load_mb (s, scratch, mbx, mby);
    if (only16 && s->prune && (!poor || mbx % ME_ESA_PROBE == 0
            || s->prune_always)) {
      gint64 costed;
      best[0] = search_mb_16x16_pruned (s, scratch, mbx, mby,
          mbx > 0 ? best[0] : ME_KEY_NONE, &costed);
      poor = (total - costed) * 100 < total * ME_SEA_MIN_SKIP;
    } else if (only16 && s->prune) {
      search_mb (s, scratch, mbx, mby, TRUE, best);
      __atomic_fetch_add (&s->esa_costed, total, __ATOMIC_RELAXED);
      __atomic_fetch_add (&s->esa_total, total, __ATOMIC_RELAXED);
    } else if (esa && (!poor || mbx % ME_ESA_PROBE == 0
            || s->prune_always)) {
      const gint64 costed = search_mb_parts_pruned (s, scratch, mbx, mby,
          mbx > 0, best);
      poor = (total - costed) * 100 < total * ME_ESA_MIN_SKIP;
    } else {
      search_mb (s, scratch, mbx, mby, only16, best);
      if (esa) {
        __atomic_fetch_add (&s->esa_costed, total, __ATOMIC_RELAXED);
        __atomic_fetch_add (&s->esa_total, total, __ATOMIC_RELAXED);
      }
    }
    me_cpu_store_mb (s, mbx, mby, only16, best);
  }
}

/* Each pool thread's scratch, kept for the thread's life. */
/* Scratch holds 32-byte aligned arrays for the SIMD routines: allocated
 * with that alignment, which g_malloc() does not promise. */
static GPrivate scratch_key = G_PRIVATE_INIT (g_aligned_free);

static void
q8_band_job (MESession * s, Scratch * scratch, unsigned band)
{
  size_t y0 = (size_t) band * Q8_BAND;
  plane_q8_band (s->ref, y0, MIN (y0 + Q8_BAND, plane_q8_rows (s->ref)));
}

static void
q4_band_job (MESession * s, Scratch * scratch, unsigned band)
{
  size_t y0 = (size_t) band * Q8_BAND;
  plane_q4_band (s->ref, y0, MIN (y0 + Q8_BAND, plane_q4_rows (s->ref)));
}

static void
worker (gpointer data, gpointer user_data)
{
  MESession *s = user_data;
  Scratch *scratch = g_private_get (&scratch_key);
  gint item;

  if (!scratch) {
    scratch = g_aligned_alloc (1, sizeof (Scratch), 32);
    g_private_set (&scratch_key, scratch);
  }
  while ((item = g_atomic_int_add (&s->next_item, 1)) < s->n_items)
    s->job (s, scratch, item);
  g_mutex_lock (&s->lock);
  if (--s->active == 0)
    g_cond_signal (&s->cond);
  g_mutex_unlock (&s->lock);
}

/* Runs job (s, scratch, i) for i = 0 .. n - 1 on the pool and waits: every
 * worker takes the next item from a shared counter until none is left. */
void
me_cpu_run_parallel (MESession * s, void (*job) (MESession *, Scratch *, unsigned),
    unsigned n)
{
  s->job = job;
  s->n_items = n;
  s->next_item = 0;
  s->active = s->n_workers;
  for (unsigned i = 0; i < s->n_workers; i++)
    g_thread_pool_push (s->pool, GUINT_TO_POINTER (i + 1), NULL);
  g_mutex_lock (&s->lock);
  while (s->active)
    g_cond_wait (&s->cond, &s->lock);
  g_mutex_unlock (&s->lock);
}

/* ---- the stages ----------------------------------------------------------- */

/* Stages 1 and 2 (me_search.h) of method `full`: every candidate of the
 * window, the smallest key per shape, macroblock rows across the pool. */
static void
method_full (MESession * s)
{
  s->esa_total = s->esa_costed = 0;
  if (s->prune && s->params->partitions == GST_MOTION_VECTOR_PARTITIONS_16X16
      && !s->ref->q8_valid) {
    plane_q8_alloc (s->ref);
    me_cpu_run_parallel (s, q8_band_job,
        (plane_q8_rows (s->ref) + Q8_BAND - 1) / Q8_BAND);
    s->ref->q8_valid = TRUE;
  }
  if (s->prune && s->params->partitions != GST_MOTION_VECTOR_PARTITIONS_16X16
      && me_cpu_esa_pays (s) && !s->ref->q4_valid) {
    plane_q4_alloc (s->ref);
    me_cpu_run_parallel (s, q4_band_job,
        (plane_q4_rows (s->ref) + Q8_BAND - 1) / Q8_BAND);
    s->ref->q4_valid = TRUE;
  }
  me_cpu_run_parallel (s, search_row, s->field->mb_rows);
}

/* Candidates and decision of each method, by GstMotionVectorMethod.  The
 * caps' `methods` lists the same. */
static void (*const methods[]) (MESession * s) = {
  [GST_MOTION_VECTOR_METHOD_FULL] = method_full,
  [GST_MOTION_VECTOR_METHOD_MODS] = me_cpu_method_mods,
  [GST_MOTION_VECTOR_METHOD_HIERARCHICAL] = me_cpu_method_hierarchical,
  [GST_MOTION_VECTOR_METHOD_PREDICTIVE] = me_cpu_method_predictive,
};

/* Stage 3: sub-pel refinement and the metric (me_search.h). */

/* The half-sample planes are read only where a candidate can reach.
 * Every candidate lies within 3/4 pixel of the window [-R, R]^2: the rings
 * go 3 quarter pixels around a vector in it, and the rate decision's
 * prediction is clamped into it.  A vector q (quarter pixels) reads plane
 * positions q >> 2 and (q >> 2) + 1 from each pixel of its block, so the
 * positions read run from R + 1 pixels before the macroblock area to R + 1
 * after its end, across and down (the border is wider: pad >= R + 8, see
 * cpu_submit, which also holds the taps 3 pixels further).  Only those are
 * computed: a padded plane's border is the largest range since open, and
 * rounded up to 32. */
/* A window off centre reads as far as its offset further across; the
 * planes are computed that far on every side. */
static unsigned
hpel_extent (const MESession * s)
{
  return s->params->search_range + (unsigned) ABS (s->ref_shift);
}

static unsigned
hpel_rows (const MESession * s)
{
  return 16 * s->field->mb_rows + 2 * (hpel_extent (s) + 1);
}

/* Rows [band * Q8_BAND, ...) of the positions hpel_rows() counts. */
static void
hpel_band_job (MESession * s, Scratch * scratch, unsigned band)
{
  PaddedPlane *p = s->ref;
  const size_t plane = p->stride * p->rows;
  const ptrdiff_t reach = hpel_extent (s) + 1;
  const int n = 16 * s->field->mb_cols + 2 * reach;
  const unsigned y0 = band * Q8_BAND;
  const unsigned y1 = MIN (y0 + Q8_BAND, hpel_rows (s));
  const ptrdiff_t first = p->origin - p->base - reach * p->stride - reach;

  for (unsigned y = y0; y < y1; y++) {
    const ptrdiff_t o = first + (ptrdiff_t) y * p->stride;
    s->dsp.hpel_row (p->base + o, p->stride, n, p->hp + o, p->hp + plane + o,
        p->hp + 2 * plane + o HIGHBD_CALL_SUFFIX);
  }
}

/* Cost of the quarter-pel vector (qx, qy) for the w x h block whose
 * top-left pixel is (x0, y0). */
static uint32_t
subpel_cost (const MESession * s, const pixel * const planes[4], int x0,
    int y0, int w, int h, int qx, int qy)
{
  const PaddedPlane *cp = s->cur, *rp = s->ref;
  const unsigned v = me_subpel_pair (qx & 3, qy & 3);
  const unsigned va = v & 15, vb = v >> 4;
  /* floor division: qx >> 2 is arithmetic for negative qx in gcc and nvcc */
  const ptrdiff_t at = (ptrdiff_t) (y0 + (qy >> 2)) * rp->stride + x0
      + (qx >> 2);
  const pixel *a = planes[ME_SP_PLANE (va)] + at + ME_SP_DY (va) * rp->stride
      + ME_SP_DX (va);
  const pixel *b = planes[ME_SP_PLANE (vb)] + at + ME_SP_DY (vb) * rp->stride
      + ME_SP_DX (vb);
  return s->dsp.subpel_cost (cp->origin + (ptrdiff_t) y0 * cp->stride + x0,
      cp->stride, a, b, rp->stride, w, h,
      s->params->metric == ME_METRIC_SATD);
}

/* What stage 3 ranks a block's candidates by: distortion, plus the rate
 * of the MVD against the prediction (px, py) when lambda is set. */
typedef struct {
  const pixel *const *planes;
  int x0, y0, w, h;
  uint32_t lambda;
  int px, py;
} Ranker;

static uint64_t
rank_key (const MESession * s, const Ranker * r, int qx, int qy)
{
  uint32_t cost = subpel_cost (s, r->planes, r->x0, r->y0, r->w, r->h, qx,
      qy);
  if (r->lambda)
    cost += me_mv_rate (r->lambda, qx, qy, r->px, r->py);
  return me_key_qpel (cost, qx, qy);
}

/* Ranks the 8 neighbours at `step` quarter pixels around *best together
 * with it, by me_key_qpel(). */
static void
refine_ring (const MESession * s, const Ranker * r, int step, uint64_t * best)
{
  const int cx = me_key_qx (*best), cy = me_key_qy (*best);
  for (int dy = -step; dy <= step; dy += step)
    for (int dx = -step; dx <= step; dx += step) {
      if (!dx && !dy)
        continue;
      const uint64_t key = rank_key (s, r, cx + dx, cy + dy);
      if (key < *best)
        *best = key;
    }
}

/* The sub-pel rings of the refinement asked for, around *best. */
static void
refine_rings (const MESession * s, const Ranker * r, uint64_t * best)
{
  if (s->params->refine >= ME_REFINE_HALF)
    refine_ring (s, r, 2, best);
  if (s->params->refine >= ME_REFINE_QUARTER)
    refine_ring (s, r, 1, best);
}

/* Pixel (0, 0) of the reference's full-sample plane and of its half-sample
 * planes H, V and C, in subpel_rules.h's order. */
static void
ref_planes (const MESession * s, const pixel * planes[4])
{
  const PaddedPlane *rp = s->ref;
  const size_t plane = rp->stride * rp->rows;
  const ptrdiff_t at = rp->origin - rp->base + s->ref_shift;
  planes[ME_HPEL_F] = rp->origin + s->ref_shift;
  /* no half-sample planes without refinement: whole vectors read F only */
  planes[ME_HPEL_H] = rp->hp ? rp->hp + at : NULL;
  planes[ME_HPEL_V] = rp->hp ? rp->hp + plane + at : NULL;
  planes[ME_HPEL_C] = rp->hp ? rp->hp + 2 * plane + at : NULL;
}

/* Refines every block of macroblock row `mby` in every requested grid:
 * the integer winner re-costed in the metric, then the half-pel ring, then
 * the quarter-pel ring around the better. */
static void
refine_row (MESession * s, Scratch * scratch, unsigned mby)
{
  const pixel *planes[4];
  ref_planes (s, planes);
  MEField *field = s->field;

  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!(s->params->partitions & (1u << p)))
      continue;
    const int w = GST_MOTION_VECTOR_PARTITION_W (p);
    const int h = GST_MOTION_VECTOR_PARTITION_H (p);
    const unsigned cols = field->mb_cols * (16 / w);
    for (unsigned gy = mby * (16 / h); gy < (mby + 1) * (16 / h); gy++)
      for (unsigned gx = 0; gx < cols; gx++) {
        GstMotionVectorCell *c = field->grid[p] + (size_t) gy * cols + gx;
        const Ranker r = { planes, gx * w, gy * h, w, h, 0, 0, 0 };
        uint64_t best = rank_key (s, &r, c->mv_x, c->mv_y);
        refine_rings (s, &r, &best);
        c->mv_x = me_key_qx (best);
        c->mv_y = me_key_qy (best);
        c->cost = me_key_cost (best);
      }
  }
}

/* Stage 3 with a rate term, in two steps.  First, for every block in
 * parallel, the distortion-only refinement above (the integer winner W,
 * kept aside, becomes F).  Then, for the grid of the idx-th requested shape,
 * blocks in raster order, which decides every block after its neighbours
 * A, B, C and D, so that its prediction P is the H.264 one of their final
 * vectors: the smallest key of distortion + lambda x bits (MVD against P)
 * among F, W, the zero vector and P itself (clamped to the window).  Only
 * the cost of P depends on the order, so the ordered step is short. */
static void
rate_grid_job (MESession * s, Scratch * scratch, unsigned idx)
{
  const pixel *planes[4];
  ref_planes (s, planes);
  MEField *field = s->field;
  const int lim = 4 * (int) s->params->search_range;
  const int lim_y = 4 * (int) me_search_range_y (s->params);
  const uint32_t lambda = s->lambda;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  int p = 0;

  gst_motion_vector_grid_offsets (s->params->partitions, field->mb_cols,
      field->mb_rows, offsets);
  for (unsigned k = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if ((s->params->partitions & (1u << p)) && k++ == idx)
      break;
  const int w = GST_MOTION_VECTOR_PARTITION_W (p);
  const int h = GST_MOTION_VECTOR_PARTITION_H (p);
  const unsigned cols = gst_motion_vector_grid_cols (p, field->mb_cols);
  const unsigned rows = gst_motion_vector_grid_rows (p, field->mb_rows);
  GstMotionVectorCell *grid = field->grid[p];
  const gint16 *winners = s->winners + 2 * offsets[p];

  for (unsigned gy = 0; gy < rows; gy++)
    for (unsigned gx = 0; gx < cols; gx++) {
      const size_t i = (size_t) gy * cols + gx;
      GstMotionVectorCell *c = grid + i;
      Ranker r = { planes, gx * w, gy * h, w, h, lambda, 0, 0 };
      me_mvpred_cell (grid, p, gx, gy, field->mb_cols, field->mb_rows,
          &r.px, &r.py);
      const uint64_t kf = me_key_qpel (c->cost + me_mv_rate (lambda, c->mv_x,
              c->mv_y, r.px, r.py), c->mv_x, c->mv_y);
      const uint64_t kw = rank_key (s, &r, winners[2 * i],
          winners[2 * i + 1]);
      const uint64_t kp = rank_key (s, &r, CLAMP (r.px, -lim, lim),
          CLAMP (r.py, -lim_y, lim_y));
      const uint64_t kz = rank_key (s, &r, 0, 0);
      const uint64_t best = MIN (MIN (kf, kw), MIN (kp, kz));
      c->mv_x = me_key_qx (best);
      c->mv_y = me_key_qy (best);
      c->cost = me_key_cost (best);
    }
}

static void
refine_frame (MESession * s)
{
  PaddedPlane *p = s->ref;
  MEField *field = s->field;
  if (s->params->refine != ME_REFINE_NONE
      && p->hp_range < (int) hpel_extent (s)) {
    const size_t need = 3 * p->stride * p->rows;
    if (need > p->hp_size) {
      g_free (p->hp);
      p->hp = g_malloc (need * sizeof (pixel));
      p->hp_size = need;
    }
    me_cpu_run_parallel (s, hpel_band_job, (hpel_rows (s) + Q8_BAND - 1) / Q8_BAND);
    p->hp_range = hpel_extent (s);
  }
  if (s->params->lambda) {
    /* keep the integer winners, laid out as the cells */
    guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
    const size_t n = gst_motion_vector_grid_offsets (s->params->partitions,
        field->mb_cols, field->mb_rows, offsets);
    if (2 * n > s->winners_size) {
      g_free (s->winners);
      s->winners_size = 2 * n;
      s->winners = g_new (gint16, s->winners_size);
    }
    for (int q = 0; q < GST_MOTION_VECTOR_PARTITION_COUNT; q++) {
      if (!(s->params->partitions & (1u << q)))
        continue;
      const size_t m = (size_t) gst_motion_vector_grid_cols (q, field->mb_cols)
          * gst_motion_vector_grid_rows (q, field->mb_rows);
      for (size_t i = 0; i < m; i++) {
        s->winners[2 * (offsets[q] + i)] = field->grid[q][i].mv_x;
        s->winners[2 * (offsets[q] + i) + 1] = field->grid[q][i].mv_y;
      }
    }
  }
  me_cpu_run_parallel (s, refine_row, field->mb_rows);
  if (s->params->lambda)
    me_cpu_run_parallel (s, rate_grid_job,
        __builtin_popcount (s->params->partitions));
}

/* Stage 4 for the grid rows of macroblock row `mby`, every requested
 * shape. */
static void
finish_row (MESession * s, Scratch * scratch, unsigned mby)
{
  MEField *field = s->field;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    /* requested grids only: the others may be there, unused (me_backend.h) */
    if (!(s->params->partitions & (1u << p)))
      continue;
    const unsigned per = 16 / GST_MOTION_VECTOR_PARTITION_H (p);
    me_mvpred_grid_rows (field->grid[p], p, field->mb_cols, field->mb_rows,
        mby * per, (mby + 1) * per);
  }
}

/* A window off centre: the vectors found relative to it become the
 * vectors themselves before stage 4 predicts them. */
static void
unshift_grids (MESession * s)
{
  MEField *field = s->field;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!(s->params->partitions & (1u << p)))
      continue;
    const size_t n = (size_t) gst_motion_vector_grid_cols (p, field->mb_cols)
        * gst_motion_vector_grid_rows (p, field->mb_rows);
    for (size_t i = 0; i < n; i++)
      field->grid[p][i].mv_x += 4 * s->ref_shift;
  }
}

static void
search_frame (MESession * s, const MESearchParams * params, MEField * field)
{
  s->params = params;
  s->field = field;
  s->lambda = me_lambda_at_depth (params->lambda, s->depth);
  s->ref_shift = params->offset_x;
  methods[params->method] (s);         /* stages 1 and 2 */
  /* only a predictive search leaves temporal predictors for the next */
  if (params->method != GST_MOTION_VECTOR_METHOD_PREDICTIVE && s->chain)
    s->temporal_valid = FALSE;
  if (me_search_refines (params))
    refine_frame (s);                   /* stage 3 */
  if (s->ref_shift)
    unshift_grids (s);
  me_cpu_run_parallel (s, finish_row, field->mb_rows);    /* stage 4 */
  s->ref_shift = 0;
}

/* ---- MEBackendOps --------------------------------------------------------- */

static MESession *
cpu_open (const MEBackendOptions * options, GError ** error)
{
  static gsize parts_done = 0;
  MESession *s = g_new0 (MESession, 1);
  GError *pool_error = NULL;

  if (g_once_init_enter (&parts_done)) {
    parts_init ();
    g_once_init_leave (&parts_done, 1);
  }
  /* options->simd: the ME_CPU_FLAG_* levels allowed (0: the C reference
   * alone), for comparisons and benchmarks. */
  me_dsp_init (&s->dsp, options->simd);
  s->simd = options->simd;
  /* exhaustive: no early-out, the plain loops over every candidate */
  s->prune = !options->exhaustive;
  s->prune_always = s->prune && options->prune == ME_PRUNE_ALWAYS;
  s->n_workers = options->threads;
  if (s->n_workers == 0)
    s->n_workers = g_get_num_processors ();
  s->n_workers = MIN (s->n_workers, 256);
  /* An exclusive pool whose threads could not all start comes back with
   * the error set: that is a failure to open, not a session on fewer
   * threads than asked. */
  s->pool = g_thread_pool_new (worker, s, s->n_workers, TRUE, &pool_error);
  if (pool_error) {
    if (s->pool)
      g_thread_pool_free (s->pool, TRUE, TRUE);
    g_propagate_error (error, pool_error);
    g_free (s);
    return NULL;
  }
  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  g_queue_init (&s->done);
  s->cur = &s->planes[0];
  s->ref = &s->planes[1];
  s->spare = &s->planes[2];
  s->chain = TRUE;
  s->depth = 8;
  s->bitdepth_max = 255;
  return s;
}

/* The depth of the frames coming: backend_cpu.c opens a session of the
 * right size for it and starts a new sequence when it changes. */
static void
set_depth (MESession * s, const MEPlane * luma)
{
  if (luma && me_plane_depth (luma) != s->depth) {
    s->depth = me_plane_depth (luma);
    s->bitdepth_max = (1 << s->depth) - 1;
    me_dsp_init_depth (&s->dsp, s->simd, s->depth);
  }
}

static void
cpu_close (MESession * s)
{
  g_thread_pool_free (s->pool, FALSE, TRUE);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  g_queue_clear (&s->done);
  for (int i = 0; i < 3; i++)
    me_cpu_plane_free (&s->planes[i]);
  for (int i = 0; i < ME_MAX_WINDOW; i++)
    me_cpu_plane_free (&s->window[i]);
  g_free (s->ranks.rank);
  g_free (s->ranks.cand);
  g_free (s->coarse_ranks.rank);
  g_free (s->coarse_ranks.cand);
  g_free (s->guide);
  g_free (s->temporal);
  g_free (s->level1);
  g_free (s->progress);
  g_free (s->winners);
  g_free (s);
}

static gboolean
cpu_submit (MESession * s, const MEPlane * luma, const MESearchParams * params,
    MEField * out, GError ** error)
{
  /* sub-pel candidates reach 3/4 pixel past the window, and their taps 3
   * pixels further */
  const unsigned reach = params->search_range + ABS (params->offset_x)
      + (params->refine != ME_REFINE_NONE ? 8 : 0);
  set_depth (s, luma);
  if (reach > s->pad)
    s->pad = (reach + ME_CPU_PAD_STEP - 1) / ME_CPU_PAD_STEP * ME_CPU_PAD_STEP;
  if (s->pairs_mode) {
    /* the window's frames are not references of submit() */
    s->pairs_mode = FALSE;
    s->has_ref = FALSE;
    s->temporal_valid = FALSE;
  }
  me_cpu_luma_fill (s->cur, &s->dsp, luma, out->mb_cols, out->mb_rows,
      s->pad);
  /* A reference of another size is no reference: there is no meaningful
   * match between frames of different geometry. */
  out->has_reference = s->has_ref && s->ref->width == luma->width
      && s->ref->height == luma->height;
  if (out->has_reference && s->ref->pad < reach) {
    PaddedPlane *t = s->spare;
    me_cpu_plane_fill (t, s->ref->origin, s->ref->stride, s->ref->width,
        s->ref->height, out->mb_cols, out->mb_rows, s->pad);
    s->spare = s->ref;
    s->ref = t;
  }
  if (out->has_reference) {
    if (s->ranks.range != params->search_range
        || s->ranks.range_y != me_search_range_y (params))
      me_cpu_rank_table_build_rect (&s->ranks, params->search_range,
          me_search_range_y (params));
    search_frame (s, params, out);
  } else {
    s->temporal_valid = FALSE;
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      if (out->grid[p])
        memset (out->grid[p], 0, sizeof (GstMotionVectorCell)
            * gst_motion_vector_grid_cols (p, out->mb_cols)
            * gst_motion_vector_grid_rows (p, out->mb_rows));
  }

  PaddedPlane *t = s->ref;
  s->ref = s->cur;
  s->cur = t;
  s->has_ref = TRUE;
  g_queue_push_tail (&s->done, out);
  return TRUE;
}

static gboolean
cpu_collect (MESession * s, GError ** error)
{
  if (!g_queue_pop_head (&s->done)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "collect called with no frame submitted");
    return FALSE;
  }
  return TRUE;
}

static void
clear_field (MEField * out)
{
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if (out->grid[p])
      memset (out->grid[p], 0, sizeof (GstMotionVectorCell)
          * gst_motion_vector_grid_cols (p, out->mb_cols)
          * gst_motion_vector_grid_rows (p, out->mb_rows));
}

/* The window's frame `age` submissions back. */
static PaddedPlane *
window_plane (MESession * s, unsigned age)
{
  return &s->window[(s->win_newest + ME_MAX_WINDOW - age) % ME_MAX_WINDOW];
}

/* Gives `p` a border of s->pad when it has less (the range grew since it
 * was filled), by way of the spare plane. */
static void
window_repad (MESession * s, PaddedPlane * p, unsigned reach)
{
  if (p->pad >= reach)
    return;
  me_cpu_plane_fill (s->spare, p->origin, p->stride, p->width, p->height,
      gst_motion_vector_mb_cols (p->width),
      gst_motion_vector_mb_rows (p->height), s->pad);
  PaddedPlane t = *p;
  *p = *s->spare;
  *s->spare = t;
}

/* Every pair runs as submit()'s search does, with cur and ref pointed at
 * the pair's frames; only a pair of a frame and its previous one chains
 * predictive's temporal predictors (me_backend.h). */
static gboolean
cpu_submit_pairs (MESession * s, const MEPlane * luma,
    const MESearchParams * params, const MESearchPair * pairs,
    unsigned n_pairs, GError ** error)
{
  const unsigned reach = params->search_range + ABS (params->offset_x)
      + (params->refine != ME_REFINE_NONE ? 8 : 0);
  PaddedPlane *const cur0 = s->cur, *const ref0 = s->ref;

  set_depth (s, luma);
  if (!s->pairs_mode) {
    s->pairs_mode = TRUE;
    s->win_count = 0;
    s->has_ref = FALSE;
    s->temporal_valid = FALSE;
  }
  for (unsigned i = 0; i < n_pairs; i++) {
    const unsigned have = s->win_count + (luma ? 1 : 0);
    if (pairs[i].target >= MIN (have, ME_MAX_WINDOW)) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "no frame %u submissions back to search: the window holds %u",
          pairs[i].target, MIN (have, ME_MAX_WINDOW));
      return FALSE;
    }
  }
  if (reach > s->pad)
    s->pad = (reach + ME_CPU_PAD_STEP - 1) / ME_CPU_PAD_STEP * ME_CPU_PAD_STEP;
  if (luma) {
    s->win_newest = (s->win_newest + 1) % ME_MAX_WINDOW;
    me_cpu_luma_fill (window_plane (s, 0), &s->dsp, luma,
        gst_motion_vector_mb_cols (luma->width),
        gst_motion_vector_mb_rows (luma->height), s->pad);
    s->win_count = MIN (s->win_count + 1, ME_MAX_WINDOW);
  }
  for (unsigned i = 0; i < n_pairs; i++) {
    PaddedPlane *t = window_plane (s, pairs[i].target);
    if (pairs[i].out->mb_cols != gst_motion_vector_mb_cols (t->width)
        || pairs[i].out->mb_rows != gst_motion_vector_mb_rows (t->height)) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "field of %ux%u macroblocks does not match the %ux%u frame it is "
          "for", pairs[i].out->mb_cols, pairs[i].out->mb_rows, t->width,
          t->height);
      return FALSE;
    }
  }

  for (unsigned i = 0; i < n_pairs; i++) {
    const MESearchPair *pr = &pairs[i];
    PaddedPlane *t = window_plane (s, pr->target);
    PaddedPlane *r = pr->reference < s->win_count
        ? window_plane (s, pr->reference) : NULL;
    const gboolean chain = pr->reference == pr->target + 1;

    pr->out->has_reference = r && r->width == t->width
        && r->height == t->height;
    if (!pr->out->has_reference) {
      if (chain)
        s->temporal_valid = FALSE;
      clear_field (pr->out);
      continue;
    }
    window_repad (s, t, reach);
    window_repad (s, r, reach);
    if (s->ranks.range != params->search_range
        || s->ranks.range_y != me_search_range_y (params))
      me_cpu_rank_table_build_rect (&s->ranks, params->search_range,
          me_search_range_y (params));
    s->cur = t;
    s->ref = r;
    s->chain = chain;
    search_frame (s, params, pr->out);
    s->chain = TRUE;
  }
  s->cur = cur0;
  s->ref = ref0;
  g_queue_push_tail (&s->done, s);     /* any pointer: one per submission */
  return TRUE;
}

static void
cpu_reset (MESession * s)
{
  g_queue_clear (&s->done);
  s->win_count = 0;
  s->has_ref = FALSE;
  s->temporal_valid = FALSE;
}

/* The session's functions alone: the caps and the depth of frames in
 * flight are backend_cpu.c's, which collects every submission at once. */
/* Share of the candidates of the last frame's full search that pruning
 * skipped; < 0 when it did not prune. */
static double
cpu_last_pruned_share (MESession * s)
{
  return s->esa_total ? 1.0 - (double) s->esa_costed / s->esa_total : -1.0;
}

const MEBackendOps me_backend_cpu_impl = {
  .name = "cpu",
  .last_pruned_share = cpu_last_pruned_share,
  .open = cpu_open,
  .close = cpu_close,
  .submit = cpu_submit,
  .collect = cpu_collect,
  .reset = cpu_reset,
  .submit_pairs = cpu_submit_pairs,
};
