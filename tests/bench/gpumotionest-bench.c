/* gpumotionest — throughput of a search backend.
 *
 * For each frame size, search range and partition set it runs a
 * submit/collect loop over frames generated in memory beforehand (moving
 * texture with noise, in the backend's preferred host memory) and prints
 * frames per second: "kernel" from the device time of the search kernels
 * alone (CUDA events, depth 1), "depth 1" and "depth N" from the wall clock
 * of the loop with 1 and with the backend's default number of frames in
 * flight (uploads, kernels, downloads and host copies included).
 *
 * With the CUDA backend it first measures the device's ceiling for packed
 * byte SADs (a kernel of nothing but VABSDIFF4 chains) and prints, for each
 * search, achieved / ceiling where achieved = useful SADs per frame (one per
 * 4 pixels of every 16x16 block per candidate: mb_cols x mb_rows x
 * (2R + 1)^2 x 64) x kernel frames per second.
 *
 * --method picks the search method (full, mods, hierarchical, predictive)
 * and --ranges the ranges (comma-separated; default 16,32,64), so that one
 * run prints how a method's cost grows with the range.  The ceiling ratio
 * counts full search's work, so it is printed for `full` only.
 *
 * --backend cuda-multi splits the frames over --devices (default: every
 * GPU); its "kernel" column is one GPU's rate, the depth columns are the
 * whole.
 *
 * --bits 10 (up to 16) times frames of that many bits per sample (16-bit
 * words, the sample in the low bits): the same content, its samples
 * spread over the depth with the extra low bits from the texture.
 *
 * --content noise times independent random frames instead of the moving
 * texture; --input FILE --size WxH real frames instead: raw 8-bit luma
 * (GRAY8, as `ffmpeg -pix_fmt gray -f rawvideo` writes it), up to 16
 * frames read and cycled, at that size alone.
 *
 * The "pruned" column is the mean share of the full search's candidates
 * that exact pruning skipped (docs/elimination.md; "-" where the backend
 * does not say).  --baseline also times each search with
 * MEBackendOptions.exhaustive (no pruning: the plain kernels) in the same
 * run, and prints its frames per second and the ratio.
 *
 * Usage: gpumotionest-bench [--backend NAME] [--quick] [--seconds S]
 *                           [--depth-sweep] [--method NAME] [--ranges LIST]
 *                           [--shapes 16x16|all] [--devices LIST] [--bits N]
 *                           [--content moving|noise] [--input FILE --size WxH]
 *                           [--baseline] [--prune] [--repeat N]
 *
 * --prune runs the full search pruned at every range where the backend
 * has a pruned search (MEBackendOptions.prune ME_PRUNE_ALWAYS; without it,
 * the backend's own rule decides).
 * --repeat N times each search N times and keeps the best (with
 * --baseline the two take turns): on a machine shared with other work.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "me_backend.h"
#include "me_cost.h"
#include "bench-frames.h"
#if HAVE_CUDA
#include "vsad-ceiling.h"
#endif

#define NFRAMES 16        /* the deepest depth timed */

/* --bits: bits per sample of the frames (8: one byte a sample) */
static unsigned bench_bits = 8;
/* --content, --input: what the frames hold */
static BenchContent bench_content = BENCH_CONTENT_MOVING;
static guint8 *bench_input;
static unsigned bench_input_frames;

typedef struct {
  const MEBackendOps *ops;
  MEBackend *backend;
  /* device time of the frames collected, from the stats hook */
  double device_ms;
  guint64 device_frames;
  /* pruned shares of the frames collected that report one */
  double pruned;
  guint64 pruned_frames;
  unsigned width, height;
  uint8_t *frames[NFRAMES];
  MEField fields[NFRAMES];
} Bench;

static void
bench_stats (const MEFrameStats * st, gpointer data)
{
  Bench *b = data;

  if (st->has_reference && st->device_ms >= 0) {
    b->device_ms += st->device_ms;
    b->device_frames++;
  }
  if (st->has_reference && st->pruned_share >= 0) {
    b->pruned += st->pruned_share;
    b->pruned_frames++;
  }
}

static void *
bench_alloc (const Bench * b, size_t size)
{
  return b->ops->host_alloc ? b->ops->host_alloc (size) : g_malloc (size);
}

static void
bench_free (const Bench * b, void *ptr)
{
  if (b->ops->host_free)
    b->ops->host_free (ptr);
  else
    g_free (ptr);
}

static void
bench_setup (Bench * b, unsigned width, unsigned height)
{
  GRand *rand = g_rand_new_with_seed (width * 7919 + height);
  b->width = width;
  b->height = height;
  for (int k = 0; k < NFRAMES; k++) {
    const size_t n = (size_t) width * height;
    b->frames[k] = bench_alloc (b, n * (bench_bits > 8 ? 2 : 1));
    if (bench_input)
      memcpy (b->frames[k], bench_input + n * (k % bench_input_frames), n);
    else
      bench_frame (b->frames[k], width, width, height, bench_content, k,
          rand);
    if (bench_bits > 8) {
      /* in place, from the end: v << (bits - 8), the low bits from the
       * neighbour sample, so that they carry texture too */
      uint16_t *w = (uint16_t *) b->frames[k];
      for (size_t i = n; i-- > 0;)
        w[i] = (uint16_t) (b->frames[k][i] << (bench_bits - 8)
            | (b->frames[k][i + (i + 1 < n)] & ((1u << (bench_bits - 8)) - 1)));
    }
    MEField *f = &b->fields[k];
    memset (f, 0, sizeof (*f));
    f->mb_cols = gst_motion_vector_mb_cols (width);
    f->mb_rows = gst_motion_vector_mb_rows (height);
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      f->grid[p] = bench_alloc (b, (size_t) 16
          * gst_motion_vector_grid_cols (p, f->mb_cols)
          * gst_motion_vector_grid_rows (p, f->mb_rows));
  }
  g_rand_free (rand);
}

static void
bench_teardown (Bench * b)
{
  for (int k = 0; k < NFRAMES; k++) {
    bench_free (b, b->frames[k]);
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      bench_free (b, b->fields[k].grid[p]);
  }
}

/* Runs frames through the backend with `depth` in flight for about
 * `seconds` (at least 8 frames); returns wall-clock frames per second and,
 * with CUDA, kernel-only frames per second in *kernel_fps. */
static void
submit_one (Bench * b, const MESearchParams * params, guint64 n)
{
  GError *error = NULL;
  unsigned k = n % NFRAMES;
  MEPlane plane = { b->frames[k], b->width, b->width, b->height };
  if (bench_bits > 8) {
    plane.stride = 2 * (ptrdiff_t) b->width;
    plane.depth = bench_bits;
  }
  if (!me_backend_submit (b->backend, &plane, params, &b->fields[k],
          &error)) {
    fprintf (stderr, "submit: %s\n", error->message);
    exit (1);
  }
}

static void
collect_one (Bench * b)
{
  GError *error = NULL;
  if (!me_backend_collect (b->backend, &error)) {
    fprintf (stderr, "collect: %s\n", error->message);
    exit (1);
  }
}

/* Stage 3 for every run (--subpel, --metric). */
static MERefine bench_refine = ME_REFINE_NONE;
static MEMetric bench_metric = ME_METRIC_SAD;
static unsigned bench_lambda = 0;
static GstMotionVectorMethod bench_method = GST_MOTION_VECTOR_METHOD_FULL;

static double
bench_loop (Bench * b, unsigned range, unsigned parts, unsigned depth,
    double seconds, double *kernel_fps)
{
  MESearchParams params;
  guint64 submitted = 0, collected = 0;

  me_search_params_init (&params);
  params.search_range = range;
  params.partitions = parts;
  params.refine = bench_refine;
  params.metric = bench_metric;
  params.lambda = bench_lambda;
  params.method = bench_method;
  depth = MIN (depth, NFRAMES);
  me_backend_reset (b->backend);
  me_backend_set_in_flight (b->backend, depth);
  *kernel_fps = 0;

  /* warm-up: the first frame has no reference; a device's clocks rise
   * over a few more */
  const guint64 warm = b->ops->last_device_ms ? NFRAMES : depth + 1;
  const guint64 min_frames = b->ops->last_device_ms ? 8 : 2;
  for (; submitted < warm; submitted++) {
    if (submitted - collected == depth)
      collect_one (b), collected++;
    submit_one (b, &params, submitted);
  }
  for (; collected < submitted; collected++)
    collect_one (b);
  b->device_ms = 0;
  b->device_frames = 0;
  b->pruned = 0;
  b->pruned_frames = 0;

  const gint64 t0 = g_get_monotonic_time ();
  const guint64 first = collected;
  gint64 t1;
  for (;;) {
    for (; submitted - collected < depth; submitted++)
      submit_one (b, &params, submitted);
    collect_one (b);
    collected++;
    t1 = g_get_monotonic_time ();
    if ((t1 - t0) * 1e-6 >= seconds && collected - first >= min_frames)
      break;
  }
  for (; collected < submitted; collected++)
    collect_one (b);
  t1 = g_get_monotonic_time ();

  double fps = (collected - first) / ((t1 - t0) * 1e-6);
  if (b->device_frames && b->device_ms > 0)
    *kernel_fps = b->device_frames / (b->device_ms * 1e-3);
  return fps;
}

int
main (int argc, char **argv)
{
  const char *backend = "cuda";
  gboolean quick = FALSE, sweep = FALSE;
  double seconds = 0.4;
  GError *error = NULL;
  unsigned ranges[16] = { 16, 32, 64 }, n_ranges = 3;
  gboolean ranges_given = FALSE;
  const char *method_name = "full";
  int only_parts = 0;           /* --shapes: 0 both, else that set alone */
  int devices[ME_MAX_DEVICES];
  unsigned n_devices = 0;
  gboolean baseline = FALSE, prune_always = FALSE;
  unsigned repeat = 1;
  const char *input = NULL;
  unsigned in_w = 0, in_h = 0;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--backend") && i + 1 < argc)
      backend = argv[++i];
    else if (!strcmp (argv[i], "--quick"))
      quick = TRUE;
    else if (!strcmp (argv[i], "--bits") && i + 1 < argc)
      bench_bits = (unsigned) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--depth-sweep"))
      sweep = TRUE;
    else if (!strcmp (argv[i], "--seconds") && i + 1 < argc)
      seconds = g_ascii_strtod (argv[++i], NULL);
    else if (!strcmp (argv[i], "--subpel") && i + 1 < argc) {
      i++;
      bench_refine = !strcmp (argv[i], "quarter") ? ME_REFINE_QUARTER
          : !strcmp (argv[i], "half") ? ME_REFINE_HALF : ME_REFINE_NONE;
    } else if (!strcmp (argv[i], "--lambda") && i + 1 < argc)
      bench_lambda = (unsigned) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--method") && i + 1 < argc) {
      /* the nicks of GstMotionVectorMethod, by value */
      static const char *const names[] = { "full", "mods", "hierarchical",
        "predictive"
      };
      i++;
      bench_method = G_N_ELEMENTS (names);
      for (unsigned m = 0; m < G_N_ELEMENTS (names); m++)
        if (!strcmp (argv[i], names[m]))
          bench_method = m;
      if (bench_method == G_N_ELEMENTS (names)) {
        fprintf (stderr, "unknown method %s\n", argv[i]);
        return 2;
      }
      method_name = names[bench_method];
    } else if (!strcmp (argv[i], "--ranges") && i + 1 < argc) {
      gchar **list = g_strsplit (argv[++i], ",", 16);
      ranges_given = TRUE;
      for (n_ranges = 0; list[n_ranges]; n_ranges++)
        ranges[n_ranges] = (unsigned) atoi (list[n_ranges]);
      g_strfreev (list);
    } else if (!strcmp (argv[i], "--shapes") && i + 1 < argc) {
      i++;
      only_parts = !strcmp (argv[i], "all") ? GST_MOTION_VECTOR_PARTITIONS_ALL
          : GST_MOTION_VECTOR_PARTITIONS_16X16;
    } else if (!strcmp (argv[i], "--devices") && i + 1 < argc) {
      gchar **list = g_strsplit (argv[++i], ",", ME_MAX_DEVICES);
      for (n_devices = 0; list[n_devices]; n_devices++)
        devices[n_devices] = atoi (list[n_devices]);
      g_strfreev (list);
    } else if (!strcmp (argv[i], "--baseline"))
      baseline = TRUE;
    else if (!strcmp (argv[i], "--prune"))
      prune_always = TRUE;
    else if (!strcmp (argv[i], "--repeat") && i + 1 < argc)
      repeat = (unsigned) MAX (1, atoi (argv[i + 1])), i++;
    else if (!strcmp (argv[i], "--content") && i + 1 < argc) {
      i++;
      bench_content = !strcmp (argv[i], "noise") ? BENCH_CONTENT_NOISE
          : BENCH_CONTENT_MOVING;
    } else if (!strcmp (argv[i], "--input") && i + 1 < argc)
      input = argv[++i];
    else if (!strcmp (argv[i], "--size") && i + 1 < argc) {
      if (sscanf (argv[++i], "%ux%u", &in_w, &in_h) != 2)
        in_w = in_h = 0;
    } else if (!strcmp (argv[i], "--metric") && i + 1 < argc)
      bench_metric = !strcmp (argv[++i], "satd") ? ME_METRIC_SATD
          : ME_METRIC_SAD;
    else {
      fprintf (stderr, "usage: %s [--backend NAME] [--quick] [--seconds S] "
          "[--depth-sweep] [--subpel none|half|quarter] [--metric sad|satd] "
          "[--lambda N] [--method NAME] [--ranges R1,R2,..] [--shapes 16x16|all] [--devices LIST] [--bits N] "
          "[--content moving|noise] [--input FILE --size WxH] [--baseline] [--prune] [--repeat N]\n",
          argv[0]);
      return 2;
    }
  }

  if (bench_bits < 8 || bench_bits > 16) {
    fprintf (stderr, "--bits %u: 8 to 16\n", bench_bits);
    return 2;
  }
  if (input) {
    gsize len;
    gchar *data;
    if (!in_w || !in_h || !g_file_get_contents (input, &data, &len, &error)
        || len < (gsize) in_w * in_h) {
      fprintf (stderr, "--input %s --size %ux%u: %s\n", input, in_w, in_h,
          error ? error->message : "no size, or shorter than a frame");
      return 2;
    }
    bench_input = (guint8 *) data;
    bench_input_frames = MIN (NFRAMES, len / ((gsize) in_w * in_h));
  }
  Bench b = { 0 };
  MEBackend *plain = NULL;
  b.ops = me_backend_find (backend);
  if (!b.ops) {
    printf ("backend %s not built\n", backend);
    return 77;
  }
  {
    MEBackendOptions options;
    me_backend_options_init (&options);
    options.stats = bench_stats;
    options.stats_data = &b;
    if (prune_always)
      options.prune = ME_PRUNE_ALWAYS;
    memcpy (options.devices, devices, n_devices * sizeof (int));
    options.n_devices = n_devices;
    b.backend = me_backend_open (b.ops, &options, &error);
    if (b.backend && baseline) {
      options.exhaustive = TRUE;
      plain = me_backend_open (b.ops, &options, &error);
      if (!plain) {
        printf ("backend %s (exhaustive) unavailable: %s\n", backend,
            error->message);
        return 77;
      }
    }
  }
  if (!b.backend) {
    printf ("backend %s unavailable: %s\n", backend, error->message);
    return 77;
  }
  MESearchParams depth_params;
  me_search_params_init (&depth_params);
  depth_params.lambda = bench_lambda;
  unsigned depth_default =
      me_backend_default_in_flight (b.backend, &depth_params);

  double ceiling = 0;
  gboolean is_cuda = strcmp (backend, "cuda") == 0;
  if (me_backend_device_name (b.backend))
    printf ("device: %s\n", me_backend_device_name (b.backend));
#if HAVE_CUDA
  if (is_cuda) {
    if (!me_cuda_vsad_ceiling (-1, &ceiling, &error)) {
      printf ("ceiling: %s\n", error->message);
      g_clear_error (&error);
    } else {
      printf ("VABSDIFF4 ceiling: %.3e 4-byte SADs/s\n", ceiling);
    }
  }
#endif

  static const unsigned sizes[][2] = { {1280, 720}, {1920, 1080},
  {3840, 2160}
  };
  static const unsigned parts[] = { GST_MOTION_VECTOR_PARTITIONS_16X16,
    GST_MOTION_VECTOR_PARTITIONS_ALL
  };

  if (sweep) {
    bench_setup (&b, 1920, 1080);
    printf ("\nin-flight sweep, 1920x1080, R=32, 16x16 / all shapes:\n");
    for (unsigned d = 1; d <= me_backend_max_in_flight (b.backend); d++) {
      double k1, k2;
      double f1 = bench_loop (&b, 32, 0x01, d, seconds, &k1);
      double f2 = bench_loop (&b, 32, 0x7f, d, seconds, &k2);
      printf ("  depth %u: %8.1f fps  %8.1f fps\n", d, f1, f2);
    }
    bench_teardown (&b);
  }

  static const char *const refine_names[] = { "none", "half", "quarter" };
  printf ("\nbackend %s, method %s, subpel %s, metric %s, lambda %u, %u-bit "
      "samples, frames per second (kernel = device time of the search kernels "
      "only; depth N = wall clock with N frames in flight)\n", backend,
      method_name, refine_names[bench_refine],
      bench_metric == ME_METRIC_SATD ? "satd" : "sad", bench_lambda,
      bench_bits);
  printf ("%-10s %4s %-6s %10s %10s %10s %9s %7s%s\n", "size", "R", "shapes",
      "kernel", "depth 1", "depth", "of ceil", "pruned", baseline
      ? "   plain kernel  plain d1   speedup" : "");
  for (unsigned si = 0; si < G_N_ELEMENTS (sizes); si++) {
    if (quick && si != 1 && !input)
      continue;
    if (input && si > 0)
      break;
    unsigned width = input ? in_w : sizes[si][0];
    unsigned height = input ? in_h : sizes[si][1];
    bench_setup (&b, width, height);
    for (unsigned ri = 0; ri < n_ranges; ri++) {
      if (quick && !ranges_given && ranges[ri] != 32)
        continue;
      if (bench_method == GST_MOTION_VECTOR_METHOD_FULL
          && ranges[ri] > b.ops->caps.max_full_range)
        continue;
      for (unsigned pi = 0; pi < G_N_ELEMENTS (parts); pi++) {
        if (only_parts && parts[pi] != (unsigned) only_parts)
          continue;
        double kfps = 0, kfps2, pkfps = 0, pf1 = 0, f1 = 0;
        char pruned[32] = "-";
        /* --repeat: the best of N, the searches with and without pruning
         * taking turns, so that other load on the machine hits both */
        for (unsigned rep = 0; rep < repeat; rep++) {
          double k, f = bench_loop (&b, ranges[ri], parts[pi], 1, seconds,
              &k);
          f1 = MAX (f1, f);
          kfps = MAX (kfps, k);
          if (b.pruned_frames)
            g_snprintf (pruned, sizeof (pruned), "%.3f",
                b.pruned / b.pruned_frames);
          if (plain) {
            MEBackend *pruning = b.backend;
            b.backend = plain;
            f = bench_loop (&b, ranges[ri], parts[pi], 1, seconds, &k);
            pf1 = MAX (pf1, f);
            pkfps = MAX (pkfps, k);
            b.backend = pruning;
          }
        }
        /* (depth 1 again where that is the default: the same loop) */
        double fd = depth_default == 1 ? f1 : bench_loop (&b, ranges[ri],
            parts[pi], depth_default, seconds, &kfps2);
        double sads = (double) gst_motion_vector_mb_cols (width)
            * gst_motion_vector_mb_rows (height)
            * (2.0 * ranges[ri] + 1) * (2.0 * ranges[ri] + 1) * 64;
        char size[32], ratio[32] = "-", kernel[32] = "-";
        g_snprintf (size, sizeof (size), "%ux%u", width, height);
        if (kfps > 0)
          g_snprintf (kernel, sizeof (kernel), "%.1f", kfps);
        if (ceiling > 0 && kfps > 0
            && bench_method == GST_MOTION_VECTOR_METHOD_FULL)
          g_snprintf (ratio, sizeof (ratio), "%.3f", sads * kfps / ceiling);
        printf ("%-10s %4u %-6s %10s %10.2f %7.2f(%u) %9s %7s", size,
            ranges[ri], parts[pi] == GST_MOTION_VECTOR_PARTITIONS_ALL ? "all"
            : "16x16", kernel, f1, fd, depth_default, ratio, pruned);
        if (plain)
          printf ("  %13.1f %9.2f %8.2fx", pkfps, pf1, pkfps > 0 && kfps > 0
              ? kfps / pkfps : f1 / pf1);
        printf ("\n");
        fflush (stdout);
      }
    }
    bench_teardown (&b);
  }
  (void) is_cuda;
  if (plain)
    me_backend_close (plain);
  me_backend_close (b.backend);
  g_free (bench_input);
  return 0;
}
