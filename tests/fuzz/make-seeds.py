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

    for target, files in seeds.items():
        d = os.path.join(root, target)
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print("%s: %d seeds in %s" % (target, len(files), d))


if __name__ == "__main__":
    main()
