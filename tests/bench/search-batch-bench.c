/* gpumotionest — what batching the frames of many streams into one launch
 * per kernel gives, at the kernel level.
 *
 * N frame pairs of one size (moving texture with noise, different for
 * every pair) are searched in three ways, each a loop of key reset, full
 * search and finish:
 *
 *   serial    N frames one after another on one stream (one session);
 *   streams   N frames each on a stream of its own, launches of different
 *             streams overlapping (N sessions sharing the device, as
 *             without batching);
 *   batch     the N frames in one launch per kernel (me_cuda_launch_*_batch).
 *
 * It prints frames per second of each, and checks that every frame's cells
 * are the same bytes in all three (exit status 1 where they differ).
 *
 * --chunks LIST times one frame per launch with the dy range of each
 * (macroblock, dx) thread split into that many balanced runs, 0 being the
 * launch's own choice: the measure behind that choice.
 *
 * Usage: search-batch-bench [--size WxH] [--range R] [--shapes 16x16|all]
 *                           [--batches LIST] [--chunks LIST] [--seconds S]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <glib.h>

#include "bench-frames.h"
#include "cuda/me_cuda_kernels.h"

#define MAXN ME_CUDA_BATCH_MAX

typedef struct {
  MECudaGeometry g;
  unsigned range, parts;
  size_t ncells;
  int sm_count;
  MECudaBatchFrame f[MAXN];
  uint8_t *planes[MAXN + 1]; /* frame i searched against frame i + 1 */
  cudaStream_t streams[MAXN];
} Bench;

#define CK(call)                                                            \
  do {                                                                      \
    cudaError_t e_ = (call);                                                \
    if (e_ != cudaSuccess) {                                                \
      fprintf (stderr, "%s: %s\n", #call, cudaGetErrorString (e_));         \
      exit (2);                                                             \
    }                                                                       \
  } while (0)

static void
setup (Bench *b, unsigned w, unsigned h, unsigned range, unsigned parts)
{
  memset (b, 0, sizeof *b);
  me_cuda_geometry_init (&b->g, w, h, 1);
  b->range = range;
  b->parts = parts;
  guint64 offsets[GST_MOTION_VECTOR_PARTITION_COUNT];
  b->ncells = gst_motion_vector_grid_offsets (
      (GstMotionVectorPartitionFlags)parts, b->g.mb_cols, b->g.mb_rows,
      offsets);
  int dev = 0;
  CK (cudaGetDevice (&dev));
  CK (cudaDeviceGetAttribute (&b->sm_count, cudaDevAttrMultiProcessorCount,
      dev));

  GRand *rand = g_rand_new_with_seed (7);
  uint8_t *host = g_malloc ((size_t)w * h);
  for (unsigned i = 0; i <= MAXN; i++) {
    /* pairs of consecutive frames of the moving texture, each pair from a
     * different point of the sequence */
    bench_frame (host, w, w, h, BENCH_CONTENT_MOVING, 3 * i, rand);
    CK (cudaMalloc ((void **)&b->planes[i], me_cuda_frame_bytes (&b->g)));
    CK (cudaMemcpy2D (b->planes[i] + ME_CUDA_PAD * b->g.pitch + ME_CUDA_PAD,
        b->g.pitch, host, w, w, h, cudaMemcpyHostToDevice));
    CK (me_cuda_launch_pad (b->planes[i], &b->g, 0));
  }
  g_free (host);
  g_rand_free (rand);
  for (unsigned i = 0; i < MAXN; i++) {
    b->f[i].cur = b->planes[i];
    b->f[i].ref = b->planes[i + 1];
    CK (cudaMalloc ((void **)&b->f[i].keys, b->ncells * 8));
    CK (cudaMalloc ((void **)&b->f[i].cells, b->ncells * 16));
    CK (cudaStreamCreateWithFlags (&b->streams[i], cudaStreamNonBlocking));
  }
  CK (cudaDeviceSynchronize ());
}

static void
teardown (Bench *b)
{
  for (unsigned i = 0; i <= MAXN; i++)
    cudaFree (b->planes[i]);
  for (unsigned i = 0; i < MAXN; i++) {
    cudaFree (b->f[i].keys);
    cudaFree (b->f[i].cells);
    cudaStreamDestroy (b->streams[i]);
  }
}

typedef enum { SERIAL, STREAMS, BATCH } Way;

/* --chunks: the split of the serial way, 0 automatic */
static unsigned force_chunks;

/* One round: the n frames searched the given way. */
static void
round_of (Bench *b, Way way, unsigned n)
{
  if (way == BATCH) {
    CK (me_cuda_launch_key_reset_batch (b->f, n, b->ncells, b->streams[0]));
    CK (me_cuda_launch_search_batch (b->f, n, &b->g, b->range, b->range,
        b->parts, b->sm_count, b->streams[0]));
    CK (me_cuda_launch_finish_batch (b->f, n, &b->g, b->parts, 0,
        b->streams[0]));
    return;
  }
  for (unsigned i = 0; i < n; i++) {
    cudaStream_t st = b->streams[way == STREAMS ? i : 0];
    CK (cudaMemsetAsync (b->f[i].keys, 0xff, b->ncells * 8, st));
    CK (me_cuda_launch_search_split (&b->f[i], 1, &b->g, b->range, b->range,
        b->parts, b->sm_count, way == SERIAL ? force_chunks : 0, st));
    CK (me_cuda_launch_finish (b->f[i].keys, b->f[i].cells, &b->g, b->parts,
        0, st));
  }
}

/* Frames per second of the way over `seconds`. */
static double
time_way (Bench *b, Way way, unsigned n, double seconds)
{
  round_of (b, way, n); /* warm */
  CK (cudaDeviceSynchronize ());
  gint64 t0 = g_get_monotonic_time (), t;
  guint64 rounds = 0;
  do {
    for (int k = 0; k < 8; k++, rounds++)
      round_of (b, way, n);
    CK (cudaDeviceSynchronize ());
    t = g_get_monotonic_time ();
  } while (t - t0 < seconds * 1e6);
  return (double)rounds * n / ((t - t0) / 1e6);
}

/* The n frames' cells, downloaded. */
static GstMotionVectorCell *
cells_of (Bench *b, unsigned n)
{
  GstMotionVectorCell *c = g_new (GstMotionVectorCell, b->ncells * n);
  for (unsigned i = 0; i < n; i++)
    CK (cudaMemcpy (c + i * b->ncells, b->f[i].cells, b->ncells * 16,
        cudaMemcpyDeviceToHost));
  return c;
}

int
main (int argc, char **argv)
{
  unsigned w = 1920, h = 1080, range = 16;
  const char *shapes = "16x16", *batches = "1,2,4,8,16", *chunks = NULL;
  double seconds = 1.0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--size") && i + 1 < argc &&
        sscanf (argv[i + 1], "%ux%u", &w, &h) == 2)
      i++;
    else if (!strcmp (argv[i], "--range") && i + 1 < argc)
      range = (unsigned)atoi (argv[++i]);
    else if (!strcmp (argv[i], "--shapes") && i + 1 < argc)
      shapes = argv[++i];
    else if (!strcmp (argv[i], "--batches") && i + 1 < argc)
      batches = argv[++i];
    else if (!strcmp (argv[i], "--chunks") && i + 1 < argc)
      chunks = argv[++i];
    else if (!strcmp (argv[i], "--seconds") && i + 1 < argc)
      seconds = atof (argv[++i]);
    else {
      fprintf (stderr,
          "usage: %s [--size WxH] [--range R] [--shapes 16x16|all] "
          "[--batches LIST] [--chunks LIST] [--seconds S]\n",
          argv[0]);
      return 2;
    }
  }
  const unsigned parts = !strcmp (shapes, "all")
                             ? GST_MOTION_VECTOR_PARTITIONS_ALL
                             : GST_MOTION_VECTOR_PARTITIONS_16X16;
  int count = 0;
  if (cudaGetDeviceCount (&count) != cudaSuccess || count == 0) {
    printf ("no CUDA device: nothing to measure\n");
    return 77;
  }
  struct cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));

  Bench b;
  setup (&b, w, h, range, parts);
  printf ("%s, %ux%u R=%u %s, full search, frames/s (kernels only)\n",
      prop.name, w, h, range, shapes);
  printf ("%4s %10s %10s %10s %8s\n", "N", "serial", "streams", "batch",
      "cells");

  int status = 0;
  if (chunks) {
    /* one frame per launch, split each way, cells against the automatic
     * split's */
    force_chunks = 0;
    time_way (&b, SERIAL, 1, 0.01);
    GstMotionVectorCell *want = cells_of (&b, 1);
    gchar **cl = g_strsplit (chunks, ",", -1);
    for (gchar **l = cl; *l; l++) {
      force_chunks = (unsigned)atoi (*l);
      const double fps = time_way (&b, SERIAL, 1, seconds);
      GstMotionVectorCell *got = cells_of (&b, 1);
      const gboolean same = !memcmp (want, got, b.ncells * 16);
      printf ("chunks %2u %10.1f %8s\n", force_chunks, fps,
          same ? "same" : "DIFFER");
      if (!same)
        status = 1;
      g_free (got);
    }
    g_strfreev (cl);
    g_free (want);
    force_chunks = 0;
    batches = "";
  }
  gchar **list = g_strsplit (batches, ",", -1);
  for (gchar **l = list; *l; l++) {
    unsigned n = (unsigned)atoi (*l);
    if (n < 1 || n > MAXN)
      continue;
    double fps[3];
    GstMotionVectorCell *cells[3];
    for (int way = 0; way < 3; way++) {
      fps[way] = time_way (&b, (Way)way, n, seconds);
      cells[way] = cells_of (&b, n);
    }
    const size_t bytes = b.ncells * n * 16;
    const gboolean same = !memcmp (cells[0], cells[1], bytes) &&
                          !memcmp (cells[0], cells[2], bytes);
    printf ("%4u %10.1f %10.1f %10.1f %8s\n", n, fps[SERIAL], fps[STREAMS],
        fps[BATCH], same ? "same" : "DIFFER");
    if (!same)
      status = 1;
    for (int way = 0; way < 3; way++)
      g_free (cells[way]);
  }
  g_strfreev (list);
  teardown (&b);
  return status;
}
