/* gpumotionest — the backend registry, and the one entry point that checks
 * input and capabilities before any backend sees a frame. */
#include "config.h"

#include <string.h>

#include "me_backend.h"
#include "me_rate.h"
#include "me_cost.h"

G_DEFINE_QUARK (me-backend-error-quark, me_backend_error);

extern const MEBackendOps me_backend_cpu;
#if HAVE_CUDA
extern const MEBackendOps me_backend_cuda;
extern const MEBackendOps me_backend_cuda_multi;
#define ME_BACKEND_CUDA (&me_backend_cuda)
#define ME_BACKEND_CUDA_MULTI (&me_backend_cuda_multi)
#else
#define ME_BACKEND_CUDA NULL
#define ME_BACKEND_CUDA_MULTI NULL
#endif

/* One line per backend, in the order "auto" tries them.  The ids are the
 * element's enum values and never change; 0 is "auto".  Backends after
 * "cpu", which always opens, are only had by name. */
static const MEBackendEntry registry[] = {
  {2, "cuda", "NVIDIA GPU (CUDA)", ME_BACKEND_CUDA},
  {1, "cpu", "CPU (SIMD, all cores)", &me_backend_cpu},
  {3, "cuda-multi", "Several NVIDIA GPUs (CUDA), frames split across the "
        "devices property's list", ME_BACKEND_CUDA_MULTI},
};

const MEBackendEntry *
me_backend_registry (unsigned *n_entries)
{
  *n_entries = G_N_ELEMENTS (registry);
  return registry;
}

const MEBackendOps *
me_backend_find (const char *name)
{
  for (unsigned i = 0; i < G_N_ELEMENTS (registry); i++)
    if (strcmp (registry[i].name, name) == 0)
      return registry[i].ops;
  return NULL;
}

void
me_backend_options_init (MEBackendOptions * options)
{
  memset (options, 0, sizeof (*options));
  options->device = -1;
  options->simd = ~0u;
}

void
me_search_params_init (MESearchParams * params)
{
  memset (params, 0, sizeof (*params));
  params->search_range = 16;
  params->partitions = GST_MOTION_VECTOR_PARTITIONS_16X16;
  params->method = GST_MOTION_VECTOR_METHOD_FULL;
  params->refine = ME_REFINE_NONE;
  params->metric = ME_METRIC_SAD;
}

/* The layout of the samples: each pixel within its row, each byte read
 * within its pixel, weights that keep the derived luma within a byte. */
static gboolean
me_check_luma_layout (const MEPlane * luma, GError ** error)
{
  const unsigned step = luma->kind == ME_LUMA_PLANE ? 1 : luma->step;
  const unsigned n_offsets = luma->kind == ME_LUMA_RGB ? 3
      : luma->kind == ME_LUMA_PACKED ? 1 : 0;

  if (luma->kind > ME_LUMA_RGB || step < 1 || step > 16
      || (luma->kind == ME_LUMA_PLANE && luma->step > 1)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "luma of kind %d with %u bytes per pixel", (int) luma->kind,
        luma->step);
    return FALSE;
  }
  if (luma->stride < (ptrdiff_t) luma->width * (ptrdiff_t) step) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "luma stride %td smaller than width %u x %u bytes per pixel",
        luma->stride, luma->width, step);
    return FALSE;
  }
  for (unsigned i = 0; i < n_offsets; i++) {
    if (luma->offset[i] >= step) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "luma byte offset %u outside its %u-byte pixel",
          luma->offset[i], step);
      return FALSE;
    }
  }
  if (luma->kind == ME_LUMA_RGB && (unsigned) luma->weights[0]
      + luma->weights[1] + luma->weights[2] != 256) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "luma weights %u + %u + %u do not sum to 256", luma->weights[0],
        luma->weights[1], luma->weights[2]);
    return FALSE;
  }
  if (luma->depth != 0 && (luma->depth < 8 || luma->depth > 16)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "luma of %u bits per sample, not 8 .. 16", luma->depth);
    return FALSE;
  }
  if (me_plane_depth (luma) > 8) {
    if (luma->kind != ME_LUMA_PLANE || luma->shift > 16 - luma->depth) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "%u-bit luma of kind %d shifted by %u: only a plane of 16-bit "
          "words whose %u bits start at bit 0 .. %u", luma->depth,
          (int) luma->kind, luma->shift, luma->depth, 16 - luma->depth);
      return FALSE;
    }
    if (luma->stride < 2 * (ptrdiff_t) luma->width || (luma->stride & 1)
        || ((uintptr_t) luma->data & 1)) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "%u-bit luma: stride %td for %u two-byte samples, or an odd "
          "address", luma->depth, luma->stride, luma->width);
      return FALSE;
    }
  } else if (luma->shift != 0) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "8-bit luma shifted by %u", luma->shift);
    return FALSE;
  }
  /* Packed and RGB frames are converted while copied to the host side of
   * a backend; a device pointer is read as a plane as it is. */
  if (luma->kind != ME_LUMA_PLANE && luma->on_device) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "packed or RGB luma is read from host memory only");
    return FALSE;
  }
  return TRUE;
}

static gboolean check_params (const MESearchParams * params,
    const MEField * out, GError ** error);

/* The rate term is scaled to the samples' depth (me_rate.h): the scaled
 * lambda must stay within ME_MAX_LAMBDA, which keeps every cost within
 * the comparison key. */
static gboolean
check_lambda_depth (const MESearchParams * params, unsigned depth,
    GError ** error)
{
  if (params->lambda > me_max_lambda_at_depth (depth)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "lambda %u above %u, the most at %u bits per sample",
        params->lambda, me_max_lambda_at_depth (depth), depth);
    return FALSE;
  }
  return TRUE;
}

static gboolean
me_check_luma_size (const MEPlane * luma, GError ** error)
{
  if (!luma || !luma->data || luma->width < 1 || luma->height < 1
      || luma->width > ME_MAX_DIMENSION || luma->height > ME_MAX_DIMENSION) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "frame size %ux%u outside 1x1 .. %dx%d",
        luma ? luma->width : 0, luma ? luma->height : 0,
        ME_MAX_DIMENSION, ME_MAX_DIMENSION);
    return FALSE;
  }
  return TRUE;
}

gboolean
me_check_input (const MEPlane * luma, const MESearchParams * params,
    const MEField * out, GError ** error)
{
  if (!me_check_luma_size (luma, error) || !me_check_luma_layout (luma, error))
    return FALSE;
  if (!check_params (params, out, error)
      || !check_lambda_depth (params, me_plane_depth (luma), error))
    return FALSE;
  if (out->mb_cols != gst_motion_vector_mb_cols (luma->width)
      || out->mb_rows != gst_motion_vector_mb_rows (luma->height)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "field of %ux%u macroblocks does not match a %ux%u frame",
        out->mb_cols, out->mb_rows, luma->width, luma->height);
    return FALSE;
  }
  return TRUE;
}

/* The parameters, and a grid in `out` for every shape they ask for. */
static gboolean
check_params (const MESearchParams * params, const MEField * out,
    GError ** error)
{
  const gboolean full = params->method == GST_MOTION_VECTOR_METHOD_FULL;
  if (params->search_range < 1 || params->search_range > ME_MAX_FULL_RANGE) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "search range %u outside 1 .. %d", params->search_range,
        ME_MAX_FULL_RANGE);
    return FALSE;
  }
  if (!full && params->search_range > ME_MAX_RANGE) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "the fast methods go up to ±%d, not ±%u: use method full for larger "
        "ranges (up to ±%d)", ME_MAX_RANGE, params->search_range,
        ME_MAX_FULL_RANGE);
    return FALSE;
  }
  if (params->offset_x != 0
      && params->method != GST_MOTION_VECTOR_METHOD_FULL) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "a window centred off zero (offset %d) is searched by method full "
        "only", params->offset_x);
    return FALSE;
  }
  if (params->range_y > params->search_range
      || (params->range_y && params->range_y != params->search_range
          && params->method != GST_MOTION_VECTOR_METHOD_FULL)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "a window of ±%u across and ±%u down: the height goes up to the "
        "width, and a window wider than tall is searched by method full "
        "only", params->search_range, params->range_y);
    return FALSE;
  }
  if (params->offset_x != 0
      && (unsigned) ABS (params->offset_x) + params->search_range
      > ME_MAX_RANGE) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "window offset %d and range %u reach past ±%d", params->offset_x,
        params->search_range, ME_MAX_RANGE);
    return FALSE;
  }
  if (params->lambda > ME_MAX_LAMBDA) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "lambda %u above %d", params->lambda, ME_MAX_LAMBDA);
    return FALSE;
  }
  if ((params->partitions & GST_MOTION_VECTOR_PARTITIONS_ALL) == 0
      || (params->partitions & ~GST_MOTION_VECTOR_PARTITIONS_ALL) != 0) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "partition set 0x%x is empty or holds unknown shapes",
        (unsigned) params->partitions);
    return FALSE;
  }
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if ((params->partitions & (1u << p)) && !out->grid[p]) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "no output grid for requested partition shape %d", p);
      return FALSE;
    }
  }
  return TRUE;
}

/* What the backend can do, against what is asked. */
gboolean
me_backend_supports_depth (const MEBackendOps * ops, unsigned depth,
    GError ** error)
{
  const unsigned max = ops->caps.max_depth ? ops->caps.max_depth : 8;

  if ((depth ? depth : 8) > max) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
        "the %s backend searches samples of at most %u bits, not %u",
        ops->name, max, depth);
    return FALSE;
  }
  return TRUE;
}

gboolean
me_backend_supports (const MEBackendOps * ops, const MESearchParams * params,
    GError ** error)
{
  const MEBackendCaps *caps = &ops->caps;

  if ((unsigned) params->method >= 32
      || !(caps->methods & (1u << params->method))) {
    /* the nicks of GstMotionVectorMethod, as the element's property says */
    static const char *const names[] = { "full", "mods", "hierarchical",
      "predictive"
    };
    if ((unsigned) params->method < G_N_ELEMENTS (names))
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
          "the %s backend has no search method %s", ops->name,
          names[params->method]);
    else
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
          "the %s backend has no search method %d", ops->name,
          (int) params->method);
    return FALSE;
  }
  if ((unsigned) params->refine >= 32
      || !(caps->refinements & (1u << params->refine))) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
        "the %s backend has no refinement %d", ops->name,
        (int) params->refine);
    return FALSE;
  }
  if ((unsigned) params->metric >= 32
      || !(caps->metrics & (1u << params->metric))) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
        "the %s backend has no cost metric %d", ops->name,
        (int) params->metric);
    return FALSE;
  }
  if (params->lambda && !caps->rate) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
        "the %s backend has no rate-constrained decision (lambda)", ops->name);
    return FALSE;
  }
  /* (ranges no backend searches are invalid input, which
   * me_check_input() names: not a capability) */
  if (params->method == GST_MOTION_VECTOR_METHOD_FULL
      && params->search_range <= ME_MAX_FULL_RANGE
      && params->search_range > caps->max_full_range) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
        "the %s backend's full search goes up to ±%u, not ±%u", ops->name,
        caps->max_full_range, params->search_range);
    return FALSE;
  }
  if ((params->offset_x != 0
          || params->method != GST_MOTION_VECTOR_METHOD_FULL)
      && (unsigned) ABS (params->offset_x) + params->search_range
      <= ME_MAX_RANGE
      && (unsigned) ABS (params->offset_x) + params->search_range
      > caps->max_range) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
        "the %s backend searches at most ±%u, not ±%u", ops->name,
        caps->max_range, ABS (params->offset_x) + params->search_range);
    return FALSE;
  }
  return TRUE;
}

/* ---- an open backend ------------------------------------------------------ */

struct MEBackend {
  const MEBackendOps *ops;
  MESession *session;
  MEBackendOptions options;
  /* submit times of the frames in flight, oldest first, for the stats */
  GQueue submitted;
  GQueue fields;                /* and their MEField */
  guint64 collected;
};

/* TRUE when the caller's context is current (or there is none to make
 * current); leave() only after a TRUE. */
static inline gboolean
enter (const MEBackendOptions * o)
{
  return !o->enter || o->enter (o->context_data);
}

static inline void
leave (const MEBackendOptions * o)
{
  if (o->leave)
    o->leave (o->context_data);
}

static gboolean
enter_or_fail (const MEBackendOptions * o, GError ** error)
{
  if (enter (o))
    return TRUE;
  g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_DEVICE,
      "could not make the shared CUDA context current");
  return FALSE;
}

MEBackend *
me_backend_open (const MEBackendOps * ops, const MEBackendOptions * options,
    GError ** error)
{
  MEBackendOptions defaults;
  MESession *session;
  MEBackend *b;

  if (!options) {
    me_backend_options_init (&defaults);
    options = &defaults;
  }
  if ((guint) options->cuda_launch > ME_CUDA_LAUNCH_OWN) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "cuda_launch %d is none of auto, shared, own",
        (int) options->cuda_launch);
    return NULL;
  }
  if (!enter_or_fail (options, error))
    return NULL;
  session = ops->open (options, error);
  leave (options);
  if (!session)
    return NULL;
  b = g_new0 (MEBackend, 1);
  b->ops = ops;
  b->session = session;
  b->options = *options;
  g_queue_init (&b->submitted);
  g_queue_init (&b->fields);
  return b;
}

void
me_backend_close (MEBackend * b)
{
  if (!b)
    return;
  const gboolean entered = enter (&b->options);
  b->ops->close (b->session);
  if (entered)
    leave (&b->options);
  g_queue_clear (&b->submitted);
  g_queue_clear (&b->fields);
  g_free (b);
}

const MEBackendOps *
me_backend_get_ops (const MEBackend * b)
{
  return b->ops;
}

const char *
me_backend_name (const MEBackend * b)
{
  return b->ops->name;
}

const char *
me_backend_device_name (const MEBackend * b)
{
  return b->ops->device_name ? b->ops->device_name (b->session) : NULL;
}

unsigned
me_backend_max_in_flight (MEBackend * b)
{
  return b->ops->max_in_flight (b->session);
}

unsigned
me_backend_default_in_flight (MEBackend * b, const MESearchParams * params)
{
  return b->ops->default_in_flight ?
      b->ops->default_in_flight (b->session, params)
      : b->ops->max_in_flight (b->session);
}

void
me_backend_set_in_flight (MEBackend * b, unsigned depth)
{
  const gboolean entered = enter (&b->options);
  b->ops->set_in_flight (b->session,
      CLAMP (depth, 1, me_backend_max_in_flight (b)));
  if (entered)
    leave (&b->options);
}

/* A frame in CUDA device memory only for a backend that reads it there. */
static gboolean
device_memory_ok (const MEBackend * b, const MEPlane * luma, GError ** error)
{
  if (!me_backend_supports_depth (b->ops, luma->depth, error))
    return FALSE;
  if (luma->on_device && !b->ops->caps.cuda_device) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
        "the %s backend cannot read frames in CUDA device memory",
        b->ops->name);
    return FALSE;
  }
  return TRUE;
}

/* The submit time and field of a submission, for the stats hook. */
static void
note_submitted (MEBackend * b, MEField * field)
{
  if (b->options.stats) {
    gint64 *t = g_new (gint64, 1);
    *t = g_get_monotonic_time ();
    g_queue_push_tail (&b->submitted, t);
    g_queue_push_tail (&b->fields, field);
  }
}

gboolean
me_backend_submit (MEBackend * b, const MEPlane * luma,
    const MESearchParams * params, MEField * out, GError ** error)
{
  gboolean ok;

  if (!me_check_input (luma, params, out, error)
      || !me_backend_supports (b->ops, params, error))
    return FALSE;
  if (!device_memory_ok (b, luma, error))
    return FALSE;
  if (!enter_or_fail (&b->options, error))
    return FALSE;
  ok = b->ops->submit (b->session, luma, params, out, error);
  leave (&b->options);
  if (!ok)
    return FALSE;
  note_submitted (b, out);
  return TRUE;
}

gboolean
me_backend_submit_pairs (MEBackend * b, const MEPlane * luma,
    const MESearchParams * params, const MESearchPair * pairs,
    unsigned n_pairs, GError ** error)
{
  const unsigned window = b->ops->caps.window;
  gboolean ok;

  if (!b->ops->submit_pairs || window == 0) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNSUPPORTED,
        "the %s backend searches against the previous frame only",
        b->ops->name);
    return FALSE;
  }
  if (n_pairs > ME_MAX_PAIRS) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "%u searches of one submission, at most %d", n_pairs, ME_MAX_PAIRS);
    return FALSE;
  }
  for (unsigned i = 0; i < n_pairs; i++) {
    const MESearchPair *pr = &pairs[i];
    if (!pr->out || (luma ? !me_check_input (luma, params, pr->out, error)
            : !check_params (params, pr->out, error)))
      goto invalid;
    if (pr->target >= window || pr->reference >= window
        || pr->target == pr->reference) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "search of frame %u against frame %u (ages) outside the %s "
          "backend's window of %u frames", pr->target, pr->reference,
          b->ops->name, window);
      return FALSE;
    }
  }
  if (!me_backend_supports (b->ops, params, error))
    return FALSE;
  if (luma && (!me_check_luma_size (luma, error)
          || !me_check_luma_layout (luma, error)))
    return FALSE;
  if (luma && !device_memory_ok (b, luma, error))
    return FALSE;
  if (!enter_or_fail (&b->options, error))
    return FALSE;
  ok = b->ops->submit_pairs (b->session, luma, params, pairs, n_pairs, error);
  leave (&b->options);
  if (!ok)
    return FALSE;
  /* the first search's field stands for the submission in the stats */
  note_submitted (b, n_pairs ? pairs[0].out : NULL);
  return TRUE;

invalid:
  if (error && !*error)
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "a search with no field to fill");
  return FALSE;
}

gboolean
me_backend_collect (MEBackend * b, GError ** error)
{
  gboolean ok;

  ok = enter_or_fail (&b->options, error);
  if (ok) {
    ok = b->ops->collect (b->session, error);
    leave (&b->options);
  }
  if (!ok) {
    /* the frame's stats entry goes with it, so later ones stay in step */
    g_free (g_queue_pop_head (&b->submitted));
    g_queue_pop_head (&b->fields);
    return FALSE;
  }
  if (b->options.stats && !g_queue_is_empty (&b->submitted)) {
    gint64 *t = g_queue_pop_head (&b->submitted);
    MEField *field = g_queue_pop_head (&b->fields);
    MEFrameStats st = {
      .frame = b->collected,
      .submit_time = *t,
      .collect_time = g_get_monotonic_time (),
      .device_ms = b->ops->last_device_ms
          ? b->ops->last_device_ms (b->session) : -1.0,
      .has_reference = field && field->has_reference,
      .pruned_share = b->ops->last_pruned_share
          ? b->ops->last_pruned_share (b->session) : -1.0,
    };
    g_free (t);
    b->options.stats (&st, b->options.stats_data);
  }
  b->collected++;
  return TRUE;
}

void
me_backend_reset (MEBackend * b)
{
  const gboolean entered = enter (&b->options);
  b->ops->reset (b->session);
  if (entered)
    leave (&b->options);
  g_queue_clear_full (&b->submitted, g_free);
  g_queue_clear (&b->fields);
}
