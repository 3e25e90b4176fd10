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
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
out=${2:-$here/../out}
mkdir -p "$out"
photo=/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg
[ -f "$photo" ] || { echo "missing $photo (Debian package python-matplotlib-data)"; exit 1; }

clip=$out/pan-1280x720.i420
if [ ! -f "$clip" ]; then
  ffmpeg -v error -loop 1 -i "$photo" -vf \
    "scale=1600:-1,format=rgb24,crop=1280:720:x='20+3*n':y='200+2*n':exact=1,noise=alls=3:allf=t,format=yuv420p" \
    -frames:v 90 -f rawvideo "$clip"
fi

export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GI_TYPELIB_PATH="$build/gst/motionvectors${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
export LD_LIBRARY_PATH="$build/gst/motionvectors${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$here/../gst/motionvectors/python${PYTHONPATH:+:$PYTHONPATH}"
# Debian's python3 carries the gi module; a python3 earlier on PATH may not.
py=/usr/bin/python3
[ -x "$py" ] || py=python3

echo "clip: $clip (90 frames of 1280x720, a photograph panned by (+3,+2) px per frame)"
"$py" "$here/mvsummary.py" "$clip" --width 1280 --height 720 --range 16 \
  --quiet --expect 3,2

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
