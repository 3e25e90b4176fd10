/* gpumotionest — the camera path of a stabiliser (stabpath.h). */
#include "stabpath.h"

#include <math.h>

/* A similarity about the frame centre c: p -> c + d + e^ls R(phi) (p - c),
 * R(phi) turning clockwise on screen (y down). */
typedef struct {
  double x, y;
  double phi;
  double ls;
} Sim;

static const Sim sim_identity = { 0, 0, 0, 0 };

/* a after b: p -> a (b (p)) */
static Sim
sim_compose (Sim a, Sim b)
{
  const double s = exp (a.ls), c = cos (a.phi), n = sin (a.phi);
  Sim r = { a.x + s * (c * b.x - n * b.y), a.y + s * (n * b.x + c * b.y),
    a.phi + b.phi, a.ls + b.ls
  };
  return r;
}

static Sim
sim_invert (Sim a)
{
  const double s = exp (-a.ls), c = cos (-a.phi), n = sin (-a.phi);
  Sim r = { -s * (c * a.x - n * a.y), -s * (n * a.x + c * a.y), -a.phi,
    -a.ls
  };
  return r;
}

typedef struct {
  Sim pose;                  /* this frame's pixels -> the segment's first
                              * frame's */
  guint64 segment;
  gboolean reliable;
  gboolean start;
} Frame;

struct _StabPath {
  unsigned width, height;
  unsigned lookahead;
  unsigned rp, rc;           /* path and crop radii */
  double max_zoom;
  GArray *frames;            /* Frame, frames[0] is number `base` */
  guint64 base;
  guint64 pushed;            /* frames pushed in all */
  guint64 next;              /* the next to pop */
  guint64 segment;
  gboolean have_held;
  Sim held;                  /* the last reliable motion of the segment */
};

void
stab_path_radii (unsigned lookahead, unsigned *path_radius,
    unsigned *crop_radius)
{
  const unsigned rc = lookahead / 6;
  *crop_radius = rc;
  *path_radius = lookahead - 2 * rc;
}

StabPath *
stab_path_new (unsigned width, unsigned height, unsigned lookahead,
    double max_zoom)
{
  g_return_val_if_fail (width > 0 && height > 0, NULL);
  g_return_val_if_fail (lookahead <= STAB_PATH_MAX_LOOKAHEAD, NULL);
  g_return_val_if_fail (max_zoom >= 1.0, NULL);
  StabPath *p = g_new0 (StabPath, 1);
  p->width = width;
  p->height = height;
  p->lookahead = lookahead;
  stab_path_radii (lookahead, &p->rp, &p->rc);
  p->max_zoom = max_zoom;
  p->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  return p;
}

void
stab_path_free (StabPath * path)
{
  if (!path)
    return;
  g_array_unref (path->frames);
  g_free (path);
}

void
stab_path_reset (StabPath * path)
{
  g_array_set_size (path->frames, 0);
  path->base = path->pushed = path->next = 0;
  path->segment++;
  path->have_held = FALSE;
}

unsigned
stab_path_pending (const StabPath * path)
{
  return (unsigned) (path->pushed - path->next);
}

static Frame *
frame_at (const StabPath * p, guint64 i)
{
  return &g_array_index (p->frames, Frame, i - p->base);
}

void
stab_path_push (StabPath * path, const StabMotion * m)
{
  Frame f = { sim_identity, 0, TRUE, FALSE };
  const gboolean valid = m->reliable && isfinite (m->dx) && isfinite (m->dy)
      && isfinite (m->angle) && isfinite (m->zoom) && m->zoom > -0.5
      && m->zoom < 1.0;
  if (m->cut || path->pushed == 0) {
    path->segment++;
    path->have_held = FALSE;
    f.start = TRUE;
  } else {
    Sim motion;
    if (valid) {
      /* this frame's pixel p lies in the previous at
       * c + d + R(-angle) (p - c) / (1 + zoom) */
      motion.x = m->dx;
      motion.y = m->dy;
      motion.phi = -m->angle;
      motion.ls = -log1p (m->zoom);
      path->held = motion;
      path->have_held = TRUE;
    } else {
      /* hold: the segment's last reliable motion, so a pan goes on */
      motion = path->have_held ? path->held : sim_identity;
      f.reliable = FALSE;
    }
    f.pose = sim_compose (frame_at (path, path->pushed - 1)->pose, motion);
  }
  f.segment = path->segment;
  g_array_append_val (path->frames, f);
  path->pushed++;
}

/* Frames of t's segment before t and after it (among those pushed), each
 * counted up to `cap`. */
static void
seg_extent (const StabPath * p, guint64 t, unsigned cap, unsigned *back,
    unsigned *fwd)
{
  const guint64 seg = frame_at (p, t)->segment;
  unsigned b = 0, f = 0;
  while (b < cap && t - b > p->base && frame_at (p, t - b - 1)->segment == seg)
    b++;
  while (f < cap && t + f + 1 < p->pushed
      && frame_at (p, t + f + 1)->segment == seg)
    f++;
  *back = b;
  *fwd = f;
}

static double
gauss (int j, unsigned radius)
{
  const double sigma = radius > 0 ? radius / 2.0 : 0.5;
  return exp (-(double) j * j / (2 * sigma * sigma));
}

/* The smoothed pose of frame t: a Gaussian of the poses over a window
 * shrunk symmetrically to the segment. */
static Sim
smoothed (const StabPath * p, guint64 t, int *radius)
{
  unsigned back, fwd;
  seg_extent (p, t, p->rp, &back, &fwd);
  const int r = (int) MIN (back, fwd);
  if (radius)
    *radius = r;
  double sw = 0, acc[4] = { 0, 0, 0, 0 };
  for (int j = -r; j <= r; j++) {
    const Sim *s = &frame_at (p, t + j)->pose;
    const double w = gauss (j, p->rp);
    acc[0] += w * s->x;
    acc[1] += w * s->y;
    acc[2] += w * s->phi;
    acc[3] += w * s->ls;
    sw += w;
  }
  Sim r_ = { acc[0] / sw, acc[1] / sw, acc[2] / sw, acc[3] / sw };
  return r_;
}

/* The correction of frame t before the crop: its pixels -> where the
 * smoothed camera sees them; the identity for an unreliable frame. */
static Sim
correction (const StabPath * p, guint64 t)
{
  const Frame *f = frame_at (p, t);
  int r;
  if (!f->reliable)
    return sim_identity;
  const Sim sm = smoothed (p, t, &r);
  /* a window of one frame: the frame's own pose, exactly */
  if (r == 0)
    return sim_identity;
  return sim_compose (sim_invert (f->pose), sm);
}

/* The least zoom k >= 1 such that the map c + d + s R (q - c) / k keeps
 * the output's corners inside the input frame; max_zoom if none up to it
 * does. */
static double
needed_zoom (const StabPath * p, Sim c)
{
  const double cx = (p->width - 1) / 2.0, cy = (p->height - 1) / 2.0;
  const double lim[2] = { p->width - 1.0, p->height - 1.0 };
  const double a[2] = { cx + c.x, cy + c.y };
  const double s = exp (c.ls), co = cos (c.phi), si = sin (c.phi);
  double k = 1.0;
  for (int i = 0; i < 2; i++)
    if (a[i] <= 0 || a[i] >= lim[i])
      return p->max_zoom;
  for (int corner = 0; corner < 4; corner++) {
    const double qx = (corner & 1 ? lim[0] : 0) - cx;
    const double qy = (corner & 2 ? lim[1] : 0) - cy;
    const double v[2] = { s * (co * qx - si * qy), s * (si * qx + co * qy) };
    for (int i = 0; i < 2; i++) {
      const double need = v[i] > 0 ? v[i] / (lim[i] - a[i])
          : v[i] < 0 ? -v[i] / a[i] : 0;
      k = MAX (k, need);
    }
  }
  return MIN (k, p->max_zoom);
}

/* The largest needed zoom over [j - rc, j + rc] within j's segment. */
static double
max_zoom_around (const StabPath * p, guint64 j)
{
  unsigned back, fwd;
  seg_extent (p, j, p->rc, &back, &fwd);
  double m = 1.0;
  for (guint64 i = j - back; i <= j + fwd; i++)
    m = MAX (m, needed_zoom (p, correction (p, i)));
  return m;
}

gboolean
stab_path_pop (StabPath * path, gboolean draining, StabOutput * out)
{
  if (path->next >= path->pushed)
    return FALSE;
  if (!draining && path->pushed - path->next <= path->lookahead)
    return FALSE;
  const guint64 t = path->next;
  const Frame *f = frame_at (path, t);
  const Sim c = correction (path, t);
  int radius;
  const Sim sm = smoothed (path, t, &radius);
  /* the crop: a Gaussian of the windowed maxima, within the segment */
  unsigned back, fwd;
  seg_extent (path, t, path->rc, &back, &fwd);
  double sw = 0, acc = 0;
  for (guint64 j = t - back; j <= t + fwd; j++) {
    const double w = gauss ((int) (j - t), path->rc);
    acc += w * max_zoom_around (path, j);
    sw += w;
  }
  /* never below what the frame itself needs (rounding) */
  const double crop = MAX (acc / sw, needed_zoom (path, c));

  out->index = t;
  out->dx = c.x;
  out->dy = c.y;
  out->angle = c.phi;
  out->scale = exp (c.ls) / crop;
  out->crop = crop;
  out->corrected = f->reliable && radius > 0;
  out->segment_start = f->start;
  out->raw[0] = f->pose.x;
  out->raw[1] = f->pose.y;
  out->raw[2] = f->pose.phi;
  out->raw[3] = f->pose.ls;
  out->smooth[0] = sm.x;
  out->smooth[1] = sm.y;
  out->smooth[2] = sm.phi;
  out->smooth[3] = sm.ls;
  path->next++;

  /* keep what the windows of the frames to come reach back to */
  const guint64 keep = path->rp + 2 * path->rc + 1;
  if (path->next > path->base + keep) {
    const guint64 drop = path->next - keep - path->base;
    g_array_remove_range (path->frames, 0, (guint) drop);
    path->base += drop;
  }
  return TRUE;
}

void
stab_output_affine (const StabOutput * o, unsigned width, unsigned height,
    double m[6])
{
  const double cx = (width - 1) / 2.0, cy = (height - 1) / 2.0;
  const double c = cos (o->angle) * o->scale, s = sin (o->angle) * o->scale;
  m[0] = c;
  m[1] = -s;
  m[2] = s;
  m[3] = c;
  m[4] = cx + o->dx - c * cx + s * cy;
  m[5] = cy + o->dy - s * cx - c * cy;
}
