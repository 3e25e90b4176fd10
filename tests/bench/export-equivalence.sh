#!/bin/sh
# The element, not only the backend: one clip through gpumotionest on the
# CPU (one frame in flight) and on each other backend at several depths,
# every field written by mvexport (with the motion summary) and every
# element message the element posted (motion, scene cuts), one md5 per
# run.  Exits 1 when any run differs from the CPU's, 77 when the decoder
# or a backend asked for is missing.
#
#   tests/bench/export-equivalence.sh BUILD CLIP.h264 "PROPERTIES" \
#       [DECODER] [BACKEND:DEPTH ...]
#
# DECODER defaults to nvh264dec (avdec_h264 where there is no GPU);
# BACKEND:DEPTH defaults to cuda:1 cuda:4 cuda:0 (0: the default depth).
# PROPERTIES are gpumotionest's, the same for every run, e.g.
#   "search-range=16 partitions=all subpel=quarter metric=satd qp=26
#    mode-decision=true keyframe-on-cut=true roi=true motion-events=true"
set -eu
build=$(cd "$1" && pwd)
clip=$2
props=$3
decoder=${4:-nvh264dec}
[ $# -gt 4 ] && { shift 4; runs="$*"; } || runs="cuda:1 cuda:4 cuda:0"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export GST_PLUGIN_PATH_1_0="$build/gst"
export GST_REGISTRY_1_0="$work/registry.bin"
gst-inspect-1.0 "$decoder" >/dev/null 2>&1 \
  || { echo "no $decoder here"; exit 77; }

# run NAME BACKEND DEPTH: prints the md5 of the export and of the messages
run () {
  gst-launch-1.0 -m filesrc location="$clip" ! h264parse ! "$decoder" ! \
    gpumotionest backend="$2" in-flight="$3" $props ! \
    mvexport location="$work/$1.jsonl" summary=true ! fakesink \
    > "$work/$1.log" 2>&1 || { tail -n 20 "$work/$1.log"; return 1; }
  # the element's own messages, without the pipeline's object names
  grep -o 'gpumotionest[0-9]*.*: \(motion\|scene-cut\).*' "$work/$1.log" \
    | sed 's/^gpumotionest[0-9]*//' > "$work/$1.msg" || true
  e=$(md5sum < "$work/$1.jsonl" | cut -c1-32)
  m=$(md5sum < "$work/$1.msg" | cut -c1-32)
  printf '%-10s export %s (%s lines)  messages %s (%s)\n' "$1" "$e" \
    "$(wc -l < "$work/$1.jsonl")" "$m" "$(wc -l < "$work/$1.msg")"
  echo "$e $m" > "$work/$1.sum"
}

echo "clip $(basename "$clip"), $decoder, gpumotionest $props"
run cpu cpu 1
status=0
for r in $runs; do
  b=${r%%:*}
  d=${r#*:}
  if ! run "$b-$d" "$b" "$d"; then
    grep -q "could not be opened\|not available\|cannot be used" \
      "$work/$b-$d.log" && exit 77
    status=1
    continue
  fi
  cmp -s "$work/cpu.sum" "$work/$b-$d.sum" || { echo "  differs"; status=1; }
done
exit $status
