/* gpumotionest — checkasm: whole searches.
 *
 * 1. The CPU backend against a naive full search written here from the
 *    definition alone: per-pixel reads clamped to the frame (edge
 *    replication), every candidate, every shape, the me_key() order.
 * 2. Every other backend against the CPU backend, every cell compared:
 *    vector, cost, prediction, MVD, and has_reference.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "me_backend.h"
#include "me_cost.h"
#include "me_rate.h"
#include "mvpred_rules.h"

const char *const checkasm_content_names[] = { "noise", "shift", "flat",
  "two-level"
};
#define content_names checkasm_content_names

/* Cells in the host memory of `mem` when it has its own (page-locked for
 * CUDA: the device then writes them directly), else on the heap. */
void
checkasm_field_alloc_in (Field * f, unsigned w, unsigned h, unsigned parts,
    const MEBackendOps * mem)
{
  guint64 off[GST_MOTION_VECTOR_PARTITION_COUNT];
  size_t total;

  memset (f, 0, sizeof (*f));
  f->field.mb_cols = gst_motion_vector_mb_cols (w);
  f->field.mb_rows = gst_motion_vector_mb_rows (h);
  total = gst_motion_vector_grid_offsets (parts, f->field.mb_cols,
      f->field.mb_rows, off);
  f->mem = mem && mem->host_alloc ? mem : NULL;
  f->cells = f->mem ? f->mem->host_alloc (total * sizeof (GstMotionVectorCell))
      : g_new (GstMotionVectorCell, total);
  /* poison: every cell must be written */
  memset (f->cells, 0xa5, total * sizeof (GstMotionVectorCell));
  f->n_cells = total;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if (parts & (1u << p))
      f->field.grid[p] = f->cells + off[p];
}

static void
field_alloc (Field * f, unsigned w, unsigned h, unsigned parts)
{
  checkasm_field_alloc_in (f, w, h, parts, NULL);
}

void
checkasm_field_free (Field * f)
{
  if (f->mem)
    f->mem->host_free (f->cells);
  else
    g_free (f->cells);
  f->cells = NULL;
}

/* A frame with a stride wider than its width, the slack filled with
 * garbage that a backend must not read. */
guint8 *
checkasm_make_frame (Content content, unsigned w, unsigned h, ptrdiff_t stride,
    const guint8 * world, unsigned world_w, int ox, int oy)
{
  guint8 *d = g_malloc ((size_t) stride * h);
  for (unsigned y = 0; y < h; y++) {
    guint8 *row = d + (size_t) y * stride;
    for (unsigned x = 0; x < w; x++) {
      switch (content) {
        case CONTENT_NOISE:
          row[x] = g_rand_int (checkasm.rand);
          break;
        case CONTENT_SHIFT:
          row[x] = world[(size_t) (oy + y) * world_w + ox + x];
          break;
        case CONTENT_FLAT:
          row[x] = 77;
          break;
        default:
          row[x] = g_rand_int (checkasm.rand) & 1;
          break;
      }
    }
    for (ptrdiff_t x = w; x < stride; x++)
      row[x] = g_rand_int (checkasm.rand);
  }
  return d;
}

/* The frame f8 (rows stride apart) at `bits` bits per sample: the clean
 * samples (returned, rows `stride` samples apart) and the 16-bit words a
 * frame of that format holds (*words), each sample shifted up by `shift`
 * with random bits below it, or, unshifted, random bits above the depth:
 * bits a backend must not read (me_backend.h).  Noise is random at the
 * full depth; other content is the 8-bit sample spread over the depth
 * (v << (bits - 8) | v >> (16 - bits)), which keeps its ties. */
static guint16 *
deepen_frame (const guint8 * f8, unsigned w, unsigned h, ptrdiff_t stride,
    Content content, unsigned bits, unsigned shift, guint16 ** words)
{
  const unsigned max = (1u << bits) - 1;
  guint16 *smp = g_new (guint16, (size_t) stride * h);
  *words = g_new (guint16, (size_t) stride * h);
  for (size_t i = 0; i < (size_t) stride * h; i++) {
    const unsigned v = f8[i], r = g_rand_int (checkasm.rand);
    smp[i] = content == CONTENT_NOISE ? r & max
        : (v << (bits - 8) | v >> (16 - bits)) & max;
    (*words)[i] = (guint16) (smp[i] << shift
        | (shift ? r >> 16 & ((1u << shift) - 1) : (r >> 16) << bits));
  }
  return smp;
}

/* The 16-bit formats the deep checks cycle through: bits per sample and
 * the shift of the sample in its word (P010-like 10 << 6, 12 << 4). */
static const unsigned deep_formats[5][2] = {
  {10, 6}, {12, 0}, {16, 0}, {10, 0}, {12, 4}
};

/* ---- 1. naive reference --------------------------------------------------- */

/* The naive search's samples: bytes, or with naive_bits > 8 16-bit
 * samples (the frames then point at uint16_t, strides count samples), the
 * interpolation clipping to 2^naive_bits - 1 and lambda scaled by
 * 2^(naive_bits - 8) (docs/high-bit-depth.md). */
static unsigned naive_bits = 8;

static inline int
px (const guint8 * f, ptrdiff_t stride, unsigned w, unsigned h, int x, int y)
{
  x = CLAMP (x, 0, (int) w - 1);
  y = CLAMP (y, 0, (int) h - 1);
  if (naive_bits > 8)
    return ((const guint16 *) f)[y * stride + x];
  return f[y * stride + x];
}

/* ---- sub-pel, written from ITU-T H.264 clause 8.4.2.2.1 ------------------ */

typedef struct {
  const guint8 *f;
  ptrdiff_t stride;
  unsigned w, h;
  int ox;                       /* read ox pixels further across */
} Pic;

static int
tap6 (int e, int f, int g, int h, int i, int j)
{
  return e - 5 * f + 20 * g + 20 * h - 5 * i + j;
}

static int
clip1 (int v)
{
  return CLAMP (v, 0, (1 << naive_bits) - 1);
}

/* G, and the intermediate b1 (x + 1/2, y) and h1 (x, y + 1/2): equations
 * 8-241 and 8-242, with the picture edge replicated (8-239, 8-240). */
static int
full_g (const Pic * p, int x, int y)
{
  return px (p->f, p->stride, p->w, p->h, x + p->ox, y);
}

static int
inter_b1 (const Pic * p, int x, int y)
{
  return tap6 (full_g (p, x - 2, y), full_g (p, x - 1, y), full_g (p, x, y),
      full_g (p, x + 1, y), full_g (p, x + 2, y), full_g (p, x + 3, y));
}

static int
inter_h1 (const Pic * p, int x, int y)
{
  return tap6 (full_g (p, x, y - 2), full_g (p, x, y - 1), full_g (p, x, y),
      full_g (p, x, y + 1), full_g (p, x, y + 2), full_g (p, x, y + 3));
}

/* The luma sample at quarter-sample position (qx, qy) of the picture, by
 * the equations of 8.4.2.2.1 and table 8-12: G at the integer part, the
 * half samples b, h, j and s, m around it, and the quarter samples as their
 * rounded means. */
static int
naive_sample (const Pic * p, int qx, int qy)
{
  const int x = qx >> 2, y = qy >> 2, xf = qx & 3, yf = qy & 3;
  const int G = full_g (p, x, y), H = full_g (p, x + 1, y);
  const int M = full_g (p, x, y + 1);
  const int b = clip1 ((inter_b1 (p, x, y) + 16) >> 5);
  const int h = clip1 ((inter_h1 (p, x, y) + 16) >> 5);
  const int s = clip1 ((inter_b1 (p, x, y + 1) + 16) >> 5);
  const int m = clip1 ((inter_h1 (p, x + 1, y) + 16) >> 5);
  const int j1 = tap6 (inter_b1 (p, x, y - 2), inter_b1 (p, x, y - 1),
      inter_b1 (p, x, y), inter_b1 (p, x, y + 1), inter_b1 (p, x, y + 2),
      inter_b1 (p, x, y + 3));
  const int j = clip1 ((j1 + 512) >> 10);

  switch (yf * 4 + xf) {
    case 0: return G;
    case 1: return (G + b + 1) >> 1;            /* a */
    case 2: return b;
    case 3: return (H + b + 1) >> 1;            /* c */
    case 4: return (G + h + 1) >> 1;            /* d */
    case 5: return (b + h + 1) >> 1;            /* e */
    case 6: return (b + j + 1) >> 1;            /* f */
    case 7: return (b + m + 1) >> 1;            /* g */
    case 8: return h;
    case 9: return (h + j + 1) >> 1;            /* i */
    case 10: return j;
    case 11: return (j + m + 1) >> 1;           /* k */
    case 12: return (M + h + 1) >> 1;           /* n */
    case 13: return (h + s + 1) >> 1;           /* p */
    case 14: return (j + s + 1) >> 1;           /* q */
    default: return (m + s + 1) >> 1;           /* r */
  }
}

/* SAD, or SATD: per 4x4 block, the sum of |H D H| over the 4x4 Hadamard
 * matrix H, halved. */
static uint32_t
naive_cost (const Pic * cur, const Pic * ref, int x0, int y0, int bw, int bh,
    int qx, int qy, MEMetric metric)
{
  static const int H4[4][4] = {
    {1, 1, 1, 1}, {1, 1, -1, -1}, {1, -1, -1, 1}, {1, -1, 1, -1}
  };
  uint32_t sum = 0;
  for (int by = y0; by < y0 + bh; by += 4)
    for (int bx = x0; bx < x0 + bw; bx += 4) {
      int d[4][4], t[4][4];
      uint32_t s4 = 0;
      for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
          d[y][x] = full_g (cur, bx + x, by + y)
              - naive_sample (ref, 4 * (bx + x) + qx, 4 * (by + y) + qy);
      if (metric == ME_METRIC_SAD) {
        for (int y = 0; y < 4; y++)
          for (int x = 0; x < 4; x++)
            sum += abs (d[y][x]);
        continue;
      }
      for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
          t[y][x] = 0;
          for (int k = 0; k < 4; k++)
            t[y][x] += H4[y][k] * d[k][x];
        }
      for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
          int c = 0;
          for (int k = 0; k < 4; k++)
            c += t[y][k] * H4[k][x];
          s4 += abs (c);
        }
      sum += s4 / 2;
    }
  return sum;
}

/* se(v) length, from its definition (clause 9.1): codeNum k takes
 * 2 floor(log2(k + 1)) + 1 bits. */
static uint32_t
naive_se_bits (int v)
{
  uint32_t k = v > 0 ? 2 * v - 1 : -2 * v, bits = 1;
  while (k + 1 >= (1u << ((bits + 1) / 2)))
    bits += 2;
  return bits;
}

/* Stage 3 from its definition (me_search.h, docs/subpel.md): the integer
 * winner re-costed, then the 8 half-pel neighbours, then the 8 quarter-pel
 * neighbours of the best, all ranked by me_key_qpel() of the distortion. */
static uint64_t
naive_refine (const Pic * cur, const Pic * ref, int x0, int y0, int bw,
    int bh, uint64_t best, const MESearchParams * params)
{
  int cx = 4 * me_key_dx (best), cy = 4 * me_key_dy (best);
#define COST(qx, qy) naive_cost (cur, ref, x0, y0, bw, bh, (qx), (qy), \
      params->metric)
  best = me_key_qpel (COST (cx, cy), cx, cy);
  for (int step = 2; step >= 1; step--) {
    if ((step == 2 && params->refine < ME_REFINE_HALF)
        || (step == 1 && params->refine < ME_REFINE_QUARTER))
      break;
    cx = me_key_qx (best);
    cy = me_key_qy (best);
    for (int dy = -step; dy <= step; dy += step)
      for (int dx = -step; dx <= step; dx += step) {
        uint64_t key = me_key_qpel (COST (cx + dx, cy + dy), cx + dx, cy + dy);
        if (key < best)
          best = key;
      }
  }
#undef COST
  return best;
}

/* The rate-constrained choice (docs/rate.md): among the refined vector F
 * (key f, its distortion), the integer winner W, zero and the prediction
 * P = (px, py) clamped to the window, the smallest key of distortion +
 * lambda x se(v) bits of the MVD against P. */
static uint64_t
naive_rate (const Pic * cur, const Pic * ref, int x0, int y0, int bw, int bh,
    uint64_t f, int wx, int wy, const MESearchParams * params, int px, int py)
{
  const int lim = 4 * (int) params->search_range;
  const int lim_y = 4 * (int) me_search_range_y (params);
  const int cand[4][2] = {
    {me_key_qx (f), me_key_qy (f)}, {wx, wy}, {0, 0},
    {CLAMP (px, -lim, lim), CLAMP (py, -lim_y, lim_y)},
  };
  uint64_t best = ME_KEY_NONE;
  for (int k = 0; k < 4; k++) {
    const int qx = cand[k][0], qy = cand[k][1];
    const uint32_t d = k == 0 ? me_key_cost (f)
        : naive_cost (cur, ref, x0, y0, bw, bh, qx, qy, params->metric);
    const uint64_t key = me_key_qpel (d + (params->lambda << (naive_bits - 8))
        * (naive_se_bits (qx - px) + naive_se_bits (qy - py)), qx, qy);
    best = MIN (best, key);
  }
  return best;
}

/* The whole search of one frame from the definitions: the integer winners
 * from `fast` (a fast method's, per shape) or, when it is NULL, from a full
 * search here; then stage 3 and the finish. */
static gboolean
naive_compare (const guint8 * cur, const guint8 * ref, ptrdiff_t stride,
    unsigned w, unsigned h, const MESearchParams * params, const Field * got,
    uint64_t * const *fast)
{
  const unsigned range = params->search_range, parts = params->partitions;
  const int R = range, ox = params->offset_x;
  /* a window centred at (ox, 0) is the window centred at 0 of the
   * reference read ox pixels across (edge replication included): searched
   * so, its vectors then moved by ox */
  const Pic cur_pic = { cur, stride, w, h, 0 };
  const Pic ref_pic = { ref, stride, w, h, ox };
  const int mb_cols = got->field.mb_cols, mb_rows = got->field.mb_rows;

  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!(parts & (1u << p)))
      continue;
    int bw = gst_motion_vector_partition_width (p);
    int bh = gst_motion_vector_partition_height (p);
    unsigned cols = gst_motion_vector_grid_cols (p, mb_cols);
    unsigned rows = gst_motion_vector_grid_rows (p, mb_rows);
    /* the field as decided so far, in raster order: relative to the
     * window's centre (what the rate term predicts from), and as the
     * cells hold it */
    GstMotionVectorCell *fin = g_new0 (GstMotionVectorCell, cols * rows);
    GstMotionVectorCell *out = g_new0 (GstMotionVectorCell, cols * rows);
    for (unsigned r = 0; r < rows; r++) {
      for (unsigned c = 0; c < cols; c++) {
        uint64_t best = ME_KEY_NONE;
        if (fast)
          best = fast[p][r * cols + c];
        const int Ry = me_search_range_y (params);
        for (int dy = -Ry; !fast && dy <= Ry; dy++) {
          for (int dx = -R; dx <= R; dx++) {
            uint32_t sad = 0;
            for (int y = r * bh; y < (int) (r + 1) * bh; y++)
              for (int x = c * bw; x < (int) (c + 1) * bw; x++)
                sad += abs (px (cur, stride, w, h, x, y)
                    - px (ref, stride, w, h, x + dx + ox, y + dy));
            uint64_t key = me_key (sad, dx, dy);
            if (key < best)
              best = key;
          }
        }
        if (me_search_refines (params)) {
          const uint64_t f = naive_refine (&cur_pic, &ref_pic, c * bw, r * bh,
              bw, bh, best, params);
          if (params->lambda) {
            int pred_x, pred_y;
            me_mvpred_cell (fin, p, c, r, mb_cols, mb_rows, &pred_x, &pred_y);
            best = naive_rate (&cur_pic, &ref_pic, c * bw, r * bh, bw, bh, f,
                4 * me_key_dx (best), 4 * me_key_dy (best), params, pred_x,
                pred_y);
          } else {
            best = f;
          }
        }
        fin[r * cols + c].mv_x = me_key_qx (best);
        fin[r * cols + c].mv_y = me_key_qy (best);
        out[r * cols + c].mv_x = me_key_qx (best) + 4 * ox;
        out[r * cols + c].mv_y = me_key_qy (best);
        /* the H.264 prediction of the naive's own final vectors (every
         * neighbour it reads is decided by now, raster order being ahead
         * of decoding order) */
        int want_px, want_py;
        me_mvpred_cell (out, p, c, r, mb_cols, mb_rows, &want_px, &want_py);
        const GstMotionVectorCell *g = &got->field.grid[p][r * cols + c];
        if (g->mv_x != me_key_qx (best) + 4 * ox
            || g->mv_y != me_key_qy (best)
            || g->cost != me_key_cost (best)
            || g->pred_x != want_px || g->pred_y != want_py
            || g->mvd_x != g->mv_x - g->pred_x
            || g->mvd_y != g->mv_y - g->pred_y) {
          printf ("  %ux%u R=%u offset %d shape %d cell (%u,%u): got (%d,%d) "
              "cost %u, naive (%d,%d) cost %u\n", w, h, range, ox, p, c, r,
              g->mv_x, g->mv_y, g->cost, me_key_qx (best) + 4 * ox,
              me_key_qy (best), me_key_cost (best));
          g_free (fin);
          g_free (out);
          return FALSE;
        }
      }
    }
    g_free (fin);
    g_free (out);
  }
  return TRUE;
}

static gboolean
all_zero (const Field * f)
{
  for (size_t i = 0; i < f->n_cells; i++) {
    const GstMotionVectorCell *c = &f->cells[i];
    if (c->mv_x || c->mv_y || c->cost || c->pred_x || c->pred_y || c->mvd_x
        || c->mvd_y)
      return FALSE;
  }
  return TRUE;
}

/* Sequences of frames of one size through one session, with the range and
 * the shapes changing from frame to frame (the range growing past the
 * reference's border included) and resets now and then; every searched
 * frame is checked against the naive search over its predecessor. */
void
checkasm_check_search (void)
{
  static const unsigned sizes[][3] = {
    /* w, h, largest range tried */
    {1, 1, 128}, {2, 1, 70}, {7, 3, 9}, {16, 16, 6}, {17, 9, 5}, {33, 20, 4},
    {40, 35, 3}, {5, 37, 40}, {48, 32, 36},
  };
  g_autoptr (GError) error = NULL;
  MEBackend *s = checkasm_open_backend ("cpu", &error);
  /* the pruned search of any shapes at every range too */
  MEBackend *sp = checkasm_open_backend ("cpu-pruned", &error);
  gboolean ok = s != NULL && sp != NULL;
  unsigned searched = 0;

  for (unsigned j = 0; ok && j < 2 * (G_N_ELEMENTS (sizes) + 4); j++) {
    const unsigned i = j / 2;
    MEBackend *b = j % 2 ? sp : s;
    unsigned w, h, max_range;
    if (i < G_N_ELEMENTS (sizes)) {
      w = sizes[i][0];
      h = sizes[i][1];
      max_range = sizes[i][2];
    } else {
      w = g_rand_int_range (checkasm.rand, 1, 50);
      h = g_rand_int_range (checkasm.rand, 1, 50);
      max_range = g_rand_int_range (checkasm.rand, 1, 8);
    }
    ptrdiff_t stride = w + g_rand_int_range (checkasm.rand, 0, 40);
    const unsigned world_w = w + 64;
    guint8 *world = g_malloc ((size_t) world_w * (h + 64));
    guint8 *prev = NULL;

    for (size_t k = 0; k < (size_t) world_w * (h + 64); k++)
      world[k] = g_rand_int (checkasm.rand);
    me_backend_reset (b);
    for (int t = 0; ok && t < 8; t++) {
      /* the first range small, so that a later one outgrows the border */
      unsigned range = t == 0 ? 1 : t == 1 ? max_range
          : (unsigned) g_rand_int_range (checkasm.rand, 1, max_range + 1);
      unsigned parts = t == 1 ? GST_MOTION_VECTOR_PARTITIONS_ALL
          : t == 2 || t == 4 || t == 7 ? GST_MOTION_VECTOR_PARTITIONS_16X16
          : g_rand_int_range (checkasm.rand, 1, 128);
      Content content = (i + t) % CONTENT_COUNT;
      MESearchParams params = { range, parts, GST_MOTION_VECTOR_METHOD_FULL,
        (MERefine) g_rand_int_range (checkasm.rand, 0, 3),
        (MEMetric) g_rand_int_range (checkasm.rand, 0, 2),
        /* lambda: none, small, large */
        (unsigned) (t % 3 == 0 ? 0 : t % 3 == 1 ? g_rand_int_range
            (checkasm.rand, 1, 8) : g_rand_int_range (checkasm.rand, 8, 300)),
        /* every other frame a window off centre, past the frame's edges
         * and the border the reference was padded with */
        t % 2 ? g_rand_int_range (checkasm.rand,
            -(int) MIN (2 * max_range + 40, ME_MAX_RANGE - range),
            (int) MIN (2 * max_range + 40, ME_MAX_RANGE - range) + 1) : 0,
        /* a window wider than tall, now and then */
        t % 3 == 2 ? (unsigned) g_rand_int_range (checkasm.rand, 1,
            range + 1) : 0
      };
      gboolean reset = t == 5;
      guint8 *cur = checkasm_make_frame (content, w, h, stride, world, world_w,
          g_rand_int_range (checkasm.rand, 0, 64),
          g_rand_int_range (checkasm.rand, 0, 64));
      MEPlane plane = { cur, stride, w, h };
      Field f;

      if (reset) {
        me_backend_reset (b);
        g_clear_pointer (&prev, g_free);
      }
      field_alloc (&f, w, h, parts);
      ok = me_backend_submit (b, &plane, &params, &f.field, &error)
          && me_backend_collect (b, &error);
      if (ok && !prev) {
        ok = !f.field.has_reference && all_zero (&f);
        if (!ok)
          printf ("  %ux%u frame %d: no reference, but has_reference %d or "
              "cells not zero\n", w, h, t, f.field.has_reference);
      } else if (ok) {
        ok = f.field.has_reference;
        ok = ok && naive_compare (cur, prev, stride, w, h, &params, &f, NULL);
        searched++;
      }
      if (!ok)
        printf ("  (%s, %s content, frame %d, shapes 0x%x, R=%u, refine %d, "
            "metric %d, lambda %u)\n", j % 2 ? "pruned" : "by the rule",
            content_names[content], t, parts, range, params.refine,
            params.metric, params.lambda);
      g_free (f.cells);
      g_free (prev);
      prev = cur;
    }
    g_free (prev);
    g_free (world);
  }
  if (error)
    printf ("  %s\n", error->message);
  if (s)
    me_backend_close (s);
  if (sp)
    me_backend_close (sp);
  printf ("  (%u searched frames checked)\n", searched);
  checkasm_report ("search cpu vs naive (full, sub-pel)", ok);
}

/* Samples of 10, 12 and 16 bits (P010-like words shifted up by 6, words
 * with the samples in their low bits, 16 bits) through the CPU backend
 * against the naive full search at that depth: every shape, refinement,
 * metric and lambda, windows off centre; the depth changes from sequence
 * to sequence, 8-bit frames in between. */
void
checkasm_check_search_deep (void)
{
  static const unsigned sizes[][3] = {
    {1, 1, 20}, {7, 3, 9}, {17, 9, 5}, {33, 20, 4}, {48, 32, 12},
  };
  g_autoptr (GError) error = NULL;
  MEBackend *s0 = checkasm_open_backend ("cpu", &error);
  /* every other sequence pruned at every range (docs/elimination.md) */
  MEBackend *sp = checkasm_open_backend ("cpu-pruned", &error);
  gboolean ok = s0 != NULL && sp != NULL;
  unsigned searched = 0;

  for (unsigned i = 0; ok && i < G_N_ELEMENTS (sizes) * 2; i++) {
    const unsigned w = sizes[i % 5][0], h = sizes[i % 5][1];
    const unsigned max_range = sizes[i % 5][2];
    const unsigned bits = deep_formats[i % 5][0], shift = deep_formats[i % 5][1];
    MEBackend *s = i / 5 ? sp : s0;
    const ptrdiff_t stride = w + g_rand_int_range (checkasm.rand, 0, 20);
    const unsigned world_w = w + 64;
    guint8 *world = g_malloc ((size_t) world_w * (h + 64));
    guint16 *prev = NULL;

    for (size_t k = 0; k < (size_t) world_w * (h + 64); k++)
      world[k] = g_rand_int (checkasm.rand);
    /* an 8-bit frame first: the change of depth is a new sequence */
    if (i % 2) {
      guint8 *f8 = checkasm_make_frame (CONTENT_NOISE, w, h, stride, world,
          world_w, 0, 0);
      MEPlane plane = { f8, stride, w, h };
      MESearchParams params;
      Field f;
      me_search_params_init (&params);
      field_alloc (&f, w, h, params.partitions);
      ok = me_backend_submit (s, &plane, &params, &f.field, &error)
          && me_backend_collect (s, &error);
      g_free (f.cells);
      g_free (f8);
    }
    for (int t = 0; ok && t < 6; t++) {
      const unsigned range = t == 0 ? 1
          : (unsigned) g_rand_int_range (checkasm.rand, 1, max_range + 1);
      const unsigned parts = t == 1 ? GST_MOTION_VECTOR_PARTITIONS_ALL
          : t == 2 ? GST_MOTION_VECTOR_PARTITIONS_16X16
          : g_rand_int_range (checkasm.rand, 1, 128);
      const Content content = (i + t) % CONTENT_COUNT;
      MESearchParams params = { range, parts, GST_MOTION_VECTOR_METHOD_FULL,
        (MERefine) (t % 3), (MEMetric) (t / 3 % 2),
        (unsigned) (t % 2 ? 0 : g_rand_int_range (checkasm.rand, 1,
                1 + (int) me_max_lambda_at_depth (bits) / 64)),
        t == 4 ? g_rand_int_range (checkasm.rand, -20, 21) : 0, 0
      };
      guint8 *f8 = checkasm_make_frame (content, w, h, stride, world, world_w,
          g_rand_int_range (checkasm.rand, 0, 64),
          g_rand_int_range (checkasm.rand, 0, 64));
      guint16 *words, *cur = deepen_frame (f8, w, h, stride, content, bits,
          shift, &words);
      MEPlane plane = { (const guint8 *) words, 2 * stride, w, h,
        .depth = bits, .shift = shift
      };
      Field f;

      field_alloc (&f, w, h, parts);
      ok = me_backend_submit (s, &plane, &params, &f.field, &error)
          && me_backend_collect (s, &error);
      if (ok && !prev) {
        ok = !f.field.has_reference && all_zero (&f);
        if (!ok)
          printf ("  %ux%u %u-bit frame %d: a reference across a change of "
              "depth, or cells not zero\n", w, h, bits, t);
      } else if (ok) {
        naive_bits = bits;
        ok = f.field.has_reference && naive_compare ((const guint8 *) cur,
            (const guint8 *) prev, stride, w, h, &params, &f, NULL);
        naive_bits = 8;
        searched++;
      }
      if (!ok)
        printf ("  (%u bits shifted by %u, %s content, frame %d, shapes 0x%x,"
            " R=%u, refine %d, metric %d, lambda %u)\n", bits, shift,
            content_names[content], t, parts, range, params.refine,
            params.metric, params.lambda);
      g_free (f.cells);
      g_free (f8);
      g_free (words);
      g_free (prev);
      prev = cur;
    }
    g_free (prev);
    g_free (world);
  }
  if (error)
    printf ("  %s\n", error->message);
  if (s0)
    me_backend_close (s0);
  if (sp)
    me_backend_close (sp);
  printf ("  (%u searched 16-bit frames checked)\n", searched);
  checkasm_report ("search cpu vs naive, 10 to 16 bits", ok);
}

/* Wide windows (the ranges at which the CPU prunes searches of any shapes,
 * past ±128 up to ME_MAX_FULL_RANGE) against the naive full search: a
 * smooth textured world and the usual contents seen from moving offsets,
 * at 8 bits and deeper, every stage 3 setting, now and then a window off
 * centre or wider than tall.  Small frames, so that the naive search stays
 * quick. */
void
checkasm_check_search_wide (void)
{
  static const unsigned cases[][5] = {
    /* w, h, range, shapes (0: random), bits */
    {40, 24, 48, GST_MOTION_VECTOR_PARTITIONS_ALL, 8},
    {40, 24, 48, GST_MOTION_VECTOR_PARTITIONS_ALL, 10},
    {33, 17, 64, 0, 8},
    {40, 24, 64, 0, 12},
    {24, 20, 150, 0x09, 8},
    {16, 16, 300, 0x40, 8},
    {16, 16, 300, 0x10, 16},
    {16, 16, ME_MAX_FULL_RANGE, GST_MOTION_VECTOR_PARTITIONS_16X16, 8},
  };
  g_autoptr (GError) error = NULL;
  /* by the rule below ME_ESA_MIN_RANGE (48), pruned at every range */
  MEBackend *s = checkasm_open_backend ("cpu-pruned", &error);
  gboolean ok = s != NULL;
  unsigned searched = 0;

  for (unsigned i = 0; ok && i < G_N_ELEMENTS (cases); i++) {
    const unsigned w = cases[i][0], h = cases[i][1], range = cases[i][2];
    const unsigned bits = cases[i][4];
    const unsigned shift = bits == 10 ? 6 : 0;
    const ptrdiff_t stride = w + g_rand_int_range (checkasm.rand, 0, 9);
    const unsigned world_w = w + 64;
    guint8 *world = g_malloc ((size_t) world_w * (h + 64));
    guint8 *prev = NULL;

    /* smooth texture with a little noise: sums tell candidates apart less
     * easily than on noise */
    for (unsigned y = 0; y < h + 64; y++)
      for (unsigned x = 0; x < world_w; x++)
        world[y * world_w + x] = (guint8) CLAMP (128 + (int) ((x * 5 + y * 3)
                % 61) - 30 + 40 * ((x / 9 + y / 13) % 3 == 0)
            + g_rand_int_range (checkasm.rand, -2, 3), 0, 255);
    me_backend_reset (s);
    for (int t = 0; ok && t < 3; t++) {
      const unsigned parts = cases[i][3] ? cases[i][3]
          : (unsigned) g_rand_int_range (checkasm.rand, 1, 128);
      /* then ties everywhere: a candidate whose bound equals the best
       * cost must not be skipped */
      const Content content = t < 2 ? CONTENT_SHIFT : i % 2
          ? CONTENT_TWO_LEVEL : CONTENT_FLAT;
      MESearchParams params = { range, parts, GST_MOTION_VECTOR_METHOD_FULL,
        (MERefine) g_rand_int_range (checkasm.rand, 0, 3),
        (MEMetric) g_rand_int_range (checkasm.rand, 0, 2),
        (unsigned) (t == 1 ? 0 : g_rand_int_range (checkasm.rand, 1,
                1 + (int) me_max_lambda_at_depth (bits) / 64)),
        range < ME_MAX_RANGE && i % 3 == 1 ? g_rand_int_range (checkasm.rand,
            -(int) (ME_MAX_RANGE - range), (int) (ME_MAX_RANGE - range) + 1)
            : 0,
        i % 4 == 2 ? (unsigned) g_rand_int_range (checkasm.rand, 1, range)
            : 0
      };
      guint8 *cur = checkasm_make_frame (content, w, h, stride, world, world_w,
          g_rand_int_range (checkasm.rand, 0, 64),
          g_rand_int_range (checkasm.rand, 0, 64));
      guint16 *words = NULL, *deep = NULL;
      MEPlane plane = { cur, stride, w, h };
      Field f;

      if (bits > 8) {
        deep = deepen_frame (cur, w, h, stride, content, bits, shift, &words);
        plane = (MEPlane) { (const guint8 *) words, 2 * stride, w, h,
          .depth = bits, .shift = shift };
      }
      field_alloc (&f, w, h, parts);
      ok = me_backend_submit (s, &plane, &params, &f.field, &error)
          && me_backend_collect (s, &error);
      if (ok && prev) {
        naive_bits = bits;
        ok = f.field.has_reference && naive_compare (bits > 8
            ? (const guint8 *) deep : cur, prev, stride, w, h, &params, &f,
            NULL);
        naive_bits = 8;
        searched++;
      }
      if (!ok)
        printf ("  (%ux%u %u-bit, %s content, frame %d, shapes 0x%x, R=%u, "
            "offset %d, rows %u, refine %d, metric %d, lambda %u)\n", w, h,
            bits, content_names[content], t, parts, range, params.offset_x,
            params.range_y, params.refine, params.metric, params.lambda);
      g_free (f.cells);
      g_free (prev);
      g_free (words);
      if (bits > 8) {
        g_free (cur);
        prev = (guint8 *) deep;
      } else {
        prev = cur;
      }
    }
    g_free (prev);
    g_free (world);
  }
  if (error)
    printf ("  %s\n", error->message);
  if (s)
    me_backend_close (s);
  printf ("  (%u searched frames checked)\n", searched);
  checkasm_report ("search cpu vs naive, wide windows (pruned)", ok);
}

/* The fast methods through the CPU backend against checkasm_naive_fast():
 * sequences in which one method searches most frames, with a full search
 * in the middle (which clears predictive's temporal predictors), a reset,
 * and ranges up to ME_MAX_RANGE. */
void
checkasm_check_fast (void)
{
  static const unsigned sizes[][3] = {
    /* w, h, largest range tried */
    {1, 1, 256}, {2, 1, 200}, {7, 3, 9}, {16, 16, 6}, {17, 9, 40},
    {33, 20, 17}, {40, 35, 64}, {5, 37, 40}, {48, 32, 36}, {64, 64, 256},
    {100, 36, 33},
    /* enough macroblocks that neighbours' winners disagree and their sets
     * overlap in every way (hierarchical's union of squares) */
    {176, 144, 12}, {208, 112, 24},
  };
  g_autoptr (GError) error = NULL;
  MEBackend *s = checkasm_open_backend ("cpu", &error);
  gboolean ok = s != NULL;
  unsigned searched = 0;

  for (unsigned i = 0; ok && i < 3 * (G_N_ELEMENTS (sizes) + 3); i++) {
    const GstMotionVectorMethod method = 1 + i % 3;
    const unsigned si = i / 3;
    unsigned w, h, max_range;
    if (si < G_N_ELEMENTS (sizes)) {
      w = sizes[si][0];
      h = sizes[si][1];
      max_range = sizes[si][2];
    } else {
      w = g_rand_int_range (checkasm.rand, 1, 70);
      h = g_rand_int_range (checkasm.rand, 1, 70);
      max_range = g_rand_int_range (checkasm.rand, 1, 40);
    }
    ptrdiff_t stride = w + g_rand_int_range (checkasm.rand, 0, 40);
    const unsigned world_w = w + 64;
    const size_t n_mb = (size_t) gst_motion_vector_mb_cols (w)
        * gst_motion_vector_mb_rows (h);
    guint8 *world = g_malloc ((size_t) world_w * (h + 64));
    guint8 *prev = NULL;
    gint16 *guide = g_new0 (gint16, 2 * n_mb), *temporal = g_new0 (gint16,
        2 * n_mb);
    gboolean temporal_valid = FALSE;

    for (size_t k = 0; k < (size_t) world_w * (h + 64); k++)
      world[k] = g_rand_int (checkasm.rand);
    me_backend_reset (s);
    for (int t = 0; ok && t < 8; t++) {
      const unsigned range = t == 0 ? 1 : t == 1 ? max_range
          : (unsigned) g_rand_int_range (checkasm.rand, 1, max_range + 1);
      const unsigned parts = t == 1 ? GST_MOTION_VECTOR_PARTITIONS_ALL
          : t % 3 == 2 ? GST_MOTION_VECTOR_PARTITIONS_16X16
          : g_rand_int_range (checkasm.rand, 1, 128);
      const Content content = (i + t) % CONTENT_COUNT;
      MESearchParams params = { range, parts, t == 4 ?
            GST_MOTION_VECTOR_METHOD_FULL : method,
        (MERefine) g_rand_int_range (checkasm.rand, 0, 3),
        (MEMetric) g_rand_int_range (checkasm.rand, 0, 2),
        (unsigned) (t % 3 == 0 ? 0 : g_rand_int_range (checkasm.rand, 1, 200))
      };
      if (params.method == GST_MOTION_VECTOR_METHOD_FULL)
        params.search_range = MIN (range, 8);
      guint8 *cur = checkasm_make_frame (content, w, h, stride, world, world_w,
          g_rand_int_range (checkasm.rand, 0, 64),
          g_rand_int_range (checkasm.rand, 0, 64));
      MEPlane plane = { cur, stride, w, h };
      Field f;

      if (t == 6) {
        me_backend_reset (s);
        g_clear_pointer (&prev, g_free);
        temporal_valid = FALSE;
      }
      field_alloc (&f, w, h, parts);
      ok = me_backend_submit (s, &plane, &params, &f.field, &error)
          && me_backend_collect (s, &error);
      if (ok && !prev) {
        ok = !f.field.has_reference && all_zero (&f);
        temporal_valid = FALSE;
      } else if (ok && params.method == GST_MOTION_VECTOR_METHOD_FULL) {
        ok = naive_compare (cur, prev, stride, w, h, &params, &f, NULL);
        temporal_valid = FALSE;
      } else if (ok) {
        uint64_t *win[GST_MOTION_VECTOR_PARTITION_COUNT] = { NULL };
        guint64 off[GST_MOTION_VECTOR_PARTITION_COUNT];
        const size_t n = gst_motion_vector_grid_offsets (parts,
            f.field.mb_cols, f.field.mb_rows, off);
        uint64_t *keys = g_new (uint64_t, n);
        for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
          if (parts & (1u << p))
            win[p] = keys + off[p];
        checkasm_naive_fast (cur, prev, stride, w, h, &params,
            temporal_valid ? temporal : NULL, guide, win);
        ok = naive_compare (cur, prev, stride, w, h, &params, &f, win);
        g_free (keys);
        temporal_valid = params.method == GST_MOTION_VECTOR_METHOD_PREDICTIVE;
        gint16 *x = temporal;
        temporal = guide;
        guide = x;
        searched++;
      }
      if (!ok)
        printf ("  (method %d, %s content, frame %d, shapes 0x%x, R=%u, "
            "refine %d, metric %d, lambda %u)\n", params.method,
            content_names[content], t, parts, params.search_range,
            params.refine, params.metric, params.lambda);
      g_free (f.cells);
      g_free (prev);
      prev = cur;
    }
    g_free (prev);
    g_free (world);
    g_free (guide);
    g_free (temporal);
  }
  if (error)
    printf ("  %s\n", error->message);
  if (s)
    me_backend_close (s);
  printf ("  (%u searched frames checked)\n", searched);
  checkasm_report ("search cpu vs naive (mods, hierarchical, predictive)", ok);
}

/* ---- 2. backends against the CPU ---------------------------------------- */

typedef struct {
  unsigned w, h, range, parts;
  GstMotionVectorMethod method;    /* 0: full */
  MERefine refine;
  MEMetric metric;
  unsigned lambda;
  int offset;                   /* MESearchParams.offset_x */
  unsigned range_y;             /* MESearchParams.range_y */
  unsigned bits, shift;         /* MEPlane.depth and .shift (0: 8-bit) */
} Case;

static gboolean
compare_fields (const Field * want, const Field * got, const Case * c,
    unsigned frame)
{
  if (want->field.has_reference != got->field.has_reference) {
    printf ("  %ux%u R=%u frame %u: has_reference %d, cpu %d\n", c->w, c->h,
        c->range, frame, got->field.has_reference, want->field.has_reference);
    return FALSE;
  }
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!(c->parts & (1u << p)))
      continue;
    unsigned cols = gst_motion_vector_grid_cols (p, want->field.mb_cols);
    unsigned rows = gst_motion_vector_grid_rows (p, want->field.mb_rows);
    for (unsigned i = 0; i < cols * rows; i++) {
      const GstMotionVectorCell *a = &want->field.grid[p][i];
      const GstMotionVectorCell *b = &got->field.grid[p][i];
      if (memcmp (a, b, sizeof (*a)) != 0) {
        printf ("  %ux%u R=%u shapes 0x%x frame %u, shape %d cell (%u,%u): "
            "mv (%d,%d) cost %u pred (%d,%d) mvd (%d,%d); cpu mv (%d,%d) "
            "cost %u pred (%d,%d) mvd (%d,%d)\n", c->w, c->h, c->range,
            c->parts, frame, p, i % cols, i / cols, b->mv_x, b->mv_y, b->cost,
            b->pred_x, b->pred_y, b->mvd_x, b->mvd_y, a->mv_x, a->mv_y,
            a->cost, a->pred_x, a->pred_y, a->mvd_x, a->mvd_y);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* Runs a sequence of frames through both backends, `depth` frames in flight
 * on the one under test (after a reset of both unless `keep` is TRUE; its
 * result cells in its own host memory when `own_memory`), and compares
 * every field. */
static gboolean
run_case (MEBackend * s, MEBackend * cpu_s, const Case * c, Content content,
    unsigned depth, gboolean keep, gboolean own_memory, GError ** error)
{
  const unsigned n = 4;
  const unsigned world_w = c->w + 64, world_h = c->h + 64;
  ptrdiff_t stride = c->w + g_rand_int_range (checkasm.rand, 0, 33);
  MESearchParams params;
  guint8 *world = g_malloc ((size_t) world_w * world_h);
  guint8 *frames[4];
  guint16 *words[4] = { NULL };
  Field want[4], got[4];
  gboolean ok = TRUE;

  me_search_params_init (&params);
  params.search_range = c->range;
  params.partitions = c->parts;
  params.method = c->method;
  params.refine = c->refine;
  params.metric = c->metric;
  params.lambda = c->lambda;
  params.offset_x = c->offset;
  params.range_y = c->range_y;
  for (size_t k = 0; k < (size_t) world_w * world_h; k++)
    world[k] = g_rand_int (checkasm.rand);
  for (unsigned i = 0; i < n; i++) {
    frames[i] = checkasm_make_frame (content, c->w, c->h, stride, world, world_w,
        32 + g_rand_int_range (checkasm.rand, -20, 21),
        32 + g_rand_int_range (checkasm.rand, -20, 21));
    if (c->bits > 8)
      g_free (deepen_frame (frames[i], c->w, c->h, stride, content, c->bits,
              c->shift, &words[i]));
    field_alloc (&want[i], c->w, c->h, c->parts);
    checkasm_field_alloc_in (&got[i], c->w, c->h, c->parts,
        own_memory ? me_backend_get_ops (s) : NULL);
  }

  if (!keep) {
    me_backend_reset (cpu_s);
    me_backend_reset (s);
  }
  me_backend_set_in_flight (s, depth);
  unsigned submitted = 0, collected = 0;
  for (unsigned i = 0; ok && i < n; i++) {
    MEPlane plane = { frames[i], stride, c->w, c->h };
    if (c->bits > 8)
      plane = (MEPlane) { (const guint8 *) words[i], 2 * stride, c->w, c->h,
        .depth = c->bits, .shift = c->shift };
    ok = me_backend_submit (cpu_s, &plane, &params, &want[i].field, error)
        && me_backend_collect (cpu_s, error);
    if (ok && submitted - collected >= depth)
      ok = me_backend_collect (s, error) && ++collected;
    ok = ok && me_backend_submit (s, &plane, &params, &got[i].field, error);
    submitted += ok;
  }
  while (ok && collected < submitted)
    ok = me_backend_collect (s, error) && ++collected;
  for (unsigned i = 0; ok && i < n; i++)
    ok = compare_fields (&want[i], &got[i], c, i);
  if (!ok)
    printf ("  (%s content, depth %u, refine %d, metric %d, lambda %u, "
        "offset %d, range_y %u, %u bits shifted by %u)\n",
        content_names[content], depth, c->refine, c->metric, c->lambda,
        c->offset, c->range_y, c->bits ? c->bits : 8, c->shift);

  if (!ok)
    me_backend_reset (s);
  for (unsigned i = 0; i < n; i++) {
    g_free (frames[i]);
    g_free (words[i]);
    checkasm_field_free (&want[i]);
    checkasm_field_free (&got[i]);
  }
  g_free (world);
  return ok;
}

/* Stage 3 settings both backends have, rotating with `k`: every
 * refinement and metric they share comes up in turn. */
static void
pick_stage3 (MEBackend * s, MEBackend * cpu_s, unsigned k, Case * c)
{
  const MEBackendCaps *a = &me_backend_get_ops (s)->caps;
  const MEBackendCaps *b = &me_backend_get_ops (cpu_s)->caps;
  const guint refs = a->refinements & b->refinements;
  const guint mets = a->metrics & b->metrics;
  guint r[32], m[32], nr = 0, nm = 0;
  for (unsigned i = 0; i < 32; i++) {
    if (refs & (1u << i))
      r[nr++] = i;
    if (mets & (1u << i))
      m[nm++] = i;
  }
  c->refine = nr ? (MERefine) r[k % nr] : ME_REFINE_NONE;
  c->metric = nm ? (MEMetric) m[(k / MAX (nr, 1)) % nm] : ME_METRIC_SAD;
  /* no rate term, a small and a large lambda, in turn */
  c->lambda = a->rate && b->rate ? (k / 2) % 3 * (k % 5 + 1) * 9 : 0;
  /* full search: a window centred off zero, left or right, in turn */
  c->offset = 0;
  c->range_y = 0;
  if (c->method == GST_MOTION_VECTOR_METHOD_FULL && k % 4 >= 2)
    c->range_y = 1 + (c->range * (k % 4 == 2 ? 1 : 3)) / 8;
  /* (within the largest window off centre, which the largest centred
   * full searches pass) */
  const int most = (int) MIN (a->max_range, b->max_range) - (int) c->range;
  if (c->method == GST_MOTION_VECTOR_METHOD_FULL && k % 3 && most > 0) {
    const int o = (int) (c->range / 2 + 5) * (k % 3 == 1 ? 1 : -1);
    c->offset = CLAMP (o, -most, most);
  }
}

/* Candidates a method costs per macroblock at range R, roughly: the work
 * of a case for the CPU side. */
static double
method_candidates (GstMotionVectorMethod method, unsigned R)
{
  switch (method) {
    case GST_MOTION_VECTOR_METHOD_FULL:
      return (2.0 * R + 1) * (2.0 * R + 1);
    case GST_MOTION_VECTOR_METHOD_MODS:
      return (2.0 * R + 1) * 16;
    case GST_MOTION_VECTOR_METHOD_HIERARCHICAL:
      return (R / 2.0 + 1) * (R / 2.0 + 1) / 16 + 60;
    default:
      return 100;
  }
}

/* Whether the method takes range R at all, on backend s. */
static gboolean
method_range_ok (MEBackend * s, GstMotionVectorMethod method, unsigned R)
{
  const MEBackendCaps *caps = &me_backend_get_ops (s)->caps;
  return method == GST_MOTION_VECTOR_METHOD_FULL ? R <= caps->max_full_range
      : R <= MIN (caps->max_range, ME_MAX_RANGE);
}

/* Sizes x ranges x shape sets, as many as a bounded amount of work allows,
 * against the CPU backend: for backends whose speed makes a wide matrix
 * cheap (the GPU).  Ends with a size change in the middle of a stream with
 * frames in flight. */
static gboolean
run_matrix (MEBackend * s, MEBackend * cpu_s, GstMotionVectorMethod method,
    unsigned *n_cases, GError ** error)
{
  static const unsigned sizes[][2] = {
    {1, 1}, {7, 5}, {16, 16}, {17, 33}, {33, 17}, {64, 48}, {100, 75},
    {176, 144}, {352, 288}, {640, 360}, {1280, 720}, {1920, 1080},
  };
  static const unsigned ranges[] = { 1, 2, 3, 5, 8, 15, 16, 17, 31, 32, 33,
    48, 64, 100, 128, 200, 256, 384, 511
  };
  static const unsigned part_sets[] = { 0x01, 0x7f, 0x08, 0x0e, 0x40, 0x30,
    0x02, 0x04, 0x10
  };
  /* pixels x candidates x shapes per case, for the CPU side */
  const double budget = 4e8;
  gboolean ok = TRUE;

  for (unsigned si = 0; ok && si < G_N_ELEMENTS (sizes); si++)
    for (unsigned ri = 0; ok && ri < G_N_ELEMENTS (ranges); ri++)
      for (unsigned pi = 0; ok && pi < G_N_ELEMENTS (part_sets); pi++) {
        Case c = { sizes[si][0], sizes[si][1], ranges[ri], part_sets[pi],
          method };
        if (!method_range_ok (s, method, c.range))
          continue;
        pick_stage3 (s, cpu_s, si + ri + pi, &c);
        double work = (double) c.w * c.h * method_candidates (method, c.range)
            * __builtin_popcount (c.parts);
        if (work > budget)
          continue;
        /* one in three small cases, to keep the run short */
        if (work < budget / 50 && g_rand_int_range (checkasm.rand, 0, 3))
          continue;
        ok = run_case (s, cpu_s, &c, (si + ri + pi) % CONTENT_COUNT,
            1 + (si + pi) % MIN (4, me_backend_max_in_flight (s)), FALSE,
            (si + ri) % 2, error);
        ++*n_cases;
      }
  if (ok) {
    Case a = { 96, 64, 8, 0x7f, method }, b = { 80, 48, 8, 0x7f, method };
    ok = run_case (s, cpu_s, &a, CONTENT_SHIFT, 4, FALSE, TRUE, error)
        && run_case (s, cpu_s, &b, CONTENT_SHIFT, 4, TRUE, TRUE, error);
    *n_cases += 2;
  }
  return ok;
}

/* "cpu-c": the CPU backend with its DSP table restricted to the C
 * reference, one thread and no early-out, so that the whole search of
 * every SIMD level, the pruning and the threading are compared cell by cell
 * with the plain exhaustive loops on all the cases above.  "NAME-pruned":
 * backend NAME with its pruned full search wherever it has one
 * (ME_PRUNE_ALWAYS).  Any other name opens that backend with its defaults;
 * NULL when it is not built. */
MEBackend *
checkasm_open_backend (const char *name, GError ** error)
{
  MEBackendOptions options;
  const MEBackendOps *ops;

  me_backend_options_init (&options);
  options.threads = checkasm.threads;
  memcpy (options.devices, checkasm.devices, sizeof (options.devices));
  options.n_devices = checkasm.n_devices;
  if (strcmp (name, "cpu-c") == 0) {
    options.simd = 0;
    options.threads = 1;
    options.exhaustive = TRUE;
    name = "cpu";
  }
  /* NAME-pruned: the backend's pruned full search at every range, not
   * only where its rule picks it (docs/elimination.md) */
  g_autofree gchar *base = NULL;
  if (g_str_has_suffix (name, "-pruned")) {
    base = g_strndup (name, strlen (name) - strlen ("-pruned"));
    options.prune = ME_PRUNE_ALWAYS;
    name = base;
  }
  ops = me_backend_find (name);
  if (!ops) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_UNAVAILABLE,
        "backend not built");
    return NULL;
  }
  return me_backend_open (ops, &options, error);
}

/* One method over sizes x ranges x shape sets, then the wide matrix. */
static gboolean
check_backend_method (MEBackend * s, MEBackend * cpu_s, const char *name,
    GstMotionVectorMethod method, GError ** error)
{
  static const unsigned sizes[][2] = {
    {1, 1}, {7, 3}, {16, 16}, {17, 9}, {33, 47}, {176, 144}, {640, 360},
    {1920, 1080},
  };
  static const unsigned ranges[] = { 1, 2, 7, 16, 32, 64, 128, 256, 511 };
  gboolean ok = TRUE;

  for (unsigned i = 0; ok && i < G_N_ELEMENTS (sizes) + 6; i++) {
    Case c = { 0 };
    c.method = method;
    if (i < G_N_ELEMENTS (sizes)) {
      c.w = sizes[i][0];
      c.h = sizes[i][1];
    } else {
      c.w = g_rand_int_range (checkasm.rand, 1, 300);
      c.h = g_rand_int_range (checkasm.rand, 1, 200);
    }
    for (unsigned r = 0; ok && r < G_N_ELEMENTS (ranges); r++) {
      /* large ranges on large frames take the CPU too long */
      if (!method_range_ok (s, method, ranges[r])
          || c.w * c.h * method_candidates (method, ranges[r])
          > 640.0 * 360 * (method ? 150 : 4225))
        continue;
      c.range = ranges[r];
      for (int t = 0; ok && t < 3; t++) {
        c.parts = t == 0 ? GST_MOTION_VECTOR_PARTITIONS_16X16
            : t == 1 ? GST_MOTION_VECTOR_PARTITIONS_ALL
            : g_rand_int_range (checkasm.rand, 1, 128);
        Content content = (i + r + t) % CONTENT_COUNT;
        unsigned depth = 1 + (i + t) % MIN (4, me_backend_max_in_flight (s));
        pick_stage3 (s, cpu_s, i + r + t, &c);
        ok = run_case (s, cpu_s, &c, content, depth, FALSE, t == 1, error);
      }
    }
  }
  if (ok && strcmp (name, "cpu-c") != 0) {
    unsigned n_cases = 0;
    ok = run_matrix (s, cpu_s, method, &n_cases, error);
    printf ("  %s, method %d: matrix of %u cases\n", name, (int) method,
        n_cases);
  }
  return ok;
}

/* One method on samples of 10, 12 and 16 bits (shifted words among them):
 * sizes from one pixel to 1080p, every shape set, the stage 3 settings in
 * turn, lambda within the depth's limit. */
static gboolean
check_backend_deep (MEBackend * s, MEBackend * cpu_s,
    GstMotionVectorMethod method, GError ** error)
{
  static const unsigned sizes[][3] = {
    /* w, h, range */
    {1, 1, 7}, {17, 9, 16}, {33, 47, 32}, {176, 144, 16}, {352, 288, 64},
    {640, 360, 16}, {1920, 1080, 8},
  };
  gboolean ok = TRUE;

  /* the CPU's C routines against its SIMD ones: the large frames only
   * add time (under sanitizers, minutes); a GPU takes them all */
  const gboolean cpu = strcmp (me_backend_name (s), "cpu") == 0;

  for (unsigned i = 0; ok && i < G_N_ELEMENTS (sizes); i++)
    for (int t = 0; ok && t < 3; t++) {
      if (cpu && sizes[i][0] * sizes[i][1] > 352 * 288)
        continue;
      Case c = { sizes[i][0], sizes[i][1], sizes[i][2],
        t == 0 ? GST_MOTION_VECTOR_PARTITIONS_16X16
            : t == 1 ? GST_MOTION_VECTOR_PARTITIONS_ALL
            : (unsigned) g_rand_int_range (checkasm.rand, 1, 128), method
      };
      if (!method_range_ok (s, method, c.range))
        continue;
      pick_stage3 (s, cpu_s, i + t, &c);
      c.bits = deep_formats[(i + t) % 5][0];
      c.shift = deep_formats[(i + t) % 5][1];
      c.lambda = MIN (c.lambda, me_max_lambda_at_depth (c.bits));
      ok = run_case (s, cpu_s, &c, (i + t) % CONTENT_COUNT,
          1 + (i + t) % MIN (4, me_backend_max_in_flight (s)), FALSE, t == 1,
          error);
    }
  return ok;
}

/* The backend `name` against the CPU backend, cell by cell, for every
 * search method both of them offer. */
int
checkasm_check_backend (const char *name)
{
  g_autoptr (GError) error = NULL;
  MEBackend *s, *cpu_s;
  char label[64];
  gboolean ok = TRUE;

  s = checkasm_open_backend (name, &error);
  if (!s) {
    printf ("SKIP: %s: %s\n", name, error->message);
    return 77;
  }
  cpu_s = checkasm_open_backend ("cpu", &error);
  g_assert (cpu_s);

  const guint methods = me_backend_get_ops (s)->caps.methods
      & me_backend_get_ops (cpu_s)->caps.methods;
  for (int m = 0; ok && m < 32; m++)
    if (methods & (1u << m))
      ok = check_backend_method (s, cpu_s, name, (GstMotionVectorMethod) m,
          &error);
  /* samples of 10 to 16 bits, where both search them */
  if (ok && me_backend_supports_depth (me_backend_get_ops (s), 16, NULL))
    for (int m = 0; ok && m < 32; m++)
      if (methods & (1u << m))
        ok = check_backend_deep (s, cpu_s, (GstMotionVectorMethod) m, &error);
  /* searches against other references (check_refs.c) */
  if (ok && strcmp (name, "cpu-c") != 0)
    ok = checkasm_check_backend_refs (s, cpu_s, &error);
  /* many sessions at once (the CUDA backend batches their searches) */
  if (ok && strcmp (name, "cpu-c") != 0)
    ok = checkasm_check_backend_batch (name, cpu_s, &error);
  if (error)
    printf ("  %s\n", error->message);
  me_backend_close (s);
  me_backend_close (cpu_s);
  g_snprintf (label, sizeof (label), "backend %s vs cpu", name);
  checkasm_report (label, ok);
  return 0;
}

void
checkasm_bench_backends (void)
{
  static const unsigned cfg[][3] = {
    {16, GST_MOTION_VECTOR_PARTITIONS_16X16}, {32, GST_MOTION_VECTOR_PARTITIONS_16X16},
    {16, GST_MOTION_VECTOR_PARTITIONS_ALL},
  };
  const unsigned w = 1920, h = 1080;
  guint8 *world = g_malloc ((size_t) (w + 64) * (h + 64));

  for (size_t k = 0; k < (size_t) (w + 64) * (h + 64); k++)
    world[k] = g_rand_int (checkasm.rand);
  printf ("%-8s %-10s %4s %-6s %10s\n", "backend", "size", "R", "shapes",
      "frames/s");
  unsigned n_reg;
  const MEBackendEntry *reg = me_backend_registry (&n_reg);
  for (unsigned ib = 0; ib < n_reg; ib++) {
    g_autoptr (GError) error = NULL;
    MEBackend *s = checkasm_open_backend (reg[ib].name, &error);
    if (!s) {
      printf ("%-8s SKIP: %s\n", reg[ib].name, error->message);
      continue;
    }
    for (unsigned k = 0; k < G_N_ELEMENTS (cfg); k++) {
      MESearchParams params;
      guint8 *f[2] = {
        checkasm_make_frame (CONTENT_SHIFT, w, h, w, world, w + 64, 30, 30),
        checkasm_make_frame (CONTENT_SHIFT, w, h, w, world, w + 64, 33, 28),
      };
      Field field;
      unsigned frames = 0;
      double t0, t;

      me_search_params_init (&params);
      params.search_range = cfg[k][0];
      params.partitions = cfg[k][1];
      field_alloc (&field, w, h, params.partitions);
      me_backend_set_in_flight (s, 1);
      t0 = checkasm_now ();
      do {
        MEPlane plane = { f[frames & 1], w, w, h };
        me_backend_submit (s, &plane, &params, &field.field, NULL);
        me_backend_collect (s, NULL);
        frames++;
        t = checkasm_now () - t0;
      } while (t < 2.0 || frames < 3);
      printf ("%-8s %4ux%-5u %4u %-6s %10.1f\n", reg[ib].name, w, h,
          params.search_range, params.partitions == 1 ? "16x16" : "all",
          frames / t);
      g_free (field.cells);
      g_free (f[0]);
      g_free (f[1]);
    }
    me_backend_close (s);
  }
  g_free (world);
}
