#!/usr/bin/env python3
"""mvstabilize's crop rule against others on the same corrections
(docs/stabilization.md, "Why the crop is what it is").

    stab-crop-rules.py WORK [--build DIR] [--lookahead 30] [--margin 30]

WORK is stab-quality.py's work folder (its shaky.y4m).  The clip goes
through `gpumotionest summary=true subpel=quarter ! mvstabilize !
mvexport stabilization=true`; from each frame's correction (the meta's
dx, dy, angle and scale x crop) the zoom it needs (the least k >= 1 with
the corrected frame's corners inside the input, as stabpath.c's
needed_zoom()) is recomputed, and crop rules are applied to that series:

  element      the crop the element wrote (checks the replica below)
  max+gauss    the element's rule: the largest need over [j - rc, j + rc],
               then a Gaussian (sigma rc / 2) over [t - rc, t + rc]
  tent         the least zoom >= every need that changes by at most d a
               frame: max over |j - t| <= 2 rc of need_j - d |t - j|
  tent+gauss   the tent over [j - rc, j + rc], the Gaussian, then never
               below the frame's own need (that floor binds on some frames)

For each: the mean and largest zoom over frames margin .. N - margin, the
largest and RMS change a frame, the largest second difference (how sharply
the zoom's speed turns), and the frames where the floor bound.
"""
import argparse
import csv
import math
import os
import subprocess
import sys


def needed(dx, dy, ang, s, w, h):
    cx, cy = (w - 1) / 2, (h - 1) / 2
    lim = (w - 1, h - 1)
    a = (cx + dx, cy + dy)
    co, si = math.cos(ang), math.sin(ang)
    k = 1.0
    for corner in range(4):
        qx = (lim[0] if corner & 1 else 0) - cx
        qy = (lim[1] if corner & 2 else 0) - cy
        v = (s * (co * qx - si * qy), s * (si * qx + co * qy))
        for i in range(2):
            if v[i] > 0:
                k = max(k, v[i] / (lim[i] - a[i]))
            elif v[i] < 0:
                k = max(k, -v[i] / a[i])
    return k


def gauss_floor(n, val, rc):
    out, binds = [], 0
    for t in range(len(n)):
        b, f = min(rc, t), min(rc, len(n) - 1 - t)
        sig = rc / 2
        ws = [(math.exp(-(j * j) / (2 * sig * sig)), val[t + j])
              for j in range(-b, f + 1)]
        g = sum(w * v for w, v in ws) / sum(w for w, _ in ws)
        binds += g < n[t] - 1e-12
        out.append(max(g, n[t]))
    return out, binds


def tent(n, d, radius):
    return [max(n[j] - d * abs(j - t)
                for j in range(max(0, t - radius),
                               min(len(n), t + radius + 1)))
            for t in range(len(n))]


def report(name, z, margin, binds=0):
    n = len(z)
    part = z[margin:n - margin]
    dz = [abs(z[t] - z[t - 1]) for t in range(margin + 1, n - margin)]
    d2 = [abs(z[t + 1] - 2 * z[t] + z[t - 1])
          for t in range(margin + 1, n - margin - 1)]
    print('%-28s %9.4f %9.4f %9.5f %9.5f %9.5f %6d' % (
        name, sum(part) / len(part), max(part), max(dz),
        math.sqrt(sum(x * x for x in dz) / len(dz)), max(d2), binds))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('work')
    ap.add_argument('--build', default='build')
    ap.add_argument('--lookahead', type=int, default=30)
    ap.add_argument('--margin', type=int, default=30)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    clip = os.path.join(work, 'shaky.y4m')
    if not os.path.isfile(clip):
        print('%s: run stab-quality.py %s first' % (clip, a.work),
              file=sys.stderr)
        return 1
    head = open(clip, 'rb').readline().split()
    w = int([x for x in head if x.startswith(b'W')][0][1:])
    h = int([x for x in head if x.startswith(b'H')][0][1:])
    env = dict(os.environ)
    env['GST_PLUGIN_PATH_1_0'] = os.path.join(os.path.abspath(a.build),
                                              'gst')
    env['GST_REGISTRY_1_0'] = os.path.join(work, 'registry.bin')
    meta = os.path.join(work, 'crop-rules.csv')
    subprocess.run(['gst-launch-1.0', '-q', 'filesrc', 'location=' + clip,
                    '!', 'y4mdec', '!', 'gpumotionest', 'backend=cpu',
                    'summary=true', 'subpel=quarter', '!', 'mvstabilize',
                    'backend=cpu', 'lookahead=%d' % a.lookahead, '!',
                    'mvexport', 'location=' + meta, 'format=csv',
                    'stabilization=true', '!', 'fakesink'],
                   env=env, check=True)
    # one row a block: the frame's first
    rows = {}
    for r in csv.DictReader(open(meta)):
        rows.setdefault(int(r['frame']), r)
    rows = [rows[i] for i in sorted(rows)]
    crop = [float(r['stab_crop']) for r in rows]
    need = [needed(float(r['stab_dx']), float(r['stab_dy']),
                   float(r['stab_angle']),
                   float(r['stab_scale']) * float(r['stab_crop']), w, h)
            for r in rows]
    rc = a.lookahead // 6
    print('%d frames, %dx%d, lookahead %d (crop radius %d), frames %d .. %d'
          % (len(rows), w, h, a.lookahead, rc, a.margin,
             len(rows) - a.margin - 1))
    print('%-28s %9s %9s %9s %9s %9s %6s' % ('rule', 'mean', 'largest',
                                             'dz max', 'dz rms', 'd2 max',
                                             'floor'))
    report('need (no rule)', need, a.margin)
    report('element', crop, a.margin)
    for r in sorted({rc, max(rc - 1, 1), max(rc - 2, 1)}, reverse=True):
        m = tent(need, 0.0, r)
        z, b = gauss_floor(need, m, r)
        report('max+gauss rc=%d' % r, z, a.margin, b)
    for d in (0.0005, 0.001, 0.002):
        report('tent d=%g' % d, tent(need, d, 2 * rc), a.margin)
    for d in (0.0005, 0.001, 0.002):
        z, b = gauss_floor(need, tent(need, d, rc), rc)
        report('tent+gauss d=%g' % d, z, a.margin, b)
    return 0


if __name__ == '__main__':
    sys.exit(main())
