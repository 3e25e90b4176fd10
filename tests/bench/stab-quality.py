#!/usr/bin/env python3
"""Residual jitter and crop of mvstabilize against FFmpeg's vidstab (two
passes, defaults and tuned) and deshake, on a synthetic shaken clip
(docs/stabilization.md, "Measured").

    stab-quality.py WORK [--photo PHOTO] [--build DIR] [--frames 150]
        [--size 384x288] [--lookahead 30] [--json OUT]

The clip: a photograph's luma filmed by a camera moving along a smooth
path (a slow pan, a sway, a slow turn) with hand-shake on it, uniform
random shifts of +-3 px and turns of +-0.4 degrees each frame, sampled
bilinearly at sub-pixel positions (numpy only).  The camera of every
frame is known.

Each stabiliser's output frame t is measured against input frame t by
gpumotionest's own summary (subpel=quarter, search range 32) on the
stream in_0, out_0, in_1, out_1, ...: the summary of out_t against in_t is
the correction and zoom the stabiliser applied.  Composed with the known
camera of frame t, it gives the output's camera; against the smooth path,
frame to frame, over the frames 30 .. N - 30 (where every method has a
full window), the residual jitter: RMS of the shift (px) and of the turn
(degrees).  The crop is the zoom of out_t against in_t (mean and
largest).  The same measurement of the input itself (out = in) gives the
shake as measured, so the measurement's own noise shows.

From the same model: the zoom each tool's correction itself needs for no
output corner to land outside the input (rotation included; mean and
largest), the frames whose applied zoom leaves a border over 1 px (and
the widest, input pixels), and the RMS of the zoom's change from frame to
frame (of log zoom: a zoom that follows the need moves the picture's
edges by w / 2 times that a frame).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stabbench import (ffmpeg, gst_env, read_y4m_luma,  # noqa: E402
                       run_vidstab, run_deshake)
from stabbench import run_ours as _run_ours  # noqa: E402


def run_ours(clip, out, build, work, lookahead):
    _run_ours(clip, out, build, work, ['lookahead=%d' % lookahead])

PHOTO = '/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg'


def load_luma(photo):
    pr = subprocess.run(['ffprobe', '-v', 'error', '-show_entries',
                         'stream=width,height', '-of', 'csv=p=0', photo],
                        check=True, capture_output=True, text=True)
    w, h = map(int, pr.stdout.split(',')[:2])
    raw = subprocess.run(['ffmpeg', '-nostdin', '-v', 'error', '-i', photo,
                          '-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
                         check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w).astype(np.float64)


def paths(n, seed=5):
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype=np.float64)
    smooth = np.stack([-60 + 0.8 * t + 6 * np.sin(t / 25), 4 * np.sin(t / 40),
                       0.01 * np.sin(t / 30)], axis=1)
    shake = np.stack([rng.uniform(-3, 3, n), rng.uniform(-3, 3, n),
                      rng.uniform(-0.4, 0.4, n) * math.pi / 180], axis=1)
    return smooth, smooth + shake


def render(photo, pose, w, h):
    """Frame pixel p at world c_photo + (x, y) + R(phi) (p - c)."""
    ph, pw = photo.shape
    cx, cy = (w - 1) / 2, (h - 1) / 2
    x, y, phi = pose
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    c, s = math.cos(phi), math.sin(phi)
    wx = (pw - 1) / 2 + x + c * (xx - cx) - s * (yy - cy)
    wy = (ph - 1) / 2 + y + s * (xx - cx) + c * (yy - cy)
    x0 = np.floor(wx).astype(int)
    y0 = np.floor(wy).astype(int)
    fx, fy = wx - x0, wy - y0
    x0c, x1c = np.clip(x0, 0, pw - 1), np.clip(x0 + 1, 0, pw - 1)
    y0c, y1c = np.clip(y0, 0, ph - 1), np.clip(y0 + 1, 0, ph - 1)
    v = ((1 - fx) * (1 - fy) * photo[y0c, x0c] + fx * (1 - fy) * photo[y0c, x1c]
         + (1 - fx) * fy * photo[y1c, x0c] + fx * fy * photo[y1c, x1c])
    return np.clip(np.rint(v), 0, 255).astype(np.uint8)


def write_y4m(path, frames, w, h, fps=30):
    chroma = bytes([128]) * ((w // 2) * (h // 2) * 2)
    with open(path, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C420jpeg\n' % (w, h, fps))
        for fr in frames:
            f.write(b'FRAME\n')
            f.write(fr.tobytes())
            f.write(chroma)


def measure(clip_frames, out_frames, w, h, build, work, name):
    """The correction and zoom of each output frame against its input
    frame, by the summary of out_t searched against in_t."""
    pair = os.path.join(work, name + '.pairs.y4m')
    frames = []
    for a, b in zip(clip_frames, out_frames):
        frames += [a, b]
    write_y4m(pair, frames, w, h)
    out = os.path.join(work, name + '.pairs.csv')
    subprocess.run(['gst-launch-1.0', '-q', 'filesrc', 'location=' + pair,
                    '!', 'y4mdec', '!', 'gpumotionest', 'backend=cpu',
                    'search-range=32', 'summary=true', 'subpel=quarter', '!',
                    'mvexport', 'location=' + out, 'format=csv',
                    'summary=true', '!', 'fakesink'],
                   env=gst_env(build, work), check=True)
    rows = {int(r['frame']): r for r in csv.DictReader(open(out))}
    res = []
    for t in range(len(out_frames)):
        r = rows.get(2 * t + 1)
        if r is None or r['has_reference'] != '1':
            res.append(None)
            continue
        res.append((float(r['global_x']) / 4, float(r['global_y']) / 4,
                    float(r['zoom']), float(r['rotation']),
                    float(r['global_share'])))
    return res


def compose(a, b):
    c, s = math.cos(a[2]), math.sin(a[2])
    return (a[0] + c * b[0] - s * b[1], a[1] + s * b[0] + c * b[1],
            a[2] + b[2])


def invert(a):
    c, s = math.cos(-a[2]), math.sin(-a[2])
    return (-(c * a[0] - s * a[1]), -(s * a[0] + c * a[1]), -a[2])


def out_path(meas, cam):
    """The output's camera x, y (px) and angle (degrees) against frame 0's
    input camera."""
    path = []
    for t, m in enumerate(meas):
        if m is None:
            path.append(None)
            continue
        o = compose(compose(invert(tuple(cam[0])), tuple(cam[t])),
                    (m[0], m[1], -m[3]))
        path.append((o[0], o[1], o[2] * 180 / math.pi))
    return path


def figures(fdir, smooth, cam, paths_out, frames, ours_frames):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    os.makedirs(fdir, exist_ok=True)
    n = len(cam)
    t = np.arange(n)
    rel = [compose(invert(tuple(cam[0])), tuple(cam[i])) for i in range(n)]
    want = [compose(invert(tuple(cam[0])), tuple(smooth[i])) for i in range(n)]
    fig, ax = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    labels = ('x, px', 'y, px', 'angle, degrees')
    for k in range(3):
        sc = 180 / math.pi if k == 2 else 1
        ax[k].plot(t, [r[k] * sc for r in rel], color='0.6', lw=1,
                   label='camera (shaken)')
        ax[k].plot(t, [r[k] * sc for r in want], 'k--', lw=1,
                   label='intended path')
        for (name, style), p in paths_out.items():
            ax[k].plot(t, [q[k] if q else np.nan for q in p], style, lw=1.2,
                       label=name)
        ax[k].set_ylabel(labels[k])
    ax[0].legend(fontsize=8)
    ax[2].set_xlabel('frame')
    fig.suptitle('Camera path: shaken, intended, and as the outputs show it')
    fig.tight_layout()
    fig.savefig(os.path.join(fdir, 'stab-path.png'), dpi=80)
    plt.close(fig)
    # the mean of ten consecutive frames: blurred by the shake before,
    # sharp (but for the pan) after
    a = np.mean([f.astype(np.float64) for f in frames[70:80]], axis=0)
    b = np.mean([f.astype(np.float64) for f in ours_frames[70:80]], axis=0)
    sheet = np.concatenate([a, np.full((a.shape[0], 8), 255.0), b], axis=1)
    plt.imsave(os.path.join(fdir, 'stab-mean.png'), sheet, cmap='gray',
               vmin=0, vmax=255)


def border_need(m, w, h):
    """From the model of an output frame against its input (output pixel
    p lies in the input at c + g + R(-rot) (p - c) / (1 + zoom)): how far
    (input pixels) the farthest output corner lands outside the input, and
    the zoom about the centre its correction needs for none to (the
    least k with every corner of c + g + R(-rot) (q - c) / k inside;
    rotation included)."""
    cx, cy = (w - 1) / 2, (h - 1) / 2
    lim = (w - 1, h - 1)
    a = (cx + m[0], cy + m[1])
    c, s = math.cos(-m[3]), math.sin(-m[3])
    border, need = 0.0, 0.0
    for px in (0, w - 1):
        for py in (0, h - 1):
            qx, qy = px - cx, py - cy
            v = (c * qx - s * qy, s * qx + c * qy)
            for i in range(2):
                p = a[i] + v[i] / (1 + m[2])
                border = max(border, -p, p - lim[i])
                if v[i] > 0:
                    need = max(need, v[i] / (lim[i] - a[i]))
                elif v[i] < 0:
                    need = max(need, -v[i] / a[i])
    return border, need


def score(meas, smooth, cam, margin, w, h):
    n = len(meas)
    res = []
    for t in range(n):
        m = meas[t]
        if m is None:
            res.append(None)
            continue
        # out pixel p lies in in_t at c + g + R(-rot) (p - c) / (1 + zoom)
        corr = (m[0], m[1], -m[3])
        o = compose(compose(invert(tuple(cam[0])), tuple(cam[t])), corr)
        want = compose(invert(tuple(cam[0])), tuple(smooth[t]))
        res.append((o[0] - want[0], o[1] - want[1], o[2] - want[2]))
    d2x, d2a, k = 0.0, 0.0, 0
    for t in range(margin + 1, n - margin):
        if res[t] is None or res[t - 1] is None:
            continue
        d2x += (res[t][0] - res[t - 1][0]) ** 2 + (res[t][1] - res[t - 1][1]) ** 2
        d2a += (res[t][2] - res[t - 1][2]) ** 2
        k += 1
    zooms = [1 + m[2] for m in meas[margin:n - margin] if m is not None]
    bn = [border_need(m, w, h) for m in meas[margin:n - margin]
          if m is not None]
    # the zoom's own change from frame to frame (a zoom that follows the
    # need moves the picture's edges: w / 2 times this, in pixels)
    dk = [math.log((1 + meas[t][2]) / (1 + meas[t - 1][2]))
          for t in range(margin + 1, n - margin)
          if meas[t] is not None and meas[t - 1] is not None]
    return {
        'jitter_px': math.sqrt(d2x / k) if k else float('nan'),
        'jitter_deg': math.sqrt(d2a / k) * 180 / math.pi if k else float('nan'),
        'crop_mean': sum(zooms) / len(zooms) if zooms else float('nan'),
        'crop_max': max(zooms) if zooms else float('nan'),
        'frames': k,
        # the zoom the correction itself needs (corners, rotation
        # included), and the frames whose zoom leaves a border over 1 px
        'need_mean': sum(b[1] for b in bn) / len(bn) if bn else float('nan'),
        'need_max': max(b[1] for b in bn) if bn else float('nan'),
        'border_frames': sum(1 for b in bn if b[0] > 1.0),
        'border_max_px': max(b[0] for b in bn) if bn else float('nan'),
        'zoom_change_rms': (math.sqrt(sum(x * x for x in dk) / len(dk))
                            if dk else float('nan')),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('work')
    ap.add_argument('--photo', default=PHOTO)
    ap.add_argument('--build', default='build')
    ap.add_argument('--frames', type=int, default=150)
    ap.add_argument('--size', default='384x288')
    ap.add_argument('--lookahead', type=int, default=30)
    ap.add_argument('--json')
    ap.add_argument('--figures', help='write stab-path.png (the camera '
                    'paths) and stab-mean.png (ten frames averaged, before '
                    'and after) there')
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    a.build = os.path.abspath(a.build)
    work = os.path.abspath(a.work)
    w, h = map(int, a.size.split('x'))
    photo = load_luma(a.photo)
    smooth, cam = paths(a.frames)
    frames = [render(photo, cam[t], w, h) for t in range(a.frames)]
    clip = os.path.join(work, 'shaky.y4m')
    write_y4m(clip, frames, w, h)

    outs = {}
    outs['input (no stabiliser)'] = clip
    o = os.path.join(work, 'mvstabilize.y4m')
    run_ours(clip, o, a.build, work, a.lookahead)
    outs['mvstabilize lookahead=%d' % a.lookahead] = o
    o = os.path.join(work, 'vidstab-default.y4m')
    run_vidstab(clip, o, work, '', '')
    outs['vidstab (defaults)'] = o
    o = os.path.join(work, 'vidstab-tuned.y4m')
    run_vidstab(clip, o, work, ':shakiness=10:accuracy=15',
                ':smoothing=%d' % a.lookahead)
    outs['vidstab (shakiness 10, accuracy 15, smoothing %d)'
         % a.lookahead] = o
    o = os.path.join(work, 'vidstab-adaptive.y4m')
    run_vidstab(clip, o, work, '', ':optzoom=2')
    outs['vidstab (defaults but optzoom=2, adaptive zoom)'] = o
    o = os.path.join(work, 'deshake.y4m')
    run_deshake(clip, o, work)
    outs['deshake (defaults)'] = o

    results = {}
    plotted = {}
    styles = {'mvstabilize': 'r-', 'vidstab (defaults)': 'b-',
              'deshake': 'g-'}
    ours_frames = None
    for name, path in outs.items():
        out_frames, ow, oh = read_y4m_luma(path)
        if (ow, oh) != (w, h) or len(out_frames) < a.frames:
            print('%s: %dx%d, %d frames: skipped' % (name, ow, oh,
                                                      len(out_frames)))
            continue
        tag = ''.join(ch if ch.isalnum() else '-' for ch in name)[:24]
        meas = measure(frames, out_frames[:a.frames], w, h, a.build, work, tag)
        results[name] = score(meas, smooth, cam, 30, w, h)
        for key, style in styles.items():
            if name.startswith(key):
                plotted[(name, style)] = out_path(meas, cam)
        if name.startswith('mvstabilize'):
            ours_frames = out_frames
    print('%-52s %10s %10s %9s %9s %9s %9s %7s %7s %9s' % (
        '', 'jitter px', 'jitter deg', 'crop mean', 'crop max', 'need mean',
        'need max', 'border', 'max px', 'dzoom rms'))
    for name, r in results.items():
        print('%-52s %10.3f %10.4f %9.4f %9.4f %9.4f %9.4f %7d %7.2f %9.5f'
              % (name, r['jitter_px'], r['jitter_deg'], r['crop_mean'],
                 r['crop_max'], r['need_mean'], r['need_max'],
                 r['border_frames'], r['border_max_px'],
                 r['zoom_change_rms']))
    if a.figures:
        figures(a.figures, smooth, cam, plotted, frames, ours_frames)
    if a.json:
        json.dump(results, open(a.json, 'w'), indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
