/* gpumotionest — measurements of the CUDA backend for the benchmark
 * program: device time spent in the search kernels, and the device's
 * ceiling for packed byte SADs. */
#ifndef ME_CUDA_BENCH_H
#define ME_CUDA_BENCH_H

#include <glib.h>
#include "me_backend.h"

G_BEGIN_DECLS

/* Device time (milliseconds, from CUDA events around the key reset, the
 * search and the prediction kernels) summed over the frames with a
 * reference collected since the last clear, and how many there were. */
void me_cuda_session_kernel_time (MESession * s, double *ms, guint64 * frames);
void me_cuda_session_clear_kernel_time (MESession * s);

/* Name and multiprocessor count of the session's device. */
void me_cuda_session_device (MESession * s, char *name, size_t name_size,
    int *sm_count);

/* Runs a kernel that does nothing but chains of packed byte SADs
 * (VABSDIFF4 with accumulate, 8 independent chains per thread, many warps
 * per multiprocessor) on `device` and returns the rate in 4-byte SAD
 * operations per second. */
gboolean me_cuda_vsad_ceiling (int device, double *ops_per_second,
    GError ** error);

G_END_DECLS

#endif /* ME_CUDA_BENCH_H */
