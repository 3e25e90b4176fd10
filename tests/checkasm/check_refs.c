/* gpumotionest — checkasm: searches against other frames than the previous
 * one (me_backend.h, submit_pairs).
 *
 * Frames go through a backend as the element sends them for a list of
 * reference distances: each frame is added to the window when it arrives,
 * and searched against every reference once its furthest future
 * reference has arrived (at the end, with no new frame).  References
 * outside the stream are left to the caller, as the element does.
 *
 * 1. The CPU backend against itself searching each pair alone: a fresh
 *    session given the reference and then the target.  Predictive's
 *    temporal predictors pass only between pairs of a frame and its
 *    previous one, so those fields are compared with the whole sequence
 *    searched frame after frame instead.
 * 2. Any other backend against the CPU backend, every field (check_search.c
 *    calls it for each backend).
 *
 * Both also drive random submissions that the element never sends
 * (random_script()): a frame the target of searches in several
 * submissions in flight, chained pairs (reference = target + 1) in only
 * some submissions, a chained target searched again later, submissions
 * without a new frame.  The CPU's searches that pass nothing on are
 * checked against each pair searched alone, and another backend's every
 * field against the CPU's.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checkasm.h"

#define N_FRAMES 7
#define MAX_REFS 8

typedef struct {
  const char *name;
  int refs[MAX_REFS];
  unsigned n;
} RefList;

static const RefList ref_lists[] = {
  {"-1", {-1}, 1},
  {"-1,-2,-3,-4", {-1, -2, -3, -4}, 4},
  {"-1,+1", {-1, 1}, 2},
  {"+1", {1}, 1},
  {"+1,-2", {1, -2}, 2},
  {"-3,+2,-1", {-3, 2, -1}, 3},
  {"-8,+4,-1,+1", {-8, 4, -1, 1}, 4},
};

static int
furthest_future (const RefList * l)
{
  int f = 0;
  for (unsigned k = 0; k < l->n; k++)
    f = MAX (f, l->refs[k]);
  return f;
}

static void
field_clear (Field * f)
{
  memset (f->cells, 0, f->n_cells * sizeof (GstMotionVectorCell));
  f->field.has_reference = FALSE;
}

/* Drives `b` as the element does; out[t * l->n + k] receives frame t's
 * field against l->refs[k].  params[j] is the search of submission j
 * (frame j arrives with it while j < n). */
static gboolean
drive_pairs (MEBackend * b, guint8 * const *frames, unsigned n,
    ptrdiff_t stride, unsigned w, unsigned h, const MESearchParams * params,
    const RefList * l, unsigned depth, Field * out, GError ** error)
{
  const int fut = furthest_future (l);
  unsigned in_flight = 0;
  gboolean ok = TRUE;

  me_backend_reset (b);
  me_backend_set_in_flight (b, depth);
  for (unsigned j = 0; ok && j < n + fut; j++) {
    const int t = (int) j - fut;
    const int newest = MIN ((int) j, (int) n - 1);
    MESearchPair pairs[MAX_REFS];
    unsigned np = 0;
    MEPlane plane = { j < n ? frames[j] : NULL, stride, w, h };

    for (unsigned k = 0; t >= 0 && k < l->n; k++) {
      const int r = t + l->refs[k];
      Field *f = &out[t * l->n + k];
      if (r < 0 || r > newest) {
        field_clear (f);
        continue;
      }
      pairs[np++] = (MESearchPair) {
      newest - t, newest - r, &f->field};
    }
    if (in_flight >= depth) {
      ok = me_backend_collect (b, error);
      in_flight--;
    }
    ok = ok && me_backend_submit_pairs (b, j < n ? &plane : NULL, &params[j],
        pairs, np, error);
    in_flight += ok;
  }
  while (ok && in_flight) {
    ok = me_backend_collect (b, error);
    in_flight--;
  }
  return ok;
}

static gboolean
same_field (const Field * want, const Field * got, const char *what,
    unsigned t, int d)
{
  if (want->field.has_reference != got->field.has_reference) {
    printf ("  %s: frame %u against %+d: has_reference %d, expected %d\n",
        what, t, d, got->field.has_reference, want->field.has_reference);
    return FALSE;
  }
  for (size_t i = 0; i < want->n_cells; i++) {
    const GstMotionVectorCell *a = &want->cells[i], *c = &got->cells[i];
    if (memcmp (a, c, sizeof (*a)) != 0) {
      printf ("  %s: frame %u against %+d, cell %zu: mv (%d,%d) cost %u "
          "mvd (%d,%d); expected mv (%d,%d) cost %u mvd (%d,%d)\n", what, t,
          d, i, c->mv_x, c->mv_y, c->cost, c->mvd_x, c->mvd_y, a->mv_x,
          a->mv_y, a->cost, a->mvd_x, a->mvd_y);
      return FALSE;
    }
  }
  return TRUE;
}

/* Frame t against frame r with a session of its own: r, then t. */
static gboolean
search_alone (MEBackend * cpu, guint8 * const *frames, ptrdiff_t stride,
    unsigned w, unsigned h, const MESearchParams * params, unsigned t,
    unsigned r, Field * out, GError ** error)
{
  MEPlane pr = { frames[r], stride, w, h }, pt = { frames[t], stride, w, h };
  Field first;
  gboolean ok;

  checkasm_field_alloc_in (&first, w, h, params->partitions, NULL);
  me_backend_reset (cpu);
  ok = me_backend_submit (cpu, &pr, params, &first.field, error)
      && me_backend_collect (cpu, error)
      && me_backend_submit (cpu, &pt, params, &out->field, error)
      && me_backend_collect (cpu, error);
  checkasm_field_free (&first);
  return ok;
}

typedef struct {
  unsigned w, h;
  Content content;
  GstMotionVectorMethod method;
  guint8 *frames[N_FRAMES];
  ptrdiff_t stride;
  MESearchParams params[N_FRAMES + MAX_REFS];
} Sequence;

static void
sequence_init (Sequence * q, unsigned w, unsigned h, Content content,
    GstMotionVectorMethod method, unsigned max_range, unsigned parts,
    gboolean stage3)
{
  const unsigned world_w = w + 64;
  guint8 *world = g_malloc ((size_t) world_w * (h + 64));

  q->w = w;
  q->h = h;
  q->content = content;
  q->method = method;
  q->stride = w + g_rand_int_range (checkasm.rand, 0, 17);
  for (size_t k = 0; k < (size_t) world_w * (h + 64); k++)
    world[k] = g_rand_int (checkasm.rand);
  for (unsigned i = 0; i < N_FRAMES; i++)
    q->frames[i] = checkasm_make_frame (content, w, h, q->stride, world,
        world_w, 32 + g_rand_int_range (checkasm.rand, -12, 13),
        32 + g_rand_int_range (checkasm.rand, -12, 13));
  g_free (world);
  /* the range grows after the first submissions, past the borders of
   * frames already in the window; the stage 3 settings change too */
  for (unsigned j = 0; j < G_N_ELEMENTS (q->params); j++) {
    MESearchParams *p = &q->params[j];
    me_search_params_init (p);
    p->method = method;
    p->partitions = parts;
    p->search_range = j < 2 ? 1 : (unsigned) g_rand_int_range (checkasm.rand,
        1, max_range + 1);
    if (stage3) {
      p->refine = (MERefine) g_rand_int_range (checkasm.rand, 0, 3);
      p->metric = (MEMetric) g_rand_int_range (checkasm.rand, 0, 2);
      p->lambda = j % 3 ? (unsigned) g_rand_int_range (checkasm.rand, 1, 60)
          : 0;
    }
  }
}

static void
sequence_clear (Sequence * q)
{
  for (unsigned i = 0; i < N_FRAMES; i++)
    g_free (q->frames[i]);
}

static Field *
fields_new (const Sequence * q, const RefList * l, const MEBackendOps * mem)
{
  Field *f = g_new0 (Field, N_FRAMES * l->n);
  for (unsigned i = 0; i < N_FRAMES * l->n; i++)
    checkasm_field_alloc_in (&f[i], q->w, q->h, q->params[0].partitions, mem);
  return f;
}

static void
fields_free (Field * f, const RefList * l)
{
  for (unsigned i = 0; i < N_FRAMES * l->n; i++)
    checkasm_field_free (&f[i]);
  g_free (f);
}

/* ---- random submissions -------------------------------------------------- */

#define SCRIPT_SUBMISSIONS 14
#define SCRIPT_PAIRS 4
G_STATIC_ASSERT (SCRIPT_SUBMISSIONS <= N_FRAMES + MAX_REFS);

typedef struct {
  gboolean add;                 /* the next frame arrives with it */
  unsigned n;
  unsigned target[SCRIPT_PAIRS], reference[SCRIPT_PAIRS];    /* ages */
  /* the frames they are, in the sequence (a reference outside the window:
   * -1) */
  int target_frame[SCRIPT_PAIRS], reference_frame[SCRIPT_PAIRS];
} ScriptStep;

/* Random submissions over q's frames: one to four pairs each, half of them
 * chained, the others against any age (one past the window at times,
 * which has no reference), targets anywhere in the window. */
static void
random_script (ScriptStep * st)
{
  unsigned have = 0;

  for (unsigned j = 0; j < SCRIPT_SUBMISSIONS; j++) {
    ScriptStep *x = &st[j];
    x->add = have < N_FRAMES && (have == 0 || g_rand_int_range (checkasm.rand,
            0, 4) != 0);
    have += x->add;
    x->n = g_rand_int_range (checkasm.rand, 1, SCRIPT_PAIRS + 1);
    for (unsigned i = 0; i < x->n; i++) {
      const unsigned t = g_rand_int_range (checkasm.rand, 0, have);
      unsigned r = t + 1;
      if (g_rand_boolean (checkasm.rand)) {
        r = g_rand_int_range (checkasm.rand, 0, have + 1);
        if (r == t)
          r = t + 1;
      }
      x->target[i] = t;
      x->reference[i] = r;
      x->target_frame[i] = (int) have - 1 - (int) t;
      x->reference_frame[i] = r < have ? (int) have - 1 - (int) r : -1;
    }
  }
}

/* The script through `b` with `depth` submissions in flight; out[j *
 * SCRIPT_PAIRS + i] receives pair i of submission j. */
static gboolean
drive_script (MEBackend * b, const Sequence * q, const ScriptStep * st,
    unsigned depth, Field * out, GError ** error)
{
  unsigned in_flight = 0, next = 0;
  gboolean ok = TRUE;

  me_backend_reset (b);
  me_backend_set_in_flight (b, depth);
  for (unsigned j = 0; ok && j < SCRIPT_SUBMISSIONS; j++) {
    MESearchPair pairs[SCRIPT_PAIRS];
    MEPlane plane = { st[j].add ? q->frames[next] : NULL, q->stride, q->w,
      q->h
    };
    next += st[j].add;
    for (unsigned i = 0; i < st[j].n; i++)
      pairs[i] = (MESearchPair) {
      st[j].target[i], st[j].reference[i],
            &out[j * SCRIPT_PAIRS + i].field};
    if (in_flight >= depth) {
      ok = me_backend_collect (b, error);
      in_flight--;
    }
    ok = ok && me_backend_submit_pairs (b, st[j].add ? &plane : NULL,
        &q->params[j], pairs, st[j].n, error);
    in_flight += ok;
  }
  while (ok && in_flight) {
    ok = me_backend_collect (b, error);
    in_flight--;
  }
  return ok;
}

static Field *
script_fields_new (const Sequence * q, const MEBackendOps * mem)
{
  Field *f = g_new0 (Field, SCRIPT_SUBMISSIONS * SCRIPT_PAIRS);
  for (unsigned i = 0; i < SCRIPT_SUBMISSIONS * SCRIPT_PAIRS; i++)
    checkasm_field_alloc_in (&f[i], q->w, q->h, q->params[0].partitions, mem);
  return f;
}

static void
script_fields_free (Field * f)
{
  for (unsigned i = 0; i < SCRIPT_SUBMISSIONS * SCRIPT_PAIRS; i++)
    checkasm_field_free (&f[i]);
  g_free (f);
}

/* 1, random submissions: the CPU's pairs that pass nothing on (not
 * predictive's chained ones) against each pair searched alone, at depth
 * 1 and 3. */
static gboolean
check_cpu_script (MEBackend * cpu, MEBackend * ref, const Sequence * q,
    GError ** error)
{
  ScriptStep st[SCRIPT_SUBMISSIONS];
  Field *got = script_fields_new (q, NULL);
  Field want;
  gboolean ok = TRUE;
  char what[128];

  random_script (st);
  checkasm_field_alloc_in (&want, q->w, q->h, q->params[0].partitions, NULL);
  for (unsigned depth = 1; ok && depth <= 3; depth += 2) {
    g_snprintf (what, sizeof (what), "cpu %ux%u, method %d, random "
        "submissions, depth %u", q->w, q->h, (int) q->method, depth);
    ok = drive_script (cpu, q, st, depth, got, error);
    for (unsigned j = 0; ok && j < SCRIPT_SUBMISSIONS; j++)
      for (unsigned i = 0; ok && i < st[j].n; i++) {
        const int t = st[j].target_frame[i], r = st[j].reference_frame[i];
        if (q->method == GST_MOTION_VECTOR_METHOD_PREDICTIVE
            && st[j].reference[i] == st[j].target[i] + 1)
          continue;
        if (r < 0)
          field_clear (&want);
        else
          ok = search_alone (ref, q->frames, q->stride, q->w, q->h,
              &q->params[j], t, r, &want, error);
        ok = ok && same_field (&want, &got[j * SCRIPT_PAIRS + i], what, t,
            r - t);
      }
  }
  checkasm_field_free (&want);
  script_fields_free (got);
  return ok;
}

/* 2, random submissions: another backend at depths 1 to 4 against the
 * CPU, every field. */
static gboolean
check_backend_script (MEBackend * s, MEBackend * cpu_s, const Sequence * q,
    unsigned depth, const MEBackendOps * mem, GError ** error)
{
  ScriptStep st[SCRIPT_SUBMISSIONS];
  Field *want = script_fields_new (q, NULL);
  Field *got = script_fields_new (q, mem);
  gboolean ok;
  char what[128];

  random_script (st);
  g_snprintf (what, sizeof (what), "%s %ux%u, method %d, random "
      "submissions, depth %u", me_backend_name (s), q->w, q->h,
      (int) q->method, depth);
  ok = drive_script (cpu_s, q, st, 1, want, error)
      && drive_script (s, q, st, depth, got, error);
  for (unsigned j = 0; ok && j < SCRIPT_SUBMISSIONS; j++)
    for (unsigned i = 0; ok && i < st[j].n; i++)
      ok = same_field (&want[j * SCRIPT_PAIRS + i], &got[j * SCRIPT_PAIRS
              + i], what, st[j].target_frame[i], st[j].reference_frame[i]
          - st[j].target_frame[i]);
  if (!ok && error && !*error)
    printf ("  (%s)\n", what);
  script_fields_free (want);
  script_fields_free (got);
  return ok;
}

/* 1: the CPU's submit_pairs() against each pair searched alone. */
static gboolean
check_cpu_list (MEBackend * cpu, MEBackend * ref, const Sequence * q,
    const RefList * l, GError ** error)
{
  const int fut = furthest_future (l);
  Field *got = fields_new (q, l, NULL);
  Field want, *chain = NULL;
  gboolean ok;
  char what[128];

  g_snprintf (what, sizeof (what), "cpu %ux%u %s, method %d, references %s",
      q->w, q->h, checkasm_content_names[q->content], (int) q->method,
      l->name);
  ok = drive_pairs (cpu, q->frames, N_FRAMES, q->stride, q->w, q->h,
      q->params, l, 1, got, error);

  /* predictive's chained fields: the whole sequence, frame after frame,
   * each with the search of the submission that searched it */
  if (ok && q->method == GST_MOTION_VECTOR_METHOD_PREDICTIVE) {
    chain = g_new0 (Field, N_FRAMES);
    me_backend_reset (ref);
    for (unsigned t = 0; ok && t < N_FRAMES; t++) {
      MEPlane pt = { q->frames[t], q->stride, q->w, q->h };
      checkasm_field_alloc_in (&chain[t], q->w, q->h,
          q->params[0].partitions, NULL);
      ok = me_backend_submit (ref, &pt, &q->params[t + fut], &chain[t].field,
          error) && me_backend_collect (ref, error);
    }
  }

  checkasm_field_alloc_in (&want, q->w, q->h, q->params[0].partitions, NULL);
  for (unsigned t = 0; ok && t < N_FRAMES; t++)
    for (unsigned k = 0; ok && k < l->n; k++) {
      const int r = (int) t + l->refs[k];
      if (r < 0 || r >= N_FRAMES)
        field_clear (&want);
      else if (chain && l->refs[k] == -1)
        memcpy (want.cells, chain[t].cells,
            want.n_cells * sizeof (GstMotionVectorCell)),
            want.field.has_reference = chain[t].field.has_reference;
      else
        ok = search_alone (ref, q->frames, q->stride, q->w, q->h,
            &q->params[t + fut], t, r, &want, error);
      ok = ok && same_field (&want, &got[t * l->n + k], what, t, l->refs[k]);
    }
  checkasm_field_free (&want);
  if (chain) {
    for (unsigned t = 0; t < N_FRAMES; t++)
      if (chain[t].cells)
        checkasm_field_free (&chain[t]);
    g_free (chain);
  }
  fields_free (got, l);
  return ok;
}

void
checkasm_check_refs (void)
{
  static const unsigned sizes[][2] = { {1, 1}, {17, 9}, {48, 32}, {100, 75} };
  g_autoptr (GError) error = NULL;
  MEBackend *cpu = checkasm_open_backend ("cpu", &error);
  MEBackend *ref = cpu ? checkasm_open_backend ("cpu", &error) : NULL;
  gboolean ok = ref != NULL;
  unsigned n_lists = 0, n_scripts = 0;

  for (int m = 0; ok && m < 4; m++)
    for (unsigned si = 0; ok && si < G_N_ELEMENTS (sizes); si++) {
      Sequence q;
      const unsigned parts = si % 2 ? GST_MOTION_VECTOR_PARTITIONS_ALL
          : GST_MOTION_VECTOR_PARTITIONS_16X16;
      const unsigned max_range = m == GST_MOTION_VECTOR_METHOD_FULL ? 40 : 60;
      sequence_init (&q, sizes[si][0], sizes[si][1],
          (Content) ((m + si) % CONTENT_COUNT), (GstMotionVectorMethod) m,
          max_range, parts, si >= 2);
      for (unsigned li = 0; ok && li < G_N_ELEMENTS (ref_lists); li++) {
        ok = check_cpu_list (cpu, ref, &q, &ref_lists[li], &error);
        n_lists++;
      }
      ok = ok && check_cpu_script (cpu, ref, &q, &error);
      n_scripts++;
      sequence_clear (&q);
    }
  if (error)
    printf ("  %s\n", error->message);
  me_backend_close (cpu);
  me_backend_close (ref);
  printf ("  (%u sequences x reference lists, %u random scripts checked)\n",
      n_lists, n_scripts);
  checkasm_report ("references cpu vs pairs searched alone", ok);
}

/* 2: another backend against the CPU, every method both have, depths 1
 * to 4, cells in the backend's own memory or not. */
gboolean
checkasm_check_backend_refs (MEBackend * s, MEBackend * cpu_s, GError ** error)
{
  static const unsigned sizes[][2] = { {7, 5}, {64, 48}, {176, 144},
    {640, 360}
  };
  const guint methods = me_backend_get_ops (s)->caps.methods
      & me_backend_get_ops (cpu_s)->caps.methods;
  gboolean ok = TRUE;
  unsigned n_cases = 0, n_scripts = 0;

  if (!me_backend_get_ops (s)->caps.window) {
    printf ("  %s: no searches against other references\n",
        me_backend_name (s));
    return TRUE;
  }
  for (int m = 0; ok && m < 32; m++) {
    if (!(methods & (1u << m)))
      continue;
    for (unsigned si = 0; ok && si < G_N_ELEMENTS (sizes); si++) {
      Sequence q;
      const unsigned parts = si % 2 ? GST_MOTION_VECTOR_PARTITIONS_ALL
          : GST_MOTION_VECTOR_PARTITIONS_16X16;
      sequence_init (&q, sizes[si][0], sizes[si][1],
          (Content) ((m + si) % CONTENT_COUNT), (GstMotionVectorMethod) m,
          m == GST_MOTION_VECTOR_METHOD_FULL ? 16 : 64, parts, si >= 1);
      for (unsigned li = 0; ok && li < G_N_ELEMENTS (ref_lists); li++) {
        const RefList *l = &ref_lists[li];
        const unsigned depth = 1 + (si + li) % MIN (4,
            me_backend_max_in_flight (s));
        Field *want = fields_new (&q, l, NULL);
        Field *got = fields_new (&q, l, (si + li) % 2 ?
            me_backend_get_ops (s) : NULL);
        char what[128];

        g_snprintf (what, sizeof (what), "%s %ux%u %s, method %d, "
            "references %s, depth %u", me_backend_name (s), q.w, q.h,
            checkasm_content_names[q.content], m, l->name, depth);
        ok = drive_pairs (cpu_s, q.frames, N_FRAMES, q.stride, q.w, q.h,
            q.params, l, 1, want, error)
            && drive_pairs (s, q.frames, N_FRAMES, q.stride, q.w, q.h,
            q.params, l, depth, got, error);
        for (unsigned i = 0; ok && i < N_FRAMES * l->n; i++)
          ok = same_field (&want[i], &got[i], what, i / l->n,
              l->refs[i % l->n]);
        if (!ok && error && !*error)
          printf ("  (%s)\n", what);
        fields_free (want, l);
        fields_free (got, l);
        n_cases++;
      }
      /* random submissions, several scripts per sequence, every depth */
      for (unsigned k = 0; ok && k < 4; k++) {
        const unsigned depth = 1 + (si + k) % MIN (4,
            me_backend_max_in_flight (s));
        ok = check_backend_script (s, cpu_s, &q, depth, (si + k) % 2 ?
            me_backend_get_ops (s) : NULL, error);
        n_scripts++;
      }
      sequence_clear (&q);
    }
  }
  printf ("  %s: %u reference-list cases, %u random scripts\n",
      me_backend_name (s), n_cases, n_scripts);
  return ok;
}
