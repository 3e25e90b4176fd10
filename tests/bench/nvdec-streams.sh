#!/bin/sh
# Many streams behind NVDEC in one process: what motion search adds to
# decoding N streams on one GPU.
#
#   nvdec-streams.sh CLIP.h264 N [PROPS]
#
# One gst-launch-1.0 process (one process per GPU is the model,
# docs/scaling.md) holds N branches
#   filesrc ! h264parse ! DECODER ! CAPS ! [gpumotionest PROPS !] fakesink
# all reading the same clip, played REPEAT times in a row.  Each round runs
# decode only, then decode + search, and prints total frames, seconds
# (gst-launch-1.0's "Execution ended after": from PLAYING to EOS, so the
# start of the process and the preroll do not count), frames/s and the
# time search added in %.
#
# PROPS      gpumotionest's properties (default "backend=cuda search-range=16
#            partitions=16x16": no silent fall back to the CPU)
# DECODER    the decoder (default nvh264dec); avdec_h264 checks the script
#            on a machine without a GPU, with PROPS "backend=cpu ..."
# CAPS       between decoder and search (default
#            video/x-raw(memory:CUDAMemory) behind nv* decoders, else
#            video/x-raw)
# REPEAT     plays of the clip per stream (default: enough for 2400 frames
#            in all, at least 2)
# ROUNDS     pairs of runs (default 2)
#
# Where nvidia-smi answers, each run also prints the most GPU memory in
# use while it ran (sampled every 0.5 s), and the amount before it started.
set -eu
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 CLIP.h264 N [PROPS]" >&2
  exit 2
fi
clip=$1
n=$2
props=${3:-backend=cuda search-range=16 partitions=16x16}
decoder=${DECODER:-nvh264dec}
rounds=${ROUNDS:-2}
case $decoder in
  nv*) caps=${CAPS:-video/x-raw(memory:CUDAMemory)} ;;
  *) caps=${CAPS:-video/x-raw} ;;
esac
case $n in
  '' | *[!0-9]* | 0) echo "error: N must be a positive number, not '$n'" >&2; exit 2 ;;
esac
[ -r "$clip" ] || { echo "error: cannot read $clip" >&2; exit 1; }

if ! gst-inspect-1.0 "$decoder" >/dev/null 2>&1; then
  echo "error: GStreamer has no element '$decoder'." >&2
  case $decoder in
    nv*)
      echo "GStreamer's nvcodec plugin (gstreamer1.0-plugins-bad) registers" \
        "it only where it finds an NVIDIA driver and a GPU with NVDEC when" \
        "the registry is built: check nvidia-smi and" \
        "'gst-inspect-1.0 nvcodec'.  DECODER=avdec_h264 runs this script" \
        "on the CPU." >&2 ;;
  esac
  exit 1
fi
if ! gst-inspect-1.0 gpumotionest >/dev/null 2>&1; then
  echo "error: gpumotionest not found: set GST_PLUGIN_PATH to the build's" \
    "gst/ directory" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Frames of the clip (access units after parsing).
frames_in () {
  gst-launch-1.0 filesrc location="$1" ! h264parse ! \
    video/x-h264,alignment=au ! fakesink silent=false -v 2>/dev/null \
    | grep -c "chain" || true
}
clip_frames=$(frames_in "$clip")
[ "$clip_frames" -gt 0 ] || { echo "error: no H.264 frames in $clip" >&2; exit 1; }
repeat=${REPEAT:-$(( (2400 + n * clip_frames - 1) / (n * clip_frames) ))}
[ "$repeat" -ge 2 ] || repeat=2

i=0
while [ "$i" -lt "$repeat" ]; do cat "$clip"; i=$((i + 1)); done > "$work/long.h264"
per_stream=$((clip_frames * repeat))
total=$((per_stream * n))

# The GPU the process runs on (the first of CUDA_VISIBLE_DEVICES), when
# nvidia-smi can read its memory.
smi_gpu=${CUDA_VISIBLE_DEVICES:-0}
smi_gpu=${smi_gpu%%,*}
gpu_mem () {
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits \
    -i "$smi_gpu" 2>/dev/null
}
have_smi=no
command -v nvidia-smi >/dev/null 2>&1 && gpu_mem >/dev/null && have_smi=yes

# run LABEL SEARCH: one process of N branches, with gpumotionest when
# SEARCH is yes; sets $secs.
run () {
  label=$1
  search=$2
  set --
  s=0
  while [ "$s" -lt "$n" ]; do
    set -- "$@" filesrc location="$work/long.h264" ! h264parse ! "$decoder" \
      ! "$caps"
    [ "$search" = yes ] && set -- "$@" ! gpumotionest $props
    set -- "$@" ! fakesink sync=false
    s=$((s + 1))
  done
  mem=""
  if [ "$have_smi" = yes ]; then
    before=$(gpu_mem)
    ( while :; do gpu_mem; sleep 0.5; done ) > "$work/mem" &
    sampler=$!
  fi
  rc=0
  gst-launch-1.0 "$@" > "$work/log" 2>&1 || rc=$?
  if [ "$have_smi" = yes ]; then
    kill "$sampler"
    wait "$sampler" 2>/dev/null || true
    mem="  GPU memory: $(sort -n "$work/mem" | tail -n 1) MiB at most, $before MiB before"
  fi
  if [ "$rc" -ne 0 ]; then
    echo "error: the $label run failed; the end of its output:" >&2
    tail -n 20 "$work/log" >&2
    exit 1
  fi
  ended=$(sed -n 's/^Execution ended after \([0-9:.]*\).*/\1/p' "$work/log")
  [ -n "$ended" ] || { echo "error: no end time in the output" >&2; tail -n 20 "$work/log" >&2; exit 1; }
  secs=$(echo "$ended" | awk -F: '{ printf "%.3f", $1 * 3600 + $2 * 60 + $3 }')
  criticals=$(grep -c "CRITICAL" "$work/log" || true)
  echo "$label $secs $criticals" | awk -v n="$total" -v mem="$mem" '{
    printf "%-16s %8d frames %8.3f s %9.1f frames/s%s%s\n", $1, n, $2, n / $2,
      ($3 > 0 ? sprintf ("  (%d CRITICAL messages)", $3) : ""), mem }'
}

echo "clip $(basename "$clip"): $clip_frames frames x $repeat, $n stream(s) in one process, $per_stream frames each"
echo "$decoder ! $caps; gpumotionest $props"
r=0
while [ "$r" -lt "$rounds" ]; do
  run decode-only no
  t_decode=$secs
  run decode+search yes
  echo "$t_decode $secs" | awk '{ printf "added time       %+.1f %%\n", ($2 - $1) / $1 * 100 }'
  r=$((r + 1))
done
