/* gpumotionest — checkasm driver.
 *
 *   checkasm [--seed N] [--test dsp|search|fast|refs|backend|mc|summary] [--backend NAME] [--bench]
 *            [--input FILE --size WxH] [--threads N] [--devices LIST]
 *
 * Without arguments: the DSP routines of every SIMD level against their C
 * versions, the CPU backend against a naive full search, and every other
 * backend built in against the CPU backend.  --backend NAME runs only that
 * backend's comparison and exits 77 (meson's SKIP) when it cannot run here.
 * --bench times instead of checking; with --input, a backend (--backend, or
 * "cpu") on the frames of a raw I420 file of the given size.  "cpu-c" names
 * the CPU backend restricted to its C routines and one thread.  --threads
 * sets the CPU backend's threads (0, the default: one per core).
 * --devices 0,1 gives cuda-multi the devices to split over (default 0,0,0:
 * three sessions on the first GPU, the split without a second one).
 * --test mc: motion compensation (kernels/mc), the C reference on threads
 * against itself and CUDA against it; with --backend c or cuda only that
 * part, and --backend cuda exits 77 without a usable GPU.
 * --test summary: the motion summary's core reduced by the CUDA kernel and
 * backend against the host's (also part of --backend cuda).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "me_backend.h"

CheckasmState checkasm;

void
checkasm_report (const char *name, gboolean ok)
{
  printf ("%-48s %s\n", name, ok ? "OK" : "FAILED");
  if (!ok)
    checkasm.failures++;
}

void
checkasm_part_rect (int k, int *bx0, int *by0, int *w, int *h)
{
  int p = GST_MOTION_VECTOR_PARTITION_COUNT - 1;
  while (GST_MOTION_VECTOR_PARTITION_FIRST (p) > k)
    p--;
  *w = GST_MOTION_VECTOR_PARTITION_W (p) / 4;
  *h = GST_MOTION_VECTOR_PARTITION_H (p) / 4;
  const int j = k - GST_MOTION_VECTOR_PARTITION_FIRST (p);
  *bx0 = j % (4 / *w) * *w;
  *by0 = j / (4 / *w) * *h;
}

double
checkasm_now (void)
{
  return g_get_monotonic_time () / 1e6;
}

int
main (int argc, char **argv)
{
  guint32 seed = (guint32) g_get_real_time ();
  const char *test = NULL, *input = NULL;
  unsigned width = 0, height = 0;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--seed") && i + 1 < argc)
      seed = (guint32) strtoul (argv[++i], NULL, 0);
    else if (!strcmp (argv[i], "--test") && i + 1 < argc)
      test = argv[++i];
    else if (!strcmp (argv[i], "--backend") && i + 1 < argc)
      checkasm.backend = argv[++i];
    else if (!strcmp (argv[i], "--bench"))
      checkasm.bench = TRUE;
    else if (!strcmp (argv[i], "--devices") && i + 1 < argc) {
      gchar **list = g_strsplit (argv[++i], ",", ME_MAX_DEVICES);
      checkasm.n_devices = 0;
      for (guint k = 0; list[k]; k++)
        checkasm.devices[checkasm.n_devices++] = atoi (list[k]);
      g_strfreev (list);
    } else if (!strcmp (argv[i], "--threads") && i + 1 < argc)
      checkasm.threads = (unsigned) strtoul (argv[++i], NULL, 0);
    else if (!strcmp (argv[i], "--input") && i + 1 < argc)
      input = argv[++i];
    else if (!strcmp (argv[i], "--size") && i + 1 < argc
        && sscanf (argv[++i], "%ux%u", &width, &height) == 2)
      ;
    else {
      fprintf (stderr, "usage: %s [--seed N] [--test dsp|search|fast|refs|backend|mc|summary] "
          "[--backend NAME] [--bench [--input FILE --size WxH]] "
          "[--threads N] [--devices LIST]\n", argv[0]);
      return 2;
    }
  }
  if (!checkasm.n_devices)
    checkasm.n_devices = 3;     /* three sessions on device 0 */
  printf ("checkasm: seed %u\n", seed);
  checkasm.rand = g_rand_new_with_seed (seed);

  if (checkasm.bench && input)
    return checkasm_bench_file (input, width, height, checkasm.backend);
  if (test && strcmp (test, "dsp") && strcmp (test, "search")
      && strcmp (test, "fast") && strcmp (test, "refs")
      && strcmp (test, "backend") && strcmp (test, "mc")
      && strcmp (test, "summary")) {
    fprintf (stderr, "checkasm: no test named %s (dsp, search, fast, refs, "
        "backend, mc, summary)\n", test);
    return 2;
  }
  if (checkasm.bench) {
    if (!test || !strcmp (test, "dsp"))
      checkasm_bench_dsp ();
    if (!test || !strcmp (test, "backend"))
      checkasm_bench_backends ();
    return 0;
  }

  if (test && !strcmp (test, "mc")) {
    int r = checkasm_check_mc (checkasm.backend);
    if (r == 77 || r == 2)
      return r;
  } else if (test && !strcmp (test, "summary")) {
    int r = checkasm_check_summary (checkasm.backend);
    if (r == 77 || r == 2)
      return r;
  } else if (checkasm.backend) {
    int r = checkasm_check_backend (checkasm.backend);
    if (r == 77)
      return 77;
    if (!strcmp (checkasm.backend, "cuda"))
      checkasm_check_summary ("cuda");
  } else {
    if (!test || !strcmp (test, "dsp")) {
      checkasm_check_dsp ();
      checkasm_check_dsp16 ();
    }
    if (!test || !strcmp (test, "search")) {
      checkasm_check_search ();
      checkasm_check_search_deep ();
      checkasm_check_search_wide ();
    }
    if (!test || !strcmp (test, "fast"))
      checkasm_check_fast ();
    if (!test || !strcmp (test, "refs"))
      checkasm_check_refs ();
    if (!test)
      checkasm_check_mc (NULL);
    if (!test || !strcmp (test, "backend"))
      checkasm_check_backend ("cpu-c");
    if (!test || !strcmp (test, "backend"))
    {
      unsigned n;
      const MEBackendEntry *reg = me_backend_registry (&n);
      for (unsigned i = 0; i < n; i++)
        if (reg[i].ops && strcmp (reg[i].name, "cpu") != 0)
          checkasm_check_backend (reg[i].name);
    }
  }

  g_rand_free (checkasm.rand);
  if (checkasm.failures) {
    printf ("checkasm: %u check(s) FAILED (seed %u)\n", checkasm.failures,
        seed);
    return 1;
  }
  printf ("checkasm: all checks passed\n");
  return 0;
}
