/* mvtools — mvexport's NumPy writer: a folder of .npy arrays and an index.
 *
 * docs/export-schema.md ("NumPy folder") describes the files.  One group
 * of arrays per field kind (view, ref_distance), each with the frame as
 * its first axis; the cells are copied, never formatted.  With
 * stabilization, mvstabilize's correction in one more array, a row per
 * buffer.  Rows are buffered per array and written whole; each array's
 * header is then rewritten in place with the number of rows written, at
 * most once a second while frames arrive (by a thread of the writer when
 * they stop coming) and at the end, so an array read at any time (even
 * after the process was killed) holds whole rows only.
 */
#ifndef MV_EXPORT_NPY_H
#define MV_EXPORT_NPY_H

#include <gst/gst.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

G_BEGIN_DECLS

/* Which quantities are written (mvexport's quantities property). */
typedef enum
{
  MV_QUANTITY_MV = 1 << 0,
  MV_QUANTITY_COST = 1 << 1,
  MV_QUANTITY_PRED = 1 << 2,
  MV_QUANTITY_MVD = 1 << 3,
  MV_QUANTITY_MODES = 1 << 4,
  MV_QUANTITY_CHOSEN_REFS = 1 << 5,
} MvQuantityFlags;

#define MV_QUANTITY_ALL 0x3f

#define MV_NPY_ERROR (mv_npy_error_quark ())
GQuark mv_npy_error_quark (void);

typedef enum
{
  MV_NPY_ERROR_OPEN,            /* the folder cannot be created or used */
  MV_NPY_ERROR_WRITE,           /* writing a file failed (disk full, ...) */
  MV_NPY_ERROR_GEOMETRY,        /* a field's grids changed size mid-stream */
} MvNpyError;

typedef struct
{
  GstMotionVectorPartitionFlags partitions;
  guint quantities;             /* MvQuantityFlags */
  gboolean summary;
  /* write mvstabilize's correction, one row per buffer, in
   * stabilization.npy (mvexport's stabilization property) */
  gboolean stabilization;
  /* the element's settings as the members of a JSON object (no braces),
   * copied into the index */
  const gchar *settings_json;
} MvNpySettings;

typedef struct _MvNpyWriter MvNpyWriter;

/* The fields of mvstabilize's correction meta (GstMvStabilizeMeta,
 * docs/stabilization.md) that the CSV and NumPy exports write, in the
 * order of their columns and record fields, each named "stab_" and the
 * field's name with '_' for '-'. */
#define MV_STAB_N_FIELDS 22
extern const gchar *const mv_stab_fields[MV_STAB_N_FIELDS];

/* Creates the folder @folder (its parent must exist; an empty existing
 * folder is used, a non-empty one refused) and writes an index marked
 * incomplete.  NULL with @error (MV_NPY_ERROR_OPEN) on a failure. */
MvNpyWriter *mv_npy_writer_open (const gchar * folder,
    const MvNpySettings * settings, GError ** error);

/* Appends @meta, a consistent field (gst_motion_vector_meta_is_valid())
 * of the buffer counted @frame with @pts, to the arrays of its view and
 * reference, creating them the first time that field kind is seen. */
gboolean mv_npy_writer_add_field (MvNpyWriter * w,
    const GstMotionVectorMeta * meta, guint64 frame, GstClockTime pts,
    GError ** error);

/* With stabilization set: the row of stabilization.npy for the buffer
 * counted @frame with @pts, from @st, the structure of its correction
 * meta (NULL: the buffer had none).  Called once per buffer, every
 * buffer, in order, before mv_npy_writer_end_frame(). */
gboolean mv_npy_writer_add_stabilization (MvNpyWriter * w, guint64 frame,
    GstClockTime pts, const GstStructure * st, GError ** error);

/* Ends a buffer: writes buffered rows and publishes the counts in the
 * headers when a second has passed since the last time (or @force). */
gboolean mv_npy_writer_end_frame (MvNpyWriter * w, gboolean force,
    GError ** error);

/* Writes everything, publishes the counts, syncs the files to disk and,
 * when @complete and nothing failed, rewrites the index marked complete;
 * closes every file.  The writer must still be freed. */
gboolean mv_npy_writer_close (MvNpyWriter * w, gboolean complete,
    GError ** error);

void mv_npy_writer_free (MvNpyWriter * w);

G_END_DECLS

#endif /* MV_EXPORT_NPY_H */
