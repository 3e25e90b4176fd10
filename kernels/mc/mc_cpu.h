/* gpumotionest — motion compensation, the fast CPU implementation
 * (mc_cpu.c): its levels, for the checks and the bench.
 *
 * mc_impl_cpu() (mc.h) gives the best level this CPU runs; each level
 * alone is here so that checkasm can compare every one with the C
 * reference.  All make the C reference's samples bit for bit.
 */
#ifndef MC_CPU_H
#define MC_CPU_H

#include "mc_impl.h"

G_BEGIN_DECLS

/* The levels, worst first. */
typedef enum {
  MC_CPU_PORTABLE,              /* plain C for the compiler's baseline */
  MC_CPU_AVX2,                  /* the same C built for AVX2 (x86-64) */
  MC_CPU_N_LEVELS,
} MCCpuLevel;

/* The implementation of one level, or NULL when this build or this CPU
 * has none. */
const MCImpl *mc_impl_cpu_level (MCCpuLevel level);

/* The window, along one direction, of the blocks before, at and after one
 * row or column of cells (mc_cpu_tmpl.c): w[d][i] for sample i of the
 * cell, zero past its samples up to 32 so that whole rows of 16 may be
 * read from any sample of the cell; [lo[d], hi[d]) where w[d] is not zero
 * (empty: lo >= hi). */
typedef struct {
  int16_t w[3][32];
  int8_t lo[3];
  int8_t hi[3];
} MCCpuWin;

/* Threads for a call: MCOptions.threads, 0 and 1 both the caller's. */
static inline unsigned
mc_cpu_threads (const MCOptions * opt)
{
  return opt->threads ? opt->threads : 1;
}

/* The levels' tables, each built from mc_cpu_tmpl.c. */
const MCImpl *mc_cpu_table_portable (void);
const MCImpl *mc_cpu_table_avx2 (void);

G_END_DECLS

#endif /* MC_CPU_H */
