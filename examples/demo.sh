#!/bin/sh
# The main job: motion estimation on a moving clip made from a photograph.
#
#   examples/demo.sh [BUILD_DIR] [OUT_DIR]
#
# Pans across an enlarged photograph (3 px right and 2 px down per frame,
# with a little sensor noise), runs it through gpumotionest and prints what
# it found and how fast.  The true motion is known, so the summary can be
# checked at a glance: the dominant vector is (+3,+2) px.
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
