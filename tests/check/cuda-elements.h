/* gpumotionest — what the tests of frames in CUDA memory share: whether
 * such frames can be made here, and which CUDA context an element works
 * in. */
#ifndef CUDA_ELEMENTS_H
#define CUDA_ELEMENTS_H

#include <gst/gst.h>

/* Whether frames in CUDA memory can be made here and `element` takes them:
 * cudaupload exists, `element`'s sink template offers memory:CUDAMemory
 * (it was built with GStreamer's CUDA library), and a GPU moves two frames
 * through cudaupload.  Decided once, before the pipelines under test, so
 * that their failure is a failure and not a missing GPU. */
gboolean cuda_elements_usable (const gchar * element);

/* Whether cudaupload takes system-memory frames of `format` (its sink
 * template: the formats GStreamer's CUDA library converts differ between
 * versions, GRAY16_LE among them). */
gboolean cuda_upload_takes (const gchar * format);

/* The CUDA context `element` answers a CONTEXT query with on its pad
 * `pad_name` (NULL: none), referenced. */
GObject *cuda_elements_pad_context (GstElement * element,
    const gchar * pad_name);

#endif /* CUDA_ELEMENTS_H */
