/* gpumotionest — checkasm: motion compensation (kernels/mc) of every
 * implementation against the C reference, every sample of every plane.
 *
 * Random cases: sizes from one sample to a few hundred, odd ones and ones
 * that no block divides; blocks of 4, 8 and 16 each way; luma only, 4:2:0,
 * 4:2:2, 4:4:4; planes of their own, chroma interleaved (NV12, NV21,
 * P010), every plane in one block (YUY2-, UYVY-, RGB-like pixels, luma as
 * one sample of a wider pixel), outputs laid out alike or otherwise, with
 * the bytes between their samples poisoned and compared too (writing U of
 * NV12 must leave V as it is); 8, 10, 12 and 16 bits (and now and then any
 * depth between) with every shift the word allows;
 * fields wider and taller than the picture, with a stride of their own;
 * vectors small, large, and far outside the picture up to the int16
 * limits; with and without overlap; blends with random, extreme and
 * uniform weights, in place and apart.  Outputs are poisoned alike before
 * each call and compared as whole buffers, so a sample written where none
 * should be (between rows, past the width) shows too.
 *
 * The fast CPU implementation (mc_cpu.c), every level this CPU runs, on
 * one and two threads: predictions, blends, and interpolation through its
 * one-pass interpolate_plane against the C reference's composed path.
 *
 * First the C reference against itself on several threads, and the CUDA
 * kernels' per-sample code (mc_cuda_sample.h) run on the host, as the
 * kernels would, sample by sample over packed fields and weights; then
 * CUDA itself, host planes and device planes (MCOptions.device), when a
 * device is usable.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <math.h>

#include "checkasm.h"
#include "mc_impl.h"
#include "mc_cpu.h"
#include "mc_cuda_sample.h"

#define RAND(lo, hi) g_rand_int_range (checkasm.rand, (lo), (hi) + 1)

/* ---- planes, pictures, fields ------------------------------------------ */

/* A plane in a block of memory: its own, or one it shares with the other
 * planes of an interleaved picture (only the owner frees it).  Compared
 * as whole blocks, so the bytes between samples count too. */
typedef struct {
  MCPlane p;
  guint8 *buf;
  size_t size;
  gboolean owner;
} Buf;

static void
buf_init (Buf * b, unsigned w, unsigned h, unsigned depth, unsigned shift)
{
  const unsigned bps = depth > 8 ? 2 : 1;
  memset (b, 0, sizeof *b);
  b->p.width = w;
  b->p.height = h;
  b->p.depth = depth;
  b->p.shift = shift;
  /* slack after each row, 0 .. 9 samples */
  b->p.stride = (ptrdiff_t) ((w + RAND (0, 9)) * bps);
  b->size = (size_t) b->p.stride * h;
  b->buf = g_malloc (b->size);
  b->p.data = b->buf;
  b->owner = TRUE;
}

/* dst: src's layout (stride, pixel stride, offset in its block) in a block
 * of its own, not initialised. */
static void
buf_twin (Buf * dst, const Buf * src)
{
  *dst = *src;
  dst->buf = g_malloc (src->size);
  dst->p.data = dst->buf + (src->p.data - src->buf);
  dst->owner = TRUE;
}

static void
buf_poison (Buf * b, guint8 v)
{
  memset (b->buf, v, b->size);
}

/* Random samples: noise, or a smooth ramp with noise on it (so the 6-tap
 * half samples clip at both ends), in words whose other bits are random
 * too: the implementations must mask them away. */
static void
buf_fill (Buf * b)
{
  const unsigned maxv = (1u << b->p.depth) - 1;
  const gboolean smooth = RAND (0, 1);
  const unsigned ps = mc_plane_pstride (&b->p);
  for (unsigned y = 0; y < b->p.height; y++) {
    guint8 *row = b->p.data + (size_t) y * b->p.stride;
    for (unsigned x = 0; x < b->p.width; x++) {
      unsigned v = smooth ? ((x * 37 + y * 11) % (maxv + 1))
          ^ (unsigned) RAND (0, 3) : (unsigned) RAND (0, (int) maxv);
      v &= maxv;
      if (b->p.depth == 8)
        row[x * ps] = (guint8) v;
      else {
        const unsigned junk = g_rand_int (checkasm.rand) & 0xffff;
        const unsigned mask = maxv << b->p.shift;
        *(guint16 *) (row + x * ps) = (guint16) ((v << b->p.shift)
            | (junk & ~mask));
      }
    }
  }
}

static void
buf_free (Buf * b)
{
  if (b->owner)
    g_free (b->buf);
}

/* ---- layouts: planar, semi-planar, packed ------------------------------- */

/* How the planes of a picture lie in memory: each in a block of its own
 * (I420); the chroma interleaved in one block (NV12, NV21, NV16, NV24,
 * P010); every plane in one block (GRAY's luma as one byte of a wider
 * pixel, YUY2/UYVY/YVYU for 4:2:2, RGB-like pixels of 3 or 4 samples for
 * 4:4:4; 4:2:0 has no packed format and is laid out semi-planar). */
typedef enum {
  LAYOUT_PLANAR,
  LAYOUT_SEMI,
  LAYOUT_PACKED,
} LayoutKind;

static const char *const layout_names[] = { "planar", "semi-planar",
  "packed"
};

typedef struct {
  LayoutKind kind;
  unsigned block[3];            /* which block plane i lies in */
  unsigned k[3];                /* pixel stride, in samples */
  unsigned off[3];              /* offset of the first sample, in samples */
} Layout;

static void
layout_random (Layout * l, MCChroma chroma, LayoutKind kind)
{
  for (unsigned i = 0; i < 3; i++) {
    l->block[i] = i;
    l->k[i] = 1;
    l->off[i] = 0;
  }
  if (kind == LAYOUT_PACKED && chroma == MC_CHROMA_420)
    kind = LAYOUT_SEMI;
  if (chroma == MC_CHROMA_NONE) {
    if (kind != LAYOUT_PLANAR) {
      kind = LAYOUT_PACKED;
      l->k[0] = RAND (2, 4);
      l->off[0] = RAND (0, (int) l->k[0] - 1);
    }
  } else if (kind == LAYOUT_SEMI) {   /* U first (NV12) or V first (NV21) */
    l->block[2] = 1;
    l->k[1] = l->k[2] = 2;
    l->off[1] = RAND (0, 1);
    l->off[2] = 1 - l->off[1];
  } else if (kind == LAYOUT_PACKED && chroma == MC_CHROMA_422) {
    /* Y at every other sample, from 0 (YUY2, YVYU) or 1 (UYVY); U and V
     * in the two slots left of each 4 */
    const unsigned yo = RAND (0, 1), uv = RAND (0, 1);
    l->block[1] = l->block[2] = 0;
    l->k[0] = 2;
    l->off[0] = yo;
    l->k[1] = l->k[2] = 4;
    l->off[1] = uv ? 1 - yo : 3 - yo;
    l->off[2] = uv ? 3 - yo : 1 - yo;
  } else if (kind == LAYOUT_PACKED) {   /* 4:4:4 as RGB, RGBx, xRGB ... */
    unsigned slots[4] = { 0, 1, 2, 3 };
    const unsigned k = RAND (3, 4);
    for (unsigned i = k - 1; i > 0; i--) {
      const unsigned j = RAND (0, (int) i), t = slots[i];
      slots[i] = slots[j];
      slots[j] = t;
    }
    for (unsigned i = 0; i < 3; i++) {
      l->block[i] = 0;
      l->k[i] = k;
      l->off[i] = slots[i];
    }
  }
  l->kind = kind;
}

/* The np planes of a picture (plane i w[i] x h[i]) laid out by l: each
 * block as wide as its widest plane's samples and some slack, filled with
 * `fill` (-1: random bytes, as other components would be). */
static void
layout_alloc (Buf * bufs, const Layout * l, unsigned np, const unsigned *w,
    const unsigned *h, unsigned depth, unsigned shift, int fill)
{
  const unsigned bps = depth > 8 ? 2 : 1;
  for (unsigned b = 0; b < np; b++) {
    size_t row = 0;
    unsigned rows = 0, first = np;
    for (unsigned i = 0; i < np; i++)
      if (l->block[i] == b) {
        row = MAX (row, (size_t) (l->off[i] + (w[i] - 1) * l->k[i] + 1)
            * bps);
        rows = MAX (rows, h[i]);
        first = MIN (first, i);
      }
    if (first == np)
      continue;
    const ptrdiff_t stride = (ptrdiff_t) (row + RAND (0, 9) * bps);
    const size_t size = (size_t) stride * rows;
    guint8 *mem = g_malloc (size);
    if (fill < 0)
      for (size_t j = 0; j < size; j++)
        mem[j] = (guint8) g_rand_int (checkasm.rand);
    else
      memset (mem, fill, size);
    for (unsigned i = 0; i < np; i++)
      if (l->block[i] == b) {
        Buf *p = &bufs[i];
        memset (p, 0, sizeof *p);
        p->buf = mem;
        p->size = size;
        p->owner = i == first;
        p->p.data = mem + l->off[i] * bps;
        p->p.stride = stride;
        p->p.width = w[i];
        p->p.height = h[i];
        p->p.depth = depth;
        p->p.shift = shift;
        /* the natural stride as 0 or spelled out */
        p->p.pstride = l->k[i] > 1 || RAND (0, 1) ? l->k[i] * bps : 0;
      }
  }
}

typedef struct {
  MCChroma chroma;
  unsigned w, h, depth, shift;
  Buf ref[3];
  unsigned np;
  unsigned sx, sy;
  unsigned pw[3], ph[3];        /* plane sizes */
} Pic;

static const char *const chroma_names[] = { "gray", "420", "422", "444" };

static void
pic_init (Pic * p, MCChroma chroma, unsigned w, unsigned h, unsigned depth,
    unsigned shift, const Layout * l)
{
  p->chroma = chroma;
  p->w = w;
  p->h = h;
  p->depth = depth;
  p->shift = shift;
  p->np = chroma == MC_CHROMA_NONE ? 1 : 3;
  p->sx = chroma == MC_CHROMA_420 || chroma == MC_CHROMA_422;
  p->sy = chroma == MC_CHROMA_420;
  for (unsigned i = 0; i < p->np; i++) {
    p->pw[i] = i ? (w + p->sx) >> p->sx : w;
    p->ph[i] = i ? (h + p->sy) >> p->sy : h;
  }
  layout_alloc (p->ref, l, p->np, p->pw, p->ph, depth, shift, -1);
  for (unsigned i = 0; i < p->np; i++)
    buf_fill (&p->ref[i]);
}

static void
pic_free (Pic * p)
{
  for (unsigned i = 0; i < p->np; i++)
    buf_free (&p->ref[i]);
}

typedef struct {
  MCField f;
  GstMotionVectorCell *cells;
} Fld;

static int
random_mv (unsigned extent, int kind)
{
  switch (kind) {
    case 0:                    /* small: inside a few samples */
      return RAND (-24, 24);
    case 1:                    /* up to the picture's size and past it */
      return RAND (-4 * (int) extent - 64, 4 * (int) extent + 64);
    default:                   /* anywhere an int16 reaches */
      return RAND (-32768, 32767);
  }
}

/* A field over a w x h picture in blocks of bw x bh, possibly more blocks
 * than needed (the search's macroblock padding) and a wider stride; `kind`
 * picks how far its vectors go (-1: mixed, cell by cell). */
static void
fld_init_grid (Fld * f, unsigned w, unsigned h, unsigned bw, unsigned bh,
    int kind, unsigned cols, unsigned rows)
{
  const size_t stride = RAND (0, 1) ? 0 : cols + RAND (1, 3);
  const size_t n = (stride ? stride : cols) * rows;
  f->cells = g_new (GstMotionVectorCell, n);
  for (size_t i = 0; i < n; i++) {
    const int k = kind >= 0 ? kind : RAND (0, 5) < 4 ? 0 : RAND (1, 2);
    f->cells[i].mv_x = (gint16) random_mv (w, k);
    f->cells[i].mv_y = (gint16) random_mv (h, k);
    f->cells[i].cost = g_rand_int (checkasm.rand) >> RAND (4, 31);
    f->cells[i].pred_x = f->cells[i].pred_y = 0;
    f->cells[i].mvd_x = f->cells[i].mvd_y = 0;
  }
  f->f = (MCField) { bw, bh, cols, rows, stride, f->cells };
}

static void
fld_init (Fld * f, unsigned w, unsigned h, unsigned bw, unsigned bh,
    int kind)
{
  const unsigned cols = (w + bw - 1) / bw + RAND (0, 1);
  const unsigned rows = (h + bh - 1) / bh + RAND (0, 1);
  fld_init_grid (f, w, h, bw, bh, kind, cols, rows);
}

static unsigned
random_block (void)
{
  return 4u << RAND (0, 2);
}

static unsigned
random_side (void)
{
  switch (RAND (0, 5)) {
    case 0:
      return RAND (1, 7);
    case 1:
      return RAND (8, 40);
    case 2:
      return 16 * RAND (1, 8);
    case 3:
      return 16 * RAND (1, 8) + RAND (1, 15);
    default:
      return RAND (33, 300);
  }
}

static void
random_format (unsigned *depth, unsigned *shift)
{
  static const unsigned depths[] = { 8, 10, 12, 16 };
  /* mostly the formats' depths, one case in four any of 8 .. 16 */
  *depth = RAND (0, 3) ? depths[RAND (0, 3)] : (unsigned) RAND (8, 16);
  *shift = *depth == 8 ? 0 : RAND (0, 16 - *depth);
}

/* ---- running an implementation ----------------------------------------- */

/* Where the planes of a call live for the implementation under test. */
typedef enum {
  MEM_HOST,
  MEM_DEVICE,                   /* every plane in device memory */
  MEM_MIXED,                    /* inputs in device memory, output host */
  MEM_OUT,                      /* inputs host, output in device memory */
} Mem;

static const char *const mem_names[] = { "host", "device",
  "device-to-host", "host-to-device"
};

static const MCDevice mem_flags[] = { MC_DEVICE_NONE, MC_DEVICE_ALL,
  MC_DEVICE_INPUTS, MC_DEVICE_OUTPUT
};

/* A device copy of b's whole block (same stride), or NULL; the plane is
 * at the same offset in it (dev_data()). */
static guint8 *
to_device (const Buf * b, GError ** error)
{
  guint8 *d = mc_cuda_alloc (b->size, error);
  if (d && !mc_cuda_copy (d, b->buf, b->size, error)) {
    mc_cuda_free (d);
    return NULL;
  }
  return d;
}

static guint8 *
dev_data (guint8 * dev, const Buf * b)
{
  return dev + (b->p.data - b->buf);
}

static gboolean
same_bytes (const Buf * want, const Buf * got, const char *what,
    const char *label)
{
  if (!memcmp (want->buf, got->buf, want->size))
    return TRUE;
  for (size_t i = 0; i < want->size; i++)
    if (want->buf[i] != got->buf[i]) {
      const size_t ps = mc_plane_pstride (&want->p);
      const size_t off = (size_t) (want->p.data - want->buf);
      const size_t y = i / want->p.stride, b = i % want->p.stride;
      const size_t x = b < off ? 0 : (b - off) / ps;
      printf ("  %s: %s: byte %zu (row %zu, byte %zu: sample %zu%s) is "
          "0x%02x, the reference's 0x%02x\n", label, what, i, y, b, x,
          b < off || (b - off) % ps >= mc_plane_bps (&want->p)
          ? ", between samples" : x >= want->p.width ? ", past the width"
          : "", got->buf[i], want->buf[i]);
      break;
    }
  return FALSE;
}

/* out from ref with `impl` and the planes in `mem`; out is in host memory
 * on return. */
static gboolean
run_predict (const MCImpl * impl, Mem mem, const Buf * ref, Buf * out,
    const MCField * f, unsigned sx, unsigned sy, const MCOptions * base,
    GError ** error)
{
  MCOptions o = *base;
  o.impl = impl;
  o.device = mem_flags[mem];
  if (mem == MEM_HOST)
    return mc_predict_plane (&ref->p, &out->p, f, sx, sy, &o, error);
  MCPlane r = ref->p, w = out->p;
  guint8 *dr = NULL, *dw = NULL;
  gboolean ok = TRUE;
  if (o.device & MC_DEVICE_INPUTS) {
    dr = to_device (ref, error);
    ok = dr != NULL;
    r.data = ok ? dev_data (dr, ref) : NULL;
  }
  if (ok && (o.device & MC_DEVICE_OUTPUT)) {
    dw = to_device (out, error);        /* the poison, to see what changed */
    ok = dw != NULL;
    w.data = ok ? dev_data (dw, out) : NULL;
  }
  if (ok)
    ok = mc_predict_plane (&r, &w, f, sx, sy, &o, error);
  if (ok && dw)
    ok = mc_cuda_copy (out->buf, dw, out->size, error);
  mc_cuda_free (dr);
  mc_cuda_free (dw);
  return ok;
}

/* out from a and b; with `inplace` out is a (its buffer gets a's samples
 * first; where only one of them is in device memory, a is a copy). */
static gboolean
run_blend (const MCImpl * impl, Mem mem, const Buf * a, const Buf * b,
    Buf * out, gboolean inplace, const guint8 * weights, unsigned bw,
    unsigned bh, unsigned cols, unsigned rows, unsigned sx, unsigned sy,
    const MCOptions * base, GError ** error)
{
  MCOptions o = *base;
  o.impl = impl;
  o.device = mem_flags[mem];
  if (inplace)
    memcpy (out->buf, a->buf, a->size);
  if (mem == MEM_HOST)
    return mc_blend_plane (inplace ? &out->p : &a->p, &b->p, &out->p,
        weights, bw, bh, cols, rows, sx, sy, &o, error);
  MCPlane pa = inplace ? out->p : a->p, pb = b->p, po = out->p;
  guint8 *da = NULL, *db = NULL, *dout = NULL;
  gboolean ok = TRUE;
  if (o.device & MC_DEVICE_INPUTS) {
    da = to_device (inplace ? out : a, error);
    db = da ? to_device (b, error) : NULL;
    ok = da && db;
    if (ok) {
      pa.data = dev_data (da, inplace ? out : a);
      pb.data = dev_data (db, b);
    }
  }
  guint8 *obase = NULL;         /* the device block of the output */
  if (ok && (o.device & MC_DEVICE_OUTPUT)) {
    if (inplace && da)
      obase = da;
    else {
      dout = obase = to_device (out, error);
      ok = dout != NULL;
    }
    if (ok)
      po.data = dev_data (obase, out);
  }
  if (ok)
    ok = mc_blend_plane (&pa, &pb, &po, weights, bw, bh, cols, rows, sx, sy,
        &o, error);
  if (ok && (o.device & MC_DEVICE_OUTPUT))
    ok = mc_cuda_copy (out->buf, obase, out->size, error);
  mc_cuda_free (da);
  mc_cuda_free (db);
  mc_cuda_free (dout);
  return ok;
}

/* ---- one random case ---------------------------------------------------- */

/* A picture predicted by the reference (C, one thread) and by `impl` with
 * `threads` in `mem`, then a blend of two predictions of each plane; FALSE
 * and a message on the first difference or error. */
static gboolean
check_case (const MCImpl * impl, Mem mem, unsigned threads, unsigned n,
    const char *label)
{
  unsigned depth, shift;
  random_format (&depth, &shift);
  const MCChroma chroma = (MCChroma) RAND (0, 3);
  unsigned w = random_side (), h = random_side ();
  if (n == 0 && impl != mc_impl_c ()) { /* one of 720p, 4:2:0, every run */
    w = 1280;
    h = 720;
  }
  const unsigned bw = random_block (), bh = random_block ();
  Pic pic;
  Fld f, f2;
  Layout lay;
  layout_random (&lay, n == 0 ? MC_CHROMA_420 : chroma,
      (LayoutKind) RAND (0, 2));
  pic_init (&pic, n == 0 ? MC_CHROMA_420 : chroma, w, h, depth, shift, &lay);
  fld_init (&f, w, h, bw, bh, n % 7 == 3 ? 2 : -1);
  fld_init (&f2, w, h, bw, bh, n % 5 == 1 ? 0 : -1);
  MCOptions ref_opt, opt;
  mc_options_init (&ref_opt);
  ref_opt.obmc = RAND (0, 3) != 0;
  opt = ref_opt;
  opt.threads = threads;

  /* block weights over the field's grid: random, all one side, or even */
  const unsigned cols = f2.f.cols, rows = f2.f.rows;
  guint8 *weights = g_new (guint8, (size_t) cols * rows);
  const int wkind = RAND (0, 4);
  for (size_t i = 0; i < (size_t) cols * rows; i++)
    weights[i] = (guint8) (wkind == 0 ? 0 : wkind == 1 ? 64 : wkind == 2
        ? 32 : RAND (0, 1) ? RAND (0, 64) : 64 * RAND (0, 1));

  char what[160];
  gboolean ok = TRUE;
  GError *error = NULL;
  for (unsigned i = 0; ok && i < pic.np; i++) {
    const unsigned sx = i ? pic.sx : 0, sy = i ? pic.sy : 0;
    const Buf *ref = &pic.ref[i];
    Buf want, got, want2, got2, bl_want, bl_got;
    g_snprintf (what, sizeof what, "case %u: plane %u of %ux%u %s %s "
        "(pixel stride %u), %u bits shift %u, blocks %ux%u, %s", n, i, w, h,
        chroma_names[pic.chroma], layout_names[lay.kind],
        mc_plane_pstride (&ref->p), depth, shift, bw, bh,
        ref_opt.obmc ? "overlapped" : "apart");
    /* outputs in the reference's layout, in blocks of their own whose
     * bytes between samples are poison that must stay */
    buf_twin (&want, ref);
    buf_twin (&got, ref);
    buf_poison (&want, 0xa5);
    buf_poison (&got, 0xa5);
    buf_twin (&want2, ref);
    buf_twin (&got2, ref);
    buf_poison (&want2, 0x5a);
    buf_poison (&got2, 0x5a);

    ok = mc_predict_plane (&ref->p, &want.p, &f.f, sx, sy, &ref_opt, &error)
        && mc_predict_plane (&ref->p, &want2.p, &f2.f, sx, sy, &ref_opt,
        &error);
    if (!ok)
      printf ("  %s: %s: the reference failed: %s\n", label, what,
          error->message);
    if (ok) {
      ok = run_predict (impl, mem, ref, &got, &f.f, sx, sy, &opt, &error)
          && run_predict (impl, mem, ref, &got2, &f2.f, sx, sy, &opt,
          &error);
      if (!ok)
        printf ("  %s: %s: %s\n", label, what, error->message);
    }
    ok = ok && same_bytes (&want, &got, what, label)
        && same_bytes (&want2, &got2, what, label);

    /* the two predictions blended, apart or in place of the first */
    if (ok) {
      const gboolean inplace = RAND (0, 2) == 0;
      if (inplace || RAND (0, 1))       /* a's layout */
        buf_twin (&bl_want, &want);
      else                      /* planar, whatever the inputs' */
        buf_init (&bl_want, ref->p.width, ref->p.height, depth, shift);
      buf_twin (&bl_got, &bl_want);
      buf_poison (&bl_want, 0x3c);
      buf_poison (&bl_got, 0x3c);
      if (inplace)
        memcpy (bl_want.buf, want.buf, want.size);
      ok = mc_blend_plane (inplace ? &bl_want.p : &want.p, &want2.p,
          &bl_want.p, weights, bw, bh, cols, rows, sx, sy, &ref_opt, &error);
      if (!ok)
        printf ("  %s: %s: the reference blend failed: %s\n", label, what,
            error->message);
      if (ok) {
        ok = run_blend (impl, mem, &want, &want2, &bl_got, inplace, weights,
            bw, bh, cols, rows, sx, sy, &opt, &error);
        if (!ok)
          printf ("  %s: %s: blend: %s\n", label, what, error->message);
      }
      g_strlcat (what, inplace ? ", blend in place" : ", blend", sizeof what);
      ok = ok && same_bytes (&bl_want, &bl_got, what, label);
      buf_free (&bl_want);
      buf_free (&bl_got);
    }
    g_clear_error (&error);
    buf_free (&want);
    buf_free (&got);
    buf_free (&want2);
    buf_free (&got2);
  }
  g_free (weights);
  g_free (f.cells);
  g_free (f2.cells);
  pic_free (&pic);
  return ok;
}

/* ---- interpolation ------------------------------------------------------ */

/* Costs around the interpolation's threshold for blocks of bw x bh at
 * `depth` bits, so that every branch of mc_interp_weight() is taken: zero,
 * under one level a sample, around the trust threshold, far past it,
 * anything; `kind` 5 mixes them cell by cell, 0 .. 4 is one for all. */
static void
fld_interp_costs (Fld * f, unsigned depth, int kind)
{
  const guint32 trust = mc_interp_trust ((int) f->f.block_w,
      (int) f->f.block_h, (int) depth);
  const guint32 floor_ = (f->f.block_w * f->f.block_h) << (depth - 8);
  const size_t n = (f->f.stride ? f->f.stride : f->f.cols) * f->f.rows;
  for (size_t i = 0; i < n; i++) {
    const int k = kind < 5 ? kind : RAND (0, 4);
    guint32 c;
    switch (k) {
      case 0:
        c = 0;
        break;
      case 1:
        c = (guint32) RAND (0, (int) floor_);
        break;
      case 2:
        c = (guint32) RAND ((int) (trust / 2), (int) (2 * trust));
        break;
      case 3:
        c = trust + 1 + (g_rand_int (checkasm.rand) >> 8);
        break;
      default:
        c = g_rand_int (checkasm.rand) >> RAND (4, 31);
        break;
    }
    f->cells[i].cost = c;
  }
}

/* The plane of bufs[0 .. np) that owns the block of bufs[i]. */
static unsigned
block_owner (const Buf * bufs, unsigned i)
{
  unsigned j = 0;
  while (bufs[j].buf != bufs[i].buf)
    j++;
  return j;
}

/* A device copy of each block of the planes (same strides), in `pic`:
 * dev[i] the copy of the block plane i owns, NULL for a plane that shares
 * an earlier plane's block. */
static gboolean
pic_to_device (const Buf * bufs, unsigned np, MCPicture * pic,
    guint8 ** dev, GError ** error)
{
  for (unsigned i = 0; i < np; i++) {
    const unsigned j = block_owner (bufs, i);
    if (j == i) {
      dev[i] = to_device (&bufs[i], error);
      if (!dev[i])
        return FALSE;
    }
    pic->planes[i].data = dev_data (dev[j], &bufs[i]);
  }
  return TRUE;
}

/* dst: the planes of src in blocks of their own, laid out alike and with
 * the same bytes. */
static void
pic_twin (Buf * dst, const Buf * src, unsigned np)
{
  for (unsigned i = 0; i < np; i++) {
    const unsigned j = block_owner (src, i);
    if (j == i) {
      buf_twin (&dst[i], &src[i]);
      memcpy (dst[i].buf, src[i].buf, src[i].size);
    } else {
      dst[i] = src[i];
      dst[i].buf = dst[j].buf;
      dst[i].p.data = dev_data (dst[j].buf, &src[i]);
      dst[i].owner = FALSE;
    }
  }
}

static void
pic_of (MCPicture * pic, MCChroma chroma, const Buf * bufs, unsigned np)
{
  memset (pic, 0, sizeof *pic);
  pic->chroma = chroma;
  for (unsigned i = 0; i < np; i++)
    pic->planes[i] = bufs[i].p;
}

/* out (host buffers) from prev and next with `impl`, the planes where
 * `mem` says. */
static gboolean
run_interp (const MCImpl * impl, Mem mem, const Pic * prev, const Pic * next,
    Buf * out, const MCField * fn, const MCField * fp, int num, int den,
    MCInterpMode mode, const MCOptions * base, unsigned *nfb,
    GError ** error)
{
  MCOptions o = *base;
  o.impl = impl;
  o.device = mem_flags[mem];
  MCPicture pp, pn, po;
  pic_of (&pp, prev->chroma, prev->ref, prev->np);
  pic_of (&pn, next->chroma, next->ref, next->np);
  pic_of (&po, prev->chroma, out, prev->np);
  guint8 *dp[3] = { NULL }, *dn[3] = { NULL }, *dout[3] = { NULL };
  gboolean ok = TRUE;
  if (o.device & MC_DEVICE_INPUTS)
    ok = pic_to_device (prev->ref, prev->np, &pp, dp, error)
        && pic_to_device (next->ref, next->np, &pn, dn, error);
  if (ok && (o.device & MC_DEVICE_OUTPUT))
    ok = pic_to_device (out, prev->np, &po, dout, error);
  if (ok)
    ok = mc_interpolate_picture (&pp, &pn, &po, fn, fp, num, den, mode, &o,
        nfb, error);
  for (unsigned i = 0; ok && dout[0] && i < prev->np; i++)
    if (dout[i])
      ok = mc_cuda_copy (out[i].buf, dout[i], out[i].size, error);
  for (unsigned i = 0; i < 3; i++) {
    mc_cuda_free (dp[i]);
    mc_cuda_free (dn[i]);
    mc_cuda_free (dout[i]);
  }
  return ok;
}

static const char *const mode_names[] = { "motion", "blend", "repeat" };

/* A picture between two random ones at a random time, with two fields of
 * one grid whose costs reach every branch of the weight rule, by the
 * reference (C, one thread) and by `impl`: every plane, every byte, and
 * the count of fallback blocks. */
static gboolean
check_interp_case (const MCImpl * impl, Mem mem, unsigned threads,
    unsigned n, const char *label)
{
  unsigned depth, shift;
  random_format (&depth, &shift);
  const MCChroma chroma = n == 0 ? MC_CHROMA_420 : (MCChroma) RAND (0, 3);
  unsigned w = random_side (), h = random_side ();
  if (n == 0 && impl != mc_impl_c ()) {
    w = 1280;
    h = 720;
  }
  const unsigned bw = random_block (), bh = random_block ();
  Pic prev, next;
  Layout lay, nlay;
  layout_random (&lay, chroma, (LayoutKind) RAND (0, 2));
  nlay = lay;
  if (RAND (0, 3) == 0)         /* next laid out otherwise */
    layout_random (&nlay, chroma, (LayoutKind) RAND (0, 2));
  pic_init (&prev, chroma, w, h, depth, shift, &lay);
  pic_init (&next, chroma, w, h, depth, RAND (0, 1) ? shift : 0, &nlay);
  Fld fn, fp;
  fld_init (&fn, w, h, bw, bh, n % 7 == 3 ? 2 : -1);
  fld_init_grid (&fp, w, h, bw, bh, n % 5 == 1 ? 0 : -1, fn.f.cols,
      fn.f.rows);
  const int ck = RAND (0, 7);
  fld_interp_costs (&fn, depth, ck < 5 ? 5 : ck == 5 ? 3 : RAND (0, 4));
  fld_interp_costs (&fp, depth, ck < 5 ? 5 : ck == 5 ? 3 : RAND (0, 4));
  int den, num;
  switch (RAND (0, 5)) {
    case 0:
      den = RAND (1, 8);
      num = RAND (0, 1) * den;  /* the ends */
      break;
    case 1:
      den = RAND (1, 65536);
      num = RAND (0, den);
      break;
    default:
      den = RAND (2, 8);
      num = RAND (1, den - 1);
      break;
  }
  const int mr = RAND (0, 7);
  const MCInterpMode mode = mr == 0 ? MC_INTERP_BLEND : mr == 1
      ? MC_INTERP_REPEAT : MC_INTERP_MOTION;
  MCOptions ref_opt, opt;
  mc_options_init (&ref_opt);
  ref_opt.obmc = RAND (0, 3) != 0;
  opt = ref_opt;
  opt.threads = threads;

  const unsigned oshift = depth == 8 ? 0 : RAND (0, 16 - depth);
  /* the output in a layout of its own, interleaved planes sharing blocks
   * whose bytes between samples are poison that must stay */
  Buf want[3], got[3];
  Layout olay;
  layout_random (&olay, chroma, (LayoutKind) RAND (0, 2));
  layout_alloc (want, &olay, prev.np, prev.pw, prev.ph, depth, oshift, 0x69);
  pic_twin (got, want, prev.np);
  char what[240];
  g_snprintf (what, sizeof what, "interpolation case %u: %ux%u %s, %s to "
      "%s, %u bits shift %u, blocks %ux%u, %s, t = %d/%d, %s", n, w, h,
      chroma_names[chroma], layout_names[lay.kind], layout_names[olay.kind],
      depth, shift, bw, bh, ref_opt.obmc ? "overlapped" : "apart", num, den,
      mode_names[mode]);
  GError *error = NULL;
  unsigned nfb_want = 0, nfb_got = 0;
  MCPicture pp, pn, po;
  pic_of (&pp, chroma, prev.ref, prev.np);
  pic_of (&pn, chroma, next.ref, next.np);
  pic_of (&po, chroma, want, prev.np);
  gboolean ok = mc_interpolate_picture (&pp, &pn, &po, &fn.f, &fp.f, num,
      den, mode, &ref_opt, &nfb_want, &error);
  if (!ok)
    printf ("  %s: %s: the reference failed: %s\n", label, what,
        error->message);
  if (ok) {
    ok = run_interp (impl, mem, &prev, &next, got, &fn.f, &fp.f, num, den,
        mode, &opt, &nfb_got, &error);
    if (!ok)
      printf ("  %s: %s: %s\n", label, what, error->message);
  }
  for (unsigned i = 0; ok && i < prev.np; i++) {
    char pw[260];
    g_snprintf (pw, sizeof pw, "%s, plane %u", what, i);
    ok = same_bytes (&want[i], &got[i], pw, label);
  }
  if (ok && nfb_want != nfb_got) {
    printf ("  %s: %s: %u fallback blocks, the reference's %u\n", label,
        what, nfb_got, nfb_want);
    ok = FALSE;
  }
  g_clear_error (&error);
  for (unsigned i = 0; i < prev.np; i++) {
    buf_free (&want[i]);
    buf_free (&got[i]);
  }
  g_free (fn.cells);
  g_free (fp.cells);
  pic_free (&prev);
  pic_free (&next);
  return ok;
}

static gboolean
check_interp_cases (const MCImpl * impl, Mem mem, unsigned threads,
    unsigned count, const char *label)
{
  for (unsigned n = 0; n < count; n++)
    if (!check_interp_case (impl, mem, threads, n, label))
      return FALSE;
  return TRUE;
}

/* ---- bad input to the CUDA implementation ------------------------------ */

/* A plane marked as device memory that is not, and device planes given to
 * the C reference: errors, never a fault. */
static gboolean
check_cuda_errors (const MCImpl * cuda)
{
  Buf ref, out;
  Fld f;
  GError *error = NULL;
  MCOptions o;
  gboolean ok = TRUE;
  buf_init (&ref, 32, 16, 8, 0);
  buf_init (&out, 32, 16, 8, 0);
  buf_fill (&ref);
  fld_init (&f, 32, 16, 8, 8, 0);
  mc_options_init (&o);

  o.impl = cuda;
  o.device = MC_DEVICE_INPUTS;  /* a lie: host memory */
  if (mc_predict_plane (&ref.p, &out.p, &f.f, 0, 0, &o, &error)
      || !g_error_matches (error, MC_ERROR, MC_ERROR_INVALID)) {
    printf ("  a host plane marked as device memory: %s\n",
        error ? error->message : "accepted");
    ok = FALSE;
  }
  g_clear_error (&error);

  guint8 *d = to_device (&ref, &error);
  if (!d) {
    printf ("  %s\n", error->message);
    ok = FALSE;
  } else {
    MCPlane r = ref.p;
    r.data = d;
    o.impl = NULL;              /* the C reference */
    if (mc_predict_plane (&r, &out.p, &f.f, 0, 0, &o, &error)
        || !g_error_matches (error, MC_ERROR, MC_ERROR_INVALID)) {
      printf ("  a device plane given to the C reference: %s\n",
          error ? error->message : "accepted");
      ok = FALSE;
    }
    g_clear_error (&error);
    mc_cuda_free (d);
  }
  /* the implementation still works after both */
  o.impl = cuda;
  o.device = MC_DEVICE_NONE;
  if (ok && !mc_predict_plane (&ref.p, &out.p, &f.f, 0, 0, &o, &error)) {
    printf ("  after bad input: %s\n", error->message);
    ok = FALSE;
  }
  g_clear_error (&error);
  g_free (f.cells);
  buf_free (&ref);
  buf_free (&out);
  return ok;
}

/* A plane marked as device memory given to the C reference: an error
 * before any sample is read (no GPU needed: the flag is enough). */
static gboolean
check_c_refuses_device (void)
{
  Buf ref, out, out2;
  Fld f;
  GError *error = NULL;
  gboolean ok = TRUE;
  buf_init (&ref, 24, 8, 8, 0);
  buf_init (&out, 24, 8, 8, 0);
  buf_init (&out2, 24, 8, 8, 0);
  buf_fill (&ref);
  fld_init (&f, 24, 8, 8, 8, 0);
  guint8 w[3 * 1 + 8] = { 0 };
  MCOptions o;
  mc_options_init (&o);
  o.device = MC_DEVICE_INPUTS;
  if (mc_predict_plane (&ref.p, &out.p, &f.f, 0, 0, &o, &error)
      || !g_error_matches (error, MC_ERROR, MC_ERROR_INVALID)
      || !strstr (error->message, "device memory")) {
    printf ("  predict, device reference: %s\n",
        error ? error->message : "accepted");
    ok = FALSE;
  }
  g_clear_error (&error);
  o.device = MC_DEVICE_OUTPUT;
  if (mc_blend_plane (&ref.p, &out.p, &out2.p, w, 8, 8, 3, 1, 0, 0, &o,
          &error) || !g_error_matches (error, MC_ERROR, MC_ERROR_INVALID)) {
    printf ("  blend, device output: %s\n",
        error ? error->message : "accepted");
    ok = FALSE;
  }
  g_clear_error (&error);
  o.device = (MCDevice) 4;      /* no such flag */
  o.impl = NULL;
  if (mc_blend_plane (&ref.p, &out.p, &out2.p, w, 8, 8, 3, 1, 0, 0, &o,
          &error) || !g_error_matches (error, MC_ERROR, MC_ERROR_INVALID)) {
    printf ("  blend, device flags 4: %s\n",
        error ? error->message : "accepted");
    ok = FALSE;
  }
  g_clear_error (&error);
  g_free (f.cells);
  buf_free (&ref);
  buf_free (&out);
  buf_free (&out2);
  return ok;
}

/* ---- the kernels' per-sample code on the host -------------------------- */

/* An implementation made of mc_cuda_sample.h, called for every sample as
 * the kernels are, with the field and weights packed as mc_cuda.cu packs
 * them: what the GPU computes, checked where there is none. */
static MCSPlane
splane (const MCPlane * p)
{
  MCSPlane s = { p->data, p->stride, (int) p->width, (int) p->height,
    (int) p->depth, (int) p->shift, (int) mc_plane_pstride (p)
  };
  return s;
}

static MCSGrid
sgrid (const MCGrid * g)
{
  MCSGrid s = { (int) g->bw, (int) g->bh, (int) g->ncols, (int) g->nrows };
  return s;
}

static gboolean
host_predict (const MCPlane * ref, MCPlane * out, const MCField * field,
    const MCGrid * grid, unsigned sub_x, unsigned sub_y,
    const MCOptions * opt, GError ** error)
{
  (void) error;
  const size_t fstride = field->stride ? field->stride : field->cols;
  GstMotionVectorCell *cells = g_new (GstMotionVectorCell,
      (size_t) grid->ncols * grid->nrows);
  for (unsigned r = 0; r < grid->nrows; r++)
    memcpy (cells + (size_t) r * grid->ncols, field->cells + r * fstride,
        grid->ncols * sizeof *cells);
  const int bps = ref->depth > 8 ? 2 : 1;
  for (unsigned y = 0; y < out->height; y++)
    for (unsigned x = 0; x < out->width; x++)
      mc_s_write (out->data, out->stride, (int) mc_plane_pstride (out), bps,
          (int) out->shift, (int) x, (int) y, mc_s_predict (splane (ref), bps, cells, sgrid (grid),
              (int) x, (int) y, (int) sub_x, (int) sub_y, opt->obmc));
  g_free (cells);
  return TRUE;
}

static gboolean
host_blend (const MCPlane * a, const MCPlane * b, MCPlane * out,
    const uint8_t * weights, size_t wstride, const MCGrid * grid,
    const MCOptions * opt, GError ** error)
{
  (void) error;
  guint8 *w = g_new (guint8, (size_t) grid->ncols * grid->nrows);
  for (unsigned r = 0; r < grid->nrows; r++)
    memcpy (w + (size_t) r * grid->ncols, weights + r * wstride,
        grid->ncols);
  const int bps = a->depth > 8 ? 2 : 1;
  for (unsigned y = 0; y < out->height; y++)
    for (unsigned x = 0; x < out->width; x++)
      mc_s_write (out->data, out->stride, (int) mc_plane_pstride (out), bps,
          (int) out->shift, (int) x, (int) y, mc_s_blend (splane (a), splane (b), bps, w, sgrid (grid),
              (int) x, (int) y, opt->obmc));
  g_free (w);
  return TRUE;
}

/* cells of the grid's blocks, rows packed, as the CUDA side uploads them */
static GstMotionVectorCell *
packed_cells (const MCField * field, const MCGrid * grid)
{
  const size_t fstride = field->stride ? field->stride : field->cols;
  GstMotionVectorCell *cells = g_new (GstMotionVectorCell,
      (size_t) grid->ncols * grid->nrows);
  for (unsigned r = 0; r < grid->nrows; r++)
    memcpy (cells + (size_t) r * grid->ncols, field->cells + r * fstride,
        grid->ncols * sizeof *cells);
  return cells;
}

static gboolean
host_interpolate (const MCPlane * prev, const MCPlane * next, MCPlane * out,
    const MCField * from_prev, const MCField * from_next,
    const uint8_t * weights, size_t wstride, const MCGrid * grid,
    unsigned sub_x, unsigned sub_y, const MCOptions * opt, GError ** error)
{
  (void) error;
  GstMotionVectorCell *cp = packed_cells (from_prev, grid);
  GstMotionVectorCell *cn = packed_cells (from_next, grid);
  guint8 *w = g_new (guint8, (size_t) grid->ncols * grid->nrows);
  for (unsigned r = 0; r < grid->nrows; r++)
    memcpy (w + (size_t) r * grid->ncols, weights + r * wstride,
        grid->ncols);
  const int bps = prev->depth > 8 ? 2 : 1;
  for (unsigned y = 0; y < out->height; y++)
    for (unsigned x = 0; x < out->width; x++)
      mc_s_write (out->data, out->stride, (int) mc_plane_pstride (out), bps,
          (int) out->shift, (int) x, (int) y, mc_s_interpolate (splane
              (prev), splane (next), bps, cp, cn, w, sgrid (grid), (int) x,
              (int) y, (int) sub_x, (int) sub_y, opt->obmc));
  g_free (w);
  g_free (cn);
  g_free (cp);
  return TRUE;
}

static gboolean
host_denoise_refs (const MCPlane * cur, const MCPlane * const *refs,
    const MCField * const *fields, const uint8_t * const *weights,
    unsigned n_refs, size_t wstride, MCPlane * out, const MCGrid * grid,
    unsigned sub_x, unsigned sub_y, unsigned plane, gboolean last,
    const MCOptions * opt, GError ** error)
{
  MCSDenoiseRefs dr;
  (void) plane;
  (void) last;
  GstMotionVectorCell *cells[MC_DENOISE_MAX_REFS];
  guint8 *w[MC_DENOISE_MAX_REFS];
  guint16 *hp[MC_DENOISE_MAX_REFS];
  gboolean ok = TRUE;
  memset (&dr, 0, sizeof dr);
  dr.n = (int) n_refs;
  for (unsigned i = 0; i < n_refs; i++) {
    cells[i] = packed_cells (fields[i], grid);
    w[i] = g_new (guint8, (size_t) grid->ncols * grid->nrows);
    for (unsigned r = 0; r < grid->nrows; r++)
      memcpy (w[i] + (size_t) r * grid->ncols, weights[i] + r * wstride,
          grid->ncols);
    dr.ref[i] = splane (refs[i]);
    dr.cells[i] = cells[i];
    dr.weights[i] = w[i];
    /* luma: the half-sample planes, as the kernel builds them */
    hp[i] = NULL;
    if (!sub_x && !sub_y) {
      const int hc = mc_s_hp_cols ((int) cur->width);
      const int hr = mc_s_hp_rows ((int) cur->height);
      const int rb = refs[i]->depth > 8 ? 2 : 1;
      hp[i] = g_new (guint16, 4 * (size_t) hc * hr);
      /* in the kernels' two passes, every sample checked against the
       * one-pass definition on the way */
      gint32 *b1 = g_new (gint32, (size_t) hc * cur->height);
      for (int y = 0; y < (int) cur->height; y++)
        for (int x = 0; x < hc; x++)
          b1[(size_t) y * hc + x] = mc_s_tap6_across (dr.ref[i], rb,
              x + MC_S_HP_LO, y);
      for (int k = 0; k < 4; k++)
        for (int y = 0; y < hr; y++)
          for (int x = 0; x < hc; x++) {
            const int v = mc_s_hp_from_b1 (dr.ref[i], rb, b1, hc, k,
                x + MC_S_HP_LO, y + MC_S_HP_LO);
            if (v != mc_s_hp_value (dr.ref[i], rb, k, x + MC_S_HP_LO,
                    y + MC_S_HP_LO))
              ok = FALSE;
            hp[i][(size_t) k * hc * hr + (size_t) y * hc + x] = (guint16) v;
          }
      g_free (b1);
      dr.hp[i] = (MCSHPel) { hp[i], hc, (ptrdiff_t) hc * hr,
        (int) cur->width, (int) cur->height };
    }
  }
  const int bps = cur->depth > 8 ? 2 : 1;
  for (unsigned y = 0; y < out->height; y++)
    for (unsigned x = 0; x < out->width; x++)
      mc_s_write (out->data, out->stride, (int) mc_plane_pstride (out), bps,
          (int) out->shift, (int) x, (int) y, mc_s_denoise (splane (cur),
              &dr, bps, sgrid (grid), (int) x, (int) y, (int) sub_x,
              (int) sub_y, opt->obmc));
  for (unsigned i = 0; i < n_refs; i++) {
    g_free (cells[i]);
    g_free (w[i]);
    g_free (hp[i]);
  }
  if (!ok)
    g_set_error (error, MC_ERROR, MC_ERROR_INVALID, "the half-sample planes "
        "in two passes differ from their definition");
  return ok;
}

static gboolean
host_sigma (const MCPlane * in, MCPlane * out, unsigned radius,
    unsigned threshold, gboolean last, const MCOptions * opt,
    GError ** error)
{
  (void) last;
  (void) opt;
  (void) error;
  const int bps = in->depth > 8 ? 2 : 1;
  for (unsigned y = 0; y < out->height; y++)
    for (unsigned x = 0; x < out->width; x++)
      mc_s_write (out->data, out->stride, (int) mc_plane_pstride (out), bps,
          (int) out->shift, (int) x, (int) y, mc_s_sigma (splane (in), bps,
              (int) x, (int) y, (int) radius, (int) threshold));
  return TRUE;
}

/* The kernels' per-sample code run on the host: predict and blend as the
 * separate kernels run them, interpolation and denoising as the fused
 * kernels do. */
static gboolean
host_warp (const MCPlane * in, MCPlane * out, const MCWarp * w,
    const MCOptions * opt, GError ** error)
{
  (void) opt;
  (void) error;
  const MCSWarp sw = { w->xx, w->xy, w->yx, w->yy, w->x0, w->y0 };
  const int bps = in->depth > 8 ? 2 : 1;
  for (unsigned y = 0; y < out->height; y++)
    for (unsigned x = 0; x < out->width; x++)
      mc_s_write (out->data, out->stride, (int) mc_plane_pstride (out), bps,
          (int) out->shift, (int) x, (int) y, mc_s_warp (splane (in), bps,
              sw, (int) x, (int) y));
  return TRUE;
}

static const MCImpl host_sample_impl = { "cuda-sample-on-host", FALSE,
  host_predict, host_blend, host_interpolate, NULL, NULL, host_denoise_refs,
  host_warp, host_sigma
};

/* ---- bilateral costs ------------------------------------------------------ */

/* One random case of mc_bilateral_costs(): two pictures of one random
 * layout, format and size, one of their planes (luma, or a chroma plane:
 * interleaved and packed planes get their pixel strides), k random
 * candidates a cell from small to the int16 limits; the implementation's
 * costs against the C reference's. */
static gboolean
check_bi_case (const MCImpl * impl, Mem mem, unsigned threads, unsigned n,
    const char *label)
{
  unsigned depth, shift;
  random_format (&depth, &shift);
  const MCChroma chroma = (MCChroma) RAND (0, 3);
  unsigned w = random_side (), h = random_side ();
  if (n == 0 && impl != mc_impl_c ()) {
    w = 1280;
    h = 720;
  }
  const unsigned bw = random_block (), bh = random_block ();
  Layout lay;
  layout_random (&lay, chroma, (LayoutKind) RAND (0, 2));
  Pic a, b;
  pic_init (&a, chroma, w, h, depth, shift, &lay);
  pic_init (&b, chroma, w, h, depth, shift, &lay);
  const unsigned pi = RAND (0, (int) a.np - 1);
  /* b's plane now and then a shifted copy of a's, so that some
   * candidates cost little and others much */
  if (RAND (0, 1))
    for (unsigned y = 0; y < a.ph[pi]; y++)
      for (unsigned x = 0; x < a.pw[pi]; x++) {
        const MCPlane *pa = &a.ref[pi].p, *pb = &b.ref[pi].p;
        const unsigned sx = MIN (x + 1, a.pw[pi] - 1);
        const size_t ps = mc_plane_pstride (pa);
        memcpy (pb->data + y * pb->stride + x * ps, pa->data + y * pa->stride
            + sx * ps, mc_plane_bps (pa));
      }
  const MCPlane *pp = &a.ref[pi].p, *pn = &b.ref[pi].p;
  const unsigned cells = ((pp->width + bw - 1) / bw)
      * ((pp->height + bh - 1) / bh);
  const unsigned k = RAND (1, 12);
  const int kind = RAND (-1, 2);
  MCBiCand *cand = g_new (MCBiCand, (size_t) cells * k);
  for (size_t i = 0; i < (size_t) cells * k; i++) {
    const int kk = kind < 0 ? RAND (0, 2) : kind;
    cand[i].ax = (int16_t) random_mv (pp->width, kk);
    cand[i].ay = (int16_t) random_mv (pp->height, kk);
    cand[i].bx = (int16_t) random_mv (pp->width, kk);
    cand[i].by = (int16_t) random_mv (pp->height, kk);
  }
  uint32_t *want = g_new (uint32_t, (size_t) cells * k);
  uint32_t *got = g_new0 (uint32_t, (size_t) cells * k);
  memset (got, 0xa5, (size_t) cells * k * sizeof *got);
  MCOptions ref_opt, opt;
  mc_options_init (&ref_opt);
  opt = ref_opt;
  opt.impl = impl;
  opt.threads = threads;
  GError *error = NULL;
  gboolean ok = mc_bilateral_costs (pp, pn, bw, bh, cand, k, want, &ref_opt,
      &error);
  guint8 *da = NULL, *db = NULL;
  MCPlane dp = *pp, dn = *pn;
  if (ok && mem != MEM_HOST) {
    da = to_device (&a.ref[pi], &error);
    db = da ? to_device (&b.ref[pi], &error) : NULL;
    ok = db != NULL;
    if (ok) {
      dp.data = dev_data (da, &a.ref[pi]);
      dn.data = dev_data (db, &b.ref[pi]);
      opt.device = MC_DEVICE_INPUTS;
    }
  }
  ok = ok && mc_bilateral_costs (&dp, &dn, bw, bh, cand, k, got, &opt,
      &error);
  if (!ok) {
    fprintf (stderr, "%s: bilateral case %u: %s\n", label, n,
        error ? error->message : "failed");
    g_clear_error (&error);
  }
  for (size_t i = 0; ok && i < (size_t) cells * k; i++)
    if (want[i] != got[i]) {
      fprintf (stderr, "%s: bilateral case %u: plane %u of %ux%u %s %s "
          "(pixel stride %u), %u bits shift %u, cells %ux%u, k %u: cost "
          "%zu (cell %zu, candidate %zu: a %d,%d b %d,%d) is %u, not %u\n",
          label, n, pi, w, h, chroma_names[chroma], layout_names[lay.kind],
          mc_plane_pstride (pp), depth, shift, bw, bh, k, i, i / k, i % k,
          cand[i].ax, cand[i].ay, cand[i].bx, cand[i].by, got[i], want[i]);
      ok = FALSE;
    }
  mc_cuda_free (da);
  mc_cuda_free (db);
  g_free (want);
  g_free (got);
  g_free (cand);
  pic_free (&a);
  pic_free (&b);
  return ok;
}

static gboolean
check_bi_cases (const MCImpl * impl, Mem mem, unsigned threads,
    unsigned count, const char *label)
{
  for (unsigned n = 0; n < count; n++)
    if (!check_bi_case (impl, mem, threads, n, label))
      return FALSE;
  return TRUE;
}

/* ---- denoising ----------------------------------------------------------- */

/* A plane of its own with pixel stride ps (a multiple of the sample's
 * size: one sample of a wider pixel) and slack after each row. */
static void
dn_buf_init (Buf * b, unsigned w, unsigned h, unsigned depth, unsigned shift,
    unsigned ps)
{
  const unsigned bps = depth > 8 ? 2 : 1;
  memset (b, 0, sizeof *b);
  b->p = (MCPlane) { NULL, (ptrdiff_t) ((w - 1) * ps + bps + RAND (0, 9) * 2),
    w, h, depth, shift, ps == bps ? 0 : ps
  };
  b->size = (size_t) b->p.stride * h;
  b->buf = g_malloc (b->size);
  b->p.data = b->buf;
  b->owner = TRUE;
}

/* One random denoising: the plane of `cur` and 1 .. 8 predictions of
 * random layouts, depths, block grids and weights, through `impl` on
 * `threads` threads against the C reference on one, the outputs poisoned
 * alike and compared whole. */
static gboolean
check_denoise_case (const MCImpl * impl, unsigned threads, unsigned n,
    const char *label)
{
  static const unsigned depths[] = { 8, 10, 12, 16 };
  const unsigned w = RAND (1, 200), h = RAND (1, 120);
  const unsigned depth = RAND (0, 7) ? depths[RAND (0, 3)]
      : (unsigned) RAND (9, 15);
  const unsigned shift = depth == 8 ? 0 : RAND (0, 16 - depth);
  const unsigned bps = depth > 8 ? 2 : 1;
  const unsigned bw = 4 << RAND (0, 2), bh = 4 << RAND (0, 2);
  const unsigned sx = RAND (0, 1), sy = RAND (0, 1);
  const unsigned n_refs = RAND (1, MC_DENOISE_MAX_REFS);
  const unsigned cols = (w + (bw >> sx) - 1) / (bw >> sx) + RAND (0, 2);
  const unsigned rows = (h + (bh >> sy) - 1) / (bh >> sy) + RAND (0, 2);
  const unsigned wmode = RAND (0, 3);
  Buf cur, preds[MC_DENOISE_MAX_REFS], out, want;
  const MCPlane *pp[MC_DENOISE_MAX_REFS];
  uint8_t *wts[MC_DENOISE_MAX_REFS];
  const uint8_t *wp[MC_DENOISE_MAX_REFS];
  dn_buf_init (&cur, w, h, depth, shift, bps * RAND (1, 3));
  buf_fill (&cur);
  for (unsigned i = 0; i < n_refs; i++) {
    dn_buf_init (&preds[i], w, h, depth, shift, bps * RAND (1, 3));
    buf_fill (&preds[i]);
    pp[i] = &preds[i].p;
    wts[i] = g_malloc ((size_t) cols * rows);
    for (size_t j = 0; j < (size_t) cols * rows; j++)
      /* random, the extremes alone, or one weight everywhere */
      wts[i][j] = wmode == 0 ? RAND (0, 64) : wmode == 1 ? 64 * RAND (0, 1)
          : wmode == 2 ? 64 : RAND (0, 64);
    wp[i] = wts[i];
  }
  dn_buf_init (&out, w, h, depth, shift, bps * RAND (1, 3));
  buf_twin (&want, &out);
  buf_poison (&out, 0xa5);
  buf_poison (&want, 0xa5);
  MCOptions opt;
  mc_options_init (&opt);
  opt.obmc = RAND (0, 3) != 0;
  GError *err = NULL;
  gboolean ok = mc_denoise_plane (&cur.p, pp, wp, n_refs, bw, bh, cols, rows,
      sx, sy, &want.p, &opt, &err);
  if (ok) {
    opt.impl = impl;
    opt.threads = threads;
    ok = mc_denoise_plane (&cur.p, pp, wp, n_refs, bw, bh, cols, rows, sx,
        sy, &out.p, &opt, &err);
  }
  if (!ok) {
    fprintf (stderr, "%s: case %u: %s\n", label, n, err->message);
    g_error_free (err);
  } else if (memcmp (out.buf, want.buf, out.size)) {
    fprintf (stderr, "%s: case %u: %ux%u, %u bits, shift %u, %u refs, "
        "blocks %ux%u sub %u,%u, obmc %d: outputs differ\n", label, n, w, h,
        depth, shift, n_refs, bw, bh, sx, sy, opt.obmc);
    ok = FALSE;
  }
  buf_free (&cur);
  buf_free (&out);
  buf_free (&want);
  for (unsigned i = 0; i < n_refs; i++) {
    buf_free (&preds[i]);
    g_free (wts[i]);
  }
  return ok;
}

/* One random mc_denoise_picture(): a current picture and 1 .. 8
 * references of one random format (layouts may differ), fields of one
 * grid with vectors near and far, weights random, all or nothing, or 0
 * for a whole reference; the C reference (predictions through
 * temporaries) against `impl` with the planes where `mem` says. */
static gboolean
check_dnpic_case (const MCImpl * impl, Mem mem, unsigned threads,
    unsigned n, const char *label)
{
  unsigned depth, shift;
  random_format (&depth, &shift);
  const MCChroma chroma = n == 0 ? MC_CHROMA_420 : (MCChroma) RAND (0, 3);
  unsigned w = random_side (), h = random_side ();
  if (n == 0 && impl != mc_impl_c ()) {
    w = 640;
    h = 360;
  }
  const unsigned bw = random_block (), bh = random_block ();
  const unsigned n_refs = n == 0 ? 4 : RAND (1, MC_DENOISE_MAX_REFS);
  Pic cur, refs[MC_DENOISE_MAX_REFS];
  Fld flds[MC_DENOISE_MAX_REFS];
  uint8_t *wts[MC_DENOISE_MAX_REFS];
  MCPicture pc, pr[MC_DENOISE_MAX_REFS], po;
  const MCPicture *rp[MC_DENOISE_MAX_REFS];
  const MCField *fp[MC_DENOISE_MAX_REFS];
  const uint8_t *wp[MC_DENOISE_MAX_REFS];
  Layout lay;
  layout_random (&lay, chroma, (LayoutKind) RAND (0, 2));
  pic_init (&cur, chroma, w, h, depth, shift, &lay);
  fld_init (&flds[0], w, h, bw, bh, RAND (-1, 0));
  for (unsigned i = 0; i < n_refs; i++) {
    Layout rl = lay;
    if (RAND (0, 3) == 0)
      layout_random (&rl, chroma, (LayoutKind) RAND (0, 2));
    pic_init (&refs[i], chroma, w, h, depth, RAND (0, 1) ? shift : 0, &rl);
    if (i)
      fld_init_grid (&flds[i], w, h, bw, bh, RAND (0, 5) ? -1 : 2,
          flds[0].f.cols, flds[0].f.rows);
    const size_t nc = (size_t) flds[0].f.cols * flds[0].f.rows;
    const int wm = RAND (0, 4);
    wts[i] = g_malloc (nc);
    for (size_t j = 0; j < nc; j++)
      wts[i][j] = wm == 0 ? 0 : wm == 1 ? 64 * RAND (0, 1) : wm == 2 ? 64
          : RAND (0, 64);
    pic_of (&pr[i], chroma, refs[i].ref, refs[i].np);
    rp[i] = &pr[i];
    fp[i] = &flds[i].f;
    wp[i] = wts[i];
  }
  MCOptions ref_opt, opt;
  mc_options_init (&ref_opt);
  ref_opt.obmc = RAND (0, 3) != 0;
  opt = ref_opt;
  opt.impl = impl;
  opt.threads = threads;
  opt.device = mem_flags[mem];
  const unsigned oshift = depth == 8 ? 0 : RAND (0, 16 - depth);
  Buf want[3], got[3];
  Layout olay;
  layout_random (&olay, chroma, (LayoutKind) RAND (0, 2));
  layout_alloc (want, &olay, cur.np, cur.pw, cur.ph, depth, oshift, 0x5a);
  pic_twin (got, want, cur.np);
  char what[200];
  g_snprintf (what, sizeof what, "denoise case %u: %ux%u %s, %s to %s, %u "
      "bits shift %u, %u refs, blocks %ux%u, %s", n, w, h,
      chroma_names[chroma], layout_names[lay.kind], layout_names[olay.kind],
      depth, shift, n_refs, bw, bh, ref_opt.obmc ? "overlapped" : "apart");
  GError *error = NULL;
  pic_of (&pc, chroma, cur.ref, cur.np);
  pic_of (&po, chroma, want, cur.np);
  gboolean ok = mc_denoise_picture (&pc, rp, fp, wp, n_refs, &po, &ref_opt,
      &error);
  if (!ok)
    printf ("  %s: %s: the reference failed: %s\n", label, what,
        error->message);
  /* the implementation, its inputs and output where `mem` says */
  guint8 *dc[3] = { NULL }, *dr[MC_DENOISE_MAX_REFS][3], *dout[3] = { NULL };
  memset (dr, 0, sizeof dr);
  pic_of (&po, chroma, got, cur.np);
  if (ok && (opt.device & MC_DEVICE_INPUTS)) {
    ok = pic_to_device (cur.ref, cur.np, &pc, dc, &error);
    for (unsigned i = 0; ok && i < n_refs; i++)
      ok = pic_to_device (refs[i].ref, refs[i].np, &pr[i], dr[i], &error);
  }
  if (ok && (opt.device & MC_DEVICE_OUTPUT))
    ok = pic_to_device (got, cur.np, &po, dout, &error);
  if (ok) {
    ok = mc_denoise_picture (&pc, rp, fp, wp, n_refs, &po, &opt, &error);
    if (!ok)
      printf ("  %s: %s: %s\n", label, what, error->message);
  }
  for (unsigned i = 0; ok && dout[0] && i < cur.np; i++)
    if (dout[i])
      ok = mc_cuda_copy (got[i].buf, dout[i], got[i].size, &error);
  for (unsigned i = 0; ok && i < cur.np; i++) {
    char pw[240];
    g_snprintf (pw, sizeof pw, "%s, plane %u", what, i);
    ok = same_bytes (&want[i], &got[i], pw, label);
  }
  g_clear_error (&error);
  for (unsigned i = 0; i < 3; i++) {
    mc_cuda_free (dc[i]);
    mc_cuda_free (dout[i]);
    for (unsigned j = 0; j < n_refs; j++)
      mc_cuda_free (dr[j][i]);
  }
  for (unsigned i = 0; i < cur.np; i++) {
    buf_free (&want[i]);
    buf_free (&got[i]);
  }
  for (unsigned i = 0; i < n_refs; i++) {
    pic_free (&refs[i]);
    g_free (flds[i].cells);
    g_free (wts[i]);
  }
  pic_free (&cur);
  return ok;
}

/* One random mc_sigma_filter_plane(): a plane of random layout, depth
 * and samples (noise or a ramp), radius 1 .. 3, a threshold from 0 (a
 * copy) to past the depth's range; `impl` (planes where `mem` says)
 * against the C reference on one thread, outputs poisoned alike. */
static gboolean
check_sigma_case (const MCImpl * impl, Mem mem, unsigned threads, unsigned n,
    const char *label)
{
  unsigned depth, shift;
  random_format (&depth, &shift);
  const unsigned bps = depth > 8 ? 2 : 1;
  const unsigned w = n == 0 ? 640 : random_side (), h = n == 0 ? 360
      : random_side ();
  const unsigned radius = RAND (1, MC_SIGMA_MAX_RADIUS);
  const unsigned maxv = (1u << depth) - 1;
  const unsigned tk = RAND (0, 3);
  const unsigned threshold = tk == 0 ? 0 : tk == 1 ? MIN (maxv + RAND (0, 9), 65535)
      : (unsigned) RAND (1, (int) MAX (maxv / 8, 1));
  Buf in, out, want;
  dn_buf_init (&in, w, h, depth, shift, bps * RAND (1, 3));
  buf_fill (&in);
  dn_buf_init (&out, w, h, depth, RAND (0, 1) ? shift : 0, bps * RAND (1,
          3));
  buf_twin (&want, &out);
  buf_poison (&out, 0x3c);
  buf_poison (&want, 0x3c);
  MCOptions opt;
  mc_options_init (&opt);
  GError *err = NULL;
  gboolean ok = mc_sigma_filter_plane (&in.p, &want.p, radius, threshold,
      &opt, &err);
  char what[160];
  g_snprintf (what, sizeof what, "sigma case %u: %ux%u, %u bits shift %u, "
      "radius %u, threshold %u", n, w, h, depth, shift, radius, threshold);
  if (!ok)
    printf ("  %s: %s: the reference failed: %s\n", label, what,
        err->message);
  guint8 *din = NULL, *dout = NULL;
  MCPlane pin = in.p, pout = out.p;
  opt.impl = impl;
  opt.threads = threads;
  opt.device = mem_flags[mem];
  if (ok && (opt.device & MC_DEVICE_INPUTS)) {
    din = to_device (&in, &err);
    ok = din != NULL;
    if (ok)
      pin.data = dev_data (din, &in);
  }
  if (ok && (opt.device & MC_DEVICE_OUTPUT)) {
    dout = to_device (&out, &err);
    ok = dout != NULL;
    if (ok)
      pout.data = dev_data (dout, &out);
  }
  if (ok) {
    ok = mc_sigma_filter_plane (&pin, &pout, radius, threshold, &opt, &err);
    if (!ok)
      printf ("  %s: %s: %s\n", label, what, err->message);
  }
  if (ok && dout)
    ok = mc_cuda_copy (out.buf, dout, out.size, &err);
  ok = ok && same_bytes (&want, &out, what, label);
  g_clear_error (&err);
  mc_cuda_free (din);
  mc_cuda_free (dout);
  buf_free (&in);
  buf_free (&out);
  buf_free (&want);
  return ok;
}

static gboolean
check_sigma_cases (const MCImpl * impl, Mem mem, unsigned threads,
    unsigned count, const char *label)
{
  for (unsigned n = 0; n < count; n++)
    if (!check_sigma_case (impl, mem, threads, n, label))
      return FALSE;
  return TRUE;
}

static gboolean
check_dnpic_cases (const MCImpl * impl, Mem mem, unsigned threads,
    unsigned count, const char *label)
{
  for (unsigned n = 0; n < count; n++)
    if (!check_dnpic_case (impl, mem, threads, n, label))
      return FALSE;
  return TRUE;
}

static gboolean
check_denoise_cases (const MCImpl * impl, unsigned threads, unsigned count,
    const char *label)
{
  for (unsigned n = 0; n < count; n++)
    if (!check_denoise_case (impl, threads, n, label))
      return FALSE;
  return TRUE;
}

/* ---- warps ---------------------------------------------------------------- */

/* A random map: near the identity (a stabiliser's: small rotation, zoom
 * and shift, sub-sample everywhere), the identity or an integer shift
 * (fractions 0), or anything within the limits (far outside the input,
 * mirrored, sheared). */
static void
random_warp (MCWarp * w, unsigned width, unsigned height)
{
  switch (RAND (0, 5)) {
    case 0:
      w->xx = w->yy = MC_WARP_ONE;
      w->xy = w->yx = 0;
      w->x0 = (int64_t) RAND (-8, 8) * MC_WARP_ONE;
      w->y0 = (int64_t) RAND (-8, 8) * MC_WARP_ONE;
      break;
    case 1:{
      /* anywhere the limits reach */
      w->xx = RAND (-MC_WARP_MAX_COEF, MC_WARP_MAX_COEF);
      w->xy = RAND (-MC_WARP_MAX_COEF, MC_WARP_MAX_COEF);
      w->yx = RAND (-MC_WARP_MAX_COEF, MC_WARP_MAX_COEF);
      w->yy = RAND (-MC_WARP_MAX_COEF, MC_WARP_MAX_COEF);
      const int64_t big = MC_WARP_MAX_SHIFT;
      w->x0 = RAND (0, 1) ? (int64_t) RAND (-65536, 65536) * 65536
          + RAND (0, 65535) : RAND (0, 1) ? big : -big;
      w->y0 = (int64_t) RAND (-65536, 65536) * 65536 + RAND (0, 65535);
      break;
    }
    default:{
      /* a similarity about the centre, as a stabiliser makes */
      const double a = (RAND (-2000, 2000) / 1000.0) * G_PI / 180.0 * 5;
      const double z = 1.0 + RAND (-150, 150) / 1000.0;
      const double c = cos (a) * z, sn = sin (a) * z;
      const double cx = width / 2.0, cy = height / 2.0;
      const double dx = RAND (-4000, 4000) / 1000.0;
      const double dy = RAND (-4000, 4000) / 1000.0;
      mc_warp_from_double (w, c, -sn, sn, c, cx - c * cx + sn * cy + dx,
          cy - sn * cx - c * cy + dy, NULL);
      break;
    }
  }
}

/* One random picture warped by the reference (C, one thread) and by
 * `impl` with its planes where `mem` says: every plane, every byte. */
static gboolean
check_warp_case (const MCImpl * impl, Mem mem, unsigned threads, unsigned n,
    const char *label)
{
  unsigned depth, shift;
  random_format (&depth, &shift);
  const MCChroma chroma = (MCChroma) RAND (0, 3);
  const unsigned w = random_side (), h = random_side ();
  /* the output mostly the input's size, now and then another */
  const unsigned ow = RAND (0, 3) ? w : random_side ();
  const unsigned oh = RAND (0, 3) ? h : random_side ();
  Pic in, shape;
  Layout lay, olay;
  layout_random (&lay, chroma, (LayoutKind) RAND (0, 2));
  pic_init (&in, chroma, w, h, depth, shift, &lay);
  /* the output's plane sizes */
  shape.np = in.np;
  for (unsigned i = 0; i < in.np; i++) {
    shape.pw[i] = i ? (ow + in.sx) >> in.sx : ow;
    shape.ph[i] = i ? (oh + in.sy) >> in.sy : oh;
  }
  MCWarp wp;
  random_warp (&wp, w, h);
  MCOptions ref_opt, opt;
  mc_options_init (&ref_opt);
  opt = ref_opt;
  opt.impl = impl;
  opt.threads = threads;
  opt.device = mem_flags[mem];
  const unsigned oshift = depth == 8 ? 0 : RAND (0, 16 - depth);
  Buf want[3], got[3];
  layout_random (&olay, chroma, (LayoutKind) RAND (0, 2));
  layout_alloc (want, &olay, in.np, shape.pw, shape.ph, depth, oshift, 0x5a);
  pic_twin (got, want, in.np);
  char what[256];
  g_snprintf (what, sizeof what, "warp case %u: %ux%u to %ux%u %s, %s to "
      "%s, %u bits shift %u, map (%d %d %d %d) + (%" G_GINT64_FORMAT " %"
      G_GINT64_FORMAT ")/65536", n, w, h, ow, oh, chroma_names[chroma],
      layout_names[lay.kind], layout_names[olay.kind], depth, shift, wp.xx,
      wp.xy, wp.yx, wp.yy, wp.x0, wp.y0);
  GError *error = NULL;
  MCPicture pi, po;
  pic_of (&pi, chroma, in.ref, in.np);
  pic_of (&po, chroma, want, in.np);
  gboolean ok = mc_warp_picture (&pi, &po, &wp, &ref_opt, &error);
  if (!ok)
    printf ("  %s: %s: the reference failed: %s\n", label, what,
        error->message);
  guint8 *din[3] = { NULL }, *dout[3] = { NULL };
  pic_of (&po, chroma, got, in.np);
  if (ok && (opt.device & MC_DEVICE_INPUTS))
    ok = pic_to_device (in.ref, in.np, &pi, din, &error);
  if (ok && (opt.device & MC_DEVICE_OUTPUT))
    ok = pic_to_device (got, in.np, &po, dout, &error);
  if (ok) {
    ok = mc_warp_picture (&pi, &po, &wp, &opt, &error);
    if (!ok)
      printf ("  %s: %s: %s\n", label, what, error->message);
  }
  for (unsigned i = 0; ok && dout[0] && i < in.np; i++)
    if (dout[i])
      ok = mc_cuda_copy (got[i].buf, dout[i], got[i].size, &error);
  for (unsigned i = 0; ok && i < in.np; i++) {
    char pw[300];
    g_snprintf (pw, sizeof pw, "%s, plane %u", what, i);
    ok = same_bytes (&want[i], &got[i], pw, label);
  }
  g_clear_error (&error);
  for (unsigned i = 0; i < 3; i++) {
    mc_cuda_free (din[i]);
    mc_cuda_free (dout[i]);
  }
  for (unsigned i = 0; i < in.np; i++) {
    buf_free (&want[i]);
    buf_free (&got[i]);
  }
  pic_free (&in);
  return ok;
}

static gboolean
check_warp_cases (const MCImpl * impl, Mem mem, unsigned threads,
    unsigned count, const char *label)
{
  for (unsigned n = 0; n < count; n++)
    if (!check_warp_case (impl, mem, threads, n, label))
      return FALSE;
  return TRUE;
}

/* ---- the groups ---------------------------------------------------------- */

static gboolean
check_cases (const MCImpl * impl, Mem mem, unsigned threads, unsigned count,
    const char *label)
{
  for (unsigned n = 0; n < count; n++)
    if (!check_case (impl, mem, threads, n, label))
      return FALSE;
  return TRUE;
}

int
checkasm_check_mc (const char *which)
{
  const gboolean want_c = !which || !strcmp (which, "c");
  const gboolean want_cuda = !which || !strcmp (which, "cuda");
  const gboolean want_cpu = !which || !strcmp (which, "cpu");
  char label[64];

  if (which && !want_c && !want_cuda && !want_cpu) {
    fprintf (stderr, "checkasm: --test mc takes --backend c, cpu or cuda, "
        "not %s\n", which);
    return 2;
  }
  if (want_cpu) {
    /* every level this machine runs, on one thread and on two */
    unsigned levels = 0;
    for (int l = 0; l < MC_CPU_N_LEVELS; l++) {
      const MCImpl *impl = mc_impl_cpu_level ((MCCpuLevel) l);
      if (!impl) {
        printf ("  mc cpu level %d: not on this machine or build\n", l);
        continue;
      }
      levels++;
      for (unsigned t = 1; t <= 2; t++) {
        g_snprintf (label, sizeof label, "mc %s, %u thread%s, vs c",
            impl->name, t, t > 1 ? "s" : "");
        checkasm_report (label, check_cases (impl, MEM_HOST, t, t == 1
                ? 300 : 60, label));
        g_snprintf (label, sizeof label, "mc interpolate %s, %u thread%s, "
            "vs c", impl->name, t, t > 1 ? "s" : "");
        checkasm_report (label, check_interp_cases (impl, MEM_HOST, t,
                t == 1 ? 200 : 40, label));
        g_snprintf (label, sizeof label, "mc bilateral costs %s, %u "
            "thread%s, vs c", impl->name, t, t > 1 ? "s" : "");
        checkasm_report (label, check_bi_cases (impl, MEM_HOST, t,
                t == 1 ? 200 : 40, label));
        g_snprintf (label, sizeof label, "mc denoise picture %s, %u "
            "thread%s, vs c", impl->name, t, t > 1 ? "s" : "");
        checkasm_report (label, check_dnpic_cases (impl, MEM_HOST, t,
                t == 1 ? 120 : 30, label));
        g_snprintf (label, sizeof label, "mc sigma filter %s, %u "
            "thread%s, vs c", impl->name, t, t > 1 ? "s" : "");
        checkasm_report (label, check_sigma_cases (impl, MEM_HOST, t,
                t == 1 ? 120 : 30, label));
        g_snprintf (label, sizeof label, "mc warp %s, %u thread%s, vs c",
            impl->name, t, t > 1 ? "s" : "");
        checkasm_report (label, check_warp_cases (impl, MEM_HOST, t,
                t == 1 ? 300 : 60, label));
      }
    }
    /* the best level is one of them */
    const MCImpl *best = mc_impl_cpu ();
    gboolean found = FALSE;
    for (int l = 0; l < MC_CPU_N_LEVELS; l++)
      found |= best && best == mc_impl_cpu_level ((MCCpuLevel) l);
    checkasm_report ("mc cpu, best level is a checked one", levels > 0
        && found);
  }
  if (want_c) {
    /* the reference on threads against itself on one */
    static const unsigned threads[] = { 2, 3, 4, 7 };
    for (unsigned i = 0; i < G_N_ELEMENTS (threads); i++) {
      g_snprintf (label, sizeof label, "mc c, %u threads, vs c", threads[i]);
      checkasm_report (label, check_cases (mc_impl_c (), MEM_HOST,
              threads[i], 40, label));
    }
    for (unsigned i = 0; i < G_N_ELEMENTS (threads); i++) {
      g_snprintf (label, sizeof label, "mc denoise c, %u threads, vs c",
          threads[i]);
      checkasm_report (label, check_denoise_cases (mc_impl_c (), threads[i],
              60, label));
    }
    /* an implementation without denoising of its own takes the C
     * reference's */
    g_snprintf (label, sizeof label, "mc denoise through cpu, 2 threads, "
        "vs c");
    checkasm_report (label, check_denoise_cases (mc_impl_cpu (), 2, 20,
            label));
    checkasm_report ("mc c, device planes refused", check_c_refuses_device ());
    g_snprintf (label, sizeof label, "mc cuda kernels' code on the host vs c");
    checkasm_report (label, check_cases (&host_sample_impl, MEM_HOST, 1, 150,
            label));
    g_snprintf (label, sizeof label, "mc bilateral costs c, 3 threads, "
        "vs c");
    checkasm_report (label, check_bi_cases (mc_impl_c (), MEM_HOST, 3, 40,
            label));
    for (unsigned i = 0; i < G_N_ELEMENTS (threads); i += 2) {
      g_snprintf (label, sizeof label, "mc interpolate c, %u threads, vs c",
          threads[i]);
      checkasm_report (label, check_interp_cases (mc_impl_c (), MEM_HOST,
              threads[i], 40, label));
    }
    g_snprintf (label, sizeof label,
        "mc interpolate, kernels' code on host vs c");
    checkasm_report (label, check_interp_cases (&host_sample_impl, MEM_HOST,
            1, 60, label));
    g_snprintf (label, sizeof label,
        "mc denoise picture, kernels' code on host vs c");
    checkasm_report (label, check_dnpic_cases (&host_sample_impl, MEM_HOST,
            1, 40, label));
    g_snprintf (label, sizeof label,
        "mc sigma filter, kernels' code on host vs c");
    checkasm_report (label, check_sigma_cases (&host_sample_impl, MEM_HOST,
            1, 60, label));
    g_snprintf (label, sizeof label, "mc sigma filter c, 3 threads, vs c");
    checkasm_report (label, check_sigma_cases (mc_impl_c (), MEM_HOST, 3, 40,
            label));
    g_snprintf (label, sizeof label, "mc denoise picture c, 3 threads, "
        "vs c");
    checkasm_report (label, check_dnpic_cases (mc_impl_c (), MEM_HOST, 3, 30,
            label));
    for (unsigned i = 0; i < G_N_ELEMENTS (threads); i++) {
      g_snprintf (label, sizeof label, "mc warp c, %u threads, vs c",
          threads[i]);
      checkasm_report (label, check_warp_cases (mc_impl_c (), MEM_HOST,
              threads[i], 60, label));
    }
    g_snprintf (label, sizeof label, "mc warp, kernels' code on host vs c");
    checkasm_report (label, check_warp_cases (&host_sample_impl, MEM_HOST, 1,
            150, label));
  }
  if (want_cuda) {
    GError *error = NULL;
    const MCImpl *cuda = mc_impl_cuda (&error);
    if (!cuda) {
      printf ("SKIP: mc cuda: %s\n", error->message);
      g_error_free (error);
      return which ? 77 : 0;
    }
    for (Mem m = MEM_HOST; m <= MEM_OUT; m++) {
      g_snprintf (label, sizeof label, "mc cuda, %s planes, vs c",
          mem_names[m]);
      checkasm_report (label, check_cases (cuda, m, 1, m == MEM_HOST ? 300
              : m == MEM_DEVICE ? 100 : 50, label));
    }
    for (Mem m = MEM_HOST; m <= MEM_OUT; m++) {
      g_snprintf (label, sizeof label, "mc interpolate cuda, %s planes, vs c",
          mem_names[m]);
      checkasm_report (label, check_interp_cases (cuda, m, 1, m == MEM_HOST
              ? 150 : m == MEM_DEVICE ? 60 : 40, label));
    }
    for (Mem m = MEM_HOST; m <= MEM_OUT; m++) {
      g_snprintf (label, sizeof label, "mc sigma filter cuda, %s planes, "
          "vs c", mem_names[m]);
      checkasm_report (label, check_sigma_cases (cuda, m, 1, 60, label));
    }
    for (Mem m = MEM_HOST; m <= MEM_OUT; m++) {
      g_snprintf (label, sizeof label, "mc denoise picture cuda, %s planes, "
          "vs c", mem_names[m]);
      checkasm_report (label, check_dnpic_cases (cuda, m, 1, m == MEM_HOST
              ? 120 : 50, label));
    }
    for (Mem m = MEM_HOST; m <= MEM_MIXED; m += MEM_MIXED - MEM_HOST) {
      g_snprintf (label, sizeof label, "mc bilateral costs cuda, %s planes, "
          "vs c", m == MEM_HOST ? "host" : "device");
      checkasm_report (label, check_bi_cases (cuda, m, 1, 150, label));
    }
    for (Mem m = MEM_HOST; m <= MEM_OUT; m++) {
      g_snprintf (label, sizeof label, "mc warp cuda, %s planes, vs c",
          mem_names[m]);
      checkasm_report (label, check_warp_cases (cuda, m, 1, m == MEM_HOST
              ? 200 : 60, label));
    }
    checkasm_report ("mc cuda, bad input", check_cuda_errors (cuda));
  }
  return 0;
}
