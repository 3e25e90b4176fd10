#!/usr/bin/env python3
"""Time to get a frame's motion field as numpy arrays, per frame.

    ndarray-bench.py [--width 1920 --height 1080] [--repeat 200] [--pipeline N]

Builds a meta with all seven shapes and a partition decision (1080p: 334 560
cells, 5.4 MB) and times, per frame, over --repeat calls:

  to_ndarrays()          the overrides, arrays viewing the meta's memory
  to_ndarrays(copy=True) the overrides, arrays of their own
  to_field()             to_ndarrays() + modes + the scalars
  get_data()+frombuffer  the hand-written way: get_grid_bytes(),
                         GLib.Bytes.get_data() (a copy), numpy.frombuffer

--pipeline N also times to_ndarrays() on N frames coming out of
gpumotionest backend=cpu partitions=all mode-decision=true (the cells in the
element's own memory).  Needs GI_TYPELIB_PATH, LD_LIBRARY_PATH and
PYTHONPATH at the build (docs/python.md); --pipeline the plugin path too.
"""

import argparse
import statistics
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import GLib, Gst, GstMotionVectors as MV  # noqa: E402

import numpy as np  # noqa: E402

ALL = MV.MotionVectorPartitionFlags(0x7f)


def by_hand(meta):
    dtype = MV.cell_dtype()
    out = {}
    for p in range(7):
        data, cols, rows = meta.get_grid_bytes(MV.MotionVectorPartition(p))
        out[p] = np.frombuffer(data.get_data(), dtype).reshape(rows, cols)
    return out


def timed(fn, repeat):
    """Per-call times in microseconds."""
    fn()   # the first call loads numpy's and ctypes' paths
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def report(name, times):
    print(f"{name:24s} median {statistics.median(times):8.1f} us   "
          f"min {min(times):8.1f} us   ({len(times)} frames)")


def synthetic(args):
    n, _, _, _ = MV.motion_vector_layout_grid(args.width, args.height, ALL,
                                              MV.MotionVectorPartition(0))
    rng = np.random.default_rng(1)
    cells = rng.integers(0, 256, n * 16, dtype=np.uint8)
    buf = Gst.Buffer.new_allocate(None, 64, None)
    meta = MV.buffer_add_motion_vector_meta(buf, args.width, args.height, ALL,
                                            GLib.Bytes.new(cells.tobytes()))
    mb = ((args.height + 15) // 16, (args.width + 15) // 16)
    meta.set_modes(GLib.Bytes.new(bytes(mb[0] * mb[1])))
    print(f"{args.width}x{args.height}, all seven shapes: {n} cells, "
          f"{n * 16 / 1e6:.2f} MB; zero_copy() = {MV.zero_copy()}")
    report("to_ndarrays()", timed(meta.to_ndarrays, args.repeat))
    report("to_ndarrays(copy=True)",
           timed(lambda: meta.to_ndarrays(copy=True), args.repeat))
    report("to_field()", timed(meta.to_field, args.repeat))
    report("get_data()+frombuffer", timed(lambda: by_hand(meta), args.repeat))


def pipeline(args):
    p = Gst.parse_launch(
        f"videotestsrc pattern=ball num-buffers={args.pipeline} ! "
        f"video/x-raw,format=I420,width={args.width},height={args.height} ! "
        "gpumotionest backend=cpu partitions=all mode-decision=true "
        "search-range=8 ! appsink name=sink sync=false")
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    samples = []
    while True:
        s = sink.emit("try-pull-sample", 60 * Gst.SECOND)
        if s is None:
            break
        samples.append(s)
    p.set_state(Gst.State.NULL)
    # timed once the element has stopped, which would compete for the CPU
    times = []
    for s in samples[1:]:
        meta = MV.buffer_get_motion_vector_meta(s.get_buffer())
        t0 = time.perf_counter()
        grids = meta.to_ndarrays()
        times.append((time.perf_counter() - t0) * 1e6)
        assert len(grids) == 7
    report("pipeline to_ndarrays()", times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--width", type=int, default=1920)
    ap.add_argument("--height", type=int, default=1080)
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--pipeline", type=int, default=0, metavar="N")
    args = ap.parse_args()
    Gst.init(None)
    synthetic(args)
    if args.pipeline:
        pipeline(args)


if __name__ == "__main__":
    main()
