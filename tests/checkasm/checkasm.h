/* gpumotionest — checkasm: every optimized routine and every backend
 * against the C reference, exactly. */
#ifndef CHECKASM_H
#define CHECKASM_H

#include <glib.h>
#include <stdint.h>

#include "me_backend.h"

typedef struct {
  GRand *rand;
  gboolean bench;
  const char *backend;          /* --backend: compare only this one */
  unsigned threads;             /* --threads: CPU threads, 0 for all */
  /* --devices: what backends split over several devices get (default
   * three sessions on device 0, so that the split is checked on a machine
   * with one GPU) */
  int devices[ME_MAX_DEVICES];
  unsigned n_devices;
  unsigned failures;
} CheckasmState;

extern CheckasmState checkasm;

/* The SIMD levels, ascending (ME_CPU_FLAG_*, dsp.h), checked against C
 * at both sample sizes (check_dsp.c, check_dsp16.c). */
typedef struct {
  const char *name;
  unsigned flag;
} CheckasmLevel;

#define CHECKASM_N_LEVELS 4
extern const CheckasmLevel checkasm_levels[CHECKASM_N_LEVELS];

/* Prints "name: OK" or "name: FAILED" and counts failures. */
void checkasm_report (const char *name, gboolean ok);
double checkasm_now (void);
/* Partition k (0 .. 40, the shape table's block order) as a rectangle of
 * 4x4 blocks, from the shape table's geometry alone: its top left block
 * (bx0, by0) and its size w x h, in blocks. */
void checkasm_part_rect (int k, int *bx0, int *by0, int *w, int *h);

/* Frames and fields shared by the searches' checks (check_search.c). */
typedef enum {
  CONTENT_NOISE,                /* independent random frames */
  CONTENT_SHIFT,                /* a random world seen from moving offsets */
  CONTENT_FLAT,                 /* one grey level: every candidate ties */
  CONTENT_TWO_LEVEL,            /* random 0/1 pixels: many ties */
  CONTENT_COUNT
} Content;

extern const char *const checkasm_content_names[];

typedef struct {
  MEField field;
  GstMotionVectorCell *cells;
  size_t n_cells;
  const MEBackendOps *mem;      /* cells from its host_alloc, or NULL */
} Field;

/* Cells for a w x h field of shapes `parts`, poisoned, in the host memory
 * of `mem` when it has its own (NULL: the heap). */
void checkasm_field_alloc_in (Field * f, unsigned w, unsigned h,
    unsigned parts, const MEBackendOps * mem);
void checkasm_field_free (Field * f);
/* A w x h frame of `content` with rows `stride` bytes apart (the slack
 * random); CONTENT_SHIFT frames are the window at (ox, oy) of `world`. */
guint8 *checkasm_make_frame (Content content, unsigned w, unsigned h,
    ptrdiff_t stride, const guint8 * world, unsigned world_w, int ox, int oy);

/* The groups of checks; each returns nothing and reports as it goes. */
void checkasm_check_dsp (void);
/* The 16-bit DSP (check_dsp16.c), against naive rules and across levels. */
void checkasm_check_dsp16 (void);
void checkasm_check_search (void);
/* The CPU backend on 10- to 16-bit samples against the naive search. */
void checkasm_check_search_deep (void);
void checkasm_check_search_wide (void);
void checkasm_check_fast (void);
/* Searches against other frames than the previous one (submit_pairs):
 * the CPU backend against its own searches of each pair alone. */
void checkasm_check_refs (void);
/* The same reference lists through backend `s` against `cpu_s`, every
 * field compared; FALSE (and a message) on the first difference. */
gboolean checkasm_check_backend_refs (MEBackend * s, MEBackend * cpu_s,
    GError ** error);
/* Several sessions of backend `name` at once (check_batch.c), interleaved
 * and on threads, each stream against `cpu_s` alone. */
gboolean checkasm_check_backend_batch (const char *name, MEBackend * cpu_s,
    GError ** error);
/* The integer winner keys of a fast method (docs/fast-search.md) for every
 * cell of the grids winners[p] points to (NULL: shape not wanted), from
 * the definitions alone; guide_out receives each macroblock's guide winner
 * (dx, dy) and `temporal` is the previous frame's, or NULL. */
void checkasm_naive_fast (const guint8 * cur, const guint8 * ref,
    ptrdiff_t stride, unsigned w, unsigned h, const MESearchParams * params,
    const gint16 * temporal, gint16 * guide_out,
    uint64_t * winners[GST_MOTION_VECTOR_PARTITION_COUNT]);
/* Opens backend `name` with checkasm's options ("cpu-c": the CPU backend
 * with C routines only, one thread, no early-out); NULL and an error when
 * it is not built or cannot run here. */
MEBackend *checkasm_open_backend (const char *name, GError ** error);
/* Returns 77 when the backend is not available, else 0. */
int checkasm_check_backend (const char *name);

/* Motion compensation (check_mc.c): `which` NULL: the C reference on
 * threads against itself, then CUDA when usable (a SKIP line otherwise);
 * "c" or "cuda": that part alone.  Returns 77 when "cuda" cannot run here,
 * 2 for another name, else 0 (failures are counted). */
int checkasm_check_mc (const char *which);

void checkasm_bench_dsp (void);
void checkasm_bench_backends (void);
/* Times a backend (NULL: "cpu") on the luma of raw I420 frames in a file;
 * returns an exit status. */
int checkasm_bench_file (const char *path, unsigned width, unsigned height,
    const char *backend);

/* The motion summary's core reduced on the GPU against the host's
 * (check_summary.c); 77 with `backend` "cuda" and no GPU, 2 for another
 * backend. */
int checkasm_check_summary (const char *backend);

#endif /* CHECKASM_H */
