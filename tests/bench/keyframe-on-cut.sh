#!/bin/sh
# Key frames at scene cuts, end to end: the spliced clip of
# tests/bench/scene-clip.sh through gpumotionest keyframe-on-cut=true and
# x264enc with its own scene cut detection off and a key frame interval
# longer than the clip, so that every key frame after the first is one
# that gpumotionest forced.  The H.264 stream's key frames (ffprobe) are
# compared with the clip's known cuts: docs/encoder-hints.md.
#
#   tests/bench/keyframe-on-cut.sh [BUILD] [WORK] [EXTRA PROPERTIES...]
#
# BUILD: the build directory (default build); WORK: where the clip, the
# streams and the lists go (default a new temporary folder).  Extra
# arguments are gpumotionest properties (cut-threshold=30, method=...).
# For comparison it also encodes the clip with x264's own scene cut
# detection (scenecut=40, its default) and no hints.  Prints the key
# frames of each stream and the cuts hit, missed and the key frames added
# elsewhere; exits 1 unless gpumotionest's stream has its key frames
# exactly on the first frame and the cuts.
#
# X264ENC_OPTIONS (default speed-preset=veryfast) are x264enc properties
# for every stream.  Before GStreamer 1.26.1 GstVideoEncoder drops
# every forced key unit after one that reaches x264enc before its first
# output: with x264enc's default preset (a delay of more than 40 frames)
# and this clip's first cut at 40, X264ENC_OPTIONS="" reproduces it, and
# X264ENC_OPTIONS=tune=zerolatency avoids it (docs/encoder-hints.md,
# "Known problem").
#
# Needs x264enc (gstreamer1.0-plugins-ugly), h264parse and y4mdec
# (gstreamer1.0-plugins-bad), ffprobe, and what scene-clip.sh needs.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=${2:-$(mktemp -d)}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
mkdir -p "$work"

x264_options=${X264ENC_OPTIONS-speed-preset=veryfast}
export GST_PLUGIN_PATH_1_0="$build/gst"
export GST_REGISTRY_1_0="$work/registry.bin"

clip=$work/scenes.y4m
[ -f "$clip" ] && [ -f "$work/scenes.cuts" ] \
  || sh "$root/tests/bench/scene-clip.sh" "$clip"
cuts=$(cat "$work/scenes.cuts")
frames=$(ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=nb_read_frames -of csv=p=0 "$clip")

# encode NAME ELEMENTS X264-OPTIONS: the clip through ELEMENTS into
# NAME.h264, then the numbers (from 0, display order) of its key frames
# into NAME.keys (ffprobe prints an empty line after a frame with side
# data: not a frame).
encode () {
  name=$1
  elements=$2
  options=$3
  # shellcheck disable=SC2086
  gst-launch-1.0 -q filesrc location="$clip" ! y4mdec ! $elements \
      x264enc key-int-max=100000 $x264_options \
      option-string="$options" ! h264parse \
      ! video/x-h264,stream-format=byte-stream ! filesink location="$work/$name.h264" >"$work/$name.log" 2>&1 \
    || { cat "$work/$name.log" >&2; exit 1; }
  ffprobe -v error -select_streams v:0 -show_entries frame=key_frame \
      -of csv=p=0 "$work/$name.h264" \
    | awk -F, 'NF { if ($1 == 1) print n + 0; n++ }' >"$work/$name.keys"
  n=$(ffprobe -v error -count_frames -select_streams v:0 \
      -show_entries stream=nb_read_frames -of csv=p=0 "$work/$name.h264")
  [ "$n" -eq "$frames" ] \
    || { echo "$name: $n frames decoded, not $frames" >&2; exit 1; }
}

# report NAME: key frames, cuts hit and missed, key frames not on a cut.
report () {
  keys=$(cat "$work/$1.keys")
  hit="" missed="" extra=""
  for c in $cuts; do
    if echo "$keys" | grep -qx "$c"; then
      hit="$hit $c"
    else
      missed="$missed $c"
    fi
  done
  for k in $keys; do
    [ "$k" -eq 0 ] && continue
    echo "$cuts" | grep -qx "$k" || extra="$extra $k"
  done
  echo "$1: key frames" $keys
  echo "  cuts hit:${hit:- none}; missed:${missed:- none};" \
      "elsewhere:${extra:- none}"
  [ -z "$missed" ] && [ -z "$extra" ]
}

start=$(date +%s)
# shellcheck disable=SC2068
encode hints "gpumotionest backend=cpu keyframe-on-cut=true $* !" "scenecut=0"
t=$(($(date +%s) - start))
encode x264-scenecut "" "scenecut=40"
encode none "" "scenecut=0"

echo "clip: $clip, $frames frames, cuts at" $cuts
report none || true
report x264-scenecut || true
ok=0
report hints || ok=1
echo "gpumotionest and x264 together: ${t} s for $frames frames"
exit $ok
