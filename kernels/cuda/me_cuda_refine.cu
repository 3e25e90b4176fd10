/* gpumotionest — stage 3 on the GPU: the half-sample planes of the
 * reference and the sub-pel refinement of every block (me_search.h), by the
 * rules the CPU uses (subpel_rules.h), so that both give the same keys.
 *
 * The half-sample planes H, V, C are laid out as the device frame is
 * (me_cuda_kernels.h) and computed where the refinement and the rate
 * decision of a search of range R read: candidates within +-(R + 1)
 * pixels, whose rows of four (read as two aligned words) start up to 4
 * pixels further left and end up to 4 further right, plus a margin; the
 * rest of a plane is never read, so it is left as it is (a 4x4 block at
 * 1080p and R = 32 needs 55 % of the planes ME_CUDA_PAD would give).
 *
 * Refinement: a group of lanes per block of every requested grid (a whole
 * warp for 8x8 and larger, 8 or 16 lanes for the small shapes, so that a
 * warp refines 4 or 2 of them).  The block's 4x4 sub-blocks (n4 = 1 .. 16)
 * are shared out to n4 lanes, so a group costs several candidates at once:
 * each lane computes the SAD or SATD of its sub-block for its candidate,
 * reading four pixels per load, the lanes of a candidate add theirs with
 * shuffles, and the group keeps the smallest me_key_qpel().  The first round
 * holds the integer winner and its 8 half-pel neighbours, the second the 8
 * quarter-pel neighbours of the best.  The refined key replaces the integer
 * one in place; the finish kernel runs after it.
 *
 * Every kernel is a template over the sample type (me_cuda_pixel.cuh).  For
 * 16-bit samples the planes are computed by me_hpel_{h,v,c}_16() clipped to
 * the depth's largest sample, a row of four samples is two words (loaded as
 * three aligned words and two funnel shifts), the quarter samples are the
 * same rounded-up means per halfword, and the SATD is me_satd4x4() itself
 * on the int differences (the packed form below needs values of 16 signed
 * bits, which differences of 16-bit samples exceed).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_cuda_kernels.h"
#include "me_rate.h"
#include "me_search.h"
#include "mvpred_rules.h"
#include "subpel_rules.h"
#include "me_cuda_pixel.cuh"

#define HPEL_THREADS 256
#define REFINE_WARPS 8 /* warps per thread block */
#define FULL_MASK 0xffffffffu

/* ---- the half-sample planes --------------------------------------------- */

/* `row` is the samples per buffer row (the pitch over the sample size);
 * positions are in samples. */
template <typename pixel>
__global__ void
__launch_bounds__ (HPEL_THREADS) hpel_kernel (const uint8_t *__restrict__ fb,
    uint8_t *__restrict__ hpb, size_t row, size_t rows, size_t x0,
    size_t x1, size_t y0, int maxv)
{
  const size_t x = (size_t)blockIdx.x * HPEL_THREADS + threadIdx.x + x0;
  const size_t y = (size_t)blockIdx.y + y0;
  if (x >= x1)
    return;
  const pixel *f = (const pixel *)fb;
  pixel *hp = (pixel *)hpb;
  const size_t o = y * row + x, plane = row * rows;
  if constexpr (sizeof (pixel) == 1) {
    hp[o] = me_hpel_h (f + o, (ptrdiff_t)row);
    hp[plane + o] = me_hpel_v (f + o, (ptrdiff_t)row);
    hp[2 * plane + o] = me_hpel_c (f + o, (ptrdiff_t)row);
  } else {
    hp[o] = me_hpel_h_16 (f + o, (ptrdiff_t)row, maxv);
    hp[plane + o] = me_hpel_v_16 (f + o, (ptrdiff_t)row, maxv);
    hp[2 * plane + o] = me_hpel_c_16 (f + o, (ptrdiff_t)row, maxv);
  }
}

cudaError_t
me_cuda_launch_hpel (const uint8_t *ref, uint8_t *hpel,
    const MECudaGeometry *g, unsigned range, int maxv, cudaStream_t stream)
{
  /* buffer positions read at range R (the header comment), 8 pixels more,
   * within those whose 6 taps lie in the buffer: 2 .. row - 4 (samples) */
  const size_t row = g->pitch / g->bps;
  const size_t reach = (size_t)range + 8;
  const size_t x0 = MAX ((size_t)2, ME_CUDA_PAD - reach);
  const size_t y0 = MAX ((size_t)2, ME_CUDA_PAD - reach);
  const size_t x1 =
      MIN (row - 3, ME_CUDA_PAD + (size_t)g->mb_cols * 16 + reach + 1);
  const size_t y1 =
      MIN (g->rows - 3, ME_CUDA_PAD + (size_t)g->mb_rows * 16 + reach + 1);
  const dim3 grid ((unsigned)((x1 - x0 + HPEL_THREADS - 1) / HPEL_THREADS),
      (unsigned)(y1 - y0));
  if (g->bps == 2)
    hpel_kernel<uint16_t><<<grid, HPEL_THREADS, 0, stream>>> (
        ref, hpel, row, g->rows, x0, x1, y0, maxv);
  else
    hpel_kernel<uint8_t><<<grid, HPEL_THREADS, 0, stream>>> (
        ref, hpel, row, g->rows, x0, x1, y0, maxv);
  return cudaGetLastError ();
}

/* ---- refinement ----------------------------------------------------------- */

typedef struct {
  const uint8_t *cur;      /* pixel (0, 0) of the current frame */
  const uint8_t *plane[4]; /* pixel (0, 0) of F, H, V, C of the reference */
  size_t plane_step;       /* from H to V and from V to C */
  size_t pitch;
  uint64_t *keys[GST_MOTION_VECTOR_PARTITION_COUNT]; /* integer winners */
  uint64_t *out[GST_MOTION_VECTOR_PARTITION_COUNT];  /* refined keys */
  /* with lambda: the zero vector's distortion per block (and `keys` gets
   * W re-costed by the metric), for the rate decision */
  uint32_t *zero[GST_MOTION_VECTOR_PARTITION_COUNT];
  unsigned cells[GST_MOTION_VECTOR_PARTITION_COUNT];
  unsigned first[GST_MOTION_VECTOR_PARTITION_COUNT + 1]; /* warp ranges */
  unsigned mb_cols;
  int refine, satd;
  int range4, range4_y; /* the window, in quarter pixels */
} RefineArgs;

/* Lanes given to one block: 8 candidate slots of n4 lanes, at most a warp
 * (n4 = number of its 4x4 sub-blocks, a power of two).  A round of 8 or 9
 * candidates then takes one or two passes whatever the shape, and small
 * blocks share a warp instead of leaving most of it idle. */
static __host__ __device__ constexpr int
group_lanes (int n4)
{
  return n4 >= 4 ? 32 : 8 * n4;
}

/* Words of a row of four samples: 1 for bytes, 2 for 16-bit samples. */
template <typename pixel>
struct Row4 {
  static constexpr int N = 4 / MePix<pixel>::PW;
};

/* Four samples from any address (of a sample): two aligned words and a
 * funnel shift for bytes, three and two for 16-bit samples (the planes
 * have a border, so the word after is always readable). */
template <typename pixel>
static __device__ __forceinline__ void
load4 (const uint8_t *p, uint32_t (&q)[Row4<pixel>::N])
{
  const uintptr_t a = (uintptr_t)p;
  const uint32_t *w = (const uint32_t *)(a & ~(uintptr_t)3);
  if constexpr (sizeof (pixel) == 1) {
    q[0] = __funnelshift_r (__ldg (w), __ldg (w + 1), (unsigned)(a & 3) * 8);
  } else {
    const uint32_t w0 = __ldg (w), w1 = __ldg (w + 1), w2 = __ldg (w + 2);
    const unsigned sh = (unsigned)(a & 3) * 8; /* 0 or 16 */
    q[0] = __funnelshift_r (w0, w1, sh);
    q[1] = __funnelshift_r (w1, w2, sh);
  }
}

/* (a + b + 1) >> 1 of every sample of the words: __vavgu4 for bytes; for
 * halfwords (a | b) - ((a ^ b) >> 1), lane by lane (the mask drops the bit
 * the shift moves from the high lane into the low one; the difference
 * never borrows across lanes, as a | b >= (a ^ b) >> 1 in each). */
template <typename pixel>
static __device__ __forceinline__ uint32_t
avg_up (uint32_t a, uint32_t b)
{
  if constexpr (sizeof (pixel) == 1)
    return __vavgu4 (a, b);
  else
    return (a | b) - (((a ^ b) >> 1) & 0x7fff7fffu);
}

/* me_subpel_pair() as four words of constants, one per fy, a byte per fx:
 * a lookup of a few instructions where the switch would branch. */
static __device__ __forceinline__ unsigned
subpel_pair (int fx, int fy)
{
  uint32_t w[4];
#pragma unroll
  for (int j = 0; j < 4; j++) {
    w[j] = 0;
#pragma unroll
    for (int k = 0; k < 4; k++)
      w[j] |= me_subpel_pair (k, j) << (8 * k);
  }
  const uint32_t row = fy < 2 ? (fy == 0 ? w[0] : w[1])
                              : (fy == 2 ? w[2] : w[3]);
  return (row >> (8 * fx)) & 255u;
}

/* Sample plane v of the reference (F, or H, V, C one after another). */
static __device__ __forceinline__ const uint8_t *
plane_of (const RefineArgs &a, unsigned v)
{
  const unsigned k = ME_SP_PLANE (v);
  return k == ME_HPEL_F ? a.plane[ME_HPEL_F]
                        : a.plane[ME_HPEL_H] + (size_t)(k - 1) * a.plane_step;
}

/* The current frame's 4x4 block at (x0, y0) (x0 a multiple of 4, so the
 * row is 4-byte aligned for bytes, 8-byte aligned for 16-bit samples). */
template <typename pixel>
static __device__ __forceinline__ void
load_cur (const RefineArgs &a, int x0, int y0,
    uint32_t (&cw)[4][Row4<pixel>::N])
{
  const uint8_t *c =
      a.cur + y0 * (int)a.pitch + x0 * (int)sizeof (pixel);
#pragma unroll
  for (int y = 0; y < 4; y++)
    me_pix_aligned_words<Row4<pixel>::N> (c + y * (int)a.pitch, cw[y]);
}

/* The prediction of the 4x4 block at (x0, y0) by the quarter-pel vector
 * (qx, qy): rows of four pixels, each the rounded-up mean (__vavgu4) of
 * the two samples me_subpel_pair() names.  Whole and half positions name
 * one sample twice, and the mean of a sample with itself is the sample, so
 * they read one plane: within a ring every candidate is of the same kind,
 * so the branch does not split a warp. */
template <typename pixel>
static __device__ __forceinline__ void
predict4x4 (const RefineArgs &a, int x0, int y0, int qx, int qy,
    uint32_t (&pw)[4][Row4<pixel>::N])
{
  constexpr int N = Row4<pixel>::N;
  const unsigned v = subpel_pair (qx & 3, qy & 3);
  const unsigned va = v & 15, vb = v >> 4;
  const int p = (int)a.pitch;
  const int bps = (int)sizeof (pixel);
  /* signed: a block near the top or the left edge reads above or left of
   * pixel (0, 0); bytes, rows `p` apart and samples `bps` */
  const int at = (y0 + (qy >> 2)) * p + x0 * bps + (qx >> 2) * bps;
  const uint8_t *pa = plane_of (a, va) +
      (at + (int)ME_SP_DY (va) * p + (int)ME_SP_DX (va) * bps);
  if (va == vb) {
#pragma unroll
    for (int y = 0; y < 4; y++)
      load4<pixel> (pa + y * p, pw[y]);
    return;
  }
  const uint8_t *pb = plane_of (a, vb) +
      (at + (int)ME_SP_DY (vb) * p + (int)ME_SP_DX (vb) * bps);
#pragma unroll
  for (int y = 0; y < 4; y++) {
    uint32_t ra[N], rb[N];
    load4<pixel> (pa + y * p, ra);
    load4<pixel> (pb + y * p, rb);
#pragma unroll
    for (int k = 0; k < N; k++)
      pw[y][k] = avg_up<pixel> (ra[k], rb[k]);
  }
}

/* max(|lo|, |hi|) of the two 16-bit lanes of v (see satd4x4()). */
static __device__ __forceinline__ int
max_abs_lanes (int v)
{
  const int lo = (int)(int16_t)v;
  const int hi = (v - lo) >> 16;
  return max (abs (lo), abs (hi));
}

/* 4-point Hadamard transform of x, in place. */
static __device__ __forceinline__ void
hadamard4 (int (&x)[4])
{
  const int s01 = x[0] + x[1], d01 = x[0] - x[1];
  const int s23 = x[2] + x[3], d23 = x[2] - x[3];
  x[0] = s01 + s23;
  x[1] = d01 + d23;
  x[2] = s01 - s23;
  x[3] = d01 - d23;
}

/* me_satd4x4() of current rows c against predicted rows p, two
 * coefficients per instruction: a word lo + 65536 hi (lo signed, its
 * borrow left in hi) stays exact under sums and differences, and every
 * value here fits 16 signed bits, so columns 0 and 2 share a word, as do
 * 1 and 3.  The rows are transformed first, then the first stage across
 * columns; the second is not computed, since |a + b| + |a - b| =
 * 2 max(|a|, |b|) and the 2 cancels me_satd4x4()'s halving. */
static __device__ __forceinline__ uint32_t
satd4x4 (const uint32_t (&c)[4], const uint32_t (&p)[4])
{
  int d02[4], d13[4];
#pragma unroll
  for (int y = 0; y < 4; y++) {
    d02[y] = (int)__byte_perm (c[y], 0, 0x4240) -
             (int)__byte_perm (p[y], 0, 0x4240);
    d13[y] = (int)__byte_perm (c[y], 0, 0x4341) -
             (int)__byte_perm (p[y], 0, 0x4341);
  }
  hadamard4 (d02);
  hadamard4 (d13);
  int sum = 0;
#pragma unroll
  for (int v = 0; v < 4; v++)
    sum += max_abs_lanes (d02[v] + d13[v]) + max_abs_lanes (d02[v] - d13[v]);
  return (uint32_t)sum;
}

/* me_satd4x4() of 16-bit current rows c against predicted rows p (two
 * samples a word, the first in the low half): the shared rule itself on
 * the sixteen differences. */
static __device__ __forceinline__ uint32_t
satd4x4_16 (const uint32_t (&c)[4][2], const uint32_t (&p)[4][2])
{
  int d[16];
#pragma unroll
  for (int y = 0; y < 4; y++)
#pragma unroll
    for (int k = 0; k < 2; k++) {
      d[4 * y + 2 * k] = (int)(c[y][k] & 0xffffu) - (int)(p[y][k] & 0xffffu);
      d[4 * y + 2 * k + 1] = (int)(c[y][k] >> 16) - (int)(p[y][k] >> 16);
    }
  return me_satd4x4 (d);
}

/* Cost of predicted rows p against current rows c by the metric. */
template <typename pixel>
static __device__ __forceinline__ uint32_t
cost4x4 (bool satd, const uint32_t (&c)[4][Row4<pixel>::N],
    const uint32_t (&p)[4][Row4<pixel>::N])
{
  uint32_t s = 0;
  if constexpr (sizeof (pixel) == 1) {
    const uint32_t c1[4] = {c[0][0], c[1][0], c[2][0], c[3][0]};
    const uint32_t p1[4] = {p[0][0], p[1][0], p[2][0], p[3][0]};
    if (satd)
      return satd4x4 (c1, p1);
#pragma unroll
    for (int y = 0; y < 4; y++)
      s = __vsadu4 (c1[y], p1[y]) + s;
  } else {
    if (satd)
      return satd4x4_16 (c, p);
#pragma unroll
    for (int y = 0; y < 4; y++)
      s = MePix<uint16_t>::sad (c[y][1], p[y][1],
          MePix<uint16_t>::sad (c[y][0], p[y][0], s));
  }
  return s;
}

/* Cost of 4x4 sub-block (x0, y0) (frame pixels, x0 a multiple of 4) at
 * quarter-pel (qx, qy). */
template <typename pixel>
static __device__ __forceinline__ uint32_t
sub_cost (const RefineArgs &a, int x0, int y0, int qx, int qy)
{
  uint32_t cw[4][Row4<pixel>::N], pw[4][Row4<pixel>::N];
  load_cur<pixel> (a, x0, y0, cw);
  predict4x4<pixel> (a, x0, y0, qx, qy, pw);
  return cost4x4<pixel> (a.satd, cw, pw);
}

/* One lane's part of a block of grid P: the block's group of L lanes holds
 * PER candidate slots of N4 lanes, one per 4x4 sub-block (sx, sy), whose
 * current pixels the lane keeps for every candidate. */
template <int P, typename pixel>
struct RefineLane {
  static constexpr int BW = GST_MOTION_VECTOR_PARTITION_W (P);
  static constexpr int BH = GST_MOTION_VECTOR_PARTITION_H (P);
  static constexpr int N4 = (BW / 4) * (BH / 4);
  static constexpr int L = group_lanes (N4);
  static constexpr int PER = L / N4;
  bool live;
  int gi; /* candidate slot */
  int sx, sy;
  uint32_t cw[4][Row4<pixel>::N];

  /* The block's cost for (qx, qy), summed over its slot's lanes. */
  __device__ __forceinline__ uint32_t
  cost (const RefineArgs &a, int qx, int qy) const
  {
    uint32_t pw[4][Row4<pixel>::N];
    predict4x4<pixel> (a, sx, sy, qx, qy, pw);
    uint32_t s = cost4x4<pixel> (a.satd, cw, pw);
#pragma unroll
    for (int off = 1; off < N4; off <<= 1)
      s += __shfl_xor_sync (FULL_MASK, s, off);
    return s;
  }

  /* The smallest key among the block's slots. */
  static __device__ __forceinline__ uint64_t
  group_min (uint64_t key)
  {
#pragma unroll
    for (int off = L / 2; off >= N4; off >>= 1) {
      const uint64_t o = __shfl_xor_sync (FULL_MASK, key, off);
      key = o < key ? o : key;
    }
    return key;
  }

  /* The best of *best and the ring of 8 at `step` quarter pixels around
   * it, 8 / PER candidates per lane. */
  __device__ __forceinline__ void
  ring (const RefineArgs &a, int step, uint64_t *best) const
  {
    const int cx = me_key_qx (*best), cy = me_key_qy (*best);
    uint64_t mine = ME_KEY_NONE;
#pragma unroll
    for (int c0 = 0; c0 < 8; c0 += PER) {
      const int j = c0 + gi;
      const int k = j < 4 ? j : j + 1; /* 3x3 without its centre */
      const int qx = cx + (k % 3 - 1) * step, qy = cy + (k / 3 - 1) * step;
      const uint32_t s = cost (a, qx, qy);
      const uint64_t key = live ? me_key_qpel (s, qx, qy) : ME_KEY_NONE;
      mine = key < mine ? key : mine;
    }
    mine = group_min (mine);
    *best = mine < *best ? mine : *best;
  }
};

template <int P, typename pixel>
static __device__ __forceinline__ void
refine_grid (const RefineArgs &a, unsigned w, int lane)
{
  typedef RefineLane<P, pixel> R;
  R r;
  const unsigned i = (w - a.first[P]) * (32 / R::L) + lane / R::L;
  r.live = i < a.cells[P];
  const unsigned cols = a.mb_cols * (16 / R::BW);
  const int gl = lane % R::L, sub = gl % R::N4;
  r.gi = gl / R::N4;
  /* a lane without a block works on block 0 at the zero vector, which
   * stays in the planes, and keeps nothing */
  const int bx = r.live ? (int)(i % cols) * R::BW : 0;
  const int by = r.live ? (int)(i / cols) * R::BH : 0;
  r.sx = bx + 4 * (sub % (R::BW / 4));
  r.sy = by + 4 * (sub / (R::BW / 4));
  load_cur<pixel> (a, r.sx, r.sy, r.cw);
  const uint64_t k0 = r.live ? a.keys[P][i] : me_key (0, 0, 0);

  /* the integer winner re-costed in slot 0 and, with lambda, the zero
   * vector in slot 1, in one pass */
  const bool zero = a.zero[P] != NULL;
  const int qx = r.gi == 1 && zero ? 0 : me_key_qx (k0);
  const int qy = r.gi == 1 && zero ? 0 : me_key_qy (k0);
  const uint32_t s = r.cost (a, qx, qy);
  const int head = lane - gl; /* the group's first lane */
  const uint32_t sw = __shfl_sync (FULL_MASK, s, head);
  uint64_t best = me_key_qpel (sw, me_key_qx (k0), me_key_qy (k0));
  if (zero) {
    /* what the rate decision needs besides F, costed here in parallel so
     * that its ordered chain does not: W's and zero's distortion */
    const uint32_t sz = __shfl_sync (FULL_MASK, s, head + R::N4);
    if (r.live && gl == 0) {
      a.keys[P][i] = best;
      a.zero[P][i] = me_key_cost (me_key_qpel (sz, 0, 0));
    }
  }
  if (a.refine >= ME_REFINE_HALF)
    r.ring (a, 2, &best);
  if (a.refine >= ME_REFINE_QUARTER)
    r.ring (a, 1, &best);
  if (r.live && gl == 0)
    a.out[P][i] = best;
}

template <typename pixel>
__global__ void
__launch_bounds__ (REFINE_WARPS * 32) refine_kernel (const RefineArgs a)
{
  const unsigned w = blockIdx.x * REFINE_WARPS + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (w >= a.first[GST_MOTION_VECTOR_PARTITION_COUNT])
    return;
  int p = 0;
  while (w >= a.first[p + 1])
    p++;
  switch (p) {
    case 0: refine_grid<0, pixel> (a, w, lane); break;
    case 1: refine_grid<1, pixel> (a, w, lane); break;
    case 2: refine_grid<2, pixel> (a, w, lane); break;
    case 3: refine_grid<3, pixel> (a, w, lane); break;
    case 4: refine_grid<4, pixel> (a, w, lane); break;
    case 5: refine_grid<5, pixel> (a, w, lane); break;
    default: refine_grid<6, pixel> (a, w, lane); break;
  }
}

/* ---- the rate-constrained choice: a wavefront --------------------------- */

/* After the refinement (F in `out`; W re-costed by the metric in `keys`;
 * the zero vector's distortion in `zero`), each block chooses among F, W,
 * zero and its prediction P by distortion + lambda x bits (MVD against P),
 * P being the H.264 prediction from its neighbours' final choices: so
 * blocks are decided in decoding order.  The neighbours A, B, C and D of
 * every shape lie at (gx - 1, gy), (gx, gy - 1), (gx + 1, gy - 1) and
 * (gx - 1, gy - 1) of the same grid, so a block may be decided once its
 * left neighbour is and the row above has decided up to gx + 1.
 *
 * Rows are handed to groups of lanes, one row per group of n4 lanes (n4 =
 * the shape's 4x4 sub-blocks, so 32 rows of 4x4 blocks per warp, 2 of
 * 16x16).  At step s the group of local row r decides block s - 2r: two
 * blocks behind the row above, which is what the dependencies allow.  A
 * group takes the row above's decisions from the group before it by
 * shuffles (each keeps its last three), so inside a warp a step costs no
 * memory round trip; of F, W and zero every distortion is known before the
 * chain, and P's is computed only when P is none of them.  The first group
 * reads the last row of the warp before from memory, up to 32 blocks at a
 * time (one per lane), as many as that warp has published when it needs
 * one more: a warp runs at the pace of the one before, a few steps behind,
 * and the further behind it is, the rarer its waits on memory.
 *
 * Each warp is a thread block of its own and takes a ticket when it starts,
 * so the warp one waits for always runs.  Small blocks because the chain
 * lasts long while doing little: a one-warp block fits in the registers
 * the search kernels of other frames leave free on a multiprocessor, where
 * a block of eight warps would hold back one of theirs for the whole
 * chain.  Publication: the last group stores its keys, then the
 * warp's progress word with release semantics; the reader's lane 0 takes
 * it with acquire semantics, and its lanes read the keys after
 * __syncwarp(), which orders them after lane 0. */
static __device__ __forceinline__ unsigned
load_acquire (const unsigned *p)
{
  unsigned v;
  asm volatile ("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

static __device__ __forceinline__ void
store_release (unsigned *p, unsigned v)
{
  asm volatile ("st.release.gpu.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

/* A quarter-pel vector in one word, and back. */
static __device__ __forceinline__ uint32_t
vec_pack (uint64_t key)
{
  return ((uint32_t)me_key_qx (key) & 0xffffu) |
         ((uint32_t)me_key_qy (key) << 16);
}

static __device__ __forceinline__ int
vec_x (uint32_t v)
{
  return (int)(int16_t)(v & 0xffffu);
}

static __device__ __forceinline__ int
vec_y (uint32_t v)
{
  return (int)v >> 16;
}

/* Lanes that decide one row of blocks with n4 4x4 sub-blocks each: one
 * per sub-block.  Fewer lanes per row give fewer warps but cost P's
 * sub-blocks one after another on the chain; measured on an H100 (1080p
 * R = 32, quarter SATD, lambda 5, kernel frames/s, 16x16 / all shapes):
 * 16 lanes 1302 / 313, 4 lanes 1051 / 320, 1 lane 540 / 302. */
#define RATE_ROW_LANES 16
static __host__ __device__ constexpr int
rate_row_lanes (int n4)
{
  return n4 < RATE_ROW_LANES ? n4 : RATE_ROW_LANES;
}

/* What the rate decision of cell i of grid p needs from before it: F, W
 * (both keys with their distortion) and zero's distortion. */
static __device__ __forceinline__ void
rate_cell (const RefineArgs &a, int p, bool live, unsigned i, uint64_t *kf,
    uint64_t *kw, uint32_t *d0)
{
  *kf = live ? a.out[p][i] : 0;
  *kw = live ? a.keys[p][i] : 0;
  *d0 = live ? a.zero[p][i] : 0;
}

typedef struct {
  RefineArgs r;
  unsigned mb_rows;
  uint32_t lambda;
  unsigned rows[GST_MOTION_VECTOR_PARTITION_COUNT];
  unsigned warp_first[GST_MOTION_VECTOR_PARTITION_COUNT + 1];
  unsigned *progress; /* per warp: blocks its last row has decided */
  unsigned *ticket;
} RateArgs;

template <typename pixel>
__global__ void
__launch_bounds__ (32) rate_kernel (const RateArgs ra)
{
  const RefineArgs &a = ra.r;
  const int lane = threadIdx.x % 32;
  unsigned t = 0;
  if (lane == 0)
    t = atomicAdd (ra.ticket, 1u);
  t = __shfl_sync (FULL_MASK, t, 0);
  if (t >= ra.warp_first[GST_MOTION_VECTOR_PARTITION_COUNT])
    return;
  int p = 0;
  while (t >= ra.warp_first[p + 1])
    p++;
  const unsigned wi = t - ra.warp_first[p]; /* the warp's place in its grid */
  const int bw = GST_MOTION_VECTOR_PARTITION_W (p);
  const int bh = GST_MOTION_VECTOR_PARTITION_H (p);
  const int n4 = (bw / 4) * (bh / 4);
  const int L = rate_row_lanes (n4); /* lanes per row */
  const int rpw = 32 / L;            /* rows per warp */
  const int r = lane / L, sub = lane % L;
  const int cols = (int)a.mb_cols * (16 / bw);
  const int gy = (int)wi * rpw + r;
  const bool row_live = gy < (int)ra.rows[p];
  volatile uint64_t *out = a.out[p];
  const unsigned *before = ra.progress + t - 1;
  unsigned *mine = ra.progress + t;

  uint32_t l1 = 0, l2 = 0, l3 = 0; /* this row at gx - 1, gx - 2, gx - 3 */
  uint32_t win = 0;      /* the row above, block base + lane */
  int base = 0, end = 0; /* the window holds blocks base .. end - 1 */
  /* the block's own keys, loaded a step ahead: they do not depend on
   * the chain, so their latency stays off it */
  uint64_t kf, kw;
  uint32_t d0;
  rate_cell (a, p, row_live && r == 0, gy * cols, &kf, &kw, &d0);
  MEMvpredNeighbours nb_next =
      me_mvpred_neighbours (p, -2 * r, gy, (int)a.mb_cols, (int)ra.mb_rows);
  for (int s = 0; s < cols + 2 * (rpw - 1); s++) {
    const int gx = s - 2 * r;
    const bool live = row_live && gx >= 0 && gx < cols;
    const unsigned i = (unsigned)(gy * cols + gx);
    const uint64_t cf = kf, cw = kw;
    const uint32_t c0 = d0;
    rate_cell (a, p, row_live && gx + 1 >= 0 && gx + 1 < cols, i + 1, &kf,
        &kw, &d0);
    const MEMvpredNeighbours nb = nb_next;
    nb_next =
        me_mvpred_neighbours (p, gx + 1, gy, (int)a.mb_cols, (int)ra.mb_rows);

    /* the row above: from the group before, or, for the first group,
     * from the warp before, through a window of up to 32 blocks refilled
     * when step s needs a block beyond it with as many as that warp has
     * published (so the further it is ahead, the rarer the waits) */
    uint32_t ud = __shfl_up_sync (FULL_MASK, l3, L);
    uint32_t ub = __shfl_up_sync (FULL_MASK, l2, L);
    uint32_t uc = __shfl_up_sync (FULL_MASK, l1, L);
    if (wi > 0 && s < cols) {
      const int need = min (s + 2, cols);
      if (need > end) {
        unsigned seen = 0;
        if (lane == 0)
          while ((seen = load_acquire (before)) < (unsigned)need)
            ;
        __syncwarp ();
        seen = __shfl_sync (FULL_MASK, seen, 0);
        base = max (s - 1, 0);
        end = min ((int)seen, base + 32);
        win = base + lane < end
                  ? vec_pack (out[(size_t)(gy - r - 1) * cols + base + lane])
                  : 0;
      }
      const uint32_t wd = __shfl_sync (FULL_MASK, win, max (s - 1 - base, 0));
      const uint32_t wb = __shfl_sync (FULL_MASK, win, s - base);
      const uint32_t wc = __shfl_sync (FULL_MASK, win, min (s + 1 - base, 31));
      if (r == 0) {
        ud = wd;
        ub = wb;
        uc = wc;
      }
    }

    int px = 0, py = 0, cx = 0, cy = 0;
    bool need_p = false;
    if (live) {
      /* nb.c is C, or D when C is not available */
      const int top = (int)i - cols;
      const uint32_t va = l1, vb = ub;
      const uint32_t vc = nb.c == top + 1 ? uc : ud;
      me_mvpred_combine (p, gx, gy, nb, vec_x (va), vec_y (va), vec_x (vb),
          vec_y (vb), vec_x (vc), vec_y (vc), &px, &py);
      cx = max (-a.range4, min (a.range4, px));
      cy = max (-a.range4_y, min (a.range4_y, py));
      const bool is_f = cx == me_key_qx (cf) && cy == me_key_qy (cf);
      const bool is_w = cx == me_key_qx (cw) && cy == me_key_qy (cw);
      need_p = !is_f && !is_w && (cx | cy) != 0;
    }
    /* P's distortion, by the row's lanes, when some row needs it */
    uint32_t dp = 0;
    if (__any_sync (FULL_MASK, need_p)) {
      if (need_p)
        for (int b = sub; b < n4; b += L)
          dp += sub_cost<pixel> (a, gx * bw + 4 * (b % (bw / 4)),
              gy * bh + 4 * (b / (bw / 4)), cx, cy);
      for (int off = 1; off < L; off <<= 1)
        dp += __shfl_xor_sync (FULL_MASK, dp, off);
    }

    uint64_t best = ME_KEY_NONE;
    if (live) {
      const int fx = me_key_qx (cf), fy = me_key_qy (cf);
      const int wx = me_key_qx (cw), wy = me_key_qy (cw);
      const uint32_t lam = ra.lambda;
      const uint64_t jf =
          me_key_qpel (me_key_cost (cf) + me_mv_rate (lam, fx, fy, px, py),
              fx, fy);
      const uint64_t jw =
          me_key_qpel (me_key_cost (cw) + me_mv_rate (lam, wx, wy, px, py),
              wx, wy);
      const uint64_t jz =
          me_key_qpel (c0 + me_mv_rate (lam, 0, 0, px, py), 0, 0);
      best = jf < jw ? jf : jw;
      best = jz < best ? jz : best;
      if (need_p) {
        const uint64_t jp =
            me_key_qpel (dp + me_mv_rate (lam, cx, cy, px, py), cx, cy);
        best = jp < best ? jp : best;
      }
      if (sub == 0) {
        out[i] = best;
        if (r == rpw - 1)
          store_release (mine, (unsigned)gx + 1);
      }
    }
    /* shifted on every step, so that one step past the row's end the row
     * below still finds blocks gx and gx - 1 where it looks */
    l3 = l2;
    l2 = l1;
    l1 = live ? vec_pack (best) : 0;
  }
}

cudaError_t
me_cuda_launch_refine (const uint8_t *cur, const uint8_t *ref,
    const uint8_t *hpel, const MECudaGeometry *g, unsigned partitions,
    int refine, int metric, unsigned range, unsigned range_y, unsigned lambda,
    uint64_t *keys, uint64_t *out, uint32_t *zero, unsigned *progress,
    cudaStream_t stream)
{
  RefineArgs a;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  const size_t origin = (size_t)ME_CUDA_PAD * g->pitch + ME_CUDA_PAD * g->bps;
  const size_t plane = me_cuda_frame_bytes (g);

  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);
  a.cur = cur + origin;
  a.plane[ME_HPEL_F] = ref + origin;
  a.plane[ME_HPEL_H] = hpel + origin;
  a.plane[ME_HPEL_V] = hpel + plane + origin;
  a.plane[ME_HPEL_C] = hpel + 2 * plane + origin;
  a.plane_step = plane;
  a.pitch = g->pitch;
  a.mb_cols = g->mb_cols;
  a.refine = refine;
  a.satd = metric == ME_METRIC_SATD;
  a.range4 = 4 * (int)range;
  a.range4_y = 4 * (int)range_y;

  /* the refinement, every block at once; the rate decision's warps, a
   * run of 32 / n4 rows each */
  unsigned n = 0, warps = 0;
  RateArgs ra;
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    const int n4 = GST_MOTION_VECTOR_PARTITION_W (p) / 4 *
        (GST_MOTION_VECTOR_PARTITION_H (p) / 4);
    const unsigned per_warp = 32 / group_lanes (n4);
    a.first[p] = n;
    ra.warp_first[p] = warps;
    a.keys[p] = keys + offsets[p];
    a.out[p] = out + offsets[p];
    a.zero[p] = lambda ? zero + offsets[p] : NULL;
    a.cells[p] = 0;
    ra.rows[p] = 0;
    if (partitions & (1u << p)) {
      ra.rows[p] =
          gst_motion_vector_grid_rows ((GstMotionVectorPartition)p, g->mb_rows);
      a.cells[p] = gst_motion_vector_grid_cols ((GstMotionVectorPartition)p,
                       g->mb_cols) *
          ra.rows[p];
      const unsigned rpw = 32 / (unsigned)rate_row_lanes (n4);
      warps += (ra.rows[p] + rpw - 1) / rpw;
    }
    n += (a.cells[p] + per_warp - 1) / per_warp;
  }
  a.first[GST_MOTION_VECTOR_PARTITION_COUNT] = n;
  ra.warp_first[GST_MOTION_VECTOR_PARTITION_COUNT] = warps;
  const unsigned refine_blocks = (n + REFINE_WARPS - 1) / REFINE_WARPS;
  if (g->bps == 2)
    refine_kernel<uint16_t><<<refine_blocks, REFINE_WARPS * 32, 0, stream>>> (
        a);
  else
    refine_kernel<uint8_t><<<refine_blocks, REFINE_WARPS * 32, 0, stream>>> (
        a);
  cudaError_t e = cudaGetLastError ();
  if (e != cudaSuccess || !lambda)
    return e;

  /* the rate-constrained choice, in decoding order */
  ra.r = a;
  ra.mb_rows = g->mb_rows;
  ra.lambda = lambda;
  ra.progress = progress;
  ra.ticket = progress + warps;
  e = cudaMemsetAsync (progress, 0, (warps + 1) * sizeof (unsigned), stream);
  if (e != cudaSuccess)
    return e;
  if (g->bps == 2)
    rate_kernel<uint16_t><<<warps, 32, 0, stream>>> (ra);
  else
    rate_kernel<uint8_t><<<warps, 32, 0, stream>>> (ra);
  return cudaGetLastError ();
}
