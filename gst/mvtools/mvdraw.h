/* mvtools — small raster drawing helpers on mapped video frames.
 *
 * Every helper clips to the frame, so callers may pass coordinates far
 * outside it.  Colours are converted once (mv_painter_color) into the
 * frame's own components: R, G, B for RGB formats, Y, U, V for YUV ones
 * (planar, semi-planar or packed 4:2:2 alike), Y alone for grey, written
 * at each component's subsampled position.  No helper allocates.
 *
 * Components are 8 bits in a byte, or 9 to 16 bits in a little-endian
 * 16-bit word at the format's shift (P010: the top 10 bits, I420_10LE:
 * the low 10).  A colour stays 8 bits per component; a deep component
 * gets it widened to its depth by repeating its top bits below it
 * (v << (depth - 8) | v >> (16 - depth)), so that 0 and 255 become the
 * depth's black and full scale.  Blending reads the word's depth bits
 * and writes a clean word: bits outside the depth of a sample drawn on
 * are cleared, those of samples not drawn on are kept.
 */
#ifndef MV_DRAW_H
#define MV_DRAW_H

#include <gst/video/video.h>

G_BEGIN_DECLS

/* A colour in the frame's components (R,G,B or Y,U,V), 8 bits each. */
typedef struct {
  guint8 c[3];
} MvColor;

typedef struct {
  guint n_comp;                 /* components drawn: 3, or 1 for grey */
  guint8 *data[3];              /* first byte of each colour component */
  gint stride[3];               /* bytes per row of each component's plane */
  gint pstride[3];              /* bytes between horizontal samples */
  guint wsub[3], hsub[3];       /* log2 subsampling of each component */
  /* bits of each component: 8 (a byte), or 9..16 in a little-endian
   * 16-bit word, shifted left by shift (6 for P010, 0 for I420_10LE) */
  guint depth[3], shift[3];
  /* the area drawn on: every coordinate given to the helpers is relative
   * to (x0, y0), and they clip to width x height from there; the whole
   * frame unless mv_painter_restrict() narrowed it */
  gint x0, y0;
  gint width, height;
  gboolean is_yuv;
  /* RGB -> YUV conversion for this frame's colorimetry */
  gdouble kr, kb;
  gboolean full_range;
} MvPainter;

gboolean mv_painter_init (MvPainter * p, GstVideoFrame * frame);

/* Narrows @p to the rectangle of @width x @height pixels at (@x, @y) of
 * its current area (clipped to it): a view of stereo video, drawn as a
 * frame of its own. */
void mv_painter_restrict (MvPainter * p, gint x, gint y, gint width,
    gint height);

MvColor mv_painter_color (const MvPainter * p, guint8 r, guint8 g, guint8 b);

/* The 8-bit component value @v widened to @depth (8..16) bits: its top
 * bits repeated below it, 0 -> 0 and 255 -> 2^depth - 1. */
static inline guint
mv_widen (guint v, guint depth)
{
  return depth > 8 ? (v << (depth - 8)) | (v >> (16 - depth)) : v;
}

/* h in degrees [0, 360), s and v in [0, 1]; result in 0..255 */
void mv_hsv_to_rgb (gdouble h, gdouble s, gdouble v,
    guint8 * r, guint8 * g, guint8 * b);

/* Opaque square brush of (2 * radius + 1) pixels centred on (x, y). */
void mv_draw_dot (const MvPainter * p, gint x, gint y, gint radius,
    const MvColor * color);

/* Opaque line from (x0, y0) to (x1, y1), pixel centres at integers. */
void mv_draw_line (const MvPainter * p, gdouble x0, gdouble y0,
    gdouble x1, gdouble y1, gint radius, const MvColor * color);

/* Arrow from (x0, y0) to the tip (x1, y1): a 1-pixel line and head in
 * @color over a 3-pixel @outline. */
void mv_draw_arrow (const MvPainter * p, gdouble x0, gdouble y0,
    gdouble x1, gdouble y1, const MvColor * color, const MvColor * outline);

/* Blends @color over the rectangle [x, x + w) x [y, y + h) with weight
 * @alpha in 0..256 (256 = opaque).  Each component is blended once per
 * sample of its own (subsampled) plane. */
void mv_fill_rect (const MvPainter * p, gint x, gint y, gint w, gint h,
    const MvColor * color, guint alpha);

/* A colour wheel of radius @r centred on (cx, cy) with a dark rim: hue by
 * angle, and by radius the saturation (@value_by_radius FALSE, the flow
 * colouring) or the brightness (TRUE, the arrow colouring). */
void mv_draw_wheel (const MvPainter * p, gint cx, gint cy, gint r,
    gboolean value_by_radius, const MvColor * rim);

G_END_DECLS

#endif /* MV_DRAW_H */
