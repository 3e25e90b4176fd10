/* gpumotionest — motion compensation, the C reference.
 *
 * Written for clarity over speed, sample by sample from mc_rules.h: every
 * other implementation is checked against it.  Work is gathered, not
 * scattered: each cell of the output (one block of the grid) sums the
 * predictions of the blocks whose windows reach it (itself and at most
 * eight neighbours, at most four at any sample), so cells are independent
 * and rows of cells run on as many threads as asked.
 */
#include "mc_impl.h"
#include "mc_rules.h"
#include "mc_warp_rules.h"

#include <string.h>

#define MC_MAX_CELL 16
#define MC_PATCH (MC_MAX_CELL + MC_TAP_BEFORE + MC_TAP_AFTER)

/* Sample (x, y) at data + y stride + x pstride (mc.h); writing it touches
 * its own byte or word alone, so interleaved neighbours stay as they are. */
static inline int
read_sample (const MCPlane * p, int x, int y)
{
  const uint8_t *s = p->data + (ptrdiff_t) y * p->stride
      + (ptrdiff_t) x * mc_plane_pstride (p);
  if (p->depth <= 8)
    return *s;
  return (*(const uint16_t *) s >> p->shift) & ((1 << p->depth) - 1);
}

static inline void
write_sample (MCPlane * p, int x, int y, int v)
{
  uint8_t *s = p->data + (ptrdiff_t) y * p->stride
      + (ptrdiff_t) x * mc_plane_pstride (p);
  if (p->depth <= 8)
    *s = (uint8_t) v;
  else
    *(uint16_t *) s = (uint16_t) (v << p->shift);
}

/* ---- the window of a cell's neighbours --------------------------------- */

/* The weights, along one direction, of the blocks k - 1, k, k + 1 at the
 * samples of cell k (from `start`, `len` samples), and for each the range
 * [lo, hi) where it is not zero (lo == hi: none).  Without obmc, the cell's
 * own block alone. */
typedef struct {
  int w[3][MC_MAX_CELL];
  int lo[3];
  int hi[3];
} Window1D;

static void
window_1d (Window1D * win, int n, int k, int count, int len, gboolean obmc)
{
  const int o = mc_obmc_margin (n);
  for (int d = 0; d < 3; d++) {
    const int b = k + d - 1;
    win->lo[d] = len;
    win->hi[d] = 0;
    for (int i = 0; i < len; i++) {
      int w = 0;
      if (!obmc)
        w = d == 1 ? MC_OBMC_ONE : 0;
      else if (b >= 0 && b < count) {
        const int j = k * n + i - (b * n - o);
        if (j >= 0 && j < n + 2 * o)
          w = mc_obmc_window (n, j, b == 0, b == count - 1);
      }
      win->w[d][i] = w;
      if (w) {
        win->lo[d] = MIN (win->lo[d], i);
        win->hi[d] = i + 1;
      }
    }
  }
}

/* ---- one block's prediction over part of a cell ------------------------ */

/* pred[(y - y0) * MC_MAX_CELL + (x - x0)] for x0 <= x < x1, y0 <= y < y1
 * (plane coordinates), predicted with vector (mvx, mvy) in quarter luma
 * samples; `chroma` picks the eighth-sample rule. */
static void
predict_rect (const MCPlane * ref, int x0, int y0, int x1, int y1, int mvx,
    int mvy, unsigned sub_x, unsigned sub_y, int *pred)
{
  const int W = ref->width, H = ref->height;
  uint16_t patch[MC_PATCH * MC_PATCH];
  if (!sub_x && !sub_y) {
    const int maxv = (1 << ref->depth) - 1;
    const int ix = x0 + (mvx >> 2) - MC_TAP_BEFORE;
    const int iy = y0 + (mvy >> 2) - MC_TAP_BEFORE;
    const int pw = x1 - x0 + MC_TAP_BEFORE + MC_TAP_AFTER;
    const int ph = y1 - y0 + MC_TAP_BEFORE + MC_TAP_AFTER;
    for (int y = 0; y < ph; y++)
      for (int x = 0; x < pw; x++)
        patch[y * MC_PATCH + x] = read_sample (ref, mc_clamp (ix + x, W),
            mc_clamp (iy + y, H));
    for (int y = y0; y < y1; y++)
      for (int x = x0; x < x1; x++)
        pred[(y - y0) * MC_MAX_CELL + x - x0] = mc_luma_qpel (patch
            + (y - y0 + MC_TAP_BEFORE) * MC_PATCH + x - x0 + MC_TAP_BEFORE,
            MC_PATCH, mvx & 3, mvy & 3, maxv);
    return;
  }
  const int cx = mc_chroma_mv8 (mvx, sub_x), cy = mc_chroma_mv8 (mvy, sub_y);
  const int ix = x0 + (cx >> 3), iy = y0 + (cy >> 3);
  const int fx = cx & 7, fy = cy & 7;
  for (int y = 0; y <= y1 - y0; y++)
    for (int x = 0; x <= x1 - x0; x++)
      patch[y * MC_PATCH + x] = read_sample (ref, mc_clamp (ix + x, W),
          mc_clamp (iy + y, H));
  for (int y = 0; y < y1 - y0; y++)
    for (int x = 0; x < x1 - x0; x++) {
      const uint16_t *p = patch + y * MC_PATCH + x;
      pred[y * MC_MAX_CELL + x] = mc_chroma_bilinear (p[0], p[1],
          p[MC_PATCH], p[MC_PATCH + 1], fx, fy);
    }
}


/* ---- prediction -------------------------------------------------------- */

typedef struct {
  const MCPlane *ref;
  MCPlane *out;
  const MCField *field;
  const MCGrid *grid;
  unsigned sub_x;
  unsigned sub_y;
  gboolean obmc;
} Predict;

static void
predict_row (gpointer data, unsigned r)
{
  const Predict *job = data;
  const MCGrid *g = job->grid;
  const size_t fstride = job->field->stride ? job->field->stride
      : job->field->cols;
  const int y0 = r * g->bh;
  const int h = MIN (g->bh, job->out->height - y0);
  Window1D wx, wy;
  int pred[MC_MAX_CELL * MC_MAX_CELL];
  uint32_t acc[MC_MAX_CELL * MC_MAX_CELL];

  window_1d (&wy, g->bh, r, g->nrows, h, job->obmc);
  for (unsigned c = 0; c < g->ncols; c++) {
    const int x0 = c * g->bw;
    const int w = MIN (g->bw, job->out->width - x0);
    window_1d (&wx, g->bw, c, g->ncols, w, job->obmc);
    memset (acc, 0, sizeof (acc));
    for (int dy = 0; dy < 3; dy++) {
      if (wy.lo[dy] >= wy.hi[dy])
        continue;
      for (int dx = 0; dx < 3; dx++) {
        if (wx.lo[dx] >= wx.hi[dx])
          continue;
        const GstMotionVectorCell *cell = job->field->cells
            + (size_t) (r + dy - 1) * fstride + (c + dx - 1);
        predict_rect (job->ref, x0 + wx.lo[dx], y0 + wy.lo[dy],
            x0 + wx.hi[dx], y0 + wy.hi[dy], cell->mv_x, cell->mv_y,
            job->sub_x, job->sub_y, pred);
        for (int y = wy.lo[dy]; y < wy.hi[dy]; y++)
          for (int x = wx.lo[dx]; x < wx.hi[dx]; x++)
            acc[y * MC_MAX_CELL + x] += (uint32_t) (wy.w[dy][y]
                * wx.w[dx][x]) * (uint32_t) pred[(y - wy.lo[dy])
                * MC_MAX_CELL + x - wx.lo[dx]];
      }
    }
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        write_sample (job->out, x0 + x, y0 + y,
            mc_obmc_round (acc[y * MC_MAX_CELL + x]));
  }
}

static gboolean
predict_plane_c (const MCPlane * ref, MCPlane * out, const MCField * field,
    const MCGrid * grid, unsigned sub_x, unsigned sub_y,
    const MCOptions * opt, GError ** error)
{
  Predict job = { ref, out, field, grid, sub_x, sub_y, opt->obmc };
  return mc_run_rows (predict_row, &job, grid->nrows, opt->threads, error);
}

/* ---- blend ------------------------------------------------------------- */

typedef struct {
  const MCPlane *a;
  const MCPlane *b;
  MCPlane *out;
  const uint8_t *weights;
  size_t wstride;
  const MCGrid *grid;
  gboolean obmc;
} Blend;

static void
blend_row (gpointer data, unsigned r)
{
  const Blend *job = data;
  const MCGrid *g = job->grid;
  const int y0 = r * g->bh;
  const int h = MIN (g->bh, job->out->height - y0);
  Window1D wx, wy;
  uint32_t acc[MC_MAX_CELL * MC_MAX_CELL];

  window_1d (&wy, g->bh, r, g->nrows, h, job->obmc);
  for (unsigned c = 0; c < g->ncols; c++) {
    const int x0 = c * g->bw;
    const int w = MIN (g->bw, job->out->width - x0);
    window_1d (&wx, g->bw, c, g->ncols, w, job->obmc);
    memset (acc, 0, sizeof (acc));
    for (int dy = 0; dy < 3; dy++)
      for (int dx = 0; dx < 3; dx++) {
        if (wy.lo[dy] >= wy.hi[dy] || wx.lo[dx] >= wx.hi[dx])
          continue;
        const uint32_t bw = job->weights[(size_t) (r + dy - 1) * job->wstride
            + c + dx - 1];
        for (int y = wy.lo[dy]; y < wy.hi[dy]; y++)
          for (int x = wx.lo[dx]; x < wx.hi[dx]; x++)
            acc[y * MC_MAX_CELL + x] += (uint32_t) (wy.w[dy][y]
                * wx.w[dx][x]) * bw;
      }
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const int wa = mc_blend_weight (acc[y * MC_MAX_CELL + x]);
        write_sample (job->out, x0 + x, y0 + y, mc_blend_sample (read_sample
                (job->a, x0 + x, y0 + y), read_sample (job->b, x0 + x,
                    y0 + y), wa));
      }
  }
}

static gboolean
blend_plane_c (const MCPlane * a, const MCPlane * b, MCPlane * out,
    const uint8_t * weights, size_t wstride, const MCGrid * grid,
    const MCOptions * opt, GError ** error)
{
  Blend job = { a, b, out, weights, wstride, grid, opt->obmc };
  return mc_run_rows (blend_row, &job, grid->nrows, opt->threads, error);
}

/* ---- denoising --------------------------------------------------------- */

typedef struct {
  const MCPlane *cur;
  const MCPlane *const *preds;
  const uint8_t *const *weights;
  unsigned n;
  size_t wstride;
  MCPlane *out;
  const MCGrid *grid;
  gboolean obmc;
} Denoise;

static void
denoise_row (gpointer data, unsigned r)
{
  const Denoise *job = data;
  const MCGrid *g = job->grid;
  const int y0 = r * g->bh;
  const int h = MIN (g->bh, job->out->height - y0);
  Window1D wx, wy;
  /* each prediction's window-weighted block weights, as blend_row() sums
   * its one */
  uint32_t acc[MC_DENOISE_MAX_REFS][MC_MAX_CELL * MC_MAX_CELL];

  window_1d (&wy, g->bh, r, g->nrows, h, job->obmc);
  for (unsigned c = 0; c < g->ncols; c++) {
    const int x0 = c * g->bw;
    const int w = MIN (g->bw, job->out->width - x0);
    window_1d (&wx, g->bw, c, g->ncols, w, job->obmc);
    memset (acc, 0, sizeof (acc));
    for (unsigned i = 0; i < job->n; i++)
      for (int dy = 0; dy < 3; dy++)
        for (int dx = 0; dx < 3; dx++) {
          if (wy.lo[dy] >= wy.hi[dy] || wx.lo[dx] >= wx.hi[dx])
            continue;
          const uint32_t bw = job->weights[i][(size_t) (r + dy - 1)
              * job->wstride + c + dx - 1];
          for (int y = wy.lo[dy]; y < wy.hi[dy]; y++)
            for (int x = wx.lo[dx]; x < wx.hi[dx]; x++)
              acc[i][y * MC_MAX_CELL + x] += (uint32_t) (wy.w[dy][y]
                  * wx.w[dx][x]) * bw;
        }
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        uint32_t sum = MC_BLEND_ONE * (uint32_t) read_sample (job->cur, x0 + x,
            y0 + y);
        uint32_t wsum = MC_BLEND_ONE;
        for (unsigned i = 0; i < job->n; i++) {
          const uint32_t wi = (uint32_t) mc_blend_weight
              (acc[i][y * MC_MAX_CELL + x]);
          sum += wi * (uint32_t) read_sample (job->preds[i], x0 + x, y0 + y);
          wsum += wi;
        }
        write_sample (job->out, x0 + x, y0 + y, mc_denoise_sample (sum,
                wsum));
      }
  }
}

static gboolean
denoise_plane_c (const MCPlane * cur, const MCPlane * const *preds,
    const uint8_t * const *weights, unsigned n_refs, size_t wstride,
    MCPlane * out, const MCGrid * grid, const MCOptions * opt,
    GError ** error)
{
  Denoise job = { cur, preds, weights, n_refs, wstride, out, grid,
    opt->obmc
  };
  return mc_run_rows (denoise_row, &job, grid->nrows, opt->threads, error);
}

/* ---- the spatial pass -------------------------------------------------- */

typedef struct {
  const MCPlane *in;
  MCPlane *out;
  int radius, threshold;
} Sigma;

static void
sigma_row (gpointer data, unsigned r)
{
  const Sigma *job = data;
  const int W = (int) job->in->width, H = (int) job->in->height;
  const int y = (int) r, rad = job->radius;
  for (int x = 0; x < W; x++) {
    const int c = read_sample (job->in, x, y);
    uint32_t sum = 0, n = 0;
    for (int yy = MAX (y - rad, 0); yy <= MIN (y + rad, H - 1); yy++)
      for (int xx = MAX (x - rad, 0); xx <= MIN (x + rad, W - 1); xx++) {
        const int v = read_sample (job->in, xx, yy);
        if (mc_sigma_counts (v, c, job->threshold)) {
          sum += (uint32_t) v;
          n++;
        }
      }
    write_sample (job->out, x, y, mc_denoise_sample (sum, n));
  }
}

static gboolean
sigma_filter_plane_c (const MCPlane * in, MCPlane * out, unsigned radius,
    unsigned threshold, gboolean last, const MCOptions * opt, GError ** error)
{
  (void) last;
  Sigma job = { in, out, (int) radius, (int) threshold };
  return mc_run_rows (sigma_row, &job, in->height, opt->threads, error);
}

/* ---- bilateral costs --------------------------------------------------- */

typedef struct {
  const MCPlane *prev;
  const MCPlane *next;
  const MCGrid *grid;
  const MCBiCand *cand;
  unsigned k;
  uint32_t *costs;
} Bilateral;

static void
bilateral_row (gpointer data, unsigned r)
{
  const Bilateral *job = data;
  const MCGrid *g = job->grid;
  const int W = job->prev->width, H = job->prev->height;
  const int y0 = r * g->bh;
  const int y1 = MIN (y0 + (int) g->bh, H);
  for (unsigned c = 0; c < g->ncols; c++) {
    const int x0 = c * g->bw;
    const int x1 = MIN (x0 + (int) g->bw, W);
    const size_t i = ((size_t) r * g->ncols + c) * job->k;
    for (unsigned j = 0; j < job->k; j++) {
      const MCBiCand *cd = &job->cand[i + j];
      uint32_t sum = 0;
      for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
          const int a = read_sample (job->prev, mc_bi_pos (x, cd->ax, W),
              mc_bi_pos (y, cd->ay, H));
          const int b = read_sample (job->next, mc_bi_pos (x, cd->bx, W),
              mc_bi_pos (y, cd->by, H));
          sum += (uint32_t) (a > b ? a - b : b - a);
        }
      job->costs[i + j] = sum;
    }
  }
}

static gboolean
bilateral_costs_c (const MCPlane * prev, const MCPlane * next,
    const MCGrid * grid, const MCBiCand * cand, unsigned k, uint32_t * costs,
    const MCOptions * opt, GError ** error)
{
  Bilateral job = { prev, next, grid, cand, k, costs };
  return mc_run_rows (bilateral_row, &job, grid->nrows, opt->threads, error);
}

/* ---- warp ----------------------------------------------------------- */

/* Rows of MC_WARP_ROWS output lines, one a job. */
#define MC_WARP_ROWS 16

typedef struct {
  const MCPlane *in;
  MCPlane *out;
  const MCWarp *w;
} Warp;

static void
warp_row (gpointer data, unsigned r)
{
  const Warp *job = data;
  const MCWarp *w = job->w;
  const int W = job->in->width, H = job->in->height;
  const unsigned y1 = MIN ((r + 1) * MC_WARP_ROWS, job->out->height);
  for (unsigned y = r * MC_WARP_ROWS; y < y1; y++) {
    /* the position at x = 0, then a step of (xx, yx) a sample: the same
     * integers as mc_warp_pos() at each x */
    int64_t px = mc_warp_pos (w->xx, w->xy, w->x0, 0, (int) y);
    int64_t py = mc_warp_pos (w->yx, w->yy, w->y0, 0, (int) y);
    for (unsigned x = 0; x < job->out->width; x++) {
      int x0, x1, y0, y1_, fx, fy;
      mc_warp_taps (px, W, &x0, &x1, &fx);
      mc_warp_taps (py, H, &y0, &y1_, &fy);
      write_sample (job->out, (int) x, (int) y, mc_warp_bilinear (
              read_sample (job->in, x0, y0), read_sample (job->in, x1, y0),
              read_sample (job->in, x0, y1_), read_sample (job->in, x1, y1_),
              fx, fy));
      px += w->xx;
      py += w->yx;
    }
  }
}

static gboolean
warp_plane_c (const MCPlane * in, MCPlane * out, const MCWarp * w,
    const MCOptions * opt, GError ** error)
{
  Warp job = { in, out, w };
  return mc_run_rows (warp_row, &job, (out->height + MC_WARP_ROWS - 1)
      / MC_WARP_ROWS, opt->threads, error);
}

const MCImpl *
mc_impl_c (void)
{
  static const MCImpl impl = { "c", FALSE, predict_plane_c, blend_plane_c,
    NULL, bilateral_costs_c, denoise_plane_c, NULL, warp_plane_c,
    sigma_filter_plane_c
  };
  return &impl;
}
