/* gpumotionest — motion compensation: the checks every call makes before
 * it reaches an implementation (mc_impl.h), and the per-cell work that
 * needs none (scaling a field, weights from costs).
 */
#include "mc_impl.h"
#include "mc_rules.h"

#include <string.h>
#include <stdlib.h>
#include <math.h>

/* The largest plane side: more than any frame the search takes
 * (GST_MOTION_VECTOR_MAX_SIZE, 8192), and small enough that every
 * coordinate, with a vector of +-8192 pixels added, fits an int. */
#define MC_MAX_SIZE 16384

G_DEFINE_QUARK (mc-error-quark, mc_error)

/* ---- rows of cells across threads (mc_impl.h) -------------------------- */

typedef struct {
  void (*row) (gpointer job, unsigned r);
  gpointer job;
  unsigned n;
  gint next;
} Rows;

static gpointer
rows_worker (gpointer data)
{
  Rows *rows = data;
  unsigned r;
  while ((r = (unsigned) g_atomic_int_add (&rows->next, 1)) < rows->n)
    rows->row (rows->job, r);
  return NULL;
}

gboolean
mc_run_rows (void (*row) (gpointer, unsigned), gpointer job, unsigned n,
    unsigned threads, GError ** error)
{
  Rows rows = { row, job, n, 0 };
  GThread *t[64];
  unsigned started = 0;
  gboolean ok = TRUE;
  threads = MIN (MIN (threads, n), G_N_ELEMENTS (t));
  for (unsigned i = 1; i < threads; i++) {
    t[started] = g_thread_try_new ("mc", rows_worker, &rows, NULL);
    if (!t[started]) {
      ok = FALSE;
      break;
    }
    started++;
  }
  rows_worker (&rows);
  for (unsigned i = 0; i < started; i++)
    g_thread_join (t[i]);
  if (!ok)
    g_set_error (error, MC_ERROR, MC_ERROR_THREADS,
        "could not start a motion-compensation thread");
  return ok;
}

void
mc_options_init (MCOptions * opt)
{
  opt->obmc = TRUE;
  opt->threads = 1;
  opt->impl = NULL;
  opt->device = MC_DEVICE_NONE;
  opt->cuda_stream = NULL;
  opt->cuda_session = NULL;
  opt->pairing = MC_PAIR_BILATERAL;
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

/* Bytes from the plane's first sample to the end of its last. */
static size_t
plane_bytes (const MCPlane * p)
{
  return (size_t) (p->height - 1) * (size_t) p->stride
      + mc_plane_row_span (p);
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
  const unsigned bps = mc_plane_bps (p);
  if (p->pstride && (p->pstride < bps || p->pstride > MC_MAX_PSTRIDE))
    return invalid (error, what, "pixel stride %u outside %u..%u", p->pstride,
        bps, MC_MAX_PSTRIDE);
  /* rows apart: a row's samples end before the next row begins */
  if (p->stride < (ptrdiff_t) mc_plane_row_span (p))
    return invalid (error, what, "stride %td shorter than a row of %zu bytes",
        p->stride, mc_plane_row_span (p));
  if (bps == 2 && (((uintptr_t) p->data | (uintptr_t) p->stride
              | p->pstride) & 1))
    return invalid (error, what, "16-bit samples not 2-byte aligned");
  return TRUE;
}

/* Whether the byte ranges of two planes meet.  Interleaved planes (NV12's
 * U and V) meet by this measure although no sample is shared: they are
 * never a reference and an output of one call. */
static gboolean
overlap (const MCPlane * a, const MCPlane * b)
{
  const uint8_t *a1 = a->data + plane_bytes (a), *b1 = b->data + plane_bytes (b);
  return a->data < b1 && b->data < a1;
}

/* Whether two planes of one size are the same samples in memory. */
static gboolean
same_samples (const MCPlane * a, const MCPlane * b)
{
  return a->data == b->data && a->stride == b->stride
      && mc_plane_pstride (a) == mc_plane_pstride (b);
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
  if (!same_samples (a, out) && overlap (a, out))
    return invalid (error, "output", "overlaps the first prediction");
  if (!same_samples (b, out) && overlap (b, out))
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

/* ---- denoising ---------------------------------------------------------- */

gboolean
mc_denoise_weights (const MCField * field, gboolean no_reference,
    unsigned depth, unsigned sigma_q4, uint8_t * weights, GError ** error)
{
  if (!check_field (field, error) || !check_block (field->block_w, "field",
          error) || !check_block (field->block_h, "field", error))
    return FALSE;
  if (depth < 8 || depth > 16)
    return invalid (error, "depth", "%u outside 8..16", depth);
  if (sigma_q4 > MC_DENOISE_MAX_SIGMA_Q4)
    return invalid (error, "noise", "sigma %u/16 more than %u/16", sigma_q4,
        MC_DENOISE_MAX_SIGMA_Q4);
  if (!weights)
    return invalid (error, "weights", "no storage");
  const size_t stride = field->stride ? field->stride : field->cols;
  const uint64_t level = mc_denoise_level ((int) field->block_w,
      (int) field->block_h, sigma_q4, (int) depth);
  for (unsigned r = 0; r < field->rows; r++)
    for (unsigned c = 0; c < field->cols; c++)
      weights[(size_t) r * field->cols + c] = no_reference ? 0
          : (uint8_t) mc_denoise_weight (field->cells[r * stride + c].cost,
          level);
  return TRUE;
}

gboolean
mc_denoise_plane (const MCPlane * cur, const MCPlane * const *preds,
    const uint8_t * const *weights, unsigned n_refs, unsigned block_w,
    unsigned block_h, unsigned cols, unsigned rows, unsigned sub_x,
    unsigned sub_y, MCPlane * out, const MCOptions * opt, GError ** error)
{
  MCOptions def;
  MCGrid g;
  if (!check_plane (cur, "current plane", error)
      || !check_plane (out, "output", error)
      || !same_shape (cur, out, "output", error))
    return FALSE;
  if (n_refs < 1 || n_refs > MC_DENOISE_MAX_REFS)
    return invalid (error, "predictions", "%u, not 1..%d", n_refs,
        MC_DENOISE_MAX_REFS);
  if (!preds || !weights)
    return invalid (error, "predictions", "no predictions or no weights");
  if (cols < 1 || rows < 1)
    return invalid (error, "weights", "%ux%u blocks", cols, rows);
  if (overlap (cur, out))
    return invalid (error, "output", "overlaps the current plane");
  for (unsigned i = 0; i < n_refs; i++) {
    char what[32];
    g_snprintf (what, sizeof what, "prediction %u", i);
    if (!check_plane (preds[i], what, error)
        || !same_shape (cur, preds[i], what, error))
      return FALSE;
    if (overlap (preds[i], out))
      return invalid (error, "output", "overlaps prediction %u", i);
    if (!weights[i])
      return invalid (error, "weights", "none for prediction %u", i);
    for (size_t j = 0; j < (size_t) cols * rows; j++)
      if (weights[i][j] > MC_BLEND_ONE)
        return invalid (error, "weights", "block %zu of prediction %u weighs "
            "%u, more than %d", j, i, weights[i][j], MC_BLEND_ONE);
  }
  if (!plane_grid (out, block_w, block_h, cols, rows, sub_x, sub_y, &g,
          error))
    return FALSE;
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  if (!impl)
    return FALSE;
  if (!impl->denoise_plane) {
    /* the C reference's, which reads host memory alone */
    if (opt->device)
      return invalid (error, "options", "planes in device memory, but the "
          "%s implementation has no denoising of its own", impl->name);
    impl = mc_impl_c ();
  }
  return impl->denoise_plane (cur, preds, weights, n_refs, cols, out, &g, opt,
      error);
}

static gboolean check_picture (const MCPicture * p, const char *what,
    GError ** error);

/* Temporary planes of the denoising composed from predictions: one per
 * reference, device memory for an implementation that takes device
 * planes. */
typedef struct {
  gboolean device;
  void *data[MC_DENOISE_MAX_REFS];
} DenoiseTemps;

static void
denoise_temps_free (DenoiseTemps * t)
{
  for (int i = 0; i < MC_DENOISE_MAX_REFS; i++) {
    if (t->device)
      mc_cuda_free (t->data[i]);
    else
      g_free (t->data[i]);
  }
}

/* One plane denoised by the implementation without a pass of its own:
 * each reference predicted into a temporary (plain layout, the plane's
 * depth and shift), then mixed by denoise_plane. */
static gboolean
denoise_composed (const MCPlane * cur, const MCPlane * const *refs,
    const MCField * const *fields, const uint8_t * const *weights,
    unsigned n, MCPlane * out, unsigned sub_x, unsigned sub_y,
    DenoiseTemps * temps, const MCOptions * opt, GError ** error)
{
  const unsigned bps = mc_plane_bps (cur);
  const size_t tsize = (size_t) cur->width * bps * cur->height;
  MCPlane preds[MC_DENOISE_MAX_REFS];
  const MCPlane *pp[MC_DENOISE_MAX_REFS];
  MCOptions popt = *opt, dopt = *opt;
  if (temps->device) {
    popt.device = (MCDevice) ((opt->device & MC_DEVICE_INPUTS)
        | MC_DEVICE_OUTPUT);
    dopt.device = (MCDevice) (MC_DEVICE_INPUTS
        | (opt->device & MC_DEVICE_OUTPUT));
  }
  for (unsigned i = 0; i < n; i++) {
    /* the luma's temporaries are the largest: allocated once, reused by
     * the chroma */
    if (!temps->data[i])
      temps->data[i] = temps->device ? mc_cuda_alloc (tsize, error)
          : g_malloc (tsize);
    if (!temps->data[i])
      return FALSE;
    MCPlane p = { temps->data[i], (ptrdiff_t) (cur->width * bps),
      cur->width, cur->height, cur->depth, cur->shift, 0
    };
    preds[i] = p;
    pp[i] = &preds[i];
    if (!mc_predict_plane (refs[i], &preds[i], fields[i], sub_x, sub_y,
            &popt, error))
      return FALSE;
  }
  return mc_denoise_plane (cur, pp, weights, n, fields[0]->block_w,
      fields[0]->block_h, fields[0]->cols, fields[0]->rows, sub_x, sub_y,
      out, &dopt, error);
}

gboolean
mc_denoise_picture (const MCPicture * cur, const MCPicture * const *refs,
    const MCField * const *fields, const uint8_t * const *weights,
    unsigned n_refs, MCPicture * out, const MCOptions * opt, GError ** error)
{
  MCOptions def;
  char what[48];
  if (!check_picture (cur, "current picture", error)
      || !check_picture (out, "output", error))
    return FALSE;
  if (n_refs < 1 || n_refs > MC_DENOISE_MAX_REFS)
    return invalid (error, "references", "%u, not 1..%d", n_refs,
        MC_DENOISE_MAX_REFS);
  if (!refs || !fields || !weights)
    return invalid (error, "references", "no references, fields or "
        "weights");
  if (out->chroma != cur->chroma
      || !same_shape (&cur->planes[0], &out->planes[0], "output", error))
    return out->chroma != cur->chroma ? invalid (error, "output", "chroma "
        "%d, not the current picture's %d", out->chroma, cur->chroma)
        : FALSE;
  const unsigned n = cur->chroma == MC_CHROMA_NONE ? 1 : 3;
  for (unsigned i = 0; i < n_refs; i++) {
    g_snprintf (what, sizeof what, "reference %u", i);
    if (!check_picture (refs[i], what, error))
      return FALSE;
    if (refs[i]->chroma != cur->chroma)
      return invalid (error, what, "chroma %d, not the current picture's %d",
          refs[i]->chroma, cur->chroma);
    if (!same_shape (&cur->planes[0], &refs[i]->planes[0], what, error))
      return FALSE;
    if (!fields[i] || !check_field (fields[i], error))
      return fields[i] ? FALSE : invalid (error, "fields", "none for "
          "reference %u", i);
    if (fields[i]->block_w != fields[0]->block_w
        || fields[i]->block_h != fields[0]->block_h
        || fields[i]->cols != fields[0]->cols
        || fields[i]->rows != fields[0]->rows)
      return invalid (error, "fields", "reference %u's grid is %ux%u blocks "
          "of %ux%u, reference 0's %ux%u of %ux%u", i, fields[i]->cols,
          fields[i]->rows, fields[i]->block_w, fields[i]->block_h,
          fields[0]->cols, fields[0]->rows, fields[0]->block_w,
          fields[0]->block_h);
    if (!weights[i])
      return invalid (error, "weights", "none for reference %u", i);
    for (size_t j = 0; j < (size_t) fields[0]->cols * fields[0]->rows; j++)
      if (weights[i][j] > MC_BLEND_ONE)
        return invalid (error, "weights", "block %zu of reference %u weighs "
            "%u, more than %d", j, i, weights[i][j], MC_BLEND_ONE);
    for (unsigned a = 0; a < n; a++)
      for (unsigned b = 0; b < n; b++)
        if (overlap (&out->planes[a], &refs[i]->planes[b]))
          return invalid (error, "output", "plane %u overlaps a plane of "
              "reference %u", a, i);
  }
  for (unsigned a = 0; a < n; a++)
    for (unsigned b = 0; b < n; b++)
      if (overlap (&out->planes[a], &cur->planes[b]))
        return invalid (error, "output", "plane %u overlaps a plane of the "
            "current picture", a);
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  if (!impl)
    return FALSE;
  if (!impl->denoise_refs && impl->device_planes && !impl->denoise_plane)
    return invalid (error, "options", "the %s implementation has no "
        "denoising", impl->name);

  unsigned sx, sy;
  chroma_sub (cur->chroma, &sx, &sy);
  DenoiseTemps temps = { impl->device_planes, { NULL } };
  gboolean ok = TRUE;
  for (unsigned p = 0; ok && p < n; p++) {
    const MCPlane *rp[MC_DENOISE_MAX_REFS];
    for (unsigned i = 0; i < n_refs; i++)
      rp[i] = &refs[i]->planes[p];
    if (impl->denoise_refs) {
      MCGrid grid;
      ok = plane_grid (&out->planes[p], fields[0]->block_w,
          fields[0]->block_h, fields[0]->cols, fields[0]->rows, p ? sx : 0,
          p ? sy : 0, &grid, error)
          && impl->denoise_refs (&cur->planes[p], rp, fields, weights,
          n_refs, fields[0]->cols, &out->planes[p], &grid, p ? sx : 0,
          p ? sy : 0, p, p == n - 1, opt, error);
    } else {
      ok = denoise_composed (&cur->planes[p], rp, fields, weights, n_refs,
          &out->planes[p], p ? sx : 0, p ? sy : 0, &temps, opt, error);
    }
  }
  denoise_temps_free (&temps);
  return ok;
}

/* The noise estimate (docs/motion-compensation.md, "The noise level").
 * The costs of the whole blocks inside the plane; the one at
 * MC_DENOISE_EST_RANK (a low quantile: the best-matched blocks, those
 * where the picture is flat and still, so that the cost is noise alone)
 * is taken as MC_DENOISE_EST_SCALE times the noise level of a block
 * (mc_denoise_level()) and solved for sigma. */
#define MC_DENOISE_EST_RANK_NUM 1
#define MC_DENOISE_EST_RANK_DEN 8
/* 0.946: the 1/8 quantile of the SAD of pure noise over a 16x16 block
 * lies 1.15 standard deviations under its mean, and a sample's |difference|
 * has a standard deviation sqrt (pi / 2 - 1) = 0.755 of its mean, so the
 * quantile is 1 - 1.15 x 0.755 / 16 = 0.946 of the level (measured through
 * mvdenoise on textured clips at sigma 5, 10, 20: 0.938 .. 0.950 with a
 * scale of 1). */
#define MC_DENOISE_EST_SCALE_NUM 946
#define MC_DENOISE_EST_SCALE_DEN 1000

/* The k-th smallest of v[0 .. n-1] (k < n), v reordered: Hoare's
 * selection. */
static uint32_t
select_kth (uint32_t * v, size_t n, size_t k)
{
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const uint32_t pivot = v[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot)
        i++;
      while (v[j] > pivot)
        j--;
      if (i <= j) {
        const uint32_t t = v[i];
        v[i] = v[j];
        v[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return v[k];
  }
  return v[k];
}

gboolean
mc_denoise_estimate (const MCField * field, gboolean no_reference,
    unsigned width, unsigned height, unsigned depth, unsigned *sigma_q4)
{
  if (no_reference || !field || !field->cells || !sigma_q4
      || field->block_w < 1 || field->block_h < 1 || depth < 8 || depth > 16)
    return FALSE;
  const unsigned cols = MIN (field->cols, width / field->block_w);
  const unsigned rows = MIN (field->rows, height / field->block_h);
  const size_t n = (size_t) cols * rows;
  if (n < MC_DENOISE_MIN_BLOCKS)
    return FALSE;
  const size_t stride = field->stride ? field->stride : field->cols;
  uint32_t *costs = g_new (uint32_t, n);
  for (unsigned r = 0; r < rows; r++)
    for (unsigned c = 0; c < cols; c++)
      costs[(size_t) r * cols + c] = field->cells[r * stride + c].cost;
  const uint64_t q = select_kth (costs, n, n * MC_DENOISE_EST_RANK_NUM
      / MC_DENOISE_EST_RANK_DEN);
  g_free (costs);
  /* q = scale N sigma (289 / 256) 2^(depth - 8), sigma = sigma_q4 / 16 */
  const uint64_t num = (q << 12) * MC_DENOISE_EST_SCALE_DEN;
  const uint64_t den = ((uint64_t) field->block_w * field->block_h * 289
      * MC_DENOISE_EST_SCALE_NUM) << (depth - 8);
  *sigma_q4 = (unsigned) MIN ((num + den / 2) / den,
      (uint64_t) MC_DENOISE_MAX_SIGMA_Q4);
  return TRUE;
}

/* ---- the spatial pass --------------------------------------------------- */

/* One plane of the spatial pass; `last` as the table's (FALSE only for the
 * planes of a picture before its last). */
static gboolean
sigma_plane (const MCPlane * in, MCPlane * out, unsigned radius,
    unsigned threshold, gboolean last, const MCOptions * opt, GError ** error)
{
  MCOptions def;
  if (!check_plane (in, "input", error) || !check_plane (out, "output", error)
      || !same_shape (in, out, "output", error))
    return FALSE;
  if (radius < 1 || radius > MC_SIGMA_MAX_RADIUS)
    return invalid (error, "radius", "%u, not 1..%d", radius,
        MC_SIGMA_MAX_RADIUS);
  if (threshold > 65535)
    return invalid (error, "threshold", "%u, more than 65535", threshold);
  if (overlap (in, out))
    return invalid (error, "output", "overlaps the input");
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  if (!impl)
    return FALSE;
  if (!impl->sigma_filter_plane) {
    if (opt->device)
      return invalid (error, "options", "planes in device memory, but the "
          "%s implementation has no spatial pass of its own", impl->name);
    impl = mc_impl_c ();
  }
  return impl->sigma_filter_plane (in, out, radius, threshold, last, opt,
      error);
}

gboolean
mc_sigma_filter_plane (const MCPlane * in, MCPlane * out, unsigned radius,
    unsigned threshold, const MCOptions * opt, GError ** error)
{
  return sigma_plane (in, out, radius, threshold, TRUE, opt, error);
}

gboolean
mc_sigma_filter_picture (const MCPicture * in, MCPicture * out,
    unsigned radius, unsigned threshold, const MCOptions * opt,
    GError ** error)
{
  if (!check_picture (in, "input", error)
      || !check_picture (out, "output", error))
    return FALSE;
  if (out->chroma != in->chroma)
    return invalid (error, "output", "chroma %d, not the input's %d",
        out->chroma, in->chroma);
  const unsigned n = in->chroma == MC_CHROMA_NONE ? 1 : 3;
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < n; j++)
      if (overlap (&out->planes[i], &in->planes[j]))
        return invalid (error, "output", "plane %u overlaps a plane of the "
            "input", i);
  for (unsigned i = 0; i < n; i++)
    if (!sigma_plane (&in->planes[i], &out->planes[i], radius, threshold,
            i == n - 1, opt, error))
      return FALSE;
  return TRUE;
}

/* ---- bilateral costs ---------------------------------------------------- */

/* The implementation's bilateral costs, or the C reference's when it has
 * none (host planes only: pick_impl() has refused device planes for an
 * implementation that does not read them). */
static gboolean
bilateral_costs (const MCImpl * impl, const MCPlane * prev,
    const MCPlane * next, const MCGrid * g, const MCBiCand * cand,
    unsigned k, uint32_t * costs, const MCOptions * opt, GError ** error)
{
  if (!impl->bilateral_costs)
    impl = mc_impl_c ();
  return impl->bilateral_costs (prev, next, g, cand, k, costs, opt, error);
}

gboolean
mc_bilateral_costs (const MCPlane * prev, const MCPlane * next,
    unsigned block_w, unsigned block_h, const MCBiCand * cand, unsigned k,
    uint32_t * costs, const MCOptions * opt, GError ** error)
{
  MCOptions def;
  MCGrid g;
  if (!check_plane (prev, "prev", error) || !check_plane (next, "next",
          error) || !same_shape (prev, next, "next", error))
    return FALSE;
  if (!check_block (block_w, "grid", error)
      || !check_block (block_h, "grid", error))
    return FALSE;
  if (k < 1 || k > 4096)
    return invalid (error, "candidates", "%u a cell, not 1..4096", k);
  if (!cand || !costs)
    return invalid (error, "candidates", "no candidates or no costs");
  g.bw = block_w;
  g.bh = block_h;
  g.ncols = (prev->width + block_w - 1) / block_w;
  g.nrows = (prev->height + block_h - 1) / block_h;
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  return impl && bilateral_costs (impl, prev, next, &g, cand, k, costs, opt,
      error);
}

/* ---- interpolation ------------------------------------------------------ */

static gboolean
check_time (int num, int den, GError ** error)
{
  if (den < 1 || den > 65536 || num < 0 || num > den)
    return invalid (error, "time", "%d/%d: den 1..65536, 0 <= num <= den",
        num, den);
  return TRUE;
}

gboolean
mc_interpolate_weights (const MCField * next_field,
    const MCField * prev_field, int num, int den, unsigned depth,
    uint8_t * weights, uint8_t * fallback, unsigned *n_fallback,
    GError ** error)
{
  if (!check_field (next_field, error) || !check_field (prev_field, error))
    return FALSE;
  if (!check_block (next_field->block_w, "next's field", error)
      || !check_block (next_field->block_h, "next's field", error))
    return FALSE;
  if (next_field->block_w != prev_field->block_w
      || next_field->block_h != prev_field->block_h
      || next_field->cols != prev_field->cols
      || next_field->rows != prev_field->rows)
    return invalid (error, "fields", "prev's field has %ux%u blocks of "
        "%ux%u, next's %ux%u of %ux%u: one grid needed", prev_field->cols,
        prev_field->rows, prev_field->block_w, prev_field->block_h,
        next_field->cols, next_field->rows, next_field->block_w,
        next_field->block_h);
  if (depth < 8 || depth > 16)
    return invalid (error, "fields", "depth %u outside 8..16", depth);
  if (!check_time (num, den, error))
    return FALSE;
  if (!weights)
    return invalid (error, "weights", "no storage");
  const int bw = (int) next_field->block_w, bh = (int) next_field->block_h;
  const uint32_t trust = mc_interp_trust (bw, bh, (int) depth);
  const int wt = mc_interp_time_weight (num, den);
  const size_t sn = next_field->stride ? next_field->stride
      : next_field->cols;
  const size_t sp = prev_field->stride ? prev_field->stride
      : prev_field->cols;
  unsigned count = 0;
  for (unsigned r = 0; r < next_field->rows; r++)
    for (unsigned c = 0; c < next_field->cols; c++) {
      const size_t i = (size_t) r * next_field->cols + c;
      const int w = mc_interp_weight (next_field->cells[r * sn + c].cost,
          prev_field->cells[r * sp + c].cost, num, den, trust);
      weights[i] = (uint8_t) (w == MC_INTERP_FALLBACK ? wt : w);
      if (fallback)
        fallback[i] = w == MC_INTERP_FALLBACK;
      count += w == MC_INTERP_FALLBACK;
    }
  if (n_fallback)
    *n_fallback = count;
  return TRUE;
}

/* Every plane of a picture valid, the chroma of the luma's size. */
static gboolean
check_picture (const MCPicture * p, const char *what, GError ** error)
{
  char name[64];
  if (!p)
    return invalid (error, what, "no picture");
  if (p->chroma > MC_CHROMA_444)
    return invalid (error, what, "chroma %d is not an MCChroma", p->chroma);
  unsigned sx, sy;
  chroma_sub (p->chroma, &sx, &sy);
  const unsigned n = p->chroma == MC_CHROMA_NONE ? 1 : 3;
  for (unsigned i = 0; i < n; i++) {
    g_snprintf (name, sizeof name, "%s, plane %u", what, i);
    if (!check_plane (&p->planes[i], name, error))
      return FALSE;
    const unsigned w = i ? (p->planes[0].width + sx) >> sx
        : p->planes[0].width;
    const unsigned h = i ? (p->planes[0].height + sy) >> sy
        : p->planes[0].height;
    if (p->planes[i].width != w || p->planes[i].height != h
        || p->planes[i].depth != p->planes[0].depth)
      return invalid (error, name, "%ux%u at %u bits, not %ux%u at %u bits",
          p->planes[i].width, p->planes[i].height, p->planes[i].depth, w, h,
          p->planes[0].depth);
  }
  return TRUE;
}

/* Temporary planes between prediction and blend: device memory for an
 * implementation that takes device planes, else host memory. */
typedef struct {
  gboolean device;
  void *data[2];
} Temps;

static void *
temp_alloc (Temps * t, int i, size_t size, GError ** error)
{
  t->data[i] = t->device ? mc_cuda_alloc (size, error) : g_malloc (size);
  return t->data[i];
}

static void
temps_free (Temps * t)
{
  for (int i = 0; i < 2; i++) {
    if (t->device)
      mc_cuda_free (t->data[i]);
    else
      g_free (t->data[i]);
  }
}

/* out = prev and next mixed by one weight everywhere (the modes without
 * motion): the blend over a grid of 16x16 blocks of weight w, which the
 * windows, summing to one, leave w at every sample. */
static gboolean
blend_uniform (const MCPicture * prev, const MCPicture * next,
    MCPicture * out, int w, const MCOptions * opt, GError ** error)
{
  const unsigned cols = (prev->planes[0].width + 15) / 16;
  const unsigned rows = (prev->planes[0].height + 15) / 16;
  uint8_t *weights = g_malloc ((size_t) cols * rows);
  memset (weights, w, (size_t) cols * rows);
  unsigned sx, sy;
  chroma_sub (prev->chroma, &sx, &sy);
  const unsigned n = prev->chroma == MC_CHROMA_NONE ? 1 : 3;
  gboolean ok = TRUE;
  for (unsigned i = 0; ok && i < n; i++)
    ok = mc_blend_plane (&prev->planes[i], &next->planes[i], &out->planes[i],
        weights, 16, 16, cols, rows, i ? sx : 0, i ? sy : 0, opt, error);
  g_free (weights);
  return ok;
}

/* The bilateral choice (docs/motion-compensation.md, "Interpolation").
 * The cells whose vectors a cell's candidates come from, in the order
 * that breaks ties: itself, then its neighbours left, right, above and
 * below (clamped into the grid, so that a cell at an edge repeats itself:
 * a repeat never wins, being later and no cheaper). */
static const int8_t bi_cells[][2] = {
  {0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1},
  {-1, -1}, {1, -1}, {-1, 1}, {1, 1},
};

/* The first five: the cell and its four neighbours (the diagonals as well
 * gained nothing on the measured clips and cost twice the work). */
static const unsigned bi_n_cells = 5;

/* Candidates a cell: the vector of next's field and that of prev's at
 * each cell of bi_cells, then the zero motion. */
static unsigned
bi_k (void)
{
  return 2 * bi_n_cells + 1;
}

/* A vector v of next's field (next(p) ~ prev(p + v)): a = t v, b = -(1 -
 * t) v.  b is scaled from -v rather than negated after scaling: the same
 * value (mc_scale_qpel() is odd), and still 16 bits when v is -32768. */
static MCBiCand
bi_from_next (const GstMotionVectorCell * v, int num, int den)
{
  MCBiCand c = { (int16_t) mc_scale_qpel (v->mv_x, num, den),
    (int16_t) mc_scale_qpel (v->mv_y, num, den),
    (int16_t) mc_scale_qpel (-v->mv_x, den - num, den),
    (int16_t) mc_scale_qpel (-v->mv_y, den - num, den)
  };
  return c;
}

/* A vector u of prev's field (prev(p) ~ next(p + u)): a = -t u, b = (1 -
 * t) u. */
static MCBiCand
bi_from_prev (const GstMotionVectorCell * u, int num, int den)
{
  MCBiCand c = { (int16_t) mc_scale_qpel (-u->mv_x, num, den),
    (int16_t) mc_scale_qpel (-u->mv_y, num, den),
    (int16_t) mc_scale_qpel (u->mv_x, den - num, den),
    (int16_t) mc_scale_qpel (u->mv_y, den - num, den)
  };
  return c;
}

/* Every luma cell's candidates, bi_k () a cell, cell i = r ncols + c of
 * the luma grid g. */
static void
bi_candidates (const MCField * nf, const MCField * pf, const MCGrid * g,
    int num, int den, MCBiCand * cand)
{
  const size_t sn = nf->stride ? nf->stride : nf->cols;
  const size_t sp = pf->stride ? pf->stride : pf->cols;
  const unsigned k = bi_k ();
  for (unsigned r = 0; r < g->nrows; r++)
    for (unsigned c = 0; c < g->ncols; c++) {
      MCBiCand *cd = cand + ((size_t) r * g->ncols + c) * k;
      for (unsigned n = 0; n < bi_n_cells; n++) {
        const int cc = mc_clamp ((int) c + bi_cells[n][0], (int) g->ncols);
        const int rr = mc_clamp ((int) r + bi_cells[n][1], (int) g->nrows);
        cd[2 * n] = bi_from_next (&nf->cells[rr * sn + cc], num, den);
        cd[2 * n + 1] = bi_from_prev (&pf->cells[rr * sp + cc], num, den);
      }
      cd[k - 1] = (MCBiCand) { 0, 0, 0, 0 };
    }
}

/* The scaled fields of the prediction, from_prev (a) and from_next (b),
 * grids of the fields' cols x rows: each luma cell takes its candidate of
 * lowest key (mc_bi_key(): the cost and the motion's length), the
 * earliest of equal ones; cells past the luma grid and cells that fall
 * back are unmoved. */
static uint64_t
bi_key (const MCBiCand * c, uint32_t cost, const MCGrid * g, unsigned depth)
{
  return mc_bi_key (cost, abs (c->ax) + abs (c->ay) + abs (c->bx)
      + abs (c->by), (int) g->bw, (int) g->bh, (int) depth);
}

static void
bi_choose (const MCGrid * g, const MCBiCand * cand, const uint32_t * costs,
    unsigned depth, const uint8_t * fallback, unsigned cols,
    GstMotionVectorCell * fp,
    GstMotionVectorCell * fn, size_t cells)
{
  const unsigned k = bi_k ();
  for (size_t i = 0; i < cells; i++)
    fp[i].mv_x = fp[i].mv_y = fn[i].mv_x = fn[i].mv_y = 0;
  for (unsigned r = 0; r < g->nrows; r++)
    for (unsigned c = 0; c < g->ncols; c++) {
      const size_t i = (size_t) r * g->ncols + c, f = (size_t) r * cols + c;
      if (fallback[f])
        continue;
      unsigned best = 0;
      uint64_t best_key = bi_key (&cand[i * k], costs[i * k], g, depth);
      for (unsigned j = 1; j < k; j++) {
        const uint64_t key = bi_key (&cand[i * k + j], costs[i * k + j], g,
            depth);
        if (key < best_key) {
          best = j;
          best_key = key;
        }
      }
      const MCBiCand *cd = &cand[i * k + best];
      fp[f].mv_x = cd->ax;
      fp[f].mv_y = cd->ay;
      fn[f].mv_x = cd->bx;
      fn[f].mv_y = cd->by;
    }
}

/* The weights and fallback flags of mc_interpolate_weights() and the two
 * scaled fields of the prediction (bi_choose()), for checked arguments:
 * the luma planes of one shape, fields of one grid covering them. */
static gboolean
interp_fields (const MCImpl * impl, const MCPlane * prev,
    const MCPlane * next, const MCField * next_field,
    const MCField * prev_field, int num, int den, const MCOptions * opt,
    uint8_t * weights, uint8_t * fallback, unsigned *n_fallback,
    GstMotionVectorCell * fp, GstMotionVectorCell * fn, GError ** error)
{
  const size_t cells = (size_t) next_field->cols * next_field->rows;
  MCGrid lg;
  if ((unsigned) opt->pairing > MC_PAIR_FIELDS)
    return invalid (error, "pairing", "%d is not an MCPairing", opt->pairing);
  gboolean ok = mc_interpolate_weights (next_field, prev_field, num, den,
      prev->depth, weights, fallback, n_fallback, error)
      && plane_grid (prev, next_field->block_w, next_field->block_h,
      next_field->cols, next_field->rows, 0, 0, &lg, error);
  if (!ok)
    return FALSE;
  if (opt->pairing == MC_PAIR_FIELDS) {
    /* prev moved by next's field at the block, next by prev's, each scaled
     * to its side of t; fallback blocks unmoved */
    ok = mc_field_scale (next_field, fp, num, den, error)
        && mc_field_scale (prev_field, fn, den - num, den, error);
    for (size_t i = 0; ok && i < cells; i++)
      if (fallback[i])
        fp[i].mv_x = fp[i].mv_y = fn[i].mv_x = fn[i].mv_y = 0;
    return ok;
  }
  const size_t nc = (size_t) lg.ncols * lg.nrows * bi_k ();
  MCBiCand *cand = g_new (MCBiCand, nc);
  uint32_t *costs = g_new (uint32_t, nc);
  bi_candidates (next_field, prev_field, &lg, num, den, cand);
  /* the costs read the inputs alone */
  MCOptions copt = *opt;
  copt.device = (MCDevice) (opt->device & MC_DEVICE_INPUTS);
  ok = bilateral_costs (impl, prev, next, &lg, cand, bi_k (), costs, &copt,
      error);
  if (ok)
    bi_choose (&lg, cand, costs, prev->depth, fallback, next_field->cols, fp,
        fn, cells);
  g_free (cand);
  g_free (costs);
  return ok;
}

gboolean
mc_interpolate_fields (const MCPlane * prev, const MCPlane * next,
    const MCField * next_field, const MCField * prev_field, int num, int den,
    const MCOptions * opt, GstMotionVectorCell * from_prev,
    GstMotionVectorCell * from_next, unsigned *n_fallback, GError ** error)
{
  MCOptions def;
  if (n_fallback)
    *n_fallback = 0;
  if (!check_plane (prev, "prev", error) || !check_plane (next, "next",
          error) || !same_shape (prev, next, "next", error))
    return FALSE;
  if (!check_field (next_field, error) || !check_field (prev_field, error))
    return FALSE;
  if (!check_time (num, den, error))
    return FALSE;
  if (!from_prev || !from_next)
    return invalid (error, "scaled fields", "no cells");
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  if (!impl)
    return FALSE;
  const size_t cells = (size_t) next_field->cols * next_field->rows;
  uint8_t *weights = g_malloc (cells);
  uint8_t *fallback = g_malloc (cells);
  memset (from_prev, 0, cells * sizeof *from_prev);
  memset (from_next, 0, cells * sizeof *from_next);
  const gboolean ok = interp_fields (impl, prev, next, next_field,
      prev_field, num, den, opt, weights, fallback, n_fallback, from_prev,
      from_next, error);
  g_free (weights);
  g_free (fallback);
  if (!ok && n_fallback)
    *n_fallback = 0;
  return ok;
}

gboolean
mc_interpolate_picture (const MCPicture * prev, const MCPicture * next,
    MCPicture * out, const MCField * next_field, const MCField * prev_field,
    int num, int den, MCInterpMode mode, const MCOptions * opt,
    unsigned *n_fallback, GError ** error)
{
  MCOptions def;
  if (n_fallback)
    *n_fallback = 0;
  if (!check_picture (prev, "prev", error)
      || !check_picture (next, "next", error)
      || !check_picture (out, "output", error))
    return FALSE;
  if (next->chroma != prev->chroma || out->chroma != prev->chroma)
    return invalid (error, "pictures", "chroma %d, %d, %d (prev, next, "
        "output): one needed", prev->chroma, next->chroma, out->chroma);
  if (!same_shape (&prev->planes[0], &next->planes[0], "next", error)
      || !same_shape (&prev->planes[0], &out->planes[0], "output", error))
    return FALSE;
  const unsigned n = prev->chroma == MC_CHROMA_NONE ? 1 : 3;
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < n; j++)
      if (overlap (&out->planes[i], &prev->planes[j])
          || overlap (&out->planes[i], &next->planes[j]))
        return invalid (error, "output", "plane %u overlaps a plane of "
            "prev or next", i);
  if (!check_time (num, den, error))
    return FALSE;
  if ((unsigned) mode > MC_INTERP_REPEAT)
    return invalid (error, "mode", "%d is not an MCInterpMode", mode);
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  if (!impl)
    return FALSE;
  if (mode == MC_INTERP_REPEAT)
    return blend_uniform (prev, next, out, 2 * num < den ? MC_BLEND_ONE : 0,
        opt, error);
  if (mode == MC_INTERP_BLEND)
    return blend_uniform (prev, next, out, mc_interp_time_weight (num, den),
        opt, error);

  /* motion: per-block weights, the two fields scaled, fallback blocks
   * unmoved on both sides */
  if (!next_field || !prev_field)
    return invalid (error, "fields", "motion interpolation needs both");
  const size_t cells = (size_t) next_field->cols * next_field->rows;
  if (!check_field (next_field, error) || !check_field (prev_field, error))
    return FALSE;
  uint8_t *weights = g_malloc (cells);
  uint8_t *fallback = g_malloc (cells);
  GstMotionVectorCell *fp = g_new0 (GstMotionVectorCell, cells);
  GstMotionVectorCell *fn = g_new0 (GstMotionVectorCell, cells);
  Temps temps = { impl->device_planes, { NULL, NULL } };
  gboolean ok = interp_fields (impl, &prev->planes[0], &next->planes[0],
      next_field, prev_field, num, den, opt, weights, fallback, n_fallback,
      fp, fn, error);
  const MCField sp = { next_field->block_w, next_field->block_h,
    next_field->cols, next_field->rows, 0, fp
  };
  const MCField sn = { prev_field->block_w, prev_field->block_h,
    prev_field->cols, prev_field->rows, 0, fn
  };

  unsigned sx, sy;
  chroma_sub (prev->chroma, &sx, &sy);
  if (impl->interpolate_plane) {
    for (unsigned i = 0; ok && i < n; i++) {
      MCGrid grid;
      ok = plane_grid (&out->planes[i], next_field->block_w,
          next_field->block_h, next_field->cols, next_field->rows,
          i ? sx : 0, i ? sy : 0, &grid, error)
          && impl->interpolate_plane (&prev->planes[i], &next->planes[i],
          &out->planes[i], &sp, &sn, weights, next_field->cols, &grid,
          i ? sx : 0, i ? sy : 0, opt, error);
    }
    goto done;
  }

  /* The prediction from prev goes straight into out when out lies where
   * the implementation keeps its temporaries (always for the C reference;
   * for CUDA when out is device memory), and the blend is then done in
   * place; otherwise into a temporary of its own. */
  const gboolean p0_in_out = !temps.device
      || (opt->device & MC_DEVICE_OUTPUT);
  const unsigned bps = prev->planes[0].depth > 8 ? 2 : 1;
  const size_t tsize = (size_t) prev->planes[0].width * bps
      * prev->planes[0].height;
  if (ok && !temp_alloc (&temps, 0, tsize, error))
    ok = FALSE;
  if (ok && !p0_in_out && !temp_alloc (&temps, 1, tsize, error))
    ok = FALSE;
  MCOptions popt = *opt, bopt = *opt;
  if (temps.device) {
    popt.device = (MCDevice) ((opt->device & MC_DEVICE_INPUTS)
        | MC_DEVICE_OUTPUT);
    bopt.device = (MCDevice) (MC_DEVICE_INPUTS
        | (opt->device & MC_DEVICE_OUTPUT));
  }
  for (unsigned i = 0; ok && i < n; i++) {
    const MCPlane *o = &out->planes[i];
    /* temporaries are plain planes (pstride 0) whatever out's layout */
    MCPlane p1 = { temps.data[0], (ptrdiff_t) (o->width * bps), o->width,
      o->height, o->depth, o->shift, 0
    };
    MCPlane p0 = p1;
    if (p0_in_out)
      p0 = *o;
    else
      p0.data = temps.data[1];
    ok = mc_predict_plane (&prev->planes[i], &p0, &sp, i ? sx : 0,
        i ? sy : 0, &popt, error)
        && mc_predict_plane (&next->planes[i], &p1, &sn, i ? sx : 0,
        i ? sy : 0, &popt, error)
        && mc_blend_plane (&p0, &p1, &out->planes[i], weights,
        next_field->block_w, next_field->block_h, next_field->cols,
        next_field->rows, i ? sx : 0, i ? sy : 0, &bopt, error);
  }
done:
  temps_free (&temps);
  g_free (weights);
  g_free (fallback);
  g_free (fp);
  g_free (fn);
  if (!ok && n_fallback)
    *n_fallback = 0;
  return ok;
}

/* ---- warping ------------------------------------------------------------ */

static gboolean
round_fixed (double v, double limit, int64_t * out, const char *name,
    GError ** error)
{
  /* limit is in units; v rounded to 1/65536, halves away from zero */
  if (!(v == v) || v > limit || v < -limit)
    return invalid (error, "warp", "%s %g is not finite or past +-%g", name,
        v, limit);
  const double s = v * MC_WARP_ONE;
  *out = (int64_t) (s < 0 ? -floor (-s + 0.5) : floor (s + 0.5));
  return TRUE;
}

gboolean
mc_warp_from_double (MCWarp * w, double xx, double xy, double yx, double yy,
    double x0, double y0, GError ** error)
{
  int64_t v[6] = { 0 };
  const double c = (double) MC_WARP_MAX_COEF / MC_WARP_ONE;
  const double t = (double) MC_WARP_MAX_SHIFT / MC_WARP_ONE;
  if (!w)
    return invalid (error, "warp", "no map");
  if (!round_fixed (xx, c, &v[0], "xx", error)
      || !round_fixed (xy, c, &v[1], "xy", error)
      || !round_fixed (yx, c, &v[2], "yx", error)
      || !round_fixed (yy, c, &v[3], "yy", error)
      || !round_fixed (x0, t, &v[4], "x0", error)
      || !round_fixed (y0, t, &v[5], "y0", error))
    return FALSE;
  w->xx = (int32_t) v[0];
  w->xy = (int32_t) v[1];
  w->yx = (int32_t) v[2];
  w->yy = (int32_t) v[3];
  w->x0 = v[4];
  w->y0 = v[5];
  return TRUE;
}

void
mc_warp_chroma (const MCWarp * w, unsigned sub_x, unsigned sub_y,
    MCWarp * out)
{
  /* twice the luma offset of a chroma sample's centre: 0 or 1 */
  const int64_t ox2 = (1 << sub_x) - 1, oy2 = (1 << sub_y) - 1;
  MCWarp c;
  c.xx = w->xx;
  c.yy = w->yy;
  c.xy = (int32_t) (((int64_t) w->xy * (1 << sub_y)) >> sub_x);
  c.yx = (int32_t) (((int64_t) w->yx * (1 << sub_x)) >> sub_y);
  c.x0 = ((int64_t) w->xx * ox2 + (int64_t) w->xy * oy2 + 2 * w->x0
      - ox2 * MC_WARP_ONE) >> (1 + sub_x);
  c.y0 = ((int64_t) w->yx * ox2 + (int64_t) w->yy * oy2 + 2 * w->y0
      - oy2 * MC_WARP_ONE) >> (1 + sub_y);
  *out = c;
}

static gboolean
check_warp (const MCWarp * w, GError ** error)
{
  if (!w)
    return invalid (error, "warp", "no map");
  const int32_t m[4] = { w->xx, w->xy, w->yx, w->yy };
  for (int i = 0; i < 4; i++)
    if (m[i] > MC_WARP_MAX_COEF || m[i] < -MC_WARP_MAX_COEF)
      return invalid (error, "warp", "coefficient %d is %d/65536, past "
          "+-16", i, m[i]);
  if (w->x0 > MC_WARP_MAX_SHIFT || w->x0 < -MC_WARP_MAX_SHIFT
      || w->y0 > MC_WARP_MAX_SHIFT || w->y0 < -MC_WARP_MAX_SHIFT)
    return invalid (error, "warp", "offset past +-65536 samples");
  return TRUE;
}

/* The plane's warp by the implementation, or by the C reference for one
 * without its own (host planes only).  Arguments checked. */
static gboolean
warp_plane_impl (const MCImpl * impl, const MCPlane * in, MCPlane * out,
    const MCWarp * w, const MCOptions * opt, GError ** error)
{
  if (!impl->warp_plane) {
    if (opt->device)
      return invalid (error, "options", "planes in device memory, but the "
          "%s implementation has no warp of its own", impl->name);
    impl = mc_impl_c ();
  }
  return impl->warp_plane (in, out, w, opt, error);
}

gboolean
mc_warp_plane (const MCPlane * in, MCPlane * out, const MCWarp * w,
    const MCOptions * opt, GError ** error)
{
  MCOptions def;
  if (!check_plane (in, "input", error) || !check_plane (out, "output",
          error) || !check_warp (w, error))
    return FALSE;
  if (in->depth != out->depth)
    return invalid (error, "output", "%u bits, the input %u", out->depth,
        in->depth);
  if (overlap (in, out))
    return invalid (error, "output", "overlaps the input");
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  return impl && warp_plane_impl (impl, in, out, w, opt, error);
}

gboolean
mc_warp_picture (const MCPicture * in, MCPicture * out, const MCWarp * w,
    const MCOptions * opt, GError ** error)
{
  MCOptions def;
  if (!check_picture (in, "input", error)
      || !check_picture (out, "output", error) || !check_warp (w, error))
    return FALSE;
  if (in->chroma != out->chroma)
    return invalid (error, "output", "chroma %d, the input's %d",
        out->chroma, in->chroma);
  if (in->planes[0].depth != out->planes[0].depth)
    return invalid (error, "output", "%u bits, the input %u",
        out->planes[0].depth, in->planes[0].depth);
  const unsigned n = in->chroma == MC_CHROMA_NONE ? 1 : 3;
  for (unsigned a = 0; a < n; a++)
    for (unsigned b = 0; b < n; b++)
      if (overlap (&out->planes[a], &in->planes[b]))
        return invalid (error, "output", "plane %u overlaps plane %u of the "
            "input", a, b);
  opt = options (opt, &def);
  const MCImpl *impl = pick_impl (opt, error);
  if (!impl)
    return FALSE;
  unsigned sx, sy;
  chroma_sub (in->chroma, &sx, &sy);
  for (unsigned p = 0; p < n; p++) {
    MCWarp pw = *w;
    if (p)
      mc_warp_chroma (w, sx, sy, &pw);
    if (!warp_plane_impl (impl, &in->planes[p], &out->planes[p], &pw, opt,
            error))
      return FALSE;
  }
  return TRUE;
}
