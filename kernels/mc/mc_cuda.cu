/* gpumotionest — motion compensation, the CUDA implementation.
 *
 * One thread per output sample.  A sample gathers what the C reference's
 * cell gathers for it (mc_c.c): the blocks of its cell and the neighbours
 * whose windows reach it (at most four with weights not zero), each
 * predicted at this sample by the rules of mc_rules.h, weighted by the
 * window product, summed in 32 bits and rounded by mc_obmc_round().  The
 * sum is of integers and cannot overflow (< 2^28), so the order of its
 * terms does not matter and every sample equals the reference's.  A
 * sample's prediction from one block does not depend on the rest of the
 * block: the C reference's patch is the clamped neighbourhood of each
 * sample, which a thread reads for itself.
 *
 * Planes in host memory go through device buffers of the calling thread
 * (2D copies on its stream); planes in device memory (MCOptions.device) are
 * read and written in place.  Fields and weights are uploaded each call.
 * Every call waits for its stream before it returns.
 */
#include <cuda_runtime.h>

#include "mc_impl.h"
#include "mc_rules.h"

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

#define MC_CU_MAX_BLOCK 16

typedef struct {
  const uint8_t *data;
  ptrdiff_t stride;
  int width;
  int height;
  int depth;
  int shift;
} DevPlane;

template <typename T>
static __device__ __forceinline__ int
dev_read (const DevPlane &p, int x, int y)
{
  const T *row = (const T *) (p.data + (ptrdiff_t) y * p.stride);
  if (sizeof (T) == 1)
    return row[x];
  return (row[x] >> p.shift) & ((1 << p.depth) - 1);
}

template <typename T>
static __device__ __forceinline__ void
dev_write (uint8_t *data, ptrdiff_t stride, int shift, int x, int y, int v)
{
  T *row = (T *) (data + (ptrdiff_t) y * stride);
  row[x] = (T) (sizeof (T) == 1 ? v : v << shift);
}

/* The window of the block d - 1 .. d + 1 (d 0 .. 2) around cell k at
 * sample i (0 .. len - 1) of the cell, as mc_c.c's window_1d(). */
static __device__ __forceinline__ int
dev_window (int n, int k, int count, int i, int d, int obmc)
{
  if (!obmc)
    return d == 1 ? MC_OBMC_ONE : 0;
  const int b = k + d - 1;
  if (b < 0 || b >= count)
    return 0;
  const int o = mc_obmc_margin (n);
  const int j = k * n + i - (b * n - o);
  if (j < 0 || j >= n + 2 * o)
    return 0;
  return mc_obmc_window (n, j, b == 0, b == count - 1);
}

/* The prediction of sample (x, y) with vector (mvx, mvy), quarter luma
 * samples: the luma rule on the clamped 7x7 neighbourhood, or the chroma
 * bilinear on its clamped four corners. */
template <typename T>
static __device__ __forceinline__ int
dev_predict (const DevPlane &ref, int x, int y, int mvx, int mvy, int sub_x,
    int sub_y)
{
  const int W = ref.width, H = ref.height;
  if (!sub_x && !sub_y) {
    const int fx = mvx & 3, fy = mvy & 3;
    const int ix = x + (mvx >> 2), iy = y + (mvy >> 2);
    if (!fx && !fy)
      return dev_read<T> (ref, mc_clamp (ix, W), mc_clamp (iy, H));
    enum { P = MC_TAP_BEFORE + 1 + MC_TAP_AFTER };
    uint16_t patch[P * P];
#pragma unroll
    for (int r = 0; r < P; r++) {
      const int yy = mc_clamp (iy - MC_TAP_BEFORE + r, H);
#pragma unroll
      for (int c = 0; c < P; c++)
        patch[r * P + c] = (uint16_t) dev_read<T> (ref,
            mc_clamp (ix - MC_TAP_BEFORE + c, W), yy);
    }
    return mc_luma_qpel (patch + MC_TAP_BEFORE * P + MC_TAP_BEFORE, P, fx,
        fy, (1 << ref.depth) - 1);
  }
  const int cx = mc_chroma_mv8 (mvx, sub_x), cy = mc_chroma_mv8 (mvy, sub_y);
  const int ix = x + (cx >> 3), iy = y + (cy >> 3);
  const int x0 = mc_clamp (ix, W), x1 = mc_clamp (ix + 1, W);
  const int y0 = mc_clamp (iy, H), y1 = mc_clamp (iy + 1, H);
  return mc_chroma_bilinear (dev_read<T> (ref, x0, y0),
      dev_read<T> (ref, x1, y0), dev_read<T> (ref, x0, y1),
      dev_read<T> (ref, x1, y1), cx & 7, cy & 7);
}

typedef struct {
  int bw, bh, ncols, nrows;
} DevGrid;

template <typename T>
__global__ void
mc_predict_kernel (DevPlane ref, uint8_t *out, ptrdiff_t out_stride,
    int out_shift, const GstMotionVectorCell *cells, int fstride, DevGrid g,
    int sub_x, int sub_y, int obmc)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= ref.width || y >= ref.height)
    return;
  const int c = x / g.bw, r = y / g.bh;
  const int i = x - c * g.bw, j = y - r * g.bh;
  uint32_t acc = 0;
  for (int dy = 0; dy < 3; dy++) {
    const int wy = dev_window (g.bh, r, g.nrows, j, dy, obmc);
    if (!wy)
      continue;
    for (int dx = 0; dx < 3; dx++) {
      const int wx = dev_window (g.bw, c, g.ncols, i, dx, obmc);
      if (!wx)
        continue;
      const GstMotionVectorCell *cell = cells + (size_t) (r + dy - 1)
          * fstride + (c + dx - 1);
      const int pred = dev_predict<T> (ref, x, y, cell->mv_x, cell->mv_y,
          sub_x, sub_y);
      acc += (uint32_t) (wy * wx) * (uint32_t) pred;
    }
  }
  dev_write<T> (out, out_stride, out_shift, x, y, mc_obmc_round (acc));
}

template <typename T>
__global__ void
mc_blend_kernel (DevPlane a, DevPlane b, uint8_t *out, ptrdiff_t out_stride,
    int out_shift, const uint8_t *weights, int wstride, DevGrid g, int obmc)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.width || y >= a.height)
    return;
  const int c = x / g.bw, r = y / g.bh;
  const int i = x - c * g.bw, j = y - r * g.bh;
  uint32_t acc = 0;
  for (int dy = 0; dy < 3; dy++) {
    const int wy = dev_window (g.bh, r, g.nrows, j, dy, obmc);
    if (!wy)
      continue;
    for (int dx = 0; dx < 3; dx++) {
      const int wx = dev_window (g.bw, c, g.ncols, i, dx, obmc);
      if (!wx)
        continue;
      acc += (uint32_t) (wy * wx) * (uint32_t) weights[(size_t) (r + dy - 1)
          * wstride + c + dx - 1];
    }
  }
  /* both read before the write: out may be a or b, sample for sample */
  const int sa = dev_read<T> (a, x, y), sb = dev_read<T> (b, x, y);
  dev_write<T> (out, out_stride, out_shift, x, y,
      mc_blend_sample (sa, sb, mc_blend_weight (acc)));
}

/* ---- the calling thread's stream and buffers --------------------------- */

enum { BUF_A, BUF_B, BUF_OUT, BUF_CELLS, BUF_WEIGHTS, N_BUFS };

typedef struct {
  int device;
  cudaStream_t stream;
  void *buf[N_BUFS];
  size_t size[N_BUFS];
} ThreadState;

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
  for (int i = 0; i < N_BUFS; i++)
    cudaFree (st->buf[i]);
  if (st->stream)
    cudaStreamDestroy (st->stream);
  if (cur >= 0 && cur != st->device)
    cudaSetDevice (cur);
  cudaGetLastError ();
  g_free (st);
}

static GPrivate thread_state = G_PRIVATE_INIT (state_free);

/* The calling thread's state on the current device. */
static ThreadState *
get_state (GError **error)
{
  int device;
  if (!check (cudaGetDevice (&device), "cudaGetDevice", error))
    return NULL;
  ThreadState *st = (ThreadState *) g_private_get (&thread_state);
  if (st && st->device == device)
    return st;
  /* another device now: the old buffers belong to the old one */
  g_private_replace (&thread_state, NULL);
  st = g_new0 (ThreadState, 1);
  st->device = device;
  if (!check (cudaStreamCreateWithFlags (&st->stream,
              cudaStreamNonBlocking), "cudaStreamCreateWithFlags", error)) {
    g_free (st);
    return NULL;
  }
  g_private_set (&thread_state, st);
  return st;
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

static size_t
row_bytes (const MCPlane *p)
{
  return (size_t) p->width * (p->depth > 8 ? 2 : 1);
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
    gboolean device, int buf, gboolean upload, DevPlane *dp, GError **error)
{
  dp->width = (int) p->width;
  dp->height = (int) p->height;
  dp->depth = (int) p->depth;
  dp->shift = (int) p->shift;
  if (device) {
    if (!check_device_plane (p, st->device, error))
      return FALSE;
    dp->data = p->data;
    dp->stride = p->stride;
    return TRUE;
  }
  const size_t rb = row_bytes (p);
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
    const DevPlane *dp, GError **error)
{
  if (device)
    return TRUE;
  CHECK (cudaMemcpy2DAsync (out->data, out->stride, dp->data, dp->stride,
          row_bytes (out), out->height, cudaMemcpyDeviceToHost, stream),
      "download of a plane");
  return TRUE;
}

static gboolean
finish (cudaStream_t stream, GError **error)
{
  CHECK (cudaGetLastError (), "kernel launch");
  CHECK (cudaStreamSynchronize (stream), "motion compensation on the GPU");
  return TRUE;
}

static DevGrid
dev_grid (const MCGrid *g)
{
  DevGrid d = { (int) g->bw, (int) g->bh, (int) g->ncols, (int) g->nrows };
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
  ThreadState *st = get_state (error);
  if (!st)
    return FALSE;
  cudaStream_t stream = opt->cuda_stream ? (cudaStream_t) opt->cuda_stream
      : st->stream;
  DevPlane dref, dout;
  const gboolean din = (opt->device & MC_DEVICE_INPUTS) != 0;
  const gboolean dout_dev = (opt->device & MC_DEVICE_OUTPUT) != 0;
  if (!dev_plane (st, stream, ref, din, BUF_A, TRUE, &dref, error)
      || !dev_plane (st, stream, out, dout_dev, BUF_OUT, FALSE, &dout, error))
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
    mc_predict_kernel<uint16_t> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (dref, (uint8_t *) dout.data, dout.stride, dout.shift,
        (const GstMotionVectorCell *) cells, (int) grid->ncols,
        dev_grid (grid), (int) sub_x, (int) sub_y, opt->obmc ? 1 : 0);
  else
    mc_predict_kernel<uint8_t> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (dref, (uint8_t *) dout.data, dout.stride, dout.shift,
        (const GstMotionVectorCell *) cells, (int) grid->ncols,
        dev_grid (grid), (int) sub_x, (int) sub_y, opt->obmc ? 1 : 0);
  CHECK (cudaGetLastError (), "launch of the prediction kernel");
  return download (stream, out, dout_dev, &dout, error)
      && finish (stream, error);
}

static gboolean
blend_plane_cuda (const MCPlane *a, const MCPlane *b, MCPlane *out,
    const uint8_t *weights, size_t wstride, const MCGrid *grid,
    const MCOptions *opt, GError **error)
{
  ThreadState *st = get_state (error);
  if (!st)
    return FALSE;
  cudaStream_t stream = opt->cuda_stream ? (cudaStream_t) opt->cuda_stream
      : st->stream;
  DevPlane da, db, dout;
  const gboolean din = (opt->device & MC_DEVICE_INPUTS) != 0;
  const gboolean dout_dev = (opt->device & MC_DEVICE_OUTPUT) != 0;
  if (!dev_plane (st, stream, a, din, BUF_A, TRUE, &da, error)
      || !dev_plane (st, stream, b, din, BUF_B, TRUE, &db, error)
      || !dev_plane (st, stream, out, dout_dev, BUF_OUT, FALSE, &dout, error))
    return FALSE;
  void *w = get_buf (st, BUF_WEIGHTS, (size_t) grid->ncols * grid->nrows,
      error);
  if (!w)
    return FALSE;
  CHECK (cudaMemcpy2DAsync (w, grid->ncols, weights, wstride, grid->ncols,
          grid->nrows, cudaMemcpyHostToDevice, stream),
      "upload of the weights");
  if (a->depth > 8)
    mc_blend_kernel<uint16_t> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (da, db, (uint8_t *) dout.data, dout.stride, dout.shift,
        (const uint8_t *) w, (int) grid->ncols, dev_grid (grid),
        opt->obmc ? 1 : 0);
  else
    mc_blend_kernel<uint8_t> <<<blocks_2d (out), threads_2d, 0, stream>>>
        (da, db, (uint8_t *) dout.data, dout.stride, dout.shift,
        (const uint8_t *) w, (int) grid->ncols, dev_grid (grid),
        opt->obmc ? 1 : 0);
  CHECK (cudaGetLastError (), "launch of the blend kernel");
  return download (stream, out, dout_dev, &dout, error)
      && finish (stream, error);
}

const MCImpl *
mc_impl_cuda (GError **error)
{
  static const MCImpl impl = { "cuda", TRUE, predict_plane_cuda,
    blend_plane_cuda };
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
  e = cudaFuncGetAttributes (&attr, mc_predict_kernel<uint8_t>);
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
  return TRUE;
}
