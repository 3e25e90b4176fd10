/* gpumotionest — the partition tests of the AVX2 esa_row routines, one
 * step of LANES candidates: the bound of each of the 41 partitions, summed
 * from the sixteen 4x4 bounds d[0..15] (vectors of lanes), tested against
 * its limit lim[k], k in the shape table's order (me_parts.h).
 *
 * The includer defines ADD (x, y), the lane-wise sum, and KEEP (v, k),
 * which marks the lanes whose bound v passes partition k's limit; the
 * 8-bit routine works in 16-bit lanes, the deeper one in 32-bit lanes. */
#ifndef ME_ESA_KEEP_SIMD_H
#define ME_ESA_KEEP_SIMD_H

/* 4x4, 8x4, 4x8, 8x8, then the halves and the whole */
#define ESA_KEEP_PARTS(d) \
  do { \
    for (int b_ = 0; b_ < 16; b_++) \
      KEEP ((d)[b_], 25 + b_); \
    for (int y_ = 0; y_ < 4; y_++) \
      for (int x_ = 0; x_ < 4; x_ += 2) \
        KEEP (ADD ((d)[4 * y_ + x_], (d)[4 * y_ + x_ + 1]), \
            9 + 2 * y_ + x_ / 2); \
    for (int y_ = 0; y_ < 4; y_ += 2) \
      for (int x_ = 0; x_ < 4; x_++) \
        KEEP (ADD ((d)[4 * y_ + x_], (d)[4 * y_ + x_ + 4]), \
            17 + 2 * y_ + x_); \
    const __m256i q0_ = ADD (ADD ((d)[0], (d)[1]), ADD ((d)[4], (d)[5])); \
    const __m256i q1_ = ADD (ADD ((d)[2], (d)[3]), ADD ((d)[6], (d)[7])); \
    const __m256i q2_ = ADD (ADD ((d)[8], (d)[9]), ADD ((d)[12], (d)[13])); \
    const __m256i q3_ = ADD (ADD ((d)[10], (d)[11]), ADD ((d)[14], (d)[15])); \
    KEEP (q0_, 5); \
    KEEP (q1_, 6); \
    KEEP (q2_, 7); \
    KEEP (q3_, 8); \
    KEEP (ADD (q0_, q1_), 1); \
    KEEP (ADD (q2_, q3_), 2); \
    KEEP (ADD (q0_, q2_), 3); \
    KEEP (ADD (q1_, q3_), 4); \
    KEEP (ADD (ADD (q0_, q1_), ADD (q2_, q3_)), 0); \
  } while (0)

#endif /* ME_ESA_KEEP_SIMD_H */
