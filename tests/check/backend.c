/* gpumotionest — the backend seam's checks of what a backend can do, on a
 * backend table made up here: me_backend_supports() must refuse each
 * thing the caps leave out, by name, and the range limits must hold for
 * every method (full search up to ME_MAX_FULL_RANGE, the fast methods and
 * windows off centre to ME_MAX_RANGE).
 */
#include <glib.h>
#include <string.h>

#include "me_backend.h"
#include "me_cost.h"

/* A backend that offers full search and mods only, up to ±64 (full search
 * centred up to ±48): nothing in it is ever called. */
static const MEBackendOps partial = {
  .name = "partial",
  .caps = {
    .methods = 1u << GST_MOTION_VECTOR_METHOD_FULL
        | 1u << GST_MOTION_VECTOR_METHOD_MODS,
    .refinements = 1u << ME_REFINE_NONE,
    .metrics = 1u << ME_METRIC_SAD,
    .rate = FALSE,
    .max_range = 64,
    .max_full_range = 48,
  },
};

static void
expect_refused (const MESearchParams * params, const char *message)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (me_backend_supports (&partial, params, &error));
  g_assert_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED);
  g_assert_cmpstr (error->message, ==, message);
}

static void
test_supports (void)
{
  MESearchParams params;

  me_search_params_init (&params);
  g_assert_true (me_backend_supports (&partial, &params, NULL));
  params.method = GST_MOTION_VECTOR_METHOD_MODS;
  g_assert_true (me_backend_supports (&partial, &params, NULL));

  params.method = GST_MOTION_VECTOR_METHOD_HIERARCHICAL;
  expect_refused (&params, "the partial backend has no search method "
      "hierarchical");
  params.method = GST_MOTION_VECTOR_METHOD_PREDICTIVE;
  expect_refused (&params, "the partial backend has no search method "
      "predictive");
  params.method = 17;
  expect_refused (&params, "the partial backend has no search method 17");

  me_search_params_init (&params);
  params.refine = ME_REFINE_QUARTER;
  expect_refused (&params, "the partial backend has no refinement 2");
  me_search_params_init (&params);
  params.lambda = 4;
  expect_refused (&params, "the partial backend has no rate-constrained "
      "decision (lambda)");
  me_search_params_init (&params);
  params.search_range = 48;
  g_assert_true (me_backend_supports (&partial, &params, NULL));
  params.search_range = 49;
  expect_refused (&params, "the partial backend's full search goes up to "
      "±48, not ±49");
  /* off centre: the window's reach against max_range */
  params.search_range = 40;
  params.offset_x = -24;
  g_assert_true (me_backend_supports (&partial, &params, NULL));
  params.offset_x = -25;
  expect_refused (&params, "the partial backend searches at most ±64, not "
      "±65");
  me_search_params_init (&params);
  params.method = GST_MOTION_VECTOR_METHOD_MODS;
  params.search_range = 64;
  g_assert_true (me_backend_supports (&partial, &params, NULL));
  params.search_range = 65;
  expect_refused (&params, "the partial backend searches at most ±64, not "
      "±65");
}

/* me_check_input(): the fast methods stop at ME_MAX_RANGE, full search at
 * ME_MAX_FULL_RANGE. */
static void
test_range_limits (void)
{
  static guint8 pixels[16 * 16];
  GstMotionVectorCell cell;
  const MEPlane plane = { pixels, 16, 16, 16 };
  MEField field = { 1, 1, { &cell }, FALSE };
  MESearchParams params;

  me_search_params_init (&params);
  for (int m = GST_MOTION_VECTOR_METHOD_FULL;
      m <= GST_MOTION_VECTOR_METHOD_PREDICTIVE; m++) {
    g_autoptr (GError) error = NULL;
    const gboolean full = m == GST_MOTION_VECTOR_METHOD_FULL;
    params.method = m;
    params.search_range = ME_MAX_RANGE;
    g_assert_true (me_check_input (&plane, &params, &field, NULL));
    params.search_range = ME_MAX_RANGE + 1;
    g_assert_true (me_check_input (&plane, &params, &field, &error) == full);
    if (error)
      g_assert_cmpstr (error->message, ==, "the fast methods go up to ±256, "
          "not ±257: use method full for larger ranges (up to ±511)");
    g_clear_error (&error);
    params.search_range = ME_MAX_FULL_RANGE;
    g_assert_true (me_check_input (&plane, &params, &field, NULL) == full);
    params.search_range = ME_MAX_FULL_RANGE + 1;
    g_assert_false (me_check_input (&plane, &params, &field, &error));
    g_assert_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==, "search range 512 outside 1 .. 511");
  }
}

/* me_check_input(): a window off centre is for full search, and stays
 * within ME_MAX_RANGE. */
static void
test_window_offset (void)
{
  static guint8 pixels[16 * 16];
  GstMotionVectorCell cell;
  const MEPlane plane = { pixels, 16, 16, 16 };
  MEField field = { 1, 1, { &cell }, FALSE };
  MESearchParams params;
  g_autoptr (GError) error = NULL;

  me_search_params_init (&params);
  params.search_range = 64;
  params.offset_x = -192;
  g_assert_true (me_check_input (&plane, &params, &field, NULL));
  params.offset_x = 193;
  g_assert_false (me_check_input (&plane, &params, &field, &error));
  g_assert_cmpstr (error->message, ==, "window offset 193 and range 64 reach "
      "past ±256");
  g_clear_error (&error);
  params.offset_x = 8;
  params.method = GST_MOTION_VECTOR_METHOD_MODS;
  g_assert_false (me_check_input (&plane, &params, &field, &error));
  g_assert_cmpstr (error->message, ==, "a window centred off zero (offset 8) "
      "is searched by method full only");
  g_clear_error (&error);
  /* wider than tall: full search, and never taller than wide */
  params.offset_x = 0;
  params.range_y = 4;
  g_assert_false (me_check_input (&plane, &params, &field, &error));
  g_clear_error (&error);
  params.method = GST_MOTION_VECTOR_METHOD_FULL;
  g_assert_true (me_check_input (&plane, &params, &field, NULL));
  params.range_y = 65;
  g_assert_false (me_check_input (&plane, &params, &field, &error));
  g_assert_cmpstr (error->message, ==, "a window of ±64 across and ±65 down: "
      "the height goes up to the width, and a window wider than tall is "
      "searched by method full only");
}

/* me_check_input(): a packed or RGB row is width x step bytes, every byte
 * read lies within its pixel, RGB weights sum to 256, and neither kind is
 * read from device memory. */
static void
test_luma_layout (void)
{
  static guint8 pixels[64 * 16];
  GstMotionVectorCell cell;
  MEField field = { 1, 1, { &cell }, FALSE };
  MESearchParams params;
  const MEPlane yuy2 = { pixels, 32, 16, 16, FALSE, ME_LUMA_PACKED, 2, {0} };
  const MEPlane bgrx = { pixels, 64, 16, 16, FALSE, ME_LUMA_RGB, 4,
    {2, 1, 0}, {77, 150, 29}
  };
  MEPlane bad;
  g_autoptr (GError) error = NULL;

  me_search_params_init (&params);
  g_assert_true (me_check_input (&yuy2, &params, &field, NULL));
  g_assert_true (me_check_input (&bgrx, &params, &field, NULL));

  bad = yuy2;
  bad.stride = 31;
  g_assert_false (me_check_input (&bad, &params, &field, &error));
  g_assert_cmpstr (error->message, ==, "luma stride 31 smaller than width "
      "16 x 2 bytes per pixel");
  g_clear_error (&error);
  bad = yuy2;
  bad.offset[0] = 2;
  g_assert_false (me_check_input (&bad, &params, &field, &error));
  g_assert_cmpstr (error->message, ==, "luma byte offset 2 outside its "
      "2-byte pixel");
  g_clear_error (&error);
  bad = bgrx;
  bad.weights[2] = 30;
  g_assert_false (me_check_input (&bad, &params, &field, &error));
  g_assert_cmpstr (error->message, ==, "luma weights 77 + 150 + 30 do not "
      "sum to 256");
  g_clear_error (&error);
  bad = bgrx;
  bad.on_device = TRUE;
  g_assert_false (me_check_input (&bad, &params, &field, &error));
  g_assert_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID);
  g_clear_error (&error);
  bad = bgrx;
  bad.step = 0;
  g_assert_false (me_check_input (&bad, &params, &field, &error));
  g_assert_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/backend/supports", test_supports);
  g_test_add_func ("/backend/range-limits", test_range_limits);
  g_test_add_func ("/backend/window-offset", test_window_offset);
  g_test_add_func ("/backend/luma-layout", test_luma_layout);
  return g_test_run ();
}
