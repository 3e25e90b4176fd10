#!/usr/bin/env python3
"""How well does mvdenoise remove noise, against FFmpeg's denoisers?

    denoise-quality.py run [--build BUILD] [--clips DIR] [--cache DIR]
                           [--out TABLE.md] [--json OUT.json]
                           [--clip NAME ...] [--sigma S ...]
                           [--frames N] [--skip-speed] [--skip-grain]
    denoise-quality.py list        (clips, peers and their grids)

Clean clips: the real camera clips of the quality suite
(tests/quality/fetch-clips.sh), a fixed run of frames of each decoded once
to 8-bit I420.  Noise: white Gaussian noise of standard deviation sigma
(8-bit levels) added to every sample of Y, U and V, rounded to the nearest
integer and clipped to 0..255, from a fixed seed (numpy's PCG64, seeded
with the clip's name and sigma), so every method sees the same noisy frames.

Methods, every one reading the noisy raw I420 and writing raw I420:

  noisy       the noisy clip itself (what denoising starts from)
  hqdn3d, atadenoise, fftdnoiz, nlmeans, bm3d
              FFmpeg's filters (-threads 2 -filter_threads 2).  Each is
              tuned once per sigma: a small grid of its parameters (its
              defaults, and settings tied to sigma) on the tuning clip
              (vtest, its first TUNE_FRAMES frames); the setting with the
              best combined PSNR is kept and run on every clip.  bm3d is
              slow: it runs on the first BM3D_FRAMES frames of each clip
              only, and is left out of "best peer".
  mvd-rR-sS   gpumotionest backend=cpu references=-R,...,-1,+1,...,+R
              MVD_SEARCH ! mvdenoise backend=cpu sigma=S radius=R (R 1
              and 2 unless --radius says), S the true sigma
              or -1 (the element's own estimate), through gst-launch-1.0
              with the plugins of --build.  Skipped, with a message, when
              the build has no mvdenoise.

Scores, computed here in numpy on the decoded planes against the clean
clip, the mean over frames of the per-frame value: PSNR of Y, of U, of V,
and combined (the mean squared error over every sample of the three
planes, so Y weighs 4 and U and V 1 each in I420, as FFmpeg's psnr filter
weighs its "average"), and SSIM of Y (Wang et al. 2004, 11x11 Gaussian
window of sigma 1.5, K1 0.01, K2 0.03, valid positions only, full
resolution: tests/bench/interp-quality.py's ssim()).

Encoder: libx264 -preset medium -crf 23 (the same for every input) on
the noisy clip and on each denoised one, at the sigmas of X264_SIGMAS:
bits per frame of the stream, and the PSNR of the decoded stream against
the clean clip.

Grain: no clip with real sensor grain ships in the Debian packages the
clips come from, so the grainiest of ours by a noise estimate (Immerkaer
1996: the mean absolute response of a 3x3 Laplacian-difference kernel,
scaled to a Gaussian sigma, over the luma of every frame) is run as it is,
without added noise, and only what needs no clean reference is reported:
x264 bits at the CRF above, and the noise estimate before and after.

Speed: frames a second of each peer (its sigma-10 setting) and of the
gpumotionest + mvdenoise pipeline (backend=cpu, search included) on
SPEED_FRAMES frames of the handheld clip at 1080p with sigma-10 noise,
wall time of the whole command, on this machine's cores.

Every result is cached under --cache by a hash of what made it, so a
rerun only runs what changed.
"""

import argparse
import hashlib
import importlib.util
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

_spec = importlib.util.spec_from_file_location(
    "interp_quality", os.path.join(HERE, "interp-quality.py"))
iq = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(iq)

# Bump when what a cached result means changes.
VERSION = 1

# (path inside the Debian package, first frame, frame count)
CLIPS = {
    # opencv-doc: a fixed camera over a street, 768x576, 10/1
    "vtest": ("usr/share/doc/opencv-doc/examples/data/vtest.avi", 0, 40),
    # forensics-samples-files: a handheld phone, 1920x1080
    "phone": ("usr/share/forensics-samples/original-files/movie1/"
              "VID_20191220_170832.mp4", 0, 40),
    # opencv-doc: a webcam at a window, a tree in the wind, 320x240
    "tree": ("usr/share/doc/opencv-doc/examples/data/tree.avi", 0, 40),
}
SIGMAS = (5, 10, 20)
RADII = (1, 2)
TUNE_CLIP = "vtest"
TUNE_FRAMES = 20
BM3D_FRAMES = 10
X264_SIGMAS = (10,)
X264 = ["-c:v", "libx264", "-preset", "medium", "-crf", "23"]
SPEED_CLIP = "phone"
SPEED_FRAMES = 20
SPEED_BM3D_FRAMES = 5
FF_THREADS = ["-threads", "2", "-filter_threads", "2",
              "-filter_complex_threads", "2"]
FF_TIMEOUT = 1800
# gpumotionest's search in front of mvdenoise: predictive (the fast CPU
# method) at quarter pel on 16x16 blocks, the search the quality suite's
# denoising cases use; summary=true gives mvdenoise the scene-cut flags it
# never averages across.  mvdenoise runs with its defaults besides sigma
# and radius (its spatial pass included).  Not tuned here.
MVD_SEARCH = "method=predictive subpel=quarter summary=true"
# the peers whose best is "the best peer" (bm3d runs on fewer frames)
BEST_OF = ("hqdn3d", "atadenoise", "fftdnoiz", "nlmeans")
PEERS = ("hqdn3d", "atadenoise", "fftdnoiz", "nlmeans", "bm3d")


def die(msg):
    raise SystemExit(f"denoise-quality: {msg}")


def fmt(x):
    return f"{x:g}"


# ---------------------------------------------------------------------------
# The peers' grids: (label, filtergraph from [0:v] to [o]), defaults first
# ---------------------------------------------------------------------------

def grid(peer, s):
    g = []
    if peer == "hqdn3d":
        # defaults 4:3:6:4.5; the others keep the default ratios
        g.append(("default", "hqdn3d"))
        for k in (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0):
            ls = round(k * s, 2)
            g.append((f"ls={fmt(ls)}", "hqdn3d=%s:%s:%s:%s" % (
                fmt(ls), fmt(round(ls * 0.75, 2)), fmt(round(ls * 1.5, 2)),
                fmt(round(ls * 1.125, 2)))))
    elif peer == "atadenoise":
        # thresholds in fractions of the range; b = 2 a as the defaults
        g.append(("default", "atadenoise"))
        seen = set()
        for k in (1, 2, 3, 4.5, 6, 9):
            a = round(min(0.3, k * s / 255), 4)
            if a in seen:
                continue
            seen.add(a)
            for kb in (2, 4):
                b = round(min(5, kb * a), 4)
                t = ":".join(f"{p}a={fmt(a)}:{p}b={fmt(b)}" for p in "012")
                for n in (9, 17):
                    g.append((f"a={fmt(a)},b={fmt(b)},s={n}",
                              f"atadenoise={t}:s={n}"))
    elif peer == "fftdnoiz":
        g.append(("default", "fftdnoiz"))
        seen = set()
        for k in (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0):
            v = round(min(100, k * s), 2)
            if v in seen:
                continue
            seen.add(v)
            g.append((f"sigma={fmt(v)}", f"fftdnoiz=sigma={fmt(v)}"))
            g.append((f"sigma={fmt(v)},prev=1,next=1",
                      f"fftdnoiz=sigma={fmt(v)}:prev=1:next=1"))
    elif peer == "nlmeans":
        g.append(("default", "nlmeans"))
        seen = {1.0}
        for k in (0.25, 0.5, 0.75, 1.0):
            v = round(min(30, max(1, k * s)), 2)
            if v in seen:
                continue
            seen.add(v)
            g.append((f"s={fmt(v)}", f"nlmeans=s={fmt(v)}"))
    elif peer == "bm3d":
        g.append(("default", "bm3d"))
        # FFmpeg's sigma is not the noise's: the best lies at 2 to 4 times
        for k in (1.0, 1.5, 2.0, 3.0, 4.0, 6.0):
            v = round(k * s, 2)
            g.append((f"sigma={fmt(v)}", f"bm3d=sigma={fmt(v)}"))
        g.append((f"sigma={fmt(s)},group=8", f"bm3d=sigma={fmt(s)}:group=8"))
        for k in (1.0, 3.0):
            v = round(k * s, 2)
            g.append((f"sigma={fmt(v)},two-stage",
                      f"split[a][b];[a]bm3d=sigma={fmt(v)}[basic];"
                      f"[b][basic]bm3d=sigma={fmt(v)}:estim=final:ref=1"))
    else:
        die(f"no peer {peer}")
    return [(lab, f"[0:v]{vf}[o]") for lab, vf in g]


# ---------------------------------------------------------------------------
# Frames, noise, scores
# ---------------------------------------------------------------------------

def add_noise(planes, sigma, clip):
    seed = int(hashlib.sha1(clip.encode()).hexdigest()[:8], 16)
    rng = np.random.Generator(np.random.PCG64([seed, sigma]))
    out = []
    for p in planes:
        n = rng.standard_normal(p.shape) * sigma
        out.append(np.clip(np.rint(p + n), 0, 255).astype(np.uint8))
    return tuple(out)


def noise_estimate(y):
    """Immerkaer's fast noise estimate of a luma picture, in levels."""
    a = y.astype(np.float64)
    h, w = a.shape
    c = (a[:-2, :-2] - 2 * a[:-2, 1:-1] + a[:-2, 2:]
         - 2 * a[1:-1, :-2] + 4 * a[1:-1, 1:-1] - 2 * a[1:-1, 2:]
         + a[2:, :-2] - 2 * a[2:, 1:-1] + a[2:, 2:])
    return float(np.sqrt(np.pi / 2) * np.abs(c).sum() / (6 * (w - 2) * (h - 2)))


def clip_noise(planes):
    return float(np.mean([noise_estimate(f) for f in planes[0]]))


def score(clean, got, frames):
    """Per-frame (PSNR Y, U, V, combined, SSIM Y) over frames."""
    per = []
    for k in range(frames):
        m = [iq.mse(c[k], g[k]) for c, g in zip(clean, got)]
        n = [c[k].size for c in clean]
        mall = sum(a * b for a, b in zip(m, n)) / sum(n)
        per.append([iq.psnr_of(m[0]), iq.psnr_of(m[1]), iq.psnr_of(m[2]),
                    iq.psnr_of(mall), iq.ssim(clean[0][k], got[0][k])])
    return per


def summary(per):
    a = np.array(per)
    return {"psnr_y": float(a[:, 0].mean()), "psnr_u": float(a[:, 1].mean()),
            "psnr_v": float(a[:, 2].mean()),
            "psnr_yuv": float(a[:, 3].mean()),
            "ssim_y": float(a[:, 4].mean()), "frames": len(per)}


# ---------------------------------------------------------------------------
# Running things
# ---------------------------------------------------------------------------

class Cache:
    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "results"), exist_ok=True)

    def key(self, *what):
        return hashlib.sha1(json.dumps([VERSION] + list(what)).encode()
                            ).hexdigest()[:20]

    def get(self, key):
        p = os.path.join(self.root, "results", key + ".json")
        if os.path.exists(p):
            with open(p) as f:
                return json.load(f)
        return None

    def put(self, key, value):
        p = os.path.join(self.root, "results", key + ".json")
        with open(p + ".tmp", "w") as f:
            json.dump(value, f)
        os.replace(p + ".tmp", p)
        return value


def ffmpeg_filter(src, out, w, h, n, graph):
    cmd = (["ffmpeg", "-nostdin", "-v", "error", "-y"] + FF_THREADS +
           ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", f"{w}x{h}",
            "-framerate", "25", "-i", src, "-filter_complex", graph,
            "-map", "[o]", "-frames:v", str(n), "-fps_mode", "passthrough",
            "-pix_fmt", "yuv420p", "-f", "rawvideo", out])
    t0 = time.monotonic()
    try:
        # atadenoise waits for ever on a clip shorter than its window
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=FF_TIMEOUT)
    except subprocess.TimeoutExpired:
        die(f"ffmpeg ran past {FF_TIMEOUT} s:\n  {' '.join(cmd)}")
    dt = time.monotonic() - t0
    if r.returncode:
        die(f"ffmpeg failed:\n  {' '.join(cmd)}\n{r.stderr}")
    return dt, cmd


def mvd_pipeline(src, out, w, h, radius, sigma):
    refs = ",".join(f"{d:+d}" for d in range(-radius, radius + 1) if d)
    return (f"filesrc location={src} ! rawvideoparse format=i420 "
            f"width={w} height={h} framerate=25/1 ! gpumotionest "
            f"backend=cpu references={refs} {MVD_SEARCH} ! mvdenoise "
            f"backend=cpu sigma={sigma} radius={radius} ! "
            f"filesink location={out}")


def run_mvd(build, work, src, out, w, h, radius, sigma):
    pipe = mvd_pipeline(src, out, w, h, radius, sigma)
    t0 = time.monotonic()
    r = subprocess.run(["gst-launch-1.0", "-q"] + pipe.split(),
                       env=iq.gst_env(build, work), capture_output=True,
                       text=True)
    dt = time.monotonic() - t0
    if r.returncode:
        die(f"the pipeline failed:\n  gst-launch-1.0 {pipe}\n{r.stdout}"
            f"{r.stderr}")
    return dt, ["gst-launch-1.0"] + pipe.split()


def have_mvdenoise(build, work):
    if not build or not os.path.isdir(os.path.join(build, "gst")):
        return False, f"no build directory {build!r} (--build)"
    r = subprocess.run(["gst-inspect-1.0", "mvdenoise"],
                       env=iq.gst_env(build, work), capture_output=True,
                       text=True)
    if r.returncode:
        return False, (f"the build {build} has no mvdenoise element: "
                       "mvdenoise is skipped")
    return True, ""


def x264(src, w, h, n, work, clean):
    """(bits a frame, PSNR combined, PSNR Y) of src through libx264."""
    stream = os.path.join(work, "x264.264")
    dec = os.path.join(work, "x264.yuv")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-threads",
                    "2", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s",
                    f"{w}x{h}", "-framerate", "25", "-i", src, "-frames:v",
                    str(n)] + X264 + ["-f", "h264", stream], check=True)
    bits = os.path.getsize(stream) * 8 / n
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-threads",
                    "2", "-i", stream, "-pix_fmt", "yuv420p", "-f",
                    "rawvideo", dec], check=True)
    got = iq.read_i420(dec, w, h)
    res = {"bits_per_frame": bits}
    if clean is not None:
        s = summary([[*r[:4], 0.0] for r in _psnr_only(clean, got, n)])
        res.update(psnr_y=s["psnr_y"], psnr_yuv=s["psnr_yuv"])
    else:
        res["noise_decoded"] = clip_noise(got)
    os.remove(stream)
    os.remove(dec)
    return res


def _psnr_only(clean, got, n):
    out = []
    for k in range(n):
        m = [iq.mse(c[k], g[k]) for c, g in zip(clean, got)]
        sz = [c[k].size for c in clean]
        mall = sum(a * b for a, b in zip(m, sz)) / sum(sz)
        out.append([iq.psnr_of(m[0]), iq.psnr_of(m[1]), iq.psnr_of(m[2]),
                    iq.psnr_of(mall)])
    return out


# ---------------------------------------------------------------------------
# The measurement
# ---------------------------------------------------------------------------

class Bench:
    def __init__(self, args):
        self.args = args
        self.cache = Cache(os.path.abspath(args.cache))
        self.build = os.path.abspath(args.build) if args.build else None
        self.work = tempfile.mkdtemp(prefix="denoise-quality-")
        self.clipdata = {}
        self.ours, why = have_mvdenoise(self.build, self.work)
        if not self.ours:
            print(f"denoise-quality: {why}", file=sys.stderr)
        self.why_not_ours = why
        # the plugins' bytes: a rebuilt element is measured again
        self.ours_id = None
        if self.ours:
            h = hashlib.sha1()
            for so in ("mvdenoise/libgstmvdenoise.so",
                       "gpumotionest/libgstgpumotionest.so",
                       "motionvectors/libgstmotionvectors-1.0.so"):
                f = os.path.join(self.build, "gst", so)
                if os.path.exists(f):
                    with open(f, "rb") as fh:
                        h.update(fh.read())
            self.ours_id = h.hexdigest()[:16]

    def log(self, msg):
        print(msg, file=sys.stderr, flush=True)

    def clean(self, clip, n=None):
        """(path of the clean I420, w, h, planes) of the clip's frames."""
        rel, start, cn = CLIPS[clip]
        n = n or self.args.frames or cn
        if (clip, n) in self.clipdata:
            return self.clipdata[(clip, n)]
        path = iq.find_clip(rel, self.args.clips)
        w, h, _ = iq.probe(path)
        d = os.path.join(self.cache.root, "clips")
        os.makedirs(d, exist_ok=True)
        out = os.path.join(d, f"{clip}-{start}-{n}.yuv")
        if not os.path.exists(out):
            iq.decode(path, start, n, out + ".tmp")
            os.replace(out + ".tmp", out)
        planes = iq.read_i420(out, w, h)
        if planes[0].shape[0] < n:
            die(f"{clip}: {planes[0].shape[0]} frames, {n} wanted")
        self.clipdata[(clip, n)] = (out, w, h, planes)
        return self.clipdata[(clip, n)]

    def noisy(self, clip, sigma, n=None):
        out, w, h, planes = self.clean(clip, n)
        n = planes[0].shape[0]
        p = out[:-4] + f"-s{sigma}.yuv"
        if not os.path.exists(p):
            iq.write_i420(p + ".tmp", add_noise(planes, sigma, clip),
                          range(n))
            os.replace(p + ".tmp", p)
        return p

    def run_one(self, clip, sigma, method, label, graph, n, encode=False):
        """Scores of one method on one clip and sigma (cached)."""
        cpath, w, h, clean = self.clean(clip, self.frames_of(clip))
        src = self.noisy(clip, sigma, self.frames_of(clip)) \
            if sigma else cpath
        key = self.cache.key(clip, CLIPS[clip][1], self.frames_of(clip), n,
                             sigma, method, graph, encode,
                             *([self.ours_id, MVD_SEARCH]
                               if method == "mvdenoise" else []))
        hit = self.cache.get(key)
        if hit:
            return hit
        out = os.path.join(self.work, "out.yuv")
        if method == "noisy":
            shutil.copy(src, out)
            dt, cmd = 0.0, []
        elif method == "mvdenoise":
            radius, s = graph
            dt, cmd = run_mvd(self.build, self.work, src, out, w, h, radius,
                              s)
        else:
            dt, cmd = ffmpeg_filter(src, out, w, h, n, graph)
        got = iq.read_i420(out, w, h)
        if got[0].shape[0] < n:
            die(f"{method} {label}: {got[0].shape[0]} frames out, {n} in")
        res = {"method": method, "label": label, "seconds": dt,
               "command": " ".join(cmd).replace(self.work + "/", "")
               .replace(self.cache.root + "/", "")}
        if sigma:
            per = score(clean, got, n)
            res.update(summary(per))
            res["per_frame"] = per
        res["noise_estimate"] = clip_noise(tuple(p[:n] for p in got))
        if encode:
            res["x264"] = x264(out, w, h, n, self.work,
                               clean if sigma else None)
        os.remove(out)
        self.log(f"{clip:6s} s={sigma:2d} {method:10s} {label:34s} " + (
            f"Y {res['psnr_y']:6.2f} YUV {res['psnr_yuv']:6.2f} "
            f"SSIM {res['ssim_y']:.4f} " if sigma else
            f"noise {res['noise_estimate']:.2f} ") + f"({dt:.1f} s)")
        return self.cache.put(key, res)

    def frames_of(self, clip):
        return self.args.frames or CLIPS[clip][2]

    # --- tuning ------------------------------------------------------------

    def tune(self, sigmas):
        """{peer: {sigma: {"chosen": label, "graph": g, "grid": [...]}}}"""
        out = {}
        for peer in PEERS:
            out[peer] = {}
            for s in sigmas:
                n = BM3D_FRAMES if peer == "bm3d" else TUNE_FRAMES
                rows = []
                for label, g in grid(peer, s):
                    r = self.run_tune(peer, s, label, g, n)
                    rows.append({"label": label, "graph": g,
                                 **{k: r[k] for k in
                                    ("psnr_y", "psnr_yuv", "seconds",
                                     "frames")}})
                best = max(rows, key=lambda r: r["psnr_yuv"])
                out[peer][str(s)] = {"chosen": best["label"],
                                     "graph": best["graph"], "grid": rows}
        return out

    def run_tune(self, peer, s, label, g, n):
        clip = TUNE_CLIP
        cpath, w, h, clean = self.clean(clip, TUNE_FRAMES)
        src = self.noisy(clip, s, TUNE_FRAMES)
        key = self.cache.key("tune", clip, TUNE_FRAMES, n, s, peer, g)
        hit = self.cache.get(key)
        if hit:
            return hit
        out = os.path.join(self.work, "tune.yuv")
        dt, _ = ffmpeg_filter(src, out, w, h, n, g)
        got = iq.read_i420(out, w, h)
        per = _psnr_only(clean, got, n)
        a = np.array(per)
        res = {"psnr_y": float(a[:, 0].mean()),
               "psnr_yuv": float(a[:, 3].mean()),
               "seconds": dt, "frames": n}
        os.remove(out)
        self.log(f"tune {clip} s={s:2d} {peer:10s} {label:34s} "
                 f"Y {res['psnr_y']:6.2f} YUV {res['psnr_yuv']:6.2f} "
                 f"({dt:.1f} s)")
        return self.cache.put(key, res)

    # --- the clips -----------------------------------------------------------

    def ours_variants(self, sigma):
        return [(f"mvd-r{r}-s{'auto' if s < 0 else s}", (r, s))
                for r in (self.args.radius or RADII) for s in (sigma, -1)]

    def clips(self, tuned, sigmas):
        res = {}
        for clip in self.args.clip or list(CLIPS):
            n = self.frames_of(clip)
            _, w, h, _ = self.clean(clip, n)
            res[clip] = {"w": w, "h": h, "frames": n, "sigmas": {}}
            for s in sigmas:
                enc = s in X264_SIGMAS
                rows = {}
                rows["noisy"] = self.run_one(clip, s, "noisy", "", "", n, enc)
                for peer in PEERS:
                    t = tuned[peer][str(s)]
                    m = min(n, BM3D_FRAMES) if peer == "bm3d" else n
                    r = self.run_one(clip, s, peer, t["chosen"], t["graph"],
                                     m, enc and peer != "bm3d")
                    rows[peer] = r
                if self.ours:
                    for label, (r, ss) in self.ours_variants(s):
                        rows[label] = self.run_one(clip, s, "mvdenoise",
                                                   label, [r, ss], n, enc)
                res[clip]["sigmas"][str(s)] = rows
        return res

    # --- grain ---------------------------------------------------------------

    def grain(self, tuned, sigmas):
        est = {}
        for clip in self.args.clip or list(CLIPS):
            _, _, _, planes = self.clean(clip, self.frames_of(clip))
            est[clip] = clip_noise(planes)
        clip = max(est, key=est.get)
        n = self.frames_of(clip)
        level = min(sigmas, key=lambda s: abs(s - est[clip]))
        rows = {"original": self.run_one(clip, 0, "noisy", "", "", n, True)}
        for peer in BEST_OF:
            t = tuned[peer][str(level)]
            rows[peer] = self.run_one(clip, 0, peer, t["chosen"], t["graph"],
                                      n, True)
        if self.ours:
            for r in (self.args.radius or RADII):
                rows[f"mvd-r{r}-sauto"] = self.run_one(
                    clip, 0, "mvdenoise", f"mvd-r{r}-sauto", [r, -1], n, True)
        return {"estimates": est, "clip": clip, "frames": n,
                "peer_settings_sigma": level, "rows": rows}

    # --- speed ---------------------------------------------------------------

    def speed(self, tuned):
        clip = SPEED_CLIP
        n = SPEED_FRAMES
        cpath, w, h, _ = self.clean(clip, self.frames_of(clip))
        src = self.noisy(clip, 10, self.frames_of(clip))
        out = {"clip": clip, "w": w, "h": h, "rows": {}}
        null = os.path.join(self.work, "speed.yuv")
        for peer in PEERS:
            t = tuned[peer]["10"]
            m = SPEED_BM3D_FRAMES if peer == "bm3d" else n
            key = self.cache.key("speed", clip, m, peer, t["graph"],
                                 os.cpu_count())
            r = None if self.args.remeasure_speed else self.cache.get(key)
            if not r:
                load = os.getloadavg()[0]
                dt, _ = ffmpeg_filter(src, null, w, h, m, t["graph"])
                r = self.cache.put(key, {"frames": m, "seconds": dt,
                                         "fps": m / dt, "load_before": load,
                                         "setting": t["chosen"]})
                self.log(f"speed {peer:10s} {m / dt:7.2f} frames/s")
            out["rows"][peer] = r
        if self.ours:
            # the first n frames of the noisy clip, alone
            part = os.path.join(self.work, "speed-in.yuv")
            fs = iq.frame_size(w, h)
            with open(src, "rb") as f, open(part, "wb") as g:
                g.write(f.read(fs * n))
            for label, (r_, s) in self.ours_variants(10):
                key = self.cache.key("speed", clip, n, "mvdenoise", r_, s,
                                     os.cpu_count(), self.ours_id,
                                     MVD_SEARCH)
                r = (None if self.args.remeasure_speed else
                     self.cache.get(key))
                if not r:
                    load = os.getloadavg()[0]
                    dt, _ = run_mvd(self.build, self.work, part, null, w, h,
                                    r_, s)
                    r = self.cache.put(key, {"frames": n, "seconds": dt,
                                             "fps": n / dt,
                                             "load_before": load})
                    self.log(f"speed {label:10s} {n / dt:7.2f} frames/s")
                out["rows"][label] = r
        if os.path.exists(null):
            os.remove(null)
        return out


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

def best_peer(rows):
    peers = [p for p in BEST_OF if p in rows]
    return max(peers, key=lambda p: rows[p]["psnr_yuv"]) if peers else None


def best_ours(rows):
    ours = [k for k in rows if k.startswith("mvd-")]
    return max(ours, key=lambda k: rows[k]["psnr_yuv"]) if ours else None


def setting_of(m, r):
    if m.startswith("mvd-"):
        radius, sigma = m[5:].split("-s")
        return f"radius={radius} sigma={-1 if sigma == 'auto' else sigma}"
    return r["label"]


def tables(res):
    L = []
    t = res["tuning"]
    L.append("## Peer settings\n")
    L.append(f"Tuned on {TUNE_CLIP}, frames 0..{TUNE_FRAMES - 1} "
             f"(bm3d: 0..{BM3D_FRAMES - 1}), the setting with the best "
             "combined PSNR kept.\n")
    L.append("| peer | sigma | chosen | grid: setting PSNR-YUV (s) |")
    L.append("|---|---:|---|---|")
    for peer, by in t.items():
        for s, v in by.items():
            g = "; ".join(f"{r['label']} {r['psnr_yuv']:.2f} "
                          f"({r['seconds']:.1f} s)" for r in v["grid"])
            L.append(f"| {peer} | {s} | {v['chosen']} | {g} |")
    L.append("")
    L.append("## Scores against the clean clip\n")
    L.append("PSNR in dB (YUV: 4:1:1-weighted mean squared error), SSIM of "
             "luma; mean over frames.  bm3d: first "
             f"{BM3D_FRAMES} frames only (its row's `frames`).\n")
    for clip, c in res["clips"].items():
        for s, rows in c["sigmas"].items():
            L.append(f"### {clip} ({c['w']}x{c['h']}, {c['frames']} frames),"
                     f" sigma {s}\n")
            L.append("| method | setting | frames | PSNR-Y | PSNR-U | PSNR-V |"
                     " PSNR-YUV | SSIM-Y | s/frame |")
            L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
            for m, r in rows.items():
                L.append(f"| {m} | {setting_of(m, r)} | {r['frames']} | "
                         f"{r['psnr_y']:.2f} | {r['psnr_u']:.2f} | "
                         f"{r['psnr_v']:.2f} | {r['psnr_yuv']:.2f} | "
                         f"{r['ssim_y']:.4f} | "
                         f"{r['seconds'] / r['frames']:.3f} |")
            bp, bo = best_peer(rows), best_ours(rows)
            if bo:
                L.append("")
                for lab in [k for k in rows if k.startswith("mvd-")]:
                    r = rows[lab]
                    L.append(f"- {lab} over the best peer ({bp}): "
                             f"{r['psnr_yuv'] - rows[bp]['psnr_yuv']:+.2f} dB "
                             f"YUV, {r['psnr_y'] - rows[bp]['psnr_y']:+.2f} dB "
                             "Y")
            L.append("")
    L.append("## x264 (" + " ".join(X264) + ")\n")
    L.append("| clip | sigma | input | bits/frame | vs noisy | PSNR-Y | "
             "PSNR-YUV |")
    L.append("|---|---:|---|---:|---:|---:|---:|")
    for clip, c in res["clips"].items():
        for s, rows in c["sigmas"].items():
            if "x264" not in rows["noisy"]:
                continue
            base = rows["noisy"]["x264"]["bits_per_frame"]
            for m, r in rows.items():
                if "x264" not in r:
                    continue
                x = r["x264"]
                L.append(f"| {clip} | {s} | {m} | {x['bits_per_frame']:.0f} |"
                         f" {100 * (x['bits_per_frame'] / base - 1):+.1f} % |"
                         f" {x['psnr_y']:.2f} | {x['psnr_yuv']:.2f} |")
    L.append("")
    if res.get("grain"):
        g = res["grain"]
        L.append("## Grain (no added noise)\n")
        L.append("Noise estimates of the clean clips (luma, levels): " +
                 ", ".join(f"{k} {v:.2f}" for k, v in g["estimates"].items())
                 + f".  Grainiest: {g['clip']} ({g['frames']} frames); peers"
                 f" with their sigma-{g['peer_settings_sigma']} settings.\n")
        L.append("| input | setting | noise estimate | x264 bits/frame | vs "
                 "original | noise after x264 |")
        L.append("|---|---|---:|---:|---:|---:|")
        base = g["rows"]["original"]["x264"]["bits_per_frame"]
        for m, r in g["rows"].items():
            x = r["x264"]
            L.append(f"| {m} | {setting_of(m, r)} | {r['noise_estimate']:.2f} | "
                     f"{x['bits_per_frame']:.0f} | "
                     f"{100 * (x['bits_per_frame'] / base - 1):+.1f} % | "
                     f"{x['noise_decoded']:.2f} |")
        L.append("")
    if res.get("speed"):
        sp = res["speed"]
        L.append(f"## Speed ({sp['clip']}, {sp['w']}x{sp['h']}, sigma 10, "
                 f"{os.cpu_count()} cores)\n")
        L.append("| method | setting | frames | s | frames/s | load before |")
        L.append("|---|---|---:|---:|---:|---:|")
        for m, r in sp["rows"].items():
            ld = r.get("load_before")
            L.append(f"| {m} | {r.get('setting', '')} | {r['frames']} | "
                     f"{r['seconds']:.1f} | {r['fps']:.2f} | "
                     f"{'' if ld is None else f'{ld:.2f}'} |")
        if "nlmeans" in sp["rows"]:
            L.append("")
            nl = sp["rows"]["nlmeans"]["fps"]
            for m, r in sp["rows"].items():
                if m.startswith("mvd-"):
                    L.append(f"- {m}: {r['fps'] / nl:.1f}x nlmeans")
            L.append("")
        L.append("")
    if res.get("ours_skipped"):
        L.append(f"mvdenoise: {res['ours_skipped']}\n")
    return "\n".join(L)


def run(args):
    b = Bench(args)
    sigmas = args.sigma or list(SIGMAS)
    res = {"version": VERSION, "sigmas": sigmas,
           "x264": X264, "tune_clip": TUNE_CLIP, "tune_frames": TUNE_FRAMES,
           "bm3d_frames": BM3D_FRAMES}
    if not b.ours:
        res["ours_skipped"] = b.why_not_ours
    else:
        res["mvdenoise"] = {"plugins_sha1": b.ours_id, "search": MVD_SEARCH}
    try:
        t0 = time.monotonic()
        res["tuning"] = b.tune(sigmas)
        res["clips"] = b.clips(res["tuning"], sigmas)
        if not args.skip_grain:
            res["grain"] = b.grain(res["tuning"], sigmas)
        if not args.skip_speed and "10" in res["tuning"]["nlmeans"]:
            res["speed"] = b.speed(res["tuning"])
        res["seconds"] = time.monotonic() - t0
    finally:
        shutil.rmtree(b.work, ignore_errors=True)
    text = tables(res)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--build", default=os.path.join(ROOT, "build"))
    r.add_argument("--clips", default=os.path.join(ROOT, "tests", "quality",
                                                   "clips"))
    r.add_argument("--cache", default=os.path.join(ROOT, "build",
                                                   "denoise-cache"))
    r.add_argument("--out")
    r.add_argument("--json")
    r.add_argument("--clip", action="append", choices=list(CLIPS))
    r.add_argument("--sigma", action="append", type=int)
    r.add_argument("--frames", type=int)
    r.add_argument("--radius", action="append", type=int,
                   choices=(1, 2, 3, 4), help="mvdenoise's radius (several "
                   "allowed; default 1 and 2)")
    r.add_argument("--skip-speed", action="store_true")
    r.add_argument("--skip-grain", action="store_true")
    r.add_argument("--remeasure-speed", action="store_true",
                   help="time the speed runs again (on a quiet machine)")
    sub.add_parser("list")
    args = ap.parse_args()
    if args.cmd == "list":
        for c, v in CLIPS.items():
            print(f"clip {c}: {v[0]} frames {v[1]}..{v[1] + v[2] - 1}")
        for p in PEERS:
            for s in SIGMAS:
                print(f"{p} sigma {s}: " +
                      "; ".join(f"{lab} = {g}" for lab, g in grid(p, s)))
        return
    if args.frames is not None and args.frames < 20:
        die("--frames: at least 20 (atadenoise's 17-frame window stalls on "
            "a shorter clip)")
    if args.sigma and any(s <= 0 or s > 100 for s in args.sigma):
        die("--sigma: 1..100")
    run(args)


if __name__ == "__main__":
    main()
