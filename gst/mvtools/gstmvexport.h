/* mvtools — mvexport: writes each buffer's GstMotionVectorMeta to a file. */
#ifndef GST_MV_EXPORT_H
#define GST_MV_EXPORT_H

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/**
 * GstMvExportFormat:
 * @GST_MV_EXPORT_FORMAT_JSONL: one JSON object per frame
 * @GST_MV_EXPORT_FORMAT_CSV: one row per block
 * @GST_MV_EXPORT_FORMAT_NPY: a folder of NumPy arrays and a JSON index
 */
typedef enum {
  GST_MV_EXPORT_FORMAT_JSONL,
  GST_MV_EXPORT_FORMAT_CSV,
  GST_MV_EXPORT_FORMAT_NPY,
} GstMvExportFormat;

#define GST_TYPE_MV_EXPORT (gst_mv_export_get_type ())
G_DECLARE_FINAL_TYPE (GstMvExport, gst_mv_export, GST, MV_EXPORT,
    GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (mvexport);

G_END_DECLS

#endif /* GST_MV_EXPORT_H */
