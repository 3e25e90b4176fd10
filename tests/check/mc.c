/* gpumotionest — motion compensation (kernels/mc), rule by rule.
 *
 * Hand-worked values pin the chroma bilinear, the vector scaling and the
 * cost weights to numbers; the luma is compared with the search's own
 * half samples (subpel_rules.h) on an edge-padded copy, the way the search
 * reads them; whole planes are compared with a naive per-sample version
 * written from mc_rules.h (every block's window at every sample, no
 * cells, no patches).  Interleaved planes (MCPlane.pstride: NV12, P010)
 * leave their neighbours alone and give the planar layout's samples.
 */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mc.h"
#include "mc_rules.h"
#include "mc_warp_rules.h"
#include "subpel_rules.h"

/* ---- planes and fields ------------------------------------------------- */

typedef struct {
  MCPlane p;
  guint8 *buf;
} TPlane;

static void
tplane_init (TPlane * t, unsigned w, unsigned h, unsigned depth,
    unsigned shift)
{
  const unsigned bps = depth > 8 ? 2 : 1;
  /* a stride wider than the row, so a row read past its end shows */
  t->p.stride = (ptrdiff_t) ((w + 3) * bps);
  t->buf = g_malloc0 ((size_t) t->p.stride * h);
  t->p.data = t->buf;
  t->p.width = w;
  t->p.height = h;
  t->p.depth = depth;
  t->p.shift = shift;
  t->p.pstride = 0;
}

static void
tplane_clear (TPlane * t)
{
  g_free (t->buf);
}

/* Sample (x, y), pixel stride included (0: the sample's size). */
static guint8 *
at (const MCPlane * p, int x, int y)
{
  const int bps = p->depth > 8 ? 2 : 1;
  return p->data + y * p->stride + x * (p->pstride ? (int) p->pstride : bps);
}

static int
get (const MCPlane * p, int x, int y)
{
  const guint8 *s = at (p, x, y);
  if (p->depth == 8)
    return *s;
  return (*(const guint16 *) s >> p->shift) & ((1 << p->depth) - 1);
}

static void
set (MCPlane * p, int x, int y, int v)
{
  guint8 *s = at (p, x, y);
  if (p->depth == 8)
    *s = v;
  else
    *(guint16 *) s = v << p->shift;
}

static void
fill_random (MCPlane * p, GRand * rand)
{
  for (unsigned y = 0; y < p->height; y++)
    for (unsigned x = 0; x < p->width; x++)
      set (p, x, y, g_rand_int_range (rand, 0, 1 << p->depth));
}

static void
assert_planes_equal (const MCPlane * a, const MCPlane * b)
{
  for (unsigned y = 0; y < a->height; y++)
    for (unsigned x = 0; x < a->width; x++)
      if (get (a, x, y) != get (b, x, y))
        g_error ("sample (%u, %u): %d, expected %d", x, y, get (a, x, y),
            get (b, x, y));
}

typedef struct {
  MCField f;
  GstMotionVectorCell *cells;
} TField;

static void
tfield_init (TField * t, unsigned bw, unsigned bh, unsigned cols,
    unsigned rows, int mvx, int mvy)
{
  t->cells = g_new0 (GstMotionVectorCell, cols * rows);
  for (unsigned i = 0; i < cols * rows; i++) {
    t->cells[i].mv_x = mvx;
    t->cells[i].mv_y = mvy;
  }
  t->f = (MCField) { bw, bh, cols, rows, 0, t->cells };
}

static MCOptions
opts (gboolean obmc, unsigned threads)
{
  MCOptions o;
  mc_options_init (&o);
  o.obmc = obmc;
  o.threads = threads;
  return o;
}

static void
predict_ok (const MCPlane * ref, MCPlane * out, const MCField * f,
    unsigned sx, unsigned sy, gboolean obmc)
{
  GError *err = NULL;
  MCOptions o = opts (obmc, 1);
  gboolean ok = mc_predict_plane (ref, out, f, sx, sy, &o, &err);
  g_assert_no_error (err);
  g_assert_true (ok);
}

/* ---- the naive version ------------------------------------------------- */

/* The sample at (x, y) predicted with (mvx, mvy), from the rules: luma by
 * the search's quarter sample over a clamped 7x7 neighbourhood, chroma by
 * the bilinear over clamped corners. */
static int
naive_sample (const MCPlane * ref, int x, int y, int mvx, int mvy,
    unsigned sx, unsigned sy)
{
  const int W = ref->width, H = ref->height;
  if (!sx && !sy) {
    guint16 n[7 * 7];
    for (int j = 0; j < 7; j++)
      for (int i = 0; i < 7; i++)
        n[j * 7 + i] = get (ref, mc_clamp (x + (mvx >> 2) + i - 2, W),
            mc_clamp (y + (mvy >> 2) + j - 2, H));
    return mc_luma_qpel (n + 2 * 7 + 2, 7, mvx & 3, mvy & 3,
        (1 << ref->depth) - 1);
  }
  const int cx = sx ? mvx : 2 * mvx, cy = sy ? mvy : 2 * mvy;
  const int ix = x + (cx >> 3), iy = y + (cy >> 3);
  return mc_chroma_bilinear (get (ref, mc_clamp (ix, W), mc_clamp (iy, H)),
      get (ref, mc_clamp (ix + 1, W), mc_clamp (iy, H)),
      get (ref, mc_clamp (ix, W), mc_clamp (iy + 1, H)),
      get (ref, mc_clamp (ix + 1, W), mc_clamp (iy + 1, H)), cx & 7, cy & 7);
}

/* Window of block b (of `count`, n samples long) at sample s: 0 outside. */
static int
naive_window (int n, int count, int b, int s, gboolean obmc)
{
  if (!obmc)
    return s / n == b ? MC_OBMC_ONE : 0;
  const int o = mc_obmc_margin (n), j = s - b * n + o;
  if (j < 0 || j >= n + 2 * o)
    return 0;
  return mc_obmc_window (n, j, b == 0, b == count - 1);
}

static void
naive_predict (const MCPlane * ref, MCPlane * out, const MCField * f,
    unsigned sx, unsigned sy, gboolean obmc)
{
  const int bw = f->block_w >> sx, bh = f->block_h >> sy;
  const int ncols = (ref->width + bw - 1) / bw;
  const int nrows = (ref->height + bh - 1) / bh;
  for (unsigned y = 0; y < ref->height; y++)
    for (unsigned x = 0; x < ref->width; x++) {
      guint64 acc = 0, total = 0;
      for (int r = 0; r < nrows; r++)
        for (int c = 0; c < ncols; c++) {
          const guint64 w = (guint64) naive_window (bw, ncols, c, x, obmc)
              * naive_window (bh, nrows, r, y, obmc);
          if (!w)
            continue;
          const GstMotionVectorCell *cell = &f->cells[r * f->cols + c];
          acc += w * naive_sample (ref, x, y, cell->mv_x, cell->mv_y, sx, sy);
          total += w;
        }
      g_assert_cmpuint (total, ==, 1u << MC_OBMC_BITS2);
      set (out, x, y, (int) ((acc + (1u << (MC_OBMC_BITS2 - 1)))
              >> MC_OBMC_BITS2));
    }
}

/* ---- the tests --------------------------------------------------------- */

/* A zero field gives the reference back, every plane, every depth, with
 * and without overlap, sizes that are no multiple of the blocks. */
static void
test_zero_field (void)
{
  GRand *rand = g_rand_new_with_seed (1);
  static const unsigned depths[] = { 8, 10, 16 };
  for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++)
    for (unsigned obmc = 0; obmc < 2; obmc++) {
      MCPicture ref = { MC_CHROMA_420 }, out = { MC_CHROMA_420 };
      TPlane rp[3], op[3];
      for (int i = 0; i < 3; i++) {
        const unsigned w = i ? 19 : 37, h = i ? 12 : 23;
        tplane_init (&rp[i], w, h, depths[d], depths[d] == 10 ? 6 : 0);
        tplane_init (&op[i], w, h, depths[d], 0);
        fill_random (&rp[i].p, rand);
        ref.planes[i] = rp[i].p;
        out.planes[i] = op[i].p;
      }
      TField f;
      tfield_init (&f, 8, 8, 5, 3, 0, 0);
      MCOptions o = opts (obmc, 2);
      GError *err = NULL;
      g_assert_true (mc_predict_picture (&ref, &out, &f.f, &o, &err));
      g_assert_no_error (err);
      for (int i = 0; i < 3; i++) {
        assert_planes_equal (&op[i].p, &rp[i].p);
        tplane_clear (&rp[i]);
        tplane_clear (&op[i]);
      }
      g_free (f.cells);
    }
  g_rand_free (rand);
}

/* A whole-pixel field is a shifted copy, edges clamped as the search's
 * edge-replicated planes hold them; the same with overlap, since every
 * block has the same vector. */
static void
test_whole_pel_shift (void)
{
  GRand *rand = g_rand_new_with_seed (2);
  TPlane ref, out;
  tplane_init (&ref, 45, 30, 8, 0);
  tplane_init (&out, 45, 30, 8, 0);
  fill_random (&ref.p, rand);
  static const int mv[][2] = { {-12, 8}, {20, -4}, {0, -400}, {4000, 0} };
  for (unsigned k = 0; k < G_N_ELEMENTS (mv); k++)
    for (int obmc = 0; obmc < 2; obmc++) {
      TField f;
      tfield_init (&f, 16, 8, 3, 4, mv[k][0], mv[k][1]);
      predict_ok (&ref.p, &out.p, &f.f, 0, 0, obmc);
      for (int y = 0; y < 30; y++)
        for (int x = 0; x < 45; x++)
          g_assert_cmpint (get (&out.p, x, y), ==, get (&ref.p,
                  mc_clamp (x + mv[k][0] / 4, 45),
                  mc_clamp (y + mv[k][1] / 4, 30)));
      g_free (f.cells);
    }
  tplane_clear (&ref);
  tplane_clear (&out);
  g_rand_free (rand);
}

/* Every quarter-pel fraction, vectors of both signs, against the search's
 * own interpolation: the 8-bit half samples me_hpel_h/v/c on a copy
 * padded by edge replication, as the CPU backend pads, read through
 * me_subpel_pair() as the refinement reads them. */
#define PAD 8
static void
test_quarter_pel_luma (void)
{
  GRand *rand = g_rand_new_with_seed (3);
  const int W = 24, H = 20, PW = W + 2 * PAD;
  TPlane ref, out;
  tplane_init (&ref, W, H, 8, 0);
  tplane_init (&out, W, H, 8, 0);
  fill_random (&ref.p, rand);
  guint8 *pad = g_malloc ((size_t) PW * (H + 2 * PAD));
  for (int y = 0; y < H + 2 * PAD; y++)
    for (int x = 0; x < PW; x++)
      pad[y * PW + x] = get (&ref.p, mc_clamp (x - PAD, W),
          mc_clamp (y - PAD, H));
  for (int qy = -7; qy <= 7; qy++)
    for (int qx = -7; qx <= 7; qx++) {
      TField f;
      tfield_init (&f, 8, 4, 3, 5, qx, qy);
      predict_ok (&ref.p, &out.p, &f.f, 0, 0, TRUE);
      for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
          const unsigned v = me_subpel_pair (qx & 3, qy & 3);
          int s[2];
          for (int k = 0; k < 2; k++) {
            const unsigned e = k ? v >> 4 : v & 15;
            const guint8 *p = pad + (y + PAD + (qy >> 2) + ME_SP_DY (e)) * PW
                + x + PAD + (qx >> 2) + ME_SP_DX (e);
            switch (ME_SP_PLANE (e)) {
              case ME_HPEL_F: s[k] = *p; break;
              case ME_HPEL_H: s[k] = me_hpel_h (p, PW); break;
              case ME_HPEL_V: s[k] = me_hpel_v (p, PW); break;
              default: s[k] = me_hpel_c (p, PW); break;
            }
          }
          g_assert_cmpint (get (&out.p, x, y), ==, (s[0] + s[1] + 1) >> 1);
        }
      g_free (f.cells);
    }
  g_free (pad);
  tplane_clear (&ref);
  tplane_clear (&out);
  g_rand_free (rand);
}

/* The chroma rule on numbers worked by hand (H.264 8-266). */
static void
test_chroma_eighth_pel (void)
{
  /* (3, 5) eighths between 10, 20 / 30, 40: 15 x 10 + 9 x 20 + 25 x 30 +
   * 15 x 40 = 1680, (1680 + 32) >> 6 = 26 (exactly 26.25) */
  g_assert_cmpint (mc_chroma_bilinear (10, 20, 30, 40, 3, 5), ==, 26);
  /* (4, 4): the mean of 0, 1, 1, 1 is 0.75: (0 + 16 + 16 + 16 + 32) >> 6
   * = 1 */
  g_assert_cmpint (mc_chroma_bilinear (0, 1, 1, 1, 4, 4), ==, 1);
  /* a half rounds up: (4, 0) between 0 and 1 is 32 / 64, (32 + 32) >> 6 */
  g_assert_cmpint (mc_chroma_bilinear (0, 1, 0, 1, 4, 0), ==, 1);
  g_assert_cmpint (mc_chroma_bilinear (2, 1, 2, 1, 4, 0), ==, 2);
  /* (7, 0) from 0 to 65535: 7 x 8 x 65535 = 3669960, + 32, >> 6 = 57343 */
  g_assert_cmpint (mc_chroma_bilinear (0, 65535, 0, 65535, 7, 0), ==, 57343);
  /* the vector: a quarter luma sample is an eighth of a halved chroma
   * sample, a quarter of a full one (4:2:2's vertical) */
  g_assert_cmpint (mc_chroma_mv8 (-3, 1), ==, -3);
  g_assert_cmpint (mc_chroma_mv8 (-3, 0), ==, -6);

  /* A 4:2:0 picture whose chroma is c(x, y) = 10 + 10 x + 20 y (4x4), luma
   * 8x8, one 8x8 block. */
  MCPicture ref = { MC_CHROMA_420 }, out = { MC_CHROMA_420 };
  TPlane rp[3], op[3];
  for (int i = 0; i < 3; i++) {
    const unsigned n = i ? 4 : 8;
    tplane_init (&rp[i], n, n, 8, 0);
    tplane_init (&op[i], n, n, 8, 0);
    for (unsigned y = 0; y < n; y++)
      for (unsigned x = 0; x < n; x++)
        set (&rp[i].p, x, y, 10 + 10 * x + 20 * y);
    ref.planes[i] = rp[i].p;
    out.planes[i] = op[i].p;
  }
  TField f;
  tfield_init (&f, 8, 8, 1, 1, 3, 5);
  GError *err = NULL;
  g_assert_true (mc_predict_picture (&ref, &out, &f.f, NULL, &err));
  g_assert_no_error (err);
  /* (3, 5) eighths from (0, 0): the 26 above; from (1, 2): 10 + 40 more
   * in every corner, 76 (exactly 76.25) */
  g_assert_cmpint (get (&op[1].p, 0, 0), ==, 26);
  g_assert_cmpint (get (&op[2].p, 1, 2), ==, 76);
  /* at (3, 3) the right and lower neighbours are clamped: A = B = C = D =
   * c(3, 3) = 100 */
  g_assert_cmpint (get (&op[1].p, 3, 3), ==, 100);

  /* (-3, -11): (-3) >> 3 = -1, fraction 5; (-11) >> 3 = -2, fraction 5.
   * At (0, 0): A, B, C, D at x -1, 0 and y -2, -1, all clamped to
   * c(0, 0) = 10: 10.  At (2, 3): x 1, 2 and y 1, 2: 40 50 / 60 70,
   * fractions (5, 5): (9 x 40 + 15 x 50 + 15 x 60 + 25 x 70 + 32) >> 6 =
   * (360 + 750 + 900 + 1750 + 32) >> 6 = 3792 >> 6 = 59 (exactly 58.75) */
  f.cells[0].mv_x = -3;
  f.cells[0].mv_y = -11;
  g_assert_true (mc_predict_picture (&ref, &out, &f.f, NULL, &err));
  g_assert_cmpint (get (&op[1].p, 0, 0), ==, 10);
  g_assert_cmpint (get (&op[2].p, 2, 3), ==, 59);

  /* 4:2:2's vertical, a 4x8 chroma plane under the same 8x8 block:
   * mv_y = 3 is 6 eighths down; mv_x = 3 is 3 eighths across.  At (0, 0):
   * 10 20 / 30 40 at fractions (3, 6): (10 x 10 + 6 x 20 + 30 x 30 +
   * 18 x 40 + 32) >> 6 = (100 + 120 + 900 + 720 + 32) >> 6 = 1872 >> 6 =
   * 29 (exactly 28.75) */
  TPlane c422, o422;
  tplane_init (&c422, 4, 8, 8, 0);
  tplane_init (&o422, 4, 8, 8, 0);
  for (unsigned y = 0; y < 8; y++)
    for (unsigned x = 0; x < 4; x++)
      set (&c422.p, x, y, 10 + 10 * x + 20 * y);
  f.cells[0].mv_x = 3;
  f.cells[0].mv_y = 3;
  predict_ok (&c422.p, &o422.p, &f.f, 1, 0, TRUE);
  g_assert_cmpint (get (&o422.p, 0, 0), ==, 29);
  tplane_clear (&c422);
  tplane_clear (&o422);
  for (int i = 0; i < 3; i++) {
    tplane_clear (&rp[i]);
    tplane_clear (&op[i]);
  }
  g_free (f.cells);
}

/* The windows of a row of blocks sum to MC_OBMC_ONE at every sample, for
 * every block length and count, and so a constant field predicts the same
 * with overlap as without. */
static void
test_obmc_windows (void)
{
  g_assert_cmpint (mc_obmc_ramp (1, 0), ==, 16);
  g_assert_cmpint (mc_obmc_ramp (2, 1), ==, 24);
  g_assert_cmpint (mc_obmc_ramp (4, 7), ==, 60);
  static const int lens[] = { 2, 4, 8, 16 };
  for (unsigned k = 0; k < G_N_ELEMENTS (lens); k++)
    for (int count = 1; count <= 5; count++) {
      const int n = lens[k];
      int nonflat = 0;
      for (int s = 0; s < n * count; s++) {
        int sum = 0;
        for (int b = 0; b < count; b++) {
          const int w = naive_window (n, count, b, s, TRUE);
          g_assert_cmpint (w, >=, 0);
          g_assert_cmpint (w, <=, MC_OBMC_ONE);
          nonflat += w > 0 && w < MC_OBMC_ONE;
          sum += w;
        }
        g_assert_cmpint (sum, ==, MC_OBMC_ONE);
      }
      /* two samples a side in every zone between blocks: 2o each */
      g_assert_cmpint (nonflat, ==, (count - 1) * 2 * 2 * mc_obmc_margin (n));
    }

  GRand *rand = g_rand_new_with_seed (4);
  TField f;
  tfield_init (&f, 8, 16, 7, 3, -13, 6);
  /* luma 50x35, and a 4:2:0 chroma plane of it, 25x18 */
  for (unsigned sub = 0; sub < 2; sub++) {
    const unsigned w = (50 + sub) >> sub, h = (35 + sub) >> sub;
    TPlane ref, a, b;
    tplane_init (&ref, w, h, 10, 0);
    tplane_init (&a, w, h, 10, 0);
    tplane_init (&b, w, h, 10, 0);
    fill_random (&ref.p, rand);
    predict_ok (&ref.p, &a.p, &f.f, sub, sub, TRUE);
    predict_ok (&ref.p, &b.p, &f.f, sub, sub, FALSE);
    assert_planes_equal (&a.p, &b.p);
    tplane_clear (&ref);
    tplane_clear (&a);
    tplane_clear (&b);
  }
  g_free (f.cells);
  g_rand_free (rand);
}

/* Two regions, still on the left, 2 pixels on the right, over a ramp of 4
 * a pixel across: outside the zone around their common edge each side is
 * its own prediction exactly; across it the picture climbs 5 a sample at
 * most (4 of the ramp and 8 x 8/64 of the blend) where blocks alone step
 * 12 at the edge. */
static void
test_two_regions (void)
{
  const int W = 64, H = 32, edge = 32, o = mc_obmc_margin (16);
  TPlane ref, out, left, right;
  tplane_init (&ref, W, H, 8, 0);
  tplane_init (&out, W, H, 8, 0);
  tplane_init (&left, W, H, 8, 0);
  tplane_init (&right, W, H, 8, 0);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      set (&ref.p, x, y, 4 * x);
  TField f, fl, fr;
  tfield_init (&f, 16, 16, 4, 2, 0, 0);
  tfield_init (&fl, 16, 16, 4, 2, 0, 0);
  tfield_init (&fr, 16, 16, 4, 2, 8, 0);
  for (int r = 0; r < 2; r++)
    for (int c = 2; c < 4; c++)
      f.cells[r * 4 + c].mv_x = 8;
  predict_ok (&ref.p, &left.p, &fl.f, 0, 0, TRUE);
  predict_ok (&ref.p, &right.p, &fr.f, 0, 0, TRUE);
  for (int obmc = 1; obmc >= 0; obmc--) {
    predict_ok (&ref.p, &out.p, &f.f, 0, 0, obmc);
    int worst = 0;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        const int v = get (&out.p, x, y);
        if (x < edge - o)
          g_assert_cmpint (v, ==, get (&left.p, x, y));
        else if (x >= edge + o)
          g_assert_cmpint (v, ==, get (&right.p, x, y));
        else {
          g_assert_cmpint (v, >=, get (&left.p, x, y));
          g_assert_cmpint (v, <=, get (&right.p, x, y));
        }
        if (x > 0 && x < W - 2)   /* the right edge clamps the ramp */
          worst = MAX (worst, ABS (v - get (&out.p, x - 1, y)));
      }
    g_assert_cmpint (worst, ==, obmc ? 5 : 12);
  }
  /* the naive version agrees sample for sample */
  naive_predict (&ref.p, &left.p, &f.f, 0, 0, TRUE);
  predict_ok (&ref.p, &out.p, &f.f, 0, 0, TRUE);
  assert_planes_equal (&out.p, &left.p);
  g_free (f.cells);
  g_free (fl.cells);
  g_free (fr.cells);
  tplane_clear (&ref);
  tplane_clear (&out);
  tplane_clear (&left);
  tplane_clear (&right);
}

/* Random fields, random pictures, every subsampling, three depths,
 * threads: the library against the naive version. */
static void
test_random_against_naive (void)
{
  GRand *rand = g_rand_new_with_seed (5);
  static const unsigned sizes[] = { 4, 8, 16 };
  for (int iter = 0; iter < 24; iter++) {
    const unsigned depth = (unsigned[]) { 8, 10, 16 }[iter % 3];
    const unsigned sx = iter % 2, sy = (iter / 2) % 2;
    const unsigned bw = sizes[g_rand_int_range (rand, 0, 3)];
    const unsigned bh = sizes[g_rand_int_range (rand, 0, 3)];
    const unsigned w = g_rand_int_range (rand, 1, 70);
    const unsigned h = g_rand_int_range (rand, 1, 50);
    const unsigned cols = ((w << sx) + bw - 1) / bw + iter % 2;
    const unsigned rows = ((h << sy) + bh - 1) / bh;
    TPlane ref, out, want;
    tplane_init (&ref, w, h, depth, depth == 10 ? 6 : 0);
    tplane_init (&out, w, h, depth, 0);
    tplane_init (&want, w, h, depth, 0);
    fill_random (&ref.p, rand);
    TField f;
    tfield_init (&f, bw, bh, cols, rows, 0, 0);
    for (unsigned i = 0; i < cols * rows; i++) {
      const int range = i % 7 ? 40 : 600;
      f.cells[i].mv_x = g_rand_int_range (rand, -range, range);
      f.cells[i].mv_y = g_rand_int_range (rand, -range, range);
    }
    const gboolean obmc = iter % 5 != 0;
    MCOptions o = opts (obmc, 1 + iter % 4);
    GError *err = NULL;
    g_assert_true (mc_predict_plane (&ref.p, &out.p, &f.f, sx, sy, &o, &err));
    g_assert_no_error (err);
    naive_predict (&ref.p, &want.p, &f.f, sx, sy, obmc);
    assert_planes_equal (&out.p, &want.p);
    g_free (f.cells);
    tplane_clear (&ref);
    tplane_clear (&out);
    tplane_clear (&want);
  }
  g_rand_free (rand);
}

/* Vectors scaled to t = num / den, rounded half away from zero. */
static void
test_scale (void)
{
  /* t = 0: nothing moves */
  g_assert_cmpint (mc_scale_qpel (37, 0, 1), ==, 0);
  g_assert_cmpint (mc_scale_qpel (-37, 0, 5), ==, 0);
  /* t = 1/2: 5 / 2 = 2.5 -> 3, -2.5 -> -3; 4 -> 2; -3 / 2 = -1.5 -> -2;
   * 1 / 2 = 0.5 -> 1, -0.5 -> -1 */
  g_assert_cmpint (mc_scale_qpel (5, 1, 2), ==, 3);
  g_assert_cmpint (mc_scale_qpel (-5, 1, 2), ==, -3);
  g_assert_cmpint (mc_scale_qpel (4, 1, 2), ==, 2);
  g_assert_cmpint (mc_scale_qpel (-3, 1, 2), ==, -2);
  g_assert_cmpint (mc_scale_qpel (1, 1, 2), ==, 1);
  g_assert_cmpint (mc_scale_qpel (-1, 1, 2), ==, -1);
  /* t = 1: the vector itself */
  g_assert_cmpint (mc_scale_qpel (-2047, 1, 1), ==, -2047);
  g_assert_cmpint (mc_scale_qpel (2047, 7, 7), ==, 2047);
  /* t = 2/5: 7 -> 2.8 -> 3; -7 -> -3; 5 -> 2; -6 -> -2.4 -> -2; 3 -> 1.2
   * -> 1; -4 -> -1.6 -> -2; 10 -> 4 */
  g_assert_cmpint (mc_scale_qpel (7, 2, 5), ==, 3);
  g_assert_cmpint (mc_scale_qpel (-7, 2, 5), ==, -3);
  g_assert_cmpint (mc_scale_qpel (5, 2, 5), ==, 2);
  g_assert_cmpint (mc_scale_qpel (-6, 2, 5), ==, -2);
  g_assert_cmpint (mc_scale_qpel (3, 2, 5), ==, 1);
  g_assert_cmpint (mc_scale_qpel (-4, 2, 5), ==, -2);
  g_assert_cmpint (mc_scale_qpel (10, 2, 5), ==, 4);
  /* t = -1/2 reverses; t = 2 doubles; t = 4 saturates */
  g_assert_cmpint (mc_scale_qpel (5, -1, 2), ==, -3);
  g_assert_cmpint (mc_scale_qpel (-2047, 2, 1), ==, -4094);
  g_assert_cmpint (mc_scale_qpel (32767, 4, 1), ==, 32767);
  g_assert_cmpint (mc_scale_qpel (-32768, 4, 1), ==, -32768);

  /* a field: vectors scaled, the rest kept */
  GstMotionVectorCell cells[2] = { {7, -7, 99, 1, 2, 3, 4}, {-5, 4, 0} };
  GstMotionVectorCell out[2];
  MCField f = { 4, 4, 2, 1, 0, cells };
  GError *err = NULL;
  g_assert_true (mc_field_scale (&f, out, 2, 5, &err));
  g_assert_cmpint (out[0].mv_x, ==, 3);
  g_assert_cmpint (out[0].mv_y, ==, -3);
  g_assert_cmpuint (out[0].cost, ==, 99);
  g_assert_cmpint (out[0].mvd_y, ==, 4);
  g_assert_cmpint (out[1].mv_x, ==, -2);
  g_assert_cmpint (out[1].mv_y, ==, 2);
  g_assert_false (mc_field_scale (&f, out, 1, 0, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  g_assert_false (mc_field_scale (&f, out, 9, 2, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
}

/* 10- and 16-bit samples clip at 2^depth - 1 and at 0 (the 6-tap
 * overshoots), in low and high bits of the word. */
static void
test_deep_clip (void)
{
  static const struct { unsigned depth, shift; } cases[] = {
    {10, 0}, {10, 6}, {16, 0}
  };
  for (unsigned k = 0; k < G_N_ELEMENTS (cases); k++) {
    const int M = (1 << cases[k].depth) - 1;
    TPlane ref, out;
    tplane_init (&ref, 16, 4, cases[k].depth, cases[k].shift);
    tplane_init (&out, 16, 4, cases[k].depth, cases[k].shift);
    /* columns 0 0 M M 0 0 ...: the half sample between the two M, b1 =
     * 40 M, (40 M + 16) >> 5 = 1.25 M, clips to M; columns 6 .. 11,
     * M M 0 0 M M: b1 = -8 M, clips to 0 */
    static const int row[16] = { 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1,
      1, 1 };
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 16; x++)
        set (&ref.p, x, y, row[x] * M);
    TField f;
    tfield_init (&f, 4, 4, 4, 1, 2, 0);
    predict_ok (&ref.p, &out.p, &f.f, 0, 0, FALSE);
    g_assert_cmpint (get (&out.p, 2, 0), ==, M);
    g_assert_cmpint (get (&out.p, 8, 0), ==, 0);
    /* the word holds the sample where the depth and shift say */
    const guint16 *w = (const guint16 *) out.p.data;
    g_assert_cmpuint (w[2], ==, (guint) M << cases[k].shift);
    /* all at M through the overlap: 4096 x M fits the sum */
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 16; x++)
        set (&ref.p, x, y, M);
    f.cells[1].mv_y = -3;
    f.cells[2].mv_x = 5;
    predict_ok (&ref.p, &out.p, &f.f, 0, 0, TRUE);
    for (int x = 0; x < 16; x++)
      g_assert_cmpint (get (&out.p, x, 3), ==, M);
    g_free (f.cells);
    tplane_clear (&ref);
    tplane_clear (&out);
  }
}

/* Weights from costs, and the blend with them. */
static void
test_blend (void)
{
  /* cost_b / (cost_a + cost_b) of 64: 300 / 400 -> 48; 2 / 3 -> 42.67 ->
   * 43; 1 / 2 -> 32; nothing to choose -> 32; a perfect a -> 64 */
  g_assert_cmpint (mc_cost_weight (100, 300), ==, 48);
  g_assert_cmpint (mc_cost_weight (1, 2), ==, 43);
  g_assert_cmpint (mc_cost_weight (5, 5), ==, 32);
  g_assert_cmpint (mc_cost_weight (0, 0), ==, 32);
  g_assert_cmpint (mc_cost_weight (0, 9), ==, 64);
  g_assert_cmpint (mc_cost_weight (3, 0), ==, 0);
  g_assert_cmpint (mc_cost_weight ((1u << 28) - 1, 1), ==, 0);
  /* (32 x 10 + 32 x 21 + 32) >> 6 = 1024 >> 6 = 16 (15.5 rounds up) */
  g_assert_cmpint (mc_blend_sample (10, 21, 32), ==, 16);
  g_assert_cmpint (mc_blend_sample (65535, 0, 64), ==, 65535);
  g_assert_cmpint (mc_blend_sample (65535, 7, 0), ==, 7);

  /* two fields' costs, pairwise */
  GstMotionVectorCell ca[2] = { {0, 0, 100}, {0, 0, 0} };
  GstMotionVectorCell cb[2] = { {0, 0, 300}, {0, 0, 9} };
  MCField fa = { 16, 16, 2, 1, 0, ca }, fb = { 16, 16, 2, 1, 0, cb };
  guint8 weights[2];
  GError *err = NULL;
  g_assert_true (mc_cost_weights (&fa, &fb, weights, &err));
  g_assert_cmpint (weights[0], ==, 48);
  g_assert_cmpint (weights[1], ==, 64);

  /* Planes a = 1000, b = 0 (10 bits), blocks of 16: left weighs 64, right
   * 0.  Outside the zone, a or b; inside, falling from a to b. */
  TPlane a, b, out;
  tplane_init (&a, 32, 16, 10, 0);
  tplane_init (&b, 32, 16, 10, 0);
  tplane_init (&out, 32, 16, 10, 0);
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 32; x++)
      set (&a.p, x, y, 1000);
  guint8 w2[2] = { 64, 0 };
  MCOptions o = opts (TRUE, 1);
  g_assert_true (mc_blend_plane (&a.p, &b.p, &out.p, w2, 16, 16, 2, 1, 0, 0,
          &o, &err));
  g_assert_no_error (err);
  /* x = 12 .. 19 is the zone (o = 4): a's weight there falls as the
   * ramp rises, 60 52 44 ... 4 of 64 at x = 12 .. 19; at x = 12,
   * (60 x 1000 + 32) >> 6 = 938 */
  for (int x = 0; x < 32; x++) {
    const int v = get (&out.p, x, 5);
    if (x < 12)
      g_assert_cmpint (v, ==, 1000);
    else if (x >= 20)
      g_assert_cmpint (v, ==, 0);
    else
      g_assert_cmpint (v, ==, ((64 - mc_obmc_ramp (4, x - 12)) * 1000 + 32)
          >> 6);
  }
  g_assert_cmpint (get (&out.p, 12, 0), ==, 938);
  /* blocks alone: the step at the edge */
  o.obmc = FALSE;
  g_assert_true (mc_blend_plane (&a.p, &b.p, &out.p, w2, 16, 16, 2, 1, 0, 0,
          &o, &err));
  g_assert_cmpint (get (&out.p, 15, 0), ==, 1000);
  g_assert_cmpint (get (&out.p, 16, 0), ==, 0);
  /* in place: out is a */
  w2[0] = w2[1] = 32;
  g_assert_true (mc_blend_plane (&a.p, &b.p, &a.p, w2, 16, 16, 2, 1, 0, 0,
          &o, &err));
  g_assert_cmpint (get (&a.p, 31, 15), ==, 500);
  /* a weight above 64 is refused */
  w2[1] = 65;
  g_assert_false (mc_blend_plane (&a.p, &b.p, &out.p, w2, 16, 16, 2, 1, 0, 0,
          &o, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  tplane_clear (&a);
  tplane_clear (&b);
  tplane_clear (&out);
}

/* Bad input is refused with an error that says what is wrong. */
static void
test_bad_input (void)
{
  TPlane ref, out;
  tplane_init (&ref, 20, 20, 8, 0);
  tplane_init (&out, 20, 20, 8, 0);
  TField f;
  tfield_init (&f, 8, 8, 3, 3, 0, 0);
  GError *err = NULL;
#define REFUSED(call, text) G_STMT_START { \
    g_assert_false (call); \
    g_assert_error (err, MC_ERROR, MC_ERROR_INVALID); \
    g_assert_nonnull (strstr (err->message, text)); \
    g_clear_error (&err); \
  } G_STMT_END
  MCField bad = f.f;
  bad.block_w = 5;
  REFUSED (mc_predict_plane (&ref.p, &out.p, &bad, 0, 0, NULL, &err), "5");
  bad = f.f;
  bad.cols = 2;
  REFUSED (mc_predict_plane (&ref.p, &out.p, &bad, 0, 0, NULL, &err),
      "do not cover");
  bad.cells = NULL;
  REFUSED (mc_predict_plane (&ref.p, &out.p, &bad, 0, 0, NULL, &err),
      "no cells");
  REFUSED (mc_predict_plane (&ref.p, &ref.p, &f.f, 0, 0, NULL, &err),
      "overlaps");
  REFUSED (mc_predict_plane (&ref.p, &out.p, &f.f, 2, 0, NULL, &err),
      "subsampling");
  MCPlane p = out.p;
  p.depth = 7;
  REFUSED (mc_predict_plane (&ref.p, &p, &f.f, 0, 0, NULL, &err), "depth");
  p = out.p;
  p.stride = 10;
  REFUSED (mc_predict_plane (&ref.p, &p, &f.f, 0, 0, NULL, &err), "stride");
  p = out.p;
  p.height = 19;
  REFUSED (mc_predict_plane (&ref.p, &p, &f.f, 0, 0, NULL, &err), "bits");
  p = out.p;
  p.data = NULL;
  REFUSED (mc_predict_plane (&ref.p, &p, &f.f, 0, 0, NULL, &err), "no plane");
  p = ref.p;
  p.depth = 10;
  p.shift = 7;
  p.width = 10;
  REFUSED (mc_predict_plane (&p, &p, &f.f, 0, 0, NULL, &err), "shift");
  MCPicture pr = { MC_CHROMA_420, { ref.p, ref.p, ref.p } };
  MCPicture po = { MC_CHROMA_420, { out.p, out.p, out.p } };
  REFUSED (mc_predict_picture (&pr, &po, &f.f, NULL, &err), "chroma");
  /* pixel strides: narrower than a sample, wider than any pixel, odd for
   * 16-bit words, a row of them longer than the stride */
  p = out.p;
  p.pstride = 65;
  REFUSED (mc_predict_plane (&ref.p, &p, &f.f, 0, 0, NULL, &err),
      "pixel stride 65");
  TPlane deep;
  tplane_init (&deep, 10, 10, 10, 0);
  TField fd;
  tfield_init (&fd, 8, 8, 2, 2, 0, 0);
  p = deep.p;
  p.width = 5;
  p.pstride = 1;
  REFUSED (mc_predict_plane (&deep.p, &p, &fd.f, 0, 0, NULL, &err),
      "pixel stride 1");
  p.pstride = 3;
  REFUSED (mc_predict_plane (&deep.p, &p, &fd.f, 0, 0, NULL, &err),
      "aligned");
  p = out.p;
  p.pstride = 2;                /* 19 x 2 + 1 bytes a row, stride 23 */
  REFUSED (mc_predict_plane (&ref.p, &p, &f.f, 0, 0, NULL, &err),
      "shorter than a row of 39 bytes");
  /* U and V of one NV12 row: interleaved, so never reference and output */
  MCPlane u = ref.p, v = ref.p;
  u.width = v.width = 10;
  u.pstride = v.pstride = 2;
  v.data = u.data + 1;
  REFUSED (mc_predict_plane (&u, &v, &f.f, 1, 1, NULL, &err), "overlaps");
  g_free (fd.cells);
  tplane_clear (&deep);
#undef REFUSED
  g_free (f.cells);
  tplane_clear (&ref);
  tplane_clear (&out);
}

/* ---- interleaved planes ------------------------------------------------ */

/* The chroma of an NV12- or P010-like picture: rows of w (U, V) pairs and
 * slack, U first or V first (NV21), the planes of MCPicture into them. */
typedef struct {
  guint8 *buf;
  size_t size;
  MCPlane u, v;
} TUV;

static void
tuv_init (TUV * t, unsigned w, unsigned h, unsigned depth, unsigned shift,
    gboolean v_first, guint8 fill)
{
  const unsigned bps = depth > 8 ? 2 : 1;
  const ptrdiff_t stride = (ptrdiff_t) ((2 * w + 3) * bps);
  t->size = (size_t) stride * h;
  t->buf = g_malloc (t->size);
  memset (t->buf, fill, t->size);
  t->u = (MCPlane) { t->buf + (v_first ? bps : 0), stride, w, h, depth,
    shift, 2 * bps
  };
  t->v = t->u;
  t->v.data = t->buf + (v_first ? 0 : bps);
}

/* Writing U leaves every other byte of the UV rows as it was (the V
 * samples and the slack after each row), by prediction and by blend in
 * place, on several threads; then V is written beside it, and U keeps
 * its samples. */
static void
test_interleaved_neighbours (void)
{
  static const struct
  {
    unsigned depth, shift;
  } fmt[] = { {8, 0}, {10, 6}, {16, 0} };
  GRand *rand = g_rand_new_with_seed (7);
  for (unsigned i = 0; i < G_N_ELEMENTS (fmt); i++) {
    const unsigned w = 23, h = 13;      /* chroma of a 45x25 picture */
    TPlane ref;
    TUV out, before;
    TField f;
    tplane_init (&ref, w, h, fmt[i].depth, fmt[i].shift);
    fill_random (&ref.p, rand);
    tuv_init (&out, w, h, fmt[i].depth, fmt[i].shift, i == 1, 0);
    for (size_t j = 0; j < out.size; j++)
      out.buf[j] = g_rand_int (rand);
    tuv_init (&before, w, h, fmt[i].depth, fmt[i].shift, i == 1, 0);
    memcpy (before.buf, out.buf, out.size);
    tfield_init (&f, 8, 8, 6, 4, 0, 0);
    for (unsigned c = 0; c < 24; c++) {
      f.cells[c].mv_x = g_rand_int_range (rand, -40, 41);
      f.cells[c].mv_y = g_rand_int_range (rand, -40, 41);
    }
    GError *err = NULL;
    MCOptions o = opts (TRUE, 3);
    g_assert_true (mc_predict_plane (&ref.p, &out.u, &f.f, 1, 1, &o, &err));
    g_assert_no_error (err);
    /* U is the prediction a planar output gets */
    TPlane want;
    tplane_init (&want, w, h, fmt[i].depth, fmt[i].shift);
    predict_ok (&ref.p, &want.p, &f.f, 1, 1, TRUE);
    assert_planes_equal (&out.u, &want.p);
    /* a blend of U and the reference into U, and one into V */
    guint8 wts[24];
    for (unsigned c = 0; c < 24; c++)
      wts[c] = g_rand_int_range (rand, 0, 65);
    g_assert_true (mc_blend_plane (&out.u, &ref.p, &out.u, wts, 16, 16, 3, 2,
            1, 1, &o, &err));
    g_assert_no_error (err);
    /* every byte but U's own is as it was, V included */
    const unsigned bps = fmt[i].depth > 8 ? 2 : 1;
    for (size_t j = 0; j < out.size; j++) {
      const size_t y = j / out.u.stride, b = j % out.u.stride;
      const size_t ub = (size_t) (out.u.data - out.buf);
      const gboolean is_u = b >= ub && b < ub + 2 * bps * w
          && (b - ub) % (2 * bps) < bps;
      if (!is_u && out.buf[j] != before.buf[j])
        g_error ("%u bits: byte %zu of row %zu, not U's, changed", 
            fmt[i].depth, b, y);
    }
    g_assert_true (mc_blend_plane (&ref.p, &want.p, &out.v, wts, 16, 16, 3,
            2, 1, 1, &o, &err));
    g_assert_no_error (err);
    TPlane bl;
    tplane_init (&bl, w, h, fmt[i].depth, fmt[i].shift);
    g_assert_true (mc_blend_plane (&ref.p, &want.p, &bl.p, wts, 16, 16, 3,
            2, 1, 1, &o, &err));
    assert_planes_equal (&out.v, &bl.p);
    /* and U is still the blend it was */
    tplane_clear (&bl);
    tplane_init (&bl, w, h, fmt[i].depth, fmt[i].shift);
    g_assert_true (mc_blend_plane (&want.p, &ref.p, &bl.p, wts, 16, 16, 3, 2,
            1, 1, &o, &err));
    assert_planes_equal (&out.u, &bl.p);
    tplane_clear (&bl);
    tplane_clear (&want);
    tplane_clear (&ref);
    g_free (out.buf);
    g_free (before.buf);
    g_free (f.cells);
  }
  g_rand_free (rand);
}

/* ---- denoising ---------------------------------------------------------- */

/* The weight rule and the sample rule by hand. */
static void
test_denoise_rule (void)
{
  /* 8x8 at 8 bits, sigma 10 (160/16): 64 x 10 x 289/256 = 722.5 -> 723;
   * 16x16 at 10 bits: 256 x 10 x 4 x 1.12891 = 11560.0; 4x4, sigma 1:
   * 18.06 -> 18 */
  g_assert_cmpuint (mc_denoise_level (8, 8, 160, 8), ==, 723);
  g_assert_cmpuint (mc_denoise_level (16, 16, 160, 10), ==, 11560);
  g_assert_cmpuint (mc_denoise_level (4, 4, 16, 8), ==, 18);
  /* up to the level 64; at twice it (excess s = L, d = 2L) 64 (4 - 1) /
   * (4 + 1) = 38.4 -> 38; at 1.5 L, 64 (4 - 1/4) / (4 + 1/4) = 56.47 ->
   * 56; 0 from three times it on */
  g_assert_cmpint (mc_denoise_weight (0, 723), ==, 64);
  g_assert_cmpint (mc_denoise_weight (723, 723), ==, 64);
  g_assert_cmpint (mc_denoise_weight (724, 723), ==, 64);
  g_assert_cmpint (mc_denoise_weight (1446, 723), ==, 38);
  g_assert_cmpint (mc_denoise_weight (2 * 11560, 11560), ==, 38);
  g_assert_cmpint (mc_denoise_weight (11560 + 5780, 11560), ==, 56);
  g_assert_cmpint (mc_denoise_weight (2168, 723), ==, 0);
  g_assert_cmpint (mc_denoise_weight (2169, 723), ==, 0);
  g_assert_cmpint (mc_denoise_weight ((1u << 28) - 1, 723), ==, 0);
  /* no noise: a perfect match alone */
  g_assert_cmpint (mc_denoise_weight (0, 0), ==, 64);
  g_assert_cmpint (mc_denoise_weight (1, 0), ==, 0);
  /* never rising with the cost */
  for (uint32_t c = 1; c < 2500; c++)
    g_assert_cmpint (mc_denoise_weight (c, 723), <=,
        mc_denoise_weight (c - 1, 723));
  /* (64 x 10 + 64 x 21) / 128 = 15.5 -> 16; 64 cur alone is cur; 4
   * references of 10, 20, 30, 40 weighing 64, 64, 32, 0 around 100:
   * 9280 / 224 = 41.43 -> 41 */
  g_assert_cmpint (mc_denoise_sample (64 * 10 + 64 * 21, 128), ==, 16);
  g_assert_cmpint (mc_denoise_sample (64 * 65535, 64), ==, 65535);
  g_assert_cmpint (mc_denoise_sample (64 * 100 + 64 * 10 + 64 * 20 + 32 * 30,
          224), ==, 41);

  /* the field's weights: cell by cell, a stride of its own */
  GstMotionVectorCell cells[8] = {
    {0, 0, 0}, {0, 0, 723}, {0, 0, 1446}, {0, 0, 2169},
    {0, 0, 9}, {0, 0, 9}, {0, 0, 9}, {0, 0, 9},
  };
  MCField f = { 8, 8, 3, 1, 4, cells };
  guint8 w[4] = { 99, 99, 99, 99 };
  GError *err = NULL;
  g_assert_true (mc_denoise_weights (&f, FALSE, 8, 160, w, &err));
  g_assert_no_error (err);
  g_assert_cmpint (w[0], ==, 64);
  g_assert_cmpint (w[1], ==, 64);
  g_assert_cmpint (w[2], ==, 38);
  g_assert_cmpint (w[3], ==, 99);
  /* two rows of two, stride 4: cells 0, 1, 4, 5 */
  f = (MCField) { 8, 8, 2, 2, 4, cells };
  g_assert_true (mc_denoise_weights (&f, FALSE, 8, 160, w, &err));
  g_assert_cmpint (w[2], ==, 64);
  g_assert_cmpint (w[3], ==, 64);
  /* at 10 bits the level is four times: 1446 is within it */
  f = (MCField) { 8, 8, 4, 1, 0, cells };
  g_assert_true (mc_denoise_weights (&f, FALSE, 10, 160, w, &err));
  g_assert_cmpint (w[2], ==, 64);
  g_assert_cmpint (w[3], ==, 64);
  /* a field without a reference: nothing to take */
  g_assert_true (mc_denoise_weights (&f, TRUE, 8, 160, w, &err));
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (w[i], ==, 0);
  /* bad input */
  g_assert_false (mc_denoise_weights (&f, FALSE, 8, 4096, w, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  g_assert_false (mc_denoise_weights (&f, FALSE, 7, 160, w, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  g_assert_false (mc_denoise_weights (&f, FALSE, 8, 160, NULL, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  f.block_w = 5;
  g_assert_false (mc_denoise_weights (&f, FALSE, 8, 160, w, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  g_assert_false (mc_denoise_weights (NULL, FALSE, 8, 160, w, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
}

static void
fill_const (MCPlane * p, int v)
{
  for (unsigned y = 0; y < p->height; y++)
    for (unsigned x = 0; x < p->width; x++)
      set (p, x, y, v);
}

static void
denoise_ok (const MCPlane * cur, const MCPlane * const *preds,
    const guint8 * const *w, unsigned n, unsigned bw, unsigned bh,
    unsigned cols, unsigned rows, unsigned sx, unsigned sy, MCPlane * out,
    gboolean obmc, unsigned threads)
{
  GError *err = NULL;
  MCOptions o = opts (obmc, threads);
  gboolean ok = mc_denoise_plane (cur, preds, w, n, bw, bh, cols, rows, sx,
      sy, out, &o, &err);
  g_assert_no_error (err);
  g_assert_true (ok);
}

/* Known answers: one prediction weighing 64 everywhere gives the mean of
 * cur and it, rounded up, (c + p + 1) >> 1; weighing 0, cur exactly; four
 * constant predictions, their weighted mean. */
static void
test_denoise_known (void)
{
  static const struct
  {
    unsigned depth, shift;
  } fmt[] = { {8, 0}, {10, 6}, {12, 0}, {16, 0} };
  GRand *rand = g_rand_new_with_seed (11);
  for (unsigned i = 0; i < G_N_ELEMENTS (fmt); i++) {
    const unsigned w = 37, h = 21;
    TPlane cur, pred, out;
    tplane_init (&cur, w, h, fmt[i].depth, fmt[i].shift);
    tplane_init (&pred, w, h, fmt[i].depth, fmt[i].shift);
    tplane_init (&out, w, h, fmt[i].depth, fmt[i].shift);
    fill_random (&cur.p, rand);
    fill_random (&pred.p, rand);
    guint8 wts[5 * 3];
    const guint8 *wp[1] = { wts };
    const MCPlane *pp[1] = { &pred.p };
    for (int obmc = 0; obmc < 2; obmc++) {
      memset (wts, 64, sizeof wts);
      denoise_ok (&cur.p, pp, wp, 1, 8, 8, 5, 3, 0, 0, &out.p, obmc, 2);
      for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
          g_assert_cmpint (get (&out.p, x, y), ==, (get (&cur.p, x, y)
                  + get (&pred.p, x, y) + 1) >> 1);
      memset (wts, 0, sizeof wts);
      denoise_ok (&cur.p, pp, wp, 1, 8, 8, 5, 3, 0, 0, &out.p, obmc, 1);
      assert_planes_equal (&out.p, &cur.p);
    }
    /* four constant predictions around a constant cur, blocks of 16
     * (chroma of 4:2:0: cells of 8), one weight per prediction */
    const int scale = 1 << (fmt[i].depth - 8);
    TPlane p4[4];
    const MCPlane *pp4[4];
    guint8 w4[4][5 * 3];
    const guint8 *wp4[4];
    static const guint8 wv[4] = { 64, 64, 32, 0 };
    for (int k = 0; k < 4; k++) {
      tplane_init (&p4[k], w, h, fmt[i].depth, fmt[i].shift);
      fill_const (&p4[k].p, 10 * (k + 1) * scale);
      pp4[k] = &p4[k].p;
      memset (w4[k], wv[k], sizeof w4[k]);
      wp4[k] = w4[k];
    }
    fill_const (&cur.p, 100 * scale);
    denoise_ok (&cur.p, pp4, wp4, 4, 16, 16, 5, 3, 1, 1, &out.p, TRUE, 3);
    /* (64 100 + 64 10 + 64 20 + 32 30) s / 224 = 41.43 s, rounded */
    const int want = (int) ((2 * 9280 * (gint64) scale + 224) / 448);
    if (scale == 1)
      g_assert_cmpint (want, ==, 41);
    for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w; x++)
        g_assert_cmpint (get (&out.p, x, y), ==, want);
    for (int k = 0; k < 4; k++)
      tplane_clear (&p4[k]);
    tplane_clear (&cur);
    tplane_clear (&pred);
    tplane_clear (&out);
  }
  g_rand_free (rand);
}

/* The weights are spread as mc_blend_plane() spreads its one: a blend of
 * a plane of 64 with a plane of 0 is the sample weight w itself ((64 w +
 * 32) >> 6 = w), and each prediction's sample weight then gives the
 * sample (2 (64 c + sum w_i p_i) + W) / 2W, W = 64 + sum w_i, at every
 * sample, with random block weights, random planes, every block shape,
 * luma and subsampled chroma, with and without overlap. */
static void
test_denoise_obmc_as_blend (void)
{
  GRand *rand = g_rand_new_with_seed (12);
  for (unsigned t = 0; t < 24; t++) {
    const unsigned depth = t % 3 == 0 ? 8 : t % 3 == 1 ? 10 : 16;
    const unsigned bw = 4 << (t % 3), bh = 4 << ((t / 3) % 3);
    const unsigned sx = t & 1, sy = (t >> 1) & 1;
    const unsigned w = g_rand_int_range (rand, 1, 70);
    const unsigned h = g_rand_int_range (rand, 1, 50);
    const unsigned cols = (w + (bw >> sx) - 1) / (bw >> sx);
    const unsigned rows = (h + (bh >> sy) - 1) / (bh >> sy);
    const gboolean obmc = t % 5 != 4;
    const unsigned n = 1 + t % 3;
    TPlane cur, out, one, zero, wmap[3], pred[3];
    const MCPlane *pp[3];
    guint8 *wts[3];
    const guint8 *wp[3];
    tplane_init (&cur, w, h, depth, 0);
    tplane_init (&out, w, h, depth, 0);
    tplane_init (&one, w, h, depth, 0);
    tplane_init (&zero, w, h, depth, 0);
    fill_random (&cur.p, rand);
    fill_const (&one.p, 64);
    for (unsigned k = 0; k < n; k++) {
      tplane_init (&pred[k], w, h, depth, 0);
      tplane_init (&wmap[k], w, h, depth, 0);
      fill_random (&pred[k].p, rand);
      pp[k] = &pred[k].p;
      wts[k] = g_malloc (cols * rows);
      for (unsigned j = 0; j < cols * rows; j++)
        wts[k][j] = g_rand_int_range (rand, 0, 65);
      wp[k] = wts[k];
      GError *err = NULL;
      MCOptions o = opts (obmc, 1);
      g_assert_true (mc_blend_plane (&one.p, &zero.p, &wmap[k].p, wts[k], bw,
              bh, cols, rows, sx, sy, &o, &err));
      g_assert_no_error (err);
    }
    denoise_ok (&cur.p, pp, wp, n, bw, bh, cols, rows, sx, sy, &out.p, obmc,
        2);
    gboolean some_between = FALSE;
    for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w; x++) {
        guint64 sum = 64 * (guint64) get (&cur.p, x, y), wsum = 64;
        for (unsigned k = 0; k < n; k++) {
          const int wk = get (&wmap[k].p, x, y);
          g_assert_cmpint (wk, <=, 64);
          some_between |= wk > 0 && wk < 64;
          sum += (guint64) wk * get (&pred[k].p, x, y);
          wsum += wk;
        }
        g_assert_cmpint (get (&out.p, x, y), ==, (2 * sum + wsum)
            / (2 * wsum));
      }
    /* random weights leave some sample weight strictly between */
    if (w * h > 16)
      g_assert_true (some_between);
    for (unsigned k = 0; k < n; k++) {
      tplane_clear (&pred[k]);
      tplane_clear (&wmap[k]);
      g_free (wts[k]);
    }
    tplane_clear (&cur);
    tplane_clear (&out);
    tplane_clear (&one);
    tplane_clear (&zero);
  }
  g_rand_free (rand);
}

/* An interleaved output (NV12's U, P010's) gets the planar output's
 * samples and leaves every other byte as it was; an interleaved current
 * plane is read as its planar copy. */
static void
test_denoise_interleaved (void)
{
  static const struct
  {
    unsigned depth, shift;
  } fmt[] = { {8, 0}, {10, 6}, {16, 0} };
  GRand *rand = g_rand_new_with_seed (13);
  for (unsigned i = 0; i < G_N_ELEMENTS (fmt); i++) {
    const unsigned w = 23, h = 13, bps = fmt[i].depth > 8 ? 2 : 1;
    TPlane cur, pred[2], want;
    TUV out, before, icur;
    tplane_init (&cur, w, h, fmt[i].depth, fmt[i].shift);
    tplane_init (&want, w, h, fmt[i].depth, fmt[i].shift);
    fill_random (&cur.p, rand);
    const MCPlane *pp[2];
    guint8 wts[2][6 * 4];
    const guint8 *wp[2] = { wts[0], wts[1] };
    for (int k = 0; k < 2; k++) {
      tplane_init (&pred[k], w, h, fmt[i].depth, fmt[i].shift);
      fill_random (&pred[k].p, rand);
      pp[k] = &pred[k].p;
      for (unsigned j = 0; j < sizeof wts[k]; j++)
        wts[k][j] = g_rand_int_range (rand, 0, 65);
    }
    tuv_init (&out, w, h, fmt[i].depth, fmt[i].shift, i == 1, 0);
    for (size_t j = 0; j < out.size; j++)
      out.buf[j] = g_rand_int (rand);
    tuv_init (&before, w, h, fmt[i].depth, fmt[i].shift, i == 1, 0);
    memcpy (before.buf, out.buf, out.size);
    denoise_ok (&cur.p, pp, wp, 2, 8, 8, 6, 4, 1, 1, &want.p, TRUE, 1);
    denoise_ok (&cur.p, pp, wp, 2, 8, 8, 6, 4, 1, 1, &out.u, TRUE, 3);
    assert_planes_equal (&out.u, &want.p);
    for (size_t j = 0; j < out.size; j++) {
      const size_t y = j / out.u.stride, b = j % out.u.stride;
      const size_t ub = (size_t) (out.u.data - out.buf);
      const gboolean is_u = b >= ub && b < ub + 2 * bps * w
          && (b - ub) % (2 * bps) < bps;
      if (!is_u && out.buf[j] != before.buf[j])
        g_error ("%u bits: byte %zu of row %zu, not U's, changed",
            fmt[i].depth, b, y);
    }
    /* the current plane interleaved: V of a UV block holding cur's
     * samples, U random */
    tuv_init (&icur, w, h, fmt[i].depth, fmt[i].shift, FALSE, 0);
    for (size_t j = 0; j < icur.size; j++)
      icur.buf[j] = g_rand_int (rand);
    for (unsigned y = 0; y < h; y++)
      for (unsigned x = 0; x < w; x++)
        set (&icur.v, x, y, get (&cur.p, x, y));
    TPlane o2;
    tplane_init (&o2, w, h, fmt[i].depth, fmt[i].shift);
    denoise_ok (&icur.v, pp, wp, 2, 8, 8, 6, 4, 1, 1, &o2.p, TRUE, 2);
    assert_planes_equal (&o2.p, &want.p);
    tplane_clear (&o2);
    g_free (icur.buf);
    g_free (out.buf);
    g_free (before.buf);
    for (int k = 0; k < 2; k++)
      tplane_clear (&pred[k]);
    tplane_clear (&cur);
    tplane_clear (&want);
  }
  g_rand_free (rand);
}

#define DN_REFUSED(call, text) G_STMT_START { \
    g_assert_false (call); \
    g_assert_error (err, MC_ERROR, MC_ERROR_INVALID); \
    g_assert_nonnull (strstr (err->message, text)); \
    g_clear_error (&err); \
  } G_STMT_END

static void
test_denoise_bad_input (void)
{
  TPlane cur, pred, out, small, deep;
  tplane_init (&cur, 20, 20, 8, 0);
  tplane_init (&pred, 20, 20, 8, 0);
  tplane_init (&out, 20, 20, 8, 0);
  tplane_init (&small, 19, 20, 8, 0);
  tplane_init (&deep, 20, 20, 10, 0);
  guint8 wts[9];
  memset (wts, 64, sizeof wts);
  const guint8 *wp[9];
  const MCPlane *pp[9];
  for (int i = 0; i < 9; i++) {
    wp[i] = wts;
    pp[i] = &pred.p;
  }
  GError *err = NULL;
  /* the good call first */
  g_assert_true (mc_denoise_plane (&cur.p, pp, wp, 8, 8, 8, 3, 3, 0, 0,
          &out.p, NULL, &err));
  g_assert_no_error (err);
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wp, 0, 8, 8, 3, 3, 0, 0, &out.p,
          NULL, &err), "0, not 1..8");
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wp, 9, 8, 8, 3, 3, 0, 0, &out.p,
          NULL, &err), "9, not 1..8");
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, NULL, 1, 8, 8, 3, 3, 0, 0, &out.p,
          NULL, &err), "no weights");
  DN_REFUSED (mc_denoise_plane (&cur.p, NULL, wp, 1, 8, 8, 3, 3, 0, 0, &out.p,
          NULL, &err), "no predictions");
  const guint8 *wnull[2] = { wts, NULL };
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wnull, 2, 8, 8, 3, 3, 0, 0,
          &out.p, NULL, &err), "none for prediction 1");
  /* shapes */
  const MCPlane *ps[2] = { &pred.p, &small.p };
  DN_REFUSED (mc_denoise_plane (&cur.p, ps, wp, 2, 8, 8, 3, 3, 0, 0, &out.p,
          NULL, &err), "prediction 1");
  const MCPlane *pd[1] = { &deep.p };
  DN_REFUSED (mc_denoise_plane (&cur.p, pd, wp, 1, 8, 8, 3, 3, 0, 0, &out.p,
          NULL, &err), "10 bits");
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wp, 1, 8, 8, 3, 3, 0, 0,
          &small.p, NULL, &err), "19x20");
  /* overlaps: out is cur, out is a prediction, out inside a prediction */
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wp, 1, 8, 8, 3, 3, 0, 0, &cur.p,
          NULL, &err), "overlaps the current plane");
  const MCPlane *po[2] = { &pred.p, &out.p };
  DN_REFUSED (mc_denoise_plane (&cur.p, po, wp, 2, 8, 8, 3, 3, 0, 0, &out.p,
          NULL, &err), "overlaps prediction 1");
  MCPlane inner = pred.p;
  inner.data += pred.p.stride;
  inner.height = 19;
  MCPlane cur19 = cur.p;
  cur19.height = 19;
  DN_REFUSED (mc_denoise_plane (&cur19, pp, wp, 1, 8, 8, 3, 3, 0, 0, &inner,
          NULL, &err), "20x20");
  /* weights, grid, subsampling, block sides */
  guint8 heavy[9];
  memset (heavy, 64, sizeof heavy);
  heavy[4] = 65;
  const guint8 *wh[2] = { wts, heavy };
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wh, 2, 8, 8, 3, 3, 0, 0, &out.p,
          NULL, &err), "block 4 of prediction 1 weighs 65");
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wp, 1, 8, 8, 2, 3, 0, 0, &out.p,
          NULL, &err), "do not cover");
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wp, 1, 8, 8, 0, 3, 0, 0, &out.p,
          NULL, &err), "0x3 blocks");
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wp, 1, 8, 8, 3, 3, 2, 0, &out.p,
          NULL, &err), "subsampling");
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wp, 1, 8, 12, 3, 3, 0, 0, &out.p,
          NULL, &err), "12");
  DN_REFUSED (mc_denoise_plane (NULL, pp, wp, 1, 8, 8, 3, 3, 0, 0, &out.p,
          NULL, &err), "current plane");
  /* device planes with the C reference */
  MCOptions o = opts (TRUE, 1);
  o.device = MC_DEVICE_ALL;
  DN_REFUSED (mc_denoise_plane (&cur.p, pp, wp, 1, 8, 8, 3, 3, 0, 0, &out.p,
          &o, &err), "device memory");
  /* nothing was written by a refused call: out is still the good call's */
  TPlane want;
  tplane_init (&want, 20, 20, 8, 0);
  g_assert_true (mc_denoise_plane (&cur.p, pp, wp, 8, 8, 8, 3, 3, 0, 0,
          &want.p, NULL, &err));
  assert_planes_equal (&out.p, &want.p);
  tplane_clear (&want);
  tplane_clear (&cur);
  tplane_clear (&pred);
  tplane_clear (&out);
  tplane_clear (&small);
  tplane_clear (&deep);
}

#undef DN_REFUSED

/* A Gaussian sample, Box-Muller. */
static double
gauss (GRand * rand)
{
  const double u = 1.0 - g_rand_double (rand), v = g_rand_double (rand);
  return sqrt (-2.0 * log (u)) * cos (2.0 * G_PI * v);
}

/* A flat plane under noise of sigma s, five times, independently. */
static void
noisy_flat (MCPlane * p, GRand * rand, int level, double s)
{
  const int maxv = (1 << p->depth) - 1;
  for (unsigned y = 0; y < p->height; y++)
    for (unsigned x = 0; x < p->width; x++) {
      const int v = (int) lround (level + s * gauss (rand));
      set (p, x, y, v < 0 ? 0 : v > maxv ? maxv : v);
    }
}

static double
plane_sigma (const MCPlane * p)
{
  double s = 0, s2 = 0;
  const double n = (double) p->width * p->height;
  for (unsigned y = 0; y < p->height; y++)
    for (unsigned x = 0; x < p->width; x++) {
      const double v = get (p, x, y);
      s += v;
      s2 += v * v;
    }
  return sqrt (s2 / n - (s / n) * (s / n));
}

/* The noise test: a flat plane of 128 under Gaussian noise of sigma 10,
 * and four more copies with noise of their own, perfectly aligned (each
 * predicted from its copy by a field of zero vectors).  The mean of five
 * has sigma 10 / sqrt 5 = 4.47 (4.48 with the rounding's 1/12).  With
 * every weight 64 the output must be within 0.25 of it; with the
 * weights mc_denoise_weights() gives from each block's SAD against the
 * current plane and the noise's sigma, nearly every block is noise alone
 * and weighs nearly 64, so the output must be within 0.5 of it. */
static void
test_denoise_noise (void)
{
  GRand *rand = g_rand_new_with_seed (14);
  const unsigned w = 128, h = 96, cols = w / 8, rows = h / 8;
  TPlane cur, refs[4], preds[4], out;
  TField zero;
  tfield_init (&zero, 8, 8, cols, rows, 0, 0);
  tplane_init (&cur, w, h, 8, 0);
  tplane_init (&out, w, h, 8, 0);
  noisy_flat (&cur.p, rand, 128, 10.0);
  const double s_in = plane_sigma (&cur.p);
  g_assert_cmpfloat (fabs (s_in - 10.0), <, 0.3);
  const MCPlane *pp[4];
  guint8 *wts[4];
  const guint8 *wp[4];
  for (int k = 0; k < 4; k++) {
    tplane_init (&refs[k], w, h, 8, 0);
    tplane_init (&preds[k], w, h, 8, 0);
    noisy_flat (&refs[k].p, rand, 128, 10.0);
    predict_ok (&refs[k].p, &preds[k].p, &zero.f, 0, 0, TRUE);
    assert_planes_equal (&preds[k].p, &refs[k].p);
    pp[k] = &preds[k].p;
    wts[k] = g_malloc (cols * rows);
    memset (wts[k], 64, cols * rows);
    wp[k] = wts[k];
  }
  denoise_ok (&cur.p, pp, wp, 4, 8, 8, cols, rows, 0, 0, &out.p, TRUE, 2);
  const double want = 10.0 / sqrt (5.0);
  double s_out = plane_sigma (&out.p);
  g_test_message ("noise sigma %.3f in, %.3f out with weights 64 (%.3f "
      "expected)", s_in, s_out, want);
  g_assert_cmpfloat (fabs (s_out - want), <, 0.25);

  /* weights from each block's SAD, as a search's costs would be */
  TField f;
  tfield_init (&f, 8, 8, cols, rows, 0, 0);
  double wmean = 0;
  for (int k = 0; k < 4; k++) {
    for (unsigned r = 0; r < rows; r++)
      for (unsigned c = 0; c < cols; c++) {
        guint32 sad = 0;
        for (unsigned y = r * 8; y < r * 8 + 8; y++)
          for (unsigned x = c * 8; x < c * 8 + 8; x++)
            sad += abs (get (&cur.p, x, y) - get (&preds[k].p, x, y));
        f.cells[r * cols + c].cost = sad;
      }
    GError *err = NULL;
    g_assert_true (mc_denoise_weights (&f.f, FALSE, 8, 160, wts[k], &err));
    g_assert_no_error (err);
    for (unsigned j = 0; j < cols * rows; j++)
      wmean += wts[k][j];
  }
  wmean /= 4.0 * cols * rows;
  denoise_ok (&cur.p, pp, wp, 4, 8, 8, cols, rows, 0, 0, &out.p, TRUE, 1);
  s_out = plane_sigma (&out.p);
  g_test_message ("weights from costs: mean %.2f, sigma %.3f out", wmean,
      s_out);
  g_assert_cmpfloat (wmean, >, 56.0);
  g_assert_cmpfloat (fabs (s_out - want), <, 0.5);

  /* a reference that is another picture (a flat 200) weighs nothing and
   * changes nothing: the output is cur exactly */
  fill_const (&preds[0].p, 200);
  for (unsigned j = 0; j < cols * rows; j++)
    f.cells[j].cost = 72 * 64;
  g_assert_true (mc_denoise_weights (&f.f, FALSE, 8, 160, wts[0], NULL));
  denoise_ok (&cur.p, pp, wp, 1, 8, 8, cols, rows, 0, 0, &out.p, TRUE, 1);
  assert_planes_equal (&out.p, &cur.p);

  for (int k = 0; k < 4; k++) {
    tplane_clear (&refs[k]);
    tplane_clear (&preds[k]);
    g_free (wts[k]);
  }
  g_free (f.cells);
  g_free (zero.cells);
  tplane_clear (&cur);
  tplane_clear (&out);
  g_rand_free (rand);
}

/* mc_denoise_picture() on gray pictures of one plane: a picture whose
 * references are itself moved by a whole vector and predicted back by
 * the opposite field gives the picture itself at any weight (every
 * prediction equals cur), the same call with the fast CPU implementation
 * and with the C reference gives the same samples as mc_denoise_plane()
 * over predictions made by hand, and bad input is refused. */
static void
gray_picture (MCPicture * pic, MCPlane * p)
{
  memset (pic, 0, sizeof *pic);
  pic->chroma = MC_CHROMA_NONE;
  pic->planes[0] = *p;
}

static void
test_denoise_picture (void)
{
  GRand *rand = g_rand_new_with_seed (35);
  const unsigned w = 64, h = 48, cols = w / 8, rows = h / 8;
  TPlane cur, refs[2], preds[2], want, out;
  TField f[2];
  tplane_init (&cur, w, h, 8, 0);
  tplane_init (&want, w, h, 8, 0);
  tplane_init (&out, w, h, 8, 0);
  fill_random (&cur.p, rand);
  MCPicture pc, pr[2], po;
  const MCPicture *rp[2] = { &pr[0], &pr[1] };
  const MCField *fp[2] = { &f[0].f, &f[1].f };
  const MCPlane *pp[2];
  guint8 wts[2][8 * 6];
  const guint8 *wp[2] = { wts[0], wts[1] };
  for (int k = 0; k < 2; k++) {
    tplane_init (&refs[k], w, h, 8, 0);
    tplane_init (&preds[k], w, h, 8, 0);
    fill_random (&refs[k].p, rand);
    tfield_init (&f[k], 8, 8, cols, rows, k ? 6 : -5, k ? -3 : 9);
    for (unsigned j = 0; j < cols * rows; j++)
      wts[k][j] = (guint8) g_rand_int_range (rand, 0, 65);
    predict_ok (&refs[k].p, &preds[k].p, &f[k].f, 0, 0, TRUE);
    pp[k] = &preds[k].p;
    gray_picture (&pr[k], &refs[k].p);
  }
  gray_picture (&pc, &cur.p);
  denoise_ok (&cur.p, pp, wp, 2, 8, 8, cols, rows, 0, 0, &want.p, TRUE, 1);
  const MCImpl *impls[2] = { mc_impl_c (), mc_impl_cpu () };
  for (int i = 0; i < 2; i++) {
    MCOptions opt = opts (TRUE, 1 + i);
    opt.impl = impls[i];
    GError *err = NULL;
    fill_const (&out.p, 0);
    gray_picture (&po, &out.p);
    g_assert_true (mc_denoise_picture (&pc, rp, fp, wp, 2, &po, &opt, &err));
    g_assert_no_error (err);
    assert_planes_equal (&out.p, &want.p);
  }

  /* bad input: refused with MC_ERROR_INVALID, the output untouched */
  fill_const (&out.p, 77);
  gray_picture (&po, &out.p);
#define DP_REFUSED(call) G_STMT_START { \
    GError *err = NULL; \
    g_assert_false (call); \
    g_assert_error (err, MC_ERROR, MC_ERROR_INVALID); \
    g_test_message ("refused: %s", err->message); \
    g_error_free (err); \
  } G_STMT_END
  DP_REFUSED (mc_denoise_picture (&pc, rp, fp, wp, 0, &po, NULL, &err));
  DP_REFUSED (mc_denoise_picture (&pc, rp, fp, wp, MC_DENOISE_MAX_REFS + 1,
          &po, NULL, &err));
  DP_REFUSED (mc_denoise_picture (&pc, NULL, fp, wp, 2, &po, NULL, &err));
  const MCField *fnull[2] = { &f[0].f, NULL };
  DP_REFUSED (mc_denoise_picture (&pc, rp, fnull, wp, 2, &po, NULL, &err));
  TField other;
  tfield_init (&other, 16, 16, 4, 3, 0, 0);
  const MCField *fmix[2] = { &f[0].f, &other.f };
  DP_REFUSED (mc_denoise_picture (&pc, rp, fmix, wp, 2, &po, NULL, &err));
  guint8 heavy[8 * 6];
  memset (heavy, 65, sizeof heavy);
  const guint8 *wh[2] = { wts[0], heavy };
  DP_REFUSED (mc_denoise_picture (&pc, rp, fp, wh, 2, &po, NULL, &err));
  MCPicture po_ref;
  gray_picture (&po_ref, &refs[1].p);
  DP_REFUSED (mc_denoise_picture (&pc, rp, fp, wp, 2, &po_ref, NULL, &err));
  MCPicture p420 = pc;
  p420.chroma = MC_CHROMA_420;
  DP_REFUSED (mc_denoise_picture (&pc, rp, fp, wp, 2, &p420, NULL, &err));
  TPlane small;
  tplane_init (&small, w - 8, h, 8, 0);
  MCPicture psmall;
  gray_picture (&psmall, &small.p);
  const MCPicture *rsmall[2] = { &pr[0], &psmall };
  DP_REFUSED (mc_denoise_picture (&pc, rsmall, fp, wp, 2, &po, NULL, &err));
#undef DP_REFUSED
  TPlane untouched;
  tplane_init (&untouched, w, h, 8, 0);
  fill_const (&untouched.p, 77);
  assert_planes_equal (&out.p, &untouched.p);

  tplane_clear (&untouched);
  tplane_clear (&small);
  g_free (other.cells);
  for (int k = 0; k < 2; k++) {
    tplane_clear (&refs[k]);
    tplane_clear (&preds[k]);
    g_free (f[k].cells);
  }
  tplane_clear (&cur);
  tplane_clear (&want);
  tplane_clear (&out);
  g_rand_free (rand);
}

/* mc_denoise_estimate() on the costs two noisy copies of a flat plane
 * give (the SAD of each 8x8 block, as a search with the zero vector would
 * find): the estimate follows the noise (sigma 5, 10 and 20 give 1 : 2 :
 * 4 within 10 %), lies within 40 % of the truth whatever the calibration,
 * does not change with the depth the costs are in (costs of 10-bit
 * samples are 4 times larger), and is FALSE for a field without a
 * reference or with too few whole blocks. */
static void
test_denoise_estimate (void)
{
  GRand *rand = g_rand_new_with_seed (36);
  const unsigned w = 256, h = 128, cols = w / 8, rows = h / 8;
  static const double sigmas[3] = { 5.0, 10.0, 20.0 };
  double est[3];
  TField f;
  tfield_init (&f, 8, 8, cols, rows, 0, 0);
  for (int k = 0; k < 3; k++) {
    TPlane a, b;
    tplane_init (&a, w, h, 8, 0);
    tplane_init (&b, w, h, 8, 0);
    noisy_flat (&a.p, rand, 128, sigmas[k]);
    noisy_flat (&b.p, rand, 128, sigmas[k]);
    for (unsigned r = 0; r < rows; r++)
      for (unsigned c = 0; c < cols; c++) {
        guint32 sad = 0;
        for (unsigned y = r * 8; y < r * 8 + 8; y++)
          for (unsigned x = c * 8; x < c * 8 + 8; x++)
            sad += abs (get (&a.p, x, y) - get (&b.p, x, y));
        f.cells[r * cols + c].cost = sad;
      }
    unsigned q4 = 0, q4_10 = 0;
    g_assert_true (mc_denoise_estimate (&f.f, FALSE, w, h, 8, &q4));
    est[k] = q4 / 16.0;
    g_test_message ("noise sigma %.0f: estimate %.3f", sigmas[k], est[k]);
    g_assert_cmpfloat (est[k], >, 0.6 * sigmas[k]);
    g_assert_cmpfloat (est[k], <, 1.4 * sigmas[k]);
    for (unsigned j = 0; j < cols * rows; j++)
      f.cells[j].cost *= 4;
    g_assert_true (mc_denoise_estimate (&f.f, FALSE, w, h, 10, &q4_10));
    g_assert_cmpuint (q4_10, ==, q4);
    tplane_clear (&a);
    tplane_clear (&b);
  }
  g_assert_cmpfloat (fabs (est[1] / est[0] - 2.0), <, 0.2);
  g_assert_cmpfloat (fabs (est[2] / est[0] - 4.0), <, 0.4);
  unsigned q4 = 12345;
  g_assert_false (mc_denoise_estimate (&f.f, TRUE, w, h, 8, &q4));
  g_assert_false (mc_denoise_estimate (&f.f, FALSE, 24, 16, 8, &q4));
  g_assert_cmpuint (q4, ==, 12345);
  g_free (f.cells);
  g_rand_free (rand);
}

/* mc_sigma_filter_plane(): threshold 0 copies; a step of 100 between two
 * flat halves with a threshold under it stays a sharp step; a sample is
 * the rounded mean of the window's samples within the threshold, by hand;
 * flat noise of sigma 4.47 (what radius 2 leaves of sigma 10) falls
 * under 1.75 with a 5x5 window and a threshold of 2.5 sigma (measured
 * 1.49: 25 samples of which about 98 % count would give sigma / 5 = 0.89,
 * but the window's samples are neighbours of the ones it is averaged
 * with, and the output is rounded to whole levels); bad input refused. */
static void
test_sigma_filter (void)
{
  GRand *rand = g_rand_new_with_seed (37);
  TPlane in, out;
  tplane_init (&in, 64, 48, 8, 0);
  tplane_init (&out, 64, 48, 8, 0);
  fill_random (&in.p, rand);
  GError *err = NULL;
  g_assert_true (mc_sigma_filter_plane (&in.p, &out.p, 2, 0, NULL, &err));
  assert_planes_equal (&out.p, &in.p);
  for (unsigned y = 0; y < 48; y++)
    for (unsigned x = 0; x < 64; x++)
      set (&in.p, x, y, x < 30 ? 50 : 150);
  g_assert_true (mc_sigma_filter_plane (&in.p, &out.p, 3, 99, NULL, &err));
  assert_planes_equal (&out.p, &in.p);
  /* by hand: a 3x3 window at (1, 1) of 10 20 30 / 40 50 60 / 70 80 250,
   * threshold 30: 20 30 40 50 60 70 80 count (7 samples, 350), 10 and
   * 250 do not: (700 + 7) / 14 = 50 */
  static const int v[3][3] = { {10, 20, 30}, {40, 50, 60}, {70, 80, 250} };
  for (unsigned y = 0; y < 3; y++)
    for (unsigned x = 0; x < 3; x++)
      set (&in.p, x, y, v[y][x]);
  g_assert_true (mc_sigma_filter_plane (&in.p, &out.p, 1, 30, NULL, &err));
  g_assert_cmpint (get (&out.p, 1, 1), ==, 50);
  /* at the corner (0, 0) the window is cut: 10 20 40 50 with 10: 10 20 40
   * count within 30 of 10 -> (140 + 3) / 6 = 23 */
  g_assert_cmpint (get (&out.p, 0, 0), ==, 23);
  noisy_flat (&in.p, rand, 128, 4.47);
  g_assert_true (mc_sigma_filter_plane (&in.p, &out.p, 2, 11, NULL, &err));
  g_assert_no_error (err);
  const double s_out = plane_sigma (&out.p);
  g_test_message ("flat noise sigma %.3f -> %.3f", plane_sigma (&in.p), s_out);
  g_assert_cmpfloat (s_out, <, 1.75);
  TPlane small;
  tplane_init (&small, 32, 48, 8, 0);
  g_assert_false (mc_sigma_filter_plane (&in.p, &out.p, 0, 5, NULL, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  g_assert_false (mc_sigma_filter_plane (&in.p, &out.p, 4, 5, NULL, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  g_assert_false (mc_sigma_filter_plane (&in.p, &small.p, 2, 5, NULL, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  g_assert_false (mc_sigma_filter_plane (&in.p, &in.p, 2, 5, NULL, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  tplane_clear (&small);
  tplane_clear (&in);
  tplane_clear (&out);
  g_rand_free (rand);
}

/* ---- interpolation ------------------------------------------------------ */

typedef struct {
  MCPicture pic;
  TPlane pl[3];
} TPic;

static void
tpic_init (TPic * t, MCChroma chroma, unsigned w, unsigned h, unsigned depth,
    unsigned shift)
{
  const unsigned sx = chroma == MC_CHROMA_420 || chroma == MC_CHROMA_422;
  const unsigned sy = chroma == MC_CHROMA_420;
  memset (t, 0, sizeof *t);
  t->pic.chroma = chroma;
  for (unsigned i = 0; i < 3; i++) {
    tplane_init (&t->pl[i], i ? (w + sx) >> sx : w, i ? (h + sy) >> sy : h,
        depth, shift);
    t->pic.planes[i] = t->pl[i].p;
  }
}

static unsigned
tpic_planes (const TPic * t)
{
  return t->pic.chroma == MC_CHROMA_NONE ? 1 : 3;
}

static void
tpic_clear (TPic * t)
{
  for (unsigned i = 0; i < 3; i++)
    tplane_clear (&t->pl[i]);
}

static void
assert_pics_equal (const TPic * a, const TPic * b)
{
  for (unsigned i = 0; i < tpic_planes (a); i++)
    assert_planes_equal (&a->pic.planes[i], &b->pic.planes[i]);
}

/* A field of random vectors (up to 8 pixels each way) with one cost. */
static void
tfield_random (TField * t, unsigned bw, unsigned bh, unsigned w, unsigned h,
    guint32 cost, GRand * rand)
{
  tfield_init (t, bw, bh, (w + bw - 1) / bw, (h + bh - 1) / bh, 0, 0);
  for (unsigned i = 0; i < t->f.cols * t->f.rows; i++) {
    t->cells[i].mv_x = g_rand_int_range (rand, -32, 33);
    t->cells[i].mv_y = g_rand_int_range (rand, -32, 33);
    t->cells[i].cost = cost;
  }
}

static void
interp_ok (const TPic * prev, const TPic * next, TPic * out,
    const MCField * fn, const MCField * fp, int num, int den,
    MCInterpMode mode, unsigned *n_fallback)
{
  GError *err = NULL;
  MCOptions o = opts (TRUE, 2);
  gboolean ok = mc_interpolate_picture (&prev->pic, &next->pic, &out->pic,
      fn, fp, num, den, mode, &o, n_fallback, &err);
  g_assert_no_error (err);
  g_assert_true (ok);
}


/* ---- the bilateral choice ----------------------------------------------- */

/* The whole-sample position and the ranking key, by hand. */
static void
test_bi_rule (void)
{
  /* (d + 2) >> 2: nearest whole sample, halves up */
  g_assert_cmpint (mc_bi_pos (5, 0, 10), ==, 5);
  g_assert_cmpint (mc_bi_pos (5, 1, 10), ==, 5);
  g_assert_cmpint (mc_bi_pos (5, 2, 10), ==, 6);
  g_assert_cmpint (mc_bi_pos (5, -2, 10), ==, 5);
  g_assert_cmpint (mc_bi_pos (5, -3, 10), ==, 4);
  g_assert_cmpint (mc_bi_pos (5, 6, 10), ==, 7);
  g_assert_cmpint (mc_bi_pos (5, -7, 10), ==, 3);
  /* clamped into the plane */
  g_assert_cmpint (mc_bi_pos (0, -8, 10), ==, 0);
  g_assert_cmpint (mc_bi_pos (9, 8, 10), ==, 9);
  g_assert_cmpint (mc_bi_pos (3, -32768, 10), ==, 0);
  g_assert_cmpint (mc_bi_pos (3, 32767, 10), ==, 9);
  /* cost + len bw bh 16 2^(depth - 8) / 256 */
  g_assert_cmpuint (mc_bi_key (100, 0, 16, 16, 8), ==, 100);
  g_assert_cmpuint (mc_bi_key (100, 3, 16, 16, 8), ==, 148);
  g_assert_cmpuint (mc_bi_key (100, 3, 16, 16, 10), ==, 292);
  g_assert_cmpuint (mc_bi_key (100, 3, 8, 8, 8), ==, 112);
  g_assert_cmpuint (mc_bi_key (0, 131072, 16, 16, 16), ==,
      131072ull * 16 * 256);
}

/* floor (n / 4), written apart from the library's shift */
static int
floor4 (int n)
{
  return n >= 0 ? n / 4 : -((-n + 3) / 4);
}

static int
clampi (int v, int n)
{
  return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* mc_bilateral_costs() against the rule written out sample by sample, on
 * an odd size no block divides, 10 bits in the high bits of the word,
 * candidates near and far (the int16 limits), every implementation. */
static void
test_bi_costs_naive (void)
{
  GRand *rand = g_rand_new_with_seed (31);
  const unsigned W = 37, H = 23, bw = 8, bh = 4, k = 5;
  TPlane a, b;
  tplane_init (&a, W, H, 10, 6);
  tplane_init (&b, W, H, 10, 6);
  fill_random (&a.p, rand);
  fill_random (&b.p, rand);
  const unsigned cols = 5, rows = 6;
  MCBiCand *cand = g_new (MCBiCand, cols * rows * k);
  for (unsigned i = 0; i < cols * rows * k; i++) {
    const int far = g_rand_int_range (rand, 0, 4) == 0;
    const int lim = far ? 32768 : 40;
    cand[i].ax = g_rand_int_range (rand, -lim, lim);
    cand[i].ay = g_rand_int_range (rand, -lim, lim);
    cand[i].bx = g_rand_int_range (rand, -lim, lim);
    cand[i].by = g_rand_int_range (rand, -lim, lim);
  }
  cand[0] = (MCBiCand) { -32768, -32768, 32767, 32767 };
  guint32 *costs = g_new (guint32, cols * rows * k);
  const MCImpl *impls[2] = { mc_impl_c (), mc_impl_cpu () };
  for (unsigned m = 0; m < 2; m++) {
    MCOptions o = opts (TRUE, 2);
    o.impl = impls[m];
    GError *err = NULL;
    memset (costs, 0xff, cols * rows * k * sizeof *costs);
    g_assert_true (mc_bilateral_costs (&a.p, &b.p, bw, bh, cand, k, costs,
            &o, &err));
    g_assert_no_error (err);
    unsigned nonzero = 0;
    for (unsigned r = 0; r < rows; r++)
      for (unsigned c = 0; c < cols; c++)
        for (unsigned j = 0; j < k; j++) {
          const MCBiCand *cd = &cand[(r * cols + c) * k + j];
          guint32 want = 0;
          for (unsigned y = r * bh; y < MIN ((r + 1) * bh, H); y++)
            for (unsigned x = c * bw; x < MIN ((c + 1) * bw, W); x++)
              want += ABS (get (&a.p, clampi (x + floor4 (cd->ax + 2), W),
                      clampi (y + floor4 (cd->ay + 2), H))
                  - get (&b.p, clampi (x + floor4 (cd->bx + 2), W),
                      clampi (y + floor4 (cd->by + 2), H)));
          g_assert_cmpuint (costs[(r * cols + c) * k + j], ==, want);
          nonzero += want != 0;
        }
    g_assert_cmpuint (nonzero, >, cols * rows * k / 2);
  }
  /* bad input: no candidates, a block size, two shapes */
  GError *err = NULL;
  g_assert_false (mc_bilateral_costs (&a.p, &b.p, bw, bh, cand, 0, costs,
          NULL, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  g_assert_false (mc_bilateral_costs (&a.p, &b.p, 6, bh, cand, k, costs,
          NULL, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  b.p.width--;
  g_assert_false (mc_bilateral_costs (&a.p, &b.p, bw, bh, cand, k, costs,
          NULL, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  b.p.width++;
  g_free (costs);
  g_free (cand);
  tplane_clear (&a);
  tplane_clear (&b);
  g_rand_free (rand);
}

/* A textured 16x16 square moving 8 pixels right over a still textured
 * background, 8x8 blocks, each field with the square's vector where the
 * square is in its own frame.  At t = 1/2 the cells of the square's left
 * half are background in frame next, so next's field has 0 there: the
 * vector pair the two fields give at the same cell (prev read at q,
 * next at q + 4) made a double image.  The bilateral choice takes the
 * square's motion for both sides of its four cells, and the picture is
 * the square moved 4 pixels, exactly, inside the margin where no other
 * cell's window reaches. */
static void
test_bi_moving_square (void)
{
  GRand *rand = g_rand_new_with_seed (47);
  const int W = 64, H = 48;
  TPic prev, next, out;
  tpic_init (&prev, MC_CHROMA_NONE, W, H, 8, 0);
  tpic_init (&next, MC_CHROMA_NONE, W, H, 8, 0);
  tpic_init (&out, MC_CHROMA_NONE, W, H, 8, 0);
  MCPlane *pp = &prev.pic.planes[0], *pn = &next.pic.planes[0];
  fill_random (pp, rand);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      set (pn, x, y, get (pp, x, y));
  guint8 square[16][16];
  /* the background alone, to compare with */
  TPlane bg;
  tplane_init (&bg, W, H, 8, 0);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      set (&bg.p, x, y, get (pp, x, y));
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 16; x++) {
      square[y][x] = (guint8) g_rand_int_range (rand, 0, 256);
      set (pp, 16 + x, 16 + y, square[y][x]);
      set (pn, 24 + x, 16 + y, square[y][x]);
    }
  TField fn, fp;
  tfield_init (&fn, 8, 8, 8, 6, 0, 0);
  tfield_init (&fp, 8, 8, 8, 6, 0, 0);
  for (int r = 2; r <= 3; r++) {
    fn.cells[r * 8 + 3].mv_x = fn.cells[r * 8 + 4].mv_x = -32;
    fp.cells[r * 8 + 2].mv_x = fp.cells[r * 8 + 3].mv_x = 32;
  }
  /* the chosen motion of the square's cells at t = 1/2 */
  GstMotionVectorCell a[48], b[48];
  GError *err = NULL;
  unsigned nfb = 99;
  g_assert_true (mc_interpolate_fields (pp, pn, &fn.f, &fp.f, 1, 2, NULL,
          a, b, &nfb, &err));
  g_assert_no_error (err);
  g_assert_cmpuint (nfb, ==, 0);
  for (int r = 2; r <= 3; r++)
    for (int c = 2; c <= 3; c++) {
      g_assert_cmpint (a[r * 8 + c].mv_x, ==, -16);
      g_assert_cmpint (a[r * 8 + c].mv_y, ==, 0);
      g_assert_cmpint (b[r * 8 + c].mv_x, ==, 16);
      g_assert_cmpint (b[r * 8 + c].mv_y, ==, 0);
    }
  /* a background cell far from it stays still */
  g_assert_cmpint (a[0].mv_x, ==, 0);
  g_assert_cmpint (b[0].mv_x, ==, 0);
  interp_ok (&prev, &next, &out, &fn.f, &fp.f, 1, 2, MC_INTERP_MOTION, &nfb);
  /* the square at t, where only its cells' windows reach (x 20 .. 29,
   * y 18 .. 29): its own texture moved 4 pixels, once */
  for (int y = 18; y < 30; y++)
    for (int x = 20; x < 30; x++)
      g_assert_cmpint (get (&out.pic.planes[0], x, y), ==,
          square[y - 16][x - 20]);
  /* the background right of it, where both sides see it, as it is */
  for (int y = 0; y < H; y++)
    for (int x = 44; x < W; x++)
      g_assert_cmpint (get (&out.pic.planes[0], x, y), ==,
          get (&bg.p, x, y));
  tplane_clear (&bg);
  g_free (fn.cells);
  g_free (fp.cells);
  tpic_clear (&prev);
  tpic_clear (&next);
  tpic_clear (&out);
  g_rand_free (rand);
}

/* The order that breaks ties.  prev(x, y) = g(x + y) with g random and
 * next(x, y) = prev(x + 2, y): a candidate costs nothing when ax + ay =
 * bx + by + 2 pixels, so at t = 1/2 every vector of next's field with vx
 * + vy = 8 quarter pixels and every one of prev's with ux + uy = -8 does,
 * at one length (8 quarter pixels), and the zero motion does not. */
static void
test_bi_tie_break (void)
{
  GRand *rand = g_rand_new_with_seed (53);
  const int W = 64, H = 64;
  TPlane a, b;
  tplane_init (&a, W, H, 8, 0);
  tplane_init (&b, W, H, 8, 0);
  int g[140];
  for (int i = 0; i < 140; i++)
    g[i] = g_rand_int_range (rand, 0, 256);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      set (&a.p, x, y, g[x + y]);
      set (&b.p, x, y, g[x + y + 2]);
    }
  TField fn, fp;
  tfield_init (&fn, 8, 8, 8, 8, 8, 0);
  tfield_init (&fp, 8, 8, 8, 8, 0, -8);
  GstMotionVectorCell fa[64], fb[64];
  const int i = 3 * 8 + 3;      /* cell (3, 3), inside */
  GError *err = NULL;
  /* all equal: the cell's own vector of next's field, first */
  g_assert_true (mc_interpolate_fields (&a.p, &b.p, &fn.f, &fp.f, 1, 2,
          NULL, fa, fb, NULL, &err));
  g_assert_cmpint (fa[i].mv_x, ==, 4);
  g_assert_cmpint (fa[i].mv_y, ==, 0);
  g_assert_cmpint (fb[i].mv_x, ==, -4);
  g_assert_cmpint (fb[i].mv_y, ==, 0);
  /* that one costs: the cell's own of prev's field, second */
  fn.cells[i].mv_x = 16;
  g_assert_true (mc_interpolate_fields (&a.p, &b.p, &fn.f, &fp.f, 1, 2,
          NULL, fa, fb, NULL, &err));
  g_assert_cmpint (fa[i].mv_x, ==, 0);
  g_assert_cmpint (fa[i].mv_y, ==, 4);
  g_assert_cmpint (fb[i].mv_x, ==, 0);
  g_assert_cmpint (fb[i].mv_y, ==, -4);
  /* both of the cell's own cost: the left neighbour's (0, 8) of next's
   * field comes before the right one's (8, 0) */
  fp.cells[i].mv_y = 16;
  fn.cells[i - 1].mv_x = 0;
  fn.cells[i - 1].mv_y = 8;
  g_assert_true (mc_interpolate_fields (&a.p, &b.p, &fn.f, &fp.f, 1, 2,
          NULL, fa, fb, NULL, &err));
  g_assert_no_error (err);
  g_assert_cmpint (fa[i].mv_x, ==, 0);
  g_assert_cmpint (fa[i].mv_y, ==, 4);
  g_assert_cmpint (fb[i].mv_x, ==, 0);
  g_assert_cmpint (fb[i].mv_y, ==, -4);
  /* the shorter of two that cost alike wins over the earlier: the cell's
   * own (16, 0) of next's field made free by a picture that moves 4 */
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      set (&b.p, x, y, g[MIN (x + y + 4, 139)]);
  fn.cells[i].mv_x = 16;
  fn.cells[i].mv_y = 0;
  fp.cells[i].mv_x = 0;
  fp.cells[i].mv_y = -16;
  g_assert_true (mc_interpolate_fields (&a.p, &b.p, &fn.f, &fp.f, 1, 2,
          NULL, fa, fb, NULL, &err));
  g_assert_cmpint (fa[i].mv_x, ==, 8);
  g_assert_cmpint (fb[i].mv_x, ==, -8);
  /* a corner cell, its neighbours clamped into the grid, and vectors at
   * the int16 limits: still one of its candidates */
  fn.cells[0].mv_x = -32768;
  fn.cells[0].mv_y = 32767;
  g_assert_true (mc_interpolate_fields (&a.p, &b.p, &fn.f, &fp.f, 1, 2,
          NULL, fa, fb, NULL, &err));
  g_assert_no_error (err);
  g_assert_true ((fa[0].mv_x == 0 && fa[0].mv_y == 4)
      || (fa[0].mv_x == 4 && fa[0].mv_y == 0));
  g_free (fn.cells);
  g_free (fp.cells);
  tplane_clear (&a);
  tplane_clear (&b);
  g_rand_free (rand);
}

/* MC_PAIR_FIELDS: each side its own field's vector at the cell, scaled to
 * its side of t (next's field to t for prev, prev's to 1 - t for next),
 * whatever the pictures; an unknown pairing is refused. */
static void
test_pair_fields (void)
{
  const int W = 64, H = 64;
  TPlane a, b;
  tplane_init (&a, W, H, 8, 0);
  tplane_init (&b, W, H, 8, 0);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      set (&a.p, x, y, (x * 7 + y * 13) & 255);
      set (&b.p, x, y, (x * 5 + y * 11) & 255);
    }
  TField fn, fp;
  tfield_init (&fn, 8, 8, 8, 8, 8, 0);
  tfield_init (&fp, 8, 8, 8, 8, 0, -12);
  fn.cells[9].mv_x = -6;
  fn.cells[9].mv_y = 3;
  GstMotionVectorCell fa[64], fb[64];
  MCOptions opt;
  GError *err = NULL;
  mc_options_init (&opt);
  opt.pairing = MC_PAIR_FIELDS;
  g_assert_true (mc_interpolate_fields (&a.p, &b.p, &fn.f, &fp.f, 1, 3,
          &opt, fa, fb, NULL, &err));
  g_assert_no_error (err);
  for (int i = 0; i < 64; i++) {
    /* 1/3 of next's field for prev, 2/3 of prev's for next, rounded half
     * away from zero */
    g_assert_cmpint (fa[i].mv_x, ==, i == 9 ? -2 : 3);
    g_assert_cmpint (fa[i].mv_y, ==, i == 9 ? 1 : 0);
    g_assert_cmpint (fb[i].mv_x, ==, 0);
    g_assert_cmpint (fb[i].mv_y, ==, -8);
  }
  opt.pairing = (MCPairing) 7;
  g_assert_false (mc_interpolate_fields (&a.p, &b.p, &fn.f, &fp.f, 1, 3,
          &opt, fa, fb, NULL, &err));
  g_assert_error (err, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&err);
  g_free (fn.cells);
  g_free (fp.cells);
  tplane_clear (&a);
  tplane_clear (&b);
}

/* The weight rule by hand. */
static void
test_interp_weights (void)
{
  /* the plain blend: (1 - t) of 64, half up: 1/2 -> 32, 1/4 -> 48,
   * 1/3 -> 42.67 -> 43, 2/3 -> 21.33 -> 21 */
  g_assert_cmpint (mc_interp_time_weight (1, 2), ==, 32);
  g_assert_cmpint (mc_interp_time_weight (1, 4), ==, 48);
  g_assert_cmpint (mc_interp_time_weight (1, 3), ==, 43);
  g_assert_cmpint (mc_interp_time_weight (2, 3), ==, 21);
  g_assert_cmpint (mc_interp_time_weight (0, 5), ==, 64);
  g_assert_cmpint (mc_interp_time_weight (5, 5), ==, 0);
  const guint32 big = 1u << 27;
  /* below the trust the costs do not mix the sides: the time weight at
   * 1/2, 1/4 and 2/3, however unequal the costs, and both perfect */
  g_assert_cmpint (mc_interp_weight (100, 300, 1, 2, big), ==, 32);
  g_assert_cmpint (mc_interp_weight (100, 300, 1, 4, big), ==, 48);
  g_assert_cmpint (mc_interp_weight (5000, 0, 2, 3, big), ==, 21);
  g_assert_cmpint (mc_interp_weight (0, 0, 1, 4, big), ==, 48);
  /* the pictures themselves at the ends, whatever the costs */
  g_assert_cmpint (mc_interp_weight (big, big, 0, 4, 1), ==, 64);
  g_assert_cmpint (mc_interp_weight (big, big, 4, 4, 1), ==, 0);
  g_assert_cmpint (mc_interp_weight (0, 999, 7, 7, 1000), ==, 0);
  /* both above the trust: fall back; one at it, or one far past it and
   * the other not: the time weight */
  g_assert_cmpint (mc_interp_weight (1001, 1001, 1, 2, 1000), ==,
      MC_INTERP_FALLBACK);
  g_assert_cmpint (mc_interp_weight (1000, 1001, 1, 2, 1000), ==, 32);
  g_assert_cmpint (mc_interp_weight (big, 10, 1, 4, 1000), ==, 48);
  /* the threshold: 64 a sample at 8 bits, 8x8 at 10 bits: 64 x 64 x 4 */
  g_assert_cmpuint (mc_interp_trust (8, 8, 10), ==, 16384);
  g_assert_cmpuint (mc_interp_trust (16, 16, 8), ==, 64u * 256);
  g_assert_cmpuint (mc_interp_trust (16, 16, 16), ==, 64u * 256 * 256);

  /* per block of two fields, 8x8 at 10 bits (trust 16384), t = 1/4 */
  GstMotionVectorCell cn[4] = { {0, 0, 20000}, {0, 0, 16385}, {0, 0, 0},
  {0, 0, 300}
  };
  GstMotionVectorCell cp[4] = { {0, 0, 16385}, {0, 0, 100}, {0, 0, 0},
  {0, 0, 16384}
  };
  MCField fn = { 8, 8, 2, 2, 0, cn }, fp = { 8, 8, 2, 2, 0, cp };
  guint8 w[4], fb[4];
  unsigned nfb = 99;
  GError *err = NULL;
  g_assert_true (mc_interpolate_weights (&fn, &fp, 1, 4, 10, w, fb, &nfb,
          &err));
  g_assert_no_error (err);
  /* fallback (the time weight, 48); one side past the trust, the other
   * not: 48; both perfect: 48; one at the trust: 48 */
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (w[i], ==, 48);
  g_assert_cmpint (fb[0], ==, 1);
  g_assert_cmpint (fb[1] + fb[2] + fb[3], ==, 0);
  g_assert_cmpuint (nfb, ==, 1);
}

/* t = 0 and t = 1 give prev and next exactly. */
static void
test_interp_ends (void)
{
  GRand *rand = g_rand_new_with_seed (11);
  static const MCChroma chromas[] = { MC_CHROMA_420, MC_CHROMA_NONE,
    MC_CHROMA_422, MC_CHROMA_444
  };
  for (unsigned k = 0; k < G_N_ELEMENTS (chromas); k++) {
    const unsigned depth = k & 1 ? 8 : 10, W = 37 + 4 * k, H = 29;
    TPic prev, next, out;
    tpic_init (&prev, chromas[k], W, H, depth, 0);
    tpic_init (&next, chromas[k], W, H, depth, 0);
    tpic_init (&out, chromas[k], W, H, depth, depth > 8 ? 16 - depth : 0);
    for (unsigned i = 0; i < tpic_planes (&prev); i++) {
      fill_random (&prev.pic.planes[i], rand);
      fill_random (&next.pic.planes[i], rand);
    }
    TField fn, fp;
    tfield_random (&fn, 8, 8, W, H, 0, rand);
    tfield_random (&fp, 8, 8, W, H, 0, rand);
    unsigned nfb = 99;
    interp_ok (&prev, &next, &out, &fn.f, &fp.f, 0, 3, MC_INTERP_MOTION,
        &nfb);
    assert_pics_equal (&out, &prev);
    g_assert_cmpuint (nfb, ==, 0);
    interp_ok (&prev, &next, &out, &fn.f, &fp.f, 3, 3, MC_INTERP_MOTION,
        &nfb);
    assert_pics_equal (&out, &next);
    g_free (fn.cells);
    g_free (fp.cells);
    tpic_clear (&prev);
    tpic_clear (&next);
    tpic_clear (&out);
  }
  g_rand_free (rand);
}

/* A constant pan of (2, 4) pixels a frame: at t = 1/2 the picture is prev
 * moved by (1, 2), inside the margin where neither side reads past the
 * edge. */
static void
test_interp_pan (void)
{
  GRand *rand = g_rand_new_with_seed (12);
  for (unsigned depth = 8; depth <= 12; depth += 4) {
    const int W = 64, H = 48;
    TPic prev, next, out;
    tpic_init (&prev, MC_CHROMA_444, W, H, depth, 0);
    tpic_init (&next, MC_CHROMA_444, W, H, depth, 0);
    tpic_init (&out, MC_CHROMA_444, W, H, depth, 0);
    for (unsigned i = 0; i < 3; i++) {
      fill_random (&prev.pic.planes[i], rand);
      for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
          set (&next.pic.planes[i], x, y, get (&prev.pic.planes[i],
                  MAX (x - 2, 0), MAX (y - 4, 0)));
    }
    /* next(p) = prev(p - (2, 4)): next's field is -(8, 16) quarter
     * pixels, prev's +(8, 16); equal costs */
    TField fn, fp;
    tfield_init (&fn, 16, 16, 4, 3, -8, -16);
    tfield_init (&fp, 16, 16, 4, 3, 8, 16);
    for (unsigned i = 0; i < 12; i++)
      fn.cells[i].cost = fp.cells[i].cost = 100 * i;
    interp_ok (&prev, &next, &out, &fn.f, &fp.f, 1, 2, MC_INTERP_MOTION,
        NULL);
    for (unsigned i = 0; i < 3; i++)
      for (int y = 2; y < H - 2; y++)
        for (int x = 1; x < W - 1; x++)
          g_assert_cmpint (get (&out.pic.planes[i], x, y), ==,
              get (&prev.pic.planes[i], x - 1, y - 2));
    g_free (fn.cells);
    g_free (fp.cells);
    tpic_clear (&prev);
    tpic_clear (&next);
    tpic_clear (&out);
  }
  g_rand_free (rand);
}

/* Untrusted motion on both sides, or the blend mode: the plain blend of
 * prev and next, (48 prev + 16 next + 32) >> 6 at t = 1/4; the repeat
 * mode: the nearer picture. */
static void
test_interp_fallback (void)
{
  GRand *rand = g_rand_new_with_seed (13);
  const unsigned W = 45, H = 30, depth = 16;
  TPic prev, next, out;
  tpic_init (&prev, MC_CHROMA_422, W, H, depth, 0);
  tpic_init (&next, MC_CHROMA_422, W, H, depth, 0);
  tpic_init (&out, MC_CHROMA_422, W, H, depth, 0);
  for (unsigned i = 0; i < 3; i++) {
    fill_random (&prev.pic.planes[i], rand);
    fill_random (&next.pic.planes[i], rand);
  }
  /* blocks 8x4 at 16 bits: trust 64 x 32 x 256 = 524288 */
  const guint32 past = mc_interp_trust (8, 4, depth) + 1;
  g_assert_cmpuint (past, ==, 524289);
  TField fn, fp;
  tfield_random (&fn, 8, 4, W, H, past, rand);
  tfield_random (&fp, 8, 4, W, H, past, rand);
  unsigned nfb = 0;
  for (int mode = 0; mode < 2; mode++) {
    interp_ok (&prev, &next, &out, &fn.f, &fp.f, 1, 4, (MCInterpMode) mode,
        &nfb);
    g_assert_cmpuint (nfb, ==, mode ? 0 : fn.f.cols * fn.f.rows);
    for (unsigned i = 0; i < 3; i++)
      for (unsigned y = 0; y < out.pic.planes[i].height; y++)
        for (unsigned x = 0; x < out.pic.planes[i].width; x++)
          g_assert_cmpint (get (&out.pic.planes[i], x, y), ==,
              (48 * get (&prev.pic.planes[i], x, y) + 16
                  * get (&next.pic.planes[i], x, y) + 32) >> 6);
    /* the blend mode reads no field: trusted ones change nothing */
    for (unsigned c = 0; c < fn.f.cols * fn.f.rows; c++)
      fn.cells[c].cost = fp.cells[c].cost = 0;
  }
  /* one side trusted: no fallback, motion used */
  fn.cells[0].cost = past;
  interp_ok (&prev, &next, &out, &fn.f, &fp.f, 1, 4, MC_INTERP_MOTION, &nfb);
  g_assert_cmpuint (nfb, ==, 0);
  interp_ok (&prev, &next, &out, NULL, NULL, 1, 4, MC_INTERP_REPEAT, &nfb);
  assert_pics_equal (&out, &prev);
  interp_ok (&prev, &next, &out, NULL, NULL, 1, 2, MC_INTERP_REPEAT, &nfb);
  assert_pics_equal (&out, &next);
  interp_ok (&prev, &next, &out, NULL, NULL, 2, 3, MC_INTERP_REPEAT, &nfb);
  assert_pics_equal (&out, &next);
  g_free (fn.cells);
  g_free (fp.cells);
  tpic_clear (&prev);
  tpic_clear (&next);
  tpic_clear (&out);
  g_rand_free (rand);
}

/* A block matched well on one side and poorly on the other (but not past
 * the trust) keeps both sides, mixed by time alone: the picture is the one
 * made with equal costs, and not the good side's prediction alone. */
static void
test_interp_unequal_costs (void)
{
  GRand *rand = g_rand_new_with_seed (14);
  const unsigned W = 50, H = 34;
  for (int side = 0; side < 2; side++) {
    TPic prev, next, out, want, alone;
    tpic_init (&prev, MC_CHROMA_420, W, H, 8, 0);
    tpic_init (&next, MC_CHROMA_420, W, H, 8, 0);
    tpic_init (&out, MC_CHROMA_420, W, H, 8, 0);
    tpic_init (&want, MC_CHROMA_420, W, H, 8, 0);
    tpic_init (&alone, MC_CHROMA_420, W, H, 8, 0);
    for (unsigned i = 0; i < 3; i++) {
      fill_random (&prev.pic.planes[i], rand);
      fill_random (&next.pic.planes[i], rand);
    }
    /* 8x8 at 8 bits: trust 4096; 4000 against 0..9, one side under it */
    TField fn, fp;
    tfield_random (&fn, 8, 8, W, H, 0, rand);
    tfield_random (&fp, 8, 8, W, H, 0, rand);
    unsigned nfb = 99;
    interp_ok (&prev, &next, &want, &fn.f, &fp.f, 1, 3, MC_INTERP_MOTION,
        &nfb);
    g_assert_cmpuint (nfb, ==, 0);
    for (unsigned c = 0; c < fn.f.cols * fn.f.rows; c++) {
      fn.cells[c].cost = side ? c % 10 : 4000;
      fp.cells[c].cost = side ? 4000 : c % 10;
    }
    interp_ok (&prev, &next, &out, &fn.f, &fp.f, 1, 3, MC_INTERP_MOTION,
        &nfb);
    g_assert_cmpuint (nfb, ==, 0);
    assert_pics_equal (&out, &want);
    /* side 0: next predicted with prev's field at 2/3; side 1: prev with
     * next's field at 1/3; the random pictures make them differ from the
     * mix */
    GstMotionVectorCell *s = g_new (GstMotionVectorCell,
        fn.f.cols * fn.f.rows);
    GError *err = NULL;
    g_assert_true (mc_field_scale (side ? &fn.f : &fp.f, s, side ? 1 : 2, 3,
            &err));
    MCField sf = { 8, 8, fn.f.cols, fn.f.rows, 0, s };
    MCOptions o = opts (TRUE, 1);
    g_assert_true (mc_predict_picture (side ? &prev.pic : &next.pic,
            &alone.pic, &sf, &o, &err));
    g_assert_no_error (err);
    unsigned differ = 0;
    for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
        differ += get (&out.pic.planes[0], x, y)
            != get (&alone.pic.planes[0], x, y);
    g_assert_cmpuint (differ, >, W * H / 2);
    g_free (s);
    g_free (fn.cells);
    g_free (fp.cells);
    tpic_clear (&prev);
    tpic_clear (&next);
    tpic_clear (&out);
    tpic_clear (&want);
    tpic_clear (&alone);
  }
  g_rand_free (rand);
}

static void
test_interp_bad_input (void)
{
  TPic prev, next, out;
  tpic_init (&prev, MC_CHROMA_420, 20, 20, 8, 0);
  tpic_init (&next, MC_CHROMA_420, 20, 20, 8, 0);
  tpic_init (&out, MC_CHROMA_420, 20, 20, 8, 0);
  TField f, g;
  tfield_init (&f, 8, 8, 3, 3, 0, 0);
  tfield_init (&g, 4, 8, 5, 3, 0, 0);
  GError *err = NULL;
  guint8 w[16];
#define REFUSED(call, text) G_STMT_START { \
    g_assert_false (call); \
    g_assert_error (err, MC_ERROR, MC_ERROR_INVALID); \
    g_assert_nonnull (strstr (err->message, text)); \
    g_clear_error (&err); \
  } G_STMT_END
  REFUSED (mc_interpolate_picture (&prev.pic, &next.pic, &out.pic, &f.f,
          &f.f, 1, 0, MC_INTERP_MOTION, NULL, NULL, &err), "den");
  REFUSED (mc_interpolate_picture (&prev.pic, &next.pic, &out.pic, &f.f,
          &f.f, 3, 2, MC_INTERP_MOTION, NULL, NULL, &err), "num");
  REFUSED (mc_interpolate_picture (&prev.pic, &next.pic, &out.pic, &f.f,
          &f.f, -1, 2, MC_INTERP_BLEND, NULL, NULL, &err), "num");
  REFUSED (mc_interpolate_picture (&prev.pic, &next.pic, &out.pic, &f.f,
          &g.f, 1, 2, MC_INTERP_MOTION, NULL, NULL, &err), "one grid");
  REFUSED (mc_interpolate_picture (&prev.pic, &next.pic, &out.pic, &f.f,
          NULL, 1, 2, MC_INTERP_MOTION, NULL, NULL, &err), "needs both");
  REFUSED (mc_interpolate_picture (&prev.pic, &next.pic, &out.pic, &f.f,
          &f.f, 1, 2, (MCInterpMode) 3, NULL, NULL, &err), "MCInterpMode");
  REFUSED (mc_interpolate_picture (&prev.pic, &next.pic, &prev.pic, &f.f,
          &f.f, 1, 2, MC_INTERP_MOTION, NULL, NULL, &err), "overlaps");
  REFUSED (mc_interpolate_picture (&prev.pic, &next.pic, NULL, &f.f,
          &f.f, 1, 2, MC_INTERP_MOTION, NULL, NULL, &err), "no picture");
  MCPicture p = next.pic;
  p.chroma = MC_CHROMA_444;
  REFUSED (mc_interpolate_picture (&prev.pic, &p, &out.pic, &f.f,
          &f.f, 1, 2, MC_INTERP_MOTION, NULL, NULL, &err), "plane 1");
  p = next.pic;
  p.planes[0].width = 19;
  p.planes[1].width = p.planes[2].width = 10;
  REFUSED (mc_interpolate_picture (&prev.pic, &p, &out.pic, &f.f,
          &f.f, 1, 2, MC_INTERP_MOTION, NULL, NULL, &err), "19x20");
  MCField small = f.f;
  small.cols = 2;
  small.stride = 3;
  MCField small2 = small;
  REFUSED (mc_interpolate_picture (&prev.pic, &next.pic, &out.pic, &small,
          &small2, 1, 2, MC_INTERP_MOTION, NULL, NULL, &err),
      "do not cover");
  REFUSED (mc_interpolate_weights (&f.f, &f.f, 1, 2, 7, w, NULL, NULL,
          &err), "depth");
  REFUSED (mc_interpolate_weights (&f.f, &f.f, 1, 2, 8, NULL, NULL, NULL,
          &err), "no storage");
#undef REFUSED
  g_free (f.cells);
  g_free (g.cells);
  tpic_clear (&prev);
  tpic_clear (&next);
  tpic_clear (&out);
}

/* The same content laid out as I420 (planes of their own) and as NV12,
 * NV21 or P010 (U and V interleaved in one block of rows) interpolates to
 * the same samples, plane for plane, in every mode: the layout changes
 * where samples are, never what they are.  The interleaved outputs' slack
 * after each row stays as it was. */
static void
test_interp_semi_as_planar (void)
{
  static const struct
  {
    unsigned depth, shift;
    gboolean v_first;
  } fmt[] = { {8, 0, FALSE}, {8, 0, TRUE}, {10, 6, FALSE}, {16, 0, FALSE} };
  GRand *rand = g_rand_new_with_seed (11);
  for (unsigned i = 0; i < G_N_ELEMENTS (fmt); i++)
    for (int mode = MC_INTERP_MOTION; mode <= MC_INTERP_REPEAT; mode++) {
      const unsigned w = 45, h = 27, cw = 23, ch = 14;
      const unsigned depth = fmt[i].depth, shift = fmt[i].shift;
      TPic prev, next, want;
      TUV puv, nuv, ouv;
      tpic_init (&prev, MC_CHROMA_420, w, h, depth, shift);
      tpic_init (&next, MC_CHROMA_420, w, h, depth, shift);
      tpic_init (&want, MC_CHROMA_420, w, h, depth, shift);
      tuv_init (&puv, cw, ch, depth, shift, fmt[i].v_first, 0);
      tuv_init (&nuv, cw, ch, depth, shift, fmt[i].v_first, 0);
      tuv_init (&ouv, cw, ch, depth, shift, fmt[i].v_first, 0x5c);
      for (unsigned k = 0; k < 3; k++) {
        fill_random (&prev.pic.planes[k], rand);
        fill_random (&next.pic.planes[k], rand);
      }
      /* the same chroma, interleaved */
      for (unsigned y = 0; y < ch; y++)
        for (unsigned x = 0; x < cw; x++) {
          set (&puv.u, x, y, get (&prev.pic.planes[1], x, y));
          set (&puv.v, x, y, get (&prev.pic.planes[2], x, y));
          set (&nuv.u, x, y, get (&next.pic.planes[1], x, y));
          set (&nuv.v, x, y, get (&next.pic.planes[2], x, y));
        }
      MCPicture ps = prev.pic, ns = next.pic, os = want.pic;
      ps.planes[1] = puv.u;
      ps.planes[2] = puv.v;
      ns.planes[1] = nuv.u;
      ns.planes[2] = nuv.v;
      TPlane oy;                /* the semi-planar output's luma */
      tplane_init (&oy, w, h, depth, shift);
      os.planes[0] = oy.p;
      os.planes[1] = ouv.u;
      os.planes[2] = ouv.v;
      TField fn, fp;
      tfield_random (&fn, 8, 8, w, h, 0, rand);
      tfield_random (&fp, 8, 8, w, h, 0, rand);
      for (unsigned c = 0; c < fn.f.cols * fn.f.rows; c++) {
        /* trusted, occluded and fallback blocks alike */
        fn.cells[c].cost = g_rand_int_range (rand, 0, 4) << (2 * c % 24);
        fp.cells[c].cost = g_rand_int_range (rand, 0, 4) << (3 * c % 24);
      }
      unsigned nfb_planar = 0, nfb_semi = 0;
      interp_ok (&prev, &next, &want, &fn.f, &fp.f, 2, 5,
          (MCInterpMode) mode, &nfb_planar);
      GError *err = NULL;
      MCOptions o = opts (TRUE, 2);
      g_assert_true (mc_interpolate_picture (&ps, &ns, &os, &fn.f, &fp.f, 2,
              5, (MCInterpMode) mode, &o, &nfb_semi, &err));
      g_assert_no_error (err);
      g_assert_cmpuint (nfb_semi, ==, nfb_planar);
      for (unsigned k = 0; k < 3; k++)
        assert_planes_equal (&os.planes[k], &want.pic.planes[k]);
      /* the slack after each UV row is untouched */
      const unsigned bps = depth > 8 ? 2 : 1;
      for (unsigned y = 0; y < ch; y++)
        for (size_t b = 2 * cw * bps; b < (size_t) ouv.u.stride; b++)
          g_assert_cmpuint (ouv.buf[y * ouv.u.stride + b], ==, 0x5c);
      /* and the planar output's samples are not all alike (the check
       * compares something) */
      g_assert_cmpint (get (&want.pic.planes[1], 0, 0) != get
          (&want.pic.planes[1], 7, 5) || get (&want.pic.planes[2], 1, 1)
          != get (&want.pic.planes[2], 9, 3), ==, TRUE);
      g_free (fn.cells);
      g_free (fp.cells);
      tplane_clear (&oy);
      g_free (puv.buf);
      g_free (nuv.buf);
      g_free (ouv.buf);
      tpic_clear (&prev);
      tpic_clear (&next);
      tpic_clear (&want);
    }
  g_rand_free (rand);
}

/* ---- warping ----------------------------------------------------------- */

static void
warp_shift (MCWarp * w, int dx, int dy)
{
  w->xx = w->yy = MC_WARP_ONE;
  w->xy = w->yx = 0;
  w->x0 = (int64_t) dx * MC_WARP_ONE;
  w->y0 = (int64_t) dy * MC_WARP_ONE;
}

/* The identity copies, at 8 bits and in 16-bit words with a shift. */
static void
test_warp_identity (void)
{
  GRand *rand = g_rand_new_with_seed (11);
  const unsigned depths[] = { 8, 10, 16 }, shifts[] = { 0, 6, 0 };
  for (unsigned i = 0; i < G_N_ELEMENTS (depths); i++) {
    TPlane in, out;
    tplane_init (&in, 37, 21, depths[i], shifts[i]);
    tplane_init (&out, 37, 21, depths[i], shifts[i]);
    fill_random (&in.p, rand);
    MCWarp w;
    warp_shift (&w, 0, 0);
    GError *error = NULL;
    g_assert_true (mc_warp_plane (&in.p, &out.p, &w, NULL, &error));
    g_assert_no_error (error);
    assert_planes_equal (&out.p, &in.p);
    tplane_clear (&in);
    tplane_clear (&out);
  }
  g_rand_free (rand);
}

/* An integer shift is a shifted copy whose samples past the edge repeat
 * the edge. */
static void
test_warp_integer_shift (void)
{
  GRand *rand = g_rand_new_with_seed (12);
  TPlane in, out;
  tplane_init (&in, 19, 13, 8, 0);
  tplane_init (&out, 19, 13, 8, 0);
  fill_random (&in.p, rand);
  const int shifts[][2] = { {3, -2}, {-5, 4}, {0, 7}, {40, -40} };
  for (unsigned k = 0; k < G_N_ELEMENTS (shifts); k++) {
    MCWarp w;
    warp_shift (&w, shifts[k][0], shifts[k][1]);
    g_assert_true (mc_warp_plane (&in.p, &out.p, &w, NULL, NULL));
    for (int y = 0; y < 13; y++)
      for (int x = 0; x < 19; x++)
        g_assert_cmpint (get (&out.p, x, y), ==, get (&in.p,
                mc_clamp (x + shifts[k][0], 19), mc_clamp (y + shifts[k][1],
                    13)));
  }
  tplane_clear (&in);
  tplane_clear (&out);
  g_rand_free (rand);
}

/* Worked by hand: a half-sample shift across and a quarter down reads
 * A B / C D = 10 20 / 30 40 with weights 128 x 192, 128 x 192, 128 x 64,
 * 128 x 64 (in 1/65536): 1310720 + 32768 = 1343488, >> 16 = 20; and a
 * quarter across, three quarters down of 0 255 / 255 0 gives
 * (192*64*0 + 64*64*255 + 192*192*255 + 64*192*0 + 32768) >> 16 =
 * (1044480 + 9400320 + 32768) >> 16 = 159. */
static void
test_warp_hand (void)
{
  g_assert_cmpint (mc_warp_bilinear (10, 20, 30, 40, 128, 64), ==, 20);
  g_assert_cmpint (mc_warp_bilinear (0, 255, 255, 0, 64, 192), ==, 159);
  /* the extremes stay in range at 16 bits */
  g_assert_cmpint (mc_warp_bilinear (65535, 65535, 65535, 65535, 255, 255),
      ==, 65535);
  TPlane in, out;
  tplane_init (&in, 4, 4, 8, 0);
  tplane_init (&out, 4, 4, 8, 0);
  set (&in.p, 1, 1, 10);
  set (&in.p, 2, 1, 20);
  set (&in.p, 1, 2, 30);
  set (&in.p, 2, 2, 40);
  MCWarp w;
  warp_shift (&w, 0, 0);
  w.x0 = MC_WARP_ONE / 2;
  w.y0 = MC_WARP_ONE / 4;
  g_assert_true (mc_warp_plane (&in.p, &out.p, &w, NULL, NULL));
  /* output (1, 1) reads (1.5, 1.25) */
  g_assert_cmpint (get (&out.p, 1, 1), ==, 20);
  /* a quarter turn: output (x, y) reads (y, 3 - x), exact */
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++)
      set (&in.p, x, y, 16 * y + x);
  w.xx = 0;
  w.xy = MC_WARP_ONE;
  w.yx = -MC_WARP_ONE;
  w.yy = 0;
  w.x0 = 0;
  w.y0 = 3 * (int64_t) MC_WARP_ONE;
  g_assert_true (mc_warp_plane (&in.p, &out.p, &w, NULL, NULL));
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++)
      g_assert_cmpint (get (&out.p, x, y), ==, 16 * (3 - x) + y);
  tplane_clear (&in);
  tplane_clear (&out);
}

/* A rotation by 7 degrees about the centre of a smooth picture, against
 * bilinear interpolation in doubles at the exact position: within one
 * level (the weights' 1/256 steps and the rounding). */
static void
test_warp_rotation (void)
{
  const unsigned W = 64, H = 48;
  TPlane in, out;
  tplane_init (&in, W, H, 8, 0);
  tplane_init (&out, W, H, 8, 0);
  for (unsigned y = 0; y < H; y++)
    for (unsigned x = 0; x < W; x++)
      set (&in.p, x, y, (int) (128 + 100 * sin (x * 0.15) * cos (y * 0.2)));
  const double a = 7 * G_PI / 180, c = cos (a), s = sin (a);
  const double cx = (W - 1) / 2.0, cy = (H - 1) / 2.0;
  MCWarp w;
  g_assert_true (mc_warp_from_double (&w, c, -s, s, c, cx - c * cx + s * cy,
          cy - s * cx - c * cy, NULL));
  g_assert_true (mc_warp_plane (&in.p, &out.p, &w, NULL, NULL));
  unsigned checked = 0;
  for (unsigned y = 0; y < H; y++)
    for (unsigned x = 0; x < W; x++) {
      const double px = c * x - s * y + cx - c * cx + s * cy;
      const double py = s * x + c * y + cy - s * cx - c * cy;
      if (px < 0 || py < 0 || px > W - 1 || py > H - 1)
        continue;
      const int ix = (int) floor (px), iy = (int) floor (py);
      const double fx = px - ix, fy = py - iy;
      const int ix1 = MIN (ix + 1, (int) W - 1), iy1 = MIN (iy + 1,
          (int) H - 1);
      const double v = (1 - fx) * (1 - fy) * get (&in.p, ix, iy)
          + fx * (1 - fy) * get (&in.p, ix1, iy)
          + (1 - fx) * fy * get (&in.p, ix, iy1)
          + fx * fy * get (&in.p, ix1, iy1);
      g_assert_cmpfloat (fabs (get (&out.p, x, y) - v), <=, 1.0);
      checked++;
    }
  g_assert_cmpuint (checked, >, W * H / 2);
  tplane_clear (&in);
  tplane_clear (&out);
}

/* The chroma's map: the identity stays one, an even luma shift halves,
 * 4:2:2's cross terms scale by the subsampling. */
static void
test_warp_chroma (void)
{
  MCWarp w, c;
  warp_shift (&w, 0, 0);
  mc_warp_chroma (&w, 1, 1, &c);
  g_assert_true (c.xx == MC_WARP_ONE && c.yy == MC_WARP_ONE && !c.xy && !c.yx
      && !c.x0 && !c.y0);
  warp_shift (&w, 4, -6);
  mc_warp_chroma (&w, 1, 1, &c);
  g_assert_true (c.x0 == 2 * MC_WARP_ONE && c.y0 == -3 * MC_WARP_ONE);
  mc_warp_chroma (&w, 1, 0, &c);
  g_assert_true (c.x0 == 2 * MC_WARP_ONE && c.y0 == -6 * MC_WARP_ONE);
  w.xy = 1000;
  w.yx = -1000;
  mc_warp_chroma (&w, 1, 0, &c);
  g_assert_cmpint (c.xy, ==, 500);
  g_assert_cmpint (c.yx, ==, -2000);
  mc_warp_chroma (&w, 0, 0, &c);
  g_assert_true (memcmp (&c, &w, sizeof c) == 0);
  /* a zoom by 2 about the origin: chroma sample 0 (luma centre 0.5) maps
   * to luma 1.0, chroma 0.25 */
  w.xx = w.yy = 2 * MC_WARP_ONE;
  w.xy = w.yx = 0;
  w.x0 = w.y0 = 0;
  mc_warp_chroma (&w, 1, 1, &c);
  g_assert_cmpint (c.x0, ==, MC_WARP_ONE / 4);
}

static void
test_warp_bad_input (void)
{
  TPlane in, out, deep;
  tplane_init (&in, 8, 8, 8, 0);
  tplane_init (&out, 8, 8, 8, 0);
  tplane_init (&deep, 8, 8, 10, 0);
  MCWarp w;
  warp_shift (&w, 0, 0);
  GError *error = NULL;
  g_assert_false (mc_warp_plane (&in.p, &out.p, NULL, NULL, &error));
  g_assert_error (error, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&error);
  w.xx = MC_WARP_MAX_COEF + 1;
  g_assert_false (mc_warp_plane (&in.p, &out.p, &w, NULL, &error));
  g_assert_error (error, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&error);
  warp_shift (&w, 0, 0);
  w.y0 = MC_WARP_MAX_SHIFT + 1;
  g_assert_false (mc_warp_plane (&in.p, &out.p, &w, NULL, &error));
  g_assert_error (error, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&error);
  warp_shift (&w, 0, 0);
  g_assert_false (mc_warp_plane (&in.p, &deep.p, &w, NULL, &error));
  g_assert_error (error, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (mc_warp_plane (&in.p, &in.p, &w, NULL, &error));
  g_assert_error (error, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&error);
  MCOptions opt;
  mc_options_init (&opt);
  opt.device = MC_DEVICE_ALL;
  g_assert_false (mc_warp_plane (&in.p, &out.p, &w, &opt, &error));
  g_assert_error (error, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (mc_warp_from_double (&w, NAN, 0, 0, 1, 0, 0, &error));
  g_assert_error (error, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (mc_warp_from_double (&w, 1, 0, 0, 17, 0, 0, &error));
  g_assert_error (error, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&error);
  /* pictures of another chroma */
  MCPicture a = { MC_CHROMA_NONE, { in.p } }, b = { MC_CHROMA_420, { out.p,
          out.p, out.p } };
  g_assert_false (mc_warp_picture (&a, &b, &w, NULL, &error));
  g_assert_error (error, MC_ERROR, MC_ERROR_INVALID);
  g_clear_error (&error);
  tplane_clear (&in);
  tplane_clear (&out);
  tplane_clear (&deep);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mc/zero-field", test_zero_field);
  g_test_add_func ("/mc/whole-pel-shift", test_whole_pel_shift);
  g_test_add_func ("/mc/quarter-pel-luma", test_quarter_pel_luma);
  g_test_add_func ("/mc/chroma-eighth-pel", test_chroma_eighth_pel);
  g_test_add_func ("/mc/obmc-windows", test_obmc_windows);
  g_test_add_func ("/mc/two-regions", test_two_regions);
  g_test_add_func ("/mc/random-against-naive", test_random_against_naive);
  g_test_add_func ("/mc/scale", test_scale);
  g_test_add_func ("/mc/deep-clip", test_deep_clip);
  g_test_add_func ("/mc/blend", test_blend);
  g_test_add_func ("/mc/bad-input", test_bad_input);
  g_test_add_func ("/mc/denoise-rule", test_denoise_rule);
  g_test_add_func ("/mc/denoise-known", test_denoise_known);
  g_test_add_func ("/mc/denoise-obmc-as-blend", test_denoise_obmc_as_blend);
  g_test_add_func ("/mc/denoise-interleaved", test_denoise_interleaved);
  g_test_add_func ("/mc/denoise-bad-input", test_denoise_bad_input);
  g_test_add_func ("/mc/denoise-noise", test_denoise_noise);
  g_test_add_func ("/mc/denoise-picture", test_denoise_picture);
  g_test_add_func ("/mc/denoise-estimate", test_denoise_estimate);
  g_test_add_func ("/mc/sigma-filter", test_sigma_filter);
  g_test_add_func ("/mc/interp-weights", test_interp_weights);
  g_test_add_func ("/mc/interp-ends", test_interp_ends);
  g_test_add_func ("/mc/interp-pan", test_interp_pan);
  g_test_add_func ("/mc/interp-fallback", test_interp_fallback);
  g_test_add_func ("/mc/interp-unequal-costs", test_interp_unequal_costs);
  g_test_add_func ("/mc/interp-bad-input", test_interp_bad_input);
  g_test_add_func ("/mc/interleaved-neighbours", test_interleaved_neighbours);
  g_test_add_func ("/mc/interp-semi-as-planar", test_interp_semi_as_planar);
  g_test_add_func ("/mc/bi-rule", test_bi_rule);
  g_test_add_func ("/mc/bi-costs-naive", test_bi_costs_naive);
  g_test_add_func ("/mc/bi-moving-square", test_bi_moving_square);
  g_test_add_func ("/mc/bi-tie-break", test_bi_tie_break);
  g_test_add_func ("/mc/pair-fields", test_pair_fields);
  g_test_add_func ("/mc/warp-identity", test_warp_identity);
  g_test_add_func ("/mc/warp-integer-shift", test_warp_integer_shift);
  g_test_add_func ("/mc/warp-hand", test_warp_hand);
  g_test_add_func ("/mc/warp-rotation", test_warp_rotation);
  g_test_add_func ("/mc/warp-chroma", test_warp_chroma);
  g_test_add_func ("/mc/warp-bad-input", test_warp_bad_input);
  return g_test_run ();
}
