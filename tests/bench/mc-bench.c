/* gpumotionest — motion compensation (kernels/mc): 1080p frames a second.
 *
 *   mc-bench [--seconds S] [--depth 8|10|12|16] [--block 4|8|16] [--apart]
 *            [--cpu-only]
 *
 * Predicts a 1920x1080 luma plane (mc_predict_plane) and a whole 4:2:0
 * picture (mc_predict_picture) from a noise reference with a field of
 * mixed vectors (most near zero, some far, all fractional), overlapped
 * blocks unless --apart, by the C reference on 1 and 2 threads, by the
 * fast CPU implementation (mc_impl_cpu(), its best level on 1 and 2
 * threads, and its portable level on 1) and, when a
 * GPU is usable, by CUDA twice: with the planes in device memory (the
 * kernels, the field's upload and the wait for them: what an element with
 * frames in CUDA memory pays) and with host planes (upload, kernels,
 * download).  Each line runs for S seconds (default 1) after a warm-up.
 * Then the same four lines for mc_interpolate_picture: a 4:2:0 picture
 * half way between two, from two fields (the mixed field and its
 * opposite) whose costs send most blocks through the cost blend, one in
 * eight to one side alone and one in sixteen to the fallback.  Then
 * mc_denoise_picture of a 4:2:0 picture with 4 references (the radius-2
 * denoiser's work): four fields of mixed vectors, block weights mostly
 * 64, one in eight partial and one in sixteen 0.  With
 * --cpu-only, the fast CPU implementation's lines alone (for profiling).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include <glib.h>

#include "mc.h"
#include "mc_cpu.h"

#define W 1920
#define H 1080

/* CPU time of the process in microseconds: on a shared machine the wall
 * clock counts other processes' time too, this does not (all threads'
 * time summed, so with threads it is the work, not the wait). */
static gint64
cpu_us (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

typedef struct {
  MCPicture host;               /* the reference */
  MCPicture out;
  MCPicture dref;               /* device copies (data NULL without CUDA) */
  MCPicture dout;
} Bufs;

static gboolean
run (const char *what, const char *how, gboolean picture, const MCPicture * ref,
    MCPicture * out, const MCField * f, const MCOptions * opt, double seconds)
{
  GError *error = NULL;
  gboolean ok = TRUE;
  /* warm-up: the first call allocates, the first launch loads */
  for (int i = 0; i < 2 && ok; i++)
    ok = picture ? mc_predict_picture (ref, out, f, opt, &error)
        : mc_predict_plane (&ref->planes[0], &out->planes[0], f, 0, 0, opt,
        &error);
  unsigned n = 0;
  const gint64 t0 = g_get_monotonic_time (), c0 = cpu_us ();
  gint64 t = t0;
  while (ok && (t - t0 < seconds * 1e6 || n < 3)) {
    ok = picture ? mc_predict_picture (ref, out, f, opt, &error)
        : mc_predict_plane (&ref->planes[0], &out->planes[0], f, 0, 0, opt,
        &error);
    n++;
    t = g_get_monotonic_time ();
  }
  if (!ok) {
    printf ("%-22s %-28s failed: %s\n", what, how, error->message);
    g_error_free (error);
    return FALSE;
  }
  const double s = (t - t0) / 1e6 / n, c = (cpu_us () - c0) / 1e3 / n;
  printf ("%-22s %-28s %9.1f frames/s  %8.3f ms  %8.3f cpu ms\n", what, how,
      1.0 / s, 1e3 * s, c);
  return TRUE;
}

typedef struct {
  const MCPicture *prev;
  const MCPicture *next;
  MCPicture *out;
  const MCField *fn;
  const MCField *fp;
} Interp;

static gboolean
run_interp (const char *how, const Interp * in, const MCOptions * opt,
    double seconds)
{
  GError *error = NULL;
  gboolean ok = TRUE;
  unsigned nfb = 0;
  for (int i = 0; i < 2 && ok; i++)
    ok = mc_interpolate_picture (in->prev, in->next, in->out, in->fn, in->fp,
        1, 2, MC_INTERP_MOTION, opt, &nfb, &error);
  unsigned n = 0;
  const gint64 t0 = g_get_monotonic_time (), c0 = cpu_us ();
  gint64 t = t0;
  while (ok && (t - t0 < seconds * 1e6 || n < 3)) {
    ok = mc_interpolate_picture (in->prev, in->next, in->out, in->fn, in->fp,
        1, 2, MC_INTERP_MOTION, opt, &nfb, &error);
    n++;
    t = g_get_monotonic_time ();
  }
  if (!ok) {
    printf ("%-22s %-28s failed: %s\n", "interpolate 4:2:0", how,
        error->message);
    g_error_free (error);
    return FALSE;
  }
  const double s = (t - t0) / 1e6 / n, c = (cpu_us () - c0) / 1e3 / n;
  printf ("%-22s %-28s %9.1f frames/s  %8.3f ms  %8.3f cpu ms\n",
      "interpolate 4:2:0", how, 1.0 / s, 1e3 * s, c);
  return TRUE;
}

typedef struct {
  const MCPicture *cur;
  const MCPicture *const *refs;
  const MCField *const *fields;
  const uint8_t *const *weights;
  unsigned n;
  MCPicture *out;
} Denoise;

static gboolean
run_denoise (const char *how, const Denoise * in, const MCOptions * opt,
    double seconds)
{
  GError *error = NULL;
  gboolean ok = TRUE;
  for (int i = 0; i < 2 && ok; i++)
    ok = mc_denoise_picture (in->cur, in->refs, in->fields, in->weights,
        in->n, in->out, opt, &error);
  unsigned n = 0;
  const gint64 t0 = g_get_monotonic_time (), c0 = cpu_us ();
  gint64 t = t0;
  while (ok && (t - t0 < seconds * 1e6 || n < 3)) {
    ok = mc_denoise_picture (in->cur, in->refs, in->fields, in->weights,
        in->n, in->out, opt, &error);
    n++;
    t = g_get_monotonic_time ();
  }
  if (!ok) {
    printf ("%-22s %-28s failed: %s\n", "denoise 4:2:0, 4 refs", how,
        error->message);
    g_error_free (error);
    return FALSE;
  }
  const double s = (t - t0) / 1e6 / n, c = (cpu_us () - c0) / 1e3 / n;
  printf ("%-22s %-28s %9.1f frames/s  %8.3f ms  %8.3f cpu ms\n",
      "denoise 4:2:0, 4 refs", how, 1.0 / s, 1e3 * s, c);
  return TRUE;
}

static void
picture_init (MCPicture * p, unsigned depth, guint8 ** bufs, gboolean device,
    GError ** error)
{
  const unsigned bps = depth > 8 ? 2 : 1;
  p->chroma = MC_CHROMA_420;
  for (int i = 0; i < 3; i++) {
    const unsigned w = i ? (W + 1) / 2 : W, h = i ? (H + 1) / 2 : H;
    MCPlane *pl = &p->planes[i];
    pl->width = w;
    pl->height = h;
    pl->depth = depth;
    pl->shift = 0;
    pl->pstride = 0;            /* planar */
    pl->stride = (ptrdiff_t) w * bps;
    pl->data = device ? mc_cuda_alloc ((size_t) pl->stride * h, error)
        : g_malloc0 ((size_t) pl->stride * h);
    if (device && bufs && bufs[i] && pl->data)
      mc_cuda_copy (pl->data, bufs[i], (size_t) pl->stride * h, error);
  }
}

static void
picture_free (MCPicture * p, gboolean device)
{
  for (int i = 0; i < 3; i++) {
    if (device)
      mc_cuda_free (p->planes[i].data);
    else
      g_free (p->planes[i].data);
  }
}

int
main (int argc, char **argv)
{
  double seconds = 1.0;
  unsigned depth = 8, block = 16;
  gboolean obmc = TRUE, cpu_only = FALSE;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--seconds") && i + 1 < argc)
      seconds = atof (argv[++i]);
    else if (!strcmp (argv[i], "--depth") && i + 1 < argc)
      depth = (unsigned) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--block") && i + 1 < argc)
      block = (unsigned) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--apart"))
      obmc = FALSE;
    else if (!strcmp (argv[i], "--cpu-only"))
      cpu_only = TRUE;
    else {
      fprintf (stderr, "usage: %s [--seconds S] [--depth 8|10|12|16] "
          "[--block 4|8|16] [--apart] [--cpu-only]\n", argv[0]);
      return 2;
    }
  }
  if ((depth != 8 && depth != 10 && depth != 12 && depth != 16)
      || (block != 4 && block != 8 && block != 16)) {
    fprintf (stderr, "mc-bench: depth 8, 10, 12 or 16; block 4, 8 or 16\n");
    return 2;
  }

  setvbuf (stdout, NULL, _IOLBF, 0);   /* each line out as it is measured */
  GRand *rand = g_rand_new_with_seed (1);
  Bufs b;
  memset (&b, 0, sizeof b);
  picture_init (&b.host, depth, NULL, FALSE, NULL);
  picture_init (&b.out, depth, NULL, FALSE, NULL);
  guint8 *hostdata[3];
  for (int i = 0; i < 3; i++) {
    MCPlane *pl = &b.host.planes[i];
    for (unsigned y = 0; y < pl->height; y++)
      for (unsigned x = 0; x < pl->width; x++) {
        const unsigned v = g_rand_int_range (rand, 0, 1 << depth);
        guint8 *row = pl->data + (size_t) y * pl->stride;
        if (depth == 8)
          row[x] = (guint8) v;
        else
          ((guint16 *) row)[x] = (guint16) v;
      }
    hostdata[i] = pl->data;
  }

  /* most vectors within a few pixels, one in eight far, all fractional */
  const unsigned cols = (W + block - 1) / block, rows = (H + block - 1) / block;
  GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, cols * rows);
  for (unsigned i = 0; i < cols * rows; i++) {
    const int far = g_rand_int_range (rand, 0, 8) == 0 ? 256 : 16;
    cells[i].mv_x = (gint16) g_rand_int_range (rand, -far, far + 1);
    cells[i].mv_y = (gint16) g_rand_int_range (rand, -far, far + 1);
  }
  MCField f = { block, block, cols, rows, 0, cells };

  printf ("mc-bench: %ux%u, %u bits, %ux%u blocks, %s\n", W, H, depth,
      block, block, obmc ? "overlapped" : "apart");
  gboolean ok = TRUE;
  static const char *const what[2] = { "predict_plane luma", "picture 4:2:0" };
  for (int pic = 0; pic < 2; pic++) {
    MCOptions opt;
    mc_options_init (&opt);
    opt.obmc = obmc;
    for (unsigned t = 1; t <= 2 && !cpu_only; t++) {
      char how[64];
      opt.threads = t;
      g_snprintf (how, sizeof how, "c, %u thread%s", t, t > 1 ? "s" : "");
      ok &= run (what[pic], how, pic, &b.host, &b.out, &f, &opt, seconds);
    }
    for (unsigned i = 0; i < 3; i++) {
      char how[64];
      opt.impl = i == 2 ? mc_impl_cpu_level (MC_CPU_PORTABLE) : mc_impl_cpu ();
      opt.threads = i == 1 ? 2 : 1;
      g_snprintf (how, sizeof how, "%s, %u thread%s", opt.impl->name,
          opt.threads, opt.threads > 1 ? "s" : "");
      ok &= run (what[pic], how, pic, &b.host, &b.out, &f, &opt, seconds);
    }
    opt.impl = NULL;
    if (cpu_only)
      continue;
    GError *error = NULL;
    opt.threads = 1;
    opt.impl = mc_impl_cuda (&error);
    if (!opt.impl) {
      printf ("%-22s %-28s skipped: %s\n", what[pic], "cuda", error->message);
      g_clear_error (&error);
      continue;
    }
    if (!b.dref.planes[0].data) {
      picture_init (&b.dref, depth, hostdata, TRUE, &error);
      if (!error)
        picture_init (&b.dout, depth, NULL, TRUE, &error);
      if (error) {
        printf ("cuda: device planes: %s\n", error->message);
        g_clear_error (&error);
        ok = FALSE;
        break;
      }
    }
    MCOptions dopt = opt;
    dopt.device = MC_DEVICE_ALL;
    ok &= run (what[pic], "cuda, device planes", pic, &b.dref, &b.dout, &f,
        &dopt, seconds);
    ok &= run (what[pic], "cuda, host to host", pic, &b.host, &b.out, &f,
        &opt, seconds);
  }

  /* interpolation: next is the reference itself (the samples do not
   * change the work), prev's field the opposite of next's */
  GstMotionVectorCell *pcells = g_new0 (GstMotionVectorCell, cols * rows);
  for (unsigned i = 0; i < cols * rows; i++) {
    const unsigned k = (unsigned) g_rand_int_range (rand, 0, 16);
    const guint32 good = block * block * 2, bad = block * block * 40;
    pcells[i] = cells[i];
    pcells[i].mv_x = (gint16) - cells[i].mv_x;
    pcells[i].mv_y = (gint16) - cells[i].mv_y;
    cells[i].cost = k == 0 || k == 1 ? bad : good + k;
    pcells[i].cost = k == 0 || k == 2 ? bad : good;
  }
  MCField pf = { block, block, cols, rows, 0, pcells };
  MCPicture out2;
  picture_init (&out2, depth, NULL, FALSE, NULL);
  if (ok) {
    Interp in = { &b.host, &b.host, &out2, &f, &pf };
    MCOptions opt;
    mc_options_init (&opt);
    opt.obmc = obmc;
    for (unsigned t = 1; t <= 2 && !cpu_only; t++) {
      char how[64];
      opt.threads = t;
      g_snprintf (how, sizeof how, "c, %u thread%s", t, t > 1 ? "s" : "");
      ok &= run_interp (how, &in, &opt, seconds);
    }
    for (unsigned i = 0; i < 3; i++) {
      char how[64];
      opt.impl = i == 2 ? mc_impl_cpu_level (MC_CPU_PORTABLE) : mc_impl_cpu ();
      opt.threads = i == 1 ? 2 : 1;
      g_snprintf (how, sizeof how, "%s, %u thread%s", opt.impl->name,
          opt.threads, opt.threads > 1 ? "s" : "");
      ok &= run_interp (how, &in, &opt, seconds);
    }
    opt.impl = NULL;
    GError *error = NULL;
    opt.threads = 1;
    opt.impl = cpu_only ? NULL : mc_impl_cuda (&error);
    if (!cpu_only && !opt.impl) {
      printf ("%-22s %-28s skipped: %s\n", "interpolate 4:2:0", "cuda",
          error->message);
      g_clear_error (&error);
    } else if (!cpu_only && b.dref.planes[0].data && b.dout.planes[0].data) {
      Interp din = { &b.dref, &b.dref, &b.dout, &f, &pf };
      MCOptions dopt = opt;
      dopt.device = MC_DEVICE_ALL;
      ok &= run_interp ("cuda, device planes", &din, &dopt, seconds);
      ok &= run_interp ("cuda, host to host", &in, &opt, seconds);
    }
  }
  /* denoising: four references (the picture itself: the samples do not
   * change the work), fields the mixed one and variants of it */
  GstMotionVectorCell *dcells[4];
  MCField dfields[4];
  uint8_t *dw[4];
  const MCPicture *drefs[4];
  const MCPicture *ddrefs[4];
  const MCField *dfp[4];
  const uint8_t *dwp[4];
  for (int k = 0; k < 4; k++) {
    dcells[k] = g_new0 (GstMotionVectorCell, cols * rows);
    dw[k] = g_new (uint8_t, cols * rows);
    for (unsigned i = 0; i < cols * rows; i++) {
      const unsigned j = (unsigned) g_rand_int_range (rand, 0, 16);
      dcells[k][i] = cells[i];
      dcells[k][i].mv_x = (gint16) (k & 1 ? -cells[i].mv_x : cells[i].mv_x);
      dcells[k][i].mv_y = (gint16) (k & 2 ? -cells[i].mv_y : cells[i].mv_y);
      dw[k][i] = j == 0 ? 0 : j < 3 ? (uint8_t) g_rand_int_range (rand, 1, 64)
          : 64;
    }
    dfields[k] = (MCField) { block, block, cols, rows, 0, dcells[k] };
    drefs[k] = &b.host;
    ddrefs[k] = &b.dref;
    dfp[k] = &dfields[k];
    dwp[k] = dw[k];
  }
  if (ok) {
    Denoise in = { &b.host, drefs, dfp, dwp, 4, &out2 };
    MCOptions opt;
    mc_options_init (&opt);
    opt.obmc = obmc;
    for (unsigned t = 1; t <= 2 && !cpu_only; t++) {
      char how[64];
      opt.threads = t;
      g_snprintf (how, sizeof how, "c, %u thread%s", t, t > 1 ? "s" : "");
      ok &= run_denoise (how, &in, &opt, seconds);
    }
    for (unsigned i = 0; i < 3; i++) {
      char how[64];
      opt.impl = i == 2 ? mc_impl_cpu_level (MC_CPU_PORTABLE) : mc_impl_cpu ();
      opt.threads = i == 1 ? 2 : 1;
      g_snprintf (how, sizeof how, "%s, %u thread%s", opt.impl->name,
          opt.threads, opt.threads > 1 ? "s" : "");
      ok &= run_denoise (how, &in, &opt, seconds);
    }
    GError *error = NULL;
    opt.threads = 1;
    opt.impl = cpu_only ? NULL : mc_impl_cuda (&error);
    if (!cpu_only && !opt.impl) {
      printf ("%-22s %-28s skipped: %s\n", "denoise 4:2:0, 4 refs", "cuda",
          error->message);
      g_clear_error (&error);
    } else if (!cpu_only && b.dref.planes[0].data && b.dout.planes[0].data) {
      Denoise din = { &b.dref, ddrefs, dfp, dwp, 4, &b.dout };
      MCOptions dopt = opt;
      dopt.device = MC_DEVICE_ALL;
      ok &= run_denoise ("cuda, device planes", &din, &dopt, seconds);
      ok &= run_denoise ("cuda, host to host", &in, &opt, seconds);
    }
  }
  for (int k = 0; k < 4; k++) {
    g_free (dcells[k]);
    g_free (dw[k]);
  }

  picture_free (&out2, FALSE);
  g_free (pcells);

  picture_free (&b.host, FALSE);
  picture_free (&b.out, FALSE);
  picture_free (&b.dref, TRUE);
  picture_free (&b.dout, TRUE);
  g_free (cells);
  g_rand_free (rand);
  return ok ? 0 : 1;
}
