#!/usr/bin/env python3
"""Disparity of a real stereo pair with ground truth, against OpenCV.

The Middlebury "Aloe" pair that Debian's opencv-doc ships (aloeL.jpg,
aloeR.jpg, and aloeGT.png: the left view's disparity in pixels, 0 where
unknown) goes through

  appsrc (GRAY8, multiview-mode=side-by-side: the right view first, the
          left view second) ! gpumotionest disparity-range=-MAX,0 ! appsink

so that the inter-view field is the left view's disparity: a block of the
left view at x is found at x - d in the right view (a vector of -d).  Each
4x4 block's disparity (quarter pel with subpel=quarter) is given to its 16
pixels, and the share of pixels the ground truth defines whose disparity is
off by more than 1 and by more than 2 pixels is printed, next to OpenCV's
StereoBM and StereoSGBM on the same pair (a pixel they leave without a
disparity counts as off).  Speed: frames per second of gpumotionest over
repeated frames (each also searched for both views' motion), and of the
OpenCV matchers' compute().

  stereo-aloe.py [--backend cpu|cuda] [--data DIR] [--max-disparity N]
                 [--frames N] [--shapes 4x4|16x16...] [--subpel none|quarter]
                 [--extra "gpumotionest properties"]
  stereo-aloe.py --write-sbs FILE     the pair as one raw GRAY8 side-by-side
                                      frame (2564x1110), for gst-launch-1.0
                                      where Python is missing
  stereo-aloe.py --from-export FILE   score the inter-view field (the line
                                      with ref_distance 0) of mvexport's JSON

Needs python3-opencv, numpy and the GStreamer Python bindings; the plugin
from GST_PLUGIN_PATH_1_0.  A benchmark, not a test.
"""
import argparse
import os
import sys
import time

import cv2
import numpy as np

Gst = GstMotionVectors = None


def load_gst():
    """GStreamer and the meta library, only where the element runs here."""
    global Gst, GstMotionVectors
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstMotionVectors", "1.0")
    from gi.repository import Gst as G, GstMotionVectors as M
    Gst, GstMotionVectors = G, M
    Gst.init(None)

DATA = "/usr/share/doc/opencv-doc/examples/data"


def bad_shares(disp, gt, valid_extra=None):
    """Shares of the defined ground-truth pixels off by > 1 and > 2."""
    defined = gt > 0
    err = np.abs(disp - gt)
    bad = ~np.isfinite(err) | (err > 1)
    bad2 = ~np.isfinite(err) | (err > 2)
    if valid_extra is not None:
        bad |= ~valid_extra
        bad2 |= ~valid_extra
    n = defined.sum()
    return bad[defined].sum() / n, bad2[defined].sum() / n


def run_element(left, right, args):
    h, w = left.shape
    sbs = np.ascontiguousarray(np.hstack([right, left]))
    caps = ("video/x-raw,format=GRAY8,width=%d,height=%d,framerate=30/1,"
            "multiview-mode=side-by-side" % (2 * w, h))
    desc = ("appsrc name=src format=time caps=%s ! gpumotionest backend=%s "
            "partitions=%s subpel=%s disparity-range=-%d,0 "
            "disparity-vertical=1 search-range=4 %s ! appsink name=sink "
            "sync=false max-buffers=%d" % (caps, args.backend, args.shapes,
                                          args.subpel, args.max_disparity,
                                          args.extra, args.frames + 1))
    pipe = Gst.parse_launch(desc)
    src = pipe.get_by_name("src")
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    data = sbs.tobytes()
    t0 = None
    samples = []
    for i in range(args.frames + 1):
        buf = Gst.Buffer.new_wrapped(data)
        buf.pts = i * Gst.SECOND // 30
        buf.duration = Gst.SECOND // 30
        src.emit("push-buffer", buf)
        if i == 0:
            # the first frame opens the backend: not timed
            samples.append(sink.emit("pull-sample"))
            t0 = time.monotonic()
    src.emit("end-of-stream")
    for i in range(args.frames):
        samples.append(sink.emit("pull-sample"))
    elapsed = time.monotonic() - t0
    pipe.set_state(Gst.State.NULL)
    active = pipe.get_by_name("src")  # keep the pipeline alive until here
    del active

    buf = samples[0].get_buffer()
    meta = GstMotionVectors.buffer_get_motion_vector_meta_for_view(buf, 1, 0)
    if meta is None:
        sys.exit("no inter-view field on the first frame")
    mv = meta.to_ndarray(args.shapes)
    bw, bh = (int(v) for v in args.shapes.split("x"))
    # disparity of each block (quarter pixels to pixels), then per pixel
    d_blocks = -mv["mv_x"].astype(np.float32) / 4.0
    disp = np.repeat(np.repeat(d_blocks, bh, axis=0), bw, axis=1)[:h, :w]
    return disp, args.frames / elapsed


def from_export(path, shapes, h, w):
    """The disparity map of the first inter-view field in an export."""
    import json
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if d.get("ref_distance") != 0:
                continue
            bw, bh = (int(v) for v in shapes.split("x"))
            for layer in d["layers"]:
                if layer["shape"] != shapes:
                    continue
                mv = np.array(layer["mv"], dtype=np.float32).reshape(
                    layer["rows"], layer["cols"], 2)
                blocks = -mv[:, :, 0] / 4.0
                return np.repeat(np.repeat(blocks, bh, axis=0), bw,
                                 axis=1)[:h, :w]
    sys.exit("no inter-view field of shape %s in %s" % (shapes, path))


def run_opencv(left, right, max_disp):
    num = (max_disp + 15) // 16 * 16
    out = {}
    bm = cv2.StereoBM_create(numDisparities=num, blockSize=15)
    sgbm = cv2.StereoSGBM_create(minDisparity=0, numDisparities=num,
                                 blockSize=5, P1=8 * 5 * 5, P2=32 * 5 * 5,
                                 disp12MaxDiff=1, uniquenessRatio=10,
                                 speckleWindowSize=100, speckleRange=32)
    for name, m in (("StereoBM", bm), ("StereoSGBM", sgbm)):
        m.compute(left, right)   # warm-up
        reps = 5 if name == "StereoBM" else 2
        t0 = time.monotonic()
        for _ in range(reps):
            raw = m.compute(left, right)
        fps = reps / (time.monotonic() - t0)
        disp = raw.astype(np.float32) / 16.0
        valid = raw >= 0
        out[name] = (disp, valid, fps)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--max-disparity", type=int, default=240)
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--shapes", default="4x4")
    ap.add_argument("--subpel", default="quarter")
    ap.add_argument("--extra", default="")
    ap.add_argument("--no-opencv", action="store_true")
    ap.add_argument("--write-sbs")
    ap.add_argument("--from-export")
    ap.add_argument("--fps", type=float, default=0.0,
                    help="with --from-export: the frames/s measured with it")
    args = ap.parse_args()

    left = cv2.imread(os.path.join(args.data, "aloeL.jpg"), cv2.IMREAD_GRAYSCALE)
    right = cv2.imread(os.path.join(args.data, "aloeR.jpg"),
                       cv2.IMREAD_GRAYSCALE)
    gt = cv2.imread(os.path.join(args.data, "aloeGT.png"),
                    cv2.IMREAD_UNCHANGED).astype(np.float32)
    if left is None or right is None or gt is None:
        sys.exit("Aloe pair not found in %s (Debian: opencv-doc)" % args.data)
    h, w = left.shape
    if args.write_sbs:
        with open(args.write_sbs, "wb") as f:
            f.write(np.ascontiguousarray(np.hstack([right, left])).tobytes())
        print("%s: %dx%d GRAY8, right view first" % (args.write_sbs, 2 * w, h))
        return
    print("Aloe %dx%d, ground truth on %.1f%% of the pixels, disparities up "
          "to %d" % (w, h, 100.0 * (gt > 0).mean(), int(gt.max())))
    print("%-34s %8s %8s %10s" % ("", "bad > 1", "bad > 2", "frames/s"))

    if args.from_export:
        disp, fps = from_export(args.from_export, args.shapes, h, w), args.fps
    else:
        load_gst()
        disp, fps = run_element(left, right, args)
    b1, b2 = bad_shares(disp, gt)
    print("%-34s %7.1f%% %7.1f%% %10.1f" % (
        "gpumotionest %s %s %s" % (args.backend, args.shapes, args.subpel),
        100 * b1, 100 * b2, fps))
    if not args.no_opencv:
        threads = cv2.getNumThreads()
        for n in sorted({1, threads}):
            cv2.setNumThreads(n)
            print("  (OpenCV on %d thread%s)" % (n, "s" if n > 1 else ""))
            for name, (d, valid, f) in run_opencv(left, right,
                                                  args.max_disparity).items():
                b1, b2 = bad_shares(d, gt, valid)
                print("%-34s %7.1f%% %7.1f%% %10.1f" % (name, 100 * b1,
                                                        100 * b2, f))


if __name__ == "__main__":
    main()
