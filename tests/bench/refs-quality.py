#!/usr/bin/env python3
"""Quality of several references: what a list of reference frames buys a
coder, against one reference and against x264 with several.

    refs-quality.py selftest
    refs-quality.py score CLIP [--frames N] [--lists=-1:-1,-2,-3,-4:-1,+1]
                    [--configs LIST] [--choice element|field]
                    [--no-ref-cost] [--x264 p,b] [--x264-extra PARAMS]
                    [--preset medium] [--qp 23] [--build DIR] [--json OUT]

`score` runs CLIP through gpumotionest once per configuration (the format
of mvquality.py, R<range>:<partitions>:<subpel>:<metric>[:qp<Q>|:l<L>]
[:md]) and reference list (`references=`, lists separated by colons),
and builds, per frame, the field a coder with that list of reference
pictures would code:

  choice    --choice element (the default): with `md`, the element's own
            decision of each partition's shape and reference (modes and
            chosen_refs on the first field, docs/references.md); at 16x16
            alone, where the element decides nothing, its rule applied
            here: the macroblocks in decoding order, each taking the
            reference of least distortion (the cell's cost less its own
            rate term) + lambda x (ref_idx bits + bits of the MVD against
            the H.264 prediction from the macroblocks already decided),
            checked against the element's choice in every macroblock it
            codes 16x16 in the `md` runs.  --choice field: each macroblock
            takes the reference whose field costs least there, by the
            field's own cost (the cell's; with `md`, that field's
            partition decision, docs/mode-decision.md, made here for
            every field and checked against the element's where it
            decides a single field), plus lambda x the ref_idx bits (not
            with --no-ref-cost).  Either way the first of the list wins a
            tie, and a reference that does not exist for the frame (near
            the ends of the clip) is not a candidate.
  MC-PSNR   each block predicted from its reference's ORIGINAL frame, past
            or future, with its vector, interpolated as H.264 does
            (mvquality.py's predict()); over every pixel of the frames 1 ..
            N-1, the same frames for every list.
  MVD bits  se(v) of each component of each partition's MVD, the MVD taken
            here against the H.264 prediction of clause 8.4.1.3 with
            reference indices: a neighbour counts only when it has the
            same reference (if exactly one of A, B, C has it, its vector;
            the directional rules of 16x8 and 8x16 likewise), which is not
            what the element stores (the median of the same field's
            neighbours, as if every block had that field's reference).
  ref bits  te(v) of each coded ref_idx: the index of the reference among
            those that exist for the frame, in the list's order; 0 bits
            with one, 1 bit with two, ue(v) with more.  One ref_idx per
            16x16, 16x8 or 8x16 partition, one per 8x8 sub-macroblock.

x264 (--x264 p: P frames only, --ref 4; b: --bframes 2 --ref 4, no B
pyramid, no weighted prediction) is encoded from the same luma and scored
the same way from the vectors libavcodec exports (+export_mvs, through
mvquality-avmvs.c).  The export has no reference index, so it is found:
for each exported partition, the reference picture of its list (and for a
B partition, L0, L1 or both) whose motion-compensated DECODED picture is
closest to the decoded partition (SAD over the 4x4 centre of each 8x8
block, out of the deblocking filter's reach; among equal SADs the choice
costing x264 the fewest bits, a P macroblock that could be skipped with
reference 0).  x264's statistics file (its two-pass "stats", written
without changing the stream) gives each frame's list 0 size and its count
of each ref_idx, against which the inference is checked (list 1 sizes
come from the slice headers, through FFmpeg's trace_headers);
--x264-extra no-deblock=1 encodes without the filter, to see whether it
changes the comparison.  Intra macroblocks have no vector: the previous
frame, unmoved.  Skipped and direct macroblocks cannot be told from coded
ones in the export and are charged as coded, as every block of our fields
is.

`selftest` checks the prediction with reference indices against
mvquality.py's single-reference median on random fields and against
hand-worked cases.  This is a benchmark, not a test: it measures and
prints, and fails only on an internal inconsistency (a field whose
prediction or partition decision differs from the element's own).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mvquality as mq  # noqa: E402

SHAPES = ["16x16", "16x8", "8x16", "8x8", "8x4", "4x8", "4x4"]
# bits of each shape's mb_type and sub_mb_types, the element's
# me_mode_type_bits() (docs/mode-decision.md)
MODE_BITS = [1, 3, 3, 9, 17, 17, 25]
# the directional rules of clause 8.4.1.3: which neighbour a 16x8 or 8x16
# partition takes when it has the same reference
KIND_NONE, KIND_16X8_TOP, KIND_16X8_BOTTOM, KIND_8X16_LEFT, \
    KIND_8X16_RIGHT = range(5)


# ---------------------------------------------------------------------------
# Partitions and the H.264 prediction with reference indices
# ---------------------------------------------------------------------------

def shape_dims(shape):
    w, h = (int(v) for v in shape.split("x"))
    return w, h


def uniform_parts(shape, mbr, mbc):
    """The partitions of a frame coded uniformly with `shape`, in the raster
    order of that shape's grid (partition i is grid cell i): an array of
    rows x4, y4, w4, h4, kind (positions and sizes in 4x4 blocks)."""
    w, h = shape_dims(shape)
    rows, cols = mbr * 16 // h, mbc * 16 // w
    r, c = np.indices((rows, cols)).reshape(2, -1)
    kind = np.zeros_like(r)
    if shape == "16x8":
        kind = np.where(r % 2 == 0, KIND_16X8_TOP, KIND_16X8_BOTTOM)
    elif shape == "8x16":
        kind = np.where(c % 2 == 0, KIND_8X16_LEFT, KIND_8X16_RIGHT)
    return np.stack([c * (w // 4), r * (h // 4), np.full_like(r, w // 4),
                     np.full_like(r, h // 4), kind], 1).astype(np.int32)


def key4(x4, y4, mbc):
    """Decoding order of the 4x4 block (x4, y4): macroblock address, then
    luma4x4BlkIdx.  A partition precedes another in decoding order exactly
    when its top-left block's key is smaller (docs/mvpred.md)."""
    return mq.decode_key(x4 * 4, y4 * 4, mbc)


def paint(parts, values, r4, c4, fill):
    """A 4x4-block grid (r4 x c4 [x k]) with each partition's value over
    its blocks, `fill` where no partition lies."""
    values = np.asarray(values)
    out = np.full((r4, c4) + values.shape[1:], fill, values.dtype)
    x4, y4, w4, h4 = parts[:, 0], parts[:, 1], parts[:, 2], parts[:, 3]
    for dy in range(4):
        for dx in range(4):
            m = (dx < w4) & (dy < h4)
            out[y4[m] + dy, x4[m] + dx] = values[m]
    return out


def h264_pred(parts, mv, ref, mv4, ref4, mbc):
    """The H.264 prediction (clause 8.4.1.3 with 8.4.1.3.1 and 8.4.1.3.2) of
    every partition's vector in one list: `mv` (P x 2) and `ref` (P, the
    reference index, -1 where the partition does not use the list) are the
    partitions', `mv4` and `ref4` the frame's on the 4x4 grid (ref -1 for
    intra and for blocks not using the list).  A neighbour that lies
    outside the picture or (C) later in decoding order is unavailable, C
    is replaced by D when unavailable; an unavailable neighbour, one not
    using the list and an intra one have refIdx -1 and vector 0.  The
    vectors are given, so every partition is predicted at once."""
    r4, c4 = ref4.shape
    x4, y4, w4, kind = parts[:, 0], parts[:, 1], parts[:, 2], parts[:, 4]

    def at(x, y, ok):
        xc, yc = np.clip(x, 0, c4 - 1), np.clip(y, 0, r4 - 1)
        rf = np.where(ok, ref4[yc, xc], -1)
        v = np.where(ok[:, None], mv4[yc, xc], 0)
        return rf, v

    a_ok = x4 > 0
    b_ok = y4 > 0
    cx = x4 + w4
    c_ok = (y4 > 0) & (cx < c4)
    c_ok &= key4(np.minimum(cx, c4 - 1), np.maximum(y4 - 1, 0), mbc) \
        < key4(x4, y4, mbc)
    d_ok = (x4 > 0) & (y4 > 0)
    ref_a, mv_a = at(x4 - 1, y4, a_ok)
    ref_b, mv_b = at(x4, y4 - 1, b_ok)
    ref_c, mv_c = at(cx, y4 - 1, c_ok)
    ref_d, mv_d = at(x4 - 1, y4 - 1, d_ok)
    ref_c = np.where(c_ok, ref_c, ref_d)
    mv_c = np.where(c_ok[:, None], mv_c, mv_d)
    c_ok = c_ok | d_ok
    # B and C unavailable, A available: both take A's vector and refIdx
    sub = ~b_ok & ~c_ok & a_ok
    ref_b = np.where(sub, ref_a, ref_b)
    ref_c = np.where(sub, ref_a, ref_c)
    mv_b = np.where(sub[:, None], mv_a, mv_b)
    mv_c = np.where(sub[:, None], mv_a, mv_c)
    ea, eb, ec = ref_a == ref, ref_b == ref, ref_c == ref
    med = np.maximum(np.minimum(mv_a, mv_b),
                     np.minimum(np.maximum(mv_a, mv_b), mv_c))
    one = (ea.astype(int) + eb + ec) == 1
    only = np.where(ea[:, None], mv_a, np.where(eb[:, None], mv_b, mv_c))
    pred = np.where(one[:, None], only, med)
    for k, e, v in ((KIND_16X8_TOP, eb, mv_b), (KIND_16X8_BOTTOM, ea, mv_a),
                    (KIND_8X16_LEFT, ea, mv_a), (KIND_8X16_RIGHT, ec, mv_c)):
        m = (kind == k) & e
        pred[m] = v[m]
    return pred


def pskip_ok(parts, mv, mv4, ref4, mbc):
    """Whether each partition could be a P_Skip macroblock: 16x16, and its
    vector that of clause 8.4.1.1 for reference 0: zero when A or B is
    unavailable or has reference 0 and a zero vector, else the 16x16
    prediction for reference 0.  Neighbours from mv4 and ref4."""
    r4, c4 = ref4.shape
    x4, y4 = parts[:, 0], parts[:, 1]
    is16 = (parts[:, 2] == 4) & (parts[:, 3] == 4)
    zero = (x4 == 0) | (y4 == 0)
    for x, y in ((x4 - 1, y4), (x4, y4 - 1)):
        xc, yc = np.clip(x, 0, c4 - 1), np.clip(y, 0, r4 - 1)
        zero |= (ref4[yc, xc] == 0) & (mv4[yc, xc] == 0).all(-1)
    pred = h264_pred(parts, mv, np.zeros(len(parts), np.int32), mv4, ref4,
                     mbc)
    want = np.where(zero[:, None], 0, pred)
    return is16 & (mv == want).all(-1)


def ue_bits(k):
    k = np.asarray(k, np.int64)
    return 2 * (np.frexp(k + 1)[1] - 1) + 1


def te_bits(idx, size):
    """Length of te(v) for a ref_idx of a list of `size` pictures: nothing
    with one, one bit with two, ue(v) with more (clause 9.1)."""
    idx = np.asarray(idx, np.int64)
    if size <= 1:
        return np.zeros_like(idx)
    if size == 2:
        return np.ones_like(idx)
    return ue_bits(idx)


def codes_ref(parts):
    """Whether a partition carries a ref_idx: every macroblock partition
    (16x16, 16x8, 8x16) and every 8x8 sub-macroblock, whose sub-partitions
    share the one of their first."""
    x4, y4, w4, h4 = parts[:, 0], parts[:, 1], parts[:, 2], parts[:, 3]
    return ((w4 >= 2) & (h4 >= 2)) | ((x4 % 2 == 0) & (y4 % 2 == 0))


# ---------------------------------------------------------------------------
# A frame's motion as a coder would code it
# ---------------------------------------------------------------------------

class Motion:
    """One frame's motion: partitions (rows x4, y4, w4, h4, kind), and per
    list (0, and 1 for B pictures) each partition's vector and reference
    index (-1: the list is not used), the list's pictures as signed frame
    distances and its size (the num_ref_idx_active the ref_idx is coded
    against).  A macroblock with no partition is intra."""

    def __init__(self, parts, mv, ref, dist, sizes=None):
        self.parts = parts
        self.mv = mv            # lists x P x 2
        self.ref = ref          # lists x P
        self.dist = dist        # per list: [distance of index 0, 1, ...]
        self.sizes = sizes or [len(d) for d in dist]


def mb_parts(kind_of_mb, mbr, mbc):
    """The partitions of the macroblocks coded with each shape: for shape
    index s, the partitions of uniform_parts(s) lying in macroblocks whose
    kind_of_mb is s, with their indices in that shape's grid."""
    out = []
    for s, shape in enumerate(SHAPES):
        sel = kind_of_mb == s
        if not sel.any():
            continue
        p = uniform_parts(shape, mbr, mbc)
        inside = sel[p[:, 1] // 4, p[:, 0] // 4]
        out.append((s, p[inside], np.nonzero(inside)[0]))
    return out


def field_motion(kind_of_mb, ref_of_blk, grids, dist, mbr, mbc):
    """The Motion of one frame of ours: each macroblock coded with the shape
    kind_of_mb, each partition with the reference ref_of_blk gives its
    4x4 blocks (an index into `dist`, the references that exist; the same
    over a partition, checked), its vectors from grids[ref][shape]."""
    parts, mv, ref = [], [], []
    for s, p, idx in mb_parts(kind_of_mb, mbr, mbc):
        r = ref_of_blk[p[:, 1], p[:, 0]]
        v = np.zeros((len(p), 2), np.int32)
        for k in np.unique(r):
            m = r == k
            v[m] = grids[k][SHAPES[s]]["mv"].reshape(-1, 2)[idx[m]]
        parts.append(p)
        mv.append(v)
        ref.append(r)
    parts = np.concatenate(parts)
    ref = np.concatenate(ref)
    bad = int((paint(parts, ref, mbr * 4, mbc * 4, -1) != ref_of_blk).sum())
    if bad:
        raise SystemExit(f"{bad} 4x4 blocks whose reference is not that of "
                         "their partition")
    return Motion(parts, np.concatenate(mv)[None], ref[None], [list(dist)])


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------

class Planes:
    """The quarter-sample planes of the frames of one clip, made once and
    dropped when no later frame can reach them."""

    def __init__(self, frames, keep):
        self.frames, self.keep, self.cache = frames, keep, {}

    def get(self, t):
        if t not in self.cache:
            self.cache[t] = mq.quarter_planes(self.frames[t])
        return self.cache[t]

    def advance(self, t):
        for k in [k for k in self.cache if k < t - self.keep]:
            del self.cache[k]


def motion_grids(m, r4, c4):
    """Per list the 4x4-grid vectors and reference indices of Motion m."""
    out = []
    for lst in range(len(m.dist)):
        out.append((paint(m.parts, m.mv[lst], r4, c4, 0),
                    paint(m.parts, m.ref[lst], r4, c4, -1)))
    return out


def mc_predict(m, grids, t, planes, frames, h, w):
    """Motion-compensated prediction of frame t: each 4x4 block from its
    list's reference picture (the original frame at t + distance), the
    average (a + b + 1) >> 1 of both lists' where a block uses both, the
    previous frame unmoved where it uses neither (intra)."""
    preds = []
    for lst, (mv4, ref4) in enumerate(grids):
        img = np.zeros((h, w), np.int32)
        used = mq.expand(ref4 >= 0, 4, 4, h, w)
        refp = mq.expand(ref4, 4, 4, h, w)
        for i, d in enumerate(m.dist[lst]):
            sel = refp == i
            if sel.any():
                img[sel] = mq.predict(planes.get(t + d), mv4, 4, 4, h, w)[sel]
        preds.append((img, used))
    out = frames[t - 1].astype(np.int32)
    if len(preds) == 1:
        img, used = preds[0]
        return np.where(used, img, out)
    (p0, u0), (p1, u1) = preds
    bi = (p0 + p1 + 1) >> 1
    return np.where(u0 & u1, bi, np.where(u0, p0, np.where(u1, p1, out)))


def motion_bits(m, grids, mbc):
    """MVD bits (se(v), against the prediction with reference indices),
    ref_idx bits (te(v)), the partitions coded and those whose MVD exceeds
    a pixel in a component, summed over the lists."""
    mvd_bits = ref_bits = coded = rough = 0
    cref = codes_ref(m.parts)
    for lst, (mv4, ref4) in enumerate(grids):
        use = m.ref[lst] >= 0
        if not use.any():
            continue
        pred = h264_pred(m.parts, m.mv[lst], m.ref[lst], mv4, ref4, mbc)
        mvd = (m.mv[lst] - pred)[use]
        mvd_bits += int(mq.se_bits(mvd).sum())
        rough += int((np.abs(mvd) > 4).any(-1).sum())
        coded += int(use.sum())
        ref_bits += int(te_bits(m.ref[lst][use & cref],
                                m.sizes[lst]).sum())
    return mvd_bits, ref_bits, coded, rough


class Score:
    """One field set's numbers over the frames."""

    def __init__(self, name):
        self.name = name
        self.sse = self.pixels = self.sse_inter = self.pixels_inter = 0
        self.sse_b = self.pixels_b = 0
        self.mvd_bits = self.ref_bits = self.parts = self.rough = 0
        self.frames = self.mbs = 0
        self.by_dist = {}
        self.extra = {}

    def add(self, m, t, planes, frames, inter, b_frame, mbr, mbc):
        h, w = frames.shape[1:]
        grids = motion_grids(m, mbr * 4, mbc * 4)
        img = mc_predict(m, grids, t, planes, frames, h, w)
        d = img - frames[t].astype(np.int32)
        sse = int((d * d).sum())
        self.sse += sse
        self.pixels += d.size
        if inter is not None:
            di = d[inter]
            self.sse_inter += int((di * di).sum())
            self.pixels_inter += di.size
        if b_frame:
            self.sse_b += sse
            self.pixels_b += d.size
        mb, rb, parts, rough = motion_bits(m, grids, mbc)
        self.mvd_bits += mb
        self.ref_bits += rb
        self.parts += parts
        self.rough += rough
        self.frames += 1
        self.mbs += mbr * mbc
        # where the prediction comes from, by area: each list's distances
        area = (m.parts[:, 2] * m.parts[:, 3]).astype(np.int64)
        for lst in range(len(m.dist)):
            for i, dd in enumerate(m.dist[lst]):
                a = int(area[m.ref[lst] == i].sum())
                self.by_dist[dd] = self.by_dist.get(dd, 0) + a

    def result(self):
        def psnr(sse, n):
            mse = sse / max(n, 1)
            return round(99.0 if mse == 0 else
                         10 * np.log10(255 ** 2 / mse), 3)
        f = max(self.frames, 1)
        total = sum(self.by_dist.values())
        r = dict(name=self.name, frames=self.frames,
                 mc_psnr=psnr(self.sse, self.pixels),
                 mvd_bits_per_frame=round(self.mvd_bits / f, 1),
                 ref_bits_per_frame=round(self.ref_bits / f, 1),
                 bits_per_frame=round((self.mvd_bits + self.ref_bits) / f, 1),
                 bits_per_mb=round((self.mvd_bits + self.ref_bits)
                                   / max(self.mbs, 1), 3),
                 partitions_per_frame=round(self.parts / f, 1),
                 rough_share=round(self.rough / max(self.parts, 1), 4),
                 area_share_by_distance={
                     f"{k:+d}": round(v / max(total, 1), 4)
                     for k, v in sorted(self.by_dist.items(),
                                        key=lambda kv: (kv[0] > 0,
                                                        abs(kv[0])))})
        if self.pixels_inter:
            r["mc_psnr_x264_inter"] = psnr(self.sse_inter, self.pixels_inter)
        if self.pixels_b:
            r["mc_psnr_x264_b_frames"] = psnr(self.sse_b, self.pixels_b)
        r.update(self.extra)
        return r


# ---------------------------------------------------------------------------
# Our fields: gpumotionest with a list of references
# ---------------------------------------------------------------------------

def parse_list(s):
    d = [int(v) for v in s.split(",") if v]
    if not d or 0 in d or len(set(d)) != len(d):
        raise SystemExit(f"bad reference list {s!r}")
    return d


def read_fields(path):
    """Yields (frame, {ref_distance: layers or None without a reference,
    with "modes" when the element decided}) from an mvexport JSON Lines
    file of several fields per frame, one frame at a time."""
    cur, fields = None, {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if cur is not None and d["frame"] != cur:
                yield cur, fields
                fields = {}
            cur = d["frame"]
            if not d["has_reference"]:
                fields[d["ref_distance"]] = None
                continue
            layers = {}
            for L in d["layers"]:
                rc = (L["rows"], L["cols"])
                layers[L["shape"]] = dict(
                    mv=np.array(L["mv"], np.int32).reshape(*rc, 2),
                    pred=np.array(L["pred"], np.int32).reshape(*rc, 2),
                    cost=np.array(L["cost"], np.int64).reshape(rc))
            if "modes" in d:
                layers["modes"] = np.array([SHAPES.index(s)
                                            for s in d["modes"]])
            if "chosen_refs" in d:
                layers["chosen_refs"] = np.array(d["chosen_refs"], np.int32)
            fields[d["ref_distance"]] = layers
    if cur is not None:
        yield cur, fields


def check_field(name, layers, mbr, mbc):
    """Every grid's exported prediction must be this tool's (one
    reference: every neighbour inside the picture has refIdx 0), for the
    square grids also mvquality.py's."""
    r4, c4 = mbr * 4, mbc * 4
    for shape, g in layers.items():
        if shape not in SHAPES:
            continue
        p = uniform_parts(shape, mbr, mbc)
        mv = g["mv"].reshape(-1, 2)
        ref = np.zeros(len(p), np.int32)
        ours = h264_pred(p, mv, ref, paint(p, mv, r4, c4, 0),
                         paint(p, ref, r4, c4, -1), mbc)
        bad = int((ours != g["pred"].reshape(-1, 2)).any(-1).sum())
        if shape in ("16x16", "8x8", "4x4"):
            size = shape_dims(shape)[0]
            bad += int((mq.mv_pred(g["mv"], size) != g["pred"]).any(-1).sum())
        if bad:
            raise SystemExit(f"{name} {shape}: {bad} cells whose exported "
                             "prediction differs from this tool's")


def mb_costs(layers, lam, mbr, mbc):
    """Per shape present, each macroblock's cost of that shape as the
    element's partition decision counts it: the shape's cells inside the
    macroblock plus lambda x its type bits (me_mode_cost())."""
    out = {}
    for s, shape in enumerate(SHAPES):
        if shape not in layers:
            continue
        w, h = shape_dims(shape)
        c = layers[shape]["cost"].reshape(mbr, 16 // h, mbc, 16 // w)
        out[s] = c.sum(axis=(1, 3)) + lam * MODE_BITS[s]
    return out


def choose(fields, dist, lam, ref_cost, mbr, mbc, md):
    """Per macroblock the reference and shape of the smallest cost: the
    field's cost (its 16x16 cell, or with `md` each shape's cost of the
    partition decision) plus, with ref_cost, lambda x the ref_idx bits
    the choice codes.  Scanned in list order, then shape order, a strictly
    smaller cost replacing: a tie keeps the earlier reference and the
    larger partition, as the element's decision does."""
    best = np.full((mbr, mbc), np.iinfo(np.int64).max, np.int64)
    ref = np.zeros((mbr, mbc), np.int32)
    kind = np.zeros((mbr, mbc), np.int32)
    n = len(dist)
    for i, d in enumerate(dist):
        costs = (mb_costs(fields[d], lam, mbr, mbc) if md else
                 {0: fields[d]["16x16"]["cost"]})
        for s, c in costs.items():
            nref = 1 if s == 0 else 2 if s < 3 else 4
            if ref_cost:
                c = c + lam * nref * int(te_bits(i, n))
            better = c < best
            best = np.where(better, c, best)
            ref[better] = i
            kind[better] = s
    return ref, kind


def choose_in_order(fields, dist, lam, mbr, mbc):
    """Per 16x16 macroblock, in decoding order, the reference of the
    smallest D + lambda x (MVD bits + ref_idx bits), the MVD taken against
    the H.264 prediction from the macroblocks already decided, each with
    the reference chosen for it: what an encoder choosing among the fields'
    vectors would do.  D is the field's cost without its own rate term
    (cost - lambda x the bits of the MVD the element computed)."""
    n = len(dist)
    mv = [fields[d]["16x16"]["mv"] for d in dist]
    dd = []
    for d in dist:
        g = fields[d]["16x16"]
        dd.append(g["cost"] - lam * mq.se_bits(g["mv"] - g["pred"]).sum(-1))
    se = mq.se_bits(np.arange(-4096, 4097)).tolist()
    te = [int(te_bits(i, n)) for i in range(n)]
    mv = [m.tolist() for m in mv]
    dd = [x.tolist() for x in dd]
    ref = [[-1] * mbc for _ in range(mbr)]
    vec = [[(0, 0)] * mbc for _ in range(mbr)]
    for y in range(mbr):
        for x in range(mbc):
            a = (ref[y][x - 1], vec[y][x - 1]) if x > 0 else None
            b = (ref[y - 1][x], vec[y - 1][x]) if y > 0 else None
            if y > 0 and x + 1 < mbc:
                c = (ref[y - 1][x + 1], vec[y - 1][x + 1])
            elif y > 0 and x > 0:
                c = (ref[y - 1][x - 1], vec[y - 1][x - 1])
            else:
                c = None
            if b is None and c is None and a is not None:
                b = c = a
            a, b, c = (z or (-1, (0, 0)) for z in (a, b, c))
            best, bi = None, 0
            for i in range(n):
                v = mv[i][y][x]
                same = [z for z in (a, b, c) if z[0] == i]
                if len(same) == 1:
                    p = same[0][1]
                else:
                    p = tuple(sorted((a[1][k], b[1][k], c[1][k]))[1]
                              for k in (0, 1))
                j = dd[i][y][x] + lam * (se[v[0] - p[0] + 4096]
                                         + se[v[1] - p[1] + 4096] + te[i])
                if best is None or j < best:
                    best, bi = j, i
            ref[y][x] = bi
            vec[y][x] = tuple(mv[bi][y][x])
    return np.array(ref, np.int32), np.zeros((mbr, mbc), np.int32)


def run_ours(gray, frames, cfg, refs, args, work):
    """gpumotionest with `references=refs` and the configuration cfg over
    the clip: per frame the Motion of the field built by choose(), None for
    frame 0; and the checks made."""
    n, h, w = frames.shape
    mbr, mbc = (h + 15) // 16, (w + 15) // 16
    props = (f"search-range={cfg['range']} partitions={cfg['parts']} "
             f"subpel={cfg['subpel']} metric={cfg['metric']} "
             f"references={','.join(f'{d:+d}' for d in refs)}")
    rate = cfg["rate"]
    if rate:
        props += (f" qp={rate[2:]}" if rate.startswith("qp")
                  else f" lambda={rate[1:]}")
    if cfg["method"]:
        props += f" method={cfg['method']}"
    if cfg["md"]:
        props += " mode-decision=true"
    lam = mq.lambda_of(rate)
    out = os.path.join(work, "fields.jsonl")
    secs = mq.run_gpumotionest(gray, w, h, props, out, args.build,
                               args.backend,
                               mq.ALL_SHAPES if cfg["md"] else "16x16")
    print(f"  gpumotionest {props}: {secs:.1f} s", file=sys.stderr)
    motions = [None] * n
    checked = decided = 0
    for t, fields in read_fields(out):
        if t == 0 or t >= n:
            continue
        have = [d for d in refs if fields.get(d) is not None]
        for d in have:
            check_field(f"frame {t} ref {d:+d}", fields[d], mbr, mbc)
            checked += 1
            if (cfg["md"] and "modes" in fields[d]
                    and "chosen_refs" not in fields[d]):
                # a partition decision among one field's shapes (the
                # element's where a single reference exists): choose()
                # decides each field's alone by the same rule for the
                # field rule, checked here against the element's
                _, own = choose({d: fields[d]}, [d], lam, False, mbr, mbc,
                                True)
                bad = int((own.ravel() != fields[d]["modes"]).sum())
                if bad:
                    raise SystemExit(f"frame {t} ref {d:+d}: {bad} "
                                     "macroblocks whose partition differs "
                                     "from the element's decision")
                decided += 1
        if args.choice == "element" and cfg["md"]:
            first = fields[refs[0]]
            kind = first["modes"].reshape(mbr, mbc)
            if "chosen_refs" in first:
                dist = first["chosen_refs"].reshape(mbr * 4, mbc * 4)
                ref = np.full(dist.shape, -1, np.int32)
                for i, d in enumerate(have):
                    ref[dist == d] = i
                if (ref < 0).any():
                    raise SystemExit(f"frame {t}: a chosen reference that "
                                     "is not one of the fields")
                decided += 1
                if "16x16" in first:
                    # the element weighs each shape as if the whole frame
                    # were coded with it, so where it codes a macroblock
                    # 16x16 its reference is that of choose_in_order()
                    own, _ = choose_in_order(fields, have, lam, mbr, mbc)
                    at16 = kind == 0
                    bad = int((own[at16] != ref[::4, ::4][at16]).sum())
                    if bad:
                        raise SystemExit(f"frame {t}: {bad} 16x16 "
                                         "macroblocks whose reference "
                                         "differs from the element's rule")
            else:
                assert have == [refs[0]], f"frame {t}: no decision"
                ref = np.zeros((mbr * 4, mbc * 4), np.int32)
        else:
            if args.choice == "element":
                ref, kind = choose_in_order(fields, have, lam, mbr, mbc)
            else:
                ref, kind = choose(fields, have, lam, args.ref_cost, mbr,
                                   mbc, cfg["md"])
            ref = np.repeat(np.repeat(ref, 4, 0), 4, 1)
        motions[t] = field_motion(kind, ref, [fields[d] for d in have],
                                  have, mbr, mbc)
    os.unlink(out)
    return motions, dict(seconds=round(secs, 2), props=props,
                         fields_checked=checked, decisions_checked=decided)


# ---------------------------------------------------------------------------
# x264 with several references
# ---------------------------------------------------------------------------

def read_stats(path):
    """x264's two-pass statistics: per displayed frame its type, the
    number of each ref_idx it used per list (8x8 blocks of the inter
    macroblocks it did not skip nor code direct) and so the size of each
    list, and its intra / inter / skipped macroblock counts."""
    out = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("in:"):
                continue
            kv, refs = {}, []
            for tok in line.strip().rstrip(";").split():
                if ":" in tok:
                    k, v = tok.split(":", 1)
                    if k == "ref":
                        refs.append([])
                        if v:
                            refs[-1].append(int(v))
                        continue
                    kv[k] = v
                elif refs:
                    refs[-1].append(int(tok))
            out[int(kv["in"])] = dict(type=kv["type"], refs=refs,
                                      imb=int(kv["imb"]), pmb=int(kv["pmb"]),
                                      smb=int(kv["smb"]))
    return out


def x264_encode(y4m, n, run, args, work):
    """Encodes the luma with libx264, returns (mkv, stats, seconds)."""
    mkv = os.path.join(work, f"x264-{run}.mkv")
    stats = os.path.join(work, f"x264-{run}.stats")
    bf = ["-bf", "0"] if run == "p" else ["-bf", "2"]
    params = ("scenecut=0:weightp=0:weightb=0:b-pyramid=none:threads=1:"
              f"pass=1:stats={stats}")
    if args.x264_extra:
        params += ":" + args.x264_extra
    cmd = (["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", y4m,
            "-frames:v", str(n), "-c:v", "libx264", "-preset", args.preset]
           + bf + ["-refs", "4", "-g", "100000", "-keyint_min", "100000",
                   "-qp", str(args.qp), "-x264-params", params, mkv])
    t = time.monotonic()
    subprocess.run(cmd, check=True)
    return mkv, read_stats(stats), time.monotonic() - t


def l1_sizes(mkv):
    """The list 1 sizes the stream's slices code, from FFmpeg's
    trace_headers bitstream filter: the picture parameter set's default and
    every slice's override (x264's statistics give list 0's only)."""
    r = subprocess.run(["ffmpeg", "-nostdin", "-v", "trace", "-i", mkv,
                        "-c", "copy", "-bsf:v", "trace_headers", "-f",
                        "null", "-"], capture_output=True, text=True)
    return {int(line.split()[-1]) + 1 for line in r.stderr.split("\n")
            if "num_ref_idx_l1_" in line and line.split()[-2] == "="}


def ref_lists(types, k, sizes):
    """H.264's initial reference lists of displayed frame k (clause 8.2.4.2)
    as signed distances, B pictures not being references (no pyramid):
    P: the earlier anchors, nearest first; B: list 0 the earlier anchors
    nearest first, then the later ones already decoded (only the next
    anchor: the one after it is coded after this picture), list 1 the
    later ones first."""
    anchors = [i for i, t in enumerate(types) if t in "IP"]
    before = [i - k for i in reversed(anchors) if i < k]
    after = [i - k for i in anchors if i > k][:1]
    if types[k] == "P":
        return [before[:sizes[0]]]
    return [(before + after)[:sizes[0]], (after + before)[:sizes[1]]]


def x264_motion(rows, rec, planes_rec, k, lists, mbr, mbc):
    """The Motion of x264's frame k from its exported vectors (rows of
    mvquality-avmvs.c), each partition's reference and lists found on the
    decoded frames `rec` (see the module's description)."""
    h, w = rec.shape[1:]
    r4, c4 = mbr * 4, mbc * 4
    nl = len(lists)
    geo = {}
    for src, bw, bh, _, _, dx, dy, mx, my, sc in rows:
        assert (4 * mx) % sc == 0 and (4 * my) % sc == 0
        lst = 0 if src < 0 else 1
        assert lst < nl, "a list 1 vector in a P frame"
        x0, y0 = dx - bw // 2, dy - bh // 2
        g = geo.setdefault((x0 // 4, y0 // 4, bw // 4, bh // 4),
                           [None] * nl)
        g[lst] = (4 * mx // sc, 4 * my // sc)
    keys = sorted(geo)
    parts = np.array(keys, np.int32).reshape(-1, 4)
    kind = np.zeros(len(parts), np.int32)
    x4, y4, w4, h4 = parts.T
    kind[(w4 == 4) & (h4 == 2)] = np.where(
        y4[(w4 == 4) & (h4 == 2)] % 4 == 0, KIND_16X8_TOP, KIND_16X8_BOTTOM)
    kind[(w4 == 2) & (h4 == 4)] = np.where(
        x4[(w4 == 2) & (h4 == 4)] % 4 == 0, KIND_8X16_LEFT, KIND_8X16_RIGHT)
    parts = np.concatenate([parts, kind[:, None]], 1)
    has = np.array([[geo[g][lst] is not None for g in keys]
                    for lst in range(nl)])
    mv = np.array([[geo[g][lst] or (0, 0) for g in keys]
                   for lst in range(nl)], np.int32).reshape(nl, -1, 2)
    pid = paint(parts, np.arange(len(parts)), r4, c4, -1)
    cur = rec[k].astype(np.int32)

    # The decoded pictures are deblocked, and the filter moves up to two
    # samples on each side of an edge between inter blocks (three next to
    # an intra one); the 4x4 centre of each 8x8 block lies beyond its
    # reach where the residual was coded with the 8x8 transform, so only
    # those samples are compared (x264's counts agree about a third
    # better than over whole partitions).
    centre = np.zeros((8, 8), np.int32)
    centre[2:6, 2:6] = 1
    centre = np.tile(centre, (r4 // 2, c4 // 2))

    def sad_parts(img):
        d = np.abs(img - cur)
        d = np.pad(d, ((0, r4 * 4 - h), (0, c4 * 4 - w))) * centre
        b = d.reshape(r4, 4, c4, 4).sum(axis=(1, 3))
        ok = pid >= 0
        return np.bincount(pid[ok], b[ok], minlength=len(parts))

    preds = [[mq.predict(planes_rec.get(k + d),
                         paint(parts, mv[lst], r4, c4, 0), 4, 4, h, w)
              .astype(np.int32) for d in lists[lst]] for lst in range(nl)]
    # options: (list-0 index or -1, list-1 index or -1), single lists
    # before both, nearer references first: the first of equal SADs wins
    options, sads = [], []
    for lst in range(nl):
        for i, img in enumerate(preds[lst]):
            options.append((i, -1) if lst == 0 else (-1, i))
            sads.append(np.where(has[lst], sad_parts(img), np.inf))
    if nl == 2:
        for i, a in enumerate(preds[0]):
            for j, b in enumerate(preds[1]):
                options.append((i, j))
                sads.append(np.where(has[0] & has[1],
                                     sad_parts((a + b + 1) >> 1), np.inf))
    sads = np.stack(sads)
    options = np.array(options)
    first = options[np.argmin(sads, 0)].T.astype(np.int32)
    # Where references are identical in the decoded pictures (areas that
    # were skipped), several options predict the partition equally well;
    # x264's choice among them is then by its rate, the ref_idx and the MVD
    # against the prediction for that reference, which are taken here from
    # the neighbours' references found by the SADs.
    grids = [(paint(parts, mv[lst], r4, c4, 0),
              paint(parts, first[lst], r4, c4, -1)) for lst in range(nl)]
    bits = np.zeros(sads.shape)
    for o, (i, j) in enumerate(options):
        for lst, r in ((0, i), (1, j)):
            if r < 0:
                continue
            ref = np.full(len(parts), r, np.int32)
            pred = h264_pred(parts, mv[lst], ref, grids[lst][0],
                             grids[lst][1], mbc)
            bits[o] += (mq.se_bits(mv[lst] - pred).sum(-1)
                        + te_bits(r, len(lists[lst])))
    if nl == 1:
        # a P macroblock that can be skipped (16x16, reference 0, the
        # P_Skip vector of clause 8.4.1.1) costs x264 next to nothing
        bits[0] = np.where(pskip_ok(parts, mv[0], grids[0][0], grids[0][1],
                                    mbc), -1, bits[0])
    tied = sads == sads.min(0)
    best = np.argmin(np.where(tied, bits, np.inf), 0)
    ref = options[best].T.astype(np.int32)
    return Motion(parts, mv, ref, lists)


def x264_run(y4m, frames, run, args, work, avmvs):
    """x264 over the clip: per frame its Motion (None for the I frame),
    the frame types, the intra macroblocks, and the inference's check
    against x264's own counts."""
    n, h, w = frames.shape
    mbr, mbc = (h + 15) // 16, (w + 15) // 16
    mkv, stats, secs = x264_encode(y4m, n, run, args, work)
    text = subprocess.run([avmvs, mkv], check=True, capture_output=True,
                          text=True).stdout.split("\n")
    rec = mq.load_luma(mkv)
    assert rec.shape == frames.shape, "x264's decoded frames"
    types = [stats[k]["type"].upper() for k in range(n)]
    exported = {}
    i = 0
    while i < len(text) and text[i]:
        _, k, ptype, count = text[i].split()
        k, count = int(k), int(count)
        rows = np.array([list(map(int, s.split()))
                         for s in text[i + 1:i + 1 + count]],
                        np.int64).reshape(-1, 10)
        i += 1 + count
        assert ptype == types[k], f"frame {k}: {ptype} against {types[k]}"
        exported[k] = rows
    # list 0 of a B-run P picture reaches 4 anchors, 12 frames, back
    planes_rec = Planes(rec, 13)
    motions, intra = [None] * n, [None] * n
    # the list 1 of every B picture holds the next anchor alone
    l1 = l1_sizes(mkv) if "B" in types else set()
    assert l1 <= {1}, f"list 1 sizes {l1}"
    check = dict(p_frames=0, p_frames_exact=0, refs_x264=0, refs_found=0,
                 refs_differ=0)
    for k in range(1, n):
        st = stats[k]
        sizes = [len(st["refs"][0]), 1]
        lists = ref_lists(types, k, sizes)
        m = x264_motion(exported[k], rec, planes_rec, k, lists, mbr, mbc)
        planes_rec.advance(k)
        motions[k] = m
        cover = paint(m.parts, np.ones(len(m.parts), bool), mbr * 4,
                      mbc * 4, False)
        intra[k] = ~cover.reshape(mbr, 4, mbc, 4).any(axis=(1, 3))
        # x264 counts each ref_idx per 8x8 block of the inter macroblocks
        # it coded (not skipped, not direct); a skipped P macroblock uses
        # index 0, so in P frames the counts of the other indices are
        # exactly comparable
        if types[k] == "P":
            area = (m.parts[:, 2] * m.parts[:, 3]) // 4
            found = [int(area[m.ref[0] == j].sum())
                     for j in range(len(lists[0]))]
            theirs = st["refs"][0]
            check["p_frames"] += 1
            check["p_frames_exact"] += int(found[1:] == theirs[1:])
            check["refs_x264"] += sum(theirs[1:])
            check["refs_found"] += sum(found[1:])
            check["refs_differ"] += sum(abs(a - b) for a, b in
                                        zip(found[1:], theirs[1:]))
    info = dict(seconds=round(secs, 2),
                frame_types="".join(types),
                intra_mb_share=round(float(np.mean(
                    [x.mean() for x in intra if x is not None])), 4),
                skipped_mb_share=round(float(np.mean(
                    [stats[k]["smb"] / (mbr * mbc) for k in range(1, n)])),
                    4),
                list_sizes=[[len(r) for r in stats[k]["refs"]]
                            for k in range(n)],
                inference_check=check)
    return motions, intra, types, info


def mb_reduce(m, mbr, mbc):
    """x264's P field reduced as mvquality.py reduces it: one vector per
    macroblock, the (vector, reference) covering most of it, the first in
    raster order on a tie; intra macroblocks stay intra."""
    r4, c4 = mbr * 4, mbc * 4
    mv4 = paint(m.parts, m.mv[0], r4, c4, 0)
    ref4 = paint(m.parts, m.ref[0], r4, c4, -1)
    f = np.concatenate([mv4, ref4[..., None]], -1)
    blk = f.reshape(mbr, 4, mbc, 4, 3).transpose(0, 2, 1, 3, 4)
    blk = blk.reshape(mbr, mbc, 16, 3)
    key = ((blk[..., 0].astype(np.int64) + 4096) * 8192
           + blk[..., 1] + 4096) * 64 + blk[..., 2] + 1
    votes = (key[..., :, None] == key[..., None, :]).sum(-1)
    win = np.take_along_axis(blk, votes.argmax(-1)[..., None, None],
                             2)[..., 0, :]
    p = uniform_parts("16x16", mbr, mbc)
    keep = win[..., 2].ravel() >= 0
    return Motion(p[keep], win[..., :2].reshape(-1, 2)[keep][None],
                  win[..., 2].ravel()[keep][None], m.dist, m.sizes)


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

DEFAULT_LISTS = "-1:-1,-2,-3,-4:-1,+1"
DEFAULT_CONFIGS = "R16:16x16:quarter:satd:qp23,R16:all:quarter:satd:qp26:md"


def cmd_score(args):
    t0 = time.monotonic()
    frames = mq.load_luma(args.clip, args.frames)
    n, h, w = frames.shape
    mbr, mbc = (h + 15) // 16, (w + 15) // 16
    print(f"clip {args.clip}: {n} frames of {w}x{h}", file=sys.stderr)
    work = tempfile.mkdtemp(prefix="refs-quality-", dir=args.work)
    try:
        gray = os.path.join(work, "luma.gray")
        frames.tofile(gray)
        sets, info = {}, {}
        lists = [parse_list(s) for s in args.lists.split(":")]
        for c in [c for c in args.configs.split(",") if c]:
            cfg = mq.parse_config(c)
            if not cfg["md"] and cfg["parts"] != "16x16":
                raise SystemExit("without md, 16x16 configurations only: "
                                 "the grid scored is the 16x16 one")
            for refs in lists:
                name = f"{c} refs {','.join(f'{d:+d}' for d in refs)}"
                sets[name], info[name] = run_ours(gray, frames, cfg, refs,
                                                  args, work)
        inter, b_frames = None, None
        runs = [r for r in args.x264.split(",") if r]
        avmvs = mq.build_avmvs(work) if runs else None
        if runs and not avmvs:
            print("no libavformat/libavcodec/libavutil development files "
                  "(pkg-config): x264 not scored", file=sys.stderr)
            runs = []
        if runs:
            y4m = os.path.join(work, "x264-in.y4m")
            mq.write_y4m(y4m, frames)
            inter = [None] + [np.ones((h, w), bool) for _ in range(n - 1)]
            for run in runs:
                label = {"p": "--ref 4", "b": "--bframes 2 --ref 4"}[run]
                if args.x264_extra:
                    label += " " + args.x264_extra
                nm = f"x264 {args.preset} {label}"
                motions, intra, types, xi = x264_run(y4m, frames, run, args,
                                                     work, avmvs)
                print(f"  {nm}: {xi['seconds']:.1f} s, frame types "
                      f"{xi['frame_types']}, inference "
                      f"{xi['inference_check']}", file=sys.stderr)
                sets[nm + ", its partitions"] = motions
                info[nm + ", its partitions"] = xi
                if run == "p":
                    sets[nm + ", one vector per MB"] = [
                        None if m is None else mb_reduce(m, mbr, mbc)
                        for m in motions]
                    info[nm + ", one vector per MB"] = dict(
                        seconds=xi["seconds"])
                else:
                    b_frames = [t == "B" for t in types]
                for t in range(1, n):
                    inter[t] &= ~mq.expand(intra[t], 16, 16, h, w)
            os.unlink(y4m)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}", file=sys.stderr)

    scores = {k: Score(k) for k in sets}
    planes = Planes(frames, 13)
    for t in range(1, n):
        for k, seq in sets.items():
            if seq[t] is not None:
                scores[k].add(seq[t], t, planes, frames,
                              None if inter is None else inter[t],
                              bool(b_frames and b_frames[t]), mbr, mbc)
        planes.advance(t)
    results = []
    for k, s in scores.items():
        r = s.result()
        r.update(info.get(k, {}))
        results.append(r)
    report = dict(clip=os.path.basename(args.clip), frames=n, width=w,
                  height=h, qp=args.qp, preset=args.preset,
                  ref_cost=args.ref_cost, choice=args.choice,
                  results=results,
                  seconds=round(time.monotonic() - t0, 1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    print_table(report)
    return 0


def print_table(rep):
    print(f"\n{rep['clip']}: {rep['frames']} frames of {rep['width']}x"
          f"{rep['height']}, x264 QP {rep['qp']}, reference chosen "
          + ("by the element's rule" if rep["choice"] == "element"
             else "by the field's cost"
             + (" + lambda x ref_idx bits" if rep["ref_cost"] else ""))
          + "\n")
    res = rep["results"]
    inter = any("mc_psnr_x264_inter" in r for r in res)
    bfr = any("mc_psnr_x264_b_frames" in r for r in res)
    head = "| field | MC-PSNR dB | vs one ref dB |"
    head += " on x264-inter MBs |" if inter else ""
    head += " on x264's B frames |" if bfr else ""
    head += (" MVD bits/frame | ref bits/frame | MVD+ref bits/frame |"
             " rough % | area by reference |")
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    base = {}
    for r in res:
        if " refs " in r["name"]:
            cfg, refs = r["name"].split(" refs ")
            if refs == "-1":
                base[cfg] = r["mc_psnr"]
    for r in res:
        delta = ""
        if " refs " in r["name"]:
            cfg = r["name"].split(" refs ")[0]
            if r["name"].endswith(" refs -1"):
                delta = "—"
            elif cfg in base:
                delta = f"{r['mc_psnr'] - base[cfg]:+.2f}"
        line = f"| {r['name']} | {r['mc_psnr']:.2f} | {delta} |"
        if inter:
            line += f" {r.get('mc_psnr_x264_inter', 0):.2f} |"
        if bfr:
            line += (f" {r['mc_psnr_x264_b_frames']:.2f} |"
                     if "mc_psnr_x264_b_frames" in r else " |")
        area = " ".join(f"{k} {100 * v:.0f}%" for k, v in
                        r["area_share_by_distance"].items() if v >= 0.005)
        line += (f" {r['mvd_bits_per_frame']:.0f} |"
                 f" {r['ref_bits_per_frame']:.0f} |"
                 f" {r['bits_per_frame']:.0f} |"
                 f" {100 * r['rough_share']:.1f} | {area} |")
        print(line)


def cmd_selftest(_args):
    fails = []

    def eq(what, got, want):
        if not np.array_equal(np.asarray(got), np.asarray(want)):
            fails.append(f"{what}: {np.asarray(got).tolist()} != "
                         f"{np.asarray(want).tolist()}")

    # one reference: the same prediction as mvquality.py's median, on
    # random fields of the square grids
    rng = np.random.default_rng(1)
    for mbr, mbc in ((1, 1), (1, 3), (3, 1), (2, 2), (5, 4), (7, 11)):
        for shape in ("16x16", "8x8", "4x4"):
            p = uniform_parts(shape, mbr, mbc)
            size = shape_dims(shape)[0]
            rows, cols = mbr * 16 // size, mbc * 16 // size
            f = rng.integers(-40, 41, (rows, cols, 2)).astype(np.int32)
            ref = np.zeros(len(p), np.int32)
            got = h264_pred(p, f.reshape(-1, 2), ref,
                            paint(p, f.reshape(-1, 2), mbr * 4, mbc * 4, 0),
                            paint(p, ref, mbr * 4, mbc * 4, -1), mbc)
            eq(f"{shape} on {mbc}x{mbr} MBs", got.reshape(rows, cols, 2),
               mq.mv_pred(f, size))

    def pred_of(parts, mv, ref, mbr, mbc):
        parts = np.array(parts, np.int32)
        mv = np.array(mv, np.int32)
        ref = np.array(ref, np.int32)
        return h264_pred(parts, mv, ref,
                         paint(parts, mv, mbr * 4, mbc * 4, 0),
                         paint(parts, ref, mbr * 4, mbc * 4, -1), mbc)

    # 3x2 macroblocks of 16x16, the last one predicted: A (left) ref 1,
    # B (above) ref 0, C (above-right: none, last column) so D (above-left)
    # ref 2.  With ref 0 only B has it: B's vector; with ref 1 only A's;
    # with ref 2 only D's; with ref 3 none: the median.
    p16 = uniform_parts("16x16", 2, 3)
    mv = [[0, 0], [4, 4], [8, 8], [10, 1], [20, 2], [0, 0]]
    for r, want in ((0, [8, 8]), (1, [20, 2]), (2, [4, 4]), (3, [8, 4])):
        ref = [5, 2, 0, 5, 1, r]
        eq(f"16x16 ref {r}", pred_of(p16, mv, ref, 2, 3)[5], want)
    # an intra neighbour (no partition) counts as refIdx -1, vector 0: A
    # intra, B and D ref 0 -> median of (0, B, D)
    # (macroblock 4 intra): with B and D of ref 0 the median of A's zero,
    # B and D; with D of ref 1 only B has the reference
    keep = [0, 1, 2, 3, 5]
    eq("16x16 intra A", pred_of(p16[keep], [mv[k] for k in keep],
                                [0, 0, 0, 0, 0], 2, 3)[4], [4, 4])
    eq("16x16 intra A, D ref 1", pred_of(p16[keep], [mv[k] for k in keep],
                                         [0, 1, 0, 0, 0], 2, 3)[4], [8, 8])
    # first row: only A is available, and B and C take its vector and
    # refIdx, so A's vector whatever the references
    eq("first row", pred_of(p16[:2], mv[:2], [3, 0], 2, 3)[1], [0, 0])
    eq("first row, other ref", pred_of(p16[:2], [[6, 7], [0, 0]], [3, 0],
                                       2, 3)[1], [6, 7])
    # 16x8 bottom takes A when A has its reference, else the median
    p = np.array([[0, 0, 4, 4, 0], [4, 0, 4, 2, KIND_16X8_TOP],
                  [4, 2, 4, 2, KIND_16X8_BOTTOM]], np.int32)
    mvs = [[12, 0], [0, 40], [0, 0]]
    eq("16x8 bottom, A same ref", pred_of(p, mvs, [1, 0, 1], 1, 2)[2],
       [12, 0])
    eq("16x8 bottom, A other ref", pred_of(p, mvs, [1, 0, 0], 1, 2)[2],
       [0, 40])
    # te(v)
    eq("te", [int(te_bits(0, 1)), int(te_bits(1, 2)), int(te_bits(0, 4)),
              int(te_bits(1, 4)), int(te_bits(3, 4))], [0, 1, 1, 3, 5])
    for f in fails:
        print("FAIL", f)
    print(f"selftest: {'failed' if fails else 'all as expected'} "
          f"({len(fails)} failures)")
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("selftest", help="check the prediction with references")
    s = sub.add_parser("score", help="score lists of references and x264")
    s.add_argument("clip")
    s.add_argument("--frames", type=int, help="first N frames only")
    s.add_argument("--lists", default=DEFAULT_LISTS,
                   help="reference lists, colon-separated (default: "
                   "%(default)s; write --lists=...)")
    s.add_argument("--configs", default=DEFAULT_CONFIGS,
                   help="mvquality.py configurations, comma-separated "
                   "(default: %(default)s)")
    s.add_argument("--no-ref-cost", dest="ref_cost", action="store_false",
                   help="choose the reference by the field's cost alone, "
                   "without lambda x the ref_idx bits")
    s.add_argument("--choice", choices=("element", "field"),
                   default="element",
                   help="how each partition's reference is chosen: the "
                   "element's decision (default; with md, its own, read "
                   "from the first field; at 16x16 alone, where it makes "
                   "none, the same rule here), or by each field's cost")
    s.add_argument("--x264-extra", default="",
                   help="more x264 parameters, colon-separated, e.g. "
                   "no-deblock=1")
    s.add_argument("--x264", default="p,b",
                   help="x264 runs: p (--ref 4, P frames only), b "
                   "(--bframes 2 --ref 4); '' for none")
    s.add_argument("--preset", default="medium")
    s.add_argument("--qp", type=int, default=23, help="x264's fixed QP")
    s.add_argument("--build", default=os.path.join(mq.ROOT, "build"))
    s.add_argument("--backend", default="cpu")
    s.add_argument("--json", help="write every number here")
    s.add_argument("--work", help="folder for temporary files")
    s.add_argument("--keep", action="store_true",
                   help="keep the temporary folder")
    args = ap.parse_args()
    return {"selftest": cmd_selftest, "score": cmd_score}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
