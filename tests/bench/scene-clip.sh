#!/bin/sh
# A clip of real scenes spliced together at known frames, for checking
# scene cut detection (the motion summary's scene change score, FFmpeg's
# scdet, an encoder's keyframes): docs/summary.md.
#
#   tests/bench/scene-clip.sh OUT.y4m [CLIPS]
#
# CLIPS is a folder into which the Debian packages opencv-doc and
# forensics-samples-files were unpacked (apt-get download opencv-doc
# forensics-samples-files; dpkg -x each into CLIPS); default: the root,
# where apt-get install puts them.  Writes OUT.y4m (768x576 I420, 25
# frames/s, 321 frames of 8 segments) and OUT.cuts: the number (from 0) of
# the first frame of every segment but the first, one a line.  Every
# segment is one shot of its source (the Megamind trailer's own cuts, at
# its frames 98, 154 and 200, fall between the segments taken from it), so
# OUT.cuts lists every cut of the clip.  Sources of other sizes are scaled
# to 768x576 (the phone clip and the screen recording lose their 16:9).
set -eu
out=${1:?usage: $0 OUT.y4m [CLIPS]}
clips=${2:-}
data=$clips/usr/share/doc/opencv-doc/examples/data
forensics=$clips/usr/share/forensics-samples/original-files

# source, first frame, frames
segments="
$data/vtest.avi 0 40
$forensics/movie1/VID_20191220_170832.mp4 0 41
$data/Megamind.avi 20 40
$data/tree.avi 0 40
$forensics/movie2/movie-hello.mp4 100 40
$data/vtest.avi 400 40
$data/Megamind.avi 105 40
$data/Megamind.avi 210 40
"

inputs=
filters=
labels=
cuts=
i=0
frame=0
echo "$segments" | {
  while read -r src first n; do
    [ -n "$src" ] || continue
    [ -f "$src" ] || { echo "$0: missing $src (see the header)" >&2; exit 1; }
    inputs="$inputs -i $src"
    # the frames by number, whatever the source's rate; then one size, one
    # rate (timestamps from the frame count, so no frame is dropped or
    # repeated at the seams)
    filters="$filters[$i:v]trim=start_frame=$first:end_frame=$((first + n)),"
    filters="${filters}setpts=N/(25*TB),scale=768:576,setsar=1,format=yuv420p[s$i];"
    labels="$labels[s$i]"
    [ $i -eq 0 ] || cuts="$cuts$frame
"
    frame=$((frame + n))
    i=$((i + 1))
  done
  # shellcheck disable=SC2086
  ffmpeg -hide_banner -loglevel error -y $inputs \
      -filter_complex "${filters}${labels}concat=n=$i:v=1:a=0,setpts=N/(25*TB)[v]" \
      -map '[v]' -r 25 -f yuv4mpegpipe "$out"
  printf '%s' "$cuts" > "${out%.y4m}.cuts"
  n=$(ffprobe -v error -count_frames -select_streams v:0 \
      -show_entries stream=nb_read_frames -of csv=p=0 "$out")
  [ "$n" -eq "$frame" ] || { echo "$0: $out has $n frames, not $frame" >&2; exit 1; }
  echo "$out: $frame frames, cuts at $(echo $cuts) (${out%.y4m}.cuts)"
}
