/* gpumotionest — checkasm: several sessions of one backend at once, each
 * stream's fields against the CPU backend's for that stream alone.
 *
 * Sessions of the CUDA backend that share a context hand their full
 * searches to one launcher, which searches frames of different sessions in
 * one launch (kernels/cuda/me_cuda_batch.h); a frame's result must not
 * depend on which frames it was batched with, nor on the order in which
 * the sessions submit and collect.  So: streams of three sizes and two
 * settings (16x16 integer; all shapes with quarter-pel SATD, whose stage 3
 * runs after the batch), first interleaved from one thread at several
 * depths, then each from a thread of its own. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checkasm.h"
#include "me_search.h"

#define STREAMS 6
#define FRAMES 6

typedef struct {
  unsigned w, h;
  MESearchParams params;
  guint8 *frames[FRAMES];
  Field want[FRAMES], got[FRAMES];
  MEBackend *s;
  unsigned depth;
  gboolean ok;
  GError *error;
} Stream;

static void
stream_init (Stream *st, unsigned i, const guint8 *world, unsigned world_w)
{
  static const unsigned sizes[3][2] = { {352, 288}, {176, 144}, {200, 120} };
  memset (st, 0, sizeof *st);
  st->w = sizes[i % 3][0];
  st->h = sizes[i % 3][1];
  me_search_params_init (&st->params);
  st->params.search_range = 16;
  if (i / 3 % 2) {
    st->params.partitions = GST_MOTION_VECTOR_PARTITIONS_ALL;
    st->params.refine = ME_REFINE_QUARTER;
    st->params.metric = ME_METRIC_SATD;
    st->params.search_range = 8;
  }
  for (unsigned t = 0; t < FRAMES; t++) {
    st->frames[t] = checkasm_make_frame (CONTENT_SHIFT, st->w, st->h, st->w,
        world, world_w, 32 + g_rand_int_range (checkasm.rand, -20, 21),
        32 + g_rand_int_range (checkasm.rand, -20, 21));
    checkasm_field_alloc_in (&st->want[t], st->w, st->h,
        st->params.partitions, NULL);
    checkasm_field_alloc_in (&st->got[t], st->w, st->h,
        st->params.partitions, NULL);
  }
}

static void
stream_clear (Stream *st)
{
  for (unsigned t = 0; t < FRAMES; t++) {
    g_free (st->frames[t]);
    checkasm_field_free (&st->want[t]);
    checkasm_field_free (&st->got[t]);
  }
  g_clear_error (&st->error);
}

static MEPlane
plane_of (const Stream *st, unsigned t)
{
  MEPlane p = { st->frames[t], st->w, st->w, st->h };
  return p;
}

/* The stream alone through the CPU backend. */
static gboolean
cpu_fields (MEBackend *cpu_s, Stream *st, GError **error)
{
  me_backend_reset (cpu_s);
  for (unsigned t = 0; t < FRAMES; t++) {
    MEPlane p = plane_of (st, t);
    if (!me_backend_submit (cpu_s, &p, &st->params, &st->want[t].field,
            error) ||
        !me_backend_collect (cpu_s, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
same_fields (const Stream *st, unsigned i, const char *how)
{
  for (unsigned t = 0; t < FRAMES; t++) {
    const Field *a = &st->want[t], *b = &st->got[t];
    if (a->field.has_reference != b->field.has_reference ||
        memcmp (a->cells, b->cells, a->n_cells * sizeof *a->cells) != 0) {
      printf ("  stream %u (%ux%u, %s), frame %u differs from the CPU's\n",
          i, st->w, st->h, how, t);
      return FALSE;
    }
  }
  return TRUE;
}

/* Every stream's frame t submitted before any stream's frame t + 1, each
 * session collecting only when `depth` frames are in flight. */
static gboolean
run_interleaved (Stream *st, unsigned depth, GError **error)
{
  unsigned submitted[STREAMS] = { 0 }, collected[STREAMS] = { 0 };
  for (unsigned i = 0; i < STREAMS; i++) {
    me_backend_reset (st[i].s);
    me_backend_set_in_flight (st[i].s, depth);
  }
  for (unsigned t = 0; t < FRAMES; t++)
    for (unsigned i = 0; i < STREAMS; i++) {
      if (submitted[i] - collected[i] >= depth) {
        if (!me_backend_collect (st[i].s, error))
          return FALSE;
        collected[i]++;
      }
      MEPlane p = plane_of (&st[i], t);
      if (!me_backend_submit (st[i].s, &p, &st[i].params,
              &st[i].got[t].field, error))
        return FALSE;
      submitted[i]++;
    }
  for (unsigned i = 0; i < STREAMS; i++)
    for (; collected[i] < submitted[i]; collected[i]++)
      if (!me_backend_collect (st[i].s, error))
        return FALSE;
  return TRUE;
}

static gpointer
run_alone (gpointer data)
{
  Stream *st = data;
  unsigned submitted = 0, collected = 0;
  me_backend_reset (st->s);
  me_backend_set_in_flight (st->s, st->depth);
  st->ok = TRUE;
  for (unsigned t = 0; st->ok && t < FRAMES; t++) {
    if (submitted - collected >= st->depth)
      st->ok = me_backend_collect (st->s, &st->error) && ++collected;
    MEPlane p = plane_of (st, t);
    st->ok = st->ok && me_backend_submit (st->s, &p, &st->params,
        &st->got[t].field, &st->error);
    submitted += st->ok;
  }
  while (st->ok && collected < submitted)
    st->ok = me_backend_collect (st->s, &st->error) && ++collected;
  return NULL;
}

/* The open sessions of `st`: interleaved at depths 1 to 4, then on
 * threads, every field against the CPU's. */
static gboolean
check_sessions (Stream *st, unsigned *cases, GError **error)
{
  gboolean ok = TRUE;
  for (unsigned depth = 1; ok && depth <= 4; depth++, (*cases)++) {
    for (unsigned i = 0; i < STREAMS; i++)
      for (unsigned t = 0; t < FRAMES; t++)
        memset (st[i].got[t].cells, 0xa5,
            st[i].got[t].n_cells * sizeof (GstMotionVectorCell));
    ok = run_interleaved (st, depth, error);
    for (unsigned i = 0; ok && i < STREAMS; i++) {
      gchar *how = g_strdup_printf ("interleaved, depth %u", depth);
      ok = same_fields (&st[i], i, how);
      g_free (how);
    }
  }
  for (unsigned round = 0; ok && round < 3; round++, (*cases)++) {
    GThread *threads[STREAMS];
    for (unsigned i = 0; i < STREAMS; i++)
      for (unsigned t = 0; t < FRAMES; t++)
        memset (st[i].got[t].cells, 0xa5,
            st[i].got[t].n_cells * sizeof (GstMotionVectorCell));
    for (unsigned i = 0; i < STREAMS; i++) {
      st[i].depth = 1 + (i + round) % 3;
      threads[i] = g_thread_new ("stream", run_alone, &st[i]);
    }
    for (unsigned i = 0; i < STREAMS; i++)
      g_thread_join (threads[i]);
    for (unsigned i = 0; ok && i < STREAMS; i++) {
      if (!st[i].ok) {
        g_propagate_error (error, st[i].error);
        st[i].error = NULL;
        ok = FALSE;
      } else {
        ok = same_fields (&st[i], i, "threads");
      }
    }
  }
  return ok;
}

/* A session of backend `name` as checkasm_open_backend() opens it, with
 * its full searches launched as `launch` says. */
static MEBackend *
open_launching (const char *name, MECudaLaunch launch, GError **error)
{
  MEBackendOptions options;
  /* NAME-pruned: NAME with MEBackendOptions.prune ME_PRUNE_ALWAYS */
  const gboolean pruned = g_str_has_suffix (name, "-pruned");
  g_autofree gchar *base = g_strndup (name, strlen (name)
      - (pruned ? strlen ("-pruned") : 0));
  const MEBackendOps *ops = me_backend_find (base);

  if (!ops) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNAVAILABLE,
        "backend not built");
    return NULL;
  }
  me_backend_options_init (&options);
  options.threads = checkasm.threads;
  memcpy (options.devices, checkasm.devices, sizeof (options.devices));
  options.n_devices = checkasm.n_devices;
  options.cuda_launch = launch;
  if (pruned)
    options.prune = ME_PRUNE_ALWAYS;
  return me_backend_open (ops, &options, error);
}

gboolean
checkasm_check_backend_batch (const char *name, MEBackend *cpu_s,
    GError **error)
{
  const unsigned world_w = 352 + 64, world_h = 288 + 64;
  guint8 *world = g_malloc ((size_t)world_w * world_h);
  Stream st[STREAMS];
  gboolean ok = TRUE;

  for (size_t k = 0; k < (size_t)world_w * world_h; k++)
    world[k] = g_rand_int (checkasm.rand);
  for (unsigned i = 0; i < STREAMS; i++)
    stream_init (&st[i], i, world, world_w);
  for (unsigned i = 0; ok && i < STREAMS; i++)
    ok = cpu_fields (cpu_s, &st[i], error);

  unsigned cases = 0;
  /* the CUDA backend's sessions on their own, then sharing the launcher
   * that batches their searches (MEBackendOptions.cuda_launch) */
  for (int shared = 0; ok && shared < 2; shared++) {
    for (unsigned i = 0; ok && i < STREAMS; i++) {
      st[i].s = open_launching (name,
          shared ? ME_CUDA_LAUNCH_SHARED : ME_CUDA_LAUNCH_OWN, error);
      ok = st[i].s != NULL;
    }
    ok = ok && check_sessions (st, &cases, error);
    for (unsigned i = 0; i < STREAMS; i++)
      g_clear_pointer (&st[i].s, me_backend_close);
  }
  printf ("  %s, %u sessions at once: %u cases\n", name, STREAMS, cases);

  for (unsigned i = 0; i < STREAMS; i++)
    stream_clear (&st[i]);
  g_free (world);
  return ok;
}
