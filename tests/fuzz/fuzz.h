/* gpumotionest — fuzz targets: what the targets share.
 *
 * Each target is one LLVMFuzzerTestOneInput() over GStreamer.  Built with
 * clang and -fsanitize=fuzzer it is a libFuzzer binary; built with any
 * compiler together with replay.c it is a plain program that runs the
 * inputs given on its command line (files or directories), which is how the
 * corpus is replayed as a test in every build.
 *
 * The input is read front to back by the fuzz_*() readers; past its end they
 * return zeros, so every input, even an empty one, is a valid run.
 */
#ifndef GPUMOTIONEST_FUZZ_H
#define GPUMOTIONEST_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include <gst/gst.h>

typedef struct {
  const uint8_t *p;
  size_t n;
} FuzzInput;

static inline guint8
fuzz_u8 (FuzzInput * in)
{
  if (in->n == 0)
    return 0;
  in->n--;
  return *in->p++;
}

static inline guint16
fuzz_u16 (FuzzInput * in)
{
  guint16 lo = fuzz_u8 (in);
  return lo | (guint16) (fuzz_u8 (in) << 8);
}

static inline guint32
fuzz_u32 (FuzzInput * in)
{
  guint32 lo = fuzz_u16 (in);
  return lo | (guint32) fuzz_u16 (in) << 16;
}

static inline guint64
fuzz_u64 (FuzzInput * in)
{
  guint64 lo = fuzz_u32 (in);
  return lo | (guint64) fuzz_u32 (in) << 32;
}

/* A 32-bit value that is often one of the edges (0, 1, the maxima) rather
 * than anything: the edges are where the checks are. */
static inline guint32
fuzz_u32_edgy (FuzzInput * in)
{
  static const guint32 edges[] = { 0, 1, 2, 15, 16, 17, 255, 256, 8191, 8192,
    8193, 65535, 65536, G_MAXINT32, (guint32) G_MAXINT32 + 1, G_MAXUINT32 - 1,
    G_MAXUINT32
  };
  guint8 how = fuzz_u8 (in);

  if (how < 0x80)
    return edges[how % G_N_ELEMENTS (edges)];
  return fuzz_u32 (in);
}

/* Initialises GStreamer once for a target: the plugins come from the
 * build's gst/ directory (GST_PLUGIN_PATH_1_0, set by the test and by the
 * CI; the build's own path is the default), only those are scanned, and the
 * registry is scanned in this process so that sanitizer builds need no
 * instrumented plugin scanner.  Criticals abort, because an element or
 * accessor must meet bad input with an error, not with a failed assertion
 * (FUZZ_NONFATAL_CRITICALS=1 turns that off).  Aborts when one of the
 * NULL-terminated `factories` cannot be found. */
void fuzz_init (const char *const *factories);

/* Fills `size` bytes from a small generator seeded by `seed`: enough
 * texture for the search, nothing the fuzzer has to spell out. */
void fuzz_fill (guint8 * data, gsize size, guint32 seed);

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#endif /* GPUMOTIONEST_FUZZ_H */
