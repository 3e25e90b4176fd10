#!/bin/sh
# The getting-started recipe (docs/getting-started.md) against an install.
#
#   install.sh BUILD_ROOT SCRATCH_DIR
#
# Installs the build into SCRATCH_DIR/root (meson install --destdir),
# checks that every file of the layout is where the document says, builds
# examples/getting-started/firstvectors.c out of the tree with pkg-config,
# and runs it and firstvectors.py with nothing of the tree on the paths:
# the plugin, library, typelib and overrides come from the install.  Both
# must find the known pan of a clip of the photograph.  Exit 77 (skipped)
# when ffmpeg or the photograph is missing; the Python part is left out
# when introspection was not built or python3 lacks gi or numpy.
set -eu
build=$1
scratch=$2
here=$(cd "$(dirname "$0")" && pwd)
examples=$here/../../examples/getting-started
root=$scratch/root
py=/usr/bin/python3
[ -x "$py" ] || py=python3
photo=/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg

fail() { echo "FAIL: $*" >&2; exit 1; }

command -v ffmpeg >/dev/null 2>&1 || { echo "ffmpeg missing: skipped"; exit 77; }
[ -f "$photo" ] || { echo "$photo missing: skipped"; exit 77; }

rm -rf "$root"
mkdir -p "$scratch"
meson install -C "$build" --no-rebuild --quiet --destdir "$root"

# Where each part went, from meson's own list of installed files: shell
# assignments of the directories (absolute, without the destdir).
layout=$("$py" - "$build" <<'EOF'
import json, os, subprocess, sys
out = subprocess.run(["meson", "introspect", sys.argv[1], "--installed"],
                     check=True, capture_output=True, text=True).stdout
dirs = {}
for dest in json.loads(out).values():
    name = os.path.basename(dest)
    for key, want in (("LIBDIR", "libgstmotionvectors-1.0.so.0"),
                      ("PLUGINDIR", "libgstgpumotionest.so"),
                      ("PCDIR", "gstreamer-motionvectors-1.0.pc"),
                      ("HEADERDIR", "gstmotionvectormeta.h"),
                      ("TYPELIBDIR", "GstMotionVectors-1.0.typelib"),
                      ("GIRDIR", "GstMotionVectors-1.0.gir"),
                      ("OVERRIDESDIR", "GstMotionVectors.py")):
        if name == want:
            dirs[key] = os.path.dirname(dest)
for key in ("LIBDIR", "PLUGINDIR", "PCDIR", "HEADERDIR", "TYPELIBDIR",
            "GIRDIR", "OVERRIDESDIR"):
    print("%s='%s'" % (key, dirs.get(key, "")))
EOF
)
eval "$layout"
echo "$layout"
for d in "$LIBDIR" "$PLUGINDIR" "$PCDIR" "$HEADERDIR"; do
  [ -n "$d" ] || fail "the layout lacks a part:
$layout"
done
for f in "$LIBDIR/libgstmotionvectors-1.0.so" \
    "$PLUGINDIR/libgstgpumotionest.so" "$PLUGINDIR/libgstmvtools.so" \
    "$PCDIR/gstreamer-motionvectors-1.0.pc" \
    "$HEADERDIR/gstmotionvectortypes.h" \
    "$HEADERDIR/gstmotionvectors-enumtypes.h"; do
  [ -e "$root$f" ] || fail "$f not installed"
done
case $HEADERDIR in
  */include/gstreamer-1.0/gst/motionvectors) ;;
  *) fail "headers in $HEADERDIR, not include/gstreamer-1.0/gst/motionvectors" ;;
esac
if [ -n "$TYPELIBDIR" ]; then
  [ -n "$OVERRIDESDIR" ] || fail "a typelib but no overrides"
  case $OVERRIDESDIR in
    */gi/overrides) ;;
    *) fail "overrides in $OVERRIDESDIR, not a gi/overrides directory" ;;
  esac
fi

# The .pc names the real prefix; here it lies under the destdir.
mkdir -p "$scratch/pkgconfig"
prefix=$(sed -n 's/^prefix=//p' "$root$PCDIR/gstreamer-motionvectors-1.0.pc")
sed "s|^prefix=.*|prefix=$root$prefix|" \
  "$root$PCDIR/gstreamer-motionvectors-1.0.pc" \
  > "$scratch/pkgconfig/gstreamer-motionvectors-1.0.pc"

# Only the install on the paths; the system's plugins (decodebin) stay.
export PKG_CONFIG_PATH="$scratch/pkgconfig"
export LD_LIBRARY_PATH="$root$LIBDIR"
export GST_PLUGIN_PATH_1_0="$root$PLUGINDIR"
export GST_REGISTRY_1_0="$scratch/registry-install.bin"
unset GST_PLUGIN_PATH GI_TYPELIB_PATH PYTHONPATH

cc -Wall -Werror "$examples/firstvectors.c" -o "$scratch/firstvectors" \
  $(pkg-config --cflags --libs gstreamer-motionvectors-1.0)

# The photograph panned: the window moves by (+2,+1) px per frame, so the
# content by (-2,-1) and the vectors are (+2,+1).
clip=$scratch/pan.mkv
ffmpeg -v error -y -loop 1 -i "$photo" -vf \
  "format=gray,crop=320:240:x='40+2*n':y='60+n':exact=1,format=yuv420p" \
  -frames:v 5 -c:v ffv1 "$clip"
{
  echo "frame 0: no reference"
  for k in 1 2 3 4; do
    echo "frame $k: 20x15 blocks, most common vector (+2,+1) px on 300 blocks"
  done
} > "$scratch/expected.txt"

"$scratch/firstvectors" "$clip" > "$scratch/c.txt"
cat "$scratch/c.txt"
diff "$scratch/expected.txt" "$scratch/c.txt" || fail "firstvectors (C)"

if [ -z "$TYPELIBDIR" ]; then
  echo "no typelib installed (introspection disabled): Python not checked"
elif ! "$py" -c "import gi, numpy" 2>/dev/null; then
  echo "python3 gi/numpy missing: Python not checked"
else
  export GI_TYPELIB_PATH="$root$TYPELIBDIR"
  export PYTHONPATH="$root${OVERRIDESDIR%/gi/overrides}"
  "$py" "$examples/firstvectors.py" "$clip" > "$scratch/py.txt"
  cat "$scratch/py.txt"
  diff "$scratch/expected.txt" "$scratch/py.txt" || fail "firstvectors.py"
  # the overrides that ran are the installed ones
  "$py" -c "
import sys, gi
gi.require_version('GstMotionVectors', '1.0')
from gi.repository import GstMotionVectors
print(sys.modules['gi.overrides.GstMotionVectors'].__file__)" \
    > "$scratch/overrides.txt"
  [ "$(cat "$scratch/overrides.txt")" = "$root$OVERRIDESDIR/GstMotionVectors.py" ] \
    || fail "overrides loaded from $(cat "$scratch/overrides.txt")"
fi
echo "PASS: install"
