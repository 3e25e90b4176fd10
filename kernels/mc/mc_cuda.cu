/* gpumotionest — motion compensation, the CUDA implementation.
 *
 * One thread per output sample, computed by mc_cuda_sample.h (the rules of
 * mc_rules.h gathered as the C reference's cells gather them; why that is
 * bit for bit the reference is said there).
 *
 * Planes in host memory go through device buffers of the calling thread
 * (2D copies on its stream); planes in device memory (MCOptions.device) are
 * read and written in place.  Fields and weights are uploaded each call.
 * Every call waits for its stream before it returns.
 */
#include <cuda_runtime.h>
#include <string.h>

#include "mc_impl.h"
#include "mc_cuda_sample.h"

/* ---- errors ------------------------------------------------------------ */

static gboolean
check (cudaError_t e, const char *what, GError **error)
{
  if (e == cudaSuccess)
    return TRUE;
  cudaGetLastError (); /* clear it if it is not sticky */
  g_set_error (error, MC_ERROR, MC_ERROR_DEVICE, "CUDA: %s failed: %s (%s)",
      what, cudaGetErrorName (e), cudaGetErrorString (e));
  return FALSE;
}

#define CHECK(call, what) \
  G_STMT_START \
  { \
    if (!check ((call), (what), error)) \
      return FALSE; \
  } \
  G_STMT_END

/* ---- kernels ----------------------------------------------------------- */

/* One thread per output sample, the sample from mc_cuda_sample.h; BPS a
 * constant, so that each kernel reads its own sample size without a
 * branch. */
template <int BPS>
__global__ void
mc_predict_kernel (MCSPlane ref, MCSPlane out,
    const GstMotionVectorCell *cells, MCSGrid g, int sub_x, int sub_y,
    int obmc)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= ref.width || y >= ref.height)
    return;
  mc_s_write ((uint8_t *) out.data, out.stride, out.pstride, BPS, out.shift,
      x, y, mc_s_predict (ref, BPS, cells, g, x, y, sub_x, sub_y, obmc));
}

/* One thread per output sample of a warped plane (mc_s_warp()). */
template <int BPS>
__global__ void
mc_warp_kernel (MCSPlane in, MCSPlane out, MCSWarp w)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.height)
    return;
  mc_s_write ((uint8_t *) out.data, out.stride, out.pstride, BPS, out.shift,
      x, y, mc_s_warp (in, BPS, w, x, y));
}

/* Both inputs are read before the write: out may be a or b, sample for
 * sample. */
template <int BPS>
__global__ void
mc_blend_kernel (MCSPlane a, MCSPlane b, MCSPlane out,
    const uint8_t *weights, MCSGrid g, int obmc)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.width || y >= a.height)
    return;
  mc_s_write ((uint8_t *) out.data, out.stride, out.pstride, BPS, out.shift,
      x, y, mc_s_blend (a, b, BPS, weights, g, x, y, obmc));
}

/* Both predictions and the blend of one output sample in one thread: no
 * temporary planes between the steps. */
template <int BPS>
__global__ void
mc_interpolate_kernel (MCSPlane prev, MCSPlane next, MCSPlane out,
    const GstMotionVectorCell *from_prev, const GstMotionVectorCell *from_next,
    const uint8_t *weights, MCSGrid g, int sub_x, int sub_y, int obmc)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= prev.width || y >= prev.height)
    return;
  mc_s_write ((uint8_t *) out.data, out.stride, out.pstride, BPS, out.shift,
      x, y, mc_s_interpolate (prev, next, BPS, from_prev, from_next, weights,
          g, x, y, sub_x, sub_y, obmc));
}

/* The four half-sample planes of a luma reference over their box
 * (mc_cuda_sample.h, MCSHPel), in two passes: the 6-tap's sums across
 * each row, then one thread a position for all four planes. */
template <int BPS>
__global__ void
mc_hp_b1_kernel (MCSPlane ref, int32_t *b1, ptrdiff_t b1_stride)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= mc_s_hp_cols (ref.width) || y >= ref.height)
    return;
  b1[(ptrdiff_t) y * b1_stride + i] = mc_s_tap6_across (ref, BPS,
      i + MC_S_HP_LO, y);
}

template <int BPS>
__global__ void
mc_hp_kernel (MCSPlane ref, const int32_t *b1, ptrdiff_t b1_stride,
    uint16_t *dst, ptrdiff_t stride, ptrdiff_t plane)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= mc_s_hp_cols (ref.width) || j >= mc_s_hp_rows (ref.height))
    return;
  const int x = i + MC_S_HP_LO, y = j + MC_S_HP_LO;
  uint16_t *d = dst + (ptrdiff_t) j * stride + i;
  for (int k = 0; k < 4; k++)
    d[k * plane] = (uint16_t) mc_s_hp_from_b1 (ref, BPS, b1, b1_stride, k, x,
        y);
}

/* One denoised sample a thread: every reference's prediction made on the
 * way (mc_s_denoise()), no temporary planes. */
template <int BPS>
__global__ void
mc_denoise_kernel (MCSPlane cur, MCSPlane out, MCSDenoiseRefs refs, MCSGrid g,
    int sub_x, int sub_y, int obmc)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= cur.width || y >= cur.height)
    return;
  mc_s_write ((uint8_t *) out.data, out.stride, out.pstride, BPS, out.shift,
      x, y, mc_s_denoise (cur, &refs, BPS, g, x, y, sub_x, sub_y, obmc));
}

/* One sample of the spatial pass a thread. */
template <int BPS>
__global__ void
mc_sigma_kernel (MCSPlane in, MCSPlane out, int radius, int threshold)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= in.width || y >= in.height)
    return;
  mc_s_write ((uint8_t *) out.data, out.stride, out.pstride, BPS, out.shift,
      x, y, mc_s_sigma (in, BPS, x, y, radius, threshold));
}

/* The bilateral costs (mc_rules.h, mc_bi_pos()) of one cell, one CUDA
 * block a cell: thread i takes sample (i % 16, i / 16) of the cell (a
 * cell has at most 16 x 16), and for each candidate in turn the block sums
 * its threads' absolute differences, by warp shuffles and then across the
 * eight warps.  Integer sums: the order of the terms does not matter, so
 * the costs are the C reference's exactly. */
#define MC_BI_THREADS 256

template <int BPS>
__global__ void __launch_bounds__ (MC_BI_THREADS)
mc_bilateral_kernel (MCSPlane prev, MCSPlane next, MCSGrid g,
    const MCBiCand *cand, int k, uint32_t *costs)
{
  __shared__ uint32_t part[MC_BI_THREADS / 32];
  const int cell = blockIdx.x;
  const int c = cell % g.ncols, r = cell / g.ncols;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int x = c * g.bw + tx, y = r * g.bh + ty;
  const bool in = tx < g.bw && ty < g.bh && x < prev.width
      && y < prev.height;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const MCBiCand *cd = cand + (size_t) cell * k;
  for (int j = 0; j < k; j++) {
    uint32_t d = 0;
    if (in) {
      const MCBiCand q = cd[j];
      const int a = mc_s_read (prev, BPS, mc_bi_pos (x, q.ax, prev.width),
          mc_bi_pos (y, q.ay, prev.height));
      const int b = mc_s_read (next, BPS, mc_bi_pos (x, q.bx, next.width),
          mc_bi_pos (y, q.by, next.height));
      d = (uint32_t) (a > b ? a - b : b - a);
    }
    for (int o = 16; o > 0; o >>= 1)
      d += __shfl_down_sync (0xffffffffu, d, o);
    if (lane == 0)
      part[warp] = d;
    __syncthreads ();
    if (threadIdx.x == 0) {
      uint32_t sum = 0;
      for (int w = 0; w < MC_BI_THREADS / 32; w++)
        sum += part[w];
      costs[(size_t) cell * k + j] = sum;
    }
    __syncthreads ();
  }
}

/* ---- the calling thread's stream and buffers --------------------------- */

/* Buffers of a state: planes (BUF_A, BUF_B, BUF_OUT; the references of a
 * denoised plane from BUF_DN_REFS on, their half-sample planes from
 * BUF_DN_HP on), fields and weights, candidates and costs; BUF_DN_SIDE
 * holds a denoised plane's fields and weights in one upload. */
enum { BUF_A, BUF_B, BUF_OUT, BUF_CELLS, BUF_CELLS_B, BUF_WEIGHTS, BUF_CAND,
  BUF_COSTS, BUF_DN_SIDE, BUF_DN_REFS,
  BUF_DN_HP = BUF_DN_REFS + MC_DENOISE_MAX_REFS,
  N_BUFS = BUF_DN_HP + MC_DENOISE_MAX_REFS };

/* A caller's stream and buffers: a session it holds (mc.h), or the
 * calling thread's own. */
struct MCCudaSession {
  int device;
  cudaStream_t stream;
  void *buf[N_BUFS];
  size_t size[N_BUFS];
  /* page-locked staging for a denoised picture's fields and weights
   * (uploaded asynchronously, at full speed, once a picture) */
  void *pinned;
  size_t pinned_size;
};
typedef MCCudaSession ThreadState;

static void
state_release (ThreadState *st)
{
  for (int i = 0; i < N_BUFS; i++)
    cudaFree (st->buf[i]);
  if (st->pinned)
    cudaFreeHost (st->pinned);
  if (st->stream)
    cudaStreamDestroy (st->stream);
  cudaGetLastError ();
  g_free (st);
}

static void
state_free (gpointer data)
{
  ThreadState *st = (ThreadState *) data;
  if (!st)
    return;
  int cur = -1;
  cudaGetDevice (&cur);
  if (cur != st->device)
    cudaSetDevice (st->device);
  state_release (st);
  if (cur >= 0 && cur != st->device)
    cudaSetDevice (cur);
  cudaGetLastError ();
}

static ThreadState *
state_new (int device, GError **error)
{
  ThreadState *st = g_new0 (ThreadState, 1);
  st->device = device;
  if (!check (cudaStreamCreateWithFlags (&st->stream,
              cudaStreamNonBlocking), "cudaStreamCreateWithFlags", error)) {
    g_free (st);
    return NULL;
  }
  return st;
}

static GPrivate thread_state = G_PRIVATE_INIT (state_free);

/* The caller's session (opt->cuda_session), which must be of the current
 * device, else the calling thread's state on the current device. */
static ThreadState *
get_state (const MCOptions *opt, GError **error)
{
  int device;
  if (!check (cudaGetDevice (&device), "cudaGetDevice", error))
    return NULL;
  if (opt->cuda_session) {
    if (opt->cuda_session->device == device)
      return opt->cuda_session;
    g_set_error (error, MC_ERROR, MC_ERROR_INVALID, "cuda_session: made on "
        "device %d, used on device %d", opt->cuda_session->device, device);
    return NULL;
  }
  ThreadState *st = (ThreadState *) g_private_get (&thread_state);
  if (st && st->device == device)
    return st;
  /* another device now: the old buffers belong to the old one */
  g_private_replace (&thread_state, NULL);
  st = state_new (device, error);
  if (st)
    g_private_set (&thread_state, st);
  return st;
}

MCCudaSession *
mc_cuda_session_new (GError **error)
{
  int device;
  if (!check (cudaGetDevice (&device), "cudaGetDevice", error))
    return NULL;
  return state_new (device, error);
}

void
mc_cuda_session_free (MCCudaSession *session)
{
  if (session)
    state_release (session);
}

static void *
get_buf (ThreadState *st, int i, size_t size, GError **error)
{
  if (st->size[i] >= size)
    return st->buf[i];
  cudaFree (st->buf[i]);
  st->buf[i] = NULL;
  st->size[i] = 0;
  if (!check (cudaMalloc (&st->buf[i], size), "cudaMalloc", error))
    return NULL;
  st->size[i] = size;
  return st->buf[i];
}

/* ---- planes between host and device ----------------------------------- */

/* A host plane goes to the device as its row spans (mc_plane_row_span():
 * first sample to last, interleaved neighbours included), packed one after
 * the other, and keeps its pixel stride there.  An interleaved output
 * (pstride wider than a sample) is uploaded too before the kernel writes
 * its samples, and its spans come back whole: the neighbours' bytes return
 * as they were read, so writing NV12's U leaves V as it is.  Two calls
 * writing interleaved planes of one host buffer at the same time would
 * race on those bytes; the library's own calls (mc_interpolate_picture())
 * write the planes of a picture one after the other. */
static gboolean
interleaved (const MCPlane *p)
{
  return mc_plane_pstride (p) > mc_plane_bps (p);
}

/* A plane said to be in device memory must be memory of the current
 * device (or managed memory): a host pointer would fault in the kernel. */
static gboolean
check_device_plane (const MCPlane *p, int device, GError **error)
{
  cudaPointerAttributes attr;
  cudaError_t e = cudaPointerGetAttributes (&attr, p->data);
  if (e != cudaSuccess) {
    cudaGetLastError ();
    attr.type = cudaMemoryTypeUnregistered;
  }
  if (attr.type == cudaMemoryTypeManaged
      || (attr.type == cudaMemoryTypeDevice && attr.device == device))
    return TRUE;
  g_set_error (error, MC_ERROR, MC_ERROR_INVALID,
      "plane: marked as device memory, but %p is %s", (void *) p->data,
      attr.type == cudaMemoryTypeDevice ? "memory of another device"
      : "not CUDA device memory");
  return FALSE;
}

/* The device view of plane p: itself when in device memory, else buffer
 * `buf` of the state, the samples uploaded when `upload`. */
static gboolean
dev_plane (ThreadState *st, cudaStream_t stream, const MCPlane *p,
    gboolean device, int buf, gboolean upload, MCSPlane *dp, GError **error)
{
  dp->width = (int) p->width;
  dp->height = (int) p->height;
  dp->depth = (int) p->depth;
  dp->shift = (int) p->shift;
  dp->pstride = (int) mc_plane_pstride (p);
  if (device) {
    if (!check_device_plane (p, st->device, error))
      return FALSE;
    dp->data = p->data;
    dp->stride = p->stride;
    return TRUE;
  }
  const size_t rb = mc_plane_row_span (p);
  void *d = get_buf (st, buf, rb * p->height, error);
  if (!d)
    return FALSE;
  dp->data = (const uint8_t *) d;
  dp->stride = (ptrdiff_t) rb;
  if (upload)
    CHECK (cudaMemcpy2DAsync (d, rb, p->data, p->stride, rb, p->height,
            cudaMemcpyHostToDevice, stream), "upload of a plane");
  return TRUE;
}

static gboolean
download (cudaStream_t stream, const MCPlane *out, gboolean device,
    const MCSPlane *dp, GError **error)
{
  if (device)
    return TRUE;
  CHECK (cudaMemcpy2DAsync (out->data, out->stride, dp->data, dp->stride,
          mc_plane_row_span (out), out->height, cudaMemcpyDeviceToHost,
          stream), "download of a plane");
  return TRUE;
}

static gboolean
finish (cudaStream_t stream, GError **error)
{
  CHECK (cudaGetLastError (), "kernel launch");
  CHECK (cudaStreamSynchronize (stream), "motion compensation on the GPU");
  return TRUE;
}

/* finish(), but a plane of a picture before its last whose output is
 * device memory is not waited for: the next plane's work follows it on
 * the same stream, and the last plane's call waits for all. */
static gboolean
finish_plane (cudaStream_t stream, gboolean out_device, gboolean last,
    GError **error)
{
  if (!last && out_device) {
    CHECK (cudaGetLastError (), "kernel launch");
    return TRUE;
  }
  return finish (stream, error);
}

static MCSGrid
dev_grid (const MCGrid *g)
{
  MCSGrid d = { (int) g->bw, (int) g->bh, (int) g->ncols, (int) g->nrows };
  return d;
}

static const dim3 threads_2d (32, 8);

static dim3
blocks_2d (const MCPlane *p)
{
  return dim3 ((p->width + threads_2d.x - 1) / threads_2d.x,
      (p->height + threads_2d.y - 1) / threads_2d.y);
}

/* ---- the table --------------------------------------------------------- */

static gboolean
predict_plane_cuda (const MCPlane *ref, MCPlane *out, const MCField *field,
    const MCGrid *grid, unsigned sub_x, unsigned sub_y,
    const MCOptions *opt, GError **error)
{
  ThreadState *st = get_state (opt, error);
  if (!st)
    return FALSE;
  cudaStream_t stream = opt->cuda_stream ? (cudaStream_t) opt->cuda_stream
      : st->stream;
  MCSPlane dref, dout;
  const gboolean din = (opt->device & MC_DEVICE_INPUTS) != 0;
  const gboolean dout_dev = (opt->device & MC_DEVICE_OUTPUT) != 0;
  if (!dev_plane (st, stream, ref, din, BUF_A, TRUE, &dref, error)
      || !dev_plane (st, stream, out, dout_dev, BUF_OUT, interleaved (out),
          &dout, error))
    return FALSE;
  /* the cells of the blocks the grid uses, rows packed */
  const size_t fstride = field->stride ? field->stride : field->cols;
  const size_t cell = sizeof (GstMotionVectorCell);
  void *cells = get_buf (st, BUF_CELLS, cell * grid->ncols * grid->nrows,
      error);
  if (!cells)
    return FALSE;
  CHECK (cudaMemcpy2DAsync (cells, cell * grid->ncols, field->cells,
          cell * fstride, cell * grid->ncols, grid->nrows,
          cudaMemcpyHostToDevice, stream), "upload of the field");
  if (ref->depth > 8)
    mc_predict_kernel<2> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (dref, dout, (const GstMotionVectorCell *) cells, dev_grid (grid),
        (int) sub_x, (int) sub_y, opt->obmc ? 1 : 0);
  else
    mc_predict_kernel<1> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (dref, dout, (const GstMotionVectorCell *) cells, dev_grid (grid),
        (int) sub_x, (int) sub_y, opt->obmc ? 1 : 0);
  CHECK (cudaGetLastError (), "launch of the prediction kernel");
  return download (stream, out, dout_dev, &dout, error)
      && finish (stream, error);
}

static gboolean
blend_plane_cuda (const MCPlane *a, const MCPlane *b, MCPlane *out,
    const uint8_t *weights, size_t wstride, const MCGrid *grid,
    const MCOptions *opt, GError **error)
{
  ThreadState *st = get_state (opt, error);
  if (!st)
    return FALSE;
  cudaStream_t stream = opt->cuda_stream ? (cudaStream_t) opt->cuda_stream
      : st->stream;
  MCSPlane da, db, dout;
  const gboolean din = (opt->device & MC_DEVICE_INPUTS) != 0;
  const gboolean dout_dev = (opt->device & MC_DEVICE_OUTPUT) != 0;
  if (!dev_plane (st, stream, a, din, BUF_A, TRUE, &da, error)
      || !dev_plane (st, stream, b, din, BUF_B, TRUE, &db, error)
      || !dev_plane (st, stream, out, dout_dev, BUF_OUT, interleaved (out),
          &dout, error))
    return FALSE;
  void *w = get_buf (st, BUF_WEIGHTS, (size_t) grid->ncols * grid->nrows,
      error);
  if (!w)
    return FALSE;
  CHECK (cudaMemcpy2DAsync (w, grid->ncols, weights, wstride, grid->ncols,
          grid->nrows, cudaMemcpyHostToDevice, stream),
      "upload of the weights");
  if (a->depth > 8)
    mc_blend_kernel<2> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (da, db, dout, (const uint8_t *) w, dev_grid (grid),
        opt->obmc ? 1 : 0);
  else
    mc_blend_kernel<1> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (da, db, dout, (const uint8_t *) w, dev_grid (grid),
        opt->obmc ? 1 : 0);
  CHECK (cudaGetLastError (), "launch of the blend kernel");
  return download (stream, out, dout_dev, &dout, error)
      && finish (stream, error);
}

/* The cells of the blocks `grid` uses, rows packed, into buffer `buf`. */
static const GstMotionVectorCell *
upload_field (ThreadState *st, cudaStream_t stream, const MCField *field,
    const MCGrid *grid, int buf, GError **error)
{
  const size_t fstride = field->stride ? field->stride : field->cols;
  const size_t cell = sizeof (GstMotionVectorCell);
  void *cells = get_buf (st, buf, cell * grid->ncols * grid->nrows, error);
  if (!cells)
    return NULL;
  if (!check (cudaMemcpy2DAsync (cells, cell * grid->ncols, field->cells,
              cell * fstride, cell * grid->ncols, grid->nrows,
              cudaMemcpyHostToDevice, stream), "upload of a field", error))
    return NULL;
  return (const GstMotionVectorCell *) cells;
}

static gboolean
interpolate_plane_cuda (const MCPlane *prev, const MCPlane *next,
    MCPlane *out, const MCField *from_prev, const MCField *from_next,
    const uint8_t *weights, size_t wstride, const MCGrid *grid,
    unsigned sub_x, unsigned sub_y, const MCOptions *opt, GError **error)
{
  ThreadState *st = get_state (opt, error);
  if (!st)
    return FALSE;
  cudaStream_t stream = opt->cuda_stream ? (cudaStream_t) opt->cuda_stream
      : st->stream;
  MCSPlane dp, dn, dout;
  const gboolean din = (opt->device & MC_DEVICE_INPUTS) != 0;
  const gboolean dout_dev = (opt->device & MC_DEVICE_OUTPUT) != 0;
  if (!dev_plane (st, stream, prev, din, BUF_A, TRUE, &dp, error)
      || !dev_plane (st, stream, next, din, BUF_B, TRUE, &dn, error)
      || !dev_plane (st, stream, out, dout_dev, BUF_OUT, interleaved (out),
          &dout, error))
    return FALSE;
  const GstMotionVectorCell *cp = upload_field (st, stream, from_prev, grid,
      BUF_CELLS, error);
  const GstMotionVectorCell *cn = cp ? upload_field (st, stream, from_next,
      grid, BUF_CELLS_B, error) : NULL;
  if (!cn)
    return FALSE;
  void *w = get_buf (st, BUF_WEIGHTS, (size_t) grid->ncols * grid->nrows,
      error);
  if (!w)
    return FALSE;
  CHECK (cudaMemcpy2DAsync (w, grid->ncols, weights, wstride, grid->ncols,
          grid->nrows, cudaMemcpyHostToDevice, stream),
      "upload of the weights");
  if (prev->depth > 8)
    mc_interpolate_kernel<2> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (dp, dn, dout, cp, cn, (const uint8_t *) w, dev_grid (grid), (int) sub_x, (int) sub_y,
        opt->obmc ? 1 : 0);
  else
    mc_interpolate_kernel<1> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (dp, dn, dout, cp, cn, (const uint8_t *) w, dev_grid (grid), (int) sub_x, (int) sub_y,
        opt->obmc ? 1 : 0);
  CHECK (cudaGetLastError (), "launch of the interpolation kernel");
  return download (stream, out, dout_dev, &dout, error)
      && finish (stream, error);
}

/* Candidates up, one block a cell, costs down into the caller's array
 * (host memory, waited for). */
static gboolean
bilateral_costs_cuda (const MCPlane *prev, const MCPlane *next,
    const MCGrid *grid, const MCBiCand *cand, unsigned k, uint32_t *costs,
    const MCOptions *opt, GError **error)
{
  ThreadState *st = get_state (opt, error);
  if (!st)
    return FALSE;
  cudaStream_t stream = opt->cuda_stream ? (cudaStream_t) opt->cuda_stream
      : st->stream;
  MCSPlane dp, dn;
  const gboolean din = (opt->device & MC_DEVICE_INPUTS) != 0;
  if (!dev_plane (st, stream, prev, din, BUF_A, TRUE, &dp, error)
      || !dev_plane (st, stream, next, din, BUF_B, TRUE, &dn, error))
    return FALSE;
  const size_t n = (size_t) grid->ncols * grid->nrows;
  void *dc = get_buf (st, BUF_CAND, n * k * sizeof (MCBiCand), error);
  void *dk = dc ? get_buf (st, BUF_COSTS, n * k * sizeof (uint32_t), error)
      : NULL;
  if (!dk)
    return FALSE;
  CHECK (cudaMemcpyAsync (dc, cand, n * k * sizeof (MCBiCand),
          cudaMemcpyHostToDevice, stream), "upload of the candidates");
  if (prev->depth > 8)
    mc_bilateral_kernel<2> <<<(unsigned) n, MC_BI_THREADS, 0, stream>>>
        (dp, dn, dev_grid (grid), (const MCBiCand *) dc, (int) k,
        (uint32_t *) dk);
  else
    mc_bilateral_kernel<1> <<<(unsigned) n, MC_BI_THREADS, 0, stream>>>
        (dp, dn, dev_grid (grid), (const MCBiCand *) dc, (int) k,
        (uint32_t *) dk);
  CHECK (cudaGetLastError (), "launch of the bilateral-cost kernel");
  CHECK (cudaMemcpyAsync (costs, dk, n * k * sizeof (uint32_t),
          cudaMemcpyDeviceToHost, stream), "download of the costs");
  return finish (stream, error);
}

/* cur, the references and out where they are; every reference's cells
 * and weights packed into one host block and uploaded at once (a plane's
 * side data in one copy, not 2 n); one kernel. */
static gboolean
denoise_refs_cuda (const MCPlane *cur, const MCPlane *const *refs,
    const MCField *const *fields, const uint8_t *const *weights,
    unsigned n_refs, size_t wstride, MCPlane *out, const MCGrid *grid,
    unsigned sub_x, unsigned sub_y, unsigned plane, gboolean last,
    const MCOptions *opt, GError **error)
{
  ThreadState *st = get_state (opt, error);
  if (!st)
    return FALSE;
  cudaStream_t stream = opt->cuda_stream ? (cudaStream_t) opt->cuda_stream
      : st->stream;
  const gboolean din = (opt->device & MC_DEVICE_INPUTS) != 0;
  const gboolean dout_dev = (opt->device & MC_DEVICE_OUTPUT) != 0;
  MCSPlane dcur, dout;
  MCSDenoiseRefs dr;
  memset (&dr, 0, sizeof dr);
  dr.n = (int) n_refs;
  if (!dev_plane (st, stream, cur, din, BUF_A, TRUE, &dcur, error)
      || !dev_plane (st, stream, out, dout_dev, BUF_OUT, interleaved (out),
          &dout, error))
    return FALSE;
  for (unsigned i = 0; i < n_refs; i++)
    if (!dev_plane (st, stream, refs[i], din, BUF_DN_REFS + i, TRUE,
            &dr.ref[i], error))
      return FALSE;
  const size_t ncells = (size_t) grid->ncols * grid->nrows;
  const size_t cbytes = ncells * sizeof (GstMotionVectorCell);
  /* cells of every reference, then weights of every reference */
  const size_t wbase = cbytes * n_refs;
  const size_t total = wbase + ncells * n_refs;
  /* the first plane of a picture uploads them; the others find them in
   * the buffer (the calls of one picture come one after the other, and
   * each waited for its stream) */
  uint8_t *side = (uint8_t *) get_buf (st, BUF_DN_SIDE, total, error);
  if (!side)
    return FALSE;
  if (plane == 0) {
    /* nothing of an earlier call (one that failed half way) still reads
     * the staging */
    CHECK (cudaStreamSynchronize (stream), "motion compensation on the GPU");
    if (st->pinned_size < total) {
      if (st->pinned)
        cudaFreeHost (st->pinned);
      st->pinned = NULL;
      st->pinned_size = 0;
      CHECK (cudaMallocHost (&st->pinned, total), "cudaMallocHost");
      st->pinned_size = total;
    }
    uint8_t *host = (uint8_t *) st->pinned;
    for (unsigned i = 0; i < n_refs; i++) {
      const size_t fstride = fields[i]->stride ? fields[i]->stride
        : fields[i]->cols;
      GstMotionVectorCell *c = (GstMotionVectorCell *) (host + cbytes * i);
      for (unsigned r = 0; r < grid->nrows; r++) {
        memcpy (c + (size_t) r * grid->ncols, fields[i]->cells + r * fstride,
            grid->ncols * sizeof (GstMotionVectorCell));
        memcpy (host + wbase + ncells * i + (size_t) r * grid->ncols,
            weights[i] + r * wstride, grid->ncols);
      }
    }
    CHECK (cudaMemcpyAsync (side, host, total, cudaMemcpyHostToDevice,
            stream), "upload of the fields and weights");
  }
  for (unsigned i = 0; i < n_refs; i++) {
    dr.cells[i] = (const GstMotionVectorCell *) (side + cbytes * i);
    dr.weights[i] = side + wbase + ncells * i;
  }
  if (!sub_x && !sub_y) {
    /* luma: each reference's half-sample planes */
    const int hc = mc_s_hp_cols ((int) cur->width);
    const int hr = mc_s_hp_rows ((int) cur->height);
    const dim3 hb ((hc + threads_2d.x - 1) / threads_2d.x,
        (hr + threads_2d.y - 1) / threads_2d.y);
    const dim3 bb ((hc + threads_2d.x - 1) / threads_2d.x,
        (cur->height + threads_2d.y - 1) / threads_2d.y);
    for (unsigned i = 0; i < n_refs; i++) {
      /* the planes, then B1 after them in the same buffer */
      const size_t planes = 4 * sizeof (uint16_t) * (size_t) hc * hr;
      uint8_t *buf = (uint8_t *) get_buf (st, BUF_DN_HP + i, planes
          + sizeof (int32_t) * (size_t) hc * cur->height + 16, error);
      if (!buf)
        return FALSE;
      uint16_t *hp = (uint16_t *) buf;
      int32_t *b1 = (int32_t *) (buf + ((planes + 15) & ~(size_t) 15));
      dr.hp[i].p = hp;
      dr.hp[i].stride = hc;
      dr.hp[i].plane = (ptrdiff_t) hc * hr;
      dr.hp[i].w = (int) cur->width;
      dr.hp[i].h = (int) cur->height;
      if (cur->depth > 8) {
        mc_hp_b1_kernel<2> <<<bb, threads_2d, 0, stream>>> (dr.ref[i], b1,
            hc);
        mc_hp_kernel<2> <<<hb, threads_2d, 0, stream>>> (dr.ref[i], b1, hc,
            hp, hc, (ptrdiff_t) hc * hr);
      } else {
        mc_hp_b1_kernel<1> <<<bb, threads_2d, 0, stream>>> (dr.ref[i], b1,
            hc);
        mc_hp_kernel<1> <<<hb, threads_2d, 0, stream>>> (dr.ref[i], b1, hc,
            hp, hc, (ptrdiff_t) hc * hr);
      }
      CHECK (cudaGetLastError (), "launch of the half-sample kernel");
    }
  }
  if (cur->depth > 8)
    mc_denoise_kernel<2> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (dcur, dout, dr, dev_grid (grid), (int) sub_x, (int) sub_y,
        opt->obmc ? 1 : 0);
  else
    mc_denoise_kernel<1> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (dcur, dout, dr, dev_grid (grid), (int) sub_x, (int) sub_y,
        opt->obmc ? 1 : 0);
  CHECK (cudaGetLastError (), "launch of the denoising kernel");
  return download (stream, out, dout_dev, &dout, error)
      && finish_plane (stream, dout_dev, last, error);
}

static gboolean
warp_plane_cuda (const MCPlane *in, MCPlane *out, const MCWarp *w,
    const MCOptions *opt, GError **error)
{
  ThreadState *st = get_state (opt, error);
  if (!st)
    return FALSE;
  cudaStream_t stream = opt->cuda_stream ? (cudaStream_t) opt->cuda_stream
      : st->stream;
  MCSPlane din, dout;
  const gboolean in_dev = (opt->device & MC_DEVICE_INPUTS) != 0;
  const gboolean out_dev = (opt->device & MC_DEVICE_OUTPUT) != 0;
  if (!dev_plane (st, stream, in, in_dev, BUF_A, TRUE, &din, error)
      || !dev_plane (st, stream, out, out_dev, BUF_OUT, interleaved (out),
          &dout, error))
    return FALSE;
  MCSWarp sw = { w->xx, w->xy, w->yx, w->yy, w->x0, w->y0 };
  if (in->depth > 8)
    mc_warp_kernel<2> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (din, dout, sw);
  else
    mc_warp_kernel<1> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (din, dout, sw);
  CHECK (cudaGetLastError (), "launch of the warp kernel");
  return download (stream, out, out_dev, &dout, error)
      && finish (stream, error);
}

static gboolean
sigma_filter_plane_cuda (const MCPlane *in, MCPlane *out, unsigned radius,
    unsigned threshold, gboolean last, const MCOptions *opt, GError **error)
{
  ThreadState *st = get_state (opt, error);
  if (!st)
    return FALSE;
  cudaStream_t stream = opt->cuda_stream ? (cudaStream_t) opt->cuda_stream
      : st->stream;
  MCSPlane din, dout;
  const gboolean in_dev = (opt->device & MC_DEVICE_INPUTS) != 0;
  const gboolean out_dev = (opt->device & MC_DEVICE_OUTPUT) != 0;
  if (!dev_plane (st, stream, in, in_dev, BUF_A, TRUE, &din, error)
      || !dev_plane (st, stream, out, out_dev, BUF_OUT, interleaved (out),
          &dout, error))
    return FALSE;
  if (in->depth > 8)
    mc_sigma_kernel<2> <<<blocks_2d (out), threads_2d, 0, stream>>> (din,
        dout, (int) radius, (int) threshold);
  else
    mc_sigma_kernel<1> <<<blocks_2d (out), threads_2d, 0, stream>>> (din,
        dout, (int) radius, (int) threshold);
  CHECK (cudaGetLastError (), "launch of the spatial kernel");
  return download (stream, out, out_dev, &dout, error)
      && finish_plane (stream, out_dev, last, error);
}

const MCImpl *
mc_impl_cuda (GError **error)
{
  static const MCImpl impl = { "cuda", TRUE, predict_plane_cuda,
    blend_plane_cuda, interpolate_plane_cuda, bilateral_costs_cuda, NULL,
    denoise_refs_cuda, warp_plane_cuda,
    sigma_filter_plane_cuda };
  int count = 0, device = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError ();
    g_set_error (error, MC_ERROR, MC_ERROR_DEVICE,
        "no usable CUDA device: %s (%s)",
        e != cudaSuccess ? cudaGetErrorName (e) : "cudaErrorNoDevice",
        e != cudaSuccess ? cudaGetErrorString (e) : "no device found");
    return NULL;
  }
  if (!check (cudaGetDevice (&device), "cudaGetDevice", error))
    return NULL;
  /* a chip this build has no code for fails here, not in the first call */
  cudaFuncAttributes attr;
  e = cudaFuncGetAttributes (&attr, mc_predict_kernel<1>);
  if (e != cudaSuccess) {
    cudaDeviceProp prop;
    cudaGetLastError ();
    if (cudaGetDeviceProperties (&prop, device) != cudaSuccess) {
      cudaGetLastError ();
      g_strlcpy (prop.name, "?", sizeof (prop.name));
      prop.major = prop.minor = 0;
    }
    g_set_error (error, MC_ERROR, MC_ERROR_DEVICE,
        "CUDA device %d (%s, compute capability %d.%d) cannot run the "
        "motion-compensation kernels, built for %s: %s (%s)", device,
        prop.name, prop.major, prop.minor, ME_CUDA_BUILD_ARCHS,
        cudaGetErrorName (e), cudaGetErrorString (e));
    return NULL;
  }
  return &impl;
}

/* ---- device memory for callers without the CUDA headers ---------------- */

void *
mc_cuda_alloc (size_t size, GError **error)
{
  void *p = NULL;
  if (!check (cudaMalloc (&p, size ? size : 1), "cudaMalloc", error))
    return NULL;
  return p;
}

void
mc_cuda_free (void *ptr)
{
  if (ptr && cudaFree (ptr) != cudaSuccess)
    cudaGetLastError ();
}

gboolean
mc_cuda_copy (void *dst, const void *src, size_t size, GError **error)
{
  CHECK (cudaMemcpy (dst, src, size, cudaMemcpyDefault), "cudaMemcpy");
  /* cudaMemcpy from pageable memory may return before its DMA lands, and
   * the kernels run on streams of their own that do not wait for the
   * legacy default stream: the copy is complete when this returns. */
  CHECK (cudaDeviceSynchronize (), "cudaMemcpy");
  return TRUE;
}
