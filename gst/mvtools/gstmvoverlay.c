/* mvtools — mvoverlay: draws each buffer's GstMotionVectorMeta on the
 * video, in place.
 *
 * Geometry: a cell (c, r) of a w x h shape covers analysis pixels
 * (c*w .. c*w+w-1, r*h .. r*h+h-1); on a frame of fw x fh pixels that is
 * scaled by fw / analysis_width across and fh / analysis_height down.  The
 * meta's vectors are quarter-pel at the meta's width x height and point
 * from the block to its match in the reference (the previous frame), so the
 * block's content moved by -mv / 4 pixels.  An arrow therefore runs from
 * the block centre to centre - mv / 4 * scale (direction=forward, the
 * default: the motion as seen) or to centre + mv / 4 * scale
 * (direction=backward: the stored vector), converted to frame pixels by
 * fw / width and fh / height.
 *
 * With partition=chosen and a meta carrying a partition decision
 * (gst_motion_vector_meta_get_modes()), each macroblock is drawn with the
 * blocks of the shape it chose, each block's cell from that shape's grid,
 * and the blocks' outlines on top.  When the meta also says which
 * reference each partition chose (chosen_refs, a buffer searched against
 * several references), each block's cell is taken from the field of that
 * reference instead (mvchosen.h), and color-mode=reference fills each
 * block in the colour of its reference (mvdrawrefs.h).
 *
 * A buffer may carry several fields, one per reference frame; the one
 * drawn is the field against the reference property's distance (-1, the
 * previous frame, by default), else the buffer's first, as an absent
 * shape falls back to the first present one.
 *
 * Stereo video (the caps' multiview-mode, docs/stereo.md) has fields of
 * two views.  A side-by-side or top-bottom frame holds both: each view's
 * field is drawn in the view's half as if that half were a frame of its
 * own (mvviews.h, mv_painter_restrict()), normalised, gridded and with
 * its legend there.  A frame-by-frame buffer is one view.  The view
 * property draws one view only; reference=0 draws the second view's
 * disparity (its inter-view field).
 *
 * Buffers without a meta, or whose meta is inconsistent
 * (gst_motion_vector_meta_is_valid()), are left untouched.  The per-frame
 * work makes no allocation: two passes over the blocks drawn (normalisation,
 * drawing), and with a decision a third for the outlines.
 *
 * The frame is mapped here rather than by GstVideoFilter, so that a buffer
 * whose GstVideoMeta (strides, offsets) does not fit its memory is refused
 * with an error instead of being drawn into: GstVideoFrame takes the meta's
 * layout as it is, and the drawing trusts the frame.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstmvoverlay.h"
#include "mvdraw.h"
#include "mvdrawsummary.h"
#include "mvchosen.h"
#include "mvdrawrefs.h"
#include "mvviews.h"
#include "gstvideolayout.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_overlay_debug);
#define GST_CAT_DEFAULT gst_mv_overlay_debug

#define DEFAULT_MODE GST_MV_OVERLAY_MODE_VECTORS
#define DEFAULT_PARTITION GST_MOTION_VECTOR_PARTITION_16X16
#define DEFAULT_MIN_MAGNITUDE 0.5
#define DEFAULT_SCALE 1.0
#define DEFAULT_COLOR_MODE GST_MV_OVERLAY_COLOR_DIRECTION
#define DEFAULT_GRID FALSE
#define DEFAULT_LEGEND FALSE
#define DEFAULT_OPACITY 0.5
#define DEFAULT_DIRECTION GST_MV_OVERLAY_DIRECTION_FORWARD
#define DEFAULT_MAX_MAGNITUDE 0.0
#define DEFAULT_SUMMARY FALSE
#define DEFAULT_REFERENCE -1
#define DEFAULT_VIEW -1

#define ARROW_SATURATION 0.75

enum
{
  PROP_0,
  PROP_MODE,
  PROP_PARTITION,
  PROP_MIN_MAGNITUDE,
  PROP_SCALE,
  PROP_COLOR_MODE,
  PROP_GRID,
  PROP_LEGEND,
  PROP_OPACITY,
  PROP_DIRECTION,
  PROP_MAX_MAGNITUDE,
  PROP_SUMMARY,
  PROP_REFERENCE,
  PROP_VIEW,
};

struct _GstMvOverlay
{
  GstVideoFilter parent;

  /* properties, under the object lock */
  GstMvOverlayMode mode;
  gint partition;               /* a shape or GST_MV_OVERLAY_PARTITION_CHOSEN */
  gdouble min_magnitude;        /* frame pixels */
  gdouble scale;
  GstMvOverlayColorMode color_mode;
  gboolean grid;
  gboolean legend;
  gdouble opacity;
  GstMvOverlayDirection direction;
  gdouble max_magnitude;        /* frame pixels; 0 = the frame's largest */
  gboolean summary;
  gint reference;               /* ref_distance to draw; 0 = the first */
  gint view;                    /* the view to draw, -1 each in its place */

  /* streaming state */
  gboolean warned_invalid;      /* an inconsistent meta was reported */
};

/* One frame's drawing settings, copied from the properties. */
typedef struct
{
  GstMvOverlayMode mode;
  gint partition;
  gdouble min_magnitude, scale, opacity, max_magnitude;
  GstMvOverlayColorMode color_mode;
  GstMvOverlayDirection direction;
  gboolean grid, legend, summary;
  gint reference;
  gint view;
} Settings;

/* Every format gpumotionest takes, and 24-bit RGB.  The deep ones (9 to
 * 16 bits in little-endian words) are drawn at their own depth
 * (mvdraw.h). */
#define VIDEO_FORMATS "{ I420, YV12, NV12, NV21, Y42B, Y444, GRAY8, YUY2, " \
    "UYVY, YVYU, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR, " \
    "P010_10LE, P012_LE, P016_LE, I420_10LE, I420_12LE, I422_10LE, " \
    "I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE, GRAY16_LE }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (VIDEO_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (VIDEO_FORMATS)));

G_DEFINE_TYPE (GstMvOverlay, gst_mv_overlay, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (mvoverlay, "mvoverlay", GST_RANK_NONE,
    GST_TYPE_MV_OVERLAY);

static GType
gst_mv_overlay_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MV_OVERLAY_MODE_VECTORS, "Arrows along the motion of each block",
        "vectors"},
    {GST_MV_OVERLAY_MODE_MVD, "Arrows along the MV difference (mv - pred)",
        "mvd"},
    {GST_MV_OVERLAY_MODE_COST, "Heat colour by matching cost", "cost"},
    {GST_MV_OVERLAY_MODE_FLOW, "Blocks filled with their motion colour",
        "flow"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMvOverlayMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_mv_overlay_direction_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MV_OVERLAY_DIRECTION_FORWARD,
        "Along the motion of the content (-mv): from where it was in the "
          "reference to where it is now", "forward"},
    {GST_MV_OVERLAY_DIRECTION_BACKWARD,
        "Along the stored vector (+mv): from the block to its match in the "
          "reference", "backward"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMvOverlayDirection", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_mv_overlay_color_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MV_OVERLAY_COLOR_DIRECTION,
        "Hue by direction, brightness by magnitude", "direction"},
    {GST_MV_OVERLAY_COLOR_SOLID, "One colour for every arrow", "solid"},
    {GST_MV_OVERLAY_COLOR_REFERENCE,
          "Each block filled, and its arrow coloured, by the reference it "
          "chose (the meta's reference decision), else as direction",
        "reference"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMvOverlayColorMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* The partition property's values: the seven shapes, as the meta library
 * names them, and "chosen". */
static GType
gst_mv_overlay_partition_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GEnumClass *shapes =
        g_type_class_ref (gst_motion_vector_partition_get_type ());
    /* registered once and kept for the life of the process */
    GEnumValue *values = g_new0 (GEnumValue, shapes->n_values + 2);
    guint i;

    for (i = 0; i < shapes->n_values; i++)
      values[i] = shapes->values[i];
    values[i] = (GEnumValue) {
    GST_MV_OVERLAY_PARTITION_CHOSEN,
          "Each macroblock's chosen partition (the meta's partition "
          "decision), with its blocks' outlines", "chosen"};
    /* enum classes of registered static types are never freed, and the
     * strings copied above belong to the library */
    g_type_class_unref (shapes);
    g_once_init_leave (&type,
        g_enum_register_static ("GstMvOverlayPartition", values));
  }
  return type;
}

/* The field of @view to draw: the one against @reference frames away (0:
 * its inter-view field, the disparity), else the view's first.  NULL
 * without any.  A buffer whose fields are all of view 0 (mono video)
 * draws, for every @reference, what it drew before there were views. */
static GstMotionVectorMeta *
pick_field (GstBuffer * buf, guint view, gint reference)
{
  GstMotionVectorMeta *meta =
      gst_buffer_get_motion_vector_meta_for_view (buf, view, reference);
  gpointer state = NULL;
  GstMeta *m;

  while (!meta && (m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_MOTION_VECTOR_META_API_TYPE)))
    if (((GstMotionVectorMeta *) m)->view == view)
      meta = (GstMotionVectorMeta *) m;
  return meta;
}

/* The grid to draw: the requested shape, else the first present one. */
static const GstMotionVectorCell *
pick_grid (const GstMotionVectorMeta * meta, gint want,
    GstMotionVectorPartition * got, guint * cols, guint * rows)
{
  const GstMotionVectorCell *cells = NULL;
  guint p;

  if ((guint) want < GST_MOTION_VECTOR_PARTITION_COUNT)
    cells = gst_motion_vector_meta_get_grid (meta, want, cols, rows);
  if (cells) {
    *got = want;
    return cells;
  }
  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    cells = gst_motion_vector_meta_get_grid (meta, p, cols, rows);
    if (cells) {
      *got = p;
      return cells;
    }
  }
  return NULL;
}

/* A frame coordinate as an integer, rounded down.  Clamped far outside any
 * frame, so that sums of coordinates and sizes in the drawing helpers
 * cannot overflow whatever the ratio of frame to analysis size. */
static gint
to_px (gdouble v)
{
  return (gint) CLAMP (floor (v), -(gdouble) (1 << 28), (gdouble) (1 << 28));
}

/* Hue in degrees of the direction (dx, dy), image y downwards. */
static gdouble
direction_hue (gdouble dx, gdouble dy)
{
  gdouble hue = atan2 (dy, dx) * 180.0 / G_PI;
  return hue < 0.0 ? hue + 360.0 : hue;
}

/* Heat colour of a normalised cost t in [0, 1]: black -> red -> yellow ->
 * white as t rises. */
static MvColor
heat_color (const MvPainter * p, gdouble t)
{
  guint8 red = (guint8) lround (255.0 * CLAMP (3.0 * t, 0.0, 1.0));
  guint8 green = (guint8) lround (255.0 * CLAMP (3.0 * t - 1.0, 0.0, 1.0));
  guint8 blue = (guint8) lround (255.0 * CLAMP (3.0 * t - 2.0, 0.0, 1.0));

  return mv_painter_color (p, red, green, blue);
}

/* What every block of a frame is drawn with. */
typedef struct
{
  const Settings *s;
  MvPainter *painter;
  gdouble sx_blk, sy_blk;       /* analysis pixels -> frame pixels */
  gdouble sx_vec, sy_vec;       /* quarter-pel at the meta's size -> frame */
  gdouble max_mag, sign;
  guint32 max_cost;
  guint alpha;
  MvColor dark, solid;
  /* with a reference decision: each block's cell is that of the field of
   * its chosen reference, and with ref_colors its colour that
   * reference's */
  const MvChosen *chosen;
  gboolean ref_colors;
} DrawCtx;

/* The displacement drawn for @cell (vector or MVD, in quarter pixels). */
static void
cell_vector (const Settings * s, const GstMotionVectorCell * cell, gint * vx,
    gint * vy)
{
  gboolean use_mvd = s->mode == GST_MV_OVERLAY_MODE_MVD;

  *vx = use_mvd ? cell->mvd_x : cell->mv_x;
  *vy = use_mvd ? cell->mvd_y : cell->mv_y;
}

/* Pass 1 for one block: the frame's largest magnitude and cost. */
static void
normalise_block (DrawCtx * d, const GstMotionVectorCell * cell)
{
  gint vx, vy;

  cell_vector (d->s, cell, &vx, &vy);
  d->max_mag = MAX (d->max_mag, hypot (vx * d->sx_vec, vy * d->sy_vec));
  d->max_cost = MAX (d->max_cost, cell->cost);
}

/* The colour of the reference @ref frames away. */
static MvColor
reference_color (const MvPainter * p, gint ref)
{
  guint8 red, green, blue;

  mv_reference_rgb (ref, &red, &green, &blue);
  return mv_painter_color (p, red, green, blue);
}

/* The rectangle of cell (@c, @r) of @shape in frame pixels. */
static void
block_rect (const DrawCtx * d, GstMotionVectorPartition shape, guint c,
    guint r, gint * x0, gint * y0, gint * x1, gint * y1)
{
  guint pw = gst_motion_vector_partition_width (shape);
  guint ph = gst_motion_vector_partition_height (shape);

  *x0 = to_px (c * pw * d->sx_blk);
  *x1 = to_px ((c + 1) * pw * d->sx_blk);
  *y0 = to_px (r * ph * d->sy_blk);
  *y1 = to_px ((r + 1) * ph * d->sy_blk);
}

/* Before the arrows, with color-mode=reference: cell (@c, @r) of @shape
 * filled in the colour of its reference @ref, so that a still block
 * (no arrow) shows its reference too. */
static void
ref_fill_block (const DrawCtx * d, GstMotionVectorPartition shape, guint c,
    guint r, gint ref)
{
  MvColor col = reference_color (d->painter, ref);
  gint x0, y0, x1, y1;

  block_rect (d, shape, c, r, &x0, &y0, &x1, &y1);
  mv_fill_rect (d->painter, x0, y0, x1 - x0, y1 - y0, &col, d->alpha);
}

/* Pass 2 for one block: cell (@c, @r) of @shape's grid, which chose the
 * reference @ref (0 without a reference decision). */
static void
draw_block (const DrawCtx * d, GstMotionVectorPartition shape, guint c,
    guint r, const GstMotionVectorCell * cell, gint ref)
{
  const Settings *s = d->s;
  MvPainter *painter = d->painter;
  guint pw = gst_motion_vector_partition_width (shape);
  guint ph = gst_motion_vector_partition_height (shape);
  gint x0 = to_px (c * pw * d->sx_blk);
  gint x1 = to_px ((c + 1) * pw * d->sx_blk);
  gint y0 = to_px (r * ph * d->sy_blk);
  gint y1 = to_px ((r + 1) * ph * d->sy_blk);
  gdouble cx = (c * pw + pw / 2.0) * d->sx_blk;
  gdouble cy = (r * ph + ph / 2.0) * d->sy_blk;
  gint vx, vy;
  gdouble dx, dy, mag, m;
  guint8 red, green, blue;
  MvColor col;

  cell_vector (s, cell, &vx, &vy);
  /* the drawn displacement in frame pixels */
  dx = d->sign * vx * d->sx_vec;
  dy = d->sign * vy * d->sy_vec;
  mag = hypot (dx, dy);
  m = d->max_mag > 0.0 ? MIN (mag / d->max_mag, 1.0) : 0.0;

  switch (s->mode) {
    case GST_MV_OVERLAY_MODE_VECTORS:
    case GST_MV_OVERLAY_MODE_MVD:
      if (mag < s->min_magnitude || mag == 0.0)
        break;
      if (d->ref_colors) {
        col = reference_color (painter, ref);
      } else if (s->color_mode == GST_MV_OVERLAY_COLOR_SOLID) {
        col = d->solid;
      } else {
        /* a little desaturated, so even the darkest hue (blue) stands
         * out against the dark outline */
        mv_hsv_to_rgb (direction_hue (dx, dy), ARROW_SATURATION,
            0.35 + 0.65 * m, &red, &green, &blue);
        col = mv_painter_color (painter, red, green, blue);
      }
      mv_draw_arrow (painter, cx, cy, cx + dx * s->scale, cy + dy * s->scale,
          &col, &d->dark);
      break;
    case GST_MV_OVERLAY_MODE_COST:
      col = heat_color (painter,
          d->max_cost ? (gdouble) cell->cost / d->max_cost : 0.0);
      mv_fill_rect (painter, x0, y0, x1 - x0, y1 - y0, &col, d->alpha);
      break;
    case GST_MV_OVERLAY_MODE_FLOW:
      /* hue by direction, saturation by magnitude: still = white */
      mv_hsv_to_rgb (direction_hue (dx, dy), CLAMP (m, 0.0, 1.0), 1.0,
          &red, &green, &blue);
      col = mv_painter_color (painter, red, green, blue);
      mv_fill_rect (painter, x0, y0, x1 - x0, y1 - y0, &col, d->alpha);
      break;
  }
}

/* The outline of cell (@c, @r) of @shape: its top and left edges, dark,
 * half transparent, one pixel wide, so that neighbouring blocks never
 * blend a pixel twice. */
static void
outline_block (const DrawCtx * d, GstMotionVectorPartition shape, guint c,
    guint r)
{
  guint pw = gst_motion_vector_partition_width (shape);
  guint ph = gst_motion_vector_partition_height (shape);
  gint x0 = to_px (c * pw * d->sx_blk);
  gint x1 = to_px ((c + 1) * pw * d->sx_blk);
  gint y0 = to_px (r * ph * d->sy_blk);
  gint y1 = to_px ((r + 1) * ph * d->sy_blk);

  mv_fill_rect (d->painter, x0, y0, MAX (x1 - x0, 1), 1, &d->dark, 128);
  if (y1 - y0 > 1)
    mv_fill_rect (d->painter, x0, y0 + 1, 1, y1 - y0 - 1, &d->dark, 128);
}

typedef enum
{
  PASS_NORMALISE,
  PASS_REF_FILL,
  PASS_DRAW,
  PASS_OUTLINE,
} BlockPass;

/* Pass @pass over cell (@c, @r) of @shape, whose cell in the field drawn
 * is @own; with a reference decision the cell of the field of the
 * reference it chose instead. */
static void
visit_block (DrawCtx * d, BlockPass pass, GstMotionVectorPartition shape,
    guint c, guint r, const GstMotionVectorCell * own)
{
  const GstMotionVectorCell *cell = own;
  gint ref = 0;

  if (d->chosen && pass != PASS_OUTLINE) {
    ref = mv_chosen_ref (d->chosen, shape, c, r);
    cell = mv_chosen_cell (d->chosen, shape, c, r);
  }
  switch (pass) {
    case PASS_NORMALISE:
      normalise_block (d, cell);
      break;
    case PASS_REF_FILL:
      ref_fill_block (d, shape, c, r, ref);
      break;
    case PASS_DRAW:
      draw_block (d, shape, c, r, cell, ref);
      break;
    case PASS_OUTLINE:
      outline_block (d, shape, c, r);
      break;
  }
}

/* One pass over every cell of one shape's grid, @cells of @cols x @rows,
 * in raster order. */
static void
grid_pass (DrawCtx * d, const GstMotionVectorCell * cells,
    GstMotionVectorPartition shape, guint cols, guint rows, BlockPass pass)
{
  guint c, r;

  for (r = 0; r < rows; r++)
    for (c = 0; c < cols; c++)
      visit_block (d, pass, shape, c, r, &cells[(gsize) r * cols + c]);
}

/* One pass over the blocks of the partition each macroblock chose
 * (@modes, @mb_cols x @mb_rows): macroblocks in raster order, blocks in
 * raster order inside each.  @grids[p] is shape p's grid, present for
 * every shape a mode names. */
static void
chosen_pass (DrawCtx * d, const GstMotionVectorCell * const *grids,
    const guint8 * modes, guint mb_cols, guint mb_rows, BlockPass pass)
{
  guint mx, my, c, r;

  for (my = 0; my < mb_rows; my++) {
    for (mx = 0; mx < mb_cols; mx++) {
      GstMotionVectorPartition shape = modes[(gsize) my * mb_cols + mx];
      guint across = 16 / gst_motion_vector_partition_width (shape);
      guint down = 16 / gst_motion_vector_partition_height (shape);
      guint cols = gst_motion_vector_grid_cols (shape, mb_cols);

      for (r = my * down; r < (my + 1) * down; r++)
        for (c = mx * across; c < (mx + 1) * across; c++)
          visit_block (d, pass, shape, c, r,
              &grids[shape][(gsize) r * cols + c]);
    }
  }
}

/* Draws field @meta of @buf with @settings on the area of @area, a
 * frame of its own (the whole frame, or a view of stereo video). */
static void
draw_field (GstMvOverlay * self, const Settings * settings,
    const MvPainter * area, GstBuffer * buf, GstMotionVectorMeta * meta)
{
  const GstMotionVectorCell *cells = NULL;
  const GstMotionVectorCell *grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  const guint8 *modes = NULL;
  GstMotionVectorPartition shape = GST_MOTION_VECTOR_PARTITION_16X16;
  const Settings s = *settings;
  MvPainter painter = *area;
  MvColor col_legend;
  MvChosen chosen;
  const gchar *problem;
  DrawCtx d;
  guint cols = 0, rows = 0, mb_cols = 0, mb_rows = 0, c, r, pw, ph, p;
  gdouble fw, fh;

  /* Every division and index below relies on the meta's fields agreeing
   * with its data (non-zero sizes, grids matching the cells). */
  if (!gst_motion_vector_meta_is_valid (meta)) {
    GST_WARNING_OBJECT (self, "inconsistent motion-vector meta (frame %ux%u, "
        "analysis %ux%u, partitions 0x%x), not drawn", meta->width,
        meta->height, meta->analysis_width, meta->analysis_height,
        (guint) meta->partitions);
    if (!self->warned_invalid) {
      self->warned_invalid = TRUE;
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("Not drawing frames whose motion-vector meta is inconsistent."),
          ("frame %ux%u, analysis %ux%u, partitions 0x%x", meta->width,
              meta->height, meta->analysis_width, meta->analysis_height,
              (guint) meta->partitions));
    }
    return;
  }

  /* partition=chosen: each macroblock's chosen partition, when the meta
   * carries a decision; otherwise one grid as for any absent shape. */
  if (s.partition == GST_MV_OVERLAY_PARTITION_CHOSEN)
    modes = gst_motion_vector_meta_get_modes (meta, &mb_cols, &mb_rows);
  if (modes) {
    /* every mode names a present shape: its grid is not NULL */
    for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      grids[p] = gst_motion_vector_meta_get_grid (meta, p, NULL, NULL);
  } else {
    cells = pick_grid (meta, s.partition, &shape, &cols, &rows);
    if (!cells)
      return;
  }

  pw = gst_motion_vector_partition_width (shape);
  ph = gst_motion_vector_partition_height (shape);
  fw = painter.width;
  fh = painter.height;
  d.s = &s;
  d.painter = &painter;
  d.sx_blk = fw / meta->analysis_width;
  d.sy_blk = fh / meta->analysis_height;
  d.sx_vec = fw / meta->width / 4.0;
  d.sy_vec = fh / meta->height / 4.0;
  d.max_mag = 0.0;
  d.max_cost = 0;
  d.alpha = (guint) lround (CLAMP (s.opacity, 0.0, 1.0) * 256.0);

  /* The reference each block chose, where it matters: the vectors of
   * partition=chosen, the colours of color-mode=reference.  Without it
   * (or when it names a field the buffer lacks) both draw as they would
   * on a buffer searched against one reference. */
  d.chosen = NULL;
  if ((modes || s.color_mode == GST_MV_OVERLAY_COLOR_REFERENCE)
      && (meta->chosen_refs
          || (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS))) {
    if (mv_chosen_init (&chosen, buf, meta, &problem))
      d.chosen = &chosen;
    else
      GST_WARNING_OBJECT (self, "reference decision not drawn: %s", problem);
  }
  d.ref_colors = d.chosen && s.color_mode == GST_MV_OVERLAY_COLOR_REFERENCE
      && (s.mode == GST_MV_OVERLAY_MODE_VECTORS
      || s.mode == GST_MV_OVERLAY_MODE_MVD);

  /* Pass 1: per-frame normalisation of magnitude and cost, over the blocks
   * drawn. */
  if (modes)
    chosen_pass (&d, grids, modes, mb_cols, mb_rows, PASS_NORMALISE);
  else
    grid_pass (&d, cells, shape, cols, rows, PASS_NORMALISE);
  /* A fixed normaliser keeps colours steady from frame to frame. */
  if (s.max_magnitude > 0.0)
    d.max_mag = s.max_magnitude;
  /* forward: the content's motion, the opposite of the stored vector */
  d.sign = s.direction == GST_MV_OVERLAY_DIRECTION_FORWARD ? -1.0 : 1.0;

  d.dark = mv_painter_color (&painter, 0, 0, 0);
  d.solid = mv_painter_color (&painter, 255, 230, 40);

  /* Pass 2: draw, over the fills of the references if any. */
  if (d.ref_colors && modes)
    chosen_pass (&d, grids, modes, mb_cols, mb_rows, PASS_REF_FILL);
  else if (d.ref_colors)
    grid_pass (&d, cells, shape, cols, rows, PASS_REF_FILL);
  if (modes) {
    chosen_pass (&d, grids, modes, mb_cols, mb_rows, PASS_DRAW);
    /* the chosen partition: each block's outline over the fills and
     * arrows, like the grid (the right and bottom edges of the last
     * macroblocks lie at or past the frame's edge) */
    chosen_pass (&d, grids, modes, mb_cols, mb_rows, PASS_OUTLINE);
  } else {
    grid_pass (&d, cells, shape, cols, rows, PASS_DRAW);
  }

  if (s.grid && !modes) {
    /* block borders, half-transparent dark, one pixel wide */
    for (c = 0; c <= cols; c++)
      mv_fill_rect (&painter, to_px (c * pw * d.sx_blk), 0, 1,
          painter.height, &d.dark, 128);
    for (r = 0; r <= rows; r++)
      mv_fill_rect (&painter, 0, to_px (r * ph * d.sy_blk),
          painter.width, 1, &d.dark, 128);
  }

  if (s.legend) {
    gint rad = CLAMP (MIN (painter.width, painter.height) / 12, 6, 40);

    if (d.ref_colors) {
      /* a square per reference the decision names, ascending */
      gint dists[MV_CHOSEN_MAX_FIELDS];
      guint n = 0, i, j;

      for (i = 0; i < chosen.n_fields; i++) {
        if (!chosen.used[i])
          continue;
        for (j = n++; j > 0 && dists[j - 1] > chosen.distance[i]; j--)
          dists[j] = dists[j - 1];
        dists[j] = chosen.distance[i];
      }
      mv_draw_reference_legend (&painter, dists, n, rad, &d.dark);
    } else if (s.mode == GST_MV_OVERLAY_MODE_COST) {
      /* a heat bar, highest cost at the top */
      gint bar_h = 2 * rad, bar_x = painter.width - rad - 4, k;
      mv_fill_rect (&painter, bar_x - 1, 3, rad / 2 + 2, bar_h + 2, &d.dark,
          256);
      for (k = 0; k < bar_h; k++) {
        col_legend = heat_color (&painter, 1.0 - (gdouble) k / (bar_h - 1));
        mv_fill_rect (&painter, bar_x, 4 + k, rad / 2, 1, &col_legend, 256);
      }
    } else {
      mv_draw_wheel (&painter, painter.width - rad - 4, rad + 4, rad,
          s.mode != GST_MV_OVERLAY_MODE_FLOW, &d.dark);
    }
  }

  if (s.summary) {
    GstMotionVectorSummary sum;

    if (gst_motion_vector_meta_get_summary (meta, &sum))
      mv_draw_summary (&painter, &sum, fw / meta->width / 4.0,
          fh / meta->height / 4.0, d.sign, s.scale);
  }
}

/* Each view's field in its place (mvviews.h): the whole frame for mono
 * video. */
static GstFlowReturn
gst_mv_overlay_transform_frame_ip (GstVideoFilter * filter,
    GstVideoFrame * frame)
{
  GstMvOverlay *self = GST_MV_OVERLAY (filter);
  MvViewArea areas[2];
  MvPainter painter, area;
  Settings s;
  guint n, i;

  GST_OBJECT_LOCK (self);
  s.mode = self->mode;
  s.partition = self->partition;
  s.min_magnitude = self->min_magnitude;
  s.scale = self->scale;
  s.opacity = self->opacity;
  s.color_mode = self->color_mode;
  s.grid = self->grid;
  s.legend = self->legend;
  s.direction = self->direction;
  s.max_magnitude = self->max_magnitude;
  s.summary = self->summary;
  s.reference = self->reference;
  s.view = self->view;
  GST_OBJECT_UNLOCK (self);

  if (!gst_buffer_get_motion_vector_meta (frame->buffer))
    return GST_FLOW_OK;
  if (!mv_painter_init (&painter, frame)) {
    GST_WARNING_OBJECT (self, "unsupported frame layout");
    return GST_FLOW_OK;
  }
  n = mv_view_areas (&filter->in_info, frame->buffer, s.view, areas);
  for (i = 0; i < n; i++) {
    GstMotionVectorMeta *meta =
        pick_field (frame->buffer, areas[i].view, s.reference);

    if (!meta || areas[i].width < 1 || areas[i].height < 1)
      continue;
    area = painter;
    mv_painter_restrict (&area, areas[i].x, areas[i].y, areas[i].width,
        areas[i].height);
    draw_field (self, &s, &area, frame->buffer, meta);
  }
  return GST_FLOW_OK;
}

/* The buffer could not be mapped as a video frame: name the first plane
 * of its GstVideoMeta that starts outside it, if one does. */
static void
post_map_error (GstMvOverlay * self, GstBuffer * buf)
{
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (buf);
  gsize size = gst_buffer_get_size (buf);
  guint plane;

  for (plane = 0; vmeta && plane < vmeta->n_planes; plane++) {
    if (vmeta->offset[plane] >= size) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("Plane %u of the video buffer does not fit in it: stride %d, "
              "offset %" G_GSIZE_FORMAT ", buffer of %" G_GSIZE_FORMAT
              " bytes.", plane, vmeta->stride[plane], vmeta->offset[plane],
              size), ("the plane starts past the end of the buffer"));
      return;
    }
  }
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Could not map the video buffer (%" G_GSIZE_FORMAT " bytes).", size),
      ("%s", vmeta ? "its GstVideoMeta does not match its memory" :
          "smaller than the caps say"));
}

/* GstVideoFilter's in-place path, with the frame checked before drawing:
 * a buffer that cannot be mapped, or whose planes do not fit their memory,
 * is an error (GstVideoFilter would only warn about the first, and never
 * check the second). */
static GstFlowReturn
gst_mv_overlay_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstMvOverlay *self = GST_MV_OVERLAY (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  GstMapFlags flags = GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF;
  g_autoptr (GError) error = NULL;
  GstVideoFrame frame;
  GstFlowReturn ret;

  if (G_UNLIKELY (!filter->negotiated)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no caps before the first buffer"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  /* Filler (gpumotionest passes gap buffers of any size on, unsearched):
   * nothing to draw on, nor any field to draw. */
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
    return GST_FLOW_OK;
  if (!gst_base_transform_is_passthrough (trans))
    flags |= GST_MAP_WRITE;

  /* A GstVideoMeta that disagrees with the caps cannot be mapped
   * (GstVideoFrame asserts on it); planes that run past their memory must
   * not be drawn on. */
  if (!gst_video_layout_check_meta (buf, &filter->in_info, &error))
    goto bad_layout;
  if (!gst_video_frame_map (&frame, &filter->in_info, buf, flags)) {
    post_map_error (self, buf);
    return GST_FLOW_ERROR;
  }
  if (!gst_video_layout_check_planes (&frame, &error)) {
    gst_video_frame_unmap (&frame);
    goto bad_layout;
  }
  ret = gst_mv_overlay_transform_frame_ip (filter, &frame);
  gst_video_frame_unmap (&frame);
  return ret;

  /* ERRORS */
bad_layout:
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Invalid video buffer: %s", error->message),
      ("buffer of %" G_GSIZE_FORMAT " bytes", gst_buffer_get_size (buf)));
  return GST_FLOW_ERROR;
}

static gboolean
gst_mv_overlay_start (GstBaseTransform * trans)
{
  GST_MV_OVERLAY (trans)->warned_invalid = FALSE;
  return TRUE;
}

static void
gst_mv_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvOverlay *self = GST_MV_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_PARTITION:
      self->partition = g_value_get_enum (value);
      break;
    case PROP_MIN_MAGNITUDE:
      self->min_magnitude = g_value_get_double (value);
      break;
    case PROP_SCALE:
      self->scale = g_value_get_double (value);
      break;
    case PROP_COLOR_MODE:
      self->color_mode = g_value_get_enum (value);
      break;
    case PROP_GRID:
      self->grid = g_value_get_boolean (value);
      break;
    case PROP_LEGEND:
      self->legend = g_value_get_boolean (value);
      break;
    case PROP_OPACITY:
      self->opacity = g_value_get_double (value);
      break;
    case PROP_DIRECTION:
      self->direction = g_value_get_enum (value);
      break;
    case PROP_MAX_MAGNITUDE:
      self->max_magnitude = g_value_get_double (value);
      break;
    case PROP_SUMMARY:
      self->summary = g_value_get_boolean (value);
      break;
    case PROP_REFERENCE:
      self->reference = g_value_get_int (value);
      break;
    case PROP_VIEW:
      self->view = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_overlay_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMvOverlay *self = GST_MV_OVERLAY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_PARTITION:
      g_value_set_enum (value, self->partition);
      break;
    case PROP_MIN_MAGNITUDE:
      g_value_set_double (value, self->min_magnitude);
      break;
    case PROP_SCALE:
      g_value_set_double (value, self->scale);
      break;
    case PROP_COLOR_MODE:
      g_value_set_enum (value, self->color_mode);
      break;
    case PROP_GRID:
      g_value_set_boolean (value, self->grid);
      break;
    case PROP_LEGEND:
      g_value_set_boolean (value, self->legend);
      break;
    case PROP_OPACITY:
      g_value_set_double (value, self->opacity);
      break;
    case PROP_DIRECTION:
      g_value_set_enum (value, self->direction);
      break;
    case PROP_MAX_MAGNITUDE:
      g_value_set_double (value, self->max_magnitude);
      break;
    case PROP_SUMMARY:
      g_value_set_boolean (value, self->summary);
      break;
    case PROP_REFERENCE:
      g_value_set_int (value, self->reference);
      break;
    case PROP_VIEW:
      g_value_set_int (value, self->view);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The properties are controllable: their control sources are sampled at
 * each buffer's stream time, before it is drawn. */
static void
gst_mv_overlay_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClockTime t = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buf));

  if (GST_CLOCK_TIME_IS_VALID (t))
    gst_object_sync_values (GST_OBJECT (trans), t);
}

static void
gst_mv_overlay_class_init (GstMvOverlayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_mv_overlay_debug, "mvoverlay", 0,
      "motion-vector overlay");

  gobject_class->set_property = gst_mv_overlay_set_property;
  gobject_class->get_property = gst_mv_overlay_get_property;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "What to draw",
          gst_mv_overlay_mode_get_type (), DEFAULT_MODE, flags));
  g_object_class_install_property (gobject_class, PROP_PARTITION,
      g_param_spec_enum ("partition", "Partition",
          "Shape whose grid is drawn (the first present one if absent), or "
          "chosen: each macroblock's chosen partition when the meta has a "
          "partition decision", gst_mv_overlay_partition_get_type (),
          DEFAULT_PARTITION, flags));
  g_object_class_install_property (gobject_class, PROP_MIN_MAGNITUDE,
      g_param_spec_double ("min-magnitude", "Minimum magnitude",
          "Arrows shorter than this many frame pixels (before scale) are "
          "not drawn", 0.0, 8192.0, DEFAULT_MIN_MAGNITUDE, flags));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Scale", "Arrow length factor",
          0.0, 64.0, DEFAULT_SCALE, flags));
  g_object_class_install_property (gobject_class, PROP_COLOR_MODE,
      g_param_spec_enum ("color-mode", "Colour mode", "How arrows are "
          "coloured (reference: blocks too, by the reference each chose)",
          gst_mv_overlay_color_mode_get_type (), DEFAULT_COLOR_MODE, flags));
  g_object_class_install_property (gobject_class, PROP_GRID,
      g_param_spec_boolean ("grid", "Grid", "Draw the block borders",
          DEFAULT_GRID, flags));
  g_object_class_install_property (gobject_class, PROP_LEGEND,
      g_param_spec_boolean ("legend", "Legend",
          "Draw a colour wheel in the top right corner (a heat bar for "
          "cost, the references' colours for color-mode=reference)",
          DEFAULT_LEGEND,
          flags));
  g_object_class_install_property (gobject_class, PROP_OPACITY,
      g_param_spec_double ("opacity", "Opacity",
          "Opacity of the cost and flow fills", 0.0, 1.0, DEFAULT_OPACITY,
          flags));
  g_object_class_install_property (gobject_class, PROP_DIRECTION,
      g_param_spec_enum ("direction", "Direction",
          "Which way arrows (and colours) point: forward, the motion as "
          "seen, or backward, the stored vector",
          gst_mv_overlay_direction_get_type (), DEFAULT_DIRECTION, flags));
  g_object_class_install_property (gobject_class, PROP_MAX_MAGNITUDE,
      g_param_spec_double ("max-magnitude", "Maximum magnitude",
          "Vector length in frame pixels that gets the full colour "
          "(brightness of arrows, saturation of the flow fill); longer "
          "ones are clamped; 0 = the frame's longest vector",
          0.0, 8192.0, DEFAULT_MAX_MAGNITUDE, flags));
  g_object_class_install_property (gobject_class, PROP_SUMMARY,
      g_param_spec_boolean ("summary", "Summary",
          "Draw the frame's motion summary: the global motion at the centre "
          "and on a ring, the shares of agreeing and moving blocks, a "
          "border on a scene cut", DEFAULT_SUMMARY, flags));
  g_object_class_install_property (gobject_class, PROP_REFERENCE,
      g_param_spec_int ("reference", "Reference",
          "Which field to draw when a buffer carries several (one per "
          "reference frame): the one searched against the frame this many "
          "frames away (-1 the previous, +1 the next), or for 0 the "
          "disparity of stereo video's second view; the view's first field "
          "when it has none such", G_MININT, G_MAXINT, DEFAULT_REFERENCE,
          flags));
  g_object_class_install_property (gobject_class, PROP_VIEW,
      g_param_spec_int ("view", "View",
          "Stereo video: the view whose fields are drawn, in its place in "
          "the frame (0 the first, 1 the second), or -1 each view's in its "
          "own place", -1, 1, DEFAULT_VIEW, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Motion vector overlay", "Filter/Effect/Video",
      "Draws the motion vectors of GstMotionVectorMeta on the video",
      "gpumotionest developers");

  /* transform_frame_ip is set so that GstVideoFilter configures the
   * element for in-place work; transform_ip maps and checks the frame and
   * calls it. */
  filter_class->transform_frame_ip =
      GST_DEBUG_FUNCPTR (gst_mv_overlay_transform_frame_ip);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_mv_overlay_transform_ip);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_mv_overlay_before_transform);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_mv_overlay_start);

  gst_type_mark_as_plugin_api (gst_mv_overlay_mode_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_mv_overlay_color_mode_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_mv_overlay_direction_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_mv_overlay_partition_get_type (), 0);
}

static void
gst_mv_overlay_init (GstMvOverlay * self)
{
  self->mode = DEFAULT_MODE;
  self->partition = DEFAULT_PARTITION;
  self->min_magnitude = DEFAULT_MIN_MAGNITUDE;
  self->scale = DEFAULT_SCALE;
  self->color_mode = DEFAULT_COLOR_MODE;
  self->grid = DEFAULT_GRID;
  self->legend = DEFAULT_LEGEND;
  self->opacity = DEFAULT_OPACITY;
  self->direction = DEFAULT_DIRECTION;
  self->max_magnitude = DEFAULT_MAX_MAGNITUDE;
  self->summary = DEFAULT_SUMMARY;
  self->reference = DEFAULT_REFERENCE;
  self->view = DEFAULT_VIEW;
}
