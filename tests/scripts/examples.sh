#!/bin/sh
# Runs one example program and checks what it prints.
#
#   examples.sh NAME BUILD_ROOT SCRATCH_DIR
#
# NAME: mvstats, mvstats-file, mvpsnr, mvpsnr-raw, mvsummary or mvquiver.  The
# synthetic clips and the photograph clips move by a known amount per
# frame, so every check compares against that motion.  Exit 77 (skipped)
# when a tool the check needs (ffmpeg, the photograph, the Python modules)
# is missing.
set -eu
name=$1
build=$2
scratch=$3
here=$(cd "$(dirname "$0")" && pwd)
examples=$here/../../examples
mkdir -p "$scratch"

export GST_PLUGIN_PATH_1_0="$build/gst"
export GST_PLUGIN_PATH="$build/gst"
export GST_REGISTRY_1_0="$scratch/registry-$name.bin"
export GI_TYPELIB_PATH="$build/gst/motionvectors${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
export LD_LIBRARY_PATH="$build/gst/motionvectors${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the Python overrides of GstMotionVectors, uninstalled
export PYTHONPATH="$here/../../gst/motionvectors/python${PYTHONPATH:+:$PYTHONPATH}"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
photo=/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg

fail() { echo "FAIL: $*" >&2; exit 1; }
need_ffmpeg() {
  command -v ffmpeg >/dev/null 2>&1 || { echo "ffmpeg missing: skipped"; exit 77; }
  [ -f "$photo" ] || { echo "$photo missing: skipped"; exit 77; }
}
# Field N of the line starting with PREFIX in FILE.
field() { awk -v p="$2" -v n="$3" 'index($0, p) == 1 { print $n }' "$1"; }

case $name in
mvstats)
  # Every frame's most common vector is the opposite of the motion; a frame
  # size that is not a multiple of 16 and the 8x8 grid too.
  "$build/examples/mvstats" --frames 12 --motion 3,-2 --expect=-3,2 \
    --backend cpu > "$scratch/mvstats.txt"
  cat "$scratch/mvstats.txt"
  "$build/examples/mvstats" --frames 6 --width 333 --height 201 \
    --partition 8x8 --motion=-5,4 --expect 5,-4 --backend cpu
  # and a wrong expectation must fail
  if "$build/examples/mvstats" --frames 4 --motion 3,-2 --expect 3,-2 \
      --backend cpu > /dev/null 2>&1; then
    fail "mvstats accepted a wrong --expect"
  fi
  grep -q '^ *1 .*(-3,+2) px on 100.0 %' "$scratch/mvstats.txt" \
    || fail "frame 1 is not uniformly (-3,+2)"
  ;;
mvstats-file)
  # A file through decodebin: the photograph panned (window moving by
  # (+2,+1) px, so the content by (-2,-1) and the vectors are (+2,+1)).
  need_ffmpeg
  clip=$scratch/pan.mkv
  ffmpeg -v error -y -loop 1 -i "$photo" -vf \
    "format=gray,crop=320:240:x='40+2*n':y='60+n':exact=1,format=yuv420p" \
    -frames:v 10 -c:v ffv1 "$clip"
  "$build/examples/mvstats" --backend cpu --expect 2,1 "$clip"
  ;;
mvpsnr)
  # On a shifted texture the estimated vectors predict the frame far
  # better than zero vectors do.
  "$build/examples/mvpsnr" --compare --frames 10 --backend cpu \
    > "$scratch/mvpsnr.txt"
  cat "$scratch/mvpsnr.txt"
  mc=$(field "$scratch/mvpsnr.txt" "PSNR over 9 frames, 16x16 vectors" 7)
  zero=$(field "$scratch/mvpsnr.txt" "PSNR over 9 frames, zero vectors" 7)
  [ -n "$mc" ] && [ -n "$zero" ] || fail "no summary lines"
  awk -v a="$mc" -v b="$zero" 'BEGIN { exit !(a > b + 15.0) }' \
    || fail "motion-compensated $mc dB is not 15 dB above zero vectors $zero dB"
  # --zero-vectors alone prints the same zero-vector PSNR.
  alone=$("$build/examples/mvpsnr" --zero-vectors --quiet --frames 10 \
    --backend cpu | awk '/zero vectors/ { print $7 }')
  [ "$alone" = "$zero" ] || fail "--zero-vectors gave $alone dB, --compare $zero dB"
  # Away from the edges, where no new content enters, the prediction from
  # the true motion is exact (infinite PSNR), for any shape and frame size;
  # with a search range too small for the motion it is not.
  exact=$("$build/examples/mvpsnr" --quiet --frames 8 --width 333 \
    --height 201 --motion=-5,4 --partition 4x4 --margin 16 --backend cpu \
    | awk '/4x4 vectors/ { print $7 }')
  [ "$exact" = "inf" ] || fail "interior prediction not exact: $exact dB"
  short=$("$build/examples/mvpsnr" --quiet --frames 8 --width 333 \
    --height 201 --motion=-5,4 --partition 4x4 --margin 16 --range 4 \
    --backend cpu | awk '/4x4 vectors/ { print $7 }')
  awk -v a="$short" 'BEGIN { exit !(a + 0 > 0 && a + 0 < 40) }' \
    || fail "range 4 against a (-5,+4) motion gave $short dB"
  ;;
mvpsnr-raw)
  # Raw I420 of the photograph, enlarged and panned (window moving by
  # (+3,+2) px per frame).
  need_ffmpeg
  clip=$scratch/pan-zoom-384x288.i420
  ffmpeg -v error -y -loop 1 -i "$photo" -vf \
    "scale=640:-1,crop=384:288:x='60+3*n':y='80+2*n':exact=1,format=yuv420p" \
    -frames:v 12 -f rawvideo "$clip"
  "$build/examples/mvpsnr" --raw --width 384 --height 288 --compare \
    --backend cpu "$clip" > "$scratch/mvpsnr-raw.txt"
  cat "$scratch/mvpsnr-raw.txt"
  mc=$(field "$scratch/mvpsnr-raw.txt" "PSNR over 11 frames, 16x16 vectors" 7)
  zero=$(field "$scratch/mvpsnr-raw.txt" "PSNR over 11 frames, zero vectors" 7)
  awk -v a="$mc" -v b="$zero" 'BEGIN { exit !(a > b + 10.0) }' \
    || fail "motion-compensated $mc dB is not 10 dB above zero vectors $zero dB"
  ;;
mvsummary)
  # The demo's summary on a short pan of the photograph (window moving by
  # (+3,+2) px per frame): the dominant vector, and a wrong one refused.
  need_ffmpeg
  "$py" -c "import gi, numpy" 2>/dev/null \
    || { echo "python3 gi/numpy missing: skipped"; exit 77; }
  clip=$scratch/pan-320x240.i420
  ffmpeg -v error -y -loop 1 -i "$photo" -vf \
    "scale=640:-1,crop=320:240:x='20+3*n':y='100+2*n':exact=1,format=yuv420p" \
    -frames:v 8 -f rawvideo "$clip"
  "$py" "$examples/mvsummary.py" "$clip" --width 320 --height 240 \
    --backend cpu --expect 3,2 > "$scratch/mvsummary.txt"
  cat "$scratch/mvsummary.txt"
  grep -q '^frame    7: 20x15 blocks, mean |mv|  3.61 px, most common (+3,+2) px on 100.0% of blocks' \
    "$scratch/mvsummary.txt" || fail "frame 7 is not uniformly (+3,+2)"
  if "$py" "$examples/mvsummary.py" "$clip" --width 320 --height 240 \
      --backend cpu --quiet --expect 2,3 > /dev/null 2>&1; then
    fail "mvsummary accepted a wrong --expect"
  fi
  ;;
mvquiver)
  "$py" -c "import gi, numpy, matplotlib" 2>/dev/null \
    || { echo "python3 gi/numpy/matplotlib missing: skipped"; exit 77; }
  png=$scratch/mvquiver.png
  rm -f "$png"
  "$py" "$examples/mvquiver.py" --backend cpu --output "$png" \
    --motion=-3,2 --expect=-3,2
  # an odd frame size (rows of the I420 planes padded) and the 8x8 grid
  "$py" "$examples/mvquiver.py" --backend cpu --output "$scratch/mvquiver-8x8.png" \
    --partition 8x8 --width 333 --height 201 --motion 2,1 --frame 4 \
    --expect 2,1
  # a PNG signature and a plausible size
  head -c 8 "$png" | od -An -tx1 | tr -d ' \n' | grep -q '^89504e470d0a1a0a$' \
    || fail "$png is not a PNG"
  [ "$(wc -c < "$png")" -gt 20000 ] || fail "$png is suspiciously small"
  ;;
*)
  echo "unknown example check '$name'" >&2
  exit 2
  ;;
esac
echo "PASS: $name"
