#!/bin/sh
# gpumotionest behind a GPU decoder: what motion search adds to decoding.
#
#   decode-bench.sh CLIP.h264 [REPEAT] [PROPS]
#
# CLIP is an H.264 Annex-B stream (ffmpeg -i in.mp4 -c copy -bsf:v
# h264_mp4toannexb -f h264 clip.h264); it is played REPEAT times in a row
# (default 20) so that start-up does not count.  Four pipelines, each timed
# from PLAYING to EOS, print frames/s:
#   decode only, CUDA memory      nvh264dec ! video/x-raw(memory:CUDAMemory) ! fakesink
#   decode + search, CUDA memory  ... ! gpumotionest PROPS ! fakesink
#   decode only, system memory    nvh264dec ! video/x-raw ! fakesink
#   decode + search, system memory
# PROPS defaults to "backend=cuda search-range=16 partitions=16x16".
set -eu
clip=$1
repeat=${2:-20}
props=${3:-backend=cuda search-range=16 partitions=16x16}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

i=0
while [ "$i" -lt "$repeat" ]; do cat "$clip"; i=$((i + 1)); done > "$work/long.h264"
frames=$(gst-launch-1.0 filesrc location="$work/long.h264" ! h264parse ! \
  video/x-h264,alignment=au ! fakesink silent=false -v 2>/dev/null | grep -c "chain" || true)

run () { # label, caps, element
  t0=$(date +%s.%N)
  gst-launch-1.0 -q filesrc location="$work/long.h264" ! h264parse ! nvh264dec ! \
    "$2" $3 ! fakesink sync=false > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }
  t1=$(date +%s.%N)
  echo "$1 $t0 $t1" | awk -v n="$frames" '{ printf "%-32s %6d frames %8.3f s %9.1f frames/s\n", $1, n, $3 - $2, n / ($3 - $2) }'
}

echo "clip $(basename "$clip") x $repeat; gpumotionest $props"
for pass in 1 2; do
  run decode-only,cuda-memory "video/x-raw(memory:CUDAMemory)" ""
  run decode+search,cuda-memory "video/x-raw(memory:CUDAMemory)" "! gpumotionest $props"
  run decode-only,system-memory "video/x-raw" ""
  run decode+search,system-memory "video/x-raw" "! gpumotionest $props"
done
