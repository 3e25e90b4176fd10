/* gpumotionest — the stabiliser's camera path (gst/mvstabilize/stabpath.c):
 * lookahead and draining, a steady pan left alone, jitter removed to a
 * measured residual, borders never shown, the crop smooth, cuts and
 * unreliable models.
 */
#include <glib.h>
#include <math.h>

#include "stabpath.h"

#define W 640
#define H 360

/* A camera pose as stabpath.c composes them: frame pixel p lies in the
 * world at c + (x, y) + e^ls R(phi) (p - c). */
typedef struct {
  double x, y, phi, ls;
} Pose;

static Pose
compose (Pose a, Pose b)
{
  const double s = exp (a.ls), c = cos (a.phi), n = sin (a.phi);
  Pose r = { a.x + s * (c * b.x - n * b.y), a.y + s * (n * b.x + c * b.y),
    a.phi + b.phi, a.ls + b.ls
  };
  return r;
}

static Pose
invert (Pose a)
{
  const double s = exp (-a.ls), c = cos (-a.phi), n = sin (-a.phi);
  Pose r = { -s * (c * a.x - n * a.y), -s * (n * a.x + c * a.y), -a.phi,
    -a.ls
  };
  return r;
}

/* The motion of frame t against frame t - 1 as the summary reports it,
 * from the camera's poses. */
static StabMotion
motion_between (Pose prev, Pose cur)
{
  const Pose m = compose (invert (prev), cur);
  StabMotion r = { FALSE, TRUE, m.x, m.y, -m.phi, exp (-m.ls) - 1 };
  return r;
}

static Pose
pose_of_output (const StabOutput * o)
{
  Pose p = { o->dx, o->dy, o->angle, log (o->scale) };
  return p;
}

static void
test_lookahead_and_drain (void)
{
  StabPath *p = stab_path_new (W, H, 12, 1.2);
  StabOutput o;
  StabMotion m = { FALSE, TRUE, 1, 0, 0, 0 };
  for (int i = 0; i < 12; i++) {
    stab_path_push (p, &m);
    g_assert_false (stab_path_pop (p, FALSE, &o));
  }
  g_assert_cmpuint (stab_path_pending (p), ==, 12);
  stab_path_push (p, &m);
  g_assert_true (stab_path_pop (p, FALSE, &o));
  g_assert_cmpuint (o.index, ==, 0);
  g_assert_false (stab_path_pop (p, FALSE, &o));
  unsigned n = 0;
  while (stab_path_pop (p, TRUE, &o))
    g_assert_cmpuint (o.index, ==, 1 + n++);
  g_assert_cmpuint (n, ==, 12);
  g_assert_cmpuint (stab_path_pending (p), ==, 0);
  /* a flush forgets what waits */
  for (int i = 0; i < 5; i++)
    stab_path_push (p, &m);
  stab_path_reset (p);
  g_assert_cmpuint (stab_path_pending (p), ==, 0);
  g_assert_false (stab_path_pop (p, TRUE, &o));
  stab_path_push (p, &m);
  g_assert_true (stab_path_pop (p, TRUE, &o));
  g_assert_true (o.segment_start);
  g_assert_cmpuint (o.index, ==, 0);
  stab_path_free (p);

  /* lookahead 0: each frame comes out at once, unmoved */
  p = stab_path_new (W, H, 0, 1.2);
  for (int i = 0; i < 4; i++) {
    stab_path_push (p, &m);
    g_assert_true (stab_path_pop (p, FALSE, &o));
    g_assert_false (o.corrected);
    g_assert_cmpfloat (o.crop, ==, 1.0);
  }
  stab_path_free (p);
}

/* A steady pan with a steady turn and zoom: the smoothing keeps it (the
 * window is symmetric), so no frame is moved or zoomed beyond the bias of
 * averaging a curved path (a shift steady in the frame's own axes turns
 * with the camera, an arc in the segment's: acceleration 3 px x 0.001 rad
 * a frame, times half the window's variance, 10^2 / 2: 0.15 px). */
static void
test_steady_pan (void)
{
  StabPath *p = stab_path_new (W, H, 30, 1.3);
  StabMotion m = { FALSE, TRUE, 3.0, -1.0, 0.001, 0.0005 };
  StabOutput o;
  unsigned n = 0;
  for (int i = 0; i < 120; i++) {
    stab_path_push (p, &m);
    while (stab_path_pop (p, i == 119, &o)) {
      g_assert_cmpfloat (fabs (o.dx), <, 0.15);
      g_assert_cmpfloat (fabs (o.dy), <, 0.15);
      g_assert_cmpfloat (fabs (o.angle), <, 1e-6);
      g_assert_cmpfloat (fabs (log (o.scale)), <, 1e-3);
      g_assert_cmpfloat (o.crop, <, 1.001);
      n++;
    }
  }
  g_assert_cmpuint (n, ==, 120);
  stab_path_free (p);
}

/* Whether the output's corners, through its map, land in the input. */
static gboolean
corners_inside (const StabOutput * o)
{
  double m[6];
  stab_output_affine (o, W, H, m);
  for (int k = 0; k < 4; k++) {
    const double x = k & 1 ? W - 1 : 0, y = k & 2 ? H - 1 : 0;
    const double sx = m[0] * x + m[1] * y + m[4];
    const double sy = m[2] * x + m[3] * y + m[5];
    if (sx < -1e-6 || sy < -1e-6 || sx > W - 1 + 1e-6 || sy > H - 1 + 1e-6)
      return FALSE;
  }
  return TRUE;
}

/* A smooth path (a slow pan and turn) with hand-shake on it: the output
 * camera (the input's pose after the correction, zoom aside) follows the
 * smooth path within a quarter of the shake, the borders never show and
 * the crop changes by little from frame to frame. */
static void
test_jitter (void)
{
  const int n = 300, L = 30;
  GRand *rand = g_rand_new_with_seed (7);
  Pose *smooth = g_new (Pose, n), *cam = g_new (Pose, n);
  double jx2 = 0, ja2 = 0;
  for (int t = 0; t < n; t++) {
    smooth[t] = (Pose) { 1.5 * t + 20 * sin (t / 40.0), 8 * sin (t / 60.0),
      0.02 * sin (t / 50.0), 0.03 * sin (t / 90.0) };
    const double jx = g_rand_double_range (rand, -4, 4);
    const double jy = g_rand_double_range (rand, -4, 4);
    const double ja = g_rand_double_range (rand, -0.5, 0.5) * G_PI / 180;
    cam[t] = smooth[t];
    cam[t].x += jx;
    cam[t].y += jy;
    cam[t].phi += ja;
    jx2 += jx * jx;
    ja2 += ja * ja;
  }
  StabPath *p = stab_path_new (W, H, L, 1.25);
  StabOutput o;
  double rx2 = 0, ra2 = 0, prev_crop = 0, max_step = 0, max_crop = 0;
  unsigned rn = 0, out = 0;
  /* the output camera's pose relative to frame 0's, minus the smooth
   * path's, should be constant: measured about its mean */
  double *res_x = g_new (double, n), *res_a = g_new (double, n);
  for (int t = 0; t < n; t++) {
    StabMotion m = t ? motion_between (cam[t - 1], cam[t])
        : (StabMotion) { TRUE, TRUE, 0, 0, 0, 0 };
    stab_path_push (p, &m);
    while (stab_path_pop (p, t == n - 1, &o)) {
      const int i = (int) o.index;
      g_assert_true (corners_inside (&o));
      g_assert_cmpfloat (o.crop, >=, 1.0);
      g_assert_cmpfloat (o.crop, <=, 1.25);
      if (out)
        max_step = MAX (max_step, fabs (o.crop - prev_crop));
      prev_crop = o.crop;
      max_crop = MAX (max_crop, o.crop);
      /* the correction without the crop, applied to the camera */
      StabOutput c = o;
      c.scale = o.scale * o.crop;
      const Pose pc = compose (compose (invert (cam[0]), cam[i]),
          pose_of_output (&c));
      const Pose ps = compose (invert (cam[0]), smooth[i]);
      res_x[i] = pc.x - ps.x;
      res_a[i] = pc.phi - ps.phi;
      out++;
    }
  }
  g_assert_cmpuint (out, ==, n);
  /* the interior, where the window is whole */
  double mx = 0, ma = 0;
  for (int t = L; t < n - L; t++) {
    mx += res_x[t];
    ma += res_a[t];
    rn++;
  }
  mx /= rn;
  ma /= rn;
  for (int t = L; t < n - L; t++) {
    rx2 += (res_x[t] - mx) * (res_x[t] - mx);
    ra2 += (res_a[t] - ma) * (res_a[t] - ma);
  }
  /* frame to frame: the jitter one sees, against the shake's own
   * (white: sqrt 2 times its RMS) */
  double dx2 = 0, da2 = 0;
  for (int t = L + 1; t < n - L; t++) {
    dx2 += (res_x[t] - res_x[t - 1]) * (res_x[t] - res_x[t - 1]);
    da2 += (res_a[t] - res_a[t - 1]) * (res_a[t] - res_a[t - 1]);
  }
  const double jit_x = sqrt (jx2 / n), jit_a = sqrt (ja2 / n);
  const double res_xr = sqrt (rx2 / rn), res_ar = sqrt (ra2 / rn);
  const double step_x = sqrt (dx2 / (rn - 1)), step_a = sqrt (da2 / (rn - 1));
  g_test_message ("shake %.3f px, %.4f deg; residual %.3f px, %.4f deg, "
      "frame to frame %.3f px, %.4f deg (shake's %.3f, %.4f); crop up to "
      "%.4f, largest step %.5f", jit_x, jit_a * 180 / G_PI, res_xr,
      res_ar * 180 / G_PI, step_x, step_a * 180 / G_PI, jit_x * G_SQRT2,
      jit_a * G_SQRT2 * 180 / G_PI, max_crop, max_step);
  /* the residual includes the Gaussian's bias on the curved smooth path
   * (20 sin (t / 40): 0.0125 px a frame^2, times 10^2 / 2, 0.6 px), slow;
   * from frame to frame the shake is gone to a few per cent */
  g_assert_cmpfloat (res_xr, <, 0.35 * jit_x);
  g_assert_cmpfloat (res_ar, <, 0.25 * jit_a);
  g_assert_cmpfloat (step_x, <, 0.05 * jit_x * G_SQRT2);
  g_assert_cmpfloat (step_a, <, 0.05 * jit_a * G_SQRT2);
  g_assert_cmpfloat (max_crop, >, 1.0);
  g_assert_cmpfloat (max_step, <, 0.01);
  g_free (res_x);
  g_free (res_a);
  g_free (smooth);
  g_free (cam);
  g_rand_free (rand);
  stab_path_free (p);
}

/* A cut starts a segment: its first frame and the last before it are not
 * moved; an unreliable model leaves its frame unmoved and the path goes
 * on with the previous motion. */
static void
test_cut_and_unreliable (void)
{
  StabPath *p = stab_path_new (W, H, 12, 1.3);
  StabOutput o[80];
  unsigned n = 0;
  GRand *rand = g_rand_new_with_seed (3);
  for (int t = 0; t < 80; t++) {
    StabMotion m = { t == 40, t != 20, g_rand_double_range (rand, -3, 3), 2,
      0, 0
    };
    stab_path_push (p, &m);
    while (stab_path_pop (p, t == 79, &o[n]))
      n++;
  }
  g_assert_cmpuint (n, ==, 80);
  g_assert_true (o[0].segment_start);
  g_assert_true (o[40].segment_start);
  for (int t = 1; t < 80; t++)
    if (t != 40)
      g_assert_false (o[t].segment_start);
  g_assert_false (o[39].corrected);
  g_assert_false (o[40].corrected);
  g_assert_false (o[20].corrected);
  g_assert_cmpfloat (o[20].dx, ==, 0);
  g_assert_true (o[30].corrected);
  /* frame 20 took frame 19's motion: the raw path goes on */
  g_assert_cmpfloat (fabs ((o[20].raw[0] - o[19].raw[0])
          - (o[19].raw[0] - o[18].raw[0])), <, 1e-9);
  /* the pose restarts at the cut */
  g_assert_cmpfloat (o[40].raw[0], ==, 0);
  g_assert_cmpfloat (o[40].raw[1], ==, 0);
  g_rand_free (rand);
  stab_path_free (p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stabpath/lookahead-and-drain", test_lookahead_and_drain);
  g_test_add_func ("/stabpath/steady-pan", test_steady_pan);
  g_test_add_func ("/stabpath/jitter", test_jitter);
  g_test_add_func ("/stabpath/cut-and-unreliable", test_cut_and_unreliable);
  return g_test_run ();
}
