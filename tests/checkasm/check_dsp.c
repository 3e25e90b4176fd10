/* gpumotionest — checkasm: each DSP routine of each SIMD level against its
 * C version, on random and extreme inputs (all 0 against all 255, odd
 * strides, candidates at odd addresses, lengths that are not multiples of
 * the vector width), with guard values around every output to catch writes
 * where none belong. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "checkasm.h"
#include "cpu/dsp.h"
#include "subpel_rules.h"

#define MAX_N 300               /* candidates per SAD row call */
#define MAX_KEYS 1100           /* candidates per min_key / part_min call */
#define MAX_STRIDE 700
#define GUARD 16
#define POISON 0xcd
#define N_TRIES 200

const CheckasmLevel checkasm_levels[CHECKASM_N_LEVELS] = {
  {"sse2", ME_CPU_FLAG_SSE2},
  {"ssse3", ME_CPU_FLAG_SSSE3},
  {"sse41", ME_CPU_FLAG_SSE41},
  {"avx2", ME_CPU_FLAG_AVX2},
};


/* The table of one level alone: every level up to it, none above. */
static void
init_level (MEDsp * d, int l)
{
  me_dsp_init (d, l < 0 ? 0 : checkasm_levels[l].flag | (checkasm_levels[l].flag - 1));
}

typedef enum { FILL_RANDOM, FILL_ZERO_VS_MAX, FILL_MAX_VS_ZERO } Fill;

static void
fill_pixels (guint8 * cur, guint8 * ref, size_t ref_size, Fill how)
{
  for (int i = 0; i < 256; i++)
    cur[i] = how == FILL_RANDOM ? g_rand_int (checkasm.rand)
        : how == FILL_ZERO_VS_MAX ? 0 : 255;
  for (size_t i = 0; i < ref_size; i++)
    ref[i] = how == FILL_RANDOM ? g_rand_int (checkasm.rand)
        : how == FILL_ZERO_VS_MAX ? 255 : 0;
}

/* The SAD routines' geometry for try t: the first tries are the extremes. */
static void
sad_case (int t, int *n, ptrdiff_t * stride, int *offset, Fill * how)
{
  *n = t < 3 ? MAX_N : t < 23 ? t - 2 : g_rand_int_range (checkasm.rand, 1,
      MAX_N + 1);
  *stride = g_rand_int_range (checkasm.rand, *n + 15, MAX_STRIDE);
  if (t == 1)
    *stride |= 1;               /* odd */
  *offset = g_rand_int_range (checkasm.rand, 0, 32);
  *how = t == 0 ? FILL_ZERO_VS_MAX : t == 1 ? FILL_MAX_VS_ZERO : FILL_RANDOM;
}

/* The reference rows: 16 of them, plus the 32 bytes the 4x4 routine may
 * read past its last candidate, plus the largest offset. */
#define REF_SIZE (16 * MAX_STRIDE + 64)

/* b (the routine under test) against a (C), guard included; offset -1:
 * candidates not in a row. */
static gboolean
same_sads (const uint32_t * a, const uint32_t * b, int n, ptrdiff_t stride,
    int offset)
{
  for (int i = 0; i < MAX_N + GUARD; i++) {
    if (a[i] != b[i]) {
      printf ("  n=%d stride=%td offset=%d: sad[%d] = %u, C %u%s\n", n,
          stride, offset, i, b[i], a[i], i >= n ? " (written past n)" : "");
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
check_sad16_row (me_sad16_row_fn ref_fn, me_sad16_row_fn fn)
{
  static guint8 cur[256] __attribute__((aligned (32)));
  static guint8 ref[REF_SIZE];
  uint32_t a[MAX_N + GUARD], b[MAX_N + GUARD];

  for (int t = 0; t < N_TRIES; t++) {
    int n, offset;
    ptrdiff_t stride;
    Fill how;
    sad_case (t, &n, &stride, &offset, &how);
    fill_pixels (cur, ref, sizeof (ref), how);
    memset (a, POISON, sizeof (a));
    memset (b, POISON, sizeof (b));
    ref_fn (cur, ref + offset, stride, n, a);
    fn (cur, ref + offset, stride, n, b);
    if (!same_sads (a, b, n, stride, offset))
      return FALSE;
  }
  return TRUE;
}

/* The same cases, with each candidate of a size x size block at a random
 * place among the rows (anywhere its bytes lie inside them, repeats
 * allowed).  The 16x16 and 8x8 routines share one signature. */
static gboolean
check_points (me_sad16_points_fn ref_fn, me_sad16_points_fn fn, int size)
{
  static guint8 cur[256] __attribute__((aligned (32)));
  static guint8 ref[REF_SIZE];
  static ptrdiff_t off[MAX_N];
  uint32_t a[MAX_N + GUARD], b[MAX_N + GUARD];

  for (int t = 0; t < N_TRIES; t++) {
    int n, offset;
    ptrdiff_t stride;
    Fill how;
    sad_case (t, &n, &stride, &offset, &how);   /* offset unused */
    fill_pixels (cur, ref, sizeof (ref), how);
    for (int i = 0; i < n; i++)
      off[i] = g_rand_int_range (checkasm.rand, 0,
          (gint32) (REF_SIZE - (size - 1) * stride - size + 1));
    memset (a, POISON, sizeof (a));
    memset (b, POISON, sizeof (b));
    ref_fn (cur, ref, stride, n, off, a);
    fn (cur, ref, stride, n, off, b);
    if (!same_sads (a, b, n, stride, -1))
      return FALSE;
  }
  return TRUE;
}

static gboolean
check_sad16_points (me_sad16_points_fn ref_fn, me_sad16_points_fn fn)
{
  return check_points (ref_fn, fn, 16);
}

static gboolean
check_sad8x8_points (me_sad8x8_points_fn ref_fn, me_sad8x8_points_fn fn)
{
  return check_points (ref_fn, fn, 8);
}

static gboolean
check_sad4x4_row (me_sad4x4_row_fn ref_fn, me_sad4x4_row_fn fn)
{
  static guint8 cur[256] __attribute__((aligned (32)));
  static guint8 ref[REF_SIZE];
  static uint16_t a[16 * (MAX_N + 40) + GUARD], b[16 * (MAX_N + 40) + GUARD];

  for (int t = 0; t < N_TRIES; t++) {
    int n, offset;
    ptrdiff_t stride, out_stride;
    Fill how;
    sad_case (t, &n, &stride, &offset, &how);
    out_stride = n + g_rand_int_range (checkasm.rand, 0, 40);
    fill_pixels (cur, ref, sizeof (ref), how);
    memset (a, POISON, sizeof (a));
    memset (b, POISON, sizeof (b));
    ref_fn (cur, ref + offset, stride, n, a, out_stride);
    fn (cur, ref + offset, stride, n, b, out_stride);
    for (size_t j = 0; j < G_N_ELEMENTS (a); j++) {
      if (a[j] != b[j]) {
        int blk = j / out_stride, i = j % out_stride;
        printf ("  n=%d stride=%td offset=%d out_stride=%td: block %d "
            "candidate %d = %u, C %u%s\n", n, stride, offset, out_stride, blk,
            i, b[j], a[j], i >= n || blk >= 16 ? " (written past n)" : "");
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* Costs and ranks for the key routines: random, or the largest values. */
static void
fill_keys (uint32_t * sad, uint16_t * sad4, size_t n4, uint16_t * rank,
    int n, gboolean max)
{
  for (int i = 0; i < MAX_KEYS + 16; i++) {
    if (sad)
      sad[i] = max ? 65280 : g_rand_int_range (checkasm.rand, 0, 65281);
    rank[i] = max ? (uint16_t) (65535 - i) : (uint16_t) g_rand_int (checkasm.rand);
  }
  for (size_t i = 0; sad4 && i < n4; i++)
    sad4[i] = max ? 4080 : g_rand_int_range (checkasm.rand, 0, 4081);
  /* small costs often, so that many keys tie on cost */
  if (!max && sad && g_rand_boolean (checkasm.rand))
    for (int i = 0; i < n; i++)
      sad[i] &= 3;
  if (!max && sad4 && g_rand_boolean (checkasm.rand))
    for (size_t i = 0; i < n4; i++)
      sad4[i] &= 1;
}

static gboolean
check_min_key (me_min_key_fn ref_fn, me_min_key_fn fn)
{
  static uint32_t sad[MAX_KEYS + 16];
  static uint16_t rank[MAX_KEYS + 16];

  for (int t = 0; t < N_TRIES; t++) {
    int n = t < 40 ? t : g_rand_int_range (checkasm.rand, 0, MAX_KEYS + 1);
    fill_keys (sad, NULL, 0, rank, n, t == 1);
    uint32_t a = ref_fn (sad, rank, n), b = fn (sad, rank, n);
    if (a != b) {
      printf ("  n=%d: 0x%08x, C 0x%08x\n", n, b, a);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
check_sea_row (me_sea_row_fn ref_fn, me_sea_row_fn fn)
{
  static uint16_t q8[9 * MAX_STRIDE + MAX_N];
  uint16_t a[MAX_N + GUARD], b[MAX_N + GUARD], cq[4];

  for (int t = 0; t < N_TRIES; t++) {
    int n = t < 40 ? t + 1 : g_rand_int_range (checkasm.rand, 1, MAX_N + 1);
    ptrdiff_t stride = g_rand_int_range (checkasm.rand, n + 8, MAX_STRIDE);
    /* extremes: sums of all-255 blocks against all-0 ones and back */
    for (size_t i = 0; i < G_N_ELEMENTS (q8); i++)
      q8[i] = t == 0 ? 16320 : t == 1 ? 0
          : g_rand_int_range (checkasm.rand, 0, 16321);
    for (int k = 0; k < 4; k++)
      cq[k] = t == 0 ? 0 : t == 1 ? 16320
          : g_rand_int_range (checkasm.rand, 0, 16321);
    memset (a, POISON, sizeof (a));
    memset (b, POISON, sizeof (b));
    ref_fn (q8, stride, cq, n, a);
    fn (q8, stride, cq, n, b);
    for (int i = 0; i < MAX_N + GUARD; i++) {
      if (a[i] != b[i]) {
        printf ("  n=%d stride=%td: lb[%d] = %u, C %u%s\n", n, stride, i,
            b[i], a[i], i >= n ? " (written past n)" : "");
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* The lower bound of partition k (the shape table's block order) at
 * candidate i, from the partitions' geometry: the sum over the 4x4
 * sub-blocks it covers of |c4 - q4|. */
static uint32_t
naive_esa_bound (const uint16_t * q4, ptrdiff_t stride, const uint16_t * c4,
    int k, int i)
{
  int bx0, by0, w, h;
  checkasm_part_rect (k, &bx0, &by0, &w, &h);
  uint32_t sum = 0;
  for (int by = by0; by < by0 + h; by++)
    for (int bx = bx0; bx < bx0 + w; bx++)
      sum += abs ((int) c4[4 * by + bx] - (int) q4[4 * by * stride + 4 * bx
              + i]);
  return sum;
}

/* esa_row against the definition: the keep bit of every candidate, and
 * nothing written past the last word; extremes, lims taken near the real
 * bounds (so that both answers come up), partitions left out (lim 0). */
static gboolean
check_esa_row (me_esa_row_fn ref_fn G_GNUC_UNUSED, me_esa_row_fn fn)
{
  static uint16_t q4[13 * MAX_STRIDE + MAX_N];
  uint16_t c4[16];
  uint32_t lim[ME_DSP_N_PARTS], keep[MAX_N / 32 + 1 + GUARD];

  for (int t = 0; t < N_TRIES; t++) {
    const int n = t < 40 ? t + 1 : g_rand_int_range (checkasm.rand, 1,
        MAX_N + 1);
    const ptrdiff_t stride = g_rand_int_range (checkasm.rand, n + 12,
        MAX_STRIDE);
    for (size_t i = 0; i < G_N_ELEMENTS (q4); i++)
      q4[i] = t == 0 ? 4080 : t == 1 ? 0 : t % 5 == 2
          ? (uint16_t) g_rand_int_range (checkasm.rand, 2000, 2100)
          : (uint16_t) g_rand_int_range (checkasm.rand, 0, 4081);
    for (int b = 0; b < 16; b++)
      c4[b] = t == 0 ? 0 : t == 1 ? 4080 : t % 5 == 2
          ? (uint16_t) g_rand_int_range (checkasm.rand, 2000, 2100)
          : (uint16_t) g_rand_int_range (checkasm.rand, 0, 4081);
      /* every other try one partition alone, so that each bound counts */
    const int only = t % 2 ? g_rand_int_range (checkasm.rand, 0,
        ME_DSP_N_PARTS) : -1;
    for (int k = 0; k < ME_DSP_N_PARTS; k++) {
      const int at = g_rand_int_range (checkasm.rand, 0, n);
      const int r = g_rand_int_range (checkasm.rand, 0, 8);
      lim[k] = r == 0 ? 0 : r == 1 ? 65535 : t < 2 ? 65280 + (t == 1)
          : (uint32_t) MAX (0, (int) naive_esa_bound (q4, stride, c4, k, at)
          + g_rand_int_range (checkasm.rand, -3, 4) - (t % 3) * 40);
      if (only >= 0 && k != only)
        lim[k] = 0;
    }
    memset (keep, POISON, sizeof (keep));
    fn (q4, stride, c4, lim, n, keep);
    for (int i = 0; i < n; i++) {
      int want = 0;
      for (int k = 0; k < ME_DSP_N_PARTS && !want; k++)
        want = naive_esa_bound (q4, stride, c4, k, i) < lim[k];
      if ((int) (keep[i / 32] >> (i % 32) & 1) != want) {
        printf ("  n=%d stride=%td: keep[%d] = %d, want %d\n", n, stride, i,
            !want, want);
        return FALSE;
      }
    }
    if (n % 32 && keep[n / 32] >> (n % 32)) {
      printf ("  n=%d: bits past n set\n", n);
      return FALSE;
    }
    for (size_t w = (n + 31) / 32; w < G_N_ELEMENTS (keep); w++)
      if (keep[w] != 0xcdcdcdcdu) {
        printf ("  n=%d: word %zu written past n\n", n, w);
        return FALSE;
      }
  }
  return TRUE;
}

/* `size` bytes that end where an inaccessible page begins: a read past
 * the end faults in any build, not only under an address checker.  Free
 * with guarded_free (p, size). */
static void *
guarded_alloc (size_t size)
{
  const size_t page = (size_t) sysconf (_SC_PAGESIZE);
  const size_t span = (size + page - 1) / page * page;
  guint8 *m = mmap (NULL, span + page, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert (m != MAP_FAILED);
  g_assert (mprotect (m + span, page, PROT_NONE) == 0);
  return m + span - size;
}

static void
guarded_free (void *p, size_t size)
{
  const size_t page = (size_t) sysconf (_SC_PAGESIZE);
  const size_t span = (size + page - 1) / page * page;
  munmap ((guint8 *) p + size - span, span + page);
}

/* part_min with its inputs ending exactly at the n-th candidate (of the
 * last row, for sad4), followed by a page that cannot be read. */
static gboolean
check_part_min_at_end (me_part_min_fn ref_fn, me_part_min_fn fn)
{
  for (int n = 1; n <= 100; n++) {
    const size_t sz = (size_t) 16 * n * sizeof (uint16_t);
    uint16_t *sad4 = guarded_alloc (sz);
    uint16_t *rank = guarded_alloc (n * sizeof (uint16_t));
    uint32_t a[ME_DSP_N_PARTS], b[ME_DSP_N_PARTS];

    for (int i = 0; i < 16 * n; i++)
      sad4[i] = g_rand_int_range (checkasm.rand, 0, 4081);
    for (int i = 0; i < n; i++)
      rank[i] = i;
    for (int k = 0; k < ME_DSP_N_PARTS; k++)
      a[k] = b[k] = UINT32_MAX;
    ref_fn (sad4, n, rank, n, a);
    fn (sad4, n, rank, n, b);
    guarded_free (sad4, sz);
    guarded_free (rank, n * sizeof (uint16_t));
    if (memcmp (a, b, sizeof (a)) != 0) {
      printf ("  n=%d at the end of its arrays: differs from C\n", n);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
check_part_min (me_part_min_fn ref_fn, me_part_min_fn fn)
{
  static uint16_t sad4[16 * (MAX_KEYS + 48)];
  static uint16_t rank[MAX_KEYS + 16];
  uint32_t a[ME_DSP_N_PARTS + GUARD], b[ME_DSP_N_PARTS + GUARD];

  for (int t = 0; t < N_TRIES; t++) {
    int n = t < 40 ? t : g_rand_int_range (checkasm.rand, 0, MAX_KEYS + 1);
    ptrdiff_t stride = ((n + 15) & ~15) + g_rand_int_range (checkasm.rand, 0,
        33);
    /* past n (up to the next multiple of 16) lies garbage to be ignored */
    fill_keys (NULL, sad4, G_N_ELEMENTS (sad4), rank, n, t == 1);
    for (int k = 0; k < ME_DSP_N_PARTS; k++)
      a[k] = g_rand_boolean (checkasm.rand) ? UINT32_MAX
          : g_rand_int (checkasm.rand);
    for (int k = ME_DSP_N_PARTS; k < ME_DSP_N_PARTS + GUARD; k++)
      a[k] = 0xcdcdcdcd;
    memcpy (b, a, sizeof (a));
    ref_fn (sad4, stride, rank, n, a);
    fn (sad4, stride, rank, n, b);
    for (int k = 0; k < ME_DSP_N_PARTS + GUARD; k++) {
      if (a[k] != b[k]) {
        printf ("  n=%d stride=%td: best[%d] = 0x%08x, C 0x%08x%s\n", n,
            stride, k, b[k], a[k], k >= ME_DSP_N_PARTS ? " (past the end)" : "");
        return FALSE;
      }
    }
  }
  return check_part_min_at_end (ref_fn, fn);
}

/* ---- sub-pel routines ----------------------------------------------------- */

/* Pixel patterns for the interpolation and the costs: the extremes of every
 * filter and transform come from pixels that are all 0 or 255. */
typedef enum {
  PAT_RANDOM,                   /* any value */
  PAT_BITS,                     /* 0 or 255 at random */
  PAT_ZERO,
  PAT_MAX,
  PAT_TAPS_MAX,                 /* 255 where the 2-D taps are positive */
  PAT_TAPS_MIN,                 /* 255 where they are negative */
  PAT_COLUMNS,                  /* 0, 255, 0, ... across */
  PAT_ROWS,                     /* and down */
  PAT_CHECKER,
  PAT_COUNT
} Pattern;

/* The sign of tap k = 0..5 of (1, -5, 20, 20, -5, 1). */
static int
tap_sign (unsigned k)
{
  return k % 6 == 1 || k % 6 == 4 ? -1 : 1;
}

static guint8
pattern_pixel (Pattern pat, unsigned x, unsigned y)
{
  switch (pat) {
    case PAT_RANDOM:
      return g_rand_int (checkasm.rand);
    case PAT_BITS:
      return g_rand_boolean (checkasm.rand) ? 255 : 0;
    case PAT_ZERO:
      return 0;
    case PAT_MAX:
      return 255;
    case PAT_TAPS_MAX:
      return tap_sign (x) * tap_sign (y) > 0 ? 255 : 0;
    case PAT_TAPS_MIN:
      return tap_sign (x) * tap_sign (y) < 0 ? 255 : 0;
    case PAT_COLUMNS:
      return x & 1 ? 255 : 0;
    case PAT_ROWS:
      return y & 1 ? 255 : 0;
    default:
      return (x ^ y) & 1 ? 255 : 0;
  }
}

#define HPEL_MAX_N 700
#define HPEL_MAX_STRIDE 800
#define HPEL_SIZE (6 * HPEL_MAX_STRIDE + 64)

/* Row lengths around the SIMD versions' steps (16, 32) and chunks (256,
 * with up to one more step in the last). */
static const int hpel_lengths[] = { 31, 32, 33, 47, 48, 63, 64, 65, 255, 256,
  257, 272, 273, 287, 288, 289, 290, 320, 511, 512, 543, 544, 545, 546, 576,
  577, 700
};

static gboolean
check_hpel_row (me_hpel_row_fn ref_fn, me_hpel_row_fn fn)
{
  static guint8 src[HPEL_SIZE];
  static guint8 a[3][HPEL_MAX_N + 2 * GUARD], b[3][HPEL_MAX_N + 2 * GUARD];
  const int n_lengths = G_N_ELEMENTS (hpel_lengths);

  for (int t = 0; t < 2 * N_TRIES; t++) {
    /* every pattern with full and short rows first, then the lengths that
     * end a step or a chunk, then any */
    const Pattern pat = t < 3 * PAT_COUNT ? (Pattern) (t % PAT_COUNT)
        : t % 3 ? PAT_RANDOM : PAT_BITS;
    const int n = t < PAT_COUNT ? HPEL_MAX_N
        : t < 3 * PAT_COUNT ? g_rand_int_range (checkasm.rand, 1, 40)
        : t < 3 * PAT_COUNT + 40 ? t - 3 * PAT_COUNT + 1
        : t < 3 * PAT_COUNT + 40 + n_lengths
        ? hpel_lengths[t - 3 * PAT_COUNT - 40]
        : g_rand_int_range (checkasm.rand, 1, HPEL_MAX_N + 1);
    ptrdiff_t stride = g_rand_int_range (checkasm.rand, n + 5,
        HPEL_MAX_STRIDE + 1);
    /* the bytes read: 2 rows and columns before each output, 3 after */
    const size_t span = 5 * stride + n + 5;
    /* at the start of the array (where the patterns' period of 6 lines
     * up with the taps), at its end (where address checkers see a read
     * outside), or anywhere; every pattern in each place */
    const int place = t < 3 * PAT_COUNT ? t / PAT_COUNT : t % 3;
    const size_t at = place == 0 ? 0 : place == 1 ? HPEL_SIZE - span
        : (size_t) g_rand_int_range (checkasm.rand, 0, HPEL_SIZE - span + 1);
    const guint8 *s = src + at + 2 * stride + 2;

    for (size_t i = 0; i < HPEL_SIZE; i++)
      src[i] = pattern_pixel (pat, i % stride, i / stride);
    memset (a, POISON, sizeof (a));
    memset (b, POISON, sizeof (b));
    ref_fn (s, stride, n, a[0] + GUARD, a[1] + GUARD, a[2] + GUARD);
    fn (s, stride, n, b[0] + GUARD, b[1] + GUARD, b[2] + GUARD);
    for (int p = 0; p < 3; p++)
      for (int i = 0; i < HPEL_MAX_N + 2 * GUARD; i++) {
        if (a[p][i] != b[p][i]) {
          printf ("  pattern %d n=%d stride=%td: %c[%d] = %u, C %u%s\n", pat,
              n, stride, "hvc"[p], i - GUARD, b[p][i], a[p][i],
              i < GUARD || i >= GUARD + n ? " (written outside)" : "");
          return FALSE;
        }
      }
  }
  return TRUE;
}

#define COST_MAX_STRIDE 200
#define COST_SIZE (16 * COST_MAX_STRIDE)

/* Sign of entry (u, v) of the 4x4 Hadamard basis function k. */
static int
hadamard_sign (int k, int x, int y)
{
  static const int H[4][4] = {
    {1, 1, 1, 1}, {1, 1, -1, -1}, {1, -1, -1, 1}, {1, -1, 1, -1}
  };
  return H[k & 3][x & 3] * H[(k >> 2) & 3][y & 3];
}

static gboolean
check_subpel_cost (me_subpel_cost_fn ref_fn, me_subpel_cost_fn fn)
{
  static guint8 cur[COST_SIZE], pa[COST_SIZE], pb[COST_SIZE];
  static const int sizes[] = { 4, 8, 16 };

  for (int t = 0; t < N_TRIES; t++) {
    const ptrdiff_t cs = g_rand_int_range (checkasm.rand, 16,
        COST_MAX_STRIDE + 1);
    const ptrdiff_t ps = g_rand_int_range (checkasm.rand, 16,
        COST_MAX_STRIDE + 1) | (t & 1);
    /* tries 0..15: the difference is +-255 along Hadamard basis function
     * t, so each 4x4 block has one coefficient of 16 x 255 (the first the
     * DC: all 255 against all 0); then all 0 against all 255 both ways;
     * +-255 alternating across, down, as a checkerboard and at random,
     * both signs; +-255 at random again; planes of 0 and 255 (whose mean
     * rounds); random pixels */
    const int kind = t < 16 ? 0 : t < 18 ? 1 : t < 30 ? 2 : t < 36 ? 3
        : t < 40 ? 4 : 5;

    for (size_t i = 0; i < COST_SIZE; i++) {
      cur[i] = g_rand_int (checkasm.rand);
      pa[i] = g_rand_int (checkasm.rand);
      pb[i] = g_rand_int (checkasm.rand);
    }
    for (int wi = 0; wi < 3; wi++)
      for (int hi = 0; hi < 3; hi++)
        for (int satd = 0; satd < 2; satd++) {
          const int w = sizes[wi], h = sizes[hi];
          const size_t cspan = (h - 1) * cs + w, pspan = (h - 1) * ps + w;
          /* blocks at the end of the arrays (where address checkers see a
           * read outside) or anywhere */
          const gboolean end = g_rand_boolean (checkasm.rand);
          guint8 *c = cur + (end ? COST_SIZE - cspan
              : (size_t) g_rand_int_range (checkasm.rand, 0,
                  COST_SIZE - cspan + 1));
          guint8 *a = pa + (end ? COST_SIZE - pspan
              : (size_t) g_rand_int_range (checkasm.rand, 0,
                  COST_SIZE - pspan + 1));
          guint8 *b = pb + (end ? COST_SIZE - pspan
              : (size_t) g_rand_int_range (checkasm.rand, 0,
                  COST_SIZE - pspan + 1));
          for (int y = 0; kind < 5 && y < h; y++)
            for (int x = 0; x < w; x++) {
              guint8 cv, av, bv;
              if (kind == 0) {
                cv = hadamard_sign (t, x, y) > 0 ? 255 : 0;
                av = bv = 255 - cv;
              } else if (kind == 1) {
                cv = t & 1 ? 255 : 0;
                av = bv = 255 - cv;
              } else if (kind == 2) {
                /* each pattern with both signs */
                cv = pattern_pixel (t / 2 % 4 == 0 ? PAT_BITS : t / 2 % 4 == 1
                    ? PAT_COLUMNS : t / 2 % 4 == 2 ? PAT_ROWS : PAT_CHECKER,
                    x, y);
                av = bv = 255 - cv;
                if (t & 1) {
                  av = bv = cv;
                  cv = 255 - cv;
                }
              } else if (kind == 3) {
                cv = pattern_pixel (PAT_BITS, x, y);
                av = bv = cv ^ 255;
              } else {
                cv = pattern_pixel (PAT_RANDOM, x, y);
                av = 0;
                bv = 255;
              }
              c[y * cs + x] = cv;
              a[y * ps + x] = av;
              b[y * ps + x] = bv;
            }
          uint32_t r = ref_fn (c, cs, a, b, ps, w, h, satd);
          uint32_t o = fn (c, cs, a, b, ps, w, h, satd);
          if (r != o) {
            printf ("  %dx%d %s try %d strides %td %td: %u, C %u\n", w, h,
                satd ? "satd" : "sad", t, cs, ps, o, r);
            return FALSE;
          }
        }
  }
  return TRUE;
}

/* The luma of packed and RGB rows, from the definitions alone
 * (luma_rules.h): the sample at each step, and for RGB the integer
 * weighted sum with its rounding written out, BT.601 and BT.709. */
static void
naive_luma_packed_row (uint8_t * dst, const uint8_t * src, int n, int step)
{
  for (int i = 0; i < n; i++)
    dst[i] = src[i * step];
}

static void
naive_luma_rgb_row (uint8_t * dst, const uint8_t * src, int n, int step,
    const uint8_t off[3], const uint16_t w[3])
{
  for (int i = 0; i < n; i++) {
    const uint8_t *p = src + i * step;
    const unsigned sum = w[0] * p[off[0]] + w[1] * p[off[1]]
        + w[2] * p[off[2]];
    dst[i] = (sum + 128) / 256;
  }
}

#define LUMA_MAX_N 700
#define LUMA_SIZE (4 * LUMA_MAX_N + 4)

/* Every packed 4:2:2 and RGB layout gpumotionest takes (the luma's byte in
 * a 2-byte pixel; R, G, B's bytes in a 4-byte pixel), short and long rows,
 * rows at the end of the array, and the extremes: black, white, each
 * channel alone at 255, random bytes.  The output's guard bytes must stay
 * untouched. */
static gboolean
check_luma_rows (me_luma_packed_row_fn packed_fn, me_luma_rgb_row_fn rgb_fn,
    me_luma_packed_row_fn packed_ref, me_luma_rgb_row_fn rgb_ref)
{
  static const uint8_t rgb_offsets[][3] = {
    {2, 1, 0}, {0, 1, 2}, {1, 2, 3}, {3, 2, 1},        /* BGRx RGBx xRGB xBGR */
  };
  static const uint16_t weights[][3] = { {77, 150, 29}, {54, 183, 19} };
  static guint8 src[LUMA_SIZE];
  static guint8 a[LUMA_MAX_N + 2 * GUARD], b[LUMA_MAX_N + 2 * GUARD];

  for (int t = 0; t < N_TRIES; t++) {
    const int n = t < 40 ? t + 1 : t < 50 ? LUMA_MAX_N
        : g_rand_int_range (checkasm.rand, 1, LUMA_MAX_N + 1);
    const int fill = t % 6;     /* 0 black, 1 white, 2..4 one channel */
    const int rgb = t & 1;
    const int step = rgb ? 4 : 2;
    const uint8_t *off = rgb_offsets[(t >> 1) % 4];
    const uint16_t *w = weights[(t >> 3) & 1];
    const size_t at = t % 3 == 0 ? LUMA_SIZE - (size_t) n * step
        : (size_t) g_rand_int_range (checkasm.rand, 0,
        LUMA_SIZE - n * step + 1);
    const int luma_at = (t >> 1) & 1;   /* YUY2/YVYU: 0, UYVY: 1 */

    for (size_t i = 0; i < LUMA_SIZE; i++) {
      const unsigned byte = i % 4;
      src[i] = fill == 0 ? 0 : fill == 1 ? 255 : fill == 5
          ? g_rand_int (checkasm.rand)
          : rgb && byte == off[fill - 2] ? 255 : rgb ? 0
          : g_rand_int (checkasm.rand);
    }
    memset (a, POISON, sizeof (a));
    memset (b, POISON, sizeof (b));
    if (rgb) {
      rgb_ref (a + GUARD, src + at, n, step, off, w);
      rgb_fn (b + GUARD, src + at, n, step, off, w);
    } else {
      /* the last sample read is at + luma_at + 2 (n - 1) < at + 2 n */
      packed_ref (a + GUARD, src + at + luma_at, n, step);
      packed_fn (b + GUARD, src + at + luma_at, n, step);
    }
    for (int i = 0; i < LUMA_MAX_N + 2 * GUARD; i++) {
      if (a[i] != b[i]) {
        printf ("  %s n=%d step=%d fill=%d: luma[%d] = %u, expected %u%s\n",
            rgb ? "rgb" : "packed", n, step, fill, i - GUARD, b[i], a[i],
            i < GUARD || i >= GUARD + n ? " (written outside)" : "");
        return FALSE;
      }
    }
    /* the weights sum to 256: black and white stay themselves */
    if (rgb && fill < 2 && b[GUARD] != (fill ? 255 : 0)) {
      printf ("  rgb fill=%d: luma %u\n", fill, b[GUARD]);
      return FALSE;
    }
  }
  return TRUE;
}

/* For every level, each routine that the level itself provides (differs
 * from the table one level down) against C. */
void
checkasm_check_dsp (void)
{
  unsigned have = me_cpu_flags ();
  MEDsp c;

  init_level (&c, -1);
  checkasm_report ("luma_rows_c", check_luma_rows (c.luma_packed_row,
          c.luma_rgb_row, naive_luma_packed_row, naive_luma_rgb_row));
  checkasm_report ("esa_row_c", check_esa_row (NULL, c.esa_row));
  for (int l = 0; l < (int) CHECKASM_N_LEVELS; l++) {
    MEDsp o, below;
    char name[64];

    if (!(have & checkasm_levels[l].flag)) {
      printf ("%-48s SKIP (not supported by this CPU)\n", checkasm_levels[l].name);
      continue;
    }
    init_level (&o, l);
    init_level (&below, l - 1);
#define CHECK(fn) \
    if (o.fn != below.fn) { \
      g_snprintf (name, sizeof (name), "%s_%s", #fn, checkasm_levels[l].name); \
      checkasm_report (name, check_##fn (c.fn, o.fn)); \
    }
    CHECK (sad16_row);
    CHECK (sad16_points);
    CHECK (min_key);
    CHECK (sea_row);
    CHECK (esa_row);
    CHECK (sad4x4_row);
    CHECK (sad8x8_points);
    CHECK (part_min);
    CHECK (hpel_row);
    CHECK (subpel_cost);
    if (o.luma_packed_row != below.luma_packed_row
        || o.luma_rgb_row != below.luma_rgb_row) {
      g_snprintf (name, sizeof (name), "luma_rows_%s", checkasm_levels[l].name);
      checkasm_report (name, check_luma_rows (o.luma_packed_row,
              o.luma_rgb_row, c.luma_packed_row, c.luma_rgb_row));
    }
#undef CHECK
  }
}

/* ns per candidate of each routine at each level, on the shapes the search
 * uses: rows of 33 and 65 candidates (R = 16, 32), groups of 1023. */
void
checkasm_bench_dsp (void)
{
  static guint8 cur[256] __attribute__((aligned (32)));
  static guint8 ref[REF_SIZE];
  static uint32_t sad[MAX_KEYS + 16];
  static uint16_t sad4[16 * 1040], rank[MAX_KEYS + 16];
  static uint32_t best[ME_DSP_N_PARTS];
  unsigned have = me_cpu_flags ();
  const int reps = 20000;

  fill_pixels (cur, ref, sizeof (ref), FILL_RANDOM);
  fill_keys (sad, sad4, G_N_ELEMENTS (sad4), rank, 1023, FALSE);
  printf ("%-8s %14s %14s %14s %14s %14s\n", "level", "sad16_row 33",
      "sad16_row 65", "min_key 1023", "sad4x4_row 33", "part_min 1023");
  printf ("%-8s %14s %14s %14s %14s %14s\n", "", "ns/cand", "ns/cand",
      "ns/cand", "ns/cand", "ns/cand");
  for (int l = -1; l < (int) CHECKASM_N_LEVELS; l++) {
    MEDsp d;
    double t[5], t0;
    volatile uint32_t sink = 0;

    if (l >= 0 && !(have & checkasm_levels[l].flag))
      continue;
    init_level (&d, l);
    for (int w = 0; w < 2; w++) {
      const int n = w ? 65 : 33;
      t0 = checkasm_now ();
      for (int r = 0; r < reps; r++)
        d.sad16_row (cur, ref + (r & 15), 600, n, sad);
      t[w] = (checkasm_now () - t0) / reps / n * 1e9;
    }
    t0 = checkasm_now ();
    for (int r = 0; r < reps; r++)
      sink += d.min_key (sad, rank, 1023);
    t[2] = (checkasm_now () - t0) / reps / 1023 * 1e9;
    t0 = checkasm_now ();
    for (int r = 0; r < reps; r++)
      d.sad4x4_row (cur, ref + (r & 15), 600, 33, sad4, 1024);
    t[3] = (checkasm_now () - t0) / reps / 33 * 1e9;
    t0 = checkasm_now ();
    for (int r = 0; r < reps / 10; r++)
      d.part_min (sad4, 1024, rank, 1023, best);
    t[4] = (checkasm_now () - t0) / (reps / 10) / 1023 * 1e9;
    printf ("%-8s %14.2f %14.2f %14.2f %14.2f %14.2f\n",
        l < 0 ? "c" : checkasm_levels[l].name, t[0], t[1], t[2], t[3], t[4]);
    (void) sink;
  }

  /* The luma of a 1920-pixel row of YUY2 and of BGRx, ns per pixel: what
   * reading packed and RGB input costs the CPU backend's copy. */
  {
    static guint8 src[4 * 1920], dst[1920];
    static const uint8_t bgrx[3] = { 2, 1, 0 };
    static const uint16_t w601[3] = { 77, 150, 29 };
    for (size_t i = 0; i < sizeof (src); i++)
      src[i] = g_rand_int (checkasm.rand);
    printf ("\n%-8s %14s %14s\n", "level", "luma YUY2", "luma BGRx");
    printf ("%-8s %14s %14s\n", "", "ns/pixel", "ns/pixel");
    for (int l = -1; l < (int) CHECKASM_N_LEVELS; l++) {
      MEDsp d;
      double t[2] = { G_MAXDOUBLE, G_MAXDOUBLE }, t0;

      if (l >= 0 && !(have & checkasm_levels[l].flag))
        continue;
      init_level (&d, l);
      for (int run = 0; run < 5; run++) {
        t0 = checkasm_now ();
        for (int r = 0; r < reps / 20; r++)
          d.luma_packed_row (dst, src + (r & 1), 1920, 2);
        t[0] = MIN (t[0], (checkasm_now () - t0) / (reps / 20) / 1920 * 1e9);
        t0 = checkasm_now ();
        for (int r = 0; r < reps / 20; r++)
          d.luma_rgb_row (dst, src, 1920, 4, bgrx, w601);
        t[1] = MIN (t[1], (checkasm_now () - t0) / (reps / 20) / 1920 * 1e9);
      }
      printf ("%-8s %14.3f %14.3f\n", l < 0 ? "c" : checkasm_levels[l].name, t[0],
          t[1]);
    }
  }

  /* The refinement's routines: the half-sample planes of a row as wide as
   * a padded 1080p plane (ns per pixel of the row), and the cost of one
   * candidate (ns per call) for the largest and smallest blocks. */
  static guint8 hp[3][2048], rows[6 * 2100];
  static const int cost_w[] = { 16, 16, 8, 4 }, cost_h[] = { 16, 16, 8, 4 };
  static const int cost_satd[] = { 0, 1, 1, 1 };
  const int hpel_n = 2043;
  for (size_t i = 0; i < sizeof (rows); i++)
    rows[i] = g_rand_int (checkasm.rand);
  printf ("\n%-8s %14s %14s %14s %14s %14s\n", "level", "hpel_row 2043",
      "subpel 16x16", "subpel 16x16", "subpel 8x8", "subpel 4x4");
  printf ("%-8s %14s %14s %14s %14s %14s\n", "", "ns/pixel", "sad ns",
      "satd ns", "satd ns", "satd ns");
  for (int l = -1; l < (int) CHECKASM_N_LEVELS; l++) {
    MEDsp d;
    double t[5], t0;
    volatile uint32_t sink = 0;

    if (l >= 0 && !(have & checkasm_levels[l].flag))
      continue;
    init_level (&d, l);
    /* the best of 5 runs: these are short, and a shared machine's other
     * work lands on some of them */
    for (int k = 0; k < 5; k++)
      t[k] = G_MAXDOUBLE;
    for (int run = 0; run < 5; run++) {
      t0 = checkasm_now ();
      for (int r = 0; r < reps / 500; r++)
        d.hpel_row (rows + 2 * 2100 + 2, 2100, hpel_n, hp[0], hp[1], hp[2]);
      t[0] = MIN (t[0], (checkasm_now () - t0) / (reps / 500) / hpel_n * 1e9);
      for (int k = 0; k < 4; k++) {
        t0 = checkasm_now ();
        for (int r = 0; r < reps / 5; r++)
          sink += d.subpel_cost (cur, 16, ref + (r & 15), ref + 601 + (r & 7),
              600, cost_w[k], cost_h[k], cost_satd[k]);
        t[1 + k] = MIN (t[1 + k], (checkasm_now () - t0) / (reps / 5) * 1e9);
      }
    }
    printf ("%-8s %14.2f %14.2f %14.2f %14.2f %14.2f\n",
        l < 0 ? "c" : checkasm_levels[l].name, t[0], t[1], t[2], t[3], t[4]);
    (void) sink;
  }
}
