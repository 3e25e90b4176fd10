#!/usr/bin/env python3
"""End to end: gpumotionest -> mvexport (JSON Lines and CSV) -> parsed back.

    export_roundtrip.py SCRATCH_DIR

Runs a moving texture through gpumotionest (two shapes, with the partition
decision) and two mvexport elements, one per format, into an appsink; reads
every buffer's meta through GObject introspection and checks that both files
hold exactly the same frames, fields, cells and decisions, parsed with
Python's own json and csv modules; a third (summary=true) adds each frame's
motion summary, which must read back as the meta's, number for number.
Then the same through a videoscale to half size, where the files must hold
the rescaled vectors of the scaled meta.  Exits non-zero on the first
difference.
"""

import csv
import json
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import Gst, GstMotionVectors as MV  # noqa: E402

import numpy as np  # noqa: E402

CELL = np.dtype([("mv_x", "=i2"), ("mv_y", "=i2"), ("cost", "=u4"),
                 ("pred_x", "=i2"), ("pred_y", "=i2"),
                 ("mvd_x", "=i2"), ("mvd_y", "=i2")])
SUMMARY_NUMBERS = ["global_x", "global_y", "zoom", "rotation",
                   "global_share", "moving_share", "unmatched_share",
                   "scene_change", "mean_cost", "median_cost", "blocks"]
SHAPES = ["16x16", "16x8", "8x16", "8x8", "8x4", "4x8", "4x4"]
SIZES = [(16, 16), (16, 8), (8, 16), (8, 8), (8, 4), (4, 8), (4, 4)]

W, H, N = 200, 120, 6          # frame size (not multiples of 16), frames
MOTION = (3, -2)               # content moves by this many px per frame


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def frames():
    """I420 frames of a seeded smooth random texture moving by MOTION."""
    rng = np.random.default_rng(7)
    big_w, big_h = W + 8 * N, H + 8 * N
    coarse = rng.integers(0, 256, size=(big_h // 4 + 2, big_w // 4 + 2))
    tex = (np.kron(coarse, np.ones((4, 4)))[:big_h, :big_w] * 0.8
           + rng.integers(0, 40, size=(big_h, big_w))).astype(np.uint8)
    chroma = np.full(2 * (W // 2) * (H // 2), 128, np.uint8).tobytes()
    for n in range(N):
        x0, y0 = 4 * N - MOTION[0] * n, 4 * N - MOTION[1] * n
        yield tex[y0:y0 + H, x0:x0 + W].tobytes() + chroma


def run(scratch, scaled):
    tag = "scaled" if scaled else "plain"
    jpath = os.path.join(scratch, f"export-{tag}.jsonl")
    cpath = os.path.join(scratch, f"export-{tag}.csv")
    spath = os.path.join(scratch, f"export-{tag}-summary.jsonl")
    scale = ("videoscale ! video/x-raw,width=100,height=60 ! "
             if scaled else "")
    pipeline = Gst.parse_launch(
        f"appsrc name=src format=time caps=video/x-raw,format=I420,"
        f"width={W},height={H},framerate=30/1 ! "
        f"gpumotionest backend=cpu partitions=16x16+8x4 mode-decision=true "
        f"lambda=4 summary=true ! {scale}"
        f"mvexport location={jpath} ! "
        f"mvexport location={cpath} format=csv ! "
        f"mvexport location={spath} summary=true ! "
        f"appsink name=sink sync=false")
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    for n, data in enumerate(frames()):
        buf = Gst.Buffer.new_wrapped(data)
        buf.pts = n * Gst.SECOND // 30
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")

    pipeline.set_state(Gst.State.PLAYING)
    metas = []
    while True:
        sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
        if sample is None:
            break
        buf = sample.get_buffer()
        meta = MV.buffer_get_motion_vector_meta(buf)
        check(meta is not None, f"{tag}: buffer without meta")
        layers = {}
        for p in range(7):
            if meta.partitions & (1 << p):
                data, cols, rows = meta.get_grid_bytes(MV.MotionVectorPartition(p))
                layers[SHAPES[p]] = (cols, rows, np.frombuffer(
                    data.get_data(), dtype=CELL).copy())
        mdata, mcols, mrows = meta.get_modes_bytes()
        check(mdata is not None, f"{tag}: buffer without modes")
        modes = np.frombuffer(mdata.get_data(), np.uint8).reshape(mrows, mcols)
        ok, su = meta.get_summary()
        check(ok, f"{tag}: buffer without summary")
        metas.append({
            "summary": {k: getattr(su, k) for k in SUMMARY_NUMBERS},
            "summary_flags": int(su.flags),
            "modes": modes.copy(),
            "pts": buf.pts, "width": meta.width, "height": meta.height,
            "aw": meta.analysis_width, "ah": meta.analysis_height,
            "has_ref": not (meta.flags
                            & MV.MotionVectorMetaFlags.NO_REFERENCE),
            "ref_distance": meta.ref_distance, "ref_pts": meta.ref_pts,
            "search_range": meta.search_range, "layers": layers})
    check(sink.get_property("eos"), f"{tag}: pipeline did not reach EOS")
    pipeline.set_state(Gst.State.NULL)   # closes the files
    check(len(metas) == N, f"{tag}: {len(metas)} buffers, wanted {N}")
    check(metas[-1]["layers"]["16x16"][2]["mv_x"].any(),
          f"{tag}: no motion found at all")

    # ---- JSON Lines --------------------------------------------------
    with open(jpath) as f:
        lines = [json.loads(line) for line in f]
    check(len(lines) == N, f"{tag}: {len(lines)} JSON lines, wanted {N}")
    for n, (d, m) in enumerate(zip(lines, metas)):
        where = f"{tag} jsonl frame {n}"
        check(d["frame"] == n and d["pts"] == m["pts"], f"{where}: frame/pts")
        check((d["width"], d["height"]) == (m["width"], m["height"]),
              f"{where}: size")
        check((d["analysis_width"], d["analysis_height"]) == (m["aw"], m["ah"]),
              f"{where}: analysis size")
        check(d["has_reference"] == m["has_ref"], f"{where}: has_reference")
        check(d["ref_distance"] == m["ref_distance"], f"{where}: ref_distance")
        want_ref = None if m["ref_pts"] == Gst.CLOCK_TIME_NONE else m["ref_pts"]
        check(d["ref_pts"] == want_ref, f"{where}: ref_pts")
        check(d["search_range"] == m["search_range"] and d["method"] == "full",
              f"{where}: search_range/method")
        check([L["shape"] for L in d["layers"]] == list(m["layers"]),
              f"{where}: shapes {[L['shape'] for L in d['layers']]}")
        check(d["modes"] == [SHAPES[v] for v in m["modes"].ravel()],
              f"{where}: modes")
        for L in d["layers"]:
            cols, rows, cells = m["layers"][L["shape"]]
            check((L["cols"], L["rows"]) == (cols, rows), f"{where}: grid")
            inter = lambda a, b: np.stack([cells[a], cells[b]], -1).ravel()
            check(np.array_equal(L["mv"], inter("mv_x", "mv_y")),
                  f"{where} {L['shape']}: mv")
            check(np.array_equal(L["cost"], cells["cost"]),
                  f"{where} {L['shape']}: cost")
            check(np.array_equal(L["pred"], inter("pred_x", "pred_y")),
                  f"{where} {L['shape']}: pred")
            check(np.array_equal(L["mvd"], inter("mvd_x", "mvd_y")),
                  f"{where} {L['shape']}: mvd")

    # ---- CSV ---------------------------------------------------------
    with open(cpath, newline="") as f:
        rows = list(csv.DictReader(f))
    want_rows = sum(c * r for m in metas for c, r, _ in m["layers"].values())
    check(len(rows) == want_rows, f"{tag}: {len(rows)} CSV rows, "
          f"wanted {want_rows}")
    it = iter(rows)
    for n, m in enumerate(metas):
        for shape, (cols, rows_, cells) in m["layers"].items():
            bw, bh = SIZES[SHAPES.index(shape)]
            sx, sy = m["width"] / m["aw"], m["height"] / m["ah"]
            for i in range(cols * rows_):
                row = next(it)
                c, r = i % cols, i // cols
                where = f"{tag} csv frame {n} {shape} ({c},{r})"
                check(int(row["frame"]) == n and int(row["pts"]) == m["pts"],
                      f"{where}: frame/pts")
                check(row["shape"] == shape and int(row["col"]) == c
                      and int(row["row"]) == r, f"{where}: position")
                # top-left corner and size at the meta's size
                x0, x1 = int(c * bw * sx), int((c + 1) * bw * sx)
                y0, y1 = int(r * bh * sy), int((r + 1) * bh * sy)
                check((int(row["x"]), int(row["y"]), int(row["w"]),
                       int(row["h"])) == (x0, y0, x1 - x0, y1 - y0),
                      f"{where}: block {row['x']},{row['y']} "
                      f"{row['w']}x{row['h']}")
                for k in CELL.names:
                    check(int(row[k]) == int(cells[k][i]), f"{where}: {k}")
                mode = m["modes"][r * bh // 16, c * bw // 16]
                check(row["chosen"] == ("1" if SHAPES[mode] == shape
                                        else "0"), f"{where}: chosen")
    check(next(it, None) is None, f"{tag}: extra CSV rows")

    # ---- the summary -------------------------------------------------
    with open(spath) as f:
        slines = [json.loads(line) for line in f]
    check(len(slines) == N, f"{tag}: {len(slines)} summary lines")
    for n, (d, plain, m) in enumerate(zip(slines, lines, metas)):
        where = f"{tag} summary frame {n}"
        s = d.pop("summary")
        check(d == plain, f"{where}: the rest differs from the plain line")
        for k in SUMMARY_NUMBERS:
            check(s[k] == m["summary"][k],
                  f"{where}: {k} {s[k]!r} != {m['summary'][k]!r}")
        check(s["has_reference"] == m["has_ref"], f"{where}: has_reference")
        check(s["scene_cut"] == bool(m["summary_flags"] & 8),
              f"{where}: scene_cut")
        check(s["version"] == 1 and s["grid"] == "16x16", f"{where}: header")
    return metas


def main():
    scratch = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(scratch, exist_ok=True)
    Gst.init(None)
    plain = run(scratch, scaled=False)
    # The content moves by (+3,-2): the vector is (-3,+2) px = (-12,+8)
    # quarter-pel, on most 16x16 blocks of every frame with a reference.
    for m in plain[1:]:
        cells = m["layers"]["16x16"][2]
        share = np.mean((cells["mv_x"] == -12) & (cells["mv_y"] == 8))
        check(share > 0.6, f"plain: only {share:.2f} of blocks at (-12,+8)")
    scaled = run(scratch, scaled=True)
    # Halving the frame halves the vectors: -12 -> -6, 8 -> 4 quarter-pel.
    for a, b in zip(plain, scaled):
        check((b["width"], b["height"]) == (100, 60), "scaled: size")
        pa = a["layers"]["16x16"][2]
        pb = b["layers"]["16x16"][2]
        check(np.array_equal(pb["cost"], pa["cost"]), "scaled: cost kept")
        half = lambda v: np.where(v >= 0, (v + 1) // 2, -((-v + 1) // 2))
        check(np.array_equal(pb["mv_x"], half(pa["mv_x"].astype(int))),
              "scaled: mv_x halved")
        check(np.array_equal(a["modes"], b["modes"]), "scaled: modes kept")
        # the summary's translation is rescaled like the vectors, the rest
        # kept
        sa, sb = a["summary"], b["summary"]
        check(sb["global_x"] == sa["global_x"] * 100 / 200
              and sb["global_y"] == sa["global_y"] * 60 / 120,
              f"scaled: global motion {sb['global_x']},{sb['global_y']} "
              f"from {sa['global_x']},{sa['global_y']}")
        check(all(sb[k] == sa[k] for k in SUMMARY_NUMBERS[2:]),
              "scaled: summary kept")
    # Both shapes are chosen somewhere (the content is not uniform at the
    # frame's edges and in flat noise).
    chosen = set(int(v) for m in plain[1:] for v in m["modes"].ravel())
    check(chosen == {0, 4}, f"plain: shapes chosen {chosen}")
    # The pan's summary: (-12, +8) quarter pels, found on most blocks.
    for m in plain[2:]:
        su = m["summary"]
        check(abs(su["global_x"] + 12) < 0.5 and abs(su["global_y"] - 8) < 0.5
              and su["global_share"] > 0.6,
              f"plain: summary {su['global_x']},{su['global_y']} "
              f"share {su['global_share']}")
    print(f"PASS: {len(plain)} frames x 2 shapes, their partition "
          "decision and summary, plain and scaled to half, JSON Lines and "
          "CSV equal to the metas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
