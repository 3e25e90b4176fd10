/* gpumotionest — motion compensation: pictures made from motion fields.
 *
 * The library beside the search that the consumers of fields (frame-rate
 * conversion, denoising, stabilisation) are built on.  It predicts a plane
 * or a whole picture from a reference and a field, with overlapped blocks
 * so that no block edges show; scales a field to a time between two
 * pictures; and blends two predictions with per-block weights taken from
 * the fields' costs.  Every rule it follows is integer arithmetic written
 * once in mc_rules.h for every backend; docs/motion-compensation.md gives
 * the rules, their reasons and the state of the backends (the C reference
 * and CUDA).
 *
 * Each call checks its arguments first and answers bad input with a
 * GError (MC_ERROR_INVALID) naming what is wrong; the implementation never
 * sees it.
 */
#ifndef MC_H
#define MC_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <gst/motionvectors/gstmotionvectortypes.h>

G_BEGIN_DECLS

#define MC_ERROR (mc_error_quark ())
GQuark mc_error_quark (void);

typedef enum {
  MC_ERROR_INVALID,          /* bad plane, field, picture or parameter */
  MC_ERROR_THREADS,          /* a worker thread could not be started */
  MC_ERROR_DEVICE,           /* CUDA: no usable device, or a CUDA call
                              * failed (the message names the error) */
} MCError;

/* One plane of samples.  depth 8: one byte a sample; 9 .. 16: 16-bit
 * words in host order, rows `stride` bytes apart, whose sample is
 * (word >> shift) masked to `depth` bits, as MEPlane reads them (shift 0
 * for I420_10LE, 16 - depth for P010_10LE).  Sample (x, y) is at data +
 * y stride + x pstride; pstride 0 means the sample's own size (1 or 2
 * bytes), a larger one that the plane is one component of interleaved
 * samples: NV12's U is the plane at the UV rows with pstride 2 and V the
 * one a byte further, P010's likewise with 4 and 2 bytes, YUY2's Y has
 * pstride 2 and its U and V 4 (docs/motion-compensation.md, "Planes").
 * The plane's bytes run from data to data + (height - 1) stride +
 * (width - 1) pstride + the sample's size.  A plane written by the
 * library gets sample << shift in each word, the other bits zero, and
 * nothing else: the bytes between its samples (the interleaved
 * neighbours) are left as they are.  A reference plane is only read.
 * Host memory, unless MCOptions.device says the planes of a call are
 * CUDA device memory.  pstride comes last, so that an initializer that
 * stops before it gets 0, the plain planar layout. */
typedef struct {
  uint8_t *data;
  ptrdiff_t stride;
  unsigned width;
  unsigned height;
  unsigned depth;
  unsigned shift;
  unsigned pstride;          /* bytes from a sample to the next in a row;
                              * 0: 1 for depth 8, 2 for 9 .. 16; at most
                              * MC_MAX_PSTRIDE; even for 16-bit words */
} MCPlane;

/* The largest pixel stride: 64 bytes, more than any pixel of a video
 * format (8 for 16-bit RGBA). */
#define MC_MAX_PSTRIDE 64

/* How the chroma of a picture is sampled. */
typedef enum {
  MC_CHROMA_NONE,            /* luma only (GRAY) */
  MC_CHROMA_420,             /* half across, half down */
  MC_CHROMA_422,             /* half across */
  MC_CHROMA_444,             /* full */
} MCChroma;

/* A picture: planes[0] luma, planes[1..2] chroma (not read with
 * MC_CHROMA_NONE), each of the chroma's size: ceil(width / 2) across when
 * subsampled across, likewise down.  Every plane has the luma's depth. */
typedef struct {
  MCChroma chroma;
  MCPlane planes[3];
} MCPicture;

/* A motion field over the luma plane: `cols` x `rows` blocks of
 * block_w x block_h luma pixels (4, 8 or 16 each: one shape of
 * gstmotionvectortypes.h), block (c, r) at pixel (c block_w, r block_h),
 * its cell at cells[r stride + c].  A cell's vector, in quarter pixels,
 * points from the block in the picture being made to its match in the
 * reference: the block's pixel (x, y) is predicted by reference sample
 * (x + mv_x / 4, y + mv_y / 4).  Its cost is the match's (a SAD).  The
 * grid must cover the plane (cols block_w >= width, rows block_h >=
 * height); blocks wholly past the plane's edge (the macroblock padding of
 * the search's grids) are not used.  A GstMotionVectorMeta's grid is such
 * a field as it is, at its analysis size. */
typedef struct {
  unsigned block_w;
  unsigned block_h;
  unsigned cols;
  unsigned rows;
  size_t stride;             /* cells from one row to the next; 0: cols */
  const GstMotionVectorCell *cells;
} MCField;

/* Which planes of a call are CUDA device memory of the current device
 * (mc_cuda_alloc(), or frames already there), read and written there by
 * the CUDA implementation; the others are host memory. */
typedef enum {
  MC_DEVICE_NONE = 0,
  MC_DEVICE_INPUTS = 1 << 0,     /* the reference; both blend inputs;
                                  * prev and next of an interpolation */
  MC_DEVICE_OUTPUT = 1 << 1,     /* the output */
  MC_DEVICE_ALL = MC_DEVICE_INPUTS | MC_DEVICE_OUTPUT,
} MCDevice;

/* An implementation of the per-sample work (mc_impl.h): mc_impl_c(), the
 * C reference, or mc_impl_cuda().  Every one makes the same samples. */
typedef struct MCImpl MCImpl;

/* The CUDA implementation's working state for one caller: a stream and
 * the device buffers between host planes and the kernels, made in the
 * CUDA context current at mc_cuda_session_new() and to be freed by
 * mc_cuda_session_free() with that context current, before the context
 * goes.  A caller working in a context it does not own (a GStreamer
 * pipeline's GstCudaContext, which may be destroyed while the thread
 * lives on) holds one and sets MCOptions.cuda_session; without one each
 * thread gets state of its own, freed when the thread ends, in the
 * context current at its first call (right for programs that stay in the
 * device's primary context).  A session serves one call at a time. */
typedef struct MCCudaSession MCCudaSession;

/* Where each block of an interpolated picture takes its motion from
 * (mc_interpolate_picture(), MC_INTERP_MOTION). */
typedef enum {
  MC_PAIR_BILATERAL,         /* one trajectory for both sides, chosen among
                              * the fields' vectors at the block and its
                              * neighbours by matching prev against next
                              * along it (default: the better pictures) */
  MC_PAIR_FIELDS,            /* each side its own field's vector at the
                              * block, scaled to t: no pixels read to
                              * choose, so no bilateral costs (faster,
                              * above all on a GPU, where the costs are a
                              * round trip to the host) */
} MCPairing;

/* How to compensate.  mc_options_init() gives the defaults. */
typedef struct {
  gboolean obmc;             /* overlapped blocks (default); FALSE: each
                              * block predicted alone, edges and all */
  unsigned threads;          /* worker threads of the C reference; 0 or 1:
                              * the calling one */
  const MCImpl *impl;        /* NULL (default): the C reference */
  MCDevice device;           /* planes in device memory (CUDA only);
                              * default MC_DEVICE_NONE */
  void *cuda_stream;         /* CUDA: a cudaStream_t to queue the work on
                              * after the caller's own; NULL (default):
                              * one of the implementation's per thread.
                              * The call returns when the output is
                              * written either way. */
  MCCudaSession *cuda_session;  /* CUDA: the caller's state (above); NULL
                                 * (default): the calling thread's */
  MCPairing pairing;         /* interpolation: MC_PAIR_BILATERAL
                              * (default) or MC_PAIR_FIELDS */
} MCOptions;

void mc_options_init (MCOptions * opt);

/* Predicts `out` from `ref` with `field`.  Both planes have one size and
 * depth; `sub_x`, `sub_y` (0 or 1) say how the plane is subsampled against
 * the luma the field is over: (0, 0) luma or 4:4:4 chroma (the search's
 * quarter-pel interpolation), otherwise chroma with H.264's eighth-sample
 * rule.  `out` must not overlap `ref`. */
gboolean mc_predict_plane (const MCPlane * ref, MCPlane * out,
    const MCField * field, unsigned sub_x, unsigned sub_y,
    const MCOptions * opt, GError ** error);

/* Every plane of `out` from the same plane of `ref`, the chroma with the
 * vectors of the luma.  Pictures of one size, depth and chroma. */
gboolean mc_predict_picture (const MCPicture * ref, MCPicture * out,
    const MCField * field, const MCOptions * opt, GError ** error);

/* dst (src->cols x src->rows cells, stride src->cols) gets src's cells with
 * each vector component scaled to t = num / den (mc_scale_qpel(): rounded
 * half away from zero) and the rest of the cell as it was.  den 1 ..
 * 65536, |num| <= 4 den; a negative t reverses the vectors. */
gboolean mc_field_scale (const MCField * src, GstMotionVectorCell * dst,
    int num, int den, GError ** error);

/* weights[i] (0 .. 64) for cell i of two fields of one grid: the weight of
 * a's prediction against b's, from their costs (mc_cost_weight()). */
gboolean mc_cost_weights (const MCField * a, const MCField * b,
    uint8_t * weights, GError ** error);

/* out = a and b mixed by block weights: weights[r cols + c] (0 .. 64) is
 * the weight of `a` in block (c, r) of a grid of `cols` x `rows` blocks of
 * block_w x block_h luma pixels; a plane subsampled by (sub_x, sub_y) has
 * its blocks halved likewise.  With opt->obmc the weights are spread over
 * the blocks' windows as predictions are, so they change smoothly from
 * block to block.  Planes of one size and depth; out may be a or b. */
gboolean mc_blend_plane (const MCPlane * a, const MCPlane * b, MCPlane * out,
    const uint8_t * weights, unsigned block_w, unsigned block_h,
    unsigned cols, unsigned rows, unsigned sub_x, unsigned sub_y,
    const MCOptions * opt, GError ** error);

/* Denoising (docs/motion-compensation.md, "Denoising"): out = each
 * sample's weighted mean of the current plane `cur` (weight 64) and
 * n_refs (1 .. MC_DENOISE_MAX_REFS, 8) predictions preds[i], each made by
 * mc_predict_plane() from one reference with its field (the current
 * frame's vectors against that reference).  weights[i][r cols + c] (0 ..
 * 64) is prediction i's weight in block (c, r) of a grid of `cols` x
 * `rows` blocks of block_w x block_h luma pixels, the plane subsampled by
 * (sub_x, sub_y) as in mc_blend_plane(); with opt->obmc each
 * prediction's weights are spread over the blocks' windows exactly as
 * mc_blend_plane() spreads its one, so they change smoothly from block to
 * block.  The sample is (64 cur + sum w_i pred_i) / (64 + sum w_i),
 * rounded to the nearest, halves up (mc_denoise_sample()): a prediction
 * of weight 0 leaves cur as it is.  Planes of one size and depth (layouts
 * may differ); out overlaps no input.  An implementation without its own
 * denoising (all but the C reference, so far) takes the C reference's,
 * host planes only. */
gboolean mc_denoise_plane (const MCPlane * cur, const MCPlane * const *preds,
    const uint8_t * const *weights, unsigned n_refs, unsigned block_w,
    unsigned block_h, unsigned cols, unsigned rows, unsigned sub_x,
    unsigned sub_y, MCPlane * out, const MCOptions * opt, GError ** error);

/* weights[i] (0 .. 64) for cell i of `field` (cols x rows, packed): the
 * weight mc_denoise_plane() gives the prediction made with it, from the
 * cell's cost (a SAD of luma blocks at `depth` bits) and the noise level,
 * sigma_q4 (0 .. 4095) the noise's standard deviation in sixteenths of a
 * level at 8 bits (mc_denoise_weight() of mc_denoise_level(): 64 up to
 * the SAD noise alone gives, falling smoothly to 0 at three times it).
 * no_reference (the field's meta has GST_MOTION_VECTOR_META_FLAG_NO_
 * REFERENCE: its cells say nothing) gives 0 everywhere. */
gboolean mc_denoise_weights (const MCField * field, gboolean no_reference,
    unsigned depth, unsigned sigma_q4, uint8_t * weights, GError ** error);

/* `out`, the picture `cur` denoised with n_refs (1 .. MC_DENOISE_MAX_REFS)
 * neighbouring pictures refs[i]: each plane is mc_denoise_plane() of cur's
 * plane and the predictions of the refs' planes made by
 * mc_predict_plane() with fields[i] (cur's vectors against refs[i]; the
 * chroma with the luma's vectors), prediction i weighted by weights[i]
 * (one per cell of fields[i], packed: mc_denoise_weights()).  The fields
 * have one grid (block size, cols and rows; strides may differ).
 * Pictures of one size, depth and chroma; out overlaps no input.  Planes
 * where opt->device says (MC_DEVICE_INPUTS: cur and every ref).  An
 * implementation that makes the predictions on the way (CUDA, the fast
 * CPU one) writes each plane in one pass without temporaries; the samples
 * are the same either way. */
gboolean mc_denoise_picture (const MCPicture * cur,
    const MCPicture * const *refs, const MCField * const *fields,
    const uint8_t * const *weights, unsigned n_refs, MCPicture * out,
    const MCOptions * opt, GError ** error);

/* The noise level of a picture estimated from its field against a
 * neighbour (costs: SADs of luma blocks at `depth` bits, the plane
 * width x height): *sigma_q4 gets the standard deviation in sixteenths of
 * a level at 8 bits, as mc_denoise_weights() takes it, read off the
 * costs of the best-matched blocks (docs/motion-compensation.md, "The
 * noise level").  FALSE, *sigma_q4 untouched, when the field says nothing
 * (no_reference, or fewer than MC_DENOISE_MIN_BLOCKS whole blocks). */
#define MC_DENOISE_MIN_BLOCKS 16
gboolean mc_denoise_estimate (const MCField * field, gboolean no_reference,
    unsigned width, unsigned height, unsigned depth, unsigned *sigma_q4);

/* The spatial pass after temporal denoising (docs/motion-compensation.md,
 * "The spatial pass"): out(x, y) = the rounded mean of the samples of `in`
 * in the window of `radius` (1 .. MC_SIGMA_MAX_RADIUS) around (x, y)
 * (inside the plane: the window is cut at the edges, not clamped) that
 * differ from in(x, y) by at most `threshold` levels of the plane's depth
 * (Lee's sigma filter, mc_sigma_counts()).  Threshold 0 keeps only equal
 * samples (a copy).  Planes of one size and depth (layouts may differ),
 * out apart from in; where opt->device says. */
gboolean mc_sigma_filter_plane (const MCPlane * in, MCPlane * out,
    unsigned radius, unsigned threshold, const MCOptions * opt,
    GError ** error);

/* Every plane of `in` through mc_sigma_filter_plane() into `out`
 * (pictures of one size and chroma; out overlaps no plane of in); on a GPU
 * one wait for the whole picture. */
gboolean mc_sigma_filter_picture (const MCPicture * in, MCPicture * out,
    unsigned radius, unsigned threshold, const MCOptions * opt,
    GError ** error);

/* How mc_interpolate_picture() makes the picture at t. */
typedef enum {
  MC_INTERP_MOTION,          /* motion compensated from both sides,
                              * blended by time, blocks whose motion
                              * neither side can be trusted for blended
                              * unmoved */
  MC_INTERP_BLEND,           /* prev and next unmoved, weights (1 - t, t)
                              * everywhere (a scene cut, faded) */
  MC_INTERP_REPEAT,          /* the nearer picture: prev for t < 1/2, next
                              * from t = 1/2 (a scene cut, held) */
} MCInterpMode;

/* weights[i] (0 .. 64) for cell i of the two fields' grid: the weight of
 * prev's prediction in the picture at t = num / den (0 <= num <= den, den
 * 1 .. 65536) between prev and next, from next_field (frame next against
 * prev) and prev_field (frame prev against next), as mc_interp_weight()
 * gives it for luma blocks at `depth` bits; a block whose two sides are
 * both untrusted gets the plain blend's weight and, when `fallback` is not
 * NULL, fallback[i] = 1 (else 0).  The fields have one grid (block size,
 * cols, rows; strides may differ).  *n_fallback (if not NULL) gets the
 * number of such blocks. */
gboolean mc_interpolate_weights (const MCField * next_field,
    const MCField * prev_field, int num, int den, unsigned depth,
    uint8_t * weights, uint8_t * fallback, unsigned *n_fallback,
    GError ** error);

/* `out`, the picture at t = num / den (0 <= num <= den, den 1 .. 65536)
 * between `prev` (t = 0) and `next` (t = 1).  With MC_INTERP_MOTION:
 * next_field is frame next's field against prev (next(p) ~ prev(p + v)),
 * prev_field frame prev's against next (prev(p) ~ next(p + v)), one grid;
 * each block takes one trajectory for both sides, prev read at q + a and
 * next at q + b, the candidate of its own and its neighbours' vectors of
 * both fields that prev and next agree best along
 * (mc_interpolate_fields()), and the two predictions are blended (with
 * overlap, when opt->obmc, as predictions are) by
 * mc_interpolate_weights(); a block that falls back takes both sides
 * unmoved.  The other modes read no field (NULL allowed).  All
 * pictures of one size, depth and chroma; out overlaps neither input.
 * Planes where opt->device says (the inputs prev and next, the output
 * out); CUDA works in device buffers of its own between the steps.
 * *n_fallback (if not NULL) gets the number of fallback blocks (0 outside
 * MC_INTERP_MOTION). */
gboolean mc_interpolate_picture (const MCPicture * prev,
    const MCPicture * next, MCPicture * out, const MCField * next_field,
    const MCField * prev_field, int num, int den, MCInterpMode mode,
    const MCOptions * opt, unsigned *n_fallback, GError ** error);

/* A candidate motion of one cell of an interpolated picture: prev is
 * read at q + a and next at q + b for the cell's samples q, displacements
 * in quarter luma samples (docs/motion-compensation.md,
 * "Interpolation"). */
typedef struct {
  int16_t ax, ay;
  int16_t bx, by;
} MCBiCand;

/* costs[i k + j] = the bilateral cost of candidate cand[i k + j] for cell
 * i = r cols + c of the grid of block_w x block_h cells (4, 8 or 16 each)
 * that covers the luma planes prev and next (one size and depth; cols =
 * ceil (width / block_w), rows likewise): the sum over the cell's samples
 * inside the plane of |prev - next| read at whole-sample positions
 * (mc_bi_pos(), mc_rules.h).  k >= 1 candidates a cell.  Planes where
 * opt->device says (MC_DEVICE_INPUTS); cand and costs host memory.
 * mc_interpolate_picture() chooses each cell's motion with it. */
gboolean mc_bilateral_costs (const MCPlane * prev, const MCPlane * next,
    unsigned block_w, unsigned block_h, const MCBiCand * cand, unsigned k,
    uint32_t * costs, const MCOptions * opt, GError ** error);

/* The motion mc_interpolate_picture() uses for the picture at t = num /
 * den between the luma planes prev and next, from next_field and
 * prev_field (as there): from_prev[i] and from_next[i] (next_field->cols
 * x rows cells each, rows packed) get, in mv_x and mv_y, the
 * displacements a and b that cell i reads prev and next with, each cell's
 * candidate of lowest mc_bi_key() (docs/motion-compensation.md,
 * "Interpolation"); 0 in cells past the plane and in cells that fall back
 * (counted in *n_fallback, if not NULL); the rest of each cell 0.
 * Planes where opt->device says (MC_DEVICE_INPUTS). */
gboolean mc_interpolate_fields (const MCPlane * prev, const MCPlane * next,
    const MCField * next_field, const MCField * prev_field, int num, int den,
    const MCOptions * opt, GstMotionVectorCell * from_prev,
    GstMotionVectorCell * from_next, unsigned *n_fallback, GError ** error);

/* Warping (docs/motion-compensation.md, "Warping"): a plane resampled
 * through an affine map, for stabilisation.  Output sample (x, y) reads
 * the input at ((xx x + xy y + x0) / 2^16, (yx x + yy y + y0) / 2^16):
 * 16.16 fixed point, the position exact in 64 bits, the sample bilinear
 * in 1/256ths with integer weights, rounded half up, positions outside
 * the input reading its nearest edge sample (mc_warp_rules.h).  Limits:
 * |xx|, |xy|, |yx|, |yy| <= MC_WARP_MAX_COEF (16.0), |x0|, |y0| <=
 * MC_WARP_MAX_SHIFT (65536 samples). */
#define MC_WARP_ONE 65536
#define MC_WARP_MAX_COEF (16 * MC_WARP_ONE)
#define MC_WARP_MAX_SHIFT ((int64_t) 65536 * MC_WARP_ONE)
typedef struct {
  int32_t xx, xy;
  int32_t yx, yy;
  int64_t x0, y0;
} MCWarp;

/* *w = the map with the given coefficients (input samples per output
 * sample, and input samples), each rounded to the nearest 1/65536, halves
 * away from zero; FALSE with MC_ERROR_INVALID when one is not finite or
 * past the limits above. */
gboolean mc_warp_from_double (MCWarp * w, double xx, double xy, double yx,
    double yy, double x0, double y0, GError ** error);

/* *out = the map of a chroma plane subsampled by (sub_x, sub_y) (0 or 1
 * each) under the luma map w, a chroma sample taken at the centre of the
 * luma samples it covers (luma position 2^sub c + (2^sub - 1) / 2):
 * coefficients xy << sub_y >> sub_x and yx << sub_x >> sub_y, the others
 * as they are; the offsets (xx ox + xy oy + x0 - ox) >> sub_x, likewise
 * for y, where ox = (2^sub_x - 1) / 2 (computed in halves, floored).  The
 * identity stays the identity, an even luma shift a chroma shift of half
 * as many samples. */
void mc_warp_chroma (const MCWarp * w, unsigned sub_x, unsigned sub_y,
    MCWarp * out);

/* `out` (any size) resampled from `in` through w (in and out of one depth;
 * layouts may differ).  `out` must not overlap `in`. */
gboolean mc_warp_plane (const MCPlane * in, MCPlane * out, const MCWarp * w,
    const MCOptions * opt, GError ** error);

/* Every plane of `out` from the same plane of `in` through w, w the map of
 * the luma, the chroma's from mc_warp_chroma().  Pictures of one chroma
 * and depth (sizes may differ), planes where opt->device says
 * (MC_DEVICE_INPUTS: in).  An implementation without a warp of its own
 * (the fast CPU one) takes the C reference's, host planes only. */
gboolean mc_warp_picture (const MCPicture * in, MCPicture * out,
    const MCWarp * w, const MCOptions * opt, GError ** error);

/* The C reference, always present. */
const MCImpl *mc_impl_c (void);

/* The fast CPU implementation at the best level this CPU runs (portable
 * C, AVX2 on x86-64 that has it): the C reference's samples bit for bit,
 * host planes only, MCOptions.threads worker threads.  Always present. */
const MCImpl *mc_impl_cpu (void);

/* The CUDA implementation on the current CUDA device (device 0 unless the
 * caller chose another), or NULL with MC_ERROR_DEVICE saying why (built
 * without CUDA, no driver or device, a chip this build has no kernels
 * for).  Planes may be in host memory (uploaded, computed, downloaded on a
 * stream) or in device memory (MCOptions.device); fields and weights are
 * always host memory (small, uploaded each call).  Samples equal the C
 * reference's bit for bit. */
const MCImpl *mc_impl_cuda (GError ** error);

/* Device memory for planes under MCOptions.device, without the CUDA headers:
 * mc_cuda_alloc() gives `size` bytes of the current device (NULL and
 * MC_ERROR_DEVICE on failure or without CUDA), mc_cuda_free() returns them
 * (NULL is ignored), mc_cuda_copy() copies `size` bytes between any two
 * of host and device memory and waits for the copy. */
void *mc_cuda_alloc (size_t size, GError ** error);
void mc_cuda_free (void *ptr);

/* A session (MCCudaSession, above) in the current context; NULL and
 * MC_ERROR_DEVICE on failure or without CUDA.  Free it with the same
 * context current (NULL is ignored). */
MCCudaSession *mc_cuda_session_new (GError ** error);
void mc_cuda_session_free (MCCudaSession * session);
gboolean mc_cuda_copy (void *dst, const void *src, size_t size,
    GError ** error);

G_END_DECLS

#endif /* MC_H */
