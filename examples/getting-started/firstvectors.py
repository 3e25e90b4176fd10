#!/usr/bin/env python3
"""The vectors of a clip as numpy arrays, from a program of one's own.

    python3 firstvectors.py CLIP

Plays CLIP (any file decodebin plays) through gpumotionest and prints, for
every frame, the number of 16x16 blocks and their most common vector in
pixels.  Needs the installed GstMotionVectors typelib and its Python
overrides (docs/getting-started.md).
"""

import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import Gst, GstMotionVectors as MV  # noqa: E402

import numpy as np  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} CLIP", file=sys.stderr)
        return 2
    Gst.init(None)
    pipeline = Gst.parse_launch(
        "filesrc name=src ! decodebin ! videoconvert ! gpumotionest ! "
        "appsink name=sink sync=false")
    pipeline.get_by_name("src").set_property("location", sys.argv[1])
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    frame = 0
    while (sample := sink.emit("pull-sample")) is not None:
        # the whole field, every shape as a (rows, cols) array of cells
        field = MV.buffer_get_motion_vector_field(sample.get_buffer())
        if not field.has_reference:
            print(f"frame {frame}: no reference")
        else:
            grid = field.grids[0]          # the 16x16 cells, (rows, cols)
            mv = np.stack([grid["mv_x"], grid["mv_y"]], -1).reshape(-1, 2)
            vals, counts = np.unique(mv, axis=0, return_counts=True)
            x, y = vals[counts.argmax()] / 4     # quarter pixels to pixels
            print(f"frame {frame}: {grid.shape[1]}x{grid.shape[0]} blocks, "
                  f"most common vector ({x:+g},{y:+g}) px on "
                  f"{counts.max()} blocks")
        frame += 1
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg is not None:
        print(f"error: {msg.parse_error()[0].message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
