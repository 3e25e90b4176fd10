/* gpumotionest — one launcher per CUDA context: the full searches of the
 * sessions sharing that context, gathered into batched launches.
 *
 * A session adds a frame once it is uploaded (its ready event recorded);
 * frames of one setting (geometry, range, shapes, window) are launched
 * together, up to ME_CUDA_BATCH_MAX per launch of each kernel (key reset,
 * search, and the finish when no stage 3 follows), on the launcher's
 * stream.  Right after a launch the launcher calls each frame's tail, which
 * queues the rest of that frame (stage 3, the finish, the download, the
 * event its collect waits on) on the session's own stream behind the
 * launch's event.
 *
 * When: as soon as as many frames of one setting are pending as sessions
 * use the launcher (at most ME_CUDA_BATCH_MAX), or when a session needs a
 * pending frame (me_cuda_launcher_flush(): its collect, a reset, a close),
 * with at most ME_CUDA_LAUNCH_ROUNDS rounds of launches on the device at
 * once: a flush that finds them all busy waits for the oldest, and the
 * frames that arrived meanwhile go in the next round together.  So frames
 * pile up into batches while the chip is busy, and a lone session's frame
 * is launched when it is collected.  Nothing waits on a timer.
 *
 * A frame's result does not depend on its batch (me_cuda_kernels.h), so
 * every stream gets exactly what it would get alone.
 */
#ifndef ME_CUDA_BATCH_H
#define ME_CUDA_BATCH_H

#include <cuda_runtime.h>
#include <glib.h>

#include "me_cuda_kernels.h"

G_BEGIN_DECLS

typedef struct MECudaLauncher MECudaLauncher;

/* What the frames of one launch share; compared byte for byte, so it is
 * cleared before it is filled. */
typedef struct {
  MECudaGeometry g;
  unsigned range, range_y, partitions;
  int offset_qx;   /* the finish's window centre, quarter pixels */
  int finish;      /* the launch also runs the finish (no stage 3) */
  int sm_count;
} MECudaBatchSetting;

typedef struct MECudaBatchItem MECudaBatchItem;

/* Queues the rest of the item's frame on its session's stream, behind
 * `searched` (recorded after the launch that searched it).  Called by the
 * launcher, from whichever thread launches, with the item's `error` set
 * to the launch's result: a tail must record the event its collect waits
 * on whatever that is.  Returns the first error of its own calls. */
typedef cudaError_t (*MECudaBatchTail) (MECudaBatchItem *item,
    cudaEvent_t searched);

struct MECudaBatchItem {
  MECudaBatchSetting setting;
  MECudaBatchFrame frame; /* ref at the window's centre */
  size_t nkeys;           /* keys the search lowers */
  cudaEvent_t ready;      /* both frames uploaded and bordered */
  MECudaBatchTail tail;
  void *user;

  /* the launcher's: whether the frame still waits for a launch, and the
   * first error of its launch or tail */
  gboolean pending;
  cudaError_t error;
};

/* The launcher of the CUDA context current on the calling thread, created
 * on first use; each acquire counts a user until its release (in the same
 * context).  NULL when the context cannot be told (no driver entry point):
 * the caller then launches on its own. */
MECudaLauncher *me_cuda_launcher_acquire (int device);
void me_cuda_launcher_release (MECudaLauncher *l);

/* Sessions using the launcher now. */
unsigned me_cuda_launcher_users (MECudaLauncher *l);

/* Adds an uploaded frame (its ready event recorded) to the pending ones. */
void me_cuda_launcher_add (MECudaLauncher *l, MECudaBatchItem *item);

/* Returns once the item has been launched and its tail queued. */
void me_cuda_launcher_flush (MECudaLauncher *l, MECudaBatchItem *item);

G_END_DECLS

#endif /* ME_CUDA_BATCH_H */
