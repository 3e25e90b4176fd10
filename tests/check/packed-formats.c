/* gpumotionest — packed 4:2:2 and RGB frames give the cells of the GRAY8
 * frames of their luma.
 *
 * The same random world is shown as GRAY8 and as YUY2, UYVY and YVYU (the
 * same luma every other byte, random chroma that must not count), and as
 * BGRx and xRGB whose R, G and B make a colour gradient with texture on
 * top.  The RGB frames' luma is computed here from the definition
 * (docs/formats.md), BT.601 or BT.709 by the caps' colorimetry, and
 * pushed as GRAY8: every cell of every shape must be the same, byte for
 * byte.  The backend is "auto": on a machine with a GPU this checks the
 * CUDA backend's conversion too.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "testworld.h"

#define WORLD_W 400
#define WORLD_H 300
#define W 77                    /* odd: the last 4:2:2 pair is half used */
#define H 45
#define N_FRAMES 3

static guint8 *world;

/* Frame k looks at the world from (3k + 5, 2k + 4): each frame moves by
 * (3, 2) pixels. */
#define OX(k) (3 * (k) + 5)
#define OY(k) (2 * (k) + 4)

/* The colour of world pixel (x, y): a gradient in R and B across the
 * world, G its texture, so that the three channels differ everywhere. */
static void
world_rgb (guint x, guint y, guint8 rgb[3])
{
  rgb[0] = (x * 255) / WORLD_W;
  rgb[1] = world[y * WORLD_W + x];
  rgb[2] = (y * 255) / WORLD_H ^ (world[y * WORLD_W + x] >> 2);
}

/* The luma of a colour by the rule, written from the definition. */
static guint8
rule_luma (const guint8 rgb[3], gboolean bt709)
{
  if (bt709)
    return (54 * rgb[0] + 183 * rgb[1] + 19 * rgb[2] + 128) >> 8;
  return (77 * rgb[0] + 150 * rgb[1] + 29 * rgb[2] + 128) >> 8;
}

/* Frame k in `format`.  GRAY8: the world, or with `rgb_luma` (0: none, 1:
 * BT.601, 2: BT.709) the rule's luma of its colours. */
static GstBuffer *
make_frame (GstVideoFormat format, guint k, gint rgb_luma, GRand * chroma)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;

  gst_video_info_set_format (&info, format, W, H);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 0, info.size);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (guint y = 0; y < H; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
        + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    const guint wy = OY (k) + y;

    if (!GST_VIDEO_INFO_IS_RGB (&info) && chroma)
      for (gint i = 0; i < GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0); i++)
        row[i] = g_rand_int (chroma);   /* overwritten where luma is */
    for (guint x = 0; x < W; x++) {
      const guint wx = OX (k) + x;
      guint8 rgb[3];

      world_rgb (wx, wy, rgb);
      if (GST_VIDEO_INFO_IS_RGB (&info)) {
        guint8 *p = row + x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);
        p[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_R)] = rgb[0];
        p[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_G)] = rgb[1];
        p[GST_VIDEO_FRAME_COMP_POFFSET (&frame, GST_VIDEO_COMP_B)] = rgb[2];
      } else {
        row[x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0)
            + GST_VIDEO_FRAME_COMP_POFFSET (&frame, 0)] = rgb_luma
            ? rule_luma (rgb, rgb_luma == 2) : world[wy * WORLD_W + wx];
      }
    }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

/* A buffer copy and a downstream scale keep what the costs were of: a
 * scale rescales the vectors, not the samples. */
static void
check_luma_travels (GstBuffer * buf, const GstMotionVectorMeta * meta)
{
  GstBuffer *copy = gst_buffer_copy (buf), *dest = gst_buffer_new ();
  GstVideoInfo in_info, out_info;
  GstVideoMetaTransform trans = { &in_info, &out_info };
  const GstMotionVectorMeta *m;

  m = gst_buffer_get_motion_vector_meta (copy);
  fail_unless (m != NULL);
  fail_unless_equals_int (m->luma, meta->luma);
  fail_unless_equals_int (m->bit_depth, meta->bit_depth);
  fail_unless_equals_int (m->flags, meta->flags);
  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_BGRx, W, H);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_BGRx, 2 * W, 2 * H);
  fail_unless (meta->meta.info->transform_func (dest, (GstMeta *) meta, buf,
          gst_video_meta_transform_scale_get_quark (), &trans));
  m = gst_buffer_get_motion_vector_meta (dest);
  fail_unless (m != NULL);
  fail_unless_equals_int (m->width, 2 * W);
  fail_unless_equals_int (m->luma, meta->luma);
  fail_unless_equals_int (m->bit_depth, meta->bit_depth);
  fail_unless_equals_int (m->flags, meta->flags);
  gst_buffer_unref (copy);
  gst_buffer_unref (dest);
}

/* The cells of every shape of N_FRAMES frames pushed in `caps`, one GBytes
 * a frame. */
static GPtrArray *
run_frames_luma (const gchar * caps_str, GstVideoFormat format,
    gint rgb_luma, GstMotionVectorLuma expect_luma)
{
  GstHarness *h = gst_harness_new ("gpumotionest");
  GPtrArray *out = g_ptr_array_new_with_free_func (
      (GDestroyNotify) g_bytes_unref);
  GRand *chroma = g_rand_new_with_seed (format);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1%s", gst_video_format_to_string (format), W, H,
      caps_str);

  g_object_set (h->element, "search-range", 8, "partitions", 0x7f,
      "in-flight", 1, NULL);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  for (guint k = 0; k < N_FRAMES; k++) {
    GstBuffer *b;
    GstMotionVectorMeta *meta;

    fail_unless_equals_int (gst_harness_push (h, make_frame (format, k,
                rgb_luma, chroma)), GST_FLOW_OK);
    b = gst_harness_pull (h);
    meta = gst_buffer_get_motion_vector_meta (b);
    fail_unless (meta != NULL);
    fail_unless_equals_int (meta->analysis_width, W);
    fail_unless_equals_int (meta->analysis_height, H);
    fail_unless_equals_int (! !(meta->flags &
            GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE), k == 0);
    /* what the costs are of, in the meta */
    fail_unless_equals_int (meta->luma, expect_luma);
    fail_unless_equals_int (meta->bit_depth, 8);
    fail_unless_equals_int (! !(meta->flags &
            GST_MOTION_VECTOR_META_FLAG_DERIVED_LUMA),
        expect_luma == GST_MOTION_VECTOR_LUMA_BT601
        || expect_luma == GST_MOTION_VECTOR_LUMA_BT709);
    if (k == 1)
      check_luma_travels (b, meta);
    g_ptr_array_add (out, g_bytes_ref (meta->data));
    gst_buffer_unref (b);
  }
  g_rand_free (chroma);
  gst_harness_teardown (h);
  return out;
}

static GPtrArray *
run_frames (const gchar * caps_str, GstVideoFormat format, gint rgb_luma)
{
  return run_frames_luma (caps_str, format, rgb_luma,
      GST_MOTION_VECTOR_LUMA_PLANE);
}

static void
assert_same_cells (GPtrArray * a, GPtrArray * b, const gchar * what)
{
  fail_unless_equals_int (a->len, b->len);
  for (guint k = 0; k < a->len; k++)
    fail_unless (g_bytes_equal (g_ptr_array_index (a, k),
            g_ptr_array_index (b, k)), "%s: frame %u differs from GRAY8",
        what, k);
}

/* The vector of the 16x16 macroblock (1, 1) in frame 1: the world moved by
 * (3, 2) pixels, found in quarter pixels against the previous frame. */
static void
assert_true_motion (GPtrArray * cells)
{
  const GstMotionVectorCell *c = (const GstMotionVectorCell *)
      g_bytes_get_data (g_ptr_array_index (cells, 1), NULL);
  const guint cols = gst_motion_vector_mb_cols (W);

  fail_unless_equals_int (c[cols + 1].mv_x, 3 * 4);
  fail_unless_equals_int (c[cols + 1].mv_y, 2 * 4);
  fail_unless_equals_int (c[cols + 1].cost, 0);
}

GST_START_TEST (test_packed_422_is_its_luma)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_YVYU
  };
  GPtrArray *gray = run_frames ("", GST_VIDEO_FORMAT_GRAY8, 0);

  assert_true_motion (gray);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    GPtrArray *packed = run_frames_luma ("", formats[i], 0,
        GST_MOTION_VECTOR_LUMA_PACKED);
    assert_same_cells (gray, packed, gst_video_format_to_string (formats[i]));
    g_ptr_array_unref (packed);
  }
  g_ptr_array_unref (gray);
}

GST_END_TEST;

/* bt601 caps give BT.601's weights; bt709 and sRGB (the default of RGB
 * caps) BT.709's.  The two lumas give different cells: a backend using
 * the other matrix would fail. */
GST_START_TEST (test_rgb_is_its_derived_luma)
{
  static const struct {
    const gchar *caps;
    gint luma;
  } cases[] = {
    {",colorimetry=bt601", 1}, {",colorimetry=bt709", 2},
    {",colorimetry=sRGB", 2}, {"", 2},
  };
  GPtrArray *gray[2] = {
    run_frames ("", GST_VIDEO_FORMAT_GRAY8, 1),
    run_frames ("", GST_VIDEO_FORMAT_GRAY8, 2),
  };

  assert_true_motion (gray[0]);
  assert_true_motion (gray[1]);
  fail_if (g_bytes_equal (g_ptr_array_index (gray[0], 1),
          g_ptr_array_index (gray[1], 1)));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    const GstMotionVectorLuma luma = cases[i].luma == 2
        ? GST_MOTION_VECTOR_LUMA_BT709 : GST_MOTION_VECTOR_LUMA_BT601;
    GPtrArray *bgrx = run_frames_luma (cases[i].caps, GST_VIDEO_FORMAT_BGRx,
        0, luma);
    GPtrArray *xrgb = run_frames_luma (cases[i].caps, GST_VIDEO_FORMAT_xRGB,
        0, luma);
    assert_same_cells (gray[cases[i].luma - 1], bgrx, cases[i].caps);
    assert_same_cells (gray[cases[i].luma - 1], xrgb, cases[i].caps);
    g_ptr_array_unref (bgrx);
    g_ptr_array_unref (xrgb);
  }
  g_ptr_array_unref (gray[0]);
  g_ptr_array_unref (gray[1]);
}

GST_END_TEST;

/* The second line mvexport writes for two frames of `format`. */
static gchar *
export_line (GstVideoFormat format, const gchar * caps_extra)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "packed-XXXXXX.jsonl",
      NULL);
  gint fd = g_mkstemp (path);
  gchar *launch = g_strdup_printf ("gpumotionest in-flight=1 search-range=8 "
      "! mvexport location=%s", path);
  GstHarness *h = gst_harness_new_parse (launch);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1%s", gst_video_format_to_string (format), W, H,
      caps_extra);
  gchar *text, **lines, *line;

  fail_unless (fd >= 0);
  close (fd);
  gst_harness_set_src_caps_str (h, caps);
  for (guint k = 0; k < 2; k++) {
    fail_unless_equals_int (gst_harness_push (h, make_frame (format, k, 0,
                NULL)), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  fail_unless (g_strv_length (lines) >= 2);
  line = g_strdup (lines[1]);
  g_strfreev (lines);
  g_free (text);
  g_unlink (path);
  g_free (path);
  g_free (launch);
  g_free (caps);
  return line;
}

/* mvexport names the derived luma, and only that: a GRAY8 or a YUY2 line
 * is as before, method then layers. */
GST_START_TEST (test_export_names_derived_luma)
{
  gchar *gray = export_line (GST_VIDEO_FORMAT_GRAY8, "");
  gchar *yuy2 = export_line (GST_VIDEO_FORMAT_YUY2, "");
  gchar *bt601 = export_line (GST_VIDEO_FORMAT_BGRx, ",colorimetry=bt601");
  gchar *bt709 = export_line (GST_VIDEO_FORMAT_RGBA, "");

  fail_unless (strstr (gray, "\"method\":\"full\",\"layers\":[") != NULL,
      "%s", gray);
  fail_unless (strstr (yuy2, "\"method\":\"full\",\"layers\":[") != NULL,
      "%s", yuy2);
  fail_unless (strstr (bt601,
          "\"method\":\"full\",\"luma\":\"bt601\",\"layers\":[") != NULL);
  fail_unless (strstr (bt709,
          "\"method\":\"full\",\"luma\":\"bt709\",\"layers\":[") != NULL);
  fail_if (strstr (gray, "bit_depth") || strstr (bt709, "bit_depth"));
  g_free (gray);
  g_free (yuy2);
  g_free (bt601);
  g_free (bt709);
}

GST_END_TEST;

static Suite *
packed_formats_suite (void)
{
  Suite *s = suite_create ("packed-formats");
  TCase *tc = tcase_create ("general");

  world = test_world_new (WORLD_W, WORLD_H, 4242);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_packed_422_is_its_luma);
  tcase_add_test (tc, test_rgb_is_its_derived_luma);
  tcase_add_test (tc, test_export_names_derived_luma);
  return s;
}

GST_CHECK_MAIN (packed_formats);
