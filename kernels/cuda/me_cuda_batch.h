/* gpumotionest — one launcher per CUDA context: the full searches of the
 * sessions sharing that context, gathered into batched launches.
 *
 * A session adds a frame once it is uploaded (its ready event recorded);
 * frames of one setting (geometry, range, shapes, window) are launched
 * together, up to ME_CUDA_BATCH_MAX per launch of each kernel (key reset,
 * search, and the finish when no stage 3 follows), on the launcher's
 * stream.  Right after a launch the launcher records each frame's
 * `searched` event; the session queues the rest of that frame (stage 3,
 * the finish, the download, the event its collect waits on) on its own
 * stream behind that event, on its own thread, when it flushes the frame.
 * So the launcher's lock covers the launches and one event a frame, and
 * the per-frame calls of many sessions run on their own threads at once
 * (with the tails under the lock, one thread made every frame's calls:
 * docs/scaling.md, "Batched launches").
 *
 * When: as soon as as many frames of one setting are pending as sessions
 * use the launcher (at most ME_CUDA_BATCH_MAX), or when a session needs a
 * pending frame (me_cuda_launcher_flush(): its collect, or any wait for
 * all its work: a reset, a close, a buffer that grows),
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

typedef struct {
  MECudaBatchSetting setting;
  MECudaBatchFrame frame; /* ref at the window's centre */
  size_t nkeys;           /* keys the search lowers */
  cudaEvent_t ready;      /* both frames uploaded and bordered */
  /* the session's: recorded on the launcher's stream after the launch
   * that searched the frame, for the rest of the frame to wait on */
  cudaEvent_t searched;

  /* the launcher's: whether the frame still waits for a launch, the
   * first error of its launch (to which the session adds its tail's,
   * once it has the item back), and whether `searched` was recorded
   * after it: whenever the launch queued anything for the frame, even if
   * a later kernel of it failed, so that the frame's slot waits for
   * whatever of the launch runs before its buffers are used again */
  gboolean pending;
  cudaError_t error;
  gboolean recorded;
} MECudaBatchItem;

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

/* Returns once the item has been launched: its `searched` event is then
 * recorded (`recorded`) unless nothing of the launch was queued, and
 * `error` says whether the launch failed. */
void me_cuda_launcher_flush (MECudaLauncher *l, MECudaBatchItem *item);

G_END_DECLS

#endif /* ME_CUDA_BATCH_H */
