/* mvstabilize — frames that arrive, and leave, in CUDA memory.
 *
 * The same shaken picture (a photograph of value noise filmed by a camera
 * with hand-shake, rendered here) is stabilised through
 *   appsrc ! videoconvert ! gpumotionest backend=cpu summary=true
 *       subpel=quarter ! mvstabilize backend=cpu ! appsink   (reference)
 *   appsrc ! videoconvert ! cudaupload ! gpumotionest backend=cuda ...
 *       ! mvstabilize backend=B ! appsink
 * for B = cuda (frames warped on the GPU) and B = cpu (each frame
 * downloaded and uploaded by its map), for several formats and sizes; and,
 * for formats cudaupload does not take, system memory through
 * mvstabilize backend=cuda.  Every output frame must equal the
 * reference's, sample for sample, at the same time, and the frames must
 * really move (not passed through); every output buffer of a CUDA-memory
 * run must be CUDA memory, in cudaupload's context.
 *
 * Exits 77 (skip) without GStreamer's CUDA elements or a GPU.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include "cuda-elements.h"

#define CUDA_MEMORY_TYPE "gst.cuda.memory"
#define N_FRAMES 24
#define FPS 30

static double
lattice (int x, int y, unsigned seed)
{
  guint32 v = (guint32) x * 73856093u ^ (guint32) y * 19349663u
      ^ (seed + 1) * 83492791u;

  v ^= v >> 13;
  v *= 0x5bd1e995u;
  v ^= v >> 15;
  return (v & 0xffff) / 65535.0;
}

static double
noise (double x, double y, double s, unsigned seed)
{
  const double u = x / s, v = y / s;
  const int i = (int) floor (u), j = (int) floor (v);
  double fx = u - i, fy = v - j;

  fx = fx * fx * (3 - 2 * fx);
  fy = fy * fy * (3 - 2 * fy);
  return (lattice (i, j, seed) * (1 - fx) + lattice (i + 1, j, seed) * fx)
      * (1 - fy) + (lattice (i, j + 1, seed) * (1 - fx)
      + lattice (i + 1, j + 1, seed) * fx) * fy;
}

static double
photo (double x, double y, unsigned seed)
{
  return 30 + 195 * (0.5 * noise (x, y, 24, seed) + 0.3 * noise (x, y, 9,
          seed + 1) + 0.2 * noise (x, y, 4, seed + 2));
}

/* Frame t, I420: the camera panning 1 px a frame, shaken by up to 3 px and
 * 0.5 degrees (a fixed sequence); chroma a second photograph. */
static GstBuffer *
make_frame (guint t, guint w, guint h)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *buf;
  const double jx = 3 * sin (t * 2.1), jy = 3 * cos (t * 1.7);
  const double ja = 0.5 * sin (t * 2.9) * G_PI / 180;
  const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
  const double c = cos (ja), s = sin (ja);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, w, h);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  if (!gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE))
    g_error ("could not map a frame");
  for (guint p = 0; p < 3; p++) {
    const guint sub = p ? 2 : 1;
    guint8 *d = GST_VIDEO_FRAME_COMP_DATA (&f, p);
    const gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&f, p);

    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, p); y++)
      for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&f, p); x++) {
        const double px = x * sub, py = y * sub;
        const double wx = cx + t + jx + c * (px - cx) - s * (py - cy);
        const double wy = cy + jy + s * (px - cx) + c * (py - cy);
        const double v = photo (wx, wy, 1 + 10 * p);
        d[y * stride + x] = (guint8) (p ? 128 + (v - 128) / 3 : v);
      }
  }
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (t, GST_SECOND, FPS);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, FPS);
  return buf;
}

typedef struct {
  GPtrArray *frames;            /* GBytes: every output frame's samples */
  GArray *pts;
  guint cuda_buffers;
  guint moved;                  /* frames whose meta says corrected */
  GObject *stab_context;
  GObject *upload_context;
} Run;

static void
run_clear (Run * r)
{
  g_clear_pointer (&r->frames, g_ptr_array_unref);
  g_clear_pointer (&r->pts, g_array_unref);
  g_clear_object (&r->stab_context);
  g_clear_object (&r->upload_context);
}

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
  gboolean cuda_memory;         /* FALSE: system memory, backend=cuda */
} Case;

static gboolean
run_pipeline (const Case * k, gboolean cuda, const gchar * backend, Run * r)
{
  g_autoptr (GError) err = NULL;
  const gchar *feature = cuda ? "(memory:CUDAMemory)" : "";
  const gboolean search_cuda = cuda || !strcmp (backend, "cuda");
  gchar *desc = g_strdup_printf ("appsrc name=src format=time "
      "caps=video/x-raw,format=I420,width=%u,height=%u,framerate=%d/1 "
      "! videoconvert dither=none ! video/x-raw,format=%s %s "
      "! gpumotionest backend=%s summary=true subpel=quarter "
      "! mvstabilize name=st backend=%s lookahead=8 ! video/x-raw%s "
      "! appsink name=sink sync=false", k->w, k->h, FPS, k->format,
      cuda ? "! cudaupload name=up ! video/x-raw(memory:CUDAMemory)" : "",
      search_cuda ? "cuda" : "cpu", backend, feature);
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *sink, *st, *src, *up;
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
  st = gst_bin_get_by_name (GST_BIN (pipe), "st");
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (guint t = 0; t < N_FRAMES; t++)
    gst_app_src_push_buffer (GST_APP_SRC (src), make_frame (t, k->w, k->h));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstClockTime pts = GST_BUFFER_PTS (buf);
    GstCustomMeta *meta = gst_buffer_get_custom_meta (buf,
        "GstMvStabilizeMeta");
    gboolean corrected = FALSE;

    if (gst_buffer_n_memory (buf) > 0
        && gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
            CUDA_MEMORY_TYPE))
      r->cuda_buffers++;
    if (meta && gst_structure_get_boolean (gst_custom_meta_get_structure
            (meta), "corrected", &corrected) && corrected)
      r->moved++;
    g_ptr_array_add (r->frames, frame_samples (sample));
    g_array_append_val (r->pts, pts);
    if (r->frames->len == 1 && cuda) {
      r->stab_context = cuda_elements_pad_context (st, "src");
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
  if (ok && r->frames->len != N_FRAMES) {
    g_printerr ("%u frames out of %d in\n", r->frames->len, N_FRAMES);
    ok = FALSE;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (st);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return ok;
}

int
main (int argc, char **argv)
{
  static const Case cases[] = {
    {"I420", 352, 288, TRUE},
    {"NV12", 320, 240, TRUE},
    {"NV12", 161, 91, TRUE},
    {"P010_10LE", 320, 180, TRUE},
    {"I420_10LE", 250, 138, TRUE},
    {"Y444", 176, 144, TRUE},
    {"GRAY16_LE", 160, 120, TRUE},
    {"GRAY8", 160, 120, FALSE},
    {"BGRA", 160, 120, FALSE},
    {"YUY2", 161, 91, FALSE},
    {"NV21", 160, 120, FALSE},
    {"Y42B", 176, 144, FALSE},
  };
  guint failures = 0, compared = 0;

  gst_init (&argc, &argv);
  if (!cuda_elements_usable ("mvstabilize")) {
    g_print ("no cudaupload, no GPU or no CUDA memory in mvstabilize: "
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
    if (ref.moved < N_FRAMES / 2) {
      g_printerr ("%s %ux%u: only %u frames corrected: the warp is not "
          "exercised\n", k->format, k->w, k->h, ref.moved);
      failures++;
    }
    if (!k->cuda_memory) {
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
      if (k->cuda_memory && (!r->stab_context
              || r->stab_context != r->upload_context)) {
        g_printerr ("%s %ux%u, %s: mvstabilize's CUDA context %p is not "
            "cudaupload's %p\n", k->format, k->w, k->h, what,
            r->stab_context, r->upload_context);
        failures++;
      }
      g_print ("%-9s %ux%u %-21s: %u frames, %u corrected, %u in CUDA "
          "memory, %u differ\n", k->format, k->w, k->h, what,
          r->frames->len, r->moved, r->cuda_buffers, diff);
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
