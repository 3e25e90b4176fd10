/* gpumotionest — the partition and reference decision (ref_decision.h) on
 * hand-made cells, the expected results worked out from the definition.
 */
#include <string.h>
#include <glib.h>

#include "ref_decision.h"
#include "mode_decision.h"
#include "mvpred_rules.h"

#define NP GST_MOTION_VECTOR_PARTITION_COUNT

/* te(v): nothing for one reference, a bit for two, ue(v) beyond. */
static void
test_ref_idx_bits (void)
{
  g_assert_cmpuint (me_ref_idx_bits (0, 1), ==, 0);
  g_assert_cmpuint (me_ref_idx_bits (0, 2), ==, 1);
  g_assert_cmpuint (me_ref_idx_bits (1, 2), ==, 1);
  g_assert_cmpuint (me_ref_idx_bits (0, 4), ==, 1);
  g_assert_cmpuint (me_ref_idx_bits (1, 4), ==, 3);
  g_assert_cmpuint (me_ref_idx_bits (2, 4), ==, 3);
  g_assert_cmpuint (me_ref_idx_bits (3, 4), ==, 5);
}

/* With every neighbour of reference 0 the rules are those of one
 * reference (me_mvpred_combine); a neighbour alone in sharing the
 * partition's reference gives its vector where the median would not; the
 * directional rules follow the reference. */
static void
test_prediction_rules (void)
{
  GRand *rand = g_rand_new_with_seed (3);
  int px, py, qx, qy;

  for (int i = 0; i < 20000; i++) {
    const int p = g_rand_int_range (rand, 0, NP);
    const int gx = g_rand_int_range (rand, 0, 8), gy = g_rand_int_range (rand,
        0, 8);
    MEMvpredNeighbours n = { g_rand_int_range (rand, -1, 2),
      g_rand_int_range (rand, -1, 2), g_rand_int_range (rand, -1, 2)
    };
    int v[6];
    for (int k = 0; k < 6; k++)
      v[k] = g_rand_int_range (rand, -64, 65);
    me_mvpred_combine (p, gx, gy, n, v[0], v[1], v[2], v[3], v[4], v[5], &px,
        &py);
    me_mvpred_combine_refs (p, gx, gy, n.a >= 0 ? 0 : -1, n.b >= 0 ? 0 : -1,
        n.c >= 0 ? 0 : -1, 0, v[0], v[1], v[2], v[3], v[4], v[5], &qx, &qy);
    g_assert_cmpint (px, ==, qx);
    g_assert_cmpint (py, ==, qy);
  }
  g_rand_free (rand);

  /* A alone of reference 1: A's vector, not the median (8, 8) */
  me_mvpred_combine_refs (0, 1, 1, 1, 0, 0, 1, 4, 4, 8, 8, 12, 12, &px, &py);
  g_assert_cmpint (px, ==, 4);
  g_assert_cmpint (py, ==, 4);
  /* none of reference 1: the median */
  me_mvpred_combine_refs (0, 1, 1, 0, 0, 0, 1, 4, 4, 8, 8, 12, 12, &px, &py);
  g_assert_cmpint (px, ==, 8);
  /* 16x8 upper partition: B only when B has its reference */
  me_mvpred_combine_refs (1, 0, 2, 1, 0, 1, 1, 4, 4, 8, 8, 12, 12, &px, &py);
  g_assert_cmpint (px, ==, 8);  /* two of reference 1 (A, C): median */
  me_mvpred_combine_refs (1, 0, 2, 1, 1, 0, 1, 4, 4, 8, 8, 12, 12, &px, &py);
  g_assert_cmpint (px, ==, 8);  /* B: directional */
  me_mvpred_combine_refs (1, 0, 2, 0, 1, 0, 1, 4, 4, 20, 20, 12, 12, &px,
      &py);
  g_assert_cmpint (px, ==, 20);
}

static GstMotionVectorCell *
grid_new (int p, unsigned mb_cols, unsigned mb_rows)
{
  return g_new0 (GstMotionVectorCell, gst_motion_vector_grid_cols (p, mb_cols)
      * gst_motion_vector_grid_rows (p, mb_rows));
}

/* 8x4 partitions share their 8x8's reference: two cells that each prefer
 * another reference get the one whose sum is smaller. */
static void
test_sub8x8_share_reference (void)
{
  const GstMotionVectorCell *fields[2][NP] = { {NULL}, {NULL} };
  GstMotionVectorCell *g0 = grid_new (4, 1, 1), *g1 = grid_new (4, 1, 1);
  guint8 modes[1], refs[16];

  /* 8x4 grid of one macroblock: 2 columns x 4 rows; cells 0 and 2 are the
   * top-left 8x8's two partitions */
  for (int i = 0; i < 8; i++)
    g0[i].cost = g1[i].cost = 30;
  g0[0].cost = 10;
  g0[2].cost = 50;              /* reference 0: 60 */
  g1[0].cost = 40;
  g1[2].cost = 15;              /* reference 1: 55 */
  fields[0][4] = g0;
  fields[1][4] = g1;
  me_ref_decide (fields, 2, 1, 1, 0, modes, refs);
  g_assert_cmpuint (modes[0], ==, 4);
  /* the top-left 8x8 is blocks (0..1, 0..1) */
  g_assert_cmpuint (refs[0], ==, 1);
  g_assert_cmpuint (refs[1], ==, 1);
  g_assert_cmpuint (refs[4], ==, 1);
  g_assert_cmpuint (refs[5], ==, 1);
  /* elsewhere a tie: the earlier reference */
  g_assert_cmpuint (refs[2], ==, 0);
  g_assert_cmpuint (refs[15], ==, 0);
  g_free (g0);
  g_free (g1);
}

/* 16x16 on two macroblocks, lambda 4, worked by hand.  MB 0 has no
 * neighbour (prediction 0): reference 0 costs 100 + 4 (1 + 1 + 1) = 112,
 * reference 1 (vector (8, 0), se(8) = 9 bits) 90 + 4 (1 + 9 + 1) = 134:
 * reference 0.  MB 1's neighbour A is MB 0 (reference 0, (0, 0)); B and C
 * are missing, so they are A (8.4.1.3.1).  Reference 1 with vector (8, 0):
 * no neighbour of reference 1, median 0: 70 + 4 (1 + 9 + 1) = 114;
 * reference 0 (vector (0, 0)): 80 + 4 (1 + 1 + 1) = 92: reference 0. */
static void
test_lambda_by_hand (void)
{
  const GstMotionVectorCell *fields[2][NP] = { {NULL}, {NULL} };
  GstMotionVectorCell *g0 = grid_new (0, 2, 1), *g1 = grid_new (0, 2, 1);
  guint8 modes[2], refs[32];

  /* costs as a rate stage leaves them: with lambda x the bits of their
   * own MVD (mvd (0, 0): 2 bits; mvd (8, 0): 10 bits) */
  g0[0].cost = 100 + 4 * 2;
  g0[1].cost = 80 + 4 * 2;
  g1[0].mv_x = g1[0].mvd_x = 8;
  g1[0].cost = 90 + 4 * 10;
  g1[1].mv_x = 8;
  g1[1].cost = 70 + 4 * 2;      /* its own field predicted (8, 0): mvd 0 */
  fields[0][0] = g0;
  fields[1][0] = g1;
  me_ref_decide (fields, 2, 2, 1, 4, modes, refs);
  g_assert_cmpuint (refs[0], ==, 0);
  g_assert_cmpuint (refs[4], ==, 0);
  /* with MB 1's reference 1 cheaper by more than the rate: 50 + 44 = 94 <
   * 92 is false, 40 + 44 = 84 < 92 is true */
  g1[1].cost = 40 + 4 * 2;
  me_ref_decide (fields, 2, 2, 1, 4, modes, refs);
  g_assert_cmpuint (refs[0], ==, 0);
  g_assert_cmpuint (refs[4], ==, 1);
  g_free (g0);
  g_free (g1);
}

/* One reference: the shapes of me_mode_decide(), every block reference 0. */
static void
test_one_reference_is_mode_decision (void)
{
  GRand *rand = g_rand_new_with_seed (11);
  const unsigned mb_cols = 5, mb_rows = 4;
  const GstMotionVectorCell *fields[1][NP];
  GstMotionVectorCell *grids[NP];
  guint8 modes[20], want[20], refs[320];

  for (int p = 0; p < NP; p++) {
    const unsigned n = gst_motion_vector_grid_cols (p, mb_cols)
        * gst_motion_vector_grid_rows (p, mb_rows);
    grids[p] = grid_new (p, mb_cols, mb_rows);
    for (unsigned i = 0; i < n; i++)
      grids[p][i].cost = g_rand_int_range (rand, 0, 3000) / (1 + p);
    fields[0][p] = grids[p];
  }
  me_mode_decide (fields[0], mb_cols, mb_rows, 0, want);
  me_ref_decide (fields, 1, mb_cols, mb_rows, 0, modes, refs);
  g_assert_cmpmem (modes, 20, want, 20);
  for (int i = 0; i < 320; i++)
    g_assert_cmpuint (refs[i], ==, 0);
  for (int p = 0; p < NP; p++)
    g_free (grids[p]);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ref-decision/ref-idx-bits", test_ref_idx_bits);
  g_test_add_func ("/ref-decision/prediction", test_prediction_rules);
  g_test_add_func ("/ref-decision/sub8x8", test_sub8x8_share_reference);
  g_test_add_func ("/ref-decision/lambda", test_lambda_by_hand);
  g_test_add_func ("/ref-decision/one-reference",
      test_one_reference_is_mode_decision);
  return g_test_run ();
}
