/* gpumotionest — checkasm: the fast methods written from docs/fast-search.md
 * alone, the plain way: per-pixel reads clamped to the picture, the
 * pyramid built level by level, every macroblock's visited set V listed
 * and then scanned for every partition.
 */
#include "config.h"

#include <stdlib.h>

#include "checkasm.h"
#include "fast_rules.h"
#include "me_cost.h"
#include "mvpred_rules.h"

typedef struct {
  const guint8 *data;
  ptrdiff_t stride;
  int w, h;
} Img;

static int
at (const Img * p, int x, int y)
{
  x = CLAMP (x, 0, p->w - 1);
  y = CLAMP (y, 0, p->h - 1);
  return p->data[(ptrdiff_t) y * p->stride + x];
}

static uint32_t
sad (const Img * cur, const Img * ref, int x0, int y0, int bw, int bh,
    int dx, int dy)
{
  uint32_t s = 0;
  for (int y = y0; y < y0 + bh; y++)
    for (int x = x0; x < x0 + bw; x++)
      s += abs (at (cur, x, y) - at (ref, x + dx, y + dy));
  return s;
}

static int
inside (int dx, int dy, int R)
{
  return abs (dx) <= R && abs (dy) <= R;
}

/* The visited set of one macroblock, and the guide winner so far. */
typedef struct {
  const Img *cur, *ref;
  int x0, y0;
  GArray *v;
} Walk;

static uint64_t
guide (Walk * w, int dx, int dy)
{
  int d[2] = { dx, dy };
  g_array_append_vals (w->v, d, 2);
  return me_key (sad (w->cur, w->ref, w->x0, w->y0, 16, 16, dx, dy), dx, dy);
}

static void
mods (Walk * w, int R)
{
  int s1 = 1;
  while (4 * s1 <= R)
    s1 *= 2;
  for (int x = -R; x <= R; x++) {
    uint64_t best = ME_KEY_NONE;
    for (int k = -3; k <= 3; k++)
      if (abs (k * s1) <= R)
        best = MIN (best, guide (w, x, k * s1));
    for (int s = s1 / 2; s >= 1; s /= 2) {
      const int y = me_key_dy (best);
      for (int d = -s; d <= s; d += 2 * s)
        if (inside (x, y + d, R))
          best = MIN (best, guide (w, x, y + d));
    }
  }
}

/* Level l + 1 of a level, as a new image of half the size. */
static Img
decimate (const Img * src)
{
  Img d = { NULL, src->w / 2, src->w / 2, src->h / 2 };
  guint8 *data = g_malloc ((size_t) d.w * d.h);
  for (int y = 0; y < d.h; y++)
    for (int x = 0; x < d.w; x++)
      data[y * d.w + x] = (at (src, 2 * x, 2 * y) + at (src, 2 * x + 1, 2 * y)
          + at (src, 2 * x, 2 * y + 1) + at (src, 2 * x + 1, 2 * y + 1) + 2)
          >> 2;
  d.data = data;
  return d;
}

/* Level 0 extended to whole macroblocks: the picture itself read through
 * at(), so only the size changes. */
static Img
level0 (const Img * p, int mb_cols, int mb_rows)
{
  Img d = { NULL, 16 * mb_cols, 16 * mb_cols, 16 * mb_rows };
  guint8 *data = g_malloc ((size_t) d.w * d.h);
  for (int y = 0; y < d.h; y++)
    for (int x = 0; x < d.w; x++)
      data[y * d.w + x] = at (p, x, y);
  d.data = data;
  return d;
}

/* Level 2's winner of every macroblock: the full search of its 4x4 block
 * over [-ceil(R / 4), ceil(R / 4)]^2 (hierarchical's first level, and
 * predictive's coarse predictors). */
static void
level2_winners (const Img cl[3], const Img rl[3], int mb_cols, int mb_rows,
    int R, int *v2)
{
  const int R2 = (R + 3) / 4;

  for (int mby = 0; mby < mb_rows; mby++)
    for (int mbx = 0; mbx < mb_cols; mbx++) {
      uint64_t b2 = ME_KEY_NONE;
      for (int dy = -R2; dy <= R2; dy++)
        for (int dx = -R2; dx <= R2; dx++)
          b2 = MIN (b2, me_key (sad (&cl[2], &rl[2], 4 * mbx, 4 * mby, 4, 4,
                      dx, dy), dx, dy));
      v2[2 * (mby * mb_cols + mbx)] = me_key_dx (b2);
      v2[2 * (mby * mb_cols + mbx) + 1] = me_key_dy (b2);
    }
}

/* Level 2's winner of every macroblock, then level 1's, each from the
 * whole level below (the neighbours' winners are candidates). */
static void
hierarchical_levels (const Img cl[3], const Img rl[3], int mb_cols,
    int mb_rows, int R, int *v2, int *v1)
{
  const int R1 = (R + 1) / 2;

  level2_winners (cl, rl, mb_cols, mb_rows, R, v2);
  for (int mby = 0; mby < mb_rows; mby++)
    for (int mbx = 0; mbx < mb_cols; mbx++) {
      uint64_t b1 = ME_KEY_NONE;
      /* ±3 around the macroblock's and each of its 8 neighbours' */
      for (int ny = -1; ny <= 1; ny++)
        for (int nx = -1; nx <= 1; nx++) {
          const int x = mbx + nx, y = mby + ny, d = 3;
          if (x < 0 || y < 0 || x >= mb_cols || y >= mb_rows)
            continue;
          const int *c = v2 + 2 * (y * mb_cols + x);
          for (int oy = -d; oy <= d; oy++)
            for (int ox = -d; ox <= d; ox++) {
              const int dx = 2 * c[0] + ox, dy = 2 * c[1] + oy;
              if (inside (dx, dy, R1))
                b1 = MIN (b1, me_key (sad (&cl[1], &rl[1], 8 * mbx, 8 * mby,
                            8, 8, dx, dy), dx, dy));
            }
        }
      v1[2 * (mby * mb_cols + mbx)] = me_key_dx (b1);
      v1[2 * (mby * mb_cols + mbx) + 1] = me_key_dy (b1);
    }
}

static void
hierarchical (Walk * w, const int *v1, int mbx, int mby, int mb_cols,
    int mb_rows, int R)
{
  for (int ny = -1; ny <= 1; ny++)
    for (int nx = -1; nx <= 1; nx++) {
      const int x = mbx + nx, y = mby + ny, d = 3;
      if (x < 0 || y < 0 || x >= mb_cols || y >= mb_rows)
        continue;
      const int *c = v1 + 2 * (y * mb_cols + x);
      for (int oy = -d; oy <= d; oy++)
        for (int ox = -d; ox <= d; ox++) {
          const int dx = 2 * c[0] + ox, dy = 2 * c[1] + oy;
          if (inside (dx, dy, R))
            guide (w, dx, dy);
        }
    }
  guide (w, 0, 0);
}

static void
predictive (Walk * w, const gint16 * g, const gint16 * t, const int *v2,
    int mbx, int mby, int mb_cols, int mb_rows, int R)
{
  const MEMvpredNeighbours n = me_mvpred_neighbours (0, mbx, mby, mb_cols,
      mb_rows);
  int ax = 0, ay = 0, bx = 0, by = 0, cx = 0, cy = 0, px, py;
  int cand[ME_PRED_MAX_PREDICTORS][2], nc = 0;

  if (n.a >= 0) {
    ax = g[2 * n.a];
    ay = g[2 * n.a + 1];
  }
  if (n.b >= 0) {
    bx = g[2 * n.b];
    by = g[2 * n.b + 1];
  }
  if (n.c >= 0) {
    cx = g[2 * n.c];
    cy = g[2 * n.c + 1];
  }
  me_mvpred_combine (0, mbx, mby, n, ax, ay, bx, by, cx, cy, &px, &py);
  cand[nc][0] = 0;
  cand[nc++][1] = 0;
  cand[nc][0] = px;
  cand[nc++][1] = py;
  if (n.a >= 0) {
    cand[nc][0] = ax;
    cand[nc++][1] = ay;
  }
  if (n.b >= 0) {
    cand[nc][0] = bx;
    cand[nc++][1] = by;
  }
  if (n.c >= 0) {
    cand[nc][0] = cx;
    cand[nc++][1] = cy;
  }
  if (t) {
    const int here[3][2] = { {mbx, mby}, {mbx + 1, mby}, {mbx, mby + 1} };
    for (int i = 0; i < 3; i++)
      if (here[i][0] < mb_cols && here[i][1] < mb_rows) {
        const gint16 *v = t + 2 * (here[i][1] * mb_cols + here[i][0]);
        cand[nc][0] = v[0];
        cand[nc++][1] = v[1];
      }
  }
  /* the coarse predictors: level 2's winners of the macroblocks that
   * fast_rules.h lists, scaled to level 0 */
  for (int i = 0; i < ME_PRED_COARSE; i++) {
    const int x = mbx + me_pred_coarse_offset (i, 0);
    const int y = mby + me_pred_coarse_offset (i, 1);
    if (x < 0 || y < 0 || x >= mb_cols || y >= mb_rows)
      continue;
    cand[nc][0] = ME_PRED_COARSE_SCALE * v2[2 * (y * mb_cols + x)];
    cand[nc++][1] = ME_PRED_COARSE_SCALE * v2[2 * (y * mb_cols + x) + 1];
  }
  /* the zero vector's eight neighbours */
  for (int oy = -1; oy <= 1; oy++)
    for (int ox = -1; ox <= 1; ox++)
      if (ox || oy) {
        cand[nc][0] = ox;
        cand[nc++][1] = oy;
      }
  uint64_t best = ME_KEY_NONE;
  for (int i = 0; i < nc; i++)
    best = MIN (best, guide (w, CLAMP (cand[i][0], -R, R),
            CLAMP (cand[i][1], -R, R)));
  for (int step = 0; step < 32; step++) {
    const int x = me_key_dx (best), y = me_key_dy (best);
    uint64_t next = best;
    for (int oy = -1; oy <= 1; oy++)
      for (int ox = -1; ox <= 1; ox++)
        if ((ox || oy) && inside (x + ox, y + oy, R))
          next = MIN (next, guide (w, x + ox, y + oy));
    if (next == best)
      break;
    best = next;
  }
}

void
checkasm_naive_fast (const guint8 * cur, const guint8 * ref, ptrdiff_t stride,
    unsigned w, unsigned h, const MESearchParams * params,
    const gint16 * temporal, gint16 * guide_out,
    uint64_t * winners[GST_MOTION_VECTOR_PARTITION_COUNT])
{
  const int R = params->search_range;
  const int mb_cols = gst_motion_vector_mb_cols (w);
  const int mb_rows = gst_motion_vector_mb_rows (h);
  const Img ci = { cur, stride, w, h }, ri = { ref, stride, w, h };
  Img cl[3] = { ci }, rl[3] = { ri };
  GArray *v = g_array_new (FALSE, FALSE, sizeof (int));
  int *v2 = g_new (int, 2 * mb_cols * mb_rows);
  int *v1 = g_new (int, 2 * mb_cols * mb_rows);

  const gboolean pyramid = params->method ==
      GST_MOTION_VECTOR_METHOD_HIERARCHICAL
      || params->method == GST_MOTION_VECTOR_METHOD_PREDICTIVE;
  if (pyramid) {
    Img c0 = level0 (&ci, mb_cols, mb_rows), r0 = level0 (&ri, mb_cols,
        mb_rows);
    cl[1] = decimate (&c0);
    rl[1] = decimate (&r0);
    cl[2] = decimate (&cl[1]);
    rl[2] = decimate (&rl[1]);
    g_free ((gpointer) c0.data);
    g_free ((gpointer) r0.data);
    if (params->method == GST_MOTION_VECTOR_METHOD_HIERARCHICAL)
      hierarchical_levels (cl, rl, mb_cols, mb_rows, R, v2, v1);
    else
      level2_winners (cl, rl, mb_cols, mb_rows, R, v2);
  }
  for (int mby = 0; mby < mb_rows; mby++)
    for (int mbx = 0; mbx < mb_cols; mbx++) {
      Walk wk = { &ci, &ri, 16 * mbx, 16 * mby, v };
      g_array_set_size (v, 0);
      switch (params->method) {
        case GST_MOTION_VECTOR_METHOD_MODS:
          mods (&wk, R);
          break;
        case GST_MOTION_VECTOR_METHOD_HIERARCHICAL:
          hierarchical (&wk, v1, mbx, mby, mb_cols, mb_rows, R);
          break;
        default:
          predictive (&wk, guide_out, temporal, v2, mbx, mby, mb_cols,
              mb_rows, R);
          break;
      }
      /* every requested shape: the smallest key over V of each cell */
      for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
        if (!winners[p])
          continue;
        const int bw = gst_motion_vector_partition_width (p);
        const int bh = gst_motion_vector_partition_height (p);
        const int cols = gst_motion_vector_grid_cols (p, mb_cols);
        for (int gy = 16 * mby / bh; gy < 16 * (mby + 1) / bh; gy++)
          for (int gx = 16 * mbx / bw; gx < 16 * (mbx + 1) / bw; gx++) {
            uint64_t best = ME_KEY_NONE;
            for (guint i = 0; i < v->len; i += 2) {
              const int dx = g_array_index (v, int, i);
              const int dy = g_array_index (v, int, i + 1);
              best = MIN (best, me_key (sad (&ci, &ri, gx * bw, gy * bh, bw,
                          bh, dx, dy), dx, dy));
            }
            winners[p][gy * cols + gx] = best;
          }
      }
      /* the guide winner: the 16x16 block's, over V */
      uint64_t g = ME_KEY_NONE;
      for (guint i = 0; i < v->len; i += 2) {
        const int dx = g_array_index (v, int, i);
        const int dy = g_array_index (v, int, i + 1);
        g = MIN (g, me_key (sad (&ci, &ri, 16 * mbx, 16 * mby, 16, 16, dx, dy),
                dx, dy));
      }
      guide_out[2 * (mby * mb_cols + mbx)] = me_key_dx (g);
      guide_out[2 * (mby * mb_cols + mbx) + 1] = me_key_dy (g);
    }
  for (int l = 1; l < 3; l++)
    if (pyramid) {
      g_free ((gpointer) cl[l].data);
      g_free ((gpointer) rl[l].data);
    }
  g_array_free (v, TRUE);
  g_free (v2);
  g_free (v1);
}
