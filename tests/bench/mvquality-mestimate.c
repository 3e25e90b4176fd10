/* gpumotionest — run FFmpeg's mestimate filter over raw GRAY8 frames and
 * print the vectors it attaches, for mvquality.py.
 *
 *   mvquality-mestimate GRAYFILE WIDTH HEIGHT FILTER_OPTIONS
 *
 * GRAYFILE holds WIDTH x HEIGHT 8-bit luma frames back to back.  They go
 * through `buffer ! mestimate=FILTER_OPTIONS ! buffersink` (libavfilter),
 * e.g. FILTER_OPTIONS = "method=epzs:mb_size=16:search_param=16", with
 * pts = frame number.  mestimate outputs frame k once frame k + 1 has
 * arrived (it searches the previous and the next frame) and never outputs
 * the last frame, so the last frame is sent a second time at the end: the
 * search against the previous frame does not depend on the next one (each
 * direction has its own predictors), so every frame but the first gets its
 * vectors against the previous frame.  (Output 0 is searched against
 * itself: mestimate takes frame 0 as its own previous frame.)
 *
 * For every output frame it prints
 *
 *   F <pts> <count>
 *   <source> <w> <h> <src_x> <src_y> <dst_x> <dst_y>
 *   ... (count lines, one per AVMotionVector of AV_FRAME_DATA_MOTION_VECTORS)
 *
 * source -1: against the previous frame, +1: against the next.  mestimate
 * fills w, h, src, dst and source only (motion_x, motion_y and
 * motion_scale are left unset), so the vector is src - dst whole pixels:
 * the block at dst - (w/2, h/2) in the current frame matches the block at
 * src - (w/2, h/2) in the reference.
 *
 * At the end, on stderr: "mestimate: <outputs> output frames in <s> s",
 * the time spent inside libavfilter (sending frames, receiving them), the
 * file read and the printing not included.  mestimate has no threading.
 *
 * Not built by meson: mvquality.py compiles it with cc when pkg-config
 * finds libavfilter and libavutil.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/frame.h>
#include <libavutil/motion_vector.h>

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long n_out;
static double busy;

static int
drain (AVFilterContext *sink, AVFrame *out)
{
  for (;;) {
    double t0 = now ();
    int ret = av_buffersink_get_frame (sink, out);
    busy += now () - t0;
    if (ret == AVERROR (EAGAIN) || ret == AVERROR_EOF)
      return 0;
    if (ret < 0)
      return ret;
    const AVFrameSideData *sd =
        av_frame_get_side_data (out, AV_FRAME_DATA_MOTION_VECTORS);
    const AVMotionVector *mv = sd ? (const AVMotionVector *) sd->data : NULL;
    const size_t count = sd ? sd->size / sizeof (AVMotionVector) : 0;
    printf ("F %lld %zu\n", (long long) out->pts, count);
    for (size_t i = 0; i < count; i++)
      printf ("%d %d %d %d %d %d %d\n", mv[i].source, mv[i].w, mv[i].h,
          mv[i].src_x, mv[i].src_y, mv[i].dst_x, mv[i].dst_y);
    n_out++;
    av_frame_unref (out);
  }
}

int
main (int argc, char **argv)
{
  if (argc != 5) {
    fprintf (stderr, "usage: %s GRAYFILE WIDTH HEIGHT FILTER_OPTIONS\n",
        argv[0]);
    return 2;
  }
  const int w = atoi (argv[2]), h = atoi (argv[3]);
  const size_t plane = (size_t) w * h;
  FILE *f = fopen (argv[1], "rb");
  if (!f || w <= 0 || h <= 0) {
    fprintf (stderr, "%s: cannot read %s\n", argv[0], argv[1]);
    return 1;
  }
  fseek (f, 0, SEEK_END);
  const long size = ftell (f);
  fseek (f, 0, SEEK_SET);
  const long n = size / (long) plane;
  unsigned char *data = malloc (plane * (n ? n : 1));
  if (n < 2 || !data || fread (data, plane, n, f) != (size_t) n) {
    fprintf (stderr, "%s: fewer than two %dx%d frames in %s\n", argv[0], w,
        h, argv[1]);
    return 1;
  }
  fclose (f);

  AVFilterGraph *graph = avfilter_graph_alloc ();
  AVFilterContext *src = NULL, *me = NULL, *sink = NULL;
  char args[256];
  snprintf (args, sizeof args,
      "video_size=%dx%d:pix_fmt=gray:time_base=1/25:pixel_aspect=1/1", w, h);
  graph->nb_threads = 1;
  if (avfilter_graph_create_filter (&src, avfilter_get_by_name ("buffer"),
          "in", args, NULL, graph) < 0
      || avfilter_graph_create_filter (&me,
          avfilter_get_by_name ("mestimate"), "me", argv[4], NULL, graph) < 0
      || avfilter_graph_create_filter (&sink,
          avfilter_get_by_name ("buffersink"), "out", NULL, NULL, graph) < 0
      || avfilter_link (src, 0, me, 0) < 0
      || avfilter_link (me, 0, sink, 0) < 0
      || avfilter_graph_config (graph, NULL) < 0) {
    fprintf (stderr, "%s: cannot set up mestimate=%s\n", argv[0], argv[4]);
    return 1;
  }

  AVFrame *in = av_frame_alloc (), *out = av_frame_alloc ();
  int ret = 0;
  for (long i = 0; i <= n && ret >= 0; i++) {
    const unsigned char *p = data + plane * (i < n ? i : n - 1);
    in->width = w;
    in->height = h;
    in->format = AV_PIX_FMT_GRAY8;
    if (av_frame_get_buffer (in, 0) < 0) {
      ret = -1;
      break;
    }
    for (int y = 0; y < h; y++)
      memcpy (in->data[0] + (size_t) y * in->linesize[0], p + (size_t) y * w,
          w);
    in->pts = i;
    double t0 = now ();
    ret = av_buffersrc_add_frame (src, in);
    busy += now () - t0;
    av_frame_unref (in);
    if (ret >= 0)
      ret = drain (sink, out);
  }
  if (ret >= 0) {
    double t0 = now ();
    ret = av_buffersrc_add_frame (src, NULL);
    busy += now () - t0;
    if (ret >= 0)
      ret = drain (sink, out);
  }
  fprintf (stderr, "mestimate: %ld output frames in %.3f s\n", n_out, busy);

  av_frame_free (&in);
  av_frame_free (&out);
  avfilter_graph_free (&graph);
  free (data);
  if (ret < 0) {
    fprintf (stderr, "%s: filtering failed\n", argv[0]);
    return 1;
  }
  return fflush (stdout) == 0 ? 0 : 1;
}
