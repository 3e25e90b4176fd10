#!/usr/bin/env python3
"""Writes the hand-made seed inputs of the fuzz corpora.

    tests/fuzz/make-seeds.py [CORPUS_DIR]

The seeds are ordinary streams spelled in each target's input language
(fuzz-element.c, fuzz-meta.c), so that fuzzing starts from inputs that get
past the caps and reach the search, the export and the drawing.  The files
are committed under corpus/; run this again after changing the input
language, and check that the replay tests still pass.
"""
import os
import struct
import sys

FORMATS = ["I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "GRAY8"]

# fuzz-element.c op bits
OP_CAPS, OP_PROPS, OP_FLUSH, OP_SEGMENT = 1, 2, 4, 8
OP_LATENCY, OP_POOL, OP_SKIP, OP_BACKEND = 16, 32, 64, 128
BUF_DISCONT, BUF_META, BUF_SIZE, BUF_PTS, BUF_GAP, BUF_EMPTY = 1, 2, 4, 8, 16, 32


def u8(v):
    return struct.pack("<B", v & 0xFF)


def u16(v):
    return struct.pack("<H", v & 0xFFFF)


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def edgy(v):
    """fuzz_u32_edgy(): a byte >= 0x80 then the value itself."""
    return u8(0x80) + u32(v)


def caps(fmt, w, h, fps=1):
    # set_caps(): format, frame rate, then pick_size(): width - 1, height - 1
    return u8(FORMATS.index(fmt)) + u8(fps) + u16(w - 1) + u16(h - 1)


def element(frames, fmt="I420", w=64, h=48, backend=1, in_flight=0,
            srange=8, parts=1):
    """frames: a list of (op, bop, extra bytes) in the order the target
    reads them (caps, props, backend, then the buffer's)."""
    b = u8(backend) + u8(in_flight) + u8(srange - 1) + u8(parts)
    b += u8(len(frames) - 1) + caps(fmt, w, h)
    for op, bop, extra in frames:
        b += u8(op) + u8(bop) + extra
    return b


def plain(seed=1):
    """A buffer of the caps' size: just the fill seed."""
    return (0, 0, u8(seed))


def meta_seed(aw, ah, parts, mask, extra=b""):
    """fuzz-meta.c: mask, analysis size - 1, shapes, cell seed, then what
    the mask asks for."""
    return u16(mask) + u16(aw - 1) + u16(ah - 1) + u8(parts) + u32(7) + extra


# fuzz-mvinterpolate.c: its tables and op bits
MVI_FORMATS = ["I420", "YV12", "Y42B", "Y444", "GRAY8", "I420_10LE",
               "I420_12LE", "I422_10LE", "Y444_16LE", "GRAY16_LE", "NV12",
               "YUY2", "P010_10LE", "I420_10BE"]
MVI_IN_RATES = ["25/1", "30/1", "30000/1001", "24000/1001", "0/1", "60/1",
                "1/1", "50/1", "7/3", "1000/1"]
MVI_OUT_RATES = ["60/1", "50/1", "30000/1001", "60000/1001", "1001/30000",
                 "25/1", "24/1", "1/1", "7/3", "120/1", "1/2147483647",
                 "free", "48000/1001", "2147483647/2147483", "13/1", "240/1"]
# frame time steps: 40 ms, 33.37 ms, 41.71 ms, 16.67 ms, 20 ms, 1 ns, 0,
# -40 ms, 1 s, 3 ms, 100 ms, 33.33 ms, -1 ns, 7 ns, 0.5 s, 66.73 ms
STEP_40MS, STEP_NTSC, STEP_FILM, STEP_DUP, STEP_BACK = 0, 1, 2, 6, 7
STEP_1S = 8
MVI_OP_CAPS, MVI_OP_RATE, MVI_OP_FLUSH, MVI_OP_SEGMENT = 1, 2, 4, 8
MVI_OP_GAP, MVI_OP_PROPS, MVI_OP_LATENCY, MVI_OP_SKIP = 16, 32, 64, 128
(MVI_PTS, MVI_DUR, MVI_GAP, MVI_DISCONT, MVI_FIELDS, MVI_SHORT, MVI_CUT,
 MVI_REFPTS) = 1, 2, 4, 8, 16, 32, 64, 128


def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def mvi_caps(fmt, rate, w, h):
    return (u8(MVI_FORMATS.index(fmt)) + u8(MVI_IN_RATES.index(rate))
            + u16(w - 1) + u16(h - 1))


def mvi(frames, fmt="I420", rate="25/1", out="60/1", w=64, h=48, auto=False,
        blend=False, threads=1):
    """A header, then frames: (op, bop, bytes before the timestamp's,
    bytes from the timestamp's on)."""
    first = (1 if auto else 0) | (2 if blend else 0) | (threads << 2)
    b = u8(first) + u8(MVI_OUT_RATES.index(out)) + u8(len(frames) - 1)
    b += mvi_caps(fmt, rate, w, h)
    for op, bop, pre, post in frames:
        b += u8(op) + u8(bop) + pre + post
    return b


def mvi_frame(step=STEP_40MS, mv=(4, 0), op=0, bop=0, pre=b"", mid=b"",
              fields=None):
    """A frame: its timestamp step, then `mid` (duration, short size,
    ref_pts), then the two fields, plausible (one vector each) unless
    `fields` spells them."""
    if fields is None:
        fields = (u8(mv[0]) + u8(mv[1])) * 2
    return (op, bop, pre, u8(step) + mid + fields)


# fuzz-mvdenoise.c: its tables and op bits
MVD_FORMATS = ["I420", "YV12", "Y42B", "Y444", "GRAY8", "I420_10LE",
               "I420_12LE", "I422_10LE", "Y444_16LE", "GRAY16_LE", "NV12",
               "YUY2", "P010_10LE", "RGBA", "BGRx", "UYVY", "I420_10BE"]
MVD_RATES = ["25/1", "30/1", "30000/1001", "0/1", "60/1", "1/1", "7/3",
             "2147483647/1"]
MVD_SIGMAS = [-1, 0, 1, 4.5, 10, 20, 100, 255]
MVD_OP_CAPS, MVD_OP_ESTIMATE, MVD_OP_FLUSH, MVD_OP_SEGMENT = 1, 2, 4, 8
MVD_OP_GAP, MVD_OP_PROPS, MVD_OP_LATENCY, MVD_OP_SKIP = 16, 32, 64, 128
(MVD_PTS, MVD_DUR, MVD_GAP, MVD_DISCONT, MVD_FIELDS, MVD_SHORT, MVD_CUT,
 MVD_REFPTS) = 1, 2, 4, 8, 16, 32, 64, 128


def mvd_props(radius=2, sigma=-1, threads=1):
    return u8((radius - 1) | (MVD_SIGMAS.index(sigma) << 2) | (threads << 5))


def mvd_caps(fmt, rate, w, h):
    return (u8(MVD_FORMATS.index(fmt)) + u8(MVD_RATES.index(rate))
            + u16(w - 1) + u16(h - 1))


def mvd(frames, fmt="I420", rate="25/1", w=64, h=48, auto=False, radius=2,
        sigma=-1, threads=1):
    """A header, then frames: (op, bop, bytes before the timestamp's,
    bytes from the timestamp's on)."""
    b = u8(1 if auto else 0) + mvd_props(radius, sigma, threads)
    b += u8(len(frames) - 1) + mvd_caps(fmt, rate, w, h)
    for op, bop, pre, post in frames:
        b += u8(op) + u8(bop) + pre + post
    return b


def mvd_frame(step=STEP_40MS, n_fields=4, mv=(4, 0), op=0, bop=0, pre=b"",
              mid=b"", fields=None):
    """A frame: its timestamp step, then `mid` (duration, short size), the
    number of fields (-1, +1, -2, +2, ... in that order), then the fields,
    plausible (one vector each) unless `fields` spells them."""
    if fields is None:
        fields = (u8(mv[0]) + u8(mv[1])) * n_fields
    return (op, bop, pre, u8(step) + mid + u8(n_fields - 1) + fields)


def mvdenoise_seeds(s):
    plain = [mvd_frame() for _ in range(8)]
    s["seed-empty"] = b""
    s["seed-plain"] = mvd(plain)
    s["seed-auto-threads"] = mvd(plain[:6], auto=True, threads=2)
    for r in (1, 3, 4):
        s["seed-radius-%d" % r] = mvd([mvd_frame(n_fields=2 * r)
                                       for _ in range(10)], radius=r)
    for sg in (0, 10, 255):
        s["seed-sigma-%g" % sg] = mvd(plain[:5], sigma=sg)
    for f in MVD_FORMATS:
        s["seed-format-" + f.lower()] = mvd(plain[:4], fmt=f, w=33, h=17)
    s["seed-1x1"] = mvd(plain[:4], w=1, h=1)
    s["seed-wide-8192x2"] = mvd(plain[:3], w=8192, h=2, fmt="GRAY8")
    s["seed-only-past"] = mvd([mvd_frame(n_fields=1) for _ in range(5)])
    s["seed-variable-rate"] = mvd([mvd_frame(k) for k in (0, 3, 9, 10, 2)],
                                  rate="0/1")
    s["seed-caps-change"] = mvd(
        plain[:3] + [mvd_frame(op=MVD_OP_CAPS,
                               pre=mvd_caps("Y444", "30/1", 97, 61))]
        + plain[:3])
    s["seed-caps-refused"] = mvd(
        plain[:3] + [mvd_frame(op=MVD_OP_CAPS,
                               pre=mvd_caps("I420_10BE", "30/1", 32, 32))]
        + plain[:2])
    s["seed-props-estimate"] = mvd(
        plain[:3] + [mvd_frame(op=MVD_OP_PROPS | MVD_OP_ESTIMATE,
                               pre=mvd_props(4, -1, 0))] + plain[:4])
    s["seed-flush"] = mvd(plain[:4] + [mvd_frame(op=MVD_OP_FLUSH)]
                          + plain[:3])
    s["seed-segment"] = mvd(
        plain[:3] + [mvd_frame(op=MVD_OP_SEGMENT,
                               pre=u8(1) + u8(0x80) + u32(10**9))]
        + plain[:3])
    s["seed-segment-bytes"] = mvd(
        plain[:3] + [mvd_frame(op=MVD_OP_SEGMENT, pre=u8(0x80))] + plain[:2])
    s["seed-gap-event"] = mvd(plain[:3] + [mvd_frame(op=MVD_OP_GAP)]
                              + plain[:3])
    s["seed-gap-buffer"] = mvd(plain[:3] + [(0, MVD_GAP, b"", u8(0))]
                               + plain[:3])
    s["seed-discont"] = mvd(plain[:4] + [mvd_frame(bop=MVD_DISCONT)]
                            + plain[:3])
    s["seed-cut"] = mvd(plain[:4] + [mvd_frame(bop=MVD_CUT)] + plain[:3])
    s["seed-latency-skip"] = mvd(plain[:2] + [
        (MVD_OP_LATENCY | MVD_OP_SKIP, 0, b"", b"")] + plain[:2])
    s["seed-pts-duplicate"] = mvd(plain[:3] + [mvd_frame(STEP_DUP)]
                                  + plain[:2])
    s["seed-pts-backwards"] = mvd(plain[:3] + [mvd_frame(STEP_BACK)]
                                  + plain[:2])
    s["seed-short-buffer"] = mvd(plain[:3] + [mvd_frame(bop=MVD_SHORT,
                                                        mid=u16(100))]
                                 + plain[:2])
    # every field broken its own way (the how byte, then what it asks)
    s["seed-hostile-fields"] = mvd(plain[:3] + [mvd_frame(
        bop=MVD_FIELDS, fields=u8(1) + u8(4) + u16(31) + u16(17)
        + u8(16) + u8(2) + u8(0) + u8(0) + u8(8) + u8(9) + u8(2)
        + u8(0) * 20)] + plain[:3])


def mvinterpolate_seeds(s):
    plain = [mvi_frame() for _ in range(8)]
    s["seed-empty"] = b""
    s["seed-25-to-60"] = mvi(plain)
    s["seed-ntsc-to-60"] = mvi([mvi_frame(STEP_NTSC) for _ in range(6)],
                               rate="30000/1001")
    s["seed-film-to-ntsc60"] = mvi([mvi_frame(STEP_FILM) for _ in range(6)],
                                   rate="24000/1001", out="60000/1001")
    s["seed-25-to-1001-30000"] = mvi(plain[:4], out="1001/30000")
    s["seed-25-to-7-3"] = mvi(plain[:4], out="7/3")
    s["seed-rate-free"] = mvi(plain[:4], out="free", rate="0/1")
    s["seed-variable-rate"] = mvi([mvi_frame(k) for k in (0, 3, 9, 10, 2)],
                                  rate="0/1", out="50/1")
    s["seed-blend-threads"] = mvi(plain[:5], blend=True, threads=2, auto=True)
    for f in MVI_FORMATS:
        s["seed-format-" + f.lower()] = mvi(plain[:3], fmt=f, w=33, h=17)
    s["seed-1x1"] = mvi(plain[:3], w=1, h=1)
    s["seed-wide-8192x2"] = mvi(plain[:3], w=8192, h=2, fmt="GRAY8")
    s["seed-caps-change-odd"] = mvi(
        plain[:2] + [mvi_frame(op=MVI_OP_CAPS,
                               pre=mvi_caps("Y444", "30/1", 97, 61))]
        + plain[:2])
    s["seed-caps-refused"] = mvi(
        plain[:2] + [mvi_frame(op=MVI_OP_CAPS,
                               pre=mvi_caps("NV12", "30/1", 32, 32))]
        + plain[:2])
    s["seed-rate-change"] = mvi(
        plain[:3] + [mvi_frame(op=MVI_OP_RATE | MVI_OP_CAPS,
                               pre=u8(MVI_OUT_RATES.index("30000/1001"))
                               + mvi_caps("I420", "30/1", 64, 48))]
        + plain[:3])
    s["seed-flush"] = mvi(plain[:3] + [mvi_frame(op=MVI_OP_FLUSH)]
                          + plain[:2])
    # a segment starting at 1 s (edgy: 0x80, then the value)
    s["seed-segment"] = mvi(
        plain[:3] + [mvi_frame(op=MVI_OP_SEGMENT,
                               pre=u8(1) + u8(0x80) + u32(10**9))]
        + plain[:2])
    s["seed-segment-bytes"] = mvi(
        plain[:2] + [mvi_frame(op=MVI_OP_SEGMENT, pre=u8(0x80))] + plain[:2])
    s["seed-segment-huge"] = mvi(
        plain[:2] + [mvi_frame(op=MVI_OP_SEGMENT,
                               pre=u8(2) + u64(2**64 - 2**20))] + plain[:2])
    s["seed-gap-event"] = mvi(plain[:3] + [mvi_frame(op=MVI_OP_GAP)]
                              + plain[:2])
    # a GAP event after a frame without a timestamp (the target's GAP is
    # at the last frame's time, 0 then)
    s["seed-gap-after-no-pts"] = mvi(
        plain[:2] + [mvi_frame(0, bop=MVI_PTS), mvi_frame(op=MVI_OP_GAP)]
        + plain[:2])
    s["seed-gap-buffer"] = mvi(plain[:3] + [mvi_frame(bop=MVI_GAP)]
                               + plain[:2])
    s["seed-latency-skip"] = mvi(plain[:2] + [
        (MVI_OP_LATENCY | MVI_OP_SKIP, 0, b"", b"")] + plain[:2])
    s["seed-pts-duplicate"] = mvi(plain[:2] + [mvi_frame(STEP_DUP)]
                                  + plain[:2])
    s["seed-pts-backwards"] = mvi(plain[:2] + [mvi_frame(STEP_BACK)]
                                  + plain[:2])
    # BUF_PTS: 0 none, 1 zero, 2 G_MAXUINT64 - 1, 3 G_MAXINT64, 4 any
    s["seed-pts-none"] = mvi(plain[:2] + [mvi_frame(0, bop=MVI_PTS)]
                             + plain[:2])
    s["seed-pts-near-end"] = mvi([mvi_frame(2, bop=MVI_PTS)] + plain[:3])
    s["seed-pts-int64-max"] = mvi([mvi_frame(3, bop=MVI_PTS)] + plain[:3])
    s["seed-pts-jump"] = mvi(plain[:2] + [mvi_frame(STEP_1S)] + plain[:2])
    # durations: k & 1 none, k & 2 edgy, else (k >> 2) ms
    s["seed-no-duration"] = mvi(
        [mvi_frame(bop=MVI_DUR, mid=u8(1)) for _ in range(3)], rate="0/1")
    s["seed-duration-huge"] = mvi(
        [mvi_frame(bop=MVI_DUR, mid=u8(2) + u8(0x80) + u32(0xFFFFFFFF))
         for _ in range(3)])
    s["seed-short-buffer"] = mvi(plain[:2] + [mvi_frame(
        bop=MVI_SHORT, mid=u16(100))] + plain[:1])
    # downstream answers EOS to the 512th frame of a push (the target's
    # cap): the frames of that pair left unmade, the next one out is
    # flagged DISCONT (before: it followed the gap unflagged)
    s["seed-downstream-eos-mid-pair"] = mvi(
        [mvi_frame(), mvi_frame(STEP_1S), mvi_frame(), mvi_frame()],
        out="2147483647/2147483", w=16, h=16)
    # found by fuzzing: a buffer shorter than its caps' frame is taken and
    # held; the error ("could not map an input frame") comes with the
    # frames of the next pair, or of the drain at a gap buffer
    s["found-short-buffer-held"] = bytes.fromhex(
        "346c6962677374707974686f6e5d0e3a11")
    s["found-short-buffer-then-gap"] = bytes.fromhex(
        "04000206a07350239d1b20001000000000000000000400040000000404000400")
    # found by fuzzing (a hang): downstream EOS mid-pair, the next frame at
    # 2^64 - 2 ns; the drain at EOS stepped k one output frame at a time
    # towards it
    s["found-skip-to-end-of-clock"] = bytes.fromhex(
        "105d04002f00006c6962677374707974686f6e00040000020001040004000201"
        "0020002f0a1000000000040004000000000400040000000004000400")
    # found by fuzzing: a cut summary on a field without a 16x16 grid (the
    # target's own assertion: such a field may have no summary to compute)
    s["found-cut-summary-not-computable"] = bytes.fromhex(
        "0a0fb7326c6962677374705b52c9d94e5630be79651530b7326c696267737470"
        "7974686f6e")
    # found by fuzzing: new caps whose first frame lies before the end of
    # the frame drained with the old caps (same output rate): the output
    # times went back (51.83 ms again after 64.33 ms)
    s["found-caps-change-times-back"] = bytes.fromhex(
        "df2f3dd9d9d9d9d9d9d9d9d8d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9"
        "d9d9d9d9d9d9d9d9d9d9000000000000d9d9d9d9d9d9d9d90c00000000000000"
        "d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9d9"
        "d9d9d9d9d9d900000000000000000000000100000000000000d9d9d9d9d9d9d9"
        "d90c000000000000002f3de606ff0106e60808")
    s["seed-cut-repeat"] = mvi(plain[:2] + [mvi_frame(bop=MVI_CUT)]
                               + plain[:2])
    s["seed-cut-blend"] = mvi(plain[:2] + [mvi_frame(bop=MVI_CUT)]
                              + plain[:2], blend=True)
    s["seed-ref-pts-wrong"] = mvi(plain[:2] + [mvi_frame(
        bop=MVI_REFPTS, mid=u64(12345) + u64(2**63))] + plain[:2])

    # hostile fields: the -1 field's byte, then the +1 field's, then
    # whether a third comes; 1 missing, 2 partitions, 4 size, 8 cells, 16
    # reference, 32 NO_REFERENCE flipped, 64 raw summary, 128 a field
    def hostile(how_m1, how_p1, extra_m1=b"", extra_p1=b"", third=0):
        def field(how, extra):
            b = u8(how) + extra
            if not how & 1 and not how & 8 and not extra:
                b += u8(4) + u8(0)
            return b
        return field(how_m1, extra_m1) + field(how_p1, extra_p1) + u8(third)

    def fields_frame(f):
        return mvi_frame(bop=MVI_FIELDS, fields=f)
    s["seed-field-missing-prev"] = mvi(plain[:2] + [fields_frame(
        hostile(1, 0))] + plain[:2])
    s["seed-field-missing-next"] = mvi(plain[:2] + [fields_frame(
        hostile(0, 1))] + plain[:2])
    s["seed-field-other-size"] = mvi(plain[:2] + [fields_frame(
        hostile(4, 0, u16(31) + u16(47) + u8(4) + u8(0)))] + plain[:2])
    s["seed-field-8x8-only"] = mvi([fields_frame(hostile(
        2, 2, u8(0x08) + u8(4) + u8(0), u8(0x08) + u8(4) + u8(0)))
        for _ in range(4)])
    s["seed-field-shapes-disjoint"] = mvi([fields_frame(hostile(
        2, 2, u8(0x08) + u8(4) + u8(0), u8(0x40) + u8(4) + u8(0)))
        for _ in range(4)])
    # cells: fill seed, count, then (index, edgy mv_x, mv_y, cost)
    huge = (u8(3) + u8(3) + u16(0) + u8(0x80) + u32(0x7FFF) + u8(0x80)
            + u32(0x8000) + u8(0x80) + u32(0xFFFFFFFF) + u16(5) + u8(0x80)
            + u32(0x8000) + u8(0x80) + u32(0x7FFF) + u8(0) + u16(11)
            + u8(0x80) + u32(0x8001) + u8(0x80) + u32(0x7FFF) + u8(1))
    s["seed-vectors-huge"] = mvi([fields_frame(hostile(8, 8, huge, huge))
                                  for _ in range(4)])
    s["seed-vectors-random"] = mvi([fields_frame(hostile(
        8, 8, u8(9) + u8(0), u8(10) + u8(0))) for _ in range(4)],
        fmt="I420_10LE", w=47, h=29)
    s["seed-field-wrong-reference"] = mvi(plain[:2] + [fields_frame(
        hostile(16, 16, u8(4) + u8(0) + u8(0), u8(4) + u8(0) + u8(1)))]
        + plain[:2])
    s["seed-field-no-reference-flag"] = mvi(plain[:2] + [fields_frame(
        hostile(32, 32))] + plain[:2])
    s["seed-field-summary-raw"] = mvi(plain[:2] + [fields_frame(
        hostile(64, 0, u8(4) + u8(0) + u8(7)))] + plain[:2])
    s["seed-field-edited-grid"] = mvi(plain[:2] + [fields_frame(hostile(
        128, 0, u8(4) + u8(0) + u8(3) + u8(0) + u8(0x80) + u32(1 << 20)
        + u8(0x80) + u32(1 << 20) + u8(0x80) + u32(0xFFFFFFF0)))]
        + plain[:2])
    s["seed-field-third"] = mvi([fields_frame(hostile(0, 0, third=1)
                                              + u8(0) + u8(4) + u8(0))
                                 for _ in range(3)])


# fuzz-mc.c: the arguments of mc_predict_plane() and
# mc_interpolate_picture()
def mc_size(w, h, depth=8, shifted=False):
    """pick_size(): how, width - 1, height - 1 (depth 10 by bit 8, any by
    bit 4; bit 32: shift 16 - depth)."""
    how = 0
    extra = b""
    if depth == 10:
        how |= 8
    elif depth != 8:
        how |= 4
        extra += u8(depth)
    if shifted:
        how |= 32
    return u8(how) + u16(w - 1) + u16(h - 1) + extra


def mc_plane(pad=0, seed=1):
    """plane_alloc(): how (bits 0-1: padding of the rows), fill seed."""
    return u8(pad & 3) + u8(seed)


# block_sides[] indices: 16, 8, 4
MC_B16, MC_B8, MC_B4 = 0, 1, 2


def mc_field(block=MC_B16, seed=3, edits=()):
    """field_make(): how, block index, extra cols and rows, fill seed, then
    edits of cells (index, edgy mv_x, mv_y, cost); bit 32: any vectors."""
    how = 32 if edits else 0
    b = u8(how) + u8(block) + u8(0) + u8(1) + u8(seed) + u8(len(edits))
    for i, mx, my, cost in edits:
        b += u16(i) + edgy(mx) + edgy(my) + edgy(cost)
    return b


def mc_options(threads=1, obmc=True):
    return u8((0 if obmc else 1) | (threads << 1))


def mc_predict(w, h, depth=8, shifted=False, sub=(0, 0), block=MC_B16,
               threads=1, obmc=True, edits=()):
    how = sub[0] | (sub[1] << 3)
    return (u8(0) + mc_size(w, h, depth, shifted) + u8(how) + mc_plane(1, 5)
            + mc_plane(2, 6) + mc_field(block, 7, edits)
            + mc_options(threads, obmc))


def mc_interp(w, h, chroma, depth=8, shifted=False, num=5, den=12, mode=0,
              block=MC_B16, threads=1, edits=()):
    """chroma: 0 none, 1 4:2:0, 2 4:2:2, 3 4:4:4; mode 0 motion, 1 blend,
    2 repeat."""
    b = u8(1) + u8(0) + u8(0) + u8(chroma) + mc_size(w, h, depth, shifted)
    for pic in range(3):
        for plane in range(3):
            b += mc_plane(pic + plane, 10 * pic + plane + 1)
    b += mc_field(block, 9, edits) + u8(11)
    b += u16(den - 1) + u16(num) + u8(mode) + mc_options(threads)
    return b


def mc_seeds(s):
    s["seed-empty"] = b""
    s["seed-predict-64x48"] = mc_predict(64, 48)
    s["seed-predict-odd-8x8-no-obmc"] = mc_predict(37, 23, block=MC_B8,
                                                   obmc=False)
    s["seed-predict-chroma-420"] = mc_predict(17, 9, sub=(1, 1), block=MC_B8)
    s["seed-predict-10bit-shifted"] = mc_predict(40, 24, depth=10,
                                                 shifted=True, block=MC_B4)
    s["seed-predict-16bit-threads"] = mc_predict(64, 64, depth=16, threads=3)
    s["seed-predict-huge-vectors"] = mc_predict(48, 32, edits=(
        (0, 0x7FFF, 0x8000, 0xFFFFFFFF), (3, 0x8000, 0x7FFF, 0),
        (5, 0x8001, 0x8001, 1)))
    for c, name in enumerate(("gray", "420", "422", "444")):
        s["seed-interp-" + name] = mc_interp(33, 17, c)
    s["seed-interp-420-threads"] = mc_interp(64, 48, 1, threads=3)
    s["seed-interp-12bit-blend"] = mc_interp(31, 15, 1, depth=12, mode=1)
    s["seed-interp-10bit-shifted-repeat"] = mc_interp(31, 15, 2, depth=10,
                                                      shifted=True, mode=2)
    s["seed-interp-8x8-t-1-65536"] = mc_interp(40, 40, 3, num=1, den=65536,
                                               block=MC_B8)
    # found by fuzzing (a timeout of the target): the chroma planes of a
    # luma plane beyond the limits, described over small blocks
    s["found-chroma-of-oversize-luma"] = bytes.fromhex(
        "97" * 55 + "c5a89411caca")
    s["seed-interp-huge-vectors"] = mc_interp(48, 32, 1, threads=2, edits=(
        (0, 0x7FFF, 0x7FFF, 0), (1, 0x8000, 0x8000, 0),
        (4, 0x8000, 0x7FFF, 0xFFFFFFFF)))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus")
    seeds = {"element": {}, "meta": {}}
    e = seeds["element"]

    # the empty input: every field at its zero default, a 1x1 I420 frame
    e["seed-empty"] = b""
    e["seed-i420-3-frames"] = element([plain(1), plain(2), plain(3)])
    for i, fmt in enumerate(FORMATS):
        e["seed-format-%s" % fmt.lower()] = element(
            [plain(i), plain(i + 1)], fmt=fmt, w=33, h=17)
    e["seed-1x1"] = element([plain(), plain()], w=1, h=1)
    e["seed-odd-333x201-all-shapes"] = element(
        [plain(4), plain(5)], w=333, h=201, srange=4, parts=0x7F)
    e["seed-wide-8192x8"] = element([plain(), plain()], w=8192, h=8,
                                     fmt="GRAY8")
    e["seed-tall-1x8192"] = element([plain(), plain()], w=1, h=8192,
                                     fmt="NV12")
    e["seed-range-128"] = element([plain(), plain()], w=16, h=16,
                                   srange=128)
    e["seed-in-flight-16"] = element([plain(i) for i in range(8)],
                                      in_flight=16)
    e["seed-discont"] = element([plain(1), (0, BUF_DISCONT, u8(2)),
                                 plain(3)])
    e["seed-caps-change"] = element(
        [plain(1), (OP_CAPS, 0, caps("NV12", 40, 30) + u8(2)), plain(3)])
    # range, partitions, in-flight, method (0 full .. 3 predictive), then
    # the frame's fill seed
    e["seed-props-change"] = element(
        [plain(1), (OP_PROPS, 0, u8(2) + u8(0x7F) + u8(3) + u8(2) + u8(2)),
         plain(3)], in_flight=2)
    e["seed-props-mods"] = element(
        [plain(1), (OP_PROPS, 0, u8(4) + u8(0x7F) + u8(2) + u8(1) + u8(2)),
         plain(3), plain(4)], in_flight=2)
    e["seed-props-predictive"] = element(
        [plain(1), (OP_PROPS, 0, u8(4) + u8(0x09) + u8(3) + u8(3) + u8(2)),
         plain(3), plain(4), plain(5),
         (OP_PROPS, 0, u8(4) + u8(0x01) + u8(1) + u8(3) + u8(6)), plain(7)],
        in_flight=2)
    # the first byte's bits above the backend turn on the encoder hints:
    # 2 keyframe-on-cut, 4 roi, 8 motion-events, 16 a cut threshold of 0,
    # the top three the most regions - 1 and the message interval (x 20 ms)
    hints = 1 | 2 | 4 | 8 | 16 | (3 << 5)
    e["seed-hints"] = element([plain(i) for i in range(6)], backend=hints,
                              in_flight=3, w=96, h=64, fmt="GRAY8")
    e["seed-hints-flush"] = element(
        [plain(1), plain(2), (OP_FLUSH, 0, u8(3)), plain(4), plain(5)],
        backend=hints, in_flight=2)
    e["seed-backend-reopen"] = element(
        [plain(1), (OP_BACKEND, 0, u8(1) + u8(2)), plain(3)])
    e["seed-flush"] = element(
        [plain(1), (OP_FLUSH | OP_LATENCY, 0, u8(2)), plain(3)], in_flight=3)
    e["seed-segment"] = element([plain(1), (OP_SEGMENT, 0, u8(2))])
    e["seed-skip-gap"] = element([(OP_SKIP, 0, b""), (0, BUF_GAP, u8(1))])
    e["seed-pool"] = element([(OP_POOL, 0, b""), (OP_POOL, 0, b"")])
    e["seed-short-buffer"] = element([(0, BUF_SIZE, u32(100) + u8(1))])
    e["seed-empty-buffer"] = element([(0, BUF_EMPTY, b"")])
    # video metas: the caps' layout, padded rows, and wrong fields
    e["seed-meta-plain"] = element([(0, BUF_META, u8(1) + u8(0)),
                                    (0, BUF_META, u8(2) + u8(0))])
    e["seed-meta-padded"] = element(
        [(0, BUF_SIZE | BUF_META, u32(64 * 48 * 2) + u8(1) + u8(8)
          + u8(16) + u8(8) + u8(8) + u8(0))])
    e["seed-meta-stride-negative"] = element(
        [(0, BUF_META, u8(1) + u8(16) + edgy(-64) + edgy(32) + edgy(32))])
    e["seed-meta-offset-past-end"] = element(
        [(0, BUF_META, u8(1) + u8(32 | 64) + edgy(1 << 20) + edgy(0)
          + edgy(0))])
    e["seed-meta-wrong-format"] = element(
        [(0, BUF_META, u8(1) + u8(1) + u8(7))])
    e["seed-meta-small-size"] = element(
        [(0, BUF_META, u8(1) + u8(2) + edgy(16) + edgy(16))])
    e["seed-meta-one-plane"] = element(
        [(0, BUF_META, u8(1) + u8(4) + u8(0))])
    # found by fuzzing: a video meta 2^31 pixels wide (docs/ci.md)
    e["crash-meta-width-2g"] = element(
        [(0, BUF_META, u8(1) + u8(2) + edgy(0x80000000) + edgy(48))])

    m = seeds["meta"]
    SET_SIZE, SET_ANALYSIS, SET_REF, SET_METHOD = 1, 2, 4, 8
    SET_PARTITIONS, SET_GRIDS, SET_DATA, SET_SUMMARY = 16, 32, 64, 128
    RUN_EXPORT, RUN_OVERLAY, RUN_SCALE, RUN_COPY = 256, 512, 1024, 2048
    RUN_ALL = RUN_EXPORT | RUN_OVERLAY | RUN_SCALE | RUN_COPY
    # read_meta() takes two edgy values per shape for its random cell
    cells = (u8(0) + u8(0)) * 7
    # run_scale(): in and out sizes; run_export(): format, shapes;
    # run_overlay(): format, size, then ten settings; each of the two
    # then whether it writes or draws the summary
    scale = u16(64) + u16(48) + u16(128) + u16(96)
    export = u8(0) + u8(0x7F) + u8(1)
    overlay = (u8(0) + u8(63) + u8(47) + bytes([0, 0, 0, 0, 1, 1, 4, 128, 0, 0])
               + u8(1))
    tail = cells + cells + scale + cells + export + overlay
    m["seed-empty"] = b""
    m["seed-valid"] = meta_seed(64, 48, 1, RUN_ALL, tail)
    m["seed-valid-all-shapes"] = meta_seed(333, 201, 0x7F, RUN_ALL, tail)
    m["seed-valid-csv"] = meta_seed(
        17, 9, 0x09, RUN_EXPORT, cells + u8(1) + u8(0x7F) + u8(1))
    m["seed-size-zero"] = meta_seed(
        64, 48, 1, SET_SIZE | RUN_ALL, u8(0) + u8(0) + tail)
    m["seed-analysis-huge"] = meta_seed(
        64, 48, 1, SET_ANALYSIS | RUN_ALL, edgy(0xFFFFFFFF) + edgy(1) + tail)
    m["seed-partitions-extra"] = meta_seed(
        64, 48, 1, SET_PARTITIONS | RUN_ALL, u8(1) + edgy(0xFF) + tail)
    m["seed-grids-overflow"] = meta_seed(
        64, 48, 1, SET_GRIDS | RUN_ALL,
        u8(1) + edgy(0x10000) + edgy(0x10000) + edgy(0xFFFFFFF0) + tail)
    # a summary of raw bytes (any doubles, any private words) read, written
    # and drawn
    m["seed-summary-raw"] = meta_seed(64, 48, 1, SET_SUMMARY | RUN_ALL,
                                      u32(11) + tail)
    m["seed-data-null"] = meta_seed(64, 48, 1, SET_DATA | RUN_ALL,
                                    u8(0) + tail)
    m["seed-data-short"] = meta_seed(64, 48, 1, SET_DATA | RUN_ALL,
                                     u8(1) + u32(100) + tail)
    m["seed-ref-method"] = meta_seed(
        64, 48, 1, SET_REF | SET_METHOD | RUN_EXPORT,
        edgy(0x80000000) + u32(5) + u32(6) + edgy(3) + edgy(9) + edgy(1000)
        + cells + export)

    # Several fields, stereo views and decisions (the bits above RUN_COPY).
    SET_VIEW, SET_CHOSEN, MORE_METAS, RUN_STEREO = 4096, 8192, 16384, 32768
    # decision_refs[] indices: -1, -2, +1, +2, -3, 0, 127, -128
    R_M1, R_M2, R_P1, R_P2, R_0 = 0, 1, 2, 3, 5
    # set_view(): view 0/1, the inter-view flag, ref_distance 0 or one of
    # decision_refs
    def set_view(view, inter=False, ref=None):
        how = view | (2 if inter else 0)
        if inter:
            return u8(how | 4)
        return u8(how | 8) + u8(ref) if ref is not None else u8(how)

    def field(mask, parts=1, same=True, extra=b"", size=(64, 48)):
        """A further field: its mask, size (or the first's), shapes,
        cell seed, then what its mask asks for."""
        return (u16(mask) + u16(size[0] - 1) + u16(size[1] - 1) + u8(parts)
                + u8(same) + u32(9) + extra)

    def stereo_overlay(mode, view=-1, ref=R_M1, chosen=False, colours=False):
        # run_overlay(): the older bytes (I420 64x48 x2 wide for the
        # halves), then how, multiview mode, view + 1, reference
        modes = {"none": 0, "sbs": 1, "tb": 2, "fbf": 3, "rows": 4}
        return (u8(0) + u8(127) + u8(47)
                + bytes([0, 0, 0, 0, 1, 1, 4, 128, 0, 0]) + u8(1)
                + u8((1 if chosen else 0) | (2 if colours else 0))
                + u8(modes[mode]) + u8(view + 1) + u8(ref))

    def decision(n_mb, modes_idx, refs_idx):
        # set_decision() through the setters: a shape index per
        # macroblock, a distance index per run of four 4x4 blocks
        return (u8(0) + bytes(modes_idx[i % len(modes_idx)]
                              for i in range(n_mb))
                + bytes(refs_idx[i % len(refs_idx)]
                        for i in range(4 * n_mb)))

    n_mb = 4 * 3                 # 64x48
    stereo_tail = cells + cells + scale + cells + export
    # side-by-side: view 0 against -1, view 1 against -1, view 1's
    # disparity; drawn in halves, each view's own, then the disparity
    sbs_fields = (u8(1) + field(SET_VIEW, extra=set_view(1, ref=R_M1))
                  + field(SET_VIEW, extra=set_view(1, inter=True)))
    for name, view, ref in (("each", -1, R_M1), ("disparity", 1, R_0)):
        m["seed-stereo-sbs-" + name] = meta_seed(
            64, 48, 1, MORE_METAS | RUN_ALL | RUN_STEREO,
            sbs_fields + stereo_tail + stereo_overlay("sbs", view, ref))
    m["seed-stereo-top-bottom"] = meta_seed(
        64, 48, 1, MORE_METAS | RUN_ALL | RUN_STEREO,
        sbs_fields + stereo_tail + stereo_overlay("tb"))
    # a frame-by-frame second view's buffer: view 1 fields only
    m["seed-stereo-frame-by-frame"] = meta_seed(
        64, 48, 1, SET_VIEW | MORE_METAS | RUN_ALL | RUN_STEREO,
        set_view(1, ref=R_M1) + u8(0) + field(SET_VIEW, extra=set_view(
            1, inter=True)) + stereo_tail + stereo_overlay("fbf", 1, R_0))
    m["seed-stereo-rows"] = meta_seed(
        64, 48, 1, MORE_METAS | RUN_OVERLAY | RUN_STEREO,
        sbs_fields + cells + stereo_overlay("rows"))
    # a decision of -1, -2, +1 on the first field (16x16 + 8x8), the
    # fields it names of its size, and a field of the other view against
    # +1 before them; exported and drawn chosen, in reference colours
    both = 0x09
    dec = decision(n_mb, [0, 1, 0, 0, 1], [R_M1, R_M2, R_P1, R_M1])
    m["seed-decision-refs"] = meta_seed(
        64, 48, both, SET_CHOSEN | MORE_METAS | RUN_ALL | RUN_STEREO,
        dec + u8(2)
        + field(SET_VIEW, both, extra=set_view(1, ref=R_P1))
        + field(SET_VIEW, both, extra=set_view(0, ref=R_M2))
        + field(SET_VIEW, both, extra=set_view(0, ref=R_P1))
        + stereo_tail + stereo_overlay("none", chosen=True, colours=True))
    m["seed-decision-refs-csv"] = meta_seed(
        64, 48, both, SET_CHOSEN | MORE_METAS | RUN_EXPORT,
        dec + u8(1) + field(SET_VIEW, both, extra=set_view(0, ref=R_M2))
        + field(SET_VIEW, both, extra=set_view(0, ref=R_P1))
        + cells + u8(1) + u8(0x7F) + u8(0))
    # decisions that cannot be followed: a 0 refused by the setter, a
    # field named of another size, raw bytes of the wrong sizes with
    # their flags
    m["seed-decision-zero"] = meta_seed(
        64, 48, both, SET_CHOSEN | MORE_METAS | RUN_ALL | RUN_STEREO,
        decision(n_mb, [1], [R_M1, R_0]) + u8(0)
        + field(SET_VIEW, both, extra=set_view(0, ref=R_M2))
        + stereo_tail + stereo_overlay("none", chosen=True, colours=True))
    m["seed-decision-other-size"] = meta_seed(
        64, 48, both, SET_CHOSEN | MORE_METAS | RUN_ALL | RUN_STEREO,
        dec + u8(1) + field(SET_VIEW, both, same=False, size=(48, 48),
                            extra=set_view(0, ref=R_M2))
        + field(SET_VIEW, both, extra=set_view(0, ref=R_P1))
        + stereo_tail + stereo_overlay("none", chosen=True, colours=True))
    # raw: modes of the wrong size (an inconsistent meta), or of the right
    # size with chosen references of the wrong size, flags set
    m["seed-decision-raw"] = meta_seed(
        64, 48, both, SET_CHOSEN | RUN_ALL | RUN_STEREO,
        u8(1 | 2 | 4) + u16(5) + u8(3) * 5 + u16(40) + u8(R_M1) * 10
        + stereo_tail + stereo_overlay("none", chosen=True, colours=True))
    m["seed-decision-raw-refs-size"] = meta_seed(
        64, 48, both, SET_CHOSEN | MORE_METAS | RUN_ALL | RUN_STEREO,
        u8(1 | 2 | 4) + u16(n_mb) + u8(3) * n_mb + u16(40) + u8(R_M1) * 10
        + u8(0) + field(SET_VIEW, both, extra=set_view(0, ref=R_M2))
        + stereo_tail + stereo_overlay("none", chosen=True, colours=True))

    mvinterpolate_seeds(seeds.setdefault("mvinterpolate", {}))
    mvdenoise_seeds(seeds.setdefault("mvdenoise", {}))
    mc_seeds(seeds.setdefault("mc", {}))

    for target, files in seeds.items():
        d = os.path.join(root, target)
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print("%s: %d seeds in %s" % (target, len(files), d))


if __name__ == "__main__":
    main()
