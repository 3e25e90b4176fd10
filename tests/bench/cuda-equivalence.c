/* gpumotionest — checks that the CUDA backend gives exactly the cells of the
 * CPU backend: same vectors and costs, same predictions and MVDs, on random
 * and moving content, flat content (every candidate ties), many frame
 * sizes, search ranges and partition sets, several frames in flight,
 * resets and frame size changes.
 *
 * Exits 0 when every cell of every frame matches, 1 on a mismatch or an
 * error, 77 when no CUDA device is usable.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "me_backend.h"
#include "bench-frames.h"

typedef struct {
  unsigned width, height, range, partitions;
  BenchContent content;
} Case;

typedef struct {
  MEField field;
  GstMotionVectorCell *cells[GST_MOTION_VECTOR_PARTITION_COUNT];
} Field;

static void
field_init (Field * f, const MEBackendOps * ops, unsigned w, unsigned h,
    unsigned parts)
{
  memset (f, 0, sizeof (*f));
  f->field.mb_cols = gst_motion_vector_mb_cols (w);
  f->field.mb_rows = gst_motion_vector_mb_rows (h);
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!(parts & (1u << p)))
      continue;
    size_t n = (size_t) gst_motion_vector_grid_cols (p, f->field.mb_cols)
        * gst_motion_vector_grid_rows (p, f->field.mb_rows);
    /* poison: every cell must be written */
    f->cells[p] = ops && ops->host_alloc ? ops->host_alloc (n * 16)
        : g_malloc (n * 16);
    memset (f->cells[p], 0xa5, n * 16);
    f->field.grid[p] = f->cells[p];
  }
}

static void
field_clear (Field * f, const MEBackendOps * ops)
{
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!f->cells[p])
      continue;
    if (ops && ops->host_free)
      ops->host_free (f->cells[p]);
    else
      g_free (f->cells[p]);
  }
}

typedef struct {
  guint64 cells, mv_diff, pred_diff, frames, frames_bad;
} Tally;

/* Compares two fields; prints the first few differences. */
static void
compare (const Field * gpu, const Field * cpu, unsigned parts,
    const char *what, Tally * t)
{
  gboolean bad = FALSE;
  int shown = 0;
  if (gpu->field.has_reference != cpu->field.has_reference) {
    printf ("  %s: has_reference %d vs %d\n", what, gpu->field.has_reference,
        cpu->field.has_reference);
    bad = TRUE;
  }
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!(parts & (1u << p)))
      continue;
    unsigned cols = gst_motion_vector_grid_cols (p, cpu->field.mb_cols);
    size_t n = (size_t) cols * gst_motion_vector_grid_rows (p,
        cpu->field.mb_rows);
    for (size_t i = 0; i < n; i++) {
      const GstMotionVectorCell *a = &gpu->cells[p][i], *b = &cpu->cells[p][i];
      t->cells++;
      gboolean mv = a->mv_x != b->mv_x || a->mv_y != b->mv_y
          || a->cost != b->cost;
      gboolean pred = a->pred_x != b->pred_x || a->pred_y != b->pred_y
          || a->mvd_x != b->mvd_x || a->mvd_y != b->mvd_y;
      t->mv_diff += mv;
      t->pred_diff += pred;
      if ((mv || pred) && shown++ < 4)
        printf ("  %s shape %d cell (%zu,%zu): cuda mv (%d,%d) cost %u pred "
            "(%d,%d) mvd (%d,%d) | cpu mv (%d,%d) cost %u pred (%d,%d) "
            "mvd (%d,%d)\n", what, p, i % cols, i / cols, a->mv_x, a->mv_y,
            a->cost, a->pred_x, a->pred_y, a->mvd_x, a->mvd_y, b->mv_x,
            b->mv_y, b->cost, b->pred_x, b->pred_y, b->mvd_x, b->mvd_y);
      bad |= mv || pred;
    }
  }
  t->frames++;
  t->frames_bad += bad;
}

#define SEQ 3

/* Runs SEQ frames of one case through both backends (after a reset unless
 * `reset` is FALSE), the CUDA one with
 * `depth` frames in flight, and compares every frame. */
static gboolean
run_case (const MEBackendOps * gops, MESession * gs, const MEBackendOps * cops,
    MESession * cs, const Case * c, unsigned depth, gboolean reset,
    GRand * rand, Tally * t)
{
  MESearchParams params = { c->range, c->partitions,
    GST_MOTION_VECTOR_METHOD_FULL
  };
  ptrdiff_t stride = c->width + g_rand_int_range (rand, 0, 40);
  uint8_t *frames[SEQ];
  Field gf[SEQ], cf[SEQ];
  GError *error = NULL;
  gboolean ok = TRUE;
  char what[128];

  if (reset) {
    gops->reset (gs);
    cops->reset (cs);
  }
  gops->set_in_flight (gs, depth);
  for (int k = 0; k < SEQ; k++) {
    frames[k] = g_malloc (stride * c->height);
    bench_frame (frames[k], stride, c->width, c->height, c->content, k, rand);
    field_init (&gf[k], gops, c->width, c->height, c->partitions);
    field_init (&cf[k], NULL, c->width, c->height, c->partitions);
  }

  unsigned submitted = 0, collected = 0;
  while (collected < SEQ) {
    if (submitted < SEQ && submitted - collected < depth) {
      MEPlane plane = { frames[submitted], stride, c->width, c->height };
      if (!gops->submit (gs, &plane, &params, &gf[submitted].field, &error)
          || !cops->submit (cs, &plane, &params, &cf[submitted].field,
              &error)
          || !cops->collect (cs, &error)) {
        printf ("  submit failed: %s\n", error->message);
        g_clear_error (&error);
        ok = FALSE;
        break;
      }
      submitted++;
    } else {
      if (!gops->collect (gs, &error)) {
        printf ("  collect failed: %s\n", error->message);
        g_clear_error (&error);
        ok = FALSE;
        break;
      }
      g_snprintf (what, sizeof (what), "%ux%u R=%u parts=0x%02x content=%d "
          "depth=%u frame %u", c->width, c->height, c->range, c->partitions,
          c->content, depth, collected);
      compare (&gf[collected], &cf[collected], c->partitions, what, t);
      collected++;
    }
  }
  if (!ok)
    gops->reset (gs);
  for (int k = 0; k < SEQ; k++) {
    g_free (frames[k]);
    field_clear (&gf[k], gops);
    field_clear (&cf[k], NULL);
  }
  return ok;
}

int
main (int argc, char **argv)
{
  const MEBackendOps *gops = me_backend_find ("cuda");
  const MEBackendOps *cops = me_backend_find ("cpu");
  GError *error = NULL;
  /* The CPU backend may be a plain reference: keep the pixel x candidate x
   * shape work per case bounded. */
  double budget = argc > 1 ? g_ascii_strtod (argv[1], NULL) : 4e8;

  if (!gops) {
    printf ("no CUDA backend in this build\n");
    return 77;
  }
  MESession *gs = gops->open (-1, &error);
  if (!gs) {
    printf ("CUDA backend unavailable: %s\n", error->message);
    return 77;
  }
  MESession *cs = cops->open (-1, &error);
  g_assert_no_error (error);

  GRand *rand = g_rand_new_with_seed (20261122);
  static const unsigned sizes[][2] = {
    {1, 1}, {7, 5}, {16, 16}, {17, 33}, {33, 17}, {64, 48}, {100, 75},
    {176, 144}, {352, 288}, {640, 360}, {1280, 720}, {1920, 1080},
  };
  static const unsigned ranges[] = { 1, 2, 3, 5, 8, 15, 16, 17, 31, 32, 33,
    64, 100, 128
  };
  static const unsigned part_sets[] = { 0x01, 0x7f, 0x08, 0x0e, 0x40, 0x30,
    0x02, 0x04, 0x10
  };
  Tally t = { 0 };
  unsigned cases = 0, failed = 0;

  for (unsigned si = 0; si < G_N_ELEMENTS (sizes); si++) {
    for (unsigned ri = 0; ri < G_N_ELEMENTS (ranges); ri++) {
      for (unsigned pi = 0; pi < G_N_ELEMENTS (part_sets); pi++) {
        Case c = { sizes[si][0], sizes[si][1], ranges[ri], part_sets[pi],
          (BenchContent) ((si + ri + pi) % 4)
        };
        double work = (double) c.width * c.height * (2.0 * c.range + 1)
            * (2.0 * c.range + 1) * __builtin_popcount (c.partitions);
        if (work > budget)
          continue;
        /* one in three small cases, to keep the run short */
        if (work < budget / 50 && g_rand_int_range (rand, 0, 3) != 0)
          continue;
        unsigned depth = 1 + (si + pi) % 4;
        cases++;
        guint64 bad_before = t.frames_bad;
        if (!run_case (gops, gs, cops, cs, &c, depth, TRUE, rand, &t)
            || t.frames_bad != bad_before)
          failed++;
      }
    }
  }

  /* A size change in the middle of a stream, frames in flight: the first
   * frame of the new size has no reference. */
  {
    Case a = { 96, 64, 8, 0x7f, BENCH_CONTENT_MOVING };
    Case b = { 80, 48, 8, 0x7f, BENCH_CONTENT_MOVING };
    cases++;
    guint64 bad_before = t.frames_bad;
    gops->set_in_flight (gs, 4);
    if (!run_case (gops, gs, cops, cs, &a, 4, TRUE, rand, &t)
        || !run_case (gops, gs, cops, cs, &b, 4, FALSE, rand, &t)
        || t.frames_bad != bad_before)
      failed++;
  }

  printf ("cuda vs cpu: %u cases, %" G_GUINT64_FORMAT " frames (%"
      G_GUINT64_FORMAT " differ), %" G_GUINT64_FORMAT " cells: %"
      G_GUINT64_FORMAT " differ in vector or cost, %" G_GUINT64_FORMAT
      " in prediction or MVD; %u case(s) failed\n", cases, t.frames,
      t.frames_bad, t.cells, t.mv_diff, t.pred_diff, failed);

  g_rand_free (rand);
  gops->close (gs);
  cops->close (cs);
  return failed ? 1 : 0;
}
