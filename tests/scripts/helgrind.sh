#!/bin/sh
# Runs gst-check tests of one test binary under helgrind, with GLib's
# mutexes made visible to it (helgrind-gmutex.c), and counts the reported
# races of which one access is in the given library.  Not part of the
# suite (minutes, and it needs valgrind); see docs/reliability.md.
#
#   tests/scripts/helgrind.sh BUILD_DIR TEST LIBRARY [CHECK_NAME...]
#   tests/scripts/helgrind.sh build gpumotionest libgstgpumotionest \
#       test_active_backend_while_reopening
#
# Prints the number of such races (0 expected) and leaves helgrind's log
# in BUILD_DIR/helgrind-TEST.log.
set -eu
build=$(cd "$1" && pwd)
test=$2
lib=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
shim="$build/helgrind-gmutex.so"
log="$build/helgrind-$test.log"

cc -shared -fPIC -O1 -o "$shim" "$here/helgrind-gmutex.c" \
    $(pkg-config --cflags --libs glib-2.0) -ldl

checks=$(echo "$*" | tr ' ' ',')
GST_CHECKS="$checks" CK_FORK=no GST_DEBUG=0 \
GST_PLUGIN_PATH_1_0="$build/gst" \
GST_REGISTRY_1_0="$build/helgrind-registry.bin" \
LD_LIBRARY_PATH="$build/gst/motionvectors${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    valgrind --tool=helgrind --trace-children=yes --log-file="$log" \
    env LD_PRELOAD="$shim" "$build/tests/test-$test"

# A race report's first two stack tops are the two conflicting accesses.
awk -v lib="$lib" '
  /Possible data race/ { inrace = 1; tops = 0; hit = 0; next }
  inrace && /==[0-9]+== +at 0x/ { tops++; if (index($0, lib)) hit = 1 }
  inrace && /==[0-9]+== +Address/ { if (hit) n++; inrace = 0 }
  END { print n + 0 }' "$log"
