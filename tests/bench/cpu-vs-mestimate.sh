#!/bin/sh
# Compares the CPU backend with FFmpeg's exhaustive mestimate on the same
# real-content 1080p clip: a photograph, enlarged, panned and with a little
# temporal noise (static test patterns flatter mestimate, which stops at once
# on blocks whose zero vector costs nothing).
#
#   tests/bench/cpu-vs-mestimate.sh BUILD_DIR [FRAMES]
#
# mestimate searches two references (previous and next) per output frame;
# speeds are given per one-reference search so the two compare directly.
set -eu
build=${1:?usage: $0 BUILD_DIR [FRAMES]}
frames=${2:-12}
photo=/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -f "$photo" ] || { echo "missing $photo (Debian package python-matplotlib-data)"; exit 1; }
ffmpeg -v error -loop 1 -i "$photo" -vf \
  "scale=2400:-1,crop=1920:1080:x='40+3*n':y='300+2*n',noise=alls=4:allf=t,format=yuv420p" \
  -frames:v "$frames" -f rawvideo "$tmp/clip.yuv"

now() { date +%s.%N; }
rate() { echo "$1 $2 $3" | awk '{ printf "%.2f", $1 / ($3 - $2) }'; }

t0=$(now)
ffmpeg -v error -f rawvideo -pix_fmt yuv420p -s 1920x1080 -i "$tmp/clip.yuv" \
  -vf mestimate=method=esa:mb_size=16:search_param=16 -f null - -threads 1
t1=$(now)
me_searches=$((2 * frames))
echo "mestimate esa ±16 16x16, 1 thread: $(rate $me_searches $t0 $t1) one-reference searches/s ($me_searches searches)"

for range in 16 32; do
  t0=$(now)
  GST_PLUGIN_PATH="$build/gst" gst-launch-1.0 -q filesrc location="$tmp/clip.yuv" ! \
    rawvideoparse width=1920 height=1080 format=i420 framerate=30/1 ! \
    gpumotionest backend=cpu search-range=$range ! fakesink
  t1=$(now)
  # the first frame has no reference and costs no search
  echo "gpumotionest cpu ±$range 16x16, all cores: $(rate $((frames - 1)) $t0 $t1) one-reference searches/s ($((frames - 1)) searches, end to end)"
done
t0=$(now)
GST_PLUGIN_PATH="$build/gst" gst-launch-1.0 -q filesrc location="$tmp/clip.yuv" ! \
  rawvideoparse width=1920 height=1080 format=i420 framerate=30/1 ! \
  gpumotionest backend=cpu search-range=16 partitions=all ! fakesink
t1=$(now)
echo "gpumotionest cpu ±16 all seven shapes, all cores: $(rate $((frames - 1)) $t0 $t1) one-reference searches/s"
nproc | awk '{ print "(" $1 " cores)" }'
