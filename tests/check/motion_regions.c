/* gpumotionest — moving macroblocks into rectangles (gstmotionregions.c)
 * on hand-drawn masks.
 *
 * A mask is drawn as rows of text, '#' for a moving macroblock; the
 * expected rectangles were worked out by hand from the rules in
 * docs/encoder-hints.md: 8-connected components, merged by the smallest
 * growth of covered area (the first pair on a tie) until at most N remain
 * and none overlap, listed in raster order of their top-left corners, in
 * pixels clipped to the frame.
 */
#include <string.h>
#include <glib.h>

#include "gstmotionregions.h"

typedef struct {
  guint cols, rows;
  guint8 *mask;
  guint32 *speed;
} Mask;

/* Every '#' moves, at a speed of (its index in the mask + 1) quarter
 * pixels, so the sums tell which blocks a region took. */
static Mask
mask_from (const gchar * const *lines)
{
  Mask m = { (guint) strlen (lines[0]), g_strv_length ((gchar **) lines) };

  m.mask = g_new0 (guint8, m.cols * m.rows);
  m.speed = g_new0 (guint32, m.cols * m.rows);
  for (guint y = 0; y < m.rows; y++) {
    g_assert_cmpuint (strlen (lines[y]), ==, m.cols);
    for (guint x = 0; x < m.cols; x++) {
      const guint i = y * m.cols + x;

      m.mask[i] = lines[y][x] == '#';
      m.speed[i] = m.mask[i] ? i + 1 : 0;
    }
  }
  return m;
}

static void
mask_clear (Mask * m)
{
  g_free (m->mask);
  g_free (m->speed);
}

/* The regions of a mask over a frame of whole macroblocks. */
static guint
find (const Mask * m, guint max, GstMotionRegion * out)
{
  return gst_motion_regions_find (m->mask, m->speed, m->cols, m->rows,
      m->cols * 16, m->rows * 16, max, out);
}

static void
assert_rect (const GstMotionRegion * r, guint x, guint y, guint w, guint h,
    guint moving, guint blocks)
{
  g_assert_cmpuint (r->x, ==, x);
  g_assert_cmpuint (r->y, ==, y);
  g_assert_cmpuint (r->w, ==, w);
  g_assert_cmpuint (r->h, ==, h);
  g_assert_cmpuint (r->moving, ==, moving);
  g_assert_cmpuint (r->blocks, ==, blocks);
}

static void
test_empty (void)
{
  const gchar *const lines[] = { "....", "....", NULL };
  GstMotionRegion r[4];
  Mask m = mask_from (lines);

  g_assert_cmpuint (find (&m, 4, r), ==, 0);
  /* no room asked for: nothing written */
  m.mask[0] = 1;
  g_assert_cmpuint (find (&m, 0, r), ==, 0);
  g_assert_cmpuint (find (&m, 4, r), ==, 1);
  mask_clear (&m);
}

static void
test_one_square (void)
{
  const gchar *const lines[] = {
    "........",
    "..##....",
    "..##....",
    "........",
    NULL
  };
  GstMotionRegion r[4];
  Mask m = mask_from (lines);

  g_assert_cmpuint (find (&m, 4, r), ==, 1);
  assert_rect (&r[0], 32, 16, 32, 32, 4, 4);
  /* blocks 10, 11, 18, 19: speeds 11 + 12 + 19 + 20 */
  g_assert_cmpuint (r[0].speed_sum, ==, 62);
  mask_clear (&m);
}

/* Corners touch: one component (8-connectivity); a gap of one block
 * does not. */
static void
test_connectivity (void)
{
  const gchar *const lines[] = {
    "#.....",
    ".#..#.",
    "..#...",
    NULL
  };
  GstMotionRegion r[4];
  Mask m = mask_from (lines);

  g_assert_cmpuint (find (&m, 4, r), ==, 2);
  assert_rect (&r[0], 0, 0, 48, 48, 3, 9);
  assert_rect (&r[1], 64, 16, 16, 16, 1, 1);
  mask_clear (&m);
}

/* The last column and row are partial macroblocks of a 100x70 frame. */
static void
test_clipped (void)
{
  const gchar *const lines[] = {
    ".......",
    ".......",
    ".......",
    ".......",
    ".....##",
    NULL
  };
  GstMotionRegion r[2];
  Mask m = mask_from (lines);

  g_assert_cmpuint (gst_motion_regions_find (m.mask, m.speed, m.cols,
          m.rows, 100, 70, 2, r), ==, 1);
  assert_rect (&r[0], 80, 64, 20, 6, 2, 2);
  mask_clear (&m);
}

/* Three blobs into two: A and B (one block apart) grow by one block,
 * any pair with C by far more. */
static void
test_merge_nearest (void)
{
  const gchar *const lines[] = {
    "#.#.....",
    "........",
    "........",
    "......##",
    NULL
  };
  GstMotionRegion r[3];
  Mask m = mask_from (lines);

  g_assert_cmpuint (find (&m, 3, r), ==, 3);
  g_assert_cmpuint (find (&m, 2, r), ==, 2);
  assert_rect (&r[0], 0, 0, 48, 16, 2, 3);
  assert_rect (&r[1], 96, 48, 32, 16, 2, 2);
  g_assert_cmpuint (r[0].speed_sum, ==, 1 + 3);
  g_assert_cmpuint (find (&m, 1, r), ==, 1);
  assert_rect (&r[0], 0, 0, 128, 64, 4, 32);
  mask_clear (&m);
}

/* A tie between A+B and B+C (one block each): the first pair merges. */
static void
test_merge_tie (void)
{
  const gchar *const lines[] = { "#.#.#", NULL };
  GstMotionRegion r[2];
  Mask m = mask_from (lines);

  g_assert_cmpuint (find (&m, 2, r), ==, 2);
  assert_rect (&r[0], 0, 0, 48, 16, 2, 3);
  assert_rect (&r[1], 64, 0, 16, 16, 1, 1);
  mask_clear (&m);
}

/* A ring and the block inside it are two components whose boxes
 * overlap: merged even though two regions are allowed. */
static void
test_overlap_merged (void)
{
  const gchar *const lines[] = {
    "#####.",
    "#...#.",
    "#.#.#.",
    "#...#.",
    "#####.",
    ".....#",
    NULL
  };
  GstMotionRegion r[4];
  Mask m = mask_from (lines);

  /* the last block touches the ring at a corner, so it joins the ring;
   * the centre block's box lies inside the ring's */
  g_assert_cmpuint (find (&m, 4, r), ==, 1);
  assert_rect (&r[0], 0, 0, 96, 96, 18, 36);
  mask_clear (&m);
}

/* Raster order of the top-left corners, whatever the order of the
 * components' first blocks. */
static void
test_raster_order (void)
{
  const gchar *const lines[] = {
    "....#",
    "#...#",
    "#....",
    NULL
  };
  GstMotionRegion r[4];
  Mask m = mask_from (lines);

  g_assert_cmpuint (find (&m, 4, r), ==, 2);
  assert_rect (&r[0], 64, 0, 16, 32, 2, 2);
  assert_rect (&r[1], 0, 16, 16, 32, 2, 2);
  mask_clear (&m);
}

/* 32 x 32 isolated blocks (a gap of one all round): 1024 components,
 * labelled on the 2x2 grid where they all touch: one region over them. */
static void
test_noise_coarsened (void)
{
  const guint n = 64;
  guint8 *mask = g_new0 (guint8, n * n);
  GstMotionRegion r[8];

  for (guint y = 0; y < n; y += 2)
    for (guint x = 0; x < n; x += 2)
      mask[y * n + x] = 1;
  g_assert_cmpuint (gst_motion_regions_find (mask, NULL, n, n, n * 16,
          n * 16, 8, r), ==, 1);
  assert_rect (&r[0], 0, 0, 63 * 16, 63 * 16, 1024, 63 * 63);
  g_assert_cmpuint (r[0].speed_sum, ==, 0);
  g_free (mask);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/motion-regions/empty", test_empty);
  g_test_add_func ("/motion-regions/one-square", test_one_square);
  g_test_add_func ("/motion-regions/connectivity", test_connectivity);
  g_test_add_func ("/motion-regions/clipped", test_clipped);
  g_test_add_func ("/motion-regions/merge-nearest", test_merge_nearest);
  g_test_add_func ("/motion-regions/merge-tie", test_merge_tie);
  g_test_add_func ("/motion-regions/overlap-merged", test_overlap_merged);
  g_test_add_func ("/motion-regions/raster-order", test_raster_order);
  g_test_add_func ("/motion-regions/noise-coarsened", test_noise_coarsened);
  return g_test_run ();
}
