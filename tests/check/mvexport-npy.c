/* gst-check tests of mvexport format=npy (the NumPy folder,
 * docs/export-schema.md) and of the quantities property in every format.
 *
 * Every cell of every field gets values computed from its index, its
 * shape and a seed per field, so each array read back from a file is
 * compared with what the meta held, value by value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/motionvectors/gstmotionvectormeta.h>
#ifdef G_OS_UNIX
#include <signal.h>
#include <sys/resource.h>
#endif

#define CAPS "video/x-raw,format=I420,width=64,height=64,framerate=30/1"

/* The values of cell @i of shape @p in the field of @seed. */
static void
fill_cell (GstMotionVectorCell * c, guint seed, guint p, guint i)
{
  c->mv_x = (gint16) (seed * 7 + p * 100 + i);
  c->mv_y = (gint16) -(gint) (seed + i);
  c->cost = seed * 100000 + p * 1000 + i;
  c->pred_x = (gint16) (i % 13);
  c->pred_y = (gint16) -(gint) (i % 5);
  c->mvd_x = c->mv_x - c->pred_x;
  c->mvd_y = c->mv_y - c->pred_y;
}

/* Attaches a @w x @h field with the shapes @parts and cells of @seed. */
static GstMotionVectorMeta *
add_field (GstBuffer * buf, guint w, guint h,
    GstMotionVectorPartitionFlags parts, guint seed, gint ref_distance)
{
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint n = gst_motion_vector_layout (w, h, parts, grids), p, i;
  GstMotionVectorCell *cells = g_new0 (GstMotionVectorCell, n);
  GstMotionVectorMeta *meta;
  GBytes *data;

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    if (parts & (1u << p))
      for (i = 0; i < grids[p].cols * grids[p].rows; i++)
        fill_cell (&cells[grids[p].offset + i], seed, p, i);
  data = g_bytes_new_take (cells, (gsize) n * sizeof (GstMotionVectorCell));
  meta = gst_buffer_add_motion_vector_meta (buf, w, h, parts, data);
  g_bytes_unref (data);
  fail_unless (meta != NULL);
  meta->ref_distance = ref_distance;
  meta->search_range = 16;
  return meta;
}

/* Gives @meta a partition decision: macroblock i is coded with shape
 * (i + @seed) % 2 * 3 (16x16 or 8x8). */
static void
add_modes (GstMotionVectorMeta * meta, guint seed)
{
  guint n = ((meta->analysis_width + 15) / 16)
      * ((meta->analysis_height + 15) / 16), i;
  guint8 *modes = g_malloc (n);
  GBytes *b;

  for (i = 0; i < n; i++)
    modes[i] = (i + seed) % 2 * 3;
  b = g_bytes_new_take (modes, n);
  fail_unless (gst_motion_vector_meta_set_modes (meta, b));
  g_bytes_unref (b);
}

static GstBuffer *
new_buffer (guint64 pts)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64 * 64 * 3 / 2, NULL);

  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

/* A .npy file read back: its header's dtype and shape, and its data. */
typedef struct
{
  gchar *text;                  /* whole file */
  gsize len;
  gchar *descr;
  guint ndims;
  guint64 dims[5];
  const guint8 *data;
  gsize data_len;
} Npy;

static void
npy_clear (Npy * a)
{
  g_free (a->text);
  g_free (a->descr);
}

/* Reads @folder/@name and checks the framing numpy requires: magic,
 * version 1.0, a header length making the data start on a multiple of
 * 64, the dict ending in a newline. */
static void
npy_read (const gchar * folder, const gchar * name, Npy * a)
{
  gchar *path = g_build_filename (folder, name, NULL);
  const gchar *s, *e;
  guint hlen;
  gchar *dict;

  memset (a, 0, sizeof (*a));
  fail_unless (g_file_get_contents (path, &a->text, &a->len, NULL),
      "%s missing", path);
  g_free (path);
  fail_unless (a->len >= 10 && memcmp (a->text, "\x93NUMPY\x01\x00", 8) == 0,
      "%s: no .npy magic", name);
  hlen = (guint8) a->text[8] | ((guint8) a->text[9] << 8);
  fail_unless ((10 + hlen) % 64 == 0, "%s: header length %u", name, hlen);
  fail_unless (a->len >= 10 + hlen);
  fail_unless_equals_int (a->text[10 + hlen - 1], '\n');
  dict = g_strndup (a->text + 10, hlen);
  s = strstr (dict, "'descr': ");
  fail_unless (s != NULL, "%s", dict);
  s += 9;
  e = strstr (s, ", 'fortran_order': False, 'shape': (");
  fail_unless (e != NULL, "%s", dict);
  a->descr = g_strndup (s, e - s);
  s = e + strlen (", 'fortran_order': False, 'shape': (");
  while (*s != ')') {
    gchar *end;

    fail_unless (a->ndims < G_N_ELEMENTS (a->dims));
    a->dims[a->ndims++] = g_ascii_strtoull (s, &end, 10);
    fail_unless (end != s, "%s", dict);
    s = end;
    fail_unless_equals_int (*s, ',');
    s++;
    while (*s == ' ')
      s++;
  }
  g_free (dict);
  a->data = (const guint8 *) a->text + 10 + hlen;
  a->data_len = a->len - 10 - hlen;
}

static gsize
npy_elements (const Npy * a)
{
  gsize n = 1;
  guint i;

  for (i = 0; i < a->ndims; i++)
    n *= a->dims[i];
  return n;
}

static gchar *
tmp_folder (void)
{
  gchar *dir = g_dir_make_tmp ("mvexport-npy-XXXXXX", NULL);
  gchar *out = g_build_filename (dir, "clip", NULL);

  g_free (dir);
  return out;
}

/* Removes @folder's files, the folder and its (temporary) parent. */
static void
remove_export (gchar * folder)
{
  GDir *d = g_dir_open (folder, 0, NULL);
  const gchar *name;
  gchar *parent = g_path_get_dirname (folder);

  while (d && (name = g_dir_read_name (d))) {
    gchar *p = g_build_filename (folder, name, NULL);
    g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (folder);
  g_rmdir (parent);
  g_free (parent);
  g_free (folder);
}

static guint
count_files (const gchar * folder)
{
  GDir *d = g_dir_open (folder, 0, NULL);
  guint n = 0;

  fail_unless (d != NULL);
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

static gchar *
read_index (const gchar * folder)
{
  gchar *path = g_build_filename (folder, "index.json", NULL);
  gchar *text = NULL;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  g_free (path);
  return text;
}

static GstHarness *
npy_harness (const gchar * folder, const gchar * extra)
{
  gchar *launch = g_strdup_printf ("mvexport format=npy location=\"%s\" %s",
      folder, extra);
  GstHarness *h = gst_harness_new_parse (launch);

  g_free (launch);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

static void
push_ok (GstHarness * h, GstBuffer * buf)
{
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
}

/* Checks the cell arrays of shape @p of a 64x64 field, frames @n, seeds
 * seed0 + f. */
static void
check_cells (const gchar * folder, const gchar * prefix, guint p, guint n,
    guint seed0)
{
  static const gchar *const q[] = { "mv", "cost", "pred", "mvd" };
  guint pw = gst_motion_vector_partition_width (p);
  guint ph = gst_motion_vector_partition_height (p);
  guint cols = 64 / pw, rows = 64 / ph, k, f, i;

  for (k = 0; k < 4; k++) {
    gchar *name = g_strdup_printf ("%s_%ux%u_%s.npy", prefix, pw, ph, q[k]);
    Npy a;

    npy_read (folder, name, &a);
    fail_unless_equals_string (a.descr, k == 1 ? "'<u4'" : "'<i2'");
    fail_unless_equals_int (a.ndims, k == 1 ? 3 : 4);
    fail_unless_equals_int (a.dims[0], n);
    fail_unless_equals_int (a.dims[1], rows);
    fail_unless_equals_int (a.dims[2], cols);
    if (k != 1)
      fail_unless_equals_int (a.dims[3], 2);
    fail_unless_equals_int (a.data_len, npy_elements (&a) * (k == 1 ? 4 : 2));
    for (f = 0; f < n; f++)
      for (i = 0; i < cols * rows; i++) {
        GstMotionVectorCell c;

        fill_cell (&c, seed0 + f, p, i);
        if (k == 1) {
          guint32 v;

          memcpy (&v, a.data + ((gsize) f * cols * rows + i) * 4, 4);
          fail_unless_equals_int (v, c.cost);
        } else {
          gint16 v[2];
          gint16 want[3][2] = { {c.mv_x, c.mv_y}, {c.pred_x, c.pred_y},
          {c.mvd_x, c.mvd_y}
          };

          memcpy (v, a.data + ((gsize) f * cols * rows + i) * 4, 4);
          fail_unless_equals_int (v[0], want[k == 0 ? 0 : k - 1][0]);
          fail_unless_equals_int (v[1], want[k == 0 ? 0 : k - 1][1]);
        }
      }
    npy_clear (&a);
    g_free (name);
  }
}

/* The record of row @r of a frames array. */
typedef struct
{
  guint64 frame, pts, ref_pts;
  gint32 ref_distance;
  guint32 view, flags, partitions;
} FramesRow;

static FramesRow
frames_row (const Npy * a, guint r)
{
  FramesRow row;

  G_STATIC_ASSERT (sizeof (FramesRow) == 40);
  memcpy (&row, a->data + (gsize) r * 40, 40);
  return row;
}

GST_START_TEST (test_npy_arrays)
{
  /* Three frames of 16x16 and 8x8 cells; the partition decision from the
   * second frame on (the first frame's row of modes is the fill, 255);
   * a buffer without a meta between them counts in "frame" only. */
  gchar *folder = tmp_folder ();
  GstHarness *h = npy_harness (folder, "");
  GstMotionVectorPartitionFlags parts = GST_MOTION_VECTOR_PARTITIONS_16X16
      | GST_MOTION_VECTOR_PARTITIONS_8X8;
  GstMotionVectorMeta *meta;
  GstBuffer *buf;
  gchar *index;
  Npy a;
  guint f, i;

  for (f = 0; f < 3; f++) {
    buf = new_buffer (f * 1000);
    meta = add_field (buf, 64, 64, parts, 10 + f, -1);
    meta->ref_pts = f ? (f - 1) * 1000 : GST_CLOCK_TIME_NONE;
    if (!f)
      meta->flags |= GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE;
    else
      add_modes (meta, f);
    push_ok (h, buf);
    if (f == 0)
      push_ok (h, new_buffer (500));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  check_cells (folder, "view0_ref-1", GST_MOTION_VECTOR_PARTITION_16X16, 3,
      10);
  check_cells (folder, "view0_ref-1", GST_MOTION_VECTOR_PARTITION_8X8, 3, 10);

  npy_read (folder, "view0_ref-1_modes.npy", &a);
  fail_unless_equals_string (a.descr, "'|u1'");
  fail_unless_equals_int (a.ndims, 3);
  fail_unless (a.dims[0] == 3 && a.dims[1] == 4 && a.dims[2] == 4);
  fail_unless_equals_int (a.data_len, 48);
  for (i = 0; i < 16; i++) {
    fail_unless_equals_int (a.data[i], 255);
    fail_unless_equals_int (a.data[16 + i], (i + 1) % 2 * 3);
    fail_unless_equals_int (a.data[32 + i], (i + 2) % 2 * 3);
  }
  npy_clear (&a);

  npy_read (folder, "view0_ref-1_frames.npy", &a);
  fail_unless (strstr (a.descr, "('frame', '<u8'), ('pts', '<u8'), "
          "('ref_pts', '<u8'), ('ref_distance', '<i4'), ('view', '<u4'), "
          "('flags', '<u4'), ('partitions', '<u4')") != NULL, "%s", a.descr);
  fail_unless_equals_int (a.ndims, 1);
  fail_unless_equals_int (a.dims[0], 3);
  fail_unless_equals_int (a.data_len, 3 * 40);
  for (f = 0; f < 3; f++) {
    FramesRow r = frames_row (&a, f);

    /* the buffer without a meta was frame 1 */
    fail_unless_equals_uint64 (r.frame, f ? f + 1 : 0);
    fail_unless_equals_uint64 (r.pts, (guint64) f * 1000);
    fail_unless_equals_uint64 (r.ref_pts, f ? (guint64) (f - 1) * 1000
        : G_MAXUINT64);
    fail_unless_equals_int (r.ref_distance, -1);
    fail_unless_equals_int (r.view, 0);
    fail_unless_equals_int (r.flags, f ? GST_MOTION_VECTOR_META_FLAG_HAS_MODES
        : GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE);
    fail_unless_equals_int (r.partitions, parts);
  }
  npy_clear (&a);

  /* 8 cell arrays, modes, frames and the index; nothing else (no
   * chosen_refs nor summary: no field had one) */
  fail_unless_equals_int (count_files (folder), 11);
  index = read_index (folder);
  fail_unless (strstr (index, "\"complete\": true") != NULL, "%s", index);
  fail_unless (strstr (index, "{\"file\": \"view0_ref-1_8x8_mv.npy\", "
          "\"quantity\": \"mv\", \"partition\": \"8x8\", \"dtype\": \"<i2\", "
          "\"shape\": [3, 8, 8, 2], \"unit\": \"quarter-pel") != NULL, "%s",
      index);
  fail_unless (strstr (index, "\"quantities\": \"mv+cost+pred+mvd+modes+"
          "chosen-refs\"") != NULL, "%s", index);
  fail_unless (strstr (index, "\"bit_depth\": 8") != NULL);
  g_free (index);
  remove_export (folder);
}

GST_END_TEST;

GST_START_TEST (test_npy_quantities_partitions)
{
  /* quantities=mv partitions=8x8: one cell array per field, with the
   * frames; a shape selected but absent (4x4) makes no file */
  gchar *folder = tmp_folder ();
  GstHarness *h = npy_harness (folder, "quantities=mv partitions=8x8+4x4");
  GstBuffer *buf = new_buffer (0);
  Npy a;

  add_modes (add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16 |
          GST_MOTION_VECTOR_PARTITIONS_8X8, 3, -1), 0);
  push_ok (h, buf);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  fail_unless_equals_int (count_files (folder), 3);
  npy_read (folder, "view0_ref-1_8x8_mv.npy", &a);
  fail_unless_equals_int (a.dims[0], 1);
  fail_unless_equals_int (a.data_len, 8 * 8 * 4);
  npy_clear (&a);
  npy_read (folder, "view0_ref-1_frames.npy", &a);
  fail_unless_equals_int (a.dims[0], 1);
  npy_clear (&a);
  remove_export (folder);
}

GST_END_TEST;

GST_START_TEST (test_npy_several_fields)
{
  /* -1 and -2 on every buffer, +1 from the second: a group of arrays per
   * reference, each with its own rows; a second -1 field on one buffer
   * is not written. */
  gchar *folder = tmp_folder ();
  GstHarness *h = npy_harness (folder, "partitions=16x16");
  GstBuffer *buf;
  Npy a;
  guint f;

  for (f = 0; f < 2; f++) {
    buf = new_buffer (f);
    add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16, f, -1);
    add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16, 20 + f, -2);
    if (f) {
      add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16, 40, 1);
      add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16, 99, -1);
    }
    push_ok (h, buf);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  check_cells (folder, "view0_ref-1", GST_MOTION_VECTOR_PARTITION_16X16, 2,
      0);
  check_cells (folder, "view0_ref-2", GST_MOTION_VECTOR_PARTITION_16X16, 2,
      20);
  check_cells (folder, "view0_ref+1", GST_MOTION_VECTOR_PARTITION_16X16, 1,
      40);
  npy_read (folder, "view0_ref+1_frames.npy", &a);
  fail_unless_equals_int (a.dims[0], 1);
  fail_unless_equals_uint64 (frames_row (&a, 0).frame, 1);
  fail_unless_equals_int (frames_row (&a, 0).ref_distance, 1);
  npy_clear (&a);
  remove_export (folder);
}

GST_END_TEST;

/* The count in @name's header and the whole rows its data holds. */
static void
npy_counts (const gchar * folder, const gchar * name, gsize row_bytes,
    guint64 * count, guint64 * rows)
{
  Npy a;

  npy_read (folder, name, &a);
  *count = a.dims[0];
  *rows = a.data_len / row_bytes;
  npy_clear (&a);
}

GST_START_TEST (test_npy_readable_while_writing)
{
  /* Before EOS every file is a valid array whose count never exceeds the
   * rows written; when frames stop coming, the rows buffered are counted
   * within about a second all the same; the index says the export is not
   * complete until EOS. */
  gchar *folder = tmp_folder ();
  GstHarness *h = npy_harness (folder, "partitions=16x16 quantities=mv");
  guint64 count, rows;
  gchar *index;
  guint f;

  for (f = 0; f < 2; f++) {
    GstBuffer *buf = new_buffer (f);

    add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16, f, -1);
    push_ok (h, buf);
  }
  npy_counts (folder, "view0_ref-1_16x16_mv.npy", 64, &count, &rows);
  fail_unless (count <= rows, "count %" G_GUINT64_FORMAT " > rows %"
      G_GUINT64_FORMAT, count, rows);
  index = read_index (folder);
  fail_unless (strstr (index, "\"complete\": false") != NULL, "%s", index);
  fail_unless (strstr (index, "view0_ref-1_16x16_mv.npy") != NULL);
  g_free (index);

  /* a stalled stream: no frame for 1.5 s */
  g_usleep (1500 * 1000);
  npy_counts (folder, "view0_ref-1_16x16_mv.npy", 64, &count, &rows);
  fail_unless_equals_uint64 (count, 2);
  fail_unless_equals_uint64 (rows, 2);
  npy_counts (folder, "view0_ref-1_frames.npy", 40, &count, &rows);
  fail_unless_equals_uint64 (count, 2);
  fail_unless_equals_uint64 (rows, 2);
  {
    GstBuffer *buf = new_buffer (2);

    add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16, 2, -1);
    push_ok (h, buf);
  }
  npy_counts (folder, "view0_ref-1_16x16_mv.npy", 64, &count, &rows);
  fail_unless (count >= 2 && count <= rows, "count %" G_GUINT64_FORMAT
      ", rows %" G_GUINT64_FORMAT, count, rows);
  index = read_index (folder);
  fail_unless (strstr (index, "\"complete\": false") != NULL, "%s", index);
  g_free (index);

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  npy_counts (folder, "view0_ref-1_16x16_mv.npy", 64, &count, &rows);
  fail_unless_equals_uint64 (count, 3);
  fail_unless_equals_uint64 (rows, 3);
  index = read_index (folder);
  fail_unless (strstr (index, "\"complete\": true") != NULL, "%s", index);
  g_free (index);
  remove_export (folder);
}

GST_END_TEST;

/* Starts mvexport format=npy on @location; returns the text of the
 * OPEN_WRITE error it must post. */
static gchar *
open_error (const gchar * location)
{
  GstElement *e = gst_element_factory_make ("mvexport", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL, *text;

  g_object_set (e, "location", location, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "format", "npy");
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_WRITE), "%s", err->message);
  fail_unless (strstr (err->message, location) != NULL, "%s", err->message);
  text = g_strdup (debug);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
  return text;
}

GST_START_TEST (test_npy_folder_errors)
{
  gchar *folder = tmp_folder ();
  gchar *parent = g_path_get_dirname (folder);
  gchar *file = g_build_filename (parent, "a-file", NULL);
  gchar *missing = g_build_filename (parent, "no-such", "clip", NULL);
  gchar *inside = g_build_filename (folder, "old.npy", NULL);
  gchar *text;

  /* a non-empty folder: refused, and what it holds is left alone */
  fail_unless_equals_int (g_mkdir (folder, 0755), 0);
  fail_unless (g_file_set_contents (inside, "x", 1, NULL));
  text = open_error (folder);
  fail_unless (strstr (text, "exists and is not empty") != NULL, "%s", text);
  g_free (text);
  fail_unless_equals_int (count_files (folder), 1);
  g_unlink (inside);

  /* an empty folder is used */
  {
    GstHarness *h = npy_harness (folder, "");

    gst_harness_teardown (h);
    fail_unless_equals_int (count_files (folder), 1);   /* the index */
  }

  text = open_error (missing);
  fail_unless (strstr (text, "does not exist") != NULL, "%s", text);
  g_free (text);
  fail_if (g_file_test (missing, G_FILE_TEST_EXISTS));

  fail_unless (g_file_set_contents (file, "x", 1, NULL));
  text = open_error (file);
  fail_unless (strstr (text, "is not a folder") != NULL, "%s", text);
  g_free (text);
  g_unlink (file);

  g_free (parent);
  g_free (file);
  g_free (missing);
  g_free (inside);
  remove_export (folder);
}

GST_END_TEST;

/* The RESOURCE WRITE / STREAM FORMAT error on @bus, as "message | debug". */
static gchar *
pop_error (GstBus * bus, GQuark domain, gint code)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *debug = NULL, *text;

  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (g_error_matches (err, domain, code), "%s", err->message);
  text = g_strdup_printf ("%s | %s", err->message, debug);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  return text;
}

GST_START_TEST (test_npy_disk_full)
{
  /* Files may grow to 16 KiB (RLIMIT_FSIZE, the test's own process):
   * writing the 4x4 arrays fails with EFBIG at the first publication, a
   * second after the start; the error names the folder and the file, the
   * buffer and every later one fail, and the index still says
   * incomplete. */
#ifdef G_OS_UNIX
  gchar *folder = tmp_folder ();
  GstHarness *h = npy_harness (folder, "");
  GstBus *bus = gst_bus_new ();
  struct rlimit lim = { 16384, RLIM_INFINITY }, old;
  gchar *text;
  guint f;

  gst_element_set_bus (h->element, bus);
  for (f = 0; f < 20; f++) {
    GstBuffer *buf = new_buffer (f);

    add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_ALL, f, -1);
    push_ok (h, buf);
  }
  signal (SIGXFSZ, SIG_IGN);
  fail_unless_equals_int (getrlimit (RLIMIT_FSIZE, &old), 0);
  lim.rlim_max = old.rlim_max;
  fail_unless_equals_int (setrlimit (RLIMIT_FSIZE, &lim), 0);
  g_usleep (1100 * 1000);
  {
    GstBuffer *buf = new_buffer (20);

    add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_ALL, 20, -1);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  }
  text = pop_error (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE);
  fail_unless_equals_int (setrlimit (RLIMIT_FSIZE, &old), 0);
  fail_unless (strstr (text, folder) != NULL, "%s", text);
  fail_unless (strstr (text, "4x4") != NULL, "%s", text);
  g_free (text);
  /* later buffers are refused, stopping posts nothing more */
  {
    GstBuffer *buf = new_buffer (99);

    add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_ALL, 0, -1);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  }
  gst_element_set_state (h->element, GST_STATE_NULL);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  text = read_index (folder);
  fail_unless (strstr (text, "\"complete\": false") != NULL, "%s", text);
  g_free (text);
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  remove_export (folder);
#endif
}

GST_END_TEST;

GST_START_TEST (test_npy_size_change)
{
  /* a field of another size in a group: STREAM FORMAT error, the arrays
   * keep the frames of the first size */
  gchar *folder = tmp_folder ();
  GstHarness *h = npy_harness (folder, "");
  GstBus *bus = gst_bus_new ();
  GstBuffer *buf;
  gchar *text;

  gst_element_set_bus (h->element, bus);
  buf = new_buffer (0);
  add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16, 0, -1);
  push_ok (h, buf);
  buf = new_buffer (1);
  add_field (buf, 32, 32, GST_MOTION_VECTOR_PARTITIONS_16X16, 1, -1);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  text = pop_error (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  fail_unless (strstr (text, "32x32") != NULL && strstr (text, "64x64"),
      "%s", text);
  g_free (text);
  gst_element_set_state (h->element, GST_STATE_NULL);
  text = read_index (folder);
  fail_unless (strstr (text, "\"complete\": false") != NULL, "%s", text);
  g_free (text);
  check_cells (folder, "view0_ref-1", GST_MOTION_VECTOR_PARTITION_16X16, 1,
      0);
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  remove_export (folder);
}

GST_END_TEST;

/* One frame of 16x16 and 8x8 cells with a partition decision through
 * "mvexport format=@format @extra"; the file's text. */
static gchar *
export_text (const gchar * format, const gchar * extra)
{
  gchar *folder = tmp_folder ();
  gchar *parent = g_path_get_dirname (folder);
  gchar *path = g_build_filename (parent, "out.txt", NULL);
  gchar *launch = g_strdup_printf ("mvexport format=%s location=\"%s\" %s",
      format, path, extra);
  GstHarness *h = gst_harness_new_parse (launch);
  GstBuffer *buf = new_buffer (0);
  gchar *text = NULL;

  gst_harness_set_src_caps_str (h, CAPS);
  add_modes (add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16 |
          GST_MOTION_VECTOR_PARTITIONS_8X8, 1, -1), 0);
  push_ok (h, buf);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  g_unlink (path);
  g_rmdir (parent);
  g_free (parent);
  g_free (folder);
  g_free (path);
  g_free (launch);
  return text;
}

GST_START_TEST (test_quantities_text)
{
  gchar *text, **lines;

  /* JSON: the layer keeps its sizes, only "mv"; no modes */
  text = export_text ("jsonl", "quantities=mv");
  fail_unless (strstr (text, "\"layers\":[{\"shape\":\"16x16\",\"cols\":4,"
          "\"rows\":4,\"mv\":[7,-1,8,-2,") != NULL, "%s", text);
  fail_unless (g_str_has_suffix (text, ",370,-64]}]}\n"), "%s", text);
  fail_unless (strstr (text, "cost") == NULL && strstr (text, "modes") ==
      NULL, "%s", text);
  g_free (text);

  /* JSON: cost and modes, no vectors */
  text = export_text ("jsonl", "quantities=cost+modes");
  fail_unless (strstr (text, "\"rows\":4,\"cost\":[100000,100001,") != NULL,
      "%s", text);
  fail_unless (strstr (text, "\"mv\"") == NULL, "%s", text);
  fail_unless (strstr (text, "]}],\"modes\":[\"16x16\",\"8x8\",") != NULL,
      "%s", text);
  g_free (text);

  /* CSV: the columns of the selected quantities only */
  text = export_text ("csv", "quantities=mv+modes");
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_string (lines[0],
      "frame,pts,shape,col,row,x,y,w,h,mv_x,mv_y,chosen,ref_distance,view");
  fail_unless_equals_string (lines[1], "0,0,16x16,0,0,0,0,16,16,7,-1,1,-1,0");
  fail_unless_equals_string (lines[2], "0,0,16x16,1,0,16,0,16,16,8,-2,0,-1,0");
  g_strfreev (lines);
  g_free (text);

  text = export_text ("csv", "quantities=pred+mvd");
  lines = g_strsplit (text, "\n", -1);
  fail_unless_equals_string (lines[0],
      "frame,pts,shape,col,row,x,y,w,h,pred_x,pred_y,mvd_x,mvd_y,"
      "ref_distance,view");
  fail_unless_equals_string (lines[2], "0,0,16x16,1,0,16,0,16,16,1,-1,7,-1,"
      "-1,0");
  g_strfreev (lines);
  g_free (text);

  /* the default is every quantity: the header as before */
  text = export_text ("csv", "");
  fail_unless (g_str_has_prefix (text, "frame,pts,shape,col,row,x,y,w,h,mv_x,"
          "mv_y,cost,pred_x,pred_y,mvd_x,mvd_y,chosen,ref_distance,view\n"),
      "%s", text);
  g_free (text);
}

GST_END_TEST;

/* A correction meta on @buf, made as mvstabilize makes it (a custom meta
 * named GstMvStabilizeMeta, registered here unless it already is); its
 * structure, empty, for the caller's fields. */
static GstStructure *
add_stab_meta (GstBuffer * buf)
{
  static const gchar *tags[] = { NULL };
  GstCustomMeta *meta;

  if (!gst_meta_get_info ("GstMvStabilizeMeta"))
    gst_meta_register_custom ("GstMvStabilizeMeta", tags, NULL, NULL, NULL);
  meta = gst_buffer_add_custom_meta (buf, "GstMvStabilizeMeta");
  fail_unless (meta != NULL);
  return gst_custom_meta_get_structure (meta);
}

static const gchar *const stab_names[22] = {
  "frame", "corrected", "segment-start", "dx", "dy", "angle", "scale",
  "crop", "xx", "xy", "yx", "yy", "x0", "y0", "raw-x", "raw-y",
  "raw-angle", "raw-log-scale", "smooth-x", "smooth-y", "smooth-angle",
  "smooth-log-scale",
};

/* Double field i (3 .. 21) of the full correction of @seed: not whole, so
 * that a reader's rounding would show. */
static gdouble
stab_value (guint seed, guint i)
{
  return (seed * 37.0 + i) / 7.0 - 2.5;
}

/* The record of row @r of stabilization.npy, packed as the file is. */
typedef struct
{
  guint64 frame, pts;
  guint8 present;
  guint64 stab_frame;
  guint8 corrected, segment_start;
  gdouble v[22];                /* 3 .. 21 used */
} StabRow;

static StabRow
stab_row (const Npy * a, guint r)
{
  const guint8 *p = a->data + (gsize) r * 179;
  StabRow row;
  guint i;

  memcpy (&row.frame, p, 8);
  memcpy (&row.pts, p + 8, 8);
  row.present = p[16];
  memcpy (&row.stab_frame, p + 17, 8);
  row.corrected = p[25];
  row.segment_start = p[26];
  for (i = 3; i < 22; i++)
    memcpy (&row.v[i], p + 27 + 8 * (i - 3), 8);
  return row;
}

/* The stab_ cells (the last 22) of CSV row @line. */
static gchar **
csv_stab_cells (const gchar * line)
{
  gchar **cells = g_strsplit (line, ",", -1);
  guint n = g_strv_length (cells);
  gchar **out;

  fail_unless (n > 22, "%s", line);
  out = g_new0 (gchar *, 23);
  memcpy (out, cells + n - 22, 22 * sizeof (gchar *));
  memmove (cells + n - 22, cells + n, sizeof (gchar *));
  g_strfreev (cells);
  return out;
}

GST_START_TEST (test_npy_stabilization)
{
  /* Four buffers through "mvexport format=npy stabilization=true !
   * mvexport format=csv stabilization=true": 0, a field and every field
   * of the correction; 1, the correction alone (no motion-vector field),
   * some of its fields, one of another type, one a string; 2, a field
   * and no correction; 3, a field and a correction whose dx is not
   * finite.  stabilization.npy has a row per buffer, the CSV's values
   * (a missing or non-numeric field: the fill where the CSV's cell is
   * empty). */
  gchar *folder = tmp_folder ();
  gchar *parent = g_path_get_dirname (folder);
  gchar *csv = g_build_filename (parent, "out.csv", NULL);
  gchar *launch = g_strdup_printf ("mvexport format=npy location=\"%s\" "
      "stabilization=true ! mvexport format=csv location=\"%s\" "
      "stabilization=true", folder, csv);
  GstHarness *h = gst_harness_new_parse (launch);
  GstStructure *st;
  GstBuffer *buf;
  gchar *text, *index, **lines;
  Npy a;
  guint f, i, l;

  gst_harness_set_src_caps_str (h, CAPS);
  for (f = 0; f < 4; f++) {
    buf = new_buffer (f * 1000);
    if (f != 1)
      add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16, f, -1);
    if (f == 0 || f == 3) {
      st = add_stab_meta (buf);
      gst_structure_set (st, "frame", G_TYPE_UINT64, (guint64) 40 + f,
          "corrected", G_TYPE_BOOLEAN, f == 0,
          "segment-start", G_TYPE_BOOLEAN, f == 3, NULL);
      for (i = 3; i < 22; i++)
        gst_structure_set (st, stab_names[i], G_TYPE_DOUBLE,
            stab_value (f, i), NULL);
      if (f == 3)
        gst_structure_set (st, "dx", G_TYPE_DOUBLE, (gdouble) INFINITY,
            NULL);
    } else if (f == 1) {
      st = add_stab_meta (buf);
      gst_structure_set (st, "frame", G_TYPE_UINT64, (guint64) 7,
          "corrected", G_TYPE_BOOLEAN, TRUE, "dx", G_TYPE_DOUBLE, 1.5,
          "dy", G_TYPE_INT, -3, "angle", G_TYPE_STRING, "none",
          "raw-x", G_TYPE_DOUBLE, -0.25, NULL);
    }
    push_ok (h, buf);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  npy_read (folder, "stabilization.npy", &a);
  fail_unless (g_str_has_prefix (a.descr, "[('frame', '<u8'), ('pts', "
          "'<u8'), ('present', '|u1'), ('stab_frame', '<u8'), "
          "('stab_corrected', '|u1'), ('stab_segment_start', '|u1'), "
          "('stab_dx', '<f8'), ('stab_dy', '<f8'), "), "%s", a.descr);
  fail_unless (g_str_has_suffix (a.descr, "('stab_smooth_angle', '<f8'), "
          "('stab_smooth_log_scale', '<f8')]"), "%s", a.descr);
  fail_unless_equals_int (a.ndims, 1);
  fail_unless_equals_int (a.dims[0], 4);
  fail_unless_equals_int (a.data_len, 4 * 179);
  for (f = 0; f < 4; f++) {
    StabRow r = stab_row (&a, f);

    fail_unless_equals_uint64 (r.frame, f);
    fail_unless_equals_uint64 (r.pts, (guint64) f * 1000);
    fail_unless_equals_int (r.present, f != 2);
    if (f == 0 || f == 3) {
      fail_unless_equals_uint64 (r.stab_frame, 40 + f);
      fail_unless_equals_int (r.corrected, f == 0);
      fail_unless_equals_int (r.segment_start, f == 3);
      for (i = 3; i < 22; i++) {
        if (f == 3 && i == 3) {
          fail_unless (isinf (r.v[i]) && r.v[i] > 0);
        } else {
          fail_unless (r.v[i] == stab_value (f, i), "%u %u: %g", f, i,
              r.v[i]);
        }
      }
    } else if (f == 1) {
      fail_unless_equals_uint64 (r.stab_frame, 7);
      fail_unless_equals_int (r.corrected, 1);
      fail_unless_equals_int (r.segment_start, 255);
      fail_unless (r.v[3] == 1.5 && r.v[4] == -3.0 && r.v[14] == -0.25);
      for (i = 5; i < 22; i++) {
        if (i != 14)
          fail_unless (isnan (r.v[i]), "field %u: %g", i, r.v[i]);
      }
    } else {
      fail_unless_equals_uint64 (r.stab_frame, G_MAXUINT64);
      fail_unless (r.corrected == 255 && r.segment_start == 255);
      for (i = 3; i < 22; i++)
        fail_unless (isnan (r.v[i]), "field %u: %g", i, r.v[i]);
    }
  }

  /* the CSV of the same buffers: on every row of a frame, the same values
   * (an empty cell: a fill, or a value that is not finite) */
  fail_unless (g_file_get_contents (csv, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  /* header, 16 rows of frames 0, 2 and 3 (frame 1 has no field) */
  fail_unless_equals_int (g_strv_length (lines), 1 + 3 * 16 + 1);
  for (l = 1; l <= 3 * 16; l++) {
    gchar **cells = csv_stab_cells (lines[l]);
    guint64 frame = g_ascii_strtoull (lines[l], NULL, 10);
    StabRow r = stab_row (&a, frame);

    fail_unless (frame == 0 || frame == 2 || frame == 3, "%s", lines[l]);
    if (r.stab_frame == G_MAXUINT64) {
      fail_unless_equals_string (cells[0], "");
    } else {
      fail_unless_equals_uint64 (g_ascii_strtoull (cells[0], NULL, 10),
          r.stab_frame);
    }
    for (i = 1; i < 3; i++) {
      guint8 v = i == 1 ? r.corrected : r.segment_start;

      if (v == 255) {
        fail_unless_equals_string (cells[i], "");
      } else {
        fail_unless_equals_string (cells[i], v ? "1" : "0");
      }
    }
    for (i = 3; i < 22; i++) {
      if (!isfinite (r.v[i])) {
        fail_unless_equals_string (cells[i], "");
      } else {
        fail_unless (*cells[i] && g_ascii_strtod (cells[i], NULL) == r.v[i],
            "%s: %s != %g", lines[l], cells[i], r.v[i]);
      }
    }
    g_strfreev (cells);
  }
  g_strfreev (lines);
  g_free (text);
  g_unlink (csv);
  npy_clear (&a);

  index = read_index (folder);
  fail_unless (strstr (index, "\"stabilization\": true") != NULL, "%s",
      index);
  fail_unless (strstr (index, "\"stabilization\": {\"file\": "
          "\"stabilization.npy\", \"quantity\": \"stabilization\", "
          "\"dtype\": [[\"frame\", \"<u8\"], [\"pts\", \"<u8\"], ") != NULL,
      "%s", index);
  fail_unless (strstr (index, "\"shape\": [4], \"unit\": ") != NULL, "%s",
      index);
  fail_unless (strstr (index, "\"stab_smooth_log_scale\": \"natural log") !=
      NULL, "%s", index);
  g_free (index);
  /* the 4 arrays of the 16x16 field, its frames, stabilization.npy and
   * the index */
  fail_unless_equals_int (count_files (folder), 7);
  remove_export (folder);
  g_free (launch);
  g_free (csv);
}

GST_END_TEST;

GST_START_TEST (test_npy_no_stabilization)
{
  /* without the property no file, though a buffer carries the meta; the
   * index says so */
  gchar *folder = tmp_folder ();
  GstHarness *h = npy_harness (folder, "quantities=mv");
  GstBuffer *buf = new_buffer (0);
  gchar *index;

  add_field (buf, 64, 64, GST_MOTION_VECTOR_PARTITIONS_16X16, 1, -1);
  gst_structure_set (add_stab_meta (buf), "dx", G_TYPE_DOUBLE, 1.0, NULL);
  push_ok (h, buf);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  fail_unless_equals_int (count_files (folder), 3);
  index = read_index (folder);
  fail_unless (strstr (index, "\"summary\": false, \"stabilization\": "
          "false") != NULL, "%s", index);
  fail_unless (g_str_has_suffix (index, "\n],\n\"stabilization\": null\n}\n"),
      "%s", index);
  g_free (index);
  remove_export (folder);
}

GST_END_TEST;

static Suite *
mvexport_npy_suite (void)
{
  Suite *s = suite_create ("mvexport-npy");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_npy_arrays);
  tcase_add_test (tc, test_npy_quantities_partitions);
  tcase_add_test (tc, test_npy_several_fields);
  tcase_add_test (tc, test_npy_readable_while_writing);
  tcase_add_test (tc, test_npy_folder_errors);
  tcase_add_test (tc, test_npy_disk_full);
  tcase_add_test (tc, test_npy_size_change);
  tcase_add_test (tc, test_quantities_text);
  tcase_add_test (tc, test_npy_stabilization);
  tcase_add_test (tc, test_npy_no_stabilization);
  return s;
}

GST_CHECK_MAIN (mvexport_npy);
