/* mvtools — the motion summary as text: a JSON object and a CSV row
 * (docs/export-schema.md, "Summary"). */
#ifndef MV_SUMMARY_TEXT_H
#define MV_SUMMARY_TEXT_H

#include <gst/motionvectors/gstmotionvectormeta.h>

G_BEGIN_DECLS

/* The header of the per-frame CSV, with its newline. */
extern const gchar mv_summary_csv_header[];

/* Appends ,"summary":{...} (the key and the object) to a frame's JSON. */
void mv_summary_append_json (GString * s, const GstMotionVectorSummary * sum);

/* Appends one CSV row, with its newline, for the field against
 * @ref_distance of frame @frame at @pts. */
void mv_summary_append_csv (GString * s, const GstMotionVectorSummary * sum,
    guint64 frame, GstClockTime pts, gint ref_distance);

G_END_DECLS

#endif /* MV_SUMMARY_TEXT_H */
