/* mvtools — the motion summary as text.
 *
 * Numbers are written so that reading them back gives the summary's very
 * doubles (g_ascii_dtostr: the shortest form that round-trips, with a
 * point whatever the locale), and flags as named booleans, which a JSON
 * or CSV reader takes without knowing the bit values.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mvsummarytext.h"

const gchar mv_summary_csv_header[] =
    "frame,pts,has_reference,has_previous,similarity,grid,blocks,"
    "global_x,global_y,zoom,rotation,global_share,moving_share,"
    "unmatched_share,scene_change,scene_cut,mean_cost,median_cost,"
    "ref_distance\n";

static void
append_double (GString * s, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (s, g_ascii_dtostr (buf, sizeof (buf), v));
}

static gboolean
has (const GstMotionVectorSummary * sum, GstMotionVectorSummaryFlags flag)
{
  return (sum->flags & flag) != 0;
}

/* The fields in the order both formats share: "key":value pairs when
 * @json, bare CSV values otherwise. */
static void
append_fields (GString * s, const GstMotionVectorSummary * sum,
    gboolean json)
{
  const struct
  {
    const gchar *key;
    gdouble v;
  } numbers[] = {
    {"global_x", sum->global_x}, {"global_y", sum->global_y},
    {"zoom", sum->zoom}, {"rotation", sum->rotation},
    {"global_share", sum->global_share},
    {"moving_share", sum->moving_share},
    {"unmatched_share", sum->unmatched_share},
    {"scene_change", sum->scene_change},
  };
  const gchar *t = json ? "true" : "1", *f = json ? "false" : "0";
  guint p = (guint) sum->partition < GST_MOTION_VECTOR_PARTITION_COUNT ?
      sum->partition : 0;
  guint i;

  g_string_append_printf (s, json ? "\"has_reference\":%s,"
      "\"has_previous\":%s,\"similarity\":%s,\"grid\":\"%ux%u\","
      "\"blocks\":%u" : "%s,%s,%s,%ux%u,%u",
      has (sum, GST_MOTION_VECTOR_SUMMARY_FLAG_NO_REFERENCE) ? f : t,
      has (sum, GST_MOTION_VECTOR_SUMMARY_FLAG_NO_PREVIOUS) ? f : t,
      has (sum, GST_MOTION_VECTOR_SUMMARY_FLAG_TRANSLATION_ONLY) ? f : t,
      gst_motion_vector_partition_width (p),
      gst_motion_vector_partition_height (p), sum->blocks);
  for (i = 0; i < G_N_ELEMENTS (numbers); i++) {
    g_string_append_c (s, ',');
    if (json)
      g_string_append_printf (s, "\"%s\":", numbers[i].key);
    append_double (s, numbers[i].v);
  }
  g_string_append_printf (s, json ? ",\"scene_cut\":%s,\"mean_cost\":" :
      ",%s,", has (sum, GST_MOTION_VECTOR_SUMMARY_FLAG_SCENE_CHANGE) ? t : f);
  append_double (s, sum->mean_cost);
  g_string_append (s, json ? ",\"median_cost\":" : ",");
  append_double (s, sum->median_cost);
}

void
mv_summary_append_json (GString * s, const GstMotionVectorSummary * sum)
{
  g_string_append_printf (s, ",\"summary\":{\"version\":%u,", sum->version);
  append_fields (s, sum, TRUE);
  g_string_append_c (s, '}');
}

void
mv_summary_append_csv (GString * s, const GstMotionVectorSummary * sum,
    guint64 frame, GstClockTime pts, gint ref_distance)
{
  g_string_append_printf (s, "%" G_GUINT64_FORMAT ",", frame);
  if (GST_CLOCK_TIME_IS_VALID (pts))
    g_string_append_printf (s, "%" G_GUINT64_FORMAT, pts);
  g_string_append_c (s, ',');
  append_fields (s, sum, FALSE);
  g_string_append_printf (s, ",%d\n", ref_distance);
}
