#!/bin/sh
# Frame-rate conversion end to end: frames/s out of
#
#   filesrc ! h264parse ! DECODER ! CAPS ! gpumotionest references=-1,+1
#       summary=true PROPS ! mvinterpolate MIPROPS ! OUTCAPS,framerate=RATE
#       ! fakesink
#
# against the same pipeline without mvinterpolate (decode + search),
# without either (decode alone), and with a queue before mvinterpolate
# (interpolation on a thread of its own, beside decoding and search), each
# run ROUNDS times; the clip is played
# REPEAT times in a row (concatenated Annex-B, as h264parse reads it).
#
#   interp-bench.sh CLIP.h264 [RATE]
#
# RATE       the output rate (default 60/1; the clip's own rate is its input)
# DECODER    default nvh264dec; avdec_h264 (with PROPS/MIPROPS backend=cpu)
#            measures the CPU path
# CAPS       after the decoder (default video/x-raw(memory:CUDAMemory) behind
#            nv* decoders, else video/x-raw,format=I420)
# PROPS      gpumotionest's (default "backend=cuda search-range=16")
# MIPROPS    mvinterpolate's (default "backend=cuda")
# REPEAT     plays of the clip (default 10), ROUNDS runs of each (default 2)
#
# Each line: what ran, input frames, output frames, seconds (gst-launch-1.0's
# "Execution ended after": PLAYING to EOS) and output frames/s.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 CLIP.h264 [RATE]" >&2
  exit 2
fi
clip=$1
rate=${2:-60/1}
decoder=${DECODER:-nvh264dec}
props=${PROPS:-backend=cuda search-range=16}
miprops=${MIPROPS:-backend=cuda}
repeat=${REPEAT:-10}
rounds=${ROUNDS:-2}
case $decoder in
  nv*) caps=${CAPS:-video/x-raw(memory:CUDAMemory)} ;;
  *) caps=${CAPS:-video/x-raw,format=I420} ;;
esac
outcaps=$(echo "$caps" | sed 's/,format=[A-Za-z0-9_]*//')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
long=$tmp/clip.h264
i=0
while [ $i -lt "$repeat" ]; do
  cat "$clip" >>"$long"
  i=$((i + 1))
done

# Buffers out of a pipeline, counted in a run of their own (printing each
# would slow the timed runs).
count() {
  gst-launch-1.0 filesrc location="$long" ! h264parse ! "$decoder" \
    ! "$caps" ! $1 ! fakesink silent=false -v 2>/dev/null \
    | grep -c "last-message = chain" || true
}

run() {
  what=$1
  tail=$2
  n=$3
  out=$(gst-launch-1.0 filesrc location="$long" ! h264parse ! "$decoder" \
    ! "$caps" ! $tail ! fakesink sync=false 2>&1)
  if echo "$out" | grep -q "ERROR"; then
    echo "$out" | grep -m3 "ERROR" >&2
    exit 1
  fi
  t=$(echo "$out" | sed -n 's/.*Execution ended after \([0-9:.]*\).*/\1/p' \
    | awk -F: '{ print $1 * 3600 + $2 * 60 + $3 }')
  fps=$(awk -v n="$n" -v t="$t" 'BEGIN { x = (t > 0) ? n / t : 0; printf "%.1f", x }')
  printf '%-22s in %6s  out %6s  %8.3f s  %9s frames/s out\n' "$what" \
    "$frames" "$n" "$t" "$fps"
}

search="gpumotionest $props references=-1,+1 summary=true"
interp="$search ! mvinterpolate $miprops ! $outcaps,framerate=$rate"
queued="$search ! queue max-size-buffers=8 max-size-time=0 max-size-bytes=0 \
! mvinterpolate $miprops ! $outcaps,framerate=$rate"
frames=$(count identity)
searched=$(count "$search")
made=$(count "$interp")
echo "clip $clip x $repeat, $decoder -> $caps, out $rate"
echo "gpumotionest $props references=-1,+1 summary=true; mvinterpolate $miprops"
r=0
while [ $r -lt "$rounds" ]; do
  run "decode" "identity" "$frames"
  run "decode+search" "$search" "$searched"
  run "decode+search+interp" "$interp" "$made"
  run "... queue ! interp" "$queued" "$made"
  r=$((r + 1))
done
