#!/bin/sh
# How each search method's cost grows with the range: frames per second at
# 1080p for R = 16 .. 256 (full search up to 128), 16x16 and all shapes,
# on one backend (docs/benchmarks.md, "Cost against range").
#
#   tests/bench/method-growth.sh BUILD_DIR [BACKEND [SECONDS]]
#
# Full search with all shapes on the CPU is left at R <= 32 and with 16x16
# at R <= 64: beyond that a single frame takes seconds.
set -eu
build=${1:?usage: $0 BUILD_DIR [BACKEND [SECONDS]]}
backend=${2:-cpu}
seconds=${3:-1}
bench="$build/tests/bench/gpumotionest-bench"
for method in full mods hierarchical predictive; do
  for shapes in 16x16 all; do
    ranges=16,32,64,128,256
    # the exhaustive search's growth up to 128 (it goes to ME_MAX_FULL_RANGE)
    [ "$method" = full ] && ranges=16,32,64,128
    if [ "$backend" = cpu ]; then
      case "$method/$shapes" in
        full/16x16) ranges=16,32,64 ;;
        full/all) ranges=16,32 ;;
        mods/all) ranges=16,32,64 ;;
      esac
    fi
    "$bench" --backend "$backend" --quick --method "$method" \
        --shapes "$shapes" --ranges "$ranges" --seconds "$seconds" |
      awk -v m="$method" '$1 == "1920x1080" { print m, $0 }'
  done
done
