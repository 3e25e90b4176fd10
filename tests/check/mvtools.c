/* gst-check tests of the mvtools plugin: mvoverlay and mvexport.
 *
 * Every input is a synthetic 64x64 grey frame with a meta built here, so
 * the expected pixels and text follow from the geometry alone: one 16x16
 * block, cell (1, 1), holds the vector (-32, 0) quarter-pel, i.e. its
 * content moved 8 px to the right; every other cell is zero.
 */
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>
#ifdef G_OS_UNIX
#include <unistd.h>
#endif

#define W 64
#define H 64
#define GREY 128

/* A grey frame: every byte of every plane is GREY (alpha included). */
static GstBuffer *
make_grey_buffer (GstVideoFormat format, GstVideoInfo * info)
{
  GstBuffer *buf;

  fail_unless (gst_video_info_set_format (info, format, W, H));
  buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  gst_buffer_memset (buf, 0, GREY, info->size);
  return buf;
}

/* Attaches a meta with the shapes @parts; the cell (@col, @row) of the
 * grid of @shape gets (@mv_x, @mv_y) and @cost, every other cell is 0. */
static GstMotionVectorMeta *
add_meta (GstBuffer * buf, GstMotionVectorPartitionFlags parts,
    GstMotionVectorPartition shape, guint col, guint row, gint16 mv_x,
    gint16 mv_y, guint32 cost)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint n = gst_motion_vector_layout (W, H, parts, grids);
  GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, n);
  GstMotionVectorCell *cell =
      &cells[grids[shape].offset + row * grids[shape].cols + col];
  GstMotionVectorMeta *meta;
  GBytes *data;

  cell->mv_x = mv_x;
  cell->mv_y = mv_y;
  cell->cost = cost;
  cell->pred_x = 4;
  cell->pred_y = -4;
  cell->mvd_x = mv_x - 4;
  cell->mvd_y = mv_y + 4;
  data = g_bytes_new_take (cells, (gsize) n * sizeof (GstMotionVectorCell));
  meta = gst_buffer_add_motion_vector_meta (buf, W, H, parts, data);
  g_bytes_unref (data);         /* the meta holds its own reference */
  fail_unless (meta != NULL);
  meta->search_range = 16;
  return meta;
}

static GstHarness *
overlay_harness (const gchar * launch, GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstCaps *caps = gst_video_info_to_caps (info);

  gst_harness_set_src_caps (h, caps);
  return h;
}

/* Pushes @in (consumed) through @launch; returns the output buffer. */
static GstBuffer *
run_overlay (const gchar * launch, GstVideoInfo * info, GstBuffer * in)
{
  GstHarness *h = overlay_harness (launch, info);
  GstBuffer *out;

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_harness_teardown (h);
  return out;
}

/* Byte of component @comp at pixel (@x, @y) (the component's own
 * subsampled position). */
static guint8
comp_at (GstVideoInfo * info, GstBuffer * buf, guint comp, guint x, guint y)
{
  GstVideoFrame frame;
  guint8 v;
  const GstVideoFormatInfo *f = info->finfo;

  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_READ));
  v = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, comp))
      [(y >> GST_VIDEO_FORMAT_INFO_H_SUB (f, comp))
          * GST_VIDEO_FRAME_COMP_STRIDE (&frame, comp)
          + (x >> GST_VIDEO_FORMAT_INFO_W_SUB (f, comp))
          * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp)];
  gst_video_frame_unmap (&frame);
  return v;
}

static gboolean
pixel_is_grey (GstVideoInfo * info, GstBuffer * buf, guint x, guint y)
{
  return comp_at (info, buf, 0, x, y) == GREY
      && comp_at (info, buf, 1, x, y) == GREY
      && comp_at (info, buf, 2, x, y) == GREY;
}

/* Every pixel of [x0, x1) x [y0, y1) is untouched. */
static void
assert_region_grey (GstVideoInfo * info, GstBuffer * buf, guint x0, guint y0,
    guint x1, guint y1)
{
  guint x, y;

  for (y = y0; y < y1; y++)
    for (x = x0; x < x1; x++)
      fail_unless (pixel_is_grey (info, buf, x, y),
          "pixel (%u, %u) changed", x, y);
}

/* The arrow of cell (1, 1) runs from its centre (24, 24) 8 px right to
 * (32, 24): pixels on it change, pixels behind the centre and in distant
 * zero-vector blocks do not. */
static void
check_arrow (GstVideoFormat format)
{
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (format, &info), *out;
  guint x;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay", &info, in);

  for (x = 25; x <= 31; x++)
    fail_if (pixel_is_grey (&info, out, x, 24), "arrow pixel (%u, 24) grey",
        x);
  /* nothing behind the start (3-pixel outline reaches x = 23 only) */
  assert_region_grey (&info, out, 0, 0, 22, H);
  /* nothing in the zero-vector blocks of the last block row and column */
  assert_region_grey (&info, out, 0, 48, W, H);
  assert_region_grey (&info, out, 48, 0, W, H);
  /* nothing above or below the arrow beyond head + outline */
  assert_region_grey (&info, out, 0, 0, W, 20);
  assert_region_grey (&info, out, 0, 29, W, H);
  gst_buffer_unref (out);
}

GST_START_TEST (test_overlay_arrow_i420)
{
  GstVideoInfo info;
  GstBuffer *in, *out;

  check_arrow (GST_VIDEO_FORMAT_I420);

  /* The shaft's bright pixel is red at saturation 0.75 (motion to the
   * right = hue 0; the largest magnitude of the frame = full brightness):
   * RGB (1, 0.25, 0.25), so in BT.601 limited range
   * Y' = 0.299 + 0.701 * 0.25 = 0.47425, Y = 16 + 219 Y' = 119.9 -> 120,
   * V = 128 + 224 * (1 - Y') / 1.402 = 128 + 224 * 0.375 = 212. */
  in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay", &info, in);
  fail_unless_equals_int (comp_at (&info, out, 0, 27, 24), 120);
  fail_unless_equals_int (comp_at (&info, out, 2, 26, 24), 212);
  /* the outline above the shaft is black: Y = 16 */
  fail_unless_equals_int (comp_at (&info, out, 0, 27, 23), 16);
  gst_buffer_unref (out);
}

GST_END_TEST;

/* Packed 4:2:2 (gpumotionest's webcam formats): Y at every pixel, U and V
 * every other one, at each layout's own byte; the values are the I420
 * test's. */
GST_START_TEST (test_overlay_arrow_packed_422)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_YVYU
  };

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info;
    GstBuffer *in, *out;

    check_arrow (formats[f]);
    in = make_grey_buffer (formats[f], &info);
    add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
    out = run_overlay ("mvoverlay", &info, in);
    fail_unless_equals_int (comp_at (&info, out, 0, 27, 24), 120);
    fail_unless_equals_int (comp_at (&info, out, 2, 26, 24), 212);
    fail_unless_equals_int (comp_at (&info, out, 0, 27, 23), 16);
    gst_buffer_unref (out);
  }
}

GST_END_TEST;

/* GRAY8: the luma of the same colours, nothing else to write.  GRAY8
 * caps default to full range: Y = 255 Y' = 255 * 0.47425 = 120.9 -> 121,
 * and the black outline is 0. */
GST_START_TEST (test_overlay_arrow_gray8)
{
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_GRAY8, &info), *out;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay", &info, in);
  fail_unless_equals_int (comp_at (&info, out, 0, 27, 24), 121);
  fail_unless_equals_int (comp_at (&info, out, 0, 27, 23), 0);
  /* behind the arrow's start and in the zero-vector blocks: untouched */
  fail_unless_equals_int (comp_at (&info, out, 0, 10, 24), GREY);
  fail_unless_equals_int (comp_at (&info, out, 0, 56, 56), GREY);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_arrow_rgba)
{
  GstVideoInfo info;
  GstBuffer *in, *out;

  check_arrow (GST_VIDEO_FORMAT_RGBA);
  check_arrow (GST_VIDEO_FORMAT_BGRx);
  check_arrow (GST_VIDEO_FORMAT_NV12);

  in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info);
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay", &info, in);
  /* red at saturation 0.75: (255, 64, 64) */
  fail_unless_equals_int (comp_at (&info, out, 0, 27, 24), 255);
  fail_unless_equals_int (comp_at (&info, out, 1, 27, 24), 64);
  fail_unless_equals_int (comp_at (&info, out, 2, 27, 24), 64);
  fail_unless_equals_int (comp_at (&info, out, 3, 27, 24), GREY);  /* alpha kept */
  fail_unless_equals_int (comp_at (&info, out, 0, 27, 23), 0);
  gst_buffer_unref (out);
}

GST_END_TEST;

/* Deep formats: 9 to 16 bits per sample in little-endian 16-bit words.
 * The colours are the 8-bit ones above widened to the depth by repeating
 * their top bits (v << (depth - 8) | v >> (16 - depth)) and stored at the
 * format's shift: P01x in the top bits of the word, the planar ones in the
 * low bits. */

/* The 16-bit word of component @comp at pixel (@x, @y).  Every sample of
 * the deep formats starts its pixel's bytes, but for P01x's V, the second
 * word of each UV pair (GStreamer's table gives it a poffset of 1, a count
 * of words, so GST_VIDEO_FRAME_COMP_DATA() is of no use here). */
static guint
word_at (GstVideoInfo * info, GstBuffer * buf, guint comp, guint x, guint y)
{
  GstVideoFrame frame;
  const GstVideoFormatInfo *f = info->finfo;
  gboolean second = GST_VIDEO_INFO_N_PLANES (info) == 2 && comp == 2;
  const guint8 *s;
  guint v;

  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_READ));
  s = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
      GST_VIDEO_FORMAT_INFO_PLANE (f, comp)) + (second ? 2 : 0)
      + (y >> GST_VIDEO_FORMAT_INFO_H_SUB (f, comp))
      * GST_VIDEO_FRAME_COMP_STRIDE (&frame, comp)
      + (x >> GST_VIDEO_FORMAT_INFO_W_SUB (f, comp))
      * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp);
  v = GST_READ_UINT16_LE (s);
  gst_video_frame_unmap (&frame);
  return v;
}

/* The two bytes at @offset of plane @plane, as a little-endian word: the
 * layout read without GstVideoFrame's component offsets. */
static guint
plane_word (GstVideoInfo * info, GstBuffer * buf, guint plane, gsize offset)
{
  guint8 b[2];

  fail_unless_equals_int (gst_buffer_extract (buf,
          GST_VIDEO_INFO_PLANE_OFFSET (info, plane) + offset, b, 2), 2);
  return b[0] | b[1] << 8;
}

/* A frame of @format, @W x @H, whose every 16-bit word is @word. */
static GstBuffer *
make_word_buffer (GstVideoFormat format, GstVideoInfo * info, guint16 word)
{
  GstBuffer *buf;
  GstMapInfo map;
  gsize i;

  fail_unless (gst_video_info_set_format (info, format, W, H));
  buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i + 1 < map.size; i += 2)
    GST_WRITE_UINT16_LE (map.data + i, word);
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Per deep format, the words mvoverlay writes for the I420 test's colours
 * (Y 120, U 100, V 212 on the shaft, Y 16 on its outline), and for GREY
 * (128), which every sample of the test frames holds.  At 10 bits
 * 120 -> 120 << 2 | 120 >> 6 = 481, at 12 bits 120 << 4 | 120 >> 4 = 1927,
 * at 16 bits 120 * 257 = 30840; P010 shifts by 6 (481 << 6 = 30784), P012
 * by 4.  GRAY16_LE is full range like GRAY8: Y 121 * 257, outline 0. */
typedef struct
{
  GstVideoFormat format;
  guint grey, y, u, v, outline;
} DeepWords;

static const DeepWords deep_words[] = {
  {GST_VIDEO_FORMAT_P010_10LE, 32896, 30784, 25664, 54464, 4096},
  {GST_VIDEO_FORMAT_P012_LE, 32896, 30832, 25696, 54480, 4112},
  {GST_VIDEO_FORMAT_P016_LE, 32896, 30840, 25700, 54484, 4112},
  {GST_VIDEO_FORMAT_I420_10LE, 514, 481, 401, 851, 64},
  {GST_VIDEO_FORMAT_I420_12LE, 2056, 1927, 1606, 3405, 257},
  {GST_VIDEO_FORMAT_I422_10LE, 514, 481, 401, 851, 64},
  {GST_VIDEO_FORMAT_I422_12LE, 2056, 1927, 1606, 3405, 257},
  {GST_VIDEO_FORMAT_Y444_10LE, 514, 481, 401, 851, 64},
  {GST_VIDEO_FORMAT_Y444_12LE, 2056, 1927, 1606, 3405, 257},
  {GST_VIDEO_FORMAT_Y444_16LE, 32896, 30840, 25700, 54484, 4112},
  {GST_VIDEO_FORMAT_GRAY16_LE, 32896, 31097, 0, 0, 0},
};

/* Every component's word of every pixel of [x0, x1) x [y0, y1) is
 * @grey. */
static void
assert_region_words (GstVideoInfo * info, GstBuffer * buf, guint grey,
    guint x0, guint y0, guint x1, guint y1)
{
  guint n = GST_VIDEO_INFO_IS_GRAY (info) ? 1 : 3, x, y, c;

  for (y = y0; y < y1; y++)
    for (x = x0; x < x1; x++)
      for (c = 0; c < n; c++)
        fail_unless_equals_int (word_at (info, buf, c, x, y), grey);
}

/* The I420 test's arrow on each deep format: the same colours at the
 * component's depth and shift, and the rest of the frame untouched. */
GST_START_TEST (test_overlay_arrow_deep)
{
  guint f;

  for (f = 0; f < G_N_ELEMENTS (deep_words); f++) {
    const DeepWords *e = &deep_words[f];
    GstVideoInfo info;
    GstBuffer *in = make_word_buffer (e->format, &info, e->grey), *out;
    guint x;

    GST_INFO ("%s", gst_video_format_to_string (e->format));
    add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
    out = run_overlay ("mvoverlay", &info, in);

    for (x = 25; x <= 31; x++)
      fail_if (word_at (&info, out, 0, x, 24) == e->grey);
    fail_unless_equals_int (word_at (&info, out, 0, 27, 24), e->y);
    fail_unless_equals_int (word_at (&info, out, 0, 27, 23), e->outline);
    if (!GST_VIDEO_INFO_IS_GRAY (&info)) {
      fail_unless_equals_int (word_at (&info, out, 1, 26, 24), e->u);
      fail_unless_equals_int (word_at (&info, out, 2, 26, 24), e->v);
    }
    /* behind the start, the zero-vector blocks, above and below */
    assert_region_words (&info, out, e->grey, 0, 0, 22, H);
    assert_region_words (&info, out, e->grey, 0, 48, W, H);
    assert_region_words (&info, out, e->grey, 48, 0, W, H);
    assert_region_words (&info, out, e->grey, 0, 0, W, 20);
    assert_region_words (&info, out, e->grey, 0, 29, W, H);
    gst_buffer_unref (out);
  }
}

GST_END_TEST;

/* The byte layout itself, read from the planes: P010's luma word at
 * (27, 24) is 30784 = 0x7840, stored 0x40 0x78; its UV plane interleaves
 * U and V words, the chroma sample (13, 12) holding U 0x6440 then V
 * 0xd4c0 at byte 13 * 4 of row 12.  I420_10LE's luma 481 = 0x01e1 sits in
 * the low bits, at byte 27 * 2 of row 24. */
GST_START_TEST (test_overlay_deep_layout)
{
  GstVideoInfo info;
  GstBuffer *in, *out;
  gint ys, uvs;

  in = make_word_buffer (GST_VIDEO_FORMAT_P010_10LE, &info, 32896);
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay", &info, in);
  ys = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  uvs = GST_VIDEO_INFO_PLANE_STRIDE (&info, 1);
  fail_unless_equals_int (GST_VIDEO_INFO_N_PLANES (&info), 2);
  fail_unless_equals_int (plane_word (&info, out, 0, 24 * ys + 27 * 2),
      0x7840);
  fail_unless_equals_int (plane_word (&info, out, 1, 12 * uvs + 13 * 4),
      0x6440);
  fail_unless_equals_int (plane_word (&info, out, 1, 12 * uvs + 13 * 4 + 2),
      0xd4c0);
  /* the chroma sample left of the arrow's outline: untouched */
  fail_unless_equals_int (plane_word (&info, out, 1, 12 * uvs + 5 * 4),
      32896);
  fail_unless_equals_int (plane_word (&info, out, 1, 12 * uvs + 5 * 4 + 2),
      32896);
  gst_buffer_unref (out);

  in = make_word_buffer (GST_VIDEO_FORMAT_I420_10LE, &info, 514);
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay", &info, in);
  ys = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  fail_unless_equals_int (plane_word (&info, out, 0, 24 * ys + 27 * 2),
      0x01e1);
  fail_unless_equals_int (plane_word (&info, out, 0, 24 * ys + 10 * 2), 514);
  gst_buffer_unref (out);
}

GST_END_TEST;

/* Blending at the sample's depth: mode=cost opacity=0.5 (alpha 128 of
 * 256) fills the costly block (2, 2) with white and the rest with black,
 * out = (grey * 128 + colour * 128 + 128) >> 8 on the depth's values:
 * I420, the 8-bit reference: white Y 235 -> (128 + 235) / 2 = 182, black
 * Y 16 -> 72 (72.5 rounded down), chroma 128 kept.  At 10 bits grey 514,
 * white 943, black 64 -> 729 and 289; at 12 bits 2056, 3774, 257 -> 2915
 * and 1157; at 16 bits 32896, 60395, 4112 -> 46646 and 18504; GRAY16_LE
 * (full range) 65535 and 0 -> 49216 and 16448.  The samples' bits outside
 * the depth (P010's low 6, I420_10LE's high 6) are set in the input:
 * blending ignores them and clears them. */
GST_START_TEST (test_overlay_blend_deep)
{
  static const struct
  {
    GstVideoFormat format;
    guint in, white, black, chroma;
  } cases[] = {
    {GST_VIDEO_FORMAT_P010_10LE, 32896 | 0x3f, 729 << 6, 289 << 6, 514 << 6},
    {GST_VIDEO_FORMAT_P012_LE, 32896 | 0xf, 2915 << 4, 1157 << 4, 2056 << 4},
    {GST_VIDEO_FORMAT_P016_LE, 32896, 46646, 18504, 32896},
    {GST_VIDEO_FORMAT_I420_10LE, 514 | 0xfc00, 729, 289, 514},
    {GST_VIDEO_FORMAT_I420_12LE, 2056 | 0xf000, 2915, 1157, 2056},
    {GST_VIDEO_FORMAT_Y444_16LE, 32896, 46646, 18504, 32896},
    {GST_VIDEO_FORMAT_GRAY16_LE, 32896, 49216, 16448, 0},
  };
  GstVideoInfo info;
  GstBuffer *in, *out;
  guint f;

  in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 2, 2, 0, 0, 1000);
  out = run_overlay ("mvoverlay mode=cost opacity=0.5", &info, in);
  fail_unless_equals_int (comp_at (&info, out, 0, 40, 40), 182);
  fail_unless_equals_int (comp_at (&info, out, 0, 8, 8), 72);
  fail_unless_equals_int (comp_at (&info, out, 1, 40, 40), GREY);
  fail_unless_equals_int (comp_at (&info, out, 2, 8, 8), GREY);
  gst_buffer_unref (out);

  for (f = 0; f < G_N_ELEMENTS (cases); f++) {
    GST_INFO ("%s", gst_video_format_to_string (cases[f].format));
    in = make_word_buffer (cases[f].format, &info, cases[f].in);
    add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 2, 2, 0, 0, 1000);
    out = run_overlay ("mvoverlay mode=cost opacity=0.5", &info, in);
    fail_unless_equals_int (word_at (&info, out, 0, 40, 40), cases[f].white);
    fail_unless_equals_int (word_at (&info, out, 0, 47, 47), cases[f].white);
    fail_unless_equals_int (word_at (&info, out, 0, 8, 8), cases[f].black);
    fail_unless_equals_int (word_at (&info, out, 0, 63, 63), cases[f].black);
    if (!GST_VIDEO_INFO_IS_GRAY (&info)) {
      fail_unless_equals_int (word_at (&info, out, 1, 40, 40),
          cases[f].chroma);
      fail_unless_equals_int (word_at (&info, out, 2, 8, 8), cases[f].chroma);
    }
    gst_buffer_unref (out);
  }
}

GST_END_TEST;

/* P010 with a GstVideoMeta whose UV plane ends one byte short of the last
 * V word: the layout check measures V from GStreamer's poffset of 1 and
 * lets it through, so the drawing must see for itself that V's last word
 * (2 bytes in) does not fit, and leave the frame alone rather than write
 * past the buffer.  A byte more and it draws. */
GST_START_TEST (test_overlay_deep_uv_plane_short)
{
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, W * 2 * H };
  gint strides[GST_VIDEO_MAX_PLANES] = { W * 2, W * 2 };
  /* the UV plane's last row starts at (H / 2 - 1) strides and holds W / 2
   * pairs of 4 bytes */
  gsize full = offsets[1] + (H / 2 - 1) * W * 2 + W / 2 * 4;
  guint extra;

  for (extra = 0; extra < 2; extra++) {
    GstVideoInfo info;
    gsize size = full - 1 + extra;
    GstBuffer *in, *out;
    GstMapInfo map;
    guint8 *before;
    gsize i;

    fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_P010_10LE,
            W, H));
    in = gst_buffer_new_allocate (NULL, size, NULL);
    gst_buffer_memset (in, 0, GREY, size);
    gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_P010_10LE, W, H, 2, offsets, strides);
    add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
    if (!extra) {
      /* one byte short: the layout check refuses the buffer before
       * anything is drawn (gstvideolayout.c) */
      GstHarness *h = overlay_harness ("mvoverlay mode=flow opacity=1",
          &info);
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
      gst_harness_teardown (h);
      continue;
    }
    before = g_malloc (size);
    gst_buffer_extract (in, 0, before, size);
    out = run_overlay ("mvoverlay mode=flow opacity=1", &info, in);
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    fail_unless_equals_uint64 (map.size, size);
    for (i = 0; i < size && map.data[i] == before[i]; i++);
    fail_unless (i < size, "the whole plane fits: drawn");
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    g_free (before);
  }
}

GST_END_TEST;

/* The flow fill, grid and colour wheel on the deep formats at an odd size,
 * every sample written at its own depth: the only words the drawing can
 * leave are those of the depth's values at its shift, so none has a bit
 * outside them set, though the input had all set. */
GST_START_TEST (test_overlay_deep_everything_in_range)
{
  guint f;

  for (f = 0; f < G_N_ELEMENTS (deep_words); f++) {
    GstVideoFormat format = deep_words[f].format;
    const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);
    guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
    guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, 0);
    guint16 outside = (guint16) ~(((1u << depth) - 1) << shift);
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstVideoFrame frame;
    guint plane, x, y, words = 0;

    GST_INFO ("%s", gst_video_format_to_string (format));
    if (!outside)
      continue;                 /* 16 bits: no bit outside */
    fail_unless (gst_video_info_set_format (&info, format, 61, 45));
    in = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_memset (in, 0, 0xff, info.size);
    {
      GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
      guint n = gst_motion_vector_layout (61, 45,
          GST_MOTION_VECTOR_PARTITIONS_16X16, grids), i;
      GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, n);
      GBytes *data;

      for (i = 0; i < n; i++) {
        cells[i].mv_x = (gint) (i * 13 % 41) - 20;
        cells[i].mv_y = (gint) (i * 7 % 29) - 14;
      }
      data = g_bytes_new_take (cells, n * sizeof (GstMotionVectorCell));
      fail_unless (gst_buffer_add_motion_vector_meta (in, 61, 45,
              GST_MOTION_VECTOR_PARTITIONS_16X16, data) != NULL);
      g_bytes_unref (data);
    }
    out = run_overlay ("mvoverlay mode=flow opacity=1 grid=true legend=true",
        &info, in);
    fail_unless (gst_video_frame_map (&frame, &info, out, GST_MAP_READ));
    for (plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&frame); plane++) {
      const guint8 *row = GST_VIDEO_FRAME_PLANE_DATA (&frame, plane);
      gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, plane);
      gint comp[GST_VIDEO_MAX_COMPONENTS];
      guint row_words, rows;

      gst_video_format_info_component (finfo, plane, comp);
      row_words = GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0])
          * (comp[1] >= 0 ? 2 : 1);
      rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
      for (y = 0; y < rows; y++, row += stride)
        for (x = 0; x < row_words; x++) {
          guint w = GST_READ_UINT16_LE (row + 2 * x);
          fail_unless_equals_int (w & outside, 0);
          words++;
        }
    }
    /* the luma alone has 61 x 45 words, all of them 0xffff before */
    fail_unless (words > 61 * 45);
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (out);
  }
}

GST_END_TEST;

GST_START_TEST (test_overlay_arrow_clipped)
{
  /* A vector pointing far outside the frame is drawn up to the edge. */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_NV12, &info), *out;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 3, 0, -512, 0, 1);
  out = run_overlay ("mvoverlay scale=8", &info, in);
  fail_if (pixel_is_grey (&info, out, 63, 8));
  assert_region_grey (&info, out, 0, 16, W, H);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_direction_backward)
{
  /* direction=backward draws the stored vector: from the centre (24, 24)
   * 8 px to the left, to the match in the reference, coloured for a
   * leftward arrow (hue 180: cyan at saturation 0.75, (64, 255, 255)). */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info), *out;
  guint x;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay direction=backward", &info, in);
  for (x = 17; x <= 23; x++)
    fail_if (pixel_is_grey (&info, out, x, 24), "arrow pixel (%u, 24) grey",
        x);
  fail_unless_equals_int (comp_at (&info, out, 0, 21, 24), 64);
  fail_unless_equals_int (comp_at (&info, out, 1, 21, 24), 255);
  fail_unless_equals_int (comp_at (&info, out, 2, 21, 24), 255);
  /* nothing ahead of the centre (the outline reaches x = 25 only) */
  assert_region_grey (&info, out, 26, 0, W, H);
  assert_region_grey (&info, out, 0, 0, 14, H);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_max_magnitude)
{
  /* The 8 px motion is half of max-magnitude=16: brightness
   * 0.35 + 0.65 * 0.5 = 0.675, so red at saturation 0.75 is
   * (0.675, 0.16875, 0.16875) * 255 = (172, 43, 43).  A max-magnitude
   * below the vector's length clamps to full brightness, (255, 64, 64). */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info), *out;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay max-magnitude=16", &info, in);
  fail_unless_equals_int (comp_at (&info, out, 0, 27, 24), 172);
  fail_unless_equals_int (comp_at (&info, out, 1, 27, 24), 43);
  fail_unless_equals_int (comp_at (&info, out, 2, 27, 24), 43);
  gst_buffer_unref (out);

  in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info);
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay max-magnitude=4", &info, in);
  fail_unless_equals_int (comp_at (&info, out, 0, 27, 24), 255);
  fail_unless_equals_int (comp_at (&info, out, 1, 27, 24), 64);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_no_meta_passthrough)
{
  const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info;
    GstBuffer *in = make_grey_buffer (formats[f], &info), *out;
    GstMapInfo map;
    guint8 *expected;
    gsize i;

    /* a non-uniform picture, so any drawing would show */
    gst_buffer_map (in, &map, GST_MAP_WRITE);
    for (i = 0; i < map.size; i++)
      map.data[i] = (guint8) (i * 7 + (i >> 6));
    expected = g_memdup2 (map.data, map.size);
    gst_buffer_unmap (in, &map);

    out = run_overlay ("mvoverlay mode=flow grid=true legend=true", &info,
        in);
    gst_buffer_map (out, &map, GST_MAP_READ);
    fail_unless_equals_uint64 (map.size, info.size);
    fail_unless (memcmp (map.data, expected, map.size) == 0);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    g_free (expected);
  }
}

GST_END_TEST;

/* Gap buffers are filler (gpumotionest passes them on, of any size, with
 * no field): they pass through the overlay untouched, and the stream goes
 * on. */
GST_START_TEST (test_overlay_gap_buffers)
{
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info), *out;
  GstHarness *h = overlay_harness ("mvoverlay legend=true", &info);
  const gsize sizes[] = { 0, 100, info.size };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    GstBuffer *gap = gst_buffer_new_allocate (NULL, sizes[i], NULL);

    gst_buffer_memset (gap, 0, 0x5a, sizes[i]);
    GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
    GST_BUFFER_PTS (gap) = i;
    fail_unless_equals_int (gst_harness_push (h, gap), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i);
    fail_unless_equals_uint64 (gst_buffer_get_size (out), sizes[i]);
    /* untouched: not drawn on, not even a legend */
    for (gsize k = 0; k < sizes[i]; k += 97) {
      guint8 v = 0;
      gst_buffer_extract (out, k, &v, 1);
      fail_unless_equals_int (v, 0x5a);
    }
    gst_buffer_unref (out);
  }
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_int (comp_at (&info, out, 0, 27, 24), 120);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The properties are controllable: a control source bound to `scale`
 * sets it at each buffer's stream time. */
GST_START_TEST (test_overlay_controlled_scale)
{
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  GstHarness *h = overlay_harness ("mvoverlay", &info);
  GstElement *overlay = gst_harness_find_element (h, "mvoverlay");
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tv = (GstTimedValueControlSource *) cs;
  const gdouble expected[] = { 32.0, 16.0, 16.0 };

  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  /* a direct binding maps 0..1 onto the range 0..64 */
  gst_timed_value_control_source_set (tv, 0, 0.5);
  gst_timed_value_control_source_set (tv, GST_SECOND, 0.25);
  gst_object_add_control_binding (GST_OBJECT (overlay),
      gst_direct_control_binding_new (GST_OBJECT (overlay), "scale", cs));
  gst_buffer_unref (in);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++) {
    GstBuffer *b = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
    gdouble scale = -1;

    GST_BUFFER_PTS (b) = i * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
    g_object_get (overlay, "scale", &scale, NULL);
    fail_unless (scale == expected[i], "buffer %u: scale %f, not %f", i,
        scale, expected[i]);
  }
  gst_object_unref (cs);
  gst_object_unref (overlay);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- several references --------------------------------------------------- */

/* A grey frame carrying one field per entry of @refs, in that order: the
 * field against refs[i] moves the content of 16x16 cell (1, 1) 8 px right
 * when its entry of @down is FALSE (mv (-32, 0)), 8 px down when TRUE
 * (mv (0, -32)). */
static GstBuffer *
make_refs_buffer (GstVideoInfo * info, const gint * refs,
    const gboolean * down, guint n)
{
  GstBuffer *buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, info);
  guint i;

  for (i = 0; i < n; i++)
    add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, down[i] ? 0 : -32,
        down[i] ? -32 : 0, 500)->ref_distance = refs[i];
  return buf;
}

/* The arrow from (24, 24) 8 px right, and nothing else (check_arrow). */
static void
assert_arrow_right (GstVideoInfo * info, GstBuffer * out)
{
  guint x;

  for (x = 25; x <= 31; x++)
    fail_if (pixel_is_grey (info, out, x, 24), "arrow pixel (%u, 24) grey",
        x);
  assert_region_grey (info, out, 0, 0, 22, H);
  assert_region_grey (info, out, 0, 0, W, 20);
  assert_region_grey (info, out, 0, 29, W, H);
  assert_region_grey (info, out, 48, 0, W, H);
}

/* The same arrow turned a quarter: from (24, 24) 8 px down. */
static void
assert_arrow_down (GstVideoInfo * info, GstBuffer * out)
{
  guint y;

  for (y = 25; y <= 31; y++)
    fail_if (pixel_is_grey (info, out, 24, y), "arrow pixel (24, %u) grey",
        y);
  assert_region_grey (info, out, 0, 0, W, 22);
  assert_region_grey (info, out, 0, 0, 20, H);
  assert_region_grey (info, out, 29, 0, W, H);
  assert_region_grey (info, out, 0, 48, W, H);
}

GST_START_TEST (test_overlay_reference)
{
  static const gint refs[] = { -2, -1, 1 };
  static const gboolean down[] = { TRUE, FALSE, TRUE };
  static const struct
  {
    const gchar *launch;
    gboolean down;
  } cases[] = {
    /* by default the field against the previous frame, the second */
    {"mvoverlay", FALSE},
    {"mvoverlay reference=-1", FALSE},
    {"mvoverlay reference=-2", TRUE},
    {"mvoverlay reference=1", TRUE},
    /* no field against -3: the first field; 0 always the first */
    {"mvoverlay reference=-3", TRUE},
    {"mvoverlay reference=0", TRUE},
  };
  GstVideoInfo info;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstBuffer *out = run_overlay (cases[i].launch, &info,
        make_refs_buffer (&info, refs, down, G_N_ELEMENTS (refs)));

    if (cases[i].down)
      assert_arrow_down (&info, out);
    else
      assert_arrow_right (&info, out);
    gst_buffer_unref (out);
  }
}

GST_END_TEST;

GST_START_TEST (test_overlay_reference_fallback_first)
{
  /* Only a field against +1 (a stream searched forward): the default
   * reference (-1) falls back to it instead of drawing nothing. */
  static const gint refs[] = { 1 };
  static const gboolean down[] = { TRUE };
  GstVideoInfo info;
  GstBuffer *out = run_overlay ("mvoverlay", &info,
      make_refs_buffer (&info, refs, down, 1));

  assert_arrow_down (&info, out);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_reference_controlled)
{
  /* The property follows a control source, as the others do: frames at
   * 0 and 1 s draw the fields against -1 and -2. */
  static const gint refs[] = { -1, -2 };
  static const gboolean down[] = { FALSE, TRUE };
  GstVideoInfo info;
  GstHarness *h;
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tvcs = (GstTimedValueControlSource *) cs;
  GstBuffer *in, *out;
  guint i;

  GstElement *overlay;

  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, W,
          H));
  h = overlay_harness ("mvoverlay", &info);
  overlay = gst_harness_find_element (h, "mvoverlay");
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  /* a direct binding maps 0..1 to the property's whole range: the
   * absolute binding takes the values as they are */
  fail_unless (gst_object_add_control_binding (GST_OBJECT (overlay),
          gst_direct_control_binding_new_absolute (GST_OBJECT (overlay),
              "reference", cs)));
  gst_timed_value_control_source_set (tvcs, 0, -1.0);
  gst_timed_value_control_source_set (tvcs, GST_SECOND, -2.0);
  for (i = 0; i < 2; i++) {
    in = make_refs_buffer (&info, refs, down, 2);
    GST_BUFFER_PTS (in) = i * GST_SECOND;
    GST_BUFFER_DURATION (in) = GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    if (i)
      assert_arrow_down (&info, out);
    else
      assert_arrow_right (&info, out);
    gst_buffer_unref (out);
  }
  gst_object_unref (cs);
  gst_object_unref (overlay);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_overlay_flow)
{
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info), *out;
  guint8 moving_y, still_y;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay mode=flow opacity=0.5", &info, in);

  /* the moving block is tinted red (V up), uniformly over the block */
  moving_y = comp_at (&info, out, 0, 16, 16);
  fail_if (moving_y == GREY);
  fail_unless_equals_int (comp_at (&info, out, 0, 31, 31), moving_y);
  fail_unless (comp_at (&info, out, 2, 20, 20) > GREY + 40);
  /* still blocks are blended with white: brighter, neutral chroma */
  still_y = comp_at (&info, out, 0, 56, 56);
  fail_unless (still_y > GREY);
  fail_unless (moving_y < still_y);
  fail_unless_equals_int (comp_at (&info, out, 1, 56, 56), GREY);
  gst_buffer_unref (out);

  /* opacity 0: the fills vanish */
  in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  out = run_overlay ("mvoverlay mode=flow opacity=0", &info, in);
  assert_region_grey (&info, out, 0, 0, W, H);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_cost)
{
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info), *out;

  /* the only costly block turns white-hot, the rest black (blended) */
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 2, 2, 0, 0, 1000);
  out = run_overlay ("mvoverlay mode=cost opacity=1", &info, in);
  fail_unless_equals_int (comp_at (&info, out, 0, 40, 40), 255);
  fail_unless_equals_int (comp_at (&info, out, 2, 40, 40), 255);
  fail_unless_equals_int (comp_at (&info, out, 0, 8, 8), 0);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_partition_fallback)
{
  /* Only 8x8 is present; the default partition (16x16) falls back to it:
   * cell (3, 3) has its centre at (28, 28), the arrow runs to (36, 28). */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info), *out;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_8X8,
      GST_MOTION_VECTOR_PARTITION_8X8, 3, 3, -32, 0, 5);
  out = run_overlay ("mvoverlay", &info, in);
  fail_if (pixel_is_grey (&info, out, 33, 28));
  assert_region_grey (&info, out, 0, 0, 26, H);
  assert_region_grey (&info, out, 0, 34, W, H);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_mvd)
{
  /* mvd = mv - pred = (-32 - 4, 0 + 4) = (-36, 4): motion (+9, -1) px. */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info), *out;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 5);
  out = run_overlay ("mvoverlay mode=mvd", &info, in);
  fail_if (pixel_is_grey (&info, out, 32, 23));
  assert_region_grey (&info, out, 0, 0, 22, H);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_min_magnitude)
{
  /* A 1-pixel motion is drawn by default (min-magnitude 0.5) and skipped
   * with min-magnitude=2. */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info), *out;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -4, 0, 5);
  out = run_overlay ("mvoverlay", &info, in);
  fail_if (pixel_is_grey (&info, out, 25, 24));
  gst_buffer_unref (out);

  in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -4, 0, 5);
  out = run_overlay ("mvoverlay min-magnitude=2", &info, in);
  assert_region_grey (&info, out, 0, 0, W, H);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_grid)
{
  /* Zero vectors, grid on: the block borders (x or y a multiple of 16) are
   * black blended at half weight, Y = (128 * 128 + 16 * 128 + 128) >> 8 =
   * 72; pixels off the borders keep their value. */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info), *out;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 0, 0, 0, 0, 0);
  out = run_overlay ("mvoverlay grid=true", &info, in);
  fail_unless_equals_int (comp_at (&info, out, 0, 16, 40), 72);
  fail_unless_equals_int (comp_at (&info, out, 0, 40, 48), 72);
  fail_unless_equals_int (comp_at (&info, out, 0, 0, 5), 72);
  assert_region_grey (&info, out, 2, 2, 16, 16);
  assert_region_grey (&info, out, 49, 49, W, H);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_legend)
{
  /* The wheel sits in the top right corner, radius 6 on 64x64, centred at
   * (64 - 6 - 4, 6 + 4) = (54, 10); the rest of the frame is untouched. */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info), *out;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 0, 0, 0, 0, 0);
  out = run_overlay ("mvoverlay legend=true", &info, in);
  fail_if (pixel_is_grey (&info, out, 54, 10));
  /* the rim is black */
  fail_unless_equals_int (comp_at (&info, out, 0, 54, 4), 0);
  assert_region_grey (&info, out, 0, 0, 45, H);
  assert_region_grey (&info, out, 0, 19, W, H);
  gst_buffer_unref (out);
}

GST_END_TEST;

/* ---- mvoverlay: what it must refuse or leave alone ------------------------- */

/* Pushes @in (consumed) through @launch with a bus on the harness; returns
 * the flow, the output buffer in @out (NULL if none) and the first message
 * of @type in @msg (NULL if none). */
static GstFlowReturn
push_with_bus (const gchar * launch, const gchar * caps, GstBuffer * in,
    GstBuffer ** out, GstMessageType type, GstMessage ** msg)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  GstFlowReturn ret;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps);
  ret = gst_harness_push (h, in);
  *out = ret == GST_FLOW_OK ? gst_harness_try_pull (h) : NULL;
  gst_harness_teardown (h);
  *msg = gst_bus_pop_filtered (bus, type);
  /* what is left queued holds the element, which holds the bus */
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  return ret;
}

/* The text of an error or warning message; free with g_free(). */
static gchar *
message_text (GstMessage * msg, GQuark domain, gint code)
{
  GError *err = NULL;
  gchar *debug = NULL, *text;

  fail_unless (msg != NULL);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &err, &debug);
  else
    gst_message_parse_warning (msg, &err, &debug);
  fail_unless (g_error_matches (err, domain, code), "%s (%s)", err->message,
      debug);
  text = g_strdup (err->message);
  g_error_free (err);
  g_free (debug);
  return text;
}

#define RGBA_CAPS "video/x-raw,format=RGBA,width=64,height=64,framerate=30/1"
#define I420_CAPS "video/x-raw,format=I420,width=64,height=64,framerate=30/1"

/* An RGBA frame with a moving block and a GstVideoMeta of one plane at
 * @offset, @stride; must be refused with an error naming the plane. */
static void
check_layout_refused (gsize offset, gint stride, const gchar * expect)
{
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info), *out;
  gsize offsets[GST_VIDEO_MAX_PLANES] = { offset };
  gint strides[GST_VIDEO_MAX_PLANES] = { stride };
  GstMessage *msg;
  gchar *text;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGBA, W, H, 1, offsets, strides);
  fail_unless_equals_int (push_with_bus ("mvoverlay grid=true legend=true",
          RGBA_CAPS, in, &out, GST_MESSAGE_ERROR, &msg), GST_FLOW_ERROR);
  fail_unless (out == NULL);
  text = message_text (msg, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  fail_unless (strstr (text, expect) != NULL, "'%s' lacks '%s'", text,
      expect);
  fail_unless (strstr (text, "16384 bytes") != NULL, "%s", text);
  g_free (text);
  gst_message_unref (msg);
}

GST_START_TEST (test_overlay_video_meta_out_of_bounds)
{
  /* 64 rows of 256 bytes in a 16384-byte buffer. */
  check_layout_refused (0, 1 << 20, "Invalid video buffer: plane 0 (64 rows "
      "of 256 bytes, stride 1048576, offset 0)");
  check_layout_refused (G_GUINT64_CONSTANT (1) << 40, 256,
      "Plane 0 of the video buffer does not fit in it: stride 256, "
      "offset 1099511627776,");
  check_layout_refused (8192, 256, "stride 256, offset 8192)");
  check_layout_refused (16383, 0, "stride 0, offset 16383)");
  /* Negative strides run towards the start of the buffer. */
  check_layout_refused (0, -256, "stride -256, offset 0)");
  check_layout_refused (62 * 256, -256, "stride -256, offset 15872)");
  check_layout_refused (16384 - 255, -256, "stride -256, offset 16129)");
}

GST_END_TEST;

/* A frame whose plane runs from one memory into the next: each plane is
 * mapped from the memory it starts in, so the rows past it would be drawn
 * outside that allocation.  Refused, naming the memory's size. */
GST_START_TEST (test_overlay_video_meta_across_memories)
{
  GstVideoInfo info;
  GstBuffer *grey = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info), *in,
      *out;
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 256 };
  GstMessage *msg;
  gchar *text;

  /* 16384 bytes in two memories of 8192 */
  in = gst_buffer_new ();
  for (guint i = 0; i < 2; i++) {
    GstMemory *mem = gst_allocator_alloc (NULL, 8192, NULL);
    GstMapInfo map;

    fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
    gst_buffer_extract (grey, i * 8192, map.data, 8192);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (in, mem);
  }
  gst_buffer_unref (grey);
  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGBA, W, H, 1, offsets, strides);
  fail_unless_equals_int (push_with_bus ("mvoverlay grid=true", RGBA_CAPS, in,
          &out, GST_MESSAGE_ERROR, &msg), GST_FLOW_ERROR);
  fail_unless (out == NULL);
  text = message_text (msg, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  fail_unless_equals_string (text, "Invalid video buffer: plane 0 (64 rows "
      "of 256 bytes, stride 256, offset 0) does not fit in the 8192 bytes of "
      "memory it starts in");
  g_free (text);
  gst_message_unref (msg);
}

GST_END_TEST;

GST_START_TEST (test_overlay_video_meta_chroma_out_of_bounds)
{
  /* I420 64x64: Y 64 x 64, U and V 32 x 32.  V placed 100 bytes too far
   * runs past the end of the buffer. */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info), *out;
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, 4096, 5120 + 100 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 64, 32, 32 };
  GstMessage *msg;
  gchar *text;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_I420, W, H, 3, offsets, strides);
  fail_unless_equals_int (push_with_bus ("mvoverlay mode=flow", I420_CAPS,
          in, &out, GST_MESSAGE_ERROR, &msg), GST_FLOW_ERROR);
  text = message_text (msg, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  fail_unless (strstr (text, "plane 2 (32 rows of 32 bytes, stride 32, "
          "offset 5220) does not fit") != NULL, "%s", text);
  fail_unless (strstr (text, "6144 bytes of memory") != NULL, "%s", text);
  g_free (text);
  gst_message_unref (msg);
}

GST_END_TEST;

GST_START_TEST (test_overlay_video_meta_wrong_format)
{
  /* An I420 GstVideoMeta on an RGBA stream: GstVideoFrame would map one
   * plane and leave the other two unset. */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info), *out;
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, 4096, 5120 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 64, 32, 32 };
  GstMessage *msg;
  gchar *text;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_I420, W, H, 3, offsets, strides);
  fail_unless_equals_int (push_with_bus ("mvoverlay", RGBA_CAPS, in, &out,
          GST_MESSAGE_ERROR, &msg), GST_FLOW_ERROR);
  text = message_text (msg, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  fail_unless (strstr (text, "video meta (I420 64x64, 3 planes) does not "
          "match the caps (RGBA 64x64, 1 planes)") != NULL, "%s", text);
  g_free (text);
  gst_message_unref (msg);
}

GST_END_TEST;

GST_START_TEST (test_overlay_video_meta_too_large)
{
  /* A video meta 2^31 pixels wide: the mapped frame's width would be
   * negative, and with it the rows that the layout check measures; the
   * stride of 1 MiB would then be drawn through. */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info), *out;
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 1 << 20 };
  GstMessage *msg;
  gchar *text;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGBA, 0x80000000u, H, 1, offsets, strides);
  fail_unless_equals_int (push_with_bus ("mvoverlay grid=true", RGBA_CAPS, in,
          &out, GST_MESSAGE_ERROR, &msg), GST_FLOW_ERROR);
  fail_unless (out == NULL);
  text = message_text (msg, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  fail_unless_equals_string (text, "Invalid video buffer: the buffer's video "
      "meta (RGBA 2147483648x64, 1 planes) does not match the caps (RGBA "
      "64x64, 1 planes)");
  g_free (text);
  gst_message_unref (msg);
}

GST_END_TEST;

GST_START_TEST (test_overlay_video_meta_negative_stride)
{
  /* A bottom-up RGBA frame that fits its buffer is drawn: image row y is
   * memory row 63 - y.  The arrow pixel (27, 24) lands in memory row 39. */
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, &info), *out;
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 63 * 256 };
  gint strides[GST_VIDEO_MAX_PLANES] = { -256 };
  GstMessage *msg;
  GstMapInfo map;

  add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGBA, W, H, 1, offsets, strides);
  fail_unless_equals_int (push_with_bus ("mvoverlay", RGBA_CAPS, in, &out,
          GST_MESSAGE_ERROR, &msg), GST_FLOW_OK);
  fail_unless (msg == NULL);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[39 * 256 + 27 * 4 + 0], 255);
  fail_unless_equals_int (map.data[39 * 256 + 27 * 4 + 1], 64);
  fail_unless_equals_int (map.data[24 * 256 + 27 * 4 + 0], GREY);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
}

GST_END_TEST;

/* Pushes a frame whose meta was edited by @edit after attaching through
 * mvoverlay; the frame must come out unchanged, with a warning. */
static void
check_overlay_ignores (const gchar * launch,
    void (*edit) (GstMotionVectorMeta * meta), const gchar * what)
{
  GstVideoInfo info;
  GstBuffer *in = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info), *out;
  GstMotionVectorMeta *meta;
  GstMessage *msg;
  gchar *text;

  meta = add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  edit (meta);
  fail_unless (push_with_bus (launch, I420_CAPS, in, &out,
          GST_MESSAGE_WARNING, &msg) == GST_FLOW_OK, "%s", what);
  fail_unless (out != NULL);
  assert_region_grey (&info, out, 0, 0, W, H);
  text = message_text (msg, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  g_free (text);
  gst_message_unref (msg);
  gst_buffer_unref (out);
}

static void
edit_analysis_width (GstMotionVectorMeta * meta)
{
  meta->analysis_width = 32;    /* the grids are laid out for 64 */
}

static void
edit_analysis_height_zero (GstMotionVectorMeta * meta)
{
  meta->analysis_height = 0;
}

static void
edit_rows (GstMotionVectorMeta * meta)
{
  meta->grids[0].rows = 100000;
}

static void
edit_partitions (GstMotionVectorMeta * meta)
{
  meta->partitions |= GST_MOTION_VECTOR_PARTITIONS_4X4;
}

static void
edit_width_huge (GstMotionVectorMeta * meta)
{
  meta->width = G_MAXUINT;
  meta->analysis_width = G_MAXUINT;
}

/* The same cells, one byte off the alignment the readers point into. */
static void
edit_data_unaligned (GstMotionVectorMeta * meta)
{
  gsize size;
  const guint8 *cells = g_bytes_get_data (meta->data, &size);
  guint8 *block = g_malloc (size + 1);
  GBytes *whole;

  memcpy (block + 1, cells, size);
  whole = g_bytes_new_take (block, size + 1);
  g_bytes_unref (meta->data);
  meta->data = g_bytes_new_from_bytes (whole, 1, size);
  g_bytes_unref (whole);
}

GST_START_TEST (test_overlay_inconsistent_meta)
{
  check_overlay_ignores ("mvoverlay grid=true", edit_analysis_width,
      "analysis width");
  check_overlay_ignores ("mvoverlay mode=flow", edit_analysis_height_zero,
      "analysis height 0");
  check_overlay_ignores ("mvoverlay mode=cost", edit_rows, "rows");
  check_overlay_ignores ("mvoverlay partition=4x4", edit_partitions,
      "partitions");
  check_overlay_ignores ("mvoverlay grid=true", edit_width_huge, "width");
  check_overlay_ignores ("mvoverlay", edit_data_unaligned, "unaligned data");
}

GST_END_TEST;

GST_START_TEST (test_overlay_no_count_value)
{
  /* "count" (GST_MOTION_VECTOR_PARTITION_COUNT) is not a shape: neither the
   * partition nor the mode property takes it.  The partition property has
   * the seven shapes and "chosen", whose value is no shape's. */
  GstElement *e = gst_element_factory_make ("mvoverlay", NULL);
  GParamSpec *pspec;
  gint partition, mode;

  fail_unless (e != NULL);
  gst_util_set_object_arg (G_OBJECT (e), "partition", "count");
  gst_util_set_object_arg (G_OBJECT (e), "mode", "count");
  g_object_get (e, "partition", &partition, "mode", &mode, NULL);
  fail_unless_equals_int (partition, GST_MOTION_VECTOR_PARTITION_16X16);
  fail_unless_equals_int (mode, 0);     /* vectors */

  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "partition");
  fail_unless (g_enum_get_value (G_PARAM_SPEC_ENUM (pspec)->enum_class,
          GST_MOTION_VECTOR_PARTITION_COUNT) == NULL);
  fail_unless_equals_int (G_PARAM_SPEC_ENUM (pspec)->enum_class->n_values,
      GST_MOTION_VECTOR_PARTITION_COUNT + 1);
  fail_unless_equals_int (g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM
          (pspec)->enum_class, "chosen")->value, -1);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "mode");
  fail_unless (g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM
          (pspec)->enum_class, "count") == NULL);

  /* the shapes themselves still work */
  gst_util_set_object_arg (G_OBJECT (e), "partition", "4x4");
  g_object_get (e, "partition", &partition, NULL);
  fail_unless_equals_int (partition, GST_MOTION_VECTOR_PARTITION_4X4);
  gst_object_unref (e);
}

GST_END_TEST;

/* ---- the partition decision (partition=chosen) ------------------------- */

typedef struct
{
  GstMotionVectorPartition shape;
  guint col, row;
  gint16 mv_x, mv_y;
  guint32 cost;
} CellSpec;

/* 16x16 and 8x8, 4 x 4 macroblocks.  Macroblock (1, 1) chose 8x8, every
 * other one 16x16.  The chosen 8x8 cell (3, 3) (pixels 24..31, centre
 * (28, 28)) moved 8 px right; the 16x16 cell (1, 1) that macroblock did
 * not choose moved 8 px right and down, and so did the 8x8 cell (6, 6) of
 * macroblock (3, 3), which chose 16x16. */
static const CellSpec chosen_cells[] = {
  {GST_MOTION_VECTOR_PARTITION_8X8, 3, 3, -32, 0, 1000},
  {GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, -32, 5000},
  {GST_MOTION_VECTOR_PARTITION_8X8, 6, 6, -32, -32, 7000},
};

static const guint8 chosen_modes[16] = {
  0, 0, 0, 0,
  0, 3, 0, 0,
  0, 0, 0, 0,
  0, 0, 0, 0,
};

/* A meta with the cells of @specs (every other cell zero) and, when
 * @modes is not NULL, that partition decision. */
static GstMotionVectorMeta *
add_meta_cells (GstBuffer * buf, GstMotionVectorPartitionFlags parts,
    const CellSpec * specs, guint n_specs, const guint8 * modes)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint n = gst_motion_vector_layout (W, H, parts, grids), i;
  GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, n);
  GstMotionVectorMeta *meta;
  GBytes *data;

  for (i = 0; i < n_specs; i++) {
    const GstMotionVectorGrid *g = &grids[specs[i].shape];
    GstMotionVectorCell *cell =
        &cells[g->offset + specs[i].row * g->cols + specs[i].col];

    cell->mv_x = specs[i].mv_x;
    cell->mv_y = specs[i].mv_y;
    cell->cost = specs[i].cost;
    cell->mvd_x = specs[i].mv_x;
    cell->mvd_y = specs[i].mv_y;
  }
  data = g_bytes_new_take (cells, (gsize) n * sizeof (GstMotionVectorCell));
  meta = gst_buffer_add_motion_vector_meta (buf, W, H, parts, data);
  g_bytes_unref (data);
  fail_unless (meta != NULL);
  meta->search_range = 16;
  if (modes) {
    GBytes *m = g_bytes_new (modes, (W / 16) * (H / 16));
    fail_unless (gst_motion_vector_meta_set_modes (meta, m));
    g_bytes_unref (m);
  }
  return meta;
}

static GstBuffer *
run_chosen (GstVideoFormat format, GstVideoInfo * info, gboolean with_modes,
    const gchar * launch)
{
  GstBuffer *in = make_grey_buffer (format, info);

  add_meta_cells (in, GST_MOTION_VECTOR_PARTITIONS_16X16 |
      GST_MOTION_VECTOR_PARTITIONS_8X8, chosen_cells,
      G_N_ELEMENTS (chosen_cells), with_modes ? chosen_modes : NULL);
  return run_overlay (launch, info, in);
}

/* The outline: black blended at half weight over grey, as the grid,
 * Y = (128 * 128 + 16 * 128 + 128) >> 8 = 72. */
#define OUTLINE_Y 72

GST_START_TEST (test_overlay_chosen)
{
  GstVideoInfo info;
  GstBuffer *out;
  guint i;

  out = run_chosen (GST_VIDEO_FORMAT_I420, &info, TRUE,
      "mvoverlay partition=chosen");
  /* The chosen 8x8 arrow, (28, 28) to (36, 28), is drawn. */
  fail_if (pixel_is_grey (&info, out, 33, 28));
  /* The 16x16 arrow of macroblock (1, 1), (24, 24) to (32, 32), is not,
   * nor is the 8x8 arrow of macroblock (3, 3), (52, 52) to (60, 60). */
  fail_unless (pixel_is_grey (&info, out, 26, 26));
  assert_region_grey (&info, out, 49, 49, W, H);

  /* Outlines, one pixel wide, each pixel blended once (corners too): the
   * edges of the four 8x8 blocks of macroblock (1, 1) ... */
  for (i = 16; i < 32; i++) {
    if (i == 27 || i == 28 || i == 29)
      continue;                 /* under the arrow's outline */
    fail_unless_equals_int (comp_at (&info, out, 0, i, 16), OUTLINE_Y);
    fail_unless_equals_int (comp_at (&info, out, 0, 16, i), OUTLINE_Y);
    fail_unless_equals_int (comp_at (&info, out, 0, 24, i), OUTLINE_Y);
  }
  for (i = 16; i < 24; i++)
    fail_unless_equals_int (comp_at (&info, out, 0, i, 24), OUTLINE_Y);
  /* ... and of the 16x16 macroblocks, but not their 8x8 edges. */
  fail_unless_equals_int (comp_at (&info, out, 0, 32, 16), OUTLINE_Y);
  fail_unless_equals_int (comp_at (&info, out, 0, 32, 40), OUTLINE_Y);
  fail_unless_equals_int (comp_at (&info, out, 0, 40, 32), OUTLINE_Y);
  fail_unless_equals_int (comp_at (&info, out, 0, 0, 0), OUTLINE_Y);
  fail_unless_equals_int (comp_at (&info, out, 0, 0, 5), OUTLINE_Y);
  assert_region_grey (&info, out, 33, 33, 48, 48);
  assert_region_grey (&info, out, 1, 1, 16, 16);
  assert_region_grey (&info, out, 17, 1, 32, 16);
  gst_buffer_unref (out);

  /* partition=16x16 draws that grid as before: the 16x16 arrow shows,
   * no outline. */
  out = run_chosen (GST_VIDEO_FORMAT_I420, &info, TRUE,
      "mvoverlay partition=16x16");
  fail_if (pixel_is_grey (&info, out, 26, 26));
  fail_unless (pixel_is_grey (&info, out, 24, 20));
  fail_unless (pixel_is_grey (&info, out, 0, 0));
  gst_buffer_unref (out);

  /* Without a decision, chosen falls back to the first present shape
   * (16x16), like an absent shape. */
  out = run_chosen (GST_VIDEO_FORMAT_I420, &info, FALSE,
      "mvoverlay partition=chosen");
  fail_if (pixel_is_grey (&info, out, 26, 26));
  fail_unless (pixel_is_grey (&info, out, 24, 20));
  fail_unless (pixel_is_grey (&info, out, 0, 0));
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_chosen_cost)
{
  /* mode=cost normalises over the blocks drawn: the chosen 8x8 cell (3, 3)
   * has the largest cost among them (1000; the 5000 and 7000 of the cells
   * not chosen do not count), so it is white: (255, 255, 255) inside,
   * where no outline passes.  Every other chosen block costs 0: black. */
  GstVideoInfo info;
  GstBuffer *out = run_chosen (GST_VIDEO_FORMAT_RGBA, &info, TRUE,
      "mvoverlay partition=chosen mode=cost opacity=1");

  fail_unless_equals_int (comp_at (&info, out, 0, 29, 29), 255);
  fail_unless_equals_int (comp_at (&info, out, 1, 29, 29), 255);
  fail_unless_equals_int (comp_at (&info, out, 2, 29, 29), 255);
  /* the block's outline over it: black at half weight,
   * (255 * 128 + 0 * 128 + 128) >> 8 = 128 */
  fail_unless_equals_int (comp_at (&info, out, 0, 29, 24), 128);
  /* the other 8x8 blocks of the macroblock and the 16x16 ones: black */
  fail_unless_equals_int (comp_at (&info, out, 0, 20, 20), 0);
  fail_unless_equals_int (comp_at (&info, out, 0, 56, 56), 0);
  fail_unless_equals_int (comp_at (&info, out, 0, 28, 20), 0);
  gst_buffer_unref (out);
}

GST_END_TEST;

/* ---- mvexport ---------------------------------------------------------- */

/* Pushes @bufs (each with a meta; taken) through mvexport in @format and
 * returns what it wrote. */
static gchar *
export_buffers (const gchar * format, GstBuffer ** bufs, guint n)
{
  gchar *dir = g_dir_make_tmp ("mvexport-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "out.txt", NULL);
  gchar *launch = g_strdup_printf ("mvexport location=\"%s\" format=%s",
      path, format);
  GstHarness *h = gst_harness_new_parse (launch);
  gchar *text = NULL;

  fail_unless (dir != NULL);
  gst_harness_set_src_caps_str (h, I420_CAPS);
  for (guint i = 0; i < n; i++) {
    GstBuffer *buf;

    fail_unless_equals_int (gst_harness_push (h, bufs[i]), GST_FLOW_OK);
    /* passthrough: the very same buffer comes out */
    buf = gst_harness_pull (h);
    fail_unless (gst_buffer_get_motion_vector_meta (buf) != NULL);
    gst_buffer_unref (buf);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (path);
  g_free (dir);
  return text;
}

static gchar *
export_two_frames (const gchar * format)
{
  GstVideoInfo info;
  GstBuffer *bufs[2];

  for (guint i = 0; i < 2; i++) {
    GstMotionVectorMeta *meta;

    bufs[i] = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
    GST_BUFFER_PTS (bufs[i]) = i * 33333333;
    meta = add_meta (bufs[i], GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, i ? -32 : 0, 0, 77);
    if (i == 0)
      meta->flags = GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE;
    else
      meta->ref_pts = 0;
  }
  return export_buffers (format, bufs, 2);
}

GST_START_TEST (test_export_jsonl)
{
  gchar *text = export_two_frames ("jsonl");
  gchar **lines = g_strsplit (text, "\n", -1);

  /* two objects, each ending in a newline */
  fail_unless_equals_int (g_strv_length (lines), 3);
  fail_unless_equals_string (lines[2], "");
  fail_unless (g_str_has_prefix (lines[0], "{\"pts\":0,\"frame\":0,"
          "\"width\":64,\"height\":64,\"analysis_width\":64,"
          "\"analysis_height\":64,\"has_reference\":false,"
          "\"ref_distance\":-1,\"ref_pts\":null,\"search_range\":16,"
          "\"method\":\"full\",\"layers\":[{\"shape\":\"16x16\",\"cols\":4,"
          "\"rows\":4,\"mv\":[0,0,"), "%s", lines[0]);
  fail_unless (g_str_has_prefix (lines[1], "{\"pts\":33333333,\"frame\":1,"),
      "%s", lines[1]);
  fail_unless (strstr (lines[1], "\"has_reference\":true,\"ref_distance\":-1,"
          "\"ref_pts\":0,") != NULL);
  /* cell (1, 1) is cell 5: the 11th and 12th numbers of "mv" */
  fail_unless (strstr (lines[1], "\"mv\":[0,0,0,0,0,0,0,0,0,0,-32,0,0,0,"
          "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],") != NULL, "%s", lines[1]);
  fail_unless (strstr (lines[1], "\"cost\":[0,0,0,0,0,77,0,") != NULL);
  fail_unless (strstr (lines[1], "\"pred\":[0,0,0,0,0,0,0,0,0,0,4,-4,0,0")
      != NULL);
  fail_unless (strstr (lines[1], "\"mvd\":[0,0,0,0,0,0,0,0,0,0,-36,4,0,0")
      != NULL);
  fail_unless (g_str_has_suffix (lines[1], "]}]}"));
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

/* Exports one frame of PTS @pts whose meta's ref_pts is @ref_pts. */
static gchar *
export_times (const gchar * format, GstClockTime pts, GstClockTime ref_pts)
{
  GstVideoInfo info;
  GstBuffer *buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);

  GST_BUFFER_PTS (buf) = pts;
  add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 77)->ref_pts = ref_pts;
  return export_buffers (format, &buf, 1);
}

GST_START_TEST (test_export_large_times)
{
  /* every value but GST_CLOCK_TIME_NONE is a time: 2^63 and above are
   * written as the unsigned nanoseconds they are, not as negatives */
  const GstClockTime pts = G_GUINT64_CONSTANT (9223372036854775815);
  const GstClockTime ref_pts = G_MAXUINT64 - 2;
  gchar *text = export_times ("jsonl", pts, ref_pts);

  fail_unless (g_str_has_prefix (text, "{\"pts\":9223372036854775815,"),
      "%s", text);
  fail_unless (strstr (text, "\"ref_pts\":18446744073709551613,") != NULL,
      "%s", text);
  g_free (text);

  text = export_times ("csv", pts, ref_pts);
  fail_unless (strstr (text, "\n0,9223372036854775815,16x16,") != NULL,
      "%s", text);
  fail_unless (strstr (text, ",-9") == NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_export_csv)
{
  gchar *text = export_two_frames ("csv");
  gchar **lines = g_strsplit (text, "\n", -1);
  guint i, found = 0;

  fail_unless_equals_string (lines[0], "frame,pts,shape,col,row,x,y,w,h,"
      "mv_x,mv_y,cost,pred_x,pred_y,mvd_x,mvd_y,chosen,ref_distance,view");
  /* header + 16 blocks per frame + the empty string after the last \n */
  fail_unless_equals_int (g_strv_length (lines), 1 + 2 * 16 + 1);
  for (i = 1; i <= 32; i++) {
    guint frame, col, row, x, y, w, h, cost;
    guint64 pts;
    gint mv_x, mv_y, pred_x, pred_y, mvd_x, mvd_y;
    gchar shape[16];

    fail_unless_equals_int (sscanf (lines[i], "%u,%" G_GUINT64_FORMAT
            ",%15[^,],%u,%u,%u,%u,%u,%u,%d,%d,%u,%d,%d,%d,%d", &frame, &pts,
            shape, &col, &row, &x, &y, &w, &h, &mv_x, &mv_y, &cost, &pred_x,
            &pred_y, &mvd_x, &mvd_y), 16);
    /* no partition decision: the chosen column is empty; the field is
     * the one against the previous frame */
    fail_unless (g_str_has_suffix (lines[i], ",,-1,0"), "%s", lines[i]);
    fail_unless_equals_int (frame, (i - 1) / 16);
    fail_unless_equals_uint64 (pts, frame * 33333333);
    fail_unless_equals_string (shape, "16x16");
    fail_unless_equals_int (col, (i - 1) % 4);
    fail_unless_equals_int (row, ((i - 1) % 16) / 4);
    fail_unless_equals_int (x, col * 16);
    fail_unless_equals_int (y, row * 16);
    fail_unless_equals_int (w, 16);
    fail_unless_equals_int (h, 16);
    if (col == 1 && row == 1) {
      fail_unless_equals_int (mv_x, frame ? -32 : 0);
      fail_unless_equals_int (mv_y, 0);
      fail_unless_equals_int (cost, 77);
      fail_unless_equals_int (pred_x, 4);
      fail_unless_equals_int (pred_y, -4);
      fail_unless_equals_int (mvd_x, mv_x - 4);
      fail_unless_equals_int (mvd_y, 4);
      found++;
    } else {
      fail_unless (mv_x == 0 && mv_y == 0 && cost == 0);
    }
  }
  fail_unless_equals_int (found, 2);
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

/* mvstabilize's correction meta, made here as mvstabilize makes it (a
 * custom meta of that name; registered here unless it already is). */
static void
add_stab_meta (GstBuffer * buf)
{
  static const gchar *tags[] = { NULL };
  GstCustomMeta *meta;

  if (!gst_meta_get_info ("GstMvStabilizeMeta"))
    gst_meta_register_custom ("GstMvStabilizeMeta", tags, NULL, NULL, NULL);
  meta = gst_buffer_add_custom_meta (buf, "GstMvStabilizeMeta");
  fail_unless (meta != NULL);
  gst_structure_set (gst_custom_meta_get_structure (meta),
      "frame", G_TYPE_UINT64, G_GUINT64_CONSTANT (7),
      "corrected", G_TYPE_BOOLEAN, TRUE,
      "dx", G_TYPE_DOUBLE, 1.5, "raw-x", G_TYPE_DOUBLE, -0.25, NULL);
}

/* Two frames, the first with a correction, the second without. */
static gchar *
export_stab (const gchar * format)
{
  GstVideoInfo info;
  GstBuffer *bufs[2];

  for (guint i = 0; i < 2; i++) {
    bufs[i] = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
    GST_BUFFER_PTS (bufs[i]) = i * 33333333;
    add_meta (bufs[i], GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 77)->ref_pts = 0;
  }
  add_stab_meta (bufs[0]);
  return export_buffers (format, bufs, 2);
}

GST_START_TEST (test_export_stabilization_jsonl)
{
  gchar *text = export_stab ("jsonl");
  gchar **lines = g_strsplit (text, "\n", -1);

  fail_unless_equals_int (g_strv_length (lines), 3);
  /* the structure's fields, in its order, numbers as numbers, last */
  fail_unless (g_str_has_suffix (lines[0], "]}],\"stabilization\":"
          "{\"frame\":7,\"corrected\":true,\"dx\":1.5,\"raw-x\":-0.25}}"),
      "%s", lines[0]);
  fail_unless (strstr (lines[1], "stabilization") == NULL, "%s", lines[1]);
  fail_unless (g_str_has_suffix (lines[1], "]}]}"), "%s", lines[1]);
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_export_stabilization_csv)
{
  gchar *text = export_stab ("csv stabilization=true");
  gchar **lines = g_strsplit (text, "\n", -1);
  guint i;

  fail_unless_equals_string (lines[0], "frame,pts,shape,col,row,x,y,w,h,"
      "mv_x,mv_y,cost,pred_x,pred_y,mvd_x,mvd_y,chosen,ref_distance,view,"
      "stab_frame,stab_corrected,stab_segment_start,stab_dx,stab_dy,"
      "stab_angle,stab_scale,stab_crop,stab_xx,stab_xy,stab_yx,stab_yy,"
      "stab_x0,stab_y0,stab_raw_x,stab_raw_y,stab_raw_angle,"
      "stab_raw_log_scale,stab_smooth_x,stab_smooth_y,stab_smooth_angle,"
      "stab_smooth_log_scale");
  fail_unless_equals_int (g_strv_length (lines), 1 + 2 * 16 + 1);
  for (i = 1; i <= 32; i++) {
    /* every row of the first frame: its correction, missing fields
     * empty; of the second: 22 empty cells */
    if (i <= 16)
      fail_unless (g_str_has_suffix (lines[i], ",-1,0,7,1,,1.5,,,,,,,,,,,"
              "-0.25,,,,,,,"), "%s", lines[i]);
    else
      fail_unless (g_str_has_suffix (lines[i], ",-1,0,,,,,,,,,,,,,,,,,,,,,,"),
          "%s", lines[i]);
    /* the same 19 + 22 columns on every row */
    {
      gchar **cells = g_strsplit (lines[i], ",", -1);

      fail_unless_equals_int (g_strv_length (cells), 19 + 22);
      g_strfreev (cells);
    }
  }
  g_strfreev (lines);
  g_free (text);

  /* without the property the columns stay as they were */
  text = export_stab ("csv");
  lines = g_strsplit (text, "\n", -1);
  fail_unless (g_str_has_suffix (lines[0], ",ref_distance,view"), "%s",
      lines[0]);
  fail_unless (g_str_has_suffix (lines[1], ",,-1,0"), "%s", lines[1]);
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_export_unwritable)
{
  const gchar *path = "/nonexistent-mvexport-dir/out.jsonl";
  GstElement *e = gst_element_factory_make ("mvexport", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  fail_unless (e != NULL);
  g_object_set (e, "location", path, NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_WRITE));
  fail_unless (strstr (err->message, path) != NULL, "%s", err->message);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* One buffer with two shapes and no PTS. */
/* Writes one frame whose meta holds 16x16 and 8x8 grids through
 * "mvexport format=@format @extra"; returns the file's text. */
static gchar *
export_two_shapes (const gchar * format, const gchar * extra)
{
  GstVideoInfo info;
  gchar *dir = g_dir_make_tmp ("mvexport-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "out.txt", NULL);
  gchar *launch = g_strdup_printf ("mvexport location=\"%s\" format=%s %s",
      path, format, extra);
  GstHarness *h = gst_harness_new_parse (launch);
  GstBuffer *buf;
  gchar *text = NULL;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=64,"
      "height=64,framerate=30/1");
  buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16 |
      GST_MOTION_VECTOR_PARTITIONS_8X8, GST_MOTION_VECTOR_PARTITION_8X8,
      7, 7, 8, -12, 9);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (path);
  g_free (dir);
  return text;
}

GST_START_TEST (test_export_two_shapes)
{
  gchar *text = export_two_shapes ("jsonl", "");
  gchar **lines;

  fail_unless (g_str_has_prefix (text, "{\"pts\":null,\"frame\":0,"));
  fail_unless (strstr (text, "\"layers\":[{\"shape\":\"16x16\",\"cols\":4,"
          "\"rows\":4,\"mv\":[") != NULL);
  /* the 8x8 layer follows; its last cell (7, 7) holds (8, -12) */
  fail_unless (strstr (text, "]},{\"shape\":\"8x8\",\"cols\":8,"
          "\"rows\":8,\"mv\":[0,0,") != NULL);
  fail_unless (strstr (text, ",8,-12],\"cost\":[") != NULL);
  fail_unless (g_str_has_suffix (text, ",4,-8]}]}\n"), "%s", text);
  g_free (text);

  text = export_two_shapes ("csv", "");
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_int (g_strv_length (lines), 1 + 16 + 64 + 1);
  fail_unless_equals_string (lines[1],
      "0,,16x16,0,0,0,0,16,16,0,0,0,0,0,0,0,,-1,0");
  fail_unless_equals_string (lines[17],
      "0,,8x8,0,0,0,0,8,8,0,0,0,0,0,0,0,,-1,0");
  fail_unless_equals_string (lines[80],
      "0,,8x8,7,7,56,56,8,8,8,-12,9,4,-4,4,-8,,-1,0");
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_export_partitions)
{
  /* partitions selects among the present shapes: 8x8 alone, and of
   * 16x16+4x4 only 16x16 (4x4 is absent from the meta). */
  gchar *text, **lines;

  text = export_two_shapes ("jsonl", "partitions=8x8");
  fail_unless (strstr (text, "\"shape\":\"16x16\"") == NULL, "%s", text);
  fail_unless (strstr (text, "\"layers\":[{\"shape\":\"8x8\",\"cols\":8,"
          "\"rows\":8,") != NULL, "%s", text);
  g_free (text);

  text = export_two_shapes ("csv", "partitions=8x8");
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_int (g_strv_length (lines), 1 + 64 + 1);
  fail_unless_equals_string (lines[1],
      "0,,8x8,0,0,0,0,8,8,0,0,0,0,0,0,0,,-1,0");
  fail_unless_equals_string (lines[64],
      "0,,8x8,7,7,56,56,8,8,8,-12,9,4,-4,4,-8,,-1,0");
  g_strfreev (lines);
  g_free (text);

  text = export_two_shapes ("csv", "partitions=16x16+4x4");
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_int (g_strv_length (lines), 1 + 16 + 1);
  fail_unless (g_str_has_prefix (lines[16], "0,,16x16,3,3,48,48,16,16,"));
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

/* Writes one frame carrying the chosen_cells meta (16x16 and 8x8) with the
 * chosen_modes decision through "mvexport format=@format @extra". */
static gchar *
export_with_modes (const gchar * format, const gchar * extra)
{
  GstVideoInfo info;
  gchar *dir = g_dir_make_tmp ("mvexport-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "out.txt", NULL);
  gchar *launch = g_strdup_printf ("mvexport location=\"%s\" format=%s %s",
      path, format, extra);
  GstHarness *h = gst_harness_new_parse (launch);
  GstBuffer *buf;
  gchar *text = NULL;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=64,"
      "height=64,framerate=30/1");
  buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta_cells (buf, GST_MOTION_VECTOR_PARTITIONS_16X16 |
      GST_MOTION_VECTOR_PARTITIONS_8X8, chosen_cells,
      G_N_ELEMENTS (chosen_cells), chosen_modes);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (path);
  g_free (dir);
  return text;
}

/* The JSON array of chosen_modes. */
#define MODES_JSON "\"modes\":[\"16x16\",\"16x16\",\"16x16\",\"16x16\"," \
  "\"16x16\",\"8x8\",\"16x16\",\"16x16\",\"16x16\",\"16x16\",\"16x16\"," \
  "\"16x16\",\"16x16\",\"16x16\",\"16x16\",\"16x16\"]"

GST_START_TEST (test_export_modes_jsonl)
{
  gchar *text = export_with_modes ("jsonl", "");

  /* after the layers, one shape name per macroblock, row-major */
  fail_unless (g_str_has_suffix (text, "]}]," MODES_JSON "}\n"), "%s", text);
  g_free (text);

  /* the decision is the macroblocks', written whichever layers are */
  text = export_with_modes ("jsonl", "partitions=8x8");
  fail_unless (strstr (text, "\"shape\":\"16x16\"") == NULL);
  fail_unless (g_str_has_suffix (text, "]}]," MODES_JSON "}\n"), "%s", text);
  g_free (text);

  /* no decision, no key (test_export_two_shapes checks the whole end) */
  text = export_two_shapes ("jsonl", "");
  fail_unless (strstr (text, "\"modes\"") == NULL);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_export_modes_csv)
{
  gchar *text = export_with_modes ("csv", "");
  gchar **lines = g_strsplit (text, "\n", -1);
  guint i, chosen16 = 0, chosen8 = 0;

  fail_unless (g_str_has_suffix (lines[0],
          ",mvd_x,mvd_y,chosen,ref_distance,view"));
  fail_unless_equals_int (g_strv_length (lines), 1 + 16 + 64 + 1);
  /* 16x16 block (1, 1) lies in the macroblock that chose 8x8 */
  fail_unless_equals_string (lines[1 + 5],
      "0,,16x16,1,1,16,16,16,16,-32,-32,5000,0,0,-32,-32,0,-1,0");
  fail_unless_equals_string (lines[1 + 0],
      "0,,16x16,0,0,0,0,16,16,0,0,0,0,0,0,0,1,-1,0");
  /* 8x8 block (3, 3) is chosen, (6, 6) is not */
  fail_unless_equals_string (lines[17 + 3 * 8 + 3],
      "0,,8x8,3,3,24,24,8,8,-32,0,1000,0,0,-32,0,1,-1,0");
  fail_unless_equals_string (lines[17 + 6 * 8 + 6],
      "0,,8x8,6,6,48,48,8,8,-32,-32,7000,0,0,-32,-32,0,-1,0");
  for (i = 1; i <= 16; i++)
    chosen16 += g_str_has_suffix (lines[i], ",1,-1,0");
  for (i = 17; i <= 80; i++) {
    guint c = (i - 17) % 8, r = (i - 17) / 8;
    gboolean in_mb = c / 2 == 1 && r / 2 == 1;

    fail_unless (g_str_has_suffix (lines[i], in_mb ? ",1,-1,0" : ",0,-1,0"),
        "%s", lines[i]);
    chosen8 += in_mb;
  }
  fail_unless_equals_int (chosen16, 15);
  fail_unless_equals_int (chosen8, 4);
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

/* ---- several references --------------------------------------------------- */

/* Attaches the field of @buf against @ref_distance: cell (1, 1) of its
 * 16x16 grid holds (@mv_x, 0) and @cost; @ref_pts GST_CLOCK_TIME_NONE
 * flags it as having no reference. */
static GstMotionVectorMeta *
add_ref_field (GstBuffer * buf, gint ref_distance, GstClockTime ref_pts,
    gint16 mv_x, guint32 cost)
{
  GstMotionVectorMeta *meta = add_meta (buf,
      GST_MOTION_VECTOR_PARTITIONS_16X16, GST_MOTION_VECTOR_PARTITION_16X16,
      1, 1, mv_x, 0, cost);

  meta->ref_distance = ref_distance;
  meta->ref_pts = ref_pts;
  if (!GST_CLOCK_TIME_IS_VALID (ref_pts))
    meta->flags = GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE;
  return meta;
}

/* Two frames, 33333333 and 66666666 ns, each searched against -1, -2 and
 * +1, as gpumotionest references=-1,-2,+1 would attach them to the second
 * and third frames of a stream of three: frame 0 has no frame two before
 * it, frame 1 none after it.  @edit, when not NULL, is applied to frame
 * 1's field against -2. */
static gchar *
export_three_refs (const gchar * format,
    void (*edit) (GstMotionVectorMeta * meta))
{
  GstVideoInfo info;
  GstBuffer *bufs[2];
  GstMotionVectorMeta *back2;

  bufs[0] = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  GST_BUFFER_PTS (bufs[0]) = 33333333;
  add_ref_field (bufs[0], -1, 0, -16, 55);
  add_ref_field (bufs[0], -2, GST_CLOCK_TIME_NONE, 0, 0);
  add_ref_field (bufs[0], 1, 66666666, 16, 66);

  bufs[1] = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  GST_BUFFER_PTS (bufs[1]) = 66666666;
  add_ref_field (bufs[1], -1, 33333333, -32, 77);
  back2 = add_ref_field (bufs[1], -2, 0, -64, 88);
  add_ref_field (bufs[1], 1, GST_CLOCK_TIME_NONE, 0, 0);
  if (edit)
    edit (back2);
  return export_buffers (format, bufs, 2);
}

/* Frame 1's three lines, each the line a buffer carrying that field alone
 * gives. */
static const gchar *const three_refs_jsonl[] = {
  "{\"pts\":66666666,\"frame\":1,\"width\":64,\"height\":64,"
      "\"analysis_width\":64,\"analysis_height\":64,\"has_reference\":true,"
      "\"ref_distance\":-1,\"ref_pts\":33333333,\"search_range\":16,"
      "\"method\":\"full\",\"layers\":[{\"shape\":\"16x16\",\"cols\":4,"
      "\"rows\":4,\"mv\":[0,0,0,0,0,0,0,0,0,0,-32,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0,0],\"cost\":[0,0,0,0,0,77,0,0,0,0,0,0,0,0,0,0],"
      "\"pred\":[0,0,0,0,0,0,0,0,0,0,4,-4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0],\"mvd\":[0,0,0,0,0,0,0,0,0,0,-36,4,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0]}]}",
  "{\"pts\":66666666,\"frame\":1,\"width\":64,\"height\":64,"
      "\"analysis_width\":64,\"analysis_height\":64,\"has_reference\":true,"
      "\"ref_distance\":-2,\"ref_pts\":0,\"search_range\":16,"
      "\"method\":\"full\",\"layers\":[{\"shape\":\"16x16\",\"cols\":4,"
      "\"rows\":4,\"mv\":[0,0,0,0,0,0,0,0,0,0,-64,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0,0],\"cost\":[0,0,0,0,0,88,0,0,0,0,0,0,0,0,0,0],"
      "\"pred\":[0,0,0,0,0,0,0,0,0,0,4,-4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0],\"mvd\":[0,0,0,0,0,0,0,0,0,0,-68,4,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0]}]}",
  "{\"pts\":66666666,\"frame\":1,\"width\":64,\"height\":64,"
      "\"analysis_width\":64,\"analysis_height\":64,\"has_reference\":false,"
      "\"ref_distance\":1,\"ref_pts\":null,\"search_range\":16,"
      "\"method\":\"full\",\"layers\":[{\"shape\":\"16x16\",\"cols\":4,"
      "\"rows\":4,\"mv\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0,0],\"cost\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
      "\"pred\":[0,0,0,0,0,0,0,0,0,0,4,-4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0],\"mvd\":[0,0,0,0,0,0,0,0,0,0,-4,4,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0]}]}",
};

GST_START_TEST (test_export_several_refs_jsonl)
{
  gchar *text = export_three_refs ("jsonl", NULL);
  gchar **lines = g_strsplit (text, "\n", -1);
  guint i;

  /* one line per field, the fields of a frame in the buffer's order */
  fail_unless_equals_int (g_strv_length (lines), 6 + 1);
  fail_unless_equals_string (lines[6], "");
  fail_unless (g_str_has_prefix (lines[0], "{\"pts\":33333333,\"frame\":0,"
          "\"width\":64,\"height\":64,\"analysis_width\":64,"
          "\"analysis_height\":64,\"has_reference\":true,"
          "\"ref_distance\":-1,\"ref_pts\":0,"), "%s", lines[0]);
  fail_unless (strstr (lines[0], "\"mv\":[0,0,0,0,0,0,0,0,0,0,-16,0,")
      != NULL, "%s", lines[0]);
  fail_unless (g_str_has_prefix (lines[1], "{\"pts\":33333333,\"frame\":0,"),
      "%s", lines[1]);
  fail_unless (strstr (lines[1], "\"has_reference\":false,"
          "\"ref_distance\":-2,\"ref_pts\":null,") != NULL, "%s", lines[1]);
  fail_unless (strstr (lines[2], "\"has_reference\":true,"
          "\"ref_distance\":1,\"ref_pts\":66666666,") != NULL, "%s", lines[2]);
  fail_unless (strstr (lines[2], "\"mv\":[0,0,0,0,0,0,0,0,0,0,16,0,")
      != NULL, "%s", lines[2]);
  for (i = 0; i < 3; i++)
    fail_unless_equals_string (lines[3 + i], three_refs_jsonl[i]);
  g_strfreev (lines);
  g_free (text);

  /* A field written alone is the same line: a stream with one reference
   * reads as it did before there were several. */
  {
    GstVideoInfo info;
    GstBuffer *bufs[2];

    bufs[0] = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
    GST_BUFFER_PTS (bufs[0]) = 33333333;
    add_ref_field (bufs[0], -1, 0, -16, 55);
    bufs[1] = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
    GST_BUFFER_PTS (bufs[1]) = 66666666;
    add_ref_field (bufs[1], -1, 33333333, -32, 77);
    text = export_buffers ("jsonl", bufs, 2);
    lines = g_strsplit (text, "\n", -1);
    fail_unless_equals_int (g_strv_length (lines), 2 + 1);
    fail_unless_equals_string (lines[1], three_refs_jsonl[0]);
    g_strfreev (lines);
    g_free (text);
  }
}

GST_END_TEST;

GST_START_TEST (test_export_several_refs_csv)
{
  static const gint dist[] = { -1, -2, 1 };
  gchar *text = export_three_refs ("csv", NULL);
  gchar **lines = g_strsplit (text, "\n", -1);
  guint i;

  fail_unless_equals_string (lines[0], "frame,pts,shape,col,row,x,y,w,h,"
      "mv_x,mv_y,cost,pred_x,pred_y,mvd_x,mvd_y,chosen,ref_distance,view");
  /* header + 2 frames x 3 fields x 16 blocks + the end */
  fail_unless_equals_int (g_strv_length (lines), 1 + 2 * 3 * 16 + 1);
  for (i = 0; i < 2 * 3 * 16; i++) {
    const gchar *line = lines[1 + i];
    guint frame = i / 48, field = (i / 16) % 3, b = i % 16;
    gchar *prefix = g_strdup_printf ("%u,%u,16x16,%u,%u,%u,%u,16,16,", frame,
        frame ? 66666666 : 33333333, b % 4, b / 4, 16 * (b % 4),
        16 * (b / 4));
    gchar *suffix = g_strdup_printf (",,%d,0", dist[field]);

    fail_unless (g_str_has_prefix (line, prefix), "%s", line);
    fail_unless (g_str_has_suffix (line, suffix), "%s", line);
    g_free (prefix);
    g_free (suffix);
  }
  /* block (1, 1) of each of frame 1's fields */
  fail_unless_equals_string (lines[1 + 48 + 5],
      "1,66666666,16x16,1,1,16,16,16,16,-32,0,77,4,-4,-36,4,,-1,0");
  fail_unless_equals_string (lines[1 + 64 + 5],
      "1,66666666,16x16,1,1,16,16,16,16,-64,0,88,4,-4,-68,4,,-2,0");
  fail_unless_equals_string (lines[1 + 80 + 5],
      "1,66666666,16x16,1,1,16,16,16,16,0,0,0,4,-4,-4,4,,1,0");
  fail_unless_equals_string (lines[1 + 48 + 0],
      "1,66666666,16x16,0,0,0,0,16,16,0,0,0,0,0,0,0,,-1,0");
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

/* The summary of a field whose global motion is (@global_x, 0). */
static void
set_summary (GstMotionVectorMeta * meta, gdouble global_x)
{
  GstMotionVectorSummary s = { 0, };

  s.version = 1;
  s.flags = GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS;
  s.partition = GST_MOTION_VECTOR_PARTITION_16X16;
  s.blocks = 16;
  s.global_x = global_x;
  s.global_share = 0.75;
  s.moving_share = 0.25;
  s.scene_change = 12.5;
  s.mean_cost = 4.8125;
  gst_motion_vector_meta_set_summary (meta, &s);
}

GST_START_TEST (test_export_several_refs_summary_csv)
{
  /* One row per field that has a summary (here -1 and -2, not +1), in
   * the buffer's order, each naming its reference in the last column. */
  GstVideoInfo info;
  GstBuffer *buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  gchar *text, **lines;

  GST_BUFFER_PTS (buf) = 66666666;
  set_summary (add_ref_field (buf, -1, 33333333, -32, 77), -8.0);
  set_summary (add_ref_field (buf, -2, 0, -64, 88), -16.0);
  add_ref_field (buf, 1, GST_CLOCK_TIME_NONE, 0, 0);
  text = export_buffers ("csv summary=true", &buf, 1);
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_int (g_strv_length (lines), 1 + 2 + 1);
  fail_unless_equals_string (lines[0], "frame,pts,has_reference,"
      "has_previous,similarity,grid,blocks,global_x,global_y,zoom,rotation,"
      "global_share,moving_share,unmatched_share,scene_change,scene_cut,"
      "mean_cost,median_cost,ref_distance");
  fail_unless_equals_string (lines[1],
      "0,66666666,1,0,1,16x16,16,-8,0,0,0,0.75,0.25,0,12.5,0,4.8125,0,-1");
  fail_unless_equals_string (lines[2],
      "0,66666666,1,0,1,16x16,16,-16,0,0,0,0.75,0.25,0,12.5,0,4.8125,0,-2");
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

static void
edit_ref_distance_zero (GstMotionVectorMeta * meta)
{
  meta->ref_distance = 0;
}

GST_START_TEST (test_export_several_refs_inconsistent)
{
  /* Frame 1's field against -2 made inconsistent (two ways): it alone is
   * left out, the frame's other fields are written. */
  void (*edits[]) (GstMotionVectorMeta *) = {
    edit_analysis_height_zero, edit_ref_distance_zero,
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (edits); i++) {
    gchar *text = export_three_refs ("jsonl", edits[i]);
    gchar **lines = g_strsplit (text, "\n", -1);

    fail_unless_equals_int (g_strv_length (lines), 5 + 1);
    fail_unless_equals_string (lines[3], three_refs_jsonl[0]);
    fail_unless_equals_string (lines[4], three_refs_jsonl[2]);
    g_strfreev (lines);
    g_free (text);
  }
}

GST_END_TEST;

/* Two frames through "mvexport format=@format": the first with a meta
 * edited by @edit after attaching, the second consistent.  Returns the
 * file's text; the first frame must be left out with a warning. */
static gchar *
export_inconsistent (const gchar * format,
    void (*edit) (GstMotionVectorMeta * meta))
{
  GstVideoInfo info;
  gchar *dir = g_dir_make_tmp ("mvexport-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "out.txt", NULL);
  gchar *launch = g_strdup_printf ("mvexport location=\"%s\" format=%s",
      path, format);
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GstBuffer *buf;
  gchar *text = NULL;
  guint i;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, I420_CAPS);
  for (i = 0; i < 2; i++) {
    GstMotionVectorMeta *meta;

    buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
    GST_BUFFER_PTS (buf) = i * 33333333;
    meta = add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 77);
    if (i == 0)
      edit (meta);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  g_free (message_text (msg, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT));
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (path);
  g_free (dir);
  return text;
}

static void
edit_search_range (GstMotionVectorMeta * meta)
{
  /* not inconsistent: printed as it is; used below to see frame 0 */
  meta->search_range = G_MAXUINT;
}

GST_START_TEST (test_export_inconsistent_meta)
{
  void (*edits[]) (GstMotionVectorMeta *) = {
    edit_analysis_height_zero, edit_analysis_width, edit_rows,
    edit_partitions, edit_width_huge, edit_data_unaligned,
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (edits); i++) {
    gchar *text = export_inconsistent ("csv", edits[i]);
    gchar **lines = g_strsplit (text, "\n", -1);

    /* the header and frame 1's 16 blocks only */
    fail_unless_equals_int (g_strv_length (lines), 1 + 16 + 1);
    fail_unless (g_str_has_prefix (lines[1], "1,33333333,16x16,0,0,0,0,16,"
            "16,"), "%s", lines[1]);
    g_strfreev (lines);
    g_free (text);

    text = export_inconsistent ("jsonl", edits[i]);
    fail_unless (g_str_has_prefix (text, "{\"pts\":33333333,\"frame\":1,"),
        "%s", text);
    fail_unless (strchr (text, '\n') == text + strlen (text) - 1);
    g_free (text);
  }

  /* Odd values of the fields that are only printed are written as is. */
  {
    GstHarness *h;
    gchar *dir = g_dir_make_tmp ("mvexport-XXXXXX", NULL);
    gchar *path = g_build_filename (dir, "out.txt", NULL);
    gchar *launch = g_strdup_printf ("mvexport location=\"%s\"", path);
    GstVideoInfo info;
    GstBuffer *buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
    GstMotionVectorMeta *meta = add_meta (buf,
        GST_MOTION_VECTOR_PARTITIONS_16X16, GST_MOTION_VECTOR_PARTITION_16X16,
        1, 1, -32, 0, 77);
    gchar *text = NULL;

    edit_search_range (meta);
    meta->method = 42;
    h = gst_harness_new_parse (launch);
    gst_harness_set_src_caps_str (h, I420_CAPS);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    gst_harness_teardown (h);
    fail_unless (g_file_get_contents (path, &text, NULL, NULL));
    fail_unless (strstr (text, "\"search_range\":4294967295,"
            "\"method\":\"unknown\",") != NULL, "%s", text);
    g_free (text);
    g_unlink (path);
    g_rmdir (dir);
    g_free (launch);
    g_free (path);
    g_free (dir);
  }
}

GST_END_TEST;

/* mvexport writing to /dev/full: every write(2) fails with ENOSPC. */
static GstHarness *
export_to_full (GstBus ** bus)
{
  GstHarness *h = gst_harness_new_parse ("mvexport location=/dev/full");

  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  gst_harness_set_src_caps_str (h, I420_CAPS);
  return h;
}

GST_START_TEST (test_export_stop_without_eos)
{
  /* A few small frames stay in stdio's buffer; stopping without EOS must
   * flush them and report that the flush failed. */
  GstBus *bus;
  GstHarness *h;
  GstMessage *msg;
  gchar *text;
  guint i;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    return;
  h = export_to_full (&bus);
  for (i = 0; i < 3; i++) {
    GstVideoInfo info;
    GstBuffer *buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);

    add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 77);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for the data lost at stop");
  text = message_text (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE);
  fail_unless (strstr (text, "/dev/full") != NULL, "%s", text);
  g_free (text);
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);

  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

GST_END_TEST;

GST_START_TEST (test_export_write_error)
{
  /* One frame with every shape is larger than stdio's buffer: the write
   * fails while streaming, once, and stopping adds no second error. */
  GstVideoInfo info;
  GstBuffer *buf;
  GstBus *bus;
  GstHarness *h;
  GstMessage *msg;
  gchar *text;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    return;
  h = export_to_full (&bus);
  buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_ALL,
      GST_MOTION_VECTOR_PARTITION_4X4, 1, 1, -32, 0, 77);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  text = message_text (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE);
  fail_unless (strstr (text, "/dev/full") != NULL, "%s", text);
  g_free (text);
  gst_message_unref (msg);

  /* later frames, small enough for stdio's buffer, fail too instead of
   * being lost at the flush; a frame without a meta as well */
  for (guint i = 0; i < 3; i++) {
    buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
    if (i < 2)
      add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
          GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 77);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);

  gst_element_set_state (h->element, GST_STATE_NULL);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

GST_END_TEST;

/* The descriptor this process has open on @path, or -1. */
static gint
open_descriptor (const gchar * path)
{
  gchar *want = realpath (path, NULL);
  GDir *dir = g_dir_open ("/proc/self/fd", 0, NULL);
  const gchar *name;
  gint fd = -1;

  while (dir && want && fd < 0 && (name = g_dir_read_name (dir))) {
    gchar *link = g_strconcat ("/proc/self/fd/", name, NULL);
    gchar *target = g_file_read_link (link, NULL);

    if (target && strcmp (target, want) == 0)
      fd = atoi (name);
    g_free (target);
    g_free (link);
  }
  if (dir)
    g_dir_close (dir);
  free (want);
  return fd;
}

GST_START_TEST (test_export_close_error)
{
  /* The file cannot be closed (its descriptor was closed behind stdio's
   * back, so close(2) fails with EBADF): stopping posts a RESOURCE CLOSE
   * error naming the file; what was flushed before stays written. */
  gchar *dir, *path, *launch, *text = NULL;
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *buf;
  GstBus *bus;
  GstMessage *msg;
  gint fd;

#ifndef G_OS_UNIX
  return;
#endif
  if (!g_file_test ("/proc/self/fd", G_FILE_TEST_IS_DIR))
    return;
  dir = g_dir_make_tmp ("mvexport-XXXXXX", NULL);
  path = g_build_filename (dir, "out.txt", NULL);
  launch = g_strdup_printf ("mvexport location=\"%s\"", path);
  h = gst_harness_new_parse (launch);
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, I420_CAPS);
  buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 77);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  /* EOS flushes: nothing is left in stdio's buffer. */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fd = open_descriptor (path);
  fail_unless (fd >= 0, "%s is not open", path);
  fail_unless_equals_int (close (fd), 0);

  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for the failed close");
  text = message_text (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_CLOSE);
  fail_unless (strstr (text, path) != NULL, "%s", text);
  g_free (text);
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  fail_unless (g_str_has_prefix (text, "{\"pts\":"), "%s", text);
  fail_unless (strchr (text, '\n') == text + strlen (text) - 1);
  g_free (text);
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

GST_START_TEST (test_export_location_changed_while_playing)
{
  /* location is read once, under the lock, when the file is opened: set
   * while playing, it names the file of the next start, and messages
   * keep naming the file being written. */
  gchar *dir = g_dir_make_tmp ("mvexport-XXXXXX", NULL);
  gchar *later = g_build_filename (dir, "later.txt", NULL);
  gchar *text = NULL;
  GstVideoInfo info;
  GstBuffer *buf;
  GstBus *bus;
  GstHarness *h;
  GstMessage *msg;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS)) {
    g_rmdir (dir);
    g_free (later);
    g_free (dir);
    return;
  }
  h = export_to_full (&bus);
  {
    GstElement *e = gst_harness_find_element (h, "mvexport");
    gchar *location = NULL;

    g_object_set (e, "location", later, NULL);
    g_object_get (e, "location", &location, NULL);
    fail_unless_equals_string (location, later);
    g_free (location);
    gst_object_unref (e);
  }
  buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_ALL,
      GST_MOTION_VECTOR_PARTITION_4X4, 1, 1, -32, 0, 77);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  text = message_text (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE);
  fail_unless_equals_string (text, "Could not write to file \"/dev/full\".");
  g_free (text);
  gst_message_unref (msg);
  fail_unless (!g_file_test (later, G_FILE_TEST_EXISTS));

  /* The next start opens the new location. */
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
  buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 77);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  fail_unless (g_file_get_contents (later, &text, NULL, NULL));
  fail_unless (g_str_has_prefix (text, "{\"pts\":"), "%s", text);
  g_free (text);

  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  g_unlink (later);
  g_rmdir (dir);
  g_free (later);
  g_free (dir);
}

GST_END_TEST;

/* ---- the reference each block chose (chosen_refs) ------------------------- */

/* A buffer searched against -1, -2 and +1 with mode-decision=true: three
 * fields of 16x16 and 8x8, the first (-1) carrying chosen_modes and the
 * reference of every partition:
 *   MB row 0:  -1  -2  +1  -1
 *   MB row 1:  -1  8x8 -1  -1      (the 8x8 of MB (1, 1):  -1 +1)
 *   MB row 2:  -1  -1  -1  -1                              -2 -1
 *   MB row 3:  -1  -1  -1  -2
 * Where the partitions chose another field than -1, the fields differ:
 * 16x16 cell (2, 0) moved 8 px right in -1 and 8 px down in +1, 16x16
 * cell (1, 0) 8 px up in -2, 8x8 cell (3, 2) right in -1, down in +1. */
static const gint8 mb_refs[4][4] = {
  {-1, -2, 1, -1},
  {-1, 0, -1, -1},
  {-1, -1, -1, -1},
  {-1, -1, -1, -2},
};

static const gint8 mb11_refs[2][2] = { {-1, 1}, {-2, -1} };

static const CellSpec back1_cells[] = {
  {GST_MOTION_VECTOR_PARTITION_16X16, 2, 0, -32, 0, 100},
  {GST_MOTION_VECTOR_PARTITION_8X8, 3, 2, -32, 0, 100},
};

static const CellSpec back2_cells[] = {
  {GST_MOTION_VECTOR_PARTITION_16X16, 1, 0, 0, 32, 200},
};

static const CellSpec ahead1_cells[] = {
  {GST_MOTION_VECTOR_PARTITION_16X16, 2, 0, 0, -32, 300},
  {GST_MOTION_VECTOR_PARTITION_8X8, 3, 2, 0, -32, 300},
};

/* The decision above, one value per 4x4 block (16 x 16 of them). */
static GBytes *
chosen_refs_bytes (void)
{
  gint8 refs[16][16];
  guint x, y;

  for (y = 0; y < 16; y++)
    for (x = 0; x < 16; x++)
      refs[y][x] = mb_refs[y / 4][x / 4] ? mb_refs[y / 4][x / 4]
          : mb11_refs[(y / 2) % 2][(x / 2) % 2];
  return g_bytes_new (refs, sizeof (refs));
}

/* A field of the second view of stereo video against +1: 16x16 cell
 * (2, 0) moved 8 px left and down. */
static const CellSpec other_view_cells[] = {
  {GST_MOTION_VECTOR_PARTITION_16X16, 2, 0, 32, -32, 900},
};

/* The buffer above in @format; without @refs the first field has the
 * modes only (as with one reference); @refs is set as is.  With
 * @other_view, a field of the second view against +1 comes right after
 * the first field, before the first view's. */
static GstBuffer *
make_decided_buffer_views (GstVideoFormat format, GstVideoInfo * info,
    GBytes * refs, gboolean other_view)
{
  GstBuffer *buf = make_grey_buffer (format, info);
  const GstMotionVectorPartitionFlags parts =
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_8X8;
  GstMotionVectorMeta *first = add_meta_cells (buf, parts, back1_cells,
      G_N_ELEMENTS (back1_cells), chosen_modes);

  if (other_view) {
    GstMotionVectorMeta *m = add_meta_cells (buf, parts, other_view_cells,
        G_N_ELEMENTS (other_view_cells), NULL);

    m->ref_distance = 1;
    m->view = 1;
  }
  add_meta_cells (buf, parts, back2_cells, G_N_ELEMENTS (back2_cells),
      NULL)->ref_distance = -2;
  add_meta_cells (buf, parts, ahead1_cells, G_N_ELEMENTS (ahead1_cells),
      NULL)->ref_distance = 1;
  if (refs)
    fail_unless (gst_motion_vector_meta_set_chosen_refs (first, refs));
  return buf;
}

static GstBuffer *
make_decided_buffer (GstVideoFormat format, GstVideoInfo * info,
    GBytes * refs)
{
  return make_decided_buffer_views (format, info, refs, FALSE);
}

/* Pixel (@x, @y) of an RGBA frame is (@r, @g, @b). */
static void
assert_rgb (GstVideoInfo * info, GstBuffer * buf, guint x, guint y, guint r,
    guint g, guint b)
{
  guint got[3] = { comp_at (info, buf, 0, x, y), comp_at (info, buf, 1, x, y),
    comp_at (info, buf, 2, x, y)
  };

  fail_unless (got[0] == r && got[1] == g && got[2] == b,
      "pixel (%u, %u) is (%u, %u, %u), not (%u, %u, %u)", x, y, got[0],
      got[1], got[2], r, g, b);
}

/* The colours of docs/overlay.md. */
#define BLUE_M1 0, 114, 178
#define GREEN_M2 0, 158, 115
#define VERMILLION_P1 213, 94, 0

/* @a and @b hold the same bytes. */
static void
assert_same_bytes (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless_equals_int (ma.size, mb.size);
  fail_unless (memcmp (ma.data, mb.data, ma.size) == 0);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
}

/* Runs @launch on the decided buffer (with chosen references, or @refs
 * when not NULL) in @format. */
static GstBuffer *
run_decided (GstVideoFormat format, GstVideoInfo * info, GBytes * refs,
    const gchar * launch)
{
  GBytes *own = refs ? g_bytes_ref (refs) : chosen_refs_bytes ();
  GstBuffer *out = run_overlay (launch, info,
      make_decided_buffer (format, info, own));

  g_bytes_unref (own);
  return out;
}

GST_START_TEST (test_overlay_reference_colors)
{
  /* Opaque fills, no arrows (min-magnitude): every block is its
   * reference's colour inside, outlines (black at half weight) on its top
   * and left edges. */
  GstVideoInfo info;
  GstBuffer *out = run_decided (GST_VIDEO_FORMAT_RGBA, &info, NULL,
      "mvoverlay partition=chosen color-mode=reference opacity=1 "
      "min-magnitude=100");
  guint x, y;

  assert_rgb (&info, out, 8, 8, BLUE_M1);
  assert_rgb (&info, out, 24, 8, GREEN_M2);
  assert_rgb (&info, out, 40, 8, VERMILLION_P1);
  assert_rgb (&info, out, 56, 8, BLUE_M1);
  assert_rgb (&info, out, 8, 40, BLUE_M1);
  assert_rgb (&info, out, 56, 56, GREEN_M2);
  /* the four 8x8 of MB (1, 1): -1 +1 / -2 -1 */
  assert_rgb (&info, out, 20, 20, BLUE_M1);
  assert_rgb (&info, out, 28, 20, VERMILLION_P1);
  assert_rgb (&info, out, 20, 28, GREEN_M2);
  assert_rgb (&info, out, 28, 28, BLUE_M1);
  /* uniform up to the outlines: the whole of MB (2, 0) but its top row
   * and left column */
  for (y = 1; y < 16; y++)
    for (x = 33; x < 48; x++)
      assert_rgb (&info, out, x, y, VERMILLION_P1);
  /* the outline over vermillion: (213 * 128 + 0 * 128 + 128) >> 8 */
  assert_rgb (&info, out, 40, 0, 107, 47, 0);
  assert_rgb (&info, out, 20, 16, 0, 57, 89);   /* over the 8x8's -1 */
  gst_buffer_unref (out);

  /* partition=16x16: each 16x16 block by the reference of its top-left
   * 4x4 block, MB (1, 1) by that of its top-left 8x8 (-1), no outline. */
  out = run_decided (GST_VIDEO_FORMAT_RGBA, &info, NULL,
      "mvoverlay partition=16x16 color-mode=reference opacity=1 "
      "min-magnitude=100");
  assert_rgb (&info, out, 16, 0, GREEN_M2);
  assert_rgb (&info, out, 28, 28, BLUE_M1);
  assert_rgb (&info, out, 32, 0, VERMILLION_P1);
  gst_buffer_unref (out);

  /* The default opacity blends the colour half over the grey (128):
   * (128 * 128 + 213 * 128 + 128) >> 8 = 171, 111, 64. */
  out = run_decided (GST_VIDEO_FORMAT_RGBA, &info, NULL,
      "mvoverlay partition=chosen color-mode=reference min-magnitude=100");
  assert_rgb (&info, out, 40, 8, 171, 111, 64);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_chosen_reference_vectors)
{
  GstVideoInfo info;
  GstBuffer *out, *plain;
  guint y;

  /* partition=chosen draws each partition's vector from the field of its
   * reference: MB (2, 0) the +1 field's, 8 px down from (40, 8); MB
   * (1, 0) the -2 field's, 8 px up from (24, 8); the 8x8 (3, 2) the +1
   * field's, down from (28, 20).  The -1 field's arrows to the right,
   * (40, 8) to (48, 8) and (28, 20) to (36, 20), are not drawn. */
  out = run_decided (GST_VIDEO_FORMAT_I420, &info, NULL,
      "mvoverlay partition=chosen");
  for (y = 10; y <= 15; y++) {
    fail_if (pixel_is_grey (&info, out, 40, y), "(40, %u) grey", y);
    fail_if (pixel_is_grey (&info, out, 28, y + 12), "(28, %u) grey",
        y + 12);
  }
  for (y = 1; y <= 6; y++)
    fail_if (pixel_is_grey (&info, out, 24, y), "(24, %u) grey", y);
  fail_unless (pixel_is_grey (&info, out, 46, 8));
  fail_unless (pixel_is_grey (&info, out, 34, 20));
  gst_buffer_unref (out);

  /* Without chosen references the -1 field's own, as before. */
  plain = run_overlay ("mvoverlay partition=chosen", &info,
      make_decided_buffer (GST_VIDEO_FORMAT_I420, &info, NULL));
  fail_if (pixel_is_grey (&info, plain, 46, 8));
  fail_if (pixel_is_grey (&info, plain, 34, 20));
  fail_unless (pixel_is_grey (&info, plain, 40, 13));
  fail_unless (pixel_is_grey (&info, plain, 24, 3));

  /* color-mode=reference without chosen references: as direction. */
  out = run_overlay ("mvoverlay partition=chosen color-mode=reference",
      &info, make_decided_buffer (GST_VIDEO_FORMAT_I420, &info, NULL));
  assert_same_bytes (out, plain);
  gst_buffer_unref (out);

  /* A decision naming a field the buffer lacks (-3) is not drawn: the
   * frame is drawn as without chosen references. */
  {
    gint8 refs[256];
    GBytes *b;

    memset (refs, -3, sizeof (refs));
    b = g_bytes_new (refs, sizeof (refs));
    out = run_decided (GST_VIDEO_FORMAT_I420, &info, b,
        "mvoverlay partition=chosen");
    g_bytes_unref (b);
    assert_same_bytes (out, plain);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (plain);

  /* partition=16x16 with direction colours reads the field drawn (-1),
   * whatever the decision: the arrow right from (40, 8). */
  out = run_decided (GST_VIDEO_FORMAT_I420, &info, NULL,
      "mvoverlay partition=16x16");
  fail_if (pixel_is_grey (&info, out, 46, 8));
  fail_unless (pixel_is_grey (&info, out, 40, 13));
  gst_buffer_unref (out);

  /* The arrows in color-mode=reference are in their reference's colour,
   * over a fill of it: MB (2, 0)'s shaft is vermillion, opaque. */
  out = run_decided (GST_VIDEO_FORMAT_RGBA, &info, NULL,
      "mvoverlay partition=chosen color-mode=reference opacity=0");
  assert_rgb (&info, out, 40, 11, VERMILLION_P1);
  assert_rgb (&info, out, 24, 4, GREEN_M2);
  /* opacity 0: no fill, the grey shows between the arrows */
  assert_rgb (&info, out, 8, 8, GREY, GREY, GREY);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_overlay_reference_legend)
{
  /* One square of 6 px per reference the decision names, ascending,
   * from (54, 4) down every 9 px, each in a black rim: -2, -1, +1.
   * (partition=16x16, opacity=0 and no arrows: nothing else is drawn.) */
  GstVideoInfo info;
  GstBuffer *out = run_decided (GST_VIDEO_FORMAT_RGBA, &info, NULL,
      "mvoverlay partition=16x16 color-mode=reference opacity=0 "
      "min-magnitude=100 legend=true");
  guint x, y;

  for (y = 4; y < 10; y++) {
    for (x = 54; x < 60; x++) {
      assert_rgb (&info, out, x, y, GREEN_M2);
      assert_rgb (&info, out, x, y + 9, BLUE_M1);
      assert_rgb (&info, out, x, y + 18, VERMILLION_P1);
    }
  }
  assert_rgb (&info, out, 53, 4, 0, 0, 0);
  assert_rgb (&info, out, 60, 27, 0, 0, 0);
  assert_rgb (&info, out, 56, 10, 0, 0, 0);
  /* nothing below the third square's rim, nor left of the rims */
  assert_region_grey (&info, out, 0, 29, W, H);
  assert_region_grey (&info, out, 0, 0, 53, H);
  gst_buffer_unref (out);
}

GST_END_TEST;

/* The decided buffer with its -2 field made unfit to lend its cells:
 * @how 0 inconsistent, 1 of another frame size, 2 without the 8x8 shape
 * the decision uses; with @with_refs the decision's chosen references,
 * else none. */
static GstBuffer *
make_unfit_buffer (GstVideoInfo * info, guint how, gboolean with_refs)
{
  GstBuffer *buf = make_grey_buffer (GST_VIDEO_FORMAT_RGBA, info);
  const GstMotionVectorPartitionFlags parts =
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_8X8;
  GstMotionVectorMeta *first = add_meta_cells (buf, parts, back1_cells,
      G_N_ELEMENTS (back1_cells), chosen_modes), *back2;

  back2 = add_meta_cells (buf, how == 2 ? GST_MOTION_VECTOR_PARTITIONS_16X16
      : parts, back2_cells, G_N_ELEMENTS (back2_cells), NULL);
  back2->ref_distance = -2;
  if (how == 0)
    back2->analysis_width = 0;
  else if (how == 1)
    back2->width = 32;
  add_meta_cells (buf, parts, ahead1_cells, G_N_ELEMENTS (ahead1_cells),
      NULL)->ref_distance = 1;
  if (with_refs) {
    GBytes *refs = chosen_refs_bytes ();

    fail_unless (gst_motion_vector_meta_set_chosen_refs (first, refs));
    g_bytes_unref (refs);
  }
  return buf;
}

GST_START_TEST (test_overlay_reference_unfit_field)
{
  /* A decision naming a field that cannot lend its cells (the -2 field:
   * inconsistent, of another size, without 8x8) is not drawn at all,
   * neither its vectors nor its colours: the frame is drawn as without a
   * reference decision. */
  static const gchar *const launches[] = {
    "mvoverlay partition=chosen",
    "mvoverlay partition=chosen color-mode=reference opacity=1 legend=true",
    "mvoverlay partition=8x8 color-mode=reference",
  };
  GstVideoInfo info;
  guint how, i;

  for (how = 0; how < 3; how++) {
    for (i = 0; i < G_N_ELEMENTS (launches); i++) {
      GstBuffer *out = run_overlay (launches[i], &info,
          make_unfit_buffer (&info, how, TRUE));
      GstBuffer *plain = run_overlay (launches[i], &info,
          make_unfit_buffer (&info, how, FALSE));

      assert_same_bytes (out, plain);
      /* the -1 field's own arrow right from (40, 8) */
      if (i < 2)
        fail_if (pixel_is_grey (&info, out, 46, 8), "case %u, %s", how,
            launches[i]);
      gst_buffer_unref (out);
      gst_buffer_unref (plain);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_overlay_reference_other_view)
{
  /* Stereo video: the decision of the first view names the first view's
   * fields, not the second view's field against +1 that comes before
   * them: the frame is drawn as without that field. */
  static const gchar *const launches[] = {
    "mvoverlay partition=chosen",
    "mvoverlay partition=chosen color-mode=reference opacity=1",
  };
  GstVideoInfo info;
  GBytes *refs = chosen_refs_bytes ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (launches); i++) {
    GstBuffer *out = run_overlay (launches[i], &info,
        make_decided_buffer_views (GST_VIDEO_FORMAT_RGBA, &info, refs, TRUE));
    GstBuffer *one = run_overlay (launches[i], &info,
        make_decided_buffer (GST_VIDEO_FORMAT_RGBA, &info, refs));

    assert_same_bytes (out, one);
    /* the first view's +1 arrow, down from (40, 8) */
    fail_if (pixel_is_grey (&info, out, 40, 13));
    gst_buffer_unref (out);
    gst_buffer_unref (one);
  }
  g_bytes_unref (refs);
}

GST_END_TEST;

/* The decided buffer through mvexport in @format: its text. */
static gchar *
export_decided (const gchar * format, gboolean with_refs)
{
  GstVideoInfo info;
  GBytes *refs = with_refs ? chosen_refs_bytes () : NULL;
  GstBuffer *buf = make_decided_buffer (GST_VIDEO_FORMAT_I420, &info, refs);

  if (refs)
    g_bytes_unref (refs);
  return export_buffers (format, &buf, 1);
}

GST_START_TEST (test_export_chosen_refs_jsonl)
{
  gchar *text = export_decided ("jsonl", TRUE);
  gchar *plain_text = export_decided ("jsonl", FALSE);
  gchar **lines = g_strsplit (text, "\n", -1);
  gchar **plain = g_strsplit (plain_text, "\n", -1);
  GString *want = g_string_new (NULL);
  GBytes *refs = chosen_refs_bytes ();
  const gint8 *r = g_bytes_get_data (refs, NULL);
  gchar *prefix;
  guint i;

  fail_unless_equals_int (g_strv_length (lines), 4);
  /* The first field's line: the line it had without chosen references,
   * with "chosen_refs" after "modes", one value per 4x4 block, row-major:
   * row 0 is -1 x4, -2 x4, +1 x4, -1 x4. */
  fail_unless (g_str_has_suffix (plain[0], "," MODES_JSON "}"));
  prefix = g_strndup (plain[0], strlen (plain[0]) - 1);
  g_string_append_printf (want, "%s,\"chosen_refs\":[", prefix);
  for (i = 0; i < 256; i++)
    g_string_append_printf (want, "%s%d", i ? "," : "", r[i]);
  g_string_append (want, "]}");
  fail_unless_equals_string (lines[0], want->str);
  fail_unless (strstr (lines[0], "\"chosen_refs\":[-1,-1,-1,-1,-2,-2,-2,-2,"
          "1,1,1,1,-1,-1,-1,-1,") != NULL);
  /* the other fields' lines, byte for byte as without */
  fail_unless_equals_string (lines[1], plain[1]);
  fail_unless_equals_string (lines[2], plain[2]);
  fail_unless (strstr (lines[1], "chosen_refs") == NULL);
  g_bytes_unref (refs);
  g_string_free (want, TRUE);
  g_free (prefix);
  g_strfreev (lines);
  g_strfreev (plain);
  g_free (text);
  g_free (plain_text);
}

GST_END_TEST;

GST_START_TEST (test_export_chosen_refs_csv)
{
  gchar *text = export_decided ("csv", TRUE);
  gchar **lines = g_strsplit (text, "\n", -1);
  guint i, chosen = 0;

  /* header, 80 rows per field (16 of 16x16, 64 of 8x8), three fields */
  fail_unless_equals_int (g_strv_length (lines), 1 + 3 * 80 + 1);
  /* MB (2, 0) is coded with 16x16 from +1: chosen in +1's rows only */
  fail_unless_equals_string (lines[1 + 2],
      "0,,16x16,2,0,32,0,16,16,-32,0,100,0,0,-32,0,0,-1,0");
  fail_unless_equals_string (lines[81 + 2],
      "0,,16x16,2,0,32,0,16,16,0,0,0,0,0,0,0,0,-2,0");
  fail_unless_equals_string (lines[161 + 2],
      "0,,16x16,2,0,32,0,16,16,0,-32,300,0,0,0,-32,1,1,0");
  /* MB (1, 0) from -2 */
  fail_unless_equals_string (lines[81 + 1],
      "0,,16x16,1,0,16,0,16,16,0,32,200,0,0,0,32,1,-2,0");
  fail_unless (g_str_has_suffix (lines[1 + 1], ",0,-1,0"));
  /* the 8x8 (3, 2) of MB (1, 1) from +1, (2, 2) from -1, (2, 3) from -2 */
  fail_unless_equals_string (lines[17 + 2 * 8 + 3],
      "0,,8x8,3,2,24,16,8,8,-32,0,100,0,0,-32,0,0,-1,0");
  fail_unless_equals_string (lines[161 + 16 + 2 * 8 + 3],
      "0,,8x8,3,2,24,16,8,8,0,-32,300,0,0,0,-32,1,1,0");
  fail_unless (g_str_has_suffix (lines[17 + 2 * 8 + 2], ",1,-1,0"));
  fail_unless (g_str_has_suffix (lines[81 + 16 + 3 * 8 + 2], ",1,-2,0"));
  /* the 16x16 of MB (1, 1): not chosen in any field */
  fail_unless (g_str_has_suffix (lines[1 + 5], ",0,-1,0"));
  fail_unless (g_str_has_suffix (lines[81 + 5], ",0,-2,0"));
  fail_unless (g_str_has_suffix (lines[161 + 5], ",0,1,0"));
  /* every row has a 0 or a 1, and the 1s are the decided field: one per
   * 16x16 macroblock (15), four for MB (1, 1) */
  for (i = 1; i <= 240; i++) {
    fail_unless (strstr (lines[i], ",1,") || strstr (lines[i], ",0,"));
    chosen += g_regex_match_simple (",1,-?[12],0$", lines[i], 0, 0);
  }
  fail_unless_equals_int (chosen, 19);
  g_strfreev (lines);
  g_free (text);

  /* Stereo video: the second view's field against +1 is not the one the
   * first view's decision names; its rows keep an empty chosen (it has
   * no decision of its own) and end in its view, 1; the first view's +1
   * rows are as above. */
  {
    GstVideoInfo info;
    GBytes *refs = chosen_refs_bytes ();
    GstBuffer *buf = make_decided_buffer_views (GST_VIDEO_FORMAT_I420, &info,
        refs, TRUE);

    g_bytes_unref (refs);
    text = export_buffers ("csv", &buf, 1);
    lines = g_strsplit (text, "\n", -1);
    fail_unless_equals_int (g_strv_length (lines), 1 + 4 * 80 + 1);
    fail_unless_equals_string (lines[81 + 2],
        "0,,16x16,2,0,32,0,16,16,32,-32,900,0,0,32,-32,,1,1");
    fail_unless_equals_string (lines[241 + 2],
        "0,,16x16,2,0,32,0,16,16,0,-32,300,0,0,0,-32,1,1,0");
    g_strfreev (lines);
    g_free (text);
  }

  /* Without chosen references: the -1 field's rows follow the modes, the
   * other fields have none (empty). */
  text = export_decided ("csv", FALSE);
  lines = g_strsplit (text, "\n", -1);
  fail_unless (g_str_has_suffix (lines[1 + 2], ",1,-1,0"));
  fail_unless (g_str_has_suffix (lines[81 + 1], ",,-2,0"));
  fail_unless (g_str_has_suffix (lines[161 + 2], ",,1,0"));
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

/* ---- stereo video ------------------------------------------------------- */

/* Two frames of side-by-side stereo as gpumotionest attaches their fields:
 * frame 0 has three fields like frame 1 but no reference; frame 1 (pts
 * 66666666) view 0's field against -1 (cell (1, 1) (-32, 0), cost 77),
 * view 1's against -1 ((-32, 0), 77, the same cells as view 0's) and
 * view 1's disparity against view 0 at the same instant ((16, 0), 66). */
static gchar *
export_stereo (const gchar * format)
{
  GstVideoInfo info;
  GstBuffer *bufs[2];
  GstMotionVectorMeta *m;

  bufs[0] = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  GST_BUFFER_PTS (bufs[0]) = 33333333;
  add_ref_field (bufs[0], -1, GST_CLOCK_TIME_NONE, 0, 0);
  add_ref_field (bufs[0], -1, GST_CLOCK_TIME_NONE, 0, 0)->view = 1;
  m = add_ref_field (bufs[0], 0, 33333333, 16, 66);
  m->view = 1;
  m->flags = GST_MOTION_VECTOR_META_FLAG_INTER_VIEW;

  bufs[1] = make_grey_buffer (GST_VIDEO_FORMAT_I420, &info);
  GST_BUFFER_PTS (bufs[1]) = 66666666;
  add_ref_field (bufs[1], -1, 33333333, -32, 77);
  add_ref_field (bufs[1], -1, 33333333, -32, 77)->view = 1;
  m = add_ref_field (bufs[1], 0, 66666666, 16, 66);
  m->view = 1;
  m->flags = GST_MOTION_VECTOR_META_FLAG_INTER_VIEW;
  return export_buffers (format, bufs, 2);
}

/* @line with @text put in front of its ",\"search_range\"". */
static gchar *
with_before_range (const gchar * line, const gchar * text)
{
  const gchar *at = strstr (line, ",\"search_range\"");

  fail_unless (at != NULL, "%s", line);
  return g_strdup_printf ("%.*s%s%s", (gint) (at - line), line, text, at);
}

GST_START_TEST (test_export_stereo_jsonl)
{
  gchar *text = export_stereo ("jsonl");
  gchar **lines = g_strsplit (text, "\n", -1);
  gchar *want;

  fail_unless_equals_int (g_strv_length (lines), 6 + 1);
  /* the first view's motion: the line of a mono stream, byte for byte */
  fail_unless_equals_string (lines[3], three_refs_jsonl[0]);
  /* the second view's: the same with its view after ref_pts */
  want = with_before_range (three_refs_jsonl[0], ",\"view\":1");
  fail_unless_equals_string (lines[4], want);
  g_free (want);
  /* its disparity: ref_distance 0, the same instant, view and flag */
  fail_unless (g_str_has_prefix (lines[5], "{\"pts\":66666666,\"frame\":1,"
          "\"width\":64,\"height\":64,\"analysis_width\":64,"
          "\"analysis_height\":64,\"has_reference\":true,"
          "\"ref_distance\":0,\"ref_pts\":66666666,\"view\":1,"
          "\"inter_view\":true,\"search_range\":16,\"method\":\"full\","
          "\"layers\":[{\"shape\":\"16x16\",\"cols\":4,\"rows\":4,"
          "\"mv\":[0,0,0,0,0,0,0,0,0,0,16,0,0,0,"), "%s", lines[5]);
  fail_unless (strstr (lines[5], "\"cost\":[0,0,0,0,0,66,0,") != NULL);
  /* frame 0: no reference in either view, the disparity has its own */
  fail_unless (strstr (lines[0], "\"view\"") == NULL, "%s", lines[0]);
  fail_unless (strstr (lines[1], "\"has_reference\":false,"
          "\"ref_distance\":-1,\"ref_pts\":null,\"view\":1,"
          "\"search_range\"") != NULL, "%s", lines[1]);
  fail_unless (strstr (lines[2], "\"has_reference\":true,"
          "\"ref_distance\":0,\"ref_pts\":33333333,\"view\":1,"
          "\"inter_view\":true,") != NULL, "%s", lines[2]);
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_export_stereo_csv)
{
  gchar *text = export_stereo ("csv");
  gchar **lines = g_strsplit (text, "\n", -1);
  guint i;

  fail_unless_equals_string (lines[0], "frame,pts,shape,col,row,x,y,w,h,"
      "mv_x,mv_y,cost,pred_x,pred_y,mvd_x,mvd_y,chosen,ref_distance,view");
  /* header + 2 frames x 3 fields x 16 blocks + the end */
  fail_unless_equals_int (g_strv_length (lines), 1 + 2 * 3 * 16 + 1);
  /* each field's rows end in its reference and view: the two fields
   * against -1 differ only there */
  for (i = 0; i < 2 * 3 * 16; i++) {
    static const gchar *const ends[] = { ",,-1,0", ",,-1,1", ",,0,1" };

    fail_unless (g_str_has_suffix (lines[1 + i], ends[(i / 16) % 3]), "%s",
        lines[1 + i]);
  }
  fail_unless_equals_string (lines[1 + 48 + 5],
      "1,66666666,16x16,1,1,16,16,16,16,-32,0,77,4,-4,-36,4,,-1,0");
  fail_unless_equals_string (lines[1 + 64 + 5],
      "1,66666666,16x16,1,1,16,16,16,16,-32,0,77,4,-4,-36,4,,-1,1");
  fail_unless_equals_string (lines[1 + 80 + 5],
      "1,66666666,16x16,1,1,16,16,16,16,16,0,66,4,-4,12,4,,0,1");
  g_strfreev (lines);
  g_free (text);
}

GST_END_TEST;

/* A grey I420 frame of @w x @h whose caps (in @info) say @mode; a
 * frame-by-frame stream has two views. */
static GstBuffer *
make_grey_frame (GstVideoInfo * info, guint w, guint h,
    GstVideoMultiviewMode mode)
{
  GstBuffer *buf;

  fail_unless (gst_video_info_set_format (info, GST_VIDEO_FORMAT_I420, w, h));
  GST_VIDEO_INFO_MULTIVIEW_MODE (info) = mode;
  if (mode == GST_VIDEO_MULTIVIEW_MODE_FRAME_BY_FRAME)
    GST_VIDEO_INFO_VIEWS (info) = 2;
  buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  gst_buffer_memset (buf, 0, GREY, info->size);
  return buf;
}

/* The fields of one instant of stereo video whose views are 64x64, in
 * gpumotionest's order: the first view's against -1 moves 16x16 cell
 * (1, 1) 8 px right (as check_arrow), the second view's against -1 the
 * same cell 8 px down, the second view's disparity cell (2, 2) 8 px
 * right.  With @first_view FALSE only the second view's (a
 * frame-by-frame buffer of that view). */
static void
add_stereo_fields (GstBuffer * buf, gboolean first_view)
{
  GstMotionVectorMeta *m;

  if (first_view)
    add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
  add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, 0, -32, 500)->view = 1;
  m = add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, 2, 2, -32, 0, 500);
  m->view = 1;
  m->ref_distance = 0;
  m->flags = GST_MOTION_VECTOR_META_FLAG_INTER_VIEW;
}

/* What mvoverlay (@launch) draws on a grey 64x64 mono frame carrying one
 * field against -1 whose 16x16 cell (@col, @row) holds (@mv_x, @mv_y). */
static GstBuffer *
mono_drawing (const gchar * launch, GstVideoInfo * info, guint col,
    guint row, gint16 mv_x, gint16 mv_y)
{
  GstBuffer *buf = make_grey_buffer (GST_VIDEO_FORMAT_I420, info);

  add_meta (buf, GST_MOTION_VECTOR_PARTITIONS_16X16,
      GST_MOTION_VECTOR_PARTITION_16X16, col, row, mv_x, mv_y, 500);
  return run_overlay (launch, info, buf);
}

/* The @want_info-sized area of @out at (@x0, @y0) (even, so that I420's
 * chroma samples line up) holds, byte for byte in every component, the
 * frame @want. */
static void
assert_area_is (GstVideoInfo * out_info, GstBuffer * out, guint x0, guint y0,
    GstVideoInfo * want_info, GstBuffer * want)
{
  GstVideoFrame a, b;
  guint comp;
  gint x, y;

  fail_unless (gst_video_frame_map (&a, out_info, out, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&b, want_info, want, GST_MAP_READ));
  for (comp = 0; comp < 3; comp++) {
    const guint8 *pa = GST_VIDEO_FRAME_COMP_DATA (&a, comp);
    const guint8 *pb = GST_VIDEO_FRAME_COMP_DATA (&b, comp);
    gint sa = GST_VIDEO_FRAME_COMP_STRIDE (&a, comp);
    gint sb = GST_VIDEO_FRAME_COMP_STRIDE (&b, comp);
    guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (want_info->finfo, comp);
    guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (want_info->finfo, comp);

    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&b, comp); y++) {
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&b, comp); x++) {
        guint got = pa[((y0 >> hs) + y) * sa + (x0 >> ws) + x];
        guint v = pb[y * sb + x];

        fail_unless (got == v, "component %u sample (%d, %d) of the area at "
            "(%u, %u): %u, not %u", comp, x, y, x0, y0, got, v);
      }
    }
  }
  gst_video_frame_unmap (&a);
  gst_video_frame_unmap (&b);
}

GST_START_TEST (test_overlay_stereo_side_by_side)
{
  /* A 128x64 side-by-side frame: each view's field is drawn in its half
   * exactly as on a 64x64 frame of its own; view and reference pick. */
  static const struct
  {
    const gchar *launch;
    gint left, right;           /* 0 untouched, 1 right arrow, 2 down */
  } cases[] = {
    {"mvoverlay", 1, 2},
    {"mvoverlay view=-1 reference=-1", 1, 2},
    {"mvoverlay view=0", 1, 0},
    {"mvoverlay view=1", 0, 2},
    /* 0: the second view's disparity, cell (2, 2) 8 px right; the first
     * view has none and draws its first field */
    {"mvoverlay reference=0", 1, 3},
    {"mvoverlay view=1 reference=0", 0, 3},
    /* no field against -2 in either view: each view's first */
    {"mvoverlay reference=-2", 1, 2},
  };
  GstVideoInfo mono, info;
  GstBuffer *right = mono_drawing ("mvoverlay", &mono, 1, 1, -32, 0);
  GstBuffer *down = mono_drawing ("mvoverlay", &mono, 1, 1, 0, -32);
  GstBuffer *disparity = mono_drawing ("mvoverlay", &mono, 2, 2, -32, 0);
  GstBuffer *grey = make_grey_buffer (GST_VIDEO_FORMAT_I420, &mono);
  GstBuffer *const drawn[] = { grey, right, down, disparity };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstBuffer *in = make_grey_frame (&info, 128, 64,
        GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE);
    GstBuffer *out;

    add_stereo_fields (in, TRUE);
    out = run_overlay (cases[i].launch, &info, in);
    assert_area_is (&info, out, 0, 0, &mono, drawn[cases[i].left]);
    assert_area_is (&info, out, 64, 0, &mono, drawn[cases[i].right]);
    gst_buffer_unref (out);
  }
  /* the drawings compared with: the arrows at their places */
  assert_arrow_right (&mono, right);
  assert_arrow_down (&mono, down);
  fail_if (pixel_is_grey (&mono, disparity, 45, 40));
  assert_region_grey (&mono, disparity, 0, 0, W, 36);
  for (i = 0; i < G_N_ELEMENTS (drawn); i++)
    gst_buffer_unref (drawn[i]);
}

GST_END_TEST;

GST_START_TEST (test_overlay_stereo_top_bottom)
{
  /* 64x128 top-bottom: the second view in the bottom half; an odd last
   * row (64x129) belongs to neither view and stays untouched. */
  GstVideoInfo mono, info;
  GstBuffer *right = mono_drawing ("mvoverlay grid=true", &mono, 1, 1, -32,
      0);
  GstBuffer *down = mono_drawing ("mvoverlay grid=true", &mono, 1, 1, 0, -32);
  GstBuffer *in = make_grey_frame (&info, 64, 129,
      GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM);
  GstBuffer *out;

  add_stereo_fields (in, TRUE);
  out = run_overlay ("mvoverlay grid=true", &info, in);
  assert_area_is (&info, out, 0, 0, &mono, right);
  assert_area_is (&info, out, 0, 64, &mono, down);
  assert_region_grey (&info, out, 0, 128, 64, 129);
  /* the grid's lines at the second view's own block edges */
  fail_if (pixel_is_grey (&info, out, 5, 64 + 16));
  fail_unless (pixel_is_grey (&info, out, 5, 64 + 17));
  gst_buffer_unref (out);
  gst_buffer_unref (right);
  gst_buffer_unref (down);
}

GST_END_TEST;

GST_START_TEST (test_overlay_stereo_frame_by_frame)
{
  /* frame-by-frame: the buffer is one view, drawn over the whole frame;
   * view=0 leaves the second view's buffers untouched */
  GstVideoInfo mono, info;
  GstBuffer *down = mono_drawing ("mvoverlay", &mono, 1, 1, 0, -32);
  GstBuffer *disparity = mono_drawing ("mvoverlay", &mono, 2, 2, -32, 0);
  GstBuffer *grey = make_grey_buffer (GST_VIDEO_FORMAT_I420, &mono);
  static const gchar *const launches[] = {
    "mvoverlay", "mvoverlay view=1", "mvoverlay reference=0",
    "mvoverlay view=0",
  };
  GstBuffer *const want[] = { down, down, disparity, grey };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (launches); i++) {
    GstBuffer *in = make_grey_frame (&info, 64, 64,
        GST_VIDEO_MULTIVIEW_MODE_FRAME_BY_FRAME);
    GstBuffer *out;

    add_stereo_fields (in, FALSE);
    out = run_overlay (launches[i], &info, in);
    assert_area_is (&info, out, 0, 0, &mono, want[i]);
    gst_buffer_unref (out);
  }
  /* the first view's buffer with view=1: nothing of that view */
  {
    GstBuffer *in = make_grey_frame (&info, 64, 64,
        GST_VIDEO_MULTIVIEW_MODE_FRAME_BY_FRAME);
    GstBuffer *out;

    add_meta (in, GST_MOTION_VECTOR_PARTITIONS_16X16,
        GST_MOTION_VECTOR_PARTITION_16X16, 1, 1, -32, 0, 500);
    out = run_overlay ("mvoverlay view=1", &info, in);
    assert_area_is (&info, out, 0, 0, &mono, grey);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (down);
  gst_buffer_unref (disparity);
  gst_buffer_unref (grey);
}

GST_END_TEST;

static Suite *
mvtools_suite (void)
{
  Suite *s = suite_create ("mvtools");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_overlay_arrow_i420);
  tcase_add_test (tc, test_overlay_gap_buffers);
  tcase_add_test (tc, test_overlay_controlled_scale);
  tcase_add_test (tc, test_overlay_reference);
  tcase_add_test (tc, test_overlay_reference_fallback_first);
  tcase_add_test (tc, test_overlay_reference_controlled);
  tcase_add_test (tc, test_overlay_arrow_rgba);
  tcase_add_test (tc, test_overlay_arrow_packed_422);
  tcase_add_test (tc, test_overlay_arrow_gray8);
  tcase_add_test (tc, test_overlay_arrow_deep);
  tcase_add_test (tc, test_overlay_deep_layout);
  tcase_add_test (tc, test_overlay_blend_deep);
  tcase_add_test (tc, test_overlay_deep_everything_in_range);
  tcase_add_test (tc, test_overlay_deep_uv_plane_short);
  tcase_add_test (tc, test_overlay_arrow_clipped);
  tcase_add_test (tc, test_overlay_direction_backward);
  tcase_add_test (tc, test_overlay_max_magnitude);
  tcase_add_test (tc, test_overlay_no_meta_passthrough);
  tcase_add_test (tc, test_overlay_flow);
  tcase_add_test (tc, test_overlay_cost);
  tcase_add_test (tc, test_overlay_partition_fallback);
  tcase_add_test (tc, test_overlay_mvd);
  tcase_add_test (tc, test_overlay_min_magnitude);
  tcase_add_test (tc, test_overlay_grid);
  tcase_add_test (tc, test_overlay_legend);
  tcase_add_test (tc, test_overlay_video_meta_out_of_bounds);
  tcase_add_test (tc, test_overlay_video_meta_across_memories);
  tcase_add_test (tc, test_overlay_video_meta_chroma_out_of_bounds);
  tcase_add_test (tc, test_overlay_video_meta_wrong_format);
  tcase_add_test (tc, test_overlay_video_meta_too_large);
  tcase_add_test (tc, test_overlay_video_meta_negative_stride);
  tcase_add_test (tc, test_overlay_inconsistent_meta);
  tcase_add_test (tc, test_overlay_no_count_value);
  tcase_add_test (tc, test_overlay_chosen);
  tcase_add_test (tc, test_overlay_chosen_cost);
  tcase_add_test (tc, test_overlay_reference_colors);
  tcase_add_test (tc, test_overlay_chosen_reference_vectors);
  tcase_add_test (tc, test_overlay_reference_legend);
  tcase_add_test (tc, test_overlay_reference_unfit_field);
  tcase_add_test (tc, test_overlay_reference_other_view);
  tcase_add_test (tc, test_overlay_stereo_side_by_side);
  tcase_add_test (tc, test_overlay_stereo_top_bottom);
  tcase_add_test (tc, test_overlay_stereo_frame_by_frame);
  tcase_add_test (tc, test_export_chosen_refs_jsonl);
  tcase_add_test (tc, test_export_chosen_refs_csv);
  tcase_add_test (tc, test_export_stereo_jsonl);
  tcase_add_test (tc, test_export_stereo_csv);
  tcase_add_test (tc, test_export_jsonl);
  tcase_add_test (tc, test_export_two_shapes);
  tcase_add_test (tc, test_export_partitions);
  tcase_add_test (tc, test_export_modes_jsonl);
  tcase_add_test (tc, test_export_modes_csv);
  tcase_add_test (tc, test_export_several_refs_jsonl);
  tcase_add_test (tc, test_export_several_refs_csv);
  tcase_add_test (tc, test_export_several_refs_summary_csv);
  tcase_add_test (tc, test_export_several_refs_inconsistent);
  tcase_add_test (tc, test_export_csv);
  tcase_add_test (tc, test_export_stabilization_jsonl);
  tcase_add_test (tc, test_export_stabilization_csv);
  tcase_add_test (tc, test_export_large_times);
  tcase_add_test (tc, test_export_unwritable);
  tcase_add_test (tc, test_export_inconsistent_meta);
  tcase_add_test (tc, test_export_stop_without_eos);
  tcase_add_test (tc, test_export_write_error);
  tcase_add_test (tc, test_export_close_error);
  tcase_add_test (tc, test_export_location_changed_while_playing);
  return s;
}

GST_CHECK_MAIN (mvtools);
