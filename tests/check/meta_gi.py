#!/usr/bin/env python3
# gpumotionest — the motion-vector meta through GObject introspection.
#
# Run with GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing at the build
# directory of gst/motionvectors.  Builds a field in numpy, attaches it to a
# buffer, and reads it back through the typelib: fields, enums, the grid
# bytes as a structured numpy array, one cell, the AVMotionVector records
# and a buffer copy.  Exits non-zero on the first mismatch.

import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import GLib, Gst, GstMotionVectors as MV  # noqa: E402

import numpy as np  # noqa: E402

# One GstMotionVectorCell: 16 bytes, host byte order, quarter-pel vectors.
CELL_DTYPE = np.dtype([("mv_x", "=i2"), ("mv_y", "=i2"), ("cost", "=u4"),
                       ("pred_x", "=i2"), ("pred_y", "=i2"),
                       ("mvd_x", "=i2"), ("mvd_y", "=i2")])


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def main():
    Gst.init(None)
    check(CELL_DTYPE.itemsize == 16, "cell dtype is 16 bytes")

    # 40x20 analysis frame -> 3x2 macroblocks; 16x16 (3x2) and 8x8 (6x4).
    width, height = 40, 20
    # Member names start with a digit ("16X16"), so they are reached with
    # getattr() or by value.
    flags = MV.MotionVectorPartitionFlags
    parts = getattr(flags, "16X16") | getattr(flags, "8X8")
    n16, n8 = 3 * 2, 6 * 4

    cells = np.zeros(n16 + n8, dtype=CELL_DTYPE)
    idx = np.arange(n16 + n8)
    cells["mv_x"] = (idx % 7 - 3) * 4
    cells["mv_y"] = (idx % 5 - 2) * 4
    cells["cost"] = idx * 100
    cells["pred_x"] = 4
    cells["pred_y"] = -4
    cells["mvd_x"] = cells["mv_x"] - cells["pred_x"]
    cells["mvd_y"] = cells["mv_y"] - cells["pred_y"]

    buf = Gst.Buffer.new_allocate(None, width * height * 3 // 2, None)
    meta = MV.buffer_add_motion_vector_meta(buf, width, height, parts,
                                            GLib.Bytes.new(cells.tobytes()))
    check(meta is not None, "meta added")
    meta.ref_distance = -1
    meta.search_range = 16

    got = MV.buffer_get_motion_vector_meta(buf)
    check(got is not None, "meta found on buffer")
    check((got.width, got.height) == (width, height), "width/height")
    check((got.analysis_width, got.analysis_height) == (width, height),
          "analysis size")
    check(got.ref_distance == -1 and got.search_range == 16, "caller fields")
    check(got.ref_pts == Gst.CLOCK_TIME_NONE, "ref_pts default")
    check(got.partitions == parts, "partitions")

    p8 = getattr(MV.MotionVectorPartition, "8X8")
    check(int(p8) == 3 and p8 == MV.MotionVectorPartition(3), "enum by value")
    check(MV.MotionVectorPartition.__gtype__.name == "GstMotionVectorPartition",
          "enum has its GType")

    data, cols, rows = got.get_grid_bytes(p8)
    check((cols, rows) == (6, 4), "8x8 grid is 6x4, got %r" % ((cols, rows),))
    grid = np.frombuffer(data.get_data(), dtype=CELL_DTYPE).reshape(rows, cols)
    check(np.array_equal(grid.ravel(), cells[n16:]), "grid bytes == cells")
    check(np.array_equal(grid["mvd_x"], grid["mv_x"] - grid["pred_x"]),
          "mvd = mv - pred")

    cell = got.get_cell(p8, 2, 1)
    ref = cells[n16 + 1 * 6 + 2]
    check((cell.mv_x, cell.mv_y, cell.cost) ==
          (int(ref["mv_x"]), int(ref["mv_y"]), int(ref["cost"])), "get_cell")

    records = got.to_av_records(p8)
    check(len(records) == n8, "one record per cell")
    rec = records[1 * 6 + 2]
    # 8x8 cell (2, 1) covers x 16..23, y 8..15: centre (20, 12).
    check((rec.dst_x, rec.dst_y, rec.w, rec.h) == (20, 12, 8, 8),
          "record centre and size")
    check((rec.motion_x, rec.motion_y, rec.motion_scale, rec.source) ==
          (int(ref["mv_x"]), int(ref["mv_y"]), 4, -1), "record motion")
    check(rec.src_x == rec.dst_x + int(ref["mv_x"]) // 4, "record src_x")

    copy = buf.copy()
    cmeta = MV.buffer_get_motion_vector_meta(copy)
    check(cmeta is not None and cmeta.search_range == 16, "meta on copy")
    cdata, _, _ = cmeta.get_grid_bytes(p8)
    check(cdata.get_data() == data.get_data(), "copy has the same cells")

    print("ok: GstMotionVectors typelib, %d+%d cells read back" % (n16, n8))


if __name__ == "__main__":
    main()
