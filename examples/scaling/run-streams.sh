#!/bin/bash
# Motion vectors of many streams on one host: one gst-launch-1.0 process per
# GPU, each holding its share of the streams (docs/scaling.md).
#
#   run-streams.sh [-g GPUS] [-k K] [-o OUT] [-p PROPS] [-d DECODE] [-s I/N] [-n] LIST
#
# LIST is a text file with one input per line: a file path or a URI
# (file://, rtsp://, http://, anything uridecodebin plays); blank lines and
# lines starting with # are skipped.  Input number S (counting from 0 in
# LIST) becomes
#   filesrc ! decodebin | uridecodebin ! gpumotionest PROPS
#     ! mvexport location=OUT/streamS.jsonl ! fakesink
# with the elements named srcS, decS, meS and exportS, so that an error
# names its stream.
#
#   -g GPUS   GPUs to use: a comma-separated list of indices or UUIDs, or
#             "none" for one CPU process.  Default: CUDA_VISIBLE_DEVICES
#             when it is set (Slurm, containers), else every GPU that
#             `nvidia-smi -L` lists, else none.
#   -k K      most streams per process (per GPU); more inputs than GPUs x K
#             is an error.  Default: all inputs, spread evenly.
#   -o OUT    output directory (default out-streams)
#   -p PROPS  gpumotionest properties (default "search-range=16").  The
#             script puts backend=cuda (GPU) or backend=cpu before them.
#   -d DECODE the elements that decode a file, instead of decodebin: for
#             instance "h264parse ! nvh264dec" for raw H.264 files, which
#             names the decoder rather than leaving the choice to decodebin
#   -s I/N    only the inputs whose number is I modulo N: the share of
#             worker I of N (a Slurm array task, a Kubernetes indexed Job).
#   -n        print each process's command line instead of running it.
#
# Each process sees only its GPU (CUDA_VISIBLE_DEVICES), so its decoder and
# its gpumotionest instances share that GPU and one CUDA context.  With
# GPUs, NVIDIA's decoders are given the highest rank so that decodebin
# picks them (GST_PLUGIN_FEATURE_RANK, unless already set).  SIGINT or
# SIGTERM ends every stream with EOS, so the files are complete.
#
# Prints one line per stream: its number, process, frames written (lines
# of its JSON Lines file) and status.  Exits 1 when any stream failed,
# 2 on a usage error.
set -u

usage () {
  sed -n '4p' "$0" | sed 's/^# */usage: /' >&2
  exit 2
}

gpus_opt=""
gpus_set=no
k=0
out="out-streams"
props="search-range=16"
shard=0
shards=1
dry=no
decode=""
while getopts "g:k:o:p:d:s:n" opt; do
  case $opt in
    g) gpus_opt=$OPTARG; gpus_set=yes ;;
    k) k=$OPTARG ;;
    o) out=$OPTARG ;;
    p) props=$OPTARG ;;
    s) shard=${OPTARG%/*}; shards=${OPTARG#*/} ;;
    d) decode=$OPTARG ;;
    n) dry=yes ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
list=$1
for v in "$k" "$shard" "$shards"; do
  case $v in
    '' | *[!0-9]*) echo "error: '$v' is not a number" >&2; exit 2 ;;
  esac
done
if [ "$shards" -lt 1 ] || [ "$shard" -ge "$shards" ]; then
  echo "error: -s $shard/$shards: I must be below N" >&2
  exit 2
fi
[ -r "$list" ] || { echo "error: cannot read $list" >&2; exit 2; }

# ---- the GPUs -----------------------------------------------------------------

gpus=()
if [ "$gpus_set" = yes ]; then
  [ "$gpus_opt" = none ] || IFS=, read -r -a gpus <<< "$gpus_opt"
elif [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
  # set by the scheduler: those are ours ("" or -1 means none)
  case $CUDA_VISIBLE_DEVICES in
    '' | -1 | NoDevFiles) ;;
    *) IFS=, read -r -a gpus <<< "$CUDA_VISIBLE_DEVICES" ;;
  esac
elif command -v nvidia-smi >/dev/null 2>&1; then
  # UUIDs: CUDA numbers devices in its own order, nvidia-smi in PCI order
  mapfile -t gpus < <(nvidia-smi -L 2>/dev/null \
    | sed -n 's/^GPU [0-9]*:.*(UUID: \([^)]*\)).*/\1/p')
fi
n_proc=${#gpus[@]}
[ "$n_proc" -gt 0 ] || n_proc=1

# ---- the inputs ---------------------------------------------------------------

inputs=()   # the inputs of this shard
numbers=()  # their numbers in LIST
i=0
while IFS= read -r line || [ -n "$line" ]; do
  line=${line#"${line%%[![:space:]]*}"}
  line=${line%"${line##*[![:space:]]}"}
  case $line in '' | '#'*) continue ;; esac
  if [ $((i % shards)) -eq "$shard" ]; then
    inputs+=("$line")
    numbers+=("$i")
  fi
  i=$((i + 1))
done < "$list"
m=${#inputs[@]}
[ "$m" -gt 0 ] || { echo "error: no input in $list for share $shard/$shards" >&2; exit 2; }
per=$(((m + n_proc - 1) / n_proc))
if [ "$k" -eq 0 ]; then
  k=$per
elif [ "$per" -gt "$k" ]; then
  echo "error: $m streams at most $k per GPU need $(((m + k - 1) / k))" \
    "GPUs; this host has $n_proc: use more hosts (-s I/N) or a larger -k" >&2
  exit 2
fi

# ---- one pipeline per process ---------------------------------------------------

if [ ${#gpus[@]} -gt 0 ]; then
  backend=cuda
  export GST_PLUGIN_FEATURE_RANK=${GST_PLUGIN_FEATURE_RANK:-nvh264dec:MAX,nvh265dec:MAX}
else
  backend=cpu
fi
read -r -a prop_args <<< "$props"
read -r -a decode_args <<< "$decode"
[ "$dry" = yes ] || mkdir -p "$out"

# Stream j of the shard goes to process j mod n_proc.
status=()
declare -a proc_args
for ((p = 0; p < n_proc; p++)); do
  args=()
  for ((j = p; j < m; j += n_proc)); do
    s=${numbers[j]}
    in=${inputs[j]}
    [ "$dry" = yes ] || rm -f "$out/stream$s.jsonl"
    # decodebin and uridecodebin: video only, the input's other streams
    # are not exposed
    only_video=("caps=video/x-raw(ANY)" expose-all-streams=false)
    if [[ $in =~ ^[A-Za-z][A-Za-z0-9+.-]*:// ]]; then
      args+=(uridecodebin "name=dec$s" "uri=$in" "${only_video[@]}" !)
    elif [ ! -r "$in" ]; then
      status[j]="failed: cannot read the file"
      continue
    elif [ -n "$decode" ]; then
      args+=(filesrc "name=src$s" "location=$in" ! "${decode_args[@]}" !)
    else
      args+=(filesrc "name=src$s" "location=$in" ! decodebin "name=dec$s"
        "${only_video[@]}" !)
    fi
    # on the CPU any format the decoder gives; on a GPU nothing in between,
    # so that frames stay in CUDA memory
    [ "$backend" = cpu ] && args+=(videoconvert "name=conv$s" !)
    args+=(gpumotionest "name=me$s" "backend=$backend" "${prop_args[@]}" \
      ! mvexport "name=export$s" "location=$out/stream$s.jsonl" \
      ! fakesink sync=false)
  done
  proc_args[p]=$(printf '%q ' "${args[@]}")
done

gpu_of () { # process -> what it runs on
  if [ ${#gpus[@]} -gt 0 ]; then echo "${gpus[$1]}"; else echo cpu; fi
}

if [ "$dry" = yes ]; then
  for ((p = 0; p < n_proc; p++)); do
    [ -n "${proc_args[p]}" ] || continue
    if [ ${#gpus[@]} -gt 0 ]; then
      echo "CUDA_VISIBLE_DEVICES=${gpus[p]} gst-launch-1.0 -e ${proc_args[p]}"
    else
      echo "gst-launch-1.0 -e ${proc_args[p]}"
    fi
  done
  exit 0
fi

pids=()
for ((p = 0; p < n_proc; p++)); do
  [ -n "${proc_args[p]}" ] || continue
  eval "args=(${proc_args[p]})"
  # SIGTERM ignored in the process: scancel signals every process of the
  # job, and gst-launch-1.0 dies of SIGTERM with its files cut mid-line;
  # the SIGINT this script sends on SIGTERM ends it with EOS instead.
  if [ ${#gpus[@]} -gt 0 ]; then
    (trap '' TERM; CUDA_VISIBLE_DEVICES=${gpus[p]} exec gst-launch-1.0 -e \
      "${args[@]}") > "$out/process$p.log" 2>&1 &
  else
    (trap '' TERM; exec gst-launch-1.0 -e "${args[@]}") \
      > "$out/process$p.log" 2>&1 &
  fi
  pids[p]=$!
  echo "process $p on $(gpu_of "$p"): pid ${pids[p]}, log $out/process$p.log"
done

# SIGINT/SIGTERM: EOS to every process (gst-launch-1.0 -e), then wait.
interrupted=no
stop () {
  interrupted=yes
  for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null; done
}
trap stop INT TERM

rcs=()
for p in "${!pids[@]}"; do
  while :; do
    wait "${pids[p]}"
    rc=$?
    # a signal interrupts wait: go on waiting while the process lives
    kill -0 "${pids[p]}" 2>/dev/null || break
  done
  rcs[p]=$rc
done

# ---- report -----------------------------------------------------------------------

failed=0
printf '%-8s %-8s %8s  %s\n' stream process frames status
for ((j = 0; j < m; j++)); do
  s=${numbers[j]}
  p=$((j % n_proc))
  frames=0
  [ -f "$out/stream$s.jsonl" ] && frames=$(wc -l < "$out/stream$s.jsonl")
  st=${status[j]:-}
  if [ -z "$st" ] && [ "${rcs[p]:-0}" -ne 0 ]; then
    if grep '^ERROR' "$out/process$p.log" \
        | grep -Eq "[/:](src|dec|conv|me|export)$s([/:]|\$)"; then
      st="failed: $(grep -m 1 '^ERROR' "$out/process$p.log")"
    else
      st="failed: stopped with process $p (exit ${rcs[p]})"
    fi
  fi
  [ -n "$st" ] || { [ "$frames" -gt 0 ] && st=ok || st="failed: no frame"; }
  [ "$st" = ok ] && [ "$interrupted" = yes ] && st="ok (ended early by a signal)"
  case $st in ok*) ;; *) failed=$((failed + 1)) ;; esac
  printf '%-8s %-8s %8d  %s  %s\n' "$s" "$p" "$frames" "$st" "${inputs[j]}"
done
for p in "${!rcs[@]}"; do
  if [ "${rcs[p]}" -ne 0 ]; then
    echo "process $p exited with ${rcs[p]}; the end of $out/process$p.log:"
    if grep -q '^ERROR' "$out/process$p.log"; then
      grep -E '^(ERROR|Additional debug)' "$out/process$p.log" | head -n 10
    else
      tail -n 5 "$out/process$p.log"
    fi | sed 's/^/  /'
  fi
done
echo "$((m - failed)) of $m streams ok"
[ "$failed" -eq 0 ]
