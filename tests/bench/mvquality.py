#!/usr/bin/env python3
"""Motion-field quality: how good are the vectors, as a coder would use them.

    mvquality.py selftest
    mvquality.py make-pan PHOTO OUT.y4m [--frames 50] [--motion 1.25,-0.75]
                 [--size 432x528] [--jitter SIGMA [--seed S]]
    mvquality.py pan-bench [--build DIR]
    mvquality.py score CLIP [--frames N] [--configs LIST] [--x264 LIST]
                 [--qp 23] [--true-mv QX,QY] [--mestimate METHODS]
                 [--mestimate-ranges LIST] [--build DIR] [--json OUT]
    mvquality.py speed CLIP [--frames N] [--mestimate-frames M]
                 [--ranges 16,32] [--methods LIST] [--mestimate METHODS]

`score` runs CLIP (anything ffmpeg decodes) through gpumotionest once per
configuration, R<range>:<partitions>:<subpel>:<metric>[:qp<Q>|:l<lambda>]
[:m<method>] (gst-launch-1.0, the CPU backend unless --backend says
otherwise; the method full, mods, hierarchical or predictive, full when not
named), writes
each field with mvexport (JSON Lines), encodes the same luma with x264
through ffmpeg and reads x264's vectors back (+export_mvs, through the small
C program mvquality-avmvs.c, compiled here with cc when the libav*
development files are present), and scores every field against the decoded
luma frames:

  MC-PSNR   each frame predicted from the previous ORIGINAL frame with each
            block's quarter-pel vector, interpolated exactly as H.264 does
            (clause 8.4.2.2.1: 6-tap half samples, (x + 16) >> 5, the
            centre sample from unrounded sums with (x + 512) >> 10, quarter
            samples (A + B + 1) >> 1 per table 8-12, the nearest edge
            sample outside the picture); PSNR of the prediction against the
            actual frame over all its pixels, from the mean squared error of
            all frames scored together;
  MVD bits  the signed Exp-Golomb length se(v) of mvd_x and mvd_y (quarter
            pel), summed over the blocks of a frame, with the MVD recomputed
            here for every field alike: the grid coded as one H.264
            partitioning (every macroblock 16x16, or every block 8x8 or
            4x4), the median prediction of clause 8.4.1.3 (left, top,
            top-right, D for an unavailable C);
  smooth    the share of blocks whose vector differs from that same median
            prediction by more than 1 pixel (4 quarter pels) in either
            component;
  exact     with --true-mv, the share of interior 16x16 blocks (not in the
            outer ring, and whose true match lies inside the reference
            picture) whose vector equals the known motion exactly;
  differs   for a fast method, the share of 16x16 blocks whose vector
            differs from that of the same configuration searched by method
            full (when both are in the run); for mestimate, from the
            whole-pel, distortion-only full search of the same range.

With --mestimate, FFmpeg's mestimate filter (libavfilter, through the small
C program mvquality-mestimate.c, compiled here with cc) is scored beside
them: 16x16 blocks, search_param = the range, whole-pel vectors against the
previous frame.  `speed` times gpumotionest's methods through the element
and mestimate's methods in one-reference searches per second.

x264's vectors are taken as FFmpeg exports them: one per 16x16, 16x8, 8x16
or 8x8 partition (a sub-8x8 split comes out as its 8x8's first vector),
skipped macroblocks with the vector they were decoded with (the P_Skip
prediction), intra macroblocks, which have none, with the zero vector.
"x264 <preset> partitions" is that field on the 4x4 grid (MC-PSNR only);
"x264 <preset>" reduces it to one vector per macroblock (the vector
covering most of it, the first in raster order on a tie) and is scored
like every 16x16 field.  Since the zero vector of an intra macroblock
predicts badly, MC-PSNR is also given over the pixels of the macroblocks
that every x264 run coded inter ("on x264-inter MBs"), for every field.

The zero field is scored too, as a floor.  `selftest` checks the
interpolation against the values worked by hand in tests/check/subpel.c.
This is a benchmark, not a test: it measures and prints, and fails only on
an internal inconsistency (an interpolation or prediction that disagrees
with the element's own).
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# ---------------------------------------------------------------------------
# H.264 luma interpolation (ITU-T H.264 clause 8.4.2.2.1)
# ---------------------------------------------------------------------------

PAD = 8  # border of the half-sample planes, in pixels
F, H, V, C = 0, 1, 2, 3  # full samples G; half samples b, h, j

# Table 8-12: the two samples whose rounded mean is the sample at fraction
# (fx, fy), index fy * 4 + fx, each as (plane, dx, dy) of integer position
# (x, y):
#        fx=0        1          2          3
#   fy=0 G          a=G+b      b          c=H+b
#      1 d=G+h      e=b+h      f=b+j      g=b+m
#      2 h          i=h+j      j          k=j+m
#      3 n=M+h      p=h+s      q=j+s      r=m+s
# with H = G(x+1, y), M = G(x, y+1), m = h(x+1, y), s = b(x, y+1).
PAIRS = [
    ((F, 0, 0), (F, 0, 0)), ((F, 0, 0), (H, 0, 0)),
    ((H, 0, 0), (H, 0, 0)), ((F, 1, 0), (H, 0, 0)),
    ((F, 0, 0), (V, 0, 0)), ((H, 0, 0), (V, 0, 0)),
    ((H, 0, 0), (C, 0, 0)), ((H, 0, 0), (V, 1, 0)),
    ((V, 0, 0), (V, 0, 0)), ((V, 0, 0), (C, 0, 0)),
    ((C, 0, 0), (C, 0, 0)), ((C, 0, 0), (V, 1, 0)),
    ((F, 0, 1), (V, 0, 0)), ((V, 0, 0), (H, 0, 1)),
    ((C, 0, 0), (H, 0, 1)), ((V, 1, 0), (H, 0, 1)),
]


def tap6(a, axis):
    """Unrounded 6-tap sums (1, -5, 20, 20, -5, 1) over a[i-2 .. i+3]:
    output i is centred on input i + 2 (b1, h1 of the standard)."""
    a = np.moveaxis(a, axis, 0)
    n = a.shape[0] - 5
    s = (a[0:n] - 5 * a[1:n + 1] + 20 * a[2:n + 2] + 20 * a[3:n + 3]
         - 5 * a[4:n + 4] + a[5:n + 5])
    return np.moveaxis(s, 0, axis)


def halfpel_planes(ref, maxv=255):
    """The full-sample plane and the three half-sample planes of `ref`
    (H x W samples), each (H + 2 PAD) x (W + 2 PAD), index i <-> coordinate
    i - PAD, outside the picture as if every coordinate were clamped, the
    half samples clipped to 0 .. maxv (255, or 2^depth - 1 for deeper
    samples).  Returned as int32, stacked F, H (b), V (h), C (j)."""
    g = np.pad(ref.astype(np.int32), ((PAD + 2, PAD + 3), (PAD + 2, PAD + 3)),
               mode="edge")
    full = g[2:-3, 2:-3]
    b1 = tap6(g[2:-3, :], 1)
    h1 = tap6(g[:, 2:-3], 0)
    j1 = tap6(tap6(g, 1), 0)
    b = np.clip((b1 + 16) >> 5, 0, maxv)
    h = np.clip((h1 + 16) >> 5, 0, maxv)
    j = np.clip((j1 + 512) >> 10, 0, maxv)
    return np.stack([full, b, h, j])


def quarter_planes(ref, maxv=255):
    """All 16 fractional sample planes of `ref`: q[fy * 4 + fx][i, k] is the
    sample at (k - PAD + fx / 4, i - PAD + fy / 4).  The last row and column
    of each are not meaningful (never read, see predict())."""
    p = halfpel_planes(ref, maxv)
    hp, wp = p.shape[1:]
    out = np.empty((16, hp, wp), np.uint8 if maxv <= 255 else np.uint16)
    for f, ((pa, xa, ya), (pb, xb, yb)) in enumerate(PAIRS):
        a = p[pa, ya:, xa:]
        b = p[pb, yb:, xb:]
        hh = min(a.shape[0], b.shape[0])
        ww = min(a.shape[1], b.shape[1])
        out[f, :hh, :ww] = (a[:hh, :ww] + b[:hh, :ww] + 1) >> 1
        out[f, hh:, :] = 0
        out[f, :, ww:] = 0
    return out


def expand(field, bw, bh, h, w):
    """Per-pixel copy of a per-block field (rows x cols x 2), cropped to the
    picture."""
    return np.repeat(np.repeat(field, bh, 0), bw, 1)[:h, :w]


def predict(q, field, bw, bh, h, w):
    """Motion-compensated prediction (h x w uint8) from the quarter planes
    `q` of the reference, block (c, r) of size bw x bh displaced by
    field[r, c] quarter pels: cur(x, y) ~ ref(x + qx / 4, y + qy / 4).

    Integer positions are clamped to -4 .. w + 1 (-4 .. h + 1): every sample
    further out equals the one there, since the six taps and the +1 of the
    second sample then lie wholly beyond the edge, where all samples are
    the edge sample."""
    f = expand(field.astype(np.int32), bw, bh, h, w)
    qx, qy = f[..., 0], f[..., 1]
    ys, xs = np.indices((h, w), dtype=np.int32)
    ix = np.clip(xs + (qx >> 2), -4, w + 1) + PAD
    iy = np.clip(ys + (qy >> 2), -4, h + 1) + PAD
    hp, wp = q.shape[1:]
    idx = ((qy & 3) * 4 + (qx & 3)) * (hp * wp) + iy * wp + ix
    return q.reshape(-1)[idx]


# ---------------------------------------------------------------------------
# MV prediction, MVD bits, smoothness
# ---------------------------------------------------------------------------

def decode_key(px, py, mb_cols):
    """Decoding order of the block whose top-left pixel is (px, py):
    macroblock address, then luma4x4BlkIdx of that pixel's 4x4 block."""
    mb = (py // 16) * mb_cols + px // 16
    x4 = (px % 16) // 4
    y4 = (py % 16) // 4
    blk = (y4 // 2) * 8 + (x4 // 2) * 4 + (y4 % 2) * 2 + x4 % 2
    return mb * 16 + blk


_NB = {}


def neighbours(size, rows, cols):
    """Flat indices of A (left), B (top) and C (top-right, or D top-left
    when C is outside the picture or not yet decoded) of every block of a
    grid of size x size blocks coded as one H.264 partitioning (16x16, or
    P_8x8 with every sub-macroblock split alike); -1 = unavailable."""
    key = (size, rows, cols)
    if key in _NB:
        return _NB[key]
    mb_cols = (cols * size + 15) // 16
    r, c = np.indices((rows, cols))
    idx = r * cols + c
    a = np.where(c > 0, idx - 1, -1)
    b = np.where(r > 0, idx - cols, -1)
    cur = decode_key(c * size, r * size, mb_cols)
    cn = decode_key((c + 1) * size, (r - 1) * size, mb_cols)
    c_ok = (r > 0) & (c + 1 < cols) & (cn < cur)
    d_ok = (r > 0) & (c > 0)
    cc = np.where(c_ok, idx - cols + 1, np.where(d_ok, idx - cols - 1, -1))
    _NB[key] = (a.ravel(), b.ravel(), cc.ravel())
    return _NB[key]


def mv_pred(field, size):
    """H.264 median prediction (8.4.1.3.1, one reference) of every block of
    `field` (rows x cols x 2), a grid of size x size blocks."""
    rows, cols = field.shape[:2]
    v = field.reshape(-1, 2).astype(np.int32)
    na, nb, nc = neighbours(size, rows, cols)

    def get(i):
        x = v[np.maximum(i, 0)]
        x[i < 0] = 0
        return x

    a, b, c = get(na), get(nb), get(nc)
    avail = np.stack([na >= 0, nb >= 0, nc >= 0])
    med = np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
    # One neighbour available (B and C unavailable with A available is the
    # case "B and C take A's value"): that neighbour's vector; otherwise the
    # median with the unavailable ones as (0, 0).
    one = avail.sum(0) == 1
    only = (a * avail[0][:, None] + b * avail[1][:, None]
            + c * avail[2][:, None])
    pred = np.where(one[:, None], only, med)
    return pred.reshape(rows, cols, 2)


def se_bits(v):
    """Length in bits of the signed Exp-Golomb code se(v)."""
    v = np.asarray(v, np.int64)
    k = np.where(v > 0, 2 * v - 1, -2 * v)
    return 2 * (np.frexp(k + 1)[1] - 1) + 1


# ---------------------------------------------------------------------------
# Reading clips
# ---------------------------------------------------------------------------

# bytes per frame, in luma planes, of the planar formats whose luma plane
# comes first and is stored as decoded
PLANAR = {"yuv420p": 1.5, "yuvj420p": 1.5, "yuv422p": 2, "yuvj422p": 2,
          "yuv444p": 3, "yuvj444p": 3, "gray": 1, "nv12": 1.5, "nv21": 1.5,
          "yuv411p": 1.5, "yuv410p": 1.125}


def load_luma(path, max_frames=None):
    """The luma planes of the decoded frames of `path` (N x H x W uint8),
    exactly as decoded: the frames are read in their own pixel format
    (no range or colour conversion) and the luma plane is taken."""
    pr = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "stream=width,height,pix_fmt", "-of", "json", path],
        check=True, capture_output=True).stdout)["streams"][0]
    w, h, fmt = pr["width"], pr["height"], pr["pix_fmt"]
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-i", path,
           "-fps_mode", "passthrough"]
    if max_frames:
        cmd += ["-frames:v", str(max_frames)]
    if fmt in PLANAR:
        per = int(w * h * PLANAR[fmt])
    else:
        print(f"note: {path} is {fmt}: its luma is read through swscale "
              "as gray", file=sys.stderr)
        fmt, per = "gray", w * h
    raw = subprocess.run(cmd + ["-f", "rawvideo", "-pix_fmt", fmt, "-"],
                         check=True, capture_output=True).stdout
    n = len(raw) // per
    frames = np.frombuffer(raw[:n * per], np.uint8).reshape(n, per)
    return np.ascontiguousarray(frames[:, :w * h].reshape(n, h, w))


def write_y4m(path, frames, fps="25:1"):
    """4:2:0 Y4M with these luma planes and neutral chroma."""
    n, h, w = frames.shape
    chroma = np.full(2 * ((h + 1) // 2) * ((w + 1) // 2), 128, np.uint8)
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{w} H{h} F{fps} Ip A1:1 C420jpeg\n".encode())
        for f in frames:
            out.write(b"FRAME\n")
            out.write(np.ascontiguousarray(f).tobytes())
            out.write(chroma.tobytes())


# ---------------------------------------------------------------------------
# Fields: gpumotionest, x264, zero, known
# ---------------------------------------------------------------------------

SHAPE_SIZE = {"16x16": 16, "8x8": 8, "4x4": 4}


def gst_env(build, work):
    """The environment of a gst-launch-1.0 that takes the project's
    plugins from BUILD/gst only, through a registry in the folder work."""
    env = dict(os.environ)
    env["GST_PLUGIN_PATH_1_0"] = os.path.join(build, "gst")
    env.pop("GST_PLUGIN_PATH", None)
    env["GST_REGISTRY_1_0"] = os.path.join(work, "registry.bin")
    return env


def gst_pipeline(gray, w, h, props, build, backend, tail):
    """The environment and gst-launch-1.0 arguments of gpumotionest over
    the raw GRAY8 file `gray`, followed by `tail`."""
    env = gst_env(build, os.path.dirname(gray))
    pipe = (f"filesrc location={gray} ! rawvideoparse format=gray8 "
            f"width={w} height={h} framerate=25/1 frame-size={w * h} "
            f"plane-strides=<{w}> ! gpumotionest backend={backend} {props} "
            f"{tail}")
    return env, ["gst-launch-1.0"] + pipe.split()


def run_gpumotionest(gray, w, h, props, out, build, backend,
                     parts="16x16+8x8+4x4"):
    """gpumotionest over the raw GRAY8 file `gray`; the field to `out`."""
    env, argv = gst_pipeline(gray, w, h, props, build, backend,
                             f"! mvexport location={out} "
                             f"partitions={parts} ! fakesink")
    t = time.monotonic()
    subprocess.run(argv[:1] + ["-q"] + argv[1:], check=True, env=env)
    return time.monotonic() - t


def read_export(path, n):
    """Per frame: {shape: dict(mv=, pred=, cost=)} or None without a
    reference, from an mvexport JSON Lines file."""
    out = [None] * n
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if not d["has_reference"] or d["frame"] >= n:
                continue
            layers = {}
            for L in d["layers"]:
                rc = (L["rows"], L["cols"])
                layers[L["shape"]] = dict(
                    mv=np.array(L["mv"], np.int16).reshape(*rc, 2),
                    pred=np.array(L["pred"], np.int16).reshape(*rc, 2),
                    cost=np.array(L["cost"], np.int64).reshape(rc))
            if "modes" in d:
                layers["modes"] = d["modes"]
            out[d["frame"]] = layers
    return out


def build_avmvs(work):
    """Compile mvquality-avmvs.c; None when the libraries are missing."""
    cc = shutil.which("cc") or shutil.which("gcc")
    pc = subprocess.run(["pkg-config", "--cflags", "--libs", "libavformat",
                         "libavcodec", "libavutil"], capture_output=True,
                        text=True)
    if not cc or pc.returncode != 0:
        return None
    exe = os.path.join(work, "mvquality-avmvs")
    subprocess.run([cc, "-O2", "-o", exe,
                    os.path.join(HERE, "mvquality-avmvs.c")]
                   + pc.stdout.split(), check=True)
    return exe


def build_mestimate(work):
    """Compile mvquality-mestimate.c; None when the libraries are missing."""
    cc = shutil.which("cc") or shutil.which("gcc")
    pc = subprocess.run(["pkg-config", "--cflags", "--libs", "libavfilter",
                         "libavutil"], capture_output=True, text=True)
    if not cc or pc.returncode != 0:
        return None
    exe = os.path.join(work, "mvquality-mestimate")
    if not os.path.exists(exe):
        subprocess.run([cc, "-O2", "-o", exe,
                        os.path.join(HERE, "mvquality-mestimate.c")]
                       + pc.stdout.split(), check=True)
    return exe


def mestimate_fields(exe, gray, n, w, h, method, rng, args=None):
    """mestimate_run(), or its result from --cache when an earlier run
    saved it for the same frames, method and range."""
    cache = getattr(args, "cache", None)
    if cache:
        import hashlib
        with open(gray, "rb") as f:
            key = hashlib.sha256(f.read()).hexdigest()[:16]
        path = os.path.join(cache, f"mestimate-{key}-{w}x{h}-{method}-"
                            f"{rng}.npz")
        if os.path.exists(path):
            z = np.load(path)
            seq = [None] + list(z["fields"])
            return seq, int(z["outs"]), float(z["secs"])
    seq, outs, secs = mestimate_run(exe, gray, n, w, h, method, rng)
    if cache:
        os.makedirs(cache, exist_ok=True)
        np.savez(path + ".tmp.npz", fields=np.stack(seq[1:]), outs=outs,
                 secs=secs)
        os.replace(path + ".tmp.npz", path)
    return seq, outs, secs


def mestimate_run(exe, gray, n, w, h, method, rng):
    """FFmpeg's mestimate (method, mb_size=16, search_param=rng) over the
    raw GRAY8 file `gray`: per frame the field against the previous frame
    (mb rows x mb cols x 2, quarter pels) or None for frame 0, the number of
    output frames and the seconds spent in libavfilter.

    mestimate writes, for each block, src and dst (block centres in the
    reference and in the current frame) and leaves motion_x/y/scale unset:
    the vector is 4 (src - dst) quarter pels, pointing from the current
    block to its match, our convention.  It searches only blocks wholly in
    the picture (w >> 4 columns, h >> 4 rows) and keeps the match inside
    the picture; a partial macroblock column or row at the right or bottom
    edge (1080p's last row) takes the vector of the block beside it."""
    r = subprocess.run([exe, gray, str(w), str(h),
                        f"method={method}:mb_size=16:search_param={rng}"],
                       check=True, capture_output=True, text=True)
    secs = float(r.stderr.strip().split("\n")[-1].split()[-2])
    text = r.stdout.split("\n")
    mbr, mbc = (h + 15) // 16, (w + 15) // 16
    bw, bh = w // 16, h // 16
    seq, i, outs = [None] * n, 0, 0
    while i < len(text) and text[i]:
        _, k, count = text[i].split()
        k, count = int(k), int(count)
        rows = np.array([list(map(int, t.split()))
                         for t in text[i + 1:i + 1 + count]], np.int64)
        i += 1 + count
        outs += 1
        assert count == 2 * bw * bh, f"mestimate: {count} vectors"
        if k == 0 or k >= n:
            continue
        prev = rows[rows[:, 0] == -1]
        assert len(prev) == bw * bh and (prev[:, 1:3] == 16).all()
        f = np.zeros((bh, bw, 2), np.int32)
        bx, by = (prev[:, 5] - 8) // 16, (prev[:, 6] - 8) // 16
        f[by, bx, 0] = 4 * (prev[:, 3] - prev[:, 5])
        f[by, bx, 1] = 4 * (prev[:, 4] - prev[:, 6])
        f = np.pad(f, ((0, mbr - bh), (0, mbc - bw), (0, 0)), mode="edge")
        seq[k] = f
    assert all(seq[k] is not None for k in range(1, n)), "mestimate: frames"
    return seq, outs, secs


def x264_fields(y4m, n, w, h, preset, qp, avmvs, work):
    """Encode with libx264 (P frames only, one reference), decode with
    +export_mvs.  Returns per frame a 4x4-grid field (x264's partitions at
    the granularity FFmpeg exports: 16x16, 16x8, 8x16, 8x8), a mask of the
    macroblocks that have no vector (intra), and the encode time."""
    mkv = os.path.join(work, f"x264-{preset}.mkv")
    params = "scenecut=0:weightp=0:threads=1"
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", y4m,
           "-frames:v", str(n), "-c:v", "libx264", "-preset", preset,
           "-bf", "0", "-refs", "1", "-g", "100000", "-keyint_min", "100000",
           "-qp", str(qp), "-x264-params", params, mkv]
    t = time.monotonic()
    subprocess.run(cmd, check=True)
    secs = time.monotonic() - t
    text = subprocess.run([avmvs, mkv], check=True, capture_output=True,
                          text=True).stdout.split("\n")
    mbc, mbr = (w + 15) // 16, (h + 15) // 16
    fields, intra, types = [None] * n, [None] * n, []
    i = 0
    while i < len(text) and text[i]:
        _, k, ptype, count = text[i].split()
        k, count = int(k), int(count)
        types.append(ptype)
        rows = np.array([list(map(int, s.split()))
                         for s in text[i + 1:i + 1 + count]], np.int64)
        i += 1 + count
        if ptype != "P" or k >= n:
            continue
        f4 = np.zeros((mbr * 4, mbc * 4, 2), np.int32)
        cov = np.zeros((mbr * 4, mbc * 4), bool)
        for src, bw, bh, _, _, dx, dy, mx, my, sc in rows.reshape(-1, 10):
            assert src == -1, "a vector from a later frame"
            assert (4 * mx) % sc == 0 and (4 * my) % sc == 0
            x0, y0 = (dx - bw // 2) // 4, (dy - bh // 2) // 4
            f4[y0:y0 + bh // 4, x0:x0 + bw // 4] = (4 * mx // sc, 4 * my // sc)
            cov[y0:y0 + bh // 4, x0:x0 + bw // 4] = True
        fields[k] = f4
        intra[k] = ~cov.reshape(mbr, 4, mbc, 4).any(axis=(1, 3))
    assert len(types) >= n and types[0] == "I" and \
        all(t == "P" for t in types[1:n]), f"x264 frame types: {types[:n]}"
    return fields, intra, secs


ALL_SHAPES = "16x16+16x8+8x16+8x8+8x4+4x8+4x4"


def chosen_field(e, mbr, mbc):
    """The partition decision of one frame's export `e` as a 4x4-grid
    field: each macroblock's blocks of the shape it is coded with."""
    modes = np.array(e["modes"]).reshape(mbr, mbc)
    f4 = np.zeros((mbr * 4, mbc * 4, 2), np.int32)
    for shape in set(modes.flat):
        bw, bh = (int(v) for v in shape.split("x"))
        up = np.repeat(np.repeat(e[shape]["mv"], bh // 4, 0), bw // 4, 1)
        mask = expand(modes == shape, 4, 4, mbr * 4, mbc * 4)
        f4[mask] = up[:mbr * 4, :mbc * 4][mask]
    return f4


def mb_vector(f4):
    """One vector per macroblock from a 4x4-grid field: the vector that
    covers most of the macroblock, the first in raster order on a tie."""
    r4, c4 = f4.shape[:2]
    m = f4.reshape(r4 // 4, 4, c4 // 4, 4, 2).transpose(0, 2, 1, 3, 4)
    m = m.reshape(r4 // 4, c4 // 4, 16, 2)
    key = m[..., 0].astype(np.int64) * 65536 + m[..., 1]
    votes = (key[..., :, None] == key[..., None, :]).sum(-1)
    best = votes.argmax(-1)
    return np.take_along_axis(m, best[..., None, None], 2)[..., 0, :]


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------

class Score:
    """Accumulates one field's numbers over the frames."""

    def __init__(self, name, size):
        self.name, self.size = name, size
        self.sse = 0
        self.pixels = 0
        self.bits = 0
        self.blocks = 0
        self.rough = 0
        self.frames = 0
        self.exact = 0
        self.interior = 0
        self.exact_frames = []
        self.near = 0
        self.psnr_frames = []
        self.sse_inter = 0
        self.pixels_inter = 0
        self.sse_inside = 0
        self.pixels_inside = 0
        self.extra = {}

    def add(self, field, pred_img, cur, true_mv=None, inter=None):
        d = pred_img.astype(np.int32) - cur
        sse = int((d * d).sum())
        self.sse += sse
        self.pixels += d.size
        # inside the outer ring of macroblocks: where a search that keeps
        # its match inside the picture (mestimate) is not at a disadvantage
        h, w = d.shape
        di = d[16:16 * (h // 16 - 1), 16:16 * (w // 16 - 1)]
        self.sse_inside += int((di * di).sum())
        self.pixels_inside += di.size
        if inter is not None:
            di = d[inter]
            self.sse_inter += int((di * di).sum())
            self.pixels_inter += di.size
        mse = sse / d.size
        self.psnr_frames.append(99.0 if mse == 0 else
                                10 * np.log10(255 ** 2 / mse))
        mvd = field.astype(np.int32) - mv_pred(field, self.size)
        self.bits += int(se_bits(mvd).sum())
        self.blocks += field.shape[0] * field.shape[1]
        self.rough += int((np.abs(mvd) > 4).any(-1).sum())
        self.frames += 1
        if true_mv is not None and self.size == 16:
            inner = interior_mask(cur.shape, true_mv)
            hit = int((field[:inner.shape[0], :inner.shape[1]][inner]
                       == true_mv).all(-1).sum())
            self.exact += hit
            self.near += int((np.abs(field[:inner.shape[0], :inner.shape[1]]
                                     [inner] - true_mv) <= 2).all(-1).sum())
            self.interior += int(inner.sum())
            self.exact_frames.append(hit == int(inner.sum()))

    def result(self):
        mse = self.sse / max(self.pixels, 1)
        r = dict(name=self.name, grid=f"{self.size}x{self.size}",
                 frames=self.frames,
                 mc_psnr=round(99.0 if mse == 0 else
                               10 * np.log10(255 ** 2 / mse), 3),
                 mc_psnr_frame_mean=round(float(np.mean(self.psnr_frames)), 3),
                 mvd_bits_per_frame=round(self.bits / max(self.frames, 1), 1),
                 mvd_bits_per_block=round(self.bits / max(self.blocks, 1), 3),
                 smooth_rough_share=round(self.rough / max(self.blocks, 1), 4))
        if self.pixels_inside:
            mi = self.sse_inside / self.pixels_inside
            r["mc_psnr_inside"] = round(
                99.0 if mi == 0 else 10 * np.log10(255 ** 2 / mi), 3)
        if self.pixels_inter:
            mi = self.sse_inter / self.pixels_inter
            r["mc_psnr_x264_inter"] = round(
                99.0 if mi == 0 else 10 * np.log10(255 ** 2 / mi), 3)
            r["x264_inter_pixel_share"] = round(
                self.pixels_inter / self.pixels, 4)
        if self.interior:
            r["exact_share"] = round(self.exact / self.interior, 4)
            r["interior_blocks_per_frame"] = self.interior // self.frames
            # within half a pixel on each axis: what a whole-pel field can
            # reach at best when the motion is fractional
            r["near_share"] = round(self.near / self.interior, 4)
            # frames (1 = the first with a reference) in which every interior
            # block is exact, and the first frame from which all are
            r["exact_all_frames"] = int(sum(self.exact_frames))
            bad = [t for t, ok in enumerate(self.exact_frames, 1) if not ok]
            r["exact_all_from_frame"] = (
                None if bad and bad[-1] == self.frames else
                (bad[-1] + 1 if bad else 1))
        r.update(self.extra)
        return r


def interior_mask(shape, true_mv):
    """The interior 16x16 blocks of an h x w picture for --true-mv: not in
    the outer ring, and whose block displaced by the known motion, with the
    interpolation's reach (3 pixels before, 4 after), lies wholly inside the
    reference picture; a block whose true match lies partly outside (on a
    fast pan) cannot be matched exactly by any search."""
    h, w = shape
    rows, cols = h // 16, w // 16
    dx, dy = int(true_mv[0]) >> 2, int(true_mv[1]) >> 2
    r, c = np.indices((rows, cols))
    ok = (r > 0) & (r < rows - 1) & (c > 0) & (c < cols - 1)
    ok &= (16 * c + dx - 3 >= 0) & (16 * c + 15 + dx + 4 <= w - 1)
    ok &= (16 * r + dy - 3 >= 0) & (16 * r + 15 + dy + 4 <= h - 1)
    return ok


def check_pred(name, shape, exported, ours):
    bad = int((exported != ours).any(-1).sum())
    if bad:
        raise SystemExit(f"{name} {shape}: {bad} cells whose exported "
                         "prediction differs from this tool's")


METHODS = ("full", "mods", "hierarchical", "predictive")


def parse_config(c):
    """R<range>:<partitions>:<subpel>:<metric> followed by optional fields
    in any order: qp<Q> or l<lambda> (the rate term), m<method> (the search
    method, docs/fast-search.md; the element's default, full, without), md
    (the partition decision: its field is scored as "<config> chosen", on
    the 4x4 grid)."""
    f = c.split(":")
    if len(f) < 4 or not f[0].startswith("R"):
        raise SystemExit(f"bad configuration {c!r}: R<range>:<partitions>:"
                         "<subpel>:<metric>[:qp<Q>|:l<lambda>][:m<method>]")
    cfg = dict(range=int(f[0][1:]), parts=f[1], subpel=f[2], metric=f[3],
               rate="", method="", md=False)
    for x in f[4:]:
        if x == "md":
            cfg["md"] = True
        elif x.startswith("qp") or x.startswith("l"):
            cfg["rate"] = x
        elif x.startswith("m") and x[1:] in METHODS:
            cfg["method"] = x[1:]
        else:
            raise SystemExit(f"bad field {x!r} in configuration {c!r}")
    return cfg


def same_but_full(cfg, parsed):
    """The configuration of `parsed` that is `cfg` searched by method full
    (written with :mfull or without a method), or None."""
    for k, o in parsed.items():
        if (o["method"] in ("", "full") and all(
                o[x] == cfg[x] for x in ("range", "parts", "subpel", "md",
                                         "metric", "rate"))):
            return k
    return None


def whole_pel_full(rng, parsed):
    """A whole-pel, distortion-only, method-full configuration of range
    `rng` in `parsed` (the metric does not matter: SATD only ranks sub-pel
    candidates), or None."""
    for k, o in parsed.items():
        if (o["method"] in ("", "full") and o["range"] == rng
                and o["subpel"] == "none" and not o["rate"]):
            return k
    return None


def differ_share(a, b):
    """The share of blocks, over all frames with both fields, whose vectors
    differ (in either component)."""
    diff = blocks = 0
    for x, y in zip(a, b):
        if x is None or y is None:
            continue
        diff += int((x != y).any(-1).sum())
        blocks += x.shape[0] * x.shape[1]
    return diff / max(blocks, 1)


def lambda_of(rate):
    """The lambda of a configuration's rate part: "qpN" (x264's table, as
    the element's qp property computes it), "lN", or "" for none."""
    if rate.startswith("qp"):
        return max(1, int(2.0 ** ((int(rate[2:]) - 12) / 6.0) + 0.5))
    return int(rate[1:]) if rate.startswith("l") else 0


def check_cost(name, field, pred_img, cur, cost, size, lam):
    """The element's cost of each block wholly inside the picture must equal
    the SAD of this tool's prediction (both interpolate the same way), plus
    lambda x the se(v) bits of the MVD when lambda is set."""
    h, w = cur.shape
    rows, cols = h // size, w // size
    d = np.abs(pred_img.astype(np.int32) - cur)[:rows * size, :cols * size]
    sad = d.reshape(rows, size, cols, size).sum(axis=(1, 3))
    if lam:
        mvd = field.astype(np.int32) - mv_pred(field, size)
        sad = sad + lam * se_bits(mvd).sum(-1)[:rows, :cols]
    bad = int((sad != cost[:rows, :cols]).sum())
    if bad:
        raise SystemExit(f"{name}: {bad} of {rows * cols} blocks whose SAD "
                         "differs from the element's cost")


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

DEFAULT_CONFIGS = ",".join(
    [f"R{r}:{p}:{s}:{m}" for r in (16, 32) for p in ("16x16", "all")
     for s, m in (("none", "sad"), ("half", "sad"), ("half", "satd"),
                  ("quarter", "sad"), ("quarter", "satd"))]
    + [f"R{r}:{p}:{s}:{m}:qp23" for r in (16, 32)
       for p, s, m in (("16x16", "none", "sad"), ("16x16", "quarter", "sad"),
                       ("16x16", "quarter", "satd"), ("all", "quarter",
                                                      "satd"))])


def cmd_score(args):
    t0 = time.monotonic()
    frames = load_luma(args.clip, args.frames)
    n, h, w = frames.shape
    print(f"clip {args.clip}: {n} frames of {w}x{h}", file=sys.stderr)
    work = tempfile.mkdtemp(prefix="mvquality-", dir=args.work)
    try:
        return score_in(args, frames, work, t0)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}", file=sys.stderr)


def score_in(args, frames, work, t0):
    n, h, w = frames.shape
    gray = os.path.join(work, "luma.gray")
    frames.tofile(gray)
    true_mv = (np.array([int(v) for v in args.true_mv.split(",")])
               if args.true_mv else None)

    # fields[name] = (size, per-frame list of rows x cols x 2 or None)
    fields = {}
    exports = {}
    info = {}
    mbr, mbc = (h + 15) // 16, (w + 15) // 16
    zero = np.zeros((mbr, mbc, 2), np.int32)
    fields["zero"] = (16, [None] + [zero] * (n - 1))
    if true_mv is not None:
        fields["known motion"] = (16, [None] + [np.broadcast_to(
            true_mv, (mbr, mbc, 2)).astype(np.int32)] * (n - 1))

    configs = [c for c in args.configs.split(",") if c]
    parsed = {}
    for c in configs:
        cfg = parse_config(c)
        parsed[c] = cfg
        parts, metric, rate = cfg["parts"], cfg["metric"], cfg["rate"]
        props = (f"search-range={cfg['range']} partitions={parts} "
                 f"subpel={cfg['subpel']} metric={metric}")
        if rate:
            props += (f" qp={rate[2:]}" if rate.startswith("qp")
                      else f" lambda={rate[1:]}")
        if cfg["method"]:
            props += f" method={cfg['method']}"
        if cfg["md"]:
            props += " mode-decision=true"
        out = os.path.join(work, c.replace(":", "-") + ".jsonl")
        secs = run_gpumotionest(gray, w, h, props, out, args.build,
                                args.backend,
                                ALL_SHAPES if cfg["md"] else
                                "16x16+8x8+4x4")
        ex = read_export(out, n)
        os.unlink(out)
        print(f"  gpumotionest {props}: {secs:.1f} s", file=sys.stderr)
        shapes = ["16x16"] + (["8x8", "4x4"] if parts == "all" else [])
        for s in shapes:
            name = f"{c}" + ("" if s == "16x16" else f" {s} grid")
            seq = [None if e is None else e[s]["mv"] for e in ex]
            fields[name] = (SHAPE_SIZE[s], seq)
            exports[name] = (s, metric, lambda_of(rate), ex)
            info[name] = dict(seconds=round(secs, 2), props=props)
        if cfg["md"]:
            name = f"{c} chosen"
            fields[name] = (4, [None if e is None else
                                chosen_field(e, mbr, mbc) for e in ex])
            info[name] = dict(seconds=round(secs, 2), props=props)

    avmvs = build_avmvs(work) if args.x264 else None
    if args.x264 and not avmvs:
        print("no libavformat/libavcodec/libavutil development files "
              "(pkg-config): x264 not scored", file=sys.stderr)
    elif args.x264:
        y4m = os.path.join(work, "x264-in.y4m")
        write_y4m(y4m, frames)
        # pixels of macroblocks that every x264 run coded inter
        inter = [None] + [np.ones((h, w), bool) for _ in range(n - 1)]
        for preset in args.x264.split(","):
            f4, intra, secs = x264_fields(y4m, n, w, h, preset, args.qp,
                                          avmvs, work)
            nm = f"x264 {preset}"
            fields[nm + " partitions"] = (4, f4)
            fields[nm] = (16, [None if f is None else mb_vector(f)
                               for f in f4])
            share = np.mean([i.mean() for i in intra if i is not None])
            for t in range(1, n):
                inter[t] &= ~expand(intra[t], 16, 16, h, w)
            for k in (nm, nm + " partitions"):
                info[k] = dict(seconds=round(secs, 2), intra_mb_share=round(
                    float(share), 4))
            print(f"  x264 {preset}: {secs:.1f} s, intra macroblocks "
                  f"{100 * share:.2f} %", file=sys.stderr)
        os.unlink(y4m)

    # FFmpeg's mestimate filter, whole-pel, 16x16, against the previous frame
    me_methods = [m for m in (getattr(args, "mestimate", "") or "")
                  .split(",") if m]
    if me_methods:
        exe = build_mestimate(work)
        if not exe:
            print("no libavfilter/libavutil development files (pkg-config):"
                  " mestimate not scored", file=sys.stderr)
            me_methods = []
        me_ranges = getattr(args, "mestimate_ranges", None)
        ranges = ([int(r) for r in me_ranges.split(",")] if me_ranges else
                  sorted({o["range"] for o in parsed.values()}))
        for rng in ranges:
            for m in me_methods:
                nm = f"mestimate R{rng} {m}"
                seq, outs, secs = mestimate_fields(exe, gray, n, w, h, m, rng,
                                                   args)
                fields[nm] = (16, seq)
                info[nm] = dict(seconds=round(secs, 2), one_ref_searches=2
                                * outs, searches_per_s=round(2 * outs / secs,
                                                             3))
                print(f"  mestimate method={m} search_param={rng}: "
                      f"{secs:.1f} s in libavfilter", file=sys.stderr)
                full = whole_pel_full(rng, parsed)
                if full:
                    info[nm]["differs_from_full_share"] = round(
                        differ_share(seq, fields[full][1]), 4)
                    info[nm]["full_compared"] = full

    # how often a fast method's 16x16 field differs from full search's
    for k, cfg in parsed.items():
        if cfg["method"] in ("", "full"):
            continue
        full = same_but_full(cfg, parsed)
        if full:
            info[k]["differs_from_full_share"] = round(
                differ_share(fields[k][1], fields[full][1]), 4)
            info[k]["full_compared"] = full

    # does searching every shape change the 16x16 grid?
    for k in list(fields):
        part = k.split(":")
        alone = ":".join(part[:1] + ["16x16"] + part[2:])
        if len(part) > 1 and part[1] == "all" and alone in fields:
            diff = sum(int((a != b).any(-1).sum())
                       for a, b in zip(fields[k][1], fields[alone][1])
                       if a is not None)
            info[k]["blocks_differing_from_16x16_run"] = diff

    if not avmvs:
        inter = [None] * n
    scores = {k: Score(k, size) for k, (size, _) in fields.items()}
    checked = 0
    for t in range(1, n):
        q = quarter_planes(frames[t - 1])
        cur = frames[t].astype(np.int32)
        for k, (size, seq) in fields.items():
            fld = seq[t]
            if fld is None:
                continue
            img = predict(q, fld, size, size, h, w)
            scores[k].add(fld, img, cur, true_mv, inter[t])
            if k in exports:
                shape, metric, lam, ex = exports[k]
                check_pred(k, shape, ex[t][shape]["pred"],
                           mv_pred(fld, size))
                if metric == "sad":
                    check_cost(k, fld, img, cur, ex[t][shape]["cost"], size,
                               lam)
                checked += 1
    results = []
    for k, s in scores.items():
        r = s.result()
        r.update(info.get(k, {}))
        results.append(r)
    report = dict(clip=os.path.basename(args.clip), frames=n, width=w,
                  height=h, qp=args.qp, results=results,
                  checked_fields=checked,
                  seconds=round(time.monotonic() - t0, 1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    print_table(report)
    return 0


def print_table(rep):
    print(f"\n{rep['clip']}: {rep['frames']} frames of {rep['width']}x"
          f"{rep['height']}, x264 QP {rep['qp']}\n")
    ex = any("exact_share" in r for r in rep["results"])
    inter = any("mc_psnr_x264_inter" in r for r in rep["results"])
    head = "| method | grid | MC-PSNR dB |"
    if inter:
        head += " on x264-inter MBs |"
    head += " MVD bits/frame | bits/block | rough % |"
    dif = any("differs_from_full_share" in r for r in rep["results"])
    sp = any("searches_per_s" in r for r in rep["results"])
    head += " differs from full % |" if dif else ""
    head += " all exact from frame |" if ex else ""
    head += " searches/s |" if sp else ""
    print(head + (" exact % |" if ex else ""))
    print("|" + " --- |" * (6 + inter + 2 * ex + dif + sp))
    for r in rep["results"]:
        line = f"| {r['name']} | {r['grid']} | {r['mc_psnr']:.2f} |"
        if inter:
            line += f" {r['mc_psnr_x264_inter']:.2f} |"
        if r["name"].endswith(" partitions"):
            # x264's own partitions: the uniform-grid MVD rule does not
            # describe what x264 codes, so only the prediction is shown
            line += " — | — | — |"
        else:
            line += (f" {r['mvd_bits_per_frame']:.0f} |"
                     f" {r['mvd_bits_per_block']:.2f} |"
                     f" {100 * r['smooth_rough_share']:.1f} |")
        if dif:
            line += (f" {100 * r['differs_from_full_share']:.2f} |"
                     if "differs_from_full_share" in r else " |")
        if ex:
            line += (f" {r['exact_all_from_frame']} |"
                     if r.get("exact_all_from_frame") else
                     " never |" if "exact_share" in r else " |")
        if sp:
            line += (f" {r['searches_per_s']:.2f} |" if "searches_per_s" in r
                     else " |")
        if ex:
            line += (f" {100 * r['exact_share']:.1f} |" if "exact_share" in r
                     else " |")
        print(line)


def gst_seconds(gray, w, h, props, build, backend):
    """gst-launch-1.0 over the raw GRAY8 file `gray` into fakesink: the
    seconds from PLAYING to EOS that gst-launch reports (plugin loading and
    pipeline set-up not included)."""
    env, argv = gst_pipeline(gray, w, h, props, build, backend, "! fakesink")
    out = subprocess.run(argv, check=True,
                         env=env, capture_output=True, text=True).stdout
    for line in out.split("\n"):
        if line.startswith("Execution ended after "):
            hh, mm, ss = line.split()[-1].split(":")
            return 3600 * int(hh) + 60 * int(mm) + float(ss)
    raise SystemExit("gst-launch-1.0 printed no execution time")


def cmd_speed(args):
    """One-reference searches per second: gpumotionest's methods through
    the element (16x16, the CPU backend unless --backend says otherwise,
    on all cores and on one thread) and FFmpeg's mestimate methods (one
    thread: it has none), on the first frames of CLIP.

    gpumotionest: N frames are N - 1 searches, timed from PLAYING to EOS
    as gst-launch-1.0 reports it (the fastest of --repeat runs).
    mestimate: the time spent inside libavfilter; each output frame is two
    searches (the previous and the next frame), counted as
    tests/bench/cpu-vs-mestimate.sh counts them.  With M frames sent (the
    last twice, see mvquality-mestimate.c) there are M outputs and 2 M
    searches, of which two are against an identical frame, which the
    exhaustive search ends at once: the count flatters mestimate a
    little."""
    frames = load_luma(args.clip, args.frames)
    n, h, w = frames.shape
    work = tempfile.mkdtemp(prefix="mvquality-speed-", dir=args.work)
    rows = []
    try:
        gray = os.path.join(work, "luma.gray")
        frames.tofile(gray)
        me_gray = os.path.join(work, "luma-mestimate.gray")
        frames[:args.mestimate_frames].tofile(me_gray)
        exe = build_mestimate(work) if args.mestimate else None
        if args.mestimate and not exe:
            print("no libavfilter/libavutil development files: mestimate "
                  "not timed", file=sys.stderr)
        for rng in [int(r) for r in args.ranges.split(",")]:
            for m in [m for m in args.methods.split(",") if m]:
                if m == "full" and rng > 128:
                    continue
                for sub in args.subpel.split(","):
                    metric = "sad" if sub == "none" else "satd"
                    for th in [int(t) for t in args.threads.split(",")]:
                        props = (f"method={m} search-range={rng} "
                                 f"partitions=16x16 subpel={sub} "
                                 f"metric={metric} threads={th}")
                        secs = min(gst_seconds(gray, w, h, props, args.build,
                                               args.backend)
                                   for _ in range(args.repeat))
                        rows.append(dict(
                            who="gpumotionest", method=m, range=rng,
                            subpel=sub, metric=metric,
                            threads=th or os.cpu_count(), searches=n - 1,
                            seconds=round(secs, 3),
                            searches_per_s=round((n - 1) / secs, 3)))
                        print(f"  gpumotionest {props}: {n - 1} searches in "
                              f"{secs:.2f} s", file=sys.stderr)
            for m in [m for m in args.mestimate.split(",") if m and exe]:
                r = subprocess.run([exe, me_gray, str(w), str(h),
                                    f"method={m}:mb_size=16:"
                                    f"search_param={rng}"],
                                   check=True, capture_output=True, text=True)
                last = r.stderr.strip().split("\n")[-1].split()
                outs, secs = int(last[1]), float(last[-2])
                rows.append(dict(who="mestimate", method=m, range=rng,
                                 subpel="none", metric="sad", threads=1,
                                 searches=2 * outs, seconds=round(secs, 3),
                                 searches_per_s=round(2 * outs / secs, 4)))
                print(f"  mestimate method={m} search_param={rng}: "
                      f"{2 * outs} searches in {secs:.2f} s", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rep = dict(clip=os.path.basename(args.clip), width=w, height=h,
               frames=n, mestimate_frames=min(n, args.mestimate_frames),
               cores=os.cpu_count(), rows=rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rep, f, indent=1)
    print(f"\n{rep['clip']}: {w}x{h}, one-reference searches per second, "
          "16x16\n")
    print("| search | range | subpel | threads | searches | s | searches/s |")
    print("|" + " --- |" * 7)
    for r in rows:
        print(f"| {r['who']} {r['method']} | {r['range']} | {r['subpel']} "
              f"{r['metric']} | {r['threads']} | {r['searches']} | "
              f"{r['seconds']:.2f} | {r['searches_per_s']:.3f} |")
    return 0


def cmd_table(args):
    """The "Fast methods" table of docs/quality.md from a `score` JSON
    file: one row per search, grouped by range, our whole-pel rows, then
    mestimate's, then our quarter-pel rows; MC-PSNR also as the difference
    from full search at the same settings (for mestimate, from our
    whole-pel full search of the same range)."""
    with open(args.json) as f:
        rep = json.load(f)
    res = {r["name"]: r for r in rep["results"]}
    rows = []
    for name, r in res.items():
        if name.startswith("mestimate "):
            _, rng, m = name.split()
            rows.append((int(rng[1:]), 1, 10 + ["esa", "ds", "hexbs", "epzs",
                                                "umh"].index(m)
                         if m in ("esa", "ds", "hexbs", "epzs", "umh")
                         else 20, f"mestimate {m} R={rng[1:]}", r))
        elif name.startswith("R") and r["grid"] == "16x16":
            cfg = parse_config(name)
            m = cfg["method"] or "full"
            sub = {"none": "whole", "half": "half", "quarter": "quarter"}[
                cfg["subpel"]]
            label = f"{m} R={cfg['range']} {sub}"
            if cfg["subpel"] != "none":
                label += f" {cfg['metric']}"
            if cfg["rate"]:
                label += f" {cfg['rate']}"
            rows.append((cfg["range"], 0 if cfg["subpel"] == "none" else 2,
                         METHODS.index(m), label, r))
    rows.sort(key=lambda x: x[:3])
    ex = any("exact_share" in r for *_, r in rows)
    head = ("| search | MC-PSNR dB | vs full dB | inside the ring dB |"
            " MVD bits/frame | rough % | differs from full % |")
    if ex:
        head += " exact % | all exact from frame | within ½ px % |"
    print(head)
    print("|" + " --- |" * (7 + 3 * ex))
    for *_, label, r in rows:
        full = r.get("full_compared")
        if r["name"].startswith("R") and parse_config(r["name"])[
                "method"] in ("", "full"):
            delta, dif = "—", "—"
        else:
            delta = (f"{r['mc_psnr'] - res[full]['mc_psnr']:+.2f}"
                     if full else "")
            dif = (f"{100 * r['differs_from_full_share']:.2f}"
                   if "differs_from_full_share" in r else "")
        ins = f"{r['mc_psnr_inside']:.2f}" if "mc_psnr_inside" in r else ""
        line = (f"| {label} | {r['mc_psnr']:.2f} | {delta} | {ins} | "
                f"{r['mvd_bits_per_frame']:.0f} | "
                f"{100 * r['smooth_rough_share']:.1f} | {dif} |")
        if ex:
            fr = r.get("exact_all_from_frame")
            line += (f" {100 * r['exact_share']:.1f} | "
                     f"{fr if fr else 'never'} |")
            line += (f" {100 * r['near_share']:.1f} |" if "near_share" in r
                     else " |")
        print(line)
    return 0


PHOTOS = ["/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg",
          "/usr/lib/python3/dist-packages/matplotlib/mpl-data/sample_data/"
          "grace_hopper.jpg"]


def cmd_pan_bench(args):
    """The quick run that meson's benchmark() starts: the panned
    photograph, gpumotionest 16x16 whole-pel and quarter-pel, x264
    medium."""
    photo = args.photo or next((p for p in PHOTOS if os.path.exists(p)), None)
    if not photo:
        print("no photograph (Debian package python3-matplotlib): skipped")
        return 0
    work = tempfile.mkdtemp(prefix="mvquality-pan-", dir=args.work)
    try:
        clip = os.path.join(work, "pan.y4m")
        cmd_make_pan(argparse.Namespace(photo=photo, out=clip,
                                        frames=args.frames,
                                        motion="1.25,-0.75", size="432x528",
                                        jitter=0, seed=1))
        return cmd_score(argparse.Namespace(
            clip=clip, frames=None, configs="R16:16x16:none:sad,"
            "R16:16x16:half:sad,R16:16x16:quarter:sad,R16:16x16:quarter:satd,"
            "R16:16x16:quarter:satd:qp23",
            x264="medium", qp=23, true_mv="-5,3", build=args.build,
            backend=args.backend, json=None, work=work, keep=False))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cmd_make_pan(args):
    """A photograph translated by a constant fractional motion per frame:
    the luma of PHOTO, mirrored at its edges, shifted by a phase ramp in the
    Fourier domain (an exact band-limited translation), rounded, cropped."""
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i",
                          args.photo, "-f", "rawvideo", "-pix_fmt", "gray",
                          "-"], check=True, capture_output=True).stdout
    pr = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "stream=width,height",
         "-of", "json", args.photo], check=True,
        capture_output=True).stdout)["streams"][0]
    img = np.frombuffer(raw, np.uint8).reshape(pr["height"], pr["width"])
    img = img.astype(np.float64)
    ph, pw = img.shape
    w, h = map(int, args.size.split("x"))
    mx, my = map(float, args.motion.split(","))
    n = args.frames
    # where the content is in each frame: a constant motion, plus with
    # --jitter a shake, x_t = 0.8 x_(t-1) + N(0, jitter^2) on each axis,
    # at arbitrary (not quarter-pel) positions
    t = np.arange(n)
    pos = np.stack([mx * t, my * t], 1)
    if args.jitter:
        rng = np.random.default_rng(args.seed)
        shake = np.zeros((n, 2))
        for k in range(1, n):
            shake[k] = 0.8 * shake[k - 1] + rng.normal(0, args.jitter, 2)
        pos += shake
    # the window: the whole clip stays inside the photograph
    x0 = int(np.ceil(pos[:, 0].max())) + 4
    y0 = int(np.ceil(pos[:, 1].max())) + 4
    if (x0 + w - pos[:, 0].min() + 4 > pw
            or y0 + h - pos[:, 1].min() + 4 > ph):
        raise SystemExit(f"{args.size} with {n} frames of this motion does "
                         f"not fit in the {pw}x{ph} photograph")
    x0 = (x0 + int(pw - w + pos[:, 0].min() - 4)) // 2
    y0 = (y0 + int(ph - h + pos[:, 1].min() - 4)) // 2
    big = np.pad(img, ((0, ph), (0, pw)), mode="symmetric")
    spec = np.fft.fft2(big)
    ky = np.fft.fftfreq(2 * ph)[:, None]
    kx = np.fft.fftfreq(2 * pw)[None, :]
    out = np.empty((n, h, w), np.uint8)
    for t in range(n):
        # frame_t(x) = photo(x - pos_t)
        ramp = np.exp(-2j * np.pi * (kx * pos[t, 0] + ky * pos[t, 1]))
        fr = np.fft.ifft2(spec * ramp).real
        out[t] = np.clip(np.rint(fr[y0:y0 + h, x0:x0 + w]), 0, 255)
    write_y4m(args.out, out)
    if args.jitter:
        step = np.abs(np.diff(pos, axis=0))
        print(f"{args.out}: {n} frames of {w}x{h}, shaken: motion between "
              f"frames {step.mean():.2f} px on average, at most "
              f"{step.max():.2f} px on one axis")
    else:
        print(f"{args.out}: {n} frames of {w}x{h}, content moving "
              f"({mx:+g}, {my:+g}) px per frame: true vector "
              f"({-4 * mx:+g}, {-4 * my:+g}) quarter pels")
    return 0


def cmd_selftest(_args):
    """The interpolation against the values of tests/check/subpel.c: 12x12
    pictures, samples at pixel (4, 4)."""
    def pic_rows(row):
        return np.tile(np.array(row, np.uint8), (12, 1))

    def sample(pic, fx, fy):
        q = quarter_planes(pic)
        fld = np.array([[[fx, fy]]])
        return int(predict(q, fld, 12, 12, 12, 12)[4, 4])

    def half(pic):
        p = halfpel_planes(pic)
        return [int(p[k, 4 + PAD, 4 + PAD]) for k in (H, V, C)]

    fails = []

    def eq(what, got, want):
        if got != want:
            fails.append(f"{what}: {got} != {want}")

    ramp = pic_rows([0, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100])
    g = np.pad(ramp.astype(np.int32), 0)
    eq("b1 ramp", int(tap6(g[4:5, 2:8], 1)[0, 0]), 1120)
    eq("b h j ramp", half(ramp), [35, 30, 35])
    for (fx, fy), want in {(1, 0): 33, (0, 2): 30, (2, 2): 35, (2, 0): 35,
                           (3, 0): 38, (0, 1): 30, (0, 3): 30, (1, 1): 33,
                           (3, 1): 38, (2, 1): 35, (3, 2): 38, (2, 3): 35,
                           (3, 3): 38}.items():
        eq(f"ramp ({fx},{fy})", sample(ramp, fx, fy), want)
    peak = pic_rows([0, 0, 0, 0, 255, 255, 0, 0, 0, 0, 0, 0])
    eq("b peak", half(peak)[0], 255)
    dip = pic_rows([0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 0, 0])
    eq("b1 dip", int(tap6(dip[4:5, 2:8].astype(np.int32), 1)[0, 0]), -2040)
    eq("b j dip", [half(dip)[0], half(dip)[2]], [0, 0])
    vert = np.array([[0 if y < 2 else 10 * (y - 1)] * 12 for y in range(12)],
                    np.uint8)
    eq("b h j vertical", half(vert), [30, 35, 35])
    for (fx, fy), want in {(1, 2): 35, (1, 3): 38, (0, 1): 33,
                           (0, 3): 38}.items():
        eq(f"vertical ({fx},{fy})", sample(vert, fx, fy), want)
    diag = np.array([[x + 10 * y for x in range(12)] for y in range(12)],
                    np.uint8)
    eq("b h j diagonal", half(diag), [45, 49, 50])
    eq("diagonal (1,1)", sample(diag, 1, 1), 47)
    eq("diagonal (3,3)", sample(diag, 3, 3), 53)
    # edges: every position far outside equals the clamped one
    rng = np.random.default_rng(1)
    pic = rng.integers(0, 256, (9, 13), dtype=np.uint8)
    q = quarter_planes(pic)
    for qx, qy in ((-83, 5), (97, -61), (-7, 70), (3, -13), (-14, 2)):
        got = predict(q, np.array([[[qx, qy]]]), 13, 9, 9, 13)
        want = naive_block(pic, qx, qy)
        if not np.array_equal(got, want):
            fails.append(f"edge vector ({qx},{qy}) differs from the naive "
                         "clamped interpolation")
    for f in fails:
        print("FAIL", f)
    print(f"selftest: {'failed' if fails else 'all values as worked by hand'}"
          f" ({len(fails)} failures)")
    return 1 if fails else 0


def naive_block(pic, qx, qy):
    """Clause 8.4.2.2.1 sample by sample with clamped coordinates, for the
    selftest: the whole picture displaced by (qx, qy) quarter pels."""
    hh, ww = pic.shape

    def G(x, y):
        return int(pic[min(max(y, 0), hh - 1), min(max(x, 0), ww - 1)])

    def t6(v):
        return v[0] - 5 * v[1] + 20 * v[2] + 20 * v[3] - 5 * v[4] + v[5]

    def clip(v):
        return min(max(v, 0), 255)

    def b(x, y):
        return clip((t6([G(x + k, y) for k in range(-2, 4)]) + 16) >> 5)

    def h(x, y):
        return clip((t6([G(x, y + k) for k in range(-2, 4)]) + 16) >> 5)

    def j(x, y):
        return clip((t6([t6([G(x + i, y + k) for i in range(-2, 4)])
                         for k in range(-2, 4)]) + 512) >> 10)

    fn = {F: G, H: b, V: h, C: j}
    out = np.empty((hh, ww), np.uint8)
    for y in range(hh):
        for x in range(ww):
            ix, iy = x + (qx >> 2), y + (qy >> 2)
            (pa, xa, ya), (pb, xb, yb) = PAIRS[(qy & 3) * 4 + (qx & 3)]
            out[y, x] = (fn[pa](ix + xa, iy + ya) + fn[pb](ix + xb, iy + yb)
                         + 1) >> 1
    return out


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("selftest", help="check the interpolation")
    p = sub.add_parser("make-pan", help="a photograph panned by a known "
                       "fractional motion, as Y4M")
    p.add_argument("photo")
    p.add_argument("out")
    p.add_argument("--frames", type=int, default=50)
    p.add_argument("--motion", default="1.25,-0.75",
                   help="content motion in pixels per frame (x, y)")
    p.add_argument("--size", default="432x528")
    p.add_argument("--jitter", type=float, default=0,
                   help="add a shake of this many pixels (standard deviation "
                   "of each step), for a synthetic handheld clip")
    p.add_argument("--seed", type=int, default=1)
    b = sub.add_parser("pan-bench", help="make the pan and score a few "
                       "configurations (the meson benchmark)")
    b.add_argument("--photo")
    b.add_argument("--frames", type=int, default=30)
    b.add_argument("--build", default=os.path.join(ROOT, "build"))
    b.add_argument("--backend", default="cpu")
    b.add_argument("--work", help="folder for temporary files")
    s = sub.add_parser("score", help="score gpumotionest and x264 fields")
    s.add_argument("clip")
    s.add_argument("--frames", type=int, help="first N frames only")
    s.add_argument("--configs", default=DEFAULT_CONFIGS,
                   help="comma-separated R<range>:<partitions>:<subpel>:"
                   "<metric>[:qp<Q>|:l<lambda>] (default: %(default)s)")
    s.add_argument("--x264", default="medium,veryslow",
                   help="x264 presets to score, comma-separated, '' for none")
    s.add_argument("--qp", type=int, default=23, help="x264's fixed QP")
    s.add_argument("--mestimate", default="",
                   help="FFmpeg mestimate methods to score, comma-separated "
                   "(esa, ds, hexbs, epzs, umh, ...; 16x16, whole pel)")
    s.add_argument("--cache", help="keep mestimate's fields in this "
                   "folder and reuse them (keyed by the frames, method and "
                   "range)")
    s.add_argument("--mestimate-ranges",
                   help="search_param values, comma-separated (default: "
                   "every range of the configurations)")
    s.add_argument("--true-mv", help="known vector QX,QY in quarter pels")
    s.add_argument("--build", default=os.path.join(ROOT, "build"))
    s.add_argument("--backend", default="cpu")
    s.add_argument("--json", help="write every number here")
    s.add_argument("--work", help="folder for temporary files")
    s.add_argument("--keep", action="store_true",
                   help="keep the temporary folder")
    t = sub.add_parser("speed", help="time gpumotionest's methods and "
                       "FFmpeg mestimate's")
    t.add_argument("clip")
    t.add_argument("--frames", type=int, default=20,
                   help="frames for gpumotionest (default: %(default)s)")
    t.add_argument("--mestimate-frames", type=int, default=4,
                   help="frames for mestimate (default: %(default)s)")
    t.add_argument("--ranges", default="16,32")
    t.add_argument("--methods", default=",".join(METHODS))
    t.add_argument("--subpel", default="none,quarter",
                   help="gpumotionest's subpel values (none with SAD, the "
                   "others with SATD)")
    t.add_argument("--threads", default="0,1",
                   help="gpumotionest's threads values (0: one per core)")
    t.add_argument("--repeat", type=int, default=2,
                   help="runs of each gpumotionest setting, the fastest "
                   "counts")
    t.add_argument("--mestimate", default="esa,ds,hexbs,epzs,umh")
    t.add_argument("--build", default=os.path.join(ROOT, "build"))
    t.add_argument("--backend", default="cpu")
    t.add_argument("--json")
    t.add_argument("--work", help="folder for temporary files")
    tb = sub.add_parser("table", help="the fast-methods table of a score "
                        "JSON file")
    tb.add_argument("json")
    args = ap.parse_args()
    return {"table": cmd_table, "selftest": cmd_selftest, "make-pan": cmd_make_pan,
            "pan-bench": cmd_pan_bench, "score": cmd_score,
            "speed": cmd_speed}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
