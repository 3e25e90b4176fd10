/* gpumotionest — the partition and reference decision; see ref_decision.h
 * and docs/references.md.
 *
 * Definition:
 *
 *   1. Each requested shape p is weighed as if the whole frame were coded
 *      with it (the uniform grids of mvpred_rules.h), macroblocks in
 *      raster order and partitions in decoding order (luma4x4BlkIdx of
 *      their top-left block).
 *   2. A partition's reference is one ref_idx: for 16x16, 16x8, 8x16 and
 *      8x8 each partition has its own; the sub-macroblock partitions of
 *      8x4, 4x8 and 4x4 share the ref_idx of their 8x8 (clause 7.3.5.2),
 *      so those are decided an 8x8 at a time.
 *   3. The cost of reference k for such a unit: lambda x te(k), plus for
 *      each of its cells in decoding order the distortion of reference
 *      k's vector (the cell's cost less lambda x the bits of the MVD it
 *      was costed with) plus lambda x the bits of that vector's MVD
 *      against the clause 8.4.1.3 prediction from the neighbours as
 *      decided (earlier cells of the unit with reference k).
 *   4. The unit takes the reference of smallest cost, the earlier one on
 *      a tie.  A macroblock's cost for shape p is the sum over its units
 *      plus lambda x the bits of its macroblock type (mode_decision.h);
 *      it takes the shape of smallest cost, the larger partition on a tie.
 *
 * In 64 bits: 16 cells of 32-bit costs and rate terms of at most 65535 x
 * (50 + 25) bits each cannot overflow.
 */
#include <string.h>

#include "ref_decision.h"
#include "mode_decision.h"
#include "mvpred_rules.h"
#include "me_rate.h"

unsigned
me_ref_idx_bits (unsigned k, unsigned n)
{
  unsigned bits = 0;

  if (n <= 1)
    return 0;
  if (n == 2)
    return 1;
  for (k++; k > 1; k >>= 1)
    bits++;
  return 2 * bits + 1;
}

void
me_mvpred_combine_refs (int p, int gx, int gy, int ra, int rb, int rc,
    int ref, int ax, int ay, int bx, int by, int cx, int cy, int *px,
    int *py)
{
  if (ra < 0)
    ax = ay = 0;
  if (rb < 0)
    bx = by = 0;
  if (rc < 0)
    cx = cy = 0;
  /* 8.4.1.3, directional: the named neighbour when its reference is the
   * partition's */
  if (p == 1 && !(gy & 1) && rb == ref) {
    *px = bx, *py = by;
    return;
  }
  if (p == 1 && (gy & 1) && ra == ref) {
    *px = ax, *py = ay;
    return;
  }
  if (p == 2 && !(gx & 1) && ra == ref) {
    *px = ax, *py = ay;
    return;
  }
  if (p == 2 && (gx & 1) && rc == ref) {
    *px = cx, *py = cy;
    return;
  }
  /* 8.4.1.3.1: B and C unavailable, A available: B and C are A */
  if (rb < 0 && rc < 0 && ra >= 0) {
    bx = cx = ax;
    by = cy = ay;
    rb = rc = ra;
  }
  /* exactly one neighbour of the same reference: its vector */
  if ((ra == ref) + (rb == ref) + (rc == ref) == 1) {
    *px = ra == ref ? ax : rb == ref ? bx : cx;
    *py = ra == ref ? ay : rb == ref ? by : cy;
    return;
  }
  *px = me_mvpred_median3 (ax, bx, cx);
  *py = me_mvpred_median3 (ay, by, cy);
}

/* The decision of one shape over the frame (clauses 1 to 4 but the
 * choice of shape): each cell's reference in `cell_ref`, each
 * macroblock's cost in `mb_cost`. */
typedef struct {
  const GstMotionVectorCell *const (*fields)[GST_MOTION_VECTOR_PARTITION_COUNT];
  unsigned n_refs, mb_cols, mb_rows, lambda;
  int p, w, h, cols;
  gint8 *cell_ref;              /* -1: not decided yet */
} ShapePass;

static const GstMotionVectorCell *
cell_of (const ShapePass * s, unsigned k, int i)
{
  return &s->fields[k][s->p][i];
}

/* Cost of reference k for the cells unit[0 .. n - 1] (clause 3). */
static guint64
unit_cost (ShapePass * s, const int *unit, const int *unit_g, int n,
    unsigned k)
{
  guint64 sum = (guint64) s->lambda * me_ref_idx_bits (k, s->n_refs);

  for (int u = 0; u < n; u++) {
    const int i = unit[u], gx = unit_g[2 * u], gy = unit_g[2 * u + 1];
    const GstMotionVectorCell *c = cell_of (s, k, i);
    const MEMvpredNeighbours nb = me_mvpred_neighbours (s->p, gx, gy,
        s->mb_cols, s->mb_rows);
    const int ni[3] = { nb.a, nb.b, nb.c };
    int r[3], vx[3], vy[3], px, py;
    guint64 d = c->cost;

    if (s->lambda)
      d -= (guint64) s->lambda * (me_se_bits (c->mvd_x)
          + me_se_bits (c->mvd_y));
    for (int j = 0; j < 3; j++) {
      r[j] = -1;
      vx[j] = vy[j] = 0;
      if (ni[j] < 0)
        continue;
      /* an earlier cell of this unit is tried with k too */
      r[j] = s->cell_ref[ni[j]];
      for (int v = 0; v < u; v++)
        if (unit[v] == ni[j])
          r[j] = (int) k;
      if (r[j] >= 0) {
        vx[j] = cell_of (s, r[j], ni[j])->mv_x;
        vy[j] = cell_of (s, r[j], ni[j])->mv_y;
      }
    }
    me_mvpred_combine_refs (s->p, gx, gy, r[0], r[1], r[2], (int) k, vx[0],
        vy[0], vx[1], vy[1], vx[2], vy[2], &px, &py);
    sum += d + (guint64) s->lambda * (me_se_bits (c->mv_x - px)
        + me_se_bits (c->mv_y - py));
  }
  return sum;
}

static void
shape_pass (ShapePass * s, guint64 * mb_cost)
{
  const int per_x = 16 / s->w, per_y = 16 / s->h;
  const gboolean sub8x8 = s->p >= GST_MOTION_VECTOR_PARTITION_8X4;

  for (unsigned my = 0; my < s->mb_rows; my++)
    for (unsigned mx = 0; mx < s->mb_cols; mx++) {
      int order[16], g[32], n = 0;
      guint64 total = (guint64) s->lambda
          * me_mode_type_bits ((GstMotionVectorPartition) s->p);

      /* the macroblock's cells in decoding order */
      for (int b = 0; b < 16; b++)
        for (int cy = 0; cy < per_y; cy++)
          for (int cx = 0; cx < per_x; cx++)
            if (me_mvpred_blk4x4 (cx * s->w, cy * s->h) == b) {
              const int gx = mx * per_x + cx, gy = my * per_y + cy;
              order[n] = gy * s->cols + gx;
              g[2 * n] = gx;
              g[2 * n + 1] = gy;
              n++;
            }
      /* units: one cell each, or the cells of one 8x8 (clause 2), which
       * are consecutive in decoding order */
      for (int u0 = 0; u0 < n;) {
        const int len = sub8x8 ? n / 4 : 1;
        guint64 best = G_MAXUINT64;
        unsigned best_k = 0;

        for (unsigned k = 0; k < s->n_refs; k++) {
          const guint64 c = unit_cost (s, order + u0, g + 2 * u0, len, k);
          if (c < best) {
            best = c;
            best_k = k;
          }
        }
        for (int u = u0; u < u0 + len; u++)
          s->cell_ref[order[u]] = (gint8) best_k;
        total += best;
        u0 += len;
      }
      mb_cost[my * s->mb_cols + mx] = total;
    }
}

void
me_ref_decide (const GstMotionVectorCell *
    const fields[][GST_MOTION_VECTOR_PARTITION_COUNT], unsigned n_refs,
    unsigned mb_cols, unsigned mb_rows, unsigned lambda, guint8 * modes,
    guint8 * refs)
{
  const gsize n_mb = (gsize) mb_cols * mb_rows;
  guint64 *best_cost = g_new (guint64, n_mb), *cost = g_new (guint64, n_mb);
  const unsigned bcols = 4 * mb_cols;

  g_return_if_fail (n_refs >= 1 && n_refs <= ME_REF_DECISION_MAX);
  memset (modes, 0xff, n_mb);   /* no shape yet */
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    ShapePass s = { fields, n_refs, mb_cols, mb_rows, lambda, p,
      GST_MOTION_VECTOR_PARTITION_W (p), GST_MOTION_VECTOR_PARTITION_H (p),
      0, NULL
    };

    if (!fields[0][p])
      continue;
    s.cols = gst_motion_vector_grid_cols (p, mb_cols);
    s.cell_ref = g_malloc ((gsize) s.cols * gst_motion_vector_grid_rows (p,
            mb_rows));
    memset (s.cell_ref, -1, (gsize) s.cols * gst_motion_vector_grid_rows (p,
            mb_rows));
    shape_pass (&s, cost);
    /* clause 4: enum order, strictly smaller replaces */
    for (gsize m = 0; m < n_mb; m++) {
      const unsigned mx = m % mb_cols, my = m / mb_cols;
      if (modes[m] == 0xff || cost[m] < best_cost[m]) {
        best_cost[m] = cost[m];
        modes[m] = (guint8) p;
        for (int by = 0; by < 4; by++)
          for (int bx = 0; bx < 4; bx++) {
            const int gx = (mx * 16 + bx * 4) / s.w;
            const int gy = (my * 16 + by * 4) / s.h;
            refs[(gsize) (my * 4 + by) * bcols + mx * 4 + bx] =
                (guint8) s.cell_ref[gy * s.cols + gx];
          }
      }
    }
    g_free (s.cell_ref);
  }
  g_free (best_cost);
  g_free (cost);
}
