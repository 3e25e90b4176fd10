#!/bin/bash
# The scaling recipe on the CPU (docs/scaling.md): examples/scaling/
# run-streams.sh with a few short clips in one process, its failures, how
# it shares streams among GPUs (printed, not run), and
# tests/bench/nvdec-streams.sh with a software decoder.
#
#   scaling.sh BUILD_ROOT SCRATCH_DIR
#
# Exit 77 (skipped) without ffmpeg, which makes the clips.
set -eu
build=$1
scratch=$2
here=$(cd "$(dirname "$0")" && pwd)
run=$here/../../examples/scaling/run-streams.sh
bench=$here/../bench
rm -rf "$scratch"
mkdir -p "$scratch"
cd "$scratch"

export GST_PLUGIN_PATH_1_0="$build/gst"
export GST_PLUGIN_PATH="$build/gst"
export GST_REGISTRY_1_0="$scratch/registry.bin"
command -v ffmpeg >/dev/null 2>&1 || { echo "ffmpeg missing: skipped"; exit 77; }
# h264parse is gstreamer1.0-plugins-bad's (.ci/setup.sh installs it)
gst-inspect-1.0 h264parse >/dev/null 2>&1 \
  || { echo "h264parse missing (gstreamer1.0-plugins-bad): skipped"; exit 77; }

fail () { echo "FAIL: $*" >&2; exit 1; }
# The report line of stream S: "S PROCESS FRAMES STATUS..."
report_line () { awk -v s="$2" '$1 == s' "$1"; }

# Three inputs: two raw H.264 streams and an MP4 with an audio track too
# (only the video is searched), 12, 15 and 18 frames.
SIZE=320x240 FRAMES=12 "$bench/make-h264-clip.sh" a.h264 > /dev/null
SIZE=176x144 FRAMES=15 "$bench/make-h264-clip.sh" b.h264 > /dev/null
ffmpeg -v error -y -f lavfi -i testsrc2=size=352x288:rate=25 \
  -f lavfi -i sine -t 0.72 -c:v libx264 -preset veryfast -c:a aac c.mp4
printf '# three clips\na.h264\n\n  b.h264\nc.mp4\n' > list.txt

# ---- all three in one CPU process -----------------------------------------------
props="search-range=8 partitions=16x16+8x8"
"$run" -g none -o out -p "$props" list.txt > report.txt \
  || { cat report.txt; fail "run-streams.sh failed"; }
cat report.txt
expect=(12 15 18)
inputs=(a.h264 b.h264 c.mp4)
for s in 0 1 2; do
  set -- $(report_line report.txt $s)
  [ "$2 $3 $4" = "0 ${expect[s]} ok" ] \
    || fail "stream $s: '$*', expected process 0, ${expect[s]} frames, ok"
  [ "$(wc -l < out/stream$s.jsonl)" -eq "${expect[s]}" ] \
    || fail "out/stream$s.jsonl has not ${expect[s]} lines"
  # the same vectors as the input alone in its own pipeline: streams
  # sharing a process do not mix
  gst-launch-1.0 -q filesrc location="${inputs[s]}" ! decodebin \
    caps="video/x-raw(ANY)" expose-all-streams=false ! videoconvert \
    ! gpumotionest backend=cpu $props ! mvexport location=ref$s.jsonl \
    ! fakesink > /dev/null
  cmp out/stream$s.jsonl ref$s.jsonl \
    || fail "stream $s: vectors differ from the input alone"
done
grep -q '^3 of 3 streams ok$' report.txt || fail "no '3 of 3 streams ok'"

# The decoder named (-d) instead of decodebin's choice: the same vectors.
printf 'a.h264\nb.h264\n' > raw.txt
"$run" -g none -o out-d -p "$props" -d "h264parse ! avdec_h264" raw.txt \
  > report.txt || { cat report.txt; fail "run-streams.sh -d failed"; }
for s in 0 1; do
  cmp out-d/stream$s.jsonl ref$s.jsonl || fail "-d: stream $s differs"
done
"$run" -n -g 0 -d "h264parse ! nvh264dec" raw.txt > dry.txt
grep -q 'location=a.h264 \\! h264parse \\! nvh264dec \\! gpumotionest name=me0 backend=cuda' dry.txt \
  || fail "-d on a GPU: $(cat dry.txt)"

# ---- failures -----------------------------------------------------------------------
# A file that is not there: that stream failed, the other one ran.
printf 'a.h264\nmissing.h264\n' > missing.txt
if "$run" -g none -o out-missing missing.txt > report.txt; then
  fail "exit 0 with a missing input"
fi
cat report.txt
set -- $(report_line report.txt 0)
[ "$3 $4" = "12 ok" ] || fail "stream 0 beside a missing file: '$*'"
report_line report.txt 1 | grep -q ' 0  failed: cannot read the file  missing.h264$' \
  || fail "the missing file is not reported"
grep -q '^1 of 2 streams ok$' report.txt || fail "no '1 of 2 streams ok'"

# A file that is not video: the process fails, and the error names it.
head -c 4096 /dev/zero | tr '\0' 'x' > junk.mp4
printf 'a.h264\njunk.mp4\n' > junk.txt
if "$run" -g none -o out-junk junk.txt > report.txt; then
  fail "exit 0 with an input that is not video"
fi
cat report.txt
report_line report.txt 1 | grep -Eq 'failed: ERROR: from element /GstPipeline:pipeline0/GstDecodeBin:dec1[/:]' \
  || fail "the error does not name stream 1's decoder"
report_line report.txt 0 | grep -q 'failed: stopped with process 0' \
  || fail "stream 0 is not reported stopped with its process"

# ---- streams among GPUs (printed, -n) -----------------------------------------------
# Two GPUs: streams 0 and 2 on the first, 1 on the second, each process
# pinned to its GPU and searching there.
"$run" -n -g 0,GPU-example -o o list.txt > dry.txt
cat dry.txt
[ "$(wc -l < dry.txt)" -eq 2 ] || fail "not one process per GPU"
line1=$(sed -n 1p dry.txt)
line2=$(sed -n 2p dry.txt)
case $line1 in "CUDA_VISIBLE_DEVICES=0 gst-launch-1.0 -e "*) ;; *) fail "process 0: $line1" ;; esac
case $line2 in "CUDA_VISIBLE_DEVICES=GPU-example gst-launch-1.0 -e "*) ;; *) fail "process 1: $line2" ;; esac
[ "$(echo "$line1" | grep -o 'location=o/stream[0-9]*' | tr '\n' ' ')" = \
  "location=o/stream0 location=o/stream2 " ] || fail "process 0 streams"
[ "$(echo "$line2" | grep -o 'location=o/stream[0-9]*' | tr '\n' ' ')" = \
  "location=o/stream1 " ] || fail "process 1 streams"
[ "$(grep -o 'backend=cuda' dry.txt | wc -l)" -eq 3 ] || fail "not backend=cuda"
[ ! -e o ] || fail "-n wrote output"
# The GPUs a scheduler gave (CUDA_VISIBLE_DEVICES) are used as they are.
CUDA_VISIBLE_DEVICES=3 "$run" -n list.txt > dry.txt
[ "$(cut -c 1-23 dry.txt)" = "CUDA_VISIBLE_DEVICES=3 " ] || fail "CUDA_VISIBLE_DEVICES=3: $(cat dry.txt)"
# Worker 1 of 2 takes input 1 only.
"$run" -n -g none -s 1/2 -o o list.txt > dry.txt
[ "$(grep -o 'location=o/stream[0-9]*' dry.txt)" = "location=o/stream1" ] \
  || fail "-s 1/2: $(cat dry.txt)"
# More streams than GPUs x K.
if "$run" -n -g 0 -k 2 list.txt 2> err.txt; then fail "3 streams ran at -k 2 on one GPU"; fi
grep -q 'need 2 GPUs; this host has 1' err.txt || fail "$(cat err.txt)"

# ---- the NVDEC benchmark's logic, with a software decoder ---------------------------
DECODER=avdec_h264 REPEAT=2 ROUNDS=1 "$bench/nvdec-streams.sh" a.h264 2 \
  "backend=cpu search-range=8" > bench.txt
cat bench.txt
grep -q '^clip a.h264: 12 frames x 2, 2 stream(s) in one process, 24 frames each$' bench.txt \
  || fail "nvdec-streams.sh: clip line"
grep -Eq '^decode-only +48 frames ' bench.txt || fail "nvdec-streams.sh: decode only"
grep -Eq '^decode\+search +48 frames ' bench.txt || fail "nvdec-streams.sh: decode + search"
grep -Eq '^added time +[-+][0-9]+\.[0-9] %$' bench.txt || fail "nvdec-streams.sh: added time"
if DECODER=nosuchdec "$bench/nvdec-streams.sh" a.h264 1 2> err.txt; then
  fail "nvdec-streams.sh ran without its decoder"
fi
grep -q "GStreamer has no element 'nosuchdec'" err.txt || fail "$(cat err.txt)"
echo "scaling: all checks passed"
