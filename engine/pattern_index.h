/* A pattern group's index from a whole board, for engine/_patterns.pxd.
 *
 * A group's squares, taken in ascending order, are the base-3 digits of its
 * index (the lowest square is the least significant digit), a square's digit
 * being 0 empty, 1 for the discs of the colour the index is taken for, 2 for
 * the other colour's. The bits of one colour's discs on the group, gathered
 * into the low bits (parallel bit extract), are read as base-3 digits by
 * TERNARY; the index is TERNARY[mine] + 2 * TERNARY[theirs].
 *
 * BMI2's pext gathers them in one instruction: its function carries its own
 * target attribute, so the build stays portable, and pattern_bmi2_ready()
 * says whether this CPU may call it. Other CPUs walk the group's squares.
 * Search nodes never come here: they update the indices of their parent
 * (engine/_patterns.pxd), so this runs once per move chosen.
 */
#ifndef OTHELLO_GA_PATTERN_INDEX_H
#define OTHELLO_GA_PATTERN_INDEX_H
#include <stdint.h>

/* The most squares a group may have (3**10 = 59,049 indices), and the most groups of a network. */
#define PATTERN_MAX_SQUARES 10
#define PATTERN_MAX_GROUPS 512

/* TERNARY[b]: the bits of b as base-3 digits (bit j is 3**j). */
static uint16_t TERNARY[1 << PATTERN_MAX_SQUARES];

static inline void pattern_init_ternary(void) {
    int bits, j;
    for (bits = 0; bits < (1 << PATTERN_MAX_SQUARES); bits++) {
        int value = 0, power = 1;
        for (j = 0; j < PATTERN_MAX_SQUARES; j++) {
            if (bits >> j & 1) value += power;
            power *= 3;
        }
        TERNARY[bits] = (uint16_t)value;
    }
}

/* The bits of x under mask, gathered into the low bits in ascending order (any CPU). */
static inline uint64_t pattern_extract_portable(uint64_t x, uint64_t mask) {
    uint64_t result = 0, bit = 1;
    while (mask) {
        if (x & mask & (0 - mask)) result |= bit;
        mask &= mask - 1;
        bit <<= 1;
    }
    return result;
}

/* Fills index[0][g] (black's discs as 1) and index[1][g] (white's as 1) for groups 0..n-1, whose squares
 * are masks[g]. */
static inline void pattern_indices_portable(const uint64_t* masks, int n, uint64_t black, uint64_t white,
                                     uint16_t* index_black, uint16_t* index_white) {
    int g;
    for (g = 0; g < n; g++) {
        unsigned b = TERNARY[pattern_extract_portable(black, masks[g])];
        unsigned w = TERNARY[pattern_extract_portable(white, masks[g])];
        index_black[g] = (uint16_t)(b + 2 * w);
        index_white[g] = (uint16_t)(w + 2 * b);
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define HAVE_PATTERN_BMI2 1

__attribute__((target("bmi2")))
static inline void pattern_indices_bmi2(const uint64_t* masks, int n, uint64_t black, uint64_t white,
                                 uint16_t* index_black, uint16_t* index_white) {
    int g;
    for (g = 0; g < n; g++) {
        unsigned b = TERNARY[_pext_u64(black, masks[g])];
        unsigned w = TERNARY[_pext_u64(white, masks[g])];
        index_black[g] = (uint16_t)(b + 2 * w);
        index_white[g] = (uint16_t)(w + 2 * b);
    }
}

/* AMD's families before Zen 3 (15h, 17h) have BMI2 but microcode pext, slower than walking the squares. */
static inline int pattern_bmi2_ready(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam15h") && !__builtin_cpu_is("amdfam17h");
}
#else
#define HAVE_PATTERN_BMI2 0
static inline void pattern_indices_bmi2(const uint64_t* masks, int n, uint64_t black, uint64_t white,
                                 uint16_t* index_black, uint16_t* index_white) {
    pattern_indices_portable(masks, n, black, white, index_black, index_white);
}
static inline int pattern_bmi2_ready(void) { return 0; }
#endif

/* One square's membership of a group (engine/_patterns.pxd's Update, the same layout). */
typedef struct {
    uint32_t offset;   /* the group's first entry in a phase's table */
    uint16_t group;
    uint16_t place;    /* 3**j: the square's digit place in the group's index */
} PatternUpdate;

/* Adds change * place to the pending change of each group of `square` in `delta`, listing each group the
 * first time it changes (a change is never 0: its digits are distinct powers of 3 with non-zero
 * coefficients of one sign, or +1 for the placed disc against -1 for flipped ones, which no sum of distinct
 * powers of 3 cancels). */
__attribute__((always_inline))
static inline int pattern_square_changes(const PatternUpdate* restrict update, const PatternUpdate* restrict end,
                                         int32_t* restrict delta, uint16_t* restrict touched, int n,
                                         const int change) {
    for (; update < end; update++) {
        const unsigned group = update->group;
        const int32_t before = delta[group];
        touched[n] = (uint16_t)group;
        n += before == 0;
        delta[group] = before + change * update->place;
    }
    return n;
}

__attribute__((always_inline))
static inline int64_t pattern_move_gain_by(const int32_t* restrict table, const PatternUpdate* restrict updates,
                                           const int* restrict first, const uint32_t* restrict offsets,
                                           const uint16_t* restrict index, int32_t* restrict delta, int square,
                                           uint64_t flips, const int placed, const int flipped) {
    uint16_t touched[PATTERN_MAX_GROUPS];
    int64_t gain = 0;
    int n = pattern_square_changes(updates + first[square], updates + first[square + 1], delta, touched, 0, placed);
    int i;
    for (; flips; flips &= flips - 1) {
        const int q = __builtin_ctzll(flips);
        n = pattern_square_changes(updates + first[q], updates + first[q + 1], delta, touched, n, flipped);
    }
    for (i = 0; i < n; i++) {
        const unsigned group = touched[i];
        const int32_t* entries = table + offsets[group] + index[group];
        gain += (int64_t)entries[delta[group]] - entries[0];
        delta[group] = 0;
    }
    return gain;
}

/* What the entries of `index` gain when the side to move plays `square`, flipping `flips`: `own` says
 * whether `index` is the mover's own encoding (its discs are 1: the new disc adds 1, a flipped one goes
 * from 2 to 1) or the other colour's (its discs are 2: the new disc adds 2, a flipped one goes from 1 to
 * 2). Each changed group's index changes once, by the sum of its squares' changes (gathered in `delta`, a
 * zeroed array of a group each, left zeroed), so a group holding several changed squares is read once;
 * in C with restrict pointers, and inlined with the changes constant, so that each update's fields stay
 * in registers and the multiplications are shifts or negations. */
__attribute__((always_inline))
static inline int64_t pattern_move_gain(const int32_t* restrict table, const PatternUpdate* restrict updates,
                                        const int* restrict first, const uint32_t* restrict offsets,
                                        const uint16_t* restrict index, int32_t* restrict delta, int square,
                                        uint64_t flips, int own) {
    if (own)
        return pattern_move_gain_by(table, updates, first, offsets, index, delta, square, flips, 1, -1);
    return pattern_move_gain_by(table, updates, first, offsets, index, delta, square, flips, 2, 1);
}

#endif
