/* gpumotionest — checkasm: each DSP routine of each SIMD level against its
 * C version, on random and extreme inputs (all 0 against all 255, odd
 * strides, candidates at odd addresses, lengths that are not multiples of
 * the vector width), with guard values around every output to catch writes
 * where none belong. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checkasm.h"
#include "cpu/dsp.h"

#define MAX_N 300               /* candidates per SAD row call */
#define MAX_KEYS 1100           /* candidates per min_key / part_min call */
#define MAX_STRIDE 700
#define GUARD 16
#define POISON 0xcd
#define N_TRIES 200

typedef struct {
  const char *name;
  unsigned flag;
} Level;

static const Level levels[] = {
  {"sse2", ME_CPU_FLAG_SSE2},
  {"sse41", ME_CPU_FLAG_SSE41},
  {"avx2", ME_CPU_FLAG_AVX2},
};

/* The table of one level alone: every level up to it, none above. */
static void
init_level (MEDsp * d, int l)
{
  me_dsp_init (d, l < 0 ? 0 : levels[l].flag | (levels[l].flag - 1));
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
  *n = t < 3 ? MAX_N : t < 20 ? 1 + t : g_rand_int_range (checkasm.rand, 1,
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
    for (int i = 0; i < MAX_N + GUARD; i++) {
      if (a[i] != b[i]) {
        printf ("  n=%d stride=%td offset=%d: sad[%d] = %u, C %u%s\n", n,
            stride, offset, i, b[i], a[i], i >= n ? " (written past n)" : "");
        return FALSE;
      }
    }
  }
  return TRUE;
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
  for (int l = 0; l < (int) G_N_ELEMENTS (levels); l++) {
    MEDsp o, below;
    char name[64];

    if (!(have & levels[l].flag)) {
      printf ("%-48s SKIP (not supported by this CPU)\n", levels[l].name);
      continue;
    }
    init_level (&o, l);
    init_level (&below, l - 1);
#define CHECK(fn) \
    if (o.fn != below.fn) { \
      g_snprintf (name, sizeof (name), "%s_%s", #fn, levels[l].name); \
      checkasm_report (name, check_##fn (c.fn, o.fn)); \
    }
    CHECK (sad16_row);
    CHECK (min_key);
    CHECK (sea_row);
    CHECK (sad4x4_row);
    CHECK (part_min);
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
  for (int l = -1; l < (int) G_N_ELEMENTS (levels); l++) {
    MEDsp d;
    double t[5], t0;
    volatile uint32_t sink = 0;

    if (l >= 0 && !(have & levels[l].flag))
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
        l < 0 ? "c" : levels[l].name, t[0], t[1], t[2], t[3], t[4]);
    (void) sink;
  }
}
