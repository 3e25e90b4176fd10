/* mvtools — raster drawing helpers; see mvdraw.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "mvdraw.h"

/* The byte offset of component @c's sample in its pixel.  GStreamer's
 * format table (1.22 at least) gives the V of P010, P012 and P016 a
 * poffset of 1, which counts 16-bit words where every other entry counts
 * bytes: V is the second word of each UV pair, 2 bytes in, and
 * GST_VIDEO_FRAME_COMP_DATA() points one byte short of it.  A 16-bit
 * sample's byte offset is even, so an odd one can only be such a count. */
static guint
word_poffset (const GstVideoFormatInfo * finfo, guint c)
{
  guint off = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);

  return off & 1 ? 2 * off : off;
}

/* Whether every sample of component @c, 2 bytes from @data on, lies in
 * its plane's memory.  The checks made before drawing counted the table's
 * offset, so the last word of a component moved by word_poffset() may
 * reach one byte further than they did. */
static gboolean
words_in_memory (GstVideoFrame * frame, guint c, const guint8 * data)
{
  guint plane = GST_VIDEO_FORMAT_INFO_PLANE (frame->info.finfo, c);
  const GstMapInfo *map = frame->meta ? &frame->map[plane] : &frame->map[0];
  gint64 w = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
  gint64 h = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
  gint64 stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, c);
  gint64 start, first, last;

  if (w < 1 || h < 1)
    return TRUE;
  if (!map->data || data < map->data || data > map->data + map->size)
    return FALSE;
  start = data - map->data;
  first = start + MIN (0, (h - 1) * stride);
  last = start + MAX (0, (h - 1) * stride)
      + (w - 1) * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c) + 2;
  return first >= 0 && last <= (gint64) map->size;
}

gboolean
mv_painter_init (MvPainter * p, GstVideoFrame * frame)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  guint i;

  /* Packed 4:2:2 needs nothing of its own: Y, U and V are components with
   * their own offsets, pixel strides (2, 4, 4) and horizontal subsampling,
   * which put_pixel() and mv_fill_rect() already honour.  Grey has one.
   * So does semi-planar 16-bit (P010): U and V are components of one
   * plane, 2 bytes apart, with a pixel stride of 4. */
  p->n_comp = GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo) ? 1 : 3;
  if (GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo) < p->n_comp)
    return FALSE;
  for (i = 0; i < 3; i++) {
    if (i >= p->n_comp) {
      p->data[i] = NULL;
      p->stride[i] = p->pstride[i] = 0;
      p->wsub[i] = p->hsub[i] = 0;
      p->depth[i] = 8;
      p->shift[i] = 0;
      continue;
    }
    p->data[i] = GST_VIDEO_FRAME_COMP_DATA (frame, i);
    p->stride[i] = GST_VIDEO_FRAME_COMP_STRIDE (frame, i);
    p->pstride[i] = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, i);
    p->wsub[i] = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, i);
    p->hsub[i] = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, i);
    p->depth[i] = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, i);
    p->shift[i] = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, i);
    if (p->depth[i] == 8)
      continue;
    /* A deep component must sit whole in a little-endian 16-bit word of
     * its own: that rules out big-endian words and the packed 10-bit
     * layouts (v210, Y410, 10-bit RGB), whose samples share 32-bit
     * words; and any other depth (RGB16's 5 and 6 bits). */
    if (!GST_VIDEO_FORMAT_INFO_IS_LE (finfo) || p->depth[i] < 9
        || p->depth[i] > 16 || p->shift[i] + p->depth[i] > 16
        || p->pstride[i] < 2)
      return FALSE;
    if (word_poffset (finfo, i) != GST_VIDEO_FORMAT_INFO_POFFSET (finfo, i)) {
      p->data[i] = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame,
          GST_VIDEO_FORMAT_INFO_PLANE (finfo, i)) + word_poffset (finfo, i);
      if (!words_in_memory (frame, i, p->data[i]))
        return FALSE;
    }
  }
  p->x0 = p->y0 = 0;
  p->width = GST_VIDEO_FRAME_WIDTH (frame);
  p->height = GST_VIDEO_FRAME_HEIGHT (frame);
  /* grey takes the Y of a colour */
  p->is_yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo) || p->n_comp == 1;
  if (!gst_video_color_matrix_get_Kr_Kb (frame->info.colorimetry.matrix,
          &p->kr, &p->kb)) {
    p->kr = 0.299;              /* BT.601 when the caps do not say */
    p->kb = 0.114;
  }
  p->full_range =
      frame->info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
  return TRUE;
}

void
mv_painter_restrict (MvPainter * p, gint x, gint y, gint width, gint height)
{
  gint x1 = CLAMP (x + MAX (width, 0), 0, p->width);
  gint y1 = CLAMP (y + MAX (height, 0), 0, p->height);

  x = CLAMP (x, 0, p->width);
  y = CLAMP (y, 0, p->height);
  p->x0 += x;
  p->y0 += y;
  p->width = x1 - x;
  p->height = y1 - y;
}

static guint8
clamp_u8 (gdouble v)
{
  return (guint8) CLAMP (lround (v), 0, 255);
}

MvColor
mv_painter_color (const MvPainter * p, guint8 r, guint8 g, guint8 b)
{
  MvColor col;
  gdouble rf, gf, bf, y, cb, cr;

  if (!p->is_yuv) {
    col.c[0] = r;
    col.c[1] = g;
    col.c[2] = b;
    return col;
  }
  rf = r / 255.0;
  gf = g / 255.0;
  bf = b / 255.0;
  y = p->kr * rf + (1.0 - p->kr - p->kb) * gf + p->kb * bf;
  cb = (bf - y) / (2.0 * (1.0 - p->kb));
  cr = (rf - y) / (2.0 * (1.0 - p->kr));
  if (p->full_range) {
    col.c[0] = clamp_u8 (255.0 * y);
    col.c[1] = clamp_u8 (128.0 + 255.0 * cb);
    col.c[2] = clamp_u8 (128.0 + 255.0 * cr);
  } else {
    col.c[0] = clamp_u8 (16.0 + 219.0 * y);
    col.c[1] = clamp_u8 (128.0 + 224.0 * cb);
    col.c[2] = clamp_u8 (128.0 + 224.0 * cr);
  }
  return col;
}

void
mv_hsv_to_rgb (gdouble h, gdouble s, gdouble v, guint8 * r, guint8 * g,
    guint8 * b)
{
  gdouble c = v * s, hp = fmod (h, 360.0) / 60.0, x, rf = 0, gf = 0, bf = 0;
  gdouble m = v - c;

  if (hp < 0)
    hp += 6.0;
  x = c * (1.0 - fabs (fmod (hp, 2.0) - 1.0));
  switch ((gint) hp) {
    case 0: rf = c; gf = x; break;
    case 1: rf = x; gf = c; break;
    case 2: gf = c; bf = x; break;
    case 3: gf = x; bf = c; break;
    case 4: rf = x; bf = c; break;
    default: rf = c; bf = x; break;
  }
  *r = clamp_u8 (255.0 * (rf + m));
  *g = clamp_u8 (255.0 * (gf + m));
  *b = clamp_u8 (255.0 * (bf + m));
}

/* Component @i's sample at @s, @v: a byte, or @v's depth bits at the
 * component's shift in a little-endian word (the bits outside cleared). */
static inline void
put_sample (const MvPainter * p, guint i, guint8 * s, guint v)
{
  if (p->depth[i] == 8)
    *s = (guint8) v;
  else
    GST_WRITE_UINT16_LE (s, v << p->shift[i]);
}

/* Component @i's sample at @s, in 0 .. 2^depth - 1. */
static inline guint
get_sample (const MvPainter * p, guint i, const guint8 * s)
{
  if (p->depth[i] == 8)
    return *s;
  return (GST_READ_UINT16_LE (s) >> p->shift[i]) & ((1u << p->depth[i]) - 1);
}

/* One opaque pixel at (@x, @y) of the area; the caller has checked the
 * bounds. */
static inline void
put_pixel (const MvPainter * p, gint x, gint y, const MvColor * color)
{
  guint i;

  x += p->x0;
  y += p->y0;
  for (i = 0; i < p->n_comp; i++)
    put_sample (p, i, p->data[i] + (y >> p->hsub[i]) * p->stride[i]
        + (x >> p->wsub[i]) * p->pstride[i],
        mv_widen (color->c[i], p->depth[i]));
}

void
mv_draw_dot (const MvPainter * p, gint x, gint y, gint radius,
    const MvColor * color)
{
  gint x0 = MAX (x - radius, 0), x1 = MIN (x + radius, p->width - 1);
  gint y0 = MAX (y - radius, 0), y1 = MIN (y + radius, p->height - 1);
  gint i, j;

  for (j = y0; j <= y1; j++)
    for (i = x0; i <= x1; i++)
      put_pixel (p, i, j, color);
}

/* Liang-Barsky: clips the segment to [xmin, xmax] x [ymin, ymax].
 * Returns FALSE when nothing is left. */
static gboolean
clip_segment (gdouble * x0, gdouble * y0, gdouble * x1, gdouble * y1,
    gdouble xmin, gdouble ymin, gdouble xmax, gdouble ymax)
{
  gdouble dx = *x1 - *x0, dy = *y1 - *y0, t0 = 0.0, t1 = 1.0;
  gdouble pp[4] = { -dx, dx, -dy, dy };
  gdouble qq[4] = { *x0 - xmin, xmax - *x0, *y0 - ymin, ymax - *y0 };
  gint k;

  /* an end that is not a number, or ends so far apart that their distance
   * is not one (a vector scaled by a large gain), leaves no segment to
   * draw: the walk would cast NaN to int */
  if (!isfinite (dx) || !isfinite (dy))
    return FALSE;
  for (k = 0; k < 4; k++) {
    if (pp[k] == 0.0) {
      if (qq[k] < 0.0)
        return FALSE;
    } else {
      gdouble t = qq[k] / pp[k];
      if (pp[k] < 0.0) {
        if (t > t1)
          return FALSE;
        t0 = MAX (t0, t);
      } else {
        if (t < t0)
          return FALSE;
        t1 = MIN (t1, t);
      }
    }
  }
  *x1 = *x0 + t1 * dx;
  *y1 = *y0 + t1 * dy;
  *x0 = *x0 + t0 * dx;
  *y0 = *y0 + t0 * dy;
  return TRUE;
}

void
mv_draw_line (const MvPainter * p, gdouble x0, gdouble y0, gdouble x1,
    gdouble y1, gint radius, const MvColor * color)
{
  gdouble dx, dy;
  gint n, k;

  /* Clip to the frame grown by the brush, so the walk below is bounded by
   * the frame size however long the line is. */
  if (!clip_segment (&x0, &y0, &x1, &y1, -radius - 0.5, -radius - 0.5,
          p->width - 0.5 + radius, p->height - 0.5 + radius))
    return;
  dx = x1 - x0;
  dy = y1 - y0;
  n = (gint) ceil (MAX (fabs (dx), fabs (dy)));
  for (k = 0; k <= n; k++) {
    gdouble t = n ? (gdouble) k / n : 0.0;
    mv_draw_dot (p, (gint) lround (x0 + t * dx), (gint) lround (y0 + t * dy),
        radius, color);
  }
}

void
mv_draw_arrow (const MvPainter * p, gdouble x0, gdouble y0, gdouble x1,
    gdouble y1, const MvColor * color, const MvColor * outline)
{
  gdouble dx = x1 - x0, dy = y1 - y0, len = hypot (dx, dy);
  gdouble head, ux, uy, hx[2], hy[2];
  gint pass, k;

  if (!isfinite (len) || len < 1e-6)
    return;
  /* Head: two barbs about 28 degrees off the shaft, a third of the arrow
   * long but at least 2 and at most 6 pixels. */
  head = CLAMP (len / 3.0, 2.0, 6.0);
  ux = dx / len;
  uy = dy / len;
  for (k = 0; k < 2; k++) {
    gdouble s = k ? 0.5 : -0.5;     /* sin of the barb angle, signed */
    gdouble c = 0.866;
    hx[k] = x1 - head * (c * ux - s * uy);
    hy[k] = y1 - head * (s * ux + c * uy);
  }
  for (pass = 0; pass < 2; pass++) {
    const MvColor *col = pass ? color : outline;
    gint radius = pass ? 0 : 1;

    mv_draw_line (p, x0, y0, x1, y1, radius, col);
    for (k = 0; k < 2; k++)
      mv_draw_line (p, x1, y1, hx[k], hy[k], radius, col);
  }
}

void
mv_fill_rect (const MvPainter * p, gint x, gint y, gint w, gint h,
    const MvColor * color, guint alpha)
{
  gint xe = MIN (x + w, p->width), ye = MIN (y + h, p->height);
  guint i;

  x = MAX (x, 0);
  y = MAX (y, 0);
  if (x >= xe || y >= ye || alpha == 0)
    return;
  alpha = MIN (alpha, 256);
  /* to frame pixels: the subsampled samples below are the frame's */
  x += p->x0;
  xe += p->x0;
  y += p->y0;
  ye += p->y0;
  for (i = 0; i < p->n_comp; i++) {
    /* The component samples whose pixel footprint starts inside the
     * rectangle (rounded outwards for partially covered samples). */
    gint cx0 = x >> p->wsub[i], cx1 = (xe - 1) >> p->wsub[i];
    gint cy0 = y >> p->hsub[i], cy1 = (ye - 1) >> p->hsub[i];
    /* blended at the component's own depth: a 16-bit sample times 256
     * still fits a guint */
    guint v = mv_widen (color->c[i], p->depth[i]);
    gint cx, cy;

    for (cy = cy0; cy <= cy1; cy++) {
      guint8 *row = p->data[i] + cy * p->stride[i];
      for (cx = cx0; cx <= cx1; cx++) {
        guint8 *s = row + cx * p->pstride[i];
        put_sample (p, i, s,
            (get_sample (p, i, s) * (256 - alpha) + v * alpha + 128) >> 8);
      }
    }
  }
}

void
mv_draw_wheel (const MvPainter * p, gint cx, gint cy, gint r,
    gboolean value_by_radius, const MvColor * rim)
{
  gint i, j;

  for (j = -r - 1; j <= r + 1; j++) {
    for (i = -r - 1; i <= r + 1; i++) {
      gint x = cx + i, y = cy + j;
      gdouble d = hypot (i, j);

      if (x < 0 || y < 0 || x >= p->width || y >= p->height || d > r + 1.0)
        continue;
      if (d > r - 0.5) {
        put_pixel (p, x, y, rim);
      } else {
        guint8 rr, gg, bb;
        MvColor col;
        /* The overlay's colouring: hue = direction of motion (image y grows
         * downwards), saturation or brightness = magnitude. */
        gdouble hue = atan2 (j, i) * 180.0 / G_PI, m = d / r;
        if (hue < 0)
          hue += 360.0;
        if (value_by_radius)
          mv_hsv_to_rgb (hue, 0.75, 0.35 + 0.65 * m, &rr, &gg, &bb);
        else
          mv_hsv_to_rgb (hue, m, 1.0, &rr, &gg, &bb);
        col = mv_painter_color (p, rr, gg, bb);
        put_pixel (p, x, y, &col);
      }
    }
  }
}
