/* gpumotionest — element tests with GstHarness.
 *
 * Frames are crops of one random "world" image at different offsets, so the
 * true motion of every block is known: frame k shows world(x + ox_k, y + oy_k)
 * and the current frame matches the previous one at (ox_cur - ox_prev,
 * oy_cur - oy_prev).  Random texture makes that match unique with SAD 0.
 *
 * The backend is "auto": on a machine with a usable GPU the same tests run
 * the CUDA path.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "testworld.h"

#define WORLD_W 4400
#define WORLD_H 2600

static guint8 *world;

static void
world_setup (void)
{
  world = test_world_new (WORLD_W, WORLD_H, 1234);
}

static void
world_teardown (void)
{
  g_clear_pointer (&world, g_free);
}

/* A frame of `format` whose luma is the world seen from (ox, oy); chroma is
 * grey.  extra_stride > 0 makes rows longer than needed, described by a
 * GstVideoMeta, with the planes at unusual offsets. */
static GstBuffer *
make_frame (GstVideoFormat format, guint w, guint h, guint ox, guint oy,
    guint extra_stride)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;

  fail_unless (ox + w <= WORLD_W && oy + h <= WORLD_H);
  gst_video_info_set_format (&info, format, w, h);
  if (extra_stride) {
    gsize offset = 64 + extra_stride;   /* planes do not start at 0 */
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS];
      gst_video_format_info_component (info.finfo, p, comp);
      info.stride[p] += extra_stride;
      info.offset[p] = offset;
      offset += (gsize) info.stride[p]
          * GST_VIDEO_INFO_COMP_HEIGHT (&info, comp[0]) + 32;
    }
    info.size = offset;
  }
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, 0x5a, info.size);
  if (extra_stride)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
        w, h, GST_VIDEO_INFO_N_PLANES (&info), info.offset, info.stride);

  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint rows, bytes;

    gst_video_format_info_component (frame.info.finfo, p, comp);
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
    bytes = GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0])
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]);
    for (guint y = 0; y < rows; y++) {
      if (p == 0)
        memcpy (d + (gsize) y * stride, world + (gsize) (oy + y) * WORLD_W + ox,
            w);
      else
        memset (d + (gsize) y * stride, 128, bytes);
    }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

static GstHarness *
harness_new (const gchar * format, guint w, guint h, guint range,
    guint partitions)
{
  GstHarness *hn = gst_harness_new ("gpumotionest");
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1", format, w, h);

  /* One frame in flight: each push gives its buffer back at once.  The
   * order tests below use deeper queues. */
  g_object_set (hn->element, "search-range", range, "partitions", partitions,
      "in-flight", 1, NULL);
  gst_harness_set_src_caps_str (hn, caps);
  g_free (caps);
  return hn;
}

static GstBuffer *
push_pull (GstHarness * h, GstBuffer * in)
{
  GstBuffer *out;
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  return out;
}

static GstMotionVectorMeta *
get_meta (GstBuffer * buf)
{
  GstMotionVectorMeta *meta = gst_buffer_get_motion_vector_meta (buf);
  fail_unless (meta != NULL, "buffer has no motion vector meta");
  return meta;
}

/* Every cell whose block lies inside the frame and whose match (block moved
 * by (dx, dy)) lies inside the previous frame must hold exactly that vector
 * with cost 0; with `whole_mb`, only cells whose whole macroblock does (the
 * fast methods walk by the macroblock's cost).  Returns how many cells were
 * checked. */
static guint
check_true_motion_in (GstMotionVectorMeta * meta, GstMotionVectorPartition p,
    guint w, guint h, gint dx, gint dy, gboolean whole_mb)
{
  guint cols, rows, checked = 0;
  guint bw = gst_motion_vector_partition_width (p);
  guint bh = gst_motion_vector_partition_height (p);
  const GstMotionVectorCell *g = gst_motion_vector_meta_get_grid (meta, p,
      &cols, &rows);

  fail_unless (g != NULL);
  fail_unless_equals_int (cols, gst_motion_vector_grid_cols (p,
          gst_motion_vector_mb_cols (w)));
  fail_unless_equals_int (rows, gst_motion_vector_grid_rows (p,
          gst_motion_vector_mb_rows (h)));
  for (guint r = 0; r < rows; r++) {
    for (guint c = 0; c < cols; c++) {
      gint x = c * bw, y = r * bh;
      const GstMotionVectorCell *cell = &g[r * cols + c];

      if (x + bw > w || y + bh > h || x + dx < 0 || y + dy < 0
          || x + dx + bw > w || y + dy + bh > h)
        continue;
      if (whole_mb) {
        gint mx = x & ~15, my = y & ~15;
        if (mx + 16 > (gint) w || my + 16 > (gint) h || mx + dx < 0
            || my + dy < 0 || mx + dx + 16 > (gint) w
            || my + dy + 16 > (gint) h)
          continue;
      }
      if (cell->mv_x != 4 * dx || cell->mv_y != 4 * dy || cell->cost != 0)
        fail ("shape %d cell (%u,%u): got (%d,%d) cost %u, want (%d,%d) cost 0",
            p, c, r, cell->mv_x, cell->mv_y, cell->cost, 4 * dx, 4 * dy);
      fail_unless_equals_int (cell->mvd_x, cell->mv_x - cell->pred_x);
      fail_unless_equals_int (cell->mvd_y, cell->mv_y - cell->pred_y);
      checked++;
    }
  }
  return checked;
}

static guint
check_true_motion (GstMotionVectorMeta * meta, GstMotionVectorPartition p,
    guint w, guint h, gint dx, gint dy)
{
  return check_true_motion_in (meta, p, w, h, dx, dy, FALSE);
}

static void
check_no_reference (GstMotionVectorMeta * meta)
{
  gsize size;
  const guint8 *d = g_bytes_get_data (meta->data, &size);

  fail_unless (meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
  fail_unless_equals_uint64 (meta->ref_pts, GST_CLOCK_TIME_NONE);
  for (gsize i = 0; i < size; i++)
    fail_unless (d[i] == 0, "cell byte %" G_GSIZE_FORMAT " not zero", i);
}

/* Two frames, the second moved by (dx, dy), searched by `method`; checks
 * every shape asked for. */
static void
run_shift_method (const gchar * method, const gchar * format, guint w,
    guint h, guint range, guint partitions, gint dx, gint dy,
    guint min_checked)
{
  GstHarness *hn = harness_new (format, w, h, range, partitions);
  GstVideoFormat fmt = gst_video_format_from_string (format);
  guint ox = 300, oy = 200, checked = 0;
  GstBuffer *b0, *b1, *in0, *in1;
  GstMotionVectorMeta *m0, *m1;

  gst_util_set_object_arg (G_OBJECT (hn->element), "method", method);
  in0 = make_frame (fmt, w, h, ox, oy, 0);
  GST_BUFFER_PTS (in0) = 0;
  in1 = make_frame (fmt, w, h, ox + dx, oy + dy, 0);
  GST_BUFFER_PTS (in1) = GST_SECOND / 30;

  b0 = push_pull (hn, in0);
  b1 = push_pull (hn, in1);
  m0 = get_meta (b0);
  m1 = get_meta (b1);
  check_no_reference (m0);
  fail_if (m1->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
  fail_unless_equals_int (m1->ref_distance, -1);
  fail_unless_equals_uint64 (m1->ref_pts, 0);
  fail_unless_equals_int (m1->width, w);
  fail_unless_equals_int (m1->height, h);
  fail_unless_equals_int (m1->search_range, range);
  fail_unless_equals_int (m1->partitions, partitions);
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if (partitions & (1 << p))
      checked += check_true_motion_in (m1, p, w, h, dx, dy,
          strcmp (method, "full") != 0);
  GST_INFO ("%s %ux%u ±%u shapes 0x%x shift (%d,%d): %u cells exact",
      format, w, h, range, partitions, dx, dy, checked);
  fail_unless (checked >= min_checked, "only %u cells checked", checked);
  {
    GEnumClass *k = g_type_class_ref (gst_motion_vector_method_get_type ());
    fail_unless_equals_string (g_enum_get_value (k, m1->method)->value_nick,
        method);
    g_type_class_unref (k);
  }
  gst_buffer_unref (b0);
  gst_buffer_unref (b1);
  gst_harness_teardown (hn);
}

/* Caps with memory:CUDAMemory (what a CUDA element upstream negotiates)
 * while the buffers are plain system memory, as a CUDA-less upstream or a
 * test pushes them: the frames are read from host memory, the vectors are
 * the true motion, and the caps go on downstream unchanged.  A build
 * without GStreamer's CUDA library does not offer the feature at all. */
GST_START_TEST (test_cuda_caps_system_memory)
{
  GstElement *e = gst_element_factory_make ("gpumotionest", NULL);
  GstPadTemplate *t =
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), "sink");
  g_autofree gchar *tcaps = gst_caps_to_string (GST_PAD_TEMPLATE_CAPS (t));
  GstHarness *hn;
  GstBuffer *b0, *b1;
  GstCaps *caps;
  guint checked;

  if (!strstr (tcaps, "memory:CUDAMemory")) {
    GST_INFO ("built without CUDA memory support: %s", tcaps);
    gst_object_unref (e);
    return;
  }
  g_object_set (e, "search-range", 16, "in-flight", 1, NULL);
  hn = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_src_caps_str (hn, "video/x-raw(memory:CUDAMemory),"
      "format=I420,width=320,height=240,framerate=30/1");
  b0 = make_frame (GST_VIDEO_FORMAT_I420, 320, 240, 300, 200, 0);
  b1 = make_frame (GST_VIDEO_FORMAT_I420, 320, 240, 305, 197, 0);
  GST_BUFFER_PTS (b0) = 0;
  GST_BUFFER_PTS (b1) = GST_SECOND / 30;
  b0 = push_pull (hn, b0);
  b1 = push_pull (hn, b1);
  checked = check_true_motion_in (get_meta (b1),
      GST_MOTION_VECTOR_PARTITION_16X16, 320, 240, 5, -3, FALSE);
  fail_unless (checked >= 200, "only %u cells exact", checked);
  caps = gst_pad_get_current_caps (hn->sinkpad);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
          "memory:CUDAMemory"), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  gst_buffer_unref (b0);
  gst_buffer_unref (b1);
  gst_harness_teardown (hn);
  gst_object_unref (e);
}

GST_END_TEST;

static void
run_shift (const gchar * format, guint w, guint h, guint range,
    guint partitions, gint dx, gint dy, guint min_checked)
{
  run_shift_method ("full", format, w, h, range, partitions, dx, dy,
      min_checked);
}

GST_START_TEST (test_shift_16x16)
{
  run_shift ("I420", 320, 240, 16, GST_MOTION_VECTOR_PARTITIONS_16X16, 5, -3,
      200);
  run_shift ("I420", 320, 240, 16, GST_MOTION_VECTOR_PARTITIONS_16X16, -16, 16,
      150);
  run_shift ("I420", 320, 240, 7, GST_MOTION_VECTOR_PARTITIONS_16X16, 0, 0,
      300);
}

GST_END_TEST;

GST_START_TEST (test_shift_all_shapes)
{
  run_shift ("I420", 160, 96, 8, GST_MOTION_VECTOR_PARTITIONS_ALL, -6, 7, 400);
  run_shift ("I420", 160, 96, 8, GST_MOTION_VECTOR_PARTITIONS_8X8 |
      GST_MOTION_VECTOR_PARTITIONS_4X4, 3, 1, 400);
}

GST_END_TEST;

GST_START_TEST (test_shift_1080p)
{
  /* Every interior macroblock of a 1080p frame gets the true vector. */
  run_shift ("I420", 1920, 1080, 16, GST_MOTION_VECTOR_PARTITIONS_16X16, 11,
      -9, 7800);
}

GST_END_TEST;

GST_START_TEST (test_shift_4k)
{
  run_shift ("NV12", 4096, 2304, 4, GST_MOTION_VECTOR_PARTITIONS_16X16, 2, 3,
      36000);
}

GST_END_TEST;

GST_START_TEST (test_odd_sizes)
{
  /* 17x9: one macroblock column is padded; the 8x8 and 4x4 blocks inside
   * the frame still find the shift. */
  run_shift ("I420", 17, 9, 4, GST_MOTION_VECTOR_PARTITIONS_ALL, 1, 0, 2);
  run_shift ("GRAY8", 16, 16, 4, GST_MOTION_VECTOR_PARTITIONS_ALL, 0, 0, 1);
  run_shift ("Y444", 33, 47, 5, GST_MOTION_VECTOR_PARTITIONS_4X4, -2, 3, 40);
}

GST_END_TEST;

GST_START_TEST (test_1x1)
{
  GstHarness *h = harness_new ("GRAY8", 1, 1, 16,
      GST_MOTION_VECTOR_PARTITIONS_ALL);
  GstBuffer *b0 = push_pull (h, make_frame (GST_VIDEO_FORMAT_GRAY8, 1, 1, 0,
          0, 0));
  GstBuffer *b1 = push_pull (h, make_frame (GST_VIDEO_FORMAT_GRAY8, 1, 1, 0,
          0, 0));
  GstMotionVectorMeta *m = get_meta (b1);

  check_no_reference (get_meta (b0));
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint cols, rows;
    const GstMotionVectorCell *g = gst_motion_vector_meta_get_grid (m, p, &cols,
        &rows);
    /* The same flat 1x1 frame twice: every candidate costs 0, so the tie
     * rule picks the zero vector everywhere. */
    for (guint i = 0; i < cols * rows; i++) {
      fail_unless_equals_int (g[i].cost, 0);
      fail_unless_equals_int (g[i].mv_x, 0);
      fail_unless_equals_int (g[i].mv_y, 0);
    }
  }
  gst_buffer_unref (b0);
  gst_buffer_unref (b1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The luma of every format, packed or strided, gives the same field. */
GST_START_TEST (test_formats_and_strides)
{
  static const gchar *formats[] = { "I420", "YV12", "NV12", "NV21", "Y42B",
    "Y444", "GRAY8"
  };
  const guint w = 72, h = 40;
  GBytes *expect = NULL;

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (guint extra = 0; extra <= 40; extra += 40) {
      GstVideoFormat fmt = gst_video_format_from_string (formats[f]);
      GstHarness *hn = harness_new (formats[f], w, h, 6,
          GST_MOTION_VECTOR_PARTITIONS_ALL);
      GstBuffer *b0 = push_pull (hn, make_frame (fmt, w, h, 50, 60, extra));
      GstBuffer *b1 = push_pull (hn, make_frame (fmt, w, h, 47, 62, extra));
      GstMotionVectorMeta *m = get_meta (b1);

      check_true_motion (m, GST_MOTION_VECTOR_PARTITION_8X8, w, h, -3, 2);
      if (!expect)
        expect = g_bytes_ref (m->data);
      else
        fail_unless (g_bytes_equal (expect, m->data),
            "%s (extra stride %u) differs from I420", formats[f], extra);
      gst_buffer_unref (b0);
      gst_buffer_unref (b1);
      gst_harness_teardown (hn);
    }
  }
  g_bytes_unref (expect);
}

GST_END_TEST;

/* Pixels pass through untouched, in the same buffers, in order. */
/* One picture in flight in many instances at once (a tee into many
 * branches, or many streams of the same frames): every frame in flight is
 * read from the same memory.  A GstMemory counts its mappings in 8 bits, so
 * instances that each held their frames mapped (once per frame, or once
 * per plane with a video meta) wrapped the count past 255 (here 24
 * instances x 15 frames) and corrupted the memory's lock state: an unmap
 * failed its assertion ("gst_mini_object_unlock: assertion '(state &
 * access_mode) == access_mode' failed"), and the memory stayed marked as
 * shared after every buffer was gone. */
#define SHARED_INSTANCES 24
#define SHARED_FRAMES 16

GST_START_TEST (test_many_instances_one_memory)
{
  GstHarness *h[SHARED_INSTANCES];
  GstBuffer *picture = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 100, 100,
      0);

  for (guint k = 0; k < SHARED_INSTANCES; k++) {
    h[k] = harness_new ("I420", 64, 48, 8,
        GST_MOTION_VECTOR_PARTITIONS_16X16);
    g_object_set (h[k]->element, "in-flight", SHARED_FRAMES, "threads", 1,
        NULL);
  }
  /* every instance holds all but its newest frame in flight */
  for (guint i = 0; i < SHARED_FRAMES; i++) {
    for (guint k = 0; k < SHARED_INSTANCES; k++) {
      GstBuffer *buf = gst_buffer_copy (picture);        /* same memory */
      GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
      fail_unless_equals_int (gst_harness_push (h[k], buf), GST_FLOW_OK);
    }
  }
  for (guint k = 0; k < SHARED_INSTANCES; k++) {
    fail_unless (gst_harness_push_event (h[k], gst_event_new_eos ()));
    for (guint i = 0; i < SHARED_FRAMES; i++) {
      GstBuffer *out = gst_harness_pull (h[k]);
      GstMotionVectorMeta *m;

      fail_unless (out != NULL, "instance %u: frame %u missing", k, i);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
      m = get_meta (out);
      if (i == 0)
        check_no_reference (m);
      else
        check_true_motion (m, GST_MOTION_VECTOR_PARTITION_16X16, 64, 48, 0, 0);
      gst_buffer_unref (out);
    }
    fail_unless_equals_int (gst_harness_buffers_in_queue (h[k]), 0);
    gst_harness_teardown (h[k]);
  }
  /* every copy is gone: the picture's memory is its own again */
  fail_unless (gst_buffer_is_all_memory_writable (picture));
  gst_buffer_unref (picture);
}

GST_END_TEST;

GST_START_TEST (test_passthrough_order)
{
  GstHarness *h = harness_new ("I420", 64, 48, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16);
  GRand *rand = g_rand_new_with_seed (7);
  const guint n = 40;
  GstBuffer *in[40];

  for (guint i = 0; i < n; i++) {
    GstBuffer *buf = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, i * 3, i * 2,
        0);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    /* An independent copy of the pixels, to compare with afterwards. */
    in[i] = gst_buffer_copy_deep (buf);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    if (g_rand_int_range (rand, 0, 4) == 0)
      g_usleep (g_rand_int_range (rand, 0, 3000));
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  for (guint i = 0; i < n; i++) {
    GstBuffer *out = gst_harness_pull (h);
    GstMotionVectorMeta *m = get_meta (out);
    GstMapInfo a, b;

    fail_unless (gst_buffer_map (out, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (in[i], &b, GST_MAP_READ));
    fail_unless_equals_int (a.size, b.size);
    fail_unless (memcmp (a.data, b.data, a.size) == 0, "pixels changed");
    gst_buffer_unmap (out, &a);
    gst_buffer_unmap (in[i], &b);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in[i]));
    if (i > 0)
      check_true_motion (m, GST_MOTION_VECTOR_PARTITION_16X16, 64, 48, 3, 2);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstHarness *
harness_deep (guint depth)
{
  GstHarness *h = harness_new ("I420", 64, 48, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16);
  g_object_set (h->element, "in-flight", depth, NULL);
  return h;
}

static void
push_frames (GstHarness * h, guint first, guint n)
{
  for (guint i = first; i < first + n; i++) {
    GstBuffer *buf = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 100 + i, 100,
        0);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
}

/* Frames first .. first + n - 1 of a stream that starts at frame 0: frame
 * 0 has no reference, every other one was searched against its
 * predecessor and found the true motion. */
static void
pull_frames (GstHarness * h, guint first, guint n)
{
  for (guint i = first; i < first + n; i++) {
    GstBuffer *out = gst_harness_pull (h);
    GstMotionVectorMeta *m;

    fail_unless (out != NULL, "frame %u missing", i);
    m = get_meta (out);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
    if (i == 0) {
      check_no_reference (m);
    } else {
      fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE,
          "frame %u lost its reference", i);
      fail_unless_equals_uint64 (m->ref_pts, (i - 1) * GST_SECOND / 30);
      check_true_motion (m, GST_MOTION_VECTOR_PARTITION_16X16, 64, 48, 1, 0);
    }
    gst_buffer_unref (out);
  }
}

/* With four frames in flight, a frame leaves when the fourth after it
 * arrives; EOS drains the rest, in order, before the EOS itself. */
GST_START_TEST (test_eos_drains_in_flight)
{
  GstHarness *h = harness_deep (4);
  GstEvent *ev;

  push_frames (h, 0, 3);
  fail_unless (gst_harness_try_pull (h) == NULL);
  push_frames (h, 3, 2);
  pull_frames (h, 0, 2);
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_frames (h, 2, 3);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  /* sticky events first, then EOS last */
  while ((ev = gst_harness_try_pull_event (h))) {
    GstEventType type = GST_EVENT_TYPE (ev);
    gst_event_unref (ev);
    if (type == GST_EVENT_EOS)
      break;
  }
  fail_unless (gst_harness_try_pull_event (h) == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A new depth while playing finishes the frames in flight and keeps the
 * reference: the next frame is still searched against its predecessor. */
GST_START_TEST (test_depth_change_keeps_reference)
{
  GstHarness *h = harness_deep (1);

  push_frames (h, 0, 2);
  pull_frames (h, 0, 2);
  g_object_set (h->element, "in-flight", 3, NULL);
  push_frames (h, 2, 2);
  fail_unless (gst_harness_try_pull (h) == NULL);
  push_frames (h, 4, 1);
  {
    GstBuffer *b = gst_harness_pull (h);
    GstMotionVectorMeta *m = get_meta (b);
    fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
    check_true_motion (m, GST_MOTION_VECTOR_PARTITION_16X16, 64, 48, 1, 0);
    gst_buffer_unref (b);
  }
  g_object_set (h->element, "in-flight", 1, NULL);
  push_frames (h, 5, 1);
  pull_frames (h, 3, 3);
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Under in-flight=0 the backend's depth follows whether a lambda is set
 * (CUDA keeps more frames in flight for the rate decision): switching qp
 * on and off mid-stream finishes the frames in flight first, and no frame
 * is lost, reordered or cut from its reference. */
GST_START_TEST (test_lambda_switch_keeps_frames)
{
  GstHarness *h = harness_deep (0);

  push_frames (h, 0, 3);
  g_object_set (h->element, "qp", 26, NULL);
  push_frames (h, 3, 3);
  g_object_set (h->element, "lambda", 0, NULL);
  push_frames (h, 6, 3);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (guint i = 0; i < 9; i++) {
    GstBuffer *out = gst_harness_pull (h);
    GstMotionVectorMeta *m = get_meta (out);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
    fail_unless_equals_int (! !(m->flags &
            GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE), i == 0);
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flush drops what is in flight and the reference; the stream goes on. */
GST_START_TEST (test_flush_with_frames_in_flight)
{
  GstHarness *h = harness_deep (4);
  GstSegment seg;
  GstBuffer *b;

  push_frames (h, 0, 6);
  pull_frames (h, 0, 3);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless (gst_harness_try_pull (h) == NULL);

  push_frames (h, 10, 4);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  b = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), 10 * GST_SECOND / 30);
  check_no_reference (get_meta (b));
  gst_buffer_unref (b);
  pull_frames (h, 11, 3);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* New caps finish the frames in flight first: they leave before the caps
 * and are searched at the old size. */
GST_START_TEST (test_caps_change_with_frames_in_flight)
{
  GstHarness *h = harness_deep (3);
  GstBuffer *b;

  push_frames (h, 0, 4);
  pull_frames (h, 0, 2);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=I420,width=32,height=32,framerate=30/1");
  pull_frames (h, 2, 2);
  b = make_frame (GST_VIDEO_FORMAT_I420, 32, 32, 0, 0, 0);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  b = gst_harness_pull (h);
  fail_unless_equals_int (get_meta (b)->width, 32);
  check_no_reference (get_meta (b));
  gst_buffer_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_discont_resets)
{
  GstHarness *h = harness_new ("I420", 64, 64, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16);
  GstBuffer *b, *in;

  gst_buffer_unref (push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 64, 64,
              10, 10, 0)));
  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 64, 64, 12, 10, 0));
  fail_if (get_meta (b)->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
  gst_buffer_unref (b);

  in = make_frame (GST_VIDEO_FORMAT_I420, 64, 64, 14, 10, 0);
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
  b = push_pull (h, in);
  check_no_reference (get_meta (b));
  gst_buffer_unref (b);

  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 64, 64, 16, 10, 0));
  check_true_motion (get_meta (b), GST_MOTION_VECTOR_PARTITION_16X16, 64, 64,
      2, 0);
  gst_buffer_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_caps_change_resets)
{
  GstHarness *h = harness_new ("I420", 64, 64, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_8X8);
  GstBuffer *b;
  GstMotionVectorMeta *m;

  gst_buffer_unref (push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 64, 64,
              10, 10, 0)));
  gst_buffer_unref (push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 64, 64,
              11, 10, 0)));

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=NV12,width=48,height=40,framerate=30/1");
  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_NV12, 48, 40, 10, 10, 0));
  m = get_meta (b);
  check_no_reference (m);
  fail_unless_equals_int (m->width, 48);
  fail_unless_equals_int (m->grids[GST_MOTION_VECTOR_PARTITION_16X16].cols, 3);
  fail_unless_equals_int (m->grids[GST_MOTION_VECTOR_PARTITION_16X16].rows, 3);
  gst_buffer_unref (b);

  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_NV12, 48, 40, 9, 12, 0));
  check_true_motion (get_meta (b), GST_MOTION_VECTOR_PARTITION_8X8, 48, 40,
      -1, 2);
  gst_buffer_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_flush_resets)
{
  GstHarness *h = harness_new ("I420", 64, 64, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16);
  GstBuffer *b;

  for (guint i = 0; i < 3; i++)
    gst_buffer_unref (push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 64, 64,
                10 + i, 10, 0)));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  {
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  }
  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 64, 64, 20, 10, 0));
  check_no_reference (get_meta (b));
  gst_buffer_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_refuses_unsupported_caps)
{
  GstHarness *h = gst_harness_new ("gpumotionest");
  GstCaps *caps;

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=64,height=64,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_and_alloc (64 *
              64 * 3)), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);

  /* The pad template states what is accepted: up to 8192x8192; 10 to 16
   * bits little-endian, as decoders hand them over, not big-endian. */
  h = gst_harness_new ("gpumotionest");
  caps = gst_caps_from_string
      ("video/x-raw,format=I420,width=8200,height=64,framerate=30/1");
  fail_if (gst_pad_query_accept_caps (GST_PAD_PEER (h->srcpad), caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string
      ("video/x-raw,format=I420_10BE,width=64,height=64,framerate=30/1");
  fail_if (gst_pad_query_accept_caps (GST_PAD_PEER (h->srcpad), caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string
      ("video/x-raw,format=I420_10LE,width=64,height=64,framerate=30/1");
  fail_unless (gst_pad_query_accept_caps (GST_PAD_PEER (h->srcpad), caps));
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A short buffer is an error, not a crash. */
GST_START_TEST (test_short_buffer_errors)
{
  GstHarness *h = harness_new ("I420", 64, 64, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16);

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_and_alloc (100)),
      GST_FLOW_ERROR);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The fast methods find a shift on noise where their definitions put the
 * true vector among the candidates (docs/fast-search.md): noise has no
 * slope to descend, so a walk finds only what it lands on.  hierarchical
 * finds a large shift through its pyramid when the shift is a multiple of
 * 4, so that every level holds an exact match (decimated noise moved by a
 * fraction of a sample matches nowhere well), mods one whose y is on its
 * first step, predictive one inside its first 3x3 pattern, which then
 * spreads to every macroblock through the spatial predictors. */
GST_START_TEST (test_fast_methods_shift)
{
  run_shift_method ("hierarchical", "I420", 640, 368, 200,
      GST_MOTION_VECTOR_PARTITIONS_16X16, 148, -88, 300);
  run_shift_method ("hierarchical", "I420", 256, 160, 64,
      GST_MOTION_VECTOR_PARTITIONS_ALL, -36, 20, 1000);
  run_shift_method ("mods", "I420", 320, 240, 16,
      GST_MOTION_VECTOR_PARTITIONS_16X16, 7, -8, 200);
  run_shift_method ("predictive", "I420", 320, 240, 16,
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_8X8,
      1, -1, 800);
  run_shift_method ("predictive", "NV12", 1920, 1080, 256,
      GST_MOTION_VECTOR_PARTITIONS_16X16, -1, 0, 7800);
}

GST_END_TEST;

/* Properties changed while playing apply from the next frame. */
GST_START_TEST (test_property_change_while_playing)
{
  GstHarness *h = harness_new ("I420", 96, 64, 4,
      GST_MOTION_VECTOR_PARTITIONS_16X16);
  GstBuffer *b;
  GstMotionVectorMeta *m;

  gst_buffer_unref (push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64,
              100, 100, 0)));
  /* 10 pixels of motion: out of reach at ±4 ... */
  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64, 110, 100, 0));
  m = get_meta (b);
  fail_unless_equals_int (m->search_range, 4);
  fail_unless (gst_motion_vector_meta_get_cell (m,
          GST_MOTION_VECTOR_PARTITION_16X16, 1, 1)->cost > 0);
  gst_buffer_unref (b);

  /* ... found at ±12, with the 8x8 grid added. */
  g_object_set (h->element, "search-range", 12, "partitions",
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_8X8,
      NULL);
  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64, 120, 100, 0));
  m = get_meta (b);
  fail_unless_equals_int (m->search_range, 12);
  check_true_motion (m, GST_MOTION_VECTOR_PARTITION_16X16, 96, 64, 10, 0);
  check_true_motion (m, GST_MOTION_VECTOR_PARTITION_8X8, 96, 64, 10, 0);
  gst_buffer_unref (b);

  /* Switching backend mid-stream drains and reopens. */
  g_object_set (h->element, "backend", 1 /* cpu */ , NULL);
  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64, 121, 100, 0));
  gst_buffer_unref (b);
  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64, 123, 101, 0));
  check_true_motion (get_meta (b), GST_MOTION_VECTOR_PARTITION_16X16, 96, 64,
      2, 1);
  gst_buffer_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The meta follows the buffer through a scaler, rescaled. */
GST_START_TEST (test_meta_rescaled_downstream)
{
  GstHarness *h = gst_harness_new_parse ("gpumotionest search-range=8 "
      "in-flight=1 ! videoscale ! capsfilter caps=video/x-raw,width=64,height=32");
  GstBuffer *b;
  GstMotionVectorMeta *m;
  const GstMotionVectorCell *c;

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=I420,width=128,height=64,framerate=30/1");
  gst_harness_push (h, make_frame (GST_VIDEO_FORMAT_I420, 128, 64, 10, 10, 0));
  gst_buffer_unref (gst_harness_pull (h));
  gst_harness_push (h, make_frame (GST_VIDEO_FORMAT_I420, 128, 64, 16, 6, 0));
  b = gst_harness_pull (h);
  m = get_meta (b);
  fail_unless_equals_int (m->width, 64);
  fail_unless_equals_int (m->height, 32);
  fail_unless_equals_int (m->analysis_width, 128);
  c = gst_motion_vector_meta_get_cell (m, GST_MOTION_VECTOR_PARTITION_16X16, 2,
      1);
  /* (6, -4) pixels at 128x64 is (3, -2) pixels at 64x32: quarter-pel 12, -8 */
  fail_unless_equals_int (c->mv_x, 12);
  fail_unless_equals_int (c->mv_y, -8);
  gst_buffer_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* On a backend with its own host memory (page-locked, for the GPU) the
 * element offers upstream a pool of it, and frames written there work like
 * any other; on the CPU it offers none. */
GST_START_TEST (test_host_memory_pool)
{
  GstHarness *h = gst_harness_new ("gpumotionest");
  GstAllocator *allocator = NULL;
  gchar *name = NULL;
  GstBuffer *b;

  g_object_set (h->element, "search-range", 8, "in-flight", 1, NULL);
  g_object_get (h->element, "active-backend", &name, NULL);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1");
  /* The harness asks for an allocation when it first makes a buffer. */
  gst_buffer_unref (gst_harness_create_buffer (h, 64));
  gst_harness_get_allocator (h, &allocator, NULL);       /* transfer none */
  GST_INFO ("backend %s, allocator %" GST_PTR_FORMAT, name, allocator);
  if (g_strcmp0 (name, "cuda") == 0) {
    GstMapInfo map;
    GstVideoInfo info;

    fail_unless (allocator != NULL);
    fail_unless_equals_string (allocator->mem_type, "MEHostMemory");
    /* A frame written into the pool's memory is searched as usual. */
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
    for (guint i = 0; i < 2; i++) {
      GstBuffer *src = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 10 + 2 * i,
          10, 0);
      b = gst_harness_create_buffer (h, info.size);
      fail_unless (gst_buffer_map (b, &map, GST_MAP_WRITE));
      gst_buffer_extract (src, 0, map.data, info.size);
      gst_buffer_unmap (b, &map);
      fail_unless_equals_string (gst_buffer_peek_memory (b, 0)->allocator->
          mem_type, "MEHostMemory");
      gst_buffer_unref (src);
      b = push_pull (h, b);
      if (i == 1)
        check_true_motion (get_meta (b), GST_MOTION_VECTOR_PARTITION_16X16, 64,
            48, 2, 0);
      gst_buffer_unref (b);
    }
  } else {
    fail_unless (allocator == NULL || g_strcmp0 (allocator->mem_type,
            "MEHostMemory") != 0);
  }
  g_free (name);
  gst_harness_teardown (h);
}

GST_END_TEST;


/* Pushes one frame into a harness whose depth may be above 1 and returns
 * it, drained by EOS-free means: the element's DRAIN query. */
static GstBuffer *
push_pull_deep (GstHarness * h)
{
  GstQuery *drain = gst_query_new_drain ();

  fail_unless_equals_int (gst_harness_push (h,
          make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 100, 100, 0)),
      GST_FLOW_OK);
  fail_unless (gst_pad_peer_query (h->srcpad, drain));
  gst_query_unref (drain);
  return gst_harness_pull (h);
}

/* The element passes its buffers on as they are: upstream may send strided
 * frames (GstVideoMeta) only if downstream reads them. */
GST_START_TEST (test_allocation_video_meta_from_downstream)
{
  for (guint down = 0; down < 2; down++) {
    GstHarness *h = gst_harness_new ("gpumotionest");
    GstCaps *caps = gst_caps_from_string ("video/x-raw,format=I420,"
        "width=64,height=48,framerate=30/1");
    GstQuery *q;

    gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
    if (down)
      gst_harness_add_propose_allocation_meta (h, GST_VIDEO_META_API_TYPE,
          NULL);
    gst_harness_set_src_caps (h, gst_caps_ref (caps));
    q = gst_query_new_allocation (caps, TRUE);
    fail_unless (gst_pad_peer_query (h->srcpad, q));
    fail_unless_equals_int (gst_query_find_allocation_meta (q,
            GST_VIDEO_META_API_TYPE, NULL), down);
    gst_query_unref (q);

    /* Frames in flight are upstream's buffers held here: every pool
     * proposed counts them in its minimum (and maximum, if it has one). */
    g_object_set (h->element, "in-flight", 4, NULL);
    gst_buffer_unref (push_pull_deep (h));
    q = gst_query_new_allocation (caps, TRUE);
    fail_unless (gst_pad_peer_query (h->srcpad, q));
    fail_unless (gst_query_get_n_allocation_pools (q) > 0);
    for (guint i = 0; i < gst_query_get_n_allocation_pools (q); i++) {
      guint size, min, max;

      gst_query_parse_nth_allocation_pool (q, i, NULL, &size, &min, &max);
      fail_unless (min >= 3, "pool %u: min %u", i, min);
      fail_unless (max == 0 || max >= min);
    }
    gst_query_unref (q);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* ---- frames in flight keep their references ------------------------------- */

/* Frame i of a stream cut into segments: every frame but the first of a
 * segment must have been searched against its predecessor. */
static void
pull_checked_flags (GstHarness * h, guint first, guint n,
    gboolean first_has_ref, gboolean check_discont)
{
  for (guint i = first; i < first + n; i++) {
    GstBuffer *out = gst_harness_pull (h);
    GstMotionVectorMeta *m;

    fail_unless (out != NULL, "frame %u missing", i);
    /* only the frame that came in DISCONT leaves DISCONT, not the older
     * frame in flight that leaves first after it came in */
    if (check_discont)
      fail_unless (!GST_BUFFER_IS_DISCONT (out) == (i != first),
          "frame %u: DISCONT %s", i, GST_BUFFER_IS_DISCONT (out) ? "set"
          : "missing");
    m = get_meta (out);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
    if (i == first && !first_has_ref) {
      check_no_reference (m);
    } else {
      fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE,
          "frame %u lost its reference", i);
      fail_unless_equals_uint64 (m->ref_pts, (i - 1) * GST_SECOND / 30);
      check_true_motion (m, GST_MOTION_VECTOR_PARTITION_16X16, 64, 48, 1, 0);
    }
    gst_buffer_unref (out);
  }
}

static void
pull_checked (GstHarness * h, guint first, guint n, gboolean first_has_ref)
{
  pull_checked_flags (h, first, n, first_has_ref, FALSE);
}

/* Pushes frame i flagged DISCONT, as sources mark the first buffer of a
 * stream and the first after a seek. */
static void
push_discont_frame (GstHarness * h, guint i)
{
  GstBuffer *b = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 100 + i, 100, 0);

  GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
  GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
}

/* Only a flush, a caps change or the buffer's own DISCONT flag drops the
 * reference: the base class's discont state, which lasts until a buffer
 * has left, must not, however many frames are in flight. */
GST_START_TEST (test_reference_kept_at_every_depth)
{
  for (guint depth = 1; depth <= 8; depth++) {
    GstHarness *h = harness_deep (depth);
    GstSegment seg;

    GST_INFO ("depth %u", depth);
    push_discont_frame (h, 0);
    push_frames (h, 1, 9);
    pull_checked_flags (h, 0, 10 - (depth - 1), FALSE, TRUE);

    /* A flushing seek: what is in flight is dropped, the reference too. */
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    push_discont_frame (h, 20);
    push_frames (h, 21, 4);
    /* A DISCONT buffer mid-stream starts over as well. */
    push_discont_frame (h, 25);
    push_frames (h, 26, 4);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    pull_checked_flags (h, 20, 5, FALSE, TRUE);
    pull_checked_flags (h, 25, 5, FALSE, TRUE);
    fail_unless (gst_harness_try_pull (h) == NULL);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Frame i, searched against frame `ref`: its flags and its vectors (the
 * frames move one pixel a frame). */
static void
pull_one_checked (GstHarness * h, guint i, gint ref, gboolean discont)
{
  GstBuffer *out = gst_harness_pull (h);
  GstMotionVectorMeta *m;

  fail_unless (out != NULL, "frame %u missing", i);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
  fail_unless (!GST_BUFFER_IS_DISCONT (out) == !discont, "frame %u: DISCONT %s",
      i, GST_BUFFER_IS_DISCONT (out) ? "set" : "missing");
  m = get_meta (out);
  if (ref < 0) {
    check_no_reference (m);
  } else {
    fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE,
        "frame %u lost its reference", i);
    fail_unless_equals_uint64 (m->ref_pts, ref * GST_SECOND / 30);
    check_true_motion (m, GST_MOTION_VECTOR_PARTITION_16X16, 64, 48,
        i - ref, 0);
  }
  gst_buffer_unref (out);
}

/* QoS: downstream says frame i is already late, so the base class drops
 * it. */
static void
make_late (GstHarness * h, guint i)
{
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 1.0, 0,
              i * GST_SECOND / 30)));
}

/* A buffer dropped by QoS leaves a gap: the next buffer, and only it,
 * leaves DISCONT (not the older frame in flight that leaves first after
 * the drop), searched against the last frame kept.  A dropped DISCONT
 * buffer passes its discontinuity on: the next buffer has no reference. */
GST_START_TEST (test_qos_drop_marks_the_next_frame)
{
  for (guint depth = 1; depth <= 8; depth++) {
    GstHarness *h = harness_deep (depth);

    GST_INFO ("depth %u", depth);
    g_object_set (h->element, "qos", TRUE, NULL);
    push_discont_frame (h, 0);
    push_frames (h, 1, 5);
    make_late (h, 6);
    push_frames (h, 6, 3);      /* 6 is dropped */
    make_late (h, 9);
    push_discont_frame (h, 9);  /* dropped */
    push_frames (h, 10, 2);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

    pull_checked_flags (h, 0, 6, FALSE, TRUE);
    pull_one_checked (h, 7, 5, TRUE);
    pull_one_checked (h, 8, 7, FALSE);
    pull_one_checked (h, 10, -1, TRUE);
    pull_one_checked (h, 11, 10, FALSE);
    fail_unless (gst_harness_try_pull (h) == NULL);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A frame that comes in with a field already (an earlier gpumotionest's,
 * kept through a scaler, or a locked one of a buffer pool's) leaves with
 * this element's field only, and the partition decision goes on that
 * field. */
GST_START_TEST (test_field_on_input_replaced)
{
  const GstMotionVectorPartitionFlags stale_parts =
      GST_MOTION_VECTOR_PARTITIONS_8X8;
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  const guint stale_cells = gst_motion_vector_layout (64, 48, stale_parts,
      grids);
  GstHarness *h = harness_new ("I420", 64, 48, 8,
      GST_MOTION_VECTOR_PARTITIONS_ALL);

  g_object_set (h->element, "mode-decision", TRUE, NULL);
  for (guint i = 0; i < 2; i++) {
    GstBuffer *in = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 100 + i, 100,
        0);
    GBytes *stale = g_bytes_new_take (g_malloc0 (stale_cells *
            sizeof (GstMotionVectorCell)),
        stale_cells * sizeof (GstMotionVectorCell));
    GstBuffer *out;
    GstMotionVectorMeta *m, *stale_meta;
    gpointer state = NULL;
    guint fields = 0;

    stale_meta = gst_buffer_add_motion_vector_meta (in, 64, 48, stale_parts,
        stale);
    fail_unless (stale_meta != NULL);
    g_bytes_unref (stale);
    /* a buffer pool's meta is locked to its buffer */
    if (i == 1)
      GST_META_FLAG_SET (&stale_meta->meta, GST_META_FLAG_LOCKED);
    /* handed over writable, so that a locked meta cannot simply go with a
     * copy made for writability: removing it would raise a critical */
    out = push_pull (h, in);
    while (gst_buffer_iterate_meta_filtered (out, &state,
            GST_MOTION_VECTOR_META_API_TYPE))
      fields++;
    fail_unless_equals_int (fields, 1);
    m = get_meta (out);
    fail_unless_equals_int (m->partitions, GST_MOTION_VECTOR_PARTITIONS_ALL);
    fail_unless_equals_int (m->search_range, 8);
    fail_unless (m->flags & GST_MOTION_VECTOR_META_FLAG_HAS_MODES);
    if (i == 1)
      check_true_motion (m, GST_MOTION_VECTOR_PARTITION_16X16, 64, 48, 1, 0);
    gst_buffer_unref (out);
  }
  /* a gap buffer passes unsearched, and without the stale field */
  {
    GstBuffer *gap = gst_buffer_new ();
    GBytes *stale = g_bytes_new_take (g_malloc0 (stale_cells *
            sizeof (GstMotionVectorCell)),
        stale_cells * sizeof (GstMotionVectorCell));
    GstBuffer *out;

    GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
    fail_unless (gst_buffer_add_motion_vector_meta (gap, 64, 48,
            stale_parts, stale) != NULL);
    g_bytes_unref (stale);
    out = push_pull (h, gap);
    fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
    fail_unless (gst_buffer_get_motion_vector_meta (out) == NULL);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- a backend that cannot be opened mid-stream --------------------------- */

static GstBus *
harness_bus (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  return bus;
}

/* Drops what is left on @bus and our reference to it: a message holds its
 * element, which holds the bus. */
static void
release_bus (GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

/* Pops the next error or warning, NULL if there is none. */
static GstMessage *
pop_message (GstBus * bus, GstMessageType type)
{
  return gst_bus_pop_filtered (bus, type);
}

/* The error of a backend that could not be opened: exactly one on @bus,
 * RESOURCE OPEN_READ, giving the CUDA backend's reason. */
static void
expect_open_error (GstBus * bus, const gchar * when)
{
  GstMessage *msg = pop_message (bus, GST_MESSAGE_ERROR);
  g_autoptr (GError) err = NULL;

  fail_unless (msg != NULL, "%s: no error posted", when);
  gst_message_parse_error (msg, &err, NULL);
  GST_INFO ("%s: %s", when, err->message);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_READ), "%s: %s", when, err->message);
  fail_unless (g_str_has_prefix (err->message,
          "The motion search backend could not be opened: "), "%s: %s", when,
      err->message);
  /* "CUDA device 4242 requested ..." with the CUDA backend built, "this
   * build has no cuda backend" without it */
  {
    g_autofree gchar *lower = g_ascii_strdown (err->message, -1);
    fail_unless (strstr (lower, "cuda") != NULL, "%s: %s", when,
        err->message);
  }
  gst_message_unref (msg);
  fail_unless (pop_message (bus, GST_MESSAGE_ERROR) == NULL,
      "%s: more than one error", when);
}

static void
expect_no_active_backend (GstHarness * h)
{
  gchar *name = NULL;

  g_object_get (h->element, "active-backend", &name, NULL);
  fail_unless (name == NULL, "active backend %s", name);
}

/* Full search goes past ±128 (the pruned search of any shapes on the CPU,
 * the plain kernel's ten tie bits on CUDA) and finds the true motion;
 * the fast methods stop at ±256: a larger range is a clear error at the
 * first frame, not a crash or a silently smaller window. */
GST_START_TEST (test_full_range_limit)
{
  run_shift_method ("full", "I420", 64, 64, 200,
      GST_MOTION_VECTOR_PARTITIONS_ALL, 5, -3, 200);

  GstHarness *h = harness_new ("I420", 64, 64, 300,
      GST_MOTION_VECTOR_PARTITIONS_16X16);
  GstBus *bus = harness_bus (h);
  GstMessage *msg;
  g_autoptr (GError) err = NULL;

  gst_util_set_object_arg (G_OBJECT (h->element), "method", "mods");
  fail_unless_equals_int (gst_harness_push (h, make_frame (GST_VIDEO_FORMAT_I420,
              64, 64, 0, 0, 0)), GST_FLOW_ERROR);
  msg = pop_message (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "the fast methods go up to ±256, not "
          "±300") != NULL, "%s", err->message);
  gst_message_unref (msg);
  release_bus (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Asking for a GPU that is not there while playing is an error, posted
 * once per attempt; frames finished before it still leave, nothing
 * crashes, a flush afterwards neither, and a usable backend set later
 * carries on. */
GST_START_TEST (test_backend_reopen_failure)
{
  GstElement *e = gst_element_factory_make ("gpumotionest", NULL);
  GstHarness *h;
  GstBus *bus;
  GstSegment seg;
  GstBuffer *b;

  /* device-id is taken in NULL or READY only: no GPU has index 4242, on
   * any machine, and "auto" starts on the CPU */
  g_object_set (e, "device-id", 4242, "search-range", 8, "in-flight", 2,
      NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1");
  bus = harness_bus (h);
  push_frames (h, 0, 3);
  pull_checked (h, 0, 2, FALSE);
  g_object_set (h->element, "backend", 2 /* cuda */ , NULL);
  b = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 103, 100, 0);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  /* the frame in flight was finished, not lost */
  pull_checked (h, 2, 1, TRUE);
  expect_open_error (bus, "first frame after the change");
  expect_no_active_backend (h);

  /* Again, and through a flush: errors, never a crash. */
  b = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 104, 100, 0);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  expect_open_error (bus, "second frame");
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless (pop_message (bus, GST_MESSAGE_ERROR) == NULL);
  b = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 105, 100, 0);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  expect_open_error (bus, "frame after a flush");
  expect_no_active_backend (h);
  fail_unless (gst_harness_try_pull (h) == NULL);

  /* "auto" (the device still missing) falls back to the CPU and goes on:
   * the first frame has no reference, the others have. */
  g_object_set (h->element, "backend", 0 /* auto */ , NULL);
  push_frames (h, 6, 3);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_checked (h, 6, 3, FALSE);
  fail_unless (pop_message (bus, GST_MESSAGE_ERROR) == NULL);
  {
    gchar *name = NULL;
    g_object_get (h->element, "active-backend", &name, NULL);
    fail_unless_equals_string (name, "cpu");
    g_free (name);
  }
  release_bus (bus);
  gst_harness_teardown (h);
  gst_object_unref (e);
}

GST_END_TEST;

/* "auto" where CUDA cannot be opened (no GPU has index 4242, on any
 * machine): the CPU backend, the same vectors, and one warning for the
 * element's lifetime, not one per reopen. */
GST_START_TEST (test_auto_fallback_warns_once)
{
  GstElement *e = gst_element_factory_make ("gpumotionest", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  GstMessage *msg;
  g_autoptr (GError) err = NULL;
  gchar *name = NULL;

  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  g_object_set (e, "device-id", 4242, "search-range", 8, "in-flight", 1,
      NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1");
  push_frames (h, 0, 3);
  pull_checked (h, 0, 3, FALSE);
  /* Two reopens, each falling back again. */
  g_object_set (e, "threads", 1, NULL);
  push_frames (h, 3, 2);
  pull_checked (h, 3, 2, FALSE);
  g_object_set (e, "threads", 2, NULL);
  push_frames (h, 5, 2);
  pull_checked (h, 5, 2, FALSE);
  /* The values already set, set again: no reopen, the reference kept. */
  g_object_set (e, "backend", 0 /* auto, again */ , "threads", 2, NULL);
  push_frames (h, 7, 2);
  pull_checked (h, 7, 2, TRUE);
  g_object_get (e, "active-backend", &name, NULL);
  fail_unless_equals_string (name, "cpu");
  g_free (name);
  /* device-id is refused while streaming: the shared CUDA context was
   * chosen for the device asked for when streaming started */
  {
    gint id = 0;
    g_object_set (e, "device-id", 0, NULL);
    g_object_get (e, "device-id", &id, NULL);
    fail_unless_equals_int (id, 4242);
  }

  msg = pop_message (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning");
  gst_message_parse_warning (msg, &err, NULL);
  GST_INFO ("warning: %s", err->message);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_READ), "%s", err->message);
  fail_unless (g_str_has_prefix (err->message, "Using the cpu backend"),
      "%s", err->message);
  gst_message_unref (msg);
  fail_unless (pop_message (bus, GST_MESSAGE_WARNING) == NULL,
      "more than one warning");
  fail_unless (pop_message (bus, GST_MESSAGE_ERROR) == NULL);
  gst_harness_teardown (h);
  gst_object_unref (e);
  release_bus (bus);
}

GST_END_TEST;

typedef struct
{
  GstHarness *h;
  gint stop;
  guint reads;
  gchar *bad;                   /* the first unexpected answer */
} PropertyReader;

/* Another thread asking for the backend the streaming thread is
 * replacing. */
static gpointer
read_active_backend (gpointer data)
{
  PropertyReader *r = data;

  while (!g_atomic_int_get (&r->stop) && !r->bad) {
    gchar *name = NULL;

    g_object_get (r->h->element, "active-backend", &name, NULL);
    if (name && strcmp (name, "cpu") != 0 && strcmp (name, "cuda") != 0)
      r->bad = g_strdup (name);
    g_free (name);
    r->reads++;
  }
  return NULL;
}

/* active-backend is read from another thread while the streaming thread
 * closes and opens backends: the element replaces the backend under its
 * object lock and closes the old one only after that, so every answer is
 * whole.  The test is meant for race detectors too: under helgrind, with
 * GLib's futex-based GMutex made visible to it, the code before this was
 * fixed shows the streaming thread's write of the backend conflicting with
 * this read; the current code shows none. */
GST_START_TEST (test_active_backend_while_reopening)
{
  GstHarness *h = harness_deep (1);
  PropertyReader r = { h, 0, 0, NULL };
  GThread *thread;

  push_frames (h, 0, 1);
  pull_checked (h, 0, 1, FALSE);
  thread = g_thread_new ("reader", read_active_backend, &r);
  for (guint i = 1; i <= 40; i++) {
    gst_util_set_object_arg (G_OBJECT (h->element), "backend",
        (i & 1) ? "cpu" : "auto");
    push_frames (h, i, 1);
    /* the reader's turn, with no lock taken here since the reopen */
    g_usleep (2000);
    pull_checked (h, i, 1, FALSE);      /* a reopen drops the reference */
  }
  g_atomic_int_set (&r.stop, 1);
  g_thread_join (thread);
  GST_INFO ("%u reads", r.reads);
  fail_unless (r.bad == NULL, "active-backend read \"%s\"", r.bad);
  fail_unless (r.reads > 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- layouts that do not fit their memory --------------------------------- */

/* Pushes @buf, which must be refused before any pixel is read: the push
 * fails, nothing comes out, and exactly one error is posted, a
 * STREAM FORMAT error whose message is @expect. */
static void
push_bad_layout (GstBuffer * buf, const gchar * what, const gchar * expect)
{
  GstHarness *h = harness_new ("I420", 64, 48, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16);
  GstBus *bus = harness_bus (h);
  GstMessage *msg;
  g_autoptr (GError) err = NULL;

  GST_INFO ("%s", what);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  msg = pop_message (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error posted", what);
  gst_message_parse_error (msg, &err, NULL);
  GST_INFO ("%s: %s", what, err->message);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT), "%s: %s", what, err->message);
  fail_unless_equals_string (err->message, expect);
  gst_message_unref (msg);
  fail_unless (pop_message (bus, GST_MESSAGE_ERROR) == NULL,
      "%s: a second error", what);
  fail_unless (gst_harness_try_pull (h) == NULL);
  release_bus (bus);
  gst_harness_teardown (h);
}

/* The same bytes as @buf in separately allocated memories, cut at @cuts
 * (offsets into the buffer, ascending, ending with 0), with @buf's video
 * meta: a plane that runs past the memory it starts in then runs past an
 * allocation.  Takes @buf. */
static GstBuffer *
split_memories (GstBuffer * buf, const gsize * cuts)
{
  GstVideoMeta *vm = gst_buffer_get_video_meta (buf);
  GstBuffer *out = gst_buffer_new ();
  gsize size = gst_buffer_get_size (buf), start = 0;

  for (guint i = 0; start < size; i++) {
    gsize end = cuts[i] ? cuts[i] : size;
    GstMemory *mem = gst_allocator_alloc (NULL, end - start, NULL);
    GstMapInfo map;

    fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
    fail_unless_equals_int (gst_buffer_extract (buf, start, map.data,
            end - start), end - start);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (out, mem);
    start = end;
  }
  gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
      vm->format, vm->width, vm->height, vm->n_planes, vm->offset,
      vm->stride);
  GST_BUFFER_PTS (out) = GST_BUFFER_PTS (buf);
  gst_buffer_unref (buf);
  return out;
}

/* A strided I420 frame whose video meta is then edited. */
static GstBuffer *
edited_frame (guint plane, gint stride, gsize offset)
{
  GstBuffer *b = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 10, 10, 16);
  GstVideoMeta *vm = gst_buffer_get_video_meta (b);

  if (stride)
    vm->stride[plane] = stride;
  if (offset)
    vm->offset[plane] = offset;
  return b;
}

GST_START_TEST (test_video_meta_out_of_bounds)
{
  /* make_frame (..., 16): I420 64x48 with strides 80, 48, 48 at offsets
   * 80, 3952, 5136 in 6320 bytes. */
#define NOT_FIT(plane, rows, bytes, stride, offset, size) \
  "Invalid video buffer: plane " #plane " (" #rows " rows of " #bytes \
      " bytes, stride " #stride ", offset " #offset ") does not fit in the " \
      #size " bytes of memory it starts in"
  GstBuffer *b;
  GstVideoMeta *vm;

  b = edited_frame (0, 0, 0);
  vm = gst_buffer_get_video_meta (b);
  fail_unless_equals_int (gst_buffer_get_size (b), 6320);
  fail_unless (vm->offset[0] == 80 && vm->offset[1] == 3952
      && vm->offset[2] == 5136);
  fail_unless (vm->stride[0] == 80 && vm->stride[1] == 48
      && vm->stride[2] == 48);
  gst_buffer_unref (b);

  push_bad_layout (edited_frame (0, 1 << 20, 0), "luma stride too large",
      NOT_FIT (0, 48, 64, 1048576, 80, 6320));
  push_bad_layout (edited_frame (2, 4096, 0), "chroma stride too large",
      NOT_FIT (2, 24, 32, 4096, 5136, 6320));
  push_bad_layout (edited_frame (0, 0, 6320 - 64), "luma offset near the end",
      NOT_FIT (0, 48, 64, 80, 6256, 6320));
  push_bad_layout (edited_frame (1, 0, 6320 - 1), "chroma offset at the end",
      NOT_FIT (1, 24, 32, 48, 6319, 6320));
  push_bad_layout (edited_frame (0, -80, 0), "negative luma stride",
      NOT_FIT (0, 48, 64, -80, 80, 6320));
  push_bad_layout (edited_frame (0, G_MAXINT, 0), "largest stride",
      NOT_FIT (0, 48, 64, 2147483647, 80, 6320));
  /* a bottom-up luma plane that fits: refused by name, not searched */
  push_bad_layout (edited_frame (0, -80, 80 + 47 * 80), "bottom-up luma",
      "Invalid video buffer: bottom-up frames (luma stride -80) are not "
      "supported");

  /* Planes are checked against the memory each one starts in: a luma
   * plane cut in two by a memory boundary runs past its allocation. */
  {
    const gsize cuts[] = { 2000, 3952, 5136, 0 };
    push_bad_layout (split_memories (make_frame (GST_VIDEO_FORMAT_I420, 64,
                48, 10, 10, 16), cuts), "luma across two memories",
        NOT_FIT (0, 48, 64, 80, 80, 2000));
  }

  /* A meta that does not describe the caps' format or size. */
  b = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 10, 10, 16);
  gst_buffer_get_video_meta (b)->format = GST_VIDEO_FORMAT_YV12;
  push_bad_layout (b, "meta of another format", "Invalid video buffer: the "
      "buffer's video meta (YV12 64x48, 3 planes) does not match the caps "
      "(I420 64x48, 3 planes)");
  b = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 10, 10, 16);
  gst_buffer_get_video_meta (b)->height = 40;
  push_bad_layout (b, "meta smaller than the caps", "Invalid video buffer: "
      "the buffer's video meta (I420 64x40, 3 planes) does not match the "
      "caps (I420 64x48, 3 planes)");
  b = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 10, 10, 16);
  gst_buffer_get_video_meta (b)->n_planes = 2;
  push_bad_layout (b, "meta with too few planes", "Invalid video buffer: "
      "the buffer's video meta (I420 64x48, 2 planes) does not match the "
      "caps (I420 64x48, 3 planes)");
  /* A size beyond G_MAXINT turns negative in the mapped frame, where a
   * plane of negative size would pass the check of its rows (here a luma
   * stride of 1 MiB; at height -1 every plane of I420 would). */
  b = edited_frame (0, 1 << 20, 0);
  gst_buffer_get_video_meta (b)->height = G_MAXUINT;
  push_bad_layout (b, "meta 2^32 - 1 high", "Invalid video buffer: the "
      "buffer's video meta (I420 64x4294967295, 3 planes) does not match the "
      "caps (I420 64x48, 3 planes)");
  b = edited_frame (0, 1 << 20, 0);
  gst_buffer_get_video_meta (b)->width = 0x80000000u;
  push_bad_layout (b, "meta 2^31 wide", "Invalid video buffer: the buffer's "
      "video meta (I420 2147483648x48, 3 planes) does not match the caps "
      "(I420 64x48, 3 planes)");
#undef NOT_FIT
}

GST_END_TEST;

/* One plane per memory, each wholly inside its own: searched as usual. */
GST_START_TEST (test_video_meta_plane_per_memory)
{
  const gsize cuts[] = { 3952, 5136, 0 };
  GstHarness *h = harness_new ("I420", 64, 48, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16 | GST_MOTION_VECTOR_PARTITIONS_8X8);
  GstBuffer *b0, *b1;

  b0 = split_memories (make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 10, 10, 16),
      cuts);
  fail_unless_equals_int (gst_buffer_n_memory (b0), 3);
  b1 = split_memories (make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 13, 8, 16),
      cuts);
  b0 = push_pull (h, b0);
  b1 = push_pull (h, b1);
  check_no_reference (get_meta (b0));
  check_true_motion (get_meta (b1), GST_MOTION_VECTOR_PARTITION_16X16, 64, 48,
      3, -2);
  check_true_motion (get_meta (b1), GST_MOTION_VECTOR_PARTITION_8X8, 64, 48,
      3, -2);
  gst_buffer_unref (b0);
  gst_buffer_unref (b1);
  gst_harness_teardown (h);
}

GST_END_TEST;


/* ---- serialized events and gaps keep their place -------------------------- */

/* What leaves the element's source pad, in order: "B<pts index>" for a
 * buffer ("G" for one without a meta), the event's name otherwise.  Sticky
 * events every stream carries are left out. */
static GstPadProbeReturn
record_order (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GString *order = user_data;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
    g_string_append_printf (order, "%s%u ",
        gst_buffer_get_motion_vector_meta (b) ? "B" : "G",
        (guint) (GST_BUFFER_PTS (b) / (GST_SECOND / 30)));
  } else {
    GstEvent *e = GST_PAD_PROBE_INFO_EVENT (info);
    switch (GST_EVENT_TYPE (e)) {
      case GST_EVENT_STREAM_START:
      case GST_EVENT_CAPS:
      case GST_EVENT_SEGMENT:
        break;
      default:
        g_string_append_printf (order, "%s ", GST_EVENT_TYPE_NAME (e));
    }
  }
  return GST_PAD_PROBE_OK;
}

static GString *
record_src (GstHarness * h)
{
  GString *order = g_string_new (NULL);
  GstPad *src = gst_element_get_static_pad (h->element, "src");

  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER
      | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, record_order, order, NULL);
  gst_object_unref (src);
  return order;
}

static GstBuffer *
gap_buffer (guint i, gsize size)
{
  GstBuffer *b = size ? gst_buffer_new_allocate (NULL, size, NULL)
      : gst_buffer_new ();

  GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
  GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_GAP);
  return b;
}

GST_START_TEST (test_serialized_events_keep_order)
{
  for (guint depth = 1; depth <= 4; depth++) {
    GstHarness *h = harness_deep (depth);
    GString *order = record_src (h);
    GstBuffer *b;

    push_frames (h, 0, 2);
    fail_unless (gst_harness_push_event (h,
            gst_event_new_tag (gst_tag_list_new (GST_TAG_TITLE, "t", NULL))));
    fail_unless (gst_harness_push_event (h,
            gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
                gst_structure_new_empty ("x-mark"))));
    fail_unless (gst_harness_push_event (h,
            gst_event_new_gap (2 * GST_SECOND / 30, GST_SECOND / 30)));
    push_frames (h, 3, 1);
    /* an empty gap buffer and one too short to be a frame pass through,
     * and the reference survives them */
    fail_unless_equals_int (gst_harness_push (h, gap_buffer (4, 0)),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (h, gap_buffer (5, 7)),
        GST_FLOW_OK);
    /* and so does a whole picture flagged GAP (a source without signal
     * sends black frames so), unsearched */
    b = make_frame (GST_VIDEO_FORMAT_I420, 64, 48, 0, 0, 0);
    GST_BUFFER_PTS (b) = 5 * GST_SECOND / 30 + GST_SECOND / 60;
    GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_GAP);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    push_frames (h, 6, 1);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    GST_INFO ("depth %u: %s", depth, order->str);
    fail_unless_equals_string (order->str,
        "B0 B1 tag custom-downstream gap B3 G4 G5 G5 B6 eos ");

    /* frame 6 was searched against frame 3, across the gaps */
    for (guint i = 0; i < 6; i++)
      gst_buffer_unref (gst_harness_pull (h));
    b = gst_harness_pull (h);
    fail_unless_equals_uint64 (get_meta (b)->ref_pts, 3 * GST_SECOND / 30);
    check_true_motion (get_meta (b), GST_MOTION_VECTOR_PARTITION_16X16, 64, 48,
        3, 0);
    gst_buffer_unref (b);
    g_string_free (order, TRUE);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Buffers and every event but stream-start and caps (the harness's first
 * segment has passed before the probe is added), as record_order. */
static GstPadProbeReturn
record_with_segments (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GString *order = user_data;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
    g_string_append_printf (order, "B%u ",
        (guint) (GST_BUFFER_PTS (b) / (GST_SECOND / 30)));
  } else {
    GstEvent *e = GST_PAD_PROBE_INFO_EVENT (info);
    if (GST_EVENT_TYPE (e) != GST_EVENT_STREAM_START
        && GST_EVENT_TYPE (e) != GST_EVENT_CAPS)
      g_string_append_printf (order, "%s ", GST_EVENT_TYPE_NAME (e));
  }
  return GST_PAD_PROBE_OK;
}

/* A new segment (a non-flushing seek) finishes the frames in flight and
 * sends them before it; the reference is kept, since only a DISCONT
 * buffer, a flush or new caps drop it. */
GST_START_TEST (test_segment_drains_in_flight)
{
  GstHarness *h = harness_deep (4);
  GString *order = g_string_new (NULL);
  GstPad *src = gst_element_get_static_pad (h->element, "src");
  GstSegment seg;

  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER
      | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, record_with_segments, order,
      NULL);
  gst_object_unref (src);
  push_frames (h, 0, 3);
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.base = GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless_equals_string (order->str, "B0 B1 B2 segment ");
  push_frames (h, 3, 2);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_string (order->str, "B0 B1 B2 segment B3 B4 eos ");
  pull_checked (h, 0, 5, FALSE);
  g_string_free (order, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A tag waiting behind frames dropped by a flush still reaches downstream,
 * before the next buffer; a custom event waiting there is flushed. */
GST_START_TEST (test_flush_keeps_sticky_events)
{
  GstHarness *h = harness_deep (4);
  GString *order = record_src (h);
  GstSegment seg;

  push_frames (h, 0, 2);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_tag (gst_tag_list_new (GST_TAG_TITLE, "t", NULL))));
  fail_unless (gst_harness_push_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
              gst_structure_new_empty ("x-mark"))));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  push_frames (h, 10, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  GST_INFO ("%s", order->str);
  fail_unless_equals_string (order->str,
      "tag B10 eos ");
  g_string_free (order, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A DRAIN query gets every frame in flight out before it is answered. */
GST_START_TEST (test_drain_query)
{
  GstHarness *h = harness_deep (4);
  GstQuery *q = gst_query_new_drain ();

  push_frames (h, 0, 3);
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_pad_peer_query (h->srcpad, q);
  gst_query_unref (q);
  pull_checked (h, 0, 3, FALSE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A frame leaves when depth - 1 later frames have arrived: the element adds
 * that many frame durations of latency, on every backend. */
GST_START_TEST (test_latency_with_frames_in_flight)
{
  for (guint depth = 1; depth <= 5; depth += 2) {
    GstHarness *h = harness_deep (depth);
    GstQuery *q = gst_query_new_latency ();
    gboolean live;
    GstClockTime min, max;

    push_frames (h, 0, 1);
    fail_unless (gst_pad_peer_query (h->sinkpad, q));
    gst_query_parse_latency (q, &live, &min, &max);
    GST_INFO ("depth %u: latency %" GST_TIME_FORMAT, depth,
        GST_TIME_ARGS (min));
    fail_unless_equals_uint64 (min, (depth - 1) * gst_util_uint64_scale_int
        (GST_SECOND, 1, 30));
    gst_query_unref (q);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;


/* The backend property lists "auto" and every backend the project knows,
 * built or not; "threads" reopens the CPU backend with that many threads
 * and the vectors stay the same. */
GST_START_TEST (test_backend_values_and_threads)
{
  GstHarness *h = harness_new ("I420", 96, 64, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16);
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (h->element), "backend");
  GEnumClass *ec = g_type_class_ref (pspec->value_type);
  GstBuffer *b;

  fail_unless (g_enum_get_value_by_nick (ec, "auto") != NULL);
  fail_unless (g_enum_get_value_by_nick (ec, "cpu") != NULL);
  fail_unless (g_enum_get_value_by_nick (ec, "cuda") != NULL);
  fail_unless_equals_int (g_enum_get_value_by_nick (ec, "auto")->value, 0);
  g_type_class_unref (ec);

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  g_object_set (h->element, "threads", 1, NULL);
  gst_buffer_unref (push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64,
              100, 100, 0)));
  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64, 103, 98, 0));
  check_true_motion (get_meta (b), GST_MOTION_VECTOR_PARTITION_16X16, 96, 64,
      3, -2);
  gst_buffer_unref (b);
  g_object_set (h->element, "threads", 3, NULL);
  gst_buffer_unref (push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64,
              100, 100, 0)));
  b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64, 99, 104, 0));
  check_true_motion (get_meta (b), GST_MOTION_VECTOR_PARTITION_16X16, 96, 64,
      -1, 4);
  gst_buffer_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The devices property (cuda-multi): "all" by default; a list that is not
 * one is a clear error when streaming starts, whatever the backend;
 * devices that are not there are the backend's open error; and it is
 * taken in NULL and READY only. */
static GstMessage *
start_with_devices (const gchar * backend, const gchar * devices)
{
  GstElement *e = gst_element_factory_make ("gpumotionest", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;

  gst_util_set_object_arg (G_OBJECT (e), "backend", backend);
  g_object_set (e, "devices", devices, NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = pop_message (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "backend %s, devices \"%s\": no error", backend,
      devices);
  fail_unless (pop_message (bus, GST_MESSAGE_ERROR) == NULL);
  gst_element_set_state (e, GST_STATE_NULL);
  release_bus (bus);
  gst_object_unref (e);
  return msg;
}

GST_START_TEST (test_devices_property)
{
  const gchar *bad[] = { "0,x", "", "-1", "0,,1", "one", "0,1," };
  GParamSpec *pspec;
  GEnumClass *ec;
  GstHarness *h;
  GstMessage *msg;
  gchar *value = NULL;

  h = gst_harness_new ("gpumotionest");
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (h->element),
      "backend");
  ec = g_type_class_ref (pspec->value_type);
  fail_unless (g_enum_get_value_by_nick (ec, "cuda-multi") != NULL);
  fail_unless_equals_int (g_enum_get_value_by_nick (ec, "cuda-multi")->value,
      3);
  g_type_class_unref (ec);
  g_object_get (h->element, "devices", &value, NULL);
  fail_unless_equals_string (value, "all");
  g_free (value);
  /* set while playing: kept as it was */
  g_object_set (h->element, "devices", "5", NULL);
  g_object_get (h->element, "devices", &value, NULL);
  fail_unless_equals_string (value, "all");
  g_free (value);
  gst_harness_teardown (h);

  /* not a list: an error naming the property, on the CPU too */
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) err = NULL;

    msg = start_with_devices ("cpu", bad[i]);
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_SETTINGS), "%s", err->message);
    fail_unless (strstr (err->message, "devices") != NULL, "%s",
        err->message);
    gst_message_unref (msg);
  }

  /* a list with spaces is a list; the CPU backend does not use it */
  {
    GstElement *e = gst_element_factory_make ("gpumotionest", NULL);
    GstBuffer *b;

    g_object_set (e, "devices", " 0 , 1 ", "search-range", 4, "in-flight", 1,
        NULL);
    gst_util_set_object_arg (G_OBJECT (e), "backend", "cpu");
    h = gst_harness_new_with_element (e, "sink", "src");
    gst_harness_set_src_caps_str (h,
        "video/x-raw,format=I420,width=32,height=32,framerate=30/1");
    b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 32, 32, 0, 0, 0));
    fail_unless (get_meta (b) != NULL);
    gst_buffer_unref (b);
    gst_harness_teardown (h);
    gst_object_unref (e);
  }

  /* a device that is not there: the backend's open error, naming CUDA
   * (without a GPU or a CUDA build as well) */
  {
    g_autoptr (GError) err = NULL;

    msg = start_with_devices ("cuda-multi", "0,4242");
    gst_message_parse_error (msg, &err, NULL);
    GST_INFO ("cuda-multi on 0,4242: %s", err->message);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_OPEN_READ), "%s", err->message);
    fail_unless (strstr (err->message, "cuda") != NULL
        || strstr (err->message, "CUDA") != NULL, "%s", err->message);
    gst_message_unref (msg);
  }
}

GST_END_TEST;

/* cuda-launch (docs/scaling.md, "Batched launches"): an enum of auto,
 * shared and own, auto by default; a name that is none of them is refused
 * and leaves the value as it was; a new value reopens the backend at the
 * next frame (which has no reference), the same value does not, and the
 * vectors are the same under each (whatever backend "auto" opens here). */
GST_START_TEST (test_cuda_launch_property)
{
  static const gchar *nicks[] = { "auto", "shared", "own" };
  GstHarness *h = harness_new ("I420", 96, 64, 8,
      GST_MOTION_VECTOR_PARTITIONS_16X16);
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (h->element), "cuda-launch");
  GEnumClass *ec;
  GstElement *parsed;
  GError *err = NULL;
  GstBuffer *b;
  gint value = -1;

  fail_unless (pspec != NULL);
  fail_unless (G_IS_PARAM_SPEC_ENUM (pspec));
  fail_unless (pspec->flags & G_PARAM_WRITABLE);
  ec = g_type_class_ref (pspec->value_type);
  fail_unless_equals_int (ec->n_values, G_N_ELEMENTS (nicks));
  for (guint i = 0; i < G_N_ELEMENTS (nicks); i++) {
    fail_unless (g_enum_get_value_by_nick (ec, nicks[i]) != NULL, "%s",
        nicks[i]);
    fail_unless_equals_int (g_enum_get_value_by_nick (ec, nicks[i])->value,
        i);
  }
  fail_unless_equals_int (G_PARAM_SPEC_ENUM (pspec)->default_value, 0);
  g_object_get (h->element, "cuda-launch", &value, NULL);
  fail_unless_equals_int (value, 0);

  /* each value taken, and frames searched under it */
  for (guint i = 0; i < G_N_ELEMENTS (nicks); i++) {
    GstMotionVectorMeta *m;

    gst_util_set_object_arg (G_OBJECT (h->element), "cuda-launch", nicks[i]);
    g_object_get (h->element, "cuda-launch", &value, NULL);
    fail_unless_equals_int (value, i);
    b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64, 100, 100,
            0));
    /* the first frame of the stream (auto, the default), then a new value
     * that reopened the backend: no reference */
    m = get_meta (b);
    fail_unless (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE,
        "%s kept the reference", nicks[i]);
    gst_buffer_unref (b);
    /* the same value again changes nothing */
    gst_util_set_object_arg (G_OBJECT (h->element), "cuda-launch", nicks[i]);
    b = push_pull (h, make_frame (GST_VIDEO_FORMAT_I420, 96, 64, 102, 99, 0));
    m = get_meta (b);
    fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE, "%s",
        nicks[i]);
    check_true_motion (m, GST_MOTION_VECTOR_PARTITION_16X16, 96, 64, 2, -1);
    gst_buffer_unref (b);
  }

  /* not a value: refused, the value kept */
  gst_util_set_object_arg (G_OBJECT (h->element), "cuda-launch", "batched");
  g_object_get (h->element, "cuda-launch", &value, NULL);
  fail_unless_equals_int (value, 2);
  gst_util_set_object_arg (G_OBJECT (h->element), "cuda-launch", "3");
  g_object_get (h->element, "cuda-launch", &value, NULL);
  fail_unless_equals_int (value, 2);
  g_type_class_unref (ec);
  gst_harness_teardown (h);

  /* and a launch line that names none is an error naming the property */
  parsed = gst_parse_launch ("gpumotionest cuda-launch=1x", &err);
  fail_unless (err != NULL);
  fail_unless (g_error_matches (err, GST_PARSE_ERROR,
          GST_PARSE_ERROR_COULD_NOT_SET_PROPERTY), "%s", err->message);
  fail_unless (strstr (err->message, "cuda-launch") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  if (parsed)
    gst_object_unref (gst_object_ref_sink (parsed));
  parsed = gst_parse_launch ("gpumotionest cuda-launch=own", &err);
  fail_unless (err == NULL, "%s", err ? err->message : "");
  g_object_get (parsed, "cuda-launch", &value, NULL);
  fail_unless_equals_int (value, 2);
  gst_object_unref (gst_object_ref_sink (parsed));
}

GST_END_TEST;

/* ---- the partition decision (mode-decision) ------------------------------ */

/* Bits of the macroblock type of each uniform partitioning, written out
 * here from docs/mode-decision.md rather than taken from the kernels. */
static const guint mode_bits[GST_MOTION_VECTOR_PARTITION_COUNT] =
    { 1, 3, 3, 9, 17, 17, 25 };

/* The decision recomputed from the meta's own cells: for each macroblock
 * the present shape of smallest summed cost + lambda x mode_bits, the
 * larger partition on a tie.  Fails on any macroblock where the meta's
 * modes differ.  Returns a bit set of the shapes chosen somewhere. */
static guint
check_modes_recomputed (GstMotionVectorMeta * meta, guint lambda)
{
  guint mb_cols = 0, mb_rows = 0, chosen = 0;
  const guint8 *modes = gst_motion_vector_meta_get_modes (meta, &mb_cols,
      &mb_rows);

  fail_unless (modes != NULL, "no modes");
  fail_unless (meta->flags & GST_MOTION_VECTOR_META_FLAG_HAS_MODES);
  fail_unless_equals_int (mb_cols, (meta->analysis_width + 15) / 16);
  fail_unless_equals_int (mb_rows, (meta->analysis_height + 15) / 16);
  for (guint my = 0; my < mb_rows; my++) {
    for (guint mx = 0; mx < mb_cols; mx++) {
      guint64 best_cost = 0;
      gint best = -1;

      for (gint p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
        guint cols, rows;
        const GstMotionVectorCell *g =
            gst_motion_vector_meta_get_grid (meta, p, &cols, &rows);
        guint across = cols / mb_cols, down = rows / mb_rows;
        guint64 cost = (guint64) lambda * mode_bits[p];

        if (!g)
          continue;
        for (guint r = my * down; r < (my + 1) * down; r++)
          for (guint c = mx * across; c < (mx + 1) * across; c++)
            cost += g[r * cols + c].cost;
        if (best < 0 || cost < best_cost) {
          best = p;
          best_cost = cost;
        }
      }
      if (modes[my * mb_cols + mx] != best)
        fail ("macroblock (%u,%u): mode %u, recomputed %d", mx, my,
            modes[my * mb_cols + mx], best);
      chosen |= 1u << best;
    }
  }
  return chosen;
}

/* 128x96 (8 x 6 macroblocks), the second frame in three regions moving
 * differently: frame 1 (x, y) = frame 0 (x + dx, y + dy) with
 *   B: x >= 40                (dx, dy) = (-3, 2)
 *   C: x < 40, y >= 56        (1, -2)
 *   A: elsewhere              (2, 1)
 * The border x = 40 halves macroblock column 2, y = 56 macroblock row 3:
 * macroblock (2, 1) is best cut into 8x16, (1, 3) into 16x8, (2, 3) into
 * 8x8; (1, 1) and (4, 2) lie in one region. */
#define MD_W 128
#define MD_H 96

static GstBuffer *
make_regions_frame (gboolean moved)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, MD_W * MD_H, NULL);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (guint y = 0; y < MD_H; y++) {
    for (guint x = 0; x < MD_W; x++) {
      gint dx = 0, dy = 0;

      if (moved) {
        if (x >= 40) {
          dx = -3;
          dy = 2;
        } else if (y >= 56) {
          dx = 1;
          dy = -2;
        } else {
          dx = 2;
          dy = 1;
        }
      }
      map.data[y * MD_W + x] = world[(300 + y + dy) * WORLD_W + 200 + x + dx];
    }
  }
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Two frames through mode-decision=true with @props; returns the second
 * buffer, after checking the first (no reference: every cost 0, so the
 * largest requested shape everywhere). */
static GstBuffer *
run_regions (guint partitions, guint lambda, const gchar * props)
{
  GstHarness *hn = harness_new ("GRAY8", MD_W, MD_H, 8, partitions);
  GstBuffer *b0, *b1;
  guint first = 0;
  const guint8 *modes;

  g_object_set (hn->element, "mode-decision", TRUE, "lambda", lambda, NULL);
  if (props)
    gst_util_set_object_arg (G_OBJECT (hn->element), props, "quarter");
  while (!(partitions & (1u << first)))
    first++;
  b0 = push_pull (hn, make_regions_frame (FALSE));
  b1 = push_pull (hn, make_regions_frame (TRUE));
  check_no_reference (get_meta (b0));
  check_modes_recomputed (get_meta (b0), lambda);
  modes = gst_motion_vector_meta_get_modes (get_meta (b0), NULL, NULL);
  for (guint i = 0; i < (MD_W / 16) * (MD_H / 16); i++)
    fail_unless_equals_int (modes[i], first);
  gst_buffer_unref (b0);
  gst_harness_teardown (hn);
  return b1;
}

static guint8
mode_at (GstMotionVectorMeta * meta, guint mx, guint my)
{
  guint cols;
  const guint8 *modes = gst_motion_vector_meta_get_modes (meta, &cols, NULL);

  fail_unless (modes != NULL);
  return modes[my * cols + mx];
}

GST_START_TEST (test_mode_decision)
{
  GstBuffer *b;
  GstMotionVectorMeta *m;
  guint chosen;
  GstElement *e = gst_element_factory_make ("gpumotionest", NULL);
  gboolean on = TRUE;

  g_object_get (e, "mode-decision", &on, NULL);
  fail_if (on, "mode-decision is off by default");
  gst_object_unref (e);

  /* lambda 4: uniform macroblocks keep 16x16, the cut ones the partition
   * along their cut; the decision equals the one recomputed from the
   * cells. */
  b = run_regions (GST_MOTION_VECTOR_PARTITIONS_ALL, 4, NULL);
  m = get_meta (b);
  chosen = check_modes_recomputed (m, 4);
  fail_unless_equals_int (mode_at (m, 1, 1), GST_MOTION_VECTOR_PARTITION_16X16);
  fail_unless_equals_int (mode_at (m, 4, 2), GST_MOTION_VECTOR_PARTITION_16X16);
  fail_unless_equals_int (mode_at (m, 2, 1), GST_MOTION_VECTOR_PARTITION_8X16);
  fail_unless_equals_int (mode_at (m, 1, 3), GST_MOTION_VECTOR_PARTITION_16X8);
  fail_unless_equals_int (mode_at (m, 2, 3), GST_MOTION_VECTOR_PARTITION_8X8);
  fail_unless ((chosen & 0xf) == 0xf, "shapes chosen 0x%x", chosen);
  gst_buffer_unref (b);

  /* lambda 0: the type costs nothing; every requested shape matches a
   * uniform macroblock exactly (cost 0), so the tie keeps 16x16 there, and
   * the cut ones still take the largest partition with cost 0. */
  b = run_regions (GST_MOTION_VECTOR_PARTITIONS_ALL, 0, NULL);
  m = get_meta (b);
  check_modes_recomputed (m, 0);
  fail_unless_equals_int (mode_at (m, 1, 1), GST_MOTION_VECTOR_PARTITION_16X16);
  fail_unless_equals_int (mode_at (m, 2, 1), GST_MOTION_VECTOR_PARTITION_8X16);
  fail_unless_equals_int (mode_at (m, 1, 3), GST_MOTION_VECTOR_PARTITION_16X8);
  fail_unless_equals_int (mode_at (m, 2, 3), GST_MOTION_VECTOR_PARTITION_8X8);
  gst_buffer_unref (b);

  /* Two shapes only: a macroblock cut into 8x16 takes 8x8 among
   * 16x16 + 8x8. */
  b = run_regions (GST_MOTION_VECTOR_PARTITIONS_16X16 |
      GST_MOTION_VECTOR_PARTITIONS_8X8, 4, NULL);
  m = get_meta (b);
  check_modes_recomputed (m, 4);
  fail_unless_equals_int (mode_at (m, 1, 1), GST_MOTION_VECTOR_PARTITION_16X16);
  fail_unless_equals_int (mode_at (m, 2, 1), GST_MOTION_VECTOR_PARTITION_8X8);
  gst_buffer_unref (b);

  /* Quarter-pel refinement (its costs are what the decision adds up). */
  b = run_regions (GST_MOTION_VECTOR_PARTITIONS_ALL, 4, "subpel");
  check_modes_recomputed (get_meta (b), 4);
  gst_buffer_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_mode_decision_absent)
{
  GstHarness *hn;
  GstBuffer *b;
  GstMotionVectorMeta *m;

  /* Off (the default): no modes, no flag. */
  hn = harness_new ("GRAY8", MD_W, MD_H, 8, GST_MOTION_VECTOR_PARTITIONS_ALL);
  gst_buffer_unref (push_pull (hn, make_regions_frame (FALSE)));
  b = push_pull (hn, make_regions_frame (TRUE));
  m = get_meta (b);
  fail_unless (m->modes == NULL);
  fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_HAS_MODES);
  fail_unless (gst_motion_vector_meta_get_modes (m, NULL, NULL) == NULL);
  gst_buffer_unref (b);

  /* Turned on while playing: from the next frame collected. */
  g_object_set (hn->element, "mode-decision", TRUE, NULL);
  b = push_pull (hn, make_regions_frame (FALSE));
  check_modes_recomputed (get_meta (b), 0);
  gst_buffer_unref (b);
  gst_harness_teardown (hn);

  /* On with a single shape: nothing to decide. */
  hn = harness_new ("GRAY8", MD_W, MD_H, 8, GST_MOTION_VECTOR_PARTITIONS_8X8);
  g_object_set (hn->element, "mode-decision", TRUE, NULL);
  gst_buffer_unref (push_pull (hn, make_regions_frame (FALSE)));
  b = push_pull (hn, make_regions_frame (TRUE));
  m = get_meta (b);
  fail_unless (m->modes == NULL);
  fail_if (m->flags & GST_MOTION_VECTOR_META_FLAG_HAS_MODES);
  gst_buffer_unref (b);
  gst_harness_teardown (hn);
}

GST_END_TEST;

static Suite *
gpumotionest_suite (void)
{
  Suite *s = suite_create ("gpumotionest");
  TCase *tc = tcase_create ("general");

  tcase_add_unchecked_fixture (tc, world_setup, world_teardown);
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_shift_16x16);
  tcase_add_test (tc, test_many_instances_one_memory);
  tcase_add_test (tc, test_cuda_caps_system_memory);
  tcase_add_test (tc, test_fast_methods_shift);
  tcase_add_test (tc, test_full_range_limit);
  tcase_add_test (tc, test_shift_all_shapes);
  tcase_add_test (tc, test_shift_1080p);
  tcase_add_test (tc, test_shift_4k);
  tcase_add_test (tc, test_odd_sizes);
  tcase_add_test (tc, test_1x1);
  tcase_add_test (tc, test_formats_and_strides);
  tcase_add_test (tc, test_passthrough_order);
  tcase_add_test (tc, test_eos_drains_in_flight);
  tcase_add_test (tc, test_depth_change_keeps_reference);
  tcase_add_test (tc, test_lambda_switch_keeps_frames);
  tcase_add_test (tc, test_flush_with_frames_in_flight);
  tcase_add_test (tc, test_caps_change_with_frames_in_flight);
  tcase_add_test (tc, test_discont_resets);
  tcase_add_test (tc, test_caps_change_resets);
  tcase_add_test (tc, test_flush_resets);
  tcase_add_test (tc, test_refuses_unsupported_caps);
  tcase_add_test (tc, test_short_buffer_errors);
  tcase_add_test (tc, test_property_change_while_playing);
  tcase_add_test (tc, test_meta_rescaled_downstream);
  tcase_add_test (tc, test_host_memory_pool);
  tcase_add_test (tc, test_allocation_video_meta_from_downstream);
  tcase_add_test (tc, test_reference_kept_at_every_depth);
  tcase_add_test (tc, test_qos_drop_marks_the_next_frame);
  tcase_add_test (tc, test_field_on_input_replaced);
  tcase_add_test (tc, test_backend_reopen_failure);
  tcase_add_test (tc, test_auto_fallback_warns_once);
  tcase_add_test (tc, test_active_backend_while_reopening);
  tcase_add_test (tc, test_video_meta_out_of_bounds);
  tcase_add_test (tc, test_video_meta_plane_per_memory);
  tcase_add_test (tc, test_serialized_events_keep_order);
  tcase_add_test (tc, test_segment_drains_in_flight);
  tcase_add_test (tc, test_flush_keeps_sticky_events);
  tcase_add_test (tc, test_drain_query);
  tcase_add_test (tc, test_latency_with_frames_in_flight);
  tcase_add_test (tc, test_backend_values_and_threads);
  tcase_add_test (tc, test_devices_property);
  tcase_add_test (tc, test_cuda_launch_property);
  tcase_add_test (tc, test_mode_decision);
  tcase_add_test (tc, test_mode_decision_absent);
  return s;
}

GST_CHECK_MAIN (gpumotionest);
