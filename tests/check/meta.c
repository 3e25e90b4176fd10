/* gpumotionest — tests of the GstMotionVectorMeta library: layout, adding
 * and reading, buffer copies, rescaling (direct and through a real
 * videoconvertscale / videoscale element) and AVMotionVector export. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* dladdr() */
#endif
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/motionvectors/gstmotionvectormeta.h>

/* Cells per macroblock of each shape, across and down, written out here
 * rather than taken from the library's helpers. */
static const guint cells_across[GST_MOTION_VECTOR_PARTITION_COUNT] =
    { 1, 1, 2, 2, 2, 4, 4 };
static const guint cells_down[GST_MOTION_VECTOR_PARTITION_COUNT] =
    { 1, 2, 1, 2, 4, 2, 4 };

/* A cell whose every field is a distinct function of where it is. */
static GstMotionVectorCell
pattern_cell (guint p, guint c, guint r)
{
  GstMotionVectorCell cell;

  cell.mv_x = (gint16) (4 * ((gint) c - (gint) r) + (gint) p - 3);
  cell.mv_y = (gint16) (-3 * (gint) r + (gint) (c % 5) - 2 * (gint) p + 1);
  cell.cost = 1000u * p + 37u * c + r;
  cell.pred_x = (gint16) ((gint) c % 7 - 3);
  cell.pred_y = (gint16) (2 - (gint) r % 5);
  cell.mvd_x = cell.mv_x - cell.pred_x;
  cell.mvd_y = cell.mv_y - cell.pred_y;
  return cell;
}

/* The cells of every shape of @parts over a @w x @h frame, filled with
 * pattern_cell(), laid out as gst_motion_vector_layout() says. */
static GBytes *
make_field (guint w, guint h, GstMotionVectorPartitionFlags parts)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint n = gst_motion_vector_layout (w, h, parts, grids);
  GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, MAX (n, 1));
  guint p, c, r;

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!(parts & (1u << p)))
      continue;
    for (r = 0; r < grids[p].rows; r++)
      for (c = 0; c < grids[p].cols; c++)
        cells[grids[p].offset + r * grids[p].cols + c] = pattern_cell (p, c, r);
  }
  return g_bytes_new_take (cells, (gsize) n * sizeof (GstMotionVectorCell));
}

static gboolean
cell_equal (const GstMotionVectorCell * a, const GstMotionVectorCell * b)
{
  return memcmp (a, b, sizeof (*a)) == 0;
}

/* ---- layout ------------------------------------------------------------- */

static void
check_layout (guint w, guint h, GstMotionVectorPartitionFlags parts,
    guint mb_cols, guint mb_rows, guint expected_total)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint total, next = 0, p;

  memset (grids, 0xab, sizeof (grids));
  total = gst_motion_vector_layout (w, h, parts, grids);

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (parts & (1u << p)) {
      fail_unless_equals_int (grids[p].cols, mb_cols * cells_across[p]);
      fail_unless_equals_int (grids[p].rows, mb_rows * cells_down[p]);
      fail_unless_equals_int (grids[p].offset, next);
      next += grids[p].cols * grids[p].rows;
    } else {
      fail_unless_equals_int (grids[p].cols, 0);
      fail_unless_equals_int (grids[p].rows, 0);
      fail_unless_equals_int (grids[p].offset, 0);
    }
  }
  fail_unless_equals_int (total, next);
  if (expected_total)
    fail_unless_equals_int (total, expected_total);
}

GST_START_TEST (test_layout_sizes)
{
  /* 41 cells per macroblock with all seven shapes: 1+2+2+4+8+8+16. */
  check_layout (1, 1, GST_MOTION_VECTOR_PARTITIONS_ALL, 1, 1, 41);
  check_layout (16, 16, GST_MOTION_VECTOR_PARTITIONS_ALL, 1, 1, 41);
  check_layout (17, 9, GST_MOTION_VECTOR_PARTITIONS_ALL, 2, 1, 82);
  check_layout (17, 9, GST_MOTION_VECTOR_PARTITIONS_16X16, 2, 1, 2);
  check_layout (1920, 1080, GST_MOTION_VECTOR_PARTITIONS_ALL, 120, 68,
      120 * 68 * 41);
  check_layout (1920, 1080, GST_MOTION_VECTOR_PARTITIONS_4X4, 120, 68,
      480 * 272);
  check_layout (1920, 1080,
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_8X8,
      120, 68, 120 * 68 * 5);
  check_layout (8192, 8192, GST_MOTION_VECTOR_PARTITIONS_ALL, 512, 512,
      512 * 512 * 41);
}

GST_END_TEST;

GST_START_TEST (test_layout_all_masks)
{
  guint mask;

  /* 40x20 is 3x2 macroblocks. */
  for (mask = 0; mask <= GST_MOTION_VECTOR_PARTITIONS_ALL; mask++) {
    guint expected = 0, p;

    for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      if (mask & (1u << p))
        expected += 6 * cells_across[p] * cells_down[p];
    check_layout (40, 20, mask, 3, 2, expected);
  }
}

GST_END_TEST;

/* ---- add / get ------------------------------------------------------------ */

GST_START_TEST (test_add_get)
{
  const GstMotionVectorPartitionFlags parts =
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_8X4 |
      GST_MOTION_VECTOR_PARTITIONS_4X4;
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  GstBuffer *buf = gst_buffer_new ();
  GBytes *data = make_field (40, 20, parts);
  GstMotionVectorMeta *meta, *got;
  guint p, c, r;

  fail_unless (gst_buffer_get_motion_vector_meta (buf) == NULL);
  meta = gst_buffer_add_motion_vector_meta (buf, 40, 20, parts, data);
  fail_unless (meta != NULL);
  got = gst_buffer_get_motion_vector_meta (buf);
  fail_unless (got == meta);

  fail_unless_equals_int (meta->width, 40);
  fail_unless_equals_int (meta->height, 20);
  fail_unless_equals_int (meta->analysis_width, 40);
  fail_unless_equals_int (meta->analysis_height, 20);
  fail_unless_equals_int (meta->partitions, parts);
  /* Defaults from init, for the caller to overwrite. */
  fail_unless_equals_int (meta->ref_distance, -1);
  fail_unless_equals_uint64 (meta->ref_pts, GST_CLOCK_TIME_NONE);
  fail_unless_equals_int (meta->flags, GST_MOTION_VECTOR_META_FLAG_NONE);
  fail_unless_equals_int (meta->search_range, 0);
  fail_unless (meta->data == data);     /* the meta holds a reference */
  gst_motion_vector_layout (40, 20, parts, grids);
  fail_unless (memcmp (meta->grids, grids, sizeof (grids)) == 0);

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    const GstMotionVectorCell *grid;
    guint cols = 99, rows = 99;
    GBytes *gb;

    grid = gst_motion_vector_meta_get_grid (meta, p, &cols, &rows);
    gb = gst_motion_vector_meta_get_grid_bytes (meta, p, NULL, NULL);
    if (!(parts & (1u << p))) {
      fail_unless (grid == NULL);
      fail_unless (gb == NULL);
      fail_unless_equals_int (cols, 0);
      fail_unless_equals_int (rows, 0);
      fail_unless (gst_motion_vector_meta_get_cell (meta, p, 0, 0) == NULL);
      continue;
    }
    fail_unless_equals_int (cols, 3 * cells_across[p]);
    fail_unless_equals_int (rows, 2 * cells_down[p]);
    fail_unless_equals_int (g_bytes_get_size (gb),
        cols * rows * sizeof (GstMotionVectorCell));
    fail_unless (g_bytes_get_data (gb, NULL) == (gconstpointer) grid);

    for (r = 0; r < rows; r++) {
      for (c = 0; c < cols; c++) {
        GstMotionVectorCell want = pattern_cell (p, c, r);
        const GstMotionVectorCell *cell =
            gst_motion_vector_meta_get_cell (meta, p, c, r);

        fail_unless (cell == &grid[r * cols + c]);
        fail_unless (cell_equal (cell, &want), "shape %u cell (%u, %u)", p, c,
            r);
        fail_unless (cell_equal ((const GstMotionVectorCell *)
                g_bytes_get_data (gb, NULL) + r * cols + c, &want));
      }
    }
    g_bytes_unref (gb);
  }

  gst_buffer_unref (buf);
  /* The meta dropped its reference: ours is the last one. */
  fail_unless (g_bytes_get_size (data) > 0);
  g_bytes_unref (data);
}

GST_END_TEST;

GST_START_TEST (test_add_wrong_size)
{
  GstBuffer *buf = gst_buffer_new ();
  GBytes *short_data = g_bytes_new_take (g_malloc0 (15), 15);
  GBytes *long_data = g_bytes_new_take (g_malloc0 (32), 32);
  GBytes *good = g_bytes_new_take (g_malloc0 (16), 16);

  /* Out-of-range arguments are refused with NULL and no CRITICAL (gst-check
   * fails the test on any unexpected CRITICAL). */
  /* 16x16 alone over one macroblock is exactly one 16-byte cell. */
  fail_unless (gst_buffer_add_motion_vector_meta (buf, 16, 16,
          GST_MOTION_VECTOR_PARTITIONS_16X16, short_data) == NULL);
  fail_unless (gst_buffer_add_motion_vector_meta (buf, 16, 16,
          GST_MOTION_VECTOR_PARTITIONS_16X16, long_data) == NULL);
  /* 17 pixels wide is two macroblocks: 16 bytes is too few. */
  fail_unless (gst_buffer_add_motion_vector_meta (buf, 17, 16,
          GST_MOTION_VECTOR_PARTITIONS_16X16, good) == NULL);
  fail_unless (gst_buffer_add_motion_vector_meta (buf, 0, 16,
          GST_MOTION_VECTOR_PARTITIONS_16X16, good) == NULL);
  fail_unless (gst_buffer_get_motion_vector_meta (buf) == NULL);
  /* A NULL buffer or data is a programming error. */
  ASSERT_CRITICAL (gst_buffer_add_motion_vector_meta (buf, 16, 16,
          GST_MOTION_VECTOR_PARTITIONS_16X16, NULL));

  fail_unless (gst_buffer_add_motion_vector_meta (buf, 16, 16,
          GST_MOTION_VECTOR_PARTITIONS_16X16, good) != NULL);

  gst_buffer_unref (buf);
  g_bytes_unref (short_data);
  g_bytes_unref (long_data);
  g_bytes_unref (good);
}

GST_END_TEST;

/* The cell count of a layout computed in unchecked 32-bit arithmetic:
 * wraps around for sizes far beyond the limits. */
static guint
wrapped_cells (guint w, guint h, guint parts)
{
  guint mb_cols = (w + 15) / 16, mb_rows = (h + 15) / 16, total = 0, p;

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if (parts & (1u << p))
      total += mb_cols * cells_across[p] * mb_rows * cells_down[p];
  return total;
}

GST_START_TEST (test_add_out_of_range)
{
  static const struct
  {
    guint w, h, parts;
  } bad[] = {
    {8193, 16, GST_MOTION_VECTOR_PARTITIONS_16X16},
    {16, 8193, GST_MOTION_VECTOR_PARTITIONS_16X16},
    {16, 0, GST_MOTION_VECTOR_PARTITIONS_16X16},
    /* (G_MAXUINT + 15) / 16 wraps to 0 macroblocks in 32 bits */
    {G_MAXUINT, 16, GST_MOTION_VECTOR_PARTITIONS_16X16},
    {G_MAXUINT, G_MAXUINT, GST_MOTION_VECTOR_PARTITIONS_ALL},
    {1u << 28, 1u << 28, GST_MOTION_VECTOR_PARTITIONS_4X4},
    {16, 16, 0},
    {16, 16, 0x80},
    {16, 16, GST_MOTION_VECTOR_PARTITIONS_16X16 | 0x100},
  };
  GstBuffer *buf = gst_buffer_new ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    /* Data of the size that unchecked 32-bit arithmetic gives, and of one
     * cell: neither may get the meta attached. */
    guint n = wrapped_cells (bad[i].w, bad[i].h, bad[i].parts);
    GBytes *wrapped = g_bytes_new_take (g_malloc0 ((gsize) n * 16 + 1),
        (gsize) n * 16);
    GBytes *one = g_bytes_new_take (g_malloc0 (16), 16);

    fail_unless (n < (1u << 20));
    fail_unless (gst_buffer_add_motion_vector_meta (buf, bad[i].w, bad[i].h,
            bad[i].parts, wrapped) == NULL, "case %u accepted", i);
    fail_unless (gst_buffer_add_motion_vector_meta (buf, bad[i].w, bad[i].h,
            bad[i].parts, one) == NULL, "case %u accepted", i);
    g_bytes_unref (wrapped);
    g_bytes_unref (one);
  }
  fail_unless (gst_buffer_get_motion_vector_meta (buf) == NULL);

  /* The limits themselves are fine: 8192 x 1 and 1 x 8192. */
  for (i = 0; i < 2; i++) {
    guint w = i ? 1 : 8192, h = i ? 8192 : 1;
    GBytes *data = make_field (w, h, GST_MOTION_VECTOR_PARTITIONS_16X16);
    GstBuffer *b = gst_buffer_new ();

    fail_unless_equals_int (g_bytes_get_size (data), 512 * 16);
    fail_unless (gst_buffer_add_motion_vector_meta (b, w, h,
            GST_MOTION_VECTOR_PARTITIONS_16X16, data) != NULL);
    gst_buffer_unref (b);
    g_bytes_unref (data);
  }
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_layout_out_of_range)
{
  static const guint sizes[][2] = {
    {0, 16}, {16, 0}, {8193, 16}, {16, 8193}, {G_MAXUINT, G_MAXUINT},
    {G_MAXUINT - 14, 16}, {1u << 28, 1u << 28}, {1u << 20, 1u << 20},
  };
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint i, p, cols, rows, offset;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    memset (grids, 0xab, sizeof (grids));
    fail_unless_equals_int (gst_motion_vector_layout (sizes[i][0],
            sizes[i][1], GST_MOTION_VECTOR_PARTITIONS_ALL, grids), 0);
    for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
      fail_unless_equals_int (grids[p].cols, 0);
      fail_unless_equals_int (grids[p].rows, 0);
      fail_unless_equals_int (grids[p].offset, 0);
    }
  }
  /* Unknown shape bits have no layout either. */
  fail_unless_equals_int (gst_motion_vector_layout (16, 16, 0xff, grids), 0);
  fail_unless_equals_int (grids[0].cols, 0);

  /* The per-shape variant gives the same answers. */
  fail_unless_equals_int (gst_motion_vector_layout_grid (40, 20,
          GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_4X4,
          GST_MOTION_VECTOR_PARTITION_4X4, &cols, &rows, &offset),
      6 + 12 * 8);
  fail_unless_equals_int (cols, 12);
  fail_unless_equals_int (rows, 8);
  fail_unless_equals_int (offset, 6);
  fail_unless_equals_int (gst_motion_vector_layout_grid (40, 20,
          GST_MOTION_VECTOR_PARTITIONS_16X16, GST_MOTION_VECTOR_PARTITION_8X8,
          &cols, &rows, &offset), 6);
  fail_unless (cols == 0 && rows == 0 && offset == 0);
  fail_unless_equals_int (gst_motion_vector_layout_grid (G_MAXUINT, 16,
          GST_MOTION_VECTOR_PARTITIONS_ALL, GST_MOTION_VECTOR_PARTITION_16X16,
          &cols, &rows, &offset), 0);
  fail_unless (cols == 0 && rows == 0 && offset == 0);
  fail_unless_equals_int (gst_motion_vector_layout_grid (16, 16,
          GST_MOTION_VECTOR_PARTITIONS_ALL, GST_MOTION_VECTOR_PARTITION_COUNT,
          &cols, &rows, &offset), 41);
  fail_unless (cols == 0 && rows == 0 && offset == 0);
}

GST_END_TEST;

/* ---- inconsistent metas ------------------------------------------------------ */

/* The bytes of @data in a new block, @shift bytes past a malloc'ed start
 * (aligned for any type): shift 1, 2, 3 misaligns the cells. */
static GBytes *
unaligned_copy (GBytes * data, gsize shift)
{
  gsize size;
  const guint8 *src = g_bytes_get_data (data, &size);
  guint8 *block = g_malloc (size + shift);
  GBytes *whole, *part;

  memcpy (block + shift, src, size);
  whole = g_bytes_new_take (block, size + shift);
  part = g_bytes_new_from_bytes (whole, shift, size);
  g_bytes_unref (whole);
  fail_unless_equals_int ((guintptr) g_bytes_get_data (part, NULL) % 4,
      shift % 4);
  return part;
}


/* Every reader of the library on @meta: an inconsistent meta reads as one
 * without any grid; a buffer copy keeps it as it is (inconsistent), a
 * scale does not carry it. */
static void
check_reads_as_absent (GstBuffer * buf, GstMotionVectorMeta * meta,
    const gchar * what)
{
  GstBuffer *copy, *dest;
  GstVideoInfo in_info, out_info;
  GstVideoMetaTransform trans = { &in_info, &out_info };
  guint p, cols, rows, n;

  fail_if (gst_motion_vector_meta_is_valid (meta), "%s: valid", what);
  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    GBytes *gb;

    cols = rows = 99;
    fail_unless (gst_motion_vector_meta_get_grid (meta, p, &cols, &rows)
        == NULL, "%s: grid %u", what, p);
    fail_unless (cols == 0 && rows == 0, "%s", what);
    fail_unless (gst_motion_vector_meta_get_cell (meta, p, 0, 0) == NULL,
        "%s: cell of %u", what, p);
    gb = gst_motion_vector_meta_get_grid_bytes (meta, p, &cols, &rows);
    fail_unless (gb == NULL, "%s: grid bytes %u", what, p);
    n = 99;
    fail_unless (gst_motion_vector_meta_to_av_records (meta, p, &n) == NULL,
        "%s: records of %u", what, p);
    fail_unless_equals_int (n, 0);
  }

  copy = gst_buffer_copy (buf);
  fail_if (gst_motion_vector_meta_is_valid
      (gst_buffer_get_motion_vector_meta (copy)), "%s: copy valid", what);
  fail_unless (gst_motion_vector_meta_get_grid (gst_buffer_get_motion_vector_meta
          (copy), GST_MOTION_VECTOR_PARTITION_16X16, NULL, NULL) == NULL);
  gst_buffer_unref (copy);

  dest = gst_buffer_new ();
  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_I420, 40, 20);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_I420, 80, 40);
  fail_if (meta->meta.info->transform_func (dest, &meta->meta, buf,
          gst_video_meta_transform_scale_get_quark (), &trans),
      "%s: scaled", what);
  fail_unless (gst_buffer_get_motion_vector_meta (dest) == NULL);
  gst_buffer_unref (dest);
}

GST_START_TEST (test_inconsistent_meta)
{
  const GstMotionVectorPartitionFlags parts =
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_8X8;
  GstBuffer *buf = gst_buffer_new ();
  GBytes *data = make_field (40, 20, parts);
  GBytes *shorter = g_bytes_new_from_bytes (data, 0,
      g_bytes_get_size (data) - 16);
  GBytes *unaligned = unaligned_copy (data, 1);
  GstMotionVectorMeta *meta, saved;
  GstMotionVectorAVRecord *rec;
  guint n;

  meta = gst_buffer_add_motion_vector_meta (buf, 40, 20, parts, data);
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  saved = *meta;

  /* Sizes: zero (a division by zero in every scaled reader), huge, or no
   * longer matching the grids. */
  meta->analysis_height = 0;
  check_reads_as_absent (buf, meta, "analysis_height 0");
  *meta = saved;
  meta->analysis_width = 0;
  check_reads_as_absent (buf, meta, "analysis_width 0");
  *meta = saved;
  meta->analysis_width = G_MAXUINT;
  check_reads_as_absent (buf, meta, "analysis_width huge");
  *meta = saved;
  meta->analysis_width = 1u << 20;
  meta->analysis_height = 1u << 20;
  check_reads_as_absent (buf, meta, "analysis size huge");
  *meta = saved;
  meta->analysis_width = 80;    /* grids laid out for 40 */
  check_reads_as_absent (buf, meta, "analysis_width changed");
  *meta = saved;
  meta->width = 0;
  check_reads_as_absent (buf, meta, "width 0");
  *meta = saved;
  /* A field is searched against another frame: 0 names the frame itself,
   * and readers would take it for a future reference (AV records). */
  meta->ref_distance = 0;
  check_reads_as_absent (buf, meta, "ref_distance 0");
  *meta = saved;
  meta->height = 0;
  check_reads_as_absent (buf, meta, "height 0");
  *meta = saved;

  /* Shapes that the data does not hold, none, or unknown ones. */
  meta->partitions |= GST_MOTION_VECTOR_PARTITIONS_4X4;
  check_reads_as_absent (buf, meta, "4x4 added");
  *meta = saved;
  meta->partitions = GST_MOTION_VECTOR_PARTITIONS_4X4;
  check_reads_as_absent (buf, meta, "partitions replaced");
  *meta = saved;
  meta->partitions = 0;
  check_reads_as_absent (buf, meta, "no partitions");
  *meta = saved;
  meta->partitions |= 0x80;
  check_reads_as_absent (buf, meta, "unknown partition bit");
  *meta = saved;

  /* Grids pointing elsewhere. */
  meta->grids[GST_MOTION_VECTOR_PARTITION_8X8].rows = 1000;
  check_reads_as_absent (buf, meta, "rows");
  *meta = saved;
  meta->grids[GST_MOTION_VECTOR_PARTITION_8X8].offset = G_MAXUINT - 3;
  check_reads_as_absent (buf, meta, "offset");
  *meta = saved;
  meta->grids[GST_MOTION_VECTOR_PARTITION_4X4].cols = 5;
  check_reads_as_absent (buf, meta, "absent grid not zero");
  *meta = saved;

  /* Data of the wrong size, none, or the right cells one byte off their
   * alignment (the accessors point into the data). */
  meta->data = shorter;
  check_reads_as_absent (buf, meta, "short data");
  meta->data = NULL;
  check_reads_as_absent (buf, meta, "no data");
  meta->data = unaligned;
  check_reads_as_absent (buf, meta, "unaligned data");
  *meta = saved;

  /* Fields nothing indexes or divides by take any value (but the
   * has-modes flag, which must agree with the modes: see
   * test_modes_inconsistent). */
  meta->search_range = G_MAXUINT;
  meta->method = 77;
  meta->flags = 0xff & ~(GST_MOTION_VECTOR_META_FLAG_HAS_MODES
      | GST_MOTION_VECTOR_META_FLAG_INTER_VIEW);
  meta->ref_distance = G_MININT;
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  /* an inter-view field's distance is 0, and only its */
  meta->flags |= GST_MOTION_VECTOR_META_FLAG_INTER_VIEW;
  fail_if (gst_motion_vector_meta_is_valid (meta));
  meta->ref_distance = 0;
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  meta->flags &= ~GST_MOTION_VECTOR_META_FLAG_INTER_VIEW;
  fail_if (gst_motion_vector_meta_is_valid (meta));
  meta->ref_distance = G_MININT;
  rec = gst_motion_vector_meta_to_av_records (meta,
      GST_MOTION_VECTOR_PARTITION_16X16, &n);
  fail_unless (rec != NULL);
  fail_unless_equals_int (n, 6);
  g_free (rec);
  /* A cell outside the grid is NULL, without a CRITICAL. */
  fail_unless (gst_motion_vector_meta_get_cell (meta,
          GST_MOTION_VECTOR_PARTITION_16X16, 3, 0) == NULL);
  fail_unless (gst_motion_vector_meta_get_cell (meta,
          GST_MOTION_VECTOR_PARTITION_16X16, 0, G_MAXUINT) == NULL);
  fail_unless (gst_motion_vector_meta_get_cell (meta,
          GST_MOTION_VECTOR_PARTITION_16X16, 2, 1) != NULL);

  gst_buffer_unref (buf);
  g_bytes_unref (shorter);
  g_bytes_unref (unaligned);
  g_bytes_unref (data);
}

GST_END_TEST;

/* Cells must start at a multiple of their alignment: the accessors point
 * into the data.  A sub-range that does not is refused like a wrong size;
 * one that does is taken as it is, without a copy. */
GST_START_TEST (test_add_unaligned)
{
  GBytes *data = make_field (40, 20, GST_MOTION_VECTOR_PARTITIONS_16X16);
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorMeta *meta;
  guint shift;

  fail_unless_equals_int (G_ALIGNOF (GstMotionVectorCell), 4);
  for (shift = 1; shift < 4; shift++) {
    GBytes *off = unaligned_copy (data, shift);

    fail_unless (gst_buffer_add_motion_vector_meta (buf, 40, 20,
            GST_MOTION_VECTOR_PARTITIONS_16X16, off) == NULL,
        "data %u bytes off accepted", shift);
    g_bytes_unref (off);
  }
  fail_unless (gst_buffer_get_motion_vector_meta (buf) == NULL);

  {
    GBytes *off = unaligned_copy (data, 4);
    const GstMotionVectorCell *cell;

    meta = gst_buffer_add_motion_vector_meta (buf, 40, 20,
        GST_MOTION_VECTOR_PARTITIONS_16X16, off);
    fail_unless (meta != NULL);
    fail_unless (meta->data == off);
    cell = gst_motion_vector_meta_get_cell (meta,
        GST_MOTION_VECTOR_PARTITION_16X16, 2, 1);
    fail_unless (cell != NULL);
    fail_unless (memcmp (cell, (const guint8 *) g_bytes_get_data (data, NULL)
            + 5 * sizeof (GstMotionVectorCell), sizeof (*cell)) == 0);
    g_bytes_unref (off);
  }
  gst_buffer_unref (buf);
  g_bytes_unref (data);
}

GST_END_TEST;

GST_START_TEST (test_partition_enum_values)
{
  /* The enum's GType lists the seven shapes only: "count" is not a shape
   * and must not be accepted where a shape is asked for. */
  GEnumClass *klass = g_type_class_ref (GST_TYPE_MOTION_VECTOR_PARTITION);

  fail_unless_equals_int (klass->n_values, GST_MOTION_VECTOR_PARTITION_COUNT);
  fail_unless (g_enum_get_value_by_nick (klass, "count") == NULL);
  fail_unless (g_enum_get_value (klass, GST_MOTION_VECTOR_PARTITION_COUNT)
      == NULL);
  fail_unless (g_enum_get_value_by_nick (klass, "4x4") != NULL);
  g_type_class_unref (klass);
}

GST_END_TEST;

/* ---- copy ------------------------------------------------------------------ */

GST_START_TEST (test_copy_shares_bytes)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64, NULL);
  GBytes *data = make_field (17, 9, GST_MOTION_VECTOR_PARTITIONS_ALL);
  GstMotionVectorMeta *meta, *cmeta;
  GstMotionVectorCell want;
  GstBuffer *copy;

  meta = gst_buffer_add_motion_vector_meta (buf, 17, 9,
      GST_MOTION_VECTOR_PARTITIONS_ALL, data);
  meta->ref_distance = -2;
  meta->ref_pts = 40 * GST_MSECOND;
  meta->flags = GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE;
  meta->search_range = 24;

  copy = gst_buffer_copy (buf);
  cmeta = gst_buffer_get_motion_vector_meta (copy);
  fail_unless (cmeta != NULL);
  fail_unless (cmeta != meta);
  fail_unless (cmeta->data == meta->data);      /* shared, not copied */
  fail_unless_equals_int (cmeta->width, 17);
  fail_unless_equals_int (cmeta->height, 9);
  fail_unless_equals_int (cmeta->analysis_width, 17);
  fail_unless_equals_int (cmeta->analysis_height, 9);
  fail_unless_equals_int (cmeta->ref_distance, -2);
  fail_unless_equals_uint64 (cmeta->ref_pts, 40 * GST_MSECOND);
  fail_unless_equals_int (cmeta->flags,
      GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
  fail_unless_equals_int (cmeta->search_range, 24);
  fail_unless_equals_int (cmeta->partitions, GST_MOTION_VECTOR_PARTITIONS_ALL);
  fail_unless (memcmp (cmeta->grids, meta->grids, sizeof (meta->grids)) == 0);

  /* The copy outlives the original. */
  gst_buffer_unref (buf);
  want = pattern_cell (GST_MOTION_VECTOR_PARTITION_4X4, 3, 2);
  fail_unless (cell_equal (gst_motion_vector_meta_get_cell (cmeta,
              GST_MOTION_VECTOR_PARTITION_4X4, 3, 2), &want));
  gst_buffer_unref (copy);
  g_bytes_unref (data);
}

GST_END_TEST;

/* ---- several references ------------------------------------------------------ */

/* The fields of a buffer searched against three references, as
 * gpumotionest with references=-1,-2,+1 attaches them near a stream's end
 * (the next frame does not exist): each with its own shapes, so that a
 * field read in another's place shows in its partitions. */
static const struct
{
  gint ref_distance;
  GstClockTime ref_pts;
  GstMotionVectorMetaFlags flags;
  GstMotionVectorPartitionFlags parts;
} three_refs[] = {
  {-1, 40 * GST_MSECOND, 0, GST_MOTION_VECTOR_PARTITIONS_ALL},
  {-2, 0, 0, GST_MOTION_VECTOR_PARTITIONS_16X16 |
        GST_MOTION_VECTOR_PARTITIONS_8X8},
  {1, GST_CLOCK_TIME_NONE, GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE,
      GST_MOTION_VECTOR_PARTITIONS_4X4},
};

/* Attaches the fields of three_refs to @buf, @w x @h, in that order. */
static void
add_three_refs (GstBuffer * buf, guint w, guint h)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (three_refs); i++) {
    GBytes *data = make_field (w, h, three_refs[i].parts);
    GstMotionVectorMeta *meta = gst_buffer_add_motion_vector_meta (buf, w, h,
        three_refs[i].parts, data);

    fail_unless (meta != NULL);
    meta->ref_distance = three_refs[i].ref_distance;
    meta->ref_pts = three_refs[i].ref_pts;
    meta->flags = three_refs[i].flags;
    meta->search_range = 8 * (i + 1);
    g_bytes_unref (data);
  }
}

/* @meta is field @i of three_refs. */
static void
check_ref_field (const GstMotionVectorMeta * meta, guint i)
{
  fail_unless (meta != NULL, "field %u missing", i);
  fail_unless_equals_int (meta->ref_distance, three_refs[i].ref_distance);
  fail_unless_equals_uint64 (meta->ref_pts, three_refs[i].ref_pts);
  fail_unless_equals_int (meta->flags, three_refs[i].flags);
  fail_unless_equals_int (meta->partitions, three_refs[i].parts);
  fail_unless_equals_int (meta->search_range, 8 * (i + 1));
}

GST_START_TEST (test_several_refs_get)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorMeta *metas[3];
  GBytes *data;
  guint i;

  fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (buf), 0);
  fail_unless (gst_buffer_get_motion_vector_meta_nth (buf, 0) == NULL);
  fail_unless (gst_buffer_get_motion_vector_meta_for_reference (buf, -1)
      == NULL);

  add_three_refs (buf, 40, 20);
  fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (buf), 3);
  /* nth follows the order the fields were added in */
  for (i = 0; i < 3; i++) {
    metas[i] = gst_buffer_get_motion_vector_meta_nth (buf, i);
    check_ref_field (metas[i], i);
  }
  fail_unless (gst_buffer_get_motion_vector_meta_nth (buf, 3) == NULL);
  fail_unless (gst_buffer_get_motion_vector_meta_nth (buf, G_MAXUINT)
      == NULL);
  /* the first one added, whatever its distance */
  fail_unless (gst_buffer_get_motion_vector_meta (buf) == metas[0]);

  fail_unless (gst_buffer_get_motion_vector_meta_for_reference (buf, -1)
      == metas[0]);
  fail_unless (gst_buffer_get_motion_vector_meta_for_reference (buf, -2)
      == metas[1]);
  /* a reference that did not exist still has its field, flagged */
  fail_unless (gst_buffer_get_motion_vector_meta_for_reference (buf, 1)
      == metas[2]);
  fail_unless (gst_buffer_get_motion_vector_meta_for_reference (buf, -3)
      == NULL);
  fail_unless (gst_buffer_get_motion_vector_meta_for_reference (buf, 2)
      == NULL);
  fail_unless (gst_buffer_get_motion_vector_meta_for_reference (buf, 0)
      == NULL);

  /* Two fields against one reference (another producer's): the first. */
  data = make_field (40, 20, GST_MOTION_VECTOR_PARTITIONS_8X4);
  metas[0] = gst_buffer_add_motion_vector_meta (buf, 40, 20,
      GST_MOTION_VECTOR_PARTITIONS_8X4, data);
  metas[0]->ref_distance = -2;
  g_bytes_unref (data);
  fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (buf), 4);
  fail_unless (gst_buffer_get_motion_vector_meta_nth (buf, 3) == metas[0]);
  fail_unless (gst_buffer_get_motion_vector_meta_for_reference (buf, -2)
      == metas[1]);

  /* Removing a field closes the gap. */
  fail_unless (gst_buffer_remove_meta (buf, &metas[1]->meta));
  fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (buf), 3);
  check_ref_field (gst_buffer_get_motion_vector_meta_nth (buf, 1), 2);
  fail_unless (gst_buffer_get_motion_vector_meta_for_reference (buf, -2)
      == metas[0]);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_several_refs_copy)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64, NULL);
  GstBuffer *copy, *copy2;
  guint i;

  add_three_refs (buf, 40, 20);
  copy = gst_buffer_copy (buf);
  /* a copy of a copy: the order must survive any number of them */
  copy2 = gst_buffer_copy_deep (copy);
  fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (copy), 3);
  fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (copy2), 3);
  for (i = 0; i < 3; i++) {
    GstMotionVectorMeta *orig = gst_buffer_get_motion_vector_meta_nth (buf, i);
    GstMotionVectorMeta *c = gst_buffer_get_motion_vector_meta_nth (copy, i);
    GstMotionVectorMeta *c2 = gst_buffer_get_motion_vector_meta_nth (copy2,
        i);

    check_ref_field (c, i);
    check_ref_field (c2, i);
    fail_unless (c != orig && c2 != c);
    fail_unless (c->data == orig->data && c2->data == orig->data);
    fail_unless (gst_buffer_get_motion_vector_meta_for_reference (copy2,
            three_refs[i].ref_distance) == c2);
  }
  fail_unless (gst_buffer_get_motion_vector_meta (copy2) ==
      gst_buffer_get_motion_vector_meta_nth (copy2, 0));
  gst_buffer_unref (copy2);
  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* ---- scaling --------------------------------------------------------------- */

/* The documented rule, written independently of the library: v * out / in
 * rounded to nearest, halves away from zero, clamped to int16. */
static gint
expected_scale (gint v, guint out, guint in)
{
  double x = (double) v * out / in;
  double m = (double) (gint64) ((x < 0 ? -x : x) + 0.5);       /* floor */

  m = x < 0 ? -m : m;
  return (gint) CLAMP (m, G_MININT16, G_MAXINT16);
}

/* Checks that @scaled is @orig with every vector rescaled by
 * (out_w / in_w, out_h / in_h). */
static void
check_scaled_meta (const GstMotionVectorMeta * orig,
    const GstMotionVectorMeta * scaled, guint in_w, guint in_h, guint out_w,
    guint out_h)
{
  gsize n, size, i;
  const GstMotionVectorCell *a, *b;

  fail_unless (scaled->data != orig->data);
  fail_unless_equals_int (scaled->width, out_w);
  fail_unless_equals_int (scaled->height, out_h);
  fail_unless_equals_int (scaled->analysis_width, orig->analysis_width);
  fail_unless_equals_int (scaled->analysis_height, orig->analysis_height);
  fail_unless_equals_int (scaled->partitions, orig->partitions);
  fail_unless_equals_int (scaled->ref_distance, orig->ref_distance);
  fail_unless_equals_int (scaled->search_range, orig->search_range);
  fail_unless (memcmp (scaled->grids, orig->grids, sizeof (orig->grids)) == 0);

  a = g_bytes_get_data (orig->data, &size);
  b = g_bytes_get_data (scaled->data, &n);
  fail_unless_equals_int (n, size);
  n /= sizeof (GstMotionVectorCell);
  for (i = 0; i < n; i++) {
    fail_unless_equals_int (b[i].mv_x, expected_scale (a[i].mv_x, out_w, in_w));
    fail_unless_equals_int (b[i].mv_y, expected_scale (a[i].mv_y, out_h, in_h));
    fail_unless_equals_int (b[i].pred_x,
        expected_scale (a[i].pred_x, out_w, in_w));
    fail_unless_equals_int (b[i].pred_y,
        expected_scale (a[i].pred_y, out_h, in_h));
    fail_unless_equals_int (b[i].mvd_x, b[i].mv_x - b[i].pred_x);
    fail_unless_equals_int (b[i].mvd_y, b[i].mv_y - b[i].pred_y);
    fail_unless_equals_int (b[i].cost, a[i].cost);
  }
}

/* Runs the meta's scale transform the way a scaler does, from a
 * @in_w x @in_h I420 frame to @out_w x @out_h. */
static GstMotionVectorMeta *
scale_meta (GstBuffer * src, GstBuffer * dest, guint in_w, guint in_h,
    guint out_w, guint out_h)
{
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (src);
  GstVideoInfo in_info, out_info;
  GstVideoMetaTransform trans = { &in_info, &out_info };

  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_I420, in_w, in_h);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_I420, out_w, out_h);
  fail_unless (meta->meta.info->transform_func (dest, &meta->meta, src,
          gst_video_meta_transform_scale_get_quark (), &trans));
  return gst_buffer_get_motion_vector_meta (dest);
}

GST_START_TEST (test_scale_transform)
{
  static const struct
  {
    guint out_w, out_h;
  } sizes[] = { {128, 64}, {32, 16}, {48, 24}, {96, 8}, {1, 1} };
  GstBuffer *buf = gst_buffer_new ();
  GBytes *data = make_field (64, 32, GST_MOTION_VECTOR_PARTITIONS_ALL);
  GBytes *orig_copy = g_bytes_new (g_bytes_get_data (data, NULL),
      g_bytes_get_size (data));
  GstMotionVectorMeta *meta;
  guint i;

  meta = gst_buffer_add_motion_vector_meta (buf, 64, 32,
      GST_MOTION_VECTOR_PARTITIONS_ALL, data);
  meta->search_range = 16;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    GstBuffer *dest = gst_buffer_new ();
    GstMotionVectorMeta *scaled = scale_meta (buf, dest, 64, 32,
        sizes[i].out_w, sizes[i].out_h);

    fail_unless (scaled != NULL);
    check_scaled_meta (meta, scaled, 64, 32, sizes[i].out_w, sizes[i].out_h);
    gst_buffer_unref (dest);
  }

  /* The original is untouched. */
  fail_unless_equals_int (meta->width, 64);
  fail_unless_equals_int (meta->height, 32);
  fail_unless (meta->data == data);
  fail_unless (g_bytes_equal (data, orig_copy));

  gst_buffer_unref (buf);
  g_bytes_unref (data);
  g_bytes_unref (orig_copy);
}

GST_END_TEST;

GST_START_TEST (test_scale_meta_size_not_frame_size)
{
  /* A meta written at 32x16 on a 64x32 frame (another writer's choice):
   * the vectors are in 32x16 units, so scaling the frame to 128x64 scales
   * them by 4, not by 2, and the meta becomes 128x64 like the frame. */
  GstBuffer *buf = gst_buffer_new (), *dest = gst_buffer_new ();
  GBytes *data = make_field (32, 16, GST_MOTION_VECTOR_PARTITIONS_ALL);
  GstMotionVectorMeta *meta = gst_buffer_add_motion_vector_meta (buf, 32, 16,
      GST_MOTION_VECTOR_PARTITIONS_ALL, data);
  GstMotionVectorMeta *scaled = scale_meta (buf, dest, 64, 32, 128, 64);

  fail_unless (scaled != NULL);
  check_scaled_meta (meta, scaled, 32, 16, 128, 64);
  gst_buffer_unref (dest);
  gst_buffer_unref (buf);
  g_bytes_unref (data);
}

GST_END_TEST;

/* Hand-checked values of the rounding rule, including halves of both signs
 * and clamping. */
GST_START_TEST (test_scale_rounding)
{
  static const struct
  {
    gint16 mv, pred;
    guint in, out;
    gint16 mv_out, pred_out;
  } cases[] = {
    {6, -6, 64, 32, 3, -3},
    {5, -5, 64, 32, 3, -3},     /* 2.5 -> 3, -2.5 -> -3 */
    {1, -1, 64, 32, 1, -1},     /* 0.5 -> 1 */
    {3, -3, 64, 32, 2, -2},     /* 1.5 -> 2 */
    {2, -2, 64, 48, 2, -2},     /* 1.5 -> 2 */
    {5, -7, 64, 48, 4, -5},     /* 3.75 -> 4, -5.25 -> -5 */
    {-12, 8, 64, 128, -24, 16},
    {20000, -20000, 64, 128, G_MAXINT16, G_MININT16},
    {1, 0, 64, 96, 2, 0},       /* 1.5 -> 2 */
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstMotionVectorCell cell = { 0 };
    GstBuffer *buf = gst_buffer_new (), *dest = gst_buffer_new ();
    GstMotionVectorMeta *meta, *scaled;
    GBytes *data;

    cell.mv_x = cell.mv_y = cases[i].mv;
    cell.pred_x = cell.pred_y = cases[i].pred;
    cell.mvd_x = cell.mvd_y = cell.mv_x - cell.pred_x;
    cell.cost = 777;
    data = g_bytes_new (&cell, sizeof (cell));
    /* one macroblock analysed, the vectors in units of the frame's size */
    meta = gst_buffer_add_motion_vector_meta (buf, 16, 16,
        GST_MOTION_VECTOR_PARTITIONS_16X16, data);
    meta->width = meta->height = cases[i].in;

    /* Scale both directions by the same factor. */
    scaled = scale_meta (buf, dest, cases[i].in, cases[i].in, cases[i].out,
        cases[i].out);
    {
      const GstMotionVectorCell *s = gst_motion_vector_meta_get_cell (scaled,
          GST_MOTION_VECTOR_PARTITION_16X16, 0, 0);
      gint mvd = CLAMP ((gint) cases[i].mv_out - cases[i].pred_out,
          G_MININT16, G_MAXINT16);

      fail_unless_equals_int (s->mv_x, cases[i].mv_out);
      fail_unless_equals_int (s->mv_y, cases[i].mv_out);
      fail_unless_equals_int (s->pred_x, cases[i].pred_out);
      fail_unless_equals_int (s->pred_y, cases[i].pred_out);
      fail_unless_equals_int (s->mvd_x, mvd);
      fail_unless_equals_int (s->mvd_y, mvd);
      fail_unless_equals_int (s->cost, 777);
    }
    gst_buffer_unref (dest);
    gst_buffer_unref (buf);
    g_bytes_unref (data);
  }
}

GST_END_TEST;

GST_START_TEST (test_other_transforms_drop)
{
  GstBuffer *buf = gst_buffer_new (), *dest = gst_buffer_new ();
  GBytes *data = make_field (16, 16, GST_MOTION_VECTOR_PARTITIONS_16X16);
  GstMotionVectorMeta *meta = gst_buffer_add_motion_vector_meta (buf, 16, 16,
      GST_MOTION_VECTOR_PARTITIONS_16X16, data);

  fail_unless (!meta->meta.info->transform_func (dest, &meta->meta, buf,
          g_quark_from_static_string ("some-other-transform"), NULL));
  fail_unless (gst_buffer_get_motion_vector_meta (dest) == NULL);

  gst_buffer_unref (dest);
  gst_buffer_unref (buf);
  g_bytes_unref (data);
}

GST_END_TEST;

GST_START_TEST (test_tags)
{
  GType api = GST_MOTION_VECTOR_META_API_TYPE;

  fail_unless (gst_meta_api_type_has_tag (api,
          g_quark_from_string (GST_META_TAG_VIDEO_STR)));
  fail_unless (gst_meta_api_type_has_tag (api,
          g_quark_from_string (GST_META_TAG_VIDEO_SIZE_STR)));
  /* Not orientation: a flip or rotation must drop the vectors, and not
   * colorspace: conversion leaves them valid. */
  fail_if (gst_meta_api_type_has_tag (api,
          g_quark_from_string (GST_META_TAG_VIDEO_ORIENTATION_STR)));
  fail_if (gst_meta_api_type_has_tag (api,
          g_quark_from_string (GST_META_TAG_VIDEO_COLORSPACE_STR)));
}

GST_END_TEST;

/* ---- AVMotionVector records -------------------------------------------------- */

GST_START_TEST (test_av_record_layout)
{
  /* The field offsets of FFmpeg's AVMotionVector on LP64/ILP32 ABIs with
   * natural alignment. */
  fail_unless_equals_int (sizeof (GstMotionVectorAVRecord), 40);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, source), 0);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, w), 4);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, h), 5);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, src_x), 6);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, src_y), 8);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, dst_x), 10);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, dst_y), 12);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, flags), 16);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, motion_x), 24);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, motion_y), 28);
  fail_unless_equals_int (offsetof (GstMotionVectorAVRecord, motion_scale), 32);
}

GST_END_TEST;

GST_START_TEST (test_av_records)
{
  const GstMotionVectorPartitionFlags parts =
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_4X8;
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint n_cells = gst_motion_vector_layout (40, 20, parts, grids);
  GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, n_cells);
  GstBuffer *buf = gst_buffer_new (), *dest = gst_buffer_new ();
  GstMotionVectorMeta *meta, *scaled;
  GstMotionVectorAVRecord *rec;
  GBytes *data;
  guint n;

  /* 16x16 cell (1, 0): pixels x 16..31, y 0..15, centre (24, 8). */
  cells[grids[0].offset + 1].mv_x = -12;
  cells[grids[0].offset + 1].mv_y = 8;
  /* 4x8 cell (6, 1): pixels x 24..27, y 8..15, centre (26, 12). */
  cells[grids[5].offset + 1 * grids[5].cols + 6].mv_x = 6;      /* 1.5 px */
  cells[grids[5].offset + 1 * grids[5].cols + 6].mv_y = -10;    /* -2.5 px */
  data = g_bytes_new_take (cells, n_cells * sizeof (GstMotionVectorCell));
  meta = gst_buffer_add_motion_vector_meta (buf, 40, 20, parts, data);

  rec = gst_motion_vector_meta_to_av_records (meta,
      GST_MOTION_VECTOR_PARTITION_16X16, &n);
  fail_unless_equals_int (n, 3 * 2);
  fail_unless_equals_int (rec[1].source, -1);
  fail_unless_equals_int (rec[1].w, 16);
  fail_unless_equals_int (rec[1].h, 16);
  fail_unless_equals_int (rec[1].dst_x, 24);
  fail_unless_equals_int (rec[1].dst_y, 8);
  fail_unless_equals_int (rec[1].motion_x, -12);
  fail_unless_equals_int (rec[1].motion_y, 8);
  fail_unless_equals_int (rec[1].motion_scale, 4);
  fail_unless_equals_int (rec[1].src_x, 21);
  fail_unless_equals_int (rec[1].src_y, 10);
  fail_unless_equals_uint64 (rec[1].flags, 0);
  /* Cell (0, 0): zero vector, source == destination. */
  fail_unless_equals_int (rec[0].dst_x, 8);
  fail_unless_equals_int (rec[0].src_x, 8);
  /* Edge macroblock (2, 1) covers x 32..47, y 16..31 of the padded frame;
   * its centre (40, 24) is clamped into the 40x20 frame. */
  fail_unless_equals_int (rec[5].dst_x, 39);
  fail_unless_equals_int (rec[5].dst_y, 19);
  g_free (rec);

  rec = gst_motion_vector_meta_to_av_records (meta,
      GST_MOTION_VECTOR_PARTITION_4X8, &n);
  fail_unless_equals_int (n, 12 * 4);
  fail_unless_equals_int (rec[1 * 12 + 6].w, 4);
  fail_unless_equals_int (rec[1 * 12 + 6].h, 8);
  fail_unless_equals_int (rec[1 * 12 + 6].dst_x, 26);
  fail_unless_equals_int (rec[1 * 12 + 6].dst_y, 12);
  fail_unless_equals_int (rec[1 * 12 + 6].motion_x, 6);
  fail_unless_equals_int (rec[1 * 12 + 6].motion_y, -10);
  /* 26 + 1.5 -> 28, 12 - 2.5 -> 9 (halves away from zero). */
  fail_unless_equals_int (rec[1 * 12 + 6].src_x, 28);
  fail_unless_equals_int (rec[1 * 12 + 6].src_y, 9);
  g_free (rec);

  /* Absent shape. */
  n = 7;
  fail_unless (gst_motion_vector_meta_to_av_records (meta,
          GST_MOTION_VECTOR_PARTITION_8X8, &n) == NULL);
  fail_unless_equals_int (n, 0);

  /* A future reference. */
  meta->ref_distance = 1;
  rec = gst_motion_vector_meta_to_av_records (meta,
      GST_MOTION_VECTOR_PARTITION_16X16, &n);
  fail_unless_equals_int (rec[0].source, 1);
  g_free (rec);
  meta->ref_distance = -1;

  /* After scaling to 80x40 the records are in the new frame's pixels. */
  scaled = scale_meta (buf, dest, 40, 20, 80, 40);
  rec = gst_motion_vector_meta_to_av_records (scaled,
      GST_MOTION_VECTOR_PARTITION_16X16, &n);
  fail_unless_equals_int (n, 6);
  fail_unless_equals_int (rec[1].w, 32);
  fail_unless_equals_int (rec[1].h, 32);
  fail_unless_equals_int (rec[1].dst_x, 48);
  fail_unless_equals_int (rec[1].dst_y, 16);
  fail_unless_equals_int (rec[1].motion_x, -24);
  fail_unless_equals_int (rec[1].motion_y, 16);
  fail_unless_equals_int (rec[1].src_x, 42);
  fail_unless_equals_int (rec[1].src_y, 20);
  fail_unless_equals_int (rec[5].dst_x, 79);
  fail_unless_equals_int (rec[5].dst_y, 39);
  g_free (rec);

  gst_buffer_unref (dest);
  gst_buffer_unref (buf);
  g_bytes_unref (data);
}

GST_END_TEST;

/* ---- the partition decision (modes) ---------------------------------------- */

/* 40x20 is 3 x 2 macroblocks; with 16x16 and 8x8, a decision of
 *   16x16 8x8   8x8
 *   16x16 8x8   16x16 */
static const guint8 some_modes[6] = { 0, 3, 3, 0, 3, 0 };
#define MODES_PARTS (GST_MOTION_VECTOR_PARTITIONS_16X16 \
    | GST_MOTION_VECTOR_PARTITIONS_8X8)

static GstMotionVectorMeta *
add_field_40x20 (GstBuffer * buf)
{
  GBytes *data = make_field (40, 20, MODES_PARTS);
  GstMotionVectorMeta *meta =
      gst_buffer_add_motion_vector_meta (buf, 40, 20, MODES_PARTS, data);

  g_bytes_unref (data);
  fail_unless (meta != NULL);
  return meta;
}

static void
check_modes (const GstMotionVectorMeta * meta, const guint8 * want)
{
  const guint8 *m;
  GBytes *gb;
  guint cols = 0, rows = 0;
  gsize size;

  fail_unless (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_MODES);
  m = gst_motion_vector_meta_get_modes (meta, &cols, &rows);
  fail_unless (m != NULL);
  fail_unless_equals_int (cols, 3);
  fail_unless_equals_int (rows, 2);
  fail_unless (memcmp (m, want, 6) == 0);
  /* a view of the meta's own bytes, not a copy */
  fail_unless (m == g_bytes_get_data (meta->modes, NULL));
  gb = gst_motion_vector_meta_get_modes_bytes (meta, &cols, &rows);
  fail_unless (gb != NULL);
  fail_unless (memcmp (g_bytes_get_data (gb, &size), want, 6) == 0);
  fail_unless_equals_int (size, 6);
  g_bytes_unref (gb);
}

GST_START_TEST (test_modes_set_get)
{
  static const guint8 absent_shape[6] = { 0, 3, 6, 0, 3, 0 };   /* 4x4 */
  static const guint8 not_shape[6] = { 0, 3, 7, 0, 3, 0 };
  static const guint8 all_16[6] = { 0, 0, 0, 0, 0, 0 };
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorMeta *meta = add_field_40x20 (buf);
  GBytes *modes = g_bytes_new_static (some_modes, 6), *bad, *kept;
  guint cols = 9, rows = 9, n = 9;

  /* none yet */
  fail_if (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_MODES);
  fail_unless (meta->modes == NULL);
  fail_unless (gst_motion_vector_meta_get_modes (meta, &cols, &rows) == NULL);
  fail_unless (cols == 0 && rows == 0);
  fail_unless (gst_motion_vector_meta_get_modes_bytes (meta, NULL, NULL)
      == NULL);
  fail_unless (gst_motion_vector_meta_to_av_records_chosen (meta, &n) == NULL);
  fail_unless_equals_int (n, 0);

  fail_unless (gst_motion_vector_meta_set_modes (meta, modes));
  fail_unless (meta->modes == modes);   /* a reference, not a copy */
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  check_modes (meta, some_modes);
  kept = meta->modes;

  /* Refused, the meta left as it was: sizes other than one byte per
   * macroblock, a shape the meta lacks, a value that is no shape. */
  bad = g_bytes_new (some_modes, 5);
  fail_if (gst_motion_vector_meta_set_modes (meta, bad));
  g_bytes_unref (bad);
  bad = g_bytes_new ("\0\0\0\0\0\0\0", 7);
  fail_if (gst_motion_vector_meta_set_modes (meta, bad));
  g_bytes_unref (bad);
  bad = g_bytes_new (absent_shape, 6);
  fail_if (gst_motion_vector_meta_set_modes (meta, bad));
  g_bytes_unref (bad);
  bad = g_bytes_new (not_shape, 6);
  fail_if (gst_motion_vector_meta_set_modes (meta, bad));
  g_bytes_unref (bad);
  fail_unless (meta->modes == kept);
  check_modes (meta, some_modes);

  /* Replaced, then removed. */
  bad = g_bytes_new (all_16, 6);
  fail_unless (gst_motion_vector_meta_set_modes (meta, bad));
  g_bytes_unref (bad);
  check_modes (meta, all_16);
  fail_unless (gst_motion_vector_meta_set_modes (meta, NULL));
  fail_if (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_MODES);
  fail_unless (meta->modes == NULL);
  fail_unless (gst_motion_vector_meta_get_modes (meta, NULL, NULL) == NULL);
  fail_unless (gst_motion_vector_meta_is_valid (meta));

  /* Not on an inconsistent meta. */
  meta->analysis_width = 0;
  fail_if (gst_motion_vector_meta_set_modes (meta, modes));
  fail_unless (meta->modes == NULL);
  meta->analysis_width = 40;

  gst_buffer_unref (buf);
  g_bytes_unref (modes);
}

GST_END_TEST;

/* @meta is valid and its cells read, but its decision does not. */
static void
check_decision_unreadable (const GstMotionVectorMeta * meta)
{
  guint cols = 9, rows = 9;

  fail_unless (gst_motion_vector_meta_is_valid (meta));
  fail_unless (gst_motion_vector_meta_get_grid (meta,
          GST_MOTION_VECTOR_PARTITION_8X8, NULL, NULL) != NULL);
  fail_unless (gst_motion_vector_meta_get_modes (meta, &cols, &rows) == NULL);
  fail_unless (cols == 0 && rows == 0);
  fail_unless (gst_motion_vector_meta_get_modes_bytes (meta, NULL, NULL)
      == NULL);
}

GST_START_TEST (test_modes_inconsistent)
{
  static const guint8 not_present[6] = { 0, 3, 5, 0, 3, 0 };    /* 4x8 */
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorMeta *meta = add_field_40x20 (buf), saved;
  GBytes *good = g_bytes_new_static (some_modes, 6);
  GBytes *shorter = g_bytes_new_static (some_modes, 5);
  GBytes *wrong = g_bytes_new_static (not_present, 6);
  guint n = 9;

  saved = *meta;                /* no modes */

  /* A flag that disagrees with the modes (a writer that assigns the flags
   * wholesale): the cells still read, the decision does not. */
  meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_MODES;
  check_decision_unreadable (meta);
  fail_unless (gst_motion_vector_meta_to_av_records (meta,
          GST_MOTION_VECTOR_PARTITION_16X16, &n) == NULL);
  fail_unless_equals_int (n, 0);
  *meta = saved;
  meta->modes = good;
  check_decision_unreadable (meta);
  meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_MODES;
  fail_unless (gst_motion_vector_meta_get_modes (meta, NULL, NULL) != NULL);

  /* Modes not of one byte per macroblock: the whole meta is inconsistent. */
  meta->modes = shorter;
  check_reads_as_absent (buf, meta, "short modes");

  /* A value that is not a present shape: the cells still read, the
   * decision does not (is_valid() does not look at every macroblock). */
  meta->modes = wrong;
  check_decision_unreadable (meta);
  fail_unless (gst_motion_vector_meta_to_av_records (meta,
          GST_MOTION_VECTOR_PARTITION_16X16, &n) == NULL);
  fail_unless_equals_int (n, 0);
  fail_unless (gst_motion_vector_meta_to_av_records_chosen (meta, &n) == NULL);

  *meta = saved;
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  gst_buffer_unref (buf);
  g_bytes_unref (good);
  g_bytes_unref (shorter);
  g_bytes_unref (wrong);
}

GST_END_TEST;

GST_START_TEST (test_modes_copy_scale)
{
  GstBuffer *buf = gst_buffer_new (), *copy, *dest = gst_buffer_new ();
  GstMotionVectorMeta *meta = add_field_40x20 (buf), *cmeta, *scaled;
  GBytes *modes = g_bytes_new (some_modes, 6);

  fail_unless (gst_motion_vector_meta_set_modes (meta, modes));
  g_bytes_unref (modes);

  /* A copy shares the modes as it shares the cells. */
  copy = gst_buffer_copy (buf);
  cmeta = gst_buffer_get_motion_vector_meta (copy);
  fail_unless (cmeta->data == meta->data);
  fail_unless (cmeta->modes == meta->modes);
  check_modes (cmeta, some_modes);

  /* A scale rescales the vectors and keeps the macroblocks: same modes. */
  scaled = scale_meta (buf, dest, 40, 20, 80, 40);
  fail_unless (scaled->data != meta->data);
  fail_unless (scaled->modes == meta->modes);
  check_modes (scaled, some_modes);
  check_scaled_meta (meta, scaled, 40, 20, 80, 40);

  /* Each holds its own reference: the original can go first. */
  gst_buffer_unref (buf);
  check_modes (cmeta, some_modes);
  check_modes (scaled, some_modes);
  gst_buffer_unref (copy);
  gst_buffer_unref (dest);
}

GST_END_TEST;

GST_START_TEST (test_av_records_modes)
{
  GstBuffer *buf = gst_buffer_new (), *plain = gst_buffer_new ();
  GstMotionVectorMeta *meta = add_field_40x20 (buf);
  GstMotionVectorMeta *ref = add_field_40x20 (plain);   /* no modes */
  GstMotionVectorAVRecord *rec, *full16, *full8;
  GBytes *modes = g_bytes_new (some_modes, 6);
  /* the chosen blocks, macroblock by macroblock: (shape, col, row) */
  static const guint chosen[15][3] = {
    {0, 0, 0},
    {3, 2, 0}, {3, 3, 0}, {3, 2, 1}, {3, 3, 1},
    {3, 4, 0}, {3, 5, 0}, {3, 4, 1}, {3, 5, 1},
    {0, 0, 1},
    {3, 2, 2}, {3, 3, 2}, {3, 2, 3}, {3, 3, 3},
    {0, 2, 1},
  };
  guint n, n16, n8, i;

  fail_unless (gst_motion_vector_meta_set_modes (meta, modes));
  g_bytes_unref (modes);
  full16 = gst_motion_vector_meta_to_av_records (ref,
      GST_MOTION_VECTOR_PARTITION_16X16, &n16);
  full8 = gst_motion_vector_meta_to_av_records (ref,
      GST_MOTION_VECTOR_PARTITION_8X8, &n8);
  fail_unless_equals_int (n16, 6);
  fail_unless_equals_int (n8, 24);

  /* One shape: the blocks of the macroblocks coded with it, in the grid's
   * raster order, each the record the full grid has for that cell. */
  rec = gst_motion_vector_meta_to_av_records (meta,
      GST_MOTION_VECTOR_PARTITION_16X16, &n);
  fail_unless_equals_int (n, 3);
  fail_unless (memcmp (&rec[0], &full16[0], sizeof (*rec)) == 0);
  fail_unless (memcmp (&rec[1], &full16[3], sizeof (*rec)) == 0);
  fail_unless (memcmp (&rec[2], &full16[5], sizeof (*rec)) == 0);
  fail_unless_equals_int (rec[1].dst_x, 8);
  fail_unless_equals_int (rec[1].dst_y, 19);    /* 24, clamped */
  fail_unless_equals_int (rec[1].motion_x, pattern_cell (0, 0, 1).mv_x);
  g_free (rec);

  rec = gst_motion_vector_meta_to_av_records (meta,
      GST_MOTION_VECTOR_PARTITION_8X8, &n);
  fail_unless_equals_int (n, 12);
  for (i = 0; i < 4; i++) {
    /* rows 0 and 1: columns 2 .. 5; rows 2 and 3: columns 2, 3 */
    fail_unless (memcmp (&rec[i], &full8[2 + i], sizeof (*rec)) == 0);
    fail_unless (memcmp (&rec[4 + i], &full8[6 + 2 + i], sizeof (*rec)) == 0);
  }
  fail_unless (memcmp (&rec[8], &full8[12 + 2], sizeof (*rec)) == 0);
  fail_unless (memcmp (&rec[9], &full8[12 + 3], sizeof (*rec)) == 0);
  fail_unless (memcmp (&rec[10], &full8[18 + 2], sizeof (*rec)) == 0);
  fail_unless (memcmp (&rec[11], &full8[18 + 3], sizeof (*rec)) == 0);
  fail_unless_equals_int (rec[0].dst_x, 20);
  fail_unless_equals_int (rec[0].dst_y, 4);
  fail_unless_equals_int (rec[0].w, 8);
  g_free (rec);

  /* The whole decided field, macroblock by macroblock. */
  rec = gst_motion_vector_meta_to_av_records_chosen (meta, &n);
  fail_unless_equals_int (n, 15);
  for (i = 0; i < 15; i++) {
    const GstMotionVectorAVRecord *want = chosen[i][0] == 0
        ? &full16[chosen[i][2] * 3 + chosen[i][1]]
        : &full8[chosen[i][2] * 6 + chosen[i][1]];
    fail_unless (memcmp (&rec[i], want, sizeof (*rec)) == 0, "record %u", i);
  }
  g_free (rec);

  /* Without the decision, every cell again. */
  fail_unless (gst_motion_vector_meta_set_modes (meta, NULL));
  rec = gst_motion_vector_meta_to_av_records (meta,
      GST_MOTION_VECTOR_PARTITION_8X8, &n);
  fail_unless_equals_int (n, 24);
  fail_unless (memcmp (rec, full8, 24 * sizeof (*rec)) == 0);
  g_free (rec);

  g_free (full16);
  g_free (full8);
  gst_buffer_unref (buf);
  gst_buffer_unref (plain);
}

GST_END_TEST;

/* ---- the reference decision (chosen_refs) ------------------------------------ */

/* 40x20 is 12 x 8 blocks of 4x4.  The decision of some_modes with, for
 * each partition, the reference it takes:
 *   MB (0, 0) 16x16: -2        MB (1, 0) 8x8: -1 +1   MB (2, 0) 8x8: +1 +1
 *                                             -2 -1                  -1 -2
 *   MB (0, 1) 16x16: +1        MB (1, 1) 8x8: -2 -1   MB (2, 1) 16x16: -1
 *                                             -1 +1 */
static const struct
{
  guint shape, col, row;
  gint ref;
} some_choices[15] = {
  {0, 0, 0, -2},
  {3, 2, 0, -1}, {3, 3, 0, 1}, {3, 2, 1, -2}, {3, 3, 1, -1},
  {3, 4, 0, 1}, {3, 5, 0, 1}, {3, 4, 1, -1}, {3, 5, 1, -2},
  {0, 0, 1, 1},
  {3, 2, 2, -2}, {3, 3, 2, -1}, {3, 2, 3, -1}, {3, 3, 3, 1},
  {0, 2, 1, -1},
};

/* some_choices as one value per 4x4 block, written block by block. */
static void
fill_some_refs (gint8 refs[8][12])
{
  guint i, x, y;

  for (i = 0; i < G_N_ELEMENTS (some_choices); i++) {
    guint size = some_choices[i].shape == 0 ? 4 : 2;     /* in 4x4 blocks */

    for (y = 0; y < size; y++)
      for (x = 0; x < size; x++)
        refs[some_choices[i].row * size + y][some_choices[i].col * size + x] =
            (gint8) some_choices[i].ref;
  }
}

static GBytes *
some_refs_bytes (void)
{
  gint8 refs[8][12];

  memset (refs, 0x55, sizeof (refs));
  fill_some_refs (refs);
  return g_bytes_new (refs, sizeof (refs));
}

/* The field of a 40x20 frame against @distance: pattern_cell() with
 * 100 * @distance added to every mv_x (and mvd_x), so that a record
 * says which field it came from. */
static GstMotionVectorMeta *
add_biased_field_40x20 (GstBuffer * buf, gint distance)
{
  GBytes *data = make_field (40, 20, MODES_PARTS);
  gsize size, i;
  GstMotionVectorCell *cells = g_bytes_unref_to_data (data, &size);
  GstMotionVectorMeta *meta;

  for (i = 0; i < size / sizeof (*cells); i++) {
    cells[i].mv_x += 100 * distance;
    cells[i].mvd_x += 100 * distance;
  }
  data = g_bytes_new_take (cells, size);
  meta = gst_buffer_add_motion_vector_meta (buf, 40, 20, MODES_PARTS, data);
  g_bytes_unref (data);
  fail_unless (meta != NULL);
  meta->ref_distance = distance;
  return meta;
}

/* A buffer searched against -1, -2 and +1 (as gpumotionest
 * references=-1,-2,+1 mode-decision=true attaches them), the first field
 * carrying some_modes and, with @with_refs, some_choices. */
static GstBuffer *
make_decided_buffer (gboolean with_refs)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorMeta *first = add_biased_field_40x20 (buf, -1);
  GBytes *modes = g_bytes_new (some_modes, 6), *refs = some_refs_bytes ();

  add_biased_field_40x20 (buf, -2);
  add_biased_field_40x20 (buf, 1);
  fail_unless (gst_motion_vector_meta_set_modes (first, modes));
  if (with_refs)
    fail_unless (gst_motion_vector_meta_set_chosen_refs (first, refs));
  g_bytes_unref (modes);
  g_bytes_unref (refs);
  return buf;
}

/* @meta's chosen references read back as some_choices, through both
 * getters. */
static void
check_some_refs (const GstMotionVectorMeta * meta)
{
  gint8 want[8][12];
  const gint8 *r;
  GBytes *gb;
  guint cols = 0, rows = 0;
  gsize size;

  fill_some_refs (want);
  fail_unless (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS);
  r = gst_motion_vector_meta_get_chosen_refs (meta, &cols, &rows);
  fail_unless (r != NULL);
  fail_unless_equals_int (cols, 12);
  fail_unless_equals_int (rows, 8);
  fail_unless (memcmp (r, want, sizeof (want)) == 0);
  /* a view of the meta's own bytes, not a copy */
  fail_unless (r == g_bytes_get_data (meta->chosen_refs, NULL));
  /* spot checks against the picture above: the 8x8 (3, 0) is +1, so are
   * its 4x4 blocks (6, 0) .. (7, 1); MB (0, 1) is +1 down to the last
   * row; the 8x8 (2, 1) is -2 */
  fail_unless_equals_int (r[0 * 12 + 6], 1);
  fail_unless_equals_int (r[1 * 12 + 7], 1);
  fail_unless_equals_int (r[7 * 12 + 0], 1);
  fail_unless_equals_int (r[2 * 12 + 4], -2);
  fail_unless_equals_int (r[0 * 12 + 0], -2);
  cols = rows = 0;
  gb = gst_motion_vector_meta_get_chosen_refs_bytes (meta, &cols, &rows);
  fail_unless (gb != NULL);
  fail_unless_equals_int (cols, 12);
  fail_unless_equals_int (rows, 8);
  fail_unless (memcmp (g_bytes_get_data (gb, &size), want, sizeof (want))
      == 0);
  fail_unless_equals_int (size, 96);
  g_bytes_unref (gb);
}

/* @meta has no readable chosen references, through both getters. */
static void
check_no_refs (const GstMotionVectorMeta * meta)
{
  guint cols = 9, rows = 9;

  fail_unless (gst_motion_vector_meta_get_chosen_refs (meta, &cols, &rows)
      == NULL);
  fail_unless (cols == 0 && rows == 0);
  cols = rows = 9;
  fail_unless (gst_motion_vector_meta_get_chosen_refs_bytes (meta, &cols,
          &rows) == NULL);
  fail_unless (cols == 0 && rows == 0);
}

GST_START_TEST (test_chosen_refs_set_get)
{
  GstBuffer *buf = make_decided_buffer (FALSE);
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (buf);
  GBytes *refs = some_refs_bytes (), *bad, *kept;
  gint8 block[96];

  /* none yet; the modes alone are there */
  fail_if (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS);
  fail_unless (meta->chosen_refs == NULL);
  check_no_refs (meta);

  fail_unless (gst_motion_vector_meta_set_chosen_refs (meta, refs));
  fail_unless (meta->chosen_refs == refs);      /* a reference, not a copy */
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  check_some_refs (meta);
  check_modes (meta, some_modes);
  kept = meta->chosen_refs;

  /* Refused, the meta left as it was: one value per macroblock (the size
   * of modes), one block short, one too many, a 0 anywhere. */
  bad = g_bytes_new (some_modes, 6);
  fail_if (gst_motion_vector_meta_set_chosen_refs (meta, bad));
  g_bytes_unref (bad);
  bad = g_bytes_new_from_bytes (refs, 0, 95);
  fail_if (gst_motion_vector_meta_set_chosen_refs (meta, bad));
  g_bytes_unref (bad);
  memset (block, -1, sizeof (block));
  {
    gint8 more[97];

    memset (more, -1, sizeof (more));
    bad = g_bytes_new (more, sizeof (more));
    fail_if (gst_motion_vector_meta_set_chosen_refs (meta, bad));
    g_bytes_unref (bad);
  }
  block[95] = 0;
  bad = g_bytes_new (block, sizeof (block));
  fail_if (gst_motion_vector_meta_set_chosen_refs (meta, bad));
  g_bytes_unref (bad);
  fail_unless (meta->chosen_refs == kept);
  check_some_refs (meta);

  /* Replaced, then removed: the flag goes with them. */
  block[95] = -1;
  bad = g_bytes_new (block, sizeof (block));
  fail_unless (gst_motion_vector_meta_set_chosen_refs (meta, bad));
  g_bytes_unref (bad);
  fail_unless (memcmp (gst_motion_vector_meta_get_chosen_refs (meta, NULL,
              NULL), block, sizeof (block)) == 0);
  fail_unless (gst_motion_vector_meta_set_chosen_refs (meta, NULL));
  fail_if (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS);
  fail_unless (meta->chosen_refs == NULL);
  check_no_refs (meta);
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  /* the modes were never touched */
  check_modes (meta, some_modes);

  /* Not on an inconsistent meta. */
  meta->analysis_width = 0;
  fail_if (gst_motion_vector_meta_set_chosen_refs (meta, refs));
  fail_unless (meta->chosen_refs == NULL);
  meta->analysis_width = 40;

  /* A frame of 1 x 1 pixels is one macroblock: 4 x 4 blocks. */
  {
    GstBuffer *tiny = gst_buffer_new ();
    GBytes *data = make_field (1, 1, GST_MOTION_VECTOR_PARTITIONS_16X16);
    GstMotionVectorMeta *m = gst_buffer_add_motion_vector_meta (tiny, 1, 1,
        GST_MOTION_VECTOR_PARTITIONS_16X16, data);
    guint cols, rows;

    bad = g_bytes_new (block, 16);
    fail_unless (gst_motion_vector_meta_set_chosen_refs (m, bad));
    fail_unless (gst_motion_vector_meta_get_chosen_refs (m, &cols, &rows)
        != NULL);
    fail_unless_equals_int (cols, 4);
    fail_unless_equals_int (rows, 4);
    g_bytes_unref (bad);
    g_bytes_unref (data);
    gst_buffer_unref (tiny);
  }

  gst_buffer_unref (buf);
  g_bytes_unref (refs);
}

GST_END_TEST;

GST_START_TEST (test_chosen_refs_inconsistent)
{
  GstBuffer *buf = make_decided_buffer (FALSE);
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (buf), saved;
  GBytes *good = some_refs_bytes ();
  GBytes *shorter = g_bytes_new_from_bytes (good, 0, 90);
  gint8 zeros[96] = { 0 };
  GBytes *zero = g_bytes_new (zeros, sizeof (zeros));

  saved = *meta;                /* modes, no chosen references */

  /* Each of these makes the chosen references read as absent, and only
   * them: the meta stays valid, its cells and its modes read. */
  meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS;
  check_no_refs (meta);
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  *meta = saved;
  meta->chosen_refs = good;     /* without the flag */
  check_no_refs (meta);
  meta->flags |= GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS;
  check_some_refs (meta);
  meta->chosen_refs = shorter;
  check_no_refs (meta);
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  fail_unless (gst_motion_vector_meta_get_grid (meta,
          GST_MOTION_VECTOR_PARTITION_8X8, NULL, NULL) != NULL);
  check_modes (meta, some_modes);
  meta->chosen_refs = zero;
  check_no_refs (meta);
  fail_unless (gst_motion_vector_meta_is_valid (meta));

  /* An inconsistent meta has no readable decision of any kind. */
  meta->chosen_refs = good;
  meta->analysis_height = 0;
  check_no_refs (meta);

  *meta = saved;
  fail_unless (gst_motion_vector_meta_is_valid (meta));
  gst_buffer_unref (buf);
  g_bytes_unref (good);
  g_bytes_unref (shorter);
  g_bytes_unref (zero);
}

GST_END_TEST;

GST_START_TEST (test_chosen_refs_copy_scale)
{
  GstBuffer *buf = make_decided_buffer (TRUE), *copy, *dest = gst_buffer_new ();
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (buf);
  GstMotionVectorMeta *cmeta, *scaled;
  guint i;

  /* A copy keeps the three fields in their order and shares the chosen
   * references of the first; the others have none. */
  copy = gst_buffer_copy (buf);
  fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (copy), 3);
  cmeta = gst_buffer_get_motion_vector_meta (copy);
  fail_unless (cmeta != meta);
  fail_unless (cmeta->chosen_refs == meta->chosen_refs);
  check_some_refs (cmeta);
  for (i = 1; i < 3; i++) {
    GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta_nth (copy, i);

    fail_unless (m->chosen_refs == NULL);
    fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS);
  }

  /* A scale rescales the vectors and keeps the grid of 4x4 blocks of
   * the analysis frame: the same bytes. */
  scaled = scale_meta (buf, dest, 40, 20, 80, 40);
  fail_unless (scaled->chosen_refs == meta->chosen_refs);
  fail_unless_equals_int (scaled->width, 80);
  check_some_refs (scaled);
  check_modes (scaled, some_modes);
  check_scaled_meta (meta, scaled, 40, 20, 80, 40);

  /* Each holds its own reference: the original can go first. */
  gst_buffer_unref (buf);
  check_some_refs (cmeta);
  check_some_refs (scaled);
  gst_buffer_unref (copy);
  gst_buffer_unref (dest);
}

GST_END_TEST;

GST_START_TEST (test_av_records_chosen_refs)
{
  GstBuffer *buf = make_decided_buffer (TRUE), *plain = gst_buffer_new ();
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (buf);
  GstMotionVectorAVRecord *rec, *own, *full[3][2];
  static const gint dists[3] = { -1, -2, 1 };
  GBytes *refs;
  guint n, n_own, i, k;

  /* every cell of each field, from copies without a decision */
  for (k = 0; k < 3; k++) {
    GstMotionVectorMeta *m = add_biased_field_40x20 (plain, dists[k]);

    full[k][0] = gst_motion_vector_meta_to_av_records (m,
        GST_MOTION_VECTOR_PARTITION_16X16, &n);
    fail_unless_equals_int (n, 6);
    full[k][1] = gst_motion_vector_meta_to_av_records (m,
        GST_MOTION_VECTOR_PARTITION_8X8, &n);
    fail_unless_equals_int (n, 24);
  }

  /* The decided field: each partition's record from the field of its
   * reference, macroblock by macroblock. */
  rec = gst_buffer_motion_vector_to_av_records_chosen (buf, &n);
  fail_unless (rec != NULL);
  fail_unless_equals_int (n, 15);
  for (i = 0; i < 15; i++) {
    guint f = some_choices[i].ref == -1 ? 0 : some_choices[i].ref == -2 ? 1
        : 2;
    guint cols = some_choices[i].shape == 0 ? 3 : 6;
    const GstMotionVectorAVRecord *want =
        &full[f][some_choices[i].shape == 0 ? 0 : 1][some_choices[i].row * cols
        + some_choices[i].col];

    fail_unless (memcmp (&rec[i], want, sizeof (*rec)) == 0, "record %u", i);
    fail_unless_equals_int (rec[i].source, some_choices[i].ref < 0 ? -1 : 1);
  }
  /* Written out: MB (0, 0) takes 16x16 cell (0, 0) of the -2 field,
   * pattern mv_x -3 - 200; the 8x8 cell (3, 0) of the +1 field, centre
   * (28, 4), pattern mv_x 4 * 3 + 3 - 3 + 100. */
  fail_unless_equals_int (rec[0].motion_x, -203);
  fail_unless_equals_int (rec[0].source, -1);
  fail_unless_equals_int (rec[2].motion_x, 112);
  fail_unless_equals_int (rec[2].source, 1);
  fail_unless_equals_int (rec[2].dst_x, 28);
  fail_unless_equals_int (rec[2].dst_y, 4);
  fail_unless_equals_int (rec[2].w, 8);
  /* the src follows the vector of the field taken: 28 + 112 / 4 */
  fail_unless_equals_int (rec[2].src_x, 56);
  g_free (rec);

  /* The meta's own function gives the first field's vectors for every
   * partition, as before there were chosen references. */
  own = gst_motion_vector_meta_to_av_records_chosen (meta, &n_own);
  fail_unless_equals_int (n_own, 15);
  fail_unless (memcmp (&own[2], &full[0][1][3], sizeof (*own)) == 0);
  fail_unless_equals_int (own[2].motion_x, 12 - 100);

  /* Without chosen references, the buffer's function is the meta's. */
  fail_unless (gst_motion_vector_meta_set_chosen_refs (meta, NULL));
  rec = gst_buffer_motion_vector_to_av_records_chosen (buf, &n);
  fail_unless_equals_int (n, n_own);
  fail_unless (memcmp (rec, own, n * sizeof (*rec)) == 0);
  g_free (rec);
  g_free (own);

  /* A reference the buffer has no field against: nothing, rather than
   * records of another field. */
  {
    gint8 blocks[96];

    memset (blocks, -3, sizeof (blocks));
    refs = g_bytes_new (blocks, sizeof (blocks));
    fail_unless (gst_motion_vector_meta_set_chosen_refs (meta, refs));
    g_bytes_unref (refs);
    n = 9;
    fail_unless (gst_buffer_motion_vector_to_av_records_chosen (buf, &n)
        == NULL);
    fail_unless_equals_int (n, 0);
  }

  /* The field of a reference named but inconsistent, or of other sizes. */
  refs = some_refs_bytes ();
  fail_unless (gst_motion_vector_meta_set_chosen_refs (meta, refs));
  g_bytes_unref (refs);
  gst_buffer_get_motion_vector_meta_nth (buf, 2)->analysis_width = 0;
  fail_unless (gst_buffer_motion_vector_to_av_records_chosen (buf, &n)
      == NULL);
  gst_buffer_get_motion_vector_meta_nth (buf, 2)->analysis_width = 40;
  gst_buffer_get_motion_vector_meta_nth (buf, 1)->width = 80;
  fail_unless (gst_buffer_motion_vector_to_av_records_chosen (buf, &n)
      == NULL);
  gst_buffer_get_motion_vector_meta_nth (buf, 1)->width = 40;
  rec = gst_buffer_motion_vector_to_av_records_chosen (buf, &n);
  fail_unless_equals_int (n, 15);
  g_free (rec);

  /* Stereo video: a field of the second view against +1 before the first
   * view's is not the one the first view's decision names. */
  {
    GstBuffer *views = gst_buffer_new ();
    GstMotionVectorMeta *first = add_biased_field_40x20 (views, -1), *other;
    GBytes *m = g_bytes_new (some_modes, 6);
    GstMotionVectorAVRecord *want;
    guint n_want;

    other = add_biased_field_40x20 (views, 5);
    other->ref_distance = 1;
    other->view = 1;
    add_biased_field_40x20 (views, -2);
    add_biased_field_40x20 (views, 1);
    fail_unless (gst_motion_vector_meta_set_modes (first, m));
    refs = some_refs_bytes ();
    fail_unless (gst_motion_vector_meta_set_chosen_refs (first, refs));
    g_bytes_unref (refs);
    g_bytes_unref (m);
    want = gst_buffer_motion_vector_to_av_records_chosen (buf, &n_want);
    rec = gst_buffer_motion_vector_to_av_records_chosen (views, &n);
    fail_unless_equals_int (n, 15);
    fail_unless_equals_int (n_want, 15);
    fail_unless (memcmp (rec, want, 15 * sizeof (*rec)) == 0);
    fail_unless_equals_int (rec[2].motion_x, 112);
    g_free (rec);
    g_free (want);
    gst_buffer_unref (views);
  }

  /* Chosen references without modes, or no field at all: nothing. */
  fail_unless (gst_motion_vector_meta_set_modes (meta, NULL));
  fail_unless (gst_buffer_motion_vector_to_av_records_chosen (buf, &n)
      == NULL);
  fail_unless_equals_int (n, 0);
  {
    GstBuffer *empty = gst_buffer_new ();

    n = 9;
    fail_unless (gst_buffer_motion_vector_to_av_records_chosen (empty, &n)
        == NULL);
    fail_unless_equals_int (n, 0);
    gst_buffer_unref (empty);
  }

  for (k = 0; k < 3; k++) {
    g_free (full[k][0]);
    g_free (full[k][1]);
  }
  gst_buffer_unref (buf);
  gst_buffer_unref (plain);
}

GST_END_TEST;

/* ---- through a real scaler --------------------------------------------------- */

/* The test environment may hide the system plugins; load the scaler plugin
 * from the directory next to the GStreamer core library if needed. */
static gboolean
ensure_scaler_plugin (const gchar * factory)
{
  GstElementFactory *f = gst_element_factory_find (factory);
  Dl_info dl;

  if (f) {
    gst_object_unref (f);
    return TRUE;
  }
  if (dladdr ((gpointer) gst_init, &dl) && dl.dli_fname) {
    gchar *libdir = g_path_get_dirname (dl.dli_fname);
    gchar *path = g_build_filename (libdir, "gstreamer-1.0",
        "libgstvideoconvertscale.so", NULL);
    GstPlugin *plugin = gst_plugin_load_file (path, NULL);

    if (plugin)
      gst_object_unref (plugin);
    g_free (path);
    g_free (libdir);
  }
  f = gst_element_factory_find (factory);
  if (f)
    gst_object_unref (f);
  return f != NULL;
}

/* A 64x32 frame carrying one field (@several FALSE) or the three of
 * three_refs through @factory scaling to 32x16: every field comes out
 * rescaled, once, in its place. */
static void
check_scaler_element (const gchar * factory, gboolean several)
{
  const guint in_w = 64, in_h = 32, out_w = 32, out_h = 16;
  GstHarness *h;
  GstBuffer *in, *out;
  GBytes *data = make_field (in_w, in_h, GST_MOTION_VECTOR_PARTITIONS_ALL);
  GstMotionVectorMeta *meta, *ometa;
  guint i, n_fields = several ? G_N_ELEMENTS (three_refs) : 1;

  fail_unless (ensure_scaler_plugin (factory), "no %s element", factory);
  h = gst_harness_new (factory);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=64,"
      "height=32,framerate=30/1,pixel-aspect-ratio=1/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=I420,width=32,"
      "height=16,pixel-aspect-ratio=1/1");

  in = gst_buffer_new_allocate (NULL, in_w * in_h * 3 / 2, NULL);
  gst_buffer_memset (in, 0, 0x80, in_w * in_h * 3 / 2);
  GST_BUFFER_PTS (in) = 0;
  GST_BUFFER_DURATION (in) = GST_SECOND / 30;
  if (several) {
    add_three_refs (in, in_w, in_h);
  } else {
    meta = gst_buffer_add_motion_vector_meta (in, in_w, in_h,
        GST_MOTION_VECTOR_PARTITIONS_ALL, data);
    meta->search_range = 16;
    meta->ref_pts = 0;
  }
  /* Keep our own reference to compare with after the element ran. */
  gst_buffer_ref (in);

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless (out != in);
  fail_unless_equals_int (gst_buffer_get_size (out), out_w * out_h * 3 / 2);

  for (i = 0; i < n_fields; i++) {
    meta = gst_buffer_get_motion_vector_meta_nth (in, i);
    ometa = gst_buffer_get_motion_vector_meta_nth (out, i);
    fail_unless (ometa != NULL, "%s dropped motion-vector meta %u", factory,
        i);
    check_scaled_meta (meta, ometa, in_w, in_h, out_w, out_h);
    if (several) {
      check_ref_field (ometa, i);
    } else {
      fail_unless_equals_int (ometa->search_range, 16);
      fail_unless_equals_uint64 (ometa->ref_pts, 0);
    }
  }
  /* Exactly those: the element must not add a plain copy as well. */
  {
    gpointer state = NULL;
    guint n = 0;
    GstMeta *m;

    while ((m = gst_buffer_iterate_meta_filtered (out, &state,
                GST_MOTION_VECTOR_META_API_TYPE)))
      n++;
    fail_unless_equals_int (n, n_fields);
  }

  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  g_bytes_unref (data);
}

GST_START_TEST (test_videoconvertscale_element)
{
  check_scaler_element ("videoconvertscale", FALSE);
  check_scaler_element ("videoconvertscale", TRUE);
}

GST_END_TEST;

GST_START_TEST (test_videoscale_element)
{
  check_scaler_element ("videoscale", FALSE);
  check_scaler_element ("videoscale", TRUE);
}

GST_END_TEST;

static Suite *
motionvectormeta_suite (void)
{
  Suite *s = suite_create ("motionvectormeta");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_layout_sizes);
  tcase_add_test (tc, test_layout_all_masks);
  tcase_add_test (tc, test_add_get);
  tcase_add_test (tc, test_add_wrong_size);
  tcase_add_test (tc, test_add_out_of_range);
  tcase_add_test (tc, test_layout_out_of_range);
  tcase_add_test (tc, test_inconsistent_meta);
  tcase_add_test (tc, test_add_unaligned);
  tcase_add_test (tc, test_partition_enum_values);
  tcase_add_test (tc, test_copy_shares_bytes);
  tcase_add_test (tc, test_several_refs_get);
  tcase_add_test (tc, test_several_refs_copy);
  tcase_add_test (tc, test_scale_transform);
  tcase_add_test (tc, test_scale_meta_size_not_frame_size);
  tcase_add_test (tc, test_scale_rounding);
  tcase_add_test (tc, test_other_transforms_drop);
  tcase_add_test (tc, test_tags);
  tcase_add_test (tc, test_av_record_layout);
  tcase_add_test (tc, test_av_records);
  tcase_add_test (tc, test_modes_set_get);
  tcase_add_test (tc, test_modes_inconsistent);
  tcase_add_test (tc, test_modes_copy_scale);
  tcase_add_test (tc, test_av_records_modes);
  tcase_add_test (tc, test_chosen_refs_set_get);
  tcase_add_test (tc, test_chosen_refs_inconsistent);
  tcase_add_test (tc, test_chosen_refs_copy_scale);
  tcase_add_test (tc, test_av_records_chosen_refs);
  tcase_add_test (tc, test_videoconvertscale_element);
  tcase_add_test (tc, test_videoscale_element);
  return s;
}

GST_CHECK_MAIN (motionvectormeta);
