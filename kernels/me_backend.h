/* gpumotionest — the backend interface: the seam between the element and
 * the code that searches.
 *
 * A backend is a table of functions (MEBackendOps) over an opaque session.
 * The element calls only these; it never sees CUDA or SIMD.  Backends are
 * found by name through me_backend_find(); "cpu" always exists.
 *
 * Work is queued: submit() hands a frame over and returns, collect() waits
 * for the oldest frame submitted and completes its MEField.  A backend that
 * searches synchronously (the CPU one) does the work in submit(); one that
 * overlaps transfers and compute (CUDA) keeps up to max_in_flight frames
 * queued.  Frames are searched against the frame submitted just before them
 * since the last reset(); the backend keeps that reference itself.
 */
#ifndef ME_BACKEND_H
#define ME_BACKEND_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <gst/motionvectors/gstmotionvectortypes.h>

G_BEGIN_DECLS

#define ME_BACKEND_ERROR (me_backend_error_quark ())
GQuark me_backend_error_quark (void);

typedef enum {
  ME_BACKEND_ERROR_UNAVAILABLE,   /* no device, no driver, not built */
  ME_BACKEND_ERROR_INVALID,       /* bad parameters or frame */
  ME_BACKEND_ERROR_NO_MEMORY,     /* frame does not fit */
  ME_BACKEND_ERROR_DEVICE,        /* the device failed; message from it */
} MEBackendError;

/* One 8-bit luma plane.  `data` must stay readable until the frame has been
 * collected; the backend never writes to it. */
typedef struct {
  const uint8_t *data;
  ptrdiff_t stride;
  unsigned width;
  unsigned height;
} MEPlane;

typedef struct {
  unsigned search_range;                   /* ±pixels, 1 .. ME_MAX_RANGE */
  GstMotionVectorPartitionFlags partitions; /* at least one shape */
  GstMotionVectorMethod method;
} MESearchParams;

/* Where a frame's results go: one grid per requested shape, sized by
 * gst_motion_vector_grid_cols/rows() for mb_cols x mb_rows macroblocks, NULL
 * for shapes not requested.  After collect(), every cell of every requested
 * grid holds vector, cost, prediction and MVD; `has_reference` says whether
 * there was a reference (if not, every cell is zero). */
typedef struct {
  unsigned mb_cols;
  unsigned mb_rows;
  GstMotionVectorCell *grid[GST_MOTION_VECTOR_PARTITION_COUNT];
  gboolean has_reference;
} MEField;

typedef struct MESession MESession;

typedef struct {
  const char *name;

  /* Opens a session on `device` (-1: the backend's choice).  Fails with
   * ME_BACKEND_ERROR_UNAVAILABLE when the backend cannot run here. */
  MESession *(*open) (int device, GError ** error);
  void (*close) (MESession * s);

  /* How many frames may be submitted before one must be collected, and
   * the depth that suits this backend best (optional: max when NULL). */
  unsigned (*max_in_flight) (MESession * s);
  unsigned (*default_in_flight) (MESession * s);
  /* Sets how many frames to keep in flight (1 .. max_in_flight). */
  void (*set_in_flight) (MESession * s, unsigned depth);

  gboolean (*submit) (MESession * s, const MEPlane * luma,
      const MESearchParams * params, MEField * out, GError ** error);
  gboolean (*collect) (MESession * s, GError ** error);
  /* Optional (NULL when plain memory is as good): allocates host memory the
   * backend reads fastest, page-locked for a GPU, so that the element can
   * offer it upstream in a buffer pool.  Independent of any session: memory
   * may outlive the session that was open when it was allocated. */
  void *(*host_alloc) (size_t size);
  void (*host_free) (void *ptr);

  /* Drops frames in flight (their fields are left undefined) and forgets
   * the reference. */
  void (*reset) (MESession * s);
} MEBackendOps;

/* The backends built in, in order of preference for "auto" (fastest first,
 * "cpu" last). */
const MEBackendOps *const *me_backend_list (void);
const MEBackendOps *me_backend_find (const char *name);

/* Validates parameters and frame geometry; every backend calls it first. */
gboolean me_check_input (const MEPlane * luma, const MESearchParams * params,
    const MEField * out, GError ** error);

#define ME_MAX_DIMENSION 8192

G_END_DECLS

#endif /* ME_BACKEND_H */
