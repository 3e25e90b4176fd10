/* gpumotionest — checkasm: every optimized routine and every backend
 * against the C reference, exactly. */
#ifndef CHECKASM_H
#define CHECKASM_H

#include <glib.h>
#include <stdint.h>

#include "me_backend.h"

typedef struct {
  GRand *rand;
  gboolean bench;
  const char *backend;          /* --backend: compare only this one */
  unsigned threads;             /* --threads: CPU threads, 0 for all */
  unsigned failures;
} CheckasmState;

extern CheckasmState checkasm;

/* Prints "name: OK" or "name: FAILED" and counts failures. */
void checkasm_report (const char *name, gboolean ok);
double checkasm_now (void);

/* The groups of checks; each returns nothing and reports as it goes. */
void checkasm_check_dsp (void);
void checkasm_check_search (void);
/* Opens backend `name` with checkasm's options ("cpu-c": the CPU backend
 * with C routines only, one thread, no early-out); NULL and an error when
 * it is not built or cannot run here. */
MEBackend *checkasm_open_backend (const char *name, GError ** error);
/* Returns 77 when the backend is not available, else 0. */
int checkasm_check_backend (const char *name);

void checkasm_bench_dsp (void);
void checkasm_bench_backends (void);
/* Times a backend (NULL: "cpu") on the luma of raw I420 frames in a file;
 * returns an exit status. */
int checkasm_bench_file (const char *path, unsigned width, unsigned height,
    const char *backend);

#endif /* CHECKASM_H */
