#!/usr/bin/env python3
"""Inter-frame transformation fidelity (ITF) and crop of mvstabilize
against FFmpeg's vidstab (two passes) and deshake on real handheld clips
(docs/stabilization.md, "Real handheld clips").

    stab-real.py WORK CLIP [CLIP ...] [--build DIR] [--json OUT]

There is no known camera in a real clip, so the residual jitter of
stab-quality.py cannot be measured; instead:

ITF   the mean, over consecutive output frames (t - 1, t), of the luma
      PSNR between them (peak 255), on two regions: the whole frame as
      each tool outputs it (every tool here outputs the input's size, its
      crop already scaled up to fill it), and the common centre, the
      middle 80 % of the width and of the height, which no tool's border
      fill reaches (deshake repeats the edge where the correction uncovers
      the border, vidstab's default keeps the previous frame's pixels
      there); the input's own ITF is measured the same way.  A steadier
      picture differs less from frame to frame: higher is better, but a
      camera's intended movement and the scene's own motion lower it for
      every tool alike.  A larger zoom alone raises the ITF (upsampling
      smooths the picture), so a third figure puts every tool at one
      zoom: each output frame zoomed further about its centre (bilinear)
      to the largest zoom any tool used, k_all / k_t, then the ITF of the
      common centre; and a control row gives the input zoomed by
      vidstab's zoom without any correction.  The ITF of the centre is
      also given apart for the pairs that touch a frame mvstabilize held
      (its model agreeing with fewer than min-agreement=0.2 of the
      blocks: the frame is not corrected) and for the others.
crop  the zoom each tool applied: gpumotionest's summary of output frame t
      searched against input frame t (the stream in_0, out_0, in_1, ...,
      subpel=quarter, search range 32, both scaled down to at most 960
      pixels wide), 1 + its zoom; mean and largest over the clip.
border  from the same model, how far an output corner lands outside the
      input frame (input pixels): a tool whose zoom does not cover its
      correction shows filled border there.  Frames with more than 1 px
      are counted (the model's own noise is a few tenths of a pixel).

Each clip is decoded once (ffmpeg, every decoded frame kept, no frame-rate
conversion, I420) into a Y4M file that every tool reads.
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
from stabbench import (ffmpeg, gst_env, read_y4m_luma as read_luma,  # noqa: E402
                       run_ours, run_vidstab as _vidstab,
                       run_deshake as _deshake)


def run_vidstab(clip, out, work, detect, transform):
    _vidstab(clip, out, work, detect, transform, passthrough=True)


def run_deshake(clip, out, work):
    _deshake(clip, out, work, passthrough=True)



def decode(clip, out):
    """The clip's frames as Y4M (4:2:0, 8 bit), with a header y4mdec reads."""
    pr = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v:0',
                         '-show_entries', 'stream=width,height,r_frame_rate',
                         '-of', 'csv=p=0', clip],
                        check=True, capture_output=True, text=True)
    w, h, rate = pr.stdout.strip().split(',')[:3]
    w, h = int(w), int(h)
    num, den = rate.split('/')
    raw = subprocess.run(['ffmpeg', '-nostdin', '-v', 'error', '-i', clip,
                          '-an', '-fps_mode', 'passthrough', '-pix_fmt',
                          'yuv420p', '-f', 'rawvideo', '-'],
                         check=True, capture_output=True).stdout
    size = w * h * 3 // 2
    n = len(raw) // size
    with open(out, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F%s:%s Ip A1:1 C420jpeg\n'
                % (w, h, num.encode(), den.encode()))
        for i in range(n):
            f.write(b'FRAME\n')
            f.write(raw[i * size:(i + 1) * size])
    return w, h, n, float(num) / float(den)


def held_frames(meta, min_agreement=0.2):
    """The frames mvstabilize held (a model agreeing with fewer than
    min-agreement of the blocks: not corrected), from its export."""
    rows = {}
    for r in csv.DictReader(open(meta)):
        rows.setdefault(int(r['frame']), r)
    return {t for t, r in rows.items() if r['has_reference'] == '1'
            and float(r['global_share']) < min_agreement}


def itf(frames, centre, pairs=None):
    """Mean PSNR (dB) between consecutive frames, on the whole frame or
    the middle 80 % each way; only over the pairs (t - 1, t) whose t is
    in `pairs` when given."""
    h, w = frames[0].shape
    if centre:
        y0, y1 = int(round(h * 0.1)), int(round(h * 0.9))
        x0, x1 = int(round(w * 0.1)), int(round(w * 0.9))
    else:
        y0, y1, x0, x1 = 0, h, 0, w
    vals = []
    for t, (a, b) in enumerate(zip(frames[:-1], frames[1:]), 1):
        if pairs is not None and t not in pairs:
            continue
        d = a[y0:y1, x0:x1].astype(np.float64) - b[y0:y1, x0:x1]
        mse = float(np.mean(d * d))
        vals.append(99.0 if mse == 0 else 10 * math.log10(255.0 ** 2 / mse))
    return sum(vals) / len(vals) if vals else float('nan')


def zoom_frame(frame, k):
    """The frame zoomed by k about its centre, bilinear."""
    h, w = frame.shape
    cx, cy = (w - 1) / 2, (h - 1) / 2
    xs = cx + (np.arange(w) - cx) / k
    ys = cy + (np.arange(h) - cy) / k
    x0 = np.floor(xs).astype(int)
    y0 = np.floor(ys).astype(int)
    fx = (xs - x0)[None, :]
    fy = (ys - y0)[:, None]
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    f = frame.astype(np.float64)
    v = ((1 - fy) * ((1 - fx) * f[y0][:, x0] + fx * f[y0][:, x1])
         + fy * ((1 - fx) * f[y1][:, x0] + fx * f[y1][:, x1]))
    return np.clip(np.rint(v), 0, 255).astype(np.uint8)


def shrink(frame, f):
    if f == 1:
        return frame
    h, w = frame.shape
    h2, w2 = h // f * f, w // f * f
    v = frame[:h2, :w2].astype(np.float64).reshape(h2 // f, f, w2 // f, f)
    return np.rint(v.mean(axis=(1, 3))).astype(np.uint8)


def write_y4m(path, frames, w, h):
    chroma = bytes([128]) * ((w // 2) * (h // 2) * 2)
    with open(path, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg\n' % (w, h))
        for fr in frames:
            f.write(b'FRAME\n')
            f.write(fr.tobytes())
            f.write(chroma)


def crop_border(inp, out, build, work, name):
    """Per output frame: (zoom, border) from the summary of out_t searched
    against in_t; None where there is no model."""
    h, w = inp[0].shape
    f = 1
    while w // f > 960:
        f *= 2
    frames = []
    for a, b in zip(inp, out):
        frames += [shrink(a, f), shrink(b, f)]
    sh, sw = frames[0].shape
    pair = os.path.join(work, name + '.pairs.y4m')
    write_y4m(pair, frames, sw, sh)
    res_csv = os.path.join(work, name + '.pairs.csv')
    subprocess.run(['gst-launch-1.0', '-q', 'filesrc', 'location=' + pair,
                    '!', 'y4mdec', '!', 'gpumotionest', 'backend=cpu',
                    'search-range=32', 'summary=true', 'subpel=quarter', '!',
                    'mvexport', 'location=' + res_csv, 'format=csv',
                    'summary=true', '!', 'fakesink'],
                   env=gst_env(build, work), check=True)
    os.remove(pair)
    rows = {int(r['frame']): r for r in csv.DictReader(open(res_csv))}
    cx, cy = (sw - 1) / 2, (sh - 1) / 2
    res = []
    for t in range(len(out)):
        r = rows.get(2 * t + 1)
        if r is None or r['has_reference'] != '1':
            res.append(None)
            continue
        gx, gy = float(r['global_x']) / 4, float(r['global_y']) / 4
        z, rot = float(r['zoom']), float(r['rotation'])
        # output pixel p lies in the input at c + g + R(-rot) (p - c) / (1 + z)
        c, s = math.cos(-rot), math.sin(-rot)
        border = 0.0
        for px in (0, sw - 1):
            for py in (0, sh - 1):
                qx, qy = (px - cx) / (1 + z), (py - cy) / (1 + z)
                ix = cx + gx + c * qx - s * qy
                iy = cy + gy + s * qx + c * qy
                border = max(border, -ix, ix - (sw - 1), -iy, iy - (sh - 1))
        res.append((1 + z, border * f))
    return res


def measure_clip(clip, build, work, results):
    base = os.path.splitext(os.path.basename(clip))[0]
    cwork = os.path.join(work, base)
    os.makedirs(cwork, exist_ok=True)
    y4m = os.path.join(cwork, 'input.y4m')
    w, h, n, fps = decode(clip, y4m)
    print('%s: %dx%d, %d frames at %.3f frames/s' % (base, w, h, n, fps))
    outs = {'input (no stabiliser)': y4m}
    runs = [
        ('mvstabilize, lookahead=30 (default, 1 s)', 'ours-30', []),
        ('mvstabilize, lookahead-time=1 s', 'ours-1s',
         ['lookahead-time=1000000000']),
        ('mvstabilize, lookahead=15 (0.5 s)', 'ours-15', ['lookahead=15']),
        ('mvstabilize, lookahead=30, min-agreement=0.1', 'ours-30-agree',
         ['min-agreement=0.1']),
    ]
    meta = os.path.join(cwork, 'ours-30.csv')
    for name, tag, props in runs:
        o = os.path.join(cwork, tag + '.y4m')
        run_ours(y4m, o, build, cwork, props,
                 meta if tag == 'ours-30' else None)
        outs[name] = o
    held = held_frames(meta)
    touched = {t for t in range(1, n) if t in held or t - 1 in held}
    rest = set(range(1, n)) - touched
    vruns = [
        ('vidstab, defaults', 'vs-default', '', ''),
        ('vidstab, shakiness=10 accuracy=15 smoothing=15', 'vs-tuned',
         ':shakiness=10:accuracy=15', ':smoothing=15:zoom=0:optzoom=1'),
        ('vidstab, same, smoothing=30', 'vs-tuned30',
         ':shakiness=10:accuracy=15', ':smoothing=30:zoom=0:optzoom=1'),
        ('vidstab, defaults but optzoom=2 (adaptive zoom)', 'vs-adaptive',
         '', ':optzoom=2'),
    ]
    for name, tag, det, tr in vruns:
        o = os.path.join(cwork, tag + '.y4m')
        run_vidstab(y4m, o, cwork, det, tr)
        outs[name] = o
    o = os.path.join(cwork, 'deshake.y4m')
    run_deshake(y4m, o, cwork)
    outs['deshake, defaults'] = o

    inp, _, _ = read_luma(y4m)
    res = {}
    kept = {}
    for name, path in outs.items():
        frames, ow, oh = read_luma(path)
        if (ow, oh) != (w, h) or len(frames) != n:
            print('%s: %dx%d, %d frames: skipped' % (name, ow, oh,
                                                      len(frames)))
            continue
        tag = ''.join(ch if ch.isalnum() else '-' for ch in name)[:24]
        cb = crop_border(inp, frames, build, cwork, tag)
        zooms = [x[0] for x in cb if x]
        borders = [x[1] for x in cb if x]
        res[name] = {
            'itf_full_db': itf(frames, False),
            'itf_centre_db': itf(frames, True),
            'itf_centre_held_db': itf(frames, True, touched),
            'itf_centre_rest_db': itf(frames, True, rest),
            'crop_mean': sum(zooms) / len(zooms),
            'crop_max': max(zooms),
            'border_frames': sum(1 for b in borders if b > 1.0),
            'border_max_px': max(borders),
            'frames': n,
        }
        kept[name] = (frames, [x[0] if x else 1.0 for x in cb])
        if path != y4m:
            os.remove(path)
    # at one zoom: every output zoomed further, frame by frame, to the
    # largest zoom of any tool (k_all / k_t about the centre, bilinear),
    # then the ITF of the common centre, so that no tool's ITF gains from
    # a larger zoom's smoother picture
    k_all = max(r['crop_max'] for r in res.values())
    for name, (frames, ks) in kept.items():
        z = [zoom_frame(f, k_all / k) if k_all / k > 1 + 1e-4 else f
             for f, k in zip(frames, ks)]
        res[name]['itf_equal_zoom_db'] = itf(z, True)
        res[name]['itf_equal_zoom_held_db'] = itf(z, True, touched)
        res[name]['itf_equal_zoom_rest_db'] = itf(z, True, rest)
        res[name]['equal_zoom'] = k_all
    kept = None
    # the zoom alone: the input zoomed about its centre by vidstab's
    # (default) zoom, not moved, shows how much of an ITF the scaling
    # itself gives (upsampling smooths the picture)
    k = res.get('vidstab, defaults', {}).get('crop_mean')
    if k:
        frames = [zoom_frame(f, k) for f in inp]
        res['input zoomed by %.4f (vidstab\'s zoom), not moved' % k] = {
            'itf_full_db': itf(frames, False),
            'itf_centre_db': itf(frames, True),
            'itf_centre_held_db': itf(frames, True, touched),
            'itf_centre_rest_db': itf(frames, True, rest),
            'crop_mean': k, 'crop_max': k, 'border_frames': 0,
            'border_max_px': 0.0, 'frames': n,
            'itf_equal_zoom_db': float('nan'),
            'itf_equal_zoom_held_db': float('nan'),
            'itf_equal_zoom_rest_db': float('nan'),
        }
    print('%-50s %8s %8s %8s %8s %8s %8s %8s %9s %9s %8s %9s' % (
        '', 'ITF full', 'ITF ctr', 'ctr held', 'ctr rest', 'ITF zoom',
        'zm held', 'zm rest', 'crop mean', 'crop max', 'border>1',
        'border px'))
    for name, r in res.items():
        print('%-50s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %9.4f %9.4f '
              '%5d/%-3d %9.1f'
              % (name, r['itf_full_db'], r['itf_centre_db'],
                 r['itf_centre_held_db'], r['itf_centre_rest_db'],
                 r['itf_equal_zoom_db'], r['itf_equal_zoom_held_db'],
                 r['itf_equal_zoom_rest_db'], r['crop_mean'], r['crop_max'],
                 r['border_frames'], n, r['border_max_px']))
    print('ITF zoom (zm): the centre of every output zoomed to %.4f; held: '
          'the %d pairs with a frame mvstabilize (lookahead=30) held for '
          'its model (global_share < 0.2: frames %s), rest: the other %d'
          % (k_all, len(touched), sorted(held), len(rest)))
    results[base] = res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('work')
    ap.add_argument('clips', nargs='+')
    ap.add_argument('--build', default='build')
    ap.add_argument('--json')
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    build = os.path.abspath(a.build)
    os.makedirs(work, exist_ok=True)
    results = {}
    for clip in a.clips:
        if not os.path.isfile(clip):
            print('%s: no such file' % clip, file=sys.stderr)
            return 1
        measure_clip(os.path.abspath(clip), build, work, results)
    if a.json:
        json.dump(results, open(a.json, 'w'), indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
