# cython: language_level=3
"""Bitboard core: move generation and flips on two side-relative uint64 masks.

A position is ``(P, O)``: the discs of the player to move and of the opponent.
Square ``s`` is bit ``s``: a1 = 0 (top-left), h1 = 7, a8 = 56, h8 = 63.
Making a move is ``P ^= flips | bit; O ^= flips`` followed by a swap (Edax).
"""
from libc.stdint cimport uint64_t

cdef extern from "bitops.h" nogil:
    const uint64_t INNER_FILES      # every file but a and h (stops wrap-around)
    const uint64_t START_BLACK      # d5, e4
    const uint64_t START_WHITE      # d4, e5
    int bit_count(uint64_t x)       # population count
    int first_bit(uint64_t x)       # index of the lowest set bit, x != 0


cdef inline uint64_t _moves_up(uint64_t P, uint64_t mask, int d) noexcept nogil:
    # Kogge-Stone fill: a run of at most 6 opponent discs starting next to P.
    cdef uint64_t t = mask & (P << d)
    t |= mask & (t << d)
    t |= mask & (t << d)
    t |= mask & (t << d)
    t |= mask & (t << d)
    t |= mask & (t << d)
    return t << d


cdef inline uint64_t _moves_down(uint64_t P, uint64_t mask, int d) noexcept nogil:
    cdef uint64_t t = mask & (P >> d)
    t |= mask & (t >> d)
    t |= mask & (t >> d)
    t |= mask & (t >> d)
    t |= mask & (t >> d)
    t |= mask & (t >> d)
    return t >> d


cdef inline uint64_t get_moves(uint64_t P, uint64_t O) noexcept nogil:
    """Returns the mask of P's legal moves."""
    cdef uint64_t inner = O & INNER_FILES
    cdef uint64_t moves = (
        _moves_up(P, inner, 1) | _moves_down(P, inner, 1)
        | _moves_up(P, O, 8) | _moves_down(P, O, 8)
        | _moves_up(P, inner, 7) | _moves_down(P, inner, 7)
        | _moves_up(P, inner, 9) | _moves_down(P, inner, 9)
    )
    return moves & ~(P | O)


cdef inline uint64_t _flips_up(uint64_t m, uint64_t P, uint64_t mask, int d) noexcept nogil:
    # The run of opponent discs next to m; it flips when a P disc closes it.
    cdef uint64_t run = mask & (m << d)
    run |= mask & (run << d)
    run |= mask & (run << d)
    run |= mask & (run << d)
    run |= mask & (run << d)
    run |= mask & (run << d)
    return run & (<uint64_t>0 - <uint64_t>(((run << d) & P) != 0))


cdef inline uint64_t _flips_down(uint64_t m, uint64_t P, uint64_t mask, int d) noexcept nogil:
    cdef uint64_t run = mask & (m >> d)
    run |= mask & (run >> d)
    run |= mask & (run >> d)
    run |= mask & (run >> d)
    run |= mask & (run >> d)
    run |= mask & (run >> d)
    return run & (<uint64_t>0 - <uint64_t>(((run >> d) & P) != 0))


cdef inline uint64_t get_flips(int square, uint64_t P, uint64_t O) noexcept nogil:
    """Returns the discs P flips by playing on ``square`` (0 if it flips none)."""
    cdef uint64_t m = (<uint64_t>1) << square
    cdef uint64_t inner = O & INNER_FILES
    return (
        _flips_up(m, P, inner, 1) | _flips_down(m, P, inner, 1)
        | _flips_up(m, P, O, 8) | _flips_down(m, P, O, 8)
        | _flips_up(m, P, inner, 7) | _flips_down(m, P, inner, 7)
        | _flips_up(m, P, inner, 9) | _flips_down(m, P, inner, 9)
    )


cdef uint64_t perft_c(uint64_t P, uint64_t O, int depth) noexcept nogil
