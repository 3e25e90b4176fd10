#!/usr/bin/env python3
"""Run gpumotionest over a clip and summarise the motion field it finds.

    mvsummary.py CLIP [--width W --height H] [--range R] [--backend B]

CLIP is raw I420 (give --width/--height) or anything decodebin plays.  The
vectors are read from each buffer's GstMotionVectorMeta through GObject
introspection and its Python overrides, as whole grids viewed by numpy
(meta.to_ndarray()) without a per-cell loop.
"""

import argparse
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import Gst, GstMotionVectors as MV  # noqa: E402

import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clip")
    ap.add_argument("--width", type=int)
    ap.add_argument("--height", type=int)
    ap.add_argument("--range", type=int, default=16)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--expect", metavar="DX,DY",
                    help="fail unless this is the dominant motion (pixels)")
    args = ap.parse_args()

    Gst.init(None)
    if not hasattr(MV.MotionVectorMeta, "to_ndarray"):
        print("error: the GstMotionVectors Python overrides are missing: "
              "install the project, or put gst/motionvectors/python of the "
              "source tree on PYTHONPATH (docs/python.md)", file=sys.stderr)
        return 1
    if args.width and args.height:
        source = (f"filesrc location={args.clip} ! rawvideoparse "
                  f"width={args.width} height={args.height} format=i420 "
                  "framerate=30/1")
    else:
        source = (f"filesrc location={args.clip} ! decodebin ! videoconvert "
                  "! video/x-raw,format=I420")
    pipeline = Gst.parse_launch(
        f"{source} ! gpumotionest name=me backend={args.backend} "
        f"search-range={args.range} ! appsink name=sink sync=false")
    sink = pipeline.get_by_name("sink")
    me = pipeline.get_by_name("me")

    frames, searched, mags, costs = 0, 0, [], []
    votes = {}
    pipeline.set_state(Gst.State.PLAYING)
    start = time.monotonic()
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        meta = MV.buffer_get_motion_vector_meta(sample.get_buffer())
        if meta is None:
            print("error: a buffer without motion-vector meta", file=sys.stderr)
            return 1
        frames += 1
        if meta.flags & MV.MotionVectorMetaFlags.NO_REFERENCE:
            continue
        searched += 1
        g = meta.to_ndarray("16x16")    # vectors in quarter pixels
        mv = np.stack([g["mv_x"], g["mv_y"]], axis=-1).reshape(-1, 2) / 4.0
        mag = np.hypot(mv[:, 0], mv[:, 1])
        mags.append(mag.mean())
        costs.append(g["cost"].mean())
        vals, counts = np.unique(mv, axis=0, return_counts=True)
        top = tuple(vals[counts.argmax()])
        votes[top] = votes.get(top, 0) + 1
        if not args.quiet:
            print(f"frame {frames - 1:4d}: {g.shape[1]}x{g.shape[0]} blocks, "
                  f"mean |mv| {mag.mean():5.2f} px, most common "
                  f"({top[0]:+.0f},{top[1]:+.0f}) px on "
                  f"{100.0 * counts.max() / len(mv):5.1f}% of blocks, "
                  f"mean SAD {g['cost'].mean():7.1f}")
    elapsed = time.monotonic() - start
    backend = me.get_property("active-backend")
    pipeline.set_state(Gst.State.NULL)

    if searched == 0:
        print("error: no frame had a reference", file=sys.stderr)
        return 1
    dominant = max(votes, key=votes.get)
    print(f"{frames} frames ({searched} searched) on the {backend} backend "
          f"in {elapsed:.2f} s: {frames / elapsed:.1f} frames/s end to end")
    print(f"search range ±{args.range}, 16x16 blocks; mean |mv| "
          f"{np.mean(mags):.2f} px, mean SAD {np.mean(costs):.1f}; dominant "
          f"motion ({dominant[0]:+.0f},{dominant[1]:+.0f}) px per frame")
    if args.expect:
        want = tuple(float(v) for v in args.expect.split(","))
        if dominant != want:
            print(f"error: expected dominant motion {want}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
