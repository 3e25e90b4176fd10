/* mvtools — mvexport: writes each buffer's GstMotionVectorMeta to a file.
 *
 * A GstBaseTransform in passthrough: buffers go through untouched (the same
 * buffer, no copy), so the element can sit anywhere in a pipeline, e.g.
 * between gpumotionest and mvoverlay, with no tee.  The file is opened on
 * READY -> PAUSED, written once per buffer that carries a meta, flushed at
 * EOS and flushed and closed on PAUSED -> READY (with or without EOS); a
 * failure to write, flush or close is posted as an error.  The text of a
 * frame is built in one GString kept between frames and written with a
 * single fwrite.  A meta whose fields do not agree with its data
 * (gst_motion_vector_meta_is_valid()) is skipped with a warning.
 *
 * Every field of a buffer is written, in the buffer's order: one per
 * reference frame (gpumotionest's references property), each with its
 * own ref_distance and ref_pts.
 *
 * Formats (docs/export-schema.md): JSON Lines, one object per field (per
 * frame with one reference), a "view" and "inter_view" key on the fields
 * of stereo video's second view and its disparity; CSV, one row per
 * block, its field's ref_distance and view in the last two columns.
 * Both hold the shapes that are present in the meta and
 * selected by the partitions property (all of them by default), and the
 * partition decision when the meta has one: a "modes" array of shape names
 * (JSON), a "chosen" column (CSV).  The reference each block chose, on the
 * first field of a buffer searched against several references, is a
 * "chosen_refs" array (JSON); in CSV it narrows "chosen" to the rows of
 * the field each partition chose, whichever field they are written
 * with.  With summary=true the field's motion
 * summary is written too: a "summary" object (JSON), or, in CSV, instead
 * of the blocks, one row per field.  Off by default, so that the files of
 * existing pipelines stay byte for byte as they were.
 *
 * format=npy (mvexportnpy.c) writes a folder of NumPy arrays instead:
 * one per view, reference, shape and quantity, the frame first, with a
 * JSON index; the cells are copied, never formatted, and each file stays
 * loadable while it is written and after a crash.  The quantities
 * property (mv, cost, pred, mvd, modes, chosen-refs) selects what is
 * written in every format; its default, all, keeps the JSON and CSV
 * files byte for byte as before.
 *
 * A buffer that carries mvstabilize's correction (the custom meta
 * "GstMvStabilizeMeta", looked up by name: no link to that plugin) gets
 * it on every line of the frame in JSON, a "stabilization" object of the
 * structure's fields; in CSV only with stabilization=true, as fixed
 * columns after the last ones, empty on frames without the meta; in NumPy
 * only with stabilization=true, as stabilization.npy, a record of the same
 * fields per buffer (every buffer, with a flag for the meta's presence).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

#include "gstmvexport.h"
#include "mvexportnpy.h"
#include "mvsummarytext.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_export_debug);
#define GST_CAT_DEFAULT gst_mv_export_debug

#define DEFAULT_FORMAT GST_MV_EXPORT_FORMAT_JSONL
#define DEFAULT_PARTITIONS GST_MOTION_VECTOR_PARTITIONS_ALL
#define DEFAULT_SUMMARY FALSE
#define DEFAULT_STABILIZATION FALSE
#define DEFAULT_QUANTITIES MV_QUANTITY_ALL

/* mvstabilize's correction meta, by name (docs/stabilization.md) */
#define STABILIZE_META_NAME "GstMvStabilizeMeta"

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_FORMAT,
  PROP_PARTITIONS,
  PROP_SUMMARY,
  PROP_STABILIZATION,
  PROP_QUANTITIES,
};

struct _GstMvExport
{
  GstBaseTransform parent;

  /* properties, under the object lock; fixed while the file is open */
  gchar *location;
  GstMvExportFormat format;
  GstMotionVectorPartitionFlags partitions;
  gboolean summary;
  gboolean stabilization;
  guint quantities;             /* MvQuantityFlags */

  /* streaming state */
  FILE *file;
  gchar *open_location;         /* copy of location, for messages */
  gboolean failed;              /* a write error was posted */
  gboolean warned_invalid;      /* an inconsistent meta was reported */
  GstMvExportFormat open_format;
  GstMotionVectorPartitionFlags open_partitions;
  gboolean open_summary;
  gboolean open_stabilization;
  guint open_quantities;
  MvNpyWriter *npy;             /* format=npy: the folder's writer */
  guint64 frame;                /* buffers seen since start, with or without meta */
  GString *text;                /* one frame's text, reused */
  GString *stab;                /* the frame's correction as text, reused:
                                 * the JSON key or the CSV cells, each with
                                 * its leading comma; empty without one */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

G_DEFINE_TYPE (GstMvExport, gst_mv_export, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (mvexport, "mvexport", GST_RANK_NONE,
    GST_TYPE_MV_EXPORT);

static GType
gst_mv_export_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MV_EXPORT_FORMAT_JSONL, "JSON Lines, one object per frame and "
          "reference", "jsonl"},
    {GST_MV_EXPORT_FORMAT_CSV, "CSV, one row per block", "csv"},
    {GST_MV_EXPORT_FORMAT_NPY, "NumPy: a folder of .npy arrays, one per "
          "view, reference, shape and quantity, and a JSON index", "npy"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMvExportFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_mv_export_quantities_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {MV_QUANTITY_MV, "Vectors (quarter pel)", "mv"},
    {MV_QUANTITY_COST, "Costs", "cost"},
    {MV_QUANTITY_PRED, "H.264 predictions", "pred"},
    {MV_QUANTITY_MVD, "Differences from the predictions", "mvd"},
    {MV_QUANTITY_MODES, "Partition decision", "modes"},
    {MV_QUANTITY_CHOSEN_REFS, "Reference decision", "chosen-refs"},
    {MV_QUANTITY_ALL, "All of them", "all"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstMvExportQuantities", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Block origin or size at the meta's width (or height): analysis pixels
 * scaled by size / analysis_size, rounded down.  @analysis_size is never 0
 * for a meta that passed gst_motion_vector_meta_is_valid(); the product
 * fits 64 bits for any guint sizes. */
static guint64
scale_pos (guint analysis_pos, guint size, guint analysis_size)
{
  return ((guint64) analysis_pos * size) / analysis_size;
}

/* Appends @u in decimal, after a minus sign when @negative.
 * g_string_append_printf per number would parse a
 * format string for each of the hundreds of thousands of numbers of a large
 * frame; this does the digits directly. */
static void
append_digits (GString * s, guint64 u, gboolean negative)
{
  gchar buf[24];
  gchar *end = buf + sizeof (buf), *p = end;

  do {
    *--p = (gchar) ('0' + u % 10);
    u /= 10;
  } while (u);
  if (negative)
    *--p = '-';
  g_string_append_len (s, p, end - p);
}

static void
append_int (GString * s, gint64 v)
{
  append_digits (s, v < 0 ? -(guint64) v : (guint64) v, v < 0);
}

/* Which pair of a cell append_pairs writes. */
typedef enum
{
  PAIR_MV,
  PAIR_PRED,
  PAIR_MVD,
} CellPair;

/* Appends one pair (x, y) of each of @n cells, comma separated. */
static void
append_pairs (GString * s, const GstMotionVectorCell * cells, guint n,
    CellPair which)
{
  guint i;

  for (i = 0; i < n; i++) {
    const GstMotionVectorCell *cell = &cells[i];
    gint x = which == PAIR_MV ? cell->mv_x :
        which == PAIR_PRED ? cell->pred_x : cell->mvd_x;
    gint y = which == PAIR_MV ? cell->mv_y :
        which == PAIR_PRED ? cell->pred_y : cell->mvd_y;

    if (i)
      g_string_append_c (s, ',');
    append_int (s, x);
    g_string_append_c (s, ',');
    append_int (s, y);
  }
}

/* "WxH" of shape @p, as the exports name shapes. */
static void
append_shape (GString * s, guint p)
{
  append_int (s, gst_motion_vector_partition_width (p));
  g_string_append_c (s, 'x');
  append_int (s, gst_motion_vector_partition_height (p));
}

static const gchar *
method_name (GstMotionVectorMethod method)
{
  GEnumClass *klass = g_type_class_ref (gst_motion_vector_method_get_type ());
  GEnumValue *v = g_enum_get_value (klass, method);
  const gchar *name = v ? v->value_nick : "unknown";

  /* enum classes of registered static types are never freed */
  g_type_class_unref (klass);
  return name;
}

static void
append_clock_time (GString * s, GstClockTime t, const gchar * none)
{
  /* any value but GST_CLOCK_TIME_NONE is a time, 2^63 and above too */
  if (GST_CLOCK_TIME_IS_VALID (t))
    append_digits (s, t, FALSE);
  else
    g_string_append (s, none);
}

/* One JSON object on one line; see docs/export-schema.md. */
static void
format_jsonl (GString * s, const GstMotionVectorMeta * meta,
    GstMotionVectorPartitionFlags which, guint quantities, guint64 frame,
    GstClockTime pts, gboolean with_summary, const GString * stab)
{
  GstMotionVectorSummary sum;
  guint p, i, mb_cols, mb_rows, ref_cols, ref_rows;
  gboolean first_layer = TRUE;
  const guint8 *modes;
  const gint8 *refs;

  g_string_append (s, "{\"pts\":");
  append_clock_time (s, pts, "null");
  g_string_append_printf (s, ",\"frame\":%" G_GUINT64_FORMAT
      ",\"width\":%u,\"height\":%u,\"analysis_width\":%u,"
      "\"analysis_height\":%u,\"has_reference\":%s,\"ref_distance\":%d,"
      "\"ref_pts\":", frame, meta->width, meta->height, meta->analysis_width,
      meta->analysis_height,
      (meta->flags & GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE) ? "false" :
      "true", meta->ref_distance);
  append_clock_time (s, meta->ref_pts, "null");
  /* Stereo video (docs/stereo.md): only on the fields that are not the
   * first view's motion, so that a mono stream's lines stay as they
   * were. */
  if (meta->view != 0)
    g_string_append_printf (s, ",\"view\":%u", meta->view);
  if (meta->flags & GST_MOTION_VECTOR_META_FLAG_INTER_VIEW)
    g_string_append (s, ",\"inter_view\":true");
  g_string_append_printf (s, ",\"search_range\":%u,\"method\":\"%s\",",
      meta->search_range, method_name (meta->method));
  /* Only where the costs are of other samples than a luma the frame
   * carries, so that the lines of every other frame stay as they were
   * (docs/export-schema.md). */
  if (meta->luma == GST_MOTION_VECTOR_LUMA_BT601
      || meta->luma == GST_MOTION_VECTOR_LUMA_BT709)
    g_string_append_printf (s, "\"luma\":\"%s\",",
        meta->luma == GST_MOTION_VECTOR_LUMA_BT709 ? "bt709" : "bt601");
  if (meta->bit_depth != 8)
    g_string_append_printf (s, "\"bit_depth\":%u,", meta->bit_depth);
  g_string_append (s, "\"layers\":[");

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint cols, rows, n;
    const GstMotionVectorCell *cells =
        gst_motion_vector_meta_get_grid (meta, p, &cols, &rows);

    if (!cells || !(which & (1u << p)))
      continue;
    n = cols * rows;
    g_string_append_printf (s, "%s{\"shape\":\"%ux%u\",\"cols\":%u,"
        "\"rows\":%u", first_layer ? "" : ",",
        gst_motion_vector_partition_width (p),
        gst_motion_vector_partition_height (p), cols, rows);
    first_layer = FALSE;
    /* the selected quantities (quantities property), in this order */
    if (quantities & MV_QUANTITY_MV) {
      g_string_append (s, ",\"mv\":[");
      append_pairs (s, cells, n, PAIR_MV);
      g_string_append_c (s, ']');
    }
    if (quantities & MV_QUANTITY_COST) {
      g_string_append (s, ",\"cost\":[");
      for (i = 0; i < n; i++) {
        if (i)
          g_string_append_c (s, ',');
        append_int (s, cells[i].cost);
      }
      g_string_append_c (s, ']');
    }
    if (quantities & MV_QUANTITY_PRED) {
      g_string_append (s, ",\"pred\":[");
      append_pairs (s, cells, n, PAIR_PRED);
      g_string_append_c (s, ']');
    }
    if (quantities & MV_QUANTITY_MVD) {
      g_string_append (s, ",\"mvd\":[");
      append_pairs (s, cells, n, PAIR_MVD);
      g_string_append_c (s, ']');
    }
    g_string_append_c (s, '}');
  }
  g_string_append_c (s, ']');

  /* The partition decision, whichever shapes are selected above: it is a
   * property of the macroblocks, not of one layer. */
  modes = (quantities & MV_QUANTITY_MODES) ?
      gst_motion_vector_meta_get_modes (meta, &mb_cols, &mb_rows) : NULL;
  if (modes) {
    g_string_append (s, ",\"modes\":[");
    for (i = 0; i < mb_cols * mb_rows; i++) {
      g_string_append (s, i ? ",\"" : "\"");
      append_shape (s, modes[i]);
      g_string_append_c (s, '"');
    }
    g_string_append_c (s, ']');
  }
  /* The reference decision: one distance per 4x4 block, row-major, as
   * the meta holds it (docs/export-schema.md). */
  refs = (quantities & MV_QUANTITY_CHOSEN_REFS) ?
      gst_motion_vector_meta_get_chosen_refs (meta, &ref_cols, &ref_rows) :
      NULL;
  if (refs) {
    g_string_append (s, ",\"chosen_refs\":[");
    for (i = 0; i < ref_cols * ref_rows; i++) {
      if (i)
        g_string_append_c (s, ',');
      append_int (s, refs[i]);
    }
    g_string_append_c (s, ']');
  }
  if (with_summary && gst_motion_vector_meta_get_summary (meta, &sum))
    mv_summary_append_json (s, &sum);
  g_string_append_len (s, stab->str, stab->len);
  g_string_append (s, "}\n");
}

/* The header of the block rows: every column with every quantity, the
 * columns of the quantities not selected left out. */
static void
append_csv_header (GString * s, guint quantities)
{
  g_string_append (s, "frame,pts,shape,col,row,x,y,w,h");
  if (quantities & MV_QUANTITY_MV)
    g_string_append (s, ",mv_x,mv_y");
  if (quantities & MV_QUANTITY_COST)
    g_string_append (s, ",cost");
  if (quantities & MV_QUANTITY_PRED)
    g_string_append (s, ",pred_x,pred_y");
  if (quantities & MV_QUANTITY_MVD)
    g_string_append (s, ",mvd_x,mvd_y");
  if (quantities & MV_QUANTITY_MODES)
    g_string_append (s, ",chosen");
  g_string_append (s, ",ref_distance,view\n");
}

/* A buffer's reference decision, as the CSV's chosen column reads it:
 * the partition of each macroblock and the reference of each 4x4 block,
 * both of the first field, over its analysis frame. */
typedef struct
{
  guint view;
  guint analysis_width, analysis_height;
  const guint8 *modes;
  guint mb_cols;
  const gint8 *refs;
  guint ref_cols;
} CsvDecision;

/* @buf's reference decision in @dec; FALSE when its first field has
 * none (or it cannot be read). */
static gboolean
csv_decision (GstBuffer * buf, CsvDecision * dec)
{
  GstMotionVectorMeta *first = gst_buffer_get_motion_vector_meta (buf);

  if (!first || !gst_motion_vector_meta_is_valid (first)
      || !(first->flags & GST_MOTION_VECTOR_META_FLAG_HAS_CHOSEN_REFS))
    return FALSE;
  dec->refs = gst_motion_vector_meta_get_chosen_refs (first, &dec->ref_cols,
      NULL);
  dec->modes = gst_motion_vector_meta_get_modes (first, &dec->mb_cols, NULL);
  dec->view = first->view;
  dec->analysis_width = first->analysis_width;
  dec->analysis_height = first->analysis_height;
  return dec->refs && dec->modes;
}

/* One row per block; see docs/export-schema.md.  @dec, when not NULL, is
 * the buffer's reference decision. */
static void
format_csv (GString * s, const GstMotionVectorMeta * meta,
    GstMotionVectorPartitionFlags which, guint quantities, guint64 frame,
    GstClockTime pts, const CsvDecision * dec, const GString * stab)
{
  guint p, c, r, mb_cols, ref_cols = 0;
  /* bit k: column k of fields[] below is written */
  guint csv_columns = 0x3f
      | ((quantities & MV_QUANTITY_MV) ? 0x3u << 6 : 0)
      | ((quantities & MV_QUANTITY_COST) ? 0x1u << 8 : 0)
      | ((quantities & MV_QUANTITY_PRED) ? 0x3u << 9 : 0)
      | ((quantities & MV_QUANTITY_MVD) ? 0x3u << 11 : 0);
  gchar shape[8];
  const guint8 *modes;
  const gint8 *refs = NULL;

  /* A field of the decision's view over its blocks is chosen where its
   * reference is; any other (another view's, another producer's) reads
   * its own partition decision, as before there were several
   * references. */
  if (dec && dec->view == meta->view
      && dec->analysis_width == meta->analysis_width
      && dec->analysis_height == meta->analysis_height) {
    modes = dec->modes;
    mb_cols = dec->mb_cols;
    refs = dec->refs;
    ref_cols = dec->ref_cols;
  } else {
    modes = gst_motion_vector_meta_get_modes (meta, &mb_cols, NULL);
  }
  /* without chosen-refs, chosen is the partition decision alone */
  if (!(quantities & MV_QUANTITY_CHOSEN_REFS))
    refs = NULL;

  for (p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    guint cols, rows;
    guint pw = gst_motion_vector_partition_width (p);
    guint ph = gst_motion_vector_partition_height (p);
    const GstMotionVectorCell *cells =
        gst_motion_vector_meta_get_grid (meta, p, &cols, &rows);

    if (!cells || !(which & (1u << p)))
      continue;
    g_snprintf (shape, sizeof (shape), "%ux%u", pw, ph);
    for (r = 0; r < rows; r++) {
      guint64 y = scale_pos (r * ph, meta->height, meta->analysis_height);
      guint64 h = scale_pos ((r + 1) * ph, meta->height,
          meta->analysis_height) - y;
      /* the macroblock row's decisions, NULL without any */
      const guint8 *mode_row = modes ? modes + (gsize) (r * ph / 16) * mb_cols
          : NULL;
      for (c = 0; c < cols; c++) {
        const GstMotionVectorCell *cell = &cells[(gsize) r * cols + c];
        guint64 x = scale_pos (c * pw, meta->width, meta->analysis_width);
        guint64 w = scale_pos ((c + 1) * pw, meta->width,
            meta->analysis_width) - x;
        const gint64 fields[] = { c, r, x, y, w, h, cell->mv_x, cell->mv_y,
          cell->cost, cell->pred_x, cell->pred_y, cell->mvd_x, cell->mvd_y
        };
        guint k;

        append_int (s, (gint64) frame);
        g_string_append_c (s, ',');
        append_clock_time (s, pts, "");
        g_string_append_c (s, ',');
        g_string_append (s, shape);
        for (k = 0; k < G_N_ELEMENTS (fields); k++) {
          if (!(csv_columns & (1u << k)))
            continue;
          g_string_append_c (s, ',');
          append_int (s, fields[k]);
        }
        if (!(quantities & MV_QUANTITY_MODES))
          goto last_columns;
        /* chosen: 1 when the block's macroblock is coded with this shape
         * and (with a reference decision) the partition with this field's
         * reference, 0 when not, empty without a decision */
        g_string_append_c (s, ',');
        if (mode_row) {
          gboolean yes = mode_row[c * pw / 16] == p && (!refs
              || refs[(gsize) (r * ph / 4) * ref_cols + c * pw / 4]
              == meta->ref_distance);

          g_string_append_c (s, yes ? '1' : '0');
        }
      last_columns:
        /* which of the frame's fields the row is of: its reference (0:
         * the inter-view field) and, in stereo video, its view */
        g_string_append_c (s, ',');
        append_int (s, meta->ref_distance);
        g_string_append_c (s, ',');
        append_int (s, meta->view);
        g_string_append_len (s, stab->str, stab->len);
        g_string_append_c (s, '\n');
      }
    }
  }
}

/* ---- mvstabilize's correction ------------------------------------------ */

/* The fields of the correction meta, in the order of the CSV's columns
 * (and of the NumPy record), are mv_stab_fields (mvexportnpy.h). */

/* Appends the header's columns of the correction, each after a comma. */
static void
append_stab_header (GString * s)
{
  guint i;

  for (i = 0; i < MV_STAB_N_FIELDS; i++) {
    const gchar *c;

    g_string_append (s, ",stab_");
    for (c = mv_stab_fields[i]; *c; c++)
      g_string_append_c (s, *c == '-' ? '_' : *c);
  }
}

static void
append_double (GString * s, gdouble v, const gchar * not_finite)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isfinite (v))
    g_string_append (s, g_ascii_dtostr (buf, sizeof (buf), v));
  else
    g_string_append (s, not_finite);
}

/* Appends @v as a JSON number or boolean; FALSE (nothing appended) when
 * it is neither (a string, or any other type). */
static gboolean
append_number (GString * s, const GValue * v, const gchar * not_finite,
    gboolean json)
{
  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (v))) {
    case G_TYPE_BOOLEAN:
      if (json)
        g_string_append (s, g_value_get_boolean (v) ? "true" : "false");
      else
        g_string_append_c (s, g_value_get_boolean (v) ? '1' : '0');
      return TRUE;
    case G_TYPE_INT:
      append_int (s, g_value_get_int (v));
      return TRUE;
    case G_TYPE_UINT:
      append_digits (s, g_value_get_uint (v), FALSE);
      return TRUE;
    case G_TYPE_LONG:
      append_int (s, g_value_get_long (v));
      return TRUE;
    case G_TYPE_ULONG:
      append_digits (s, g_value_get_ulong (v), FALSE);
      return TRUE;
    case G_TYPE_INT64:
      append_int (s, g_value_get_int64 (v));
      return TRUE;
    case G_TYPE_UINT64:
      append_digits (s, g_value_get_uint64 (v), FALSE);
      return TRUE;
    case G_TYPE_FLOAT:
      append_double (s, g_value_get_float (v), not_finite);
      return TRUE;
    case G_TYPE_DOUBLE:
      append_double (s, g_value_get_double (v), not_finite);
      return TRUE;
    default:
      return FALSE;
  }
}

/* Appends @str as a JSON string, quoted and escaped. */
static void
append_json_string (GString * s, const gchar * str)
{
  const guchar *c;

  g_string_append_c (s, '"');
  for (c = (const guchar *) str; *c; c++) {
    if (*c == '"' || *c == '\\') {
      g_string_append_c (s, '\\');
      g_string_append_c (s, *c);
    } else if (*c < 0x20) {
      g_string_append_printf (s, "\\u%04x", *c);
    } else {
      g_string_append_c (s, *c);
    }
  }
  g_string_append_c (s, '"');
}

static gboolean
append_json_field (GQuark field, const GValue * v, gpointer user_data)
{
  GString *s = user_data;

  if (s->str[s->len - 1] != '{')
    g_string_append_c (s, ',');
  append_json_string (s, g_quark_to_string (field));
  g_string_append_c (s, ':');
  if (!append_number (s, v, "null", TRUE)) {
    /* not a number: a string, its text; anything else, serialised */
    if (G_VALUE_HOLDS_STRING (v)) {
      const gchar *str = g_value_get_string (v);

      if (str)
        append_json_string (s, str);
      else
        g_string_append (s, "null");
    } else {
      gchar *str = gst_value_serialize (v);

      if (str)
        append_json_string (s, str);
      else
        g_string_append (s, "null");
      g_free (str);
    }
  }
  return TRUE;
}

/* @buf's correction as text in @stab (emptied first): for JSON the
 * "stabilization" key with every field of the structure, for CSV the
 * cells of mv_stab_fields (a missing or non-numeric field: an empty cell;
 * without the meta, every cell empty).  Nothing for CSV without
 * stabilization=true, nor for JSON without the meta. */
static void
stab_text (GstMvExport * self, GstBuffer * buf, GString * stab)
{
  GstCustomMeta *meta =
      gst_buffer_get_custom_meta (buf, STABILIZE_META_NAME);
  const GstStructure *st = meta ? gst_custom_meta_get_structure (meta) : NULL;
  guint i;

  g_string_truncate (stab, 0);
  if (self->open_format == GST_MV_EXPORT_FORMAT_JSONL) {
    if (!st)
      return;
    g_string_append (stab, ",\"stabilization\":{");
    gst_structure_foreach (st, append_json_field, stab);
    g_string_append_c (stab, '}');
    return;
  }
  if (!self->open_stabilization)
    return;
  for (i = 0; i < MV_STAB_N_FIELDS; i++) {
    const GValue *v =
        st ? gst_structure_get_value (st, mv_stab_fields[i]) : NULL;

    g_string_append_c (stab, ',');
    if (v)
      append_number (stab, v, "", FALSE);
  }
}

/* Posts a RESOURCE WRITE error for the open file (once: later failures of
 * the same stream are only logged). */
static void
post_write_error (GstMvExport * self, const gchar * what, gint err)
{
  if (self->failed) {
    GST_WARNING_OBJECT (self, "%s failed again: %s", what, g_strerror (err));
    return;
  }
  self->failed = TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
      ("Could not write to file \"%s\".", self->open_location),
      ("%s: %s", what, g_strerror (err)));
}

static gboolean
write_text (GstMvExport * self)
{
  if (self->text->len == 0)
    return TRUE;
  errno = 0;
  if (fwrite (self->text->str, 1, self->text->len, self->file)
      != self->text->len) {
    post_write_error (self, "fwrite", errno ? errno : EIO);
    return FALSE;
  }
  return TRUE;
}

/* Flushes and closes the file, if open; failures are posted (flush: WRITE,
 * close: CLOSE), since the data buffered by stdio would otherwise be lost
 * without a word.  Returns FALSE on a failure. */
static gboolean
close_file (GstMvExport * self)
{
  gboolean ok = TRUE;
  gint err;

  if (!self->file)
    return TRUE;

  errno = 0;
  if (fflush (self->file) != 0) {
    post_write_error (self, "fflush", errno ? errno : EIO);
    ok = FALSE;
  }
  errno = 0;
  if (fclose (self->file) != 0) {
    err = errno ? errno : EIO;
    if (ok) {
      GST_ELEMENT_ERROR (self, RESOURCE, CLOSE,
          ("Could not close file \"%s\".", self->open_location),
          ("fclose: %s", g_strerror (err)));
    } else {
      GST_WARNING_OBJECT (self, "closing the file failed too: %s",
          g_strerror (err));
    }
    ok = FALSE;
  }
  self->file = NULL;
  return ok;
}

/* ---- format=npy (mvexportnpy.c) ----------------------------------------- */

/* @value of flags type @type as the property's nicks of single bits,
 * joined by '+' ("16x16+8x8"). */
static gchar *
flags_text (GType type, guint value)
{
  GFlagsClass *klass = g_type_class_ref (type);
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < klass->n_values; i++) {
    const GFlagsValue *v = &klass->values[i];

    if (v->value && (v->value & (v->value - 1)) == 0
        && (value & v->value)) {
      if (s->len)
        g_string_append_c (s, '+');
      g_string_append (s, v->value_nick);
    }
  }
  g_type_class_unref (klass);
  return g_string_free (s, FALSE);
}

/* Posts a writer's error: the folder (OPEN_WRITE at start), a write
 * (RESOURCE WRITE) or a stream the arrays cannot hold (STREAM FORMAT). */
static void
post_npy_error (GstMvExport * self, GError * err)
{
  if (self->failed) {
    GST_WARNING_OBJECT (self, "%s", err->message);
    return;
  }
  self->failed = TRUE;
  if (err->domain == MV_NPY_ERROR && err->code == MV_NPY_ERROR_GEOMETRY)
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Cannot export to \"%s\": the frame size changed.",
            self->open_location), ("%s", err->message));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not write to folder \"%s\".", self->open_location),
        ("%s", err->message));
}

static gboolean
start_npy (GstMvExport * self, gchar * location)
{
  gchar *parts = flags_text (GST_TYPE_MOTION_VECTOR_PARTITION_FLAGS,
      self->open_partitions);
  gchar *quantities = flags_text (gst_mv_export_quantities_get_type (),
      self->open_quantities);
  gchar *json = g_strdup_printf ("\"element\": \"mvexport\", "
      "\"package_version\": \"%s\", \"format\": \"npy\", "
      "\"partitions\": \"%s\", \"quantities\": \"%s\", "
      "\"summary\": %s, \"stabilization\": %s", PACKAGE_VERSION, parts,
      quantities, self->open_summary ? "true" : "false",
      self->open_stabilization ? "true" : "false");
  MvNpySettings settings = { self->open_partitions, self->open_quantities,
    self->open_summary, self->open_stabilization, json
  };
  GError *err = NULL;

  self->npy = mv_npy_writer_open (location, &settings, &err);
  g_free (json);
  g_free (parts);
  g_free (quantities);
  if (!self->npy) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open folder \"%s\" for writing.", location),
        ("%s", err->message));
    g_error_free (err);
    g_free (location);
    return FALSE;
  }
  g_free (self->open_location);
  self->open_location = location;
  return TRUE;
}

/* Finishes the folder: the last rows, the counts, the index marked
 * complete unless something failed. */
static void
stop_npy (GstMvExport * self)
{
  GError *err = NULL;

  if (!self->npy)
    return;
  if (!mv_npy_writer_close (self->npy, !self->failed, &err)) {
    post_npy_error (self, err);
    g_error_free (err);
  }
  g_clear_pointer (&self->npy, mv_npy_writer_free);
}

static gboolean
gst_mv_export_start (GstBaseTransform * trans)
{
  GstMvExport *self = GST_MV_EXPORT (trans);
  gchar *location;

  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  self->open_format = self->format;
  self->open_partitions = self->partitions;
  self->open_summary = self->summary;
  self->open_stabilization = self->stabilization;
  self->open_quantities = self->quantities;
  GST_OBJECT_UNLOCK (self);

  if (!location || !*location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for writing."), (NULL));
    g_free (location);
    return FALSE;
  }
  self->failed = FALSE;
  self->warned_invalid = FALSE;
  self->frame = 0;
  if (self->open_format == GST_MV_EXPORT_FORMAT_NPY)
    return start_npy (self, location);
  self->file = g_fopen (location, "wb");
  if (!self->file) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open file \"%s\" for writing.", location),
        ("%s", g_strerror (errno)));
    g_free (location);
    return FALSE;
  }
  g_free (self->open_location);
  self->open_location = location;

  g_string_truncate (self->text, 0);
  if (self->open_format == GST_MV_EXPORT_FORMAT_CSV) {
    if (self->open_summary)
      g_string_append (self->text, mv_summary_csv_header);
    else
      append_csv_header (self->text, self->open_quantities);
    if (self->open_stabilization) {
      /* the correction's columns after the last ones */
      g_string_truncate (self->text, self->text->len - 1);
      append_stab_header (self->text);
      g_string_append_c (self->text, '\n');
    }
    if (!write_text (self))
      return FALSE;
  }
  return TRUE;
}

static gboolean
gst_mv_export_stop (GstBaseTransform * trans)
{
  GstMvExport *self = GST_MV_EXPORT (trans);

  /* A failure is posted on the bus; the element still stops (the file is
   * closed either way), so that the pipeline can shut down. */
  close_file (self);
  stop_npy (self);
  g_clear_pointer (&self->open_location, g_free);
  return TRUE;
}

static gboolean
gst_mv_export_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstMvExport *self = GST_MV_EXPORT (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->file) {
    errno = 0;
    if (fflush (self->file) != 0)
      post_write_error (self, "fflush", errno ? errno : EIO);
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->npy && !self->failed) {
    GError *err = NULL;

    /* every row written and counted: the arrays are whole at EOS */
    if (!mv_npy_writer_end_frame (self->npy, TRUE, &err)) {
      post_npy_error (self, err);
      g_error_free (err);
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_mv_export_parent_class)->sink_event
      (trans, event);
}

/* Whether field @meta, the @index-th of frame @frame, can be written; an
 * inconsistent one is reported (a warning) and left out. */
static gboolean
field_is_valid (GstMvExport * self, const GstMotionVectorMeta * meta,
    guint index, guint64 frame)
{
  if (!gst_motion_vector_meta_is_valid (meta)) {
    /* Fields edited after the meta was attached: the grids cannot be read
     * safely, so the field is left out of the file (the frame's other
     * fields are written). */
    GST_WARNING_OBJECT (self, "frame %" G_GUINT64_FORMAT ", field %u: "
        "inconsistent motion-vector meta (frame %ux%u, analysis %ux%u, "
        "partitions 0x%x, ref_distance %d), not written", frame, index,
        meta->width, meta->height, meta->analysis_width,
        meta->analysis_height, (guint) meta->partitions, meta->ref_distance);
    if (!self->warned_invalid) {
      self->warned_invalid = TRUE;
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("Skipping frames whose motion-vector meta is inconsistent."),
          ("frame %" G_GUINT64_FORMAT ", field %u: frame %ux%u, analysis "
              "%ux%u, partitions 0x%x, ref_distance %d", frame, index,
              meta->width, meta->height, meta->analysis_width,
              meta->analysis_height, (guint) meta->partitions,
              meta->ref_distance));
    }
    return FALSE;
  }
  return TRUE;
}

/* Appends the text of field @meta, the @index-th of frame @frame, to the
 * frame's text; an inconsistent field is left out with a warning.  @dec
 * is the buffer's reference decision for CSV, NULL without one. */
static void
append_field (GstMvExport * self, const GstMotionVectorMeta * meta,
    guint index, guint64 frame, GstClockTime pts, const CsvDecision * dec)
{
  GstMotionVectorSummary sum;

  if (!field_is_valid (self, meta, index, frame))
    return;

  if (self->open_format == GST_MV_EXPORT_FORMAT_CSV && self->open_summary) {
    /* one row per field that has a summary */
    if (gst_motion_vector_meta_get_summary (meta, &sum)) {
      mv_summary_append_csv (self->text, &sum, frame, pts,
          meta->ref_distance);
      if (self->stab->len) {
        /* the row's cells of the correction before its newline */
        g_string_truncate (self->text, self->text->len - 1);
        g_string_append_len (self->text, self->stab->str, self->stab->len);
        g_string_append_c (self->text, '\n');
      }
    }
  } else if (self->open_format == GST_MV_EXPORT_FORMAT_CSV) {
    format_csv (self->text, meta, self->open_partitions,
        self->open_quantities, frame, pts, dec, self->stab);
  } else {
    format_jsonl (self->text, meta, self->open_partitions,
        self->open_quantities, frame, pts, self->open_summary, self->stab);
  }
}

/* format=npy: every consistent field of @buf into its arrays, and with
 * stabilization=true the buffer's row of stabilization.npy (with or
 * without the correction meta). */
static GstFlowReturn
write_npy (GstMvExport * self, GstBuffer * buf, guint64 frame)
{
  gpointer state = NULL;
  GstMeta *m;
  guint index = 0;
  GError *err = NULL;

  if (self->open_stabilization) {
    GstCustomMeta *meta =
        gst_buffer_get_custom_meta (buf, STABILIZE_META_NAME);

    if (!mv_npy_writer_add_stabilization (self->npy, frame,
            GST_BUFFER_PTS (buf),
            meta ? gst_custom_meta_get_structure (meta) : NULL, &err))
      goto failed;
  }

  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_MOTION_VECTOR_META_API_TYPE))) {
    const GstMotionVectorMeta *meta = (const GstMotionVectorMeta *) m;

    if (field_is_valid (self, meta, index++, frame)
        && !mv_npy_writer_add_field (self->npy, meta, frame,
            GST_BUFFER_PTS (buf), &err))
      goto failed;
  }
  if (!mv_npy_writer_end_frame (self->npy, FALSE, &err))
    goto failed;
  return GST_FLOW_OK;

failed:
  post_npy_error (self, err);
  g_error_free (err);
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_mv_export_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstMvExport *self = GST_MV_EXPORT (trans);
  guint64 frame = self->frame++;
  gpointer state = NULL;
  GstMeta *m;
  guint index = 0;
  CsvDecision dec;
  gboolean with_dec;

  /* after a write error nothing more is written: a later small write might
   * seem to succeed in stdio's buffer and be lost at the flush */
  if (self->failed)
    return GST_FLOW_ERROR;
  if (self->npy)
    return write_npy (self, buf, frame);
  if (!self->file)
    return GST_FLOW_OK;

  /* Every field, in the buffer's order (that of the producer's list of
   * references), all of the frame's text in one write. */
  g_string_truncate (self->text, 0);
  with_dec = self->open_format == GST_MV_EXPORT_FORMAT_CSV
      && csv_decision (buf, &dec);
  stab_text (self, buf, self->stab);
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_MOTION_VECTOR_META_API_TYPE)))
    append_field (self, (const GstMotionVectorMeta *) m, index++, frame,
        GST_BUFFER_PTS (buf), with_dec ? &dec : NULL);
  return write_text (self) ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static void
gst_mv_export_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvExport *self = GST_MV_EXPORT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (self->location);
      self->location = g_value_dup_string (value);
      break;
    case PROP_FORMAT:
      self->format = g_value_get_enum (value);
      break;
    case PROP_PARTITIONS:
      self->partitions = g_value_get_flags (value);
      break;
    case PROP_SUMMARY:
      self->summary = g_value_get_boolean (value);
      break;
    case PROP_STABILIZATION:
      self->stabilization = g_value_get_boolean (value);
      break;
    case PROP_QUANTITIES:
      self->quantities = g_value_get_flags (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_export_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMvExport *self = GST_MV_EXPORT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_PARTITIONS:
      g_value_set_flags (value, self->partitions);
      break;
    case PROP_SUMMARY:
      g_value_set_boolean (value, self->summary);
      break;
    case PROP_STABILIZATION:
      g_value_set_boolean (value, self->stabilization);
      break;
    case PROP_QUANTITIES:
      g_value_set_flags (value, self->quantities);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_export_finalize (GObject * object)
{
  GstMvExport *self = GST_MV_EXPORT (object);

  if (self->file)
    fclose (self->file);
  if (self->npy) {
    mv_npy_writer_close (self->npy, FALSE, NULL);
    mv_npy_writer_free (self->npy);
  }
  g_free (self->open_location);
  g_free (self->location);
  g_string_free (self->text, TRUE);
  g_string_free (self->stab, TRUE);
  G_OBJECT_CLASS (gst_mv_export_parent_class)->finalize (object);
}

static void
gst_mv_export_class_init (GstMvExportClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_READY;

  GST_DEBUG_CATEGORY_INIT (gst_mv_export_debug, "mvexport", 0,
      "motion-vector export");

  gobject_class->set_property = gst_mv_export_set_property;
  gobject_class->get_property = gst_mv_export_get_property;
  gobject_class->finalize = gst_mv_export_finalize;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "File to write, or with format=npy the folder to create "
          "(required)", NULL, flags));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format", "File format",
          gst_mv_export_format_get_type (), DEFAULT_FORMAT, flags));
  g_object_class_install_property (gobject_class, PROP_PARTITIONS,
      g_param_spec_flags ("partitions", "Partitions",
          "Shapes to write, of those present in the meta (default all)",
          GST_TYPE_MOTION_VECTOR_PARTITION_FLAGS, DEFAULT_PARTITIONS, flags));
  g_object_class_install_property (gobject_class, PROP_SUMMARY,
      g_param_spec_boolean ("summary", "Summary",
          "Write each field's motion summary: a \"summary\" object in JSON "
          "Lines; in CSV one row per field instead of the blocks",
          DEFAULT_SUMMARY, flags));
  g_object_class_install_property (gobject_class, PROP_STABILIZATION,
      g_param_spec_boolean ("stabilization", "Stabilization",
          "Write mvstabilize's correction (GstMvStabilizeMeta): CSV in "
          "fixed columns after the last ones, empty on frames without it; "
          "NumPy in stabilization.npy, a record per buffer (JSON Lines "
          "write it whenever a frame has it)",
          DEFAULT_STABILIZATION, flags));
  g_object_class_install_property (gobject_class, PROP_QUANTITIES,
      g_param_spec_flags ("quantities", "Quantities",
          "Quantities to write, in every format: mv, cost, pred, mvd, modes, "
          "chosen-refs (default all)", gst_mv_export_quantities_get_type (),
          DEFAULT_QUANTITIES, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Motion vector export", "Filter/Video",
      "Writes the motion vectors of GstMotionVectorMeta to JSON Lines, CSV "
      "or NumPy arrays",
      "gpumotionest developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_mv_export_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_mv_export_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_mv_export_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_mv_export_transform_ip);
  trans_class->passthrough_on_same_caps = TRUE;

  gst_type_mark_as_plugin_api (gst_mv_export_format_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_mv_export_quantities_get_type (), 0);
}

static void
gst_mv_export_init (GstMvExport * self)
{
  self->format = DEFAULT_FORMAT;
  self->partitions = DEFAULT_PARTITIONS;
  self->summary = DEFAULT_SUMMARY;
  self->stabilization = DEFAULT_STABILIZATION;
  self->quantities = DEFAULT_QUANTITIES;
  self->text = g_string_sized_new (4096);
  self->stab = g_string_sized_new (512);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}
