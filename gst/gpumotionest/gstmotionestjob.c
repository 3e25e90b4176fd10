/* gpumotionest — one frame in flight.
 *
 * The buffer is mapped with GST_VIDEO_FRAME_MAP_FLAG_NO_REF so that the job's
 * single reference keeps it writable: the meta is added when the backend has
 * finished, without copying the buffer.
 */
#include <string.h>

#include "gstmotionestjob.h"
#include "gstvideolayout.h"
#include "gstsharedmap.h"
#include "luma_rules.h"

/* The memory that holds all of the luma's rows, and the luma's offset in
 * it; FALSE when the rows span several memories. */
static gboolean
find_luma_memory (const GstVideoFrame * frame, GstMemory ** mem,
    gsize * skip, gsize * extent)
{
  GstBuffer *buffer = frame->buffer;
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (buffer);
  gsize offset = vmeta ? vmeta->offset[0] : GST_VIDEO_INFO_PLANE_OFFSET
      (&frame->info, 0);
  guint idx, length;

  /* rows of the luma (strides are not negative here) */
  *extent = (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0)
      * (GST_VIDEO_FRAME_COMP_HEIGHT (frame, 0) - 1)
      + (gsize) GST_VIDEO_FRAME_COMP_WIDTH (frame, 0)
      * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0);
  if (!gst_buffer_find_memory (buffer, offset, 1, &idx, &length, skip)
      || length != 1)
    return FALSE;
  *mem = gst_buffer_peek_memory (buffer, idx);
  return *skip + *extent <= (*mem)->size;
}

/* Holds the luma through the process-wide mapping of its memory
 * (gstsharedmap.h) and unmaps the frame, so that the job keeps one lock on
 * the memory shared with every other job on it, not one per plane of its
 * own.  Where that mapping would not give the very pointer the frame map
 * gave (the rows span memories, or the video meta maps planes its own
 * way) the job keeps the frame mapped, as before. */
static void
share_luma_map (GstMotionEstJob * job, GstMapFlags device_map)
{
  GstMemory *mem;
  gsize skip, extent, size;
  guint8 *data;

  if (job->luma.stride < 0
      || !find_luma_memory (&job->frame, &mem, &skip, &extent))
    return;
  job->luma_map = gst_shared_map_acquire (mem, GST_MAP_READ | device_map,
      &data, &size);
  if (!job->luma_map)
    return;
  if (data + skip != job->luma.data || skip + extent > size) {
    gst_shared_map_release (job->luma_map);
    job->luma_map = NULL;
    return;
  }
  gst_video_frame_unmap (&job->frame);
  job->frame.buffer = NULL;
}

/* Whether RGB frames of this colorimetry take BT.709's weights: where the
 * matrix says BT.709, or, since GstVideoInfo sets the matrix of every RGB
 * format to "RGB", where the primaries are BT.709's (sRGB, the default of
 * RGB caps, and bt709); BT.601's otherwise, unknown included (docs/
 * formats.md says why). */
gboolean
gst_motion_est_luma_is_bt709 (const GstVideoColorimetry * cinfo)
{
  if (cinfo->matrix == GST_VIDEO_COLOR_MATRIX_BT709)
    return TRUE;
  return cinfo->matrix == GST_VIDEO_COLOR_MATRIX_RGB
      && cinfo->primaries == GST_VIDEO_COLOR_PRIMARIES_BT709;
}

/* Where the luma of a packed 4:2:2 or RGB frame is: `data` stays the first
 * byte of the plane (what share_luma_map() compares), the samples are
 * `step` bytes apart at the components' offsets; a planar format keeps the
 * plain plane of a zeroed tail. */
static void
describe_luma (MEPlane * luma, const GstVideoFrame * frame)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;

  if (GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)) {
    luma->kind = ME_LUMA_RGB;
    luma->step = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, GST_VIDEO_COMP_R);
    luma->offset[0] = GST_VIDEO_FRAME_COMP_POFFSET (frame, GST_VIDEO_COMP_R);
    luma->offset[1] = GST_VIDEO_FRAME_COMP_POFFSET (frame, GST_VIDEO_COMP_G);
    luma->offset[2] = GST_VIDEO_FRAME_COMP_POFFSET (frame, GST_VIDEO_COMP_B);
    me_luma_weights (gst_motion_est_luma_is_bt709 (&frame->info.colorimetry),
        luma->weights);
  } else if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, GST_VIDEO_COMP_Y) > 8) {
    /* 16-bit words holding `depth` bits from bit `shift` (P010_10LE:
     * 10 from bit 6; I420_10LE: 10 from bit 0): searched as they are */
    luma->depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, GST_VIDEO_COMP_Y);
    luma->shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, GST_VIDEO_COMP_Y);
  } else if (GST_VIDEO_FRAME_COMP_PSTRIDE (frame, GST_VIDEO_COMP_Y) > 1) {
    luma->kind = ME_LUMA_PACKED;
    luma->step = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, GST_VIDEO_COMP_Y);
    luma->offset[0] = GST_VIDEO_FRAME_COMP_POFFSET (frame, GST_VIDEO_COMP_Y);
  }
}

GstMotionEstJob *
gst_motion_est_job_new (GstBuffer * buffer, const GstVideoInfo * info,
    const MESearchParams * params, const gint * ref_distances,
    guint n_fields, guint field_width, guint field_height,
    GstCellPool * cells, GstMapFlags device_map, GError ** error)
{
  GstMotionEstJob *job;
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);

  /* gst_video_frame_map() only checks that each plane's first byte lies in
   * the buffer, and meets a GstVideoMeta that disagrees with the caps with
   * a critical: both are checked here, before anything is read. */
  if (!gst_video_layout_check_meta (buffer, info, error))
    return NULL;

  job = g_new0 (GstMotionEstJob, 1);
  g_queue_init (&job->followers);
  job->buffer = buffer;
  if (!gst_video_frame_map (&job->frame, (GstVideoInfo *) info, buffer,
          GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF | device_map)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "could not map a %ux%u %s frame (buffer of %" G_GSIZE_FORMAT
        " bytes, %" G_GSIZE_FORMAT " expected)", w, h,
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
        gst_buffer_get_size (buffer), GST_VIDEO_INFO_SIZE (info));
    job->frame.buffer = NULL;
    job->buffer = NULL;         /* the caller keeps it */
    gst_motion_est_job_free (job);
    return NULL;
  }
  if (!gst_video_layout_check_planes (&job->frame, error)) {
    gst_video_frame_unmap (&job->frame);
    job->frame.buffer = NULL;
    job->buffer = NULL;
    gst_motion_est_job_free (job);
    return NULL;
  }
  /* A bottom-up frame (a negative stride, which fits as far as the check
   * above goes) is refused by name: the backends read rows top-down, and
   * a CUDA copy takes no negative pitch. */
  if (GST_VIDEO_FRAME_PLANE_STRIDE (&job->frame, 0) < 0) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "bottom-up frames (luma stride %d) are not supported",
        GST_VIDEO_FRAME_PLANE_STRIDE (&job->frame, 0));
    gst_video_frame_unmap (&job->frame);
    job->frame.buffer = NULL;
    job->buffer = NULL;
    gst_motion_est_job_free (job);
    return NULL;
  }

  /* Every supported format has its luma (8 bits, or 16-bit words), or the
   * R, G and B it is derived from, in plane 0. */
  job->luma.data = GST_VIDEO_FRAME_PLANE_DATA (&job->frame, 0);
  job->luma.stride = GST_VIDEO_FRAME_PLANE_STRIDE (&job->frame, 0);
  describe_luma (&job->luma, &job->frame);
  share_luma_map (job, device_map);
  job->luma.width = w;
  job->luma.height = h;
  job->luma.on_device = device_map != 0;
  job->params = *params;

  /* the fields cover the frame, or one view of it */
  job->field_width = field_width ? field_width : w;
  job->field_height = field_height ? field_height : h;
  job->n_cells = gst_motion_vector_layout (job->field_width,
      job->field_height, params->partitions, grids);
  if (job->n_cells == 0) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "no motion-vector layout for a %ux%u frame with shapes 0x%x",
        job->field_width, job->field_height, (guint) params->partitions);
    gst_video_frame_unmap (&job->frame);
    job->frame.buffer = NULL;
    job->buffer = NULL;
    gst_motion_est_job_free (job);
    return NULL;
  }
  g_assert (n_fields >= 1 && n_fields <= GST_MOTION_EST_MAX_FIELDS);
  job->n_fields = n_fields;
  for (guint i = 0; i < n_fields; i++) {
    MEField *field = &job->fields[i];

    job->ref_distance[i] = ref_distances[i];
    job->ref_pts[i] = GST_CLOCK_TIME_NONE;
    job->cell_bytes[i] = gst_cell_pool_alloc (cells,
        job->n_cells * sizeof (GstMotionVectorCell));
    job->cells[i] = (GstMotionVectorCell *)
        g_bytes_get_data (job->cell_bytes[i], NULL);
    field->mb_cols = gst_motion_vector_mb_cols (job->field_width);
    field->mb_rows = gst_motion_vector_mb_rows (job->field_height);
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      field->grid[p] = (params->partitions & (1u << p))
          ? job->cells[i] + grids[p].offset : NULL;
  }
  return job;
}

/* What the meta says the costs were computed on. */
static GstMotionVectorLuma
luma_of (const MEPlane * luma)
{
  switch (luma->kind) {
    case ME_LUMA_PACKED:
      return GST_MOTION_VECTOR_LUMA_PACKED;
    case ME_LUMA_RGB:
      return luma->weights[0] == ME_LUMA_BT709_WR
          ? GST_MOTION_VECTOR_LUMA_BT709 : GST_MOTION_VECTOR_LUMA_BT601;
    case ME_LUMA_PLANE:
    default:
      return GST_MOTION_VECTOR_LUMA_PLANE;
  }
}

/* Attaches one meta per field, in the order of the references (the
 * first returned in `meta`, NULL if it could not be added), and hands the
 * buffer back; what followed the frame is appended to
 * `followers`; the job is freed. */
GstBuffer *
gst_motion_est_job_finish (GstMotionEstJob * job, GQueue * followers,
    GstMotionVectorMeta ** meta_out)
{
  GstBuffer *buffer = job->buffer;
  GstMotionVectorMeta *meta = NULL;
  GBytes *bytes;

  if (job->frame.buffer)
    gst_video_frame_unmap (&job->frame);
  job->frame.buffer = NULL;
  g_clear_pointer (&job->luma_map, gst_shared_map_release);

  /* one meta per field, in the order of the references */
  for (guint i = 0; i < job->n_fields; i++) {
    const gboolean has_reference = job->fields[i].has_reference;
    GstMotionVectorMeta *m;

    bytes = g_steal_pointer (&job->cell_bytes[i]);
    job->cells[i] = NULL;
    m = gst_buffer_add_motion_vector_meta (buffer, job->field_width,
        job->field_height, job->params.partitions, bytes);
    g_bytes_unref (bytes);
    if (!m)
      continue;
    m->ref_distance = job->ref_distance[i];
    m->ref_pts = has_reference ? job->ref_pts[i] : GST_CLOCK_TIME_NONE;
    m->flags = has_reference ? GST_MOTION_VECTOR_META_FLAG_NONE
        : GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE;
    m->method = job->params.method;
    m->search_range = job->params.search_range;
    m->view = job->field_view[i];
    if (job->inter_view[i]) {
      /* disparity: a full search of its own window */
      m->flags |= GST_MOTION_VECTOR_META_FLAG_INTER_VIEW;
      m->method = GST_MOTION_VECTOR_METHOD_FULL;
      m->search_range = job->inter_view_range;
    }
    m->luma = luma_of (&job->luma);
    m->bit_depth = me_plane_depth (&job->luma);
    if (job->luma.kind == ME_LUMA_RGB)
      m->flags |= GST_MOTION_VECTOR_META_FLAG_DERIVED_LUMA;
    if (i == 0)
      meta = m;
  }

  if (meta_out)
    *meta_out = meta;
  job->buffer = NULL;
  while (!g_queue_is_empty (&job->followers))
    g_queue_push_tail (followers, g_queue_pop_head (&job->followers));
  gst_motion_est_job_free (job);
  return buffer;
}

void
gst_motion_est_job_free (GstMotionEstJob * job)
{
  if (job->frame.buffer)
    gst_video_frame_unmap (&job->frame);
  g_clear_pointer (&job->luma_map, gst_shared_map_release);
  gst_clear_buffer (&job->buffer);
  g_queue_clear_full (&job->followers, (GDestroyNotify) gst_mini_object_unref);
  for (guint i = 0; i < GST_MOTION_EST_MAX_FIELDS; i++)
    g_clear_pointer (&job->cell_bytes[i], g_bytes_unref);
  g_free (job);
}

/* Field i without a reference: every cell zero, as a backend leaves it. */
void
gst_motion_est_job_clear_field (GstMotionEstJob * job, guint i)
{
  memset (job->cells[i], 0, job->n_cells * sizeof (GstMotionVectorCell));
  job->fields[i].has_reference = FALSE;
  job->ref_pts[i] = GST_CLOCK_TIME_NONE;
}
