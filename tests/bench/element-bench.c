/* gpumotionest — end-to-end benchmark through the element:
 *
 *   appsrc (pre-rendered frames) ! gpumotionest ! fakesink
 *
 * Prints frames per second for each size, search range, shape set and
 * in-flight depth.  Frames come either from the buffer pool the element
 * proposes (page-locked memory on the GPU backend, as a real upstream
 * element would use it) or from plain memory (--plain), which the GPU
 * backend stages through its own pinned buffers.
 *
 *   element-bench [--backend auto|cpu|cuda] [--seconds S] [--plain] [--quick]
 *                 [--range R] [--size WxH] [--props "..."]
 *                 [--multiview side-by-side|top-bottom]
 *
 * --quick runs 1080p at R=32 (--range picks another range, --size another
 * size and implies --quick).  --multiview marks the frames as stereo of
 * that layout (each view searched, and the second against the first: the
 * disparity-range property sets how far). 
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include "bench-frames.h"

#define N_FRAMES 8

typedef struct {
  unsigned w, h;
} Size;

static GstBuffer *
render (GstBufferPool ** pool, const GstVideoInfo * info,
    unsigned index, GRand * rand)
{
  GstBuffer *buf = NULL;
  GstVideoFrame frame;

  if (*pool && gst_buffer_pool_acquire_buffer (*pool, &buf, NULL)
      != GST_FLOW_OK)
    buf = NULL;
  if (!buf)
    buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  gst_video_frame_map (&frame, (GstVideoInfo *) info, buf, GST_MAP_WRITE);
  bench_frame (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), info->width, info->height,
      BENCH_CONTENT_MOVING, index, rand);
  for (guint p = 1; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++)
    memset (GST_VIDEO_FRAME_PLANE_DATA (&frame, p), 128,
        (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p)
        * GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p));
  gst_video_frame_unmap (&frame);
  return buf;
}

/* The pool the element proposes, if any: what a real upstream would use. */
static GstBufferPool *
proposed_pool (GstElement * src, GstCaps * caps)
{
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstBufferPool *pool = NULL;

  if (gst_pad_peer_query (pad, q) && gst_query_get_n_allocation_pools (q) > 0) {
    guint size, min, max;
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
    if (pool) {
      GstStructure *config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_set_params (config, caps, size, N_FRAMES, 0);
      if (!gst_buffer_pool_set_config (pool, config)
          || !gst_buffer_pool_set_active (pool, TRUE))
        gst_clear_object (&pool);
    }
  }
  gst_query_unref (q);
  gst_object_unref (pad);
  return pool;
}

/* More gpumotionest properties for every run (--props "subpel=quarter"). */
static const char *extra_props = "";
static GstVideoMultiviewMode multiview = GST_VIDEO_MULTIVIEW_MODE_NONE;

static double
run (const char *backend, Size s, unsigned range, const char *parts,
    unsigned depth, double seconds, gboolean plain, char *active, gboolean
    * pooled)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-buffers=4 ! gpumotionest name=me backend=%s search-range=%u "
      "partitions=%s in-flight=%u %s ! fakesink sync=false", backend, range,
      parts, depth, extra_props);
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *me = gst_bin_get_by_name (GST_BIN (pipe), "me");
  GstBus *bus = gst_element_get_bus (pipe);
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  GstCaps *caps;
  GstBuffer *frames[N_FRAMES];
  GRand *rand = g_rand_new_with_seed (5);
  GstMessage *msg;
  double t0, t = 0;
  unsigned n = 0;
  gchar *name = NULL;

  g_free (desc);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, s.w, s.h);
  info.fps_n = 30;
  info.fps_d = 1;
  GST_VIDEO_INFO_MULTIVIEW_MODE (&info) = multiview;
  caps = gst_video_info_to_caps (&info);
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (!plain) {
    /* The element answers the allocation query once it has caps: send one
     * plain frame through first, as a real source's first buffer would. */
    GstBuffer *first = render (&pool, &info, 0, rand);
    gst_app_src_push_buffer (GST_APP_SRC (src), first);
    for (int tries = 0; tries < 100 && !pool; tries++) {
      g_usleep (10000);
      pool = proposed_pool (src, caps);
    }
  }
  *pooled = pool != NULL;
  for (unsigned i = 0; i < N_FRAMES; i++)
    frames[i] = render (&pool, &info, i, rand);

  /* warm-up: a few frames before the clock starts */
  for (; n < 8; n++) {
    GstBuffer *b = gst_buffer_ref (frames[n % N_FRAMES]);
    GST_BUFFER_PTS (b) = n * GST_SECOND / 30;
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
  }
  t0 = g_get_monotonic_time () / 1e6;
  while (t < seconds) {
    for (unsigned k = 0; k < 16; k++, n++) {
      GstBuffer *b = gst_buffer_ref (frames[n % N_FRAMES]);
      GST_BUFFER_PTS (b) = n * GST_SECOND / 30;
      gst_app_src_push_buffer (GST_APP_SRC (src), b);
    }
    t = g_get_monotonic_time () / 1e6 - t0;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  t = g_get_monotonic_time () / 1e6 - t0;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    fprintf (stderr, "error: %s\n", error->message);
    exit (1);
  }
  gst_message_unref (msg);
  g_object_get (me, "active-backend", &name, NULL);
  g_strlcpy (active, name ? name : "?", 16);
  g_free (name);

  gst_element_set_state (pipe, GST_STATE_NULL);
  for (unsigned i = 0; i < N_FRAMES; i++)
    gst_buffer_unref (frames[i]);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_caps_unref (caps);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (me);
  gst_object_unref (pipe);
  g_rand_free (rand);
  return (n - 8) / t;
}

int
main (int argc, char **argv)
{
  const char *backend = "auto";
  double seconds = 2.0;
  gboolean plain = FALSE, quick = FALSE;
  unsigned quick_range = 32;
  Size sizes[] = { {1280, 720}, {1920, 1080}, {3840, 2160} };
  static const unsigned ranges[] = { 16, 32, 64 };
  static const char *shapes[] = { "16x16", "all" };

  gst_init (&argc, &argv);
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--backend") && i + 1 < argc)
      backend = argv[++i];
    else if (!strcmp (argv[i], "--seconds") && i + 1 < argc)
      seconds = atof (argv[++i]);
    else if (!strcmp (argv[i], "--plain"))
      plain = TRUE;
    else if (!strcmp (argv[i], "--quick"))
      quick = TRUE;
    else if (!strcmp (argv[i], "--range") && i + 1 < argc)
      quick_range = (unsigned) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--size") && i + 1 < argc
        && sscanf (argv[++i], "%ux%u", &sizes[1].w, &sizes[1].h) == 2)
      quick = TRUE;             /* the quick run's size, replaced */
    else if (!strcmp (argv[i], "--props") && i + 1 < argc)
      extra_props = argv[++i];
    else if (!strcmp (argv[i], "--multiview") && i + 1 < argc)
      multiview = gst_video_multiview_mode_from_caps_string (argv[++i]);
    else {
      fprintf (stderr, "usage: %s [--backend auto|cpu|cuda] [--seconds S] "
          "[--plain] [--quick] [--range R] [--size WxH] "
          "[--props \"subpel=quarter ...\"]\n",
          argv[0]);
      return 2;
    }
  }

  printf ("end to end: appsrc ! gpumotionest %s ! fakesink, frames/s\n",
      extra_props);
  printf ("%-10s %3s %-6s %8s %8s %8s  %s\n", "size", "R", "shapes",
      "depth 1", "depth 0", "ratio", "backend, frames from");
  for (unsigned si = quick ? 1 : 0; si < (quick ? 2u : G_N_ELEMENTS (sizes));
      si++) {
    for (unsigned ri = 0; ri < (quick ? 1 : G_N_ELEMENTS (ranges)); ri++) {
      const unsigned range = quick ? quick_range : ranges[ri];
      for (unsigned pi = 0; pi < G_N_ELEMENTS (shapes); pi++) {
        char active[16];
        gboolean pooled;
        double d1 = run (backend, sizes[si], range, shapes[pi], 1,
            seconds, plain, active, &pooled);
        double d0 = run (backend, sizes[si], range, shapes[pi], 0,
            seconds, plain, active, &pooled);
        printf ("%4ux%-5u %3u %-6s %8.1f %8.1f %8.2f  %s, %s\n",
            sizes[si].w, sizes[si].h, range, shapes[pi], d1, d0, d0 / d1,
            active, pooled ? "its proposed pool" : "plain memory");
        fflush (stdout);
      }
    }
  }
  return 0;
}
