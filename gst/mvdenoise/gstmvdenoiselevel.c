/* mvdenoise — the auto noise level (gstmvdenoiselevel.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "gstmvdenoiselevel.h"

void
gst_mv_denoise_level_clear (GstMvDenoiseLevel * l)
{
  memset (l, 0, sizeof (*l));
}

void
gst_mv_denoise_level_restart (GstMvDenoiseLevel * l, guint scene)
{
  gst_mv_denoise_level_clear (l);
  l->valid = TRUE;
  l->scene = scene;
}

gboolean
gst_mv_denoise_level_of_scene (const GstMvDenoiseLevel * l, guint scene)
{
  return l->valid && l->scene == scene;
}

void
gst_mv_denoise_level_add (GstMvDenoiseLevel * l, guint q4)
{
  l->est[l->pos] = q4;
  l->pos = (l->pos + 1) % GST_MV_DENOISE_HISTORY;
  l->n = MIN (l->n + 1, GST_MV_DENOISE_HISTORY);
}

static int
cmp_uint (const void *a, const void *b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

guint
gst_mv_denoise_level_median (const GstMvDenoiseLevel * l)
{
  guint sorted[GST_MV_DENOISE_HISTORY];

  if (l->n == 0)
    return 0;
  memcpy (sorted, l->est, l->n * sizeof (guint));
  qsort (sorted, l->n, sizeof (guint), cmp_uint);
  return sorted[l->n / 2];
}
