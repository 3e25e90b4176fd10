/* mvdenoise — reading the fields gpumotionest attaches (gstmvdenoise.c). */
#ifndef GST_MV_DENOISE_FIELDS_H
#define GST_MV_DENOISE_FIELDS_H

#include <gst/gst.h>
#include <gst/motionvectors/gstmotionvectormeta.h>

G_BEGIN_DECLS

/* The fields of @buf within @radius (offsets -radius .. +radius), each
 * checked against the frames' size (@w x @h): FALSE with an error posted
 * on @self when one is inconsistent or there is none (the error names the
 * `references` to set).  The first frame's missing offsets are warned
 * about once (*checked_first), fields without a summary once
 * (*warned_no_summary). */
gboolean gst_mv_denoise_check_fields (GstElement * self, GstBuffer * buf,
    guint radius, guint w, guint h, gboolean * checked_first,
    gboolean * warned_no_summary);

/* Whether the summary of @buf's fields (gpumotionest puts it on the first
 * field of its list) says that it cuts from the frame before. */
gboolean gst_mv_denoise_is_cut (GstElement * self, GstBuffer * buf);

/* The grid the predictions and weights are made on: 8x8 when all @n
 * fields have it, else the shape they share (16x16 first); -1 if none. */
gint gst_mv_denoise_shape (const GstMotionVectorMeta ** metas, guint n);

G_END_DECLS

#endif /* GST_MV_DENOISE_FIELDS_H */
