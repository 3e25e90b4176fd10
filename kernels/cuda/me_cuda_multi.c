/* gpumotionest — one stream of frames split over several GPUs.
 *
 * A session of the CUDA backend per device (MEBackendOptions.devices, or
 * every device), each in its device's own context.  Frame n is searched by
 * session n mod N, and its reference, frame n - 1, was searched by the
 * session before: so each frame is also handed to the next session as a
 * reference only (submit_reference: upload and border, no search).  Every
 * frame thus crosses the bus twice, once to each of two GPUs; the compute,
 * which is what limits a large search, is split N ways.
 *
 * Order.  The frames in flight form a FIFO; collect() takes the oldest:
 * its search from session k, then its reference copy from session k + 1,
 * so that the caller may release the frame's memory once collect()
 * returns.  Each session sees its submits collected in the order it got
 * them (search n, reference n, search n + N, ... interleave the same way
 * on both sides), which is the CUDA backend's rule.
 *
 * Not split: `predictive`, whose temporal predictors are the previous
 * frame's vectors, so that frame n cannot start before frame n - 1 ends on
 * another GPU; and frames already in device memory, which belong to one
 * GPU's context (caps.cuda_device is FALSE: the element reads them back).
 * With a single device the wrapper passes every call through.
 */
#include "config.h"

#include <string.h>

#include "me_backend.h"
#include "me_cost.h"
#include "me_cuda_host.h"

extern const MEBackendOps me_backend_cuda;

/* Frames in flight per device: each holds its searches and the reference
 * copies of the frames before the next session's, within the CUDA
 * backend's 8 slots. */
#define DEPTH_PER_DEVICE 4

typedef struct {
  unsigned session;             /* the session that searches it */
  gboolean ref_copy;            /* and the next one holds it as a reference */
} Flight;

struct MESession {
  const MEBackendOps *inner;
  MESession *s[ME_MAX_DEVICES];
  unsigned n;
  unsigned depth;
  guint64 next;                 /* frames submitted since the last reset */
  GQueue flights;               /* of Flight, oldest first */
  unsigned last;                /* session of the frame collected last */
  char device_name[512];
};

static void
multi_close (MESession * m)
{
  for (unsigned i = 0; i < m->n; i++)
    m->inner->close (m->s[i]);
  g_queue_clear_full (&m->flights, g_free);
  g_free (m);
}

static MESession *
multi_open (const MEBackendOptions * options, GError ** error)
{
  const MEBackendOps *inner = &me_backend_cuda;
  MESession *m = g_new0 (MESession, 1);
  int devices[ME_MAX_DEVICES];
  unsigned n = options->n_devices;

  m->inner = inner;
  g_queue_init (&m->flights);
  if (n > ME_MAX_DEVICES) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "%u devices named, at most %d", n, ME_MAX_DEVICES);
    goto fail;
  }
  if (n) {
    memcpy (devices, options->devices, n * sizeof (int));
  } else {
    n = MIN (me_cuda_device_count (), ME_MAX_DEVICES);
    for (unsigned i = 0; i < n; i++)
      devices[i] = i;
    if (!n) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNAVAILABLE,
          "no CUDA device");
      goto fail;
    }
  }
  /* Each session in its device's primary context: a shared context is
   * one device's, and frames in it are read back by the caller. */
  MEBackendOptions o = *options;
  o.current_cuda_context = FALSE;
  o.enter = NULL;
  o.leave = NULL;
  o.context_data = NULL;
  o.n_devices = 0;
  GString *name = g_string_new (NULL);
  for (unsigned i = 0; i < n; i++) {
    o.device = devices[i];
    m->s[i] = inner->open (&o, error);
    if (!m->s[i]) {
      g_prefix_error (error, "device %d: ", devices[i]);
      g_string_free (name, TRUE);
      goto fail;
    }
    m->n = i + 1;
    /* alone, the session is the wrapper; else it takes what the wrapper's
     * depth lets through */
    inner->set_in_flight (m->s[i], n == 1 ? inner->default_in_flight (m->s[i], NULL)
        : inner->max_in_flight (m->s[i]));
    g_string_append_printf (name, "%s%d: %s", i ? ", " : "", devices[i],
        inner->device_name (m->s[i]));
  }
  g_strlcpy (m->device_name, name->str, sizeof (m->device_name));
  g_string_free (name, TRUE);
  m->depth = n * DEPTH_PER_DEVICE;
  return m;

fail:
  multi_close (m);
  return NULL;
}

static unsigned
multi_max_in_flight (MESession * m)
{
  return m->n == 1 ? m->inner->max_in_flight (m->s[0]) :
      m->n * DEPTH_PER_DEVICE;
}

static unsigned
multi_default_in_flight (MESession * m, const MESearchParams * params)
{
  return m->n == 1 ? m->inner->default_in_flight (m->s[0], params) :
      m->n * DEPTH_PER_DEVICE;
}

static void
multi_set_in_flight (MESession * m, unsigned depth)
{
  if (m->n == 1)
    m->inner->set_in_flight (m->s[0], depth);
  m->depth = CLAMP (depth, 1, multi_max_in_flight (m));
}

static void
multi_reset (MESession * m)
{
  for (unsigned i = 0; i < m->n; i++)
    m->inner->reset (m->s[i]);
  g_queue_clear_full (&m->flights, g_free);
  m->next = 0;
}

static gboolean
multi_submit (MESession * m, const MEPlane * luma,
    const MESearchParams * params, MEField * out, GError ** error)
{
  if (g_queue_get_length (&m->flights) >= m->depth) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "%u frame(s) already in flight: collect one first", m->depth);
    return FALSE;
  }
  Flight *f = g_new0 (Flight, 1);
  f->session = m->next % m->n;
  f->ref_copy = m->n > 1;
  if (!m->inner->submit (m->s[f->session], luma, params, out, error)) {
    g_free (f);
    return FALSE;
  }
  if (f->ref_copy && !m->inner->submit_reference (m->s[(f->session + 1)
              % m->n], luma, error)) {
    /* A device failure.  The search went in and cannot be taken back, and
     * the next session lacks its reference: drop everything in flight
     * (after waiting for it, so that nothing reads the caller's frames
     * any longer), as a reset does. */
    g_free (f);
    multi_reset (m);
    return FALSE;
  }
  g_queue_push_tail (&m->flights, f);
  m->next++;
  return TRUE;
}

static gboolean
multi_collect (MESession * m, GError ** error)
{
  Flight *f = g_queue_pop_head (&m->flights);
  gboolean ok;

  if (!f) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "no frame in flight to collect");
    return FALSE;
  }
  ok = m->inner->collect (m->s[f->session], error);
  if (f->ref_copy) {
    GError *ref_error = NULL;
    if (!m->inner->collect (m->s[(f->session + 1) % m->n],
            ok ? error : &ref_error))
      ok = FALSE;
    g_clear_error (&ref_error);
  }
  m->last = f->session;
  g_free (f);
  return ok;
}

static double
multi_last_device_ms (MESession * m)
{
  return m->inner->last_device_ms (m->s[m->last]);
}

static const char *
multi_device_name (MESession * m)
{
  return m->device_name;
}

const MEBackendOps me_backend_cuda_multi = {
  .name = "cuda-multi",
  .caps = {
        .methods = 1u << GST_MOTION_VECTOR_METHOD_FULL
        | 1u << GST_MOTION_VECTOR_METHOD_MODS
        | 1u << GST_MOTION_VECTOR_METHOD_HIERARCHICAL,
        .refinements = 1u << ME_REFINE_NONE | 1u << ME_REFINE_HALF
        | 1u << ME_REFINE_QUARTER,
        .metrics = 1u << ME_METRIC_SAD | 1u << ME_METRIC_SATD,
        .rate = TRUE,
        .max_range = ME_MAX_RANGE,
        .frame_memory = ME_MEMORY_HOST_PINNED,
        .result_memory = ME_MEMORY_HOST_PINNED,
        .bit_exact = TRUE,
        .cuda_device = FALSE,
        /* every session gets each frame, searched or as a reference, and
         * forgets its references at a change of depth itself */
        .max_depth = 16,
        .max_full_range = ME_MAX_RANGE,
      },
  .open = multi_open,
  .close = multi_close,
  .max_in_flight = multi_max_in_flight,
  .default_in_flight = multi_default_in_flight,
  .set_in_flight = multi_set_in_flight,
  .submit = multi_submit,
  .collect = multi_collect,
  .reset = multi_reset,
  .host_alloc = me_cuda_host_alloc,
  .host_free = me_cuda_host_free,
  .last_device_ms = multi_last_device_ms,
  .device_name = multi_device_name,
};
