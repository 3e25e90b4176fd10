/* gpumotionest — the CPU backend's fast methods: stages 1 and 2 of `mods`,
 * `hierarchical` and `predictive`, as docs/fast-search.md defines them.
 *
 * Every method walks the window by the macroblock's 16x16 SAD and hands
 * each candidate it costs to visit(), which keeps, for every requested
 * partition, the smallest key among the candidates visited.  So the
 * methods differ only in which candidates they visit, and the results of
 * every shape come out of the same walk.
 */
#include "config.h"

#include <string.h>

#include "cpu_session.h"
#include "fast_rules.h"
#include "mvpred_rules.h"

/* One macroblock's walk: its pixels (scratch->cur), its reference
 * position, and the best key of each partition so far. */
typedef struct {
  const MEDsp *dsp;
  Scratch *scratch;
  const pixel *ref;            /* candidate (0, 0) */
  ptrdiff_t stride;
  gboolean only16;
  int R;
  uint64_t best[ME_DSP_N_PARTS];
  /* candidates seen, by a hash of the vector: a method that may come back
   * to a candidate (predictive) looks it up instead of costing it again,
   * which changes nothing since V is a set */
  guint32 seen_vec[64];
  uint64_t seen_key[64];
} Walk;

#define WALK_NO_VEC 0xffffffffu

static void
walk_init (Walk * w, MESession * s, Scratch * scratch, unsigned mbx,
    unsigned mby)
{
  const PaddedPlane *ref = s->ref;
  w->dsp = &s->dsp;
  w->scratch = scratch;
  w->stride = ref->stride;
  w->ref = ref->origin + (ptrdiff_t) 16 * mby * ref->stride + 16 * mbx;
  w->only16 = s->params->partitions == GST_MOTION_VECTOR_PARTITIONS_16X16;
  w->R = s->params->search_range;
  for (int k = 0; k < ME_DSP_N_PARTS; k++)
    w->best[k] = ME_KEY_NONE;
  memset (w->seen_vec, 0xff, sizeof (w->seen_vec));   /* WALK_NO_VEC */
  me_cpu_load_mb (s, scratch, mbx, mby);
}

/* Every partition's cost of candidate i of a row costed by sad4x4_row
 * (sub-block b = 4 row + column at sad4[b * os + i]), built up from the
 * 4x4 sums in the partitions' order (dsp.h: 16x16, 16x8, 8x16, 8x8, 8x4,
 * 4x8, 4x4), each kept where it beats the partition's best. */
static uint64_t
parts_update (Walk * w, const sad4_t * sad4, ptrdiff_t os, int dx, int dy)
{
  uint32_t c[ME_DSP_N_PARTS];
  uint32_t *p16 = c, *p168 = c + 1, *p816 = c + 3, *p88 = c + 5;
  uint32_t *p84 = c + 9, *p48 = c + 17, *p44 = c + 25;

  for (int b = 0; b < 16; b++)
    p44[b] = sad4[os * b];
  for (int r = 0; r < 4; r++)
    for (int x = 0; x < 2; x++)
      p84[2 * r + x] = p44[4 * r + 2 * x] + p44[4 * r + 2 * x + 1];
  for (int r = 0; r < 2; r++)
    for (int x = 0; x < 4; x++)
      p48[4 * r + x] = p44[8 * r + x] + p44[8 * r + 4 + x];
  for (int r = 0; r < 2; r++)
    for (int x = 0; x < 2; x++)
      p88[2 * r + x] = p84[4 * r + x] + p84[4 * r + 2 + x];
  p168[0] = p88[0] + p88[1];
  p168[1] = p88[2] + p88[3];
  p816[0] = p88[0] + p88[2];
  p816[1] = p88[1] + p88[3];
  p16[0] = p168[0] + p168[1];

  /* the vector's part of the key is the same for every partition */
  const uint64_t v = me_key (0, dx, dy);
  for (int k = 0; k < ME_DSP_N_PARTS; k++) {
    const uint64_t pk = v | (uint64_t) c[k] << 36;
    w->best[k] = pk < w->best[k] ? pk : w->best[k];
  }
  return v | (uint64_t) c[0] << 36;
}

/* Costs the n candidates (dx0 + i, dy), all inside the window, in one
 * pass of the DSP routines; keys[i] = the guide key of each. */
static void
visit_row (Walk * w, int dx0, int dy, int n, uint64_t * keys)
{
  const pixel *r = w->ref + (ptrdiff_t) dy * w->stride + dx0;

  if (w->only16) {
    uint32_t *sad = w->scratch->sad;
    w->dsp->sad16_row (w->scratch->cur, r, w->stride, n, sad);
    for (int i = 0; i < n; i++) {
      keys[i] = me_key (sad[i], dx0 + i, dy);
      if (keys[i] < w->best[0])
        w->best[0] = keys[i];
    }
    return;
  }
  const ptrdiff_t os = (n + 15) & ~15;
  sad4_t *sad4 = w->scratch->sad4;
  w->dsp->sad4x4_row (w->scratch->cur, r, w->stride, n, sad4, os);
  for (int i = 0; i < n; i++)
    keys[i] = parts_update (w, sad4 + i, os, dx0 + i, dy);
}

/* Costs candidate (dx, dy) for every partition; returns its guide key (the
 * 16x16 SAD's). */
static uint64_t
visit (Walk * w, int dx, int dy)
{
  const pixel *r = w->ref + (ptrdiff_t) dy * w->stride + dx;
  uint64_t key = ME_KEY_NONE;

  if (w->only16) {
    uint32_t sad;
    w->dsp->sad16_row (w->scratch->cur, r, w->stride, 1, &sad);
    key = me_key (sad, dx, dy);
    if (key < w->best[0])
      w->best[0] = key;
    return key;
  }
  sad4_t *sad4 = w->scratch->sad4;
  w->dsp->sad4x4_row (w->scratch->cur, r, w->stride, 1, sad4, 16);
  return parts_update (w, sad4, 16, dx, dy);
}

/* The hash slot of a vector in the seen table. */
static unsigned
seen_slot (int dx, int dy, guint32 * v)
{
  /* never WALK_NO_VEC: both fields are at most 12 bits */
  *v = (guint32) (dx + 2048) | (guint32) (dy + 2048) << 12;
  return (*v * 2654435761u) >> 26;
}

/* visit(), or the key of a candidate already seen. */
static uint64_t
visit_once (Walk * w, int dx, int dy)
{
  guint32 v;
  const unsigned h = seen_slot (dx, dy, &v);
  if (w->seen_vec[h] == v)
    return w->seen_key[h];
  w->seen_vec[h] = v;
  return w->seen_key[h] = visit (w, dx, dy);
}

/* Candidates of one visit_set() call at most: the predictors, or a ring. */
#define VISIT_SET_MAX MAX (ME_PRED_MAX_PREDICTORS, 8)

/* visit_once() of each of the n candidates (xs[i], ys[i]); returns the
 * smallest guide key.  With 16x16 alone, those not seen yet are costed in
 * one call of the DSP's scattered SADs, which loads the current block once
 * for all of them. */
static uint64_t
visit_set (Walk * w, const int *xs, const int *ys, int n)
{
  uint64_t best = ME_KEY_NONE;

  if (!w->only16) {
    for (int i = 0; i < n; i++) {
      const uint64_t key = visit_once (w, xs[i], ys[i]);
      best = key < best ? key : best;
    }
    return best;
  }
  ptrdiff_t off[VISIT_SET_MAX];
  uint32_t sad[VISIT_SET_MAX];
  guint32 vec[VISIT_SET_MAX];
  unsigned slot[VISIT_SET_MAX];
  int m = 0, mx[VISIT_SET_MAX], my[VISIT_SET_MAX];
  for (int i = 0; i < n; i++) {
    guint32 v;
    const unsigned h = seen_slot (xs[i], ys[i], &v);
    /* seen, or listed here already (its key still ME_KEY_NONE) */
    if (w->seen_vec[h] == v) {
      best = w->seen_key[h] < best ? w->seen_key[h] : best;
      continue;
    }
    w->seen_vec[h] = v;
    w->seen_key[h] = ME_KEY_NONE;
    off[m] = (ptrdiff_t) ys[i] * w->stride + xs[i];
    mx[m] = xs[i];
    my[m] = ys[i];
    vec[m] = v;
    slot[m++] = h;
  }
  if (m > 0)
    w->dsp->sad16_points (w->scratch->cur, w->ref, w->stride, m, off, sad);
  for (int j = 0; j < m; j++) {
    const uint64_t key = me_key (sad[j], mx[j], my[j]);
    /* (a later candidate of the list may have taken the slot) */
    if (w->seen_vec[slot[j]] == vec[j])
      w->seen_key[slot[j]] = key;
    best = key < best ? key : best;
  }
  if (best < w->best[0])
    w->best[0] = best;
  return best;
}

/* Visits (dx, dy) if it lies in the window; returns its guide key, or
 * ME_KEY_NONE outside. */
static uint64_t
visit_inside (Walk * w, int dx, int dy)
{
  return me_fast_inside (dx, dy, w->R) ? visit (w, dx, dy) : ME_KEY_NONE;
}

static void
walk_store (Walk * w, MESession * s, unsigned mbx, unsigned mby)
{
  me_cpu_store_mb (s, mbx, mby, w->only16, w->best);
}

/* Scattered candidates of one macroblock, for one call of the DSP's
 * sad16_points (16x16 only): the current block is loaded once for all of
 * them instead of once per candidate. */
typedef struct {
  ptrdiff_t *off;               /* of each point from candidate (0, 0) */
  int *dy;
  uint32_t *sad;
} Points;

/* ---- mods ---------------------------------------------------------------- */

/* 16x16 only.  Within a column dx is fixed, so its candidates are ranked
 * by a key, cost << 10 | 2 |dy| + (dy > 0), in me_key()'s order for that
 * dx (|dy| <= 256 fits the 10 bits); the columns' winners become full keys
 * once, at the end.  A rowkey_t holds it: 32 bits for 8-bit SADs, 64 for
 * deeper ones (bitdepth.h). */
static inline rowkey_t
mods_col_key (uint32_t sad, int dy)
{
  return (rowkey_t) sad << 10 | (uint32_t) (2 * ABS (dy) + (dy > 0));
}

static inline int
mods_col_dy (rowkey_t key)
{
  const int a = (int) (key & 1023) >> 1;
  return key & 1 ? a : -a;
}

/* A later step of every column at once: the columns' two candidates
 * y ± step in one call of the DSP's scattered SADs, so the current block
 * is loaded once per step instead of once per candidate.  Both are costed
 * around the column's y before it moves.  A candidate outside the window
 * is not part of the search: its place is taken by the column's y itself,
 * whose key is the column's best and so changes nothing, which keeps the
 * loops regular and the reads inside the plane. */
static void
mods_step_16 (Walk * w, Points * pt, int step, rowkey_t * best)
{
  const int R = w->R, W = 2 * R + 1;

  for (int c = 0; c < W; c++) {
    const int y = mods_col_dy (best[c]);
    const int lo = y - step >= -R ? y - step : y;
    const int hi = y + step <= R ? y + step : y;
    pt->off[2 * c] = (ptrdiff_t) lo * w->stride + c - R;
    pt->off[2 * c + 1] = (ptrdiff_t) hi * w->stride + c - R;
    pt->dy[2 * c] = lo;
    pt->dy[2 * c + 1] = hi;
  }
  w->dsp->sad16_points (w->scratch->cur, w->ref, w->stride, 2 * W, pt->off,
      pt->sad);
  for (int c = 0; c < W; c++) {
    const rowkey_t k0 = mods_col_key (pt->sad[2 * c], pt->dy[2 * c]);
    const rowkey_t k1 = mods_col_key (pt->sad[2 * c + 1], pt->dy[2 * c + 1]);
    const rowkey_t k = k0 < k1 ? k0 : k1;
    best[c] = k < best[c] ? k : best[c];
  }
}

/* Every column x searched along y in shrinking steps; the columns' winners
 * are the smallest keys of their columns, so the macroblock's guide winner
 * is the smallest of all. */
static void
mods_row (MESession * s, Scratch * scratch, unsigned mby)
{
  const int R = s->params->search_range;
  const int s1 = me_mods_first_step (R), k1 = me_mods_first_reach (R, s1);
  const int W = 2 * R + 1;
  uint64_t *first = g_new (uint64_t, (size_t) (2 * k1 + 1) * W);
  uint64_t *best = g_new (uint64_t, W);
  rowkey_t *col = g_new (rowkey_t, W);
  uint32_t *sad = g_new (uint32_t, W);
  int *y = g_new (int, W);
  Points pt = { g_new (ptrdiff_t, 2 * W), g_new (int, 2 * W),
    g_new (uint32_t, 2 * W)
  };
  Walk w;

  for (unsigned mbx = 0; mbx < s->field->mb_cols; mbx++) {
    walk_init (&w, s, scratch, mbx, mby);
    if (w.only16) {
      /* step 1 of every column: whole rows y = k s1 */
      for (int c = 0; c < W; c++)
        col[c] = (rowkey_t) -1;
      for (int k = -k1; k <= k1; k++) {
        w.dsp->sad16_row (scratch->cur, w.ref + (ptrdiff_t) k * s1 * w.stride
            - R, w.stride, W, sad);
        for (int c = 0; c < W; c++) {
          const rowkey_t key = mods_col_key (sad[c], k * s1);
          col[c] = key < col[c] ? key : col[c];
        }
      }
      for (int step = s1 / 2; step >= 1; step /= 2)
        mods_step_16 (&w, &pt, step, col);
      for (int c = 0; c < W; c++) {
        const uint64_t key = me_key ((uint32_t) (col[c] >> 10), c - R,
            mods_col_dy (col[c]));
        w.best[0] = key < w.best[0] ? key : w.best[0];
      }
      walk_store (&w, s, mbx, mby);
      continue;
    }
    /* step 1 of every column: whole rows y = k s1 */
    for (int k = -k1; k <= k1; k++)
      visit_row (&w, -R, k * s1, W, first + (size_t) (k + k1) * W);
    for (int c = 0; c < W; c++) {
      best[c] = ME_KEY_NONE;
      y[c] = 0;
      for (int k = -k1; k <= k1; k++) {
        const uint64_t key = first[(size_t) (k + k1) * W + c];
        if (key < best[c]) {
          best[c] = key;
          y[c] = k * s1;
        }
      }
    }
    for (int step = s1 / 2; step >= 1; step /= 2)
      for (int c = 0; c < W; c++) {
        const int y0 = y[c];
        for (int d = -step; d <= step; d += 2 * step) {
          const uint64_t key = visit_inside (&w, c - R, y0 + d);
          if (key < best[c]) {
            best[c] = key;
            y[c] = y0 + d;
          }
        }
      }
    walk_store (&w, s, mbx, mby);
  }
  g_free (pt.off);
  g_free (pt.dy);
  g_free (pt.sad);
  g_free (y);
  g_free (sad);
  g_free (col);
  g_free (best);
  g_free (first);
}

void
me_cpu_method_mods (MESession * s)
{
  me_cpu_run_parallel (s, mods_row, s->field->mb_rows);
}

/* ---- hierarchical -------------------------------------------------------- */

/* dst (w x h, rows dst_stride apart) = src decimated by two. */
static void
decimate (const pixel * src, ptrdiff_t src_stride, pixel * dst,
    ptrdiff_t dst_stride, unsigned w, unsigned h)
{
  for (unsigned y = 0; y < h; y++) {
    const pixel *a = src + (ptrdiff_t) 2 * y * src_stride, *b = a + src_stride;
    pixel *d = dst + (ptrdiff_t) y * dst_stride;
    for (unsigned x = 0; x < w; x++)
      d[x] = HIER_DECIMATE (a[2 * x], a[2 * x + 1], b[2 * x], b[2 * x + 1]);
  }
}

static unsigned
pad_for (unsigned reach)
{
  return (reach + 31) / 32 * 32;
}

/* Levels 1 and 2 of `p`, each with a border of at least its range plus
 * the refinement's reach. */
static void
plane_levels (PaddedPlane * p, unsigned range)
{
  const unsigned mb_cols = gst_motion_vector_mb_cols (p->width);
  const unsigned mb_rows = gst_motion_vector_mb_rows (p->height);
  const unsigned pad1 = pad_for (me_hier_range (range, 1) + ME_HIER_REFINE);
  const unsigned pad2 = pad_for (me_hier_range (range, 2));

  if (p->levels_valid && p->level[0]->pad >= pad1 && p->level[1]->pad >= pad2)
    return;
  const PaddedPlane *src = p;
  for (int l = 0; l < 2; l++) {
    const unsigned w = 16 * mb_cols >> (l + 1), h = 16 * mb_rows >> (l + 1);
    const unsigned per = 2 << l;        /* macroblocks per 16 samples */
    pixel *tmp = g_new (pixel, (size_t) w * h);
    decimate (src->origin, src->stride, tmp, w, w, h);
    if (!p->level[l])
      p->level[l] = g_new0 (PaddedPlane, 1);
    me_cpu_plane_fill (p->level[l], tmp, w, w, h, (mb_cols + per - 1) / per,
        (mb_rows + per - 1) / per, l == 0 ? pad1 : pad2);
    g_free (tmp);
    src = p->level[l];
  }
  p->levels_valid = TRUE;
}

/* Level 2: the 4x4 blocks of sixteen macroblocks at once.  A 16x16 block
 * of level 2 covers 4 x 4 macroblocks, each a 4x4 sub-block of it, so the
 * full search's window routine finds every one's smallest key (the 4x4
 * partitions) in one pass; the results go to s->guide. */
static void
coarse_row (MESession * s, Scratch * scratch, unsigned sby)
{
  const PaddedPlane *cl = s->cur->level[1], *rl = s->ref->level[1];
  const int R2 = me_hier_range (s->params->search_range, 2);
  const unsigned mb_cols = s->field->mb_cols, mb_rows = s->field->mb_rows;
  const int first4 = GST_MOTION_VECTOR_PARTITION_FIRST (6);
  uint64_t best[ME_DSP_N_PARTS];

  for (unsigned sbx = 0; sbx < (mb_cols + 3) / 4; sbx++) {
    for (int y = 0; y < 16; y++)
      pixel_copy (scratch->cur + 16 * y, cl->origin + (ptrdiff_t) (16 * sby
              + y) * cl->stride + 16 * sbx, 16);
    for (int k = 0; k < ME_DSP_N_PARTS; k++)
      best[k] = ME_KEY_NONE;
    me_cpu_search_window (&s->dsp, &s->coarse_ranks, scratch, scratch->cur,
        rl->origin + (ptrdiff_t) 16 * sby * rl->stride + 16 * sbx,
        rl->stride, R2, FALSE, best);
    for (int b = 0; b < 16; b++) {
      const unsigned mbx = 4 * sbx + (b & 3), mby = 4 * sby + (b >> 2);
      if (mbx >= mb_cols || mby >= mb_rows)
        continue;
      gint16 *g = s->guide + 2 * ((size_t) mby * mb_cols + mbx);
      g[0] = me_key_dx (best[first4 + b]);
      g[1] = me_key_dy (best[first4 + b]);
    }
  }
}

/* The centres of a macroblock's set at levels 1 and 0: the doubled
 * winners `v` of the level below of the macroblock (centre 0) and of its
 * neighbours inside the grid (1 .. 8), n of them, each once: a centre
 * equal to an earlier one adds nothing to the union of squares, and most
 * neighbours agree.  Returns n. */
static int
hier_centres (const MEField * f, const gint16 * v, unsigned mbx,
    unsigned mby, int cx[ME_HIER_CENTRES], int cy[ME_HIER_CENTRES])
{
  int n = 0;
  for (int i = 0; i < ME_HIER_CENTRES; i++) {
    const int x = (int) mbx + (i ? me_hier_neighbour (i - 1, 0) : 0);
    const int y = (int) mby + (i ? me_hier_neighbour (i - 1, 1) : 0);
    if (x < 0 || y < 0 || x >= (int) f->mb_cols || y >= (int) f->mb_rows)
      continue;
    const gint16 *at = v + 2 * ((size_t) y * f->mb_cols + x);
    const int vx = 2 * at[0], vy = 2 * at[1];
    int seen = 0;
    for (int j = 0; j < n; j++)
      seen |= cx[j] == vx && cy[j] == vy;
    cx[n] = vx;
    cy[n] = vy;
    n += !seen;
  }
  return n;
}

/* The vectors of one macroblock's set listed so far, one bit each over the
 * window [-R, R]^2, a row of words per dy, and the words set, to clear
 * them for the next macroblock: each member of the union of squares is
 * costed once. */
typedef struct {
  guint64 *bits;
  int R, words;
  guint32 touched[ME_HIER_SET_MAX];
  int n;
} VecSet;

static void
vecset_init (VecSet * v, int R)
{
  v->R = R;
  v->words = (2 * R + 1 + 63) / 64 + 1;    /* + 1: a run may cross a word */
  v->bits = g_new0 (guint64, (size_t) (2 * R + 1) * v->words);
  v->n = 0;
}

/* Lists the run (x0 + k, y), 0 <= k < n <= 32, inside the window; returns
 * the run's members that were not listed yet (bit k). */
static guint32
vecset_take (VecSet * v, int x0, int y, int n)
{
  const guint32 base = (guint32) ((y + v->R) * v->words);
  const unsigned b = (unsigned) (x0 + v->R), w = b >> 6, sh = b & 63;
  const guint64 want = (G_GUINT64_CONSTANT (1) << n) - 1;
  guint64 *row = v->bits + base;
  guint64 had = row[w] >> sh;

  row[w] |= want << sh;
  v->touched[v->n++] = base + w;
  if (sh + n > 64) {
    had |= row[w + 1] << (64 - sh);
    row[w + 1] |= want >> (64 - sh);
    v->touched[v->n++] = base + w + 1;
  }
  return (guint32) (~had & want);
}

static void
vecset_clear (VecSet * v)
{
  for (int i = 0; i < v->n; i++)
    v->bits[v->touched[i]] = 0;
  v->n = 0;
}

/* The same union as one 64-bit mask per row of the squares' bounding box,
 * when the box is at most 64 wide and SETBOX_ROWS tall, as it is where the
 * neighbours' winners lie close together: forming it costs an or per row of
 * each square, against the bit set's read-modify-write and bookkeeping. */
#define SETBOX_ROWS 64

typedef struct {
  int x0, y0, h;
  guint64 row[SETBOX_ROWS];
} SetBox;

/* Centre i's square is +-d[i] around (cx[i], cy[i]), clipped to [-R, R]^2.
 * Returns FALSE, leaving the caller to the bit set, when the box is too
 * large. */
static gboolean
setbox_build (SetBox * b, const int *cx, const int *cy, const int *d, int nc,
    int R)
{
  int x0 = R + 1, x1 = -R - 1, y0 = R + 1, y1 = -R - 1;

  for (int i = 0; i < nc; i++) {
    x0 = MIN (x0, MAX (cx[i] - d[i], -R));
    x1 = MAX (x1, MIN (cx[i] + d[i], R));
    y0 = MIN (y0, MAX (cy[i] - d[i], -R));
    y1 = MAX (y1, MIN (cy[i] + d[i], R));
  }
  if (x1 < x0 || y1 < y0) {
    b->h = 0;
    return TRUE;
  }
  if (x1 - x0 >= 64 || y1 - y0 >= SETBOX_ROWS)
    return FALSE;
  b->x0 = x0;
  b->y0 = y0;
  b->h = y1 - y0 + 1;
  memset (b->row, 0, sizeof (guint64) * b->h);
  for (int i = 0; i < nc; i++) {
    const int sx0 = MAX (cx[i] - d[i], -R), sx1 = MIN (cx[i] + d[i], R);
    const int sy0 = MAX (cy[i] - d[i], -R), sy1 = MIN (cy[i] + d[i], R);
    if (sx1 < sx0)
      continue;
    const guint64 m = ((G_GUINT64_CONSTANT (2) << (sx1 - sx0)) - 1)
        << (sx0 - x0);
    for (int y = sy0; y <= sy1; y++)
      b->row[y - y0] |= m;
  }
  return TRUE;
}

/* The smaller of `best` and the smallest key of n listed candidates
 * (xs[i], ys[i]) with costs sad[i] (16x16 or 8x8 SADs): the smallest cost
 * first, by the DSP's vector minimum with every rank 0, then the keys of
 * the candidates that have it (a larger cost loses whatever the vector,
 * me_cost.h). */
static uint64_t
best_of_points (const MEDsp * dsp, const uint32_t * sad, const int *xs,
    const int *ys, int n, uint64_t best)
{
  static const uint16_t no_rank[ME_HIER_SET_MAX];

  if (n == 0)
    return best;
  const uint32_t m = (uint32_t) (dsp->min_key (sad, no_rank, n) >> 16);
  if (m > me_key_cost (best))
    return best;
  for (int i = 0; i < n; i++)
    if (sad[i] == m) {
      const uint64_t key = me_key (m, xs[i], ys[i]);
      best = key < best ? key : best;
    }
  return best;
}

/* Level 1 of one macroblock row: the union of the squares around the
 * doubled level-2 winners, gathered and costed in one call of the DSP's
 * scattered 8x8 SADs; into s->level1. */
static void
level1_row (MESession * s, Scratch * scratch, unsigned mby)
{
  const PaddedPlane *cl = s->cur->level[0], *rl = s->ref->level[0];
  const int R1 = me_hier_range (s->params->search_range, 1);
  const MEField *f = s->field;
  ptrdiff_t off[ME_HIER_SET_MAX];
  int xs[ME_HIER_SET_MAX], ys[ME_HIER_SET_MAX];
  uint32_t sad[ME_HIER_SET_MAX];
  VecSet set;
  SetBox box;

  vecset_init (&set, R1);
  for (unsigned mbx = 0; mbx < f->mb_cols; mbx++) {
    const size_t me = (size_t) mby * f->mb_cols + mbx;
    const pixel *rb = rl->origin + (ptrdiff_t) 8 * mby * rl->stride + 8 * mbx;
    int cx[ME_HIER_CENTRES], cy[ME_HIER_CENTRES], dd[ME_HIER_CENTRES];
    int nc = hier_centres (f, s->guide, mbx, mby, cx, cy);
    uint64_t best = ME_KEY_NONE;
    pixel c[64];
    int n = 0;

    for (int y = 0; y < 8; y++)
      pixel_copy (c + 8 * y, cl->origin + ((ptrdiff_t) 8 * mby + y) * cl->stride
          + 8 * mbx, 8);
    for (int i = 0; i < nc; i++)
      dd[i] = i == 0 ? ME_HIER_REFINE : ME_HIER_NEIGHBOUR_REFINE;
    if (nc > 1 && setbox_build (&box, cx, cy, dd, nc, R1)) {
      for (int r = 0; r < box.h; r++) {
        const int y = box.y0 + r;
        for (guint64 m = box.row[r]; m; m &= m - 1) {
          const int x = box.x0 + __builtin_ctzll (m);
          off[n] = (ptrdiff_t) y * rl->stride + x;
          xs[n] = x;
          ys[n++] = y;
        }
      }
      nc = 0;
    }
    for (int i = 0; i < nc; i++) {
      const int d = i == 0 ? ME_HIER_REFINE : ME_HIER_NEIGHBOUR_REFINE;
      const int x0 = MAX (cx[i] - d, -R1), x1 = MIN (cx[i] + d, R1);
      for (int y = MAX (cy[i] - d, -R1); y <= MIN (cy[i] + d, R1)
          && x0 <= x1; y++) {
        /* with one centre the square is the set */
        guint32 fresh = nc > 1 ? vecset_take (&set, x0, y, x1 - x0 + 1)
            : (1u << (x1 - x0 + 1)) - 1;
        for (; fresh; fresh &= fresh - 1) {
          const int x = x0 + __builtin_ctz (fresh);
          off[n] = (ptrdiff_t) y * rl->stride + x;
          xs[n] = x;
          ys[n++] = y;
        }
      }
    }
    vecset_clear (&set);
    s->dsp.sad8x8_points (c, rb, rl->stride, n, off, sad);
    best = best_of_points (&s->dsp, sad, xs, ys, n, best);
    s->level1[2 * me] = me_key_dx (best);
    s->level1[2 * me + 1] = me_key_dy (best);
  }
  g_free (set.bits);
}

/* Level 0 of one macroblock row: the union of the squares around the
 * doubled level-1 winners, and the zero vector.  For 16x16 they are
 * gathered and costed in one call of the DSP's scattered SADs (which loads
 * the current block once); for more shapes by runs along rows. */
static void
level0_row (MESession * s, Scratch * scratch, unsigned mby)
{
  const int R = s->params->search_range;
  const MEField *f = s->field;
  uint64_t keys[64];
  ptrdiff_t off[ME_HIER_SET_MAX];
  int xs[ME_HIER_SET_MAX], dys[ME_HIER_SET_MAX];
  uint32_t sad[ME_HIER_SET_MAX];
  VecSet set;
  SetBox box;
  Walk w;

  vecset_init (&set, R);
  for (unsigned mbx = 0; mbx < f->mb_cols; mbx++) {
    int cx[ME_HIER_CENTRES + 1], cy[ME_HIER_CENTRES + 1];
    int dd[ME_HIER_CENTRES + 1];
    int nc = hier_centres (f, s->level1, mbx, mby, cx, cy);
    /* with one centre the set is its square and perhaps the zero vector,
     * and needs no bits */
    const gboolean one = nc == 1;

    /* the zero vector as a square of one after the others */
    if (!one || ABS (cx[0]) > ME_HIER_REFINE || ABS (cy[0]) > ME_HIER_REFINE) {
      cx[nc] = cy[nc] = 0;
      nc++;
    }
    walk_init (&w, s, scratch, mbx, mby);
    int n = 0;
    for (int i = 0; i < nc; i++)
      dd[i] = i == 0 ? ME_HIER_REFINE : i < nc - 1 ?
          ME_HIER_NEIGHBOUR_REFINE : 0;
    if (!one && setbox_build (&box, cx, cy, dd, nc, R)) {
      for (int r = 0; r < box.h; r++) {
        const int y = box.y0 + r;
        guint64 m = box.row[r];
        for (; w.only16 && m; m &= m - 1) {
          const int x = box.x0 + __builtin_ctzll (m);
          off[n] = (ptrdiff_t) y * w.stride + x;
          xs[n] = x;
          dys[n++] = y;
        }
        /* each run of members in one pass */
        while (m) {
          const int k = __builtin_ctzll (m);
          const guint64 gap = ~(m >> k);    /* 0 for a run of 64 */
          const int len = gap ? __builtin_ctzll (gap) : 64;
          visit_row (&w, box.x0 + k, y, len, keys);
          m &= ~(((G_GUINT64_CONSTANT (2) << (len - 1)) - 1) << k);
        }
      }
      nc = 0;
    }
    for (int i = 0; i < nc; i++) {
      const int d = dd[i];
      const int x0 = MAX (cx[i] - d, -R), x1 = MIN (cx[i] + d, R);
      for (int y = MAX (cy[i] - d, -R); y <= MIN (cy[i] + d, R) && x0 <= x1;
          y++) {
        guint32 fresh = one ? (1u << (x1 - x0 + 1)) - 1
            : vecset_take (&set, x0, y, x1 - x0 + 1);
        for (; w.only16 && fresh; fresh &= fresh - 1) {
          const int x = x0 + __builtin_ctz (fresh);
          off[n] = (ptrdiff_t) y * w.stride + x;
          xs[n] = x;
          dys[n++] = y;
        }
        /* each run of members not yet listed in one pass */
        while (fresh) {
          const int k = __builtin_ctz (fresh);
          int len = 0;
          while (fresh >> (k + len) & 1)
            len++;
          visit_row (&w, x0 + k, y, len, keys);
          fresh &= ~(((1u << len) - 1) << k);
        }
      }
    }
    vecset_clear (&set);
    if (n > 0) {
      s->dsp.sad16_points (scratch->cur, w.ref, w.stride, n, off, sad);
      w.best[0] = best_of_points (&s->dsp, sad, xs, dys, n, w.best[0]);
    }
    walk_store (&w, s, mbx, mby);
  }
  g_free (set.bits);
}

static void
ensure_guide (MESession * s)
{
  const size_t n = 2 * (size_t) s->field->mb_cols * s->field->mb_rows;
  if (n > s->guide_size) {
    g_free (s->guide);
    g_free (s->temporal);
    g_free (s->level1);
    s->guide = g_new0 (gint16, n);
    s->temporal = g_new0 (gint16, n);
    s->level1 = g_new0 (gint16, n);
    s->guide_size = n;
    s->temporal_valid = FALSE;
  }
}

void
me_cpu_method_hierarchical (MESession * s)
{
  const unsigned R = s->params->search_range;
  const unsigned R2 = me_hier_range (R, 2);

  ensure_guide (s);
  plane_levels (s->ref, R);
  plane_levels (s->cur, R);
  if (s->coarse_ranks.range != R2)
    me_cpu_rank_table_build (&s->coarse_ranks, R2);
  /* each level waits for the whole level below: neighbours' winners */
  me_cpu_run_parallel (s, coarse_row, (s->field->mb_rows + 3) / 4);
  me_cpu_run_parallel (s, level1_row, s->field->mb_rows);
  me_cpu_run_parallel (s, level0_row, s->field->mb_rows);
}

/* ---- predictive ---------------------------------------------------------- */

/* Macroblocks in raster order, rows shared out as a wavefront: a row waits
 * for the row above to finish the macroblock above and to the right of
 * each of its own, so every macroblock sees the same neighbours' guide
 * winners as a single raster pass. */
static void
predictive_row (MESession * s, Scratch * scratch, unsigned mby)
{
  const int R = s->params->search_range;
  const unsigned mb_cols = s->field->mb_cols, mb_rows = s->field->mb_rows;
  const gboolean temporal = s->chain && s->temporal_valid
      && s->temporal_cols == mb_cols && s->temporal_rows == mb_rows;
  Walk w;

  for (unsigned mbx = 0; mbx < mb_cols; mbx++) {
    if (mby > 0) {
      const gint need = MIN (mbx + 2, mb_cols);
      while (g_atomic_int_get (&s->progress[mby - 1]) < need)
        g_thread_yield ();
    }
    walk_init (&w, s, scratch, mbx, mby);

    int px[ME_PRED_MAX_PREDICTORS], py[ME_PRED_MAX_PREDICTORS], n = 0;
    const MEMvpredNeighbours nb = me_mvpred_neighbours (0, mbx, mby, mb_cols,
        mb_rows);
    const gint16 *g = s->guide;
    const gint16 *ga = g + 2 * MAX (nb.a, 0), *gb = g + 2 * MAX (nb.b, 0);
    const gint16 *gc = g + 2 * MAX (nb.c, 0);

    px[n] = 0;
    py[n++] = 0;
    me_mvpred_combine (0, mbx, mby, nb, ga[0], ga[1], gb[0], gb[1], gc[0],
        gc[1], &px[n], &py[n]);
    n++;
    if (nb.a >= 0) {
      px[n] = ga[0];
      py[n++] = ga[1];
    }
    if (nb.b >= 0) {
      px[n] = gb[0];
      py[n++] = gb[1];
    }
    if (nb.c >= 0) {
      px[n] = gc[0];
      py[n++] = gc[1];
    }
    if (temporal) {
      const gint16 *t = s->temporal + 2 * ((size_t) mby * mb_cols + mbx);
      px[n] = t[0];
      py[n++] = t[1];
      if (mbx + 1 < mb_cols) {
        px[n] = t[2];
        py[n++] = t[3];
      }
      if (mby + 1 < mb_rows) {
        px[n] = t[2 * mb_cols];
        py[n++] = t[2 * mb_cols + 1];
      }
    }
    /* the coarse predictors: this frame's level-2 winners, in s->level1 */
    for (int i = 0; i < ME_PRED_COARSE; i++) {
      const int x = (int) mbx + me_pred_coarse_offset (i, 0);
      const int y = (int) mby + me_pred_coarse_offset (i, 1);
      if (x < 0 || y < 0 || x >= (int) mb_cols || y >= (int) mb_rows)
        continue;
      const gint16 *c = s->level1 + 2 * ((size_t) y * mb_cols + x);
      px[n] = ME_PRED_COARSE_SCALE * c[0];
      py[n++] = ME_PRED_COARSE_SCALE * c[1];
    }
    /* the zero vector's neighbours */
    for (int oy = -1; oy <= 1; oy++)
      for (int ox = -1; ox <= 1; ox++)
        if (ox || oy) {
          px[n] = ox;
          py[n++] = oy;
        }

    for (int i = 0; i < n; i++) {
      px[i] = me_fast_clamp (px[i], R);
      py[i] = me_fast_clamp (py[i], R);
    }
    uint64_t best = visit_set (&w, px, py, n);
    for (int step = 0; step < ME_PRED_MAX_STEPS; step++) {
      const int cx = me_key_dx (best), cy = me_key_dy (best);
      int rx[8], ry[8], nr = 0;
      for (int oy = -1; oy <= 1; oy++)
        for (int ox = -1; ox <= 1; ox++)
          if ((ox || oy) && me_fast_inside (cx + ox, cy + oy, R)) {
            rx[nr] = cx + ox;
            ry[nr++] = cy + oy;
          }
      const uint64_t ring = visit_set (&w, rx, ry, nr);
      if (ring >= best)
        break;
      best = ring;
    }

    gint16 *out = s->guide + 2 * ((size_t) mby * mb_cols + mbx);
    out[0] = me_key_dx (best);
    out[1] = me_key_dy (best);
    walk_store (&w, s, mbx, mby);
    g_atomic_int_set (&s->progress[mby], mbx + 1);
  }
}

void
me_cpu_method_predictive (MESession * s)
{
  const unsigned rows = s->field->mb_rows;
  const unsigned R = s->params->search_range;
  const unsigned R2 = me_hier_range (R, 2);

  ensure_guide (s);
  /* the coarse predictors: hierarchical's level 2, whose pass writes its
   * winners to s->guide; they move to s->level1, which predictive does not
   * otherwise use */
  plane_levels (s->ref, R);
  plane_levels (s->cur, R);
  if (s->coarse_ranks.range != R2)
    me_cpu_rank_table_build (&s->coarse_ranks, R2);
  me_cpu_run_parallel (s, coarse_row, (rows + 3) / 4);
  gint16 *c = s->level1;
  s->level1 = s->guide;
  s->guide = c;
  if (rows > s->progress_size) {
    g_free (s->progress);
    s->progress = g_new (gint, rows);
    s->progress_size = rows;
  }
  for (unsigned y = 0; y < rows; y++)
    g_atomic_int_set (&s->progress[y], 0);
  me_cpu_run_parallel (s, predictive_row, rows);

  /* this frame's winners are the next frame's temporal predictors, unless
   * it was searched against another frame than its previous one */
  if (!s->chain)
    return;
  gint16 *t = s->temporal;
  s->temporal = s->guide;
  s->guide = t;
  s->temporal_valid = TRUE;
  s->temporal_cols = s->field->mb_cols;
  s->temporal_rows = rows;
}
