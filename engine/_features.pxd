# cython: language_level=3
"""Evaluation features beside the square weights, each a count "mine minus theirs" for the side to move.

An evaluation is the square weights' sum plus each enabled feature times its
weight. The definitions (docs/config.md#features has them for users):

- MOBILITY: my legal moves minus the opponent's.
- FRONTIER: my frontier discs minus the opponent's; a frontier disc is one
  next to an empty square in any of the eight directions (the discs that give
  the opponent moves: potential mobility). Good evaluations weigh it negative.
- STABILITY: my stable discs minus the opponent's (engine/_stability.pyx:
  edges from every sequence of edge moves, full lines, stable neighbours;
  every disc counted can never be flipped).
- PARITY: +1 when the number of empty squares is odd (without passes the
  side to move plays the last move), -1 when it is even, 0 on a full board.
- CORNER_X: my discs on the X-squares (b2, g2, b7, g7) next to an occupied
  corner, minus the opponent's; CORNER_C the same for the C-squares (a2, b1,
  g1, h2, a7, b8, h7, g8). They let a table forgive the squares next to a
  corner once it is taken (Norvig's modified weighted squares).
"""
from libc.stdint cimport uint64_t

from engine._bitboard cimport CORNERS, bit_count, bit_count_difference, get_moves
from engine._stability cimport stable_discs

cdef enum Feature:
    MOBILITY = 0
    FRONTIER = 1
    STABILITY = 2
    PARITY = 3
    CORNER_X = 4
    CORNER_C = 5
    N_FEATURES = 6


cdef inline uint64_t next_to(uint64_t squares) noexcept nogil:
    """Returns the squares next to ``squares`` in any of the eight directions (the masks stop wrap-around)."""
    cdef uint64_t not_a = 0xFEFEFEFEFEFEFEFEULL, not_h = 0x7F7F7F7F7F7F7F7FULL
    return (((squares << 1) | (squares << 9) | (squares >> 7)) & not_a
            | ((squares >> 1) | (squares >> 9) | (squares << 7)) & not_h
            | (squares << 8) | (squares >> 8))


cdef inline int corner_neighbours(uint64_t P, uint64_t O, uint64_t x_or_c) noexcept nogil:
    """Returns my discs minus the opponent's among ``x_or_c`` squares next to an occupied corner."""
    cdef uint64_t taken = (P | O) & CORNERS, near = 0
    if taken & 0x1ULL:
        near |= 0x0000000000000302ULL  # b1, a2, b2
    if taken & 0x80ULL:
        near |= 0x000000000000C040ULL  # g1, h2, g2
    if taken & 0x0100000000000000ULL:
        near |= 0x0203000000000000ULL  # a7, b7, b8
    if taken & 0x8000000000000000ULL:
        near |= 0x40C0000000000000ULL  # g7, h7, g8
    near &= x_or_c
    return bit_count(P & near) - bit_count(O & near)


cdef inline double feature_value(int feature, uint64_t P, uint64_t O) noexcept nogil:
    """Returns one feature of (P, O) for the side to move P."""
    cdef uint64_t near_empty
    cdef int empty
    if feature == MOBILITY:
        return bit_count(get_moves(P, O)) - bit_count(get_moves(O, P))
    if feature == FRONTIER:
        near_empty = next_to(~(P | O))
        return bit_count(P & near_empty) - bit_count(O & near_empty)
    if feature == STABILITY:
        return bit_count(stable_discs(P, O)) - bit_count(stable_discs(O, P))
    if feature == PARITY:
        empty = 64 - bit_count(P | O)
        return 0 if empty == 0 else (1 if empty & 1 else -1)
    if feature == CORNER_X:
        return corner_neighbours(P, O, 0x0042000000004200ULL)  # b2, g2, b7, g7
    return corner_neighbours(P, O, 0x4281000000008142ULL)  # b1, g1, a2, h2, a7, h7, b8, g8


# Returns the sum over the features in ``mask`` (bit f for Feature f) of ``weights[f]`` times feature f of
# (P, O). A function of its own module, never inlined: the table-only evaluation it would sit in is
# inlined into the search, and grew too large for that beside it.
cdef double feature_sum(const double* weights, unsigned mask, uint64_t P, uint64_t O) noexcept nogil
