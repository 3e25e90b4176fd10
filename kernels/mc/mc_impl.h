/* gpumotionest — motion compensation: what an implementation provides.
 *
 * mc.c checks every argument and then calls an implementation through this
 * table, as the search's MEBackend does, so an implementation never sees
 * bad input.  The C reference (mc_c.c), the fast CPU implementation
 * (mc_cpu.c) and CUDA (mc_cuda.cu) fill it; all must give the same samples bit for bit.  MCOptions.impl picks one; mc_impl_c() and
 * mc_impl_cuda() are declared in mc.h.
 */
#ifndef MC_IMPL_H
#define MC_IMPL_H

#include "mc.h"

/* The plane's grid: cells of bw x bh samples (the field's blocks, halved
 * where the plane is subsampled), ncols x nrows of them covering the plane,
 * cells of the field read from `cells` with `stride`. */
typedef struct {
  unsigned bw;
  unsigned bh;
  unsigned ncols;
  unsigned nrows;
} MCGrid;

/* Bytes a sample takes, and from one sample of a row to the next.  Every
 * implementation addresses sample (x, y) as data + y stride + x
 * mc_plane_pstride(), and writes a sample's own byte or word alone: an
 * interleaved plane's neighbours (NV12's V beside U) are never written.
 * checkasm's layouts check both. */
static inline unsigned
mc_plane_bps (const MCPlane * p)
{
  return p->depth > 8 ? 2 : 1;
}

static inline unsigned
mc_plane_pstride (const MCPlane * p)
{
  return p->pstride ? p->pstride : mc_plane_bps (p);
}

/* Bytes from the first sample of a row to the end of its last. */
static inline size_t
mc_plane_row_span (const MCPlane * p)
{
  return (size_t) (p->width - 1) * mc_plane_pstride (p) + mc_plane_bps (p);
}

struct MCImpl {
  const char *name;          /* "c", "cuda" */
  gboolean device_planes;    /* takes planes with MCPlane.device */
  /* out from ref with the field's vectors; chroma (sub_x | sub_y) picks the
   * chroma rule.  ref and out of one size and depth. */
  gboolean (*predict_plane) (const MCPlane * ref, MCPlane * out,
      const MCField * field, const MCGrid * grid, unsigned sub_x,
      unsigned sub_y, const MCOptions * opt, GError ** error);
  /* out from a and b with block weights over `grid`, one per cell, rows
   * `wstride` apart. */
  gboolean (*blend_plane) (const MCPlane * a, const MCPlane * b,
      MCPlane * out, const uint8_t * weights, size_t wstride,
      const MCGrid * grid, const MCOptions * opt, GError ** error);
  /* Optional (NULL: mc.c composes it from the two above, through
   * temporary planes): out = blend_plane (predict_plane (prev, from_prev),
   * predict_plane (next, from_next), weights) in one pass, the same
   * samples without the temporaries.  from_prev and from_next are the
   * fields of mc_interpolate_fields() (each cell's a and b, fallback
   * blocks already zeroed), weights one per cell of `grid`, rows
   * `wstride` apart. */
  gboolean (*interpolate_plane) (const MCPlane * prev, const MCPlane * next,
      MCPlane * out, const MCField * from_prev, const MCField * from_next,
      const uint8_t * weights, size_t wstride, const MCGrid * grid,
      unsigned sub_x, unsigned sub_y, const MCOptions * opt,
      GError ** error);
  /* Optional (NULL: the C reference's, which reads host planes only):
   * costs[i k + j] = the bilateral cost (mc_bi_pos(), mc_rules.h) of
   * candidate cand[i k + j] for luma cell i = r ncols + c of `grid`, k
   * candidates a cell, on the luma planes prev and next (one size and
   * depth). */
  gboolean (*bilateral_costs) (const MCPlane * prev, const MCPlane * next,
      const MCGrid * grid, const MCBiCand * cand, unsigned k,
      uint32_t * costs, const MCOptions * opt, GError ** error);
  /* Optional (NULL: the C reference's, which reads host planes only): out
   * = cur and the n_refs predictions preds[i] mixed by their block weights
   * weights[i], one per cell of `grid`, rows `wstride` apart
   * (mc_denoise_plane()).  All planes of one size and depth. */
  gboolean (*denoise_plane) (const MCPlane * cur, const MCPlane * const *preds,
      const uint8_t * const *weights, unsigned n_refs, size_t wstride,
      MCPlane * out, const MCGrid * grid, const MCOptions * opt,
      GError ** error);
  /* Optional (NULL: mc.c predicts each reference into a temporary plane
   * with predict_plane and calls denoise_plane): the same samples in one
   * pass, out = cur and each refs[i] predicted with fields[i] (packed,
   * cells of `grid`) mixed by weights[i] (rows `wstride` apart), the
   * predictions made sample by sample on the way.  `plane` is the
   * picture's plane: mc_denoise_picture() calls plane 0 first and the
   * others right after it with the same fields and weights, so that an
   * implementation may keep what it made of them (CUDA uploads them
   * once a picture).  `last`: the picture's last plane; before it an
   * implementation writing device memory need not wait for its work (the
   * next call's follows it on the same stream). */
  gboolean (*denoise_refs) (const MCPlane * cur, const MCPlane * const *refs,
      const MCField * const *fields, const uint8_t * const *weights,
      unsigned n_refs, size_t wstride, MCPlane * out, const MCGrid * grid,
      unsigned sub_x, unsigned sub_y, unsigned plane, gboolean last,
      const MCOptions * opt, GError ** error);
  /* Optional (NULL: the C reference's, which reads host planes only): out
   * resampled from `in` through w, the plane's own map (mc_warp_plane();
   * mc_warp_chroma() already applied to chroma).  One depth; sizes may
   * differ. */
  gboolean (*warp_plane) (const MCPlane * in, MCPlane * out,
      const MCWarp * w, const MCOptions * opt, GError ** error);
  /* Optional (NULL: the C reference's, host planes only):
   * mc_sigma_filter_plane(), arguments checked; `last` as for
   * denoise_refs (FALSE only for a picture's planes before its last). */
  gboolean (*sigma_filter_plane) (const MCPlane * in, MCPlane * out,
      unsigned radius, unsigned threshold, gboolean last,
      const MCOptions * opt, GError ** error);
};

/* row (job, r) for r = 0 .. n - 1, on `threads` threads (the calling one
 * among them; 0 or 1: it alone), rows taken in turn as threads come free;
 * FALSE with MC_ERROR_THREADS when a thread could not be started (the
 * rows are all done by the others anyway).  The CPU implementations'
 * threading, in mc.c. */
gboolean mc_run_rows (void (*row) (gpointer job, unsigned r), gpointer job,
    unsigned n, unsigned threads, GError ** error);

#endif /* MC_IMPL_H */
