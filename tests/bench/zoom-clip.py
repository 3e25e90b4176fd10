#!/usr/bin/env python3
"""A photograph zoomed and turned about the frame centre by a known amount
per frame, for measuring the motion summary's zoom and rotation
(docs/summary.md).

    zoom-clip.py PHOTO OUT.y4m [--frames 30] [--zoom 0.01] [--rotation 0]
        [--size 384x384]

Frame t shows the photograph's luma scaled by (1 + zoom)^t and turned by
rotation * t radians (clockwise on screen for a positive value) about the
frame centre, sampled bilinearly from the photograph (numpy only, so
Debian's python3 runs it).  Between frames the picture grows by exactly
1 + zoom and turns by rotation: the summary's zoom and rotation of every
frame but the first.  Nothing moves on its own, no noise.
"""
import argparse
import subprocess
import sys

import numpy as np


def load_luma(photo):
    pr = subprocess.run(['ffprobe', '-v', 'error', '-show_entries',
                         'stream=width,height', '-of', 'csv=p=0', photo],
                        check=True, capture_output=True, text=True)
    w, h = map(int, pr.stdout.split(',')[:2])
    raw = subprocess.run(['ffmpeg', '-nostdin', '-v', 'error', '-i', photo,
                          '-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
                         check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w).astype(np.float64)


def bilinear(img, x, y):
    h, w = img.shape
    x = np.clip(x, 0, w - 1.000001)
    y = np.clip(y, 0, h - 1.000001)
    x0 = np.floor(x).astype(int)
    y0 = np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    top = img[y0, x0] * (1 - fx) + img[y0, x0 + 1] * fx
    bot = img[y0 + 1, x0] * (1 - fx) + img[y0 + 1, x0 + 1] * fx
    return top * (1 - fy) + bot * fy


def write_y4m(path, frames):
    n, h, w = frames.shape
    with open(path, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (w, h))
        chroma = np.full(((h + 1) // 2) * ((w + 1) // 2) * 2, 128, np.uint8)
        for fr in frames:
            f.write(b'FRAME\n')
            f.write(fr.tobytes())
            f.write(chroma.tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('photo')
    ap.add_argument('out')
    ap.add_argument('--frames', type=int, default=30)
    ap.add_argument('--zoom', type=float, default=0.01)
    ap.add_argument('--rotation', type=float, default=0.0)
    ap.add_argument('--size', default='384x384')
    a = ap.parse_args()

    img = load_luma(a.photo)
    ph, pw = img.shape
    w, h = map(int, a.size.split('x'))
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    # pixel centres relative to the frame centre
    dx, dy = xs + 0.5 - w / 2, ys + 0.5 - h / 2
    out = np.empty((a.frames, h, w), np.uint8)
    for t in range(a.frames):
        s = (1 + a.zoom) ** t
        th = a.rotation * t
        # frame_t(p) = photo(centre + R(-th) (p - c) / s)
        c, sn = np.cos(-th), np.sin(-th)
        qx = (c * dx - sn * dy) / s + pw / 2 - 0.5
        qy = (sn * dx + c * dy) / s + ph / 2 - 0.5
        out[t] = np.clip(np.rint(bilinear(img, qx, qy)), 0, 255)
    write_y4m(a.out, out)
    print('%s: %d frames of %dx%d, zoom %+g and rotation %+g rad per frame'
          % (a.out, a.frames, w, h, a.zoom, a.rotation))
    return 0


if __name__ == '__main__':
    sys.exit(main())
