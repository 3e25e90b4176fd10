#!/bin/sh
# The main job: motion estimation on a moving clip made from a photograph.
#
#   examples/demo.sh [BUILD_DIR] [OUT_DIR]
#
# Pans across an enlarged photograph (3 px right and 2 px down per frame,
# with a little sensor noise), runs it through gpumotionest and prints what
# it found and how fast.  The true motion is known, so the summary can be
# checked at a glance: the dominant vector is (+3,+2) px.  Then, when the
# mvtools plugin is built, it draws one frame in each mvoverlay mode, stacks
# them into a contact sheet, and writes the whole clip with arrows (WebM)
# and its vectors (mvexport, JSON Lines) into OUT_DIR.
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
# Arrows are drawn 3x their length: the pan is only 3.6 px per frame.
look="scale=3 legend=true opacity=0.6"

# Frames 29 and 30 of the clip; frame 30 (searched against 29) is drawn.
pair=$out/pair-29-30.i420
dd if="$clip" of="$pair" bs=$frame_bytes skip=29 count=2 status=none
for mode in vectors mvd cost flow; do
  rm -f "$out"/overlay-$mode-*.png
  gst-launch-1.0 -q filesrc location="$pair" ! $parse ! $me \
    ! mvoverlay mode=$mode $look ! videoconvert ! pngenc \
    ! multifilesink location="$out/overlay-$mode-%d.png"
  mv "$out/overlay-$mode-1.png" "$out/overlay-$mode.png"
  rm -f "$out/overlay-$mode-0.png"
done
rm -f "$pair"

# 2x2 contact sheet (vectors, mvd / cost, flow) of the full frames, and a
# smaller one of their centres where the arrows are easy to see.
ffmpeg -v error -y -i "$out/overlay-vectors.png" -i "$out/overlay-mvd.png" \
  -i "$out/overlay-cost.png" -i "$out/overlay-flow.png" -filter_complex \
  "xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0" "$out/contact-sheet.png"
ffmpeg -v error -y -i "$out/overlay-vectors.png" -i "$out/overlay-mvd.png" \
  -i "$out/overlay-cost.png" -i "$out/overlay-flow.png" -filter_complex \
  "[0]crop=480:270:400:120[a];[1]crop=480:270:400:120[b];\
[2]crop=480:270:400:120[c];[3]crop=480:270:400:120[d];\
[a][b][c][d]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0" \
  "$out/contact-sheet-centre.png"

# 960 px wide, 192-colour copies of both sheets, small enough for docs/demo/.
for sheet in contact-sheet contact-sheet-centre; do
  ffmpeg -v error -y -i "$out/$sheet.png" -vf "scale=960:-1:flags=area,\
split[a][b];[a]palettegen=max_colors=192:stats_mode=full[p];\
[b][p]paletteuse=dither=bayer:bayer_scale=3" "$out/$sheet-960.png"
done

# The whole clip with arrows (VP8 in WebM), and its vectors as JSON Lines.
gst-launch-1.0 -q filesrc location="$clip" ! $parse ! $me \
  ! mvexport location="$out/vectors.jsonl" \
  ! mvoverlay mode=vectors $look ! videoconvert \
  ! vp8enc deadline=1 target-bitrate=4000000 ! webmmux \
  ! filesink location="$out/overlay-vectors.webm"

echo "overlay frames: $out/overlay-{vectors,mvd,cost,flow}.png"
echo "contact sheet:  $out/contact-sheet.png (centres: $out/contact-sheet-centre.png;"
echo "                960 px copies: $out/contact-sheet-960.png, $out/contact-sheet-centre-960.png)"
echo "overlay video:  $out/overlay-vectors.webm"
echo "vectors:        $out/vectors.jsonl ($(wc -l < "$out/vectors.jsonl") frames)"
