/* LD_PRELOAD shim for helgrind: GLib implements GMutex on futexes, which
 * helgrind does not see, so every GST_OBJECT_LOCK section would look
 * unsynchronised (and every lock-protected field racy).  This wraps the
 * calls that come from outside libglib and tells helgrind about them.
 * Built and used by helgrind.sh. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glib.h>
#include <valgrind/helgrind.h>

static void (*real_lock) (GMutex * m);
static void (*real_unlock) (GMutex * m);
static gboolean (*real_trylock) (GMutex * m);

static void
resolve (void)
{
  if (!real_lock) {
    real_lock = (void (*)(GMutex *)) dlsym (RTLD_NEXT, "g_mutex_lock");
    real_unlock = (void (*)(GMutex *)) dlsym (RTLD_NEXT, "g_mutex_unlock");
    real_trylock = (gboolean (*)(GMutex *)) dlsym (RTLD_NEXT,
        "g_mutex_trylock");
  }
}

void
g_mutex_lock (GMutex * m)
{
  resolve ();
  VALGRIND_HG_MUTEX_LOCK_PRE (m, 0);
  real_lock (m);
  VALGRIND_HG_MUTEX_LOCK_POST (m);
}

gboolean
g_mutex_trylock (GMutex * m)
{
  gboolean ok;

  resolve ();
  VALGRIND_HG_MUTEX_LOCK_PRE (m, 1);
  ok = real_trylock (m);
  if (ok)
    VALGRIND_HG_MUTEX_LOCK_POST (m);
  return ok;
}

void
g_mutex_unlock (GMutex * m)
{
  resolve ();
  VALGRIND_HG_MUTEX_UNLOCK_PRE (m);
  real_unlock (m);
  VALGRIND_HG_MUTEX_UNLOCK_POST (m);
}
