/* mvtools — mvexport's NumPy writer (mvexportnpy.h, docs/export-schema.md).
 *
 * Invariants that make every file loadable at any time:
 *
 * - an array's header is written once, at its creation, with a fixed
 *   length: the frame count is printed right-aligned in 20 characters
 *   (every guint64 fits), so rewriting it in place never moves the data;
 * - rows are appended whole, from a per-array buffer, and the header's
 *   count is only ever rewritten (pwrite at offset 0) after the rows it
 *   counts were written, so the count never exceeds the data in the file:
 *   numpy reads exactly the rows it counts and ignores any past them;
 * - every array of a group (one view and reference) gets a row for each
 *   field of that group, the value's fill where a field lacks it, so the
 *   arrays of a group line up row for row;
 * - stabilization.npy, with stabilization set, has one row per buffer,
 *   every buffer, so its row f is the buffer counted f.
 *
 * Batches are written by a small pool of threads, several files at once:
 * on tmpfs and in the page cache the time goes into taking new pages, which
 * parallel writers to different files share out over cores.  Each array
 * has at most one write in flight (its second buffer), so its file grows
 * in order; `written` advances only when a write has completed, and a
 * header is published only once every write before it has.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mvexportnpy.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

GST_DEBUG_CATEGORY_STATIC (mv_npy_debug);
#define GST_CAT_DEFAULT mv_npy_debug

/* Headers are published at most this often while frames arrive (µs). */
#define PUBLISH_INTERVAL_US G_USEC_PER_SEC
/* Rows are buffered up to this many bytes per array before a write. */
#define BATCH_BYTES (1 << 18)
/* Threads writing batches: the cores but one (the streaming thread's),
 * at most this many; none on one core (the streaming thread writes). */
#define MAX_WRITERS 6
/* The header's total length, magic to newline: room for the longest
 * descr of a field's arrays (the frames' and summary's records) with the
 * count at 20 digits; stabilization.npy's record (25 fields) needs more.
 * Both multiples of 64, so the data starts aligned. */
#define HEADER_LEN 512
#define STAB_HEADER_LEN 1024
#define COUNT_WIDTH 20

#define INDEX_NAME "index.json"
#define INDEX_VERSION 1

/* modes: no partition has this index; chosen_refs: no reference is this
 * far (ME_MAX_WINDOW is far smaller) */
#define FILL_MODES 0xff
#define FILL_CHOSEN_REFS 0x80

G_DEFINE_QUARK (mv-npy-error-quark, mv_npy_error);

typedef enum
{
  KIND_MV,
  KIND_COST,
  KIND_PRED,
  KIND_MVD,
  KIND_MODES,
  KIND_CHOSEN_REFS,
  KIND_FRAMES,
  KIND_SUMMARY,
  KIND_STABILIZATION,
} ArrayKind;

static const gchar *const kind_names[] = {
  "mv", "cost", "pred", "mvd", "modes", "chosen_refs", "frames", "summary",
  "stabilization",
};

/* The per-field record of the frames array: 40 bytes, no padding. */
#define FRAMES_ROW 40
/* The summary record: 4 x u4 and 10 x f8. */
#define SUMMARY_ROW 96

const gchar *const mv_stab_fields[MV_STAB_N_FIELDS] = {
  "frame", "corrected", "segment-start", "dx", "dy", "angle", "scale",
  "crop", "xx", "xy", "yx", "yy", "x0", "y0", "raw-x", "raw-y",
  "raw-angle", "raw-log-scale", "smooth-x", "smooth-y", "smooth-angle",
  "smooth-log-scale",
};

/* The stabilization record, packed in the CSV's order: frame, pts (u8),
 * present (u1), then mv_stab_fields: stab_frame (u8), stab_corrected,
 * stab_segment_start (u1), the 19 others (f8). */
#define STAB_OFF_FIELDS 17      /* stab_frame */
#define STAB_N_DOUBLES (MV_STAB_N_FIELDS - 3)
#define STAB_ROW (STAB_OFF_FIELDS + 8 + 2 + 8 * STAB_N_DOUBLES)
/* what a field the meta lacks reads as (a frame without the meta: all) */
#define STAB_FILL_FRAME G_MAXUINT64
#define STAB_FILL_BOOL 0xff

/* The unit of each field of the stabilization record, in its order. */
static const gchar *const stab_units[3 + MV_STAB_N_FIELDS] = {
  "the buffer, counted from 0 as the frame of the other formats (the row)",
  "ns, 18446744073709551615 when unset",
  "1: the buffer carried mvstabilize's correction; 0: it did not, every "
      "stab_ field is then its fill",
  "frames since mvstabilize's last break; 18446744073709551615 when missing",
  "1 true, 0 false (the frame kept its place), 255 when missing",
  "1 true (the first frame of a new path), 0 false, 255 when missing",
  "input pixels (the map q -> c + (dx, dy) + scale R(angle) (q - c)); NaN "
      "when missing",
  "input pixels; NaN when missing",
  "radians, clockwise on screen; NaN when missing",
  "factor, the crop included; NaN when missing",
  "zoom hiding the borders, >= 1; NaN when missing",
  "affine coefficient, input x = xx x + xy y + x0; NaN when missing",
  "affine coefficient, input x = xx x + xy y + x0; NaN when missing",
  "affine coefficient, input y = yx x + yy y + y0; NaN when missing",
  "affine coefficient, input y = yx x + yy y + y0; NaN when missing",
  "input pixels; NaN when missing",
  "input pixels; NaN when missing",
  "pixels, the camera's pose against the segment's first frame; NaN when "
      "missing",
  "pixels, the camera's pose; NaN when missing",
  "radians, the camera's pose; NaN when missing",
  "natural log of the scale, the camera's pose; NaN when missing",
  "pixels, the smoothed pose; NaN when missing",
  "pixels, the smoothed pose; NaN when missing",
  "radians, the smoothed pose; NaN when missing",
  "natural log of the scale, the smoothed pose; NaN when missing",
};

typedef struct
{
  ArrayKind kind;
  gint partition;               /* cell kinds; -1 otherwise */
  gchar *file;                  /* name in the folder */
  gchar *descr;                 /* numpy's dtype text */
  gchar *dtype_json;            /* the same for the index */
  guint ndims;                  /* after the frame axis */
  guint64 dims[3];
  gsize row_bytes;
  gsize header_len;             /* HEADER_LEN, or STAB_HEADER_LEN */
  guint8 fill;
  gint fd;
  guint64 rows;                 /* appended: in the file or pending */
  guint64 written;              /* rows in the file */
  guint64 published;            /* rows the header counts */
  guint8 *pending;
  gsize pending_len, pending_cap;
  /* the batch being written by the pool (MvNpyWriter.io_lock): its rows
   * end at row spare_rows, and busy until the write has completed */
  guint8 *spare;
  gsize spare_len;
  guint64 spare_rows;
  gboolean busy;
} NpyArray;

typedef struct
{
  guint view;
  gint ref_distance;
  gboolean inter_view;
  guint width, height, analysis_width, analysis_height;
  guint bit_depth, search_range;
  GstMotionVectorLuma luma;
  GstMotionVectorMethod method;
  GstMotionVectorGrid grids[GST_MOTION_VECTOR_PARTITION_COUNT];
  guint mb_cols, mb_rows;
  guint64 rows;
  guint64 last_frame;
  gboolean has_last;
  NpyArray *cells[GST_MOTION_VECTOR_PARTITION_COUNT][4];
  NpyArray *modes, *refs, *frames, *summary;
  GPtrArray *arrays;            /* NpyArray, in creation order */
} Group;

struct _MvNpyWriter
{
  gchar *folder;
  MvNpySettings settings;
  gchar *settings_json;
  GPtrArray *groups;            /* Group */
  NpyArray *stab;               /* stabilization.npy; NULL without */
  guint64 stab_rows;            /* its rows appended, one per buffer */
  gint64 last_publish;
  gboolean dirty;               /* rows appended since the last publish */
  /* The publisher thread publishes when frames stop arriving with rows
   * still buffered (a stalled or paused stream), so that the headers are
   * never more than about a second behind what was appended.  @lock
   * guards everything above against it; a failure of its own waits in
   * @async_error for the streaming thread to report. */
  GMutex lock;
  GCond cond;
  GThread *thread;
  gboolean stopping;
  GError *async_error;
  gboolean failed;
  gchar endian;                 /* '<' or '>': the cells' host order */
  /* The batch writers (NULL: the streaming thread writes).  @io_lock
   * guards the arrays' spare batches, their `written` counts while a
   * write is in flight, @io_busy and @io_error, the first failure of a
   * write, which the streaming thread reports at its next flush. */
  GThreadPool *pool;
  GMutex io_lock;
  GCond io_cond;
  guint io_busy;
  GError *io_error;
};

static void
array_free (NpyArray * a)
{
  if (a->fd >= 0)
    close (a->fd);
  g_free (a->file);
  g_free (a->descr);
  g_free (a->dtype_json);
  g_free (a->pending);
  g_free (a->spare);
  g_free (a);
}

static void
group_free (Group * g)
{
  g_ptr_array_unref (g->arrays);
  g_free (g);
}

static gboolean
set_io_error (GError ** error, const gchar * what, const gchar * file,
    gint err)
{
  g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_WRITE, "%s %s: %s", what,
      file, g_strerror (err));
  return FALSE;
}

/* Writes all of @len bytes at offset @off (pwrite), or at the file offset
 * when @off < 0 (write); EINTR and short writes are retried. */
static gboolean
write_at (gint fd, const guint8 * data, gsize len, goffset off, gint * err)
{
  while (len) {
    gssize n = off < 0 ? write (fd, data, len) : pwrite (fd, data, len, off);

    if (n < 0) {
      if (errno == EINTR)
        continue;
      *err = errno;
      return FALSE;
    }
    if (n == 0) {
      *err = EIO;
      return FALSE;
    }
    data += n;
    len -= n;
    if (off >= 0)
      off += n;
  }
  return TRUE;
}

/* The header of @a counting @count rows, HEADER_LEN bytes in @out. */
static void
format_header (const NpyArray * a, guint64 count, guint8 * out)
{
  GString *s = g_string_sized_new (a->header_len);
  guint i;
  guint16 dict_len = a->header_len - 10;

  g_string_append_printf (s, "{'descr': %s, 'fortran_order': False, "
      "'shape': (%*" G_GUINT64_FORMAT ",", a->descr, COUNT_WIDTH, count);
  for (i = 0; i < a->ndims; i++)
    g_string_append_printf (s, " %" G_GUINT64_FORMAT ",", a->dims[i]);
  g_string_append (s, "), }");
  /* the constructor checked that every descr fits */
  g_assert (s->len < dict_len);
  memcpy (out, "\x93NUMPY\x01\x00", 8);
  out[8] = dict_len & 0xff;
  out[9] = dict_len >> 8;
  memcpy (out + 10, s->str, s->len);
  memset (out + 10 + s->len, ' ', dict_len - 1 - s->len);
  out[a->header_len - 1] = '\n';
  g_string_free (s, TRUE);
}

/* The pool's job: writes the spare batch of @a (one of the pool's
 * threads). */
static void
array_write_spare (gpointer data, gpointer user_data)
{
  NpyArray *a = data;
  MvNpyWriter *w = user_data;
  gint err = 0, fd;
  const guint8 *batch;
  gsize len;
  gboolean ok;

  g_mutex_lock (&w->io_lock);
  fd = a->fd;
  batch = a->spare;
  len = a->spare_len;
  g_mutex_unlock (&w->io_lock);
  ok = write_at (fd, batch, len, -1, &err);
  g_mutex_lock (&w->io_lock);
  if (ok)
    a->written = a->spare_rows;
  else if (!w->io_error)
    set_io_error (&w->io_error, "Could not write", a->file, err);
  a->busy = FALSE;
  w->io_busy--;
  g_cond_broadcast (&w->io_cond);
  g_mutex_unlock (&w->io_lock);
}

/* Waits for @a's write in flight, or for every write with @a NULL; FALSE
 * with @error when some write has failed.  Then the file holds an unknown
 * part of its rows: its count stays at what was published, which is
 * whole, and nothing is published again. */
static gboolean
wait_writes (MvNpyWriter * w, NpyArray * a, GError ** error)
{
  gboolean ok;

  if (!w->pool)
    return TRUE;
  g_mutex_lock (&w->io_lock);
  while (a ? a->busy : w->io_busy > 0)
    g_cond_wait (&w->io_cond, &w->io_lock);
  ok = w->io_error == NULL;
  if (!ok) {
    w->failed = TRUE;
    g_propagate_error (error, g_error_copy (w->io_error));
  }
  g_mutex_unlock (&w->io_lock);
  return ok;
}

/* Writes the pending rows of @a: hands them to the pool (after its write
 * before), or writes them here without one. */
static gboolean
array_flush (MvNpyWriter * w, NpyArray * a, GError ** error)
{
  gint err = 0;
  guint8 *batch;

  if (!a->pending_len)
    return TRUE;
  if (w->pool) {
    if (!wait_writes (w, a, error))
      return FALSE;
    if (!a->spare)
      a->spare = g_malloc (a->pending_cap);
    g_mutex_lock (&w->io_lock);
    batch = a->spare;
    a->spare = a->pending;
    a->spare_len = a->pending_len;
    a->spare_rows = a->rows;
    a->busy = TRUE;
    w->io_busy++;
    g_mutex_unlock (&w->io_lock);
    a->pending = batch;
    a->pending_len = 0;
    g_thread_pool_push (w->pool, a, NULL);
    return TRUE;
  }
  if (!write_at (a->fd, a->pending, a->pending_len, -1, &err)) {
    /* the file holds an unknown part of the rows: its count stays at
     * what was published, which is whole */
    w->failed = TRUE;
    return set_io_error (error, "Could not write", a->file, err);
  }
  a->written = a->rows;
  a->pending_len = 0;
  return TRUE;
}

/* Rewrites the header of @a with the rows written, if that changed. */
static gboolean
array_publish (MvNpyWriter * w, NpyArray * a, GError ** error)
{
  guint8 header[STAB_HEADER_LEN];
  gint err = 0;

  if (a->published == a->written)
    return TRUE;
  format_header (a, a->written, header);
  if (!write_at (a->fd, header, a->header_len, 0, &err)) {
    w->failed = TRUE;
    return set_io_error (error, "Could not update the header of", a->file,
        err);
  }
  a->published = a->written;
  return TRUE;
}

/* Room for one row of @a in its batch; NULL with @error when writing the
 * batch to make room failed. */
static guint8 *
array_row (MvNpyWriter * w, NpyArray * a, GError ** error)
{
  guint8 *row;

  if (a->pending_len + a->row_bytes > a->pending_cap
      && !array_flush (w, a, error))
    return NULL;
  row = a->pending + a->pending_len;
  a->pending_len += a->row_bytes;
  a->rows++;
  return row;
}

/* Creates the file of @a in the folder, its header counting 0 rows, and
 * @backfill rows of its fill (the group's rows before it existed). */
static gboolean
array_create (MvNpyWriter * w, NpyArray * a, guint64 backfill,
    GError ** error)
{
  gchar *path = g_build_filename (w->folder, a->file, NULL);
  guint8 header[STAB_HEADER_LEN];
  gint err = 0;
  guint64 i;

  a->fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (a->fd < 0) {
    err = errno;
    g_free (path);
    w->failed = TRUE;
    return set_io_error (error, "Could not create", a->file, err);
  }
  g_free (path);
  format_header (a, 0, header);
  if (!write_at (a->fd, header, a->header_len, -1, &err)) {
    w->failed = TRUE;
    return set_io_error (error, "Could not write", a->file, err);
  }
  a->pending_cap = MAX (BATCH_BYTES, a->row_bytes);
  a->pending = g_malloc (a->pending_cap);
  for (i = 0; i < backfill; i++) {
    guint8 *row = array_row (w, a, error);

    if (!row)
      return FALSE;
    memset (row, a->fill, a->row_bytes);
  }
  return TRUE;
}

/* The index's dtype of @a: numpy's descr with JSON's quotes. */
static void
array_set_dtype_json (NpyArray * a)
{
  a->dtype_json = g_strdelimit (g_strdup (a->descr), "'", '"');
  g_strdelimit (a->dtype_json, "(", '[');
  g_strdelimit (a->dtype_json, ")", ']');
}

/* stabilization.npy (its file not yet created). */
static NpyArray *
stab_array_new (MvNpyWriter * w)
{
  NpyArray *a = g_new0 (NpyArray, 1);
  GString *d = g_string_new ("[('frame', '");
  gchar e = w->endian;
  guint i;

  a->kind = KIND_STABILIZATION;
  a->partition = -1;
  a->fd = -1;
  a->file = g_strdup ("stabilization.npy");
  g_string_append_printf (d, "%cu8'), ('pts', '%cu8'), ('present', '|u1')",
      e, e);
  for (i = 0; i < MV_STAB_N_FIELDS; i++) {
    const gchar *c;

    g_string_append (d, ", ('stab_");
    for (c = mv_stab_fields[i]; *c; c++)
      g_string_append_c (d, *c == '-' ? '_' : *c);
    if (i == 0)
      g_string_append_printf (d, "', '%cu8')", e);
    else if (i < 3)
      g_string_append (d, "', '|u1')");
    else
      g_string_append_printf (d, "', '%cf8')", e);
  }
  g_string_append_c (d, ']');
  a->descr = g_string_free (d, FALSE);
  a->ndims = 0;
  a->row_bytes = STAB_ROW;
  a->header_len = STAB_HEADER_LEN;
  array_set_dtype_json (a);
  return a;
}

/* A new array of @g (its file not yet created). */
static NpyArray *
array_new (MvNpyWriter * w, Group * g, ArrayKind kind, gint partition)
{
  NpyArray *a = g_new0 (NpyArray, 1);
  gchar e = w->endian;
  gchar ref[16];

  a->kind = kind;
  a->partition = partition;
  a->fd = -1;
  a->header_len = HEADER_LEN;
  g_snprintf (ref, sizeof (ref), "%+d", g->ref_distance);
  if (g->ref_distance == 0)
    g_strlcpy (ref, "0", sizeof (ref));
  if (partition >= 0)
    a->file = g_strdup_printf ("view%u_ref%s_%ux%u_%s.npy", g->view, ref,
        gst_motion_vector_partition_width (partition),
        gst_motion_vector_partition_height (partition), kind_names[kind]);
  else
    a->file = g_strdup_printf ("view%u_ref%s_%s.npy", g->view, ref,
        kind_names[kind]);

  switch (kind) {
    case KIND_MV:
    case KIND_PRED:
    case KIND_MVD:
      a->descr = g_strdup_printf ("'%ci2'", e);
      a->ndims = 3;
      a->dims[0] = g->grids[partition].rows;
      a->dims[1] = g->grids[partition].cols;
      a->dims[2] = 2;
      a->row_bytes = a->dims[0] * a->dims[1] * 4;
      break;
    case KIND_COST:
      a->descr = g_strdup_printf ("'%cu4'", e);
      a->ndims = 2;
      a->dims[0] = g->grids[partition].rows;
      a->dims[1] = g->grids[partition].cols;
      a->row_bytes = a->dims[0] * a->dims[1] * 4;
      break;
    case KIND_MODES:
      a->descr = g_strdup ("'|u1'");
      a->ndims = 2;
      a->dims[0] = g->mb_rows;
      a->dims[1] = g->mb_cols;
      a->row_bytes = a->dims[0] * a->dims[1];
      a->fill = FILL_MODES;
      break;
    case KIND_CHOSEN_REFS:
      a->descr = g_strdup ("'|i1'");
      a->ndims = 2;
      a->dims[0] = 4 * g->mb_rows;
      a->dims[1] = 4 * g->mb_cols;
      a->row_bytes = a->dims[0] * a->dims[1];
      a->fill = FILL_CHOSEN_REFS;
      break;
    case KIND_FRAMES:
      a->descr = g_strdup_printf ("[('frame', '%cu8'), ('pts', '%cu8'), "
          "('ref_pts', '%cu8'), ('ref_distance', '%ci4'), ('view', '%cu4'), "
          "('flags', '%cu4'), ('partitions', '%cu4')]", e, e, e, e, e, e, e);
      a->ndims = 0;
      a->row_bytes = FRAMES_ROW;
      break;
    case KIND_SUMMARY:
      a->descr = g_strdup_printf ("[('version', '%cu4'), ('flags', '%cu4'), "
          "('partition', '%cu4'), ('blocks', '%cu4'), ('global_x', '%cf8'), "
          "('global_y', '%cf8'), ('zoom', '%cf8'), ('rotation', '%cf8'), "
          "('global_share', '%cf8'), ('moving_share', '%cf8'), "
          "('unmatched_share', '%cf8'), ('scene_change', '%cf8'), "
          "('mean_cost', '%cf8'), ('median_cost', '%cf8')]", e, e, e, e, e, e,
          e, e, e, e, e, e, e, e);
      a->ndims = 0;
      a->row_bytes = SUMMARY_ROW;
      break;
    case KIND_STABILIZATION:
      g_assert_not_reached ();
      break;
  }
  array_set_dtype_json (a);
  return a;
}

/* ---- the index ---------------------------------------------------------- */

static const gchar *
quantity_unit (ArrayKind kind)
{
  switch (kind) {
    case KIND_MV:
    case KIND_PRED:
    case KIND_MVD:
      return "quarter-pel at width x height, (x, y) on the last axis";
    case KIND_COST:
      return "SAD (or SATD) of the block's luma at analysis size, in "
          "sample units of bit_depth";
    case KIND_MODES:
      return "partition per macroblock: 0 16x16, 1 16x8, 2 8x16, 3 8x8, "
          "4 8x4, 5 4x8, 6 4x4; 255 where the field had no decision";
    case KIND_CHOSEN_REFS:
      return "ref_distance chosen per 4x4 block; -128 where the field had "
          "no decision";
    case KIND_FRAMES:
      return "pts, ref_pts: ns, 18446744073709551615 when unset; flags: "
          "GstMotionVectorMetaFlags; partitions: the shapes the field "
          "carried";
    case KIND_SUMMARY:
      return "GstMotionVectorSummary (docs/summary.md); all 0 where the "
          "field had none";
    case KIND_STABILIZATION:
      return "mvstabilize's correction (docs/stabilization.md), one row per "
          "buffer; each field's unit in fields";
  }
  return "";
}

static const gchar *
luma_name (GstMotionVectorLuma luma)
{
  switch (luma) {
    case GST_MOTION_VECTOR_LUMA_BT601:
      return "bt601";
    case GST_MOTION_VECTOR_LUMA_BT709:
      return "bt709";
    case GST_MOTION_VECTOR_LUMA_PACKED:
      return "packed";
    default:
      return "plane";
  }
}

static const gchar *
method_nick (GstMotionVectorMethod method)
{
  GEnumClass *klass = g_type_class_ref (gst_motion_vector_method_get_type ());
  GEnumValue *v = g_enum_get_value (klass, method);
  const gchar *name = v ? v->value_nick : "unknown";

  g_type_class_unref (klass);
  return name;
}

static gchar *
index_text (MvNpyWriter * w, gboolean complete, gboolean final)
{
  GString *s = g_string_sized_new (4096);
  guint gi, ai;

  g_string_append_printf (s, "{\n\"format\": \"gpumotionest-npy\",\n"
      "\"version\": %d,\n\"complete\": %s,\n\"settings\": {%s},\n"
      "\"fields\": [", INDEX_VERSION, complete ? "true" : "false",
      w->settings_json);
  for (gi = 0; gi < w->groups->len; gi++) {
    Group *g = g_ptr_array_index (w->groups, gi);

    g_string_append_printf (s, "%s\n {\"view\": %u, \"ref_distance\": %d, "
        "\"inter_view\": %s, \"width\": %u, \"height\": %u, "
        "\"analysis_width\": %u, \"analysis_height\": %u, "
        "\"mb_cols\": %u, \"mb_rows\": %u, \"bit_depth\": %u, "
        "\"luma\": \"%s\", \"method\": \"%s\", \"search_range\": %u, "
        "\"rows\": ", gi ? "," : "", g->view, g->ref_distance,
        g->inter_view ? "true" : "false", g->width, g->height,
        g->analysis_width, g->analysis_height, g->mb_cols, g->mb_rows,
        g->bit_depth, luma_name (g->luma), method_nick (g->method),
        g->search_range);
    if (final)
      g_string_append_printf (s, "%" G_GUINT64_FORMAT, g->rows);
    else
      g_string_append (s, "null");
    g_string_append (s, ", \"arrays\": [");
    for (ai = 0; ai < g->arrays->len; ai++) {
      NpyArray *a = g_ptr_array_index (g->arrays, ai);
      guint d;

      g_string_append_printf (s, "%s\n  {\"file\": \"%s\", \"quantity\": "
          "\"%s\", ", ai ? "," : "", a->file, kind_names[a->kind]);
      if (a->partition >= 0)
        g_string_append_printf (s, "\"partition\": \"%ux%u\", ",
            gst_motion_vector_partition_width (a->partition),
            gst_motion_vector_partition_height (a->partition));
      g_string_append_printf (s, "\"dtype\": %s, \"shape\": [", a->dtype_json);
      if (final)
        g_string_append_printf (s, "%" G_GUINT64_FORMAT, a->published);
      else
        g_string_append (s, "null");
      for (d = 0; d < a->ndims; d++)
        g_string_append_printf (s, ", %" G_GUINT64_FORMAT, a->dims[d]);
      g_string_append_printf (s, "], \"unit\": \"%s\"}",
          quantity_unit (a->kind));
    }
    g_string_append (s, "]}");
  }
  g_string_append (s, "\n],\n\"stabilization\": ");
  if (w->stab) {
    NpyArray *a = w->stab;
    guint i;

    g_string_append_printf (s, "{\"file\": \"%s\", \"quantity\": \"%s\", "
        "\"dtype\": %s, \"shape\": [", a->file, kind_names[a->kind],
        a->dtype_json);
    if (final)
      g_string_append_printf (s, "%" G_GUINT64_FORMAT, a->published);
    else
      g_string_append (s, "null");
    g_string_append_printf (s, "], \"unit\": \"%s\", \"fields\": {",
        quantity_unit (a->kind));
    for (i = 0; i < G_N_ELEMENTS (stab_units); i++) {
      const gchar *c;

      g_string_append (s, i ? ",\n  \"" : "\n  \"");
      if (i < 3) {
        static const gchar *const first[3] = { "frame", "pts", "present" };
        g_string_append (s, first[i]);
      } else {
        g_string_append (s, "stab_");
        for (c = mv_stab_fields[i - 3]; *c; c++)
          g_string_append_c (s, *c == '-' ? '_' : *c);
      }
      g_string_append_printf (s, "\": \"%s\"", stab_units[i]);
    }
    g_string_append (s, "}}");
  } else {
    g_string_append (s, "null");
  }
  g_string_append (s, "\n}\n");
  return g_string_free (s, FALSE);
}

/* Replaces the index by a new one: written beside it, synced when @final,
 * then renamed over it, so a reader finds the old index or the new one,
 * never a part. */
static gboolean
write_index (MvNpyWriter * w, gboolean complete, gboolean final,
    GError ** error)
{
  gchar *text = index_text (w, complete, final);
  gchar *tmp = g_build_filename (w->folder, "." INDEX_NAME ".tmp", NULL);
  gchar *path = g_build_filename (w->folder, INDEX_NAME, NULL);
  gboolean ok = FALSE;
  gint fd, err = 0;

  fd = g_open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    err = errno;
  } else {
    ok = write_at (fd, (const guint8 *) text, strlen (text), -1, &err);
    if (ok && final && fsync (fd) != 0 && errno != EINVAL) {
      err = errno;
      ok = FALSE;
    }
    if (close (fd) != 0 && ok) {
      err = errno;
      ok = FALSE;
    }
    if (ok && g_rename (tmp, path) != 0) {
      err = errno;
      ok = FALSE;
    }
    if (ok && final) {
      /* the rename itself on disk: the folder's entry */
      gint dfd = g_open (w->folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

      if (dfd >= 0) {
        if (fsync (dfd) != 0 && errno != EINVAL)
          GST_WARNING ("could not sync folder %s: %s", w->folder,
              g_strerror (errno));
        close (dfd);
      }
    }
    if (!ok)
      g_unlink (tmp);
  }
  if (!ok) {
    w->failed = TRUE;
    set_io_error (error, "Could not write", INDEX_NAME, err);
  }
  g_free (text);
  g_free (tmp);
  g_free (path);
  return ok;
}

/* ---- opening -------------------------------------------------------------- */

static gpointer publisher (gpointer data);

MvNpyWriter *
mv_npy_writer_open (const gchar * folder, const MvNpySettings * settings,
    GError ** error)
{
  MvNpyWriter *w;
  GDir *dir;
  GError *err = NULL;
  gchar *parent;

  static gsize debug_once = 0;

  if (g_once_init_enter (&debug_once)) {
    GST_DEBUG_CATEGORY_INIT (mv_npy_debug, "mvexport-npy", 0,
        "mvexport's NumPy writer");
    g_once_init_leave (&debug_once, 1);
  }

  if (g_file_test (folder, G_FILE_TEST_EXISTS)) {
    if (!g_file_test (folder, G_FILE_TEST_IS_DIR)) {
      g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_OPEN,
          "\"%s\" exists and is not a folder", folder);
      return NULL;
    }
    dir = g_dir_open (folder, 0, &err);
    if (!dir) {
      g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_OPEN,
          "Could not read folder \"%s\": %s", folder, err->message);
      g_error_free (err);
      return NULL;
    }
    if (g_dir_read_name (dir)) {
      g_dir_close (dir);
      g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_OPEN,
          "Folder \"%s\" exists and is not empty: the arrays of another "
          "export would be mixed with these", folder);
      return NULL;
    }
    g_dir_close (dir);
  } else {
    parent = g_path_get_dirname (folder);
    if (!g_file_test (parent, G_FILE_TEST_IS_DIR)) {
      g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_OPEN,
          "Could not create folder \"%s\": its parent \"%s\" does not "
          "exist", folder, parent);
      g_free (parent);
      return NULL;
    }
    g_free (parent);
    if (g_mkdir (folder, 0755) != 0) {
      g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_OPEN,
          "Could not create folder \"%s\": %s", folder, g_strerror (errno));
      return NULL;
    }
  }

  w = g_new0 (MvNpyWriter, 1);
  w->folder = g_strdup (folder);
  w->settings = *settings;
  w->settings_json = g_strdup (settings->settings_json ?
      settings->settings_json : "");
  w->settings.settings_json = NULL;
  w->groups = g_ptr_array_new_with_free_func ((GDestroyNotify) group_free);
  w->endian = G_BYTE_ORDER == G_LITTLE_ENDIAN ? '<' : '>';
  w->last_publish = g_get_monotonic_time ();
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  g_mutex_init (&w->io_lock);
  g_cond_init (&w->io_cond);
  if (g_get_num_processors () > 1)
    w->pool = g_thread_pool_new (array_write_spare, w,
        MIN (g_get_num_processors () - 1, MAX_WRITERS), TRUE, NULL);
  if (settings->stabilization) {
    /* made now, so that its row f is the buffer counted f */
    w->stab = stab_array_new (w);
    if (!array_create (w, w->stab, 0, &err)) {
      g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_OPEN, "%s in \"%s\"",
          err->message, folder);
      g_error_free (err);
      mv_npy_writer_free (w);
      return NULL;
    }
  }
  if (!write_index (w, FALSE, FALSE, &err)) {
    g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_OPEN, "%s in \"%s\"",
        err->message, folder);
    g_error_free (err);
    mv_npy_writer_free (w);
    return NULL;
  }
  w->thread = g_thread_new ("mvexport-npy", publisher, w);
  return w;
}

/* ---- appending -------------------------------------------------------- */

static Group *
find_group (MvNpyWriter * w, const GstMotionVectorMeta * meta)
{
  guint i;

  for (i = 0; i < w->groups->len; i++) {
    Group *g = g_ptr_array_index (w->groups, i);

    if (g->view == meta->view && g->ref_distance == meta->ref_distance)
      return g;
  }
  return NULL;
}

static Group *
group_new (MvNpyWriter * w, const GstMotionVectorMeta * meta)
{
  Group *g = g_new0 (Group, 1);

  g->view = meta->view;
  g->ref_distance = meta->ref_distance;
  g->inter_view = (meta->flags & GST_MOTION_VECTOR_META_FLAG_INTER_VIEW) != 0;
  g->width = meta->width;
  g->height = meta->height;
  g->analysis_width = meta->analysis_width;
  g->analysis_height = meta->analysis_height;
  g->bit_depth = meta->bit_depth;
  g->search_range = meta->search_range;
  g->luma = meta->luma;
  g->method = meta->method;
  gst_motion_vector_layout (meta->analysis_width, meta->analysis_height,
      GST_MOTION_VECTOR_PARTITIONS_ALL, g->grids);
  g->mb_cols = g->grids[GST_MOTION_VECTOR_PARTITION_16X16].cols;
  g->mb_rows = g->grids[GST_MOTION_VECTOR_PARTITION_16X16].rows;
  g->arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) array_free);
  g_ptr_array_add (w->groups, g);
  return g;
}

/* The array of @g at @slot, created (with the group's earlier rows as
 * fill) when it does not exist yet; *@created is set then. */
static NpyArray *
group_array (MvNpyWriter * w, Group * g, NpyArray ** slot, ArrayKind kind,
    gint partition, gboolean * created, GError ** error)
{
  NpyArray *a;

  if (*slot)
    return *slot;
  a = array_new (w, g, kind, partition);
  g_ptr_array_add (g->arrays, a);
  *slot = a;
  *created = TRUE;
  if (!array_create (w, a, g->rows, error))
    return NULL;
  return a;
}

/* One pass over the cells; NULL destinations are not written.  Each
 * 16-byte cell is four 32-bit words (mv, cost, pred, mvd), so splitting
 * four cells is a 4x4 transpose of words. */
static void
split_cells (const GstMotionVectorCell * cells, guint n, guint8 * mv,
    guint8 * cost, guint8 * pred, guint8 * mvd)
{
  guint i;

  if (mv && cost && pred && mvd) {
    i = 0;
#ifdef __SSE2__
    for (; i + 4 <= n; i += 4) {
      const __m128i *c = (const __m128i *) &cells[i];
      __m128i a = _mm_loadu_si128 (c), b = _mm_loadu_si128 (c + 1);
      __m128i d = _mm_loadu_si128 (c + 2), e = _mm_loadu_si128 (c + 3);
      /* a0 b0 a1 b1, a2 b2 a3 b3, d0 e0 d1 e1, d2 e2 d3 e3 */
      __m128i ab01 = _mm_unpacklo_epi32 (a, b), ab23 = _mm_unpackhi_epi32 (a, b);
      __m128i de01 = _mm_unpacklo_epi32 (d, e), de23 = _mm_unpackhi_epi32 (d, e);

      _mm_storeu_si128 ((__m128i *) (mv + 4 * i),
          _mm_unpacklo_epi64 (ab01, de01));
      _mm_storeu_si128 ((__m128i *) (cost + 4 * i),
          _mm_unpackhi_epi64 (ab01, de01));
      _mm_storeu_si128 ((__m128i *) (pred + 4 * i),
          _mm_unpacklo_epi64 (ab23, de23));
      _mm_storeu_si128 ((__m128i *) (mvd + 4 * i),
          _mm_unpackhi_epi64 (ab23, de23));
    }
#endif
    for (; i < n; i++) {
      const guint8 *c = (const guint8 *) &cells[i];

      memcpy (mv + 4 * i, c, 4);
      memcpy (cost + 4 * i, c + 4, 4);
      memcpy (pred + 4 * i, c + 8, 4);
      memcpy (mvd + 4 * i, c + 12, 4);
    }
    return;
  }
  if (mv)
    for (i = 0; i < n; i++)
      memcpy (mv + 4 * i, (const guint8 *) &cells[i], 4);
  if (cost)
    for (i = 0; i < n; i++)
      memcpy (cost + 4 * i, (const guint8 *) &cells[i] + 4, 4);
  if (pred)
    for (i = 0; i < n; i++)
      memcpy (pred + 4 * i, (const guint8 *) &cells[i] + 8, 4);
  if (mvd)
    for (i = 0; i < n; i++)
      memcpy (mvd + 4 * i, (const guint8 *) &cells[i] + 12, 4);
}

static void
put_u32 (guint8 * p, guint32 v)
{
  memcpy (p, &v, 4);
}

static void
put_u64 (guint8 * p, guint64 v)
{
  memcpy (p, &v, 8);
}

static void
put_f64 (guint8 * p, gdouble v)
{
  memcpy (p, &v, 8);
}

static gboolean
geometry_matches (const Group * g, const GstMotionVectorMeta * meta)
{
  return g->width == meta->width && g->height == meta->height
      && g->analysis_width == meta->analysis_width
      && g->analysis_height == meta->analysis_height;
}

static gboolean
add_field_locked (MvNpyWriter * w, const GstMotionVectorMeta * meta,
    guint64 frame, GstClockTime pts, GError ** error)
{
  static const ArrayKind cell_kinds[4] = { KIND_MV, KIND_COST, KIND_PRED,
    KIND_MVD
  };
  Group *g = find_group (w, meta);
  gboolean created = FALSE;
  GstMotionVectorSummary sum;
  gboolean has_sum = FALSE;
  const guint8 *modes = NULL;
  const gint8 *refs = NULL;
  guint8 *row;
  guint p, q, i;

  if (!g) {
    g = group_new (w, meta);
    created = TRUE;
  } else if (!geometry_matches (g, meta)) {
    g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_GEOMETRY,
        "frame %" G_GUINT64_FORMAT ": the field of view %u, ref_distance "
        "%d is %ux%u (analysis %ux%u), but the arrays of that field were "
        "made for %ux%u (analysis %ux%u): a NumPy export needs one size "
        "per stream", frame, meta->view, meta->ref_distance, meta->width,
        meta->height, meta->analysis_width, meta->analysis_height, g->width,
        g->height, g->analysis_width, g->analysis_height);
    return FALSE;
  } else if (g->has_last && g->last_frame == frame) {
    /* two fields of one kind on one buffer: only the first fits a row */
    GST_WARNING ("frame %" G_GUINT64_FORMAT ": a second field of view %u, "
        "ref_distance %d, not written", frame, meta->view,
        meta->ref_distance);
    return TRUE;
  }
  g->has_last = TRUE;
  g->last_frame = frame;

  /* the arrays this field has and the group lacks, made now */
  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if (!(w->settings.partitions & meta->partitions & (1u << p)))
      continue;
    for (q = 0; q < 4; q++)
      if ((w->settings.quantities & (1u << q))
          && !group_array (w, g, &g->cells[p][q], cell_kinds[q], p, &created,
              error))
        return FALSE;
  }
  if (w->settings.quantities & MV_QUANTITY_MODES)
    modes = gst_motion_vector_meta_get_modes (meta, NULL, NULL);
  if (modes && !group_array (w, g, &g->modes, KIND_MODES, -1, &created,
          error))
    return FALSE;
  if (w->settings.quantities & MV_QUANTITY_CHOSEN_REFS)
    refs = gst_motion_vector_meta_get_chosen_refs (meta, NULL, NULL);
  if (refs && !group_array (w, g, &g->refs, KIND_CHOSEN_REFS, -1, &created,
          error))
    return FALSE;
  if (w->settings.summary)
    has_sum = gst_motion_vector_meta_get_summary (meta, &sum);
  if (has_sum && !group_array (w, g, &g->summary, KIND_SUMMARY, -1,
          &created, error))
    return FALSE;
  if (!group_array (w, g, &g->frames, KIND_FRAMES, -1, &created, error))
    return FALSE;
  if (created && !write_index (w, FALSE, FALSE, error))
    return FALSE;

  /* one row in every array of the group */
  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint8 *dst[4] = { NULL, NULL, NULL, NULL };
    const GstMotionVectorCell *cells = NULL;
    gboolean any = FALSE;

    for (q = 0; q < 4; q++) {
      if (!g->cells[p][q])
        continue;
      dst[q] = array_row (w, g->cells[p][q], error);
      if (!dst[q])
        return FALSE;
      any = TRUE;
    }
    if (!any)
      continue;
    if (w->settings.partitions & (1u << p))
      cells = gst_motion_vector_meta_get_grid (meta, p, NULL, NULL);
    if (cells) {
      split_cells (cells, g->grids[p].cols * g->grids[p].rows, dst[0],
          dst[1], dst[2], dst[3]);
    } else {
      for (q = 0; q < 4; q++)
        if (dst[q])
          memset (dst[q], 0, g->cells[p][q]->row_bytes);
    }
  }
  if (g->modes) {
    if (!(row = array_row (w, g->modes, error)))
      return FALSE;
    if (modes)
      memcpy (row, modes, g->modes->row_bytes);
    else
      memset (row, FILL_MODES, g->modes->row_bytes);
  }
  if (g->refs) {
    if (!(row = array_row (w, g->refs, error)))
      return FALSE;
    if (refs)
      memcpy (row, refs, g->refs->row_bytes);
    else
      memset (row, FILL_CHOSEN_REFS, g->refs->row_bytes);
  }
  if (g->summary) {
    if (!(row = array_row (w, g->summary, error)))
      return FALSE;
    if (has_sum) {
      const gdouble v[10] = { sum.global_x, sum.global_y, sum.zoom,
        sum.rotation, sum.global_share, sum.moving_share,
        sum.unmatched_share, sum.scene_change, sum.mean_cost,
        sum.median_cost
      };

      put_u32 (row, sum.version);
      put_u32 (row + 4, sum.flags);
      put_u32 (row + 8, sum.partition);
      put_u32 (row + 12, sum.blocks);
      for (i = 0; i < 10; i++)
        put_f64 (row + 16 + 8 * i, v[i]);
    } else {
      memset (row, 0, SUMMARY_ROW);
    }
  }
  if (!(row = array_row (w, g->frames, error)))
    return FALSE;
  put_u64 (row, frame);
  put_u64 (row + 8, pts);
  put_u64 (row + 16, meta->ref_pts);
  put_u32 (row + 24, (guint32) meta->ref_distance);
  put_u32 (row + 28, meta->view);
  put_u32 (row + 32, meta->flags);
  put_u32 (row + 36, meta->partitions);
  g->rows++;
  w->dirty = TRUE;
  return TRUE;
}

gboolean
mv_npy_writer_add_field (MvNpyWriter * w, const GstMotionVectorMeta * meta,
    guint64 frame, GstClockTime pts, GError ** error)
{
  gboolean ok;

  g_mutex_lock (&w->lock);
  ok = add_field_locked (w, meta, frame, pts, error);
  g_mutex_unlock (&w->lock);
  return ok;
}

/* @v as a double: TRUE for a number or a boolean (1 or 0). */
static gboolean
value_as_double (const GValue * v, gdouble * out)
{
  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (v))) {
    case G_TYPE_BOOLEAN:
      *out = g_value_get_boolean (v) ? 1 : 0;
      return TRUE;
    case G_TYPE_INT:
      *out = g_value_get_int (v);
      return TRUE;
    case G_TYPE_UINT:
      *out = g_value_get_uint (v);
      return TRUE;
    case G_TYPE_LONG:
      *out = g_value_get_long (v);
      return TRUE;
    case G_TYPE_ULONG:
      *out = g_value_get_ulong (v);
      return TRUE;
    case G_TYPE_INT64:
      *out = g_value_get_int64 (v);
      return TRUE;
    case G_TYPE_UINT64:
      *out = g_value_get_uint64 (v);
      return TRUE;
    case G_TYPE_FLOAT:
      *out = g_value_get_float (v);
      return TRUE;
    case G_TYPE_DOUBLE:
      *out = g_value_get_double (v);
      return TRUE;
    default:
      return FALSE;
  }
}

/* @v as a count (u8): exact for an unsigned or non-negative integer, and
 * for a double holding a whole number in range; FALSE otherwise. */
static gboolean
value_as_count (const GValue * v, guint64 * out)
{
  gdouble d;

  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (v))) {
    case G_TYPE_UINT64:
      *out = g_value_get_uint64 (v);
      return TRUE;
    case G_TYPE_ULONG:
      *out = g_value_get_ulong (v);
      return TRUE;
    case G_TYPE_INT64:
      if (g_value_get_int64 (v) < 0)
        return FALSE;
      *out = g_value_get_int64 (v);
      return TRUE;
    default:
      if (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (v)) == G_TYPE_BOOLEAN
          || !value_as_double (v, &d) || !(d >= 0) || d >= 0x1p64
          || d != floor (d))
        return FALSE;
      *out = (guint64) d;
      return TRUE;
  }
}

static gboolean
add_stabilization_locked (MvNpyWriter * w, guint64 frame, GstClockTime pts,
    const GstStructure * st, GError ** error)
{
  guint8 *row;
  guint i;

  if (frame != w->stab_rows) {
    /* a row per buffer, in order: anything else breaks row f = frame f */
    g_set_error (error, MV_NPY_ERROR, MV_NPY_ERROR_WRITE,
        "stabilization.npy: buffer %" G_GUINT64_FORMAT " written as row %"
        G_GUINT64_FORMAT, frame, w->stab_rows);
    w->failed = TRUE;
    return FALSE;
  }
  if (!(row = array_row (w, w->stab, error)))
    return FALSE;
  w->stab_rows++;
  put_u64 (row, frame);
  put_u64 (row + 8, pts);
  row[16] = st != NULL;
  row += STAB_OFF_FIELDS;
  for (i = 0; i < MV_STAB_N_FIELDS; i++) {
    const GValue *v = st ? gst_structure_get_value (st, mv_stab_fields[i])
        : NULL;
    guint64 n;
    gdouble d;

    if (i == 0) {
      put_u64 (row, v && value_as_count (v, &n) ? n : STAB_FILL_FRAME);
      row += 8;
    } else if (i < 3) {
      /* a boolean; a number stays only when it is 0 or 1 */
      *row++ = v && value_as_double (v, &d) && (d == 0 || d == 1)
          ? (guint8) d : STAB_FILL_BOOL;
    } else {
      put_f64 (row, v && value_as_double (v, &d) ? d : NAN);
      row += 8;
    }
  }
  w->dirty = TRUE;
  return TRUE;
}

gboolean
mv_npy_writer_add_stabilization (MvNpyWriter * w, guint64 frame,
    GstClockTime pts, const GstStructure * st, GError ** error)
{
  gboolean ok;

  g_return_val_if_fail (w->stab != NULL, FALSE);
  g_mutex_lock (&w->lock);
  ok = add_stabilization_locked (w, frame, pts, st, error);
  g_mutex_unlock (&w->lock);
  return ok;
}

/* Writes every pending row, then publishes the counts. */
static gboolean
publish (MvNpyWriter * w, GError ** error)
{
  guint gi, ai;

  for (gi = 0; gi < w->groups->len; gi++) {
    Group *g = g_ptr_array_index (w->groups, gi);

    for (ai = 0; ai < g->arrays->len; ai++)
      if (!array_flush (w, g_ptr_array_index (g->arrays, ai), error))
        return FALSE;
  }
  if (w->stab && !array_flush (w, w->stab, error))
    return FALSE;
  if (!wait_writes (w, NULL, error))
    return FALSE;
  for (gi = 0; gi < w->groups->len; gi++) {
    Group *g = g_ptr_array_index (w->groups, gi);

    for (ai = 0; ai < g->arrays->len; ai++)
      if (!array_publish (w, g_ptr_array_index (g->arrays, ai), error))
        return FALSE;
  }
  if (w->stab && !array_publish (w, w->stab, error))
    return FALSE;
  w->last_publish = g_get_monotonic_time ();
  w->dirty = FALSE;
  return TRUE;
}

static gpointer
publisher (gpointer data)
{
  MvNpyWriter *w = data;

  g_mutex_lock (&w->lock);
  while (!w->stopping) {
    gint64 due = w->last_publish + PUBLISH_INTERVAL_US;

    if (g_get_monotonic_time () < due || !w->dirty || w->failed) {
      g_cond_wait_until (&w->cond, &w->lock, MAX (due,
              g_get_monotonic_time () + PUBLISH_INTERVAL_US / 10));
      continue;
    }
    GST_LOG ("publishing rows of a stalled stream");
    if (!publish (w, &w->async_error))
      w->last_publish = g_get_monotonic_time ();
  }
  g_mutex_unlock (&w->lock);
  return NULL;
}

gboolean
mv_npy_writer_end_frame (MvNpyWriter * w, gboolean force, GError ** error)
{
  gboolean ok = TRUE;

  g_mutex_lock (&w->lock);
  if (w->async_error) {
    g_propagate_error (error, w->async_error);
    w->async_error = NULL;
    ok = FALSE;
  } else if (!w->failed && (force || g_get_monotonic_time ()
          - w->last_publish >= PUBLISH_INTERVAL_US)) {
    ok = publish (w, error);
  }
  g_mutex_unlock (&w->lock);
  return ok;
}

static void
stop_publisher (MvNpyWriter * w)
{
  if (!w->thread)
    return;
  g_mutex_lock (&w->lock);
  w->stopping = TRUE;
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
  g_thread_join (w->thread);
  w->thread = NULL;
}

gboolean
mv_npy_writer_close (MvNpyWriter * w, gboolean complete, GError ** error)
{
  gboolean ok = TRUE;
  GError *err = NULL;
  guint gi, ai;

  stop_publisher (w);
  if (w->async_error) {
    /* the publisher's failure, not reported yet */
    err = w->async_error;
    w->async_error = NULL;
    ok = FALSE;
  } else if (!w->failed) {
    ok = publish (w, &err);
  }
  /* nothing in flight when the files are synced and closed */
  if (!wait_writes (w, NULL, ok ? &err : NULL))
    ok = FALSE;
  for (gi = 0; gi <= w->groups->len; gi++) {
    /* every group's arrays, then stabilization.npy */
    Group *g = gi < w->groups->len ? g_ptr_array_index (w->groups, gi) : NULL;
    guint n = g ? g->arrays->len : w->stab != NULL;

    for (ai = 0; ai < n; ai++) {
      NpyArray *a = g ? g_ptr_array_index (g->arrays, ai) : w->stab;

      if (a->fd < 0)
        continue;
      /* on disk before the index says the export is complete; EINVAL:
       * a file system without sync (nothing to wait for) */
      if (ok && !w->failed && fsync (a->fd) != 0 && errno != EINVAL) {
        ok = set_io_error (&err, "Could not sync", a->file, errno);
        w->failed = TRUE;
      }
      if (close (a->fd) != 0 && ok) {
        ok = set_io_error (&err, "Could not close", a->file, errno);
        w->failed = TRUE;
      }
      a->fd = -1;
    }
  }
  /* An export that failed keeps the index that says it is incomplete. */
  if (ok && !w->failed)
    ok = write_index (w, complete, TRUE, &err);
  if (!ok)
    g_propagate_error (error, err);
  else if (err)
    g_error_free (err);
  return ok;
}

void
mv_npy_writer_free (MvNpyWriter * w)
{
  if (!w)
    return;
  stop_publisher (w);
  /* the writes in flight end before their arrays are freed */
  if (w->pool)
    g_thread_pool_free (w->pool, FALSE, TRUE);
  g_clear_error (&w->async_error);
  g_clear_error (&w->io_error);
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
  g_mutex_clear (&w->io_lock);
  g_cond_clear (&w->io_cond);
  g_ptr_array_unref (w->groups);
  g_clear_pointer (&w->stab, array_free);
  g_free (w->settings_json);
  g_free (w->folder);
  g_free (w);
}
