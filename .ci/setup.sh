#!/bin/sh
# Installs what gpumotionest needs on Debian 12, then configures and builds it
# in ./build.  Safe to run again: it only installs what is missing and
# rebuilds what changed.
set -eu
cd "$(dirname "$0")/.."

packages="build-essential meson ninja-build pkg-config
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-libav gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-plugins-ugly
  gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0 python3-gi python3-gst-1.0 python3-numpy
  python3-matplotlib ffmpeg"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
    || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "Installing:$missing"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

# nvcc is looked for on the PATH; the usual toolkit location is added.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  PATH=/usr/local/cuda/bin:$PATH
  export PATH
fi

# The real camera clips of the quality suite (docs/quality-suite.md).
tests/quality/fetch-clips.sh

if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release
fi
ninja -C build
