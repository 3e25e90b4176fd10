/* gpumotionest — video frames and motion-vector metas as the mc library
 * takes them (gstmcframe.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstmotionestcuda.h"
#include "gstvideolayout.h"
#include "gstmcframe.h"

/* Component c of a mapped frame as an mc plane: where GstVideoInfo puts
 * its first sample (plane, offset), its row and pixel strides, size, depth
 * and shift; one description for planar, semi-planar, packed and RGB. */
void
gst_mc_plane_from_component (const GstVideoFrame * f, guint c, MCPlane * p)
{
  memset (p, 0, sizeof (*p));
  p->data = GST_VIDEO_FRAME_COMP_DATA (f, c);
  /* GStreamer (1.22) gives the V of P010, P012 and P016 offset 1, in
   * samples, where its word is at byte 2 of the UV pair (its own unpack
   * functions read it there).  No 16-bit word lies at an odd byte, so an
   * odd offset of such a component counts words. */
  if (GST_VIDEO_FRAME_COMP_DEPTH (f, c) > 8
      && (GST_VIDEO_FRAME_COMP_POFFSET (f, c) & 1))
    p->data = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c)
        + GST_VIDEO_FRAME_COMP_POFFSET (f, c);
  p->stride = GST_VIDEO_FRAME_COMP_STRIDE (f, c);
  p->pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  p->width = GST_VIDEO_FRAME_COMP_WIDTH (f, c);
  p->height = GST_VIDEO_FRAME_COMP_HEIGHT (f, c);
  p->depth = GST_VIDEO_FRAME_COMP_DEPTH (f, c);
  p->shift = GST_VIDEO_FORMAT_INFO_SHIFT (f->info.finfo, c);
}

/* The picture mc makes: Y, U, V (or GRAY's Y; or R, G, B, which the
 * field's vectors over the luma derived from them move alike, so 4:4:4),
 * the chroma's sampling from the format's subsampling of component 1. */
void
gst_mc_picture_from_frame (const GstVideoFrame * f, MCPicture * p)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  guint c, n = GST_VIDEO_FRAME_N_COMPONENTS (f);

  memset (p, 0, sizeof (*p));
  if (n == 1)
    p->chroma = MC_CHROMA_NONE;
  else if (GST_VIDEO_FORMAT_INFO_W_SUB (fi, 1) == 1)
    p->chroma = GST_VIDEO_FORMAT_INFO_H_SUB (fi, 1) == 1 ? MC_CHROMA_420
        : MC_CHROMA_422;
  else
    p->chroma = MC_CHROMA_444;
  for (c = 0; c < n && c < 3; c++)
    gst_mc_plane_from_component (f, c, &p->planes[c]);
}

/* The bytes of a frame's pixels that picture_from_frame() leaves out, as a
 * picture of their own (luma only, full size): alpha (the fourth
 * component), or the byte of a 4-byte RGB pixel that no component covers
 * (RGBx's x).  FALSE when there is none; *is_alpha says which. */
gboolean
gst_mc_extra_from_frame (const GstVideoFrame * f, MCPicture * p,
    gboolean * is_alpha)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  guint c, n = GST_VIDEO_FRAME_N_COMPONENTS (f);
  guint covered = 0;
  gint pstride, b;

  memset (p, 0, sizeof (*p));
  p->chroma = MC_CHROMA_NONE;
  *is_alpha = GST_VIDEO_FORMAT_INFO_HAS_ALPHA (fi) && n == 4;
  if (*is_alpha) {
    gst_mc_plane_from_component (f, 3, &p->planes[0]);
    return TRUE;
  }
  /* a padding byte: single-plane 8-bit RGB whose components all step by
   * the same pixel stride, which has a byte none of them is at */
  if (!GST_VIDEO_FORMAT_INFO_IS_RGB (fi) || GST_VIDEO_FRAME_N_PLANES (f) != 1
      || GST_VIDEO_FRAME_COMP_DEPTH (f, 0) != 8)
    return FALSE;
  pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (f, 0);
  if (pstride > 8)
    return FALSE;
  for (c = 0; c < n; c++) {
    if (GST_VIDEO_FRAME_COMP_PSTRIDE (f, c) != pstride)
      return FALSE;
    covered |= 1u << GST_VIDEO_FRAME_COMP_POFFSET (f, c);
  }
  for (b = 0; b < pstride && (covered & (1u << b)); b++);
  if (b == pstride)
    return FALSE;
  gst_mc_plane_from_component (f, 0, &p->planes[0]);
  p->planes[0].data = GST_VIDEO_FRAME_PLANE_DATA (f, 0) + b;
  return TRUE;
}

/* Copies frame @src into @dst (one format and size), each plane's rows
 * from their first byte to the end of their last sample, or of their last
 * pixel when that lies further (RGBx's x byte).  Not
 * gst_video_frame_copy(): it copies width x pixel stride bytes a row,
 * which leaves out the last V of a 4:2:2 frame of odd width (YUY2: the V
 * of the last pair lies past 2 x width bytes). */
void
gst_mc_copy_frame (GstVideoFrame * dst, const GstVideoFrame * src)
{
  guint p, c, y;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (src); p++) {
    const guint8 *s = GST_VIDEO_FRAME_PLANE_DATA (src, p);
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (dst, p);
    gint ss = GST_VIDEO_FRAME_PLANE_STRIDE (src, p);
    gint ds = GST_VIDEO_FRAME_PLANE_STRIDE (dst, p);
    gsize span = 0;
    guint h = 0;

    for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (src); c++) {
      MCPlane m;
      guint bps;

      if (GST_VIDEO_FRAME_COMP_PLANE (src, c) != p)
        continue;
      gst_mc_plane_from_component (src, c, &m);
      bps = m.depth > 8 ? 2 : 1;
      span = MAX (span, (gsize) (m.data - s) + (gsize) (m.width - 1)
          * (m.pstride ? m.pstride : bps) + bps);
      span = MAX (span, (gsize) m.width * (m.pstride ? m.pstride : bps));
      h = MAX (h, m.height);
    }
    span = MIN (span, (gsize) MIN (ABS (ss), ABS (ds)));
    for (y = 0; y < h; y++)
      memcpy (d + (gssize) y * ds, s + (gssize) y * ss, span);
  }
}

gint
gst_mc_common_shape (const GstMotionVectorMeta * const *metas, guint n)
{
  gint p;

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint c0 = 0, r0 = 0, i;
    gboolean all = n > 0;

    for (i = 0; i < n && all; i++) {
      guint c, r;

      all = gst_motion_vector_meta_get_grid (metas[i], p, &c, &r) != NULL;
      if (all && i == 0) {
        c0 = c;
        r0 = r;
      }
      all = all && c == c0 && r == r0;
    }
    if (all)
      return p;
  }
  return -1;
}

void
gst_mc_field_from_meta (const GstMotionVectorMeta * meta, gint shape,
    MCField * f)
{
  memset (f, 0, sizeof (*f));
  f->block_w = GST_MOTION_VECTOR_PARTITION_W (shape);
  f->block_h = GST_MOTION_VECTOR_PARTITION_H (shape);
  f->cells = gst_motion_vector_meta_get_grid (meta, shape, &f->cols, &f->rows);
}

gboolean
gst_mc_check_layout (GstBuffer * buf, const GstVideoInfo * info,
    gboolean cuda_caps, GstObject * cuda_ctx, GError ** error)
{
  GstVideoFrame f;
  GstMapFlags flags = 0;
  gboolean ok = gst_video_layout_check_meta (buf, info, error);

  if (ok && cuda_caps)
    flags = gst_motion_est_cuda_map_flags (buf, cuda_ctx);
  if (!ok || (cuda_caps && !flags))
    return ok;
  if (!gst_motion_est_cuda_push (flags ? cuda_ctx : NULL)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "could not make the frames' CUDA context current");
    return FALSE;
  }
  if (!gst_video_frame_map (&f, info, buf, GST_MAP_READ | flags)) {
    ok = FALSE;
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "a %ux%u %s frame in a buffer of %" G_GSIZE_FORMAT " bytes (%"
        G_GSIZE_FORMAT " expected)", GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info),
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
        gst_buffer_get_size (buf), GST_VIDEO_INFO_SIZE (info));
  } else {
    ok = gst_video_layout_check_planes (&f, error);
    gst_video_frame_unmap (&f);
  }
  gst_motion_est_cuda_pop (flags ? cuda_ctx : NULL);
  return ok;
}

gboolean
gst_mc_check_frame (GstElement * element, GstBuffer * buf,
    const GstVideoInfo * info, gboolean cuda_caps, GstObject * cuda_ctx)
{
  GError *err = NULL;

  if (gst_mc_check_layout (buf, info, cuda_caps, cuda_ctx, &err))
    return TRUE;
  GST_ELEMENT_ERROR (element, STREAM, FORMAT, ("The frame at %"
          GST_TIME_FORMAT " does not fit its buffer: %s",
          GST_TIME_ARGS (GST_BUFFER_PTS (buf)), err ? err->message : "?"),
      (NULL));
  g_clear_error (&err);
  return FALSE;
}
