/* gpumotionest — checkasm for the 16-bit DSP (samples of 9 to 16 bits,
 * bitdepth.h): the C routines against naive versions written here from
 * the rules alone (sums of |a - b|, the 6-tap filter with its clip to the
 * depth, the Hadamard transform as a matrix product), and every SIMD level
 * against the C routines, at depths 10, 12 and 16, on random samples and
 * on the extremes (all 0 against all 2^depth - 1). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "dsp.h"
#include "subpel_rules.h"

#if BITDEPTH != 16
#error "check_dsp16.c is the 16-bit check"
#endif

#define MAX_N 200
#define STRIDE 260              /* samples: MAX_N + 16 + slack, even */
#define REF_ROWS 24
#define N_TRIES 60

static const unsigned depths[] = { 10, 12, 16 };


static uint16_t cur[256] __attribute__((aligned (32)));
static uint16_t ref[REF_ROWS * STRIDE + 64] __attribute__((aligned (32)));

/* try 0: cur all 0, ref all max; try 1: the other way; then random */
static void
fill (int t, unsigned depth)
{
  const unsigned max = (1u << depth) - 1;
  for (int i = 0; i < 256; i++)
    cur[i] = t == 0 ? 0 : t == 1 ? max : g_rand_int (checkasm.rand) & max;
  for (size_t i = 0; i < G_N_ELEMENTS (ref); i++)
    ref[i] = t == 0 ? max : t == 1 ? 0 : g_rand_int (checkasm.rand) & max;
}

static uint32_t
naive_sad (const uint16_t * a, ptrdiff_t as, const uint16_t * b,
    ptrdiff_t bs, int w, int h)
{
  uint32_t sum = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      sum += (uint32_t) abs ((int) a[y * as + x] - (int) b[y * bs + x]);
  return sum;
}

/* The 6-tap half sample from six samples, rounded and clipped. */
static int
naive_tap (const int v[6])
{
  static const int taps[6] = { 1, -5, 20, 20, -5, 1 };
  int sum = 0;
  for (int k = 0; k < 6; k++)
    sum += taps[k] * v[k];
  return sum;
}

static int
clip (int v, int max)
{
  return v < 0 ? 0 : v > max ? max : v;
}

static void
naive_hpel (const uint16_t * p, ptrdiff_t s, int max, int out[3])
{
  int v[6], b1[6];
  for (int k = 0; k < 6; k++)
    v[k] = p[k - 2];
  out[0] = clip ((naive_tap (v) + 16) >> 5, max);
  for (int k = 0; k < 6; k++)
    v[k] = p[(k - 2) * s];
  out[1] = clip ((naive_tap (v) + 16) >> 5, max);
  for (int r = 0; r < 6; r++) {
    for (int k = 0; k < 6; k++)
      v[k] = p[(r - 2) * s + k - 2];
    b1[r] = naive_tap (v);
  }
  out[2] = clip ((naive_tap (b1) + 512) >> 10, max);
}

/* sum |H D H^T| / 2 with H the 4x4 Hadamard matrix (any row order). */
static uint32_t
naive_satd4x4 (const int d[16])
{
  static const int H[4][4] = { {1, 1, 1, 1}, {1, -1, 1, -1}, {1, 1, -1, -1},
  {1, -1, -1, 1}
  };
  uint32_t sum = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      long long c = 0;
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
          c += (long long) H[i][a] * d[4 * a + b] * H[j][b];
      sum += (uint32_t) (c < 0 ? -c : c);
    }
  return sum / 2;
}

/* One routine of `d` on try t against the naive rule; FALSE on the first
 * difference, printed. */
static gboolean
check_sads (const MEDsp * d, unsigned depth, int t)
{
  static uint32_t sad[MAX_N + 8];
  static sad4_t sad4[16 * (MAX_N + 16)];
  static ptrdiff_t off[MAX_N];
  const int n = t < 2 ? MAX_N : g_rand_int_range (checkasm.rand, 1, MAX_N);
  const ptrdiff_t os = (n + 15) & ~15;

  d->sad16_row (cur, ref, STRIDE, n, sad);
  for (int i = 0; i < n; i++)
    if (sad[i] != naive_sad (cur, 16, ref + i, STRIDE, 16, 16)) {
      printf ("  depth %u n=%d: sad16_row[%d] = %u\n", depth, n, i, sad[i]);
      return FALSE;
    }
  for (int i = 0; i < n; i++)
    off[i] = g_rand_int_range (checkasm.rand, 0, 8) * STRIDE
        + g_rand_int_range (checkasm.rand, 0, MAX_N);
  d->sad16_points (cur, ref, STRIDE, n, off, sad);
  for (int i = 0; i < n; i++)
    if (sad[i] != naive_sad (cur, 16, ref + off[i], STRIDE, 16, 16)) {
      printf ("  depth %u: sad16_points[%d] = %u\n", depth, i, sad[i]);
      return FALSE;
    }
  d->sad8x8_points (cur, ref, STRIDE, n, off, sad);
  for (int i = 0; i < n; i++)
    if (sad[i] != naive_sad (cur, 8, ref + off[i], STRIDE, 8, 8)) {
      printf ("  depth %u: sad8x8_points[%d] = %u\n", depth, i, sad[i]);
      return FALSE;
    }
  d->sad4x4_row (cur, ref, STRIDE, n, sad4, os);
  for (int b = 0; b < 16; b++)
    for (int i = 0; i < n; i++) {
      const int bx = 4 * (b & 3), by = 4 * (b >> 2);
      const uint32_t want = naive_sad (cur + 16 * by + bx, 16,
          ref + by * STRIDE + bx + i, STRIDE, 4, 4);
      if (sad4[b * os + i] != want) {
        printf ("  depth %u: sad4x4_row[%d][%d] = %u, want %u\n", depth, b,
            i, (unsigned) sad4[b * os + i], want);
        return FALSE;
      }
    }
  return TRUE;
}

/* part_min and min_key over the 4x4 SADs of try t: the smallest (cost <<
 * 16 | rank) per partition, the partitions' costs summed here from the
 * 4x4 blocks each covers. */
static gboolean
check_keys (const MEDsp * d, unsigned depth, int t)
{
  static sad4_t sad4[16 * (MAX_N + 16)];
  static uint32_t sad[MAX_N];
  static uint16_t rank[MAX_N + 16];
  rowkey_t best[ME_DSP_N_PARTS], want[ME_DSP_N_PARTS];
  const int n = t < 2 ? MAX_N : g_rand_int_range (checkasm.rand, 1, MAX_N);
  const ptrdiff_t os = (n + 15) & ~15;
  const unsigned max4 = 16u * ((1u << depth) - 1);

  for (int i = 0; i < n; i++)
    rank[i] = (uint16_t) i;
  for (int i = n - 1; i > 0; i--) {     /* ranks shuffled */
    int j = g_rand_int_range (checkasm.rand, 0, i + 1);
    uint16_t x = rank[i];
    rank[i] = rank[j];
    rank[j] = x;
  }
  for (int b = 0; b < 16; b++)
    for (int i = 0; i < n; i++)
      sad4[b * os + i] = t == 0 ? max4 : t == 1 ? 0u
          : (unsigned) g_rand_int_range (checkasm.rand, 0, (gint32) max4 + 1);
  memset (best, 0xff, sizeof (best));
  d->part_min (sad4, os, rank, n, best);
  memset (want, 0xff, sizeof (want));
  for (int i = 0; i < n; i++) {
    int k = 0;
    /* 16x16, 16x8, 8x16, 8x8, 8x4, 4x8, 4x4 over blocks (bx, by) */
    static const int shape[7][2] = { {4, 4}, {4, 2}, {2, 4}, {2, 2}, {2, 1},
    {1, 2}, {1, 1}
    };
    for (int p = 0; p < 7; p++)
      for (int y0 = 0; y0 < 4; y0 += shape[p][1])
        for (int x0 = 0; x0 < 4; x0 += shape[p][0], k++) {
          uint64_t c = 0;
          for (int y = y0; y < y0 + shape[p][1]; y++)
            for (int x = x0; x < x0 + shape[p][0]; x++)
              c += sad4[(4 * y + x) * os + i];
          const rowkey_t key = (rowkey_t) (c << 16 | rank[i]);
          if (key < want[k])
            want[k] = key;
        }
  }
  for (int k = 0; k < ME_DSP_N_PARTS; k++)
    if (best[k] != want[k]) {
      printf ("  depth %u n=%d: part_min[%d] = %llx, want %llx\n", depth, n,
          k, (unsigned long long) best[k], (unsigned long long) want[k]);
      return FALSE;
    }
  rowkey_t w = (rowkey_t) -1;
  for (int i = 0; i < n; i++) {
    sad[i] = t == 0 ? 256u * ((1u << depth) - 1) : t == 1 ? 0u
        : (unsigned) g_rand_int_range (checkasm.rand, 0, 256 << (depth - 8));
    const rowkey_t key = (rowkey_t) sad[i] << 16 | rank[i];
    if (key < w)
      w = key;
  }
  if (d->min_key (sad, rank, n) != w) {
    printf ("  depth %u: min_key = %llx, want %llx\n", depth,
        (unsigned long long) d->min_key (sad, rank, n),
        (unsigned long long) w);
    return FALSE;
  }
  return TRUE;
}

/* sea_row, hpel_row and subpel_cost (SAD and SATD) on try t. */
static gboolean
check_subpel (const MEDsp * d, unsigned depth, int t)
{
  static pixel h[MAX_N], v[MAX_N], c[MAX_N];
  static q8_t q8[REF_ROWS * STRIDE], lb[MAX_N];
  const int max = (1 << depth) - 1;
  const int n = t < 2 ? MAX_N - 8 : g_rand_int_range (checkasm.rand, 1,
      MAX_N - 8);
  const uint16_t *src = ref + 3 * STRIDE + 3;
  q8_t cq[4];

  /* 8x8 sums of the reference at every position, the current quarters */
  for (int y = 0; y + 8 <= REF_ROWS; y++)
    for (int x = 0; x + 8 <= STRIDE; x++) {
      uint32_t s = 0;
      for (int yy = 0; yy < 8; yy++)
        for (int xx = 0; xx < 8; xx++)
          s += ref[(y + yy) * STRIDE + x + xx];
      q8[y * STRIDE + x] = s;
    }
  for (int q = 0; q < 4; q++) {
    uint32_t s = 0;
    for (int y = 8 * (q >> 1); y < 8 * (q >> 1) + 8; y++)
      for (int x = 8 * (q & 1); x < 8 * (q & 1) + 8; x++)
        s += cur[16 * y + x];
    cq[q] = s;
  }
  d->sea_row (q8, STRIDE, cq, n, lb);
  for (int i = 0; i < n; i++) {
    uint32_t want = 0;
    for (int q = 0; q < 4; q++)
      want += (uint32_t) labs ((long) cq[q] - (long) q8[8 * (q >> 1) * STRIDE
              + 8 * (q & 1) + i]);
    if (lb[i] != want) {
      printf ("  depth %u: sea_row[%d] = %u, want %u\n", depth, i,
          (unsigned) lb[i], want);
      return FALSE;
    }
  }

  d->hpel_row (src, STRIDE, n, h, v, c, max);
  for (int i = 0; i < n; i++) {
    int want[3];
    naive_hpel (src + i, STRIDE, max, want);
    if (h[i] != want[0] || v[i] != want[1] || c[i] != want[2]) {
      printf ("  depth %u: hpel_row[%d] = %u %u %u, want %d %d %d\n", depth,
          i, h[i], v[i], c[i], want[0], want[1], want[2]);
      return FALSE;
    }
  }

  for (int satd = 0; satd < 2; satd++) {
    const int w = 4 * g_rand_int_range (checkasm.rand, 1, 5);
    const int hh = 4 * g_rand_int_range (checkasm.rand, 1, 5);
    const uint16_t *a = ref + g_rand_int_range (checkasm.rand, 0, 32);
    const uint16_t *b = ref + STRIDE + g_rand_int_range (checkasm.rand, 0, 32);
    uint32_t want = 0;
    for (int by = 0; by < hh; by += 4)
      for (int bx = 0; bx < w; bx += 4) {
        int dd[16];
        for (int k = 0; k < 16; k++) {
          const ptrdiff_t o = (by + k / 4) * STRIDE + bx + k % 4;
          dd[k] = cur[(by + k / 4) * 16 + bx + k % 4] - ((a[o] + b[o] + 1) >> 1);
        }
        if (satd) {
          want += naive_satd4x4 (dd);
        } else {
          for (int k = 0; k < 16; k++)
            want += (uint32_t) abs (dd[k]);
        }
      }
    const uint32_t got = d->subpel_cost (cur, 16, a, b, STRIDE, w, hh, satd);
    if (got != want) {
      printf ("  depth %u %dx%d %s: subpel_cost = %u, want %u\n", depth, w,
          hh, satd ? "satd" : "sad", got, want);
      return FALSE;
    }
  }
  return TRUE;
}

/* The lower bound of partition k (the shape table's block order) at
 * candidate i, from the partitions' geometry. */
static uint32_t
naive_esa_bound (const q8_t * q4, ptrdiff_t stride, const q8_t * c4, int k,
    int i)
{
  int bx0, by0, w, h;
  checkasm_part_rect (k, &bx0, &by0, &w, &h);
  uint32_t sum = 0;
  for (int by = by0; by < by0 + h; by++)
    for (int bx = bx0; bx < bx0 + w; bx++)
      sum += (uint32_t) labs ((long) c4[4 * by + bx] - (long) q4[4 * by
              * stride + 4 * bx + i]);
  return sum;
}

/* esa_row on try t against the definition: the 4x4 sums of the
 * reference at every position and of the current block, lims near the
 * real bounds of random candidates, some partitions left out (lim 0). */
static gboolean
check_esa (const MEDsp * d, unsigned depth, int t)
{
  static q8_t q4[REF_ROWS * STRIDE];
  static uint32_t keep[MAX_N / 32 + 2];
  const int n = t < 2 ? MAX_N - 8 : g_rand_int_range (checkasm.rand, 1,
      MAX_N - 8);
  q8_t c4[16];
  uint32_t lim[ME_DSP_N_PARTS];

  for (int y = 0; y + 4 <= REF_ROWS; y++)
    for (int x = 0; x + 4 <= STRIDE; x++) {
      uint32_t s = 0;
      for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 4; xx++)
          s += ref[(y + yy) * STRIDE + x + xx];
      q4[y * STRIDE + x] = s;
    }
  for (int b = 0; b < 16; b++) {
    uint32_t s = 0;
    for (int y = 4 * (b >> 2); y < 4 * (b >> 2) + 4; y++)
      for (int x = 4 * (b & 3); x < 4 * (b & 3) + 4; x++)
        s += cur[16 * y + x];
    c4[b] = s;
  }
  /* every other try one partition alone, so that each bound counts */
  const int only = t % 2 ? g_rand_int_range (checkasm.rand, 0,
      ME_DSP_N_PARTS) : -1;
  for (int k = 0; k < ME_DSP_N_PARTS; k++) {
    const int at = g_rand_int_range (checkasm.rand, 0, n);
    const int r = g_rand_int_range (checkasm.rand, 0, 8);
    lim[k] = r == 0 ? 0 : r == 1 ? UINT32_MAX
        : (uint32_t) MAX (0, (int64_t) naive_esa_bound (q4, STRIDE, c4, k, at)
        + g_rand_int_range (checkasm.rand, -3, 4));
    if (only >= 0 && k != only)
      lim[k] = 0;
  }
  memset (keep, 0xcd, sizeof (keep));
  d->esa_row (q4, STRIDE, c4, lim, n, keep);
  for (int i = 0; i < n; i++) {
    int want = 0;
    for (int k = 0; k < ME_DSP_N_PARTS && !want; k++)
      want = naive_esa_bound (q4, STRIDE, c4, k, i) < lim[k];
    if ((int) (keep[i / 32] >> (i % 32) & 1) != want) {
      printf ("  depth %u: esa_row keep[%d] = %d, want %d\n", depth, i, !want,
          want);
      return FALSE;
    }
  }
  if ((n % 32 && keep[n / 32] >> (n % 32))
      || keep[(n + 31) / 32] != 0xcdcdcdcdu) {
    printf ("  depth %u: esa_row wrote past n = %d\n", depth, n);
    return FALSE;
  }
  return TRUE;
}

/* The table of levels `mask` for each depth (me_dsp_init_depth: narrower
 * lanes where the depth allows), on that depth's samples. */
static gboolean
check_table (unsigned mask)
{
  for (unsigned k = 0; k < G_N_ELEMENTS (depths); k++) {
    MEDsp table, *d = &table;
    me_dsp_init_depth (d, mask, depths[k]);
    for (int t = 0; t < N_TRIES; t++) {
      fill (t, depths[k]);
      if (!check_sads (d, depths[k], t) || !check_keys (d, depths[k], t)
          || !check_subpel (d, depths[k], t) || !check_esa (d, depths[k], t))
        return FALSE;
    }
  }
  return TRUE;
}

void
checkasm_check_dsp16 (void)
{
  const unsigned have = me_cpu_flags ();

  checkasm_report ("dsp16_c (naive rules, depths 10 12 16)", check_table (0));
  for (int l = 0; l < (int) CHECKASM_N_LEVELS; l++) {
    MEDsp o, below;
    char name[64];
    if (!(have & checkasm_levels[l].flag))
      continue;
    const unsigned flag = checkasm_levels[l].flag;
    me_dsp_init_depth (&o, flag | (flag - 1), 10);
    me_dsp_init_depth (&below, flag - 1, 10);
    if (!memcmp (&o, &below, sizeof (o)))
      continue;                 /* nothing of this level at 16 bits */
    g_snprintf (name, sizeof (name), "dsp16_%s", checkasm_levels[l].name);
    checkasm_report (name, check_table (flag | (flag - 1)));
  }
}
