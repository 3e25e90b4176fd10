/* gpumotionest — formats of 10 to 16 bits are searched at their depth.
 *
 * A random 8-bit world is shown at depth d as the samples world << (d - 8):
 * every difference is 2^(d - 8) times the 8-bit one, so SAD and SATD are
 * too, the rate term (lambda scaled by the same factor,
 * docs/high-bit-depth.md) keeps every decision, and the cells must be the
 * GRAY8 cells with each cost times 2^(d - 8), vectors, predictions and
 * MVDs unchanged.  P010-style words (samples in the high bits) with
 * garbage below them must give the cells of the same samples in the low
 * bits.  And texture that lives below the eighth bit, invisible to an
 * 8-bit search, is found.  GPUMOTIONEST_TEST_BACKEND picks the backend
 * (default cpu), so the same checks run on the CUDA backend.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "testworld.h"

#define WORLD_W 300
#define WORLD_H 200
#define W 83
#define H 51
#define N_FRAMES 3

static guint8 *world;

/* Frame k looks at the world from (3k + 5, 2k + 4). */
#define OX(k) (3 * (k) + 5)
#define OY(k) (2 * (k) + 4)

/* How frame samples are made from the world. */
typedef enum {
  SAMPLES_SCALED,               /* world << (depth - 8) */
  SAMPLES_FINE,                 /* 2^(depth-1) + world % 4: below 8 bits */
} Samples;

static guint
sample_at (Samples how, guint depth, guint wx, guint wy)
{
  const guint v = world[wy * WORLD_W + wx];
  if (how == SAMPLES_SCALED)
    return v << (depth - 8);
  /* the 10-bit samples cut to 8 bits: one grey */
  return depth == 8 ? 128 : (1u << (depth - 1)) + (v & 3);
}

/* Frame k of `format` with its samples, and with `garbage` random bits in
 * the bits of each luma word outside the sample (the format's shift). */
static GstBuffer *
make_frame (GstVideoFormat format, guint k, Samples how, GRand * garbage)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;

  gst_video_info_set_format (&info, format, W, H);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 0x5a, info.size);  /* chroma: not read */
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  const guint depth = GST_VIDEO_FRAME_COMP_DEPTH (&frame, 0);
  const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (frame.info.finfo, 0);
  for (guint y = 0; y < H; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
        + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (guint x = 0; x < W; x++) {
      if (depth == 8) {
        row[x] = sample_at (how, 8, OX (k) + x, OY (k) + y);
        continue;
      }
      guint word = sample_at (how, depth, OX (k) + x, OY (k) + y) << shift;
      if (garbage && shift)
        word |= g_rand_int (garbage) & ((1u << shift) - 1);
      GST_WRITE_UINT16_LE (row + 2 * x, word);
    }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

typedef struct {
  GPtrArray *cells;             /* one GBytes a frame */
  guint bit_depth;
} Run;

static void
run_free (Run * r)
{
  g_ptr_array_unref (r->cells);
}

/* N_FRAMES frames of `format` through the element with `props`. */
static Run
run_frames (GstVideoFormat format, Samples how, GRand * garbage,
    const gchar * props)
{
  GstHarness *h = gst_harness_new ("gpumotionest");
  Run r = { g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref) };
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1", gst_video_format_to_string (format), W, H);

  gst_util_set_object_arg (G_OBJECT (h->element), "backend",
      g_getenv ("GPUMOTIONEST_TEST_BACKEND") ?
      g_getenv ("GPUMOTIONEST_TEST_BACKEND") : "cpu");
  g_object_set (h->element, "search-range", 8, "partitions", 0x7f,
      "in-flight", 1, NULL);
  if (props) {
    gchar **kv = g_strsplit_set (props, "= ", -1);
    for (guint i = 0; kv[i] && kv[i + 1]; i += 2)
      gst_util_set_object_arg (G_OBJECT (h->element), kv[i], kv[i + 1]);
    g_strfreev (kv);
  }
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  for (guint k = 0; k < N_FRAMES; k++) {
    GstBuffer *b;
    GstMotionVectorMeta *meta;

    fail_unless_equals_int (gst_harness_push (h, make_frame (format, k, how,
                garbage)), GST_FLOW_OK);
    b = gst_harness_pull (h);
    meta = gst_buffer_get_motion_vector_meta (b);
    fail_unless (meta != NULL);
    fail_unless_equals_int (meta->luma, GST_MOTION_VECTOR_LUMA_PLANE);
    fail_unless_equals_int (! !(meta->flags &
            GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE), k == 0);
    r.bit_depth = meta->bit_depth;
    g_ptr_array_add (r.cells, g_bytes_ref (meta->data));
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
  return r;
}

/* deep's cells are gray's with every cost times `scale`. */
static void
assert_scaled (const Run * gray, const Run * deep, guint scale,
    const gchar * what)
{
  fail_unless_equals_int (gray->cells->len, deep->cells->len);
  for (guint k = 1; k < gray->cells->len; k++) {
    gsize n, m;
    const GstMotionVectorCell *a = g_bytes_get_data (g_ptr_array_index
        (gray->cells, k), &n);
    const GstMotionVectorCell *b = g_bytes_get_data (g_ptr_array_index
        (deep->cells, k), &m);
    guint nonzero = 0;

    fail_unless_equals_int (n, m);
    for (gsize i = 0; i < n / sizeof (*a); i++) {
      fail_unless (a[i].mv_x == b[i].mv_x && a[i].mv_y == b[i].mv_y
          && a[i].pred_x == b[i].pred_x && a[i].pred_y == b[i].pred_y
          && a[i].mvd_x == b[i].mvd_x && a[i].mvd_y == b[i].mvd_y,
          "%s frame %u cell %" G_GSIZE_FORMAT ": vector (%d,%d), 8-bit "
          "(%d,%d)", what, k, i, b[i].mv_x, b[i].mv_y, a[i].mv_x, a[i].mv_y);
      fail_unless_equals_uint64 ((guint64) b[i].cost,
          (guint64) a[i].cost * scale);
      nonzero += a[i].cost != 0;
    }
    /* the frames' edges, where the world's motion leaves it, cost */
    fail_unless (nonzero > 0, "%s frame %u: no cost to compare", what, k);
  }
}

static const GstVideoFormat deep_formats[] = {
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P012_LE,
  GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_I422_10LE,
  GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE,
  GST_VIDEO_FORMAT_GRAY16_LE,
};

/* Settings whose costs scale exactly with the samples: no interpolation
 * and no pyramid (their rounding does not scale: `hierarchical`, and
 * `predictive`, whose coarse predictor is the pyramid's level 2), SAD or
 * SATD, with and without a rate term. */
static const gchar *const exact_props[] = {
  NULL, "metric=satd", "lambda=6", "metric=satd lambda=40",
  "method=mods lambda=3", "method=mods",
};

GST_START_TEST (test_deep_costs_scale)
{
  for (guint p = 0; p < G_N_ELEMENTS (exact_props); p++) {
    Run gray = run_frames (GST_VIDEO_FORMAT_GRAY8, SAMPLES_SCALED, NULL,
        exact_props[p]);
    fail_unless_equals_int (gray.bit_depth, 8);
    for (guint i = 0; i < G_N_ELEMENTS (deep_formats); i++) {
      const GstVideoFormatInfo *fi = gst_video_format_get_info
          (deep_formats[i]);
      const guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (fi, 0);
      gchar *what = g_strdup_printf ("%s %s",
          gst_video_format_to_string (deep_formats[i]),
          exact_props[p] ? exact_props[p] : "");
      Run deep = run_frames (deep_formats[i], SAMPLES_SCALED, NULL,
          exact_props[p]);

      fail_unless_equals_int (deep.bit_depth, depth);
      assert_scaled (&gray, &deep, 1u << (depth - 8), what);
      run_free (&deep);
      g_free (what);
    }
    run_free (&gray);
  }
}

GST_END_TEST;

/* Words with the sample in the high bits (P010) give the cells of the
 * same samples in the low bits (I420_10LE), whatever the bits below; with
 * sub-pel refinement too. */
GST_START_TEST (test_deep_shift_and_garbage)
{
  static const gchar *const props[] = { NULL, "subpel=quarter",
    "subpel=quarter metric=satd lambda=4"
  };
  for (guint p = 0; p < G_N_ELEMENTS (props); p++) {
    GRand *garbage = g_rand_new_with_seed (7);
    Run low = run_frames (GST_VIDEO_FORMAT_I420_10LE, SAMPLES_SCALED, NULL,
        props[p]);
    Run high = run_frames (GST_VIDEO_FORMAT_P010_10LE, SAMPLES_SCALED,
        garbage, props[p]);
    Run low12 = run_frames (GST_VIDEO_FORMAT_I420_12LE, SAMPLES_SCALED, NULL,
        props[p]);
    Run high12 = run_frames (GST_VIDEO_FORMAT_P012_LE, SAMPLES_SCALED,
        garbage, props[p]);

    for (guint k = 0; k < N_FRAMES; k++) {
      fail_unless (g_bytes_equal (g_ptr_array_index (low.cells, k),
              g_ptr_array_index (high.cells, k)), "10 bits, frame %u", k);
      fail_unless (g_bytes_equal (g_ptr_array_index (low12.cells, k),
              g_ptr_array_index (high12.cells, k)), "12 bits, frame %u", k);
    }
    run_free (&low);
    run_free (&high);
    run_free (&low12);
    run_free (&high12);
    g_rand_free (garbage);
  }
}

GST_END_TEST;

/* Texture of the two lowest bits of 10-bit samples: searched at 10 bits
 * the motion (3, 2) is found exactly; the same frames cut to 8 bits (the
 * samples >> 2, one grey level) show none. */
GST_START_TEST (test_deep_texture_below_8_bits)
{
  Run deep = run_frames (GST_VIDEO_FORMAT_I420_10LE, SAMPLES_FINE, NULL,
      NULL);
  const GstMotionVectorCell *c = g_bytes_get_data (g_ptr_array_index
      (deep.cells, 1), NULL);
  const guint cols = gst_motion_vector_mb_cols (W);

  /* macroblock (1, 1): inside the frame and its reference */
  fail_unless_equals_int (c[cols + 1].mv_x, 3 * 4);
  fail_unless_equals_int (c[cols + 1].mv_y, 2 * 4);
  fail_unless_equals_int (c[cols + 1].cost, 0);
  run_free (&deep);

  Run gray = run_frames (GST_VIDEO_FORMAT_GRAY8, SAMPLES_FINE, NULL, NULL);
  c = g_bytes_get_data (g_ptr_array_index (gray.cells, 1), NULL);
  fail_unless_equals_int (c[cols + 1].mv_x, 0);
  fail_unless_equals_int (c[cols + 1].mv_y, 0);
  fail_unless_equals_int (c[cols + 1].cost, 0);
  run_free (&gray);
}

GST_END_TEST;

/* lambda is scaled to the depth: above 65535 >> (depth - 8) the search
 * refuses it with an error, not a silently saturated cost. */
GST_START_TEST (test_deep_lambda_limit)
{
  GstHarness *h = gst_harness_new ("gpumotionest");

  gst_util_set_object_arg (G_OBJECT (h->element), "backend",
      g_getenv ("GPUMOTIONEST_TEST_BACKEND") ?
      g_getenv ("GPUMOTIONEST_TEST_BACKEND") : "cpu");
  g_object_set (h->element, "lambda", 256, "in-flight", 1, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY16_LE,width=32,"
      "height=32,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_and_alloc
          (32 * 32 * 2)), GST_FLOW_ERROR);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
deep_formats_suite (void)
{
  Suite *s = suite_create ("deep-formats");
  TCase *tc = tcase_create ("general");

  world = test_world_new (WORLD_W, WORLD_H, 2511);
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_deep_costs_scale);
  tcase_add_test (tc, test_deep_shift_and_garbage);
  tcase_add_test (tc, test_deep_texture_below_8_bits);
  tcase_add_test (tc, test_deep_lambda_limit);
  return s;
}

GST_CHECK_MAIN (deep_formats);
