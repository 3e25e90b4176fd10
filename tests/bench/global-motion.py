#!/usr/bin/env python3
"""The motion summary's global motion against the known motion of
synthetic clips, beside FFmpeg's vidstabdetect on the same frames
(docs/summary.md, "Global motion").

    global-motion.py WORK [--photo PHOTO] [--build DIR] [--json OUT]

Makes pans (mvquality.py make-pan) and zooms and rotations (zoom-clip.py)
of PHOTO in WORK, runs gpumotionest backend=cpu (search-range 16, 16x16,
subpel none and quarter) with mvexport summary=true, and vidstabdetect
(shakiness=10 accuracy=15) followed by vidstabtransform debug=1, which
writes the global transform it derives from the detected fields
(global_motions.trf: dx, dy in pixels, the angle in radians, the zoom in
percent, as a correction).  Prints, per clip and estimator, the mean and
largest error of the translation (pixels, each axis), the zoom and the
rotation over every frame but the first.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PY = '/usr/bin/python3'
PHOTO = '/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg'

# name, generator arguments, true (tx, ty) in pixels with the vectors' sign
# (reference minus current), zoom, rotation
CASES = [
    ('pan', ['make-pan', '--motion=1.25,-0.75'], (-1.25, 0.75), 0, 0),
    ('pan-fast', ['make-pan', '--motion=-2.25,1.5', '--size', '320x384'], (2.25, -1.5), 0, 0),
    ('zoom-in', ['zoom', '--zoom', '0.01'], (0, 0), 0.01, 0),
    ('zoom-out', ['zoom', '--zoom', '-0.02'], (0, 0), -0.02, 0),
    ('rotation', ['zoom', '--zoom', '0', '--rotation', '0.01'], (0, 0), 0,
     0.01),
    ('zoom-rotation', ['zoom', '--zoom', '-0.01', '--rotation', '-0.005'],
     (0, 0), -0.01, -0.005),
]


def make(work, photo, name, gen):
    out = os.path.join(work, name + '.y4m')
    if gen[0] == 'make-pan':
        cmd = [PY, os.path.join(HERE, 'mvquality.py'), 'make-pan', photo, out,
               '--frames', '30'] + gen[1:]
    else:
        cmd = [PY, os.path.join(HERE, 'zoom-clip.py'), photo, out,
               '--frames', '30'] + gen[1:]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


def ours(clip, build, subpel):
    env = dict(os.environ)
    env['GST_PLUGIN_PATH_1_0'] = os.path.join(build, 'gst')
    env['GST_REGISTRY_1_0'] = clip + '.registry'
    out = '%s.%s.csv' % (clip, subpel)
    subprocess.run(['gst-launch-1.0', '-q', 'filesrc', 'location=' + clip,
                    '!', 'decodebin', '!', 'videoconvert', '!',
                    'gpumotionest', 'backend=cpu', 'search-range=16',
                    'subpel=' + subpel, '!', 'mvexport', 'location=' + out,
                    'format=csv', 'summary=true', '!', 'fakesink'],
                   env=env, check=True)
    rows = [r for r in csv.DictReader(open(out)) if r['has_reference'] == '1']
    return [(float(r['global_x']) / 4, float(r['global_y']) / 4,
             float(r['zoom']), float(r['rotation'])) for r in rows]


def vidstab(clip, work):
    trf = clip + '.trf'
    subprocess.run(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y',
                    '-i', clip, '-vf', 'vidstabdetect=result=%s:shakiness=10'
                    ':accuracy=15' % trf, '-f', 'null', '-'], check=True)
    subprocess.run(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y',
                    '-i', clip, '-vf', 'vidstabtransform=input=%s:debug=1'
                    % trf, '-f', 'null', '-'], check=True, cwd=work)
    est = []
    for line in open(os.path.join(work, 'global_motions.trf')):
        if line.startswith('#'):
            continue
        f = line.split()
        # a correction: the zoom in percent with the opposite sign
        est.append((float(f[1]), float(f[2]), -float(f[4]) / 100,
                    float(f[3])))
    return est[1:]


def errors(est, truth):
    (tx, ty), z, r = truth[0], truth[1], truth[2]
    err = {'x': [abs(e[0] - tx) for e in est],
           'y': [abs(e[1] - ty) for e in est],
           'zoom': [abs(e[2] - z) for e in est],
           'rotation': [abs(e[3] - r) for e in est]}
    return {k: (sum(v) / len(v), max(v)) for k, v in err.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('work')
    ap.add_argument('--photo', default=PHOTO)
    ap.add_argument('--build', default=os.path.join(HERE, '..', '..',
                                                    'build'))
    ap.add_argument('--json')
    a = ap.parse_args()
    a.work = os.path.abspath(a.work)
    os.makedirs(a.work, exist_ok=True)

    res = {}
    print('| clip | estimator | x error px | y error px | zoom error | '
          'rotation error rad |')
    print('|---|---|---|---|---|---|')
    for name, gen, t, z, r in CASES:
        clip = make(a.work, a.photo, name, gen)
        runs = {'summary (integer)': ours(clip, a.build, 'none'),
                'summary (quarter)': ours(clip, a.build, 'quarter'),
                'vidstabdetect': vidstab(clip, a.work)}
        res[name] = {}
        for est, values in runs.items():
            e = errors(values, (t, z, r))
            res[name][est] = e
            print('| %s | %s | %s |' % (name, est, ' | '.join(
                '%.4f (%.4f)' % e[k] if k in ('x', 'y') else
                '%.5f (%.5f)' % e[k] for k in ('x', 'y', 'zoom',
                                                'rotation'))))
    print('mean (largest) absolute error over frames 1..29')
    if a.json:
        json.dump(res, open(a.json, 'w'), indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
