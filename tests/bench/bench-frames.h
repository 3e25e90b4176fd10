/* gpumotionest — synthetic luma frames for the benchmark and the backend
 * equivalence check: textured content moving in blocks of different
 * directions, sensor-like noise, and flat or two-level areas that make many
 * candidates cost the same (so tie-breaking is exercised). */
#ifndef BENCH_FRAMES_H
#define BENCH_FRAMES_H

#include <glib.h>
#include <stdint.h>
#include <string.h>

typedef enum {
  BENCH_CONTENT_NOISE,          /* independent random bytes per frame */
  BENCH_CONTENT_MOVING,         /* texture moving, regions differ, noise */
  BENCH_CONTENT_FLAT,           /* a single grey level: all costs tie */
  BENCH_CONTENT_TWO_LEVEL,      /* random 0/1 pixels: very many ties */
} BenchContent;

/* Smooth texture with detail at several scales, value at (x, y). */
static inline uint8_t
bench_texture (int x, int y, guint32 seed)
{
  guint32 h = (guint32) (x * 374761393 + y * 668265263) ^ seed;
  h = (h ^ (h >> 13)) * 1274126177u;
  int v = 128 + (int) (60 * ((x / 7 + y / 11) % 3 - 1))
      + (int) ((x * 3 + y * 5) % 41) - 20 + (int) ((h >> 24) & 15) - 8;
  return (uint8_t) CLAMP (v, 0, 255);
}

/* Frame `index` of a sequence: writes width x height pixels at `data`
 * with `stride` bytes per row. */
static inline void
bench_frame (uint8_t * data, ptrdiff_t stride, unsigned width,
    unsigned height, BenchContent content, unsigned index, GRand * rand)
{
  for (unsigned y = 0; y < height; y++) {
    uint8_t *row = data + y * stride;
    for (unsigned x = 0; x < width; x++) {
      switch (content) {
        case BENCH_CONTENT_NOISE:
          row[x] = (uint8_t) g_rand_int (rand);
          break;
        case BENCH_CONTENT_FLAT:
          row[x] = 77;
          break;
        case BENCH_CONTENT_TWO_LEVEL:
          row[x] = (uint8_t) (g_rand_int (rand) & 1);
          break;
        case BENCH_CONTENT_MOVING:{
          /* quadrants of the picture move differently, by up to 3 pixels
           * per frame; a little noise on top */
          int qx = x * 2 >= width, qy = y * 2 >= height;
          int vx = qx ? 3 : -2, vy = qy ? 1 : -3;
          int v = bench_texture ((int) x - vx * (int) index,
              (int) y - vy * (int) index, 0x9e3779b9u) +
              (int) (g_rand_int (rand) % 5) - 2;
          row[x] = (uint8_t) CLAMP (v, 0, 255);
          break;
        }
      }
    }
  }
}

#endif /* BENCH_FRAMES_H */
