/* gpumotionest — what the motion summary costs per frame.
 *
 *   summary-bench [--frames N]
 *
 * Times gst_motion_vector_summary_compute() and the moving-block mask on
 * 1920x1080 fields with a pan, a zoom, a rotation, a moving object and
 * some unmatched blocks, for the grids the summary can read: 16x16 (also
 * what a field of all seven shapes uses) and, when 16x16 is absent, 8x8
 * and 4x4.  Prints microseconds per frame, the median of 7 runs of N
 * frames, in the thread's CPU time, so that a machine shared with other
 * work measures the computation rather than the waits (docs/summary.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gst/gst.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#define W 1920
#define H 1080

static GstBuffer *
make_field (GstMotionVectorPartitionFlags parts)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint n = gst_motion_vector_layout (W, H, parts, grids);
  GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, n);
  GRand *rand = g_rand_new_with_seed (5);
  GstBuffer *buf = gst_buffer_new ();
  GBytes *data;

  for (guint p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint pw = gst_motion_vector_partition_width (p);
    guint ph = gst_motion_vector_partition_height (p);

    if (!(parts & (1u << p)))
      continue;
    for (guint r = 0; r < grids[p].rows; r++) {
      for (guint c = 0; c < grids[p].cols; c++) {
        GstMotionVectorCell *cell = &cells[grids[p].offset
            + r * grids[p].cols + c];
        gdouble dx = c * pw + pw / 2.0 - W / 2.0;
        gdouble dy = r * ph + ph / 2.0 - H / 2.0;
        /* pan (6, -3) px, 1 % zoom out, 0.005 rad: integer vectors */
        gdouble vx = 6 + (-0.01 * dx + 0.005 * dy);
        gdouble vy = -3 + (-0.01 * dy - 0.005 * dx);

        cell->mv_x = (gint16) (4 * lround (vx));
        cell->mv_y = (gint16) (4 * lround (vy));
        cell->cost = (200 + g_rand_int_range (rand, 0, 600)) * pw * ph / 256;
        if (c * pw > 600 && c * pw < 900 && r * ph > 300 && r * ph < 700) {
          cell->mv_x = -40;     /* a moving object */
          cell->mv_y = 12;
        }
        if (g_rand_int_range (rand, 0, 50) == 0)
          cell->cost *= 20;     /* unmatched */
      }
    }
  }
  g_rand_free (rand);
  data = g_bytes_new_take (cells, (gsize) n * sizeof (GstMotionVectorCell));
  gst_buffer_add_motion_vector_meta (buf, W, H, parts, data);
  g_bytes_unref (data);
  return buf;
}

/* This thread's CPU time, microseconds. */
static gint64
cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

static void
run (const gchar * name, GstMotionVectorPartitionFlags parts, guint frames)
{
  GstBuffer *buf = make_field (parts);
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (buf);
  GstMotionVectorSummary prev, s;
  guint8 *mask = g_malloc (120 * 68);
  gdouble compute[7], masks[7];

  gst_motion_vector_summary_compute (meta, NULL, &prev);
  for (guint k = 0; k < 7; k++) {
    gint64 t0 = cpu_us (), t1;

    for (guint i = 0; i < frames; i++)
      gst_motion_vector_summary_compute (meta, &prev, &s);
    t1 = cpu_us ();
    for (guint i = 0; i < frames; i++)
      gst_motion_vector_summary_moving_blocks (meta, &s, mask, NULL, NULL);
    compute[k] = (gdouble) (t1 - t0) / frames;
    masks[k] = (gdouble) (cpu_us () - t1) / frames;
  }
  qsort (compute, 7, sizeof (gdouble), cmp_double);
  qsort (masks, 7, sizeof (gdouble), cmp_double);
  printf ("%-24s %6u blocks  compute %8.1f us  mask %8.1f us   "
      "(zoom %+.5f rotation %+.5f moving %.3f unmatched %.3f)\n", name,
      s.blocks, compute[3], masks[3], s.zoom, s.rotation, s.moving_share,
      s.unmatched_share);
  g_free (mask);
  gst_buffer_unref (buf);
}

int
main (int argc, char **argv)
{
  guint frames = 200;

  gst_init (&argc, &argv);
  if (argc == 3 && strcmp (argv[1], "--frames") == 0)
    frames = (guint) atoi (argv[2]);
  printf ("1920x1080, median of 7 runs of %u frames\n", frames);
  run ("16x16", GST_MOTION_VECTOR_PARTITIONS_16X16, frames);
  run ("all shapes (16x16 read)", GST_MOTION_VECTOR_PARTITIONS_ALL, frames);
  run ("8x8 only", GST_MOTION_VECTOR_PARTITIONS_8X8, frames);
  run ("4x4 only", GST_MOTION_VECTOR_PARTITIONS_4X4, frames);
  return 0;
}
