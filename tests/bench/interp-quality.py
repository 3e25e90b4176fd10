#!/usr/bin/env python3
"""How good are the frames mvinterpolate makes?  Rebuild the dropped half
of real camera clips and compare with what was dropped.

    interp-quality.py run   [--build BUILD] [--clips DIR] [--clip NAME ...]
                            [--method NAME ...] [--mvi SETTING ...]
                            [--json OUT] [--keep DIR]
    interp-quality.py align [--build BUILD]   (the alignment check alone)
    interp-quality.py sheet --keep DIR --json RESULTS --out PNG
                            --pick CLIP:FRAME:X:Y:W:H ... [--tile WxH]
    interp-quality.py table --json RESULTS    (the results as Markdown)
    interp-quality.py blocks --keep DIR --json RESULTS [--clip NAME ...]
                              (where the error is, by mc's block classes)
    interp-quality.py list                    (clips, methods, settings)

For every clip, at its native rate r: frames 0, 2, 4, ... go in at r/2,
each method makes the stream at r again, and every odd output frame (the
one at the time of a dropped frame) is scored against the dropped
original: PSNR of luma, PSNR of Y, U and V together (the mean squared
error over all the samples of the three planes, 4:1:1 in I420, as
FFmpeg's psnr filter weighs its "average") and SSIM of luma.  Each figure
is the mean over the rebuilt frames of the per-frame value.

SSIM: Wang et al. (2004) with an 11x11 Gaussian window (sigma 1.5),
K1 = 0.01, K2 = 0.03, L = 255, over the positions where the window lies
inside the picture, on full-resolution luma (no down-sampling).

Methods (every one reads and writes raw I420, decoded once by FFmpeg):

  mvi-full    gpumotionest method=full references=-1,+1 summary=true
              backend=cpu ! mvinterpolate backend=cpu, output caps at r
  mvi-hier    the same with method=hierarchical
  mvi-pred    the same with method=predictive
  mvi-mods    the same with method=mods
  minterp     FFmpeg minterpolate=fps=r:mi_mode=mci:mc_mode=aobmc:
              me_mode=bidir:vsbmc=1
  blend       FFmpeg minterpolate=fps=r:mi_mode=blend (the two neighbours
              averaged)
  dup         FFmpeg minterpolate=fps=r:mi_mode=dup (a neighbour repeated)

The search settings of the mvi methods are named SETTING strings,
`<subpel>-<metric>-<partition>-r<range>[-qp<Q>][-l<lambda>]`, e.g.
quarter-satd-16x16-r16 or quarter-sad-16x16-r16-qp40
(--mvi takes several; `list` shows the defaults).

Alignment: before any clip, every method runs on a synthetic pan (a
texture moving (+3, -2) px a frame at the full rate, so the dropped frame
is known exactly) and must give: every even output frame equal to its
input, the right number of frames, the dup frame equal to a neighbour,
the blend frame within 1 of the mean of the neighbours, and the motion
methods' rebuilt frame closer to the dropped frame than to either
neighbour by at least 10 dB in the interior.  A method that fails stops
the run.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (path inside the Debian package, first frame, frame count).  Counts are
# odd: the last frame is an input, so every dropped frame has two
# neighbours.
CLIPS = {
    # opencv-doc: a fixed camera over a street, people walking, 10/1
    "vtest": ("usr/share/doc/opencv-doc/examples/data/vtest.avi", 0, 101),
    # forensics-samples-files: a handheld phone, 1080p at 90000/2999
    "phone": ("usr/share/forensics-samples/original-files/movie1/"
              "VID_20191220_170832.mp4", 0, 41),
    # opencv-doc: a webcam at a window, a tree in the wind, then a hand
    # sweeping across it, 320x240.  The file says 1000000/66667 (about
    # 15/1) but holds 68 pictures in 29.6 s (about 2.3/s, 6 or 7 ticks
    # apart): the pictures are taken as they come (passthrough), so the
    # motion between two is large
    "tree": ("usr/share/doc/opencv-doc/examples/data/tree.avi", 0, 67),
}

METHODS = ("mvi-full", "mvi-hier", "mvi-pred", "mvi-mods", "minterp", "blend",
           "dup")
# the mvi methods: gpumotionest's method property
MVI_METHODS = {"mvi-full": "full", "mvi-hier": "hierarchical",
               "mvi-pred": "predictive", "mvi-mods": "mods"}
# what `run` measures unless told: mods is left out (it loses everywhere,
# docs/interpolation-quality.md); the setting is the recommended one
DEFAULT_METHODS = ("mvi-full", "mvi-hier", "mvi-pred", "minterp", "blend",
                   "dup")
MVI_DEFAULT = ("half-sad-16x16-r16-qp48",)


def die(msg):
    raise SystemExit(f"interp-quality: {msg}")


# ---------------------------------------------------------------------------
# I420 files
# ---------------------------------------------------------------------------

def frame_size(w, h):
    return w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)


def read_i420(path, w, h):
    """(Y, U, V) arrays of shape (n, h, w) and (n, h/2, w/2)."""
    a = np.fromfile(path, np.uint8)
    fs = frame_size(w, h)
    if a.size % fs:
        die(f"{path}: {a.size} bytes is no whole number of {w}x{h} I420 "
            "frames")
    a = a.reshape(-1, fs)
    cw, ch = (w + 1) // 2, (h + 1) // 2
    y = a[:, :w * h].reshape(-1, h, w)
    u = a[:, w * h:w * h + cw * ch].reshape(-1, ch, cw)
    v = a[:, w * h + cw * ch:].reshape(-1, ch, cw)
    return y, u, v


def write_i420(path, planes, idx):
    with open(path, "wb") as f:
        for i in idx:
            for p in planes:
                f.write(np.ascontiguousarray(p[i]).tobytes())


def find_clip(rel, clips):
    for root in (clips, "/"):
        if root and os.path.exists(os.path.join(root, rel)):
            return os.path.join(root, rel)
    die(f"{rel} not found under {clips} nor installed: run "
        "tests/quality/fetch-clips.sh")


def probe(path):
    s = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "stream=width,height,r_frame_rate", "-of", "json", path],
        check=True, capture_output=True).stdout)["streams"][0]
    return s["width"], s["height"], Fraction(s["r_frame_rate"])


def decode(path, start, n, out):
    """Frames start .. start+n-1 of path as I420, decoded once."""
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path,
                    "-vf", f"trim=start_frame={start}", "-fps_mode",
                    "passthrough", "-frames:v", str(n), "-pix_fmt",
                    "yuv420p", "-f", "rawvideo", out], check=True)


# ---------------------------------------------------------------------------
# Scores
# ---------------------------------------------------------------------------

def mse(a, b):
    d = a.astype(np.float64) - b.astype(np.float64)
    return float((d * d).mean())


def psnr_of(m, peak=255.0):
    return 99.0 if m == 0 else 10 * np.log10(peak * peak / m)


def _gauss_valid(a, k):
    """a filtered by the separable kernel k over the valid positions."""
    n = len(k)
    h, w = a.shape
    t = sum(k[i] * a[i:h - n + 1 + i, :] for i in range(n))
    return sum(k[i] * t[:, i:w - n + 1 + i] for i in range(n))


_G = np.exp(-0.5 * ((np.arange(11) - 5) / 1.5) ** 2)
_G /= _G.sum()


def ssim(a, b, peak=255.0):
    """Mean SSIM, 11x11 Gaussian window of sigma 1.5 (Wang et al. 2004)."""
    x = a.astype(np.float64)
    y = b.astype(np.float64)
    c1, c2 = (0.01 * peak) ** 2, (0.03 * peak) ** 2
    mx, my = _gauss_valid(x, _G), _gauss_valid(y, _G)
    sxx = _gauss_valid(x * x, _G) - mx * mx
    syy = _gauss_valid(y * y, _G) - my * my
    sxy = _gauss_valid(x * y, _G) - mx * my
    s = ((2 * mx * my + c1) * (2 * sxy + c2)) / (
        (mx * mx + my * my + c1) * (sxx + syy + c2))
    return float(s.mean())


def score_frame(ref, got):
    """(PSNR Y, PSNR YUV, SSIM Y) of one frame; ref and got are (y, u, v)."""
    my = mse(ref[0], got[0])
    n = [p.size for p in ref]
    mall = sum(mse(r, g) * k for r, g, k in zip(ref, got, n)) / sum(n)
    return psnr_of(my), psnr_of(mall), ssim(ref[0], got[0])


# ---------------------------------------------------------------------------
# Methods: EVEN (I420 at r/2) -> OUT (I420 at r)
# ---------------------------------------------------------------------------

def parse_setting(s):
    """SUBPEL-METRIC-PARTITION-rRANGE[-qpQ][-lLAMBDA] as gpumotionest's
    properties (PARTITION may join shapes with '+', as the property does)."""
    p = s.split("-")
    if len(p) < 4 or not p[3].startswith("r") or not p[3][1:].isdigit():
        die(f"setting {s!r}: expected "
            "SUBPEL-METRIC-PARTITION-rRANGE[-qpQ][-lLAMBDA]")
    props = (f"subpel={p[0]} metric={p[1]} partitions={p[2]} "
             f"search-range={p[3][1:]}")
    for extra in p[4:]:
        if extra.startswith("qp") and extra[2:].isdigit():
            props += f" qp={extra[2:]}"
        elif extra.startswith("l") and extra[1:].isdigit():
            props += f" lambda={extra[1:]}"
        else:
            die(f"setting {s!r}: {extra!r} is neither qpQ nor lLAMBDA")
    return props


def gst_env(build, work):
    env = dict(os.environ)
    env["GST_PLUGIN_PATH_1_0"] = os.path.join(build, "gst")
    env.pop("GST_PLUGIN_PATH", None)
    env["GST_REGISTRY_1_0"] = os.path.join(work, "registry.bin")
    return env


def run_mvi(even, out, w, h, rate, method, setting, build, work,
            backend="cpu"):
    half = rate / 2
    pipe = (f"filesrc location={even} ! rawvideoparse format=i420 "
            f"width={w} height={h} framerate={half.numerator}/"
            f"{half.denominator} ! gpumotionest backend={backend} "
            f"method={method} references=-1,+1 summary=true "
            f"{parse_setting(setting)} ! mvinterpolate backend={backend} ! "
            f"video/x-raw,framerate={rate.numerator}/{rate.denominator} ! "
            f"filesink location={out}")
    r = subprocess.run(["gst-launch-1.0", "-q"] + pipe.split(),
                       env=gst_env(build, work), capture_output=True,
                       text=True)
    if r.returncode:
        die(f"the pipeline failed:\n  gst-launch-1.0 {pipe}\n{r.stdout}"
            f"{r.stderr}")
    return "gst-launch-1.0 " + pipe


MINTERP_MCI = "mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1"


def run_ffmpeg(even, out, w, h, rate, mode):
    half = rate / 2
    # minterpolate stops one input short of the end (the last pair is never
    # interpolated): two clones of the last frame after the clip let it
    # make every frame up to the last input
    vf = ("tpad=stop_mode=clone:stop=2,"
          f"minterpolate=fps={rate.numerator}/{rate.denominator}:" + (
              MINTERP_MCI if mode == "mci" else f"mi_mode={mode}"))
    cmd = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "rawvideo",
           "-pix_fmt", "yuv420p", "-s", f"{w}x{h}", "-framerate",
           f"{half.numerator}/{half.denominator}", "-i", even, "-vf", vf,
           "-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-f",
           "rawvideo", out]
    subprocess.run(cmd, check=True)
    return " ".join(cmd)


def run_method(name, even, out, w, h, rate, setting, build, work):
    if name in MVI_METHODS:
        return run_mvi(even, out, w, h, rate, MVI_METHODS[name], setting,
                       build, work)
    return run_ffmpeg(even, out, w, h, rate,
                      {"minterp": "mci", "blend": "blend",
                       "dup": "dup"}[name])


def rebuilt(out, w, h, n_in, name):
    """The output's planes, checked: at least 2 n_in - 1 frames, and every
    even frame the input it lands on (byte for byte)."""
    got = read_i420(out, w, h)
    if got[0].shape[0] < 2 * n_in - 1:
        die(f"{name}: {got[0].shape[0]} frames out of {n_in}, expected at "
            f"least {2 * n_in - 1}")
    return got


def check_even(got, frames, name):
    for k in range(0, 2 * ((frames[0].shape[0] + 1) // 2) - 1, 2):
        for p, q in zip(got, frames):
            if not np.array_equal(p[k], q[k]):
                die(f"{name}: output frame {k} is not input frame {k // 2}: "
                    "the output is misaligned")


# ---------------------------------------------------------------------------
# Alignment on a synthetic pan
# ---------------------------------------------------------------------------

def pan_clip(n=9, w=320, h=240, mx=3, my=-2, seed=3):
    """n I420 frames of blurred noise moving (mx, my) whole pixels a frame
    (every frame a crop of one texture: the dropped frame is known).  The
    texture is smooth and of low contrast: a frame difference of more
    than 10 % of the range makes minterpolate's scene detection (on by
    default) call the first pair a cut and repeat a frame."""
    rng = np.random.Generator(np.random.PCG64(seed))
    big_w, big_h = w + abs(mx) * n + 8, h + abs(my) * n + 8
    a = rng.integers(0, 256, (big_h, big_w)).astype(np.float64)
    k = np.exp(-0.5 * (np.arange(-12, 13) / 4.0) ** 2)
    k /= k.sum()
    for ax in (0, 1):
        a = np.apply_along_axis(lambda v: np.convolve(v, k, "same"), ax, a)
    a = np.clip((a - a.mean()) / a.std() * 25 + 128, 0, 255).astype(np.uint8)
    x0 = max(0, mx * (n - 1)) + 4
    y0 = max(0, my * (n - 1)) + 4
    ys = np.stack([a[y0 - my * t:y0 - my * t + h, x0 - mx * t:x0 - mx * t + w]
                   for t in range(n)])
    c = np.full((n, h // 2, w // 2), 128, np.uint8)
    return ys, c, c.copy()


def check_alignment(build, work, methods, setting):
    frames = pan_clip()
    n = frames[0].shape[0]
    h, w = frames[0].shape[1:]
    rate = Fraction(10)
    even = os.path.join(work, "pan-even.yuv")
    write_i420(even, frames, range(0, n, 2))
    n_in = (n + 1) // 2
    m = 32                                        # interior margin
    inner = (slice(None), slice(m, h - m), slice(m, w - m))
    report = []
    for name in methods:
        out = os.path.join(work, f"pan-{name}.yuv")
        run_method(name, even, out, w, h, rate, setting, build, work)
        got = rebuilt(out, w, h, n_in, name)
        check_even(got, frames, name)
        worst = 99.0
        for k in range(1, n - 1, 2):
            g, a, b = got[0][k], frames[0][k - 1], frames[0][k + 1]
            if name == "dup":
                ok = np.array_equal(g, a) or np.array_equal(g, b)
                if not ok:
                    die(f"dup: frame {k} repeats neither neighbour")
                continue
            if name == "blend":
                mean = (a.astype(np.int32) + b) / 2
                if np.abs(g - mean).max() > 1:
                    die(f"blend: frame {k} is not the mean of frames {k - 1} "
                        f"and {k + 1}")
                continue
            p_mid = psnr_of(mse(g[inner[1:]], frames[0][k][inner[1:]]))
            p_nb = max(psnr_of(mse(g[inner[1:]], a[inner[1:]])),
                       psnr_of(mse(g[inner[1:]], b[inner[1:]])))
            if p_mid < p_nb + 10:
                die(f"{name}: rebuilt frame {k} is {p_mid:.1f} dB from the "
                    f"dropped frame and {p_nb:.1f} dB from a neighbour: the "
                    "output is not at the dropped frame's time")
            worst = min(worst, p_mid)
        report.append(f"{name}: aligned" + (
            f" (interior PSNR >= {worst:.1f} dB)"
            if name not in ("dup", "blend") else ""))
    return report


# ---------------------------------------------------------------------------
# The measurement
# ---------------------------------------------------------------------------

def measure(args):
    build = os.path.abspath(args.build)
    clips = args.clip or list(CLIPS)
    methods = args.method or list(DEFAULT_METHODS)
    settings = args.mvi or list(MVI_DEFAULT)
    results = {"clips": {}, "settings": settings}
    work = args.keep or tempfile.mkdtemp(prefix="interp-quality-")
    os.makedirs(work, exist_ok=True)
    try:
        if not args.no_align:
            for line in check_alignment(build, work, methods, settings[0]):
                print("alignment: " + line, file=sys.stderr)
        for clip in clips:
            rel, start, n = CLIPS[clip]
            path = find_clip(rel, args.clips)
            w, h, rate = probe(path)
            if args.frames:
                n = args.frames
            src = os.path.join(work, f"{clip}.yuv")
            decode(path, start, n, src)
            frames = read_i420(src, w, h)
            n = frames[0].shape[0] - (1 - frames[0].shape[0] % 2)
            frames = tuple(p[:n] for p in frames)
            even = os.path.join(work, f"{clip}-even.yuv")
            write_i420(even, frames, range(0, n, 2))
            n_in = (n + 1) // 2
            res = {"w": w, "h": h, "rate": str(rate), "frames": n,
                   "start": start, "rebuilt": n_in - 1, "methods": {}}
            runs = []
            for name in methods:
                for s in (settings if name.startswith("mvi") else [None]):
                    runs.append((name, s))
            for name, s in runs:
                label = name + (f"/{s}" if s else "")
                out = os.path.join(work, f"{clip}-{label.replace('/', '-')}"
                                   ".yuv")
                t0 = time.monotonic()
                cmd = run_method(name, even, out, w, h, rate, s, build, work)
                dt = time.monotonic() - t0
                got = rebuilt(out, w, h, n_in, label)
                check_even(got, frames, label)
                per = [score_frame([p[k] for p in frames],
                                   [p[k] for p in got])
                       for k in range(1, n - 1, 2)]
                a = np.array(per)
                res["methods"][label] = {
                    "psnr_y": float(a[:, 0].mean()),
                    "psnr_yuv": float(a[:, 1].mean()),
                    "ssim_y": float(a[:, 2].mean()),
                    "per_frame": [list(map(float, r)) for r in per],
                    "seconds": dt, "command": cmd.replace(work + "/", "")}
                print(f"{clip:6s} {label:36s} PSNR-Y {a[:, 0].mean():6.2f}  "
                      f"PSNR-YUV {a[:, 1].mean():6.2f}  SSIM-Y "
                      f"{a[:, 2].mean():.4f}  ({dt:.1f} s)", flush=True)
                if not args.keep:
                    os.remove(out)
            results["clips"][clip] = res
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


# ---------------------------------------------------------------------------
# Contact sheet
# ---------------------------------------------------------------------------

def sheet(args):
    """Rows of (dropped original | mvinterpolate | minterpolate | blend),
    each row a crop (--pick) of one rebuilt frame, labelled with the luma
    PSNR of the crop and of the whole frame; mvinterpolate with full
    search and the first setting of the results."""
    with open(args.json) as f:
        res = json.load(f)
    setting = res["settings"][0]
    mvi = f"mvi-full/{setting}"
    cols = [("dropped original", None), ("mvinterpolate", mvi),
            ("minterpolate", "minterp"), ("blend", "blend")]
    picks = args.pick or []
    rows = []
    for p in picks:
        clip, k, x, y, cw, ch = p.split(":")
        k, x, y, cw, ch = int(k), int(x), int(y), int(cw), int(ch)
        r = res["clips"][clip]
        w, h = r["w"], r["h"]
        src = read_i420(os.path.join(args.keep, f"{clip}.yuv"), w, h)
        tiles = []
        win = (slice(y, y + ch), slice(x, x + cw))
        for title, label in cols:
            planes = src if label is None else read_i420(
                os.path.join(args.keep, f"{clip}-{label.replace('/', '-')}"
                             ".yuv"), w, h)
            if label is None:
                text = f"{clip} frame {k}, dropped"
            else:
                m = r["methods"][label]
                py = m["per_frame"][(k - 1) // 2][0]
                pc = psnr_of(mse(planes[0][k][win], src[0][k][win]))
                text = f"{title}  {pc:.1f} / {py:.1f} dB"
            tiles.append((planes, text))
        rows.append((k, x, y, cw, ch, w, h, tiles))
    tmp = tempfile.mkdtemp(prefix="interp-sheet-")
    try:
        inputs, graph, row_names = [], [], []
        idx = 0
        font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        tw, th = (int(v) for v in args.tile.split("x"))
        for ri, (k, x, y, cw, ch, w, h, tiles) in enumerate(rows):
            names = []
            for ti, (planes, text) in enumerate(tiles):
                f = os.path.join(tmp, f"r{ri}t{ti}.yuv")
                write_i420(f, planes, [k])
                txt = os.path.join(tmp, f"r{ri}t{ti}.txt")
                with open(txt, "w") as t:
                    t.write(text)
                inputs += ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s",
                           f"{w}x{h}", "-i", f]
                graph.append(
                    f"[{idx}:v]crop={cw}:{ch}:{x}:{y},scale={tw}:{th}:"
                    "flags=neighbor,pad=iw+4:ih+22:2:20:white,"
                    f"drawtext=fontfile={font}:textfile={txt}:x=4:y=3:"
                    f"fontsize=13:fontcolor=black[r{ri}t{ti}]")
                names.append(f"[r{ri}t{ti}]")
                idx += 1
            graph.append("".join(names) + f"hstack=inputs={len(names)}"
                         f"[row{ri}]")
            row_names.append(f"[row{ri}]")
        if len(row_names) > 1:
            graph.append("".join(row_names) +
                         f"vstack=inputs={len(row_names)}[all]")
        else:
            graph.append(f"{row_names[0]}null[all]")
        graph.append("[all]split[a][b];[a]palettegen=max_colors=256[p];"
                     "[b][p]paletteuse=dither=none[out]")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + inputs +
                       ["-filter_complex", ";".join(graph), "-map", "[out]",
                        "-frames:v", "1", args.out], check=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {args.out} ({os.path.getsize(args.out) // 1024} KiB)")


def blocks(args):
    """Where the rebuilt frames lose: every 16x16 block of every rebuilt
    frame put in the class mc's interpolation rule gives it from the two
    fields' costs (docs/motion-compensation.md: both costs above 16 a
    sample: fallback to the unmoved blend; one above 4 times the other
    (floor one level a sample): occlusion, one side alone; else weighted)
    and split into moving (mean |prev - next| of the block >= 8) and the
    rest; the luma PSNR of each method in each class, and the pooled PSNR
    mvinterpolate would reach with minterpolate's error in a class."""
    with open(args.json) as f:
        res = json.load(f)
    setting = res["settings"][0]
    for clip in args.clip or list(res["clips"]):
        r = res["clips"][clip]
        w, h, rate = r["w"], r["h"], Fraction(r["rate"])
        half = rate / 2
        k_ = args.keep
        jl = os.path.join(k_, f"{clip}-fields.jsonl")
        pipe = (f"filesrc location={os.path.join(k_, clip + '-even.yuv')} ! "
                f"rawvideoparse format=i420 width={w} height={h} "
                f"framerate={half.numerator}/{half.denominator} ! "
                "gpumotionest backend=cpu method=full references=-1,+1 "
                f"summary=true {parse_setting(setting)} ! mvexport "
                f"location={jl} partitions=16x16 ! fakesink")
        subprocess.run(["gst-launch-1.0", "-q"] + pipe.split(), check=True,
                       env=gst_env(os.path.abspath(args.build), k_))
        cost = {}
        with open(jl) as f:
            for line in f:
                d = json.loads(line)
                if d["has_reference"]:
                    L = next(x for x in d["layers"] if x["shape"] == "16x16")
                    cost[(d["frame"], d["ref_distance"])] = np.array(
                        L["cost"], np.int64).reshape(L["rows"], L["cols"])
        labels = [f"mvi-full/{setting}", "minterp", "blend"]
        src = read_i420(os.path.join(k_, f"{clip}.yuv"), w, h)[0]
        outs = {lb: read_i420(os.path.join(
            k_, f"{clip}-{lb.replace('/', '-')}.yuv"), w, h)[0]
            for lb in labels}
        hb, wb = h // 16, w // 16
        trust, floor_ = 16 * 256, 256
        names = ("fallback", "occlusion", "weighted")
        sse = {lb: np.zeros((2, 3)) for lb in labels}
        cnt = np.zeros((2, 3))
        for j in range(1, r["rebuilt"] + 1):
            k = 2 * j - 1
            cp, cn = cost[(j, -1)][:hb, :wb], cost[(j - 1, 1)][:hb, :wb]
            cls = np.where((cp > trust) & (cn > trust), 0, np.where(
                (cp > 4 * np.maximum(cn, floor_))
                | (cn > 4 * np.maximum(cp, floor_)), 1, 2))
            crop = (slice(0, hb * 16), slice(0, wb * 16))
            d = np.abs(src[k - 1].astype(np.int32) - src[k + 1])[crop]
            mov = d.reshape(hb, 16, wb, 16).mean((1, 3)) >= 8
            for lb in labels:
                e = ((outs[lb][k].astype(np.int64) - src[k]) ** 2)[crop]
                e = e.reshape(hb, 16, wb, 16).sum((1, 3))
                for m in (0, 1):
                    for c in range(3):
                        sse[lb][m, c] += e[(cls == c) & (mov == bool(m))].sum()
            for m in (0, 1):
                for c in range(3):
                    cnt[m, c] += ((cls == c) & (mov == bool(m))).sum()
        print(f"{clip}: {r['rebuilt']} rebuilt frames, {setting}")
        print("| blocks | class | share | " + " | ".join(
            lb.split("/")[0] for lb in labels) + " |")
        print("| --- | --- | --- |" + " --- |" * len(labels))
        for m, mn in ((1, "moving"), (0, "still")):
            for c in range(3):
                if cnt[m, c]:
                    figs = " | ".join(
                        f"{psnr_of(sse[lb][m, c] / (cnt[m, c] * 256)):.2f}"
                        for lb in labels)
                    print(f"| {mn} | {names[c]} | "
                          f"{100 * cnt[m, c] / cnt.sum():.1f} % | {figs} |")
        a, b = sse[labels[0]], sse["minterp"]
        tot = cnt.sum() * 256
        fa = a.copy()
        fa[:, 0] = b[:, 0]
        fo = fa.copy()
        fo[:, 1] = b[:, 1]
        print(f"pooled PSNR Y: mvinterpolate {psnr_of(a.sum() / tot):.2f}, "
              f"minterpolate {psnr_of(b.sum() / tot):.2f}; mvinterpolate "
              "with minterpolate's error in the fallback blocks "
              f"{psnr_of(fa.sum() / tot):.2f}, and in the occlusion blocks "
              f"too {psnr_of(fo.sum() / tot):.2f}\n")


def table(path):
    """The results as Markdown: one row a clip and method."""
    with open(path) as f:
        res = json.load(f)
    print("| clip | frames | size | method | PSNR Y | PSNR YUV | SSIM Y |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for clip, r in res["clips"].items():
        first = f"{r['start']}..{r['start'] + r['frames'] - 1} " \
            f"({r['rebuilt']} rebuilt)"
        for label, m in r["methods"].items():
            print(f"| {clip} | {first} | {r['w']}x{r['h']} | {label} | "
                  f"{m['psnr_y']:.2f} | {m['psnr_yuv']:.2f} | "
                  f"{m['ssim_y']:.4f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("run", "align", "sheet", "table",
                                        "blocks", "list"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--clips", default=os.path.join(ROOT, "tests", "quality",
                                                    "clips"))
    ap.add_argument("--clip", action="append", choices=list(CLIPS))
    ap.add_argument("--method", action="append", choices=METHODS)
    ap.add_argument("--mvi", action="append",
                    help="mvinterpolate search setting (repeatable)")
    ap.add_argument("--frames", type=int, help="frames of each clip "
                    "(default: the clip's span above)")
    ap.add_argument("--json")
    ap.add_argument("--keep", help="keep the decoded and rebuilt files here")
    ap.add_argument("--no-align", action="store_true")
    ap.add_argument("--pick", action="append",
                    help="sheet: CLIP:FRAME:X:Y:W:H (a crop of a rebuilt "
                    "frame; repeatable)")
    ap.add_argument("--tile", default="256x192",
                    help="sheet: every crop scaled to this size (pixel "
                    "replication)")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.command == "list":
        for c, (rel, s, n) in CLIPS.items():
            print(f"clip {c}: {rel}, frames {s}..{s + n - 1}")
        print("methods: " + " ".join(METHODS))
        print("default settings: " + " ".join(MVI_DEFAULT))
        return 0
    if a.command == "align":
        with tempfile.TemporaryDirectory() as work:
            for line in check_alignment(os.path.abspath(a.build), work,
                                        a.method or list(DEFAULT_METHODS),
                                        (a.mvi or list(MVI_DEFAULT))[0]):
                print(line)
        return 0
    if a.command == "blocks":
        if not (a.keep and a.json):
            ap.error("blocks needs --keep and --json (of a run with --keep)")
        blocks(a)
        return 0
    if a.command == "table":
        if not a.json:
            ap.error("table needs --json")
        table(a.json)
        return 0
    if a.command == "sheet":
        if not (a.keep and a.json and a.out and a.pick):
            ap.error("sheet needs --keep, --json, --out and --pick")
        sheet(a)
        return 0
    measure(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
