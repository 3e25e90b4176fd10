#!/usr/bin/env python3
"""mvexport's speed per format: frames/s written and MB a frame, and the
time to read an export back (docs/benchmarks.md, "Export formats").

One real field is made first: gpumotionest backend=cpu on a few frames of
a moving test pattern, every shape, with the partition decision.  Its last
buffer is then pushed --frames times through `appsrc ! mvexport ! fakesink`
for each format, into a folder on tmpfs (/dev/shm unless --dir), the whole
process pinned to one CPU core (--cores to change), and timed from the
first push to EOS: what is timed is mvexport's formatting and writing (the
buffer itself is not copied: mvexport is a passthrough).

Reading: a --read-frames export of each format is read back: the JSON
Lines with json.loads line by line (and, separately, the conversion of
each line's arrays with numpy), the NumPy folder with np.load (mmap, then
a full read into memory).  Each line or array is dropped once timed, so
memory holds one frame of JSON or one array at a time.

Run from the source tree, after a build:
  B=$PWD/build
  GI_TYPELIB_PATH=$B/gst/motionvectors LD_LIBRARY_PATH=$B/gst/motionvectors \\
  PYTHONPATH=$PWD/gst/motionvectors/python GST_PLUGIN_PATH=$B/gst \\
    /usr/bin/python3 tests/bench/export-bench.py
"""
import argparse
import json
import os
import platform
import resource
import shutil
import sys
import tempfile
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import GLib, Gst  # noqa: E402


def make_field(width, height, partitions, frames):
    """The last buffer of a short gpumotionest run and its caps."""
    launch = (
        f"videotestsrc pattern=smpte horizontal-speed=3 num-buffers={frames} ! "
        f"video/x-raw,format=I420,width={width},height={height},"
        f"framerate=30/1 ! gpumotionest backend=cpu partitions={partitions} "
        "mode-decision=true summary=true ! appsink name=sink sync=false "
        "max-buffers=1 drop=true")
    p = Gst.parse_launch(launch)
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    last = None
    while True:
        s = sink.emit("pull-sample")
        if s is None:
            break
        last = s
    p.set_state(Gst.State.NULL)
    if last is None:
        sys.exit("no buffer came out of gpumotionest")
    return last.get_buffer(), last.get_caps()


def run_export(buf, caps, fmt, location, frames, extra=""):
    """Seconds to push @frames buffers through mvexport and reach EOS, and
    the process's user and system CPU seconds meanwhile."""
    p = Gst.parse_launch(
        f"appsrc name=src format=time max-bytes=0 block=true ! "
        f"mvexport format={fmt} location=\"{location}\" {extra} ! "
        "fakesink sync=false")
    src = p.get_by_name("src")
    src.set_property("caps", caps)
    p.set_state(Gst.State.PLAYING)
    bus = p.get_bus()
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    for _ in range(frames):
        if src.emit("push-buffer", buf) != Gst.FlowReturn.OK:
            sys.exit(f"push failed ({fmt})")
    src.emit("end-of-stream")
    msg = bus.timed_pop_filtered(Gst.CLOCK_TIME_NONE,
                                 Gst.MessageType.EOS | Gst.MessageType.ERROR)
    t = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    if msg.type == Gst.MessageType.ERROR:
        sys.exit(f"{fmt}: {msg.parse_error()}")
    p.set_state(Gst.State.NULL)
    return t, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime


def size_of(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(path, f))
                   for f in os.listdir(path))
    return os.path.getsize(path)


def read_jsonl(path):
    import numpy as np
    t_parse = t_arrays = 0.0
    n = 0
    with open(path, "rb") as f:
        for line in f:
            t0 = time.perf_counter()
            d = json.loads(line)
            t1 = time.perf_counter()
            for L in d["layers"]:
                for k in ("mv", "cost", "pred", "mvd"):
                    if k in L:
                        np.array(L[k], dtype=np.int32)
            t_parse += t1 - t0
            t_arrays += time.perf_counter() - t1
            n += 1
            del d
    return n, t_parse, t_arrays


def read_npy(folder):
    import numpy as np
    t0 = time.perf_counter()
    with open(os.path.join(folder, "index.json")) as f:
        index = json.load(f)
    mapped = [np.load(os.path.join(folder, a["file"]), mmap_mode="r")
              for g in index["fields"] for a in g["arrays"]]
    t_mmap = time.perf_counter() - t0
    del mapped
    t0 = time.perf_counter()
    for g in index["fields"]:
        for a in g["arrays"]:
            x = np.load(os.path.join(folder, a["file"]))
            del x
    t_full = time.perf_counter() - t0
    return t_mmap, t_full


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--width", type=int, default=1920)
    ap.add_argument("--height", type=int, default=1080)
    ap.add_argument("--partitions", default="all")
    ap.add_argument("--frames", type=int, default=200,
                    help="frames written per format (npy: 10x as many)")
    ap.add_argument("--read-frames", type=int, default=1000,
                    help="frames of the exports read back (0: no reading)")
    ap.add_argument("--formats", default="jsonl,csv,npy")
    ap.add_argument("--cores", default="0",
                    help="CPU cores to run on while writing, e.g. 0 or 0,1")
    ap.add_argument("--dir", default="/dev/shm" if os.path.isdir("/dev/shm")
                    else None)
    args = ap.parse_args()

    Gst.init(None)
    buf, caps = make_field(args.width, args.height, args.partitions, 3)
    cores = {int(c) for c in args.cores.split(",")}
    os.sched_setaffinity(0, cores)
    cpu = next((ln.split(":", 1)[1].strip()
                for ln in open("/proc/cpuinfo") if ln.startswith("model name")),
               platform.processor())
    print(f"# {args.width}x{args.height}, partitions={args.partitions}, "
          f"cores {sorted(cores)} of {cpu}, folder {args.dir}")
    print("format  frames  seconds  frames/s  MB/frame  vs jsonl  "
          "user ms/frame  system ms/frame  user vs jsonl")
    work = tempfile.mkdtemp(prefix="export-bench-", dir=args.dir)
    fps = {}
    usr = {}
    try:
        for fmt in args.formats.split(","):
            n = args.frames * (10 if fmt == "npy" else 1)
            loc = os.path.join(work, "out." + fmt)
            run_export(buf, caps, fmt, loc, 2)        # warm up
            shutil.rmtree(loc, ignore_errors=True) if fmt == "npy" \
                else os.unlink(loc)
            t, user, system = run_export(buf, caps, fmt, loc, n)
            mb = size_of(loc) / n / 1e6
            fps[fmt] = n / t
            usr[fmt] = user / n
            ratio = (f"{fps[fmt] / fps['jsonl']:.1f}x" if "jsonl" in fps
                     else "")
            uratio = (f"{usr['jsonl'] / usr[fmt]:.1f}x" if "jsonl" in usr
                      else "")
            print(f"{fmt:6} {n:7} {t:8.2f} {n / t:9.1f} {mb:9.2f}  "
                  f"{ratio:8}  {user / n * 1e3:13.2f}  "
                  f"{system / n * 1e3:15.2f}  {uratio}")
            shutil.rmtree(loc, ignore_errors=True) if fmt == "npy" \
                else os.unlink(loc)

        if args.read_frames:
            os.sched_setaffinity(0, set(range(os.cpu_count())))
            n = args.read_frames
            print(f"# reading {n} frames back")
            loc = os.path.join(work, "read.jsonl")
            run_export(buf, caps, "jsonl", loc, n)
            lines, t_parse, t_arrays = read_jsonl(loc)
            mb = size_of(loc) / 1e6
            os.unlink(loc)
            print(f"jsonl: {mb:.0f} MB, json.loads of {lines} lines "
                  f"{t_parse:.2f} s, then np.array of their lists "
                  f"{t_arrays:.2f} s")
            loc = os.path.join(work, "read.npy")
            run_export(buf, caps, "npy", loc, n)
            t_mmap, t_full = read_npy(loc)
            mb = size_of(loc) / 1e6
            shutil.rmtree(loc)
            print(f"npy:   {mb:.0f} MB, np.load mmap_mode='r' of every "
                  f"array {t_mmap * 1e3:.1f} ms, np.load into memory "
                  f"{t_full:.2f} s; json.loads / np.load "
                  f"{t_parse / t_full:.0f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
