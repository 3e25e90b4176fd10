/* gpumotionest — sub-pixel refinement through the element.
 *
 * The current frame is made from the previous one by H.264's own
 * interpolation at a known quarter-pel displacement, so in every interior
 * block the true vector predicts the block exactly: the element must
 * report that vector with cost 0, for every sub-pel level that can express
 * it and for both metrics; whole-pixel search must report the rounded
 * vector with a non-zero cost.  Runs on whatever backend "auto" opens (the
 * GPU where there is one).
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "subpel_rules.h"

#define W 192
#define H 112
#define MARGIN 16               /* interior: blocks this far from the edges */

/* A texture with detail at every scale: noise smoothed by a 3x3 binomial
 * filter (so that the half-sample filter sees structure, not aliasing)
 * over slow waves.  Its autocorrelation falls within a pixel or two, so
 * the integer search lands on a whole pixel next to the true vector, from
 * where the half- and quarter-pel rings reach it. */
static guint8 *
make_reference (void)
{
  GRand *rand = g_rand_new_with_seed (7);
  gint *noise = g_new (gint, W * H);
  guint8 *f = g_malloc (W * H);

  for (int i = 0; i < W * H; i++)
    noise[i] = g_rand_int_range (rand, 0, 256);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int sum = 0;
      for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++)
          sum += (2 - ABS (i)) * (2 - ABS (j))
              * noise[CLAMP (y + j, 0, H - 1) * W + CLAMP (x + i, 0, W - 1)];
      double v = 0.6 * sum / 16 + 50 + 40 * sin (x * 0.13 + y * 0.07);
      f[y * W + x] = (guint8) CLAMP (v, 0, 255);
    }
  g_free (noise);
  g_rand_free (rand);
  return f;
}

/* Sample (4x + qx, 4y + qy) of `ref`, through the half-sample rules on an
 * edge-replicated copy (subpel_rules.h; tests/check/subpel.c pins them). */
static guint8 *
make_displaced (const guint8 * ref, int qx, int qy)
{
  const int pad = 8, pw = W + 2 * pad, ph = H + 2 * pad;
  guint8 *p = g_malloc (pw * ph), *out = g_malloc (W * H);
  for (int y = 0; y < ph; y++)
    for (int x = 0; x < pw; x++)
      p[y * pw + x] = ref[CLAMP (y - pad, 0, H - 1) * W
          + CLAMP (x - pad, 0, W - 1)];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const int X = 4 * x + qx, Y = 4 * y + qy;
      const unsigned v = me_subpel_pair (X & 3, Y & 3);
      int s[2];
      for (int k = 0; k < 2; k++) {
        const unsigned e = k ? v >> 4 : v & 15;
        const guint8 *q = p + ((Y >> 2) + pad + ME_SP_DY (e)) * pw
            + (X >> 2) + pad + ME_SP_DX (e);
        s[k] = ME_SP_PLANE (e) == ME_HPEL_F ? *q
            : ME_SP_PLANE (e) == ME_HPEL_H ? me_hpel_h (q, pw)
            : ME_SP_PLANE (e) == ME_HPEL_V ? me_hpel_v (q, pw)
            : me_hpel_c (q, pw);
      }
      out[y * W + x] = (s[0] + s[1] + 1) >> 1;
    }
  g_free (p);
  return out;
}

/* Pushes ref then cur through gpumotionest with the given settings and
 * returns the second buffer. */
static GstBuffer *
run_lambda (const guint8 * ref, const guint8 * cur, const gchar * subpel,
    const gchar * metric, guint partitions, guint lambda)
{
  GstHarness *h = gst_harness_new ("gpumotionest");
  GstBuffer *out;

  gst_util_set_object_arg (G_OBJECT (h->element), "subpel", subpel);
  gst_util_set_object_arg (G_OBJECT (h->element), "metric", metric);
  g_object_set (h->element, "search-range", 4, "partitions", partitions,
      "lambda", lambda, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=192,"
      "height=112,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_memdup (ref, W * H)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_memdup (cur, W * H)), GST_FLOW_OK);
  gst_harness_push_event (h, gst_event_new_eos ());
  gst_buffer_unref (gst_harness_pull (h));
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_harness_teardown (h);
  return out;
}

static GstBuffer *
run (const guint8 * ref, const guint8 * cur, const gchar * subpel,
    const gchar * metric, guint partitions)
{
  return run_lambda (ref, cur, subpel, metric, partitions, 0);
}

/* Counts the interior cells of grid p that hold vector (ex, ey) with cost
 * 0 (`exact`) or, when not `exact`, with a non-zero cost; *n_out: the
 * interior cells. */
static guint
count_grid (GstBuffer * buf, GstMotionVectorPartition p, int ex, int ey,
    gboolean exact, guint * n_out)
{
  GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta (buf);
  guint cols, rows, n = 0, good = 0;
  const GstMotionVectorCell *g;
  const int bw = gst_motion_vector_partition_width (p);
  const int bh = gst_motion_vector_partition_height (p);

  fail_unless (m != NULL);
  fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
  g = gst_motion_vector_meta_get_grid (m, p, &cols, &rows);
  fail_unless (g != NULL);
  for (guint r = 0; r < rows; r++)
    for (guint c = 0; c < cols; c++) {
      if ((int) c * bw < MARGIN || (int) (c + 1) * bw > W - MARGIN
          || (int) r * bh < MARGIN || (int) (r + 1) * bh > H - MARGIN)
        continue;
      const GstMotionVectorCell *cell = &g[r * cols + c];
      n++;
      if (cell->mv_x == ex && cell->mv_y == ey
          && (exact ? cell->cost == 0 : cell->cost != 0))
        good++;
      else if (p <= GST_MOTION_VECTOR_PARTITION_8X8)
        fail ("shape %d cell (%u,%u): (%d,%d) cost %u, expected (%d,%d) %s",
            p, c, r, cell->mv_x, cell->mv_y, cell->cost, ex, ey,
            exact ? "cost 0" : "a non-zero cost");
    }
  *n_out = n;
  return good;
}

/* Every interior block of 8x8 and larger must hold the true vector; the
 * smaller ones, whose 16 or 32 pixels often match a whole pixel further
 * away better (the refinement only looks around the integer winner), at
 * least 90 % of them. */
static void
check_grids (GstBuffer * buf, int ex, int ey)
{
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint n, good = count_grid (buf, p, ex, ey, TRUE, &n);
    fail_unless (n > 20, "shape %d: only %u interior cells", p, n);
    fail_unless (good * 10 >= n * 9, "shape %d: %u of %u exact", p, good, n);
    GST_INFO ("shape %d, (%d,%d): %u of %u exact", p, ex, ey, good, n);
  }
}

/* Displacements in quarter pixels: the content moved by -(qx, qy)/4, so the
 * vector pointing back into the reference is (qx, qy). */
static const int shifts[][2] = {
  {5, -3}, {-7, 2}, {2, 6}, {-1, -1}, {3, 0}, {0, -6}, {-8, 4},
};

GST_START_TEST (test_quarter_exact)
{
  guint8 *ref = make_reference ();

  for (guint i = 0; i < G_N_ELEMENTS (shifts); i++) {
    const int qx = shifts[i][0], qy = shifts[i][1];
    guint8 *cur = make_displaced (ref, qx, qy);
    for (int metric = 0; metric < 2; metric++) {
      GstBuffer *out = run (ref, cur, "quarter", metric ? "satd" : "sad",
          GST_MOTION_VECTOR_PARTITIONS_ALL);
      check_grids (out, qx, qy);
      gst_buffer_unref (out);
    }
    g_free (cur);
  }
  g_free (ref);
}

GST_END_TEST;

/* Half-pel displacements are found exactly with subpel=half; with
 * subpel=none the vector is a whole-pixel one with a non-zero cost. */
GST_START_TEST (test_half_and_none)
{
  guint8 *ref = make_reference ();
  guint8 *cur = make_displaced (ref, 6, -2);
  GstBuffer *out;

  out = run (ref, cur, "half", "satd", GST_MOTION_VECTOR_PARTITIONS_16X16);
  {
    guint n, good = count_grid (out, GST_MOTION_VECTOR_PARTITION_16X16, 6, -2,
        TRUE, &n);
    fail_unless (n > 10 && good == n);
  }
  gst_buffer_unref (out);

  /* no refinement: the nearest whole pixels are (1, 0) or (2, 0) and
   * (0, -1); which one SAD prefers is content-dependent, so check the
   * vector is whole-pixel, near, and not exact */
  out = run (ref, cur, "none", "sad", GST_MOTION_VECTOR_PARTITIONS_16X16);
  {
    GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta (out);
    guint cols, rows;
    const GstMotionVectorCell *g = gst_motion_vector_meta_get_grid (m,
        GST_MOTION_VECTOR_PARTITION_16X16, &cols, &rows);
    for (guint k = 0; k < cols * rows; k++) {
      fail_unless (g[k].mv_x % 4 == 0 && g[k].mv_y % 4 == 0);
    }
    const GstMotionVectorCell *c = &g[1 * cols + 2];     /* interior */
    fail_unless (ABS (c->mv_x - 6) <= 2 && ABS (c->mv_y + 2) <= 2,
        "(%d,%d)", c->mv_x, c->mv_y);
    fail_unless (c->cost > 0);
  }
  gst_buffer_unref (out);
  g_free (cur);
  g_free (ref);
}

GST_END_TEST;

/* Bits of the MVDs of every grid (se(v) lengths, clause 9.1), and the
 * number of cells whose MVD is zero. */
static guint64
mvd_bits (GstBuffer * buf, guint * zero)
{
  GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta (buf);
  guint64 bits = 0;
  *zero = 0;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint cols, rows;
    const GstMotionVectorCell *g = gst_motion_vector_meta_get_grid (m, p,
        &cols, &rows);
    for (guint k = 0; g && k < cols * rows; k++) {
      const int v[2] = { g[k].mvd_x, g[k].mvd_y };
      for (int j = 0; j < 2; j++) {
        guint code = v[j] > 0 ? 2 * v[j] - 1 : -2 * v[j];
        bits += 2 * g_bit_storage (code + 1) - 1;
      }
      *zero += !g[k].mvd_x && !g[k].mvd_y;
    }
  }
  return bits;
}

/* Unrelated noise frames: with lambda 0 the vectors are wherever the SAD
 * happens to be lowest; with the largest lambda no SAD difference (at most
 * 65280 for 16x16) can pay for the 4 bits a non-zero MVD costs at least,
 * so every vector is the prediction and every MVD zero.  In between, MVD
 * bits fall as lambda grows. */
GST_START_TEST (test_lambda)
{
  GRand *rand = g_rand_new_with_seed (11);
  guint8 *a = g_malloc (W * H), *b = g_malloc (W * H);
  guint64 bits[3];
  guint zero[3];
  const guint lambdas[3] = { 0, 8, 65535 };

  for (int i = 0; i < W * H; i++) {
    a[i] = g_rand_int (rand);
    b[i] = g_rand_int (rand);
  }
  for (int k = 0; k < 3; k++) {
    GstBuffer *out = run_lambda (a, b, "quarter", "sad",
        GST_MOTION_VECTOR_PARTITIONS_ALL, lambdas[k]);
    bits[k] = mvd_bits (out, &zero[k]);
    gst_buffer_unref (out);
  }
  /* 12 x 7 macroblocks, 41 cells each */
  fail_unless_equals_int (zero[2], 12 * 7 * 41);
  fail_unless (bits[0] > bits[1] && bits[1] > bits[2],
      "MVD bits %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %"
      G_GUINT64_FORMAT, bits[0], bits[1], bits[2]);
  fail_unless (zero[0] < zero[1]);
  g_free (a);
  g_free (b);
  g_rand_free (rand);
}

GST_END_TEST;

/* The qp shortcut sets x264's lambda for that quantiser. */
GST_START_TEST (test_qp)
{
  GstElement *e = gst_element_factory_make ("gpumotionest", NULL);
  guint lambda;
  static const int table[][2] = {
    {0, 1}, {15, 1}, {16, 2}, {23, 4}, {26, 5}, {29, 7}, {35, 14}, {51, 91},
  };
  for (guint i = 0; i < G_N_ELEMENTS (table); i++) {
    g_object_set (e, "qp", table[i][0], NULL);
    g_object_get (e, "lambda", &lambda, NULL);
    fail_unless_equals_int (lambda, table[i][1]);
  }
  g_object_set (e, "lambda", 3, NULL);
  gint qp;
  g_object_get (e, "qp", &qp, NULL);
  fail_unless_equals_int (qp, -1);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
refine_suite (void)
{
  Suite *s = suite_create ("refine");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_quarter_exact);
  tcase_add_test (tc, test_half_and_none);
  tcase_add_test (tc, test_lambda);
  tcase_add_test (tc, test_qp);
  return s;
}

GST_CHECK_MAIN (refine);
