#!/bin/sh
# The main job: motion estimation on a moving clip made from a photograph.
#
#   examples/demo.sh [BUILD_DIR] [OUT_DIR]
#
# Pans across an enlarged photograph (3 px right and 2 px down per frame,
# with a little sensor noise), runs it through gpumotionest and prints what
# it found and how fast.  The true motion is known, so the summary can be
# checked at a glance: the dominant vector is (+3,+2) px.  Then, when the
# mvtools plugin is built, it times gpumotionest ! mvoverlay, makes a
# second clip that zooms into the photograph, draws one frame of each clip
# in each mvoverlay mode, stacks them into contact sheets, and writes both
# clips with arrows (WebM) and the pan's vectors (mvexport, JSON Lines) into
# OUT_DIR.
#
#   examples/demo.sh [BUILD_DIR] [OUT_DIR] denoise
#
# runs only the denoising demo (denoise_demo below, also part of the
# whole demo when the mvdenoise plugin is built): a clip under Gaussian
# noise of sigma 10 cleaned by mvdenoise and by one of FFmpeg's denoisers
# (DENOISE_PEER, default the best of them on the project's measurements),
# each measured against the clean clip, written side by side with the
# noisy input, and one frame of the three as a picture.  DENOISE_CLIP
# (any file ffmpeg reads) replaces the panned photograph; DENOISE_BACKEND
# as INTERP_BACKEND.
#
#   examples/demo.sh [BUILD_DIR] [OUT_DIR] interpolation
#
# runs only the frame-rate conversion demo (interpolation_demo below, also
# part of the whole demo when the mvinterpolate plugin is built): a 25/1
# clip made 60/1 by mvinterpolate on the CPU, side by side with the same
# clip made 60/1 by repeating frames, and both measured against the true
# 60/1 clip.  INTERP_BACKEND (default cpu) is the backend of gpumotionest
# and mvinterpolate there: set it to auto on a machine with a GPU.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-$here/../out}
which=${3:-all}
mkdir -p "$out"
photo=/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg
[ -f "$photo" ] || { echo "missing $photo (Debian package python-matplotlib-data)"; exit 1; }

export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GI_TYPELIB_PATH="$build/gst/motionvectors${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
export LD_LIBRARY_PATH="$build/gst/motionvectors${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$here/../gst/motionvectors/python${PYTHONPATH:+:$PYTHONPATH}"
# Debian's python3 carries the gi module; a python3 earlier on PATH may not.
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# ---- frame-rate conversion (mvinterpolate) ---------------------------------
# A pan of 300 px/s across the photograph at 960x540, made at 25/1 (12 px a
# frame) and, as the truth, at 60/1 (5 px a frame: every 60/1 frame lies on
# a whole pixel).  The 25/1 clip goes to 60/1 twice: through gpumotionest
# references=-1,+1 ! mvinterpolate, and through videorate (each frame
# repeated two or three times, the judder of a plain conversion).  Both
# are compared with the truth (PSNR, ffmpeg) over the frames up to the last
# input frame's time (the frames after it are copies of it in both), and
# written side by side, labelled, into interpolation-25-to-60.mp4 (or .webm
# where ffmpeg has no libx264).
interpolation_demo() {
  if ! gst-inspect-1.0 mvinterpolate >/dev/null 2>&1; then
    echo "mvinterpolate not found under $build/gst: no interpolation demo"
    return 0
  fi
  ib=${INTERP_BACKEND:-cpu}
  w=960 h=540
  in25=$out/pan25-${w}x${h}.i420
  truth=$out/pan60-truth-${w}x${h}.i420
  # 50 frames at 25/1 (2 s): x = 20 + 12 n; the truth, 118 frames at
  # 60/1 up to 1.95 s, the time of the last input frame: x = 20 + 5 k
  if [ ! -f "$in25" ]; then
    ffmpeg -v error -loop 1 -i "$photo" -vf \
      "scale=1600:-1,format=rgb24,crop=$w:$h:x='20+12*n':y=300:exact=1,format=yuv420p" \
      -frames:v 50 -f rawvideo "$in25"
  fi
  if [ ! -f "$truth" ]; then
    ffmpeg -v error -loop 1 -i "$photo" -vf \
      "scale=1600:-1,format=rgb24,crop=$w:$h:x='20+5*n':y=300:exact=1,format=yuv420p" \
      -frames:v 118 -f rawvideo "$truth"
  fi
  parse25="rawvideoparse width=$w height=$h format=i420 framerate=25/1"
  start=$(date +%s%N)
  gst-launch-1.0 -q filesrc location="$in25" ! $parse25 \
    ! gpumotionest backend=$ib references=-1,+1 summary=true search-range=16 \
    ! mvinterpolate backend=$ib ! video/x-raw,framerate=60/1 \
    ! filesink location="$out/pan60-mvinterpolate.i420"
  end=$(date +%s%N)
  gst-launch-1.0 -q filesrc location="$in25" ! $parse25 ! videorate \
    ! video/x-raw,framerate=60/1 ! filesink location="$out/pan60-repeat.i420"
  fb=$((w * h * 3 / 2))
  n_interp=$(($(stat -c %s "$out/pan60-mvinterpolate.i420") / fb))
  n_repeat=$(($(stat -c %s "$out/pan60-repeat.i420") / fb))
  awk -v ns=$((end - start)) -v n=$n_interp 'BEGIN { printf "mvinterpolate: 50 frames of 960x540 at 25/1 -> %d frames at 60/1 in %.2f s (search and interpolation, gst-launch start-up included)\n", n, ns / 1e9 }'
  raw="-f rawvideo -pix_fmt yuv420p -s ${w}x$h -r 60"
  for name in mvinterpolate repeat; do
    psnr=$(ffmpeg -hide_banner $raw -i "$out/pan60-$name.i420" $raw -i "$truth" \
      -lavfi "[0:v][1:v]psnr=shortest=1" -f null - 2>&1 \
      | sed -n 's/.*PSNR \(y:[0-9.inf]*\) .* \(average:[0-9.inf]*\).*/\1 \2/p')
    echo "  60/1 by $name against the true 60/1 clip (118 frames): PSNR $psnr dB"
  done
  labels=""
  if ffmpeg -v quiet -f lavfi -i color=c=black:s=64x32:d=0.04 \
      -vf "drawtext=text=x" -f null - 2>/dev/null; then
    t="x=12:y=12:fontsize=28:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=6"
    labels="[l]drawtext=text='mvinterpolate':$t[l];[r]drawtext=text='frame repeat (videorate)':$t[r];"
  fi
  if ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libx264; then
    enc="-c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p"
    sbs=$out/interpolation-25-to-60.mp4
  else
    enc="-c:v libvpx -b:v 8M -deadline realtime -cpu-used 8"
    sbs=$out/interpolation-25-to-60.webm
  fi
  ffmpeg -v error -y $raw -i "$out/pan60-mvinterpolate.i420" \
    $raw -i "$out/pan60-repeat.i420" -filter_complex \
    "[0:v]null[l];[1:v]null[r];${labels}[l][r]hstack=inputs=2:shortest=1" \
    $enc "$sbs"
  echo "  side by side (left mvinterpolate, right frame repeat, $n_repeat frames by videorate): $sbs"
}

# ---- denoising (mvdenoise) -------------------------------------------------
# The clean clip: the photograph panned 3 px right and 1 px down a frame at
# 640x360 (or DENOISE_CLIP's first frames at its own size), 4:2:0.  The noisy
# one: Gaussian noise of sigma 10 (8-bit levels) on Y, U and V, seeded, as
# docs/denoise-quality.md adds it.  Both denoisers run on the noisy clip;
# PSNR of each against the clean clip (ffmpeg), the three side by side in
# denoise-sigma10.mp4 (or .webm), and frame 12 of each, cropped, side by
# side in denoise-sigma10.png.
denoise_demo() {
  if ! gst-inspect-1.0 mvdenoise >/dev/null 2>&1; then
    echo "mvdenoise not found under $build/gst: no denoising demo"
    return 0
  fi
  db=${DENOISE_BACKEND:-cpu}
  peer=${DENOISE_PEER:-nlmeans=s=10:p=7:r=15}
  n=24
  clean=$out/denoise-clean.i420
  if [ -n "${DENOISE_CLIP:-}" ]; then
    size=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height \
      -of csv=p=0:s=x "$DENOISE_CLIP")
    w=${size%x*} h=${size#*x}
    w=$((w / 2 * 2)) h=$((h / 2 * 2))
    ffmpeg -v error -y -i "$DENOISE_CLIP" -vf "crop=$w:$h:0:0,format=yuv420p" \
      -frames:v $n -f rawvideo "$clean"
  else
    w=640 h=360
    ffmpeg -v error -y -loop 1 -i "$photo" -vf \
      "scale=1000:-1,format=rgb24,crop=$w:$h:x='20+3*n':y='150+n':exact=1,format=yuv420p" \
      -frames:v $n -f rawvideo "$clean"
  fi
  noisy=$out/denoise-noisy.i420
  "$py" - "$clean" "$noisy" "$w" "$h" <<'PYEOF'
import sys
import numpy as np
src, dst, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
clean = np.fromfile(src, dtype=np.uint8)
rng = np.random.default_rng(10)
noisy = np.clip(np.rint(clean + rng.normal(0.0, 10.0, clean.shape)), 0, 255)
noisy.astype(np.uint8).tofile(dst)
PYEOF
  parse="rawvideoparse width=$w height=$h format=i420 framerate=25/1"
  start=$(date +%s%N)
  gst-launch-1.0 -q filesrc location="$noisy" ! $parse \
    ! gpumotionest backend=$db references=-2,-1,+1,+2 summary=true \
      subpel=quarter search-range=16 \
    ! mvdenoise backend=$db sigma=10 ! filesink location="$out/denoise-mvdenoise.i420"
  end=$(date +%s%N)
  awk -v ns=$((end - start)) -v n=$n -v w=$w -v h=$h 'BEGIN { printf "mvdenoise: %d frames of %dx%d under noise of sigma 10 in %.2f s (search and denoising, gst-launch start-up included)\n", n, w, h, ns / 1e9 }'
  raw="-f rawvideo -pix_fmt yuv420p -s ${w}x$h -r 25"
  ffmpeg -v error -y $raw -i "$noisy" -vf "$peer" -threads 2 -f rawvideo \
    "$out/denoise-peer.i420"
  for name in noisy mvdenoise peer; do
    psnr=$(ffmpeg -hide_banner $raw -i "$out/denoise-$name.i420" $raw -i "$clean" \
      -lavfi "[0:v][1:v]psnr" -f null - 2>&1 \
      | sed -n 's/.*PSNR \(y:[0-9.inf]*\) .* \(average:[0-9.inf]*\).*/\1 \2/p')
    label=$name
    [ $name = peer ] && label="ffmpeg $peer"
    echo "  $label against the clean clip: PSNR $psnr dB"
  done
  labels=""
  if ffmpeg -v quiet -f lavfi -i color=c=black:s=64x32:d=0.04 \
      -vf "drawtext=text=x" -f null - 2>/dev/null; then
    t="x=10:y=10:fontsize=20:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=5"
    pl=$(echo "$peer" | sed 's/[=:].*//')
    labels="[a]drawtext=text='noisy (sigma 10)':$t[a];[b]drawtext=text='mvdenoise':$t[b];[c]drawtext=text='ffmpeg $pl':$t[c];"
  fi
  if ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libx264; then
    enc="-c:v libx264 -preset veryfast -crf 16 -pix_fmt yuv420p"
    sbs=$out/denoise-sigma10.mp4
  else
    enc="-c:v libvpx -b:v 8M -deadline realtime -cpu-used 8"
    sbs=$out/denoise-sigma10.webm
  fi
  three="[0:v]null[a];[1:v]null[b];[2:v]null[c];${labels}[a][b][c]hstack=inputs=3"
  ffmpeg -v error -y $raw -i "$noisy" $raw -i "$out/denoise-mvdenoise.i420" \
    $raw -i "$out/denoise-peer.i420" -filter_complex "$three" $enc "$sbs"
  cw=$((w / 2)) ch=$((h / 2))
  crop="crop=$cw:$ch:$((w / 4)):$((h / 4))"
  ffmpeg -v error -y $raw -i "$noisy" $raw -i "$out/denoise-mvdenoise.i420" \
    $raw -i "$out/denoise-peer.i420" -filter_complex \
    "[0:v]select=eq(n\,12),$crop[a];[1:v]select=eq(n\,12),$crop[b];[2:v]select=eq(n\,12),$crop[c];${labels}[a][b][c]hstack=inputs=3" \
    -frames:v 1 "$out/denoise-sigma10.png"
  echo "  side by side (noisy, mvdenoise, ffmpeg): $sbs and one frame: $out/denoise-sigma10.png"
}

if [ "$which" = interpolation ]; then
  interpolation_demo
  exit 0
fi
if [ "$which" = denoise ]; then
  denoise_demo
  exit 0
fi

clip=$out/pan-1280x720.i420
if [ ! -f "$clip" ]; then
  ffmpeg -v error -loop 1 -i "$photo" -vf \
    "scale=1600:-1,format=rgb24,crop=1280:720:x='20+3*n':y='200+2*n':exact=1,noise=alls=3:allf=t,format=yuv420p" \
    -frames:v 90 -f rawvideo "$clip"
fi

echo "clip: $clip (90 frames of 1280x720, a photograph panned by (+3,+2) px per frame)"
"$py" "$here/mvsummary.py" "$clip" --width 1280 --height 720 --range 16 \
  --quiet --expect 3,2

interpolation_demo
denoise_demo

# ---- pictures of the motion field (mvoverlay, mvexport) --------------------
# Skipped, with a note, when the mvtools plugin has not been built.
if ! gst-inspect-1.0 mvoverlay >/dev/null 2>&1; then
  echo "mvoverlay not found under $build/gst: no overlay pictures"
  exit 0
fi

frame_bytes=$((1280 * 720 * 3 / 2))
parse="rawvideoparse width=1280 height=720 format=i420 framerate=30/1"
me="gpumotionest search-range=16"
# Arrows are drawn 3x their length: the motion is only a few px per frame.
look="scale=3 legend=true opacity=0.6"

# Speed of search + drawing together, the clip read from disk, no display.
start=$(date +%s%N)
gst-launch-1.0 -q filesrc location="$clip" ! $parse ! $me \
  ! mvoverlay mode=vectors $look ! fakesink
end=$(date +%s%N)
awk -v ns=$((end - start)) 'BEGIN { printf "gpumotionest ! mvoverlay: 90 frames of 1280x720 in %.2f s: %.1f frames/s (gst-launch, start-up included)\n", ns / 1e9, 90e9 / ns }'

# A second clip, zoomed and panned: the zoom grows by 0.004 per frame
# (1.1 -> 1.46), narrowing the window over the photograph, while the window
# slides slowly right, so the content streams outwards from a point near
# the centre and the field takes every direction (all hues of the wheel).
zoom=$out/zoom-1280x720.i420
if [ ! -f "$zoom" ]; then
  ffmpeg -v error -loop 1 -framerate 30 -i "$photo" -vf \
    "scale=1600:-1,crop=1600:900:0:260,zoompan=z='1.1+0.004*on':x='(iw-iw/zoom)*(0.4+0.2*on/89)':y='(ih-ih/zoom)/2':d=1:s=1280x720:fps=30,format=yuv420p" \
    -frames:v 90 -f rawvideo "$zoom"
fi

# Labels on the panels when ffmpeg can draw text (libfreetype and a font).
label() {
  if ffmpeg -v quiet -f lavfi -i color=c=black:s=64x32:d=0.04 \
      -vf "drawtext=text=x" -f null - 2>/dev/null; then
    echo ",drawtext=text='$1':x=12:y=12:fontsize=36:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=8"
  fi
}

# sheet CLIP NAME FRAME LOOK: frame FRAME of CLIP (searched against the
# frame before it) drawn in each mode into overlay-NAME-MODE.png, stacked
# 2x2 (vectors, mvd / cost, flow) into NAME.png, with 960 px wide,
# 192-colour copies (NAME-960.png) small enough for docs/demo/.
sheet() {
  pair=$out/pair.i420
  dd if="$1" of="$pair" bs=$frame_bytes skip=$(($3 - 1)) count=2 status=none
  for mode in vectors mvd cost flow; do
    rm -f "$out"/overlay-$2-$mode-*.png
    gst-launch-1.0 -q filesrc location="$pair" ! $parse ! $me \
      ! mvoverlay mode=$mode $4 ! videoconvert ! pngenc \
      ! multifilesink location="$out/overlay-$2-$mode-%d.png"
    mv "$out/overlay-$2-$mode-1.png" "$out/overlay-$2-$mode.png"
    rm -f "$out/overlay-$2-$mode-0.png"
  done
  rm -f "$pair"
  ffmpeg -v error -y -i "$out/overlay-$2-vectors.png" \
    -i "$out/overlay-$2-mvd.png" -i "$out/overlay-$2-cost.png" \
    -i "$out/overlay-$2-flow.png" -filter_complex \
    "[0]null$(label vectors)[a];[1]null$(label mvd)[b];\
[2]null$(label cost)[c];[3]null$(label flow)[d];\
[a][b][c][d]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0" "$out/$2.png"
  ffmpeg -v error -y -i "$out/$2.png" -vf "scale=960:-1:flags=area,\
split[a][b];[a]palettegen=max_colors=192:stats_mode=full[p];\
[b][p]paletteuse=dither=bayer:bayer_scale=3" "$out/$2-960.png"
}

sheet "$clip" contact-sheet 30 "$look"
sheet "$zoom" contact-sheet-zoom 30 "scale=5 legend=true opacity=0.6 max-magnitude=3"

# The centres of the pan sheet at full resolution, where the arrows are easy
# to see.
ffmpeg -v error -y -i "$out/overlay-contact-sheet-vectors.png" \
  -i "$out/overlay-contact-sheet-mvd.png" \
  -i "$out/overlay-contact-sheet-cost.png" \
  -i "$out/overlay-contact-sheet-flow.png" -filter_complex \
  "[0]crop=480:270:400:120[a];[1]crop=480:270:400:120[b];\
[2]crop=480:270:400:120[c];[3]crop=480:270:400:120[d];\
[a][b][c][d]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0" \
  "$out/contact-sheet-centre.png"
ffmpeg -v error -y -i "$out/contact-sheet-centre.png" -vf "scale=960:-1:flags=area,\
split[a][b];[a]palettegen=max_colors=192:stats_mode=full[p];\
[b][p]paletteuse=dither=bayer:bayer_scale=3" "$out/contact-sheet-centre-960.png"

# Both clips with arrows (VP8 in WebM; the zoom one over its flow colours),
# and the pan's vectors as JSON Lines.
gst-launch-1.0 -q filesrc location="$clip" ! $parse ! $me \
  ! mvexport location="$out/vectors.jsonl" \
  ! mvoverlay mode=vectors $look ! videoconvert \
  ! vp8enc deadline=1 target-bitrate=4000000 ! webmmux \
  ! filesink location="$out/overlay-vectors.webm"
gst-launch-1.0 -q filesrc location="$zoom" ! $parse ! $me \
  ! mvoverlay mode=flow opacity=0.4 max-magnitude=3 \
  ! mvoverlay mode=vectors scale=5 max-magnitude=3 legend=true \
  ! videoconvert ! vp8enc deadline=1 target-bitrate=4000000 ! webmmux \
  ! filesink location="$out/overlay-zoom.webm"

echo "overlay frames: $out/overlay-contact-sheet{,-zoom}-{vectors,mvd,cost,flow}.png"
echo "contact sheets: $out/contact-sheet.png (pan), $out/contact-sheet-zoom.png (zoom),"
echo "                $out/contact-sheet-centre.png (pan, centres at full size);"
echo "                960 px copies: $out/contact-sheet{,-zoom,-centre}-960.png"
echo "overlay videos: $out/overlay-vectors.webm (pan), $out/overlay-zoom.webm (zoom)"
echo "vectors:        $out/vectors.jsonl ($(wc -l < "$out/vectors.jsonl") frames)"
