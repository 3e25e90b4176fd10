/* mvdenoise — reading the fields: which a frame has, whether its summary
 * says it cuts, the grid to weigh them on (gstmvdenoisefields.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmcframe.h"
#include "gstmvdenoisefields.h"

GST_DEBUG_CATEGORY_EXTERN (gst_mv_denoise_debug);
#define GST_CAT_DEFAULT gst_mv_denoise_debug

gboolean
gst_mv_denoise_check_fields (GstElement * self, GstBuffer * buf,
    guint radius, guint w, guint h, gboolean * checked_first,
    gboolean * warned_no_summary)
{
  GString *missing = g_string_new (NULL), *all = g_string_new (NULL);
  guint n = 0, with_summary = 0;
  gint d;
  gboolean ok = TRUE;

  for (d = -(gint) radius; d <= (gint) radius && ok; d++) {
    GstMotionVectorMeta *m;

    if (d == 0)
      continue;
    g_string_append_printf (all, "%s%+d", all->len ? "," : "", d);
    m = gst_buffer_get_motion_vector_meta_for_reference (buf, d);
    if (!m) {
      g_string_append_printf (missing, "%s%+d", missing->len ? "," : "", d);
      continue;
    }
    if (!gst_motion_vector_meta_is_valid (m)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("The motion field (ref_distance %+d) of the frame at %"
              GST_TIME_FORMAT " is inconsistent", d,
              GST_TIME_ARGS (GST_BUFFER_PTS (buf))), (NULL));
      ok = FALSE;
    } else if (m->analysis_width != w || m->analysis_height != h
        || m->width != w || m->height != h) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("The motion field (ref_distance %+d) is for %ux%u (searched at "
              "%ux%u), the frames are %ux%u: mvdenoise needs fields of the "
              "frames' own size", d, m->width, m->height, m->analysis_width,
              m->analysis_height, w, h), (NULL));
      ok = FALSE;
    }
    n++;
    if (m->flags & GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY)
      with_summary++;
  }
  if (ok && n == 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The frame at %" GST_TIME_FORMAT " has no motion field against "
            "its neighbours within radius %u: upstream needs "
            "\"gpumotionest references=%s\"",
            GST_TIME_ARGS (GST_BUFFER_PTS (buf)), radius, all->str), (NULL));
    ok = FALSE;
  }
  if (ok && !*checked_first) {
    *checked_first = TRUE;
    if (missing->len)
      GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("The frames have no "
              "motion field against the frames at %s: they are denoised "
              "with fewer references; add them to gpumotionest's references "
              "(references=%s) for radius %u", missing->str, all->str,
              radius), (NULL));
  }
  /* Without the summary a cut is judged block by block by the weights,
   * and most blocks of a cut still find some cheap match: say so once,
   * and how to fix it. */
  if (ok && with_summary == 0 && !*warned_no_summary) {
    *warned_no_summary = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("The motion fields carry "
            "no summary: scene cuts are left to the per-block weights; set "
            "summary=true on gpumotionest"), (NULL));
  }
  g_string_free (missing, TRUE);
  g_string_free (all, TRUE);
  return ok;
}

gboolean
gst_mv_denoise_is_cut (GstElement * self, GstBuffer * buf)
{
  guint i, n = gst_buffer_get_n_motion_vector_metas (buf);

  for (i = 0; i < n; i++) {
    GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta_nth (buf, i);
    GstMotionVectorSummary s;

    if (m && (m->flags & GST_MOTION_VECTOR_META_FLAG_HAS_SUMMARY)
        && gst_motion_vector_meta_get_summary (m, &s)) {
      GST_LOG_OBJECT (self, "%" GST_TIME_FORMAT ": scene change score %.1f "
          "(field %+d)", GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
          s.scene_change, m->ref_distance);
      return !(s.flags & GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE)
          && gst_motion_vector_summary_is_scene_change (&s, -1);
    }
  }
  return FALSE;
}

/* Why 8x8: a block weight is all or nothing over its block, and a 16x16
 * block that a moving edge crosses by a few pixels still matches well
 * enough overall to weigh most of 64, ghosting the strip that does not
 * match; an 8x8 block in that place weighs far less (docs/denoise.md,
 * "Block size"). */
gint
gst_mv_denoise_shape (const GstMotionVectorMeta ** metas, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    if (!gst_motion_vector_meta_get_grid (metas[i],
            GST_MOTION_VECTOR_PARTITION_8X8, NULL, NULL))
      return gst_mc_common_shape (metas, n);
  return GST_MOTION_VECTOR_PARTITION_8X8;
}

