#!/usr/bin/env python3
"""The quality suite: what the vectors are worth, held to committed figures.

    quality.py check --build BUILD [--method M ...] [--backend cpu]
               [--cases search|interpolate|denoise]
               [--clips DIR] [--cache DIR] [--baselines FILE]
    quality.py update ...       (the same arguments: rewrite the baselines
                                 of the cases run with what they give now)
    quality.py list             (the cases and their figures)
    quality.py selftest         (the scoring and the verdicts on made-up
                                 fields: that a figure can fail)

Every search method (full, mods, hierarchical, predictive) runs with whole
pixels and SAD, and with quarter-pel and SATD, over content whose answer is
known and over real camera footage:

  pan-small   a photograph moving (+2, -3) px a frame        exact, worst
  pan-large   blurred noise moving (-21, +13) px a frame at  exact, worst
              R = 32, 1280x720 (the case predictive once
              failed for its first dozens of frames)
  pan-frac    the photograph moving (+1.25, -0.75) px        exact or near,
                                                             worst
  zoom        the photograph growing 2 % a frame             within1, psnr
  rotate      the photograph turning 0.02 rad a frame        within1, psnr
  stereo      a side-by-side pair of two textured planes     exact
              at disparities 6 and 20 px (full search only:
              disparity ignores `method`)
  scene-cut   three shots spliced at frames 8 and 16         found, false
  dark-10bit  the handheld clip made a dark 10-bit scene     psnr
  vtest       the fixed-camera clip (opencv-doc)             psnr, bits
  phone       the handheld clip (forensics-samples-files)    psnr, bits

Figures, all on the 16x16 grid (docs/quality-suite.md defines each):
exact (% of interior blocks with the true vector, over the clip), worst
(the same in the clip's worst frame), near (% within half a pixel), within1
(% within one pixel of the true vector at the block's centre), psnr
(MC-PSNR in dB, H.264 interpolation), bits (MVD bits a block, se(v) of the
median-predicted difference), found and false (scene cuts flagged on the
right frames, and elsewhere).

`--cases interpolate` runs the interpolation cases instead (full and
hierarchical with whole and quarter pel, predictive with half pel and
qp=48): the real clips at half their rate (frames 0, 2, 4,
... in), `gpumotionest references=-1,+1 summary=true ! mvinterpolate` back
to the full rate, and the rebuilt frames scored against the dropped ones:

  interp-vtest  frames 60..74 of vtest.avi                ipsnr
  interp-phone  frames 0..10 of the handheld clip (720p)  ipsnr
  interp-tree   pictures 0..16 of tree.avi (a webcam at   ipsnr
                about 2.3 pictures a second: large motion)

ipsnr: the luma PSNR of each rebuilt frame against the dropped original,
the mean over the frames (tests/bench/interp-quality.py's PSNR Y).

`--cases denoise` runs the denoising cases: the luma of a real clip with
Gaussian noise of sigma 10 added (8-bit levels, rounded and clipped, a
fixed seed), through `gpumotionest references=-2,-1,+1,+2 summary=true
method=predictive subpel=quarter ! mvdenoise radius=2`
with the true sigma (sigma10) and with its own estimate (auto):

  denoise-vtest  frames 60..75 of vtest.avi (768x576)      dpsnr
  denoise-tree   pictures 0..16 of tree.avi (320x240)      dpsnr

dpsnr: the luma PSNR of each output frame against the clean one, the mean
over the frames (tests/bench/denoise-quality.py's PSNR Y).  A case also
fails when its output is not at least 2 dB closer to the clean clip than
the noisy input was, or has not one frame out for each frame in.

The baselines file holds one line a figure: the case, the figure, the
baseline and its tolerance.  `check` fails when a figure is worse than its
baseline by more than the tolerance, and also when it is better by more:
a figure that moved must have its new value committed with the change that
moved it (`update`), so that the next drop is measured from there.  Every
figure is deterministic for a given tree (integer search, CPU and CUDA
bit-identical), so the tolerances only absorb what an FFmpeg or numpy
upgrade may change in the decoded clips and the arithmetic of the scores.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
import mvquality as mq  # noqa: E402

METHODS = ("full", "mods", "hierarchical", "predictive")
SUBPELS = {"whole": "subpel=none metric=sad",
           "quarter": "subpel=quarter metric=satd"}

# figure -> (which way is better, default tolerance, unit)
FIGURES = {
    "exact": ("higher", 0.5, "%"),
    "worst": ("higher", 1.0, "%"),
    "near": ("higher", 0.5, "%"),
    "within1": ("higher", 0.5, "%"),
    "psnr": ("higher", 0.03, "dB"),
    "bits": ("lower", 0.03, "bits/block"),
    "found": ("higher", 0, "cuts"),
    "false": ("lower", 0, "cuts"),
    "ipsnr": ("higher", 0.03, "dB"),
    "dpsnr": ("higher", 0.03, "dB"),
}

# The interpolation cases: the search settings of tests/bench/
# interp-quality.py's best on the real clips (SAD costs: mvinterpolate
# reads the search's costs as SADs, docs/interpolation-quality.md).
INTERP_METHODS = ("full", "hierarchical", "predictive")
INTERP_SETTINGS = {"whole": "subpel=none metric=sad",
                   "quarter-sad": "subpel=quarter metric=sad",
                   "half-qp48": "subpel=half metric=sad qp=48"}
# the settings each method runs: full and hierarchical as before, and
# predictive with the recommended setting in front of mvinterpolate
# (half pel, the rate term at qp 48: docs/interpolation-quality.md)
INTERP_PLAN = {"full": ("whole", "quarter-sad"),
               "hierarchical": ("whole", "quarter-sad"),
               "predictive": ("half-qp48",)}

# The denoising cases: one search (the fast CPU method at quarter pel on
# 16x16 blocks, the settings docs/denoise.md recommends: on the real clips
# at sigma 10 they beat half pel with 8x8 blocks by 0.6 to 1.7 dB), mvdenoise
# radius 2 (its spatial pass at the default strength) with the true sigma
# and with its own estimate.
DENOISE_METHODS = ("predictive",)
DENOISE_SEARCH = "subpel=quarter"
DENOISE_SIGMA = 10
DENOISE_SETTINGS = {"sigma10": f"sigma={DENOISE_SIGMA}", "auto": "sigma=-1"}
# the least a case's output must gain over its noisy input, in dB
DENOISE_MIN_GAIN = 2.0

PHOTO_PATHS = (
    "/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg",
    "/usr/lib/python3/dist-packages/matplotlib/mpl-data/sample_data/"
    "grace_hopper.jpg")
VTEST = "usr/share/doc/opencv-doc/examples/data/vtest.avi"
PHONE = ("usr/share/forensics-samples/original-files/movie1/"
         "VID_20191220_170832.mp4")
TREE = "usr/share/doc/opencv-doc/examples/data/tree.avi"


# ---------------------------------------------------------------------------
# Inputs.  Decoded ones (the photograph, the two clips) are cached as raw
# luma in --cache, so that a machine without FFmpeg runs the suite from a
# cache made elsewhere; the synthetic ones are made here each time.
# ---------------------------------------------------------------------------

class Inputs:
    def __init__(self, clips, cache):
        self.clips, self.cache = clips, cache
        self.memo = {}

    def _find(self, rel):
        for root in (self.clips, "/"):
            if root and os.path.exists(os.path.join(root, rel)):
                return os.path.join(root, rel)
        raise SystemExit(
            f"quality: {rel} not found under {self.clips or '(no --clips)'} "
            "nor installed: run tests/quality/fetch-clips.sh (the "
            "README's .ci/setup.sh does)")

    def _decoded(self, name, make):
        """Luma frames cached as NAME.raw with NAME.json (shape)."""
        if name in self.memo:
            return self.memo[name]
        raw = os.path.join(self.cache, name + ".raw")
        meta = os.path.join(self.cache, name + ".json")
        if os.path.exists(raw) and os.path.exists(meta):
            with open(meta) as f:
                shape = json.load(f)["shape"]
            a = np.fromfile(raw, np.uint8).reshape(shape)
        else:
            a = np.ascontiguousarray(make())
            os.makedirs(self.cache, exist_ok=True)
            a.tofile(raw + ".tmp")
            with open(meta, "w") as f:
                json.dump({"shape": list(a.shape)}, f)
            os.replace(raw + ".tmp", raw)
        self.memo[name] = a
        return a

    def photo(self):
        def make():
            for p in PHOTO_PATHS:
                if os.path.exists(p):
                    raw = subprocess.run(
                        ["ffmpeg", "-nostdin", "-v", "error", "-i", p, "-f",
                         "rawvideo", "-pix_fmt", "gray", "-"], check=True,
                        capture_output=True).stdout
                    return np.frombuffer(raw, np.uint8).reshape(600, 512)
            raise SystemExit("quality: grace_hopper.jpg (python3-matplotlib) "
                             "not found")
        return self._decoded("photo", make)

    def noise(self):
        # the texture of the report that predictive failed on: FFmpeg's
        # uniform noise on grey, blurred (sigma 1.5)
        def make():
            raw = subprocess.run(
                ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                 "color=gray:s=2000x1200,noise=alls=60:allf=0,"
                 "gblur=sigma=1.5,format=gray", "-frames:v", "1", "-f",
                 "rawvideo", "-"], check=True, capture_output=True).stdout
            return np.frombuffer(raw, np.uint8).reshape(1200, 2000)
        return self._decoded("noise", make)

    def vtest(self):
        # frames 60..75: people walking through a fixed view
        return self._decoded("vtest-60-16", lambda: mq.load_luma(
            self._find(VTEST), 76)[60:76])

    def phone(self):
        # the first 12 frames, their central 1280x720: a handheld camera
        def make():
            a = mq.load_luma(self._find(PHONE), 12)
            h, w = a.shape[1:]
            y, x = (h - 720) // 2, (w - 1280) // 2
            return a[:, y:y + 720, x:x + 1280]
        return self._decoded("phone-0-12", make)

    def tree(self):
        # the first 17 pictures of tree.avi, as they come (the file repeats
        # each about six times at its nominal 15/1; load_luma passes them
        # through once each)
        return self._decoded("tree-0-17", lambda: mq.load_luma(
            self._find(TREE), 17))


def noise_texture(h, w, seed):
    """Uniform noise blurred by a Gaussian of sigma 1.5 and stretched back
    to 0..255: fine random texture, as FFmpeg's noise and gblur make it."""
    rng = np.random.Generator(np.random.PCG64(seed))
    a = rng.integers(0, 256, size=(h, w), dtype=np.uint8).astype(np.float64)
    k = np.exp(-0.5 * (np.arange(-5, 6) / 1.5) ** 2)
    k /= k.sum()
    for axis in (0, 1):
        a = np.apply_along_axis(lambda v: np.convolve(v, k, "same"), axis, a)
    a = (a - a.mean()) / a.std() * 40 + 128
    return np.clip(np.rint(a), 0, 255).astype(np.uint8)


def pan_frames(img, n, w, h, mx, my):
    """n frames of a w x h window over img, the content moving (mx, my)
    pixels a frame; whole-pixel motion is a crop, fractional motion a
    band-limited shift (as mvquality.py make-pan)."""
    if mx == int(mx) and my == int(my):
        mx, my = int(mx), int(my)
        x0 = max(0, mx * (n - 1)) + (img.shape[1] - w - abs(mx) * (n - 1)) // 2
        y0 = max(0, my * (n - 1)) + (img.shape[0] - h - abs(my) * (n - 1)) // 2
        assert x0 >= 0 and y0 >= 0
        return np.stack([img[y0 - my * t:y0 - my * t + h,
                             x0 - mx * t:x0 - mx * t + w] for t in range(n)])
    ph, pw = img.shape
    big = np.pad(img.astype(np.float64), ((0, ph), (0, pw)), mode="symmetric")
    spec = np.fft.fft2(big)
    ky = np.fft.fftfreq(2 * ph)[:, None]
    kx = np.fft.fftfreq(2 * pw)[None, :]
    x0, y0 = (pw - w) // 2, (ph - h) // 2
    out = np.empty((n, h, w), np.uint8)
    for t in range(n):
        ramp = np.exp(-2j * np.pi * (kx * mx * t + ky * my * t))
        fr = np.fft.ifft2(spec * ramp).real
        out[t] = np.clip(np.rint(fr[y0:y0 + h, x0:x0 + w]), 0, 255)
    return out


def warp_frames(img, n, w, h, zoom, rot):
    """The photograph scaled by (1 + zoom)^t and turned by rot * t radians
    about the frame centre (the geometry of tests/bench/zoom-clip.py), and
    the true vector of every 16x16 block's centre, in quarter pels."""
    ph, pw = img.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    dx, dy = xs + 0.5 - w / 2, ys + 0.5 - h / 2
    src = img.astype(np.float64)
    out = np.empty((n, h, w), np.uint8)
    for t in range(n):
        s, c, sn = (1 + zoom) ** t, np.cos(-rot * t), np.sin(-rot * t)
        qx = np.clip((c * dx - sn * dy) / s + pw / 2 - 0.5, 0, pw - 1.000001)
        qy = np.clip((sn * dx + c * dy) / s + ph / 2 - 0.5, 0, ph - 1.000001)
        x0, y0 = np.floor(qx).astype(int), np.floor(qy).astype(int)
        fx, fy = qx - x0, qy - y0
        top = src[y0, x0] * (1 - fx) + src[y0, x0 + 1] * fx
        bot = src[y0 + 1, x0] * (1 - fx) + src[y0 + 1, x0 + 1] * fx
        out[t] = np.clip(np.rint(top * (1 - fy) + bot * fy), 0, 255)
    # frame t at p shows what frame t-1 shows at c + R(-rot) (p - c) / s
    r, cc = np.indices((h // 16, w // 16))
    bx, by = 16 * cc + 8 - w / 2, 16 * r + 8 - h / 2
    c, sn, s = np.cos(-rot), np.sin(-rot), 1 + zoom
    tx = (c * bx - sn * by) / s - bx
    ty = (sn * bx + c * by) / s - by
    return out, np.stack([4 * tx, 4 * ty], -1)


def stereo_pair(w, h):
    """A side-by-side frame (first view left) of two textured planes: the
    background at disparity 6 px and a rectangle in front at 20 px.  The
    second view at x shows what the first shows at x + d.  Returns the
    frame and, per 16x16 block of the second view, the true disparity in
    quarter pels (0 where the block straddles the rectangle's edge or its
    content leaves the first view: no exact answer there)."""
    d_bg, d_fg = 6, 20
    bg = noise_texture(h, w + 64, 11)
    fg = noise_texture(h, w + 64, 12)
    x0, x1, y0, y1 = w // 4, 3 * w // 4, h // 4, 3 * h // 4
    xs = np.arange(w)
    v0 = bg[:, :w].copy()
    v0[y0:y1, x0:x1] = fg[y0:y1, x0:x1]
    v1 = bg[:, d_bg:d_bg + w].copy()
    in_fg = (xs + d_fg >= x0) & (xs + d_fg < x1)
    v1[y0:y1][:, in_fg] = fg[y0:y1, xs[in_fg] + d_fg]
    truth = np.zeros((h // 16, w // 16), np.int32)
    for r in range(h // 16):
        for c in range(w // 16):
            bx = np.arange(16 * c, 16 * c + 16)
            rows = slice(16 * r, 16 * r + 16)
            inside_y = 16 * r >= y0 and 16 * r + 16 <= y1
            outside_y = 16 * r + 16 <= y0 or 16 * r >= y1
            fg_x = (bx + d_fg >= x0) & (bx + d_fg < x1)
            if inside_y and fg_x.all():
                d = d_fg
            elif outside_y or not fg_x.any():
                d = d_bg
                # background seen in the second view but hidden in the
                # first behind the rectangle: occluded, no answer
                if not outside_y and ((bx + d >= x0) & (bx + d < x1)).any():
                    continue
            else:
                continue
            if 16 * c + 15 + d + 4 < w and rows.start > 0:
                truth[r, c] = 4 * d
    return np.concatenate([v0, v1], 1), truth


def dark_10bit(luma):
    """The handheld clip as an underexposed 10-bit scene (the method of
    tests/bench/deep-quality.py: 2x2 sums in the lowest quarter)."""
    s = luma.astype(np.int32)
    s4 = s[:, 0::2, 0::2] + s[:, 1::2, 0::2] + s[:, 0::2, 1::2] \
        + s[:, 1::2, 1::2]
    return (64 + s4 // 4).astype(np.uint16)


# ---------------------------------------------------------------------------
# Running the element
# ---------------------------------------------------------------------------

def run_element(frames, props, work, build, backend, caps="", bits=8,
                summary=False):
    """gpumotionest over the frames (GRAY8, or I420_10LE with neutral
    chroma for 10 bits); the lines of its mvexport JSON."""
    n, h, w = frames.shape
    raw = os.path.join(work, "in.raw")
    out = os.path.join(work, "out.jsonl")
    if bits == 8:
        frames.astype(np.uint8).tofile(raw)
        parse = (f"rawvideoparse format=gray8 width={w} height={h} "
                 f"framerate=25/1 frame-size={w * h} plane-strides=<{w}>")
    else:
        chroma = np.full(2 * (h // 2) * (w // 2), 512, "<u2")
        with open(raw, "wb") as f:
            for fr in frames:
                f.write(fr.astype("<u2").tobytes())
                f.write(chroma.tobytes())
        parse = (f"rawvideoparse format=i420-10le width={w} height={h} "
                 "framerate=25/1")
    env = mq.gst_env(build, work)
    pipe = (f"filesrc location={raw} ! {parse} {caps} ! gpumotionest "
            f"backend={backend} partitions=16x16 {props} ! mvexport "
            f"location={out} partitions=16x16"
            f"{' summary=true' if summary else ''} ! fakesink")
    r = subprocess.run(["gst-launch-1.0", "-q"] + pipe.split(),
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"quality: the pipeline failed:\n  {pipe}\n"
                         f"{r.stdout}{r.stderr}")
    with open(out) as f:
        return [json.loads(line) for line in f]


def run_interpolate(frames, props, work, build, backend):
    """Frames 0, 2, 4, ... (GRAY8 at 5/1) through gpumotionest
    references=-1,+1 summary=true and mvinterpolate back to 10/1; the
    output frames, checked to land where they must: at least 2 m - 1
    frames from m, every even one its input byte for byte."""
    n, h, w = frames.shape
    even = np.ascontiguousarray(frames[0::2])
    raw = os.path.join(work, "interp-in.raw")
    out = os.path.join(work, "interp-out.raw")
    even.tofile(raw)
    pipe = (f"filesrc location={raw} ! rawvideoparse format=gray8 "
            f"width={w} height={h} framerate=5/1 frame-size={w * h} "
            f"plane-strides=<{w}> ! gpumotionest backend={backend} "
            f"references=-1,+1 summary=true partitions=16x16 {props} ! "
            f"mvinterpolate backend={backend} ! video/x-raw,framerate=10/1 ! "
            f"filesink location={out}")
    r = subprocess.run(["gst-launch-1.0", "-q"] + pipe.split(),
                       env=mq.gst_env(build, work), capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"quality: the pipeline failed:\n  {pipe}\n"
                         f"{r.stdout}{r.stderr}")
    got = np.fromfile(out, np.uint8)
    if got.size % (w * h) or got.size // (w * h) < 2 * len(even) - 1:
        raise SystemExit(f"quality: mvinterpolate gave {got.size} bytes "
                         f"from {len(even)} {w}x{h} frames, expected at "
                         f"least {2 * len(even) - 1} frames")
    got = got.reshape(-1, h, w)
    for k in range(len(even)):
        if not np.array_equal(got[2 * k], even[k]):
            raise SystemExit(f"quality: output frame {2 * k} is not input "
                             f"frame {k}: the output is misaligned")
    return got


def add_noise(frames, sigma, seed):
    """frames plus white Gaussian noise of sigma levels, rounded and
    clipped to 0..255 (numpy's PCG64 from seed)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    n = rng.standard_normal(frames.shape) * sigma
    return np.clip(np.rint(frames + n), 0, 255).astype(np.uint8)


def run_denoise(frames, props, work, build, backend):
    """GRAY8 frames through gpumotionest references=-2,-1,+1,+2
    summary=true ! mvdenoise radius=2 PROPS (props: the search's, then
    '!', then mvdenoise's); the output frames, one for each input."""
    n, h, w = frames.shape
    search, dn = props.split("!")
    raw = os.path.join(work, "denoise-in.raw")
    out = os.path.join(work, "denoise-out.raw")
    np.ascontiguousarray(frames).tofile(raw)
    pipe = (f"filesrc location={raw} ! rawvideoparse format=gray8 "
            f"width={w} height={h} framerate=25/1 frame-size={w * h} "
            f"plane-strides=<{w}> ! gpumotionest backend={backend} "
            f"references=-2,-1,+1,+2 summary=true {search} ! "
            f"mvdenoise backend={backend} radius=2 {dn} ! "
            f"filesink location={out}")
    r = subprocess.run(["gst-launch-1.0", "-q"] + pipe.split(),
                       env=mq.gst_env(build, work), capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"quality: the pipeline failed:\n  {pipe}\n"
                         f"{r.stdout}{r.stderr}")
    got = np.fromfile(out, np.uint8)
    if got.size != frames.size:
        raise SystemExit(f"quality: mvdenoise gave {got.size} bytes from "
                         f"{n} {w}x{h} frames ({frames.size} bytes): a "
                         "frame lost or added")
    return got.reshape(frames.shape)


def mean_psnr(clean, got):
    """The mean over the frames of the luma PSNR of got against clean."""
    out = []
    for a, b in zip(clean, got):
        d = b.astype(np.float64) - a
        m = float((d * d).mean())
        out.append(99.0 if m == 0 else 10 * np.log10(255.0 ** 2 / m))
    return float(np.mean(out))


def denoise_verdict(clean, noisy, got, min_gain=DENOISE_MIN_GAIN):
    """(dpsnr, '' or why the output is refused): it must be min_gain dB
    closer to the clean frames than the noisy input."""
    p_in, p_out = mean_psnr(clean, noisy), mean_psnr(clean, got)
    if p_out < p_in + min_gain:
        return p_out, (f"the output is {p_out:.2f} dB from the clean clip "
                       f"and the noisy input {p_in:.2f} dB: less than "
                       f"{min_gain} dB gained")
    return p_out, ""


def rebuilt_psnr(frames, got):
    """The mean over the dropped frames (1, 3, ...) of the luma PSNR of
    the frame rebuilt at its time."""
    out = []
    for k in range(1, frames.shape[0] - 1, 2):
        d = got[k].astype(np.float64) - frames[k]
        m = float((d * d).mean())
        out.append(99.0 if m == 0 else 10 * np.log10(255.0 ** 2 / m))
    return float(np.mean(out))


def fields_of(lines, n, view=0, inter_view=False):
    """Per frame, the 16x16 vectors (rows x cols x 2, quarter pels) of the
    field of that view (the disparity field with inter_view), None for a
    frame without a reference."""
    out = [None] * n
    for d in lines:
        if (d.get("view", 0) != view or d.get("inter_view", False)
                != inter_view or not d["has_reference"]):
            continue
        L = next(x for x in d["layers"] if x["shape"] == "16x16")
        out[d["frame"]] = np.array(L["mv"], np.int32).reshape(
            L["rows"], L["cols"], 2)
    return out


def mc_psnr_bits(frames, fields, maxv=255):
    """MC-PSNR over every scored frame and the MVD bits a block."""
    n, h, w = frames.shape
    se = count = bits = blocks = 0
    for k in range(1, n):
        f = fields[k]
        if f is None:
            continue
        q = mq.quarter_planes(frames[k - 1], maxv)
        pred = mq.predict(q, f, 16, 16, h, w)
        d = pred.astype(np.int64) - frames[k].astype(np.int64)
        se += int((d * d).sum())
        count += d.size
        mvd = f - mq.mv_pred(f.astype(np.int16), 16)
        bits += int(mq.se_bits(mvd).sum())
        blocks += f.shape[0] * f.shape[1]
    if not count:
        raise SystemExit("quality: no field with a reference")
    mse = se / count
    return (99.0 if mse == 0 else 10 * np.log10(maxv ** 2 / mse),
            bits / blocks)


def shares(fields, h, w, true_mv, tol):
    """The share (%) of interior blocks whose vector is within tol quarter
    pels of the true one, over the clip and in its worst frame."""
    inner = mq.interior_mask((h, w), true_mv)
    hit = total = 0
    worst = 100.0
    for f in fields[1:]:
        if f is None:
            continue
        ok = (np.abs(f[:inner.shape[0], :inner.shape[1]][inner]
                     - np.array(true_mv)) <= tol).all(-1)
        hit += int(ok.sum())
        total += ok.size
        worst = min(worst, 100.0 * ok.sum() / ok.size)
    return 100.0 * hit / total, worst


# ---------------------------------------------------------------------------
# The cases: content x method x sub-pel setting -> figures
# ---------------------------------------------------------------------------

def case_pan(inp, kind, props, ctx):
    if kind == "pan-large":
        img, (mx, my), w, h, n, R = (inp.noise(), (-21, 13),
                                     1280, 720, 12, 32)
    else:
        img, w, h, n, R = inp.photo(), 384, 288, 8, 16
        mx, my = (2, -3) if kind == "pan-small" else (1.25, -0.75)
    frames = pan_frames(img, n, w, h, mx, my)
    lines = run_element(frames, f"search-range={R} {props}", **ctx)
    fields = fields_of(lines, n)
    true_mv = (int(round(-4 * mx)), int(round(-4 * my)))
    if kind == "pan-frac" and "subpel=none" in props:
        near, worst = shares(fields, h, w, true_mv, 2)
        return {"near": near, "worst": worst}
    exact, worst = shares(fields, h, w, true_mv, 0)
    return {"exact": exact, "worst": worst}


def case_warp(inp, kind, props, ctx):
    zoom, rot = (0.02, 0.0) if kind == "zoom" else (0.0, 0.02)
    w = h = 384
    frames, truth = warp_frames(inp.photo(), 8, w, h, zoom, rot)
    fields = fields_of(run_element(frames, f"search-range=16 {props}", **ctx),
                       len(frames))
    rows, cols = truth.shape[:2]
    hit = total = 0
    for f in fields[1:]:
        ok = (np.abs(f - truth)[1:rows - 1, 1:cols - 1] <= 4).all(-1)
        hit += int(ok.sum())
        total += ok.size
    psnr, _ = mc_psnr_bits(frames, fields)
    return {"within1": 100.0 * hit / total, "psnr": psnr}


def case_stereo(inp, kind, props, ctx):
    frame, truth = stereo_pair(384, 288)
    frames = np.stack([frame] * 2)
    lines = run_element(frames, f"disparity-range=0,32 {props}",
                        caps="! capsfilter caps=video/x-raw,"
                        "multiview-mode=side-by-side", **ctx)
    disp = [d for d in lines if d.get("inter_view")]
    if len(disp) != 2:
        raise SystemExit(f"quality: stereo: {len(disp)} disparity fields, "
                         "expected 2")
    hit = total = 0
    for d in disp:
        L = next(x for x in d["layers"] if x["shape"] == "16x16")
        mv = np.array(L["mv"], np.int32).reshape(L["rows"], L["cols"], 2)
        known = truth > 0
        ok = (mv[..., 0] == truth) & (mv[..., 1] == 0)
        hit += int(ok[known].sum())
        total += int(known.sum())
    return {"exact": 100.0 * hit / total}


def case_scene(inp, kind, props, ctx):
    w, h = 384, 288
    a = pan_frames(inp.photo(), 8, w, h, 2, 1)
    b = pan_frames(noise_texture(400, 600, 5), 8, w, h, -3, 2)
    v = inp.vtest()
    c = v[:, 100:100 + h, 200:200 + w]
    frames = np.concatenate([a, b, c])
    cuts = {len(a), len(a) + len(b)}
    lines = run_element(frames, f"search-range=16 summary=true {props}",
                        summary=True, **ctx)
    flagged = {d["frame"] for d in lines
               if d.get("summary", {}).get("scene_cut")}
    return {"found": len(flagged & cuts), "false": len(flagged - cuts)}


def case_dark(inp, kind, props, ctx):
    y10 = dark_10bit(inp.phone())
    fields = fields_of(run_element(y10, f"search-range=16 {props}", bits=10,
                                   **ctx), len(y10))
    psnr, _ = mc_psnr_bits(y10, fields, 1023)
    return {"psnr": psnr}


def case_real(inp, kind, props, ctx):
    frames = inp.vtest() if kind == "vtest" else inp.phone()
    fields = fields_of(run_element(frames, f"search-range=16 {props}", **ctx),
                       len(frames))
    psnr, bits = mc_psnr_bits(frames, fields)
    return {"psnr": psnr, "bits": bits}


def case_interp(inp, kind, props, ctx):
    frames = {"interp-vtest": lambda: inp.vtest()[:15],
              "interp-phone": lambda: inp.phone()[:11],
              "interp-tree": inp.tree}[kind]()
    got = run_interpolate(frames, f"search-range=16 {props}", **ctx)
    return {"ipsnr": rebuilt_psnr(frames, got)}


def case_denoise(inp, kind, props, ctx):
    clean = {"denoise-vtest": inp.vtest, "denoise-tree": inp.tree}[kind]()
    noisy = add_noise(clean, DENOISE_SIGMA,
                      seed={"denoise-vtest": 1, "denoise-tree": 2}[kind])
    got = run_denoise(noisy, props, **ctx)
    p, why = denoise_verdict(clean, noisy, got)
    if why:
        raise SystemExit(f"quality: {kind}: {why}")
    return {"dpsnr": p}


DENOISE_CONTENTS = {
    "denoise-vtest": case_denoise,
    "denoise-tree": case_denoise,
}


INTERP_CONTENTS = {
    "interp-vtest": case_interp,
    "interp-phone": case_interp,
    "interp-tree": case_interp,
}


CONTENTS = {
    "pan-small": case_pan,
    "pan-large": case_pan,
    "pan-frac": case_pan,
    "zoom": case_warp,
    "rotate": case_warp,
    "stereo": case_stereo,
    "scene-cut": case_scene,
    "dark-10bit": case_dark,
    "vtest": case_real,
    "phone": case_real,
}


def interp_cases(methods):
    for content in INTERP_CONTENTS:
        for method in methods:
            if method not in INTERP_METHODS:
                continue
            for setting in INTERP_PLAN[method]:
                yield content, method, setting


def denoise_cases(methods):
    for content in DENOISE_CONTENTS:
        for method in methods:
            if method not in DENOISE_METHODS:
                continue
            for setting in DENOISE_SETTINGS:
                yield content, method, setting


def cases(methods):
    for content in CONTENTS:
        for method in methods:
            if content == "stereo" and method != "full":
                continue
            for subpel in SUBPELS:
                yield content, method, subpel


# ---------------------------------------------------------------------------
# Baselines
# ---------------------------------------------------------------------------

ORDER = list(CONTENTS) + list(INTERP_CONTENTS) + list(DENOISE_CONTENTS)


def read_baselines(path):
    base = {}
    if not os.path.exists(path):
        return base
    with open(path) as f:
        for no, line in enumerate(f, 1):
            s = line.split("#", 1)[0].split()
            if not s:
                continue
            if len(s) != 4 or s[1] not in FIGURES:
                raise SystemExit(f"{path}:{no}: expected 'CASE FIGURE "
                                 f"BASELINE TOLERANCE', got {line.strip()!r}")
            base[(s[0], s[1])] = (float(s[2]), float(s[3]))
    return base


def write_baselines(path, base):
    with open(path) as f:
        head = []
        for line in f:
            if line.startswith("#") or not line.strip():
                head.append(line)
            else:
                break
    with open(path, "w") as f:
        f.writelines(head)
        for (case, fig), (value, tol) in sorted(base.items(), key=lambda kv: (
                ORDER.index(kv[0][0].split("/")[0]), kv[0])):
            f.write(f"{case:32s} {fig:8s} {fmt(fig, value):>9s} "
                    f"{fmt(fig, tol):>6s}\n")


def fmt(fig, v):
    return f"{v:.0f}" if fig in ("found", "false") else (
        f"{v:.3f}" if fig in ("psnr", "bits", "ipsnr", "dpsnr")
        else f"{v:.2f}")


def judge(fig, base, tol, now):
    """'' when within the tolerance, else 'dropped' or 'rose'."""
    better = FIGURES[fig][0]
    delta = now - base if better == "higher" else base - now
    eps = 1e-9
    if delta < -tol - eps:
        return "dropped"
    if delta > tol + eps:
        return "improved"
    return ""


def selftest():
    """The scores and verdicts on fields made here: the true field scores
    100 %, a field off by one quarter pel or the zero field scores what it
    must, and every kind of move past a tolerance is caught."""
    h, w, n = 96, 128, 3
    true_mv = (8, -4)
    good = [None] + [np.tile(np.array(true_mv, np.int32), (h // 16, w // 16,
                                                          1))] * (n - 1)
    off = [None, good[1], good[2] + np.array([1, 0])]
    zero = [None] + [np.zeros_like(good[1])] * (n - 1)
    checks = [
        (shares(good, h, w, true_mv, 0), (100.0, 100.0)),
        (shares(off, h, w, true_mv, 0), (50.0, 0.0)),
        (shares(off, h, w, true_mv, 2), (100.0, 100.0)),
        (shares(zero, h, w, true_mv, 2), (0.0, 0.0)),
        (judge("exact", 100.0, 0.5, 99.4), "dropped"),
        (judge("exact", 100.0, 0.5, 99.5), ""),
        (judge("exact", 90.0, 0.5, 91.0), "improved"),
        (judge("bits", 3.0, 0.03, 3.1), "dropped"),
        (judge("bits", 3.0, 0.03, 2.9), "improved"),
        (judge("false", 0, 0, 1), "dropped"),
        (judge("found", 2, 0, 1), "dropped"),
    ]
    # a picture predicted by its true motion scores far above the zero field
    rng = np.random.Generator(np.random.PCG64(1))
    img = rng.integers(0, 256, (h + 16, w + 16), dtype=np.uint8)
    frames = np.stack([img[8 + 1 * t:8 + 1 * t + h, 8 - 2 * t:8 - 2 * t + w]
                       for t in range(n)])
    # content moving (+2, -1) px: the true vector (-8, +4) quarter pels
    truth = [None] + [np.tile(np.array([-8, 4], np.int32),
                              (h // 16, w // 16, 1))] * (n - 1)
    p_true, b_true = mc_psnr_bits(frames, truth)
    p_zero, b_zero = mc_psnr_bits(frames, zero)
    checks += [((p_true > p_zero + 15, p_zero < 15), (True, True)),
               ((round(b_zero, 3), b_true > b_zero), (2.0, True))]
    # the rebuilt-frame PSNR: exact frames score 99, odd frames off by one
    # level everywhere 10 log10(255^2) = 48.131 dB, and only the odd
    # frames count
    clip = rng.integers(0, 255, (5, 16, 16), dtype=np.uint8)
    one = clip.copy()
    one[1::2] += 1
    evens_wrong = clip.copy()
    evens_wrong[0::2] ^= 0xff
    checks += [(rebuilt_psnr(clip, clip), 99.0),
               (round(rebuilt_psnr(clip, one), 3), 48.131),
               (rebuilt_psnr(clip, evens_wrong), 99.0),
               (judge("ipsnr", 33.0, 0.03, 32.96), "dropped"),
               (judge("ipsnr", 33.0, 0.03, 33.04), "improved"),
               (judge("ipsnr", 33.0, 0.03, 33.03), "")]
    # denoising: the noise added has the sigma asked (a flat grey picture,
    # nothing clipped), a clean output scores 99 and passes, the noisy
    # input itself (no gain) and a picture one level off everywhere when
    # the input was already closer are refused, and dpsnr moves are caught
    flat = np.full((4, 64, 64), 128, np.uint8)
    noisy = add_noise(flat, 10, seed=1)
    sd = float((noisy.astype(np.float64) - 128).std())
    off1 = flat + np.uint8(1)
    checks += [(abs(sd - 10) < 0.1, True),
               (np.array_equal(noisy, add_noise(flat, 10, seed=1)), True),
               (denoise_verdict(flat, noisy, flat), (99.0, "")),
               (bool(denoise_verdict(flat, noisy, noisy)[1]), True),
               (round(denoise_verdict(flat, noisy, off1)[0], 3), 48.131),
               (bool(denoise_verdict(flat, off1, off1)[1]), True),
               (judge("dpsnr", 33.0, 0.03, 32.96), "dropped"),
               (judge("dpsnr", 33.0, 0.03, 33.04), "improved"),
               (judge("dpsnr", 33.0, 0.03, 32.97), "")]
    bad = [f"check {i}: got {got}, expected {want}"
           for i, (got, want) in enumerate(checks) if got != want]
    for b in bad:
        print("FAIL " + b)
    print(f"selftest: {len(checks) - len(bad)} of {len(checks)} checks "
          "passed")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("check", "update", "list",
                                        "selftest"))
    ap.add_argument("--build")
    ap.add_argument("--method", action="append", choices=METHODS)
    ap.add_argument("--content", action="append", choices=ORDER)
    ap.add_argument("--cases", choices=("search", "interpolate", "denoise"),
                    default="search", help="the search cases (the default), "
                    "the interpolation cases (full, hierarchical and "
                    "predictive) or the denoising cases (predictive)")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--clips", default=os.path.join(HERE, "clips"))
    ap.add_argument("--cache")
    ap.add_argument("--baselines", default=os.path.join(HERE,
                                                        "baselines.txt"))
    a = ap.parse_args()
    # --content naming interpolation (denoising) cases alone implies
    # --cases interpolate (denoise)
    kind = a.cases
    for k, t in (("interpolate", INTERP_CONTENTS),
                 ("denoise", DENOISE_CONTENTS)):
        if a.content and all(c in t for c in a.content):
            kind = k
    interp = kind == "interpolate"
    denoise = kind == "denoise"
    methods = a.method or list(INTERP_METHODS if interp else
                               DENOISE_METHODS if denoise else METHODS)
    table = (INTERP_CONTENTS if interp else DENOISE_CONTENTS if denoise
             else CONTENTS)
    settings = (INTERP_SETTINGS if interp else
                {k: f"{DENOISE_SEARCH} ! {v}"
                 for k, v in DENOISE_SETTINGS.items()} if denoise
                else SUBPELS)
    todo = [c for c in (interp_cases if interp else denoise_cases if denoise
                        else cases)(methods)
            if not a.content or c[0] in a.content]
    if a.command in ("check", "update") and not todo:
        ap.error("no case to run (the interpolation cases run under "
                 f"{', '.join(INTERP_METHODS)} only, and with --cases "
                 "interpolate; the denoising cases under "
                 f"{', '.join(DENOISE_METHODS)}, with --cases denoise)")
    if a.command == "selftest":
        return selftest()
    if a.command == "list":
        for c in todo:
            print("/".join(c))
        return 0
    if not a.build:
        ap.error("--build is needed")
    build = os.path.abspath(a.build)
    cache = a.cache or os.path.join(build, "tests", "quality", "cache")
    base = read_baselines(a.baselines)
    inp = Inputs(a.clips, cache)
    failures = []
    given = set()
    t_all = time.monotonic()
    with tempfile.TemporaryDirectory() as work:
        ctx = dict(work=work, build=build, backend=a.backend)
        print(f"{'case':32s} {'figure':8s} {'baseline':>9s} {'now':>9s}  "
              f"{'tol':>6s}")
        for content, method, subpel in todo:
            props = f"method={method} {settings[subpel]}"
            t0 = time.monotonic()
            figs = table[content](inp, content, props, ctx)
            name = f"{content}/{method}/{subpel}"
            for fig, now in figs.items():
                now = float(fmt(fig, now))
                key = (name, fig)
                given.add(key)
                if a.command == "update":
                    tol = base.get(key, (0, FIGURES[fig][1]))[1]
                    base[key] = (now, tol)
                    print(f"{name:32s} {fig:8s} {'':>9s} {fmt(fig, now):>9s}")
                    continue
                if key not in base:
                    failures.append(f"{name} {fig}: no baseline (now "
                                    f"{fmt(fig, now)}); run 'update'")
                    continue
                b, tol = base[key]
                verdict = judge(fig, b, tol, now)
                print(f"{name:32s} {fig:8s} {fmt(fig, b):>9s} "
                      f"{fmt(fig, now):>9s}  {fmt(fig, tol):>6s}"
                      f"{'  ' + verdict.upper() if verdict else ''}")
                if verdict:
                    unit = FIGURES[fig][2]
                    failures.append(
                        f"{content} {method} {subpel} {fig} {verdict}: "
                        f"baseline {fmt(fig, b)} {unit}, now {fmt(fig, now)} "
                        f"{unit} (tolerance {fmt(fig, tol)})"
                        + ("; a better figure is committed with the change "
                           "that made it: quality.py update"
                           if verdict == "improved" else ""))
            print(f"  ({time.monotonic() - t0:.1f} s)", file=sys.stderr)
    if a.command == "update":
        write_baselines(a.baselines, base)
        print(f"wrote {a.baselines}")
        return 0
    # a baseline that no case gives any more (a case or figure removed)
    # fails too: a gate must not shrink silently
    if not a.content:
        for (name, fig) in sorted(base):
            content, method = name.split("/")[:2]
            # the other set's lines are not this run's; a line of neither
            # (a content removed or misspelt) is the search run's to flag
            mine = content in table or (
                kind == "search" and content not in INTERP_CONTENTS
                and content not in DENOISE_CONTENTS)
            if mine and method in methods and (name, fig) not in given:
                failures.append(f"{name} {fig}: baseline for a case this "
                                "suite no longer runs; remove its line")
    print(f"{len(todo)} cases on the {a.backend} backend in "
          f"{time.monotonic() - t_all:.0f} s")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
