/* gpumotionest — fuzz target: the motion-compensation library's entry
 * points, mc_predict_plane() and mc_interpolate_picture(), with any
 * arguments.
 *
 * mc.h promises that every call checks its arguments and answers bad ones
 * with MC_ERROR_INVALID before an implementation sees them.  The input
 * describes the planes (size, depth, shift, stride, alignment, chroma),
 * the fields (block size, grid, stride, cells with vectors and costs up
 * to the int16 and uint32 edges), the time, the mode and the options,
 * many of them outside what the library takes.  The memory behind every
 * plane and field is allocated as described whenever the description is
 * one the library may accept (a size within its limits), so that a read
 * or write outside it is the library's: AddressSanitizer reports it.
 * Sizes beyond the library's limits (0, above 16384) are described over a
 * small block, which only a refusal leaves unread.
 *
 * Checked: a refusal is FALSE with an MC_ERROR; success is TRUE without
 * one; nothing is written outside the output plane's rows (guard bytes
 * before and after each output block, and the padding at the end of each
 * row, keep their pattern); high-bit-depth output words hold a sample of
 * `depth` bits shifted by `shift` and nothing else; an interpolation on
 * several threads gives the bytes of the same call on one.  With
 * FUZZ_VERBOSE=1 each call's answer (ok, or the error) is printed.
 */
#include "fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc.h"

/* A broken invariant: the message, then abort() (a signal libFuzzer
 * catches and saves the input for, which g_error()'s trap is not). */
static void fail (const char *fmt, ...) G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN;

static void
fail (const char *fmt, ...)
{
  va_list args;

  va_start (args, fmt);
  vfprintf (stderr, fmt, args);
  va_end (args);
  fputc ('\n', stderr);
  abort ();
}

#define GUARD 64
#define GUARD_BYTE 0xA5
#define MAX_SIDE 2048
#define MAX_SAMPLES 4096        /* per plane: keeps one input fast */

typedef struct {
  MCPlane p;
  guint8 *block;                /* GUARD, the plane's bytes, GUARD */
  guint8 *samples;              /* where the plane's bytes are (p.data,
                                 * unless the description says NULL) */
  gsize bytes;                  /* of the plane, between the guards */
  gboolean real;                /* the memory covers the description */
} Plane;

/* Values outside the library's limits that must be refused before any
 * sample is read. */
static const guint bad_sides[] = { 0, 16385, 65535, 1u << 31, G_MAXUINT };

/* The padding at the end of each row but the last marked with the guard
 * pattern: a call must leave it so. */
static void
reset_padding (Plane * pl)
{
  guint bps = pl->p.depth > 8 ? 2 : 1;

  if (!pl->real)
    return;
  for (guint y = 0; y + 1 < pl->p.height; y++)
    memset (pl->samples + (gsize) y * pl->p.stride + (gsize) pl->p.width * bps,
        GUARD_BYTE, pl->p.stride - (gsize) pl->p.width * bps);
}

static void
plane_alloc (Plane * pl, guint w, guint h, guint depth, guint shift,
    FuzzInput * in)
{
  guint8 how = fuzz_u8 (in);
  guint bps = depth > 8 ? 2 : 1;
  gsize row = (gsize) w * bps;
  ptrdiff_t stride = (ptrdiff_t) row + (how & 3) * bps * (how & 4 ? 7 : 1);

  memset (pl, 0, sizeof (*pl));
  if (how & 8) {
    /* a stride too short for the row, or negative */
    stride = (how & 16) ? -(ptrdiff_t) row : (ptrdiff_t) row - 1;
  }
  /* (the chroma of a luma plane beyond the limits, 16385 wide, is within
   * them: it is described over a small block too, since the luma is
   * checked and refused first) */
  pl->real = w >= 1 && h >= 1 && w <= 16384 && h <= 16384 && stride >= 0
      && (gsize) stride >= row && (guint64) w * h <= 4 * MAX_SAMPLES;
  pl->bytes = pl->real ? (gsize) stride * (h - 1) + row : 256;
  /* one byte more when the samples are to be misaligned */
  pl->block = g_malloc (pl->bytes + 2 * GUARD + 1);
  memset (pl->block, GUARD_BYTE, pl->bytes + 2 * GUARD + 1);
  pl->samples = pl->block + GUARD + ((how & 32) && bps == 2 ? 1 : 0);
  pl->p.data = pl->samples;
  pl->p.stride = stride;
  pl->p.width = w;
  pl->p.height = h;
  pl->p.depth = depth;
  pl->p.shift = shift;
  if (pl->real) {
    fuzz_fill (pl->samples, pl->bytes, fuzz_u8 (in));
    reset_padding (pl);
  }
  if (how & 64)
    pl->p.data = NULL;
}

static void
plane_free (Plane * pl)
{
  g_free (pl->block);
}

/* Guards, row padding and sample values of an output plane. */
static void
check_output (const Plane * pl, gboolean written)
{
  const guint8 *start = pl->block, *end;
  gsize total = pl->bytes + 2 * GUARD + 1;
  guint bps = pl->p.depth > 8 ? 2 : 1;

  end = pl->samples + pl->bytes;
  for (const guint8 * q = start; q < start + total; q++) {
    if (pl->real && q >= pl->samples && q < end)
      continue;
    if (*q != GUARD_BYTE)
      fail ("byte %td of the output block (plane at %d, %zu bytes) "
          "written", q - start, GUARD, pl->bytes);
  }
  if (!written || !pl->real)
    return;
  for (guint y = 0; y < pl->p.height; y++) {
    const guint8 *r = pl->p.data + (gsize) y * pl->p.stride;
    gsize row = (gsize) pl->p.width * bps;

    if (y + 1 < pl->p.height)
      for (gsize i = row; i < (gsize) pl->p.stride; i++)
        if (r[i] != GUARD_BYTE)
          fail ("row %u: padding byte %zu written", y, i);
    if (bps == 2)
      for (guint x = 0; x < pl->p.width; x++) {
        guint16 v;
        memcpy (&v, r + 2 * x, 2);
        if ((v & ((1u << pl->p.shift) - 1))
            || (guint) (v >> pl->p.shift) >= (1u << pl->p.depth))
          fail ("(%u, %u): word 0x%04x is no %u-bit sample << %u", x, y,
              v, pl->p.depth, pl->p.shift);
      }
  }
}

typedef struct {
  MCField f;
  GstMotionVectorCell *cells;
} Field;

static const guint block_sides[] = { 16, 8, 4, 16, 8, 4, 0, 1, 2, 3, 5, 12,
  32, 64, G_MAXUINT
};

/* A field over a w x h luma plane: covering it, or not. */
static void
field_make (Field * fd, guint w, guint h, FuzzInput * in)
{
  guint8 how = fuzz_u8 (in);
  guint bw = block_sides[fuzz_u8 (in) % G_N_ELEMENTS (block_sides)];
  guint bh = (how & 1) ? block_sides[fuzz_u8 (in) % G_N_ELEMENTS
      (block_sides)] : bw;
  guint cols, rows;
  gsize stride, n;

  memset (fd, 0, sizeof (*fd));
  cols = bw ? (guint) MIN ((w + bw - 1) / bw, 255) : 1;
  rows = bh ? (guint) MIN ((h + bh - 1) / bh, 255) : 1;
  if (how & 2) {
    /* any grid, maybe too small to cover the plane, maybe empty */
    cols = fuzz_u8 (in);
    rows = fuzz_u8 (in);
  } else {
    cols += fuzz_u8 (in) % 3;
    rows += fuzz_u8 (in) % 3;
  }
  cols = MAX (cols, (how & 4) ? 0 : 1);
  rows = MAX (rows, (how & 4) ? 0 : 1);
  stride = (how & 8) ? cols + fuzz_u8 (in) % 4 : 0;
  if ((how & 16) && cols > 1)
    stride = cols - 1;          /* too short: refused */
  n = (stride ? MAX (stride, cols) : cols) * (gsize) MAX (rows, 1);
  fd->cells = g_new0 (GstMotionVectorCell, MAX (n, 1));
  fuzz_fill ((guint8 *) fd->cells, MAX (n, 1) * sizeof (*fd->cells),
      fuzz_u8 (in));
  if (!(how & 32)) {
    /* vectors within a few pixels, costs small: a plausible search */
    for (gsize i = 0; i < n; i++) {
      fd->cells[i].mv_x %= 64;
      fd->cells[i].mv_y %= 64;
      fd->cells[i].cost %= 4096;
    }
  }
  for (guint k = fuzz_u8 (in) % 4; k > 0 && n > 0; k--) {
    gsize i = fuzz_u16 (in) % n;
    fd->cells[i].mv_x = (gint16) fuzz_u32_edgy (in);
    fd->cells[i].mv_y = (gint16) fuzz_u32_edgy (in);
    fd->cells[i].cost = fuzz_u32_edgy (in);
  }
  fd->f.block_w = bw;
  fd->f.block_h = bh;
  fd->f.cols = cols;
  fd->f.rows = rows;
  fd->f.stride = stride;
  fd->f.cells = (how & 64) ? NULL : fd->cells;
}

static void
check_result (gboolean ok, GError * err)
{
  if (g_getenv ("FUZZ_VERBOSE"))
    fprintf (stderr, "%s\n", ok ? "ok" : err ? err->message : "no error");
  if (ok)
    g_assert_no_error (err);
  else {
    g_assert (err != NULL);
    g_assert (err->domain == MC_ERROR);
    g_assert (err->message && err->message[0]);
  }
}

static void
pick_size (FuzzInput * in, guint * w, guint * h, guint * depth, guint * shift)
{
  guint8 how = fuzz_u8 (in);

  *w = 1 + fuzz_u16 (in) % MAX_SIDE;
  *h = 1 + fuzz_u16 (in) % MAX_SIDE;
  if ((guint64) * w * *h > MAX_SAMPLES)
    *h = MAX (1, MAX_SAMPLES / *w);
  if (how & 1)
    *w = bad_sides[fuzz_u8 (in) % G_N_ELEMENTS (bad_sides)];
  if (how & 2)
    *h = bad_sides[fuzz_u8 (in) % G_N_ELEMENTS (bad_sides)];
  *depth = (how & 4) ? fuzz_u8 (in) % 20 : (how & 8) ? 10 : 8;
  *shift = (how & 16) ? fuzz_u8 (in) % 18 : 0;
  if (!(how & 16) && *depth > 8 && *depth <= 16 && (how & 32))
    *shift = 16 - *depth;
}

static void
pick_options (MCOptions * opt, FuzzInput * in)
{
  guint8 how = fuzz_u8 (in);

  mc_options_init (opt);
  opt->obmc = !(how & 1);
  opt->threads = (how >> 1) & 3;
  if (how & 8)
    opt->device = (MCDevice) ((how >> 4) & 7);
}

static void
fuzz_predict (FuzzInput * in)
{
  guint w, h, depth, shift, sub_x, sub_y;
  Plane ref, out;
  Field fd;
  MCOptions opt;
  GError *err = NULL;
  gboolean ok;
  guint8 how;

  pick_size (in, &w, &h, &depth, &shift);
  how = fuzz_u8 (in);
  sub_x = (how & 3) == 3 ? 2 : (how & 1);
  sub_y = (how & 12) == 12 ? 7 : (how >> 3) & 1;
  plane_alloc (&ref, w, h, depth, shift, in);
  plane_alloc (&out, (how & 16) ? w + 1 : w, h, depth, shift, in);
  /* the field covers the luma plane the (sub)sampled one comes from */
  field_make (&fd, w << MIN (sub_x, 1), h << MIN (sub_y, 1), in);
  pick_options (&opt, in);

  if ((how & 32) && out.real && ref.real)
    ok = mc_predict_plane (&ref.p, &ref.p, &fd.f, sub_x, sub_y, &opt, &err);
  else
    ok = mc_predict_plane (&ref.p, &out.p, &fd.f, sub_x, sub_y, &opt, &err);
  check_result (ok, err);
  g_clear_error (&err);
  check_output (&out, ok);
  check_output (&ref, FALSE);   /* read only: guards unchanged */
  plane_free (&ref);
  plane_free (&out);
  g_free (fd.cells);
}

typedef struct {
  MCPicture pic;
  Plane planes[3];
} Picture;

static void
picture_alloc (Picture * pc, MCChroma chroma, guint w, guint h, guint depth,
    guint shift, FuzzInput * in)
{
  guint sx = chroma == MC_CHROMA_420 || chroma == MC_CHROMA_422;
  guint sy = chroma == MC_CHROMA_420;
  guint n = chroma == MC_CHROMA_NONE ? 1 : 3;

  memset (pc, 0, sizeof (*pc));
  pc->pic.chroma = chroma;
  for (guint i = 0; i < 3; i++) {
    guint pw = i ? (w + sx) >> sx : w, ph = i ? (h + sy) >> sy : h;

    if (i >= n || (chroma > MC_CHROMA_444 && i > 0)) {
      pw = ph = 1;
    }
    plane_alloc (&pc->planes[i], pw, ph, depth, shift, in);
    pc->pic.planes[i] = pc->planes[i].p;
  }
}

static void
picture_free (Picture * pc)
{
  for (guint i = 0; i < 3; i++)
    plane_free (&pc->planes[i]);
}

static void
fuzz_interpolate (FuzzInput * in)
{
  guint w, h, depth, shift;
  guint8 how = fuzz_u8 (in), how2 = fuzz_u8 (in);
  MCChroma chroma = (MCChroma) (fuzz_u8 (in) % 5);
  Picture prev, next, out, out1;
  Field nf, pf;
  MCOptions opt;
  GError *err = NULL;
  unsigned n_fallback = 12345;
  gboolean ok;
  int num, den;
  MCInterpMode mode;

  pick_size (in, &w, &h, &depth, &shift);
  picture_alloc (&prev, chroma, w, h, depth, shift, in);
  picture_alloc (&next, chroma, w, h, depth, shift, in);
  picture_alloc (&out, chroma, w, h, depth, shift, in);
  field_make (&nf, w, h, in);
  if (how & 1)
    field_make (&pf, w, h, in);        /* any grid: maybe another one */
  else {
    pf = nf;
    pf.cells = g_memdup2 (nf.cells, sizeof (*nf.cells) * MAX ((nf.f.stride ?
                MAX (nf.f.stride, nf.f.cols) : nf.f.cols) * (gsize) MAX
            (nf.f.rows, 1), 1));
    fuzz_fill ((guint8 *) pf.cells, sizeof (guint32), fuzz_u8 (in));
    pf.f.cells = nf.f.cells ? pf.cells : NULL;
  }
  if (how & 2) {
    den = (int) fuzz_u32_edgy (in);
    num = (int) fuzz_u32_edgy (in);
  } else {
    den = 1 + fuzz_u16 (in);
    num = fuzz_u16 (in) % (den + 1);
  }
  mode = (MCInterpMode) (fuzz_u8 (in) % 4);
  pick_options (&opt, in);

  /* what the pictures disagree on */
  if (how & 4)
    out.pic.chroma = (MCChroma) ((chroma + 1) % 4);
  if (how & 8)
    next.pic.planes[how2 % 3].width++;
  if (how & 16)
    out.pic.planes[0].depth = depth == 8 ? 10 : 8;
  if (how & 32)
    out.pic.planes[how2 % 3] = prev.pic.planes[(how2 >> 2) % 3];
  if (how & 64)
    pf.f.block_w = nf.f.block_w == 16 ? 8 : 16;      /* not one grid */

  ok = mc_interpolate_picture (&prev.pic, &next.pic, &out.pic,
      (how & 128) ? NULL : &nf.f, &pf.f, num, den, mode, &opt, &n_fallback,
      &err);
  check_result (ok, err);
  g_clear_error (&err);
  if (!ok)
    g_assert (n_fallback == 0);
  for (guint i = 0; i < 3; i++) {
    /* a plane of the call, as made; the bytes of a plane that the call
     * was not given (redirected above) are guards too */
    gboolean given = out.pic.planes[i].data == out.planes[i].p.data
        && !(how & 32);
    check_output (&out.planes[i], ok && given && i < (chroma ==
            MC_CHROMA_NONE ? 1u : 3u));
    check_output (&prev.planes[i], FALSE);
    check_output (&next.planes[i], FALSE);
  }

  /* the same call on one thread: the same bytes */
  if (ok && opt.threads > 1 && !(how & (4 | 8 | 16 | 32))) {
    guint threads = opt.threads;
    gboolean ok1;

    /* out1: out's blocks, the samples scrambled, the padding and guards
     * as they were */
    out1 = out;
    for (guint i = 0; i < 3; i++) {
      Plane *pl = &out1.planes[i];

      pl->block = g_memdup2 (out.planes[i].block, pl->bytes + 2 * GUARD + 1);
      pl->samples = pl->block + (out.planes[i].samples - out.planes[i].block);
      pl->p.data = out.planes[i].p.data ? pl->samples : NULL;
      if (pl->real)
        fuzz_fill (pl->samples, pl->bytes, 99 + i);
      reset_padding (pl);
      out1.pic.planes[i] = pl->p;
    }
    opt.threads = 1;
    ok1 = mc_interpolate_picture (&prev.pic, &next.pic, &out1.pic,
        (how & 128) ? NULL : &nf.f, &pf.f, num, den, mode, &opt, NULL, &err);
    g_assert_no_error (err);
    g_assert (ok1);
    for (guint i = 0; i < (chroma == MC_CHROMA_NONE ? 1u : 3u); i++)
      if (memcmp (out.planes[i].block, out1.planes[i].block,
              out.planes[i].bytes + 2 * GUARD + 1) != 0)
        fail ("plane %u: %u threads and 1 thread differ", i, threads);
    picture_free (&out1);
  }

  picture_free (&prev);
  picture_free (&next);
  picture_free (&out);
  g_free (nf.cells);
  g_free (pf.cells);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* no GStreamer: mc is a plain library; criticals abort as elsewhere */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  FuzzInput in = { data, size };
  guint8 what = fuzz_u8 (&in);

  if (what & 1)
    fuzz_interpolate (&in);
  else
    fuzz_predict (&in);
  return 0;
}
