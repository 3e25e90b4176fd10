#!/bin/bash
# examples/scaling/slurm-array.sh under a real Slurm, on the CPU
# (docs/scaling.md, "Tested on one node"): an array of 3 tasks shares 6
# clips, each clip written once and with the same bytes as run-streams.sh
# gives without Slurm; then scancel on 2 tasks reading endless inputs ends
# every stream with EOS and whole JSON Lines.  Needs a cluster that runs
# jobs on this machine's file system (the scratch directory must be shared
# with the node) and 2 free CPUs; not part of meson test, since CI machines
# have no Slurm.
#
#   slurm-local.sh BUILD_ROOT SCRATCH_DIR
#
# SCRATCH_DIR must be an absolute path.  Exit 77 (skipped) without sbatch,
# a cluster that answers, ffmpeg or h264parse.
set -eu
build=$(cd "$1" && pwd)
scratch=$2
case $scratch in /*) ;; *) echo "SCRATCH_DIR must be absolute" >&2; exit 2 ;; esac
repo=$(cd "$(dirname "$0")/../.." && pwd)
run=$repo/examples/scaling/run-streams.sh

command -v sbatch >/dev/null 2>&1 || { echo "sbatch missing: skipped"; exit 77; }
sinfo -h >/dev/null 2>&1 || { echo "no Slurm cluster answers: skipped"; exit 77; }
command -v ffmpeg >/dev/null 2>&1 || { echo "ffmpeg missing: skipped"; exit 77; }
export GST_PLUGIN_PATH_1_0="$build/gst"
export GST_PLUGIN_PATH="$build/gst"
export GST_REGISTRY_1_0="$scratch/registry.bin"
gst-inspect-1.0 h264parse >/dev/null 2>&1 \
  || { echo "h264parse missing (gstreamer1.0-plugins-bad): skipped"; exit 77; }
# the tasks get no GPU: the launcher must choose the CPU
unset CUDA_VISIBLE_DEVICES

rm -rf "$scratch"
mkdir -p "$scratch"
fail () { echo "FAIL: $*" >&2; exit 1; }
# sbatch the array script from the repository root, where it finds
# run-streams.sh; --gres=none drops its gpu:1, --cpus-per-task its 16
submit () {
  (cd "$repo" && sbatch --parsable --gres=none --cpus-per-task=1 "$@")
}

# ---- 6 clips over 3 tasks -------------------------------------------------------
for s in 0 1 2 3 4 5; do
  SIZE=320x240 FRAMES=$((10 + s)) "$repo/tests/bench/make-h264-clip.sh" \
    "$scratch/c$s.h264" > /dev/null
  echo "$scratch/c$s.h264"
done > "$scratch/list.txt"
# --wait: returns when every task has ended, with the highest exit status
job=$(submit --wait --array=0-2 --output="$scratch/task-%a.log" \
  examples/scaling/slurm-array.sh "$scratch/list.txt" "$scratch/out") \
  || fail "the array failed: $(cat "$scratch"/task-*.log)"
echo "array job $job ended"
for t in 0 1 2; do
  cat "$scratch/task-$t.log"
  grep -q '^2 of 2 streams ok$' "$scratch/task-$t.log" || fail "task $t"
  # the same share without Slurm
  "$run" -g none -k 256 -o "$scratch/ref/task$t" -s "$t/3" "$scratch/list.txt" \
    > /dev/null || fail "run-streams.sh -s $t/3 without Slurm"
done
for s in 0 1 2 3 4 5; do
  n=$(ls "$scratch"/out/task*/stream$s.jsonl | wc -l)
  [ "$n" -eq 1 ] || fail "stream $s written by $n tasks"
  f=$scratch/out/task$((s % 3))/stream$s.jsonl
  [ -f "$f" ] || fail "stream $s not in task $((s % 3))"
  [ "$(wc -l < "$f")" -eq $((10 + s)) ] || fail "stream $s: not $((10 + s)) frames"
  cmp "$f" "$scratch/ref/task$((s % 3))/stream$s.jsonl" \
    || fail "stream $s differs from run-streams.sh without Slurm"
done

# ---- scancel on 2 tasks of endless inputs -----------------------------------------
# Each input is a FIFO that a loop fills with a clip over and over until
# its reader is gone: a stream that ends only when stopped.
writers=()
cleanup () { for w in "${writers[@]}"; do kill "$w" 2>/dev/null || :; done; }
trap cleanup EXIT
for s in 0 1 2 3; do
  mkfifo "$scratch/live$s"
  (while cat "$scratch/c5.h264"; do :; done > "$scratch/live$s" 2>/dev/null) &
  writers+=($!)
  echo "$scratch/live$s"
done > "$scratch/live.txt"
job=$(submit --array=0-1 --output="$scratch/live-%a.log" \
  examples/scaling/slurm-array.sh "$scratch/live.txt" "$scratch/live")
# wait for a frame of every stream, then cancel
for ((i = 0; i < 120; i++)); do
  ready=0
  for s in 0 1 2 3; do
    [ -s "$scratch/live/task$((s % 2))/stream$s.jsonl" ] && ready=$((ready + 1))
  done
  [ "$ready" -eq 4 ] && break
  sleep 0.5
done
[ "$ready" -eq 4 ] || { scancel "$job"; fail "the live streams did not start"; }
scancel "$job"
for ((i = 0; i < 120; i++)); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || fail "job $job still queued"
for t in 0 1; do
  log=$scratch/live-$t.log
  cat "$log"
  grep -q '^2 of 2 streams ok$' "$log" || fail "task $t after scancel"
  grep -q 'Got EOS from element "pipeline0"' "$scratch/live/task$t/process0.log" \
    || fail "task $t: no EOS"
  for s in $t $((t + 2)); do
    f=$scratch/live/task$t/stream$s.jsonl
    set -- $(awk -v s="$s" '$1 == s' "$log")
    [ "$4 $5 $6 $7 $8 $9" = "ok (ended early by a signal)" ] \
      || fail "stream $s: '$*'"
    # whole lines only: the report's count, the last byte a newline
    [ "$(wc -l < "$f")" -eq "$3" ] || fail "stream $s: lines and report differ"
    [ "$(tail -c 1 "$f" | od -An -tx1 | tr -d ' ')" = 0a ] \
      || fail "stream $s: cut mid-line"
  done
done
echo "slurm-local: all checks passed"
