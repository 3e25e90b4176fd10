/* gpumotionest — backend registry and input checks shared by all backends. */
#include "config.h"

#include <string.h>

#include "me_backend.h"
#include "me_cost.h"

G_DEFINE_QUARK (me-backend-error-quark, me_backend_error);

extern const MEBackendOps me_backend_cpu;
#if HAVE_CUDA
extern const MEBackendOps me_backend_cuda;
#endif

static const MEBackendOps *const backends[] = {
#if HAVE_CUDA
  &me_backend_cuda,
#endif
  &me_backend_cpu,
  NULL
};

const MEBackendOps *const *
me_backend_list (void)
{
  return backends;
}

const MEBackendOps *
me_backend_find (const char *name)
{
  for (const MEBackendOps * const *b = backends; *b; b++)
    if (strcmp ((*b)->name, name) == 0)
      return *b;
  return NULL;
}

gboolean
me_check_input (const MEPlane * luma, const MESearchParams * params,
    const MEField * out, GError ** error)
{
  if (!luma || !luma->data || luma->width < 1 || luma->height < 1
      || luma->width > ME_MAX_DIMENSION || luma->height > ME_MAX_DIMENSION) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "frame size %ux%u outside 1x1 .. %dx%d",
        luma ? luma->width : 0, luma ? luma->height : 0,
        ME_MAX_DIMENSION, ME_MAX_DIMENSION);
    return FALSE;
  }
  if (luma->stride < (ptrdiff_t) luma->width) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "luma stride %td smaller than width %u", luma->stride, luma->width);
    return FALSE;
  }
  if (params->search_range < 1 || params->search_range > ME_MAX_RANGE) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "search range %u outside 1 .. %d", params->search_range, ME_MAX_RANGE);
    return FALSE;
  }
  if ((params->partitions & GST_MOTION_VECTOR_PARTITIONS_ALL) == 0
      || (params->partitions & ~GST_MOTION_VECTOR_PARTITIONS_ALL) != 0) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "partition set 0x%x is empty or holds unknown shapes",
        (unsigned) params->partitions);
    return FALSE;
  }
  if (params->method != GST_MOTION_VECTOR_METHOD_FULL) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "unknown search method %d", (int) params->method);
    return FALSE;
  }
  if (out->mb_cols != gst_motion_vector_mb_cols (luma->width)
      || out->mb_rows != gst_motion_vector_mb_rows (luma->height)) {
    g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
        "field of %ux%u macroblocks does not match a %ux%u frame",
        out->mb_cols, out->mb_rows, luma->width, luma->height);
    return FALSE;
  }
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++) {
    if ((params->partitions & (1u << p)) && !out->grid[p]) {
      g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_INVALID,
          "no output grid for requested partition shape %d", p);
      return FALSE;
    }
  }
  return TRUE;
}
