/* gpumotionest — checkasm: the DSP routines of every SIMD level against
 * their C versions, on random and extreme inputs, with guard cells after
 * every output to catch writes past n. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checkasm.h"
#include "cpu/dsp.h"

#define MAX_N 257
#define GUARD 4
#define REF_ROWS 16
#define MAX_STRIDE 400

static const struct {
  const char *name;
  unsigned flag;
} levels[] = {
  {"sse2", ME_CPU_FLAG_SSE2},
  {"avx2", ME_CPU_FLAG_AVX2},
};

typedef enum { FILL_RANDOM, FILL_ZERO_VS_MAX, FILL_MAX_VS_ZERO } Fill;

static void
fill (guint8 * cur, guint8 * ref, size_t ref_size, Fill how)
{
  for (int i = 0; i < 256; i++)
    cur[i] = how == FILL_RANDOM ? g_rand_int (checkasm.rand)
        : how == FILL_ZERO_VS_MAX ? 0 : 255;
  for (size_t i = 0; i < ref_size; i++)
    ref[i] = how == FILL_RANDOM ? g_rand_int (checkasm.rand)
        : how == FILL_ZERO_VS_MAX ? 255 : 0;
}

/* One level's routines against C; returns TRUE when all agree. */
static gboolean
check_level (const MEDsp * c, const MEDsp * o, gboolean * tested16,
    gboolean * tested4)
{
  static guint8 cur[256] __attribute__((aligned (32)));
  static guint8 ref[(REF_ROWS + 1) * MAX_STRIDE + 64];
  static uint32_t sad_c[MAX_N + GUARD], sad_o[MAX_N + GUARD];
  static uint16_t blk_c[MAX_N + GUARD][16], blk_o[MAX_N + GUARD][16];
  gboolean ok = TRUE;

  for (int t = 0; t < 300 && ok; t++) {
    int n = t < 3 ? MAX_N : g_rand_int_range (checkasm.rand, 1, MAX_N + 1);
    int stride = g_rand_int_range (checkasm.rand, n + 15, MAX_STRIDE);
    int offset = g_rand_int_range (checkasm.rand, 0, 32);  /* misaligned */
    Fill how = t < 3 ? (Fill) t : FILL_RANDOM;

    fill (cur, ref, sizeof (ref), how == 0 ? FILL_ZERO_VS_MAX
        : how == 1 ? FILL_MAX_VS_ZERO : FILL_RANDOM);

    if (o->sad16_row != c->sad16_row) {
      *tested16 = TRUE;
      memset (sad_c, 0xcd, sizeof (sad_c));
      memset (sad_o, 0xcd, sizeof (sad_o));
      c->sad16_row (cur, ref + offset, stride, n, sad_c);
      o->sad16_row (cur, ref + offset, stride, n, sad_o);
      if (memcmp (sad_c, sad_o, sizeof (sad_c)) != 0) {
        for (int i = 0; i < n + GUARD; i++)
          if (sad_c[i] != sad_o[i]) {
            printf ("  sad16_row n=%d stride=%d: [%d] %u != C %u%s\n", n,
                stride, i, sad_o[i], sad_c[i], i >= n ? " (past n)" : "");
            break;
          }
        ok = FALSE;
      }
    }
    if (o->sad4x4_row != c->sad4x4_row) {
      *tested4 = TRUE;
      memset (blk_c, 0xcd, sizeof (blk_c));
      memset (blk_o, 0xcd, sizeof (blk_o));
      c->sad4x4_row (cur, ref + offset, stride, n, blk_c);
      o->sad4x4_row (cur, ref + offset, stride, n, blk_o);
      if (memcmp (blk_c, blk_o, sizeof (blk_c)) != 0) {
        for (int i = 0; i < n + GUARD; i++)
          for (int b = 0; b < 16; b++)
            if (blk_c[i][b] != blk_o[i][b]) {
              printf ("  sad4x4_row n=%d stride=%d: [%d][%d] %u != C %u%s\n",
                  n, stride, i, b, blk_o[i][b], blk_c[i][b],
                  i >= n ? " (past n)" : "");
              i = n + GUARD;
              break;
            }
        ok = FALSE;
      }
    }
  }
  return ok;
}

void
checkasm_check_dsp (void)
{
  unsigned have = me_cpu_flags ();
  MEDsp c;

  me_dsp_init (&c, 0);
  for (unsigned l = 0; l < G_N_ELEMENTS (levels); l++) {
    MEDsp o;
    gboolean t16 = FALSE, t4 = FALSE, ok;
    char name[64];

    if (!(have & levels[l].flag)) {
      printf ("dsp %-44s SKIP (not supported by this CPU)\n", levels[l].name);
      continue;
    }
    /* only this level's own routines: levels below it are masked in, the
     * ones above out, and routines it does not override stay C */
    me_dsp_init (&o, levels[l].flag | (levels[l].flag - 1));
    ok = check_level (&c, &o, &t16, &t4);
    if (t16 || t4) {
      g_snprintf (name, sizeof (name), "dsp %s (%s%s%s)", levels[l].name,
          t16 ? "sad16_row" : "", t16 && t4 ? ", " : "",
          t4 ? "sad4x4_row" : "");
      checkasm_report (name, ok);
    }
  }
}

void
checkasm_bench_dsp (void)
{
  static guint8 cur[256] __attribute__((aligned (32)));
  static guint8 ref[REF_ROWS * 600 + 64];
  static uint32_t sad[65];
  static uint16_t blk[65][16];
  unsigned have = me_cpu_flags ();

  fill (cur, ref, sizeof (ref), FILL_RANDOM);
  printf ("%-10s %18s %18s\n", "level", "sad16_row ns/cand",
      "sad4x4_row ns/cand");
  for (int l = -1; l < (int) G_N_ELEMENTS (levels); l++) {
    unsigned mask = l < 0 ? 0 : levels[l].flag | (levels[l].flag - 1);
    MEDsp d;
    double t16, t4, t0;
    const int reps = 20000;

    if (l >= 0 && !(have & levels[l].flag))
      continue;
    me_dsp_init (&d, mask);
    t0 = checkasm_now ();
    for (int r = 0; r < reps; r++)
      d.sad16_row (cur, ref + (r & 15), 600, 65, sad);
    t16 = (checkasm_now () - t0) / reps / 65 * 1e9;
    t0 = checkasm_now ();
    for (int r = 0; r < reps / 4; r++)
      d.sad4x4_row (cur, ref + (r & 15), 600, 65, blk);
    t4 = (checkasm_now () - t0) / (reps / 4) / 65 * 1e9;
    printf ("%-10s %18.2f %18.2f\n", l < 0 ? "c" : levels[l].name, t16, t4);
  }
}
