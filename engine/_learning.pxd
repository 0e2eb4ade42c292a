# cython: language_level=3
"""Temporal-difference learning of a pattern network's weights by self-play, at C level.

The engine's players read a network's quantised, merged tables (engine/_patterns.pxd); learning changes
the weights at every move, so it reads them as they are: one float64 per entry of every tuple's table,
in the order of engine/patterns.py's ``PatternNetwork.vector()``, each copy indexed on its own.
"""
from libc.stdint cimport int32_t, uint16_t, uint64_t

cdef enum:
    MAX_COPIES = 4096    # the most copies a network learnt here may have


cdef struct CopyUpdate:
    int32_t copy         # a copy the square belongs to
    int32_t place        # 3**k: the square's digit place in that copy's index (its first square the most significant)


cdef struct Learner:
    int n_copies
    int n_phases
    unsigned char phase_of[61]  # the phase of a position with e empty squares
    const int32_t* base  # [n_copies]: where the copy's tuple's first table starts in the weights
    const int32_t* step  # [n_copies]: 3**n, how far the tuple's table for the next phase lies
    int first[65]        # the copies of square q are updates[first[q]:first[q + 1]]
    const CopyUpdate* updates


# Plays ``games`` self-play games of the network ``weights`` (modified in place): each side takes, with
# probability ``eps``, a uniformly random move, and otherwise the move whose position after it the network
# values most for it; after each move the side's previous position is moved towards the new one's value by
# TD(0) with a tanh output and step ``alpha``, and the last towards the result (+1, 0, -1). Returns the
# number of games black won minus white's; ``seed`` draws the games.
cdef long td_self_play(const Learner* learner, double* weights, long games, uint64_t seed, double alpha,
                       double eps) noexcept nogil
