/* gpumotionest — print the motion vectors a decoder exports, for
 * mvquality.py.
 *
 *   mvquality-avmvs INPUT
 *
 * Decodes the first video stream of INPUT with libavcodec and the flag
 * +export_mvs, and prints, for every decoded frame (in output order):
 *
 *   F <n> <pict_type> <count>
 *   <source> <w> <h> <src_x> <src_y> <dst_x> <dst_y> <motion_x> <motion_y> <motion_scale>
 *   ... (count lines, one per AVMotionVector of AV_FRAME_DATA_MOTION_VECTORS)
 *
 * pict_type is av_get_picture_type_char() (I, P, B).  A block is where
 * (dst_x - w/2, dst_y - h/2) says; its vector is motion / motion_scale
 * pixels, pointing from the block to its match in the reference
 * (src = dst + motion / motion_scale).  Blocks a decoder exports no vector
 * for (intra macroblocks) are simply absent.
 *
 * Not built by meson: mvquality.py compiles it with cc when the libav*
 * development packages are present (pkg-config libavformat libavcodec
 * libavutil).
 */
#include <stdio.h>
#include <stdlib.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/motion_vector.h>
#include <libavutil/frame.h>

static long n_frames;

static int
emit (AVCodecContext *dec, AVFrame *frame)
{
  int ret;

  while ((ret = avcodec_receive_frame (dec, frame)) >= 0) {
    const AVFrameSideData *sd =
        av_frame_get_side_data (frame, AV_FRAME_DATA_MOTION_VECTORS);
    const AVMotionVector *mv = sd ? (const AVMotionVector *) sd->data : NULL;
    const size_t count = sd ? sd->size / sizeof (AVMotionVector) : 0;

    printf ("F %ld %c %zu\n", n_frames++,
        av_get_picture_type_char (frame->pict_type), count);
    for (size_t i = 0; i < count; i++)
      printf ("%d %d %d %d %d %d %d %d %d %d\n", mv[i].source, mv[i].w,
          mv[i].h, mv[i].src_x, mv[i].src_y, mv[i].dst_x, mv[i].dst_y,
          mv[i].motion_x, mv[i].motion_y, mv[i].motion_scale);
    av_frame_unref (frame);
  }
  return ret == AVERROR (EAGAIN) || ret == AVERROR_EOF ? 0 : ret;
}

int
main (int argc, char **argv)
{
  AVFormatContext *fmt = NULL;
  AVCodecContext *dec = NULL;
  const AVCodec *codec = NULL;
  AVDictionary *opts = NULL;
  AVPacket *pkt = NULL;
  AVFrame *frame = NULL;
  int stream, ret;

  if (argc != 2) {
    fprintf (stderr, "usage: %s INPUT\n", argv[0]);
    return 2;
  }
  if (avformat_open_input (&fmt, argv[1], NULL, NULL) < 0
      || avformat_find_stream_info (fmt, NULL) < 0) {
    fprintf (stderr, "%s: cannot open %s\n", argv[0], argv[1]);
    return 1;
  }
  stream = av_find_best_stream (fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (stream < 0 || !(dec = avcodec_alloc_context3 (codec))
      || avcodec_parameters_to_context (dec,
          fmt->streams[stream]->codecpar) < 0) {
    fprintf (stderr, "%s: no decodable video stream in %s\n", argv[0],
        argv[1]);
    return 1;
  }
  dec->thread_count = 1;        /* frames in order, side data per frame */
  av_dict_set (&opts, "flags2", "+export_mvs", 0);
  if (avcodec_open2 (dec, codec, &opts) < 0) {
    fprintf (stderr, "%s: cannot open the decoder\n", argv[0]);
    return 1;
  }
  av_dict_free (&opts);

  pkt = av_packet_alloc ();
  frame = av_frame_alloc ();
  ret = 0;
  while (ret >= 0 && av_read_frame (fmt, pkt) >= 0) {
    if (pkt->stream_index == stream)
      ret = avcodec_send_packet (dec, pkt) < 0 ? -1 : emit (dec, frame);
    av_packet_unref (pkt);
  }
  if (ret >= 0) {
    avcodec_send_packet (dec, NULL);
    ret = emit (dec, frame);
  }

  av_frame_free (&frame);
  av_packet_free (&pkt);
  avcodec_free_context (&dec);
  avformat_close_input (&fmt);
  if (ret < 0) {
    fprintf (stderr, "%s: decoding failed\n", argv[0]);
    return 1;
  }
  return fflush (stdout) == 0 ? 0 : 1;
}
