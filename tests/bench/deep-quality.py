#!/usr/bin/env python3
"""Motion search at 10 bits against the same frames cut to 8 bits.

A dark scene is where an 8-bit picture loses texture: its few levels turn
fine gradients and sensor noise into flat steps.  This builds one from a
real camera clip: each 2x2 block of its luma is summed (the mean of four
samples has two more bits than a sample: a 10-bit picture of half the
size, its texture and noise the camera's own) and placed in the lowest
quarter of the 10-bit range, as an underexposed 10-bit capture:

    y10 = 64 + sum4 // 4          (64 .. 319 of 0 .. 1023)
    y8  = y10 >> 2                (16 .. 79 of 0 .. 255)

gpumotionest searches both, as I420_10LE and as I420, with the same
settings; each field then predicts the 10-bit frames (H.264 interpolation
at 10 bits, clipped to 1023) and the MC-PSNR is that of the 10-bit
prediction (peak 1023).  The difference is what searching the samples
as they are, not cut to 8 bits, gains.

    deep-quality.py CLIP --build BUILD [--frames N] [--backend cpu]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mvquality as mq  # noqa: E402


def dark_scene(luma):
    """The 10-bit dark frames and their 8-bit cut, from N x H x W luma."""
    n, h, w = luma.shape
    h, w = h // 2 * 2, w // 2 * 2
    s = luma[:, :h, :w].astype(np.int32)
    sum4 = s[:, 0::2, 0::2] + s[:, 1::2, 0::2] + s[:, 0::2, 1::2] \
        + s[:, 1::2, 1::2]
    y10 = (64 + sum4 // 4).astype(np.uint16)
    return y10, (y10 >> 2).astype(np.uint8)


def search(frames, bits, props, work, build, backend, name):
    """gpumotionest over the frames as I420 (8 bits) or I420_10LE (10 bits:
    a 10-bit format, so lambda is scaled by 4, docs/high-bit-depth.md),
    neutral chroma; the per-frame fields read back from its JSON export."""
    n, h, w = frames.shape
    raw = os.path.join(work, name + ".raw")
    out = os.path.join(work, name + ".jsonl")
    dt, fmt = ("<u2", "i420-10le") if bits == 10 else (np.uint8, "i420")
    chroma = np.full(2 * (h // 2) * (w // 2), 1 << (bits - 1), dt)
    with open(raw, "wb") as f:
        for fr in frames:
            f.write(fr.astype(dt).tobytes())
            f.write(chroma.tobytes())
    bpp = 2 if bits == 10 else 1
    env = mq.gst_env(build, work)
    pipe = (f"filesrc location={raw} ! rawvideoparse format={fmt} width={w} "
            f"height={h} framerate=25/1 ! gpumotionest backend={backend} "
            f"{props} ! mvexport location={out} partitions=16x16+8x8+4x4 ! "
            f"fakesink")
    subprocess.run(["gst-launch-1.0", "-q"] + pipe.split(), check=True,
                   env=env)
    return mq.read_export(out, n)


def mc_psnr(y10, fields, shape):
    """MC-PSNR (peak 1023) of the 10-bit frames predicted by `fields`."""
    n, h, w = y10.shape
    size = mq.SHAPE_SIZE[shape]
    se, count = 0.0, 0
    for k in range(1, n):
        if fields[k] is None:
            continue
        q = mq.quarter_planes(y10[k - 1], 1023)
        pred = mq.predict(q, fields[k][shape]["mv"], size, size, h, w)
        d = pred.astype(np.int64) - y10[k].astype(np.int64)
        se += float((d * d).sum())
        count += d.size
    mse = se / count
    return 99.0 if mse == 0 else 10 * np.log10(1023 ** 2 / mse)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clip")
    ap.add_argument("--build", required=True)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()

    luma = mq.load_luma(args.clip, args.frames)
    y10, y8 = dark_scene(luma)
    n, h, w = y10.shape
    print(f"{args.clip}: {n} frames, dark scene {w}x{h}, 10-bit samples "
          f"{int(y10.min())}..{int(y10.max())} ({len(np.unique(y10))} "
          f"levels), 8-bit {int(y8.min())}..{int(y8.max())} "
          f"({len(np.unique(y8))} levels)")
    settings = [
        ("full R=16, whole pixels", "search-range=16 partitions=0x7f"),
        ("full R=16, quarter-pel", "search-range=16 partitions=0x7f "
         "subpel=quarter"),
        ("full R=16, quarter-pel SATD lambda=4",
         "search-range=16 partitions=0x7f subpel=quarter metric=satd "
         "lambda=4"),
    ]
    print(f"{'setting':40s} {'shape':6s} {'8-bit':>8s} {'10-bit':>8s} "
          f"{'gain':>7s}")
    with tempfile.TemporaryDirectory() as work:
        for label, props in settings:
            f10 = search(y10, 10, props, work, args.build, args.backend,
                         "deep")
            f8 = search(y8, 8, props, work, args.build, args.backend, "cut")
            for shape in ("16x16", "8x8", "4x4"):
                a = mc_psnr(y10, f8, shape)
                b = mc_psnr(y10, f10, shape)
                print(f"{label:40s} {shape:6s} {a:8.2f} {b:8.2f} "
                      f"{b - a:+7.2f}")


if __name__ == "__main__":
    main()
