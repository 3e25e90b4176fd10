/* gpumotionest — the references property and the window of frames it
 * needs (gstmotionrefs.h). */
#include <stdlib.h>
#include <string.h>

#include "gstmotionrefs.h"
#include "ref_decision.h"

/* "-1,-2", "+1, -1", "-4": distances separated by commas, each a signed
 * integer that is not 0, between -GST_MOTION_REFS_MAX_PAST and
 * +GST_MOTION_REFS_MAX_FUTURE, each once. */
gboolean
gst_motion_refs_parse (const gchar * str, GstMotionRefs * refs,
    GError ** error)
{
  g_auto (GStrv) parts = NULL;
  GstMotionRefs out = { {0}, 0 };

  if (!str || !*str) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "the reference list is empty: give at least one distance, such as "
        "-1");
    return FALSE;
  }
  parts = g_strsplit (str, ",", -1);
  for (guint i = 0; parts[i]; i++) {
    const gchar *item = g_strstrip (parts[i]);
    gchar *end = NULL;
    gint64 d;

    if (!*item) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "empty item %u in the reference list \"%s\"", i + 1, str);
      return FALSE;
    }
    d = g_ascii_strtoll (item, &end, 10);
    if (*end || end == item) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "\"%s\" in the reference list is not a frame distance (such as "
          "-2 or +1)", item);
      return FALSE;
    }
    if (d == 0) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "0 in the reference list: a frame is not searched against itself");
      return FALSE;
    }
    if (d < -GST_MOTION_REFS_MAX_PAST || d > GST_MOTION_REFS_MAX_FUTURE) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "reference %+" G_GINT64_FORMAT " is out of reach: past references "
          "go back %d frames at most, future ones %d", d,
          GST_MOTION_REFS_MAX_PAST, GST_MOTION_REFS_MAX_FUTURE);
      return FALSE;
    }
    for (guint k = 0; k < out.n; k++)
      if (out.dist[k] == d) {
        g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
            "reference %+" G_GINT64_FORMAT " is listed twice", d);
        return FALSE;
      }
    if (out.n == GST_MOTION_REFS_MAX) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "more than %d references in \"%s\"", GST_MOTION_REFS_MAX, str);
      return FALSE;
    }
    out.dist[out.n++] = (gint) d;
  }
  *refs = out;
  return TRUE;
}

gboolean
gst_motion_refs_equal (const GstMotionRefs * a, const GstMotionRefs * b)
{
  return a->n == b->n && memcmp (a->dist, b->dist, a->n * sizeof (gint)) == 0;
}

gboolean
gst_motion_refs_previous_only (const GstMotionRefs * refs)
{
  return refs->n == 1 && refs->dist[0] == -1;
}

guint
gst_motion_refs_future (const GstMotionRefs * refs)
{
  gint f = 0;

  for (guint k = 0; k < refs->n; k++)
    f = MAX (f, refs->dist[k]);
  return f;
}

void
gst_motion_ref_window_init (GstMotionRefWindow * w)
{
  memset (w, 0, sizeof (*w));
  g_queue_init (&w->held);
  gst_motion_refs_parse (GST_MOTION_REFS_DEFAULT, &w->refs, NULL);
}

void
gst_motion_ref_window_reset (GstMotionRefWindow * w,
    const GstMotionRefs * refs)
{
  g_assert (g_queue_is_empty (&w->held));
  w->refs = *refs;
  w->added = 0;
  w->next_view = 0;
}

void
gst_motion_ref_window_add_instant (GstMotionRefWindow * w,
    GstMotionEstJob * job)
{
  job->frame_no = w->added++;
  w->pts[job->frame_no % GST_MOTION_REFS_PTS_RING] =
      GST_BUFFER_PTS (job->buffer);
}

void
gst_motion_ref_window_add (GstMotionRefWindow * w, GstMotionEstJob * job)
{
  job->frame_no = w->added++;
  w->pts[job->frame_no % GST_MOTION_REFS_PTS_RING] =
      GST_BUFFER_PTS (job->buffer);
  g_queue_push_tail (&w->held, job);
}

GstMotionEstJob *
gst_motion_ref_window_newest (GstMotionRefWindow * w)
{
  return g_queue_peek_tail (&w->held);
}

GstMotionEstJob *
gst_motion_ref_window_next (GstMotionRefWindow * w, gboolean at_end,
    MESearchPair * pairs, guint * n_pairs)
{
  GstMotionEstJob *job = g_queue_peek_head (&w->held);
  const guint64 newest = w->added - 1;

  *n_pairs = 0;
  if (!job || (!at_end
          && newest < job->frame_no + gst_motion_refs_future (&w->refs)))
    return NULL;
  g_queue_pop_head (&w->held);
  /* the job's fields follow the list it was made with */
  for (guint k = 0; k < job->n_fields; k++) {
    const gint64 r = (gint64) job->frame_no + job->ref_distance[k];

    if (r < 0 || r > (gint64) newest) {
      gst_motion_est_job_clear_field (job, k);
      continue;
    }
    job->ref_pts[k] = w->pts[r % GST_MOTION_REFS_PTS_RING];
    pairs[(*n_pairs)++] = (MESearchPair) {
    (guint) (newest - job->frame_no), (guint) (newest - r), &job->fields[k]};
  }
  return job;
}

gboolean
gst_motion_refs_decide (GstBuffer * buffer, guint lambda)
{
  const GstMotionVectorCell *fields[ME_REF_DECISION_MAX][GST_MOTION_VECTOR_PARTITION_COUNT];
  gint dist[ME_REF_DECISION_MAX];
  GstMotionVectorMeta *first = gst_buffer_get_motion_vector_meta_nth (buffer,
      0);
  const guint n_metas = gst_buffer_get_n_motion_vector_metas (buffer);
  guint n = 0, mb_cols, mb_rows;
  guint8 *modes, *refs;
  gint8 *chosen;
  GBytes *bytes;

  if (!first || !(first->partitions & (first->partitions - 1)))
    return FALSE;
  for (guint i = 0; i < n_metas && n < ME_REF_DECISION_MAX; i++) {
    GstMotionVectorMeta *m = gst_buffer_get_motion_vector_meta_nth (buffer,
        i);
    /* the first view's motion fields (stereo: not the other view's, nor
     * disparity) */
    if (!m || (m->flags & (GST_MOTION_VECTOR_META_FLAG_NO_REFERENCE
                | GST_MOTION_VECTOR_META_FLAG_INTER_VIEW)) || m->view != 0
        || m->partitions != first->partitions
        || m->analysis_width != first->analysis_width
        || m->analysis_height != first->analysis_height)
      continue;
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      fields[n][p] = gst_motion_vector_meta_get_grid (m, p, NULL, NULL);
    dist[n++] = m->ref_distance;
  }
  if (n < 2)
    return FALSE;

  mb_cols = gst_motion_vector_mb_cols (first->analysis_width);
  mb_rows = gst_motion_vector_mb_rows (first->analysis_height);
  modes = g_malloc ((gsize) mb_cols * mb_rows);
  refs = g_malloc ((gsize) 16 * mb_cols * mb_rows);
  me_ref_decide (fields, n, mb_cols, mb_rows, lambda, modes, refs);
  bytes = g_bytes_new_take (modes, (gsize) mb_cols * mb_rows);
  gst_motion_vector_meta_set_modes (first, bytes);
  g_bytes_unref (bytes);
  /* from indices among the fields decided to their distances */
  chosen = (gint8 *) refs;
  for (gsize i = 0; i < (gsize) 16 * mb_cols * mb_rows; i++)
    chosen[i] = (gint8) dist[refs[i]];
  bytes = g_bytes_new_take (chosen, (gsize) 16 * mb_cols * mb_rows);
  gst_motion_vector_meta_set_chosen_refs (first, bytes);
  g_bytes_unref (bytes);
  return TRUE;
}
