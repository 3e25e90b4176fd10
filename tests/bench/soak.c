/* gpumotionest soak: a long stream whose caps and properties keep changing.
 *
 *   soak [--frames N] [--backend auto|cpu|cuda] [--every N]
 *
 * Pushes N frames (default 300000) through gpumotionest in a GstHarness.
 * Every 64 frames something changes, in turn: the caps (format and size),
 * the search range and shapes, the in-flight depth, a flushing seek, a
 * DISCONT buffer, an empty gap buffer, the backend (reopened).  Every
 * --every frames (default N/20) it prints the process's resident memory,
 * threads and open file descriptors; after a warm-up these must stay flat.
 * Every buffer pushed must come out once, in order: the count is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

static const struct {
  const gchar *format;
  guint w, h;
} shapes[] = {
  {"I420", 64, 48}, {"NV12", 97, 33}, {"GRAY8", 17, 9}, {"Y444", 128, 72},
  {"YV12", 1, 1}, {"Y42B", 160, 96}, {"NV21", 48, 130},
};

static glong
rss_kib (void)
{
  glong pages = 0, resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");

  if (f) {
    if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose (f);
  }
  return resident * (sysconf (_SC_PAGESIZE) / 1024);
}

static gint
count_threads (void)
{
  gchar *status = NULL;
  gint n = -1;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL)) {
    const gchar *t = strstr (status, "Threads:");
    if (t)
      n = atoi (t + 8);
  }
  g_free (status);
  return n;
}

static gint
count_fds (void)
{
  DIR *d = opendir ("/proc/self/fd");
  gint n = 0;

  if (!d)
    return -1;
  while (readdir (d))
    n++;
  closedir (d);
  return n - 2;
}

static GstBuffer *
frame (const GstVideoInfo * info, guint i)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < map.size; k++)
    map.data[k] = (guint8) ((k * 2654435761u) >> 13) + i;
  gst_buffer_unmap (b, &map);
  return b;
}

int
main (int argc, char **argv)
{
  guint64 frames = 300000, every = 0, pushed = 0, out = 0;
  const gchar *backend = "auto";
  GstHarness *h;
  GstVideoInfo info;
  guint shape = 0, change = 0;
  glong rss_first = 0;
  gint64 t0;

  gst_init (&argc, &argv);
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--frames") && i + 1 < argc)
      frames = g_ascii_strtoull (argv[++i], NULL, 10);
    else if (!strcmp (argv[i], "--backend") && i + 1 < argc)
      backend = argv[++i];
    else if (!strcmp (argv[i], "--every") && i + 1 < argc)
      every = g_ascii_strtoull (argv[++i], NULL, 10);
    else {
      fprintf (stderr, "usage: %s [--frames N] [--backend auto|cpu|cuda] "
          "[--every N]\n", argv[0]);
      return 2;
    }
  }
  if (!every)
    every = MAX (frames / 20, 1);

  h = gst_harness_new ("gpumotionest");
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  g_object_set (h->element, "search-range", 8, NULL);

#define SET_CAPS() G_STMT_START { \
    gchar *c = g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u," \
        "framerate=30/1", shapes[shape].format, shapes[shape].w, \
        shapes[shape].h); \
    gst_harness_set_src_caps_str (h, c); \
    g_free (c); \
    gst_video_info_set_format (&info, \
        gst_video_format_from_string (shapes[shape].format), \
        shapes[shape].w, shapes[shape].h); \
  } G_STMT_END
  SET_CAPS ();

  printf ("%10s %10s %8s %5s %8s\n", "frames", "RSS KiB", "threads", "fds",
      "frames/s");
  t0 = g_get_monotonic_time ();
  for (guint64 i = 0; i < frames; i++) {
    GstBuffer *b, *o;

    if (i % 64 == 63) {
      switch (change++ % 8) {
        case 0:
          shape = (shape + 1) % G_N_ELEMENTS (shapes);
          SET_CAPS ();
          break;
        case 1:
          g_object_set (h->element, "search-range", 1 + (guint) (i % 40),
              "partitions", 1 + (guint) (i % 127), NULL);
          break;
        case 2:
          g_object_set (h->element, "in-flight", (guint) (i % 9), NULL);
          break;
        case 3:{
          GstSegment seg;
          gst_harness_push_event (h, gst_event_new_flush_start ());
          gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));
          gst_segment_init (&seg, GST_FORMAT_TIME);
          gst_harness_push_event (h, gst_event_new_segment (&seg));
          /* frames in flight are dropped by design: count them out */
          while ((o = gst_harness_try_pull (h))) {
            gst_buffer_unref (o);
            out++;
          }
          pushed = out;
          break;
        }
        case 4:
          b = frame (&info, i);
          GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
          if (gst_harness_push (h, b) != GST_FLOW_OK)
            g_error ("frame %" G_GUINT64_FORMAT " refused", i);
          pushed++;
          break;
        case 5:
          b = gst_buffer_new ();
          GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_GAP);
          if (gst_harness_push (h, b) != GST_FLOW_OK)
            g_error ("gap buffer refused");
          pushed++;
          break;
        case 6:
          gst_util_set_object_arg (G_OBJECT (h->element), "backend",
              (change / 8) % 2 ? "cpu" : backend);
          break;
        case 7:
          gst_harness_push_event (h, gst_event_new_tag (gst_tag_list_new
                  (GST_TAG_COMMENT, "soak", NULL)));
          break;
      }
    }
    b = frame (&info, i);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    if (gst_harness_push (h, b) != GST_FLOW_OK)
      g_error ("frame %" G_GUINT64_FORMAT " refused", i);
    pushed++;
    while ((o = gst_harness_try_pull (h))) {
      gst_buffer_unref (o);
      out++;
    }
    {
      GstEvent *e;
      while ((e = gst_harness_try_pull_event (h)))
        gst_event_unref (e);
    }

    if ((i + 1) % every == 0) {
      gdouble s = (g_get_monotonic_time () - t0) / 1e6;
      glong rss = rss_kib ();
      if (!rss_first)
        rss_first = rss;
      printf ("%10" G_GUINT64_FORMAT " %10ld %8d %5d %8.0f\n", i + 1, rss,
          count_threads (), count_fds (), (i + 1) / s);
      fflush (stdout);
    }
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  {
    GstBuffer *o;
    while ((o = gst_harness_try_pull (h))) {
      gst_buffer_unref (o);
      out++;
    }
  }
  printf ("pushed %" G_GUINT64_FORMAT " (counted since the last flush), "
      "out %" G_GUINT64_FORMAT "; RSS %ld KiB at the first report, %ld at "
      "the end\n", pushed, out, rss_first, rss_kib ());
  gst_harness_teardown (h);
  return pushed == out ? 0 : 1;
}
