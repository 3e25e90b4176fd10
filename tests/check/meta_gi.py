#!/usr/bin/env python3
# gpumotionest — the motion-vector meta through GObject introspection.
#
# Run with GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing at the build
# directory of gst/motionvectors.  Builds a field in numpy, attaches it to a
# buffer, and reads it back through the typelib: fields, enums, the grid
# bytes as a structured numpy array, one cell, the AVMotionVector records
# and a buffer copy; the layout one shape at a time; a meta edited into
# inconsistency; grid bytes outliving their buffer; a partition decision
# set, read back, kept by a copy and turned into records; three fields of
# one buffer by place and by reference; stereo video's fields by view and
# reference, and the inter-view flag; the reference each block chose,
# set, read back and turned into records of the fields chosen.  Exits
# non-zero on the first mismatch.

import gc
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

    check_layout(parts, n16, n8)
    check_enum()
    check_inconsistent(buf, p8)
    check_bytes_outlive_buffer(parts, cells, n16)
    check_modes(parts, cells, n16)
    check_several_refs(parts, cells)
    check_views(parts, cells)
    check_chosen_refs(parts, cells, n16)

    print("ok: GstMotionVectors typelib, %d+%d cells read back" % (n16, n8))


def check_layout(parts, n16, n8):
    # gst_motion_vector_layout() takes a caller-allocated array of seven
    # structures, which PyGObject allocates too small (C wrote past its
    # end): it is C only, and bindings ask one shape at a time.
    check(not hasattr(MV, "motion_vector_layout"),
          "motion_vector_layout is hidden from bindings")
    p16 = getattr(MV.MotionVectorPartition, "16X16")
    p8 = getattr(MV.MotionVectorPartition, "8X8")
    p4 = getattr(MV.MotionVectorPartition, "4X4")
    check(tuple(MV.motion_vector_layout_grid(40, 20, parts, p16)) ==
          (n16 + n8, 3, 2, 0), "layout of 16x16")
    check(tuple(MV.motion_vector_layout_grid(40, 20, parts, p8)) ==
          (n16 + n8, 6, 4, n16), "layout of 8x8")
    check(tuple(MV.motion_vector_layout_grid(40, 20, parts, p4)) ==
          (n16 + n8, 0, 0, 0), "absent 4x4 has no grid")
    # All seven shapes over 1920x1080: 41 cells per macroblock.
    allp = MV.MotionVectorPartitionFlags(0x7f)
    offset = 0
    for p in range(7):
        n, cols, rows, off = MV.motion_vector_layout_grid(
            1920, 1080, allp, MV.MotionVectorPartition(p))
        check(n == 120 * 68 * 41, "total of the full layout")
        check(off == offset, "offset of shape %d" % p)
        offset += cols * rows
    check(offset == 120 * 68 * 41, "grids add up")
    # Sizes beyond the limit have no layout (and no overflow).
    big = MV.MOTION_VECTOR_MAX_SIZE + 1
    check(MV.MOTION_VECTOR_MAX_SIZE == 8192, "size limit")
    check(tuple(MV.motion_vector_layout_grid(big, 16, allp, p16)) ==
          (0, 0, 0, 0), "no layout beyond the limit")
    check(tuple(MV.motion_vector_layout_grid(2 ** 32 - 1, 2 ** 32 - 1, allp,
                                             p4)) == (0, 0, 0, 0),
          "no layout for the largest guint")


def check_enum():
    # COUNT is not a shape and is not part of the enum's GType.
    values = MV.MotionVectorPartition.__enum_values__
    check(sorted(values) == list(range(7)), "seven shapes, got %r" %
          sorted(values))
    check(not hasattr(MV.MotionVectorPartition, "COUNT"), "no COUNT member")


def check_inconsistent(buf, p8):
    meta = MV.buffer_get_motion_vector_meta(buf)
    check(meta.is_valid(), "meta is valid")
    saved = meta.analysis_height
    # The fields are writable; readers must not trust them.
    meta.analysis_height = 0
    check(not meta.is_valid(), "analysis_height 0 is inconsistent")
    data, cols, rows = meta.get_grid_bytes(p8)
    check(data is None and (cols, rows) == (0, 0), "no grid bytes")
    check(meta.get_cell(p8, 0, 0) is None, "no cell")
    check(not meta.to_av_records(p8), "no records")
    # (the copy is kept in a variable: its meta dies with it)
    copy = buf.copy_deep()
    cmeta = MV.buffer_get_motion_vector_meta(copy)
    check(cmeta is not None and not cmeta.is_valid(),
          "a copy keeps the meta as it is")
    meta.analysis_height = saved
    check(meta.is_valid(), "valid again")
    meta.partitions = MV.MotionVectorPartitionFlags(0x7f)
    check(not meta.is_valid(), "shapes not in the data")
    check(meta.get_grid_bytes(getattr(MV.MotionVectorPartition, "4X4"))[0]
          is None, "no 4x4 grid")
    meta.partitions = (getattr(MV.MotionVectorPartitionFlags, "16X16") |
                       getattr(MV.MotionVectorPartitionFlags, "8X8"))
    check(meta.is_valid(), "valid once more")


def check_bytes_outlive_buffer(parts, cells, n16):
    # The meta lives inside its buffer and dies with it; the GBytes of
    # get_grid_bytes() holds its own reference to the cells.
    buf = Gst.Buffer.new_allocate(None, 64, None)
    meta = MV.buffer_add_motion_vector_meta(buf, 40, 20, parts,
                                            GLib.Bytes.new(cells.tobytes()))
    data, cols, rows = meta.get_grid_bytes(
        getattr(MV.MotionVectorPartition, "16X16"))
    del meta, buf
    gc.collect()
    grid = np.frombuffer(data.get_data(), dtype=CELL_DTYPE)
    check(np.array_equal(grid, cells[:n16]), "grid bytes outlive the buffer")


def check_modes(parts, cells, n16):
    # 40x20 is 3 x 2 macroblocks; each gets one byte, a
    # GstMotionVectorPartition value present in the meta.
    buf = Gst.Buffer.new_allocate(None, 64, None)
    meta = MV.buffer_add_motion_vector_meta(buf, 40, 20, parts,
                                            GLib.Bytes.new(cells.tobytes()))
    has = MV.MotionVectorMetaFlags.HAS_MODES
    data, cols, rows = meta.get_modes_bytes()
    check(data is None and (cols, rows) == (0, 0), "no modes yet")
    check(not (meta.flags & has), "no has-modes flag yet")
    check(not meta.to_av_records_chosen(), "no chosen records yet")
    check(not hasattr(meta, "get_modes"), "get_modes is C only")

    want = np.array([[0, 3, 3], [0, 3, 0]], dtype=np.uint8)
    check(meta.set_modes(GLib.Bytes.new(want.tobytes())), "set_modes")
    check(meta.flags & has, "has-modes flag")
    check(meta.is_valid(), "valid with modes")
    data, cols, rows = meta.get_modes_bytes()
    check((cols, rows) == (3, 2), "modes grid 3x2, got %r" % ((cols, rows),))
    modes = np.frombuffer(data.get_data(), dtype=np.uint8).reshape(rows, cols)
    check(np.array_equal(modes, want), "modes read back")
    check(modes[0, 1] == int(getattr(MV.MotionVectorPartition, "8X8")),
          "values are partitions")
    check(meta.modes.get_data() == want.tobytes(), "modes field")
    # refused: a shape the meta lacks (4x4), a size that is not 3 x 2
    check(not meta.set_modes(GLib.Bytes.new(bytes([0, 6, 0, 0, 0, 0]))),
          "absent shape refused")
    check(not meta.set_modes(GLib.Bytes.new(bytes(5))), "short refused")
    check(meta.get_modes_bytes()[0].get_data() == want.tobytes(),
          "refusals keep the modes")

    # The records of one shape: its macroblocks only; of the decision: 1 +
    # 4 + 4 + 1 + 4 + 1 blocks, macroblock by macroblock.
    check(len(meta.to_av_records(getattr(MV.MotionVectorPartition, "16X16")))
          == 3, "16x16 records of the three 16x16 macroblocks")
    recs = meta.to_av_records_chosen()
    check(len(recs) == 15, "chosen records")
    check([(r.w, r.h) for r in recs[:2]] == [(16, 16), (8, 8)],
          "first macroblock 16x16, second 8x8")
    check((recs[1].dst_x, recs[1].dst_y) == (20, 4), "8x8 block (2, 0)")
    check(recs[1].motion_x == int(cells[n16 + 2]["mv_x"]), "its vector")

    copy = buf.copy()
    cmeta = MV.buffer_get_motion_vector_meta(copy)
    check(cmeta.get_modes_bytes()[0].get_data() == want.tobytes(),
          "a copy keeps the modes")

    check(meta.set_modes(None), "set_modes(None)")
    check(not (meta.flags & has) and meta.modes is None, "modes removed")
    del cmeta, copy


def check_several_refs(parts, cells):
    # One field per reference, as gpumotionest references=-1,-2,+1 attaches
    # them: reached by place and by reference through the typelib, in the
    # order they were added, on the buffer and on a copy.
    buf = Gst.Buffer.new_allocate(None, 64, None)
    check(MV.buffer_get_n_motion_vector_metas(buf) == 0, "no field yet")
    check(MV.buffer_get_motion_vector_meta_nth(buf, 0) is None, "nth: None")
    refs = [(-1, 3 * Gst.SECOND), (-2, 2 * Gst.SECOND),
            (1, Gst.CLOCK_TIME_NONE)]
    fields = []
    for k, (d, pts) in enumerate(refs):
        f = cells.copy()
        f["cost"] += 1000 * k             # each field its own cells
        fields.append(f)
        m = MV.buffer_add_motion_vector_meta(buf, 40, 20, parts,
                                             GLib.Bytes.new(f.tobytes()))
        m.ref_distance, m.ref_pts = d, pts
    for b in (buf, buf.copy()):
        check(MV.buffer_get_n_motion_vector_metas(b) == 3, "three fields")
        got = [MV.buffer_get_motion_vector_meta_nth(b, k) for k in range(3)]
        check([(m.ref_distance, m.ref_pts) for m in got] == refs,
              "fields in the order added: %r"
              % [(m.ref_distance, m.ref_pts) for m in got])
        for k, m in enumerate(got):
            data, _, _ = m.get_grid_bytes(MV.MotionVectorPartition(0))
            check(data.get_data() == fields[k][:6].tobytes(),
                  "field %d has its own cells" % k)
        check(MV.buffer_get_motion_vector_meta_nth(b, 3) is None,
              "nth past the end: None")
        check(MV.buffer_get_motion_vector_meta(b).ref_distance == -1,
              "the first field")
        for d, pts in refs:
            m = MV.buffer_get_motion_vector_meta_for_reference(b, d)
            check(m is not None and (m.ref_distance, m.ref_pts) == (d, pts),
                  "field against %+d" % d)
        for d in (0, -3, 2):
            check(MV.buffer_get_motion_vector_meta_for_reference(b, d)
                  is None, "no field against %+d" % d)


def check_views(parts, cells):
    # Stereo video's fields through the typelib: the view field (0 on a
    # new meta), the INTER_VIEW flag, and the lookup by view and
    # reference, in side-by-side's order (view 0 against -1, view 1
    # against -1, view 1's disparity), on the buffer and on a copy.
    inter = MV.MotionVectorMetaFlags.INTER_VIEW
    check(int(inter) == 1 << 5, "INTER_VIEW is 1 << 5")
    buf = Gst.Buffer.new_allocate(None, 64, None)
    want = [(0, -1, 0), (1, -1, 0), (1, 0, inter)]
    for k, (view, d, flags) in enumerate(want):
        f = cells.copy()
        f["cost"] += 1000 * k
        m = MV.buffer_add_motion_vector_meta(buf, 40, 20, parts,
                                             GLib.Bytes.new(f.tobytes()))
        check(m.view == 0, "a new meta is of view 0")
        m.view, m.ref_distance, m.flags = view, d, flags
    for b in (buf, buf.copy()):
        got = [MV.buffer_get_motion_vector_meta_nth(b, k) for k in range(3)]
        check([(m.view, m.ref_distance, int(m.flags)) for m in got] ==
              [(v, d, int(f)) for v, d, f in want],
              "views, references and flags kept: %r"
              % [(m.view, m.ref_distance, int(m.flags)) for m in got])
        check([m.is_valid() for m in got] == [True] * 3,
              "every field consistent, the disparity with ref_distance 0")
        for k, (view, d, _) in enumerate(want):
            m = MV.buffer_get_motion_vector_meta_for_view(b, view, d)
            check(m is not None, "for_view(%d, %+d) finds a field"
                  % (view, d))
            data, _, _ = m.get_grid_bytes(MV.MotionVectorPartition(0))
            check(data.get_data()[4:8] == (cells["cost"][0] + 1000 * k)
                  .astype("=u4").tobytes(),
                  "for_view(%d, %+d): field %d" % (view, d, k))
        for view, d in ((0, 0), (0, -2), (2, -1)):
            check(MV.buffer_get_motion_vector_meta_for_view(b, view, d)
                  is None, "no field of view %d against %+d" % (view, d))
        # for_reference() knows no views: the first field against -1
        check(MV.buffer_get_motion_vector_meta_for_reference(b, -1).view
              == 0, "for_reference(-1): view 0's")
    # the flag without ref_distance 0, or 0 without the flag: inconsistent
    m = MV.buffer_get_motion_vector_meta_nth(buf, 2)
    m.ref_distance = -1
    check(not m.is_valid(), "inter-view against -1: inconsistent")
    m.ref_distance, m.flags = 0, 0
    check(not m.is_valid(), "ref_distance 0 without INTER_VIEW: inconsistent")


def check_chosen_refs(parts, cells, n16):
    # A buffer searched against -1, -2, +1; the first field carries the
    # partition decision and the reference of every partition, one value
    # per 4x4 block (12 x 8 over 40x20).  Each field's mv_x is biased by
    # 100 x its distance, so a record shows which field it came from.
    buf = Gst.Buffer.new_allocate(None, 64, None)
    dists = (-1, -2, 1)
    fields = []
    for d in dists:
        f = cells.copy()
        f["mv_x"] += 100 * d
        fields.append(f)
        m = MV.buffer_add_motion_vector_meta(buf, 40, 20, parts,
                                             GLib.Bytes.new(f.tobytes()))
        m.ref_distance = d
    meta = MV.buffer_get_motion_vector_meta(buf)
    has = MV.MotionVectorMetaFlags.HAS_CHOSEN_REFS
    check(int(has) == 1 << 4, "HAS_CHOSEN_REFS is 1 << 4")
    data, cols, rows = meta.get_chosen_refs_bytes()
    check(data is None and (cols, rows) == (0, 0), "no chosen refs yet")
    check(not hasattr(meta, "get_chosen_refs"), "get_chosen_refs is C only")
    modes = np.array([[0, 3, 3], [0, 3, 0]], dtype=np.uint8)
    check(meta.set_modes(GLib.Bytes.new(modes.tobytes())), "set_modes")
    # MB (0, 0) from -2, the four 8x8 of MB (1, 0) from +1 -1 / -1 -2,
    # everything else from -1
    refs = np.full((8, 12), -1, dtype=np.int8)
    refs[0:4, 0:4] = -2
    refs[0:2, 4:6] = 1
    refs[2:4, 6:8] = -2
    check(meta.set_chosen_refs(GLib.Bytes.new(refs.tobytes())),
          "set_chosen_refs")
    check(meta.flags & has, "has-chosen-refs flag")
    check(meta.is_valid(), "valid with chosen refs")
    data, cols, rows = meta.get_chosen_refs_bytes()
    check((cols, rows) == (12, 8), "12 x 8 blocks, got %r" % ((cols, rows),))
    got = np.frombuffer(data.get_data(), dtype=np.int8).reshape(rows, cols)
    check(np.array_equal(got, refs), "chosen refs read back")
    check(meta.chosen_refs.get_data() == refs.tobytes(), "chosen_refs field")
    # refused: a 0, one value per macroblock
    bad = refs.copy()
    bad[7, 11] = 0
    check(not meta.set_chosen_refs(GLib.Bytes.new(bad.tobytes())),
          "0 refused")
    check(not meta.set_chosen_refs(GLib.Bytes.new(bytes(6))),
          "macroblock size refused")
    check(meta.get_chosen_refs_bytes()[0].get_data() == refs.tobytes(),
          "refusals keep the chosen refs")

    # The decided field: 1 + 4 + 4 + 1 + 4 + 1 records, each the cell of
    # its partition in the field of its reference.
    want = [(0, 0, 0, -2)]
    want += [(3, c, r, refs[2 * r, 2 * c]) for r in (0, 1) for c in (2, 3)]
    want += [(3, c, r, -1) for r in (0, 1) for c in (4, 5)]
    want += [(0, 0, 1, -1)]
    want += [(3, c, r, -1) for r in (2, 3) for c in (2, 3)]
    want += [(0, 2, 1, -1)]
    recs = MV.buffer_motion_vector_to_av_records_chosen(buf)
    check(len(recs) == 15, "15 chosen records, got %d" % len(recs))
    for rec, (shape, c, r, d) in zip(recs, want):
        k = dists.index(d)
        cell = fields[k][c + 3 * r] if shape == 0 else \
            fields[k][n16 + c + 6 * r]
        check(rec.motion_x == int(cell["mv_x"]) and
              rec.source == (-1 if d < 0 else 1) and
              rec.w == (16 if shape == 0 else 8),
              "record of shape %d (%d, %d) from %+d: motion_x %d, source %d"
              % (shape, c, r, d, rec.motion_x, rec.source))
    check(recs[1].motion_x == int(cells[n16 + 2]["mv_x"]) + 100,
          "8x8 (2, 0) from +1")
    # the meta's own: the first field's vectors everywhere
    own = meta.to_av_records_chosen()
    check([r.motion_x for r in own][:2] ==
          [int(fields[0][0]["mv_x"]), int(fields[0][n16 + 2]["mv_x"])],
          "the meta's own records")

    copy = buf.copy()
    cmeta = MV.buffer_get_motion_vector_meta(copy)
    check(cmeta.get_chosen_refs_bytes()[0].get_data() == refs.tobytes(),
          "a copy keeps the chosen refs")
    check(meta.set_chosen_refs(None), "set_chosen_refs(None)")
    check(not (meta.flags & has) and meta.chosen_refs is None,
          "chosen refs removed")
    check([r.motion_x for r in
           MV.buffer_motion_vector_to_av_records_chosen(buf)] ==
          [r.motion_x for r in own], "without: the meta's own records")
    del cmeta, copy


if __name__ == "__main__":
    main()
