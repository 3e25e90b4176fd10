/* gpumotionest — motion compensation, the fast CPU implementation: the
 * kernels, compiled once per instruction-set level.
 *
 * Included by mc_cpu.c (portable: the compiler's baseline) and by
 * x86/mc_cpu_avx2.c (the same code built with -mavx2), each with its own
 * MC_CPU_FN() suffix; mc_cpu.c picks the best level at run time.  The
 * code is written for the compiler to vectorize: every inner loop runs
 * over a whole row of fixed length (4, 8 or 16 samples, the rect's width
 * rounded up) on int16/int32 arrays, with no call and no branch per
 * sample.  The samples are those of the C reference (mc_c.c) bit for bit:
 * the same sums (integer, so their order does not matter), the same rules
 * (mc_rules.h), organised by rows.
 *
 *   luma    the four half-sample planes of the reference computed once
 *           a call in long rows (hp_*), each quarter sample the mean of
 *           two of them read as rows
 *   chroma  H.264's bilinear with its four weights computed once a rect,
 *           on a patch of samples clamped only where the rect reaches an
 *           edge
 *   overlap a row of cells is a band: each block of the rows around it
 *           predicted once over its window's part in the band, weighted
 *           by precomputed window rows into 32-bit sums (band_acc), then
 *           rounded a whole plane row at a time
 *   interpolate_plane: both sides' sums and the weights' sum per band,
 *           the blend written straight to the output
 *
 * Expects MC_CPU_FN (name) to be defined by the includer.
 */
#include "mc_impl.h"
#include "mc_rules.h"
#include "mc_cpu.h"

#include <string.h>

#define CELL 16                 /* the largest cell side */
#define PW 32                   /* row stride of patches and rect buffers */

/* ---- reading samples ------------------------------------------------------
 * Every sample of a plane is found through sample_step(), the bytes between
 * neighbouring samples of a row (MCPlane.pstride: wider than a sample for
 * semi-planar chroma and packed pixels). */

static inline ptrdiff_t
sample_step (const MCPlane * p)
{
  return (ptrdiff_t) mc_plane_pstride (p);
}

static inline const uint8_t *
sample_ptr (const MCPlane * p, int x, int y)
{
  return p->data + (ptrdiff_t) y * p->stride + (ptrdiff_t) x * sample_step (p);
}

/* n samples of row y from column x (all inside the plane) into dst. */
static inline void
load_row (const MCPlane * p, int x, int y, int n, uint16_t * dst)
{
  const uint8_t *s = sample_ptr (p, x, y);
  const ptrdiff_t st = sample_step (p);
  if (p->depth <= 8) {
    for (int i = 0; i < n; i++)
      dst[i] = s[i * st];
  } else {
    const unsigned sh = p->shift, m = (1u << p->depth) - 1;
    for (int i = 0; i < n; i++)
      dst[i] = (uint16_t) ((*(const uint16_t *) (s + i * st) >> sh) & m);
  }
}

/* The same through clamped coordinates: columns idx[0 .. n-1]. */
static inline void
load_row_clamped (const MCPlane * p, const int *idx, int y, int n,
    uint16_t * dst)
{
  const uint8_t *s = sample_ptr (p, 0, y);
  const ptrdiff_t st = sample_step (p);
  if (p->depth <= 8) {
    for (int i = 0; i < n; i++)
      dst[i] = s[idx[i] * st];
  } else {
    const unsigned sh = p->shift, m = (1u << p->depth) - 1;
    for (int i = 0; i < n; i++)
      dst[i] = (uint16_t) ((*(const uint16_t *) (s + idx[i] * st) >> sh)
          & m);
  }
}

/* patch[y * PW + x] = sample (ix + x, iy + y) clamped to the plane, for
 * x < pw, y < ph. */
static inline __attribute__((always_inline)) void
fetch_patch (const MCPlane * p, int ix, int iy, int pw, int ph,
    uint16_t * patch)
{
  const int W = (int) p->width, H = (int) p->height;
  if (ix >= 0 && ix + pw <= W) {
    if (iy >= 0 && iy + ph <= H) {
      for (int y = 0; y < ph; y++)
        load_row (p, ix, iy + y, pw, patch + y * PW);
    } else {
      for (int y = 0; y < ph; y++)
        load_row (p, ix, mc_clamp (iy + y, H), pw, patch + y * PW);
    }
    return;
  }
  int idx[PW];
  for (int x = 0; x < pw; x++)
    idx[x] = mc_clamp (ix + x, W);
  for (int y = 0; y < ph; y++)
    load_row_clamped (p, idx, mc_clamp (iy + y, H), pw, patch + y * PW);
}

/* ---- chroma: H.264's bilinear, a rect at a time ---------------------- */

/* acc[y * as + x] += wy[y] wxr[x] (the bilinear sample at fraction
 * (fx, fy) of the rows from r0, rs samples apart), y < h, x < N. */
#define DEFINE_CHROMA_ACC(N, T, SFX) \
static inline void \
chroma_acc_##N##SFX (const T * r0, ptrdiff_t rs, int h, int fx, int fy, \
    const int16_t * wxr, const int16_t * wy, uint32_t * acc, ptrdiff_t as) \
{ \
  const int a = (8 - fx) * (8 - fy), b = fx * (8 - fy); \
  const int c = (8 - fx) * fy, d = fx * fy; \
  for (int y = 0; y < h; y++) { \
    const T *p = r0 + y * rs, *q = p + rs; \
    const uint32_t k = (uint32_t) wy[y]; \
    uint32_t *ac = acc + y * as; \
    for (int x = 0; x < N; x++) \
      ac[x] += k * (uint32_t) wxr[x] * (uint32_t) ((a * p[x] + b * p[x + 1] \
              + c * q[x] + d * q[x + 1] + 32) >> 6); \
  } \
}

DEFINE_CHROMA_ACC (4, uint16_t, )
DEFINE_CHROMA_ACC (8, uint16_t, )
DEFINE_CHROMA_ACC (16, uint16_t, )
DEFINE_CHROMA_ACC (24, uint16_t, )
DEFINE_CHROMA_ACC (4, uint8_t, _8)
DEFINE_CHROMA_ACC (8, uint8_t, _8)
DEFINE_CHROMA_ACC (16, uint8_t, _8)
DEFINE_CHROMA_ACC (24, uint8_t, _8)

static inline int
round_width (int w)
{
  return w <= 4 ? 4 : w <= 8 ? 8 : w <= 16 ? 16 : 24;
}

/* acc[y * as + x] += wy[y] wxr[x] pred (x, y), y < h, x < round_width (w):
 * block (mvx, mvy)'s chroma prediction of the plane's samples (x0 + x,
 * y0 + y), subsampled (sub_x, sub_y), not both 0 (luma and 4:4:4 chroma
 * take the half-sample planes, hp_rect_*).  8-bit samples are read where
 * they are when every sample the rect reads (columns past w too: they
 * weigh 0) lies inside the plane, the rest from a clamped patch. */
static void
chroma_acc (const MCPlane * ref, int x0, int y0, int w, int h, int mvx,
    int mvy, unsigned sub_x, unsigned sub_y, const int16_t * wxr,
    const int16_t * wy, uint32_t * acc, ptrdiff_t as)
{
  const int n = round_width (w);
  const int cx = mc_chroma_mv8 (mvx, (int) sub_x);
  const int cy = mc_chroma_mv8 (mvy, (int) sub_y);
  const int ix = x0 + (cx >> 3), iy = y0 + (cy >> 3);
  const int fx = cx & 7, fy = cy & 7;
  if (ref->depth <= 8 && sample_step (ref) == 1 && ix >= 0
      && ix + n + 1 <= (int) ref->width && iy >= 0
      && iy + h + 1 <= (int) ref->height) {
    const uint8_t *r0 = sample_ptr (ref, ix, iy);
    if (n == 4)
      chroma_acc_4_8 (r0, ref->stride, h, fx, fy, wxr, wy, acc, as);
    else if (n == 8)
      chroma_acc_8_8 (r0, ref->stride, h, fx, fy, wxr, wy, acc, as);
    else if (n == 16)
      chroma_acc_16_8 (r0, ref->stride, h, fx, fy, wxr, wy, acc, as);
    else
      chroma_acc_24_8 (r0, ref->stride, h, fx, fy, wxr, wy, acc, as);
    return;
  }
  uint16_t patch[(CELL + 1) * PW];
  fetch_patch (ref, ix, iy, n + 1, h + 1, patch);
  if (n == 4)
    chroma_acc_4 (patch, PW, h, fx, fy, wxr, wy, acc, as);
  else if (n == 8)
    chroma_acc_8 (patch, PW, h, fx, fy, wxr, wy, acc, as);
  else if (n == 16)
    chroma_acc_16 (patch, PW, h, fx, fy, wxr, wy, acc, as);
  else
    chroma_acc_24 (patch, PW, h, fx, fy, wxr, wy, acc, as);
}

/* ---- luma: the half-sample planes of a whole reference -------------------
 * For luma the four planes of subpel_rules.h (full samples F, half samples
 * H, V and C) are computed once a call over the whole reference, in long
 * rows, and every quarter sample is then the mean of two of them: far less
 * filtering than per rect, where the 6-tap's margins are filtered again
 * for every rect (a cell's nine).  Sample (x, y) of a plane outside the
 * picture is, by the edge rule, that plane's sample at the clamped
 * coordinates, and all four planes are constant past
 * [-3, W + 1] x [-3, H + 1] (the 6-tap then reads only edge samples, the
 * full samples already past [0, W - 1]): each is stored over that box and
 * read through one clamp to it, exact for all four. */

#define HP_PAD 5                /* S, the clamped reference, from -5 */
#define HP_LO (-3)              /* the box every plane is stored over */
#define HP_BAND 8               /* rows of H, V, C a job computes */

typedef struct {
  uint8_t *p[4];                /* F (the clamped reference S), H, V, C */
  ptrdiff_t stride;             /* samples between rows */
  int W, H;
  int bytes;                    /* a stored sample: 1 at 8 bits, else 2 */
} HPel;

/* sample (x, y) of plane k, HP_PAD - 5 <= x, y: */
static inline uint16_t *
hp_at (const HPel * hp, int k, int x, int y)
{
  return (uint16_t *) hp->p[k] + (ptrdiff_t) (y + HP_PAD) * hp->stride + x
      + HP_PAD;
}

/* The same in planes of 8-bit samples, stored a byte each (half the
 * memory the rows are gathered from). */
static inline uint8_t *
hp_at8 (const HPel * hp, int k, int x, int y)
{
  return hp->p[k] + (ptrdiff_t) (y + HP_PAD) * hp->stride + x + HP_PAD;
}

/* Scratch for the planes, kept between calls (a 1080p pair of references
 * is about 34 MB): allocating it every call costs page faults that
 * outweigh the work. */
static GMutex hp_lock;
static struct {
  void *ptr;
  size_t size;
} hp_cache[MC_DENOISE_MAX_REFS + 2];

static void *
hp_take (size_t size)
{
  void *ptr = NULL;
  g_mutex_lock (&hp_lock);
  for (unsigned i = 0; i < G_N_ELEMENTS (hp_cache) && !ptr; i++)
    if (hp_cache[i].ptr && hp_cache[i].size >= size) {
      ptr = hp_cache[i].ptr;
      hp_cache[i].ptr = NULL;
    }
  g_mutex_unlock (&hp_lock);
  return ptr ? ptr : g_malloc (size);
}

static void
hp_give (void *ptr, size_t size)
{
  g_mutex_lock (&hp_lock);
  for (unsigned i = 0; i < G_N_ELEMENTS (hp_cache) && ptr; i++)
    if (!hp_cache[i].ptr) {
      hp_cache[i].ptr = ptr;
      hp_cache[i].size = size;
      ptr = NULL;
    }
  g_mutex_unlock (&hp_lock);
  g_free (ptr);
}

static size_t
hp_size (const MCPlane * ref, ptrdiff_t * stride)
{
  /* 16 samples of slack after the box: rows rounded up to 16 read there */
  *stride = ((ptrdiff_t) ref->width + 2 * HP_PAD + 16 + 15) & ~(ptrdiff_t) 15;
  return 4 * (size_t) * stride * (ref->height + 2 * HP_PAD)
      * (ref->depth > 8 ? 2 : 1);
}

static void
hp_init (HPel * hp, const MCPlane * ref, void *mem, ptrdiff_t stride)
{
  hp->bytes = ref->depth > 8 ? 2 : 1;
  const size_t plane = (size_t) stride * (ref->height + 2 * HP_PAD)
      * hp->bytes;
  for (int k = 0; k < 4; k++)
    hp->p[k] = (uint8_t *) mem + k * plane;
  hp->stride = stride;
  hp->W = (int) ref->width;
  hp->H = (int) ref->height;
}

typedef struct {
  HPel hp[MC_DENOISE_MAX_REFS];
  const MCPlane *ref[MC_DENOISE_MAX_REFS];
  unsigned rows_s;              /* rows of S a side */
  unsigned bands;               /* bands of H, V, C a side */
} HPJob;

/* Row r of S (y = r - HP_PAD): the reference's clamped row, its ends
 * replicated out to the slack. */
static void
hp_s_row (gpointer data, unsigned job_r)
{
  const HPJob *job = data;
  const unsigned side = job_r / job->rows_s, r = job_r % job->rows_s;
  const HPel *hp = &job->hp[side];
  const int y = (int) r - HP_PAD;
  if (hp->bytes == 1) {
    uint8_t *d = hp_at8 (hp, 0, -HP_PAD, y);
    const uint8_t *src = sample_ptr (job->ref[side], 0, mc_clamp (y, hp->H));
    const ptrdiff_t st = sample_step (job->ref[side]);
    if (st == 1)
      memcpy (d + HP_PAD, src, hp->W);
    else
      for (int x = 0; x < hp->W; x++)
        d[HP_PAD + x] = src[x * st];
    memset (d, d[HP_PAD], HP_PAD);
    memset (d + HP_PAD + hp->W, d[HP_PAD + hp->W - 1],
        hp->stride - HP_PAD - hp->W);
    return;
  }
  uint16_t *d = hp_at (hp, 0, -HP_PAD, y);
  load_row (job->ref[side], 0, mc_clamp (y, hp->H), hp->W, d + HP_PAD);
  const uint16_t first = d[HP_PAD], last = d[HP_PAD + hp->W - 1];
  for (int x = 0; x < HP_PAD; x++)
    d[x] = first;
  for (ptrdiff_t x = HP_PAD + hp->W; x < hp->stride; x++)
    d[x] = last;
}

/* Rows y0 .. y1 - 1 of H, V and C of 8-bit samples: every sum of the
 * 6-tap fits 16 bits (-2550 .. 13260), so the rows are filtered in int16,
 * twice the lanes of int32; only C's second pass needs 32 bits. */
static inline void
hp_h_row_8 (const uint8_t * restrict r, uint8_t * restrict o, int n)
{
  for (int x = 0; x < n; x++) {
    int16_t v = (int16_t) (r[x - 2] + r[x + 3] - 5 * (r[x - 1] + r[x + 2])
        + 20 * (r[x] + r[x + 1]));
    v = (int16_t) ((int16_t) (v + 16) >> 5);
    v = v < 0 ? 0 : v;
    o[x] = (uint8_t) (v > 255 ? 255 : v);
  }
}

static inline void
hp_v_row_8 (const uint8_t * restrict r0, const uint8_t * restrict r1,
    const uint8_t * restrict r2, const uint8_t * restrict r3,
    const uint8_t * restrict r4, const uint8_t * restrict r5,
    uint8_t * restrict o, int n)
{
  for (int x = 0; x < n; x++) {
    int16_t v = (int16_t) (r0[x] + r5[x] - 5 * (r1[x] + r4[x])
        + 20 * (r2[x] + r3[x]));
    v = (int16_t) ((int16_t) (v + 16) >> 5);
    v = v < 0 ? 0 : v;
    o[x] = (uint8_t) (v > 255 ? 255 : v);
  }
}

static inline void
hp_b1_row_8 (const uint8_t * restrict r, int16_t * restrict o, int n)
{
  for (int x = 0; x < n; x++)
    o[x] = (int16_t) (r[x - 2] + r[x + 3] - 5 * (r[x - 1] + r[x + 2])
        + 20 * (r[x] + r[x + 1]));
}

static inline void
hp_c_row_8 (const int16_t * restrict r0, const int16_t * restrict r1,
    const int16_t * restrict r2, const int16_t * restrict r3,
    const int16_t * restrict r4, const int16_t * restrict r5,
    uint8_t * restrict o, int n)
{
  for (int x = 0; x < n; x++) {
    int v = r0[x] + r5[x] - 5 * (r1[x] + r4[x]) + 20 * (r2[x] + r3[x]);
    v = (v + 512) >> 10;
    v = v < 0 ? 0 : v;
    o[x] = (uint8_t) (v > 255 ? 255 : v);
  }
}

/* Rows y0 .. y1 - 1 of H, V and C of 8-bit samples: every sum of the
 * 6-tap fits 16 bits (-2550 .. 13260), so the rows are filtered in int16,
 * twice the lanes of int32; only C's second pass needs 32 bits. */
static void
hp_hvc_band_8 (const HPel * hp, int y0, int y1, int n)
{
  int16_t *b1 = g_new (int16_t, (size_t) (HP_BAND + 5) * n);
  const ptrdiff_t s = hp->stride;
  for (int y = y0; y < y1; y++) {
    const uint8_t *r = hp_at8 (hp, 0, HP_LO, y);
    hp_h_row_8 (r, hp_at8 (hp, 1, HP_LO, y), n);
    hp_v_row_8 (r - 2 * s, r - s, r, r + s, r + 2 * s, r + 3 * s,
        hp_at8 (hp, 2, HP_LO, y), n);
  }
  for (int y = y0 - 2; y < y1 + 3; y++)
    hp_b1_row_8 (hp_at8 (hp, 0, HP_LO, y), b1 + (ptrdiff_t) (y - y0 + 2)
        * n, n);
  for (int y = y0; y < y1; y++) {
    const int16_t *r = b1 + (ptrdiff_t) (y - y0 + 2) * n;
    hp_c_row_8 (r - 2 * n, r - n, r, r + n, r + 2 * n, r + 3 * n,
        hp_at8 (hp, 3, HP_LO, y), n);
  }
  g_free (b1);
}

/* Band b of H, V and C: rows HP_LO + b HP_BAND .. (up to H + 1), columns
 * HP_LO .. W + 1. */
static void
hp_hvc_band (gpointer data, unsigned job_b)
{
  const HPJob *job = data;
  const unsigned side = job_b / job->bands, b = job_b % job->bands;
  const HPel *hp = &job->hp[side];
  const int maxv = (1 << job->ref[side]->depth) - 1;
  const int y0 = HP_LO + (int) b * HP_BAND;
  const int y1 = MIN (y0 + HP_BAND, hp->H + 2);
  const int n = hp->W + 2 - HP_LO;      /* W + 5 columns from HP_LO */
  if (maxv <= 255) {
    hp_hvc_band_8 (hp, y0, y1, n);
  } else {
    int32_t *b1 = g_new (int32_t, (size_t) (HP_BAND + 5) * n);
    for (int y = y0; y < y1; y++) {
      const uint16_t *r = hp_at (hp, 0, HP_LO, y);
      uint16_t *oh = hp_at (hp, 1, HP_LO, y), *ov = hp_at (hp, 2, HP_LO, y);
      const ptrdiff_t s = hp->stride;
      for (int x = 0; x < n; x++) {
        int v = r[x - 2] - 5 * r[x - 1] + 20 * r[x] + 20 * r[x + 1]
            - 5 * r[x + 2] + r[x + 3];
        v = (v + 16) >> 5;
        v = v < 0 ? 0 : v;
        oh[x] = (uint16_t) (v > maxv ? maxv : v);
        v = r[x - 2 * s] - 5 * r[x - s] + 20 * r[x] + 20 * r[x + s]
            - 5 * r[x + 2 * s] + r[x + 3 * s];
        v = (v + 16) >> 5;
        v = v < 0 ? 0 : v;
        ov[x] = (uint16_t) (v > maxv ? maxv : v);
      }
    }
    for (int y = y0 - 2; y < y1 + 3; y++) {
      const uint16_t *r = hp_at (hp, 0, HP_LO, y);
      int32_t *o = b1 + (ptrdiff_t) (y - y0 + 2) * n;
      for (int x = 0; x < n; x++)
        o[x] = r[x - 2] - 5 * r[x - 1] + 20 * r[x] + 20 * r[x + 1]
            - 5 * r[x + 2] + r[x + 3];
    }
    for (int y = y0; y < y1; y++) {
      const int32_t *r = b1 + (ptrdiff_t) (y - y0 + 2) * n;
      uint16_t *oc = hp_at (hp, 3, HP_LO, y);
      for (int x = 0; x < n; x++) {
        int v = r[x - 2 * n] - 5 * r[x - n] + 20 * r[x] + 20 * r[x + n]
            - 5 * r[x + 2 * n] + r[x + 3 * n];
        v = (v + 512) >> 10;
        v = v < 0 ? 0 : v;
        oc[x] = (uint16_t) (v > maxv ? maxv : v);
      }
    }
    g_free (b1);
  }
  /* the slack after the box: anything, but defined */
  for (int y = y0; y < y1 && hp->bytes == 1; y++)
    for (int k = 1; k < 4; k++)
      memset (hp_at8 (hp, k, hp->W + 2, y), 0,
          hp->stride - hp->W - 2 - HP_PAD);
  for (int y = y0; y < y1 && hp->bytes == 2; y++)
    for (int k = 1; k < 4; k++) {
      uint16_t *o = hp_at (hp, k, hp->W + 2, y);
      for (ptrdiff_t x = hp->W + 2 + HP_PAD; x < hp->stride; x++)
        o[x - hp->W - 2 - HP_PAD] = 0;
    }
}

/* The planes of n (1 .. MC_DENOISE_MAX_REFS) references, in scratch from hp_take(). */
static gboolean
hp_build (HPJob * job, const MCPlane * const *refs, unsigned n,
    unsigned threads, void **mem, size_t *size, GError ** error)
{
  ptrdiff_t stride;
  *size = hp_size (refs[0], &stride);
  for (unsigned i = 0; i < n; i++) {
    mem[i] = hp_take (*size);
    hp_init (&job->hp[i], refs[i], mem[i], stride);
    job->ref[i] = refs[i];
  }
  job->rows_s = refs[0]->height + 2 * HP_PAD;
  job->bands = (refs[0]->height + 5 + HP_BAND - 1) / HP_BAND;
  return mc_run_rows (hp_s_row, job, n * job->rows_s, threads, error)
      && mc_run_rows (hp_hvc_band, job, n * job->bands, threads, error);
}

/* acc[y * PW + x] += wy[y] wxr[x] pred (x, y), y < h, x < round_width (w):
 * the quarter samples of the rect at (xs, ys) with vector (mvx, mvy), from
 * the planes, weighted into the cell's sums as they are made. */
#define DEFINE_HP_RECT(N, T, SFX) \
static void \
hp_rect_##N##SFX (const HPel * hp, int xs, int ys, int w, int h, int mvx, \
    int mvy, const int16_t * wxr, const int16_t * wy, uint32_t * acc, \
    ptrdiff_t as) \
{ \
  const unsigned v = me_subpel_pair (mvx & 3, mvy & 3); \
  const T *rows[2][CELL]; \
  int idx[2][24]; \
  gboolean direct[2]; \
  int xa[2]; \
  for (int k = 0; k < 2; k++) { \
    const unsigned e = k ? v >> 4 : v & 15; \
    const int x = xs + (mvx >> 2) + ME_SP_DX (e); \
    const int y = ys + (mvy >> 2) + ME_SP_DY (e); \
    const int pl = ME_SP_PLANE (e); \
    for (int j = 0; j < h; j++) \
      rows[k][j] = (const T *) hp->p[pl] + (ptrdiff_t) (MIN (MAX (y + j, \
              HP_LO), hp->H + 1) + HP_PAD) * hp->stride + HP_PAD; \
    direct[k] = x >= HP_LO && x + w - 1 <= hp->W + 1; \
    xa[k] = x; \
    if (!direct[k]) \
      for (int i = 0; i < N; i++) \
        idx[k][i] = MIN (MAX (x + i, HP_LO), hp->W + 1); \
  } \
  if (direct[0] && direct[1]) { \
    for (int j = 0; j < h; j++) { \
      const T *a = rows[0][j] + xa[0], *b = rows[1][j] + xa[1]; \
      uint32_t *ac = acc + j * as; \
      const uint32_t wyv = (uint32_t) wy[j]; \
      for (int i = 0; i < N; i++) \
        ac[i] += wyv * (uint32_t) wxr[i] * (uint32_t) ((a[i] + b[i] + 1) \
            >> 1); \
    } \
    return; \
  } \
  for (int k = 0; k < 2; k++) \
    if (direct[k]) \
      for (int i = 0; i < N; i++) \
        idx[k][i] = xa[k] + i; \
  for (int j = 0; j < h; j++) \
    for (int i = 0; i < N; i++) \
      acc[j * as + i] += (uint32_t) wy[j] * (uint32_t) wxr[i] \
          * (uint32_t) ((rows[0][j][idx[0][i]] + rows[1][j][idx[1][i]] \
          + 1) >> 1); \
}

DEFINE_HP_RECT (4, uint16_t, )
DEFINE_HP_RECT (8, uint16_t, )
DEFINE_HP_RECT (16, uint16_t, )
DEFINE_HP_RECT (24, uint16_t, )
DEFINE_HP_RECT (4, uint8_t, _8)
DEFINE_HP_RECT (8, uint8_t, _8)
DEFINE_HP_RECT (16, uint8_t, _8)
DEFINE_HP_RECT (24, uint8_t, _8)

/* ---- the cells' windows ------------------------------------------------- */

/* wins[k].w[d][i]: the weight, along one direction, of block k + d - 1 at
 * sample i of cell k (0 past the cell's samples and up to 2 CELL, so that
 * rows rounded up read zeros), and the range [lo, hi) where it is not. */
static void
window_of (MCCpuWin * win, int n, int k, int count, int len, gboolean obmc)
{
  const int o = mc_obmc_margin (n);
  memset (win->w, 0, sizeof win->w);
  for (int d = 0; d < 3; d++) {
    const int b = k + d - 1;
    int lo = len, hi = 0;
    for (int i = 0; i < len; i++) {
      int w = 0;
      if (!obmc)
        w = d == 1 ? MC_OBMC_ONE : 0;
      else if (b >= 0 && b < count) {
        const int j = k * n + i - (b * n - o);
        if (j >= 0 && j < n + 2 * o)
          w = mc_obmc_window (n, j, b == 0, b == count - 1);
      }
      win->w[d][i] = (int16_t) w;
      if (w) {
        lo = MIN (lo, i);
        hi = i + 1;
      }
    }
    win->lo[d] = (int8_t) lo;
    win->hi[d] = (int8_t) hi;
  }
}

/* ---- one cell ------------------------------------------------------------ */

typedef struct {
  const MCPlane *ref;
  const MCField *field;
  size_t fstride;
  unsigned sub_x, sub_y;
  const HPel *hp;               /* luma: the reference's planes */
} Side;

/* acc[y * PW + x] = the window-weighted sum of the block weights around
 * cell (c, r). */
static void
cell_weights (const uint8_t * weights, size_t wstride, const MCCpuWin * wx,
    const MCCpuWin * wy, unsigned c, unsigned r, int h, uint32_t * acc)
{
  memset (acc, 0, sizeof (uint32_t) * PW * h);
  for (int dy = 0; dy < 3; dy++) {
    if (wy->lo[dy] >= wy->hi[dy])
      continue;
    for (int dx = 0; dx < 3; dx++) {
      if (wx->lo[dx] >= wx->hi[dx])
        continue;
      const uint32_t bw = weights[(size_t) (r + dy - 1) * wstride + c + dx
          - 1];
      for (int y = wy->lo[dy]; y < wy->hi[dy]; y++) {
        const uint32_t k = (uint32_t) wy->w[dy][y] * bw;
        for (int x = 0; x < CELL; x++)
          acc[y * PW + x] += k * (uint32_t) wx->w[dx][x];
      }
    }
  }
}

/* Writes row y of the cell: v[x] for x < w. */
static inline void
store_row (MCPlane * out, int x0, int y, int w, const int32_t * v)
{
  uint8_t *d = (uint8_t *) sample_ptr (out, x0, y);
  const ptrdiff_t st = sample_step (out);
  if (out->depth <= 8) {
    for (int x = 0; x < w; x++)
      d[x * st] = (uint8_t) v[x];
  } else {
    const unsigned sh = out->shift;
    for (int x = 0; x < w; x++)
      *(uint16_t *) (d + x * st) = (uint16_t) (v[x] << sh);
  }
}


/* The windows of every column and row of cells of `g`. */
static void
windows_init (MCCpuWin * wx, MCCpuWin * wy, const MCPlane * out,
    const MCGrid * g, gboolean obmc)
{
  for (unsigned c = 0; c < g->ncols; c++)
    window_of (&wx[c], (int) g->bw, (int) c, (int) g->ncols,
        (int) MIN (g->bw, out->width - c * g->bw), obmc);
  for (unsigned r = 0; r < g->nrows; r++)
    window_of (&wy[r], (int) g->bh, (int) r, (int) g->nrows,
        (int) MIN (g->bh, out->height - r * g->bh), obmc);
}

/* ---- the three calls ------------------------------------------------------ */

typedef struct {
  Side side[2];
  const MCPlane *a, *b;         /* blend: the two inputs */
  MCPlane *out;
  const uint8_t *weights;
  size_t wstride;
  const MCGrid *grid;
  const MCCpuWin *wx, *wy;
  /* rows of cells as bands: block c's window across, xe[c * 32 + j] for
   * plane column c bw - xo + j, j < ew (xo the margin, 0 apart) */
  const int16_t *xe;
  int xo, ew;
} Job;

/* The accumulators of a band (a row of cells): column x of the plane at
 * BAND_OFF + x, so that the first block's margin (weighing 0) and the
 * last's rounded rects land inside the row. */
#define BAND_OFF 16

static ptrdiff_t
band_stride (const MCPlane * out)
{
  return ((ptrdiff_t) out->width + BAND_OFF + 48 + 15) & ~(ptrdiff_t) 15;
}

/* Every column's window across, once a call. */
static int16_t *
xe_init (const MCGrid * g, gboolean obmc, int *xo, int *ew)
{
  const int n = (int) g->bw, o = obmc ? mc_obmc_margin (n) : 0;
  int16_t *xe = g_new0 (int16_t, (size_t) g->ncols * 32);
  for (unsigned c = 0; c < g->ncols; c++)
    for (int j = 0; j < n + 2 * o; j++)
      xe[c * 32 + j] = (int16_t) (obmc ? mc_obmc_window (n, j, c == 0,
              c == g->ncols - 1) : MC_OBMC_ONE);
  *xo = o;
  *ew = n + 2 * o;
  return xe;
}

/* acc (h rows of as, zeroed here) = the window-weighted sum of the
 * predictions of the band of cells r: each block of rows r - 1 .. r + 1
 * predicted once over the part of its window in the band. */
static void
band_acc (const Side * s, const Job * job, unsigned r, int h, uint32_t * acc,
    ptrdiff_t as)
{
  const MCGrid *g = job->grid;
  const MCCpuWin *wy = &job->wy[r];
  const int y0 = (int) (r * g->bh), ew = job->ew, n = round_width (ew);
  memset (acc, 0, sizeof (uint32_t) * as * h);
  for (int d = 0; d < 3; d++) {
    const int ylo = wy->lo[d], yhi = wy->hi[d];
    if (ylo >= yhi)
      continue;
    const GstMotionVectorCell *row = s->field->cells
        + (size_t) (r + d - 1) * s->fstride;
    const int16_t *wyr = wy->w[d] + ylo;
    for (unsigned c = 0; c < g->ncols; c++) {
      const int xs = (int) (c * g->bw) - job->xo;
      const int16_t *wxr = job->xe + c * 32;
      uint32_t *ac = acc + ylo * as + xs + BAND_OFF;
      const int mvx = row[c].mv_x, mvy = row[c].mv_y;
      if (s->hp && s->hp->bytes == 1) {
        if (n == 24)
          hp_rect_24_8 (s->hp, xs, y0 + ylo, ew, yhi - ylo, mvx, mvy, wxr,
              wyr, ac, as);
        else if (n == 16)
          hp_rect_16_8 (s->hp, xs, y0 + ylo, ew, yhi - ylo, mvx, mvy, wxr,
              wyr, ac, as);
        else if (n == 8)
          hp_rect_8_8 (s->hp, xs, y0 + ylo, ew, yhi - ylo, mvx, mvy, wxr,
              wyr, ac, as);
        else
          hp_rect_4_8 (s->hp, xs, y0 + ylo, ew, yhi - ylo, mvx, mvy, wxr,
              wyr, ac, as);
        continue;
      }
      if (s->hp) {
        if (n == 24)
          hp_rect_24 (s->hp, xs, y0 + ylo, ew, yhi - ylo, mvx, mvy, wxr, wyr,
              ac, as);
        else if (n == 16)
          hp_rect_16 (s->hp, xs, y0 + ylo, ew, yhi - ylo, mvx, mvy, wxr, wyr,
              ac, as);
        else if (n == 8)
          hp_rect_8 (s->hp, xs, y0 + ylo, ew, yhi - ylo, mvx, mvy, wxr, wyr,
              ac, as);
        else
          hp_rect_4 (s->hp, xs, y0 + ylo, ew, yhi - ylo, mvx, mvy, wxr, wyr,
              ac, as);
        continue;
      }
      chroma_acc (s->ref, xs, y0 + ylo, ew, yhi - ylo, mvx, mvy, s->sub_x,
          s->sub_y, wxr, wyr, ac, as);
    }
  }
}

/* acc (zeroed here) = the window-weighted sum of the block weights
 * `weights` (rows job->wstride apart) over the band of cells r. */
static void
band_weights (const Job * job, const uint8_t * weights, unsigned r, int h,
    uint32_t * acc, ptrdiff_t as)
{
  const MCGrid *g = job->grid;
  const MCCpuWin *wy = &job->wy[r];
  memset (acc, 0, sizeof (uint32_t) * as * h);
  for (int d = 0; d < 3; d++) {
    if (wy->lo[d] >= wy->hi[d])
      continue;
    const uint8_t *wrow = weights + (size_t) (r + d - 1) * job->wstride;
    for (int y = wy->lo[d]; y < wy->hi[d]; y++) {
      const uint32_t k = (uint32_t) wy->w[d][y];
      uint32_t *a = acc + y * as + BAND_OFF - job->xo;
      for (unsigned c = 0; c < g->ncols; c++) {
        const uint32_t kw = k * wrow[c];
        const int16_t *wxr = job->xe + c * 32;
        uint32_t *ac = a + c * g->bw;
        for (int x = 0; x < 24; x++)
          ac[x] += kw * (uint32_t) wxr[x];
      }
    }
  }
}

static void
predict_row (gpointer data, unsigned r)
{
  const Job *job = data;
  const MCGrid *g = job->grid;
  const int y0 = (int) (r * g->bh);
  const int h = (int) MIN (g->bh, job->out->height - y0);
  const int W = (int) job->out->width;
  const ptrdiff_t as = band_stride (job->out);
  uint32_t *acc = g_new (uint32_t, (size_t) as * h);
  int32_t *v = g_new (int32_t, W);
  band_acc (&job->side[0], job, r, h, acc, as);
  for (int y = 0; y < h; y++) {
    const uint32_t *a = acc + y * as + BAND_OFF;
    for (int x = 0; x < W; x++)
      v[x] = mc_obmc_round (a[x]);
    store_row (job->out, 0, y0 + y, W, v);
  }
  g_free (v);
  g_free (acc);
}

static void
blend_row (gpointer data, unsigned r)
{
  const Job *job = data;
  const MCGrid *g = job->grid;
  const int y0 = (int) (r * g->bh);
  const int h = (int) MIN (g->bh, job->out->height - y0);
  uint32_t acc[CELL * PW];
  uint16_t a[PW], b[PW];
  int32_t v[PW];
  for (unsigned c = 0; c < g->ncols; c++) {
    const int x0 = (int) (c * g->bw);
    const int w = (int) MIN (g->bw, job->out->width - x0);
    cell_weights (job->weights, job->wstride, &job->wx[c], &job->wy[r], c, r,
        h, acc);
    for (int y = 0; y < h; y++) {
      load_row (job->a, x0, y0 + y, w, a);
      load_row (job->b, x0, y0 + y, w, b);
      for (int x = 0; x < w; x++) {
        const int wa = mc_blend_weight (acc[y * PW + x]);
        v[x] = (wa * a[x] + (MC_BLEND_ONE - wa) * b[x] + MC_BLEND_ONE / 2)
            >> MC_BLEND_SHIFT;
      }
      store_row (job->out, x0, y0 + y, w, v);
    }
  }
}

static void
interpolate_row (gpointer data, unsigned r)
{
  const Job *job = data;
  const MCGrid *g = job->grid;
  const int y0 = (int) (r * g->bh);
  const int h = (int) MIN (g->bh, job->out->height - y0);
  const int W = (int) job->out->width;
  const ptrdiff_t as = band_stride (job->out);
  uint32_t *accp = g_new (uint32_t, 3 * (size_t) as * h);
  uint32_t *accn = accp + (size_t) as * h, *accw = accn + (size_t) as * h;
  int32_t *v = g_new (int32_t, W);
  band_acc (&job->side[0], job, r, h, accp, as);
  band_acc (&job->side[1], job, r, h, accn, as);
  band_weights (job, job->weights, r, h, accw, as);
  for (int y = 0; y < h; y++) {
    const uint32_t *ap = accp + y * as + BAND_OFF;
    const uint32_t *an = accn + y * as + BAND_OFF;
    const uint32_t *aw = accw + y * as + BAND_OFF;
    for (int x = 0; x < W; x++) {
      const int pa = mc_obmc_round (ap[x]);
      const int pb = mc_obmc_round (an[x]);
      const int wa = mc_blend_weight (aw[x]);
      v[x] = (wa * pa + (MC_BLEND_ONE - wa) * pb + MC_BLEND_ONE / 2)
          >> MC_BLEND_SHIFT;
    }
    store_row (job->out, 0, y0 + y, W, v);
  }
  g_free (v);
  g_free (accp);
}

static gboolean
MC_CPU_FN (predict_plane) (const MCPlane * ref, MCPlane * out,
    const MCField * field, const MCGrid * grid, unsigned sub_x,
    unsigned sub_y, const MCOptions * opt, GError ** error)
{
  MCCpuWin *wx = g_new (MCCpuWin, grid->ncols + grid->nrows);
  Job job = { 0 };
  job.side[0] = (Side) { ref, field, field->stride ? field->stride
    : field->cols, sub_x, sub_y, NULL };
  job.out = out;
  job.grid = grid;
  job.wx = wx;
  job.wy = wx + grid->ncols;
  windows_init (wx, wx + grid->ncols, out, grid, opt->obmc);
  int16_t *xe = xe_init (grid, opt->obmc, &job.xo, &job.ew);
  job.xe = xe;
  HPJob hj;
  void *mem[1] = { NULL };
  size_t size = 0;
  gboolean ok = TRUE;
  if (!sub_x && !sub_y) {
    const MCPlane *refs[1] = { ref };
    ok = hp_build (&hj, refs, 1, mc_cpu_threads (opt), mem, &size, error);
    job.side[0].hp = &hj.hp[0];
  }
  ok = ok && mc_run_rows (predict_row, &job, grid->nrows, mc_cpu_threads (opt),
      error);
  if (mem[0])
    hp_give (mem[0], size);
  g_free (xe);
  g_free (wx);
  return ok;
}

static gboolean
MC_CPU_FN (blend_plane) (const MCPlane * a, const MCPlane * b, MCPlane * out,
    const uint8_t * weights, size_t wstride, const MCGrid * grid,
    const MCOptions * opt, GError ** error)
{
  MCCpuWin *wx = g_new (MCCpuWin, grid->ncols + grid->nrows);
  Job job = { 0 };
  job.a = a;
  job.b = b;
  job.out = out;
  job.weights = weights;
  job.wstride = wstride;
  job.grid = grid;
  job.wx = wx;
  job.wy = wx + grid->ncols;
  windows_init (wx, wx + grid->ncols, out, grid, opt->obmc);
  const gboolean ok = mc_run_rows (blend_row, &job, grid->nrows,
      mc_cpu_threads (opt), error);
  g_free (wx);
  return ok;
}

/* ---- denoising ------------------------------------------------------------
 * A band of cells at a time, as interpolate_row: each reference's
 * prediction sums and weight sums over the band, then every sample of the
 * band mixed with the current plane's.  A reference whose blocks around
 * the band all weigh 0 adds nothing there and is not predicted. */

typedef struct {
  Job job;                      /* grid, out, windows, wstride */
  Side side[MC_DENOISE_MAX_REFS];
  const uint8_t *const *weights;
  unsigned n;
  const MCPlane *cur;
} DenoiseJob;

/* Whether any block of rows r - 1 .. r + 1 that reaches band r weighs
 * more than 0. */
static gboolean
band_has_weight (const Job * job, const uint8_t * weights, unsigned r)
{
  const MCCpuWin *wy = &job->wy[r];
  for (int d = 0; d < 3; d++) {
    if (wy->lo[d] >= wy->hi[d])
      continue;
    const uint8_t *wrow = weights + (size_t) (r + d - 1) * job->wstride;
    for (unsigned c = 0; c < job->grid->ncols; c++)
      if (wrow[c])
        return TRUE;
  }
  return FALSE;
}

/* (2 sum + wsum) / (2 wsum), mc_denoise_sample(), through a double
 * division, which vectorizes where an integer one does not: both operands
 * are integers below 2^28, exact in a double, and the quotient, correctly
 * rounded, is within 2^-30 of the true one, while a true quotient that is
 * not a whole number is at least 1 / (2 wsum) >= 2^-11 from one; so the
 * floor is the integer division's. */
static inline int32_t
denoise_div (uint32_t sum, uint32_t wsum)
{
  return (int32_t) ((double) (2 * sum + wsum) / (double) (2 * wsum));
}

static void
denoise_row (gpointer data, unsigned r)
{
  const DenoiseJob *dj = data;
  const Job *job = &dj->job;
  const MCGrid *g = job->grid;
  const int y0 = (int) (r * g->bh);
  const int h = (int) MIN (g->bh, job->out->height - y0);
  const int W = (int) job->out->width;
  const ptrdiff_t as = band_stride (job->out);
  const size_t band = (size_t) as * h;
  unsigned used[MC_DENOISE_MAX_REFS], nu = 0;
  for (unsigned i = 0; i < dj->n; i++)
    if (band_has_weight (job, dj->weights[i], r))
      used[nu++] = i;
  uint32_t *acc = g_new (uint32_t, 2 * band * MAX (nu, 1));
  uint16_t *cur = g_new (uint16_t, W);
  uint32_t *sum = g_new (uint32_t, 2 * (size_t) W);
  uint32_t *wsum = sum + W;
  int32_t *v = g_new (int32_t, W);
  for (unsigned k = 0; k < nu; k++) {
    band_acc (&dj->side[used[k]], job, r, h, acc + 2 * k * band, as);
    band_weights (job, dj->weights[used[k]], r, h, acc + (2 * k + 1) * band,
        as);
  }
  for (int y = 0; y < h; y++) {
    load_row (dj->cur, 0, y0 + y, W, cur);
    for (int x = 0; x < W; x++) {
      sum[x] = MC_BLEND_ONE * (uint32_t) cur[x];
      wsum[x] = MC_BLEND_ONE;
    }
    for (unsigned k = 0; k < nu; k++) {
      const uint32_t *ap = acc + 2 * k * band + y * as + BAND_OFF;
      const uint32_t *aw = acc + (2 * k + 1) * band + y * as + BAND_OFF;
      for (int x = 0; x < W; x++) {
        const uint32_t w = (uint32_t) mc_blend_weight (aw[x]);
        sum[x] += w * (uint32_t) mc_obmc_round (ap[x]);
        wsum[x] += w;
      }
    }
    for (int x = 0; x < W; x++)
      v[x] = denoise_div (sum[x], wsum[x]);
    store_row (job->out, 0, y0 + y, W, v);
  }
  g_free (v);
  g_free (sum);
  g_free (cur);
  g_free (acc);
}

static gboolean
MC_CPU_FN (denoise_refs) (const MCPlane * cur, const MCPlane * const *refs,
    const MCField * const *fields, const uint8_t * const *weights,
    unsigned n_refs, size_t wstride, MCPlane * out, const MCGrid * grid,
    unsigned sub_x, unsigned sub_y, unsigned plane, gboolean last,
    const MCOptions * opt, GError ** error)
{
  MCCpuWin *wx = g_new (MCCpuWin, grid->ncols + grid->nrows);
  DenoiseJob dj;
  (void) plane;
  (void) last;
  memset (&dj, 0, sizeof dj);
  Job *job = &dj.job;
  for (unsigned i = 0; i < n_refs; i++)
    dj.side[i] = (Side) { refs[i], fields[i], fields[i]->stride
      ? fields[i]->stride : fields[i]->cols, sub_x, sub_y, NULL };
  dj.weights = weights;
  dj.n = n_refs;
  dj.cur = cur;
  job->out = out;
  job->wstride = wstride;
  job->grid = grid;
  job->wx = wx;
  job->wy = wx + grid->ncols;
  windows_init (wx, wx + grid->ncols, out, grid, opt->obmc);
  int16_t *xe = xe_init (grid, opt->obmc, &job->xo, &job->ew);
  job->xe = xe;
  /* the luma's half-sample planes, for the references that weigh anything
   * anywhere */
  HPJob hj;
  void *mem[MC_DENOISE_MAX_REFS] = { NULL };
  size_t size = 0;
  gboolean ok = TRUE;
  if (!sub_x && !sub_y) {
    const MCPlane *hr[MC_DENOISE_MAX_REFS];
    unsigned map[MC_DENOISE_MAX_REFS], nh = 0;
    for (unsigned i = 0; i < n_refs; i++) {
      gboolean any = FALSE;
      for (size_t j = 0; j < (size_t) grid->nrows * wstride && !any; j++)
        any = weights[i][j] != 0 && j % wstride < grid->ncols;
      if (any) {
        map[nh] = i;
        hr[nh++] = refs[i];
      }
    }
    if (nh)
      ok = hp_build (&hj, hr, nh, mc_cpu_threads (opt), mem, &size, error);
    for (unsigned k = 0; k < nh; k++)
      dj.side[map[k]].hp = &hj.hp[k];
  }
  ok = ok && mc_run_rows (denoise_row, &dj, grid->nrows, mc_cpu_threads (opt),
      error);
  for (unsigned i = 0; i < MC_DENOISE_MAX_REFS; i++)
    if (mem[i])
      hp_give (mem[i], size);
  g_free (xe);
  g_free (wx);
  return ok;
}

/* ---- bilateral costs ------------------------------------------------------
 * Each candidate's displacements are whole samples (mc_bi_pos()), so a
 * cell's cost is the SAD of two rects of the planes: rows of bytes
 * compared straight from the planes where both rects lie inside and the
 * samples are plain bytes, else loaded as 16-bit rows (any depth or pixel
 * stride, clamped columns at an edge) and compared there. */

typedef struct {
  const MCPlane *prev, *next;
  const MCGrid *grid;
  const MCBiCand *cand;
  unsigned k;
  uint32_t *costs;
} BiJob;

/* The SAD of h rows of 16 bytes: the differences summed per column in
 * 16-bit lanes (at most 16 x 255) and the lanes summed once. */
static inline uint32_t
sad_u8_16xh (const uint8_t * a, ptrdiff_t as, const uint8_t * b,
    ptrdiff_t bs, int h)
{
  uint16_t acc[16] = { 0 };
  for (int y = 0; y < h; y++) {
    const uint8_t *restrict ra = a + y * as, *restrict rb = b + y * bs;
    for (int i = 0; i < 16; i++)
      acc[i] += (uint16_t) (ra[i] > rb[i] ? ra[i] - rb[i] : rb[i] - ra[i]);
  }
  uint32_t s = 0;
  for (int i = 0; i < 16; i++)
    s += acc[i];
  return s;
}

static inline uint32_t
sad_u8 (const uint8_t * restrict a, const uint8_t * restrict b, int n)
{
  uint32_t s = 0;
  for (int i = 0; i < n; i++)
    s += (uint32_t) (a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
  return s;
}

static inline uint32_t
sad_u16 (const uint16_t * restrict a, const uint16_t * restrict b, int n)
{
  uint32_t s = 0;
  for (int i = 0; i < n; i++)
    s += (uint32_t) (a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
  return s;
}

static uint32_t
bi_cost (const MCPlane * pa, const MCPlane * pb, int x0, int y0, int w,
    int h, const MCBiCand * cd)
{
  const int W = (int) pa->width, H = (int) pa->height;
  const int xa = x0 + ((cd->ax + 2) >> 2), ya = y0 + ((cd->ay + 2) >> 2);
  const int xb = x0 + ((cd->bx + 2) >> 2), yb = y0 + ((cd->by + 2) >> 2);
  const gboolean inside = xa >= 0 && xa + w <= W && xb >= 0 && xb + w <= W
      && ya >= 0 && ya + h <= H && yb >= 0 && yb + h <= H;
  uint32_t sum = 0;
  if (inside && pa->depth <= 8 && sample_step (pa) == 1
      && sample_step (pb) == 1) {
    const uint8_t *ra = sample_ptr (pa, xa, ya), *rb = sample_ptr (pb, xb,
        yb);
    if (w == 16) {
      sum = sad_u8_16xh (ra, pa->stride, rb, pb->stride, h);
    } else {
      for (int y = 0; y < h; y++)
        sum += sad_u8 (ra + y * pa->stride, rb + y * pb->stride, w);
    }
    return sum;
  }
  uint16_t la[CELL], lb[CELL];
  int ia[CELL], ib[CELL];
  for (int x = 0; x < w; x++) {
    ia[x] = mc_clamp (xa + x, W);
    ib[x] = mc_clamp (xb + x, W);
  }
  for (int y = 0; y < h; y++) {
    const int rya = mc_clamp (ya + y, H), ryb = mc_clamp (yb + y, H);
    if (xa >= 0 && xa + w <= W)
      load_row (pa, xa, rya, w, la);
    else
      load_row_clamped (pa, ia, rya, w, la);
    if (xb >= 0 && xb + w <= W)
      load_row (pb, xb, ryb, w, lb);
    else
      load_row_clamped (pb, ib, ryb, w, lb);
    sum += sad_u16 (la, lb, w);
  }
  return sum;
}

static void
bilateral_row (gpointer data, unsigned r)
{
  const BiJob *job = data;
  const MCGrid *g = job->grid;
  const int y0 = (int) (r * g->bh);
  const int h = (int) MIN (g->bh, job->prev->height - r * g->bh);
  for (unsigned c = 0; c < g->ncols; c++) {
    const int x0 = (int) (c * g->bw);
    const int w = (int) MIN (g->bw, job->prev->width - c * g->bw);
    const size_t i = ((size_t) r * g->ncols + c) * job->k;
    for (unsigned j = 0; j < job->k; j++)
      job->costs[i + j] = bi_cost (job->prev, job->next, x0, y0, w, h,
          &job->cand[i + j]);
  }
}

static gboolean
MC_CPU_FN (bilateral_costs) (const MCPlane * prev, const MCPlane * next,
    const MCGrid * grid, const MCBiCand * cand, unsigned k, uint32_t * costs,
    const MCOptions * opt, GError ** error)
{
  BiJob job = { prev, next, grid, cand, k, costs };
  return mc_run_rows (bilateral_row, &job, grid->nrows, mc_cpu_threads (opt),
      error);
}

static gboolean
MC_CPU_FN (interpolate_plane) (const MCPlane * prev, const MCPlane * next,
    MCPlane * out, const MCField * from_prev, const MCField * from_next,
    const uint8_t * weights, size_t wstride, const MCGrid * grid,
    unsigned sub_x, unsigned sub_y, const MCOptions * opt, GError ** error)
{
  MCCpuWin *wx = g_new (MCCpuWin, grid->ncols + grid->nrows);
  Job job = { 0 };
  job.side[0] = (Side) { prev, from_prev, from_prev->stride
    ? from_prev->stride : from_prev->cols, sub_x, sub_y, NULL };
  job.side[1] = (Side) { next, from_next, from_next->stride
    ? from_next->stride : from_next->cols, sub_x, sub_y, NULL };
  job.out = out;
  job.weights = weights;
  job.wstride = wstride;
  job.grid = grid;
  job.wx = wx;
  job.wy = wx + grid->ncols;
  windows_init (wx, wx + grid->ncols, out, grid, opt->obmc);
  int16_t *xe = xe_init (grid, opt->obmc, &job.xo, &job.ew);
  job.xe = xe;
  HPJob hj;
  void *mem[2] = { NULL, NULL };
  size_t size = 0;
  gboolean ok = TRUE;
  if (!sub_x && !sub_y) {
    const MCPlane *refs[2] = { prev, next };
    ok = hp_build (&hj, refs, 2, mc_cpu_threads (opt), mem, &size, error);
    job.side[0].hp = &hj.hp[0];
    job.side[1].hp = &hj.hp[1];
  }
  ok = ok && mc_run_rows (interpolate_row, &job, grid->nrows,
      mc_cpu_threads (opt), error);
  for (int i = 0; i < 2; i++)
    if (mem[i])
      hp_give (mem[i], size);
  g_free (xe);
  g_free (wx);
  return ok;
}

/* ---- warp ----------------------------------------------------------------
 * mc_warp_rules.h row by row: the position steps by (xx, yx) a sample (the
 * same integers as the reference's), and a sample whose four taps lie
 * inside the plane (all but a border) reads them from one pointer with no
 * clamping, which is mc_warp_taps() there. */

#include "mc_warp_rules.h"

#define WARP_ROWS 16

typedef struct {
  const MCPlane *in;
  MCPlane *out;
  const MCWarp *w;
} WarpRows;

static inline __attribute__((always_inline)) int
warp_tap (const uint8_t * s, int bps, int shift, int mask)
{
  return bps == 1 ? *s : (*(const uint16_t *) s >> shift) & mask;
}

static inline __attribute__((always_inline)) void
warp_rows_bps (const WarpRows * job, unsigned r, int bps)
{
  const MCPlane *in = job->in;
  MCPlane *out = job->out;
  const MCWarp *w = job->w;
  const int W = (int) in->width, H = (int) in->height;
  const ptrdiff_t ps = sample_step (in), st = in->stride;
  const ptrdiff_t ops = sample_step (out);
  const int shift = (int) in->shift, mask = (1 << in->depth) - 1;
  const int oshift = (int) out->shift;
  const unsigned y1 = MIN ((r + 1) * WARP_ROWS, out->height);
  for (unsigned y = r * WARP_ROWS; y < y1; y++) {
    int64_t px = mc_warp_pos (w->xx, w->xy, w->x0, 0, (int) y);
    int64_t py = mc_warp_pos (w->yx, w->yy, w->y0, 0, (int) y);
    uint8_t *o = out->data + (ptrdiff_t) y * out->stride;
    for (unsigned x = 0; x < out->width; x++, o += ops) {
      const int64_t ix = px >> MC_WARP_SHIFT, iy = py >> MC_WARP_SHIFT;
      int v;
      if (ix >= 0 && ix < W - 1 && iy >= 0 && iy < H - 1) {
        const uint8_t *s = in->data + (ptrdiff_t) iy * st
            + (ptrdiff_t) ix * ps;
        const int fx = (int) ((px >> (MC_WARP_SHIFT - MC_WARP_FRAC_BITS))
            & (MC_WARP_FRAC_ONE - 1));
        const int fy = (int) ((py >> (MC_WARP_SHIFT - MC_WARP_FRAC_BITS))
            & (MC_WARP_FRAC_ONE - 1));
        v = mc_warp_bilinear (warp_tap (s, bps, shift, mask),
            warp_tap (s + ps, bps, shift, mask),
            warp_tap (s + st, bps, shift, mask),
            warp_tap (s + st + ps, bps, shift, mask), fx, fy);
      } else {
        int x0, x1, yy0, yy1, fx, fy;
        mc_warp_taps (px, W, &x0, &x1, &fx);
        mc_warp_taps (py, H, &yy0, &yy1, &fy);
        v = mc_warp_bilinear (warp_tap (sample_ptr (in, x0, yy0), bps, shift,
                mask), warp_tap (sample_ptr (in, x1, yy0), bps, shift, mask),
            warp_tap (sample_ptr (in, x0, yy1), bps, shift, mask),
            warp_tap (sample_ptr (in, x1, yy1), bps, shift, mask), fx, fy);
      }
      if (bps == 1)
        *o = (uint8_t) v;
      else
        *(uint16_t *) o = (uint16_t) (v << oshift);
      px += w->xx;
      py += w->yx;
    }
  }
}

static void
warp_rows (gpointer data, unsigned r)
{
  const WarpRows *job = data;
  if (job->in->depth > 8)
    warp_rows_bps (job, r, 2);
  else
    warp_rows_bps (job, r, 1);
}

static gboolean
MC_CPU_FN (warp_plane) (const MCPlane * in, MCPlane * out, const MCWarp * w,
    const MCOptions * opt, GError ** error)
{
  WarpRows job = { in, out, w };
  return mc_run_rows (warp_rows, &job, (out->height + WARP_ROWS - 1)
      / WARP_ROWS, mc_cpu_threads (opt), error);
}

/* ---- the spatial pass ------------------------------------------------------
 * A row at a time: the window's 2 radius + 1 rows widened to int32 with
 * `radius` samples of padding each side, and the rows past the plane's
 * edges, filled with a value no sample is within any threshold of (the
 * C reference's cut window: such samples never count); then every
 * offset of the window compared and summed across the whole row, in lanes
 * the compiler vectorizes, and the mean divided as denoise_div() does. */

#define SIGMA_OUTSIDE (-(1 << 20))

typedef struct {
  const MCPlane *in;
  MCPlane *out;
  int radius, threshold;
} SigmaJob;

static void
sigma_row (gpointer data, unsigned r)
{
  const SigmaJob *job = data;
  const int W = (int) job->in->width, H = (int) job->in->height;
  const int rad = job->radius, t = job->threshold, y = (int) r;
  const int pw = W + 2 * rad, nr = 2 * rad + 1;
  int32_t *rows = g_new (int32_t, (size_t) nr * pw);
  uint16_t *line = g_new (uint16_t, W);
  uint32_t *sum = g_new0 (uint32_t, 2 * (size_t) W);
  uint32_t *cnt = sum + W;
  int32_t *v = g_new (int32_t, W);
  for (int k = 0; k < nr; k++) {
    int32_t *row = rows + (size_t) k * pw;
    const int yy = y - rad + k;
    for (int x = 0; x < pw; x++)
      row[x] = SIGMA_OUTSIDE;
    if (yy < 0 || yy >= H)
      continue;
    load_row (job->in, 0, yy, W, line);
    for (int x = 0; x < W; x++)
      row[rad + x] = line[x];
  }
  const int32_t *c = rows + (size_t) rad * pw + rad;
  for (int k = 0; k < nr; k++)
    for (int dx = 0; dx < nr; dx++) {
      const int32_t *restrict s = rows + (size_t) k * pw + dx;
      for (int x = 0; x < W; x++) {
        const int32_t d = s[x] - c[x];
        const uint32_t m = (uint32_t) (d <= t && d >= -t);
        sum[x] += m * (uint32_t) s[x];
        cnt[x] += m;
      }
    }
  for (int x = 0; x < W; x++)
    v[x] = denoise_div (sum[x], cnt[x]);
  store_row (job->out, 0, y, W, v);
  g_free (v);
  g_free (sum);
  g_free (line);
  g_free (rows);
}

static gboolean
MC_CPU_FN (sigma_filter_plane) (const MCPlane * in, MCPlane * out,
    unsigned radius, unsigned threshold, gboolean last,
    const MCOptions * opt, GError ** error)
{
  SigmaJob job = { in, out, (int) radius, (int) threshold };
  (void) last;
  return mc_run_rows (sigma_row, &job, in->height, mc_cpu_threads (opt),
      error);
}
