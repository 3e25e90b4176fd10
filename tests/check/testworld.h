/* gpumotionest tests — a random world to cut frames from.
 *
 * Uniform random bytes from a fixed seed: every block is textured, so each
 * search has exactly one best match and a test can state the vectors it
 * expects.  Each test keeps its own size and seed (its expected values
 * depend on them). */
#ifndef TEST_WORLD_H
#define TEST_WORLD_H

#include <glib.h>

static inline guint8 *
test_world_new (guint width, guint height, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 *world = g_malloc ((gsize) width * height);

  for (gsize i = 0; i < (gsize) width * height; i++)
    world[i] = g_rand_int (rand) & 0xff;
  g_rand_free (rand);
  return world;
}

#endif /* TEST_WORLD_H */
