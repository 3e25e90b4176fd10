"""What the stabilisation benches share: reading y4m luma, running
gpumotionest ! mvstabilize from a build folder, and the FFmpeg peers
(vidstab in two passes, deshake).  Imported by stab-quality.py
(synthetic shake) and stab-real.py (real clips)."""
import os
import subprocess

import numpy as np


def read_y4m_luma(path):
    """Every frame's luma plane of a 4:2:0 y4m file, and its size."""
    data = open(path, 'rb').read()
    head, rest = data.split(b'\n', 1)
    fields = head.split()
    w = int([x for x in fields if x.startswith(b'W')][0][1:])
    h = int([x for x in fields if x.startswith(b'H')][0][1:])
    size = w * h * 3 // 2
    frames, pos = [], 0
    while pos < len(rest):
        pos = rest.index(b'\n', pos) + 1
        frames.append(np.frombuffer(rest[pos:pos + w * h], np.uint8)
                      .reshape(h, w))
        pos += size
    return frames, w, h


def gst_env(build, work):
    env = dict(os.environ)
    env['GST_PLUGIN_PATH_1_0'] = os.path.join(build, 'gst')
    env['GST_REGISTRY_1_0'] = os.path.join(work, 'registry.bin')
    return env


def run_ours(clip, out, build, work, props, meta=None):
    """mvstabilize (one pass, CPU) with `props`; with `meta`, the
    summaries and corrections exported there as CSV too."""
    export = []
    if meta:
        export = ['!', 'mvexport', 'location=' + meta, 'format=csv',
                  'summary=true', 'stabilization=true']
    subprocess.run(['gst-launch-1.0', '-q', 'filesrc', 'location=' + clip,
                    '!', 'y4mdec', '!', 'gpumotionest', 'backend=cpu',
                    'summary=true', 'subpel=quarter', '!', 'mvstabilize',
                    'backend=cpu'] + props + export + ['!', 'y4menc', '!',
                                                       'filesink',
                                                       'location=' + out],
                   env=gst_env(build, work), check=True)


def ffmpeg(args, cwd):
    subprocess.run(['ffmpeg', '-nostdin', '-hide_banner', '-loglevel',
                    'error', '-y'] + args, check=True, cwd=cwd)


def _timing(passthrough):
    # a clip of variable frame rate keeps its frames one for one
    return ['-fps_mode', 'passthrough'] if passthrough else []


def run_vidstab(clip, out, work, detect, transform, passthrough=False):
    trf = out + '.trf'
    ffmpeg(['-i', clip, '-vf', 'vidstabdetect=result=%s%s' % (trf, detect),
            '-f', 'null', '-'], work)
    ffmpeg(['-i', clip, '-vf', 'vidstabtransform=input=%s%s' % (trf,
                                                                 transform)]
           + _timing(passthrough)
           + ['-pix_fmt', 'yuv420p', '-f', 'yuv4mpegpipe', out], work)


def run_deshake(clip, out, work, passthrough=False):
    ffmpeg(['-i', clip, '-vf', 'deshake'] + _timing(passthrough)
           + ['-pix_fmt', 'yuv420p', '-f', 'yuv4mpegpipe', out], work)
