#!/usr/bin/env python3
"""How much could a different rate-constrained decision save?

    rate-bound.py CLIP [--frames 9] [--qp 23 | --lambda L] [--range 16]
                  [--rules element,ring,prepass,window]

A slow NumPy model of the 16x16 quarter-pel SATD search with a rate term
(docs/rate.md), run on the luma of CLIP, each rule deciding the blocks in
raster order with P the H.264 prediction of the vectors already decided:

  element  the element's rule: the smallest J = SATD + lambda * bits(v - P)
           among F (the refinement of the window's SAD minimum W by SATD
           alone), W, the zero vector and P.  Reproduces the element's
           numbers to within a few tenths of a percent, as a check of the
           model.
  ring     element, plus the half- and quarter-pel rings around P ranked
           by J (the refinement encoders run around the predictor).
  prepass  element, plus a window search by SAD + lambda * bits(v - P')
           refined by J, where P' is the prediction from the field of the
           distortion-only refinement (known before the ordered pass, so a
           GPU could run it for every block at once).
  window   the exhaustive rate-constrained search: the window's smallest
           SAD + lambda * bits(v - P), the better by J of it and P refined
           by J, then the smallest J among that, its integer start, zero
           and P.  What the element would return if its whole search were
           on the ordered path.

Prints MC-PSNR (mvquality.py's, exact H.264 interpolation), MVD bits per
frame (mvquality.py's rule) and the rough share for each rule.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mvquality as mq  # noqa: E402

B = 16
HAD = np.array([[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, -1, 1],
                [1, -1, 1, -1]])
SE = mq.se_bits(np.arange(-8192, 8193))


def se(v):
    return int(SE[v + 8192])


def satd16(d):
    """Sum of the 16 4x4 Hadamard SATDs of a 16x16 difference, each
    halved (docs/subpel.md)."""
    t = d.reshape(4, 4, 4, 4).transpose(0, 2, 1, 3)
    h = np.einsum("ij,abjk,kl->abil", HAD, t, HAD.T)
    return int(np.abs(h).sum()) // 2


class Frame:
    def __init__(self, cur, ref, rng):
        self.h, self.w = cur.shape
        self.rows, self.cols = -(-self.h // B), -(-self.w // B)
        hp, wp = self.rows * B, self.cols * B
        self.cur = np.pad(cur, ((0, hp - self.h), (0, wp - self.w)),
                          mode="edge").astype(np.int32)
        self.q = mq.quarter_planes(ref)
        rp = np.pad(ref, ((rng, rng + hp - self.h), (rng, rng + wp - self.w)),
                    mode="edge").astype(np.int32)
        n = 2 * rng + 1
        # integer SAD of every block at every displacement (dy, dx)
        self.sad = np.empty((n, n, self.rows, self.cols), np.int64)
        for iy in range(n):
            for ix in range(n):
                d = np.abs(self.cur - rp[iy:iy + hp, ix:ix + wp])
                self.sad[iy, ix] = d.reshape(self.rows, B, self.cols,
                                             B).sum((1, 3))
        self.rng = rng
        self.offs = np.arange(-rng, rng + 1) * 4

    def satd(self, r, c, v):
        qx, qy = v
        ys = r * B + np.arange(B)[:, None]
        xs = c * B + np.arange(B)[None, :]
        ix = np.clip(xs + (qx >> 2), -4, self.w + 1) + mq.PAD
        iy = np.clip(ys + (qy >> 2), -4, self.h + 1) + mq.PAD
        p = self.q[(qy & 3) * 4 + (qx & 3)][iy, ix].astype(np.int32)
        return satd16(self.cur[r * B:(r + 1) * B, c * B:(c + 1) * B] - p)

    def window_min(self, r, c, pred=None, lam=0):
        s = self.sad[:, :, r, c]
        if pred is not None:
            s = s + lam * (SE[self.offs[None, :] - pred[0] + 8192]
                           + SE[self.offs[:, None] - pred[1] + 8192])
        iy, ix = np.unravel_index(np.argmin(s), s.shape)
        return int(self.offs[ix]), int(self.offs[iy])


def refine(start, cost, lim):
    """Half-pel ring, then quarter-pel ring, around the best so far."""
    best, bc = start, cost(start)
    for step in (2, 1):
        cx, cy = best
        for dy in (-step, 0, step):
            for dx in (-step, 0, step):
                v = (cx + dx, cy + dy)
                if max(abs(v[0]), abs(v[1])) > lim:
                    continue
                cv = cost(v)
                if cv < bc:
                    best, bc = v, cv
    return best


def median(field, r, c):
    """H.264 median prediction on the 16x16 grid (clause 8.4.1.3)."""
    rows, cols = field.shape[:2]

    def at(y, x):
        return field[y, x] if 0 <= y < rows and 0 <= x < cols else None
    a, b = at(r, c - 1), at(r - 1, c)
    cc = at(r - 1, c + 1)
    if cc is None:
        cc = at(r - 1, c - 1)
    have = [v for v in (a, b, cc) if v is not None]
    if len(have) == 1:
        return have[0].copy()
    z = np.zeros(2, np.int64)
    a, b, cc = (z if v is None else v for v in (a, b, cc))
    return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), cc))


def decide(fr, rule, lam):
    lim = 4 * fr.rng
    rows, cols = fr.rows, fr.cols
    memo = {}

    def dist(r, c, v):
        key = (r, c, v)
        if key not in memo:
            memo[key] = fr.satd(r, c, v)
        return memo[key]

    first = {}
    for r in range(rows):
        for c in range(cols):
            w = fr.window_min(r, c)
            first[r, c] = (w, refine(w, lambda v: dist(r, c, v), lim))
    hint = None
    if rule == "prepass":
        hint = mq.mv_pred(np.array([[first[r, c][1] for c in range(cols)]
                                    for r in range(rows)], np.int64), B)
    field = np.zeros((rows, cols, 2), np.int64)
    for r in range(rows):
        for c in range(cols):
            p = median(field, r, c)
            pc = tuple(int(x) for x in np.clip(p, -lim, lim))

            def jcost(v, pr=p):
                return dist(r, c, v) + lam * (se(v[0] - pr[0])
                                              + se(v[1] - pr[1]))
            w, f = first[r, c]
            cands = [f, w, (0, 0), pc]
            if rule == "ring":
                cands.append(refine(pc, jcost, lim))
            elif rule == "prepass":
                h = hint[r, c]
                hc = tuple(int(x) for x in np.clip(h, -lim, lim))
                wh = fr.window_min(r, c, h, lam)
                start = min((wh, hc), key=lambda v: jcost(v, h))
                cands.append(refine(start, lambda v: jcost(v, h), lim))
            elif rule == "window":
                wj = fr.window_min(r, c, p, lam)
                start = min((wj, pc), key=jcost)
                cands = [refine(start, jcost, lim), wj, (0, 0), pc]
            field[r, c] = min(cands, key=lambda v: (jcost(v), v[1], v[0]))
    return field


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("clip")
    ap.add_argument("--frames", type=int, default=9)
    ap.add_argument("--qp", type=int, default=23)
    ap.add_argument("--lambda", dest="lam", type=int,
                    help="overrides --qp's lambda")
    ap.add_argument("--range", type=int, default=16)
    ap.add_argument("--rules", default="element,ring,prepass,window")
    a = ap.parse_args()
    lam = a.lam if a.lam is not None else mq.lambda_of(f"qp{a.qp}")
    luma = mq.load_luma(a.clip, a.frames)
    rules = a.rules.split(",")
    scores = {r: mq.Score(r, B) for r in rules}
    t0 = time.monotonic()
    for k in range(1, len(luma)):
        fr = Frame(luma[k], luma[k - 1], a.range)
        for rule in rules:
            field = decide(fr, rule, lam)
            img = mq.predict(fr.q, field, B, B, fr.h, fr.w)
            scores[rule].add(field, img, luma[k].astype(np.int32))
        print(f"frame {k}: {time.monotonic() - t0:.0f} s", file=sys.stderr)
    print(f"{os.path.basename(a.clip)}: {len(luma) - 1} searched frames, "
          f"16x16, R = {a.range}, quarter pel, SATD, lambda {lam}")
    print("| rule | MC-PSNR dB | MVD bits/frame | rough % |")
    print("| --- | --- | --- | --- |")
    for rule in rules:
        s = scores[rule].result()
        print(f"| {rule} | {s['mc_psnr']:.2f} | {s['mvd_bits_per_frame']:.0f}"
              f" | {100 * s['smooth_rough_share']:.1f} |")


if __name__ == "__main__":
    main()
