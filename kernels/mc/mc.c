/* gpumotionest — motion compensation: the checks every call makes before
 * it reaches an implementation (mc_impl.h), and the per-cell work that
 * needs none (scaling a field, weights from costs).
 */
#include "mc_impl.h"
#include "mc_rules.h"

/* The largest plane side: more than any frame the search takes
 * (GST_MOTION_VECTOR_MAX_SIZE, 8192), and small enough that every
 * coordinate, with a vector of +-8192 pixels added, fits an int. */
#define MC_MAX_SIZE 16384

G_DEFINE_QUARK (mc-error-quark, mc_error)

void
mc_options_init (MCOptions * opt)
{
  opt->obmc = TRUE;
  opt->threads = 1;
  opt->impl = NULL;
  opt->device = MC_DEVICE_NONE;
  opt->cuda_stream = NULL;
}

static gboolean
invalid (GError ** error, const char *what, const char *fmt, ...)
    G_GNUC_PRINTF (3, 4);

static gboolean
invalid (GError ** error, const char *what, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  char *msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error (error, MC_ERROR, MC_ERROR_INVALID, "%s: %s", what, msg);
  g_free (msg);
  return FALSE;
}

static size_t
plane_bytes (const MCPlane * p)
{
  return (size_t) (p->height - 1) * (size_t) p->stride
      + (size_t) p->width * (p->depth > 8 ? 2 : 1);
}

static gboolean
check_plane (const MCPlane * p, const char *what, GError ** error)
{
  if (!p || !p->data)
    return invalid (error, what, "no plane or no samples");
  if (p->width < 1 || p->height < 1 || p->width > MC_MAX_SIZE
      || p->height > MC_MAX_SIZE)
    return invalid (error, what, "size %ux%u outside 1..%u", p->width,
        p->height, MC_MAX_SIZE);
  if (p->depth < 8 || p->depth > 16)
    return invalid (error, what, "depth %u outside 8..16", p->depth);
  if (p->depth == 8 ? p->shift != 0 : p->shift > 16 - p->depth)
    return invalid (error, what, "shift %u with depth %u leaves the word",
        p->shift, p->depth);
  const unsigned bps = p->depth > 8 ? 2 : 1;
  if (p->stride < (ptrdiff_t) (p->width * bps))
    return invalid (error, what, "stride %td shorter than a row of %u bytes",
        p->stride, p->width * bps);
  if (bps == 2 && (((uintptr_t) p->data | (uintptr_t) p->stride) & 1))
    return invalid (error, what, "16-bit samples not 2-byte aligned");
  return TRUE;
}

static gboolean
overlap (const MCPlane * a, const MCPlane * b)
{
  const uint8_t *a1 = a->data + plane_bytes (a), *b1 = b->data + plane_bytes (b);
  return a->data < b1 && b->data < a1;
}

static gboolean
same_shape (const MCPlane * a, const MCPlane * b, const char *what,
    GError ** error)
{
  if (a->width != b->width || a->height != b->height || a->depth != b->depth)
    return invalid (error, what, "%ux%u at %u bits, against %ux%u at %u bits",
        b->width, b->height, b->depth, a->width, a->height, a->depth);
  return TRUE;
}

static gboolean
check_block (unsigned n, const char *what, GError ** error)
{
  if (n != 4 && n != 8 && n != 16)
    return invalid (error, what, "block side %u is not 4, 8 or 16", n);
  return TRUE;
}

/* The grid of a plane subsampled by (sub_x, sub_y) under blocks of
 * block_w x block_h luma pixels, and whether `cols` x `rows` cover it. */
static gboolean
plane_grid (const MCPlane * p, unsigned block_w, unsigned block_h,
    unsigned cols, unsigned rows, unsigned sub_x, unsigned sub_y,
    MCGrid * g, GError ** error)
{
  if (sub_x > 1 || sub_y > 1)
    return invalid (error, "plane", "subsampling (%u, %u) is not 0 or 1",
        sub_x, sub_y);
  if (!check_block (block_w, "field", error)
      || !check_block (block_h, "field", error))
    return FALSE;
  g->bw = block_w >> sub_x;
  g->bh = block_h >> sub_y;
  g->ncols = (p->width + g->bw - 1) / g->bw;
  g->nrows = (p->height + g->bh - 1) / g->bh;
  if (g->ncols > cols || g->nrows > rows)
    return invalid (error, "field", "%ux%u blocks of %ux%u do not cover a "
        "%ux%u plane (subsampled %u, %u): %ux%u needed", cols, rows, block_w,
        block_h, p->width, p->height, sub_x, sub_y, g->ncols, g->nrows);
  return TRUE;
}

static gboolean
check_field (const MCField * f, GError ** error)
{
  if (!f || !f->cells)
    return invalid (error, "field", "no field or no cells");
  if (f->cols < 1 || f->rows < 1)
    return invalid (error, "field", "%ux%u blocks", f->cols, f->rows);
  if (f->stride && f->stride < f->cols)
    return invalid (error, "field", "stride %zu shorter than %u cells",
        f->stride, f->cols);
  return TRUE;
}

static const MCOptions *
options (const MCOptions * opt, MCOptions * def)
{
  if (opt)
    return opt;
  mc_options_init (def);
  return def;
}

/* The implementation the options name, if it takes the planes' memory. */
static const MCImpl *
pick_impl (const MCOptions * opt, GError ** error)
{
  const MCImpl *impl = opt->impl ? opt->impl : mc_impl_c ();
  if ((unsigned) opt->device & ~(unsigned) MC_DEVICE_ALL) {
    invalid (error, "options", "device 0x%x is not a set of MCDevice flags",
        (unsigned) opt->device);
    return NULL;
  }
  if (opt->device && !impl->device_planes) {
    invalid (error, "options", "planes in device memory, which the %s "
        "implementation does not read", impl->name);
    return NULL;
  }
  return impl;
}

gboolean
mc_predict_plane (const MCPlane * ref, MCPlane * out, const MCField * field,
    unsigned sub_x, unsigned sub_y, const MCOptions * opt, GError ** error)
{
  MCOptions def;
  MCGrid g;
  if (!check_plane (ref, "reference", error) || !check_plane (out, "output",
          error) || !same_shape (ref, out, "output", error)
      || !check_field (field, error))
    return FALSE;
  if (overlap (ref, out))
    return invalid (error, "output", "overlaps the reference");
  if (!plane_grid (out, field->block_w, field->block_h, field->cols,
          field->rows, sub_x, sub_y, &g, error))
    return FALSE;
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  return impl && impl->predict_plane (ref, out, field, &g, sub_x, sub_y, opt,
      error);
}

static void
chroma_sub (MCChroma chroma, unsigned *sx, unsigned *sy)
{
  *sx = chroma == MC_CHROMA_420 || chroma == MC_CHROMA_422;
  *sy = chroma == MC_CHROMA_420;
}

gboolean
mc_predict_picture (const MCPicture * ref, MCPicture * out,
    const MCField * field, const MCOptions * opt, GError ** error)
{
  if (!ref || !out)
    return invalid (error, "picture", "no picture");
  if (ref->chroma != out->chroma || ref->chroma > MC_CHROMA_444)
    return invalid (error, "picture", "chroma %d against %d", out->chroma,
        ref->chroma);
  const unsigned n = ref->chroma == MC_CHROMA_NONE ? 1 : 3;
  unsigned sx, sy;
  chroma_sub (ref->chroma, &sx, &sy);
  if (!check_plane (&ref->planes[0], "reference luma", error))
    return FALSE;
  const unsigned cw = (ref->planes[0].width + sx) >> sx;
  const unsigned ch = (ref->planes[0].height + sy) >> sy;
  for (unsigned i = 1; i < n; i++) {
    const MCPlane *p = &ref->planes[i];
    if (!check_plane (p, "reference chroma", error))
      return FALSE;
    if (p->width != cw || p->height != ch || p->depth != ref->planes[0].depth)
      return invalid (error, "reference chroma", "%ux%u at %u bits, not "
          "%ux%u at %u bits", p->width, p->height, p->depth, cw, ch,
          ref->planes[0].depth);
  }
  for (unsigned i = 0; i < n; i++)
    if (!mc_predict_plane (&ref->planes[i], &out->planes[i], field,
            i ? sx : 0, i ? sy : 0, opt, error))
      return FALSE;
  return TRUE;
}

gboolean
mc_field_scale (const MCField * src, GstMotionVectorCell * dst, int num,
    int den, GError ** error)
{
  if (!check_field (src, error))
    return FALSE;
  if (!dst)
    return invalid (error, "scaled field", "no cells");
  if (den < 1 || den > 65536 || num < -4 * den || num > 4 * den)
    return invalid (error, "time", "%d/%d: den 1..65536, |num| <= 4 den",
        num, den);
  const size_t stride = src->stride ? src->stride : src->cols;
  for (unsigned r = 0; r < src->rows; r++)
    for (unsigned c = 0; c < src->cols; c++) {
      GstMotionVectorCell cell = src->cells[r * stride + c];
      cell.mv_x = (gint16) mc_scale_qpel (cell.mv_x, num, den);
      cell.mv_y = (gint16) mc_scale_qpel (cell.mv_y, num, den);
      dst[(size_t) r * src->cols + c] = cell;
    }
  return TRUE;
}

gboolean
mc_cost_weights (const MCField * a, const MCField * b, uint8_t * weights,
    GError ** error)
{
  if (!check_field (a, error) || !check_field (b, error))
    return FALSE;
  if (a->cols != b->cols || a->rows != b->rows)
    return invalid (error, "fields", "%ux%u blocks against %ux%u", b->cols,
        b->rows, a->cols, a->rows);
  if (!weights)
    return invalid (error, "weights", "no storage");
  const size_t sa = a->stride ? a->stride : a->cols;
  const size_t sb = b->stride ? b->stride : b->cols;
  for (unsigned r = 0; r < a->rows; r++)
    for (unsigned c = 0; c < a->cols; c++)
      weights[(size_t) r * a->cols + c] = (uint8_t) mc_cost_weight
          (a->cells[r * sa + c].cost, b->cells[r * sb + c].cost);
  return TRUE;
}

gboolean
mc_blend_plane (const MCPlane * a, const MCPlane * b, MCPlane * out,
    const uint8_t * weights, unsigned block_w, unsigned block_h,
    unsigned cols, unsigned rows, unsigned sub_x, unsigned sub_y,
    const MCOptions * opt, GError ** error)
{
  MCOptions def;
  MCGrid g;
  if (!check_plane (a, "first prediction", error)
      || !check_plane (b, "second prediction", error)
      || !check_plane (out, "output", error)
      || !same_shape (a, b, "second prediction", error)
      || !same_shape (a, out, "output", error))
    return FALSE;
  if (!weights)
    return invalid (error, "weights", "none");
  if (cols < 1 || rows < 1)
    return invalid (error, "weights", "%ux%u blocks", cols, rows);
  /* out is a or b sample for sample, or apart from both */
  if ((out->data != a->data || out->stride != a->stride) && overlap (a, out))
    return invalid (error, "output", "overlaps the first prediction");
  if ((out->data != b->data || out->stride != b->stride) && overlap (b, out))
    return invalid (error, "output", "overlaps the second prediction");
  if (!plane_grid (out, block_w, block_h, cols, rows, sub_x, sub_y, &g,
          error))
    return FALSE;
  for (size_t i = 0; i < (size_t) cols * rows; i++)
    if (weights[i] > MC_BLEND_ONE)
      return invalid (error, "weights", "block %zu weighs %u, more than %d",
          i, weights[i], MC_BLEND_ONE);
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  return impl && impl->blend_plane (a, b, out, weights, cols, &g, opt,
      error);
}
