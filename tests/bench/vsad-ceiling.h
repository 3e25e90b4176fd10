/* gpumotionest — the device's ceiling for packed byte SADs, which the
 * kernel-only benchmark divides its achieved rate by.  (Per-frame device
 * time comes through the backend's stats hook, MEBackendOptions.stats.) */
#ifndef VSAD_CEILING_H
#define VSAD_CEILING_H

#include <glib.h>
#include "me_backend.h"

G_BEGIN_DECLS

/* Runs a kernel that does nothing but chains of packed byte SADs
 * (VABSDIFF4 with accumulate, 8 independent chains per thread, many warps
 * per multiprocessor) on `device` and returns the rate in 4-byte SAD
 * operations per second. */
gboolean me_cuda_vsad_ceiling (
    int device, double *ops_per_second, GError **error);

G_END_DECLS

#endif /* VSAD_CEILING_H */
