# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The evaluation features' weighted sum (definitions in _features.pxd)."""
from libc.stdint cimport uint64_t

from engine._bitboard cimport HAVE_SSE2_MOBILITY, bit_count_difference, get_moves, init_lines, sse2_mobility_difference

init_lines()


cdef inline int mobility_difference(uint64_t P, uint64_t O) noexcept nogil:
    """Returns P's legal moves minus O's (SSE2: both generated at once)."""
    if HAVE_SSE2_MOBILITY:
        return sse2_mobility_difference(P, O)
    return bit_count_difference(get_moves(P, O), get_moves(O, P))


def _mobility(uint64_t player, uint64_t opponent):
    """Returns :func:`mobility_difference` (for tests: against the move generator's counts)."""
    return mobility_difference(player, opponent)


cdef double feature_sum(const double* weights, unsigned mask, uint64_t P, uint64_t O) noexcept nogil:
    """Returns the sum over the features in ``mask`` (bit f for Feature f) of ``weights[f]`` times feature f.

    Straight-line for the common two (a player's mask is the same at every
    leaf, so the branches are foreseen); mobility's two move counts and
    frontier's two disc counts are each taken in one pass.
    """
    cdef double total = 0.0
    cdef uint64_t near_empty
    cdef int feature
    if mask & (1 << MOBILITY):
        total += weights[<int>MOBILITY] * mobility_difference(P, O)
    if mask & (1 << FRONTIER):
        near_empty = next_to(~(P | O))
        total += weights[<int>FRONTIER] * bit_count_difference(P & near_empty, O & near_empty)
    if mask >> STABILITY:
        for feature in range(STABILITY, N_FEATURES):
            if mask >> feature & 1:
                total += weights[feature] * feature_value(feature, P, O)
    return total
