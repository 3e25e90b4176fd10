/* mvdenoise — frames that arrive, and leave, in CUDA memory.
 *
 * The same moving picture is denoised through
 *   videotestsrc ! gpumotionest backend=cpu ! mvdenoise backend=cpu
 *       ! appsink                                            (reference)
 *   videotestsrc ! cudaupload ! gpumotionest backend=cuda
 *       ! mvdenoise backend=B ! appsink
 * for B = cuda (the frames are read and written on the GPU) and B = cpu
 * (each frame downloaded and uploaded by its map), for several formats,
 * sizes, radii and noise levels (a given sigma, and the estimate); and,
 * for formats cudaupload does not take, the frames in system memory
 * through mvdenoise backend=cuda.  Every output frame must equal the
 * reference's, sample for sample, at the same time; every output buffer
 * must be CUDA memory; and mvdenoise must work in cudaupload's CUDA
 * context.  The pictures: videotestsrc's moving ball, and its "snow"
 * (noise alone, where the weights vary from block to block).
 *
 * Exits 77 (skip) without GStreamer's CUDA elements or a GPU.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "cuda-elements.h"

#define CUDA_MEMORY_TYPE "gst.cuda.memory"

typedef struct {
  GPtrArray *frames;            /* GBytes: every output frame's samples */
  GArray *pts;
  guint cuda_buffers;           /* buffers that left in CUDA memory */
  GObject *denoise_context;     /* mvdenoise's and cudaupload's */
  GObject *upload_context;
} Run;

static void
run_clear (Run * r)
{
  g_clear_pointer (&r->frames, g_ptr_array_unref);
  g_clear_pointer (&r->pts, g_array_unref);
  g_clear_object (&r->denoise_context);
  g_clear_object (&r->upload_context);
}

/* The visible samples of a frame, plane by plane, row by row. */
static GBytes *
frame_samples (GstSample * sample)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GByteArray *out = g_byte_array_new ();

  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      || !gst_video_frame_map (&f, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ))
    return g_byte_array_free_to_bytes (out);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, p);
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info.finfo, p, comp);
    const gint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&f, comp[0]);
    /* the plane's row: its first component's samples times their
     * spacing (two components interleaved: both) */
    const gint row_bytes = GST_VIDEO_FRAME_COMP_WIDTH (&f, comp[0])
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, comp[0]);
    for (gint y = 0; y < rows; y++)
      g_byte_array_append (out, d + (gsize) y * stride, row_bytes);
  }
  gst_video_frame_unmap (&f);
  return g_byte_array_free_to_bytes (out);
}

typedef struct {
  const gchar *format;
  guint w, h;
  const gchar *pattern;
  guint radius;
  const gchar *sigma;           /* "-1": the estimate */
  gboolean cuda_memory;         /* FALSE: system memory, backend=cuda */
} Case;

static gboolean
run_pipeline (const Case * k, gboolean cuda, const gchar * backend, Run * r)
{
  g_autoptr (GError) err = NULL;
  const gchar *feature = cuda ? "(memory:CUDAMemory)" : "";
  const gboolean search_cuda = cuda || !strcmp (backend, "cuda");
  gchar *desc = g_strdup_printf ("videotestsrc pattern=%s "
      "horizontal-speed=3 num-buffers=12 ! video/x-raw,format=%s,width=%u,"
      "height=%u,framerate=25/1 %s ! gpumotionest backend=%s "
      "references=-4,-3,-2,-1,+1,+2,+3,+4 summary=true "
      "partitions=16x16+8x8 subpel=quarter ! mvdenoise name=dn backend=%s "
      "radius=%u sigma=%s ! video/x-raw%s ! appsink name=sink sync=false",
      k->pattern, k->format, k->w, k->h,
      cuda ? "! cudaupload name=up ! video/x-raw(memory:CUDAMemory)" : "",
      search_cuda ? "cuda" : "cpu", backend, k->radius, k->sigma, feature);
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *sink, *dn, *up;
  GstSample *sample;
  gboolean ok = TRUE;

  if (!pipe) {
    g_printerr ("%s: %s\n", desc, err->message);
    g_free (desc);
    return FALSE;
  }
  g_free (desc);
  memset (r, 0, sizeof (*r));
  r->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  r->pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  dn = gst_bin_get_by_name (GST_BIN (pipe), "dn");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  /* an error upstream leaves appsink without EOS: wait a bounded time */
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstClockTime pts = GST_BUFFER_PTS (buf);

    if (gst_buffer_n_memory (buf) > 0
        && gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
            CUDA_MEMORY_TYPE))
      r->cuda_buffers++;
    g_ptr_array_add (r->frames, frame_samples (sample));
    g_array_append_val (r->pts, pts);
    if (r->frames->len == 1 && cuda) {
      r->denoise_context = cuda_elements_pad_context (dn, "src");
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
  if (ok && !gst_app_sink_is_eos (GST_APP_SINK (sink))) {
    g_printerr ("no EOS after %u frames: the pipeline stalled\n",
        r->frames->len);
    ok = FALSE;
  }
  if (ok && r->frames->len != 12) {
    g_printerr ("%u frames out of 12 in\n", r->frames->len);
    ok = FALSE;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (dn);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return ok;
}

int
main (int argc, char **argv)
{
  static const Case cases[] = {
    {"I420", 352, 288, "ball", 2, "6", TRUE},
    {"I420", 250, 138, "snow", 2, "-1", TRUE},
    {"NV12", 320, 240, "ball", 4, "-1", TRUE},
    {"NV12", 161, 91, "snow", 1, "10", TRUE},
    {"P010_10LE", 320, 180, "ball", 2, "6", TRUE},
    {"I420_10LE", 320, 240, "snow", 3, "-1", TRUE},
    {"Y444", 176, 144, "ball", 2, "4", TRUE},
    {"GRAY16_LE", 160, 120, "snow", 2, "8", TRUE},
    {"GRAY8", 160, 120, "ball", 2, "6", FALSE},
    {"BGRA", 160, 120, "snow", 2, "-1", FALSE},
    {"NV21", 160, 120, "ball", 2, "6", FALSE},
    {"YUY2", 161, 91, "snow", 2, "6", FALSE},
    {"UYVY", 160, 120, "ball", 2, "-1", FALSE},
    {"BGRx", 160, 120, "snow", 2, "6", FALSE},
    {"RGBA", 161, 91, "ball", 4, "6", FALSE},
    {"P016_LE", 160, 120, "snow", 2, "6", FALSE},
  };
  guint failures = 0, compared = 0;

  gst_init (&argc, &argv);
  if (!cuda_elements_usable ("mvdenoise")) {
    g_print ("no cudaupload, no GPU or no CUDA memory in mvdenoise: "
        "skipped\n");
    return 77;
  }

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    Case kc = cases[c];
    const Case *k = &kc;
    Run ref, dev, host;

    if (kc.cuda_memory && !cuda_upload_takes (kc.format)) {
      g_print ("%s: cudaupload does not take it here: system memory, "
          "backend=cuda\n", kc.format);
      kc.cuda_memory = FALSE;
    }

    if (!run_pipeline (k, FALSE, "cpu", &ref))
      return 1;
    if (!k->cuda_memory) {
      /* system memory: the CUDA backend against the CPU's */
      if (!run_pipeline (k, FALSE, "cuda", &dev)) {
        g_printerr ("%s %ux%u: backend=cuda failed\n", k->format, k->w,
            k->h);
        return 1;
      }
    } else if (!run_pipeline (k, TRUE, "cuda", &dev)
        || !run_pipeline (k, TRUE, "cpu", &host)) {
      g_printerr ("%s %ux%u: a CUDA-memory pipeline failed\n", k->format,
          k->w, k->h);
      return 1;
    }
    for (guint m = 0; m < (k->cuda_memory ? 2u : 1u); m++) {
      Run *r = m ? &host : &dev;
      const gchar *what = !k->cuda_memory ? "cuda on system memory"
          : m ? "cpu on CUDA memory" : "cuda on CUDA memory";
      const guint want_cuda = k->cuda_memory ? r->frames->len : 0;
      guint diff = 0;

      if (r->frames->len != ref.frames->len || ref.frames->len == 0) {
        g_printerr ("%s %ux%u, %s: %u frames, reference %u\n", k->format,
            k->w, k->h, what, r->frames->len, ref.frames->len);
        failures++;
        continue;
      }
      for (guint i = 0; i < ref.frames->len; i++)
        if (g_array_index (r->pts, GstClockTime, i)
            != g_array_index (ref.pts, GstClockTime, i)
            || !g_bytes_equal (g_ptr_array_index (r->frames, i),
                g_ptr_array_index (ref.frames, i)))
          diff++;
      if (r->cuda_buffers != want_cuda) {
        g_printerr ("%s %ux%u, %s: %u of %u frames left in CUDA memory\n",
            k->format, k->w, k->h, what, r->cuda_buffers, r->frames->len);
        failures++;
      }
      if (k->cuda_memory && (!r->denoise_context
              || r->denoise_context != r->upload_context)) {
        g_printerr ("%s %ux%u, %s: mvdenoise's CUDA context %p is not "
            "cudaupload's %p\n", k->format, k->w, k->h, what,
            r->denoise_context, r->upload_context);
        failures++;
      }
      g_print ("%-9s %ux%u %-4s radius %u sigma %-2s %-19s: %u frames, %u "
          "in CUDA memory, %u differ\n", k->format, k->w, k->h, k->pattern,
          k->radius, k->sigma, what, r->frames->len, r->cuda_buffers, diff);
      failures += diff;
      compared += r->frames->len;
    }
    run_clear (&ref);
    run_clear (&dev);
    if (k->cuda_memory)
      run_clear (&host);
  }
  g_print ("%u frames compared, %u failures\n", compared, failures);
  return failures ? 1 : 0;
}
