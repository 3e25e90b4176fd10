/* gpumotionest — runs a fuzz target over files, without libFuzzer.
 *
 *   fuzz-TARGET-replay PATH...
 *
 * Each PATH is an input file or a directory of them (not recursive, in
 * name order).  Every input is run once through LLVMFuzzerTestOneInput();
 * a crash, a sanitizer report or a critical ends the program, and the last
 * "running" line names the input.  Exits 0 when every input ran, 1 when a
 * path could not be read or no input was found.
 */
#include "fuzz.h"

#include <stdio.h>
#include <string.h>

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static gboolean
run_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  gchar *data;
  gsize size;

  if (!g_file_get_contents (path, &data, &size, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return FALSE;
  }
  printf ("running %s (%" G_GSIZE_FORMAT " bytes)\n", path, size);
  fflush (stdout);
  LLVMFuzzerTestOneInput ((const uint8_t *) data, size);
  g_free (data);
  return TRUE;
}

int
main (int argc, char **argv)
{
  guint runs = 0;
  gboolean ok = TRUE;

  LLVMFuzzerInitialize (&argc, &argv);

  for (int i = 1; i < argc; i++) {
    if (g_file_test (argv[i], G_FILE_TEST_IS_DIR)) {
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      GDir *dir = g_dir_open (argv[i], 0, &error);
      const char *name;

      if (!dir) {
        fprintf (stderr, "%s\n", error->message);
        ok = FALSE;
        continue;
      }
      while ((name = g_dir_read_name (dir)))
        if (name[0] != '.')
          g_ptr_array_add (names, g_build_filename (argv[i], name, NULL));
      g_dir_close (dir);
      g_ptr_array_sort (names, compare_names);
      for (guint j = 0; j < names->len; j++) {
        if (g_file_test (names->pdata[j], G_FILE_TEST_IS_REGULAR)) {
          ok &= run_file (names->pdata[j]);
          runs++;
        }
      }
    } else {
      ok &= run_file (argv[i]);
      runs++;
    }
  }

  printf ("%u input(s) run\n", runs);
  return ok && runs > 0 ? 0 : 1;
}
