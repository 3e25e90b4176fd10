/* gpumotionest — H.264 fractional luma samples and the 4x4 SATD, case by
 * case.
 *
 * Every expected value below was worked out by hand from ITU-T H.264
 * clause 8.4.2.2.1 (equations 8-241 to 8-261, table 8-12): the 6-tap
 * (1, -5, 20, 20, -5, 1) half samples with (x + 16) >> 5 and (x + 512) >> 10
 * rounding and Clip1, and the quarter samples as rounded means of their two
 * neighbours.  checkasm compares whole refinements with a naive version of
 * the same clause; these pin the arithmetic to numbers.
 */
#include <glib.h>
#include <string.h>

#include "subpel_rules.h"

/* A 12x12 picture, plane origin at pixel (4, 4), so that taps from -2 to +3
 * stay inside. */
#define N 12
#define O (4 * N + 4)

static void
fill_rows (guint8 pic[N * N], const int row[N])
{
  for (int y = 0; y < N; y++)
    for (int x = 0; x < N; x++)
      pic[y * N + x] = row[x];
}

/* The quarter sample at fraction (fx, fy) of the origin, read as the
 * backends read it: the rounded mean of the two planes me_subpel_pair()
 * names.  Half planes are computed at the offsets needed. */
static int
sample (const guint8 pic[N * N], int fx, int fy)
{
  const unsigned v = me_subpel_pair (fx, fy);
  int s[2];
  for (int k = 0; k < 2; k++) {
    const unsigned e = k ? v >> 4 : v & 15;
    const guint8 *p = pic + O + ME_SP_DY (e) * N + ME_SP_DX (e);
    switch (ME_SP_PLANE (e)) {
      case ME_HPEL_F: s[k] = *p; break;
      case ME_HPEL_H: s[k] = me_hpel_h (p, N); break;
      case ME_HPEL_V: s[k] = me_hpel_v (p, N); break;
      default: s[k] = me_hpel_c (p, N); break;
    }
  }
  return (s[0] + s[1] + 1) >> 1;
}

static void
test_half_horizontal (void)
{
  guint8 pic[N * N];
  /* E..J = 10, 20, 30, 40, 50, 60 around the origin (x = 4 is G):
   * b1 = 10 - 100 + 600 + 800 - 250 + 60 = 1120, b = (1120 + 16) >> 5 = 35 */
  const int ramp[N] = { 0, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
  fill_rows (pic, ramp);
  g_assert_cmpint (me_tap6 (pic + O, 1), ==, 1120);
  g_assert_cmpint (me_hpel_h (pic + O, N), ==, 35);
  /* all rows equal: no vertical change, h = G = 30 */
  g_assert_cmpint (me_hpel_v (pic + O, N), ==, 30);
  /* j1 = 32 x b1 (the taps sum to 32), j = (35840 + 512) >> 10 = 35 */
  g_assert_cmpint (me_hpel_c (pic + O, N), ==, 35);
  /* a = (G + b + 1) >> 1 = (30 + 35 + 1) >> 1 = 33;
   * c = (H + b + 1) >> 1 = (40 + 35 + 1) >> 1 = 38 */
  g_assert_cmpint (sample (pic, 1, 0), ==, 33);
  /* h and j through the table: 30 and 35 */
  g_assert_cmpint (sample (pic, 0, 2), ==, 30);
  g_assert_cmpint (sample (pic, 2, 2), ==, 35);
  g_assert_cmpint (sample (pic, 2, 0), ==, 35);
  g_assert_cmpint (sample (pic, 3, 0), ==, 38);
  /* d = (G + h + 1) >> 1 = 30; n = (M + h + 1) >> 1 = 30 */
  g_assert_cmpint (sample (pic, 0, 1), ==, 30);
  g_assert_cmpint (sample (pic, 0, 3), ==, 30);
  /* e = (b + h + 1) >> 1 = (35 + 30 + 1) >> 1 = 33;
   * g = (b + m + 1) >> 1, m = h at x + 1 = 40: (35 + 40 + 1) >> 1 = 38 */
  g_assert_cmpint (sample (pic, 1, 1), ==, 33);
  g_assert_cmpint (sample (pic, 3, 1), ==, 38);
  /* f = (b + j + 1) >> 1 = 35; k = (j + m + 1) >> 1 = (35 + 40 + 1) >> 1
   * = 38; q = (j + s + 1) >> 1, s = b one row down = 35: 35 */
  g_assert_cmpint (sample (pic, 2, 1), ==, 35);
  g_assert_cmpint (sample (pic, 3, 2), ==, 38);
  g_assert_cmpint (sample (pic, 2, 3), ==, 35);
  /* r = (m + s + 1) >> 1 = (40 + 35 + 1) >> 1 = 38 */
  g_assert_cmpint (sample (pic, 3, 3), ==, 38);
}

static void
test_clipping (void)
{
  guint8 pic[N * N];
  /* E..J = 0, 0, 255, 255, 0, 0: b1 = 20 x 255 x 2 = 10200,
   * (10200 + 16) >> 5 = 319, clipped to 255 */
  const int peak[N] = { 0, 0, 0, 0, 255, 255, 0, 0, 0, 0, 0, 0 };
  fill_rows (pic, peak);
  g_assert_cmpint (me_tap6 (pic + O, 1), ==, 10200);
  g_assert_cmpint (me_hpel_h (pic + O, N), ==, 255);
  /* E..J = 255, 255, 0, 0, 255, 255: b1 = 255 - 1275 - 1275 + 255 = -2040,
   * (-2040 + 16) >> 5 = -64 (arithmetic shift), clipped to 0 */
  const int dip[N] = { 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 0, 0 };
  fill_rows (pic, dip);
  g_assert_cmpint (me_tap6 (pic + O, 1), ==, -2040);
  g_assert_cmpint (me_hpel_h (pic + O, N), ==, 0);
  /* j over six rows of b1 = -2040: j1 = 32 x -2040 = -65280,
   * (-65280 + 512) >> 10 = -64, clipped to 0 */
  g_assert_cmpint (me_hpel_c (pic + O, N), ==, 0);
}

static void
test_half_vertical_and_centre (void)
{
  guint8 pic[N * N];
  /* rows y = 2..7 hold 10, 20, 30, 40, 50, 60, every column alike:
   * h = 35 as b was above, b = G = 30, j = 35, m = h = 35, s = b one row
   * down = G(x, y + 1) = 40 */
  for (int y = 0; y < N; y++)
    for (int x = 0; x < N; x++)
      pic[y * N + x] = y < 2 ? 0 : 10 * (y - 1);
  g_assert_cmpint (me_hpel_v (pic + O, N), ==, 35);
  g_assert_cmpint (me_hpel_h (pic + O, N), ==, 30);
  g_assert_cmpint (me_hpel_c (pic + O, N), ==, 35);
  /* i = (h + j + 1) >> 1 = 35; p = (h + s + 1) >> 1 = (35 + 40 + 1) >> 1
   * = 38; d = (G + h + 1) >> 1 = 33; n = (M + h + 1) >> 1 = 38 */
  g_assert_cmpint (sample (pic, 1, 2), ==, 35);
  g_assert_cmpint (sample (pic, 1, 3), ==, 38);
  g_assert_cmpint (sample (pic, 0, 1), ==, 33);
  g_assert_cmpint (sample (pic, 0, 3), ==, 38);
}

/* The diagonal half sample, with a picture that varies both ways:
 * G(x, y) = x + 10 y on the 6x6 taps.  A plane is linear, and every 6-tap
 * half sample of a linear ramp is its value at the half position:
 * b1 = 32 (G + 1/2), j1 = 1024 (G + 1/2 + 5). */
static void
test_diagonal (void)
{
  guint8 pic[N * N];
  for (int y = 0; y < N; y++)
    for (int x = 0; x < N; x++)
      pic[y * N + x] = x + 10 * y;
  /* G at the origin = 4 + 40 = 44: b1 = 32 x 44.5 = 1424, b = 1440 >> 5 =
   * 45; h1 = 32 x 49 = 1568, h = 1584 >> 5 = 49; j1 = 1024 x 49.5 = 50688,
   * j = 51200 >> 10 = 50 */
  g_assert_cmpint (me_tap6 (pic + O, 1), ==, 1424);
  g_assert_cmpint (me_hpel_h (pic + O, N), ==, 45);
  g_assert_cmpint (me_hpel_v (pic + O, N), ==, 49);
  g_assert_cmpint (me_hpel_c (pic + O, N), ==, 50);
  /* e = (b + h + 1) >> 1 = (45 + 49 + 1) >> 1 = 47 */
  g_assert_cmpint (sample (pic, 1, 1), ==, 47);
  /* r = (m + s + 1) >> 1, m = h at x + 1 = 50, s = b at y + 1 = 55:
   * (50 + 55 + 1) >> 1 = 53 */
  g_assert_cmpint (sample (pic, 3, 3), ==, 53);
}

static void
test_satd (void)
{
  int d[16];
  /* a flat difference: only the DC coefficient, 16, halved: 8 */
  for (int i = 0; i < 16; i++)
    d[i] = 1;
  g_assert_cmpuint (me_satd4x4 (d), ==, 8);
  /* one difference of 1: every coefficient is +-1, 16 in all, halved: 8 */
  memset (d, 0, sizeof (d));
  d[5] = 1;
  g_assert_cmpuint (me_satd4x4 (d), ==, 8);
  /* the pattern of Hadamard row 1 (x) row 1, (+1 +1 -1 -1) both ways:
   * one coefficient, 16, halved: 8 (its SAD is 16) */
  static const int r1[4] = { 1, 1, -1, -1 };
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++)
      d[4 * y + x] = r1[y] * r1[x];
  g_assert_cmpuint (me_satd4x4 (d), ==, 8);
  /* the largest: +255 and -255 in a checkerboard of Hadamard rows 3 x 3
   * gives one coefficient 16 x 255 = 4080, halved: 2040 */
  static const int r3[4] = { 1, -1, 1, -1 };
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++)
      d[4 * y + x] = 255 * r3[y] * r3[x];
  g_assert_cmpuint (me_satd4x4 (d), ==, 2040);
  /* d = (1, 2, 3, 4) in every row: coefficients 40 (DC), -16 (row 1 of
   * the columns' transform... worked out: the row transform of (1, 2, 3, 4)
   * is (10, -4, 0, -2); four equal rows keep only the first row of the
   * column transform, 4 x (10, -4, 0, -2): |40| + 16 + 0 + 8 = 64, halved */
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++)
      d[4 * y + x] = x + 1;
  g_assert_cmpuint (me_satd4x4 (d), ==, 32);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/subpel/half-horizontal", test_half_horizontal);
  g_test_add_func ("/subpel/clipping", test_clipping);
  g_test_add_func ("/subpel/half-vertical-centre",
      test_half_vertical_and_centre);
  g_test_add_func ("/subpel/diagonal", test_diagonal);
  g_test_add_func ("/subpel/satd", test_satd);
  return g_test_run ();
}
