/* mvdenoise — the auto noise level: the median of the last frames'
 * estimates, restarted at a cut or a break (gstmvdenoise.c,
 * docs/denoise.md "How the level is estimated").
 */
#ifndef GST_MV_DENOISE_LEVEL_H
#define GST_MV_DENOISE_LEVEL_H

#include <glib.h>

G_BEGIN_DECLS

/* How many frames' estimates the median is taken over. */
#define GST_MV_DENOISE_HISTORY 9

typedef struct
{
  guint est[GST_MV_DENOISE_HISTORY];   /* sixteenths of an 8-bit level */
  guint n, pos;                 /* how many, where the next goes */
  gboolean valid;               /* FALSE: cleared, no scene yet */
  guint scene;                  /* the scene the estimates are of */
} GstMvDenoiseLevel;

/* No estimates, of no scene (a break). */
void gst_mv_denoise_level_clear (GstMvDenoiseLevel * l);

/* No estimates, of @scene. */
void gst_mv_denoise_level_restart (GstMvDenoiseLevel * l, guint scene);

/* Whether the estimates are of @scene. */
gboolean gst_mv_denoise_level_of_scene (const GstMvDenoiseLevel * l,
    guint scene);

/* A frame's estimate, the oldest dropped beyond GST_MV_DENOISE_HISTORY. */
void gst_mv_denoise_level_add (GstMvDenoiseLevel * l, guint q4);

/* The median of the estimates (the upper of the two middle ones for an
 * even count); 0 without any. */
guint gst_mv_denoise_level_median (const GstMvDenoiseLevel * l);

G_END_DECLS

#endif /* GST_MV_DENOISE_LEVEL_H */
