/* gpumotionest — the CPU backend as the registry sees it: one backend for
 * every sample depth.
 *
 * The search is compiled once per sample size (bitdepth.h): 8-bit frames
 * go to the 8-bit build, frames of 9 to 16 bits to the 16-bit one.  A
 * session opens the build its frames need and, when the depth changes,
 * closes it and opens the other (or restarts the same one for another
 * depth of 16-bit frames): a new depth is a new sequence, with no
 * reference, as a new frame size is.
 *
 * The inner session searches in submit() and its collect() only counts;
 * each submission is collected from the inner session at once, so that
 * one never holds frames when it is closed, and this session keeps the
 * count the caller collects.
 */
#include "config.h"

#include "me_backend.h"
#include "me_cost.h"

#define ME_CPU_MAX_IN_FLIGHT 16

extern const MEBackendOps me_backend_cpu_impl_8bpc;
extern const MEBackendOps me_backend_cpu_impl_16bpc;

struct MESession {
  MEBackendOptions options;
  const MEBackendOps *impl;     /* NULL until the first frame */
  MESession *inner;
  unsigned depth;               /* of the inner session's frames */
  unsigned pending;             /* submissions not collected */
};

static MESession *
cpu_open (const MEBackendOptions * options, GError ** error)
{
  MESession *s = g_new0 (MESession, 1);

  s->options = *options;
  /* the 8-bit build at once: it reports a pool that cannot start now,
   * not at the first frame */
  s->impl = &me_backend_cpu_impl_8bpc;
  s->inner = s->impl->open (options, error);
  s->depth = 8;
  if (!s->inner) {
    g_free (s);
    return NULL;
  }
  return s;
}

static void
cpu_close (MESession * s)
{
  if (s->inner)
    s->impl->close (s->inner);
  g_free (s);
}

/* An inner session for frames of `depth` bits; a change of depth starts a
 * new sequence. */
static gboolean
use_depth (MESession * s, unsigned depth, GError ** error)
{
  const MEBackendOps *impl = depth > 8 ? &me_backend_cpu_impl_16bpc
      : &me_backend_cpu_impl_8bpc;

  if (s->inner && depth == s->depth)
    return TRUE;
  if (s->inner && impl == s->impl) {
    s->impl->reset (s->inner);
  } else {
    if (s->inner)
      s->impl->close (s->inner);
    s->impl = impl;
    s->inner = impl->open (&s->options, error);
    if (!s->inner)
      return FALSE;
  }
  s->depth = depth;
  return TRUE;
}

static unsigned
cpu_max_in_flight (MESession * s)
{
  return ME_CPU_MAX_IN_FLIGHT;
}

/* Searching happens in submit(): holding frames back gains nothing. */
static unsigned
cpu_default_in_flight (MESession * s,
    const MESearchParams * params G_GNUC_UNUSED)
{
  return 1;
}

static void
cpu_set_in_flight (MESession * s, unsigned depth)
{
}

static gboolean
cpu_submit (MESession * s, const MEPlane * luma, const MESearchParams * params,
    MEField * out, GError ** error)
{
  if (!use_depth (s, me_plane_depth (luma), error)
      || !s->impl->submit (s->inner, luma, params, out, error)
      || !s->impl->collect (s->inner, error))
    return FALSE;
  s->pending++;
  return TRUE;
}

static gboolean
cpu_submit_pairs (MESession * s, const MEPlane * luma,
    const MESearchParams * params, const MESearchPair * pairs,
    unsigned n_pairs, GError ** error)
{
  /* no new frame (the end of a stream): the frames held, of their depth */
  if (luma && !use_depth (s, me_plane_depth (luma), error))
    return FALSE;
  if (!s->impl->submit_pairs (s->inner, luma, params, pairs, n_pairs, error)
      || !s->impl->collect (s->inner, error))
    return FALSE;
  s->pending++;
  return TRUE;
}

static gboolean
cpu_collect (MESession * s, GError ** error)
{
  if (s->pending == 0) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "collect called with no frame submitted");
    return FALSE;
  }
  s->pending--;
  return TRUE;
}

static void
cpu_reset (MESession * s)
{
  s->pending = 0;
  if (s->inner)
    s->impl->reset (s->inner);
}

static double
cpu_last_pruned_share (MESession * s)
{
  return s->inner && s->impl->last_pruned_share
      ? s->impl->last_pruned_share (s->inner) : -1.0;
}

const MEBackendOps me_backend_cpu = {
  .name = "cpu",
  .caps = {
    .methods = 1u << GST_MOTION_VECTOR_METHOD_FULL
        | 1u << GST_MOTION_VECTOR_METHOD_MODS
        | 1u << GST_MOTION_VECTOR_METHOD_HIERARCHICAL
        | 1u << GST_MOTION_VECTOR_METHOD_PREDICTIVE,
    .refinements = 1u << ME_REFINE_NONE | 1u << ME_REFINE_HALF
        | 1u << ME_REFINE_QUARTER,
    .metrics = 1u << ME_METRIC_SAD | 1u << ME_METRIC_SATD,
    .rate = TRUE,
    .max_range = ME_MAX_RANGE,
    .frame_memory = ME_MEMORY_SYSTEM,
    .result_memory = ME_MEMORY_SYSTEM,
    .bit_exact = TRUE,
    .window = ME_MAX_WINDOW,
    .max_depth = 16,
    .max_full_range = ME_MAX_FULL_RANGE,
  },
  .open = cpu_open,
  .close = cpu_close,
  .max_in_flight = cpu_max_in_flight,
  .default_in_flight = cpu_default_in_flight,
  .set_in_flight = cpu_set_in_flight,
  .submit = cpu_submit,
  .collect = cpu_collect,
  .reset = cpu_reset,
  .submit_pairs = cpu_submit_pairs,
  .last_pruned_share = cpu_last_pruned_share,
};
