#!/bin/sh
# Compares the CPU backend with FFmpeg's exhaustive block search (the
# mestimate filter, method=esa) on the same real-content 1080p clip: a
# photograph, enlarged, panned by a few pixels per frame and with a little
# temporal noise, so that every block has a true motion and no two frames
# are identical.
#
#   tests/bench/cpu-vs-mestimate.sh BUILD_DIR [FRAMES [MESTIMATE_FRAMES]]
#
# The backend searches FRAMES frames (default 30); mestimate, being slow,
# only the first MESTIMATE_FRAMES (default 3).
# BUILD_DIR holds the built tree (tests/checkasm/checkasm is the driver).
# mestimate searches two references (the previous and the next frame) for
# every output frame, so its speed is given per one-reference search, the
# unit the backend reports: searches/s = 2 x output frames / time (the
# output frames are counted, not assumed).  mestimate runs
# on one thread (it has no threading); the backend is timed on all cores and
# on one (checkasm --threads 1).
set -eu
build=${1:?usage: $0 BUILD_DIR [FRAMES [MESTIMATE_FRAMES]]}
frames=${2:-30}
me_frames=${3:-3}
checkasm="$build/tests/checkasm/checkasm"
photo=
for p in /usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg \
    /usr/lib/python3/dist-packages/matplotlib/mpl-data/sample_data/grace_hopper.jpg; do
  [ -f "$p" ] && { photo=$p; break; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$checkasm" ] || { echo "no $checkasm: build first"; exit 1; }
if [ -n "$photo" ]; then
  echo "content: $photo, scaled to 2400 wide, 1920x1080 window panned (3, 2) px/frame, temporal noise"
  ffmpeg -nostdin -v error -loop 1 -i "$photo" -vf \
    "scale=2400:-2,format=rgb24,crop=1920:1080:x='40+3*n':y='300+2*n':exact=1,noise=alls=4:allf=t,format=yuv420p" \
    -frames:v "$frames" -f rawvideo "$tmp/clip.yuv"
else
  echo "content: no photograph found; ffmpeg's mandelbrot source (generated texture), panned, temporal noise"
  ffmpeg -nostdin -v error -f lavfi -i "mandelbrot=s=2400x1600:rate=25:end_pts=0" -vf \
    "format=rgb24,crop=1920:1080:x='40+3*n':y='300+2*n':exact=1,noise=alls=4:allf=t,format=yuv420p" \
    -frames:v "$frames" -f rawvideo "$tmp/clip.yuv"
fi

now() { date +%s.%N; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo
for range in 16 32; do
  t0=$(now)
  ffmpeg -nostdin -v error -threads 1 -f rawvideo -pix_fmt yuv420p -s 1920x1080 \
    -i "$tmp/clip.yuv" -frames:v "$me_frames" \
    -vf "mestimate=method=esa:mb_size=16:search_param=$range" \
    -y -f framemd5 "$tmp/out.md5"
  t1=$(now)
  out=$(grep -c '^0,' "$tmp/out.md5")
  echo "$out $t0 $t1 $range" | awk '{ s = 2 * $1; t = $3 - $2;
    printf "ffmpeg mestimate esa R=%d 16x16, 1 thread: %d output frames, %d searches in %.3f s: %.3f searches/s\n", $4, $1, s, t, s / t }'
done
echo
echo "gpumotionest cpu backend, all cores:"
"$checkasm" --bench --input "$tmp/clip.yuv" --size 1920x1080 | grep -v '^checkasm: seed'
echo
echo "gpumotionest cpu backend, 1 thread:"
"$checkasm" --threads 1 --bench --input "$tmp/clip.yuv" --size 1920x1080 | grep -v '^checkasm: seed'
