#!/bin/sh
# The real camera clips of the quality suite, from two Debian packages,
# unpacked (not installed) into DIR: opencv-doc's vtest.avi (a fixed camera)
# and tree.avi (a webcam at a window: a tree in the wind, a hand sweeping
# past), and forensics-samples-files' VID_20191220_170832.mp4 (a handheld
# phone).
# Nothing is done when they are there already, in DIR or installed.
#
#   tests/quality/fetch-clips.sh [DIR]     (default: tests/quality/clips)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$here/clips}
vtest=usr/share/doc/opencv-doc/examples/data/vtest.avi
tree=usr/share/doc/opencv-doc/examples/data/tree.avi
phone=usr/share/forensics-samples/original-files/movie1/VID_20191220_170832.mp4

need=""
{ [ -f "$dir/$vtest" ] || [ -f "/$vtest" ]; } &&
  { [ -f "$dir/$tree" ] || [ -f "/$tree" ]; } || need="$need opencv-doc"
[ -f "$dir/$phone" ] || [ -f "/$phone" ] || need="$need forensics-samples-files"
[ -n "$need" ] || exit 0

mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# shellcheck disable=SC2086
if ! apt-get download $need >/dev/null 2>&1; then
  # a fresh machine has no package lists yet
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  apt-get download $need
fi
for deb in ./*.deb; do
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" "./$vtest" "./$tree" \
    "./$phone" 2>/dev/null || true
done
for f in $vtest $tree $phone; do
  [ -f "$dir/$f" ] || [ -f "/$f" ] || { echo "$0: $f missing" >&2; exit 1; }
done
echo "quality clips in $dir"
