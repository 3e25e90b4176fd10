/* Page-locked blocks freed while the process ends.
 *
 * An application whose static object owns a pipeline closes it from the
 * object's destructor, after the CUDA runtime has begun unloading; the
 * element's buffers and result cells then go back to me_cuda_host_free().
 * Asked then, CUDA cannot say whether a pointer is page-locked: a free that
 * asked would hand a page-locked block to g_free() and crash.  An exit
 * handler registered before the runtime's own runs after it, as such a
 * destructor does.  Skips (77) without a usable GPU. */
#include <stdlib.h>

#include "cuda/me_cuda_host.h"

static void *late;

static void
free_late (void)
{
  me_cuda_host_free (late);
}

int
main (void)
{
  atexit (free_late);
  if (me_cuda_device_count () == 0)
    return 77;
  late = me_cuda_host_alloc (1 << 20);
  if (!me_cuda_host_is_pinned (late)) {
    g_printerr ("no page-locked memory on this device\n");
    return 77;
  }
  return 0;
}
