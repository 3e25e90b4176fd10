/* gpumotionest — the search as stages, and the parameters that pick them.
 *
 * Every backend runs the same four stages for every block, in x264's
 * manner; each is a separate piece of code in a backend, chosen by the
 * parameters, so that a new method or refinement is a new piece and a
 * value here, not an edit of the others:
 *
 *   1. candidates   the method proposes integer vectors: `full` the whole
 *                   window [-R, R]^2; fast methods a few (predictors,
 *                   patterns, pyramid levels)
 *   2. decision     the integer winner: the smallest comparison key
 *                   (me_cost.h) among the candidates, for every requested
 *                   shape
 *   3. refinement   optional: candidates around the winner (sub-pel),
 *                   ranked by the same key in quarter pixels
 *   4. finish       the H.264 prediction and MVD of the chosen vectors
 *                   (mvpred_rules.h)
 *
 * Stages 1 and 2 are fused in practice (a full search keeps only the
 * running minimum), but they stay separate in meaning: a method changes
 * which candidates are costed, never how the winner is chosen.
 *
 * Every method and refinement gives bit-identical results on every
 * backend (docs/tie-break.md says how data-dependent methods keep that).
 */
#ifndef ME_SEARCH_H
#define ME_SEARCH_H

#include <gst/motionvectors/gstmotionvectortypes.h>

G_BEGIN_DECLS

/* Stage 3: how far below a pixel the refinement goes.  Around the integer
 * winner it ranks the 8 half-pel neighbours (half, quarter) and then the 8
 * quarter-pel neighbours of the better one (quarter), with the reference
 * interpolated as H.264 does (subpel_rules.h); the winner itself competes
 * with its cost in the refinement's metric. */
typedef enum {
  ME_REFINE_NONE = 0,         /* whole-pixel vectors as decided */
  ME_REFINE_HALF = 1,
  ME_REFINE_QUARTER = 2,
} MERefine;

/* What stage 3 ranks by, and the cost the cells report.  The integer stages
 * always rank by SAD; with ME_METRIC_SATD and no sub-pel steps the integer
 * winner is kept and its cost reported as SATD. */
typedef enum {
  ME_METRIC_SAD = 0,
  ME_METRIC_SATD = 1,         /* 4x4 Hadamard, halved (subpel_rules.h) */
} MEMetric;

typedef struct {
  unsigned search_range;                   /* ±pixels, 1 .. ME_MAX_RANGE */
  GstMotionVectorPartitionFlags partitions; /* at least one shape */
  GstMotionVectorMethod method;            /* stage 1 */
  MERefine refine;                         /* stage 3 */
  MEMetric metric;                         /* stage 3's cost */
  /* Stage 3 ranks by distortion + lambda x bits of the MVD (me_rate.h)
   * against the H.264 prediction from the neighbours' final vectors, so
   * blocks are decided in decoding order; 0: distortion only. */
  unsigned lambda;                         /* 0 .. ME_MAX_LAMBDA */
  /* The window's centre across, whole pixels (full search only): the
   * candidates are (offset_x + dx, dy) for dx, dy in [-R, R], so that an
   * asymmetric horizontal range (disparity between the views of stereo
   * video) is searched without the other side.  Stages 1 to 3 rank within
   * the window as if it were centred on 0 (the tie-break prefers vectors
   * near the centre, the rate term prices vectors relative to it); the
   * cells hold the vectors themselves.  |offset_x| + R <= ME_MAX_RANGE. */
  int offset_x;
  /* Full search only: the window's half height, 1 .. search_range, for a
   * window wider than tall (disparity is mostly horizontal); 0: as wide
   * as tall.  The rate term's prediction is clamped into the window. */
  unsigned range_y;
  /* The caller asks for the fields' summaries (MEField.summary): a backend
   * that reduces them on its device adds that tail to every frame and may
   * keep more frames in flight for it (docs/summary.md, "On the GPU"). */
  gboolean summary;
} MESearchParams;

/* Whether stage 3 runs at all: the integer SAD result is final only with
 * no sub-pel steps, the SAD metric and no rate term. */
static inline int
me_search_refines (const MESearchParams * params)
{
  return params->refine != ME_REFINE_NONE || params->metric != ME_METRIC_SAD
      || params->lambda != 0;
}

/* The window's half height. */
static inline unsigned
me_search_range_y (const MESearchParams * params)
{
  return params->range_y ? params->range_y : params->search_range;
}

/* Parameters with every field at its default: 16x16, full search, ±16. */
void me_search_params_init (MESearchParams * params);

G_END_DECLS

#endif /* ME_SEARCH_H */
