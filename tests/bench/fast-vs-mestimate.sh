#!/bin/sh
# The fast search methods (mods, hierarchical, predictive) against full
# search and against FFmpeg's mestimate filter (esa, ds, hexbs, epzs, umh):
# motion-field quality on real footage and known pans, and speed at 1080p
# (docs/quality.md, section "Fast methods").
#
#   tests/bench/fast-vs-mestimate.sh CLIPS OUT [STEP ...]
#
# CLIPS is a folder into which the Debian packages opencv-doc and
# forensics-samples-files were unpacked (apt-get download opencv-doc
# forensics-samples-files; dpkg -x each into CLIPS).  OUT receives the
# generated clips, one JSON file and one table per step.  STEP is any of
# vtest phone pan shake fastpan64 fastpan128 speed (default: all), so that
# steps can run side by side.  BUILD (environment, default build) is the
# build folder whose plugins are used; PYTHON (default /usr/bin/python3,
# Debian's, which has numpy).
#
# Every field is 16x16, CPU backend; ours whole pel (SAD) and quarter pel
# (SATD), mestimate whole pel (SAD, the only kind it has).  x264 is not run
# here (docs/quality.md has it).
set -eu
clips=${1:?usage: $0 CLIPS OUT [STEP ...]}
out=${2:?usage: $0 CLIPS OUT [STEP ...]}
shift 2
steps=${*:-vtest phone pan shake fastpan64 fastpan128 speed}
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
py=${PYTHON:-/usr/bin/python3}
q="$py $here/mvquality.py"
mkdir -p "$out"

vtest=$clips/usr/share/doc/opencv-doc/examples/data/vtest.avi
phone=$clips/usr/share/forensics-samples/original-files/movie1/VID_20191220_170832.mp4
board=$clips/usr/share/forensics-samples/original-files/pic1/IMG_1054.JPG
photo=
for p in /usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg \
    /usr/lib/python3/dist-packages/matplotlib/mpl-data/sample_data/grace_hopper.jpg; do
  [ -f "$p" ] && { photo=$p; break; }
done

# R<range>:16x16:none:sad and :quarter:satd for full and each fast method
configs() {
  c=
  for r in "$@"; do
    for s in none:sad quarter:satd; do
      c="$c,R$r:16x16:$s"
      [ "$r" -le 128 ] || c=${c%,*}
      for m in mods hierarchical predictive; do
        c="$c,R$r:16x16:$s:m$m"
      done
    done
  done
  echo "${c#,}"
}

score() {
  name=$1
  shift
  $q score "$@" --build "$build" --x264 '' --json "$out/$name.json" \
    --cache "$out/cache" >"$out/$name.md"
  $q table "$out/$name.json" >"$out/$name-table.md"
  cat "$out/$name-table.md"
}

for step in $steps; do
  case $step in
  vtest)
    score vtest "$vtest" --frames 100 --configs "$(configs 16 32)" \
      --mestimate esa,ds,hexbs,epzs,umh ;;
  phone)
    score phone "$phone" --frames 20 --configs "$(configs 16 32)" \
      --mestimate esa,ds,hexbs,epzs,umh ;;
  pan)
    $q make-pan "$photo" "$out/pan.y4m"
    score pan "$out/pan.y4m" --true-mv=-5,3 --configs "$(configs 16 32)" \
      --mestimate esa,ds,hexbs,epzs,umh ;;
  shake)
    $q make-pan "$photo" "$out/shake.y4m" --motion 0,0 --jitter 1.5 \
      --frames 60
    score shake "$out/shake.y4m" --configs "$(configs 16 32)" \
      --mestimate esa,ds,hexbs,epzs,umh ;;
  fastpan64|fastpan128)
    # a photograph of a circuit board (1280x960) moved by about 40 pixels
    # per frame: the true vector is (-161, 94) quarter pels; 19 frames is
    # what the photograph holds at 432x528
    if [ ! -f "$out/fastpan.y4m" ]; then
      $q make-pan "$board" "$out/fastpan-$$.y4m" --motion 40.25,-23.5 \
        --frames 19
      mv "$out/fastpan-$$.y4m" "$out/fastpan.y4m"
    fi
    r=${step#fastpan}
    # exhaustive mestimate at R = 128 is left out: about 15 minutes
    me=esa,ds,hexbs,epzs,umh
    [ "$r" -le 64 ] || me=ds,hexbs,epzs,umh
    score "$step" "$out/fastpan.y4m" --true-mv=-161,94 \
      --configs "$(configs "$r")" --mestimate $me ;;
  speed)
    $q speed "$phone" --frames 20 --mestimate-frames 4 --build "$build" \
      --json "$out/speed.json" >"$out/speed.md"
    cat "$out/speed.md" ;;
  *)
    echo "unknown step $step" >&2
    exit 2 ;;
  esac
done
