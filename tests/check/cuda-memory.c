/* gpumotionest — frames that arrive in CUDA memory.
 *
 * The same moving picture goes through
 *   videotestsrc ! gpumotionest backend=cpu ! appsink          (reference)
 *   videotestsrc ! cudaupload ! gpumotionest backend=B ! appsink
 * for B = cuda (the kernels read the frames where cudaupload left them) and
 * B = cpu (the frames are downloaded by their map), for every search
 * method and at several sizes and depths.  Every buffer must carry the
 * reference's meta, cell for cell; the buffers must leave in CUDA memory,
 * as they came; and gpumotionest must search in cudaupload's CUDA context
 * (one context per GPU, shared through GstContext).
 *
 * Exits 77 (skip) without GStreamer's CUDA elements or a GPU.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "cuda-elements.h"

#define CUDA_MEMORY_TYPE "gst.cuda.memory"

typedef struct {
  GPtrArray *metas;             /* GBytes of every buffer's cells */
  GArray *pts;
  guint cuda_buffers;           /* buffers that left in CUDA memory */
  GObject *me_context;          /* gpumotionest's and cudaupload's */
  GObject *upload_context;
  gchar *active_backend;
} Run;

static void
run_clear (Run * r)
{
  g_clear_pointer (&r->metas, g_ptr_array_unref);
  g_clear_pointer (&r->pts, g_array_unref);
  g_clear_object (&r->me_context);
  g_clear_object (&r->upload_context);
  g_clear_pointer (&r->active_backend, g_free);
}

static gboolean
run_pipeline (const gchar * upload, const gchar * backend, guint w, guint h,
    const gchar * method, guint depth, Run * r)
{
  g_autoptr (GError) err = NULL;
  gchar *desc = g_strdup_printf ("videotestsrc pattern=smpte "
      "horizontal-speed=3 num-buffers=24 ! video/x-raw,format=NV12,width=%u,"
      "height=%u,framerate=30/1 %s ! gpumotionest name=me backend=%s "
      "method=%s search-range=24 partitions=all subpel=quarter metric=satd "
      "lambda=40 in-flight=%u ! appsink name=sink sync=false", w, h, upload,
      backend, method, depth);
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *sink, *me, *up;
  GstSample *sample;
  gboolean ok = TRUE;

  g_free (desc);
  if (!pipe) {
    g_printerr ("pipeline: %s\n", err->message);
    return FALSE;
  }
  memset (r, 0, sizeof (*r));
  r->metas = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  r->pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  me = gst_bin_get_by_name (GST_BIN (pipe), "me");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta (buf);
    GstClockTime pts = GST_BUFFER_PTS (buf);

    if (!m) {
      g_printerr ("buffer %u without a meta\n", r->metas->len);
      ok = FALSE;
    } else {
      g_ptr_array_add (r->metas, g_bytes_ref (m->data));
    }
    g_array_append_val (r->pts, pts);
    if (gst_buffer_n_memory (buf) > 0
        && gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
            CUDA_MEMORY_TYPE))
      r->cuda_buffers++;
    if (r->metas->len == 1) {
      r->me_context = cuda_elements_pad_context (me, "src");
      g_object_get (me, "active-backend", &r->active_backend, NULL);
      if ((up = gst_bin_get_by_name (GST_BIN (pipe), "up"))) {
        r->upload_context = cuda_elements_pad_context (up, "src");
        gst_object_unref (up);
      }
    }
    gst_sample_unref (sample);
  }
  {
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *e = NULL;
      gst_message_parse_error (msg, &e, NULL);
      g_printerr ("error: %s\n", e->message);
      g_error_free (e);
      gst_message_unref (msg);
      ok = FALSE;
    }
    gst_object_unref (bus);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (me);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return ok;
}

int
main (int argc, char **argv)
{
  const gchar *methods[] = { "full", "mods", "hierarchical", "predictive" };
  const guint sizes[][2] = { {352, 288}, {1280, 720}, {250, 138} };
  const gchar *upload = "! cudaupload name=up ! "
      "video/x-raw(memory:CUDAMemory)";
  guint failures = 0, compared = 0;

  gst_init (&argc, &argv);
  if (!cuda_elements_usable ("gpumotionest")) {
    g_print ("no cudaupload or no CUDA memory support in gpumotionest: "
        "skipped\n");
    return 77;
  }

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint m = 0; m < G_N_ELEMENTS (methods); m++) {
      const guint w = sizes[s][0], h = sizes[s][1];
      Run ref, dev, host;
      guint depth = 1 + (s * 4 + m) % 6;

      if (!run_pipeline ("", "cpu", w, h, methods[m], 1, &ref))
        return 1;
      /* CUDA memory works here (cuda_elements_usable()): a failure is
       * ours */
      if (!run_pipeline (upload, "cuda", w, h, methods[m], depth, &dev)) {
        g_printerr ("%ux%u %s: the CUDA pipeline failed\n", w, h,
            methods[m]);
        return 1;
      }
      if (!run_pipeline (upload, "cpu", w, h, methods[m], depth, &host))
        return 1;

      for (guint k = 0; k < 2; k++) {
        Run *r = k ? &host : &dev;
        const gchar *what = k ? "cpu on CUDA memory" : "cuda on CUDA memory";
        guint diff = 0;

        if (r->metas->len != ref.metas->len) {
          g_printerr ("%ux%u %s, %s: %u buffers, reference %u\n", w, h,
              methods[m], what, r->metas->len, ref.metas->len);
          failures++;
          continue;
        }
        for (guint i = 0; i < ref.metas->len; i++)
          if (g_array_index (r->pts, GstClockTime, i)
              != g_array_index (ref.pts, GstClockTime, i)
              || !g_bytes_equal (g_ptr_array_index (r->metas, i),
                  g_ptr_array_index (ref.metas, i)))
            diff++;
        if (r->cuda_buffers != r->metas->len) {
          g_printerr ("%ux%u %s, %s: %u of %u buffers left in CUDA memory\n",
              w, h, methods[m], what, r->cuda_buffers, r->metas->len);
          failures++;
        }
        if (!r->me_context || r->me_context != r->upload_context) {
          /* the CPU backend holds no context: only the CUDA one is asked */
          if (!k) {
            g_printerr ("%ux%u %s: gpumotionest's CUDA context %p is not "
                "cudaupload's %p\n", w, h, methods[m], r->me_context,
                r->upload_context);
            failures++;
          }
        }
        if (g_strcmp0 (r->active_backend, k ? "cpu" : "cuda")) {
          g_printerr ("%ux%u %s, %s: ran on %s\n", w, h, methods[m], what,
              r->active_backend);
          failures++;
        }
        g_print ("%ux%u %-12s %-20s depth %u: %u buffers, %u in CUDA memory, "
            "%u metas differ%s\n", w, h, methods[m], what, depth,
            r->metas->len, r->cuda_buffers, diff,
            !k && r->me_context && r->me_context == r->upload_context
            ? ", cudaupload's context" : "");
        failures += diff;
        compared += r->metas->len;
      }
      run_clear (&ref);
      run_clear (&dev);
      run_clear (&host);
    }
  g_print ("%u buffers compared, %u failures\n", compared, failures);
  return failures ? 1 : 0;
}
