# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The evaluation features' weighted sum (definitions in _features.pxd)."""
from libc.stdint cimport uint64_t

from engine._bitboard cimport HAVE_SSE2_MOBILITY, bit_count_difference, get_moves, init_lines, sse2_mobility_difference

init_lines()

cdef extern from "avx2_features.h" nogil:
    const bint HAVE_AVX2_FEATURES
    bint features_avx2_ready()
    int avx2_mobility_difference(uint64_t P, uint64_t O)
    double avx2_mobility_frontier(const double* weights, unsigned mask, uint64_t P, uint64_t O)

# Whether this CPU takes avx2_features.h's paths (the same values, half the work of SSE2's for mobility).
cdef bint AVX2 = HAVE_AVX2_FEATURES and features_avx2_ready()


cdef inline int mobility_difference(uint64_t P, uint64_t O) noexcept nogil:
    """Returns P's legal moves minus O's (SSE2: both generated at once)."""
    if HAVE_SSE2_MOBILITY:
        return sse2_mobility_difference(P, O)
    return bit_count_difference(get_moves(P, O), get_moves(O, P))


def _mobility(uint64_t player, uint64_t opponent):
    """Returns :func:`mobility_difference` (for tests: against the move generator's counts)."""
    return mobility_difference(player, opponent)


def _avx2_mobility(uint64_t player, uint64_t opponent):
    """Returns the AVX2 path's mobility, or None on a CPU (or build) without it (for tests)."""
    return avx2_mobility_difference(player, opponent) if AVX2 else None


def _mobility_frontier_sums(double mobility, double frontier, uint64_t player, uint64_t opponent):
    """Returns the weighted sum of mobility and frontier by the portable path and by the AVX2 one (None without
    it), for tests: the two must agree to the bit."""
    cdef double[2] weights = [mobility, frontier]
    cdef unsigned mask = (1 << MOBILITY) | (1 << FRONTIER)
    return (portable_sum(weights, mask, player, opponent),
            avx2_mobility_frontier(weights, mask, player, opponent) if AVX2 else None)


cdef inline double portable_sum(const double* weights, unsigned mask, uint64_t P, uint64_t O) noexcept nogil:
    """Returns mobility and frontier (the bits of ``mask``) weighted, as avx2_features.h does, on any x86-64."""
    cdef double total = 0.0
    cdef uint64_t near_empty
    if mask & (1 << MOBILITY):
        total += weights[<int>MOBILITY] * mobility_difference(P, O)
    if mask & (1 << FRONTIER):
        near_empty = next_to(~(P | O))
        total += weights[<int>FRONTIER] * bit_count_difference(P & near_empty, O & near_empty)
    return total


cdef double feature_sum(const double* weights, unsigned mask, uint64_t P, uint64_t O) noexcept nogil:
    """Returns the sum over the features in ``mask`` (bit f for Feature f) of ``weights[f]`` times feature f.

    Straight-line for the common two (a player's mask is the same at every
    leaf, so the branches are foreseen); mobility's two move counts and
    frontier's two disc counts are each taken in one pass.
    """
    cdef double total
    cdef int feature
    if AVX2:
        total = avx2_mobility_frontier(weights, mask, P, O)
    else:
        total = portable_sum(weights, mask, P, O)
    if mask >> STABILITY:
        for feature in range(STABILITY, N_FEATURES):
            if mask >> feature & 1:
                total += weights[feature] * feature_value(feature, P, O)
    return total
