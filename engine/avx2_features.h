/* The two features every leaf of a search weighs most often, mobility and
 * frontier, for CPUs with AVX2 and popcnt, chosen when engine._features loads.
 *
 * The default build runs on any x86-64 (SSE2 alone, bitops.h); a CPU of the
 * last ten years has AVX2, whose four lanes take four directions of one
 * side's moves at once (Edax's get_moves_avx2 layout: shifts by 1, 8, 9 and 7
 * per lane, each way), half the work of SSE2's two lanes. The functions carry
 * their own target attribute, so the rest of the module stays portable, and
 * features_avx2_ready() says whether this CPU may call them.
 */
#ifndef OTHELLO_GA_AVX2_FEATURES_H
#define OTHELLO_GA_AVX2_FEATURES_H
#include <stdint.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define HAVE_AVX2_FEATURES 1

/* The squares next to `squares` in any of the eight directions (engine/_features.pxd's next_to). */
static inline uint64_t features_next_to(uint64_t squares) {
    const uint64_t not_a = 0xFEFEFEFEFEFEFEFEULL, not_h = 0x7F7F7F7F7F7F7F7FULL;
    return (((squares << 1) | (squares << 9) | (squares >> 7)) & not_a)
         | (((squares >> 1) | (squares >> 9) | (squares << 7)) & not_h)
         | (squares << 8) | (squares >> 8);
}

/* One side's moves before the empty squares are kept, as four lanes whose OR
 * is the set: lane k holds the two directions of shift k (1, 8, 9, 7), each a
 * Kogge-Stone fill over the opponent's discs with doubling. */
__attribute__((target("avx2,popcnt")))
static inline __m256i avx2_move_lanes(uint64_t P, uint64_t O) {
    const __m256i shift = _mm256_set_epi64x(7, 9, 8, 1);
    const __m256i shift2 = _mm256_set_epi64x(14, 18, 16, 2);
    const __m256i PP = _mm256_set1_epi64x((long long)P);
    const __m256i mask = _mm256_and_si256(
        _mm256_set1_epi64x((long long)O),
        _mm256_set_epi64x(0x7E7E7E7E7E7E7E7ELL, 0x7E7E7E7E7E7E7E7ELL, -1LL, 0x7E7E7E7E7E7E7E7ELL));
    __m256i pairs = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, shift));
    __m256i up = _mm256_and_si256(mask, _mm256_sllv_epi64(PP, shift));
    up = _mm256_or_si256(up, _mm256_and_si256(mask, _mm256_sllv_epi64(up, shift)));
    up = _mm256_or_si256(up, _mm256_and_si256(pairs, _mm256_sllv_epi64(up, shift2)));
    up = _mm256_or_si256(up, _mm256_and_si256(pairs, _mm256_sllv_epi64(up, shift2)));
    __m256i down_pairs = _mm256_and_si256(mask, _mm256_srlv_epi64(mask, shift));
    __m256i down = _mm256_and_si256(mask, _mm256_srlv_epi64(PP, shift));
    down = _mm256_or_si256(down, _mm256_and_si256(mask, _mm256_srlv_epi64(down, shift)));
    down = _mm256_or_si256(down, _mm256_and_si256(down_pairs, _mm256_srlv_epi64(down, shift2)));
    down = _mm256_or_si256(down, _mm256_and_si256(down_pairs, _mm256_srlv_epi64(down, shift2)));
    return _mm256_or_si256(_mm256_sllv_epi64(up, shift), _mm256_srlv_epi64(down, shift));
}

/* P's legal moves minus O's. */
__attribute__((target("avx2,popcnt")))
static int avx2_mobility_difference(uint64_t P, uint64_t O) {
    const __m256i mine = avx2_move_lanes(P, O), theirs = avx2_move_lanes(O, P);
    /* Lanes (mine 0 | mine 1, theirs 0 | theirs 1, mine 2 | mine 3, theirs 2 | theirs 3), then the halves. */
    const __m256i folded = _mm256_or_si256(_mm256_unpacklo_epi64(mine, theirs), _mm256_unpackhi_epi64(mine, theirs));
    __m128i both = _mm_or_si128(_mm256_castsi256_si128(folded), _mm256_extracti128_si256(folded, 1));
    both = _mm_and_si128(both, _mm_set1_epi64x((long long)~(P | O)));
    return __builtin_popcountll((uint64_t)_mm_cvtsi128_si64(both))
         - __builtin_popcountll((uint64_t)_mm_extract_epi64(both, 1));
}

/* Mobility and frontier (the bits MOBILITY and FRONTIER of mask: 1 and 2) weighted by weights[0] and [1]. */
__attribute__((target("avx2,popcnt")))
static double avx2_mobility_frontier(const double *weights, unsigned mask, uint64_t P, uint64_t O) {
    double total = 0.0;
    if (mask & 1u) {
        total += weights[0] * avx2_mobility_difference(P, O);
    }
    if (mask & 2u) {
        const uint64_t near_empty = features_next_to(~(P | O));
        total += weights[1] * (__builtin_popcountll(P & near_empty) - __builtin_popcountll(O & near_empty));
    }
    return total;
}

static inline int features_avx2_ready(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
}
#else
#define HAVE_AVX2_FEATURES 0
static inline int avx2_mobility_difference(uint64_t P, uint64_t O) { (void)P; (void)O; return 0; }
static inline double avx2_mobility_frontier(const double *weights, unsigned mask, uint64_t P, uint64_t O) {
    (void)weights; (void)mask; (void)P; (void)O; return 0.0;
}
static inline int features_avx2_ready(void) { return 0; }
#endif
#endif
