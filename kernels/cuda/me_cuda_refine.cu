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
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "me_cost.h"
#include "me_cuda_kernels.h"
#include "me_rate.h"
#include "me_search.h"
#include "mvpred_rules.h"
#include "subpel_rules.h"

#define HPEL_THREADS 256
#define REFINE_WARPS 8 /* warps per thread block */
#define FULL_MASK 0xffffffffu

/* ---- the half-sample planes --------------------------------------------- */

__global__ void
__launch_bounds__ (HPEL_THREADS) hpel_kernel (const uint8_t *__restrict__ f,
    uint8_t *__restrict__ hp, size_t pitch, size_t rows, size_t x0,
    size_t x1, size_t y0)
{
  const size_t x = (size_t)blockIdx.x * HPEL_THREADS + threadIdx.x + x0;
  const size_t y = (size_t)blockIdx.y + y0;
  if (x >= x1)
    return;
  const size_t o = y * pitch + x, plane = pitch * rows;
  hp[o] = me_hpel_h (f + o, (ptrdiff_t)pitch);
  hp[plane + o] = me_hpel_v (f + o, (ptrdiff_t)pitch);
  hp[2 * plane + o] = me_hpel_c (f + o, (ptrdiff_t)pitch);
}

cudaError_t
me_cuda_launch_hpel (const uint8_t *ref, uint8_t *hpel,
    const MECudaGeometry *g, unsigned range, cudaStream_t stream)
{
  /* buffer positions read at range R (the header comment), 8 pixels more,
   * within those whose 6 taps lie in the buffer: 2 .. pitch - 4 */
  const size_t reach = (size_t)range + 8;
  const size_t x0 = MAX ((size_t)2, ME_CUDA_PAD - reach);
  const size_t y0 = MAX ((size_t)2, ME_CUDA_PAD - reach);
  const size_t x1 =
      MIN (g->pitch - 3, ME_CUDA_PAD + (size_t)g->mb_cols * 16 + reach + 1);
  const size_t y1 =
      MIN (g->rows - 3, ME_CUDA_PAD + (size_t)g->mb_rows * 16 + reach + 1);
  const dim3 grid ((unsigned)((x1 - x0 + HPEL_THREADS - 1) / HPEL_THREADS),
      (unsigned)(y1 - y0));
  hpel_kernel<<<grid, HPEL_THREADS, 0, stream>>> (
      ref, hpel, g->pitch, g->rows, x0, x1, y0);
  return cudaGetLastError ();
}

/* ---- refinement ----------------------------------------------------------- */

typedef struct {
  const uint8_t *cur;      /* pixel (0, 0) of the current frame */
  const uint8_t *plane[4]; /* pixel (0, 0) of F, H, V, C of the reference */
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
  int range4; /* the window, in quarter pixels */
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

/* Four bytes from any address: two aligned words and a funnel shift (the
 * planes have a border, so the word after is always readable). */
static __device__ __forceinline__ uint32_t
load4 (const uint8_t *p)
{
  const uintptr_t a = (uintptr_t)p;
  const uint32_t *w = (const uint32_t *)(a & ~(uintptr_t)3);
  return __funnelshift_r (w[0], w[1], (unsigned)(a & 3) * 8);
}

/* Cost of 4x4 sub-block (x0, y0) (frame pixels, x0 a multiple of 4) at
 * quarter-pel (qx, qy): rows of four pixels at a time, the prediction by
 * __vavgu4, which is (A + B + 1) >> 1 per byte. */
static __device__ __forceinline__ uint32_t
sub_cost (const RefineArgs &a, int x0, int y0, int qx, int qy)
{
  const unsigned v = me_subpel_pair (qx & 3, qy & 3);
  const unsigned va = v & 15, vb = v >> 4;
  const ptrdiff_t p = (ptrdiff_t)a.pitch;
  const ptrdiff_t at = (ptrdiff_t)(y0 + (qy >> 2)) * p + x0 + (qx >> 2);
  const uint8_t *pa =
      a.plane[ME_SP_PLANE (va)] + at + ME_SP_DY (va) * p + ME_SP_DX (va);
  const uint8_t *pb =
      a.plane[ME_SP_PLANE (vb)] + at + ME_SP_DY (vb) * p + ME_SP_DX (vb);
  const uint8_t *c = a.cur + (ptrdiff_t)y0 * p + x0;
  uint32_t cw[4], pw[4];
#pragma unroll
  for (int y = 0; y < 4; y++) {
    cw[y] = *(const uint32_t *)(c + y * p);
    pw[y] = __vavgu4 (load4 (pa + y * p), load4 (pb + y * p));
  }
  if (!a.satd) {
    uint32_t s = 0;
#pragma unroll
    for (int y = 0; y < 4; y++)
      s += __vsadu4 (cw[y], pw[y]);
    return s;
  }
  int d[16];
#pragma unroll
  for (int y = 0; y < 4; y++)
#pragma unroll
    for (int x = 0; x < 4; x++)
      d[4 * y + x] =
          (int)((cw[y] >> (8 * x)) & 255) - (int)((pw[y] >> (8 * x)) & 255);
  return me_satd4x4 (d);
}

/* A round of candidates: the ring of 8 at `step` quarter pixels around
 * (cx, cy), preceded by (cx, cy) itself when `first` is 0; or, for the rate
 * decision's first round (step 0), the three vectors c, d and e. */
typedef struct {
  int cx, cy, step;
  int dx, dy, ex, ey; /* step 0 only */
  int first, n;
} Round;

static __device__ __forceinline__ void
candidate (const Round &r, int i, int *qx, int *qy)
{
  if (r.step == 0) {
    *qx = i == 0 ? r.cx : i == 1 ? r.dx : r.ex;
    *qy = i == 0 ? r.cy : i == 1 ? r.dy : r.ey;
    return;
  }
  const int k = i < 5 ? i - 1 : i; /* skip the centre, index 4 of 3x3 */
  *qx = r.cx + (i == 0 ? 0 : (k % 3 - 1) * r.step);
  *qy = r.cy + (i == 0 ? 0 : (k / 3 - 1) * r.step);
}

/* The best key of the round's candidates for the block of this lane's
 * group (L lanes), ranked by distortion + lambda x bits (MVD against
 * (px, py)); `live`: the group has a block.  Every lane of the warp takes
 * part in the shuffles. */
static __device__ uint64_t
round_best (const RefineArgs &a, bool live, int bx, int by, int bw, int n4,
    int L, int lane, const Round &r, uint32_t lambda, int px, int py)
{
  const int per = L / n4, gl = lane % L, gi = gl / n4, sub = gl % n4;
  const int sx = bx + 4 * (sub % (bw / 4)), sy = by + 4 * (sub / (bw / 4));
  uint64_t best = ME_KEY_NONE;
  for (int c0 = r.first; c0 < r.first + r.n; c0 += per) {
    const int i = c0 + gi;
    int qx, qy;
    candidate (r, i, &qx, &qy);
    const bool valid = live && i < r.first + r.n;
    uint32_t s = valid ? sub_cost (a, sx, sy, qx, qy) : 0;
    for (int off = 1; off < n4; off <<= 1)
      s += __shfl_xor_sync (FULL_MASK, s, off);
    if (lambda)
      s += me_mv_rate (lambda, qx, qy, px, py);
    uint64_t key = valid ? me_key_qpel (s, qx, qy) : ME_KEY_NONE;
    for (int off = L / 2; off >= 1; off >>= 1) {
      const uint64_t o = __shfl_xor_sync (FULL_MASK, key, off);
      key = o < key ? o : key;
    }
    best = key < best ? key : best;
  }
  return best;
}

/* The sub-pel rings asked for around *best. */
static __device__ void
rings (const RefineArgs &a, bool live, int bx, int by, int bw, int n4, int L,
    int lane, uint32_t lambda, int px, int py, uint64_t *best)
{
  for (int step = 2; step >= 1; step--) {
    if (a.refine < (step == 2 ? ME_REFINE_HALF : ME_REFINE_QUARTER))
      return;
    const Round r = { me_key_qx (*best), me_key_qy (*best), step, 0, 0, 0,
      0, 1, 8 };
    const uint64_t k = round_best (a, live, bx, by, bw, n4, L, lane, r, lambda,
        px, py);
    *best = k < *best ? k : *best;
  }
}

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
  const int bw = GST_MOTION_VECTOR_PARTITION_W (p);
  const int bh = GST_MOTION_VECTOR_PARTITION_H (p);
  const int n4 = (bw / 4) * (bh / 4);
  const int L = group_lanes (n4);
  const unsigned i = (w - a.first[p]) * (32 / L) + lane / L;
  const bool live = i < a.cells[p];
  const unsigned cols = a.mb_cols * (16 / bw);
  const int bx = live ? (int)(i % cols) * bw : 0;
  const int by = live ? (int)(i / cols) * bh : 0;
  const uint64_t k0 = live ? a.keys[p][i] : 0;

  /* the integer winner, re-costed, then the rings */
  const Round r0 = { me_key_qx (k0), me_key_qy (k0), 2, 0, 0, 0, 0, 0, 1 };
  uint64_t best = round_best (a, live, bx, by, bw, n4, L, lane, r0, 0, 0, 0);
  if (a.zero[p]) {
    /* what the rate decision needs besides F, costed here in parallel so
     * that its ordered chain does not: W's and zero's distortion */
    const Round rz = { 0, 0, 2, 0, 0, 0, 0, 0, 1 };
    const uint64_t kz =
        round_best (a, live, bx, by, bw, n4, L, lane, rz, 0, 0, 0);
    if (live && lane % L == 0) {
      a.keys[p][i] = best;
      a.zero[p][i] = me_key_cost (kz);
    }
  }
  rings (a, live, bx, by, bw, n4, L, lane, 0, 0, 0, &best);
  if (live && lane % L == 0)
    a.out[p][i] = best;
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
      cy = max (-a.range4, min (a.range4, py));
      const bool is_f = cx == me_key_qx (cf) && cy == me_key_qy (cf);
      const bool is_w = cx == me_key_qx (cw) && cy == me_key_qy (cw);
      need_p = !is_f && !is_w && (cx | cy) != 0;
    }
    /* P's distortion, by the row's lanes, when some row needs it */
    uint32_t dp = 0;
    if (__any_sync (FULL_MASK, need_p)) {
      if (need_p)
        for (int b = sub; b < n4; b += L)
          dp += sub_cost (a, gx * bw + 4 * (b % (bw / 4)),
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
    int refine, int metric, unsigned range, unsigned lambda, uint64_t *keys,
    uint64_t *out, uint32_t *zero, unsigned *progress, cudaStream_t stream)
{
  RefineArgs a;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  const size_t origin = (size_t)ME_CUDA_PAD * g->pitch + ME_CUDA_PAD;
  const size_t plane = me_cuda_frame_bytes (g);

  gst_motion_vector_grid_offsets ((GstMotionVectorPartitionFlags)partitions,
      g->mb_cols, g->mb_rows, offsets);
  a.cur = cur + origin;
  a.plane[ME_HPEL_F] = ref + origin;
  a.plane[ME_HPEL_H] = hpel + origin;
  a.plane[ME_HPEL_V] = hpel + plane + origin;
  a.plane[ME_HPEL_C] = hpel + 2 * plane + origin;
  a.pitch = g->pitch;
  a.mb_cols = g->mb_cols;
  a.refine = refine;
  a.satd = metric == ME_METRIC_SATD;
  a.range4 = 4 * (int)range;

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
  refine_kernel<<<(n + REFINE_WARPS - 1) / REFINE_WARPS, REFINE_WARPS * 32, 0,
      stream>>> (a);
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
  rate_kernel<<<warps, 32, 0, stream>>> (ra);
  return cudaGetLastError ();
}
