/* gpumotionest — many streams in one process:
 *
 *   appsrc ! gpumotionest ! fakesink      (N branches of one pipeline)
 *
 * Every appsrc pushes the same few pre-rendered 1080p frames over and over
 * (in-memory sources: the source is never the bottleneck), so the figure
 * is what N element instances get out of one GPU together.  With
 * --memory cuda (the default) the frames were uploaded once, as a decoder
 * or cudaupload would leave them, and every instance shares that CUDA
 * context through GstContext; --memory system gives them plain host
 * memory, uploaded per frame.
 *
 *   multistream-bench [--streams 1,32,128] [--seconds S] [--memory cuda|system]
 *                     [--width W] [--height H] [--props "search-range=16"]
 *                     [--prime]
 *
 * --props may continue the branch past gpumotionest: "references=-2,-1,+1,+2
 * ! mvdenoise backend=cuda" times search and denoising together.
 *
 * Prints, per stream count, the aggregate frames/s, the slowest and fastest
 * stream, and how many distinct CUDA contexts the instances searched in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "bench-frames.h"

#define N_FRAMES 8
#define CUDA_CONTEXT_TYPE "gst.cuda.context"

static GstBuffer *frames[N_FRAMES];
/* --prime: every stream first submits two frames, so that its session has
 * grown its buffers, and all streams start together afterwards */
static gboolean prime;
static gint go;
static GstContext *cuda_context;        /* the frames', with --memory cuda */

typedef struct {
  GstElement *src, *me;
  guint64 next;                 /* frames pushed */
  gint done;                    /* frames that left gpumotionest */
  gint64 first_out;             /* when the first frame left; 0: none */
  gint waiting;                 /* primed, held until `go` */
} Branch;

static GstBuffer *
render (const GstVideoInfo * info, unsigned index, GRand * rand)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame frame;

  gst_video_frame_map (&frame, (GstVideoInfo *) info, buf, GST_MAP_WRITE);
  bench_frame (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), info->width, info->height,
      BENCH_CONTENT_MOVING, index, rand);
  memset (GST_VIDEO_FRAME_PLANE_DATA (&frame, 1), 128,
      (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 1)
      * GST_VIDEO_FRAME_COMP_HEIGHT (&frame, 1));
  gst_video_frame_unmap (&frame);
  return buf;
}

/* The frames through cudaupload once; the CUDA buffers and the context
 * they live in are kept.  FALSE when CUDA memory cannot be made here. */
static gboolean
upload_frames (GstCaps * caps)
{
  GstElement *pipe = gst_parse_launch ("appsrc name=src format=time ! "
      "cudaupload name=up ! video/x-raw(memory:CUDAMemory) ! "
      "appsink name=sink sync=false", NULL);
  GstElement *src, *sink, *up;
  GstQuery *q;
  GstPad *pad;
  gboolean ok = TRUE;

  if (!pipe)
    return FALSE;
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  up = gst_bin_get_by_name (GST_BIN (pipe), "up");
  g_object_set (src, "caps", caps, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (int i = 0; i < N_FRAMES; i++)
    gst_app_src_push_buffer (GST_APP_SRC (src), frames[i]);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  for (int i = 0; i < N_FRAMES; i++) {
    GstSample *s = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    if (!s) {
      ok = FALSE;
      frames[i] = NULL;
      continue;
    }
    frames[i] = gst_buffer_ref (gst_sample_get_buffer (s));
    ok = ok && gst_memory_is_type (gst_buffer_peek_memory (frames[i], 0),
        "gst.cuda.memory");
    gst_sample_unref (s);
  }
  q = gst_query_new_context (CUDA_CONTEXT_TYPE);
  pad = gst_element_get_static_pad (up, "src");
  if (gst_pad_query (pad, q)) {
    gst_query_parse_context (q, &cuda_context);
    if (cuda_context)
      gst_context_ref (cuda_context);
  }
  gst_query_unref (q);
  gst_object_unref (pad);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (up);
  gst_object_unref (pipe);
  return ok && cuda_context;
}

static void
need_data (GstAppSrc * src, guint length, gpointer user_data)
{
  Branch *b = user_data;
  GstBuffer *buf;

  if (prime && !g_atomic_int_get (&go) && b->next >= 2) {
    g_atomic_int_set (&b->waiting, 1);
    return;
  }
  /* a new buffer sharing the frame's memory: the element adds its meta */
  buf = gst_buffer_copy (frames[b->next % N_FRAMES]);

  GST_BUFFER_PTS (buf) = b->next * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  b->next++;
  gst_app_src_push_buffer (src, buf);
}

static GstPadProbeReturn
count_out (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Branch *b = user_data;
  if (g_atomic_int_add (&b->done, 1) == 0)
    b->first_out = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static guint
count_contexts (Branch * br, guint n)
{
  GPtrArray *seen = g_ptr_array_new ();
  guint count;

  for (guint i = 0; i < n; i++) {
    GstQuery *q = gst_query_new_context (CUDA_CONTEXT_TYPE);
    GstPad *pad = gst_element_get_static_pad (br[i].me, "src");
    if (gst_pad_query (pad, q)) {
      GstContext *ctx = NULL;
      const GValue *v;
      gst_query_parse_context (q, &ctx);
      v = ctx ? gst_structure_get_value (gst_context_get_structure (ctx),
          CUDA_CONTEXT_TYPE) : NULL;
      if (v && !g_ptr_array_find (seen, g_value_get_object (v), NULL))
        g_ptr_array_add (seen, g_value_get_object (v));
    }
    gst_object_unref (pad);
    gst_query_unref (q);
  }
  count = seen->len;
  g_ptr_array_unref (seen);
  return count;
}

static void
run (guint n, GstCaps * caps, const char *props, double seconds)
{
  GstElement *pipe = gst_pipeline_new (NULL);
  Branch *br = g_new0 (Branch, n);
  gint before[1024], after[1024];
  double lo = G_MAXDOUBLE, hi = 0, total = 0;
  GstAppSrcCallbacks cb = { need_data, NULL, NULL };

  if (cuda_context)
    gst_element_set_context (pipe, cuda_context);
  for (guint i = 0; i < n; i++) {
    gchar *desc = g_strdup_printf ("gpumotionest %s", props);
    GstElement *sink = gst_element_factory_make ("fakesink", NULL);
    GstPad *pad;

    br[i].src = gst_element_factory_make ("appsrc", NULL);
    /* props may go on into more elements ("... ! mvdenoise"): a bin of
     * them, its ends ghosted */
    br[i].me = gst_parse_bin_from_description_full (desc, TRUE, NULL,
        GST_PARSE_FLAG_NO_SINGLE_ELEMENT_BINS, NULL);
    g_free (desc);
    g_object_set (br[i].src, "caps", caps, "format", GST_FORMAT_TIME,
        "max-bytes", (guint64) 4 * gst_buffer_get_size (frames[0]), NULL);
    g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
    gst_app_src_set_callbacks (GST_APP_SRC (br[i].src), &cb, &br[i], NULL);
    gst_bin_add_many (GST_BIN (pipe), br[i].src, br[i].me, sink, NULL);
    gst_element_link_many (br[i].src, br[i].me, sink, NULL);
    pad = gst_element_get_static_pad (br[i].me, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_out, &br[i],
        NULL);
    gst_object_unref (pad);
  }
  gint64 start;
  guint started = 0;
  g_atomic_int_set (&go, 0);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (prime) {
    /* every stream has submitted its two frames (or 30 s) */
    gint64 until = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
    guint held = 0;
    while (g_get_monotonic_time () < until) {
      held = 0;
      for (guint i = 0; i < n; i++)
        held += g_atomic_int_get (&br[i].waiting);
      if (held == n)
        break;
      g_usleep (G_USEC_PER_SEC / 20);
    }
    g_usleep (G_USEC_PER_SEC / 2);      /* their submits have returned */
    g_atomic_int_set (&go, 1);
    for (guint i = 0; i < n; i++)
      if (g_atomic_int_get (&br[i].waiting))
        need_data (GST_APP_SRC (br[i].src), 0, &br[i]);
  }
  start = g_get_monotonic_time ();
  /* warm-up: every session open and past its first frames (buffers
   * grown), or 30 s */
  while (g_get_monotonic_time () - start < 30 * G_USEC_PER_SEC) {
    started = 0;
    for (guint i = 0; i < n; i++)
      started += g_atomic_int_get (&br[i].done) >= 8;
    if (started == n)
      break;
    g_usleep (G_USEC_PER_SEC / 20);
  }
  double warm = (g_get_monotonic_time () - start) / 1e6;
  g_usleep (G_USEC_PER_SEC / 2);
  for (guint i = 0; i < n; i++)
    before[i] = g_atomic_int_get (&br[i].done);
  gint64 t0 = g_get_monotonic_time ();
  g_usleep ((gulong) (seconds * G_USEC_PER_SEC));
  for (guint i = 0; i < n; i++)
    after[i] = g_atomic_int_get (&br[i].done);
  double dt = (g_get_monotonic_time () - t0) / 1e6;
  for (guint i = 0; i < n; i++) {
    double fps = (after[i] - before[i]) / dt;
    total += fps;
    lo = MIN (lo, fps);
    hi = MAX (hi, fps);
  }
  {
    gchar *backend = NULL;
    GstElement *me = br[0].me;
    if (GST_IS_BIN (me)) {
      /* the branch's gpumotionest */
      GstIterator *it = gst_bin_iterate_all_by_element_factory_name
          (GST_BIN (me), "gpumotionest");
      GValue v = G_VALUE_INIT;
      me = gst_iterator_next (it, &v) == GST_ITERATOR_OK
          ? GST_ELEMENT (g_value_get_object (&v)) : NULL;
      if (me)
        g_object_get (me, "active-backend", &backend, NULL);
      g_value_unset (&v);
      gst_iterator_free (it);
    } else if (me) {
      g_object_get (me, "active-backend", &backend, NULL);
    }
    printf ("%5u streams  %10.1f frames/s  per stream %8.1f .. %8.1f  "
        "backend %s, %u CUDA context(s), %u started in %.1f s\n", n, total,
        lo, hi, backend ? backend : "?", count_contexts (br, n), started,
        warm);
    fflush (stdout);
    g_free (backend);
  }
  {
    /* when the streams gave their first frame, from PLAYING (or the
     * primed start) */
    const double at[] = { 0.5, 1, 2, 5, 10, 30 };
    printf ("        first frame out by");
    for (guint k = 0; k < G_N_ELEMENTS (at); k++) {
      guint c = 0;
      for (guint i = 0; i < n; i++)
        c += br[i].first_out
            && (br[i].first_out - start) / 1e6 <= at[k];
      printf ("  %.1f s: %u", at[k], c);
    }
    printf ("\n");
  }
  {
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *e = NULL;
      gst_message_parse_error (msg, &e, NULL);
      printf ("  error: %s\n", e->message);
      g_error_free (e);
      gst_message_unref (msg);
    }
    gst_object_unref (bus);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_free (br);
}

int
main (int argc, char **argv)
{
  gchar *streams = NULL, *memory = NULL, *props = NULL;
  gint width = 1920, height = 1080;
  gdouble seconds = 3;
  GOptionEntry entries[] = {
    {"streams", 0, 0, G_OPTION_ARG_STRING, &streams,
        "Stream counts, comma-separated (1,32,128)", "N,..."},
    {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &seconds, "Seconds measured", "S"},
    {"memory", 0, 0, G_OPTION_ARG_STRING, &memory,
        "Where the frames are: cuda or system (cuda)", "M"},
    {"width", 0, 0, G_OPTION_ARG_INT, &width, "Frame width", "W"},
    {"height", 0, 0, G_OPTION_ARG_INT, &height, "Frame height", "H"},
    {"prime", 0, 0, G_OPTION_ARG_NONE, &prime,
        "Every stream submits two frames first; then all start", NULL},
    {"props", 0, 0, G_OPTION_ARG_STRING, &props,
        "gpumotionest properties (\"backend=cuda search-range=16\")", "P"},
    {NULL}
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("");
  g_autoptr (GError) err = NULL;
  GstVideoInfo info;
  GstCaps *caps;
  GRand *rand = g_rand_new_with_seed (1);
  gchar **counts;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  if (width < 16 || height < 16 || width > 8192 || height > 8192) {
    fprintf (stderr, "frame size %dx%d out of range\n", width, height);
    return 2;
  }
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, width, height);
  info.fps_n = 30;
  info.fps_d = 1;
  caps = gst_video_info_to_caps (&info);
  for (int i = 0; i < N_FRAMES; i++)
    frames[i] = render (&info, i, rand);

  if (!memory || !strcmp (memory, "cuda")) {
    if (!upload_frames (caps)) {
      fprintf (stderr, "no CUDA memory here (cudaupload and a GPU needed)\n");
      return 77;
    }
    gst_caps_set_features (caps, 0,
        gst_caps_features_new ("memory:CUDAMemory", NULL));
  } else if (strcmp (memory, "system")) {
    fprintf (stderr, "--memory: cuda or system, not %s\n", memory);
    return 2;
  }

  printf ("%dx%d NV12, %s memory, gpumotionest %s\n", width, height,
      cuda_context ? "CUDA" : "system", props ? props : "");
  counts = g_strsplit (streams ? streams : "1,32,128", ",", -1);
  for (gchar ** c = counts; *c; c++) {
    guint n = (guint) g_ascii_strtoull (*c, NULL, 10);
    if (n < 1 || n > 1024) {
      fprintf (stderr, "stream count %s out of 1..1024\n", *c);
      return 2;
    }
    run (n, caps, props ? props : "", seconds);
  }
  g_strfreev (counts);
  gst_caps_unref (caps);
  g_rand_free (rand);
  return 0;
}
