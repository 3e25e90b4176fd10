#!/bin/sh
# Many gpumotionest instances in one pipeline, through the CUDA backend and
# through the CPU backend: every instance's export must be the same bytes.
#
#   instances-equivalence.sh BUILD CLIP.h264 N "PROPS" [DECODER]
#
# One decoder feeds N branches through a tee; branch i crops its own
# window of the frame (16 i pixels off the left), so that the instances
# search different pictures of one size, as streams of a camera fleet do;
# with cuda-launch=shared among PROPS the CUDA backend searches them in
# shared launches (kernels/cuda/me_cuda_batch.h; the CPU backend ignores
# the property).  Prints one md5 per branch and backend, and exits 1 where
# CPU and CUDA differ.
set -eu
build=$(cd "$1" && pwd)
clip=$2
n=$3
props=$4
decoder=${5:-nvh264dec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export GST_PLUGIN_PATH_1_0="$build/gst"
export GST_REGISTRY_1_0="$work/registry.bin"
gst-inspect-1.0 "$decoder" >/dev/null 2>&1 \
  || { echo "no $decoder here"; exit 77; }

run () {
  branches=""
  i=0
  while [ "$i" -lt "$n" ]; do
    branches="$branches t. ! queue ! videocrop left=$((16 * i)) \
      right=$((16 * (n - 1 - i))) ! gpumotionest backend=$1 $props ! \
      mvexport location=$work/$1-$i.jsonl ! fakesink"
    i=$((i + 1))
  done
  # shellcheck disable=SC2086
  gst-launch-1.0 filesrc location="$clip" ! h264parse ! "$decoder" ! \
    video/x-raw ! tee name=t $branches > "$work/$1.log" 2>&1 \
    || { tail -n 20 "$work/$1.log"; return 1; }
}

echo "clip $(basename "$clip"), $n instances, gpumotionest $props"
run cpu
run cuda
status=0
i=0
while [ "$i" -lt "$n" ]; do
  c=$(md5sum < "$work/cpu-$i.jsonl" | cut -c1-32)
  g=$(md5sum < "$work/cuda-$i.jsonl" | cut -c1-32)
  lines=$(wc -l < "$work/cuda-$i.jsonl")
  if [ "$c" = "$g" ]; then same=same; else same=DIFFERS; status=1; fi
  echo "instance $i: cpu $c cuda $g ($lines lines) $same"
  i=$((i + 1))
done
exit $status
