#!/usr/bin/env python3
# gpumotionest — the GstMotionVectors Python overrides: a field as numpy
# arrays.
#
#   overrides_gi.py OVERRIDES_DIR
#
# Run with GI_TYPELIB_PATH and LD_LIBRARY_PATH at the build directory of
# gst/motionvectors, PYTHONPATH at OVERRIDES_DIR (the directory holding
# gi/overrides/GstMotionVectors.py; given again as the argument so that a
# copy installed elsewhere, which PyGObject would find first, cannot stand
# in for it) and the plugin path at the build's gst/.  Checks the dtype
# against the C struct, every shape's array against the cells read one by
# one through the C API (a meta built through the API, and the fields of a
# gpumotionest backend=cpu pipeline), a buffer carrying three fields (one
# per reference), the fields of stereo video's two views (made here and by
# a side-by-side pipeline), the partition decision, the motion
# summary against the C struct, that arrays share the meta's memory and
# keep it alive after the buffer is gone, and the module without numpy.
# Exits non-zero on the first mismatch.

import gc
import os
import subprocess
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import GLib, Gst, GstMotionVectors as MV  # noqa: E402

import numpy as np  # noqa: E402

# GstMotionVectorCell as docs/meta.md lays it out.
WANT_DTYPE = np.dtype([("mv_x", "=i2"), ("mv_y", "=i2"), ("cost", "=u4"),
                       ("pred_x", "=i2"), ("pred_y", "=i2"),
                       ("mvd_x", "=i2"), ("mvd_y", "=i2")])
ALL = MV.MotionVectorPartitionFlags(0x7f)


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def nick(p):
    return MV.MotionVectorPartition(p).value_nick


def cells_for(width, height, parts, seed):
    """Distinct cells for a field: vectors of both signs, costs above
    65535 (a 16-bit cost field would wrap)."""
    n = MV.motion_vector_layout_grid(width, height, parts,
                                     MV.MotionVectorPartition(0))[0]
    rng = np.random.default_rng(seed)
    cells = np.zeros(n, dtype=WANT_DTYPE)
    for name in ("mv_x", "mv_y", "pred_x", "pred_y"):
        cells[name] = rng.integers(-512, 512, n)
    cells["cost"] = rng.integers(0, 1 << 24, n)
    cells["mvd_x"] = cells["mv_x"] - cells["pred_x"]
    cells["mvd_y"] = cells["mv_y"] - cells["pred_y"]
    return cells


def add_meta(buf, width, height, parts, cells):
    meta = MV.buffer_add_motion_vector_meta(buf, width, height, parts,
                                            GLib.Bytes.new(cells.tobytes()))
    check(meta is not None, "meta added")
    return meta


def check_against_cells(meta, arrays, what):
    """@arrays (partition -> array) against the meta read cell by cell
    through gst_motion_vector_meta_get_cell(), for every shape."""
    present = [p for p in range(7) if int(meta.partitions) & (1 << p)]
    check(sorted(int(p) for p in arrays) == present,
          "%s: shapes %r, want %r" % (what, sorted(arrays), present))
    for p in present:
        a = arrays[p]
        _, cols, rows, _ = MV.motion_vector_layout_grid(
            meta.analysis_width, meta.analysis_height, meta.partitions,
            MV.MotionVectorPartition(p))
        check(a.shape == (rows, cols) and a.dtype == WANT_DTYPE,
              "%s %s: shape %r, want %r" % (what, nick(p), a.shape,
                                            (rows, cols)))
        for r in range(rows):
            for c in range(cols):
                cell = meta.get_cell(MV.MotionVectorPartition(p), c, r)
                want = (cell.mv_x, cell.mv_y, cell.cost, cell.pred_x,
                        cell.pred_y, cell.mvd_x, cell.mvd_y)
                check(tuple(int(v) for v in a[r, c]) == want,
                      "%s %s cell (%d, %d): %r, want %r"
                      % (what, nick(p), c, r, a[r, c], want))


def check_loaded_from(tree):
    mod = sys.modules.get("gi.overrides.GstMotionVectors")
    check(mod is not None, "the overrides were loaded")
    want = os.path.realpath(os.path.join(tree, "gi", "overrides",
                                         "GstMotionVectors.py"))
    check(os.path.realpath(mod.__file__) == want,
          "overrides from %s, want %s" % (mod.__file__, want))


def check_dtype():
    dt = MV.cell_dtype()
    check(dt == WANT_DTYPE, "dtype %r" % dt)
    check(dt.itemsize == 16 == MV.MotionVectorCell.__info__.get_size(),
          "16 bytes, as the C struct")
    check(tuple(dt.names) == MV.CELL_FIELDS, "field names")
    check([dt.fields[n][1] for n in dt.names] == [0, 2, 4, 8, 10, 12, 14],
          "field offsets")
    check(MV.cell_dtype() is dt, "one dtype object")


def check_api_meta():
    # 40x20: 3 x 2 macroblocks, an edge macroblock column half outside.
    buf = Gst.Buffer.new_allocate(None, 64, None)
    cells = cells_for(40, 20, ALL, 1)
    meta = add_meta(buf, 40, 20, ALL, cells)
    grids = meta.to_ndarrays()
    check_against_cells(meta, grids, "all shapes")
    # The arrays are the cells in layout order, nothing else.
    check(np.array_equal(np.concatenate([grids[p].ravel() for p in
                                         range(7)]), cells),
          "grids in shape order are the data")
    # A shape by its enum, its value, its name.
    p8 = getattr(MV.MotionVectorPartition, "8X8")
    for key in (p8, 3, "8x8", "8X8"):
        check(np.array_equal(meta.to_ndarray(key), grids[p8]),
              "to_ndarray(%r)" % (key,))
    check(grids[3] is not None and list(grids)[3] == p8, "keys are shapes")
    for bad, exc in (("9x9", ValueError), (7, ValueError), (-1, ValueError),
                     (True, TypeError), (3.0, TypeError)):
        try:
            meta.to_ndarray(bad)
            check(False, "to_ndarray(%r) refused" % (bad,))
        except exc:
            pass
    check(meta.modes_to_ndarray() is None, "no modes")
    check(meta.chosen_refs_to_ndarray() is None, "no chosen refs")

    # Two shapes, neither the first: offsets inside the data.
    parts = (getattr(MV.MotionVectorPartitionFlags, "16X8") |
             getattr(MV.MotionVectorPartitionFlags, "4X4"))
    buf2 = Gst.Buffer.new_allocate(None, 64, None)
    meta2 = add_meta(buf2, 40, 20, parts, cells_for(40, 20, parts, 2))
    grids2 = meta2.to_ndarrays()
    check_against_cells(meta2, grids2, "16x8 + 4x4")
    check(meta2.to_ndarray("16x16") is None, "absent shape: None")
    # An inconsistent meta reads as one without grids, as in C.
    meta2.analysis_height = 0
    check(meta2.to_ndarrays() == {} and meta2.to_ndarray("4x4") is None,
          "inconsistent meta: no arrays")
    meta2.analysis_height = 20

    # The field in one call, from the buffer.
    meta.ref_distance = -1
    meta.ref_pts = 5 * Gst.SECOND
    meta.search_range = 24
    f = MV.buffer_get_motion_vector_field(buf)
    check_against_cells(meta, f.grids, "field")
    check((f.ref_distance, f.ref_pts, f.search_range, f.has_reference,
           f.width, f.height, f.analysis_width, f.analysis_height) ==
          (-1, 5 * Gst.SECOND, 24, True, 40, 20, 40, 20), "field scalars")
    check(f.modes is None and f.method == MV.MotionVectorMethod.FULL,
          "field modes and method")
    check(f.chosen_refs is None and f[13] is None, "field: no chosen refs")
    check((f.view, f.inter_view) == (0, False) and f[14:] == (0, False),
          "field: view 0, not inter-view, last in the tuple")
    check(f.summary is None and meta.summary_to_dict() is None,
          "no summary yet")
    # A summary computed and attached through the C API reads back field
    # for field, flags and shape as their enums.
    ok, s = MV.motion_vector_summary_compute(meta, None)
    # 16x16 blocks with their centre inside 40x20: (8, 8) and (24, 8)
    check(ok and s.blocks == 2, "summary of 2 blocks, got %d" % s.blocks)
    meta.set_summary(s)
    d = meta.summary_to_dict()
    check(d == MV.buffer_get_motion_vector_field(buf).summary,
          "field summary")
    check_summary(meta, d, "API meta")
    check(MV.buffer_get_motion_vector_field(
        Gst.Buffer.new_allocate(None, 8, None)) is None, "no meta: None")


def check_several_fields():
    # One buffer, three fields as gpumotionest references=-1,-2,+1
    # attaches them at a stream's last frame (no next frame: +1 has no
    # reference), each with its own shapes and cells.
    buf = Gst.Buffer.new_allocate(None, 64, None)
    check(MV.buffer_get_motion_vector_fields(buf) == [] and
          MV.buffer_get_motion_vector_metas(buf) == [], "no field: []")
    p16 = getattr(MV.MotionVectorPartitionFlags, "16X16")
    p8 = getattr(MV.MotionVectorPartitionFlags, "8X8")
    NO_REF = MV.MotionVectorMetaFlags.NO_REFERENCE
    want = [(-1, 2 * Gst.SECOND, True, ALL),
            (-2, Gst.SECOND, True, p16 | p8),
            (1, Gst.CLOCK_TIME_NONE, False, p16)]
    cells = []
    for k, (d, pts, has_ref, parts) in enumerate(want):
        c = cells_for(40, 20, parts, 10 + k)
        if not has_ref:
            c[:] = 0
        cells.append(c)
        m = add_meta(buf, 40, 20, parts, c)
        m.ref_distance, m.ref_pts = d, pts
        if not has_ref:
            m.flags = NO_REF

    metas = MV.buffer_get_motion_vector_metas(buf)
    check([(m.ref_distance, m.ref_pts) for m in metas] ==
          [w[:2] for w in want], "metas in the buffer's order")
    fields = MV.buffer_get_motion_vector_fields(buf)
    check(len(fields) == 3, "three fields, got %d" % len(fields))
    for k, (f, m) in enumerate(zip(fields, metas)):
        d, pts, has_ref, parts = want[k]
        check((f.ref_distance, f.ref_pts, f.has_reference) ==
              (d, pts, has_ref), "field %d: %r" % (k, (f.ref_distance,
                                                      f.ref_pts,
                                                      f.has_reference)))
        check_against_cells(m, f.grids, "field %d" % k)
        check(np.concatenate([f.grids[p].ravel() for p in sorted(f.grids)])
              .tobytes() == cells[k].tobytes(), "field %d: its cells" % k)

    # One field: the first by default, as before; or by its reference.
    check(MV.buffer_get_motion_vector_field(buf).ref_distance == -1,
          "default: the first field")
    for k, (d, pts, has_ref, parts) in enumerate(want):
        f = MV.buffer_get_motion_vector_field(buf, ref_distance=d)
        check(f is not None and (f.ref_distance, f.ref_pts) == (d, pts),
              "field against %+d" % d)
        check(sorted(f.grids) == sorted(fields[k].grids) and
              all(np.array_equal(f.grids[p], fields[k].grids[p])
                  for p in f.grids), "field against %+d: its grids" % d)
    for d in (-3, 2, 0):
        check(MV.buffer_get_motion_vector_field(buf, ref_distance=d) is None,
              "no field against %+d" % d)
    for bad in (True, -1.0, "-1"):
        try:
            MV.buffer_get_motion_vector_field(buf, ref_distance=bad)
            check(False, "ref_distance=%r refused" % (bad,))
        except TypeError:
            pass
    # copy stays the second argument, as before ref_distance came
    f = MV.buffer_get_motion_vector_field(buf, True, -2)
    check(f.ref_distance == -2 and f.grids[0].flags.writeable,
          "field(buf, True, -2): a copy")
    check(all(g.flags.writeable for f in
              MV.buffer_get_motion_vector_fields(buf, copy=True)
              for g in f.grids.values()), "fields(copy=True): copies")

    # A buffer copy has the same fields in the same order, and the fields
    # outlive both buffers.
    copy = buf.copy()
    fields = MV.buffer_get_motion_vector_fields(copy)
    del metas, m, buf, copy
    gc.collect()
    check([f.ref_distance for f in fields] == [-1, -2, 1],
          "copy: fields in order")
    for k, f in enumerate(fields):
        check(np.concatenate([f.grids[p].ravel() for p in sorted(f.grids)])
              .tobytes() == cells[k].tobytes(),
              "field %d outlives its buffer" % k)


def check_summary(meta, d, what):
    """@d against gst_motion_vector_meta_get_summary(), field by field."""
    ok, s = meta.get_summary()
    check(ok and d is not None, "%s: a summary" % what)
    names = [f.get_name() for f in
             MV.MotionVectorSummary.__info__.get_fields()]
    public = [n for n in names if not n.startswith("_")]
    check(sorted(d) == sorted(public) and "global_x" in d and
          "scene_change" in d and "_reserved" not in d,
          "%s: summary keys %r" % (what, sorted(d)))
    for n in public:
        check(d[n] == getattr(s, n) and type(d[n]) is type(getattr(s, n)),
              "%s: summary %s %r, C %r" % (what, n, d[n], getattr(s, n)))
    check(isinstance(d["flags"], MV.MotionVectorSummaryFlags) and
          isinstance(d["partition"], MV.MotionVectorPartition),
          "%s: summary enums" % what)


def check_modes():
    buf = Gst.Buffer.new_allocate(None, 64, None)
    parts = (getattr(MV.MotionVectorPartitionFlags, "16X16") |
             getattr(MV.MotionVectorPartitionFlags, "8X4"))
    meta = add_meta(buf, 40, 20, parts, cells_for(40, 20, parts, 3))
    want = np.array([[0, 4, 4], [4, 0, 0]], dtype=np.uint8)
    check(meta.set_modes(GLib.Bytes.new(want.tobytes())), "set_modes")
    modes = meta.modes_to_ndarray()
    check(modes.dtype == np.uint8 and modes.shape == (2, 3),
          "modes (mb_rows, mb_cols) uint8, got %r %r" % (modes.dtype,
                                                        modes.shape))
    check(np.array_equal(modes, want), "modes read back")
    data, cols, rows = meta.get_modes_bytes()
    check(modes.tobytes() == data.get_data() and (cols, rows) == (3, 2),
          "modes equal get_modes_bytes()")
    f = MV.buffer_get_motion_vector_field(buf)
    check(np.array_equal(f.modes, want), "field modes")


def check_chosen_refs():
    # The first of two fields (-1, +1) carries the reference each 4x4
    # block chose: 12 x 8 over 40x20, int8, row-major.
    buf = Gst.Buffer.new_allocate(None, 64, None)
    parts = (getattr(MV.MotionVectorPartitionFlags, "16X16") |
             getattr(MV.MotionVectorPartitionFlags, "8X8"))
    meta = add_meta(buf, 40, 20, parts, cells_for(40, 20, parts, 6))
    add_meta(buf, 40, 20, parts, cells_for(40, 20, parts, 7)).ref_distance = 1
    want = np.full((8, 12), -1, dtype=np.int8)
    want[0:2, 4:8] = 1          # the top 8x8s of macroblock (1, 0)
    want[4:8, 8:12] = 1         # macroblock (2, 1)
    check(meta.set_chosen_refs(GLib.Bytes.new(want.tobytes())),
          "set_chosen_refs")
    refs = meta.chosen_refs_to_ndarray()
    check(refs.dtype == np.int8 and refs.shape == (8, 12),
          "chosen refs (4 mb_rows, 4 mb_cols) int8, got %r %r"
          % (refs.dtype, refs.shape))
    check(np.array_equal(refs, want), "chosen refs read back")
    check(refs[0, 4] == 1 and refs[2, 4] == -1 and refs[7, 11] == 1,
          "signed values in place")
    data, cols, rows = meta.get_chosen_refs_bytes()
    check(refs.tobytes() == data.get_data() and (cols, rows) == (12, 8),
          "chosen refs equal get_chosen_refs_bytes()")
    # a view of the meta's memory, read-only, as the grids; copy=True a
    # writable array of its own
    check(np.shares_memory(refs, meta.chosen_refs_to_ndarray()) and
          not refs.flags.writeable, "chosen refs: a read-only view")
    w = meta.chosen_refs_to_ndarray(copy=True)
    check(w.flags.writeable and not np.shares_memory(w, refs) and
          np.array_equal(w, want), "chosen refs copy=True")
    fields = MV.buffer_get_motion_vector_fields(buf)
    check(np.array_equal(fields[0].chosen_refs, want) and
          fields[1].chosen_refs is None, "fields' chosen refs")
    check(fields[0][13] is fields[0].chosen_refs and
          fields[0][0] is fields[0].grids, "chosen_refs in its place, 13")
    # they outlive the buffer, as the modes do
    del meta, fields, buf
    gc.collect()
    check(refs.tobytes() == want.tobytes(), "chosen refs outlive the buffer")


def check_stereo_fields():
    # Stereo video, side-by-side, as gpumotionest attaches the fields of
    # one instant: the first view against -1, the second against -1, the
    # second's disparity against the first (INTER_VIEW, ref_distance 0).
    INTER = MV.MotionVectorMetaFlags.INTER_VIEW
    p16 = getattr(MV.MotionVectorPartitionFlags, "16X16")
    buf = Gst.Buffer.new_allocate(None, 64, None)
    want = [(0, -1, 0), (1, -1, 0), (1, 0, INTER)]
    cells = []
    for k, (view, d, flags) in enumerate(want):
        cells.append(cells_for(40, 20, p16, 20 + k))
        m = add_meta(buf, 40, 20, p16, cells[k])
        m.view, m.ref_distance, m.flags = view, d, flags

    def cells_of(f):
        return f.grids[0].ravel().tobytes()

    fields = MV.buffer_get_motion_vector_fields(buf)
    check([(f.view, f.ref_distance, f.inter_view) for f in fields] ==
          [(0, -1, False), (1, -1, False), (1, 0, True)],
          "stereo fields: views, references, inter-view %r" %
          [(f.view, f.ref_distance, f.inter_view) for f in fields])
    check(all(cells_of(f) == c.tobytes() for f, c in zip(fields, cells)),
          "stereo fields: their cells")
    check(all(f[14] == f.view and f[15] == f.inter_view and
              f[4] == f.ref_distance for f in fields),
          "view and inter_view at 14 and 15, ref_distance still at 4")

    # One field: of view 0 by default; view= and ref_distance= pick.
    picks = [({}, 0), ({"ref_distance": -1}, 0), ({"view": 1}, 1),
             ({"ref_distance": -1, "view": 1}, 1),
             ({"ref_distance": 0, "view": 1}, 2), ({"view": 0}, 0)]
    for kwargs, k in picks:
        f = MV.buffer_get_motion_vector_field(buf, **kwargs)
        check(f is not None and cells_of(f) == cells[k].tobytes() and
              (f.view, f.ref_distance) == want[k][:2],
              "field(%r): the field %d" % (kwargs, k))
    check(MV.buffer_get_motion_vector_field(buf, False, 0, 1).inter_view,
          "field(buf, copy, 0, 1): the disparity")
    for kwargs in ({"ref_distance": 0}, {"ref_distance": -2, "view": 1},
                   {"view": 2}, {"ref_distance": 1}):
        check(MV.buffer_get_motion_vector_field(buf, **kwargs) is None,
              "field(%r): none" % (kwargs,))
    for bad, exc in ((True, TypeError), (1.0, TypeError), ("1", TypeError),
                     (None, TypeError), (-1, ValueError)):
        try:
            MV.buffer_get_motion_vector_field(buf, view=bad)
            check(False, "view=%r refused" % (bad,))
        except exc:
            pass

    # A frame-by-frame stream's second view: a buffer of view 1 fields
    # only has no field of view 0.
    buf2 = Gst.Buffer.new_allocate(None, 64, None)
    for k in (1, 2):
        m = add_meta(buf2, 40, 20, p16, cells[k])
        m.view, m.ref_distance, m.flags = want[k]
    check(MV.buffer_get_motion_vector_field(buf2) is None,
          "second view's buffer: no field of view 0")
    f = MV.buffer_get_motion_vector_field(buf2, view=1)
    check(f is not None and cells_of(f) == cells[1].tobytes(),
          "second view's buffer: view=1 gives its first field")


def check_stereo_pipeline():
    # A 128x48 side-by-side stream through gpumotionest: each buffer has
    # view 0's field, view 1's and view 1's disparity, each 64x48 and
    # equal to the C API's cells; both views pan by (+3, -2), and the
    # second is the first moved 2 pixels to the left, which the disparity
    # finds.
    width, height, dx, dy, shift = 64, 48, 3, -2, 2
    frames = pan_frames(4, width + shift, height, dx, dy)
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,"
        "width=%d,height=%d,framerate=30/1,multiview-mode=side-by-side ! "
        "gpumotionest backend=cpu search-range=8 disparity-range=-4,4 ! "
        "appsink name=sink sync=false" % (2 * width, height))
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    for k, f in enumerate(frames):
        sbs = np.concatenate([f[:, :width], f[:, shift:]], axis=1)
        b = Gst.Buffer.new_wrapped(np.ascontiguousarray(sbs).tobytes())
        b.pts, b.duration = k * Gst.SECOND // 30, Gst.SECOND // 30
        src.emit("push-buffer", b)
    src.emit("end-of-stream")
    samples = []
    while True:
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        if s is None:
            break
        samples.append(s)
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    check(msg is None, "pipeline error: %s" % (msg and msg.parse_error()[0]))
    check(len(samples) == len(frames), "%d buffers out" % len(samples))
    for k, s in enumerate(samples):
        buf = s.get_buffer()
        metas = MV.buffer_get_motion_vector_metas(buf)
        fields = MV.buffer_get_motion_vector_fields(buf)
        check([(f.view, f.ref_distance, f.inter_view,
                f.analysis_width, f.analysis_height) for f in fields] ==
              [(0, -1, False, width, height), (1, -1, False, width, height),
               (1, 0, True, width, height)],
              "stereo frame %d: fields %r" % (k, [(f.view, f.ref_distance,
                                                   f.inter_view)
                                                  for f in fields]))
        for m, f in zip(metas, fields):
            check_against_cells(m, f.grids, "stereo frame %d" % k)
        disparity = MV.buffer_get_motion_vector_field(buf, ref_distance=0,
                                                      view=1)
        check(disparity.has_reference and disparity.ref_pts == buf.pts,
              "stereo frame %d: disparity at the same instant" % k)
        inner = disparity.grids[0][1:-1, 1:-1]
        # view 1 is view 0 moved 2 px left: a block's match in view 0
        # lies 2 px to its right, +8 quarter pixels
        check(np.all(inner["mv_x"] == 4 * shift) and
              np.all(inner["mv_y"] == 0),
              "stereo frame %d: disparity %r" % (k, inner[["mv_x", "mv_y"]]))
        if k > 0:
            for view in (0, 1):
                g = MV.buffer_get_motion_vector_field(
                    buf, view=view).grids[0][1:-1, 1:-1]
                check(np.all(g["mv_x"] == -4 * dx) and
                      np.all(g["mv_y"] == -4 * dy),
                      "stereo frame %d view %d: motion" % (k, view))


def check_sharing():
    # Zero-copy where the platform allows it; on this one it must.
    check(MV.zero_copy(), "arrays view the meta's memory (zero_copy())")
    buf = Gst.Buffer.new_allocate(None, 64, None)
    meta = add_meta(buf, 40, 20, ALL, cells_for(40, 20, ALL, 4))
    a, b = meta.to_ndarray("8x8"), meta.to_ndarray("8x8")
    check(np.shares_memory(a, b), "two arrays of one grid share memory")
    check(not a.flags.writeable, "shared arrays are read-only")
    copy = buf.copy()                       # shares the GBytes
    c = MV.buffer_get_motion_vector_meta(copy).to_ndarray("8x8")
    check(np.shares_memory(a, c), "a buffer copy's arrays share it too")
    w = meta.to_ndarray("8x8", copy=True)
    check(w.flags.writeable and not np.shares_memory(a, w) and
          np.array_equal(a, w), "copy=True: writable, own memory, equal")
    w["mv_x"] += 4
    check(np.array_equal(meta.to_ndarray("8x8"), a), "meta unchanged")
    d = meta.to_ndarrays(copy=True)
    check(all(v.flags.writeable for v in d.values()), "to_ndarrays copies")
    del c, copy


def check_lifetime():
    # A 1080p field with every shape (5.4 MB: a block of its own that
    # malloc unmaps, or fills under MALLOC_PERTURB_, when freed).  The
    # arrays must keep the cells alive once meta and buffer are gone.
    buf = Gst.Buffer.new_allocate(None, 64, None)
    cells = cells_for(1920, 1080, ALL, 5)
    meta = add_meta(buf, 1920, 1080, ALL, cells)
    want = np.array([[0, 6] * 60, [3, 0] * 60] * 34, dtype=np.uint8)
    check(meta.set_modes(GLib.Bytes.new(want.tobytes())), "1080p modes")
    grids = meta.to_ndarrays()
    modes = meta.modes_to_ndarray()
    field = MV.buffer_get_motion_vector_field(buf)
    del meta, buf
    gc.collect()
    junk = [bytes(len(cells) * 16) for _ in range(4)]   # reuse freed memory
    del junk
    got = np.concatenate([grids[p].ravel() for p in range(7)])
    check(got.tobytes() == cells.tobytes(),
          "arrays outlive the buffer, cells intact")
    check(modes.tobytes() == want.tobytes(), "modes outlive the buffer")
    check(np.concatenate([field.grids[p].ravel() for p in range(7)])
          .tobytes() == cells.tobytes(), "a field outlives the buffer")


def pan_frames(n, width, height, dx, dy):
    """GRAY8 frames of a smooth random texture whose content moves by
    (dx, dy) pixels per frame."""
    rng = np.random.default_rng(7)
    span_w, span_h = width + abs(dx) * n + 32, height + abs(dy) * n + 32
    coarse = rng.integers(0, 256, size=(span_h // 4 + 1, span_w // 4 + 1))
    picture = (np.kron(coarse, np.ones((4, 4)))[:span_h, :span_w] * 0.8 +
               rng.integers(0, 40, size=(span_h, span_w))).astype(np.uint8)
    x0, y0 = 16 + abs(dx) * n, 16 + abs(dy) * n
    # content moving by +d is the window moving by -d
    return [picture[y0 - dy * k:y0 - dy * k + height,
                    x0 - dx * k:x0 - dx * k + width].copy()
            for k in range(n)]


def check_pipeline():
    # 64x48 (4 x 3 macroblocks), content moving by (+3, -2) px per frame:
    # the vectors point back, (-12, +8) quarter pixels.
    width, height, dx, dy = 64, 48, 3, -2
    frames = pan_frames(4, width, height, dx, dy)
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,"
        "width=%d,height=%d,framerate=30/1 ! gpumotionest backend=cpu "
        "partitions=all mode-decision=true search-range=8 summary=true ! "
        "appsink name=sink sync=false" % (width, height))
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    for k, f in enumerate(frames):
        b = Gst.Buffer.new_wrapped(f.tobytes())
        b.pts, b.duration = k * Gst.SECOND // 30, Gst.SECOND // 30
        src.emit("push-buffer", b)
    src.emit("end-of-stream")
    samples = []
    while True:
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        if s is None:
            break
        samples.append(s)
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    check(msg is None, "pipeline error: %s" % (msg and msg.parse_error()[0]))
    check(len(samples) == len(frames), "%d buffers out" % len(samples))

    prev_pts = None
    for k, s in enumerate(samples):
        buf = s.get_buffer()
        meta = MV.buffer_get_motion_vector_meta(buf)
        f = MV.buffer_get_motion_vector_field(buf)
        check(meta is not None and f is not None, "frame %d has a field" % k)
        check_against_cells(meta, f.grids, "pipeline frame %d" % k)
        check(f.has_reference == (k > 0), "frame %d reference" % k)
        check((f.ref_distance, f.ref_pts) ==
              (meta.ref_distance, meta.ref_pts), "frame %d ref" % k)
        if k == 0:
            check(all(not g[n].any() for g in f.grids.values()
                      for n in g.dtype.names),
                  "frame 0: every cell zero")
        else:
            check(f.ref_distance == -1 and f.ref_pts == prev_pts,
                  "frame %d: reference is the previous frame" % k)
            g = f.grids[0]
            # interior macroblocks (the edges see entering content)
            inner = g[1:-1, 1:-1]
            check(np.all(inner["mv_x"] == -4 * dx) and
                  np.all(inner["mv_y"] == -4 * dy),
                  "frame %d: inner 16x16 vectors %r" % (k, inner[["mv_x",
                                                                 "mv_y"]]))
            # the summary's global motion: the pan, in quarter pixels
            check_summary(meta, f.summary, "pipeline frame %d" % k)
            check((f.summary["global_x"], f.summary["global_y"]) ==
                  (-4.0 * dx, -4.0 * dy), "frame %d: global motion %r"
                  % (k, (f.summary["global_x"], f.summary["global_y"])))
            data, cols, rows = meta.get_modes_bytes()
            check(data is not None and f.modes is not None,
                  "frame %d: a partition decision" % k)
            check(f.modes.shape == (rows, cols) == (3, 4) and
                  f.modes.tobytes() == data.get_data(),
                  "frame %d: modes equal get_modes_bytes()" % k)
        prev_pts = buf.pts


NO_NUMPY = r"""
import sys
sys.modules["numpy"] = None          # import numpy raises ImportError
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import GLib, Gst, GstMotionVectors as MV
Gst.init(None)
buf = Gst.Buffer.new_allocate(None, 8, None)
meta = MV.buffer_add_motion_vector_meta(buf, 16, 16,
    MV.MotionVectorPartitionFlags(1), GLib.Bytes.new(bytes(range(16))))
data, cols, rows = meta.get_grid_bytes(MV.MotionVectorPartition(0))
assert (cols, rows) == (1, 1) and data.get_data() == bytes(range(16))
assert hasattr(MV.MotionVectorMeta, "to_ndarray")
assert meta.summary_to_dict() is None         # needs no numpy
ok, s = MV.motion_vector_summary_compute(meta, None)
meta.set_summary(s)
assert meta.summary_to_dict()["blocks"] == 1
assert [m.ref_distance for m in MV.buffer_get_motion_vector_metas(buf)] == [-1]
for call in (lambda: meta.to_ndarray(0), lambda: meta.to_ndarrays(),
             lambda: meta.modes_to_ndarray(),
             lambda: meta.chosen_refs_to_ndarray(), lambda: MV.cell_dtype(),
             lambda: MV.buffer_get_motion_vector_field(buf),
             lambda: MV.buffer_get_motion_vector_fields(buf)):
    try:
        call()
    except ImportError as e:
        assert "python3-numpy" in str(e), str(e)
    else:
        raise AssertionError("no ImportError")
print("without numpy: ok")
"""


def check_without_numpy():
    r = subprocess.run([sys.executable, "-c", NO_NUMPY],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "without numpy: ok" in r.stdout,
          "without numpy:\n%s%s" % (r.stdout, r.stderr))


def main():
    Gst.init(None)
    check_loaded_from(sys.argv[1])
    check_dtype()
    check_api_meta()
    check_modes()
    check_chosen_refs()
    check_several_fields()
    check_stereo_fields()
    check_stereo_pipeline()
    check_sharing()
    check_lifetime()
    check_pipeline()
    check_without_numpy()
    print("ok: GstMotionVectors overrides")


if __name__ == "__main__":
    main()
