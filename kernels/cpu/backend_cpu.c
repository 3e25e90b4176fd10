/* gpumotionest — the CPU backend: the exact reference, SIMD and all cores.
 *
 * Each submitted frame is copied once into a padded plane: the frame
 * extended to whole macroblocks and then ME_CPU_PAD pixels further on every
 * side, all by edge replication.  That plane is the next frame's reference,
 * so every candidate in [-R, R]^2 (R <= ME_CPU_PAD) reads valid memory with
 * no bounds checks in the loops.
 *
 * Macroblock rows are shared out to a pool of worker threads created at
 * open.  Within a macroblock the search walks candidate rows dy = -R..R and
 * asks the DSP table for the costs of the whole row dx = -R..R at once.
 */
#include "config.h"

#include <string.h>

#include "me_backend.h"
#include "me_cost.h"
#include "mvpred.h"
#include "dsp.h"

#define ME_CPU_PAD ME_MAX_RANGE
#define ME_CPU_MAX_IN_FLIGHT 16
#define ROW_MAX (2 * ME_MAX_RANGE + 1)

typedef struct {
  guint8 *alloc;
  size_t size;
  guint8 *origin;               /* pixel (0, 0) */
  ptrdiff_t stride;
  unsigned width, height;       /* of the frame it holds */
} PaddedPlane;

struct MESession {
  MEDsp dsp;
  PaddedPlane planes[2];
  PaddedPlane *cur, *ref;
  gboolean has_ref;
  GQueue done;                  /* MEField *: searched, not collected yet */

  /* the frame being searched, read by the workers */
  const MESearchParams *params;
  MEField *field;
  gint next_row;

  GThreadPool *pool;
  unsigned n_workers;
  GMutex lock;
  GCond cond;
  unsigned active;
};

/* ---- padding -------------------------------------------------------------- */

static void
plane_fill (PaddedPlane * p, const MEPlane * luma, unsigned mb_cols,
    unsigned mb_rows)
{
  unsigned w = luma->width, h = luma->height;
  size_t stride = ((size_t) mb_cols * 16 + 2 * ME_CPU_PAD + 31) & ~(size_t) 31;
  size_t rows = (size_t) mb_rows * 16 + 2 * ME_CPU_PAD;

  if (stride * rows > p->size) {
    g_free (p->alloc);
    p->size = stride * rows;
    p->alloc = g_malloc (p->size);
  }
  p->stride = stride;
  p->origin = p->alloc + ME_CPU_PAD * stride + ME_CPU_PAD;
  p->width = w;
  p->height = h;

  /* Rows inside the frame: copy, then replicate the edge pixels sideways. */
  const int right = (int) (stride - ME_CPU_PAD - w);
  for (unsigned y = 0; y < h; y++) {
    guint8 *d = p->origin + (ptrdiff_t) y * stride;
    const guint8 *s = luma->data + (ptrdiff_t) y * luma->stride;
    memcpy (d, s, w);
    memset (d - ME_CPU_PAD, s[0], ME_CPU_PAD);
    memset (d + w, s[w - 1], right);
  }
  /* Rows above and below: copies of the first and last rows. */
  guint8 *first = p->origin - ME_CPU_PAD;
  guint8 *last = first + (ptrdiff_t) (h - 1) * stride;
  for (int y = -ME_CPU_PAD; y < 0; y++)
    memcpy (first + (ptrdiff_t) y * stride, first, stride);
  for (size_t y = h; y < rows - ME_CPU_PAD; y++)
    memcpy (first + (ptrdiff_t) y * stride, last, stride);
}

/* ---- the search ----------------------------------------------------------- */

/* Candidate rank bits of me_key() for one row dy: rank[i] for dx = i - R. */
static void
row_ranks (uint64_t * rank, int R, int dy)
{
  for (int i = 0; i <= 2 * R; i++)
    rank[i] = me_key (0, i - R, dy);
}

static void
write_cell (GstMotionVectorCell * c, uint64_t key)
{
  c->mv_x = 4 * me_key_dx (key);
  c->mv_y = 4 * me_key_dy (key);
  c->cost = me_key_cost (key);
}

/* 16x16 only: whole-block SADs. */
static void
search_mb_16x16 (MESession * s, const guint8 * cur, int mbx, int mby,
    GstMotionVectorCell * cell)
{
  const int R = s->params->search_range, n = 2 * R + 1;
  const PaddedPlane *ref = s->ref;
  uint32_t sad[ROW_MAX];
  uint64_t rank[ROW_MAX];
  uint64_t best = ME_KEY_NONE;

  for (int dy = -R; dy <= R; dy++) {
    const guint8 *r = ref->origin + (ptrdiff_t) (16 * mby + dy) * ref->stride
        + 16 * mbx - R;
    s->dsp.sad16_row (cur, r, ref->stride, n, sad);
    row_ranks (rank, R, dy);
    for (int i = 0; i < n; i++) {
      uint64_t key = ((uint64_t) sad[i] << 32) | rank[i];
      if (key < best)
        best = key;
    }
  }
  write_cell (cell, best);
}

/* The 41 partitions of a macroblock, in shape order; each is a sum of 4x4
 * sub-blocks given by its top-left sub-block and its size in sub-blocks. */
typedef struct {
  guint8 shape, col, row;       /* shape, position within the MB (cells) */
  guint8 bx, by, bw, bh;        /* in 4x4 units */
} PartDesc;

static PartDesc parts[41];
static int n_parts;

static void
parts_init (void)
{
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    int bw = gst_motion_vector_partition_width (p) / 4;
    int bh = gst_motion_vector_partition_height (p) / 4;
    for (int r = 0; r < 4 / bh; r++)
      for (int c = 0; c < 4 / bw; c++)
        parts[n_parts++] = (PartDesc) {
        p, c, r, c * bw, r * bh, bw, bh};
  }
}

/* Any shapes: sixteen 4x4 SADs per candidate, summed per partition. */
static void
search_mb_shapes (MESession * s, const guint8 * cur, int mbx, int mby)
{
  const int R = s->params->search_range, n = 2 * R + 1;
  const unsigned mask = s->params->partitions;
  const PaddedPlane *ref = s->ref;
  uint16_t sad[ROW_MAX][16];
  uint64_t rank[ROW_MAX];
  uint64_t best[41];

  for (int k = 0; k < n_parts; k++)
    best[k] = ME_KEY_NONE;

  for (int dy = -R; dy <= R; dy++) {
    const guint8 *r = ref->origin + (ptrdiff_t) (16 * mby + dy) * ref->stride
        + 16 * mbx - R;
    s->dsp.sad4x4_row (cur, r, ref->stride, n, sad);
    row_ranks (rank, R, dy);
    for (int i = 0; i < n; i++) {
      const uint16_t *b = sad[i];
      uint32_t c[41];
      int k = 0;
      /* 16x16, 16x8, 8x16, 8x8 from the four 8x8 quarters */
      uint32_t q0 = b[0] + b[1] + b[4] + b[5], q1 = b[2] + b[3] + b[6] + b[7];
      uint32_t q2 = b[8] + b[9] + b[12] + b[13];
      uint32_t q3 = b[10] + b[11] + b[14] + b[15];
      c[k++] = q0 + q1 + q2 + q3;
      c[k++] = q0 + q1;
      c[k++] = q2 + q3;
      c[k++] = q0 + q2;
      c[k++] = q1 + q3;
      c[k++] = q0;
      c[k++] = q1;
      c[k++] = q2;
      c[k++] = q3;
      for (int y = 0; y < 4; y++)       /* 8x4 */
        for (int x = 0; x < 4; x += 2)
          c[k++] = b[4 * y + x] + b[4 * y + x + 1];
      for (int y = 0; y < 4; y += 2)    /* 4x8 */
        for (int x = 0; x < 4; x++)
          c[k++] = b[4 * y + x] + b[4 * y + x + 4];
      for (int j = 0; j < 16; j++)      /* 4x4 */
        c[k++] = b[j];
      for (k = 0; k < 41; k++) {
        uint64_t key = ((uint64_t) c[k] << 32) | rank[i];
        if (key < best[k])
          best[k] = key;
      }
    }
  }

  for (int k = 0; k < n_parts; k++) {
    const PartDesc *d = &parts[k];
    if (!(mask & (1u << d->shape)))
      continue;
    unsigned per_x = 16 / gst_motion_vector_partition_width (d->shape);
    unsigned per_y = 16 / gst_motion_vector_partition_height (d->shape);
    unsigned cols = per_x * s->field->mb_cols;
    GstMotionVectorCell *cell = s->field->grid[d->shape]
        + (size_t) (mby * per_y + d->row) * cols + mbx * per_x + d->col;
    write_cell (cell, best[k]);
  }
}

static void
search_row (MESession * s, int mby)
{
  const PaddedPlane *cp = s->cur;
  const gboolean only16 =
      s->params->partitions == GST_MOTION_VECTOR_PARTITIONS_16X16;
  guint8 cur[256] __attribute__((aligned (32)));

  for (unsigned mbx = 0; mbx < s->field->mb_cols; mbx++) {
    for (int y = 0; y < 16; y++)
      memcpy (cur + 16 * y, cp->origin + (ptrdiff_t) (16 * mby + y)
          * cp->stride + 16 * mbx, 16);
    if (only16)
      search_mb_16x16 (s, cur, mbx, mby, s->field->grid[0]
          + (size_t) mby * s->field->mb_cols + mbx);
    else
      search_mb_shapes (s, cur, mbx, mby);
  }
}

static void
worker (gpointer data, gpointer user_data)
{
  MESession *s = user_data;
  gint row;

  while ((row = g_atomic_int_add (&s->next_row, 1)) < (gint) s->field->mb_rows)
    search_row (s, row);
  g_mutex_lock (&s->lock);
  if (--s->active == 0)
    g_cond_signal (&s->cond);
  g_mutex_unlock (&s->lock);
}

static void
search_frame (MESession * s, const MESearchParams * params, MEField * field)
{
  s->params = params;
  s->field = field;
  s->next_row = 0;
  s->active = s->n_workers;
  for (unsigned i = 0; i < s->n_workers; i++)
    g_thread_pool_push (s->pool, GUINT_TO_POINTER (i + 1), NULL);
  g_mutex_lock (&s->lock);
  while (s->active)
    g_cond_wait (&s->cond, &s->lock);
  g_mutex_unlock (&s->lock);
}

/* ---- MEBackendOps --------------------------------------------------------- */

static MESession *
cpu_open (int device, GError ** error)
{
  static gsize parts_done = 0;
  MESession *s = g_new0 (MESession, 1);
  const char *env = g_getenv ("GPUMOTIONEST_CPU_THREADS");

  if (g_once_init_enter (&parts_done)) {
    parts_init ();
    g_once_init_leave (&parts_done, 1);
  }
  me_dsp_init (&s->dsp, ME_CPU_FLAG_ALL);
  s->n_workers = env ? (unsigned) g_ascii_strtoull (env, NULL, 10) : 0;
  if (s->n_workers == 0)
    s->n_workers = g_get_num_processors ();
  s->pool = g_thread_pool_new (worker, s, s->n_workers, TRUE, error);
  if (!s->pool) {
    g_free (s);
    return NULL;
  }
  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  g_queue_init (&s->done);
  s->cur = &s->planes[0];
  s->ref = &s->planes[1];
  return s;
}

static void
cpu_close (MESession * s)
{
  g_thread_pool_free (s->pool, FALSE, TRUE);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  g_queue_clear (&s->done);
  g_free (s->planes[0].alloc);
  g_free (s->planes[1].alloc);
  g_free (s);
}

static unsigned
cpu_max_in_flight (MESession * s)
{
  return ME_CPU_MAX_IN_FLIGHT;
}

/* Searching happens in submit(): holding frames back gains nothing. */
static unsigned
cpu_default_in_flight (MESession * s)
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
  if (!me_check_input (luma, params, out, error))
    return FALSE;

  plane_fill (s->cur, luma, out->mb_cols, out->mb_rows);
  out->has_reference = s->has_ref && s->ref->width == luma->width
      && s->ref->height == luma->height;
  if (out->has_reference) {
    search_frame (s, params, out);
    me_mvpred_field (out);
  } else {
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      if (out->grid[p])
        memset (out->grid[p], 0, sizeof (GstMotionVectorCell)
            * gst_motion_vector_grid_cols (p, out->mb_cols)
            * gst_motion_vector_grid_rows (p, out->mb_rows));
  }

  PaddedPlane *t = s->ref;
  s->ref = s->cur;
  s->cur = t;
  s->has_ref = TRUE;
  g_queue_push_tail (&s->done, out);
  return TRUE;
}

static gboolean
cpu_collect (MESession * s, GError ** error)
{
  if (!g_queue_pop_head (&s->done)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "collect called with no frame submitted");
    return FALSE;
  }
  return TRUE;
}

static void
cpu_reset (MESession * s)
{
  g_queue_clear (&s->done);
  s->has_ref = FALSE;
}

const MEBackendOps me_backend_cpu = {
  .name = "cpu",
  .open = cpu_open,
  .close = cpu_close,
  .max_in_flight = cpu_max_in_flight,
  .default_in_flight = cpu_default_in_flight,
  .set_in_flight = cpu_set_in_flight,
  .submit = cpu_submit,
  .collect = cpu_collect,
  .reset = cpu_reset,
};
