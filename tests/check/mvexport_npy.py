#!/usr/bin/env python3
# gpumotionest — mvexport format=npy read back with load_export(): every
# array equals what the overrides give for the metas of the same buffers
# (to_ndarray(), modes, chosen_refs, summary), for every shape, reference,
# view and bit depth; mvstabilize's correction in stabilization.npy equals
# what the CSV and JSON exports of the same buffers write; and a writer
# killed with SIGKILL leaves a folder numpy still loads, up to the last
# whole frame it counted.
#
#   mvexport_npy.py OVERRIDES_DIR
#
# Environment as for overrides_gi.py (GI_TYPELIB_PATH, LD_LIBRARY_PATH,
# PYTHONPATH at OVERRIDES_DIR, the plugin path at the build's gst/).
# Exits non-zero on the first mismatch.

import csv
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import Gst, GstMotionVectors as MV  # noqa: E402

import numpy as np  # noqa: E402

NONE = 2 ** 64 - 1


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def run(launch):
    """Runs @launch (ending in appsink name=sink); the buffers out."""
    p = Gst.parse_launch(launch)
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    bufs = []
    while True:
        s = sink.emit("try-pull-sample", 20 * Gst.SECOND)
        if s is None:
            break
        bufs.append(s.get_buffer())
    msg = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    check(msg is None, "pipeline error: %s" % (msg and msg.parse_error()[1]))
    return bufs


def check_roundtrip(what, caps, element_props, export_props, want_fields,
                    want_bit_depth):
    folder = os.path.join(tempfile.mkdtemp(prefix="mvexport-npy-"), "clip")
    bufs = run("videotestsrc num-buffers=5 pattern=smpte horizontal-speed=2 "
               "! %s ! gpumotionest backend=cpu search-range=8 %s ! "
               "mvexport format=npy location=%s %s ! appsink name=sink "
               "sync=false" % (caps, element_props, folder, export_props))
    check(len(bufs) == 5, "%s: %d buffers" % (what, len(bufs)))
    exp = MV.load_export(folder)
    index = exp.index
    check(index["complete"] is True, "%s: index not complete" % what)
    check(sorted(exp.arrays) == sorted(want_fields),
          "%s: fields %r" % (what, sorted(exp.arrays)))
    seen = {key: 0 for key in exp.arrays}
    shapes = set()
    for k, buf in enumerate(bufs):
        for meta in MV.buffer_get_motion_vector_metas(buf):
            key = (meta.view, meta.ref_distance)
            a = exp.arrays[key]
            row = seen[key]
            seen[key] += 1
            fr = a["frames"][row]
            check(int(fr["frame"]) == k and int(fr["pts"]) == buf.pts,
                  "%s %r row %d: frame %d pts %d" % (what, key, row,
                                                     fr["frame"], fr["pts"]))
            check(int(fr["ref_pts"]) == (meta.ref_pts if meta.ref_pts
                                          != Gst.CLOCK_TIME_NONE else NONE)
                  and int(fr["flags"]) == int(meta.flags)
                  and int(fr["ref_distance"]) == meta.ref_distance
                  and int(fr["view"]) == meta.view
                  and int(fr["partitions"]) == int(meta.partitions),
                  "%s %r row %d: frames record %r" % (what, key, row, fr))
            for p, grid in meta.to_ndarrays().items():
                name = MV.MotionVectorPartition(p).value_nick
                shapes.add(name)
                for q, fx, fy in (("mv", "mv_x", "mv_y"),
                                  ("pred", "pred_x", "pred_y"),
                                  ("mvd", "mvd_x", "mvd_y")):
                    got = a[q][name][row]
                    check(np.array_equal(got[..., 0], grid[fx])
                          and np.array_equal(got[..., 1], grid[fy]),
                          "%s %r row %d %s %s" % (what, key, row, name, q))
                check(np.array_equal(a["cost"][name][row], grid["cost"]),
                      "%s %r row %d %s cost" % (what, key, row, name))
            modes = meta.modes_to_ndarray()
            if modes is not None:
                check(np.array_equal(a["modes"][row], modes),
                      "%s %r row %d modes" % (what, key, row))
            refs = meta.chosen_refs_to_ndarray()
            if refs is not None:
                check(np.array_equal(a["chosen_refs"][row], refs),
                      "%s %r row %d chosen_refs" % (what, key, row))
            elif "chosen_refs" in a:
                check((a["chosen_refs"][row] == -128).all(),
                      "%s %r row %d chosen_refs fill" % (what, key, row))
            summary = meta.summary_to_dict()
            if summary is not None and "summary" in a:
                rec = a["summary"][row]
                for f in ("blocks", "global_x", "global_y", "zoom",
                          "rotation", "scene_change", "mean_cost",
                          "median_cost"):
                    check(rec[f] == summary[f], "%s %r row %d summary %s: "
                          "%r != %r" % (what, key, row, f, rec[f],
                                        summary[f]))
    for key, n in seen.items():
        check(len(exp.arrays[key]["frames"]) == n,
              "%s %r: %d rows, %d fields" % (what, key,
                                            len(exp.arrays[key]["frames"]),
                                            n))
    for field in index["fields"]:
        check(field["bit_depth"] == want_bit_depth,
              "%s: bit_depth %r" % (what, field["bit_depth"]))
        for a in field["arrays"]:
            x = np.load(os.path.join(folder, a["file"]), mmap_mode="r")
            check(list(x.shape) == a["shape"], "%s: %s shape %r, index %r"
                  % (what, a["file"], x.shape, a["shape"]))
    shutil.rmtree(os.path.dirname(folder))
    return shapes


def check_stabilization():
    # gpumotionest ! mvstabilize ! three exports of the same buffers: the
    # NumPy folder and the CSV with stabilization=true, and JSON Lines.
    # stabilization.npy has a row per buffer, each value the CSV's cell
    # and the JSON's number, exactly (an empty cell or null: not finite).
    tmp = tempfile.mkdtemp(prefix="mvexport-npy-")
    folder = os.path.join(tmp, "clip")
    csv_path = os.path.join(tmp, "out.csv")
    json_path = os.path.join(tmp, "out.jsonl")
    bufs = run("videotestsrc num-buffers=12 pattern=smpte horizontal-speed=3 "
               "! video/x-raw,format=I420,width=96,height=64 ! gpumotionest "
               "backend=cpu search-range=8 summary=true subpel=quarter "
               "partitions=16x16 ! mvstabilize backend=cpu lookahead=3 ! "
               "mvexport format=npy stabilization=true quantities=mv "
               "location=%s ! mvexport format=csv stabilization=true "
               "quantities=mv location=%s ! mvexport format=jsonl "
               "quantities=mv location=%s ! appsink name=sink sync=false"
               % (folder, csv_path, json_path))
    check(len(bufs) == 12, "stabilization: %d buffers" % len(bufs))
    exp = MV.load_export(folder)
    st = exp.stabilization
    entry = exp.index["stabilization"]
    check(st is not None and exp.index["complete"] is True
          and exp.index["settings"]["stabilization"] is True,
          "stabilization: no array, or index %r" % entry)
    check(entry["shape"] == [len(bufs)] and len(st) == len(bufs),
          "stabilization: %d rows, index %r" % (len(st), entry["shape"]))
    check(list(st.dtype.names) == list(entry["fields"]),
          "stabilization: fields %r, units of %r" % (st.dtype.names,
                                                    list(entry["fields"])))
    check(np.dtype([tuple(f) for f in entry["dtype"]]) == st.dtype,
          "stabilization: index dtype %r" % entry["dtype"])
    check(np.array_equal(st["frame"], np.arange(len(bufs)))
          and [int(p) for p in st["pts"]] == [b.pts for b in bufs]
          and (st["present"] == 1).all(),
          "stabilization: frame, pts, present %r" % st[["frame", "pts",
                                                          "present"]])
    # mvstabilize's first frame of a segment: not corrected, a new path
    check(st["stab_segment_start"][0] == 1 and st["stab_corrected"][0] == 0
          and (st["stab_crop"] >= 1).all(),
          "stabilization: first row %r" % (st[0],))
    check(st["stab_dx"].any(), "stabilization: no shift on any frame")
    names = [n for n in st.dtype.names if n.startswith("stab_")]
    check(len(names) == 22, "stabilization: %r" % names)

    compared = 0
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            rec = st[int(row["frame"])]
            for n in names:
                cell, v = row[n], rec[n]
                if n == "stab_frame":
                    ok = cell != "" and int(cell) == int(v)
                elif n in ("stab_corrected", "stab_segment_start"):
                    ok = cell in ("0", "1") and int(cell) == int(v)
                elif cell == "":
                    ok = not math.isfinite(v)
                else:
                    ok = float(cell) == float(v)
                check(ok, "stabilization: frame %s %s: CSV %r, npy %r"
                      % (row["frame"], n, cell, v))
                compared += 1
    # a row per 16x16 block, 6 x 4 a frame
    check(compared == 22 * 6 * 4 * len(bufs),
          "stabilization: %d CSV cells" % compared)

    compared = 0
    with open(json_path) as f:
        for line in f:
            obj = json.loads(line)
            rec = st[obj["frame"]]
            stab = obj["stabilization"]
            check(sorted("stab_" + k.replace("-", "_") for k in stab)
                  == sorted(names), "stabilization: JSON keys %r" % stab)
            for k, v in stab.items():
                got = rec["stab_" + k.replace("-", "_")]
                if v is None:
                    ok = not math.isfinite(got)
                elif isinstance(v, bool):
                    ok = int(got) == int(v)
                else:
                    ok = got == v
                check(ok, "stabilization: frame %d %s: JSON %r, npy %r"
                      % (obj["frame"], k, v, got))
                compared += 1
    check(compared == 22 * len(bufs), "stabilization: %d JSON values"
          % compared)
    shutil.rmtree(tmp)


WRITER = r"""
import sys, gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
p = Gst.parse_launch(
    "videotestsrc is-live=true pattern=smpte horizontal-speed=2 ! "
    "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! "
    "gpumotionest backend=cpu search-range=4 partitions=16x16+8x8 ! "
    "mvexport format=npy stabilization=true location=%s ! fakesink")
p.set_state(Gst.State.PLAYING)
p.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.ERROR)
sys.exit(1)
"""


def check_killed():
    # A live 30 frame/s writer, killed (SIGKILL) once a header counts a
    # few frames: every file loads with np.load(mmap_mode="r"), counts no
    # more rows than it holds, and the index says the export is
    # incomplete; load_export gives the fields with the rows they have.
    # With stabilization=true, stabilization.npy (no correction: the
    # fills) is one of the files.
    folder = os.path.join(tempfile.mkdtemp(prefix="mvexport-npy-"), "clip")
    proc = subprocess.Popen([sys.executable, "-c", WRITER % folder])
    frames = os.path.join(folder, "view0_ref-1_frames.npy")
    deadline = time.monotonic() + 30
    counted = 0
    try:
        while time.monotonic() < deadline and counted < 10:
            time.sleep(0.2)
            check(proc.poll() is None, "writer exited: %r" % proc.returncode)
            if os.path.exists(frames):
                counted = len(np.load(frames, mmap_mode="r"))
    finally:
        # also when a check failed: a live writer would run forever
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
    check(counted >= 10, "no header counted 10 frames in 30 s")
    with open(os.path.join(folder, "index.json")) as f:
        index = json.load(f)
    check(index["complete"] is False, "index of a killed writer: complete")
    names = [a["file"] for g in index["fields"] for a in g["arrays"]]
    check(len(names) == 9, "files %r" % names)
    # stabilization.npy too (a row per buffer, none with a correction)
    names.append(index["stabilization"]["file"])
    for name in names:
        path = os.path.join(folder, name)
        x = np.load(path, mmap_mode="r")
        data = os.path.getsize(path) - x.offset
        check(len(x) >= counted - 1 and len(x) * x[0].nbytes <= data,
              "%s: %d rows counted, %d bytes of data" % (name, len(x), data))
        np.array(x)                        # every counted row is readable
    exp = MV.load_export(folder)
    a = exp.arrays[(0, -1)]
    n = len(a["frames"])
    check(n >= counted and all(len(x) == n for x in a["mv"].values()),
          "killed: %d frames, mv %r" % (n, [len(x) for x in
                                            a["mv"].values()]))
    check(np.array_equal(a["frames"]["frame"], np.arange(n)),
          "killed: frame column %r" % a["frames"]["frame"])
    st = exp.stabilization
    check(len(st) >= counted - 1
          and np.array_equal(st["frame"], np.arange(len(st)))
          and not st["present"].any()
          and (st["stab_frame"] == NONE).all()
          and np.isnan(st["stab_dx"]).all(),
          "killed: stabilization %r" % st[:3])
    shutil.rmtree(os.path.dirname(folder))


def check_loaded_from(overrides_dir):
    want = os.path.realpath(os.path.join(overrides_dir, "gi", "overrides",
                                         "GstMotionVectors.py"))
    got = os.path.realpath(sys.modules["gi.overrides.GstMotionVectors"]
                           .__file__)
    check(got == want, "overrides loaded from %s, not %s" % (got, want))


def main():
    Gst.init(None)
    check_loaded_from(sys.argv[1])
    # every shape, three references with both decisions, the summary
    shapes = check_roundtrip(
        "8-bit", "video/x-raw,format=I420,width=96,height=64",
        "partitions=all mode-decision=true summary=true references=-1,-2,+1",
        "summary=true", [(0, -1), (0, -2), (0, 1)], 8)
    check(len(shapes) == 7, "shapes %r" % shapes)
    # 10, 12 and 16 bits a sample
    for fmt, bits in (("I420_10LE", 10), ("I420_12LE", 12),
                      ("GRAY16_LE", 16)):
        check_roundtrip("%d-bit" % bits, "video/x-raw,format=%s,width=64,"
                        "height=48" % fmt, "partitions=16x16+4x4", "",
                        [(0, -1)], bits)
    # stereo video: both views and the disparity
    check_roundtrip("stereo", "video/x-raw,format=GRAY8,width=128,height=48 "
                    "! capssetter caps=video/x-raw,"
                    "multiview-mode=side-by-side",
                    "disparity-range=-4,4 partitions=16x16+8x8", "",
                    [(0, -1), (1, -1), (1, 0)], 8)
    check_stabilization()
    check_killed()
    print("ok: mvexport format=npy")


if __name__ == "__main__":
    main()
