/* gpumotionest — checkasm: the motion summary's core reduced on the GPU
 * (kernels/cuda/me_cuda_summary.cu) against the host's
 * (gst_motion_vector_summary_compute_grid_core()), field for field.
 *
 * Fields of every kind the summary meets: a camera's similarity motion
 * with noise and a share of outliers (moving objects), costs with a share
 * of unmatched blocks, fields of one vector, of random vectors, of extreme
 * vectors and costs, grids of one cell to 4K and 4x4 grids, every bit
 * depth, and metas scaled to another size than the one analysed.  Then
 * the CUDA backend itself: searches with MEField.summary set, the core it
 * hands back against the host's core of the very cells it returned.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checkasm.h"
#include "gst/motionvectors/summary-private.h"
#if HAVE_CUDA
#include "cuda/me_cuda_summary.h"
#endif

#if HAVE_CUDA

typedef enum {
  FIELD_CAMERA,                 /* similarity + noise + outliers */
  FIELD_CONSTANT,               /* one vector, one cost */
  FIELD_RANDOM,                 /* vectors and costs at random */
  FIELD_EXTREME,                /* the largest vectors and costs */
  FIELD_KINDS
} FieldKind;

static const char *const kind_names[] = { "camera", "constant", "random",
  "extreme"
};

/* Fills a cols x rows grid of shape pw x ph of a w x h frame. */
static void
make_field (GstMotionVectorCell * cells, const MvsGeometry * g, FieldKind kind)
{
  GRand *r = checkasm.rand;
  const double zoom = g_rand_double_range (r, -0.04, 0.04);
  const double rot = g_rand_double_range (r, -0.03, 0.03);
  const double tx = g_rand_double_range (r, -60, 60);
  const double ty = g_rand_double_range (r, -40, 40);
  const double outliers = g_rand_double_range (r, 0, 0.7);
  const double unmatched = g_rand_double_range (r, 0, 0.3);
  const unsigned level = g->level;
  const guint32 area = g->pw * g->ph;
  const gint16 cvx = g_rand_int_range (r, -200, 201);
  const gint16 cvy = g_rand_int_range (r, -200, 201);
  const guint32 ccost = g_rand_int_range (r, 0, 40 * area * level);

  for (guint y = 0; y < g->rows; y++) {
    for (guint x = 0; x < g->cols; x++) {
      GstMotionVectorCell *c = &cells[(gsize) y * g->cols + x];
      /* centre offset in pixels */
      const double dx = x * (double) g->pw + g->pw / 2.0 - g->aw / 2.0;
      const double dy = y * (double) g->ph + g->ph / 2.0 - g->ah / 2.0;

      memset (c, 0, sizeof (*c));
      switch (kind) {
        case FIELD_CAMERA:{
          double vx = tx + zoom * dx - rot * dy, vy = ty + zoom * dy + rot * dx;
          if (g_rand_double (r) < outliers) {
            vx = g_rand_double_range (r, -100, 100);
            vy = g_rand_double_range (r, -100, 100);
          }
          c->mv_x = (gint16) lrint (4 * vx + g_rand_int_range (r, -2, 3));
          c->mv_y = (gint16) lrint (4 * vy + g_rand_int_range (r, -2, 3));
          c->cost = g_rand_int_range (r, 0, 6 * area * level);
          if (g_rand_double (r) < unmatched)
            c->cost = g_rand_int_range (r, 0, 255 * area * level);
          break;
        }
        case FIELD_CONSTANT:
          c->mv_x = cvx;
          c->mv_y = cvy;
          c->cost = ccost;
          break;
        case FIELD_RANDOM:
          c->mv_x = g_rand_int_range (r, -1024, 1025);
          c->mv_y = g_rand_int_range (r, -1024, 1025);
          c->cost = g_rand_int (r) % (64 * area * level + 1);
          break;
        case FIELD_EXTREME:
          c->mv_x = g_rand_boolean (r) ? G_MAXINT16 : G_MININT16;
          c->mv_y = g_rand_boolean (r) ? G_MAXINT16 : G_MININT16;
          c->cost = g_rand_boolean (r) ? G_MAXUINT32 : 0;
          break;
        default:
          break;
      }
    }
  }
}

static gboolean
same_core (const MvsCore * a, const MvsCore * b, const char *what)
{
  if (memcmp (a, b, sizeof (*a)) == 0)
    return TRUE;
  printf ("  %s: host blocks %u matched %u agree %u sim %u median %"
      G_GINT64_FORMAT " sum %" G_GUINT64_FORMAT " model %" G_GINT64_FORMAT
      " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
      what, a->blocks, a->matched, a->agree, a->similarity, a->median,
      a->cost_sum, a->tx, a->ty, a->k, a->r);
  printf ("  %*s  GPU  blocks %u matched %u agree %u sim %u median %"
      G_GINT64_FORMAT " sum %" G_GUINT64_FORMAT " model %" G_GINT64_FORMAT
      " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
      " valid %u\n", (int) strlen (what), "", b->blocks, b->matched, b->agree,
      b->similarity, b->median, b->cost_sum, b->tx, b->ty, b->k, b->r,
      b->valid);
  return FALSE;
}

/* The kernel on synthetic fields; returns the fields compared, or -1 for
 * no GPU. */
static int
check_kernel (void)
{
  static const unsigned sizes[][2] = {
    {1, 1}, {7, 5}, {16, 16}, {17, 33}, {64, 48}, {176, 144}, {352, 288},
    {640, 360}, {1280, 720}, {1920, 1080}, {3840, 2160}, {8192, 48},
  };
  static const unsigned depths[] = { 8, 10, 12, 16 };
  unsigned compared = 0;
  gboolean ok = TRUE;

  for (unsigned si = 0; ok && si < G_N_ELEMENTS (sizes); si++) {
    for (int p = 0; ok && p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
      const GstMotionVectorPartition part = p;
      const unsigned w = sizes[si][0], h = sizes[si][1];
      const unsigned mbc = gst_motion_vector_mb_cols (w);
      const unsigned mbr = gst_motion_vector_mb_rows (h);
      const unsigned cols = gst_motion_vector_grid_cols (part, mbc);
      const unsigned rows = gst_motion_vector_grid_rows (part, mbr);
      /* the large 4x4 grids once a size: their work is the largest */
      const unsigned kinds = cols * rows > 100000 ? 1 : FIELD_KINDS;
      GstMotionVectorCell *cells = g_new (GstMotionVectorCell,
          (gsize) cols * rows);

      for (unsigned k = 0; ok && k < kinds; k++) {
        const FieldKind kind = kinds == 1 ? FIELD_CAMERA : (FieldKind) k;
        const unsigned depth = depths[(si + p + k) % G_N_ELEMENTS (depths)];
        /* every third field of a meta scaled to 3/2 of its size */
        const gboolean scaled = (si + p + k) % 3 == 2;
        MvsGeometry g;
        MvsCore want, got;
        char *err = NULL;
        char what[96];

        mvs_geometry_init (&g, cols, rows,
            gst_motion_vector_partition_width (part),
            gst_motion_vector_partition_height (part), w, h,
            scaled ? w * 3 / 2 : w, scaled ? h * 3 / 2 : h, depth);
        make_field (cells, &g, kind);
        gst_motion_vector_summary_compute_grid_core (cells, &g, p, &want);
        memset (&got, 0xa5, sizeof (got));
        if (!me_cuda_summary_on_device (cells, &g, p, &got, &err)) {
          if (compared == 0) {
            printf ("summary cuda: no usable GPU (%s)\n", err);
            g_free (err);
            g_free (cells);
            return -1;
          }
          printf ("  %s\n", err);
          g_free (err);
          ok = FALSE;
          break;
        }
        g_snprintf (what, sizeof (what), "%ux%u %ux%u %u-bit %s%s", w, h,
            g.pw, g.ph, depth,
            kind_names[kind], scaled ? " scaled" : "");
        ok = same_core (&want, &got, what);
        compared++;
      }
      g_free (cells);
    }
  }
  checkasm_report ("summary cuda (fields)", ok);
  return compared;
}

/* A w x h frame of a random world seen from (ox, oy), zoomed about the
 * centre by `zoom`, 8 bits, tightly packed. */
static guint8 *
camera_frame (const guint8 * world, unsigned ww, unsigned w, unsigned h,
    double ox, double oy, double zoom)
{
  guint8 *f = g_malloc ((gsize) w * h);

  for (unsigned y = 0; y < h; y++)
    for (unsigned x = 0; x < w; x++) {
      const int sx = (int) lrint (ox + (x - w / 2.0) * zoom + ww / 2.0);
      const int sy = (int) lrint (oy + (y - h / 2.0) * zoom + ww / 2.0);
      f[(gsize) y * w + x] = world[(gsize) CLAMP (sy, 0, (int) ww - 1) * ww
          + CLAMP (sx, 0, (int) ww - 1)];
    }
  return f;
}

/* The CUDA backend with MEField.summary set, single frames and pairs: the
 * core it hands back against the host's of the cells it returned. */
static gboolean
check_backend (void)
{
  static const unsigned sizes[][2] = { {64, 48}, {352, 288}, {1280, 720} };
  static const unsigned parts[] = { 0x7f, 0x01, 0x08, 0x40, 0x0c };
  GError *error = NULL;
  const MEBackendOps *ops = me_backend_find ("cuda");
  MEBackendOptions options;
  MEBackend *s = NULL;
  const unsigned ww = 1536;
  guint8 *world;
  unsigned checked = 0;
  gboolean ok = TRUE;

  me_backend_options_init (&options);
  if (ops)
    s = me_backend_open (ops, &options, &error);
  if (!s) {
    printf ("summary cuda backend: not available (%s)\n",
        error ? error->message : "not built");
    g_clear_error (&error);
    return TRUE;
  }
  world = g_malloc ((gsize) ww * ww);
  /* smooth enough for the search to follow the camera */
  for (gsize i = 0; i < (gsize) ww * ww; i++)
    world[i] = g_rand_int (checkasm.rand);
  for (int pass = 0; pass < 2; pass++)
    for (unsigned y = 1; y < ww; y++)
      for (unsigned x = 1; x < ww; x++)
        world[(gsize) y * ww + x] = (world[(gsize) y * ww + x]
            + world[(gsize) (y - 1) * ww + x] + world[(gsize) y * ww + x - 1]
            + world[(gsize) (y - 1) * ww + x - 1] + 2) / 4;

  for (unsigned si = 0; ok && si < G_N_ELEMENTS (sizes); si++) {
    for (unsigned pi = 0; ok && pi < G_N_ELEMENTS (parts); pi++) {
      const unsigned w = sizes[si][0], h = sizes[si][1];
      MESearchParams params;
      Field fields[4];
      MvsCore cores[4];
      guint8 *frames[4];

      me_search_params_init (&params);
      params.search_range = 16;
      params.partitions = parts[pi];
      params.method = (GstMotionVectorMethod) ((si + pi) % 4);
      me_backend_reset (s);
      for (unsigned i = 0; i < 4; i++) {
        frames[i] = camera_frame (world, ww, w, h, 3.0 * i, -2.0 * i,
            1.0 + 0.01 * i);
        checkasm_field_alloc_in (&fields[i], w, h, parts[pi], NULL);
        memset (&cores[i], 0, sizeof (cores[i]));
        fields[i].field.summary = &cores[i];
      }
      /* frames 0..2 one after the other, then frame 3 against 2 and 1 */
      for (unsigned i = 0; ok && i < 3; i++) {
        MEPlane plane = { frames[i], w, w, h };
        ok = me_backend_submit (s, &plane, &params, &fields[i].field, &error)
            && me_backend_collect (s, &error);
      }
      if (ok && me_backend_get_ops (s)->submit_pairs) {
        MEPlane plane = { frames[3], w, w, h };
        MESearchPair pairs[1] = { {0, 1, &fields[3].field} };
        me_backend_reset (s);
        ok = me_backend_submit (s, &(MEPlane) { frames[2], w, w, h }, &params,
            &fields[2].field, &error) && me_backend_collect (s, &error);
        memset (&cores[2], 0, sizeof (cores[2]));
        ok = ok && me_backend_submit_pairs (s, &plane, &params, pairs, 0,
            &error) && me_backend_collect (s, &error);
        ok = ok && me_backend_submit_pairs (s, &plane, &params, pairs, 1,
            &error) && me_backend_collect (s, &error);
      }
      if (!ok)
        printf ("  %s\n", error ? error->message : "?");
      g_clear_error (&error);
      for (unsigned i = 0; ok && i < 4; i++) {
        int p = 0;
        MvsGeometry g;
        MvsCore want;
        char what[64];

        while (!(parts[pi] & (1u << p)))
          p++;
        if (!fields[i].field.has_reference) {
          ok = cores[i].valid == 0;
          if (!ok)
            printf ("  frame %u: a core without a reference\n", i);
          continue;
        }
        mvs_geometry_init (&g, gst_motion_vector_grid_cols (p,
                fields[i].field.mb_cols), gst_motion_vector_grid_rows (p,
                fields[i].field.mb_rows), gst_motion_vector_partition_width (p),
            gst_motion_vector_partition_height (p), w, h, w, h, 8);
        gst_motion_vector_summary_compute_grid_core (fields[i].field.grid[p],
            &g, p, &want);
        g_snprintf (what, sizeof (what), "%ux%u shapes 0x%x method %d frame %u",
            w, h, parts[pi], params.method, i);
        ok = cores[i].valid && same_core (&want, &cores[i], what);
        if (!cores[i].valid)
          printf ("  %s: no core\n", what);
        checked++;
      }
      for (unsigned i = 0; i < 4; i++) {
        g_free (frames[i]);
        checkasm_field_free (&fields[i]);
      }
    }
  }
  g_free (world);
  me_backend_close (s);
  printf ("summary cuda backend: %u fields\n", checked);
  return ok;
}

int
checkasm_check_summary (const char *backend)
{
  int n;

  if (backend && strcmp (backend, "cuda")) {
    fprintf (stderr, "checkasm: --test summary takes --backend cuda\n");
    return 2;
  }
  n = check_kernel ();
  if (n < 0)
    return backend ? 77 : 0;
  printf ("summary cuda: %d fields compared\n", n);
  checkasm_report ("summary cuda (backend)", check_backend ());
  return 0;
}

#else /* !HAVE_CUDA */

int
checkasm_check_summary (const char *backend)
{
  if (backend && strcmp (backend, "cuda")) {
    fprintf (stderr, "checkasm: --test summary takes --backend cuda\n");
    return 2;
  }
  printf ("summary cuda: not built\n");
  return backend ? 77 : 0;
}

#endif
