/* gpumotionest — the CPU backend's session, shared by its files: the
 * padded planes, the worker pool, the per-thread scratch, and the pieces
 * of the search that every method uses.  backend_cpu_tmpl.c holds the
 * session, the full search and the stages after the method;
 * search_fast_tmpl.c the fast
 * methods (docs/fast-search.md).  Compiled once per sample size
 * (bitdepth.h, included by dsp.h): `pixel` is the sample, and strides and
 * offsets count samples.
 */
#ifndef ME_CPU_SESSION_H
#define ME_CPU_SESSION_H

#include <glib.h>

#include "me_backend.h"
#include "me_cost.h"
#include "dsp.h"

/* Borders grow in steps of this many pixels (a multiple of 32 keeps rows
 * aligned) so that a range creeping up does not re-pad every frame. */
#define ME_CPU_PAD_STEP 32

typedef struct PaddedPlane PaddedPlane;

struct PaddedPlane {
  pixel *alloc;
  size_t size;                  /* samples */
  pixel *base;                  /* alloc aligned to 32: the top-left corner */
  pixel *origin;                /* pixel (0, 0) */
  ptrdiff_t stride;
  size_t rows;                  /* rows from base */
  /* Sums of the 8x8 blocks whose top-left pixel is at each position, at the
   * same offsets from q8 as the pixels from base; for pruning. */
  q8_t *q8;
  size_t q8_size;
  gboolean q8_valid;
  /* The same for 4x4 blocks, for pruning searches of any shapes
   * (docs/elimination.md). */
  q8_t *q4;
  size_t q4_size;
  gboolean q4_valid;
  /* The half-sample planes H, V and C (subpel_rules.h), one after the
   * other, each laid out as the pixels are; for sub-pel refinement.  They
   * hold the positions that a search of range hp_range reads (-1: none;
   * hpel_band_job). */
  pixel *hp;
  size_t hp_size;
  int hp_range;
  unsigned pad;                 /* border beyond whole macroblocks, pixels */
  unsigned width, height;       /* of the frame it holds */
  /* The hierarchical search's pyramid: levels 1 and 2 of this plane
   * (docs/fast-search.md), made when first needed after a fill. */
  PaddedPlane *level[2];
  gboolean levels_valid;
};

#define GROUP_MAX 1024          /* candidates per group (at least one row) */

typedef struct {
  unsigned range;               /* R the table is for; 0: none yet */
  unsigned range_y;             /* its rows: dy = -range_y .. range_y */
  unsigned rows_per_group, rows_per_chunk;
  guint16 *rank;                /* [f]: rank of candidate f within its chunk */
  guint32 *cand;                /* [chunk's first f + rank]: candidate f */
} RankTable;

typedef struct Scratch Scratch;

struct MESession {
  MEDsp dsp;
  /* the frames' bits per sample (MEPlane.depth; 8 at BITDEPTH 8), their
   * largest sample, and the search's lambda scaled to them (me_rate.h) */
  unsigned depth;
  int bitdepth_max;
  uint32_t lambda;
  unsigned simd;                /* MEBackendOptions.simd: the DSP's levels */
  PaddedPlane planes[3];        /* current, reference, spare for repadding */
  PaddedPlane *cur, *ref, *spare;
  unsigned pad;                 /* border now in use: largest range seen */
  RankTable ranks;
  gint16 *winners;              /* stage 3 with lambda: integer winners */
  size_t winners_size;
  gboolean prune;               /* exact early-out in the full search */
  gboolean prune_always;        /* MEBackendOptions.prune ME_PRUNE_ALWAYS */
  /* candidates of the pruned searches of any shapes: in the window, and
   * costed (docs/elimination.md); summed over the session's life */
  gint64 esa_total, esa_costed;
  /* the search's window offset (MESearchParams.offset_x): reference
   * reads of stages 1 to 3 start this many pixels across */
  ptrdiff_t ref_shift;
  /* The fast methods (search_fast_tmpl.c): the coarsest level's rank table; the
   * guide winners (dx, dy per macroblock) of this frame and of the one
   * before (predictive's temporal predictors, when temporal_valid), and
   * hierarchical's level-1 winners (its level-2 ones go to guide); the
   * predictive wavefront's progress per macroblock row. */
  RankTable coarse_ranks;
  gint16 *guide, *temporal, *level1;
  size_t guide_size;
  gboolean temporal_valid;
  unsigned temporal_cols, temporal_rows;
  gint *progress;
  size_t progress_size;
  gboolean has_ref;
  GQueue done;                  /* one item per submission not collected */
  /* Whether the search running passes predictive's temporal predictors on
   * (me_backend.h, submit_pairs): always in submit(); in submit_pairs()
   * only for a pair whose reference is its target's previous frame. */
  gboolean chain;
  /* submit_pairs(): the last win_count frames, the newest in
   * window[win_newest], the one before it in the slot before, and so on
   * around the ring. */
  gboolean pairs_mode;
  PaddedPlane window[ME_MAX_WINDOW];
  unsigned win_newest, win_count;

  /* the frame being searched, read by the workers */
  const MESearchParams *params;
  MEField *field;
  /* the job shared out: items 0 .. n_items - 1 of `job` */
  void (*job) (MESession * s, Scratch * scratch, unsigned item);
  gint n_items;
  gint next_item;

  GThreadPool *pool;
  unsigned n_workers;
  GMutex lock;
  GCond cond;
  unsigned active;
};

/* Per-thread scratch: the SADs of one group of candidate rows. */
struct Scratch {
  sad4_t sad4[16 * GROUP_MAX] __attribute__((aligned (32)));
  uint32_t sad[GROUP_MAX] __attribute__((aligned (32)));
  uint32_t keep[GROUP_MAX / 32 + 1];     /* the pruned search's survivors, */
  guint16 rank[GROUP_MAX] __attribute__((aligned (32)));  /* their ranks */
  pixel cur[256] __attribute__((aligned (32)));
};

/* Where each of the ME_DSP_N_PARTS partitions goes: its shape, its
 * position (in cells of that shape) within the macroblock, and the 4x4
 * sub-blocks it covers (bit 4 * row + column). */
typedef struct {
  guint8 shape, col, row;
  guint16 blocks;
} PartDesc;

extern PartDesc me_cpu_parts[ME_DSP_N_PARTS];

/* Runs job (s, scratch, i) for i = 0 .. n - 1 on the pool and waits. */
void me_cpu_run_parallel (MESession * s,
    void (*job) (MESession *, Scratch *, unsigned), unsigned n);

/* Fills `p` with a w x h plane read from `src`, extended by edge
 * replication to mb_cols x mb_rows blocks of 16 and `pad` pixels more. */
void me_cpu_plane_fill (PaddedPlane * p, const pixel * src,
    ptrdiff_t src_stride, unsigned w, unsigned h, unsigned mb_cols,
    unsigned mb_rows, unsigned pad);
/* The same from a frame's luma of any kind (me_backend.h): packed and RGB
 * rows are converted by dsp's routines straight into `p`. */
void me_cpu_luma_fill (PaddedPlane * p, const MEDsp * dsp,
    const MEPlane * luma, unsigned mb_cols, unsigned mb_rows, unsigned pad);
void me_cpu_plane_free (PaddedPlane * p);

void me_cpu_rank_table_build (RankTable * t, unsigned range);
/* A window of ±range across and ±range_y down. */
void me_cpu_rank_table_build_rect (RankTable * t, unsigned range,
    unsigned range_y);

/* best[k] = min (best[k], smallest key of partition k (k < 1 when only16,
 * else k < ME_DSP_N_PARTS)) over the window [-R, R]^2 of the 16x16 block
 * `cur` (stride 16) against `ref` (the candidate (0, 0), rows `stride`
 * apart), ranked with `t` (built for R). */
void me_cpu_search_window (const MEDsp * dsp, const RankTable * t,
    Scratch * scratch, const pixel * cur, const pixel * ref,
    ptrdiff_t stride, int R, gboolean only16, uint64_t * best);

/* Copies macroblock (mbx, mby) of the current frame to scratch->cur. */
void me_cpu_load_mb (const MESession * s, Scratch * scratch, unsigned mbx,
    unsigned mby);

/* Writes best[k] (k < 1 when only16) into the requested grids. */
void me_cpu_store_mb (MESession * s, unsigned mbx, unsigned mby,
    gboolean only16, const uint64_t * best);

/* Stages 1 and 2 of the fast methods (search_fast_tmpl.c). */
void me_cpu_method_mods (MESession * s);
void me_cpu_method_hierarchical (MESession * s);
void me_cpu_method_predictive (MESession * s);

/* The session's functions for this sample size, as MEBackendOps (open,
 * close, submit, submit_pairs, collect, reset); backend_cpu.c hands each
 * stream to one. */
extern const MEBackendOps me_backend_cpu_impl;

#endif /* ME_CPU_SESSION_H */
