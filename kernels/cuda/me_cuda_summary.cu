/* gpumotionest — the motion summary's core, reduced on the device
 * (me_cuda_summary.h).
 *
 * One thread block of SUM_THREADS threads does, step for step, what
 * gst_motion_vector_summary_compute_grid_core() does on the host
 * (gst/motionvectors/gstmotionvectorsummary.c):
 *
 *   1. the counted blocks in raster order (they form the grid's top-left
 *      rectangle, so each one's place is known), their costs' sum and
 *      median;
 *   2. the matched blocks among them, again in raster order, since the
 *      first model's medians sample every step-th of them (a block-wide
 *      scan gives each its place);
 *   3. the medians of the first model: translation, the far blocks' zoom
 *      and rotation, translation again;
 *   4. least squares over the agreeing blocks, twice, and the count.
 *
 * A median is the element of a rank, whichever algorithm finds it: here
 * a radix selection whose 4096 bins live in shared memory, narrowing to
 * the bin that holds the rank until one value is left, as on the host
 * but with the elements compacted in any order.  Sums are exact 64-bit
 * integers; the solve is the host's own function (summary-rules.h), run
 * by every thread on the same sums, so the branches it decides are the
 * same in all of them.  This file is compiled with -fmad=false: the
 * solve's and the projections' double operations round as on the host.
 */
#include <cuda_runtime.h>
#include <glib.h>

#include "me_cuda_summary.h"

/* Threads of the one block: a quarter of an SM's, so that the block finds
 * room beside the searches of other frames rather than waiting for an SM
 * of its own.  Measured on an H100, 1080p, full search R = 16 from CUDA
 * memory: 1024 threads kept the element at 5,106 frames/s with the
 * summary, 256 at 9,920 (docs/summary.md, "On the GPU"). */
#ifndef SUM_THREADS
#define SUM_THREADS 256
#endif
#define SUM_WARPS (SUM_THREADS / 32)
#define SELECT_BITS 12
#define SELECT_BINS (1 << SELECT_BITS)

static_assert (SUM_WARPS <= 32 && SUM_THREADS % 32 == 0,
    "one warp scans the warps' totals");
static_assert (SELECT_BINS % SUM_THREADS == 0, "bins split evenly");

typedef struct {
  uint32_t hist[SELECT_BINS];
  uint32_t warp_u32[SUM_WARPS];
  long long lo, hi;
  unsigned long long acc[8];
  uint32_t count;
  uint32_t bin, below;
  uint32_t cols_counted, rows_counted;
} SumShared;

/* The exclusive prefix of `v` over the block in thread order; `*total`
 * the block's sum.  Every thread calls it. */
static __device__ uint32_t
block_scan (uint32_t v, uint32_t *total, SumShared &sh)
{
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t x = v;

  for (int o = 1; o < 32; o <<= 1) {
    const uint32_t y = __shfl_up_sync (0xffffffffu, x, o);
    if (lane >= (unsigned)o)
      x += y;
  }
  if (lane == 31)
    sh.warp_u32[warp] = x;
  __syncthreads ();
  if (warp == 0) {
    uint32_t w = lane < SUM_WARPS ? sh.warp_u32[lane] : 0;
    for (int o = 1; o < 32; o <<= 1) {
      const uint32_t y = __shfl_up_sync (0xffffffffu, w, o);
      if (lane >= (unsigned)o)
        w += y;
    }
    if (lane < SUM_WARPS)
      sh.warp_u32[lane] = w;
  }
  __syncthreads ();
  const uint32_t before = (warp ? sh.warp_u32[warp - 1] : 0) + x - v;
  *total = sh.warp_u32[SUM_WARPS - 1];
  __syncthreads ();
  return before;
}

/* The place of this thread's element among those of the block with
 * `pred`, in no particular order, counted in `*counter` (shared, reset
 * by the caller).  Every thread of every warp calls it. */
static __device__ uint32_t
warp_append (bool pred, uint32_t *counter)
{
  const unsigned mask = __ballot_sync (0xffffffffu, pred);
  const unsigned lane = threadIdx.x & 31;
  const int leader = mask ? __ffs (mask) - 1 : 0;
  uint32_t base = 0;

  if (mask && lane == (unsigned)leader)
    base = atomicAdd (counter, (uint32_t)__popc (mask));
  base = __shfl_sync (0xffffffffu, base, leader);
  return base + (uint32_t)__popc (mask & ((1u << lane) - 1));
}

/* `v` of the lane `o` apart (xor), moved as two 32-bit words: the 64-bit
 * forms of the shuffles gave wrong values here where int64_t is a long
 * (measured on an H100). */
static __device__ int64_t
shfl_xor64 (int64_t v, int o)
{
  const uint32_t lo = __shfl_xor_sync (0xffffffffu, (uint32_t)(uint64_t)v, o);
  const uint32_t hi = __shfl_xor_sync (0xffffffffu,
      (uint32_t)((uint64_t)v >> 32), o);
  return (int64_t)(((uint64_t)hi << 32) | lo);
}

/* The block's minimum of `lo` and maximum of `hi`, in every thread: each
 * warp's, then one atomic a warp on shared words.  A thread that saw no
 * element holds lo > hi. */
static __device__ void
block_min_max (int64_t &lo, int64_t &hi, SumShared &sh)
{
  if (threadIdx.x == 0) {
    sh.lo = INT64_MAX;
    sh.hi = INT64_MIN;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const int64_t l = shfl_xor64 (lo, o), h = shfl_xor64 (hi, o);
    lo = l < lo ? l : lo;
    hi = h > hi ? h : hi;
  }
  __syncthreads ();
  if ((threadIdx.x & 31) == 0 && lo <= hi) {
    atomicMin (&sh.lo, (long long)lo);
    atomicMax (&sh.hi, (long long)hi);
  }
  __syncthreads ();
  lo = sh.lo;
  hi = sh.hi;
  __syncthreads ();
}

/* The block's sums of the `n` (at most 8) values `v`, in every thread;
 * two's-complement addition, so signed values sum exactly. */
static __device__ void
block_sums (int64_t *v, int n, SumShared &sh)
{
  if (threadIdx.x < 8)
    sh.acc[threadIdx.x] = 0;
  for (int i = 0; i < n; i++)
    for (int o = 16; o > 0; o >>= 1)
      v[i] += shfl_xor64 (v[i], o);
  __syncthreads ();
  if ((threadIdx.x & 31) == 0)
    for (int i = 0; i < n; i++)
      atomicAdd (&sh.acc[i], (unsigned long long)v[i]);
  __syncthreads ();
  for (int i = 0; i < n; i++)
    v[i] = (int64_t)sh.acc[i];
  __syncthreads ();
}

/* The element of rank `k` of a[0..n-1], n > 0; a and tmp (n words each)
 * are overwritten.  Every thread calls it and gets the value. */
static __device__ int64_t
select_rank (int64_t *a, int64_t *tmp, uint32_t n, uint32_t k, SumShared &sh)
{
  const unsigned t = threadIdx.x;

  for (;;) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t i = t; i < n; i += SUM_THREADS) {
      const int64_t v = a[i];
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    block_min_max (lo, hi, sh);
    const uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span == 0)
      return lo;
    const unsigned bits = 64 - __clzll ((long long)span);
    const unsigned shift = bits > SELECT_BITS ? bits - SELECT_BITS : 0;

    for (unsigned b = t; b < SELECT_BINS; b += SUM_THREADS)
      sh.hist[b] = 0;
    __syncthreads ();
    for (uint32_t i = t; i < n; i += SUM_THREADS)
      atomicAdd (&sh.hist[((uint64_t)a[i] - (uint64_t)lo) >> shift], 1u);
    __syncthreads ();

    /* the first bin whose running count passes k: each thread holds
     * SELECT_BINS / SUM_THREADS bins */
    const unsigned per = SELECT_BINS / SUM_THREADS;
    uint32_t mine = 0, total;
    for (unsigned b = 0; b < per; b++)
      mine += sh.hist[t * per + b];
    uint32_t below = block_scan (mine, &total, sh);
    if (below <= k && k < below + mine) {
      unsigned b = t * per;
      while (below + sh.hist[b] <= k)
        below += sh.hist[b++];
      sh.bin = b;
      sh.below = below;
    }
    __syncthreads ();
    const uint32_t bin = sh.bin;
    below = sh.below;
    if (shift == 0)
      return lo + bin;

    if (t == 0)
      sh.count = 0;
    __syncthreads ();
    for (uint32_t base = 0; base < n; base += SUM_THREADS) {
      const uint32_t i = base + t;
      const bool keep = i < n
          && (((uint64_t)a[i] - (uint64_t)lo) >> shift) == bin;
      const uint32_t pos = warp_append (keep, &sh.count);
      if (keep)
        tmp[pos] = a[i];
    }
    __syncthreads ();
    n = sh.count;
    k -= below;
    int64_t *swap = a;
    a = tmp;
    tmp = swap;
    __syncthreads ();
  }
}

/* The sums over the blocks b[0..n-1] that agree with `m`, and each one's
 * agreement in `agree` (against 0 when `first`); returns, in every
 * thread, whether any agreement changed. */
static __device__ bool
gather (const MvsBlock *b, uint32_t n, const MvsModel &m, uint8_t *agree,
    bool first, MvsSums &out, SumShared &sh)
{
  MvsSums s = { 0, 0, 0, 0, 0, 0, 0, 0 };
  int changed = 0;

  for (uint32_t i = threadIdx.x; i < n; i += SUM_THREADS) {
    const MvsBlock bl = b[i];
    const uint8_t a = (uint8_t)mvs_agrees (&m, &bl);
    changed |= a ^ (first ? 0 : agree[i]);
    agree[i] = a;
    if (a)
      mvs_sums_add (&s, &bl);
  }
  int64_t v[8] = { s.cnt, s.sdx, s.sdy, s.svx, s.svy, s.sdd, s.sdv, s.scr };
  block_sums (v, 8, sh);
  out.cnt = v[0];
  out.sdx = v[1];
  out.sdy = v[2];
  out.svx = v[3];
  out.svy = v[4];
  out.sdd = v[5];
  out.sdv = v[6];
  out.scr = v[7];
  return __syncthreads_or (changed) != 0;
}

typedef struct {
  MvsBlock *counted, *matched;
  int64_t *va, *vb, *vc;
  uint8_t *agree;
} Scratch;

static __global__ void __launch_bounds__ (SUM_THREADS)
summary_kernel (const GstMotionVectorCell *cells, MvsGeometry g,
    uint32_t partition, Scratch w, MvsCore *core)
{
  __shared__ SumShared sh;
  const uint32_t t = threadIdx.x;

  /* 1. the counted blocks: the columns and rows whose centres lie in the
   * frame, and the first of each (mvs_read_block()), a rectangle */
  if (t == 0) {
    sh.cols_counted = 1;
    sh.rows_counted = 1;
  }
  __syncthreads ();
  for (uint32_t c = t; c < g.cols; c += SUM_THREADS)
    if (mvs_read_block (&g, c, 0, 0, 0, 0).counted)
      atomicMax (&sh.cols_counted, c + 1);
  for (uint32_t r = t; r < g.rows; r += SUM_THREADS)
    if (mvs_read_block (&g, 0, r, 0, 0, 0).counted)
      atomicMax (&sh.rows_counted, r + 1);
  __syncthreads ();
  const uint32_t cols_c = sh.cols_counted;
  const uint32_t n = cols_c * sh.rows_counted;
  int64_t cost_sum = 0;
  for (uint32_t i = t; i < n; i += SUM_THREADS) {
    const uint32_t c = i % cols_c, r = i / cols_c;
    const GstMotionVectorCell cell = cells[(size_t)r * g.cols + c];
    const MvsBlock b = mvs_read_block (&g, c, r, cell.mv_x, cell.mv_y,
        cell.cost);
    w.counted[i] = b;
    w.va[i] = b.cost;
    cost_sum += b.cost;
  }
  block_sums (&cost_sum, 1, sh);
  const int64_t med = select_rank (w.va, w.vb, n, (n - 1) / 2, sh);

  /* 2. the matched blocks, in raster order: a tile of the block's width
   * at a time, each placed by a block-wide scan (coalesced reads) */
  uint32_t nm = 0;
  for (uint32_t base = 0; base < n; base += SUM_THREADS) {
    const uint32_t i = base + t;
    MvsBlock b = { 0, 0, 0, 0, 0, 0 };
    bool matched = false;
    if (i < n) {
      b = w.counted[i];
      matched = !mvs_unmatched (&b, (uint64_t)med, g.level);
    }
    uint32_t total;
    const uint32_t pos = nm + block_scan (matched, &total, sh);
    if (matched)
      w.matched[pos] = b;
    nm += total;
  }
  __syncthreads ();

  /* 3. the first model, from the medians of every step-th matched block */
  const uint32_t step = nm / MVS_MEDIAN_SAMPLE > 1 ? nm / MVS_MEDIAN_SAMPLE : 1;
  const uint32_t ns = (nm + step - 1) / step;
  MvsModel m = { 0, 0, 0, 0 };
  for (uint32_t j = t; j < ns; j += SUM_THREADS) {
    w.va[j] = (int64_t)w.matched[j * step].vx * MVS_T_ONE;
    w.vb[j] = (int64_t)w.matched[j * step].vy * MVS_T_ONE;
  }
  __syncthreads ();
  m.tx = select_rank (w.va, w.vc, ns, (ns - 1) / 2, sh);
  m.ty = select_rank (w.vb, w.vc, ns, (ns - 1) / 2, sh);

  if (t == 0)
    sh.count = 0;
  __syncthreads ();
  for (uint32_t base = 0; base < ns; base += SUM_THREADS) {
    const uint32_t j = base + t;
    int64_t k = 0, r = 0;
    const bool far = j < ns && mvs_far_projection (&w.matched[j * step],
        m.tx, m.ty, g.far2, &k, &r);
    const uint32_t pos = warp_append (far, &sh.count);
    if (far) {
      w.va[pos] = k;
      w.vb[pos] = r;
    }
  }
  __syncthreads ();
  const uint32_t n_far = sh.count;
  __syncthreads ();
  int similarity = n_far >= MVS_MIN_SIMILARITY_BLOCKS;
  if (similarity) {
    m.k = select_rank (w.va, w.vc, n_far, (n_far - 1) / 2, sh);
    m.r = select_rank (w.vb, w.vc, n_far, (n_far - 1) / 2, sh);
    for (uint32_t j = t; j < ns; j += SUM_THREADS)
      mvs_translation_vote (&m, &w.matched[j * step], &w.va[j], &w.vb[j]);
    __syncthreads ();
    const int64_t tx = select_rank (w.va, w.vc, ns, (ns - 1) / 2, sh);
    const int64_t ty = select_rank (w.vb, w.vc, ns, (ns - 1) / 2, sh);
    m.tx = tx;
    m.ty = ty;
  }

  /* 4. two C-steps of least squares (gstmotionvectorsummary.c) */
  MvsSums sums;
  gather (w.matched, nm, m, w.agree, true, sums, sh);
  bool agree_valid = true;
  for (int pass = 0; pass < 2; pass++) {
    int fitted = 0;
    if (!mvs_solve (&sums, similarity, g.spread2, &m, &fitted))
      break;
    similarity = fitted;
    agree_valid = false;
    if (pass == 0) {
      agree_valid = true;
      if (!gather (w.matched, nm, m, w.agree, false, sums, sh))
        break;
    }
  }
  similarity = mvs_similarity_kept (similarity, &m);
  if (!similarity) {
    if (m.k != 0 || m.r != 0)
      agree_valid = false;
    m.k = m.r = 0;
  }
  /* the agreeing count is the last gathering's */
  if (!agree_valid)
    gather (w.matched, nm, m, w.agree, false, sums, sh);

  if (t == 0) {
    MvsCore c;
    memset (&c, 0, sizeof (c));
    c.valid = 1;
    c.partition = partition;
    c.blocks = n;
    c.matched = nm;
    c.agree = (uint32_t)sums.cnt;
    c.similarity = similarity != 0;
    c.median = med;
    c.cost_sum = (uint64_t)cost_sum;
    c.tx = m.tx;
    c.ty = m.ty;
    c.k = m.k;
    c.r = m.r;
    c.geometry = g;
    *core = c;
  }
}

/* counted and matched blocks, three word arrays, a byte each */
size_t
me_cuda_summary_scratch_bytes (size_t n_blocks)
{
  return n_blocks * (2 * sizeof (MvsBlock) + 3 * sizeof (int64_t) + 1);
}

int
me_cuda_launch_summary (const GstMotionVectorCell *cells, const MvsGeometry *g,
    unsigned partition, void *scratch, MvsCore *core, void *stream)
{
  const size_t n = (size_t)g->cols * g->rows;
  if (n == 0)
    return cudaErrorInvalidValue;
  Scratch w;
  w.counted = (MvsBlock *)scratch;
  w.matched = w.counted + n;
  w.va = (int64_t *)(w.matched + n);
  w.vb = w.va + n;
  w.vc = w.vb + n;
  w.agree = (uint8_t *)(w.vc + n);
  summary_kernel<<<1, SUM_THREADS, 0, (cudaStream_t)stream>>> (cells, *g,
      partition, w, core);
  return cudaGetLastError ();
}

gboolean
me_cuda_summary_on_device (const GstMotionVectorCell *cells,
    const MvsGeometry *g, unsigned partition, MvsCore *core, char **error)
{
  const size_t n = (size_t)g->cols * g->rows;
  GstMotionVectorCell *dcells = NULL;
  void *work = NULL;
  MvsCore *dcore = NULL;
  const char *what = "cudaMalloc";
  cudaError_t e = cudaMalloc ((void **)&dcells, n * sizeof (*dcells));
  if (e == cudaSuccess)
    e = cudaMalloc (&work, me_cuda_summary_scratch_bytes (n));
  if (e == cudaSuccess)
    e = cudaMalloc ((void **)&dcore, sizeof (MvsCore));
  if (e == cudaSuccess) {
    what = "cudaMemcpy";
    e = cudaMemcpy (dcells, cells, n * sizeof (*dcells),
        cudaMemcpyHostToDevice);
  }
  if (e == cudaSuccess) {
    what = "summary kernel";
    e = (cudaError_t)me_cuda_launch_summary (dcells, g, partition, work,
        dcore, NULL);
  }
  if (e == cudaSuccess) {
    what = "cudaMemcpy";
    e = cudaMemcpy (core, dcore, sizeof (MvsCore), cudaMemcpyDeviceToHost);
  }
  cudaFree (dcells);
  cudaFree (work);
  cudaFree (dcore);
  if (e != cudaSuccess) {
    *error = g_strdup_printf ("%s: %s", what, cudaGetErrorString (e));
    return FALSE;
  }
  return TRUE;
}
