/* gst-check tests of mvdenoise: motion-compensated temporal denoising
 * behind gpumotionest references=-2,-1,+1,+2.
 *
 * Clips are drawn from a formula, so the clean frame is always known: a
 * smooth random texture (bilinear value noise on a 4-pixel lattice) that
 * stands still, pans, or carries a textured square moving over it, plus
 * Gaussian noise of a given sigma that is a function of the frame, plane
 * and position (the same noisy frame can be drawn again).  The samples
 * stay in 64 .. 191 so that noise up to sigma 20 is seldom clipped.
 *
 * Most stream tests search a clip once with gpumotionest, keep the
 * buffers with their fields, and feed them to mvdenoise alone, so that
 * what is held and when it goes out is exact; the scene-cut test runs the
 * real pair in one harness.
 */
#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#define W 160
#define H 128
#define FPS 25
#define DUR (GST_SECOND / FPS)
/* The search the docs recommend in front of mvdenoise: 8x8 blocks, on
 * which it weighs its references (docs/denoise.md, "Block size"). */
#define SEARCH_OPTS "partitions=16x16+8x8"

typedef enum
{
  CLIP_STATIC,                  /* the texture, still */
  CLIP_PAN,                     /* panning right PAN pixels a frame */
  CLIP_OBJECT,                  /* a square of another texture moving
                                 * right over the still one */
} ClipKind;

#define PAN 4                   /* luma pixels a frame; chroma 2 */
#define OBJ 48                  /* the square's side (luma) */
#define OBJ_STEP 4              /* its step a frame */

typedef struct
{
  ClipKind kind;
  guint seed;                   /* the textures */
  gdouble sigma;                /* the noise, 8-bit levels */
  GstVideoFormat format;
  gint width, height;
  gint offset;                  /* added to every clean sample */
  gboolean pale;                /* chroma near grey (RGB unclipped) */
} Clip;

static guint32
hash4 (gint x, gint y, guint a, guint b)
{
  guint32 v = (guint32) x * 73856093u ^ (guint32) y * 19349663u
      ^ (a + 1) * 83492791u ^ (b + 7) * 2654435761u;

  v ^= v >> 13;
  v *= 0x5bd1e995u;
  v ^= v >> 15;
  v *= 0x27d4eb2du;
  v ^= v >> 16;
  return v;
}

/* Value noise in 64 .. 191, exact in integers, for every integer x, y. */
static gint
tex (gint x, gint y, guint seed)
{
  gint xi = x >> 2, yi = y >> 2, fx = x & 3, fy = y & 3;
  guint a = hash4 (xi, yi, seed, 0) & 0xff;
  guint b = hash4 (xi + 1, yi, seed, 0) & 0xff;
  guint c = hash4 (xi, yi + 1, seed, 0) & 0xff;
  guint d = hash4 (xi + 1, yi + 1, seed, 0) & 0xff;
  guint top = a * (4 - fx) + b * fx, bot = c * (4 - fx) + d * fx;

  return 64 + (gint) ((top * (4 - fy) + bot * fy + 16) >> 5);
}

/* The clean sample of plane @p (luma 0, chroma subsampled by @sub) of
 * frame @i at (x, y). */
static gint clean_at_ (const Clip * c, guint i, guint p, gint x, gint y,
    gint sub);

static gint
clean_at (const Clip * c, guint i, guint p, gint x, gint y, gint sub)
{
  gint v = clean_at_ (c, i, p, x, y, sub);

  return c->pale && p > 0 ? 128 + (v - 128) / 4 : v;
}

static gint
clean_at_ (const Clip * c, guint i, guint p, gint x, gint y, gint sub)
{
  guint seed = c->seed * 5 + p;
  gint s;

  switch (c->kind) {
    case CLIP_PAN:
      s = PAN * (gint) i / sub;
      return tex (x - s, y, seed);
    case CLIP_OBJECT:{
      gint ox = (16 + OBJ_STEP * (gint) i) / sub, oy = 40 / sub;

      if (x >= ox && x < ox + OBJ / sub && y >= oy && y < oy + OBJ / sub)
        return tex (x - ox, y - oy, seed + 101);
      return tex (x, y, seed);
    }
    default:
      return tex (x, y, seed);
  }
}

/* A standard normal from two hashed uniforms (Box-Muller). */
static gdouble
gauss (guint i, guint p, gint x, gint y, guint seed)
{
  gdouble u1 = ((hash4 (x, y, i * 8 + p, seed * 2 + 1000) >> 8) + 0.5)
      / 16777216.0;
  gdouble u2 = ((hash4 (x, y, i * 8 + p, seed * 2 + 1001) >> 8) + 0.5)
      / 16777216.0;

  return sqrt (-2.0 * log (u1)) * cos (2 * G_PI * u2);
}

static gint
noisy_at (const Clip * c, guint i, guint p, gint x, gint y, gint sub)
{
  gint v = clean_at (c, i, p, x, y, sub) + c->offset;

  if (c->sigma > 0)
    v += (gint) lround (c->sigma * gauss (i, p, x, y, c->seed));
  return CLAMP (v, 0, 255);
}

static void
clip_info (const Clip * c, GstVideoInfo * info)
{
  gst_video_info_set_format (info, c->format ? c->format
      : GST_VIDEO_FORMAT_I420, c->width ? c->width : W,
      c->height ? c->height : H);
  GST_VIDEO_INFO_FPS_N (info) = FPS;
  GST_VIDEO_INFO_FPS_D (info) = 1;
}

static GstCaps *
clip_caps (const Clip * c)
{
  GstVideoInfo info;

  clip_info (c, &info);
  return gst_video_info_to_caps (&info);
}

/* Frame @i of the clip (noisy, or @clean), planar 8-bit YUV or GRAY. */
static GstBuffer *
make_frame (const Clip * c, guint i, gboolean clean)
{
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *buf;
  guint p;

  clip_info (c, &info);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_COMPONENTS (&f); p++) {
    guint8 *d = GST_VIDEO_FRAME_COMP_DATA (&f, p);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&f, p);
    gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&f, p);
    gint sub = GST_VIDEO_FRAME_COMP_WIDTH (&f, p) < GST_VIDEO_FRAME_WIDTH (&f)
        ? 2 : 1;
    gint x, y;

    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, p); y++)
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&f, p); x++)
        d[y * stride + x * ps] = clean ? clean_at (c, i, p, x, y, sub)
            + c->offset : noisy_at (c, i, p, x, y, sub);
  }
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = i * DUR;
  GST_BUFFER_DURATION (buf) = DUR;
  return buf;
}

/* The root mean square of (a - clean frame @i) over component @p (luma:
 * 0), @margin luma pixels of each border left out. */
static gdouble
rms_error (const Clip * c, GstBuffer * a, guint i, guint p, gint margin)
{
  GstVideoInfo info;
  GstVideoFrame f;
  gdouble sum = 0;
  guint64 n = 0;
  gint x, y, sub, m;

  clip_info (c, &info);
  fail_unless (gst_video_frame_map (&f, &info, a, GST_MAP_READ));
  sub = GST_VIDEO_FRAME_COMP_WIDTH (&f, p) < GST_VIDEO_FRAME_WIDTH (&f)
      ? 2 : 1;
  m = margin / sub;
  for (y = m; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, p) - m; y++)
    for (x = m; x < GST_VIDEO_FRAME_COMP_WIDTH (&f, p) - m; x++) {
      gint v = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, p))[y *
          GST_VIDEO_FRAME_COMP_STRIDE (&f, p) + x *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&f, p)];
      gdouble e = v - clean_at (c, i, p, x, y, sub) - c->offset;

      sum += e * e;
      n++;
    }
  gst_video_frame_unmap (&f);
  return sqrt (sum / n);
}

/* The largest root mean square of (a - clean frame @i) over the 8x8
 * blocks of the luma: a ghost (a reference's picture averaged in where it
 * does not match) shows there as an error above the noise's own. */
static gdouble
max_block_rms (const Clip * c, GstBuffer * a, guint i)
{
  GstVideoInfo info;
  GstVideoFrame f;
  gdouble worst = 0;
  gint bx, by, x, y;

  clip_info (c, &info);
  fail_unless (gst_video_frame_map (&f, &info, a, GST_MAP_READ));
  for (by = 0; by + 8 <= GST_VIDEO_FRAME_HEIGHT (&f); by += 8)
    for (bx = 0; bx + 8 <= GST_VIDEO_FRAME_WIDTH (&f); bx += 8) {
      gdouble sum = 0;

      for (y = by; y < by + 8; y++)
        for (x = bx; x < bx + 8; x++) {
          gdouble e = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, 0))[y *
              GST_VIDEO_FRAME_COMP_STRIDE (&f, 0) + x]
              - clean_at (c, i, 0, x, y, 1) - c->offset;

          sum += e * e;
        }
      worst = MAX (worst, sqrt (sum / 64));
    }
  gst_video_frame_unmap (&f);
  return worst;
}

static gdouble
psnr_of (gdouble rms)
{
  return 20 * log10 (255.0 / MAX (rms, 1e-3));
}

static gboolean
buffers_equal (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gboolean eq;

  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  eq = ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) == 0;
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return eq;
}

static GstHarness *
harness_for (const gchar * launch, const Clip * c)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstCaps *caps = clip_caps (c);

  gst_harness_set_src_caps (h, caps);
  return h;
}

/* Frames @start .. @start + @n - 1 of the clip searched by gpumotionest
 * (@refs, summary on), with their fields, into @out. */
static void
search_clip (const Clip * c, const gchar * refs, guint start, guint n,
    GstBuffer ** out)
{
  gchar *launch = g_strdup_printf ("gpumotionest backend=cpu references=%s "
      "summary=true " SEARCH_OPTS, refs);
  GstHarness *h = harness_for (launch, c);
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *b = make_frame (c, start + i, FALSE);

    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++) {
    out[i] = gst_harness_pull (h);
    fail_unless (out[i] != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out[i]), (start + i) * DUR);
  }
  gst_harness_teardown (h);
  g_free (launch);
}

static void
free_buffers (GstBuffer ** b, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    gst_clear_buffer (&b[i]);
}

/* The clip's frames 0 .. n - 1 through the whole pipeline @denoise (after
 * gpumotionest references=-2,-1,+1,+2), outputs into @out. */
static const gchar *search_opts = SEARCH_OPTS;

static void
run_pipeline (const Clip * c, const gchar * denoise, guint n,
    GstBuffer ** out)
{
  gchar *launch = g_strdup_printf ("gpumotionest backend=cpu "
      "references=-2,-1,+1,+2 summary=true %s ! %s", search_opts, denoise);
  GstHarness *h = harness_for (launch, c);
  guint i;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (c, i, FALSE)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++) {
    out[i] = gst_harness_try_pull (h);
    fail_unless (out[i] != NULL, "output %u of %u missing", i, n);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out[i]), i * DUR);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
  g_free (launch);
}

/* ---- noise ------------------------------------------------------------- */

/* A still textured scene with noise of sigma 10, sigma given.  A frame
 * with 4 references whose predictions all weigh 64 (a correct vector's
 * cost is within the noise level, where the weight is 64) is the mean of
 * 5 independent noisy copies: sigma / sqrt 5 = 4.47.  The frames at the
 * ends have 2 and 3 references: sigma / sqrt 3 = 5.77, sigma / 2 = 5.
 * Measured: 4.44 .. 4.59 on the 16x16 grid; on the 8x8 one 4.66 .. 4.70
 * in the luma and up to 5.03 in the chroma (the SAD of 64 samples
 * spreads more around the noise level, so more blocks weigh a little
 * under 64).  Bounds: 10 % over the mean on 16x16, 15 % on 8x8. */
static void
check_static_noise (const gchar * opts)
{
  Clip c = { CLIP_STATIC, 1, 10.0 };
  GstBuffer *out[12], *in;
  guint i, p;
  /* 8x8: its 4x4 chroma blocks take the luma's weights */
  gdouble bound = *opts ? 1.15 : 1.10;

  search_opts = opts;
  run_pipeline (&c, "mvdenoise backend=cpu sigma=10 spatial=0", 12, out);
  search_opts = SEARCH_OPTS;
  for (i = 0; i < 12; i++) {
    gdouble expect = 10.0 / sqrt (1 + MIN (i, 2) + MIN (11 - i, 2));

    in = make_frame (&c, i, FALSE);
    for (p = 0; p < 3; p++) {
      gdouble e_in = rms_error (&c, in, i, p, 0);
      gdouble e_out = rms_error (&c, out[i], i, p, 0);

      GST_INFO ("%s frame %u plane %u: rms %.3f -> %.3f (%.3f expected)",
          opts, i, p, e_in, e_out, expect);
      fail_unless (e_in > 9.5 && e_in < 10.5, "input noise %f", e_in);
      /* it may fall a little lower than the mean: a sub-pixel vector
       * averages neighbouring samples */
      fail_unless (e_out < expect * bound && e_out > expect * 0.75,
          "%s frame %u plane %u: residual %.3f, %.3f expected", opts, i, p,
          e_out, expect);
    }
    gst_buffer_unref (in);
  }
  free_buffers (out, 12);
}

GST_START_TEST (test_static_noise_falls)
{
  check_static_noise ("");
  check_static_noise (SEARCH_OPTS);
}

GST_END_TEST;

/* A textured square moving over a still textured background, noise of
 * sigma 10: denoising must not ghost (a reference's square or background
 * averaged in where the other is).  Two measures: the PSNR against the
 * clean frame (input 28.1 dB; the mean of 5 aligned copies would give
 * 35.1), and the worst 8x8 block's rms error, where a ghost shows.  On
 * the 8x8 grid (the recommended search) measured: 33.7 .. 34.0 dB, worst
 * block 11.3 .. 13.9 (the input's own worst block, noise alone, is
 * 12.3 .. 13.8).  On the 16x16 grid a block that the square's edge
 * crosses by 4 pixels still weighs about 47 of 64 and ghosts that strip:
 * 32.3 .. 33.3 dB, worst block 17 .. 24.6.  Bounds: 33 dB and 15. */
GST_START_TEST (test_moving_no_ghosting)
{
  Clip c = { CLIP_OBJECT, 2, 10.0 };
  GstBuffer *out[12], *in;
  guint i;

  run_pipeline (&c, "mvdenoise backend=cpu sigma=10 spatial=0", 12, out);
  for (i = 2; i < 10; i++) {
    gdouble p_in, p_out, worst_in, worst_out;

    in = make_frame (&c, i, FALSE);
    p_in = psnr_of (rms_error (&c, in, i, 0, 8));
    p_out = psnr_of (rms_error (&c, out[i], i, 0, 8));
    worst_in = max_block_rms (&c, in, i);
    worst_out = max_block_rms (&c, out[i], i);
    GST_INFO ("frame %u: PSNR %.2f -> %.2f dB, worst 8x8 block rms %.2f -> "
        "%.2f", i, p_in, p_out, worst_in, worst_out);
    fail_unless (p_out > 33.0, "frame %u: %.2f dB (input %.2f)", i, p_out,
        p_in);
    fail_unless (worst_out < 15.0, "frame %u: a block of rms error %.2f "
        "(input's worst %.2f): a ghost", i, worst_out, worst_in);
    gst_buffer_unref (in);
  }
  free_buffers (out, 12);
}

GST_END_TEST;

/* The same on a pan (every block moves, the references' left edge holds
 * no match).  Measured: 34.7 dB (35.1 on the 16x16 grid). */
GST_START_TEST (test_pan_no_ghosting)
{
  Clip c = { CLIP_PAN, 3, 10.0 };
  GstBuffer *out[10], *in;
  guint i;

  run_pipeline (&c, "mvdenoise backend=cpu sigma=10 spatial=0", 10, out);
  for (i = 2; i < 8; i++) {
    gdouble p_in, p_out;

    in = make_frame (&c, i, FALSE);
    p_in = psnr_of (rms_error (&c, in, i, 0, 16));
    p_out = psnr_of (rms_error (&c, out[i], i, 0, 16));
    GST_INFO ("pan frame %u: PSNR %.2f -> %.2f dB", i, p_in, p_out);
    fail_unless (p_out > 34.0 && p_out > p_in + 5.0, "frame %u: %.2f dB "
        "(input %.2f)", i, p_out, p_in);
    gst_buffer_unref (in);
  }
  free_buffers (out, 10);
}

GST_END_TEST;

/* The spatial pass (docs/denoise.md, "The spatial pass") on this file's
 * clips, fine random texture with noise of sigma 10: the worst case for a
 * sigma filter, whose threshold (2 x 4.47 levels) lets texture of that
 * contrast be averaged away with the noise.  Measured per plane, PSNR
 * without the pass and with the default: still 34.82 -> 34.66,
 * 34.59 -> 34.29, 34.69 -> 34.35 dB; pan 34.81 -> 34.62, 35.04 -> 34.78,
 * 35.05 -> 34.84.  Bound: at most 0.5 dB lost on such texture (on smooth
 * real footage the pass gains up to 5.6 dB: docs/denoise-quality.md),
 * and the pass must change the frames. */
static gdouble
mean_psnr (Clip * c, const gchar * launch, guint n, guint plane)
{
  GstBuffer *out[12], *in;
  gdouble sum = 0;
  guint i;

  run_pipeline (c, launch, n, out);
  for (i = 2; i < n - 2; i++) {
    in = make_frame (c, i, FALSE);
    sum += psnr_of (rms_error (c, out[i], i, plane, 16));
    gst_buffer_unref (in);
  }
  free_buffers (out, n);
  return sum / (n - 4);
}

GST_START_TEST (test_spatial_pass)
{
  Clip still = { CLIP_STATIC, 5, 10.0 }, pan = { CLIP_PAN, 6, 10.0 };
  guint p;

  for (p = 0; p < 3; p++) {
    gdouble s0 = mean_psnr (&still, "mvdenoise backend=cpu sigma=10 "
        "spatial=0", 10, p);
    gdouble s2 = mean_psnr (&still, "mvdenoise backend=cpu sigma=10", 10, p);
    gdouble p0 = mean_psnr (&pan, "mvdenoise backend=cpu sigma=10 spatial=0",
        10, p);
    gdouble p2 = mean_psnr (&pan, "mvdenoise backend=cpu sigma=10", 10, p);
    GST_INFO ("spatial pass, plane %u: still %.2f -> %.2f dB, pan %.2f -> "
        "%.2f dB", p, s0, s2, p0, p2);
    fail_unless (s2 > s0 - 0.5 && p2 > p0 - 0.5, "plane %u: still %.2f -> "
        "%.2f, pan %.2f -> %.2f dB", p, s0, s2, p0, p2);
    fail_unless (s2 != s0 && p2 != p0, "plane %u: the pass changed nothing",
        p);
  }
}

GST_END_TEST;

/* sigma=0 on identical (noiseless, still) frames: each output is its
 * input, byte for byte. */
GST_START_TEST (test_sigma0_identity)
{
  Clip c = { CLIP_STATIC, 4, 0.0 };
  GstBuffer *out[8];
  guint i;

  run_pipeline (&c, "mvdenoise backend=cpu sigma=0", 8, out);
  for (i = 0; i < 8; i++) {
    GstBuffer *in = make_frame (&c, i, FALSE);

    fail_unless (buffers_equal (in, out[i]), "frame %u changed", i);
    gst_buffer_unref (in);
  }
  free_buffers (out, 8);
}

GST_END_TEST;

/* The auto level: the estimate against the true sigma of a noisy
 * textured clip (the median over the last 9 frames, read after each). */
static gdouble
auto_sigma_ratio (ClipKind kind, gdouble sigma)
{
  Clip c = { kind, 5, sigma };
  GstHarness *h = harness_for ("gpumotionest backend=cpu "
      "references=-2,-1,+1,+2 summary=true " SEARCH_OPTS " ! mvdenoise "
      "backend=cpu", &c);
  GstElement *dn = gst_harness_find_element (h, "mvdenoise");
  gdouble est = 0;
  guint i;

  for (i = 0; i < 14; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&c, i, FALSE)),
        GST_FLOW_OK);
  g_object_get (dn, "sigma-estimate", &est, NULL);
  gst_object_unref (dn);
  gst_harness_teardown (h);
  GST_INFO ("kind %d sigma %.1f: estimate %.3f, ratio %.3f", kind, sigma,
      est, est / sigma);
  return est / sigma;
}

/* Measured (sigma 5, 10, 20): pan 1.000, 1.000, 0.994; object 1.000,
 * 1.000, 0.997; still 0.988, 1.000, 0.997 (before the estimator's scale
 * was set to the quantile of 16x16 blocks: 0.938 .. 0.950).  Bound: 10 %
 * either way on every clip and level. */
GST_START_TEST (test_auto_sigma)
{
  static const gdouble sigmas[] = { 5, 10, 20 };
  static const ClipKind kinds[] = { CLIP_PAN, CLIP_OBJECT, CLIP_STATIC };
  guint i, k;

  for (k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (i = 0; i < G_N_ELEMENTS (sigmas); i++) {
      gdouble r = auto_sigma_ratio (kinds[k], sigmas[i]);

      g_print ("auto sigma, clip %d, sigma %.0f: estimate / true %.3f\n",
          kinds[k], sigmas[i], r);
      fail_unless (r > 0.90 && r < 1.10, "clip %d, sigma %.0f: estimate / "
          "true %.3f", kinds[k], sigmas[i], r);
    }
}

GST_END_TEST;

/* A given sigma is used as round (16 sigma) sixteenths: sigma-estimate
 * says so (7.3 -> 117 / 16 = 7.3125), and is 0 before any frame. */
GST_START_TEST (test_sigma_given)
{
  Clip c = { CLIP_PAN, 18, 7.0 };
  GstBuffer *in[4];
  GstHarness *h;
  GstElement *dn;
  gdouble est = -1;
  guint i;

  search_clip (&c, "-2,-1,+1,+2", 0, 4, in);
  h = harness_for ("mvdenoise backend=cpu sigma=7.3", &c);
  dn = gst_harness_find_element (h, "mvdenoise");
  g_object_get (dn, "sigma-estimate", &est, NULL);
  fail_unless (est == 0.0, "%f", est);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  g_object_get (dn, "sigma-estimate", &est, NULL);
  fail_unless (est == 117 / 16.0, "%f", est);
  gst_object_unref (dn);
  gst_harness_teardown (h);
  free_buffers (in, 4);
}

GST_END_TEST;

/* ---- the stream -------------------------------------------------------- */

/* N buffers in, N out, in order, with the input's timestamps, durations,
 * flags and fields; each a new buffer. */
GST_START_TEST (test_counts_and_metadata)
{
  Clip c = { CLIP_PAN, 6, 5.0 };
  GstBuffer *in[11];
  GstHarness *h;
  guint i, n_out = 0;
  GstBuffer *b;

  search_clip (&c, "-2,-1,+1,+2", 0, 11, in);
  GST_BUFFER_FLAG_SET (in[3], GST_BUFFER_FLAG_DELTA_UNIT);
  GST_BUFFER_FLAG_SET (in[7], GST_BUFFER_FLAG_MARKER);
  GST_BUFFER_OFFSET (in[5]) = 5;
  GST_BUFFER_DTS (in[5]) = 5 * DUR;
  h = harness_for ("mvdenoise backend=cpu", &c);
  for (i = 0; i < 11; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (h))) {
    fail_unless (n_out < 11);
    fail_unless (b != in[n_out]);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), GST_BUFFER_PTS (in[n_out]));
    fail_unless_equals_uint64 (GST_BUFFER_DTS (b), GST_BUFFER_DTS (in[n_out]));
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (b),
        GST_BUFFER_DURATION (in[n_out]));
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b),
        GST_BUFFER_OFFSET (in[n_out]));
    fail_unless_equals_int (GST_BUFFER_FLAGS (b) & (GST_BUFFER_FLAG_DELTA_UNIT
            | GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_DISCONT),
        GST_BUFFER_FLAGS (in[n_out]) & (GST_BUFFER_FLAG_DELTA_UNIT
            | GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_DISCONT));
    fail_unless_equals_int (gst_buffer_get_n_motion_vector_metas (b),
        gst_buffer_get_n_motion_vector_metas (in[n_out]));
    fail_unless (gst_buffer_get_motion_vector_meta_for_reference (b, -2));
    fail_unless (gst_buffer_get_motion_vector_meta_for_reference (b, +2));
    /* denoised: not the noisy input */
    fail_unless (!buffers_equal (b, in[n_out]));
    gst_buffer_unref (b);
    n_out++;
  }
  fail_unless_equals_int (n_out, 11);
  gst_harness_teardown (h);
  free_buffers (in, 11);
}

GST_END_TEST;

/* Outputs of @bufs (n) fed alone to a fresh mvdenoise @launch, EOS at the
 * end: the reference the stream tests compare their parts with. */
static void
run_alone (const Clip * c, const gchar * launch, GstBuffer ** bufs, guint n,
    GstBuffer ** out)
{
  GstHarness *h = harness_for (launch, c);
  guint i;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (bufs[i])),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++) {
    out[i] = gst_harness_try_pull (h);
    fail_unless (out[i] != NULL);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
}

/* Frame t goes out when t + radius has come; EOS drains the rest, then
 * goes on. */
GST_START_TEST (test_holding_and_eos)
{
  Clip c = { CLIP_PAN, 7, 5.0 };
  GstBuffer *in[6];
  GstHarness *h;
  GstEvent *ev;
  guint i, radius;

  search_clip (&c, "-3,-2,-1,+1,+2,+3", 0, 6, in);
  for (radius = 1; radius <= 3; radius++) {
    gchar *launch = g_strdup_printf ("mvdenoise backend=cpu radius=%u",
        radius);

    h = harness_for (launch, &c);
    for (i = 0; i < 6; i++) {
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
          GST_FLOW_OK);
      fail_unless_equals_int (gst_harness_buffers_received (h),
          i >= radius ? i + 1 - radius : 0);
    }
    /* drop the stream-start, caps and segment events */
    while ((ev = gst_harness_try_pull_event (h)))
      gst_event_unref (ev);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    fail_unless_equals_int (gst_harness_buffers_received (h), 6);
    ev = gst_harness_try_pull_event (h);
    fail_unless (ev && GST_EVENT_TYPE (ev) == GST_EVENT_EOS);
    gst_event_unref (ev);
    gst_harness_teardown (h);
    g_free (launch);
  }
  free_buffers (in, 6);
}

GST_END_TEST;

/* A flushing seek drops the held frames; what follows is denoised as a
 * stream of its own. */
GST_START_TEST (test_flushing_seek)
{
  Clip c = { CLIP_PAN, 8, 5.0 };
  GstBuffer *in[10], *alone[5], *b;
  GstHarness *h;
  GstSegment seg;
  guint i;

  search_clip (&c, "-2,-1,+1,+2", 0, 10, in);
  run_alone (&c, "mvdenoise backend=cpu", in + 5, 5, alone);
  h = harness_for ("mvdenoise backend=cpu", &c);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 2);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  for (i = 5; i < 10; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* 2 before the seek, the held 2 and 3 dropped, 5 after it */
  fail_unless_equals_int (gst_harness_buffers_received (h), 7);
  for (i = 0; i < 2; i++)
    gst_buffer_unref (gst_harness_pull (h));
  for (i = 0; i < 5; i++) {
    b = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), (5 + i) * DUR);
    fail_unless (buffers_equal (b, alone[i]), "frame %u", 5 + i);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
  free_buffers (in, 10);
  free_buffers (alone, 5);
}

GST_END_TEST;

/* A break (a DISCONT buffer, a gap buffer) inside one searched clip: the
 * frames on each side come out as if each side were a stream of its own,
 * though their fields point across it. */
static void
check_break (gboolean gap)
{
  Clip c = { CLIP_PAN, 9, 8.0 };
  GstBuffer *in[12], *a[6], *bb[6], *b;
  GstHarness *h;
  guint i;

  search_clip (&c, "-2,-1,+1,+2", 0, 12, in);
  run_alone (&c, "mvdenoise backend=cpu", in, 6, a);
  run_alone (&c, "mvdenoise backend=cpu", in + 6, 6, bb);
  h = harness_for ("mvdenoise backend=cpu", &c);
  for (i = 0; i < 12; i++) {
    if (i == 6) {
      if (gap) {
        GstBuffer *g = gst_buffer_new ();

        GST_BUFFER_FLAG_SET (g, GST_BUFFER_FLAG_GAP);
        GST_BUFFER_PTS (g) = 6 * DUR - DUR / 2;
        fail_unless_equals_int (gst_harness_push (h, g), GST_FLOW_OK);
      } else {
        in[i] = gst_buffer_make_writable (in[i]);
        GST_BUFFER_FLAG_SET (in[i], GST_BUFFER_FLAG_DISCONT);
      }
    }
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), gap ? 13 : 12);
  for (i = 0; i < 6; i++) {
    b = gst_harness_pull (h);
    fail_unless (buffers_equal (b, a[i]), "frame %u", i);
    gst_buffer_unref (b);
  }
  if (gap) {
    b = gst_harness_pull (h);
    fail_unless (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_GAP));
    gst_buffer_unref (b);
  }
  for (i = 0; i < 6; i++) {
    b = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), (6 + i) * DUR);
    fail_unless (buffers_equal (b, bb[i]), "frame %u", 6 + i);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
  free_buffers (in, 12);
  free_buffers (a, 6);
  free_buffers (bb, 6);
}

GST_START_TEST (test_discont)
{
  check_break (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_gap)
{
  check_break (TRUE);
}

GST_END_TEST;

/* New caps (another size) mid-stream: the frames of the old caps come out
 * with the old caps, as a stream of their own, then the new ones. */
GST_START_TEST (test_caps_change)
{
  Clip c1 = { CLIP_PAN, 10, 6.0 };
  Clip c2 = { CLIP_OBJECT, 11, 6.0, GST_VIDEO_FORMAT_I420, 128, 96 };
  GstBuffer *in1[5], *in2[5], *a[5], *bb[5], *b;
  GstHarness *h;
  GstCaps *caps;
  guint i;

  search_clip (&c1, "-2,-1,+1,+2", 0, 5, in1);
  search_clip (&c2, "-2,-1,+1,+2", 5, 5, in2);
  run_alone (&c1, "mvdenoise backend=cpu", in1, 5, a);
  run_alone (&c2, "mvdenoise backend=cpu", in2, 5, bb);
  h = harness_for ("mvdenoise backend=cpu", &c1);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in1[i])),
        GST_FLOW_OK);
  caps = clip_caps (&c2);
  gst_harness_set_src_caps (h, caps);
  fail_unless_equals_int (gst_harness_buffers_received (h), 5);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in2[i])),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), 10);
  for (i = 0; i < 5; i++) {
    b = gst_harness_pull (h);
    fail_unless (buffers_equal (b, a[i]), "frame %u", i);
    gst_buffer_unref (b);
  }
  for (i = 0; i < 5; i++) {
    b = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), (5 + i) * DUR);
    fail_unless (buffers_equal (b, bb[i]), "frame %u", 5 + i);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
  free_buffers (in1, 5);
  free_buffers (in2, 5);
  free_buffers (a, 5);
  free_buffers (bb, 5);
}

GST_END_TEST;

/* Two different scenes spliced, searched together by the real
 * gpumotionest references=-2,-1,+1,+2 summary=true: each frame comes out
 * as it does when its scene is searched and denoised alone (the
 * references across the cut dropped), so neither scene leaves a trace in
 * the other. */
GST_START_TEST (test_scene_cut)
{
  /* scene B brighter by 40 levels: a cut the summary scores well above
   * its threshold (two value-noise textures of one range score about 32,
   * under the default 40) */
  Clip ca = { CLIP_PAN, 12, 8.0 };
  Clip cb = { CLIP_OBJECT, 13, 8.0, GST_VIDEO_FORMAT_I420, W, H, 40 };
  GstBuffer *a[6], *bb[6], *b;
  GstHarness *h;
  guint i;

  h = harness_for ("gpumotionest backend=cpu references=-2,-1,+1,+2 "
      "summary=true " SEARCH_OPTS " ! mvdenoise backend=cpu sigma=8", &ca);
  for (i = 0; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&ca, i, FALSE)),
        GST_FLOW_OK);
  for (i = 0; i < 6; i++) {
    GstBuffer *x = make_frame (&cb, i, FALSE);

    GST_BUFFER_PTS (x) = (6 + i) * DUR;
    fail_unless_equals_int (gst_harness_push (h, x), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), 12);
  run_pipeline (&ca, "mvdenoise backend=cpu sigma=8", 6, a);
  run_pipeline (&cb, "mvdenoise backend=cpu sigma=8", 6, bb);
  for (i = 0; i < 12; i++) {
    GstBuffer *ref = i < 6 ? a[i] : bb[i - 6];

    b = gst_harness_pull (h);
    fail_unless (buffers_equal (b, ref), "frame %u differs from its scene "
        "denoised alone", i);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
  free_buffers (a, 6);
  free_buffers (bb, 6);
}

GST_END_TEST;

/* ---- errors and warnings ----------------------------------------------- */

/* Pushes 3 frames of a clip through @launch with a bus; returns the error
 * text (NULL: none), and the first warning's in *warning. */
static gchar *
messages_of (const gchar * launch, gchar ** warning, guint * n_out)
{
  Clip c = { CLIP_PAN, 14, 4.0 };
  GstHarness *h = harness_for (launch, &c);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *text = NULL;
  guint i;

  gst_element_set_bus (h->element, bus);
  for (i = 0; i < 6; i++)
    if (gst_harness_push (h, make_frame (&c, i, FALSE)) != GST_FLOW_OK)
      break;
  gst_harness_push_event (h, gst_event_new_eos ());
  if (warning)
    *warning = NULL;
  /* one pass: gst_bus_pop_filtered() would drop what it skips */
  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && !text) {
      gst_message_parse_error (msg, &err, NULL);
      text = g_strdup (err->message);
      g_clear_error (&err);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING && warning) {
      /* once, not once a frame */
      fail_unless (*warning == NULL, "a second warning");
      gst_message_parse_warning (msg, &err, NULL);
      *warning = g_strdup (err->message);
      g_clear_error (&err);
    }
    gst_message_unref (msg);
  }
  if (n_out)
    *n_out = gst_harness_buffers_received (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return text;
}

GST_START_TEST (test_no_fields)
{
  gchar *text = messages_of ("mvdenoise", NULL, NULL);

  fail_unless (text && strstr (text, "references=-2,-1,+1,+2"), "%s", text);
  g_free (text);
  text = messages_of ("mvdenoise radius=1", NULL, NULL);
  fail_unless (text && strstr (text, "references=-1,+1"), "%s", text);
  g_free (text);
}

GST_END_TEST;

/* Some offsets only: denoised with them, one warning naming what to add;
 * fields without summary: one warning naming summary=true. */
GST_START_TEST (test_partial_fields)
{
  gchar *warning = NULL;
  guint n_out = 0;
  gchar *text = messages_of ("gpumotionest backend=cpu references=-1 "
      "summary=true ! mvdenoise backend=cpu", &warning, &n_out);

  fail_unless (text == NULL, "%s", text);
  fail_unless (warning && strstr (warning, "-2,+1,+2")
      && strstr (warning, "references=-2,-1,+1,+2"), "%s", warning);
  fail_unless_equals_int (n_out, 6);
  g_free (warning);
  text = messages_of ("gpumotionest backend=cpu references=-2,-1,+1,+2 ! "
      "mvdenoise backend=cpu", &warning, &n_out);
  fail_unless (text == NULL, "%s", text);
  fail_unless (warning && strstr (warning, "summary=true"), "%s", warning);
  fail_unless_equals_int (n_out, 6);
  g_free (warning);
}

GST_END_TEST;

/* A buffer shorter than its caps say: refused with an error naming the
 * sizes, nothing read past it. */
GST_START_TEST (test_short_buffer)
{
  Clip c = { CLIP_PAN, 15, 4.0 };
  GstBuffer *in[3];
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  GstBuffer *shrt;

  search_clip (&c, "-2,-1,+1,+2", 0, 3, in);
  h = harness_for ("mvdenoise backend=cpu", &c);
  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[0])),
      GST_FLOW_OK);
  shrt = gst_buffer_copy_region (in[1], GST_BUFFER_COPY_ALL, 0,
      gst_buffer_get_size (in[1]) / 2);
  fail_unless_equals_int (gst_harness_push (h, shrt), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "does not fit"), "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  free_buffers (in, 3);
}

GST_END_TEST;

/* Latency: radius frame durations added to upstream's; nothing at a
 * variable rate (0/1). */
GST_START_TEST (test_latency)
{
  Clip c = { CLIP_STATIC, 16, 0 };
  GstHarness *h;
  guint radius;

  for (radius = 1; radius <= 4; radius++) {
    gchar *launch = g_strdup_printf ("mvdenoise radius=%u", radius);

    h = harness_for (launch, &c);
    gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
    fail_unless_equals_uint64 (gst_harness_query_latency (h),
        10 * GST_MSECOND + radius * DUR);
    gst_harness_teardown (h);
    g_free (launch);
  }
  h = gst_harness_new_parse ("mvdenoise radius=2");
  gst_harness_set_src_caps_str (h, "video/x-raw, format=I420, width=64, "
      "height=64, framerate=0/1");
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  fail_unless_equals_uint64 (gst_harness_query_latency (h), 10 * GST_MSECOND);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- formats ----------------------------------------------------------- */

/* @src (I420) converted to @format, no dithering. */
static GstBuffer *
convert_to (GstBuffer * src, const GstVideoInfo * in_info,
    GstVideoFormat format)
{
  GstVideoInfo out_info;
  GstVideoConverter *conv;
  GstVideoFrame fi, fo;
  GstBuffer *dst;

  gst_video_info_set_format (&out_info, format, in_info->width,
      in_info->height);
  GST_VIDEO_INFO_FPS_N (&out_info) = GST_VIDEO_INFO_FPS_N (in_info);
  GST_VIDEO_INFO_FPS_D (&out_info) = GST_VIDEO_INFO_FPS_D (in_info);
  dst = gst_buffer_new_allocate (NULL, out_info.size, NULL);
  conv = gst_video_converter_new ((GstVideoInfo *) in_info, &out_info, gst_structure_new ("options",
          GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
          GST_VIDEO_DITHER_NONE, NULL));
  fail_unless (conv != NULL);
  fail_unless (gst_video_frame_map (&fi, in_info, src, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, &out_info, dst, GST_MAP_WRITE));
  gst_video_converter_frame (conv, &fi, &fo);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  gst_video_converter_free (conv);
  GST_BUFFER_PTS (dst) = GST_BUFFER_PTS (src);
  GST_BUFFER_DURATION (dst) = GST_BUFFER_DURATION (src);
  return dst;
}

/* Component @c's sample at (x, y) of a mapped frame, in 8-bit levels. */
static gdouble
comp_value (const GstVideoFrame * f, guint c, gint x, gint y)
{
  const guint8 *d = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c)
      + y * GST_VIDEO_FRAME_COMP_STRIDE (f, c)
      + x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  guint depth = GST_VIDEO_FRAME_COMP_DEPTH (f, c);
  guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (f->info.finfo, c);
  guint v;

  if (depth == 8)
    return d[0];
  /* P010's V lies a word after its U (gstmcframe.c says why) */
  if (GST_VIDEO_FRAME_COMP_POFFSET (f, c) & 1)
    d += GST_VIDEO_FRAME_COMP_POFFSET (f, c);
  v = (GST_READ_UINT16_LE (d) >> shift) & ((1u << depth) - 1);
  return v / (gdouble) (1u << (depth - 8));
}

/* Gaussian noise of @sigma (8-bit levels, scaled to each component's
 * depth) added to every component of frame @i in @buf, independent from
 * sample to sample. */
static void
add_noise (const GstVideoInfo * info, GstBuffer * buf, guint i,
    gdouble sigma)
{
  GstVideoFrame f;
  guint c;
  gint x, y;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&f); c++) {
    guint depth = GST_VIDEO_FRAME_COMP_DEPTH (&f, c);
    guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (f.info.finfo, c);
    gint max = (1 << depth) - 1;

    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, c); y++)
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&f, c); x++) {
        guint8 *d = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, c)
            + y * GST_VIDEO_FRAME_COMP_STRIDE (&f, c)
            + x * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, c);
        gdouble n = sigma * gauss (i, c, x, y, 99) * (1 << (depth - 8));
        gint v;

        if (depth == 8) {
          d[0] = CLAMP (d[0] + (gint) lround (n), 0, 255);
          continue;
        }
        if (GST_VIDEO_FRAME_COMP_POFFSET (&f, c) & 1)
          d += GST_VIDEO_FRAME_COMP_POFFSET (&f, c);
        v = (GST_READ_UINT16_LE (d) >> shift) & max;
        v = CLAMP (v + (gint) lround (n), 0, max);
        GST_WRITE_UINT16_LE (d, (guint16) (v << shift));
      }
  }
  gst_video_frame_unmap (&f);
}

/* The alpha of frame @i: the luma's texture, moving with it (not the
 * converter's 255, where noise would be clipped). */
static void
set_alpha (const Clip * c, const GstVideoInfo * info, GstBuffer * buf,
    guint i)
{
  GstVideoFrame f;
  gint x, y;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  fail_unless_equals_int (GST_VIDEO_FRAME_COMP_DEPTH (&f, 3), 8);
  for (y = 0; y < GST_VIDEO_FRAME_HEIGHT (&f); y++)
    for (x = 0; x < GST_VIDEO_FRAME_WIDTH (&f); x++)
      ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, 3))[y *
          GST_VIDEO_FRAME_COMP_STRIDE (&f, 3) + x *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 3)] = clean_at (c, i, 0, x, y, 1);
  gst_video_frame_unmap (&f);
}

/* rms of (a - b) over component @c, in 8-bit levels. */
static gdouble
comp_rms (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b, guint c)
{
  GstVideoFrame fa, fb;
  gdouble sum = 0;
  gint x, y, n = 0;

  fail_unless (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, c); y++)
    for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&fa, c); x++) {
      gdouble e = comp_value (&fa, c, x, y) - comp_value (&fb, c, x, y);

      sum += e * e;
      n++;
    }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return sqrt (sum / n);
}

/* Every format gpumotionest takes: a clean pan converted to it, noise of
 * sigma 8 added to every component (alpha too) in the format itself, goes
 * through gpumotionest ! mvdenoise; N frames come out, and on the frames
 * with 4 references every component's error against the clean frame
 * falls under 0.6 of the input's (1 / sqrt 5 = 0.447 ideally; measured
 * at most 0.491 in YUV and gray, 0.515 in RGB and alpha, whose weights
 * come from the luma the search derives, with less noise than sigma). */
static void
check_format (GstVideoFormat format)
{
  /* pale colours: RGB from them stays well inside 0 .. 255, where noise
   * is not clipped (clipped noise is biased, and no average undoes a
   * bias) */
  Clip c = { CLIP_PAN, 17, 0.0, GST_VIDEO_FORMAT_I420, W, H, 0, TRUE };
  GstVideoInfo i420, info;
  GstHarness *h;
  GstCaps *caps;
  GstBuffer *noisy[8], *clean[8];
  gchar *launch;
  guint i, k;

  clip_info (&c, &i420);
  gst_video_info_set_format (&info, format, W, H);
  GST_VIDEO_INFO_FPS_N (&info) = FPS;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  launch = g_strdup_printf ("gpumotionest backend=cpu references=-2,-1,+1,+2 "
      "summary=true %s ! mvdenoise backend=cpu sigma=8", SEARCH_OPTS);
  h = gst_harness_new_parse (launch);
  caps = gst_video_info_to_caps (&info);
  gst_harness_set_src_caps (h, caps);
  for (i = 0; i < 8; i++) {
    GstBuffer *cl = make_frame (&c, i, TRUE);

    clean[i] = convert_to (cl, &i420, format);
    if (GST_VIDEO_INFO_HAS_ALPHA (&info))
      set_alpha (&c, &info, clean[i], i);
    noisy[i] = gst_buffer_copy_deep (clean[i]);
    add_noise (&info, noisy[i], i, 8.0);
    gst_buffer_unref (cl);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (noisy[i])),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), 8);
  for (i = 0; i < 8; i++) {
    GstBuffer *out = gst_harness_pull (h);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * DUR);
    for (k = 0; i >= 2 && i < 6 && k < GST_VIDEO_INFO_N_COMPONENTS (&info);
        k++) {
      gdouble e_in = comp_rms (&info, noisy[i], clean[i], k);
      gdouble e_out = comp_rms (&info, out, clean[i], k);

      GST_INFO ("%s frame %u component %u: %.3f -> %.3f (%.3f)",
          gst_video_format_to_string (format), i, k, e_in, e_out,
          e_in > 0 ? e_out / e_in : 0);
      fail_unless (e_out < 0.6 * e_in, "%s frame %u component %u: %.3f -> "
          "%.3f", gst_video_format_to_string (format), i, k, e_in, e_out);
    }
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  free_buffers (noisy, 8);
  free_buffers (clean, 8);
  g_free (launch);
}

GST_START_TEST (test_formats)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
    GST_VIDEO_FORMAT_YVYU, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGBx,
    GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_BGRA,
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
    GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P012_LE,
    GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_I420_10LE,
    GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_I422_10LE,
    GST_VIDEO_FORMAT_I422_12LE, GST_VIDEO_FORMAT_Y444_10LE,
    GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE,
    GST_VIDEO_FORMAT_GRAY16_LE,
#endif
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    check_format (formats[i]);
}

GST_END_TEST;

static Suite *
mvdenoise_suite (void)
{
  Suite *s = suite_create ("mvdenoise");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_static_noise_falls);
  tcase_add_test (tc, test_moving_no_ghosting);
  tcase_add_test (tc, test_pan_no_ghosting);
  tcase_add_test (tc, test_spatial_pass);
  tcase_add_test (tc, test_sigma0_identity);
  tcase_add_test (tc, test_auto_sigma);
  tcase_add_test (tc, test_sigma_given);
  tcase_add_test (tc, test_counts_and_metadata);
  tcase_add_test (tc, test_holding_and_eos);
  tcase_add_test (tc, test_flushing_seek);
  tcase_add_test (tc, test_discont);
  tcase_add_test (tc, test_gap);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_scene_cut);
  tcase_add_test (tc, test_no_fields);
  tcase_add_test (tc, test_partial_fields);
  tcase_add_test (tc, test_short_buffer);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_formats);
  return s;
}

GST_CHECK_MAIN (mvdenoise);
