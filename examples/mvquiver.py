#!/usr/bin/env python3
"""Quiver plot of the motion field of one frame, read through the meta.

    mvquiver.py [CLIP] [--frame K] [--partition 16x16] [--output quiver.png]

Runs a clip through gpumotionest into an appsink, reads frame K's
GstMotionVectorMeta through GObject introspection (GstMotionVectors 1.0
and its Python overrides: meta.to_ndarray() gives the grid as a structured
numpy array viewing the meta's cells, no per-cell Python loop) and saves a
matplotlib quiver plot of the vectors over the frame's luma.

Without CLIP the program makes its own: a window panning across the
photograph that ships with matplotlib's sample data (a textured random
image where that is missing), moving by --motion pixels per frame.

Arrows show the motion of the picture content, which is the opposite of the
stored vector: a vector points from the block to its match in the previous
frame, so the content came from there.
"""

import argparse
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import Gst, GstVideo, GstMotionVectors as MV  # noqa: E402

import numpy as np  # noqa: E402

# Partition shapes: nick -> block width, height in pixels.
SHAPES = {"16x16": (16, 16), "16x8": (16, 8), "8x16": (8, 16), "8x8": (8, 8),
          "8x4": (8, 4), "4x8": (4, 8), "4x4": (4, 4)}


def source_photo(width, height):
    """Luma of a photograph at least width x height, or None."""
    try:
        import matplotlib.cbook as cbook
        import matplotlib.image as mpimg
        path = cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)
        rgb = mpimg.imread(path).astype(np.float64)
    except (ImportError, OSError, ValueError):
        return None
    if rgb.ndim != 3 or rgb.shape[0] < height or rgb.shape[1] < width:
        return None
    luma = 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]
    return np.clip(np.rint(luma * 219.0 / 255.0 + 16.0), 16, 235) \
        .astype(np.uint8)


def source_texture(width, height):
    """A smooth random texture (fixed seed) when no photograph is found."""
    rng = np.random.default_rng(1234)
    coarse = rng.integers(0, 256, size=(height // 8 + 2, width // 8 + 2))
    smooth = np.kron(coarse, np.ones((8, 8)))[:height, :width]
    grain = rng.integers(0, 48, size=(height, width))
    return (16 + smooth * 0.7 + grain).astype(np.uint8)


def make_frames(n, width, height, motion):
    """n I420 frames of a width x height window moving across a picture so
    that the content moves by motion = (dx, dy) pixels per frame."""
    dx, dy = motion
    span_w, span_h = width + abs(dx) * n, height + abs(dy) * n
    picture = source_photo(span_w, span_h)
    what = "photograph"
    if picture is None:
        picture, what = source_texture(span_w, span_h), "random texture"
    # Content moving by +dx means the window moving by -dx.
    x0 = abs(dx) * n if dx > 0 else 0
    y0 = abs(dy) * n if dy > 0 else 0
    # GStreamer's default I420 layout for this size (rows padded to 4 bytes).
    vinfo = GstVideo.VideoInfo()
    vinfo.set_format(GstVideo.VideoFormat.I420, width, height)
    frames = []
    for k in range(n):
        x, y = x0 - dx * k, y0 - dy * k
        data = np.full(vinfo.size, 128, np.uint8)
        luma = np.lib.stride_tricks.as_strided(
            data[vinfo.offset[0]:], shape=(height, width),
            strides=(vinfo.stride[0], 1))
        luma[:] = picture[y:y + height, x:x + width]
        frames.append(data.tobytes())
    return frames, what


def run(args):
    Gst.init(None)
    if not hasattr(MV.MotionVectorMeta, "to_ndarray"):
        print("error: the GstMotionVectors Python overrides are missing: "
              "install the project, or put gst/motionvectors/python of the "
              "source tree on PYTHONPATH (docs/python.md)", file=sys.stderr)
        return 1
    bw, bh = SHAPES[args.partition]
    me = (f"gpumotionest search-range={args.range} "
          f"partitions={args.partition} backend={args.backend}")
    sink = "appsink name=sink sync=false"
    if args.clip:
        pipeline = Gst.parse_launch(
            f"filesrc location={args.clip} ! decodebin ! videoconvert ! "
            f"video/x-raw,format=I420 ! {me} ! {sink}")
    else:
        w, h = args.width, args.height
        frames, what = make_frames(args.frame + 1, w, h, args.motion)
        print(f"clip: {len(frames)} frames of {w}x{h}, a {what} moving by "
              f"({args.motion[0]:+d},{args.motion[1]:+d}) px per frame")
        pipeline = Gst.parse_launch(
            f"appsrc name=src format=time caps=video/x-raw,format=I420,"
            f"width={w},height={h},framerate=30/1 ! {me} ! {sink}")
        src = pipeline.get_by_name("src")
        for k, data in enumerate(frames):
            buf = Gst.Buffer.new_wrapped(data)
            buf.pts = k * Gst.SECOND // 30
            buf.duration = Gst.SECOND // 30
            src.emit("push-buffer", buf)
        src.emit("end-of-stream")

    appsink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    picked = None
    index = 0
    while True:
        sample = appsink.emit("try-pull-sample", Gst.SECOND)
        if sample is None:
            msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
            if msg:
                err, dbg = msg.parse_error()
                print(f"error: {err.message}\n{dbg}", file=sys.stderr)
                pipeline.set_state(Gst.State.NULL)
                return 1
            if appsink.get_property("eos"):
                break
            continue
        if index == args.frame:
            picked = sample
        index += 1
        if index > args.frame:
            break
    pipeline.set_state(Gst.State.NULL)
    if picked is None:
        print(f"error: the clip has only {index} frames", file=sys.stderr)
        return 1

    buf = picked.get_buffer()
    meta = MV.buffer_get_motion_vector_meta(buf)
    if meta is None:
        print("error: no motion-vector meta", file=sys.stderr)
        return 1
    if meta.flags & MV.MotionVectorMetaFlags.NO_REFERENCE:
        print(f"error: frame {args.frame} has no reference frame",
              file=sys.stderr)
        return 1
    vinfo = GstVideo.VideoInfo.new_from_caps(picked.get_caps())
    width, height = vinfo.width, vinfo.height
    # The luma plane's place: from the buffer's video meta when upstream
    # chose its own layout, else the default layout of the caps.
    vmeta = GstVideo.buffer_get_video_meta(buf)
    layout = vmeta if vmeta is not None else vinfo
    offset, stride = layout.offset[0], layout.stride[0]
    ok, info = buf.map(Gst.MapFlags.READ)
    if not ok:
        print("error: cannot map the frame", file=sys.stderr)
        return 1
    plane = np.frombuffer(info.data, np.uint8)[offset:]
    luma = np.lib.stride_tricks.as_strided(
        plane, shape=(height, width), strides=(stride, 1)).copy()
    buf.unmap(info)

    # (rows, cols) cells: mv, pred, mvd in quarter pixels, cost the SAD
    g = meta.to_ndarray(args.partition)
    rows, cols = g.shape
    # Block centres and vectors in frame pixels (grid at analysis size,
    # vectors quarter-pel at meta.width x meta.height).
    sx, sy = width / meta.analysis_width, height / meta.analysis_height
    cx = (np.arange(cols) * bw + bw / 2) * sx
    cy = (np.arange(rows) * bh + bh / 2) * sy
    X, Y = np.meshgrid(cx, cy)
    U = -g["mv_x"] / 4.0 * width / meta.width
    V = -g["mv_y"] / 4.0 * height / meta.height
    inside = (X < width) & (Y < height)
    motion = np.stack([U[inside], V[inside]], axis=-1)
    vals, counts = np.unique(motion, axis=0, return_counts=True)
    top = vals[counts.argmax()]
    share = counts.max() / len(motion)
    print(f"frame {args.frame}: {cols}x{rows} blocks of {args.partition}, "
          f"mean |motion| {np.hypot(U, V)[inside].mean():.2f} px, "
          f"most common motion ({top[0]:+g},{top[1]:+g}) px on "
          f"{100 * share:.1f}% of blocks, mean SAD {g['cost'].mean():.1f}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(width / 50 + 1.5, height / 50 + 0.8),
                           dpi=100)
    ax.imshow(luma, cmap="gray", vmin=0, vmax=255)
    # angles/scale_units "xy": arrows in image pixels, y growing downwards
    # like the image; drawn --arrow-scale times longer for visibility.
    q = ax.quiver(X[inside], Y[inside], U[inside], V[inside],
                  g["cost"][inside], cmap="cool", angles="xy",
                  scale_units="xy", scale=1.0 / args.arrow_scale,
                  width=0.003, edgecolor="black", linewidth=0.4)
    fig.colorbar(q, ax=ax, fraction=0.03, label="SAD of the block")
    ax.set_title(f"frame {args.frame}: motion of {args.partition} blocks "
                 f"(x{args.arrow_scale:g}); most common "
                 f"({top[0]:+g},{top[1]:+g}) px", fontsize=10)
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    fig.tight_layout()
    fig.savefig(args.output)
    plt.close(fig)
    print(f"saved {os.path.abspath(args.output)}")

    if args.expect is not None:
        want = np.array(args.expect, dtype=float)
        if not np.array_equal(top, want) or share < 0.5:
            print(f"error: expected motion ({want[0]:+g},{want[1]:+g}) px on "
                  "most blocks", file=sys.stderr)
            return 1
    return 0


def pair(text):
    x, y = text.split(",")
    return int(x), int(y)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clip", nargs="?", help="a file decodebin plays")
    ap.add_argument("--frame", type=int, default=8,
                    help="frame to plot, counting from 0 (default 8)")
    ap.add_argument("--partition", choices=SHAPES, default="16x16")
    ap.add_argument("--output", default="mvquiver.png")
    ap.add_argument("--range", type=int, default=16)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--arrow-scale", type=float, default=3.0,
                    help="arrow length factor (default 3)")
    ap.add_argument("--width", type=int, default=448,
                    help="width of the generated clip")
    ap.add_argument("--height", type=int, default=336,
                    help="height of the generated clip")
    ap.add_argument("--motion", type=pair, default=(-3, 2), metavar="DX,DY",
                    help="motion of the generated clip (default -3,2)")
    ap.add_argument("--expect", type=pair, metavar="DX,DY",
                    help="fail unless most blocks move by DX,DY pixels")
    args = ap.parse_args()
    if args.frame < 1:
        ap.error("--frame must be at least 1 (frame 0 has no reference)")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
