#!/bin/bash
# Streams over many GPUs with Slurm: one array task per GPU, each running
# run-streams.sh on its share of one list (docs/scaling.md).
#
#   sbatch --array=0-15 examples/scaling/slurm-array.sh streams.txt [OUT]
#
# Slurm gives each task one GPU (--gres=gpu:1) and sets CUDA_VISIBLE_DEVICES
# to it, which run-streams.sh uses as it is; task I of N takes the inputs
# whose number is I modulo N.  scancel sends SIGTERM, which ends every
# stream with EOS before the kill (KillWait, 30 s by default).  On nodes
# without GPU, sbatch --gres=none --cpus-per-task=1 overrides the lines
# below and the streams are searched on the CPU.
#SBATCH --job-name=mv-streams
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=16
#SBATCH --output=mv-streams-%A_%a.log
set -eu
list=$1
out=${2:-out}
task=${SLURM_ARRAY_TASK_ID:-0}
tasks=${SLURM_ARRAY_TASK_COUNT:-1}
here=${SLURM_SUBMIT_DIR:-.}
exec "$here/examples/scaling/run-streams.sh" -k 256 -o "$out/task$task" \
  -s "$task/$tasks" "$list"
