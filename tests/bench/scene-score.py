#!/usr/bin/env python3
"""Scene cut detection on a clip: the motion summary's scene change score
(gpumotionest backend=cpu, mvexport summary=true) beside FFmpeg's scdet, as
precision and recall against known cuts (docs/summary.md).

    tests/bench/scene-score.py CLIP [--cuts FILE|N,N,...] [--build DIR]
        [--threshold T] [--scdet-threshold T] [--range R] [--json OUT]

--cuts lists the first frame (from 0) of every new shot: a file of one
number a line (scene-clip.sh writes one) or a comma-separated list; none
means the clip has no cut, and every detection is a false positive.  A
detection counts when it falls on a cut's frame exactly.  Frames 0 and 1
are not scored: neither method has a score there (ours needs a reference
and a previous frame with one, scdet a previous frame).
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile


def ours(clip, build, rng):
    env = dict(os.environ)
    env['GST_PLUGIN_PATH_1_0'] = os.path.join(build, 'gst')
    env['GST_REGISTRY_1_0'] = os.path.join(tempfile.gettempdir(),
                                           'scene-score-registry.bin')
    with tempfile.NamedTemporaryFile(suffix='.csv') as out:
        subprocess.run(['gst-launch-1.0', '-q', 'filesrc', 'location=' + clip,
                        '!', 'decodebin', '!', 'videoconvert', '!',
                        'gpumotionest', 'backend=cpu',
                        'search-range=%d' % rng, '!', 'mvexport',
                        'location=' + out.name, 'format=csv', 'summary=true',
                        '!', 'fakesink'], env=env, check=True)
        rows = list(csv.DictReader(open(out.name)))
    return {int(r['frame']): float(r['scene_change']) for r in rows}


def scdet(clip):
    """Every frame's lavfi.scd.score (scdet writes it on every frame)."""
    with tempfile.NamedTemporaryFile(suffix='.txt') as out:
        subprocess.run(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-i',
                        clip, '-an', '-vf',
                        'scdet,metadata=mode=print:file=' + out.name,
                        '-f', 'null', '-'], check=True)
        scores, frame = {}, None
        for line in open(out.name):
            m = re.match(r'frame:(\d+)', line)
            if m:
                frame = int(m.group(1))
            m = re.match(r'lavfi\.scd\.score=([\d.]+)', line)
            if m:
                scores[frame] = float(m.group(1))
    return scores


def score(scores, cuts, threshold):
    frames = [f for f in scores if f >= 2]
    hits = {f for f in frames if scores[f] >= threshold}
    tp = len(hits & cuts)
    fp = len(hits - cuts)
    fn = len(cuts - hits)
    return {
        'threshold': threshold, 'frames': len(frames), 'cuts': len(cuts),
        'detections': len(hits), 'tp': tp, 'fp': fp, 'fn': fn,
        'precision': tp / len(hits) if hits else None,
        'recall': tp / len(cuts) if cuts else None,
        'false_positives': sorted(hits - cuts), 'missed': sorted(cuts - hits),
        'at_cuts': {f: round(scores.get(f, 0), 2) for f in sorted(cuts)},
        'highest_elsewhere': round(max([scores[f] for f in frames
                                        if f not in cuts] or [0]), 2),
    }


def fmt(v):
    return '-' if v is None else '%.2f' % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('clip')
    ap.add_argument('--cuts', default='')
    ap.add_argument('--build', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build'))
    ap.add_argument('--threshold', type=float, default=40.0)
    ap.add_argument('--scdet-threshold', type=float, default=10.0)
    ap.add_argument('--range', type=int, default=16)
    ap.add_argument('--json')
    a = ap.parse_args()

    if os.path.isfile(a.cuts):
        cuts = {int(x) for x in open(a.cuts).read().split()}
    else:
        cuts = {int(x) for x in a.cuts.split(',') if x}
    res = {
        'clip': a.clip,
        'summary': score(ours(a.clip, a.build, a.range), cuts, a.threshold),
        'scdet': score(scdet(a.clip), cuts, a.scdet_threshold),
    }
    print('%-8s %6s %5s %4s %4s %4s %4s %9s %6s  %s' % (
        'method', 'thresh', 'frames', 'cuts', 'det', 'fp', 'fn', 'precision',
        'recall', 'scores at cuts / highest elsewhere'))
    for name in ('summary', 'scdet'):
        r = res[name]
        print('%-8s %6g %5d %4d %4d %4d %4d %9s %6s  %s / %s' % (
            name, r['threshold'], r['frames'], r['cuts'], r['detections'],
            r['fp'], r['fn'], fmt(r['precision']), fmt(r['recall']),
            ' '.join('%g' % v for v in r['at_cuts'].values()) or '-',
            r['highest_elsewhere']))
    if a.json:
        json.dump(res, open(a.json, 'w'), indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
