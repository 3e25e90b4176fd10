/* gpumotionest — GstMotionVectorSummary: the per-frame reduction of a field.
 *
 * Every step is a function of the cells only, in a fixed order: medians by
 * selection over integer arrays, sums in 64-bit integers, and the few
 * floating-point steps (the least-squares solve, the published zoom and
 * rotation) are basic IEEE operations on values computed exactly, with
 * no fused multiply-add (the library is built with -ffp-contract=off) and
 * no libm call whose rounding may differ between C libraries.  So the same
 * cells give the same summary, bit for bit, whichever backend found them
 * and whichever machine reduces them.  docs/summary.md has the
 * definitions and the reasons.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstmotionvectormeta.h"
#include "summary-private.h"
#include "summary-rules.h"

/* The model lives, in the units of summary-rules.h, in the summary's
 * private words, so that gst_motion_vector_summary_moving_blocks()
 * classifies with the very numbers the shares were counted with. */
#define PRIV_TX 0
#define PRIV_TY 1
#define PRIV_K 2
#define PRIV_R 3
#define PRIV_MEDIAN 4

#define T_ONE MVS_T_ONE
#define K_SHIFT MVS_K_SHIFT

G_STATIC_ASSERT (MVS_MOVING_THRESHOLD
    == GST_MOTION_VECTOR_SUMMARY_MOVING_THRESHOLD);

/* The noise floor of the scene change score, in grey levels per pixel: a
 * rise from 0.5 to 1.5 levels is noise, not a cut. */
#define SCENE_FLOOR_LEVELS 4

typedef MvsBlock Block;
typedef MvsModel Model;
typedef MvsSums Sums;

/* Per-frame working memory: the blocks, 2 x 64-bit words and a byte per
 * block.
 * Kept per thread and reused, since a frame's worth (300 kB at 1080p)
 * would otherwise be mapped and faulted in at every call; the largest
 * fields (over WORK_KEEP) are allocated and freed each time instead. */
#define WORK_KEEP (4 << 20)
#define WORK_PER_BLOCK (sizeof (Block) + 2 * sizeof (gint64) + 1)

typedef struct {
  gsize size;
  gpointer mem;
} Work;

static void
work_free (gpointer data)
{
  Work *w = data;

  g_free (w->mem);
  g_free (w);
}

static GPrivate work_key = G_PRIVATE_INIT (work_free);

/* Room for @n blocks and 2 @n words; give it back with work_release(). */
static gpointer
work_get (gsize n)
{
  gsize size = n * WORK_PER_BLOCK;
  Work *w;

  if (size > WORK_KEEP)
    return g_malloc (size);
  w = g_private_get (&work_key);
  if (!w) {
    w = g_new0 (Work, 1);
    g_private_set (&work_key, w);
  }
  if (w->size < size) {
    g_free (w->mem);
    w->mem = g_malloc (size);
    w->size = size;
  }
  return w->mem;
}

static void
work_release (gpointer mem, gsize n)
{
  if (n * WORK_PER_BLOCK > WORK_KEEP)
    g_free (mem);
}

static gint64
clamp_i32 (gint64 v)
{
  return CLAMP (v, G_MININT32, G_MAXINT32);
}

/* The element of rank @k (0-based) of @a[0..n-1], which it reorders: a
 * radix selection.  The values' span above their minimum is counted in
 * 4096 bins of its top bits; the bin that holds rank @k is kept (moved to
 * the front) and selected in the same way on its lower bits, down to bins
 * of one value.  Two or three passes over the data, whatever its order
 * and its duplicates, where a quickselect on the cells' raster order
 * (long runs of equal vectors) was several times slower. */
#define SELECT_BITS 12
static gint64
select_rank (gint64 * a, gsize n, gsize k)
{
  guint32 count[1 << SELECT_BITS];

  for (;;) {
    gint64 lo = a[0], hi = a[0];
    guint64 span;
    guint shift, bin;
    gsize i, below = 0, kept = 0;

    for (i = 1; i < n; i++) {
      lo = MIN (lo, a[i]);
      hi = MAX (hi, a[i]);
    }
    span = (guint64) hi - (guint64) lo;
    if (span == 0)
      return lo;
    shift = g_bit_storage (span) > SELECT_BITS ?
        g_bit_storage (span) - SELECT_BITS : 0;
    memset (count, 0, sizeof (count));
    for (i = 0; i < n; i++)
      count[((guint64) a[i] - (guint64) lo) >> shift]++;
    for (bin = 0; below + count[bin] <= k; bin++)
      below += count[bin];
    if (shift == 0)
      return lo + bin;
    for (i = 0; i < n; i++)
      if ((((guint64) a[i] - (guint64) lo) >> shift) == bin)
        a[kept++] = a[i];
    n = kept;
    k -= below;
  }
}

/* The lower median of @a[0..n-1] (reordered); n > 0. */
static gint64
median (gint64 * a, gsize n)
{
  return select_rank (a, n, (n - 1) / 2);
}

/* Positions are in half pixels of the meta's frame: up to 2^17 keeps
 * every product below in 64 bits.  gpumotionest writes at most 8192; a
 * scaler may have made the meta larger. */
static gboolean
sizes_in_range (const GstMotionVectorMeta * meta)
{
  return meta->width <= 65536 && meta->height <= 65536;
}

/* ---- the blocks ------------------------------------------------------------ */

/* The coarsest shape present: the one with fewest cells, 16x16 first. */
static GstMotionVectorPartition
coarsest (GstMotionVectorPartitionFlags partitions)
{
  gint p;

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if (partitions & (1u << p))
      return p;
  return GST_MOTION_VECTOR_PARTITION_16X16;
}

/* The geometry of @meta's grid @p (summary-rules.h). */
static void
geometry (const GstMotionVectorMeta * meta, GstMotionVectorPartition p,
    MvsGeometry * g)
{
  mvs_geometry_init (g, meta->grids[p].cols, meta->grids[p].rows,
      gst_motion_vector_partition_width (p),
      gst_motion_vector_partition_height (p), meta->analysis_width,
      meta->analysis_height, meta->width, meta->height, meta->bit_depth);
}

/* One Block per cell of @cells, a grid of geometry @g, raster order. */
static void
read_blocks (const GstMotionVectorCell * cells, const MvsGeometry * g,
    Block * blocks)
{
  guint c, r;
  Block *b = blocks;

  for (r = 0; r < g->rows; r++) {
    for (c = 0; c < g->cols; c++, b++) {
      const GstMotionVectorCell *cell = &cells[(gsize) r * g->cols + c];

      *b = mvs_read_block (g, c, r, cell->mv_x, cell->mv_y, cell->cost);
    }
  }
}

/* ---- the fit ------------------------------------------------------------------ */

/* A first robust model from medians: t the component-wise median of the
 * vectors; k and r the medians of each far block's own projection of its
 * residual onto d and onto d turned a quarter; t again with them.  Blocks
 * nearer the centre than a quarter of the half-diagonal say too little
 * about zoom and rotation and are left out of those medians.  The medians
 * read every step-th block (raster order, at least MVS_MEDIAN_SAMPLE of
 * them): a start for the least squares, which read every block, and the
 * same breakdown point (half the sample) at a quarter of the cost at
 * 1080p. */
static gboolean
median_model (const Block * b, guint n, gint64 far2, Model * m,
    gint64 * scratch)
{
  guint step = MAX (n / MVS_MEDIAN_SAMPLE, 1), i, j, n_far;
  gint64 *sx = scratch, *sy = scratch + n;

  memset (m, 0, sizeof (*m));
  for (j = 0, i = 0; i < n; i += step, j++) {
    sx[j] = (gint64) b[i].vx * T_ONE;
    sy[j] = (gint64) b[i].vy * T_ONE;
  }
  m->tx = median (sx, j);
  m->ty = median (sy, j);

  for (n_far = 0, i = 0; i < n; i += step)
    if (mvs_far_projection (&b[i], m->tx, m->ty, far2, &sx[n_far],
            &sy[n_far]))
      n_far++;
  if (n_far < MVS_MIN_SIMILARITY_BLOCKS)
    return FALSE;
  m->k = median (sx, n_far);
  m->r = median (sy, n_far);

  /* t again, with the linear part */
  for (j = 0, i = 0; i < n; i += step, j++)
    mvs_translation_vote (m, &b[i], &sx[j], &sy[j]);
  m->tx = median (sx, j);
  m->ty = median (sy, j);
  return TRUE;
}

/* The sums over the blocks that agree with @m, and each block's agreement
 * in @agree (1 or 0).  Returns whether any block's agreement differs from
 * what @agree held before. */
static gboolean
gather (const Block * b, guint n, const Model * m, Sums * s, guint8 * agree)
{
  guint8 changed = 0;
  guint i;

  memset (s, 0, sizeof (*s));
  for (i = 0; i < n; i++) {
    guint8 a = mvs_agrees (m, &b[i]);

    changed |= a ^ agree[i];
    agree[i] = a;
    if (a)
      mvs_sums_add (s, &b[i]);
  }
  return changed != 0;
}

/* The reduction of a grid to its core: the cost level, the
 * robust fit (medians, then least squares over the blocks that agree
 * with them, twice) and the counts.  What the CUDA backend computes on
 * the device (kernels/cuda/me_cuda_summary.cu), step for step. */
void
gst_motion_vector_summary_compute_grid_core (const GstMotionVectorCell *
    cells, const MvsGeometry * geometry, guint partition, MvsCore * core)
{
  const MvsGeometry g = *geometry;
  Block *b;
  gpointer work;
  gint64 *scratch;
  guint n_all, n = 0, n_matched = 0, n_agree = 0, i;
  guint64 cost_sum = 0;
  gint64 med;
  Model m;
  gboolean agree_valid;
  gint similarity, fitted;
  guint8 *agree;
  Sums sums;
  gint pass;

  n_all = g.cols * g.rows;
  work = work_get (n_all);
  b = work;
  scratch = (gint64 *) (b + n_all);
  agree = (guint8 *) (scratch + 2 * (gsize) n_all);
  read_blocks (cells, &g, b);

  /* the cost level: sum and median per pixel of the counted blocks,
   * which are moved to the front */
  for (i = 0; i < n_all; i++) {
    if (!b[i].counted)
      continue;
    b[n] = b[i];
    scratch[n++] = b[i].cost;
    cost_sum += b[i].cost;
  }
  med = median (scratch, n);

  /* the matched blocks, which alone enter the fit: copied together, so
   * that the passes below walk one array */
  for (i = 0; i < n; i++)
    if (!mvs_unmatched (&b[i], (guint64) med, g.level))
      b[n_matched++] = b[i];

  /* at least the median block is matched: n_matched > 0 */
  /* Two C-steps: least squares over the blocks that agree with the
   * model, twice, and the shares counted against the result.  When the
   * first step's model keeps the same blocks, the second would give the
   * same model again: its gathering pass is the count. */
  similarity = median_model (b, n_matched, g.far2, &m, scratch);
  memset (agree, 0, n_matched);
  gather (b, n_matched, &m, &sums, agree);
  agree_valid = TRUE;
  for (pass = 0; pass < 2; pass++) {
    if (!mvs_solve (&sums, similarity, g.spread2, &m, &fitted))
      break;
    similarity = fitted;
    agree_valid = FALSE;
    if (pass == 0) {
      agree_valid = TRUE;
      if (!gather (b, n_matched, &m, &sums, agree))
        break;
    }
  }
  similarity = mvs_similarity_kept (similarity, &m);
  if (!similarity) {
    if (m.k != 0 || m.r != 0)
      agree_valid = FALSE;
    m.k = m.r = 0;
  }
  if (!agree_valid)
    gather (b, n_matched, &m, &sums, agree);
  for (i = 0; i < n_matched; i++)
    n_agree += agree[i];

  memset (core, 0, sizeof (*core));
  core->valid = 1;
  core->partition = partition;
  core->blocks = n;
  core->matched = n_matched;
  core->agree = n_agree;
  core->similarity = similarity != 0;
  core->median = med;
  core->cost_sum = cost_sum;
  core->tx = m.tx;
  core->ty = m.ty;
  core->k = m.k;
  core->r = m.r;
  core->geometry = g;
  work_release (work, n_all);
}

/* The core of @meta's grid @p; @meta is consistent. */
static void
compute_core (const GstMotionVectorMeta * meta, GstMotionVectorPartition p,
    MvsCore * core)
{
  MvsGeometry g;

  geometry (meta, p, &g);
  gst_motion_vector_summary_compute_grid_core (gst_motion_vector_meta_get_grid
      (meta, p, NULL, NULL), &g, p, core);
}

/* atan(@x) from basic operations only: two halvings of the angle
 * (atan x = 2 atan (x / (1 + sqrt (1 + x^2))), sqrt being exactly rounded
 * by IEEE) bring |x| under tan(pi/16) < 0.2, where the odd series to x^23
 * is within 1e-17.  libm's atan() is not rounded alike by every C
 * library. */
static gdouble
atan_det (gdouble x)
{
  gdouble sign = x < 0 ? -1.0 : 1.0, a = x * sign, shift = 0, x2, term, sum;
  gint n;

  if (a > 1.0) {
    shift = G_PI / 2;
    a = 1.0 / a;
  }
  a = a / (1.0 + __builtin_sqrt (1.0 + a * a));
  a = a / (1.0 + __builtin_sqrt (1.0 + a * a));
  x2 = a * a;
  term = a;
  sum = 0;
  for (n = 1; n <= 23; n += 2) {
    sum += (((n >> 1) & 1) ? -term : term) / n;
    term *= x2;
  }
  sum *= 4.0;
  return sign * (shift ? shift - sum : sum);
}

/* The published zoom and rotation of the linear part: the current frame's
 * offsets map to the reference's by L = (1 + k/2) I + (r/2) J (k, r in
 * quarter pixels per half pixel, J the quarter turn), so the current
 * picture is the reference's scaled by 1 / |L| and turned by
 * -atan (r / (2 + k)). */
static void
publish_similarity (const Model * m, GstMotionVectorSummary * out)
{
  gdouble k = (gdouble) m->k / (gdouble) ((gint64) 1 << K_SHIFT);
  gdouble r = (gdouble) m->r / (gdouble) ((gint64) 1 << K_SHIFT);
  gdouble alpha = 1.0 + k / 2, beta = r / 2;

  out->zoom = 1.0 / __builtin_sqrt (alpha * alpha + beta * beta) - 1.0;
  out->rotation = -atan_det (beta / alpha);
}

/* ---- public ------------------------------------------------------------------------ */

static void
summary_init (GstMotionVectorSummary * out)
{
  memset (out, 0, sizeof (*out));
  out->version = GST_MOTION_VECTOR_SUMMARY_VERSION;
}

/* The private model of @s, for gst_motion_vector_summary_moving_blocks(). */
static void
model_from_summary (const GstMotionVectorSummary * s, Model * m)
{
  m->tx = (gint32) s->_reserved[PRIV_TX];
  m->ty = (gint32) s->_reserved[PRIV_TY];
  m->k = (gint32) s->_reserved[PRIV_K];
  m->r = (gint32) s->_reserved[PRIV_R];
}

static void
model_to_summary (const Model * m, GstMotionVectorSummary * s)
{
  s->_reserved[PRIV_TX] = (guint32) (gint32) m->tx;
  s->_reserved[PRIV_TY] = (guint32) (gint32) m->ty;
  s->_reserved[PRIV_K] = (guint32) (gint32) m->k;
  s->_reserved[PRIV_R] = (guint32) (gint32) m->r;
}

/* Whether @prev can serve as the previous frame's summary for one
 * computed from grid @p. */
static gboolean
usable_previous (const GstMotionVectorSummary * prev,
    GstMotionVectorPartition p)
{
  return prev && prev->version >= 1 && prev->partition == p
      && prev->blocks > 0
      && !(prev->flags & GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE);
}

/**
 * gst_motion_vector_summary_compute:
 * @meta: a #GstMotionVectorMeta
 * @previous: (nullable): the summary of the frame before, for the scene
 *   change score; %NULL at the start of a stream
 * @out: (out caller-allocates): the summary
 *
 * Reduces the coarsest grid of @meta (16x16 when present) to a
 * #GstMotionVectorSummary: a robust similarity fit (medians, then least
 * squares over the blocks that agree with them, twice), the shares of
 * agreeing, moving and unmatched blocks, the matching cost and the scene
 * change score against @previous.  The same cells (and previous summary)
 * give the same summary, bit for bit, on every machine.  docs/summary.md
 * defines every number.
 *
 * A field without a reference (%GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE)
 * gives an all-zero summary with %GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE.
 *
 * Returns: %TRUE when @out was computed; %FALSE (and @out zeroed but for
 *   its version) when @meta is inconsistent (gst_motion_vector_meta_is_valid())
 */
gboolean
gst_motion_vector_summary_compute (const GstMotionVectorMeta * meta,
    const GstMotionVectorSummary * previous, GstMotionVectorSummary * out)
{
  return gst_motion_vector_summary_compute_with_core (meta, NULL, previous,
      out);
}

/* What gst_motion_vector_summary_compute() makes of @meta's cells, for
 * a caller that checks a backend's MvsCore. */
gboolean
gst_motion_vector_summary_compute_core (const GstMotionVectorMeta * meta,
    MvsCore * core)
{
  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (core != NULL, FALSE);

  memset (core, 0, sizeof (*core));
  if (!gst_motion_vector_meta_is_valid (meta) || !sizes_in_range (meta)
      || (meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE))
    return FALSE;
  compute_core (meta, coarsest (meta->partitions), core);
  return TRUE;
}

/* The summary of @meta from its @core (computed here when %NULL or not
 * valid, or when it is not of the grid this meta's summary reads). */
gboolean
gst_motion_vector_summary_compute_with_core (const GstMotionVectorMeta *
    meta, const MvsCore * core, const GstMotionVectorSummary * previous,
    GstMotionVectorSummary * out)
{
  GstMotionVectorPartition p;
  MvsCore own;
  Model m;
  guint n;

  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  summary_init (out);
  if (!gst_motion_vector_meta_is_valid (meta) || !sizes_in_range (meta))
    return FALSE;
  p = coarsest (meta->partitions);
  out->partition = p;
  if (meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE) {
    out->flags = GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE
        | GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS
        | GST_MOTION_VECTOR_SUMMARY_FLAG_TRANSLATION_ONLY;
    return TRUE;
  }
  if (core && core->valid && core->partition == (guint32) p) {
    MvsGeometry g;

    geometry (meta, p, &g);
    if (memcmp (&g, &core->geometry, sizeof (g)) != 0)
      core = NULL;
  } else {
    core = NULL;
  }
  if (!core) {
    compute_core (meta, p, &own);
    core = &own;
  }

  n = core->blocks;
  out->blocks = n;
  out->mean_cost = (gdouble) core->cost_sum / (gdouble) ((guint64) n * T_ONE);
  out->median_cost = (gdouble) core->median / T_ONE;
  out->_reserved[PRIV_MEDIAN] = (guint32) core->median;

  m.tx = core->tx;
  m.ty = core->ty;
  m.k = core->k;
  m.r = core->r;
  model_to_summary (&m, out);
  out->global_x = (gdouble) m.tx / T_ONE;
  out->global_y = (gdouble) m.ty / T_ONE;
  if (core->similarity)
    publish_similarity (&m, out);
  else
    out->flags |= GST_MOTION_VECTOR_SUMMARY_FLAG_TRANSLATION_ONLY;
  if (n > 0) {
    out->global_share = (gdouble) core->agree / n;
    out->moving_share = (gdouble) (core->matched - core->agree) / n;
    out->unmatched_share = (gdouble) (n - core->matched) / n;
  }

  /* the scene change score: the rise of the median cost per pixel from
   * the previous frame's, relative to both levels and a noise floor */
  if (usable_previous (previous, p)) {
    gint64 prev = previous->_reserved[PRIV_MEDIAN];
    gint64 med = core->median;

    if (med > prev)
      out->scene_change = 100.0 * (gdouble) (med - prev)
          / (gdouble) (med + prev + (gint64) SCENE_FLOOR_LEVELS
          * mvs_grey_level (meta->bit_depth) * T_ONE);
    if (out->scene_change >= GST_MOTION_VECTOR_SUMMARY_SCENE_CHANGE_THRESHOLD)
      out->flags |= GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE;
  } else {
    out->flags |= GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS;
  }
  return TRUE;
}

/**
 * gst_motion_vector_summary_attach:
 * @meta: (nullable): the frame's #GstMotionVectorMeta
 * @previous: (inout): the summary of the frame before, zero-filled at the
 *   start; replaced by this frame's
 *
 * What a producer does for every frame in stream order: computes @meta's
 * summary against @previous, stores it in @meta
 * (gst_motion_vector_meta_set_summary()) and keeps it in @previous for
 * the next frame.  A frame without a meta, or with an inconsistent one,
 * gets none and clears @previous, so the next score is not taken against
 * an older frame.  No other reset is needed: after a discontinuity, flush
 * or caps change the field has no reference, and its summary (flagged
 * %GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE) is no previous for the
 * next one.
 *
 * Returns: %TRUE when @meta received a summary
 */
gboolean
gst_motion_vector_summary_attach (GstMotionVectorMeta * meta,
    GstMotionVectorSummary * previous)
{
  return gst_motion_vector_summary_attach_with_core (meta, NULL, previous);
}

/* gst_motion_vector_summary_attach() from a backend's @core (nullable). */
gboolean
gst_motion_vector_summary_attach_with_core (GstMotionVectorMeta * meta,
    const MvsCore * core, GstMotionVectorSummary * previous)
{
  GstMotionVectorSummary s;

  g_return_val_if_fail (previous != NULL, FALSE);

  if (!meta || !gst_motion_vector_summary_compute_with_core (meta, core,
          previous, &s)) {
    memset (previous, 0, sizeof (*previous));
    return FALSE;
  }
  gst_motion_vector_meta_set_summary (meta, &s);
  *previous = s;
  return TRUE;
}

void
gst_motion_vector_summary_scale (GstMotionVectorSummary * summary,
    guint in_w, guint in_h, guint out_w, guint out_h)
{
  Model m;

  summary->global_x = summary->global_x * out_w / in_w;
  summary->global_y = summary->global_y * out_h / in_h;
  /* the private model follows the meta's units, so that the mask of the
   * scaled meta compares its rescaled cells with a rescaled model */
  model_from_summary (summary, &m);
  m.tx = clamp_i32 (mvs_div_round (m.tx * out_w, in_w));
  m.ty = clamp_i32 (mvs_div_round (m.ty * out_h, in_h));
  model_to_summary (&m, summary);
}

/**
 * gst_motion_vector_summary_moving_blocks: (skip)
 * @meta: a #GstMotionVectorMeta
 * @summary: the summary computed from @meta
 *   (gst_motion_vector_summary_compute(), gst_motion_vector_meta_get_summary())
 * @mask: (nullable): where to write one byte per macroblock of the
 *   analysis frame, row-major, @mb_cols x @mb_rows: 1 for local motion, 0
 *   otherwise; %NULL to ask for the size only
 * @mb_cols: (out) (optional): macroblocks across
 * @mb_rows: (out) (optional): macroblocks down
 *
 * Which macroblocks move on their own, by the rule that counts
 * #GstMotionVectorSummary.moving_share: a block of the summary's grid is
 * moving when it is matched and its vector departs from the global model
 * by more than %GST_MOTION_VECTOR_SUMMARY_MOVING_THRESHOLD, and a
 * macroblock is moving when at least half its blocks of that grid are.
 * Every macroblock is classified, those along the bottom and right edges
 * that the shares leave out included.  Without a reference, or with no
 * usable block, every byte is 0.  Bindings use
 * gst_motion_vector_summary_get_moving_blocks().
 *
 * Returns: %TRUE when the mask was written (or its size given); %FALSE
 *   (0 x 0) when @meta is inconsistent or @summary was not computed from a
 *   grid @meta has
 */
gboolean
gst_motion_vector_summary_moving_blocks (const GstMotionVectorMeta * meta,
    const GstMotionVectorSummary * summary, guint8 * mask, guint * mb_cols,
    guint * mb_rows)
{
  GstMotionVectorPartition p;
  Block *b;
  gpointer work;
  Model m;
  MvsGeometry g;
  guint n_all, cols, rows, across, down, mbc, mbr, c, r;

  if (mb_cols)
    *mb_cols = 0;
  if (mb_rows)
    *mb_rows = 0;
  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (summary != NULL, FALSE);

  p = summary->partition;
  if (!gst_motion_vector_meta_is_valid (meta) || !sizes_in_range (meta)
      || summary->version < 1
      || (guint) p >= GST_MOTION_VECTOR_PARTITION_COUNT
      || !(meta->partitions & (1u << p)))
    return FALSE;
  mbc = gst_motion_vector_mb_cols (meta->analysis_width);
  mbr = gst_motion_vector_mb_rows (meta->analysis_height);
  if (mb_cols)
    *mb_cols = mbc;
  if (mb_rows)
    *mb_rows = mbr;
  if (!mask)
    return TRUE;
  memset (mask, 0, (gsize) mbc * mbr);
  if ((summary->flags & GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE)
      || (meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE))
    return TRUE;

  model_from_summary (summary, &m);
  n_all = meta->grids[p].cols * meta->grids[p].rows;
  work = work_get (n_all);
  b = work;
  geometry (meta, p, &g);
  read_blocks (gst_motion_vector_meta_get_grid (meta, p, NULL, NULL), &g, b);
  gst_motion_vector_meta_get_grid (meta, p, &cols, &rows);
  across = 16 / gst_motion_vector_partition_width (p);
  down = 16 / gst_motion_vector_partition_height (p);
  /* mask counts a macroblock's moving blocks first, then becomes 0/1 */
  for (r = 0; r < rows; r++) {
    for (c = 0; c < cols; c++) {
      const Block *bl = &b[(gsize) r * cols + c];

      if (!mvs_unmatched (bl, summary->_reserved[PRIV_MEDIAN], g.level)
          && !mvs_agrees (&m, bl))
        mask[(gsize) (r / down) * mbc + c / across]++;
    }
  }
  for (c = 0; c < mbc * mbr; c++)
    mask[c] = mask[c] * 2 >= across * down;
  work_release (work, n_all);
  return TRUE;
}

/**
 * gst_motion_vector_summary_get_moving_blocks:
 * @meta: a #GstMotionVectorMeta
 * @summary: the summary computed from @meta
 * @mb_cols: (out) (optional): macroblocks across
 * @mb_rows: (out) (optional): macroblocks down
 *
 * gst_motion_vector_summary_moving_blocks() for bindings: the mask as a
 * new #GBytes.  From Python, numpy.frombuffer(b.get_data(),
 * numpy.uint8).reshape(rows, cols).
 *
 * Returns: (transfer full) (nullable): the mask, or %NULL (and 0 x 0) when
 *   @meta is inconsistent or @summary was not computed from a grid @meta
 *   has
 */
GBytes *
gst_motion_vector_summary_get_moving_blocks (const GstMotionVectorMeta * meta,
    const GstMotionVectorSummary * summary, guint * mb_cols, guint * mb_rows)
{
  guint cols, rows;
  guint8 *mask;

  if (!gst_motion_vector_summary_moving_blocks (meta, summary, NULL, &cols,
          &rows))
    return NULL;
  mask = g_malloc ((gsize) cols * rows);
  gst_motion_vector_summary_moving_blocks (meta, summary, mask, mb_cols,
      mb_rows);
  return g_bytes_new_take (mask, (gsize) cols * rows);
}

/**
 * gst_motion_vector_summary_is_scene_change:
 * @summary: a #GstMotionVectorSummary
 * @threshold: the score from which a frame counts as a cut, 0 to 100, or
 *   a negative value for %GST_MOTION_VECTOR_SUMMARY_SCENE_CHANGE_THRESHOLD
 *
 * Returns: %TRUE when @summary has a scene change score (a reference and a
 *   usable previous summary) at or above @threshold
 */
gboolean
gst_motion_vector_summary_is_scene_change (const GstMotionVectorSummary *
    summary, gdouble threshold)
{
  g_return_val_if_fail (summary != NULL, FALSE);

  if (threshold < 0)
    threshold = GST_MOTION_VECTOR_SUMMARY_SCENE_CHANGE_THRESHOLD;
  if (summary->flags & (GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE
          | GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS))
    return FALSE;
  return summary->scene_change >= threshold;
}
