# gpumotionest — PyGObject overrides of GstMotionVectors: a motion field as
# numpy arrays in one call.
#
# PyGObject loads this module when the program does
# `from gi.repository import GstMotionVectors`, from any gi/overrides
# directory on sys.path (docs/python.md).  It adds to the introspected
# API, and changes nothing in it:
#
#   MotionVectorMeta.to_ndarray(partition)   one shape's cells, (rows, cols)
#   MotionVectorMeta.to_ndarrays()           every present shape, a dict
#   MotionVectorMeta.modes_to_ndarray()      the partition decision
#   MotionVectorMeta.chosen_refs_to_ndarray() the reference decision
#   MotionVectorMeta.summary_to_dict()       the motion summary, a dict
#   MotionVectorMeta.to_field()              all of the above and the fields
#   buffer_get_motion_vector_field(buffer)   the same from a Gst.Buffer: its
#                                            first field, or that against a
#                                            given reference, of a given
#                                            view of stereo video
#   buffer_get_motion_vector_fields(buffer)  every field of the buffer, one
#                                            per reference, in order
#   buffer_get_motion_vector_metas(buffer)   the metas themselves, in order
#   cell_dtype()                             numpy's GstMotionVectorCell
#   load_export(folder)                      the arrays and index of a
#                                            folder written by
#                                            mvexport format=npy
#
# numpy is imported when an array is asked for, not before: without it the
# module loads, the introspected API works, and the array functions raise
# an ImportError that names the package to install.

import collections
import json
import os

from ..module import get_introspection_module

import gi
gi.require_version("GLib", "2.0")
from gi.repository import GLib  # noqa: E402

GstMotionVectors = get_introspection_module("GstMotionVectors")

__all__ = ["buffer_get_motion_vector_field",
           "buffer_get_motion_vector_fields",
           "buffer_get_motion_vector_metas", "cell_dtype", "CELL_FIELDS",
           "load_export", "MotionVectorExport", "MotionVectorField",
           "zero_copy"]

# The fields of GstMotionVectorCell, in memory order.  The dtype is built
# from the typelib's offsets and size and checked against these names, so a
# change of the C struct cannot go unnoticed here.
CELL_FIELDS = ("mv_x", "mv_y", "cost", "pred_x", "pred_y", "mvd_x", "mvd_y")

# GI type tags of the cell's fields -> numpy type codes (host byte order,
# as the cells are stored).
_NUMPY_CODES = {"gint8": "i1", "guint8": "u1", "gint16": "i2",
                "guint16": "u2", "gint32": "i4", "guint32": "u4"}

_NO_NUMPY = ("GstMotionVectors arrays need numpy, which is not installed "
             "(Debian: apt install python3-numpy)")


def _numpy():
    try:
        import numpy
    except ImportError as e:
        raise ImportError(_NO_NUMPY, name="numpy") from e
    return numpy


_dtype = None


def cell_dtype():
    """The numpy dtype of one GstMotionVectorCell: a structured dtype of 16
    bytes with the fields of CELL_FIELDS at the offsets of the C struct
    (mv, pred, mvd in quarter pixels, cost the block's SAD or SATD at
    analysis size)."""
    global _dtype
    if _dtype is None:
        np = _numpy()
        info = GstMotionVectors.MotionVectorCell.__info__
        fields = info.get_fields()
        names = tuple(f.get_name() for f in fields)
        if names != CELL_FIELDS:
            raise RuntimeError("GstMotionVectorCell has fields %r, not %r"
                               % (names, CELL_FIELDS))
        dtype = np.dtype({
            "names": list(names),
            "formats": ["=" + _NUMPY_CODES[f.get_type().get_tag_as_string()]
                        for f in fields],
            "offsets": [f.get_offset() for f in fields],
            "itemsize": info.get_size()})
        if dtype.itemsize != 16:
            raise RuntimeError("GstMotionVectorCell is %d bytes, not 16"
                               % dtype.itemsize)
        _dtype = dtype
    return _dtype


# ---- the memory of a GBytes, without copying --------------------------------
#
# GLib.Bytes.get_data() returns a new Python bytes: one copy of the cells
# (5.4 MB for all seven shapes of a 1080p frame).  The GBytes' own memory is
# reached instead through g_bytes_get_data(), called with ctypes on the
# GBytes' address, which PyGObject gives as the hash of a boxed value (its
# repr shows the same address).  numpy then views that memory read-only
# through an owner object holding the GLib.Bytes, that is a reference to
# the GBytes: an array made from it keeps the cells alive after the meta
# and its buffer are gone.  Where ctypes, GLib's library or that address
# cannot be had (checked once on a GBytes of known content), the arrays
# view a copy instead, with the same values.

class _GBytesMemory:
    """What numpy sees of a GBytes: its address and size, read-only.  It
    holds the GLib.Bytes, so the memory lives as long as this object."""

    def __init__(self, gbytes, address, size):
        self.gbytes = gbytes
        self.__array_interface__ = {
            "version": 3, "shape": (size,), "typestr": "|u1",
            "data": (address, True)}


_get_data = None      # g_bytes_get_data through ctypes, once it checked out
_zero_copy = None     # None: not tried yet


def _bytes_address(gbytes):
    """The GBytes' address as PyGObject shows it (hash and repr), or None.
    Checked on the probe only: the same PyGObject makes every wrapper."""
    address = hash(gbytes)
    if address <= 0 or "GBytes at 0x%x)" % address not in repr(gbytes):
        return None
    return address


def _try_zero_copy():
    global _get_data
    try:
        import ctypes
        import ctypes.util
    except ImportError:
        return False
    names = ["libglib-2.0.so.0", ctypes.util.find_library("glib-2.0")]
    for name in names:
        if not name:
            continue
        try:
            fn = ctypes.CDLL(name).g_bytes_get_data
            break
        except (OSError, AttributeError):
            continue
    else:
        return False
    fn.restype = ctypes.c_void_p
    fn.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    probe = GLib.Bytes.new(b"GstMotionVectors cells")
    address = _bytes_address(probe)
    if address is None:
        return False
    size = ctypes.c_size_t()
    data = fn(address, ctypes.byref(size))
    if not data or ctypes.string_at(data, size.value) != probe.get_data():
        return False

    def get_data(gbytes):
        n = ctypes.c_size_t()
        return fn(hash(gbytes), ctypes.byref(n)), n.value

    _get_data = get_data
    return True


def zero_copy():
    """True when the arrays view the meta's memory itself, False when they
    view a copy of it (see docs/python.md)."""
    global _zero_copy
    if _zero_copy is None:
        _zero_copy = _try_zero_copy()
    return _zero_copy


def _array(np, gbytes, dtype, shape, copy):
    """@gbytes as a read-only array of @shape and @dtype sharing its memory
    (where possible), or a writable copy of its own with @copy."""
    base = None
    if zero_copy():
        address, size = _get_data(gbytes)
        if address:
            base = np.asarray(_GBytesMemory(gbytes, address, size))
    if base is None:
        base = np.frombuffer(gbytes.get_data(), np.uint8)
    count = 1
    for n in shape:
        count *= n
    if base.size != count * dtype.itemsize:
        raise RuntimeError("%d bytes for %r cells of %d bytes"
                           % (base.size, shape, dtype.itemsize))
    if copy:
        base = base.copy()   # as bytes: a structured copy goes field by field
    return base.view(dtype).reshape(shape)


# ---- shapes -----------------------------------------------------------------

_Partition = GstMotionVectors.MotionVectorPartition
_PARTITIONS = [_Partition.__enum_values__[v]
               for v in sorted(_Partition.__enum_values__)]


def _partition(p):
    """A MotionVectorPartition from itself, its value (0 .. 6) or its nick
    ("16x16" .. "4x4", any case)."""
    values = _Partition.__enum_values__
    if isinstance(p, str):
        for v in values.values():
            if v.value_nick == p.lower():
                return v
        raise ValueError("no partition shape %r (16x16, 16x8, 8x16, 8x8, "
                         "8x4, 4x8, 4x4)" % p)
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError("a partition is a MotionVectorPartition, an int or "
                        "a name such as '8x8', not %r" % (p,))
    if int(p) not in values:
        raise ValueError("no partition shape %d (0 .. 6)" % p)
    return values[int(p)]


# ---- the meta's methods -----------------------------------------------------

def _to_ndarray(self, partition, copy=False):
    """The cells of one shape as a structured numpy array of shape
    (rows, cols) and dtype cell_dtype(): arr[r, c] is cell (c, r), its
    vector arr["mv_x"][r, c] in quarter pixels.

    @partition: a MotionVectorPartition, its value or its name ("8x8").
    @copy: False (default): a read-only array sharing the meta's memory
    where that is possible (it keeps that memory alive by itself, after
    the buffer is gone); True: a writable array of its own.

    Returns None when the shape is absent or the meta inconsistent, as
    get_grid_bytes() does.  Raises ImportError without numpy."""
    np = _numpy()
    p = _partition(partition)
    data, cols, rows = self.get_grid_bytes(p)
    if data is None:
        return None
    return _array(np, data, cell_dtype(), (rows, cols), copy)


def _to_ndarrays(self, copy=False):
    """Every present shape as to_ndarray() gives it: a dict from
    MotionVectorPartition (an int: d[3] works too) to array, in shape
    order; empty for an inconsistent meta."""
    np = _numpy()
    dtype = cell_dtype()
    present = int(self.partitions)    # a field read costs a few us: once
    grids = {}
    for p in _PARTITIONS:
        if not present & (1 << p):
            continue
        data, cols, rows = self.get_grid_bytes(p)
        if data is not None:
            grids[p] = _array(np, data, dtype, (rows, cols), copy)
    return grids


def _modes_to_ndarray(self, copy=False):
    """The partition decision as a uint8 array of shape (mb_rows, mb_cols),
    each a MotionVectorPartition value; None when the meta has none (or it
    cannot be read, as get_modes_bytes())."""
    np = _numpy()
    data, cols, rows = self.get_modes_bytes()
    if data is None:
        return None
    return _array(np, data, np.dtype(np.uint8), (rows, cols), copy)


def _chosen_refs_to_ndarray(self, copy=False):
    """The reference decision as an int8 array of shape (rows, cols), one
    per 4x4 block of the analysis frame (4 * mb_rows, 4 * mb_cols): the
    ref_distance of the field whose vector the partition covering the
    block takes; None when the meta has none (or it cannot be read, as
    get_chosen_refs_bytes())."""
    np = _numpy()
    data, cols, rows = self.get_chosen_refs_bytes()
    if data is None:
        return None
    return _array(np, data, np.dtype(np.int8), (rows, cols), copy)


_summary_fields = None


def _summary_to_dict(self):
    """The frame's motion summary (docs/summary.md) as a dict of the
    public fields of GstMotionVectorSummary ("global_x", "zoom",
    "scene_change", ...; flags and partition as their enums), or None when
    the meta has none.  Needs no numpy."""
    global _summary_fields
    ok, summary = self.get_summary()
    if not ok:
        return None
    if _summary_fields is None:
        _summary_fields = [
            f.get_name() for f in
            GstMotionVectors.MotionVectorSummary.__info__.get_fields()
            if not f.get_name().startswith("_")]
    return {name: getattr(summary, name) for name in _summary_fields}


MotionVectorField = collections.namedtuple("MotionVectorField", [
    "grids", "modes", "summary", "has_reference", "ref_distance", "ref_pts",
    "width", "height", "analysis_width", "analysis_height",
    "method", "search_range", "flags", "chosen_refs", "view", "inter_view"])
MotionVectorField.__doc__ = """\
One buffer's motion field, owned by Python: it stays valid after the buffer
and its meta are gone.

grids: dict MotionVectorPartition -> (rows, cols) array of cells, every
    present shape (MotionVectorMeta.to_ndarrays()).
modes: (mb_rows, mb_cols) uint8 array of the partition decision, or None.
summary: the motion summary as MotionVectorMeta.summary_to_dict() gives
    it, or None.
has_reference: False for a field without reference (every cell zero).
ref_distance, ref_pts, width, height, analysis_width, analysis_height,
method, search_range, flags: the meta's fields of those names.
chosen_refs: (4 mb_rows, 4 mb_cols) int8 array of the reference decision
    (MotionVectorMeta.chosen_refs_to_ndarray()), or None; after the fields
    that came before it, so that they keep their places.
view: the view of stereo video the field is of, 0 the first (and the only
    one of other video), 1 the second; the field covers that view.
inter_view: True for the disparity field (flag INTER_VIEW): the second
    view searched against the first at the same instant, ref_distance 0.
view and inter_view come last, after chosen_refs, for the same reason."""


def _to_field(self, copy=False):
    """The whole field as a MotionVectorField."""
    flags = self.flags
    return MotionVectorField(
        grids=self.to_ndarrays(copy), modes=self.modes_to_ndarray(copy),
        summary=self.summary_to_dict(),
        has_reference=not (
            flags & GstMotionVectors.MotionVectorMetaFlags.NO_REFERENCE),
        ref_distance=self.ref_distance, ref_pts=self.ref_pts,
        width=self.width, height=self.height,
        analysis_width=self.analysis_width,
        analysis_height=self.analysis_height, method=self.method,
        search_range=self.search_range, flags=flags,
        chosen_refs=self.chosen_refs_to_ndarray(copy), view=self.view,
        inter_view=bool(
            flags & GstMotionVectors.MotionVectorMetaFlags.INTER_VIEW))


def buffer_get_motion_vector_field(buffer, copy=False, ref_distance=None,
                                   view=0):
    """A motion field of @buffer (a Gst.Buffer) as a MotionVectorField.

    @ref_distance: None (default): the first field of @view, that of the
    first reference of gpumotionest's references list (the only one with
    the default list); an int: the field of @view searched against the
    frame that many frames away, -1 the previous one, +1 the next one; 0:
    the disparity field of @view (stereo video's second view searched
    against the first at the same instant).
    @view: the view of stereo video, 0 (default) the first, which is the
    only view of other video; 1 the second.

    Returns None when the buffer has no such field: with the defaults, a
    buffer of a frame-by-frame stream's second view (whose fields are all
    of view 1), and for a @ref_distance of 0 every field of view 0.
    Raises ImportError without numpy."""
    view = _view(view)
    if ref_distance is None:
        meta = next((m for m in buffer_get_motion_vector_metas(buffer)
                     if m.view == view), None)
    else:
        meta = GstMotionVectors.buffer_get_motion_vector_meta_for_view(
            buffer, view, _ref_distance(ref_distance))
    if meta is None:
        return None
    return meta.to_field(copy)


def _ref_distance(d):
    """@d as the C gint it is passed as; bools and floats are refused
    rather than taken for 1 or rounded."""
    if isinstance(d, bool) or not isinstance(d, int):
        raise TypeError("a reference distance is an int such as -1 or 2, "
                        "not %r" % (d,))
    return d


def _view(v):
    """@v as the C guint view it is passed as: an int, 0 or more."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("a view is an int, 0 or 1, not %r" % (v,))
    if v < 0:
        raise ValueError("a view is 0 or more (0 the first), not %d" % v)
    return v


def buffer_get_motion_vector_metas(buffer):
    """Every GstMotionVectorMeta of @buffer, a list in the buffer's order
    (the order they were added: gpumotionest's references list); empty
    without any.  The metas are views into @buffer: keep it referenced
    while they are used."""
    n = GstMotionVectors.buffer_get_n_motion_vector_metas(buffer)
    return [GstMotionVectors.buffer_get_motion_vector_meta_nth(buffer, i)
            for i in range(n)]


def buffer_get_motion_vector_fields(buffer, copy=False):
    """Every motion field of @buffer as a list of MotionVectorField, one
    per reference, in the buffer's order; each has its own ref_distance
    and ref_pts.  Empty without any.  Like the field of
    buffer_get_motion_vector_field(), each is owned by Python and
    outlives the buffer.  Raises ImportError without numpy."""
    return [meta.to_field(copy)
            for meta in buffer_get_motion_vector_metas(buffer)]


_Meta = GstMotionVectors.MotionVectorMeta
_Meta.to_ndarray = _to_ndarray
_Meta.to_ndarrays = _to_ndarrays
_Meta.modes_to_ndarray = _modes_to_ndarray
_Meta.chosen_refs_to_ndarray = _chosen_refs_to_ndarray
_Meta.summary_to_dict = _summary_to_dict
_Meta.to_field = _to_field
for _f in (_to_ndarray, _to_ndarrays, _modes_to_ndarray,
           _chosen_refs_to_ndarray, _summary_to_dict, _to_field):
    _f.__name__ = _f.__name__[1:]
    _f.__qualname__ = "MotionVectorMeta." + _f.__name__
del _f



# ---- mvexport format=npy ------------------------------------------------

MotionVectorExport = collections.namedtuple(
    "MotionVectorExport", ["arrays", "index", "stabilization"],
    defaults=[None])
MotionVectorExport.__doc__ = """What load_export() returns: arrays, a dict
from (view, ref_distance) to that field's arrays; index, the folder's
index.json as a dict; stabilization, mvstabilize's correction, a record
per buffer (stabilization.npy), or None when the export has none."""

_CELL_QUANTITIES = ("mv", "cost", "pred", "mvd")


def load_export(folder, mmap=True):
    """The arrays of a folder written by `mvexport format=npy`
    (docs/export-schema.md, "NumPy folder"), and its index.

    Returns MotionVectorExport(arrays, index).  arrays[(view, ref_distance)]
    is a dict of that field's arrays, the frame first on every axis:
    "frames" (a record per row: frame, pts, ref_pts, ref_distance, view,
    flags, partitions), "mv", "pred", "mvd" (dicts from shape name, "16x16"
    ..., to int16 arrays (frames, rows, cols, 2) in quarter pixels), "cost"
    (the same, uint32 (frames, rows, cols)), and where the export has them
    "modes", "chosen_refs" and "summary".  A field the export does not
    have is absent, so are quantities it did not write.

    stabilization (written with stabilization=true, else None) is a
    record array with a row per buffer, row f the buffer whose "frame" is
    f: frame, pts, present (1 where the buffer carried mvstabilize's
    correction) and the stab_* fields of the CSV export, the fill where
    the correction lacks one (NaN; 2**64-1 for stab_frame, 255 for
    stab_corrected and stab_segment_start); index["stabilization"] gives
    each field's unit.  It holds the rows its header counts, whatever the
    fields hold: while written, or cut short, a frame's correction may be
    published a frame before or after the frame's fields.

    @mmap: True (default): every array maps its file read-only
    (np.load(mmap_mode="r")): nothing is read until used; False: read
    into memory.

    Every array of a field is cut to the same number of frames, the
    fewest any of its headers counts: an export still being written, or
    cut short (index["complete"] False), may have published one array a
    frame ahead of another.  Needs numpy only, not GStreamer."""
    np = _numpy()
    with open(os.path.join(folder, "index.json"), encoding="utf-8") as f:
        index = json.load(f)
    if index.get("format") != "gpumotionest-npy":
        raise ValueError("%s: not an mvexport NumPy folder (format %r)"
                         % (folder, index.get("format")))
    if index.get("version") != 1:
        raise ValueError("%s: index version %r, this reader knows 1"
                         % (folder, index.get("version")))
    arrays = {}
    for field in index["fields"]:
        loaded = []
        for a in field["arrays"]:
            x = np.load(os.path.join(folder, a["file"]),
                        mmap_mode="r" if mmap else None)
            loaded.append((a, x))
        rows = min((len(x) for _, x in loaded), default=0)
        if index.get("complete") and field.get("rows") is not None \
                and rows != field["rows"]:
            raise ValueError("%s: field view %d ref_distance %d holds %d "
                             "frames, its index says %d"
                             % (folder, field["view"], field["ref_distance"],
                                rows, field["rows"]))
        out = {}
        for a, x in loaded:
            q = a["quantity"]
            if q in _CELL_QUANTITIES:
                out.setdefault(q, {})[a["partition"]] = x[:rows]
            else:
                out[q] = x[:rows]
        arrays[(field["view"], field["ref_distance"])] = out
    stab = None
    entry = index.get("stabilization")
    if entry:
        stab = np.load(os.path.join(folder, entry["file"]),
                       mmap_mode="r" if mmap else None)
        want = entry["shape"][0]
        if index.get("complete") and want is not None and len(stab) != want:
            raise ValueError("%s: %s holds %d frames, its index says %d"
                             % (folder, entry["file"], len(stab), want))
    return MotionVectorExport(arrays, index, stab)
