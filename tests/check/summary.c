/* gpumotionest — tests of the motion summary: the fit on constructed fields
 * with known answers (translation, zoom, rotation with a moving object),
 * unmatched blocks, the scene change score, the moving-block mask, tiny
 * frames, and the summary's place in the meta (copy, scale). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <gst/motionvectors/gstmotionvectormeta.h>

/* How a test field is made: a similarity (the summary's own definition,
 * written out here), a rectangle of macroblocks moving on their own, and
 * the cost of every block. */
typedef struct {
  gdouble tx, ty;               /* quarter pixels at the centre */
  gdouble zoom, rotation;
  guint obj_x0, obj_y0, obj_x1, obj_y1; /* macroblocks, half-open */
  gint obj_vx, obj_vy;          /* the object's vector, quarter pixels */
  guint32 cost;                 /* every block's cost */
} Field;

/* The vector of the similarity at the pixel centre (x, y) of a w x h frame,
 * rounded to quarter pixels: the reference position is
 * c + t / 4 + R(-rotation) (p - c) / (1 + zoom). */
static void
similarity_vector (const Field * f, gdouble x, gdouble y, guint w, guint h,
    gint16 * vx, gint16 * vy)
{
  gdouble dx = x - w / 2.0, dy = y - h / 2.0;
  gdouble c = cos (-f->rotation), s = sin (-f->rotation);
  gdouble rx = (c * dx - s * dy) / (1 + f->zoom);
  gdouble ry = (s * dx + c * dy) / (1 + f->zoom);

  *vx = (gint16) lround (f->tx + 4 * (rx - dx));
  *vy = (gint16) lround (f->ty + 4 * (ry - dy));
}

/* A buffer with a meta of shapes @parts over @w x @h, every grid filled
 * from @f. */
static GstBuffer *
make_buffer (guint w, guint h, GstMotionVectorPartitionFlags parts,
    const Field * f)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint n = gst_motion_vector_layout (w, h, parts, grids);
  GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, n);
  GstBuffer *buf = gst_buffer_new ();
  GBytes *data;
  guint p, c, r;

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint pw = gst_motion_vector_partition_width (p);
    guint ph = gst_motion_vector_partition_height (p);

    if (!(parts & (1u << p)))
      continue;
    for (r = 0; r < grids[p].rows; r++) {
      for (c = 0; c < grids[p].cols; c++) {
        GstMotionVectorCell *cell = &cells[grids[p].offset
            + r * grids[p].cols + c];
        guint mx = c * pw / 16, my = r * ph / 16;

        if (mx >= f->obj_x0 && mx < f->obj_x1 && my >= f->obj_y0
            && my < f->obj_y1) {
          cell->mv_x = f->obj_vx;
          cell->mv_y = f->obj_vy;
        } else {
          similarity_vector (f, c * pw + pw / 2.0, r * ph + ph / 2.0, w, h,
              &cell->mv_x, &cell->mv_y);
        }
        cell->cost = f->cost * pw * ph / 256;
      }
    }
  }
  data = g_bytes_new_take (cells, (gsize) n * sizeof (GstMotionVectorCell));
  fail_unless (gst_buffer_add_motion_vector_meta (buf, w, h, parts, data));
  g_bytes_unref (data);
  return buf;
}

static GstMotionVectorMeta *
meta_of (GstBuffer * buf)
{
  return gst_buffer_get_motion_vector_meta (buf);
}

/* Overwrites the 16x16 cell (c, r). */
static void
set_cell (GstBuffer * buf, guint c, guint r, gint vx, gint vy, guint32 cost)
{
  GstMotionVectorCell *cell = (GstMotionVectorCell *)
      gst_motion_vector_meta_get_cell (meta_of (buf),
      GST_MOTION_VECTOR_PARTITION_16X16, c, r);

  cell->mv_x = vx;
  cell->mv_y = vy;
  cell->cost = cost;
}

GST_START_TEST (test_translation)
{
  Field f = { 12, -8, 0, 0, 0, 0, 0, 0, 0, 0, 3 * 256 };
  GstBuffer *buf = make_buffer (320, 240, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &f);
  GstMotionVectorSummary s;

  fail_unless (gst_motion_vector_summary_compute (meta_of (buf), NULL, &s));
  fail_unless_equals_int (s.version, GST_MOTION_VECTOR_SUMMARY_VERSION);
  fail_unless_equals_int (s.flags, GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS);
  fail_unless_equals_int (s.partition, GST_MOTION_VECTOR_PARTITION_16X16);
  fail_unless_equals_int (s.blocks, 20 * 15);
  fail_unless_equals_float (s.global_x, 12.0);
  fail_unless_equals_float (s.global_y, -8.0);
  fail_unless_equals_float (s.zoom, 0.0);
  fail_unless_equals_float (s.rotation, 0.0);
  fail_unless_equals_float (s.global_share, 1.0);
  fail_unless_equals_float (s.moving_share, 0.0);
  fail_unless_equals_float (s.unmatched_share, 0.0);
  fail_unless_equals_float (s.mean_cost, 3.0);
  fail_unless_equals_float (s.median_cost, 3.0);
  fail_unless_equals_float (s.scene_change, 0.0);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* 1080p: the last macroblock row's centre (y = 1080) lies outside the
 * frame and is not counted. */
GST_START_TEST (test_counted_blocks)
{
  Field f = { -4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 2 * 256 };
  GstBuffer *buf = make_buffer (1920, 1080,
      GST_MOTION_VECTOR_PARTITIONS_ALL, &f);
  GstMotionVectorSummary s;

  fail_unless (gst_motion_vector_summary_compute (meta_of (buf), NULL, &s));
  fail_unless_equals_int (s.partition, GST_MOTION_VECTOR_PARTITION_16X16);
  fail_unless_equals_int (s.blocks, 120 * 67);
  fail_unless_equals_float (s.global_x, -4.0);
  fail_unless_equals_float (s.global_y, 4.0);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_zoom)
{
  static const gdouble zooms[] = { 0.02, -0.03, 0.005 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (zooms); i++) {
    Field f = { 6, -2, zooms[i], 0, 0, 0, 0, 0, 0, 0, 3 * 256 };
    GstBuffer *buf = make_buffer (1280, 720,
        GST_MOTION_VECTOR_PARTITIONS_16X16, &f);
    GstMotionVectorSummary s;

    fail_unless (gst_motion_vector_summary_compute (meta_of (buf), NULL, &s));
    fail_unless_equals_int (s.flags,
        GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS);
    /* vectors rounded to quarter pixels: the fit is within 1e-4 of the
     * zoom and a twentieth of a quarter pixel of the translation */
    fail_unless (fabs (s.zoom - zooms[i]) < 1e-4, "zoom %g for %g", s.zoom,
        zooms[i]);
    fail_unless (fabs (s.rotation) < 1e-4, "rotation %g", s.rotation);
    fail_unless (fabs (s.global_x - 6) < 0.05, "x %g", s.global_x);
    fail_unless (fabs (s.global_y + 2) < 0.05, "y %g", s.global_y);
    fail_unless_equals_float (s.global_share, 1.0);
    fail_unless_equals_float (s.moving_share, 0.0);
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

/* A rotation and a translation with a moving object over 12 % of the
 * frame: the fit ignores the object, which is exactly the moving share
 * and the mask. */
GST_START_TEST (test_rotation_outliers)
{
  Field f = { 8, 4, 0, 0.01, 4, 3, 10, 8, 60, -36, 3 * 256 };
  GstBuffer *buf = make_buffer (640, 480, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &f);
  GstMotionVectorSummary s;
  guint8 mask[40 * 30];
  guint cols, rows, x, y;

  fail_unless (gst_motion_vector_summary_compute (meta_of (buf), NULL, &s));
  fail_unless_equals_int (s.blocks, 40 * 30);
  fail_unless (fabs (s.rotation - 0.01) < 1e-4, "rotation %g", s.rotation);
  fail_unless (fabs (s.zoom) < 1e-4, "zoom %g", s.zoom);
  fail_unless (fabs (s.global_x - 8) < 0.05, "x %g", s.global_x);
  fail_unless (fabs (s.global_y - 4) < 0.05, "y %g", s.global_y);
  fail_unless_equals_float (s.moving_share, 30.0 / 1200);
  fail_unless_equals_float (s.global_share, 1170.0 / 1200);
  fail_unless_equals_float (s.unmatched_share, 0.0);

  fail_unless (gst_motion_vector_summary_moving_blocks (meta_of (buf), &s,
          mask, &cols, &rows));
  fail_unless_equals_int (cols, 40);
  fail_unless_equals_int (rows, 30);
  for (y = 0; y < rows; y++)
    for (x = 0; x < cols; x++)
      fail_unless_equals_int (mask[y * cols + x],
          x >= 4 && x < 10 && y >= 3 && y < 8);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* Blocks whose cost is far above the frame's median are left out of the
 * fit and of the moving share, whatever their vector. */
GST_START_TEST (test_unmatched)
{
  Field f = { 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 * 256 };
  GstBuffer *buf = make_buffer (320, 240, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &f);
  GstMotionVectorSummary s;
  guint8 mask[20 * 15];
  guint i;

  /* 4 x median + 16 levels = 24 levels: 24 * 256 is still matched */
  set_cell (buf, 0, 0, -100, 80, 24 * 256);
  for (i = 1; i <= 30; i++)
    set_cell (buf, i % 20, i / 20, 200, -200, 24 * 256 + 1);

  fail_unless (gst_motion_vector_summary_compute (meta_of (buf), NULL, &s));
  fail_unless_equals_float (s.global_x, 4.0);
  fail_unless_equals_float (s.global_y, 0.0);
  fail_unless_equals_float (s.unmatched_share, 30.0 / 300);
  fail_unless_equals_float (s.moving_share, 1.0 / 300);
  fail_unless_equals_float (s.global_share, 269.0 / 300);
  fail_unless_equals_float (s.median_cost, 2.0);
  fail_unless_equals_float (s.mean_cost,
      (269.0 * 512 + 24 * 256 + 30 * (24 * 256 + 1)) / (300 * 256));
  fail_unless (gst_motion_vector_summary_moving_blocks (meta_of (buf), &s,
          mask, NULL, NULL));
  fail_unless_equals_int (mask[0], 1);
  for (i = 1; i < 300; i++)
    fail_unless_equals_int (mask[i], 0);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* The score: 100 (m - p) / (m + p + 4 levels) with the medians per pixel
 * in 1/256, only when it rises. */
GST_START_TEST (test_scene_change)
{
  Field before = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 * 256 };
  Field cut = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25 * 256 };
  Field rise = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4 * 256 };
  GstBuffer *b0 = make_buffer (160, 96, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &before);
  GstBuffer *b1 = make_buffer (160, 96, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &cut);
  GstBuffer *b2 = make_buffer (160, 96, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &rise);
  GstBuffer *b8 = make_buffer (160, 96, GST_MOTION_VECTOR_PARTITIONS_8X8,
      &cut);
  GstMotionVectorSummary s0, s1, s2, s;

  fail_unless (gst_motion_vector_summary_compute (meta_of (b0), NULL, &s0));
  fail_unless (gst_motion_vector_summary_compute (meta_of (b1), &s0, &s1));
  fail_unless_equals_float (s1.scene_change,
      100.0 * (25 - 3) * 256 / ((25 + 3 + 4) * 256));
  fail_unless_equals_int (s1.flags,
      GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE);
  fail_unless (gst_motion_vector_summary_is_scene_change (&s1, -1));
  fail_unless (!gst_motion_vector_summary_is_scene_change (&s1, 70));
  /* after the cut the level falls back: no score */
  fail_unless (gst_motion_vector_summary_compute (meta_of (b0), &s1, &s));
  fail_unless_equals_float (s.scene_change, 0.0);
  fail_unless_equals_int (s.flags, 0);
  /* a small rise stays below the threshold */
  fail_unless (gst_motion_vector_summary_compute (meta_of (b2), &s0, &s2));
  fail_unless_equals_float (s2.scene_change, 100.0 / 11);
  fail_unless_equals_int (s2.flags, 0);
  fail_unless (!gst_motion_vector_summary_is_scene_change (&s2, -1));
  /* a previous summary of another grid is not used */
  fail_unless (gst_motion_vector_summary_compute (meta_of (b8), &s0, &s));
  fail_unless_equals_int (s.partition, GST_MOTION_VECTOR_PARTITION_8X8);
  fail_unless_equals_float (s.scene_change, 0.0);
  fail_unless_equals_int (s.flags, GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS);

  /* nor one without a reference */
  meta_of (b0)->flags |= GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE;
  fail_unless (gst_motion_vector_summary_compute (meta_of (b0), NULL, &s0));
  fail_unless_equals_int (s0.flags,
      GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE
      | GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS
      | GST_MOTION_VECTOR_SUMMARY_FLAG_TRANSLATION_ONLY);
  fail_unless_equals_float (s0.mean_cost, 0.0);
  fail_unless_equals_int (s0.blocks, 0);
  fail_unless (gst_motion_vector_summary_compute (meta_of (b1), &s0, &s));
  fail_unless_equals_float (s.scene_change, 0.0);
  fail_unless_equals_int (s.flags, GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS);
  fail_unless (!gst_motion_vector_summary_is_scene_change (&s, 0));

  gst_buffer_unref (b0);
  gst_buffer_unref (b1);
  gst_buffer_unref (b2);
  gst_buffer_unref (b8);
}

GST_END_TEST;

/* A 10-bit field: its costs are 4 times the 8-bit ones of the same
 * picture, and the levels of the unmatched test and of the scene score's
 * floor scale with them, so the same picture gives the same shares and
 * score, its cost levels 4 times as high. */
GST_START_TEST (test_deep_costs)
{
  Field f = { 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 * 256 };
  Field f10 = { 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8 * 256 };
  Field cut = { 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25 * 256 };
  Field cut10 = { 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100 * 256 };
  GstBuffer *b8 = make_buffer (320, 240, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &f);
  GstBuffer *b10 = make_buffer (320, 240, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &f10);
  GstBuffer *c8 = make_buffer (320, 240, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &cut);
  GstBuffer *c10 = make_buffer (320, 240, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &cut10);
  GstMotionVectorSummary s8, s10, t8, t10;
  guint i;

  meta_of (b10)->bit_depth = 10;
  meta_of (c10)->bit_depth = 10;
  /* 24 levels at 8 bits is still matched, 25 is not (test_unmatched); at
   * 10 bits 96 and 100 */
  for (i = 1; i <= 30; i++) {
    set_cell (b8, i % 20, i / 20, 200, -200, i % 2 ? 24 * 256 : 25 * 256);
    set_cell (b10, i % 20, i / 20, 200, -200, i % 2 ? 96 * 256 : 100 * 256);
  }
  fail_unless (gst_motion_vector_summary_compute (meta_of (b8), NULL, &s8));
  fail_unless (gst_motion_vector_summary_compute (meta_of (b10), NULL, &s10));
  fail_unless_equals_float (s8.unmatched_share, 15.0 / 300);
  fail_unless_equals_float (s10.unmatched_share, 15.0 / 300);
  fail_unless_equals_float (s10.median_cost, 4 * s8.median_cost);
  fail_unless_equals_float (s10.mean_cost, 4 * s8.mean_cost);
  /* the scene score, whose floor of 4 levels is 16 at 10 bits */
  fail_unless (gst_motion_vector_summary_compute (meta_of (c8), &s8, &t8));
  fail_unless (gst_motion_vector_summary_compute (meta_of (c10), &s10, &t10));
  fail_unless_equals_float (t8.scene_change,
      100.0 * (25 - 2) / (25 + 2 + 4));
  fail_unless_equals_float (t10.scene_change, t8.scene_change);
  fail_unless_equals_int (t10.flags, t8.flags);
  gst_buffer_unref (b8);
  gst_buffer_unref (b10);
  gst_buffer_unref (c8);
  gst_buffer_unref (c10);
}

GST_END_TEST;

/* Only 8x8 present: the summary uses it, and a macroblock moves when two
 * of its four blocks do. */
GST_START_TEST (test_fine_grid_mask)
{
  Field f = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 * 256 };
  GstBuffer *buf = make_buffer (64, 64, GST_MOTION_VECTOR_PARTITIONS_8X8, &f);
  GstMotionVectorCell *cells = (GstMotionVectorCell *)
      gst_motion_vector_meta_get_grid (meta_of (buf),
      GST_MOTION_VECTOR_PARTITION_8X8, NULL, NULL);
  GstMotionVectorSummary s;
  guint8 mask[16];
  guint i;

  /* macroblock (1, 0): two blocks moving; (2, 1): one */
  cells[0 * 8 + 2].mv_x = 40;
  cells[1 * 8 + 3].mv_x = 40;
  cells[2 * 8 + 4].mv_y = -40;
  fail_unless (gst_motion_vector_summary_compute (meta_of (buf), NULL, &s));
  fail_unless_equals_int (s.partition, GST_MOTION_VECTOR_PARTITION_8X8);
  fail_unless_equals_int (s.blocks, 64);
  fail_unless_equals_float (s.moving_share, 3.0 / 64);
  fail_unless (gst_motion_vector_summary_moving_blocks (meta_of (buf), &s,
          mask, NULL, NULL));
  for (i = 0; i < 16; i++)
    fail_unless_equals_int (mask[i], i == 1);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* A 1x1 frame has one block, counted; too few for zoom and rotation. */
GST_START_TEST (test_tiny_frames)
{
  Field f = { 8, 4, 0, 0, 0, 0, 0, 0, 0, 0, 256 };
  GstBuffer *buf = make_buffer (1, 1, GST_MOTION_VECTOR_PARTITIONS_ALL, &f);
  GstMotionVectorSummary s;

  fail_unless (gst_motion_vector_summary_compute (meta_of (buf), NULL, &s));
  fail_unless_equals_int (s.blocks, 1);
  fail_unless_equals_int (s.flags,
      GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS
      | GST_MOTION_VECTOR_SUMMARY_FLAG_TRANSLATION_ONLY);
  fail_unless_equals_float (s.global_x, 8.0);
  fail_unless_equals_float (s.global_y, 4.0);
  fail_unless_equals_float (s.global_share, 1.0);
  gst_buffer_unref (buf);

  /* 17x9: two macroblocks, the second's centre (x = 24) is outside */
  buf = make_buffer (17, 9, GST_MOTION_VECTOR_PARTITIONS_16X16, &f);
  fail_unless (gst_motion_vector_summary_compute (meta_of (buf), NULL, &s));
  fail_unless_equals_int (s.blocks, 1);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* The same cells give the same bytes, and an inconsistent meta none. */
GST_START_TEST (test_deterministic)
{
  Field f = { -5, 7, 0.013, -0.004, 2, 2, 5, 6, -30, 20, 5 * 256 };
  GstBuffer *buf = make_buffer (1920, 1080,
      GST_MOTION_VECTOR_PARTITIONS_16X16, &f);
  GstBuffer *copy;
  GstMotionVectorSummary a, b;

  fail_unless (gst_motion_vector_summary_compute (meta_of (buf), NULL, &a));
  copy = gst_buffer_copy_deep (buf);
  fail_unless (gst_motion_vector_summary_compute (meta_of (copy), NULL, &b));
  fail_unless (memcmp (&a, &b, sizeof (a)) == 0);
  fail_unless (fabs (a.zoom - 0.013) < 1e-4, "zoom %g", a.zoom);
  fail_unless (fabs (a.rotation + 0.004) < 1e-4, "rotation %g", a.rotation);

  meta_of (buf)->analysis_width = 0;
  fail_unless (!gst_motion_vector_summary_compute (meta_of (buf), NULL, &b));
  fail_unless_equals_int (b.version, GST_MOTION_VECTOR_SUMMARY_VERSION);
  fail_unless_equals_int (b.blocks, 0);
  fail_unless (!gst_motion_vector_summary_moving_blocks (meta_of (buf), &a,
          NULL, NULL, NULL));
  gst_buffer_unref (buf);
  gst_buffer_unref (copy);
}

GST_END_TEST;

/* ---- in the meta ------------------------------------------------------- */

GST_START_TEST (test_meta_set_get_copy)
{
  Field f = { 12, -8, 0, 0, 1, 1, 3, 3, -40, 0, 3 * 256 };
  GstBuffer *buf = make_buffer (320, 240, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &f);
  GstMotionVectorMeta *meta = meta_of (buf);
  GstMotionVectorSummary s, got;
  GstBuffer *copy;

  fail_unless (!gst_motion_vector_meta_get_summary (meta, &got));
  fail_unless_equals_int (got.version, 0);
  fail_unless (gst_motion_vector_summary_compute (meta, NULL, &s));
  gst_motion_vector_meta_set_summary (meta, &s);
  fail_unless_equals_int (meta->flags,
      GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY);
  fail_unless (gst_motion_vector_meta_get_summary (meta, &got));
  fail_unless (memcmp (&got, &s, sizeof (s)) == 0);

  copy = gst_buffer_copy (buf);
  fail_unless (gst_motion_vector_meta_get_summary (meta_of (copy), &got));
  fail_unless (memcmp (&got, &s, sizeof (s)) == 0);
  gst_buffer_unref (copy);

  gst_motion_vector_meta_set_summary (meta, NULL);
  fail_unless_equals_int (meta->flags, 0);
  fail_unless (!gst_motion_vector_meta_get_summary (meta, &got));
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* A scale to half the width and a third more height rescales the
 * translation as the vectors (12 -> 6, -8 -> -32/3); the moving blocks
 * of the scaled meta are those of the original. */
GST_START_TEST (test_meta_scale)
{
  Field f = { 12, -8, 0, 0, 1, 1, 3, 3, -40, 0, 3 * 256 };
  GstBuffer *buf = make_buffer (320, 240, GST_MOTION_VECTOR_PARTITIONS_16X16,
      &f);
  GstBuffer *dest = gst_buffer_new ();
  GstMotionVectorMeta *meta = meta_of (buf), *scaled;
  GstMotionVectorSummary s, got;
  GstVideoInfo in_info, out_info;
  GstVideoMetaTransform trans = { &in_info, &out_info };
  guint8 mask[300], smask[300];

  fail_unless (gst_motion_vector_summary_compute (meta, NULL, &s));
  gst_motion_vector_meta_set_summary (meta, &s);
  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_I420, 320, 240);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_I420, 160, 320);
  fail_unless (meta->meta.info->transform_func (dest, &meta->meta, buf,
          gst_video_meta_transform_scale_get_quark (), &trans));
  scaled = meta_of (dest);
  fail_unless (gst_motion_vector_meta_get_summary (scaled, &got));
  fail_unless_equals_float (got.global_x, 6.0);
  fail_unless_equals_float (got.global_y, -8.0 * 320 / 240);
  fail_unless_equals_float (got.zoom, s.zoom);
  fail_unless_equals_float (got.moving_share, s.moving_share);
  fail_unless_equals_float (got.median_cost, s.median_cost);

  fail_unless (gst_motion_vector_summary_moving_blocks (meta, &s, mask,
          NULL, NULL));
  fail_unless (gst_motion_vector_summary_moving_blocks (scaled, &got, smask,
          NULL, NULL));
  fail_unless (memcmp (mask, smask, sizeof (mask)) == 0);
  fail_unless_equals_int (mask[1 * 20 + 1], 1);
  fail_unless_equals_int (mask[0], 0);
  gst_buffer_unref (buf);
  gst_buffer_unref (dest);
}

GST_END_TEST;

static Suite *
summary_suite (void)
{
  Suite *s = suite_create ("motionvectorsummary");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_translation);
  tcase_add_test (tc, test_counted_blocks);
  tcase_add_test (tc, test_zoom);
  tcase_add_test (tc, test_rotation_outliers);
  tcase_add_test (tc, test_unmatched);
  tcase_add_test (tc, test_scene_change);
  tcase_add_test (tc, test_deep_costs);
  tcase_add_test (tc, test_fine_grid_mask);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_deterministic);
  tcase_add_test (tc, test_meta_set_get_copy);
  tcase_add_test (tc, test_meta_scale);
  return s;
}

GST_CHECK_MAIN (summary);
