#!/bin/sh
# An H.264 Annex-B clip for the decoder benchmarks (decode-bench.sh,
# nvdec-streams.sh) and the scaling example's test.
#
#   make-h264-clip.sh OUT.h264 [SOURCE.mp4]
#
# Without SOURCE: FRAMES (default 120) frames of SIZE (default 1920x1080)
# at 30 frames/s from FFmpeg's moving test pattern (testsrc2, with fixed noise so
# that the search has texture), encoded by libx264 (preset veryfast, CRF
# 23, a keyframe every 60 frames).  With SOURCE, an MP4 that already holds
# H.264 (docs/quality.md names a real 1080p one, the phone clip
# VID_20191220_170832.mp4 of Debian's forensics-samples-files): its first
# FRAMES frames are copied as they are, not re-encoded.  Either way the
# result must stay under 8 MB; the script fails otherwise.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 OUT.h264 [SOURCE.mp4]" >&2
  exit 2
fi
out=$1
frames=${FRAMES:-120}
size=${SIZE:-1920x1080}
command -v ffmpeg >/dev/null 2>&1 || {
  echo "error: ffmpeg is missing (Debian: apt-get install ffmpeg)" >&2
  exit 1
}

if [ $# -eq 2 ]; then
  ffmpeg -v error -y -i "$2" -map 0:v:0 -frames:v "$frames" -c copy \
    -bsf:v h264_mp4toannexb -f h264 "$out"
else
  ffmpeg -v error -y -f lavfi \
    -i "testsrc2=size=$size:rate=30,noise=alls=8" \
    -frames:v "$frames" -pix_fmt yuv420p -c:v libx264 -preset veryfast \
    -crf 23 -g 60 -f h264 "$out"
fi

bytes=$(wc -c < "$out")
if [ "$bytes" -ge 8388608 ]; then
  echo "error: $out is $bytes bytes, over 8 MB: use fewer FRAMES" >&2
  exit 1
fi
echo "$out: $frames frames, $bytes bytes"
