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
/* File a, and the multiplier that gathers it into a byte (rank k at bit k of the top byte: no two
 * partial products meet, so nothing carries into it). */
#define FILE_A 0x0101010101010101ULL
#define FILE_TO_BYTE 0x0102040810204080ULL
#define CORNERS 0x8100000000000081ULL
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

/* bit_count(a) - bit_count(b): with SSE2 (every x86-64) the two counts share one SWAR pass, the bytes
 * summed by psadbw. */
static inline int bit_count_difference(uint64_t a, uint64_t b);

/* Index of the lowest set bit; x must not be 0. */
static inline int first_bit(uint64_t x) { return __builtin_ctzll(x); }

/* Index of the highest set bit; x must not be 0. */
static inline int last_bit(uint64_t x) { return 63 - __builtin_clzll(x); }

/* LINES[s][k]: the squares of one line through s beyond it, for the four
 * directions with increasing indices (k = 0..3: +1, +8, +7, +9) and then the
 * four decreasing ones (k = 4..7). Filled by init_lines() in _bitboard.pxd;
 * each extension module has its own copy. */
static uint64_t LINES[64][8];

#if defined(__SSE2__)
#include <emmintrin.h>

/* A board and its mirror image top to bottom (a byte swap) in the two lanes. */
static inline __m128i sse2_pair(uint64_t x) {
    return _mm_set_epi64x((long long)__builtin_bswap64(x), (long long)x);
}
static inline uint64_t sse2_low(__m128i x) { return (uint64_t)_mm_cvtsi128_si64(x); }
/* The mirrored lane turned back. */
static inline uint64_t sse2_high_unmirrored(__m128i x) {
    return __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)));
}

/* _run_up and _run_down of _bitboard.pxd on two boards at once: Kogge-Stone
 * fills with doubling (d is a constant after inlining). */
static inline __m128i sse2_run_up(__m128i P, __m128i mask, const int d) {
    __m128i pairs = _mm_and_si128(mask, _mm_slli_epi64(mask, d));
    __m128i t = _mm_and_si128(mask, _mm_slli_epi64(P, d));
    t = _mm_or_si128(t, _mm_and_si128(mask, _mm_slli_epi64(t, d)));
    t = _mm_or_si128(t, _mm_and_si128(pairs, _mm_slli_epi64(t, 2 * d)));
    return _mm_or_si128(t, _mm_and_si128(pairs, _mm_slli_epi64(t, 2 * d)));
}

static inline __m128i sse2_run_down(__m128i P, __m128i mask, const int d) {
    __m128i pairs = _mm_and_si128(mask, _mm_srli_epi64(mask, d));
    __m128i t = _mm_and_si128(mask, _mm_srli_epi64(P, d));
    t = _mm_or_si128(t, _mm_and_si128(mask, _mm_srli_epi64(t, d)));
    t = _mm_or_si128(t, _mm_and_si128(pairs, _mm_srli_epi64(t, 2 * d)));
    return _mm_or_si128(t, _mm_and_si128(pairs, _mm_srli_epi64(t, 2 * d)));
}

/* Legal moves of P, six directions two at a time (SSE2 is in every x86-64).
 * Lane 1 holds the board mirrored top to bottom (a byte swap), where a shift
 * towards higher indices walks the opposite vertical direction: the shifts by
 * 8, 7 and 9 there cover -8, -9 and -7 (Edax's get_moves_sse). The two
 * horizontal directions stay scalar: mirroring leaves them unchanged. */
static inline uint64_t sse2_moves(uint64_t P, uint64_t O) {
    const __m128i inner_files = _mm_set1_epi64x((long long)INNER_FILES);
    __m128i PP = sse2_pair(P), OO = sse2_pair(O);
    __m128i inner = _mm_and_si128(OO, inner_files);
    __m128i t8, t7, t9, all;
    uint64_t inner1 = O & INNER_FILES, left, right, pairs, moves;
    /* the runs next to P, then the step onto the move */
    t8 = _mm_slli_epi64(sse2_run_up(PP, OO, 8), 8);
    t7 = _mm_slli_epi64(sse2_run_up(PP, inner, 7), 7);
    t9 = _mm_slli_epi64(sse2_run_up(PP, inner, 9), 9);
    all = _mm_or_si128(t8, _mm_or_si128(t7, t9));
    moves = sse2_low(all) | sse2_high_unmirrored(all);
    left = inner1 & (P << 1);
    right = inner1 & (P >> 1);
    pairs = inner1 & (inner1 << 1);
    left |= inner1 & (left << 1);
    right |= inner1 & (right >> 1);
    left |= pairs & (left << 2);
    right |= (pairs >> 1) & (right >> 2);
    left |= pairs & (left << 2);
    right |= (pairs >> 1) & (right >> 2);
    moves |= (left << 1) | (right >> 1);
    return moves & ~(P | O);
}

/* LINE_PAIRS[s]: three pairs of rays from s, for get_flips: (+8, -8), (+7,
 * -9), (+9, -7), each second ray byte-swapped. On the mirrored board the
 * second ray runs towards higher indices too, so the nearest square of all
 * six rays is the lowest bit. Filled by init_line_pairs() after LINES. */
static uint64_t LINE_PAIRS[64][6] __attribute__((aligned(16)));

static inline void init_line_pairs(void) {
    for (int s = 0; s < 64; s++) {
        LINE_PAIRS[s][0] = LINES[s][1];
        LINE_PAIRS[s][1] = __builtin_bswap64(LINES[s][5]);
        LINE_PAIRS[s][2] = LINES[s][2];
        LINE_PAIRS[s][3] = __builtin_bswap64(LINES[s][7]);
        LINE_PAIRS[s][4] = LINES[s][3];
        LINE_PAIRS[s][5] = __builtin_bswap64(LINES[s][6]);
    }
}

/* _flips_above of _bitboard.pxd on both lanes: the discs before the nearest
 * non-opponent square of each ray, kept when that square is P's. */
static inline __m128i sse2_flips_above(__m128i line, __m128i P, __m128i O) {
    const __m128i one = _mm_set1_epi64x(1);
    __m128i stop = _mm_andnot_si128(O, line);
    __m128i first = _mm_and_si128(stop, _mm_sub_epi64(_mm_setzero_si128(), stop));
    __m128i closed = _mm_and_si128(first, P); /* one bit, or 0 */
    /* all ones when closed != 0: closed - 1 has its top bit set only for 0 */
    __m128i keep = _mm_sub_epi64(_mm_srli_epi64(_mm_sub_epi64(closed, one), 63), one);
    return _mm_and_si128(_mm_and_si128(_mm_sub_epi64(first, one), line), keep);
}

/* The flips of a move on square s along the six vertical and diagonal rays. */
static inline uint64_t sse2_vertical_move_flips(int s, uint64_t P, uint64_t O) {
    __m128i PP = sse2_pair(P), OO = sse2_pair(O);
    const __m128i *pairs = (const __m128i *)LINE_PAIRS[s];
    __m128i f = _mm_or_si128(sse2_flips_above(_mm_load_si128(pairs), PP, OO),
                             _mm_or_si128(sse2_flips_above(_mm_load_si128(pairs + 1), PP, OO),
                                          sse2_flips_above(_mm_load_si128(pairs + 2), PP, OO)));
    return sse2_low(f) | sse2_high_unmirrored(f);
}

/* _flipped_up of _bitboard.pxd on both lanes. */
static inline __m128i sse2_flipped_up(__m128i P, __m128i mask, __m128i empty, const int d) {
    __m128i run = sse2_run_up(P, mask, d);
    return _mm_and_si128(run, sse2_run_down(_mm_and_si128(_mm_slli_epi64(run, d), empty), mask, d));
}

/* The six vertical and diagonal directions of all_flips (_bitboard.pxd), two
 * at a time as in sse2_moves: on the mirrored lane, +8 is -8, +7 is -9 and +9
 * is -7. flipped[] uses all_flips's order (+1, -1, +8, -8, +7, -7, +9, -9). */
static inline void sse2_vertical_flips(uint64_t P, uint64_t O, uint64_t *flipped) {
    const __m128i inner_files = _mm_set1_epi64x((long long)INNER_FILES);
    __m128i PP = sse2_pair(P), OO = sse2_pair(O);
    __m128i inner = _mm_and_si128(OO, inner_files);
    __m128i empty = _mm_andnot_si128(_mm_or_si128(PP, OO), _mm_set1_epi64x(-1));
    __m128i f8 = sse2_flipped_up(PP, OO, empty, 8);
    __m128i f7 = sse2_flipped_up(PP, inner, empty, 7);
    __m128i f9 = sse2_flipped_up(PP, inner, empty, 9);
    flipped[2] = sse2_low(f8);
    flipped[3] = sse2_high_unmirrored(f8);
    flipped[4] = sse2_low(f7);
    flipped[7] = sse2_high_unmirrored(f7);
    flipped[6] = sse2_low(f9);
    flipped[5] = sse2_high_unmirrored(f9);
}
#define HAVE_SSE2_MOVES 1
#else
#define HAVE_SSE2_MOVES 0
static inline uint64_t sse2_moves(uint64_t P, uint64_t O) { (void)P; (void)O; return 0; }
#endif

#if defined(__SSE2__)
/* The number of P's legal moves minus O's, both generated at once: lane 0 holds P's runs over O, lane 1
 * O's over P, and each of the eight directions is one Kogge-Stone fill on the pair (two calls of
 * sse2_moves took about twice the instructions; mobility is an evaluation's costliest feature). */
static inline int sse2_mobility_difference(uint64_t P, uint64_t O) {
    const __m128i inner_files = _mm_set1_epi64x((long long)INNER_FILES);
    const __m128i movers = _mm_set_epi64x((long long)O, (long long)P);
    const __m128i jumped = _mm_set_epi64x((long long)P, (long long)O);
    const __m128i inner = _mm_and_si128(jumped, inner_files);
    const __m128i empty = _mm_set1_epi64x((long long)~(P | O));
    const __m128i m1 = _mm_set1_epi8(0x55), m2 = _mm_set1_epi8(0x33), m4 = _mm_set1_epi8(0x0F);
    __m128i moves = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_slli_epi64(sse2_run_up(movers, inner, 1), 1),
                                  _mm_srli_epi64(sse2_run_down(movers, inner, 1), 1)),
                     _mm_or_si128(_mm_slli_epi64(sse2_run_up(movers, jumped, 8), 8),
                                  _mm_srli_epi64(sse2_run_down(movers, jumped, 8), 8))),
        _mm_or_si128(_mm_or_si128(_mm_slli_epi64(sse2_run_up(movers, inner, 7), 7),
                                  _mm_srli_epi64(sse2_run_down(movers, inner, 7), 7)),
                     _mm_or_si128(_mm_slli_epi64(sse2_run_up(movers, inner, 9), 9),
                                  _mm_srli_epi64(sse2_run_down(movers, inner, 9), 9))));
    __m128i x = _mm_and_si128(moves, empty);
    x = _mm_sub_epi64(x, _mm_and_si128(_mm_srli_epi64(x, 1), m1));
    x = _mm_add_epi64(_mm_and_si128(x, m2), _mm_and_si128(_mm_srli_epi64(x, 2), m2));
    x = _mm_and_si128(_mm_add_epi64(x, _mm_srli_epi64(x, 4)), m4);
    x = _mm_sad_epu8(x, _mm_setzero_si128());
    return (int)_mm_cvtsi128_si64(x) - (int)_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x));
}
#define HAVE_SSE2_MOBILITY 1
#else
#define HAVE_SSE2_MOBILITY 0
static inline int sse2_mobility_difference(uint64_t P, uint64_t O) { (void)P; (void)O; return 0; }
#endif

#if defined(__POPCNT__) || !defined(__SSE2__)
static inline int bit_count_difference(uint64_t a, uint64_t b) { return bit_count(a) - bit_count(b); }
#else
static inline int bit_count_difference(uint64_t a, uint64_t b) {
    const __m128i m1 = _mm_set1_epi8(0x55), m2 = _mm_set1_epi8(0x33), m4 = _mm_set1_epi8(0x0F);
    __m128i x = _mm_set_epi64x((long long)b, (long long)a);
    x = _mm_sub_epi64(x, _mm_and_si128(_mm_srli_epi64(x, 1), m1));
    x = _mm_add_epi64(_mm_and_si128(x, m2), _mm_and_si128(_mm_srli_epi64(x, 2), m2));
    x = _mm_and_si128(_mm_add_epi64(x, _mm_srli_epi64(x, 4)), m4);
    x = _mm_sad_epu8(x, _mm_setzero_si128());
    return (int)_mm_cvtsi128_si64(x) - (int)_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x));
}
#endif
#if !defined(__SSE2__)
static inline void sse2_vertical_flips(uint64_t P, uint64_t O, uint64_t *flipped) { (void)P; (void)O; (void)flipped; }
static inline void init_line_pairs(void) {}
static inline uint64_t sse2_vertical_move_flips(int s, uint64_t P, uint64_t O) { (void)s; (void)P; (void)O; return 0; }
#endif

/* Table lookups by the eight bytes (ranks) of a board, entry 256 * r + b for
 * byte b of rank r. On a little-endian CPU the bytes are read back from memory:
 * a load picks a byte where a register needs a shift and a mask, and the
 * empty asm stops the compiler from turning the loads back into shifts (the
 * leaves of every search are summed here). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#define RANK_BYTES(name, ...) \
    uint64_t name##_boards[] = {__VA_ARGS__}; \
    const unsigned char *name = (const unsigned char *)name##_boards; \
    __asm__("" : "+m"(name##_boards))
#define RANK_BYTE(name, board, r) name[8 * (board) + (r)]
#else
#define RANK_BYTES(name, ...) const uint64_t name[] = {__VA_ARGS__}
#define RANK_BYTE(name, board, r) ((name[board] >> (8 * (r))) & 255)
#endif

/* The weighted score of P's discs minus O's from a table's rank sums
 * (sums[256 * r + b]: the weights of rank r's squares under byte b), added
 * exactly as a loop over the ranks adds them: each side from 0.0, rank 0
 * first, then the difference. */
static inline double rank_sums_difference(const double *sums, uint64_t P, uint64_t O) {
    double mine = 0.0, theirs = 0.0;
    RANK_BYTES(bytes, P, O);
    for (int r = 0; r < 8; r++) {
        mine += sums[256 * r + RANK_BYTE(bytes, 0, r)];
        theirs += sums[256 * r + RANK_BYTE(bytes, 1, r)];
    }
    return mine - theirs;
}

/* The same sum for one board. */
static inline double rank_sums_total(const double *sums, uint64_t discs) {
    double total = 0.0;
    RANK_BYTES(bytes, discs);
    for (int r = 0; r < 8; r++)
        total += sums[256 * r + RANK_BYTE(bytes, 0, r)];
    return total;
}

#endif
