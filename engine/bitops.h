/* Bit operations for the Cython engine.
 *
 * The default build targets any x86-64, where popcnt is not guaranteed: use the
 * instruction when the compiler may (-mpopcnt or -march=native, see setup.py),
 * otherwise a branch-free SWAR count.
 */
#ifndef OTHELLO_GA_BITOPS_H
#define OTHELLO_GA_BITOPS_H
#include <stdint.h>

/* Every file except a and h: stops shifts by 1, 7 and 9 from wrapping between ranks. */
#define INNER_FILES 0x7E7E7E7E7E7E7E7EULL
#define START_BLACK 0x0000000810000000ULL /* d5, e4 */
#define START_WHITE 0x0000001008000000ULL /* d4, e5 */

static inline int bit_count(uint64_t x) {
#if defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* Index of the lowest set bit; x must not be 0. */
static inline int first_bit(uint64_t x) { return __builtin_ctzll(x); }

/* Index of the highest set bit; x must not be 0. */
static inline int last_bit(uint64_t x) { return 63 - __builtin_clzll(x); }

/* LINES[s][k]: the squares of one line through s beyond it, for the four
 * directions with increasing indices (k = 0..3: +1, +8, +7, +9) and then the
 * four decreasing ones (k = 4..7). Filled by init_lines() in _bitboard.pxd;
 * each extension module has its own copy. */
static uint64_t LINES[64][8];

#endif
